//! Array operations on the CPU engine: rayon over blocks of elements, one
//! scratch per block, each element computed by [`super::arith`]. Every
//! operation takes the destination precision and a rounding mode (MPFR's
//! convention: operands may have any precisions, the destination's
//! governs); the `*_ternary` forms also return MPFR's ternary value per
//! element (-1, 0, +1: the sign of rounded minus exact).

use rayon::prelude::*;

use super::arith::{self, LANES, Scratch};
use super::round::{Out, Round};
use super::{CpuFloats, Elem, check_prec};
use crate::error::Result;

/// Elements per rayon task.
const BLOCK: usize = 256;

/// Elements per rayon task of [`build_fine`]: operations of microseconds
/// per element (the functions), where a batch of a hundred elements
/// (a polynomial's starting points) should already use every core.
const FINE_BLOCK: usize = 4;

/// Builds an array of `len` elements of precision `prec`, element `i`
/// computed by `f(i, out, scratch)` which returns its ternary value.
pub(crate) fn build<F>(len: usize, prec: u64, f: F) -> Result<(CpuFloats, Vec<i8>)>
where
    F: Fn(usize, &mut Out, &mut Scratch) -> i8 + Sync,
{
    let mut r = CpuFloats::zeros(len, prec)?;
    let mut tern = crate::engine::host::zeros("ternary values", len)?;
    fill(&mut r, Some(&mut tern), f);
    Ok((r, tern))
}

/// [`build`] in tasks of [`FINE_BLOCK`] elements, for element operations
/// that cost microseconds each.
pub(crate) fn build_fine<F>(len: usize, prec: u64, f: F) -> Result<(CpuFloats, Vec<i8>)>
where
    F: Fn(usize, &mut Out, &mut Scratch) -> i8 + Sync,
{
    let mut r = CpuFloats::zeros(len, prec)?;
    let mut tern = crate::engine::host::zeros("ternary values", len)?;
    fill_in(&mut r, Some(&mut tern), FINE_BLOCK, f);
    Ok((r, tern))
}

/// Computes every element of `r` in place (see [`build`]), storing the
/// ternary values when asked.
pub(crate) fn fill<F>(r: &mut CpuFloats, tern: Option<&mut [i8]>, f: F)
where
    F: Fn(usize, &mut Out, &mut Scratch) -> i8 + Sync,
{
    fill_in(r, tern, BLOCK, f)
}

/// [`fill`] in rayon tasks of `block` elements.
fn fill_in<F>(r: &mut CpuFloats, tern: Option<&mut [i8]>, block: usize, f: F)
where
    F: Fn(usize, &mut Out, &mut Scratch) -> i8 + Sync,
{
    let n = r.n;
    par_blocks(r, tern, block, |base, tg, ex, lm, mut tn| {
        let mut s = Scratch::default();
        let outs = tg.iter_mut().zip(ex.iter_mut()).zip(lm.chunks_exact_mut(n));
        for (j, ((tag, exp), m)) in outs.enumerate() {
            let mut out = Out { tag, exp, m };
            let t = f(base + j, &mut out, &mut s);
            if let Some(tn) = tn.as_deref_mut() {
                tn[j] = t;
            }
        }
    })
}

/// As [`fill`], but the elements go by groups of [`LANES`] through `g`
/// (operations whose code is a chain of dependent steps run the lanes'
/// chains interleaved, so that the core overlaps them); a block's leftover
/// elements go through `f`.
pub(crate) fn fill_lanes<F, G>(r: &mut CpuFloats, tern: Option<&mut [i8]>, f: F, g: G)
where
    F: Fn(usize, &mut Out, &mut Scratch) -> i8 + Sync,
    G: Fn(usize, &mut [Out; LANES], &mut Scratch) -> [i8; LANES] + Sync,
{
    let n = r.n;
    par_blocks(r, tern, BLOCK, |base, tg, ex, lm, mut tn| {
        let mut s = Scratch::default();
        let full = tg.len() / LANES * LANES;
        let (tg, tg1) = tg.split_at_mut(full);
        let (ex, ex1) = ex.split_at_mut(full);
        let (lm, lm1) = lm.split_at_mut(full * n);
        let groups = tg
            .chunks_exact_mut(LANES)
            .zip(ex.chunks_exact_mut(LANES))
            .zip(lm.chunks_exact_mut(LANES * n));
        for (j, ((tg, ex), lm)) in groups.enumerate() {
            let mut it = tg
                .iter_mut()
                .zip(ex.iter_mut())
                .zip(lm.chunks_exact_mut(n))
                .map(|((tag, exp), m)| Out { tag, exp, m });
            let mut outs: [Out; LANES] = std::array::from_fn(|_| it.next().unwrap());
            let t = g(base + j * LANES, &mut outs, &mut s);
            if let Some(tn) = tn.as_deref_mut() {
                tn[j * LANES..(j + 1) * LANES].copy_from_slice(&t);
            }
        }
        let outs = tg1
            .iter_mut()
            .zip(ex1.iter_mut())
            .zip(lm1.chunks_exact_mut(n));
        for (j, ((tag, exp), m)) in outs.enumerate() {
            let mut out = Out { tag, exp, m };
            let t = f(base + full + j, &mut out, &mut s);
            if let Some(tn) = tn.as_deref_mut() {
                tn[full + j] = t;
            }
        }
    })
}

