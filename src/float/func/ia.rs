//! Interval arithmetic with relative precision, for the functions composed
//! from the cores (hyperbolic and inverse functions, pow, atan2, agm):
//! closed intervals `[lo, hi] * 2^s` of integers, each operation rounded
//! outward and trimmed to about `w` significant bits, and the monotone cores
//! (exp, log, atan) applied at both ends of an interval. Every interval
//! provably contains the exact value (each step is an enclosure), and its
//! relative width is `O(2^-w)` times the conditioning of the formula, so
//! Ziv's loop terminates once the exact cases are decided before it. Where
//! a formula cancels (sinh near 0, ...) the caller adds the bits it loses.

use malachite_base::num::arithmetic::traits::{CeilingSqrt, DivRound, FloorSqrt, ShrRound};
use malachite_base::num::basic::traits::Zero;
use malachite_base::num::logic::traits::SignificantBits;
use malachite_base::rounding_modes::RoundingMode::{Ceiling, Floor};
use malachite_nz::integer::Integer;
use malachite_nz::natural::Natural;

use super::consts::{Const, fixed};
use super::{Eval, Func, Interval, core, mant};
use crate::float::round::{Out, Round, finish};
use crate::float::{Class, EMAX, EMIN, Elem, class_of};

/// A closed interval `[lo, hi] * 2^s`.
#[derive(Clone, Debug)]
pub(crate) struct Iv {
    pub lo: Integer,
    pub hi: Integer,
    pub s: i64,
}

fn bits(n: &Integer) -> u64 {
    n.unsigned_abs_ref().significant_bits()
}

impl Iv {
    pub fn exact(n: Integer, s: i64) -> Iv {
        Iv {
            lo: n.clone(),
            hi: n,
            s,
        }
    }

    pub fn int(n: i64) -> Iv {
        Iv::exact(Integer::from(n), 0)
    }

    /// A finite element exactly (zero: `[0, 0]`); `abs` drops the sign.
    pub fn elem(x: &Elem, abs: bool) -> Iv {
        if x.class != Class::Normal {
            return Iv::int(0);
        }
        let (m, sx) = mant(x);
        Iv::exact(Integer::from_sign_and_abs(abs || !x.neg, m), sx)
    }

    /// The constant `c` (pi, ln 2) at `w` bits: `(C - 2, C + 2) 2^-w`.
    pub fn constant(c: Const, w: u64) -> Iv {
        let v = Integer::from(fixed(c, w));
        Iv {
            lo: &v - Integer::from(2u32),
            hi: v + Integer::from(2u32),
            s: -(w as i64),
        }
    }

    fn max_bits(&self) -> u64 {
        bits(&self.lo).max(bits(&self.hi))
    }

    fn min_bits(&self) -> u64 {
        bits(&self.lo).min(bits(&self.hi))
    }

    /// At most `w` bits in the larger end, rounding outward.
    pub fn trim(mut self, w: u64) -> Iv {
        let b = self.max_bits();
        if b > w {
            let k = b - w;
            self.lo = (&self.lo).shr_round(k, Floor).0;
            self.hi = (&self.hi).shr_round(k, Ceiling).0;
            self.s += k as i64;
        }
        self
    }

    pub fn neg(self) -> Iv {
        Iv {
            lo: -self.hi,
            hi: -self.lo,
            s: self.s,
        }
    }

    /// `self * 2^k` (exact).
    pub fn shl(mut self, k: i64) -> Iv {
        self.s += k;
        self
    }

    /// Both intervals' ends at the smaller scale (exact).
    fn aligned(&self, b: &Iv) -> ([Integer; 4], i64) {
        let s = self.s.min(b.s);
        let (ka, kb) = ((self.s - s) as u64, (b.s - s) as u64);
        (
            [&self.lo << ka, &self.hi << ka, &b.lo << kb, &b.hi << kb],
            s,
        )
    }

    pub fn add(&self, b: &Iv, w: u64) -> Iv {
        // Far apart scales: widen the smaller operand to one unit of the
        // larger's trimmed scale instead of shifting by a huge amount.
        if let Some(r) = self.add_far(b, w) {
            return r;
        }
        let ([al, ah, bl, bh], s) = self.aligned(b);
        Iv {
            lo: al + bl,
            hi: ah + bh,
            s,
        }
        .trim(w)
    }

