//! The BLAS layer on the CPU engine against an independent exact
//! reference: malachite-q rational sums of the exact products, rounded by
//! malachite-float's `from_rational_prec_round` (ternary included), with
//! `mpfr_sum`'s rules for special values and signed zeros. Every rounding
//! mode; cancellation, exponents across the whole range, specials, shapes
//! 0/1/odd, and order independence. Long sums cancelling across exponents
//! `+-2^29` (too wide for rationals) use a reference built from the exact
//! sums of their separate clusters ([`cluster_ref`]), itself checked
//! against the rational one on narrower spreads.

mod common;

use std::cmp::Ordering;

use common::{Rng, seed};
use malachite_base::num::arithmetic::traits::{Abs, PowerOf2, Sign};
use malachite_base::num::basic::traits::{
    Infinity, NaN, NegativeInfinity, NegativeOne, NegativeZero, One, Zero,
};
use malachite_base::num::logic::traits::SignificantBits;
use malachite_float::{ComparableFloat, Float};
use malachite_nz::integer::Integer;
use malachite_nz::natural::Natural;
use malachite_q::Rational;
use mparray::complex::CRound;
use mparray::float::to_rounding_mode;
use mparray::linalg::{CGemm, CGemv, Gemm, Gemv, Herk, Op, Syrk, Uplo};
use mparray::{ComplexArray, Engine, FloatArray, Matrix, Round};

/// One term: its factors and whether it is negated.
type Term = (Vec<Float>, bool);

fn rat(f: &Float) -> Rational {
    Rational::try_from(f).expect("a finite float")
}

fn tern(o: Ordering) -> i8 {
    match o {
        Ordering::Less => -1,
        Ordering::Equal => 0,
        Ordering::Greater => 1,
    }
}

/// The classes of the terms and their exact rational sum: `mpfr_sum` of
/// the exact products, as a value to round.
enum Exact {
    Special(Float),
    Value(Rational),
}

fn exact_sum(terms: &[Term], rnd: Round) -> Exact {
    let (mut nan, mut pinf, mut ninf) = (false, false, false);
    let (mut zeros, mut negz, mut nonzero) = (0usize, 0usize, 0usize);
    let mut sum = Rational::ZERO;
    for (f, neg) in terms {
        let sign = f.iter().fold(*neg, |s, x| s ^ x.is_sign_negative());
        if f.iter().any(|x| x.is_nan())
            || (f.iter().any(|x| x.is_infinite()) && f.iter().any(|x| x.is_zero()))
        {
            nan = true;
        } else if f.iter().any(|x| x.is_infinite()) {
            if sign { ninf = true } else { pinf = true }
        } else if f.iter().any(|x| x.is_zero()) {
            zeros += 1;
            negz += sign as usize;
        } else {
            let v = f.iter().fold(Rational::ONE, |a, x| a * rat(x));
            sum += if *neg { -v } else { v };
            nonzero += 1;
        }
    }
    if nan || (pinf && ninf) {
        return Exact::Special(Float::NAN);
    }
    if pinf {
        return Exact::Special(Float::INFINITY);
    }
    if ninf {
        return Exact::Special(Float::NEGATIVE_INFINITY);
    }
    if nonzero == 0 {
        let neg = if zeros > 0 && negz == zeros {
            true
        } else if negz == 0 {
            false
        } else {
            rnd == Round::Down
        };
        return Exact::Special(if neg {
            Float::NEGATIVE_ZERO
        } else {
            Float::ZERO
        });
    }
    if sum == 0u32 {
        return Exact::Special(if rnd == Round::Down {
            Float::NEGATIVE_ZERO
        } else {
            Float::ZERO
        });
    }
    Exact::Value(sum)
}

/// The reference: the exact sum of `terms` rounded to `p` bits in `rnd`.
fn ref_sum(terms: &[Term], p: u64, rnd: Round) -> (Float, i8) {
    match exact_sum(terms, rnd) {
        Exact::Special(f) => (f, 0),
        Exact::Value(v) => {
            let (f, o) = Float::from_rational_prec_round(v, p, to_rounding_mode(rnd));
            (f, tern(o))
        }
    }
}

/// The reference square root of the exact sum of `terms`.
fn ref_sqrt_sum(terms: &[Term], p: u64, rnd: Round) -> (Float, i8) {
    match exact_sum(terms, rnd) {
        Exact::Special(f) => (f, 0),
        Exact::Value(v) => {
            let mut bits = 256;
            loop {
                let (x, o) = Float::from_rational_prec(v.clone(), bits);
                if o == Ordering::Equal {
                    let (r, o) = x.sqrt_prec_round_ref(p, to_rounding_mode(rnd));
                    return (r, tern(o));
                }
                bits *= 2;
            }
        }
    }
}

fn check(what: &str, got: &Float, t: i8, want: &(Float, i8)) {
    assert_eq!(
        ComparableFloat(got.clone()),
        ComparableFloat(want.0.clone()),
        "{what}: got {got:#x}, want {:#x}",
        want.0
    );
    assert_eq!(t, want.1, "{what}: ternary (value {got:#x})");
}

fn arr(p: u64, v: &[Float]) -> FloatArray {
    let (a, t) = FloatArray::from_floats(p, v, Round::Nearest).unwrap();
    assert!(t.to_vec().unwrap().iter().all(|&x| x == 0), "inputs exact");
    a
}

fn carr(p: u64, re: &[Float], im: &[Float]) -> ComplexArray {
    ComplexArray::new(arr(p, re), arr(p, im)).unwrap()
}

/// `n` random floats of `p` bits, exponents in `emin..=emax`, with some
/// zeros (both signs) and, when `specials`, NaN and infinities.
fn rnd_floats(g: &mut Rng, n: usize, p: u64, emin: i64, emax: i64, specials: bool) -> Vec<Float> {
    let mut v = FloatArray::random_exp(&Engine::Cpu, n, p, g.next(), emin, emax)
        .unwrap()
        .to_floats()
        .unwrap();
    for x in v.iter_mut() {
        match g.below(if specials { 40 } else { 20 }) {
            0 => *x = Float::ZERO,
            1 => *x = Float::NEGATIVE_ZERO,
            2 if specials => *x = Float::NAN,
            3 if specials => *x = Float::INFINITY,
            4 if specials => *x = Float::NEGATIVE_INFINITY,
            _ => {}
        }
    }
    v
}

