//! Floor square root with remainder, generic over the engine: Zimmermann's
//! Karatsuba square root (the recursion of GMP's `mpn_dc_sqrtrem`): the
//! root of the top half, one division by twice that root for the next
//! limbs, and a correction by one when the remainder comes out negative.
//! Small inputs go to malachite on the host.

use std::cmp::Ordering;

use malachite_base::num::arithmetic::traits::SqrtRem;

use super::div::{bit_len, copy, divrem, from_nat, shl, shr, to_nat, trim};
use super::engine::HugeEngine;
use crate::error::{Error, Result};

/// Roots of at most this many limbs are computed on the host.
pub const SQRT_HOST_T: usize = 16;

/// `(s, r)` with `s = floor(sqrt(a))`, `r = a - s^2`.
pub fn sqrt_rem<E: HugeEngine>(e: &E, a: &E::Buf) -> Result<(E::Buf, E::Buf)> {
    let n = e.normalized_len(a)?;
    if n <= 2 * SQRT_HOST_T {
        let (s, r) = to_nat(e, a)?.sqrt_rem();
        let (sl, rl) = (s.to_limbs_asc().len().max(1), r.to_limbs_asc().len().max(1));
        return Ok((from_nat(e, &s, sl)?, from_nat(e, &r, rl)?));
    }
    // Shift by an even number of bits so that the top limb of 2L limbs has
    // one of its two top bits set.
    let l = n.div_ceil(2);
    let bits = bit_len(e, a)?;
    let sh = (128 * l as u64 - bits) & !1;
    let num = shl(e, a, sh)?;
    let num = e.slice(&num, 0, 2 * l)?;
    let (s, _) = rec(e, &num, l)?;
    let s = trim(e, &shr(e, &s, sh / 2)?, 1)?;
    // The remainder of the unshifted input.
    let s2 = e.sqr(&s)?;
    let mut r = e.slice(a, 0, n.max(e.normalized_len(&s2)?))?;
    if e.sub_at(&mut r, &trim(e, &s2, 1)?, 0)? {
        return Err(Error::Invalid(
            "square root too large (internal error)".into(),
        ));
    }
    Ok((s, trim(e, &r, 1)?))
}

/// The root (`l` limbs) and remainder of `num` (`2l` limbs, top limb at
/// least 2^62).
fn rec<E: HugeEngine>(e: &E, num: &E::Buf, l: usize) -> Result<(E::Buf, E::Buf)> {
    if l <= SQRT_HOST_T {
        let (s, r) = to_nat(e, num)?.sqrt_rem();
        return Ok((from_nat(e, &s, l)?, from_nat(e, &r, l + 1)?));
    }
    let lo = l / 2;
    let hi = l - lo;
    let top = e.slice(num, 2 * lo, 2 * l)?;
    let (s1, r1) = rec(e, &top, hi)?;
    // (q, u) = divrem(r1 β^lo + a1, 2 s1)
    let mut t = e.zeros(e.len(&r1) + lo)?;
    e.add_at(&mut t, &e.slice(num, lo, 2 * lo)?, 0)?;
    e.add_at(&mut t, &r1, lo)?;
    let two_s1 = e.shl_bits(&s1, 1)?;
    let (q, u) = divrem(e, &t, &two_s1)?;
    // s = s1 β^lo + q
    let qn = e.normalized_len(&q)?;
    let mut s = e.zeros(l.max(lo + 1).max(qn) + 1)?;
    e.add_at(&mut s, &s1, lo)?;
    e.add_at(&mut s, &q, 0)?;
    // r = u β^lo + a0 - q^2, corrected while negative
    let un = e.normalized_len(&u)?;
    let mut r = e.zeros(un.max(1) + lo + 2)?;
    e.add_at(&mut r, &e.slice(num, 0, lo)?, 0)?;
    e.add_at(&mut r, &u, lo)?;
    let q2 = trim(e, &e.sqr(&q)?, 1)?;
    let mut steps = 0;
    while e.cmp(&r, &q2)? == Ordering::Less {
        // r += 2s - 1; s -= 1
        let two_s = e.shl_bits(&s, 1)?;
        let mut r2 = e.zeros(e.len(&r).max(e.len(&two_s)) + 1)?;
        e.add_at(&mut r2, &r, 0)?;
        e.add_at(&mut r2, &two_s, 0)?;
        e.sub_limb(&mut r2, 1, 0)?;
        r = r2;
        e.sub_limb(&mut s, 1, 0)?;
        steps += 1;
        if steps > 4 {
            return Err(Error::Invalid(
                "square root did not converge (internal error)".into(),
            ));
        }
    }
    let mut r = if e.len(&r) >= e.len(&q2) {
        r
    } else {
        let mut w = e.zeros(e.len(&q2))?;
        e.add_at(&mut w, &r, 0)?;
        w
    };
    e.sub_at(&mut r, &q2, 0)?;
    let s = e.slice(&s, 0, l)?;
    let r = copy(e, &trim(e, &r, 1)?)?;
    Ok((s, r))
}
