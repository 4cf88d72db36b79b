//! The `mparray` command line: `info`, `int` and `float` (batch
//! calculators), `blas` (exact BLAS on Matrix Market files), `roots` and
//! `gmres` (the solvers), `huge` (one
//! huge number per file), `bench`, and `kernels` (list or compile every kernel instantiation).
//!
//! Exit status: 0 on success, 2 on bad input (with file and line), 1 on other
//! failures.

mod blas;
mod complex;
#[cfg(feature = "mpi")]
mod dist;
mod expr;
mod float;
mod huge;
mod info;
mod int;
mod kernels;
mod solvers;

use std::io::Read;

use clap::{Parser, Subcommand};

use crate::engine::Engine;
use crate::error::{CommandError, Error};

#[derive(Parser)]
#[command(
    name = "mparray",
    version,
    about = "Arithmetic on large batches of multi-precision numbers, on NVIDIA GPUs and on the CPU"
)]
struct Cli {
    #[command(subcommand)]
    cmd: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Show the engines found (GPU, NVRTC, kernel cache), or why CUDA is not usable.
    Info,
    /// Batch calculator on fixed-width integers read from files.
    Int(int::IntArgs),
    /// One huge number per file: mul, sqr, divrem, sqrt, rand.
    Huge(huge::HugeArgs),
    /// Batch calculator on floats with MPFR's semantics, read from files.
    Float(float::FloatArgs),
    /// Batch calculator on complex floats with GNU MPC's semantics.
    Complex(complex::ComplexArgs),
    /// Exactly rounded BLAS (gemm, gemv, dot, axpy, syrk, herk) on Matrix Market array files.
    Blas(blas::BlasArgs),
    /// All roots of a polynomial (Ehrlich-Aberth or STS-Padé), with rigorous residual bounds.
    Roots(solvers::RootsArgs),
    /// Solve a dense system A x = b by restarted GMRES(m) (Matrix Market files).
    Gmres(solvers::GmresArgs),
    /// Benchmarks (`mparray bench int ...`).
    Bench(Box<crate::bench::BenchArgs>),
    /// List or compile every kernel instantiation (the CI compile check).
    Kernels(kernels::KernelsArgs),
}

/// Picks the engine named on the command line (`auto`: the best one found).
pub(crate) fn engine_from_arg(name: &str) -> Result<Engine, CommandError> {
    CommandError::engine(name)
}

/// Ends the process with `code` after [`main`]: flushes the standard
/// streams; a kernel compile still running in the background (a first use's
/// fully optimised module) is dropped, not waited for, so that a first
/// result does not wait on NVRTC (the next run starts it again).
pub fn exit(code: i32) -> ! {
    use std::io::Write;
    let _ = std::io::stdout().flush();
    let _ = std::io::stderr().flush();
    if crate::engine::cuda::compiling_in_background() {
        unsafe extern "C" {
            fn _exit(code: i32) -> !;
        }
        // SAFETY: ends the process without running exit handlers, so NVRTC
        // is never unloaded under the compiling thread.
        unsafe { _exit(code) }
    }
    std::process::exit(code)
}

/// Runs the command line; returns the exit status. Under `mpirun` (feature
/// `mpi`) the distributed commands run on every rank, the others on rank 0
/// alone, and only rank 0 prints errors (the other ranks' reach it).
pub fn main() -> i32 {
    #[cfg(feature = "mpi")]
    let _mpi = crate::dist::init();
    #[cfg(feature = "mpi")]
    let rank = crate::dist::rank();
    #[cfg(not(feature = "mpi"))]
    let rank = 0usize;
    if let Some(code) = expr::intercept() {
        return code;
    }
    let cli = match Cli::try_parse() {
        Ok(c) => c,
        Err(e) => {
            if rank == 0 {
                let _ = e.print();
            }
            return if e.use_stderr() { 2 } else { 0 };
        }
    };
    if rank > 0 && !cli.cmd.distributed() {
        return 0;
    }
    let result = match cli.cmd {
        Command::Info => info::run(),
        Command::Int(a) => int::run(a),
        Command::Huge(a) => huge::run(a),
        Command::Float(a) => {
            crate::float::func::cuda::set_first_use_on_cpu(true);
            float::run(a)
        }
        Command::Complex(a) => {
            crate::float::func::cuda::set_first_use_on_cpu(true);
            complex::run(a)
        }
        Command::Blas(a) => blas::run(a),
        Command::Roots(a) => solvers::run_roots(a),
        Command::Gmres(a) => solvers::run_gmres(a),
        Command::Bench(a) => crate::bench::run(*a),
        Command::Kernels(a) => kernels::run(a),
    };
    match result {
        Ok(()) => 0,
        Err(CommandError::Input(m)) => {
            // (Every rank checks the arguments: rank 0 says it once.)
            if rank == 0 {
                eprintln!("mparray: error: {m}");
            }
            2
        }
        Err(CommandError::Other(m)) => {
            if rank == 0 {
                eprintln!("mparray: error: {m}");
            } else {
                eprintln!("mparray: error: rank {rank}: {m}");
            }
            1
        }
    }
}

