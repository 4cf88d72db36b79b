//! `powm` across the batch with AVX-512 IFMA (`vpmadd52luq`/`vpmadd52huq`):
//! 8 elements per zmm register, `V` registers side by side (8V lanes), each
//! lane its own odd modulus. Values in 52-bit limbs, `L` of them with
//! R = 2^(52L) > 4q (q the largest modulus of the group), layout
//! `[limb][register]` (lane k of register v = element 8v + k of the group).
//!
//! The Montgomery product is word-by-word (CIOS with the shift folded in):
//! per row i, T += a b_i, q_i = T_0 m' mod 2^52, T = (T + q_i m) / 2^52, the
//! 64-bit accumulators collecting up to 4L products' halves before one carry
//! normalisation at the end (4L 2^52 < 2^64 for L < 1024). Operands below
//! 2q give a result below 2q (4q < R), so no conditional subtraction inside;
//! the final conversion out of Montgomery form gives a value <= q, reduced
//! once in 64-bit limbs.
//!
//! Exponents: fixed windows of `w` bits from the top of the group's longest
//! exponent; lane k multiplies by its own table entry b_k^d (d = its digit),
//! keeps its value where d = 0 and takes the entry where it has not started.
//! Not constant-time (see notes/int-modular.md).

use std::arch::x86_64::*;

use malachite_nz::natural::Natural;

use super::arith::nlen;

const MASK52: u64 = (1 << 52) - 1;

/// Whether this CPU has AVX-512F and IFMA (checked once).
pub fn available() -> bool {
    use std::sync::OnceLock;
    static HAS: OnceLock<bool> = OnceLock::new();
    *HAS.get_or_init(|| {
        std::arch::is_x86_feature_detected!("avx512f")
            && std::arch::is_x86_feature_detected!("avx512ifma")
    })
}

/// 52-bit limbs for a modulus of `bits` bits: R = 2^(52L) >= 4 * 2^bits.
pub fn limbs52(bits: u64) -> usize {
    (bits as usize + 2).div_ceil(52)
}

/// Registers per group for `l` 52-bit limbs: several independent lane
/// groups hide the latency of the row's first word at small widths.
pub fn regs_for(l: usize) -> usize {
    match l {
        0..=8 => 4,
        9..=24 => 2,
        _ => 1,
    }
}

/// One lane's job: b^e mod q, q odd > 1, e > 0.
pub struct Lane<'a> {
    pub base: &'a [u64],
    pub exp: &'a [u64],
    pub q: &'a [u64],
    /// -q^-1 mod 2^64.
    pub qinv: u64,
}

fn bits_of(x: &[u64]) -> u64 {
    let k = nlen(x);
    if k == 0 {
        0
    } else {
        64 * (k as u64 - 1) + (64 - x[k - 1].leading_zeros() as u64)
    }
}

/// Writes `x` (64-bit limbs) as `l` 52-bit limbs into lane `lane` of `dst`
/// (layout [limb][8V lanes]).
fn put52(dst: &mut [u64], lanes: usize, lane: usize, x: &[u64], l: usize) {
    for j in 0..l {
        let bit = 52 * j;
        let (w, s) = (bit / 64, bit % 64);
        let mut v = if w < x.len() { x[w] >> s } else { 0 };
        if s > 12 && w + 1 < x.len() {
            v |= x[w + 1] << (64 - s);
        }
        dst[j * lanes + lane] = v & MASK52;
    }
}

/// Reads lane `lane` of `src` (normalised 52-bit limbs) into `out` (64-bit
/// limbs, zero above).
fn get52(src: &[u64], lanes: usize, lane: usize, l: usize, out: &mut [u64]) {
    out.fill(0);
    for j in 0..l {
        let v = src[j * lanes + lane];
        let bit = 52 * j;
        let (w, s) = (bit / 64, bit % 64);
        if w < out.len() {
            out[w] |= v << s;
        }
        if s > 12 && w + 1 < out.len() {
            out[w + 1] |= v >> (64 - s);
        }
    }
}

