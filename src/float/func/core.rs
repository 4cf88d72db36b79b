//! The per-element cores: special and exact cases, tiny-argument fast paths,
//! and the fixed-point evaluations with proven error bounds.
//!
//! Notation: `x = M * 2^sx` exactly (`M` the mantissa limbs as an integer,
//! `sx = ex - 64n`), `W` the fixed-point precision (a few guard bits above
//! the working precision `w`), "unit" one `2^-W` (or the stated scale).
//! Every truncation (shift, division by a small integer) costs < 1 unit.
//! Small arguments are kept *scaled*: `z = Z * 2^-(W+c)` with
//! `2^(W-3) <= Z <= 2^W`, so relative precision survives any exponent.
//! Each bound below is what the interval's half-width `E` is set to.

use malachite_base::num::arithmetic::traits::{FloorSqrt, PowerOf2, UnsignedAbs};
use malachite_base::num::logic::traits::SignificantBits;
use malachite_nz::integer::Integer;
use malachite_nz::natural::Natural;

use super::consts::{Const, LOG_TAB_MAX, LOG_TAB_MIN, fixed, fixed_int, log_tab};
use super::fix::{self, Tmp};
use super::{Eval, Func, Interval, mant, write_exact, write_special};
use crate::float::round::{Out, Round, finish};
use crate::float::{Class, EMAX, EMIN, Elem};

/// `n * 2^k` (floor for negative `k`).
fn shift(n: &Natural, k: i64) -> Natural {
    if k >= 0 {
        n << k as u64
    } else {
        n >> (-k) as u64
    }
}

fn signed(neg: bool, n: Natural) -> Integer {
    Integer::from_sign_and_abs(!neg, n)
}

fn one() -> Natural {
    Natural::from(1u32)
}

/// Bits of `w` (a log2 bound used in guard bits).
fn lg(w: u64) -> u64 {
    64 - w.leading_zeros() as u64
}

pub(crate) fn eval(f: Func, out: &mut Out, x: &Elem, w: u64, p: u64, rnd: Round) -> Eval {
    match f {
        Func::Exp => exp(out, x, w, p, rnd),
        Func::Log => log(out, x, w, Some(p)),
        Func::Sin => sin_cos(out, x, w, p, rnd, false),
        Func::Cos => sin_cos(out, x, w, p, rnd, true),
        Func::Atan => atan(out, x, w, p),
        Func::Tan => tan(out, x, w, p),
        Func::Exp2 => exp2(out, x, w, p, rnd),
        Func::Log2 => log_base(out, x, w, p, rnd, false),
        Func::Log10 => log_base(out, x, w, p, rnd, true),
        Func::Cbrt => super::inverse::cbrt(out, x, p, rnd),
        Func::Expm1 => super::hyper::expm1(out, x, w, p, rnd),
        Func::Log1p => super::hyper::log1p(out, x, w, p),
        Func::Sinh => super::hyper::sinh(out, x, w, p, rnd),
        Func::Cosh => super::hyper::cosh(out, x, w, p, rnd),
        Func::Tanh => super::hyper::tanh(out, x, w, p, rnd),
        Func::Asinh => super::hyper::asinh(out, x, w, p),
        Func::Acosh => super::hyper::acosh(out, x, w),
        Func::Atanh => super::hyper::atanh(out, x, w, p),
        Func::Asin => super::inverse::asin(out, x, w, p),
        Func::Acos => super::inverse::acos(out, x, w),
    }
}

/// `x` minus (or plus, for negative `x`) an infinitesimal below `|x|^3`:
/// the open interval between `x` and `x - |x| 2^-L` with `L = max(p+3, bits
/// of x)`, valid (MPFR's fast path for sin, atan, tan, ...) when the next
/// series term `|x|^3/k` (k >= 3) is below one unit `2^(ex-L)`, i.e. when
/// `2 ex <= -L`. Returns `None` when `x` is not that small.
fn tiny_odd(x: &Elem, p: u64) -> Option<Interval> {
    let (m, _) = mant(x);
    let bits = 64 * x.limbs.len() as u64;
    // p + 3: `X' - 1` keeps p + 2 bits when x is a power of two.
    let l = (p + 3).max(bits);
    if 2 * x.exp > -(l as i64) {
        return None;
    }
    let xm = m << (l - bits);
    let (lo, hi) = (&xm - one(), xm);
    let (lo, hi) = if x.neg {
        (signed(true, hi), signed(true, lo))
    } else {
        (Integer::from(lo), Integer::from(hi))
    };
    Some(Interval {
        lo,
        hi,
        s: x.exp - l as i64,
    })
}

/// `(1 - 2^-L, 1)` or `(1, 1 + 2^-L)` with `L = p + 2`: a value within
/// `2^-L` of 1 on a known side rounds like any point of that interval.
fn near_one(p: u64, above: bool) -> Interval {
    let l = p + 2;
    let u = Natural::power_of_2(l);
    let (lo, hi) = if above {
        (u.clone(), u + one())
    } else {
        (&u - one(), u)
    };
    Interval {
        lo: Integer::from(lo),
        hi: Integer::from(hi),
        s: -(l as i64),
    }
}

