//! pow (mpc_pow): `x^y = exp(y log x)` on the principal branch, each part
//! correctly rounded, with GNU MPC 1.3.1's special cases and signs of zero.
//!
//! The order of decisions is MPC's, because it fixes which rule gives a zero
//! part its sign:
//! 1. `y = 0`: `1 +- 0i` (the sign from `|x|` against 1 and the signs of
//!    `x` and `y`), even when `x` is NaN;
//! 2. `x` or `y` not finite, or `x = 0`: MPC's composition
//!    `exp(y * log x)` with the inner values at 2 bits (the special-value
//!    rules of log, mul and exp decide);
//! 3. `x` real: `1^y = 1`; a real result (`y` real and an integer, or
//!    `x >= 0`) from the real pow; results known to be real or imaginary
//!    (`(-1)^(n + it)`, negative `x` to a half-integer);
//!    `x` not real: `(+-i)^y` and `(it)^n`, `(t +- it)^(2n)`;
//! 4. `y` real: exact results (Gaussian integers times powers of two:
//!    repeated exact square roots, then the power) rounded once;
//! 5. otherwise Ziv's loop on intervals of `exp(y log x)`, a part far
//!    beyond the exponent range decided by bounds (MPFR's overflow or
//!    underflow in that part's mode), a forced-zero part getting MPC's sign.

use malachite_base::num::arithmetic::traits::CheckedSqrt;
use malachite_base::num::logic::traits::{BitAccess, SignificantBits};
use malachite_nz::integer::Integer;
use malachite_nz::natural::Natural;

use super::func::{CFunc, arg_iv, eval, exp_scaled, log2e_lower};
use super::scalar::{self, F, Iv, Part, ziv};
use super::{CRound, arith};
use crate::float::func::{Func, Func2};
use crate::float::{EMAX, EMIN, Round};

type R2 = Result<[Part; 2], String>;

fn exact(x: F) -> Part {
    (x, 0)
}

/// `x` is a (finite) integer; zero counts.
fn is_integer(x: &F) -> bool {
    if x.is_zero() {
        return true;
    }
    x.is_normal() && x.exp >= low_bit(x)
}

/// The exponent of the unit in `x`'s lowest set mantissa bit, counted from
/// the top: `x` is an integer iff `exp >= low_bit`.
fn low_bit(x: &F) -> i64 {
    let tz: u64 = match x.m.iter().position(|&l| l != 0) {
        Some(i) => 64 * i as u64 + x.m[i].trailing_zeros() as u64,
        None => 0,
    };
    64 * x.m.len() as i64 - tz as i64
}

/// `y 2^k` is an odd integer.
fn is_odd(y: &F, k: i64) -> bool {
    y.is_normal() && y.exp + k >= 1 && low_bit(y) == y.exp + k
}

/// `x` as `m 2^e` with `m` odd (zero: `(0, 0)`).
fn int_exp(x: &F) -> (Integer, i64) {
    if !x.is_normal() {
        return (Integer::from(0), 0);
    }
    let n = Natural::from_limbs_asc(&x.m);
    let tz = n.trailing_zeros().unwrap_or(0);
    let m = Integer::from(n >> tz);
    let e = x.exp - 64 * x.m.len() as i64 + tz as i64;
    (if x.neg() { -m } else { m }, e)
}

/// `(a + ib)^2`.
fn gsqr(a: &Integer, b: &Integer) -> (Integer, Integer) {
    (a * a - b * b, (a * b) << 1u64)
}

/// Divides both by their common power of two, added to `e`.
fn strip2(a: &mut Integer, b: &mut Integer, e: &mut i64) {
    let t = match (a.trailing_zeros(), b.trailing_zeros()) {
        (Some(x), Some(y)) => x.min(y),
        (Some(x), None) | (None, Some(x)) => x,
        (None, None) => 0,
    };
    *a >>= t;
    *b >>= t;
    *e += t as i64;
}

/// An exact square root `a + ib` of `c + id` with `a >= 0` in Gaussian
/// integers, with MPC's choice of root (mpc_perfect_square_p): `d = 0`
/// needs `c = -b^2` (`x = 0 + ib`, `b > 0`); else `a = sqrt((c + |z|) / 2)`,
/// `b = d / 2a`.
fn gsqrt(c: &Integer, d: &Integer) -> Option<(Integer, Integer)> {
    if *d == 0 {
        if *c >= 0 {
            return None;
        }
        let b = Natural::try_from(-c).ok()?.checked_sqrt()?;
        return Some((Integer::from(0), Integer::from(b)));
    }
    if d.trailing_zeros() == Some(0) {
        return None;
    }
    let n = Natural::try_from(c * c + d * d).ok()?.checked_sqrt()?;
    let s = c + Integer::from(n);
    if s.trailing_zeros().is_some_and(|t| t == 0) {
        return None;
    }
    let a = Natural::try_from(s >> 1u64).ok()?.checked_sqrt()?;
    let a = Integer::from(a);
    let b = (d >> 1u64) / &a;
    Some((a, b))
}

