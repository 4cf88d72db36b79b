//! `mparray bench solvers`: the root finders on the Wilkinson and
//! Chebyshev-node polynomials (n = 64, 128, 256 at 128..1024 bits, both
//! methods) and GMRES(m) on the Hilbert matrix of order 12 and on a
//! diagonally shifted random matrix, each timed once to convergence on one
//! engine (CUDA: device events; CPU: wall clock).
//!
//! Reported per root-finding case: time to convergence (at most 100
//! steps), iterations, how many roots converged, the largest rigorous
//! residual bound, and for Wilkinson the largest distance of a root to its
//! exact value (the nearest integer), computed exactly from the returned
//! bits. Each case is checked: every root converged and (Wilkinson) the
//! roots are 1..n, each exactly once, to the distance printed; Wilkinson
//! cases whose coefficients do not fit the precision (n = 64 needs about
//! 296 bits, 128 about 716, 256 about 1700) are reported unchecked, as
//! their roots are not 1..n. Per GMRES case: time, steps,
//! restarts, time per step, and the true relative residual `||b - A x|| /
//! ||b||` (each element of `b - A x` rounded once).

use clap::Args;
use malachite_base::num::arithmetic::traits::{Abs, Floor};
use malachite_base::num::conversion::traits::{ExactFrom, RoundingFrom};
use malachite_base::rounding_modes::RoundingMode;
use malachite_float::Float;
use malachite_q::Rational;

use crate::engine::Engine;
use crate::error::{CommandError, Result};
use crate::float::{FloatArray, Round};
use crate::linalg::{Gemv, Matrix, Op};
use crate::solvers::gmres::{GmresOpts, Ortho, gmres, gmres_with};
use crate::solvers::problems;
use crate::solvers::roots::{self, AberthOpts, RootsResult, StsOpts};

#[derive(Args, Clone)]
pub struct SolversBenchArgs {
    /// Engine: cpu, cuda or auto.
    #[arg(long, default_value = "auto")]
    engine: String,
    /// Small cases only (n = 32, 128 and 256 bits; GMRES n = 64).
    #[arg(long)]
    quick: bool,
    /// Degrees (default 64,128,256).
    #[arg(long, value_delimiter = ',')]
    n: Vec<usize>,
    /// Precisions in bits (default 128,256,512,1024).
    #[arg(long, value_delimiter = ',')]
    precs: Vec<u64>,
    /// Methods: aberth, sts (default both).
    #[arg(long, value_delimiter = ',')]
    methods: Vec<String>,
    /// Problems: wilkinson, chebyshev, gmres, gmres-step (default all).
    #[arg(long, value_delimiter = ',')]
    problems: Vec<String>,
    /// Order of the random GMRES matrix (default 256; quick 64).
    #[arg(long)]
    gmres_n: Option<usize>,
    /// Runs per root-finding case; the fastest is reported (the first
    /// also loads the kernels).
    #[arg(long, default_value_t = 1)]
    runs: usize,
    /// Order of the gmres-step matrix (default 4096; quick 256).
    #[arg(long)]
    step_n: Option<usize>,
    /// Steps of the gmres-step cycle (m; default 30, quick 8).
    #[arg(long)]
    step_m: Option<usize>,
    /// Precision of the gmres-step case in bits (default 256).
    #[arg(long, default_value_t = 256)]
    step_prec: u64,
    /// Orthogonalisations of the gmres-step case: dgks, cgs2, mgs
    /// (default all three).
    #[arg(long, value_delimiter = ',')]
    step_orthos: Vec<String>,
    /// Print JSON instead of tables.
    #[arg(long)]
    json: bool,
}

/// The most steps per root-finding case (the methods need 10-30 where
/// the precision suffices; Wilkinson with rounded coefficients may not
/// converge at all).
const MAX_ITER: usize = 100;

struct RootRow {
    problem: &'static str,
    n: usize,
    prec: u64,
    method: &'static str,
    ms: f64,
    iterations: usize,
    converged: usize,
    max_bound: f64,
    max_err: Option<f64>,
    /// None: not checked (Wilkinson coefficients rounded at this precision).
    ok: Option<bool>,
}

struct GmresRow {
    problem: String,
    n: usize,
    prec: u64,
    ms: f64,
    steps: usize,
    restarts: usize,
    rel_residual: f64,
    converged: bool,
}

