//! An independent reference for the complex functions: each part of
//! `f(a + ib)` as a value with a proven absolute error bound, in exact
//! rational arithmetic over the real reference functions
//! ([`crate::float::func::reference`], evaluated at a much higher working
//! precision), by formulas other than the library's where possible (for
//! example `tan = sin / cos` from exponentials, `asin z = -i log(iz +
//! sqrt(1 - z^2))`). A part is decided when both ends of its interval round
//! alike. Used by the tests and by `mparray bench func`'s checks.

use std::cmp::Ordering;

use malachite_base::num::arithmetic::traits::{Abs, PowerOf2};
use malachite_base::rounding_modes::RoundingMode;
use malachite_float::{ComparableFloatRef, Float};
use malachite_q::Rational;

use super::CFunc;
use crate::float::func::reference::{Approx, reference_at, reference_const};
use crate::float::func::{Const, Func};
use crate::float::{Round, to_rounding_mode};

fn rm(r: Round) -> RoundingMode {
    to_rounding_mode(r)
}

fn rat(f: &Float) -> Rational {
    Rational::try_from(f).expect("a finite float")
}

/// A value with an absolute error bound, in exact rational arithmetic.
#[derive(Clone, Debug)]
pub struct A {
    /// The value.
    pub v: Rational,
    /// A bound on its absolute error.
    pub e: Rational,
}

impl A {
    pub fn of(a: &Approx) -> A {
        A {
            v: rat(&a.v),
            e: rat(&a.err),
        }
    }
    pub fn add(&self, o: &A) -> A {
        A {
            v: &self.v + &o.v,
            e: &self.e + &o.e,
        }
    }
    pub fn sub(&self, o: &A) -> A {
        A {
            v: &self.v - &o.v,
            e: &self.e + &o.e,
        }
    }
    pub fn neg(&self) -> A {
        A {
            v: -&self.v,
            e: self.e.clone(),
        }
    }
    pub fn half(&self) -> A {
        A {
            v: &self.v / Rational::from(2u32),
            e: &self.e / Rational::from(2u32),
        }
    }
    pub fn mul(&self, o: &A) -> A {
        A {
            v: &self.v * &o.v,
            e: (&self.v).abs() * &o.e + (&o.v).abs() * &self.e + &self.e * &o.e,
        }
    }
    /// None when the divisor's interval holds 0.
    pub fn div(&self, o: &A) -> Option<A> {
        let d = (&o.v).abs() - &o.e;
        if d <= 0u32 {
            return None;
        }
        let v = &self.v / &o.v;
        let e = (&self.e + (&v).abs() * &o.e) / d;
        Some(A { v, e })
    }
    /// The rounding if both ends agree.
    pub fn round(&self, p: u64, r: Round) -> Option<(Float, Ordering)> {
        let lo = Float::from_rational_prec_round(&self.v - &self.e, p, rm(r));
        let hi = Float::from_rational_prec_round(&self.v + &self.e, p, rm(r));
        (ComparableFloatRef(&lo.0) == ComparableFloatRef(&hi.0)
            && lo.1 == hi.1
            && lo.1 != Ordering::Equal)
            .then_some(lo)
    }
}

/// A complex reference: (real part, imaginary part).
pub type C = (A, A);

fn cdiv(x: &C, y: &C) -> Option<C> {
    let den = y.0.mul(&y.0).add(&y.1.mul(&y.1));
    let re = x.0.mul(&y.0).add(&x.1.mul(&y.1)).div(&den)?;
    let im = x.1.mul(&y.0).sub(&x.0.mul(&y.1)).div(&den)?;
    Some((re, im))
}

