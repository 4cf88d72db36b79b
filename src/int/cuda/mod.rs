//! The CUDA engine for integer arrays: buffers, transfers and kernel
//! launches. Each operation picks a kernel tier by width; the tiers and the
//! compile-time parameters they use are listed by [`instances`], which the
//! CI compile check walks.

use std::sync::Arc;

use cudarc::driver::{CudaSlice, LaunchConfig, PushKernelArg};

use crate::engine::CudaEngine;
use crate::error::{Error, Result};
use crate::kernels::{INT_RAND, Instance};

use super::Fused;

mod add;
pub mod bits;
mod div;
pub mod modular;
mod mul;

pub use add::add_sub;
pub use div::divrem;
pub use mul::{mul, mul_wide};

pub use crate::engine::cuda::memory::{
    alloc, alloc_for, alloc_zeros, alloc_zeros_for, copy, download, upload,
};

/// A grid-stride launch over `items` work items.
pub(crate) fn grid(items: u64, block: u32) -> LaunchConfig {
    let blocks = items.div_ceil(block as u64).clamp(1, 65535 * 16) as u32;
    LaunchConfig {
        grid_dim: (blocks, 1, 1),
        block_dim: (block, 1, 1),
        shared_mem_bytes: 0,
    }
}

pub(crate) fn launched<T>(
    r: std::result::Result<T, cudarc::driver::DriverError>,
    what: &str,
) -> Result<()> {
    r.map(|_| ())
        .map_err(Error::driver(format!("launching {what}")))
}

fn inst_rand() -> Instance {
    Instance::new(&INT_RAND, &[])
}

/// Every instantiation this module can request.
pub fn instances() -> Vec<Instance> {
    let mut v = vec![inst_rand()];
    v.extend(add::instances());
    v.extend(mul::instances());
    v.extend(div::instances());
    v.extend(bits::instances());
    v.extend(modular::instances());
    v
}

pub fn random_fill(
    eng: &Arc<CudaEngine>,
    buf: &mut CudaSlice<u64>,
    len: usize,
    limbs: usize,
    seed: u64,
    min: usize,
    max: usize,
) -> Result<()> {
    if len == 0 {
        return Ok(());
    }
    let f = eng.function(&inst_rand(), "int_random")?;
    let (n, l, mn, mx) = (len as u64, limbs as u32, min as u32, max as u32);
    let mut b = eng.stream().launch_builder(&f);
    b.arg(buf).arg(&n).arg(&l).arg(&seed).arg(&mn).arg(&mx);
    // SAFETY: buffer holds n*l limbs, the kernel writes exactly those.
    launched(unsafe { b.launch(grid(n * l as u64, 256)) }, "int_random")
}

/// A fused expression (see [`Fused`]) in one kernel.
pub fn fused(
    eng: &Arc<CudaEngine>,
    a: &CudaSlice<u64>,
    b: &CudaSlice<u64>,
    len: usize,
    limbs: usize,
    kind: Fused,
) -> Result<CudaSlice<u64>> {
    let _op = crate::engine::cuda::memory::op_scope("int fused expression");
    match kind {
        Fused::SixAdd => add::six_add(eng, a, b, len, limbs),
        Fused::Poly => mul::poly(eng, a, b, len, limbs),
    }
}
