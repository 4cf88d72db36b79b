//! Linear-time limb-vector primitives (GMP's `mpn` layer): additions,
//! subtractions, single-limb products, shifts and comparisons.
//!
//! The cores take raw pointers so that the result may alias an input at the
//! same position (as in GMP); the safe wrappers below are what the rest of
//! the engine calls. The single-limb products dispatch to the BMI2/ADX
//! assembly of `asm.rs` when the CPU has it.

use std::cmp::Ordering;

#[cfg(target_arch = "x86_64")]
use super::asm;

/// `a + b + c` with a carry in and out (compiles to `adc`).
#[inline(always)]
pub fn adc(a: u64, b: u64, c: bool) -> (u64, bool) {
    let (s1, c1) = a.overflowing_add(b);
    let (s2, c2) = s1.overflowing_add(c as u64);
    (s2, c1 | c2)
}

/// `a - b - c` with a borrow in and out (compiles to `sbb`).
#[inline(always)]
pub fn sbb(a: u64, b: u64, c: bool) -> (u64, bool) {
    let (d1, b1) = a.overflowing_sub(b);
    let (d2, b2) = d1.overflowing_sub(c as u64);
    (d2, b1 | b2)
}

/// `r = a + b` over `n` limbs; `r` may equal `a` or `b`.
///
/// # Safety
/// All three pointers are valid for `n` limbs; `r` overlaps an input only
/// at the same position.
#[inline]
unsafe fn add_n_raw(r: *mut u64, a: *const u64, b: *const u64, n: usize) -> bool {
    #[cfg(target_arch = "x86_64")]
    if n >= 4 && !super::PORTABLE.load(std::sync::atomic::Ordering::Relaxed) {
        let h = n % 4;
        // SAFETY: as for this function; the blocks start after the head.
        unsafe {
            let c = add_n_raw_portable(r, a, b, h);
            return asm::add_sub_n::<false, false>(r.add(h), a.add(h), b.add(h), n / 4, c);
        }
    }
    unsafe { add_n_raw_portable(r, a, b, n) }
}

/// Portable core of [`add_n_raw`].
///
/// # Safety
/// As for [`add_n_raw`].
#[inline(always)]
unsafe fn add_n_raw_portable(r: *mut u64, a: *const u64, b: *const u64, n: usize) -> bool {
    let mut c = false;
    let mut i = 0;
    unsafe {
        while i + 4 <= n {
            let (s0, c0) = adc(*a.add(i), *b.add(i), c);
            let (s1, c1) = adc(*a.add(i + 1), *b.add(i + 1), c0);
            let (s2, c2) = adc(*a.add(i + 2), *b.add(i + 2), c1);
            let (s3, c3) = adc(*a.add(i + 3), *b.add(i + 3), c2);
            *r.add(i) = s0;
            *r.add(i + 1) = s1;
            *r.add(i + 2) = s2;
            *r.add(i + 3) = s3;
            c = c3;
            i += 4;
        }
        while i < n {
            let (s, c1) = adc(*a.add(i), *b.add(i), c);
            *r.add(i) = s;
            c = c1;
            i += 1;
        }
    }
    c
}

/// `r = a - b` over `n` limbs; `r` may equal `a` or `b`.
///
/// # Safety
/// As for [`add_n_raw`].
#[inline]
unsafe fn sub_n_raw(r: *mut u64, a: *const u64, b: *const u64, n: usize) -> bool {
    #[cfg(target_arch = "x86_64")]
    if n >= 4 && !super::PORTABLE.load(std::sync::atomic::Ordering::Relaxed) {
        let h = n % 4;
        // SAFETY: as for this function; the blocks start after the head.
        unsafe {
            let c = sub_n_raw_portable(r, a, b, h);
            return asm::add_sub_n::<true, false>(r.add(h), a.add(h), b.add(h), n / 4, c);
        }
    }
    unsafe { sub_n_raw_portable(r, a, b, n) }
}

