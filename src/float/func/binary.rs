//! Two-argument functions: atan2, hypot, pow (in [`super::pow`]) and agm,
//! with their batch path next to the unary one (same Ziv driver).
//!
//! - atan2(y, x): MPFR's table of special values (signed zeros, +-pi,
//!   +-pi/2, +-pi/4, +-3pi/4), else `A = atan(|y| / |x|)` from the atan core
//!   over the quotient's interval, then `A` (x > 0) or `pi - A` (x < 0), with
//!   y's sign. No finite exact case besides y = 0.
//! - hypot(x, y): Inf if either is infinite (even with a NaN), NaN, then
//!   |other| rounded when one is zero; when the exponents are far apart
//!   (`2 (ex - ey) >= L`, `L = max(p + 3, bits of x)`) the result is `|x|`
//!   plus less than one unit of `L` bits; else the exact integer square root
//!   of `x^2 + y^2` scaled to `>= p + 3` bits, exact or in `(r, r + 1)`.
//! - agm(x, y): NaN with a NaN or a negative operand (-Inf included),
//!   +0 with a zero (NaN if the other is infinite), +Inf for +Inf with +Inf
//!   or a positive finite (MPFR 4.2.0, checked); agm(x, x) = x; else the AGM iteration on intervals (all its
//!   operations are increasing, so intervals enclose the true sequences and
//!   the limit lies in `[b_n, a_n]`), until the two meet within `2^-W`.

use malachite_base::num::arithmetic::traits::FloorSqrt;
use malachite_base::num::logic::traits::SignificantBits;
use malachite_nz::integer::Integer;

use super::consts::Const;
use super::ia::{Iv, lg, mono, tiny_odd_n};
use super::{Eval, Func, FuncStats, Interval, eval_elem, mant, write_exact, write_special};
use crate::error::{Error, Result};
use crate::float::round::{Out, Round};
use crate::float::{Class, CpuFloats, Elem, check_prec};

/// The two-argument functions.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Func2 {
    /// atan2(a, b) = the angle of the point (b, a) (MPFR's argument order).
    Atan2,
    Hypot,
    /// a^b (mpfr_pow).
    Pow,
    Agm,
}

impl Func2 {
    pub const ALL: [Func2; 4] = [Func2::Atan2, Func2::Hypot, Func2::Pow, Func2::Agm];

    pub fn name(self) -> &'static str {
        match self {
            Func2::Atan2 => "atan2",
            Func2::Hypot => "hypot",
            Func2::Pow => "pow",
            Func2::Agm => "agm",
        }
    }

    pub fn from_name(s: &str) -> Option<Func2> {
        Func2::ALL.into_iter().find(|f| f.name() == s)
    }
}

pub(crate) fn eval2(
    f: Func2,
    out: &mut Out,
    a: &Elem,
    b: &Elem,
    w: u64,
    p: u64,
    rnd: Round,
) -> Eval {
    match f {
        Func2::Atan2 => atan2(out, a, b, w, p),
        Func2::Hypot => hypot(out, a, b, p, rnd),
        Func2::Pow => super::pow::pow(out, a, b, w, p, rnd),
        Func2::Agm => agm(out, a, b, w, p, rnd),
    }
}

impl CpuFloats {
    /// `f(self, other)` elementwise, rounded to `prec` bits in mode `rnd`,
    /// the ternary values, and how many elements needed a Ziv retry.
    pub fn func2_ternary(
        &self,
        other: &CpuFloats,
        f: Func2,
        prec: u64,
        rnd: Round,
    ) -> Result<(CpuFloats, Vec<i8>, FuncStats)> {
        check_prec(prec)?;
        if self.len() != other.len() {
            return Err(Error::Invalid(format!(
                "{}: the arrays have {} and {} elements",
                f.name(),
                self.len(),
                other.len()
            )));
        }
        let retried = std::sync::atomic::AtomicU64::new(0);
        let failed = std::sync::atomic::AtomicBool::new(false);
        let (r, t) = super::build(self.len(), prec, |i, out, _| {
            let (a, b) = (self.get(i), other.get(i));
            let core = |o: &mut Out, w: u64| eval2(f, o, &a, &b, w, prec, rnd);
            match eval_elem(out, &core, prec, rnd) {
                Some((t, re)) => {
                    if re {
                        retried.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                    }
                    t
                }
                None => {
                    failed.store(true, std::sync::atomic::Ordering::Relaxed);
                    0
                }
            }
        })?;
        if failed.into_inner() {
            return Err(super::not_converged(f.name(), prec));
        }
        let stats = FuncStats {
            elements: self.len() as u64,
            retried: retried.into_inner(),
            ..Default::default()
        };
        Ok((r, t, stats))
    }
}

