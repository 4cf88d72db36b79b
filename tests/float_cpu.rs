//! Float arrays on the CPU engine against malachite-float (which reproduces
//! MPFR bit for bit): every operation, rounding mode and precision class,
//! mixed precisions, special values, halfway cases, carries to the next
//! power of two, overflow and underflow, and ternary values. Fresh random
//! inputs each run (the seed is printed; MPARRAY_TEST_SEED replays it).

mod common;
use common::Rng;

use std::cmp::Ordering;

use malachite_base::num::arithmetic::traits::{Abs, Pow};
use malachite_base::num::basic::traits::{
    Infinity, NaN, NegativeInfinity, NegativeZero, One, Zero,
};
use malachite_base::num::conversion::traits::RoundingFrom;
use malachite_base::num::logic::traits::SignificantBits;
use malachite_base::rounding_modes::RoundingMode;
use malachite_float::{ComparableFloatRef, Float};
use malachite_nz::natural::Natural;
use mparray::float::{self, EMAX, EMIN, TernaryArray, text};
use mparray::{Engine, FloatArray, Round};

/// Precisions: the precision classes and every limb and kernel threshold
/// (1/2/3 limbs, Karatsuba at 24 limbs, divide-and-conquer division at 40,
/// Toom-3 at 110, NTT/Barrett at 128 limbs).
const PRECS: &[u64] = &[
    1, 2, 3, 53, 63, 64, 65, 127, 128, 129, 191, 192, 193, 500, 1000, 1535, 1536, 1537, 2559, 2560,
    2561, 4096, 7040, 8193, 16384,
];

/// An operation's results and ternary values; a reference function; the
/// reference results.
type Got = (FloatArray, TernaryArray);
type Ref = fn(&Float, &Float, u64, RoundingMode) -> (Float, Ordering);
type Want = Vec<(Float, Ordering)>;

fn rm(r: Round) -> RoundingMode {
    float::to_rounding_mode(r)
}

fn ord(t: i8) -> Ordering {
    t.cmp(&0)
}

/// A mantissa of exactly `prec` bits (top bit set): random, runs of ones
/// and zeros (halfway cases and carries), all ones, or a power of two.
fn mantissa(r: &mut Rng, prec: u64) -> Natural {
    let limbs = prec.div_ceil(64) as usize;
    let kind = r.below(5);
    let mut v: Vec<u64> = match kind {
        0 | 1 => (0..limbs).map(|_| r.next()).collect(),
        2 => {
            // Runs of equal bits.
            let mut bits = Vec::with_capacity(64 * limbs);
            let mut b = true;
            while bits.len() < 64 * limbs {
                let lim = if r.below(2) == 0 { 4 } else { 80 };
                let len = 1 + r.below(lim) as usize;
                bits.extend(std::iter::repeat_n(b, len));
                b = !b;
            }
            (0..limbs)
                .map(|i| (0..64).fold(0u64, |a, j| a | ((bits[64 * i + j] as u64) << j)))
                .collect()
        }
        3 => vec![u64::MAX; limbs],
        _ => vec![0; limbs],
    };
    // Keep exactly `prec` bits with the top one set.
    let extra = 64 * limbs as u64 - prec;
    let mut n = Natural::from_limbs_asc(&v) >> extra;
    v.clear();
    n |= Natural::ONE << (prec - 1);
    if kind == 4 && r.below(2) == 0 {
        n |= Natural::ONE; // power of two plus one ulp
    }
    n
}

/// A float of precision `prec` with exponent in `e` (or a special value
/// with probability `sp` percent).
fn rand_float(r: &mut Rng, prec: u64, e: (i64, i64), sp: u64) -> Float {
    if r.below(100) < sp {
        return match r.below(5) {
            0 => Float::NAN,
            1 => Float::INFINITY,
            2 => Float::NEGATIVE_INFINITY,
            3 => Float::ZERO,
            _ => Float::NEGATIVE_ZERO,
        };
    }
    let exp = r.range(e.0, e.1);
    make(mantissa(r, prec), prec, exp, r.below(2) == 0)
}

/// `m * 2^(exp - prec)` (exponent `exp` when `m` has `prec` bits).
fn make(m: Natural, prec: u64, exp: i64, neg: bool) -> Float {
    let (f, o) = Float::from_natural_prec(m, prec);
    assert_eq!(o, Ordering::Equal);
    let f = f << (exp - prec as i64);
    if neg { -f } else { f }
}

fn arr(prec: u64, xs: &[Float]) -> FloatArray {
    let (a, t) = FloatArray::from_floats(prec, xs, Round::Nearest).unwrap();
    assert!(t.to_vec().unwrap().iter().all(|&x| x == 0));
    a
}

fn show(x: &Float) -> String {
    let p = x.get_prec().unwrap_or(1);
    let a = arr(p, std::slice::from_ref(x));
    format!("{}#{p}", text::format_hex(&a.get(0).unwrap()))
}

/// Compares every element and ternary value with malachite's.
fn check(what: &str, got: &Got, want: &[(Float, Ordering)], ins: &[&[Float]]) {
    let t = got.1.to_vec().unwrap();
    assert_eq!(got.0.len(), want.len(), "{what}: length");
    assert_eq!(t.len(), want.len(), "{what}: ternary length");
    for (i, (w, wo)) in want.iter().enumerate() {
        let g = got.0.to_float(i).unwrap();
        if ComparableFloatRef(&g) != ComparableFloatRef(w) || ord(t[i]) != *wo {
            let args: Vec<String> = ins.iter().map(|v| show(&v[i])).collect();
            panic!(
                "{what} element {i}: inputs {args:?}\n  got  {} ternary {}\n  want {} ternary {:?}",
                show(&g),
                t[i],
                show(w),
                wo
            );
        }
    }
}

/// Elements per case: fewer at large precisions.
fn count(p: u64) -> usize {
    (48000 / (p as usize / 64 + 4)).max(4)
}

#[derive(Clone, Copy, Debug)]
enum Bin {
    Add,
    Sub,
    Mul,
    Div,
    Min,
    Max,
}

fn run_binary(op: Bin, seed: u64) {
    let mut r = Rng(seed);
    for &p in PRECS {
        for rnd in Round::ALL {
            // Mixed precisions: the operands' precisions are drawn near or
            // far from the destination's.
            let qa = if r.below(2) == 0 { p } else { r.pick(PRECS) };
            let qb = if r.below(2) == 0 { p } else { r.pick(PRECS) };
            let n = count(p.max(qa).max(qb));
            let mut xs = Vec::with_capacity(n);
            let mut ys = Vec::with_capacity(n);
            for _ in 0..n {
                let x = rand_float(&mut r, qa, (-40, 40), 4);
                let ex = x.get_exponent().map_or(0, i64::from);
                // Close exponents (cancellation), or far (sticky bits).
                let d = match r.below(4) {
                    0 => 0,
                    1 => r.range(-2, 2),
                    2 => r.range(-(p.max(qb) as i64) - 70, p.max(qb) as i64 + 70),
                    _ => r.range(-5000, 5000),
                };
                let mut y = rand_float(&mut r, qb, (ex + d, ex + d), 4);
                if matches!(op, Bin::Sub) && r.below(8) == 0 && x.is_finite() {
                    // x - x' with x' = x rounded: exact cancellation and
                    // near-cancellation.
                    y = Float::from_float_prec_round_ref(&x, qb, rm(rnd)).0;
                }
                xs.push(x);
                ys.push(y);
            }
            let (a, b) = (arr(qa, &xs), arr(qb, &ys));
            let got = match op {
                Bin::Add => a.add_ternary(&b, p, rnd),
                Bin::Sub => a.sub_ternary(&b, p, rnd),
                Bin::Mul => a.mul_ternary(&b, p, rnd),
                Bin::Div => a.div_ternary(&b, p, rnd),
                Bin::Min => a.min_ternary(&b, p, rnd),
                Bin::Max => a.max_ternary(&b, p, rnd),
            }
            .unwrap();
            let m = rm(rnd);
            let want: Vec<(Float, Ordering)> = xs
                .iter()
                .zip(&ys)
                .map(|(x, y)| match op {
                    Bin::Add => x.add_prec_round_ref_ref(y, p, m),
                    Bin::Sub => x.sub_prec_round_ref_ref(y, p, m),
                    Bin::Mul => x.mul_prec_round_ref_ref(y, p, m),
                    Bin::Div => x.div_prec_round_ref_ref(y, p, m),
                    Bin::Min => x.clone().min_prec_round(y.clone(), p, m),
                    Bin::Max => x.clone().max_prec_round(y.clone(), p, m),
                })
                .collect();
            check(
                &format!("{op:?} p={p} ({qa},{qb}) {rnd:?}"),
                &got,
                &want,
                &[&xs, &ys],
            );
        }
    }
}

#[test]
fn add_random() {
    run_binary(Bin::Add, common::seed());
}

#[test]
fn sub_random() {
    run_binary(Bin::Sub, common::seed());
}

#[test]
fn mul_random() {
    run_binary(Bin::Mul, common::seed());
}

#[test]
fn div_random() {
    run_binary(Bin::Div, common::seed());
}

#[test]
fn min_max_random() {
    let s = common::seed();
    run_binary(Bin::Min, s);
    run_binary(Bin::Max, s ^ 1);
}

#[derive(Clone, Copy, Debug)]
enum Un {
    Sqrt,
    Neg,
    Abs,
    SetPrec,
    Mul2(i64),
}

fn run_unary(op: Un, seed: u64) {
    let mut r = Rng(seed);
    for &p in PRECS {
        for rnd in Round::ALL {
            let qa = if r.below(2) == 0 { p } else { r.pick(PRECS) };
            let n = count(p.max(qa));
            let xs: Vec<Float> = (0..n)
                .map(|_| {
                    let x = rand_float(&mut r, qa, (-300, 300), 5);
                    if matches!(op, Un::Sqrt) && r.below(4) != 0 {
                        x.abs()
                    } else {
                        x
                    }
                })
                .collect();
            let a = arr(qa, &xs);
            let m = rm(rnd);
            let got = match op {
                Un::Sqrt => a.sqrt_ternary(p, rnd),
                Un::Neg => a.neg_ternary(p, rnd),
                Un::Abs => a.abs_ternary(p, rnd),
                Un::SetPrec => a.set_prec_ternary(p, rnd),
                Un::Mul2(k) => a.mul_2si_ternary(k, p, rnd),
            }
            .unwrap();
            let want: Vec<(Float, Ordering)> = xs
                .iter()
                .map(|x| match op {
                    Un::Sqrt => x.sqrt_prec_round_ref(p, m),
                    Un::Neg => Float::from_float_prec_round(-x.clone(), p, m),
                    Un::Abs => Float::from_float_prec_round(x.clone().abs(), p, m),
                    Un::SetPrec => Float::from_float_prec_round_ref(x, p, m),
                    Un::Mul2(k) => x.shl_prec_round_ref(k, p, m),
                })
                .collect();
            check(&format!("{op:?} p={p} ({qa}) {rnd:?}"), &got, &want, &[&xs]);
        }
    }
}

