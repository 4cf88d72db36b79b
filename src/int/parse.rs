//! Text in and out: decimal or `0x`-hex unsigned integers.
//!
//! Parsing accepts optional surrounding whitespace, decimal digits, or `0x`/
//! `0X` followed by hex digits; nothing else (no sign, no separators). A value
//! wider than the element width is an error, never truncated.

use std::str::FromStr;

use malachite_base::num::conversion::traits::ToStringBase;
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

/// Which base a string is written in (hex if it starts with 0x).
pub fn radix_of(s: &str) -> Radix {
    let t = s.trim();
    if t.starts_with("0x") || t.starts_with("0X") {
        Radix::Hex
    } else {
        Radix::Dec
    }
}

/// Parses one number into `out` (its limbs, zero-filled), or says why not.
/// `index` only labels errors.
pub fn parse_one(text: &str, index: usize, out: &mut [u64]) -> Result<()> {
    let err = |reason: &str| Error::Parse {
        index,
        text: shorten(text),
        reason: reason.to_string(),
    };
    let t = text.trim();
    out.fill(0);
    if t.is_empty() {
        return Err(err("empty"));
    }
    if t.starts_with('-') {
        return Err(err("negative numbers are not allowed (elements are unsigned)"));
    }
    let width = out.len() as u64 * 64;
    if let Some(h) = t.strip_prefix("0x").or_else(|| t.strip_prefix("0X")) {
        if h.is_empty() {
            return Err(err("no digits after 0x"));
        }
        if let Some((pos, c)) = h.char_indices().find(|(_, c)| !c.is_ascii_hexdigit()) {
            return Err(err(&format!("invalid hex digit {c:?} at offset {}", pos + 2)));
        }
        let h = h.trim_start_matches('0');
        let needed = match h.as_bytes().first() {
            None => 0,
            Some(&b) => {
                let top = (b as char).to_digit(16).unwrap_or(0);
                (h.len() as u64 - 1) * 4 + (32 - top.leading_zeros()) as u64
            }
        };
        if needed > width {
            return Err(Error::TooWide {
                index,
                needed,
                width,
            });
        }
        for (k, b) in h.bytes().rev().enumerate() {
            let d = (b as char).to_digit(16).unwrap() as u64;
            out[k / 16] |= d << (4 * (k % 16));
        }
        return Ok(());
    }
    if let Some((pos, c)) = t.char_indices().find(|(_, c)| !c.is_ascii_digit()) {
        return Err(err(&format!("invalid decimal digit {c:?} at offset {pos}")));
    }
    let n = Natural::from_str(t).map_err(|_| err("not a decimal number"))?;
    let needed = n.significant_bits();
    if needed > width {
        return Err(Error::TooWide {
            index,
            needed,
            width,
        });
    }
    let l = n.to_limbs_asc();
    out[..l.len()].copy_from_slice(&l);
    Ok(())
}

/// Parses every item into `out` (`limbs` limbs each), in parallel. The error
/// names the first bad element.
pub fn parse_into<S: AsRef<str> + Sync>(items: &[S], limbs: usize, out: &mut [u64]) -> Result<()> {
    let errors: Vec<Error> = out
        .par_chunks_mut(limbs)
        .zip(items.par_iter())
        .enumerate()
        .filter_map(|(i, (o, s))| parse_one(s.as_ref(), i, o).err())
        .collect();
    // par_iter collect keeps order, so the first is the lowest index.
    match errors.into_iter().next() {
        Some(e) => Err(e),
        None => Ok(()),
    }
}

/// Formats one element.
pub fn format_one(limbs: &[u64], radix: Radix) -> String {
    match radix {
        Radix::Hex => {
            let top = limbs.iter().rposition(|&x| x != 0);
            match top {
                None => "0x0".to_string(),
                Some(t) => {
                    let mut s = format!("0x{:x}", limbs[t]);
                    for l in limbs[..t].iter().rev() {
                        s.push_str(&format!("{l:016x}"));
                    }
                    s
                }
            }
        }
        Radix::Dec => {
            let top = limbs.iter().rposition(|&x| x != 0).map_or(0, |t| t + 1);
            if top <= 1 {
                return limbs.first().copied().unwrap_or(0).to_string();
            }
            Natural::from_limbs_asc(&limbs[..top]).to_string_base(10)
        }
    }
}

/// Formats every element (in parallel).
pub fn format_all(data: &[u64], limbs: usize, radix: Radix) -> Vec<String> {
    data.par_chunks(limbs)
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
