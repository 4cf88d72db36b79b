//! Correctly rounded elementary functions against an INDEPENDENT reference:
//! each function re-evaluated here with a different method than the
//! library's, in malachite-float arithmetic at a much higher precision `P`
//! with a generous error bound, the interval's two ends rounded by
//! malachite's exact `from_rational_prec_round` and required to agree
//! (value and ternary), else `P` doubles. Random arguments across
//! magnitudes, every rounding mode, ternary values, special values,
//! overflow/underflow and arguments near rounding boundaries.
//!
//! The reference lives in `mparray::float::func::reference` (also used by
//! `mparray bench func`). Its methods (library's in brackets): exp = e^floor(x) by binary
//! powering of e = sum 1/k! times Taylor of the fraction [k ln2 + r, 2^-s,
//! squarings]; log = n ln2 (ln2 = sum 1/(k 2^k)) + 16 log(y^(1/16)) by
//! Mercator's series, or Mercator directly near 1 [atanh series]; sin/cos =
//! Taylor on x mod 2pi with pi from 48 atan(1/18) + 32 atan(1/57) - 20
//! atan(1/239) [mod pi/2, Machin]; atan = Euler's series [halvings +
//! Taylor]; pi as above, ln2 as above, e = sum 1/k!.

mod common;

use std::cmp::Ordering;

use malachite_base::num::arithmetic::traits::PowerOf2;
use malachite_base::num::basic::traits::{
    Infinity, NaN, NegativeInfinity, NegativeZero, One, Zero,
};
use malachite_base::num::conversion::traits::RoundingFrom;
use malachite_base::rounding_modes::RoundingMode;
use malachite_float::{ComparableFloatRef, Float};
use malachite_q::Rational;
use mparray::float::func::reference::{exact, reference, reference_const, round_iv};
use mparray::float::func::{Const, Func};
use mparray::float::{self, EMAX, EMIN};
use mparray::{FloatArray, Round};

struct Rng(u64);
impl Rng {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }
    fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }
    fn range(&mut self, lo: i64, hi: i64) -> i64 {
        lo + self.below((hi - lo + 1) as u64) as i64
    }
}

const PRECS: &[u64] = &[1, 2, 53, 64, 113, 128, 200, 512, 1024];

// ---------------------------------------------------------------------------

/// A random float of `q` bits with exponent `e` ([`common::rand_float`]).
fn rand_float(r: &mut Rng, q: u64, e: i64, neg: bool) -> Float {
    common::rand_float(|| r.next(), q, e, neg)
}

fn args(f: Func, r: &mut Rng, p: u64, count: usize) -> Vec<Float> {
    let mut v = Vec::new();
    let pi = std::f64::consts::PI;
    for i in 0..count {
        let q = if r.below(2) == 0 {
            p
        } else {
            1 + r.below(p + 64)
        };
        let neg = r.below(2) == 0;
        let fam = match f {
            Func::Tan => Func::Sin,
            Func::Exp2 => Func::Exp,
            Func::Log2 | Func::Log10 => Func::Log,
            f => f,
        };
        let x = match (fam, i % 4) {
            (Func::Exp, 0) => {
                let e = r.range(-(p as i64) - 8, -(p as i64) / 2);
                rand_float(r, q, e, neg)
            }
            (Func::Exp, _) => {
                let e = r.range(-40, 11);
                rand_float(r, q, e, neg)
            }
            (Func::Log, 0) => {
                // 1 +- 2^-k * m: near 1.
                let k = r.range(1, 2 * p as i64 + 8);
                let d = rand_float(r, q.min(60), -k, neg);
                Float::from_rational_prec(
                    Rational::ONE + Rational::try_from(&d).unwrap(),
                    q + k as u64 + 2,
                )
                .0
            }
            (Func::Log, _) => {
                let e = r.range(-3000, 3000);
                rand_float(r, q, e, false)
            }
            (Func::Sin | Func::Cos, 0) => {
                // Near a multiple of pi/2.
                let k = r.range(1, 1 << 20) as f64;
                let xf = k * pi / 2.0;
                let a = Float::from_rational_prec(Rational::try_from(xf).unwrap(), q.max(54)).0;
                if neg { -a } else { a }
            }
            (Func::Sin | Func::Cos, 1) => {
                let e = r.range(-3000, -(p as i64) / 2);
                rand_float(r, q, e, neg)
            }
            (Func::Sin | Func::Cos, _) => {
                let e = r.range(-20, 24);
                rand_float(r, q, e, neg)
            }
            (Func::Atan, 0) => {
                let e = r.range(-3000, 3000);
                rand_float(r, q, e, neg)
            }
            (Func::Atan, _) => {
                let e = r.range(-12, 12);
                rand_float(r, q, e, neg)
            }
            _ => unreachable!(),
        };
        v.push(x);
    }
    v
}

