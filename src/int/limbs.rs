//! Limb-level arithmetic on little-endian `u64` slices: the CPU engine's
//! kernels. Each function works on one element; `cpu.rs` runs them over a
//! batch on all cores.

/// `r = a + b` over `a.len()` limbs; returns the carry out.
#[inline]
pub fn add_n(r: &mut [u64], a: &[u64], b: &[u64]) -> bool {
    let mut c = false;
    for ((r, &a), &b) in r.iter_mut().zip(a).zip(b) {
        let (s1, c1) = a.overflowing_add(b);
        let (s2, c2) = s1.overflowing_add(c as u64);
        *r = s2;
        c = c1 | c2;
    }
    c
}

/// `r += a` in place; returns the carry out.
#[inline]
pub fn add_assign_n(r: &mut [u64], a: &[u64]) -> bool {
    let mut c = false;
    for (r, &a) in r.iter_mut().zip(a) {
        let (s1, c1) = r.overflowing_add(a);
        let (s2, c2) = s1.overflowing_add(c as u64);
        *r = s2;
        c = c1 | c2;
    }
    c
}

/// `r = a - b` over `a.len()` limbs; returns the borrow out.
#[inline]
pub fn sub_n(r: &mut [u64], a: &[u64], b: &[u64]) -> bool {
    let mut c = false;
    for ((r, &a), &b) in r.iter_mut().zip(a).zip(b) {
        let (d1, b1) = a.overflowing_sub(b);
        let (d2, b2) = d1.overflowing_sub(c as u64);
        *r = d2;
        c = b1 | b2;
    }
    c
}

/// `r -= a` in place; returns the borrow out.
#[inline]
pub fn sub_assign_n(r: &mut [u64], a: &[u64]) -> bool {
    let mut c = false;
    for (r, &a) in r.iter_mut().zip(a) {
        let (d1, b1) = r.overflowing_sub(a);
        let (d2, b2) = d1.overflowing_sub(c as u64);
        *r = d2;
        c = b1 | b2;
    }
    c
}

/// `r[..n] += a * b` (a single limb), returns the carry limb.
#[inline]
pub fn addmul_1(r: &mut [u64], a: &[u64], b: u64) -> u64 {
    let mut carry = 0u64;
    for (r, &a) in r.iter_mut().zip(a) {
        let t = a as u128 * b as u128 + *r as u128 + carry as u128;
        *r = t as u64;
        carry = (t >> 64) as u64;
    }
    carry
}

/// `r[..n] -= a * b` (a single limb), returns the borrow limb.
#[inline]
pub fn submul_1(r: &mut [u64], a: &[u64], b: u64) -> u64 {
    let mut carry = 0u64;
    for (r, &a) in r.iter_mut().zip(a) {
        let t = a as u128 * b as u128 + carry as u128;
        let lo = t as u64;
        let (d, br) = r.overflowing_sub(lo);
        *r = d;
        carry = (t >> 64) as u64 + br as u64;
    }
    carry
}

/// Full product: `r[..a.len()+b.len()] = a * b` (schoolbook).
pub fn mul_full(r: &mut [u64], a: &[u64], b: &[u64]) {
    let n = a.len() + b.len();
    r[..n].fill(0);
    for (j, &bj) in b.iter().enumerate() {
        if bj == 0 {
            continue;
        }
        let c = addmul_1(&mut r[j..j + a.len()], a, bj);
        r[j + a.len()] = c;
    }
}

/// Low half: `r[..n] = (a * b) mod 2^(64n)`, `n = r.len() = a.len() = b.len()`.
pub fn mul_low(r: &mut [u64], a: &[u64], b: &[u64]) {
    let n = r.len();
    r.fill(0);
    for (j, &bj) in b.iter().enumerate().take(n) {
        if bj == 0 {
            continue;
        }
        addmul_1(&mut r[j..n], &a[..n - j], bj);
    }
}

/// Number of significant limbs (index of the top non-zero limb, plus one).
#[inline]
pub fn normalized_len(a: &[u64]) -> usize {
    a.iter().rposition(|&x| x != 0).map_or(0, |i| i + 1)
}

/// Floor division with remainder: `q = u / v`, `r = u mod v`, all of the
/// same width. Returns `false` (and leaves `q`, `r` zero) if `v == 0`.
/// Knuth's algorithm D with a normalised divisor.
pub fn divrem(q: &mut [u64], r: &mut [u64], u: &[u64], v: &[u64]) -> bool {
    q.fill(0);
    r.fill(0);
    let n = normalized_len(v);
    if n == 0 {
        return false;
    }
    let m = normalized_len(u);
    if m < n {
        r[..m].copy_from_slice(&u[..m]);
        return true;
    }
    if n == 1 {
        let d = v[0];
        let mut rem = 0u64;
        for i in (0..m).rev() {
            let t = ((rem as u128) << 64) | u[i] as u128;
            q[i] = (t / d as u128) as u64;
            rem = (t % d as u128) as u64;
        }
        r[0] = rem;
        return true;
    }
    let s = v[n - 1].leading_zeros();
    // Normalised copies: vn has its top bit set, un has one extra limb.
    let mut vn = vec![0u64; n];
    shl(&mut vn, &v[..n], s);
    let mut un = vec![0u64; m + 1];
    un[m] = shl(&mut un[..m], &u[..m], s);
    let vtop = vn[n - 1];
    let vnext = vn[n - 2];
    for j in (0..=m - n).rev() {
        // Estimate q̂ from the top two limbs of the current remainder.
        let num = ((un[j + n] as u128) << 64) | un[j + n - 1] as u128;
        let (mut qhat, mut rhat) = if un[j + n] >= vtop {
            // q̂ would overflow a limb: start from the largest limb.
            let qh = u64::MAX as u128;
            (qh, num - qh * vtop as u128)
        } else {
            (num / vtop as u128, num % vtop as u128)
        };
        while rhat >> 64 == 0
            && qhat * vnext as u128 > ((rhat << 64) | un[j + n - 2] as u128)
        {
            qhat -= 1;
            rhat += vtop as u128;
        }
        let qh = qhat as u64;
        let borrow = submul_1(&mut un[j..j + n], &vn, qh);
        let (top, under) = un[j + n].overflowing_sub(borrow);
        un[j + n] = top;
        let qj = if under {
            // q̂ was one too large: add the divisor back.
            let c = add_assign_n(&mut un[j..j + n], &vn);
            un[j + n] = un[j + n].wrapping_add(c as u64);
            qh - 1
        } else {
            qh
        };
        q[j] = qj;
    }
    shr(&mut r[..n], &un[..n], s);
    true
}

/// `r = a << s` (0 <= s < 64) over `a.len()` limbs; returns the bits out.
fn shl(r: &mut [u64], a: &[u64], s: u32) -> u64 {
    if s == 0 {
        r.copy_from_slice(a);
        return 0;
    }
    let mut carry = 0;
    for (r, &x) in r.iter_mut().zip(a) {
        *r = (x << s) | carry;
        carry = x >> (64 - s);
    }
    carry
}

/// `r = a >> s` (0 <= s < 64).
fn shr(r: &mut [u64], a: &[u64], s: u32) {
    if s == 0 {
        r.copy_from_slice(a);
        return;
    }
    let n = a.len();
    for i in 0..n {
        let hi = if i + 1 < n { a[i + 1] << (64 - s) } else { 0 };
        r[i] = (a[i] >> s) | hi;
    }
}
