//! `mparray kernels list|compile`: every kernel instantiation the library
//! can request; `compile` builds each with NVRTC (no GPU needed) and fails on
//! any error or warning.

use clap::{Args, ValueEnum};

use super::CliError;
use crate::engine::cuda::compile;
use crate::kernels;

#[derive(Clone, Copy, ValueEnum)]
enum Action {
    List,
    Compile,
}

#[derive(Args)]
pub struct KernelsArgs {
    #[arg(value_enum)]
    action: Action,
    /// Target architecture for `compile`.
    #[arg(long, default_value = "sm_90")]
    arch: String,
}

pub fn run(a: KernelsArgs) -> Result<(), CliError> {
    let all = kernels::all_instances();
    match a.action {
        Action::List => {
            for i in &all {
                println!("{}", i.key());
            }
        }
        Action::Compile => {
            let mut bad = 0;
            for i in &all {
                // No cache: the point is to run the compiler.
                match compile::compile(i.source.name, &i.full_source(), &i.options(), &a.arch, None)
                {
                    Ok(c) if c.log.to_lowercase().contains("warning") => {
                        bad += 1;
                        eprintln!("WARNING in {}:\n{}", i.key(), c.log);
                    }
                    Ok(c) => println!("ok {} ({} bytes of {})", i.key(), c.cubin.len(), a.arch),
                    Err(e) => {
                        bad += 1;
                        eprintln!("FAILED {}: {e}", i.key());
                    }
                }
            }
            if bad > 0 {
                return Err(CliError::Other(format!(
                    "{bad} of {} kernel instantiations failed or warned",
                    all.len()
                )));
            }
            println!(
                "all {} kernel instantiations compiled for {}",
                all.len(),
                a.arch
            );
        }
    }
    Ok(())
}
