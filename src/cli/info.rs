//! `mparray info`: what engines this machine offers.

use super::CommandError;
use crate::engine::cuda::compile;

pub fn run() -> Result<(), CommandError> {
    println!("mparray {}", env!("CARGO_PKG_VERSION"));
    println!(
        "cpu: available, {} threads (rayon)",
        rayon::current_num_threads()
    );
    let llc = crate::int::cpu::cache::llc_bytes();
    println!(
        "  last-level cache {} MiB: int add/sub store non-temporally above {} MiB of operands and result",
        llc >> 20,
        llc >> 21
    );
    match crate::engine::cuda_status() {
        Ok(eng) => {
            let i = eng.info();
            println!("cuda: available");
            println!("  device {}: {}", i.ordinal, i.name);
            println!(
                "  compute capability {}.{} ({}), {} SMs, {:.1} GiB memory, {} MiB L2",
                i.compute_capability.0,
                i.compute_capability.1,
                i.arch(),
                i.sms,
                i.memory_bytes as f64 / (1u64 << 30) as f64,
                i.l2_bytes >> 20
            );
            println!(
                "  driver CUDA version {}.{}, NVRTC {}.{}",
                i.driver_version / 1000,
                (i.driver_version % 1000) / 10,
                i.nvrtc_version.0,
                i.nvrtc_version.1
            );
            let limit = match eng.mem_limit() {
                Some(l) => format!(", limit {} MiB (MPARRAY_CUDA_MEM_LIMIT)", l >> 20),
                None => String::new(),
            };
            println!("  memory free {} MiB{limit}", eng.free_bytes() >> 20);
            if let Some(d) = &i.cache_dir {
                println!("  kernel cache: {}", d.display());
            }
            println!("default engine: cuda");
        }
        Err(e) => {
            println!("cuda: not usable: {}", strip(&e.to_string()));
            match compile::nvrtc_version() {
                Ok((a, b)) => println!("  NVRTC {a}.{b} found (kernels can be compiled)"),
                Err(_) => println!("  NVRTC not found"),
            }
            println!("default engine: cpu");
        }
    }
    Ok(())
}

fn strip(s: &str) -> &str {
    s.strip_prefix("CUDA is not available: ").unwrap_or(s)
}
