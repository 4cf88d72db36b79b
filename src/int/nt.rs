//! Number theory on integer arrays: comparisons, shifts, bit logic, bit
//! counts, square roots, gcds, inverses, modular powers, Montgomery form
//! and a Miller-Rabin test, dispatched to the engine the operands live on
//! (identical results on every engine).
//!
//! Conventions:
//! - Results of comparisons and counts (`cmp`, `eq`, `lt`, `popcount`,
//!   `bit_length`, `is_probable_prime`, the flags of `modinv_flagged`) are
//!   host vectors, one entry per element (copied from the device on CUDA).
//! - A second operand (`other`, `exp`, `m`) has the width of `self` and
//!   either one element per element of `self` or exactly one element, which
//!   then serves the whole batch (a scalar: e.g. one modulus for all). It
//!   lives on the engine of `self`.
//! - Zero moduli are [`Error::DivisionByZero`] naming the first such element
//!   (element 0 for a scalar).

use std::cmp::Ordering;

use super::cpu::bits::{self as hbits, Count, Logic};
use super::cpu::modular::{self as hmod, HostOperand};
use super::cuda::bits as dbits;
use super::cuda::modular::{self as dmod, Operand};
use super::{IntArray, Store};
use crate::engine::Engine;
use crate::error::{Error, Result};

/// Limbs of the second operand as the CPU or CUDA modules want them.
enum Pair<'a> {
    Host(&'a [u64], HostOperand<'a>),
    Cuda(
        &'a cudarc::driver::CudaSlice<u64>,
        Operand<'a>,
        &'a std::sync::Arc<crate::engine::CudaEngine>,
    ),
}

/// Default seed of [`IntArray::is_probable_prime`].
pub const PRIME_SEED: u64 = 0x6d70_6172_7261_7921;

impl IntArray {
    fn same_shape(&self, other: &IntArray, op: &str, scalar: bool) -> Result<()> {
        if self.limbs != other.limbs {
            return Err(Error::Shape(format!(
                "{op}: widths differ ({} and {} bits)",
                self.bits(),
                other.bits()
            )));
        }
        if self.len != other.len && !(scalar && other.len == 1) {
            return Err(Error::Shape(format!(
                "{op}: lengths differ ({} and {} elements{})",
                self.len,
                other.len,
                if scalar {
                    "; a scalar operand has one element"
                } else {
                    ""
                }
            )));
        }
        let (ea, eb) = (self.engine(), other.engine());
        if !ea.same_as(&eb) {
            return Err(Error::EngineMismatch(ea.describe(), eb.describe()));
        }
        Ok(())
    }

    /// Both operands' limbs, the second one per element or broadcast.
    fn pair<'a>(&'a self, other: &'a IntArray, op: &str) -> Result<Pair<'a>> {
        self.same_shape(other, op, true)?;
        let all = other.len != self.len;
        Ok(match (&self.store, &other.store) {
            (Store::Host(a), Store::Host(b)) => Pair::Host(
                a,
                if all {
                    HostOperand::All(b)
                } else {
                    HostOperand::Each(b)
                },
            ),
            (Store::Cuda { buf: a, eng }, Store::Cuda { buf: b, .. }) => Pair::Cuda(
                a,
                if all {
                    Operand::All(b)
                } else {
                    Operand::Each(b)
                },
                eng,
            ),
            _ => unreachable!("same_shape rejects mixed engines"),
        })
    }

    fn host(&self, v: Vec<u64>) -> IntArray {
        IntArray::from_parts(self.limbs, self.len, Store::Host(v))
    }

    fn dev(
        &self,
        buf: cudarc::driver::CudaSlice<u64>,
        eng: &std::sync::Arc<crate::engine::CudaEngine>,
    ) -> IntArray {
        IntArray::from_parts(
            self.limbs,
            self.len,
            Store::Cuda {
                buf,
                eng: eng.clone(),
            },
        )
    }

    /// Per element: `self[i]` compared with `other[i]` (`other` may be a scalar).
    #[allow(clippy::should_implement_trait)]
    pub fn cmp(&self, other: &IntArray) -> Result<Vec<Ordering>> {
        let s = self.cmp_i8(other)?;
        Ok(s.into_iter().map(|v| v.cmp(&0)).collect())
    }

