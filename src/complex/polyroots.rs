//! The fused Ehrlich-Aberth iteration: every step of every root as one
//! fixed sequence of correctly rounded scalar operations (MPFR's add, sub,
//! mul, div at the working precision), run per root by the CPU engine's
//! threads or by one CUDA block per root (`src/kernels/roots.cu`,
//! [`super::cuda_roots`]), with the same bits on both.
//!
//! The sequence of one step for root `i` (all operations rounded to
//! nearest at `p` bits unless marked RU, upward):
//! - powers `X_0 = 1`, `X_1 = x_i`, and by doubling `X_k = X_s X_{k-s}`
//!   for `s = 1, 2, 4, ...` and `s < k <= min(2s, n)`; the same for
//!   `R_k = rho^k` (RU) with `rho = |Re x_i| + |Im x_i|` (RU);
//! - `p = tsum_k A_k X_k`, `p' = tsum_k D_k X_k` and the noise scale
//!   `tsum_k |A_k|_1 R_k` (RU), where `A_k` are the coefficients rounded
//!   once to `p` bits, `D_k = (k+1) a_{k+1}` rounded once, and `tsum` is the
//!   pairwise sum `v_k <- v_k + v_{k+s}`, `s = 1, 2, 4, ...` (a slot whose
//!   leaves are all absent passes the other through unchanged);
//! - `S = tsum_{j != i} 1/(x_i - t_j)` with `1/d = (d_r q, -(d_i q))`,
//!   `q = 1/(d_r^2 + d_i^2)`; complex products as
//!   `(a_r b_r - a_i b_i, a_r b_i + a_i b_r)`, each product rounded;
//! - `t' = x_i - p / (p' - p S)` (the quotient as `p * (1/den)`), from
//!   `t = x` L times;
//! - flags: isolated `16 |p S(x)|^2 <= |p'|^2`, at noise `|p|_1 <=
//!   2^(ceil(log2 2n) - prec) noise` (RU), small last correction
//!   `|c|^2 <= tol^2 |t'|^2`, with `|z|^2 = z_r^2 + z_i^2`.
//!
//! Values live packed: a float is `1 + ceil(p/64)` words (the head
//! `exp << 8 | tag` of the device layout, then the limbs), a complex two
//! floats.

use std::cmp::Ordering;

use malachite_float::Float;
use rayon::prelude::*;

use super::ComplexArray;
use crate::engine::Engine;
use crate::error::{Error, Result};
use crate::float::arith::{self, Scratch};
use crate::float::round::{Out, Round};
use crate::float::{Class, Elem, FloatArray, NEG, check_prec, class_of, limbs_for_prec};

/// Largest limb count the CUDA kernels serve (1024 bits); above, the CPU
/// engine computes the iteration and the roots are moved to the device.
pub const CUDA_MAX_LIMBS: usize = 16;

/// The outcome of [`aberth_fused`].
#[derive(Debug)]
pub struct FusedRoots {
    /// The approximations at the working precision, on `x0`'s engine.
    pub roots: ComplexArray,
    /// Whether each root met the stopping test at the last check.
    pub converged: Vec<bool>,
    /// Steps made.
    pub iterations: usize,
    /// A rigorous upper bound on `|p(roots[i])|` per root (see
    /// [`certify_fused`]), on `x0`'s engine.
    pub residual_bound: FloatArray,
}

/// Per-root flags of one step (bit 0 isolated, 1 at noise, 2 small).
pub(crate) const F_ISO: u8 = 1;
pub(crate) const F_NOISE: u8 = 2;
pub(crate) const F_SMALL: u8 = 4;

/// The iteration's data, packed (see the module docs).
pub(crate) struct Setup {
    /// Degree.
    pub n: usize,
    pub p: u64,
    /// Limbs per float.
    pub nl: usize,
    /// `A_k`, k = 0..=n, complex.
    pub a: Vec<u64>,
    /// `D_k = (k+1) a_{k+1}`, k = 0..n, complex.
    pub d: Vec<u64>,
    /// `|Re A_k| + |Im A_k|` rounded up, k = 0..=n, real.
    pub ab: Vec<u64>,
    /// A bound on `|a_k - A_k|` (0 where the rounding was exact, else
    /// `2^-p |A_k|_1` rounded up), k = 0..=n, real.
    pub er: Vec<u64>,
    /// `1`, `tol^2`, real.
    pub consts: Vec<u64>,
    /// `ceil(log2 2n) - p`.
    pub kshift: i64,
}

impl Setup {
    /// Words per float.
    pub fn w(&self) -> usize {
        self.nl + 1
    }
}

