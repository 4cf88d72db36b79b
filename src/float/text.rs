//! Decimal, hexadecimal (and binary `0b` input) text: input correctly
//! rounded as `mpfr_set_str`
//! (`mpfr_strtofr`) rounds it, decimal output as `mpfr_get_str` rounds it
//! (printed in `%.{D-1}Re` style: `-1.2345e-07`), and exact hex output in
//! MPFR's `%Ra` style (`0x1.8p+3`: the first hex digit takes the bits down
//! to a binary exponent that is a multiple of 4, trailing zeros dropped).
//!
//! Decimal conversions are exact big-integer computations (malachite-nz):
//! correct for every input, but slow for decimal exponents in the hundreds
//! of millions (a Ziv-style loop is left for later, see notes/float.md).

use std::str::FromStr;
use std::sync::atomic::{AtomicUsize, Ordering};

use malachite_base::num::arithmetic::traits::{DivRem, Pow};
use malachite_base::num::basic::traits::One;
use malachite_base::num::conversion::traits::FromStringBase;
use malachite_base::num::logic::traits::SignificantBits;
use malachite_nz::natural::Natural;
use rayon::prelude::*;

use super::convert::round_int;
use super::ops::build;
use super::round::{Out, Round, finish};
use super::{Class, CpuFloats, EMAX, EMIN, Elem, check_prec};
use crate::error::{Error, Result};

/// log10(2), for digit counts and exponent estimates.
use std::f64::consts::LOG10_2;

/// The number of decimal digits `mpfr_get_str` prints for `n = 0`:
/// `1 + ceil(p * log10(2))`, enough to read the value back.
pub fn default_digits(prec: u64) -> usize {
    1 + (prec as f64 * LOG10_2).ceil() as usize
}

/// Parses one number and rounds it into `out`; returns the ternary value.
pub(crate) fn parse_into(
    s: &str,
    out: &mut Out,
    p: u64,
    rnd: Round,
) -> std::result::Result<i8, String> {
    let t = s.trim();
    if t.is_empty() {
        return Err("empty".into());
    }
    let (neg, body) = match t.as_bytes()[0] {
        b'-' => (true, &t[1..]),
        b'+' => (false, &t[1..]),
        _ => (false, t),
    };
    let lower = body.to_ascii_lowercase();
    match lower.as_str() {
        "inf" | "infinity" | "@inf@" => {
            out.special(Class::Inf, neg);
            return Ok(0);
        }
        "nan" | "@nan@" => {
            out.special(Class::NaN, false);
            return Ok(0);
        }
        // MPFR's `nan(chars)`: letters, digits and `_` in the parentheses.
        l if l
            .strip_prefix("nan(")
            .and_then(|r| r.strip_suffix(')'))
            .is_some_and(|c| c.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'_')) =>
        {
            out.special(Class::NaN, false);
            return Ok(0);
        }
        _ => {}
    }
    if let Some(h) = lower.strip_prefix("0x") {
        parse_pow2(h, 4, neg, out, p, rnd)
    } else if let Some(h) = lower.strip_prefix("0b") {
        parse_pow2(h, 1, neg, out, p, rnd)
    } else {
        parse_dec(&lower, neg, out, p, rnd)
    }
}

/// Splits `mant[.frac]` into its digit string and the number of fraction
/// digits; checks the digits with `ok`.
fn split_mantissa(
    m: &str,
    ok: impl Fn(u8) -> bool,
) -> std::result::Result<(String, usize), String> {
    let (ip, fp) = match m.split_once('.') {
        Some((a, b)) => (a, b),
        None => (m, ""),
    };
    if ip.is_empty() && fp.is_empty() {
        return Err("no digits".into());
    }
    if let Some(c) = ip.bytes().chain(fp.bytes()).find(|&c| !ok(c)) {
        return Err(format!("unexpected character {:?}", c as char));
    }
    Ok((format!("{ip}{fp}"), fp.len()))
}

/// A decimal exponent, saturating far outside any possible range.
fn parse_exp(e: &str) -> std::result::Result<i64, String> {
    let (neg, d) = match e.as_bytes().first() {
        Some(b'-') => (true, &e[1..]),
        Some(b'+') => (false, &e[1..]),
        _ => (false, e),
    };
    if d.is_empty() || !d.bytes().all(|c| c.is_ascii_digit()) {
        return Err(format!("bad exponent {e:?}"));
    }
    let mut v: i64 = 0;
    for c in d.bytes() {
        v = v
            .saturating_mul(10)
            .saturating_add((c - b'0') as i64)
            .min(1 << 62);
    }
    Ok(if neg { -v } else { v })
}

