//! The CPU engine for integer arrays: the limb algorithms of `arith`,
//! `mul` and `div` run over a batch on all cores (rayon).
//!
//! Each task keeps one scratch vector for all its elements (no allocation
//! per element). Batches of fewer elements than twice the number of threads
//! also split each large product across cores. Every function here writes
//! every limb of its outputs, so callers may pass buffers with any contents;
//! the `*_into` forms let a caller reuse its output memory (large fresh
//! buffers cost page faults that can exceed the arithmetic itself).

pub mod arith;
#[cfg(target_arch = "x86_64")]
mod asm;
pub mod bits;
pub mod cache;
pub mod div;
#[cfg(target_arch = "x86_64")]
pub mod ifma;
pub mod modular;
pub mod mul;
pub mod ntt;
#[cfg(target_arch = "x86_64")]
mod ntt32;

use std::cell::RefCell;
use std::sync::atomic::{AtomicBool, Ordering};

use rayon::prelude::*;

use crate::error::{Error, Result};
use arith::nlen;

/// Set to run the portable Rust loops instead of the x86-64 assembly.
pub(crate) static PORTABLE: AtomicBool = AtomicBool::new(false);

/// Whether the BMI2/ADX assembly runs: 0 not known yet, 1 yes, 2 no.
pub(crate) static ASM: std::sync::atomic::AtomicU8 = std::sync::atomic::AtomicU8::new(0);

/// Decides (and caches) whether the BMI2/ADX assembly runs.
#[cfg(target_arch = "x86_64")]
pub(crate) fn detect_asm() -> bool {
    let on = !PORTABLE.load(Ordering::Relaxed)
        && std::arch::is_x86_feature_detected!("bmi2")
        && std::arch::is_x86_feature_detected!("adx");
    ASM.store(if on { 1 } else { 2 }, Ordering::Relaxed);
    on
}

/// Switches the x86-64 assembly off (`true`) or back on; both paths give the
/// same bits (tests compare them).
pub fn force_portable(on: bool) {
    PORTABLE.store(on, Ordering::Relaxed);
    ASM.store(0, Ordering::Relaxed);
}

thread_local! {
    /// Each worker thread's scratch, kept from call to call: no allocation
    /// (nor the page faults of fresh memory) per task.
    static SCRATCH: RefCell<Vec<u64>> = const { RefCell::new(Vec::new()) };
    /// Intermediates of fused expressions, likewise.
    static TEMPS: RefCell<Vec<u64>> = const { RefCell::new(Vec::new()) };
}

/// Runs `f` with `n` limbs of this thread's intermediates (fresh ones when in use).
fn with_temps<R>(n: usize, f: impl FnOnce(&mut [u64]) -> R) -> R {
    TEMPS.with(|c| match c.try_borrow_mut() {
        Ok(mut t) => {
            grow(&mut t, n);
            f(&mut t[..n])
        }
        Err(_) => f(&mut vec![0u64; n]),
    })
}

/// Runs `f` with this thread's scratch, or a fresh vector when it is in use
/// (a thread waiting in a nested parallel product may pick up another
/// element's task).
fn with_scratch<R>(f: impl FnOnce(&mut Vec<u64>) -> R) -> R {
    SCRATCH.with(|c| match c.try_borrow_mut() {
        Ok(mut s) => f(&mut s),
        Err(_) => f(&mut Vec::new()),
    })
}

/// Whether each large element should also use several cores: when the batch
/// alone cannot keep them busy.
fn nested(len: usize) -> bool {
    len < 2 * rayon::current_num_threads()
}

/// Elements per task for the memory-bound element-wise passes (about 64 KB
/// of output each).
fn chunk_elems(limbs: usize) -> usize {
    (8192 / limbs).max(1)
}

