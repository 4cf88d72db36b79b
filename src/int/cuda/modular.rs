//! Modular arithmetic on CUDA (PLACEHOLDER of branch ntops): downloads the
//! operands, runs the CPU functions of `cpu::modular`, uploads the results.
//! The real kernels (helper ntmod) replace this file at merge with the same
//! signatures and semantics.

use std::sync::Arc;

use cudarc::driver::CudaSlice;

use super::{download, upload};
use crate::engine::CudaEngine;
use crate::error::Result;
use crate::int::cpu::modular::{self as host, HostOperand};

/// One value per element, or one value (of `limbs` limbs) for the whole batch.
#[derive(Clone, Copy, Debug)]
pub enum Operand<'a> {
    Each(&'a CudaSlice<u64>),
    All(&'a CudaSlice<u64>),
}

/// The operand's limbs on the host, and whether it is one value for all.
fn fetch(eng: &Arc<CudaEngine>, x: Operand) -> Result<(Vec<u64>, bool)> {
    Ok(match x {
        Operand::Each(b) => (download(eng, b)?, false),
        Operand::All(b) => (download(eng, b)?, true),
    })
}

fn op(v: &(Vec<u64>, bool)) -> HostOperand<'_> {
    if v.1 {
        HostOperand::All(&v.0)
    } else {
        HostOperand::Each(&v.0)
    }
}

/// `base^exp mod m`.
pub fn powm(
    eng: &Arc<CudaEngine>,
    base: &CudaSlice<u64>,
    exp: Operand,
    m: Operand,
    len: usize,
    limbs: usize,
) -> Result<CudaSlice<u64>> {
    let b = download(eng, base)?;
    let (e, mm) = (fetch(eng, exp)?, fetch(eng, m)?);
    let r = host::powm(&b[..len * limbs], op(&e), op(&mm), limbs)?;
    upload(eng, &r)
}

/// `gcd(a, b)`.
pub fn gcd(
    eng: &Arc<CudaEngine>,
    a: &CudaSlice<u64>,
    b: Operand,
    len: usize,
    limbs: usize,
) -> Result<CudaSlice<u64>> {
    let x = download(eng, a)?;
    let y = fetch(eng, b)?;
    upload(eng, &host::gcd(&x[..len * limbs], op(&y), limbs)?)
}

/// `(g, s, t)` with `a*s + b*t = g`, s and t as W-bit two's complement.
pub fn gcd_ext(
    eng: &Arc<CudaEngine>,
    a: &CudaSlice<u64>,
    b: Operand,
    len: usize,
    limbs: usize,
) -> Result<(CudaSlice<u64>, CudaSlice<u64>, CudaSlice<u64>)> {
    let x = download(eng, a)?;
    let y = fetch(eng, b)?;
    let (g, s, t) = host::gcd_ext(&x[..len * limbs], op(&y), limbs)?;
    Ok((upload(eng, &g)?, upload(eng, &s)?, upload(eng, &t)?))
}

/// `a^-1 mod m` and a flag (1 = the inverse exists).
pub fn modinv(
    eng: &Arc<CudaEngine>,
    a: &CudaSlice<u64>,
    m: Operand,
    len: usize,
    limbs: usize,
) -> Result<(CudaSlice<u64>, CudaSlice<u8>)> {
    let x = download(eng, a)?;
    let mm = fetch(eng, m)?;
    let (r, f) = host::modinv(&x[..len * limbs], op(&mm), limbs)?;
    let f: Vec<u8> = f.into_iter().map(u8::from).collect();
    Ok((upload(eng, &r)?, upload(eng, &f)?))
}

/// `a * 2^W mod m` (m odd).
pub fn to_montgomery(
    eng: &Arc<CudaEngine>,
    a: &CudaSlice<u64>,
    m: Operand,
    len: usize,
    limbs: usize,
) -> Result<CudaSlice<u64>> {
    let x = download(eng, a)?;
    let mm = fetch(eng, m)?;
    upload(
        eng,
        &host::to_montgomery(&x[..len * limbs], op(&mm), limbs)?,
    )
}

/// `a * 2^-W mod m` (m odd).
pub fn from_montgomery(
    eng: &Arc<CudaEngine>,
    a: &CudaSlice<u64>,
    m: Operand,
    len: usize,
    limbs: usize,
) -> Result<CudaSlice<u64>> {
    let x = download(eng, a)?;
    let mm = fetch(eng, m)?;
    upload(
        eng,
        &host::from_montgomery(&x[..len * limbs], op(&mm), limbs)?,
    )
}

/// `a * b * 2^-W mod m` (m odd).
pub fn mont_mul(
    eng: &Arc<CudaEngine>,
    a: &CudaSlice<u64>,
    b: &CudaSlice<u64>,
    m: Operand,
    len: usize,
    limbs: usize,
) -> Result<CudaSlice<u64>> {
    let x = download(eng, a)?;
    let y = download(eng, b)?;
    let mm = fetch(eng, m)?;
    upload(
        eng,
        &host::mont_mul(&x[..len * limbs], &y[..len * limbs], op(&mm), limbs)?,
    )
}

/// Every instantiation this module can request (none: no kernels here).
pub fn instances() -> Vec<crate::kernels::Instance> {
    Vec::new()
}
