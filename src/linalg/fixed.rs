//! The CPU engine's fast path for the BLAS reductions (`dot`, `gemv`,
//! `gemm`, `syrk`, `herk`, real and complex): per-vector fixed point with a
//! rigorous error bound, rounded by an interval test, and the exact core
//! ([`Terms`](super::exact::Terms)) for the elements it cannot decide. The
//! results are the exact core's bit for bit, ternary values included.
//!
//! # Fixed point
//!
//! Every output element is a dot product `sum_k a_k b_k` of a row of
//! `op(A)` and a column of `op(B)` (length `K`; a complex product is two
//! real ones of length `2K`, see below). With `F = 64 NF` bits, let `ea` be
//! the largest MPFR exponent of the row's nonzero entries (`|a_k| < 2^ea`)
//! and `eb` the column's. Each entry becomes the integer `a'_k =
//! trunc(|a_k| 2^(F-ea)) < 2^F` (`NF` limbs) with its sign, computed once
//! per matrix ([`Panel`]). Then `|a_k| 2^(F-ea) = a'_k + da` with `0 <= da
//! < 1` (0 when the truncation is exact), so in units `2^(ea+eb-2F)`
//!
//! `|a_k b_k| - a'_k b'_k = a'_k db + b'_k da + da db < a' + b' + 1 <=
//! 2^(F+1)`.
//!
//! # Short product
//!
//! `a'_k b'_k` is formed from the limb products `a_s b_t 2^(64(s+t))` with
//! `s + t >= T = NF - 1` only; the dropped ones sum to less than `sum_{d<T}
//! T 2^(128+64d) < (T+1) 2^(64(T+1)) = NF 2^F` (at most `T` pairs per level,
//! each below `2^128`). So each term's computed magnitude lies below the
//! exact one by less than `(NF+2) 2^F`, and a term has no error at all when
//! both truncations are exact and no dropped limb product is nonzero (the
//! lowest nonzero limbs `la`, `lb` satisfy `la + lb >= T`): such a term is
//! exact. The kept products are summed per column (`c = s + t`) in 192-bit
//! accumulators (`K NF < 2^64` products below `2^128` each), positive and
//! negative terms apart, and combined into `S`, an integer in units `2^(64T
//! + ea + eb - 2F)`, with
//!
//! `|sum_k a_k b_k - S| < cnt (NF+2) 2^64` (same units),
//!
//! `cnt` the number of terms that are not exact (0: `S` is the exact sum).
//! Every step is exact integer arithmetic, so a split of `K` over threads
//! adds the partial accumulators exactly: the same `S` for every split.
//!
//! # Epilogue
//!
//! The output `alpha*sum + beta*c` is a short list of pieces `v_j 2^(x_j)`
//! with error bounds `r_j 2^(x_j)`: `alpha*S` (the integer product of
//! alpha's mantissa with `S`, error `alpha_m cnt (NF+2) 2^64`; a complex
//! alpha gives `alpha_re S_re - alpha_im S_im` and so on) and `beta*c`
//! (exact mantissa products). They are added exactly in one window (a piece
//! entirely below the window, more than `2p + 8192` bits under the top,
//! only adds one unit to the bound). With `W` the total and `R` the total
//! bound, the exact value lies in the open interval `(W - R, W + R)`:
//! `R = 0` rounds `W` once ([`round_int`]); otherwise [`round_interval`]
//! rounds it when both ends round alike (MPFR's exponent range applied as
//! the exact core does). Anything else goes to the exact core: a zero `W`
//! (the sign of a zero sum needs the terms), an interval that straddles a
//! rounding boundary (cancellation, ties), and every element whose row,
//! column, scalars or `c` hold a NaN or an infinity. Since both paths give
//! the correctly rounded value of the same exact sum, the bits agree.
//!
//! # Precision and cost
//!
//! `NF = ceil((p + bits(K) + 24) / 64)` for an output of `p` bits: at least
//! 17 guard bits above the bound's `bits(K (NF+2))`, so an element is
//! decided unless the sum cancels (or its row and column maxima meet far
//! apart) by more than the guard. The kernel costs `NF (NF+1) / 2` 64x64-bit
//! multiplies per multiply-accumulate (45 at 512 bits: `NF = 9`), each
//! followed by a 192-bit accumulate; products and sums never allocate.
//!
//! # Kernels
//!
//! Where the CPU has AVX-512 IFMA (detected at run time), matrix products
//! with at least 4 output columns use the kernel of src/linalg/ifma.rs
//! instead: 52-bit limbs in offset form, 8 output columns per tile, the
//! same kind of `(S, err, unit)` and the same epilogue; the module docs
//! there give its bound. Everything else runs the portable kernel below.
//!
//! # Complex
//!
//! With `a = ar + i sa ai`, `b = br + i sb bi` (`sa`, `sb` = -1 for a
//! conjugated operand), `Re(ab) = ar br - sa sb ai bi` and `Im(ab) = sb ar
//! bi + sa ai br`: the row `[ar, ai]` (length `2K`) times the columns `[br;
//! -sa sb bi]` and `[sb bi; sa br]`, the same scales for both.

use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};

use malachite_base::num::arithmetic::traits::UnsignedAbs;
use malachite_base::num::basic::traits::Zero;
use malachite_base::num::logic::traits::SignificantBits;
use malachite_nz::integer::Integer;
use malachite_nz::natural::Natural;
use rayon::prelude::*;

