//! Division with remainder by Newton's method, generic over the engine.
//!
//! The divisor `B` (m limbs) is shifted so that its top bit is set; its top
//! `k` limbs `D` get an approximate reciprocal `X ~ (β^2k - 1) / D`
//! (β = 2^64) by Newton's iteration with doubling precision (each step:
//! `X' = X + X (β^2k - D X) / β^2k`, from a reciprocal of the top half;
//! the error stays a few units). The dividend is then consumed from the top
//! in chunks of fewer than `k` limbs: each chunk's quotient is
//! `floor(N_hi X / β^(k+1))`, off by a few units at most, and is made exact
//! by comparing `q B` with the chunk and stepping `q` by one (each step a
//! linear pass). Small operands go to malachite on the host.

use std::cmp::Ordering;

use malachite_base::num::arithmetic::traits::DivRem;
use malachite_nz::natural::Natural;

use super::engine::HugeEngine;
use crate::error::{Error, Result};

/// Reciprocals of at most this many limbs are computed on the host.
pub const RECIP_HOST_T: usize = 32;
/// Divisors of at most this many limbs, or dividends of at most
/// [`DIV_HOST_N`] limbs, are divided on the host (malachite).
pub const DIV_HOST_M: usize = 24;
/// See [`DIV_HOST_M`].
pub const DIV_HOST_N: usize = 64;
/// Correction steps allowed before giving up (the analysis says a few).
const MAX_STEPS: usize = 64;

pub(crate) fn to_nat<E: HugeEngine>(e: &E, a: &E::Buf) -> Result<Natural> {
    Ok(Natural::from_limbs_asc(&e.download(a)?))
}

/// `n` limbs holding `x` (an error if it does not fit).
pub(crate) fn from_nat<E: HugeEngine>(e: &E, x: &Natural, n: usize) -> Result<E::Buf> {
    let mut l = x.to_limbs_asc();
    if l.len() > n {
        return Err(Error::Shape(format!("{} limbs do not fit {n}", l.len())));
    }
    l.resize(n, 0);
    e.upload(&l)
}

/// A copy of `a` without its high zero limbs (at least `min` limbs).
pub(crate) fn trim<E: HugeEngine>(e: &E, a: &E::Buf, min: usize) -> Result<E::Buf> {
    let n = e.normalized_len(a)?.max(min);
    e.slice(a, 0, n)
}

/// `a * β^w` in `len(a) + w` limbs.
pub(crate) fn shl_limbs<E: HugeEngine>(e: &E, a: &E::Buf, w: usize) -> Result<E::Buf> {
    let mut r = e.zeros(e.len(a) + w)?;
    e.add_at(&mut r, a, w)?;
    Ok(r)
}

/// `a * 2^bits` (any shift) in exactly the limbs it needs (at least one).
pub(crate) fn shl<E: HugeEngine>(e: &E, a: &E::Buf, bits: u64) -> Result<E::Buf> {
    let a = trim(e, a, 1)?;
    let w = (bits / 64) as usize;
    let b = (bits % 64) as u32;
    let a = if b == 0 {
        a
    } else {
        trim(e, &e.shl_bits(&a, b)?, 1)?
    };
    if w == 0 { Ok(a) } else { shl_limbs(e, &a, w) }
}

/// `floor(a / 2^bits)`.
pub(crate) fn shr<E: HugeEngine>(e: &E, a: &E::Buf, bits: u64) -> Result<E::Buf> {
    let n = e.len(a);
    let w = ((bits / 64) as usize).min(n);
    let b = (bits % 64) as u32;
    let a = e.slice(a, w, n.max(w + 1))?;
    if b == 0 { Ok(a) } else { e.shr_bits(&a, b) }
}

/// Significant bits of `a`.
pub(crate) fn bit_len<E: HugeEngine>(e: &E, a: &E::Buf) -> Result<u64> {
    let n = e.normalized_len(a)?;
    if n == 0 {
        return Ok(0);
    }
    let top = e.download(&e.slice(a, n - 1, n)?)?[0];
    Ok(64 * n as u64 - top.leading_zeros() as u64)
}

