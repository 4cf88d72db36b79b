//! `mparray bench blas`: the exactly rounded BLAS (issue 14) in GMAC/s,
//! multiply-accumulates per second.
//!
//! Cases (inputs uniform in [-1, 1) at the case's precision, drawn on the
//! engine by [`Matrix::random`] / [`FloatArray::random_uniform`]; alpha and
//! beta random in [-1, 1) too, so every sign occurs):
//! - `gemm`: `C' = alpha*A*B + beta*C`, square `n x n`, `n^3` MACs;
//! - `syrk`: `C' = alpha*A*A^T + beta*C`, upper triangle, square `n x n`,
//!   `n(n+1)/2 * n` MACs;
//! - `tall`: the SDP-like Gram matrix `C' = alpha*A^T*A + beta*C` of a tall
//!   `k x n` A (default 65536 x 256 at 512 bits) by syrk with `Trans`, upper
//!   triangle of the `n x n` C, `n(n+1)/2 * k` MACs;
//! - `gemv`: `y' = alpha*A*x + beta*y`, A of 1024 x 1024 (2^20 elements),
//!   `n^2` MACs;
//! - `dot`: `x . y` of 2^20 elements, `n` MACs.
//!
//! Each case runs once untimed (warm-up), then `runs` times timed on the
//! engine ([`super::time_runs`]: wall clock on the CPU, device events on
//! CUDA, waited for); the inputs are drawn before and checked after. The
//! check takes 16 random output elements plus the corners (syrk: one more
//! outside the triangle, which must be C's) and compares value and ternary
//! with an independent reference (no code of the library's exact core):
//! the exact sum of the products (each element's malachite-q `Rational`,
//! its integer numerator over a power of two; the products summed as
//! malachite integers over a common power of two), as a `Rational` times
//! alpha plus beta*c, rounded once by malachite-float's
//! `from_rational_prec_round` (an exact zero is +0, or -0 when rounding
//! down, as `mpfr_sum`). The check's seconds are printed beside it.
//!
//! Budget: on the CPU engine, a default case of more than 1.5e11 limb
//! products (MACs times the squared 64-bit limbs per element) is skipped
//! and listed as such: naming `--sizes` (or `--tall`) runs whatever is
//! named. `--quick` runs tiny shapes (gemm and syrk n = 16 and 33, tall
//! 1000 x 12, gemv 64 x 64, dot 4096) with the same checks, in seconds.
//! `--json-out` rewrites its JSON after every case and `--deadline-s`
//! starts no case after that many seconds (for runs under a time limit).

use std::cmp::Ordering;

use clap::{Args, ValueEnum};
use malachite_base::num::arithmetic::traits::{PowerOf2, UnsignedAbs};
use malachite_base::num::basic::traits::{NegativeZero, Zero};
use malachite_base::num::logic::traits::SignificantBits;
use malachite_float::{ComparableFloatRef, Float};
use malachite_nz::integer::Integer;
use malachite_nz::natural::Natural;
use malachite_q::Rational;
use rayon::prelude::*;

use super::{median, time_runs};
use crate::engine::Engine;
use crate::error::{CommandError, Error, Result};
use crate::float::{FloatArray, Round, to_rounding_mode};
use crate::linalg::{Gemm, Gemv, Matrix, Op, Syrk, Uplo};

#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum Case {
    Gemm,
    Syrk,
    Tall,
    Gemv,
    Dot,
}

impl Case {
    fn name(self) -> &'static str {
        match self {
            Case::Gemm => "gemm",
            Case::Syrk => "syrk",
            Case::Tall => "tall",
            Case::Gemv => "gemv",
            Case::Dot => "dot",
        }
    }
}

