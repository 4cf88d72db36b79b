//! The second set of correctly rounded functions (cbrt, expm1, log1p,
//! sinh, cosh, tanh, asinh, acosh, atanh, asin, acos; atan2, hypot, pow,
//! pow_z, agm) against malachite-float's own functions (ports of MPFR's,
//! which the DESIGN names the in-tree reference) in every rounding mode,
//! ternary values included; a sample also against
//! `reference::reference` (the same function at more than twice the
//! precision, both ends of its error interval rounded and required to
//! agree). Random arguments across magnitudes and per-function hard regions
//! (tiny, near 0, 1 and -1, huge, near overflow/underflow), every special
//! value, the exact cases, and the fast paths' edges. MPFR itself: see
//! scripts/peers/funcreal_mpfr_gen.py and funcreal_mpfr_cmp.sh (the comparison scripts).

mod common;

use std::cmp::Ordering;

use malachite_base::num::arithmetic::traits::PowerOf2;
use malachite_base::rounding_modes::RoundingMode;
use malachite_float::{ComparableFloatRef, Float};
use malachite_nz::integer::Integer;
use malachite_q::Rational;
use mparray::float::func::reference::{malachite_func, malachite_func2, reference, reference2};
use mparray::float::func::{Func, Func2};
use mparray::float::{EMAX, EMIN, to_rounding_mode};
use mparray::{Engine, FloatArray, Round};

struct Rng(std::cell::Cell<u64>);
impl Rng {
    fn new(s: u64) -> Rng {
        Rng(std::cell::Cell::new(s))
    }
    fn next(&self) -> u64 {
        self.0.set(self.0.get().wrapping_add(0x9e37_79b9_7f4a_7c15));
        let mut z = self.0.get();
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }
    fn below(&self, n: u64) -> u64 {
        self.next() % n
    }
    fn range(&self, lo: i64, hi: i64) -> i64 {
        lo + self.below((hi - lo + 1) as u64) as i64
    }
    fn coin(&self) -> bool {
        self.below(2) == 0
    }
}

const PRECS: &[u64] = &[1, 2, 53, 64, 65, 128, 500, 1024];

const NEW: [Func; 11] = [
    Func::Cbrt,
    Func::Expm1,
    Func::Log1p,
    Func::Sinh,
    Func::Cosh,
    Func::Tanh,
    Func::Asinh,
    Func::Acosh,
    Func::Atanh,
    Func::Asin,
    Func::Acos,
];

/// A random float of `q` bits with exponent `e` ([`common::rand_float`]).
fn rand_float(r: &Rng, q: u64, e: i64, neg: bool) -> Float {
    common::rand_float(|| r.next(), q, e, neg)
}

/// `c + s 2^-k m` exactly (m a random float of up to 60 bits).
fn near(r: &Rng, c: i64, k: i64, q: u64, neg: bool) -> Float {
    let d = rand_float(r, q.clamp(1, 60), -k, neg);
    let v = Rational::from(c) + Rational::try_from(&d).unwrap();
    let prec = (q + k as u64 + 4).max(1);
    Float::from_rational_prec(v, prec).0
}