use super::ifma::{self, Panel52};
use crate::error::Result;
use crate::float::func::{Interval, round_interval};
use crate::float::round::{Out, Round};
use crate::float::{Class, CpuFloats, Elem, check_prec, round_int};

static DISABLED: AtomicBool = AtomicBool::new(false);
static FAST: AtomicU64 = AtomicU64::new(0);
static EXACT: AtomicU64 = AtomicU64::new(0);

/// Turns the fast path on or off for the whole process (tests compare it
/// with the exact core).
#[doc(hidden)]
pub fn set_enabled(on: bool) {
    DISABLED.store(!on, Ordering::SeqCst);
}

/// Whether the fast path is on.
pub(crate) fn enabled() -> bool {
    !DISABLED.load(Ordering::Relaxed)
}

/// Turns the AVX-512 IFMA kernel off (false: the portable kernel runs) or
/// back on where the CPU has it (tests run both).
#[doc(hidden)]
pub fn set_ifma(on: bool) {
    ifma::set_off(!on);
}

/// Whether this CPU has the AVX-512 IFMA kernel, and the tiles it has
/// computed since the process started (tests check it runs).
#[doc(hidden)]
pub fn ifma_state() -> (bool, u64) {
    (ifma::supported(), ifma::tiles())
}

/// The kernel the fast path's matrix products use on this CPU (bench
/// reports).
#[doc(hidden)]
pub fn kernel_name() -> &'static str {
    if ifma::limbs_for(512, 1024).is_some() {
        "AVX-512 IFMA (52-bit limbs, 8 columns per tile)"
    } else {
        "portable (64-bit limbs)"
    }
}

/// Output parts decided by the fast path and parts computed by the exact
/// core since the process started (tests check the fast path runs).
#[doc(hidden)]
pub fn counters() -> (u64, u64) {
    (FAST.load(Ordering::SeqCst), EXACT.load(Ordering::SeqCst))
}

/// Code bits of a panel entry: an exact zero input, an inexact truncation,
/// a negative sign; the low bits hold the lowest nonzero limb's index.
const ZERO: u16 = 0x8000;
const INEX: u16 = 0x4000;
const NEG: u16 = 0x2000;
const LOW: u16 = 0x1fff;

/// The largest `NF` the fast path takes (larger precisions use the exact
/// core).
const MAX_NF: usize = 1024;

/// Terms per block of the kernel (the block's limbs stay in L1).
const BLOCK: usize = 64;

/// Limbs `NF` for an output of `p` bits and dot products of `len` terms,
/// or None when the fast path does not apply.
pub(crate) fn limbs_for(p: u64, len: usize) -> Option<usize> {
    if !enabled() {
        return None;
    }
    let bits = 64 - (len as u64).leading_zeros() as u64;
    let nf = (p + bits + 24).div_ceil(64) as usize;
    (nf <= MAX_NF).then_some(nf)
}

/// Vectors of `len` entries in fixed point (see the [module docs](self)).
pub(crate) struct Panel {
    nf: usize,
    len: usize,
    /// Entry `k` of vector `v`: `limbs[(v len + k) nf..][..nf]`.
    limbs: Vec<u64>,
    codes: Vec<u16>,
    /// Per vector: the largest exponent of its nonzero entries (0 without).
    scale: Vec<i64>,
    /// Per vector: whether it holds a NaN or an infinity.
    special: Vec<bool>,
}

/// `dst = trunc(m 2^-sh)` (`sh < 0` shifts left; the result fits `dst`);
/// returns whether no nonzero bit was dropped.
pub(crate) fn place(dst: &mut [u64], m: &[u64], sh: i64) -> bool {
    dst.fill(0);
    if sh >= 0 {
        let (q, r) = ((sh / 64) as usize, (sh % 64) as u32);
        if q >= m.len() {
            return false;
        }
        let exact = m[..q].iter().all(|&x| x == 0) && (r == 0 || m[q] & ((1u64 << r) - 1) == 0);
        for (i, d) in dst.iter_mut().enumerate() {
            let s = i + q;
            if s >= m.len() {
                break;
            }
            let lo = m[s];
            let hi = m.get(s + 1).copied().unwrap_or(0);
            *d = if r == 0 {
                lo
            } else {
                (lo >> r) | (hi << (64 - r))
            };
        }
        exact
    } else {
        let sl = (-sh) as u64;
        let (q, r) = ((sl / 64) as usize, (sl % 64) as u32);
        for (i, &x) in m.iter().enumerate() {
            if let Some(d) = dst.get_mut(i + q) {
                *d |= x << r;
            }
            if r > 0
                && let Some(d) = dst.get_mut(i + q + 1)
            {
                *d |= x >> (64 - r);
            }
        }
        true
    }
}