fn check(f: Func, xs: &[Float], p: u64, want: impl Fn(usize, Round) -> (Float, Ordering)) {
    let q = xs
        .iter()
        .map(|x| x.get_prec().unwrap_or(1))
        .max()
        .unwrap_or(1);
    let (a, t) = FloatArray::from_floats(q, xs, Round::Nearest).unwrap();
    assert!(t.to_vec().unwrap().iter().all(|&t| t == 0));
    for rnd in Round::ALL {
        let (got, tern, _) = a.func_ternary(f, p, rnd).unwrap();
        let tern = tern.into_vec().unwrap();
        assert_eq!((got.len(), tern.len()), (xs.len(), xs.len()));
        for (i, x) in xs.iter().enumerate() {
            let (wf, wo) = want(i, rnd);
            let g = got.to_float(i).unwrap();
            let wt = match wo {
                Ordering::Less => -1,
                Ordering::Equal => 0,
                Ordering::Greater => 1,
            };
            assert!(
                ComparableFloatRef(&g) == ComparableFloatRef(&wf) && tern[i] == wt,
                "{f:?}({x:#x}) p={p} {rnd:?}: got {g:#x} ({}), want {wf:#x} ({wt})",
                tern[i]
            );
        }
    }
}

fn random_case(f: Func, count: usize) {
    let mut r = Rng(common::seed());
    for &p in PRECS {
        let n = if p >= 512 { count / 2 } else { count };
        let xs = args(f, &mut r, p, n);
        let refs: Vec<Vec<(Float, Ordering)>> = xs.iter().map(|x| reference(f, x, p)).collect();
        check(f, &xs, p, |i, rnd| {
            let k = Round::ALL.iter().position(|&m| m == rnd).unwrap();
            refs[i][k].clone()
        });
    }
}

#[test]
fn exp_random() {
    random_case(Func::Exp, 24);
}

#[test]
fn log_random() {
    random_case(Func::Log, 24);
}

#[test]
fn sin_random() {
    random_case(Func::Sin, 24);
}

#[test]
fn cos_random() {
    random_case(Func::Cos, 24);
}

#[test]
fn atan_random() {
    random_case(Func::Atan, 24);
}

#[test]
fn tan_random() {
    random_case(Func::Tan, 24);
}

#[test]
fn exp2_random() {
    random_case(Func::Exp2, 24);
}

#[test]
fn log2_random() {
    random_case(Func::Log2, 16);
}

#[test]
fn log10_random() {
    random_case(Func::Log10, 16);
}

/// Exact cases of exp2, log2 and log10 (MPFR: exact results, ternary 0),
/// and their neighbours (inexact).
#[test]
fn exact_cases() {
    let ints = [1i64, 2, 3, -1, -5, 100, -1000, 1 << 20];
    for rnd in Round::ALL {
        for &p in &[1u64, 2, 53, 200] {
            // exp2(k) = 2^k.
            let xs: Vec<Float> = ints.iter().map(|&k| Float::from(k)).collect();
            let (a, _) = FloatArray::from_floats(64, &xs, Round::Nearest).unwrap();
            let (g, t, _) = a.func_ternary(Func::Exp2, p, rnd).unwrap();
            let t = t.into_vec().unwrap();
            for (i, &k) in ints.iter().enumerate() {
                assert_eq!(g.to_float(i).unwrap(), Float::power_of_2(k), "exp2({k})");
                assert_eq!(t[i], 0);
            }
            // log2(2^k) = k, log10(10^k) = k.
            let xs: Vec<Float> = ints.iter().map(|&k| Float::power_of_2(k)).collect();
            let (a, _) = FloatArray::from_floats(64, &xs, Round::Nearest).unwrap();
            let (g, t, _) = a.func_ternary(Func::Log2, p, rnd).unwrap();
            let t = t.into_vec().unwrap();
            for (i, &k) in ints.iter().enumerate() {
                let want = Float::from_rational_prec_round(
                    Rational::from(k),
                    p,
                    float::to_rounding_mode(rnd),
                );
                assert_eq!(
                    ComparableFloatRef(&g.to_float(i).unwrap()),
                    ComparableFloatRef(&want.0),
                    "log2(2^{k}) p={p}"
                );
                assert_eq!(t[i].cmp(&0), want.1);
            }
            let tens: Vec<Float> = (0..25u32)
                .map(|k| {
                    Float::from_rational_prec(
                        Rational::from(10u64.pow(k.min(19)) as f64 as u64),
                        128,
                    )
                    .0
                })
                .take(20)
                .collect();
            let (a, _) = FloatArray::from_floats(128, &tens, Round::Nearest).unwrap();
            let (g, t, _) = a.func_ternary(Func::Log10, p, rnd).unwrap();
            let t = t.into_vec().unwrap();
            assert_eq!(t.len(), 20);
            for (k, &tk) in t.iter().enumerate() {
                let want = Float::from_rational_prec_round(
                    Rational::from(k as i64),
                    p,
                    float::to_rounding_mode(rnd),
                );
                assert_eq!(
                    ComparableFloatRef(&g.to_float(k).unwrap()),
                    ComparableFloatRef(&want.0),
                    "log10(10^{k}) p={p} {rnd:?}"
                );
                assert_eq!(tk.cmp(&0), want.1);
            }
            // Neighbours are inexact: against the reference.
            let near = [
                Float::from(10.5f64),
                Float::from(1000.25f64),
                Float::from(3.0f64),
                Float::from(0.1f64),
            ];
            for f in [Func::Exp2, Func::Log2, Func::Log10] {
                check(f, &near, p, |i, rnd| {
                    let k = Round::ALL.iter().position(|&m| m == rnd).unwrap();
                    reference(f, &near[i], p)[k].clone()
                });
            }
        }
    }
}