/// log10 of a positive Float (-inf for zero).
fn log10(f: &Float) -> f64 {
    if *f == 0u32 {
        return f64::NEG_INFINITY;
    }
    let e = f.get_exponent().unwrap_or(0) as f64;
    let m = f64::rounding_from(f >> f.get_exponent().unwrap_or(0), RoundingMode::Nearest).0;
    (e * std::f64::consts::LN_2 + m.abs().ln()) / std::f64::consts::LN_10
}

/// The largest bound (log10), and for Wilkinson the largest distance to
/// the nearest integer (log10) with whether the roots are 1..n once each.
fn check(r: &RootsResult, wilkinson: bool) -> Result<(f64, Option<f64>, bool)> {
    let b = r.residual_bound.to_floats()?;
    let max_bound = b.iter().map(log10).fold(f64::NEG_INFINITY, f64::max);
    if !wilkinson {
        return Ok((max_bound, None, true));
    }
    let n = r.roots.len();
    let mut seen = vec![false; n + 1];
    let mut worst = Rational::from(0u32);
    let mut ok = true;
    for (re, im) in r.roots.to_floats()? {
        let (x, y) = (Rational::exact_from(&re), Rational::exact_from(&im));
        let k = (&x + Rational::from(1u32) / Rational::from(2u32)).floor();
        let d = (&x - Rational::from(k.clone())).abs() + y.abs();
        if d > worst {
            worst = d;
        }
        match usize::try_from(&k) {
            Ok(k) if (1..=n).contains(&k) && !seen[k] => seen[k] = true,
            _ => ok = false,
        }
    }
    let w = Float::from_rational_prec(worst, 64).0;
    Ok((max_bound, Some(log10(&w)), ok))
}