/// The reference value of `f(a + ib)` at working precision `pp`, by
/// formulas other than the library's where possible.
pub fn reference(f: CFunc, a: &Float, b: &Float, pp: u64) -> Option<C> {
    let real = |g: Func, x: &Float| A::of(&reference_at(g, x, pp));
    let neg = |x: &Float| -x.clone();
    // e^(a+ib) as (e^a cos b, e^a sin b).
    let cexp = |x: &Float, y: &Float| {
        let e = real(Func::Exp, x);
        (e.mul(&real(Func::Cos, y)), e.mul(&real(Func::Sin, y)))
    };
    let (ra, rb) = (rat(a), rat(b));
    Some(match f {
        CFunc::Exp => cexp(a, b),
        CFunc::Sinh | CFunc::Cosh | CFunc::Tanh => {
            let (p, m) = (cexp(a, b), cexp(&neg(a), &neg(b)));
            let s = (p.0.sub(&m.0).half(), p.1.sub(&m.1).half());
            let c = (p.0.add(&m.0).half(), p.1.add(&m.1).half());
            match f {
                CFunc::Sinh => s,
                CFunc::Cosh => c,
                _ => cdiv(&s, &c)?,
            }
        }
        CFunc::Sin | CFunc::Cos | CFunc::Tan => {
            // sin z = (e^iz - e^-iz) / 2i, cos z = (e^iz + e^-iz) / 2.
            let (p, m) = (cexp(&neg(b), a), cexp(b, &neg(a)));
            let s = (p.1.sub(&m.1).half(), p.0.sub(&m.0).half().neg());
            let c = (p.0.add(&m.0).half(), p.1.add(&m.1).half());
            match f {
                CFunc::Sin => s,
                CFunc::Cos => c,
                _ => cdiv(&s, &c)?,
            }
        }
        CFunc::Atan => {
            // (i/2) log(w), w = (i + z) / (i - z) (exact rational): Re =
            // -arg(w) / 2, Im = log|w| / 2; w's parts rounded to floats for
            // the references move arg by < 4 2^-pp and log|w|^2 by < 2 2^-pp.
            let one = Rational::from(1u32);
            let (nr, ni) = (ra.clone(), &one + &rb);
            let (dr, di) = (-&ra, &one - &rb);
            let den = &dr * &dr + &di * &di;
            let wr = (&nr * &dr + &ni * &di) / &den;
            let wi = (&ni * &dr - &nr * &di) / &den;
            let n = &wr * &wr + &wi * &wi;
            let eps = Rational::power_of_2(-(pp as i64));
            let fw = |v: &Rational| Float::from_rational_prec(v.clone(), pp).0;
            let mut l = real(Func::Log, &fw(&n));
            l.e += Rational::from(2u32) * &eps;
            let mut t = arg_ref(&fw(&wr), &fw(&wi), pp)?;
            t.e += Rational::from(4u32) * &eps;
            (t.half().neg(), l.half().half())
        }
        CFunc::Log => {
            let n = &ra * &ra + &rb * &rb;
            let re = real(Func::Log, &Float::from_rational_prec(n, 8192).0).half();
            (re, arg_ref(a, b, pp)?)
        }
        CFunc::Sqrt => {
            let z = (A { v: ra, e: zero() }, A { v: rb, e: zero() });
            let l = log_c(&z, pp)?;
            exp_c(&(l.0.half(), l.1.half()), pp)
        }
        CFunc::Asin | CFunc::Acos => {
            // asin z = -i log(i z + sqrt(1 - z^2)), acos z = pi/2 - asin z.
            let one = Rational::from(1u32);
            let u = (
                A {
                    v: &one - &ra * &ra + &rb * &rb,
                    e: zero(),
                },
                A {
                    v: -(Rational::from(2u32) * &ra * &rb),
                    e: zero(),
                },
            );
            let l = log_c(&u, pp)?;
            let s = exp_c(&(l.0.half(), l.1.half()), pp);
            let v = (
                s.0.sub(&A { v: rb, e: zero() }),
                s.1.add(&A { v: ra, e: zero() }),
            );
            let l = log_c(&v, pp)?;
            let asin = (l.1, l.0.neg());
            if f == CFunc::Asin {
                asin
            } else {
                let hp = A::of(&reference_const(Const::Pi, pp)).half();
                (hp.sub(&asin.0), asin.1.neg())
            }
        }
    })
}