fn args1(f: Func, r: &Rng, p: u64, count: usize) -> Vec<Float> {
    let mut v = Vec::new();
    let pi = p as i64;
    for i in 0..count {
        let q = if r.coin() { p } else { 1 + r.below(p + 64) };
        let neg = r.coin();
        let x = match (f, i % 5) {
            // Tiny: around the fast paths' edges (ex ~ -(p+3)/2 and -(p+3)).
            (_, 0) => rand_float(r, q, r.range(-2 * pi - 8, -pi / 2 + 2), neg),
            (_, 1) if r.below(4) == 0 => rand_float(r, q, r.range(-3000, -2 * pi), neg),
            (Func::Cbrt | Func::Asinh, 1) => rand_float(r, q, r.range(EMIN + 10, EMAX - 10), neg),
            (Func::Cbrt, _) => rand_float(r, q, r.range(-100, 100), neg),
            (Func::Expm1, 1) => {
                // Large negative (-> -1), and beyond -(p+2).
                let e = r.range(1, 12);
                rand_float(r, q, e, true)
            }
            (Func::Sinh | Func::Cosh | Func::Expm1, 2) => {
                // Near the overflow threshold (EMAX ln 2 ~ 744261117.3).
                let d = Float::from_rational_prec(
                    Rational::from(744_261_117i64)
                        + Rational::from(r.range(-3, 3)) / Rational::from(4),
                    40,
                )
                .0;
                if f == Func::Expm1 || r.coin() { d } else { -d }
            }
            (Func::Sinh | Func::Cosh | Func::Expm1 | Func::Tanh, _) => {
                rand_float(r, q, r.range(-20, 8), neg)
            }
            (Func::Log1p, 1) => near(r, -1, r.range(1, 2 * pi + 8), q, false),
            (Func::Log1p, 2) => rand_float(r, q, r.range(-3000, 3000), false),
            (Func::Log1p, _) => rand_float(r, q, r.range(-30, 0), neg),
            (Func::Asinh, _) => rand_float(r, q, r.range(-30, 30), neg),
            (Func::Acosh, 1 | 2) => near(r, 1, r.range(1, 2 * pi + 8), q, false),
            (Func::Acosh, 3) => rand_float(r, q, r.range(1, 3000), false),
            (Func::Acosh, _) => rand_float(r, q, r.range(-2, 30), false),
            (Func::Atanh | Func::Asin | Func::Acos, 1 | 2) => {
                let c = if neg { -1 } else { 1 };
                near(r, c, r.range(1, 2 * pi + 8), q, !neg)
            }
            (Func::Atanh | Func::Asin | Func::Acos, _) => rand_float(r, q, r.range(-30, 0), neg),
            _ => unreachable!(),
        };
        v.push(x);
    }
    v
}

fn tern(o: Ordering) -> i8 {
    match o {
        Ordering::Less => -1,
        Ordering::Equal => 0,
        Ordering::Greater => 1,
    }
}

fn array(xs: &[Float]) -> FloatArray {
    let q = xs
        .iter()
        .map(|x| x.get_prec().unwrap_or(1))
        .max()
        .unwrap_or(1);
    let (a, t) = FloatArray::from_floats(q, xs, Round::Nearest).unwrap();
    assert!(t.to_vec().unwrap().iter().all(|&t| t == 0));
    a
}

fn check1(f: Func, xs: &[Float], p: u64) {
    let a = array(xs);
    for rnd in Round::ALL {
        let (got, t, _) = a.func_ternary(f, p, rnd).unwrap();
        let t = t.into_vec().unwrap();
        for (i, x) in xs.iter().enumerate() {
            let (wf, wo) = malachite_func(f, x, p, to_rounding_mode(rnd));
            let g = got.to_float(i).unwrap();
            assert!(
                ComparableFloatRef(&g) == ComparableFloatRef(&wf) && t[i] == tern(wo),
                "{f:?}({x:#x}) p={p} {rnd:?}: got {g:#x} ({}), want {wf:#x} ({})",
                t[i],
                tern(wo)
            );
        }
    }
}

fn random1(f: Func, count: usize) {
    let r = Rng::new(common::seed());
    for &p in PRECS {
        let n = if p >= 500 { count / 2 } else { count };
        let xs = args1(f, &r, p, n);
        check1(f, &xs, p);
    }
}

#[test]
fn cbrt_random() {
    random1(Func::Cbrt, 40);
}
#[test]
fn expm1_random() {
    random1(Func::Expm1, 40);
}
#[test]
fn log1p_random() {
    random1(Func::Log1p, 40);
}
#[test]
fn sinh_random() {
    random1(Func::Sinh, 30);
}
#[test]
fn cosh_random() {
    random1(Func::Cosh, 30);
}
#[test]
fn tanh_random() {
    random1(Func::Tanh, 30);
}
#[test]
fn asinh_random() {
    random1(Func::Asinh, 30);
}
#[test]
fn acosh_random() {
    random1(Func::Acosh, 30);
}
#[test]
fn atanh_random() {
    random1(Func::Atanh, 30);
}
#[test]
fn asin_random() {
    random1(Func::Asin, 30);
}
#[test]
fn acos_random() {
    random1(Func::Acos, 30);
}