#[test]
fn sin_cos_matches_sin_and_cos() {
    let mut r = Rng(common::seed());
    let xs = args(Func::Sin, &mut r, 200, 16);
    let (a, _) = FloatArray::from_floats(300, &xs, Round::Nearest).unwrap();
    let ((s, ts), (c, tc), _) = a.sin_cos_ternary(200, Round::Up).unwrap();
    let (s2, ts2, _) = a.func_ternary(Func::Sin, 200, Round::Up).unwrap();
    let (c2, tc2, _) = a.func_ternary(Func::Cos, 200, Round::Up).unwrap();
    let (ts, tc) = (ts.into_vec().unwrap(), tc.into_vec().unwrap());
    assert_eq!(ts.len(), xs.len());
    assert!(s == s2 && c == c2);
    assert!(ts == ts2.into_vec().unwrap() && tc == tc2.into_vec().unwrap());
}

/// Constants in every mode against the reference's pi, ln 2 and e.
#[test]
fn constants() {
    for &p in &[1u64, 2, 3, 53, 64, 113, 128, 200, 512, 1024, 3000] {
        for rnd in Round::ALL {
            for c in [Const::Pi, Const::Ln2, Const::E, Const::Ln10] {
                let (a, t) = FloatArray::constant(c, p, rnd).unwrap();
                let mut pp = 2 * p + 128;
                let want = loop {
                    let ap = reference_const(c, pp);
                    if let Some(w) = round_iv(&ap, p, float::to_rounding_mode(rnd)) {
                        break w;
                    }
                    pp *= 2;
                };
                let wt = if want.1 == Ordering::Less { -1 } else { 1 };
                assert!(
                    ComparableFloatRef(&a.to_float(0).unwrap()) == ComparableFloatRef(&want.0)
                        && t == wt,
                    "{c:?} p={p} {rnd:?}"
                );
            }
        }
    }
}