/// Runs `run(first element, tags, exps, limbs, ternary slots)` on blocks of
/// `block` elements of `r` in parallel.
fn par_blocks<R>(r: &mut CpuFloats, tern: Option<&mut [i8]>, block: usize, run: R)
where
    R: Fn(usize, &mut [u8], &mut [i64], &mut [u64], Option<&mut [i8]>) + Sync,
{
    let n = r.n;
    let it = r
        .tags
        .par_chunks_mut(block)
        .zip(r.exps.par_chunks_mut(block))
        .zip(r.limbs.par_chunks_mut(block * n));
    match tern {
        Some(t) => it
            .zip(t.par_chunks_mut(block))
            .enumerate()
            .for_each(|(blk, (((tg, ex), lm), tn))| run(blk * block, tg, ex, lm, Some(tn))),
        None => it
            .enumerate()
            .for_each(|(blk, ((tg, ex), lm))| run(blk * block, tg, ex, lm, None)),
    }
}

/// The operations of the `*_into` forms.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FloatOp {
    Add,
    Sub,
    Mul,
    Div,
    Min,
    Max,
    Sqrt,
    Fma,
    Fms,
}

impl FloatOp {
    /// Number of operands.
    pub fn arity(self) -> usize {
        match self {
            FloatOp::Sqrt => 1,
            FloatOp::Fma | FloatOp::Fms => 3,
            _ => 2,
        }
    }
}

macro_rules! with_ternary {
    ($name:ident, $tname:ident, ($($arg:ident: $ty:ty),*), $doc:literal) => {
        #[doc = $doc]
        #[allow(dead_code)]
        pub fn $name(&self, $($arg: $ty,)* prec: u64, rnd: Round) -> Result<CpuFloats> {
            Ok(self.$tname($($arg,)* prec, rnd)?.0)
        }
    };
}

/// `$tname` (`self.$via($pre, operands, prec, rnd)`) and `$name` without
/// the ternary values.
macro_rules! ternary_op {
    ($tname:ident, $name:ident, ($($arg:ident: $ty:ty),*), $via:ident($($pre:expr),*), $tdoc:literal, $doc:literal) => {
        #[doc = $tdoc]
        pub fn $tname(&self, $($arg: $ty,)* prec: u64, rnd: Round) -> Result<(CpuFloats, Vec<i8>)> {
            self.$via($($pre,)* $($arg,)* prec, rnd)
        }
        with_ternary!($name, $tname, ($($arg: $ty),*), $doc);
    };
}

impl CpuFloats {
    fn binary(
        &self,
        b: &CpuFloats,
        prec: u64,
        f: impl Fn(&mut Out, &Elem, &Elem, &mut Scratch) -> i8 + Sync,
    ) -> Result<(CpuFloats, Vec<i8>)> {
        self.same_len(b)?;
        check_prec(prec)?;
        build(self.len, prec, |i, out, s| {
            f(out, &self.get(i), &b.get(i), s)
        })
    }

    /// A binary `op` into a new array through [`CpuFloats::op_into`] (the
    /// operations with a batch path there).
    fn op_new(
        &self,
        op: FloatOp,
        b: &CpuFloats,
        prec: u64,
        rnd: Round,
    ) -> Result<(CpuFloats, Vec<i8>)> {
        self.same_len(b)?;
        let mut r = CpuFloats::zeros(self.len, prec)?;
        let mut tern = vec![0i8; self.len];
        self.op_into(op, &[b], &mut r, rnd, Some(&mut tern))?;
        Ok((r, tern))
    }

    fn unary(
        &self,
        prec: u64,
        f: impl Fn(&mut Out, &Elem, &mut Scratch) -> i8 + Sync,
    ) -> Result<(CpuFloats, Vec<i8>)> {
        check_prec(prec)?;
        build(self.len, prec, |i, out, s| f(out, &self.get(i), s))
    }

    ternary_op!(
        add_ternary,
        add,
        (b: &CpuFloats),
        op_new(FloatOp::Add),
        "`self + b` and the ternary values.",
        "`self + b` rounded to `prec` bits."
    );