/// A sample against the interval reference (`reference::reference`: the
/// function at more than twice the precision, both error ends rounded).
#[test]
fn interval_reference_sample() {
    let r = Rng::new(common::seed());
    let mut count = 0;
    for f in NEW {
        for &p in &[2u64, 53, 130, 500] {
            // Results far inside the exponent range (the interval reference
            // does not model overflow and underflow; range_ends covers them).
            let xs: Vec<Float> = args1(f, &r, p, 8)
                .into_iter()
                .filter(|x| {
                    let e = x.get_exponent().unwrap_or(0).abs();
                    e < 10_000 && !matches!(f, Func::Sinh | Func::Cosh | Func::Expm1) || e < 20
                })
                .collect();
            let a = array(&xs);
            count += xs.len();
            let want: Vec<_> = xs.iter().map(|x| reference(f, x, p)).collect();
            for (k, rnd) in Round::ALL.into_iter().enumerate() {
                let (got, t, _) = a.func_ternary(f, p, rnd).unwrap();
                let t = t.into_vec().unwrap();
                for i in 0..xs.len() {
                    let (wf, wo) = &want[i][k];
                    let g = got.to_float(i).unwrap();
                    assert!(
                        ComparableFloatRef(&g) == ComparableFloatRef(wf) && t[i] == tern(*wo),
                        "{f:?}({:#x}) p={p} {rnd:?}: got {g:#x}, want {wf:#x}",
                        xs[i]
                    );
                }
            }
        }
    }
    eprintln!("{count} arguments against the interval reference");
    assert!(count >= 60);
}

/// The two-argument functions against the interval reference (series with
/// error propagation: `reference::reference2`).
#[test]
fn interval_reference_sample2() {
    let r = Rng::new(common::seed());
    let mut count = 0;
    for f in Func2::ALL {
        for &p in &[2u64, 53, 130] {
            let (xs, ys) = args2(f, &r, p, 12);
            // Finite results inside the range (range_ends covers the rest).
            let keep: Vec<usize> = (0..xs.len())
                .filter(|&i| {
                    let ok = |v: &Float| v.get_exponent().is_some_and(|e| e.abs() < 5000);
                    let w = malachite_func2(f, &xs[i], &ys[i], 20, RoundingMode::Nearest).0;
                    ok(&xs[i]) && ok(&ys[i]) && ok(&w)
                })
                .collect();
            let xs: Vec<Float> = keep.iter().map(|&i| xs[i].clone()).collect();
            let ys: Vec<Float> = keep.iter().map(|&i| ys[i].clone()).collect();
            let (a, b) = (array(&xs), array(&ys));
            count += xs.len();
            let want: Vec<_> = (0..xs.len())
                .map(|i| reference2(f, &xs[i], &ys[i], p))
                .collect();
            for (k, rnd) in Round::ALL.into_iter().enumerate() {
                let (got, t, _) = a.func2_ternary(&b, f, p, rnd).unwrap();
                let t = t.into_vec().unwrap();
                for i in 0..xs.len() {
                    let (wf, wo) = &want[i][k];
                    let g = got.to_float(i).unwrap();
                    assert!(
                        ComparableFloatRef(&g) == ComparableFloatRef(wf) && t[i] == tern(*wo),
                        "{f:?}({:#x}, {:#x}) p={p} {rnd:?}: got {g:#x}, want {wf:#x}",
                        xs[i],
                        ys[i]
                    );
                }
            }
        }
    }
    eprintln!("{count} argument pairs against the interval reference");
    assert!(count >= 40);
}

