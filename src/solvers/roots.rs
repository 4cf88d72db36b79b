//! All roots of a polynomial at once: the higher-order Ehrlich-Aberth
//! iteration ([`aberth`]) and a Sakurai-Torii-Sugiura Padé method
//! ([`sts_pade`]), over [`ComplexArray`] coefficients on any engine.
//!
//! Coefficients are in **ascending** order: `coeffs[k]` multiplies `z^k`,
//! and the last one (`a_n`, nonzero) is the leading coefficient; real
//! polynomials are complex arrays with zero imaginary parts. Both parts of
//! every coefficient are used at their own precision (exactly), and every
//! computation runs at the working precision `prec` in both parts.
//!
//! All `n` roots are updated together with whole-array operations on the
//! coefficients' engine: Horner's rule is `n` steps of element-wise complex
//! multiply and add over the `n` approximations (each coefficient broadcast
//! to `n` copies once per solve), and the sums `sum_{j != i} 1/(x_i - t_j)`
//! come from an `n x n` array of differences (two exact outer products with
//! `gemm`, a mask for the diagonal, one element-wise division) reduced by an
//! exactly rounded `gemv` against a vector of ones. Every operation is
//! correctly rounded to nearest in a fixed order, so the roots, flags and
//! bounds are the same bits on every engine.
//!
//! Stopping: a root counts as converged when the other approximations
//! barely pull on it (`|p(x_i) sum_{j != i} 1/(x_i - x_j)| <=
//! |p'(x_i)|/4`, which fails where two approximations crowd one root) and
//! either its computed residual `|p(x_i)|` is at the level of the rounding
//! noise of Horner's rule (`|p(x_i)|_1 <= 2^ceil(log2 2n) 2^-prec sum_k
//! |a_k|_1 |x_i|_1^k`) or its last correction was below `tol |x_i|`. When every root has converged the
//! iteration makes one more (polishing) step with the values already
//! computed and stops; otherwise it stops after `max_iter` steps and the
//! flags say which roots had not converged.
//!
//! The residual bound returned per root is rigorous: Horner's rule is
//! rerun in the working precision together with a running error radius
//! computed with upward rounding (a "ball" evaluation), so the reported
//! value is an upper bound on `|p(x_i)|` for the exact values of the
//! coefficients and of the returned root. See [`certify`].

use malachite_base::num::conversion::traits::ExactFrom;
use malachite_float::Float;

use crate::complex::{CRound, ComplexArray};
use crate::engine::Engine;
use crate::error::{Error, Result};
use crate::float::func::Const;
use crate::float::{FloatArray, Round};
use crate::linalg::{CGemm, CGemv, Matrix};

/// The radius of the starting circle.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Radius {
    /// Fujiwara's bound on `|z - c|` for every root (from the coefficients
    /// of `p(z + c)`), rounded up to a power of two: a circle that encloses
    /// every root.
    Fujiwara,
    /// `|p(c)/a_n|^(1/n)`, the geometric mean of the roots' distances to
    /// the center, rounded to a power of two (a typical distance, not a
    /// bound; the default: measured 2-3x fewer steps than Fujiwara's bound
    /// on the Wilkinson and Chebyshev problems). Roots at the center are
    /// left out (the first nonzero coefficient of `p(z + c)` is used).
    GeoMean,
    /// A given radius.
    Fixed(f64),
}

/// The starting values `c + r e^(2 pi i (k + offset)/n)`, k = 0..n-1.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Start {
    /// The center `c` (re, im); None: the roots' centroid `-a_{n-1}/(n a_n)`.
    pub center: Option<(f64, f64)>,
    /// The radius `r`.
    pub radius: Radius,
    /// The angle offset in units of `2 pi / n` (0 puts a point on the ray
    /// through `c` parallel to the real axis).
    pub offset: f64,
}

impl Default for Start {
    fn default() -> Start {
        Start {
            center: None,
            radius: Radius::GeoMean,
            offset: 0.25,
        }
    }
}

/// Options of [`aberth`] (default: L = 3, the default start, the default
/// tolerance, 500 iterations).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct AberthOpts {
    /// L, the number of inner corrections per step (formal order 2L + 1;
    /// L = 1 is the classical order-3 Ehrlich-Aberth iteration).
    pub order: usize,
    pub start: Start,
    /// Relative correction below which a root counts as converged; None:
    /// `2^(8 - prec)`.
    pub tol: Option<f64>,
    /// The most steps.
    pub max_iter: usize,
}