/// Integer exponents as a float array of just the bits of the largest
/// (exact), for pow.
pub(crate) fn pow_z_exponents(n: &[Integer]) -> Result<CpuFloats> {
    let bits = n
        .iter()
        .map(|v| v.unsigned_abs_ref().significant_bits())
        .max()
        .unwrap_or(1)
        .max(1);
    check_prec(bits).map_err(|_| {
        Error::Invalid(format!(
            "pow_z: exponents of more than {} bits",
            crate::float::MAX_PREC
        ))
    })?;
    let fl: Vec<malachite_float::Float> = n
        .iter()
        .map(|v| {
            malachite_float::Float::from_integer_prec_round(
                v.clone(),
                bits,
                malachite_base::rounding_modes::RoundingMode::Exact,
            )
            .0
        })
        .collect();
    Ok(CpuFloats::from_floats(bits, &fl, Round::Nearest)?.0)
}

/// pi * num / 4 at `w` bits with the sign (for atan2's table).
fn pi_quarter(num: i64, neg: bool, w: u64) -> Eval {
    let bw = w + 8;
    let pi = Iv::constant(Const::Pi, bw);
    let v = pi.mul(&Iv::int(num), bw).shl(-2);
    if neg { v.neg() } else { v }.open()
}

/// atan2(y, x) (y first, as mpfr_atan2).
fn atan2(out: &mut Out, y: &Elem, x: &Elem, w: u64, p: u64) -> Eval {
    if y.class == Class::NaN || x.class == Class::NaN {
        return write_special(out, Class::NaN, false);
    }
    let sy = y.neg;
    match (y.class, x.class) {
        (Class::Zero, _) => {
            // +-0 for x > 0 or x = +0; +-pi for x < 0 or x = -0.
            return if x.neg {
                pi_quarter(4, sy, w)
            } else {
                write_special(out, Class::Zero, sy)
            };
        }
        (Class::Inf, Class::Inf) => return pi_quarter(if x.neg { 3 } else { 1 }, sy, w),
        (Class::Inf, _) | (_, Class::Zero) => return pi_quarter(2, sy, w),
        (_, Class::Inf) => {
            return if x.neg {
                pi_quarter(4, sy, w)
            } else {
                write_special(out, Class::Zero, sy)
            };
        }
        _ => {}
    }
    if !x.neg {
        // |y/x| tiny and dyadic: atan2 = y/x minus less than one unit (the
        // interval path would need about 3 |log2 (y/x)| bits to see it).
        let (my, sy) = mant(y);
        let (mx, sx) = mant(x);
        let tx = mx.trailing_zeros().unwrap_or(0);
        let ox = &mx >> tx;
        if y.exp - x.exp < -2 && (&my % &ox) == 0u32 {
            let qm = &my / &ox;
            if let Some(iv) = tiny_odd_n(&qm, sy - sx - tx as i64, y.neg, p, false) {
                return iv;
            }
        }
    }
    let bw = w + 8 + lg(w);
    let q = Iv::elem(y, true).div(&Iv::elem(x, true), bw);
    let Some(a) = mono(Func::Atan, &q, bw) else {
        return write_special(out, Class::NaN, false);
    };
    let r = if x.neg {
        Iv::constant(Const::Pi, bw).sub(&a, bw)
    } else {
        a
    };
    if sy { r.neg() } else { r }.open()
}