/// An approximation of `(β^2k - 1) / D` for `D` of `k` limbs with its top
/// bit set, within a few units, in `k + 1` limbs.
pub fn recip<E: HugeEngine>(e: &E, d: &E::Buf) -> Result<E::Buf> {
    let k = e.len(d);
    if k <= RECIP_HOST_T {
        let dn = to_nat(e, d)?;
        let one = Natural::from(1u32) << (128 * k as u64);
        return from_nat(e, &((one - Natural::from(1u32)) / dn), k + 1);
    }
    let h = k / 2 + 1;
    let dh = e.slice(d, k - h, k)?;
    let xh = recip(e, &dh)?;
    // P = D xh ~ β^(k+h); F = β^(k+h) - P (signed) is a few units of β^k.
    let p = e.mul(d, &xh)?;
    let above = e.normalized_len(&p)? > k + h;
    let f = if above {
        let mut f = p;
        e.sub_limb(&mut f, 1, k + h)?;
        f
    } else {
        let mut f = e.zeros(k + h + 1)?;
        e.add_limb(&mut f, 1, k + h)?;
        e.sub_at(&mut f, &p, 0)?;
        f
    };
    // X = xh β^(k-h) ± floor(xh F / β^2h), with F cut to its top limbs.
    let ft = e.slice(&f, h - 1, k + h + 1)?;
    let t = e.mul(&xh, &ft)?;
    let delta = trim(e, &e.slice(&t, h + 1, e.len(&t))?, 1)?;
    let mut x = e.zeros(k + 1)?;
    e.add_at(&mut x, &xh, k - h)?;
    let over = if above {
        e.sub_at(&mut x, &delta, 0)?
    } else {
        e.add_at(&mut x, &delta, 0)?
    };
    if over {
        return Err(Error::Invalid(
            "reciprocal out of range (internal error)".into(),
        ));
    }
    Ok(x)
}

/// A divisor prepared for repeated division: shifted, with its reciprocal.
pub struct Divisor<E: HugeEngine> {
    /// The divisor as given, normalized.
    pub b: E::Buf,
    /// `b << s` (m limbs, top bit set).
    bs: E::Buf,
    s: u32,
    m: usize,
    /// Reciprocal of the top `k` limbs of `bs` (none when `m` is small).
    x: Option<E::Buf>,
    k: usize,
}

impl<E: HugeEngine> Divisor<E> {
    /// Prepares `b` for quotients of up to `qn` limbs per division (the
    /// reciprocal's precision; larger quotients take several steps).
    pub fn new(e: &E, b: &E::Buf, qn: usize) -> Result<Self> {
        let m = e.normalized_len(b)?;
        if m == 0 {
            return Err(Error::DivisionByZero { index: 0 });
        }
        let b = e.slice(b, 0, m)?;
        let top = e.download(&e.slice(&b, m - 1, m)?)?[0];
        let s = top.leading_zeros();
        let bs = if s == 0 {
            copy(e, &b)?
        } else {
            e.slice(&e.shl_bits(&b, s)?, 0, m)?
        };
        let (x, k) = if m <= DIV_HOST_M {
            (None, 0)
        } else {
            let k = m.min(qn + 2).max(2);
            let d = e.slice(&bs, m - k, m)?;
            (Some(recip(e, &d)?), k)
        };
        Ok(Divisor { b, bs, s, m, x, k })
    }

    /// Limbs of the divisor.
    pub fn limbs(&self) -> usize {
        self.m
    }