/// Special values, +-1, +-2, +-1/2 and the range's ends, every function and
/// mode (malachite reproduces MPFR's tables for these functions).
#[test]
fn specials_unary() {
    let mut xs: Vec<Float> = [
        "nan", "inf", "-inf", "0", "-0", "1", "-1", "2", "-2", "0.5", "-0.5",
    ]
    .iter()
    .map(|s| parse(s))
    .collect();
    xs.push(Float::from_rational_prec(Rational::power_of_2(EMIN - 1), 1).0);
    xs.push(-Float::from_rational_prec(Rational::power_of_2(EMIN - 1), 1).0);
    xs.push(Float::from_rational_prec(Rational::power_of_2(EMAX - 1), 1).0);
    xs.push(-Float::from_rational_prec(Rational::power_of_2(EMAX - 1), 1).0);
    for f in NEW {
        for &p in &[1u64, 2, 53, 200] {
            check1(f, &xs, p);
        }
    }
}

fn parse(s: &str) -> Float {
    FloatArray::from_strs(53, &[s])
        .unwrap()
        .to_float(0)
        .unwrap()
}

/// Exact results (ternary 0, or one rounding of the exact value).
#[test]
fn exact_cases() {
    let cbrt = [
        "8", "-27", "0.125", "1000000", "-3.375", "0x1p-999", "0x1p300",
    ];
    let xs: Vec<Float> = cbrt.iter().map(|s| parse(s)).collect();
    for &p in &[1u64, 2, 3, 53, 64, 65, 128] {
        check1(Func::Cbrt, &xs, p);
        check1(Func::Acosh, &[parse("1")], p);
    }
    let a = array(&xs);
    let (r, t, _) = a.func_ternary(Func::Cbrt, 53, Round::Nearest).unwrap();
    let t = t.into_vec().unwrap();
    assert_eq!(r.to_float(0).unwrap(), parse("2"));
    assert_eq!(t[0], 0);
    let pairs = [
        ("3", "4"),
        ("-3", "2"),
        ("2", "-3"),
        ("9", "0.5"),
        ("16", "0.75"),
        ("4", "-1.5"),
        ("0x1p-20", "0.25"),
        ("-2", "1073741824"),
        ("0.5", "-1073741823"),
        ("1.5", "7"),
        ("-1.5", "31"),
        ("3", "40"),
        ("625", "0.25"),
        ("0x51p4", "-0.25"),
        ("1", "nan"),
        ("nan", "0"),
        ("-1", "inf"),
    ];
    let hyp = [
        ("3", "4"),
        ("-5", "12"),
        ("0x3p100", "0x4p100"),
        ("8", "-15"),
    ];
    let xs: Vec<Float> = pairs.iter().map(|s| parse(s.0)).collect();
    let ys: Vec<Float> = pairs.iter().map(|s| parse(s.1)).collect();
    let hx: Vec<Float> = hyp.iter().map(|s| parse(s.0)).collect();
    let hy: Vec<Float> = hyp.iter().map(|s| parse(s.1)).collect();
    for &p in &[1u64, 2, 3, 4, 7, 53, 64, 65, 128] {
        check2(Func2::Pow, &xs, &ys, p);
        check2(Func2::Hypot, &hx, &hy, p);
        check2(Func2::Agm, &xs[..3], &xs[..3], p);
    }
    let (r, t, _) = array(&hx)
        .func2_ternary(&array(&hy), Func2::Hypot, 53, Round::Zero)
        .unwrap();
    let t = t.into_vec().unwrap();
    assert_eq!((r.to_float(0).unwrap(), t[0]), (parse("5"), 0));
    let (r, t, _) = array(&xs)
        .func2_ternary(&array(&ys), Func2::Pow, 53, Round::Up)
        .unwrap();
    let t = t.into_vec().unwrap();
    assert_eq!((r.to_float(0).unwrap(), t[0]), (parse("81"), 0));
    assert_eq!((r.to_float(4).unwrap(), t[4]), (parse("8"), 0));
    assert_eq!((r.to_float(5).unwrap(), t[5]), (parse("0.125"), 0));
}

