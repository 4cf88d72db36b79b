//! Modular arithmetic on batches, on all cores (rayon): `powm`, `gcd`,
//! `gcd_ext`, `modinv` and the Montgomery-form conversions and product.
//!
//! `powm` for an odd modulus runs in Montgomery form with `n` = the
//! modulus's significant limbs (R = 2^(64n)): a full product (schoolbook
//! rows of the crate's `addmul_1`, a dedicated square, Karatsuba and up from
//! 24 limbs) then a limb-by-limb reduction (GMP's `redc_1`), with a sliding
//! window over the exponent (window of 1..7 bits by exponent length); on
//! CPUs with AVX-512 IFMA, 8..32 elements at a time across the vector lanes
//! instead (`ifma`). An even modulus `m = 2^k q` is split: `b^e mod q` in
//! Montgomery form, `b^e mod 2^k` by low products, joined by CRT. `to_montgomery`,
//! `from_montgomery` and `mont_mul` use R = 2^W (the array width), as the
//! contract states. The gcd family runs malachite's GMP-derived Lehmer /
//! half-gcd per element. See notes/int-modular.md.

use malachite_base::num::arithmetic::traits::{
    ExtendedGcd, Gcd, ModInverse, ModPowerOf2, ModPowerOf2Inverse, ModPowerOf2Pow, PowerOf2,
};
use malachite_nz::integer::Integer;
use malachite_nz::natural::Natural;
use rayon::prelude::*;

use super::arith::{add_n, addmul_1, mul_1, nlen};
use super::mul::{KARA_T, mul_basecase, mul_n, mul_n_itch};
use crate::error::{Error, Result};

/// One value per element, or one value (of `limbs` limbs) for the whole batch.
#[derive(Clone, Copy, Debug)]
pub enum HostOperand<'a> {
    Each(&'a [u64]),
    All(&'a [u64]),
}

impl<'a> HostOperand<'a> {
    /// Element `i`'s value.
    #[inline]
    fn get(&self, i: usize, l: usize) -> &'a [u64] {
        match *self {
            HostOperand::Each(x) => &x[i * l..(i + 1) * l],
            HostOperand::All(x) => x,
        }
    }

    fn check(&self, what: &str, len: usize, l: usize) -> Result<()> {
        let (got, want) = match *self {
            HostOperand::Each(x) => (x.len(), len * l),
            HostOperand::All(x) => (x.len(), l),
        };
        if got != want {
            return Err(Error::Shape(format!(
                "{what}: {got} limbs where {want} were expected"
            )));
        }
        Ok(())
    }

    /// The values to check: every element's, or the one shared value.
    fn count(&self, len: usize) -> usize {
        match self {
            HostOperand::Each(_) => len,
            HostOperand::All(_) => 1,
        }
    }
}

fn check_base(what: &str, a: &[u64], l: usize) -> Result<usize> {
    if l == 0 || !a.len().is_multiple_of(l) {
        return Err(Error::Shape(format!(
            "{what}: {} limbs is not a whole number of {l}-limb elements",
            a.len()
        )));
    }
    Ok(a.len() / l)
}

/// The first zero modulus.
fn check_moduli(m: &HostOperand, len: usize, l: usize, odd: bool) -> Result<()> {
    for i in 0..m.count(len) {
        let x = m.get(i, l);
        if nlen(x) == 0 {
            return Err(Error::DivisionByZero { index: i });
        }
        if odd && x[0] & 1 == 0 {
            return Err(Error::Invalid(format!(
                "element {i}: Montgomery form needs an odd modulus"
            )));
        }
    }
    Ok(())
}

fn nat(x: &[u64]) -> Natural {
    Natural::from_limbs_asc(&x[..nlen(x)])
}

fn store(r: &mut [u64], x: &Natural) {
    r.fill(0);
    for (d, s) in r.iter_mut().zip(x.limbs()) {
        *d = s;
    }
}

/// Stores a signed value as W-bit two's complement.
fn store_signed(r: &mut [u64], x: &Integer) {
    store(r, x.unsigned_abs_ref());
    if *x < 0 {
        let mut c = true;
        for d in r.iter_mut() {
            let (v, o) = (!*d).overflowing_add(c as u64);
            *d = v;
            c = o;
        }
    }
}

