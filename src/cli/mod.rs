//! The `mparray` command line: `info`, `int` and `float` (batch
//! calculators), `huge` (one huge number per file), `bench`,
//! and `kernels` (list or compile every kernel instantiation).
//!
//! Exit status: 0 on success, 2 on bad input (with file and line), 1 on other
//! failures.

mod float;
mod huge;
mod info;
mod int;
mod kernels;

use clap::{Parser, Subcommand};

use crate::engine::Engine;
use crate::error::Error;

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
    /// Benchmarks (`mparray bench int ...`).
    Bench(crate::bench::BenchArgs),
    /// List or compile every kernel instantiation (the CI compile check).
    Kernels(kernels::KernelsArgs),
}

/// A failure of a command, mapped to an exit status.
pub enum CliError {
    /// Bad input (exit status 2).
    Input(String),
    /// Anything else (exit status 1).
    Other(String),
}

impl From<Error> for CliError {
    fn from(e: Error) -> Self {
        match e {
            Error::Parse { .. }
            | Error::TooWide { .. }
            | Error::BadWidth { .. }
            | Error::Shape(_)
            | Error::DivisionByZero { .. }
            | Error::Invalid(_) => CliError::Input(e.to_string()),
            other => CliError::Other(other.to_string()),
        }
    }
}

/// Picks the engine named on the command line (`auto`: the best one found).
pub(crate) fn engine_from_arg(name: &str) -> Result<Engine, CliError> {
    Engine::from_name(name).map_err(|e| match e {
        Error::Invalid(m) => CliError::Input(m),
        other => CliError::Other(other.to_string()),
    })
}

/// Runs the command line; returns the exit status.
pub fn main() -> i32 {
    let cli = match Cli::try_parse() {
        Ok(c) => c,
        Err(e) => {
            let _ = e.print();
            return if e.use_stderr() { 2 } else { 0 };
        }
    };
    let result = match cli.cmd {
        Command::Info => info::run(),
        Command::Int(a) => int::run(a),
        Command::Huge(a) => huge::run(a),
        Command::Float(a) => float::run(a),
        Command::Bench(a) => crate::bench::run(a),
        Command::Kernels(a) => kernels::run(a),
    };
    match result {
        Ok(()) => 0,
        Err(CliError::Input(m)) => {
            eprintln!("mparray: error: {m}");
            2
        }
        Err(CliError::Other(m)) => {
            eprintln!("mparray: error: {m}");
            1
        }
    }
}
