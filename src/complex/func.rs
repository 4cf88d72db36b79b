//! Complex elementary functions per element, as GNU MPC: special values
//! (C99 Annex G, with MPC's choices where C99 leaves a sign open), exact
//! cases decided first (a part that is exactly 0, exp(0), sqrt of exact
//! squares, ...), then Ziv's loop on rigorous intervals of both parts
//! ([`scalar::ziv`]).
//!
//! sinh, cosh and tanh are sin, cos and tan of `i z` (MPC's definitions:
//! `sinh z = -i sin(i z)`, `cosh z = cos(i z)`, `tanh z = -i tan(i z)`), with
//! the parts, precisions and rounding modes exchanged accordingly.

use super::CRound;
use super::scalar::{self, F, Iv, Part, add_exact, mul_exact, set, sqr_exact, ziv};
use crate::float::Round;
use crate::float::func::Func;

/// The complex functions built so far.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum CFunc {
    Sqrt,
    Exp,
    Log,
    Sin,
    Cos,
    Tan,
    Sinh,
    Cosh,
    Tanh,
    Atan,
    Asin,
    Acos,
}

impl CFunc {
    pub const ALL: [CFunc; 12] = [
        CFunc::Sqrt,
        CFunc::Exp,
        CFunc::Log,
        CFunc::Sin,
        CFunc::Cos,
        CFunc::Tan,
        CFunc::Sinh,
        CFunc::Cosh,
        CFunc::Tanh,
        CFunc::Atan,
        CFunc::Asin,
        CFunc::Acos,
    ];

    pub fn name(self) -> &'static str {
        match self {
            CFunc::Sqrt => "sqrt",
            CFunc::Exp => "exp",
            CFunc::Log => "log",
            CFunc::Sin => "sin",
            CFunc::Cos => "cos",
            CFunc::Tan => "tan",
            CFunc::Sinh => "sinh",
            CFunc::Cosh => "cosh",
            CFunc::Tanh => "tanh",
            CFunc::Atan => "atan",
            CFunc::Asin => "asin",
            CFunc::Acos => "acos",
        }
    }

    pub fn from_name(s: &str) -> Option<CFunc> {
        CFunc::ALL.into_iter().find(|f| f.name() == s)
    }
}

type R2 = Result<[Part; 2], String>;

pub(super) fn eval(f: CFunc, x: &(F, F), pr: u64, pi: u64, rnd: CRound, cap: u64) -> R2 {
    match f {
        CFunc::Sqrt => sqrt(x, pr, pi, rnd, cap),
        CFunc::Exp => exp(x, pr, pi, rnd, cap),
        CFunc::Log => log(x, pr, pi, rnd, cap),
        CFunc::Sin => trig(Trig::Sin, x, pr, pi, rnd, cap),
        CFunc::Cos => trig(Trig::Cos, x, pr, pi, rnd, cap),
        CFunc::Tan => trig(Trig::Tan, x, pr, pi, rnd, cap),
        CFunc::Sinh => hyp(Trig::Sin, x, pr, pi, rnd, cap),
        CFunc::Cosh => hyp(Trig::Cos, x, pr, pi, rnd, cap),
        CFunc::Tanh => hyp(Trig::Tan, x, pr, pi, rnd, cap),
        CFunc::Atan => atan(x, pr, pi, rnd, cap),
        CFunc::Asin => asin_acos(false, x, pr, pi, rnd, cap),
        CFunc::Acos => asin_acos(true, x, pr, pi, rnd, cap),
    }
}

fn exact(x: F) -> Part {
    (x, 0)
}

fn nan2() -> [Part; 2] {
    [exact(F::nan()), exact(F::nan())]
}

/// `-v` for a part computed as `v` in the mirrored mode.
fn neg_part(p: Part) -> Part {
    (p.0.negate(), -p.1)
}

/// A real function of `|x|` given the sign of the result: `neg` means the
/// result is `-f(|x|)`, rounded in `rnd` (so `f` is rounded in the mirror).
fn signed(neg: bool, rnd: Round, f: impl FnOnce(Round) -> Part) -> Part {
    if neg {
        neg_part(f(rnd.mirror()))
    } else {
        f(rnd)
    }
}

/// One part by Ziv's loop.
fn ziv1(p: u64, rnd: Round, cap: u64, mut f: impl FnMut(u64) -> Iv) -> Result<Part, String> {
    let r = ziv(
        [None, Some(exact(F::zero(false)))],
        [p, 1],
        [rnd, rnd],
        cap,
        |w, _| [Some(f(w)), None],
    )?;
    Ok(r[0].clone())
}

/// `k pi / 2^s` with the sign `neg`, correctly rounded.
fn pi_mul(k: i64, s: i64, neg: bool, p: u64, rnd: Round, cap: u64) -> Result<Part, String> {
    let r = if neg { rnd.mirror() } else { rnd };
    let v = ziv1(p, r, cap, |w| {
        Iv::pi(w).mul(&Iv::point(scalar::from_int(k)), w).scale(-s)
    })?;
    Ok(if neg { neg_part(v) } else { v })
}

/// The sign of `f(x)` (-1 or 1) for a real function that has no zero at a
/// nonzero float (cos, sin).
fn sign_of(f: Func, x: &F) -> bool {
    scalar::func(f, x, 8, Round::Nearest).0.neg()
}

