//! Parallel three-prime NTT multiplication for huge operands (the batch
//! transform of `int::cpu::ntt` stops at 2^16 limbs of product).
//!
//! Each limb is one coefficient; the cyclic convolution of length
//! `L = 2^lg >= an + bn - 1` is computed modulo three primes p < 2^62 with
//! 2^33 | p - 1 (coefficients are below `L * 2^128 <= 2^161 < p1 p2 p3`,
//! so the product is exact up to `lg = 33`), then put together by Garner's
//! reconstruction and carried into limbs.
//!
//! Layout (Bailey's four-step): the array is `R` rows of `C` limbs, index
//! `n = n1 + C n2`. Forward: length-`R` DFTs down the columns (eight
//! adjacent columns at a time, gathered into a cache-resident block) with
//! the twiddles `w_L^(n1 k2)` applied in the same pass, then length-`C`
//! DFTs along the rows. The rows of both operands are transformed,
//! multiplied pointwise and transformed back in one pass while in cache;
//! a last column pass finishes the inverse. Four passes over memory per
//! prime, every pass split across cores by rayon. The outputs of the
//! sub-DFTs are in bit-reversed order, which only matters for the twiddles
//! (the pointwise product does not care about order).
//!
//! Arithmetic is Montgomery's (R = 2^64) in u64 lanes, values kept lazy in
//! [0, 2p) (4p < 2^64).

use std::sync::OnceLock;

use rayon::prelude::*;

use crate::modp::{mulmod, powmod};

/// Largest supported `lg` (transform length 2^lg limbs).
pub const MAX_LG: u32 = 33;

const PRIMES: [u64; 3] = [
    0x3fff_ffee_0000_0001,
    0x3fff_ffb4_0000_0001,
    0x3fff_ffa0_0000_0001,
];
const GENERATORS: [u64; 3] = [3, 19, 3];

/// Largest sub-DFT length (rows and columns): enough for `lg = 33`.
const SUB_LG: u32 = 17;

/// Columns per gathered block (one cache line of each row).
const W: usize = 8;

/// `x mod m` for `x < 2m`, without a branch. On x86-64 a `cmov` in
/// assembly: written as `min`, LLVM vectorizes the loops into SSE2 lanes
/// that emulate the 64-bit compare and runs much slower.
#[inline(always)]
fn red(x: u64, m: u64) -> u64 {
    #[cfg(target_arch = "x86_64")]
    {
        let r: u64;
        // SAFETY: register-only arithmetic.
        unsafe {
            std::arch::asm!(
                "sub {t}, {m}",
                "cmovb {t}, {x}",
                t = inout(reg) x => r,
                x = in(reg) x,
                m = in(reg) m,
                options(pure, nomem, nostack),
            );
        }
        r
    }
    #[cfg(not(target_arch = "x86_64"))]
    x.min(x.wrapping_sub(m))
}

/// One prime's constants and the sub-DFT twiddles.
struct Prime {
    p: u64,
    /// `p^-1 mod 2^64`.
    pinv: u64,
    /// `2^64 mod p`.
    r1: u64,
    /// `tw[len + j] = w_{2 len}^j` in Montgomery form, for `len < 2^SUB_LG`.
    fwd: Vec<u64>,
    /// The same for the inverse roots.
    inv: Vec<u64>,
    g: u64,
}

impl Prime {
    fn new(p: u64, g: u64) -> Prime {
        let n = 1usize << SUB_LG;
        let r1 = ((1u128 << 64) % p as u128) as u64;
        let mut fwd = vec![0u64; n];
        let mut inv = vec![0u64; n];
        let mut len = 1;
        while len < n {
            let w = powmod(g, (p - 1) / (2 * len as u64), p);
            let wi = powmod(w, p - 2, p);
            let (mut x, mut y) = (r1, r1);
            for j in 0..len {
                fwd[len + j] = x;
                inv[len + j] = y;
                x = mulmod(x, w, p);
                y = mulmod(y, wi, p);
            }
            len *= 2;
        }
        let mut pi = p;
        for _ in 0..6 {
            pi = pi.wrapping_mul(2u64.wrapping_sub(p.wrapping_mul(pi)));
        }
        Prime {
            p,
            pinv: pi,
            r1,
            fwd,
            inv,
            g,
        }
    }