fn pow2(k: i64) -> Float {
    Float::power_of_2(k)
}

fn dot_terms(x: &[Float], y: &[Float]) -> Vec<Term> {
    x.iter()
        .zip(y)
        .map(|(a, b)| (vec![a.clone(), b.clone()], false))
        .collect()
}

fn first(a: &FloatArray) -> Float {
    a.to_float(0).unwrap()
}

fn t0(t: &mparray::TernaryArray) -> i8 {
    t.to_vec().unwrap()[0]
}

/// Checks `dot` on `x`, `y` in every mode at `p` bits.
fn check_dot(what: &str, x: &[Float], y: &[Float], p: u64) {
    let q = x
        .iter()
        .chain(y)
        .map(|f| f.get_prec().unwrap_or(1))
        .max()
        .unwrap_or(1);
    let (xa, ya) = (arr(q, x), arr(q, y));
    let terms = dot_terms(x, y);
    for rnd in Round::ALL {
        let (r, t) = xa.dot(&ya, p, rnd).unwrap();
        let w = format!("{what} p={p} {rnd:?}");
        check(&w, &first(&r), t0(&t), &ref_sum(&terms, p, rnd));
    }
}

#[test]
fn dot_random_all_modes() {
    let mut g = Rng(seed());
    for &p in &[1u64, 2, 24, 53, 64, 65, 130, 300] {
        for &n in &[0usize, 1, 2, 3, 7, 33] {
            let x = rnd_floats(&mut g, n, p, -40, 40, false);
            let y = rnd_floats(&mut g, n, p, -40, 40, false);
            check_dot(&format!("dot n={n}"), &x, &y, p);
            // Other output precisions than the inputs'.
            check_dot(&format!("dot n={n} to p+7"), &x, &y, p + 7);
        }
    }
}

#[test]
fn dot_specials_and_zero_signs() {
    let mut g = Rng(seed());
    for _ in 0..30 {
        let n = g.index(6);
        let x = rnd_floats(&mut g, n, 20, -5, 5, true);
        let y = rnd_floats(&mut g, n, 20, -5, 5, true);
        check_dot("dot specials", &x, &y, 20);
    }
    let (z, nz, one) = (Float::ZERO, Float::NEGATIVE_ZERO, Float::ONE);
    let cases: Vec<(Vec<Float>, Vec<Float>)> = vec![
        (vec![], vec![]),
        (vec![nz.clone()], vec![one.clone()]),
        (vec![nz.clone(), z.clone()], vec![one.clone(), one.clone()]),
        (vec![nz.clone(), nz.clone()], vec![one.clone(), one.clone()]),
        (vec![z.clone(), z.clone()], vec![one.clone(), -one.clone()]),
        (
            vec![one.clone(), -one.clone()],
            vec![one.clone(), one.clone()],
        ),
        (
            vec![Float::INFINITY, z.clone()],
            vec![z.clone(), one.clone()],
        ),
        (
            vec![Float::INFINITY, Float::NEGATIVE_INFINITY],
            vec![one.clone(), one.clone()],
        ),
        (
            vec![Float::INFINITY, one.clone()],
            vec![-one.clone(), one.clone()],
        ),
        (
            vec![Float::NAN, one.clone()],
            vec![one.clone(), one.clone()],
        ),
    ];
    for (x, y) in &cases {
        check_dot("dot special case", x, y, 10);
    }
    // The signs of the explicit results.
    let (r, _) = arr(10, &[nz.clone(), nz.clone()])
        .dot(&arr(10, &[one.clone(), one.clone()]), 10, Round::Up)
        .unwrap();
    assert!(first(&r).is_sign_negative(), "all -0 terms give -0");
    for rnd in Round::ALL {
        let (r, _) = arr(10, &[one.clone(), -one.clone()])
            .dot(&arr(10, &[one.clone(), one.clone()]), 10, rnd)
            .unwrap();
        assert_eq!(first(&r).is_sign_negative(), rnd == Round::Down, "{rnd:?}");
    }
}

#[test]
fn dot_cancellation() {
    let mut g = Rng(seed());
    for &p in &[3u64, 53, 113, 256] {
        for _ in 0..6 {
            // Pairs that cancel exactly, around terms far below the largest.
            let n = 2 + g.index(10);
            let mut x = rnd_floats(&mut g, n, p, -30, 30, false);
            let mut y = rnd_floats(&mut g, n, p, -30, 30, false);
            let (bx, by) = (
                rnd_floats(&mut g, 4, p, 200, 260, false),
                rnd_floats(&mut g, 4, p, 0, 50, false),
            );
            for k in 0..4 {
                x.push(bx[k].clone());
                y.push(by[k].clone());
                x.push(-bx[k].clone());
                y.push(by[k].clone());
            }
            check_dot("cancel below", &x, &y, p);
            // Only cancelling pairs: an exact zero.
            check_dot("cancel to zero", &x[n..], &y[n..], p);
            // Near cancellation: a + b - (a + b rounded) leaves the error.
            let a = rnd_floats(&mut g, 3, p, -10, 10, false);
            let s = Float::from_rational_prec(rat(&a[0]) + rat(&a[1]) + rat(&a[2]), p).0;
            let xs = vec![a[0].clone(), a[1].clone(), a[2].clone(), s];
            let one = Float::ONE;
            let ys = vec![one.clone(), one.clone(), one.clone(), -one];
            check_dot("near cancel", &xs, &ys, p);
        }
    }
}

/// `1 + 2^-p + s 2^-e` (s in -1, 0, 1): a midpoint of precision p nudged
/// by a term `e` bits down (as the product of two factors `2^(-e/2)`).
fn nudged(p: u64, s: i64, e: i64) -> (Vec<Float>, Vec<Float>) {
    let one = Float::ONE;
    let mut x = vec![one.clone(), pow2(-(p as i64))];
    let mut y = vec![one.clone(), one.clone()];
    if s != 0 {
        let h = pow2(-e / 2);
        x.push(if s < 0 { -h.clone() } else { h.clone() });
        y.push(h);
    }
    (x, y)
}