/// sqrt (mpc_sqrt): branch cut on the negative real axis, continuous with
/// the sign of the imaginary part's zero.
fn sqrt(x: &(F, F), pr: u64, pi: u64, rnd: CRound, cap: u64) -> R2 {
    let (a, b) = x;
    if b.is_inf() {
        return Ok([exact(F::inf(false)), exact(F::inf(b.neg()))]);
    }
    if a.is_inf() {
        return Ok(if !a.neg() {
            if b.is_nan() {
                [exact(F::inf(false)), exact(F::nan())]
            } else {
                [exact(F::inf(false)), exact(F::zero(b.neg()))]
            }
        } else if b.is_nan() {
            [exact(F::nan()), exact(F::inf(false))]
        } else {
            [exact(F::zero(false)), exact(F::inf(b.neg()))]
        });
    }
    if a.is_nan() || b.is_nan() {
        return Ok(nan2());
    }
    if b.is_zero() {
        if a.is_zero() {
            return Ok([exact(F::zero(false)), exact(b.clone())]);
        }
        if !a.neg() {
            return Ok([scalar::sqrt(a, pr, rnd.re), exact(b.clone())]);
        }
        let im = signed(b.neg(), rnd.im, |r| scalar::sqrt(&a.abs(), pi, r));
        return Ok([exact(F::zero(false)), im]);
    }
    if a.is_zero() {
        // sqrt(i b) = sqrt(|b|/2) (1 +- i).
        let t = b.abs().scale(-1);
        let im = signed(b.neg(), rnd.im, |r| scalar::sqrt(&t, pi, r));
        return Ok([scalar::sqrt(&t, pr, rnd.re), im]);
    }
    if let Some(r) = sqrt_far(a, b, pr, pi, rnd, cap) {
        return r;
    }
    // With r = sqrt((|a| + |z|) / 2) and q = |b| / (2 r): a > 0 gives
    // r + i sign(b) q, a < 0 gives q + i sign(b) r.
    let (a2, b2) = (sqr_exact(a), sqr_exact(b));
    let norm = add_exact(&a2, &b2, scalar::EXACT_BITS);
    let start = scalar::start_prec(pr.max(pi));
    ziv([None, None], [pr, pi], [rnd.re, rnd.im], cap, |w, _| {
        let s = match &norm {
            Some(n) => Iv::point(n.clone()),
            None => Iv::point(a2.clone()).add(&Iv::point(b2.clone()), w),
        };
        let m = s.sqrt(w);
        let r = m.add(&Iv::point(a.abs()), w).scale(-1).sqrt(w);
        let q = Iv::point(b.abs()).div(&r.scale(1), w);
        let (re, im) = if a.neg() { (q, r) } else { (r, q) };
        let im = if b.neg() { im.neg() } else { im };
        if w > start {
            // An exact root has few bits: try the candidate rounded to
            // half the working precision.
            let (x0, y0) = (
                scalar::candidate(&re.lo, w / 2),
                scalar::candidate(&im.lo, w / 2),
            );
            if is_sqrt(&x0, &y0, a, b) {
                return [Some(Iv::point(x0)), Some(Iv::point(y0))];
            }
        }
        [Some(re), Some(im)]
    })
}

/// sqrt(a + i b) for normal parts so many binades apart that the smaller
/// one moves the root by a factor `1 +- eta`, `0 < eta < 2^-h`, far below
/// every rounding boundary (the general path's intervals would need about
/// `h` bits to see on which side of an exact root the value lies; `h` is
/// up to 2^31). With r = sqrt((|a| + |z|) / 2) and q = |b| / (2 r):
/// - |a| >> |b|, u = (b/a)^2: r = sqrt|a| (1 + eta), q = |b| / (2 sqrt|a|)
///   (1 - eta'), eta, eta' in (0, u/8);
/// - |b| >> |a|, v = |a|/|b|: r = sqrt(|b|/2) (1 + eta), q = sqrt(|b|/2)
///   (1 - eta'), eta, eta' in (0, v).
///
/// Each part is c (1 +- eta) with c the square root of an exact dyadic N.
/// If c is exact, the part rounds as c moved by a sticky bit below every
/// boundary on the known side; else sqrt(N) is at least about
/// 2^-(2 bits(N) + 2 p) away from every boundary (relatively), and Ziv on
/// [c] widened by 2^-h on the known side decides it. `None`: the parts are
/// not that far apart.
fn sqrt_far(a: &F, b: &F, pr: u64, pi: u64, rnd: CRound, cap: u64) -> Option<R2> {
    let (aa, ab) = (a.abs(), b.abs());
    let gap = a.exp - b.exp;
    let need = 4 * (pr + pi + a.bits() + b.bits()) + 256;
    // The parts' roots (None: c = sqrt(|b|/2)), the sign of each part's
    // perturbation, and h.
    let (big, h) = if gap > 0 && (2 * gap - 1) as u64 > need {
        (true, (2 * gap - 1) as u64)
    } else if gap < 0 && (-gap - 1) as u64 > need {
        (false, (-gap - 1) as u64)
    } else {
        return None;
    };
    // r's and q's values as intervals at w bits and exactly when dyadic.
    let half_b = ab.scale(-1);
    let r_iv = |w: u64| Iv::point(if big { aa.clone() } else { half_b.clone() }).sqrt(w);
    let q_iv = |w: u64| {
        if big {
            Iv::point(half_b.clone()).div(&Iv::point(aa.clone()).sqrt(w), w)
        } else {
            r_iv(w)
        }
    };
    let r_ex = sqrt_dyadic(if big { &aa } else { &half_b });
    let q_ex = if big {
        r_ex.as_ref()
            .and_then(|s| div_dyadic(&ab, s))
            .map(|q| q.scale(-1))
    } else {
        r_ex.clone()
    };
    // (value interval, exact value, perturbation upward) per part.
    let (re_up, im_up) = (!a.neg(), a.neg());
    let (re_ex, im_ex) = if a.neg() {
        (&q_ex, &r_ex)
    } else {
        (&r_ex, &q_ex)
    };
    let bneg = b.neg();
    // eta < 2^-h and h > nudge_bits(c, p) (h > 4 (p + bits(c))).
    let pre = [
        re_ex.as_ref().map(|c| nudged(c, re_up, false, pr, rnd.re)),
        im_ex.as_ref().map(|c| nudged(c, im_up, bneg, pi, rnd.im)),
    ];
    let widen = |iv: Iv, up: bool, w: u64| -> Iv {
        if up {
            let hi = scalar::unbounded_add(&iv.hi, &iv.hi.scale(-(h as i64)), false, w, Round::Up);
            Iv { lo: iv.lo, hi }
        } else {
            let lo = scalar::unbounded_add(&iv.lo, &iv.lo.scale(-(h as i64)), true, w, Round::Down);
            Iv { lo, hi: iv.hi }
        }
    };
    Some(ziv(pre, [pr, pi], [rnd.re, rnd.im], cap, |w, need| {
        let part = |j: usize| {
            need[j].then(|| {
                let up = if j == 0 { re_up } else { im_up };
                let is_r = (j == 0) != a.neg();
                let iv = widen(if is_r { r_iv(w) } else { q_iv(w) }, up, w);
                if j == 1 && bneg { iv.neg() } else { iv }
            })
        };
        [part(0), part(1)]
    }))
}

/// The bits `P` of [`nudged`]'s sticky bit for `c` rounded to `p` bits.
fn nudge_bits(c: &F, p: u64) -> u64 {
    (p + 1).max(c.bits()) + 3
}

/// A value `+-c (1 + eta)` (`larger`) or `+-c (1 - eta)`, `c > 0` exact
/// (any exponent), `0 < eta < 2^-P` with `P` = [`nudge_bits`]`(c, p)`,
/// rounded to `p` bits with its ternary (`neg`: the value is negative):
/// `c` moved by `2^(exp(c) - P)` on the value's side lies with the value
/// strictly between `c` and every other number of at most `p + 1` bits
/// (every rounding boundary, those of the exponent range included), so
/// both round alike. This is the side rule for a part a hair beside an
/// exact float, which no closed interval can place: sqrt_far, arg (atan
/// of a tiny exact quotient), log near `|z| = 1`, asin/acos at `+-1 + i b`.
fn nudged(c: &F, larger: bool, neg: bool, p: u64, rnd: Round) -> Part {
    let pp = nudge_bits(c, p);
    let tiny = F::one(!larger).scale(c.exp - pp as i64);
    let moved = add_exact(c, &tiny, pp + 128).expect("a short exact sum");
    set(&moved.with_sign(neg), p, rnd)
}

