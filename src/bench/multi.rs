//! `mparray bench devices`: the same work on one device and split over a
//! device set (`--devices all`), the speed-up, and a check that the split
//! result has the one-device bits. Cases: 1-Mul and Poly at NumBits =
//! 2^16 (NumInsts = 2^32/NumBits), float mul at 512 bits (2^22 elements),
//! GEMM 512 bits (n = 8192), huge mul (2^30 bits). Timing: wall clock from
//! the launch on every device to the last device's synchronisation, data
//! already on the devices, median of the runs.

use clap::{Args, ValueEnum};

use crate::engine::Engine;
use crate::error::{CommandError, Result};
use crate::float::{FloatArray, Round};
use crate::huge::HugeInt;
use crate::int::{Fused, IntArray};
use crate::linalg::{Gemm, Matrix};
use crate::multi::{self, Devices, Split};

#[derive(Args)]
pub struct DevicesBenchArgs {
    /// The device set: all, a count (the first N CUDA devices) or cpu:N.
    #[arg(long, default_value = "all")]
    devices: String,
    /// Cases (default all).
    #[arg(long, value_enum, value_delimiter = ',')]
    cases: Vec<Case>,
    /// Sizes that run in seconds on a laptop.
    #[arg(long)]
    quick: bool,
    /// Timed runs per case (median reported).
    #[arg(long, default_value_t = 3)]
    runs: usize,
    /// Print JSON instead of a table.
    #[arg(long)]
    json: bool,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
enum Case {
    Mul,
    Poly,
    FloatMul,
    Gemm,
    HugeMul,
}

struct Row {
    case: &'static str,
    size: String,
    one_ms: f64,
    all_ms: f64,
    ok: bool,
}

fn wall<T>(devs: &Devices, runs: usize, mut f: impl FnMut() -> Result<T>) -> Result<(f64, T)> {
    let mut last = f()?; // warm-up (kernel loads, memory pools)
    devs.synchronize()?;
    let mut times = Vec::with_capacity(runs);
    for _ in 0..runs.max(1) {
        drop(last);
        let t = std::time::Instant::now();
        last = f()?;
        devs.synchronize()?;
        times.push(t.elapsed().as_secs_f64() * 1e3);
    }
    Ok((super::median(&times), last))
}

pub fn run(a: DevicesBenchArgs) -> std::result::Result<(), CommandError> {
    let devs = Devices::parse(&a.devices)?;
    let one = Devices::new(vec![devs.first().clone()])?;
    let cases = if a.cases.is_empty() {
        vec![
            Case::Mul,
            Case::Poly,
            Case::FloatMul,
            Case::Gemm,
            Case::HugeMul,
        ]
    } else {
        a.cases.clone()
    };
    let mut rows = Vec::new();
    for c in cases {
        rows.push(case(c, &devs, &one, a.quick, a.runs)?);
    }
    if a.json {
        let v: Vec<_> = rows
            .iter()
            .map(|r| {
                serde_json::json!({"case": r.case, "size": r.size, "one_ms": r.one_ms,
                    "all_ms": r.all_ms, "speedup": r.one_ms / r.all_ms, "check": r.ok})
            })
            .collect();
        println!(
            "{}",
            serde_json::json!({"devices": devs.describe(), "rows": v})
        );
    } else {
        println!("mparray bench devices: {}", devs.describe());
        println!(
            "{:<10} {:>26} {:>12} {:>12} {:>8} {:>6}",
            "case", "size", "1 device ms", "set ms", "speedup", "check"
        );
        for r in &rows {
            println!(
                "{:<10} {:>26} {:>12.3} {:>12.3} {:>8.2} {:>6}",
                r.case,
                r.size,
                r.one_ms,
                r.all_ms,
                r.one_ms / r.all_ms,
                if r.ok { "ok" } else { "FAIL" }
            );
        }
    }
    if rows.iter().any(|r| !r.ok) {
        return Err(CommandError::Other(
            "a split result differs from the one-device result".into(),
        ));
    }
    Ok(())
}

fn case(c: Case, devs: &Devices, one: &Devices, quick: bool, runs: usize) -> Result<Row> {
    let e0 = devs.first().clone();
    match c {
        Case::Mul | Case::Poly => {
            let bits = 1u64 << 16;
            let insts = if quick { 64 } else { (1usize << 32) >> 16 };
            let a = IntArray::random(&e0, insts, bits, 1)?;
            let b = IntArray::random(&e0, insts, bits, 2)?;
            let op = |x: &IntArray, y: &IntArray| match c {
                Case::Mul => x.mul(y),
                _ => x.fused(y, Fused::Poly),
            };
            let (one_ms, want) = wall(one, runs, || op(&a, &b))?;
            let (sa, sb) = (Split::scatter(devs, &a)?, Split::scatter(devs, &b)?);
            let (all_ms, got) = wall(devs, runs, || sa.zip(&sb, |x, y| op(x, y)))?;
            let ok = got.gather(&Engine::Cpu)?.to_limbs()? == want.to_limbs()?;
            Ok(Row {
                case: if c == Case::Mul { "1-Mul" } else { "Poly" },
                size: format!("2^16 bits x {insts}"),
                one_ms,
                all_ms,
                ok,
            })
        }
        Case::FloatMul => {
            let (prec, len) = (512u64, if quick { 1 << 12 } else { 1 << 22 });
            let a = FloatArray::random_unit(&e0, len, prec, 3)?;
            let b = FloatArray::random_unit(&e0, len, prec, 4)?;
            let (one_ms, want) = wall(one, runs, || a.mul(&b, prec, Round::Nearest))?;
            let (sa, sb) = (Split::scatter(devs, &a)?, Split::scatter(devs, &b)?);
            let (all_ms, got) = wall(devs, runs, || sa.mul(&sb, prec, Round::Nearest))?;
            let (g, w) = (got.gather(&Engine::Cpu)?, want.to_host()?);
            let ok = g.limbs()? == w.limbs()? && g.exps()? == w.exps()? && g.tags()? == w.tags()?;
            Ok(Row {
                case: "float mul",
                size: format!("512 bits x {len}"),
                one_ms,
                all_ms,
                ok,
            })
        }
        Case::Gemm => {
            let (prec, n) = (512u64, if quick { 64 } else { 8192 });
            let a = Matrix::<FloatArray>::random(&e0, n, n, prec, 5)?;
            let b = Matrix::<FloatArray>::random(&e0, n, n, prec, 6)?;
            let alpha = FloatArray::from_f64s(prec, &[1.0], Round::Nearest)?
                .0
                .into_engine(&e0)?;
            let o = Gemm {
                prec,
                ..Gemm::default()
            };
            let (one_ms, (want, _)) = wall(one, runs, || a.gemm(&b, &alpha, None, &o))?;
            let plan = multi::GemmPlan::new(devs, &a, &b, &alpha, None, &o)?;
            let (all_ms, blocks) = wall(devs, runs, || plan.run())?;
            let (got, _) = plan.gather(blocks, &Engine::Cpu)?;
            let (g, w) = (got.into_data(), want.to_host()?.into_data());
            let ok = g.limbs()? == w.limbs()? && g.exps()? == w.exps()?;
            Ok(Row {
                case: "gemm",
                size: format!("512 bits n={n} ({:.1} GMAC)", plan.macs() / 1e9),
                one_ms,
                all_ms,
                ok,
            })
        }
        Case::HugeMul => {
            let limbs = if quick { 1 << 14 } else { 1 << 24 };
            let a = HugeInt::from_limbs(&e0, &crate::huge::random_limbs(limbs, 7))?;
            let b = HugeInt::from_limbs(&e0, &crate::huge::random_limbs(limbs, 8))?;
            let (one_ms, want) = wall(one, runs, || a.mul(&b))?;
            let plan = multi::HugeMulPlan::new(devs, &a, &b)?;
            let (all_ms, prods) = wall(devs, runs, || plan.run())?;
            let got = plan.sum(prods, &Engine::Cpu)?;
            let ok = got.to_limbs()? == want.to_limbs()?;
            Ok(Row {
                case: "huge mul",
                size: format!("2^{} bits x same", (limbs as f64 * 64.0).log2() as u32),
                one_ms,
                all_ms,
                ok,
            })
        }
    }
}
