//! `mparray bench func`: correctly rounded elementary functions (issue 5) on
//! float arrays, each function at 128..2048 bits, batches of 4096 (the
//! published GPU port's size) and 2^20 elements (divided by 2^scale): ops
//! per second and the share of elements that needed a Ziv retry. Each case
//! checks a sample (first and last element included) and its ternary values
//! against the independent reference (`float::func::reference`) before its
//! figure is printed. The MPFR one-core figures at 512 bits are
//! printed alongside.

use clap::Args;
use malachite_float::ComparableFloatRef;

use super::{median, time_runs};
use crate::engine::Engine;
use crate::error::CommandError;
use crate::float::func::reference::{malachite_func2, reference};
use crate::float::func::{Func, Func2};
use crate::float::{FloatArray, Round};

#[derive(Args, Clone)]
pub struct FuncBenchArgs {
    /// Engine: cpu or cuda (exp, exp2, log, sin, cos, atan, tan, atan2,
    /// hypot, pow, agm on the device; the other functions through the CPU
    /// engine).
    #[arg(long, default_value = "cpu")]
    engine: String,
    /// Divide the batches (4096 and 2^20 elements) by 2^K.
    #[arg(long, default_value_t = 0)]
    scale: u32,
    /// Precisions in bits (default 128,256,512,1024,2048).
    #[arg(long, value_delimiter = ',')]
    precs: Vec<u64>,
    /// Functions (default all: exp,log,sin,cos,atan,tan,exp2,log2,log10,cbrt,
    /// expm1,log1p,sinh,cosh,tanh,asinh,acosh,atanh,asin,acos,atan2,hypot,pow,agm).
    #[arg(long, value_delimiter = ',')]
    funcs: Vec<String>,
    /// Batch sizes before scaling (default 4096,1048576).
    #[arg(long, value_delimiter = ',')]
    batches: Vec<usize>,
    /// Seconds on a laptop, the same checks: one batch of 64 elements
    /// (complex: 16) unless batches are named.
    #[arg(long)]
    quick: bool,
    /// Timed runs per case (the median is reported).
    #[arg(long, default_value_t = 1)]
    runs: usize,
    /// Rounding mode (N, Z, U, D, A).
    #[arg(long, default_value = "N")]
    round: String,
    /// Elements checked against the reference per case.
    #[arg(long, default_value_t = 8)]
    check: usize,
    /// Complex functions (GNU MPC semantics, on the chosen engine): a list of
    /// sqrt,exp,log,sin,cos,tan,sinh,cosh,tanh,atan,asin,acos,pow, or "all"
    /// (default none).
    #[arg(long, value_delimiter = ',')]
    complex: Vec<String>,
    /// Precisions of the complex cases (both parts; default 256,1024).
    #[arg(long, value_delimiter = ',')]
    complex_precs: Vec<u64>,
    /// Batch sizes of the complex cases before scaling (default 4096,65536).
    #[arg(long, value_delimiter = ',')]
    complex_batches: Vec<usize>,
    /// Seed of the random inputs.
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// Print JSON instead of a table.
    #[arg(long)]
    json: bool,
}

/// The MPFR 4.2.2 one-core figures at 512 bits (ops/s).
fn mpfr_512(f: Func) -> Option<f64> {
    match f {
        Func::Exp => Some(200e3),
        Func::Log => Some(81.6e3),
        Func::Sin => Some(212e3),
        Func::Cos => Some(216e3),
        Func::Atan => Some(52.6e3),
        _ => None,
    }
}

/// A one- or two-argument function.
#[derive(Clone, Copy)]
enum Case {
    F1(Func),
    F2(Func2),
}

impl Case {
    fn name(self) -> &'static str {
        match self {
            Case::F1(f) => f.name(),
            Case::F2(f) => f.name(),
        }
    }

    fn mpfr_512(self) -> Option<f64> {
        match self {
            Case::F1(f) => mpfr_512(f),
            Case::F2(_) => None,
        }
    }
}

/// The two arguments of a two-argument function: random mantissas and
/// signs, exponents in [-16, 16] (positive bases for pow, positive agm
/// operands, exponents in [-4, 4] for pow's exponent).
fn inputs2(
    f: Func2,
    len: usize,
    p: u64,
    seed: u64,
) -> crate::error::Result<(FloatArray, FloatArray)> {
    let x = FloatArray::random_exp(&Engine::Cpu, len, p, seed, -16, 16)?;
    let y = FloatArray::random_exp(&Engine::Cpu, len, p, seed ^ 0x5eed, -16, 16)?;
    Ok(match f {
        Func2::Atan2 | Func2::Hypot => (x, y),
        Func2::Pow => (
            x.abs(p, Round::Nearest)?,
            FloatArray::random_exp(&Engine::Cpu, len, p, seed ^ 0x5eed, -4, 4)?,
        ),
        Func2::Agm => (x.abs(p, Round::Nearest)?, y.abs(p, Round::Nearest)?),
    })
}

