//! pow(x, y) with mpfr_pow's semantics.
//!
//! Special values (MPFR's table, in its order): `y = +-0` gives 1 for any
//! x (NaN too); `x = +1` gives 1 for any y (NaN too); otherwise a NaN gives
//! NaN. `y = +-Inf`: 1 for x = -1, else +0 or +Inf by `|x| < 1` and y's
//! sign. `x = +-Inf` or `+-0`: +-0 or +-Inf by y's sign, negative only for
//! a negative x and an odd integer y. Finite `x < 0` with a non-integer y:
//! NaN.
//!
//! Exact results (decided before Ziv, since one could be a rounding
//! boundary): with `|x| = o 2^e` (o odd) and `|y| = n 2^v` (n odd):
//! - y an integer (`v >= 0`): `o = 1` gives `2^(e y)` (or an outright
//!   overflow/underflow); `o > 1`, `y > 0` and `o^y` of at most `2p + 128`
//!   bits gives `o^y 2^(e y)` rounded once; larger odd parts have more
//!   than `p + 1` bits, so they are neither floats nor midpoints, and a
//!   negative y gives a non-dyadic value: Ziv decides those.
//! - `y = n / 2^k` (`k >= 1`, x > 0): exact only when `2^k | e` and `o` is
//!   a perfect `2^k`-th power `r^(2^k)` (k exact square roots); then
//!   `(r 2^(e/2^k))^(+-n)` as above. Otherwise `x^y` is irrational.
//!
//! General case: `exp(y log|x|)` on intervals. A first pass at 72 bits
//! bounds `t = y log|x|` rigorously: beyond `+-7.4426112e8` (EMAX ln 2
//! plus a margin) the result overflows or underflows in every mode; else
//! `t`'s absolute error must be `2^-W`, so the pass adds `log2 |t|` bits.

use std::cmp::Ordering;

use malachite_base::num::arithmetic::traits::{FloorSqrt, Pow};
use malachite_base::num::logic::traits::SignificantBits;
use malachite_nz::natural::Natural;

use super::ia::{Iv, cmp_one, lg, mono, near_one, out_of_range};
use super::{Eval, Func, mant, write_exact, write_special};
use crate::float::round::{Out, Round};
use crate::float::{Class, Elem};

fn one() -> Natural {
    Natural::from(1u32)
}

/// `2^(e * n * sign)` exactly, or an outright overflow/underflow when the
/// exponent is far outside the range.
fn pow2_result(
    out: &mut Out,
    neg: bool,
    e: i64,
    n: &Natural,
    yneg: bool,
    p: u64,
    rnd: Round,
) -> Eval {
    let big = (e > 0) != yneg;
    if n.significant_bits() > 62 {
        return out_of_range(out, neg, big, p, rnd);
    }
    let nv = u64::try_from(n).unwrap_or(u64::MAX) as i128;
    let v = e as i128 * nv * if yneg { -1 } else { 1 };
    if v.abs() > 1 << 40 {
        return out_of_range(out, neg, big, p, rnd);
    }
    Eval::Done(write_exact(out, neg, &one(), v as i64, p, rnd))
}

/// `(o 2^e)^n` exactly for a positive integer `n` when `o^n` has at most
/// `2p + 128` bits.
fn small_power(
    out: &mut Out,
    neg: bool,
    o: &Natural,
    e: i64,
    n: &Natural,
    p: u64,
    rnd: Round,
) -> Option<Eval> {
    let nb = n.significant_bits();
    if nb > 32 {
        return None;
    }
    let nv = u64::try_from(n).ok()?;
    if nv.saturating_mul(o.significant_bits() - 1) > 2 * p + 128 {
        return None;
    }
    let v = o.pow(nv);
    Some(Eval::Done(write_exact(out, neg, &v, e * nv as i64, p, rnd)))
}

