//! The NTT product in SIMD lanes: limbs split into 32-bit halves, three
//! primes p < 2^30 with 2^23 | p - 1, 32-bit Montgomery arithmetic in each
//! lane (`vpmuludq` on even and odd lanes), eight lanes with AVX2 or sixteen
//! with AVX-512. Same scheme as the 64-bit scalar transform in `ntt.rs`
//! (negacyclic, bit-reversed twiddles, lazy values in [0, 4p)); the stages
//! shorter than a vector work inside registers with permutes. Each
//! coefficient is below 2^16 * 2^64 < p1 p2 p3. The code is written once
//! over the [`Simd`] trait and compiled for each instruction set.

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
    /// the inverses, with sixteen entries of padding for vector loads.
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
        let mut fwd = vec![0u32; n as usize + 16];
        let mut inv = vec![0u32; n as usize + 16];
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

/// The transform length (a power of two, at least 32) for an `an`-by-`bn`
/// limb product.
pub fn length(an: usize, bn: usize) -> usize {
    (2 * (an + bn) - 1).next_power_of_two().max(32)
}

/// Whether the transform serves an `an`-by-`bn` product.
pub fn fits(an: usize, bn: usize) -> bool {
    length(an, bn) <= 1 << MAX_LOG
}

/// Scratch limbs (64-bit) for [`mul`].
pub fn itch(an: usize, bn: usize) -> usize {
    2 * length(an, bn)
}

/// Whether this CPU can run [`mul`] (AVX2 at least).
pub fn available() -> bool {
    std::arch::is_x86_feature_detected!("avx2")
}

static NO_AVX512: std::sync::atomic::AtomicBool = std::sync::atomic::AtomicBool::new(false);

/// Keeps the transform on AVX2 even where AVX-512 is present (for tests and
/// comparisons; the bits are the same).
#[doc(hidden)]
pub fn avoid_avx512(on: bool) {
    NO_AVX512.store(on, std::sync::atomic::Ordering::Relaxed);
}

pub fn use_avx512() -> bool {
    !NO_AVX512.load(std::sync::atomic::Ordering::Relaxed)
        && std::arch::is_x86_feature_detected!("avx512f")
}

/// `r[..an+bn] = a * b` (`b == None`: the square of `a`).
///
/// # Safety
/// AVX2 present ([`available`]); `fits(an, bn)`; `r` has `an + bn` limbs,
/// `s` at least `itch(an, bn)`.
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
    let wide = use_avx512();
    // SAFETY (all uses): the instruction set checked here and by the caller.
    let run = |pr: &Prime, fa: &mut [u32], fb: &mut [u32]| unsafe {
        if wide {
            product_avx512(pr, fa, fb, a, b, prune)
        } else {
            product_avx2(pr, fa, fb, a, b, prune)
        }
    };
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
    unsafe {
        if wide {
            crt_avx512(r, f1, f2, f3, &t.crt)
        } else {
            crt_avx2(r, f1, f2, f3, &t.crt)
        }
    }
}

/// The lane operations the transform needs. Every method requires its
/// instruction set (callers are `#[target_feature]` functions).
trait Simd: Copy {
    /// Lanes of u32.
    const N: usize;
    unsafe fn splat(x: u32) -> Self;
    unsafe fn load(a: &[u32], i: usize) -> Self;
    unsafe fn store(self, a: &mut [u32], i: usize);
    unsafe fn add(self, o: Self) -> Self;
    unsafe fn sub(self, o: Self) -> Self;
    unsafe fn min(self, o: Self) -> Self;
    /// Lane-wise `x * w / 2^32 mod p` in [0, 2p), for `x < 4p`, `w < p`.
    unsafe fn mont(self, w: Self, p: Self, pinv: Self) -> Self;
    /// The stages shorter than a vector (`len < N`): `FWD` butterflies
    /// with twiddles `z[m + blk]`.
    unsafe fn short_stage<const FWD: bool>(
        a: &mut [u32],
        z: &[u32],
        len: usize,
        m: usize,
        v: Consts<Self>,
    );
}