    /// `self + b` when one operand lies entirely below a unit `2^u`, `u =
    /// top(big) - w - 6`, and is much finer than it: the small one is
    /// replaced by the enclosing `[-1, 1]` (`[0, 1]`, `[-1, 0]` by sign) units
    /// and the big one rounded outward to that unit, instead of shifting by a
    /// huge amount.
    fn add_far(&self, b: &Iv, w: u64) -> Option<Iv> {
        let (big, small) = if self.top() >= b.top() {
            (self, b)
        } else {
            (b, self)
        };
        if small.max_bits() == 0 || big.max_bits() == 0 {
            return None;
        }
        let unit = big.top() - w as i64 - 6;
        if small.top() > unit || small.s >= unit - 64 {
            return None;
        }
        let (bl, bh) = if big.s >= unit {
            let k = (big.s - unit) as u64;
            (&big.lo << k, &big.hi << k)
        } else {
            let k = (unit - big.s) as u64;
            (
                (&big.lo).shr_round(k, Floor).0,
                (&big.hi).shr_round(k, Ceiling).0,
            )
        };
        let one = Integer::from(1u32);
        let sl = if small.lo < 0u32 {
            -&one
        } else {
            Integer::ZERO
        };
        let sh = if small.hi > 0u32 { one } else { Integer::ZERO };
        Some(
            Iv {
                lo: bl + sl,
                hi: bh + sh,
                s: unit,
            }
            .trim(w),
        )
    }

    pub fn sub(&self, b: &Iv, w: u64) -> Iv {
        self.add(&b.clone().neg(), w)
    }

    pub fn mul(&self, b: &Iv, w: u64) -> Iv {
        let s = self.s + b.s;
        let (lo, hi) = if self.lo >= 0u32 && b.lo >= 0u32 {
            // Both nonnegative (the common case): two products.
            (&self.lo * &b.lo, &self.hi * &b.hi)
        } else {
            let c = [
                &self.lo * &b.lo,
                &self.lo * &b.hi,
                &self.hi * &b.lo,
                &self.hi * &b.hi,
            ];
            (
                c.iter().min().unwrap().clone(),
                c.iter().max().unwrap().clone(),
            )
        };
        Iv { lo, hi, s }.trim(w)
    }

    /// `self / b` for `b` not containing zero.
    pub fn div(&self, b: &Iv, w: u64) -> Iv {
        debug_assert!(b.lo > 0u32 || b.hi < 0u32);
        if b.hi < 0u32 {
            return self.clone().neg().div(&b.clone().neg(), w);
        }
        let k = (w + 4 + b.max_bits()).saturating_sub(self.min_bits());
        // b > 0: the lower end divides by b.hi when a.lo >= 0, else by
        // b.lo; the upper end by b.lo when a.hi >= 0, else by b.hi.
        let dl = if self.lo >= 0u32 { &b.hi } else { &b.lo };
        let dh = if self.hi >= 0u32 { &b.lo } else { &b.hi };
        let lo = (&self.lo << k).div_round(dl, Floor).0;
        let hi = (&self.hi << k).div_round(dh, Ceiling).0;
        Iv {
            lo,
            hi,
            s: self.s - k as i64 - b.s,
        }
        .trim(w)
    }

    /// `sqrt(self)`, `self >= 0` (a negative lower end is taken as 0).
    pub fn sqrt(&self, w: u64) -> Iv {
        let mut a = self.clone().trim(2 * w + 4);
        let k = (2 * w + 4).saturating_sub(a.max_bits()) as i64;
        let k = k + (a.s - k).rem_euclid(2);
        a.s -= k;
        let lo = if a.lo > 0u32 {
            (a.lo.unsigned_abs_ref() << k as u64).floor_sqrt()
        } else {
            Natural::ZERO
        };
        let hi = (a.hi.unsigned_abs_ref() << k as u64).ceiling_sqrt();
        Iv {
            lo: Integer::from(lo),
            hi: Integer::from(hi),
            s: a.s / 2,
        }
        .trim(w)
    }

    /// The open interval `(lo - 1, hi + 1) 2^s` for [`super::round_interval`].
    pub fn open(self) -> Eval {
        let one = Integer::from(1u32);
        Eval::Approx(Interval {
            lo: self.lo - &one,
            hi: self.hi + one,
            s: self.s,
        })
    }

    pub fn from_interval(iv: Interval) -> Iv {
        Iv {
            lo: iv.lo,
            hi: iv.hi,
            s: iv.s,
        }
    }

    /// A rough `log2 |v|` of the larger end (`i64::MIN` for zero).
    pub fn top(&self) -> i64 {
        let b = self.max_bits();
        if b == 0 { i64::MIN } else { self.s + b as i64 }
    }