/// A host array at `p` bits packed (each element rounded to nearest).
fn pack_array(a: &FloatArray, p: u64) -> Result<Vec<u64>> {
    let a = a.to_engine(&Engine::Cpu)?;
    let w = limbs_for_prec(p) + 1;
    let mut v = vec![0u64; a.len() * w];
    for i in 0..a.len() {
        let e = a.get(i)?;
        put(&mut v[i * w..(i + 1) * w], |o| {
            arith::set(o, &e, false, false, p, Round::Nearest)
        });
    }
    Ok(v)
}

/// Interleaves two packed real arrays into packed complex ones.
fn zip_complex(re: &[u64], im: &[u64], w: usize) -> Vec<u64> {
    let mut v = Vec::with_capacity(re.len() * 2);
    for (r, i) in re.chunks(w).zip(im.chunks(w)) {
        v.extend_from_slice(r);
        v.extend_from_slice(i);
    }
    v
}

/// Packed complex words back to a CPU array at `p` bits.
pub(crate) fn unpack_complex(v: &[u64], p: u64) -> Result<ComplexArray> {
    let w = limbs_for_prec(p) + 1;
    let len = v.len() / (2 * w);
    let part = |k: usize| -> Result<FloatArray> {
        let (mut tags, mut exps, mut limbs) = (
            Vec::with_capacity(len),
            Vec::with_capacity(len),
            Vec::with_capacity(len * (w - 1)),
        );
        for i in 0..len {
            let f = &v[(2 * i + k) * w..(2 * i + k + 1) * w];
            tags.push(f[0] as u8);
            exps.push((f[0] as i64) >> 8);
            limbs.extend_from_slice(&f[1..]);
        }
        FloatArray::from_raw(p, tags, exps, limbs)
    };
    ComplexArray::new(part(0)?, part(1)?)
}

/// `x` (any engine) packed at `p` bits.
pub(crate) fn pack_complex(x: &ComplexArray, p: u64) -> Result<Vec<u64>> {
    let w = limbs_for_prec(p) + 1;
    Ok(zip_complex(
        &pack_array(&x.re()?, p)?,
        &pack_array(&x.im()?, p)?,
        w,
    ))
}

impl Setup {
    /// Packs the coefficients (ascending, leading one last and nonzero) and
    /// the constants for precision `p` and tolerance `tol2` (= tol^2).
    pub fn new(coeffs: &ComplexArray, p: u64, tol2: &Float) -> Result<Setup> {
        check_prec(p)?;
        let n = coeffs.len().saturating_sub(1);
        if n == 0 {
            return Err(Error::Invalid(
                "a polynomial of degree 0 has no roots to find".into(),
            ));
        }
        let nl = limbs_for_prec(p);
        let w = nl + 1;
        let a = pack_complex(coeffs, p)?;
        // D_k = (k+1) a_{k+1}, exact product rounded once.
        let host = coeffs.to_engine(&Engine::Cpu)?;
        let (re, im) = (host.re()?, host.im()?);
        let mut d = vec![0u64; n * 2 * w];
        let mut s = Scratch::default();
        for k in 0..n {
            let m = crate::complex::scalar::from_int(k as i64 + 1);
            for (part, arr) in [(0, &re), (1, &im)] {
                let e = arr.get(k + 1)?;
                let o = (2 * k + part) * w;
                put(&mut d[o..o + w], |out| {
                    arith::mul(out, &e, &m.elem(), p, Round::Nearest, &mut s)
                });
            }
        }
        let mut ab = vec![0u64; (n + 1) * w];
        for k in 0..=n {
            let (ar, ai) = (
                &a[2 * k * w..(2 * k + 1) * w],
                &a[(2 * k + 1) * w..(2 * k + 2) * w],
            );
            let (xr, xi) = (abs_of(ar), abs_of(ai));
            put(&mut ab[k * w..(k + 1) * w], |o| {
                arith::add(o, &elem(&xr), &elem(&xi), false, p, Round::Up, &mut s)
            });
        }
        // Exactly representable coefficients: equal after the rounding.
        let mut er = vec![0u64; (n + 1) * w];
        for k in 0..=n {
            let exact = |arr: &FloatArray, part: usize| -> Result<bool> {
                let e = arr.get(k)?;
                let o = (2 * k + part) * w;
                let back = elem(&a[o..o + w]);
                Ok(
                    arith::cmp(&e, &back) == Some(Ordering::Equal) && e.neg == back.neg
                        || (e.class == Class::Zero && back.class == Class::Zero),
                )
            };
            if !(exact(&re, 0)? && exact(&im, 1)?) {
                let v = ab[k * w..(k + 1) * w].to_vec();
                put(&mut er[k * w..(k + 1) * w], |o| {
                    arith::mul_2si(o, &elem(&v), -(p as i64), p, Round::Up)
                });
            }
        }
        let mut consts = vec![0u64; 2 * w];
        consts[0] = (1u64 << 8) | Class::Normal as u64;
        consts[w - 1] = 1 << 63;
        let t = FloatArray::from_floats(p, std::slice::from_ref(tol2), Round::Nearest)?.0;
        consts[w..].copy_from_slice(&pack_array(&t, p)?);
        let kshift = (2 * n).next_power_of_two().trailing_zeros() as i64 - p as i64;
        Ok(Setup {
            n,
            p,
            nl,
            a,
            d,
            ab,
            er,
            consts,
            kshift,
        })
    }
}

