//! Integer operations, dispatched to the engine the operands live on.
//!
//! Semantics (identical on every engine):
//! - `add`, `sub`: modulo 2^W; `overflowing_*` also return the carry/borrow
//!   out of each element.
//! - `mul`: the low W bits of the product; `mul_wide`: all 2W bits (the
//!   result array has width 2W).
//! - `divrem`: floor quotient and remainder; a zero divisor is
//!   [`Error::DivisionByZero`] naming the first such element.

use super::{IntArray, Store, cpu, cuda};
use crate::error::{Error, Result};

/// Whole expressions evaluated in one pass (one kernel on CUDA), with the
/// intermediates on chip. All arithmetic is modulo 2^W.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Fused {
    /// Six dependent additions: `a+b+a+b+a+b+a` (= 4a + 3b).
    SixAdd,
    /// `(a*a + b) * (b*b + b) + a*b`, low halves.
    Poly,
}

impl IntArray {
    fn check_pair(&self, other: &IntArray, op: &str) -> Result<()> {
        if self.limbs != other.limbs {
            return Err(Error::Shape(format!(
                "{op}: widths differ ({} and {} bits)",
                self.bits(),
                other.bits()
            )));
        }
        if self.len != other.len {
            return Err(Error::Shape(format!(
                "{op}: lengths differ ({} and {} elements)",
                self.len, other.len
            )));
        }
        let (ea, eb) = (self.engine(), other.engine());
        if !ea.same_as(&eb) {
            return Err(Error::EngineMismatch(ea.describe(), eb.describe()));
        }
        Ok(())
    }

    fn like(&self, limbs: usize, store: Store) -> IntArray {
        IntArray::from_parts(limbs, self.len, store)
    }

    /// `self + other` modulo 2^W.
    pub fn add(&self, other: &IntArray) -> Result<IntArray> {
        Ok(self.add_sub(other, false, false)?.0)
    }

    /// `self + other` modulo 2^W, and the carry out of each element.
    pub fn overflowing_add(&self, other: &IntArray) -> Result<(IntArray, Vec<bool>)> {
        let (r, c) = self.add_sub(other, false, true)?;
        Ok((r, c.unwrap_or_default()))
    }

    /// `self - other` modulo 2^W.
    pub fn sub(&self, other: &IntArray) -> Result<IntArray> {
        Ok(self.add_sub(other, true, false)?.0)
    }

    /// `self - other` modulo 2^W, and the borrow out of each element.
    pub fn overflowing_sub(&self, other: &IntArray) -> Result<(IntArray, Vec<bool>)> {
        let (r, c) = self.add_sub(other, true, true)?;
        Ok((r, c.unwrap_or_default()))
    }

    fn add_sub(
        &self,
        other: &IntArray,
        subtract: bool,
        flags: bool,
    ) -> Result<(IntArray, Option<Vec<bool>>)> {
        self.check_pair(other, if subtract { "sub" } else { "add" })?;
        let l = self.limbs;
        match (&self.store, &other.store) {
            (Store::Host(a), Store::Host(b)) => {
                let (r, c) = if subtract {
                    cpu::sub(a, b, l)
                } else {
                    cpu::add(a, b, l)
                };
                Ok((self.like(l, Store::Host(r)), Some(c)))
            }
            (Store::Cuda { buf: a, eng }, Store::Cuda { buf: b, .. }) => {
                let (r, c) = cuda::add_sub(eng, a, b, self.len, l, subtract, flags)?;
                Ok((
                    self.like(
                        l,
                        Store::Cuda {
                            buf: r,
                            eng: eng.clone(),
                        },
                    ),
                    c,
                ))
            }
            _ => unreachable!("check_pair rejects mixed engines"),
        }
    }

    /// The low W bits of `self * other`.
    pub fn mul(&self, other: &IntArray) -> Result<IntArray> {
        self.check_pair(other, "mul")?;
        let l = self.limbs;
        Ok(match (&self.store, &other.store) {
            (Store::Host(a), Store::Host(b)) => self.like(l, Store::Host(cpu::mul(a, b, l))),
            (Store::Cuda { buf: a, eng }, Store::Cuda { buf: b, .. }) => self.like(
                l,
                Store::Cuda {
                    buf: cuda::mul(eng, a, b, self.len, l)?,
                    eng: eng.clone(),
                },
            ),
            _ => unreachable!("check_pair rejects mixed engines"),
        })
    }

