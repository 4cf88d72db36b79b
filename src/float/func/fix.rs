//! Allocation-free arithmetic for the series loops of the function cores.
//!
//! Unsigned integers as trimmed little-endian limb vectors (no zero limb on
//! top; empty = 0) in buffers reused across the terms of a series. Each
//! operation computes exactly what the malachite `Natural` expression it
//! replaces computes (products are exact, shifts and divisions floor), so
//! the cores' intervals and error bounds are unchanged bit for bit; only
//! the allocations (a `Natural` per operation) and the generic dispatch go.

use malachite_nz::natural::Natural;

use crate::int::cpu::div::{div_2by1, invert_limb};
use crate::int::cpu::{arith as mpn, mul as mmul};

/// Drops zero limbs from the top.
#[inline]
pub(crate) fn trim(v: &mut Vec<u64>) {
    while v.last() == Some(&0) {
        v.pop();
    }
}

/// The limbs of `n` (trimmed).
pub(crate) fn limbs(n: &Natural) -> Vec<u64> {
    n.to_limbs_asc()
}

/// `n` as a `Natural`.
pub(crate) fn nat(v: Vec<u64>) -> Natural {
    Natural::from_owned_limbs_asc(v)
}

/// `2^k` into `v`.
pub(crate) fn set_pow2(v: &mut Vec<u64>, k: u64) {
    v.clear();
    v.resize((k / 64) as usize + 1, 0);
    *v.last_mut().unwrap() = 1 << (k % 64);
}

/// Scratch for [`mul_shr`] and [`sqr_shr`] (grown once per series).
#[derive(Default)]
pub(crate) struct Tmp {
    prod: Vec<u64>,
    s: Vec<u64>,
}

/// `out = floor(a * b / 2^sh)` (the exact product, then a floor shift).
/// Returns whether nonzero bits were shifted out.
pub(crate) fn mul_shr(out: &mut Vec<u64>, a: &[u64], b: &[u64], sh: u64, t: &mut Tmp) -> bool {
    out.clear();
    if a.is_empty() || b.is_empty() {
        return false;
    }
    let l = a.len() + b.len();
    t.prod.clear();
    t.prod.resize(l, 0);
    let (x, y) = if a.len() >= b.len() { (a, b) } else { (b, a) };
    if y.len() < mmul::KARA_T {
        mmul::mul_basecase(&mut t.prod, x, y);
    } else {
        let need = mmul::mul_itch(x.len(), y.len());
        if t.s.len() < need {
            t.s.resize(need, 0);
        }
        mmul::mul(&mut t.prod, x, y, &mut t.s, false);
    }
    shr_into(out, &t.prod, sh)
}

/// `out = floor(a^2 / 2^sh)`; returns whether nonzero bits were shifted out.
pub(crate) fn sqr_shr(out: &mut Vec<u64>, a: &[u64], sh: u64, t: &mut Tmp) -> bool {
    out.clear();
    let n = a.len();
    if n == 0 {
        return false;
    }
    if n >= mmul::KARA_T {
        let a2 = a.to_vec();
        return mul_shr(out, a, &a2, sh, t);
    }
    let p = &mut t.prod;
    p.clear();
    p.resize(2 * n, 0);
    // Off-diagonal products a_i a_j (i < j), doubled, plus the squares.
    for i in 0..n.saturating_sub(1) {
        let c = mpn::addmul_1(&mut p[2 * i + 1..i + n], &a[i + 1..], a[i]);
        p[i + n] = c;
    }
    let top = mpn::shl1_assign(p);
    debug_assert_eq!(top, 0);
    let mut c = 0u64;
    for i in 0..n {
        let sq = a[i] as u128 * a[i] as u128;
        let (lo, c1) = p[2 * i].overflowing_add(sq as u64);
        let (lo, c2) = lo.overflowing_add(c);
        p[2 * i] = lo;
        let hi = (sq >> 64) as u64 + c1 as u64 + c2 as u64;
        let (h2, c3) = p[2 * i + 1].overflowing_add(hi);
        p[2 * i + 1] = h2;
        c = c3 as u64;
    }
    debug_assert_eq!(c, 0);
    shr_into(out, &t.prod, sh)
}

/// `out = floor(v / 2^sh)`, trimmed; returns whether nonzero bits were
/// shifted out.
pub(crate) fn shr_into(out: &mut Vec<u64>, v: &[u64], sh: u64) -> bool {
    out.clear();
    let q = (sh / 64) as usize;
    let r = (sh % 64) as u32;
    if q >= v.len() {
        return v.iter().any(|&x| x != 0);
    }
    let mut st = v[..q].iter().any(|&x| x != 0);
    if r == 0 {
        out.extend_from_slice(&v[q..]);
    } else {
        out.resize(v.len() - q, 0);
        st |= mpn::shr(out, &v[q..], r) != 0;
    }
    trim(out);
    st
}

