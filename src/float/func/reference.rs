//! An independent reference for the elementary functions (used by the
//! tests and by `mparray bench func`'s checks): each function evaluated with
//! a different method than the library's cores, in malachite-float
//! arithmetic at a much higher precision `P` with a generous error bound;
//! the interval's two ends are rounded by malachite's exact
//! `from_rational_prec_round` and must agree (value and ternary), else `P`
//! doubles.
//!
//! Methods (the library's in brackets): exp = e^floor(x) by binary powering
//! of e = sum 1/k! times Taylor of the fraction [k ln2 + r, 2^-s,
//! squarings]; log = n ln2 (ln2 = sum 1/(k 2^k)) + 16 log(y^(1/16)) by
//! Mercator's series, or Mercator directly near 1 [atanh series]; sin/cos =
//! Taylor on x mod 2pi with pi from 48 atan(1/18) + 32 atan(1/57) - 20
//! atan(1/239) [mod pi/2, Machin]; atan = Euler's series [halvings +
//! Taylor].

use std::cmp::Ordering;

use malachite_base::num::arithmetic::traits::{Abs, IsPowerOf2, Parity, PowerOf2};
use malachite_base::num::basic::traits::{One, Zero};
use malachite_base::num::conversion::traits::RoundingFrom;
use malachite_base::num::logic::traits::SignificantBits;
use malachite_base::rounding_modes::RoundingMode;
use malachite_float::{ComparableFloatRef, Float};
use malachite_nz::integer::Integer;
use malachite_q::Rational;

use super::{Const, Func, Func2};
use crate::float::{Round, to_rounding_mode};

// The reference: malachite-float arithmetic at precision P (each operation
// rounded to nearest: relative error <= 2^-P), errors counted generously.

pub struct Ctx {
    pub p: u64,
}

impl Ctx {
    fn add(&self, a: &Float, b: &Float) -> Float {
        a.add_prec_ref_ref(b, self.p).0
    }
    fn sub(&self, a: &Float, b: &Float) -> Float {
        a.sub_prec_ref_ref(b, self.p).0
    }
    fn mul(&self, a: &Float, b: &Float) -> Float {
        a.mul_prec_ref_ref(b, self.p).0
    }
    fn div(&self, a: &Float, b: &Float) -> Float {
        a.div_prec_ref_ref(b, self.p).0
    }
    fn int(&self, n: i64) -> Float {
        Float::from_rational_prec(Rational::from(n), self.p).0
    }
    fn eps(&self) -> Float {
        // 2^-P as a float (exact).
        Float::from_rational_prec(Rational::power_of_2(-(self.p as i64)), 64).0
    }
    /// 2^-bits as a 64-bit float.
    fn small(bits: i64) -> Float {
        Float::from_rational_prec(Rational::power_of_2(-bits), 64).0
    }
}

/// A value and an absolute error bound.
pub struct Approx {
    pub v: Float,
    pub err: Float,
}

/// sum 1/k!, |err| <= (2K + 4) 2^-P * 3.
pub fn ref_e(c: &Ctx) -> Approx {
    let mut s = Float::ONE;
    let mut t = Float::ONE;
    let mut k = 1i64;
    let stop = Ctx::small(c.p as i64 + 8);
    loop {
        t = c.div(&t, &c.int(k));
        if t < stop {
            break;
        }
        s = c.add(&s, &t);
        k += 1;
    }
    let err = c.mul(&c.eps(), &c.int(12 * k + 12));
    Approx { v: s, err }
}

/// exp(x) = e^n * sum f^k/k!, n = floor(x), f = x - n in [0, 1).
/// Relative error <= 2^-P * 64 (|n| + 1) K (e's relative error times n,
/// the powering's 2 log2 n roundings, the Taylor sum's 3K).
fn ref_exp(c: &Ctx, x: &Float) -> Approx {
    let xr = Rational::try_from(x).unwrap();
    let n = i64::try_from(&Integer::rounding_from(&xr, RoundingMode::Floor).0).unwrap_or(0);
    let f = c.sub(x, &c.int(n));
    let mut s = Float::ONE;
    let mut t = Float::ONE;
    let mut k = 1i64;
    let stop = Ctx::small(c.p as i64 + 8);
    loop {
        t = c.div(&c.mul(&t, &f), &c.int(k));
        if t < stop {
            break;
        }
        s = c.add(&s, &t);
        k += 1;
    }
    let e = ref_e(c).v;
    let mut pw = Float::ONE;
    let mut b = e;
    let mut m = n.unsigned_abs();
    while m > 0 {
        if m & 1 == 1 {
            pw = c.mul(&pw, &b);
        }
        m >>= 1;
        if m > 0 {
            b = c.mul(&b, &b);
        }
    }
    let v = if n >= 0 {
        c.mul(&pw, &s)
    } else {
        c.div(&s, &pw)
    };
    let rel = 64 * (n.unsigned_abs() + 1) * (k as u64 + 10);
    let err = c.mul(&c.mul(&v.clone().abs(), &c.eps()), &c.int(rel as i64));
    Approx { v, err }
}

