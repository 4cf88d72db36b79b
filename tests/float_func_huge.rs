//! Huge arguments (issue 16): sin, cos, tan, sin_cos and the complex
//! functions whose huge part is reduced modulo 2 pi (Payne-Hanek with 2/pi
//! from the Chudnovsky series), both reduction paths and x near multiples
//! of pi/2, and log near 1 (`1 + d` with `d^2` below `d`'s last bit).
//!
//! References: malachite-float's own functions (MPFR ports) live with
//! fresh random inputs, at exponents near 2^20 (about a second per call
//! there); GNU MPFR/MPC 4.2 results at exponents near 2^20 (complex) and
//! 2^22 (`trig_huge_mpfr.txt`, written by
//! `scripts/peers/trig_huge_data.py`; malachite needs several seconds per
//! element there); the exact rational enclosure `(d - d^2, d)` for log
//! near one. Exponents near MPFR's maximum 2^30 - 1 need pi (here 2/pi) to
//! about 2^30 bits: minutes for MPFR, malachite and us alike, so they are
//! measured (notes/func.md), not tested in CI.

mod common;

use std::cmp::Ordering;

use malachite_base::num::basic::traits::One;
use malachite_base::num::conversion::traits::RoundingFrom;
use malachite_base::num::logic::traits::SignificantBits;
use malachite_base::rounding_modes::RoundingMode;
use malachite_float::{ComparableFloatRef, Float};
use malachite_nz::integer::Integer;
use malachite_q::Rational;
use malachite_q::rational::conversion::traits::Convergents;
use mparray::complex::{CFunc, CRound};
use mparray::float::func::Func;
use mparray::float::to_rounding_mode;
use mparray::{ComplexArray, FloatArray, Round};

use common::Rng;

fn tern(o: Ordering) -> i8 {
    match o {
        Ordering::Less => -1,
        Ordering::Equal => 0,
        Ordering::Greater => 1,
    }
}

fn mode(c: char) -> Round {
    match c {
        'N' => Round::Nearest,
        'Z' => Round::Zero,
        'U' => Round::Up,
        'D' => Round::Down,
        'A' => Round::Away,
        _ => panic!("mode {c}"),
    }
}

/// malachite-float's `f(x)` at `p` bits in `rnd`.
fn mal(f: Func, x: &Float, p: u64, rnd: Round) -> (Float, i8) {
    let rm = to_rounding_mode(rnd);
    let (y, o) = match f {
        Func::Sin => x.sin_prec_round_ref(p, rm),
        Func::Cos => x.cos_prec_round_ref(p, rm),
        Func::Tan => x.tan_prec_round_ref(p, rm),
        Func::Log => x.ln_prec_round_ref(p, rm),
        _ => unreachable!(),
    };
    (y, tern(o))
}

/// Ours, one element.
fn ours(f: Func, x: &Float, p: u64, rnd: Round) -> (Float, i8) {
    let q = x.get_prec().unwrap_or(1);
    let a = FloatArray::from_floats(q, std::slice::from_ref(x), Round::Nearest)
        .unwrap()
        .0;
    let (y, t, _) = a.func_ternary(f, p, rnd).unwrap();
    (y.to_float(0).unwrap(), t.to_vec().unwrap()[0])
}

fn same(got: &(Float, i8), want: &(Float, i8)) -> bool {
    ComparableFloatRef(&got.0) == ComparableFloatRef(&want.0) && got.1 == want.1
}

fn rand_x(r: &mut Rng, q: u64, e: i64) -> Float {
    let neg = r.below(2) == 0;
    common::rand_float(|| r.next(), q, e, neg)
}

