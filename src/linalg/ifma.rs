//! The AVX-512 IFMA kernel of the CPU fast path ([`fixed`](super::fixed)):
//! 8 dot products at once (one row of `op(A)` against 8 columns of
//! `op(B)`), 52-bit limbs, chosen at run time where the CPU has AVX-512F
//! and IFMA (`vpmadd52luq`/`vpmadd52huq`); elsewhere the portable 64-bit
//! kernel runs. It computes the same kind of value as the portable kernel,
//! an integer `S` with a rigorous bound `|sum - S| < err`, so the epilogue
//! and the exact-core fallback are shared and the rounded bits are the
//! same (both round the same exact sum once).
//!
//! # Offset fixed point
//!
//! With `NL` limbs of 52 bits and `F = 52 NL - 1`, an entry `x` of a
//! vector whose largest exponent is `e` becomes the integer `a =
//! trunc(|x| 2^(F-e)) < 2^F` with `x`'s sign, stored as the nonnegative
//! `a' = 2^F + a` (`2^F - |a|` for a negative entry; a zero entry is `2^F`).
//! IFMA multiplies unsigned limbs only; with every stored value
//! nonnegative, a dot product is one sum of unsigned limb products, and
//!
//! `sum_k a_k b_k = sum_k a'_k b'_k - 2^F (sum_k a_k + sum_k b_k) - K 2^(2F)`,
//!
//! the row and column sums computed exactly once per vector. The offset
//! keeps the trailing zero limbs of `a` (`2^F` has more trailing zeros
//! than `|a| < 2^F`), so a term is still exact when both truncations are
//! exact and the lowest nonzero limbs satisfy `la + lb >= T = NL - 1`; a
//! term with a zero factor is exact.
//!
//! # Short product and bound
//!
//! `a'_k b'_k` keeps the limb products `s + t >= T`; the dropped ones are
//! below `sum_{d<T} T 2^(104 + 52 d) <= NL 2^(52 NL)` (limbs below `2^52`),
//! and the truncations move a term by less than `|a| + |b| + 1 <= 2^(F+1)
//! = 2^(52 NL)`. In units of `2^(52 T)` the sum is off by less than `cnt
//! (NL + 2) 2^52`, `cnt` an upper bound on the terms that are not exact:
//! 0 when neither vector has an inexact truncation and their smallest
//! lowest-limb indices add up to `T`, else the smaller count of nonzero
//! entries (a term with a zero factor is exact).
//!
//! # Kernel
//!
//! Column `c` of the product (weight `2^(52 (T + c))`) collects the low
//! halves of the limb products with `s + t = T + c` and the high halves of
//! those with `s + t = T + c - 1`: fewer than `2 NL` additions of values
//! below `2^52` per term, so 64-bit lanes hold `2048 / NL` terms before
//! they are flushed into 128-bit sums. The limbs of 8 columns of `op(B)`
//! are interleaved (`[block][k][limb][lane]`), one row's limb is
//! broadcast, and each limb product of 8 lanes is two IFMA instructions:
//! `NL (NL + 1)` per 8 multiply-accumulates (132 at 512 bits, `NL = 11`),
//! against `NL (NL + 1) / 2` scalar `mulq` plus 128-bit adds per one in
//! the portable kernel.

use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};

use malachite_base::num::basic::traits::Zero;
use malachite_nz::integer::Integer;
use malachite_nz::natural::Natural;
use rayon::prelude::*;

use super::fixed::{Approx, Scratch, place};
use crate::float::{Class, Elem};

static OFF: AtomicBool = AtomicBool::new(false);
static TILES: AtomicU64 = AtomicU64::new(0);

/// Output columns per tile (lanes of a 512-bit vector of 64-bit words).
pub(crate) const LANES: usize = 8;

/// The largest `NL` with a kernel (1024-bit outputs need 21).
const MAX_NL: usize = 24;

/// Turns the IFMA kernel off (true) or back on where the CPU has it.
pub(crate) fn set_off(off: bool) {
    OFF.store(off, Ordering::SeqCst);
}