impl Default for AberthOpts {
    fn default() -> AberthOpts {
        AberthOpts {
            order: 3,
            start: Start::default(),
            tol: None,
            max_iter: 500,
        }
    }
}

/// Options of [`sts_pade`] (default: m = 4, the default start, the default
/// tolerance, 500 iterations).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct StsOpts {
    /// m >= 2: the Taylor order (formal order 2m + 1).
    pub m: usize,
    pub start: Start,
    /// As [`AberthOpts::tol`].
    pub tol: Option<f64>,
    pub max_iter: usize,
}

impl Default for StsOpts {
    fn default() -> StsOpts {
        StsOpts {
            m: 4,
            start: Start::default(),
            tol: None,
            max_iter: 500,
        }
    }
}

/// The outcome of a root finder.
#[derive(Debug)]
pub struct RootsResult {
    /// The `n` approximations, at the working precision, on the
    /// coefficients' engine.
    pub roots: ComplexArray,
    /// Whether each root met the stopping test at the last check.
    pub converged: Vec<bool>,
    /// Steps made (each updates every root once).
    pub iterations: usize,
    /// A rigorous upper bound on `|p(roots[i])|` per root (rounded up,
    /// working precision), on the coefficients' engine.
    pub residual_bound: FloatArray,
}

/// Where a running solve is, for progress displays.
#[derive(Clone, Copy, Debug)]
pub struct Progress {
    pub iteration: usize,
    pub converged: usize,
    pub n: usize,
}

/// All roots of `sum_k coeffs[k] z^k` by the Ehrlich-Aberth iteration of
/// order `2L + 1` at `prec` bits, on the coefficients' engine.
pub fn aberth(coeffs: &ComplexArray, prec: u64, opts: &AberthOpts) -> Result<RootsResult> {
    aberth_with(coeffs, prec, opts, &mut |_| {})
}

/// [`aberth`], calling `progress` after every step.
pub fn aberth_with(
    coeffs: &ComplexArray,
    prec: u64,
    opts: &AberthOpts,
    progress: &mut dyn FnMut(Progress),
) -> Result<RootsResult> {
    if opts.order == 0 {
        return Err(Error::Invalid(
            "the Aberth order L must be at least 1".into(),
        ));
    }
    // Validation and the start only: the fused iteration packs its own
    // coefficients, so no broadcast copies (len 0: none on the engine).
    let t0 = std::time::Instant::now();
    let ctx = Ctx::new_sized(coeffs, prec, opts.tol, 0)?;
    let t1 = std::time::Instant::now();
    let x0 = ctx.start(&opts.start)?;
    if std::env::var_os("MPARRAY_ROOTS_PROFILE").is_some() {
        let ms = |a: std::time::Instant, b: std::time::Instant| (b - a).as_secs_f64() * 1e3;
        let t2 = std::time::Instant::now();
        eprintln!(
            "roots profile: checks {:.3} ms, start {:.3} ms",
            ms(t0, t1),
            ms(t1, t2)
        );
    }
    let tol2 = tol_squared(prec, opts.tol);
    let n = ctx.n;
    let r = crate::complex::polyroots::aberth_fused(
        coeffs,
        &x0,
        prec,
        opts.order,
        &tol2,
        opts.max_iter,
        &mut |iteration, converged| {
            progress(Progress {
                iteration,
                converged,
                n,
            })
        },
    )?;
    Ok(RootsResult {
        roots: r.roots,
        converged: r.converged,
        iterations: r.iterations,
        residual_bound: r.residual_bound,
    })
}

/// All roots of `sum_k coeffs[k] z^k` by the Sakurai-Torii-Sugiura Padé
/// method with Taylor order `m` (formal order `2m + 1`) at `prec` bits, on
/// the coefficients' engine.
pub fn sts_pade(coeffs: &ComplexArray, prec: u64, opts: &StsOpts) -> Result<RootsResult> {
    sts_pade_with(coeffs, prec, opts, &mut |_| {})
}