/// sum_{k>=1} (-1)^(k+1) d^k / k for |d| <= 1/4: |err| <= 4K 2^-P |d|.
fn ref_log1p_small(c: &Ctx, d: &Float) -> Approx {
    let mut s = d.clone();
    let mut pw = d.clone();
    let mut k = 2i64;
    let stop = c.mul(&d.clone().abs(), &Ctx::small(c.p as i64 + 8));
    loop {
        pw = c.mul(&pw, d);
        let t = c.div(&pw, &c.int(k));
        if t.clone().abs() < stop {
            break;
        }
        s = if k % 2 == 0 {
            c.sub(&s, &t)
        } else {
            c.add(&s, &t)
        };
        k += 1;
    }
    let err = c.mul(&c.mul(&d.clone().abs(), &c.eps()), &c.int(8 * k + 16));
    Approx { v: s, err }
}

/// ln 2 = sum 1/(k 2^k): |err| <= 4K 2^-P.
pub fn ref_ln2(c: &Ctx) -> Approx {
    let mut s = Float::ZERO;
    let mut k = 1i64;
    let stop = Ctx::small(c.p as i64 + 8);
    let half = Ctx::small(1);
    let mut pw = Float::ONE;
    loop {
        pw = c.mul(&pw, &half);
        let t = c.div(&pw, &c.int(k));
        if t < stop {
            break;
        }
        s = c.add(&s, &t);
        k += 1;
    }
    let err = c.mul(&c.eps(), &c.int(4 * k + 8));
    Approx { v: s, err }
}

fn ref_log(c: &Ctx, x: &Float) -> Approx {
    let one = Float::ONE;
    let d = c.sub(x, &one);
    if d.clone().abs() <= Ctx::small(2) {
        // d is exact here (x near 1, P above x's precision).
        return ref_log1p_small(c, &d);
    }
    // x = y 2^n, y in [1/2, 1); log y = 16 log(y^(1/16)).
    let n = i64::from(x.get_exponent().unwrap());
    let y = Float::from_rational_prec(
        Rational::try_from(x).unwrap() * Rational::power_of_2(-n),
        c.p,
    )
    .0;
    let mut r = y;
    for _ in 0..4 {
        r = r.sqrt_prec_ref(c.p).0;
    }
    let l = ref_log1p_small(c, &c.sub(&r, &one));
    let ln2 = ref_ln2(c);
    let v = c.add(&c.mul(&l.v, &c.int(16)), &c.mul(&ln2.v, &c.int(n)));
    // 16 (series err + sqrt errors 4 * 2^-P * 1.1) + |n| ln2 err + roundings.
    let err = c.add(
        &c.mul(&c.add(&l.err, &c.mul(&c.eps(), &c.int(8))), &c.int(16)),
        &c.mul(&c.eps(), &c.int(8 * (n.abs() + 1) * 1000)),
    );
    Approx { v, err }
}

/// atan(1/m) series, |err| <= 4K 2^-P / m.
fn ref_atan_inv(c: &Ctx, m: i64) -> Float {
    let mm = c.int(m * m);
    let mut t = c.div(&Float::ONE, &c.int(m));
    let mut s = t.clone();
    let mut k = 1i64;
    let stop = Ctx::small(c.p as i64 + 8);
    loop {
        t = c.div(&t, &mm);
        let u = c.div(&t, &c.int(2 * k + 1));
        if u < stop {
            break;
        }
        s = if k % 2 == 1 {
            c.sub(&s, &u)
        } else {
            c.add(&s, &u)
        };
        k += 1;
    }
    s
}