#[derive(Args, Clone)]
pub struct BlasBenchArgs {
    /// Engine: cpu, cuda or auto (the best found).
    #[arg(long, default_value = "auto")]
    engine: String,
    /// Precisions in bits of gemm, syrk, gemv and dot (default 128,256,512,1024,2048).
    #[arg(long, value_delimiter = ',')]
    precs: Vec<u64>,
    /// Square sizes n of gemm and syrk (default 256,1024,4096; on the CPU
    /// the cases over the budget are skipped unless sizes are named).
    #[arg(long, value_delimiter = ',')]
    sizes: Vec<usize>,
    /// Cases (default all: gemm,syrk,tall,gemv,dot).
    #[arg(long, value_enum, value_delimiter = ',')]
    ops: Vec<Case>,
    /// The tall case's A as ROWS,COLS (default 65536,256): C = A^T*A is COLS x COLS.
    #[arg(long, value_delimiter = ',', num_args = 2)]
    tall: Vec<usize>,
    /// Precision of the tall case.
    #[arg(long, default_value_t = 512)]
    tall_prec: u64,
    /// Rows (= columns) of gemv's matrix (default 1024).
    #[arg(long)]
    gemv_n: Option<usize>,
    /// Elements of dot (default 1048576).
    #[arg(long)]
    dot_n: Option<usize>,
    /// Tiny shapes, seconds on a laptop, the same checks.
    #[arg(long)]
    quick: bool,
    /// Timed runs per case after the warm-up (the median is reported;
    /// default 3 on CUDA, 1 on the CPU).
    #[arg(long)]
    runs: Option<usize>,
    /// Rounding mode (N, Z, U, D, A).
    #[arg(long, default_value = "N")]
    round: String,
    /// Seed of the random inputs and of the sampled positions.
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// Print JSON instead of a table.
    #[arg(long)]
    json: bool,
    /// Also write the JSON report to this file, rewritten after every case
    /// (the table still prints; a run cut short leaves the cases done).
    #[arg(long, value_name = "FILE")]
    json_out: Option<std::path::PathBuf>,
    /// Start no case after this many seconds; the cases left are listed
    /// as skipped (for runs under a wall-clock limit).
    #[arg(long, value_name = "SECS")]
    deadline_s: Option<f64>,
    /// Under mpirun: gemm on the grid of ranks (default n = 256 at 256
    /// bits), with the bytes per rank and one process's time.
    #[arg(long)]
    pub(crate) mpi: bool,
}

/// Default cases on the CPU engine above this many limb products are skipped.
const CPU_BUDGET: f64 = 1.5e11;

/// Random output positions checked per case (corners come on top).
const SAMPLES: usize = 16;

/// One case to run: its operation, precision and shape `(m, n, k)` (dot:
/// `(1, 1, len)`, gemv `(n, 1, n)`), and whether the user named its size.
#[derive(Clone, Copy)]
struct Plan {
    case: Case,
    prec: u64,
    m: usize,
    n: usize,
    k: usize,
    named: bool,
}

impl Plan {
    /// Multiply-accumulates of the case.
    fn macs(&self) -> f64 {
        let (m, n, k) = (self.m as f64, self.n as f64, self.k as f64);
        match self.case {
            Case::Syrk | Case::Tall => n * (n + 1.0) / 2.0 * k,
            _ => m * n * k,
        }
    }

    /// The shape as printed.
    fn shape(&self) -> String {
        match self.case {
            Case::Gemm => format!("{}x{}x{}", self.m, self.n, self.k),
            Case::Syrk | Case::Tall => format!("{}x{} k={}", self.n, self.n, self.k),
            Case::Gemv => format!("{}x{}", self.m, self.k),
            Case::Dot => format!("{}", self.k),
        }
    }

    /// The CPU budget's measure: MACs times limbs squared.
    fn limb_products(&self) -> f64 {
        let l = self.prec.div_ceil(64) as f64;
        self.macs() * l * l
    }
}

/// One measured case.
struct Row {
    plan: Plan,
    median_ms: f64,
    min_ms: f64,
    /// Seconds of the check (host copies and the exact reference).
    check_s: f64,
    checked: usize,
    ok: bool,
}

/// A small deterministic generator (SplitMix64) for the sampled positions.
struct Mix(u64);

impl Mix {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }

    fn below(&mut self, n: usize) -> usize {
        (self.next() % n.max(1) as u64) as usize
    }
}