/// `v += 1`.
pub(crate) fn inc(v: &mut Vec<u64>) {
    if mpn::add_1_assign(v, 1) {
        v.push(1);
    }
}

/// `v = floor(v / d)` for `d != 0`.
pub(crate) fn div_small(v: &mut Vec<u64>, d: u64) {
    debug_assert!(d != 0);
    let n = v.len();
    if n == 0 {
        return;
    }
    let s = d.leading_zeros();
    let dn = d << s;
    let di = invert_limb(dn);
    if s == 0 {
        let mut r = 0u64;
        for x in v.iter_mut().rev() {
            let (q, rr) = div_2by1(r, *x, dn, di);
            *x = q;
            r = rr;
        }
    } else {
        // Divide v * 2^s by d * 2^s: the same quotient. `r` starts with the
        // bits shifted out on top (< 2^s <= dn).
        let mut r = v[n - 1] >> (64 - s);
        for i in (0..n).rev() {
            let nl = (v[i] << s) | if i > 0 { v[i - 1] >> (64 - s) } else { 0 };
            let (q, rr) = div_2by1(r, nl, dn, di);
            v[i] = q;
            r = rr;
        }
    }
    trim(v);
}

/// `acc += t`.
pub(crate) fn add_to(acc: &mut Vec<u64>, t: &[u64]) {
    if acc.len() < t.len() {
        acc.resize(t.len(), 0);
    }
    if mpn::add_assign(acc, t) {
        acc.push(1);
    }
}

/// `acc += t * h`.
pub(crate) fn addmul_to(acc: &mut Vec<u64>, t: &[u64], h: u64) {
    if acc.len() < t.len() + 1 {
        acc.resize(t.len() + 1, 0);
    }
    let c = mpn::addmul_1(&mut acc[..t.len()], t, h);
    if mpn::add_1_assign(&mut acc[t.len()..], c) {
        acc.push(1);
    }
    trim(acc);
}

/// `acc -= t` (`acc >= t`).
pub(crate) fn sub_from(acc: &mut Vec<u64>, t: &[u64]) {
    debug_assert!(acc.len() >= t.len());
    let b = mpn::sub_assign(acc, t);
    debug_assert!(!b);
    trim(acc);
}

/// A lower bound of `256 log2 d` (`d >= 1`): the integer part from the
/// leading zeros, the fraction from the next four bits (`floor(256
/// log2(1 + m/16))`).
#[inline]
fn log2_256(d: u64) -> i64 {
    const T: [i64; 16] = [
        0, 22, 43, 63, 82, 100, 117, 134, 149, 164, 179, 193, 206, 219, 232, 244,
    ];
    let lz = d.leading_zeros();
    let m = ((d << lz) >> 59) & 15;
    256 * (63 - lz as i64) + T[m as usize]
}

