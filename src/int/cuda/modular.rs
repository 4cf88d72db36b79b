//! Modular arithmetic on CUDA (`src/kernels/int_modular.cu`): one thread per
//! element, the element's width a compile-time constant (one module per
//! limb count, compiled at first use), up to [`GPU_MAX_LIMBS`] limbs.
//! Wider arrays, `gcd_ext`, and `modinv` with an even modulus run the CPU
//! functions (`int::cpu::modular`) with a transfer each way.

use std::sync::Arc;

use cudarc::driver::{CudaSlice, LaunchConfig, PushKernelArg};

use super::{alloc, alloc_zeros, download, launched, upload};
use crate::engine::CudaEngine;
use crate::error::{Error, Result};
use crate::int::cpu::modular::{self as cpu, HostOperand};
use crate::kernels::{INT_MODULAR, Instance};

/// Widest element (in limbs) the kernels take; wider ones run on the CPU.
pub const GPU_MAX_LIMBS: usize = 64;

/// One value per element, or one value (of `limbs` limbs) for the whole batch.
#[derive(Clone, Copy, Debug)]
pub enum Operand<'a> {
    Each(&'a CudaSlice<u64>),
    All(&'a CudaSlice<u64>),
}

impl<'a> Operand<'a> {
    fn buf(&self) -> &'a CudaSlice<u64> {
        match *self {
            Operand::Each(b) | Operand::All(b) => b,
        }
    }
    fn each(&self) -> u32 {
        matches!(self, Operand::Each(_)) as u32
    }
    fn check(&self, what: &str, len: usize, l: usize) -> Result<()> {
        let want = if self.each() == 1 { len * l } else { l };
        let got = self.buf().len();
        if got < want.max(1) {
            return Err(Error::Shape(format!(
                "{what}: {got} limbs where {want} were expected"
            )));
        }
        Ok(())
    }
}

fn inst(limbs: usize) -> Instance {
    Instance::new(&INT_MODULAR, &[("MOD_N", 2 * limbs as i64)])
}

/// The instantiations CI compiles: the benchmark widths and the smallest
/// (every other limb count is the same template, compiled at first use).
pub fn instances() -> Vec<Instance> {
    [1usize, 4, 16, 32, 64].iter().map(|&l| inst(l)).collect()
}

fn check_len(what: &str, buf: &CudaSlice<u64>, len: usize, l: usize) -> Result<()> {
    if buf.len() < (len * l).max(1) {
        return Err(Error::Shape(format!(
            "{what}: {} limbs where {} were expected",
            buf.len(),
            len * l
        )));
    }
    Ok(())
}

/// Threads of a launch: enough for the batch, at most what the window
/// tables' scratch allows (about 512 MiB) and 16 blocks of 128 per SM.
fn threads(eng: &CudaEngine, len: usize, limbs: usize, table: bool) -> u32 {
    let sms = eng.info().sms.max(1) as usize;
    let mut t = len.div_ceil(128) * 128;
    t = t.min(sms * 16 * 128);
    if table {
        let per = 16 * 2 * limbs * 4;
        t = t.min(((512usize << 20) / per / 128).max(1) * 128);
    }
    t.max(128) as u32
}

/// Signed 30-bit limbs of the inverse kernel's values (`IV_K`: W + 2 bits).
fn inv_limbs30(limbs: usize) -> usize {
    (64 * limbs + 31) / 30
}

fn cfg(threads: u32) -> LaunchConfig {
    LaunchConfig {
        grid_dim: (threads / 128, 1, 1),
        block_dim: (128, 1, 1),
        shared_mem_bytes: 0,
    }
}

/// First zero modulus, then (when `odd`) first even one, as errors.
fn check_moduli(
    eng: &Arc<CudaEngine>,
    m: Operand,
    len: usize,
    limbs: usize,
    odd: bool,
) -> Result<bool> {
    let f = eng.function(&inst(limbs), "mod_check")?;
    let mut flags = upload(eng, &[u64::MAX, u64::MAX])?;
    let (n, each) = (len as u64, m.each());
    let cnt = if each == 1 { len } else { 1 };
    let mut b = eng.stream().launch_builder(&f);
    b.arg(m.buf()).arg(&each).arg(&n).arg(&mut flags);
    // SAFETY: reads cnt moduli of `limbs` limbs; writes the two flags.
    launched(
        unsafe { b.launch(super::grid(cnt as u64, 256)) },
        "mod_check",
    )?;
    let fl = download(eng, &flags)?;
    if fl[0] != u64::MAX && (!odd || fl[1] == u64::MAX || fl[0] < fl[1]) {
        return Err(Error::DivisionByZero {
            index: fl[0] as usize,
        });
    }
    if odd && fl[1] != u64::MAX {
        return Err(Error::Invalid(format!(
            "element {}: Montgomery form needs an odd modulus",
            fl[1]
        )));
    }
    Ok(fl[1] != u64::MAX)
}

