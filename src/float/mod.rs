//! Arrays of binary floating-point numbers with GNU MPFR's exact semantics.
//!
//! A [`FloatArray`] holds `len` floats of one precision `p` (bits of
//! mantissa, `1 <= p <= MAX_PREC`) on one engine, each with MPFR's value
//! set: a sign, an exponent in MPFR's default range [`EMIN`]`..=`[`EMAX`], a
//! normalized mantissa, and the special values NaN, +-Inf and +-0 (no
//! subnormals). Operations run on the array's engine ([`array`]'s docs say
//! what CUDA hands to the CPU engine) and give the same bits on every one.
//!
//! Host storage (`CpuFloats`) is a structure of arrays: one tag byte per
//! element (class and sign), one 64-bit exponent per element, and
//! `ceil(p/64)` mantissa limbs per element, contiguous per element, least
//! significant limb first. As in MPFR the mantissa is left-aligned: the top
//! bit of the top limb is set, and the `64*n - p` low bits of the lowest
//! limb are zero, so the value is `0.m * 2^exp` with `1/2 <= 0.m < 1`.
//! Special values have exponent 0 and zero limbs. Device storage
//! (`cuda::CudaFloats`) packs tag and exponent into one head word.
//!
//! Every operation rounds the exact result once, in one of MPFR's five
//! rounding modes, and can return MPFR's ternary value per element (the sign
//! of rounded minus exact). See `notes/float.md` for the algorithms.

pub(crate) mod arith;
pub mod array;
mod convert;
pub mod cuda;
pub mod func;
mod ops;
pub mod random;
pub(crate) mod round;
pub mod text;

use std::cmp::Ordering;

use crate::error::{Error, Result};

pub(crate) use array::Store;
pub use array::{FloatArray, TernaryArray, WithTernary};
pub(crate) use convert::round_int;
pub use convert::to_rounding_mode;
pub use ops::FloatOp;
pub use round::Round;

/// Smallest precision in bits.
pub const MIN_PREC: u64 = 1;
/// Largest precision in bits (2^20; the brief asks for at least 16384).
pub const MAX_PREC: u64 = 1 << 20;
/// MPFR's default smallest exponent, `1 - 2^30` (value `0.1b * 2^EMIN` is
/// the smallest positive float). malachite-float's `Float::MIN_EXPONENT`.
pub const EMIN: i64 = 1 - (1 << 30);
/// MPFR's default largest exponent, `2^30 - 1`. malachite-float's
/// `Float::MAX_EXPONENT`.
pub const EMAX: i64 = (1 << 30) - 1;

/// The class of an element, in the low two bits of its tag.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Class {
    Zero = 0,
    Normal = 1,
    Inf = 2,
    NaN = 3,
}

/// Tag bit for a negative sign (never set on NaN).
pub(crate) const NEG: u8 = 4;

pub(crate) fn class_of(tag: u8) -> Class {
    match tag & 3 {
        0 => Class::Zero,
        1 => Class::Normal,
        2 => Class::Inf,
        _ => Class::NaN,
    }
}

pub(crate) fn tag(class: Class, neg: bool) -> u8 {
    if class == Class::NaN {
        return Class::NaN as u8;
    }
    class as u8 | if neg { NEG } else { 0 }
}

/// Limbs per element for precision `p`.
pub fn limbs_for_prec(p: u64) -> usize {
    p.div_ceil(64) as usize
}

/// Checks a precision.
pub fn check_prec(p: u64) -> Result<usize> {
    if !(MIN_PREC..=MAX_PREC).contains(&p) {
        return Err(Error::Invalid(format!(
            "invalid precision {p} bits: precisions are 1 to {MAX_PREC} bits"
        )));
    }
    Ok(limbs_for_prec(p))
}

/// One element read from an array: class, sign, exponent and mantissa.
#[derive(Clone, Copy, Debug)]
pub struct Elem<'a> {
    pub class: Class,
    pub neg: bool,
    pub exp: i64,
    /// The mantissa limbs (least significant first, top bit set) of a
    /// normal number; zeros otherwise.
    pub limbs: &'a [u64],
}

/// The CPU engine's storage of a [`FloatArray`]: `len` floats of precision
/// `prec` in host memory (see the module docs).
#[derive(Clone, PartialEq, Eq)]
pub(crate) struct CpuFloats {
    prec: u64,
    n: usize,
    len: usize,
    tags: Vec<u8>,
    exps: Vec<i64>,
    limbs: Vec<u64>,
}