/// Elements per rayon task.
fn chunk(len: usize, l: usize) -> usize {
    let threads = rayon::current_num_threads().max(1);
    (len / (4 * threads)).clamp(1, (4096 / l).max(1))
}

// ---- Montgomery core -------------------------------------------------------

/// -m0^-1 mod 2^64 for odd m0.
fn neg_inv(m0: u64) -> u64 {
    let mut x = m0.wrapping_mul(3) ^ 2; // 5 bits
    for _ in 0..4 {
        x = x.wrapping_mul(2u64.wrapping_sub(m0.wrapping_mul(x)));
    }
    x.wrapping_neg()
}

/// An odd modulus of `n` limbs with R = 2^(64n).
struct Mont {
    m: Vec<u64>,
    minv: u64,
    /// R^2 mod m.
    r2: Vec<u64>,
}

impl Mont {
    fn new(m: &[u64], n: usize) -> Mont {
        debug_assert!(m[0] & 1 == 1 && nlen(m) <= n);
        let mut mm = vec![0u64; n];
        let k = nlen(m).min(n);
        mm[..k].copy_from_slice(&m[..k]);
        let r2n = Natural::power_of_2(128 * n as u64) % nat(m);
        let mut r2 = vec![0u64; n];
        store(&mut r2, &r2n);
        Mont {
            m: mm,
            minv: neg_inv(m[0]),
            r2,
        }
    }
    fn n(&self) -> usize {
        self.m.len()
    }
}

/// `r[..2n] = a^2` for `n`-limb `a`.
fn sqr_basecase(r: &mut [u64], a: &[u64]) {
    let n = a.len();
    if n == 1 {
        let p = a[0] as u128 * a[0] as u128;
        r[0] = p as u64;
        r[1] = (p >> 64) as u64;
        return;
    }
    // Off-diagonal products a_i a_j (i < j) at r[1..2n-1].
    r[0] = 0;
    r[n] = mul_1(&mut r[1..n], &a[1..], a[0]);
    for i in 1..n - 1 {
        r[n + i] = addmul_1(&mut r[2 * i + 1..n + i], &a[i + 1..], a[i]);
    }
    r[2 * n - 1] = 0;
    // Doubled, plus the diagonal squares.
    let mut top = 0u64;
    for x in r.iter_mut() {
        let v = *x;
        *x = (v << 1) | top;
        top = v >> 63;
    }
    let mut c = 0u128;
    for i in 0..n {
        let p = a[i] as u128 * a[i] as u128;
        let lo = r[2 * i] as u128 + (p as u64) as u128 + c;
        r[2 * i] = lo as u64;
        let hi = r[2 * i + 1] as u128 + (p >> 64) + (lo >> 64);
        r[2 * i + 1] = hi as u64;
        c = hi >> 64;
    }
}

/// Scratch of one Montgomery product: the 2n-limb product plus the
/// multiplication's own.
struct Scratch {
    t: Vec<u64>,
    s: Vec<u64>,
}

impl Scratch {
    fn new(n: usize) -> Scratch {
        Scratch {
            t: vec![0; 2 * n],
            s: vec![0; mul_n_itch(n)],
        }
    }
}

/// `r = T / R mod m` (T = sc.t, 2n limbs, T < m R): GMP's redc_1; the
/// result is reduced (< m).
fn redc(r: &mut [u64], ctx: &Mont, t: &mut [u64]) {
    let n = ctx.n();
    for i in 0..n {
        let q = t[i].wrapping_mul(ctx.minv);
        let c = addmul_1(&mut t[i..i + n], &ctx.m, q);
        t[i] = c; // t[i] is now 0 mod 2^64: keep the carry there
    }
    let (lo, hi) = t.split_at(n);
    let c = add_n(r, hi, lo);
    if c || !less(r, &ctx.m) {
        sub_assign(r, &ctx.m);
    }
}

#[inline]
fn less(a: &[u64], b: &[u64]) -> bool {
    for i in (0..a.len()).rev() {
        if a[i] != b[i] {
            return a[i] < b[i];
        }
    }
    false
}