// ---- scalar operations on packed floats ------------------------------------

/// A packed float as an element.
fn elem(w: &[u64]) -> Elem<'_> {
    let t = w[0] as u8;
    Elem {
        class: class_of(t),
        neg: t & NEG != 0,
        exp: (w[0] as i64) >> 8,
        limbs: &w[1..],
    }
}

/// Runs an element operation into the packed float `out`.
fn put(out: &mut [u64], f: impl FnOnce(&mut Out) -> i8) {
    let (h, m) = out.split_at_mut(1);
    let (mut tag, mut exp) = (0u8, 0i64);
    f(&mut Out {
        tag: &mut tag,
        exp: &mut exp,
        m,
    });
    h[0] = ((exp as u64) << 8) | tag as u64;
}

/// `|x|` (exact), as an owned packed float.
fn abs_of(x: &[u64]) -> Vec<u64> {
    let mut v = x.to_vec();
    v[0] &= !(NEG as u64);
    v
}

/// `-x` in place (exact; NaN unchanged).
fn negate(x: &mut [u64]) {
    if (x[0] as u8) & 3 != Class::NaN as u8 {
        x[0] ^= NEG as u64;
    }
}

/// Whether `x <= y` (false with a NaN).
fn le(x: &[u64], y: &[u64]) -> bool {
    matches!(
        arith::cmp(&elem(x), &elem(y)),
        Some(Ordering::Less | Ordering::Equal)
    )
}

/// The per-thread arithmetic context: precision, words per float, scratch
/// and temporaries.
struct Ar {
    p: u64,
    w: usize,
    s: Scratch,
    t: Vec<u64>,
}

impl Ar {
    fn new(p: u64) -> Ar {
        let w = limbs_for_prec(p) + 1;
        Ar {
            p,
            w,
            s: Scratch::default(),
            t: vec![0; 8 * w],
        }
    }

    fn mul(&mut self, r: &mut [u64], x: &[u64], y: &[u64], rnd: Round) {
        let (p, s) = (self.p, &mut self.s);
        put(r, |o| arith::mul_same(o, &elem(x), &elem(y), p, rnd, s));
    }

    fn add(&mut self, r: &mut [u64], x: &[u64], y: &[u64], sub: bool, rnd: Round) {
        let (p, s) = (self.p, &mut self.s);
        put(r, |o| arith::add(o, &elem(x), &elem(y), sub, p, rnd, s));
    }

    fn div(&mut self, r: &mut [u64], x: &[u64], y: &[u64]) {
        let (p, s) = (self.p, &mut self.s);
        put(r, |o| {
            arith::div(o, &elem(x), &elem(y), p, Round::Nearest, s)
        });
    }

    fn shift(&mut self, r: &mut [u64], x: &[u64], k: i64, rnd: Round) {
        let p = self.p;
        put(r, |o| arith::mul_2si(o, &elem(x), k, p, rnd));
    }

    /// `r = x y` (complex; r distinct from x and y).
    fn cmul(&mut self, r: &mut [u64], x: &[u64], y: &[u64]) {
        let w = self.w;
        let mut t = std::mem::take(&mut self.t);
        let (t1, rest) = t.split_at_mut(w);
        let t2 = &mut rest[..w];
        let (xr, xi) = x.split_at(w);
        let (yr, yi) = y.split_at(w);
        let (rr, ri) = r.split_at_mut(w);
        self.mul(t1, xr, yr, Round::Nearest);
        self.mul(t2, xi, yi, Round::Nearest);
        self.add(rr, t1, t2, true, Round::Nearest);
        self.mul(t1, xr, yi, Round::Nearest);
        self.mul(t2, xi, yr, Round::Nearest);
        self.add(ri, t1, t2, false, Round::Nearest);
        self.t = t;
    }

    /// `r = x + y` or `x - y` part by part.
    fn cadd(&mut self, r: &mut [u64], x: &[u64], y: &[u64], sub: bool) {
        let w = self.w;
        let (rr, ri) = r.split_at_mut(w);
        self.add(rr, &x[..w], &y[..w], sub, Round::Nearest);
        self.add(ri, &x[w..], &y[w..], sub, Round::Nearest);
    }