fn host(eng: &Arc<CudaEngine>, buf: &CudaSlice<u64>, n: usize) -> Result<Vec<u64>> {
    let mut v = download(eng, buf)?;
    v.truncate(n);
    Ok(v)
}

fn host_op(eng: &Arc<CudaEngine>, op: Operand, len: usize, l: usize) -> Result<(Vec<u64>, bool)> {
    match op {
        Operand::Each(b) => Ok((host(eng, b, len * l)?, true)),
        Operand::All(b) => Ok((host(eng, b, l)?, false)),
    }
}

fn hop(v: &[u64], each: bool) -> HostOperand<'_> {
    if each {
        HostOperand::Each(v)
    } else {
        HostOperand::All(v)
    }
}

fn out(eng: &Arc<CudaEngine>, v: &[u64]) -> Result<CudaSlice<u64>> {
    upload(eng, v)
}

pub fn powm(
    eng: &Arc<CudaEngine>,
    base: &CudaSlice<u64>,
    exp: Operand,
    m: Operand,
    len: usize,
    limbs: usize,
) -> Result<CudaSlice<u64>> {
    let _op = crate::engine::cuda::memory::op_scope("int powm");
    check_len("powm", base, len, limbs)?;
    exp.check("powm exponent", len, limbs)?;
    m.check("powm modulus", len, limbs)?;
    if limbs > GPU_MAX_LIMBS {
        let b = host(eng, base, len * limbs)?;
        let (e, ee) = host_op(eng, exp, len, limbs)?;
        let (mm, me) = host_op(eng, m, len, limbs)?;
        let r = cpu::powm(&b, hop(&e, ee), hop(&mm, me), limbs)?;
        return out(eng, &r);
    }
    if len == 0 {
        check_moduli(eng, m, 0, limbs, false)?;
        return alloc_zeros(eng, 0);
    }
    check_moduli(eng, m, len, limbs, false)?;
    let mut r = alloc::<u64>(eng, len * limbs)?;
    let t = threads(eng, len, limbs, true);
    let mut tab = alloc::<u32>(eng, t as usize * 16 * 2 * limbs)?;
    let f = eng.function(&inst(limbs), "mod_powm")?;
    let (n, ee, me) = (len as u64, exp.each(), m.each());
    let mut b = eng.stream().launch_builder(&f);
    b.arg(&mut r)
        .arg(base)
        .arg(exp.buf())
        .arg(&ee)
        .arg(m.buf())
        .arg(&me)
        .arg(&n)
        .arg(&mut tab);
    // SAFETY: operands checked above; the table holds 16*2*limbs words per thread.
    launched(unsafe { b.launch(cfg(t)) }, "mod_powm")?;
    Ok(r)
}

pub fn gcd(
    eng: &Arc<CudaEngine>,
    a: &CudaSlice<u64>,
    b: Operand,
    len: usize,
    limbs: usize,
) -> Result<CudaSlice<u64>> {
    let _op = crate::engine::cuda::memory::op_scope("int gcd");
    check_len("gcd", a, len, limbs)?;
    b.check("gcd operand", len, limbs)?;
    if limbs > GPU_MAX_LIMBS {
        let av = host(eng, a, len * limbs)?;
        let (bv, be) = host_op(eng, b, len, limbs)?;
        return out(eng, &cpu::gcd(&av, hop(&bv, be), limbs)?);
    }
    let mut r = alloc::<u64>(eng, len * limbs)?;
    if len == 0 {
        return Ok(r);
    }
    let f = eng.function(&inst(limbs), "mod_gcd")?;
    let (n, be) = (len as u64, b.each());
    let mut bl = eng.stream().launch_builder(&f);
    bl.arg(&mut r).arg(a).arg(b.buf()).arg(&be).arg(&n);
    // SAFETY: operands checked above.
    launched(
        unsafe { bl.launch(cfg(threads(eng, len, limbs, false))) },
        "mod_gcd",
    )?;
    Ok(r)
}

/// On the CPU (with a transfer each way): malachite's cofactors.
pub fn gcd_ext(
    eng: &Arc<CudaEngine>,
    a: &CudaSlice<u64>,
    b: Operand,
    len: usize,
    limbs: usize,
) -> Result<(CudaSlice<u64>, CudaSlice<u64>, CudaSlice<u64>)> {
    let _op = crate::engine::cuda::memory::op_scope("int gcd_ext");
    check_len("gcd_ext", a, len, limbs)?;
    b.check("gcd_ext operand", len, limbs)?;
    let av = host(eng, a, len * limbs)?;
    let (bv, be) = host_op(eng, b, len, limbs)?;
    let (g, s, t) = cpu::gcd_ext(&av, hop(&bv, be), limbs)?;
    Ok((out(eng, &g)?, out(eng, &s)?, out(eng, &t)?))
}