/// Overflow (`big`) or underflow of a positive result whose exponent is far
/// outside the range.
fn out_of_range(out: &mut Out, neg: bool, big: bool, p: u64, rnd: Round) -> Eval {
    let n = out.m.len();
    out.m.fill(0);
    out.m[n - 1] = 1 << 63;
    let e = if big { EMAX + 100 } else { EMIN - 100 };
    Eval::Done(finish(out, neg, e, -1, false, p, rnd))
}

/// exp. Reduction `x = k ln2 + r`, `|r| <= 0.35`; Taylor series for
/// `t = r/2^s`, then `s` squarings; result `exp(r) 2^k`.
///
/// Bound: `R` (r in units of 2^-W) from `X - k L` at `W+40` bits has error
/// `< 1 + 2|k|` units there (|k| < 2^33), so `< 2` units after the shift.
/// Each term `T_j = floor(floor(T_{j-1} R / 2^(W+s)) / j)` carries at most 4
/// units (|t| < 1/2); the tail after the first zero term is < 5; the error
/// of `t` moves exp(t) by < 3: `delta_0 <= 4N + 8`. Squaring `y -> y^2`
/// (y in [0.70, 1.42]) maps a relative error rho (in units) to `2 rho + 2.1`,
/// so after `s` squarings the error is `< 1.42 * 2^s (delta_0 / 0.7 + 2.1)
/// <= 2^(s+4) (N + 3)`.
fn exp(out: &mut Out, x: &Elem, w: u64, p: u64, rnd: Round) -> Eval {
    match x.class {
        Class::NaN => return write_special(out, Class::NaN, false),
        Class::Inf if x.neg => return write_special(out, Class::Zero, false),
        Class::Inf => return write_special(out, Class::Inf, false),
        Class::Zero => return Eval::Done(write_exact(out, false, &one(), 0, p, rnd)),
        Class::Normal => {}
    }
    let ex = x.exp;
    if ex > 32 {
        // |x| >= 2^32: exp(x) > 2^(2^32 / ln 2 / 2) or its inverse.
        return out_of_range(out, false, !x.neg, p, rnd);
    }
    if ex <= -(p as i64 + 3) {
        // |x| < 2^-(p+3): exp(x) in (1, 1 + 2|x|) or (1 - |x|, 1).
        return Eval::Approx(near_one(p, !x.neg));
    }
    let (s, big_w) = exp_params(w);
    let (m, sx) = mant(x);
    let f = big_w + 40;
    let xf = signed(x.neg, shift(&m, sx + f as i64));
    let top = x.limbs[x.limbs.len() - 1] as f64 * (2f64).powi(ex as i32 - 64);
    let xd = if x.neg { -top } else { top };
    let k = (xd / std::f64::consts::LN_2).round() as i64;
    let l = fixed_int(Const::Ln2, f);
    let r = (xf - Integer::from(k) * l) >> 40u64;
    Eval::Approx(exp_tail(&r, k, s, big_w))
}

/// The reduction depth `s` and fixed-point precision `W` of exp at `w`.
fn exp_params(w: u64) -> (u64, u64) {
    let s = ((w as f64).sqrt() * 0.3) as u64 + 1;
    (s, w + s + 8 + lg(w + s))
}

/// `exp(r) 2^k` from `R = r 2^W` with error < 2 units, `|r| <= 0.35`.
fn exp_tail(r: &Integer, k: i64, s: u64, big_w: u64) -> Interval {
    // Taylor in t = r / 2^(W+s): `term = (term * r) >> sh` (a floor shift of
    // the signed product), then `term /= j` (toward zero), on magnitudes in
    // `fix` buffers: a negative product's magnitude is shifted with a
    // ceiling. Terms alternate in sign when r < 0; y sums them as
    // (2^W + positive terms) - (negative terms).
    let sh = big_w + s;
    let rneg = *r < 0u32;
    let rl = fix::limbs(r.unsigned_abs_ref());
    let mut t = Tmp::default();
    let mut next = Vec::new();
    let (mut y, n) = if rl.len() >= SERIES_BLOCKS_T {
        // By blocks: within `err` of the series (tail included) at this
        // exact t; with the error of t (< 3) that is within 4n + 8 for
        // this n.
        let (y, err, _) = fix::ratio_series(&rl, s, big_w, rneg, |j| j, &mut t);
        (y, err.div_ceil(4) + 1)
    } else {
        let mut term = Vec::new();
        fix::set_pow2(&mut term, big_w);
        let mut y = term.clone();
        let mut negs = Vec::new();
        let mut n = 0u64;
        for j in 1u64.. {
            let neg = rneg && j % 2 == 1;
            if fix::mul_shr(&mut next, &term, &rl, sh, &mut t) && neg {
                fix::inc(&mut next);
            }
            fix::div_small(&mut next, j);
            std::mem::swap(&mut term, &mut next);
            if term.is_empty() {
                break;
            }
            fix::add_to(if neg { &mut negs } else { &mut y }, &term);
            n += 1;
        }
        fix::sub_from(&mut y, &negs);
        (y, n)
    };
    for _ in 0..s {
        fix::sqr_shr(&mut next, &y, big_w, &mut t);
        std::mem::swap(&mut y, &mut next);
    }
    let e = (n + 3) << (s + 4);
    Interval::around(Integer::from(fix::nat(y)), e, k - big_w as i64)
}

