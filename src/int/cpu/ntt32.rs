//! The NTT product with AVX2: limbs split into 32-bit halves, three primes
//! p < 2^30 with 2^23 | p - 1, eight lanes of 32-bit Montgomery arithmetic
//! per vector (`vpmuludq` on even and odd lanes). Same scheme as the 64-bit
//! scalar transform in `ntt.rs` (negacyclic, bit-reversed twiddles, lazy
//! values in [0, 4p)); the last three stages of each transform work inside
//! registers with shuffles. Each coefficient is below 2^16 * 2^64 < p1 p2 p3.

use std::arch::x86_64::*;
use std::sync::OnceLock;

/// The largest transform length (in 32-bit coefficients).
pub const MAX_LOG: u32 = 17;
const PRIMES: [u32; 3] = [998_244_353, 754_974_721, 469_762_049];
const GENERATORS: [u32; 3] = [3, 11, 3];

fn powmod(mut a: u64, mut e: u64, p: u64) -> u64 {
    let mut r = 1;
    while e > 0 {
        if e & 1 == 1 {
            r = r * a % p;
        }
        a = a * a % p;
        e >>= 1;
    }
    r
}

struct Prime {
    p: u32,
    /// `-p^-1 mod 2^32`.
    pinv: u32,
    /// Twiddles `psi^brv(k) * R mod p` (Montgomery form, R = 2^32) and
    /// the inverses, with eight entries of padding for vector loads.
    fwd: Vec<u32>,
    inv: Vec<u32>,
    /// `R^2 / L mod p` per `log L`: turns the pointwise Montgomery products
    /// into plain ones and divides by the inverse transform's L.
    scale: Vec<u32>,
}

impl Prime {
    fn new(p: u32, g: u32) -> Prime {
        let (p64, n) = (p as u64, 1u64 << MAX_LOG);
        let psi = powmod(g as u64, (p64 - 1) / (2 * n), p64);
        let r = (1u64 << 32) % p64;
        let mut fwd = vec![0u32; n as usize + 8];
        let mut inv = vec![0u32; n as usize + 8];
        for k in 0..n {
            let e = k.reverse_bits() >> (64 - MAX_LOG);
            let w = powmod(psi, e, p64);
            let wi = powmod(w, p64 - 2, p64);
            fwd[k as usize] = (w * r % p64) as u32;
            inv[k as usize] = (wi * r % p64) as u32;
        }
        let scale = (0..=MAX_LOG)
            .map(|lg| (r * r % p64 * powmod(1 << lg, p64 - 2, p64) % p64) as u32)
            .collect();
        let mut pi = p;
        for _ in 0..5 {
            pi = pi.wrapping_mul(2u32.wrapping_sub(p.wrapping_mul(pi)));
        }
        Prime {
            p,
            pinv: pi.wrapping_neg(),
            fwd,
            inv,
            scale,
        }
    }
}

/// Constants of the reconstruction (Garner's form), in Montgomery form
/// for the vector lanes: `1/p1 mod p2`, `p1 mod p3`, `1/(p1 p2) mod p3`.
struct Crt {
    i12: u32,
    p1m3: u32,
    i123: u32,
}

struct Tables {
    primes: [Prime; 3],
    crt: Crt,
}

fn tables() -> &'static Tables {
    static T: OnceLock<Tables> = OnceLock::new();
    T.get_or_init(|| {
        let [p1, p2, p3] = PRIMES.map(|p| p as u64);
        let m = |c: u64, p: u64| ((c << 32) % p) as u32;
        Tables {
            primes: [0, 1, 2].map(|i| Prime::new(PRIMES[i], GENERATORS[i])),
            crt: Crt {
                i12: m(powmod(p1 % p2, p2 - 2, p2), p2),
                p1m3: m(p1 % p3, p3),
                i123: m(powmod(p1 * p2 % p3, p3 - 2, p3), p3),
            },
        }
    })
}

/// The transform length (a power of two, at least 16) for an `an`-by-`bn`
/// limb product.
pub fn length(an: usize, bn: usize) -> usize {
    (2 * (an + bn) - 1).next_power_of_two().max(16)
}

/// Whether the transform serves an `an`-by-`bn` product.
pub fn fits(an: usize, bn: usize) -> bool {
    length(an, bn) <= 1 << MAX_LOG
}

/// Scratch limbs (64-bit) for [`mul`].
pub fn itch(an: usize, bn: usize) -> usize {
    2 * length(an, bn)
}

/// Whether this CPU can run [`mul`].
pub fn available() -> bool {
    std::arch::is_x86_feature_detected!("avx2")
}

