//! The fused Sakurai-Torii-Sugiura Padé iteration (Taylor order `m`,
//! formal order `2m + 1`): every step of every root as one fixed sequence
//! of correctly rounded scalar operations, the same on the CPU engine's
//! threads and on CUDA (one block per root, `roots_sts_a` and
//! `roots_sts_b` at the end of `src/kernels/roots.cu`, driven by
//! [`super::super::cuda_sts`]). A child of [`super`]: it uses the Aberth
//! iteration's packed scalars (`Ar`), `Setup`, stopping logic (`run`) and
//! residual bound unchanged.
//!
//! The sequence of one step (all to nearest at `p` bits unless marked RU;
//! complex products, sums, reciprocals and norms as in [`super`]):
//! - **phase A** (root `k`, `x = x_k`): the powers `X_j`, `R_j` as in
//!   Aberth's phase A; the Taylor coefficients `b_i = tsum_j B^(i)_j X_j`,
//!   `i = 0..m`, where `B^(i)_j = C(j+i, i) a_{j+i}` (`j = 0..n-i`) is the
//!   exact product rounded once (`B^(0) = A`, `B^(1) = D`); the noise scale
//!   and the at-noise flag as Aberth's (with `p = b_0`); then on one
//!   thread `e_0 = 1`, `e_1 = b_0`, `e_l = e_(l-1) b_0`; `beta_1 = b_1`,
//!   `beta_l = b_l e_(l-1)`; `v_0 = 1`, `v_i = -(beta_1 v_(i-1) + beta_2
//!   v_(i-2) + ... + beta_i v_0)` (left to right; `v_i = b_0^(i+1) [t^i]
//!   1/p(x+t)`); and the refined point `y_k = x + (b_0 v_(m-2)) (1/v_(m-1))`
//!   (Householder's step of order m).
//! - **phase B** (after every `y_j` exists): leaves `r = 1/(x_k - y_j)`,
//!   `r^l = r^(l-1) r` (`l = 2..m`), `j != k`; the power sums
//!   `P_l = tsum_j r^l` (one tree over leaves of `m` complex values);
//!   `lambda_l = (-1)^l P_(l+1)`; `u_0 = 1`, `u_(i+1) = (lambda_0 u_i +
//!   lambda_1 u_(i-1) + ... + lambda_i u_0) / (i+1)` (each part divided by
//!   the integer); `Q_i = u_0 v_i + sum_(l=1..i) (u_l e_l) v_(i-l)` for
//!   `i = m-1, m`; the correction `c = (b_0 Q_(m-1)) (1/Q_m)` and `x' = x
//!   + c`. Flags: isolated `16 |b_0 P_1|^2 <= |b_1|^2` and `16 (|P_1|^2
//!   t^2) <= |b_1|^2` with the noise threshold `t = 2^kshift noise` (RU,
//!   from phase A; `t^2` and the products to nearest): no other refined
//!   point within about four noise radii `t/|b_1|` (without it, Wilkinson
//!   20 at 64 bits ended with two approximations in the noise region of
//!   the root 20, both flagged converged, and the root 12 missing); small
//!   `|c|^2 <= tol^2 |x'|^2`.

use super::*;

/// The STS data on top of Aberth's [`Setup`].
pub(crate) struct StsSetup {
    pub su: Setup,
    /// Taylor order m (>= 2).
    pub m: usize,
    /// `B^(0..=m)` concatenated (complex); `B^(i)` has [`StsSetup::cnt`] values.
    pub b: Vec<u64>,
    /// `1`, `tol^2`, then the integers `1..=m` (real).
    pub consts: Vec<u64>,
}

impl StsSetup {
    pub fn new(coeffs: &ComplexArray, p: u64, tol2: &Float, m: usize) -> Result<StsSetup> {
        if m < 2 {
            return Err(Error::Invalid(
                "the STS-Padé order m must be at least 2".into(),
            ));
        }
        let su = Setup::new(coeffs, p, tol2)?;
        let (n, w) = (su.n, su.w());
        let host = coeffs.to_engine(&Engine::Cpu)?;
        let (re, im) = (host.re()?, host.im()?);
        let mut s = Scratch::default();
        let mut b = su.a.clone();
        b.extend_from_slice(&su.d);
        for i in 2..=m.min(n) {
            for j in 0..=n - i {
                let c = binom(j + i, i).ok_or_else(|| {
                    Error::Invalid(format!(
                        "degree {n}: the binomial C({}, {i}) of the STS Taylor coefficients overflows",
                        j + i
                    ))
                })?;
                let c = crate::complex::scalar::from_int(c);
                for arr in [&re, &im] {
                    let e = arr.get(j + i)?;
                    let mut f = vec![0u64; w];
                    put(&mut f, |out| {
                        arith::mul(out, &e, &c.elem(), p, Round::Nearest, &mut s)
                    });
                    b.extend_from_slice(&f);
                }
            }
        }
        let mut consts = su.consts.clone();
        for k in 1..=m as i64 {
            let c = crate::complex::scalar::from_int(k);
            let mut f = vec![0u64; w];
            put(&mut f, |out| {
                arith::set(out, &c.elem(), false, false, p, Round::Nearest)
            });
            consts.extend_from_slice(&f);
        }
        Ok(StsSetup { su, m, b, consts })
    }