/// `r = a + b mod 2^W` per element; carries out, one per element.
pub fn add(a: &[u64], b: &[u64], l: usize) -> (Vec<u64>, Vec<bool>) {
    let mut r = vec![0u64; a.len()];
    let mut f = vec![false; a.len() / l];
    add_sub_into(a, b, l, false, &mut r, &mut f);
    (r, f)
}

/// `r = a - b mod 2^W` per element; borrows out, one per element.
pub fn sub(a: &[u64], b: &[u64], l: usize) -> (Vec<u64>, Vec<bool>) {
    let mut r = vec![0u64; a.len()];
    let mut f = vec![false; a.len() / l];
    add_sub_into(a, b, l, true, &mut r, &mut f);
    (r, f)
}

/// `r = a + b` (or `a - b`) mod 2^W per element, carries (borrows) to `flags`.
pub fn add_sub_into(
    a: &[u64],
    b: &[u64],
    l: usize,
    subtract: bool,
    r: &mut [u64],
    flags: &mut [bool],
) {
    assert!(a.len() == r.len() && b.len() == r.len() && flags.len() * l == r.len());
    let ce = chunk_elems(l);
    // Non-temporal stores only when a, b and r do not fit in the cache.
    let stream = cache::stream_for(3 * 8 * r.len());
    r.par_chunks_mut(ce * l)
        .zip(a.par_chunks(ce * l).zip(b.par_chunks(ce * l)))
        .zip(flags.par_chunks_mut(ce))
        .for_each(|((rc, (ac, bc)), fc)| {
            for (((re, ae), be), fl) in rc.chunks_mut(l).zip(ac.chunks(l)).zip(bc.chunks(l)).zip(fc)
            {
                *fl = if stream {
                    arith::add_sub_n_streaming(re, ae, be, subtract)
                } else if subtract {
                    arith::sub_n(re, ae, be)
                } else {
                    arith::add_n(re, ae, be)
                };
            }
            if stream {
                arith::store_fence();
            }
        });
}

/// Low half of the product, per element.
pub fn mul(a: &[u64], b: &[u64], l: usize) -> Vec<u64> {
    let mut r = vec![0u64; a.len()];
    mul_into(a, b, l, &mut r);
    r
}

/// Low half of the product of one element pair, `r`, `a`, `b` of one length.
pub fn mullo_elem(r: &mut [u64], a: &[u64], b: &[u64], s: &mut Vec<u64>, par: bool) {
    let l = r.len();
    let (an, bn) = (nlen(a), nlen(b));
    if an == 0 || bn == 0 {
        r.fill(0);
    } else if an + bn <= l {
        // The whole product fits: an exact product of the significant limbs.
        grow(s, mul::mul_itch(an.max(bn), an.min(bn)));
        mul::mul_any(&mut r[..an + bn], &a[..an], &b[..bn], s, par);
        r[an + bn..].fill(0);
    } else {
        grow(s, mul::mullo_itch(l));
        mul::mullo(r, a, b, s, par);
    }
}

/// Full product of one element pair: `r` has `a.len() + b.len()` limbs.
pub fn mul_full_elem(r: &mut [u64], a: &[u64], b: &[u64], s: &mut Vec<u64>, par: bool) {
    let (an, bn) = (nlen(a), nlen(b));
    if an == 0 || bn == 0 {
        r.fill(0);
        return;
    }
    grow(s, mul::mul_itch(an.max(bn), an.min(bn)));
    mul::mul_any(&mut r[..an + bn], &a[..an], &b[..bn], s, par);
    r[an + bn..].fill(0);
}

fn grow(s: &mut Vec<u64>, n: usize) {
    if s.len() < n {
        s.resize(n, 0);
    }
}

/// Elements per task for the compute-bound operations: small elements go
/// in groups (about 2 KB of each operand), so that the next element's
/// operands can be fetched while this one is computed.
fn group(l: usize) -> usize {
    (256 / l).clamp(1, 64)
}

