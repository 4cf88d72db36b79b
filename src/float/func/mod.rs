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

mod binary;
mod consts;
mod core;
pub mod cuda;
pub mod cuda_func2;
mod fix;
mod hyper;
mod ia;
mod inverse;
mod pow;
pub mod reference;

use std::sync::atomic::{AtomicU64, Ordering as AtOrd};

use malachite_base::num::logic::traits::SignificantBits;
use malachite_nz::integer::Integer;
use malachite_nz::natural::Natural;

use super::ops::{build, build_fine};
use super::round::{Out, Round, finish, round_mant};
use super::{Class, CpuFloats, Elem, check_prec};
use crate::error::Result;
use crate::int::cpu::arith as mpn;

pub use binary::Func2;
pub(crate) use binary::eval2_one;
pub(crate) use binary::pow_z_exponents;
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
    Cbrt,
    Expm1,
    Log1p,
    Sinh,
    Cosh,
    Tanh,
    Asinh,
    Acosh,
    Atanh,
    Asin,
    Acos,
}

impl Func {
    pub const ALL: [Func; 20] = [
        Func::Exp,
        Func::Log,
        Func::Sin,
        Func::Cos,
        Func::Atan,
        Func::Tan,
        Func::Exp2,
        Func::Log2,
        Func::Log10,
        Func::Cbrt,
        Func::Expm1,
        Func::Log1p,
        Func::Sinh,
        Func::Cosh,
        Func::Tanh,
        Func::Asinh,
        Func::Acosh,
        Func::Atanh,
        Func::Asin,
        Func::Acos,
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
            Func::Cbrt => "cbrt",
            Func::Expm1 => "expm1",
            Func::Log1p => "log1p",
            Func::Sinh => "sinh",
            Func::Cosh => "cosh",
            Func::Tanh => "tanh",
            Func::Asinh => "asinh",
            Func::Acosh => "acosh",
            Func::Atanh => "atanh",
            Func::Asin => "asin",
            Func::Acos => "acos",
        }
    }

    pub fn from_name(s: &str) -> Option<Func> {
        Func::ALL.into_iter().find(|f| f.name() == s)
    }
}

/// Per-call statistics: elements that needed at least one Ziv retry
/// (`retried`); on CUDA, `retried = device_retried + host`: elements
/// finished by a retry at a larger tier on the device, and elements finished
/// by the CPU engine (host cases, and those still undecided at the last
/// retry tier). Both are 0 on the CPU engine.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct FuncStats {
    pub elements: u64,
    pub retried: u64,
    pub device_retried: u64,
    pub host: u64,
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
#[allow(dead_code)]
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
        (Greater, Greater) => (false, iv.lo.unsigned_abs_ref(), iv.hi.unsigned_abs_ref()),
        (Less, Less) => (true, iv.hi.unsigned_abs_ref(), iv.lo.unsigned_abs_ref()),
        _ => return None,
    };
    if small >= big || small.significant_bits() < p + 2 {
        return None;
    }
    // The same steps as `round_plus` on limbs, without a Natural per step.
    let mut buf = Vec::new();
    let (e1, i1) = round_plus_limbs(out.m, &small.to_limbs_asc(), iv.s, neg, p, rnd, &mut buf);
    let mut bl = big.to_limbs_asc();
    mpn::sub_1_assign(&mut bl, 1);
    fix::trim(&mut bl);
    let mut m2 = vec![0u64; out.m.len()];
    let (e2, i2) = round_plus_limbs(&mut m2, &bl, iv.s, neg, p, rnd, &mut buf);
    if *out.m != *m2 || e1 != e2 || i1 != i2 {
        return None;
    }
    let t = if i1 != neg { 1 } else { -1 };
    Some(finish(out, neg, e1, t, i1, p, rnd))
}

