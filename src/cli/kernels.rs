//! `mparray kernels list|compile`: every kernel instantiation the library
//! can request; `compile` builds each with NVRTC (no GPU needed), all cores
//! at once, and fails on any error or warning. `--cache` keeps the CUBINs
//! in the kernel cache, so a later run on that machine loads them instead of
//! compiling (the largest modules take minutes each).

use clap::{Args, ValueEnum};
use rayon::prelude::*;

use super::CommandError;
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
    /// Keep the CUBINs in the kernel cache ($MPARRAY_CACHE_DIR, else
    /// ~/.cache/mparray/kernels); instantiations already there are not
    /// compiled again.
    #[arg(long)]
    cache: bool,
    /// Only the instantiations whose key (as `list` prints it) contains
    /// this string, e.g. `float_func,FF_K=9` for a quick local check
    /// (a substring: `FF_K=3` also takes `FF_K=34`).
    #[arg(long, value_name = "SUBSTR")]
    only: Option<String>,
}

pub fn run(a: KernelsArgs) -> Result<(), CommandError> {
    let mut all = kernels::all_instances();
    if let Some(s) = &a.only {
        all.retain(|i| i.key().contains(s.as_str()));
        if all.is_empty() {
            return Err(CommandError::Other(format!(
                "no kernel instantiation key contains {s:?} (see `mparray kernels list`)"
            )));
        }
    }
    match a.action {
        Action::List => {
            for i in &all {
                println!("{}", i.key());
            }
        }
        Action::Compile => {
            let cache = a.cache.then(compile::cache_dir);
            // Every instantiation on its own thread of the pool: NVRTC is
            // single-threaded, and one compile can take minutes.
            let results: Vec<_> = all
                .par_iter()
                .map(|i| {
                    let c = compile::compile(
                        i.source.name,
                        &i.full_source(),
                        &i.options(),
                        &a.arch,
                        cache.as_deref(),
                    );
                    (i, c)
                })
                .collect();
            let mut bad = 0;
            for (i, r) in results {
                match r {
                    Ok(c) if c.log.to_lowercase().contains("warning") => {
                        bad += 1;
                        eprintln!("WARNING in {}:\n{}", i.key(), c.log);
                    }
                    Ok(c) => println!(
                        "ok {} ({} bytes of {}{})",
                        i.key(),
                        c.cubin.len(),
                        a.arch,
                        if c.from_cache { ", cached" } else { "" }
                    ),
                    Err(e) => {
                        bad += 1;
                        eprintln!("FAILED {}: {e}", i.key());
                    }
                }
            }
            if bad > 0 {
                return Err(CommandError::Other(format!(
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