    /// The ends as f64 (saturating; for decisions with wide margins).
    pub fn ends_f64(&self) -> (f64, f64) {
        let f = |n: &Integer| -> f64 {
            let b = bits(n);
            if b == 0 {
                return 0.0;
            }
            let sh = b.saturating_sub(60);
            let t = i64::try_from(&(n >> sh)).unwrap_or(0) as f64;
            let e = (sh as i64 + self.s).clamp(-5000, 5000);
            t * 2f64.powi(e as i32)
        };
        (f(&self.lo), f(&self.hi))
    }
}

/// `f(n 2^s)` from the core at working precision `w` (as its own `p` too,
/// so its fast paths are `w` bits wide), as a closed interval; `None` where
/// the core has no interval (log of 0 or of a negative, exp beyond 2^32).
fn point(f: Func, n: &Integer, s: i64, w: u64) -> Option<Iv> {
    if *n == 0u32 {
        return match f {
            Func::Exp => Some(Iv::int(1)),
            Func::Atan => Some(Iv::int(0)),
            _ => None,
        };
    }
    let a = n.unsigned_abs_ref();
    let b = a.significant_bits();
    let nl = b.div_ceil(64);
    let v = (a << (64 * nl - b)).to_limbs_asc();
    let x = Elem {
        class: Class::Normal,
        neg: *n < 0u32,
        exp: s + b as i64,
        limbs: &v,
    };
    let mut m = vec![0u64; w.div_ceil(64) as usize];
    let (mut tag, mut e) = (0u8, 0i64);
    let mut out = Out {
        tag: &mut tag,
        exp: &mut e,
        m: &mut m,
    };
    match core::eval(f, &mut out, &x, w, w, Round::Nearest) {
        Eval::Approx(iv) => Some(Iv::from_interval(iv)),
        Eval::Done(0) => match class_of(tag) {
            Class::Zero => Some(Iv::int(0)),
            Class::Normal => {
                let neg = tag & crate::float::NEG != 0;
                let mn = Natural::from_limbs_asc(&m);
                let sc = e - 64 * m.len() as i64;
                Some(Iv::exact(Integer::from_sign_and_abs(!neg, mn), sc))
            }
            _ => None,
        },
        Eval::Done(_) => None,
    }
}

/// An increasing core function `f` (exp, log, atan) over the interval:
/// `[f(lo) down, f(hi) up]`. One core call: `f(hi) <= f(lo) + d sup f'`
/// with `d = hi - lo`, bounded by `f(lo) 2d` for exp (`e^d - 1 <= 2d` for
/// `d <= 1`), `d / lo` for log, `d / (1 + m^2)` for atan (m the end nearest
/// 0), each rounded up; two calls
/// when the interval is wide.
pub(crate) fn mono(f: Func, x: &Iv, w: u64) -> Option<Iv> {
    let a = point(f, &x.lo, x.s, w)?;
    if x.lo == x.hi {
        return Some(a);
    }
    let d = Iv::exact(&x.hi - &x.lo, x.s);
    let inc = match f {
        Func::Exp if d.top() <= 0 && a.hi > 0u32 => {
            Some(Iv::exact(a.hi.clone(), a.s).mul(&d, w + 8).shl(1))
        }
        Func::Log if x.lo > 0u32 => Some(d.div(&Iv::exact(x.lo.clone(), x.s), w + 8)),
        Func::Atan => {
            // sup 1/(1 + t^2) over the interval: at the end nearest 0.
            let m = if x.lo > 0u32 {
                Some(&x.lo)
            } else if x.hi < 0u32 {
                Some(&x.hi)
            } else {
                None
            };
            Some(match m {
                Some(m) => {
                    let mi = Iv::exact(m.clone(), x.s);
                    let den = mi.mul(&mi, w + 8).add(&Iv::int(1), w + 8);
                    d.div(&den, w + 8)
                }
                None => d,
            })
        }
        _ => None,
    };
    let b = match inc {
        Some(inc) => {
            let up = Iv::exact(a.hi.clone(), a.s).add(&Iv::exact(inc.hi, inc.s), w + 8);
            Iv {
                lo: up.hi.clone(),
                hi: up.hi,
                s: up.s,
            }
        }
        None => point(f, &x.hi, x.s, w)?,
    };
    let s = a.s.min(b.s);
    Some(Iv {
        lo: a.lo << (a.s - s) as u64,
        hi: b.hi << (b.s - s) as u64,
        s,
    })
}

/// Bits of `w` (a log2 bound used in guard bits).
pub(crate) fn lg(w: u64) -> u64 {
    64 - w.leading_zeros() as u64
}