impl Panel {
    /// `vectors` vectors of `len` entries, entry `k` of vector `v` being
    /// `get(v, k)` = (the float, whether to negate it), at `nf` limbs.
    pub fn build<'a, G>(vectors: usize, len: usize, nf: usize, get: G) -> Panel
    where
        G: Fn(usize, usize) -> (Elem<'a>, bool) + Sync,
    {
        let mut limbs = vec![0u64; vectors * len * nf];
        let mut codes = vec![0u16; vectors * len];
        let f = 64 * nf as i64;
        // Per vector: the largest exponent of a normal entry, and whether
        // it holds a NaN or an infinity (entries in parallel too: a dot
        // product is one long vector).
        let (scale, special): (Vec<i64>, Vec<bool>) = (0..vectors)
            .into_par_iter()
            .map(|v| {
                let (e, sp) = (0..len)
                    .into_par_iter()
                    .map(|k| {
                        let (x, _) = get(v, k);
                        match x.class {
                            Class::Normal => (Some(x.exp), false),
                            Class::NaN | Class::Inf => (None, true),
                            Class::Zero => (None, false),
                        }
                    })
                    .reduce(|| (None, false), |(a, s), (b, t)| (a.max(b), s || t));
                (e.unwrap_or(0), sp)
            })
            .unzip();
        limbs
            .par_chunks_mut(nf)
            .zip(codes.par_iter_mut())
            .enumerate()
            .for_each(|(idx, (dst, code))| {
                let (v, k) = (idx / len, idx % len);
                let (x, flip) = get(v, k);
                if x.class != Class::Normal {
                    *code = ZERO;
                    return;
                }
                let sh = 64 * x.limbs.len() as i64 + (scale[v] - x.exp) - f;
                let exact = place(dst, x.limbs, sh);
                let low = dst.iter().position(|&y| y != 0).unwrap_or(nf) as u16;
                *code = low | if exact { 0 } else { INEX } | if x.neg != flip { NEG } else { 0 };
            });
        Panel {
            nf,
            len,
            limbs,
            codes,
            scale,
            special,
        }
    }

    fn vec_limbs(&self, v: usize) -> &[u64] {
        &self.limbs[v * self.len * self.nf..(v + 1) * self.len * self.nf]
    }

    fn vec_codes(&self, v: usize) -> &[u16] {
        &self.codes[v * self.len..(v + 1) * self.len]
    }
}

/// The exact column sums of one dot product: positive and negative terms
/// per column `T + c`, 192 bits each, and the count of inexact terms.
#[derive(Clone)]
struct Acc {
    pos: Vec<[u64; 3]>,
    neg: Vec<[u64; 3]>,
    cnt: u64,
}

fn add3(x: &mut [u64; 3], lo: u128, hi: u64) {
    let (a, c) = ((x[0] as u128) | ((x[1] as u128) << 64)).overflowing_add(lo);
    x[0] = a as u64;
    x[1] = (a >> 64) as u64;
    x[2] = x[2].wrapping_add(hi).wrapping_add(c as u64);
}

impl Acc {
    fn new(nf: usize) -> Acc {
        Acc {
            pos: vec![[0; 3]; nf],
            neg: vec![[0; 3]; nf],
            cnt: 0,
        }
    }

    fn merge(mut self, o: Acc) -> Acc {
        for (x, y) in self.pos.iter_mut().zip(&o.pos) {
            add3(x, (y[0] as u128) | ((y[1] as u128) << 64), y[2]);
        }
        for (x, y) in self.neg.iter_mut().zip(&o.neg) {
            add3(x, (y[0] as u128) | ((y[1] as u128) << 64), y[2]);
        }
        self.cnt += o.cnt;
        self
    }