#[test]
fn sqrt_random() {
    run_unary(Un::Sqrt, common::seed());
}

#[test]
fn neg_abs_set_prec_random() {
    let s = common::seed();
    run_unary(Un::Neg, s);
    run_unary(Un::Abs, s ^ 1);
    run_unary(Un::SetPrec, s ^ 2);
}

#[test]
fn mul_2si_random() {
    let s = common::seed();
    for (j, k) in [0i64, 1, -1, 77, -300, 1 << 20].into_iter().enumerate() {
        run_unary(Un::Mul2(k), s ^ j as u64);
    }
}

fn run_fma(sub: bool, seed: u64) {
    let mut r = Rng(seed);
    for &p in PRECS {
        for rnd in Round::ALL {
            let q = [
                if r.below(2) == 0 { p } else { r.pick(PRECS) },
                if r.below(2) == 0 { p } else { r.pick(PRECS) },
                if r.below(2) == 0 { p } else { r.pick(PRECS) },
            ];
            let n = count(p.max(q[0]).max(q[1]).max(q[2]));
            let (mut xs, mut ys, mut zs) = (vec![], vec![], vec![]);
            for _ in 0..n {
                let x = rand_float(&mut r, q[0], (-30, 30), 3);
                let y = rand_float(&mut r, q[1], (-30, 30), 3);
                let ep =
                    x.get_exponent().map_or(0, i64::from) + y.get_exponent().map_or(0, i64::from);
                let d = match r.below(4) {
                    0 => r.range(-2, 1),
                    1 => r.range(-200, 200),
                    2 => r.range(-(2 * p as i64) - 200, 2 * p as i64 + 200),
                    _ => r.range(-40000, 40000),
                };
                let mut z = rand_float(&mut r, q[2], (ep + d, ep + d), 3);
                if r.below(6) == 0 && x.is_finite() && y.is_finite() {
                    // c = a*b rounded: massive cancellation.
                    let (pr, _) = x.mul_prec_round_ref_ref(&y, q[2], rm(rnd));
                    z = if sub { pr } else { -pr };
                }
                xs.push(x);
                ys.push(y);
                zs.push(z);
            }
            let (a, b, c) = (arr(q[0], &xs), arr(q[1], &ys), arr(q[2], &zs));
            let got = if sub {
                a.fms_ternary(&b, &c, p, rnd)
            } else {
                a.fma_ternary(&b, &c, p, rnd)
            }
            .unwrap();
            let m = rm(rnd);
            let one = Float::ONE;
            let want: Vec<(Float, Ordering)> = (0..n)
                .map(|i| {
                    if sub {
                        xs[i].clone().mul_sub_mul_prec_round(
                            ys[i].clone(),
                            zs[i].clone(),
                            one.clone(),
                            p,
                            m,
                        )
                    } else {
                        zs[i].add_mul_prec_round_ref_ref_ref(&xs[i], &ys[i], p, m)
                    }
                })
                .collect();
            check(
                &format!("{} p={p} {q:?} {rnd:?}", if sub { "fms" } else { "fma" }),
                &got,
                &want,
                &[&xs, &ys, &zs],
            );
        }
    }
}

#[test]
fn fma_random() {
    run_fma(false, common::seed());
}

#[test]
fn fms_random() {
    run_fma(true, common::seed());
}

/// Every class against every class (NaN, +-Inf, +-0, +-1, tiny, huge) in
/// every binary operation, rounding mode and a few precisions.
#[test]
fn special_values_every_pair() {
    let mut vals = vec![
        Float::NAN,
        Float::INFINITY,
        Float::NEGATIVE_INFINITY,
        Float::ZERO,
        Float::NEGATIVE_ZERO,
    ];
    for (m, prec, e) in [
        (1u32, 1, 1),
        (3, 2, 2),
        (5, 3, -7),
        (1, 1, EMIN),
        (1, 1, EMAX),
    ] {
        let f = make(Natural::from(m), prec, e, false);
        vals.push(-f.clone());
        vals.push(f);
    }
    let mut xs = vec![];
    let mut ys = vec![];
    for x in &vals {
        for y in &vals {
            xs.push(x.clone());
            ys.push(y.clone());
        }
    }
    // Mixed operand precisions through rounding into 3-bit arrays.
    let a = FloatArray::from_floats(3, &xs, Round::Nearest).unwrap().0;
    let b = FloatArray::from_floats(3, &ys, Round::Nearest).unwrap().0;
    let xs = a.to_floats().unwrap();
    let ys = b.to_floats().unwrap();
    for p in [1, 2, 53, 65] {
        for rnd in Round::ALL {
            let m = rm(rnd);
            let cases: [(&str, Got, Ref); 6] = [
                ("add", a.add_ternary(&b, p, rnd).unwrap(), |x, y, p, m| {
                    x.add_prec_round_ref_ref(y, p, m)
                }),
                ("sub", a.sub_ternary(&b, p, rnd).unwrap(), |x, y, p, m| {
                    x.sub_prec_round_ref_ref(y, p, m)
                }),
                ("mul", a.mul_ternary(&b, p, rnd).unwrap(), |x, y, p, m| {
                    x.mul_prec_round_ref_ref(y, p, m)
                }),
                ("div", a.div_ternary(&b, p, rnd).unwrap(), |x, y, p, m| {
                    x.div_prec_round_ref_ref(y, p, m)
                }),
                ("min", a.min_ternary(&b, p, rnd).unwrap(), |x, y, p, m| {
                    x.clone().min_prec_round(y.clone(), p, m)
                }),
                ("max", a.max_ternary(&b, p, rnd).unwrap(), |x, y, p, m| {
                    x.clone().max_prec_round(y.clone(), p, m)
                }),
            ];
            for (name, got, f) in cases {
                let want: Vec<_> = xs.iter().zip(&ys).map(|(x, y)| f(x, y, p, m)).collect();
                check(
                    &format!("special {name} p={p} {rnd:?}"),
                    &got,
                    &want,
                    &[&xs, &ys],
                );
            }
            // Three-operand: every triple of a smaller set.
            let small: Vec<Float> = vals
                .iter()
                .step_by(2)
                .cloned()
                .chain([Float::ONE, -Float::ONE])
                .collect();
            let (mut u, mut v, mut w) = (vec![], vec![], vec![]);
            for x in &small {
                for y in &small {
                    for z in &small {
                        u.push(x.clone());
                        v.push(y.clone());
                        w.push(z.clone());
                    }
                }
            }
            let (ua, va, wa) = (arr(3, &u), arr(3, &v), arr(3, &w));
            let (u, v, w) = (
                ua.to_floats().unwrap(),
                va.to_floats().unwrap(),
                wa.to_floats().unwrap(),
            );
            let got = ua.fma_ternary(&va, &wa, p, rnd).unwrap();
            let want: Vec<_> = (0..u.len())
                .map(|i| w[i].add_mul_prec_round_ref_ref_ref(&u[i], &v[i], p, m))
                .collect();
            check(
                &format!("special fma p={p} {rnd:?}"),
                &got,
                &want,
                &[&u, &v, &w],
            );
            let got = ua.fms_ternary(&va, &wa, p, rnd).unwrap();
            let want: Vec<_> = (0..u.len())
                .map(|i| {
                    u[i].clone().mul_sub_mul_prec_round(
                        v[i].clone(),
                        w[i].clone(),
                        Float::ONE,
                        p,
                        m,
                    )
                })
                .collect();
            check(
                &format!("special fms p={p} {rnd:?}"),
                &got,
                &want,
                &[&u, &v, &w],
            );
            let got = a.sqrt_ternary(p, rnd).unwrap();
            let want: Vec<_> = xs.iter().map(|x| x.sqrt_prec_round_ref(p, m)).collect();
            check(&format!("special sqrt p={p} {rnd:?}"), &got, &want, &[&xs]);
            let cmp = a.cmp(&b).unwrap();
            for i in 0..xs.len() {
                assert_eq!(
                    cmp[i],
                    xs[i].partial_cmp(&ys[i]),
                    "cmp {} {}",
                    show(&xs[i]),
                    show(&ys[i])
                );
            }
        }
    }
}

