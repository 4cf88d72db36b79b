//! The four-step NTT of [`super::ntt`] in AVX-512 IFMA lanes: four primes
//! p < 2^50 with 2^32 | p - 1 (coefficients below `L 2^128 <= 2^158 <
//! p1 p2 p3 p4`), Montgomery arithmetic with R = 2^52 on `vpmadd52luq` /
//! `vpmadd52huq`, eight 64-bit lanes per vector. Every pass works on blocks
//! of eight interleaved sequences (eight columns, or eight rows transposed
//! into the block), so each butterfly is one vector operation on eight
//! independent transforms. Values are kept lazy in [0, 2p) (4p < 2^52, the
//! multiplier's input width).

use std::arch::x86_64::*;
use std::sync::OnceLock;

use rayon::prelude::*;

use super::ntt::Twiddles;
use crate::modp::{mulmod, powmod};

/// Largest transform length (limbs) this module serves.
pub const MAX_LG: u32 = 30;

const PRIMES: [u64; 4] = [
    0x3_fff3_0000_0001,
    0x3_ffed_0000_0001,
    0x3_ffeb_0000_0001,
    0x3_ffc1_0000_0001,
];
const GENERATORS: [u64; 4] = [5, 7, 3, 3];

/// Largest sub-DFT length.
const SUB_LG: u32 = 16;

/// Lanes per vector (and sequences per block).
const W: usize = 8;

const M52: u64 = (1 << 52) - 1;

/// Whether this CPU runs the IFMA transform.
pub fn available() -> bool {
    std::arch::is_x86_feature_detected!("avx512f")
        && std::arch::is_x86_feature_detected!("avx512ifma")
}

struct Prime {
    p: u64,
    /// `p^-1 mod 2^52` (vector Montgomery).
    pinv52: u64,
    /// `2^52 mod p`.
    r52: u64,
    /// `2^104 mod p`.
    r52sq: u64,
    /// `tw[len + j] = w_{2 len}^j 2^52 mod p`.
    fwd: Vec<u64>,
    inv: Vec<u64>,
    g: u64,
}

impl Prime {
    fn new(p: u64, g: u64) -> Prime {
        let n = 1usize << SUB_LG;
        let r52 = (1u64 << 52) % p;
        let mut fwd = vec![0u64; n];
        let mut inv = vec![0u64; n];
        let mut len = 1;
        while len < n {
            let w = powmod(g, (p - 1) / (2 * len as u64), p);
            let wi = powmod(w, p - 2, p);
            let (mut x, mut y) = (r52, r52);
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
            pinv52: pi & M52,
            r52,
            r52sq: mulmod(r52, r52, p),
            fwd,
            inv,
            g,
        }
    }
}

fn primes() -> &'static [Prime; 4] {
    static T: OnceLock<[Prime; 4]> = OnceLock::new();
    T.get_or_init(|| [0, 1, 2, 3].map(|i| Prime::new(PRIMES[i], GENERATORS[i])))
}

/// One prime's constants in lanes.
#[derive(Clone, Copy)]
struct V {
    p: __m512i,
    p2: __m512i,
    pinv: __m512i,
    zero: __m512i,
}

impl V {
    #[inline(always)]
    unsafe fn new(pr: &Prime) -> V {
        unsafe {
            V {
                p: _mm512_set1_epi64(pr.p as i64),
                p2: _mm512_set1_epi64(2 * pr.p as i64),
                pinv: _mm512_set1_epi64(pr.pinv52 as i64),
                zero: _mm512_setzero_si512(),
            }
        }
    }

    /// `a b / 2^52 mod p` in (0, 2p), for `a, b < 2^52`, `a b < p 2^52`.
    #[inline(always)]
    unsafe fn mont(&self, a: __m512i, b: __m512i) -> __m512i {
        unsafe {
            let hp = _mm512_madd52hi_epu64(self.p, a, b);
            let lo = _mm512_madd52lo_epu64(self.zero, a, b);
            let m = _mm512_madd52lo_epu64(self.zero, lo, self.pinv);
            let q = _mm512_madd52hi_epu64(self.zero, m, self.p);
            _mm512_sub_epi64(hp, q)
        }
    }