/// Portable core of [`sub_n_raw`].
///
/// # Safety
/// As for [`sub_n_raw`].
#[inline(always)]
unsafe fn sub_n_raw_portable(r: *mut u64, a: *const u64, b: *const u64, n: usize) -> bool {
    let mut c = false;
    let mut i = 0;
    unsafe {
        while i + 4 <= n {
            let (s0, c0) = sbb(*a.add(i), *b.add(i), c);
            let (s1, c1) = sbb(*a.add(i + 1), *b.add(i + 1), c0);
            let (s2, c2) = sbb(*a.add(i + 2), *b.add(i + 2), c1);
            let (s3, c3) = sbb(*a.add(i + 3), *b.add(i + 3), c2);
            *r.add(i) = s0;
            *r.add(i + 1) = s1;
            *r.add(i + 2) = s2;
            *r.add(i + 3) = s3;
            c = c3;
            i += 4;
        }
        while i < n {
            let (s, c1) = sbb(*a.add(i), *b.add(i), c);
            *r.add(i) = s;
            c = c1;
            i += 1;
        }
    }
    c
}

/// `r = a + b`, all of one length; returns the carry out.
#[inline]
pub fn add_n(r: &mut [u64], a: &[u64], b: &[u64]) -> bool {
    let n = r.len();
    assert!(a.len() == n && b.len() == n);
    unsafe { add_n_raw(r.as_mut_ptr(), a.as_ptr(), b.as_ptr(), n) }
}

/// `r = a + b` (or `a - b`), all of one length, writing `r` with
/// non-temporal stores where the CPU allows it (x86-64): for results that
/// will not be read again soon. The caller runs [`store_fence`] before
/// another thread reads `r`. Returns the carry (borrow) out.
pub fn add_sub_n_streaming(r: &mut [u64], a: &[u64], b: &[u64], subtract: bool) -> bool {
    let n = r.len();
    assert!(a.len() == n && b.len() == n);
    #[cfg(target_arch = "x86_64")]
    if n >= 4 && !super::PORTABLE.load(std::sync::atomic::Ordering::Relaxed) {
        let h = n % 4;
        let (rp, ap, bp) = (r.as_mut_ptr(), a.as_ptr(), b.as_ptr());
        // SAFETY: the three slices hold n limbs; the blocks start after the head.
        unsafe {
            return if subtract {
                let c = sub_n_raw_portable(rp, ap, bp, h);
                asm::add_sub_n::<true, true>(rp.add(h), ap.add(h), bp.add(h), n / 4, c)
            } else {
                let c = add_n_raw_portable(rp, ap, bp, h);
                asm::add_sub_n::<false, true>(rp.add(h), ap.add(h), bp.add(h), n / 4, c)
            };
        }
    }
    if subtract {
        sub_n(r, a, b)
    } else {
        add_n(r, a, b)
    }
}

/// Orders this thread's non-temporal stores before its later stores (x86-64
/// `sfence`; nothing elsewhere).
#[inline]
pub fn store_fence() {
    #[cfg(target_arch = "x86_64")]
    // SAFETY: sfence has no preconditions (SSE is part of x86-64).
    unsafe {
        std::arch::x86_64::_mm_sfence()
    };
}

/// `r += a`, of one length; returns the carry out.
#[inline]
pub fn add_n_assign(r: &mut [u64], a: &[u64]) -> bool {
    let n = r.len();
    assert!(a.len() == n);
    let p = r.as_mut_ptr();
    unsafe { add_n_raw(p, p, a.as_ptr(), n) }
}

/// `r = a - b`, all of one length; returns the borrow out.
#[inline]
pub fn sub_n(r: &mut [u64], a: &[u64], b: &[u64]) -> bool {
    let n = r.len();
    assert!(a.len() == n && b.len() == n);
    unsafe { sub_n_raw(r.as_mut_ptr(), a.as_ptr(), b.as_ptr(), n) }
}