/// Special values and exact cases, as MPFR.
#[test]
fn specials() {
    let xs = [
        Float::NAN,
        Float::INFINITY,
        Float::NEGATIVE_INFINITY,
        Float::ZERO,
        Float::NEGATIVE_ZERO,
        Float::ONE,
        -Float::ONE,
    ];
    let (a, _) = FloatArray::from_floats(10, &xs, Round::Nearest).unwrap();
    // The value and sign, not the precision.
    let s = |x: &Float| {
        let d = f64::rounding_from(x, RoundingMode::Nearest).0;
        format!("{d:?}")
    };
    let pi_round = |rnd: Round, neg: bool| {
        let (h, t) =
            FloatArray::constant(Const::Pi, 20, if neg { rnd.mirror() } else { rnd }).unwrap();
        let (h, t2) = h.mul_2si(-1, 20, Round::Nearest).map(|h| (h, t)).unwrap();
        let v = h.to_float(0).unwrap();
        if neg { (-v, -t2) } else { (v, t2) }
    };
    for rnd in Round::ALL {
        let f = |fun: Func| {
            let (g, t, _) = a.func_ternary(fun, 20, rnd).unwrap();
            (g.to_floats().unwrap(), t.into_vec().unwrap())
        };
        let (e, te) = f(Func::Exp);
        assert_eq!(
            e.iter().take(5).map(s).collect::<Vec<_>>(),
            [
                Float::NAN,
                Float::INFINITY,
                Float::ZERO,
                Float::ONE,
                Float::ONE
            ]
            .iter()
            .map(s)
            .collect::<Vec<_>>()
        );
        assert_eq!(&te[..5], &[0, 0, 0, 0, 0]);
        let (l, tl) = f(Func::Log);
        assert_eq!(
            l.iter().map(s).collect::<Vec<_>>(),
            [
                Float::NAN,
                Float::INFINITY,
                Float::NAN,
                Float::NEGATIVE_INFINITY,
                Float::NEGATIVE_INFINITY,
                Float::ZERO,
                Float::NAN
            ]
            .iter()
            .map(s)
            .collect::<Vec<_>>()
        );
        assert!(tl.iter().all(|&t| t == 0));
        let (sn, ts) = f(Func::Sin);
        assert_eq!(
            sn.iter().take(5).map(s).collect::<Vec<_>>(),
            [
                Float::NAN,
                Float::NAN,
                Float::NAN,
                Float::ZERO,
                Float::NEGATIVE_ZERO
            ]
            .iter()
            .map(s)
            .collect::<Vec<_>>()
        );
        assert_eq!(&ts[..5], &[0, 0, 0, 0, 0]);
        let (cs, tc) = f(Func::Cos);
        assert_eq!(
            cs.iter().take(5).map(s).collect::<Vec<_>>(),
            [Float::NAN, Float::NAN, Float::NAN, Float::ONE, Float::ONE]
                .iter()
                .map(s)
                .collect::<Vec<_>>()
        );
        assert_eq!(&tc[..5], &[0, 0, 0, 0, 0]);
        let (at, ta) = f(Func::Atan);
        assert_eq!(s(&at[0]), s(&Float::NAN));
        assert_eq!(
            (s(&at[3]), s(&at[4])),
            (s(&Float::ZERO), s(&Float::NEGATIVE_ZERO))
        );
        // atan(+-Inf) = +-pi/2 rounded (pi/2 is pi scaled exactly).
        let (hp, thp) = pi_round(rnd, false);
        let (hn, thn) = pi_round(rnd, true);
        assert_eq!((s(&at[1]), ta[1]), (s(&hp), thp), "{rnd:?}");
        assert_eq!((s(&at[2]), ta[2]), (s(&hn), thn), "{rnd:?}");
    }
}

/// exp near the ends of the exponent range: overflow to Inf or the largest
/// float, underflow to 0 or the smallest, by mode; just inside, the
/// reference.
#[test]
fn exp_range() {
    let p = 53;
    // (EMAX) ln 2 ~ 744261116.96: above overflows, below is finite.
    let xs = [
        Float::from(744261118.0f64),
        Float::from(1e12f64),
        Float::from(-744261119.0f64),
        Float::from(-1e12f64),
    ];
    let (a, _) = FloatArray::from_floats(64, &xs, Round::Nearest).unwrap();
    for rnd in Round::ALL {
        let (g, t, _) = a.func_ternary(Func::Exp, p, rnd).unwrap();
        let (g, t) = (g.to_floats().unwrap(), t.into_vec().unwrap());
        for i in 0..2 {
            if rnd == Round::Zero || rnd == Round::Down {
                assert_eq!(g[i].get_exponent(), Some(EMAX as i32));
                assert_eq!(t[i], -1);
            } else {
                assert_eq!(
                    ComparableFloatRef(&g[i]),
                    ComparableFloatRef(&Float::INFINITY)
                );
                assert_eq!(t[i], 1);
            }
        }
        for i in 2..4 {
            if rnd == Round::Up || rnd == Round::Away {
                assert_eq!(g[i].get_exponent(), Some(EMIN as i32));
                assert_eq!(t[i], 1);
            } else {
                assert_eq!(ComparableFloatRef(&g[i]), ComparableFloatRef(&Float::ZERO));
                assert_eq!(t[i], -1);
            }
        }
    }
    // Just inside the top: against the reference.
    let xs = vec![Float::from(744261116.5f64), Float::from(744261000.25f64)];
    check(Func::Exp, &xs, p, |i, rnd| {
        let k = Round::ALL.iter().position(|&m| m == rnd).unwrap();
        reference(Func::Exp, &xs[i], p)[k].clone()
    });
}

