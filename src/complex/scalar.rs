//! One float as an owned value ([`F`]), the float engine's per-element
//! operations on it (each correctly rounded by `crate::float::arith`),
//! exact products with unbounded exponents, rigorous intervals ([`Iv`]) built
//! from directed roundings, and the Ziv loop that rounds a pair of intervals
//! part by part ([`ziv`]).

use std::cmp::Ordering;

use crate::float::arith::{self, Scratch};
use crate::float::func::{Const, Func, Func2, const_one, eval_one, eval2_one};
use crate::float::round::{Out, Round};
use crate::float::{Class, Elem, NEG, class_of, limbs_for_prec, tag};

/// One float: tag (class and sign), exponent (not range-checked: exact
/// intermediates may leave MPFR's range) and left-aligned mantissa limbs.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct F {
    pub tag: u8,
    pub exp: i64,
    pub m: Vec<u64>,
}

impl F {
    pub fn of(x: &Elem) -> F {
        F {
            tag: tag(x.class, x.neg),
            exp: x.exp,
            m: x.limbs.to_vec(),
        }
    }

    pub fn elem(&self) -> Elem<'_> {
        Elem {
            class: class_of(self.tag),
            neg: self.tag & NEG != 0,
            exp: self.exp,
            limbs: &self.m,
        }
    }

    pub fn special(c: Class, neg: bool) -> F {
        F {
            tag: tag(c, neg),
            exp: 0,
            m: vec![0],
        }
    }

    pub fn nan() -> F {
        F::special(Class::NaN, false)
    }

    pub fn zero(neg: bool) -> F {
        F::special(Class::Zero, neg)
    }

    pub fn inf(neg: bool) -> F {
        F::special(Class::Inf, neg)
    }

    /// `+-1`.
    pub fn one(neg: bool) -> F {
        F {
            tag: tag(Class::Normal, neg),
            exp: 1,
            m: vec![1 << 63],
        }
    }

    pub fn class(&self) -> Class {
        class_of(self.tag)
    }

    /// The sign bit (false for NaN).
    pub fn neg(&self) -> bool {
        self.tag & NEG != 0
    }

    pub fn is_zero(&self) -> bool {
        self.class() == Class::Zero
    }

    pub fn is_nan(&self) -> bool {
        self.class() == Class::NaN
    }

    pub fn is_inf(&self) -> bool {
        self.class() == Class::Inf
    }

    pub fn is_normal(&self) -> bool {
        self.class() == Class::Normal
    }

    /// Mantissa bits held (a bound on the precision).
    pub fn bits(&self) -> u64 {
        64 * self.m.len() as u64
    }

    /// -1, 0 or 1 (0 for zero and NaN).
    pub fn sgn(&self) -> i32 {
        match self.class() {
            Class::Zero | Class::NaN => 0,
            _ if self.neg() => -1,
            _ => 1,
        }
    }

    /// Runs an element operation into a fresh value of precision `p`.
    pub fn run(p: u64, f: impl FnOnce(&mut Out) -> i8) -> (F, i8) {
        let mut r = F {
            tag: 0,
            exp: 0,
            m: vec![0; limbs_for_prec(p)],
        };
        let t = {
            let mut o = Out {
                tag: &mut r.tag,
                exp: &mut r.exp,
                m: &mut r.m,
            };
            f(&mut o)
        };
        (r, t)
    }

    /// `-x`, exact (NaN stays NaN).
    pub fn negate(&self) -> F {
        let mut r = self.clone();
        if !r.is_nan() {
            r.tag ^= NEG;
        }
        r
    }

    /// `|x|`, exact.
    pub fn abs(&self) -> F {
        let mut r = self.clone();
        r.tag &= !NEG;
        r
    }

    /// `x` with the sign `neg` (NaN unchanged).
    pub fn with_sign(&self, neg: bool) -> F {
        if self.neg() != neg {
            self.negate()
        } else {
            self.clone()
        }
    }

    /// `x * 2^k`, exact (unbounded exponent).
    pub fn scale(&self, k: i64) -> F {
        let mut r = self.clone();
        if r.is_normal() {
            r.exp += k;
        }
        r
    }

    /// Exact comparison (None with a NaN).
    pub fn cmp(&self, o: &F) -> Option<Ordering> {
        arith::cmp(&self.elem(), &o.elem())
    }
}

