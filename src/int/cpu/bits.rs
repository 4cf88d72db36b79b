//! Comparisons, shifts, bit logic, bit counts, integer square roots and the
//! trial-division screen of the primality test, per element on all cores
//! (rayon). The CUDA twins are in `cuda::bits` (src/kernels/int_bits.cu);
//! both give the same bits.

use std::cmp::Ordering;

use malachite_base::num::arithmetic::traits::SqrtRem;
use malachite_nz::natural::Natural;
use rayon::prelude::*;

use super::arith;

/// A shift count: one for the whole batch or one per element.
#[derive(Clone, Copy, Debug)]
pub enum Count<'a> {
    All(u64),
    Each(&'a [u64]),
}

impl Count<'_> {
    #[inline]
    pub fn get(&self, i: usize) -> u64 {
        match *self {
            Count::All(c) => c,
            Count::Each(v) => v[i],
        }
    }
}

/// A bitwise operation of two operands.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Logic {
    And,
    Or,
    Xor,
}

/// Limbs per rayon task of the element-wise passes (about 64 KB).
const TASK: usize = 8192;

/// `a` compared with `b`, per element: -1, 0 or 1.
pub fn cmp(a: &[u64], b: &[u64], l: usize) -> Vec<i8> {
    a.par_chunks(l)
        .zip(b.par_chunks(l))
        .map(|(x, y)| match arith::cmp(x, y) {
            Ordering::Less => -1,
            Ordering::Equal => 0,
            Ordering::Greater => 1,
        })
        .collect()
}

/// `a << c` (left) or `a >> c` per element, modulo 2^W; counts >= W give 0.
pub fn shift(a: &[u64], c: Count, l: usize, left: bool) -> Vec<u64> {
    let mut r = vec![0u64; a.len()];
    r.par_chunks_mut(l)
        .zip(a.par_chunks(l))
        .enumerate()
        .for_each(|(i, (o, x))| shift_one(o, x, c.get(i), left));
    r
}

/// One element: `o = x << s` or `x >> s` (both of `l` limbs).
pub fn shift_one(o: &mut [u64], x: &[u64], s: u64, left: bool) {
    let l = x.len() as u64;
    o.fill(0);
    if s >= 64 * l {
        return;
    }
    let (q, b) = ((s / 64) as usize, (s % 64) as u32);
    let n = x.len() - q;
    if left {
        if b == 0 {
            o[q..].copy_from_slice(&x[..n]);
        } else {
            arith::shl(&mut o[q..], &x[..n], b);
        }
    } else if b == 0 {
        o[..n].copy_from_slice(&x[q..]);
    } else {
        arith::shr(&mut o[..n], &x[q..], b);
    }
}

/// `a op b` limb by limb.
pub fn logic(a: &[u64], b: &[u64], op: Logic) -> Vec<u64> {
    let mut r = vec![0u64; a.len()];
    r.par_chunks_mut(TASK)
        .zip(a.par_chunks(TASK).zip(b.par_chunks(TASK)))
        .for_each(|(o, (x, y))| {
            for ((o, &x), &y) in o.iter_mut().zip(x).zip(y) {
                *o = match op {
                    Logic::And => x & y,
                    Logic::Or => x | y,
                    Logic::Xor => x ^ y,
                };
            }
        });
    r
}

/// `!a` limb by limb (W-bit complement).
pub fn not(a: &[u64]) -> Vec<u64> {
    let mut r = vec![0u64; a.len()];
    r.par_chunks_mut(TASK)
        .zip(a.par_chunks(TASK))
        .for_each(|(o, x)| {
            for (o, &x) in o.iter_mut().zip(x) {
                *o = !x;
            }
        });
    r
}

/// Set bits per element.
pub fn popcount(a: &[u64], l: usize) -> Vec<u64> {
    a.par_chunks(l)
        .map(|x| x.iter().map(|v| v.count_ones() as u64).sum())
        .collect()
}

/// Significant bits per element (0 for 0).
pub fn bit_length(a: &[u64], l: usize) -> Vec<u64> {
    a.par_chunks(l).map(bit_length_one).collect()
}

#[inline]
pub fn bit_length_one(x: &[u64]) -> u64 {
    match x.iter().rposition(|&v| v != 0) {
        Some(k) => 64 * k as u64 + 64 - x[k].leading_zeros() as u64,
        None => 0,
    }
}

/// Floor square root and remainder `a - s^2` per element.
pub fn isqrt(a: &[u64], l: usize) -> (Vec<u64>, Vec<u64>) {
    let mut s = vec![0u64; a.len()];
    let mut r = vec![0u64; a.len()];
    s.par_chunks_mut(l)
        .zip(r.par_chunks_mut(l))
        .zip(a.par_chunks(l))
        .for_each(|((so, ro), x)| {
            let (q, rem) = Natural::from_limbs_asc(x).sqrt_rem();
            for (o, v) in so.iter_mut().zip(q.to_limbs_asc()) {
                *o = v;
            }
            for (o, v) in ro.iter_mut().zip(rem.to_limbs_asc()) {
                *o = v;
            }
        });
    (s, r)
}