    /// `r = 1/d = (d_r q, -(d_i q))`, `q = 1/(d_r^2 + d_i^2)`.
    fn rec(&mut self, r: &mut [u64], d: &[u64], one: &[u64]) {
        let w = self.w;
        let mut t = std::mem::take(&mut self.t);
        let (t1, rest) = t.split_at_mut(w);
        let (t2, rest) = rest.split_at_mut(w);
        let q = &mut rest[..w];
        let (dr, di) = d.split_at(w);
        self.mul(t1, dr, dr, Round::Nearest);
        self.mul(t2, di, di, Round::Nearest);
        self.add(q, t1, t2, false, Round::Nearest);
        self.div(t1, one, q);
        let (rr, ri) = r.split_at_mut(w);
        self.mul(rr, dr, t1, Round::Nearest);
        self.mul(ri, di, t1, Round::Nearest);
        negate(ri);
        self.t = t;
    }

    /// `r = z_r^2 + z_i^2` (real).
    fn norm2(&mut self, r: &mut [u64], z: &[u64]) {
        let w = self.w;
        let mut t = std::mem::take(&mut self.t);
        let (t1, rest) = t.split_at_mut(w);
        let t2 = &mut rest[..w];
        self.mul(t1, &z[..w], &z[..w], Round::Nearest);
        self.mul(t2, &z[w..], &z[w..], Round::Nearest);
        self.add(r, t1, t2, false, Round::Nearest);
        self.t = t;
    }

    /// The pairwise sum of `cnt` leaves of `cw` words in `v` (leaf `skip`
    /// absent), left in leaf 0; `rnd` per part; all leaves absent: zeros.
    fn tsum(&mut self, v: &mut [u64], cnt: usize, cw: usize, skip: usize, rnd: Round) {
        let w = self.w;
        let mut tmp = vec![0u64; cw];
        let mut s = 1;
        while s < cnt {
            let mut k = 0;
            while k + s < cnt {
                let (l, r) = (present(k, s, cnt, skip), present(k + s, s, cnt, skip));
                let (lo, hi) = v.split_at_mut((k + s) * cw);
                let (a, b) = (&mut lo[k * cw..(k + 1) * cw], &hi[..cw]);
                if l && r {
                    for part in 0..cw / w {
                        let o = part * w;
                        self.add(&mut tmp[o..o + w], &a[o..o + w], &b[o..o + w], false, rnd);
                    }
                    a.copy_from_slice(&tmp);
                } else if r {
                    a.copy_from_slice(b);
                }
                k += 2 * s;
            }
            s *= 2;
        }
        if cnt == 0 || !present(0, s.max(1), cnt, skip) {
            v[..cw].fill(0);
        }
    }
}

/// Whether the tree slot at `k` covering `width` leaves holds any leaf
/// other than `skip` (of `cnt`).
pub(crate) fn present(k: usize, width: usize, cnt: usize, skip: usize) -> bool {
    let end = (k + width).min(cnt);
    !(end - k == 1 && k == skip) && end > k
}

// ---- one step on the CPU ----------------------------------------------------

/// Phase A's results for one root: `t^(1)`, `p` and `p'`, the flags.
type PhaseA = (Vec<u64>, Vec<u64>, u8);

/// The state of a CPU iteration: approximations and per-root values.
struct CpuIter<'a> {
    su: &'a Setup,
    x: Vec<u64>,
    t: Vec<u64>,
    /// `p(x_i)`, `p'(x_i)` per root.
    pd: Vec<u64>,
    flags: Vec<u8>,
}