/// Results at the ends of the exponent range: overflow to Inf or the
/// largest float, underflow to zero or the smallest, the RNDN midpoint
/// 2^(EMIN-2), and carries that overflow.
#[test]
fn overflow_underflow() {
    let mut r = Rng(common::seed());
    for &p in &[1u64, 2, 53, 64, 65, 200] {
        for rnd in Round::ALL {
            let m = rm(rnd);
            let n = 300;
            let (mut xs, mut ys) = (vec![], vec![]);
            for _ in 0..n {
                let q = r.pick(&[1u64, 2, 3, 53, 64, 65, 130]);
                let q2 = r.pick(&[1u64, 2, 3, 53, 64, 65, 130]);
                let hi = r.below(2) == 0;
                let ex = if hi {
                    r.range(EMAX - 3, EMAX)
                } else {
                    r.range(EMIN, EMIN + 3)
                };
                let x = make(mantissa(&mut r, q), q, ex, r.below(2) == 0);
                let ey = match r.below(3) {
                    0 => r.range(-2, 3),
                    1 => {
                        if hi {
                            r.range(EMAX - 2, EMAX)
                        } else {
                            r.range(EMIN, EMIN + 2)
                        }
                    }
                    _ => r.range(-70, 70),
                };
                let y = make(mantissa(&mut r, q2), q2, ey, r.below(2) == 0);
                xs.push(x);
                ys.push(y);
            }
            // Arrays of one precision: round the operands to 130 bits (exact).
            let (a, b) = (arr(130, &xs), arr(130, &ys));
            let ops: [(&str, Got, Want); 5] = [
                (
                    "mul",
                    a.mul_ternary(&b, p, rnd).unwrap(),
                    xs.iter()
                        .zip(&ys)
                        .map(|(x, y)| x.mul_prec_round_ref_ref(y, p, m))
                        .collect(),
                ),
                (
                    "div",
                    a.div_ternary(&b, p, rnd).unwrap(),
                    xs.iter()
                        .zip(&ys)
                        .map(|(x, y)| x.div_prec_round_ref_ref(y, p, m))
                        .collect(),
                ),
                (
                    "add",
                    a.add_ternary(&a, p, rnd).unwrap(),
                    xs.iter()
                        .map(|x| x.add_prec_round_ref_ref(x, p, m))
                        .collect(),
                ),
                (
                    "sub",
                    a.sub_ternary(&b, p, rnd).unwrap(),
                    xs.iter()
                        .zip(&ys)
                        .map(|(x, y)| x.sub_prec_round_ref_ref(y, p, m))
                        .collect(),
                ),
                (
                    "fma",
                    a.fma_ternary(&b, &a, p, rnd).unwrap(),
                    xs.iter()
                        .zip(&ys)
                        .map(|(x, y)| fma_ref(x, y, x, p, m))
                        .collect(),
                ),
            ];
            for (name, got, want) in ops {
                check(
                    &format!("range {name} p={p} {rnd:?}"),
                    &got,
                    &want,
                    &[&xs, &ys],
                );
            }
            for k in [-3i64, -2, -1, 1, 2, 3] {
                let got = a.mul_2si_ternary(k, p, rnd).unwrap();
                let want: Vec<_> = xs.iter().map(|x| x.shl_prec_round_ref(k, p, m)).collect();
                check(
                    &format!("range mul_2si({k}) p={p} {rnd:?}"),
                    &got,
                    &want,
                    &[&xs],
                );
            }
            let got = a.sqrt_ternary(p, rnd).unwrap();
            let want: Vec<_> = xs.iter().map(|x| x.sqrt_prec_round_ref(p, m)).collect();
            check(&format!("range sqrt p={p} {rnd:?}"), &got, &want, &[&xs]);
        }
    }
    // The exact midpoint 2^(EMIN-2) and its neighbours, from a product.
    for rnd in Round::ALL {
        let m = rm(rnd);
        let h = make(Natural::ONE, 1, EMIN, false); // 2^(EMIN-1), the smallest
        let half = make(Natural::ONE, 1, 0, false); // 1/2
        let just = make(Natural::from(3u32), 2, 0, false); // 3/4
        let xs = vec![h.clone(), h.clone(), -h.clone(), h.clone()];
        let ys = vec![
            half.clone(),
            just.clone(),
            half.clone(),
            make(Natural::ONE, 1, -1, false),
        ];
        let (a, b) = (arr(2, &xs), arr(2, &ys));
        for p in [1, 2, 10] {
            let got = a.mul_ternary(&b, p, rnd).unwrap();
            let want: Vec<_> = xs
                .iter()
                .zip(&ys)
                .map(|(x, y)| x.mul_prec_round_ref_ref(y, p, m))
                .collect();
            check(&format!("midpoint p={p} {rnd:?}"), &got, &want, &[&xs, &ys]);
        }
    }
}

/// x*y + z as MPFR gives it. malachite-float 0.14's add_mul misrounds in
/// the underflow range (e.g. -0x1.12569e7caf172p-1073741824 *
/// -0x7.3c78p-4 + the first operand, to 2 bits in RNDN, gives -0 where the
/// exact result lies above half the smallest float, so MPFR gives its
/// -0x1p-1073741824): there the reference is the exact result of the
/// operands scaled by 2^1000, scaled back with shl_prec_round (which rounds
/// at the range's end as MPFR does; see mul_2si and the range tests).
fn fma_ref(x: &Float, y: &Float, z: &Float, p: u64, m: RoundingMode) -> (Float, Ordering) {
    let r = z.add_mul_prec_round_ref_ref_ref(x, y, p, m);
    let near_bottom = [x, z]
        .iter()
        .all(|v| v.get_exponent().is_some_and(|e| (e as i64) < EMIN + 200));
    if !(y.get_exponent().is_some_and(|e| e.abs() < 100) && near_bottom) {
        return r;
    }
    let (xs, zs) = (x.clone() << 1000i64, z.clone() << 1000i64);
    let (s, o) = zs.add_mul_prec_round(xs, y.clone(), 4000, m);
    assert_eq!(o, Ordering::Equal);
    s.shl_prec_round(-1000i64, p, m)
}

/// Exact ties and carries to the next power of two, explicitly: x of
/// precision p+k whose bits below p are 100..0 (a tie) or 011..1 / 111..1.
#[test]
fn halfway_and_carries() {
    let mut r = Rng(common::seed());
    for &p in PRECS {
        for k in [1u64, 2, 63, 64, 65] {
            let q = p + k;
            let mut xs = vec![];
            for _ in 0..8 {
                let hi = mantissa(&mut r, p);
                let tails = [
                    Natural::ONE << (k - 1),                  // exact tie
                    (Natural::ONE << (k - 1)) - Natural::ONE, // just below
                    (Natural::ONE << (k - 1)) + Natural::ONE, // just above
                    (Natural::ONE << k) - Natural::ONE,       // all ones
                ];
                for t in tails {
                    let all_ones = (Natural::ONE << p) - Natural::ONE;
                    for h in [hi.clone(), all_ones] {
                        let v = (h << k) | &t;
                        if v.significant_bits() == q {
                            xs.push(make(v, q, r.range(-5, 5), r.below(2) == 0));
                        }
                    }
                }
            }
            let a = arr(q, &xs);
            for rnd in Round::ALL {
                let got = a.set_prec_ternary(p, rnd).unwrap();
                let want: Vec<_> = xs
                    .iter()
                    .map(|x| Float::from_float_prec_round_ref(x, p, rm(rnd)))
                    .collect();
                check(
                    &format!("tie set_prec p={p} k={k} {rnd:?}"),
                    &got,
                    &want,
                    &[&xs],
                );
                // The same through add: x_hi + tail.
                let his: Vec<Float> = xs
                    .iter()
                    .map(|x| Float::from_float_prec_round_ref(x, p, RoundingMode::Down).0)
                    .collect();
                let tl: Vec<Float> = xs
                    .iter()
                    .zip(&his)
                    .map(|(x, h)| x.sub_prec_round_ref_ref(h, q, RoundingMode::Exact).0)
                    .collect();
                let (ha, ta) = (arr(p, &his), arr(q, &tl));
                let got = ha.add_ternary(&ta, p, rnd).unwrap();
                let want: Vec<_> = his
                    .iter()
                    .zip(&tl)
                    .map(|(h, t)| h.add_prec_round_ref_ref(t, p, rm(rnd)))
                    .collect();
                check(
                    &format!("tie add p={p} k={k} {rnd:?}"),
                    &got,
                    &want,
                    &[&his, &tl],
                );
            }
        }
    }
}

#[test]
fn malachite_round_trip_and_rounding() {
    let mut r = Rng(common::seed());
    for &q in PRECS {
        let xs: Vec<Float> = (0..count(q))
            .map(|_| rand_float(&mut r, q, (EMIN, EMAX), 10))
            .collect();
        let a = arr(q, &xs);
        for (i, x) in xs.iter().enumerate() {
            assert_eq!(
                ComparableFloatRef(&a.to_float(i).unwrap()),
                ComparableFloatRef(x)
            );
        }
        for rnd in Round::ALL {
            let p = r.pick(PRECS);
            let got = FloatArray::from_floats(p, &xs, rnd).unwrap();
            let want: Vec<_> = xs
                .iter()
                .map(|x| Float::from_float_prec_round_ref(x, p, rm(rnd)))
                .collect();
            check(
                &format!("from_floats p={p} q={q} {rnd:?}"),
                &got,
                &want,
                &[&xs],
            );
        }
    }
}

#[test]
fn f64_i64_int_conversions() {
    let mut r = Rng(common::seed());
    let mut ds: Vec<f64> = (0..2000).map(|_| f64::from_bits(r.next())).collect();
    ds.extend([
        0.0,
        -0.0,
        f64::INFINITY,
        f64::NEG_INFINITY,
        f64::NAN,
        f64::MIN_POSITIVE,
        5e-324,
        -5e-324,
        f64::MAX,
        0.1,
    ]);
    for &p in &[1u64, 2, 24, 52, 53, 54, 64, 200] {
        for rnd in Round::ALL {
            let got = FloatArray::from_f64s(p, &ds, rnd).unwrap();
            let want: Vec<_> = ds
                .iter()
                .map(|&d| Float::from_primitive_float_prec_round(d, p, rm(rnd)))
                .collect();
            let fl: Vec<Float> = ds.iter().map(|&d| Float::from(d)).collect();
            check(&format!("from_f64 p={p} {rnd:?}"), &got, &want, &[&fl]);
        }
    }
    // Back to f64 from random precisions and exponents around the double
    // range (normal, subnormal, overflow).
    for rnd in Round::ALL {
        let xs: Vec<Float> = (0..3000)
            .map(|_| {
                let q = r.pick(&[1u64, 2, 52, 53, 54, 64, 65, 130]);
                let e = match r.below(3) {
                    0 => r.range(-1080, -1015),
                    1 => r.range(1015, 1030),
                    _ => r.range(-100, 100),
                };
                rand_float(&mut r, q, (e, e), 3)
            })
            .collect();
        let a = arr(130, &xs);
        let got = a.to_f64s(rnd).unwrap();
        for (i, x) in xs.iter().enumerate() {
            let (w, _) = f64::rounding_from(x, rm(rnd));
            assert!(
                got[i].to_bits() == w.to_bits() || (got[i].is_nan() && w.is_nan()),
                "to_f64 {rnd:?} {}: got {:e} want {:e}",
                show(x),
                got[i],
                w
            );
        }
    }
    let is: Vec<i64> = (0..1000)
        .map(|_| r.next() as i64 >> r.below(64))
        .chain([0, 1, -1, i64::MIN, i64::MAX])
        .collect();
    for &p in &[1u64, 2, 32, 62, 63, 64, 65] {
        for rnd in Round::ALL {
            let got = FloatArray::from_i64s(p, &is, rnd).unwrap();
            let want: Vec<_> = is
                .iter()
                .map(|&v| Float::from_signed_prec_round(v, p, rm(rnd)))
                .collect();
            let fl: Vec<Float> = is.iter().map(|&v| Float::from(v)).collect();
            check(&format!("from_i64 p={p} {rnd:?}"), &got, &want, &[&fl]);
            let back = got.0.to_i64s(rnd).unwrap();
            for (i, b) in back.iter().enumerate() {
                let x = &want[i].0;
                // malachite saturates; we return None out of range.
                if let Some(b) = b {
                    let w = i64::rounding_from(x, rm(rnd));
                    assert_eq!(*b, w.0, "to_i64 {}", show(x));
                } else {
                    assert!(
                        !x.is_finite() || x.get_exponent().unwrap() >= 63,
                        "to_i64 {}",
                        show(x)
                    );
                }
            }
        }
    }
    // Integer arrays: values of up to 256 bits, rounded to p and back.
    let nats: Vec<Natural> = (0..500)
        .map(|_| Natural::from_limbs_asc(&[r.next(), r.next(), r.next(), r.next()]) >> r.below(256))
        .collect();
    let ia = mparray::IntArray::from_naturals(256, &nats).unwrap();
    for &p in &[1u64, 53, 64, 255, 256, 300] {
        for rnd in Round::ALL {
            let got = FloatArray::from_int_array(p, &ia, rnd).unwrap();
            let want: Vec<_> = nats
                .iter()
                .map(|v| Float::from_natural_prec_round_ref(v, p, rm(rnd)))
                .collect();
            let fl: Vec<Float> = nats
                .iter()
                .map(|v| Float::from_natural_prec_ref(v, 256).0)
                .collect();
            check(
                &format!("from_int_array p={p} {rnd:?}"),
                &got,
                &want,
                &[&fl],
            );
            if p >= 256 {
                let back = got.0.to_int_array(256, rnd).unwrap().to_naturals().unwrap();
                assert_eq!(back, nats);
            }
        }
    }
}