/// One prime's constants in lanes.
#[derive(Clone, Copy)]
struct Consts<S> {
    p: S,
    p2: S,
    pinv: S,
}

#[inline(always)]
unsafe fn consts<S: Simd>(pr: &Prime) -> Consts<S> {
    unsafe {
        Consts {
            p: S::splat(pr.p),
            p2: S::splat(2 * pr.p),
            pinv: S::splat(pr.pinv),
        }
    }
}

/// `x - 2p` where that is smaller (unsigned), i.e. `x mod 2p` for `x < 4p`.
#[inline(always)]
unsafe fn red<S: Simd>(x: S, m: S) -> S {
    unsafe { x.min(x.sub(m)) }
}

/// A butterfly: forward (Cooley-Tukey) `x, y < 4p` to `x + wy, x - wy`
/// (both < 4p), or inverse (Gentleman-Sande) `x, y < 2p` to
/// `x + y, (x - y) w` (both < 2p).
#[inline(always)]
unsafe fn bf<S: Simd, const FWD: bool>(x: S, y: S, w: S, v: Consts<S>) -> (S, S) {
    unsafe {
        if FWD {
            let x = red(x, v.p2);
            let t = y.mont(w, v.p, v.pinv);
            (x.add(t), x.sub(t).add(v.p2))
        } else {
            let s = red(x.add(y), v.p2);
            (s, x.sub(y).add(v.p2).mont(w, v.p, v.pinv))
        }
    }
}

/// One stage with half-length `len` (`m = L / 2len` blocks).
#[inline(always)]
unsafe fn stage<S: Simd, const FWD: bool>(
    a: &mut [u32],
    z: &[u32],
    len: usize,
    m: usize,
    v: Consts<S>,
) {
    if len < S::N {
        return unsafe { S::short_stage::<FWD>(a, z, len, m, v) };
    }
    for blk in 0..a.len() / (2 * len) {
        let w = unsafe { S::splat(z[m + blk]) };
        let base = 2 * len * blk;
        for j in (base..base + len).step_by(S::N) {
            unsafe {
                let (x, y) = bf::<S, FWD>(S::load(a, j), S::load(a, j + len), w, v);
                x.store(a, j);
                y.store(a, j + len);
            }
        }
    }
}

/// Elements per cache block: stages whose butterflies stay within such a
/// block run block by block (16 KB, in L1), the larger ones as passes over
/// the whole array.
const BLOCK: usize = 4096;