    ternary_op!(
        sub_ternary,
        sub,
        (b: &CpuFloats),
        op_new(FloatOp::Sub),
        "`self - b` and the ternary values.",
        "`self - b` rounded to `prec` bits."
    );

    ternary_op!(
        mul_ternary,
        mul,
        (b: &CpuFloats),
        op_new(FloatOp::Mul),
        "`self * b` and the ternary values.",
        "`self * b` rounded to `prec` bits."
    );

    ternary_op!(
        div_ternary,
        div,
        (b: &CpuFloats),
        op_new(FloatOp::Div),
        "`self / b` and the ternary values (x/0 is +-Inf, 0/0 NaN, as MPFR).",
        "`self / b` rounded to `prec` bits."
    );

    /// `sqrt(self)` and the ternary values.
    pub fn sqrt_ternary(&self, prec: u64, rnd: Round) -> Result<(CpuFloats, Vec<i8>)> {
        let mut r = CpuFloats::zeros(self.len, prec)?;
        let mut tern = vec![0i8; self.len];
        self.op_into(FloatOp::Sqrt, &[], &mut r, rnd, Some(&mut tern))?;
        Ok((r, tern))
    }
    with_ternary!(
        sqrt,
        sqrt_ternary,
        (),
        "`sqrt(self)` rounded to `prec` bits."
    );

    /// `self * b + c` (`c` negated when `sub`) rounded once, and the
    /// ternary values.
    fn fma_new(
        &self,
        sub: bool,
        b: &CpuFloats,
        c: &CpuFloats,
        prec: u64,
        rnd: Round,
    ) -> Result<(CpuFloats, Vec<i8>)> {
        self.same_len(b)?;
        self.same_len(c)?;
        check_prec(prec)?;
        build(self.len, prec, |i, o, s| {
            arith::fma(o, &self.get(i), &b.get(i), &c.get(i), sub, prec, rnd, s)
        })
    }
    ternary_op!(
        fma_ternary,
        fma,
        (b: &CpuFloats, c: &CpuFloats),
        fma_new(false),
        "`self * b + c` rounded once, and the ternary values.",
        "`self * b + c` rounded once."
    );
    ternary_op!(
        fms_ternary,
        fms,
        (b: &CpuFloats, c: &CpuFloats),
        fma_new(true),
        "`self * b - c` rounded once, and the ternary values.",
        "`self * b - c` rounded once."
    );

    /// `-self` rounded to `prec` (mpfr_neg), and the ternary values.
    pub fn neg_ternary(&self, prec: u64, rnd: Round) -> Result<(CpuFloats, Vec<i8>)> {
        self.unary(prec, |o, x, _| arith::set(o, x, true, false, prec, rnd))
    }
    with_ternary!(neg, neg_ternary, (), "`-self` rounded to `prec` bits.");

    /// `|self|` rounded to `prec` (mpfr_abs), and the ternary values.
    pub fn abs_ternary(&self, prec: u64, rnd: Round) -> Result<(CpuFloats, Vec<i8>)> {
        self.unary(prec, |o, x, _| arith::set(o, x, false, true, prec, rnd))
    }
    with_ternary!(abs, abs_ternary, (), "`|self|` rounded to `prec` bits.");

    /// `self` rounded to another precision (mpfr_set / mpfr_prec_round),
    /// and the ternary values.
    pub fn set_prec_ternary(&self, prec: u64, rnd: Round) -> Result<(CpuFloats, Vec<i8>)> {
        self.unary(prec, |o, x, _| arith::set(o, x, false, false, prec, rnd))
    }
    with_ternary!(
        set_prec,
        set_prec_ternary,
        (),
        "`self` rounded to `prec` bits."
    );

    /// `min(self, b)` (`max` when `max`) with MPFR's rules, and the ternary
    /// values.
    fn min_max_new(
        &self,
        max: bool,
        b: &CpuFloats,
        prec: u64,
        rnd: Round,
    ) -> Result<(CpuFloats, Vec<i8>)> {
        self.binary(b, prec, |o, x, y, _| {
            arith::min_max(o, x, y, max, prec, rnd)
        })
    }
    ternary_op!(
        min_ternary,
        min,
        (b: &CpuFloats),
        min_max_new(false),
        "`min(self, b)` with MPFR's rules (NaN loses, -0 < +0), and the ternary values.",
        "`min(self, b)` rounded to `prec` bits."
    );
    ternary_op!(
        max_ternary,
        max,
        (b: &CpuFloats),
        min_max_new(true),
        "`max(self, b)` with MPFR's rules, and the ternary values.",
        "`max(self, b)` rounded to `prec` bits."
    );