/// `x^y` for real `y` when it is a Gaussian integer times a power of two
/// (mpc_pow_exact): `Some((a, b, e))` with `x^y = (a + ib) 2^e`; `None` when
/// it is not representable or needs more than `max_bits` bits.
fn exact_pow(x: &(F, F), y: &F, max_bits: u64) -> Option<(Integer, Integer, i64)> {
    let (mut my, mut ey) = int_exp(y);
    let (mut c, ec0) = int_exp(&x.0);
    let (mut d, ed0) = int_exp(&x.1);
    // x = (c + id) 2^ec, exponents equalized.
    let mut ec = if x.0.is_zero() {
        ed0
    } else if x.1.is_zero() {
        ec0
    } else {
        ec0.min(ed0)
    };
    if !x.0.is_zero() {
        c <<= (ec0 - ec) as u64;
    }
    if !x.1.is_zero() {
        d <<= (ed0 - ec) as u64;
    }
    if c.significant_bits().max(d.significant_bits()) > max_bits {
        return None;
    }
    strip2(&mut c, &mut d, &mut ec);
    while ey < 0 {
        if ec & 1 != 0 {
            c <<= 1u64;
            d <<= 1u64;
            ec -= 1;
        }
        let (a, b) = gsqrt(&c, &d)?;
        c = a;
        d = b;
        ec /= 2;
        ey += 1;
    }
    if my < 0 {
        // 1/(c + id) = (c - id) / (c^2 + d^2): exact iff c^2 + d^2 = 2^t.
        let n = &c * &c + &d * &d;
        let t = n.trailing_zeros()?;
        if n.significant_bits() != t + 1 {
            return None;
        }
        d = -d;
        ec = -ec - t as i64;
        my = -my;
    }
    // (c + id)^my by squaring from the top bit, then ey squarings.
    let (mut a, mut b, mut e) = (c.clone(), d.clone(), ec);
    let top = my.significant_bits();
    for t in (0..top.saturating_sub(1)).rev() {
        (a, b) = gsqr(&a, &b);
        e = e.checked_mul(2)?;
        if my.get_bit(t) {
            let u = &a * &c - &b * &d;
            b = &b * &c + &a * &d;
            a = u;
            e += ec;
        }
        strip2(&mut a, &mut b, &mut e);
        if a.significant_bits().max(b.significant_bits()) > max_bits || e.abs() > 1 << 40 {
            return None;
        }
    }
    for _ in 0..ey {
        if a == 1 && b == 0 && e == 0 {
            break; // 1 squared stays 1 (units reach it in two squarings)
        }
        (a, b) = gsqr(&a, &b);
        e = e.checked_mul(2)?;
        strip2(&mut a, &mut b, &mut e);
        if a.significant_bits().max(b.significant_bits()) > max_bits || e.abs() > 1 << 40 {
            // Too big, or certainly out of range: left to Ziv's loop,
            // which decides overflow and underflow by bounds.
            return None;
        }
    }
    Some((a, b, e))
}

/// `m 2^e` rounded as MPC does it: `m` rounded to `p` bits (that ternary is
/// kept), then scaled by `2^e` (which may overflow or underflow).
fn round_scaled(m: &Integer, e: i64, p: u64, rnd: Round) -> Part {
    if *m == 0 {
        return exact(F::zero(false));
    }
    let neg = *m < 0;
    let mut mag = Natural::try_from(if neg { -m } else { m.clone() })
        .expect("a magnitude")
        .to_limbs_asc();
    // m exactly, then m 2^e rounded once (with the exponent range: a
    // result that underflows gets its ternary from this one rounding).
    let bits = m.significant_bits().max(1);
    let (f, _) = F::run(bits, |o| {
        crate::float::round_int(o, neg, &mut mag, 0, false, bits, Round::Nearest)
    });
    scalar::set(&f.scale(e), p, rnd)
}