    /// `S = sum_c (pos_c - neg_c) 2^(64c)`.
    fn value(&self) -> Integer {
        let nf = self.pos.len();
        let mut buf = vec![0u64; nf + 3];
        for c in 0..nf {
            let (mut cp, mut cn) = (false, false);
            for w in 0..nf + 3 - c {
                let (p, n) = (
                    self.pos[c].get(w).copied().unwrap_or(0),
                    self.neg[c].get(w).copied().unwrap_or(0),
                );
                if w >= 3 && !cp && !cn {
                    break;
                }
                let (v, c1) = buf[c + w].overflowing_add(p);
                let (v, c2) = v.overflowing_add(cp as u64);
                let (v, b1) = v.overflowing_sub(n);
                let (v, b2) = v.overflowing_sub(cn as u64);
                buf[c + w] = v;
                cp = c1 || c2;
                cn = b1 || b2;
            }
        }
        Integer::from_twos_complement_limbs_asc(&buf)
    }
}

/// Reusable lists of a block's positive and negative terms, an
/// accumulator, and the IFMA kernel's cached tiles.
pub(crate) struct Scratch {
    pos: [u32; BLOCK],
    neg: [u32; BLOCK],
    acc: Option<Acc>,
    pub(crate) tiles: Vec<ifma::Tile>,
    pub(crate) words: Vec<u64>,
}

impl Default for Scratch {
    fn default() -> Scratch {
        Scratch {
            pos: [0; BLOCK],
            neg: [0; BLOCK],
            acc: None,
            tiles: Vec::new(),
            words: Vec::new(),
        }
    }
}

/// The sum over the terms `list` (indices in `a` and `b`, `NF` limbs
/// each; `NF = 0`: `nf` at run time) of the limb products of column `T +
/// c` (`C` < 64: `c = C` at compile time, so the loops unroll): (low 128
/// bits, high 64 bits).
#[inline(always)]
fn column<const NF: usize, const C: usize>(
    a: &[u64],
    b: &[u64],
    list: &[u32],
    nf: usize,
    c: usize,
) -> (u128, u64) {
    let nf = if NF > 0 { NF } else { nf };
    let c = if C < 64 { C } else { c };
    // Low and high words summed apart: no carry flag leaves the loop.
    let mut lo: u128 = 0;
    let mut hi: u128 = 0;
    for &k in list {
        let k = k as usize * nf;
        let pa = &a[k + c..k + nf];
        let pb = &b[k + c..k + nf];
        for (x, y) in pa.iter().zip(pb.iter().rev()) {
            let p = (*x as u128) * (*y as u128);
            lo += p as u64 as u128;
            hi += p >> 64;
        }
    }
    let (v, o) = lo.overflowing_add(hi << 64);
    (v, (hi >> 64) as u64 + o as u64)
}

/// Adds to `acc` the terms `ks` of the dot product of the vectors with
/// limbs and codes `(al, ac)` and `(bl, bc)` (`NF` limbs per entry; `NF =
/// 0`: `nf` at run time).
#[inline(always)]
fn accumulate_n<const NF: usize>(
    (al, ac): (&[u64], &[u16]),
    (bl, bc): (&[u64], &[u16]),
    nf: usize,
    ks: std::ops::Range<usize>,
    sc: &mut Scratch,
    acc: &mut Acc,
) {
    let nf = if NF > 0 { NF } else { nf };
    let t = (nf - 1) as u16;
    let mut k0 = ks.start;
    while k0 < ks.end {
        let k1 = (k0 + BLOCK).min(ks.end);
        // Branch-free lists of the nonzero terms by sign.
        let (mut np, mut nn) = (0usize, 0usize);
        let mut cnt = 0u64;
        for (k, (&x, &y)) in ac[k0..k1].iter().zip(&bc[k0..k1]).enumerate() {
            let live = (x | y) & ZERO == 0;
            let inexact = (x | y) & INEX != 0 || (x & LOW) + (y & LOW) < t;
            cnt += (live && inexact) as u64;
            let neg = (x ^ y) & NEG != 0;
            sc.pos[np] = k as u32;
            sc.neg[nn] = k as u32;
            np += (live && !neg) as usize;
            nn += (live && neg) as usize;
        }
        acc.cnt += cnt;
        let (ab, bb) = (&al[k0 * nf..k1 * nf], &bl[k0 * nf..k1 * nf]);
        let (pl, nl) = (&sc.pos[..np], &sc.neg[..nn]);
        for c in 0..nf {
            macro_rules! col {
                ($l:expr) => {
                    if NF > 0 && NF <= 16 {
                        match c {
                            0 => column::<NF, 0>(ab, bb, $l, nf, c),
                            1 => column::<NF, 1>(ab, bb, $l, nf, c),
                            2 => column::<NF, 2>(ab, bb, $l, nf, c),
                            3 => column::<NF, 3>(ab, bb, $l, nf, c),
                            4 => column::<NF, 4>(ab, bb, $l, nf, c),
                            5 => column::<NF, 5>(ab, bb, $l, nf, c),
                            6 => column::<NF, 6>(ab, bb, $l, nf, c),
                            7 => column::<NF, 7>(ab, bb, $l, nf, c),
                            8 => column::<NF, 8>(ab, bb, $l, nf, c),
                            9 => column::<NF, 9>(ab, bb, $l, nf, c),
                            10 => column::<NF, 10>(ab, bb, $l, nf, c),
                            11 => column::<NF, 11>(ab, bb, $l, nf, c),
                            12 => column::<NF, 12>(ab, bb, $l, nf, c),
                            13 => column::<NF, 13>(ab, bb, $l, nf, c),
                            14 => column::<NF, 14>(ab, bb, $l, nf, c),
                            _ => column::<NF, 15>(ab, bb, $l, nf, c),
                        }
                    } else {
                        column::<NF, 64>(ab, bb, $l, nf, c)
                    }
                };
            }
            if np > 0 {
                let (lo, hi) = col!(pl);
                add3(&mut acc.pos[c], lo, hi);
            }
            if nn > 0 {
                let (lo, hi) = col!(nl);
                add3(&mut acc.neg[c], lo, hi);
            }
        }
        k0 = k1;
    }
}

/// Adds to `acc` the terms `ks` of the dot product of vector `i` of `a`
/// and vector `j` of `b`.
fn accumulate(
    a: &Panel,
    i: usize,
    b: &Panel,
    j: usize,
    ks: std::ops::Range<usize>,
    sc: &mut Scratch,
    acc: &mut Acc,
) {
    let x = (a.vec_limbs(i), a.vec_codes(i));
    let y = (b.vec_limbs(j), b.vec_codes(j));
    macro_rules! fixed_nf {
        ($($n:literal)*) => {
            match a.nf {
                $($n => accumulate_n::<$n>(x, y, $n, ks, sc, acc),)*
                nf => accumulate_n::<0>(x, y, nf, ks, sc, acc),
            }
        };
    }
    fixed_nf!(1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19 20 21 22 23 24 25 26 27 28 29 30 31 32 33);
}

/// The dot product of vector `i` of `a` and vector `j` of `b` as `(S,
/// bound, unit)`: the exact sum lies strictly within `bound 2^unit` of `S
/// 2^unit` (bound 0: exact). `split` spreads the terms over the threads.
fn dot(a: &Panel, i: usize, b: &Panel, j: usize, split: usize, sc: &mut Scratch) -> Approx {
    let nf = a.nf;
    let len = a.len;
    let acc = if split <= 1 || len < 2 * BLOCK {
        // The caller's accumulator, cleared (no allocation per element).
        let mut acc = sc
            .acc
            .take()
            .filter(|x| x.pos.len() == nf)
            .unwrap_or_else(|| Acc::new(nf));
        acc.pos.fill([0; 3]);
        acc.neg.fill([0; 3]);
        acc.cnt = 0;
        accumulate(a, i, b, j, 0..len, sc, &mut acc);
        acc
    } else {
        let step = len.div_ceil(split).div_ceil(BLOCK) * BLOCK;
        (0..len.div_ceil(step))
            .into_par_iter()
            .map(|r| {
                let mut acc = Acc::new(nf);
                let mut sc = Scratch::default();
                accumulate(
                    a,
                    i,
                    b,
                    j,
                    r * step..((r + 1) * step).min(len),
                    &mut sc,
                    &mut acc,
                );
                acc
            })
            .reduce(|| Acc::new(nf), Acc::merge)
    };
    let f = 64 * nf as i64;
    let r = Approx {
        s: acc.value(),
        err: (Natural::from(acc.cnt) * Natural::from(nf as u64 + 2)) << 64u64,
        unit: 64 * (nf as i64 - 1) + a.scale[i] + b.scale[j] - 2 * f,
    };
    sc.acc = Some(acc);
    r
}

/// A value `s 2^unit` with an error below `err 2^unit`.
pub(crate) struct Approx {
    pub(crate) s: Integer,
    pub(crate) err: Natural,
    pub(crate) unit: i64,
}

/// One piece of an output: `v 2^x` with an error below `r 2^x`.
pub(crate) struct Piece {
    v: Integer,
    r: Natural,
    x: i64,
}

/// The mantissa of a normal float as an integer, and its unit's exponent.
fn mant(e: &Elem) -> (Natural, i64) {
    (
        Natural::from_limbs_asc(e.limbs),
        e.exp - 64 * e.limbs.len() as i64,
    )
}

/// `(-1)^neg f * d` as a piece (none when `f` is zero).
fn scaled(out: &mut Vec<Piece>, f: &Elem, neg: bool, d: &Approx) {
    if f.class != Class::Normal {
        return;
    }
    let (m, x) = mant(f);
    let r = if d.err == 0u32 {
        Natural::ZERO
    } else {
        &m * &d.err
    };
    let mut v = Integer::from(m) * &d.s;
    if f.neg != neg {
        v = -v;
    }
    out.push(Piece {
        v,
        r,
        x: d.unit + x,
    });
}

/// The exact product `(-1)^neg f g` as a piece (none when one is zero).
fn product(out: &mut Vec<Piece>, f: &Elem, g: &Elem, neg: bool) {
    if f.class != Class::Normal || g.class != Class::Normal {
        return;
    }
    let ((m, x), (n, y)) = (mant(f), mant(g));
    let v = Integer::from(m * n);
    out.push(Piece {
        v: if f.neg ^ g.neg ^ neg { -v } else { v },
        r: Natural::ZERO,
        x: x + y,
    });
}

/// Rounds the sum of `pieces` to `p` bits in mode `rnd` when the error
/// bounds decide it (see the [module docs](self)): the ternary value, or
/// None (nothing decided; `out` may have been written).
fn round_pieces(pieces: &mut [Piece], out: &mut Out, p: u64, rnd: Round) -> Option<i8> {
    // |v| + r < 2^(top - x).
    let top = |pc: &Piece| pc.x + 1 + pc.v.significant_bits().max(pc.r.significant_bits()) as i64;
    let h = pieces.iter().map(top).max()?;
    let floor = h - (2 * p as i64 + 8192);
    let mut tiny = false;
    let mut low = i64::MAX;
    for pc in pieces.iter() {
        if top(pc) <= floor {
            tiny = true;
        } else if pc.x < floor {
            return None;
        } else {
            low = low.min(pc.x);
        }
    }
    if tiny {
        low = floor;
    }
    let (w, r) = if let [pc] = pieces
        && !tiny
    {
        // One piece (no beta*c): taken as it is.
        (
            std::mem::replace(&mut pc.v, Integer::ZERO),
            std::mem::replace(&mut pc.r, Natural::ZERO),
        )
    } else {
        let mut w = Integer::ZERO;
        let mut r = Natural::from(tiny as u32);
        for pc in pieces.iter() {
            if top(pc) > floor || !tiny {
                let sh = (pc.x - low) as u64;
                w += &pc.v << sh;
                r += &pc.r << sh;
            }
        }
        (w, r)
    };
    if r == 0u32 {
        if w == 0u32 {
            return None;
        }
        let neg = w < 0u32;
        let mut mag = w.unsigned_abs().to_limbs_asc();
        return Some(round_int(out, neg, &mut mag, low, false, p, rnd));
    }
    let r = Integer::from(r);
    let iv = Interval {
        lo: &w - &r,
        hi: w + r,
        s: low,
    };
    round_interval(out, &iv, p, rnd)
}

/// Output parts of one element: `P` outputs (the real and imaginary
/// parts) being written.
struct Parts<'a> {
    n: usize,
    tags: &'a mut [u8],
    exps: &'a mut [i64],
    limbs: &'a mut [u64],
    tern: &'a mut [i8],
}

