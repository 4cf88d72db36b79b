//! The CPU engine for integer arrays: the limb functions of `limbs.rs` run
//! over a batch on all cores (rayon), a chunk of elements per task.

use rayon::prelude::*;

use super::limbs;
use crate::error::{Error, Result};

/// Elements per rayon task: enough work to amortise scheduling.
fn chunk_elems(limbs: usize) -> usize {
    (4096 / limbs).max(1)
}

/// `r = a + b mod 2^W` per element; carries out, one per element.
pub fn add(a: &[u64], b: &[u64], l: usize) -> (Vec<u64>, Vec<bool>) {
    binary_flag(a, b, l, |r, a, b| limbs::add_n(r, a, b))
}

/// `r = a - b mod 2^W` per element; borrows out, one per element.
pub fn sub(a: &[u64], b: &[u64], l: usize) -> (Vec<u64>, Vec<bool>) {
    binary_flag(a, b, l, |r, a, b| limbs::sub_n(r, a, b))
}

fn binary_flag(
    a: &[u64],
    b: &[u64],
    l: usize,
    f: impl Fn(&mut [u64], &[u64], &[u64]) -> bool + Sync,
) -> (Vec<u64>, Vec<bool>) {
    let n = a.len() / l;
    let mut r = vec![0u64; a.len()];
    let mut flags = vec![false; n];
    let ce = chunk_elems(l);
    r.par_chunks_mut(ce * l)
        .zip(flags.par_chunks_mut(ce))
        .enumerate()
        .for_each(|(c, (rc, fc))| {
            let base = c * ce * l;
            for (k, (re, fl)) in rc.chunks_mut(l).zip(fc.iter_mut()).enumerate() {
                let off = base + k * l;
                *fl = f(re, &a[off..off + l], &b[off..off + l]);
            }
        });
    (r, flags)
}

/// Low half of the product, per element.
pub fn mul(a: &[u64], b: &[u64], l: usize) -> Vec<u64> {
    let mut r = vec![0u64; a.len()];
    r.par_chunks_mut(l).enumerate().for_each(|(i, re)| {
        let off = i * l;
        limbs::mul_low(re, &a[off..off + l], &b[off..off + l]);
    });
    r
}

/// Full 2W-bit product, per element.
pub fn mul_wide(a: &[u64], b: &[u64], l: usize) -> Vec<u64> {
    let mut r = vec![0u64; a.len() * 2];
    r.par_chunks_mut(2 * l).enumerate().for_each(|(i, re)| {
        let off = i * l;
        limbs::mul_full(re, &a[off..off + l], &b[off..off + l]);
    });
    r
}

/// Floor quotient and remainder per element; the first zero divisor is an
/// error naming its element.
pub fn divrem(a: &[u64], b: &[u64], l: usize) -> Result<(Vec<u64>, Vec<u64>)> {
    if let Some(i) = b.par_chunks(l).position_first(|v| v.iter().all(|&x| x == 0)) {
        return Err(Error::DivisionByZero { index: i });
    }
    let mut q = vec![0u64; a.len()];
    let mut r = vec![0u64; a.len()];
    q.par_chunks_mut(l)
        .zip(r.par_chunks_mut(l))
        .enumerate()
        .for_each(|(i, (qe, re))| {
            let off = i * l;
            limbs::divrem(qe, re, &a[off..off + l], &b[off..off + l]);
        });
    Ok((q, r))
}

/// A fused expression per element (see [`super::Fused`]), intermediates in
/// per-task scratch.
pub fn fused(a: &[u64], b: &[u64], l: usize, kind: super::Fused) -> Vec<u64> {
    let mut r = vec![0u64; a.len()];
    r.par_chunks_mut(l).enumerate().for_each_init(
        || vec![0u64; 4 * l],
        |scratch, (i, re)| {
            let off = i * l;
            let (ae, be) = (&a[off..off + l], &b[off..off + l]);
            match kind {
                super::Fused::SixAdd => {
                    limbs::add_n(re, ae, be);
                    for k in 0..5 {
                        let x = if k % 2 == 0 { ae } else { be };
                        limbs::add_assign_n(re, x);
                    }
                }
                super::Fused::Poly => {
                    let (t1, rest) = scratch.split_at_mut(l);
                    let (t2, rest) = rest.split_at_mut(l);
                    let (t3, _) = rest.split_at_mut(l);
                    limbs::mul_low(t1, ae, ae);
                    limbs::add_assign_n(t1, be);
                    limbs::mul_low(t2, be, be);
                    limbs::add_assign_n(t2, be);
                    limbs::mul_low(t3, t1, t2);
                    limbs::mul_low(re, ae, be);
                    limbs::add_assign_n(re, t3);
                }
            }
        },
    );
    r
}