/// A hex (`bits` = 4) or binary (`bits` = 1) float: digits with an
/// optional point, and an optional exponent: `p[+-]D` (a power of two), or
/// as MPFR also reads, `@[+-]D` (a power of the base) and in binary
/// `e[+-]D`.
fn parse_pow2(
    h: &str,
    bits: u32,
    neg: bool,
    out: &mut Out,
    p: u64,
    rnd: Round,
) -> std::result::Result<i8, String> {
    // `p`: a power of two; `@` (and `e` in binary): a power of the base.
    let (m, e) = match h
        .find(['p', '@'])
        .or_else(|| h.find('e').filter(|_| bits == 1))
    {
        Some(i) if h.as_bytes()[i] == b'p' => (&h[..i], parse_exp(&h[i + 1..])?),
        Some(i) => (&h[..i], parse_exp(&h[i + 1..])?.saturating_mul(bits as i64)),
        None => (h, 0),
    };
    let (digits, frac) = if bits == 4 {
        split_mantissa(m, |c| c.is_ascii_hexdigit())?
    } else {
        split_mantissa(m, |c| c == b'0' || c == b'1')?
    };
    let v = Natural::from_string_base(1 << bits, &digits).ok_or("bad digits")?;
    if v == 0u32 {
        out.special(Class::Zero, neg);
        return Ok(0);
    }
    let e2 = e.saturating_sub(bits as i64 * frac as i64);
    Ok(round_int(
        out,
        neg,
        &mut v.to_limbs_asc(),
        e2,
        false,
        p,
        rnd,
    ))
}

fn parse_dec(
    d: &str,
    neg: bool,
    out: &mut Out,
    p: u64,
    rnd: Round,
) -> std::result::Result<i8, String> {
    let (m, e) = match d.find(['e', '@']) {
        Some(i) => (&d[..i], parse_exp(&d[i + 1..])?),
        None => (d, 0),
    };
    let (digits, frac) = split_mantissa(m, |c| c.is_ascii_digit())?;
    let digits = digits.trim_start_matches('0');
    if digits.is_empty() {
        out.special(Class::Zero, neg);
        return Ok(0);
    }
    // value = D * 10^k with D of L digits: 10^(k+L-1) <= value < 10^(k+L).
    let k = e.saturating_sub(frac as i64);
    let l = digits.len() as i64;
    // 2^EMAX < 10^323228497 and 10^-323228498 < 2^(EMIN-2): far outside,
    // the result is decided without the exact value.
    if k.saturating_add(l - 1) >= 323_228_497 {
        return Ok(finish(out, neg, EMAX + 1, 1, true, p, rnd));
    }
    if k.saturating_add(l) <= -323_228_498 {
        return Ok(finish(out, neg, EMIN - 2, -1, false, p, rnd));
    }
    let dv = Natural::from_str(digits).map_err(|_| "bad digits".to_string())?;
    // Large decimal exponents: bounds of D * 10^k at a working precision
    // decide the rounding (the exact value has more than p+1 significant
    // bits there, so it is never on a rounding boundary).
    if k.unsigned_abs() > (3 * l as u64).max(p + 2).max(EXACT_DEC_EXP) {
        let mut w = p + 128 + dv.significant_bits();
        for _ in 0..4 {
            if let Some(t) = parse_bounds(&dv, k, neg, out, p, rnd, w) {
                return Ok(t);
            }
            w *= 2;
        }
    }
    Ok(parse_exact(dv, k, neg, out, p, rnd))
}

/// Decimal exponents up to this size are converted exactly at once.
const EXACT_DEC_EXP: u64 = 2000;

/// `D * 10^k` rounded exactly with big integers.
fn parse_exact(dv: Natural, k: i64, neg: bool, out: &mut Out, p: u64, rnd: Round) -> i8 {
    let ten = Natural::from(10u32);
    if k >= 0 {
        let v = dv * (&ten).pow(k as u64);
        return round_int(out, neg, &mut v.to_limbs_asc(), 0, false, p, rnd);
    }
    let den = ten.pow((-k) as u64);
    let shift = (p + 66 + den.significant_bits()).saturating_sub(dv.significant_bits());
    let (q, r) = (dv << shift).div_rem(&den);
    round_int(
        out,
        neg,
        &mut q.to_limbs_asc(),
        -(shift as i64),
        r != 0u32,
        p,
        rnd,
    )
}