impl std::fmt::Debug for CpuFloats {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "CpuFloats {{ len: {}, prec: {}, engine: cpu }}",
            self.len, self.prec
        )
    }
}

impl CpuFloats {
    /// `len` positive zeros of precision `prec`.
    pub fn zeros(len: usize, prec: u64) -> Result<CpuFloats> {
        let n = check_prec(prec)?;
        let total = len
            .checked_mul(n)
            .ok_or_else(|| Error::Invalid(format!("{len} elements of {prec} bits do not fit")))?;
        Ok(CpuFloats {
            prec,
            n,
            len,
            tags: crate::engine::host::zeros("a float array's tags", len)?,
            exps: crate::engine::host::zeros("a float array's exponents", len)?,
            limbs: crate::engine::host::zeros("a float array's limbs", total)?,
        })
    }

    /// An array from its raw parts (checked: every normal element must have
    /// its top bit set, zero bits below the precision and an exponent in
    /// range; special elements zero limbs and exponent 0).
    pub fn from_raw(
        prec: u64,
        tags: Vec<u8>,
        exps: Vec<i64>,
        limbs: Vec<u64>,
    ) -> Result<CpuFloats> {
        let n = check_prec(prec)?;
        let len = tags.len();
        if exps.len() != len || limbs.len() != len * n {
            return Err(Error::Shape(format!(
                "{len} tags need {len} exponents and {} limbs; got {} and {}",
                len * n,
                exps.len(),
                limbs.len()
            )));
        }
        let a = CpuFloats {
            prec,
            n,
            len,
            tags,
            exps,
            limbs,
        };
        let low = (64 * n as u64 - prec) as u32;
        for i in 0..len {
            let t = a.tags[i];
            let m = &a.limbs[i * n..(i + 1) * n];
            let ok = if t & !7 != 0 || (t & 3 == 3 && t & NEG != 0) {
                false
            } else if class_of(t) == Class::Normal {
                m[n - 1] >> 63 == 1
                    && (low == 0 || m[0] & ((1u64 << low) - 1) == 0)
                    && (EMIN..=EMAX).contains(&a.exps[i])
            } else {
                a.exps[i] == 0 && m.iter().all(|&x| x == 0)
            };
            if !ok {
                return Err(Error::Invalid(format!(
                    "element {i}: not a valid float of precision {prec}"
                )));
            }
        }
        Ok(a)
    }

    /// Number of elements.
    pub fn len(&self) -> usize {
        self.len
    }

    /// Precision in bits.
    pub fn prec(&self) -> u64 {
        self.prec
    }

    /// Mantissa limbs per element.
    pub fn limbs_per_element(&self) -> usize {
        self.n
    }

    /// The tags (class in bits 0-1: 0 zero, 1 normal, 2 inf, 3 NaN; bit 2
    /// the sign).
    pub fn tags(&self) -> &[u8] {
        &self.tags
    }

    /// The exponents (MPFR's convention: value `0.m * 2^exp`).
    pub fn exps(&self) -> &[i64] {
        &self.exps
    }

    /// All mantissa limbs, element after element.
    pub fn limbs(&self) -> &[u64] {
        &self.limbs
    }

    /// Element `i`.
    pub fn get(&self, i: usize) -> Elem<'_> {
        let t = self.tags[i];
        Elem {
            class: class_of(t),
            neg: t & NEG != 0,
            exp: self.exps[i],
            limbs: &self.limbs[i * self.n..(i + 1) * self.n],
        }
    }

    /// Element-wise comparison: `None` where either is NaN (MPFR's
    /// `mpfr_cmp` then sets the erange flag); +0 and -0 compare equal.
    #[allow(clippy::should_implement_trait)]
    pub fn cmp(&self, other: &CpuFloats) -> Result<Vec<Option<Ordering>>> {
        self.same_len(other)?;
        Ok((0..self.len)
            .map(|i| arith::cmp(&self.get(i), &other.get(i)))
            .collect())
    }

    pub(crate) fn same_len(&self, other: &CpuFloats) -> Result<()> {
        if self.len != other.len {
            return Err(Error::Shape(format!(
                "operands have {} and {} elements",
                self.len, other.len
            )));
        }
        Ok(())
    }
}
