//! expm1, log1p and the hyperbolic functions and their inverses, composed
//! from the exp and log cores with interval arithmetic ([`super::ia`]).
//!
//! Each function decides MPFR's special values and exact cases first (the
//! only finite exact results are f(0), acosh(1) = 0 and expm1(-Inf) = -1;
//! every other dyadic argument gives a transcendental value, by
//! Lindemann-Weierstrass, so Ziv's loop terminates), then MPFR's fast paths
//! for tiny arguments (the result is `x` up to a one-sided perturbation
//! below one unit of `p + 3` bits), for huge ones (overflow; tanh = +-1
//! minus less than `2^-(p+2)`), and evaluates the formula with `W = w + 8`
//! bits plus the bits the formula cancels (`-ex` near 0):
//!
//! | function | formula |
//! |---|---|
//! | expm1 | `exp(x) - 1` |
//! | log1p | `log(1 + x)` (1 + x exact unless x is huge) |
//! | sinh, cosh | `(E -+ 1/E) / 2`, `E = exp(|x|)` |
//! | tanh | `(E2 - 1) / (E2 + 1)`, `E2 = exp(2|x|)` |
//! | asinh | `log(|x| + sqrt(x^2 + 1))` |
//! | acosh | `log(x + sqrt((x - 1)(x + 1)))` (x - 1 exact) |
//! | atanh | `log((1 + |x|) / (1 - |x|)) / 2` (both exact) |

use malachite_nz::natural::Natural;

use super::ia::{Iv, abs_at_least, beside, cmp_one, lg, mono, near_one, out_of_range, tiny_odd};
use super::{Eval, Func, mant, write_exact, write_special};
use crate::float::round::{Out, Round};
use crate::float::{Class, Elem};

fn one() -> Natural {
    Natural::from(1u32)
}

/// Working precision with guard bits and `extra` cancelled bits.
fn work(w: u64, extra: i64) -> u64 {
    w + 8 + lg(w) + extra.max(0) as u64
}

pub(crate) fn expm1(out: &mut Out, x: &Elem, w: u64, p: u64, rnd: Round) -> Eval {
    match x.class {
        Class::NaN => return write_special(out, Class::NaN, false),
        Class::Zero => return write_special(out, Class::Zero, x.neg),
        Class::Inf if x.neg => return Eval::Done(write_exact(out, true, &one(), 0, p, rnd)),
        Class::Inf => return write_special(out, Class::Inf, false),
        Class::Normal => {}
    }
    // Tiny: expm1(x) = x + x^2/2 + ... in (x, x + x^2), above x for either
    // sign; x^2 < 2^(2 ex) <= one unit 2^(ex - L) when ex <= -L.
    let nb = 64 * x.limbs.len() as u64;
    let l = (p + 3).max(nb);
    if x.exp <= -(l as i64) {
        return beside(x, l, !x.neg);
    }
    if x.neg && abs_at_least(x, p + 2) {
        // exp(x) < e^-(p+2) < 2^-(p+2): expm1 in (-1, -1 + 2^-(p+2)).
        return near_one(p, false, true);
    }
    if x.exp > 32 {
        return out_of_range(out, false, true, p, rnd);
    }
    let bw = work(w, -x.exp);
    let e = match mono(Func::Exp, &Iv::elem(x, false), bw) {
        Some(e) => e,
        None => return out_of_range(out, false, true, p, rnd),
    };
    e.sub(&Iv::int(1), bw).open()
}

