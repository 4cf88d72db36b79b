//! Correctly rounded elementary functions on float arrays (issue 5, CPU).
//!
//! Every function is evaluated per element with Ziv's strategy: a core
//! (`exp.rs`-style functions in [`core`]) computes, at a working precision
//! `w`, an open interval `(lo, hi) * 2^s` (integers) that provably contains
//! the exact value; [`round_interval`] rounds both ends in the requested mode
//! and accepts the result only when they agree (value and ternary), else the
//! element is retried at `w + 64`, then doubling. Exact cases (exp(0),
//! log(1), ...) and tiny arguments (where the result is the argument, or 1,
//! up to a one-sided perturbation of known sign, MPFR's fast paths) are
//! decided before the loop. See `notes/func.md`.

mod consts;
mod core;
pub mod reference;

use std::sync::atomic::{AtomicU64, Ordering as AtOrd};

use malachite_base::num::logic::traits::SignificantBits;
use malachite_nz::integer::Integer;
use malachite_nz::natural::Natural;

use super::ops::build;
use super::round::{Out, Round, finish, round_mant};
use super::{Class, Elem, FloatArray, check_prec};
use crate::error::Result;

pub use consts::Const;

/// The functions built so far.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Func {
    Exp,
    Log,
    Sin,
    Cos,
    Atan,
    Tan,
    Exp2,
    Log2,
    Log10,
}

impl Func {
    pub const ALL: [Func; 9] = [
        Func::Exp,
        Func::Log,
        Func::Sin,
        Func::Cos,
        Func::Atan,
        Func::Tan,
        Func::Exp2,
        Func::Log2,
        Func::Log10,
    ];

    pub fn name(self) -> &'static str {
        match self {
            Func::Exp => "exp",
            Func::Log => "log",
            Func::Sin => "sin",
            Func::Cos => "cos",
            Func::Atan => "atan",
            Func::Tan => "tan",
            Func::Exp2 => "exp2",
            Func::Log2 => "log2",
            Func::Log10 => "log10",
        }
    }

    pub fn from_name(s: &str) -> Option<Func> {
        Func::ALL.into_iter().find(|f| f.name() == s)
    }
}

/// Per-call statistics: elements that needed at least one Ziv retry.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct FuncStats {
    pub elements: u64,
    pub retried: u64,
}

/// An open interval `(lo, hi) * 2^s` containing the exact result.
pub(crate) struct Interval {
    pub lo: Integer,
    pub hi: Integer,
    pub s: i64,
}

impl Interval {
    /// `(c - e, c + e) * 2^s`.
    pub fn around(c: Integer, e: u64, s: i64) -> Interval {
        let e = Integer::from(e);
        Interval {
            lo: &c - &e,
            hi: c + e,
            s,
        }
    }
}

/// The result of a core: decided before Ziv (special or exact value already
/// written, with its ternary), or an interval to round.
pub(crate) enum Eval {
    Done(i8),
    Approx(Interval),
}

/// Left-aligned limbs of `n` (nonzero) with at least `min_bits` bits, and the
/// exponent of `0.limbs` for `n * 2^s`.
fn align(n: &Natural, s: i64, min_bits: u64) -> (Vec<u64>, i64) {
    let b = n.significant_bits();
    let limbs = b.max(min_bits).div_ceil(64);
    let sh = 64 * limbs - b;
    let v = (n << sh).to_limbs_asc();
    (v, s + b as i64)
}

/// Rounds a magnitude `n * 2^s` plus an infinitesimal (the sticky bit) to
/// `p` bits: (mantissa, unbounded exponent, increased).
fn round_plus(n: &Natural, s: i64, neg: bool, p: u64, rnd: Round) -> (Vec<u64>, i64, bool) {
    let (src, e) = align(n, s, p + 2);
    let mut m = vec![0u64; p.div_ceil(64) as usize];
    let (_, inc, carry) = round_mant(&mut m, p, &src, true, neg, rnd);
    (m, e + carry as i64, inc)
}

/// Rounds the value known to lie strictly inside the interval, if both ends
/// agree: writes `out` and returns the ternary value; `None` when undecided.
/// The ends are represented by `lo + 0` and `(hi - 1) + 0` in units `2^s`
/// (sticky bits); with at least `p + 2` bits in the smaller magnitude a unit
/// is at most a quarter ulp, so no rounding boundary lies strictly inside
/// `(lo, lo+1)` or `(hi-1, hi)`: every value of the interval rounds as those
/// two representatives, by monotonicity, when they round alike.
pub(crate) fn round_interval(out: &mut Out, iv: &Interval, p: u64, rnd: Round) -> Option<i8> {
    use malachite_base::num::arithmetic::traits::Sign;
    use std::cmp::Ordering::*;
    let (neg, small, big) = match (iv.lo.sign(), iv.hi.sign()) {
        (Greater, Greater) => (
            false,
            iv.lo.unsigned_abs_ref().clone(),
            iv.hi.unsigned_abs_ref().clone(),
        ),
        (Less, Less) => (
            true,
            iv.hi.unsigned_abs_ref().clone(),
            iv.lo.unsigned_abs_ref().clone(),
        ),
        _ => return None,
    };
    if small >= big || small.significant_bits() < p + 2 {
        return None;
    }
    let (m1, e1, i1) = round_plus(&small, iv.s, neg, p, rnd);
    let (m2, e2, i2) = round_plus(&(big - Natural::from(1u32)), iv.s, neg, p, rnd);
    if m1 != m2 || e1 != e2 || i1 != i2 {
        return None;
    }
    out.m.copy_from_slice(&m1);
    let t = if i1 != neg { 1 } else { -1 };
    Some(finish(out, neg, e1, t, i1, p, rnd))
}

