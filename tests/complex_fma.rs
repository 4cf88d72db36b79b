//! `ComplexArray::fma` (mpc_fma) against an independent reference: each
//! part the `mpfr_sum` of its exact products (malachite-float products,
//! malachite-q sums rounded once by malachite-float), with `mpfr_mul`'s
//! special products and `mpfr_sum`'s rules for NaN, infinities and the
//! sign of an exact zero. Random parts at mixed precisions, every pair of
//! modes, exact and near cancellation (a part of `a*b + c` exactly zero or
//! far below its terms), zeros of both signs, infinities and NaN.

mod common;

use common::{Rng, seed};
use malachite_base::num::arithmetic::traits::PowerOf2;
use malachite_base::num::basic::traits::{
    Infinity, NaN, NegativeInfinity, NegativeZero, One, Zero,
};
use malachite_float::{ComparableFloat, Float};
use malachite_q::Rational;
use mparray::complex::CRound;
use mparray::float::to_rounding_mode;
use mparray::{ComplexArray, Engine, FloatArray, Round};

/// mpfr_sum of terms, each the exact product of its factors (`neg`:
/// negated), rounded to `p` bits in `rnd`, with its ternary value.
fn reference(terms: &[(Vec<&Float>, bool)], p: u64, rnd: Round) -> (Float, i8) {
    let (mut nan, mut pinf, mut ninf) = (false, false, false);
    let (mut zeros, mut negz) = (0usize, 0usize);
    let mut sum = Rational::ZERO;
    let mut nonzero = 0usize;
    for (f, negate) in terms {
        let neg = f.iter().fold(*negate, |s, x| s ^ x.is_sign_negative());
        let has_inf = f.iter().any(|x| x.is_infinite());
        let has_zero = f.iter().any(|x| x.is_zero());
        if f.iter().any(|x| x.is_nan()) || (has_inf && has_zero) {
            nan = true;
        } else if has_inf {
            if neg { ninf = true } else { pinf = true }
        } else if has_zero {
            zeros += 1;
            negz += neg as usize;
        } else {
            let prod = f
                .iter()
                .fold(Rational::ONE, |a, x| a * Rational::try_from(*x).unwrap());
            sum += if *negate { -prod } else { prod };
            nonzero += 1;
        }
    }
    if nan || (pinf && ninf) {
        return (Float::NAN, 0);
    }
    if pinf || ninf {
        return (
            if ninf {
                Float::NEGATIVE_INFINITY
            } else {
                Float::INFINITY
            },
            0,
        );
    }
    common::mpfr_sum_of(sum, nonzero, zeros, negz, p, rnd)
}

/// A random part: a special value now and then, else a float of `q` bits
/// with an exponent in [-30, 30].
fn part(r: &mut Rng, q: u64, specials: bool) -> Float {
    if specials && r.below(6) == 0 {
        return [
            Float::ZERO,
            Float::NEGATIVE_ZERO,
            Float::INFINITY,
            Float::NEGATIVE_INFINITY,
            Float::NAN,
        ][r.index(5)]
        .clone();
    }
    if r.below(10) == 0 {
        return [Float::ZERO, Float::NEGATIVE_ZERO][r.index(2)].clone();
    }
    let m = Rational::from(r.next() >> 1) / Rational::from(1u64 << 62);
    let e = r.range(-30, 30);
    let v = if r.below(2) == 0 { -m } else { m } * Rational::power_of_2(e);
    Float::from_rational_prec_round(v, q, to_rounding_mode(Round::Nearest)).0
}

fn array(p: (u64, u64), v: &[(Float, Float)]) -> ComplexArray {
    let re: Vec<Float> = v.iter().map(|x| x.0.clone()).collect();
    let im: Vec<Float> = v.iter().map(|x| x.1.clone()).collect();
    ComplexArray::new(
        FloatArray::from_floats(p.0, &re, Round::Nearest).unwrap().0,
        FloatArray::from_floats(p.1, &im, Round::Nearest).unwrap().0,
    )
    .unwrap()
}

#[allow(clippy::too_many_arguments)]
fn check(
    a: &[(Float, Float)],
    b: &[(Float, Float)],
    c: &[(Float, Float)],
    q: [(u64, u64); 3],
    pr: u64,
    pi: u64,
    rnd: CRound,
    what: &str,
) {
    let (x, y, z) = (array(q[0], a), array(q[1], b), array(q[2], c));
    let (r, t) = x.fma_ternary(&y, &z, pr, pi, rnd).unwrap();
    let (vals, tern) = (r.to_floats().unwrap(), t.to_pairs().unwrap());
    for i in 0..a.len() {
        let (ai, bi, ci) = (&a[i], &b[i], &c[i]);
        let re = reference(
            &[
                (vec![&ai.0, &bi.0], false),
                (vec![&ai.1, &bi.1], true),
                (vec![&ci.0], false),
            ],
            pr,
            rnd.re,
        );
        let im = reference(
            &[
                (vec![&ai.0, &bi.1], false),
                (vec![&ai.1, &bi.0], false),
                (vec![&ci.1], false),
            ],
            pi,
            rnd.im,
        );
        let (gre, gim) = &vals[i];
        let ok = ComparableFloat(gre.clone()) == ComparableFloat(re.0.clone())
            && ComparableFloat(gim.clone()) == ComparableFloat(im.0.clone())
            && (re.0.is_nan() || tern[i].0 == re.1)
            && (im.0.is_nan() || tern[i].1 == im.1);
        assert!(
            ok,
            "{what} {rnd:?} element {i}: ({}, {}) * ({}, {}) + ({}, {}): got ({gre}, {gim}) {:?}, want ({}, {}) ({}, {})",
            ai.0, ai.1, bi.0, bi.1, ci.0, ci.1, tern[i], re.0, im.0, re.1, im.1
        );
    }
}

