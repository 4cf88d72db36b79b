//! Comparisons, shifts, bit logic, bit counts, the integer square root and
//! the primality screen on CUDA (src/kernels/int_bits.cu, one module for
//! every width; the strategies are described there). The square root
//! chains the division kernels: a start within about 2^-30 of the root,
//! then `ceil(log2 W) - 3` (at least 2) Newton steps `x = min(x, (x + a/x)/2)`,
//! each a `divrem` and one step kernel, and `r = a - s*s` by `mul` and `sub`.

use std::sync::Arc;

use cudarc::driver::{CudaSlice, PushKernelArg};

use super::{alloc, alloc_for, download, grid, launched, upload};
use crate::engine::CudaEngine;
use crate::engine::cuda::memory::op_scope;
use crate::error::Result;
use crate::int::cpu::bits::{Logic, SCREEN_BOUND, screen_tables};
use crate::kernels::{INT_BITS, Instance};

fn inst() -> Instance {
    Instance::new(&INT_BITS, &[])
}

/// Every instantiation this module can request.
pub fn instances() -> Vec<Instance> {
    vec![inst()]
}

const BLOCK: u32 = 256;

/// A launch with one warp per element.
fn warp_grid(len: usize) -> cudarc::driver::LaunchConfig {
    grid(len as u64 * 32, BLOCK)
}

/// `a op b` limb by limb, or `!a` when `b` is `None`.
pub fn logic(
    eng: &Arc<CudaEngine>,
    a: &CudaSlice<u64>,
    b: Option<(&CudaSlice<u64>, Logic)>,
    len: usize,
    limbs: usize,
) -> Result<CudaSlice<u64>> {
    let _op = op_scope("int bit logic");
    let total = (len * limbs) as u64;
    let mut r = alloc(eng, len * limbs)?;
    if total == 0 {
        return Ok(r);
    }
    let f = eng.function(&inst(), "bits_logic")?;
    let (bb, op) = match b {
        Some((b, Logic::And)) => (b, 0u32),
        Some((b, Logic::Or)) => (b, 1),
        Some((b, Logic::Xor)) => (b, 2),
        None => (a, 3),
    };
    let mut bld = eng.stream().launch_builder(&f);
    bld.arg(&mut r).arg(a).arg(bb).arg(&total).arg(&op);
    // SAFETY: a, b and r hold `total` limbs.
    launched(unsafe { bld.launch(grid(total, BLOCK)) }, "bits_logic")?;
    Ok(r)
}

/// `a << c` or `a >> c` per element: `counts` (one per element, on the
/// device) or `all` for every element.
pub fn shift(
    eng: &Arc<CudaEngine>,
    a: &CudaSlice<u64>,
    counts: Option<&CudaSlice<u64>>,
    all: u64,
    len: usize,
    limbs: usize,
    left: bool,
) -> Result<CudaSlice<u64>> {
    let _op = op_scope(if left { "int shl" } else { "int shr" });
    let mut r = alloc(eng, len * limbs)?;
    if len == 0 {
        return Ok(r);
    }
    let f = eng.function(&inst(), "bits_shift")?;
    let (n, l, lf) = (len as u64, limbs as u32, u32::from(left));
    let null = 0u64;
    let mut bld = eng.stream().launch_builder(&f);
    bld.arg(&mut r).arg(a);
    match counts {
        Some(c) => bld.arg(c),
        None => bld.arg(&null),
    };
    bld.arg(&all).arg(&n).arg(&l).arg(&lf);
    // SAFETY: a and r hold len*limbs limbs, counts (if any) len.
    launched(
        unsafe { bld.launch(grid(n * limbs as u64, BLOCK)) },
        "bits_shift",
    )?;
    Ok(r)
}

