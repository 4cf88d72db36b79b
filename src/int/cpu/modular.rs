//! Modular arithmetic on batches (PLACEHOLDER of branch ntops): each
//! element computed with malachite, elements in parallel (rayon). The real
//! implementation (helper ntmod) replaces this file at merge with the same
//! signatures and semantics.

use malachite_base::num::arithmetic::traits::{ExtendedGcd, Gcd, ModInverse, ModPow};
use malachite_base::num::basic::traits::{One, Zero};
use malachite_nz::integer::Integer;
use malachite_nz::natural::Natural;
use rayon::prelude::*;

use crate::error::{Error, Result};

/// One value per element, or one value (of `limbs` limbs) for the whole batch.
#[derive(Clone, Copy, Debug)]
pub enum HostOperand<'a> {
    Each(&'a [u64]),
    All(&'a [u64]),
}

impl<'a> HostOperand<'a> {
    fn get(&self, i: usize, limbs: usize) -> &'a [u64] {
        match *self {
            HostOperand::Each(v) => &v[i * limbs..(i + 1) * limbs],
            HostOperand::All(v) => &v[..limbs],
        }
    }
}

fn nat(x: &[u64]) -> Natural {
    Natural::from_limbs_asc(x)
}

fn put(out: &mut [u64], x: &Natural) {
    out.fill(0);
    for (o, l) in out.iter_mut().zip(x.to_limbs_asc()) {
        *o = l;
    }
}

/// Stores `x` (|x| < 2^(W-1)) as W-bit two's complement.
fn put_signed(out: &mut [u64], x: &Integer) {
    let (neg, mag) = (*x < 0, x.unsigned_abs_ref().clone());
    put(out, &mag);
    if neg {
        let mut c = true;
        for o in out.iter_mut() {
            let (v, c2) = (!*o).overflowing_add(c as u64);
            *o = v;
            c = c2;
        }
    }
}

/// First element whose modulus is zero.
fn check_mod(m: HostOperand, len: usize, limbs: usize) -> Result<()> {
    let zero = |x: &[u64]| x.iter().all(|&v| v == 0);
    match m {
        HostOperand::All(v) => {
            if len > 0 && zero(&v[..limbs]) {
                return Err(Error::DivisionByZero { index: 0 });
            }
        }
        HostOperand::Each(v) => {
            if let Some(i) = v[..len * limbs].par_chunks(limbs).position_first(zero) {
                return Err(Error::DivisionByZero { index: i });
            }
        }
    }
    Ok(())
}

fn check_odd(m: HostOperand, len: usize, limbs: usize) -> Result<()> {
    check_mod(m, len, limbs)?;
    let even = |x: &[u64]| x[0] & 1 == 0;
    let at = match m {
        HostOperand::All(v) => (len > 0 && even(&v[..limbs])).then_some(0),
        HostOperand::Each(v) => v[..len * limbs].par_chunks(limbs).position_first(even),
    };
    match at {
        Some(i) => Err(Error::Invalid(format!(
            "element {i}: Montgomery form needs an odd modulus"
        ))),
        None => Ok(()),
    }
}

/// Runs `f(i, out)` for every element in parallel.
fn each(len: usize, limbs: usize, f: impl Fn(usize, &mut [u64]) + Sync) -> Vec<u64> {
    let mut r = vec![0u64; len * limbs];
    r.par_chunks_mut(limbs.max(1))
        .enumerate()
        .for_each(|(i, o)| f(i, o));
    r
}

/// `base^exp mod m`.
pub fn powm(base: &[u64], exp: HostOperand, m: HostOperand, limbs: usize) -> Result<Vec<u64>> {
    let len = base.len() / limbs;
    check_mod(m, len, limbs)?;
    Ok(each(len, limbs, |i, o| {
        let mm = nat(m.get(i, limbs));
        let b = nat(&base[i * limbs..(i + 1) * limbs]) % &mm;
        let e = nat(exp.get(i, limbs));
        let r = if mm == Natural::ONE {
            Natural::ZERO
        } else {
            b.mod_pow(e, mm)
        };
        put(o, &r);
    }))
}