#[test]
fn dot_hard_rounding_across_the_exponent_range() {
    // The result of 1 + 2^-p + s 2^-e is the same for every large e: the
    // reference at e = p + 300 decides the case e = 2^29.
    for &p in &[1u64, 2, 53, 64, 200] {
        for s in [-1, 0, 1] {
            let (rx, ry) = nudged(p, s, 2 * (p as i64 + 150));
            let (x, y) = nudged(p, s, 1 << 29);
            let terms = dot_terms(&rx, &ry);
            let (xa, ya) = (arr(p.max(2), &x), arr(p.max(2), &y));
            for rnd in Round::ALL {
                let (r, t) = xa.dot(&ya, p, rnd).unwrap();
                check(
                    &format!("nudged p={p} s={s} {rnd:?}"),
                    &first(&r),
                    t0(&t),
                    &ref_sum(&terms, p, rnd),
                );
            }
        }
    }
}

#[test]
fn dot_wide_exponents() {
    // Terms in clusters 2^(c D), c in -2..=2, D = 2^28 (products reach
    // 2^(+-2^29)); the reference uses D' = 6000, which rounds alike: the
    // same mantissa, sign and ternary, exponents apart by a multiple of D -
    // D'.
    let mut g = Rng(seed());
    let (d, dr) = (1i64 << 28, 6000i64);
    for &p in &[2u64, 53, 100] {
        for _ in 0..20 {
            let n = 1 + g.index(60);
            let mut x = Vec::new();
            let mut y = Vec::new();
            let mut xr = Vec::new();
            let mut yr = Vec::new();
            for _ in 0..n {
                let (cx, cy) = (g.range(-1, 1), g.range(-1, 1));
                let a = rnd_floats(&mut g, 2, p, -20, 20, false);
                let s = |f: &Float, k: i64| f.clone() << k;
                x.push(s(&a[0], cx * d));
                y.push(s(&a[1], cy * d));
                xr.push(s(&a[0], cx * dr));
                yr.push(s(&a[1], cy * dr));
                // Some exact cancellation in the top cluster.
                if g.below(3) == 0 {
                    x.push(-s(&a[0], cx * d));
                    y.push(s(&a[1], cy * d));
                    xr.push(-s(&a[0], cx * dr));
                    yr.push(s(&a[1], cy * dr));
                }
            }
            let (xa, ya) = (arr(p, &x), arr(p, &y));
            let terms = dot_terms(&xr, &yr);
            for rnd in Round::ALL {
                let (r, t) = xa.dot(&ya, p, rnd).unwrap();
                let got = first(&r);
                let (want, wt) = ref_sum(&terms, p, rnd);
                let what = format!("wide p={p} n={n} {rnd:?}");
                assert_eq!(t0(&t), wt, "{what}: ternary");
                assert_eq!(got.is_sign_negative(), want.is_sign_negative(), "{what}");
                match (got.get_exponent(), want.get_exponent()) {
                    (Some(eg), Some(ew)) => {
                        assert_eq!((eg as i64 - ew as i64) % (d - dr), 0, "{what}: exponents");
                        let k = ew as i64 - eg as i64;
                        let back = got.clone() << k;
                        assert_eq!(ComparableFloat(back), ComparableFloat(want), "{what}");
                    }
                    _ => assert_eq!(ComparableFloat(got), ComparableFloat(want), "{what}"),
                }
            }
        }
    }
}

#[test]
fn dot_independent_of_order() {
    let mut g = Rng(seed());
    for &p in &[17u64, 64, 190] {
        let n = 41;
        let mut x = rnd_floats(&mut g, n, p, -100, 100, false);
        let mut y = rnd_floats(&mut g, n, p, -100, 100, false);
        // Heavy cancellation: every term and its negation, plus a few.
        let (cx, cy) = (x.clone(), y.clone());
        for (a, b) in cx.iter().zip(&cy).take(30) {
            x.push(-a.clone());
            y.push(b.clone());
        }
        let want: Vec<_> = Round::ALL
            .iter()
            .map(|&r| {
                let (v, t) = arr(p, &x).dot(&arr(p, &y), p, r).unwrap();
                (v.to_hex_strings().unwrap(), t.to_vec().unwrap())
            })
            .collect();
        for _ in 0..5 {
            let mut idx: Vec<usize> = (0..x.len()).collect();
            for i in (1..idx.len()).rev() {
                idx.swap(i, g.index(i + 1));
            }
            let xs: Vec<Float> = idx.iter().map(|&i| x[i].clone()).collect();
            let ys: Vec<Float> = idx.iter().map(|&i| y[i].clone()).collect();
            for (k, &r) in Round::ALL.iter().enumerate() {
                let (v, t) = arr(p, &xs).dot(&arr(p, &ys), p, r).unwrap();
                assert_eq!(
                    (v.to_hex_strings().unwrap(), t.to_vec().unwrap()),
                    want[k],
                    "shuffled p={p} {r:?}"
                );
            }
        }
    }
}