/// [`sts_pade`], calling `progress` after every step.
pub fn sts_pade_with(
    coeffs: &ComplexArray,
    prec: u64,
    opts: &StsOpts,
    progress: &mut dyn FnMut(Progress),
) -> Result<RootsResult> {
    if opts.m < 2 {
        return Err(Error::Invalid(
            "the STS-Padé order m must be at least 2".into(),
        ));
    }
    let ctx = Ctx::new(coeffs, prec, opts.tol)?;
    let x0 = ctx.start(&opts.start)?;
    let ints: Vec<ComplexArray> = (1..=opts.m as i64)
        .map(|k| cint(&ctx.eng, k, ctx.n, prec))
        .collect::<Result<_>>()?;
    ctx.iterate(coeffs, x0, opts.max_iter, progress, |x| {
        ctx.sts_step(x, opts.m, &ints)
    })
}

/// A rigorous upper bound on `|p(x_i)|` for every element of `x`, rounded
/// up at `prec` bits, on the arrays' engine: Horner's rule at `prec` bits
/// to nearest, `s <- fl(fl(s x) + a_k)`, with the radius
/// `r <- r |x|_1 + 2^-prec (|fl(s x)|_1 + |s|_1)` rounded up (each complex
/// operation rounds each part once to nearest, so its error is at most
/// `2^-prec` times the 1-norm of its result), and the bound `|s|_1 + r`.
pub fn certify(coeffs: &ComplexArray, x: &ComplexArray, prec: u64) -> Result<FloatArray> {
    // Validates the coefficients (no broadcast copies).
    Ctx::new_sized(coeffs, prec, None, 0)?;
    crate::complex::polyroots::certify_fused(coeffs, x, prec)
}

const RN: Round = Round::Nearest;
const RU: Round = Round::Up;

/// Everything one solve reuses: the coefficients broadcast to `n` copies,
/// constant arrays, shapes.
struct Ctx {
    eng: Engine,
    /// Degree.
    n: usize,
    /// Number of approximations (the degree, except in `certify`).
    len: usize,
    p: u64,
    /// Exact host copies of the coefficients (for the start).
    host: Vec<(Float, Float)>,
    /// `a_k` repeated `len` times, k = 0..=n.
    cb: Vec<ComplexArray>,
    /// `|re a_k| + |im a_k|` rounded up, repeated `len` times.
    ab: Vec<FloatArray>,
    /// `tol^2` repeated `len` times.
    tol2: FloatArray,
    /// Constant arrays of the n x n sums, made on first use.
    rep: std::cell::OnceCell<Rep>,
}

/// The constants of [`Ctx::recip_diffs`] and [`Ctx::row_sums`].
struct Rep {
    one: ComplexArray,
    minus_one: ComplexArray,
    ones: ComplexArray,
    ones_col: Matrix<ComplexArray>,
    ones_row: Matrix<ComplexArray>,
    /// `[i != j]` and `[i == j]`, n x n row-major.
    mask: ComplexArray,
    ident: ComplexArray,
}

/// `len` copies of `v` at `prec` bits (rounded to nearest) on `eng`.
fn repeat(eng: &Engine, v: &Float, len: usize, prec: u64) -> Result<FloatArray> {
    let xs = vec![v.clone(); len];
    FloatArray::from_floats(prec, &xs, RN)?.0.into_engine(eng)
}

fn crepeat(eng: &Engine, v: &(Float, Float), len: usize, prec: u64) -> Result<ComplexArray> {
    ComplexArray::new(repeat(eng, &v.0, len, prec)?, repeat(eng, &v.1, len, prec)?)
}

/// `len` complex copies of the integer `k`.
fn cint(eng: &Engine, k: i64, len: usize, prec: u64) -> Result<ComplexArray> {
    crepeat(eng, &(Float::from(k), Float::from(0)), len, prec)
}

impl Ctx {
    fn new(coeffs: &ComplexArray, prec: u64, tol: Option<f64>) -> Result<Ctx> {
        let n = coeffs.len().saturating_sub(1);
        Ctx::new_sized(coeffs, prec, tol, n)
    }