impl Parts<'_> {
    fn out(&mut self, i: usize) -> (Out<'_>, &mut i8) {
        (
            Out {
                tag: &mut self.tags[i],
                exp: &mut self.exps[i],
                m: &mut self.limbs[i * self.n..(i + 1) * self.n],
            },
            &mut self.tern[i],
        )
    }
}

/// A host output part under construction.
struct Host {
    prec: u64,
    n: usize,
    tags: Vec<u8>,
    exps: Vec<i64>,
    limbs: Vec<u64>,
    tern: Vec<i8>,
}

impl Host {
    fn new(len: usize, prec: u64) -> Result<Host> {
        let n = check_prec(prec)?;
        Ok(Host {
            prec,
            n,
            tags: vec![0; len],
            exps: vec![0; len],
            limbs: vec![0; len * n],
            tern: vec![0; len],
        })
    }

    /// Consecutive ranges of `lens` elements (summing to all of them).
    fn chunks(&mut self, lens: &[usize]) -> Vec<Parts<'_>> {
        let n = self.n;
        let (mut tags, mut exps, mut limbs, mut tern) = (
            &mut self.tags[..],
            &mut self.exps[..],
            &mut self.limbs[..],
            &mut self.tern[..],
        );
        let mut out = Vec::with_capacity(lens.len());
        for &l in lens {
            let (t0, t1) = std::mem::take(&mut tags).split_at_mut(l);
            let (e0, e1) = std::mem::take(&mut exps).split_at_mut(l);
            let (l0, l1) = std::mem::take(&mut limbs).split_at_mut(l * n);
            let (r0, r1) = std::mem::take(&mut tern).split_at_mut(l);
            (tags, exps, limbs, tern) = (t1, e1, l1, r1);
            out.push(Parts {
                n,
                tags: t0,
                exps: e0,
                limbs: l0,
                tern: r0,
            });
        }
        out
    }

    fn done(self) -> Result<(CpuFloats, Vec<i8>)> {
        Ok((
            CpuFloats::from_raw(self.prec, self.tags, self.exps, self.limbs)?,
            self.tern,
        ))
    }
}