pub fn run(a: SolversBenchArgs) -> std::result::Result<(), CommandError> {
    let engine = super::engine(&a.engine)?;
    let ns = if !a.n.is_empty() {
        a.n.clone()
    } else if a.quick {
        vec![32]
    } else {
        vec![64, 128, 256]
    };
    let precs = if !a.precs.is_empty() {
        a.precs.clone()
    } else if a.quick {
        vec![128, 256]
    } else {
        vec![128, 256, 512, 1024]
    };
    let methods: Vec<String> = if a.methods.is_empty() {
        vec!["aberth".into(), "sts".into()]
    } else {
        a.methods.clone()
    };
    let probs: Vec<String> = if a.problems.is_empty() {
        vec![
            "wilkinson".into(),
            "chebyshev".into(),
            "gmres".into(),
            "gmres-step".into(),
        ]
    } else {
        a.problems.clone()
    };
    for m in &methods {
        if m != "aberth" && m != "sts" {
            return Err(CommandError::Input(format!(
                "unknown method {m:?}: aberth or sts"
            )));
        }
    }
    for p in &probs {
        if !["wilkinson", "chebyshev", "gmres", "gmres-step"].contains(&p.as_str()) {
            return Err(CommandError::Input(format!(
                "unknown problem {p:?}: wilkinson, chebyshev, gmres or gmres-step"
            )));
        }
    }
    if !a.json {
        println!("# bench solvers on {}", engine.describe());
    }
    let mut rows = Vec::new();
    for prob in probs.iter().filter(|p| !p.starts_with("gmres")) {
        let wil = prob == "wilkinson";
        for &n in &ns {
            let exact = if wil {
                problems::wilkinson(n)?
            } else {
                problems::chebyshev_nodes(n)?
            };
            for &prec in &precs {
                let c = problems::coeff_array(&exact, prec, &engine)?;
                // Whether the coefficients are exact at this precision.
                let held = exact.iter().all(|q| {
                    Float::from_rational_prec(q.clone(), prec).1 == std::cmp::Ordering::Equal
                });
                for m in &methods {
                    let once = || {
                        engine.time(|| {
                            if m == "aberth" {
                                let o = AberthOpts {
                                    max_iter: MAX_ITER,
                                    ..AberthOpts::default()
                                };
                                roots::aberth(&c, prec, &o)
                            } else {
                                let o = StsOpts {
                                    max_iter: MAX_ITER,
                                    ..StsOpts::default()
                                };
                                roots::sts_pade(&c, prec, &o)
                            }
                        })
                    };
                    let (mut ms, mut r) = once()?;
                    for _ in 1..a.runs {
                        let (t, r2) = once()?;
                        if t < ms {
                            (ms, r) = (t, r2);
                        }
                    }
                    let (max_bound, max_err, ok) = check(&r, wil)?;
                    let conv = r.converged.iter().filter(|&&c| c).count();
                    let row = RootRow {
                        problem: if wil { "wilkinson" } else { "chebyshev" },
                        n,
                        prec,
                        method: if m == "aberth" {
                            "aberth L=3 fused"
                        } else {
                            "sts m=4 fused"
                        },
                        ms,
                        iterations: r.iterations,
                        converged: conv,
                        max_bound,
                        max_err,
                        ok: (!wil || held).then_some(ok && conv == n),
                    };
                    if !a.json {
                        print_root(&row, rows.is_empty());
                    }
                    rows.push(row);
                }
            }
        }
    }
    let mut grows = Vec::new();
    if probs.iter().any(|p| p == "gmres") {
        let rn = a.gmres_n.unwrap_or(if a.quick { 64 } else { 256 });
        for &prec in &precs {
            for hil in [true, false] {
                let (am, b, name, restart) = if hil {
                    let h = problems::hilbert(12, prec, &engine)?;
                    let v: Vec<i64> = (0..12).map(|i| 1 - 2 * (i % 2)).collect();
                    let b = FloatArray::from_i64s(prec, &v, Round::Nearest)?
                        .0
                        .into_engine(&engine)?;
                    (h, b, "hilbert 12".to_string(), 12)
                } else {
                    let (am, b) = shifted_random(&engine, rn, prec)?;
                    (am, b, format!("random+2sqrt(n)I {rn}"), 30)
                };
                let o = GmresOpts {
                    restart,
                    tol: 1e-30,
                    prec,
                    max_restarts: 20,
                    ..GmresOpts::default()
                };
                let (ms, r) = engine.time(|| gmres(&am, &b, None, &o))?;
                let row = GmresRow {
                    problem: name,
                    n: am.rows(),
                    prec,
                    ms,
                    steps: r.iterations,
                    restarts: r.restarts,
                    rel_residual: *r.true_residuals.last().unwrap_or(&f64::NAN),
                    converged: r.converged,
                };
                if !a.json {
                    print_gmres(&row, grows.is_empty());
                }
                grows.push(row);
            }
        }
    }
    let mut srows = Vec::new();
    if probs.iter().any(|p| p == "gmres-step") {
        let n = a.step_n.unwrap_or(if a.quick { 256 } else { 4096 });
        let m = a.step_m.unwrap_or(if a.quick { 8 } else { 30 });
        let orthos = if a.step_orthos.is_empty() {
            vec![Ortho::Dgks, Ortho::Cgs2, Ortho::Mgs]
        } else {
            a.step_orthos
                .iter()
                .map(|o| match o.as_str() {
                    "dgks" => Ok(Ortho::Dgks),
                    "cgs2" => Ok(Ortho::Cgs2),
                    "mgs" => Ok(Ortho::Mgs),
                    _ => Err(CommandError::Input(format!(
                        "unknown --step-orthos {o:?}: dgks, cgs2 or mgs"
                    ))),
                })
                .collect::<Result<Vec<_>, _>>()?
        };
        for ortho in orthos {
            let row = gmres_step(&engine, n, m, a.step_prec, ortho)?;
            if !a.json {
                print_step(&row, srows.is_empty());
            }
            srows.push(row);
        }
    }
    if a.json {
        let roots: Vec<serde_json::Value> = rows
            .iter()
            .map(|r| {
                serde_json::json!({
                    "problem": r.problem, "n": r.n, "prec": r.prec, "method": r.method,
                    "ms": r.ms, "iterations": r.iterations, "converged": r.converged,
                    "log10_max_residual_bound": r.max_bound,
                    "log10_max_root_error": r.max_err, "ok": r.ok,
                })
            })
            .collect();
        let gm: Vec<serde_json::Value> = grows
            .iter()
            .map(|r| {
                serde_json::json!({
                    "problem": r.problem, "n": r.n, "prec": r.prec, "ms": r.ms,
                    "steps": r.steps, "restarts": r.restarts,
                    "true_rel_residual": r.rel_residual, "converged": r.converged,
                })
            })
            .collect();
        let st: Vec<serde_json::Value> = srows
            .iter()
            .map(|r| {
                serde_json::json!({
                    "n": r.n, "prec": r.prec, "m": r.m, "ortho": r.ortho,
                    "gemv_ms": r.gemv_ms, "step_ms_mean": r.mean_ms, "step_ms_last": r.last_ms,
                    "ratio_mean": r.mean_ms / r.gemv_ms, "ratio_last": r.last_ms / r.gemv_ms,
                    "cgs_pass_ms": r.pass_ms, "norm_ms": r.nrm2_ms,
                    "true_rel_residual": r.true_rel, "estimate": r.estimate, "ok": r.ok,
                })
            })
            .collect();
        let v = serde_json::json!({
            "suite": "solvers", "engine": engine.describe(), "roots": roots, "gmres": gm,
            "gmres_step": st,
        });
        println!("{v}");
    }
    if srows.iter().any(|r| !r.ok) {
        return Err(CommandError::Other(
            "a gmres-step case's true residual disagrees with its estimate (see the table)".into(),
        ));
    }
    if rows.iter().any(|r| r.ok == Some(false)) {
        return Err(CommandError::Other(
            "some root-finding case did not converge or missed an exact root (see the table)"
                .into(),
        ));
    }
    Ok(())
}