/// log. `x = y' 2^e'` with `y'` in `[0.70, 1.42)`, `log y' = 2 atanh(z)`,
/// `z = d/(2+d)`, `d = y' - 1` exact, `|z| <= 0.18`, kept scaled
/// (`c = -exponent(d)`): `Z` error < 1 unit (one division), `Z2 = z^2` < 2,
/// powers < 1.1 each, `A = sum z^2j/(2j+1)` < 2N + 2, `2 Z A` < `4N + 8`
/// units of `2^-(W+c)`. With `e' != 0` the sum `e' ln2 + log y'` in units of
/// `2^-W`: < 2 (ln2 at W+72 bits times |e'| < 2^31) + (4N+8)/2 + 1 + 1.
///
/// With `fast = Some(p)` (log itself, not log2/log10): x within `2^-L` of 1
/// (`x = 1 + d`, `L = max(p + 3, bits of d)`) is decided at once, as
/// [`tiny_odd`] does: `d - d^2 < log(1 + d) < d` and `d^2` is below one
/// unit of `d` at `L` bits, so the value is in `(D - 1, D)` units (d > 0) or
/// `(-D - 1, -D)` (d < 0) with `|d| = D 2^(ed - L)`. (MPFR computes these
/// with a precision of about `-ed` bits: seconds for `1 + 2^-1000000`.)
fn log(out: &mut Out, x: &Elem, w: u64, fast: Option<u64>) -> Eval {
    match x.class {
        Class::NaN => return write_special(out, Class::NaN, false),
        Class::Zero => return write_special(out, Class::Inf, true),
        _ if x.neg => return write_special(out, Class::NaN, false),
        Class::Inf => return write_special(out, Class::Inf, false),
        Class::Normal => {}
    }
    let nl = x.limbs.len();
    let (m, _) = mant(x);
    let f0 = 64 * nl as u64;
    if x.exp == 1 && m == Natural::power_of_2(f0 - 1) {
        return write_special(out, Class::Zero, false);
    }
    // y = M 2^-f0 in [1/2, 1); below 1/sqrt(2) take 2y.
    let dbl = x.limbs[nl - 1] < 0xB504_F333_F9DE_6484;
    let e1 = x.exp - dbl as i64;
    let big_w = w + 12 + lg(w);
    let yv = Integer::from(m << dbl as u64);
    let d = &yv - Integer::from(Natural::power_of_2(f0));
    let ln2_part = |bw: u64| -> Integer {
        let l = fixed_int(Const::Ln2, bw + 72);
        (Integer::from(e1) * l) >> 72u64
    };
    if d == 0u32 {
        // x = 2^e1 (e1 != 0): e1 ln 2, error < 2 units.
        return Eval::Approx(Interval::around(ln2_part(big_w), 3, -(big_w as i64)));
    }
    if let Some(p) = fast
        && e1 == 0
    {
        let db = d.unsigned_abs_ref().significant_bits();
        let ed = db as i64 - f0 as i64; // |d| in [2^(ed-1), 2^ed)
        let l = (p + 3).max(db);
        if ed <= -(l as i64) {
            let dd = d.unsigned_abs_ref() << (l - db);
            let (lo, hi) = if d < 0u32 {
                (signed(true, &dd + one()), signed(true, dd))
            } else {
                (Integer::from(&dd - one()), Integer::from(dd))
            };
            return Eval::Approx(Interval {
                lo,
                hi,
                s: ed - l as i64,
            });
        }
    }
    // The series for y = 1 + d 2^-f0 (d != 0, |z| <= 0.18): `log y` scaled,
    // in units of 2^-(W+c), with its error bound `e`.
    let series = |d: Integer, f0: u64, big_w: u64| -> (Integer, u64, u64) {
        let dneg = d < 0u32;
        let dabs = d.unsigned_abs_ref().clone();
        let ed = dabs.significant_bits() as i64 - f0 as i64; // |d| in [2^(ed-1), 2^ed)
        let c = (-ed) as u64;
        let den = Integer::from(Natural::power_of_2(f0 + 1)) + d;
        let den = den.unsigned_abs();
        let z = (&dabs << (big_w + c)) / den;
        let z2 = (&z * &z) >> (big_w + 2 * c);
        let (z2l, mut t) = (fix::limbs(&z2), Tmp::default());
        let (a, n) = if z2l.len() >= SERIES_BLOCKS_T {
            // By blocks: within `err` of the series at this exact z^2; the
            // error of Z2 (< 2) moves the sum by < 0.8 (derivative < 0.4), so
            // the total is below 2n + 2 for this n.
            let (a, err, _) = fix::inv_series(&z2l, big_w, false, |j| 2 * j + 1, &mut t);
            (a, err.div_ceil(2) + 1)
        } else {
            let mut a = Vec::new();
            fix::set_pow2(&mut a, big_w);
            let mut pw = a.clone();
            let (mut next, mut q) = (Vec::new(), Vec::new());
            let mut n = 0u64;
            for j in 1u64.. {
                fix::mul_shr(&mut next, &pw, &z2l, big_w, &mut t);
                std::mem::swap(&mut pw, &mut next);
                if pw.is_empty() {
                    break;
                }
                q.clone_from(&pw);
                fix::div_small(&mut q, 2 * j + 1);
                fix::add_to(&mut a, &q);
                n += 1;
            }
            (a, n)
        };
        let a = fix::nat(a);
        let ly = signed(dneg, (&z * &a) >> (big_w - 1));
        (ly, c, 4 * n + 8)
    };
    // Table reduction: y (1 + i/64) within 1/128 of 1 (exact: `64 + i` is a
    // small factor), `log y = log(y (1 + i/64)) - log(1 + i/64)`, the table
    // entry within 2 units; then `|log y| > 2^-8` (y is not within 1/128
    // of 1), so 8 more bits cover the absolute error. Error (units of
    // 2^-W'): e/2^c + 1 (the scaled series, shifted), 2 (table), 2 + 1
    // (e1 ln 2), below e + 8. Near 1 (i = 0) the scaled series directly.
    let yf = x.limbs[nl - 1] as f64 * if dbl { 2.0 } else { 1.0 } / 18446744073709551616.0;
    let i = ((64.0 / yf - 64.0).round() as i64).clamp(LOG_TAB_MIN, LOG_TAB_MAX);
    if i != 0 {
        let bw = big_w + 8;
        let d2 = yv * Integer::from(64 + i) - Integer::from(Natural::power_of_2(f0 + 6));
        let (ly, c, e) = series(d2, f0 + 6, bw);
        let mut t = (ly >> c) - signed(i < 0, log_tab(i, bw));
        if e1 != 0 {
            t += ln2_part(bw);
        }
        return Eval::Approx(Interval::around(t, e + 8, -(bw as i64)));
    }
    let (ly, c, e) = series(d, f0, big_w);
    if e1 == 0 {
        return Eval::Approx(Interval::around(ly, e, -((big_w + c) as i64)));
    }
    let t = ln2_part(big_w) + (ly >> c);
    Eval::Approx(Interval::around(t, e + 4, -(big_w as i64)))
}