/// The arguments: random mantissas, random signs, exponents in a range
/// that fits the function (positive for log).
fn inputs(f: Func, len: usize, p: u64, seed: u64) -> crate::error::Result<FloatArray> {
    let (lo, hi) = match f {
        Func::Exp | Func::Exp2 => (-16, 4),
        Func::Log | Func::Log2 | Func::Log10 => (-64, 64),
        Func::Sin | Func::Cos | Func::Tan => (-16, 8),
        Func::Atan => (-16, 16),
        Func::Cbrt | Func::Asinh | Func::Sinh | Func::Cosh | Func::Tanh => (-16, 8),
        Func::Expm1 => (-16, 4),
        Func::Log1p | Func::Acosh => (-16, 16),
        Func::Atanh | Func::Asin | Func::Acos => (-16, 0),
    };
    let x = FloatArray::random_exp(&Engine::Cpu, len, p, seed, lo, hi)?;
    if matches!(
        f,
        Func::Log | Func::Log2 | Func::Log10 | Func::Log1p | Func::Acosh
    ) {
        let a = x.abs(p, Round::Nearest)?;
        if f == Func::Acosh {
            // 1 + |x| >= 1.
            let one = FloatArray::from_i64s(p, &vec![1; len], Round::Nearest)?.0;
            return a.add(&one, p, Round::Nearest);
        }
        Ok(a)
    } else {
        Ok(x)
    }
}

pub fn run(a: FuncBenchArgs) -> std::result::Result<(), CommandError> {
    let engine = super::engine(&a.engine)?;
    if a.scale > 12 {
        return Err(CommandError::Input("--scale is at most 12".into()));
    }
    let rnd = Round::from_name(&a.round)?;
    let precs = if a.precs.is_empty() {
        vec![128, 256, 512, 1024, 2048]
    } else {
        a.precs.clone()
    };
    for &p in precs.iter().chain(&a.complex_precs) {
        crate::float::check_prec(p)?;
    }
    complex_funcs(&a)?;
    let funcs: Vec<Case> = if a.funcs.is_empty() {
        Func::ALL
            .into_iter()
            .map(Case::F1)
            .chain(Func2::ALL.into_iter().map(Case::F2))
            .collect()
    } else {
        a.funcs
            .iter()
            .map(|s| {
                Func::from_name(s)
                    .map(Case::F1)
                    .or_else(|| Func2::from_name(s).map(Case::F2))
                    .ok_or_else(|| CommandError::Input(format!("unknown function {s:?}")))
            })
            .collect::<Result<Vec<_>, _>>()?
    };
    let batches: Vec<usize> = if !a.batches.is_empty() {
        a.batches.clone()
    } else if a.quick {
        vec![64]
    } else {
        vec![4096, 1 << 20]
    }
    .into_iter()
    .map(|b| (b >> a.scale).max(1))
    .collect();
    if !a.json {
        println!(
            "bench func on {}, rounding {:?}, median of {} runs",
            engine.describe(),
            rnd,
            a.runs.max(1)
        );
        println!(
            "{:>5} {:>6} {:>8} {:>10} {:>12} {:>8} {:>10} check",
            "fn", "prec", "len", "ms", "ops/s", "retry%", "MPFR-512"
        );
    }
    let mut rows = Vec::new();
    let mut all_ok = true;
    for &case in &funcs {
        for &p in &precs {
            for &len in &batches {
                let (x, y) = match case {
                    Case::F1(f) => (inputs(f, len, p, a.seed)?, None),
                    Case::F2(f) => {
                        let (x, y) = inputs2(f, len, p, a.seed)?;
                        (x, Some(y))
                    }
                };
                // On CUDA one warm-up run (NVRTC, the tier's constants),
                // then timed by events: the launch, the flag count's copy
                // back and the host's patching of flagged elements.
                let warm = usize::from(engine.is_cuda());
                // The inputs move to the engine (no copy on the CPU, so the
                // timed arrays are the ones drawn there); the check reads
                // them back afterwards.
                let xd = x.into_engine(&engine)?;
                let yd = y.map(|y| y.into_engine(&engine)).transpose()?;
                let (times, (r, t, st)) = time_runs(&engine, warm, a.runs.max(1), || match case {
                    Case::F1(f) => xd.func_ternary(f, p, rnd),
                    Case::F2(f) => xd.func2_ternary(yd.as_ref().unwrap(), f, p, rnd),
                })?;
                let (r, t) = (r.to_host()?, t.to_vec()?);
                let (x, y) = (xd.to_host()?, yd.as_ref().map(|y| y.to_host()).transpose()?);
                // Sample: first, last and spread.
                let k = a.check.max(2).min(len);
                let mut idx: Vec<usize> = (0..k).map(|j| j * (len - 1) / (k - 1).max(1)).collect();
                idx.dedup();
                let ok = idx.iter().all(|&i| {
                    let xi = x.to_float(i).expect("a host array");
                    let want = &match case {
                        Case::F1(f) => reference(f, &xi, p)
                            [Round::ALL.iter().position(|&m| m == rnd).unwrap()]
                        .clone(),
                        Case::F2(f) => {
                            let yi = y.as_ref().unwrap().to_float(i).expect("a host array");
                            malachite_func2(f, &xi, &yi, p, crate::float::to_rounding_mode(rnd))
                        }
                    };
                    ComparableFloatRef(&r.to_float(i).expect("a host array"))
                        == ComparableFloatRef(&want.0)
                        && t[i].cmp(&0) == want.1
                });
                all_ok &= ok;
                let ms = median(&times);
                let ops = len as f64 / (ms / 1e3);
                let share = st.retried as f64 / st.elements.max(1) as f64;
                if !a.json {
                    println!(
                        "{:>5} {:>6} {:>8} {:>10.2} {:>12.4e} {:>8.3} {:>10} {} ({} checked)",
                        case.name(),
                        p,
                        len,
                        ms,
                        ops,
                        100.0 * share,
                        match case.mpfr_512() {
                            Some(m) if p == 512 => format!("{m:.3e}"),
                            _ => "-".into(),
                        },
                        if ok { "ok" } else { "FAILED" },
                        idx.len()
                    );
                }
                rows.push(serde_json::json!({
                    "fn": case.name(), "prec": p, "len": len, "median_ms": ms, "ops_per_s": ops,
                    "retried": st.retried, "retry_share": share, "checked": idx.len(), "ok": ok,
                    "device_retried": st.device_retried, "host": st.host,
                    "mpfr_1core_512": if p == 512 { case.mpfr_512() } else { None },
                }));
            }
        }
    }
    all_ok &= complex_cases(&a, &engine, rnd, &mut rows)?;
    if a.json {
        let v = serde_json::json!({
            "suite": "func", "engine": engine.describe(), "round": format!("{rnd:?}"),
            "threads": rayon::current_num_threads(), "runs": a.runs.max(1), "rows": rows,
        });
        println!("{v}");
    }
    if all_ok {
        Ok(())
    } else {
        Err(CommandError::Other(
            "a result differed from the reference".into(),
        ))
    }
}