pub(crate) fn log1p(out: &mut Out, x: &Elem, w: u64, p: u64) -> Eval {
    match x.class {
        Class::NaN => return write_special(out, Class::NaN, false),
        Class::Zero => return write_special(out, Class::Zero, x.neg),
        Class::Inf if x.neg => return write_special(out, Class::NaN, false),
        Class::Inf => return write_special(out, Class::Inf, false),
        Class::Normal => {}
    }
    if x.neg {
        match cmp_one(x) {
            std::cmp::Ordering::Equal => return write_special(out, Class::Inf, true),
            std::cmp::Ordering::Greater => return write_special(out, Class::NaN, false),
            _ => {}
        }
    }
    // Tiny: log1p(x) = x - x^2/2 + ... in (x - x^2, x), below x.
    let nb = 64 * x.limbs.len() as u64;
    let l = (p + 3).max(nb);
    if x.exp <= -(l as i64) {
        return beside(x, l, x.neg);
    }
    let bw = work(w, -x.exp);
    // 1 + x, exact when x has at most bw + 64 bits above 1's scale.
    let t = Iv::elem(x, false).add(&Iv::int(1), bw + 64 + nb);
    match mono(Func::Log, &t, bw) {
        Some(r) => r.open(),
        None => write_special(out, Class::NaN, false),
    }
}

pub(crate) fn sinh(out: &mut Out, x: &Elem, w: u64, p: u64, rnd: Round) -> Eval {
    match x.class {
        Class::NaN => return write_special(out, Class::NaN, false),
        Class::Zero => return write_special(out, Class::Zero, x.neg),
        Class::Inf => return write_special(out, Class::Inf, x.neg),
        Class::Normal => {}
    }
    // sinh x = x + x^3/6 + ...: beyond x, by less than |x|^3.
    if let Some(iv) = tiny_odd(x, p, true) {
        return iv;
    }
    if x.exp > 32 {
        return out_of_range(out, x.neg, true, p, rnd);
    }
    let bw = work(w, -x.exp);
    let Some(e) = mono(Func::Exp, &Iv::elem(x, true), bw) else {
        return out_of_range(out, x.neg, true, p, rnd);
    };
    let inv = Iv::int(1).div(&e, bw);
    let r = e.sub(&inv, bw).shl(-1);
    if x.neg { r.neg() } else { r }.open()
}

pub(crate) fn cosh(out: &mut Out, x: &Elem, w: u64, p: u64, rnd: Round) -> Eval {
    match x.class {
        Class::NaN => return write_special(out, Class::NaN, false),
        Class::Zero => return Eval::Done(write_exact(out, false, &one(), 0, p, rnd)),
        Class::Inf => return write_special(out, Class::Inf, false),
        Class::Normal => {}
    }
    // cosh x - 1 = x^2/2 (1 + x^2/12 + ...) < 2^(2 ex - 1) * 1.01.
    if 2 * x.exp <= -(p as i64 + 2) {
        return near_one(p, true, false);
    }
    if x.exp > 32 {
        return out_of_range(out, false, true, p, rnd);
    }
    let bw = work(w, 0);
    let Some(e) = mono(Func::Exp, &Iv::elem(x, true), bw) else {
        return out_of_range(out, false, true, p, rnd);
    };
    let inv = Iv::int(1).div(&e, bw);
    e.add(&inv, bw).shl(-1).open()
}

pub(crate) fn tanh(out: &mut Out, x: &Elem, w: u64, p: u64, rnd: Round) -> Eval {
    match x.class {
        Class::NaN => return write_special(out, Class::NaN, false),
        Class::Zero => return write_special(out, Class::Zero, x.neg),
        Class::Inf => return Eval::Done(write_exact(out, x.neg, &one(), 0, p, rnd)),
        Class::Normal => {}
    }
    // tanh x = x - x^3/3 + ...: toward zero, by less than |x|^3.
    if let Some(iv) = tiny_odd(x, p, false) {
        return iv;
    }
    // 1 - tanh|x| = 2/(e^(2|x|) + 1) < 2 e^(-2|x|) < 2^-(p+2) once
    // |x| >= 0.35 (p + 3): then 2|x| log2 e >= 1.0099 (p + 3) >= p + 3.
    // (Below that, 1 - tanh|x| > 2^-(w) needs no more than w ~ p + 16
    // bits: no retries.)
    if abs_at_least(x, ((p + 3) * 35).div_ceil(100)) {
        return near_one(p, false, x.neg);
    }
    let bw = work(w, -x.exp);
    let two_x = Iv::elem(x, true).shl(1);
    let Some(e2) = mono(Func::Exp, &two_x, bw) else {
        return near_one(p, false, x.neg);
    };
    let one = Iv::int(1);
    let r = e2.sub(&one, bw).div(&e2.add(&one, bw), bw);
    if x.neg { r.neg() } else { r }.open()
}