impl CpuIter<'_> {
    /// Phase A for every root: powers, `p`, `p'`, noise, `S(x)`, the first
    /// correction and the isolation and noise flags.
    fn first(&mut self, last: bool) {
        let su = self.su;
        let (n, w) = (su.n, su.w());
        let cw = 2 * w;
        let x = &self.x;
        let one = &su.consts[..w];
        let tol2 = &su.consts[w..2 * w];
        let out: Vec<PhaseA> = (0..n)
            .into_par_iter()
            .map_init(
                || Ar::new(su.p),
                |ar, i| {
                    let xi = &x[i * cw..(i + 1) * cw];
                    // Powers.
                    let mut xp = vec![0u64; (n + 1) * cw];
                    let mut rp = vec![0u64; (n + 1) * w];
                    xp[..w].copy_from_slice(one);
                    xp[cw..2 * cw].copy_from_slice(xi);
                    rp[..w].copy_from_slice(one);
                    {
                        let (xr, xim) = (abs_of(&xi[..w]), abs_of(&xi[w..]));
                        ar.add(&mut rp[w..2 * w], &xr, &xim, false, Round::Up);
                    }
                    let mut s = 1;
                    while s < n {
                        for k in s + 1..=(2 * s).min(n) {
                            let (lo, hi) = xp.split_at_mut(k * cw);
                            ar.cmul(
                                &mut hi[..cw],
                                &lo[s * cw..(s + 1) * cw],
                                &lo[(k - s) * cw..(k - s + 1) * cw],
                            );
                            let (lo, hi) = rp.split_at_mut(k * w);
                            ar.mul(
                                &mut hi[..w],
                                &lo[s * w..(s + 1) * w],
                                &lo[(k - s) * w..(k - s + 1) * w],
                                Round::Up,
                            );
                        }
                        s *= 2;
                    }
                    // Terms and their sums.
                    let mut tp = vec![0u64; (n + 1) * cw];
                    let mut tq = vec![0u64; n * cw];
                    let mut tz = vec![0u64; (n + 1) * w];
                    for k in 0..=n {
                        let xk = &xp[k * cw..(k + 1) * cw];
                        ar.cmul(
                            &mut tp[k * cw..(k + 1) * cw],
                            &su.a[k * cw..(k + 1) * cw],
                            xk,
                        );
                        if k < n {
                            ar.cmul(
                                &mut tq[k * cw..(k + 1) * cw],
                                &su.d[k * cw..(k + 1) * cw],
                                xk,
                            );
                        }
                        ar.mul(
                            &mut tz[k * w..(k + 1) * w],
                            &su.ab[k * w..(k + 1) * w],
                            &rp[k * w..(k + 1) * w],
                            Round::Up,
                        );
                    }
                    ar.tsum(&mut tp, n + 1, cw, usize::MAX, Round::Nearest);
                    ar.tsum(&mut tq, n, cw, usize::MAX, Round::Nearest);
                    ar.tsum(&mut tz, n + 1, w, usize::MAX, Round::Up);
                    let (p, dp) = (&tp[..cw], &tq[..cw]);
                    let mut flags = 0u8;
                    // At noise: |p|_1 <= 2^kshift noise (RU).
                    let mut a1 = vec![0u64; w];
                    let mut thr = vec![0u64; w];
                    ar.add(
                        &mut a1,
                        &abs_of(&p[..w]),
                        &abs_of(&p[w..]),
                        false,
                        Round::Up,
                    );
                    ar.shift(&mut thr, &tz[..w], su.kshift, Round::Up);
                    if le(&a1, &thr) {
                        flags |= F_NOISE;
                    }
                    let (t, c, iso) = correction(ar, su, xi, p, dp, x, i, one, tol2, last);
                    if iso {
                        flags |= F_ISO;
                    }
                    if c.1 {
                        flags |= F_SMALL;
                    }
                    let mut pd = p.to_vec();
                    pd.extend_from_slice(dp);
                    (t, pd, flags)
                },
            )
            .collect();
        for (i, (t, pd, f)) in out.into_iter().enumerate() {
            self.t[i * cw..(i + 1) * cw].copy_from_slice(&t);
            self.pd[i * 2 * cw..(i + 1) * 2 * cw].copy_from_slice(&pd);
            self.flags[i] = f;
        }
    }

    /// A later sub-step: `t <- x - p/(p' - p S(t))` for every root.
    fn next(&mut self, last: bool) {
        let su = self.su;
        let (n, w) = (su.n, su.w());
        let cw = 2 * w;
        let (x, t, pd) = (&self.x, &self.t, &self.pd);
        let one = &su.consts[..w];
        let tol2 = &su.consts[w..2 * w];
        let out: Vec<(Vec<u64>, bool)> = (0..n)
            .into_par_iter()
            .map_init(
                || Ar::new(su.p),
                |ar, i| {
                    let xi = &x[i * cw..(i + 1) * cw];
                    let pdi = &pd[i * 2 * cw..(i + 1) * 2 * cw];
                    let (tn, (_, small), _) =
                        correction(ar, su, xi, &pdi[..cw], &pdi[cw..], t, i, one, tol2, last);
                    (tn, small)
                },
            )
            .collect();
        let mut tn = vec![0u64; n * cw];
        for (i, (ti, small)) in out.into_iter().enumerate() {
            tn[i * cw..(i + 1) * cw].copy_from_slice(&ti);
            self.flags[i] = (self.flags[i] & !F_SMALL) | if small { F_SMALL } else { 0 };
        }
        self.t = tn;
    }
}