/// MPFR's fast path for odd functions at tiny `x`: with `L = max(p+3, bits
/// of x)` and `2 ex <= -L`, a perturbation below `|x|^3` is less than one
/// unit `2^(ex-L)`: the open interval `(X-1, X)` (toward zero) or `(X,
/// X+1)` (away from zero), signed. `None` when `x` is not that small.
pub(crate) fn tiny_odd(x: &Elem, p: u64, away: bool) -> Option<Eval> {
    let nb = 64 * x.limbs.len() as u64;
    let l = (p + 3).max(nb);
    if 2 * x.exp > -(l as i64) {
        return None;
    }
    Some(beside(x, l, away))
}

/// `x` moved by less than one unit `2^(ex-L)` toward zero or away from it
/// (`L >= bits of x`), as an open interval.
pub(crate) fn beside(x: &Elem, l: u64, away: bool) -> Eval {
    let (m, _) = mant(x);
    let nb = 64 * x.limbs.len() as u64;
    let xm = Integer::from(m << (l - nb));
    let one = Integer::from(1u32);
    let (lo, hi) = if away {
        (xm.clone(), xm + one)
    } else {
        (&xm - one, xm)
    };
    let (lo, hi) = if x.neg { (-hi, -lo) } else { (lo, hi) };
    Eval::Approx(Interval {
        lo,
        hi,
        s: x.exp - l as i64,
    })
}

/// [`tiny_odd`] for the exact dyadic `+-m 2^s` (`m > 0`).
pub(crate) fn tiny_odd_n(m: &Natural, s: i64, neg: bool, p: u64, away: bool) -> Option<Eval> {
    let b = m.significant_bits();
    let e = s + b as i64;
    let l = (p + 3).max(b);
    if 2 * e > -(l as i64) {
        return None;
    }
    let xm = Integer::from(m << (l - b));
    let one = Integer::from(1u32);
    let (lo, hi) = if away {
        (xm.clone(), xm + one)
    } else {
        (&xm - one, xm)
    };
    let (lo, hi) = if neg { (-hi, -lo) } else { (lo, hi) };
    Some(Eval::Approx(Interval {
        lo,
        hi,
        s: e - l as i64,
    }))
}

/// `(1 - 2^-(p+2), 1)` or `(1, 1 + 2^-(p+2))`, negated when `neg`.
pub(crate) fn near_one(p: u64, above: bool, neg: bool) -> Eval {
    let l = p + 2;
    let u = Integer::from(Natural::power_of_2(l));
    let one = Integer::from(1u32);
    let (lo, hi) = if above {
        (u.clone(), u + one)
    } else {
        (&u - one, u)
    };
    let (lo, hi) = if neg { (-hi, -lo) } else { (lo, hi) };
    Eval::Approx(Interval {
        lo,
        hi,
        s: -(l as i64),
    })
}

/// Overflow (`big`) or underflow of a result of sign `neg` whose exponent
/// is far outside the range.
pub(crate) fn out_of_range(out: &mut Out, neg: bool, big: bool, p: u64, rnd: Round) -> Eval {
    let n = out.m.len();
    out.m.fill(0);
    out.m[n - 1] = 1 << 63;
    let e = if big { EMAX + 100 } else { EMIN - 100 };
    Eval::Done(finish(out, neg, e, -1, false, p, rnd))
}

/// `|x| >= c` for a normal `x` and a small positive integer `c`.
pub(crate) fn abs_at_least(x: &Elem, c: u64) -> bool {
    if x.exp > 64 {
        return true;
    }
    if x.exp <= 0 {
        return false;
    }
    // floor(|x|) from the top limb and the rest.
    let (m, sx) = mant(x);
    let int = if sx >= 0 {
        m << sx as u64
    } else {
        m >> (-sx) as u64
    };
    int >= c
}

/// `|x|` compared with 1: Less, Equal or Greater.
pub(crate) fn cmp_one(x: &Elem) -> std::cmp::Ordering {
    use std::cmp::Ordering::*;
    if x.exp <= 0 {
        return Less;
    }
    if x.exp >= 2 {
        return Greater;
    }
    // exp == 1: |x| in [1, 2); equal to 1 iff the mantissa is 1000...
    let nl = x.limbs.len();
    if x.limbs[nl - 1] == 1 << 63 && x.limbs[..nl - 1].iter().all(|&l| l == 0) {
        Equal
    } else {
        Greater
    }
}

use malachite_base::num::arithmetic::traits::PowerOf2;
