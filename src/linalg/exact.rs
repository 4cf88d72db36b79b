//! The exact reduction core of the BLAS layer: the correctly rounded value
//! of an exact sum of exact products, as GNU MPFR's `mpfr_sum` defines it.
//!
//! # Terms
//!
//! A [`Terms`] collects terms, each the exact product of one to three
//! floats (`x*y`, `alpha*x*y`, `beta*c`, `|x|`), optionally negated. A
//! product is never rounded: its mantissa is the integer product of the
//! factors' mantissas and its exponent the sum of their exponents (an
//! unbounded `i64`: three exponents of MPFR's range `+-2^30` fit easily).
//! Special products follow `mpfr_mul`: NaN if a factor is NaN or a zero
//! meets an infinity, else an infinity or a zero with the product of the
//! signs. The sum then follows `mpfr_sum` on those exact terms: NaN if a
//! term is NaN or both `+Inf` and `-Inf` occur, else the infinity; an exact
//! zero sum is `+0` (`-0` in mode [`Round::Down`]), except when every term
//! is a zero of one sign, which the sum keeps (no terms: `+0`). The
//! exponent range is applied once, to the rounded result (an intermediate
//! product may lie far outside it).
//!
//! # Algorithm (after `mpfr_sum`)
//!
//! Let `T` be the largest top `e + bits(m)` over the `n` nonzero terms `m *
//! 2^e`. A pass accumulates, in a two's-complement fixed-point window `[lo,
//! hi)` with `hi = T + bits(n) + 2` (room for the carries) and `lo = T - w`,
//! `w = p + 2 bits(n) + 32`, every term truncated toward zero at bit `lo`:
//! the accumulator `A` then satisfies `S = A 2^lo + R` with `|R| < k 2^lo`,
//! where `k` counts the terms with nonzero bits below `lo` (terms wholly
//! below the window only count in `k`: they are never shifted to align).
//!
//! * `k = 0`: the sum is exact, `A 2^lo` is rounded once.
//! * `A` has `b >= p + 6 + bits(k)` bits (no cancellation): with `z = b -
//!   p - 4`, let `Q` be `A / 2^z` rounded to nearest and `d = A - Q 2^z`.
//!   Every rounding boundary near `S` (representable numbers and midpoints)
//!   is a multiple of `2^(lo+z+2)`, so `S = Q 2^(lo+z) + t` with `|t| <
//!   2^(lo+z)` rounds as `Q 2^(lo+z)` nudged by the sign of `t`: exactly
//!   `Q 2^(lo+z)` if `t = 0`, else as a value of the open interval `(Q, Q+1)`
//!   or `(Q-1, Q)` in units `2^(lo+z)` ([`round_interval`]). The sign of `t
//!   = d 2^lo + R` is the sign of `d` when `|d| >= k` (the usual case: one
//!   pass); otherwise it is a sign problem on the small term `d` and the
//!   residuals, solved by further passes (below) whose accumulator stays
//!   `O(log n)` bits wide above a 64-bit window.
//! * Otherwise (cancellation), the window moves down: its new top is the
//!   larger of the accumulator's top `lo + b` and the largest residual top
//!   (a residual is what a term has left below `lo`), so an exact
//!   cancellation jumps straight down to the next nonzero bits, however far
//!   (exponents `2^(+-2^29)` apart cost one more pass, not `2^30` bits). The
//!   next pass adds only the residuals' bits in the new window to the
//!   carried accumulator.
//!
//! # Cost
//!
//! Forming the products costs `O(n M(p))` (schoolbook limbs at BLAS
//! precisions). The sum sorts the terms by top once (`O(n log n)`) and
//! walks the window down through them (every pass's `lo` lies below the
//! last one's): a term is reached when `lo` first falls below its top,
//! stays *active* while it has nonzero bits below `lo`, and is never
//! visited again once `lo` is at or below its lowest set bit. The terms not
//! yet reached lie wholly below the window: they only count in `k`, and the
//! largest residual top among them is the first one's top, so they cost
//! `O(1)` per pass as a group. A pass (or a step of the sign search) costs
//! `O((p + log n)/64)` limb operations for the accumulator plus, per active
//! term, one shifted addition of its bits in the window (`O((p + log
//! n)/64)`, carries included) and a scan of its limbs for the top of its
//! residual (usually `O(1)`). With `P` the number of passes and sign-search
//! steps and `A` the sum over the terms of the passes and steps in which
//! each is active, the whole sum costs `O(n log n + (P + A) (p + log
//! n)/64)`: never `O(n)` per pass. Inputs without cancellation take one
//! pass, which touches only the terms reaching into its window. A further
//! pass moves `lo` down by at least `w - b > log2(n) + 27` bits (`b`, the
//! accumulator's bits, is below `p + 6 + bits(k)`), usually by about `w`,
//! and a sign-search step by at least `64 + log2(n)` bits, so a term of `W`
//! bits is active in about `W / w + 2` passes (under repeated partial
//! cancellation, at worst `W / (log2(n) + 27) + 2`) and at most about `W /
//! 64 + 2` steps. An accumulator that cancels to zero jumps straight to the
//! next nonzero residual, so heavy cancellation costs a pass per cancelling
//! cluster of terms and nothing per empty exponent range (`n` terms
//! cancelling in pairs across exponents `+-2^30`: up to `n / 2` passes over
//! `O(1)` active terms each). The result depends only on the multiset of
//! terms, never on their order (the accumulation is exact integer
//! arithmetic; terms of equal top are reached in any order).