    /// The number of values of `B^(i)`.
    pub fn cnt(&self, i: usize) -> usize {
        (self.su.n + 1).saturating_sub(i)
    }

    /// The offset (in complex values) of `B^(i)`.
    pub fn off(&self, i: usize) -> usize {
        (0..i).map(|l| self.cnt(l)).sum()
    }

    /// Complex values stored per root between the phases: `e_0..e_m`,
    /// `v_0..v_m`, `b_1`, and the noise threshold `2^kshift noise` (real
    /// part).
    pub fn st_len(&self) -> usize {
        2 * self.m + 4
    }
}

/// `C(a, b)` if it fits an `i64`.
fn binom(a: usize, b: usize) -> Option<i64> {
    let mut c: i128 = 1;
    for k in 0..b {
        c = c * (a - k) as i128 / (k + 1) as i128;
        if c > i64::MAX as i128 {
            return None;
        }
    }
    Some(c as i64)
}

/// Phase A of root `xi`: `(y, st, at noise)`.
fn phase_a(ar: &mut Ar, ss: &StsSetup, xi: &[u64]) -> (Vec<u64>, Vec<u64>, bool) {
    let su = &ss.su;
    let (n, w, m) = (su.n, su.w(), ss.m);
    let cw = 2 * w;
    let one = &ss.consts[..w];
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
    // Taylor coefficients b_0..b_m.
    let mut bt = vec![0u64; (m + 1) * cw];
    let mut leaves = vec![0u64; (n + 1) * cw];
    for i in 0..=m {
        let (cnt, off) = (ss.cnt(i), ss.off(i));
        for j in 0..cnt {
            ar.cmul(
                &mut leaves[j * cw..(j + 1) * cw],
                &ss.b[(off + j) * cw..(off + j + 1) * cw],
                &xp[j * cw..(j + 1) * cw],
            );
        }
        ar.tsum(&mut leaves, cnt, cw, usize::MAX, Round::Nearest);
        bt[i * cw..(i + 1) * cw].copy_from_slice(&leaves[..cw]);
    }
    // Noise.
    let mut tz = vec![0u64; (n + 1) * w];
    for k in 0..=n {
        ar.mul(
            &mut tz[k * w..(k + 1) * w],
            &su.ab[k * w..(k + 1) * w],
            &rp[k * w..(k + 1) * w],
            Round::Up,
        );
    }
    ar.tsum(&mut tz, n + 1, w, usize::MAX, Round::Up);
    let (mut a1, mut thr) = (vec![0u64; w], vec![0u64; w]);
    ar.add(
        &mut a1,
        &abs_of(&bt[..w]),
        &abs_of(&bt[w..cw]),
        false,
        Round::Up,
    );
    ar.shift(&mut thr, &tz[..w], su.kshift, Round::Up);
    let noise = le(&a1, &thr);
    // The series: st = e_0..e_m, v_0..v_m, b_1.
    let mut st = vec![0u64; ss.st_len() * cw];
    let bi = |i: usize| &bt[i * cw..(i + 1) * cw];
    st[..w].copy_from_slice(one);
    st[cw..2 * cw].copy_from_slice(bi(0));
    for l in 2..=m {
        let (lo, hi) = st.split_at_mut(l * cw);
        ar.cmul(&mut hi[..cw], &lo[(l - 1) * cw..], bi(0));
    }
    let mut beta = vec![0u64; (m + 1) * cw];
    beta[cw..2 * cw].copy_from_slice(bi(1));
    for l in 2..=m {
        ar.cmul(
            &mut beta[l * cw..(l + 1) * cw],
            bi(l),
            &st[(l - 1) * cw..l * cw],
        );
    }
    let vo = (m + 1) * cw;
    st[vo..vo + w].copy_from_slice(one);
    let (mut acc, mut t, mut t2) = (vec![0u64; cw], vec![0u64; cw], vec![0u64; cw]);
    for i in 1..=m {
        ar.cmul(
            &mut acc,
            &beta[cw..2 * cw],
            &st[vo + (i - 1) * cw..vo + i * cw],
        );
        for l in 2..=i {
            ar.cmul(
                &mut t,
                &beta[l * cw..(l + 1) * cw],
                &st[vo + (i - l) * cw..vo + (i - l + 1) * cw],
            );
            ar.cadd(&mut t2, &acc, &t, false);
            std::mem::swap(&mut acc, &mut t2);
        }
        negate(&mut acc[..w]);
        negate(&mut acc[w..]);
        st[vo + i * cw..vo + (i + 1) * cw].copy_from_slice(&acc);
    }
    let so = (2 * m + 2) * cw;
    st[so..so + cw].copy_from_slice(bi(1));
    st[so + cw..so + cw + w].copy_from_slice(&thr);
    // y = x + (b_0 v_(m-2)) (1/v_(m-1)).
    ar.cmul(&mut t, bi(0), &st[vo + (m - 2) * cw..vo + (m - 1) * cw]);
    ar.rec(&mut t2, &st[vo + (m - 1) * cw..vo + m * cw], one);
    ar.cmul(&mut acc, &t, &t2);
    let mut y = vec![0u64; cw];
    ar.cadd(&mut y, xi, &acc, false);
    (y, st, noise)
}

