//! `mparray bench expr`: float expressions fused into one kernel against
//! the unfused chain of FloatArray operations (every intermediate an array
//! at the output precision; with functions, `exp(a*b)+c`, the fused
//! segments and the library's function kernels, notes/expr.md), at 512 bits over 2^22 elements on CUDA (2^20
//! on the CPU) by default, and the time of the first compile of a new
//! expression shape. Every case checks that the fused result equals the
//! chain's bit for bit, and a sample of 16 elements against malachite-float
//! evaluating the same operations one rounding each.
//!
//! (The integer expression cases are in `mparray bench int --cases
//! poly-eval,add6-eval,poly-chain,add6-chain`.)

use clap::Args;
use malachite_float::{ComparableFloatRef, Float};

use super::{median, time_runs};
use crate::engine::Engine;
use crate::error::{CommandError, Result};
use crate::expr::{self, Expr, Node, Op};
use crate::float::{FloatArray, Round, to_rounding_mode};

/// The default expressions: a*b+c*d (3 operations), then 4 (with a product
/// or a division) and 5 operations over distinct inputs; then expressions
/// whose inputs repeat, as users write them: (a+b)*(a-b)+a (4 operations
/// over 2 inputs), a*a*a+b (3 over 2), the polynomial (a*x+b)*x+c in x with
/// array coefficients (4 over 4).
pub const DEFAULT_EXPRS: [&str; 7] = [
    "a*b+c*d",
    "(a*b+c*d)*e",
    "(a*b+c*d)/e",
    "(a*b+c*d)*e-f",
    "(a+b)*(a-b)+a",
    "a*a*a+b",
    "(a*x+b)*x+c",
];

#[derive(Args, Clone)]
pub struct ExprBenchArgs {
    /// Engine: cpu, cuda or auto.
    #[arg(long, default_value = "auto")]
    engine: String,
    /// Precision in bits of inputs, intermediates and result.
    #[arg(long, default_value_t = 512)]
    prec: u64,
    /// log2 of the elements (default 22 on CUDA, 20 on the CPU).
    #[arg(long)]
    log_len: Option<u32>,
    /// Expressions over inputs a, b, c, ... (default [`DEFAULT_EXPRS`]).
    #[arg(long = "expr")]
    exprs: Vec<String>,
    /// Timed runs (median).
    #[arg(long, default_value_t = 5)]
    runs: usize,
    /// Rounding mode.
    #[arg(long, default_value = "N")]
    round: String,
    /// Print JSON instead of a table.
    #[arg(long)]
    json: bool,
    /// Variants of the fused kernel timed in alternation on the same
    /// inputs (measurements), each "NAME=VALUE,..." over the
    /// `MPARRAY_EXPR_*` variables (an empty one: the environment alone),
    /// e.g. `--variants "" --variants MPARRAY_EXPR_OPT=ps`.
    #[arg(long = "variants")]
    variants: Vec<String>,
}

/// malachite-float on one element: the same operations, one rounding each
/// (a function: the library's independent reference, float::func::reference,
/// for a finite nonzero operand; None, no check, for other operands and
/// for the two-argument functions).
fn reference(e: &Expr, xs: &[Float], p: u64, rnd: Round) -> Option<Float> {
    let m = to_rounding_mode(rnd);
    let mut v: Vec<Option<Float>> = vec![None; e.nodes().len()];
    let live = e.live();
    for (i, n) in e.nodes().iter().enumerate() {
        if !live[i] {
            continue;
        }
        v[i] = Some(match n {
            Node::Input(k) => xs[*k].clone(),
            Node::Const(c) => {
                let a = FloatArray::from_strs_ternary(p, &[c.as_str()], rnd).expect("constant");
                a.0.to_float(0).expect("host")
            }
            Node::Op(op, a) => {
                let x = |j: usize| v[a[j]].clone().expect("topological");
                match op {
                    Op::Add => x(0).add_prec_round(x(1), p, m).0,
                    Op::Sub => x(0).sub_prec_round(x(1), p, m).0,
                    Op::Mul => x(0).mul_prec_round(x(1), p, m).0,
                    Op::Div => x(0).div_prec_round(x(1), p, m).0,
                    Op::Sqrt => x(0).sqrt_prec_round(p, m).0,
                    Op::Fma => x(2).add_mul_prec_round(x(0), x(1), p, m).0,
                    Op::Neg => {
                        let mut y = -x(0);
                        y.set_prec_round(p, m);
                        y
                    }
                    Op::Func(f) => {
                        let y = x(0);
                        if !y.is_finite() || y == 0u32 {
                            return None;
                        }
                        let k = Round::ALL.iter().position(|&r| r == rnd).expect("mode");
                        crate::float::func::reference::reference(*f, &y, p)[k]
                            .0
                            .clone()
                    }
                    _ => return None,
                }
            }
        });
    }
    v[e.root()].clone()
}