/// The complex functions named by `--complex` (`None` is pow, which takes
/// two arguments), checked before any case runs so that a bad name fails
/// at once.
fn complex_funcs(a: &FuncBenchArgs) -> Result<Vec<Option<crate::complex::CFunc>>, CommandError> {
    use crate::complex::CFunc;
    let all: Vec<Option<CFunc>> = CFunc::ALL.into_iter().map(Some).chain([None]).collect();
    let name = |f: Option<CFunc>| f.map_or("pow", |f| f.name());
    if a.complex.iter().any(|s| s == "all") {
        return Ok(all);
    }
    a.complex
        .iter()
        .map(|s| {
            all.iter().copied().find(|&f| name(f) == s).ok_or_else(|| {
                CommandError::Input(format!(
                    "unknown complex function {s:?} (known: {}, all)",
                    all.iter().map(|&f| name(f)).collect::<Vec<_>>().join(", ")
                ))
            })
        })
        .collect()
}

/// The complex cases: random parts uniform in [-4, 4), each part rounded in
/// the one mode given; a sample's parts are checked against the
/// independent reference of `complex::reference` (at 4p + 128 bits), and a
/// part the reference cannot decide is left out of the count. On CUDA the
/// functions run on the device (src/complex/cuda_func.rs) and the retry
/// column shows the share of elements the CPU engine computed (host%).
fn complex_cases(
    a: &FuncBenchArgs,
    engine: &crate::engine::Engine,
    rnd: Round,
    rows: &mut Vec<serde_json::Value>,
) -> Result<bool, CommandError> {
    use crate::complex::reference::{reference as cref, reference_pow};
    use crate::complex::{CFunc, CRound, ComplexArray};
    let funcs = complex_funcs(a)?;
    let name = |f: Option<CFunc>| f.map_or("pow", |f| f.name());
    if funcs.is_empty() {
        return Ok(true);
    }
    let precs = if a.complex_precs.is_empty() {
        vec![256, 1024]
    } else {
        a.complex_precs.clone()
    };
    let batches: Vec<usize> = if !a.complex_batches.is_empty() {
        a.complex_batches.clone()
    } else if a.quick {
        vec![16]
    } else {
        vec![4096, 1 << 16]
    }
    .into_iter()
    .map(|b| (b >> a.scale).max(1))
    .collect();
    let crnd = CRound::both(rnd);
    let mut all_ok = true;
    for &f in &funcs {
        for &p in &precs {
            for &len in &batches {
                let re = FloatArray::random_uniform(
                    &Engine::Cpu,
                    len,
                    p,
                    a.seed,
                    -4.0,
                    4.0,
                    Round::Nearest,
                )?;
                let im = FloatArray::random_uniform(
                    &Engine::Cpu,
                    len,
                    p,
                    a.seed ^ 0x5555,
                    -4.0,
                    4.0,
                    Round::Nearest,
                )?;
                let (xre, xim) = (re.try_clone()?, im.try_clone()?);
                let x = ComplexArray::new(re, im)?;
                let yre = FloatArray::random_uniform(
                    &Engine::Cpu,
                    len,
                    p,
                    a.seed ^ 0x7777,
                    -4.0,
                    4.0,
                    Round::Nearest,
                )?;
                let yim = FloatArray::random_uniform(
                    &Engine::Cpu,
                    len,
                    p,
                    a.seed ^ 0x3333,
                    -4.0,
                    4.0,
                    Round::Nearest,
                )?;
                let y = ComplexArray::new(yre.try_clone()?, yim.try_clone()?)?;
                // On CUDA: one warm-up run (NVRTC, constants), then timed
                // by events including the host's patching; the host share
                // is the elements the CPU engine computed.
                let warm = usize::from(engine.is_cuda());
                let (xd, yd) = (x.to_engine(engine)?, y.to_engine(engine)?);
                let (times, (r, t, host)) = time_runs(engine, warm, a.runs.max(1), || match f {
                    Some(f) => xd.func_ternary_stats(f, p, p, crnd),
                    None => xd.pow_ternary_stats(&yd, p, p, crnd),
                })?;
                let (r, t) = (r.into_parts(), t.to_pairs()?);
                let r = (r.0.to_host()?, r.1.to_host()?);
                let host_share = host.map(|st| st.host as f64 / st.elements.max(1) as f64);
                let k = a.check.max(2).min(len);
                let mut idx: Vec<usize> = (0..k).map(|j| j * (len - 1) / (k - 1).max(1)).collect();
                idx.dedup();
                let (mut checked, mut ok) = (0usize, true);
                for &i in &idx {
                    let (xa, xb) = (xre.to_float(i)?, xim.to_float(i)?);
                    let want = match f {
                        Some(f) => cref(f, &xa, &xb, 4 * p + 128),
                        None => {
                            let (ya, yb) = (yre.to_float(i)?, yim.to_float(i)?);
                            reference_pow((&xa, &xb), (&ya, &yb), 4 * p + 128)
                        }
                    };
                    let Some((wr, wi)) = want else {
                        continue;
                    };
                    for (part, want, tern) in [
                        (&r.0, wr.round(p, rnd), t[i].0),
                        (&r.1, wi.round(p, rnd), t[i].1),
                    ] {
                        if let Some(w) = want {
                            checked += 1;
                            ok &= ComparableFloatRef(&part.to_float(i)?)
                                == ComparableFloatRef(&w.0)
                                && tern.cmp(&0) == w.1;
                        }
                    }
                }
                all_ok &= ok;
                let ms = median(&times);
                let ops = len as f64 / (ms / 1e3);
                let name = format!("c_{}", name(f));
                if !a.json {
                    println!(
                        "{:>5} {:>6} {:>8} {:>10.2} {:>12.4e} {:>8} {:>10} {} ({} parts checked)",
                        name,
                        p,
                        len,
                        ms,
                        ops,
                        host_share.map_or("-".into(), |h| format!("{:.3}", 100.0 * h)),
                        "-",
                        if ok { "ok" } else { "FAILED" },
                        checked
                    );
                }
                rows.push(serde_json::json!({
                    "fn": name, "prec": p, "len": len, "median_ms": ms, "ops_per_s": ops,
                    "retried": null, "retry_share": null, "checked": checked, "ok": ok,
                    "complex": true, "host_share": host_share,
                }));
            }
        }
    }
    Ok(all_ok)
}