/// sin and cos. Tiny `x`: MPFR's fast paths (`sin x` in `(x - |x|^3, x)`,
/// `cos x` in `(1 - x^2/2, 1)`). `|x| < 1`: `r = x`, scaled. Else
/// `k = round(x / (pi/2))`, `r = x - k pi/2` with pi at `W + ex + 12` bits
/// (error < 2^(ex+2) units there), the precision raised until `r` has
/// `W + 4` significant bits beyond that error, so the scaled `Z` has error
/// < 2 units. Series in `z^2` (`Z2` error < 7): each term < 4 units, so
/// `A = sin(z)/z` < 4N + 4, `sin z = Z A` < 4N + 8 units of `2^-(W+c)`;
/// `B = cos z` < 4N + 4 units of `2^-W`. The quadrant `k mod 4` picks
/// +-sin r or +-cos r.
fn sin_cos(out: &mut Out, x: &Elem, w: u64, p: u64, rnd: Round, cos: bool) -> Eval {
    match x.class {
        Class::NaN | Class::Inf => return write_special(out, Class::NaN, false),
        Class::Zero if cos => return Eval::Done(write_exact(out, false, &one(), 0, p, rnd)),
        Class::Zero => return write_special(out, Class::Zero, x.neg),
        Class::Normal => {}
    }
    if cos {
        if 2 * x.exp <= 1 - (p as i64 + 2) {
            return Eval::Approx(near_one(p, false));
        }
    } else if let Some(iv) = tiny_odd(x, p) {
        return Eval::Approx(iv);
    }
    let big_w = w + 10 + lg(w);
    let (z, c, rneg, q) = reduce(x, big_w);
    let z2 = (&z * &z) >> (big_w + 2 * c);
    // Which series, and the sign: sin(x) = [s, c, -s, -c][q],
    // cos(x) = [c, -s, -c, s][q] with s = sin r, c = cos r.
    let (use_cos, neg_out) = match (cos, q) {
        (false, 0) => (false, false),
        (false, 1) => (true, false),
        (false, 2) => (false, true),
        (false, _) => (true, true),
        (true, 0) => (true, false),
        (true, 1) => (false, true),
        (true, 2) => (true, true),
        (true, _) => (false, false),
    };
    if use_cos {
        let (a, e) = cos_r(&z2, big_w);
        Eval::Approx(Interval::around(signed(neg_out, a), e, -(big_w as i64)))
    } else {
        let (v, e) = sin_r(&z, &z2, big_w);
        let v = signed(neg_out != rneg, v);
        Eval::Approx(Interval::around(v, e, -((big_w + c) as i64)))
    }
}