use malachite_base::num::arithmetic::traits::Sign;
use malachite_base::num::basic::traits::{One, Zero};
use malachite_base::num::logic::traits::SignificantBits;
use malachite_nz::integer::Integer;
use std::cmp::Ordering;

use crate::float::func::{Interval, round_interval};
use crate::float::round::{Out, Round};
use crate::float::{Class, Elem, round_int};
use crate::int::cpu::mul::{mul_any, mul_itch};

/// One nonzero finite term `(-1)^neg * m * 2^e`, its mantissa at
/// `limbs[start..start+len]` (least significant first, lowest and highest
/// limbs nonzero).
#[derive(Clone, Copy, Debug)]
struct Item {
    start: usize,
    len: usize,
    neg: bool,
    e: i64,
    /// `e + bits(m)`: the term's magnitude is below `2^top`.
    top: i64,
    /// The position of the lowest set bit (`e` plus the trailing zeros
    /// of `m`): the term has nonzero bits below `lo` iff `low < lo`.
    low: i64,
}

/// The window's walk down through the terms (see Cost in the [module
/// docs](self)): each pass's `lo` lies below the last one's, so a term is
/// reached once (when `lo` first falls below its top), stays *active*
/// while it has nonzero bits below `lo` and is never visited again once
/// `lo` reaches its lowest set bit. The terms not yet reached lie wholly
/// below the window and are counted as a group.
struct Walk {
    /// Item indices by top, largest first.
    order: Vec<usize>,
    /// `order[..next]` have been reached; `order[next..]` lie wholly below
    /// the last pass's `lo` (each one has nonzero bits below it, and the
    /// largest residual top among them is `order[next]`'s top).
    next: usize,
    /// The reached items with nonzero bits below the last pass's `lo`.
    active: Vec<usize>,
    /// The last pass's `lo` (None before the first pass).
    lo: Option<i64>,
}

impl Walk {
    /// The number of terms with nonzero bits below the last pass's `lo`.
    fn k(&self) -> u64 {
        (self.active.len() + self.order.len() - self.next) as u64
    }
}

/// The terms of one exact sum (see the [module docs](self)).
#[derive(Default, Debug)]
pub(crate) struct Terms {
    limbs: Vec<u64>,
    items: Vec<Item>,
    nan: bool,
    pos_inf: bool,
    neg_inf: bool,
    zeros: usize,
    neg_zeros: usize,
    tmp: Vec<u64>,
    scratch: Vec<u64>,
}

/// Bits of a nonzero limb slice whose top limb is nonzero.
fn nbits(m: &[u64]) -> u64 {
    64 * m.len() as u64 - m[m.len() - 1].leading_zeros() as u64
}

/// Bits of `x` (0 for 0).
fn bits_u(x: u64) -> i64 {
    (64 - x.leading_zeros()) as i64
}