/// `x / y` when it is a dyadic number (any exponents), for normal `x`, `y`.
fn div_dyadic(x: &F, y: &F) -> Option<F> {
    let (q, t) = scalar::div(
        &x.scale(-x.exp),
        &y.scale(-y.exp),
        x.bits() + 2,
        Round::Nearest,
    );
    (t == 0).then(|| q.scale(x.exp - y.exp))
}

/// The square root of `x > 0` when it is a dyadic number (any exponent).
fn sqrt_dyadic(x: &F) -> Option<F> {
    let k = x.exp.div_euclid(2);
    let (s, t) = scalar::sqrt(&x.scale(-2 * k), x.bits() + 2, Round::Nearest);
    (t == 0).then(|| s.scale(k))
}

/// Is `(x + i y)^2 == a + i b` exactly?
fn is_sqrt(x: &F, y: &F, a: &F, b: &F) -> bool {
    if !x.is_normal() || !y.is_normal() {
        return false;
    }
    let im = mul_exact(x, y).scale(1);
    if im.cmp(b) != Some(std::cmp::Ordering::Equal) {
        return false;
    }
    match add_exact(&sqr_exact(x), &sqr_exact(y).negate(), 1 << 22) {
        Some(re) => re.cmp(a) == Some(std::cmp::Ordering::Equal),
        None => false,
    }
}

/// Overflow (`big`) or underflow of a value of sign `neg`, rounded.
fn out_of_range(neg: bool, big: bool, p: u64, rnd: Round) -> Part {
    let k = if big { 1i64 << 40 } else { -(1i64 << 40) };
    set(&F::one(neg).scale(k), p, rnd)
}

/// An underflow of exp's parts for Re z < -2^62 ln 2: MPC 1.3.1 rounds it
/// toward zero in RNDA (its results are the spec here; above that bound it
/// rounds away, as MPFR does).
fn exp_underflow(neg: bool, p: u64, rnd: Round) -> Part {
    let rnd = if rnd == Round::Away { Round::Zero } else { rnd };
    out_of_range(neg, false, p, rnd)
}

/// exp (mpc_exp): `e^a (cos b + i sin b)`.
fn exp(x: &(F, F), pr: u64, pi: u64, rnd: CRound, cap: u64) -> R2 {
    let (a, b) = x;
    if a.is_nan() {
        return Ok(if b.is_zero() {
            [exact(F::nan()), exact(b.clone())]
        } else {
            nan2()
        });
    }
    if a.is_inf() {
        let fin = !b.is_inf() && !b.is_nan();
        if !a.neg() {
            if b.is_zero() {
                return Ok([exact(F::inf(false)), exact(b.clone())]);
            }
            if !fin {
                return Ok([exact(F::inf(false)), exact(F::nan())]);
            }
            return Ok([
                exact(F::inf(sign_of(Func::Cos, b))),
                exact(F::inf(sign_of(Func::Sin, b))),
            ]);
        }
        if !fin {
            return Ok([exact(F::zero(false)), exact(F::zero(false))]);
        }
        let sin_neg = if b.is_zero() {
            b.neg()
        } else {
            sign_of(Func::Sin, b)
        };
        let cos_neg = !b.is_zero() && sign_of(Func::Cos, b);
        return Ok([exact(F::zero(cos_neg)), exact(F::zero(sin_neg))]);
    }
    if b.is_inf() || b.is_nan() {
        return Ok(nan2());
    }
    if b.is_zero() {
        return Ok([scalar::func(Func::Exp, a, pr, rnd.re), exact(b.clone())]);
    }
    if a.is_zero() {
        return Ok([
            scalar::func(Func::Cos, b, pr, rnd.re),
            scalar::func(Func::Sin, b, pi, rnd.im),
        ]);
    }
    if a.exp >= 30 {
        // |a| >= 2^29: a part whose size is certainly beyond the exponent
        // range is MPFR's overflow or underflow.
        let re = beyond(a, 0, Func::Cos, b, pr, rnd.re);
        let im = beyond(a, 0, Func::Sin, b, pi, rnd.im);
        if re.is_some() || im.is_some() {
            return ziv([re, im], [pr, pi], [rnd.re, rnd.im], cap, |w, need| {
                let (e, k) = exp_scaled(&Iv::point(a.clone()), w);
                [
                    need[0].then(|| e.mul(&Iv::of_fn(Func::Cos, b, w), w).scale(k)),
                    need[1].then(|| e.mul(&Iv::of_fn(Func::Sin, b, w), w).scale(k)),
                ]
            });
        }
    }
    // Near the range's ends e^a leaves it while its parts may not:
    // exp_scaled keeps the scale apart.
    ziv([None, None], [pr, pi], [rnd.re, rnd.im], cap, |w, need| {
        let (e, k) = exp_scaled(&Iv::point(a.clone()), w);
        [
            need[0].then(|| e.mul(&Iv::of_fn(Func::Cos, b, w), w).scale(k)),
            need[1].then(|| e.mul(&Iv::of_fn(Func::Sin, b, w), w).scale(k)),
        ]
    })
}

/// log (mpc_log): `log|z| + i arg z`.
fn log(x: &(F, F), pr: u64, pi: u64, rnd: CRound, cap: u64) -> R2 {
    let (a, b) = x;
    if a.is_nan() || b.is_nan() {
        return Ok(if a.is_inf() || b.is_inf() {
            [exact(F::inf(false)), exact(F::nan())]
        } else {
            nan2()
        });
    }
    let im = arg(x, pi, rnd.im, cap)?;
    if a.is_inf() || b.is_inf() {
        return Ok([exact(F::inf(false)), im]);
    }
    if a.is_zero() && b.is_zero() {
        return Ok([exact(F::inf(true)), im]);
    }
    let re = if b.is_zero() {
        scalar::func(Func::Log, &a.abs(), pr, rnd.re)
    } else if a.is_zero() {
        scalar::func(Func::Log, &b.abs(), pr, rnd.re)
    } else {
        let (a2, b2) = (sqr_exact(a), sqr_exact(b));
        let norm = add_exact(&a2, &b2, scalar::EXACT_BITS);
        // |z|^2 within [1/2, 2]: log1p(|z|^2 - 1) from the sum taken
        // without the cancellation (a tiny part beside |a| = 1 leaves
        // |z|^2 - 1 = b^2, far below any working precision).
        let (u, v) = if a2.exp >= b2.exp {
            (&a2, &b2)
        } else {
            (&b2, &a2)
        };
        let one = Iv::point(F::one(false));
        let near = (u.exp == 0 || u.exp == 1)
            .then(|| log_abs_near_one(u, v, pr, rnd.re))
            .flatten();
        if let Some(re) = near {
            return Ok([re, im]);
        }
        ziv1(pr, rnd.re, cap, |w| {
            if u.exp == 0 || u.exp == 1 {
                let x = Iv::point(u.clone())
                    .sub(&one, w)
                    .add(&Iv::point(v.clone()), w);
                return x.mono(Func::Log1p, w).scale(-1);
            }
            let s = match &norm {
                Some(n) => Iv::point(n.clone()),
                None => Iv::point(a2.clone()).add(&Iv::point(b2.clone()), w),
            };
            s.mono(Func::Log, w).scale(-1)
        })?
    };
    Ok([re, im])
}