/// `r[..an+bn] = a * b` (`b == None`: the square of `a`).
///
/// # Safety
/// AVX2 present ([`available`]); `fits(an, bn)`; `r` has `an + bn` limbs,
/// `s` at least `itch(an, bn)`.
#[target_feature(enable = "avx2")]
pub unsafe fn mul(r: &mut [u64], a: &[u64], b: Option<&[u64]>, s: &mut [u64], par: bool) {
    let an = a.len();
    let bn = b.map_or(an, |b| b.len());
    let l = length(an, bn);
    // SAFETY: u32 has a smaller alignment than u64, so the middle is everything.
    let (_, s32, _) = unsafe { s[..2 * l].align_to_mut::<u32>() };
    let (f, fb) = s32.split_at_mut(3 * l);
    let (f1, f23) = f.split_at_mut(l);
    let (f2, f3) = f23.split_at_mut(l);
    let t = tables();
    let prune = 2 * an <= l / 2 && 2 * bn <= l / 2;
    // SAFETY (all three): AVX2 is present, as this function requires.
    let run =
        |pr: &Prime, fa: &mut [u32], fb: &mut [u32]| unsafe { product(pr, fa, fb, a, b, prune) };
    if par {
        let mut g2 = vec![0u32; l];
        let mut g3 = vec![0u32; l];
        rayon::join(
            || run(&t.primes[0], f1, &mut fb[..l]),
            || {
                rayon::join(
                    || run(&t.primes[1], f2, &mut g2),
                    || run(&t.primes[2], f3, &mut g3),
                )
            },
        );
    } else {
        run(&t.primes[0], f1, &mut fb[..l]);
        run(&t.primes[1], f2, &mut fb[..l]);
        run(&t.primes[2], f3, &mut fb[..l]);
    }
    unsafe { crt(r, f1, f2, f3, &t.crt) };
}

/// Eight lanes of `x * w / 2^32 mod p` in [0, 2p), for `x < 4p`, `w < p`.
#[inline(always)]
unsafe fn mont(x: __m256i, w: __m256i, p: __m256i, pinv: __m256i) -> __m256i {
    unsafe {
        let pe = _mm256_mul_epu32(x, w);
        let po = _mm256_mul_epu32(_mm256_srli_epi64(x, 32), _mm256_srli_epi64(w, 32));
        let me = _mm256_mul_epu32(pe, pinv);
        let mo = _mm256_mul_epu32(po, pinv);
        let te = _mm256_add_epi64(pe, _mm256_mul_epu32(me, p));
        let to = _mm256_add_epi64(po, _mm256_mul_epu32(mo, p));
        _mm256_blend_epi32(_mm256_srli_epi64(te, 32), to, 0b1010_1010)
    }
}

/// The per-prime constants in vectors.
#[derive(Clone, Copy)]
struct V {
    p: __m256i,
    p2: __m256i,
    pinv: __m256i,
}

/// Forward (Cooley-Tukey) butterfly: `x, y < 4p` to `x + wy, x - wy`, both < 4p.
#[inline(always)]
unsafe fn bf_fwd(x: __m256i, y: __m256i, w: __m256i, v: V) -> (__m256i, __m256i) {
    unsafe {
        let x = _mm256_min_epu32(x, _mm256_sub_epi32(x, v.p2));
        let t = mont(y, w, v.p, v.pinv);
        (
            _mm256_add_epi32(x, t),
            _mm256_add_epi32(_mm256_sub_epi32(x, t), v.p2),
        )
    }
}

/// Inverse (Gentleman-Sande) butterfly: `x, y < 2p` to `x + y, (x - y) w`, both < 2p.
#[inline(always)]
unsafe fn bf_inv(x: __m256i, y: __m256i, w: __m256i, v: V) -> (__m256i, __m256i) {
    unsafe {
        let s = _mm256_add_epi32(x, y);
        let s = _mm256_min_epu32(s, _mm256_sub_epi32(s, v.p2));
        let d = _mm256_add_epi32(_mm256_sub_epi32(x, y), v.p2);
        (s, mont(d, w, v.p, v.pinv))
    }
}

#[inline(always)]
unsafe fn bf<const FWD: bool>(x: __m256i, y: __m256i, w: __m256i, v: V) -> (__m256i, __m256i) {
    unsafe {
        if FWD {
            bf_fwd(x, y, w, v)
        } else {
            bf_inv(x, y, w, v)
        }
    }
}

#[inline(always)]
unsafe fn ld(a: &[u32], i: usize) -> __m256i {
    debug_assert!(i + 8 <= a.len());
    unsafe { _mm256_loadu_si256(a.as_ptr().add(i) as *const __m256i) }
}

#[inline(always)]
unsafe fn st(a: &mut [u32], i: usize, x: __m256i) {
    debug_assert!(i + 8 <= a.len());
    unsafe { _mm256_storeu_si256(a.as_mut_ptr().add(i) as *mut __m256i, x) }
}