/// The 64 bits of `m` from bit `s` up (`s` may be negative: zeros below
/// bit 0; zeros above the top).
fn word_at(m: &[u64], s: i64) -> u64 {
    if s <= -64 {
        return 0;
    }
    if s < 0 {
        return m.first().map_or(0, |&x| x << (-s) as u32);
    }
    let (q, r) = ((s / 64) as usize, (s % 64) as u32);
    let lo = m.get(q).copied().unwrap_or(0);
    if r == 0 {
        return lo;
    }
    let hi = m.get(q + 1).copied().unwrap_or(0);
    (lo >> r) | (hi << (64 - r))
}

/// Adds (or subtracts, `neg`) the bits `from..to` of `m`, placed with bit
/// `from` at bit `at` of the two's-complement accumulator `acc` (modulo
/// `2^(64 acc.len())`).
fn add_bits(acc: &mut [u64], m: &[u64], from: u64, to: u64, at: u64, neg: bool) {
    if from >= to {
        return;
    }
    let len = to - from;
    let j0 = (at / 64) as usize;
    let j1 = ((at + len - 1) / 64) as usize;
    let mut carry = false;
    let mut j = j0;
    while j < acc.len() {
        let word = if j <= j1 {
            // Bits of acc limb j: [64j, 64j+64) <- m bits from + (64j - at).
            let s = from as i64 + 64 * j as i64 - at as i64;
            let mut w = word_at(m, s);
            // Clear the bits below `from` (first limb) and from `to` up.
            if s < from as i64 {
                let lowbits = (from as i64 - s) as u32;
                w &= !((1u64 << lowbits) - 1);
            }
            let end = to as i64 - s;
            if end < 64 {
                w &= (1u64 << end) - 1;
            }
            w
        } else {
            if !carry {
                break;
            }
            0
        };
        if neg {
            let (v, b1) = acc[j].overflowing_sub(word);
            let (v, b2) = v.overflowing_sub(carry as u64);
            acc[j] = v;
            carry = b1 || b2;
        } else {
            let (v, c1) = acc[j].overflowing_add(word);
            let (v, c2) = v.overflowing_add(carry as u64);
            acc[j] = v;
            carry = c1 || c2;
        }
        j += 1;
    }
}

/// The top (one past the highest set bit) of `m`'s bits below bit `r`,
/// or `None` when they are all zero.
fn top_below(m: &[u64], r: u64) -> Option<u64> {
    let r = r.min(nbits(m));
    if r == 0 {
        return None;
    }
    let mut q = ((r - 1) / 64) as usize;
    let mut w = m[q];
    let rem = r - 64 * q as u64;
    if rem < 64 {
        w &= (1u64 << rem) - 1;
    }
    loop {
        if w != 0 {
            return Some(64 * q as u64 + bits_u(w) as u64);
        }
        if q == 0 {
            return None;
        }
        q -= 1;
        w = m[q];
    }
}

impl Terms {
    /// No terms.
    pub fn new() -> Terms {
        Terms::default()
    }

    /// Adds the exact product of `factors` (one to three floats), negated
    /// when `negate`.
    pub fn push(&mut self, factors: &[&Elem], negate: bool) {
        let neg = factors.iter().fold(negate, |s, f| s ^ f.neg);
        let has = |c: Class| factors.iter().any(|f| f.class == c);
        if has(Class::NaN) || (has(Class::Inf) && has(Class::Zero)) {
            self.nan = true;
            return;
        }
        if has(Class::Inf) {
            if neg {
                self.neg_inf = true;
            } else {
                self.pos_inf = true;
            }
            return;
        }
        if has(Class::Zero) {
            self.zeros += 1;
            self.neg_zeros += neg as usize;
            return;
        }
        // The mantissa product, into `tmp`.
        let mut e: i64 = 0;
        self.tmp.clear();
        for (i, f) in factors.iter().enumerate() {
            e += f.exp - 64 * f.limbs.len() as i64;
            if i == 0 {
                self.tmp.extend_from_slice(f.limbs);
                continue;
            }
            let (a, b) = (std::mem::take(&mut self.tmp), f.limbs);
            let mut r = vec![0u64; a.len() + b.len()];
            let need = mul_itch(a.len().max(b.len()), a.len().min(b.len()));
            if self.scratch.len() < need {
                self.scratch.resize(need, 0);
            }
            mul_any(&mut r, &a, b, &mut self.scratch, false);
            self.tmp = r;
        }
        // Trim: zero limbs at the bottom move into the exponent.
        let lo = self.tmp.iter().position(|&x| x != 0).expect("nonzero");
        let hi = self.tmp.iter().rposition(|&x| x != 0).expect("nonzero");
        let m = &self.tmp[lo..=hi];
        e += 64 * lo as i64;
        let start = self.limbs.len();
        self.limbs.extend_from_slice(m);
        let top = e + nbits(m) as i64;
        let low = e + m[0].trailing_zeros() as i64;
        self.items.push(Item {
            start,
            len: m.len(),
            neg,
            e,
            top,
            low,
        });
    }