/// Builds `len` output elements of `P` parts (precisions `precs`, modes
/// `rnds`) in parallel: element `idx` is `(i, j) = (idx / n, idx % n)`;
/// `fast(i, j)` says whether the fast path may compute it (false: the
/// exact core), `dots(i, j, scratch, split)` gives its dot products,
/// `pieces(i, j, &dots, part, &mut list)` lists a part's pieces from them
/// (false: a special value, the exact core), and `exact(part, idx, out)` is
/// the exact core's part.
#[allow(clippy::too_many_arguments)]
pub(crate) fn build<const P: usize, K, D, Q, X>(
    len: usize,
    n: usize,
    precs: [u64; P],
    rnds: [Round; P],
    fast: K,
    dots: D,
    pieces: Q,
    exact: X,
) -> Result<[(CpuFloats, Vec<i8>); P]>
where
    K: Fn(usize, usize) -> bool + Sync,
    D: Fn(usize, usize, &mut Scratch, usize) -> [Option<Approx>; 2] + Sync,
    Q: Fn(usize, usize, &[Option<Approx>; 2], usize, &mut Vec<Piece>) -> bool + Sync,
    X: Fn(usize, usize, &mut Out) -> i8 + Sync,
{
    let mut hosts: Vec<Host> = precs
        .iter()
        .map(|&p| Host::new(len, p))
        .collect::<Result<_>>()?;
    let threads = rayon::current_num_threads();
    // Few elements: spread each dot product's terms instead.
    let split = if len < 2 * threads { threads } else { 1 };
    // Jobs of up to 16 elements of a row (the IFMA kernel's tiles of 8
    // columns never straddle two jobs), taken column block by column
    // block: a thread's consecutive jobs share their columns' panels (16
    // columns of 512-bit entries and K = 256 fit in L2).
    let rows = len / n.max(1);
    let starts: Vec<(usize, usize, usize)> = (0..rows)
        .flat_map(|i| (0..n).step_by(16).map(move |j| (i, j, 16.min(n - j))))
        .collect();
    let lens: Vec<usize> = starts.iter().map(|s| s.2).collect();
    let mut per: Vec<Vec<Parts>> = hosts.iter_mut().map(|h| h.chunks(&lens)).collect();
    let mut jobs: Vec<((usize, usize), Vec<Parts>)> = starts
        .iter()
        .map(|&(i, j, _)| ((i, j), Vec::with_capacity(P)))
        .collect();
    for p in per.iter_mut() {
        for (q, part) in p.drain(..).enumerate() {
            jobs[q].1.push(part);
        }
    }
    jobs.sort_by_key(|&((i, j), _)| (j, i));
    jobs.into_par_iter().for_each(|((i, j0), mut parts)| {
        let mut sc = Scratch::default();
        let mut list = Vec::new();
        let (mut nfast, mut nslow) = (0u64, 0u64);
        let count = parts[0].tags.len();
        for e in 0..count {
            let j = j0 + e;
            let idx = i * n + j;
            let ds = fast(i, j).then(|| dots(i, j, &mut sc, split));
            for (part, pv) in parts.iter_mut().enumerate() {
                let (mut out, t) = pv.out(e);
                let got = ds.as_ref().and_then(|d| {
                    list.clear();
                    if !pieces(i, j, d, part, &mut list) {
                        return None;
                    }
                    round_pieces(&mut list, &mut out, precs[part], rnds[part])
                });
                *t = match got {
                    Some(t) => {
                        nfast += 1;
                        t
                    }
                    None => {
                        nslow += 1;
                        exact(part, idx, &mut out)
                    }
                };
            }
        }
        FAST.fetch_add(nfast, Ordering::Relaxed);
        EXACT.fetch_add(nslow, Ordering::Relaxed);
    });
    drop(per);
    let mut it = hosts.into_iter();
    let mut res = Vec::with_capacity(P);
    for _ in 0..P {
        res.push(it.next().expect("P parts").done()?);
    }
    match res.try_into() {
        Ok(r) => Ok(r),
        Err(_) => unreachable!("P parts"),
    }
}

