//! Division with remainder on CUDA.

use std::sync::Arc;

use cudarc::driver::{CudaSlice, PushKernelArg};

use super::{alloc, grid, launched};
use crate::engine::CudaEngine;
use crate::error::{Error, Result};
use crate::kernels::{INT_DIV, Instance};

fn inst_div() -> Instance {
    Instance::new(&INT_DIV, &[])
}

/// Every instantiation this module can request.
pub fn instances() -> Vec<Instance> {
    vec![inst_div()]
}

pub fn divrem(
    eng: &Arc<CudaEngine>,
    a: &CudaSlice<u64>,
    b: &CudaSlice<u64>,
    len: usize,
    limbs: usize,
) -> Result<(CudaSlice<u64>, CudaSlice<u64>)> {
    let mut q = alloc(eng, len * limbs)?;
    let mut r = alloc(eng, len * limbs)?;
    if len == 0 {
        return Ok((q, r));
    }
    let mut scratch = alloc(eng, len * (2 * limbs + 1))?;
    let mut zero_at = eng
        .stream()
        .clone_htod(&[u64::MAX])
        .map_err(Error::driver("allocating a flag"))?;
    let f = eng.function(&inst_div(), "int_divrem_thread")?;
    let (n, l) = (len as u64, limbs as u32);
    let mut bld = eng.stream().launch_builder(&f);
    bld.arg(&mut q)
        .arg(&mut r)
        .arg(a)
        .arg(b)
        .arg(&mut scratch)
        .arg(&mut zero_at)
        .arg(&n)
        .arg(&l);
    // SAFETY: buffers sized for len elements of limbs limbs; scratch 2l+1 each.
    launched(unsafe { bld.launch(grid(n, 64)) }, "int_divrem")?;
    let z = eng
        .stream()
        .clone_dtoh(&zero_at)
        .map_err(Error::driver("reading the zero-divisor flag"))?;
    if z[0] != u64::MAX {
        return Err(Error::DivisionByZero {
            index: z[0] as usize,
        });
    }
    Ok((q, r))
}