#[inline]
fn sub_assign(r: &mut [u64], b: &[u64]) {
    let mut br = false;
    for (x, &y) in r.iter_mut().zip(b) {
        let (d, o1) = x.overflowing_sub(y);
        let (d, o2) = d.overflowing_sub(br as u64);
        *x = d;
        br = o1 | o2;
    }
}

/// CIOS Montgomery product for `N` limbs, fully unrolled (small moduli:
/// the calls of the row functions cost more than the arithmetic there).
#[inline(always)]
fn mont_cios<const N: usize>(r: &mut [u64], a: &[u64], b: &[u64], m: &[u64], minv: u64) {
    let a: &[u64; N] = a.try_into().unwrap();
    let b: &[u64; N] = b.try_into().unwrap();
    let m: &[u64; N] = m.try_into().unwrap();
    let mut t = [0u64; N];
    let mut tn = 0u64;
    for &bi in b.iter() {
        let mut c = 0u64;
        for j in 0..N {
            let p = a[j] as u128 * bi as u128 + t[j] as u128 + c as u128;
            t[j] = p as u64;
            c = (p >> 64) as u64;
        }
        let s = tn as u128 + c as u128;
        tn = s as u64;
        let tn1 = (s >> 64) as u64;
        let q = t[0].wrapping_mul(minv);
        let p = m[0] as u128 * q as u128 + t[0] as u128;
        let mut c = (p >> 64) as u64;
        for j in 1..N {
            let p = m[j] as u128 * q as u128 + t[j] as u128 + c as u128;
            t[j - 1] = p as u64;
            c = (p >> 64) as u64;
        }
        let s = tn as u128 + c as u128;
        t[N - 1] = s as u64;
        tn = tn1 + (s >> 64) as u64;
    }
    // t + tn 2^(64N) < 2m: one subtraction.
    let mut d = [0u64; N];
    let mut br = false;
    for j in 0..N {
        let (x, o1) = t[j].overflowing_sub(m[j]);
        let (x, o2) = x.overflowing_sub(br as u64);
        d[j] = x;
        br = o1 | o2;
    }
    let keep = tn == 0 && br;
    r.copy_from_slice(if keep { &t } else { &d });
}

/// `r = a b / R mod m` for `a b < m R` (n-limb operands).
fn mont_mul_n(r: &mut [u64], a: &[u64], b: &[u64], ctx: &Mont, sc: &mut Scratch) {
    let n = ctx.n();
    let (m, mi) = (&ctx.m[..], ctx.minv);
    match n {
        1 => return mont_cios::<1>(r, a, b, m, mi),
        2 => return mont_cios::<2>(r, a, b, m, mi),
        3 => return mont_cios::<3>(r, a, b, m, mi),
        4 => return mont_cios::<4>(r, a, b, m, mi),
        5 => return mont_cios::<5>(r, a, b, m, mi),
        6 => return mont_cios::<6>(r, a, b, m, mi),
        7 => return mont_cios::<7>(r, a, b, m, mi),
        8 => return mont_cios::<8>(r, a, b, m, mi),
        _ => {}
    }
    if n < KARA_T {
        if a.as_ptr() == b.as_ptr() {
            sqr_basecase(&mut sc.t, a);
        } else {
            mul_basecase(&mut sc.t, a, b);
        }
    } else {
        mul_n(&mut sc.t, a, b, &mut sc.s, false);
    }
    let mut t = std::mem::take(&mut sc.t);
    redc(r, ctx, &mut t);
    sc.t = t;
}

fn mont_sqr_assign(x: &mut [u64], ctx: &Mont, sc: &mut Scratch, tmp: &mut [u64]) {
    tmp.copy_from_slice(x);
    mont_mul_n(x, tmp, tmp, ctx, sc);
}

fn mont_mul_assign(x: &mut [u64], y: &[u64], ctx: &Mont, sc: &mut Scratch, tmp: &mut [u64]) {
    tmp.copy_from_slice(x);
    mont_mul_n(x, tmp, y, ctx, sc);
}

/// Sliding-window width for an exponent of `bits` bits.
fn window(bits: u64) -> usize {
    match bits {
        0..=8 => 1,
        9..=24 => 2,
        25..=80 => 3,
        81..=240 => 4,
        241..=672 => 5,
        673..=1792 => 6,
        _ => 7,
    }
}