    fn mant(&self, it: &Item) -> &[u64] {
        &self.limbs[it.start..it.start + it.len]
    }

    /// Multiplies every term by `2^(delta)` (exactly).
    pub fn scale_2exp(&mut self, delta: i64) {
        for it in &mut self.items {
            it.e += delta;
            it.top += delta;
            it.low += delta;
        }
    }

    /// The largest top of the nonzero terms (None without any).
    pub fn max_top(&self) -> Option<i64> {
        self.items.iter().map(|it| it.top).max()
    }

    /// A walk before the first pass: the terms sorted by top.
    fn walk(&self) -> Walk {
        let mut order: Vec<usize> = (0..self.items.len()).collect();
        order.sort_unstable_by_key(|&i| std::cmp::Reverse(self.items[i].top));
        Walk {
            order,
            next: 0,
            active: Vec::new(),
            lo: None,
        }
    }

    /// The number of terms with nonzero bits below the last pass's `lo`,
    /// and the largest top of those residuals: the active terms' residual
    /// tops and the top of the first term not yet reached (wholly below
    /// `lo`: its residual is the whole term).
    fn residuals(&self, walk: &Walk) -> (u64, Option<i64>) {
        let lo = walk.lo.expect("residuals after a pass");
        let mut rt = walk.order.get(walk.next).map(|&i| self.items[i].top);
        for &i in &walk.active {
            let it = &self.items[i];
            let t = top_below(self.mant(it), (lo - it.e) as u64)
                .expect("an active term has nonzero bits below lo");
            let t = it.e + t as i64;
            rt = Some(rt.map_or(t, |r| r.max(t)));
        }
        (walk.k(), rt)
    }

    /// One pass: `acc` (in units `2^prev`, `prev` the last pass's `lo`,
    /// None before the first pass) shifted to units `2^lo` (`lo < prev`),
    /// plus every term's bits in `[lo, prev)` (truncated toward zero), in a
    /// window below `2^hi`. Only the terms reached so far with nonzero bits
    /// below `prev` and those whose top lies above `lo` can have such bits:
    /// the walk's active terms. Returns the new accumulator and the number
    /// of terms with bits left below `lo`.
    fn pass(&self, walk: &mut Walk, acc: &Integer, lo: i64, hi: i64) -> (Integer, u64) {
        let prev = walk.lo;
        debug_assert!(prev.is_none_or(|pv| lo < pv), "the window moves down");
        let width = (hi - lo).max(1) as u64;
        let mut buf = vec![0u64; (width / 64 + 2) as usize];
        if let Some(pv) = prev
            && *acc != 0
        {
            let mag = acc.unsigned_abs_ref().to_limbs_asc();
            let b = nbits(&mag);
            add_bits(&mut buf, &mag, 0, b, (pv - lo) as u64, *acc < 0);
        }
        // Reach the terms whose top lies above lo (their bits from the top
        // down are all new: top <= prev, or this is the first pass).
        while let Some(&i) = walk.order.get(walk.next)
            && self.items[i].top > lo
        {
            walk.active.push(i);
            walk.next += 1;
        }
        for &i in &walk.active {
            let it = &self.items[i];
            let m = self.mant(it);
            let b = nbits(m) as i64;
            let from = (lo - it.e).max(0);
            let to = prev.map_or(b, |pv| (pv - it.e).min(b));
            if from < to {
                add_bits(
                    &mut buf,
                    m,
                    from as u64,
                    to as u64,
                    (it.e + from - lo) as u64,
                    it.neg,
                );
            }
        }
        // A term whose bits below lo are all zero is done.
        walk.active.retain(|&i| self.items[i].low < lo);
        walk.lo = Some(lo);
        (Integer::from_twos_complement_limbs_asc(&buf), walk.k())
    }