/// Decimal input against malachite's correctly rounded string reading.
#[test]
fn decimal_parse() {
    let mut r = Rng(common::seed());
    let mut strs: Vec<String> = vec![
        "0".into(),
        "-0".into(),
        "+0".into(),
        "1.5e-30".into(),
        "0.1".into(),
        "-2.5".into(),
        "123456789012345678901234567890".into(),
        "1e-400".into(),
        "9.999999999999999999e99".into(),
        ".5".into(),
        "5.".into(),
        "1E5".into(),
        "0.000001e6".into(),
    ];
    for _ in 0..600 {
        let lim = if r.below(4) == 0 { 120 } else { 20 };
        let nd = 1 + r.below(lim) as usize;
        let digits: String = (0..nd)
            .map(|_| char::from(b'0' + r.below(10) as u8))
            .collect();
        let dot = r.below(nd as u64 + 1) as usize;
        // Large exponents take the bounds path.
        let e = if r.below(5) == 0 {
            r.range(-6000, 6000)
        } else {
            r.range(-400, 400)
        };
        let sign = if r.below(2) == 0 { "-" } else { "" };
        strs.push(format!("{sign}{}.{}e{e}", &digits[..dot], &digits[dot..]));
    }
    for &p in &[1u64, 2, 24, 53, 64, 65, 113, 200, 1000] {
        for rnd in Round::ALL {
            let got = FloatArray::from_strs_ternary(p, &strs, rnd).unwrap();
            let gt = got.1.to_vec().unwrap();
            assert_eq!(gt.len(), strs.len());
            for (i, s) in strs.iter().enumerate() {
                let (w, o) = Float::from_sci_string_prec_round(s, p, rm(rnd)).unwrap();
                let g = got.0.to_float(i).unwrap();
                // malachite reads "-0" as +0 sometimes; compare values and
                // signs of zero by MPFR's rule (the sign is the string's).
                let same = if w == 0u32 {
                    g == 0u32 && g.is_sign_negative() == s.starts_with('-')
                } else {
                    ComparableFloatRef(&g) == ComparableFloatRef(&w)
                };
                assert!(
                    same && ord(gt[i]) == o,
                    "parse {s:?} p={p} {rnd:?}: got {} {} want {} {:?}",
                    show(&g),
                    gt[i],
                    show(&w),
                    o
                );
            }
        }
    }
    // Far outside the range: overflow and underflow by the mode.
    let far = [
        "1e400000000",
        "-1e400000000",
        "1e-400000000",
        "-1e-400000000",
    ];
    for rnd in Round::ALL {
        let got = FloatArray::from_strs_ternary(10, &far, rnd).unwrap();
        let m = rm(rnd);
        let big = make(Natural::ONE, 1, EMAX, false);
        let tiny = make(Natural::ONE, 1, EMIN, false);
        let want = [
            big.mul_prec_round_ref_ref(&big, 10, m),
            (-&big).mul_prec_round_ref_ref(&big, 10, m),
            tiny.mul_prec_round_ref_ref(&tiny, 10, m),
            (-&tiny).mul_prec_round_ref_ref(&tiny, 10, m),
        ];
        check(&format!("far {rnd:?}"), &got, &want, &[]);
    }
    // Bad input: an error naming the element.
    for bad in ["", "1.2.3", "abc", "1e", "0x", "--1", "1e+-2", "0x1.g"] {
        let e = FloatArray::from_strs(53, &["1", bad]).unwrap_err();
        assert!(
            matches!(e, mparray::Error::Parse { index: 1, .. }),
            "{bad:?}: {e}"
        );
    }
}

/// Decimal output: correctly rounded by definition (checked with exact
/// integers), and reading the default digits back gives the same float.
#[test]
fn decimal_print() {
    let mut r = Rng(common::seed());
    for &p in &[1u64, 2, 24, 53, 64, 65, 200, 1000] {
        // Exponents far from 0 take the bounds path (|scaling| > 20000 bits).
        let xs: Vec<Float> = (0..150)
            .map(|j| {
                let e = if j % 6 == 0 { 70_000 } else { 1200 };
                rand_float(&mut r, p, (-e, e), 0)
            })
            .collect();
        let a = arr(p, &xs);
        for rnd in Round::ALL {
            for digits in [1usize, 2, 5, 17, 40, 0] {
                let strs = a.to_dec_strings(digits, rnd).unwrap();
                for (i, s) in strs.iter().enumerate() {
                    let (ds, e) = text::get_str_digits(
                        &a.get(i).unwrap(),
                        if digits == 0 {
                            text::default_digits(p)
                        } else {
                            digits
                        },
                        rnd,
                    );
                    let nd = ds.len() as i64;
                    let q: Natural = ds.parse().unwrap();
                    // |x| = M 2^b and candidate q 10^(e-nd): compare exactly.
                    let x = a.get(i).unwrap();
                    let mm = Natural::from_limbs_asc(x.limbs);
                    let b = x.exp - 64 * x.limbs.len() as i64;
                    let k = e - nd;
                    // Common scale 2^-b2 10^-k10 (b2, k10 <= 0) makes both
                    // X = M 2^b and Q = q 10^k integers.
                    let (b2, k10) = (b.min(k).min(0), k.min(0));
                    let lhs = |q: &Natural| -> Natural {
                        // q * 10^k * 2^-b2 * 10^-k10
                        let v = q * Natural::from(10u32).pow((k - k10) as u64);
                        v << ((-b2) as u64)
                    };
                    let x2 = (mm << ((b - b2) as u64)) * Natural::from(10u32).pow((-k10) as u64);
                    let lo = lhs(&q);
                    let (lo_q, hi_q) = (q.clone() - Natural::ONE, q.clone() + Natural::ONE);
                    let lower = lhs(&lo_q);
                    let upper = lhs(&hi_q);
                    assert_eq!(
                        ds.len(),
                        if digits == 0 {
                            text::default_digits(p)
                        } else {
                            digits
                        }
                    );
                    assert!(ds.as_bytes()[0] != b'0', "{s}");
                    // The exact value lies strictly between the neighbours.
                    assert!(
                        lower < x2 && x2 < upper,
                        "{s} not adjacent to {}",
                        show(&xs[i])
                    );
                    let neg = x.neg;
                    let ok = match rnd {
                        Round::Nearest => {
                            let d = if lo > x2 { &lo - &x2 } else { &x2 - &lo };
                            let half = &upper - &lo; // one unit, compare 2d <= unit
                            let twice = d << 1u32;
                            twice < half || (twice == half && ds.as_bytes()[ds.len() - 1] % 2 == 0)
                        }
                        Round::Zero => lo <= x2,
                        Round::Away => lo >= x2,
                        Round::Up => {
                            if neg {
                                lo <= x2
                            } else {
                                lo >= x2
                            }
                        }
                        Round::Down => {
                            if neg {
                                lo >= x2
                            } else {
                                lo <= x2
                            }
                        }
                    };
                    assert!(ok, "{s} is not {rnd:?}-rounded from {}", show(&xs[i]));
                }
                if digits == 0 && rnd == Round::Nearest {
                    let back = FloatArray::from_strs(p, &strs).unwrap();
                    assert_eq!(back, a, "decimal round trip at p={p}");
                }
            }
        }
    }
    let a = FloatArray::from_strs(53, &["0.1", "-0", "inf", "nan", "1", "-1.5e-30"]).unwrap();
    assert_eq!(
        a.to_dec_strings(17, Round::Nearest).unwrap(),
        [
            "1.0000000000000001e-01",
            "-0.0000000000000000e+00",
            "inf",
            "nan",
            "1.0000000000000000e+00",
            "-1.4999999999999999e-30"
        ]
    );
    assert_eq!(a.to_dec_strings(1, Round::Up).unwrap()[0], "2e-01");
    // The default digits print as MPFR 4.2's "%Re" does (outputs of MPFR).
    let v = ["1.5", "0.1", "-0", "1e10", "-2.5e-7"];
    let mpfr_re = [
        (
            10,
            [
                "1.5000e+00",
                "9.9976e-02",
                "-0.0000e+00",
                "9.9992e+09",
                "-2.5006e-07",
            ],
        ),
        (2, ["1.5e+00", "9.4e-02", "-0.0e+00", "8.6e+09", "-2.4e-07"]),
    ];
    for (p, want) in mpfr_re {
        assert_eq!(
            FloatArray::from_strs(p, &v)
                .unwrap()
                .to_dec_strings(0, Round::Nearest)
                .unwrap(),
            want
        );
    }
    assert_eq!(
        FloatArray::from_strs(100, &["-2.5e-7"])
            .unwrap()
            .to_dec_strings(0, Round::Nearest)
            .unwrap(),
        ["-2.4999999999999999999999999999994e-07"]
    );
}