#[test]
fn nrm2_asum_axpy_scal_real() {
    let mut g = Rng(seed());
    for &p in &[1u64, 5, 53, 129] {
        for &n in &[0usize, 1, 2, 5, 16] {
            let x = rnd_floats(&mut g, n, p, -30, 30, n == 5);
            let y = rnd_floats(&mut g, n, p, -30, 30, false);
            let a = rnd_floats(&mut g, 1, p, -3, 3, false);
            let (xa, ya, aa) = (arr(p, &x), arr(p, &y), arr(p, &a));
            let sq: Vec<Term> = x
                .iter()
                .map(|v| (vec![v.clone(), v.clone()], false))
                .collect();
            let ab: Vec<Term> = x.iter().map(|v| (vec![v.clone().abs()], false)).collect();
            for rnd in Round::ALL {
                let w = format!("p={p} n={n} {rnd:?}");
                let (r, t) = xa.nrm2(p, rnd).unwrap();
                check(
                    &format!("nrm2 {w}"),
                    &first(&r),
                    t0(&t),
                    &ref_sqrt_sum(&sq, p, rnd),
                );
                let (r, t) = xa.asum(p, rnd).unwrap();
                check(
                    &format!("asum {w}"),
                    &first(&r),
                    t0(&t),
                    &ref_sum(&ab, p, rnd),
                );
                let (r, t) = ya.axpy(&aa, &xa, p, rnd).unwrap();
                let (r, t) = (r.to_floats().unwrap(), t.to_vec().unwrap());
                let (s, ts) = xa.scal(&aa, p, rnd).unwrap();
                let (s, ts) = (s.to_floats().unwrap(), ts.to_vec().unwrap());
                for i in 0..n {
                    let terms = vec![
                        (vec![a[0].clone(), x[i].clone()], false),
                        (vec![y[i].clone()], false),
                    ];
                    check(
                        &format!("axpy {w} i={i}"),
                        &r[i],
                        t[i],
                        &ref_sum(&terms, p, rnd),
                    );
                    let terms = vec![(vec![a[0].clone(), x[i].clone()], false)];
                    check(
                        &format!("scal {w} i={i}"),
                        &s[i],
                        ts[i],
                        &ref_sum(&terms, p, rnd),
                    );
                }
            }
        }
    }
    // Exact square roots: nrm2(3, 4) = 5; and a huge spread.
    for rnd in Round::ALL {
        let x = arr(8, &[Float::from(3u32), Float::from(-4i32)]);
        let (r, t) = x.nrm2(3, rnd).unwrap();
        assert_eq!(
            ComparableFloat(first(&r)),
            ComparableFloat(Float::from(5u32))
        );
        assert_eq!(t0(&t), 0);
        let x = arr(8, &[pow2(1 << 28), pow2(-(1 << 28))]);
        let (r, t) = x.nrm2(8, rnd).unwrap();
        let up = matches!(rnd, Round::Up | Round::Away);
        let big = Rational::power_of_2(1i64 << 28);
        let want = if up {
            big * Rational::from(129u32) / Rational::from(128u32)
        } else {
            big
        };
        assert_eq!(rat(&first(&r)), want, "nrm2 spread {rnd:?}");
        assert_eq!(t0(&t), if up { 1 } else { -1 });
    }
}

/// The real terms of the part (`im`) of a product of complex factors
/// `(re, im, conjugated)` (im None: a real factor).
fn cterms(out: &mut Vec<Term>, f: &[(Float, Option<Float>)], im: bool, neg: bool) {
    let n = f.len();
    'm: for mask in 0u32..(1 << n) {
        let c = mask.count_ones();
        if (c % 2 == 1) != im {
            continue;
        }
        let mut fs = Vec::new();
        for (j, (re, ip)) in f.iter().enumerate() {
            if mask >> j & 1 == 1 {
                let Some(v) = ip else { continue 'm };
                fs.push(v.clone());
            } else {
                fs.push(re.clone());
            }
        }
        out.push((fs, neg ^ ((c / 2) % 2 == 1)));
    }
}

/// A complex factor; `conj` negates the imaginary part.
fn cf(re: &[Float], im: &[Float], i: usize, conj: bool) -> (Float, Option<Float>) {
    let v = if conj { -im[i].clone() } else { im[i].clone() };
    (re[i].clone(), Some(v))
}

fn check_c(
    what: &str,
    z: &ComplexArray,
    t: &mparray::complex::ComplexTernary,
    i: usize,
    want: [(Float, i8); 2],
) {
    let v = z.to_floats().unwrap();
    let tp = t.to_pairs().unwrap();
    check(&format!("{what} re"), &v[i].0, tp[i].0, &want[0]);
    check(&format!("{what} im"), &v[i].1, tp[i].1, &want[1]);
}

#[test]
fn complex_level1() {
    let mut g = Rng(seed());
    for &p in &[2u64, 53, 100] {
        for &n in &[0usize, 1, 3, 8] {
            let (xr, xi) = (
                rnd_floats(&mut g, n, p, -20, 20, n == 3),
                rnd_floats(&mut g, n, p, -20, 20, false),
            );
            let (yr, yi) = (
                rnd_floats(&mut g, n, p, -20, 20, false),
                rnd_floats(&mut g, n, p, -20, 20, false),
            );
            let (ar, ai) = (
                rnd_floats(&mut g, 1, p, -2, 2, false),
                rnd_floats(&mut g, 1, p, -2, 2, false),
            );
            let (x, y, a) = (carr(p, &xr, &xi), carr(p, &yr, &yi), carr(p, &ar, &ai));
            for rr in [
                CRound::new(Round::Nearest, Round::Down),
                CRound::new(Round::Up, Round::Zero),
                CRound::both(Round::Away),
            ] {
                let q = p + 3;
                let w = format!("p={p} n={n} {}", rr.name());
                for conj in [false, true] {
                    let (r, t) = if conj {
                        x.dotc(&y, p, q, rr)
                    } else {
                        x.dotu(&y, p, q, rr)
                    }
                    .unwrap();
                    let mut want = Vec::new();
                    for (part, pp, rm) in [(false, p, rr.re), (true, q, rr.im)] {
                        let mut terms = Vec::new();
                        for i in 0..n {
                            cterms(
                                &mut terms,
                                &[cf(&xr, &xi, i, conj), cf(&yr, &yi, i, false)],
                                part,
                                false,
                            );
                        }
                        want.push(ref_sum(&terms, pp, rm));
                    }
                    check_c(
                        &format!("dot conj={conj} {w}"),
                        &r,
                        &t,
                        0,
                        [want[0].clone(), want[1].clone()],
                    );
                }
                let mut sq = Vec::new();
                let mut ab = Vec::new();
                for i in 0..n {
                    for v in [&xr[i], &xi[i]] {
                        sq.push((vec![v.clone(), v.clone()], false));
                        ab.push((vec![v.clone().abs()], false));
                    }
                }
                let (r, t) = x.nrm2(p, rr.re).unwrap();
                check(
                    &format!("cnrm2 {w}"),
                    &first(&r),
                    t0(&t),
                    &ref_sqrt_sum(&sq, p, rr.re),
                );
                let (r, t) = x.asum(p, rr.re).unwrap();
                check(
                    &format!("casum {w}"),
                    &first(&r),
                    t0(&t),
                    &ref_sum(&ab, p, rr.re),
                );
                let (r, t) = y.axpy(&a, &x, p, q, rr).unwrap();
                let (s, ts) = x.scal(&a, p, q, rr).unwrap();
                for i in 0..n {
                    let mut wa = Vec::new();
                    let mut ws = Vec::new();
                    for (part, pp, rm) in [(false, p, rr.re), (true, q, rr.im)] {
                        let mut terms = Vec::new();
                        cterms(
                            &mut terms,
                            &[cf(&ar, &ai, 0, false), cf(&xr, &xi, i, false)],
                            part,
                            false,
                        );
                        ws.push(ref_sum(&terms, pp, rm));
                        terms.push((
                            vec![if part { yi[i].clone() } else { yr[i].clone() }],
                            false,
                        ));
                        wa.push(ref_sum(&terms, pp, rm));
                    }
                    check_c(
                        &format!("caxpy {w} i={i}"),
                        &r,
                        &t,
                        i,
                        [wa[0].clone(), wa[1].clone()],
                    );
                    check_c(
                        &format!("cscal {w} i={i}"),
                        &s,
                        &ts,
                        i,
                        [ws[0].clone(), ws[1].clone()],
                    );
                }
            }
        }
    }
}

