//! `mparray bench int`: the midsize-integer protocol of Oancea & Watt.
//!
//! NumBits = 2^12..2^19, NumInsts = 2^32 / NumBits (divided by 2^scale).
//! Cases: 1-Add, 6-Add (a+b+a+b+a+b+a fused), 1-Mul (low half), Poly
//! ((a*a+b)*(b*b+b)+a*b fused, low halves), Div (dividend of M-2 limbs,
//! divisor of 2..M/2 limbs, M = NumBits/64). Adds report GB/s with
//! bytes = 3*NumInsts*NumBits/8; the rest report milliseconds. Inputs are
//! generated on the engine; every case checks a random sample of instances
//! (or all of them) against malachite.

#[path = "int_nt.rs"]
mod nt;

use clap::{Args, ValueEnum};
use malachite_base::num::arithmetic::traits::DivMod;
use malachite_nz::natural::Natural;

use super::{median, time_runs};
use crate::engine::Engine;
use crate::error::CommandError;
use crate::error::{Error, Result};
use crate::int::{Fused, IntArray, random};

#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum Case {
    #[value(name = "add")]
    Add1,
    #[value(name = "add6")]
    Add6,
    #[value(name = "mul")]
    Mul1,
    Poly,
    Div,
    /// Number theory (issue 20): base^exp mod m.
    Powm,
    /// Number theory: gcd.
    Gcd,
    /// Number theory: modular inverse.
    Modinv,
    /// Number theory: floor square root with remainder.
    Isqrt,
    /// 6-Add through `expr::eval_int` ("a+b+a+b+a+b+a").
    #[value(name = "add6-eval")]
    Add6Eval,
    /// Poly through `expr::eval_int` ("(a*a+b)*(b*b+b)+a*b").
    #[value(name = "poly-eval")]
    PolyEval,
    /// 6-Add as the unfused chain of six library adds.
    #[value(name = "add6-chain")]
    Add6Chain,
    /// Poly as the unfused chain of library operations (CSE: 7 ops).
    #[value(name = "poly-chain")]
    PolyChain,
}

/// The expression texts of the eval and chain cases.
const ADD6_EXPR: &str = "a+b+a+b+a+b+a";
const POLY_EXPR: &str = "(a*a+b)*(b*b+b)+a*b";