fn check2(f: Func2, xs: &[Float], ys: &[Float], p: u64) {
    let (a, b) = (array(xs), array(ys));
    for rnd in Round::ALL {
        let (got, t, _) = a.func2_ternary(&b, f, p, rnd).unwrap();
        let t = t.into_vec().unwrap();
        for i in 0..xs.len() {
            let (wf, wo) = want2(f, &xs[i], &ys[i], p, to_rounding_mode(rnd));
            let g = got.to_float(i).unwrap();
            assert!(
                ComparableFloatRef(&g) == ComparableFloatRef(&wf) && t[i] == tern(wo),
                "{f:?}({:#x}, {:#x}) p={p} {rnd:?}: got {g:#x} ({}), want {wf:#x} ({})",
                xs[i],
                ys[i],
                t[i],
                tern(wo)
            );
        }
    }
}

/// malachite's value, except agm(+Inf, positive finite), where MPFR 4.2.0
/// (checked) gives +Inf and malachite NaN.
fn want2(f: Func2, x: &Float, y: &Float, p: u64, rm: RoundingMode) -> (Float, Ordering) {
    if f == Func2::Agm {
        let pos_inf = |v: &Float| *v == Float::INFINITY;
        let pos = |v: &Float| *v > 0u32;
        if (pos_inf(x) && pos(y)) || (pos_inf(y) && pos(x)) {
            return (Float::INFINITY, Ordering::Equal);
        }
    }
    malachite_func2(f, x, y, p, rm)
}

use malachite_base::num::basic::traits::Infinity;

fn args2(f: Func2, r: &Rng, p: u64, count: usize) -> (Vec<Float>, Vec<Float>) {
    let (mut xs, mut ys) = (Vec::new(), Vec::new());
    for i in 0..count {
        let q1 = if r.coin() { p } else { 1 + r.below(p + 64) };
        let q2 = if r.coin() { p } else { 1 + r.below(p + 64) };
        let (n1, n2) = (r.coin(), r.coin());
        let (x, y) = match (f, i % 4) {
            (Func2::Atan2, 0) => {
                // Far apart: tiny or huge quotients.
                let e = r.range(-3000, 3000);
                (
                    rand_float(r, q1, e, n1),
                    rand_float(r, q2, e + r.range(-3000, 3000), n2),
                )
            }
            (Func2::Atan2 | Func2::Hypot, _) => {
                let e = r.range(-100, 100);
                (
                    rand_float(r, q1, e, n1),
                    rand_float(r, q2, e + r.range(-8, 8), n2),
                )
            }
            (Func2::Agm, 0) => {
                let x = rand_float(r, q1, r.range(-50, 50), false);
                (x.clone(), x)
            }
            (Func2::Agm, 1) => (
                rand_float(r, q1, r.range(-3000, 3000), false),
                rand_float(r, q2, r.range(-3000, 3000), false),
            ),
            (Func2::Agm, _) => (
                rand_float(r, q1, r.range(-10, 10), false),
                rand_float(r, q2, r.range(-10, 10), false),
            ),
            (Func2::Pow, 0) => {
                // Integer exponents, small bases of any sign.
                let k = r.range(-60, 60);
                (
                    rand_float(r, q1.min(8), r.range(-3, 5), n1),
                    Float::from_rational_prec(Rational::from(k), 64).0,
                )
            }
            (Func2::Pow, 1) => {
                // x near 1, large y.
                let k = r.range(8, p as i64 + 40);
                (
                    near(r, 1, k, q1, n1),
                    rand_float(r, q2, k + r.range(-4, 8), n2),
                )
            }
            (Func2::Pow, 2) => (
                rand_float(r, q1, r.range(-3, 3), false),
                rand_float(r, q2, r.range(20, 34), n2),
            ),
            (Func2::Pow, _) => (
                rand_float(r, q1, r.range(-40, 40), false),
                rand_float(r, q2, r.range(-10, 6), n2),
            ),
        };
        xs.push(x);
        ys.push(y);
    }
    (xs, ys)
}

fn random2(f: Func2, count: usize) {
    let r = Rng::new(common::seed());
    for &p in PRECS {
        let n = if p >= 500 { count / 2 } else { count };
        let (xs, ys) = args2(f, &r, p, n);
        check2(f, &xs, &ys, p);
    }
}

