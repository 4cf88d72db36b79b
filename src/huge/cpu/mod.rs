//! The CPU engine for huge naturals: limbs in a `Vec<u64>`; products by
//! malachite below [`NTT_T`] limbs and by the parallel four-step NTT of
//! [`ntt`] above; a much longer operand is cut into pieces.

pub mod ntt;
#[cfg(target_arch = "x86_64")]
pub mod ntt52;

use std::cmp::Ordering;

use malachite_nz::natural::Natural;

use super::engine::HugeEngine;
use crate::error::{Error, Result};
use crate::int::cpu::arith;

/// Products with both operands at least this many limbs (and a sum of at
/// least twice as many) use the parallel NTT where it runs in IFMA lanes;
/// smaller ones use malachite (one core). Measured on one core: the IFMA
/// transform takes 0.73 ms at 2^12 limbs (malachite 0.32 ms) and 1.25 ms at
/// 2^13 (malachite 1.9 ms).
pub const NTT_T: usize = 6 << 10;
/// The same for the scalar transform (2.6 ms at 2^13 limbs on one core, 5.4
/// ms at 2^14 against malachite's 1.9 and 3.3: it wins by its cores).
pub const NTT_T_SCALAR: usize = 16 << 10;

/// The NTT threshold of the transform that runs here. The scalar transform
/// takes 2.5-3x malachite's time per core, so it only runs with at least
/// four threads (below that every product goes to malachite).
pub fn ntt_t() -> usize {
    if ntt::uses_ifma() {
        NTT_T
    } else if rayon::current_num_threads() >= 4 {
        NTT_T_SCALAR
    } else {
        usize::MAX / 4
    }
}

/// A much longer operand is cut into pieces of this many times the shorter
/// one's length (each piece one transform).
pub const SPLIT_RATIO: usize = 4;

/// `n` zero limbs for a transform buffer: asks Linux for transparent huge
/// pages first (far fewer page faults and TLB misses in the strided column
/// passes), then zeroes in parallel.
pub(crate) fn big_buffer(n: usize) -> Vec<u64> {
    use rayon::prelude::*;
    let mut v: Vec<u64> = Vec::with_capacity(n);
    #[cfg(target_os = "linux")]
    {
        unsafe extern "C" {
            fn madvise(addr: *mut std::ffi::c_void, len: usize, advice: i32) -> i32;
        }
        const MADV_HUGEPAGE: i32 = 14;
        const HP: usize = 1 << 21;
        let a = v.as_mut_ptr() as usize;
        let (s, e) = ((a + HP - 1) & !(HP - 1), (a + 8 * n) & !(HP - 1));
        if e > s {
            // SAFETY: advice on pages of our own allocation; failure is harmless.
            unsafe { madvise(s as *mut std::ffi::c_void, e - s, MADV_HUGEPAGE) };
        }
    }
    v.spare_capacity_mut()
        .par_chunks_mut(1 << 16)
        .for_each(|c| {
            c.iter_mut().for_each(|x| {
                x.write(0);
            })
        });
    // SAFETY: all n limbs were written above.
    unsafe { v.set_len(n) };
    v
}

/// Transform buffers kept between products: fresh memory costs the kernel's
/// page zeroing (about a third of a 2^28-bit product on one core here).
static POOL: std::sync::Mutex<Vec<Vec<u64>>> = std::sync::Mutex::new(Vec::new());
/// At most this many buffers are kept ...
const POOL_MAX: usize = 5;
/// ... each of 2^16 to this many limbs (at most 1.25 GiB in all).
const POOL_LIMBS: usize = 1 << 25;

/// A transform buffer of `n` limbs with arbitrary contents (the caller
/// overwrites every limb).
pub(crate) fn take_buffer(n: usize) -> Vec<u64> {
    if (1 << 16..=POOL_LIMBS).contains(&n)
        && let Ok(mut p) = POOL.lock()
        && let Some(i) = p.iter().position(|v| v.len() == n)
    {
        return p.swap_remove(i);
    }
    big_buffer(n)
}

/// Returns a buffer of [`take_buffer`] for reuse.
pub(crate) fn give_buffer(v: Vec<u64>) {
    if (1 << 16..=POOL_LIMBS).contains(&v.len())
        && let Ok(mut p) = POOL.lock()
    {
        if p.len() >= POOL_MAX {
            p.remove(0);
        }
        p.push(v);
    }
}

/// Frees the transform buffers kept for reuse.
pub fn release_buffers() {
    if let Ok(mut p) = POOL.lock() {
        p.clear();
    }
}

/// The CPU engine (stateless).
#[derive(Clone, Copy, Debug, Default)]
pub struct CpuHuge;