/// Lower and upper bounds `lo.0 * 2^lo.1 <= 5^e <= hi.0 * 2^hi.1`, the
/// mantissas kept to at most `w` bits (truncated down, rounded up).
fn pow5_bounds(e: u64, w: u64) -> ((Natural, i64), (Natural, i64)) {
    fn down((m, g): (Natural, i64), w: u64) -> (Natural, i64) {
        let b = m.significant_bits();
        if b <= w {
            return (m, g);
        }
        (m >> (b - w), g + (b - w) as i64)
    }
    fn up((m, g): (Natural, i64), w: u64) -> (Natural, i64) {
        let b = m.significant_bits();
        if b <= w {
            return (m, g);
        }
        let s = b - w;
        let t = &m >> s;
        let exact = (&t << s) == m;
        (if exact { t } else { t + Natural::ONE }, g + s as i64)
    }
    let (mut lo, mut hi) = ((Natural::ONE, 0i64), (Natural::ONE, 0i64));
    for i in (0..64 - e.leading_zeros()).rev() {
        lo = down((&lo.0 * &lo.0, 2 * lo.1), w);
        hi = up((&hi.0 * &hi.0, 2 * hi.1), w);
        if (e >> i) & 1 == 1 {
            lo = down((lo.0 * Natural::from(5u32), lo.1), w);
            hi = up((hi.0 * Natural::from(5u32), hi.1), w);
        }
    }
    (lo, hi)
}

/// `n * 2^s`, floored (`s` may be negative).
fn shl_floor(n: Natural, s: i64) -> Natural {
    if s >= 0 {
        n << (s as u64)
    } else {
        n >> ((-s) as u64)
    }
}

/// `n * 2^s`, rounded up.
fn shl_ceil(n: Natural, s: i64) -> Natural {
    if s >= 0 {
        return n << (s as u64);
    }
    let t = &n >> ((-s) as u64);
    if (&t << ((-s) as u64)) == n {
        t
    } else {
        t + Natural::ONE
    }
}

/// Rounds `D * 10^k` from bounds at working precision `w`: both ends,
/// rounded with a sticky bit, must give the same float and ternary value.
/// None when they differ (try a higher precision).
#[allow(clippy::too_many_arguments)]
fn parse_bounds(
    dv: &Natural,
    k: i64,
    neg: bool,
    out: &mut Out,
    p: u64,
    rnd: Round,
    w: u64,
) -> Option<i8> {
    let (lo5, hi5) = pow5_bounds(k.unsigned_abs(), w);
    // (mantissa, binary exponent) of the lower and upper bounds.
    let (l, h) = if k > 0 {
        ((dv * &lo5.0, lo5.1 + k), (dv * &hi5.0, hi5.1 + k))
    } else {
        let a = k.unsigned_abs() as i64;
        let sh = (w + 64 + hi5.0.significant_bits()) as i64 - dv.significant_bits() as i64;
        let num = shl_floor(dv.clone(), sh.max(0));
        let sh = sh.max(0);
        let lq = &num / &hi5.0;
        let (hq, hr) = num.div_rem(&lo5.0);
        let hq = if hr == 0u32 { hq } else { hq + Natural::ONE };
        ((lq, -sh - hi5.1 - a), (hq, -sh - lo5.1 - a))
    };
    let n = out.m.len();
    let round = |(m, e): (Natural, i64)| {
        let (mut t, mut x) = (0u8, 0i64);
        let mut limbs = vec![0u64; n];
        let mut o = Out {
            tag: &mut t,
            exp: &mut x,
            m: &mut limbs,
        };
        let tern = round_int(&mut o, neg, &mut m.to_limbs_asc(), e, true, p, rnd);
        (t, x, limbs, tern)
    };
    let a = round(l);
    let b = round(h);
    if a != b {
        return None;
    }
    *out.tag = a.0;
    *out.exp = a.1;
    out.m.copy_from_slice(&a.2);
    Some(a.3)
}