/// `sign(a - b)` per element (-1, 0, 1), on the device.
pub fn cmp_dev(
    eng: &Arc<CudaEngine>,
    a: &CudaSlice<u64>,
    b: &CudaSlice<u64>,
    len: usize,
    limbs: usize,
) -> Result<CudaSlice<i8>> {
    let _op = op_scope("int cmp");
    let mut out = alloc_for::<i8>(eng, "comparison results", len)?;
    if len == 0 {
        return Ok(out);
    }
    let f = eng.function(&inst(), "bits_cmp")?;
    let (n, l) = (len as u64, limbs as u32);
    let mut bld = eng.stream().launch_builder(&f);
    bld.arg(&mut out).arg(a).arg(b).arg(&n).arg(&l);
    // SAFETY: a, b hold len*limbs limbs, out len bytes.
    launched(unsafe { bld.launch(warp_grid(len)) }, "bits_cmp")?;
    Ok(out)
}

/// `sign(a - b)` per element, on the host.
pub fn cmp(
    eng: &Arc<CudaEngine>,
    a: &CudaSlice<u64>,
    b: &CudaSlice<u64>,
    len: usize,
    limbs: usize,
) -> Result<Vec<i8>> {
    let d = cmp_dev(eng, a, b, len, limbs)?;
    let mut v = download(eng, &d)?;
    v.truncate(len);
    Ok(v)
}

/// Popcount (`bit_length` false) or bit length per element, on the host.
pub fn count(
    eng: &Arc<CudaEngine>,
    a: &CudaSlice<u64>,
    len: usize,
    limbs: usize,
    bit_length: bool,
) -> Result<Vec<u64>> {
    let _op = op_scope(if bit_length {
        "int bit_length"
    } else {
        "int popcount"
    });
    if len == 0 {
        return Ok(Vec::new());
    }
    let mut out = alloc::<u64>(eng, len)?;
    let f = eng.function(&inst(), "bits_count")?;
    let (n, l, m) = (len as u64, limbs as u32, u32::from(bit_length));
    let mut bld = eng.stream().launch_builder(&f);
    bld.arg(&mut out).arg(a).arg(&n).arg(&l).arg(&m);
    // SAFETY: a holds len*limbs limbs, out len.
    launched(unsafe { bld.launch(warp_grid(len)) }, "bits_count")?;
    let mut v = download(eng, &out)?;
    v.truncate(len);
    Ok(v)
}

/// Newton steps of the square root for `W = 64*limbs` bits.
pub fn isqrt_steps(limbs: usize) -> u32 {
    let w = 64 * limbs as u64;
    let lg = 64 - (w - 1).leading_zeros(); // ceil(log2 W)
    lg.saturating_sub(3).max(2)
}

/// Floor square root and remainder per element.
pub fn isqrt(
    eng: &Arc<CudaEngine>,
    a: &CudaSlice<u64>,
    len: usize,
    limbs: usize,
) -> Result<(CudaSlice<u64>, CudaSlice<u64>)> {
    let _op = op_scope("int isqrt");
    let mut x = alloc(eng, len * limbs)?;
    if len == 0 {
        let r = alloc(eng, 0)?;
        return Ok((x, r));
    }
    let (n, l) = (len as u64, limbs as u32);
    let cfg = grid(n, 128);
    let f = eng.function(&inst(), "isqrt_init")?;
    let mut bld = eng.stream().launch_builder(&f);
    bld.arg(&mut x).arg(a).arg(&n).arg(&l);
    // SAFETY: a and x hold len*limbs limbs.
    launched(unsafe { bld.launch(cfg) }, "isqrt_init")?;
    let step = eng.function(&inst(), "isqrt_step")?;
    for _ in 0..isqrt_steps(limbs) {
        // x >= 1 everywhere: no zero divisor.
        let (mut q, _) = super::divrem(eng, a, &x, len, limbs)?;
        let mut bld = eng.stream().launch_builder(&step);
        bld.arg(&mut x).arg(&mut q).arg(&n).arg(&l);
        // SAFETY: x and q hold len*limbs limbs.
        launched(unsafe { bld.launch(cfg) }, "isqrt_step")?;
    }
    let sq = super::mul(eng, &x, &x, len, limbs)?;
    let (mut r, _) = super::add_sub(eng, a, &sq, len, limbs, true, false)?;
    let fix = eng.function(&inst(), "isqrt_fix")?;
    let mut bld = eng.stream().launch_builder(&fix);
    bld.arg(&mut x).arg(&mut r).arg(a).arg(&n).arg(&l);
    // SAFETY: x, r and a hold len*limbs limbs.
    launched(unsafe { bld.launch(cfg) }, "isqrt_fix")?;
    Ok((x, r))
}