/// Exponents from which [`reduce`] multiplies by a window of 2/pi
/// ([`reduce_huge`]) instead of dividing by pi.
pub(crate) const REDUCE_HUGE_T: i64 = 256;

/// The reduction of sin/cos/tan: `x = q pi/2 + r (mod 2 pi)` with `r` as
/// `(Z, c, sign)`, `|r| = Z 2^-(W+c)`, Z < 2 units of error.
fn reduce(x: &Elem, big_w: u64) -> (Natural, u64, bool, u64) {
    let (m, sx) = mant(x);
    let ex = x.exp;
    if ex <= 0 {
        return (
            shift(&m, big_w as i64 - 64 * x.limbs.len() as i64),
            (-ex) as u64,
            x.neg,
            0u64,
        );
    }
    if ex >= REDUCE_HUGE_T {
        return reduce_huge(x, big_w);
    }
    let mut fr = big_w + ex as u64 + 12;
    loop {
        let pi2 = fixed(Const::Pi, fr - 1);
        let xa = shift(&m, sx + fr as i64);
        let k = ((&xa << 1u64) + &pi2) / (&pi2 << 1u64);
        let r = Integer::from(xa) - Integer::from(&k * &pi2);
        let b = r.unsigned_abs_ref().significant_bits();
        let need = big_w + ex as u64 + 6;
        if b < need {
            fr += need - b + 16;
            continue;
        }
        let rneg = (r < 0u32) != x.neg;
        let z = r.unsigned_abs() >> (b - big_w);
        let q = k.to_limbs_asc().first().copied().unwrap_or(0) & 3;
        // x negative: x = -(k pi/2 + r'), so the quadrant of -k.
        let q = if x.neg { (4 - q) & 3 } else { q };
        return (z, fr - b, rneg, q);
    }
}

/// [`reduce`] for a large exponent (Payne and Hanek's method): `t = |x| 2/pi
/// mod 4` from the bits of 2/pi that matter, `q = round(t)`, `r = (t - q)
/// pi/2`. With `P` (`|P - 2^F 2/pi| < 2`, `F = ex + W + extra`) and `x = M
/// 2^sx` (`M < 2^nb`), `t = (M P + eps) u` with `u = 2^(sx-F)` and `|eps| <
/// 2^(nb+1)`; bits of `P` from `L = F - sx + 2` up add multiples of 4 to
/// `t`, so `T = M (P mod 2^L) mod 2^L` gives `t mod 4 = (T + eps) u`, and
/// `D = T - q 2^(L-2)` gives `r = (D + eps) u pi/2`. With pi/2 as `H` at `G`
/// bits (error < 2), `R = |D| H` is within `E = 2|D| + 2^(nb+1) (H + 2)`
/// of `|r| 2^(L-2+G)`; when `E < 2^s` with `s = bits(R) - W`, `Z = R >> s`
/// is within 2 units and `D + eps` has the sign of `D`. Otherwise (x near a
/// multiple of pi/2: `D` cancelled) `F` grows. The cost is 2/pi to `F` bits
/// (cached, by [`super::consts::chudnovsky`]) and products of `nb`, `W`
/// and `L - F + ex` bits, whatever the exponent.
fn reduce_huge(x: &Elem, big_w: u64) -> (Natural, u64, bool, u64) {
    use malachite_base::num::arithmetic::traits::ModPowerOf2;
    let (m, _) = mant(x);
    let ex = x.exp as u64;
    let nb = 64 * x.limbs.len() as u64;
    let g = big_w + 8;
    let h = fixed(Const::Pi, g - 1);
    let mut extra = 16u64;
    loop {
        let l = big_w + extra + nb + 2; // F - sx + 2 with F = ex + W + extra
        let pl = super::consts::two_over_pi_low(ex + big_w + extra, l);
        let t = (&m * pl).mod_power_of_2(l);
        let q = (&t + Natural::power_of_2(l - 3)) >> (l - 2);
        let d = Integer::from(t) - Integer::from(&q << (l - 2));
        let r = d.unsigned_abs_ref() * &h;
        let e = (d.unsigned_abs_ref() << 1u64) + ((&h + Natural::from(2u32)) << (nb + 1));
        let (br, be) = (r.significant_bits(), e.significant_bits());
        if br < be + big_w + 1 {
            // E < 2^(be) <= 2^s fails: more bits of 2/pi.
            extra += be + big_w + 1 - br + 16;
            continue;
        }
        let s = br - big_w;
        let rneg = (d < 0u32) != x.neg;
        let q = q.to_limbs_asc().first().copied().unwrap_or(0) & 3;
        let q = if x.neg { (4 - q) & 3 } else { q };
        return (r >> s, l - 2 + g - br, rneg, q);
    }
}