    /// `a b / 2^64 mod p` in (0, 2p), for `a b < p 2^64` (no branch).
    #[inline(always)]
    fn mont(&self, a: u64, b: u64) -> u64 {
        let t = a as u128 * b as u128;
        let m = (t as u64).wrapping_mul(self.pinv);
        let mp = ((m as u128 * self.p as u128) >> 64) as u64;
        let hi = (t >> 64) as u64;
        // hi < p and mp < p, and the low halves cancel exactly.
        hi.wrapping_sub(mp).wrapping_add(self.p)
    }

    /// Montgomery form of `x`.
    fn to_mont(&self, x: u64) -> u64 {
        mulmod(x, self.r1, self.p)
    }
}

fn primes() -> &'static [Prime; 3] {
    static T: OnceLock<[Prime; 3]> = OnceLock::new();
    T.get_or_init(|| [0, 1, 2].map(|i| Prime::new(PRIMES[i], GENERATORS[i])))
}

/// Decimation in frequency on `n` rows of `WL` lanes (natural order in,
/// bit-reversed out): inputs in [0, 2p), outputs in [0, 2p).
#[inline(always)]
fn dif<const WL: usize>(pr: &Prime, a: &mut [u64], n: usize) {
    let p2 = 2 * pr.p;
    let mut len = n / 2;
    while len >= 1 {
        let tw = &pr.fwd[len..2 * len];
        for blk in a[..n * WL].chunks_exact_mut(2 * len * WL) {
            let (xs, ys) = blk.split_at_mut(len * WL);
            let bf = |x: &mut u64, y: &mut u64, w: u64| {
                let (u, v) = (*x, *y);
                let s = u + v;
                *x = red(s, p2);
                *y = pr.mont(u + p2 - v, w);
            };
            if WL == 1 {
                for ((x, y), &w) in xs.iter_mut().zip(ys.iter_mut()).zip(tw) {
                    bf(x, y, w);
                }
            } else {
                for ((x, y), &w) in xs.chunks_exact_mut(WL).zip(ys.chunks_exact_mut(WL)).zip(tw) {
                    for (x, y) in x.iter_mut().zip(y.iter_mut()) {
                        bf(x, y, w);
                    }
                }
            }
        }
        len /= 2;
    }
}

/// Decimation in time, the inverse of [`dif`] times `n` (bit-reversed in,
/// natural out): inputs in [0, 2p), outputs in [0, 2p).
#[inline(always)]
fn dit<const WL: usize>(pr: &Prime, a: &mut [u64], n: usize) {
    let p2 = 2 * pr.p;
    let mut len = 1;
    while len < n {
        let tw = &pr.inv[len..2 * len];
        for blk in a[..n * WL].chunks_exact_mut(2 * len * WL) {
            let (xs, ys) = blk.split_at_mut(len * WL);
            let bf = |x: &mut u64, y: &mut u64, w: u64| {
                let (u, v) = (*x, *y);
                let t = pr.mont(v, w);
                let s = u + t;
                *x = red(s, p2);
                let d = u + p2 - t;
                *y = red(d, p2);
            };
            if WL == 1 {
                for ((x, y), &w) in xs.iter_mut().zip(ys.iter_mut()).zip(tw) {
                    bf(x, y, w);
                }
            } else {
                for ((x, y), &w) in xs.chunks_exact_mut(WL).zip(ys.chunks_exact_mut(WL)).zip(tw) {
                    for (x, y) in x.iter_mut().zip(y.iter_mut()) {
                        bf(x, y, w);
                    }
                }
            }
        }
        len *= 2;
    }
}

/// Twiddles `w_L^e` as the Montgomery product of two small tables
/// (`e = hi 2^h + lo`), in Montgomery form; the inverse ones carry the
/// factor `2^64 / L` that undoes the pointwise Montgomery products and the
/// inverse transform's factor `L`.
/// (Shared with `ntt52.rs`, whose Montgomery radix is 2^52.)
pub(super) struct Twiddles {
    pub(super) h: u32,
    pub(super) mask: usize,
    pub(super) lo: Vec<u64>,
    pub(super) hi: Vec<u64>,
    pub(super) ilo: Vec<u64>,
    pub(super) ihi: Vec<u64>,
}

