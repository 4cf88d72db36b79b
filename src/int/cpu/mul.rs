//! Multiplication of limb vectors: schoolbook, Karatsuba and Toom-3 for the
//! full product, and a divide-and-conquer low half (Mulders' short product,
//! with GMP's split ratios). Scratch space is passed in; `*_itch` say how
//! much. With `par`, products above `PAR_T` limbs run their sub-products on
//! several cores (for batches of a few huge elements).

use super::arith::*;
use super::ntt;

/// `mul_n` uses Karatsuba from this many limbs.
pub const KARA_T: usize = 24;
/// `mul_n` uses Toom-3 from this many limbs.
pub const TOOM3_T: usize = 110;
/// `mullo` splits from this many limbs.
pub const MULLO_DC_T: usize = 90;
/// `mul_n` and `mullo` use the NTT from this many limbs, with AVX-512 ...
pub const NTT_T: usize = 128;
/// ... with AVX2 only ...
pub const NTT_T_AVX2: usize = 256;
/// ... and with the 64-bit scalar transform.
pub const NTT_T_SCALAR: usize = 2048;

/// The NTT threshold for the transform this CPU runs.
#[inline]
pub fn ntt_t() -> usize {
    match ntt::kind() {
        ntt::Kind::Avx512 => NTT_T,
        ntt::Kind::Avx2 => NTT_T_AVX2,
        ntt::Kind::Scalar => NTT_T_SCALAR,
    }
}

/// Whether the NTT computes an `an`-by-`bn` product: both large, and
/// filling at least 5/8 of the transform's power-of-two length (just above
/// a power of two it would pay for twice the length; Toom-3 or pieces of
/// the operands do better there).
pub fn use_ntt(an: usize, bn: usize) -> bool {
    let (t, nt) = (an + bn, ntt_t());
    an.min(bn) >= nt / 2 && t >= 2 * nt && ntt::fits(an, bn) && 8 * t >= 5 * t.next_power_of_two()
}

/// Sub-products run in parallel from this many limbs (with `par`).
pub const PAR_T: usize = 1024;

/// Schoolbook `r[..an+bn] = a * b` for `an >= bn >= 1`.
pub fn mul_basecase(r: &mut [u64], a: &[u64], b: &[u64]) {
    let (an, bn) = (a.len(), b.len());
    debug_assert!(an >= bn && bn >= 1 && r.len() == an + bn);
    #[cfg(target_arch = "x86_64")]
    if an >= 4 && use_asm() {
        // The top 4k limbs of `a` in assembly, then the h <= 3 low limbs of
        // `a` as short rows along `b`.
        let h = an % 4;
        // SAFETY: checked above; r[h..] holds (an - h) + bn limbs.
        unsafe {
            super::asm::mul_basecase(
                r.as_mut_ptr().add(h),
                a.as_ptr().add(h),
                (an - h) / 4,
                b.as_ptr(),
                bn,
            );
        }
        r[..h].fill(0);
        for i in 0..h {
            let c = addmul_1(&mut r[i..i + bn], b, a[i]);
            let o = add_1_assign(&mut r[i + bn..], c);
            debug_assert!(!o);
        }
        return;
    }
    r[an] = mul_1(&mut r[..an], a, b[0]);
    for j in 1..bn {
        r[an + j] = addmul_1(&mut r[j..j + an], a, b[j]);
    }
}