/// One correction of root `i`: `S = tsum_{j != i} 1/(x_i - t_j)`, `c =
/// p (1/(p' - p S))`, `t' = x_i - c`; returns `t'`, `(c, small)` (small
/// only when `last`) and whether `16 |p S|^2 <= |p'|^2`.
#[allow(clippy::too_many_arguments)]
fn correction(
    ar: &mut Ar,
    su: &Setup,
    xi: &[u64],
    p: &[u64],
    dp: &[u64],
    t: &[u64],
    i: usize,
    one: &[u64],
    tol2: &[u64],
    last: bool,
) -> (Vec<u64>, (Vec<u64>, bool), bool) {
    let (n, w) = (su.n, su.w());
    let cw = 2 * w;
    let mut leaves = vec![0u64; n * cw];
    let mut d = vec![0u64; cw];
    for j in 0..n {
        if j != i {
            ar.cadd(&mut d, xi, &t[j * cw..(j + 1) * cw], true);
            ar.rec(&mut leaves[j * cw..(j + 1) * cw], &d, one);
        }
    }
    ar.tsum(&mut leaves, n, cw, i, Round::Nearest);
    let sum = &leaves[..cw];
    let mut ps = vec![0u64; cw];
    ar.cmul(&mut ps, p, sum);
    let (mut a, mut b, mut a16) = (vec![0u64; w], vec![0u64; w], vec![0u64; w]);
    ar.norm2(&mut a, &ps);
    ar.shift(&mut a16, &a, 4, Round::Nearest);
    ar.norm2(&mut b, dp);
    let iso = le(&a16, &b);
    let mut den = vec![0u64; cw];
    ar.cadd(&mut den, dp, &ps, true);
    ar.rec(&mut d, &den, one);
    let mut c = vec![0u64; cw];
    ar.cmul(&mut c, p, &d);
    let mut tn = vec![0u64; cw];
    ar.cadd(&mut tn, xi, &c, true);
    let mut small = false;
    if last {
        ar.norm2(&mut a, &c);
        ar.norm2(&mut b, &tn);
        ar.mul(&mut a16, &b, tol2, Round::Nearest);
        small = le(&a, &a16);
    }
    (tn, (c, small), iso)
}

// ---- the residual bound ------------------------------------------------------

/// A rigorous upper bound on `|p(x)|` (rounded up) for the exact
/// coefficients and the point `x` (packed complex): Horner's rule with the
/// products of [`Ar::cmul`], `s <- (t_r + A_r, t_i + A_i)` to nearest, and
/// the radius (all RU) `r <- r |x|_1 + 2^-p (|rr| + |ii| + |ri| + |ir| +
/// |t|_1 + |s|_1) + er_k`, where `rr = fl(s_r x_r)` ... are the four
/// rounded products, `t = (fl(rr - ii), fl(ri + ir))`; each rounding to
/// nearest errs by at most `2^-p` times its result, so by induction
/// `|s_k - S_k| <= r_k` for the exact Horner values `S_k`, and the bound is
/// `|s_0|_1 + r_0`. Starts from `s = A_n`, `r = er_n`.
fn certify_root(ar: &mut Ar, su: &Setup, x: &[u64]) -> Vec<u64> {
    let (n, w, p) = (su.n, su.w(), su.p);
    let cw = 2 * w;
    let up = Round::Up;
    let mut ax = vec![0u64; w];
    ar.add(&mut ax, &abs_of(&x[..w]), &abs_of(&x[w..]), false, up);
    let mut s = su.a[n * cw..(n + 1) * cw].to_vec();
    let mut r = su.er[n * w..(n + 1) * w].to_vec();
    let mut pr = vec![0u64; 4 * w];
    let mut t = vec![0u64; cw];
    let (mut m, mut m2, mut u) = (vec![0u64; w], vec![0u64; w], vec![0u64; w]);
    for k in (0..n).rev() {
        {
            let (rr, rest) = pr.split_at_mut(w);
            let (ii, rest) = rest.split_at_mut(w);
            let (ri, ir) = rest.split_at_mut(w);
            ar.mul(rr, &s[..w], &x[..w], Round::Nearest);
            ar.mul(ii, &s[w..], &x[w..], Round::Nearest);
            ar.mul(ri, &s[..w], &x[w..], Round::Nearest);
            ar.mul(ir, &s[w..], &x[..w], Round::Nearest);
            let (tr, ti) = t.split_at_mut(w);
            ar.add(tr, rr, ii, true, Round::Nearest);
            ar.add(ti, ri, ir, false, Round::Nearest);
        }
        ar.cadd(&mut s, &t, &su.a[k * cw..(k + 1) * cw], false);
        // The radius.
        ar.add(&mut m, &abs_of(&pr[..w]), &abs_of(&pr[w..2 * w]), false, up);
        ar.add(&mut m2, &m, &abs_of(&pr[2 * w..3 * w]), false, up);
        ar.add(&mut m, &m2, &abs_of(&pr[3 * w..]), false, up);
        ar.add(&mut u, &abs_of(&t[..w]), &abs_of(&t[w..]), false, up);
        ar.add(&mut m2, &m, &u, false, up);
        ar.add(&mut u, &abs_of(&s[..w]), &abs_of(&s[w..]), false, up);
        ar.add(&mut m, &m2, &u, false, up);
        ar.shift(&mut m2, &m, -(p as i64), up);
        ar.mul(&mut u, &r, &ax, up);
        ar.add(&mut m, &u, &m2, false, up);
        ar.add(&mut r, &m, &su.er[k * w..(k + 1) * w], false, up);
    }
    ar.add(&mut u, &abs_of(&s[..w]), &abs_of(&s[w..]), false, up);
    ar.add(&mut m, &u, &r, false, up);
    m
}