pub(crate) fn pow(out: &mut Out, x: &Elem, y: &Elem, w: u64, p: u64, rnd: Round) -> Eval {
    if y.class == Class::Zero {
        return Eval::Done(write_exact(out, false, &one(), 0, p, rnd));
    }
    if x.class == Class::Normal && !x.neg && cmp_one(x) == Ordering::Equal {
        return Eval::Done(write_exact(out, false, &one(), 0, p, rnd));
    }
    if x.class == Class::NaN || y.class == Class::NaN {
        return write_special(out, Class::NaN, false);
    }
    if y.class == Class::Inf {
        if x.class == Class::Normal && x.neg && cmp_one(x) == Ordering::Equal {
            return Eval::Done(write_exact(out, false, &one(), 0, p, rnd));
        }
        let small = match x.class {
            Class::Zero => true,
            Class::Inf => false,
            _ => cmp_one(x) == Ordering::Less,
        };
        return if small != y.neg {
            write_special(out, Class::Zero, false)
        } else {
            write_special(out, Class::Inf, false)
        };
    }
    // y finite nonzero: |y| = n 2^v, n odd.
    let (my, sy) = mant(y);
    let tzy = my.trailing_zeros().unwrap_or(0);
    let n = &my >> tzy;
    let v = sy + tzy as i64;
    let (y_int, y_odd) = (v >= 0, v == 0);
    if x.class == Class::Inf || x.class == Class::Zero {
        let neg = x.neg && y_odd;
        let inf = (x.class == Class::Inf) != y.neg;
        return write_special(out, if inf { Class::Inf } else { Class::Zero }, neg);
    }
    if x.neg && !y_int {
        return write_special(out, Class::NaN, false);
    }
    let neg = x.neg && y_odd;
    if cmp_one(x) == Ordering::Equal {
        return Eval::Done(write_exact(out, neg, &one(), 0, p, rnd));
    }
    let (mx, sx) = mant(x);
    let tzx = mx.trailing_zeros().unwrap_or(0);
    let o = &mx >> tzx;
    let e = sx + tzx as i64;
    if y_int {
        if v <= 64 {
            let yn = &n << v as u64;
            if o == 1u32 {
                return pow2_result(out, neg, e, &yn, y.neg, p, rnd);
            }
            if !y.neg
                && let Some(r) = small_power(out, neg, &o, e, &yn, p, rnd)
            {
                return r;
            }
        } else if o == 1u32 {
            return out_of_range(out, neg, (e > 0) != y.neg, p, rnd);
        }
    } else {
        let k = (-v) as u64;
        if k <= 62 && e.rem_euclid(1 << k) == 0 {
            let mut r = o.clone();
            let mut ok = true;
            for _ in 0..k {
                let s = (&r).floor_sqrt();
                if &s * &s != r {
                    ok = false;
                    break;
                }
                r = s;
            }
            if ok {
                let er = e >> k;
                if r == 1u32 {
                    return pow2_result(out, false, er, &n, y.neg, p, rnd);
                }
                if !y.neg
                    && let Some(res) = small_power(out, false, &r, er, &n, p, rnd)
                {
                    return res;
                }
            }
        }
    }
    // General: exp(y log|x|).
    let ax = Iv::elem(x, true);
    let yv = Iv::elem(y, false);
    let Some(l0) = mono(Func::Log, &ax, 72) else {
        return write_special(out, Class::NaN, false);
    };
    let t0 = yv.mul(&l0, 72);
    let (lo, hi) = t0.ends_f64();
    const LIM: f64 = 744_261_120.0;
    if lo > LIM {
        return out_of_range(out, neg, true, p, rnd);
    }
    if hi < -LIM - 2.0 {
        return out_of_range(out, neg, false, p, rnd);
    }
    if t0.top() <= -(p as i64 + 3) && (t0.lo > 0u32 || t0.hi < 0u32) {
        // |t| < 2^-(p+3): x^y = exp(t) in (1, 1 + 2|t|) or (1 - |t|, 1),
        // within 2^-(p+2) of 1 (the interval path would need about
        // 2 |log2 t| bits to separate it from 1).
        return near_one(p, t0.lo > 0u32, neg);
    }
    let extra = t0.top().max(0) as u64;
    let bw = w + 10 + lg(w) + extra;
    let Some(l) = mono(Func::Log, &ax, bw + 4) else {
        return write_special(out, Class::NaN, false);
    };
    let t = yv.mul(&l, bw);
    match mono(Func::Exp, &t, bw) {
        Some(r) => if neg { r.neg() } else { r }.open(),
        None => out_of_range(out, neg, hi > 0.0, p, rnd),
    }
}