/// A real matrix of random elements with a leading dimension `cols + pad`.
fn rmat(g: &mut Rng, r: usize, c: usize, p: u64, pad: usize) -> (Matrix<FloatArray>, Vec<Float>) {
    let ld = c + pad;
    let len = if r == 0 || c == 0 {
        0
    } else {
        (r - 1) * ld + c
    };
    let v = rnd_floats(g, len, p, -20, 20, false);
    (Matrix::from_array_ld(arr(p, &v), r, c, ld).unwrap(), v)
}

fn at(v: &[Float], ld: usize, op: Op, i: usize, j: usize) -> Float {
    match op {
        Op::None => v[i * ld + j].clone(),
        _ => v[j * ld + i].clone(),
    }
}

fn dims(op: Op, r: usize, c: usize) -> (usize, usize) {
    if op == Op::None { (r, c) } else { (c, r) }
}

#[test]
fn real_level2_level3() {
    let mut g = Rng(seed());
    let shapes = [
        (0usize, 0usize, 0usize),
        (0, 3, 2),
        (2, 0, 3),
        (3, 2, 0),
        (1, 1, 1),
        (3, 5, 2),
        (4, 1, 3),
        (2, 7, 5),
    ];
    let ops = [Op::None, Op::Trans, Op::ConjTrans];
    for &p in &[3u64, 53, 70] {
        for &(m, k, n) in &shapes {
            for &rnd in &Round::ALL {
                let (oa, ob) = (g.pick(&ops), g.pick(&ops));
                let (ra, ca) = dims(oa, m, k);
                let (rb, cb) = dims(ob, k, n);
                let pad = g.index(2);
                let (a, av) = rmat(&mut g, ra, ca, p, pad);
                let pad = g.index(2);
                let (b, bv) = rmat(&mut g, rb, cb, p, pad);
                let (c, cvv) = rmat(&mut g, m, n, p, 0);
                let al = rnd_floats(&mut g, 1, p, -3, 3, false);
                let be = rnd_floats(&mut g, 1, p, -3, 3, false);
                let (ala, bea) = (arr(p, &al), arr(p, &be));
                let with_c = g.below(2) == 0;
                let o = Gemm {
                    op_a: oa,
                    op_b: ob,
                    prec: p,
                    rnd,
                };
                let (r, t) = a.gemm(&b, &ala, with_c.then_some((&bea, &c)), &o).unwrap();
                assert_eq!((r.rows(), r.cols()), (m, n));
                let rows = r.to_rows().unwrap();
                let tv = t.to_vec().unwrap();
                for i in 0..m {
                    for j in 0..n {
                        let mut terms: Vec<Term> = (0..k)
                            .map(|l| {
                                (
                                    vec![
                                        al[0].clone(),
                                        at(&av, a.ld(), oa, i, l),
                                        at(&bv, b.ld(), ob, l, j),
                                    ],
                                    false,
                                )
                            })
                            .collect();
                        if with_c {
                            terms.push((vec![be[0].clone(), cvv[i * n + j].clone()], false));
                        }
                        let w = format!("gemm {m}x{k}x{n} {oa:?}{ob:?} p={p} {rnd:?} ({i},{j})");
                        check(&w, &rows[i][j], tv[i * n + j], &ref_sum(&terms, p, rnd));
                    }
                }
                // gemv: op(A) is m x k.
                let x = rnd_floats(&mut g, k, p, -20, 20, false);
                let y = rnd_floats(&mut g, m, p, -20, 20, false);
                let o = Gemv {
                    op: oa,
                    prec: p,
                    rnd,
                };
                let (xa, ya) = (arr(p, &x), arr(p, &y));
                let (r, t) = a
                    .gemv(&ala, &xa, with_c.then_some((&bea, &ya)), &o)
                    .unwrap();
                let (r, t) = (r.to_floats().unwrap(), t.to_vec().unwrap());
                for i in 0..m {
                    let mut terms: Vec<Term> = (0..k)
                        .map(|l| {
                            (
                                vec![al[0].clone(), at(&av, a.ld(), oa, i, l), x[l].clone()],
                                false,
                            )
                        })
                        .collect();
                    if with_c {
                        terms.push((vec![be[0].clone(), y[i].clone()], false));
                    }
                    check(
                        &format!("gemv {m}x{k} {oa:?} p={p} {rnd:?} {i}"),
                        &r[i],
                        t[i],
                        &ref_sum(&terms, p, rnd),
                    );
                }
                // syrk on op(A) (m x k): m x m.
                let uplo = if g.below(2) == 0 {
                    Uplo::Upper
                } else {
                    Uplo::Lower
                };
                let (cs, csv) = rmat(&mut g, m, m, p, 0);
                let o = Syrk {
                    uplo,
                    trans: oa,
                    prec: p,
                    rnd,
                };
                let (r, t) = a.syrk(&ala, with_c.then_some((&bea, &cs)), &o).unwrap();
                let rows = r.to_rows().unwrap();
                let tv = t.to_vec().unwrap();
                for i in 0..m {
                    for j in 0..m {
                        let inside = if uplo == Uplo::Upper { i <= j } else { i >= j };
                        let mut terms: Vec<Term> = Vec::new();
                        if inside {
                            for l in 0..k {
                                terms.push((
                                    vec![
                                        al[0].clone(),
                                        at(&av, a.ld(), oa, i, l),
                                        at(&av, a.ld(), oa, j, l),
                                    ],
                                    false,
                                ));
                            }
                            if with_c {
                                terms.push((vec![be[0].clone(), csv[i * m + j].clone()], false));
                            }
                        } else if with_c {
                            terms.push((vec![csv[i * m + j].clone()], false));
                        }
                        let w = format!("syrk {m}x{k} {uplo:?} {oa:?} p={p} {rnd:?} ({i},{j})");
                        check(&w, &rows[i][j], tv[i * m + j], &ref_sum(&terms, p, rnd));
                    }
                }
            }
        }
    }
}