#[inline]
fn bit(e: &[u64], i: u64) -> u64 {
    (e[(i / 64) as usize] >> (i % 64)) & 1
}

/// `b^e mod m` with `b < m` (n limbs), in Montgomery form throughout;
/// returns the plain residue in `r`.
fn powm_odd(r: &mut [u64], b: &[u64], e: &[u64], ctx: &Mont, sc: &mut Scratch) {
    let n = ctx.n();
    let ebits = {
        let k = nlen(e);
        if k == 0 {
            0
        } else {
            64 * (k as u64 - 1) + (64 - e[k - 1].leading_zeros() as u64)
        }
    };
    let mut tmp = vec![0u64; n];
    let mut one = vec![0u64; n];
    one[0] = 1;
    if ebits == 0 {
        // 1 mod m.
        let mut x = vec![0u64; n];
        mont_mul_n(&mut x, &ctx.r2, &one, ctx, sc); // R mod m
        mont_mul_n(r, &x, &one, ctx, sc);
        return;
    }
    let w = window(ebits);
    // Table of odd powers b^1, b^3, ..., b^(2^w - 1) in Montgomery form.
    let mut tab = vec![0u64; n << (w - 1)];
    mont_mul_n(&mut tab[..n], b, &ctx.r2, ctx, sc);
    if w > 1 {
        let mut b2 = vec![0u64; n];
        mont_mul_n(&mut b2, &tab[..n], &tab[..n], ctx, sc);
        for j in 1..1 << (w - 1) {
            let (prev, cur) = tab.split_at_mut(j * n);
            mont_mul_n(&mut cur[..n], &prev[(j - 1) * n..], &b2, ctx, sc);
        }
    }
    let mut x = vec![0u64; n];
    let mut started = false;
    let mut i = ebits as i64 - 1;
    while i >= 0 {
        if bit(e, i as u64) == 0 {
            if started {
                mont_sqr_assign(&mut x, ctx, sc, &mut tmp);
            }
            i -= 1;
            continue;
        }
        // The longest window i..=j (<= w bits) that ends with a one bit.
        let mut j = (i - w as i64 + 1).max(0);
        while bit(e, j as u64) == 0 {
            j += 1;
        }
        let mut v = 0usize;
        for k in (j..=i).rev() {
            v = (v << 1) | bit(e, k as u64) as usize;
        }
        let entry = &tab[(v >> 1) * n..(v >> 1) * n + n];
        if started {
            for _ in j..=i {
                mont_sqr_assign(&mut x, ctx, sc, &mut tmp);
            }
            mont_mul_assign(&mut x, entry, ctx, sc, &mut tmp);
        } else {
            x.copy_from_slice(entry);
            started = true;
        }
        i = j - 1;
    }
    mont_mul_n(r, &x, &one, ctx, sc);
}

/// `base^e mod m` for one element, any m > 0; `r` has `l` limbs.
/// `ctx` is the Montgomery context of m's odd part when it is shared.
fn powm_elem(
    r: &mut [u64],
    base: &[u64],
    e: &[u64],
    m: &[u64],
    shared: Option<&(Mont, u64)>,
    sc: &mut Option<Scratch>,
) {
    let k = trailing_zeros(m);
    if nlen(e) == 0 {
        // 1 mod m.
        r.fill(0);
        if !(nlen(m) == 1 && m[0] == 1) {
            r[0] = 1;
        }
        return;
    }
    let mn = nat(m);
    let q = &mn >> k;
    // The odd part.
    let x1: Natural = if q == 1u32 {
        Natural::from(0u32)
    } else {
        let own;
        let ctx = match shared {
            Some((c, _)) => c,
            None => {
                let ql = q.to_limbs_asc();
                own = Mont::new(&ql, ql.len());
                &own
            }
        };
        let n = ctx.n();
        let s = match sc {
            Some(s) if s.t.len() == 2 * n => s,
            _ => sc.insert(Scratch::new(n)),
        };
        let mut b = vec![0u64; n];
        if nlen(base) <= n && less(&pad(base, n), &ctx.m) {
            b.copy_from_slice(&pad(base, n));
        } else {
            store(&mut b, &(nat(base) % &q));
        }
        let mut out = vec![0u64; n];
        powm_odd(&mut out, &b, e, ctx, s);
        nat(&out)
    };
    if k == 0 {
        store(r, &x1);
        return;
    }
    even_finish(r, base, e, k, &q, x1);
}

