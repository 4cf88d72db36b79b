//! Decimal conversion both ways in subquadratic time, generic over the
//! engine: divide and conquer with the powers `P_j = 10^(D 2^j)` (each the
//! square of the previous, computed once per conversion). To decimal: a
//! number below `P_(j+1)` splits into quotient and remainder by `P_j` (one
//! prepared [`Divisor`] per level serves every node of that level); from
//! decimal: adjacent pieces combine as `hi P_j + lo`. The leaves (`D`
//! digits) are converted on the host, in parallel, by malachite; and nodes
//! of at most [`HOST_NODE_T`] limbs ([`HOST_NODE_T_DEVICE`] on a device)
//! are converted on the host by malachite, in parallel (on a GPU the thousands of small nodes would cost
//! more in launches and round trips than in arithmetic).

use std::str::FromStr;

use malachite_nz::natural::Natural;
use rayon::prelude::*;

use super::div::{Divisor, bit_len, copy, from_nat, trim};
use super::engine::HugeEngine;
use crate::error::{Error, Result};

/// Decimal digits per leaf.
pub const LEAF_DIGITS: usize = 19 << 11;

/// Nodes of at most this many limbs are converted on the host (CPU engine:
/// where the node-level parallelism beats splitting each small product).
pub const HOST_NODE_T: usize = 1 << 16;
/// The same for other engines (a GPU): small enough that the host's share
/// of the work stays small, large enough that the engine does not run
/// thousands of tiny divisions (H200, 10^8 digits: 2^11 limbs 2.78 s, 2^13
/// 1.38 s, 2^15 1.19 s). `MPARRAY_HUGE_HOST_T` (limbs) overrides
/// both, for tuning.
pub const HOST_NODE_T_DEVICE: usize = 1 << 15;

/// The host threshold for engine `e`.
pub fn host_threshold<E: HugeEngine>(e: &E) -> usize {
    if let Some(t) = std::env::var("MPARRAY_HUGE_HOST_T")
        .ok()
        .and_then(|v| v.trim().parse::<usize>().ok())
    {
        return t.max(1);
    }
    if e.name() == "cpu" {
        HOST_NODE_T
    } else {
        HOST_NODE_T_DEVICE
    }
}

/// `10^LEAF_DIGITS`, `10^(2 LEAF_DIGITS)`, ... on the engine, as needed.
struct Powers<'e, E: HugeEngine> {
    e: &'e E,
    p: Vec<E::Buf>,
}

impl<'e, E: HugeEngine> Powers<'e, E> {
    fn new(e: &'e E, leaf: usize) -> Result<Self> {
        let p0 = Natural::from(10u32).pow_nat(leaf as u64);
        let n = p0.to_limbs_asc().len();
        Ok(Powers {
            e,
            p: vec![from_nat(e, &p0, n)?],
        })
    }

    /// `10^(leaf 2^j)`.
    fn get(&mut self, j: usize) -> Result<&E::Buf> {
        while self.p.len() <= j {
            let last = self.p.last().expect("non-empty");
            let sq = self.e.sqr(last)?;
            self.p.push(trim(self.e, &sq, 1)?);
        }
        Ok(&self.p[j])
    }
}

trait PowNat {
    fn pow_nat(self, e: u64) -> Natural;
}

impl PowNat for Natural {
    fn pow_nat(self, e: u64) -> Natural {
        use malachite_base::num::arithmetic::traits::Pow;
        self.pow(e)
    }
}

/// The decimal digits of `a` (no leading zeros; "0" for zero).
pub fn to_decimal<E: HugeEngine>(e: &E, a: &E::Buf) -> Result<String> {
    to_decimal_leaf(e, a, LEAF_DIGITS)
}

/// [`to_decimal`] with a chosen leaf size (for tests of the recursion).
pub fn to_decimal_leaf<E: HugeEngine>(e: &E, a: &E::Buf, leaf: usize) -> Result<String> {
    to_decimal_with(e, a, leaf, host_threshold(e))
}

/// [`to_decimal`] with a chosen leaf size and host threshold (limbs).
pub fn to_decimal_with<E: HugeEngine>(
    e: &E,
    a: &E::Buf,
    leaf: usize,
    host_t: usize,
) -> Result<String> {
    let bits = bit_len(e, a)?;
    // An upper bound on the digit count.
    let digits = (bits as f64 * std::f64::consts::LOG10_2).floor() as usize + 1;
    if digits <= leaf {
        return Ok(Natural::from_limbs_asc(&e.download(a)?).to_string());
    }
    let mut j = 0;
    while leaf << (j + 1) < digits {
        j += 1;
    }
    let a = trim(e, a, 1)?;
    // The engine splits the nodes above HOST_NODE_T limbs ...
    let mut pw = Powers::new(e, leaf)?;
    let mut divs: Vec<Option<Divisor<E>>> = (0..=j).map(|_| None).collect();
    let mut pieces = Vec::new();
    split_engine(
        e,
        a,
        j as isize,
        false,
        host_t,
        &mut pw,
        &mut divs,
        &mut pieces,
    )?;
    drop((pw, divs));
    // ... the host the rest, every piece in parallel by malachite (its
    // conversion is faster than ours at these sizes on one core).
    let parts: Vec<String> = pieces
        .into_par_iter()
        .map(|(limbs, j, pad)| {
            let s = Natural::from_limbs_asc(&limbs).to_string();
            let width = leaf << (j + 1);
            if pad && s.len() < width {
                // (`format!` widths stop at 65535.)
                let mut t = "0".repeat(width - s.len());
                t.push_str(&s);
                t
            } else {
                s
            }
        })
        .collect();
    let mut out = String::with_capacity(parts.iter().map(|s| s.len()).sum());
    for p in &parts {
        out.push_str(p);
    }
    if out.is_empty() {
        out.push('0');
    }
    Ok(out)
}