/// Twiddles for the in-register stages: eight table entries from `k`,
/// rearranged by `idx`.
#[inline(always)]
unsafe fn tw(z: &[u32], k: usize, idx: __m256i) -> __m256i {
    unsafe { _mm256_permutevar8x32_epi32(ld(z, k), idx) }
}

/// One stage with half-length `len` (number of blocks `m = L / 2len`).
#[inline(always)]
unsafe fn stage<const FWD: bool>(a: &mut [u32], z: &[u32], len: usize, v: V) {
    let l = a.len();
    let m = l / (2 * len);
    unsafe {
        match len {
            1 => {
                let idx = _mm256_setr_epi32(0, 1, 4, 5, 2, 3, 6, 7);
                for i in (0..l).step_by(16) {
                    let (a0, b0) = (
                        _mm256_castsi256_ps(ld(a, i)),
                        _mm256_castsi256_ps(ld(a, i + 8)),
                    );
                    let x = _mm256_castps_si256(_mm256_shuffle_ps::<0b10_00_10_00>(a0, b0));
                    let y = _mm256_castps_si256(_mm256_shuffle_ps::<0b11_01_11_01>(a0, b0));
                    let (x, y) = bf::<FWD>(x, y, tw(z, m + i / 2, idx), v);
                    st(a, i, _mm256_unpacklo_epi32(x, y));
                    st(a, i + 8, _mm256_unpackhi_epi32(x, y));
                }
            }
            2 => {
                let idx = _mm256_setr_epi32(0, 0, 2, 2, 1, 1, 3, 3);
                for i in (0..l).step_by(16) {
                    let (a0, b0) = (ld(a, i), ld(a, i + 8));
                    let x = _mm256_unpacklo_epi64(a0, b0);
                    let y = _mm256_unpackhi_epi64(a0, b0);
                    let (x, y) = bf::<FWD>(x, y, tw(z, m + i / 4, idx), v);
                    st(a, i, _mm256_unpacklo_epi64(x, y));
                    st(a, i + 8, _mm256_unpackhi_epi64(x, y));
                }
            }
            4 => {
                let idx = _mm256_setr_epi32(0, 0, 0, 0, 1, 1, 1, 1);
                for i in (0..l).step_by(16) {
                    let (a0, b0) = (ld(a, i), ld(a, i + 8));
                    let x = _mm256_permute2x128_si256::<0x20>(a0, b0);
                    let y = _mm256_permute2x128_si256::<0x31>(a0, b0);
                    let (x, y) = bf::<FWD>(x, y, tw(z, m + i / 8, idx), v);
                    st(a, i, _mm256_permute2x128_si256::<0x20>(x, y));
                    st(a, i + 8, _mm256_permute2x128_si256::<0x31>(x, y));
                }
            }
            _ => {
                for blk in 0..m {
                    let w = _mm256_set1_epi32(z[m + blk] as i32);
                    let base = 2 * len * blk;
                    for j in (base..base + len).step_by(8) {
                        let (x, y) = bf::<FWD>(ld(a, j), ld(a, j + len), w, v);
                        st(a, j, x);
                        st(a, j + len, y);
                    }
                }
            }
        }
    }
}

#[inline(always)]
unsafe fn reduce(x: __m256i, v: V) -> __m256i {
    unsafe {
        let x = _mm256_min_epu32(x, _mm256_sub_epi32(x, v.p2));
        _mm256_min_epu32(x, _mm256_sub_epi32(x, v.p))
    }
}

fn consts(pr: &Prime) -> V {
    // SAFETY: plain register set-ups.
    unsafe {
        V {
            p: _mm256_set1_epi32(pr.p as i32),
            p2: _mm256_set1_epi32(2 * pr.p as i32),
            pinv: _mm256_set1_epi32(pr.pinv as i32),
        }
    }
}

/// Loads the 32-bit halves of `x` (below 4p) into `f`, zeros above, and
/// transforms; with `prune` the top half of `f` is zero, so the first
/// stage only copies.
#[target_feature(enable = "avx2")]
unsafe fn forward(pr: &Prime, f: &mut [u32], x: &[u64], prune: bool) {
    let l = f.len();
    let v = consts(pr);
    let p4 = _mm256_set1_epi32((4 * pr.p) as i32);
    let n = 2 * x.len();
    // SAFETY: u64 to u32 halves (little-endian); u32 aligns within u64.
    let (_, h, _) = unsafe { x.align_to::<u32>() };
    let mut i = 0;
    unsafe {
        while i + 8 <= n {
            let y = ld(h, i);
            st(f, i, _mm256_min_epu32(y, _mm256_sub_epi32(y, p4)));
            i += 8;
        }
    }
    for j in i..n {
        let y = h[j];
        f[j] = if y >= 4 * pr.p { y - 4 * pr.p } else { y };
    }
    let mut len = l / 2;
    if prune {
        f[n..l / 2].fill(0);
        f.copy_within(..l / 2, l / 2);
        len /= 2;
    } else {
        f[n..].fill(0);
    }
    while len >= 1 {
        unsafe { stage::<true>(f, &pr.fwd, len, v) };
        len /= 2;
    }
}