    /// Whether a term is NaN or infinite.
    pub fn has_special(&self) -> bool {
        self.nan || self.pos_inf || self.neg_inf
    }

    /// Writes the exact sum correctly rounded to `p` bits in mode `rnd`
    /// into `out` (MPFR's exponent range applied) and returns the ternary
    /// value (see the [module docs](self)).
    pub fn sum(&self, out: &mut Out, p: u64, rnd: Round) -> i8 {
        if self.nan || (self.pos_inf && self.neg_inf) {
            out.special(Class::NaN, false);
            return 0;
        }
        if self.pos_inf || self.neg_inf {
            out.special(Class::Inf, self.neg_inf);
            return 0;
        }
        let Some(t0) = self.max_top() else {
            let neg = if self.zeros > 0 && self.neg_zeros == self.zeros {
                true
            } else if self.neg_zeros == 0 {
                false
            } else {
                rnd == Round::Down
            };
            out.special(Class::Zero, neg);
            return 0;
        };
        let mut scan = Walked {
            s: self,
            walk: self.walk(),
        };
        self.round_scan(&mut scan, t0, out, p, rnd)
    }

    /// [`Terms::sum`] for nonzero finite terms (`t0` their largest top),
    /// its passes by `scan`.
    fn round_scan(&self, scan: &mut impl Scan, t0: i64, out: &mut Out, p: u64, rnd: Round) -> i8 {
        let nb = bits_u(self.items.len() as u64 + 1);
        let w = p as i64 + 2 * nb + 32;
        let mut acc = Integer::ZERO;
        let mut lo = t0 - w;
        let mut hi = t0 + nb + 2;
        loop {
            let (a, k) = scan.pass(&acc, lo, hi);
            acc = a;
            if k == 0 {
                return self.exact(out, &acc, lo, p, rnd);
            }
            let b = acc.significant_bits() as i64;
            if b >= p as i64 + 6 + bits_u(k) {
                let z = (b - p as i64 - 4) as u64;
                let q: Integer = (&acc + (Integer::ONE << (z - 1))) >> z;
                let d: Integer = &acc - (&q << z);
                let sgn =
                    if d != 0 && d.unsigned_abs_ref() >= &malachite_nz::natural::Natural::from(k) {
                        d.sign()
                    } else {
                        tail_sign(scan, d, nb)
                    };
                let u = lo + z as i64;
                let (l, h) = match sgn {
                    Ordering::Equal => return self.exact(out, &q, u, p, rnd),
                    Ordering::Greater => (q.clone(), q + Integer::ONE),
                    Ordering::Less => (&q - Integer::ONE, q),
                };
                let iv = Interval { lo: l, hi: h, s: u };
                return round_interval(out, &iv, p, rnd).expect(
                    "no rounding boundary lies inside one unit below the boundaries' spacing",
                );
            }
            let (_, rt) = scan.residuals();
            let rt = rt.expect("k > 0 terms have residuals");
            let t = if b == 0 { rt } else { (lo + b).max(rt) };
            hi = t + nb + 2;
            lo = t - w;
        }
    }

    /// Rounds the exact value `a 2^s` (an exact zero sum of nonzero terms:
    /// `+0`, or `-0` in mode Down).
    fn exact(&self, out: &mut Out, a: &Integer, s: i64, p: u64, rnd: Round) -> i8 {
        if *a == 0 {
            out.special(Class::Zero, rnd == Round::Down);
            return 0;
        }
        let neg = *a < 0;
        let mut mag = a.unsigned_abs_ref().to_limbs_asc();
        round_int(out, neg, &mut mag, s, false, p, rnd)
    }

