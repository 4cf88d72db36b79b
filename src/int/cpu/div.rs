//! Division of limb vectors: by one limb with a precomputed reciprocal,
//! schoolbook with Möller and Granlund's 3/2 division (GMP's
//! `sbpi1_div_qr`), and recursive divide-and-conquer (Burnikel and Ziegler,
//! GMP's `dcpi1_div_qr`) whose products use the fast multiplication.

use super::arith::*;
use super::mul::{mul_any, mul_n, mullo};

/// Divide-and-conquer division from this many divisor (and quotient) limbs.
pub const DC_T: usize = 40;

/// `floor((B^2 - 1) / d) - B` for a normalised `d` (top bit set).
#[inline]
pub fn invert_limb(d: u64) -> u64 {
    debug_assert!(d >> 63 == 1);
    #[cfg(target_arch = "x86_64")]
    {
        // One hardware division of (!d, B - 1) by d; the quotient fits a
        // limb because !d < d.
        let q: u64;
        // SAFETY: no memory access; the quotient cannot overflow (#DE).
        unsafe {
            std::arch::asm!(
                "div {d}",
                d = in(reg) d,
                inout("rax") u64::MAX => q,
                inout("rdx") !d => _,
                options(pure, nomem, nostack),
            );
        }
        q
    }
    #[cfg(not(target_arch = "x86_64"))]
    {
        ((((!d) as u128) << 64) | u64::MAX as u128).wrapping_div(d as u128) as u64
    }
}

/// `floor((B^3 - 1) / (d1 B + d0)) - B` for a normalised `d1` (GMP's `invert_pi1`).
pub fn invert_pi1(d1: u64, d0: u64) -> u64 {
    let mut v = invert_limb(d1);
    let mut p = d1.wrapping_mul(v).wrapping_add(d0);
    if p < d0 {
        v = v.wrapping_sub(1);
        let mask = if p >= d1 { u64::MAX } else { 0 };
        p = p.wrapping_sub(d1);
        v = v.wrapping_add(mask);
        p = p.wrapping_sub(mask & d1);
    }
    let t = d0 as u128 * v as u128;
    let (t1, t0) = ((t >> 64) as u64, t as u64);
    let (p2, o) = p.overflowing_add(t1);
    if o {
        v = v.wrapping_sub(1);
        if p2 >= d1 && (p2 > d1 || t0 >= d0) {
            v = v.wrapping_sub(1);
        }
    }
    v
}

/// 2/1 division `(nh B + nl) / d` with `nh < d`, `d` normalised and
/// `di = invert_limb(d)`; returns quotient and remainder.
#[inline(always)]
pub fn div_2by1(nh: u64, nl: u64, d: u64, di: u64) -> (u64, u64) {
    // Wraps modulo 2^128 by design (GMP's udiv_qrnnd_preinv).
    let p =
        (nh as u128 * di as u128).wrapping_add(((nh.wrapping_add(1)) as u128) << 64 | nl as u128);
    let (mut q, ql) = ((p >> 64) as u64, p as u64);
    let mut r = nl.wrapping_sub(q.wrapping_mul(d));
    if r > ql {
        q = q.wrapping_sub(1);
        r = r.wrapping_add(d);
    }
    if r >= d {
        r -= d;
        q += 1;
    }
    (q, r)
}