/// Hex floats: %Ra output is exact and reads back; examples as MPFR prints.
#[test]
fn hex_round_trip() {
    let a = FloatArray::from_strs(
        53,
        &[
            "0x1.8p+3",
            "0.1",
            "1",
            "-0",
            "3",
            "0x0.0001p0",
            "-inf",
            "nan",
            "0x1p-1073741824",
            "0x1p-1073741825",
            "0x1.0000000000001p-1073741825",
        ],
    )
    .unwrap();
    assert_eq!(
        a.to_hex_strings().unwrap(),
        [
            "0xcp+0",
            "0x1.999999999999ap-4",
            "0x1p+0",
            "-0x0p+0",
            "0x3p+0",
            "0x1p-16",
            "-inf",
            "nan",
            "0x1p-1073741824",
            "0x0p+0",
            "0x1p-1073741824"
        ]
    );
    let b = FloatArray::from_strs(8, &["0b1.1p3", "-0b0.0011", "0b111111111"]).unwrap();
    assert_eq!(b.to_hex_strings().unwrap(), ["0xcp+0", "-0x3p-4", "0x2p+8"]);
    let c = FloatArray::from_strs(64, &["0xFEDCBA9.87654321"]).unwrap();
    assert_eq!(c.to_hex_strings().unwrap(), ["0xf.edcba987654321p+24"]);
    let d = FloatArray::from_strs(53, &["-12345678.875"]).unwrap();
    assert_eq!(
        d.to_dec_strings(0, Round::Nearest).unwrap(),
        ["-1.2345678875000000e+07"]
    );
    let mut r = Rng(common::seed());
    for &p in PRECS {
        let xs: Vec<Float> = (0..count(p))
            .map(|_| rand_float(&mut r, p, (EMIN, EMAX), 10))
            .collect();
        let a = arr(p, &xs);
        let h = a.to_hex_strings().unwrap();
        let back = FloatArray::from_strs_ternary(p, &h, Round::Zero).unwrap();
        assert!(back.1.to_vec().unwrap().iter().all(|&t| t == 0));
        assert_eq!(back.0, a, "hex round trip at p={p}");
    }
}

#[test]
#[allow(clippy::manual_range_contains)]
fn random_constructors() {
    let a = FloatArray::random_unit(&Engine::Cpu, 1000, 100, 7).unwrap();
    let b = FloatArray::random_unit(&Engine::Cpu, 1000, 100, 7).unwrap();
    assert_eq!(a, b);
    for x in a.to_floats().unwrap() {
        assert!(x >= 0u32 && x < 1u32, "{x}"); // Float has no Range::contains
    }
    let e = FloatArray::random_exp(&Engine::Cpu, 1000, 70, 9, -5, 5).unwrap();
    for x in e.to_floats().unwrap() {
        let ex = x.get_exponent().unwrap();
        assert!((-5..=5).contains(&ex));
    }
    let u = FloatArray::random_uniform(&Engine::Cpu, 1000, 80, 3, -2.0, 3.0, Round::Down).unwrap();
    for x in u.to_floats().unwrap() {
        assert!(x >= -2i32 && x < 3u32, "{x}");
    }
    assert!(FloatArray::random_exp(&Engine::Cpu, 1, 70, 9, EMIN - 1, 0).is_err());
}

#[test]
fn empty_arrays() {
    let e: [&str; 0] = [];
    let a = FloatArray::from_strs(53, &e).unwrap();
    assert!(a.is_empty());
    assert!(a.add(&a, 10, Round::Nearest).unwrap().is_empty());
    assert!(a.fma(&a, &a, 10, Round::Nearest).unwrap().is_empty());
    assert!(a.sqrt(10, Round::Nearest).unwrap().is_empty());
    assert!(a.to_dec_strings(0, Round::Nearest).unwrap().is_empty());
    assert!(
        FloatArray::random_exp(&Engine::Cpu, 0, 5, 1, 0, 0)
            .unwrap()
            .is_empty()
    );
}

#[test]
fn errors_not_panics() {
    assert!(FloatArray::zeros(&Engine::Cpu, 3, 0).is_err());
    assert!(FloatArray::zeros(&Engine::Cpu, 3, float::MAX_PREC + 1).is_err());
    let a = FloatArray::zeros(&Engine::Cpu, 3, 10).unwrap();
    let b = FloatArray::zeros(&Engine::Cpu, 4, 10).unwrap();
    assert!(a.add(&b, 10, Round::Nearest).is_err());
    assert!(a.add(&a, 0, Round::Nearest).is_err());
    assert!(FloatArray::from_raw(10, vec![1], vec![0], vec![1]).is_err());
    assert!(Round::from_name("X").is_err());
    assert_eq!(Round::from_name("d").unwrap(), Round::Down);
}

/// The engine API's own edges on the CPU: reading out of range is an
/// error, not a panic; the borrowing readers serve host arrays.
#[test]
fn host_readers_and_range() {
    let a = FloatArray::from_strs(53, &["1.5", "-0", "nan"]).unwrap();
    assert!(a.engine().same_as(&Engine::Cpu));
    assert!(!a.engine().is_cuda());
    assert_eq!((a.len(), a.prec(), a.limbs_per_element()), (3, 53, 1));
    assert!(a.get(2).is_ok());
    for i in [3, 4, usize::MAX] {
        assert!(
            matches!(a.get(i), Err(mparray::Error::Invalid(_))),
            "get({i})"
        );
        assert!(
            matches!(a.to_float(i), Err(mparray::Error::Invalid(_))),
            "to_float({i})"
        );
    }
    let e = FloatArray::zeros(&Engine::Cpu, 0, 10).unwrap();
    assert!(e.get(0).is_err() && e.to_float(0).is_err());
    // tags / exps / limbs borrow the host storage and agree with get(i).
    let (tags, exps, limbs) = (a.tags().unwrap(), a.exps().unwrap(), a.limbs().unwrap());
    assert_eq!((tags.len(), exps.len(), limbs.len()), (3, 3, 3));
    assert_eq!(tags, &[1, 4, 3]);
    assert_eq!(exps[0], 1);
    assert_eq!(limbs[0], 3 << 62);
    let g = a.get(0).unwrap();
    assert_eq!((g.exp, g.neg, g.limbs), (1, false, &[3u64 << 62][..]));
    // The raw parts rebuild the same array.
    let b = FloatArray::from_raw(53, tags.to_vec(), exps.to_vec(), limbs.to_vec()).unwrap();
    assert_eq!(a, b);
}

/// Operands of different lengths are an error in every operation (no
/// panic, no truncation), whichever operand is the odd one.
#[test]
fn length_mismatch_errors() {
    use mparray::float::FloatOp;
    use mparray::float::func::Func2;
    let cpu = Engine::Cpu;
    let a = FloatArray::random_unit(&cpu, 5, 20, 1).unwrap();
    let b = FloatArray::random_unit(&cpu, 6, 20, 2).unwrap();
    let c = FloatArray::random_unit(&cpu, 5, 30, 3).unwrap();
    let r = Round::Nearest;
    for (x, y) in [(&a, &b), (&b, &a)] {
        assert!(x.add_ternary(y, 20, r).is_err());
        assert!(x.sub(y, 20, r).is_err());
        assert!(x.mul(y, 20, r).is_err());
        assert!(x.div(y, 20, r).is_err());
        assert!(x.min(y, 20, r).is_err());
        assert!(x.max(y, 20, r).is_err());
        assert!(x.cmp(y).is_err());
        for f in [Func2::Pow, Func2::Atan2, Func2::Hypot, Func2::Agm] {
            assert!(x.func2_ternary(y, f, 20, r).is_err(), "{f:?}");
        }
        assert!(x.pow(y, 20, r).is_err());
    }
    // Three operands: the odd one in each place.
    assert!(a.fma(&a, &b, 20, r).is_err());
    assert!(a.fma(&b, &a, 20, r).is_err());
    assert!(b.fma(&a, &a, 20, r).is_err());
    assert!(a.fms(&c, &b, 20, r).is_err());
    // The same lengths at other precisions are fine.
    assert_eq!(a.fma(&c, &a, 20, r).unwrap().len(), 5);
    // pow_z / pow_si: one exponent per element.
    assert!(a.pow_si_ternary(&[1, 2], 20, r).is_err());
    assert!(a.pow_si_ternary(&[1; 5], 20, r).is_ok());
    // In place: the output and the ternary values must match too.
    let mut out = FloatArray::zeros(&cpu, 6, 20).unwrap();
    assert!(a.op_into(FloatOp::Add, &[&c], &mut out, r, None).is_err());
    assert!(a.op_into(FloatOp::Add, &[&b], &mut out, r, None).is_err());
    let mut out = FloatArray::zeros(&cpu, 5, 20).unwrap();
    let mut t = TernaryArray::zeros(&cpu, 6).unwrap();
    assert!(
        a.op_into(FloatOp::Add, &[&c], &mut out, r, Some(&mut t))
            .is_err()
    );
    let mut t = TernaryArray::zeros(&cpu, 5).unwrap();
    a.op_into(FloatOp::Add, &[&c], &mut out, r, Some(&mut t))
        .unwrap();
    assert_eq!(out, a.add(&c, 20, r).unwrap());
}

/// Ternary arrays: one value per element, on the engine of the operation,
/// read with to_vec / into_vec.
#[test]
fn ternary_arrays() {
    let cpu = Engine::Cpu;
    // 1/3 rounded up and down, 1 exact, NaN (ternary 0).
    let (x, t) = FloatArray::from_strs_ternary(4, &["0.3333", "1", "nan"], Round::Up).unwrap();
    assert_eq!((t.len(), t.is_empty()), (3, false));
    assert!(t.engine().same_as(&cpu));
    assert_eq!(t.to_vec().unwrap(), [1, 0, 0]);
    assert_eq!(t.to_vec().unwrap(), t.into_vec().unwrap());
    let (_, t) = FloatArray::from_strs_ternary(4, &["0.3333", "-0.3333"], Round::Zero).unwrap();
    assert_eq!(t.into_vec().unwrap(), [-1, 1]);
    // The operations' ternary values have the operands' length.
    let (s, ts) = x.add_ternary(&x, 1, Round::Down).unwrap();
    assert_eq!((s.len(), ts.len()), (3, 3));
    assert_eq!(ts.to_vec().unwrap(), [-1, 0, 0]);
    let (f, tf, _) = x
        .func_ternary(float::func::Func::Exp, 20, Round::Up)
        .unwrap();
    assert_eq!((f.len(), tf.len()), (3, 3));
    assert_eq!(tf.to_vec().unwrap(), [1, 1, 0]);
    let ((sn, tsn), (cs, tcs), _) = x.sin_cos_ternary(20, Round::Down).unwrap();
    assert_eq!((sn.len(), tsn.len(), cs.len(), tcs.len()), (3, 3, 3, 3));
    assert_eq!(sn, x.sin(20, Round::Down).unwrap());
    assert_eq!(cs, x.cos(20, Round::Down).unwrap());
    assert_eq!(tsn.to_vec().unwrap(), [-1, -1, 0]);
    assert_eq!(tcs.to_vec().unwrap(), [-1, -1, 0]);
    // Conversions from host data return their ternary values too.
    let (_, t) = FloatArray::from_f64s(2, &[0.1, 0.5, -0.1], Round::Nearest).unwrap();
    assert_eq!(t.to_vec().unwrap().len(), 3);
    assert_eq!(t.to_vec().unwrap()[1], 0);
    let (_, t) = FloatArray::from_i64s(2, &[7, 4, -7], Round::Zero).unwrap();
    assert_eq!(t.into_vec().unwrap(), [-1, 0, 1]);
    // Empty and zero-filled.
    let z = TernaryArray::zeros(&cpu, 4).unwrap();
    assert_eq!(z.to_vec().unwrap(), [0; 4]);
    let e = FloatArray::zeros(&cpu, 0, 8)
        .unwrap()
        .neg_ternary(8, Round::Nearest);
    let e = e.unwrap().1;
    assert!(e.is_empty() && e.to_vec().unwrap().is_empty());
}