/// pi = 48 atan(1/18) + 32 atan(1/57) - 20 atan(1/239): |err| < 2^-P * 2^14.
pub fn ref_pi(c: &Ctx) -> Approx {
    let a = c.mul(&ref_atan_inv(c, 18), &c.int(48));
    let b = c.mul(&ref_atan_inv(c, 57), &c.int(32));
    let d = c.mul(&ref_atan_inv(c, 239), &c.int(20));
    let v = c.sub(&c.add(&a, &b), &d);
    Approx {
        v,
        err: c.mul(&c.eps(), &c.int(1 << 14)),
    }
}

/// sin or cos by Taylor on r = x - 2 pi k (|r| <= 3.2), or on x itself when
/// |x| < 1/2 (then sin's error is relative). Absolute error <= 2^-P 2^12
/// (|k| + 1) K (terms up to e^3.2 < 25, reduction with pi's error times k).
fn ref_sin_cos(c: &Ctx, x: &Float, cos: bool) -> Approx {
    let xr = Rational::try_from(x).unwrap();
    let (r, k) = if xr.clone().abs() < Rational::from_signeds(1, 2) {
        (x.clone(), 0i64)
    } else {
        let pi = ref_pi(c).v;
        let two_pi = c.mul(&pi, &c.int(2));
        let q = c.div(x, &two_pi);
        let k = i64::try_from(
            &Integer::rounding_from(&Rational::try_from(&q).unwrap(), RoundingMode::Nearest).0,
        )
        .unwrap();
        (c.sub(x, &c.mul(&two_pi, &c.int(k))), k)
    };
    let r2 = c.mul(&r, &r);
    let (mut s, mut t, mut j) = if cos {
        (Float::ONE, Float::ONE, 1i64)
    } else {
        (r.clone(), r.clone(), 1i64)
    };
    let stop = c.mul(
        &Ctx::small(c.p as i64 + 8),
        &if cos { Float::ONE } else { r.clone().abs() },
    );
    loop {
        let d = if cos {
            (2 * j - 1) * (2 * j)
        } else {
            (2 * j) * (2 * j + 1)
        };
        t = c.div(&c.mul(&t, &r2), &c.int(d));
        if t.clone().abs() < stop {
            break;
        }
        s = if j % 2 == 1 {
            c.sub(&s, &t)
        } else {
            c.add(&s, &t)
        };
        j += 1;
    }
    let scale = if k == 0 && !cos {
        r.clone().abs()
    } else {
        Float::ONE
    };
    let err = c.mul(
        &c.mul(&c.eps(), &c.int((1 << 12) * (k.abs() + 1) * (j + 4))),
        &scale,
    );
    let err = if k == 0 {
        err
    } else {
        c.mul(&err, &c.int((x.get_exponent().unwrap().max(1)) as i64 * 4))
    };
    Approx { v: s, err }
}

/// Euler: atan(x) = sum_n 2^2n (n!)^2/(2n+1)! x^(2n+1)/(1+x^2)^(n+1), all
/// terms of x's sign, ratio y = x^2/(1+x^2) <= 1/2: relative error <= 8K
/// 2^-P. |x| > 1: pi/2 - atan(1/x).
fn ref_atan(c: &Ctx, x: &Float) -> Approx {
    let ax = x.clone().abs();
    if ax > Float::ONE {
        let inv = c.div(&Float::ONE, x);
        let a = ref_atan(c, &inv);
        let pi = ref_pi(c);
        let half_pi = c.div(&pi.v, &c.int(2));
        let h = if *x > Float::ZERO { half_pi } else { -half_pi };
        let err = c.add(&c.add(&a.err, &pi.err), &c.mul(&c.eps(), &c.int(16)));
        return Approx {
            v: c.sub(&h, &a.v),
            err,
        };
    }
    let x2 = c.mul(x, x);
    let d = c.add(&Float::ONE, &x2);
    let y = c.div(&x2, &d);
    let mut t = c.div(x, &d);
    let mut s = t.clone();
    let stop = c.mul(&ax, &Ctx::small(c.p as i64 + 8));
    let mut n = 1i64;
    loop {
        t = c.div(&c.mul(&c.mul(&t, &y), &c.int(2 * n)), &c.int(2 * n + 1));
        if t.clone().abs() < stop {
            break;
        }
        s = c.add(&s, &t);
        n += 1;
    }
    let err = c.mul(&c.mul(&ax, &c.eps()), &c.int(16 * n + 32));
    Approx { v: s, err }
}