    /// `(floor(a / b), a mod b)`.
    pub fn divrem(&self, e: &E, a: &E::Buf) -> Result<(E::Buf, E::Buf)> {
        let n = e.normalized_len(a)?;
        let m = self.m;
        if n < m || e.cmp(a, &self.b)? == Ordering::Less {
            return Ok((e.zeros(1)?, trim(e, a, 1)?));
        }
        let Some(x) = &self.x else {
            return host_divrem(e, a, &self.b);
        };
        if n <= DIV_HOST_N {
            return host_divrem(e, a, &self.b);
        }
        let a = e.slice(a, 0, n)?;
        let a = if self.s == 0 {
            a
        } else {
            e.shl_bits(&a, self.s)?
        };
        let na = e.normalized_len(&a)?.max(m);
        // rem < bs always; the first one is the top m - 1 limbs.
        let mut rem = e.slice(&a, na - (m - 1), na)?;
        let mut rest = na - (m - 1);
        let qn = rest;
        let mut q = e.zeros(qn.max(1))?;
        let cmax = self.k - 1;
        let mut c = rest % cmax;
        if c == 0 {
            c = cmax;
        }
        while rest > 0 {
            let lo = rest - c;
            // N = rem β^c + a[lo..rest], below bs β^c.
            let mut num = e.zeros(m + c)?;
            e.add_at(&mut num, &e.slice(&a, lo, rest)?, 0)?;
            e.add_at(&mut num, &rem, c)?;
            let (qc, r) = self.step(e, x, &num, c)?;
            e.add_at(&mut q, &qc, lo)?;
            rem = r;
            rest = lo;
            c = cmax;
        }
        let r = if self.s == 0 {
            rem
        } else {
            e.shr_bits(&rem, self.s)?
        };
        Ok((trim(e, &q, 1)?, trim(e, &r, 1)?))
    }

    /// One chunk: `num < bs β^c` (m + c limbs) to `(q, r)`, `q < β^c`, `r < bs`.
    fn step(&self, e: &E, x: &E::Buf, num: &E::Buf, c: usize) -> Result<(E::Buf, E::Buf)> {
        let (m, k) = (self.m, self.k);
        let nhi = e.slice(num, m - 1, m + c)?;
        let t = e.mul(&nhi, x)?;
        let mut q = e.slice(&t, k + 1, k + 2 + c)?;
        let mut qb = e.mul(&q, &self.bs)?;
        let mut steps = 0;
        while e.cmp(&qb, num)? == Ordering::Greater {
            e.sub_limb(&mut q, 1, 0)?;
            e.sub_at(&mut qb, &self.bs, 0)?;
            steps += 1;
            if steps > MAX_STEPS {
                return Err(Error::Invalid(
                    "division did not converge (internal error)".into(),
                ));
            }
        }
        let mut r = copy(e, num)?;
        // (qb <= num: its limbs past len(r) are zero.)
        e.sub_at(&mut r, &qb, 0)?;
        while e.cmp(&r, &self.bs)? != Ordering::Less {
            e.sub_at(&mut r, &self.bs, 0)?;
            e.add_limb(&mut q, 1, 0)?;
            steps += 1;
            if steps > MAX_STEPS {
                return Err(Error::Invalid(
                    "division did not converge (internal error)".into(),
                ));
            }
        }
        Ok((trim(e, &q, 1)?, e.slice(&r, 0, m)?))
    }
}

/// A copy of a buffer.
pub(crate) fn copy<E: HugeEngine>(e: &E, a: &E::Buf) -> Result<E::Buf> {
    e.slice(a, 0, e.len(a))
}

/// Division on the host (malachite).
pub(crate) fn host_divrem<E: HugeEngine>(
    e: &E,
    a: &E::Buf,
    b: &E::Buf,
) -> Result<(E::Buf, E::Buf)> {
    let (an, bn) = (to_nat(e, a)?, to_nat(e, b)?);
    if bn == 0u32 {
        return Err(Error::DivisionByZero { index: 0 });
    }
    let (q, r) = an.div_rem(bn);
    let (ql, rl) = (q.to_limbs_asc(), r.to_limbs_asc());
    Ok((
        e.upload(if ql.is_empty() { &[0] } else { &ql })?,
        e.upload(if rl.is_empty() { &[0] } else { &rl })?,
    ))
}

/// `(floor(a / b), a mod b)`; `b = 0` is an error.
pub fn divrem<E: HugeEngine>(e: &E, a: &E::Buf, b: &E::Buf) -> Result<(E::Buf, E::Buf)> {
    let n = e.normalized_len(a)?;
    let m = e.normalized_len(b)?;
    if m == 0 {
        return Err(Error::DivisionByZero { index: 0 });
    }
    let qn = (n + 1).saturating_sub(m);
    Divisor::new(e, b, qn)?.divrem(e, a)
}