/// Phase B of root `k`: `(x', iso, small)`.
fn phase_b(
    ar: &mut Ar,
    ss: &StsSetup,
    k: usize,
    xk: &[u64],
    y: &[u64],
    st: &[u64],
) -> (Vec<u64>, bool, bool) {
    let su = &ss.su;
    let (n, w, m) = (su.n, su.w(), ss.m);
    let cw = 2 * w;
    let lw = m * cw;
    let one = &ss.consts[..w];
    let tol2 = &ss.consts[w..2 * w];
    let mut leaves = vec![0u64; n.max(1) * lw];
    let mut d = vec![0u64; cw];
    for j in 0..n {
        if j == k {
            continue;
        }
        ar.cadd(&mut d, xk, &y[j * cw..(j + 1) * cw], true);
        let leaf = &mut leaves[j * lw..(j + 1) * lw];
        ar.rec(&mut leaf[..cw], &d, one);
        for l in 1..m {
            let (lo, hi) = leaf.split_at_mut(l * cw);
            ar.cmul(&mut hi[..cw], &lo[(l - 1) * cw..], &lo[..cw]);
        }
    }
    ar.tsum(&mut leaves, n, lw, k, Round::Nearest);
    // lambda_l = (-1)^l P_(l+1).
    let mut lam = leaves[..lw].to_vec();
    for l in (1..m).step_by(2) {
        negate(&mut lam[l * cw..l * cw + w]);
        negate(&mut lam[l * cw + w..(l + 1) * cw]);
    }
    let lm = |l: usize| &lam[l * cw..(l + 1) * cw];
    let mut u = vec![0u64; (m + 1) * cw];
    u[..w].copy_from_slice(one);
    let (mut acc, mut t, mut t2) = (vec![0u64; cw], vec![0u64; cw], vec![0u64; cw]);
    for i in 0..m {
        ar.cmul(&mut acc, lm(0), &u[i * cw..(i + 1) * cw]);
        for l in 1..=i {
            ar.cmul(&mut t, lm(l), &u[(i - l) * cw..(i - l + 1) * cw]);
            ar.cadd(&mut t2, &acc, &t, false);
            std::mem::swap(&mut acc, &mut t2);
        }
        let c = &ss.consts[(2 + i) * w..(3 + i) * w];
        let o = (i + 1) * cw;
        ar.div(&mut u[o..o + w], &acc[..w], c);
        ar.div(&mut u[o + w..o + cw], &acc[w..], c);
    }
    let e = |l: usize| &st[l * cw..(l + 1) * cw];
    let v = |l: usize| &st[(m + 1 + l) * cw..(m + 2 + l) * cw];
    let mut q = |ar: &mut Ar, i: usize| -> Vec<u64> {
        let mut acc = vec![0u64; cw];
        ar.cmul(&mut acc, &u[..cw], v(i));
        for l in 1..=i {
            ar.cmul(&mut t, &u[l * cw..(l + 1) * cw], e(l));
            ar.cmul(&mut t2, &t, v(i - l));
            let mut s2 = vec![0u64; cw];
            ar.cadd(&mut s2, &acc, &t2, false);
            acc = s2;
        }
        acc
    };
    let qm1 = q(ar, m - 1);
    let qm = q(ar, m);
    let (mut c, mut r, mut bq) = (vec![0u64; cw], vec![0u64; cw], vec![0u64; cw]);
    ar.cmul(&mut bq, e(1), &qm1);
    ar.rec(&mut r, &qm, one);
    ar.cmul(&mut c, &bq, &r);
    let mut xn = vec![0u64; cw];
    ar.cadd(&mut xn, xk, &c, false);
    // Flags.
    let (mut a, mut b, mut a16) = (vec![0u64; w], vec![0u64; w], vec![0u64; w]);
    let mut ps = vec![0u64; cw];
    ar.cmul(&mut ps, e(1), &leaves[..cw]);
    ar.norm2(&mut a, &ps);
    ar.shift(&mut a16, &a, 4, Round::Nearest);
    ar.norm2(&mut b, &st[(2 * m + 2) * cw..(2 * m + 3) * cw]);
    let mut iso = le(&a16, &b);
    // ... and with the noise threshold in place of b_0: no other refined
    // point within about four noise radii.
    let thr = &st[(2 * m + 3) * cw..(2 * m + 3) * cw + w];
    let (mut tt, mut z) = (vec![0u64; w], vec![0u64; w]);
    ar.mul(&mut tt, thr, thr, Round::Nearest);
    ar.norm2(&mut a, &leaves[..cw]);
    ar.mul(&mut z, &a, &tt, Round::Nearest);
    ar.shift(&mut a16, &z, 4, Round::Nearest);
    iso &= le(&a16, &b);
    ar.norm2(&mut a, &c);
    ar.norm2(&mut b, &xn);
    ar.mul(&mut a16, &b, tol2, Round::Nearest);
    let small = le(&a, &a16);
    (xn, iso, small)
}

