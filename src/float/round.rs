//! The one rounding step every operation ends with: an exact (or exact
//! plus sticky) mantissa is rounded to `p` bits in one of MPFR's modes, then
//! the exponent range is applied (overflow to Inf or the largest float,
//! underflow to zero or the smallest), exactly as MPFR's
//! `mpfr_round_raw` + `mpfr_check_range` do. The CUDA kernels must do these
//! same steps.

use super::{Class, EMAX, EMIN, NEG, tag};
use crate::error::{Error, Result};

/// MPFR's rounding modes.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Round {
    /// To nearest, ties to even (MPFR_RNDN).
    Nearest,
    /// Toward zero (MPFR_RNDZ).
    Zero,
    /// Toward +Inf (MPFR_RNDU).
    Up,
    /// Toward -Inf (MPFR_RNDD).
    Down,
    /// Away from zero (MPFR_RNDA).
    Away,
}

impl Round {
    pub const ALL: [Round; 5] = [
        Round::Nearest,
        Round::Zero,
        Round::Up,
        Round::Down,
        Round::Away,
    ];

    /// Parses MPFR's letter: N, Z, U, D or A (also RNDN.., any case).
    pub fn from_name(s: &str) -> Result<Round> {
        let t = s.trim().to_ascii_uppercase();
        let t = t.strip_prefix("RND").unwrap_or(&t);
        Ok(match t {
            "N" | "NEAREST" => Round::Nearest,
            "Z" | "ZERO" => Round::Zero,
            "U" | "UP" => Round::Up,
            "D" | "DOWN" => Round::Down,
            "A" | "AWAY" => Round::Away,
            _ => {
                return Err(Error::Invalid(format!(
                    "unknown rounding mode {s:?}: expected N, Z, U, D or A"
                )));
            }
        })
    }

    /// MPFR's letter.
    pub fn letter(self) -> char {
        match self {
            Round::Nearest => 'N',
            Round::Zero => 'Z',
            Round::Up => 'U',
            Round::Down => 'D',
            Round::Away => 'A',
        }
    }

    /// Does this mode round a value of sign `neg` toward zero (MPFR's
    /// MPFR_IS_LIKE_RNDZ)?
    pub(crate) fn like_zero(self, neg: bool) -> bool {
        match self {
            Round::Zero => true,
            Round::Down => !neg,
            Round::Up => neg,
            _ => false,
        }
    }

    /// Does this mode round a value of sign `neg` away from zero?
    pub(crate) fn like_away(self, neg: bool) -> bool {
        match self {
            Round::Away => true,
            Round::Up => !neg,
            Round::Down => neg,
            _ => false,
        }
    }

    /// The mode for the negated value (RNDU <-> RNDD).
    pub fn mirror(self) -> Round {
        match self {
            Round::Up => Round::Down,
            Round::Down => Round::Up,
            r => r,
        }
    }
}

/// Where one element's result goes.
pub(crate) struct Out<'a> {
    pub tag: &'a mut u8,
    pub exp: &'a mut i64,
    pub m: &'a mut [u64],
}

impl Out<'_> {
    /// A special value (zero, Inf or NaN) with zero limbs.
    pub fn special(&mut self, class: Class, neg: bool) {
        *self.tag = tag(class, neg);
        *self.exp = 0;
        self.m.fill(0);
    }
}

/// Ternary value of a rounding that increased (`inc`) or decreased the
/// magnitude of a value of sign `neg`.
#[inline]
fn ternary(inc: bool, neg: bool) -> i8 {
    if inc != neg { 1 } else { -1 }
}

/// Rounds the magnitude `0.src` (top bit of `src`'s top limb set, least
/// significant limb first) plus a sticky bit (some nonzero bits below `src`)
/// to `m.len()*64 >= p` bits kept as `p` bits. Returns (inexact, increased,
/// carried to the next power of two). `sticky` requires `64*src.len() >= p+2`
/// so that the round bit lies inside `src`.
#[inline]
pub(crate) fn round_mant(
    m: &mut [u64],
    p: u64,
    src: &[u64],
    sticky: bool,
    neg: bool,
    rnd: Round,
) -> (bool, bool, bool) {
    let n = m.len();
    let s = src.len();
    debug_assert!(src[s - 1] >> 63 == 1);
    debug_assert!(!sticky || 64 * s as u64 >= p + 2);
    let low = (64 * n as u64 - p) as u32;
    // Copy the top n limbs (zeros below a shorter src).
    for (i, mi) in m.iter_mut().enumerate() {
        *mi = if i + s >= n { src[i + s - n] } else { 0 };
    }
    let below = &src[..s.saturating_sub(n)];
    let (rb, st) = if low > 0 {
        let mask = (1u64 << low) - 1;
        let rb = (m[0] >> (low - 1)) & 1 == 1;
        let st = m[0] & (mask >> 1) != 0 || sticky || below.iter().any(|&x| x != 0);
        m[0] &= !mask;
        (rb, st)
    } else if let Some((&top, rest)) = below.split_last() {
        (
            top >> 63 == 1,
            top << 1 != 0 || sticky || rest.iter().any(|&x| x != 0),
        )
    } else {
        (false, sticky)
    };
    let inexact = rb || st;
    let inc = match rnd {
        Round::Nearest => rb && (st || (m[0] >> low) & 1 == 1),
        Round::Zero => false,
        Round::Up => inexact && !neg,
        Round::Down => inexact && neg,
        Round::Away => inexact,
    };
    let mut carry = false;
    if inc {
        let mut c = 1u64 << low;
        for x in m.iter_mut() {
            let (v, o) = x.overflowing_add(c);
            *x = v;
            if !o {
                c = 0;
                break;
            }
            c = 1;
        }
        if c != 0 {
            m[n - 1] = 1 << 63;
            carry = true;
        }
    }
    (inexact, inc, carry)
}