/// `y mod 4` for an integer `y` as MPC computes it (its fix_sign: for a
/// negative odd `y` the two's-complement bits give `4 - (-y mod 4)`).
fn ymod4(y: &F) -> Option<u32> {
    let (my, ey) = int_exp(y);
    match ey {
        e if e >= 2 => Some(0),
        1 => Some(2),
        0 => {
            let r = 2 * my.get_bit(1) as u32 + my.get_bit(0) as u32;
            Some(if my < 0 { 4 - r } else { r })
        }
        _ => None,
    }
}

/// MPC's fix_sign: the sign of a zero part of `(eps + ia)^y` for integer
/// `y` (`eps` is `x`'s zero real part, `a` its imaginary part).
fn fix_sign(z: &mut [Part; 2], sign_eps: bool, sign_a: bool, y: &F) {
    let Some(m) = ymod4(y) else {
        return;
    };
    if z[0].0.is_zero() {
        if (m == 3 && !sign_eps) || (m == 1 && sign_eps) {
            z[0].0 = z[0].0.negate();
        }
    } else if z[1].0.is_zero() && ((m == 0 && sign_a == sign_eps) || (m == 2 && sign_a != sign_eps))
    {
        z[1].0 = z[1].0.negate();
    }
}

/// The sign of `|x| - 1` as MPC decides it (the norm rounded to 53 bits and
/// its ternary; NaN gives 0).
fn cmp_norm_one(x: &(F, F)) -> i32 {
    let (n, t) = arith::norm(x, 53, Round::Nearest);
    let c = match n.cmp(&F::one(false)) {
        Some(o) => o as i32,
        None => 0,
    };
    if c == 0 && t != 0 { -(t as i32) } else { c }
}

/// The imaginary sign of a real result `x^y` (algorithms.tex): `+-0` by
/// `|x|` against 1 and the signs of `x` and `y`.
fn sign_zi(x: &(F, F), y: &(F, F)) -> bool {
    match cmp_norm_one(x) {
        c if c < 0 => !y.1.neg(),
        0 => x.1.neg() != y.0.neg(),
        _ => y.1.neg(),
    }
}

/// `1 + 0i` with the imaginary zero negated when `neg` or in RNDD.
fn unit(neg: bool, rnd: CRound) -> [Part; 2] {
    let im_neg = neg || rnd.im == Round::Down;
    [exact(F::one(false)), exact(F::zero(im_neg))]
}

/// MPC's composition for special operands: `exp(y * log x)` with the
/// intermediate values at 2 bits, to nearest.
fn compose(x: &(F, F), y: &(F, F), pr: u64, pi: u64, rnd: CRound, cap: u64) -> R2 {
    let nn = CRound::both(Round::Nearest);
    let [l0, l1] = eval(CFunc::Log, x, 2, 2, nn, cap)?;
    let [m0, m1] = arith::mul(&(l0.0, l1.0), y, 2, 2, nn);
    eval(CFunc::Exp, &(m0.0, m1.0), pr, pi, rnd, cap)
}

/// `e^t s` for `t` in `tr`, `s` in `sv` (sin or cos), when it is certainly
/// beyond the exponent range: a value far outside it with the right sign,
/// which rounds as MPFR's overflow or underflow does.
fn beyond(tr: &Iv, sv: &Iv) -> Option<F> {
    let big = |v: &F| v.is_normal() && v.exp >= 30;
    if !big(&tr.lo) || !big(&tr.hi) || tr.lo.neg() != tr.hi.neg() {
        return None;
    }
    let neg = if sv.positive() {
        false
    } else if sv.negative() {
        true
    } else {
        return None;
    };
    let (s_lo, s_hi) = (sv.lo.abs(), sv.hi.abs());
    let (small, large) = match s_lo.cmp(&s_hi)? {
        std::cmp::Ordering::Greater => (s_hi, s_lo),
        _ => (s_lo, s_hi),
    };
    let far = |k: i64| F::one(neg).scale(k);
    if !tr.lo.neg() {
        // log2 |e^t s| > lo log2(e) + exp(small) - 1.
        let l = log2e_lower(&tr.lo) + (small.exp - 1) as f64;
        (l > EMAX as f64 + 2.0).then(|| far(1 << 40))
    } else {
        // log2 |e^t s| < -|hi| log2(e) + exp(large).
        let u = -log2e_lower(&tr.hi) + large.exp as f64;
        (u < EMIN as f64 - 2.0).then(|| far(-(1 << 40)))
    }
}