fn hypot(out: &mut Out, x: &Elem, y: &Elem, p: u64, rnd: Round) -> Eval {
    if x.class == Class::Inf || y.class == Class::Inf {
        return write_special(out, Class::Inf, false);
    }
    if x.class == Class::NaN || y.class == Class::NaN {
        return write_special(out, Class::NaN, false);
    }
    match (x.class, y.class) {
        (Class::Zero, Class::Zero) => return write_special(out, Class::Zero, false),
        (Class::Zero, _) => {
            let (m, s) = mant(y);
            return Eval::Done(write_exact(out, false, &m, s, p, rnd));
        }
        (_, Class::Zero) => {
            let (m, s) = mant(x);
            return Eval::Done(write_exact(out, false, &m, s, p, rnd));
        }
        _ => {}
    }
    let (a, b) = if x.exp >= y.exp { (x, y) } else { (y, x) };
    let nb = 64 * a.limbs.len() as u64;
    let l = (p + 3).max(nb);
    if 2 * (a.exp - b.exp) >= l as i64 + 2 {
        // hypot - |a| < b^2 / (2|a|) < 2^(2 eb - ea) <= one unit 2^(ea - L).
        let (m, _) = mant(a);
        let am = Integer::from(m << (l - nb));
        return Eval::Approx(Interval {
            lo: am.clone(),
            hi: am + Integer::from(1u32),
            s: a.exp - l as i64,
        });
    }
    let (ma, sa) = mant(a);
    let (mb, sb) = mant(b);
    let s0 = sa.min(sb);
    let sq = ((&ma * &ma) << (2 * (sa - s0)) as u64) + ((&mb * &mb) << (2 * (sb - s0)) as u64);
    // sqrt(sq) 2^s0 with >= p + 3 bits: sq 4^t.
    let need = 2 * (p + 3) + 2;
    let t = need.saturating_sub(sq.significant_bits()).div_ceil(2);
    let n = sq << (2 * t);
    let r = (&n).floor_sqrt();
    let s = s0 - t as i64;
    if &r * &r == n {
        return Eval::Done(write_exact(out, false, &r, s, p, rnd));
    }
    let lo = Integer::from(r);
    let hi = &lo + Integer::from(1u32);
    Eval::Approx(Interval { lo, hi, s })
}

fn agm(out: &mut Out, x: &Elem, y: &Elem, w: u64, p: u64, rnd: Round) -> Eval {
    if x.class == Class::NaN || y.class == Class::NaN {
        return write_special(out, Class::NaN, false);
    }
    let special = |c: Class| c != Class::Normal;
    if special(x.class) || special(y.class) {
        // One is +-Inf or +-0 (neither NaN).
        let inf_x = x.class == Class::Inf;
        let inf_y = y.class == Class::Inf;
        // +Inf with +Inf or a positive finite: +Inf (MPFR 4.2).
        let pos = |e: &Elem| !e.neg && e.class != Class::Zero;
        if (inf_x || inf_y) && pos(x) && pos(y) {
            return write_special(out, Class::Inf, false);
        }
        if (inf_x || inf_y) && (x.class == Class::Zero || y.class == Class::Zero) {
            return write_special(out, Class::NaN, false);
        }
        if x.class == Class::Zero || y.class == Class::Zero {
            return write_special(out, Class::Zero, false);
        }
        return write_special(out, Class::NaN, false);
    }
    if x.neg || y.neg {
        return write_special(out, Class::NaN, false);
    }
    let (mx, sx) = mant(x);
    let (my, sy) = mant(y);
    let tx = mx.trailing_zeros().unwrap_or(0);
    let ty = my.trailing_zeros().unwrap_or(0);
    if sx + tx as i64 == sy + ty as i64 && (&mx >> tx) == (&my >> ty) {
        return Eval::Done(write_exact(out, false, &mx, sx, p, rnd));
    }
    let bw = w + 12 + 2 * lg(w);
    let mut a = Iv::elem(x, false);
    let mut b = Iv::elem(y, false);
    for _ in 0..(200 + lg(bw)) {
        let a2 = a.add(&b, bw).shl(-1);
        let b2 = a.mul(&b, bw).sqrt(bw);
        a = a2;
        b = b2;
        // Stop when a.hi - b.lo < 2^-(W-12) b.lo (the rounding errors, a
        // few units of 2^-W per step, then dominate the gap).
        let d = Iv::exact(a.hi.clone(), a.s).sub(&Iv::exact(b.lo.clone(), b.s), bw + 64);
        if d.lo <= 0u32 || d.top() <= b.top() - (bw as i64 - 12) {
            break;
        }
    }
    // agm in [b_n, a_n] for n >= 1; either may be the larger bound after
    // rounding, so take the hull.
    let s = a.s.min(b.s);
    let al = &a.lo << (a.s - s) as u64;
    let ah = &a.hi << (a.s - s) as u64;
    let bl = &b.lo << (b.s - s) as u64;
    let bh = &b.hi << (b.s - s) as u64;
    let lo = if al < bl { al } else { bl };
    let hi = if ah > bh { ah } else { bh };
    Iv { lo, hi, s }.open()
}

/// A two-argument function correctly rounded into one element (for the
/// complex functions); NaN and ternary 0 if Ziv's loop gave up.
pub(crate) fn eval2_one(out: &mut Out, f: Func2, a: &Elem, b: &Elem, p: u64, rnd: Round) -> i8 {
    let core = |o: &mut Out, w: u64| eval2(f, o, a, b, w, p, rnd);
    eval_elem(out, &core, p, rnd).map_or(0, |r| r.0)
}