pub fn reference_at(f: Func, x: &Float, pp: u64) -> Approx {
    let c = Ctx { p: pp };
    match f {
        Func::Exp => ref_exp(&c, x),
        Func::Log => ref_log(&c, x),
        Func::Sin => ref_sin_cos(&c, x, false),
        Func::Cos => ref_sin_cos(&c, x, true),
        Func::Atan => ref_atan(&c, x),
        Func::Tan => {
            let s = ref_sin_cos(&c, x, false);
            let co = ref_sin_cos(&c, x, true);
            ap_div(&c, &s, &co)
        }
        Func::Exp2 => {
            let l = ref_ln2(&c);
            let t = c.mul(x, &l.v);
            // exp(t) with t's error |x| l.err + |t| 2^-P: exp moves by
            // exp(t) * that * 1.1.
            let e = ref_exp(&c, &t);
            let terr = c.add(
                &c.mul(&x.clone().abs(), &l.err),
                &c.mul(&t.clone().abs(), &c.eps()),
            );
            let extra = c.mul(&c.mul(&e.v.clone().abs(), &terr), &c.int(2));
            Approx {
                err: c.add(&e.err, &extra),
                v: e.v,
            }
        }
        Func::Log2 => ap_div(&c, &ref_log(&c, x), &ref_ln2(&c)),
        Func::Log10 => ap_div(&c, &ref_log(&c, x), &ref_log(&c, &c.int(10))),
        _ => ref_second(&c, f, x),
    }
}

// The second set of functions (cbrt .. acos, and the two-argument ones),
// composed from the series above with error propagation; the formulas
// differ from the library's where it matters (series near 0, asin by the
// half-angle atan, acos = pi/2 - asin, atan2 via the quotient, pow =
// exp(y log x) with Euler's e-powering).

fn ap(v: Float) -> Approx {
    Approx {
        v,
        err: Float::ZERO,
    }
}

/// |v| 2^-P * k: the rounding of one or a few operations.
fn rnd_err(c: &Ctx, v: &Float, k: i64) -> Float {
    c.mul(&c.mul(&v.clone().abs(), &c.eps()), &c.int(k))
}

fn ap_add(c: &Ctx, a: &Approx, b: &Approx) -> Approx {
    let v = c.add(&a.v, &b.v);
    let err = c.add(&c.add(&a.err, &b.err), &rnd_err(c, &v, 2));
    Approx { v, err }
}

fn ap_neg(a: Approx) -> Approx {
    Approx {
        v: -a.v,
        err: a.err,
    }
}

fn ap_mul(c: &Ctx, a: &Approx, b: &Approx) -> Approx {
    let v = c.mul(&a.v, &b.v);
    let e = c.add(
        &c.add(
            &c.mul(&a.v.clone().abs(), &b.err),
            &c.mul(&b.v.clone().abs(), &a.err),
        ),
        &c.mul(&a.err, &b.err),
    );
    let err = c.mul(&c.add(&e, &rnd_err(c, &v, 1)), &c.int(2));
    Approx { v, err }
}

/// sqrt with `a.v > 4 a.err`: `sqrt(v +- e) - sqrt(v) <= e / sqrt(v)`.
fn ap_sqrt(c: &Ctx, a: &Approx) -> Approx {
    let v = a.v.sqrt_prec_ref(c.p).0;
    let e = c.div(&a.err, &v);
    let err = c.mul(&c.add(&e, &rnd_err(c, &v, 1)), &c.int(2));
    Approx { v, err }
}

/// exp(v +- e) = exp(v)(1 +- 2e) for e <= 1/4.
fn ap_exp(c: &Ctx, a: &Approx) -> Approx {
    let e = ref_exp(c, &a.v);
    let extra = c.mul(&c.mul(&e.v.clone().abs(), &a.err), &c.int(2));
    Approx {
        err: c.add(&e.err, &extra),
        v: e.v,
    }
}

/// log(v +- e) = log v +- 2e/v for v > 2e > 0.
fn ap_log(c: &Ctx, a: &Approx) -> Approx {
    let l = ref_log(c, &a.v);
    let extra = c.mul(&c.div(&a.err, &a.v.clone().abs()), &c.int(2));
    Approx {
        err: c.add(&l.err, &extra),
        v: l.v,
    }
}