/// `r -= a`, of one length; returns the borrow out.
#[inline]
pub fn sub_n_assign(r: &mut [u64], a: &[u64]) -> bool {
    let n = r.len();
    assert!(a.len() == n);
    let p = r.as_mut_ptr();
    unsafe { sub_n_raw(p, p, a.as_ptr(), n) }
}

/// `r = a - r`, of one length; returns the borrow out.
#[inline]
pub fn rsub_n_assign(r: &mut [u64], a: &[u64]) -> bool {
    let n = r.len();
    assert!(a.len() == n);
    let p = r.as_mut_ptr();
    unsafe { sub_n_raw(p, a.as_ptr(), p, n) }
}

/// `r += c` (a single limb), carried through all of `r`; returns the carry out.
#[inline]
pub fn add_1_assign(r: &mut [u64], c: u64) -> bool {
    let mut c = c;
    for x in r.iter_mut() {
        if c == 0 {
            return false;
        }
        let (s, o) = x.overflowing_add(c);
        *x = s;
        c = o as u64;
    }
    c != 0
}

/// `r -= c` (a single limb), borrowed through all of `r`; returns the borrow out.
#[inline]
pub fn sub_1_assign(r: &mut [u64], c: u64) -> bool {
    let mut c = c;
    for x in r.iter_mut() {
        if c == 0 {
            return false;
        }
        let (s, o) = x.overflowing_sub(c);
        *x = s;
        c = o as u64;
    }
    c != 0
}

/// `r += a` with `a.len() <= r.len()`, carried through all of `r`.
#[inline]
pub fn add_assign(r: &mut [u64], a: &[u64]) -> bool {
    let (lo, hi) = r.split_at_mut(a.len());
    let c = add_n_assign(lo, a);
    c && add_1_assign(hi, 1)
}

/// `r -= a` with `a.len() <= r.len()`, borrowed through all of `r`.
#[inline]
pub fn sub_assign(r: &mut [u64], a: &[u64]) -> bool {
    let (lo, hi) = r.split_at_mut(a.len());
    let c = sub_n_assign(lo, a);
    c && sub_1_assign(hi, 1)
}

/// `r = a + b` with `b.len() <= a.len() == r.len()`.
#[inline]
pub fn add(r: &mut [u64], a: &[u64], b: &[u64]) -> bool {
    let m = b.len();
    let c = add_n(&mut r[..m], &a[..m], b);
    r[m..].copy_from_slice(&a[m..]);
    c && add_1_assign(&mut r[m..], 1)
}

/// `r = a - b` with `b.len() <= a.len() == r.len()`.
#[inline]
pub fn sub(r: &mut [u64], a: &[u64], b: &[u64]) -> bool {
    let m = b.len();
    let c = sub_n(&mut r[..m], &a[..m], b);
    r[m..].copy_from_slice(&a[m..]);
    c && sub_1_assign(&mut r[m..], 1)
}

/// Compares two numbers of one length.
#[inline]
pub fn cmp(a: &[u64], b: &[u64]) -> Ordering {
    debug_assert_eq!(a.len(), b.len());
    for i in (0..a.len()).rev() {
        if a[i] != b[i] {
            return a[i].cmp(&b[i]);
        }
    }
    Ordering::Equal
}

/// `r = |a - b|` of one length; true when `a < b`.
#[inline]
pub fn abs_diff_n(r: &mut [u64], a: &[u64], b: &[u64]) -> bool {
    if cmp(a, b) == Ordering::Less {
        sub_n(r, b, a);
        true
    } else {
        sub_n(r, a, b);
        false
    }
}