    /// The exact sum rounded toward -Inf to `w` bits, unbounded: `(m, s,
    /// exact)` with the value `m 2^s` (`m` of exactly `w` bits, so the
    /// exact sum lies in `[m, m+1) 2^s`) and
    /// whether it is the exact sum; for a sum of nonnegative finite terms
    /// (squares, absolute values) with at least one nonzero term, whose
    /// rounded value lies inside MPFR's exponent range after
    /// [`Terms::scale_2exp`] (the caller scales).
    pub fn sum_floor(&self, w: u64) -> (malachite_nz::natural::Natural, i64, bool) {
        let n = crate::float::limbs_for_prec(w);
        let (mut tag, mut exp) = (0u8, 0i64);
        let mut m = vec![0u64; n];
        let mut out = Out {
            tag: &mut tag,
            exp: &mut exp,
            m: &mut m,
        };
        let t = self.sum(&mut out, w, Round::Down);
        debug_assert_eq!(crate::float::class_of(tag), Class::Normal);
        // The w-bit mantissa as an integer: one unit is one ulp.
        let low = 64 * n as u64 - w;
        let m = malachite_nz::natural::Natural::from_limbs_asc(&m) >> low;
        (m, exp - w as i64, t == 0)
    }
}

/// How [`Terms::sum`]'s passes reach the terms: the walk ([`Walked`]), or
/// in the unit tests a scan of every term (the algorithm before the walk).
trait Scan {
    /// [`Terms::pass`]: `acc` at the last pass's `lo` moved to `lo`, plus
    /// the terms' bits in `[lo, last lo)`, in a window below `2^hi`; and
    /// the number of terms with bits left below `lo`.
    fn pass(&mut self, acc: &Integer, lo: i64, hi: i64) -> (Integer, u64);
    /// [`Terms::residuals`]: the number of terms with bits below the last
    /// pass's `lo`, and the largest top of those residuals.
    fn residuals(&mut self) -> (u64, Option<i64>);
    /// The last pass's `lo`.
    fn lo(&self) -> i64;
}

/// The walk over a sum's terms, sorted by top.
struct Walked<'a> {
    s: &'a Terms,
    walk: Walk,
}

impl Scan for Walked<'_> {
    fn pass(&mut self, acc: &Integer, lo: i64, hi: i64) -> (Integer, u64) {
        self.s.pass(&mut self.walk, acc, lo, hi)
    }
    fn residuals(&mut self) -> (u64, Option<i64>) {
        self.s.residuals(&self.walk)
    }
    fn lo(&self) -> i64 {
        self.walk.lo.expect("after a pass")
    }
}

/// The sign of `d 2^lo + R`, `lo` the scan's last `lo` and `R` the sum of
/// the residuals below it.
fn tail_sign(scan: &mut impl Scan, d: Integer, nb: i64) -> Ordering {
    let w2 = 2 * nb + 64;
    let mut acc = d;
    loop {
        let lo = scan.lo();
        let (k, rt) = scan.residuals();
        let Some(rt) = rt else {
            return acc.sign();
        };
        let b = acc.significant_bits() as i64;
        // |acc 2^lo| >= 2^(b-1+lo) > k 2^rt >= |R|.
        if b > 0 && b - 1 + (lo - rt) >= bits_u(k) {
            return acc.sign();
        }
        let t = if b == 0 { rt } else { (lo + b).max(rt) };
        let lo2 = (t - w2).min(lo - 1);
        let (a, _) = scan.pass(&acc, lo2, t + nb + 2);
        acc = a;
    }
}

#[cfg(test)]
mod tests {
    //! The walk against the algorithm as it was before it: every pass and
    //! residual scan over every term, under the same driver
    //! ([`Terms::round_scan`]): the same decisions on the same exact values,
    //! so the same bits and ternary.

    use super::*;
    use crate::float::limbs_for_prec;
    use crate::float::random::Stream as Rng;

    /// Whether `m` has a nonzero bit below bit `r` (`r >= 1`).
    fn any_below(m: &[u64], r: u64) -> bool {
        let q = (r / 64) as usize;
        if q >= 1 {
            return true;
        }
        m[0] & ((1u64 << r) - 1) != 0
    }

    fn old_residuals(s: &Terms, lo: i64) -> (u64, Option<i64>) {
        let mut k = 0;
        let mut rt: Option<i64> = None;
        for it in &s.items {
            if it.e >= lo {
                continue;
            }
            let m = s.mant(it);
            if let Some(t) = top_below(m, (lo - it.e) as u64) {
                k += 1;
                let t = it.e + t as i64;
                rt = Some(rt.map_or(t, |r| r.max(t)));
            }
        }
        (k, rt)
    }