/// Rounds `(-1)^neg * 0.src * 2^e` (see [`round_mant`]) to `p` bits into
/// `out`, applies MPFR's exponent range, and returns the ternary value.
#[inline]
pub(crate) fn round_to(
    out: &mut Out,
    neg: bool,
    e: i64,
    src: &[u64],
    sticky: bool,
    p: u64,
    rnd: Round,
) -> i8 {
    let (inexact, inc, carry) = round_mant(out.m, p, src, sticky, neg, rnd);
    let e = e + carry as i64;
    let t = if inexact { ternary(inc, neg) } else { 0 };
    finish(out, neg, e, t, inc, p, rnd)
}

/// Rounds in place: `out.m` holds the top `n` limbs of the magnitude (top
/// bit set) and `lo` the next limb, whose bits are the round bit (when `p =
/// 64n`) and the sticky bits (any other nonzero bit: callers OR their
/// sticky bit into bit 0, which is never the round bit). Then as
/// [`round_to`]: MPFR's exponent range, the ternary value.
#[inline(always)]
pub(crate) fn round_lo(out: &mut Out, neg: bool, e: i64, lo: u64, p: u64, rnd: Round) -> i8 {
    let m = &mut *out.m;
    let n = m.len();
    let low = (64 * n as u64 - p) as u32;
    let (rb, st) = if low == 0 {
        (lo >> 63 != 0, lo << 1 != 0)
    } else {
        let mask = (1u64 << low) - 1;
        let rb = (m[0] >> (low - 1)) & 1 != 0;
        let st = m[0] & (mask >> 1) != 0 || lo != 0;
        m[0] &= !mask;
        (rb, st)
    };
    let mut e = e;
    let mut t = 0;
    let mut inc = false;
    if rb || st {
        inc = match rnd {
            Round::Nearest => rb && (st || (m[0] >> low) & 1 == 1),
            Round::Zero => false,
            Round::Up => !neg,
            Round::Down => neg,
            Round::Away => true,
        };
        if inc {
            let (v, mut c) = m[0].overflowing_add(1 << low);
            m[0] = v;
            for x in m[1..].iter_mut() {
                if !c {
                    break;
                }
                (*x, c) = x.overflowing_add(1);
            }
            if c {
                m[n - 1] = 1 << 63;
                e += 1;
            }
        }
        t = ternary(inc, neg);
    }
    if (EMIN..=EMAX).contains(&e) {
        *out.tag = Class::Normal as u8 | if neg { NEG } else { 0 };
        *out.exp = e;
        return t;
    }
    finish(out, neg, e, t, inc, p, rnd)
}

/// The exponent-range check after rounding (MPFR's mpfr_check_range):
/// `out.m` holds the rounded mantissa, `e` its unbounded exponent, `t` the
/// ternary value so far, `inc` whether rounding increased the magnitude.
pub(crate) fn finish(out: &mut Out, neg: bool, e: i64, t: i8, inc: bool, p: u64, rnd: Round) -> i8 {
    if e > EMAX {
        if rnd.like_zero(neg) {
            set_max(out, neg, p);
            return ternary(false, neg);
        }
        out.special(Class::Inf, neg);
        return ternary(true, neg);
    }
    if e < EMIN {
        let to_min = match rnd {
            // Ties to zero at half the smallest float: round to zero when the
            // unbounded rounding gave exactly 2^(EMIN-2) from a value not
            // above it, or anything smaller.
            Round::Nearest => {
                let pow2 = out.m[out.m.len() - 1] == 1 << 63
                    && out.m[..out.m.len() - 1].iter().all(|&x| x == 0);
                !(e < EMIN - 1 || (pow2 && (t == 0 || inc)))
            }
            r => r.like_away(neg),
        };
        if to_min {
            set_min(out, neg);
            return ternary(true, neg);
        }
        out.special(Class::Zero, neg);
        return ternary(false, neg);
    }
    *out.tag = Class::Normal as u8 | if neg { NEG } else { 0 };
    *out.exp = e;
    t
}

/// The largest finite float of precision `p`.
pub(crate) fn set_max(out: &mut Out, neg: bool, p: u64) {
    let low = (64 * out.m.len() as u64 - p) as u32;
    out.m.fill(u64::MAX);
    out.m[0] &= !((1u64 << low) - 1);
    *out.tag = Class::Normal as u8 | if neg { NEG } else { 0 };
    *out.exp = EMAX;
}

/// The smallest positive float (0.1b * 2^EMIN), with sign.
pub(crate) fn set_min(out: &mut Out, neg: bool) {
    out.m.fill(0);
    let n = out.m.len();
    out.m[n - 1] = 1 << 63;
    *out.tag = Class::Normal as u8 | if neg { NEG } else { 0 };
    *out.exp = EMIN;
}