/// Window width for the longest exponent of `bits` bits (products: the
/// 2^w - 2 of the table plus one per window).
fn window(bits: u64, l: usize) -> usize {
    let cap = if l > 40 { 6 } else { 7 };
    (1..=cap)
        .min_by_key(|&w| (1u64 << w) + bits.div_ceil(w as u64))
        .unwrap()
}

/// Bits pos..pos+w of e (zero above its limbs).
fn digit(e: &[u64], pos: u64, w: usize) -> usize {
    let (i, s) = ((pos / 64) as usize, pos % 64);
    let mut v = if i < e.len() { e[i] >> s } else { 0 };
    if s + w as u64 > 64 && i + 1 < e.len() {
        v |= e[i + 1] << (64 - s);
    }
    (v & ((1u64 << w) - 1)) as usize
}

/// Registers (as u64 lanes) of `n` zmm words, 64-byte aligned.
fn zmm_buf(n: usize) -> Vec<__m512i> {
    // SAFETY: the all-zero bit pattern is a valid __m512i.
    vec![unsafe { std::mem::zeroed() }; n]
}

fn lanes_mut(v: &mut [__m512i]) -> &mut [u64] {
    // SAFETY: __m512i is 8 u64 with no padding; alignment of u64 is smaller.
    unsafe { std::slice::from_raw_parts_mut(v.as_mut_ptr() as *mut u64, v.len() * 8) }
}

fn lanes_ref(v: &[__m512i]) -> &[u64] {
    // SAFETY: as in lanes_mut.
    unsafe { std::slice::from_raw_parts(v.as_ptr() as *const u64, v.len() * 8) }
}

/// r = a b / R mod q (< 2q for a, b < 2q), normalised; `t` scratch of l*V.
/// A macro so that the fixed-width forms (`l` a constant, unrolled) and the
/// general one share the text inside functions with the target features.
macro_rules! mont_body {
    ($V:expr, $r:expr, $a:expr, $b:expr, $m:expr, $mi:expr, $t:expr, $l:expr) => {{
        let (r, a, b, m, mi, t, l): (
            &mut [__m512i],
            &[__m512i],
            &[__m512i],
            &[__m512i],
            &[__m512i],
            &mut [__m512i],
            usize,
        ) = ($r, $a, $b, $m, $mi, $t, $l);
        assert!(r.len() >= l * $V && a.len() >= l * $V && b.len() >= l * $V);
        assert!(m.len() >= l * $V && t.len() >= l * $V && mi.len() >= $V && l >= 1);
        // SAFETY: the lengths checked above; the caller has the features.
        unsafe {
            let zero = _mm512_setzero_si512();
            let mask = _mm512_set1_epi64(MASK52 as i64);
            let (ap, bp, mp, tp) = (a.as_ptr(), b.as_ptr(), m.as_ptr(), t.as_mut_ptr());
            for k in 0..l * $V {
                *tp.add(k) = zero;
            }
            for i in 0..l {
                let mut bi = [zero; $V];
                let mut q = [zero; $V];
                let mut c = [zero; $V];
                for v in 0..$V {
                    bi[v] = *bp.add(i * $V + v);
                    let t0 = _mm512_madd52lo_epu64(*tp.add(v), *ap.add(v), bi[v]);
                    q[v] = _mm512_madd52lo_epu64(zero, t0, mi[v]);
                    let t0 = _mm512_madd52lo_epu64(t0, q[v], *mp.add(v));
                    c[v] = _mm512_srli_epi64::<52>(t0);
                }
                for j in 1..l {
                    for v in 0..$V {
                        let (cur, prev) = (j * $V + v, (j - 1) * $V + v);
                        let mut x = *tp.add(cur);
                        x = _mm512_madd52lo_epu64(x, *ap.add(cur), bi[v]);
                        x = _mm512_madd52hi_epu64(x, *ap.add(prev), bi[v]);
                        x = _mm512_madd52lo_epu64(x, q[v], *mp.add(cur));
                        x = _mm512_madd52hi_epu64(x, q[v], *mp.add(prev));
                        *tp.add(prev) = x;
                    }
                }
                for v in 0..$V {
                    let top = (l - 1) * $V + v;
                    let x = _mm512_madd52hi_epu64(zero, *ap.add(top), bi[v]);
                    *tp.add(top) = _mm512_madd52hi_epu64(x, q[v], *mp.add(top));
                    *tp.add(v) = _mm512_add_epi64(*tp.add(v), c[v]);
                }
            }
            let rp = r.as_mut_ptr();
            let mut c = [zero; $V];
            for j in 0..l {
                for v in 0..$V {
                    let x = _mm512_add_epi64(*tp.add(j * $V + v), c[v]);
                    *rp.add(j * $V + v) = _mm512_and_si512(x, mask);
                    c[v] = _mm512_srli_epi64::<52>(x);
                }
            }
        }
    }};
}