fn print_root(r: &RootRow, head: bool) {
    if head {
        println!(
            "{:<10} {:>5} {:>5} {:<16} {:>11} {:>6} {:>9} {:>12} {:>12} check",
            "problem", "n", "bits", "method", "ms", "iters", "conv", "log10 |p|<=", "log10 err"
        );
    }
    let err = r.max_err.map_or("-".to_string(), |e| format!("{e:.1}"));
    println!(
        "{:<10} {:>5} {:>5} {:<16} {:>11.1} {:>6} {:>9} {:>12.1} {:>12} {}",
        r.problem,
        r.n,
        r.prec,
        r.method,
        r.ms,
        r.iterations,
        format!("{}/{}", r.converged, r.n),
        r.max_bound,
        err,
        match r.ok {
            Some(true) => "ok",
            Some(false) => "FAILED",
            None => "(coefficients rounded)",
        }
    );
}

struct StepRow {
    n: usize,
    prec: u64,
    m: usize,
    ortho: &'static str,
    gemv_ms: f64,
    mean_ms: f64,
    last_ms: f64,
    true_rel: f64,
    estimate: f64,
    ok: bool,
    /// One CGS pass at the last step (`h = V w`, `w - V^T h`; m rows).
    pass_ms: f64,
    /// `||w||` of an n-vector as gmres computes it (`w.w` on the engine,
    /// the root on the host).
    nrm2_ms: f64,
}

/// One GMRES(m) cycle (m steps, tol 0) on `R + 2 sqrt(n) I` of order `n`
/// at `prec` bits, each step timed (wall clock between the progress
/// calls; each step ends in a download from the device), against the median of 5 `gemv`s `A v` of the same
/// matrix on the same engine. The first step (after the residual and its
/// norm) is left out of the mean. Checked: the true residual `||b - A x||`
/// (each element rounded once) agrees with the cycle's estimate `|g_m|` to
/// 1e-6 relative.
fn gmres_step(engine: &Engine, n: usize, m: usize, prec: u64, ortho: Ortho) -> Result<StepRow> {
    let (am, b) = shifted_random(engine, n, prec)?;
    let one = FloatArray::from_f64s(prec, &[1.0], Round::Nearest)?
        .0
        .into_engine(engine)?;
    let x = FloatArray::random_unit(engine, n, prec, 11)?;
    let gv = Gemv {
        prec,
        ..Gemv::default()
    };
    let (times, _) = super::time_runs(engine, 1, 5, || Ok(am.gemv(&one, &x, None, &gv)?.0))?;
    let gemv_ms = super::median(&times);
    // The parts of a step at its most expensive (j = m - 1): a CGS pass
    // over m rows, and the norm.
    let vm = Matrix::<FloatArray>::random(engine, m, n, prec, 13)?;
    let gt = Gemv {
        op: Op::Trans,
        ..gv
    };
    let minus_one = one.neg(prec, Round::Nearest)?;
    // As gmres does it: the coefficients at 2p + 64 bits, the norm as the
    // root of w.w at p + 64 bits.
    let gw = Gemv {
        prec: 2 * prec + 64,
        ..gv
    };
    let (times, _) = super::time_runs(engine, 1, 5, || {
        let h = vm.gemv(&one, &x, None, &gw)?.0;
        Ok(vm.gemv(&minus_one, &h, Some((&one, &x)), &gt)?.0)
    })?;
    let pass_ms = super::median(&times);
    let (times, _) = super::time_runs(engine, 1, 5, || {
        let d = x.dot(&x, prec + 64, Round::Nearest)?.0;
        d.to_engine(&Engine::Cpu)?.sqrt(prec, Round::Nearest)
    })?;
    let nrm2_ms = super::median(&times);
    let o = GmresOpts {
        restart: m,
        tol: 0.0,
        prec,
        max_restarts: 1,
        ortho,
    };
    // No synchronisation in the callback (it would stall the device's
    // queue of launches): every step waits for a download from the device
    // (its projections, or its norm), so the host's clock between steps
    // follows the device's.
    let mut stamps = Vec::with_capacity(m);
    let mut progress = |_: usize, _: f64| {
        stamps.push(std::time::Instant::now());
    };
    let r = gmres_with(&am, &b, None, &o, &mut progress)?;
    let steps: Vec<f64> = stamps
        .windows(2)
        .map(|w| (w[1] - w[0]).as_secs_f64() * 1e3)
        .collect();
    let mean_ms = steps.iter().sum::<f64>() / steps.len().max(1) as f64;
    let last_ms = steps.last().copied().unwrap_or(f64::NAN);
    let true_rel = *r.true_residuals.last().unwrap_or(&f64::NAN);
    let estimate = *r.history.last().unwrap_or(&f64::NAN);
    let ok = r.iterations == m && (true_rel / estimate - 1.0).abs() < 1e-6;
    Ok(StepRow {
        n,
        prec,
        m,
        ortho: match ortho {
            Ortho::Dgks => "dgks",
            Ortho::Cgs2 => "cgs2",
            Ortho::Mgs => "mgs",
        },
        gemv_ms,
        mean_ms,
        last_ms,
        true_rel,
        estimate,
        ok,
        pass_ms,
        nrm2_ms,
    })
}