/// `r = base^e mod 2^k q` from `x1 = base^e mod q` (q odd, k > 0): the
/// power of two by malachite, then CRT.
fn even_finish(r: &mut [u64], base: &[u64], e: &[u64], k: u64, q: &Natural, x1: Natural) {
    let b2 = nat(base).mod_power_of_2(k);
    let x2 = b2.mod_power_of_2_pow(nat(e), k);
    let x = if *q == 1u32 {
        x2
    } else {
        let qinv = q.mod_power_of_2(k).mod_power_of_2_inverse(k).unwrap();
        let d = (Integer::from(x2) - Integer::from(&x1)).mod_power_of_2(k);
        let h = (d * qinv).mod_power_of_2(k);
        x1 + q * h
    };
    store(r, &x);
}

fn pad(x: &[u64], n: usize) -> Vec<u64> {
    let mut v = vec![0u64; n];
    let k = nlen(x).min(n);
    v[..k].copy_from_slice(&x[..k]);
    v
}

fn trailing_zeros(m: &[u64]) -> u64 {
    let mut k = 0;
    for &x in m {
        if x == 0 {
            k += 64;
        } else {
            return k + x.trailing_zeros() as u64;
        }
    }
    k
}

/// base^exp mod m, any base (>= m allowed), any exp (0 -> 1 mod m), m odd or
/// even; m == 1 -> 0. A zero modulus -> `DivisionByZero` naming the first.
///
/// On x86-64 CPUs with AVX-512 IFMA, the elements with an odd modulus above
/// 1 and a non-zero exponent run 8 to 32 at a time across the vector lanes
/// (`ifma`); the others, and all of them elsewhere, run one at a time.
/// `MPARRAY_POWM=scalar` in the environment (read once) keeps every element
/// on the one-at-a-time path.
pub fn powm(base: &[u64], exp: HostOperand, m: HostOperand, limbs: usize) -> Result<Vec<u64>> {
    powm_with(base, exp, m, limbs, PowmPath::Auto)
}

/// Which `powm` path runs (tests reach both on any CPU).
#[doc(hidden)]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PowmPath {
    /// IFMA where the CPU has it and it wins (see [`powm`]).
    Auto,
    /// One element at a time.
    Scalar,
    /// IFMA for every eligible element, even a tail group of one lane
    /// (scalar where the CPU lacks IFMA).
    Ifma,
}

/// Whether `PowmPath::Ifma` uses the vector lanes on this CPU.
#[doc(hidden)]
pub fn powm_ifma_available() -> bool {
    #[cfg(target_arch = "x86_64")]
    {
        super::ifma::available()
    }
    #[cfg(not(target_arch = "x86_64"))]
    {
        false
    }
}

fn env_scalar() -> bool {
    use std::sync::OnceLock;
    static S: OnceLock<bool> = OnceLock::new();
    *S.get_or_init(|| std::env::var("MPARRAY_POWM").is_ok_and(|v| v == "scalar"))
}

/// Widths (bits of the array) up to which `Auto` uses IFMA.
const IFMA_MAX_BITS: usize = 8192;

/// An element on the IFMA lanes: its index and, for an even modulus, the
/// odd part (padded to the array's limbs) and its power of two.
#[cfg(target_arch = "x86_64")]
type LaneJob = (usize, Option<(Vec<u64>, u64)>);