/// Arguments whose results lie very close to a rounding boundary: searched
/// at low precision (the result's bits after the p-th are 0111..1 or
/// 1000..0 for many bits), so that a faithful-only library would fail.
#[test]
fn hard_to_round() {
    let mut r = Rng(common::seed());
    for f in Func::ALL {
        let p = 24;
        let mut hard = Vec::new();
        let mut tries = 0;
        while hard.len() < 3 && tries < 20000 {
            tries += 1;
            let x = match f {
                Func::Log | Func::Log2 | Func::Log10 => {
                    let e = r.range(-5, 5);
                    rand_float(&mut r, p, e, false)
                }
                _ => {
                    let (e, neg) = (r.range(-3, 2), r.below(2) == 0);
                    rand_float(&mut r, p, e, neg)
                }
            };
            if exact(f, &x).is_some() {
                continue;
            }
            // Round at p + 12 bits toward zero: if the 12 extra bits are
            // 0000.., 1111.., 1000.. or 0111.., the result is within 2^-11
            // ulp of a rounding boundary (directed or nearest).
            let w = reference(f, &x, p + 12)[1].0.clone();
            let (a, _) = FloatArray::from_floats(p + 12, &[w], Round::Nearest).unwrap();
            let low = a.limbs().unwrap()[0] >> (64 - p - 12) & 0xfff;
            if low == 0 || low == 0xfff || low == 0x800 || low == 0x7ff {
                hard.push(x);
            }
        }
        assert!(!hard.is_empty(), "{f:?}: no hard case found");
        check(f, &hard, p, |i, rnd| {
            let k = Round::ALL.iter().position(|&m| m == rnd).unwrap();
            reference(f, &hard[i], p)[k].clone()
        });
    }
}

/// Powers of two (short inputs) in the fast paths' range and around its
/// edge, every precision: the fast-path intervals must decide.
#[test]
fn powers_of_two() {
    for &p in PRECS {
        let ks: Vec<i64> = vec![
            -(p as i64) / 2 - 3,
            -(p as i64) / 2 - 2,
            -(p as i64) / 2 - 1,
            -(p as i64) - 2,
            -(p as i64) - 3,
            -(p as i64) - 4,
            -1530,
            -3,
            0,
            2,
        ];
        let mut xs: Vec<Float> = ks.iter().map(|&k| Float::power_of_2(k)).collect();
        xs.extend(ks.iter().map(|&k| -Float::power_of_2(k)));
        for f in [
            Func::Exp,
            Func::Sin,
            Func::Cos,
            Func::Atan,
            Func::Tan,
            Func::Exp2,
        ] {
            check(f, &xs, p, |i, rnd| {
                let k = Round::ALL.iter().position(|&m| m == rnd).unwrap();
                reference(f, &xs[i], p)[k].clone()
            });
        }
    }
}

/// The retry statistics count elements that needed more than the first
/// working precision.
#[test]
fn stats() {
    let xs: Vec<Float> = (1..=100).map(|i| Float::from(i as f64 / 7.0)).collect();
    let (a, _) = FloatArray::from_floats(64, &xs, Round::Nearest).unwrap();
    let (_, _, st) = a.func_ternary(Func::Exp, 128, Round::Nearest).unwrap();
    assert_eq!(st.elements, 100);
    assert!(st.retried <= 100);
    let _ = Float::NAN;
}

/// The series evaluated by blocks at high precision (2048 and 3000 bits:
/// block sizes limited by the limb-sized products, the log table at large
/// working precisions) and just around the block threshold (3 limbs of
/// working precision: 100 to 140 bits), against the reference.
#[test]
fn series_blocks_paths() {
    let mut r = Rng(common::seed());
    for (p, count) in [
        (100u64, 12usize),
        (110, 12),
        (120, 12),
        (140, 12),
        (2048, 3),
        (3000, 2),
    ] {
        for f in [Func::Exp, Func::Log, Func::Sin, Func::Cos, Func::Atan] {
            let xs = args(f, &mut r, p, count);
            let refs: Vec<Vec<(Float, Ordering)>> = xs.iter().map(|x| reference(f, x, p)).collect();
            check(f, &xs, p, |i, rnd| {
                let k = Round::ALL.iter().position(|&m| m == rnd).unwrap();
                refs[i][k].clone()
            });
        }
    }
}