/// The Montgomery product with `L` a constant (small widths unroll).
#[target_feature(enable = "avx512f,avx512ifma")]
fn mont_c<const V: usize, const L: usize>(
    r: &mut [__m512i],
    a: &[__m512i],
    b: &[__m512i],
    m: &[__m512i],
    mi: &[__m512i],
    t: &mut [__m512i],
) {
    mont_body!(V, r, a, b, m, mi, t, L)
}

/// The Montgomery product, any `l`.
#[target_feature(enable = "avx512f,avx512ifma")]
fn mont_dyn<const V: usize>(
    r: &mut [__m512i],
    a: &[__m512i],
    b: &[__m512i],
    m: &[__m512i],
    mi: &[__m512i],
    t: &mut [__m512i],
    l: usize,
) {
    mont_body!(V, r, a, b, m, mi, t, l)
}

#[target_feature(enable = "avx512f,avx512ifma")]
fn mont_l<const V: usize>(
    r: &mut [__m512i],
    a: &[__m512i],
    b: &[__m512i],
    m: &[__m512i],
    mi: &[__m512i],
    t: &mut [__m512i],
    l: usize,
) {
    match l {
        5 => mont_c::<V, 5>(r, a, b, m, mi, t),
        _ => mont_dyn::<V>(r, a, b, m, mi, t, l),
    }
}

/// b^e mod q for up to 8V lanes (`lanes` non-empty, at most 8V); writes
/// lane k's result (n64 limbs) to `out[k]`.
pub fn powm_group<const V: usize>(lanes: &[Lane], out: &mut [&mut [u64]]) {
    assert!(available() && !lanes.is_empty() && lanes.len() <= 8 * V);
    assert!(out.len() == lanes.len());
    // SAFETY: checked above.
    unsafe { powm_group_tf::<V>(lanes, out) }
}

