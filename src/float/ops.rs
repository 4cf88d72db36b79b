//! Array operations on the CPU engine: rayon over blocks of elements, one
//! scratch per block, each element computed by [`super::arith`]. Every
//! operation takes the destination precision and a rounding mode (MPFR's
//! convention: operands may have any precisions, the destination's
//! governs); the `*_ternary` forms also return MPFR's ternary value per
//! element (-1, 0, +1: the sign of rounded minus exact).

use rayon::prelude::*;

use super::arith::{self, Scratch};
use super::round::{Out, Round};
use super::{Elem, FloatArray, check_prec};
use crate::error::Result;

/// Elements per rayon task.
const BLOCK: usize = 256;

/// Builds an array of `len` elements of precision `prec`, element `i`
/// computed by `f(i, out, scratch)` which returns its ternary value.
pub(crate) fn build<F>(len: usize, prec: u64, f: F) -> Result<(FloatArray, Vec<i8>)>
where
    F: Fn(usize, &mut Out, &mut Scratch) -> i8 + Sync,
{
    let mut r = FloatArray::zeros(len, prec)?;
    let n = r.n;
    let mut tern = vec![0i8; len];
    r.tags
        .par_chunks_mut(BLOCK)
        .zip(r.exps.par_chunks_mut(BLOCK))
        .zip(r.limbs.par_chunks_mut(BLOCK * n))
        .zip(tern.par_chunks_mut(BLOCK))
        .enumerate()
        .for_each(|(blk, (((tg, ex), lm), tn))| {
            let mut s = Scratch::default();
            for j in 0..tg.len() {
                let mut out = Out {
                    tag: &mut tg[j],
                    exp: &mut ex[j],
                    m: &mut lm[j * n..(j + 1) * n],
                };
                tn[j] = f(blk * BLOCK + j, &mut out, &mut s);
            }
        });
    Ok((r, tern))
}

macro_rules! with_ternary {
    ($name:ident, $tname:ident, ($($arg:ident: $ty:ty),*), $doc:literal) => {
        #[doc = $doc]
        pub fn $name(&self, $($arg: $ty,)* prec: u64, rnd: Round) -> Result<FloatArray> {
            Ok(self.$tname($($arg,)* prec, rnd)?.0)
        }
    };
}

impl FloatArray {
    fn binary(
        &self,
        b: &FloatArray,
        prec: u64,
        f: impl Fn(&mut Out, &Elem, &Elem, &mut Scratch) -> i8 + Sync,
    ) -> Result<(FloatArray, Vec<i8>)> {
        self.same_len(b)?;
        check_prec(prec)?;
        build(self.len, prec, |i, out, s| {
            f(out, &self.get(i), &b.get(i), s)
        })
    }

    fn unary(
        &self,
        prec: u64,
        f: impl Fn(&mut Out, &Elem, &mut Scratch) -> i8 + Sync,
    ) -> Result<(FloatArray, Vec<i8>)> {
        check_prec(prec)?;
        build(self.len, prec, |i, out, s| f(out, &self.get(i), s))
    }

    /// `self + b` and the ternary values.
    pub fn add_ternary(
        &self,
        b: &FloatArray,
        prec: u64,
        rnd: Round,
    ) -> Result<(FloatArray, Vec<i8>)> {
        self.binary(b, prec, |o, x, y, s| {
            arith::add(o, x, y, false, prec, rnd, s)
        })
    }
    with_ternary!(add, add_ternary, (b: &FloatArray), "`self + b` rounded to `prec` bits.");

    /// `self - b` and the ternary values.
    pub fn sub_ternary(
        &self,
        b: &FloatArray,
        prec: u64,
        rnd: Round,
    ) -> Result<(FloatArray, Vec<i8>)> {
        self.binary(b, prec, |o, x, y, s| {
            arith::add(o, x, y, true, prec, rnd, s)
        })
    }
    with_ternary!(sub, sub_ternary, (b: &FloatArray), "`self - b` rounded to `prec` bits.");

    /// `self * b` and the ternary values.
    pub fn mul_ternary(
        &self,
        b: &FloatArray,
        prec: u64,
        rnd: Round,
    ) -> Result<(FloatArray, Vec<i8>)> {
        self.binary(b, prec, |o, x, y, s| arith::mul(o, x, y, prec, rnd, s))
    }
    with_ternary!(mul, mul_ternary, (b: &FloatArray), "`self * b` rounded to `prec` bits.");

    /// `self / b` and the ternary values (x/0 is +-Inf, 0/0 NaN, as MPFR).
    pub fn div_ternary(
        &self,
        b: &FloatArray,
        prec: u64,
        rnd: Round,
    ) -> Result<(FloatArray, Vec<i8>)> {
        self.binary(b, prec, |o, x, y, s| arith::div(o, x, y, prec, rnd, s))
    }
    with_ternary!(div, div_ternary, (b: &FloatArray), "`self / b` rounded to `prec` bits.");