/// Limbs of the series' argument from which the series run by blocks
/// ([`fix::ratio_series`]); below, term by term.
pub(crate) const SERIES_BLOCKS_T: usize = 3;

/// `sum (-1)^j z^2j / d_j` (d_j = (2j)! or (2j+1)!) in units of 2^-W, and
/// the number of terms.
fn trig_sum(z2: &Natural, big_w: u64, cos: bool) -> (Integer, u64) {
    let (z2l, mut t) = (fix::limbs(z2), Tmp::default());
    if z2l.len() >= SERIES_BLOCKS_T {
        // By blocks: within `err` of the series at this exact z^2; the
        // error of Z2 (< 7 units) moves the sum by < 7/6 (sin: the
        // derivative is below 1/6) or < 3.5 (cos: 1/2), so the total is
        // below 4n + 4 for this n, the bound the callers use.
        let d = move |j: u64| {
            if cos {
                (2 * j - 1) * (2 * j)
            } else {
                (2 * j) * (2 * j + 1)
            }
        };
        let (a, err, _) = fix::ratio_series(&z2l, 0, big_w, true, d, &mut t);
        return (Integer::from(fix::nat(a)), (err + 4) / 4 + 1);
    }
    let mut term = Vec::new();
    fix::set_pow2(&mut term, big_w);
    let mut pos = term.clone();
    let (mut negs, mut next) = (Vec::new(), Vec::new());
    let mut n = 0u64;
    for j in 1u64.. {
        let d = if cos {
            (2 * j - 1) * (2 * j)
        } else {
            (2 * j) * (2 * j + 1)
        };
        fix::mul_shr(&mut next, &term, &z2l, big_w, &mut t);
        fix::div_small(&mut next, d);
        std::mem::swap(&mut term, &mut next);
        if term.is_empty() {
            break;
        }
        fix::add_to(if j % 2 == 1 { &mut negs } else { &mut pos }, &term);
        n += 1;
    }
    (
        Integer::from(fix::nat(pos)) - Integer::from(fix::nat(negs)),
        n,
    )
}

/// `|sin r|` in units of `2^-(W+c)` and its error bound.
fn sin_r(z: &Natural, z2: &Natural, big_w: u64) -> (Natural, u64) {
    let (a, n) = trig_sum(z2, big_w, false);
    ((z * a.unsigned_abs()) >> big_w, 4 * n + 8)
}

/// `cos r` in units of `2^-W` and its error bound.
fn cos_r(z2: &Natural, big_w: u64) -> (Natural, u64) {
    let (a, n) = trig_sum(z2, big_w, true);
    (a.unsigned_abs(), 4 * n + 4)
}

/// tan = sin r / cos r (even quadrant) or -cos r / sin r (odd), the
/// quotient's interval from the two intervals (rounded outward). Tiny `x`:
/// `tan x` in `(x, x + |x|^3)`.
fn tan(out: &mut Out, x: &Elem, w: u64, p: u64) -> Eval {
    match x.class {
        Class::NaN | Class::Inf => return write_special(out, Class::NaN, false),
        Class::Zero => return write_special(out, Class::Zero, x.neg),
        Class::Normal => {}
    }
    if let Some(iv) = tiny_odd(x, p) {
        // tan x is on the other side of x than sin x: (x, x + unit).
        let d = if x.neg {
            &iv.lo - &iv.hi
        } else {
            &iv.hi - &iv.lo
        };
        return Eval::Approx(Interval {
            lo: &iv.lo + &d,
            hi: &iv.hi + &d,
            s: iv.s,
        });
    }
    let big_w = w + 12 + lg(w);
    let (z, c, rneg, q) = reduce(x, big_w);
    let z2 = (&z * &z) >> (big_w + 2 * c);
    let (sv, se) = sin_r(&z, &z2, big_w);
    let (cv, ce) = cos_r(&z2, big_w);
    let (se, ce) = (Natural::from(se), Natural::from(ce));
    let s_iv = (&sv - &se, sv + se);
    let c_iv = (&cv - &ce, cv + ce);
    let bw = big_w as i64;
    let (lo, hi, sc, neg) = if q % 2 == 0 {
        // |tan r| = (S/C) 2^-c.
        let lo = (&s_iv.0 << big_w) / &c_iv.1;
        let hi = ((&s_iv.1 << big_w) + &c_iv.0 - one()) / &c_iv.0;
        (lo, hi, -(bw + c as i64), rneg)
    } else {
        // |cot r| = (C/S) 2^c.
        let lo = (&c_iv.0 << big_w) / &s_iv.1;
        let hi = ((&c_iv.1 << big_w) + &s_iv.0 - one()) / &s_iv.0;
        (lo, hi, c as i64 - bw, !rneg)
    };
    let (lo, hi) = if neg {
        (signed(true, hi), signed(true, lo))
    } else {
        (Integer::from(lo), Integer::from(hi))
    };
    Eval::Approx(Interval { lo, hi, s: sc })
}