/// 3/2 division `(n2 B^2 + n1 B + n0) / (d1 B + d0)` with `(n2, n1) < (d1, d0)`
/// and `dinv = invert_pi1(d1, d0)`; returns the quotient limb and the
/// two-limb remainder `(r1, r0)`.
#[inline(always)]
pub fn div_3by2(n2: u64, n1: u64, n0: u64, d1: u64, d0: u64, dinv: u64) -> (u64, u64, u64) {
    // Limb by limb, as GMP's udiv_qr_3by2, so that each step is one
    // add/sub pair on the critical path.
    let p = n2 as u128 * dinv as u128;
    let (q0, c) = (p as u64).overflowing_add(n1);
    let mut q = ((p >> 64) as u64).wrapping_add(n2).wrapping_add(c as u64);
    let r1 = n1.wrapping_sub(d1.wrapping_mul(q));
    let t = d0 as u128 * q as u128;
    // (r1, r0) = (r1, n0) - (d1, d0) - d0 q
    let (r0, b1) = n0.overflowing_sub(d0);
    let r1 = r1.wrapping_sub(d1).wrapping_sub(b1 as u64);
    let (r0, b2) = r0.overflowing_sub(t as u64);
    let r1 = r1.wrapping_sub((t >> 64) as u64).wrapping_sub(b2 as u64);
    q = q.wrapping_add(1);
    let mask = 0u64.wrapping_sub((r1 >= q0) as u64);
    q = q.wrapping_add(mask);
    let (mut r0, c2) = r0.overflowing_add(mask & d0);
    let mut r1 = r1.wrapping_add(mask & d1).wrapping_add(c2 as u64);
    if r1 >= d1 && (r1 > d1 || r0 >= d0) {
        q = q.wrapping_add(1);
        let (x, b) = r0.overflowing_sub(d0);
        r0 = x;
        r1 = r1.wrapping_sub(d1).wrapping_sub(b as u64);
    }
    (q, r1, r0)
}

/// `q = u / d`, returns `u mod d`, for a single limb `d != 0` (any `d`).
pub fn div_1(q: &mut [u64], u: &[u64], d: u64) -> u64 {
    debug_assert!(d != 0 && q.len() == u.len());
    let s = d.leading_zeros();
    let dn = d << s;
    let di = invert_limb(dn);
    let mut r = 0u64;
    if s == 0 {
        for i in (0..u.len()).rev() {
            let (qi, ri) = div_2by1(r, u[i], dn, di);
            q[i] = qi;
            r = ri;
        }
        return r;
    }
    // Shift the dividend on the fly: limb i of u << s is (u[i] << s) | (u[i-1] >> (64-s)).
    let n = u.len();
    let mut hi = 0u64;
    r = if n > 0 { u[n - 1] >> (64 - s) } else { 0 };
    for i in (0..n).rev() {
        let lo = if i > 0 { u[i - 1] >> (64 - s) } else { 0 };
        let nl = (u[i] << s) | lo;
        let (qi, ri) = div_2by1(r, nl, dn, di);
        q[i] = qi;
        r = ri;
        hi = ri;
    }
    hi >> s
}

/// Schoolbook division of `np[..nn]` by the normalised `d[..dn]`, `dn >= 2`:
/// writes the low `nn - dn` quotient limbs to `q`, leaves the remainder in
/// `np[..dn]` and returns the top quotient limb (0 or 1).
pub fn sb_div_qr(q: &mut [u64], np: &mut [u64], d: &[u64], dinv: u64) -> bool {
    let (nn, dn) = (np.len(), d.len());
    debug_assert!(dn >= 2 && nn >= dn && q.len() == nn - dn && d[dn - 1] >> 63 == 1);
    let qh = cmp(&np[nn - dn..], d).is_ge();
    if qh {
        sub_n_assign(&mut np[nn - dn..], d);
    }
    let (d1, d0) = (d[dn - 1], d[dn - 2]);
    if dn == 2 {
        // Two-limb divisor: the 3/2 division is the whole step.
        let (mut r1, mut r0) = (np[nn - 1], np[nn - 2]);
        for i in (0..nn - 2).rev() {
            let (qi, s1, s0) = div_3by2(r1, r0, np[i], d1, d0, dinv);
            q[i] = qi;
            (r1, r0) = (s1, s0);
        }
        np[1] = r1;
        np[0] = r0;
        return qh;
    }
    let dl = &d[..dn - 2];
    let mut n1 = np[nn - 1];
    for i in (0..nn - dn).rev() {
        // The partial remainder is np[i..i+dn-1] with n1 on top.
        let n0top = np[i + dn - 1];
        let qi;
        if n1 == d1 && n0top == d0 {
            qi = u64::MAX;
            submul_1(&mut np[i..i + dn], d, qi);
            n1 = np[i + dn - 1];
        } else {
            let (mut qq, r1, r0) = div_3by2(n1, n0top, np[i + dn - 2], d1, d0, dinv);
            let cy = submul_1(&mut np[i..i + dn - 2], dl, qq);
            let (n0, cy1) = r0.overflowing_sub(cy);
            let (mut nn1, cy2) = r1.overflowing_sub(cy1 as u64);
            np[i + dn - 2] = n0;
            if cy2 {
                let c = add_n_assign(&mut np[i..i + dn - 1], &d[..dn - 1]);
                nn1 = nn1.wrapping_add(d1).wrapping_add(c as u64);
                qq = qq.wrapping_sub(1);
            }
            n1 = nn1;
            qi = qq;
        }
        np[i + dn - 1] = n1;
        q[i] = qi;
    }
    qh
}

