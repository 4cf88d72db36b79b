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
    let tol2 = tol_squared(prec, opts.tol);
    // The starting points and the coefficients' setup (each a fraction of
    // a millisecond of host work at n = 128, 1024 bits) side by side.
    let (x0, su) = rayon::join(
        || ctx.start_on(&opts.start, &Engine::Cpu),
        || crate::complex::polyroots::Setup::new(coeffs, prec, &tol2),
    );
    let (x0, su) = (x0?, su?);
    if std::env::var_os("MPARRAY_ROOTS_PROFILE").is_some() {
        let ms = |a: std::time::Instant, b: std::time::Instant| (b - a).as_secs_f64() * 1e3;
        let t2 = std::time::Instant::now();
        eprintln!(
            "roots profile: checks {:.3} ms, start and setup {:.3} ms",
            ms(t0, t1),
            ms(t1, t2)
        );
    }
    let n = ctx.n;
    let r = crate::complex::polyroots::aberth_fused_setup(
        su,
        std::time::Instant::now(),
        &x0,
        &ctx.eng,
        prec,
        opts.order,
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
    // Validation and the start only: the fused iteration packs its own
    // coefficients.
    let ctx = Ctx::new_sized(coeffs, prec, opts.tol, 1)?;
    let x0 = ctx.start(&opts.start)?;
    let tol2 = tol_squared(prec, opts.tol);
    let n = ctx.n;
    let r = crate::complex::polyroots::sts::sts_fused(
        coeffs,
        &x0,
        prec,
        opts.m,
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

/// The validated coefficients (exact host copies) and what the start
/// needs.
struct Ctx {
    eng: Engine,
    /// Degree.
    n: usize,
    p: u64,
    /// Exact host copies of the coefficients (for the start).
    host: Vec<(Float, Float)>,
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
    fn new_sized(coeffs: &ComplexArray, prec: u64, tol: Option<f64>, _len: usize) -> Result<Ctx> {
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
        if let Some(t) = tol
            && !(t >= 0.0 && t.is_finite())
        {
            return Err(Error::Invalid(format!(
                "the tolerance must be a finite number >= 0, got {t}"
            )));
        }
        Ok(Ctx {
            eng,
            n,
            p: prec,
            host,
        })
    }

    fn rn(&self) -> CRound {
        CRound::both(RN)
    }

    // ---- start ------------------------------------------------------------

    /// The starting circle's points on the engine.
    fn start(&self, s: &Start) -> Result<ComplexArray> {
        self.start_on(s, &self.eng)
    }

    /// [`Ctx::start`] on `eng` (the fused iteration takes them on the host:
    /// it packs them there before its upload).
    fn start_on(&self, s: &Start, eng: &Engine) -> Result<ComplexArray> {
        let t_s = std::time::Instant::now();
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
        let t_rad = std::time::Instant::now();
        // Angles 2 pi (k + offset) / n, each step correctly rounded, at a
        // start's accuracy only: sin and cos at q = min(p, 64) bits (at the
        // working precision they cost milliseconds at 1024 bits, more than
        // the iteration's setup), theta at q + 16.
        let q = p.min(64);
        let ks: Vec<f64> = (0..n).map(|k| k as f64).collect();
        let k = FloatArray::from_f64s(q + 16, &ks, RN)?.0;
        let off = FloatArray::from_f64s(q + 16, &vec![s.offset; n], RN)?.0;
        let nn = FloatArray::from_i64s(q + 16, &vec![n as i64; n], RN)?.0;
        let (pi, _) = FloatArray::constant(Const::Pi, q + 16, RN)?;
        let pi = repeat(&Engine::Cpu, &pi.to_floats()?[0], n, q + 16)?;
        let theta = k
            .add(&off, q + 16, RN)?
            .div(&nn, q + 16, RN)?
            .mul(&pi, q + 16, RN)?
            .mul_2si(1, q + 16, RN)?;
        let ((sin, _), (cos, _), _) = theta.sin_cos_ternary(q, RN)?;
        let rr = repeat(&Engine::Cpu, &r, n, hp)?;
        let re = cos.fma(&rr, &repeat(&Engine::Cpu, &c.0, n, hp)?, p, RN)?;
        let im = sin.fma(&rr, &repeat(&Engine::Cpu, &c.1, n, hp)?, p, RN)?;
        let t_ang = std::time::Instant::now();
        let x0 = ComplexArray::new(re, im)?.into_engine(eng)?;
        if std::env::var_os("MPARRAY_ROOTS_PROFILE").is_some() {
            let ms = |a: std::time::Instant, b: std::time::Instant| (b - a).as_secs_f64() * 1e3;
            eprintln!(
                "roots profile: start: center and radius {:.3} ms, angles {:.3} ms, to the engine {:.3} ms",
                ms(t_s, t_rad),
                ms(t_rad, t_ang),
                ms(t_ang, std::time::Instant::now())
            );
        }
        Ok(x0)
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
        // log2 |q_k| from the exponent of |re| + |im| (within 1 of it).
        let lg = |z: &(Float, Float)| -> Option<i64> {
            let e = |f: &Float| f.get_exponent().map(|e| e as i64);
            match (e(&z.0), e(&z.1)) {
                (Some(a), Some(b)) => Some(a.max(b) + 1),
                (Some(a), None) | (None, Some(a)) => Some(a),
                _ => None,
            }
        };
        // Pass i of the shift (j = n-1 down to i) leaves q_i final, so
        // GeoMean (which needs only the first nonzero q_k) stops after the
        // pass that makes one: usually pass 0, Horner's p(c), n operations
        // instead of n^2/2 (the same values either way).
        let mut q: Vec<(Float, Float)> = self.host.clone();
        for i in 0..n {
            for j in (i..n).rev() {
                q[j] = add(&q[j], &mul(c, &q[j + 1]));
            }
            if !fujiwara && lg(&q[i]).is_some() {
                break;
            }
        }
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
