//! Addition, subtraction and the fused add chain on CUDA.

use std::sync::Arc;

use cudarc::driver::{CudaSlice, PushKernelArg};

use super::{alloc, grid, launched};
use crate::engine::CudaEngine;
use crate::error::{Error, Result};
use crate::kernels::{INT_ADD, Instance};

fn inst_add() -> Instance {
    Instance::new(&INT_ADD, &[])
}

/// Every instantiation this module can request.
pub fn instances() -> Vec<Instance> {
    vec![inst_add()]
}

/// `a +/- b`, with the carries/borrows out when `want_flags`.
pub fn add_sub(
    eng: &Arc<CudaEngine>,
    a: &CudaSlice<u64>,
    b: &CudaSlice<u64>,
    len: usize,
    limbs: usize,
    subtract: bool,
    want_flags: bool,
) -> Result<(CudaSlice<u64>, Option<Vec<bool>>)> {
    let mut r = alloc(eng, len * limbs)?;
    let mut flags = eng
        .stream()
        .alloc_zeros::<u8>(len.max(1))
        .map_err(Error::driver("allocating flags"))?;
    if len > 0 {
        let f = eng.function(&inst_add(), "int_add_sub_thread")?;
        let (n, l, s) = (len as u64, limbs as u32, subtract as u32);
        let mut bld = eng.stream().launch_builder(&f);
        bld.arg(&mut r).arg(a).arg(b).arg(&mut flags).arg(&n).arg(&l).arg(&s);
        // SAFETY: sizes match len*limbs; flags has len entries.
        launched(unsafe { bld.launch(grid(n, 128)) }, "int_add_sub")?;
    }
    let flags = if want_flags {
        let v = eng
            .stream()
            .clone_dtoh(&flags)
            .map_err(Error::driver("copying flags"))?;
        Some(v.into_iter().take(len).map(|x| x != 0).collect())
    } else {
        None
    };
    Ok((r, flags))
}


/// `a+b+a+b+a+b+a` in one kernel.
pub fn six_add(
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
    let f = eng.function(&inst_add(), "int_six_add_thread")?;
    let mut bld = eng.stream().launch_builder(&f);
    bld.arg(&mut r).arg(a).arg(b).arg(&n).arg(&l);
    // SAFETY: sizes match.
    launched(unsafe { bld.launch(grid(n, 128)) }, "int_six_add")?;
    Ok(r)
}