#[target_feature(enable = "avx512f,avx512ifma")]
unsafe fn powm_group_tf<const V: usize>(lanes: &[Lane], out: &mut [&mut [u64]]) {
    let nl = 8 * V;
    // Lanes past the given ones repeat lane 0 (results dropped).
    let lane = |k: usize| &lanes[if k < lanes.len() { k } else { 0 }];
    let qbits = (0..nl).map(|k| bits_of(lane(k).q)).max().unwrap();
    let ebits = (0..nl).map(|k| bits_of(lane(k).exp)).max().unwrap();
    let l = limbs52(qbits);
    let n = l * V;
    let mut m = zmm_buf(n);
    let mut mi = zmm_buf(V);
    {
        let ml = lanes_mut(&mut m);
        for k in 0..nl {
            put52(ml, nl, k, lane(k).q, l);
        }
        let mil = lanes_mut(&mut mi);
        for (k, x) in mil.iter_mut().enumerate() {
            *x = lane(k).qinv & MASK52;
        }
    }
    let w = window(ebits, l);
    let entries = 1usize << w;
    // tab[d] = b^d R mod q (entry 0 unused).
    let mut tab = zmm_buf(entries * n);
    {
        let t1 = lanes_mut(&mut tab[n..2 * n]);
        for k in 0..nl {
            let ln = lane(k);
            let q = Natural::from_limbs_asc(&ln.q[..nlen(ln.q)]);
            let b = Natural::from_limbs_asc(&ln.base[..nlen(ln.base)]);
            let br = (b << (52 * l as u64)) % q;
            put52(t1, nl, k, &br.to_limbs_asc(), l);
        }
    }
    let mut t = zmm_buf(n);
    let mut z = zmm_buf(n);
    for d in 2..entries {
        let (lo, hi) = tab.split_at_mut(d * n);
        let one = &lo[n..2 * n];
        let prev = &lo[(d - 1) * n..d * n];
        mont_l::<V>(&mut hi[..n], prev, one, &m, &mi, &mut t, l);
    }
    let mut x = zmm_buf(n);
    let mut y = zmm_buf(n);
    let mut started = vec![false; nl];
    let mut digits = vec![0usize; nl];
    let nw = ebits.div_ceil(w as u64);
    for win in (0..nw).rev() {
        let pos = win * w as u64;
        if started.iter().any(|&s| s) {
            for _ in 0..w {
                mont_l::<V>(&mut z, &x, &x, &m, &mi, &mut t, l);
                std::mem::swap(&mut x, &mut z);
            }
        }
        let mut need = false;
        {
            let tl = lanes_ref(&tab);
            let yl = lanes_mut(&mut y);
            for k in 0..nl {
                let d = digit(lane(k).exp, pos, w);
                digits[k] = d;
                let src = d.max(1) * n * 8;
                for j in 0..l {
                    yl[j * nl + k] = tl[src + j * nl + k];
                }
                need |= d != 0 && started[k];
            }
        }
        if need {
            mont_l::<V>(&mut z, &x, &y, &m, &mi, &mut t, l);
        }
        let (xl, yl, zl) = (lanes_mut(&mut x), lanes_ref(&y), lanes_ref(&z));
        for k in 0..nl {
            if digits[k] == 0 {
                continue;
            }
            let src = if started[k] { zl } else { yl };
            for j in 0..l {
                xl[j * nl + k] = src[j * nl + k];
            }
            started[k] = true;
        }
    }
    // Out of Montgomery form: MM(x, 1) <= q.
    {
        let yl = lanes_mut(&mut y);
        yl.fill(0);
        yl[..nl].fill(1);
    }
    mont_l::<V>(&mut z, &x, &y, &m, &mi, &mut t, l);
    let zl = lanes_ref(&z);
    for (k, o) in out.iter_mut().enumerate() {
        get52(zl, nl, k, l, o);
        let q = lanes[k].q;
        if !less_padded(o, q) {
            sub_padded(o, q);
        }
    }
}

/// a < b, b possibly shorter than a (zero above).
fn less_padded(a: &[u64], b: &[u64]) -> bool {
    for i in (0..a.len().max(b.len())).rev() {
        let x = a.get(i).copied().unwrap_or(0);
        let y = b.get(i).copied().unwrap_or(0);
        if x != y {
            return x < y;
        }
    }
    false
}

fn sub_padded(a: &mut [u64], b: &[u64]) {
    let mut br = false;
    for (i, x) in a.iter_mut().enumerate() {
        let y = b.get(i).copied().unwrap_or(0);
        let (d, o1) = x.overflowing_sub(y);
        let (d, o2) = d.overflowing_sub(br as u64);
        *x = d;
        br = o1 | o2;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn radix_round_trip() {
        let x = [
            0x0123_4567_89ab_cdefu64,
            0xfedc_ba98_7654_3210,
            0x1357_9bdf_0246_8ace,
        ];
        let l = limbs52(192);
        let mut buf = vec![0u64; l * 8];
        put52(&mut buf, 8, 3, &x, l);
        let mut y = [0u64; 3];
        get52(&buf, 8, 3, l, &mut y);
        assert_eq!(x, y);
    }

    #[test]
    fn digits() {
        let e = [0xf0f0_f0f0_f0f0_f0f0u64, 0x1];
        assert_eq!(digit(&e, 60, 5), 0x1f);
        assert_eq!(digit(&e, 62, 5), 0x7);
        assert_eq!(digit(&e, 64, 5), 1);
        assert_eq!(digit(&e, 128, 5), 0);
    }
}