/// `sum (-1)^j z^2j / (2j+1)` in units of `2^-W` from `Z2 = z^2 2^W`, and the
/// number of terms.
fn atan_sum(z2: &Natural, big_w: u64) -> (Integer, u64) {
    let (z2l, mut t) = (fix::limbs(z2), Tmp::default());
    let mut pw = Vec::new();
    fix::set_pow2(&mut pw, big_w);
    let mut pos = pw.clone();
    let (mut negs, mut next, mut q) = (Vec::new(), Vec::new(), Vec::new());
    let mut n = 0;
    for j in 1u64.. {
        fix::mul_shr(&mut next, &pw, &z2l, big_w, &mut t);
        std::mem::swap(&mut pw, &mut next);
        if pw.is_empty() {
            break;
        }
        q.clone_from(&pw);
        fix::div_small(&mut q, 2 * j + 1);
        fix::add_to(if j % 2 == 1 { &mut negs } else { &mut pos }, &q);
        n += 1;
    }
    (
        Integer::from(fix::nat(pos)) - Integer::from(fix::nat(negs)),
        n,
    )
}

/// atan. Tiny `x`: `(x - |x|^3, x)`. `|x| < 1/4` or `|x| >= 4` (then
/// `pi/2 - atan(1/|x|)`): scaled series, `Z` < 1 unit, `Z2` < 1.2, powers
/// < 2.4, `A` < 3N + 3, `Z A` < 3N + 5 units of `2^-(W+c)`; with pi/2 at W
/// bits (< 2) the difference is < 3N + 8 units of `2^-W`. Otherwise
/// absolute fixed point: `z` in [1/4, 1] (`1/|x|` when `|x| > 1`), four
/// halvings `z -> z / (1 + sqrt(1 + z^2))` (each maps an error d to
/// `0.75 d + 1.25`, so <= 5 stays <= 5) to `z <= 0.05`, series
/// (< 2N + 9), times 16, and pi/2 (< 2): `E = 16 (2N + 9) + 2`.
fn atan(out: &mut Out, x: &Elem, w: u64, p: u64) -> Eval {
    match x.class {
        Class::NaN => return write_special(out, Class::NaN, false),
        Class::Zero => return write_special(out, Class::Zero, x.neg),
        Class::Inf => {
            let c = signed(x.neg, fixed(Const::Pi, w));
            return Eval::Approx(Interval::around(c, 2, -(w as i64 + 1)));
        }
        Class::Normal => {}
    }
    if let Some(iv) = tiny_odd(x, p) {
        return Eval::Approx(iv);
    }
    let big_w = w + 16 + lg(w);
    let nl = x.limbs.len() as i64;
    let (m, sx) = mant(x);
    let ex = x.exp;
    let bw = big_w as i64;
    if ex <= -2 || ex >= 3 {
        let (z, c) = if ex <= -2 {
            (shift(&m, bw - 64 * nl), (-ex) as u64)
        } else {
            (
                Natural::power_of_2(big_w + 64 * nl as u64 - 1) / &m,
                (ex - 1) as u64,
            )
        };
        let z2 = (&z * &z) >> (big_w + 2 * c);
        let (a, n) = atan_sum(&z2, big_w);
        let v = (Integer::from(z) * a) >> big_w;
        if ex <= -2 {
            let v = signed(x.neg, v.unsigned_abs());
            return Eval::Approx(Interval::around(v, 3 * n + 6, -((big_w + c) as i64)));
        }
        let t = fixed_int(Const::Pi, big_w - 1) - (v >> c);
        let t = signed(x.neg, t.unsigned_abs());
        return Eval::Approx(Interval::around(t, 3 * n + 8, -bw));
    }
    // 1/4 <= |x| < 4.
    let one_w = Natural::power_of_2(big_w);
    let inv = ex >= 1 && !(ex == 1 && m == Natural::power_of_2(64 * nl as u64 - 1));
    let mut z = if inv {
        Natural::power_of_2((bw + 64 * nl - ex) as u64) / &m
    } else {
        shift(&m, sx + bw)
    };
    for _ in 0..4 {
        let s = (Natural::power_of_2(2 * big_w) + &z * &z).floor_sqrt();
        z = (&z << big_w) / (&one_w + s);
    }
    let z2 = (&z * &z) >> big_w;
    let (a, n) = atan_sum(&z2, big_w);
    let v = (Integer::from(z) * a) >> (big_w - 4);
    let v = if inv {
        fixed_int(Const::Pi, big_w - 1) - v
    } else {
        v
    };
    let v = signed(x.neg, v.unsigned_abs());
    Eval::Approx(Interval::around(v, 16 * (2 * n + 9) + 2, -bw))
}