    /// `x mod 2p` for `x < 4p`.
    #[inline(always)]
    unsafe fn red2(&self, x: __m512i) -> __m512i {
        unsafe { _mm512_min_epu64(x, _mm512_sub_epi64(x, self.p2)) }
    }
}

#[inline(always)]
unsafe fn ld(a: &[u64], i: usize) -> __m512i {
    debug_assert!(i + W <= a.len());
    unsafe { _mm512_loadu_si512(a.as_ptr().add(i) as *const __m512i) }
}

#[inline(always)]
unsafe fn st(a: &mut [u64], i: usize, v: __m512i) {
    debug_assert!(i + W <= a.len());
    unsafe { _mm512_storeu_si512(a.as_mut_ptr().add(i) as *mut __m512i, v) }
}

/// DIF on `n` rows of `NV` vectors of eight lanes (natural in,
/// bit-reversed out), values in [0, 2p). Two stages per pass over the
/// block (radix 4: half the loads and stores of radix 2), a last radix-2
/// stage when `log2 n` is odd.
#[target_feature(enable = "avx512f,avx512ifma")]
unsafe fn dif<const NV: usize>(pr: &Prime, v: V, a: &mut [u64], n: usize) {
    let rw = NV * W;
    let mut len = n / 2;
    while len >= 2 {
        let h = len / 2;
        let mut blk = 0;
        while blk < n {
            for j in 0..h {
                let i0 = (blk + j) * rw;
                let (i1, i2, i3) = (i0 + h * rw, i0 + len * rw, i0 + (len + h) * rw);
                unsafe {
                    let w1a = _mm512_set1_epi64(pr.fwd[len + j] as i64);
                    let w1b = _mm512_set1_epi64(pr.fwd[len + h + j] as i64);
                    let w2 = _mm512_set1_epi64(pr.fwd[h + j] as i64);
                    for k in 0..NV {
                        let o = k * W;
                        let (x0, x1) = (ld(a, i0 + o), ld(a, i1 + o));
                        let (x2, x3) = (ld(a, i2 + o), ld(a, i3 + o));
                        let s02 = v.red2(_mm512_add_epi64(x0, x2));
                        let d02 = v.mont(_mm512_sub_epi64(_mm512_add_epi64(x0, v.p2), x2), w1a);
                        let s13 = v.red2(_mm512_add_epi64(x1, x3));
                        let d13 = v.mont(_mm512_sub_epi64(_mm512_add_epi64(x1, v.p2), x3), w1b);
                        st(a, i0 + o, v.red2(_mm512_add_epi64(s02, s13)));
                        let t = _mm512_sub_epi64(_mm512_add_epi64(s02, v.p2), s13);
                        st(a, i1 + o, v.mont(t, w2));
                        st(a, i2 + o, v.red2(_mm512_add_epi64(d02, d13)));
                        let t = _mm512_sub_epi64(_mm512_add_epi64(d02, v.p2), d13);
                        st(a, i3 + o, v.mont(t, w2));
                    }
                }
            }
            blk += 2 * len;
        }
        len /= 4;
    }
    if len == 1 {
        let w = _mm512_set1_epi64(pr.fwd[1] as i64);
        for blk in (0..n).step_by(2) {
            let (xi, yi) = (blk * rw, (blk + 1) * rw);
            for k in 0..NV {
                let (xk, yk) = (xi + k * W, yi + k * W);
                unsafe {
                    let (x, y) = (ld(a, xk), ld(a, yk));
                    let d = _mm512_sub_epi64(_mm512_add_epi64(x, v.p2), y);
                    st(a, xk, v.red2(_mm512_add_epi64(x, y)));
                    st(a, yk, v.mont(d, w));
                }
            }
        }
    }
}

