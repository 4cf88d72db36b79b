//! Helpers shared by the fused root-finder tests (roots_fused.rs,
//! roots_sts.rs): random polynomials and points, the tolerance, and the
//! comparison of floats bit for bit, and `Ref`, the malachite operations
//! the reference sequences are written with (each test adds its `step`).
#![allow(dead_code)]

use std::cmp::Ordering;

use malachite_base::num::arithmetic::traits::Abs;
use malachite_base::num::basic::traits::Zero;
use malachite_base::rounding_modes::RoundingMode::{self, Nearest, Up};
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

/// The sequence of `polyroots` at `p` bits, written out with malachite.
pub struct Ref {
    pub p: u64,
}

impl Ref {
    pub fn mul(&self, a: &Float, b: &Float, rm: RoundingMode) -> Float {
        a.mul_prec_round_ref_ref(b, self.p, rm).0
    }
    pub fn add(&self, a: &Float, b: &Float, rm: RoundingMode) -> Float {
        a.add_prec_round_ref_ref(b, self.p, rm).0
    }
    pub fn sub(&self, a: &Float, b: &Float) -> Float {
        a.sub_prec_round_ref_ref(b, self.p, Nearest).0
    }
    pub fn cmul(&self, x: &Cf, y: &Cf) -> Cf {
        let rr = self.mul(&x.0, &y.0, Nearest);
        let ii = self.mul(&x.1, &y.1, Nearest);
        let ri = self.mul(&x.0, &y.1, Nearest);
        let ir = self.mul(&x.1, &y.0, Nearest);
        (self.sub(&rr, &ii), self.add(&ri, &ir, Nearest))
    }
    pub fn csub(&self, x: &Cf, y: &Cf) -> Cf {
        (self.sub(&x.0, &y.0), self.sub(&x.1, &y.1))
    }
    pub fn rec(&self, d: &Cf) -> Cf {
        let nn = self.add(
            &self.mul(&d.0, &d.0, Nearest),
            &self.mul(&d.1, &d.1, Nearest),
            Nearest,
        );
        let q = Float::from(1u32)
            .div_prec_round_ref_ref(&nn, self.p, Nearest)
            .0;
        (self.mul(&d.0, &q, Nearest), -self.mul(&d.1, &q, Nearest))
    }
    pub fn norm2(&self, z: &Cf) -> Float {
        self.add(
            &self.mul(&z.0, &z.0, Nearest),
            &self.mul(&z.1, &z.1, Nearest),
            Nearest,
        )
    }
    pub fn abs1_up(&self, z: &Cf) -> Float {
        self.add(&z.0.clone().abs(), &z.1.clone().abs(), Up)
    }

    /// The pairwise sum with absent leaves.
    pub fn tsum<T: Clone>(&self, mut v: Vec<Option<T>>, add: impl Fn(&T, &T) -> T) -> Option<T> {
        let cnt = v.len();
        let mut s = 1;
        while s < cnt {
            let mut k = 0;
            while k + s < cnt {
                v[k] = match (&v[k], &v[k + s]) {
                    (Some(a), Some(b)) => Some(add(a, b)),
                    (None, b) => b.clone(),
                    (a, None) => a.clone(),
                };
                k += 2 * s;
            }
            s *= 2;
        }
        v.into_iter().next().flatten()
    }

    pub fn csum(&self, v: Vec<Option<Cf>>) -> Cf {
        let z = (Float::ZERO, Float::ZERO);
        self.tsum(v, |a: &Cf, b: &Cf| {
            (self.add(&a.0, &b.0, Nearest), self.add(&a.1, &b.1, Nearest))
        })
        .unwrap_or(z)
    }

    pub fn le(a: &Float, b: &Float) -> bool {
        matches!(a.partial_cmp(b), Some(Ordering::Less | Ordering::Equal))
    }
    pub fn cadd(&self, x: &Cf, y: &Cf) -> Cf {
        (self.add(&x.0, &y.0, Nearest), self.add(&x.1, &y.1, Nearest))
    }
}