/// `[f(lo) - (hi - lo), f(lo) + (hi - lo)]` for `f = cos` or `sin` (both
/// 1-Lipschitz), an interval that holds `f` over `[lo, hi]`.
fn trig_iv(f: Func, t: &Iv, w: u64) -> Iv {
    let base = Iv::of_fn(f, &t.lo, w);
    if t.lo == t.hi {
        return base;
    }
    let d = scalar::sub(&t.hi, &t.lo, w, Round::Up).0;
    Iv {
        lo: scalar::sub(&base.lo, &d, w, Round::Down).0,
        hi: scalar::add(&base.hi, &d, w, Round::Up).0,
    }
}

/// Intervals of `log x` (`log |x|`, `arg x`) at `w` bits; `x` finite,
/// nonzero.
fn log_iv(x: &(F, F), w: u64) -> (Iv, Iv) {
    let (a, b) = x;
    let re = if b.is_zero() || a.is_zero() {
        let m = if b.is_zero() { a.abs() } else { b.abs() };
        Iv::of_fn(Func::Log, &m, w)
    } else {
        let (a2, b2) = (scalar::sqr_exact(a), scalar::sqr_exact(b));
        let s = match scalar::add_exact(&a2, &b2, scalar::EXACT_BITS) {
            Some(n) => Iv::point(n),
            None => Iv::point(a2).add(&Iv::point(b2), w),
        };
        s.mono(Func::Log, w).scale(-1)
    };
    (re, arg_iv(x, w))
}

/// Intervals of `t = y log x` (real and imaginary parts) at `w` bits.
fn t_iv(x: &(F, F), y: &(F, F), w: u64) -> (Iv, Iv) {
    let (lr, li) = log_iv(x, w);
    let (c, d) = (Iv::point(y.0.clone()), Iv::point(y.1.clone()));
    if y.1.is_zero() {
        (c.mul(&lr, w), c.mul(&li, w))
    } else {
        (
            c.mul(&lr, w).sub(&d.mul(&li, w), w),
            c.mul(&li, w).add(&d.mul(&lr, w), w),
        )
    }
}

/// `2^62 ln 2`: below `Re t = -FAR`, MPC 1.3.1's exp (inside its pow)
/// rounds an underflow toward zero in every mode (notes/complex.md).
const FAR: i64 = 3_196_577_161_300_663_808;

/// Decides the parts of `e^t` that underflow beyond `Re t < -FAR` (toward
/// zero, with the sign of cos or sin of `Im t`), refining until the sign
/// is known.
fn far_underflow(x: &(F, F), y: &(F, F), pre: &mut [Option<Part>; 2], p: u64, cap: u64) {
    // |t| <= |y| (|log |x|| + pi) < 2^(ey + bits(|ex| + 1) + 2): most
    // operands are far from 2^61 and skip the intervals.
    let ex = x.0.exp.max(x.1.exp).unsigned_abs() + 1;
    let ey = y.0.exp.max(y.1.exp);
    if ey + (64 - ex.leading_zeros() as i64) + 2 < 61 {
        return;
    }
    let far = scalar::from_int(-FAR);
    let mut w = scalar::start_prec(p);
    while w <= cap && (pre[0].is_none() || pre[1].is_none()) {
        let (tr, ti) = t_iv(x, y, w);
        if tr.hi.cmp(&far) != Some(std::cmp::Ordering::Less) {
            return; // not certainly that far
        }
        for (k, f) in [(0, Func::Cos), (1, Func::Sin)] {
            if pre[k].is_none() {
                let s = trig_iv(f, &ti, w);
                if s.positive() || s.negative() {
                    let neg = s.negative();
                    pre[k] = Some((F::zero(neg), if neg { 1 } else { -1 }));
                }
            }
        }
        w *= 2;
    }
}