    /// `self * 2^k` (mpfr_mul_2si), and the ternary values.
    pub fn mul_2si_ternary(&self, k: i64, prec: u64, rnd: Round) -> Result<(CpuFloats, Vec<i8>)> {
        self.unary(prec, |o, x, _| arith::mul_2si(o, x, k, prec, rnd))
    }
    with_ternary!(mul_2si, mul_2si_ternary, (k: i64), "`self * 2^k` rounded to `prec` bits.");

    /// `self / 2^k` (mpfr_div_2si), and the ternary values.
    pub fn div_2si_ternary(&self, k: i64, prec: u64, rnd: Round) -> Result<(CpuFloats, Vec<i8>)> {
        let k = k.checked_neg().unwrap_or(i64::MAX);
        self.unary(prec, |o, x, _| arith::mul_2si(o, x, k, prec, rnd))
    }
    with_ternary!(div_2si, div_2si_ternary, (k: i64), "`self / 2^k` rounded to `prec` bits.");

    /// `op` of `self` and `more` (one operand for sqrt, two for fma/fms)
    /// into the existing array `out`, whose precision is the destination
    /// precision (no allocation of the result; its old contents are
    /// overwritten), with the ternary values into `ternary` when given.
    pub fn op_into(
        &self,
        op: FloatOp,
        more: &[&CpuFloats],
        out: &mut CpuFloats,
        rnd: Round,
        ternary: Option<&mut [i8]>,
    ) -> Result<()> {
        if more.len() + 1 != op.arity() {
            return Err(crate::error::Error::Invalid(format!(
                "{op:?} takes {} operands, got {}",
                op.arity(),
                more.len() + 1
            )));
        }
        for m in more {
            self.same_len(m)?;
        }
        self.same_len(out)?;
        if let Some(t) = &ternary
            && t.len() != self.len
        {
            return Err(crate::error::Error::Shape(format!(
                "{} ternary slots for {} elements",
                t.len(),
                self.len
            )));
        }
        let p = out.prec;
        let (b, c) = (more.first().copied(), more.get(1).copied());
        // One monomorphized loop per operation (no dispatch per element).
        match op {
            FloatOp::Add | FloatOp::Sub => {
                let (b, sub) = (b.unwrap(), op == FloatOp::Sub);
                if self.n == out.n && b.n == out.n {
                    par_blocks(out, ternary, BLOCK, |base, tg, ex, lm, tn| {
                        let mut s = Scratch::default();
                        arith::add_block(self, b, sub, base, tg, ex, lm, tn, p, rnd, &mut s)
                    })
                } else {
                    fill(out, ternary, |i, o, s| {
                        arith::add(o, &self.get(i), &b.get(i), sub, p, rnd, s)
                    })
                }
            }
            FloatOp::Mul => {
                let b = b.unwrap();
                if self.n == out.n && b.n == out.n {
                    par_blocks(out, ternary, BLOCK, |base, tg, ex, lm, tn| {
                        let mut s = Scratch::default();
                        arith::mul_block(self, b, base, tg, ex, lm, tn, p, rnd, &mut s)
                    })
                } else {
                    fill(out, ternary, |i, o, s| {
                        arith::mul(o, &self.get(i), &b.get(i), p, rnd, s)
                    })
                }
            }
            FloatOp::Div => {
                let b = b.unwrap();
                fill_lanes(
                    out,
                    ternary,
                    |i, o, s| arith::div(o, &self.get(i), &b.get(i), p, rnd, s),
                    |i, o, s| {
                        let x = std::array::from_fn(|l| self.get(i + l));
                        let y = std::array::from_fn(|l| b.get(i + l));
                        arith::div_lanes(o, &x, &y, p, rnd, s)
                    },
                )
            }
            FloatOp::Min | FloatOp::Max => {
                let (b, max) = (b.unwrap(), op == FloatOp::Max);
                fill(out, ternary, |i, o, _| {
                    arith::min_max(o, &self.get(i), &b.get(i), max, p, rnd)
                })
            }
            FloatOp::Sqrt => fill_lanes(
                out,
                ternary,
                |i, o, s| arith::sqrt(o, &self.get(i), p, rnd, s),
                |i, o, s| {
                    let x = std::array::from_fn(|l| self.get(i + l));
                    arith::sqrt_lanes(o, &x, p, rnd, s)
                },
            ),
            FloatOp::Fma | FloatOp::Fms => {
                let (b, c, sub) = (b.unwrap(), c.unwrap(), op == FloatOp::Fms);
                fill(out, ternary, |i, o, s| {
                    arith::fma(o, &self.get(i), &b.get(i), &c.get(i), sub, p, rnd, s)
                })
            }
        }
        Ok(())
    }
}
