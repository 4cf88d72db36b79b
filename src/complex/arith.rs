//! Complex arithmetic per element, as GNU MPC: the special values of C99
//! Annex G (G.5.1), MPC's signs of zeros, and each part the exact result
//! rounded once (products are formed exactly with unbounded exponents, so a
//! part `a*c - b*d` is one correctly rounded subtraction).

use super::CRound;
use super::scalar::{self, F, Iv, Part, add_exact, mul_exact, set, sqr_exact};
use crate::float::Round;

/// The sign bit as MPC's signs: -1 or 1.
fn s(x: &F) -> i32 {
    if x.neg() { -1 } else { 1 }
}

/// Infinity of sign `u`, or NaN for `u == 0`.
fn inf_or_nan(u: i32) -> F {
    if u == 0 { F::nan() } else { F::inf(u < 0) }
}

fn has_inf(x: &(F, F)) -> bool {
    x.0.is_inf() || x.1.is_inf()
}

fn has_nan(x: &(F, F)) -> bool {
    x.0.is_nan() || x.1.is_nan()
}

fn is_fin(x: &(F, F)) -> bool {
    !has_inf(x) && !has_nan(x)
}

/// `x + y` or `x - y`, part by part.
pub(super) fn add(x: &(F, F), y: &(F, F), sub: bool, pr: u64, pi: u64, rnd: CRound) -> [Part; 2] {
    if sub {
        [
            scalar::sub(&x.0, &y.0, pr, rnd.re),
            scalar::sub(&x.1, &y.1, pi, rnd.im),
        ]
    } else {
        [
            scalar::add(&x.0, &y.0, pr, rnd.re),
            scalar::add(&x.1, &y.1, pi, rnd.im),
        ]
    }
}

/// `x * y` where `x` has an infinite part (G.5.1: an infinite operand
/// gives an infinite result unless the other operand is 0 or NaN).
fn mul_inf(x: &(F, F), y: &(F, F)) -> [Part; 2] {
    let (xr, xi, yr, yi) = (&x.0, &x.1, &y.0, &y.1);
    let (xrs, xis, yrs, yis) = (s(xr), s(xi), s(yr), s(yi));
    // Signs of the naive real and imaginary parts, 0 where they are NaN.
    let (mut u, mut v) = if has_nan(x) || has_nan(y) {
        (0, 0)
    } else if xr.is_inf() {
        let u = if yr.is_zero()
            || (xi.is_inf() && yi.is_zero())
            || (xi.is_zero() && yi.is_inf())
            || ((xi.is_inf() || yi.is_inf()) && xrs * yrs == xis * yis)
        {
            0
        } else {
            xrs * yrs
        };
        let v = if yi.is_zero()
            || (xi.is_inf() && yr.is_zero())
            || (xi.is_zero() && yr.is_inf())
            // (MPC 1.3.1 tests Im x twice here; its results are the spec.)
            || (xi.is_inf() && xrs * yis != xis * yrs)
        {
            0
        } else {
            xrs * yis
        };
        (u, v)
    } else {
        let u = if yi.is_zero()
            || (xr.is_zero() && yr.is_inf())
            || (yr.is_inf() && xrs * yrs == xis * yis)
        {
            0
        } else {
            -xis * yis
        };
        let v = if yr.is_zero()
            || (xr.is_zero() && yi.is_inf())
            || (yi.is_inf() && xrs * yis != xis * yrs)
        {
            0
        } else {
            xis * yrs
        };
        (u, v)
    };
    if u == 0 && v == 0 {
        // Both naive parts NaN: recover an infinity (G.5.1.6) by counting
        // the infinite parts of x as 1 and the rest as 0.
        let one = |f: &F| i32::from(f.is_inf());
        let (a, b) = (one(xr), one(xi));
        let fin = |f: &F| i32::from(!f.is_zero() && !f.is_nan());
        let (c, d) = if has_inf(y) {
            (one(yr), one(yi))
        } else {
            (fin(yr), fin(yi))
        };
        u = xrs * a * yrs * c - xis * b * yis * d;
        v = xrs * a * yis * d + xis * b * yrs * c;
    }
    [(inf_or_nan(u), 0), (inf_or_nan(v), 0)]
}

/// `x * y` for `Im y == 0`: each part of x times Re y, zeros signed as MPC.
fn mul_real(x: &(F, F), y: &(F, F), pr: u64, pi: u64, rnd: CRound) -> [Part; 2] {
    let (xrs, xis, yrs, yis) = (x.0.neg(), x.1.neg(), y.0.neg(), y.1.neg());
    let mut re = scalar::mul(&x.0, &y.0, pr, rnd.re);
    let mut im = scalar::mul(&x.1, &y.0, pi, rnd.im);
    if re.0.is_zero() {
        re.0 =
            re.0.with_sign(rnd.re == Round::Down || (xrs != yrs && xis == yis));
    }
    if im.0.is_zero() {
        im.0 =
            im.0.with_sign(rnd.im == Round::Down || (xrs != yis && xis != yrs));
    }
    [re, im]
}