/// [`round_plus`] of the trimmed nonzero limbs `v` into `m`: (unbounded
/// exponent, increased).
fn round_plus_limbs(
    m: &mut [u64],
    v: &[u64],
    s: i64,
    neg: bool,
    p: u64,
    rnd: Round,
    buf: &mut Vec<u64>,
) -> (i64, bool) {
    let b = 64 * v.len() as u64 - v[v.len() - 1].leading_zeros() as u64;
    let limbs = b.max(p + 2).div_ceil(64) as usize;
    let sh = 64 * limbs as u64 - b;
    let (q, r) = ((sh / 64) as usize, (sh % 64) as u32);
    buf.clear();
    buf.resize(limbs, 0);
    if r == 0 {
        buf[q..q + v.len()].copy_from_slice(v);
    } else {
        let c = mpn::shl(&mut buf[q..q + v.len()], v, r);
        if q + v.len() < limbs {
            buf[q + v.len()] = c;
        }
    }
    let (_, inc, carry) = round_mant(m, p, buf, true, neg, rnd);
    (s + b as i64 + carry as i64, inc)
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
/// Returns the ternary value and whether a retry was needed; `None` (a NaN
/// written) if the working precision passed [`ziv_limit`] without a
/// decision, which would be a bug (an exact case not decided first).
fn eval_elem(
    out: &mut Out,
    f: &dyn Fn(&mut Out, u64) -> Eval,
    p: u64,
    rnd: Round,
) -> Option<(i8, bool)> {
    let mut w = p + 16;
    let mut tries = 0u32;
    loop {
        match f(out, w) {
            Eval::Done(t) => return Some((t, tries > 0)),
            Eval::Approx(iv) => {
                if let Some(t) = round_interval(out, &iv, p, rnd) {
                    return Some((t, tries > 0));
                }
            }
        }
        tries += 1;
        w = if tries == 1 { w + 64 } else { 2 * w };
        if w > ziv_limit(p) {
            out.special(Class::NaN, false);
            return None;
        }
    }
}

/// The largest working precision Ziv's loop may reach for `p` bits (hard
/// cases need about `2p`; this allows several doublings beyond).
fn ziv_limit(p: u64) -> u64 {
    16 * p + (1 << 16)
}

fn not_converged(name: &str, p: u64) -> crate::error::Error {
    crate::error::Error::Invalid(format!(
        "{name} at {p} bits: an element was not decided below {} bits of working precision \
         (please report this input)",
        ziv_limit(p)
    ))
}

impl CpuFloats {
    /// `f(self)` rounded to `prec` bits in mode `rnd`, the ternary values,
    /// and how many elements needed a Ziv retry.
    pub fn func_ternary(
        &self,
        f: Func,
        prec: u64,
        rnd: Round,
    ) -> Result<(CpuFloats, Vec<i8>, FuncStats)> {
        check_prec(prec)?;
        let retried = AtomicU64::new(0);
        let failed = std::sync::atomic::AtomicBool::new(false);
        let (r, t) = build_fine(self.len(), prec, |i, out, _| {
            let x = self.get(i);
            let core = |o: &mut Out, w: u64| core::eval(f, o, &x, w, prec, rnd);
            let Some((t, re)) = eval_elem(out, &core, prec, rnd) else {
                failed.store(true, AtOrd::Relaxed);
                return 0;
            };
            if re {
                retried.fetch_add(1, AtOrd::Relaxed);
            }
            t
        })?;
        if failed.into_inner() {
            return Err(not_converged(f.name(), prec));
        }
        let stats = FuncStats {
            elements: self.len() as u64,
            retried: retried.into_inner(),
            ..Default::default()
        };
        Ok((r, t, stats))
    }

    /// `f(self)` rounded to `prec` bits in mode `rnd`.
    pub fn func(&self, f: Func, prec: u64, rnd: Round) -> Result<CpuFloats> {
        Ok(self.func_ternary(f, prec, rnd)?.0)
    }

    /// `(sin(self), cos(self))`, each rounded in `rnd`, with their ternary
    /// values and retry statistics (an element counted once).
    #[allow(clippy::type_complexity)]
    pub fn sin_cos_stats(
        &self,
        prec: u64,
        rnd: Round,
    ) -> Result<(
        (CpuFloats, Vec<i8>, FuncStats),
        (CpuFloats, Vec<i8>, FuncStats),
    )> {
        let s = self.func_ternary(Func::Sin, prec, rnd)?;
        let c = self.func_ternary(Func::Cos, prec, rnd)?;
        Ok((s, c))
    }

    /// A one-element array holding a constant (pi, ln 2, e) correctly
    /// rounded, and its ternary value.
    pub fn constant(c: Const, prec: u64, rnd: Round) -> Result<(CpuFloats, i8)> {
        check_prec(prec)?;
        let (r, t) = build(1, prec, |_, out, _| {
            let core = |_: &mut Out, w: u64| Eval::Approx(consts::interval(c, w));
            eval_elem(out, &core, prec, rnd).map_or(0, |r| r.0)
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
/// An element Ziv's loop cannot decide below its cap (none is known: the
/// exact cases are decided first) comes back as NaN, which the complex
/// intervals never accept, so their own cap turns it into an error.
pub(crate) fn eval_one(out: &mut Out, f: Func, x: &Elem, p: u64, rnd: Round) -> i8 {
    let core = |o: &mut Out, w: u64| core::eval(f, o, x, w, p, rnd);
    eval_elem(out, &core, p, rnd).map_or(0, |r| r.0)
}

/// A constant correctly rounded into one element (for the complex functions).
pub(crate) fn const_one(out: &mut Out, c: Const, p: u64, rnd: Round) -> i8 {
    let core = |_: &mut Out, w: u64| Eval::Approx(consts::interval(c, w));
    eval_elem(out, &core, p, rnd).map_or(0, |r| r.0)
}