/// Number of significant limbs (the zeros on top four at a time: random
/// divisors can have thousands of them).
#[inline]
pub fn nlen(a: &[u64]) -> usize {
    let mut n = a.len();
    while n >= 4 && (a[n - 1] | a[n - 2] | a[n - 3] | a[n - 4]) == 0 {
        n -= 4;
    }
    while n > 0 && a[n - 1] == 0 {
        n -= 1;
    }
    n
}

/// Whether the CPU has BMI2 and ADX and the assembly is not switched off
/// (one relaxed load: `super::ASM` caches the answer).
#[cfg(target_arch = "x86_64")]
#[inline]
pub fn use_asm() -> bool {
    match super::ASM.load(std::sync::atomic::Ordering::Relaxed) {
        1 => true,
        2 => false,
        _ => super::detect_asm(),
    }
}

#[inline(always)]
fn mul_wide(a: u64, b: u64) -> (u64, u64) {
    let p = a as u128 * b as u128;
    (p as u64, (p >> 64) as u64)
}

/// Portable `r = a * b + c` over `n` limbs; returns the high limb.
#[inline]
fn mul_1_portable(r: &mut [u64], a: &[u64], b: u64, mut c: u64) -> u64 {
    for (r, &a) in r.iter_mut().zip(a) {
        let t = a as u128 * b as u128 + c as u128;
        *r = t as u64;
        c = (t >> 64) as u64;
    }
    c
}

/// Portable `r += a * b + c`; returns the high limb.
#[inline]
fn addmul_1_portable(r: &mut [u64], a: &[u64], b: u64, mut c: u64) -> u64 {
    for (r, &a) in r.iter_mut().zip(a) {
        let t = a as u128 * b as u128 + *r as u128 + c as u128;
        *r = t as u64;
        c = (t >> 64) as u64;
    }
    c
}

/// Portable `r -= a * b + c`; returns the borrowed high limb.
#[inline]
fn submul_1_portable(r: &mut [u64], a: &[u64], b: u64, mut c: u64) -> u64 {
    for (r, &a) in r.iter_mut().zip(a) {
        let (lo, hi) = mul_wide(a, b);
        let (lo, o) = lo.overflowing_add(c);
        let (d, br) = r.overflowing_sub(lo);
        *r = d;
        c = hi + o as u64 + br as u64;
    }
    c
}

/// `r = a * b` over `a.len() == r.len()` limbs; returns the high limb.
#[inline]
pub fn mul_1(r: &mut [u64], a: &[u64], b: u64) -> u64 {
    let n = r.len();
    assert_eq!(a.len(), n);
    #[cfg(target_arch = "x86_64")]
    if n >= 8 && use_asm() {
        let h = n % 4;
        let c = mul_1_portable(&mut r[..h], &a[..h], b, 0);
        // SAFETY: the checks above; both slices hold n limbs.
        return unsafe { asm::mul_1(r.as_mut_ptr().add(h), a.as_ptr().add(h), (n - h) / 4, b, c) };
    }
    mul_1_portable(r, a, b, 0)
}

/// `r += a * b` over `a.len() == r.len()` limbs; returns the carry limb.
#[inline]
pub fn addmul_1(r: &mut [u64], a: &[u64], b: u64) -> u64 {
    let n = r.len();
    assert_eq!(a.len(), n);
    #[cfg(target_arch = "x86_64")]
    if n >= 1 && use_asm() {
        // SAFETY: checked above; both slices hold n limbs.
        return unsafe { asm::addmul_1(r.as_mut_ptr(), a.as_ptr(), n, b) };
    }
    addmul_1_portable(r, a, b, 0)
}

/// `r -= a * b` over `a.len() == r.len()` limbs; returns the borrow limb.
#[inline]
pub fn submul_1(r: &mut [u64], a: &[u64], b: u64) -> u64 {
    let n = r.len();
    assert_eq!(a.len(), n);
    #[cfg(target_arch = "x86_64")]
    if n >= 1 && use_asm() {
        // SAFETY: as in addmul_1.
        return unsafe { asm::submul_1(r.as_mut_ptr(), a.as_ptr(), n, b) };
    }
    submul_1_portable(r, a, b, 0)
}