/// Tiles computed by the IFMA kernel since the process started.
pub(crate) fn tiles() -> u64 {
    TILES.load(Ordering::SeqCst)
}

/// Whether this CPU runs the IFMA kernel (detected at run time; the
/// environment variable `MPARRAY_NO_IFMA=1` says no, for comparisons).
pub(crate) fn supported() -> bool {
    #[cfg(target_arch = "x86_64")]
    {
        static NO: std::sync::OnceLock<bool> = std::sync::OnceLock::new();
        let no = *NO.get_or_init(|| std::env::var_os("MPARRAY_NO_IFMA").is_some_and(|v| v == "1"));
        !no && std::arch::is_x86_feature_detected!("avx512f")
            && std::arch::is_x86_feature_detected!("avx512ifma")
    }
    #[cfg(not(target_arch = "x86_64"))]
    {
        false
    }
}

/// Limbs `NL` of 52 bits for an output of `p` bits and dot products of
/// `len` terms, or None when the IFMA kernel does not apply (no CPU
/// support, switched off, too high a precision, no terms).
pub(crate) fn limbs_for(p: u64, len: usize) -> Option<usize> {
    if OFF.load(Ordering::Relaxed) || len == 0 || !supported() {
        return None;
    }
    let bits = 64 - (len as u64).leading_zeros() as u64;
    let nl = (p + bits + 25).div_ceil(52) as usize;
    (nl <= MAX_NL).then_some(nl)
}

/// Vectors of `len` entries in offset fixed point (see the [module
/// docs](self)), one after another (`lanes = false`: the rows of `op(A)`)
/// or interleaved by blocks of [`LANES`] (`lanes = true`: the columns of
/// `op(B)`).
pub(crate) struct Panel52 {
    nl: usize,
    len: usize,
    lanes: bool,
    limbs: Vec<u64>,
    /// Per vector: the largest exponent of its nonzero entries (0 without).
    scale: Vec<i64>,
    /// Per vector: whether it holds a NaN or an infinity.
    pub special: Vec<bool>,
    /// Per vector: `-2^51 sum_k a_k` (in units `2^(52 T)` of the product),
    /// minus `K 2^(52 NL + 50)` (the offsets' product term) in a row panel,
    /// as [`words`] two's complement words.
    corr: Vec<u64>,
    /// Per vector: whether a nonzero entry was truncated inexactly.
    inex: Vec<bool>,
    /// Per vector: the smallest lowest-nonzero-limb index of its nonzero
    /// entries (`NL - 1` without).
    low: Vec<usize>,
    /// Per vector: its nonzero entries.
    nnz: Vec<u64>,
}

/// Per-vector facts gathered while converting it.
struct Stats {
    sum: Integer,
    inex: bool,
    low: usize,
    nnz: u64,
}

/// Entry `x` (negated when `flip`) of a vector with largest exponent
/// `scale` as `NL` offset limbs in `out` (`tmp`: `ceil(F / 64)` words of
/// scratch); adds its signed limbs to `sums`, updates `st`.
#[allow(clippy::too_many_arguments)]
fn convert(
    x: &Elem,
    flip: bool,
    scale: i64,
    nl: usize,
    tmp: &mut [u64],
    out: &mut [u64],
    sums: &mut [i128],
    st: &mut Stats,
) {
    let f = 52 * nl as i64 - 1;
    out.fill(0);
    out[nl - 1] = 1 << 51;
    if x.class != Class::Normal {
        return;
    }
    let sh = 64 * x.limbs.len() as i64 + (scale - x.exp) - f;
    let exact = place(tmp, x.limbs, sh);
    let neg = x.neg != flip;
    let mut low = nl;
    let mut borrow = 0i64;
    for (l, o) in out.iter_mut().enumerate() {
        // Bits 52 l .. 52 l + 52 of the magnitude.
        let (w, b) = (52 * l / 64, (52 * l % 64) as u32);
        let mut m = tmp[w] >> b;
        if b > 12
            && let Some(&hi) = tmp.get(w + 1)
        {
            m |= hi << (64 - b);
        }
        let m = m & ((1 << 52) - 1);
        if m != 0 && low == nl {
            low = l;
        }
        if neg {
            sums[l] -= m as i128;
            // 2^F - |a|, limb by limb with a borrow.
            let top = if l == nl - 1 { 1i64 << 51 } else { 0 };
            let mut d = top - m as i64 - borrow;
            borrow = (d < 0) as i64;
            if d < 0 {
                d += 1 << 52;
            }
            *o = d as u64;
        } else {
            sums[l] += m as i128;
            *o |= m;
        }
    }
    st.inex |= !exact;
    st.low = st.low.min(low);
    st.nnz += 1;
}

