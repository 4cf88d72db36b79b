//! `mparray kernels list|compile`: the kernel instantiations the library
//! can request (`--set`: those a warmed machine uses, by default; the
//! one-family function modules of a first use; all; CI's selection);
//! `compile` builds each with NVRTC (no GPU needed), all cores at once,
//! prints each one's time, and fails on any error or warning. `--cache`
//! keeps the CUBINs in the kernel cache, so a later run on that machine
//! loads them instead of compiling (the largest modules take a minute
//! each).

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

/// Which instantiations.
#[derive(Clone, Copy, ValueEnum)]
enum Set {
    /// What a warmed machine uses: each source's modules, the function
    /// modules of all functions at every tier.
    Warm,
    /// The one-family function modules a first use compiles when the full
    /// ones are not cached.
    Families,
    /// Every instantiation the library can request (warm and families).
    All,
    /// CI's check: warm (its function modules with `--Ofast-compile`),
    /// and each family at the smallest tier through NVRTC's front end
    /// only (no code generation; `list` marks them).
    Ci,
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
    /// (a substring: `FF_K=3` also takes `FF_K=34`; a whole key takes
    /// only that instantiation).
    #[arg(long, value_name = "SUBSTR")]
    only: Option<String>,
    /// Which instantiations (before `--only`).
    #[arg(long, value_enum, default_value = "warm")]
    set: Set,
}

pub fn run(a: KernelsArgs) -> Result<(), CommandError> {
    // (instance, front end only)
    let full = |v: Vec<kernels::Instance>| v.into_iter().map(|i| (i, false)).collect::<Vec<_>>();
    let mut all = match a.set {
        Set::Warm => full(kernels::warm_instances()),
        Set::Families => full(kernels::family_instances()),
        Set::All => full(kernels::all_instances()),
        Set::Ci => kernels::ci_instances(),
    };
    if let Some(s) = &a.only {
        if all.iter().any(|(i, _)| i.key() == *s) {
            all.retain(|(i, _)| i.key() == *s);
        } else {
            all.retain(|(i, _)| i.key().contains(s.as_str()));
        }
        if all.is_empty() {
            return Err(CommandError::Other(format!(
                "no kernel instantiation key contains {s:?} (see `mparray kernels list`)"
            )));
        }
    }
    match a.action {
        Action::List => {
            for (i, fe) in &all {
                let note = if *fe { " (front end only)" } else { "" };
                println!("{}{note}", i.key());
            }
        }
        Action::Compile => {
            let cache = a.cache.then(compile::cache_dir);
            // Every instantiation on its own thread of the pool: NVRTC is
            // single-threaded, and one compile can take minutes.
            let results: Vec<_> = all
                .par_iter()
                .map(|(i, fe)| {
                    let (w0, c0) = (std::time::Instant::now(), thread_cpu_s());
                    let (src, opts) = (i.full_source(), i.options());
                    let c = if *fe {
                        compile::check_front_end(i.source.name, &src, &opts, &a.arch).map(|log| {
                            compile::Compiled {
                                cubin: Vec::new(),
                                log,
                                from_cache: false,
                            }
                        })
                    } else {
                        compile::compile(i.source.name, &src, &opts, &a.arch, cache.as_deref())
                    };
                    let cpu = thread_cpu_s().zip(c0).map(|(b, a)| b - a);
                    (i, *fe, c, w0.elapsed().as_secs_f64(), cpu)
                })
                .collect();
            let mut bad = 0;
            let (mut sum_wall, mut sum_cpu) = (0.0, 0.0);
            for (i, fe, r, wall, cpu) in results {
                sum_wall += wall;
                sum_cpu += cpu.unwrap_or(wall);
                let secs = match cpu {
                    Some(c) => format!("{wall:.1} s wall, {c:.1} s CPU"),
                    None => format!("{wall:.1} s wall"),
                };
                match r {
                    Ok(c) if c.log.to_lowercase().contains("warning") => {
                        bad += 1;
                        eprintln!("WARNING in {}:\n{}", i.key(), c.log);
                    }
                    Ok(_) if fe => println!("ok {} (front end only, {secs})", i.key()),
                    Ok(c) => println!(
                        "ok {} ({} bytes of {}{}, {secs})",
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
                "all {} kernel instantiations compiled for {} (sum {sum_wall:.1} s wall, \
                 {sum_cpu:.1} s CPU)",
                all.len(),
                a.arch
            );
        }
    }
    Ok(())
}

/// CPU seconds used so far by the calling thread (Linux's schedstat: NVRTC
/// compiles on the calling thread, so this is one compile's cost whatever
/// else the machine runs); `None` where it cannot be read.
fn thread_cpu_s() -> Option<f64> {
    let s = std::fs::read_to_string("/proc/thread-self/schedstat").ok()?;
    let ns: f64 = s.split_whitespace().next()?.parse().ok()?;
    Some(ns * 1e-9)
}