/// try_clone is a bit-exact, independent copy on the same engine;
/// equality compares precision and bits.
#[test]
fn try_clone_and_equality() {
    let cpu = Engine::Cpu;
    let a = FloatArray::random_exp(&cpu, 300, 130, common::seed(), -20, 20).unwrap();
    let b = a.try_clone().unwrap();
    assert_eq!(a, b);
    assert!(b.engine().same_as(&a.engine()));
    assert_eq!((b.len(), b.prec()), (a.len(), a.prec()));
    assert_eq!(b.tags().unwrap(), a.tags().unwrap());
    assert_eq!(b.exps().unwrap(), a.exps().unwrap());
    assert_eq!(b.limbs().unwrap(), a.limbs().unwrap());
    assert_eq!(a.to_host().unwrap(), a);
    assert_eq!(a.to_engine(&cpu).unwrap(), a);
    // Independent: overwriting the copy in place leaves the original.
    let mut c = a.try_clone().unwrap();
    let before = a.to_hex_strings().unwrap();
    a.op_into(
        mparray::float::FloatOp::Add,
        &[&a],
        &mut c,
        Round::Nearest,
        None,
    )
    .unwrap();
    assert_ne!(c, a);
    assert_eq!(c, a.mul_2si(1, 130, Round::Nearest).unwrap());
    assert_eq!(a.to_hex_strings().unwrap(), before);
    assert_eq!(a, b);
    // Same values at another precision, or one bit apart, are unequal.
    assert_ne!(a.set_prec(131, Round::Nearest).unwrap(), a);
    let mut limbs = a.limbs().unwrap().to_vec();
    let i = a.tags().unwrap().iter().position(|&t| t & 3 == 1).unwrap();
    limbs[a.limbs_per_element() * i] ^= 1 << 62;
    let d = FloatArray::from_raw(
        130,
        a.tags().unwrap().to_vec(),
        a.exps().unwrap().to_vec(),
        limbs,
    )
    .unwrap();
    assert_ne!(d, a);
    // Empty arrays clone to empty arrays.
    let e = FloatArray::zeros(&cpu, 0, 7).unwrap();
    assert_eq!(e.try_clone().unwrap(), e);
    assert!(e.try_clone().unwrap().is_empty());
}

/// The in-place form gives the same bits as the allocating forms, with or
/// without ternary values, and checks its arguments.
#[test]
fn op_into_matches() {
    use mparray::float::FloatOp;
    let s = common::seed();
    let x = FloatArray::random_exp(&Engine::Cpu, 700, 200, s, -10, 10).unwrap();
    let y = FloatArray::random_exp(&Engine::Cpu, 700, 100, s ^ 1, -10, 10).unwrap();
    let z = FloatArray::random_exp(&Engine::Cpu, 700, 300, s ^ 2, -10, 10).unwrap();
    let xa = x.abs(200, Round::Nearest).unwrap();
    for rnd in Round::ALL {
        for p in [1u64, 64, 150] {
            let cases = [
                (
                    FloatOp::Add,
                    &x,
                    vec![&y],
                    x.add_ternary(&y, p, rnd).unwrap(),
                ),
                (
                    FloatOp::Sub,
                    &x,
                    vec![&y],
                    x.sub_ternary(&y, p, rnd).unwrap(),
                ),
                (
                    FloatOp::Mul,
                    &x,
                    vec![&y],
                    x.mul_ternary(&y, p, rnd).unwrap(),
                ),
                (
                    FloatOp::Div,
                    &x,
                    vec![&y],
                    x.div_ternary(&y, p, rnd).unwrap(),
                ),
                (
                    FloatOp::Min,
                    &x,
                    vec![&y],
                    x.min_ternary(&y, p, rnd).unwrap(),
                ),
                (
                    FloatOp::Max,
                    &x,
                    vec![&y],
                    x.max_ternary(&y, p, rnd).unwrap(),
                ),
                (FloatOp::Sqrt, &xa, vec![], xa.sqrt_ternary(p, rnd).unwrap()),
                (
                    FloatOp::Fma,
                    &x,
                    vec![&y, &z],
                    x.fma_ternary(&y, &z, p, rnd).unwrap(),
                ),
                (
                    FloatOp::Fms,
                    &x,
                    vec![&y, &z],
                    x.fms_ternary(&y, &z, p, rnd).unwrap(),
                ),
            ];
            for (op, first, more, want) in cases {
                let want_t = want.1.to_vec().unwrap();
                // Start from garbage-free but different contents, and
                // ternary values all +1 then all -1 (the ternaries of a
                // 1-bit product rounded up, then down), so every element
                // must be written.
                for pre in [Round::Up, Round::Down] {
                    let mut out =
                        FloatArray::random_exp(&Engine::Cpu, 700, p, s ^ 9, -3, 3).unwrap();
                    let mut t = x.mul_ternary(&y, 1, pre).unwrap().1;
                    assert!(t.to_vec().unwrap().iter().all(|&v| v != 0));
                    first
                        .op_into(op, &more, &mut out, rnd, Some(&mut t))
                        .unwrap();
                    assert_eq!(out, want.0, "{op:?} p={p} {rnd:?}");
                    assert_eq!(t.to_vec().unwrap(), want_t, "{op:?} p={p} {rnd:?}");
                }
                let mut out2 = FloatArray::zeros(&Engine::Cpu, 700, p).unwrap();
                first.op_into(op, &more, &mut out2, rnd, None).unwrap();
                assert_eq!(out2, want.0);
            }
        }
    }
    let mut out = FloatArray::zeros(&Engine::Cpu, 700, 10).unwrap();
    assert!(
        x.op_into(FloatOp::Add, &[], &mut out, Round::Nearest, None)
            .is_err()
    );
    let mut short = FloatArray::zeros(&Engine::Cpu, 5, 10).unwrap();
    assert!(
        x.op_into(FloatOp::Add, &[&y], &mut short, Round::Nearest, None)
            .is_err()
    );
    let mut t = TernaryArray::zeros(&Engine::Cpu, 3).unwrap();
    assert!(
        x.op_into(FloatOp::Add, &[&y], &mut out, Round::Nearest, Some(&mut t))
            .is_err()
    );
}

/// Decimal input and output at the ends of the exponent range take the
/// bounds path: fast, and the same as malachite's exact conversions.
#[test]
fn decimal_extremes() {
    let strs = [
        "1e323228496",
        "-1.2345e-323228496",
        "4.7651298097759021e-323228497",
        "2.0985787164673875e+323228496",
        "3.3e-300000000",
    ];
    for rnd in [Round::Nearest, Round::Up, Round::Zero] {
        for p in [1u64, 53, 300] {
            let t = std::time::Instant::now();
            let got = FloatArray::from_strs_ternary(p, &strs, rnd).unwrap();
            assert!(t.elapsed().as_secs_f64() < 2.0, "slow parse");
            for (i, s) in strs.iter().enumerate() {
                let (w, o) = Float::from_sci_string_prec_round(s, p, rm(rnd)).unwrap();
                assert_eq!(
                    ComparableFloatRef(&got.0.to_float(i).unwrap()),
                    ComparableFloatRef(&w),
                    "{s} p={p} {rnd:?}"
                );
                assert_eq!(ord(got.1.to_vec().unwrap()[i]), o, "{s} p={p} {rnd:?}");
            }
            // Printing them back with the default digits reads back.
            let t = std::time::Instant::now();
            let back = FloatArray::from_strs(p, &got.0.to_dec_strings(0, Round::Nearest).unwrap())
                .unwrap();
            assert!(t.elapsed().as_secs_f64() < 2.0, "slow print");
            assert_eq!(back, got.0);
        }
    }
}

/// The largest precisions (2^17 and 2^20 bits), a few elements per
/// operation, mixed with small operands.
#[test]
fn huge_precisions() {
    let mut r = Rng(common::seed());
    for &p in &[1u64 << 17, float::MAX_PREC] {
        let n = 2;
        let xs: Vec<Float> = (0..n)
            .map(|_| rand_float(&mut r, p, (-50, 50), 0))
            .collect();
        let ys: Vec<Float> = (0..n)
            .map(|_| rand_float(&mut r, p, (-50, 50), 0))
            .collect();
        let zs: Vec<Float> = (0..n)
            .map(|_| rand_float(&mut r, 70, (-60, 60), 0))
            .collect();
        let (a, b, c) = (arr(p, &xs), arr(p, &ys), arr(70, &zs));
        for rnd in [Round::Nearest, Round::Down] {
            let m = rm(rnd);
            for q in [p, 1000] {
                let cases: [(&str, Got, Want); 5] = [
                    (
                        "add",
                        a.add_ternary(&c, q, rnd).unwrap(),
                        xs.iter()
                            .zip(&zs)
                            .map(|(x, z)| x.add_prec_round_ref_ref(z, q, m))
                            .collect(),
                    ),
                    (
                        "mul",
                        a.mul_ternary(&b, q, rnd).unwrap(),
                        xs.iter()
                            .zip(&ys)
                            .map(|(x, y)| x.mul_prec_round_ref_ref(y, q, m))
                            .collect(),
                    ),
                    (
                        "div",
                        a.div_ternary(&b, q, rnd).unwrap(),
                        xs.iter()
                            .zip(&ys)
                            .map(|(x, y)| x.div_prec_round_ref_ref(y, q, m))
                            .collect(),
                    ),
                    (
                        "sqrt",
                        a.abs(p, rnd).unwrap().sqrt_ternary(q, rnd).unwrap(),
                        xs.iter()
                            .map(|x| x.clone().abs().sqrt_prec_round(q, m))
                            .collect(),
                    ),
                    (
                        "fma",
                        a.fma_ternary(&b, &c, q, rnd).unwrap(),
                        (0..n)
                            .map(|i| zs[i].add_mul_prec_round_ref_ref_ref(&xs[i], &ys[i], q, m))
                            .collect(),
                    ),
                ];
                for (name, got, want) in cases {
                    check(
                        &format!("huge {name} p={p} q={q} {rnd:?}"),
                        &got,
                        &want,
                        &[&xs],
                    );
                }
            }
        }
    }
}