/// A power series with factorial-like coefficients evaluated by blocks
/// (Smith's rectangular splitting): `S = sum_{j<N} sg^j x^j / D_j` with
/// `D_j = d(1) d(2) ... d(j)` (`d(t) >= 2` nondecreasing), `sg = -1` when
/// `neg`, and `x = X / 2^(W + xsh) <= 1`. Returns `S` in units of `2^-W`, a
/// bound `err` with `|result - S_inf 2^W| < err` for the infinite series
/// `S_inf` at this exact `x` (truncation included), and `N`.
///
/// Blocks of `k` terms (`N = m k`): `U_m = 0`, `U_i = Q_i + sg^k x^k U_{i+1}
/// / (D_{(i+1)k} / D_{ik})`, `Q_i = sum_{l<k} sg^l x^l D_{ik} / D_{ik+l}`,
/// `S = U_0`. In integers: `U_i = (sum_l sg^l P_l H_l + sg^k V) / H_0` with
/// `P_l ~ x^l 2^W`, `H_l = D_{(i+1)k} / D_{ik+l}` (products of `d`, each
/// fitting a limb) and `V = floor(P_k U_{i+1} / 2^W)`. So one full product
/// and one division by a limb per block; the other terms are products by a
/// limb. Errors (units of `2^-W`): the powers `P_l = floor(P_{l-1} X /
/// 2^(W+xsh))` are within `l` of `x^l 2^W` (x <= 1); every `U` is below
/// `2^(W+1)` (the terms decrease, the first is 1); so `V` is within
/// `2k + e_{i+1} + 1` and `U_i` within `e_i = (sum_l l H_l + err V) / H_0 +
/// 1`, computed below in f64
/// with a margin. Truncation: `N` is chosen with `x^N 2^W / D_N <= 1/4`
/// (from `x < 2^(bits(X) - W - xsh)`), and the terms from there on decrease
/// at least geometrically by 1/2, so the tail is below 1/2.
pub(crate) fn ratio_series(
    x: &[u64],
    xsh: u64,
    big_w: u64,
    neg: bool,
    d: impl Fn(u64) -> u64,
    t: &mut Tmp,
) -> (Vec<u64>, u64, u64) {
    // Every value has at most W + 66 bits (sums of products by a limb).
    let cap = (big_w / 64) as usize + 4;
    let mut one = Vec::with_capacity(cap);
    set_pow2(&mut one, big_w);
    if x.is_empty() {
        return (one, 1, 0);
    }
    let xb = 64 * x.len() as u64 - x[x.len() - 1].leading_zeros() as u64;
    // log2 x < lx (lx <= 0).
    let lx = xb as f64 - (big_w + xsh) as f64;
    debug_assert!(lx <= 0.0);
    let target = -(big_w as f64) - 2.0;
    // Smallest n with n lx - log2 D_n <= target, in 1/256 units with a
    // lower bound of log2 d (so n is never too small).
    let (lx256, t256) = ((lx * 256.0) as i64, (target * 256.0).floor() as i64);
    let (mut n, mut ld) = (0u64, 0i64);
    while n as i64 * lx256 - ld > t256 {
        n += 1;
        ld += log2_256(d(n));
    }
    let n = n.max(1);
    // Block size about sqrt(N), within 2..=8, with the products fitting.
    let mut k = ((n as f64).sqrt().ceil() as u64).clamp(2, 8);
    let fits = |k: u64, m: u64| -> bool {
        // The last block has the largest factors (f included).
        let base = (m - 1) * k;
        (base + 1..=base + k)
            .try_fold(1u64, |a, t| a.checked_mul(d(t)))
            .is_some()
    };
    while k > 2 && !fits(k, n.div_ceil(k)) {
        k -= 1;
    }
    let m = n.div_ceil(k);
    let n = m * k;
    // Powers P_0..P_k.
    let mut pw: Vec<Vec<u64>> = Vec::with_capacity(k as usize + 1);
    pw.push(one);
    for l in 1..=k as usize {
        let mut p = Vec::with_capacity(cap);
        mul_shr(&mut p, &pw[l - 1], x, big_w + xsh, t);
        pw.push(p);
    }
    let sg_k = neg && k % 2 == 1;
    let (mut u, mut next) = (Vec::with_capacity(cap), Vec::with_capacity(cap));
    let (mut pos, mut negs) = (Vec::with_capacity(cap), Vec::with_capacity(cap));
    let mut err = 0.0f64;
    for i in (0..m).rev() {
        let base = i * k;
        // H_l f for l = k-1 down to 0 (H_{k-1} = 1), G f = H_0 f: one
        // division per block, by G f.
        let f = d((i + 1) * k);
        let mut h = [0u64; 8];
        h[k as usize - 1] = f;
        for l in (0..k as usize - 1).rev() {
            h[l] = h[l + 1] * d(base + l as u64 + 1);
        }
        let g = h[0];
        pos.clear();
        negs.clear();
        let mut err_t = 0.0f64;
        if i + 1 < m {
            mul_shr(&mut next, &pw[k as usize], &u, big_w, t);
            err_t += 2.0 * k as f64 + err + 1.0;
            if sg_k {
                negs.clone_from(&next);
            } else {
                pos.clone_from(&next);
            }
        }
        for (l, &hl) in h[..k as usize].iter().enumerate() {
            let p = &pw[l];
            if p.is_empty() {
                continue;
            }
            let acc = if neg && l % 2 == 1 {
                &mut negs
            } else {
                &mut pos
            };
            addmul_to(acc, p, hl);
            err_t += l as f64 * hl as f64;
        }
        sub_from(&mut pos, &negs);
        div_small(&mut pos, g);
        std::mem::swap(&mut u, &mut pos);
        err = (err_t / g as f64 + 1.0) * (1.0 + 1e-9);
    }
    // + 1/2 for the tail, and a unit of margin.
    (u, err.ceil() as u64 + 2, n)
}