/// Asks for the cache lines of `x` (small elements only; larger ones
/// stream well by themselves).
#[inline]
fn prefetch(x: &[u64]) {
    #[cfg(target_arch = "x86_64")]
    if x.len() <= 256 {
        use std::arch::x86_64::{_MM_HINT_T0, _mm_prefetch};
        for i in (0..x.len()).step_by(8) {
            // SAFETY: a hint on an address inside `x`; no access is made.
            unsafe { _mm_prefetch::<_MM_HINT_T0>(x.as_ptr().add(i) as *const i8) };
        }
    }
    #[cfg(not(target_arch = "x86_64"))]
    let _ = x;
}

/// Runs `f` on each element of a group of `ac.len() / l` elements (inputs
/// of `l` limbs, outputs of `lo` limbs), prefetching the next element's
/// inputs first.
#[inline]
fn each<F: FnMut(&mut [u64], &[u64], &[u64])>(
    rc: &mut [u64],
    ac: &[u64],
    bc: &[u64],
    l: usize,
    lo: usize,
    mut f: F,
) {
    let n = ac.len() / l;
    for k in 0..n {
        if k + 1 < n {
            prefetch(&ac[(k + 1) * l..(k + 2) * l]);
            prefetch(&bc[(k + 1) * l..(k + 2) * l]);
        }
        f(
            &mut rc[k * lo..(k + 1) * lo],
            &ac[k * l..(k + 1) * l],
            &bc[k * l..(k + 1) * l],
        );
    }
}

/// Low half of the product per element, into `r`.
pub fn mul_into(a: &[u64], b: &[u64], l: usize, r: &mut [u64]) {
    assert!(a.len() == r.len() && b.len() == r.len());
    let par = nested(r.len() / l);
    let g = group(l) * l;
    r.par_chunks_mut(g)
        .zip(a.par_chunks(g).zip(b.par_chunks(g)))
        .for_each(|(rc, (ac, bc))| {
            with_scratch(|s| {
                each(rc, ac, bc, l, l, |re, ae, be| {
                    mullo_elem(re, ae, be, s, par)
                })
            })
        });
}

/// Full 2W-bit product, per element.
pub fn mul_wide(a: &[u64], b: &[u64], l: usize) -> Vec<u64> {
    let mut r = vec![0u64; 2 * a.len()];
    mul_wide_into(a, b, l, &mut r);
    r
}

/// Full 2W-bit product per element, into `r` (elements of `2l` limbs).
pub fn mul_wide_into(a: &[u64], b: &[u64], l: usize, r: &mut [u64]) {
    assert!(a.len() == b.len() && r.len() == 2 * a.len());
    let par = nested(a.len() / l);
    let g = group(l);
    r.par_chunks_mut(2 * g * l)
        .zip(a.par_chunks(g * l).zip(b.par_chunks(g * l)))
        .for_each(|(rc, (ac, bc))| {
            with_scratch(|s| {
                each(rc, ac, bc, l, 2 * l, |re, ae, be| {
                    mul_full_elem(re, ae, be, s, par)
                })
            })
        });
}

/// An error naming the first element whose divisor is zero, if any.
pub fn check_divisors(b: &[u64], l: usize) -> Result<()> {
    first_zero(b, l)
}

/// The first element whose divisor is zero.
fn first_zero(b: &[u64], l: usize) -> Result<()> {
    match b
        .par_chunks(l)
        .position_first(|v| v.iter().all(|&x| x == 0))
    {
        Some(i) => Err(Error::DivisionByZero { index: i }),
        None => Ok(()),
    }
}

/// Floor quotient and remainder per element; the first zero divisor is an
/// error naming its element.
pub fn divrem(a: &[u64], b: &[u64], l: usize) -> Result<(Vec<u64>, Vec<u64>)> {
    let mut q = vec![0u64; a.len()];
    let mut r = vec![0u64; a.len()];
    divrem_into(a, b, l, &mut q, &mut r)?;
    Ok((q, r))
}