/// sin, cos, tan and sin_cos of one random argument of exponent near 2^20
/// against malachite-float (one malachite call per function: ~1 s each).
#[test]
fn trig_exponent_2_20_vs_malachite() {
    let mut r = Rng(common::seed());
    let q = [53, 64, 113, 200][r.index(4)];
    let p = [1, 2, 24, 53, 113, 200, 1024][r.index(7)];
    let rnd = Round::ALL[r.index(Round::ALL.len())];
    let e = (1 << 20) + r.range(-64, 64);
    let x = rand_x(&mut r, q, e);
    let mut want = Vec::new();
    for f in [Func::Sin, Func::Cos, Func::Tan] {
        let w = mal(f, &x, p, rnd);
        let g = ours(f, &x, p, rnd);
        assert!(
            same(&g, &w),
            "{f:?}({x:#x}) p={p} {rnd:?}: got {g:?}, want {w:?}"
        );
        want.push(w);
    }
    let a = FloatArray::from_floats(q, std::slice::from_ref(&x), Round::Nearest)
        .unwrap()
        .0;
    let ((s, ts), (c, tc), _) = a.sin_cos_ternary(p, rnd).unwrap();
    let s = (s.to_float(0).unwrap(), ts.to_vec().unwrap()[0]);
    let c = (c.to_float(0).unwrap(), tc.to_vec().unwrap()[0]);
    assert!(
        same(&s, &want[0]) && same(&c, &want[1]),
        "sin_cos({x:#x}) p={p} {rnd:?}"
    );
}

/// Parses a hex float exactly (at most 256 bits here).
fn hex(s: &str, p: u64) -> FloatArray {
    FloatArray::from_strs(p, &[s]).unwrap()
}

/// GNU MPFR/MPC's results at exponents near 2^20 and 2^22.
#[test]
fn mpfr_mpc_data() {
    let data = include_str!("trig_huge_mpfr.txt");
    let mut n = 0;
    for line in data.lines().filter(|l| !l.trim().is_empty()) {
        let parts: Vec<&str> = line.split(" | ").collect();
        let head: Vec<&str> = parts[0].split_whitespace().collect();
        let (name, p) = (head[0], head[1].parse::<u64>().unwrap());
        let modes: Vec<char> = head[2].chars().collect();
        let outs: Vec<&str> = parts[1].split_whitespace().collect();
        let terns: Vec<i8> = parts[2]
            .split_whitespace()
            .map(|t| t.parse().unwrap())
            .collect();
        if let Some(f) = Func::from_name(name) {
            let (y, t, _) = hex(head[3], 256)
                .func_ternary(f, p, mode(modes[0]))
                .unwrap();
            let g = y.to_float(0).unwrap();
            let w = hex(outs[0], p).to_float(0).unwrap();
            assert!(
                ComparableFloatRef(&g) == ComparableFloatRef(&w)
                    && t.to_vec().unwrap()[0] == terns[0],
                "{line}: got {g:#x} {:?}",
                t.to_vec().unwrap()
            );
        } else {
            let cf = CFunc::ALL
                .into_iter()
                .find(|c| name.strip_prefix('c') == Some(c.name()))
                .unwrap();
            let z = ComplexArray::new(hex(head[3], 256), hex(head[4], 256)).unwrap();
            let rnd = CRound::new(mode(modes[0]), mode(modes[1]));
            let (y, t) = z.func_ternary(cf, p, p, rnd).unwrap();
            let g = y.to_floats().unwrap().remove(0);
            let (wr, wi) = (
                hex(outs[0], p).to_float(0).unwrap(),
                hex(outs[1], p).to_float(0).unwrap(),
            );
            let tp = t.to_pairs().unwrap()[0];
            assert!(
                ComparableFloatRef(&g.0) == ComparableFloatRef(&wr)
                    && ComparableFloatRef(&g.1) == ComparableFloatRef(&wi)
                    && (tp.0, tp.1) == (terns[0], terns[1]),
                "{line}: got {:#x} {:#x} {tp:?}",
                g.0,
                g.1
            );
        }
        n += 1;
    }
    assert_eq!(n, 23);
}