/// Packed reals back to a CPU array at `p` bits.
fn unpack_real(v: &[u64], p: u64) -> Result<FloatArray> {
    let w = limbs_for_prec(p) + 1;
    let len = v.len() / w;
    let (mut tags, mut exps, mut limbs) = (
        Vec::with_capacity(len),
        Vec::with_capacity(len),
        Vec::with_capacity(len * (w - 1)),
    );
    for f in v.chunks(w) {
        tags.push(f[0] as u8);
        exps.push((f[0] as i64) >> 8);
        limbs.extend_from_slice(&f[1..]);
    }
    FloatArray::from_raw(p, tags, exps, limbs)
}

/// The bounds of [`certify_root`] for the packed points `x` on `eng`
/// (CUDA: one thread per point, `roots_certify`).
fn certify_packed(su: &Setup, x: &[u64], eng: &Engine) -> Result<FloatArray> {
    let cw = 2 * su.w();
    let packed = match eng {
        Engine::Cuda(dev) if su.nl <= CUDA_MAX_LIMBS => super::cuda_roots::certify(dev, su, x)?,
        _ => x
            .par_chunks(cw)
            .map_init(|| Ar::new(su.p), |ar, xi| certify_root(ar, su, xi))
            .flatten()
            .collect(),
    };
    unpack_real(&packed, su.p)?.into_engine(eng)
}

/// A rigorous upper bound on `|p(x_i)|` for every element of `x`, rounded
/// up at `prec` bits, on `x`'s engine (see `certify_root`; the
/// coefficients are used exactly, `x` rounded to `prec` bits first).
pub fn certify_fused(coeffs: &ComplexArray, x: &ComplexArray, prec: u64) -> Result<FloatArray> {
    let su = Setup::new(coeffs, prec, &Float::from(0u32))?;
    certify_packed(&su, &pack_complex(x, prec)?, &x.engine())
}

// ---- the iteration ---------------------------------------------------------

/// One engine's state of the fused iteration.
pub(crate) trait Stepper {
    /// One step of order `order` from the current approximations; the new
    /// ones are kept aside; returns the per-root flags.
    fn step(&mut self, order: usize) -> Result<Vec<u8>>;
    /// Makes the approximations of the last step current.
    fn commit(&mut self);
    /// The current approximations, packed.
    fn roots(&self) -> Result<Vec<u64>>;
}

impl Stepper for CpuIter<'_> {
    fn step(&mut self, order: usize) -> Result<Vec<u8>> {
        self.first(order == 1);
        for l in 1..order {
            self.next(l + 1 == order);
        }
        Ok(self.flags.clone())
    }

    fn commit(&mut self) {
        std::mem::swap(&mut self.x, &mut self.t);
    }

    fn roots(&self) -> Result<Vec<u64>> {
        Ok(self.x.clone())
    }
}

/// All roots of `sum_k coeffs[k] z^k` from the starting values `x0` by the
/// Ehrlich-Aberth iteration of order `2 order + 1`, fused per root (see the
/// module docs), on `x0`'s engine; `tol2` is the squared relative
/// correction below which a root may count as converged; `progress` gets
/// (steps, converged roots) after every step.
pub fn aberth_fused(
    coeffs: &ComplexArray,
    x0: &ComplexArray,
    prec: u64,
    order: usize,
    tol2: &Float,
    max_iter: usize,
    progress: &mut dyn FnMut(usize, usize),
) -> Result<FusedRoots> {
    let t0 = std::time::Instant::now();
    let su = Setup::new(coeffs, prec, tol2)?;
    aberth_fused_setup(su, t0, x0, &x0.engine(), prec, order, max_iter, progress)
}