/// The high columns of a short product (as MPFR's `mpfr_mulhigh_n`): for
/// `a`, `b` of `n >= 3` limbs (`n = N` when `N > 0`), `r[n-2..2n]` =
/// `T / B^(n-2)` with `T` the sum of `a_i b_j B^(i+j)` over `i + j >= n - 2`
/// (`r[..n-2]` is left as it was). The omitted products sum to
/// `a b - T < (n - 1) B^(n-1)`: each column `c <= n - 3` holds `c + 1`
/// products below `B^(c+2)`. About 60% of the products at 16 limbs.
/// Column by column (product scanning) into a 192-bit accumulator: the
/// products are independent, no carry chain runs along a row (row by row,
/// the short rows cost their latency). The columns are listed for the
/// common sizes so that each inner loop has a constant length and unrolls.
#[inline(always)]
pub fn mul_top<const N: usize>(r: &mut [u64], a: &[u64], b: &[u64]) {
    let n = if N > 0 { N } else { a.len() };
    assert!(n >= 3 && a.len() == n && b.len() == n && r.len() == 2 * n);
    let mut acc = [0u64; 3];
    macro_rules! cols {
        ($($c:literal)*) => {
            { $(top_column(r, a, b, n, $c, &mut acc);)* }
        };
    }
    match N {
        8 => cols!(6 7 8 9 10 11 12 13 14),
        16 => cols!(14 15 16 17 18 19 20 21 22 23 24 25 26 27 28 29 30),
        _ => {
            for c in n - 2..2 * n - 1 {
                top_column(r, a, b, n, c, &mut acc);
            }
        }
    }
    r[2 * n - 1] = acc[0];
}

/// Column `c` of [`mul_top`]: adds its products to `acc` (three limbs,
/// least significant first), stores the low limb in `r[c]` and shifts
/// `acc` down one limb. Explicit add-with-carry steps: with `u128` sums and
/// an overflow count LLVM moved the counts into vector registers.
#[inline(always)]
fn top_column(r: &mut [u64], a: &[u64], b: &[u64], n: usize, c: usize, acc: &mut [u64; 3]) {
    let [mut a0, mut a1, mut a2] = *acc;
    for i in c.saturating_sub(n - 1)..c.min(n - 1) + 1 {
        let t = a[i] as u128 * b[c - i] as u128;
        let k = adc_to(0, &mut a0, t as u64);
        let k = adc_to(k, &mut a1, (t >> 64) as u64);
        adc_to(k, &mut a2, 0);
    }
    r[c] = a0;
    *acc = [a1, a2, 0];
}

/// `*x += y + c` for a carry `c` of 0 or 1; returns the carry out.
#[inline(always)]
fn adc_to(c: u8, x: &mut u64, y: u64) -> u8 {
    #[cfg(target_arch = "x86_64")]
    {
        std::arch::x86_64::_addcarry_u64(c, *x, y, x)
    }
    #[cfg(not(target_arch = "x86_64"))]
    {
        let (v, o1) = x.overflowing_add(y);
        let (v, o2) = v.overflowing_add(c as u64);
        *x = v;
        (o1 | o2) as u8
    }
}

/// Schoolbook low half: `r[..n] = a * b mod B^n`, all of length `n`.
pub fn mullo_basecase(r: &mut [u64], a: &[u64], b: &[u64]) {
    let n = r.len();
    debug_assert!(a.len() == n && b.len() == n && n >= 1);
    mul_1(r, a, b[0]);
    for j in 1..n {
        addmul_1(&mut r[j..], &a[..n - j], b[j]);
    }
}

/// Low half by product scanning (Comba): each output limb sums its column
/// of partial products in a three-limb accumulator held in registers; for
/// short operands, where rows of multiply-adds cost more in overhead.
pub fn mullo_comba(r: &mut [u64], a: &[u64], b: &[u64]) {
    let n = r.len();
    debug_assert!(a.len() == n && b.len() == n);
    let (mut c0, mut c1, mut c2) = (0u64, 0u64, 0u64);
    for k in 0..n {
        for i in 0..=k {
            let p = a[i] as u128 * b[k - i] as u128;
            let (s0, k0) = c0.overflowing_add(p as u64);
            let (s1, k1) = adc(c1, (p >> 64) as u64, k0);
            c0 = s0;
            c1 = s1;
            c2 += k1 as u64;
        }
        r[k] = c0;
        c0 = c1;
        c1 = c2;
        c2 = 0;
    }
}

/// Scratch limbs needed by [`mul_n`] for `n`-limb operands: a bound that
/// grows with `n` (each algorithm's own buffers plus its sub-products'),
/// so a scratch sized for `n` serves every smaller product too.
pub fn mul_n_itch(n: usize) -> usize {
    if n < KARA_T { 0 } else { 16 * n + 256 }
}