/// An integer as a float, exact.
pub(crate) fn from_int(n: i64) -> F {
    if n == 0 {
        return F::zero(false);
    }
    let a = n.unsigned_abs();
    let lz = a.leading_zeros();
    F {
        tag: tag(Class::Normal, n < 0),
        exp: 64 - lz as i64,
        m: vec![a << lz],
    }
}

/// `x` rounded to `p` bits.
pub(crate) fn set(x: &F, p: u64, rnd: Round) -> (F, i8) {
    F::run(p, |o| arith::set(o, &x.elem(), false, false, p, rnd))
}

pub(crate) fn add(x: &F, y: &F, p: u64, rnd: Round) -> (F, i8) {
    F::run(p, |o| {
        arith::add(
            o,
            &x.elem(),
            &y.elem(),
            false,
            p,
            rnd,
            &mut Scratch::default(),
        )
    })
}

pub(crate) fn sub(x: &F, y: &F, p: u64, rnd: Round) -> (F, i8) {
    F::run(p, |o| {
        arith::add(
            o,
            &x.elem(),
            &y.elem(),
            true,
            p,
            rnd,
            &mut Scratch::default(),
        )
    })
}

pub(crate) fn mul(x: &F, y: &F, p: u64, rnd: Round) -> (F, i8) {
    F::run(p, |o| {
        arith::mul(o, &x.elem(), &y.elem(), p, rnd, &mut Scratch::default())
    })
}

pub(crate) fn div(x: &F, y: &F, p: u64, rnd: Round) -> (F, i8) {
    F::run(p, |o| {
        arith::div(o, &x.elem(), &y.elem(), p, rnd, &mut Scratch::default())
    })
}

pub(crate) fn sqrt(x: &F, p: u64, rnd: Round) -> (F, i8) {
    F::run(p, |o| {
        arith::sqrt(o, &x.elem(), p, rnd, &mut Scratch::default())
    })
}

/// `x * 2^k` rounded (with MPFR's range).
pub(crate) fn mul_2si(x: &F, k: i64, p: u64, rnd: Round) -> (F, i8) {
    F::run(p, |o| arith::mul_2si(o, &x.elem(), k, p, rnd))
}

/// A real function, correctly rounded.
pub(crate) fn func(f: Func, x: &F, p: u64, rnd: Round) -> (F, i8) {
    F::run(p, |o| eval_one(o, f, &x.elem(), p, rnd))
}

/// A real two-argument function, correctly rounded.
pub(crate) fn func2(f: Func2, x: &F, y: &F, p: u64, rnd: Round) -> (F, i8) {
    F::run(p, |o| eval2_one(o, f, &x.elem(), &y.elem(), p, rnd))
}

/// pi correctly rounded.
pub(crate) fn pi(p: u64, rnd: Round) -> (F, i8) {
    F::run(p, |o| const_one(o, Const::Pi, p, rnd))
}

/// ln 2 correctly rounded.
pub(crate) fn ln2(p: u64, rnd: Round) -> (F, i8) {
    F::run(p, |o| const_one(o, Const::Ln2, p, rnd))
}

/// The exact product with an unbounded exponent (MPFR's special-value rules
/// when an operand is not finite and nonzero).
pub(crate) fn mul_exact(x: &F, y: &F) -> F {
    if !x.is_normal() || !y.is_normal() {
        return mul(x, y, 1, Round::Nearest).0;
    }
    let (x0, y0) = (x.scale(-x.exp), y.scale(-y.exp));
    let (mut r, _) = mul(&x0, &y0, x.bits() + y.bits(), Round::Nearest);
    r.exp += x.exp + y.exp;
    r
}

/// `x^2`, exact.
pub(crate) fn sqr_exact(x: &F) -> F {
    mul_exact(x, x)
}

