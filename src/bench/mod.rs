//! Benchmark suites behind `mparray bench`. Each suite times operations on
//! one engine (CUDA: device events after a warm-up; CPU: wall clock), reports
//! the median, and checks results against malachite before printing them.

pub mod blas;
pub mod expr;
pub mod float;
pub mod func;
pub mod huge;
pub mod int;
#[cfg(feature = "mpi")]
pub mod mpi;
pub mod multi;
pub mod solvers;

use clap::{Args, Subcommand};

use crate::engine::Engine;
use crate::error::CommandError;
use crate::error::Result;

#[derive(Args)]
pub struct BenchArgs {
    #[command(subcommand)]
    suite: Option<Suite>,
    /// Options of the default suite (`int`) when none is named.
    #[command(flatten)]
    int: int::IntBenchArgs,
}

#[derive(Subcommand)]
enum Suite {
    /// The midsize-integer suite: 1-Add, 6-Add, 1-Mul, Poly, Div.
    Int(int::IntBenchArgs),
    /// Huge integers: multiplication at 2^20..2^32 bits, decimal conversion
    /// of 10^6..10^8 digits, each checked.
    Huge(huge::HugeBenchArgs),
    /// Float arrays with MPFR's semantics: add, mul, div, sqrt, fma at 128..2048 bits.
    Float(float::FloatBenchArgs),
    /// Correctly rounded elementary functions (exp, log, sin, cos, atan) at
    /// 128..2048 bits, with the share of Ziv retries, each checked.
    Func(func::FuncBenchArgs),
    /// Exactly rounded BLAS in GMAC/s: gemm and syrk at 128..2048 bits for
    /// n = 256, 1024, 4096, a tall-skinny Gram matrix (A^T*A of 65536 x 256
    /// at 512 bits), gemv and dot at 2^20 elements, each checked.
    Blas(blas::BlasBenchArgs),
    /// Root finders (Wilkinson, Chebyshev nodes; Aberth, STS-Padé) and
    /// GMRES(m) at 128..1024 bits, each checked.
    Solvers(solvers::SolversBenchArgs),
    /// One device against a device set (`--devices all`): 1-Mul and Poly at
    /// 2^16 bits, float mul, GEMM 512 bits n = 8192, huge mul, each
    /// checked bit for bit against the one-device result.
    Devices(multi::DevicesBenchArgs),
    /// Float expressions fused into one kernel against the unfused chain,
    /// and the first compile of a new shape (ints: `bench int --cases poly-eval,...`).
    Expr(expr::ExprBenchArgs),
}

impl BenchArgs {
    /// Whether the bench runs on every MPI rank (`--mpi`).
    pub(crate) fn distributed(&self) -> bool {
        match &self.suite {
            Some(Suite::Huge(x)) => x.mpi,
            Some(Suite::Blas(x)) => x.mpi,
            _ => false,
        }
    }
}

pub fn run(a: BenchArgs) -> std::result::Result<(), CommandError> {
    match a.suite {
        Some(Suite::Int(x)) => int::run(x),
        Some(Suite::Huge(x)) => huge::run(x),
        Some(Suite::Float(x)) => float::run(x),
        Some(Suite::Func(x)) => func::run(x),
        Some(Suite::Blas(x)) => blas::run(x),
        Some(Suite::Solvers(x)) => solvers::run(x),
        Some(Suite::Devices(x)) => multi::run(x),
        Some(Suite::Expr(x)) => expr::run(x),
        None => int::run(a.int),
    }
}

/// Times `f` `runs` times after `warmup` untimed calls; returns each run's
/// milliseconds and the last result. On CUDA the time is between two device
/// events around the queued work.
pub fn time_runs<T>(
    engine: &Engine,
    warmup: usize,
    runs: usize,
    mut f: impl FnMut() -> Result<T>,
) -> Result<(Vec<f64>, T)> {
    let mut last = None;
    for _ in 0..warmup {
        last = Some(f()?);
    }
    let mut times = Vec::with_capacity(runs);
    engine.synchronize()?;
    for _ in 0..runs {
        // On CUDA the previous outputs go first so that their memory is
        // reused; on the CPU they live until the run is done (as the
        // suites' CPU figures have always been taken).
        if engine.is_cuda() {
            drop(last.take());
        }
        let (ms, out) = engine.time(&mut f)?;
        times.push(ms);
        last = Some(out);
    }
    let last = match last {
        Some(l) => l,
        None => f()?,
    };
    Ok((times, last))
}

/// The median of a non-empty list.
pub fn median(v: &[f64]) -> f64 {
    let mut s = v.to_vec();
    s.sort_by(|a, b| a.total_cmp(b));
    let n = s.len();
    if n == 0 {
        return f64::NAN;
    }
    if n % 2 == 1 {
        s[n / 2]
    } else {
        (s[n / 2 - 1] + s[n / 2]) / 2.0
    }
}

pub(crate) fn engine(name: &str) -> std::result::Result<Engine, CommandError> {
    CommandError::engine(name)
}

/// The error of `--mpi` in a build without the `mpi` feature.
#[cfg(not(feature = "mpi"))]
pub(crate) fn no_mpi() -> CommandError {
    CommandError::Input(
        "--mpi: this mparray was built without MPI (cargo build --release --features mpi)".into(),
    )
}