/// [`powm`] on a chosen path.
#[doc(hidden)]
pub fn powm_with(
    base: &[u64],
    exp: HostOperand,
    m: HostOperand,
    limbs: usize,
    path: PowmPath,
) -> Result<Vec<u64>> {
    let len = check_base("powm", base, limbs)?;
    exp.check("powm exponent", len, limbs)?;
    m.check("powm modulus", len, limbs)?;
    check_moduli(&m, len, limbs, false)?;
    let l = limbs;
    let mut r = vec![0u64; len * l];
    // A shared modulus: its context once.
    let shared = match m {
        HostOperand::All(mv) => {
            let k = trailing_zeros(mv);
            let q = nat(mv) >> k;
            (q != 1u32).then(|| {
                let ql = q.to_limbs_asc();
                (Mont::new(&ql, ql.len()), k)
            })
        }
        HostOperand::Each(_) => None,
    };
    let vec_path = match path {
        PowmPath::Scalar => false,
        PowmPath::Ifma => powm_ifma_available(),
        PowmPath::Auto => !env_scalar() && 64 * l <= IFMA_MAX_BITS && powm_ifma_available(),
    };
    #[cfg(target_arch = "x86_64")]
    if vec_path {
        let min_tail = if path == PowmPath::Ifma { 1 } else { 3 };
        let g = 8 * super::ifma::regs_for(super::ifma::limbs52(64 * l as u64));
        let threads = rayon::current_num_threads().max(1);
        let c = (len / (2 * threads)).div_ceil(g).max(1) * g;
        r.par_chunks_mut(c * l).enumerate().for_each(|(ci, rc)| {
            let mut sc = None;
            let lo = ci * c;
            let k = rc.len() / l;
            // Lanes: (element, its modulus's odd part where the modulus is
            // even, with its power of two).
            let mut lanes: Vec<LaneJob> = Vec::new();
            for i in lo..lo + k {
                let (e, mv) = (exp.get(i, l), m.get(i, l));
                let tz = trailing_zeros(mv);
                let lane = if nlen(e) == 0 {
                    None
                } else if tz == 0 {
                    (mv[0] > 1 || nlen(mv) > 1).then_some(None)
                } else {
                    let q = nat(mv) >> tz;
                    (q != 1u32).then(|| Some((pad(&q.to_limbs_asc(), l), tz)))
                };
                match lane {
                    Some(x) => lanes.push((i, x)),
                    None => {
                        let ri = &mut rc[(i - lo) * l..(i - lo + 1) * l];
                        powm_elem(
                            ri,
                            &base[i * l..(i + 1) * l],
                            e,
                            mv,
                            shared.as_ref(),
                            &mut sc,
                        );
                    }
                }
            }
            let mut done = 0;
            while done < lanes.len() {
                let left = lanes.len() - done;
                let take = if left >= g { g } else { left.min(8) };
                if take < min_tail {
                    for &(i, _) in &lanes[done..] {
                        let ri = &mut rc[(i - lo) * l..(i - lo + 1) * l];
                        let (e, mv) = (exp.get(i, l), m.get(i, l));
                        powm_elem(
                            ri,
                            &base[i * l..(i + 1) * l],
                            e,
                            mv,
                            shared.as_ref(),
                            &mut sc,
                        );
                    }
                    break;
                }
                let idx = &lanes[done..done + take];
                let jobs: Vec<super::ifma::Lane> = idx
                    .iter()
                    .map(|(i, odd)| {
                        let q = match odd {
                            Some((q, _)) => &q[..],
                            None => m.get(*i, l),
                        };
                        super::ifma::Lane {
                            base: &base[i * l..(i + 1) * l],
                            exp: exp.get(*i, l),
                            q,
                            qinv: neg_inv(q[0]),
                        }
                    })
                    .collect();
                let mut tmp = vec![0u64; take * l];
                {
                    let mut outs: Vec<&mut [u64]> = tmp.chunks_mut(l).collect();
                    match take.div_ceil(8) {
                        1 => super::ifma::powm_group::<1>(&jobs, &mut outs),
                        2 => super::ifma::powm_group::<2>(&jobs, &mut outs),
                        _ => super::ifma::powm_group::<4>(&jobs, &mut outs),
                    }
                }
                for (j, (i, odd)) in idx.iter().enumerate() {
                    let ri = &mut rc[(i - lo) * l..(i - lo + 1) * l];
                    let x1 = &tmp[j * l..(j + 1) * l];
                    match odd {
                        None => ri.copy_from_slice(x1),
                        Some((q, tz)) => {
                            let b = &base[i * l..(i + 1) * l];
                            even_finish(ri, b, exp.get(*i, l), *tz, &nat(q), nat(x1));
                        }
                    }
                }
                done += take;
            }
        });
        return Ok(r);
    }
    let _ = vec_path;
    let c = chunk(len, l);
    r.par_chunks_mut(c * l).enumerate().for_each(|(ci, rc)| {
        let mut sc = None;
        for (j, ri) in rc.chunks_mut(l).enumerate() {
            let i = ci * c + j;
            powm_elem(
                ri,
                &base[i * l..(i + 1) * l],
                exp.get(i, l),
                m.get(i, l),
                shared.as_ref(),
                &mut sc,
            );
        }
    });
    Ok(r)
}

