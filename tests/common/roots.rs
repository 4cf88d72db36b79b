//! Helpers shared by the fused root-finder tests (roots_fused.rs,
//! roots_sts.rs): random polynomials and points, the tolerance, and the
//! comparison of floats bit for bit.

use malachite_base::num::basic::traits::Zero;
use malachite_base::rounding_modes::RoundingMode::Nearest;
use malachite_float::Float;
use mparray::{ComplexArray, FloatArray, Round};

use crate::common::Rng;

/// A complex value as (re, im).
pub type Cf = (Float, Float);

/// Same value, sign of zero included (NaN equals NaN).
pub fn same(a: &Float, b: &Float) -> bool {
    (a.is_nan() && b.is_nan()) || (a == b && a.is_sign_negative() == b.is_sign_negative())
}

pub fn cf_of(a: &ComplexArray) -> Vec<Cf> {
    a.to_floats().unwrap()
}

/// A random float of `prec` bits near `2^e`.
pub fn rand_float(rng: &mut Rng, prec: u64, e: i64) -> Float {
    let m = (rng.next() >> 1) as i64 - (1 << 62);
    let f = Float::from(m) >> (62 - e);
    Float::from_float_prec_round(f, prec, Nearest).0
}

pub fn rand_poly(rng: &mut Rng, n: usize, pre: u64, pim: u64) -> ComplexArray {
    let re: Vec<Float> = (0..=n)
        .map(|_| {
            let e = rng.range(-3, 3);
            rand_float(rng, pre, e)
        })
        .collect();
    let im: Vec<Float> = (0..=n)
        .map(|k| {
            if k % 3 == 1 {
                Float::ZERO
            } else {
                let e = rng.range(-3, 3);
                rand_float(rng, pim, e)
            }
        })
        .collect();
    ComplexArray::new(
        FloatArray::from_floats(pre, &re, Round::Nearest).unwrap().0,
        FloatArray::from_floats(pim, &im, Round::Nearest).unwrap().0,
    )
    .unwrap()
}

pub fn rand_points(rng: &mut Rng, n: usize, p: u64) -> ComplexArray {
    let re: Vec<Float> = (0..n).map(|_| rand_float(rng, p, 1)).collect();
    let im: Vec<Float> = (0..n).map(|_| rand_float(rng, p, 1)).collect();
    ComplexArray::new(
        FloatArray::from_floats(p, &re, Round::Nearest).unwrap().0,
        FloatArray::from_floats(p, &im, Round::Nearest).unwrap().0,
    )
    .unwrap()
}

pub fn tol2_of(p: u64) -> Float {
    let t = Float::from(1u32) << (8 - p as i64);
    t.mul_prec_ref_ref(&t, p).0
}