/// The one-pass add/sub path (operands and result of the same limb count,
/// up to 32 limbs) and the general path just above it: every exponent
/// difference around the window's edges (0, 1, 2, 63..65, 64n +- 1,
/// 64(n+1) +- 1, 64(n+2)), both signs, every mode, precisions filling the
/// limbs or not, mantissas with runs, all ones and powers of two.
#[test]
fn add_same_limbs_window_edges() {
    let mut r = Rng(common::seed());
    for limbs in [1u64, 2, 3, 8, 16, 31, 32, 33] {
        for p in [64 * limbs, 64 * limbs - 1, 64 * (limbs - 1) + 1] {
            let n = 64 * limbs as i64;
            let mut ds: Vec<i64> = vec![0, 1, 2, 3, 63, 64, 65];
            for c in [n, n + 64, n + 128] {
                ds.extend([c - 2, c - 1, c, c + 1]);
            }
            let mut xs = Vec::new();
            let mut ys = Vec::new();
            for &d in &ds {
                // Crafted: all ones plus a power of two plus one ulp (carries
                // with a lone low bit, ties), and the difference the other
                // way.
                let ones = (Natural::ONE << p) - Natural::ONE;
                let pow1 = (Natural::ONE << (p - 1)) + Natural::ONE;
                for (neg_y, e) in [(false, d), (true, d)] {
                    xs.push(make(ones.clone(), p, 0, false));
                    ys.push(make(pow1.clone(), p, -e, neg_y));
                    xs.push(make(pow1.clone(), p, 0, false));
                    ys.push(make(ones.clone(), p, -e, neg_y));
                }
                if p == 64 * limbs && limbs >= 3 {
                    // A carry whose lone shifted-out bit breaks an exact tie
                    // (with an even last kept bit).
                    let mut xl = vec![u64::MAX; limbs as usize];
                    xl[0] = 1;
                    xs.push(make(Natural::from_limbs_asc(&xl), p, 0, false));
                    ys.push(make(pow1.clone(), p, -d, false));
                }
                for _ in 0..6 {
                    let x = rand_float(&mut r, p, (-20, 20), 0);
                    let ex = x.get_exponent().map_or(0, i64::from);
                    let sd = if r.below(2) == 0 { d } else { -d };
                    let y = rand_float(&mut r, p, (ex - sd, ex - sd), 0);
                    xs.push(x);
                    ys.push(y);
                }
            }
            let (a, b) = (arr(p, &xs), arr(p, &ys));
            for rnd in Round::ALL {
                let m = rm(rnd);
                for sub in [false, true] {
                    let got = if sub {
                        a.sub_ternary(&b, p, rnd)
                    } else {
                        a.add_ternary(&b, p, rnd)
                    }
                    .unwrap();
                    let want: Vec<(Float, Ordering)> = xs
                        .iter()
                        .zip(&ys)
                        .map(|(x, y)| {
                            if sub {
                                x.sub_prec_round_ref_ref(y, p, m)
                            } else {
                                x.add_prec_round_ref_ref(y, p, m)
                            }
                        })
                        .collect();
                    check(
                        &format!(
                            "same-limb {} p={p} {rnd:?}",
                            if sub { "sub" } else { "add" }
                        ),
                        &got,
                        &want,
                        &[&xs, &ys],
                    );
                }
            }
        }
    }
}

/// Limb counts around the same-limb fast paths of div and sqrt (n = 1
/// special cases, the schoolbook division below 40 limbs and the
/// divide-and-conquer one from 40, the recursive root's odd and even
/// splits) with precisions filling the limbs or not.
const FAST_LIMBS: &[u64] = &[1, 2, 3, 4, 5, 7, 8, 9, 16, 17, 31, 32, 33, 39, 40, 41, 64];

fn fast_precs(limbs: u64) -> Vec<u64> {
    let mut v = vec![64 * limbs, 64 * limbs - 1, 64 * (limbs - 1) + 1];
    v.dedup();
    v
}

/// Crafted mantissas of `p` bits: all ones, a power of two, a power of two
/// plus one ulp, all ones but the last bit, and random ones.
fn crafted(r: &mut Rng, p: u64) -> Vec<Natural> {
    let top = Natural::ONE << (p - 1);
    let ones = (Natural::ONE << p) - Natural::ONE;
    let mut v = vec![top.clone(), ones.clone()];
    if p >= 2 {
        v.push(top.clone() + Natural::ONE);
        v.push(ones - Natural::ONE);
    }
    for _ in 0..4 {
        v.push(mantissa(r, p));
    }
    v
}

#[test]
fn div_same_limbs_edges() {
    same_limbs_binary(true);
}

#[test]
fn mul_same_limbs_edges() {
    same_limbs_binary(false);
}

/// Same-limb operands of div (`div`) or mul: crafted and random mantissas,
/// ties, range ends, at the operands' precision and 3 bits less.
fn same_limbs_binary(div: bool) {
    let mut r = Rng(common::seed());
    for &limbs in FAST_LIMBS {
        for p in fast_precs(limbs) {
            let ms = crafted(&mut r, p);
            let mut xs = Vec::new();
            let mut ys = Vec::new();
            // Every crafted pair (quotients just below and above 1, exact
            // quotients with a zero remainder), plus random pairs.
            for a in &ms {
                for b in &ms {
                    let e = r.range(-3, 3);
                    xs.push(make(a.clone(), p, e, r.below(2) == 0));
                    ys.push(make(b.clone(), p, 0, r.below(2) == 0));
                }
            }
            // Exact quotients with a nonzero round bit: x = q * 3 with q of
            // p - 2 bits ending in 1 (x has p bits), y = 3 at p bits; the
            // output at p - 3 bits (same limbs) sees a tie (and q of p - 3
            // bits an exact result).
            if p >= 8 && 64 * (limbs - 1) < p - 3 {
                for _ in 0..6 {
                    let q = mantissa(&mut r, p - 2) | Natural::ONE;
                    xs.push(make(q * Natural::from(3u32), p, 0, false));
                    ys.push(make(Natural::from(3u32) << (p - 2), p, 2, r.below(2) == 0));
                }
            }
            for _ in 0..24 {
                xs.push(rand_float(&mut r, p, (-20, 20), 0));
                ys.push(rand_float(&mut r, p, (-20, 20), 0));
            }
            // Exponent range ends: overflow and underflow from the fast path.
            xs.push(make(ms[1].clone(), p, EMAX, false));
            ys.push(make(ms[0].clone(), p, 0, false));
            xs.push(make(ms[0].clone(), p, EMIN, true));
            ys.push(make(ms[1].clone(), p, 1, false));
            xs.push(make(ms[0].clone(), p, EMIN + 1, false));
            ys.push(make(ms[1].clone(), p, 1, false));
            let (a, b) = (arr(p, &xs), arr(p, &ys));
            let ps: Vec<u64> = if p >= 8 && 64 * (limbs - 1) < p - 3 {
                vec![p, p - 3]
            } else {
                vec![p]
            };
            for q in ps {
                for rnd in Round::ALL {
                    let m = rm(rnd);
                    let got = if div {
                        a.div_ternary(&b, q, rnd)
                    } else {
                        a.mul_ternary(&b, q, rnd)
                    }
                    .unwrap();
                    let want: Vec<(Float, Ordering)> = xs
                        .iter()
                        .zip(&ys)
                        .map(|(x, y)| {
                            if div {
                                x.div_prec_round_ref_ref(y, q, m)
                            } else {
                                x.mul_prec_round_ref_ref(y, q, m)
                            }
                        })
                        .collect();
                    check(
                        &format!("same-limb div={div} p={p} -> {q} {rnd:?}"),
                        &got,
                        &want,
                        &[&xs, &ys],
                    );
                }
            }
        }
    }
}

/// Division by groups of lanes (`div_lanes`): normal elements mixed with
/// special values at random places (groups that take the lanes path and
/// groups that fall back), lengths that leave a partial group at the end of
/// a block and of the array, limb counts on both sides of the lanes' size
/// limit (DC_T = 40), and outputs of another limb count (fallback), with
/// and without ternary values.
#[test]
fn div_lanes_mixed() {
    use mparray::float::FloatOp;
    let mut r = Rng(common::seed());
    for limbs in [1u64, 2, 3, 4, 5, 8, 9, 16, 17, 39, 40] {
        let p = 64 * limbs - r.below(3);
        let len = 517 + r.below(4) as usize;
        let xs: Vec<Float> = (0..len)
            .map(|_| rand_float(&mut r, p, (-40, 40), 8))
            .collect();
        let ys: Vec<Float> = (0..len)
            .map(|_| rand_float(&mut r, p, (-40, 40), 8))
            .collect();
        let (a, b) = (arr(p, &xs), arr(p, &ys));
        for q in [p, p - 1, p + 64] {
            for rnd in Round::ALL {
                let m = rm(rnd);
                let got = a.div_ternary(&b, q, rnd).unwrap();
                let want: Vec<(Float, Ordering)> = xs
                    .iter()
                    .zip(&ys)
                    .map(|(x, y)| x.div_prec_round_ref_ref(y, q, m))
                    .collect();
                check(
                    &format!("div lanes p={p} -> {q} {rnd:?}"),
                    &got,
                    &want,
                    &[&xs, &ys],
                );
                let mut out = FloatArray::zeros(&Engine::Cpu, len, q).unwrap();
                a.op_into(FloatOp::Div, &[&b], &mut out, rnd, None).unwrap();
                assert!(
                    out == got.0,
                    "div lanes p={p} -> {q} {rnd:?}: op_into without ternary"
                );
            }
        }
    }
}