/// DIT, the inverse of [`dif`] times `n` (bit-reversed in, natural out):
/// a first radix-2 stage when `log2 n` is odd, then two stages per pass.
#[target_feature(enable = "avx512f,avx512ifma")]
unsafe fn dit<const NV: usize>(pr: &Prime, v: V, a: &mut [u64], n: usize) {
    let rw = NV * W;
    let mut len = 1;
    if n.trailing_zeros() % 2 == 1 {
        let w = _mm512_set1_epi64(pr.inv[1] as i64);
        for blk in (0..n).step_by(2) {
            let (xi, yi) = (blk * rw, (blk + 1) * rw);
            for k in 0..NV {
                let (xk, yk) = (xi + k * W, yi + k * W);
                unsafe {
                    let (x, y) = (ld(a, xk), ld(a, yk));
                    let t = v.mont(y, w);
                    st(a, xk, v.red2(_mm512_add_epi64(x, t)));
                    st(
                        a,
                        yk,
                        v.red2(_mm512_sub_epi64(_mm512_add_epi64(x, v.p2), t)),
                    );
                }
            }
        }
        len = 2;
    }
    while len < n {
        let mut blk = 0;
        while blk < n {
            for j in 0..len {
                let i0 = (blk + j) * rw;
                let (i1, i2, i3) = (i0 + len * rw, i0 + 2 * len * rw, i0 + 3 * len * rw);
                unsafe {
                    let w2 = _mm512_set1_epi64(pr.inv[len + j] as i64);
                    let w1a = _mm512_set1_epi64(pr.inv[2 * len + j] as i64);
                    let w1b = _mm512_set1_epi64(pr.inv[3 * len + j] as i64);
                    for k in 0..NV {
                        let o = k * W;
                        let (x0, x1) = (ld(a, i0 + o), ld(a, i1 + o));
                        let (x2, x3) = (ld(a, i2 + o), ld(a, i3 + o));
                        let t = v.mont(x1, w2);
                        let a0 = v.red2(_mm512_add_epi64(x0, t));
                        let a1 = v.red2(_mm512_sub_epi64(_mm512_add_epi64(x0, v.p2), t));
                        let t = v.mont(x3, w2);
                        let a2 = v.red2(_mm512_add_epi64(x2, t));
                        let a3 = v.red2(_mm512_sub_epi64(_mm512_add_epi64(x2, v.p2), t));
                        let t = v.mont(a2, w1a);
                        st(a, i0 + o, v.red2(_mm512_add_epi64(a0, t)));
                        st(
                            a,
                            i2 + o,
                            v.red2(_mm512_sub_epi64(_mm512_add_epi64(a0, v.p2), t)),
                        );
                        let t = v.mont(a3, w1b);
                        st(a, i1 + o, v.red2(_mm512_add_epi64(a1, t)));
                        st(
                            a,
                            i3 + o,
                            v.red2(_mm512_sub_epi64(_mm512_add_epi64(a1, v.p2), t)),
                        );
                    }
                }
            }
            blk += 4 * len;
        }
        len *= 4;
    }
}

// Eight-lane lookups in the shared tables (built with R = 2^52, so the
// inverse ones carry 2^52 / L).
impl Twiddles {
    /// The eight twiddles `w^(e_l)` (Montgomery form, in (0, 2p)).
    #[inline(always)]
    unsafe fn get(&self, v: &V, inv: bool, e: [usize; W]) -> __m512i {
        let (hi, lo) = if inv {
            (&self.ihi, &self.ilo)
        } else {
            (&self.hi, &self.lo)
        };
        let mut a = [0u64; W];
        let mut b = [0u64; W];
        for l in 0..W {
            a[l] = hi[e[l] >> self.h];
            b[l] = lo[e[l] & self.mask];
        }
        unsafe { v.mont(ld(&a, 0), ld(&b, 0)) }
    }
}