/// atan(v +- e) = atan v +- e.
fn ap_atan(c: &Ctx, a: &Approx) -> Approx {
    let t = ref_atan(c, &a.v);
    Approx {
        err: c.add(&c.add(&t.err, &a.err), &rnd_err(c, &t.v, 1)),
        v: t.v,
    }
}

/// sum_k coef_k x^k with `next(t, k)` giving term k from term k-1 (the
/// terms decreasing at least geometrically by 1/2 from the first): error
/// `(8K + 8) 2^-P |first term|` plus the tail.
fn series(c: &Ctx, first: Float, next: impl Fn(&Float, i64) -> Float) -> Approx {
    let mut s = first.clone();
    let mut t = first.clone();
    let stop = c.mul(&first.clone().abs(), &Ctx::small(c.p as i64 + 8));
    let mut k = 1i64;
    loop {
        t = next(&t, k);
        if t.clone().abs() < stop {
            break;
        }
        s = c.add(&s, &t);
        k += 1;
    }
    let err = c.mul(&c.mul(&first.abs(), &c.eps()), &c.int(16 * k + 16));
    Approx { v: s, err }
}

fn small_arg(x: &Float) -> bool {
    x.clone().abs() < Ctx::small(1)
}

fn ref_second(c: &Ctx, f: Func, x: &Float) -> Approx {
    let one = ap(Float::ONE);
    let x2 = c.mul(x, x);
    let x2a = Approx {
        v: x2.clone(),
        err: rnd_err(c, &x2, 1),
    };
    match f {
        Func::Expm1 if small_arg(x) => {
            series(c, x.clone(), |t, k| c.div(&c.mul(t, x), &c.int(k + 1)))
        }
        Func::Expm1 => ap_add(c, &ap_exp(c, &ap(x.clone())), &ap_neg(one)),
        Func::Log1p if x.clone().abs() <= Ctx::small(2) => ref_log1p_small(c, x),
        Func::Log1p => ap_log(c, &ap_add(c, &ap(x.clone()), &one)),
        Func::Sinh if small_arg(x) => series(c, x.clone(), |t, k| {
            c.div(&c.mul(t, &x2), &c.int((2 * k) * (2 * k + 1)))
        }),
        Func::Cosh if small_arg(x) => series(c, Float::ONE, |t, k| {
            c.div(&c.mul(t, &x2), &c.int((2 * k - 1) * (2 * k)))
        }),
        Func::Sinh | Func::Cosh => {
            let e = ap_exp(c, &ap(x.clone()));
            let inv = ap_div(c, &one, &e);
            let s = if f == Func::Sinh {
                ap_add(c, &e, &ap_neg(inv))
            } else {
                ap_add(c, &e, &inv)
            };
            Approx {
                v: c.div(&s.v, &c.int(2)),
                err: s.err,
            }
        }
        Func::Tanh => ap_div(
            c,
            &ref_second(c, Func::Sinh, x),
            &ref_second(c, Func::Cosh, x),
        ),
        Func::Atanh if small_arg(x) => series(c, x.clone(), |t, k| {
            // x^(2k+1)/(2k+1) from x^(2k-1)/(2k-1).
            c.div(&c.mul(&c.mul(t, &x2), &c.int(2 * k - 1)), &c.int(2 * k + 1))
        }),
        Func::Atanh => {
            let q = ap_div(
                c,
                &ap_add(c, &one, &ap(x.clone())),
                &ap_add(c, &one, &ap(-x.clone())),
            );
            let l = ap_log(c, &q);
            Approx {
                v: c.div(&l.v, &c.int(2)),
                err: l.err,
            }
        }
        Func::Asinh if small_arg(x) => series(c, x.clone(), |t, k| {
            // (-1)^k c_k x^(2k+1)/(2k+1), c_k = c_(k-1) (2k-1)/(2k).
            let r = c.div(
                &c.mul(&c.int((2 * k - 1) * (2 * k - 1)), &x2),
                &c.int((2 * k) * (2 * k + 1)),
            );
            -c.mul(t, &r)
        }),
        Func::Asinh => {
            let a = x.clone().abs();
            let s = ap_sqrt(c, &ap_add(c, &x2a, &one));
            let l = ap_log(c, &ap_add(c, &ap(a), &s));
            if *x < 0u32 { ap_neg(l) } else { l }
        }
        Func::Acosh => {
            let d = ap_add(c, &x2a, &ap_neg(one));
            let s = ap_sqrt(c, &d);
            ap_log(c, &ap_add(c, &ap(x.clone()), &s))
        }
        Func::Asin | Func::Acos if x.clone().abs() == Float::ONE => {
            // +-pi/2 (asin), pi (acos(-1)); acos(1) = 0 is exact.
            let pi = ref_pi(c);
            let h = if f == Func::Asin {
                c.div(&pi.v, &c.int(2))
            } else {
                pi.v
            };
            let v = if *x < 0u32 && f == Func::Asin { -h } else { h };
            Approx { v, err: pi.err }
        }
        Func::Asin | Func::Acos => {
            // asin x = 2 atan(x / (1 + sqrt(1 - x^2))).
            let r = ap_sqrt(c, &ap_add(c, &one, &ap_neg(x2a)));
            let q = ap_div(c, &ap(x.clone()), &ap_add(c, &one, &r));
            let a = ap_atan(c, &q);
            let asin = Approx {
                v: c.mul(&a.v, &c.int(2)),
                err: c.mul(&a.err, &c.int(2)),
            };
            if f == Func::Asin {
                asin
            } else {
                let pi = ref_pi(c);
                let h = Approx {
                    v: c.div(&pi.v, &c.int(2)),
                    err: pi.err,
                };
                ap_add(c, &h, &ap_neg(asin))
            }
        }
        Func::Cbrt => {
            // exp(log|x| / 3).
            let l = ref_log(c, &x.clone().abs());
            let t = Approx {
                v: c.div(&l.v, &c.int(3)),
                err: c.add(&l.err, &rnd_err(c, &l.v, 1)),
            };
            let e = ap_exp(c, &t);
            if *x < 0u32 { ap_neg(e) } else { e }
        }
        _ => unreachable!("first-set functions have their own references"),
    }
}