    fn new_sized(coeffs: &ComplexArray, prec: u64, tol: Option<f64>, len: usize) -> Result<Ctx> {
        crate::float::check_prec(prec)?;
        let host = coeffs.to_floats()?;
        let n = host.len().saturating_sub(1);
        if n == 0 {
            return Err(Error::Invalid(format!(
                "a polynomial of degree {} has no roots to find (give at least two coefficients)",
                n
            )));
        }
        let zero = |f: &Float| *f == 0u32 || f.is_nan();
        if host[n].0.is_nan() || host[n].1.is_nan() || (zero(&host[n].0) && zero(&host[n].1)) {
            return Err(Error::Invalid(format!(
                "the leading coefficient (of z^{n}, the last one) is zero"
            )));
        }
        if let Some(k) = host
            .iter()
            .position(|(r, i)| !r.is_finite() || !i.is_finite())
        {
            return Err(Error::Invalid(format!(
                "coefficient {k} (of z^{k}) is not finite"
            )));
        }
        let eng = coeffs.engine();
        // Coefficients enter exactly: each part at its own precision.
        let cprec = |f: &Float| f.get_prec().unwrap_or(1);
        let mut cb = Vec::with_capacity(n + 1);
        let mut ab = Vec::with_capacity(n + 1);
        // len 0: validation and the start only (no copies on the engine).
        for c in host.iter().filter(|_| len > 0) {
            let (pr, pi) = (cprec(&c.0), cprec(&c.1));
            let re = FloatArray::from_floats(pr, &vec![c.0.clone(); len], RN)?.0;
            let im = FloatArray::from_floats(pi, &vec![c.1.clone(); len], RN)?.0;
            let a1 = re.abs(pr, RN)?.add(&im.abs(pi, RN)?, prec, RU)?;
            cb.push(ComplexArray::new(re, im)?.into_engine(&eng)?);
            ab.push(a1.into_engine(&eng)?);
        }
        let tol = match tol {
            Some(t) if !(t >= 0.0 && t.is_finite()) => {
                return Err(Error::Invalid(format!(
                    "the tolerance must be a finite number >= 0, got {t}"
                )));
            }
            Some(t) => FloatArray::from_f64s(prec, &[t], RN)?.0,
            None => FloatArray::from_i64s(prec, &[1], RN)?
                .0
                .mul_2si(8 - prec as i64, prec, RN)?,
        };
        let tol2 = tol.mul(&tol, prec, RN)?.to_floats()?;
        let tol2 = repeat(
            if len > 0 { &eng } else { &Engine::Cpu },
            &tol2[0],
            len,
            prec,
        )?;
        Ok(Ctx {
            eng,
            n,
            len,
            p: prec,
            host,
            cb,
            ab,
            tol2,
            rep: std::cell::OnceCell::new(),
        })
    }

    fn rep(&self) -> Result<&Rep> {
        if let Some(r) = self.rep.get() {
            return Ok(r);
        }
        let (n, p) = (self.len, self.p);
        let (mask, ident) = self.mask(n)?;
        let r = Rep {
            one: self.ones(1)?,
            minus_one: cint(&self.eng, -1, 1, p)?,
            ones: self.ones(n)?,
            ones_col: Matrix::from_array(self.ones(n)?, n, 1)?,
            ones_row: Matrix::from_array(self.ones(n)?, 1, n)?,
            mask,
            ident,
        };
        Ok(self.rep.get_or_init(|| r))
    }

    fn rn(&self) -> CRound {
        CRound::both(RN)
    }

    fn add(&self, a: &ComplexArray, b: &ComplexArray) -> Result<ComplexArray> {
        a.add(b, self.p, self.p, self.rn())
    }

    fn sub(&self, a: &ComplexArray, b: &ComplexArray) -> Result<ComplexArray> {
        a.sub(b, self.p, self.p, self.rn())
    }

    fn mul(&self, a: &ComplexArray, b: &ComplexArray) -> Result<ComplexArray> {
        a.mul(b, self.p, self.p, self.rn())
    }

    fn div(&self, a: &ComplexArray, b: &ComplexArray) -> Result<ComplexArray> {
        a.div(b, self.p, self.p, self.rn())
    }

    /// `a*b + c`, two roundings.
    fn mul_add(
        &self,
        a: &ComplexArray,
        b: &ComplexArray,
        c: &ComplexArray,
    ) -> Result<ComplexArray> {
        self.add(&self.mul(a, b)?, c)
    }

    /// `|re| + |im|` rounded up (an upper bound on the modulus).
    fn abs1(&self, z: &ComplexArray) -> Result<FloatArray> {
        let re = z.re()?.abs(z.prec_re(), RN)?;
        let im = z.im()?.abs(z.prec_im(), RN)?;
        re.add(&im, self.p, RU)
    }

    fn ones(&self, len: usize) -> Result<ComplexArray> {
        cint(&self.eng, 1, len, self.p)
    }