fn zero() -> Rational {
    Rational::from(0u32)
}

/// log of an approximate complex value (None when too close to 0 or an
/// axis for the bounds).
fn log_c(v: &C, pp: u64) -> Option<C> {
    let fl = |x: &Rational| Float::from_rational_prec(x.clone(), pp).0;
    let n = v.0.mul(&v.0).add(&v.1.mul(&v.1));
    let fnn = fl(&n.v);
    let c = (&n.v - rat(&fnn)).abs();
    let lo = &n.v - &n.e - &c;
    if lo <= 0u32 {
        return None;
    }
    // |log x - log y| <= |x - y| / min(x, y).
    let mut l = A::of(&reference_at(Func::Log, &fnn, pp));
    l.e = &l.e + (&n.e + &c) / &lo;
    let (fr, fi) = (fl(&v.0.v), fl(&v.1.v));
    if fr == 0u32 || fi == 0u32 {
        return None;
    }
    let dr = (&v.0.v - rat(&fr)).abs() + &v.0.e;
    let di = (&v.1.v - rat(&fi)).abs() + &v.1.e;
    // |arg x - arg y| <= |x - y| / min(|x|, |y|) (on one side of the cut).
    let m = (&v.0.v).abs().max((&v.1.v).abs()) - (&dr).max(&di).clone();
    if m <= 0u32 {
        return None;
    }
    let mut t = arg_ref(&fr, &fi, pp)?;
    t.e = &t.e + (&dr + &di) / &m;
    Some((l.half(), t))
}

/// exp of an approximate complex value: the parts are rounded to floats for
/// the real functions; their total errors move exp by at most 3 |d| e^x
/// (small d), cos and sin by |d|.
fn exp_c(v: &C, pp: u64) -> C {
    let fr = Float::from_rational_prec(v.0.v.clone(), pp).0;
    let fi = Float::from_rational_prec(v.1.v.clone(), pp).0;
    let dr = (&v.0.v - rat(&fr)).abs() + &v.0.e;
    let di = (&v.1.v - rat(&fi)).abs() + &v.1.e;
    let mut e = A::of(&reference_at(Func::Exp, &fr, pp));
    e.e = &e.e + Rational::from(3u32) * &dr * ((&e.v).abs() + &e.e);
    let mut c = A::of(&reference_at(Func::Cos, &fi, pp));
    let mut s = A::of(&reference_at(Func::Sin, &fi, pp));
    c.e = &c.e + &di;
    s.e = &s.e + &di;
    (e.mul(&c), e.mul(&s))
}

/// atan2(b, a) for nonzero finite parts: atan(b/a) (+- pi).
pub fn arg_ref(a: &Float, b: &Float, pp: u64) -> Option<A> {
    let q = rat(b) / rat(a);
    let t = Float::from_rational_prec(q.clone(), pp).0;
    let mut r = A::of(&reference_at(Func::Atan, &t, pp));
    // atan' <= 1: the quotient's rounding error carries over.
    r.e += (&q - rat(&t)).abs();
    if rat(a) < 0u32 {
        let pi = A::of(&reference_const(Const::Pi, pp));
        r = if rat(b) > 0u32 {
            r.add(&pi)
        } else {
            r.sub(&pi)
        };
    }
    Some(r)
}

/// The reference value of `x^y = exp(y log x)` (principal branch) for parts
/// of `x` that are nonzero and finite and finite `y`.
pub fn reference_pow(x: (&Float, &Float), y: (&Float, &Float), pp: u64) -> Option<C> {
    let point = |f: &Float| A {
        v: rat(f),
        e: zero(),
    };
    let l = log_c(&(point(x.0), point(x.1)), pp)?;
    let (c, d) = (point(y.0), point(y.1));
    let t = (c.mul(&l.0).sub(&d.mul(&l.1)), c.mul(&l.1).add(&d.mul(&l.0)));
    Some(exp_c(&t, pp))
}
