//! Multiplication and the fused polynomial on CUDA.

use std::sync::Arc;

use cudarc::driver::{CudaSlice, PushKernelArg};

use super::{alloc, grid, launched};
use crate::engine::CudaEngine;
use crate::error::Result;
use crate::kernels::{INT_MUL, Instance};

fn inst_mul() -> Instance {
    Instance::new(&INT_MUL, &[])
}

/// Every instantiation this module can request.
pub fn instances() -> Vec<Instance> {
    vec![inst_mul()]
}

fn mul_any(
    eng: &Arc<CudaEngine>,
    a: &CudaSlice<u64>,
    b: &CudaSlice<u64>,
    len: usize,
    limbs: usize,
    wide: bool,
) -> Result<CudaSlice<u64>> {
    let mut r = alloc(eng, len * limbs * if wide { 2 } else { 1 })?;
    if len > 0 {
        let f = eng.function(&inst_mul(), "int_mul_thread")?;
        let (n, l, w) = (len as u64, limbs as u32, wide as u32);
        let mut bld = eng.stream().launch_builder(&f);
        bld.arg(&mut r).arg(a).arg(b).arg(&n).arg(&l).arg(&w);
        // SAFETY: r holds len*limbs*(1+wide) limbs.
        launched(unsafe { bld.launch(grid(n, 128)) }, "int_mul")?;
    }
    Ok(r)
}

pub fn mul(
    eng: &Arc<CudaEngine>,
    a: &CudaSlice<u64>,
    b: &CudaSlice<u64>,
    len: usize,
    limbs: usize,
) -> Result<CudaSlice<u64>> {
    mul_any(eng, a, b, len, limbs, false)
}

pub fn mul_wide(
    eng: &Arc<CudaEngine>,
    a: &CudaSlice<u64>,
    b: &CudaSlice<u64>,
    len: usize,
    limbs: usize,
) -> Result<CudaSlice<u64>> {
    mul_any(eng, a, b, len, limbs, true)
}


/// `(a*a+b)*(b*b+b)+a*b` (low halves) in one kernel.
pub fn poly(
    eng: &Arc<CudaEngine>,
    a: &CudaSlice<u64>,
    b: &CudaSlice<u64>,
    len: usize,
    limbs: usize,
) -> Result<CudaSlice<u64>> {
    let mut r = alloc(eng, len * limbs)?;
    if len == 0 {
        return Ok(r);
    }
    let (n, l) = (len as u64, limbs as u32);
    let mut scratch = alloc(eng, len * 3 * limbs)?;
    let f = eng.function(&inst_mul(), "int_poly_thread")?;
    let mut bld = eng.stream().launch_builder(&f);
    bld.arg(&mut r).arg(a).arg(b).arg(&mut scratch).arg(&n).arg(&l);
    // SAFETY: sizes match; scratch 3l per element.
    launched(unsafe { bld.launch(grid(n, 128)) }, "int_poly")?;
    Ok(r)
}