/// `f(a, b)` for finite nonzero arguments (not an exact case) by the
/// series above, at `pp` bits.
pub fn reference2_at(f: Func2, a: &Float, b: &Float, pp: u64) -> Approx {
    let c = Ctx { p: pp };
    match f {
        Func2::Hypot => {
            let sq = |v: &Float| {
                let v2 = c.mul(v, v);
                Approx {
                    err: rnd_err(&c, &v2, 1),
                    v: v2,
                }
            };
            let s = ap_add(&c, &sq(a), &sq(b));
            ap_sqrt(&c, &s)
        }
        Func2::Atan2 => {
            // atan(|a/b|), then pi - that for b < 0, a's sign.
            let q = ap_div(&c, &ap(a.clone().abs()), &ap(b.clone().abs()));
            let t = ap_atan(&c, &q);
            let t = if *b < 0u32 {
                let pi = ref_pi(&c);
                ap_add(&c, &pi, &ap_neg(t))
            } else {
                t
            };
            if *a < 0u32 { ap_neg(t) } else { t }
        }
        Func2::Pow => {
            // exp(b log|a|), negated for a < 0 and an odd integer b.
            let l = ref_log(&c, &a.clone().abs());
            let t = ap_mul(&c, &ap(b.clone()), &l);
            let e = ap_exp(&c, &t);
            let odd = Rational::try_from(b)
                .map(|q| *q.denominator_ref() == 1u32 && q.numerator_ref().odd())
                .unwrap_or(false);
            if *a < 0u32 && odd { ap_neg(e) } else { e }
        }
        Func2::Agm => {
            let (mut x, mut y) = (a.clone(), b.clone());
            let mut n = 0i64;
            loop {
                let x2 = c.div(&c.add(&x, &y), &c.int(2));
                let y2 = c.mul(&x, &y).sqrt_prec_ref(c.p).0;
                x = x2;
                y = y2;
                n += 1;
                let d = c.sub(&x, &y).abs();
                if d <= c.mul(&x, &c.eps()) || n > 10_000 {
                    break;
                }
            }
            let err = rnd_err(&c, &x, 8 * n + 16);
            Approx { v: x, err }
        }
    }
}