impl Case {
    fn label(self) -> &'static str {
        match self {
            Case::Add1 => "1-Add",
            Case::Add6 => "6-Add",
            Case::Mul1 => "1-Mul",
            Case::Poly => "Poly",
            Case::Div => "Div",
            Case::Powm => "powm",
            Case::Gcd => "gcd",
            Case::Modinv => "modinv",
            Case::Isqrt => "isqrt",
            Case::Add6Eval => "6-Add-eval",
            Case::PolyEval => "Poly-eval",
            Case::Add6Chain => "6-Add-chain",
            Case::PolyChain => "Poly-chain",
        }
    }
    fn is_add(self) -> bool {
        matches!(
            self,
            Case::Add1 | Case::Add6 | Case::Add6Eval | Case::Add6Chain
        )
    }
    /// The hand-fused case computing the same function.
    fn base(self) -> Case {
        match self {
            Case::Add6Eval | Case::Add6Chain => Case::Add6,
            Case::PolyEval | Case::PolyChain => Case::Poly,
            c => c,
        }
    }
    /// The expression of an eval or chain case.
    fn expr(self) -> Option<crate::expr::Expr> {
        let t = match self.base() {
            Case::Add6 => ADD6_EXPR,
            Case::Poly => POLY_EXPR,
            _ => return None,
        };
        (self != self.base()).then(|| crate::expr::Expr::parse(t).expect("a valid expression"))
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum Verify {
    /// 64 random instances per case.
    Sample,
    /// Every instance.
    All,
}

#[derive(Args, Clone)]
pub struct IntBenchArgs {
    /// Engine: cpu, cuda or auto (the best found).
    #[arg(long, default_value = "auto")]
    engine: String,
    /// Divide NumInsts by 2^K (for smaller machines).
    #[arg(long)]
    scale: Option<u32>,
    /// Pick a scale that runs in seconds on a laptop.
    #[arg(long)]
    quick: bool,
    /// log2 of the sizes to run (default 12..19).
    #[arg(long, value_delimiter = ',')]
    sizes: Vec<u32>,
    /// Cases to run (default all).
    #[arg(long, value_enum, value_delimiter = ',')]
    cases: Vec<Case>,
    /// Timed runs per case (the median is reported).
    #[arg(long)]
    runs: Option<usize>,
    /// How many instances to check against malachite.
    #[arg(long, value_enum, default_value = "sample")]
    verify: Verify,
    /// Seed of the random inputs.
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// Print JSON instead of a table.
    #[arg(long)]
    json: bool,
    /// Also write the JSON report to this file (the table still prints).
    #[arg(long, value_name = "FILE")]
    json_out: Option<std::path::PathBuf>,
    /// Number-theory cases: the GMP harness to run beside
    /// (scripts/peers/gmpnt.c, built static).
    #[arg(long, value_name = "PATH")]
    gmp: Option<std::path::PathBuf>,
}

/// The best of the peers (CGBN, CudaP) measured on the H200, per log2 size:
/// 1-Add GB/s, 6-Add GB/s, 1-Mul ms, Poly ms, Div ms.
const PEERS: [(u32, [f64; 5]); 8] = [
    (12, [4379.0, 4380.0, 2.72, 11.17, 8.13]),
    (13, [3741.0, 2106.0, 5.07, 20.34, 11.44]),
    (14, [3740.0, 1605.0, 9.23, 36.74, 17.00]),
    (15, [3762.0, 1607.0, 17.08, 72.78, 48.05]),
    (16, [3761.0, 1608.0, 32.12, 135.5, 244.5]),
    (17, [3577.0, 1562.0, 62.08, 266.6, 452.7]),
    (18, [3238.0, 1428.0, 122.8, 495.3, 905.8]),
    (19, [2164.0, 1262.0, 247.4, 1001.8, 2976.0]),
];

fn peer(log: u32, case: Case) -> Option<f64> {
    let k = match case.base() {
        Case::Add1 => 0,
        Case::Add6 => 1,
        Case::Mul1 => 2,
        Case::Poly => 3,
        Case::Div => 4,
        _ => return None,
    };
    PEERS.iter().find(|p| p.0 == log).map(|p| p.1[k])
}

/// One measured case.
pub struct Row {
    pub log_bits: u32,
    pub insts: usize,
    pub case: Case,
    pub median_ms: f64,
    pub min_ms: f64,
    pub gbps: Option<f64>,
    pub checked: usize,
    pub ok: bool,
    pub peer: Option<f64>,
}

pub fn run(a: IntBenchArgs) -> std::result::Result<(), CommandError> {
    let engine = super::engine(&a.engine)?;
    let n_nt = a.cases.iter().filter(|&&c| nt::is_nt(c)).count();
    if n_nt > 0 {
        if n_nt != a.cases.len() {
            return Err(CommandError::Input(
                "the number-theory cases (powm, gcd, modinv, isqrt) run apart from the others"
                    .into(),
            ));
        }
        if let Some(&s) = a.sizes.iter().find(|&&s| !(6..=16).contains(&s)) {
            return Err(CommandError::Input(format!(
                "size 2^{s} bits is out of range for the number-theory cases (2^6..2^16)"
            )));
        }
        let scale = match (a.scale, a.quick) {
            (Some(s), _) => s,
            (None, true) => 6,
            (None, false) => 0,
        };
        return nt::run(nt::Opts {
            engine: &engine,
            cases: &a.cases,
            sizes: &a.sizes,
            scale,
            runs: a.runs,
            verify: a.verify,
            seed: a.seed,
            gmp: a.gmp.as_deref(),
            json: a.json,
            json_out: a.json_out.as_ref(),
        });
    }
    let scale = match (a.scale, a.quick) {
        (Some(s), _) => s,
        (None, true) => {
            if engine.is_cuda() {
                4
            } else {
                10
            }
        }
        (None, false) => 0,
    };
    if scale > 20 {
        return Err(CommandError::Input(format!(
            "--scale {scale} is too large (at most 20)"
        )));
    }
    let sizes: Vec<u32> = if a.sizes.is_empty() {
        (12..=19).collect()
    } else {
        a.sizes.clone()
    };
    if let Some(&s) = sizes.iter().find(|&&s| !(6..=20).contains(&s)) {
        return Err(CommandError::Input(format!(
            "size 2^{s} bits is out of range (2^6..2^20)"
        )));
    }
    let cases: Vec<Case> = if a.cases.is_empty() {
        vec![Case::Add1, Case::Add6, Case::Mul1, Case::Poly, Case::Div]
    } else {
        a.cases.clone()
    };
    let runs = a
        .runs
        .unwrap_or(if engine.is_cuda() { 10 } else { 5 })
        .max(1);
    if !a.json {
        println!(
            "mparray bench int: engine {}, NumBits*NumInsts = 2^{}, median of {runs} runs, verify {:?}",
            engine.describe(),
            32 - scale,
            a.verify
        );
        println!(
            "{:>8} {:>9} {:>6} {:>11} {:>10} {:>12} {:>14}",
            "NumBits", "NumInsts", "case", "median ms", "GB/s", "check", "best peer"
        );
    }
    let mut rows = Vec::new();
    let mut all_ok = true;
    for &log in &sizes {
        let bits = 1u64 << log;
        let insts = ((1u64 << 32) >> log >> scale).max(1) as usize;
        for &case in &cases {
            let row = bench_case(&engine, log, insts, case, runs, a.verify, a.seed)?;
            all_ok &= row.ok;
            if !a.json {
                print_row(&row, bits, engine.is_cuda());
            }
            rows.push(row);
        }
    }
    if a.json {
        println!("{}", to_json(&engine, scale, runs, &rows));
    }
    if let Some(path) = &a.json_out {
        std::fs::write(path, to_json(&engine, scale, runs, &rows) + "\n")
            .map_err(|e| CommandError::Other(format!("{}: {e}", path.display())))?;
    }
    if !all_ok {
        return Err(CommandError::Other(
            "some results did not match the reference".into(),
        ));
    }
    Ok(())
}

fn print_row(r: &Row, bits: u64, cuda: bool) {
    let gb = r.gbps.map_or("-".to_string(), |g| format!("{g:.0}"));
    let check = if r.ok {
        format!("ok ({})", r.checked)
    } else {
        "MISMATCH".into()
    };
    let peer = match (cuda, r.peer) {
        (true, Some(p)) if r.case.is_add() => format!("{p:.0} GB/s"),
        (true, Some(p)) => format!("{p} ms"),
        _ => "-".into(),
    };
    println!(
        "{:>8} {:>9} {:>6} {:>11.3} {:>10} {:>12} {:>14}",
        bits,
        r.insts,
        r.case.label(),
        r.median_ms,
        gb,
        check,
        peer
    );
}

fn to_json(engine: &Engine, scale: u32, runs: usize, rows: &[Row]) -> String {
    let items: Vec<serde_json::Value> = rows
        .iter()
        .map(|r| {
            serde_json::json!({
                "num_bits": 1u64 << r.log_bits,
                "num_insts": r.insts,
                "case": r.case.label(),
                "median_ms": r.median_ms,
                "min_ms": r.min_ms,
                "gb_per_s": r.gbps,
                "checked": r.checked,
                "check_ok": r.ok,
                "best_peer": r.peer,
            })
        })
        .collect();
    serde_json::json!({
        "suite": "int",
        "engine": engine.describe(),
        "scale": scale,
        "runs": runs,
        "results": items,
    })
    .to_string()
}

fn bench_case(
    engine: &Engine,
    log: u32,
    insts: usize,
    case: Case,
    runs: usize,
    verify: Verify,
    seed: u64,
) -> Result<Row> {
    let bits = 1u64 << log;
    let m = (bits / 64) as usize;
    let s = seed.wrapping_mul(1000).wrapping_add(log as u64);
    let (a, b) = if case == Case::Div {
        if m < 4 {
            return Err(Error::Invalid(format!(
                "Div needs at least 4 limbs (2^8 bits), not 2^{log}"
            )));
        }
        (
            IntArray::random_lengths(engine, insts, bits, s, m - 2, m - 2)?,
            IntArray::random_lengths(engine, insts, bits, s ^ 0x5eed, 2, m / 2)?,
        )
    } else {
        (
            IntArray::random(engine, insts, bits, s)?,
            IntArray::random(engine, insts, bits, s ^ 0x5eed)?,
        )
    };
    let ex = case.expr();
    let (times, outs) = if let Some(ex) = &ex {
        let chain = matches!(case, Case::Add6Chain | Case::PolyChain);
        time_runs(engine, 1, runs, || -> Result<Vec<IntArray>> {
            Ok(vec![if chain {
                crate::expr::chain_int(ex, &[&a, &b])?
            } else {
                crate::expr::eval_int(ex, &[&a, &b])?
            }])
        })?
    } else if engine.is_cuda() {
        time_runs(engine, 1, runs, || -> Result<Vec<IntArray>> {
            Ok(match case {
                Case::Add1 => vec![a.add(&b)?],
                Case::Add6 => vec![a.fused(&b, Fused::SixAdd)?],
                Case::Mul1 => vec![a.mul(&b)?],
                Case::Poly => vec![a.fused(&b, Fused::Poly)?],
                Case::Div => {
                    let (q, r) = a.divrem(&b)?;
                    vec![q, r]
                }
                _ => unreachable!("number-theory and expression cases run elsewhere"),
            })
        })?
    } else {
        // On the CPU, outputs are written in place run after run (as GMP's
        // benchmark reuses its arrays): fresh buffers would time the page
        // faults of new memory.
        let mut outs = vec![IntArray::zeros(engine, insts, bits)?];
        if case == Case::Div {
            outs.push(IntArray::zeros(engine, insts, bits)?);
        }
        let (times, ()) = time_runs(engine, 1, runs, || -> Result<()> {
            match case {
                Case::Add1 => a.add_into(&b, &mut outs[0]),
                Case::Add6 => a.fused_into(&b, Fused::SixAdd, &mut outs[0]),
                Case::Mul1 => a.mul_into(&b, &mut outs[0]),
                Case::Poly => a.fused_into(&b, Fused::Poly, &mut outs[0]),
                Case::Div => {
                    let (q, r) = outs.split_at_mut(1);
                    a.divrem_into(&b, &mut q[0], &mut r[0])
                }
                _ => unreachable!("number-theory and expression cases run elsewhere"),
            }
        })?;
        (times, outs)
    };
    let med = median(&times);
    let min = times.iter().cloned().fold(f64::INFINITY, f64::min);
    let gbps = case
        .is_add()
        .then(|| 3.0 * insts as f64 * bits as f64 / 8.0 / (med * 1e-3) / 1e9);
    let (checked, ok) = check(&a, &b, &outs, case, verify, seed)?;
    Ok(Row {
        log_bits: log,
        insts,
        case,
        median_ms: med,
        min_ms: min,
        gbps,
        checked,
        ok,
        peer: peer(log, case),
    })
}

/// Compares a sample of instances (or all) with malachite.
fn check(
    a: &IntArray,
    b: &IntArray,
    outs: &[IntArray],
    case: Case,
    verify: Verify,
    seed: u64,
) -> Result<(usize, bool)> {
    let n = a.len();
    let l = a.limbs_per_element();
    let idx: Vec<usize> = match verify {
        Verify::All => (0..n).collect(),
        Verify::Sample => sample_indices(n, 64, seed),
    };
    let (ha, hb) = (a.to_limbs()?, b.to_limbs()?);
    let ho: Vec<Vec<u64>> = outs.iter().map(|o| o.to_limbs()).collect::<Result<_>>()?;
    let modulus = Natural::from(1u32) << (64 * l as u64);
    let nat = |v: &[u64], i: usize| Natural::from_limbs_asc(&v[i * l..(i + 1) * l]);
    use rayon::prelude::*;
    let ok = idx.par_iter().all(|&i| {
        let (x, y) = (nat(&ha, i), nat(&hb, i));
        let got = nat(&ho[0], i);
        match case.base() {
            Case::Add1 => got == (&x + &y) % &modulus,
            Case::Add6 => got == (&x * Natural::from(4u32) + &y * Natural::from(3u32)) % &modulus,
            Case::Mul1 => got == (&x * &y) % &modulus,
            Case::Poly => {
                let want =
                    ((&x * &x + &y) % &modulus * ((&y * &y + &y) % &modulus) + &x * &y) % &modulus;
                got == want
            }
            Case::Div => {
                let (q, r) = x.div_mod(y);
                got == q && nat(&ho[1], i) == r
            }
            _ => false,
        }
    });
    Ok((idx.len(), ok))
}

/// `count` distinct random indices below `n` (all of them when `n <= count`),
/// always including the first and the last instance.
fn sample_indices(n: usize, count: usize, seed: u64) -> Vec<usize> {
    if n <= count {
        return (0..n).collect();
    }
    let mut picked = std::collections::BTreeSet::from([0, n - 1]);
    let mut k = 0u64;
    while picked.len() < count {
        picked.insert((random::mix64(seed ^ (k + 77)) % n as u64) as usize);
        k += 1;
    }
    picked.into_iter().collect()
}

#[cfg(test)]
mod tests {
    use super::sample_indices;

    #[test]
    fn samples_are_distinct_and_in_range() {
        for n in [1usize, 5, 63, 64, 65, 1000, 1 << 20] {
            let s = sample_indices(n, 64, n as u64);
            assert_eq!(s.len(), n.min(64), "n = {n}");
            assert!(s.windows(2).all(|w| w[0] < w[1]) && *s.last().unwrap() < n);
            if n > 1 {
                assert_eq!((s[0], *s.last().unwrap()), (0, n - 1));
            }
        }
    }
}