pub fn modinv(
    eng: &Arc<CudaEngine>,
    a: &CudaSlice<u64>,
    m: Operand,
    len: usize,
    limbs: usize,
) -> Result<(CudaSlice<u64>, CudaSlice<u8>)> {
    let _op = crate::engine::cuda::memory::op_scope("int modinv");
    check_len("modinv", a, len, limbs)?;
    m.check("modinv modulus", len, limbs)?;
    let cpu_all = |eng: &Arc<CudaEngine>| -> Result<(CudaSlice<u64>, CudaSlice<u8>)> {
        let av = host(eng, a, len * limbs)?;
        let (mv, me) = host_op(eng, m, len, limbs)?;
        let (x, ok) = cpu::modinv(&av, hop(&mv, me), limbs)?;
        let flags: Vec<u8> = ok.iter().map(|&o| o as u8).collect();
        Ok((out(eng, &x)?, upload(eng, &flags)?))
    };
    if limbs > GPU_MAX_LIMBS {
        return cpu_all(eng);
    }
    let any_even = check_moduli(eng, m, len, limbs, false)?;
    if len == 0 {
        return Ok((alloc_zeros(eng, 0)?, alloc_zeros(eng, 0)?));
    }
    if any_even {
        // The divstep inverse needs an odd modulus.
        return cpu_all(eng);
    }
    let mut r = alloc_zeros::<u64>(eng, len * limbs)?;
    let mut fl = alloc_zeros::<u8>(eng, len)?;
    // Scratch: d, e and m in signed 30-bit limbs, per thread of the grid.
    let k = inv_limbs30(limbs);
    let t = threads(eng, len, limbs, false)
        .min(((256usize << 20) / (3 * k * 4) / 128).max(1) as u32 * 128);
    let mut scr = alloc::<i32>(eng, t as usize * 3 * k)?;
    let f = eng.function(&inst(limbs), "mod_inv")?;
    let (n, me) = (len as u64, m.each());
    let mut bl = eng.stream().launch_builder(&f);
    bl.arg(&mut r)
        .arg(&mut fl)
        .arg(a)
        .arg(m.buf())
        .arg(&me)
        .arg(&n)
        .arg(&mut scr);
    // SAFETY: operands checked above; writes len elements and len flags;
    // the scratch holds 3 * k words per thread of the grid.
    launched(unsafe { bl.launch(cfg(t)) }, "mod_inv")?;
    Ok((r, fl))
}

#[allow(clippy::too_many_arguments)]
fn mont(
    what: &'static str,
    eng: &Arc<CudaEngine>,
    a: &CudaSlice<u64>,
    b: Option<&CudaSlice<u64>>,
    m: Operand,
    len: usize,
    limbs: usize,
    op: u32,
) -> Result<CudaSlice<u64>> {
    let _op = crate::engine::cuda::memory::op_scope(what);
    check_len(what, a, len, limbs)?;
    if let Some(b) = b {
        check_len(what, b, len, limbs)?;
    }
    m.check(&format!("{what} modulus"), len, limbs)?;
    if limbs > GPU_MAX_LIMBS {
        let av = host(eng, a, len * limbs)?;
        let (mv, me) = host_op(eng, m, len, limbs)?;
        let r = match op {
            0 => cpu::to_montgomery(&av, hop(&mv, me), limbs)?,
            1 => cpu::from_montgomery(&av, hop(&mv, me), limbs)?,
            _ => {
                let bv = host(eng, b.unwrap(), len * limbs)?;
                cpu::mont_mul(&av, &bv, hop(&mv, me), limbs)?
            }
        };
        return out(eng, &r);
    }
    check_moduli(eng, m, len, limbs, true)?;
    let mut r = alloc::<u64>(eng, len * limbs)?;
    if len == 0 {
        return Ok(r);
    }
    let f = eng.function(&inst(limbs), "mod_mont")?;
    let (n, me) = (len as u64, m.each());
    let bb = b.unwrap_or(a);
    let mut bl = eng.stream().launch_builder(&f);
    bl.arg(&mut r)
        .arg(a)
        .arg(bb)
        .arg(m.buf())
        .arg(&me)
        .arg(&n)
        .arg(&op);
    // SAFETY: operands checked above.
    launched(
        unsafe { bl.launch(cfg(threads(eng, len, limbs, false))) },
        what,
    )?;
    Ok(r)
}

pub fn to_montgomery(
    eng: &Arc<CudaEngine>,
    a: &CudaSlice<u64>,
    m: Operand,
    len: usize,
    limbs: usize,
) -> Result<CudaSlice<u64>> {
    mont("int to_montgomery", eng, a, None, m, len, limbs, 0)
}

pub fn from_montgomery(
    eng: &Arc<CudaEngine>,
    a: &CudaSlice<u64>,
    m: Operand,
    len: usize,
    limbs: usize,
) -> Result<CudaSlice<u64>> {
    mont("int from_montgomery", eng, a, None, m, len, limbs, 1)
}

pub fn mont_mul(
    eng: &Arc<CudaEngine>,
    a: &CudaSlice<u64>,
    b: &CudaSlice<u64>,
    m: Operand,
    len: usize,
    limbs: usize,
) -> Result<CudaSlice<u64>> {
    mont("int mont_mul", eng, a, Some(b), m, len, limbs, 2)
}
