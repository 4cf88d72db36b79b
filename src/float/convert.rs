//! Conversions between float arrays and f64, i64, integer arrays and
//! malachite `Float`s, each correctly rounded in the chosen mode.

use malachite_base::num::arithmetic::traits::ShrRound;
use malachite_base::num::basic::traits::{Infinity, NaN, NegativeInfinity, NegativeZero, Zero};
use malachite_base::num::conversion::traits::ExactFrom;
use malachite_base::num::logic::traits::SignificantBits;
use malachite_base::rounding_modes::RoundingMode;
use malachite_float::Float;
use malachite_nz::natural::Natural;

use super::ops::build;
use super::round::{Out, Round, round_mant, round_to};
use super::{Class, CpuFloats, Elem, check_prec};
use crate::error::{Error, Result};
use crate::int::IntArray;

/// Rounds `(-1)^neg * mag * 2^e2` (`mag` little-endian limbs, nonzero; it is
/// normalized in place) plus a sticky bit. A sticky bit requires `mag` to
/// have at least `p + 2` significant bits.
pub(crate) fn round_int(
    out: &mut Out,
    neg: bool,
    mag: &mut [u64],
    e2: i64,
    sticky: bool,
    p: u64,
    rnd: Round,
) -> i8 {
    let top = mag.iter().rposition(|&x| x != 0).expect("nonzero");
    let lz = mag[top].leading_zeros();
    let m = &mut mag[..=top];
    if lz > 0 {
        for i in (1..m.len()).rev() {
            m[i] = (m[i] << lz) | (m[i - 1] >> (64 - lz));
        }
        m[0] <<= lz;
    }
    let e = e2
        .saturating_add(64 * (top as i64 + 1))
        .saturating_sub(lz as i64);
    round_to(out, neg, e, m, sticky, p, rnd)
}

/// Our rounding mode as malachite's.
pub fn to_rounding_mode(r: Round) -> RoundingMode {
    match r {
        Round::Nearest => RoundingMode::Nearest,
        Round::Zero => RoundingMode::Down,
        Round::Away => RoundingMode::Up,
        Round::Up => RoundingMode::Ceiling,
        Round::Down => RoundingMode::Floor,
    }
}

/// Rounds a finite element to an integer (mpfr_rint): (sign, magnitude),
/// or None when it is NaN, Inf, or needs more than `max_bits` bits.
pub(crate) fn round_to_integer(x: &Elem, rnd: Round, max_bits: u64) -> Option<(bool, Natural)> {
    match x.class {
        Class::NaN | Class::Inf => return None,
        Class::Zero => return Some((x.neg, Natural::ZERO)),
        Class::Normal => {}
    }
    if x.exp > max_bits as i64 {
        return None;
    }
    let m = Natural::from_limbs_asc(x.limbs);
    let b = x.exp - 64 * x.limbs.len() as i64;
    let mag = if b >= 0 {
        m << (b as u64)
    } else {
        // Mirror the mode for negatives: malachite rounds the magnitude.
        let rm = to_rounding_mode(if x.neg { rnd.mirror() } else { rnd });
        m.shr_round((-b) as u64, rm).0
    };
    if mag.significant_bits() > max_bits {
        return None;
    }
    Some((x.neg, mag))
}

impl CpuFloats {
    /// From f64s, each rounded to `prec` bits (exact when `prec >= 53`).
    pub fn from_f64s(prec: u64, xs: &[f64], rnd: Round) -> Result<(CpuFloats, Vec<i8>)> {
        check_prec(prec)?;
        build(xs.len(), prec, |i, out, _| {
            let x = xs[i];
            let neg = x.is_sign_negative();
            if x.is_nan() {
                out.special(Class::NaN, false);
                0
            } else if x.is_infinite() {
                out.special(Class::Inf, neg);
                0
            } else if x == 0.0 {
                out.special(Class::Zero, neg);
                0
            } else {
                let bits = x.to_bits();
                let be = ((bits >> 52) & 0x7ff) as i64;
                let frac = bits & ((1 << 52) - 1);
                let (m, e2) = if be == 0 {
                    (frac, -1074)
                } else {
                    (frac | (1 << 52), be - 1075)
                };
                round_int(out, neg, &mut [m], e2, false, prec, rnd)
            }
        })
    }

    /// From i64s, each rounded to `prec` bits (exact when `prec >= 63`).
    pub fn from_i64s(prec: u64, xs: &[i64], rnd: Round) -> Result<(CpuFloats, Vec<i8>)> {
        check_prec(prec)?;
        build(xs.len(), prec, |i, out, _| {
            let x = xs[i];
            if x == 0 {
                out.special(Class::Zero, false);
                0
            } else {
                round_int(out, x < 0, &mut [x.unsigned_abs()], 0, false, prec, rnd)
            }
        })
    }

    /// From an integer array (unsigned), each rounded to `prec` bits.
    pub fn from_int_array(prec: u64, a: &IntArray, rnd: Round) -> Result<(CpuFloats, Vec<i8>)> {
        check_prec(prec)?;
        let data = a.to_limbs()?;
        let l = a.limbs_per_element();
        build(a.len(), prec, |i, out, _| {
            let mut v = data[i * l..(i + 1) * l].to_vec();
            if v.iter().all(|&x| x == 0) {
                out.special(Class::Zero, false);
                0
            } else {
                round_int(out, false, &mut v, 0, false, prec, rnd)
            }
        })
    }