pub fn run(a: ExprBenchArgs) -> std::result::Result<(), CommandError> {
    let engine = super::engine(&a.engine)?;
    let rnd = Round::from_name(&a.round)?;
    let p = a.prec;
    crate::float::check_prec(p)?;
    let log_len = a.log_len.unwrap_or(if engine.is_cuda() { 22 } else { 20 });
    if log_len > 26 {
        return Err(CommandError::Input("--log-len is at most 26".into()));
    }
    let len = 1usize << log_len;
    let texts: Vec<String> = if a.exprs.is_empty() {
        DEFAULT_EXPRS.iter().map(|s| s.to_string()).collect()
    } else {
        a.exprs.clone()
    };
    if !a.json {
        println!(
            "bench expr on {}: {len} elements at {p} bits, rounding {rnd:?}, median of {} runs",
            engine.describe(),
            a.runs.max(1)
        );
        println!(
            "{:>20} {:>5} {:>11} {:>11} {:>8} {:>12} check",
            "expression", "ops", "fused ms", "chain ms", "speedup", "compile ms"
        );
    }
    let cpu = Engine::Cpu;
    let mut all_ok = true;
    let mut rows = Vec::new();
    for (t, text) in texts.iter().enumerate() {
        let e = Expr::parse(text)?;
        e.check_kind(true)?;
        let nin = e.inputs().len();
        let host: Vec<FloatArray> = (0..nin)
            .map(|k| FloatArray::random_exp(&cpu, len, p, 11 + k as u64, -16, 16))
            .collect::<Result<_>>()?;
        let dev: Vec<FloatArray> = host
            .iter()
            .map(|h| h.to_engine(&engine))
            .collect::<Result<_>>()?;
        let refs: Vec<&FloatArray> = dev.iter().collect();
        let variants: Vec<Option<String>> = if a.variants.is_empty() {
            vec![None]
        } else {
            a.variants
                .iter()
                .map(|v| (!v.is_empty()).then(|| v.clone()))
                .collect()
        };
        // The first compile of a shape never seen: the same expression with
        // a fresh constant (a new canonical form, so a new kernel), with the
        // first variant.
        expr::cuda::set_knobs(variants[0].clone());
        let compile_ms = if engine.is_cuda() {
            let nonce = std::time::SystemTime::now()
                .duration_since(std::time::UNIX_EPOCH)
                .map(|d| d.as_nanos())
                .unwrap_or(0);
            let fresh = Expr::parse(&format!("({text})*1+{nonce}{t}e-99999"))?;
            let t0 = std::time::Instant::now();
            expr::eval_float(&fresh, &refs, p, rnd)?;
            engine.synchronize()?;
            Some(t0.elapsed().as_secs_f64() * 1e3)
        } else {
            None
        };
        let runs = a.runs.max(1);
        // Several variants: two passes over them, each variant's runs in a
        // block, so that every variant is timed early and late.
        let passes = if variants.len() > 1 { 2 } else { 1 };
        let mut tf: Vec<Vec<f64>> = vec![Vec::new(); variants.len()];
        let mut fused: Vec<Option<FloatArray>> = (0..variants.len()).map(|_| None).collect();
        for pass in 0..passes {
            for (j, v) in variants.iter().enumerate() {
                expr::cuda::set_knobs(v.clone());
                let (t, f) = time_runs(&engine, 1, runs, || expr::eval_float(&e, &refs, p, rnd))?;
                tf[j].extend(t);
                if pass + 1 == passes {
                    fused[j] = Some(f.to_host()?);
                }
            }
        }
        expr::cuda::set_knobs(None);
        let (tc, chain) = time_runs(&engine, 1, runs, || expr::chain_float(&e, &refs, p, rnd))?;
        let chain = chain.to_host()?;
        let ops = e
            .nodes()
            .iter()
            .filter(|n| matches!(n, Node::Op(..)))
            .count();
        let mc = median(&tc);
        for (j, v) in variants.iter().enumerate() {
            let fused = fused[j].take().expect("timed");
            let same = fused == chain;
            let n = fused.len();
            let idx: Vec<usize> = (0..16)
                .map(|k| (k * 2654435761usize) % n)
                .chain([n - 1])
                .collect();
            let mut checked = 0;
            let mal = idx.iter().all(|&i| {
                let xs: Vec<Float> = host.iter().map(|h| h.to_float(i).expect("host")).collect();
                let Some(want) = reference(&e, &xs, p, rnd) else {
                    return true;
                };
                checked += 1;
                ComparableFloatRef(&fused.to_float(i).expect("host")) == ComparableFloatRef(&want)
            });
            let ok = same && mal;
            all_ok &= ok;
            let mf = median(&tf[j]);
            let label = match v {
                Some(v) => format!("{text} [{v}]"),
                None if variants.len() > 1 => format!("{text} [env]"),
                None => text.clone(),
            };
            if !a.json {
                println!(
                    "{:>20} {:>5} {:>11.3} {:>11.3} {:>7.2}x {:>12} {}",
                    label,
                    ops,
                    mf,
                    mc,
                    mc / mf,
                    compile_ms
                        .filter(|_| j == 0)
                        .map_or("-".into(), |c| format!("{c:.0}")),
                    if ok {
                        format!("ok (= chain, {checked} vs malachite)")
                    } else if !same {
                        "FAILED (differs from the chain)".into()
                    } else {
                        "FAILED (differs from malachite)".into()
                    }
                );
            }
            rows.push(serde_json::json!({
                "expr": text, "variant": v, "ops": ops, "len": len, "prec": p,
                "fused_ms": mf, "chain_ms": mc, "speedup": mc / mf,
                "first_compile_ms": compile_ms.filter(|_| j == 0),
                "equal_to_chain": same, "malachite_ok": mal, "malachite_checked": checked,
            }));
        }
    }
    if a.json {
        println!(
            "{}",
            serde_json::json!({"suite": "expr", "engine": engine.describe(), "rows": rows})
        );
    }
    if all_ok {
        Ok(())
    } else {
        Err(CommandError::Other("a fused result differed".into()))
    }
}