    /// Per element: the sign of `self[i] - other[i]` as -1, 0 or 1.
    pub fn cmp_i8(&self, other: &IntArray) -> Result<Vec<i8>> {
        self.same_shape(other, "cmp", true)?;
        let l = self.limbs;
        let b = if other.len != self.len {
            &other.broadcast(self.len)?
        } else {
            other
        };
        match (&self.store, &b.store) {
            (Store::Host(x), Store::Host(y)) => Ok(hbits::cmp(x, y, l)),
            (Store::Cuda { buf: x, eng }, Store::Cuda { buf: y, .. }) => {
                dbits::cmp(eng, x, y, self.len, l)
            }
            _ => unreachable!("same_shape rejects mixed engines"),
        }
    }

    /// Per element: `self[i] == other[i]`.
    pub fn eq(&self, other: &IntArray) -> Result<Vec<bool>> {
        Ok(self.cmp_i8(other)?.into_iter().map(|v| v == 0).collect())
    }

    /// Per element: `self[i] < other[i]`.
    pub fn lt(&self, other: &IntArray) -> Result<Vec<bool>> {
        Ok(self.cmp_i8(other)?.into_iter().map(|v| v < 0).collect())
    }

    /// `len` copies of this one-element array, on its engine.
    fn broadcast(&self, len: usize) -> Result<IntArray> {
        let one = self.to_limbs()?;
        let mut v = crate::engine::host::zeros("a broadcast operand", len * self.limbs)?;
        for c in v.chunks_mut(self.limbs) {
            c.copy_from_slice(&one[..self.limbs]);
        }
        IntArray::from_limbs(self.bits(), v)?.into_engine(&self.engine())
    }

    fn shift(&self, c: Count, left: bool) -> Result<IntArray> {
        let l = self.limbs;
        if let Count::Each(v) = c
            && v.len() != self.len
        {
            return Err(Error::Shape(format!(
                "{}: {} counts for {} elements",
                if left { "shl" } else { "shr" },
                v.len(),
                self.len
            )));
        }
        Ok(match &self.store {
            Store::Host(a) => self.host(hbits::shift(a, c, l, left)),
            Store::Cuda { buf, eng } => {
                let r = match c {
                    Count::All(s) => dbits::shift(eng, buf, None, s, self.len, l, left)?,
                    Count::Each(v) => {
                        let d = super::cuda::upload(eng, v)?;
                        dbits::shift(eng, buf, Some(&d), 0, self.len, l, left)?
                    }
                };
                self.dev(r, eng)
            }
        })
    }

    /// `self << s` modulo 2^W (bits shifted out are lost; `s >= W` gives 0).
    pub fn shl(&self, s: u64) -> Result<IntArray> {
        self.shift(Count::All(s), true)
    }

    /// `self >> s` (floor; `s >= W` gives 0).
    pub fn shr(&self, s: u64) -> Result<IntArray> {
        self.shift(Count::All(s), false)
    }

    /// `self[i] << counts[i]` modulo 2^W (counts >= W give 0).
    pub fn shl_each(&self, counts: &[u64]) -> Result<IntArray> {
        self.shift(Count::Each(counts), true)
    }

    /// `self[i] >> counts[i]` (counts >= W give 0).
    pub fn shr_each(&self, counts: &[u64]) -> Result<IntArray> {
        self.shift(Count::Each(counts), false)
    }

    fn logic(&self, other: Option<&IntArray>, op: Logic, name: &str) -> Result<IntArray> {
        let l = self.limbs;
        let wide;
        let b = match other {
            Some(o) => {
                self.same_shape(o, name, true)?;
                if o.len != self.len {
                    wide = o.broadcast(self.len)?;
                    Some(&wide)
                } else {
                    Some(o)
                }
            }
            None => None,
        };
        Ok(match (&self.store, b.map(|b| &b.store)) {
            (Store::Host(a), Some(Store::Host(y))) => self.host(hbits::logic(a, y, op)),
            (Store::Host(a), None) => self.host(hbits::not(a)),
            (Store::Cuda { buf, eng }, Some(Store::Cuda { buf: y, .. })) => {
                self.dev(dbits::logic(eng, buf, Some((y, op)), self.len, l)?, eng)
            }
            (Store::Cuda { buf, eng }, None) => {
                self.dev(dbits::logic(eng, buf, None, self.len, l)?, eng)
            }
            _ => unreachable!("same_shape rejects mixed engines"),
        })
    }