#[test]
fn complex_level2_level3() {
    let mut g = Rng(seed());
    let ops = [Op::None, Op::Trans, Op::ConjTrans];
    for &(m, k, n) in &[
        (0usize, 2usize, 1usize),
        (1, 1, 1),
        (2, 3, 3),
        (3, 0, 2),
        (3, 4, 1),
    ] {
        for rnd in [
            CRound::both(Round::Nearest),
            CRound::new(Round::Down, Round::Up),
            CRound::new(Round::Zero, Round::Away),
        ] {
            let (p, q) = (40u64, 45u64);
            let (oa, ob) = (g.pick(&ops), g.pick(&ops));
            let cm = |g: &mut Rng, r: usize, c: usize| {
                let (re, im) = (
                    rnd_floats(g, r * c, p, -10, 10, false),
                    rnd_floats(g, r * c, p, -10, 10, false),
                );
                (Matrix::from_array(carr(p, &re, &im), r, c).unwrap(), re, im)
            };
            let (ra, ca) = dims(oa, m, k);
            let (rb, cb) = dims(ob, k, n);
            let (a, ar, ai) = cm(&mut g, ra, ca);
            let (b, br, bi) = cm(&mut g, rb, cb);
            let (c, cr, ci) = cm(&mut g, m, n);
            let (alr, ali) = (
                rnd_floats(&mut g, 1, p, -2, 2, false),
                rnd_floats(&mut g, 1, p, -2, 2, false),
            );
            let (ber, bei) = (
                rnd_floats(&mut g, 1, p, -2, 2, false),
                rnd_floats(&mut g, 1, p, -2, 2, false),
            );
            let (al, be) = (carr(p, &alr, &ali), carr(p, &ber, &bei));
            let elem = |re: &[Float], im: &[Float], ld: usize, op: Op, i: usize, j: usize| {
                let idx = if op == Op::None {
                    i * ld + j
                } else {
                    j * ld + i
                };
                cf(re, im, idx, op == Op::ConjTrans)
            };
            let o = CGemm {
                op_a: oa,
                op_b: ob,
                prec_re: p,
                prec_im: q,
                rnd,
            };
            let (r, t) = a.gemm(&b, &al, Some((&be, &c)), &o).unwrap();
            for i in 0..m {
                for j in 0..n {
                    let mut want = Vec::new();
                    for (part, pp, rm) in [(false, p, rnd.re), (true, q, rnd.im)] {
                        let mut terms = Vec::new();
                        for l in 0..k {
                            let f = [
                                cf(&alr, &ali, 0, false),
                                elem(&ar, &ai, ca, oa, i, l),
                                elem(&br, &bi, cb, ob, l, j),
                            ];
                            cterms(&mut terms, &f, part, false);
                        }
                        cterms(
                            &mut terms,
                            &[cf(&ber, &bei, 0, false), cf(&cr, &ci, i * n + j, false)],
                            part,
                            false,
                        );
                        want.push(ref_sum(&terms, pp, rm));
                    }
                    let w = format!("cgemm {m}x{k}x{n} {oa:?}{ob:?} {} ({i},{j})", rnd.name());
                    check_c(
                        &w,
                        r.data(),
                        &t,
                        i * n + j,
                        [want[0].clone(), want[1].clone()],
                    );
                }
            }
            // gemv with op(A) m x k.
            let (xr, xi) = (
                rnd_floats(&mut g, k, p, -10, 10, false),
                rnd_floats(&mut g, k, p, -10, 10, false),
            );
            let x = carr(p, &xr, &xi);
            let o = CGemv {
                op: oa,
                prec_re: p,
                prec_im: q,
                rnd,
            };
            let (r, t) = a.gemv(&al, &x, None, &o).unwrap();
            for i in 0..m {
                let mut want = Vec::new();
                for (part, pp, rm) in [(false, p, rnd.re), (true, q, rnd.im)] {
                    let mut terms = Vec::new();
                    for l in 0..k {
                        let f = [
                            cf(&alr, &ali, 0, false),
                            elem(&ar, &ai, ca, oa, i, l),
                            cf(&xr, &xi, l, false),
                        ];
                        cterms(&mut terms, &f, part, false);
                    }
                    want.push(ref_sum(&terms, pp, rm));
                }
                check_c(
                    &format!("cgemv {m}x{k} {oa:?} {} {i}", rnd.name()),
                    &r,
                    &t,
                    i,
                    [want[0].clone(), want[1].clone()],
                );
            }
            // herk: op(A) m x k (trans None: A*A^H; else A^H*A).
            let trans = if oa == Op::None {
                Op::None
            } else {
                Op::ConjTrans
            };
            let (ra, ca) = dims(trans, m, k);
            let (a, ar, ai) = cm(&mut g, ra, ca);
            let (ch, chr, chi) = cm(&mut g, m, m);
            for uplo in [Uplo::Upper, Uplo::Lower] {
                let o = Herk {
                    uplo,
                    trans,
                    prec_re: p,
                    prec_im: q,
                    rnd,
                };
                let (r, t) = a
                    .herk(&arr(p, &alr), Some((&arr(p, &ber), &ch)), &o)
                    .unwrap();
                for i in 0..m {
                    for j in 0..m {
                        let inside = if uplo == Uplo::Upper { i <= j } else { i >= j };
                        let mut want = Vec::new();
                        for (part, pp, rm) in [(false, p, rnd.re), (true, q, rnd.im)] {
                            let mut terms = Vec::new();
                            if inside {
                                for l in 0..k {
                                    let (x, y) = if trans == Op::None {
                                        (
                                            cf(&ar, &ai, i * ca + l, false),
                                            cf(&ar, &ai, j * ca + l, true),
                                        )
                                    } else {
                                        (
                                            cf(&ar, &ai, l * ca + i, true),
                                            cf(&ar, &ai, l * ca + j, false),
                                        )
                                    };
                                    cterms(
                                        &mut terms,
                                        &[(alr[0].clone(), None), x, y],
                                        part,
                                        false,
                                    );
                                }
                                cterms(
                                    &mut terms,
                                    &[(ber[0].clone(), None), cf(&chr, &chi, i * m + j, false)],
                                    part,
                                    false,
                                );
                            } else {
                                terms.push((
                                    vec![if part {
                                        chi[i * m + j].clone()
                                    } else {
                                        chr[i * m + j].clone()
                                    }],
                                    false,
                                ));
                            }
                            want.push(ref_sum(&terms, pp, rm));
                        }
                        let w = format!("herk {m}x{k} {uplo:?} {trans:?} {} ({i},{j})", rnd.name());
                        check_c(
                            &w,
                            r.data(),
                            &t,
                            i * m + j,
                            [want[0].clone(), want[1].clone()],
                        );
                    }
                }
            }
        }
    }
}