/// mpc_pow.
pub(super) fn pow(x: &(F, F), y: &(F, F), pr: u64, pi: u64, rnd: CRound, cap: u64) -> R2 {
    let (a, b) = x;
    let (c, d) = y;
    let x_real = b.is_zero();
    let y_real = d.is_zero();
    let fin = |v: &F| v.is_normal() || v.is_zero();
    // 1.
    if y_real && c.is_zero() {
        if x_real && a.is_zero() {
            return Ok(unit(false, CRound::both(Round::Nearest)));
        }
        return Ok(unit(sign_zi(x, y), rnd));
    }
    // 2.
    if !fin(a) || !fin(b) || !fin(c) || !fin(d) || (x_real && a.is_zero()) {
        return compose(x, y, pr, pi, rnd, cap);
    }
    // 3.
    let (mut z_real, mut z_imag) = (false, false);
    let one = F::one(false);
    let minus_one = F::one(true);
    let eq = |u: &F, v: &F| u.cmp(v) == Some(std::cmp::Ordering::Equal);
    if x_real {
        if eq(a, &one) {
            return Ok(unit(c.neg() != b.neg(), rnd));
        }
        if y_real && (is_integer(c) || !a.neg()) {
            let re = scalar::func2(Func2::Pow, a, c, pr, rnd.re);
            if re.0.is_nan() {
                return Err("pow: no correctly rounded real part".into());
            }
            let im_neg = rnd.im == Round::Down || c.neg() != b.neg();
            return Ok([re, exact(F::zero(im_neg))]);
        }
        if eq(a, &minus_one) && is_integer(c) {
            z_real = true;
        }
        if a.neg() && is_odd(c, 1) && (y_real || eq(a, &minus_one)) {
            z_imag = true;
        }
    } else {
        let unit_i = a.is_zero() && (eq(b, &one) || eq(b, &minus_one));
        if (unit_i || (a.is_zero() && y_real)) && is_integer(c) {
            if is_odd(c, 0) {
                z_imag = true;
            } else {
                z_real = true;
            }
        } else if eq(&a.abs(), &b.abs()) && y_real && is_integer(c) && !is_odd(c, 0) {
            if is_odd(c, -1) {
                z_imag = true;
            } else {
                z_real = true;
            }
        }
    }
    let x_imag = a.is_zero();
    // 4. Exact results; MPC looks for them only when its first
    // approximation cannot be rounded, so a part that is not representable
    // takes the inexact path's zero signs.
    if y_real && let Some((ea, eb, e)) = exact_pow(x, c, cap) {
        let mut z = [
            round_scaled(&ea, e, pr, rnd.re),
            round_scaled(&eb, e, pi, rnd.im),
        ];
        let fits = |m: &Integer, p: u64, r: Round| {
            let bits = m.significant_bits() - m.trailing_zeros().unwrap_or(0);
            bits <= p + (r == Round::Nearest) as u64
        };
        let inexact_path = (z_real && !fits(&ea, pr, rnd.re)) || (z_imag && !fits(&eb, pi, rnd.im));
        if !inexact_path {
            if x_imag {
                fix_sign(&mut z, a.neg(), b.neg(), c);
            }
            return Ok(z);
        }
        return Ok(forced_zero(z, x, y, z_real, x_real, x_imag, y_real, rnd));
    }
    // 5.
    let mut pre = [
        z_imag.then(|| exact(F::zero(false))),
        z_real.then(|| exact(F::zero(false))),
    ];
    far_underflow(x, y, &mut pre, pr.max(pi), cap);
    let z = ziv(pre, [pr, pi], [rnd.re, rnd.im], cap, |w, need| {
        let (tr, ti) = t_iv(x, y, w);
        let (e, k) = exp_scaled(&tr, w);
        let part = |f: Func| {
            let s = trig_iv(f, &ti, w);
            match beyond(&tr, &s) {
                Some(v) => Iv::point(v),
                None => e.mul(&s, w).scale(k),
            }
        };
        [
            need[0].then(|| part(Func::Cos)),
            need[1].then(|| part(Func::Sin)),
        ]
    })?;
    if !z_real && !z_imag {
        return Ok(z);
    }
    Ok(forced_zero(z, x, y, z_real, x_real, x_imag, y_real, rnd))
}

/// A result known to be real (`z_real`) or imaginary: the other part is
/// zero with the sign MPC gives it on its inexact path.
#[allow(clippy::too_many_arguments)]
fn forced_zero(
    mut z: [Part; 2],
    x: &(F, F),
    y: &(F, F),
    z_real: bool,
    x_real: bool,
    x_imag: bool,
    y_real: bool,
    rnd: CRound,
) -> [Part; 2] {
    if z_real {
        z[1] = exact(F::zero(false));
        // MPC 1.3.1 leaves +0 for every real y (found by running it:
        // `(t + ti)^(2n)` too), then fixes the sign for real or imaginary x.
        if y_real {
            if x_real || x_imag {
                fix_sign(&mut z, x.0.neg(), x.1.neg(), &y.0);
            }
        } else if rnd.im == Round::Down || sign_zi(x, y) {
            z[1].0 = F::zero(true);
        }
    } else {
        z[0] = exact(F::zero(false));
        if y_real && x_imag {
            fix_sign(&mut z, x.0.neg(), false, &y.0);
        }
    }
    z
}