/// The residues of the product mod one prime, in [0, p), into `fa`.
#[target_feature(enable = "avx2")]
unsafe fn product(
    pr: &Prime,
    fa: &mut [u32],
    fb: &mut [u32],
    a: &[u64],
    b: Option<&[u64]>,
    prune: bool,
) {
    let l = fa.len();
    let v = consts(pr);
    let s = _mm256_set1_epi32(pr.scale[l.trailing_zeros() as usize] as i32);
    unsafe {
        forward(pr, fa, a, prune);
        match b {
            Some(b) => {
                forward(pr, fb, b, prune);
                for i in (0..l).step_by(8) {
                    let t = mont(ld(fa, i), reduce(ld(fb, i), v), v.p, v.pinv);
                    st(fa, i, mont(t, s, v.p, v.pinv));
                }
            }
            None => {
                for i in (0..l).step_by(8) {
                    let x = ld(fa, i);
                    let t = mont(x, reduce(x, v), v.p, v.pinv);
                    st(fa, i, mont(t, s, v.p, v.pinv));
                }
            }
        }
        let mut len = 1;
        while len < l {
            stage::<false>(fa, &pr.inv, len, v);
            len *= 2;
        }
        for i in (0..l).step_by(8) {
            let x = ld(fa, i);
            st(fa, i, _mm256_min_epu32(x, _mm256_sub_epi32(x, v.p)));
        }
    }
}

/// Garner's reconstruction: each coefficient is `r1 + p1 v2 + p1 p2 v3`
/// with `v2 < p2`, `v3 < p3` computed in the vector lanes (in place of the
/// residues mod p2 and p3). Read two 32-bit coefficients to a limb, the
/// residue arrays are then three numbers, and the product is
/// `R1 + p1 V2 + p1 p2 V3`: two single-limb multiply-adds.
#[target_feature(enable = "avx2")]
unsafe fn crt(r: &mut [u64], f1: &[u32], f2: &mut [u32], f3: &mut [u32], c: &Crt) {
    let t = tables();
    let (v2c, v3c) = (consts(&t.primes[1]), consts(&t.primes[2]));
    let (i12, p1m3, i123) = (
        _mm256_set1_epi32(c.i12 as i32),
        _mm256_set1_epi32(c.p1m3 as i32),
        _mm256_set1_epi32(c.i123 as i32),
    );
    let red = |x: __m256i, p: __m256i| _mm256_min_epu32(x, _mm256_sub_epi32(x, p));
    let n = 2 * r.len();
    for i in (0..n).step_by(8) {
        unsafe {
            let (r1, r2, r3) = (ld(f1, i), ld(f2, i), ld(f3, i));
            // v2 = (r2 - r1) / p1 mod p2
            let d = _mm256_sub_epi32(_mm256_add_epi32(r2, v2c.p), red(r1, v2c.p));
            let v2 = red(mont(d, i12, v2c.p, v2c.pinv), v2c.p);
            // v3 = (r3 - r1 - p1 v2) / (p1 p2) mod p3
            let r1m3 = red(red(r1, v3c.p2), v3c.p);
            let s = _mm256_add_epi32(r1m3, red(mont(v2, p1m3, v3c.p, v3c.pinv), v3c.p));
            let s = red(s, v3c.p);
            let d = _mm256_sub_epi32(_mm256_add_epi32(r3, v3c.p), s);
            let v3 = red(mont(d, i123, v3c.p, v3c.pinv), v3c.p);
            st(f2, i, v2);
            st(f3, i, v3);
        }
    }
    fn as64(f: &[u32]) -> &[u64] {
        // SAFETY: the residue arrays start at multiples of 16 u32 inside a
        // u64 buffer, so the whole even length reads as u64.
        let (pre, mid, _) = unsafe { f.align_to::<u64>() };
        assert!(pre.is_empty());
        mid
    }
    let [p1, p2, _] = PRIMES.map(|p| p as u64);
    r.copy_from_slice(as64(&f1[..n]));
    let c1 = super::arith::addmul_1(r, as64(&f2[..n]), p1);
    let c2 = super::arith::addmul_1(r, as64(&f3[..n]), p1 * p2);
    debug_assert!(c1 == 0 && c2 == 0);
}