/// Square roots by groups of lanes (`sqrt_lanes`): positive normal
/// elements mixed with negative ones and special values at random places,
/// partial groups, limb counts on both sides of the lanes' limit (16) and
/// outputs of another limb count, with and without ternary values.
#[test]
fn sqrt_lanes_mixed() {
    use mparray::float::FloatOp;
    let mut r = Rng(common::seed());
    for limbs in [1u64, 2, 3, 4, 5, 7, 8, 9, 15, 16, 17] {
        let p = 64 * limbs - r.below(3);
        let len = 517 + r.below(4) as usize;
        let xs: Vec<Float> = (0..len)
            .map(|_| {
                let x = rand_float(&mut r, p, (-40, 40), 6);
                // Mostly positive: groups of four normal positive elements.
                if r.below(16) == 0 { x } else { x.abs() }
            })
            .collect();
        let a = arr(p, &xs);
        for q in [p, p - 1, p + 64] {
            for rnd in Round::ALL {
                let m = rm(rnd);
                let got = a.sqrt_ternary(q, rnd).unwrap();
                let want: Vec<(Float, Ordering)> =
                    xs.iter().map(|x| x.sqrt_prec_round_ref(q, m)).collect();
                check(
                    &format!("sqrt lanes p={p} -> {q} {rnd:?}"),
                    &got,
                    &want,
                    &[&xs],
                );
                let mut out = FloatArray::zeros(&Engine::Cpu, len, q).unwrap();
                a.op_into(FloatOp::Sqrt, &[], &mut out, rnd, None).unwrap();
                assert!(
                    out == got.0,
                    "sqrt lanes p={p} -> {q} {rnd:?}: op_into without ternary"
                );
            }
        }
    }
}

#[test]
fn sqrt_same_limbs_edges() {
    let mut r = Rng(common::seed());
    let mut cases: Vec<(u64, u64)> = Vec::new();
    for &limbs in FAST_LIMBS {
        for p in fast_precs(limbs) {
            cases.push((p, p));
            // The operand more or less precise than the result.
            cases.push((p, 64 * (2 * limbs) - 5));
            cases.push((p, (p / 2).max(1)));
        }
    }
    // One limb: exact halves (the root of an odd (p+1)-bit square).
    for p in 1..=31 {
        cases.push((p, 64));
    }
    for (p, qx) in cases {
        let mut xs = Vec::new();
        for m in crafted(&mut r, qx) {
            for e in [0i64, 1, -1, 2] {
                xs.push(make(m.clone(), qx, e, false));
            }
        }
        // Perfect squares (exact roots), squares of halves, and a square
        // plus or minus one ulp.
        let rb = (qx / 2).clamp(1, p + 1);
        for _ in 0..8 {
            let mut s = mantissa(&mut r, rb);
            if r.below(2) == 0 {
                s |= Natural::ONE;
            }
            let sq = &s * &s;
            let bits = sq.significant_bits();
            let e = r.range(-10, 10);
            xs.push(make(sq.clone(), bits, e, false).set_prec_then(qx));
            // s (s + 1): the remainder equals the root (round bit 0).
            let ss = &sq + &s;
            let b2 = ss.significant_bits();
            if b2 <= qx {
                xs.push(make(ss, b2, e, false).set_prec_then(qx));
            }
            if bits < qx {
                let sh = qx - bits;
                let v = sq << sh;
                xs.push(make(v.clone() + Natural::ONE, qx, e, false));
                xs.push(make(v - Natural::ONE, qx, e, false));
            }
        }
        for _ in 0..16 {
            xs.push(rand_float(&mut r, qx, (-30, 30), 0).abs());
        }
        xs.push(make(crafted(&mut r, qx)[1].clone(), qx, EMAX, false));
        xs.push(make(crafted(&mut r, qx)[0].clone(), qx, EMIN, false));
        let a = arr(qx, &xs);
        for rnd in Round::ALL {
            let m = rm(rnd);
            let got = a.sqrt_ternary(p, rnd).unwrap();
            let want: Vec<(Float, Ordering)> =
                xs.iter().map(|x| x.sqrt_prec_round_ref(p, m)).collect();
            check(
                &format!("same-limb sqrt p={p} ({qx}) {rnd:?}"),
                &got,
                &want,
                &[&xs],
            );
        }
    }
}

/// `f` kept at precision `q` (exact: callers pass `q` at least `f`'s bits).
trait SetPrec {
    fn set_prec_then(self, q: u64) -> Float;
}

impl SetPrec for Float {
    fn set_prec_then(self, q: u64) -> Float {
        let (f, o) = Float::from_float_prec_round(self, q, RoundingMode::Exact);
        assert_eq!(o, Ordering::Equal);
        f
    }
}

/// Timing probe (ignored): ns per element of add at 512 bits for chosen
/// input mixes, one thread (`cargo test --release --test float_cpu probe
/// -- --ignored --nocapture`).
#[test]
#[ignore = "timing probe"]
fn probe_add_timing() {
    use mparray::float::FloatOp;
    let len = 4096;
    for p in [128u64, 512] {
        let x = FloatArray::random_exp(&Engine::Cpu, len, p, 1, -16, 16).unwrap();
        let y = FloatArray::random_exp(&Engine::Cpu, len, p, 2, -16, 16).unwrap();
        let xa = x.abs(p, Round::Nearest).unwrap();
        let ya = y.abs(p, Round::Nearest).unwrap();
        let x0 = FloatArray::random_exp(&Engine::Cpu, len, p, 1, 0, 0)
            .unwrap()
            .abs(p, Round::Nearest)
            .unwrap();
        let y5 = FloatArray::random_exp(&Engine::Cpu, len, p, 2, -5, -5)
            .unwrap()
            .abs(p, Round::Nearest)
            .unwrap();
        let mut out = FloatArray::zeros(&Engine::Cpu, len, p).unwrap();
        let mut tern = TernaryArray::zeros(&Engine::Cpu, len).unwrap();
        for (name, a, b, op) in [
            ("random signs", &x, &y, FloatOp::Add),
            ("all add", &xa, &ya, FloatOp::Add),
            ("all sub", &xa, &ya, FloatOp::Sub),
            ("add d=5", &x0, &y5, FloatOp::Add),
            ("sub d=5", &x0, &y5, FloatOp::Sub),
            ("mul", &x, &y, FloatOp::Mul),
            ("min", &x, &y, FloatOp::Min),
        ] {
            let pool = rayon::ThreadPoolBuilder::new()
                .num_threads(1)
                .build()
                .unwrap();
            // The best of 60 trials (the shared machine preempts).
            let t = pool.install(|| {
                (0..60)
                    .map(|_| {
                        let t0 = std::time::Instant::now();
                        a.op_into(op, &[b], &mut out, Round::Nearest, Some(&mut tern))
                            .unwrap();
                        t0.elapsed()
                    })
                    .min()
                    .unwrap()
            });
            println!("p={p} {name}: {:.1} ns", t.as_nanos() as f64 / len as f64);
        }
    }
}

/// The short product of `mul` (8 and 16 limbs: only the columns from
/// `n - 2` up, rounded when limb `n - 1` of the truncated product leaves the
/// rounding decided, else the full product). Limbs 7, 8, 9, 15, 16, 17 at
/// precisions `64n`, `64n - 1`, `64n - 2`, `64(n - 1) + 1`; crafted pairs
/// whose products end, after the kept bits, in `0111...1` (the truncation
/// below a boundary), `1000...0` (just above one), a zero limb with a large
/// omitted sum (the truncated product borrows from the kept limbs: all ones
/// times all ones minus `t`), exact products (low limbs zero: the sticky
/// bit unknown from the top), products just below and above `2^(2p-1)`
/// (carries to the next power of two), and random pairs; every mode.
#[test]
fn mul_short_product_edges() {
    let mut r = Rng(common::seed());
    for limbs in [7u64, 8, 9, 15, 16, 17] {
        let mut ps = vec![
            64 * limbs,
            64 * limbs - 1,
            64 * limbs - 2,
            64 * (limbs - 1) + 1,
        ];
        ps.dedup();
        for p in ps {
            let one = || Natural::ONE;
            let top = one() << (p - 1);
            let ones = (one() << p) - one();
            let low = |r: &mut Rng, bits: u64| mantissa(r, bits + 1) - (one() << bits);
            let mut pairs: Vec<(Natural, Natural)> = Vec::new();
            for t in 0..40u64 {
                let tn = Natural::from(t);
                // ones * (ones - t): limb n - 1 of the product is zero and
                // the omitted columns are full.
                pairs.push((ones.clone(), &ones - &tn));
                pairs.push((ones.clone(), &ones - (&tn << (p / 2))));
                // ones * (top + s...): the product's bits after p read
                // 0111...1 minus a little.
                pairs.push((ones.clone(), &top + (&tn << (p - 64)) + low(&mut r, p - 64)));
                pairs.push((ones.clone(), &top + &tn));
                // (top + 1) * (3/4 + t...): bits after p read 1000...0 plus
                // a little (the product has a leading zero).
                let b = &top + (one() << (p - 2)) + (&tn << (p - 65)) + low(&mut r, p - 66);
                pairs.push((&top + one(), b));
                // Exact products (the truncation sees zero low limbs).
                let k = 1 + r.below(40);
                pairs.push((mantissa(&mut r, k) << (p - k), mantissa(&mut r, p)));
                // a * b just above and below 2^(2p - 1).
                let a = mantissa(&mut r, p) | one();
                let half = one() << (2 * p - 1);
                let c = {
                    use malachite_base::num::arithmetic::traits::DivRound;
                    (&half).div_round(&a, RoundingMode::Ceiling).0
                };
                let f = {
                    use malachite_base::num::arithmetic::traits::DivRound;
                    (&half).div_round(&a, RoundingMode::Floor).0
                };
                if c < (one() << p) {
                    pairs.push((a.clone(), c));
                }
                if f >= top {
                    pairs.push((a.clone(), f));
                }
                pairs.push((mantissa(&mut r, p), mantissa(&mut r, p)));
            }
            let mut xs = Vec::new();
            let mut ys = Vec::new();
            for (a, b) in pairs {
                let (e, swap) = (r.range(-5, 5), r.below(2) == 0);
                let (a, b) = if swap { (b, a) } else { (a, b) };
                xs.push(make(a, p, e, r.below(2) == 0));
                ys.push(make(b, p, -e, r.below(2) == 0));
            }
            let (a, b) = (arr(p, &xs), arr(p, &ys));
            let mut qs = vec![p, p - 1];
            qs.retain(|&q| q.div_ceil(64) == limbs);
            for q in qs {
                for rnd in Round::ALL {
                    let got = a.mul_ternary(&b, q, rnd).unwrap();
                    let want: Vec<(Float, Ordering)> = xs
                        .iter()
                        .zip(&ys)
                        .map(|(x, y)| x.mul_prec_round_ref_ref(y, q, rm(rnd)))
                        .collect();
                    check(
                        &format!("short mul p={p} -> {q} {rnd:?}"),
                        &got,
                        &want,
                        &[&xs, &ys],
                    );
                }
            }
        }
    }
}