/// The dot product of panel vectors (see [`dot`]); None when either holds
/// a special value.
pub(crate) fn dot_of(
    a: &Panel,
    i: usize,
    b: &Panel,
    j: usize,
    split: usize,
    sc: &mut Scratch,
) -> Option<Approx> {
    if a.special[i] || b.special[j] {
        return None;
    }
    Some(dot(a, i, b, j, split, sc))
}

/// Limbs of the IFMA kernel for `outputs` dot products of `len` terms in
/// `n` columns at `p` bits, or None for the portable kernel: no CPU
/// support, few outputs (each dot product is split over the threads), or
/// fewer than 4 columns (a tile's 8 lanes would be mostly idle).
fn ifma_limbs(p: u64, len: usize, outputs: usize, n: usize) -> Option<usize> {
    if outputs < 2 * rayon::current_num_threads() || n < 4 {
        return None;
    }
    ifma::limbs_for(p, len)
}

/// The dot product of IFMA panel vectors; None when either holds a
/// special value.
fn ifma_dot(a: &Panel52, i: usize, b: &Panel52, j: usize, sc: &mut Scratch) -> Option<Approx> {
    if a.special[i] || b.special[j] {
        return None;
    }
    Some(ifma::dot(a, i, b, j, sc))
}

/// Whether a scalar or `c` entry is finite.
pub(crate) fn finite(e: &Elem) -> bool {
    matches!(e.class, Class::Normal | Class::Zero)
}

/// Pieces of a real output part: `alpha * d + beta * c`; false when a
/// factor is NaN or infinite (the element goes to the exact core).
pub(crate) fn real_pieces(
    list: &mut Vec<Piece>,
    alpha: &Elem,
    d: &Option<Approx>,
    bc: Option<(&Elem, &Elem)>,
) -> bool {
    let Some(d) = d else { return false };
    if !finite(alpha) {
        return false;
    }
    scaled(list, alpha, false, d);
    if let Some((b, c)) = bc {
        if !finite(b) || !finite(c) {
            return false;
        }
        product(list, b, c, false);
    }
    true
}

/// Pieces of part `im` of `alpha * (dre + i dim) + beta * c` for complex
/// `alpha = (ar, ai)` (`ai` None: real), `beta = (br, bi)` and `c = (cr,
/// ci)`; false when a factor is NaN or infinite.
pub(crate) fn complex_pieces(
    list: &mut Vec<Piece>,
    im: bool,
    alpha: CRef,
    d: &[Option<Approx>; 2],
    bc: Option<(CRef, (&Elem, &Elem))>,
) -> bool {
    let [Some(dr), Some(di)] = d else {
        return false;
    };
    let (ar, ai) = alpha;
    if !finite(ar) || !ai.is_none_or(finite) {
        return false;
    }
    // Re: ar dr - ai di; Im: ar di + ai dr.
    if im {
        scaled(list, ar, false, di);
        if let Some(ai) = ai {
            scaled(list, ai, false, dr);
        }
    } else {
        scaled(list, ar, false, dr);
        if let Some(ai) = ai {
            scaled(list, ai, true, di);
        }
    }
    if let Some(((br, bi), (cr, ci))) = bc {
        if !finite(br) || !bi.is_none_or(finite) || !finite(cr) || !finite(ci) {
            return false;
        }
        if im {
            product(list, br, ci, false);
            if let Some(bi) = bi {
                product(list, bi, cr, false);
            }
        } else {
            product(list, br, cr, false);
            if let Some(bi) = bi {
                product(list, bi, ci, true);
            }
        }
    }
    true
}

/// An `m x n` real output `alpha * op(A) op(B) + beta * C` by the fast
/// path (see [`build`]): `ga(i, k)` is `op(A)(i, k)`, `gb(j, k)` is
/// `op(B)(k, j)` (None: `op(B) = op(A)^T`, syrk), `bc` = `(beta, c(i, j))`,
/// `keep(i, j)` whether the element is computed here (false: the exact
/// core), `exact(idx, out)` the exact core. None when the fast path does
/// not apply (off, or too high a precision).
#[allow(clippy::too_many_arguments)]
pub(crate) fn real<'a, GA, GB, C, KP, X>(
    (m, n, k): (usize, usize, usize),
    ga: GA,
    gb: Option<GB>,
    alpha: Elem<'a>,
    bc: Option<(Elem<'a>, C)>,
    keep: KP,
    (prec, rnd): (u64, Round),
    exact: X,
) -> Option<Result<(CpuFloats, Vec<i8>)>>
where
    GA: Fn(usize, usize) -> Elem<'a> + Sync,
    GB: Fn(usize, usize) -> Elem<'a> + Sync,
    C: Fn(usize, usize) -> Elem<'a> + Sync,
    KP: Fn(usize, usize) -> bool + Sync,
    X: Fn(usize, &mut Out) -> i8 + Sync,
{
    let nf = limbs_for(prec, k)?;
    let pieces = |i, j, d: &[Option<Approx>; 2], _, list: &mut Vec<Piece>| {
        let c = bc.as_ref().map(|(b, c)| (b, c(i, j)));
        real_pieces(list, &alpha, &d[0], c.as_ref().map(|(b, c)| (*b, c)))
    };
    if let Some(nl) = ifma_limbs(prec, k, m * n, n) {
        let pa = Panel52::build(m, k, nl, false, |i, kk| (ga(i, kk), false));
        let pb = match &gb {
            Some(gb) => Panel52::build(n, k, nl, true, |j, kk| (gb(j, kk), false)),
            None => Panel52::build(n, k, nl, true, |j, kk| (ga(j, kk), false)),
        };
        let r = build(
            m * n,
            n,
            [prec],
            [rnd],
            keep,
            |i, j, sc, _| [ifma_dot(&pa, i, &pb, j, sc), None],
            pieces,
            |_, idx, out| exact(idx, out),
        );
        return Some(r.map(|[x]| x));
    }
    let pa = Panel::build(m, k, nf, |i, kk| (ga(i, kk), false));
    let pb = gb.map(|gb| Panel::build(n, k, nf, |j, kk| (gb(j, kk), false)));
    let pb = pb.as_ref().unwrap_or(&pa);
    let r = build(
        m * n,
        n,
        [prec],
        [rnd],
        keep,
        |i, j, sc, split| [dot_of(&pa, i, pb, j, split, sc), None],
        pieces,
        |_, idx, out| exact(idx, out),
    );
    Some(r.map(|[x]| x))
}