pub fn run(a: BlasBenchArgs) -> std::result::Result<(), CommandError> {
    if a.mpi {
        #[cfg(feature = "mpi")]
        {
            let sizes = if a.sizes.is_empty() {
                vec![256]
            } else {
                a.sizes.clone()
            };
            let precs = if a.precs.is_empty() {
                vec![256]
            } else {
                a.precs.clone()
            };
            let engine = super::engine(&a.engine)?;
            return super::mpi::blas(&engine, &sizes, &precs, a.runs.unwrap_or(3), a.seed);
        }
        #[cfg(not(feature = "mpi"))]
        return Err(super::no_mpi());
    }
    let engine = super::engine(&a.engine)?;
    let rnd = Round::from_name(&a.round)?;
    let precs = if a.precs.is_empty() {
        vec![128, 256, 512, 1024, 2048]
    } else {
        a.precs.clone()
    };
    for &p in precs.iter().chain([&a.tall_prec]) {
        crate::float::check_prec(p)?;
    }
    let ops = if a.ops.is_empty() {
        vec![Case::Gemm, Case::Syrk, Case::Tall, Case::Gemv, Case::Dot]
    } else {
        a.ops.clone()
    };
    let sizes_named = !a.sizes.is_empty();
    let sizes = match (sizes_named, a.quick) {
        (true, _) => a.sizes.clone(),
        (false, true) => vec![16, 33],
        (false, false) => vec![256, 1024, 4096],
    };
    let (tall_k, tall_n) = match (a.tall.as_slice(), a.quick) {
        ([k, n], _) => (*k, *n),
        (_, true) => (1000, 12),
        _ => (65536, 256),
    };
    let gemv_n = a.gemv_n.unwrap_or(if a.quick { 64 } else { 1024 });
    let dot_n = a.dot_n.unwrap_or(if a.quick { 4096 } else { 1 << 20 });
    if sizes
        .iter()
        .chain([&tall_k, &tall_n, &gemv_n, &dot_n])
        .any(|&s| s == 0)
    {
        return Err(CommandError::Input(
            "sizes, --tall, --gemv-n and --dot-n must be at least 1".into(),
        ));
    }
    let runs = a
        .runs
        .unwrap_or(if engine.is_cuda() && !a.quick { 3 } else { 1 })
        .max(1);

    let mut plans = Vec::new();
    for &case in &ops {
        match case {
            Case::Gemm | Case::Syrk => {
                for &p in &precs {
                    for &n in &sizes {
                        plans.push(Plan {
                            case,
                            prec: p,
                            m: n,
                            n,
                            k: n,
                            named: sizes_named,
                        });
                    }
                }
            }
            Case::Tall => plans.push(Plan {
                case,
                prec: a.tall_prec,
                m: tall_n,
                n: tall_n,
                k: tall_k,
                named: !a.tall.is_empty(),
            }),
            Case::Gemv => {
                for &p in &precs {
                    plans.push(Plan {
                        case,
                        prec: p,
                        m: gemv_n,
                        n: 1,
                        k: gemv_n,
                        named: a.gemv_n.is_some(),
                    });
                }
            }
            Case::Dot => {
                for &p in &precs {
                    plans.push(Plan {
                        case,
                        prec: p,
                        m: 1,
                        n: 1,
                        k: dot_n,
                        named: a.dot_n.is_some(),
                    });
                }
            }
        }
    }

    if !a.json {
        println!(
            "bench blas on {}: C = alpha*op(A)*op(B) + beta*C, rounding {rnd:?}, median of {runs} \
             run(s) after a warm-up, seed {}",
            engine.describe(),
            a.seed
        );
        if !engine.is_cuda() {
            println!(
                "CPU fast-path kernel: {}",
                crate::linalg::fixed::kernel_name()
            );
        }
        println!(
            "{:>5} {:>5} {:>22} {:>12} {:>10}  check",
            "op", "prec", "shape", "ms", "GMAC/s"
        );
    }
    let started = std::time::Instant::now();
    let mut rows = Vec::new();
    let mut skipped = Vec::new();
    let mut all_ok = true;
    let report = |rows: &[Row], skipped: &[serde_json::Value]| {
        let items: Vec<serde_json::Value> = rows
            .iter()
            .map(|r| {
                let p = &r.plan;
                serde_json::json!({
                    "op": p.case.name(), "prec": p.prec, "m": p.m, "n": p.n, "k": p.k,
                    "shape": p.shape(), "macs": p.macs(), "median_ms": r.median_ms,
                    "min_ms": r.min_ms, "gmac_per_s": p.macs() / (r.median_ms * 1e6),
                    "checked": r.checked, "check_s": r.check_s, "ok": r.ok,
                })
            })
            .collect();
        serde_json::json!({
            "suite": "blas", "engine": engine.describe(), "round": format!("{rnd:?}"),
            "cpu_kernel": crate::linalg::fixed::kernel_name(),
            "threads": rayon::current_num_threads(), "runs": runs, "seed": a.seed,
            "rows": items, "skipped": skipped,
        })
    };
    let write_out = |v: &serde_json::Value| -> std::result::Result<(), CommandError> {
        match &a.json_out {
            Some(path) => std::fs::write(path, format!("{v}\n"))
                .map_err(|e| CommandError::Other(format!("cannot write {}: {e}", path.display()))),
            None => Ok(()),
        }
    };
    for (i, plan) in plans.iter().enumerate() {
        let over_budget =
            !engine.is_cuda() && !plan.named && !a.quick && plan.limb_products() > CPU_BUDGET;
        let late = a
            .deadline_s
            .is_some_and(|d| started.elapsed().as_secs_f64() > d);
        if over_budget || late {
            let why = if late {
                format!("past --deadline-s {}", a.deadline_s.unwrap_or(0.0))
            } else {
                format!(
                    "over the CPU budget ({:.1e} limb products > {CPU_BUDGET:.1e}; name the size \
                     to run it)",
                    plan.limb_products()
                )
            };
            if !a.json {
                println!(
                    "{:>5} {:>5} {:>22} {:>12} {:>10}  skipped: {why}",
                    plan.case.name(),
                    plan.prec,
                    plan.shape(),
                    "-",
                    "-"
                );
            }
            skipped.push(serde_json::json!({
                "op": plan.case.name(), "prec": plan.prec, "shape": plan.shape(), "reason": why,
            }));
            continue;
        }
        let seed = a.seed.wrapping_add(0x1000 * i as u64);
        let row = bench_case(&engine, plan, runs, rnd, seed).map_err(CommandError::from)?;
        all_ok &= row.ok;
        if !a.json {
            println!(
                "{:>5} {:>5} {:>22} {:>12.3} {:>10.4}  {} ({} elements checked in {:.1} s)",
                plan.case.name(),
                plan.prec,
                plan.shape(),
                row.median_ms,
                plan.macs() / (row.median_ms * 1e6),
                if row.ok { "ok" } else { "FAILED" },
                row.checked,
                row.check_s
            );
        }
        rows.push(row);
        write_out(&report(&rows, &skipped))?;
    }
    let v = report(&rows, &skipped);
    write_out(&v)?;
    if a.json {
        println!("{v}");
    } else {
        println!(
            "peers (issue 14, GEMM at 512 bits): FPGA 2.0 GMAC/s; MPFR mul/add loop on 16 cores \
             about 0.1; FLINT arb_mat_mul 0.064 on 2 cores (n = 256). Measure them here with \
             scripts/peers/mpfr_blas.c and scripts/peers/flint_gemm.py"
        );
    }
    if all_ok {
        Ok(())
    } else {
        Err(CommandError::Other(
            "a result differed from the exact reference".into(),
        ))
    }
}