pub(crate) fn asinh(out: &mut Out, x: &Elem, w: u64, p: u64) -> Eval {
    match x.class {
        Class::NaN => return write_special(out, Class::NaN, false),
        Class::Zero => return write_special(out, Class::Zero, x.neg),
        Class::Inf => return write_special(out, Class::Inf, x.neg),
        Class::Normal => {}
    }
    // asinh x = x - x^3/6 + ...: toward zero.
    if let Some(iv) = tiny_odd(x, p, false) {
        return iv;
    }
    let bw = work(w, -x.exp);
    let a = Iv::elem(x, true);
    let s = a.mul(&a, bw).add(&Iv::int(1), bw).sqrt(bw);
    let t = a.add(&s, bw);
    match mono(Func::Log, &t, bw) {
        Some(r) => if x.neg { r.neg() } else { r }.open(),
        None => write_special(out, Class::NaN, false),
    }
}

pub(crate) fn acosh(out: &mut Out, x: &Elem, w: u64) -> Eval {
    match x.class {
        Class::NaN => return write_special(out, Class::NaN, false),
        Class::Inf if !x.neg => return write_special(out, Class::Inf, false),
        Class::Zero | Class::Inf => return write_special(out, Class::NaN, false),
        Class::Normal => {}
    }
    if x.neg {
        return write_special(out, Class::NaN, false);
    }
    match cmp_one(x) {
        std::cmp::Ordering::Less => return write_special(out, Class::NaN, false),
        std::cmp::Ordering::Equal => return write_special(out, Class::Zero, false),
        _ => {}
    }
    let nb = 64 * x.limbs.len() as u64;
    let xi = Iv::elem(x, false);
    // x - 1 exact for x < 4; beyond, d >= 3 needs only relative precision.
    let big = if x.exp > 2 { work(w, 0) + 64 } else { nb + 8 };
    let d = xi.sub(&Iv::int(1), big);
    // acosh(1 + d) ~ sqrt(2 d): the log's argument is 1 + that.
    let bw = work(w, -d.top() / 2 + 2);
    let s = d.mul(&xi.add(&Iv::int(1), big), bw).sqrt(bw);
    let t = xi.add(&s, bw);
    match mono(Func::Log, &t, bw) {
        Some(r) => r.open(),
        None => write_special(out, Class::NaN, false),
    }
}

pub(crate) fn atanh(out: &mut Out, x: &Elem, w: u64, p: u64) -> Eval {
    match x.class {
        Class::NaN | Class::Inf => return write_special(out, Class::NaN, false),
        Class::Zero => return write_special(out, Class::Zero, x.neg),
        Class::Normal => {}
    }
    match cmp_one(x) {
        std::cmp::Ordering::Equal => return write_special(out, Class::Inf, x.neg),
        std::cmp::Ordering::Greater => return write_special(out, Class::NaN, false),
        _ => {}
    }
    // atanh x = x + x^3/3 + ...: away from zero.
    if let Some(iv) = tiny_odd(x, p, true) {
        return iv;
    }
    let (_, sx) = mant(x);
    // 1 +- x exact where it can be small (|x| >= 1/2); else relative
    // precision suffices.
    let exact = if x.exp <= -1 {
        work(w, 0) + 64
    } else {
        (-sx).max(1) as u64 + 8
    };
    let bw = work(w, -x.exp);
    let a = Iv::elem(x, true);
    let num = Iv::int(1).add(&a, exact);
    let den = Iv::int(1).sub(&a, exact);
    let q = num.div(&den, bw);
    match mono(Func::Log, &q, bw) {
        Some(r) => {
            let r = r.shl(-1);
            if x.neg { r.neg() } else { r }.open()
        }
        None => write_special(out, Class::NaN, false),
    }
}