/// The engine's part of the split: nodes above [`HOST_NODE_T`] limbs are
/// divided on the engine (one node at a time: each product uses the whole
/// engine); smaller ones are downloaded as `(limbs, level, pad)`.
#[allow(clippy::too_many_arguments)]
fn split_engine<E: HugeEngine>(
    e: &E,
    n: E::Buf,
    j: isize,
    pad: bool,
    host_t: usize,
    pw: &mut Powers<E>,
    divs: &mut [Option<Divisor<E>>],
    out: &mut Vec<(Vec<u64>, isize, bool)>,
) -> Result<()> {
    if j < 0 || e.len(&n) <= host_t {
        let l = e.download(&n)?;
        out.push((l, j, pad));
        return Ok(());
    }
    let ju = j as usize;
    if divs[ju].is_none() {
        let p = copy(e, pw.get(ju)?)?;
        let m = e.len(&p);
        divs[ju] = Some(Divisor::new(e, &p, m + 1)?);
    }
    let (q, r) = divs[ju].as_ref().expect("set above").divrem(e, &n)?;
    drop(n);
    if !pad && e.normalized_len(&q)? == 0 {
        return split_engine(e, r, j - 1, false, host_t, pw, divs, out);
    }
    split_engine(e, q, j - 1, pad, host_t, pw, divs, out)?;
    split_engine(e, r, j - 1, true, host_t, pw, divs, out)
}

/// Engine combinations of powers below this many limbs run pairs on
/// several cores (the products there are too small to use them all).
const PAR_T: usize = 1 << 15;

/// The number with the decimal digits `s` (ASCII `0`-`9` only, checked by
/// the caller; leading zeros allowed; empty means zero).
pub fn from_decimal<E: HugeEngine>(e: &E, s: &[u8]) -> Result<E::Buf> {
    from_decimal_leaf(e, s, LEAF_DIGITS)
}

/// [`from_decimal`] with a chosen leaf size.
pub fn from_decimal_leaf<E: HugeEngine>(e: &E, s: &[u8], leaf: usize) -> Result<E::Buf> {
    from_decimal_with(e, s, leaf, host_threshold(e))
}

/// [`from_decimal`] with a chosen leaf size and host threshold (limbs).
pub fn from_decimal_with<E: HugeEngine>(
    e: &E,
    s: &[u8],
    leaf: usize,
    host_t: usize,
) -> Result<E::Buf> {
    if s.iter().any(|c| !c.is_ascii_digit()) {
        return Err(Error::Invalid("not a decimal digit string".into()));
    }
    let parse = |d: &[u8]| -> Vec<u64> {
        // SAFETY-free: ASCII digits are UTF-8.
        let t = std::str::from_utf8(d).unwrap_or("0");
        let n = if t.is_empty() {
            Natural::from(0u32)
        } else {
            Natural::from_str(t).unwrap_or_default()
        };
        let mut l = n.to_limbs_asc();
        if l.is_empty() {
            l.push(0);
        }
        l
    };
    // Pieces of leaf 2^jh digits, the first level whose power has at
    // least host_t / 2 limbs, are parsed on the host by malachite in
    // parallel (the least significant first; the top one may be shorter).
    let limbs_of_digits = |d: usize| (d as f64 * std::f64::consts::LOG2_10 / 64.0) as usize;
    let mut jh = 0;
    while limbs_of_digits(leaf << jh) < host_t / 2 && (leaf << jh) < s.len() {
        jh += 1;
    }
    let piece = leaf << jh;
    if s.len() <= piece {
        return e.upload(&parse(s));
    }
    let bounds: Vec<(usize, usize)> = (0..s.len().div_ceil(piece))
        .map(|i| {
            let hi = s.len() - i * piece;
            (hi.saturating_sub(piece), hi)
        })
        .collect();
    let limbs: Vec<Vec<u64>> = bounds
        .par_iter()
        .map(|&(lo, hi)| parse(&s[lo..hi]))
        .collect();
    let mut j = jh;
    // ... then on the engine.
    let mut nodes = Vec::with_capacity(limbs.len());
    for l in &limbs {
        nodes.push(e.upload(l)?);
    }
    drop(limbs);
    let mut pw = Powers::new(e, leaf)?;
    while nodes.len() > 1 {
        let p = copy(e, pw.get(j)?)?;
        let combine = |lo: E::Buf, hi: Option<E::Buf>| -> Result<E::Buf> {
            let Some(hi) = hi else { return Ok(lo) };
            let t = e.mul(&trim(e, &hi, 1)?, &p)?;
            let mut acc = e.zeros(e.len(&t).max(e.len(&lo)) + 1)?;
            e.add_at(&mut acc, &t, 0)?;
            e.add_at(&mut acc, &lo, 0)?;
            trim(e, &acc, 1)
        };
        let mut pairs = Vec::with_capacity(nodes.len().div_ceil(2));
        let mut it = nodes.into_iter();
        while let Some(lo) = it.next() {
            pairs.push((lo, it.next()));
        }
        nodes = if e.len(&p) < PAR_T {
            pairs
                .into_par_iter()
                .map(|(lo, hi)| combine(lo, hi))
                .collect::<Result<Vec<_>>>()?
        } else {
            pairs
                .into_iter()
                .map(|(lo, hi)| combine(lo, hi))
                .collect::<Result<Vec<_>>>()?
        };
        j += 1;
    }
    Ok(nodes.pop().expect("at least one leaf"))
}