/// A one-element array uniform in [-1, 1) on `engine`.
fn scalar(engine: &Engine, p: u64, seed: u64) -> Result<FloatArray> {
    FloatArray::random_uniform(engine, 1, p, seed, -1.0, 1.0, Round::Down)
}

/// `m` on the host: borrowed on the CPU, a copy from a device (the check
/// reads many elements; one copy, not one per element).
fn host(m: &FloatArray) -> Result<Host<'_>> {
    Ok(if m.engine().is_cuda() {
        Host::Owned(m.to_host()?)
    } else {
        Host::Borrowed(m)
    })
}

/// An array on the host, borrowed or copied there.
enum Host<'a> {
    Borrowed(&'a FloatArray),
    Owned(FloatArray),
}

impl std::ops::Deref for Host<'_> {
    type Target = FloatArray;
    fn deref(&self) -> &FloatArray {
        match self {
            Host::Borrowed(a) => a,
            Host::Owned(a) => a,
        }
    }
}

fn rat(f: &Float) -> Rational {
    // The inputs are random finite floats.
    Rational::try_from(f).unwrap_or(Rational::ZERO)
}

/// Element `i` of a host array as a Rational.
fn rat_at(a: &FloatArray, i: usize) -> Result<Rational> {
    Ok(rat(&a.to_float(i)?))
}