/// Scratch limbs needed by [`dc_div_qr_n`] for an `n`-limb divisor: `n`
/// for the products plus their scratch (a monotone bound).
pub fn dc_n_itch(n: usize) -> usize {
    if n < DC_T { 0 } else { 17 * n + 256 }
}

/// `np[..2n] / d[..n]` (normalised) by recursive halves: the quotient's low
/// `n` limbs to `q`, the remainder in `np[..n]`; returns the top quotient limb.
pub fn dc_div_qr_n(
    q: &mut [u64],
    np: &mut [u64],
    d: &[u64],
    dinv: u64,
    tp: &mut [u64],
    par: bool,
) -> u64 {
    let n = d.len();
    debug_assert!(q.len() == n && np.len() == 2 * n);
    let lo = n / 2;
    let hi = n - lo;
    // Top half of the quotient: np[2lo..2n] / d[lo..n], then subtract
    // q_hi * d[..lo] from np[lo..lo+n].
    let mut qh = div_qr_2n(&mut q[lo..], &mut np[2 * lo..], &d[lo..], dinv, tp, par);
    let (t, s) = tp.split_at_mut(n);
    mul_any(t, &q[lo..], &d[..lo], s, par);
    let mut cy = sub_n_assign(&mut np[lo..lo + n], t) as u64;
    if qh != 0 {
        cy += sub_n_assign(&mut np[n..n + lo], &d[..lo]) as u64;
    }
    while cy != 0 {
        qh = qh.wrapping_sub(sub_1_assign(&mut q[lo..], 1) as u64);
        cy -= add_n_assign(&mut np[lo..lo + n], d) as u64;
    }
    // Low half: np[hi..hi+2lo] / d[hi..n], then subtract q_lo * d[..hi].
    let ql = div_qr_2n(
        &mut q[..lo],
        &mut np[hi..hi + 2 * lo],
        &d[hi..],
        dinv,
        tp,
        par,
    );
    let (t, s) = tp.split_at_mut(n);
    mul_any(t, &d[..hi], &q[..lo], s, par);
    let mut cy = sub_n_assign(&mut np[..n], t) as u64;
    if ql != 0 {
        cy += sub_n_assign(&mut np[lo..n], &d[..hi]) as u64;
    }
    while cy != 0 {
        sub_1_assign(&mut q[..lo], 1);
        cy -= add_n_assign(&mut np[..n], d) as u64;
    }
    qh
}

/// `np[..2n] / d[..n]`: schoolbook below `DC_T`, recursive above.
fn div_qr_2n(
    q: &mut [u64],
    np: &mut [u64],
    d: &[u64],
    dinv: u64,
    tp: &mut [u64],
    par: bool,
) -> u64 {
    if d.len() < DC_T {
        sb_div_qr(q, np, d, dinv) as u64
    } else {
        dc_div_qr_n(q, np, d, dinv, tp, par)
    }
}

/// `np[..dn+k] / d[..dn]` for a quotient of `k <= dn` limbs: the top `2k`
/// limbs by the top `k` divisor limbs, then corrected by the product of
/// that quotient and the rest of the divisor (GMP's scheme). The quotient's
/// low `k` limbs go to `q`, the remainder stays in `np[..dn]`; returns the
/// top quotient limb.
fn div_qr_short(
    q: &mut [u64],
    np: &mut [u64],
    d: &[u64],
    dinv: u64,
    tp: &mut [u64],
    par: bool,
) -> u64 {
    let dn = d.len();
    let k = q.len();
    debug_assert!(k <= dn && np.len() == dn + k);
    if k < DC_T {
        return sb_div_qr(q, np, d, dinv) as u64;
    }
    let mut qh = dc_div_qr_n(q, &mut np[dn - k..], &d[dn - k..], dinv, tp, par);
    if k != dn {
        let (t, s) = tp.split_at_mut(dn);
        mul_any(t, q, &d[..dn - k], s, par);
        let mut cy = sub_n_assign(&mut np[..dn], t) as u64;
        if qh != 0 {
            cy += sub_n_assign(&mut np[k..dn], &d[..dn - k]) as u64;
        }
        while cy != 0 {
            qh = qh.wrapping_sub(sub_1_assign(q, 1) as u64);
            cy -= add_n_assign(&mut np[..dn], d) as u64;
        }
    }
    qh
}