/// The correctly rounded value of `f(a, b)` for finite nonzero arguments
/// in every mode: exact cases from malachite's exact result, else
/// [`reference2_at`] at doubling precision until both ends agree.
pub fn reference2(f: Func2, a: &Float, b: &Float, p: u64) -> Vec<(Float, Ordering)> {
    let q = a.get_prec().unwrap_or(1).max(b.get_prec().unwrap_or(1));
    let mut pp = 2 * p.max(q) + 128;
    let (v, o) = malachite_func2(f, a, b, pp, RoundingMode::Nearest);
    if o == Ordering::Equal {
        return Round::ALL
            .iter()
            .map(|&r| {
                if v.is_finite() && v != Float::ZERO {
                    Float::from_rational_prec_round(
                        Rational::try_from(&v).unwrap(),
                        p,
                        to_rounding_mode(r),
                    )
                } else {
                    (v.clone(), Ordering::Equal)
                }
            })
            .collect();
    }
    loop {
        let ap = reference2_at(f, a, b, pp);
        let r: Option<Vec<_>> = Round::ALL
            .iter()
            .map(|&r| round_iv(&ap, p, to_rounding_mode(r)))
            .collect();
        if let Some(r) = r {
            return r;
        }
        pp *= 2;
        assert!(
            pp < 1 << 18,
            "reference did not converge for {f:?}({a}, {b}) at {p} bits"
        );
    }
}

/// `f(x)` by malachite-float's own function (which reproduces MPFR),
/// rounded to `p` bits in `rm`, with its ternary ordering.
pub fn malachite_func(f: Func, x: &Float, p: u64, rm: RoundingMode) -> (Float, Ordering) {
    match f {
        Func::Exp => x.exp_prec_round_ref(p, rm),
        Func::Log => x.ln_prec_round_ref(p, rm),
        Func::Sin => x.sin_prec_round_ref(p, rm),
        Func::Cos => x.cos_prec_round_ref(p, rm),
        Func::Atan => x.atan_prec_round_ref(p, rm),
        Func::Tan => x.tan_prec_round_ref(p, rm),
        Func::Exp2 => Float::power_of_2_of_float_prec_round_ref(x, p, rm),
        Func::Log2 => x.log_base_2_prec_round_ref(p, rm),
        Func::Log10 => x.log_base_10_prec_round_ref(p, rm),
        Func::Cbrt => x.cbrt_prec_round_ref(p, rm),
        Func::Expm1 => x.exp_x_minus_1_prec_round_ref(p, rm),
        Func::Log1p => x.ln_1_plus_x_prec_round_ref(p, rm),
        Func::Sinh => x.sinh_prec_round_ref(p, rm),
        Func::Cosh => x.cosh_prec_round_ref(p, rm),
        Func::Tanh => x.tanh_prec_round_ref(p, rm),
        Func::Asinh => x.asinh_prec_round_ref(p, rm),
        Func::Acosh => x.acosh_prec_round_ref(p, rm),
        Func::Atanh => x.atanh_prec_round_ref(p, rm),
        Func::Asin => x.asin_prec_round_ref(p, rm),
        Func::Acos => x.acos_prec_round_ref(p, rm),
    }
}

/// `f(a, b)` by malachite-float's own function, rounded to `p` bits in `rm`.
pub fn malachite_func2(
    f: Func2,
    a: &Float,
    b: &Float,
    p: u64,
    rm: RoundingMode,
) -> (Float, Ordering) {
    match f {
        Func2::Atan2 => a.atan2_prec_round_ref_ref(b, p, rm),
        Func2::Hypot => a.hypot_prec_round_ref_ref(b, p, rm),
        Func2::Pow => a.pow_prec_round_ref_ref(b, p, rm),
        Func2::Agm => a.agm_prec_round_ref_ref(b, p, rm),
    }
}

/// Rounds the interval `v +- err` to `p` bits in `rm` if both ends agree.
pub fn round_iv(a: &Approx, p: u64, rm: RoundingMode) -> Option<(Float, Ordering)> {
    let v = Rational::try_from(&a.v).ok()?;
    let e = Rational::try_from(&a.err).ok()?;
    let lo = Float::from_rational_prec_round(&v - &e, p, rm);
    let hi = Float::from_rational_prec_round(&v + &e, p, rm);
    if ComparableFloatRef(&lo.0) == ComparableFloatRef(&hi.0)
        && lo.1 == hi.1
        && lo.1 != Ordering::Equal
    {
        Some(lo)
    } else {
        None
    }
}