/// Element `i` of a host array as an exact dyadic value `num * 2^-shift`
/// (from its malachite-q Rational, whose denominator is a power of 2).
fn dyadic(a: &FloatArray, i: usize) -> Result<(Integer, u64)> {
    let r = rat(&a.to_float(i)?);
    let neg = r < 0u32;
    let (num, den) = r.into_numerator_and_denominator();
    Ok((
        Integer::from_sign_and_abs(!neg, num),
        den.significant_bits() - 1,
    ))
}

/// An exact sum `acc * 2^-shift` of dyadic products.
#[derive(Default)]
struct Acc {
    acc: Integer,
    shift: u64,
}

impl Acc {
    /// Adds `num * 2^-shift`, exactly.
    fn add(mut self, num: Integer, shift: u64) -> Acc {
        if shift > self.shift {
            self.acc <<= shift - self.shift;
            self.shift = shift;
        }
        self.acc += num << (self.shift - shift);
        self
    }

    /// The sum as a Rational.
    fn value(self) -> Rational {
        let neg = self.acc < 0u32;
        Rational::from_sign_and_naturals(
            !neg,
            self.acc.unsigned_abs(),
            Natural::power_of_2(self.shift),
        )
    }
}

/// The exact sum over `q < len` of the products `x(q) * y(q)` of host
/// elements (`x(q)`, `y(q)`: array and index), in parallel: products of
/// integer mantissas over a common power of two, summed by malachite, as
/// one Rational (a plain Rational sum costs a gcd per term).
fn exact_dot<'a, F>(len: usize, f: F) -> Result<Rational>
where
    F: Fn(usize) -> ((&'a FloatArray, usize), (&'a FloatArray, usize)) + Sync,
{
    let acc = (0..len)
        .into_par_iter()
        .try_fold(Acc::default, |acc, q| -> Result<Acc> {
            let ((xa, xi), (ya, yi)) = f(q);
            let (nx, sx) = dyadic(xa, xi)?;
            let (ny, sy) = dyadic(ya, yi)?;
            Ok(acc.add(nx * ny, sx + sy))
        })
        .try_reduce(Acc::default, |a, b| Ok(a.add(b.acc, b.shift)))?;
    Ok(acc.value())
}

/// The reference: `alpha*sum + beta*c` (exact rationals) rounded once to
/// `p` bits in `rnd`, with the ternary value's sign.
fn round_exact(v: Rational, p: u64, rnd: Round) -> (Float, Ordering) {
    if v == 0u32 {
        // mpfr_sum: an exact zero from nonzero terms is +0, -0 rounding down.
        let z = if rnd == Round::Down {
            Float::NEGATIVE_ZERO
        } else {
            Float::ZERO
        };
        return (z, Ordering::Equal);
    }
    Float::from_rational_prec_round(v, p, to_rounding_mode(rnd))
}