/// `mpfr_get_str(.., 10, digits, x, rnd)`: the digits (without sign) and
/// the exponent `e` with `x ~ 0.d1d2.. * 10^e`, for a normal element.
pub fn get_str_digits(x: &Elem, digits: usize, rnd: Round) -> (String, i64) {
    debug_assert!(x.class == Class::Normal);
    let nd = digits.max(1) as i64;
    let m = Natural::from_limbs_asc(x.limbs);
    let b = x.exp - 64 * x.limbs.len() as i64;
    // floor(log10 |x|) is about (exp - 1) * log10(2); fixed up below.
    let mut k = ((x.exp - 1) as f64 * LOG10_2).floor() as i64 - nd + 1;
    let ten = Natural::from(10u32);
    let lo = (&ten).pow(nd as u64 - 1);
    let hi = &lo * &ten;
    // Far from 1 the exact quotient is huge: decide from bounds first.
    let mut bounded = b.unsigned_abs().max(4 * k.unsigned_abs()) > EXACT_BITS;
    let mut w = (3.33 * nd as f64) as u64 + 192;
    let mut tries = 0;
    loop {
        let (mut q, inc) = if bounded {
            match digits_bounds(&m, b, k, x.neg, rnd, w) {
                Some((a, inc)) => (a, inc),
                None => {
                    tries += 1;
                    w *= 2;
                    bounded = tries < 4;
                    continue;
                }
            }
        } else {
            let (mut num, mut den) = (m.clone(), Natural::ONE);
            if b >= 0 {
                num <<= b as u64;
            } else {
                den <<= (-b) as u64;
            }
            if k >= 0 {
                den *= (&ten).pow(k as u64);
            } else {
                num *= (&ten).pow((-k) as u64);
            }
            let (q, r) = num.div_rem(&den);
            let inexact = r != 0u32;
            let inc = match rnd {
                Round::Nearest => {
                    let twice = r << 1u32;
                    twice > den || (twice == den && q.odd())
                }
                Round::Zero => false,
                Round::Up => inexact && !x.neg,
                Round::Down => inexact && x.neg,
                Round::Away => inexact,
            };
            (q, inc)
        };
        if q >= hi {
            k += 1;
            continue;
        }
        if q < lo {
            k -= 1;
            continue;
        }
        if inc {
            q += Natural::ONE;
            if q == hi {
                q = lo;
                k += 1;
            }
        }
        return (q.to_string(), k + nd);
    }
}

/// Sizes (bits of the binary or decimal scaling) up to which decimal output
/// is computed exactly at once.
const EXACT_BITS: u64 = 20_000;

/// `floor(|x| / 10^k)` and whether it rounds up in mode `rnd`, from bounds
/// of `|x| / 10^k = m * 2^b / 10^k` at working precision `w` with 64 guard
/// bits; None when the bounds do not decide (the value is too close to an
/// integer or, in RNDN, to a half-integer).
fn digits_bounds(
    m: &Natural,
    b: i64,
    k: i64,
    neg: bool,
    rnd: Round,
    w: u64,
) -> Option<(Natural, bool)> {
    const G: i64 = 64;
    let (lo5, hi5) = pow5_bounds(k.unsigned_abs(), w);
    let s = b - k + G;
    let (l, h) = if k >= 0 {
        // m 2^s / (5^k), 5^k in [lo5, hi5].
        let div_floor = |d: &(Natural, i64)| {
            let t = s - d.1;
            if t >= 0 {
                (m << (t as u64)) / &d.0
            } else {
                m / (&d.0 << ((-t) as u64))
            }
        };
        let div_ceil = |d: &(Natural, i64)| {
            let t = s - d.1;
            let (num, den) = if t >= 0 {
                (m << (t as u64), d.0.clone())
            } else {
                (m.clone(), &d.0 << ((-t) as u64))
            };
            let (q, r) = num.div_rem(&den);
            if r == 0u32 { q } else { q + Natural::ONE }
        };
        (div_floor(&hi5), div_ceil(&lo5))
    } else {
        (
            shl_floor(m * &lo5.0, s + lo5.1),
            shl_ceil(m * &hi5.0, s + hi5.1),
        )
    };
    let a = &l >> (G as u64);
    let a_h = &h >> (G as u64);
    let base = &a << (G as u64);
    // The exact value lies in [l, h] (scaled by 2^G): one integer cell,
    // strictly above its integer, and (RNDN) on one side of the half.
    if a != a_h || l <= base {
        return None;
    }
    let inc = match rnd {
        Round::Nearest => {
            let half = &base + (Natural::ONE << (G as u64 - 1));
            if h < half {
                false
            } else if l > half {
                true
            } else {
                return None;
            }
        }
        Round::Zero => false,
        Round::Up => !neg,
        Round::Down => neg,
        Round::Away => true,
    };
    Some((a, inc))
}

trait Odd {
    fn odd(&self) -> bool;
}
impl Odd for Natural {
    fn odd(&self) -> bool {
        self.to_limbs_asc().first().is_some_and(|&l| l & 1 == 1)
    }
}

