//! `a*b + c` per element, as GNU MPC 1.3's `mpc_fma`: for finite operands a
//! Ziv loop on `mpc_mul` and `mpc_add` rounded toward zero at a working
//! precision, each part kept when `mpfr_can_round` allows it; otherwise,
//! and whenever a part is infinite or NaN, the naive form: each part the
//! `mpfr_sum` of its three products (`Re a Re b`, `-Im a Im b`, `Re c`;
//! `Re a Im b`, `Im a Re b`, `Im c`), each product an `mpfr_mul` toward
//! zero at the sum of its factors' precisions (exact inside MPFR's exponent
//! range). Inside the range both forms give each part of the exact `a*b +
//! c` rounded once; at the range's ends the bits are MPC's.

use malachite_nz::natural::Natural;

use super::CRound;
use super::arith;
use super::scalar::{self, F, Part, mul_exact};
use crate::float::{EMAX, EMIN, Round};
use crate::linalg::exact::Terms;

/// Precisions of the operands' parts: (re, im) of a, b, c.
pub(crate) type Precs = [(u64, u64); 3];

fn fin(x: &(F, F)) -> bool {
    !(x.0.is_nan() || x.0.is_inf() || x.1.is_nan() || x.1.is_inf())
}

/// `ceil(log2(p))` (mpc_ceil_log2).
fn ceil_log2(p: u64) -> u64 {
    if p <= 1 {
        0
    } else {
        64 - (p - 1).leading_zeros() as u64
    }
}

/// `mpfr_can_round(b, err, MPFR_RNDN, MPFR_RNDZ, prec)`: whether every
/// value within `2^(EXP(b) - err)` of `b` truncates (toward zero) to the
/// same `prec`-bit number. MPFR's rules: never when `err <= prec + 1`; the
/// error is at least the last limb's unit.
fn can_round(b: &F, err: i64, prec: u64) -> bool {
    if !b.is_normal() || err <= prec as i64 + 1 {
        return false;
    }
    let bits = b.bits();
    let err = (err as u64).min(bits);
    let m = Natural::from_limbs_asc(&b.m);
    let eps = Natural::from(1u32) << (bits - err);
    let (lo, hi) = (&m - &eps, &m + &eps);
    let top = Natural::from(1u32) << bits;
    if hi >= top || lo < (Natural::from(1u32) << (bits - 1)) || prec >= bits {
        return false;
    }
    let s = bits - prec;
    (lo >> s) == (hi >> s)
}

/// One product of the naive form: `mpfr_mul(x, y)` toward zero at `q`
/// bits (exact unless it leaves the exponent range: then the largest
/// finite number or zero, with the product's sign).
fn product(x: &F, y: &F, q: u64) -> F {
    let r = mul_exact(x, y);
    if !r.is_normal() {
        return r;
    }
    if r.exp > EMAX {
        // (1 - 2^-q) 2^EMAX: q ones.
        let n = q.div_ceil(64) as usize;
        let mut m = vec![u64::MAX; n];
        let low = 64 * n as u64 - q;
        if low > 0 {
            m[0] &= !((1u64 << low) - 1);
        }
        return F {
            tag: r.tag,
            exp: EMAX,
            m,
        };
    }
    if r.exp < EMIN {
        return F::zero(r.neg());
    }
    r
}

/// One part of the naive form: the correctly rounded sum of three values.
fn sum3(t: [&F; 3], p: u64, rnd: Round) -> Part {
    let mut s = Terms::new();
    for x in t {
        s.push(&[&x.elem()], false);
    }
    F::run(p, |o| s.sum(o, p, rnd))
}

/// mpc_fma_naive.
fn naive(
    a: &(F, F),
    b: &(F, F),
    c: &(F, F),
    q: &Precs,
    pr: u64,
    pi: u64,
    rnd: CRound,
) -> [Part; 2] {
    let [(ar, ai), (br, bi), _] = *q;
    let rr = product(&a.0, &b.0, ar + br);
    let ii = product(&a.1, &b.1, ai + bi).negate();
    let ri = product(&a.0, &b.1, ar + bi);
    let ir = product(&a.1, &b.0, ai + br);
    [
        sum3([&rr, &ii, &c.0], pr, rnd.re),
        sum3([&ri, &ir, &c.1], pi, rnd.im),
    ]
}

/// `a*b + c` (mpc_fma), each part rounded to `pr`, `pi` bits in its mode
/// of `rnd`; `q` the operands' part precisions.
pub(crate) fn fma(
    a: &(F, F),
    b: &(F, F),
    c: &(F, F),
    q: &Precs,
    pr: u64,
    pi: u64,
    rnd: CRound,
) -> [Part; 2] {
    if !(fin(a) && fin(b) && fin(c)) {
        return naive(a, b, c, q, pr, pi, rnd);
    }
    let zz = CRound::both(Round::Zero);
    let mut wpre = pr + ceil_log2(pr) + 10;
    let mut wpim = pi + ceil_log2(pi) + 10;
    for i in 0..2 {
        let [re, im] = arith::mul(a, b, wpre, wpim, zz);
        let ab = (re.0, im.0);
        if ab.0.is_zero() || ab.1.is_zero() {
            break;
        }
        let (mut dre, mut dim) = (ab.0.exp, ab.1.exp);
        let [re, im] = arith::add(&ab, c, false, wpre, wpim, zz);
        let s = (re.0, im.0);
        if s.0.is_zero() || s.1.is_zero() {
            break;
        }
        dre -= s.0.exp;
        dim -= s.1.exp;
        let dre = if dre > 0 { dre + 1 } else { 1 };
        let dim = if dim > 0 { dim + 1 } else { 1 };
        let near = |r: Round| (r == Round::Nearest) as u64;
        let okre = dre <= wpre as i64 && can_round(&s.0, wpre as i64 - dre, pr + near(rnd.re));
        let okim = dim <= wpim as i64 && can_round(&s.1, wpim as i64 - dim, pi + near(rnd.im));
        if okre && okim {
            return [scalar::set(&s.0, pr, rnd.re), scalar::set(&s.1, pi, rnd.im)];
        }
        if i == 1 {
            break;
        }
        if !okre && dre > 1 {
            wpre += dre as u64;
        }
        if !okim && dim > 1 {
            wpim += dim as u64;
        }
    }
    naive(a, b, c, q, pr, pi, rnd)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ceil_log2_is_mpc_s() {
        assert_eq!(
            [1, 2, 3, 4, 5, 53, 64, 65].map(ceil_log2),
            [0, 1, 2, 2, 3, 6, 6, 7]
        );
    }

    #[test]
    fn can_round_near_a_breakpoint() {
        // b = 1.0110...0 (64 bits): within 2^-20 of b every value
        // truncates to 1.011 at 4 bits; at 3 bits too; not when the
        // error reaches the 4th bit's unit.
        let normal = crate::float::tag(crate::float::Class::Normal, false);
        let b = F {
            tag: normal,
            exp: 1,
            m: vec![0b1011u64 << 60],
        };
        assert!(
            !can_round(&b, 21, 4),
            "b itself is a breakpoint: b - eps truncates lower"
        );
        let b2 = F {
            tag: normal,
            exp: 1,
            m: vec![(0b1011u64 << 60) | (1 << 50)],
        };
        assert!(can_round(&b2, 21, 4));
        assert!(!can_round(&b2, 5, 4), "err <= prec + 1");
        assert!(!can_round(&b2, 12, 4), "the interval crosses 1.0111");
    }
}