/// The argument `atan2(b, a)` (mpc_arg, as mpfr_atan2).
pub(super) fn arg(x: &(F, F), p: u64, rnd: Round, cap: u64) -> Result<Part, String> {
    let (a, b) = x;
    if a.is_nan() || b.is_nan() {
        return Ok(exact(F::nan()));
    }
    let bn = b.neg();
    if b.is_zero() {
        return if a.neg() {
            pi_mul(1, 0, bn, p, rnd, cap)
        } else {
            Ok(exact(b.clone()))
        };
    }
    if b.is_inf() {
        return match (a.is_inf(), a.neg()) {
            (true, false) => pi_mul(1, 2, bn, p, rnd, cap),
            (true, true) => pi_mul(3, 2, bn, p, rnd, cap),
            _ => pi_mul(1, 1, bn, p, rnd, cap),
        };
    }
    if a.is_inf() {
        return if a.neg() {
            pi_mul(1, 0, bn, p, rnd, cap)
        } else {
            Ok(exact(F::zero(bn)))
        };
    }
    if a.is_zero() {
        return pi_mul(1, 1, bn, p, rnd, cap);
    }
    if let Some(v) = arg_tiny(a, b, p, rnd) {
        return Ok(v);
    }
    ziv1(p, rnd, cap, |w| arg_iv(x, w))
}

/// Side rule for `arg(a + i b)`, `a > 0`, when `q = b / a` is an exact
/// dyadic with `q^2 < 2^-P` (`P` = [`nudge_bits`]`(q, p)`): `atan q = q (1 -
/// eta)`, `0 < eta < q^2 / 3`, so the result is `q` nudged toward 0 (the
/// Ziv loop's closed intervals around `q` would need about `2 |exp q|`
/// bits: `arg(1 + 2^-1073741824 i)`, log's imaginary part).
fn arg_tiny(a: &F, b: &F, p: u64, rnd: Round) -> Option<Part> {
    if a.neg() || !a.is_normal() || !b.is_normal() {
        return None;
    }
    // |q| < 2^(b.exp - a.exp + 1): a cheap test before the division.
    if 2 * (b.exp - a.exp + 1) > -((p + 4) as i64) {
        return None;
    }
    let q = div_dyadic(b, a)?;
    (2 * q.exp <= -(nudge_bits(&q, p) as i64)).then(|| nudged(&q.abs(), false, q.neg(), p, rnd))
}

/// Side rule for `log|z| = log1p(u) / 2`, `|z|^2 = 1 + u`, `u = (big^2 - 1)
/// + small^2` exact (`big2`, `small2`: the squared parts) and `|u| < 2^-P`
/// (`P` = [`nudge_bits`]`(u, p)`): `log1p u = u (1 - eta)` for `u > 0` and
/// `u (1 + eta)` for `u < 0`, `0 < eta < |u|`, so the result is `u / 2`
/// nudged toward 0 (`u > 0`) or away from it (`u < 0`).
fn log_abs_near_one(big2: &F, small2: &F, p: u64, rnd: Round) -> Option<Part> {
    let t = add_exact(big2, &F::one(true), scalar::EXACT_BITS)?;
    let u = add_exact(&t, small2, scalar::EXACT_BITS)?;
    if !u.is_normal() || u.exp > -(nudge_bits(&u, p) as i64) {
        return None;
    }
    Some(nudged(&u.abs().scale(-1), u.neg(), u.neg(), p, rnd))
}