/// The CPU engine's state of the STS iteration.
struct StsCpu<'a> {
    ss: &'a StsSetup,
    x: Vec<u64>,
    xn: Vec<u64>,
}

impl Stepper for StsCpu<'_> {
    fn step(&mut self, _order: usize) -> Result<Vec<u8>> {
        let ss = self.ss;
        let cw = 2 * ss.su.w();
        let a: Vec<(Vec<u64>, Vec<u64>, bool)> = self
            .x
            .par_chunks(cw)
            .map_init(|| Ar::new(ss.su.p), |ar, xi| phase_a(ar, ss, xi))
            .collect();
        let mut y = Vec::with_capacity(self.x.len());
        for (yi, _, _) in &a {
            y.extend_from_slice(yi);
        }
        let x = &self.x;
        let b: Vec<(Vec<u64>, bool, bool)> = (0..ss.su.n)
            .into_par_iter()
            .map_init(
                || Ar::new(ss.su.p),
                |ar, k| phase_b(ar, ss, k, &x[k * cw..(k + 1) * cw], &y, &a[k].1),
            )
            .collect();
        let mut flags = Vec::with_capacity(ss.su.n);
        for (k, (xn, iso, small)) in b.into_iter().enumerate() {
            self.xn[k * cw..(k + 1) * cw].copy_from_slice(&xn);
            let mut f = 0;
            if a[k].2 {
                f |= F_NOISE;
            }
            if iso {
                f |= F_ISO;
            }
            if small {
                f |= F_SMALL;
            }
            flags.push(f);
        }
        Ok(flags)
    }

    fn commit(&mut self) {
        std::mem::swap(&mut self.x, &mut self.xn);
    }

    fn roots(&self) -> Result<Vec<u64>> {
        Ok(self.x.clone())
    }
}

/// All roots of `sum_k coeffs[k] z^k` from the starting values `x0` by the
/// STS-Padé iteration of Taylor order `m` (formal order `2m + 1`), fused
/// per root (see the module docs), on `x0`'s engine; the stopping logic
/// and the residual bounds are the fused Aberth iteration's.
pub fn sts_fused(
    coeffs: &ComplexArray,
    x0: &ComplexArray,
    prec: u64,
    m: usize,
    tol2: &Float,
    max_iter: usize,
    progress: &mut dyn FnMut(usize, usize),
) -> Result<FusedRoots> {
    let ss = StsSetup::new(coeffs, prec, tol2, m)?;
    let su = &ss.su;
    if x0.len() != su.n {
        return Err(Error::Shape(format!(
            "{} starting values for a polynomial of degree {}",
            x0.len(),
            su.n
        )));
    }
    let eng = x0.engine();
    let x = pack_complex(x0, prec)?;
    let (packed, converged, iterations) = match &eng {
        Engine::Cuda(dev) if su.nl <= CUDA_MAX_LIMBS => {
            let mut st = crate::complex::cuda_sts::StsCuda::new(dev, &ss, &x)?;
            run(&mut st, su.n, m, max_iter, progress)?
        }
        _ => {
            let xn = vec![0; x.len()];
            let mut st = StsCpu { ss: &ss, x, xn };
            run(&mut st, su.n, m, max_iter, progress)?
        }
    };
    Ok(FusedRoots {
        roots: unpack_complex(&packed, prec)?.into_engine(&eng)?,
        converged,
        iterations,
        residual_bound: certify_packed(su, &packed, &eng)?,
    })
}