#[test]
fn atan2_random() {
    random2(Func2::Atan2, 32);
}
#[test]
fn hypot_random() {
    random2(Func2::Hypot, 32);
}
#[test]
fn pow_random() {
    random2(Func2::Pow, 40);
}
#[test]
fn agm_random() {
    random2(Func2::Agm, 24);
}

/// Every pair of special values and range ends, every two-argument
/// function and mode.
#[test]
fn specials_binary() {
    let mut v: Vec<Float> = [
        "nan", "inf", "-inf", "0", "-0", "1", "-1", "2", "-2", "0.5", "-0.5", "3", "-3", "1.5",
    ]
    .iter()
    .map(|s| parse(s))
    .collect();
    v.push(Float::from_rational_prec(Rational::power_of_2(EMIN - 1), 1).0);
    v.push(Float::from_rational_prec(Rational::power_of_2(EMAX - 1), 1).0);
    let mut xs = Vec::new();
    let mut ys = Vec::new();
    for a in &v {
        for b in &v {
            xs.push(a.clone());
            ys.push(b.clone());
        }
    }
    for f in Func2::ALL {
        for &p in &[1u64, 10, 53] {
            check2(f, &xs, &ys, p);
        }
    }
}

/// Overflow and underflow: pow beyond the range, hypot at the top,
/// atan2's tiny quotients, sinh/cosh/expm1 past the threshold.
#[test]
fn range_ends() {
    let pairs = [
        ("2", "1073741823"),
        ("2", "1073741822"),
        ("2", "-1073741824"),
        ("2", "-1073741825"),
        ("0.5", "1073741825"),
        ("-2", "1073741823"),
        ("3", "677445233"),
        ("3", "-677445235"),
        ("1.0000001", "1e16"),
        ("0.9999999", "1e16"),
        ("10", "323228497"),
    ];
    let xs: Vec<Float> = pairs.iter().map(|s| parse(s.0)).collect();
    let ys: Vec<Float> = pairs.iter().map(|s| parse(s.1)).collect();
    let top =
        Float::from_rational_prec(Rational::power_of_2(EMAX) * Rational::from_signeds(3, 4), 2).0;
    let low = Float::from_rational_prec(Rational::power_of_2(EMIN + 2), 1).0;
    for &p in &[1u64, 2, 53, 128] {
        check2(Func2::Pow, &xs, &ys, p);
        check2(
            Func2::Hypot,
            &[top.clone(), low.clone()],
            &[top.clone(), low.clone()],
            p,
        );
        check2(
            Func2::Atan2,
            &[low.clone(), -low.clone(), low.clone()],
            &[top.clone(), top.clone(), -top.clone()],
            p,
        );
        let t: Vec<Float> = ["744261117.5", "-744261117.5", "744261116.9", "-744261118.6"]
            .iter()
            .map(|s| parse(s))
            .collect();
        for f in [Func::Sinh, Func::Cosh, Func::Expm1] {
            check1(f, &t, p);
        }
    }
}

/// Integer exponents (mpfr_pow_si / mpfr_pow_z): the same as pow with the
/// exact exponent.
#[test]
fn pow_int() {
    let r = Rng::new(common::seed());
    for &p in &[1u64, 53, 128] {
        let xs: Vec<Float> = (0..20)
            .map(|i| {
                let v = rand_float(&r, p, r.range(-6, 6), r.coin());
                if i == 0 { parse("0") } else { v }
            })
            .collect();
        let ns: Vec<i64> = (0..20).map(|_| r.range(-70, 70)).collect();
        let a = array(&xs);
        for rnd in Round::ALL {
            let (got, t, _) = a.pow_si_ternary(&ns, p, rnd).unwrap();
            let t = t.into_vec().unwrap();
            let big: Vec<Integer> = ns.iter().map(|&n| Integer::from(n) << 70u64).collect();
            let (got2, t2, _) = a.pow_z_ternary(&big, p, rnd).unwrap();
            let t2 = t2.into_vec().unwrap();
            for i in 0..xs.len() {
                let y = Float::from_rational_prec(Rational::from(ns[i]), 64).0;
                let (wf, wo) = malachite_func2(Func2::Pow, &xs[i], &y, p, to_rounding_mode(rnd));
                let g = got.to_float(i).unwrap();
                assert!(
                    ComparableFloatRef(&g) == ComparableFloatRef(&wf) && t[i] == tern(wo),
                    "pow_si({:#x}, {}) p={p} {rnd:?}: got {g:#x}, want {wf:#x}",
                    xs[i],
                    ns[i]
                );
                let y2 = Float::from_rational_prec(Rational::from(big[i].clone()), 128).0;
                let (wf, wo) = malachite_func2(Func2::Pow, &xs[i], &y2, p, to_rounding_mode(rnd));
                let g = got2.to_float(i).unwrap();
                assert!(
                    ComparableFloatRef(&g) == ComparableFloatRef(&wf) && t2[i] == tern(wo),
                    "pow_z({:#x}, {}) p={p} {rnd:?}: got {g:#x}, want {wf:#x}",
                    xs[i],
                    big[i]
                );
            }
        }
    }
}