impl Twiddles {
    fn new(pr: &Prime, lg: u32) -> Twiddles {
        Twiddles::build(pr.p, pr.g, lg, pr.r1)
    }

    /// The tables for length `2^lg` modulo `p` (generator `g`) in the
    /// Montgomery form whose one is `r` (`R mod p`).
    pub(super) fn build(p: u64, g: u64, lg: u32, r: u64) -> Twiddles {
        let l = 1u64 << lg;
        let h = lg.div_ceil(2);
        let w = powmod(g, (p - 1) / l, p);
        let wi = powmod(w, p - 2, p);
        let scale = mulmod(r, powmod(l % p, p - 2, p), p);
        let table = |root: u64, n: usize, first: u64| {
            let mut t = Vec::with_capacity(n);
            let mut x = first;
            for _ in 0..n {
                t.push(x);
                x = mulmod(x, root, p);
            }
            t
        };
        let nlo = 1usize << h;
        let nhi = 1usize << (lg - h);
        Twiddles {
            h,
            mask: nlo - 1,
            lo: table(w, nlo, r),
            hi: table(powmod(w, nlo as u64, p), nhi, r),
            ilo: table(wi, nlo, r),
            ihi: table(powmod(wi, nlo as u64, p), nhi, mulmod(scale, r, p)),
        }
    }

    /// `w^e` (Montgomery form), `e < L`.
    #[inline(always)]
    fn fwd(&self, pr: &Prime, e: usize) -> u64 {
        pr.mont(self.hi[e >> self.h], self.lo[e & self.mask])
    }

    /// `w^-e 2^64 / L` (Montgomery form), `e < L`.
    #[inline(always)]
    fn inv(&self, pr: &Prime, e: usize) -> u64 {
        pr.mont(self.ihi[e >> self.h], self.ilo[e & self.mask])
    }
}

/// A pointer that may be shared by tasks writing disjoint elements.
#[derive(Clone, Copy)]
struct Shared(*mut u64);
// SAFETY: every use writes disjoint index sets from different tasks.
unsafe impl Send for Shared {}
unsafe impl Sync for Shared {}

impl Shared {
    /// The pointer (a method, so closures capture the whole `Shared`).
    #[inline(always)]
    fn get(self) -> *mut u64 {
        self.0
    }
}

/// Geometry of one transform.
#[derive(Clone, Copy)]
struct Shape {
    lg: u32,
    /// Row length (columns).
    c: usize,
    /// Rows.
    r: usize,
}

impl Shape {
    fn new(lg: u32) -> Shape {
        let lc = lg.div_ceil(2);
        Shape {
            lg,
            c: 1 << lc,
            r: 1 << (lg - lc),
        }
    }
    fn rbits(&self) -> u32 {
        self.lg - self.c.trailing_zeros()
    }
}

/// Pass 1: the column DFTs of `src` (limbs, zero past its end) reduced mod
/// p, times the twiddles, into `x`.
fn forward_columns(pr: &Prime, tw: &Twiddles, sh: Shape, src: &[u64], x: &mut [u64]) {
    let (c, r) = (sh.c, sh.r);
    let rb = sh.rbits();
    let xp = Shared(x.as_mut_ptr());
    let p = pr.p;
    (0..c / W).into_par_iter().for_each_init(
        || vec![0u64; r * W],
        |buf, g| {
            let c0 = g * W;
            for n2 in 0..r {
                let base = n2 * c + c0;
                for l in 0..W {
                    let v = src.get(base + l).copied().unwrap_or(0);
                    // v - floor(v / 2^62) p is in [0, 2p).
                    buf[n2 * W + l] = v.wrapping_sub((v >> 62).wrapping_mul(p));
                }
            }
            dif::<W>(pr, buf, r);
            for pos in 0..r {
                let k2 = if rb == 0 {
                    0
                } else {
                    pos.reverse_bits() >> (usize::BITS - rb)
                };
                for l in 0..W {
                    let e = (k2 * (c0 + l)) & ((1usize << sh.lg) - 1);
                    let v = pr.mont(buf[pos * W + l], tw.fwd(pr, e));
                    // SAFETY: column group g owns columns c0..c0+W.
                    unsafe { *xp.get().add(pos * c + c0 + l) = v };
                }
            }
        },
    );
}