#[test]
fn shape_errors_name_the_shapes() {
    let mut g = Rng(seed());
    let (a, _) = rmat(&mut g, 2, 3, 10, 0);
    let (b, _) = rmat(&mut g, 2, 3, 10, 0);
    let one = arr(10, &[Float::ONE]);
    let e = a
        .gemm(&b, &one, None, &Gemm::default())
        .unwrap_err()
        .to_string();
    assert!(e.contains("2 x 3") && e.contains("3"), "{e}");
    let (c, _) = rmat(&mut g, 3, 3, 10, 0);
    let bt = Gemm {
        op_b: Op::Trans,
        ..Default::default()
    };
    let e = a
        .gemm(&b, &one, Some((&one, &c)), &bt)
        .unwrap_err()
        .to_string();
    assert!(e.contains("2 x 2") && e.contains("3 x 3"), "{e}");
    let e = a
        .gemv(&one, &arr(10, &[Float::ONE]), None, &Gemv::default())
        .unwrap_err()
        .to_string();
    assert!(e.contains("2 x 3") && e.contains("1 element"), "{e}");
    let two = arr(10, &[Float::ONE, Float::ONE]);
    let e = two
        .dot(&arr(10, &[Float::ONE]), 10, Round::Nearest)
        .unwrap_err()
        .to_string();
    assert!(e.contains("2") && e.contains("1"), "{e}");
    let e = a
        .syrk(&two, None, &Syrk::default())
        .unwrap_err()
        .to_string();
    assert!(e.contains("alpha"), "{e}");
}

#[test]
fn products_outside_the_exponent_range() {
    // a*a is far above MPFR's range; only the rounded result is checked
    // against it (intermediate products are exact and unbounded).
    let a = pow2((1 << 29) + 10);
    let one = Float::ONE;
    let x = arr(4, &[a.clone(), a.clone(), one.clone()]);
    let y = arr(4, &[a.clone(), -a.clone(), one.clone()]);
    for rnd in Round::ALL {
        let (r, t) = x.dot(&y, 4, rnd).unwrap();
        assert_eq!(rat(&first(&r)), Rational::ONE, "{rnd:?}");
        assert_eq!(t0(&t), 0);
        let (r, t) = arr(4, std::slice::from_ref(&a))
            .dot(&arr(4, std::slice::from_ref(&a)), 4, rnd)
            .unwrap();
        let f = first(&r);
        if matches!(rnd, Round::Zero | Round::Down) {
            assert!(
                f.is_finite() && f > 0u32,
                "{rnd:?}: the largest float, got {f}"
            );
            assert_eq!(t0(&t), -1);
        } else {
            assert!(f.is_infinite() && f > 0u32, "{rnd:?}: +Inf, got {f}");
            assert_eq!(t0(&t), 1);
        }
        let tiny = pow2(-(1 << 29) - 10);
        let (r, t) = arr(4, std::slice::from_ref(&tiny))
            .dot(&arr(4, &[-tiny.clone()]), 4, rnd)
            .unwrap();
        let f = first(&r);
        assert!(f.is_sign_negative(), "{rnd:?}: underflow keeps the sign");
        if matches!(rnd, Round::Down | Round::Away) {
            assert!(!f.is_zero(), "{rnd:?}: the smallest float");
            assert_eq!(t0(&t), -1);
        } else {
            assert!(f.is_zero(), "{rnd:?}: -0, got {f}");
            assert_eq!(t0(&t), 1);
        }
    }
}

/// A factor `m 2^e` of a cancelling dot product (`m` a nonzero integer of
/// at most `q` bits, or `2^q`).
type Fac = (Integer, i64);

fn fac_float(f: &Fac, q: u64) -> Float {
    let (v, o) = Float::from_integer_prec(f.0.clone(), q);
    assert_eq!(o, Ordering::Equal, "a factor of q bits");
    v << f.1
}

/// A random factor of `q` bits (random sign) whose float exponent lies in
/// `emin..=emax`.
fn rnd_fac(g: &mut Rng, q: u64, emin: i64, emax: i64) -> Fac {
    let n = q.div_ceil(64) as usize;
    let mut l: Vec<u64> = (0..n).map(|_| g.next()).collect();
    let extra = 64 * n as u64 - q;
    l[n - 1] = (l[n - 1] >> extra) | (1 << (63 - extra));
    let m = Integer::from(Natural::from_owned_limbs_asc(l));
    let m = if g.below(2) == 1 { -m } else { m };
    (m, g.range(emin, emax) - q as i64)
}

/// `2^e` as a factor.
fn pow2_fac(e: i64) -> Fac {
    (Integer::ONE, e)
}