    // ---- start ------------------------------------------------------------

    /// The starting circle's points on the engine.
    fn start(&self, s: &Start) -> Result<ComplexArray> {
        let (n, p) = (self.n, self.p);
        if !s.offset.is_finite() {
            return Err(Error::Invalid("the start offset must be finite".into()));
        }
        let hp = 128.max(p);
        let c = match s.center {
            Some((re, im)) if re.is_finite() && im.is_finite() => (f64_float(re), f64_float(im)),
            Some(_) => return Err(Error::Invalid("the start center must be finite".into())),
            None => {
                // -a_{n-1} / (n a_n), correctly rounded per part.
                let a = |k: usize| -> Result<ComplexArray> {
                    crepeat(&Engine::Cpu, &self.host[k], 1, hp)
                };
                let na =
                    a(self.n)?.mul(&cint(&Engine::Cpu, n as i64, 1, hp)?, hp, hp, self.rn())?;
                let c = a(n - 1)?
                    .neg(hp, hp, self.rn())?
                    .div(&na, hp, hp, self.rn())?;
                c.to_floats()?.remove(0)
            }
        };
        let r = match s.radius {
            Radius::Fixed(r) if r.is_finite() && r > 0.0 => f64_float(r),
            Radius::Fixed(r) => {
                return Err(Error::Invalid(format!(
                    "the start radius must be a positive finite number, got {r}"
                )));
            }
            kind => self.radius(&c, kind == Radius::Fujiwara)?,
        };
        // Angles 2 pi (k + offset) / n, each step correctly rounded.
        let ks: Vec<f64> = (0..n).map(|k| k as f64).collect();
        let k = FloatArray::from_f64s(p + 16, &ks, RN)?.0;
        let off = FloatArray::from_f64s(p + 16, &vec![s.offset; n], RN)?.0;
        let nn = FloatArray::from_i64s(p + 16, &vec![n as i64; n], RN)?.0;
        let (pi, _) = FloatArray::constant(Const::Pi, p + 16, RN)?;
        let pi = repeat(&Engine::Cpu, &pi.to_floats()?[0], n, p + 16)?;
        let theta = k
            .add(&off, p + 16, RN)?
            .div(&nn, p + 16, RN)?
            .mul(&pi, p + 16, RN)?
            .mul_2si(1, p + 16, RN)?;
        let ((sin, _), (cos, _), _) = theta.sin_cos_ternary(p, RN)?;
        let rr = repeat(&Engine::Cpu, &r, n, hp)?;
        let re = cos.fma(&rr, &repeat(&Engine::Cpu, &c.0, n, hp)?, p, RN)?;
        let im = sin.fma(&rr, &repeat(&Engine::Cpu, &c.1, n, hp)?, p, RN)?;
        ComplexArray::new(re, im)?.into_engine(&self.eng)
    }

    /// The starting radius about `c`: Fujiwara's bound or the geometric
    /// mean of the distances, both from the coefficients of `p(z + c)`
    /// (a Taylor shift at 128 bits on the host), as a power of two.
    fn radius(&self, c: &(Float, Float), fujiwara: bool) -> Result<Float> {
        let hp = 128;
        let n = self.n;
        let mul = |a: &(Float, Float), b: &(Float, Float)| -> (Float, Float) {
            let rr = a.0.mul_prec_ref_ref(&b.0, hp).0;
            let ii = a.1.mul_prec_ref_ref(&b.1, hp).0;
            let ri = a.0.mul_prec_ref_ref(&b.1, hp).0;
            let ir = a.1.mul_prec_ref_ref(&b.0, hp).0;
            (rr.sub_prec(ii, hp).0, ri.add_prec(ir, hp).0)
        };
        let add = |a: &(Float, Float), b: &(Float, Float)| -> (Float, Float) {
            (
                a.0.add_prec_ref_ref(&b.0, hp).0,
                a.1.add_prec_ref_ref(&b.1, hp).0,
            )
        };
        let mut q: Vec<(Float, Float)> = self.host.clone();
        for i in 0..n {
            for j in (i..n).rev() {
                q[j] = add(&q[j], &mul(c, &q[j + 1]));
            }
        }
        // log2 |q_k| from the exponent of |re| + |im| (within 1 of it).
        let lg = |z: &(Float, Float)| -> Option<i64> {
            let e = |f: &Float| f.get_exponent().map(|e| e as i64);
            match (e(&z.0), e(&z.1)) {
                (Some(a), Some(b)) => Some(a.max(b) + 1),
                (Some(a), None) | (None, Some(a)) => Some(a),
                _ => None,
            }
        };
        let lead = lg(&q[n]).expect("nonzero leading coefficient") - 2;
        let e = if fujiwara {
            // 2 max_k |q_k/q_n|^(1/(n-k)) (q_0 halved), each exponent
            // rounded up: a bound on every |z - c|.
            let mut best: Option<i64> = None;
            for (k, qk) in q.iter().enumerate().take(n) {
                if let Some(ek) = lg(qk) {
                    let num = ek - lead - if k == 0 { 1 } else { 0 };
                    let d = (n - k) as i64;
                    let v = num.div_euclid(d) + if num.rem_euclid(d) > 0 { 1 } else { 0 };
                    best = Some(best.map_or(v, |b: i64| b.max(v)));
                }
            }
            best.map_or(0, |b| b + 1)
        } else {
            // The first nonzero q_k: the other n - k roots' mean distance.
            match (0..n).find_map(|k| lg(&q[k]).map(|e| (k, e))) {
                Some((k, ek)) => (ek - lead - 1).div_euclid((n - k) as i64),
                None => 0,
            }
        };
        Ok(Float::from(1u32) << e)
    }