/// Loads the 32-bit halves of `x` (below 4p) into `f`, zeros above, and
/// runs the forward stages larger than a block; with `prune` the top half
/// of `f` is zero, so the first stage only copies. Returns the `len` of
/// the next stage.
#[inline(always)]
unsafe fn load_big<S: Simd>(pr: &Prime, f: &mut [u32], x: &[u64], prune: bool) -> usize {
    let l = f.len();
    let n = 2 * x.len();
    // SAFETY: u64 to u32 halves (little-endian); u32 aligns within u64.
    let (_, h, _) = unsafe { x.align_to::<u32>() };
    unsafe {
        let v = consts::<S>(pr);
        let p4 = S::splat(4 * pr.p);
        let mut i = 0;
        while i + S::N <= n {
            red(S::load(h, i), p4).store(f, i);
            i += S::N;
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
        while len >= BLOCK {
            stage::<S, true>(f, &pr.fwd, len, l / (2 * len), v);
            len /= 2;
        }
        len
    }
}

/// The stages from `len` down to 1 on the block of `f` starting at `base`.
#[inline(always)]
unsafe fn fwd_block<S: Simd>(
    pr: &Prime,
    f: &mut [u32],
    l: usize,
    base: usize,
    mut len: usize,
    v: Consts<S>,
) {
    while len >= 1 {
        unsafe { stage::<S, true>(f, &pr.fwd[base / (2 * len)..], len, l / (2 * len), v) };
        len /= 2;
    }
}

/// The inverse stages from 1 up to (not including) `end` on the block of `f` starting at `base`.
#[inline(always)]
unsafe fn inv_block<S: Simd>(
    pr: &Prime,
    f: &mut [u32],
    l: usize,
    base: usize,
    end: usize,
    v: Consts<S>,
) {
    let mut len = 1;
    while len < end {
        unsafe { stage::<S, false>(f, &pr.inv[base / (2 * len)..], len, l / (2 * len), v) };
        len *= 2;
    }
}

/// The residues of the product mod one prime, in [0, p), into `fa`: the
/// large forward stages as passes, then block by block the small forward
/// stages of both operands, the pointwise product and the small inverse
/// stages, then the large inverse stages.
#[inline(always)]
unsafe fn product<S: Simd>(
    pr: &Prime,
    fa: &mut [u32],
    fb: &mut [u32],
    a: &[u64],
    b: Option<&[u64]>,
    prune: bool,
) {
    let l = fa.len();
    let bs = BLOCK.min(l);
    unsafe {
        let v = consts::<S>(pr);
        let sc = S::splat(pr.scale[l.trailing_zeros() as usize]);
        let len = load_big::<S>(pr, fa, a, prune);
        if let Some(b) = b {
            load_big::<S>(pr, fb, b, prune);
        }
        for base in (0..l).step_by(bs) {
            let xa = &mut fa[base..base + bs];
            fwd_block::<S>(pr, xa, l, base, len, v);
            match b {
                Some(_) => {
                    let xb = &mut fb[base..base + bs];
                    fwd_block::<S>(pr, xb, l, base, len, v);
                    for i in (0..bs).step_by(S::N) {
                        let y = red(red(S::load(xb, i), v.p2), v.p);
                        let t = S::load(xa, i).mont(y, v.p, v.pinv);
                        t.mont(sc, v.p, v.pinv).store(xa, i);
                    }
                }
                None => {
                    for i in (0..bs).step_by(S::N) {
                        let x = S::load(xa, i);
                        let t = x.mont(red(red(x, v.p2), v.p), v.p, v.pinv);
                        t.mont(sc, v.p, v.pinv).store(xa, i);
                    }
                }
            }
            inv_block::<S>(pr, xa, l, base, bs, v);
        }
        let mut len = bs;
        while len < l {
            stage::<S, false>(fa, &pr.inv, len, l / (2 * len), v);
            len *= 2;
        }
        for i in (0..l).step_by(S::N) {
            red(S::load(fa, i), v.p).store(fa, i);
        }
    }
}

/// Garner's reconstruction: each coefficient is `r1 + p1 v2 + p1 p2 v3`
/// with `v2 < p2`, `v3 < p3` computed in the lanes (in place of the
/// residues mod p2 and p3). Read two 32-bit coefficients to a limb, the
/// residue arrays are then three numbers, and the product is
/// `R1 + p1 V2 + p1 p2 V3`: two single-limb multiply-adds.
#[inline(always)]
unsafe fn crt<S: Simd>(r: &mut [u64], f1: &[u32], f2: &mut [u32], f3: &mut [u32], c: &Crt) {
    let t = tables();
    let n = 2 * r.len();
    unsafe {
        let (c2, c3) = (consts::<S>(&t.primes[1]), consts::<S>(&t.primes[2]));
        let (i12, p1m3, i123) = (S::splat(c.i12), S::splat(c.p1m3), S::splat(c.i123));
        for i in (0..n).step_by(S::N) {
            let (r1, r2, r3) = (S::load(f1, i), S::load(f2, i), S::load(f3, i));
            // v2 = (r2 - r1) / p1 mod p2
            let d = r2.add(c2.p).sub(red(r1, c2.p));
            let v2 = red(d.mont(i12, c2.p, c2.pinv), c2.p);
            // v3 = (r3 - r1 - p1 v2) / (p1 p2) mod p3
            let r1m3 = red(red(r1, c3.p2), c3.p);
            let s = red(r1m3.add(red(v2.mont(p1m3, c3.p, c3.pinv), c3.p)), c3.p);
            let v3 = red(r3.add(c3.p).sub(s).mont(i123, c3.p, c3.pinv), c3.p);
            v2.store(f2, i);
            v3.store(f3, i);
        }
    }
    fn as64(f: &[u32]) -> &[u64] {
        // SAFETY: the residue arrays start at multiples of 32 u32 inside a
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

#[target_feature(enable = "avx2")]
unsafe fn product_avx2(
    pr: &Prime,
    fa: &mut [u32],
    fb: &mut [u32],
    a: &[u64],
    b: Option<&[u64]>,
    prune: bool,
) {
    unsafe { product::<Avx2>(pr, fa, fb, a, b, prune) }
}

#[target_feature(enable = "avx512f")]
unsafe fn product_avx512(
    pr: &Prime,
    fa: &mut [u32],
    fb: &mut [u32],
    a: &[u64],
    b: Option<&[u64]>,
    prune: bool,
) {
    unsafe { product::<Avx512>(pr, fa, fb, a, b, prune) }
}

#[target_feature(enable = "avx2")]
unsafe fn crt_avx2(r: &mut [u64], f1: &[u32], f2: &mut [u32], f3: &mut [u32], c: &Crt) {
    unsafe { crt::<Avx2>(r, f1, f2, f3, c) }
}

#[target_feature(enable = "avx512f")]
unsafe fn crt_avx512(r: &mut [u64], f1: &[u32], f2: &mut [u32], f3: &mut [u32], c: &Crt) {
    unsafe { crt::<Avx512>(r, f1, f2, f3, c) }
}

#[derive(Clone, Copy)]
struct Avx2(__m256i);

impl Simd for Avx2 {
    const N: usize = 8;
    #[inline(always)]
    unsafe fn splat(x: u32) -> Self {
        unsafe { Avx2(_mm256_set1_epi32(x as i32)) }
    }
    #[inline(always)]
    unsafe fn load(a: &[u32], i: usize) -> Self {
        debug_assert!(i + 8 <= a.len());
        Avx2(unsafe { _mm256_loadu_si256(a.as_ptr().add(i) as *const __m256i) })
    }
    #[inline(always)]
    unsafe fn store(self, a: &mut [u32], i: usize) {
        debug_assert!(i + 8 <= a.len());
        unsafe { _mm256_storeu_si256(a.as_mut_ptr().add(i) as *mut __m256i, self.0) }
    }
    #[inline(always)]
    unsafe fn add(self, o: Self) -> Self {
        unsafe { Avx2(_mm256_add_epi32(self.0, o.0)) }
    }
    #[inline(always)]
    unsafe fn sub(self, o: Self) -> Self {
        unsafe { Avx2(_mm256_sub_epi32(self.0, o.0)) }
    }
    #[inline(always)]
    unsafe fn min(self, o: Self) -> Self {
        unsafe { Avx2(_mm256_min_epu32(self.0, o.0)) }
    }
    #[inline(always)]
    unsafe fn mont(self, w: Self, p: Self, pinv: Self) -> Self {
        unsafe {
            let (x, w, p, pinv) = (self.0, w.0, p.0, pinv.0);
            let pe = _mm256_mul_epu32(x, w);
            let po = _mm256_mul_epu32(_mm256_srli_epi64(x, 32), _mm256_srli_epi64(w, 32));
            let me = _mm256_mul_epu32(pe, pinv);
            let mo = _mm256_mul_epu32(po, pinv);
            let te = _mm256_add_epi64(pe, _mm256_mul_epu32(me, p));
            let to = _mm256_add_epi64(po, _mm256_mul_epu32(mo, p));
            Avx2(_mm256_blend_epi32(
                _mm256_srli_epi64(te, 32),
                to,
                0b1010_1010,
            ))
        }
    }
    #[inline(always)]
    unsafe fn short_stage<const FWD: bool>(
        a: &mut [u32],
        z: &[u32],
        len: usize,
        m: usize,
        v: Consts<Self>,
    ) {
        let l = a.len();
        // Twiddles: eight table entries from k, rearranged by idx.
        #[inline(always)]
        unsafe fn tw(z: &[u32], k: usize, idx: __m256i) -> Avx2 {
            unsafe { Avx2(_mm256_permutevar8x32_epi32(Avx2::load(z, k).0, idx)) }
        }
        unsafe {
            match len {
                1 => {
                    let idx = _mm256_setr_epi32(0, 1, 4, 5, 2, 3, 6, 7);
                    for i in (0..l).step_by(16) {
                        let a0 = _mm256_castsi256_ps(Self::load(a, i).0);
                        let b0 = _mm256_castsi256_ps(Self::load(a, i + 8).0);
                        let x = Avx2(_mm256_castps_si256(_mm256_shuffle_ps::<0b10_00_10_00>(
                            a0, b0,
                        )));
                        let y = Avx2(_mm256_castps_si256(_mm256_shuffle_ps::<0b11_01_11_01>(
                            a0, b0,
                        )));
                        let (x, y) = bf::<Self, FWD>(x, y, tw(z, m + i / 2, idx), v);
                        Avx2(_mm256_unpacklo_epi32(x.0, y.0)).store(a, i);
                        Avx2(_mm256_unpackhi_epi32(x.0, y.0)).store(a, i + 8);
                    }
                }
                2 => {
                    let idx = _mm256_setr_epi32(0, 0, 2, 2, 1, 1, 3, 3);
                    for i in (0..l).step_by(16) {
                        let (a0, b0) = (Self::load(a, i).0, Self::load(a, i + 8).0);
                        let x = Avx2(_mm256_unpacklo_epi64(a0, b0));
                        let y = Avx2(_mm256_unpackhi_epi64(a0, b0));
                        let (x, y) = bf::<Self, FWD>(x, y, tw(z, m + i / 4, idx), v);
                        Avx2(_mm256_unpacklo_epi64(x.0, y.0)).store(a, i);
                        Avx2(_mm256_unpackhi_epi64(x.0, y.0)).store(a, i + 8);
                    }
                }
                _ => {
                    debug_assert_eq!(len, 4);
                    let idx = _mm256_setr_epi32(0, 0, 0, 0, 1, 1, 1, 1);
                    for i in (0..l).step_by(16) {
                        let (a0, b0) = (Self::load(a, i).0, Self::load(a, i + 8).0);
                        let x = Avx2(_mm256_permute2x128_si256::<0x20>(a0, b0));
                        let y = Avx2(_mm256_permute2x128_si256::<0x31>(a0, b0));
                        let (x, y) = bf::<Self, FWD>(x, y, tw(z, m + i / 8, idx), v);
                        Avx2(_mm256_permute2x128_si256::<0x20>(x.0, y.0)).store(a, i);
                        Avx2(_mm256_permute2x128_si256::<0x31>(x.0, y.0)).store(a, i + 8);
                    }
                }
            }
        }
    }
}

#[derive(Clone, Copy)]
struct Avx512(__m512i);

/// Permute tables for the short stages with sixteen lanes, per `log2 len`
/// (0..4): from the 32 lanes of two vectors, the indices of the `x` and `y`
/// lanes (in order), the positions back (`x` lanes 0..16, `y` lanes 16..32),
/// and the block of each `x` lane among the 16 / len blocks.
const fn short_tables() -> [[[u32; 32]; 4]; 4] {
    let mut t = [[[0u32; 32]; 4]; 4];
    let mut lg = 0;
    while lg < 4 {
        let len = 1usize << lg;
        let (mut nx, mut ny) = (0usize, 0usize);
        let mut e = 0;
        while e < 32 {
            if (e / len).is_multiple_of(2) {
                t[lg][0][nx] = e as u32;
                t[lg][2][e] = nx as u32;
                t[lg][3][nx] = (e / (2 * len)) as u32;
                nx += 1;
            } else {
                t[lg][1][ny] = e as u32;
                t[lg][2][e] = 16 + ny as u32;
                ny += 1;
            }
            e += 1;
        }
        lg += 1;
    }
    t
}

const SHORT: [[[u32; 32]; 4]; 4] = short_tables();

impl Simd for Avx512 {
    const N: usize = 16;
    #[inline(always)]
    unsafe fn splat(x: u32) -> Self {
        unsafe { Avx512(_mm512_set1_epi32(x as i32)) }
    }
    #[inline(always)]
    unsafe fn load(a: &[u32], i: usize) -> Self {
        debug_assert!(i + 16 <= a.len());
        Avx512(unsafe { _mm512_loadu_si512(a.as_ptr().add(i) as *const __m512i) })
    }
    #[inline(always)]
    unsafe fn store(self, a: &mut [u32], i: usize) {
        debug_assert!(i + 16 <= a.len());
        unsafe { _mm512_storeu_si512(a.as_mut_ptr().add(i) as *mut __m512i, self.0) }
    }
    #[inline(always)]
    unsafe fn add(self, o: Self) -> Self {
        unsafe { Avx512(_mm512_add_epi32(self.0, o.0)) }
    }
    #[inline(always)]
    unsafe fn sub(self, o: Self) -> Self {
        unsafe { Avx512(_mm512_sub_epi32(self.0, o.0)) }
    }
    #[inline(always)]
    unsafe fn min(self, o: Self) -> Self {
        unsafe { Avx512(_mm512_min_epu32(self.0, o.0)) }
    }
    #[inline(always)]
    unsafe fn mont(self, w: Self, p: Self, pinv: Self) -> Self {
        unsafe {
            let (x, w, p, pinv) = (self.0, w.0, p.0, pinv.0);
            let pe = _mm512_mul_epu32(x, w);
            let po = _mm512_mul_epu32(_mm512_srli_epi64(x, 32), _mm512_srli_epi64(w, 32));
            let me = _mm512_mul_epu32(pe, pinv);
            let mo = _mm512_mul_epu32(po, pinv);
            let te = _mm512_add_epi64(pe, _mm512_mul_epu32(me, p));
            let to = _mm512_add_epi64(po, _mm512_mul_epu32(mo, p));
            Avx512(_mm512_mask_blend_epi32(
                0xAAAA,
                _mm512_srli_epi64(te, 32),
                to,
            ))
        }
    }
    #[inline(always)]
    unsafe fn short_stage<const FWD: bool>(
        a: &mut [u32],
        z: &[u32],
        len: usize,
        m: usize,
        v: Consts<Self>,
    ) {
        let l = a.len();
        let t = &SHORT[len.trailing_zeros() as usize];
        unsafe {
            let ix = _mm512_loadu_si512(t[0].as_ptr() as *const __m512i);
            let iy = _mm512_loadu_si512(t[1].as_ptr() as *const __m512i);
            let ia = _mm512_loadu_si512(t[2].as_ptr() as *const __m512i);
            let ib = _mm512_loadu_si512(t[2].as_ptr().add(16) as *const __m512i);
            let iw = _mm512_loadu_si512(t[3].as_ptr() as *const __m512i);
            // Two vectors (32 lanes) hold 16 / len blocks.
            let per = 16 / len;
            for i in (0..l).step_by(32) {
                let (a0, b0) = (Self::load(a, i).0, Self::load(a, i + 16).0);
                let x = Avx512(_mm512_permutex2var_epi32(a0, ix, b0));
                let y = Avx512(_mm512_permutex2var_epi32(a0, iy, b0));
                let w = Avx512(_mm512_permutexvar_epi32(
                    iw,
                    Self::load(z, m + i / 32 * per).0,
                ));
                let (x, y) = bf::<Self, FWD>(x, y, w, v);
                Avx512(_mm512_permutex2var_epi32(x.0, ia, y.0)).store(a, i);
                Avx512(_mm512_permutex2var_epi32(x.0, ib, y.0)).store(a, i + 16);
            }
        }
    }
}