#[test]
fn fma_against_exact_sums() {
    let mut r = Rng(seed());
    let modes = CRound::all();
    for k in 0..60 {
        let specials = k % 3 == 0;
        let q: [(u64, u64); 3] = std::array::from_fn(|_| {
            (
                r.pick(&[1u64, 24, 53, 64, 65, 200]),
                r.pick(&[1u64, 24, 53, 64, 65, 200]),
            )
        });
        let (pr, pi) = (
            r.pick(&[1u64, 2, 24, 53, 64, 113, 300]),
            r.pick(&[1u64, 24, 53, 64, 113, 300]),
        );
        let rnd = modes[r.index(modes.len())];
        let n = 40;
        let a: Vec<_> = (0..n)
            .map(|_| {
                (
                    part(&mut r, q[0].0, specials),
                    part(&mut r, q[0].1, specials),
                )
            })
            .collect();
        let b: Vec<_> = (0..n)
            .map(|_| {
                (
                    part(&mut r, q[1].0, specials),
                    part(&mut r, q[1].1, specials),
                )
            })
            .collect();
        let c: Vec<_> = (0..n)
            .map(|_| {
                (
                    part(&mut r, q[2].0, specials),
                    part(&mut r, q[2].1, specials),
                )
            })
            .collect();
        check(
            &a,
            &b,
            &c,
            q,
            pr,
            pi,
            rnd,
            &format!("random {q:?} -> ({pr}, {pi})"),
        );
    }
}

/// c = -(a*b) exactly (a, b of 20 bits, c of 41 or more): both parts of
/// a*b + c cancel to zero; and c off by one unit far below: the sum is
/// tiny against its terms. Zero signs and the Ziv loop's fallback.
#[test]
fn fma_cancellation() {
    let mut r = Rng(seed());
    let modes = CRound::all();
    let qab = (20, 20);
    for k in 0..25 {
        let rnd = modes[k % modes.len()];
        let n = 30;
        let a: Vec<_> = (0..n)
            .map(|_| (part(&mut r, 20, false), part(&mut r, 20, false)))
            .collect();
        let b: Vec<_> = (0..n)
            .map(|_| (part(&mut r, 20, false), part(&mut r, 20, false)))
            .collect();
        let c: Vec<(Float, Float)> = a
            .iter()
            .zip(&b)
            .enumerate()
            .map(|(i, (x, y))| {
                let q = |f: &Float| Rational::try_from(f).unwrap();
                let re = q(&x.0) * q(&y.0) - q(&x.1) * q(&y.1);
                let im = q(&x.0) * q(&y.1) + q(&x.1) * q(&y.0);
                // Every third element: one unit of 2^-120 off (far below).
                let tiny = Rational::power_of_2(-120i64);
                let (re, im) = if i % 3 == 1 {
                    (re + &tiny, im - tiny)
                } else {
                    (re, im)
                };
                let f = |v: Rational| {
                    Float::from_rational_prec_round(-v, 200, to_rounding_mode(Round::Nearest)).0
                };
                (f(re), f(im))
            })
            .collect();
        for (pr, pi) in [(53u64, 53u64), (1, 200), (113, 24)] {
            check(
                &a,
                &b,
                &c,
                [qab, qab, (200, 200)],
                pr,
                pi,
                rnd,
                &format!("cancellation k={k}"),
            );
        }
    }
}

/// Engines: the same bits on CUDA as on the CPU (ignored without a GPU).
#[test]
#[ignore = "needs a GPU"]
fn cuda_fma_equals_cpu() {
    let dev = Engine::cuda().unwrap();
    let mut r = Rng(seed());
    let n = 200;
    let q = 100;
    let mk = |r: &mut Rng| -> Vec<(Float, Float)> {
        (0..n)
            .map(|_| (part(r, q, true), part(r, q, true)))
            .collect()
    };
    let (a, b, c) = (mk(&mut r), mk(&mut r), mk(&mut r));
    let (x, y, z) = (array((q, q), &a), array((q, q), &b), array((q, q), &c));
    let rnd = CRound::both(Round::Nearest);
    let want = x.fma(&y, &z, 90, 90, rnd).unwrap();
    let on = |v: &ComplexArray| v.to_engine(&dev).unwrap();
    let got = on(&x).fma(&on(&y), &on(&z), 90, 90, rnd).unwrap();
    assert!(got.to_engine(&Engine::Cpu).unwrap() == want);
}