/// The exact sum when it fits in `max_bits` bits, else `None`.
pub(crate) fn add_exact(x: &F, y: &F, max_bits: u64) -> Option<F> {
    if !x.is_normal() || !y.is_normal() {
        return Some(unbounded_add(
            x,
            y,
            false,
            x.bits().max(y.bits()),
            Round::Nearest,
        ));
    }
    let hi = x.exp.max(y.exp);
    let lo = (x.exp - x.bits() as i64).min(y.exp - y.bits() as i64);
    let need = (hi - lo) as u64 + 1;
    if need > max_bits {
        return None;
    }
    // Unbounded exponents: the parts may be squares beyond MPFR's range.
    Some(unbounded_add(x, y, false, need.max(1), Round::Nearest))
}

/// The largest exact sum the interval code forms directly.
pub(crate) const EXACT_BITS: u64 = 1 << 16;

/// A closed interval `[lo, hi]` that holds an exact value.
#[derive(Clone, Debug)]
pub(crate) struct Iv {
    pub lo: F,
    pub hi: F,
}

fn min_of(v: Vec<F>) -> F {
    let mut best = v[0].clone();
    for x in &v[1..] {
        match x.cmp(&best) {
            Some(Ordering::Less) => best = x.clone(),
            None => return F::nan(),
            _ => {}
        }
    }
    if best.is_nan() { F::nan() } else { best }
}

fn max_of(v: Vec<F>) -> F {
    let mut best = v[0].clone();
    for x in &v[1..] {
        match x.cmp(&best) {
            Some(Ordering::Greater) => best = x.clone(),
            None => return F::nan(),
            _ => {}
        }
    }
    if best.is_nan() { F::nan() } else { best }
}

impl Iv {
    pub fn point(x: F) -> Iv {
        Iv {
            lo: x.clone(),
            hi: x,
        }
    }

    /// `[f(x) rounded down, f(x) rounded up]` at `w` bits.
    pub fn of_fn(f: Func, x: &F, w: u64) -> Iv {
        if let Some(iv) = tiny_fn(f, x, w) {
            return iv;
        }
        Iv {
            lo: func(f, x, w, Round::Down).0,
            hi: func(f, x, w, Round::Up).0,
        }
    }

    pub fn pi(w: u64) -> Iv {
        Iv {
            lo: pi(w, Round::Down).0,
            hi: pi(w, Round::Up).0,
        }
    }

    /// Both ends positive (> 0).
    pub fn positive(&self) -> bool {
        self.lo.sgn() > 0 && self.hi.sgn() > 0
    }

    pub fn negative(&self) -> bool {
        self.lo.sgn() < 0 && self.hi.sgn() < 0
    }

    pub fn add(&self, o: &Iv, w: u64) -> Iv {
        Iv {
            lo: unbounded_add(&self.lo, &o.lo, false, w, Round::Down),
            hi: unbounded_add(&self.hi, &o.hi, false, w, Round::Up),
        }
    }

    pub fn sub(&self, o: &Iv, w: u64) -> Iv {
        Iv {
            lo: unbounded_add(&self.lo, &o.hi, true, w, Round::Down),
            hi: unbounded_add(&self.hi, &o.lo, true, w, Round::Up),
        }
    }

    pub fn neg(&self) -> Iv {
        Iv {
            lo: self.hi.negate(),
            hi: self.lo.negate(),
        }
    }

    /// `self * 2^k`, exact.
    pub fn scale(&self, k: i64) -> Iv {
        Iv {
            lo: self.lo.scale(k),
            hi: self.hi.scale(k),
        }
    }

    pub fn mul(&self, o: &Iv, w: u64) -> Iv {
        let m = |x: &F, y: &F, r: Round| unbounded(x, y, x.exp + y.exp, |a, b| mul(a, b, w, r));
        let ends = |r: Round| {
            vec![
                m(&self.lo, &o.lo, r),
                m(&self.lo, &o.hi, r),
                m(&self.hi, &o.lo, r),
                m(&self.hi, &o.hi, r),
            ]
        };
        Iv {
            lo: min_of(ends(Round::Down)),
            hi: max_of(ends(Round::Up)),
        }
    }

    /// `self / o`; NaN ends when `o` may be zero.
    pub fn div(&self, o: &Iv, w: u64) -> Iv {
        if !(o.positive() || o.negative()) {
            return Iv::point(F::nan());
        }
        let d = |x: &F, y: &F, r: Round| unbounded(x, y, x.exp - y.exp, |a, b| div(a, b, w, r));
        let ends = |r: Round| {
            vec![
                d(&self.lo, &o.lo, r),
                d(&self.lo, &o.hi, r),
                d(&self.hi, &o.lo, r),
                d(&self.hi, &o.hi, r),
            ]
        };
        Iv {
            lo: min_of(ends(Round::Down)),
            hi: max_of(ends(Round::Up)),
        }
    }