/// Powers of two at the fast paths' edges and at the range's ends: every
/// function terminates (the Ziv loop's cap is never reached) and agrees.
#[test]
fn powers_of_two() {
    for &p in &[1u64, 2, 53, 64, 65, 130] {
        let mut xs = Vec::new();
        for k in [
            -(p as i64) - 6,
            -(p as i64) - 4,
            -(p as i64) - 3,
            -(p as i64) - 2,
            -(p as i64) / 2 - 3,
            -(p as i64) / 2 - 2,
            -(p as i64) / 2 - 1,
            -1,
            1,
            5,
            EMIN + 3,
            EMAX - 3,
        ] {
            for neg in [false, true] {
                let v = Float::from_rational_prec(Rational::power_of_2(k), 1).0;
                xs.push(if neg { -v } else { v });
            }
        }
        for f in NEW {
            check1(f, &xs, p);
        }
        let ys: Vec<Float> = xs.iter().rev().cloned().collect();
        for f in Func2::ALL {
            check2(f, &xs, &ys, p);
        }
    }
}

/// Bad input: arrays of different lengths.
#[test]
fn length_mismatch() {
    let a = FloatArray::zeros(&Engine::Cpu, 3, 53).unwrap();
    let b = FloatArray::zeros(&Engine::Cpu, 2, 53).unwrap();
    assert!(a.func2_ternary(&b, Func2::Pow, 53, Round::Nearest).is_err());
}