#[derive(Clone, Copy)]
struct Shared(*mut u64);
// SAFETY: tasks write disjoint index sets.
unsafe impl Send for Shared {}
unsafe impl Sync for Shared {}

impl Shared {
    #[inline(always)]
    fn get(self) -> *mut u64 {
        self.0
    }
}

#[derive(Clone, Copy)]
struct Shape {
    lg: u32,
    c: usize,
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
    fn brv_r(&self, pos: usize) -> usize {
        let rb = self.lg - self.c.trailing_zeros();
        pos.reverse_bits() >> (usize::BITS - rb)
    }
}

/// Limbs to [0, 2p): `lo + (hi 2^52 mod p)` with `v = hi 2^52 + lo`.
#[inline(always)]
unsafe fn reduce_input(v: &V, r52sq: __m512i, x: __m512i) -> __m512i {
    unsafe {
        let m52 = _mm512_set1_epi64(M52 as i64);
        let lo = v.red2(v.red2(_mm512_and_si512(x, m52)));
        let hi = _mm512_srli_epi64(x, 52);
        v.red2(_mm512_add_epi64(lo, v.mont(hi, r52sq)))
    }
}

fn forward_columns(pr: &Prime, tw: &Twiddles, sh: Shape, src: &[u64], x: &mut [u64]) {
    let xp = Shared(x.as_mut_ptr());
    if wide_columns(sh) {
        (0..sh.c / (CG * W)).into_par_iter().for_each_init(
            || vec![0u64; sh.r * CG * W],
            // SAFETY: IFMA checked by `mul`'s caller; group g owns its columns.
            |buf, g| unsafe { fwd_col_group::<CG>(pr, tw, sh, src, xp, buf, g) },
        );
    } else {
        (0..sh.c / W).into_par_iter().for_each_init(
            || vec![0u64; sh.r * W],
            // SAFETY: as above.
            |buf, g| unsafe { fwd_col_group::<1>(pr, tw, sh, src, xp, buf, g) },
        );
    }
}

/// Whether the column passes gather 32 columns at a time: when that still
/// leaves at least two tasks per thread.
fn wide_columns(sh: Shape) -> bool {
    sh.c / (CG * W) >= 2 * rayon::current_num_threads()
}

/// Vectors per row of a gathered column block (32 columns: four cache
/// lines of each row per visit).
const CG: usize = 4;

/// Column group `g` (columns `8 NV g ..`) of the forward pass: gather,
/// reduce, DIF, twiddles, scatter.
#[target_feature(enable = "avx512f,avx512ifma")]
unsafe fn fwd_col_group<const NV: usize>(
    pr: &Prime,
    tw: &Twiddles,
    sh: Shape,
    src: &[u64],
    xp: Shared,
    buf: &mut [u64],
    g: usize,
) {
    let (c, r) = (sh.c, sh.r);
    let rw = NV * W;
    let mask = (1usize << sh.lg) - 1;
    unsafe {
        let v = V::new(pr);
        let r2 = _mm512_set1_epi64(pr.r52sq as i64);
        let c0 = g * rw;
        for n2 in 0..r {
            for k in 0..NV {
                let base = n2 * c + c0 + k * W;
                let x = if base + W <= src.len() {
                    ld(src, base)
                } else {
                    let mut t = [0u64; W];
                    for (l, t) in t.iter_mut().enumerate() {
                        *t = src.get(base + l).copied().unwrap_or(0);
                    }
                    ld(&t, 0)
                };
                st(buf, n2 * rw + k * W, reduce_input(&v, r2, x));
            }
        }
        dif::<NV>(pr, v, buf, r);
        for pos in 0..r {
            let k2 = sh.brv_r(pos);
            // w^(k2 (c0 + 8k + l)) = w^(k2 (c0 + 8k)) w^(k2 l): one lane
            // vector per row, one broadcast per vector of columns.
            let mut e = [0usize; W];
            for (l, e) in e.iter_mut().enumerate() {
                *e = (k2 * l) & mask;
            }
            let lanes = tw.get(&v, false, e);
            for k in 0..NV {
                let b = tw.get(&v, false, [(k2 * (c0 + k * W)) & mask; W]);
                let t = v.mont(b, lanes);
                let y = v.mont(ld(buf, pos * rw + k * W), t);
                _mm512_storeu_si512(xp.get().add(pos * c + c0 + k * W) as *mut __m512i, y);
            }
        }
    }
}