/// exp2. Integers are exact (`2^x`, then the range check); otherwise
/// `x = k + f`, `|f| <= 1/2`, `2^f = exp(f ln 2)` with `R = f ln2 2^W`
/// from the exact `f` at `W+40` bits times ln 2 at `W+40` bits (error
/// `< 0.5*2 + 0.7 + 1 < 2` units after the shift), then exp's tail.
fn exp2(out: &mut Out, x: &Elem, w: u64, p: u64, rnd: Round) -> Eval {
    match x.class {
        Class::NaN => return write_special(out, Class::NaN, false),
        Class::Inf if x.neg => return write_special(out, Class::Zero, false),
        Class::Inf => return write_special(out, Class::Inf, false),
        Class::Zero => return Eval::Done(write_exact(out, false, &one(), 0, p, rnd)),
        Class::Normal => {}
    }
    let ex = x.exp;
    let (m, sx) = mant(x);
    if ex > 32 {
        return out_of_range(out, false, !x.neg, p, rnd);
    }
    if sx + m.trailing_zeros().unwrap_or(0) as i64 >= 0 {
        // An integer (|x| < 2^32): 2^x exactly.
        let k = i64::try_from(&shift(&m, sx)).unwrap_or(0);
        let k = if x.neg { -k } else { k };
        return Eval::Done(write_exact(out, false, &one(), k, p, rnd));
    }
    if ex <= -(p as i64 + 3) {
        return Eval::Approx(near_one(p, !x.neg));
    }
    let (s, big_w) = exp_params(w);
    let f = big_w + 40;
    let xf = signed(x.neg, shift(&m, sx + f as i64));
    // k = round(x) (ties either way), f = x - k.
    let half = Integer::from(Natural::power_of_2(f - 1));
    let k = (&xf + half) >> f;
    let ff = xf - (&k << f);
    let l = fixed_int(Const::Ln2, f);
    let r = (ff * l) >> (big_w + 80);
    let k = i64::try_from(&k).unwrap_or(0);
    Eval::Approx(exp_tail(&r, k, s, big_w))
}

/// `a / b` for an interval `b` of positive values, rounded outward, with
/// the quotient keeping about as many bits as `a`.
fn div_iv(a: &Interval, b: &Interval) -> Interval {
    use malachite_base::num::arithmetic::traits::DivRound;
    use malachite_base::rounding_modes::RoundingMode::{Ceiling, Floor};
    let k = b.hi.significant_bits() + 4;
    let (dlo, dhi) = if a.lo > 0u32 {
        (&b.hi, &b.lo)
    } else if a.hi < 0u32 {
        (&b.lo, &b.hi)
    } else {
        (&b.lo, &b.lo)
    };
    let lo = (&a.lo << k).div_round(dlo, Floor).0;
    let hi = (&a.hi << k).div_round(dhi, Ceiling).0;
    Interval {
        lo,
        hi,
        s: a.s - b.s - k as i64,
    }
}

/// log2 and log10: exact for powers of 2 (log2) and of 10 (log10, `10^k`
/// with `k >= 1` an integer; log(1) = +0 either way), else `log x` divided
/// by the interval of ln 2 or ln 10 (`(L-2, L+2) 2^-W`).
fn log_base(out: &mut Out, x: &Elem, w: u64, p: u64, rnd: Round, ten: bool) -> Eval {
    if x.class == Class::Normal && !x.neg {
        let (m, sx) = mant(x);
        let tz = m.trailing_zeros().unwrap_or(0);
        let odd = &m >> tz;
        let v2 = sx + tz as i64;
        if !ten && odd == 1u32 {
            let k = v2;
            if k != 0 {
                return Eval::Done(write_exact(
                    out,
                    k < 0,
                    &Natural::from(k.unsigned_abs()),
                    0,
                    p,
                    rnd,
                ));
            }
        }
        if ten && v2 >= 1 && v2 <= 64 * x.limbs.len() as i64 {
            use malachite_base::num::arithmetic::traits::Pow;
            let j = v2 as u64;
            let ob = odd.significant_bits();
            if ob + 3 >= (j as f64 * 5f64.log2()) as u64
                && ob <= (j as f64 * 5f64.log2()) as u64 + 3
                && odd == Natural::from(5u32).pow(j)
            {
                return Eval::Done(write_exact(out, false, &Natural::from(j), 0, p, rnd));
            }
        }
    }
    let iv = match log(out, x, w, None) {
        Eval::Done(t) => return Eval::Done(t),
        Eval::Approx(iv) => iv,
    };
    let bw = w + 12;
    let c = if ten { Const::Ln10 } else { Const::Ln2 };
    let den = Interval::around(fixed_int(c, bw), 2, -(bw as i64));
    Eval::Approx(div_iv(&iv, &den))
}