    /// The full 2W-bit product (the result has width 2W).
    pub fn mul_wide(&self, other: &IntArray) -> Result<IntArray> {
        self.check_pair(other, "mul_wide")?;
        let l = self.limbs;
        if 2 * self.bits() > super::MAX_BITS {
            return Err(Error::BadWidth {
                bits: 2 * self.bits(),
                max: super::MAX_BITS,
            });
        }
        Ok(match (&self.store, &other.store) {
            (Store::Host(a), Store::Host(b)) => {
                self.like(2 * l, Store::Host(cpu::mul_wide(a, b, l)))
            }
            (Store::Cuda { buf: a, eng }, Store::Cuda { buf: b, .. }) => self.like(
                2 * l,
                Store::Cuda {
                    buf: cuda::mul_wide(eng, a, b, self.len, l)?,
                    eng: eng.clone(),
                },
            ),
            _ => unreachable!("check_pair rejects mixed engines"),
        })
    }

    /// Floor quotient and remainder of `self / other`.
    pub fn divrem(&self, other: &IntArray) -> Result<(IntArray, IntArray)> {
        self.check_pair(other, "divrem")?;
        let l = self.limbs;
        Ok(match (&self.store, &other.store) {
            (Store::Host(a), Store::Host(b)) => {
                let (q, r) = cpu::divrem(a, b, l)?;
                (self.like(l, Store::Host(q)), self.like(l, Store::Host(r)))
            }
            (Store::Cuda { buf: a, eng }, Store::Cuda { buf: b, .. }) => {
                let (q, r) = cuda::divrem(eng, a, b, self.len, l)?;
                let wrap = |buf| Store::Cuda {
                    buf,
                    eng: eng.clone(),
                };
                (self.like(l, wrap(q)), self.like(l, wrap(r)))
            }
            _ => unreachable!("check_pair rejects mixed engines"),
        })
    }

    /// Evaluates a fused expression of `a = self` and `b = other` in one pass.
    pub fn fused(&self, other: &IntArray, kind: Fused) -> Result<IntArray> {
        self.check_pair(other, "fused")?;
        let l = self.limbs;
        Ok(match (&self.store, &other.store) {
            (Store::Host(a), Store::Host(b)) => {
                self.like(l, Store::Host(cpu::fused(a, b, l, kind)))
            }
            (Store::Cuda { buf: a, eng }, Store::Cuda { buf: b, .. }) => self.like(
                l,
                Store::Cuda {
                    buf: cuda::fused(eng, a, b, self.len, l, kind)?,
                    eng: eng.clone(),
                },
            ),
            _ => unreachable!("check_pair rejects mixed engines"),
        })
    }

    /// The host buffer of `out` to overwrite when it already holds `len`
    /// elements of `limbs` limbs on the CPU (no allocation, no page faults);
    /// otherwise a fresh one. Callers check for errors first, so `out` is
    /// never left half-taken.
    fn reuse(out: &mut IntArray, limbs: usize, len: usize) -> Vec<u64> {
        match &mut out.store {
            Store::Host(v) if out.limbs == limbs && out.len == len => std::mem::take(v),
            _ => vec![0; limbs * len],
        }
    }

    /// [`overflowing_add`](Self::overflowing_add) into `out`, reusing its
    /// memory when it has the right shape and engine.
    pub fn overflowing_add_into(&self, other: &IntArray, out: &mut IntArray) -> Result<Vec<bool>> {
        Ok(self
            .add_sub_into(other, false, true, out)?
            .unwrap_or_default())
    }

    /// [`overflowing_sub`](Self::overflowing_sub) into `out`, reusing its memory.
    pub fn overflowing_sub_into(&self, other: &IntArray, out: &mut IntArray) -> Result<Vec<bool>> {
        Ok(self
            .add_sub_into(other, true, true, out)?
            .unwrap_or_default())
    }