/// `x * y` for `Re y == 0` (and both imaginary parts nonzero).
fn mul_imag(x: &(F, F), y: &(F, F), pr: u64, pi: u64, rnd: CRound) -> [Part; 2] {
    let sign = (y.0.neg() != x.1.neg()) && (y.1.neg() != x.0.neg());
    let re = set(&mul_exact(&x.1, &y.1).negate(), pr, rnd.re);
    let mut im = scalar::mul(&x.0, &y.1, pi, rnd.im);
    if im.0.is_zero() {
        im.0 = im.0.with_sign(rnd.im == Round::Down || sign);
    }
    [re, im]
}

/// `x * y` (mpc_mul).
pub(super) fn mul(x: &(F, F), y: &(F, F), pr: u64, pi: u64, rnd: CRound) -> [Part; 2] {
    if has_inf(x) {
        return mul_inf(x, y);
    }
    if has_inf(y) {
        return mul_inf(y, x);
    }
    if has_nan(x) || has_nan(y) {
        return [(F::nan(), 0), (F::nan(), 0)];
    }
    if x.1.is_zero() {
        return mul_real(y, x, pr, pi, rnd);
    }
    if y.1.is_zero() {
        return mul_real(x, y, pr, pi, rnd);
    }
    if x.0.is_zero() {
        return mul_imag(y, x, pr, pi, rnd);
    }
    if y.0.is_zero() {
        return mul_imag(x, y, pr, pi, rnd);
    }
    // All four parts finite and nonzero: exact products, one rounding.
    let (ac, bd) = (mul_exact(&x.0, &y.0), mul_exact(&x.1, &y.1));
    let (ad, bc) = (mul_exact(&x.0, &y.1), mul_exact(&x.1, &y.0));
    [
        scalar::sub(&ac, &bd, pr, rnd.re),
        scalar::add(&ad, &bc, pi, rnd.im),
    ]
}

/// `x^2` (mpc_sqr).
pub(super) fn sqr(x: &(F, F), pr: u64, pi: u64, rnd: CRound) -> [Part; 2] {
    let (a, b) = x;
    if !is_fin(x) {
        if has_nan(x) {
            return [(F::nan(), 0), (F::nan(), 0)];
        }
        let sab = s(a) * s(b);
        return if a.is_inf() {
            if b.is_inf() {
                [(F::nan(), 0), (F::inf(sab < 0), 0)]
            } else if b.is_zero() {
                [(F::inf(false), 0), (F::nan(), 0)]
            } else {
                [(F::inf(false), 0), (F::inf(sab < 0), 0)]
            }
        } else if a.is_zero() {
            [(F::inf(true), 0), (F::nan(), 0)]
        } else {
            [(F::inf(true), 0), (F::inf(sab < 0), 0)]
        };
    }
    let same = a.neg() == b.neg();
    if b.is_zero() {
        return [set(&sqr_exact(a), pr, rnd.re), (F::zero(!same), 0)];
    }
    if a.is_zero() {
        return [set(&sqr_exact(b).negate(), pr, rnd.re), (F::zero(!same), 0)];
    }
    let mut re = scalar::sub(&sqr_exact(a), &sqr_exact(b), pr, rnd.re);
    if re.0.is_zero() {
        // |a| = |b|: MPC gives +0 in every rounding mode.
        re.0 = F::zero(false);
    }
    let im = set(&mul_exact(a, b).scale(1), pi, rnd.im);
    [re, im]
}

/// `|x|^2` (mpc_norm).
pub(super) fn norm(x: &(F, F), p: u64, rnd: Round) -> Part {
    let (a, b) = x;
    if a.is_inf() || b.is_inf() {
        return (F::inf(false), 0);
    }
    if a.is_nan() || b.is_nan() {
        return (F::nan(), 0);
    }
    scalar::add(&sqr_exact(a), &sqr_exact(b), p, rnd)
}

/// The sign of the exact `x + y` (-1, 0, 1) for finite values.
fn sign_of_sum(x: &F, y: &F) -> i32 {
    scalar::add(x, y, 2, Round::Nearest).0.sgn()
}