    // ---- the iteration ------------------------------------------------------

    /// Runs `step` (returning the new approximations, their correction,
    /// and the residuals `p(x)` with their noise levels at the old ones)
    /// until every root has converged or `max_iter` steps.
    fn iterate(
        &self,
        coeffs: &ComplexArray,
        mut x: ComplexArray,
        max_iter: usize,
        progress: &mut dyn FnMut(Progress),
        step: impl Fn(&ComplexArray) -> Result<Step>,
    ) -> Result<RootsResult> {
        let n = self.n;
        let mut step_ok = vec![false; n];
        let mut conv;
        let mut it = 0;
        loop {
            let s = step(&x)?;
            let noise = self.at_noise(&s.p, &s.noise)?;
            conv = noise
                .iter()
                .zip(&s.isolated)
                .zip(&step_ok)
                .map(|((a, i), b)| *i && (*a || *b))
                .collect::<Vec<_>>();
            let done = conv.iter().all(|&c| c);
            if it == max_iter {
                break;
            }
            // One more step polishes converged roots with the values in hand.
            step_ok = self.small(&s.delta, &s.x)?;
            x = s.x;
            it += 1;
            progress(Progress {
                iteration: it,
                converged: conv.iter().filter(|&&c| c).count(),
                n,
            });
            if done {
                break;
            }
        }
        let residual_bound = crate::complex::polyroots::certify_fused(coeffs, &x, self.p)?;
        Ok(RootsResult {
            roots: x,
            converged: conv,
            iterations: it,
            residual_bound,
        })
    }

    /// Whether `|p|_1 <= 2^ceil(log2 2n) 2^-prec * noise` per element.
    fn at_noise(&self, p: &ComplexArray, noise: &FloatArray) -> Result<Vec<bool>> {
        let k = (2 * self.n).next_power_of_two().trailing_zeros() as i64;
        let thr = noise.mul_2si(k - self.p as i64, self.p, RU)?;
        let ord = self.abs1(p)?.cmp(&thr)?;
        Ok(ord
            .iter()
            .map(|o| {
                matches!(
                    o,
                    Some(std::cmp::Ordering::Less | std::cmp::Ordering::Equal)
                )
            })
            .collect())
    }

    /// Whether `16 |ps|^2 <= |dp|^2` per element.
    fn isolated(&self, ps: &ComplexArray, dp: &ComplexArray) -> Result<Vec<bool>> {
        let a = ps.norm_ternary(self.p, RN)?.0.mul_2si(4, self.p, RN)?;
        let b = dp.norm_ternary(self.p, RN)?.0;
        Ok(a.cmp(&b)?
            .iter()
            .map(|o| {
                matches!(
                    o,
                    Some(std::cmp::Ordering::Less | std::cmp::Ordering::Equal)
                )
            })
            .collect())
    }