/// Eight rows `r0..r0+8` of `x` into `buf` as [C][8].
#[inline(always)]
fn gather_rows(x: &[u64], c: usize, buf: &mut [u64]) {
    for (l, row) in x.chunks_exact(c).enumerate() {
        for (n1, &val) in row.iter().enumerate() {
            buf[n1 * W + l] = val;
        }
    }
}

#[inline(always)]
fn scatter_rows(x: &mut [u64], c: usize, buf: &[u64]) {
    for (l, row) in x.chunks_exact_mut(c).enumerate() {
        for (n1, val) in row.iter_mut().enumerate() {
            *val = buf[n1 * W + l];
        }
    }
}

fn rows(pr: &Prime, tw: &Twiddles, sh: Shape, xa: &mut [u64], xb: Option<&mut [u64]>) {
    let c = sh.c;
    let init = || (vec![0u64; c * W], vec![0u64; c * W]);
    // SAFETY (both arms): IFMA checked by `mul`'s caller.
    match xb {
        Some(xb) => xa
            .par_chunks_mut(c * W)
            .zip(xb.par_chunks_mut(c * W))
            .enumerate()
            .for_each_init(init, |(ba, bb), (g, (ra, rb))| unsafe {
                row_group(pr, tw, sh, g, ra, Some(rb), ba, bb)
            }),
        None => xa
            .par_chunks_mut(c * W)
            .enumerate()
            .for_each_init(init, |(ba, bb), (g, ra)| unsafe {
                row_group(pr, tw, sh, g, ra, None, ba, bb)
            }),
    }
}

/// Rows `8g..8g+8`: forward row DFTs of both operands, the pointwise
/// product, the inverse row DFT and the inverse twiddles.
#[allow(clippy::too_many_arguments)]
#[target_feature(enable = "avx512f,avx512ifma")]
unsafe fn row_group(
    pr: &Prime,
    tw: &Twiddles,
    sh: Shape,
    g: usize,
    ra: &mut [u64],
    rb: Option<&mut [u64]>,
    ba: &mut [u64],
    bb: &mut [u64],
) {
    let c = sh.c;
    let mask = (1usize << sh.lg) - 1;
    unsafe {
        let v = V::new(pr);
        gather_rows(ra, c, ba);
        dif::<1>(pr, v, ba, c);
        match rb {
            Some(rb) => {
                gather_rows(rb, c, bb);
                dif::<1>(pr, v, bb, c);
                for i in (0..c * W).step_by(W) {
                    st(ba, i, v.mont(ld(ba, i), ld(bb, i)));
                }
            }
            None => {
                for i in (0..c * W).step_by(W) {
                    let t = ld(ba, i);
                    st(ba, i, v.mont(t, t));
                }
            }
        }
        dit::<1>(pr, v, ba, c);
        let mut k2 = [0usize; W];
        for (l, k) in k2.iter_mut().enumerate() {
            *k = sh.brv_r(g * W + l);
        }
        // w^-(k2 n1) = w^-(k2 nb hi) w^-(k2 lo) with n1 = nb hi + lo: two
        // small tables of lane vectors per group instead of a lookup per
        // element (the second carries the scale).
        let nb = c.min(64);
        let mut small = [_mm512_setzero_si512(); 64];
        for (lo, t) in small.iter_mut().enumerate().take(nb) {
            let mut e = [0usize; W];
            for l in 0..W {
                e[l] = (k2[l] * lo) & mask;
            }
            *t = tw.get(&v, true, e);
        }
        for hi in 0..c / nb {
            let mut e = [0usize; W];
            for l in 0..W {
                e[l] = (mask + 1 - ((k2[l] * nb * hi) & mask)) & mask;
            }
            let big = tw.get(&v, false, e);
            for (lo, t) in small.iter().enumerate().take(nb) {
                let n1 = hi * nb + lo;
                let t = v.mont(big, *t);
                st(ba, n1 * W, v.mont(ld(ba, n1 * W), t));
            }
        }
        scatter_rows(ra, c, ba);
    }
}