fn print_step(r: &StepRow, head: bool) {
    if head {
        println!(
            "\n{:<16} {:>5} {:>5} {:>4} {:<6} {:>10} {:>11} {:>11} {:>7} {:>7} {:>12} {:>12} {:>9} {:>9} check",
            "gmres step",
            "n",
            "bits",
            "m",
            "ortho",
            "gemv ms",
            "step ms",
            "last ms",
            "ratio",
            "last/g",
            "||r||/||b||",
            "estimate",
            "pass ms",
            "norm ms"
        );
    }
    println!(
        "{:<16} {:>5} {:>5} {:>4} {:<6} {:>10.3} {:>11.3} {:>11.3} {:>7.2} {:>7.2} {:>12.3e} {:>12.3e} {:>9.3} {:>9.3} {}",
        "random+2sqrt(n)I",
        r.n,
        r.prec,
        r.m,
        r.ortho,
        r.gemv_ms,
        r.mean_ms,
        r.last_ms,
        r.mean_ms / r.gemv_ms,
        r.last_ms / r.gemv_ms,
        r.true_rel,
        r.estimate,
        r.pass_ms,
        r.nrm2_ms,
        if r.ok { "ok" } else { "FAILED" }
    );
}

fn print_gmres(r: &GmresRow, head: bool) {
    if head {
        println!(
            "\n{:<22} {:>5} {:>5} {:>11} {:>6} {:>8} {:>10} {:>14} converged",
            "gmres problem", "n", "bits", "ms", "steps", "restarts", "ms/step", "||r||/||b||"
        );
    }
    println!(
        "{:<22} {:>5} {:>5} {:>11.1} {:>6} {:>8} {:>10.2} {:>14.3e} {}",
        r.problem,
        r.n,
        r.prec,
        r.ms,
        r.steps,
        r.restarts,
        r.ms / r.steps.max(1) as f64,
        r.rel_residual,
        if r.converged { "yes" } else { "no" }
    );
}

/// `R + 2 sqrt(n) I` with R uniform in [-1, 1) (seeded, on the engine),
/// and `b` all ones.
fn shifted_random(
    engine: &Engine,
    n: usize,
    prec: u64,
) -> Result<(Matrix<FloatArray>, FloatArray)> {
    let r = Matrix::<FloatArray>::random(engine, n, n, prec, 7)?;
    let s = 2.0 * (n as f64).sqrt();
    let d: Vec<f64> = (0..n * n)
        .map(|k| if k / n == k % n { s } else { 0.0 })
        .collect();
    let d = FloatArray::from_f64s(prec, &d, Round::Nearest)?
        .0
        .into_engine(engine)?;
    let a = r.into_data().add(&d, prec, Round::Nearest)?;
    let b = FloatArray::from_f64s(prec, &vec![1.0; n], Round::Nearest)?
        .0
        .into_engine(engine)?;
    Ok((Matrix::from_array(a, n, n)?, b))
}