/// Quotient limbs of the first (top) block of [`div_qr`]: `qn mod dn`, or
/// a whole `dn` (or all of `qn`) when that is zero.
fn first_block(qn: usize, dn: usize) -> usize {
    match qn % dn {
        0 => dn.min(qn),
        f => f,
    }
}

/// Scratch limbs for [`div_qr`] with a quotient of `qn` and a divisor of
/// `dn` limbs (every block needs at most what one `dn`-limb block does).
pub fn div_qr_itch(qn: usize, dn: usize) -> usize {
    if use_barrett(qn, dn) {
        (30 * dn + 400).max(dc_n_itch(dn))
    } else {
        dc_n_itch(dn)
    }
}

/// Barrett blocks from divisors of this many limbs (and enough whole
/// blocks, see [`use_barrett`]).
pub const BARRETT_T: usize = 128;

static BARRETT: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(BARRETT_T);

/// Moves the Barrett threshold (for measurements; `usize::MAX` turns the
/// Barrett blocks off). Results are the same either way.
#[doc(hidden)]
pub fn set_barrett_threshold(t: usize) {
    BARRETT.store(t, std::sync::atomic::Ordering::Relaxed);
}

/// Whether [`div_qr`] divides its whole blocks with a precomputed inverse.
/// The inverse costs about one recursive division of a block; each block
/// then costs two products instead of a recursive division, which saves
/// more the larger `dn` is. Measured: worth it from about
/// `1 + 1024 / dn` whole blocks (and at least two).
fn use_barrett(qn: usize, dn: usize) -> bool {
    let full = qn - first_block(qn, dn);
    dn >= BARRETT.load(std::sync::atomic::Ordering::Relaxed) && full >= 2 * dn && full >= dn + 1024
}

/// `I' = floor((B^2n - 1) / d) - B^n` for a normalised `n`-limb `d`: the
/// low `n` limbs of the reciprocal (its top limb is 1), into `inv`.
fn reciprocal(inv: &mut [u64], d: &[u64], dinv: u64, tp: &mut [u64], par: bool) {
    let n = d.len();
    let (num, tp) = tp.split_at_mut(2 * n);
    let (q, tp) = tp.split_at_mut(n);
    num.fill(u64::MAX);
    let qh = div_qr(q, num, d, dinv, tp, par);
    debug_assert_eq!(qh, 1);
    inv.copy_from_slice(q);
}

/// One Barrett block: `w[..2n] / d` (top half below `d`) with the
/// reciprocal's low limbs `inv`: `q^ = W1 + floor(W1 I' / B^n)` from the
/// top half `W1`, which is at most 3 below the quotient; the remainder
/// `w - q^ d < 4d` needs only its low `n + 1` limbs.
fn barrett_block(q: &mut [u64], w: &mut [u64], d: &[u64], inv: &[u64], tp: &mut [u64], par: bool) {
    let n = d.len();
    let (t, tp) = tp.split_at_mut(2 * n + 2);
    let (x, tp) = tp.split_at_mut(n + 1);
    let (y, s) = tp.split_at_mut(n + 1);
    mul_n(&mut t[..2 * n], &w[n..], inv, s, par);
    let c = add_n(q, &t[n..2 * n], &w[n..]);
    debug_assert!(!c);
    // The low n + 1 limbs of q^ d: a low-half product below the NTT sizes,
    // a full one there (the transform costs the same, and n + 1 limbs
    // could double its length).
    if n >= super::mul::ntt_t() {
        mul_n(&mut t[..2 * n], q, d, s, par);
    } else {
        x[..n].copy_from_slice(q);
        x[n] = 0;
        y[..n].copy_from_slice(d);
        y[n] = 0;
        mullo(&mut t[..n + 1], x, y, s, par);
    }
    sub_n_assign(&mut w[..n + 1], &t[..n + 1]);
    // At most three corrections.
    while w[n] != 0 || cmp(&w[..n], d).is_ge() {
        let b = sub_n_assign(&mut w[..n], d);
        w[n] = w[n].wrapping_sub(b as u64);
        add_1_assign(q, 1);
    }
}