/// `a * b` with malachite (any lengths, zeros allowed).
fn mul_small(a: &[u64], b: &[u64]) -> Vec<u64> {
    let (an, bn) = (arith::nlen(a), arith::nlen(b));
    let mut out = vec![0u64; a.len() + b.len()];
    if an == 0 || bn == 0 {
        return out;
    }
    let p = Natural::from_limbs_asc(&a[..an]) * Natural::from_limbs_asc(&b[..bn]);
    let l = p.to_limbs_asc();
    out[..l.len()].copy_from_slice(&l);
    out
}

/// `a * b` (`b == None`: `a * a`) in exactly `len(a) + len(b)` limbs.
pub fn mul_limbs(a: &[u64], b: Option<&[u64]>) -> Vec<u64> {
    let total = a.len() + b.map_or(a.len(), |b| b.len());
    let an = arith::nlen(a);
    let bn = b.map_or(an, arith::nlen);
    if an == 0 || bn == 0 {
        return vec![0u64; total];
    }
    // (No copy into a fresh zeroed vector: at 2^28 bits that alone costs
    // tens of milliseconds on one core.)
    let mut prod = mul_norm(&a[..an], b.map(|b| &b[..bn]));
    prod.resize(total, 0);
    prod
}

/// The product of normalized operands in `an + bn` limbs.
fn mul_norm(a: &[u64], b: Option<&[u64]>) -> Vec<u64> {
    let an = a.len();
    let bn = b.map_or(an, |b| b.len());
    let t = ntt_t();
    if an.min(bn) < t || an + bn < 2 * t {
        return mul_small(a, b.unwrap_or(a));
    }
    let Some(b) = b else {
        return ntt::mul(a, None);
    };
    let (long, short) = if an >= bn { (a, b) } else { (b, a) };
    let (ln, sn) = (long.len(), short.len());
    if ln <= SPLIT_RATIO * sn {
        return ntt::mul(long, Some(short));
    }
    // Pieces of the long operand, each sized to fill its transform.
    let lg = ntt::lg_for(SPLIT_RATIO * sn, sn);
    let piece = (1usize << lg) + 1 - sn;
    let mut out = vec![0u64; ln + sn];
    let mut off = 0;
    while off < ln {
        let len = piece.min(ln - off);
        let part = &long[off..off + len];
        let pn = arith::nlen(part);
        if pn > 0 {
            let part = &part[..pn];
            let t = if pn <= SPLIT_RATIO * sn {
                mul_norm(part, Some(short))
            } else {
                ntt::mul(part, Some(short))
            };
            let c = arith::add_assign(&mut out[off..], &t);
            debug_assert!(!c);
        }
        off += len;
    }
    out
}

/// Copies of at least this many limbs run on all cores (a 2^21-limb copy
/// on one core takes as long as a product of that size on sixteen).
const PAR_COPY_T: usize = 1 << 16;

/// `dst = src` (equal lengths), in parallel when large.
fn par_copy(dst: &mut [u64], src: &[u64]) {
    use rayon::prelude::*;
    if src.len() < PAR_COPY_T {
        dst.copy_from_slice(src);
    } else {
        dst.par_chunks_mut(1 << 14)
            .zip(src.par_chunks(1 << 14))
            .for_each(|(d, s)| d.copy_from_slice(s));
    }
}

/// A copy of `src`, in parallel when large.
fn par_to_vec(src: &[u64]) -> Vec<u64> {
    if src.len() < PAR_COPY_T {
        return src.to_vec();
    }
    let mut v = vec![0u64; src.len()];
    par_copy(&mut v, src);
    v
}

/// `r[i] = (a[i] << s) | (a[i-1] >> (64 - s))` for `i < len(a)` (`1 <= s < 64`),
/// in parallel when large; the bits shifted out of the top are returned.
fn par_shl(r: &mut [u64], a: &[u64], s: u32) -> u64 {
    use rayon::prelude::*;
    if a.len() < PAR_COPY_T {
        return arith::shl(r, a, s);
    }
    const CH: usize = 1 << 14;
    r.par_chunks_mut(CH).enumerate().for_each(|(k, rc)| {
        let base = k * CH;
        for (i, x) in rc.iter_mut().enumerate() {
            let j = base + i;
            let lo = if j == 0 { 0 } else { a[j - 1] >> (64 - s) };
            *x = (a[j] << s) | lo;
        }
    });
    a[a.len() - 1] >> (64 - s)
}

/// `r[i] = (a[i] >> s) | (a[i+1] << (64 - s))` (`1 <= s < 64`), in
/// parallel when large.
fn par_shr(r: &mut [u64], a: &[u64], s: u32) {
    use rayon::prelude::*;
    if a.len() < PAR_COPY_T {
        arith::shr(r, a, s);
        return;
    }
    const CH: usize = 1 << 14;
    let n = a.len();
    r.par_chunks_mut(CH).enumerate().for_each(|(k, rc)| {
        let base = k * CH;
        for (i, x) in rc.iter_mut().enumerate() {
            let j = base + i;
            let hi = if j + 1 < n { a[j + 1] << (64 - s) } else { 0 };
            *x = (a[j] >> s) | hi;
        }
    });
}