fn inverse_columns(pr: &Prime, sh: Shape, x: &mut [u64]) {
    let xp = Shared(x.as_mut_ptr());
    if wide_columns(sh) {
        (0..sh.c / (CG * W)).into_par_iter().for_each_init(
            || vec![0u64; sh.r * CG * W],
            // SAFETY: IFMA checked by `mul`'s caller; group g owns its columns.
            |buf, g| unsafe { inv_col_group::<CG>(pr, sh, xp, buf, g) },
        );
    } else {
        (0..sh.c / W).into_par_iter().for_each_init(
            || vec![0u64; sh.r * W],
            // SAFETY: as above.
            |buf, g| unsafe { inv_col_group::<1>(pr, sh, xp, buf, g) },
        );
    }
}

#[target_feature(enable = "avx512f,avx512ifma")]
unsafe fn inv_col_group<const NV: usize>(
    pr: &Prime,
    sh: Shape,
    xp: Shared,
    buf: &mut [u64],
    g: usize,
) {
    let (c, r) = (sh.c, sh.r);
    let rw = NV * W;
    unsafe {
        let v = V::new(pr);
        let c0 = g * rw;
        for n2 in 0..r {
            for k in 0..NV {
                let y = _mm512_loadu_si512(xp.get().add(n2 * c + c0 + k * W) as *const __m512i);
                st(buf, n2 * rw + k * W, y);
            }
        }
        dit::<NV>(pr, v, buf, r);
        for n2 in 0..r {
            for k in 0..NV {
                let y = ld(buf, n2 * rw + k * W);
                _mm512_storeu_si512(xp.get().add(n2 * c + c0 + k * W) as *mut __m512i, y);
            }
        }
    }
}

/// Whether an `an`-by-`bn` product fits.
pub fn fits(an: usize, bn: usize) -> bool {
    an >= 1 && bn >= 1 && super::ntt::lg_for(an, bn) <= MAX_LG
}

/// `a * b` (`b == None`: `a * a`) in `an + bn` limbs.
///
/// # Safety
/// [`available`] must be true.
pub unsafe fn mul(a: &[u64], b: Option<&[u64]>) -> Vec<u64> {
    let an = a.len();
    let bn = b.map_or(an, |b| b.len());
    assert!(fits(an, bn));
    let lg = super::ntt::lg_for(an, bn);
    let sh = Shape::new(lg);
    let l = 1usize << lg;
    let mut res: Vec<Vec<u64>> = Vec::with_capacity(4);
    let mut xb = if b.is_some() {
        super::take_buffer(l)
    } else {
        Vec::new()
    };
    for pr in primes() {
        let tw = Twiddles::build(pr.p, pr.g, lg, pr.r52);
        let mut xa = super::take_buffer(l);
        forward_columns(pr, &tw, sh, a, &mut xa);
        match b {
            Some(b) => {
                forward_columns(pr, &tw, sh, b, &mut xb);
                rows(pr, &tw, sh, &mut xa, Some(&mut xb));
            }
            None => rows(pr, &tw, sh, &mut xa, None),
        }
        inverse_columns(pr, sh, &mut xa);
        res.push(xa);
    }
    super::give_buffer(xb);
    let mut out = super::big_buffer(an + bn);
    crt_vec(&mut out, &res);
    for x in res {
        super::give_buffer(x);
    }
    out
}