/// `mparray float FN` for the new functions: one and two files, pow_z's
/// integer lines, hex output with ternary values; bad input is an error.
#[test]
fn cli() {
    let dir = std::env::temp_dir().join(format!("mparray-func2-cli-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let a = dir.join("a.txt");
    let b = dir.join("b.txt");
    let n = dir.join("n.txt");
    std::fs::write(&a, "8\n-27\n0.5\n3\n").unwrap();
    std::fs::write(&b, "4\n0.5\n-2\n2\n").unwrap();
    std::fs::write(&n, "2\n3\n-1\n100000000000000000000\n").unwrap();
    let run = |args: &[&str]| {
        let o = std::process::Command::new(common::mparray_bin())
            .args(args)
            .output()
            .unwrap();
        (
            o.status.code(),
            String::from_utf8_lossy(&o.stdout).into_owned(),
        )
    };
    let (a, b, n) = (
        a.to_str().unwrap(),
        b.to_str().unwrap(),
        n.to_str().unwrap(),
    );
    let (c, out) = run(&["float", "cbrt", "--prec", "53", "--hex", "--ternary", a]);
    assert_eq!(c, Some(0));
    assert_eq!(out.lines().next(), Some("0x2p+0 0"));
    assert_eq!(out.lines().nth(1), Some("-0x3p+0 0"));
    let (c, out) = run(&["float", "hypot", "--prec", "53", "--hex", "--ternary", a, b]);
    assert_eq!(c, Some(0));
    assert_eq!(out.lines().next(), Some("0x8.f1bbcdcbfa54p+0 1"));
    let (c, out) = run(&["float", "pow", "--prec", "53", "--hex", "--ternary", a, b]);
    assert_eq!(c, Some(0));
    assert_eq!(out.lines().next(), Some("0x1p+12 0"));
    assert_eq!(out.lines().nth(1), Some("nan 0"));
    assert_eq!(out.lines().nth(2), Some("0x4p+0 0"));
    let (c, out) = run(&["float", "pow_z", "--prec", "53", "--hex", "--ternary", a, n]);
    assert_eq!(c, Some(0));
    // Checked against mpfr_pow_z (MPFR 4.2.0).
    let want = ["0x4p+4 0", "-0x4.ce3p+12 0", "0x2p+0 0", "inf 1"];
    assert_eq!(out.lines().collect::<Vec<_>>(), want);
    for f in ["atan2", "agm", "sinh", "acos"] {
        let args: Vec<&str> = if ["atan2", "agm"].contains(&f) {
            vec!["float", f, "--prec", "20", a, b]
        } else {
            vec!["float", f, "--prec", "20", a]
        };
        assert_eq!(run(&args).0, Some(0), "{f}");
    }
    // Wrong file counts and a non-integer exponent line.
    assert_eq!(run(&["float", "pow", "--prec", "20", a]).0, Some(2));
    assert_eq!(run(&["float", "pow_z", "--prec", "20", a, b]).0, Some(2));
    let _ = std::fs::remove_dir_all(&dir);
}

/// Arguments whose result lies within 2^-11 ulp of a rounding boundary
/// (searched at 24 bits with the interval reference at p + 12 bits), every
/// two-argument function, every mode.
#[test]
fn hard_to_round2() {
    let r = Rng::new(common::seed());
    let p = 24;
    for f in Func2::ALL {
        let (mut hx, mut hy) = (Vec::new(), Vec::new());
        let mut tries = 0;
        while hx.len() < 2 && tries < 20000 {
            tries += 1;
            let x = rand_float(&r, p, r.range(-3, 3), f == Func2::Atan2 && r.coin());
            let y = rand_float(&r, p, r.range(-3, 3), f != Func2::Agm && r.coin());
            let w = reference2(f, &x, &y, p + 12)[1].0.clone();
            if !w.is_normal() {
                continue;
            }
            let (a, _) = FloatArray::from_floats(p + 12, &[w], Round::Nearest).unwrap();
            let low = (a.limbs().unwrap()[0] >> (64 - p - 12)) & 0xfff;
            if low == 0 || low == 0xfff || low == 0x800 || low == 0x7ff {
                hx.push(x);
                hy.push(y);
            }
        }
        assert!(!hx.is_empty(), "{f:?}: no hard case found");
        check2(f, &hx, &hy, p);
        let (a, b) = (array(&hx), array(&hy));
        for (k, rnd) in Round::ALL.into_iter().enumerate() {
            let (got, t, _) = a.func2_ternary(&b, f, p, rnd).unwrap();
            let t = t.into_vec().unwrap();
            for i in 0..hx.len() {
                let (wf, wo) = &reference2(f, &hx[i], &hy[i], p)[k];
                let g = got.to_float(i).unwrap();
                assert!(
                    ComparableFloatRef(&g) == ComparableFloatRef(wf) && t[i] == tern(*wo),
                    "{f:?}({:#x}, {:#x}) {rnd:?}: got {g:#x}, want {wf:#x}",
                    hx[i],
                    hy[i]
                );
            }
        }
    }
}

/// tanh just below and above its fast path (|x| >= 0.35 (p + 3): tanh
/// within 2^-(p+2) of +-1), where the result is closest to 1.
#[test]
fn tanh_near_one() {
    for &p in PRECS {
        let c = (p as i64 + 3) * 35 / 100;
        let xs: Vec<Float> = (-24..=24)
            .map(|k| {
                let v =
                    Float::from_rational_prec(Rational::from(4 * c + k) / Rational::from(4), 32).0;
                if k % 2 == 0 { v } else { -v }
            })
            .filter(|v| *v != 0u32)
            .collect();
        check1(Func::Tanh, &xs, p);
    }
}