/// `gcd(a, b)`.
pub fn gcd(a: &[u64], b: HostOperand, limbs: usize) -> Result<Vec<u64>> {
    let len = a.len() / limbs;
    Ok(each(len, limbs, |i, o| {
        let g = nat(&a[i * limbs..(i + 1) * limbs]).gcd(nat(b.get(i, limbs)));
        put(o, &g);
    }))
}

/// `(g, s, t)` with `a*s + b*t = g` (malachite's normalisation), s and t as
/// W-bit two's complement.
pub fn gcd_ext(a: &[u64], b: HostOperand, limbs: usize) -> Result<(Vec<u64>, Vec<u64>, Vec<u64>)> {
    let len = a.len() / limbs;
    let mut g = vec![0u64; len * limbs];
    let mut s = vec![0u64; len * limbs];
    let mut t = vec![0u64; len * limbs];
    g.par_chunks_mut(limbs)
        .zip(s.par_chunks_mut(limbs))
        .zip(t.par_chunks_mut(limbs))
        .enumerate()
        .for_each(|(i, ((go, so), to))| {
            let (gg, ss, tt) =
                nat(&a[i * limbs..(i + 1) * limbs]).extended_gcd(nat(b.get(i, limbs)));
            put(go, &gg);
            put_signed(so, &ss);
            put_signed(to, &tt);
        });
    Ok((g, s, t))
}

/// `a^-1 mod m` and whether it exists (0 and false where not).
pub fn modinv(a: &[u64], m: HostOperand, limbs: usize) -> Result<(Vec<u64>, Vec<bool>)> {
    let len = a.len() / limbs;
    check_mod(m, len, limbs)?;
    let mut r = vec![0u64; len * limbs];
    let mut f = vec![false; len];
    r.par_chunks_mut(limbs)
        .zip(f.par_iter_mut())
        .enumerate()
        .for_each(|(i, (o, fl))| {
            let mm = nat(m.get(i, limbs));
            let x = nat(&a[i * limbs..(i + 1) * limbs]) % &mm;
            if mm == Natural::ONE {
                *fl = true;
            } else if x != 0u32
                && let Some(v) = x.mod_inverse(mm)
            {
                put(o, &v);
                *fl = true;
            }
        });
    Ok((r, f))
}

/// `2^-W mod m` (0 for m = 1).
fn rinv(r: &Natural, m: &Natural) -> Natural {
    if *m == Natural::ONE {
        return Natural::ZERO;
    }
    (r % m).mod_inverse(m).unwrap_or(Natural::ZERO)
}

fn pow2w(limbs: usize) -> Natural {
    Natural::ONE << (64 * limbs as u64)
}

/// `a * 2^W mod m` (m odd).
pub fn to_montgomery(a: &[u64], m: HostOperand, limbs: usize) -> Result<Vec<u64>> {
    let len = a.len() / limbs;
    check_odd(m, len, limbs)?;
    let r = pow2w(limbs);
    Ok(each(len, limbs, |i, o| {
        let mm = nat(m.get(i, limbs));
        put(o, &((nat(&a[i * limbs..(i + 1) * limbs]) * &r) % mm));
    }))
}

/// `a * 2^-W mod m` (m odd).
pub fn from_montgomery(a: &[u64], m: HostOperand, limbs: usize) -> Result<Vec<u64>> {
    let len = a.len() / limbs;
    check_odd(m, len, limbs)?;
    let r = pow2w(limbs);
    Ok(each(len, limbs, |i, o| {
        let mm = nat(m.get(i, limbs));
        let rinv = rinv(&r, &mm);
        put(o, &((nat(&a[i * limbs..(i + 1) * limbs]) * rinv) % mm));
    }))
}

/// `a * b * 2^-W mod m` (m odd).
pub fn mont_mul(a: &[u64], b: &[u64], m: HostOperand, limbs: usize) -> Result<Vec<u64>> {
    let len = a.len() / limbs;
    check_odd(m, len, limbs)?;
    let r = pow2w(limbs);
    Ok(each(len, limbs, |i, o| {
        let mm = nat(m.get(i, limbs));
        let rinv = rinv(&r, &mm);
        let p = nat(&a[i * limbs..(i + 1) * limbs]) * nat(&b[i * limbs..(i + 1) * limbs]);
        put(o, &(((p % &mm) * rinv) % mm));
    }))
}