/// Constants of the vector Garner step.
struct CrtConsts {
    /// Per prime: p, p^-1 mod 2^52.
    v: [V; 4],
    /// `c_ij = p_i^-1 mod p_j` times 2^52 (Montgomery form), for
    /// (1,2), (1,3), (2,3), (1,4), (2,4), (3,4).
    c: [__m512i; 6],
}

/// `x mod p` for `x < 2p`.
#[inline(always)]
unsafe fn red1(x: __m512i, p: __m512i) -> __m512i {
    unsafe { _mm512_min_epu64(x, _mm512_sub_epi64(x, p)) }
}

/// Garner's reconstruction of eight coefficients at `j` (residues in
/// [0, 2p)) into their four 64-bit limbs each.
#[target_feature(enable = "avx512f,avx512ifma")]
unsafe fn crt8(k: &CrtConsts, f: &[Vec<u64>], j: usize) -> [[u64; W]; 4] {
    unsafe {
        let z = _mm512_setzero_si512();
        let m52 = _mm512_set1_epi64(M52 as i64);
        let [v1, v2, v3, v4] = k.v;
        let (p1, p2, p3, p4) = (v1.p, v2.p, v3.p, v4.p);
        let mont = |v: &V, a, b| red1(v.mont(a, b), v.p);
        let r1 = red1(ld(&f[0], j), p1);
        let r2 = red1(ld(&f[1], j), p2);
        let r3 = red1(ld(&f[2], j), p3);
        let r4 = red1(ld(&f[3], j), p4);
        let sub = |r, x, p| _mm512_sub_epi64(_mm512_add_epi64(r, p), red1(x, p));
        let x1 = r1;
        let x2 = mont(&v2, sub(r2, x1, p2), k.c[0]);
        let t = mont(&v3, sub(r3, x1, p3), k.c[1]);
        let x3 = mont(&v3, sub(t, x2, p3), k.c[2]);
        let t = mont(&v4, sub(r4, x1, p4), k.c[3]);
        let t = mont(&v4, sub(t, x2, p4), k.c[4]);
        let x4 = mont(&v4, sub(t, x3, p4), k.c[5]);
        // Radix 2^52: t = x3 + p3 x4, u = x2 + p2 t, w = x1 + p1 u.
        let lo = _mm512_madd52lo_epu64(x3, p3, x4);
        let t0 = _mm512_and_si512(lo, m52);
        let t1 = _mm512_add_epi64(_mm512_madd52hi_epu64(z, p3, x4), _mm512_srli_epi64(lo, 52));
        let u0 = _mm512_madd52lo_epu64(x2, p2, t0);
        let u1 = _mm512_madd52lo_epu64(_mm512_madd52hi_epu64(z, p2, t0), p2, t1);
        let u2 = _mm512_madd52hi_epu64(z, p2, t1);
        let u1 = _mm512_add_epi64(u1, _mm512_srli_epi64(u0, 52));
        let u0 = _mm512_and_si512(u0, m52);
        let u2 = _mm512_add_epi64(u2, _mm512_srli_epi64(u1, 52));
        let u1 = _mm512_and_si512(u1, m52);
        let w0 = _mm512_madd52lo_epu64(x1, p1, u0);
        let w1 = _mm512_madd52lo_epu64(_mm512_madd52hi_epu64(z, p1, u0), p1, u1);
        let w2 = _mm512_madd52lo_epu64(_mm512_madd52hi_epu64(z, p1, u1), p1, u2);
        let w3 = _mm512_madd52hi_epu64(z, p1, u2);
        let w1 = _mm512_add_epi64(w1, _mm512_srli_epi64(w0, 52));
        let w0 = _mm512_and_si512(w0, m52);
        let w2 = _mm512_add_epi64(w2, _mm512_srli_epi64(w1, 52));
        let w1 = _mm512_and_si512(w1, m52);
        let w3 = _mm512_add_epi64(w3, _mm512_srli_epi64(w2, 52));
        let w2 = _mm512_and_si512(w2, m52);
        let l0 = _mm512_or_si512(w0, _mm512_slli_epi64(w1, 52));
        let l1 = _mm512_or_si512(_mm512_srli_epi64(w1, 12), _mm512_slli_epi64(w2, 40));
        let l2 = _mm512_or_si512(_mm512_srli_epi64(w2, 24), _mm512_slli_epi64(w3, 28));
        let l3 = _mm512_srli_epi64(w3, 36);
        let mut out = [[0u64; W]; 4];
        for (o, l) in out.iter_mut().zip([l0, l1, l2, l3]) {
            st(o, 0, l);
        }
        out
    }
}