    /// sqrt of a nonnegative interval (a negative low end is taken as 0).
    pub fn sqrt(&self, w: u64) -> Iv {
        let lo = if self.lo.sgn() < 0 {
            F::zero(false)
        } else {
            self.lo.clone()
        };
        // An even scaling keeps the root's exponent out of MPFR's range
        // checks (exact: the root of x 2^(2k) is sqrt(x) 2^k).
        let root = |x: &F, r: Round| {
            if !x.is_normal() {
                return sqrt(x, w, r).0;
            }
            let k = x.exp.div_euclid(2);
            sqrt(&x.scale(-2 * k), w, r).0.scale(k)
        };
        Iv {
            lo: root(&lo, Round::Down),
            hi: root(&self.hi, Round::Up),
        }
    }

    /// An increasing function applied to both ends.
    pub fn mono(&self, f: Func, w: u64) -> Iv {
        let end = |x: &F, r: Round, hi: bool| match tiny_fn(f, x, w) {
            Some(iv) if hi => iv.hi,
            Some(iv) => iv.lo,
            None => func(f, x, w, r).0,
        };
        Iv {
            lo: end(&self.lo, Round::Down, false),
            hi: end(&self.hi, Round::Up, true),
        }
    }
}

/// `f(x)` for a tiny `x` (`|x| < 2^-(w+16)`) and a function with `f(x) =
/// x (1 + d)`, `|d| <= x^2`: `[x - |x| 2^-w, x + |x| 2^-w]` with unbounded
/// exponents. The float engine's directed roundings of such `f(x)` near
/// the bottom of the exponent range underflow (sin of the smallest float
/// rounded down is 0), which leaves an interval that no rounding can
/// decide; and beyond the range (an exact intermediate) they are not
/// defined.
fn tiny_fn(f: Func, x: &F, w: u64) -> Option<Iv> {
    use Func::*;
    let near_identity = matches!(
        f,
        Sin | Tan | Sinh | Tanh | Asin | Atan | Asinh | Atanh | Log1p | Expm1
    );
    if !near_identity || !x.is_normal() || x.exp >= -(w as i64) - 16 {
        return None;
    }
    let d = x.abs().scale(-(w as i64));
    Some(Iv {
        lo: unbounded_add(x, &d, true, w + 2, Round::Down),
        hi: unbounded_add(x, &d, false, w + 2, Round::Up),
    })
}

/// `op(x, y)` with unbounded exponents: for two normal operands `op` runs
/// on them scaled to exponent 0 and the result is scaled by `2^e` (`e`
/// the operation's exponent sum or difference), so that an interval end
/// never overflows or underflows (a rounded end at 0 or at the smallest
/// float would hide on which side of a rounding boundary the value lies).
/// The rounding of `op` is scale-invariant, so the bits are the same.
fn unbounded(x: &F, y: &F, e: i64, op: impl Fn(&F, &F) -> (F, i8)) -> F {
    if !x.is_normal() || !y.is_normal() {
        return op(x, y).0;
    }
    op(&x.scale(-x.exp), &y.scale(-y.exp)).0.scale(e)
}

/// `x + y` (or `x - y`) at `w` bits in mode `rnd`, with unbounded
/// exponents (see [`unbounded`]).
pub(crate) fn unbounded_add(x: &F, y: &F, minus: bool, w: u64, rnd: Round) -> F {
    let f = |a: &F, b: &F| {
        if minus {
            sub(a, b, w, rnd)
        } else {
            add(a, b, w, rnd)
        }
    };
    // Scale by the larger normal operand's exponent (a zero beside a
    // normal value is scaled too: the sum is that value, rounded).
    let k = match (x.is_normal(), y.is_normal()) {
        (true, true) => x.exp.max(y.exp),
        (true, false) if y.is_zero() => x.exp,
        (false, true) if x.is_zero() => y.exp,
        _ => return f(x, y).0,
    };
    f(&x.scale(-k), &y.scale(-k)).0.scale(k)
}