/// One output part on the host with its ternary values.
pub(crate) type HostPart = (CpuFloats, Vec<i8>);

/// A complex factor's parts.
pub(crate) type CElem<'a> = (Elem<'a>, Elem<'a>);

/// A complex or real scalar: the real part and the imaginary part (None:
/// a real scalar).
pub(crate) type CScalar<'a> = (Elem<'a>, Option<Elem<'a>>);

/// A [`CScalar`] by reference.
pub(crate) type CRef<'r, 'a> = (&'r Elem<'a>, Option<&'r Elem<'a>>);

/// An `m x n` complex output `alpha * op(A) op(B) + beta * C` by the fast
/// path: `ga(i, k)` the parts of `op(A)(i, k)` before conjugation,
/// conjugated when `ca`; `gb(j, k)` those of `op(B)(k, j)`, conjugated
/// when `cb`; alpha and beta complex or real (second part None); `bc` =
/// `(beta, c(i, j))`; `keep` and `exact(part, idx, out)` as in [`real`].
#[allow(clippy::too_many_arguments)]
pub(crate) fn complex<'a, GA, GB, C, KP, X>(
    (m, n, k): (usize, usize, usize),
    (ga, ca): (GA, bool),
    (gb, cb): (GB, bool),
    alpha: CScalar<'a>,
    bc: Option<(CScalar<'a>, C)>,
    keep: KP,
    (precs, rnds): ([u64; 2], [Round; 2]),
    exact: X,
) -> Option<Result<[HostPart; 2]>>
where
    GA: Fn(usize, usize) -> CElem<'a> + Sync,
    GB: Fn(usize, usize) -> CElem<'a> + Sync,
    C: Fn(usize, usize) -> CElem<'a> + Sync,
    KP: Fn(usize, usize) -> bool + Sync,
    X: Fn(usize, usize, &mut Out) -> i8 + Sync,
{
    let prec = precs[0].max(precs[1]);
    let nf = limbs_for(prec, 2 * k)?;
    // Row [ar, ai]; columns [br; -sa sb bi] and [sb bi; sa br].
    let fa = |i, kk| {
        let (r, im) = ga(i, kk % k);
        (if kk < k { r } else { im }, false)
    };
    let fre = |j, kk| {
        let (r, im) = gb(j, kk % k);
        if kk < k { (r, false) } else { (im, ca == cb) }
    };
    let fim = |j, kk| {
        let (r, im) = gb(j, kk % k);
        if kk < k { (im, cb) } else { (r, ca) }
    };
    let pieces = |i, j, d: &[Option<Approx>; 2], part, list: &mut Vec<Piece>| {
        let c = bc.as_ref().map(|(b, c)| (*b, c(i, j)));
        complex_pieces(
            list,
            part == 1,
            (&alpha.0, alpha.1.as_ref()),
            d,
            c.as_ref()
                .map(|((br, bi), (cr, ci))| ((br, bi.as_ref()), (cr, ci))),
        )
    };
    if let Some(nl) = ifma_limbs(prec, 2 * k, m * n, n) {
        let pa = Panel52::build(m, 2 * k, nl, false, fa);
        let pre = Panel52::build(n, 2 * k, nl, true, fre);
        let pim = Panel52::build(n, 2 * k, nl, true, fim);
        let r = build(
            m * n,
            n,
            precs,
            rnds,
            keep,
            |i, j, sc, _| [ifma_dot(&pa, i, &pre, j, sc), ifma_dot(&pa, i, &pim, j, sc)],
            pieces,
            exact,
        );
        return Some(r);
    }
    let pa = Panel::build(m, 2 * k, nf, fa);
    let pre = Panel::build(n, 2 * k, nf, fre);
    let pim = Panel::build(n, 2 * k, nf, fim);
    let r = build(
        m * n,
        n,
        precs,
        rnds,
        keep,
        |i, j, sc, split| {
            [
                dot_of(&pa, i, &pre, j, split, sc),
                dot_of(&pa, i, &pim, j, split, sc),
            ]
        },
        pieces,
        exact,
    );
    Some(r)
}

/// The float 1 (an alpha for plain dot products).
pub(crate) fn one() -> Elem<'static> {
    static M: [u64; 1] = [1 << 63];
    Elem {
        class: Class::Normal,
        neg: false,
        exp: 1,
        limbs: &M,
    }
}

/// The parts of element `i` of a complex array.
pub(crate) fn cget(z: &crate::complex::CpuComplex, i: usize) -> CElem<'_> {
    (z.re().get(i), z.im().get(i))
}