/// Garner's reconstruction in IFMA lanes, carried into limbs in parallel
/// chunks (a running three-limb carry inside each chunk).
fn crt_vec(out: &mut [u64], f: &[Vec<u64>]) {
    let ps = primes();
    let cm = |i: u64, j: usize| {
        let pj = PRIMES[j];
        mulmod(powmod(i % pj, pj - 2, pj), ps[j].r52, pj)
    };
    let [p1, p2, p3, _] = PRIMES;
    // SAFETY: IFMA checked by `mul`'s caller.
    let k = unsafe {
        CrtConsts {
            v: [0, 1, 2, 3].map(|i| V::new(&ps[i])),
            c: [
                cm(p1, 1),
                cm(p1, 2),
                cm(p2, 2),
                cm(p1, 3),
                cm(p2, 3),
                cm(p3, 3),
            ]
            .map(|c| _mm512_set1_epi64(c as i64)),
        }
    };
    let n = out.len();
    let m = n.min(f[0].len());
    const CH: usize = 1 << 14;
    let carries: Vec<[u64; 3]> = out[..m]
        .par_chunks_mut(CH)
        .enumerate()
        .map(|(ci, o)| {
            let s = ci * CH;
            let mut car = [0u64; 3];
            for (g, og) in o.chunks_mut(W).enumerate() {
                // SAFETY: IFMA checked; s + 8g + 8 <= L (chunks start at
                // multiples of 8 and L is a multiple of 8).
                let l = unsafe { crt8(&k, f, s + g * W) };
                for (i, o) in og.iter_mut().enumerate() {
                    let (s0, c0) = l[0][i].overflowing_add(car[0]);
                    let (s1, c1a) = l[1][i].overflowing_add(car[1]);
                    let (s1, c1b) = s1.overflowing_add(c0 as u64);
                    let (s2, c2a) = l[2][i].overflowing_add(car[2]);
                    let (s2, c2b) = s2.overflowing_add((c1a | c1b) as u64);
                    let s3 = l[3][i] + (c2a | c2b) as u64;
                    *o = s0;
                    car = [s1, s2, s3];
                }
            }
            car
        })
        .collect();
    add_carries(out, m, CH, &carries);
}

/// Adds each chunk's three-limb carry at the start of the next chunk.
fn add_carries(out: &mut [u64], m: usize, ch: usize, carries: &[[u64; 3]]) {
    let n = out.len();
    for (k, c) in carries.iter().enumerate() {
        let at = ((k + 1) * ch).min(m);
        let mut i = at;
        let mut carry = 0u64;
        for (t, &cw) in c.iter().enumerate() {
            if at + t >= n {
                debug_assert!(cw == 0 && carry == 0);
                break;
            }
            let (s, o1) = out[at + t].overflowing_add(cw);
            let (s, o2) = s.overflowing_add(carry);
            out[at + t] = s;
            carry = (o1 | o2) as u64;
            i = at + t + 1;
        }
        while carry != 0 && i < n {
            let (s, o) = out[i].overflowing_add(carry);
            out[i] = s;
            carry = o as u64;
            i += 1;
        }
    }
}