/// [`aberth_fused`] with the coefficients' [`Setup`] already made (the
/// solver makes it beside the starting points; `t0`: when it began, for
/// the profile) and the iteration on `eng` (`x0` on any engine: it is
/// packed on the host).
#[allow(clippy::too_many_arguments)]
pub(crate) fn aberth_fused_setup(
    su: Setup,
    t0: std::time::Instant,
    x0: &ComplexArray,
    eng: &Engine,
    prec: u64,
    order: usize,
    max_iter: usize,
    progress: &mut dyn FnMut(usize, usize),
) -> Result<FusedRoots> {
    if order == 0 {
        return Err(Error::Invalid(
            "the Aberth order L must be at least 1".into(),
        ));
    }
    let prof = std::env::var_os("MPARRAY_ROOTS_PROFILE").is_some();
    let ts = std::time::Instant::now();
    if x0.len() != su.n {
        return Err(Error::Shape(format!(
            "{} starting values for a polynomial of degree {}",
            x0.len(),
            su.n
        )));
    }
    let eng = eng.clone();
    let x = pack_complex(x0, prec)?;
    let t1 = std::time::Instant::now();
    let (packed, converged, iterations) = match &eng {
        Engine::Cuda(dev) if su.nl <= CUDA_MAX_LIMBS => {
            let mut st = super::cuda_roots::CudaIter::new(dev, &su, &x)?;
            if prof {
                eprintln!(
                    "roots profile: device state (uploads) {:.3} ms",
                    (std::time::Instant::now() - t1).as_secs_f64() * 1e3
                );
            }
            if super::cuda_roots::chained() {
                st.run_chained(order, max_iter, progress)?
            } else {
                run(&mut st, su.n, order, max_iter, progress)?
            }
        }
        _ => {
            let cw = 2 * su.w();
            let mut st = CpuIter {
                su: &su,
                x,
                t: vec![0; su.n * cw],
                pd: vec![0; su.n * 2 * cw],
                flags: vec![0; su.n],
            };
            run(&mut st, su.n, order, max_iter, progress)?
        }
    };
    let t2 = std::time::Instant::now();
    let roots = unpack_complex(&packed, prec)?.into_engine(&eng)?;
    let t2b = std::time::Instant::now();
    let residual_bound = certify_packed(&su, &packed, &eng)?;
    if prof {
        eprintln!(
            "roots profile: Setup::new {:.3} ms, packing x0 {:.3} ms, roots to the engine {:.3} ms, bounds {:.3} ms",
            (ts - t0).as_secs_f64() * 1e3,
            (t1 - ts).as_secs_f64() * 1e3,
            (t2b - t2).as_secs_f64() * 1e3,
            t2b.elapsed().as_secs_f64() * 1e3
        );
        // Timing aid: each phase ends with a download, so the engine is
        // synchronised at every boundary.
        let ms = |a: std::time::Instant, b: std::time::Instant| (b - a).as_secs_f64() * 1e3;
        let t3 = std::time::Instant::now();
        eprintln!(
            "roots profile: setup {:.3} ms, {} steps {:.3} ms ({:.3} ms a step), roots and bounds {:.3} ms",
            ms(t0, t1),
            iterations + 1,
            ms(t1, t2),
            ms(t1, t2) / (iterations + 1) as f64,
            ms(t2, t3)
        );
    }
    Ok(FusedRoots {
        roots,
        converged,
        iterations,
        residual_bound,
    })
}

/// The stopping logic of the iteration (the same on every engine): a root
/// has converged when isolated and either at noise or its previous
/// correction was small; when all have, one more (polishing) step is made.
fn run(
    st: &mut dyn Stepper,
    n: usize,
    order: usize,
    max_iter: usize,
    progress: &mut dyn FnMut(usize, usize),
) -> Result<(Vec<u64>, Vec<bool>, usize)> {
    let mut step_ok = vec![false; n];
    let mut it = 0;
    let mut conv;
    loop {
        let f = st.step(order)?;
        conv = f
            .iter()
            .zip(&step_ok)
            .map(|(&f, &ok)| f & F_ISO != 0 && (f & F_NOISE != 0 || ok))
            .collect::<Vec<_>>();
        let done = conv.iter().all(|&c| c);
        if it == max_iter {
            break;
        }
        step_ok = f.iter().map(|&f| f & F_SMALL != 0).collect();
        st.commit();
        it += 1;
        progress(it, conv.iter().filter(|&&c| c).count());
        if done {
            break;
        }
    }
    Ok((st.roots()?, conv, it))
}

/// The fused STS-Padé iteration (a child module: it uses the packed
/// scalars, `Setup` and `run` above).
#[path = "polyroots_sts.rs"]
pub mod sts;
