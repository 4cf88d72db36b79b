//! Text in and out: decimal or `0x`-hex unsigned integers.
//!
//! Accepted: optional surrounding white space, then either decimal digits or
//! `0x`/`0X` followed by hex digits (either case); leading zeros are fine.
//! Everything else is an error naming the element and the reason: an empty
//! string, a sign (`+5`, `-1`), `0x` without digits, anything inside the
//! number that is not a digit of its base (spaces, `_`, non-ASCII digits).
//! A value wider than the element width is [`Error::TooWide`], never
//! truncated. Error offsets count characters of the trimmed text.
//!
//! Output: decimal without leading zeros, or lower-case hex with a `0x`
//! prefix and no leading zeros (`0x0` for zero).

use std::fmt::Write as _;
use std::str::FromStr;

use malachite_base::num::logic::traits::SignificantBits;
use malachite_nz::natural::Natural;
use rayon::prelude::*;

use crate::error::{Error, Result};

/// Output base.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Radix {
    Dec,
    /// Lower-case hex with a `0x` prefix.
    Hex,
}

/// Which base a string is written in (hex if it starts with 0x or 0X after
/// any leading white space).
pub fn radix_of(s: &str) -> Radix {
    match s.trim_start().as_bytes() {
        [b'0', b'x' | b'X', ..] => Radix::Hex,
        _ => Radix::Dec,
    }
}

/// Parses one number into `out` (its limbs, zero-filled), or says why not.
/// `index` only labels errors.
pub fn parse_one(text: &str, index: usize, out: &mut [u64]) -> Result<()> {
    out.fill(0);
    let t = text.trim();
    let err = |reason: String| Error::Parse {
        index,
        text: shorten(t),
        reason,
    };
    if t.is_empty() {
        return Err(err("empty".into()));
    }
    let (digits, hex) = match t.as_bytes() {
        [b'0', b'x' | b'X', ..] => (&t[2..], true),
        _ => (t, false),
    };
    let prefix = t.len() - digits.len();
    let bad = if hex {
        digits.bytes().position(|b| !b.is_ascii_hexdigit())
    } else {
        digits.bytes().position(|b| !b.is_ascii_digit())
    };
    if let Some(p) = bad {
        // Every byte before `p` is ASCII, so `p` is a character boundary and
        // the byte offset equals the character offset.
        let c = digits[p..].chars().next().unwrap_or('?');
        let at = prefix + p;
        let reason = match c {
            '-' if at == 0 => "negative numbers are not allowed (elements are unsigned)".into(),
            '+' if at == 0 => "a sign is not allowed (elements are unsigned)".into(),
            c if c.is_whitespace() => format!("white space inside the number at offset {at}"),
            c => {
                let base = if hex { "hex" } else { "decimal" };
                format!("invalid {base} digit {c:?} at offset {at}")
            }
        };
        return Err(err(reason));
    }
    if hex && digits.is_empty() {
        return Err(err("no digits after 0x".into()));
    }
    let width = out.len() as u64 * 64;
    let too_wide = |needed: u64| Error::TooWide {
        index,
        needed,
        width,
    };
    let d = digits.trim_start_matches('0').as_bytes();
    if d.is_empty() {
        return Ok(());
    }
    if hex {
        let needed = (d.len() as u64 - 1) * 4 + (8 - hex_value(d[0]).leading_zeros()) as u64;
        if needed > width {
            return Err(too_wide(needed));
        }
        // Sixteen digits per limb, from the least significant end.
        for (limb, chunk) in out.iter_mut().zip(d.rchunks(16)) {
            *limb = chunk
                .iter()
                .fold(0u64, |acc, &b| (acc << 4) | hex_value(b) as u64);
        }
        return Ok(());
    }
    if d.len() <= 19 {
        // Fits a u64 (10^19 - 1 < 2^64): no big-number arithmetic.
        let v = d.iter().fold(0u64, |acc, &b| acc * 10 + (b - b'0') as u64);
        let needed = 64 - v.leading_zeros() as u64;
        if needed > width {
            return Err(too_wide(needed));
        }
        out[0] = v;
        return Ok(());
    }
    let n = Natural::from_str(std::str::from_utf8(d).unwrap_or("0"))
        .map_err(|_| err("not a decimal number".into()))?;
    let needed = n.significant_bits();
    if needed > width {
        return Err(too_wide(needed));
    }
    for (o, l) in out.iter_mut().zip(n.into_limbs_asc()) {
        *o = l;
    }
    Ok(())
}

#[inline]
fn hex_value(b: u8) -> u8 {
    match b {
        b'0'..=b'9' => b - b'0',
        b'a'..=b'f' => b - b'a' + 10,
        b'A'..=b'F' => b - b'A' + 10,
        _ => 0,
    }
}

/// Parses every item into `out` (`limbs` limbs each), in parallel. The error
/// names the first bad element.
pub fn parse_into<S: AsRef<str> + Sync>(items: &[S], limbs: usize, out: &mut [u64]) -> Result<()> {
    if limbs == 0 || out.len() != items.len() * limbs {
        return Err(Error::Shape(format!(
            "{} strings do not fill {} limbs of {limbs}-limb elements",
            items.len(),
            out.len()
        )));
    }
    let first_error = out
        .par_chunks_mut(limbs)
        .zip(items.par_iter())
        .enumerate()
        .with_min_len((1024 / limbs).max(1))
        .find_map_first(|(i, (o, s))| parse_one(s.as_ref(), i, o).err());
    match first_error {
        Some(e) => Err(e),
        None => Ok(()),
    }
}

/// Appends one element, formatted, to `s`.
pub fn write_one(s: &mut String, limbs: &[u64], radix: Radix) {
    let top = limbs.iter().rposition(|&x| x != 0);
    match radix {
        Radix::Hex => {
            s.push_str("0x");
            let Some(t) = top else {
                s.push('0');
                return;
            };
            let _ = write!(s, "{:x}", limbs[t]);
            const DIGITS: &[u8; 16] = b"0123456789abcdef";
            let mut buf = [0u8; 16];
            for &l in limbs[..t].iter().rev() {
                for (k, c) in buf.iter_mut().enumerate() {
                    *c = DIGITS[((l >> (60 - 4 * k)) & 15) as usize];
                }
                // The digits are ASCII.
                s.push_str(std::str::from_utf8(&buf).unwrap_or_default());
            }
        }
        Radix::Dec => match top {
            None => s.push('0'),
            Some(0) => {
                let _ = write!(s, "{}", limbs[0]);
            }
            Some(1) => {
                let _ = write!(s, "{}", (limbs[1] as u128) << 64 | limbs[0] as u128);
            }
            Some(t) => {
                let _ = write!(s, "{}", Natural::from_limbs_asc(&limbs[..=t]));
            }
        },
    }
}

/// Formats one element.
pub fn format_one(limbs: &[u64], radix: Radix) -> String {
    let mut s = String::new();
    write_one(&mut s, limbs, radix);
    s
}

/// Formats every element (in parallel).
pub fn format_all(data: &[u64], limbs: usize, radix: Radix) -> Vec<String> {
    data.par_chunks(limbs.max(1))
        .map(|c| format_one(c, radix))
        .collect()
}

/// A bad input echoed back in an error stays short.
fn shorten(s: &str) -> String {
    const MAX: usize = 40;
    if s.chars().count() <= MAX {
        s.to_string()
    } else {
        let head: String = s.chars().take(MAX).collect();
        format!("{head}...")
    }
}