/// A power series with coefficients `1/c(j)` evaluated by blocks: `S =
/// sum_{j<N} sg^j x^j / c(j)` (`c(j) >= 1` nondecreasing, `sg = -1` when
/// `neg`), `x = X / 2^W <= 1/2`. Returns `S` in units of `2^-W`, a bound
/// `err` with `|result - S_inf 2^W| < err` for the infinite series at this
/// exact `x` (truncation included), and `N`.
///
/// Blocks of `k` terms (`N = m k`): `U_m = 0`, `U_i = Q_i + sg^k x^k
/// U_{i+1}`, `Q_i = sum_{l<k} sg^l x^l / c(ik+l)`, `S = U_0`. In integers:
/// `Q_i = floor((sum_l sg^l P_l H_l) / G)` with `G = prod_l c(ik+l)` (fitting
/// a limb) and `H_l = G / c(ik+l)`, `V = floor(P_k U_{i+1} / 2^W)`,
/// `U_i = Q_i + sg^k V`. Errors (units of `2^-W`): `P_l` within `l` of
/// `x^l 2^W`; `U < 2^(W+1)`; `Q_i` within `sum_l l / c(ik+l) + 1`, `V` within
/// `2k + x^k e_{i+1} + 1`; computed below in f64 with a margin. Truncation:
/// `x^N 2^W / c(N) <= 1/4` and the terms decrease by at least 1/2, so the
/// tail is below 1/2.
pub(crate) fn inv_series(
    x: &[u64],
    big_w: u64,
    neg: bool,
    c: impl Fn(u64) -> u64,
    t: &mut Tmp,
) -> (Vec<u64>, u64, u64) {
    // Every value has at most W + 66 bits (sums of products by a limb).
    let cap = (big_w / 64) as usize + 4;
    let mut one = Vec::with_capacity(cap);
    set_pow2(&mut one, big_w);
    if x.is_empty() {
        return (one, 1, 0);
    }
    let xb = 64 * x.len() as u64 - x[x.len() - 1].leading_zeros() as u64;
    // x < 2^lx, lx <= -1.
    let lx = xb as f64 - big_w as f64;
    debug_assert!(lx <= -1.0);
    let target = -(big_w as f64) - 2.0;
    // Smallest N with N lx <= target (c(N) >= 1 only helps).
    let n = ((target / lx).ceil() as u64).max(1);
    let mut k = ((n as f64).sqrt().ceil() as u64).clamp(2, 8);
    let fits = |k: u64, m: u64| -> bool {
        let base = (m - 1) * k;
        (base..base + k)
            .try_fold(1u64, |a, j| a.checked_mul(c(j)))
            .is_some()
    };
    while k > 2 && !fits(k, n.div_ceil(k)) {
        k -= 1;
    }
    let m = n.div_ceil(k);
    let mut pw: Vec<Vec<u64>> = Vec::with_capacity(k as usize + 1);
    pw.push(one);
    for l in 1..=k as usize {
        let mut p = Vec::with_capacity(cap);
        mul_shr(&mut p, &pw[l - 1], x, big_w, t);
        pw.push(p);
    }
    let xk = 2f64.powf(lx * k as f64);
    let sg_k = neg && k % 2 == 1;
    let (mut u, mut v) = (Vec::with_capacity(cap), Vec::with_capacity(cap));
    let (mut pos, mut negs) = (Vec::with_capacity(cap), Vec::with_capacity(cap));
    let mut err = 0.0f64;
    for i in (0..m).rev() {
        let base = i * k;
        let ku = k as usize;
        // H_l = (prefix product before l) (suffix product after l).
        let mut suf = [1u64; 9];
        for l in (0..ku).rev() {
            suf[l] = suf[l + 1] * c(base + l as u64);
        }
        let g = suf[0];
        pos.clear();
        negs.clear();
        // sum_l l / c(ik+l) <= (k(k-1)/2) / c(ik).
        let err_q = (k * (k - 1) / 2) as f64 / c(base) as f64;
        let mut pre = 1u64;
        for l in 0..ku {
            let p = &pw[l];
            let hl = pre * suf[l + 1];
            pre *= c(base + l as u64);
            if p.is_empty() {
                continue;
            }
            let acc = if neg && l % 2 == 1 {
                &mut negs
            } else {
                &mut pos
            };
            addmul_to(acc, p, hl);
        }
        sub_from(&mut pos, &negs);
        div_small(&mut pos, g);
        let mut e = err_q + 1.0;
        if i + 1 < m {
            mul_shr(&mut v, &pw[k as usize], &u, big_w, t);
            if sg_k {
                sub_from(&mut pos, &v);
            } else {
                add_to(&mut pos, &v);
            }
            e += 2.0 * k as f64 + xk * err + 1.0;
        }
        std::mem::swap(&mut u, &mut pos);
        err = e * (1.0 + 1e-9);
    }
    (u, err.ceil() as u64 + 2, m * k)
}