/// An interval of `arg x` at `w` bits for finite nonzero `x`: `atan(b/a)`
/// (+- pi), or the multiple of pi/2 when a part is zero.
pub(super) fn arg_iv(x: &(F, F), w: u64) -> Iv {
    let (a, b) = x;
    let bn = b.neg();
    let signed = |t: Iv| if bn { t.neg() } else { t };
    if b.is_zero() {
        return if a.neg() {
            signed(Iv::pi(w))
        } else {
            Iv::point(b.clone())
        };
    }
    if a.is_zero() {
        return signed(Iv::pi(w).scale(-1));
    }
    let t = Iv::point(b.clone())
        .div(&Iv::point(a.clone()), w)
        .mono(Func::Atan, w);
    if !a.neg() {
        t
    } else if bn {
        t.sub(&Iv::pi(w), w)
    } else {
        t.add(&Iv::pi(w), w)
    }
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Trig {
    Sin,
    Cos,
    Tan,
}

/// `[e^x, e^-x]` bounds at `w` bits.
fn exps(x: &F, w: u64) -> (Iv, Iv) {
    (
        Iv::of_fn(Func::Exp, x, w),
        Iv::of_fn(Func::Exp, &x.negate(), w),
    )
}

fn cosh_iv(x: &F, w: u64) -> Iv {
    let (e, ei) = exps(x, w);
    e.add(&ei, w).scale(-1)
}

/// sinh(x) bounds with relative width about `2^-w` whatever the size of x.
fn sinh_iv(x: &F, w: u64) -> Iv {
    if x.is_zero() {
        return Iv::point(x.clone());
    }
    if 2 * x.exp < -(w as i64) - 8 {
        // sinh x = x (1 + d), 0 < d < x^2/5 < 2^-w.
        let t = scalar::add(x, &x.scale(-(w as i64)), w, Round::Up).0;
        let t_lo = scalar::add(x, &x.scale(-(w as i64)), w, Round::Down).0;
        return if x.neg() {
            Iv {
                lo: t_lo,
                hi: x.clone(),
            }
        } else {
            Iv {
                lo: x.clone(),
                hi: t,
            }
        };
    }
    // e^x - e^-x loses about -exp(x) bits to cancellation.
    let w2 = w + (-x.exp).max(0) as u64 + 8;
    let (e, ei) = exps(x, w2);
    e.sub(&ei, w2).scale(-1)
}

/// tanh(x) bounds: sinh(2x) / (1 + cosh(2x)).
fn tanh_iv(x: &F, w: u64) -> Iv {
    let x2 = x.scale(1);
    let den = cosh_iv(&x2, w).add(&Iv::point(F::one(false)), w);
    sinh_iv(&x2, w).div(&den, w)
}

/// `e^t` as `(E, k)` with `e^t` in `E 2^k`: `k = 0` for a moderate `t`;
/// where `|t|` is about the exponent range's size in natural units,
/// `e^t` itself lies outside the range (the float functions round it to
/// an infinity or zero) while its product by cos or sin of the angle may
/// not, so `E = e^(t - k ln 2)` with `k` about `t / ln 2`, and the caller
/// scales the product by `2^k` exactly (unbounded exponents until the
/// final rounding).
pub(super) fn exp_scaled(tr: &Iv, w: u64) -> (Iv, i64) {
    let big = |v: &F| v.is_normal() && v.exp >= 28;
    if !big(&tr.lo) || !big(&tr.hi) || tr.lo.neg() != tr.hi.neg() {
        return (tr.mono(Func::Exp, w), 0);
    }
    // log2e_lower bounds |t| log2(e) from below.
    let m = log2e_lower(&tr.lo).floor() as i64;
    let k = if tr.lo.neg() { -m } else { m };
    // k ln 2 to w + 64 bits (|k| < 2^41: the product's error is far below
    // the interval's width at w bits).
    let w2 = w + 64;
    let ln2 = Iv {
        lo: scalar::ln2(w2, Round::Down).0,
        hi: scalar::ln2(w2, Round::Up).0,
    };
    let kl = ln2.mul(&Iv::point(scalar::from_int(k)), w2);
    (tr.sub(&kl, w2).mono(Func::Exp, w), k)
}

/// A lower bound on `|x| log2(e)` for a normal `x` of moderate exponent.
pub(super) fn log2e_lower(x: &F) -> f64 {
    let top = x.m[x.m.len() - 1] as f64 * 2f64.powi((x.exp - 64) as i32);
    top * std::f64::consts::LOG2_E * (1.0 - 1e-12)
}

/// `sign(f(y)) e^a 2^k` rounded when it certainly overflows or underflows
/// (`f` = sin or cos of a finite `y`, bounded below through a 64-bit
/// rounding toward zero), else `None`.
fn beyond(a: &F, k: i64, f: Func, y: &F, p: u64, rnd: Round) -> Option<Part> {
    use crate::float::{EMAX, EMIN};
    if !a.is_normal() {
        return None;
    }
    // log2 |f(y)| lies in [fy_lo, fy_hi]; sin of a tiny y is y (1 - d)
    // (its directed roundings underflow at the bottom of the range).
    let (neg, fy_lo, fy_hi) = if f == Func::Sin && y.is_normal() && y.exp < -64 {
        (y.neg(), y.exp - 2, y.exp)
    } else {
        let fy = scalar::func(f, y, 64, Round::Zero).0;
        if !fy.is_normal() {
            return None;
        }
        (fy.neg(), fy.exp - 1, fy.exp)
    };
    let l_lo = log2e_lower(a);
    if !a.neg() && l_lo + (k + fy_lo) as f64 > EMAX as f64 + 2.0 {
        return Some(out_of_range(neg, true, p, rnd));
    }
    if a.neg() && -l_lo + ((k + fy_hi) as f64) < EMIN as f64 - 2.0 {
        return Some(if above(a, 3_196_577_161_300_663_808) {
            exp_underflow(neg, p, rnd)
        } else {
            out_of_range(neg, false, p, rnd)
        });
    }
    None
}

/// |x| beyond which e^|x| / 2 overflows every float by far (MPFR's
/// largest float is below 2^(2^30), e^745e6 > 2^(1.0748e9)).
fn huge(x: &F) -> bool {
    x.abs().cmp(&scalar::from_int(745_000_000)) == Some(std::cmp::Ordering::Greater)
}

/// `|x| > k`.
fn above(x: &F, k: i64) -> bool {
    x.abs().cmp(&scalar::from_int(k)) == Some(std::cmp::Ordering::Greater)
}

/// The rounding of a value within `2^-(p+2)` of `+-1` on a known side
/// (`below`: toward 0): no rounding boundary of `p` bits lies in that gap,
/// so it rounds as `1 -+ 2^-(p+3)` does.
fn near_one(neg: bool, below: bool, p: u64, rnd: Round) -> Part {
    let one = F::one(false);
    let d = one.scale(-(p as i64 + 3));
    let v = if below {
        scalar::sub(&one, &d, p + 4, Round::Nearest).0
    } else {
        scalar::add(&one, &d, p + 4, Round::Nearest).0
    };
    set(&v.with_sign(neg), p, rnd)
}

/// sin, cos or tan of a finite `a + i b`.
fn trig_fin(t: Trig, a: &F, b: &F, pr: u64, pi: u64, rnd: CRound, cap: u64) -> R2 {
    let rr = [rnd.re, rnd.im];
    match t {
        Trig::Sin => {
            // sin a cosh b + i cos a sinh b.
            if b.is_zero() {
                let cos_neg = !a.is_zero() && sign_of(Func::Cos, a);
                return Ok([
                    scalar::func(Func::Sin, a, pr, rnd.re),
                    exact(F::zero(b.neg() != cos_neg)),
                ]);
            }
            if huge(b) {
                let re = if a.is_zero() {
                    exact(a.clone())
                } else {
                    out_of_range(sign_of(Func::Sin, a), true, pr, rnd.re)
                };
                let cos_neg = !a.is_zero() && sign_of(Func::Cos, a);
                return Ok([re, out_of_range(cos_neg != b.neg(), true, pi, rnd.im)]);
            }
            if a.is_zero() {
                let im = ziv1(pi, rnd.im, cap, |w| sinh_iv(b, w))?;
                return Ok([exact(a.clone()), im]);
            }
            ziv([None, None], [pr, pi], rr, cap, |w, need| {
                [
                    need[0].then(|| Iv::of_fn(Func::Sin, a, w).mul(&cosh_iv(b, w), w)),
                    need[1].then(|| Iv::of_fn(Func::Cos, a, w).mul(&sinh_iv(b, w), w)),
                ]
            })
        }
        Trig::Cos => {
            // cos a cosh b - i sin a sinh b.
            if b.is_zero() {
                let sin_neg = if a.is_zero() {
                    a.neg()
                } else {
                    sign_of(Func::Sin, a)
                };
                return Ok([
                    scalar::func(Func::Cos, a, pr, rnd.re),
                    exact(F::zero(sin_neg == b.neg())),
                ]);
            }
            if huge(b) {
                let re = out_of_range(!a.is_zero() && sign_of(Func::Cos, a), true, pr, rnd.re);
                let im = if a.is_zero() {
                    exact(F::zero(a.neg() == b.neg()))
                } else {
                    out_of_range(sign_of(Func::Sin, a) == b.neg(), true, pi, rnd.im)
                };
                return Ok([re, im]);
            }
            if a.is_zero() {
                let re = ziv1(pr, rnd.re, cap, |w| cosh_iv(b, w))?;
                return Ok([re, exact(F::zero(a.neg() == b.neg()))]);
            }
            ziv([None, None], [pr, pi], rr, cap, |w, need| {
                [
                    need[0].then(|| Iv::of_fn(Func::Cos, a, w).mul(&cosh_iv(b, w), w)),
                    need[1].then(|| Iv::of_fn(Func::Sin, a, w).mul(&sinh_iv(b, w), w).neg()),
                ]
            })
        }
        Trig::Tan => {
            // (sin 2a + i sinh 2b) / (cos 2a + cosh 2b).
            if b.is_zero() {
                return Ok([scalar::func(Func::Tan, a, pr, rnd.re), exact(b.clone())]);
            }
            let (a2, b2) = (a.scale(1), b.scale(1));
            if above(b, pi.max(pr) as i64 + 64) {
                // Im = 1 - (cos 2a + e^-2|b|) / (cos 2a + cosh 2b) (for b > 0)
                // is within 2^-(p+2) of 1, on the side of cos 2a when
                // e^-2|b| < |cos 2a|.
                let c = scalar::func(Func::Cos, &a2, 64, Round::Zero).0;
                if a.is_zero()
                    || (c.is_normal() && c.exp > -(1 << 20) && above(b, 1 << 21))
                    || (c.is_normal() && above(b, -c.exp + 2))
                {
                    let below = a.is_zero() || !c.neg();
                    let im = near_one(b.neg(), below, pi, rnd.im);
                    let re = if a.is_zero() {
                        exact(a.clone())
                    } else if above(b, 372_200_000) {
                        out_of_range(sign_of(Func::Sin, &a2), false, pr, rnd.re)
                    } else {
                        ziv1(pr, rnd.re, cap, |w| {
                            let den = Iv::of_fn(Func::Cos, &a2, w).add(&cosh_iv(&b2, w), w);
                            Iv::of_fn(Func::Sin, &a2, w).div(&den, w)
                        })?
                    };
                    return Ok([re, im]);
                }
            }
            if a.is_zero() {
                let im = ziv1(pi, rnd.im, cap, |w| tanh_iv(b, w))?;
                return Ok([exact(a.clone()), im]);
            }
            ziv([None, None], [pr, pi], rr, cap, |w, need| {
                let den = Iv::of_fn(Func::Cos, &a2, w).add(&cosh_iv(&b2, w), w);
                [
                    need[0].then(|| Iv::of_fn(Func::Sin, &a2, w).div(&den, w)),
                    need[1].then(|| sinh_iv(&b2, w).div(&den, w)),
                ]
            })
        }
    }
}

/// sinh, cosh or tanh (`t` names the circular function) of `a + i b` when
/// a part is infinite or NaN: C99 G.6.2.4-6 with MPC's signs.
fn hyp_special(t: Trig, a: &F, b: &F) -> [F; 2] {
    let bfin = !b.is_inf() && !b.is_nan();
    if a.is_nan() {
        return if b.is_zero() {
            [F::nan(), b.clone()]
        } else {
            [F::nan(), F::nan()]
        };
    }
    if !a.is_inf() {
        // a finite, b infinite or NaN.
        return if a.is_zero() {
            match t {
                Trig::Sin => [a.clone(), F::nan()],
                Trig::Cos => [F::nan(), F::zero(false)],
                Trig::Tan => [F::nan(), F::nan()],
            }
        } else {
            [F::nan(), F::nan()]
        };
    }
    let an = a.neg();
    match t {
        Trig::Sin => {
            if b.is_zero() {
                [a.clone(), b.clone()]
            } else if bfin {
                [
                    F::inf(an != sign_of(Func::Cos, b)),
                    F::inf(sign_of(Func::Sin, b)),
                ]
            } else {
                [a.clone(), F::nan()]
            }
        }
        Trig::Cos => {
            if b.is_zero() {
                [F::inf(false), F::zero(an != b.neg())]
            } else if bfin {
                [
                    F::inf(sign_of(Func::Cos, b)),
                    F::inf(an != sign_of(Func::Sin, b)),
                ]
            } else {
                // MPC: the sign of a times that of an infinite b.
                [F::inf(b.is_inf() && an != b.neg()), F::nan()]
            }
        }
        Trig::Tan => {
            let im_neg = if b.is_zero() {
                b.neg()
            } else if bfin {
                sign_of(Func::Sin, &b.scale(1))
            } else {
                b.is_inf() && b.neg()
            };
            [F::one(an), F::zero(im_neg)]
        }
    }
}

/// cos of `a + i b` with a part infinite or NaN: cosh(i z), with MPC's
/// signs of zeros where they differ from that identity (MPC computes cosh
/// from cos).
fn cos_special(a: &F, b: &F) -> [F; 2] {
    if a.is_nan() && b.is_zero() {
        return [F::nan(), b.clone()];
    }
    if a.is_inf() && b.is_zero() {
        return [F::nan(), F::zero(a.neg() == b.neg())];
    }
    if a.is_zero() && b.is_nan() {
        return [F::nan(), F::zero(a.neg())];
    }
    hyp_special(Trig::Cos, &b.negate(), a)
}

fn finite(x: &F) -> bool {
    !x.is_inf() && !x.is_nan()
}

/// sinh, cosh, tanh: `(-i) f(i z)` for sin and tan, `f(i z)` for cos.
fn hyp(t: Trig, x: &(F, F), pr: u64, pi: u64, rnd: CRound, cap: u64) -> R2 {
    let (a, b) = x;
    if !finite(a) || !finite(b) {
        let [re, im] = if t == Trig::Cos {
            cos_special(&b.negate(), a)
        } else {
            hyp_special(t, a, b)
        };
        return Ok([exact(re), exact(im)]);
    }
    // i z = -b + i a.
    let (ia, ib) = (b.negate(), a.clone());
    if t == Trig::Cos {
        return trig_fin(t, &ia, &ib, pr, pi, rnd, cap);
    }
    // f(i z) = u + i v, result v - i u: u has the imaginary part's
    // precision and mirrored mode.
    let [u, v] = trig_fin(
        t,
        &ia,
        &ib,
        pi,
        pr,
        CRound::new(rnd.im.mirror(), rnd.re),
        cap,
    )?;
    Ok([v, neg_part(u)])
}

/// sin, cos, tan: special values from sinh, cosh, tanh of `i z`.
fn trig(t: Trig, x: &(F, F), pr: u64, pi: u64, rnd: CRound, cap: u64) -> R2 {
    let (a, b) = x;
    if finite(a) && finite(b) {
        return trig_fin(t, a, b, pr, pi, rnd, cap);
    }
    // i z = -b + i a; sin z = -i sinh(i z), cos z = cosh(i z), tan z = -i tanh(i z).
    if t == Trig::Cos {
        let [u, v] = cos_special(a, b);
        return Ok([exact(u), exact(v)]);
    }
    let [u, v] = hyp_special(t, &b.negate(), a);
    Ok([exact(v), exact(u.negate())])
}

/// atan (mpc_atan): `Re = atan2(2a, 1 - a^2 - b^2) / 2`,
/// `Im = log((a^2 + (b+1)^2) / (a^2 + (b-1)^2)) / 4`; branch cuts on the
/// imaginary axis beyond +-i.
fn atan(x: &(F, F), pr: u64, pi: u64, rnd: CRound, cap: u64) -> R2 {
    let (a, b) = x;
    let half_pi = |neg: bool| pi_mul(1, 1, neg, pr, rnd.re, cap);
    if !finite(a) || !finite(b) {
        // atan z = -i atanh(i z): C99 G.6.2.3 for catanh.
        if a.is_nan() {
            return Ok(if b.is_inf() {
                [exact(F::nan()), exact(F::zero(b.neg()))]
            } else if b.is_zero() {
                [exact(F::nan()), exact(b.clone())]
            } else {
                nan2()
            });
        }
        if b.is_nan() {
            return Ok(if a.is_inf() {
                [half_pi(a.neg())?, exact(F::zero(false))]
            } else {
                nan2()
            });
        }
        // An infinite part: +-pi/2 (sign of a) + i 0 (sign of b).
        return Ok([half_pi(a.neg())?, exact(F::zero(b.neg()))]);
    }
    let one = F::one(false);
    if b.is_zero() {
        return Ok([scalar::func(Func::Atan, a, pr, rnd.re), exact(b.clone())]);
    }
    let babs = b.abs();
    let unit = babs.cmp(&one);
    if a.is_zero() && unit == Some(std::cmp::Ordering::Equal) {
        return Ok([exact(a.clone()), exact(F::inf(b.neg()))]);
    }
    let big = |m: &str| Err(format!("atan: {m} beyond {} bits", scalar::EXACT_BITS));
    let (a2, b2) = (sqr_exact(a), sqr_exact(b));
    // Im = log(n1 / n2) / 4 with exact n1, n2.
    let bp = add_exact(b, &one, scalar::EXACT_BITS);
    let bm = add_exact(b, &one.negate(), scalar::EXACT_BITS);
    let (Some(bp), Some(bm)) = (bp, bm) else {
        return big("b +- 1");
    };
    let n1 = add_exact(&a2, &sqr_exact(&bp), scalar::EXACT_BITS);
    let n2 = add_exact(&a2, &sqr_exact(&bm), scalar::EXACT_BITS);
    let (Some(n1), Some(n2)) = (n1, n2) else {
        return big("|z +- i|^2");
    };
    let im = ziv1(pi, rnd.im, cap, |w| {
        Iv::point(n1.clone())
            .div(&Iv::point(n2.clone()), w)
            .mono(Func::Log, w)
            .scale(-2)
    })?;
    if a.is_zero() {
        let re = if unit == Some(std::cmp::Ordering::Less) {
            exact(a.clone())
        } else {
            half_pi(a.neg())?
        };
        return Ok([re, im]);
    }
    let Some(n) = add_exact(&a2, &b2, scalar::EXACT_BITS) else {
        return big("|z|^2");
    };
    let Some(xr) = add_exact(&one, &n.negate(), scalar::EXACT_BITS) else {
        return big("1 - |z|^2");
    };
    // arg(X + iY) rounded, then halved (exact).
    let (r, t) = arg(&(xr, a.scale(1)), pr, rnd.re, cap)?;
    Ok([(r.scale(-1), t), im])
}

fn one_iv() -> Iv {
    Iv::point(F::one(false))
}

/// asinh b = sign(b) log(|b| + sqrt(b^2 + 1)) for a point b != 0.
fn asinh_iv(b: &F, w: u64) -> Iv {
    let x = b.abs();
    let r = if 2 * x.exp < -(w as i64) - 8 {
        // asinh x = x (1 - d), 0 < d < x^2/6 < 2^-w.
        Iv {
            lo: scalar::sub(&x, &x.scale(-(w as i64)), w, Round::Down).0,
            hi: x,
        }
    } else {
        // log(x + sqrt(x^2 + 1)) loses about -exp(x) bits for small x.
        let w2 = w + (-x.exp).max(0) as u64 + 8;
        let p = Iv::point(x.clone());
        let r = p.mul(&p, w2).add(&one_iv(), w2).sqrt(w2);
        p.add(&r, w2).mono(Func::Log, w2)
    };
    if b.neg() { r.neg() } else { r }
}

/// Side rules for asin/acos of `+-1 + i b`, `|b| < 2^-16`, when `s =
/// sqrt|b|` is an exact dyadic: with `alpha = (|z+1| + |z-1|)/2 = cosh t`,
/// `t = acosh alpha = s (1 + eta)`, `0 < eta <= |b|/8`, and (a = 1) `acos(1
/// / alpha) = gd t = s (1 - eta')`, `0 < eta' < |b|/5` (series of acosh(1 +
/// delta), `delta = |b|/2 + b^2/8 - ...`, and of the Gudermannian; each
/// part used when `|b| < 2^-P`, `P` = [`nudge_bits`]`(s, p)`). The parts
/// that are `pi/2 -+ ...` or `pi - ...` are far from every float: the Ziv
/// loop. `ri`: the imaginary part's mode for its absolute value.
fn asin_acos_tiny(
    acos: bool,
    a: &F,
    b: &F,
    pr: u64,
    pi: u64,
    rr: Round,
    ri: Round,
) -> [Option<Part>; 2] {
    let one = a.abs().cmp(&F::one(false)) == Some(std::cmp::Ordering::Equal);
    let s = (one && b.exp <= -16)
        .then(|| sqrt_dyadic(&b.abs()))
        .flatten();
    let Some(s) = s else {
        return [None, None];
    };
    let fits = |p: u64| b.exp <= -(nudge_bits(&s, p) as i64);
    [
        (acos && !a.neg() && fits(pr)).then(|| nudged(&s, false, false, pr, rr)),
        fits(pi).then(|| nudged(&s, true, false, pi, ri)),
    ]
}

/// asin (mpc_asin) and acos (mpc_acos), with alpha = (|z+1| + |z-1|) / 2
/// and beta = a / alpha: asin z = asin(beta) + i sign(b) acosh(alpha),
/// acos z = acos(beta) - i sign(b) acosh(alpha) (Abramowitz and Stegun
/// 4.4.37-38).
fn asin_acos(acos: bool, x: &(F, F), pr: u64, pi: u64, rnd: CRound, cap: u64) -> R2 {
    let (a, b) = x;
    let pi_re = |k: i64, s: i64, neg: bool| pi_mul(k, s, neg, pr, rnd.re, cap);
    if !finite(a) || !finite(b) {
        // C99 G.6.1.1 (cacos) and casin z = -i casinh(i z) (G.6.2.2).
        if a.is_nan() {
            return Ok(if b.is_inf() {
                [exact(F::nan()), exact(F::inf(acos != b.neg()))]
            } else {
                nan2()
            });
        }
        if b.is_nan() {
            return Ok(if a.is_inf() {
                [exact(F::nan()), exact(F::inf(acos))]
            } else if a.is_zero() {
                if acos {
                    [pi_re(1, 1, false)?, exact(F::nan())]
                } else {
                    [exact(a.clone()), exact(F::nan())]
                }
            } else {
                nan2()
            });
        }
        let im = exact(F::inf(acos != b.neg()));
        let re = match (a.is_inf(), b.is_inf()) {
            (true, true) if acos => pi_re(if a.neg() { 3 } else { 1 }, 2, false)?,
            (true, true) => pi_re(1, 2, a.neg())?,
            (true, false) if acos => {
                if a.neg() {
                    pi_re(1, 0, false)?
                } else {
                    exact(F::zero(false))
                }
            }
            (true, false) => pi_re(1, 1, a.neg())?,
            _ if acos => pi_re(1, 1, false)?,
            _ => exact(F::zero(a.neg())),
        };
        return Ok([re, im]);
    }
    let one = F::one(false);
    let unit = a.abs().cmp(&one);
    if b.is_zero() {
        use std::cmp::Ordering::*;
        // Real z: inside [-1, 1] a real result; outside, the imaginary part
        // is acosh|a| with the sign of b (asin) or its opposite (acos).
        let im_neg = acos != b.neg();
        if unit != Some(Greater) {
            let re = match (acos, unit) {
                (false, _) if a.is_zero() => exact(a.clone()),
                (false, Some(Equal)) => pi_re(1, 1, a.neg())?,
                (false, _) => scalar::func(Func::Asin, a, pr, rnd.re),
                (true, Some(Equal)) if a.neg() => pi_re(1, 0, false)?,
                (true, Some(Equal)) => exact(F::zero(false)),
                (true, _) if a.is_zero() => pi_re(1, 1, false)?,
                (true, _) => scalar::func(Func::Acos, a, pr, rnd.re),
            };
            return Ok([re, exact(F::zero(im_neg))]);
        }
        let re = match (acos, a.neg()) {
            (false, n) => pi_re(1, 1, n)?,
            (true, false) => exact(F::zero(false)),
            (true, true) => pi_re(1, 0, false)?,
        };
        let ri = if im_neg { rnd.im.mirror() } else { rnd.im };
        let v = scalar::func(Func::Acosh, &a.abs(), pi, ri);
        return Ok([re, if im_neg { neg_part(v) } else { v }]);
    }
    if a.is_zero() {
        // asin(i b) = i asinh(b), acos(i b) = pi/2 - i asinh(b).
        let (re, im) = if acos {
            let ri = rnd.im.mirror();
            let v = ziv1(pi, ri, cap, |w| asinh_iv(b, w))?;
            (pi_re(1, 1, false)?, neg_part(v))
        } else {
            (exact(a.clone()), ziv1(pi, rnd.im, cap, |w| asinh_iv(b, w))?)
        };
        return Ok([re, im]);
    }
    // With A = |a|: |z + 1|, |z - 1| are (in some order) sqrt((A +- 1)^2 +
    // b^2), and alpha = 1 + delta, delta = (d1 + d2) / 2 + max(A - 1, 0),
    // d1 = b^2 / (|z+|| + A + 1), d2 = b^2 / (|z-|| + |A - 1|): no
    // cancellation, so alpha - 1 keeps its bits when b is tiny.
    let aa = a.abs();
    let b2 = sqr_exact(b);
    let sq = |s: &F| -> Option<F> {
        let t = add_exact(&aa, s, scalar::EXACT_BITS)?;
        add_exact(&sqr_exact(&t), &b2, scalar::EXACT_BITS)
    };
    let (r2, s2) = (sq(&one), sq(&one.negate()));
    let (ap1, am1) = (Iv::point(aa.clone()), Iv::point(aa.clone()));
    let im_neg = acos != b.neg();
    let ri = if im_neg { rnd.im.mirror() } else { rnd.im };
    let pre = asin_acos_tiny(acos, a, b, pr, pi, rnd.re, ri);
    let r = ziv(pre, [pr, pi], [rnd.re, ri], cap, |w, need| {
        let o = one_iv();
        let bb = Iv::point(b2.clone());
        let t_p = ap1.add(&o, w);
        let t_m = match unit {
            Some(std::cmp::Ordering::Less) => o.sub(&am1, w),
            _ => am1.sub(&o, w),
        };
        let root = |e: &Option<F>, t: &Iv| match e {
            Some(v) => Iv::point(v.clone()).sqrt(w),
            None => t.mul(t, w).add(&bb, w).sqrt(w),
        };
        let (zp, zm) = (root(&r2, &t_p), root(&s2, &t_m));
        let d1 = bb.div(&zp.add(&t_p, w), w);
        let d2 = bb.div(&zm.add(&t_m, w), w);
        // e = alpha - max(A, 1), delta = alpha - 1.
        let e = d1.add(&d2, w).scale(-1);
        let delta = if unit == Some(std::cmp::Ordering::Greater) {
            e.add(&t_m, w)
        } else {
            e.clone()
        };
        let re = need[0].then(|| {
            // beta = A / alpha in (0, 1); with S = sqrt((alpha - A)(alpha
            // + A)), alpha - A = e + max(1 - A, 0) (no cancellation when
            // beta is near 1): acos beta = atan(S / A), asin beta =
            // atan(A / S), each from the other as pi/2 minus it, taking
            // the atan of the ratio at most about 1.
            let am = if unit == Some(std::cmp::Ordering::Less) {
                e.add(&t_m, w)
            } else {
                e.clone()
            };
            let ap = o.add(&delta, w).add(&ap1, w);
            let s = am.mul(&ap, w).sqrt(w);
            let half_pi = Iv::pi(w).scale(-1);
            let (g, h) = if s.hi.cmp(&aa) != Some(std::cmp::Ordering::Greater) {
                let g = s.div(&ap1, w).mono(Func::Atan, w);
                (g.clone(), half_pi.sub(&g, w))
            } else {
                let h = ap1.div(&s, w).mono(Func::Atan, w);
                (half_pi.sub(&h, w), h)
            };
            match (acos, a.neg()) {
                (false, false) => h,
                (false, true) => h.neg(),
                (true, false) => g,
                (true, true) => Iv::pi(w).sub(&g, w),
            }
        });
        // acosh(1 + delta) = log1p(delta + sqrt(delta (2 + delta))).
        let im = need[1].then(|| {
            let two = Iv::point(F::one(false).scale(1));
            let s = delta.mul(&two.add(&delta, w), w).sqrt(w);
            delta.add(&s, w).mono(Func::Log1p, w)
        });
        [re, im]
    })?;
    let [re, im] = r;
    Ok([re, if im_neg { neg_part(im) } else { im }])
}