/// gcd(a, b); gcd(0, 0) = 0.
pub fn gcd(a: &[u64], b: HostOperand, limbs: usize) -> Result<Vec<u64>> {
    let len = check_base("gcd", a, limbs)?;
    b.check("gcd operand", len, limbs)?;
    let l = limbs;
    let mut r = vec![0u64; len * l];
    let c = chunk(len, l);
    r.par_chunks_mut(c * l).enumerate().for_each(|(ci, rc)| {
        for (j, ri) in rc.chunks_mut(l).enumerate() {
            let i = ci * c + j;
            let g = nat(&a[i * l..(i + 1) * l]).gcd(nat(b.get(i, l)));
            store(ri, &g);
        }
    });
    Ok(r)
}

/// (g, s, t) with a s + b t = g as malachite's `Natural::extended_gcd`
/// returns them, s and t as W-bit two's complement.
pub fn gcd_ext(a: &[u64], b: HostOperand, limbs: usize) -> Result<(Vec<u64>, Vec<u64>, Vec<u64>)> {
    let len = check_base("gcd_ext", a, limbs)?;
    b.check("gcd_ext operand", len, limbs)?;
    let l = limbs;
    let mut g = vec![0u64; len * l];
    let mut s = vec![0u64; len * l];
    let mut t = vec![0u64; len * l];
    let c = chunk(len, l);
    g.par_chunks_mut(c * l)
        .zip(s.par_chunks_mut(c * l))
        .zip(t.par_chunks_mut(c * l))
        .enumerate()
        .for_each(|(ci, ((gc, sc), tc))| {
            for (j, ((gi, si), ti)) in gc
                .chunks_mut(l)
                .zip(sc.chunks_mut(l))
                .zip(tc.chunks_mut(l))
                .enumerate()
            {
                let i = ci * c + j;
                let (gg, ss, tt) = nat(&a[i * l..(i + 1) * l]).extended_gcd(nat(b.get(i, l)));
                store(gi, &gg);
                store_signed(si, &ss);
                store_signed(ti, &tt);
            }
        });
    Ok((g, s, t))
}

/// x in [0, m) with a x = 1 mod m (a reduced first) and true where
/// gcd(a mod m, m) == 1; 0 and false where none exists; m == 1 -> (0, true).
pub fn modinv(a: &[u64], m: HostOperand, limbs: usize) -> Result<(Vec<u64>, Vec<bool>)> {
    let len = check_base("modinv", a, limbs)?;
    m.check("modinv modulus", len, limbs)?;
    check_moduli(&m, len, limbs, false)?;
    let l = limbs;
    let mut r = vec![0u64; len * l];
    let mut ok = vec![false; len];
    let c = chunk(len, l);
    r.par_chunks_mut(c * l)
        .zip(ok.par_chunks_mut(c))
        .enumerate()
        .for_each(|(ci, (rc, oc))| {
            for (j, (ri, oi)) in rc.chunks_mut(l).zip(oc.iter_mut()).enumerate() {
                let i = ci * c + j;
                let mv = nat(m.get(i, l));
                if mv == 1u32 {
                    ri.fill(0);
                    *oi = true;
                    continue;
                }
                let x = nat(&a[i * l..(i + 1) * l]) % &mv;
                match (x != 0u32).then(|| x.mod_inverse(mv)).flatten() {
                    Some(v) => {
                        store(ri, &v);
                        *oi = true;
                    }
                    None => {
                        ri.fill(0);
                        *oi = false;
                    }
                }
            }
        });
    Ok((r, ok))
}