    fn old_pass(s: &Terms, acc: &Integer, prev: Option<i64>, lo: i64, hi: i64) -> (Integer, u64) {
        let width = (hi - lo).max(1) as u64;
        let mut buf = vec![0u64; (width / 64 + 2) as usize];
        if let Some(pv) = prev
            && *acc != 0
        {
            let mag = acc.unsigned_abs_ref().to_limbs_asc();
            let b = nbits(&mag);
            add_bits(&mut buf, &mag, 0, b, (pv - lo) as u64, *acc < 0);
        }
        let mut k = 0;
        for it in &s.items {
            let m = s.mant(it);
            let b = nbits(m) as i64;
            let from = (lo - it.e).max(0);
            let to = prev.map_or(b, |pv| (pv - it.e).min(b));
            if from < to {
                let at = (it.e + from - lo) as u64;
                add_bits(&mut buf, m, from as u64, to as u64, at, it.neg);
            }
            if lo > it.e && any_below(m, (lo - it.e) as u64) {
                k += 1;
            }
        }
        (Integer::from_twos_complement_limbs_asc(&buf), k)
    }

    /// Every pass and residual scan over every term.
    struct EveryTerm<'a> {
        s: &'a Terms,
        prev: Option<i64>,
    }

    impl Scan for EveryTerm<'_> {
        fn pass(&mut self, acc: &Integer, lo: i64, hi: i64) -> (Integer, u64) {
            let r = old_pass(self.s, acc, self.prev, lo, hi);
            self.prev = Some(lo);
            r
        }
        fn residuals(&mut self) -> (u64, Option<i64>) {
            old_residuals(self.s, self.lo())
        }
        fn lo(&self) -> i64 {
            self.prev.expect("after a pass")
        }
    }

    /// `Terms::sum` as it was, for nonzero finite terms.
    fn old_sum(s: &Terms, out: &mut Out, p: u64, rnd: Round) -> i8 {
        let t0 = s.max_top().expect("nonzero terms");
        let mut scan = EveryTerm { s, prev: None };
        s.round_scan(&mut scan, t0, out, p, rnd)
    }

    /// A fresh seed per run, printed (MPARRAY_TEST_SEED replays one).
    fn seed() -> u64 {
        if let Ok(s) = std::env::var("MPARRAY_TEST_SEED") {
            return s.parse().expect("MPARRAY_TEST_SEED must be a number");
        }
        let t = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .unwrap()
            .as_nanos() as u64;
        let s = t ^ (std::process::id() as u64).rotate_left(32);
        eprintln!("seed {s} (set MPARRAY_TEST_SEED={s} to replay)");
        s
    }

    /// A normal float: sign, exponent, limbs (top bit set, bits below the
    /// precision `q` clear).
    type F = (bool, i64, Vec<u64>);

    fn float(g: &mut Rng, q: u64, exp: i64) -> F {
        let n = limbs_for_prec(q);
        let mut m: Vec<u64> = (0..n).map(|_| g.next()).collect();
        // Some mantissas end in long runs of zeros.
        if g.below(3) == 0 {
            let keep = 1 + g.below(q);
            for (j, l) in m.iter_mut().enumerate() {
                let bit0 = 64 * j as u64;
                let from = (64 * n as u64 - keep).max(bit0);
                if from >= bit0 + 64 {
                    *l = 0;
                } else {
                    *l &= !((1u64 << (from - bit0)) - 1);
                }
            }
        }
        m[n - 1] |= 1 << 63;
        let low = 64 * n as u64 - q;
        m[0] &= !((1u64 << low) - 1);
        (g.below(2) == 1, exp, m)
    }

    /// `f` changed by one unit in its last place (`q >= 2`).
    fn nudge(f: &F, q: u64) -> F {
        let mut g = f.clone();
        let low = 64 * g.2.len() as u64 - q;
        g.2[0] ^= 1u64 << low;
        g
    }

    fn elem(f: &F) -> Elem<'_> {
        Elem {
            class: Class::Normal,
            neg: f.0,
            exp: f.1,
            limbs: &f.2,
        }
    }

    /// Random terms (one to three factors of `q` bits each) in clusters
    /// spread over huge exponent ranges or close together, many cancelling
    /// exactly or nearly with a partner (whole clusters cancel exactly), in
    /// random order.
    fn terms(g: &mut Rng, q: u64, p: u64) -> Vec<(Vec<F>, bool)> {
        let mut out: Vec<(Vec<F>, bool)> = Vec::new();
        let clusters = 1 + g.below(80) as usize;
        let huge = g.below(2) == 0;
        let mut base = 0i64;
        for _ in 0..clusters {
            base = if huge {
                g.range(-(1 << 29), 1 << 29)
            } else {
                base - g.range(-(q as i64), 4 * q as i64 + 200)
            };
            // Every term cancelled exactly, exactly or nearly, or a mix
            // with terms left alone.
            let mix = g.below(4);
            for _ in 0..1 + g.below(6) {
                let nf = 1 + g.below(3) as usize;
                let mut e = base + g.range(-(q as i64) - 5, 5);
                let mut fs = Vec::new();
                for i in 0..nf {
                    let ei = if i + 1 == nf { e } else { g.range(-70, 70) };
                    e -= ei;
                    fs.push(float(g, q, ei));
                }
                let neg = g.below(2) == 1;
                let roll = match mix {
                    0 | 1 => 0,
                    2 => 3 + g.below(2),
                    _ => g.below(8),
                };
                match roll {
                    0..=3 => out.push((fs.clone(), !neg)),
                    4 if q >= 2 => {
                        let mut fn2 = fs.clone();
                        let j = g.below(nf as u64) as usize;
                        fn2[j] = nudge(&fn2[j], q);
                        out.push((fn2, !neg));
                    }
                    _ => {}
                }
                out.push((fs, neg));
            }
        }
        // Sometimes 1 + 2^-d (for d = p a midpoint of precision p), whose
        // rounding a far term (or nothing) decides.
        if g.below(3) == 0 {
            let one = |g: &mut Rng, e: i64| {
                let mut f = float(g, q, e);
                f.2.iter_mut().for_each(|l| *l = 0);
                let n = f.2.len();
                f.2[n - 1] = 1 << 63;
                f.0 = false;
                f
            };
            let a = one(g, 1);
            // 2^-p: the midpoint 1 + 2^-p; else a random distance.
            let d = if g.below(2) == 0 {
                p as i64
            } else {
                g.range(1, 2100)
            };
            let b = one(g, 1 - d);
            out.push((vec![a], false));
            out.push((vec![b], g.below(2) == 1));
            if g.below(4) != 0 {
                let e = g.range(-(1 << 29), -2200);
                let far = one(g, e);
                out.push((vec![far], g.below(2) == 1));
            }
        }
        for i in (1..out.len()).rev() {
            out.swap(i, g.below(i as u64 + 1) as usize);
        }
        out
    }

    #[test]
    fn walk_matches_every_term_passes() {
        let mut g = Rng::new(seed(), 0);
        let modes = [
            Round::Nearest,
            Round::Zero,
            Round::Up,
            Round::Down,
            Round::Away,
        ];
        for case in 0..1000 {
            let q = [1u64, 2, 3, 24, 53, 64, 65, 113, 200, 300][g.below(10) as usize];
            let p = [1u64, 2, 3, 17, 53, 64, 65, 113, 200, 512, 2048][g.below(11) as usize];
            let ts = terms(&mut g, q, p);
            let mut s = Terms::new();
            for (fs, neg) in &ts {
                let es: Vec<Elem> = fs.iter().map(elem).collect();
                let refs: Vec<&Elem> = es.iter().collect();
                s.push(&refs, *neg);
            }
            if g.below(4) == 0 {
                s.scale_2exp(g.range(-(1 << 20), 1 << 20));
            }
            for rnd in modes {
                let n = limbs_for_prec(p);
                let run = |f: &dyn Fn(&mut Out) -> i8| {
                    let (mut tag, mut exp, mut m) = (0u8, 0i64, vec![0u64; n]);
                    let mut out = Out {
                        tag: &mut tag,
                        exp: &mut exp,
                        m: &mut m,
                    };
                    let t = f(&mut out);
                    (tag, exp, m, t)
                };
                let got = run(&|o| s.sum(o, p, rnd));
                let want = run(&|o| old_sum(&s, o, p, rnd));
                assert_eq!(
                    got,
                    want,
                    "case {case}: {} terms, q {q}, p {p}, {rnd:?}",
                    ts.len()
                );
            }
        }
    }
}
