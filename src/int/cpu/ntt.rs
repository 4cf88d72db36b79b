//! Multiplication by number-theoretic transforms: each operand's limbs are
//! the coefficients of a polynomial; the product is computed modulo three
//! primes p < 2^62 with 2^33 | p - 1 by negacyclic NTTs of a power-of-two
//! length `L >= an + bn` (so nothing wraps around), then put together by
//! the Chinese remainder theorem (Garner) and carried into limbs. Each
//! coefficient is below `L * 2^128 <= 2^148 < p1 p2 p3`, so the result is
//! exact. Transforms use Harvey's lazy butterflies with Shoup's
//! precomputed quotients (values kept in [0, 4p)); twiddles are stored in
//! bit-reversed order, one table per prime serving every length.

use std::sync::OnceLock;

use crate::modp::{inv, mulmod, powmod};

/// The largest transform length supported (2^16 limbs of product: enough
/// for two 2^21-bit operands).
pub const MAX_LOG: u32 = 16;

const PRIMES: [u64; 3] = [
    0x3fff_ffee_0000_0001,
    0x3fff_ffb4_0000_0001,
    0x3fff_ffa0_0000_0001,
];
const GENERATORS: [u64; 3] = [3, 19, 3];

/// Shoup's companion of `w`: `floor(w * 2^64 / p)`.
#[inline(always)]
fn shoup(w: u64, p: u64) -> u64 {
    (((w as u128) << 64) / p as u128) as u64
}

/// `x * w mod p` in [0, 2p) for any 64-bit `x`, given `wp = shoup(w, p)`.
#[inline(always)]
fn mul_shoup(x: u64, w: u64, wp: u64, p: u64) -> u64 {
    let q = ((x as u128 * wp as u128) >> 64) as u64;
    x.wrapping_mul(w).wrapping_sub(q.wrapping_mul(p))
}

/// Tables of one prime.
struct Prime {
    p: u64,
    /// `-p^-1 mod 2^64`, for Montgomery reduction.
    pinv: u64,
    /// Twiddles `psi^brv(k)` and their inverses, with Shoup companions,
    /// interleaved as (w, w') pairs.
    fwd: Vec<[u64; 2]>,
    inv: Vec<[u64; 2]>,
    /// `2^64 / L mod p` for each `log L`, with companion: undoes the
    /// Montgomery factor of the pointwise products and the inverse
    /// transform's factor L.
    scale: Vec<[u64; 2]>,
}

impl Prime {
    fn new(p: u64, g: u64) -> Prime {
        let n = 1usize << MAX_LOG;
        let psi = powmod(g, (p - 1) / (2 * n as u64), p);
        let mut fwd = vec![[0u64; 2]; n];
        let mut inv_t = vec![[0u64; 2]; n];
        for (k, (f, i)) in fwd.iter_mut().zip(inv_t.iter_mut()).enumerate() {
            let e = (k as u64).reverse_bits() >> (64 - MAX_LOG);
            let w = powmod(psi, e, p);
            let wi = inv(w, p);
            *f = [w, shoup(w, p)];
            *i = [wi, shoup(wi, p)];
        }
        let r = ((1u128 << 64) % p as u128) as u64;
        let scale = (0..=MAX_LOG)
            .map(|lg| {
                let s = mulmod(r, inv(1u64 << lg, p), p);
                [s, shoup(s, p)]
            })
            .collect();
        // Newton iteration for p^-1 mod 2^64.
        let mut pi = p;
        for _ in 0..6 {
            pi = pi.wrapping_mul(2u64.wrapping_sub(p.wrapping_mul(pi)));
        }
        Prime {
            p,
            pinv: pi.wrapping_neg(),
            fwd,
            inv: inv_t,
            scale,
        }
    }

    /// Montgomery reduction of `t < p * 2^64`: `t / 2^64 mod p` in [0, 2p).
    #[inline(always)]
    fn redc(&self, t: u128) -> u64 {
        let m = (t as u64).wrapping_mul(self.pinv);
        let s = (t + m as u128 * self.p as u128) >> 64;
        s as u64
    }

    /// Forward negacyclic transform, natural order in, bit-reversed out;
    /// inputs in [0, 2p), outputs in [0, 4p).
    fn forward(&self, a: &mut [u64]) {
        let l = a.len();
        let p = self.p;
        let p2 = 2 * p;
        let mut m = 1;
        let mut len = l / 2;
        while len >= 1 {
            for blk in 0..m {
                let [w, wp] = self.fwd[m + blk];
                let (x, y) = a[2 * len * blk..2 * len * (blk + 1)].split_at_mut(len);
                for (x, y) in x.iter_mut().zip(y.iter_mut()) {
                    let mut u = *x;
                    if u >= p2 {
                        u -= p2;
                    }
                    let t = mul_shoup(*y, w, wp, p);
                    *x = u + t;
                    *y = u + p2 - t;
                }
            }
            m *= 2;
            len /= 2;
        }
    }