/// `x / y` (mpc_div).
pub(super) fn div(
    x: &(F, F),
    y: &(F, F),
    pr: u64,
    pi: u64,
    rnd: CRound,
    cap: u64,
) -> Result<[Part; 2], String> {
    let (a, b) = x;
    let (c, d) = y;
    if c.is_zero() && d.is_zero() {
        // x / 0: an infinity of the sign of Re y times each part.
        let inf = F::inf(c.neg());
        return Ok([
            (scalar::mul(&inf, a, 1, rnd.re).0, 0),
            (scalar::mul(&inf, b, 1, rnd.im).0, 0),
        ]);
    }
    if has_inf(x) && is_fin(y) {
        let sa = if a.is_inf() { s(a) } else { 0 };
        let sb = if b.is_inf() { s(b) } else { 0 };
        let term = |k: i32, f: &F| mul_exact(&scalar::from_int(k as i64), f);
        let u = sign_of_sum(&term(sa, c), &term(sb, d));
        let v = sign_of_sum(&term(sb, c), &term(-sa, d));
        return Ok([(inf_or_nan(u), 0), (inf_or_nan(v), 0)]);
    }
    if is_fin(x) && has_inf(y) {
        // Zeros whose signs are those of (a c' + b d', b c' - a d') with
        // c', d' = +-1 for an infinite part, +-0 otherwise (IEEE zeros).
        let unit = |f: &F| {
            if f.is_inf() {
                F::one(f.neg())
            } else {
                F::zero(f.neg())
            }
        };
        let (c1, d1) = (unit(c), unit(d));
        let re = scalar::add(&mul_exact(a, &c1), &mul_exact(b, &d1), 2, Round::Nearest).0;
        let im = scalar::sub(&mul_exact(b, &c1), &mul_exact(a, &d1), 2, Round::Nearest).0;
        return Ok([(F::zero(re.neg()), 0), (F::zero(im.neg()), 0)]);
    }
    if !is_fin(x) || !is_fin(y) {
        return Ok([(F::nan(), 0), (F::nan(), 0)]);
    }
    let (sa, sb, sc, sd) = (a.neg(), b.neg(), c.neg(), d.neg());
    if d.is_zero() {
        let mut re = scalar::div(a, c, pr, rnd.re);
        let mut im = scalar::div(b, c, pi, rnd.im);
        if re.0.is_zero() {
            re.0 = re.0.with_sign(sa != sc && sb != sd);
        }
        if im.0.is_zero() {
            im.0 = im.0.with_sign(sb != sc && sa == sd);
        }
        return Ok([re, im]);
    }
    if c.is_zero() {
        let mut re = scalar::div(b, d, pr, rnd.re);
        let mut im = scalar::div(a, &d.negate(), pi, rnd.im);
        if re.0.is_zero() {
            re.0 = re.0.with_sign(sa != sc && sb != sd);
        }
        if a.is_zero() {
            im.0 = im.0.with_sign(sb != sc && sa == sd);
        }
        return Ok([re, im]);
    }
    if a.is_zero() && b.is_zero() {
        // 0 / y: the zeros of x * conj(y) (rounded toward zero, as MPC).
        let z = mul(x, &(c.clone(), d.negate()), 2, 2, CRound::both(Round::Zero));
        return Ok([(z[0].0.clone(), 0), (z[1].0.clone(), 0)]);
    }
    // (a + bi)(c - di) / (c^2 + d^2): exact numerators and denominator when
    // they fit, then one correctly rounded division per part.
    let (ac, bd) = (mul_exact(a, c), mul_exact(b, d));
    let (bc, ad) = (mul_exact(b, c), mul_exact(a, d));
    let (c2, d2) = (sqr_exact(c), sqr_exact(d));
    let nre = add_exact(&ac, &bd, scalar::EXACT_BITS);
    let nim = add_exact(&bc, &ad.negate(), scalar::EXACT_BITS);
    let den = add_exact(&c2, &d2, scalar::EXACT_BITS);
    let zero_of = |n: &F| {
        // An exact cancellation is +0 (MPC rounds the numerators toward 0).
        if n.is_zero() {
            Some((F::zero(false), 0))
        } else {
            None
        }
    };
    if let (Some(nre), Some(nim), Some(den)) = (&nre, &nim, &den) {
        let re = zero_of(nre).unwrap_or_else(|| scalar::div(nre, den, pr, rnd.re));
        let im = zero_of(nim).unwrap_or_else(|| scalar::div(nim, den, pi, rnd.im));
        return Ok([re, im]);
    }
    let pre = [
        nre.as_ref().and_then(zero_of),
        nim.as_ref().and_then(zero_of),
    ];
    let r = scalar::ziv(pre, [pr, pi], [rnd.re, rnd.im], cap, |w, need| {
        let sum = |x: &F, y: &F| Iv::point(x.clone()).add(&Iv::point(y.clone()), w);
        let den = sum(&c2, &d2);
        [
            need[0].then(|| sum(&ac, &bd).div(&den, w)),
            need[1].then(|| sum(&bc, &ad.negate()).div(&den, w)),
        ]
    })?;
    Ok(r)
}