    /// Bitwise `self & other`.
    pub fn and(&self, other: &IntArray) -> Result<IntArray> {
        self.logic(Some(other), Logic::And, "and")
    }

    /// Bitwise `self | other`.
    pub fn or(&self, other: &IntArray) -> Result<IntArray> {
        self.logic(Some(other), Logic::Or, "or")
    }

    /// Bitwise `self ^ other`.
    pub fn xor(&self, other: &IntArray) -> Result<IntArray> {
        self.logic(Some(other), Logic::Xor, "xor")
    }

    /// Bitwise complement of each W-bit element (`2^W - 1 - self`).
    pub fn not(&self) -> Result<IntArray> {
        self.logic(None, Logic::And, "not")
    }

    /// Number of set bits of each element.
    pub fn popcount(&self) -> Result<Vec<u64>> {
        match &self.store {
            Store::Host(a) => Ok(hbits::popcount(a, self.limbs)),
            Store::Cuda { buf, eng } => dbits::count(eng, buf, self.len, self.limbs, false),
        }
    }

    /// Significant bits of each element (0 for 0).
    pub fn bit_length(&self) -> Result<Vec<u64>> {
        match &self.store {
            Store::Host(a) => Ok(hbits::bit_length(a, self.limbs)),
            Store::Cuda { buf, eng } => dbits::count(eng, buf, self.len, self.limbs, true),
        }
    }

    /// Floor square root `s` and remainder `self - s^2` of each element.
    pub fn isqrt(&self) -> Result<(IntArray, IntArray)> {
        Ok(match &self.store {
            Store::Host(a) => {
                let (s, r) = hbits::isqrt(a, self.limbs);
                (self.host(s), self.host(r))
            }
            Store::Cuda { buf, eng } => {
                let (s, r) = dbits::isqrt(eng, buf, self.len, self.limbs)?;
                (self.dev(s, eng), self.dev(r, eng))
            }
        })
    }

    /// `gcd(self[i], other[i])` (`other` may be a scalar); gcd(0, 0) = 0.
    pub fn gcd(&self, other: &IntArray) -> Result<IntArray> {
        let l = self.limbs;
        Ok(match self.pair(other, "gcd")? {
            Pair::Host(a, b) => self.host(hmod::gcd(a, b, l)?),
            Pair::Cuda(a, b, eng) => self.dev(dmod::gcd(eng, a, b, self.len, l)?, eng),
        })
    }

    /// `(g, s, t)` with `self*s + other*t = g = gcd`, s and t as malachite's
    /// `extended_gcd` gives them, stored as W-bit two's complement.
    pub fn gcd_ext(&self, other: &IntArray) -> Result<(IntArray, IntArray, IntArray)> {
        let l = self.limbs;
        Ok(match self.pair(other, "gcd_ext")? {
            Pair::Host(a, b) => {
                let (g, s, t) = hmod::gcd_ext(a, b, l)?;
                (self.host(g), self.host(s), self.host(t))
            }
            Pair::Cuda(a, b, eng) => {
                let (g, s, t) = dmod::gcd_ext(eng, a, b, self.len, l)?;
                (self.dev(g, eng), self.dev(s, eng), self.dev(t, eng))
            }
        })
    }

    /// `self[i]^-1 mod m[i]` in `[0, m)`, and per element whether it exists
    /// (where not: 0 and false; modulus 1 gives 0 and true).
    pub fn modinv_flagged(&self, m: &IntArray) -> Result<(IntArray, Vec<bool>)> {
        let l = self.limbs;
        Ok(match self.pair(m, "modinv")? {
            Pair::Host(a, b) => {
                let (r, f) = hmod::modinv(a, b, l)?;
                (self.host(r), f)
            }
            Pair::Cuda(a, b, eng) => {
                let (r, f) = dmod::modinv(eng, a, b, self.len, l)?;
                let mut f = super::cuda::download(eng, &f)?;
                f.truncate(self.len);
                (self.dev(r, eng), f.into_iter().map(|x| x != 0).collect())
            }
        })
    }

    /// `self[i]^-1 mod m[i]`; an element without an inverse is an error
    /// naming the first such element.
    pub fn modinv(&self, m: &IntArray) -> Result<IntArray> {
        let (r, f) = self.modinv_flagged(m)?;
        match f.iter().position(|&ok| !ok) {
            Some(i) => Err(Error::Invalid(format!(
                "element {i}: no inverse (the element and the modulus have a common factor)"
            ))),
            None => Ok(r),
        }
    }