impl Command {
    /// Whether the command runs on every MPI rank (the batch calculators,
    /// real gemm, huge mul, the MPI benches); the others run on rank 0.
    fn distributed(&self) -> bool {
        match self {
            Command::Int(_) | Command::Float(_) => true,
            Command::Blas(a) => a.distributed(),
            Command::Huge(a) => a.distributed(),
            Command::Bench(a) => a.distributed(),
            _ => false,
        }
    }
}

/// One input file of the batch calculators (`-`: standard input): its name
/// for messages and its text.
pub(crate) struct Input {
    pub(crate) name: String,
    pub(crate) text: String,
    /// Lines of the file before `text` (nonzero for a rank's share of a
    /// batch split across MPI ranks): messages give `first + k` as the line.
    pub(crate) first: usize,
}

/// All of `r` (`size`: the expected length, 0 if unknown), every growth of
/// the buffer checked: an input larger than the memory (or than
/// `MPARRAY_HOST_MEM_LIMIT`) is an error that names it and its size, not
/// an abort.
pub(crate) fn read_checked(
    name: &str,
    r: &mut impl Read,
    size: usize,
) -> Result<Vec<u8>, CommandError> {
    let op = format!("reading {name}");
    let mut v = crate::engine::host::with_capacity::<u8>(&op, size)?;
    let mut buf = vec![0u8; 1 << 20];
    loop {
        let k = match r.read(&mut buf) {
            Ok(0) => return Ok(v),
            Ok(k) => k,
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
            Err(e) => return Err(CommandError::Input(format!("cannot read {name}: {e}"))),
        };
        if v.capacity() - v.len() < k {
            let want = v.len().saturating_mul(2).max(v.len() + k);
            crate::engine::host::check::<u8>(&op, want)?;
            v.try_reserve_exact(want - v.len())
                .map_err(|_| Error::HostMemory {
                    op: op.clone(),
                    requested: want as u64,
                    why: "the allocator refused (not enough memory on this machine)".into(),
                })?;
        }
        v.extend_from_slice(&buf[..k]);
    }
}

impl Input {
    pub(crate) fn read(path: &std::path::Path) -> Result<Input, CommandError> {
        let (name, bytes) = if path.as_os_str() == "-" {
            let name = "<stdin>".to_string();
            let v = read_checked(&name, &mut std::io::stdin().lock(), 0)?;
            (name, v)
        } else {
            let name = path.display().to_string();
            let cannot = |e| CommandError::Input(format!("cannot read {name}: {e}"));
            let mut f = std::fs::File::open(path).map_err(cannot)?;
            let size = f.metadata().map(|m| m.len() as usize).unwrap_or(0);
            let v = read_checked(&name, &mut f, size)?;
            (name, v)
        };
        let text = String::from_utf8(bytes).map_err(|e| {
            let at = e.utf8_error().valid_up_to();
            let line = e.as_bytes()[..at].iter().filter(|&&b| b == b'\n').count() + 1;
            CommandError::Input(format!("{name}:{line}: not valid UTF-8 text"))
        })?;
        Ok(Input {
            name,
            text,
            first: 0,
        })
    }

    /// The lines (their list checked as a host allocation: one slice per
    /// line). A final line end does not start another line, so `""`
    /// has no lines, `"5\n"` one, and `"5\n\n"` two (the second blank).
    pub(crate) fn lines(&self) -> Vec<&str> {
        let t = self.text.strip_prefix('\u{feff}').unwrap_or(&self.text);
        if t.is_empty() {
            return Vec::new();
        }
        t.strip_suffix('\n').unwrap_or(t).split('\n').collect()
    }

    /// An error of the library about element `index` of this file, with the
    /// file name and line number.
    fn locate(&self, e: Error) -> CommandError {
        match e {
            Error::Parse { index, text, .. } if text.is_empty() => CommandError::Input(format!(
                "{}:{}: empty line (every line must hold one number)",
                self.name,
                self.first + index + 1
            )),
            Error::Parse {
                index,
                text,
                reason,
            } => CommandError::Input(format!(
                "{}:{}: cannot parse {text:?}: {reason}",
                self.name,
                self.first + index + 1
            )),
            Error::TooWide {
                index,
                needed,
                width,
            } => CommandError::Input(format!(
                "{}:{}: value does not fit in {width} bits (it needs {needed} bits)",
                self.name,
                self.first + index + 1
            )),
            other => other.into(),
        }
    }
}
