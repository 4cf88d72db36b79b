//! `mparray int OP --bits W [--engine E] A_FILE [B_FILE]`: the batch calculator.

use clap::Args;

use super::CliError;

#[derive(Args)]
pub struct IntArgs {}

pub fn run(_a: IntArgs) -> Result<(), CliError> {
    Err(CliError::Other("not yet implemented".into()))
}