    /// `self[i]^exp[i] mod m[i]` (either may be a scalar); any modulus but
    /// 0 (even ones too; modulus 1 gives 0), exponent 0 gives 1 mod m.
    pub fn powm(&self, exp: &IntArray, m: &IntArray) -> Result<IntArray> {
        let l = self.limbs;
        self.same_shape(exp, "powm", true)?;
        let e_all = exp.len != self.len;
        Ok(match self.pair(m, "powm")? {
            Pair::Host(a, mo) => {
                let e = exp.host_limbs().expect("same engine");
                let eo = if e_all {
                    HostOperand::All(e)
                } else {
                    HostOperand::Each(e)
                };
                self.host(hmod::powm(a, eo, mo, l)?)
            }
            Pair::Cuda(a, mo, eng) => {
                let Store::Cuda { buf: e, .. } = &exp.store else {
                    unreachable!("same engine")
                };
                let eo = if e_all {
                    Operand::All(e)
                } else {
                    Operand::Each(e)
                };
                self.dev(dmod::powm(eng, a, eo, mo, self.len, l)?, eng)
            }
        })
    }

    /// `self[i] * 2^W mod m[i]` (Montgomery form; m odd).
    pub fn to_montgomery(&self, m: &IntArray) -> Result<IntArray> {
        let l = self.limbs;
        Ok(match self.pair(m, "to_montgomery")? {
            Pair::Host(a, mo) => self.host(hmod::to_montgomery(a, mo, l)?),
            Pair::Cuda(a, mo, eng) => self.dev(dmod::to_montgomery(eng, a, mo, self.len, l)?, eng),
        })
    }

    /// `self[i] * 2^-W mod m[i]` (out of Montgomery form; m odd).
    pub fn from_montgomery(&self, m: &IntArray) -> Result<IntArray> {
        let l = self.limbs;
        Ok(match self.pair(m, "from_montgomery")? {
            Pair::Host(a, mo) => self.host(hmod::from_montgomery(a, mo, l)?),
            Pair::Cuda(a, mo, eng) => {
                self.dev(dmod::from_montgomery(eng, a, mo, self.len, l)?, eng)
            }
        })
    }

    /// `self[i] * other[i] * 2^-W mod m[i]` (Montgomery product; m odd).
    pub fn mont_mul(&self, other: &IntArray, m: &IntArray) -> Result<IntArray> {
        let l = self.limbs;
        self.same_shape(other, "mont_mul", false)?;
        Ok(match self.pair(m, "mont_mul")? {
            Pair::Host(a, mo) => {
                let b = other.host_limbs().expect("same engine");
                self.host(hmod::mont_mul(a, b, mo, l)?)
            }
            Pair::Cuda(a, mo, eng) => {
                let Store::Cuda { buf: b, .. } = &other.store else {
                    unreachable!("same engine")
                };
                self.dev(dmod::mont_mul(eng, a, b, mo, self.len, l)?, eng)
            }
        })
    }

    /// Per element: probably prime (Miller-Rabin, `rounds` bases from
    /// [`PRIME_SEED`]); see [`is_probable_prime_seeded`](Self::is_probable_prime_seeded).
    pub fn is_probable_prime(&self, rounds: u32) -> Result<Vec<bool>> {
        self.is_probable_prime_seeded(rounds, PRIME_SEED)
    }