    /// `sqrt(self)` and the ternary values.
    pub fn sqrt_ternary(&self, prec: u64, rnd: Round) -> Result<(FloatArray, Vec<i8>)> {
        self.unary(prec, |o, x, s| arith::sqrt(o, x, prec, rnd, s))
    }
    with_ternary!(
        sqrt,
        sqrt_ternary,
        (),
        "`sqrt(self)` rounded to `prec` bits."
    );

    /// `self * b + c` rounded once, and the ternary values.
    pub fn fma_ternary(
        &self,
        b: &FloatArray,
        c: &FloatArray,
        prec: u64,
        rnd: Round,
    ) -> Result<(FloatArray, Vec<i8>)> {
        self.same_len(b)?;
        self.same_len(c)?;
        check_prec(prec)?;
        build(self.len, prec, |i, o, s| {
            arith::fma(o, &self.get(i), &b.get(i), &c.get(i), false, prec, rnd, s)
        })
    }
    with_ternary!(fma, fma_ternary, (b: &FloatArray, c: &FloatArray), "`self * b + c` rounded once.");

    /// `self * b - c` rounded once, and the ternary values.
    pub fn fms_ternary(
        &self,
        b: &FloatArray,
        c: &FloatArray,
        prec: u64,
        rnd: Round,
    ) -> Result<(FloatArray, Vec<i8>)> {
        self.same_len(b)?;
        self.same_len(c)?;
        check_prec(prec)?;
        build(self.len, prec, |i, o, s| {
            arith::fma(o, &self.get(i), &b.get(i), &c.get(i), true, prec, rnd, s)
        })
    }
    with_ternary!(fms, fms_ternary, (b: &FloatArray, c: &FloatArray), "`self * b - c` rounded once.");

    /// `-self` rounded to `prec` (mpfr_neg), and the ternary values.
    pub fn neg_ternary(&self, prec: u64, rnd: Round) -> Result<(FloatArray, Vec<i8>)> {
        self.unary(prec, |o, x, _| arith::set(o, x, true, false, prec, rnd))
    }
    with_ternary!(neg, neg_ternary, (), "`-self` rounded to `prec` bits.");

    /// `|self|` rounded to `prec` (mpfr_abs), and the ternary values.
    pub fn abs_ternary(&self, prec: u64, rnd: Round) -> Result<(FloatArray, Vec<i8>)> {
        self.unary(prec, |o, x, _| arith::set(o, x, false, true, prec, rnd))
    }
    with_ternary!(abs, abs_ternary, (), "`|self|` rounded to `prec` bits.");

    /// `self` rounded to another precision (mpfr_set / mpfr_prec_round),
    /// and the ternary values.
    pub fn set_prec_ternary(&self, prec: u64, rnd: Round) -> Result<(FloatArray, Vec<i8>)> {
        self.unary(prec, |o, x, _| arith::set(o, x, false, false, prec, rnd))
    }
    with_ternary!(
        set_prec,
        set_prec_ternary,
        (),
        "`self` rounded to `prec` bits."
    );

    /// `min(self, b)` with MPFR's rules (NaN loses, -0 < +0), and the
    /// ternary values.
    pub fn min_ternary(
        &self,
        b: &FloatArray,
        prec: u64,
        rnd: Round,
    ) -> Result<(FloatArray, Vec<i8>)> {
        self.binary(b, prec, |o, x, y, _| {
            arith::min_max(o, x, y, false, prec, rnd)
        })
    }
    with_ternary!(min, min_ternary, (b: &FloatArray), "`min(self, b)` rounded to `prec` bits.");

    /// `max(self, b)` with MPFR's rules, and the ternary values.
    pub fn max_ternary(
        &self,
        b: &FloatArray,
        prec: u64,
        rnd: Round,
    ) -> Result<(FloatArray, Vec<i8>)> {
        self.binary(b, prec, |o, x, y, _| {
            arith::min_max(o, x, y, true, prec, rnd)
        })
    }
    with_ternary!(max, max_ternary, (b: &FloatArray), "`max(self, b)` rounded to `prec` bits.");

    /// `self * 2^k` (mpfr_mul_2si), and the ternary values.
    pub fn mul_2si_ternary(&self, k: i64, prec: u64, rnd: Round) -> Result<(FloatArray, Vec<i8>)> {
        self.unary(prec, |o, x, _| arith::mul_2si(o, x, k, prec, rnd))
    }
    with_ternary!(mul_2si, mul_2si_ternary, (k: i64), "`self * 2^k` rounded to `prec` bits.");

    /// `self / 2^k` (mpfr_div_2si), and the ternary values.
    pub fn div_2si_ternary(&self, k: i64, prec: u64, rnd: Round) -> Result<(FloatArray, Vec<i8>)> {
        let k = k.checked_neg().unwrap_or(i64::MAX);
        self.unary(prec, |o, x, _| arith::mul_2si(o, x, k, prec, rnd))
    }
    with_ternary!(div_2si, div_2si_ternary, (k: i64), "`self / 2^k` rounded to `prec` bits.");
}