    /// Inverse transform, bit-reversed in, natural order out, times L;
    /// inputs and outputs in [0, 2p).
    fn inverse(&self, a: &mut [u64]) {
        let l = a.len();
        let p = self.p;
        let p2 = 2 * p;
        let mut m = l / 2;
        let mut len = 1;
        while len < l {
            for blk in 0..m {
                let [w, wp] = self.inv[m + blk];
                let (x, y) = a[2 * len * blk..2 * len * (blk + 1)].split_at_mut(len);
                for (x, y) in x.iter_mut().zip(y.iter_mut()) {
                    let (u, v) = (*x, *y);
                    let mut s = u + v;
                    if s >= p2 {
                        s -= p2;
                    }
                    *x = s;
                    *y = mul_shoup(u + p2 - v, w, wp, p);
                }
            }
            len *= 2;
            m /= 2;
        }
    }

    /// `f = x mod p` in [0, 2p), zero-padded.
    fn load(&self, f: &mut [u64], x: &[u64]) {
        let p = self.p;
        let one = shoup(1, p);
        for (f, &x) in f.iter_mut().zip(x) {
            *f = mul_shoup(x, 1, one, p);
        }
        f[x.len()..].fill(0);
    }

    /// The residues mod p of `a * b` (coefficient-wise), in [0, p), into `fa`;
    /// `fb` is scratch. `b == None` squares.
    fn product(&self, fa: &mut [u64], fb: &mut [u64], a: &[u64], b: Option<&[u64]>) {
        let p = self.p;
        let lg = fa.len().trailing_zeros() as usize;
        self.load(fa, a);
        self.forward(fa);
        let [s, sp] = self.scale[lg];
        let reduce = |x: u64| {
            let x = if x >= 2 * p { x - 2 * p } else { x };
            if x >= p { x - p } else { x }
        };
        match b {
            Some(b) => {
                self.load(fb, b);
                self.forward(fb);
                for (x, &y) in fa.iter_mut().zip(fb.iter()) {
                    let t = self.redc(reduce(*x) as u128 * reduce(y) as u128);
                    *x = mul_shoup(t, s, sp, p);
                }
            }
            None => {
                for x in fa.iter_mut() {
                    let r = reduce(*x);
                    let t = self.redc(r as u128 * r as u128);
                    *x = mul_shoup(t, s, sp, p);
                }
            }
        }
        self.inverse(fa);
        for x in fa.iter_mut() {
            let v = *x;
            *x = if v >= p { v - p } else { v };
        }
    }
}

/// Constants of the Chinese remainder step (Garner's form).
struct Crt {
    /// `p1^-1 mod p2` with companion.
    i12: [u64; 2],
    /// `p1 mod p3` with companion.
    p1m3: [u64; 2],
    /// `(p1 p2)^-1 mod p3` with companion.
    i123: [u64; 2],
    /// `p1 p2` as two limbs.
    p12: [u64; 2],
}

struct Tables {
    primes: [Prime; 3],
    crt: Crt,
}

fn tables() -> &'static Tables {
    static T: OnceLock<Tables> = OnceLock::new();
    T.get_or_init(|| {
        let [p1, p2, p3] = PRIMES;
        let w = |x: u64, p: u64| [x, shoup(x, p)];
        let p12 = p1 as u128 * p2 as u128;
        Tables {
            primes: [0, 1, 2].map(|i| Prime::new(PRIMES[i], GENERATORS[i])),
            crt: Crt {
                i12: w(inv(p1 % p2, p2), p2),
                p1m3: w(p1 % p3, p3),
                i123: w(inv((p12 % p3 as u128) as u64, p3), p3),
                p12: [p12 as u64, (p12 >> 64) as u64],
            },
        }
    })
}

/// Transform length for an `an`-by-`bn` product.
fn length(an: usize, bn: usize) -> usize {
    (an + bn - 1).next_power_of_two()
}

/// Which transform runs on this CPU.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    /// 32-bit lanes, sixteen to a vector.
    Avx512,
    /// 32-bit lanes, eight to a vector.
    Avx2,
    /// Three 62-bit primes, one lane.
    Scalar,
}

/// The transform [`mul`] runs now.
#[inline]
pub fn kind() -> Kind {
    #[cfg(target_arch = "x86_64")]
    if use_avx2() {
        return if super::ntt32::use_avx512() {
            Kind::Avx512
        } else {
            Kind::Avx2
        };
    }
    Kind::Scalar
}

/// Whether the AVX2 transform of `ntt32.rs` runs (x86-64 with AVX2, not
/// switched off).
#[inline]
fn use_avx2() -> bool {
    #[cfg(target_arch = "x86_64")]
    {
        !super::PORTABLE.load(std::sync::atomic::Ordering::Relaxed) && super::ntt32::available()
    }
    #[cfg(not(target_arch = "x86_64"))]
    false
}