    /// Per element: false for composites, true for primes and for
    /// composites that pass `rounds` Miller-Rabin rounds (probability at most
    /// 4^-rounds each). Trial division by the odd primes below 1024 first
    /// (deciding every element below 1024^2); then round k uses the base
    /// `2 + (h mod (n - 3))`, `h` a W-bit hash of (seed, k, element index),
    /// so results depend only on the seed, never on the batch or engine.
    /// The rounds run on the engine: `powm` for `a^d`, then `to_montgomery`
    /// and repeated `mont_mul` squarings compared with `-1` in Montgomery form.
    pub fn is_probable_prime_seeded(&self, rounds: u32, seed: u64) -> Result<Vec<bool>> {
        let l = self.limbs;
        let bits = self.bits();
        let engine = self.engine();
        let classes = match &self.store {
            Store::Host(a) => hbits::screen(a, l),
            Store::Cuda { buf, eng } => dbits::screen(eng, buf, self.len, l)?,
        };
        let mut out: Vec<bool> = classes.iter().map(|&c| c == hbits::PRIME).collect();
        let mut live: Vec<usize> = (0..self.len)
            .filter(|&i| classes[i] == hbits::UNKNOWN)
            .collect();
        if live.is_empty() {
            return Ok(out);
        }
        let all = self.to_limbs()?;
        for k in 0..rounds {
            if live.is_empty() {
                break;
            }
            let passed = mr_round(&all, &live, l, bits, &engine, seed, k)?;
            live = live
                .into_iter()
                .zip(passed)
                .filter_map(|(i, p)| p.then_some(i))
                .collect();
        }
        for i in live {
            out[i] = true;
        }
        Ok(out)
    }
}

/// One Miller-Rabin round for the (odd, >= 1031^2) elements `idx` of `all`;
/// whether each passes.
fn mr_round(
    all: &[u64],
    idx: &[usize],
    l: usize,
    bits: u64,
    engine: &Engine,
    seed: u64,
    round: u32,
) -> Result<Vec<bool>> {
    use rayon::prelude::*;
    let m = idx.len();
    let mut n = vec![0u64; m * l];
    let mut nm1 = vec![0u64; m * l];
    let mut nm3 = vec![0u64; m * l];
    let mut d = vec![0u64; m * l];
    let mut h = vec![0u64; m * l];
    let mut s = vec![0u64; m];
    let rseed = super::random::mix64(seed ^ (round as u64).wrapping_mul(0xA24B_AED4_963E_E407));
    n.par_chunks_mut(l)
        .zip(nm1.par_chunks_mut(l))
        .zip(nm3.par_chunks_mut(l))
        .zip(d.par_chunks_mut(l))
        .zip(h.par_chunks_mut(l))
        .zip(s.par_iter_mut())
        .enumerate()
        .for_each(|(j, (((((n, nm1), nm3), d), h), s))| {
            let i = idx[j];
            n.copy_from_slice(&all[i * l..(i + 1) * l]);
            nm1.copy_from_slice(n);
            nm1[0] -= 1; // n is odd
            nm3.copy_from_slice(n);
            super::cpu::arith::sub_1_assign(nm3, 3);
            let tz = {
                let k = nm1.iter().position(|&v| v != 0).unwrap_or(0);
                64 * k as u64 + nm1[k].trailing_zeros() as u64
            };
            *s = tz;
            hbits::shift_one(d, nm1, tz, false);
            for (t, v) in h.iter_mut().enumerate() {
                *v = super::random::limb(rseed, (i * l + t) as u64);
            }
        });
    let up = |v: Vec<u64>| IntArray::from_limbs(bits, v)?.into_engine(engine);
    let (n, nm1, nm3, d, h) = (up(n)?, up(nm1)?, up(nm3)?, up(d)?, up(h)?);
    let mut two = vec![0u64; l];
    two[0] = 2;
    let two = up(two)?;
    // a = 2 + h mod (n - 3), in [2, n - 2].
    let (_, a) = h.divrem(&nm3)?;
    let a = a.add(&two.broadcast(m)?)?;
    let x = a.powm(&d, &n)?;
    let c1 = x.cmp_i8(&nm1)?;
    let mut one = vec![0u64; l];
    one[0] = 1;
    let c0 = x.cmp_i8(&up(one)?)?;
    let mut pass: Vec<bool> = c0
        .iter()
        .zip(&c1)
        .map(|(&a, &b)| a == 0 || b == 0)
        .collect();
    let smax = s.iter().copied().max().unwrap_or(0);
    let todo = |pass: &[bool], j: u64| (0..m).any(|t| !pass[t] && j < s[t]);
    if smax > 1 && todo(&pass, 1) {
        let neg = nm1.to_montgomery(&n)?;
        let mut xm = x.to_montgomery(&n)?;
        for j in 1..smax {
            if !todo(&pass, j) {
                break;
            }
            xm = xm.mont_mul(&xm, &n)?;
            let c = xm.cmp_i8(&neg)?;
            for t in 0..m {
                if !pass[t] && j < s[t] && c[t] == 0 {
                    pass[t] = true;
                }
            }
        }
    }
    Ok(pass)
}