/// `r[..2n] = a * b` for two `n`-limb operands.
pub fn mul_n(r: &mut [u64], a: &[u64], b: &[u64], s: &mut [u64], par: bool) {
    let n = a.len();
    debug_assert!(b.len() == n && r.len() == 2 * n && n >= 1);
    if n < KARA_T {
        mul_basecase(r, a, b);
    } else if n < TOOM3_T {
        karatsuba(r, a, b, s);
    } else if use_ntt(n, n) {
        // Equal operands (squares) need one forward transform less.
        let b = (a.as_ptr() != b.as_ptr()).then_some(b);
        ntt::mul(r, a, b, s, par);
    } else {
        toom3(r, a, b, s, par && n >= PAR_T);
    }
}

/// `r = |a - b|` where `b.len() <= a.len() == r.len()`; true when `a < b`.
fn abs_diff(r: &mut [u64], a: &[u64], b: &[u64]) -> bool {
    let h = b.len();
    if a[h..].iter().any(|&x| x != 0) || cmp(&a[..h], b).is_ge() {
        sub(r, a, b);
        false
    } else {
        sub_n(&mut r[..h], b, &a[..h]);
        r[h..].fill(0);
        true
    }
}

/// `r[off..] += x`, where the limbs of `x` beyond `r` are zero and nothing
/// carries out (true whenever `r` holds the final product).
fn add_at(r: &mut [u64], off: usize, x: &[u64]) {
    let len = x.len().min(r.len() - off);
    debug_assert!(x[len..].iter().all(|&v| v == 0));
    let c = add_assign(&mut r[off..], &x[..len]);
    debug_assert!(!c);
}

/// Subtractive Karatsuba: `a0*b0 + (a0*b0 + a1*b1 - (a0-a1)(b0-b1)) B^m + a1*b1 B^2m`.
fn karatsuba(r: &mut [u64], a: &[u64], b: &[u64], s: &mut [u64]) {
    let n = a.len();
    let m = n - n / 2;
    let (a0, a1) = a.split_at(m);
    let (b0, b1) = b.split_at(m);
    let (da, s) = s.split_at_mut(m);
    let (db, s) = s.split_at_mut(m);
    let (t, s) = s.split_at_mut(2 * m);
    let (w, s) = s.split_at_mut(2 * m);
    let na = abs_diff(da, a0, a1);
    let nb = abs_diff(db, b0, b1);
    mul_n(t, da, db, s, false);
    {
        let (lo, hi) = r.split_at_mut(2 * m);
        mul_n(lo, a0, b0, s, false);
        mul_n(hi, a1, b1, s, false);
        // w = a0*b0 + a1*b1 -+ t: the middle coefficient, with its top limb in cw.
        let mut cw = add(w, lo, hi) as u64;
        if na == nb {
            cw -= sub_n_assign(w, t) as u64;
        } else {
            cw += add_n_assign(w, t) as u64;
        }
        let c = add_n_assign(&mut r[m..3 * m], w) as u64;
        let o = add_1_assign(&mut r[3 * m..], cw + c);
        debug_assert!(!o);
    }
}