    /// Whether `|delta|^2 <= tol^2 |x|^2` per element.
    fn small(&self, delta: &ComplexArray, x: &ComplexArray) -> Result<Vec<bool>> {
        let d = delta.norm_ternary(self.p, RN)?.0;
        let xx = x.norm_ternary(self.p, RN)?.0.mul(&self.tol2, self.p, RN)?;
        Ok(d.cmp(&xx)?
            .iter()
            .map(|o| {
                matches!(
                    o,
                    Some(std::cmp::Ordering::Less | std::cmp::Ordering::Equal)
                )
            })
            .collect())
    }

    /// `sum_k |a_k|_1 |x|_1^k`, the scale of Horner's rounding noise.
    fn noise(&self, x: &ComplexArray) -> Result<FloatArray> {
        let rho = self.abs1(x)?;
        let mut s = self.ab[self.n].try_clone()?;
        for k in (0..self.n).rev() {
            s = s.fma(&rho, &self.ab[k], self.p, RU)?;
        }
        Ok(s)
    }

    /// The `len x len` array `[i != j] / (x_i - t_j)` (zero on the
    /// diagonal), row-major.
    fn recip_diffs(&self, x: &ComplexArray, t: &ComplexArray) -> Result<ComplexArray> {
        let n = x.len();
        let p = self.p;
        let r = self.rep()?;
        let cg = CGemm {
            prec_re: p,
            prec_im: p,
            ..CGemm::default()
        };
        // tm[i][j] = t_j, then d[i][j] = x_i*1 - tm[i][j], each exact or
        // rounded once.
        let tm = r.ones_col.gemm(
            &Matrix::from_array(t.try_clone()?, 1, n)?,
            &r.one,
            None,
            &cg,
        )?;
        let d = Matrix::from_array(x.try_clone()?, n, 1)?.gemm(
            &r.ones_row,
            &r.one,
            Some((&r.minus_one, &tm.0)),
            &cg,
        )?;
        // mask*d + ident is d off the diagonal and 1 on it, exactly.
        let dm = self.add(&self.mul(&d.0.into_data(), &r.mask)?, &r.ident)?;
        self.div(&r.mask, &dm)
    }

    /// The `n x n` arrays `[i != j]` and `[i == j]` (complex, row-major).
    fn mask(&self, n: usize) -> Result<(ComplexArray, ComplexArray)> {
        let p = self.p;
        let m: Vec<i64> = (0..n * n).map(|k| (k / n != k % n) as i64).collect();
        let id: Vec<i64> = m.iter().map(|v| 1 - v).collect();
        let z = FloatArray::zeros(&Engine::Cpu, n * n, p)?;
        let mk = |v: &[i64]| -> Result<ComplexArray> {
            ComplexArray::new(FloatArray::from_i64s(p, v, RN)?.0, z.try_clone()?)?
                .into_engine(&self.eng)
        };
        Ok((mk(&m)?, mk(&id)?))
    }

    /// Row sums of a row-major `len x len` array (exactly rounded).
    fn row_sums(&self, r: ComplexArray) -> Result<ComplexArray> {
        let n = self.len;
        let c = self.rep()?;
        let cv = CGemv {
            prec_re: self.p,
            prec_im: self.p,
            ..CGemv::default()
        };
        Ok(Matrix::from_array(r, n, n)?
            .gemv(&c.one, &c.ones, None, &cv)?
            .0)
    }

