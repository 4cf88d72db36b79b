//! `mparray bench float`: ops per second for add, mul, div, sqrt and fma on
//! float arrays at precisions 128..2048 bits, batches of 2^20 elements
//! (divided by 2^scale), MPFR's issue-3 protocol. Inputs are random floats
//! with exponents in -16..=16; each case checks a sample of 64 elements
//! (first and last included) and their ternary values against
//! malachite-float before its figure is printed.

use std::cmp::Ordering;

use clap::{Args, ValueEnum};
use malachite_base::rounding_modes::RoundingMode;
use malachite_float::{ComparableFloatRef, Float};

use super::{median, time_runs};
use crate::engine::Engine;
use crate::error::CommandError;
use crate::error::Result;
use crate::float::{FloatArray, FloatOp, Round, TernaryArray, to_rounding_mode};

#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum Op {
    Add,
    Mul,
    Div,
    Sqrt,
    Fma,
}

impl Op {
    fn name(self) -> &'static str {
        match self {
            Op::Add => "add",
            Op::Mul => "mul",
            Op::Div => "div",
            Op::Sqrt => "sqrt",
            Op::Fma => "fma",
        }
    }
}

#[derive(Args, Clone)]
pub struct FloatBenchArgs {
    /// Engine: cpu or cuda (cuda: batches of 2^22 elements, inputs uploaded
    /// before timing, device events).
    #[arg(long, default_value = "cpu")]
    engine: String,
    /// Divide the batch (2^20 elements on the CPU, 2^22 on CUDA) by 2^K.
    #[arg(long)]
    scale: Option<u32>,
    /// Batches of 2^10 elements on either engine (seconds on a laptop),
    /// the same checks (an explicit --scale wins).
    #[arg(long)]
    quick: bool,
    /// Precisions in bits (default 128,256,512,1024,2048).
    #[arg(long, value_delimiter = ',')]
    precs: Vec<u64>,
    /// Operations (default all).
    #[arg(long, value_enum, value_delimiter = ',')]
    ops: Vec<Op>,
    /// Timed runs per case (the median is reported).
    #[arg(long, default_value_t = 3)]
    runs: usize,
    /// Rounding mode (N, Z, U, D, A).
    #[arg(long, default_value = "N")]
    round: String,
    /// Seed of the random inputs.
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// Print JSON instead of a table.
    #[arg(long)]
    json: bool,
}

struct Row {
    prec: u64,
    op: Op,
    len: usize,
    median_ms: f64,
    ops_per_s: f64,
    checked: usize,
    ok: bool,
}