/// The terms `x y` of a dot product of `n` terms: pairs `x y`, `(-x) y`
/// that cancel exactly (or, when `near`, one in eight `(-x) y'` with `y'`
/// one unit away from `y`: near cancellation), factor exponents in
/// `+-spread`, and a few survivors: up to three random terms, or (`mid`)
/// a midpoint `2^E (1 + 2^-p)` of precision `p` whose rounding only the
/// sign of a term far below (or its absence) decides. Shuffled.
fn cancelling_dot(
    g: &mut Rng,
    n: usize,
    q: u64,
    p: u64,
    spread: i64,
    near: bool,
    mid: bool,
) -> Vec<(Fac, Fac)> {
    let mut t: Vec<(Fac, Fac)> = Vec::new();
    if mid {
        let e = g.range(-spread / 2, spread / 2);
        let split = |g: &mut Rng, e: i64| {
            let a = g.range(-spread / 4, spread / 4);
            (pow2_fac(a), pow2_fac(e - a))
        };
        t.push(split(g, e));
        t.push(split(g, e - p as i64));
        if g.below(4) != 0 {
            let far = e - p as i64 - g.range(1, spread);
            let (x, mut y) = split(g, far);
            if g.below(2) == 1 {
                y.0 = -y.0;
            }
            t.push((x, y));
        }
    } else {
        for _ in 0..g.below(4) {
            t.push((
                rnd_fac(g, q, -spread, spread),
                rnd_fac(g, q, -spread, spread),
            ));
        }
    }
    while t.len() + 2 <= n {
        let (x, y) = (
            rnd_fac(g, q, -spread, spread),
            rnd_fac(g, q, -spread, spread),
        );
        let mut y2 = y.clone();
        if near && g.below(8) == 0 {
            // One unit in y's last place up or down (never to zero).
            y2.0 += if y2.0.unsigned_abs_ref() > &Natural::ONE && g.below(2) == 0 {
                Integer::NEGATIVE_ONE
            } else {
                Integer::ONE
            };
        }
        t.push((x.clone(), y));
        t.push(((-x.0, x.1), y2));
    }
    for i in (1..t.len()).rev() {
        t.swap(i, g.index(i + 1));
    }
    t
}

/// The reference for a sum of exact products `m 2^e` spread over huge
/// exponent ranges, without rationals of `2^30` bits: sorted by top, the
/// terms fall into clusters whose bit ranges lie at least `G = p +
/// bits(n) + 64` bits apart, and each cluster's exact sum `C_c` (a
/// multiple of `2^low_c`) is an integer of a few thousand bits. Let `C`
/// be the largest nonzero one and `R` the sum below it: then
/// `|R| < n 2^(low_C - G) < 2^(low_C - p - 1)`, closer to `C` than any
/// rounding boundary (representable numbers and midpoints at `p` bits,
/// spaced at least `2^(low_C - p - 1)` apart near `C`) other than `C`
/// itself, and the sign of `R` is the sign of the next nonzero cluster sum
/// (which outweighs all the rest by the same argument). So the sum rounds
/// as `C + sign(R) 2^(low_C - G)`, a rational of a few thousand bits.
fn cluster_ref(terms: &[(Fac, Fac)], p: u64, rnd: Round) -> (Float, i8) {
    let bits = |m: &Integer| m.unsigned_abs_ref().significant_bits() as i64;
    let nb = 64 - (terms.len() as u64).leading_zeros() as i64;
    let gap = p as i64 + nb + 64;
    // (top, low, index): the term's magnitude lies below 2^top and it is a
    // multiple of 2^low.
    let mut idx: Vec<(i64, i64, usize)> = terms
        .iter()
        .enumerate()
        .map(|(i, (x, y))| {
            let low = x.1 + y.1;
            (low + bits(&x.0) + bits(&y.0), low, i)
        })
        .collect();
    idx.sort_unstable_by_key(|&(top, _, _)| std::cmp::Reverse(top));
    let mut top_sum: Option<(Integer, i64)> = None;
    let mut below = Ordering::Equal;
    let mut i = 0;
    while i < idx.len() {
        let (mut j, mut low) = (i, idx[i].1);
        while j < idx.len() && idx[j].0 > low - gap {
            low = low.min(idx[j].1);
            j += 1;
        }
        let mut c = Integer::ZERO;
        for &(_, l, k) in &idx[i..j] {
            let (x, y) = &terms[k];
            c += (&x.0 * &y.0) << (l - low) as u64;
        }
        i = j;
        if c == 0 {
            continue;
        }
        if top_sum.is_none() {
            top_sum = Some((c, low));
        } else {
            below = c.sign();
            break;
        }
    }
    let Some((c, low)) = top_sum else {
        let z = if rnd == Round::Down {
            Float::NEGATIVE_ZERO
        } else {
            Float::ZERO
        };
        return (z, 0);
    };
    let nudge = Rational::power_of_2(-gap);
    let v = match below {
        Ordering::Equal => Rational::from(c),
        Ordering::Greater => Rational::from(c) + nudge,
        Ordering::Less => Rational::from(c) - nudge,
    };
    let (f, o) = Float::from_rational_prec_round(v, p, to_rounding_mode(rnd));
    (f << low, tern(o))
}

#[test]
fn dot_cancellation_across_huge_exponent_ranges() {
    // Mirrored pairs cancel exactly (or nearly), term clusters spread over
    // exponents +-2^29 (one mpfr_sum pass per cluster), a few survivors or
    // a midpoint that a far term decides. Narrow spreads check the cluster
    // reference itself against the rational one.
    let mut g = Rng(seed());
    let precs = [1u64, 2, 3, 53, 64, 200, 1000, 2048];
    // (n, q, spread, cases)
    let plans: [(&[usize], &[u64], i64, usize); 4] = [
        (&[10, 101, 400, 1001], &[1, 2, 53, 200], 1500, 12),
        (&[2001, 5001], &[1, 2, 53, 200, 1000], 1 << 28, 6),
        (&[20001], &[2048], 1 << 28, 1),
        (&[70001], &[1, 53, 200], 1 << 28, 2),
    ];
    for (ns, qs, spread, cases) in plans {
        for _ in 0..cases {
            let (n, q, p) = (g.pick(ns), g.pick(qs), g.pick(&precs));
            let (near, mid) = (g.below(3) == 0, g.below(3) == 0);
            let terms = cancelling_dot(&mut g, n, q, p, spread, near, mid);
            let x: Vec<Float> = terms.iter().map(|t| fac_float(&t.0, q)).collect();
            let y: Vec<Float> = terms.iter().map(|t| fac_float(&t.1, q)).collect();
            let (xa, ya) = (arr(q, &x), arr(q, &y));
            let rat_terms = (spread < 4096).then(|| dot_terms(&x, &y));
            for rnd in Round::ALL {
                let what =
                    format!("n={n} q={q} p={p} spread={spread} near={near} mid={mid} {rnd:?}");
                let want = cluster_ref(&terms, p, rnd);
                if let Some(rt) = &rat_terms {
                    let r = ref_sum(rt, p, rnd);
                    check(&format!("{what}: cluster reference"), &want.0, want.1, &r);
                }
                let (r, t) = xa.dot(&ya, p, rnd).unwrap();
                check(&what, &first(&r), t0(&t), &want);
            }
        }
    }
}