    /// [`add`](Self::add) into `out`, reusing its memory.
    pub fn add_into(&self, other: &IntArray, out: &mut IntArray) -> Result<()> {
        self.add_sub_into(other, false, false, out).map(drop)
    }

    /// [`sub`](Self::sub) into `out`, reusing its memory.
    pub fn sub_into(&self, other: &IntArray, out: &mut IntArray) -> Result<()> {
        self.add_sub_into(other, true, false, out).map(drop)
    }

    fn add_sub_into(
        &self,
        other: &IntArray,
        subtract: bool,
        flags: bool,
        out: &mut IntArray,
    ) -> Result<Option<Vec<bool>>> {
        self.check_pair(other, if subtract { "sub" } else { "add" })?;
        let l = self.limbs;
        match (&self.store, &other.store) {
            (Store::Host(a), Store::Host(b)) => {
                let mut r = Self::reuse(out, l, self.len);
                let mut c = vec![false; self.len];
                cpu::add_sub_into(a, b, l, subtract, &mut r, &mut c);
                *out = self.like(l, Store::Host(r));
                Ok(Some(c))
            }
            _ => {
                // Other engines: the same call as the allocating forms
                // (with or without the carry flags).
                let (r, c) = self.add_sub(other, subtract, flags)?;
                *out = r;
                Ok(c)
            }
        }
    }

    /// [`mul`](Self::mul) into `out`, reusing its memory.
    pub fn mul_into(&self, other: &IntArray, out: &mut IntArray) -> Result<()> {
        self.check_pair(other, "mul")?;
        let l = self.limbs;
        match (&self.store, &other.store) {
            (Store::Host(a), Store::Host(b)) => {
                let mut r = Self::reuse(out, l, self.len);
                cpu::mul_into(a, b, l, &mut r);
                *out = self.like(l, Store::Host(r));
            }
            _ => *out = self.mul(other)?,
        }
        Ok(())
    }

    /// [`mul_wide`](Self::mul_wide) into `out`, reusing its memory.
    pub fn mul_wide_into(&self, other: &IntArray, out: &mut IntArray) -> Result<()> {
        self.check_pair(other, "mul_wide")?;
        let l = self.limbs;
        match (&self.store, &other.store) {
            (Store::Host(a), Store::Host(b)) if 2 * self.bits() <= super::MAX_BITS => {
                let mut r = Self::reuse(out, 2 * l, self.len);
                cpu::mul_wide_into(a, b, l, &mut r);
                *out = self.like(2 * l, Store::Host(r));
            }
            _ => *out = self.mul_wide(other)?,
        }
        Ok(())
    }

    /// [`divrem`](Self::divrem) into `q` and `r`, reusing their memory.
    pub fn divrem_into(&self, other: &IntArray, q: &mut IntArray, r: &mut IntArray) -> Result<()> {
        self.check_pair(other, "divrem")?;
        let l = self.limbs;
        match (&self.store, &other.store) {
            (Store::Host(a), Store::Host(b)) => {
                cpu::check_divisors(b, l)?;
                let mut qv = Self::reuse(q, l, self.len);
                let mut rv = Self::reuse(r, l, self.len);
                cpu::divrem_into(a, b, l, &mut qv, &mut rv)?;
                *q = self.like(l, Store::Host(qv));
                *r = self.like(l, Store::Host(rv));
            }
            _ => (*q, *r) = self.divrem(other)?,
        }
        Ok(())
    }

    /// [`fused`](Self::fused) into `out`, reusing its memory.
    pub fn fused_into(&self, other: &IntArray, kind: Fused, out: &mut IntArray) -> Result<()> {
        self.check_pair(other, "fused")?;
        let l = self.limbs;
        match (&self.store, &other.store) {
            (Store::Host(a), Store::Host(b)) => {
                let mut r = Self::reuse(out, l, self.len);
                cpu::fused_into(a, b, l, kind, &mut r);
                *out = self.like(l, Store::Host(r));
            }
            _ => *out = self.fused(other, kind)?,
        }
        Ok(())
    }
}