pub fn run(a: FloatBenchArgs) -> std::result::Result<(), CommandError> {
    let engine = super::engine(&a.engine)?;
    // The GPU bars are for batches of 2^22, the CPU protocol 2^20.
    let log_len = if engine.is_cuda() { 22 } else { 20 };
    let scale = match (a.scale, a.quick) {
        (Some(s), _) => s,
        (None, true) => log_len - 10,
        (None, false) => 0,
    };
    if scale > log_len {
        return Err(CommandError::Input(format!("--scale is at most {log_len}")));
    }
    let rnd = Round::from_name(&a.round)?;
    let len = 1usize << (log_len - scale);
    let precs = if a.precs.is_empty() {
        vec![128, 256, 512, 1024, 2048]
    } else {
        a.precs.clone()
    };
    let ops = if a.ops.is_empty() {
        vec![Op::Add, Op::Mul, Op::Div, Op::Sqrt, Op::Fma]
    } else {
        a.ops.clone()
    };
    if !a.json {
        println!(
            "bench float on {}: {len} elements per batch, rounding {:?}, median of {} runs",
            engine.describe(),
            rnd,
            a.runs.max(1)
        );
        println!(
            "{:>6} {:>5} {:>10} {:>14} check",
            "prec", "op", "ms", "ops/s"
        );
    }
    let mut rows = Vec::new();
    let mut all_ok = true;
    let cpu = Engine::Cpu;
    for &p in &precs {
        let x = FloatArray::random_exp(&cpu, len, p, a.seed, -16, 16)?;
        let y = FloatArray::random_exp(&cpu, len, p, a.seed ^ 0x5555, -16, 16)?;
        let z = FloatArray::random_exp(&cpu, len, p, a.seed ^ 0xaaaa, -16, 16)?;
        let xa = x.abs(p, Round::Nearest)?;
        // Moved to the engine (no copy on the CPU, so the timed arrays are
        // the ones drawn there); host copies for the check.
        let on = |v: FloatArray| v.into_engine(&engine);
        let (ex, ey, ez, exa) = (on(x)?, on(y)?, on(z)?, on(xa)?);
        let host = |v: &FloatArray| v.to_host();
        let (x, y, z, xa) = (host(&ex)?, host(&ey)?, host(&ez)?, host(&exa)?);
        // Results go into preallocated arrays (the `*_into` form): fresh
        // memory per run would cost page faults comparable to an add.
        let mut out = FloatArray::zeros(&engine, len, p)?;
        let mut tern = TernaryArray::zeros(&engine, len)?;
        for &op in &ops {
            let (fop, first, more): (FloatOp, &FloatArray, Vec<&FloatArray>) = match op {
                Op::Add => (FloatOp::Add, &ex, vec![&ey]),
                Op::Mul => (FloatOp::Mul, &ex, vec![&ey]),
                Op::Div => (FloatOp::Div, &ex, vec![&ey]),
                Op::Sqrt => (FloatOp::Sqrt, &exa, vec![]),
                Op::Fma => (FloatOp::Fma, &ex, vec![&ey, &ez]),
            };
            let (times, ()) = time_runs(&engine, 1, a.runs.max(1), || -> Result<()> {
                first.op_into(fop, &more, &mut out, rnd, Some(&mut tern))
            })?;
            let res = (out.to_host()?, tern.to_vec()?);
            let out_ref = &res;
            let (checked, ok) = check(
                op,
                &x,
                &xa,
                &y,
                &z,
                out_ref,
                p,
                to_rounding_mode(rnd),
                a.seed,
            );
            all_ok &= ok;
            let ms = median(&times);
            let row = Row {
                prec: p,
                op,
                len,
                median_ms: ms,
                ops_per_s: len as f64 / (ms / 1e3),
                checked,
                ok,
            };
            if !a.json {
                println!(
                    "{:>6} {:>5} {:>10.3} {:>14.4e} {} ({} checked)",
                    row.prec,
                    op.name(),
                    row.median_ms,
                    row.ops_per_s,
                    if ok { "ok" } else { "FAILED" },
                    checked
                );
            }
            rows.push(row);
        }
    }
    if a.json {
        let items: Vec<serde_json::Value> = rows
            .iter()
            .map(|r| {
                serde_json::json!({
                    "prec": r.prec, "op": r.op.name(), "len": r.len,
                    "median_ms": r.median_ms, "ops_per_s": r.ops_per_s,
                    "checked": r.checked, "ok": r.ok,
                })
            })
            .collect();
        let v = serde_json::json!({
            "suite": "float", "engine": engine.describe(), "round": format!("{rnd:?}"),
            "runs": a.runs.max(1), "rows": items,
        });
        println!("{v}");
    }
    if all_ok {
        Ok(())
    } else {
        Err(CommandError::Other(
            "a result differed from malachite-float".into(),
        ))
    }
}

/// Checks 64 elements (first, last and spread) against malachite-float.
#[allow(clippy::too_many_arguments)]
fn check(
    op: Op,
    x: &FloatArray,
    xa: &FloatArray,
    y: &FloatArray,
    z: &FloatArray,
    out: &(FloatArray, Vec<i8>),
    p: u64,
    m: RoundingMode,
    seed: u64,
) -> (usize, bool) {
    let n = x.len();
    let mut idx: Vec<usize> = (0..62)
        .map(|k| ((seed.wrapping_mul(0x9e37_79b9) as usize).wrapping_add(k * 7919)) % n.max(1))
        .collect();
    idx.extend([0, n.saturating_sub(1)]);
    idx.sort_unstable();
    idx.dedup();
    let ok = idx.iter().all(|&i| {
        let f = |v: &FloatArray| v.to_float(i).expect("a host array");
        let (a, b, c) = (f(x), f(y), f(z));
        let (w, o): (Float, Ordering) = match op {
            Op::Add => a.add_prec_round_ref_ref(&b, p, m),
            Op::Mul => a.mul_prec_round_ref_ref(&b, p, m),
            Op::Div => a.div_prec_round_ref_ref(&b, p, m),
            Op::Sqrt => f(xa).sqrt_prec_round_ref(p, m),
            Op::Fma => c.add_mul_prec_round_ref_ref_ref(&a, &b, p, m),
        };
        ComparableFloatRef(&f(&out.0)) == ComparableFloatRef(&w) && out.1[i].cmp(&0) == o
    });
    (idx.len(), ok)
}