/// Pass 2: per row, the row DFTs of both operands, the pointwise product,
/// the inverse row DFT and the inverse twiddles, into `xa`.
fn rows(pr: &Prime, tw: &Twiddles, sh: Shape, xa: &mut [u64], xb: Option<&mut [u64]>) {
    let c = sh.c;
    let rb = sh.rbits();
    let mask = (1usize << sh.lg) - 1;
    let finish = |pos: usize, ra: &mut [u64]| {
        dit::<1>(pr, ra, c);
        let k2 = if rb == 0 {
            0
        } else {
            pos.reverse_bits() >> (usize::BITS - rb)
        };
        for (n1, v) in ra.iter_mut().enumerate() {
            *v = pr.mont(*v, tw.inv(pr, (k2 * n1) & mask));
        }
    };
    match xb {
        Some(xb) => xa
            .par_chunks_mut(c)
            .zip(xb.par_chunks_mut(c))
            .enumerate()
            .for_each(|(pos, (ra, rb_))| {
                dif::<1>(pr, ra, c);
                dif::<1>(pr, rb_, c);
                for (x, &y) in ra.iter_mut().zip(rb_.iter()) {
                    *x = pr.mont(*x, y);
                }
                finish(pos, ra);
            }),
        None => xa.par_chunks_mut(c).enumerate().for_each(|(pos, ra)| {
            dif::<1>(pr, ra, c);
            for x in ra.iter_mut() {
                *x = pr.mont(*x, *x);
            }
            finish(pos, ra);
        }),
    }
}

/// Pass 3: the inverse column DFTs, in place (natural order out).
fn inverse_columns(pr: &Prime, sh: Shape, x: &mut [u64]) {
    let (c, r) = (sh.c, sh.r);
    let xp = Shared(x.as_mut_ptr());
    (0..c / W).into_par_iter().for_each_init(
        || vec![0u64; r * W],
        |buf, g| {
            let c0 = g * W;
            for n2 in 0..r {
                for l in 0..W {
                    // SAFETY: column group g owns columns c0..c0+W.
                    buf[n2 * W + l] = unsafe { *xp.get().add(n2 * c + c0 + l) };
                }
            }
            dit::<W>(pr, buf, r);
            for n2 in 0..r {
                for l in 0..W {
                    // SAFETY: as above.
                    unsafe { *xp.get().add(n2 * c + c0 + l) = buf[n2 * W + l] };
                }
            }
        },
    );
}

/// The residues of `a * b` (`b == None`: `a * a`) mod one prime, in [0, 2p),
/// into `xa`; `xb` is scratch of the same length.
fn product(pr: &Prime, sh: Shape, a: &[u64], b: Option<&[u64]>, xa: &mut [u64], xb: &mut [u64]) {
    let tw = Twiddles::new(pr, sh.lg);
    forward_columns(pr, &tw, sh, a, xa);
    match b {
        Some(b) => {
            forward_columns(pr, &tw, sh, b, xb);
            rows(pr, &tw, sh, xa, Some(xb));
        }
        None => rows(pr, &tw, sh, xa, None),
    }
    inverse_columns(pr, sh, xa);
}

/// The transform length (`lg`) for an `an`-by-`bn` product.
pub fn lg_for(an: usize, bn: usize) -> u32 {
    let n = (an + bn - 1).next_power_of_two().max(1 << 6);
    n.trailing_zeros()
}

/// Whether an `an`-by-`bn` product fits the transform.
pub fn fits(an: usize, bn: usize) -> bool {
    an >= 1 && bn >= 1 && lg_for(an, bn) <= MAX_LG
}

static NO_IFMA: std::sync::atomic::AtomicBool = std::sync::atomic::AtomicBool::new(false);

/// Keeps products on the 64-bit scalar transform even where the IFMA one
/// runs (for tests and comparisons; the bits are the same).
#[doc(hidden)]
pub fn avoid_ifma(on: bool) {
    NO_IFMA.store(on, std::sync::atomic::Ordering::Relaxed);
}