/// The odd primes below this bound are tried by the screen.
pub const SCREEN_BOUND: u32 = 1024;

/// The screen's tables: the odd primes below [`SCREEN_BOUND`], and groups
/// of consecutive ones whose product is below 2^32 as (product, first
/// index, count). The CUDA kernel receives the same tables.
pub fn screen_tables() -> (Vec<u32>, Vec<[u32; 3]>) {
    let b = SCREEN_BOUND as usize;
    let mut sieve = vec![true; b];
    let mut primes = Vec::new();
    for p in 2..b {
        if sieve[p] {
            if p > 2 {
                primes.push(p as u32);
            }
            let mut k = p * p;
            while k < b {
                sieve[k] = false;
                k += p;
            }
        }
    }
    let mut groups = Vec::new();
    let mut i = 0;
    while i < primes.len() {
        let (mut prod, mut n) = (1u64, 0u32);
        while i + (n as usize) < primes.len()
            && prod * primes[i + n as usize] as u64 <= u32::MAX as u64
        {
            prod *= primes[i + n as usize] as u64;
            n += 1;
        }
        groups.push([prod as u32, i as u32, n]);
        i += n as usize;
    }
    (primes, groups)
}

/// Classes of the screen.
pub const COMPOSITE: u8 = 0;
pub const PRIME: u8 = 1;
pub const UNKNOWN: u8 = 2;

/// One element: [`COMPOSITE`] (0, 1, even above 2, or a multiple of an odd
/// prime below the bound other than itself), [`PRIME`] (2, or no factor
/// below the bound and below its square), else [`UNKNOWN`].
pub fn screen_one(x: &[u64], primes: &[u32], groups: &[[u32; 3]]) -> u8 {
    let n = arith::nlen(x);
    if n <= 1 {
        let v = if n == 0 { 0 } else { x[0] };
        if v < 2 {
            return COMPOSITE;
        }
        if v == 2 {
            return PRIME;
        }
        if v & 1 == 0 {
            return COMPOSITE;
        }
        let bound = SCREEN_BOUND as u64;
        if v < bound * bound {
            for &p in primes {
                let p = p as u64;
                if p * p > v {
                    break;
                }
                if v % p == 0 {
                    return COMPOSITE;
                }
            }
            return PRIME;
        }
    }
    if x[0] & 1 == 0 {
        return COMPOSITE;
    }
    for g in groups {
        let m = g[0] as u64;
        let mut r = 0u64;
        for &v in x[..n].iter().rev() {
            r = ((r << 32) | (v >> 32)) % m;
            r = ((r << 32) | (v & 0xFFFF_FFFF)) % m;
        }
        for &p in &primes[g[1] as usize..(g[1] + g[2]) as usize] {
            if r.is_multiple_of(p as u64) {
                return COMPOSITE;
            }
        }
    }
    UNKNOWN
}

/// The screen per element.
pub fn screen(a: &[u64], l: usize) -> Vec<u8> {
    let (primes, groups) = screen_tables();
    a.par_chunks(l)
        .map(|x| screen_one(x, &primes, &groups))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn screen_tables_cover_the_primes() {
        let (p, g) = screen_tables();
        assert_eq!(p[0], 3);
        assert_eq!(*p.last().unwrap(), 1021);
        assert_eq!(g.iter().map(|x| x[2] as usize).sum::<usize>(), p.len());
        for x in &g {
            let prod: u64 = p[x[1] as usize..(x[1] + x[2]) as usize]
                .iter()
                .map(|&v| v as u64)
                .product();
            assert_eq!(prod, x[0] as u64);
        }
    }

    #[test]
    fn screen_small_numbers() {
        let (p, g) = screen_tables();
        let is_prime = |v: u64| {
            v >= 2
                && (2..v)
                    .take_while(|d| d * d <= v)
                    .all(|d| !v.is_multiple_of(d))
        };
        for v in 0..5000u64 {
            let c = screen_one(&[v, 0], &p, &g);
            if is_prime(v) {
                assert_eq!(c, PRIME, "{v}");
            } else {
                assert_eq!(c, COMPOSITE, "{v}");
            }
        }
        // 1031 * 1033: no factor below the bound.
        assert_eq!(screen_one(&[1031 * 1033, 0], &p, &g), UNKNOWN);
        assert_eq!(screen_one(&[1, 1], &p, &g), UNKNOWN); // 2^64 + 1
        assert_eq!(screen_one(&[15, 1], &p, &g), COMPOSITE); // 31 | 2^64 + 15
        assert_eq!(screen_one(&[25, 1], &p, &g), COMPOSITE); // 37 | 2^64 + 25
        assert_eq!(screen_one(&[2, 1], &p, &g), COMPOSITE); // even
    }
}