impl Panel52 {
    /// `vectors` vectors of `len` entries, entry `k` of vector `v` being
    /// `get(v, k)` = (the float, whether to negate it), at `nl` limbs.
    pub fn build<'a, G>(vectors: usize, len: usize, nl: usize, lanes: bool, get: G) -> Panel52
    where
        G: Fn(usize, usize) -> (Elem<'a>, bool) + Sync,
    {
        let (scale, special): (Vec<i64>, Vec<bool>) = (0..vectors)
            .into_par_iter()
            .map(|v| {
                let (mut e, mut sp) = (None, false);
                for k in 0..len {
                    let (x, _) = get(v, k);
                    match x.class {
                        Class::Normal => e = e.max(Some(x.exp)),
                        Class::NaN | Class::Inf => sp = true,
                        Class::Zero => {}
                    }
                }
                (e.unwrap_or(0), sp)
            })
            .unzip();
        // Vectors per block of storage.
        let per = if lanes { LANES } else { 1 };
        let blocks = vectors.div_ceil(per);
        let mut limbs = vec![0u64; blocks * per * len * nl];
        let nw = (52 * nl).div_ceil(64);
        let stats: Vec<Stats> = limbs
            .par_chunks_mut(per * len * nl)
            .enumerate()
            .flat_map_iter(|(blk, dst)| {
                let mut tmp = vec![0u64; nw];
                let mut ent = vec![0u64; nl];
                let mut out = Vec::with_capacity(per);
                for lane in 0..per {
                    let v = blk * per + lane;
                    let mut st = Stats {
                        sum: Integer::ZERO,
                        inex: false,
                        low: nl - 1,
                        nnz: 0,
                    };
                    let mut sums = vec![0i128; nl];
                    for k in 0..len {
                        if v < vectors {
                            let (x, flip) = get(v, k);
                            convert(
                                &x, flip, scale[v], nl, &mut tmp, &mut ent, &mut sums, &mut st,
                            );
                        } else {
                            // Padding lanes: zeros (never read back).
                            ent.fill(0);
                        }
                        for (t, &y) in ent.iter().enumerate() {
                            dst[(k * nl + t) * per + lane] = y;
                        }
                    }
                    if v < vectors {
                        let mut s = Integer::ZERO;
                        for (l, &x) in sums.iter().enumerate() {
                            s += Integer::from(x) << (52 * l as u64);
                        }
                        st.sum = s << 51u64;
                        out.push(st);
                    }
                }
                out
            })
            .collect();
        let w = words(nl);
        let konst = Integer::from(len as u64) << (52 * nl as u64 + 50);
        let mut corr = Vec::with_capacity(vectors * w);
        let (mut inex, mut low, mut nnz) = (
            Vec::with_capacity(vectors),
            Vec::with_capacity(vectors),
            Vec::with_capacity(vectors),
        );
        for st in stats {
            let mut c = -st.sum;
            if !lanes {
                c -= &konst;
            }
            let mut l = c.to_twos_complement_limbs_asc();
            let fill = if c < 0u32 { u64::MAX } else { 0 };
            l.resize(w, fill);
            corr.extend_from_slice(&l);
            inex.push(st.inex);
            low.push(st.low);
            nnz.push(st.nnz);
        }
        Panel52 {
            nl,
            len,
            lanes,
            limbs,
            scale,
            special,
            corr,
            inex,
            low,
            nnz,
        }
    }
}

/// A cached tile: the 128-bit column sums of row `i` against the block of
/// columns `jb` of one panel (its address), per lane.
pub(crate) struct Tile {
    key: (usize, usize, usize),
    wide: Vec<[u128; LANES]>,
}

/// The dot product of row `i` of `a` and column `j` of `b` (see [`Approx`]),
/// from the tile of `j`'s block (computed on first use, cached in `sc`).
/// `a` holds rows, `b` interleaved columns, both at the same `NL` and
/// length.
pub(crate) fn dot(a: &Panel52, i: usize, b: &Panel52, j: usize, sc: &mut Scratch) -> Approx {
    debug_assert!(!a.lanes && b.lanes && a.nl == b.nl && a.len == b.len);
    let (nl, len) = (a.nl, a.len);
    let key = (b as *const Panel52 as usize, i, j / LANES);
    let tiles = &mut sc.tiles;
    let pos = match tiles.iter().position(|t| t.key == key) {
        Some(p) => p,
        None => {
            // Keep two tiles: complex products alternate two panels.
            let mut t = if tiles.len() >= 2 {
                tiles.remove(0)
            } else {
                Tile {
                    key,
                    wide: Vec::new(),
                }
            };
            t.key = key;
            t.wide.clear();
            t.wide.resize(nl + 1, [0; LANES]);
            let row = &a.limbs[i * len * nl..(i + 1) * len * nl];
            let blk = &b.limbs[(j / LANES) * LANES * len * nl..][..LANES * len * nl];
            run(nl, row, blk, len, &mut t.wide);
            TILES.fetch_add(1, Ordering::Relaxed);
            tiles.push(t);
            tiles.len() - 1
        }
    };
    let lane = j % LANES;
    // S = sum_c wide[c] 2^(52 c) plus the offsets' terms, in two's
    // complement words (no allocation until the result).
    let w = words(nl);
    let buf = &mut sc.words;
    buf.clear();
    buf.extend_from_slice(&a.corr[i * w..(i + 1) * w]);
    let mut carry = false;
    for (x, &y) in buf.iter_mut().zip(&b.corr[j * w..(j + 1) * w]) {
        let (v, c1) = x.overflowing_add(y);
        let (v, c2) = v.overflowing_add(carry as u64);
        *x = v;
        carry = c1 || c2;
    }
    for (c, x) in tiles[pos].wide.iter().enumerate() {
        add_at(buf, x[lane], 52 * c);
    }
    let s = Integer::from_twos_complement_limbs_asc(buf);
    let t = nl - 1;
    let cnt = if !a.inex[i] && !b.inex[j] && a.low[i] + b.low[j] >= t {
        0
    } else {
        a.nnz[i].min(b.nnz[j])
    };
    let f = 52 * nl as i64 - 1;
    Approx {
        s,
        err: if cnt == 0 {
            Natural::ZERO
        } else {
            Natural::from(cnt * (nl as u64 + 2)) << 52u64
        },
        unit: 52 * t as i64 + a.scale[i] + b.scale[j] - 2 * f,
    }
}

/// Two's complement words of a dot product's sum and corrections: `S' <
/// 2^(52 NL + 129)` (column sums below `2^128`), the corrections below
/// `2^(52 NL + 115)` for `K < 2^64`, and a sign bit.
fn words(nl: usize) -> usize {
    (52 * nl + 131).div_ceil(64)
}

/// `buf += x 2^bit` (modulo the buffer's width: two's complement).
fn add_at(buf: &mut [u64], x: u128, bit: usize) {
    let (w, b) = (bit / 64, (bit % 64) as u32);
    let parts = [
        (x as u64) << b,
        if b == 0 {
            (x >> 64) as u64
        } else {
            (x >> (64 - b)) as u64
        },
        if b == 0 { 0 } else { (x >> (128 - b)) as u64 },
    ];
    let mut carry = false;
    for (idx, slot) in buf.iter_mut().skip(w).enumerate() {
        let p = parts.get(idx).copied().unwrap_or(0);
        if idx >= 3 && !carry {
            break;
        }
        let (v, c1) = slot.overflowing_add(p);
        let (v, c2) = v.overflowing_add(carry as u64);
        *slot = v;
        carry = c1 || c2;
    }
}

/// Adds row `a` (`len` entries of `nl` limbs) times the 8 interleaved
/// columns `b` into `wide` (`nl + 1` column sums per lane).
fn run(nl: usize, a: &[u64], b: &[u64], len: usize, wide: &mut [[u128; LANES]]) {
    #[cfg(target_arch = "x86_64")]
    {
        macro_rules! dispatch {
            ($($n:literal)*) => {
                match nl {
                    // SAFETY: limbs_for checked the CPU's AVX-512F and IFMA;
                    // the slices hold len * nl (a) and len * nl * 8 (b) words.
                    $($n => unsafe { kernel::<$n>(a, b, len, wide) },)*
                    _ => unreachable!("NL <= MAX_NL"),
                }
            };
        }
        dispatch!(1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19 20 21 22 23 24);
    }
    #[cfg(not(target_arch = "x86_64"))]
    {
        let _ = (nl, a, b, len, wide);
        unreachable!("limbs_for is None off x86_64");
    }
}

/// `$body` for `$i` = 0, 1, ..., MAX_NL - 1, each a constant.
#[cfg(target_arch = "x86_64")]
macro_rules! unroll {
    ($i:ident; $body:block) => {
        unroll!(@ $i; $body; 0 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19 20 21 22 23)
    };
    (@ $i:ident; $body:block; $($n:literal)*) => {
        $({
            let $i: usize = $n;
            $body
        })*
    };
}

/// Row `a` times the 8 interleaved columns `b` (see [`run`]).
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx512f,avx512ifma")]
unsafe fn kernel<const NL: usize>(a: &[u64], b: &[u64], len: usize, wide: &mut [[u128; LANES]]) {
    use std::arch::x86_64::*;
    assert!(a.len() >= len * NL && b.len() >= len * NL * LANES && wide.len() > NL);
    let t = NL - 1;
    // Terms per flush: the accumulators stay below 2^64 (at most NL
    // additions below 2^52 per term each).
    let kb = 2048 / NL;
    let mut k0 = 0;
    while k0 < len {
        let k1 = (k0 + kb).min(len);
        // Low and high halves in separate accumulators: chains of at most
        // NL dependent IFMAs per term (latency 4), not 2 NL.
        let mut lo = [_mm512_setzero_si512(); MAX_NL];
        let mut hi = [_mm512_setzero_si512(); MAX_NL];
        for k in k0..k1 {
            // SAFETY: k < len, so the offsets stay inside the slices
            // (asserted above).
            unsafe {
                let ap = a.as_ptr().add(k * NL);
                let bp = b.as_ptr().add(k * NL * LANES);
                // Unrolled by hand (LLVM keeps these loops rolled, with the
                // accumulators in memory): every index is a constant.
                unroll!(s; {
                    if s < NL {
                        let av = _mm512_set1_epi64(*ap.add(s) as i64);
                        unroll!(tt; {
                            if tt < NL && s + tt >= t {
                                let c = s + tt - t;
                                let bv = _mm512_loadu_si512(bp.add(tt * LANES) as *const _);
                                lo[c] = _mm512_madd52lo_epu64(lo[c], av, bv);
                                hi[c] = _mm512_madd52hi_epu64(hi[c], av, bv);
                            }
                        });
                    }
                });
            }
        }
        // Column c: the low halves of diagonal c, the high ones of c - 1.
        let (mut xl, mut xh) = ([0u64; LANES], [0u64; LANES]);
        for c in 0..NL {
            // SAFETY: xl and xh hold 8 words each.
            unsafe {
                _mm512_storeu_si512(xl.as_mut_ptr() as *mut _, lo[c]);
                _mm512_storeu_si512(xh.as_mut_ptr() as *mut _, hi[c]);
            }
            for l in 0..LANES {
                wide[c][l] += xl[l] as u128;
                wide[c + 1][l] += xh[l] as u128;
            }
        }
        k0 = k1;
    }
}