/// `r = a << s` (1 <= s < 64) over one length; returns the bits shifted out.
#[inline]
pub fn shl(r: &mut [u64], a: &[u64], s: u32) -> u64 {
    debug_assert!((1..64).contains(&s) && r.len() == a.len());
    let mut carry = 0;
    for (r, &x) in r.iter_mut().zip(a) {
        *r = (x << s) | carry;
        carry = x >> (64 - s);
    }
    carry
}

/// `r = a >> s` (1 <= s < 64) over one length; returns the bits shifted
/// out, at the top of the limb.
#[inline]
pub fn shr(r: &mut [u64], a: &[u64], s: u32) -> u64 {
    debug_assert!((1..64).contains(&s) && r.len() == a.len());
    let n = a.len();
    if n == 0 {
        return 0;
    }
    let out = a[0] << (64 - s);
    for i in 0..n - 1 {
        r[i] = (a[i] >> s) | (a[i + 1] << (64 - s));
    }
    r[n - 1] = a[n - 1] >> s;
    out
}

/// `r >>= s` in place (1 <= s < 64); returns the bits shifted out.
#[inline]
pub fn shr_assign(r: &mut [u64], s: u32) -> u64 {
    debug_assert!((1..64).contains(&s));
    let n = r.len();
    if n == 0 {
        return 0;
    }
    let out = r[0] << (64 - s);
    for i in 0..n - 1 {
        r[i] = (r[i] >> s) | (r[i + 1] << (64 - s));
    }
    r[n - 1] >>= s;
    out
}

/// `r = 2 * r`, in place; returns the bit shifted out.
#[inline]
pub fn shl1_assign(r: &mut [u64]) -> u64 {
    let mut carry = 0;
    for x in r.iter_mut() {
        let c = *x >> 63;
        *x = (*x << 1) | carry;
        carry = c;
    }
    carry
}

/// `r /= 3` in place, for `r` a multiple of 3: exact division as GMP's
/// `bdiv_dbm1c` does it, multiplying by `(B-1)/3` so that the carried
/// dependency is a subtraction, not a product.
#[inline]
pub fn divexact_by3_assign(r: &mut [u64]) {
    const DBM1: u64 = u64::MAX / 3;
    let mut h = 0u64;
    for x in r.iter_mut() {
        let (p0, p1) = mul_wide(*x, DBM1);
        let (t, c) = h.overflowing_sub(p0);
        *x = t;
        h = t.wrapping_sub(p1).wrapping_sub(c as u64);
    }
    debug_assert_eq!(h, 0, "divexact_by3 of a non-multiple");
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The streaming (non-temporal) add/sub gives the bits of the plain one
    /// at every length and alignment of the 4-limb blocks, with carries
    /// running through all-one limbs.
    #[test]
    fn streaming_matches_plain() {
        let mut x = 0x9e37_79b9_7f4a_7c15u64 ^ std::process::id() as u64;
        let mut next = || {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            match x % 4 {
                0 => u64::MAX,
                1 => 0,
                _ => x,
            }
        };
        for n in 1..40 {
            for _ in 0..20 {
                let a: Vec<u64> = (0..n).map(|_| next()).collect();
                let b: Vec<u64> = (0..n).map(|_| next()).collect();
                for subtract in [false, true] {
                    let (mut r1, mut r2) = (vec![0; n], vec![0; n]);
                    let c1 = if subtract {
                        sub_n(&mut r1, &a, &b)
                    } else {
                        add_n(&mut r1, &a, &b)
                    };
                    let c2 = add_sub_n_streaming(&mut r2, &a, &b, subtract);
                    store_fence();
                    assert_eq!((r1, c1), (r2, c2), "n {n} subtract {subtract}");
                }
            }
        }
    }
}