/// Whether output element `i` (value and ternary) equals the reference.
fn agrees(out: &FloatArray, tern: &[i8], i: usize, want: &(Float, Ordering)) -> Result<bool> {
    Ok(
        ComparableFloatRef(&out.to_float(i)?) == ComparableFloatRef(&want.0)
            && tern[i].cmp(&0) == want.1,
    )
}

/// The sampled positions `(i, j)` of an `m x n` output: the corners and
/// `SAMPLES` random ones, deduplicated (`upper`: folded into `i <= j`).
fn positions(m: usize, n: usize, upper: bool, seed: u64) -> Vec<(usize, usize)> {
    let mut g = Mix(seed ^ 0x5a5a_5a5a);
    let mut v = vec![(0, 0), (0, n - 1), (m - 1, 0), (m - 1, n - 1)];
    v.extend((0..SAMPLES).map(|_| (g.below(m), g.below(n))));
    if upper {
        for p in &mut v {
            *p = (p.0.min(p.1), p.0.max(p.1));
        }
    }
    v.sort_unstable();
    v.dedup();
    v
}

/// Runs one case: inputs, warm-up, timed runs, check.
fn bench_case(engine: &Engine, plan: &Plan, runs: usize, rnd: Round, seed: u64) -> Result<Row> {
    let p = plan.prec;
    let alpha = scalar(engine, p, seed ^ 0xa1)?;
    let beta = scalar(engine, p, seed ^ 0xb2)?;
    let (times, c0, checked, ok) = match plan.case {
        Case::Gemm => {
            let n = plan.n;
            let am = Matrix::<FloatArray>::random(engine, n, n, p, seed)?;
            let bm = Matrix::<FloatArray>::random(engine, n, n, p, seed ^ 0xb)?;
            let cm = Matrix::<FloatArray>::random(engine, n, n, p, seed ^ 0xc)?;
            let o = Gemm {
                op_a: Op::None,
                op_b: Op::None,
                prec: p,
                rnd,
            };
            let (times, (r, t)) = time_runs(engine, 1, runs, || {
                am.gemm(&bm, &alpha, Some((&beta, &cm)), &o)
            })?;
            let c0 = std::time::Instant::now();
            let (ah, bh, ch) = (host(am.data())?, host(bm.data())?, host(cm.data())?);
            let (rh, t) = (host(r.data())?, t.to_vec()?);
            let (al, be) = (rat(&alpha.to_float(0)?), rat(&beta.to_float(0)?));
            let pos = positions(n, n, false, seed);
            let oks = pos
                .par_iter()
                .map(|&(i, j)| -> Result<bool> {
                    let s = exact_dot(n, |q| ((&*ah, i * n + q), (&*bh, q * n + j)))?;
                    let v = &al * s + &be * rat_at(&ch, i * n + j)?;
                    agrees(&rh, &t, i * n + j, &round_exact(v, p, rnd))
                })
                .collect::<Result<Vec<bool>>>()?;
            (times, c0, pos.len(), oks.iter().all(|&b| b))
        }
        Case::Syrk | Case::Tall => {
            // syrk: A is n x n, C' = alpha*A*A^T + beta*C; tall: A is k x n,
            // C' = alpha*A^T*A + beta*C. Either way C' is n x n, upper.
            let (n, k) = (plan.n, plan.k);
            let trans = if plan.case == Case::Tall {
                Op::Trans
            } else {
                Op::None
            };
            let (ar, ac) = if trans == Op::Trans { (k, n) } else { (n, k) };
            let am = Matrix::<FloatArray>::random(engine, ar, ac, p, seed)?;
            let cm = Matrix::<FloatArray>::random(engine, n, n, p, seed ^ 0xc)?;
            let o = Syrk {
                uplo: Uplo::Upper,
                trans,
                prec: p,
                rnd,
            };
            let (times, (r, t)) =
                time_runs(engine, 1, runs, || am.syrk(&alpha, Some((&beta, &cm)), &o))?;
            let c0 = std::time::Instant::now();
            let (ah, ch) = (host(am.data())?, host(cm.data())?);
            let (rh, t) = (host(r.data())?, t.to_vec()?);
            let (al, be) = (rat(&alpha.to_float(0)?), rat(&beta.to_float(0)?));
            // Element (row, q) of op(A), whose rows are C's rows.
            let at = |row: usize, q: usize| {
                if trans == Op::Trans {
                    q * ac + row
                } else {
                    row * ac + q
                }
            };
            let pos = positions(n, n, true, seed);
            let mut oks = pos
                .par_iter()
                .map(|&(i, j)| -> Result<bool> {
                    let s = exact_dot(k, |q| ((&*ah, at(i, q)), (&*ah, at(j, q))))?;
                    let v = &al * s + &be * rat_at(&ch, i * n + j)?;
                    agrees(&rh, &t, i * n + j, &round_exact(v, p, rnd))
                })
                .collect::<Result<Vec<bool>>>()?;
            // Below the triangle the output is C's element, exactly.
            if n > 1 {
                let (i, j) = (n - 1, 0);
                let c = ch.to_float(i * n + j)?;
                oks.push(agrees(&rh, &t, i * n + j, &(c, Ordering::Equal))?);
            }
            (times, c0, oks.len(), oks.iter().all(|&b| b))
        }
        Case::Gemv => {
            let n = plan.m;
            let am = Matrix::<FloatArray>::random(engine, n, n, p, seed)?;
            let x = FloatArray::random_uniform(engine, n, p, seed ^ 0xd, -1.0, 1.0, Round::Down)?;
            let y = FloatArray::random_uniform(engine, n, p, seed ^ 0xe, -1.0, 1.0, Round::Down)?;
            let o = Gemv {
                op: Op::None,
                prec: p,
                rnd,
            };
            let (times, (r, t)) = time_runs(engine, 1, runs, || {
                am.gemv(&alpha, &x, Some((&beta, &y)), &o)
            })?;
            let c0 = std::time::Instant::now();
            let (ah, xh, yh) = (host(am.data())?, host(&x)?, host(&y)?);
            let (rh, t) = (host(&r)?, t.to_vec()?);
            let (al, be) = (rat(&alpha.to_float(0)?), rat(&beta.to_float(0)?));
            let mut g = Mix(seed ^ 0x5a5a);
            let mut pos: Vec<usize> = (0..SAMPLES).map(|_| g.below(n)).collect();
            pos.extend([0, n - 1]);
            pos.sort_unstable();
            pos.dedup();
            let oks = pos
                .par_iter()
                .map(|&i| -> Result<bool> {
                    let s = exact_dot(n, |q| ((&*ah, i * n + q), (&*xh, q)))?;
                    let v = &al * s + &be * rat_at(&yh, i)?;
                    agrees(&rh, &t, i, &round_exact(v, p, rnd))
                })
                .collect::<Result<Vec<bool>>>()?;
            (times, c0, pos.len(), oks.iter().all(|&b| b))
        }
        Case::Dot => {
            let n = plan.k;
            let x = FloatArray::random_uniform(engine, n, p, seed ^ 0xd, -1.0, 1.0, Round::Down)?;
            let y = FloatArray::random_uniform(engine, n, p, seed ^ 0xe, -1.0, 1.0, Round::Down)?;
            let (times, (r, t)) = time_runs(engine, 1, runs, || x.dot(&y, p, rnd))?;
            let c0 = std::time::Instant::now();
            let (xh, yh) = (host(&x)?, host(&y)?);
            let (rh, t) = (host(&r)?, t.to_vec()?);
            let s = exact_dot(n, |q| ((&*xh, q), (&*yh, q)))?;
            let ok = agrees(&rh, &t, 0, &round_exact(s, p, rnd))?;
            (times, c0, 1, ok)
        }
    };
    if times.is_empty() {
        return Err(Error::Invalid("no timed run".into()));
    }
    Ok(Row {
        plan: *plan,
        median_ms: median(&times),
        min_ms: times.iter().copied().fold(f64::INFINITY, f64::min),
        check_s: c0.elapsed().as_secs_f64(),
        checked,
        ok,
    })
}