/// Toom-3 (Bodrato's interpolation) with evaluation points 0, 1, -1, 2, inf.
fn toom3(r: &mut [u64], a: &[u64], b: &[u64], s: &mut [u64], par: bool) {
    let n = a.len();
    let k = n.div_ceil(3);
    let k1 = k + 1;
    let (a0, a1, a2) = (&a[..k], &a[k..2 * k], &a[2 * k..]);
    let (b0, b1, b2) = (&b[..k], &b[k..2 * k], &b[2 * k..]);
    let (v1, s) = s.split_at_mut(2 * k1);
    let (vm1, s) = s.split_at_mut(2 * k1);
    let (v2, s) = s.split_at_mut(2 * k1);
    let (e, s) = s.split_at_mut(6 * k1);
    let (ea1, e) = e.split_at_mut(k1);
    let (eb1, e) = e.split_at_mut(k1);
    let (eam, e) = e.split_at_mut(k1);
    let (ebm, e) = e.split_at_mut(k1);
    let (ea2, eb2) = e.split_at_mut(k1);
    let na = eval3(ea1, eam, ea2, a0, a1, a2);
    let nb = eval3(eb1, ebm, eb2, b0, b1, b2);
    let neg = na != nb;
    {
        let (rlo, rhi) = r.split_at_mut(4 * k);
        let v0 = &mut rlo[..2 * k];
        if par {
            let (ea1, eb1, eam, ebm, ea2, eb2) = (&*ea1, &*eb1, &*eam, &*ebm, &*ea2, &*eb2);
            let own = |r: &mut [u64], x: &[u64], y: &[u64]| {
                let mut s = vec![0u64; mul_n_itch(x.len())];
                mul_n(r, x, y, &mut s, true);
            };
            rayon::join(
                || rayon::join(|| own(v1, ea1, eb1), || own(vm1, eam, ebm)),
                || {
                    rayon::join(
                        || own(v2, ea2, eb2),
                        || rayon::join(|| own(v0, a0, b0), || own(rhi, a2, b2)),
                    )
                },
            );
        } else {
            mul_n(v1, ea1, eb1, s, false);
            mul_n(vm1, eam, ebm, s, false);
            mul_n(v2, ea2, eb2, s, false);
            mul_n(v0, a0, b0, s, false);
            mul_n(rhi, a2, b2, s, false);
        }
    }
    // Interpolation; every intermediate is a non-negative combination of
    // the coefficients c0..c4, so none wraps around.
    let (rlo, vinf) = r.split_at_mut(4 * k);
    // v2 <- (v2 - vm1) / 3 = c1 + c2 + 3c3 + 5c4
    if neg {
        add_n_assign(v2, vm1);
    } else {
        sub_n_assign(v2, vm1);
    }
    divexact_by3_assign(v2);
    // vm1 <- (v1 - vm1) / 2 = c1 + c3
    if neg {
        add_n_assign(vm1, v1);
    } else {
        rsub_n_assign(vm1, v1);
    }
    shr_assign(vm1, 1);
    // v1 <- v1 - v0 = c1 + c2 + c3 + c4
    sub_assign(v1, &rlo[..2 * k]);
    // v2 <- (v2 - v1) / 2 - 2 c4 = c3
    sub_n_assign(v2, v1);
    shr_assign(v2, 1);
    sub_assign(v2, vinf);
    sub_assign(v2, vinf);
    // v1 <- v1 - vm1 - c4 = c2
    sub_n_assign(v1, vm1);
    sub_assign(v1, vinf);
    // vm1 <- vm1 - c3 = c1
    sub_n_assign(vm1, v2);
    rlo[2 * k..].fill(0);
    add_at(r, k, vm1);
    add_at(r, 2 * k, v1);
    add_at(r, 3 * k, v2);
}

/// Toom-3 evaluation of `x0 + x1 t + x2 t^2` at 1, -1 (absolute value; the
/// sign is returned) and 2, each into `k + 1` limbs.
fn eval3(
    e1: &mut [u64],
    em: &mut [u64],
    e2: &mut [u64],
    x0: &[u64],
    x1: &[u64],
    x2: &[u64],
) -> bool {
    let k = x0.len();
    e1[k] = add(&mut e1[..k], x0, x2) as u64;
    let neg = abs_diff(em, e1, x1);
    let c = add_assign(e1, x1);
    debug_assert!(!c);
    e2[..x2.len()].copy_from_slice(x2);
    e2[x2.len()..].fill(0);
    shl1_assign(e2);
    add_assign(e2, x1);
    shl1_assign(e2);
    add_assign(e2, x0);
    neg
}

/// Scratch limbs needed by [`mul`] for an `an`-by-`bn` product, `an >= bn`
/// (a monotone bound, as for [`mul_n_itch`]).
pub fn mul_itch(an: usize, bn: usize) -> usize {
    if bn < KARA_T { 0 } else { 16 * (an + bn) + 256 }
}

