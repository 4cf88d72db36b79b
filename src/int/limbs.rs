//! Limb-level arithmetic on little-endian `u64` slices, one element at a
//! time: the public face of the CPU engine's algorithms (`cpu::arith`,
//! `cpu::mul`, `cpu::div`), which the batch functions of `cpu` run on all
//! cores. These allocate their own scratch; the batch paths reuse theirs.

use super::cpu::{self, arith};

/// `r = a + b` over `a.len()` limbs; returns the carry out.
#[inline]
pub fn add_n(r: &mut [u64], a: &[u64], b: &[u64]) -> bool {
    arith::add_n(r, a, b)
}

/// `r += a` in place; returns the carry out.
#[inline]
pub fn add_assign_n(r: &mut [u64], a: &[u64]) -> bool {
    arith::add_n_assign(r, a)
}

/// `r = a - b` over `a.len()` limbs; returns the borrow out.
#[inline]
pub fn sub_n(r: &mut [u64], a: &[u64], b: &[u64]) -> bool {
    arith::sub_n(r, a, b)
}

/// `r -= a` in place; returns the borrow out.
#[inline]
pub fn sub_assign_n(r: &mut [u64], a: &[u64]) -> bool {
    arith::sub_n_assign(r, a)
}

/// `r[..n] += a * b` (a single limb), returns the carry limb.
#[inline]
pub fn addmul_1(r: &mut [u64], a: &[u64], b: u64) -> u64 {
    let n = a.len();
    arith::addmul_1(&mut r[..n], a, b)
}

/// `r[..n] -= a * b` (a single limb), returns the borrow limb.
#[inline]
pub fn submul_1(r: &mut [u64], a: &[u64], b: u64) -> u64 {
    let n = a.len();
    arith::submul_1(&mut r[..n], a, b)
}

/// Full product: `r[..a.len()+b.len()] = a * b`.
pub fn mul_full(r: &mut [u64], a: &[u64], b: &[u64]) {
    let n = a.len() + b.len();
    cpu::mul_full_elem(&mut r[..n], a, b, &mut Vec::new(), false);
}

/// Low half: `r[..n] = (a * b) mod 2^(64n)`, `n = r.len() = a.len() = b.len()`.
pub fn mul_low(r: &mut [u64], a: &[u64], b: &[u64]) {
    cpu::mullo_elem(r, a, b, &mut Vec::new(), false);
}

/// Number of significant limbs (index of the top non-zero limb, plus one).
#[inline]
pub fn normalized_len(a: &[u64]) -> usize {
    arith::nlen(a)
}

/// Floor division with remainder: `q = u / v`, `r = u mod v`, all of the
/// same width. Returns `false` (and leaves `q`, `r` zero) if `v == 0`.
pub fn divrem(q: &mut [u64], r: &mut [u64], u: &[u64], v: &[u64]) -> bool {
    cpu::div::divrem(q, r, u, v, &mut Vec::new(), false)
}