/// The rounding of the value known to lie in `iv`, if every point of the
/// interval rounds alike (same value and same ternary) in mode `rnd` at `p`
/// bits: `Some((rounded, ternary))`.
pub(crate) fn round_iv(iv: &Iv, p: u64, rnd: Round) -> Option<(F, i8)> {
    let (lo, hi) = (&iv.lo, &iv.hi);
    if lo.is_nan() || hi.is_nan() {
        return None;
    }
    if lo == hi {
        // The exact value (never an infinity: the values are finite).
        if lo.is_inf() {
            return None;
        }
        return Some(set(lo, p, rnd));
    }
    if lo.is_zero() || hi.is_zero() || lo.sgn() != hi.sgn() {
        return None;
    }
    if lo.is_inf() && hi.is_inf() {
        return None;
    }
    let (a, mut ta) = set(lo, p, rnd);
    let (b, mut tb) = set(hi, p, rnd);
    // An infinite end stands for a finite value beyond every float.
    if lo.is_inf() {
        ta = -1;
    }
    if hi.is_inf() {
        tb = 1;
    }
    if a == b && ta == tb && ta != 0 {
        Some((a, ta))
    } else {
        None
    }
}

/// A part's result: value and ternary.
pub(crate) type Part = (F, i8);

/// The working precision of the first attempt for result precisions `p`.
pub(crate) fn start_prec(p: u64) -> u64 {
    p + 32 + (64 - p.leading_zeros() as u64)
}

/// Ziv's loop for both parts: `eval(w, need)` returns intervals (at working
/// precision `w`) for the parts still needed; parts decided in `pre` are
/// kept. `w` grows (+64 then doubling) up to `cap`; past it the element is
/// an error.
pub(crate) fn ziv(
    pre: [Option<Part>; 2],
    ps: [u64; 2],
    rnds: [Round; 2],
    cap: u64,
    mut eval: impl FnMut(u64, [bool; 2]) -> [Option<Iv>; 2],
) -> Result<[Part; 2], String> {
    let [mut r0, mut r1] = pre;
    let mut w = start_prec(ps[0].max(ps[1]));
    let mut tries = 0;
    loop {
        let need = [r0.is_none(), r1.is_none()];
        if let (Some(a), Some(b)) = (&r0, &r1) {
            return Ok([a.clone(), b.clone()]);
        }
        let ivs = eval(w, need);
        if need[0]
            && let Some(iv) = &ivs[0]
        {
            r0 = round_iv(iv, ps[0], rnds[0]);
        }
        if need[1]
            && let Some(iv) = &ivs[1]
        {
            r1 = round_iv(iv, ps[1], rnds[1]);
        }
        if let (Some(a), Some(b)) = (&r0, &r1) {
            return Ok([a.clone(), b.clone()]);
        }
        tries += 1;
        w = if tries == 1 { w + 64 } else { 2 * w };
        if w > cap {
            return Err(format!(
                "no correctly rounded result within {cap} bits of working precision"
            ));
        }
    }
}

/// The largest working precision for inputs of `in_bits` bits and results
/// of `p` bits.
pub(crate) fn cap_for(p: u64, in_bits: u64) -> u64 {
    (16 * (p + in_bits) + (1 << 14)).min(1 << 22)
}

/// The cap for one element whose parts (inputs) are `parts`: `cap` plus
/// four times the largest exponent among its normal parts. A part of
/// exponent `-e` beside one near 1 can need about `2e` bits to decide
/// (`cosh(2^-e) = 1 + 2^(-2e-1) + ...`, `sqrt(-1 + 2^-e i)`), which
/// `cap_for` alone does not allow for.
pub(crate) fn cap_elem(cap: u64, parts: &[&F]) -> u64 {
    let e = parts
        .iter()
        .filter(|x| x.is_normal())
        .map(|x| x.exp.unsigned_abs())
        .max()
        .unwrap_or(0);
    cap.max((cap + 4 * e.min(1 << 20)).min(1 << 22))
}

/// `x` rounded to nearest at `q` bits (a candidate for an exact result).
pub(crate) fn candidate(x: &F, q: u64) -> F {
    set(x, q.max(1), Round::Nearest).0
}