/// Floor quotient and remainder per element, into `q` and `r`. On a zero
/// divisor nothing is written and the error names the first such element.
pub fn divrem_into(a: &[u64], b: &[u64], l: usize, q: &mut [u64], r: &mut [u64]) -> Result<()> {
    assert!(a.len() == b.len() && q.len() == a.len() && r.len() == a.len());
    first_zero(b, l)?;
    let par = nested(a.len() / l);
    let g = group(l) * l;
    q.par_chunks_mut(g)
        .zip(r.par_chunks_mut(g))
        .zip(a.par_chunks(g).zip(b.par_chunks(g)))
        .for_each(|((qc, rc), (ac, bc))| {
            with_scratch(|s| {
                let n = ac.len() / l;
                for k in 0..n {
                    if k + 1 < n {
                        prefetch(&ac[(k + 1) * l..(k + 2) * l]);
                        prefetch(&bc[(k + 1) * l..(k + 2) * l]);
                    }
                    let e = k * l..(k + 1) * l;
                    div::divrem(
                        &mut qc[e.clone()],
                        &mut rc[e.clone()],
                        &ac[e.clone()],
                        &bc[e],
                        s,
                        par,
                    );
                }
            })
        });
    Ok(())
}

/// A fused expression per element (see [`super::Fused`]).
pub fn fused(a: &[u64], b: &[u64], l: usize, kind: super::Fused) -> Vec<u64> {
    let mut r = vec![0u64; a.len()];
    fused_into(a, b, l, kind, &mut r);
    r
}

/// A fused expression per element into `r`, intermediates in per-task scratch.
pub fn fused_into(a: &[u64], b: &[u64], l: usize, kind: super::Fused, r: &mut [u64]) {
    assert!(a.len() == r.len() && b.len() == r.len());
    match kind {
        super::Fused::SixAdd => {
            let ce = chunk_elems(l);
            r.par_chunks_mut(ce * l)
                .zip(a.par_chunks(ce * l).zip(b.par_chunks(ce * l)))
                .for_each(|(rc, (ac, bc))| {
                    for ((re, ae), be) in rc.chunks_mut(l).zip(ac.chunks(l)).zip(bc.chunks(l)) {
                        six_add(re, ae, be);
                    }
                });
        }
        super::Fused::Poly => {
            let par = nested(a.len() / l);
            let g = group(l) * l;
            r.par_chunks_mut(g)
                .zip(a.par_chunks(g).zip(b.par_chunks(g)))
                .for_each(|(rc, (ac, bc))| {
                    with_temps(3 * l, |t| {
                        with_scratch(|s| {
                            each(rc, ac, bc, l, l, |re, ae, be| poly(re, ae, be, t, s, par))
                        })
                    })
                });
        }
    }
}

/// `r = a+b+a+b+a+b+a = 4a + 3b mod 2^W` in one pass.
fn six_add(r: &mut [u64], a: &[u64], b: &[u64]) {
    let mut c = 0u64;
    for ((r, &x), &y) in r.iter_mut().zip(a).zip(b) {
        let t = ((x as u128) << 2) + y as u128 * 3 + c as u128;
        *r = t as u64;
        c = (t >> 64) as u64;
    }
}

/// `r = (a*a + b) * (b*b + b) + a*b mod 2^W`; `t` has `3l` limbs.
fn poly(r: &mut [u64], a: &[u64], b: &[u64], t: &mut [u64], s: &mut Vec<u64>, par: bool) {
    let l = r.len();
    let (t1, rest) = t.split_at_mut(l);
    let (t2, t3) = rest.split_at_mut(l);
    mullo_elem(t1, a, a, s, par);
    arith::add_n_assign(t1, b);
    mullo_elem(t2, b, b, s, par);
    arith::add_n_assign(t2, b);
    mullo_elem(t3, t1, t2, s, par);
    mullo_elem(r, a, b, s, par);
    arith::add_n_assign(r, t3);
}