    /// From malachite `Float`s (any precisions), each rounded to `prec`.
    pub fn from_floats(prec: u64, xs: &[Float], rnd: Round) -> Result<(CpuFloats, Vec<i8>)> {
        check_prec(prec)?;
        build(xs.len(), prec, |i, out, _| {
            let x = &xs[i];
            let neg = x.is_sign_negative();
            if x.is_nan() {
                out.special(Class::NaN, false);
                0
            } else if x.is_infinite() {
                out.special(Class::Inf, neg);
                0
            } else if x.is_zero() {
                out.special(Class::Zero, neg);
                0
            } else {
                let m = x.significand_ref().expect("finite").to_limbs_asc();
                let e = i64::from(x.get_exponent().expect("finite"));
                round_to(out, neg, e, &m, false, prec, rnd)
            }
        })
    }

    /// Element `i` as a malachite `Float` of this array's precision (zeros,
    /// infinities and NaN as malachite's).
    pub fn to_float(&self, i: usize) -> Float {
        let x = self.get(i);
        match (x.class, x.neg) {
            (Class::NaN, _) => Float::NAN,
            (Class::Inf, false) => Float::INFINITY,
            (Class::Inf, true) => Float::NEGATIVE_INFINITY,
            (Class::Zero, false) => Float::ZERO,
            (Class::Zero, true) => Float::NEGATIVE_ZERO,
            (Class::Normal, neg) => {
                let (f, _) = Float::from_natural_prec(Natural::from_limbs_asc(x.limbs), self.prec);
                let f = f << (x.exp - 64 * x.limbs.len() as i64);
                if neg { -f } else { f }
            }
        }
    }

    /// All elements as malachite `Float`s.
    pub fn to_floats(&self) -> Vec<Float> {
        (0..self.len).map(|i| self.to_float(i)).collect()
    }

    /// Each element rounded to f64 in mode `rnd` (mpfr_get_d: IEEE
    /// subnormals, overflow to Inf or the largest double by the mode).
    pub fn to_f64s(&self, rnd: Round) -> Vec<f64> {
        (0..self.len)
            .map(|i| elem_to_f64(&self.get(i), rnd))
            .collect()
    }

    /// Each element rounded to an integer in mode `rnd` (mpfr_get_si), or
    /// None for NaN, Inf and values out of the i64 range.
    pub fn to_i64s(&self, rnd: Round) -> Vec<Option<i64>> {
        (0..self.len)
            .map(|i| {
                let (neg, m) = round_to_integer(&self.get(i), rnd, 64)?;
                let v = i128::from(u64::exact_from(&m));
                i64::try_from(if neg { -v } else { v }).ok()
            })
            .collect()
    }

    /// Each element rounded to an integer in mode `rnd`, as an unsigned
    /// integer array of `bits` bits. Errors name the first element that is
    /// NaN, infinite, negative (after rounding) or too wide.
    pub fn to_int_array(&self, bits: u64, rnd: Round) -> Result<IntArray> {
        let mut nats = Vec::with_capacity(self.len);
        for i in 0..self.len {
            let x = self.get(i);
            match round_to_integer(&x, rnd, bits) {
                Some((neg, m)) if !neg || m == 0 => nats.push(m),
                Some(_) => {
                    return Err(Error::Invalid(format!(
                        "element {i}: a negative value does not fit an unsigned integer array"
                    )));
                }
                None => {
                    return Err(Error::Invalid(format!(
                        "element {i}: NaN, infinite, or wider than {bits} bits"
                    )));
                }
            }
        }
        IntArray::from_naturals(bits, &nats)
    }
}

/// mpfr_get_d.
fn elem_to_f64(x: &Elem, rnd: Round) -> f64 {
    let sign = if x.neg { -1.0 } else { 1.0 };
    match x.class {
        Class::NaN => return f64::NAN,
        Class::Inf => return sign * f64::INFINITY,
        Class::Zero => return sign * 0.0,
        Class::Normal => {}
    }
    let e = x.exp;
    if e > 1024 {
        return sign * overflow_f64(x.neg, rnd);
    }
    // Precision available at this exponent: 53 for normals, fewer for
    // subnormals (the smallest is 2^-1074 = 0.1b * 2^-1073).
    let p = if e >= -1021 { 53 } else { e + 1074 };
    if p <= 0 {
        // Below 2^-1074: zero or the smallest subnormal. At p == 0 the value
        // is in [2^-1075, 2^-1074); exactly 2^-1075 is a tie, to even (zero).
        let up = match rnd {
            Round::Nearest => {
                let pow2 = x.limbs[x.limbs.len() - 1] == 1 << 63
                    && x.limbs[..x.limbs.len() - 1].iter().all(|&v| v == 0);
                p == 0 && !pow2
            }
            r => r.like_away(x.neg),
        };
        return sign * if up { f64::from_bits(1) } else { 0.0 };
    }
    let mut m = [0u64];
    let (_, _, carry) = round_mant(&mut m, p as u64, x.limbs, false, x.neg, rnd);
    let e = e + carry as i64;
    if e > 1024 {
        return sign * overflow_f64(x.neg, rnd);
    }
    // m * 2^(e-64), exact: scale in steps that stay representable.
    let mut v = (m[0] >> 11) as f64; // at most 53 significant bits
    let mut k = e - 53;
    while k < -1000 {
        v *= 2f64.powi(-1000);
        k += 1000;
    }
    while k > 1000 {
        v *= 2f64.powi(1000);
        k -= 1000;
    }
    sign * v * 2f64.powi(k as i32)
}

fn overflow_f64(neg: bool, rnd: Round) -> f64 {
    if rnd.like_zero(neg) {
        f64::MAX
    } else {
        f64::INFINITY
    }
}