/// Whether [`mul`] runs the AVX-512 IFMA transform (`ntt52`): where the CPU
/// has it, unless switched off by [`avoid_ifma`] or by the environment
/// variable `MPARRAY_NO_IFMA` (to measure the scalar transform).
pub fn uses_ifma() -> bool {
    #[cfg(target_arch = "x86_64")]
    {
        static ENV_OFF: OnceLock<bool> = OnceLock::new();
        let off = *ENV_OFF.get_or_init(|| std::env::var_os("MPARRAY_NO_IFMA").is_some());
        !off && !NO_IFMA.load(std::sync::atomic::Ordering::Relaxed) && super::ntt52::available()
    }
    #[cfg(not(target_arch = "x86_64"))]
    false
}

/// `a * b` (`b == None`: `a * a`) in `an + bn` limbs, on all cores: the
/// IFMA transform where the CPU has it, else the scalar one.
pub fn mul(a: &[u64], b: Option<&[u64]>) -> Vec<u64> {
    #[cfg(target_arch = "x86_64")]
    if uses_ifma() && super::ntt52::fits(a.len(), b.map_or(a.len(), |b| b.len())) {
        // SAFETY: IFMA checked.
        return unsafe { super::ntt52::mul(a, b) };
    }
    mul_scalar(a, b)
}

/// [`mul`] on the scalar three-prime transform.
pub fn mul_scalar(a: &[u64], b: Option<&[u64]>) -> Vec<u64> {
    let an = a.len();
    let bn = b.map_or(an, |b| b.len());
    assert!(fits(an, bn));
    let sh = Shape::new(lg_for(an, bn));
    let l = 1usize << sh.lg;
    let ps = primes();
    let mut res: Vec<Vec<u64>> = Vec::with_capacity(3);
    let mut xb = if b.is_some() {
        super::take_buffer(l)
    } else {
        Vec::new()
    };
    for pr in ps {
        let mut xa = super::take_buffer(l);
        product(pr, sh, a, b, &mut xa, &mut xb);
        res.push(xa);
    }
    super::give_buffer(xb);
    let mut out = super::big_buffer(an + bn);
    crt(&mut out, &res[0], &res[1], &res[2]);
    for x in res {
        super::give_buffer(x);
    }
    out
}

/// Garner's reconstruction of each coefficient `r1 + p1 v2 + p1 p2 v3`
/// and the carries, in parallel chunks whose carries out are added after.
fn crt(out: &mut [u64], f1: &[u64], f2: &[u64], f3: &[u64]) {
    let ps = primes();
    let [p1, p2, p3] = PRIMES;
    let (q2, q3) = (&ps[1], &ps[2]);
    // 1/p1 mod p2, p1 mod p3, 1/(p1 p2) mod p3, all in Montgomery form.
    let i12 = q2.to_mont(powmod(p1 % p2, p2 - 2, p2));
    let p1m3 = q3.to_mont(p1 % p3);
    let i123 = q3.to_mont(powmod(mulmod(p1 % p3, p2 % p3, p3), p3 - 2, p3));
    let p12 = p1 as u128 * p2 as u128;
    let (p12lo, p12hi) = (p12 as u64, (p12 >> 64) as u64);
    let n = out.len();
    let m = n.min(f1.len());
    const CH: usize = 1 << 14;
    let carries: Vec<u128> = out[..m]
        .par_chunks_mut(CH)
        .enumerate()
        .map(|(k, o)| {
            let s = k * CH;
            let mut car: u128 = 0;
            for (i, o) in o.iter_mut().enumerate() {
                let (r1, r2, r3) = (f1[s + i], f2[s + i], f3[s + i]);
                let r1 = red(r1, p1);
                let r2 = red(r2, p2);
                let r3 = red(r3, p3);
                let r1m2 = red(r1, p2);
                let d = red(r2 + p2 - r1m2, p2);
                let v2 = red(q2.mont(d, i12), p2);
                let r1m3 = red(r1, p3);
                let t = red(q3.mont(v2, p1m3), p3);
                let sm = red(r1m3 + t, p3);
                let d = red(r3 + p3 - sm, p3);
                let v3 = red(q3.mont(d, i123), p3);
                // v = r1 + p1 v2 + p12 v3 (< 2^161), plus the running carry.
                let a = r1 as u128 + p1 as u128 * v2 as u128;
                let b0 = p12lo as u128 * v3 as u128;
                let b1 = p12hi as u128 * v3 as u128;
                let s0 = a + b0;
                let (lo, c1) = (s0 as u64).overflowing_add(car as u64);
                *o = lo;
                car = (s0 >> 64) + b1 + (car >> 64) + c1 as u128;
            }
            car
        })
        .collect();
    // The carry of chunk k (< 2^100) lands at limb (k + 1) CH.
    for (k, &c) in carries.iter().enumerate() {
        let at = ((k + 1) * CH).min(m);
        let mut c = c;
        let mut i = at;
        while c != 0 && i < n {
            let (s, o) = out[i].overflowing_add(c as u64);
            out[i] = s;
            c = (c >> 64) + o as u128;
            i += 1;
        }
        debug_assert!(c == 0);
    }
}