/// One element in decimal, `digits` significant digits (0: the default
/// `1 + ceil(p log10 2)`), `%.{D-1}Re` style.
pub fn format_dec(x: &Elem, prec: u64, digits: usize, rnd: Round) -> String {
    let digits = if digits == 0 {
        default_digits(prec)
    } else {
        digits
    };
    let sign = if x.neg { "-" } else { "" };
    match x.class {
        Class::NaN => "nan".into(),
        Class::Inf => format!("{sign}inf"),
        Class::Zero => {
            let z = if digits > 1 {
                format!("0.{}", "0".repeat(digits - 1))
            } else {
                "0".into()
            };
            format!("{sign}{z}e+00")
        }
        Class::Normal => {
            let (d, e) = get_str_digits(x, digits, rnd);
            let e = e - 1;
            let es = if e < 0 { '-' } else { '+' };
            let (head, tail) = d.split_at(1);
            let point = if tail.is_empty() { "" } else { "." };
            format!("{sign}{head}{point}{tail}e{es}{:02}", e.unsigned_abs())
        }
    }
}

/// One element in MPFR's `%Ra` style (exact).
pub fn format_hex(x: &Elem) -> String {
    let sign = if x.neg { "-" } else { "" };
    match x.class {
        Class::NaN => "nan".into(),
        Class::Inf => format!("{sign}inf"),
        Class::Zero => format!("{sign}0x0p+0"),
        Class::Normal => {
            let n = x.limbs.len();
            // Bits in the first hex digit, so that the printed binary
            // exponent exp - f is a multiple of 4.
            let f = ((x.exp - 1).rem_euclid(4) + 1) as u32;
            let bit = |i: u64| -> u64 {
                // Bit i of the mantissa counted from the top (0 = top).
                if i >= 64 * n as u64 {
                    return 0;
                }
                let pos = 64 * n as u64 - 1 - i;
                (x.limbs[(pos / 64) as usize] >> (pos % 64)) & 1
            };
            let total = 64 * n as u64;
            let mut s = String::new();
            s.push_str(sign);
            s.push_str("0x");
            let first = (0..f as u64).fold(0, |a, i| (a << 1) | bit(i));
            s.push(char::from_digit(first as u32, 16).unwrap());
            let mut frac = String::new();
            let mut i = f as u64;
            while i < total {
                let d = (0..4).fold(0, |a, j| (a << 1) | bit(i + j));
                frac.push(char::from_digit(d as u32, 16).unwrap());
                i += 4;
            }
            let frac = frac.trim_end_matches('0');
            if !frac.is_empty() {
                s.push('.');
                s.push_str(frac);
            }
            let pe = x.exp - f as i64;
            s.push_str(&format!(
                "p{}{}",
                if pe < 0 { '-' } else { '+' },
                pe.unsigned_abs()
            ));
            s
        }
    }
}

impl CpuFloats {
    /// Parses decimal or hex-float strings, each correctly rounded to
    /// `prec` bits in mode `rnd`; returns the array and the ternary values.
    /// A malformed string is an [`Error::Parse`] naming the element.
    pub fn from_strs_ternary<S: AsRef<str> + Sync>(
        prec: u64,
        items: &[S],
        rnd: Round,
    ) -> Result<(CpuFloats, Vec<i8>)> {
        check_prec(prec)?;
        // Parse once; remember the first bad element and re-parse only it
        // for the message.
        let first_bad = AtomicUsize::new(usize::MAX);
        let r = build(items.len(), prec, |i, out, _| {
            parse_into(items[i].as_ref(), out, prec, rnd).unwrap_or_else(|_| {
                first_bad.fetch_min(i, Ordering::Relaxed);
                0
            })
        })?;
        let index = first_bad.into_inner();
        if index != usize::MAX {
            let mut m = vec![0u64; super::limbs_for_prec(prec)];
            let (mut t, mut e) = (0u8, 0i64);
            let mut out = Out {
                tag: &mut t,
                exp: &mut e,
                m: &mut m,
            };
            let reason = parse_into(items[index].as_ref(), &mut out, prec, rnd)
                .err()
                .unwrap_or_default();
            return Err(Error::Parse {
                index,
                text: items[index].as_ref().to_string(),
                reason,
            });
        }
        Ok(r)
    }

    /// Parses strings, rounding to nearest.
    pub fn from_strs<S: AsRef<str> + Sync>(prec: u64, items: &[S]) -> Result<CpuFloats> {
        Ok(CpuFloats::from_strs_ternary(prec, items, Round::Nearest)?.0)
    }

    /// Decimal strings with `digits` significant digits (0: enough to read
    /// back), rounded in mode `rnd`.
    pub fn to_dec_strings(&self, digits: usize, rnd: Round) -> Vec<String> {
        (0..self.len)
            .into_par_iter()
            .map(|i| format_dec(&self.get(i), self.prec, digits, rnd))
            .collect()
    }

    /// Exact hex-float strings (`%Ra`).
    pub fn to_hex_strings(&self) -> Vec<String> {
        (0..self.len)
            .into_par_iter()
            .map(|i| format_hex(&self.get(i)))
            .collect()
    }
}
