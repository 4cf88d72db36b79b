//! asin, acos (from the atan core with interval arithmetic) and cbrt (an
//! exact integer cube root, no series).
//!
//! - asin x = atan(x / sqrt((1 - x)(1 + x))), both factors exact: no
//!   cancellation anywhere, atan is well conditioned relatively. Exact
//!   cases: asin(+-0) = +-0; asin(+-1) = +-pi/2 (rounded); tiny x: MPFR's
//!   fast path (asin x = x + x^3/6 + ..., away from zero by less than one
//!   unit).
//! - acos x = 2 atan(sqrt((1 - x) / (1 + x))): small near x = 1 (relative
//!   precision kept by the scaled atan), near pi/2 at 0 and pi at -1 (no
//!   cancellation). acos(1) = +0 exactly; acos(-1) = pi.
//! - cbrt: `N = M 2^t` with `>= 3(p + 3)` bits and `sx - t` a multiple of
//!   3, `r = floor(N^(1/3))`: exact when `r^3 = N` (a dyadic cube root is
//!   then `r 2^((sx-t)/3)`, since a rational cube root of an integer is an
//!   integer), else the value lies in `(r, r + 1)`, whose `>= p + 2` bits
//!   always decide the rounding.

use malachite_base::num::arithmetic::traits::{FloorRoot, Pow};
use malachite_nz::integer::Integer;

use super::consts::Const;
use super::ia::{Iv, cmp_one, lg, mono, tiny_odd};
use super::{Eval, Func, Interval, mant, write_exact, write_special};
use crate::float::round::{Out, Round};
use crate::float::{Class, Elem};

fn work(w: u64) -> u64 {
    w + 8 + lg(w)
}

pub(crate) fn asin(out: &mut Out, x: &Elem, w: u64, p: u64) -> Eval {
    match x.class {
        Class::NaN | Class::Inf => return write_special(out, Class::NaN, false),
        Class::Zero => return write_special(out, Class::Zero, x.neg),
        Class::Normal => {}
    }
    let bw = work(w);
    match cmp_one(x) {
        std::cmp::Ordering::Greater => return write_special(out, Class::NaN, false),
        std::cmp::Ordering::Equal => {
            let h = Iv::constant(Const::Pi, bw).shl(-1);
            return if x.neg { h.neg() } else { h }.open();
        }
        _ => {}
    }
    if let Some(iv) = tiny_odd(x, p, true) {
        return iv;
    }
    let (_, sx) = mant(x);
    // 1 +- x exact where it can be small (|x| >= 1/2); else relative
    // precision suffices.
    let exact = if x.exp <= -1 {
        work(w) + 64
    } else {
        (-sx).max(1) as u64 + 8
    };
    let a = Iv::elem(x, true);
    let one = Iv::int(1);
    let c = one.sub(&a, exact).mul(&one.add(&a, exact), bw);
    let q = a.div(&c.sqrt(bw), bw);
    match mono(Func::Atan, &q, bw) {
        Some(r) => if x.neg { r.neg() } else { r }.open(),
        None => write_special(out, Class::NaN, false),
    }
}

pub(crate) fn acos(out: &mut Out, x: &Elem, w: u64) -> Eval {
    match x.class {
        Class::NaN | Class::Inf => return write_special(out, Class::NaN, false),
        Class::Zero => {
            let h = Iv::constant(Const::Pi, work(w)).shl(-1);
            return h.open();
        }
        Class::Normal => {}
    }
    let bw = work(w);
    match cmp_one(x) {
        std::cmp::Ordering::Greater => return write_special(out, Class::NaN, false),
        std::cmp::Ordering::Equal if x.neg => return Iv::constant(Const::Pi, bw).open(),
        std::cmp::Ordering::Equal => return write_special(out, Class::Zero, false),
        _ => {}
    }
    let (_, sx) = mant(x);
    // 1 +- x exact where it can be small (|x| >= 1/2); else relative
    // precision suffices.
    let exact = if x.exp <= -1 {
        work(w) + 64
    } else {
        (-sx).max(1) as u64 + 8
    };
    let xi = Iv::elem(x, false);
    let one = Iv::int(1);
    let q = one.sub(&xi, exact).div(&one.add(&xi, exact), bw).sqrt(bw);
    match mono(Func::Atan, &q, bw) {
        Some(r) => r.shl(1).open(),
        None => write_special(out, Class::NaN, false),
    }
}

pub(crate) fn cbrt(out: &mut Out, x: &Elem, p: u64, rnd: Round) -> Eval {
    match x.class {
        Class::NaN => return write_special(out, Class::NaN, false),
        Class::Zero => return write_special(out, Class::Zero, x.neg),
        Class::Inf => return write_special(out, Class::Inf, x.neg),
        Class::Normal => {}
    }
    let (m, sx) = mant(x);
    let tz = m.trailing_zeros().unwrap_or(0);
    let (m, sx) = (&m >> tz, sx + tz as i64);
    let need = 3 * (p + 3);
    let t0 = need
        .saturating_sub(malachite_base::num::logic::traits::SignificantBits::significant_bits(&m))
        as i64;
    let t = t0 + (sx - t0).rem_euclid(3);
    let n = &m << t as u64;
    let r = (&n).floor_root(3);
    let s = (sx - t) / 3;
    if (&r).pow(3) == n {
        return Eval::Done(write_exact(out, x.neg, &r, s, p, rnd));
    }
    let lo = Integer::from(r);
    let hi = &lo + Integer::from(1u32);
    let (lo, hi) = if x.neg { (-hi, -lo) } else { (lo, hi) };
    Eval::Approx(Interval { lo, hi, s })
}