/// The Montgomery functions (R = 2^W): r = MM(MM(x, y1), y2) style chains
/// per element, `op` choosing the chain.
#[derive(Clone, Copy)]
enum MontOp {
    To,
    From,
    Mul,
}

fn mont_batch(
    what: &str,
    a: &[u64],
    b: Option<&[u64]>,
    m: HostOperand,
    limbs: usize,
    op: MontOp,
) -> Result<Vec<u64>> {
    let len = check_base(what, a, limbs)?;
    if let Some(b) = b
        && b.len() != a.len()
    {
        return Err(Error::Shape(format!(
            "{what}: operands of {} and {} limbs",
            a.len(),
            b.len()
        )));
    }
    m.check(&format!("{what} modulus"), len, limbs)?;
    check_moduli(&m, len, limbs, true)?;
    let l = limbs;
    let shared = match m {
        HostOperand::All(mv) => Some(Mont::new(mv, l)),
        HostOperand::Each(_) => None,
    };
    let mut r = vec![0u64; len * l];
    let c = chunk(len, l);
    r.par_chunks_mut(c * l).enumerate().for_each(|(ci, rc)| {
        let mut sc = Scratch::new(l);
        let mut one = vec![0u64; l];
        one[0] = 1;
        let mut t1 = vec![0u64; l];
        let mut t2 = vec![0u64; l];
        for (j, ri) in rc.chunks_mut(l).enumerate() {
            let i = ci * c + j;
            let own;
            let ctx = match &shared {
                Some(x) => x,
                None => {
                    own = Mont::new(m.get(i, l), l);
                    &own
                }
            };
            let x = &a[i * l..(i + 1) * l];
            match op {
                // a R mod m = MM(a, R^2): a R^2 < R m.
                MontOp::To => mont_mul_n(ri, x, &ctx.r2, ctx, &mut sc),
                // a / R mod m = MM(a, 1).
                MontOp::From => mont_mul_n(ri, x, &one, ctx, &mut sc),
                // a b / R: (a mod m) = MM(MM(a, R^2), 1), then MM(a mod m, b).
                MontOp::Mul => {
                    mont_mul_n(&mut t1, x, &ctx.r2, ctx, &mut sc);
                    mont_mul_n(&mut t2, &t1, &one, ctx, &mut sc);
                    let y = &b.unwrap()[i * l..(i + 1) * l];
                    mont_mul_n(ri, &t2, y, ctx, &mut sc);
                }
            }
        }
    });
    Ok(r)
}

/// a * 2^W mod m (m odd).
pub fn to_montgomery(a: &[u64], m: HostOperand, limbs: usize) -> Result<Vec<u64>> {
    mont_batch("to_montgomery", a, None, m, limbs, MontOp::To)
}

/// a * 2^-W mod m (m odd).
pub fn from_montgomery(a: &[u64], m: HostOperand, limbs: usize) -> Result<Vec<u64>> {
    mont_batch("from_montgomery", a, None, m, limbs, MontOp::From)
}

/// a * b * 2^-W mod m (m odd).
pub fn mont_mul(a: &[u64], b: &[u64], m: HostOperand, limbs: usize) -> Result<Vec<u64>> {
    mont_batch("mont_mul", a, Some(b), m, limbs, MontOp::Mul)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn square_matches_product() {
        for n in 1..12 {
            let a: Vec<u64> = (0..n as u64)
                .map(|i| i.wrapping_mul(0x9e37_79b9_7f4a_7c15) ^ !0 >> i)
                .collect();
            let mut r1 = vec![0u64; 2 * n];
            let mut r2 = vec![0u64; 2 * n];
            sqr_basecase(&mut r1, &a);
            if n == 1 {
                let p = a[0] as u128 * a[0] as u128;
                r2 = vec![p as u64, (p >> 64) as u64];
            } else {
                mul_basecase(&mut r2, &a, &a);
            }
            assert_eq!(r1, r2, "n = {n}");
        }
    }

    #[test]
    fn neg_inv_is_inverse() {
        for m in [1u64, 3, 5, 0xffff_ffff_ffff_ffff, 0x1234_5678_9abc_def1] {
            assert_eq!(neg_inv(m).wrapping_mul(m), u64::MAX);
        }
    }
}