/// Both reduction paths (pi's division below the threshold exponent,
/// 2/pi's window from it), across the threshold and up to 2^12, and
/// arguments within a few ulps of multiples of pi/2 (the reduction's
/// cancellation loop), against malachite-float in every mode.
#[test]
fn reduction_paths_vs_malachite() {
    let mut r = Rng(common::seed());
    let t = 256i64; // core::REDUCE_HUGE_T
    let mut xs = Vec::new();
    for e in [
        t - 2,
        t - 1,
        t,
        t + 1,
        t + 2,
        r.range(t, 600),
        r.range(600, 4096),
    ] {
        let q = [1, 24, 53, 64, 113, 200][r.index(6)];
        xs.push(rand_x(&mut r, q, e));
    }
    for _ in 0..6 {
        // x = M 2^s with M < 2^q the largest denominator of a convergent
        // of frac(2^(s+1)/pi): x 2/pi is within about 2^-q of an integer,
        // so the reduction cancels about q bits.
        let (q, e) = ([24, 53, 113][r.index(3)], r.range(t, 2048));
        let s = (e - q as i64) as u64;
        let pi = Float::pi_prec(s + 2 * q + 128).0;
        let c = (Rational::ONE << (s + 1)) / Rational::try_from(&pi).unwrap();
        let c = &c - Rational::from(Integer::rounding_from(&c, RoundingMode::Floor).0);
        let m = c
            .convergents()
            .map(|v| v.into_denominator())
            .take_while(|d| d.significant_bits() <= q)
            .last()
            .unwrap();
        let x = Float::from_rational_prec_round(Rational::from(m) << s, q, RoundingMode::Exact).0;
        xs.push(if r.below(2) == 0 { -x } else { x });
    }
    // The double nearest a multiple of pi/2 (Kahan and McDonald: x 2/pi
    // within 2^-61.9 of an integer).
    xs.push(Float::from(6381956970095103.0f64) << 797u32);
    for x in &xs {
        let p = [1, 2, 24, 53, 113, 200][r.index(6)];
        for f in [Func::Sin, Func::Cos, Func::Tan] {
            for rnd in Round::ALL {
                let (g, w) = (ours(f, x, p, rnd), mal(f, x, p, rnd));
                assert!(
                    same(&g, &w),
                    "{f:?}({x:#x}) p={p} {rnd:?}: got {g:?}, want {w:?}"
                );
            }
        }
    }
}

/// log(1 + d) for d = +-m 2^-k: against the exact enclosure `(d - d^2, d)`
/// (both ends rounded alike decides the result) far from 1's neighbours
/// (k up to 10^6: MPFR needs seconds for these), and against malachite
/// near the fast path's edge.
#[test]
fn log_near_one() {
    let mut r = Rng(common::seed());
    let mut cases = Vec::new();
    for k in [60, 200, 5000, 100_000, 1_000_000] {
        let m = [1u64, 3, 5, 0x1234_5678_9abc_def1][r.index(4)];
        let d: Rational = Rational::from(m) >> k;
        let d = if r.below(2) == 0 { -d } else { d };
        cases.push((d, k));
    }
    for (d, k) in cases {
        let x = Rational::ONE + &d;
        let q = k + 64;
        let xf = Float::from_rational_prec_round(x, q, RoundingMode::Exact).0;
        for p in [1, 53, 113] {
            for rnd in Round::ALL {
                let rm = to_rounding_mode(rnd);
                let lo = Float::from_rational_prec_round(&d - &d * &d, p, rm);
                let hi = Float::from_rational_prec_round(d.clone(), p, rm);
                if ComparableFloatRef(&lo.0) != ComparableFloatRef(&hi.0) {
                    continue;
                }
                // The exact value is strictly inside: the direction is the
                // side of the rounded value.
                let v = Rational::try_from(&hi.0).unwrap();
                let t = if v >= d { 1 } else { -1 };
                let g = ours(Func::Log, &xf, p, rnd);
                assert!(
                    same(&g, &(hi.0.clone(), t)),
                    "log(1 + {d}) p={p} {rnd:?}: got {g:?}"
                );
            }
        }
    }
    // Near the edge `ed = -(p + 3)` on both sides, against malachite.
    for p in [1u64, 24, 53, 113] {
        for ed in [
            -(p as i64) - 4,
            -(p as i64) - 3,
            -(p as i64) - 2,
            -(p as i64),
        ] {
            let q = [1, 2, 8, 53][r.index(4)];
            let d = rand_x(&mut r, q, ed);
            let x = Float::from_rational_prec_round(
                Rational::ONE + Rational::try_from(&d).unwrap(),
                (q as i64 - ed + 8) as u64,
                RoundingMode::Exact,
            )
            .0;
            for rnd in Round::ALL {
                let (g, w) = (ours(Func::Log, &x, p, rnd), mal(Func::Log, &x, p, rnd));
                assert!(
                    same(&g, &w),
                    "log({x:#x}) p={p} {rnd:?}: got {g:?}, want {w:?}"
                );
            }
        }
    }
}