/// The primality screen per element (see `cpu::bits::screen_one`), on the host.
pub fn screen(
    eng: &Arc<CudaEngine>,
    a: &CudaSlice<u64>,
    len: usize,
    limbs: usize,
) -> Result<Vec<u8>> {
    let _op = op_scope("int prime screen");
    if len == 0 {
        return Ok(Vec::new());
    }
    let (primes, groups) = screen_tables();
    let flat: Vec<u32> = groups.iter().flatten().copied().collect();
    let (dp, dg) = (upload(eng, &primes)?, upload(eng, &flat)?);
    let mut out = alloc_for::<u8>(eng, "screen results", len)?;
    let f = eng.function(&inst(), "bits_screen")?;
    let (n, l, np, ng, bound) = (
        len as u64,
        limbs as u32,
        primes.len() as u32,
        groups.len() as u32,
        SCREEN_BOUND as u64,
    );
    let mut bld = eng.stream().launch_builder(&f);
    bld.arg(&mut out)
        .arg(a)
        .arg(&n)
        .arg(&l)
        .arg(&dp)
        .arg(&np)
        .arg(&dg)
        .arg(&ng)
        .arg(&bound);
    // SAFETY: a holds len*limbs limbs, out len bytes, the tables their sizes.
    launched(unsafe { bld.launch(grid(n, 128)) }, "bits_screen")?;
    let mut v = download(eng, &out)?;
    v.truncate(len);
    Ok(v)
}

#[cfg(test)]
mod tests {
    use super::*;
    use malachite_base::num::arithmetic::traits::FloorSqrt;
    use malachite_base::num::basic::traits::One;
    use malachite_nz::natural::Natural;

    /// The kernels' square root, step for step, on naturals.
    fn model(a: &Natural, limbs: usize) -> Natural {
        let b = a.significant_bits();
        let mut x = if b == 0 {
            Natural::ONE
        } else {
            let mut sh = b.saturating_sub(64);
            sh += sh & 1;
            let t = u64::try_from(&(a >> sh)).unwrap();
            let s = (t as f64).sqrt() as u64 + 2;
            Natural::from(s) << (sh / 2)
        };
        for _ in 0..isqrt_steps(limbs) {
            let y = (&x + a / &x) >> 1u32;
            if y < x {
                x = if y == 0u32 { Natural::ONE } else { y };
            }
        }
        if *a == 0u32 { Natural::from(0u32) } else { x }
    }
    use malachite_base::num::logic::traits::SignificantBits;

    #[test]
    fn isqrt_model_converges() {
        let mut z = 0x1234_5678_9abc_def1u64;
        let mut next = || {
            z = crate::int::random::mix64(z.wrapping_add(0x9E37_79B9_7F4A_7C15));
            z
        };
        for limbs in [1usize, 2, 3, 4, 8, 16, 32, 64, 65, 128] {
            let w = 64 * limbs as u64;
            let top = (Natural::ONE << w) - Natural::ONE;
            let mut cases = vec![
                Natural::from(0u32),
                Natural::ONE,
                Natural::from(2u32),
                Natural::from(3u32),
                Natural::from(4u32),
                top.clone(),
            ];
            let r = top.floor_sqrt();
            cases.push(&r * &r);
            cases.push(&r * &r - Natural::ONE);
            for _ in 0..200 {
                let bits = next() % w + 1;
                let v: Vec<u64> = (0..limbs).map(|_| next()).collect();
                let x = Natural::from_limbs_asc(&v) >> (w - bits);
                let s = x.clone().floor_sqrt();
                cases.push(x);
                cases.push(&s * &s);
                if s > 0u32 {
                    cases.push(&s * &s - Natural::ONE);
                }
            }
            for a in cases {
                assert_eq!(
                    model(&a, limbs),
                    a.clone().floor_sqrt(),
                    "{limbs} limbs, {a}"
                );
            }
        }
    }
}