/// `np[..nn] / d[..dn]` for a normalised `d`, `dn >= 2`: the low `nn - dn`
/// quotient limbs to `q`, the remainder in `np[..dn]`; returns the top
/// quotient limb. Long quotients go in blocks of `dn` limbs, top first.
pub fn div_qr(
    q: &mut [u64],
    np: &mut [u64],
    d: &[u64],
    dinv: u64,
    tp: &mut [u64],
    par: bool,
) -> u64 {
    let (nn, dn) = (np.len(), d.len());
    let qn = nn - dn;
    debug_assert!(dn >= 2 && q.len() == qn);
    if dn < DC_T {
        return sb_div_qr(q, np, d, dinv) as u64;
    }
    let mut pos = qn - first_block(qn, dn);
    let qh = div_qr_short(&mut q[pos..], &mut np[pos..], d, dinv, tp, par);
    if use_barrett(qn, dn) {
        let (inv, tp) = tp.split_at_mut(dn);
        reciprocal(inv, d, dinv, tp, par);
        while pos > 0 {
            pos -= dn;
            barrett_block(
                &mut q[pos..pos + dn],
                &mut np[pos..pos + 2 * dn],
                d,
                inv,
                tp,
                par,
            );
        }
        return qh;
    }
    while pos > 0 {
        pos -= dn;
        let c = dc_div_qr_n(
            &mut q[pos..pos + dn],
            &mut np[pos..pos + 2 * dn],
            d,
            dinv,
            tp,
            par,
        );
        debug_assert_eq!(c, 0);
    }
    qh
}

/// Floor division of `u` by `v` (any lengths): `q = u / v`, `r = u mod v`,
/// written in full (zero-padded) to `q` and `r`, which have `u.len()` and
/// at least `v`'s significant length of limbs. Returns false (and zeros)
/// when `v == 0`. `scratch` grows as needed.
pub fn divrem(
    q: &mut [u64],
    r: &mut [u64],
    u: &[u64],
    v: &[u64],
    scratch: &mut Vec<u64>,
    par: bool,
) -> bool {
    let n = nlen(v);
    if n == 0 {
        q.fill(0);
        r.fill(0);
        return false;
    }
    let m = nlen(u);
    if m < n || (m == n && cmp(&u[..n], &v[..n]).is_lt()) {
        q.fill(0);
        r[..m].copy_from_slice(&u[..m]);
        r[m..].fill(0);
        return true;
    }
    if n == 1 {
        let rem = div_1(&mut q[..m], &u[..m], v[0]);
        q[m..].fill(0);
        r.fill(0);
        r[0] = rem;
        return true;
    }
    let s = v[n - 1].leading_zeros();
    let top = if s == 0 { 0 } else { u[m - 1] >> (64 - s) };
    // The shifted dividend needs one more limb only when bits come out on top.
    let nn = if top == 0 { m } else { m + 1 };
    let qn = nn - n;
    let need = n + nn + div_qr_itch(qn, n);
    if scratch.len() < need {
        scratch.resize(need, 0);
    }
    let (vn, rest) = scratch.split_at_mut(n);
    let (un, tp) = rest.split_at_mut(nn);
    if s == 0 {
        vn.copy_from_slice(&v[..n]);
        un.copy_from_slice(&u[..m]);
    } else {
        shl(vn, &v[..n], s);
        let c = shl(&mut un[..m], &u[..m], s);
        if nn > m {
            un[m] = c;
        }
    }
    let dinv = invert_pi1(vn[n - 1], vn[n - 2]);
    let qh = div_qr(&mut q[..qn], un, vn, dinv, tp, par);
    if qn < q.len() {
        q[qn] = qh;
        q[qn + 1..].fill(0);
    } else {
        debug_assert_eq!(qh, 0);
    }
    if s == 0 {
        r[..n].copy_from_slice(&un[..n]);
    } else {
        shr(&mut r[..n], &un[..n], s);
    }
    r[n..].fill(0);
    true
}
