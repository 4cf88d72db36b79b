//! The CUDA engine for integer arrays: buffers, transfers and kernel
//! launches. Each operation picks a kernel tier by width; the tiers and the
//! compile-time parameters they use are listed by [`instances`], which the
//! CI compile check walks.

use std::sync::Arc;

use cudarc::driver::{CudaSlice, LaunchConfig, PushKernelArg};

use crate::engine::CudaEngine;
use crate::error::{Error, Result};
use crate::kernels::{INT_ADD, INT_DIV, INT_MUL, INT_RAND, Instance};

use super::Fused;

/// Zero-filled device buffer of `n` limbs.
pub fn alloc_zeros(eng: &Arc<CudaEngine>, n: usize) -> Result<CudaSlice<u64>> {
    eng.stream()
        .alloc_zeros::<u64>(n.max(1))
        .map_err(Error::driver(format!("allocating {} bytes", n * 8)))
}

/// Uninitialised device buffer of `n` limbs (every kernel writes all of it).
pub fn alloc(eng: &Arc<CudaEngine>, n: usize) -> Result<CudaSlice<u64>> {
    // SAFETY: callers only hand the buffer to kernels that write every limb.
    unsafe { eng.stream().alloc::<u64>(n.max(1)) }
        .map_err(Error::driver(format!("allocating {} bytes", n * 8)))
}

pub fn upload(eng: &Arc<CudaEngine>, data: &[u64]) -> Result<CudaSlice<u64>> {
    if data.is_empty() {
        return alloc_zeros(eng, 0);
    }
    eng.stream()
        .clone_htod(data)
        .map_err(Error::driver("copying to the device"))
}

pub fn download(eng: &Arc<CudaEngine>, buf: &CudaSlice<u64>) -> Result<Vec<u64>> {
    let mut v = eng
        .stream()
        .clone_dtoh(buf)
        .map_err(Error::driver("copying from the device"))?;
    // Empty arrays hold a one-limb placeholder.
    v.truncate(buf.len());
    Ok(v)
}

pub fn copy(eng: &Arc<CudaEngine>, buf: &CudaSlice<u64>) -> Result<CudaSlice<u64>> {
    eng.stream()
        .clone_dtod(buf)
        .map_err(Error::driver("copying on the device"))
}

/// A grid-stride launch over `items` work items.
fn grid(items: u64, block: u32) -> LaunchConfig {
    let blocks = items.div_ceil(block as u64).clamp(1, 65535 * 16) as u32;
    LaunchConfig {
        grid_dim: (blocks, 1, 1),
        block_dim: (block, 1, 1),
        shared_mem_bytes: 0,
    }
}

fn launched<T>(r: std::result::Result<T, cudarc::driver::DriverError>, what: &str) -> Result<()> {
    r.map(|_| ()).map_err(Error::driver(format!("launching {what}")))
}

fn inst_rand() -> Instance {
    Instance::new(&INT_RAND, &[])
}
fn inst_add() -> Instance {
    Instance::new(&INT_ADD, &[])
}
fn inst_mul() -> Instance {
    Instance::new(&INT_MUL, &[])
}
fn inst_div() -> Instance {
    Instance::new(&INT_DIV, &[])
}

/// Every instantiation this module can request.
pub fn instances() -> Vec<Instance> {
    vec![inst_rand(), inst_add(), inst_mul(), inst_div()]
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

pub fn fused(
    eng: &Arc<CudaEngine>,
    a: &CudaSlice<u64>,
    b: &CudaSlice<u64>,
    len: usize,
    limbs: usize,
    kind: Fused,
) -> Result<CudaSlice<u64>> {
    let mut r = alloc(eng, len * limbs)?;
    if len == 0 {
        return Ok(r);
    }
    let (n, l) = (len as u64, limbs as u32);
    match kind {
        Fused::SixAdd => {
            let f = eng.function(&inst_add(), "int_six_add_thread")?;
            let mut bld = eng.stream().launch_builder(&f);
            bld.arg(&mut r).arg(a).arg(b).arg(&n).arg(&l);
            // SAFETY: sizes match.
            launched(unsafe { bld.launch(grid(n, 128)) }, "int_six_add")?;
        }
        Fused::Poly => {
            let mut scratch = alloc(eng, len * 3 * limbs)?;
            let f = eng.function(&inst_mul(), "int_poly_thread")?;
            let mut bld = eng.stream().launch_builder(&f);
            bld.arg(&mut r).arg(a).arg(b).arg(&mut scratch).arg(&n).arg(&l);
            // SAFETY: sizes match; scratch 3l per element.
            launched(unsafe { bld.launch(grid(n, 128)) }, "int_poly")?;
        }
    }
    Ok(r)
}