/// Keeps the SIMD transform on AVX2 where AVX-512 is present (for tests and
/// comparisons; the bits are the same).
#[doc(hidden)]
pub fn avoid_avx512(on: bool) {
    #[cfg(target_arch = "x86_64")]
    super::ntt32::avoid_avx512(on);
    #[cfg(not(target_arch = "x86_64"))]
    let _ = on;
}

/// Whether an `an`-by-`bn` product fits the transform.
pub fn fits(an: usize, bn: usize) -> bool {
    an + bn <= 1 << MAX_LOG
}

/// Scratch limbs for [`mul`] (enough for either transform).
pub fn itch(an: usize, bn: usize) -> usize {
    4 * (an + bn).next_power_of_two().max(16)
}

/// `r[..an+bn] = a * b` (`b == None`: `a * a`, `r` of `2an` limbs). With
/// `par`, the three primes run on separate cores.
pub fn mul(r: &mut [u64], a: &[u64], b: Option<&[u64]>, s: &mut [u64], par: bool) {
    let an = a.len();
    let bn = b.map_or(an, |b| b.len());
    debug_assert!(fits(an, bn) && r.len() == an + bn && an >= 1 && bn >= 1);
    #[cfg(target_arch = "x86_64")]
    if use_avx2() {
        debug_assert!(super::ntt32::fits(an, bn) && s.len() >= super::ntt32::itch(an, bn));
        // SAFETY: AVX2 checked; sizes as asserted (ntt32 covers every length that fits here).
        unsafe { super::ntt32::mul(r, a, b, s, par) };
        return;
    }
    let l = length(an, bn);
    let t = tables();
    let (f, rest) = s.split_at_mut(3 * l);
    let (f1, f23) = f.split_at_mut(l);
    let (f2, f3) = f23.split_at_mut(l);
    if par {
        let mut g2 = vec![0u64; l];
        let mut g3 = vec![0u64; l];
        rayon::join(
            || t.primes[0].product(f1, &mut rest[..l], a, b),
            || {
                rayon::join(
                    || t.primes[1].product(f2, &mut g2, a, b),
                    || t.primes[2].product(f3, &mut g3, a, b),
                )
            },
        );
    } else {
        t.primes[0].product(f1, &mut rest[..l], a, b);
        t.primes[1].product(f2, &mut rest[..l], a, b);
        t.primes[2].product(f3, &mut rest[..l], a, b);
    }
    crt(r, f1, f2, f3, &t.crt);
}

/// Garner's reconstruction: each coefficient is `r1 + p1 v2 + p1 p2 v3`
/// with `v2 < p2`, `v3 < p3` (computed in place of the residues mod p2 and
/// p3); with one coefficient per limb the product is then
/// `R1 + p1 V2 + p1 p2 V3`, a few single-limb multiply-adds.
fn crt(r: &mut [u64], f1: &[u64], f2: &mut [u64], f3: &mut [u64], c: &Crt) {
    let [p1, p2, p3] = PRIMES;
    let n = r.len();
    let m = n.min(f1.len());
    for i in 0..m {
        let (r1, r2, r3) = (f1[i], f2[i], f3[i]);
        // v2 = (r2 - r1) / p1 mod p2
        let r1m2 = if r1 >= p2 { r1 - p2 } else { r1 };
        let d = if r2 >= r1m2 {
            r2 - r1m2
        } else {
            r2 + p2 - r1m2
        };
        let mut v2 = mul_shoup(d, c.i12[0], c.i12[1], p2);
        if v2 >= p2 {
            v2 -= p2;
        }
        // v3 = (r3 - r1 - p1 v2) / (p1 p2) mod p3
        let r1m3 = if r1 >= p3 { r1 - p3 } else { r1 };
        let mut t = mul_shoup(v2, c.p1m3[0], c.p1m3[1], p3);
        if t >= p3 {
            t -= p3;
        }
        let mut s = r1m3 + t;
        if s >= p3 {
            s -= p3;
        }
        let d = if r3 >= s { r3 - s } else { r3 + p3 - s };
        let mut v3 = mul_shoup(d, c.i123[0], c.i123[1], p3);
        if v3 >= p3 {
            v3 -= p3;
        }
        f2[i] = v2;
        f3[i] = v3;
    }
    use super::arith::{add_1_assign, addmul_1};
    r[..m].copy_from_slice(&f1[..m]);
    r[m..].fill(0);
    let k = addmul_1(&mut r[..m], &f2[..m], p1);
    let o1 = add_1_assign(&mut r[m..], k);
    let k = addmul_1(&mut r[..m], &f3[..m], c.p12[0]);
    let o2 = add_1_assign(&mut r[m..], k);
    let mm = m.min(n - 1);
    let k = addmul_1(&mut r[1..mm + 1], &f3[..mm], c.p12[1]);
    let o3 = add_1_assign(&mut r[mm + 1..], k);
    debug_assert!(!(o1 || o2 || o3));
}