/// The correctly rounded value of `f(x)` for a finite nonzero `x` (not an
/// exact case), in every mode.
pub fn reference(f: Func, x: &Float, p: u64) -> Vec<(Float, Ordering)> {
    if let Some(q) = exact(f, x) {
        return Round::ALL
            .iter()
            .map(|&r| Float::from_rational_prec_round(q.clone(), p, to_rounding_mode(r)))
            .collect();
    }
    let mut pp = 2 * p.max(x.get_prec().unwrap_or(1)) + 128;
    if !Func::ALL[..9].contains(&f) {
        // malachite's exact results (perfect cubes, acosh(1), ...).
        let (v, o) = malachite_func(f, x, pp, RoundingMode::Nearest);
        if o == Ordering::Equal {
            return Round::ALL
                .iter()
                .map(|&r| {
                    let rm = to_rounding_mode(r);
                    if v.is_finite() && v != Float::ZERO {
                        Float::from_rational_prec_round(Rational::try_from(&v).unwrap(), p, rm)
                    } else {
                        (v.clone(), Ordering::Equal)
                    }
                })
                .collect();
        }
    }
    loop {
        let a = reference_at(f, x, pp);
        let r: Option<Vec<_>> = Round::ALL
            .iter()
            .map(|&r| round_iv(&a, p, to_rounding_mode(r)))
            .collect();
        if let Some(r) = r {
            return r;
        }
        pp *= 2;
        assert!(
            pp < 1 << 18,
            "reference did not converge for {f:?}({x}) at {p} bits"
        );
    }
}

/// The exact results (rational: the only ones for finite nonzero `x`, by
/// Lindemann-Weierstrass and Gelfond-Schneider): log(1) = 0, 2^k for
/// integers k, log2(2^k) = k, log10(10^k) = k.
pub fn exact(f: Func, x: &Float) -> Option<Rational> {
    let q = Rational::try_from(x).ok()?;
    let is_int = |q: &Rational| *q.denominator_ref() == 1u32;
    let pow2 = |q: &Rational| -> Option<i64> {
        if q <= &Rational::ZERO {
            return None;
        }
        let (n, d) = (q.numerator_ref(), q.denominator_ref());
        if n.is_power_of_2() && d.is_power_of_2() {
            Some(n.significant_bits() as i64 - d.significant_bits() as i64)
        } else {
            None
        }
    };
    match f {
        Func::Log if q == 1u32 => Some(Rational::ZERO),
        Func::Exp2 if is_int(&q) => {
            let k = i64::try_from(&Integer::rounding_from(&q, RoundingMode::Exact).0).ok()?;
            Some(Rational::power_of_2(k))
        }
        Func::Log2 => pow2(&q).map(Rational::from),
        Func::Log10 if is_int(&q) && q > 0u32 => {
            let mut n = q.numerator_ref().clone();
            let mut k = 0i64;
            while &n % malachite_nz::natural::Natural::from(10u32) == 0u32 {
                n /= malachite_nz::natural::Natural::from(10u32);
                k += 1;
            }
            (n == 1u32).then(|| Rational::from(k))
        }
        _ => None,
    }
}

/// A constant at precision `pp` from the reference's series.
pub fn reference_const(c: Const, pp: u64) -> Approx {
    let ctx = Ctx { p: pp };
    match c {
        Const::Pi => ref_pi(&ctx),
        Const::Ln2 => ref_ln2(&ctx),
        Const::E => ref_e(&ctx),
        Const::Ln10 => ref_log(&ctx, &ctx.int(10)),
    }
}

/// `a / b` with `|b.v| > 2 b.err`: error `(a.err + |v| b.err) / (|b.v| -
/// b.err)` plus the division's rounding, doubled.
fn ap_div(c: &Ctx, a: &Approx, b: &Approx) -> Approx {
    let v = c.div(&a.v, &b.v);
    let num = c.add(&a.err, &c.mul(&v.clone().abs(), &b.err));
    let den = c.sub(&b.v.clone().abs(), &b.err);
    let err = c.add(&c.div(&num, &den), &c.mul(&v.clone().abs(), &c.eps()));
    Approx {
        err: c.mul(&err, &c.int(2)),
        v,
    }
}