fn check_fits(acc: usize, b: &[u64], shift: usize) -> Result<()> {
    let used = arith::nlen(b) + shift;
    if arith::nlen(b) > 0 && used > acc {
        return Err(Error::Shape(format!(
            "operand of {} limbs at limb {shift} does not fit an accumulator of {acc} limbs",
            arith::nlen(b)
        )));
    }
    Ok(())
}

impl HugeEngine for CpuHuge {
    type Buf = Vec<u64>;

    fn name(&self) -> &'static str {
        "cpu"
    }
    fn upload(&self, limbs: &[u64]) -> Result<Vec<u64>> {
        Ok(par_to_vec(limbs))
    }
    fn download(&self, a: &Vec<u64>) -> Result<Vec<u64>> {
        Ok(par_to_vec(a))
    }
    fn len(&self, a: &Vec<u64>) -> usize {
        a.len()
    }
    fn zeros(&self, n: usize) -> Result<Vec<u64>> {
        Ok(vec![0u64; n])
    }
    fn slice(&self, a: &Vec<u64>, lo: usize, hi: usize) -> Result<Vec<u64>> {
        if lo > hi {
            return Err(Error::Shape(format!("slice {lo}..{hi} is reversed")));
        }
        let mut r = vec![0u64; hi - lo];
        if lo < a.len() {
            let e = hi.min(a.len());
            par_copy(&mut r[..e - lo], &a[lo..e]);
        }
        Ok(r)
    }
    fn normalized_len(&self, a: &Vec<u64>) -> Result<usize> {
        Ok(arith::nlen(a))
    }
    fn cmp(&self, a: &Vec<u64>, b: &Vec<u64>) -> Result<Ordering> {
        let (an, bn) = (arith::nlen(a), arith::nlen(b));
        Ok(an.cmp(&bn).then_with(|| arith::cmp(&a[..an], &b[..an])))
    }
    fn mul(&self, a: &Vec<u64>, b: &Vec<u64>) -> Result<Vec<u64>> {
        Ok(mul_limbs(a, Some(b)))
    }
    fn sqr(&self, a: &Vec<u64>) -> Result<Vec<u64>> {
        Ok(mul_limbs(a, None))
    }
    fn mul_limb(&self, a: &Vec<u64>, v: u64) -> Result<Vec<u64>> {
        let mut r = vec![0u64; a.len() + 1];
        let c = arith::mul_1(&mut r[..a.len()], a, v);
        r[a.len()] = c;
        Ok(r)
    }
    fn add_at(&self, acc: &mut Vec<u64>, b: &Vec<u64>, shift: usize) -> Result<bool> {
        check_fits(acc.len(), b, shift)?;
        let bn = arith::nlen(b);
        if bn == 0 {
            return Ok(false);
        }
        Ok(arith::add_assign(&mut acc[shift..], &b[..bn]))
    }
    fn sub_at(&self, acc: &mut Vec<u64>, b: &Vec<u64>, shift: usize) -> Result<bool> {
        check_fits(acc.len(), b, shift)?;
        let bn = arith::nlen(b);
        if bn == 0 {
            return Ok(false);
        }
        Ok(arith::sub_assign(&mut acc[shift..], &b[..bn]))
    }
    fn add_limb(&self, acc: &mut Vec<u64>, v: u64, at: usize) -> Result<bool> {
        if v == 0 {
            return Ok(false);
        }
        if at >= acc.len() {
            return Err(Error::Shape(format!(
                "limb {at} is past an accumulator of {} limbs",
                acc.len()
            )));
        }
        Ok(arith::add_1_assign(&mut acc[at..], v))
    }
    fn sub_limb(&self, acc: &mut Vec<u64>, v: u64, at: usize) -> Result<bool> {
        if v == 0 {
            return Ok(false);
        }
        if at >= acc.len() {
            return Err(Error::Shape(format!(
                "limb {at} is past an accumulator of {} limbs",
                acc.len()
            )));
        }
        Ok(arith::sub_1_assign(&mut acc[at..], v))
    }
    fn shl_bits(&self, a: &Vec<u64>, bits: u32) -> Result<Vec<u64>> {
        let mut r = vec![0u64; a.len() + 1];
        if bits == 0 {
            par_copy(&mut r[..a.len()], a);
        } else if !a.is_empty() {
            let c = par_shl(&mut r[..a.len()], a, bits);
            r[a.len()] = c;
        }
        Ok(r)
    }
    fn shr_bits(&self, a: &Vec<u64>, bits: u32) -> Result<Vec<u64>> {
        let mut r = vec![0u64; a.len()];
        if bits == 0 {
            par_copy(&mut r, a);
        } else if !a.is_empty() {
            par_shr(&mut r, a, bits);
        }
        Ok(r)
    }
}