    /// One STS-Padé step of Taylor order m (see notes/solvers.md):
    /// with `b_i = p^(i)(x)/i!` and the Taylor coefficients of `1/p` at
    /// each `x_i` kept division-free (`v_i = b_0^(i+1) [t^i] 1/p(x+t)`),
    /// the other approximations are refined by Householder's step of
    /// order m, `y = x + b_0 v_{m-2}/v_{m-1}`, and each root moves to the
    /// pole of the `[m-1/1]` Padé approximant of `g_i/p` at `x_i`
    /// (`g_i = prod_{j != i} (z - y_j)`): `x + q_{m-1}/q_m`.
    fn sts_step(&self, x: &ComplexArray, m: usize, ints: &[ComplexArray]) -> Result<Step> {
        let n = self.n;
        // Taylor coefficients by repeated synthetic division.
        let mut c: Vec<ComplexArray> = self
            .cb
            .iter()
            .map(|a| a.try_clone())
            .collect::<Result<_>>()?;
        let mut b = Vec::with_capacity(m + 1);
        for i in 0..=m {
            if i > n {
                b.push(self.sub(&b[0], &b[0])?);
                continue;
            }
            for j in (i..n).rev() {
                c[j] = self.mul_add(&c[j + 1], x, &c[j])?;
            }
            b.push(c[i].try_clone()?);
        }
        let noise = self.noise(x)?;
        let ones = self.rep()?.ones.try_clone()?;
        // Powers of b_0, and beta_l = b_l b_0^(l-1).
        let mut b0p = vec![ones.try_clone()?];
        for l in 1..=m {
            b0p.push(self.mul(&b0p[l - 1], &b[0])?);
        }
        let beta: Vec<ComplexArray> = (1..=m)
            .map(|l| self.mul(&b[l], &b0p[l - 1]))
            .collect::<Result<_>>()?;
        // v_0 = 1, v_i = -sum_{l=1..i} beta_l v_{i-l}.
        let mut v = vec![ones.try_clone()?];
        for i in 1..=m {
            let mut s = self.mul(&beta[0], &v[i - 1])?;
            for l in 2..=i {
                s = self.mul_add(&beta[l - 1], &v[i - l], &s)?;
            }
            v.push(s.neg(self.p, self.p, self.rn())?);
        }
        // The refined others: Householder's step of order m.
        let y = self.add(x, &self.div(&self.mul(&b[0], &v[m - 2])?, &v[m - 1])?)?;
        // Power sums P_i = sum_{j != k} (x_k - y_j)^-i, i = 1..m.
        let r = self.recip_diffs(x, &y)?;
        let mut ps = vec![self.row_sums(r.try_clone()?)?];
        let mut rp = r.try_clone()?;
        for _ in 2..=m {
            rp = self.mul(&rp, &r)?;
            ps.push(self.row_sums(rp.try_clone()?)?);
        }
        // d/dt log g(x+t) = sum_l lambda_l t^l, lambda_l = (-1)^l P_{l+1};
        // u = g(x+t)/g(x): u_0 = 1, u_{i+1} = sum_{l<=i} lambda_l u_{i-l} / (i+1).
        let lam: Vec<ComplexArray> = ps
            .into_iter()
            .enumerate()
            .map(|(l, pl)| {
                if l % 2 == 1 {
                    pl.neg(self.p, self.p, self.rn())
                } else {
                    Ok(pl)
                }
            })
            .collect::<Result<_>>()?;
        let mut u = vec![ones.try_clone()?];
        for i in 0..m {
            let mut s = self.mul(&lam[0], &u[i])?;
            for l in 1..=i {
                s = self.mul_add(&lam[l], &u[i - l], &s)?;
            }
            u.push(self.div(&s, &ints[i])?);
        }
        // Q_i = b_0^(i+1) q_i = sum_{l<=i} u_l b_0^l v_{i-l}.
        let q = |i: usize| -> Result<ComplexArray> {
            let mut s = self.mul(&u[0], &v[i])?;
            for l in 1..=i {
                s = self.mul_add(&self.mul(&u[l], &b0p[l])?, &v[i - l], &s)?;
            }
            Ok(s)
        };
        let delta = self.div(&self.mul(&b[0], &q(m - 1)?)?, &q(m)?)?;
        let isolated = self.isolated(&self.mul(&b[0], &lam[0])?, &b[1])?;
        Ok(Step {
            x: self.add(x, &delta)?,
            delta,
            p: b.swap_remove(0),
            noise,
            isolated,
        })
    }
}

/// One step's results: the new approximations, the last correction, and
/// `p(x)` with its noise scale at the old approximations.
struct Step {
    x: ComplexArray,
    delta: ComplexArray,
    p: ComplexArray,
    noise: FloatArray,
    /// Whether `|p(x_i) sum_{j != i} 1/(x_i - t_j)| <= |p'(x_i)|/4`: the
    /// other approximations barely move this one (false where two
    /// approximations crowd one root).
    isolated: Vec<bool>,
}

/// `tol^2` rounded to nearest at `prec` bits, `tol` defaulting to
/// `2^(8 - prec)` (the Ctx's tolerance, already checked there).
fn tol_squared(prec: u64, tol: Option<f64>) -> Float {
    let t = match tol {
        Some(t) => f64_float(t),
        None => Float::from(1u32) << (8 - prec as i64),
    };
    t.mul_prec_ref_ref(&t, prec).0
}

/// An `f64` as an exact `Float`.
fn f64_float(v: f64) -> Float {
    Float::exact_from(v)
}