/// `r[..an+bn] = a * b` for `an >= bn >= 1`: balanced pieces of `bn` limbs.
pub fn mul(r: &mut [u64], a: &[u64], b: &[u64], s: &mut [u64], par: bool) {
    let (an, bn) = (a.len(), b.len());
    debug_assert!(an >= bn && bn >= 1 && r.len() == an + bn);
    if bn < KARA_T {
        mul_basecase(r, a, b);
        return;
    }
    if use_ntt(an, bn) {
        ntt::mul(r, a, Some(b), s, par);
        return;
    }
    mul_n(&mut r[..2 * bn], &a[..bn], b, s, par);
    let mut off = bn;
    while off < an {
        let len = bn.min(an - off);
        let (t, s) = s.split_at_mut(len + bn);
        if len == bn {
            mul_n(t, &a[off..off + bn], b, s, par);
        } else {
            mul(t, b, &a[off..], s, par);
        }
        let c = add_n_assign(&mut r[off..off + bn], &t[..bn]);
        r[off + bn..off + bn + len].copy_from_slice(&t[bn..]);
        let o = add_1_assign(&mut r[off + bn..off + bn + len], c as u64);
        debug_assert!(!o);
        off += len;
    }
}

/// `r[..an+bn] = a * b` for any lengths (the longer operand goes first).
pub fn mul_any(r: &mut [u64], a: &[u64], b: &[u64], s: &mut [u64], par: bool) {
    if a.len() >= b.len() {
        mul(r, a, b, s, par)
    } else {
        mul(r, b, a, s, par)
    }
}

/// The length of the low part of a split low-half product of `n` limbs
/// (GMP's ratios: about 0.69 of `n` in the Karatsuba range, 0.78 above).
fn mullo_split(n: usize) -> usize {
    let hi = if n * 25 / 36 < KARA_T {
        n / 2
    } else if n * 31 / 40 < TOOM3_T {
        n * 11 / 36
    } else {
        n * 9 / 40
    };
    n - hi
}

/// Scratch limbs needed by [`mullo`] for `n` limbs (a monotone bound).
pub fn mullo_itch(n: usize) -> usize {
    if n < MULLO_DC_T { 0 } else { 20 * n + 256 }
}

/// Low half `r[..n] = a * b mod B^n`: the full product of the low `n1`
/// limbs, plus two low-half products of `n - n1` limbs for the cross terms.
pub fn mullo(r: &mut [u64], a: &[u64], b: &[u64], s: &mut [u64], par: bool) {
    let n = r.len();
    debug_assert!(a.len() == n && b.len() == n && n >= 1);
    if n < MULLO_DC_T {
        mullo_basecase(r, a, b);
        return;
    }
    if use_ntt(n, n) {
        // The transform costs the same for the full product.
        let (t, s) = s.split_at_mut(2 * n);
        let b = (a.as_ptr() != b.as_ptr()).then_some(b);
        ntt::mul(t, a, b, s, par);
        r.copy_from_slice(&t[..n]);
        return;
    }
    let n1 = mullo_split(n);
    let n2 = n - n1;
    if par && n >= PAR_T {
        let mut t = vec![0u64; 2 * n1];
        let mut x = vec![0u64; n2];
        let mut y = vec![0u64; n2];
        rayon::join(
            || {
                let mut s = vec![0u64; mul_n_itch(n1)];
                mul_n(&mut t, &a[..n1], &b[..n1], &mut s, true);
            },
            || {
                rayon::join(
                    || {
                        let mut s = vec![0u64; mullo_itch(n2)];
                        mullo(&mut x, &a[n1..], &b[..n2], &mut s, true);
                    },
                    || {
                        let mut s = vec![0u64; mullo_itch(n2)];
                        mullo(&mut y, &a[..n2], &b[n1..], &mut s, true);
                    },
                )
            },
        );
        r.copy_from_slice(&t[..n]);
        add_n_assign(&mut r[n1..], &x);
        add_n_assign(&mut r[n1..], &y);
        return;
    }
    {
        let (t, s) = s.split_at_mut(2 * n1);
        mul_n(t, &a[..n1], &b[..n1], s, false);
        r.copy_from_slice(&t[..n]);
    }
    let (t, s) = s.split_at_mut(n2);
    mullo(t, &a[n1..], &b[..n2], s, false);
    add_n_assign(&mut r[n1..], t);
    mullo(t, &a[..n2], &b[n1..], s, false);
    add_n_assign(&mut r[n1..], t);
}
