//! Benchmark suites behind `mparray bench`.

pub mod int;

use clap::Args;

use crate::cli::CliError;

#[derive(Args)]
pub struct BenchArgs {}

pub fn run(_a: BenchArgs) -> Result<(), CliError> {
    Err(CliError::Other("not yet implemented".into()))
}