/// One prime's length-`2^lg` transform by the passes above, taken apart
/// for callers with primes of their own (the distributed NTT of
/// `dist::huge`): a forward transform (column pass with its twiddles, then
/// the row DFTs) and an inverse (row DFTs, twiddles, column pass), with a
/// caller's hook on every row while it is in cache.
///
/// Storage order: after [`Transform::forward`], position `t` holds the
/// value at frequency [`Transform::freq`]`(t)`; [`Transform::inverse`]
/// takes that order back to natural order. Values are in `[0, 2p)`, in
/// ordinary (not Montgomery) form; the inverse multiplies by `2^64 / 2^lg`
/// (the factor that undoes one Montgomery product and the transform's
/// `2^lg`).
pub struct Transform {
    pr: &'static Prime,
    tw: Twiddles,
    sh: Shape,
}

impl Transform {
    /// The transform of `2^lg` points modulo `p` with generator `g`:
    /// `2^61 < p < 2^62`, `2^max(lg, 17) | p - 1`, `6 <= lg <= 34`.
    pub fn new(p: u64, g: u64, lg: u32) -> Transform {
        assert!(p > 1 << 61 && p < 1 << 62 && (6..=2 * SUB_LG).contains(&lg));
        assert!((p - 1).trailing_zeros() >= lg.max(SUB_LG));
        // The sub-DFT tables of each prime are built once (2^18 modular
        // products) and kept for the life of the process, as `primes()`.
        static KEPT: std::sync::Mutex<Vec<&'static Prime>> = std::sync::Mutex::new(Vec::new());
        let pr: &'static Prime = {
            let mut kept = KEPT.lock().unwrap_or_else(|e| e.into_inner());
            match kept.iter().find(|q| q.p == p && q.g == g) {
                Some(q) => q,
                None => {
                    let q: &'static Prime = Box::leak(Box::new(Prime::new(p, g)));
                    kept.push(q);
                    q
                }
            }
        };
        let tw = Twiddles::new(pr, lg);
        Transform {
            pr,
            tw,
            sh: Shape::new(lg),
        }
    }

    /// Points (`2^lg`).
    pub fn len(&self) -> usize {
        1 << self.sh.lg
    }

    /// Never empty (kept for the `len` convention).
    pub fn is_empty(&self) -> bool {
        false
    }

    /// The row length of the storage (rows are `len / cols` of these).
    pub fn cols(&self) -> usize {
        self.sh.c
    }

    /// The frequency held at storage position `t` after [`Self::forward`].
    pub fn freq(&self, t: usize) -> usize {
        let (c, r) = (self.sh.c, self.sh.r);
        let rev = |x: usize, bits: u32| {
            if bits == 0 {
                0
            } else {
                x.reverse_bits() >> (usize::BITS - bits)
            }
        };
        rev(t / c, self.sh.rbits()) + r * rev(t % c, c.trailing_zeros())
    }

    /// `a b / 2^64 mod p` in `[0, 2p)` for `a, b < 2p`.
    #[inline(always)]
    pub fn mont(&self, a: u64, b: u64) -> u64 {
        self.pr.mont(a, b)
    }

    /// `x 2^64 mod p` (Montgomery form of `x < p`).
    pub fn to_mont(&self, x: u64) -> u64 {
        self.pr.to_mont(x)
    }

    /// `[0, 2p)` to `[0, p)`.
    #[inline(always)]
    pub fn reduce(&self, x: u64) -> u64 {
        red(x, self.pr.p)
    }

    /// The forward transform of `src` (any `u64`s, zero past its end, at
    /// most `len` of them) into `x` (`len` long), then `hook(row, values)`
    /// on every row of [`Self::cols`] values (row `row` holds positions
    /// `row * cols ..`), in parallel.
    pub fn forward(&self, src: &[u64], x: &mut [u64], hook: impl Fn(usize, &mut [u64]) + Sync) {
        assert!(x.len() == self.len() && src.len() <= self.len());
        forward_columns(self.pr, &self.tw, self.sh, src, x);
        x.par_chunks_mut(self.sh.c)
            .enumerate()
            .for_each(|(pos, row)| {
                dif::<1>(self.pr, row, self.sh.c);
                hook(pos, row);
            });
    }

    /// `hook(row, values)` on every row first, then the inverse transform
    /// of `x` (storage order in, natural order out, times `2^64 / len`),
    /// in place.
    pub fn inverse(&self, x: &mut [u64], hook: impl Fn(usize, &mut [u64]) + Sync) {
        assert!(x.len() == self.len());
        let (pr, tw, c) = (self.pr, &self.tw, self.sh.c);
        let rb = self.sh.rbits();
        let mask = self.len() - 1;
        x.par_chunks_mut(c).enumerate().for_each(|(pos, row)| {
            hook(pos, row);
            dit::<1>(pr, row, c);
            let k2 = if rb == 0 {
                0
            } else {
                pos.reverse_bits() >> (usize::BITS - rb)
            };
            for (n1, v) in row.iter_mut().enumerate() {
                // Times w^-e 2^64 / len.
                *v = pr.mont(*v, tw.inv(pr, (k2 * n1) & mask));
            }
        });
        inverse_columns(pr, self.sh, x);
    }
}