/// Writes an exact value `n * 2^s` (with sign) that fits in `p` bits.
pub(crate) fn write_exact(out: &mut Out, neg: bool, n: &Natural, s: i64, p: u64, rnd: Round) -> i8 {
    let (src, e) = align(n, s, 64);
    let mut m = vec![0u64; p.div_ceil(64) as usize];
    let (inexact, inc, carry) = round_mant(&mut m, p, &src, false, neg, rnd);
    out.m.copy_from_slice(&m);
    let t = if inexact {
        if inc != neg { 1 } else { -1 }
    } else {
        0
    };
    finish(out, neg, e + carry as i64, t, inc, p, rnd)
}

/// Writes a special value; ternary 0.
pub(crate) fn write_special(out: &mut Out, class: Class, neg: bool) -> Eval {
    out.special(class, neg);
    Eval::Done(0)
}

/// Evaluates one element: exact and special cases first, then Ziv's loop.
/// Returns the ternary value and whether a retry was needed.
fn eval_elem(out: &mut Out, f: &dyn Fn(&mut Out, u64) -> Eval, p: u64, rnd: Round) -> (i8, bool) {
    let mut w = p + 16;
    let mut tries = 0u32;
    loop {
        match f(out, w) {
            Eval::Done(t) => return (t, tries > 0),
            Eval::Approx(iv) => {
                if let Some(t) = round_interval(out, &iv, p, rnd) {
                    return (t, tries > 0);
                }
            }
        }
        tries += 1;
        w = if tries == 1 { w + 64 } else { 2 * w };
    }
}

impl FloatArray {
    /// `f(self)` rounded to `prec` bits in mode `rnd`, the ternary values,
    /// and how many elements needed a Ziv retry.
    pub fn func_ternary(
        &self,
        f: Func,
        prec: u64,
        rnd: Round,
    ) -> Result<(FloatArray, Vec<i8>, FuncStats)> {
        check_prec(prec)?;
        let retried = AtomicU64::new(0);
        let (r, t) = build(self.len(), prec, |i, out, _| {
            let x = self.get(i);
            let core = |o: &mut Out, w: u64| core::eval(f, o, &x, w, prec, rnd);
            let (t, re) = eval_elem(out, &core, prec, rnd);
            if re {
                retried.fetch_add(1, AtOrd::Relaxed);
            }
            t
        })?;
        let stats = FuncStats {
            elements: self.len() as u64,
            retried: retried.into_inner(),
        };
        Ok((r, t, stats))
    }

    /// `f(self)` rounded to `prec` bits in mode `rnd`.
    pub fn func(&self, f: Func, prec: u64, rnd: Round) -> Result<FloatArray> {
        Ok(self.func_ternary(f, prec, rnd)?.0)
    }

    /// `exp(self)`.
    pub fn exp(&self, prec: u64, rnd: Round) -> Result<FloatArray> {
        self.func(Func::Exp, prec, rnd)
    }

    /// `log(self)` (natural logarithm).
    pub fn log(&self, prec: u64, rnd: Round) -> Result<FloatArray> {
        self.func(Func::Log, prec, rnd)
    }

    /// `sin(self)`.
    pub fn sin(&self, prec: u64, rnd: Round) -> Result<FloatArray> {
        self.func(Func::Sin, prec, rnd)
    }

    /// `cos(self)`.
    pub fn cos(&self, prec: u64, rnd: Round) -> Result<FloatArray> {
        self.func(Func::Cos, prec, rnd)
    }

    /// `atan(self)`.
    pub fn atan(&self, prec: u64, rnd: Round) -> Result<FloatArray> {
        self.func(Func::Atan, prec, rnd)
    }

    /// `(sin(self), cos(self))`, each rounded in `rnd`, with their ternary
    /// values (MPFR's mpfr_sin_cos packs both into one return value).
    #[allow(clippy::type_complexity)]
    pub fn sin_cos_ternary(
        &self,
        prec: u64,
        rnd: Round,
    ) -> Result<((FloatArray, Vec<i8>), (FloatArray, Vec<i8>))> {
        let (s, ts, _) = self.func_ternary(Func::Sin, prec, rnd)?;
        let (c, tc, _) = self.func_ternary(Func::Cos, prec, rnd)?;
        Ok(((s, ts), (c, tc)))
    }

    /// A one-element array holding a constant (pi, ln 2, e) correctly
    /// rounded, and its ternary value.
    pub fn constant(c: Const, prec: u64, rnd: Round) -> Result<(FloatArray, i8)> {
        check_prec(prec)?;
        let (r, t) = build(1, prec, |_, out, _| {
            let core = |_: &mut Out, w: u64| Eval::Approx(consts::interval(c, w));
            eval_elem(out, &core, prec, rnd).0
        })?;
        Ok((r, t[0]))
    }
}

/// The mantissa of a normal element as an integer `m` with `x = m * 2^sx`.
pub(crate) fn mant(x: &Elem) -> (Natural, i64) {
    (
        Natural::from_limbs_asc(x.limbs),
        x.exp - 64 * x.limbs.len() as i64,
    )
}

/// `f(x)` correctly rounded into one element (for the complex functions).
pub(crate) fn eval_one(out: &mut Out, f: Func, x: &Elem, p: u64, rnd: Round) -> i8 {
    let core = |o: &mut Out, w: u64| core::eval(f, o, x, w, p, rnd);
    eval_elem(out, &core, p, rnd).0
}

/// A constant correctly rounded into one element (for the complex functions).
pub(crate) fn const_one(out: &mut Out, c: Const, p: u64, rnd: Round) -> i8 {
    let core = |_: &mut Out, w: u64| Eval::Approx(consts::interval(c, w));
    eval_elem(out, &core, p, rnd).0
}