#[cfg(test)]
mod transform_tests {
    use super::*;

    /// Forward transforms of two operands, the pointwise Montgomery
    /// product and the inverse give the cyclic convolution modulo the prime
    /// (the inverse's factor `2^64 / len` undoes the product's `2^-64`),
    /// against a schoolbook convolution; the hooks see every row once, and
    /// `freq` is a permutation.
    #[test]
    fn forward_pointwise_inverse_is_the_convolution() {
        for (p, g) in [(PRIMES[0], GENERATORS[0]), (0x3fff_b5ec_0000_0001, 17)] {
            for lg in [6u32, 7, 10] {
                let t = Transform::new(p, g, lg);
                let n = t.len();
                let mut s = 0x1234_5678_9abc_def0u64 ^ lg as u64;
                let mut rnd = || {
                    s ^= s << 13;
                    s ^= s >> 7;
                    s ^= s << 17;
                    s
                };
                let a: Vec<u64> = (0..n / 2).map(|_| rnd()).collect();
                let b: Vec<u64> = (0..n / 2 + 1).map(|_| rnd()).collect();
                let rows = std::sync::atomic::AtomicUsize::new(0);
                let (mut xa, mut xb) = (vec![0u64; n], vec![0u64; n]);
                t.forward(&a, &mut xa, |_, _| {
                    rows.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                });
                t.forward(&b, &mut xb, |_, _| {});
                assert_eq!(rows.into_inner(), n / t.cols());
                for (x, y) in xa.iter_mut().zip(&xb) {
                    *x = t.mont(*x, *y);
                }
                t.inverse(&mut xa, |_, _| {});
                let mut want = vec![0u64; n];
                for (i, &x) in a.iter().enumerate() {
                    for (j, &y) in b.iter().enumerate() {
                        let k = (i + j) % n;
                        want[k] = ((want[k] as u128 + mulmod(x % p, y % p, p) as u128) % p as u128)
                            as u64;
                    }
                }
                let got: Vec<u64> = xa.iter().map(|&v| t.reduce(v)).collect();
                assert_eq!(got, want, "p {p:#x}, lg {lg}");
                let mut f: Vec<usize> = (0..n).map(|i| t.freq(i)).collect();
                f.sort_unstable();
                assert!(f.iter().enumerate().all(|(i, &k)| i == k));
            }
        }
    }
}
