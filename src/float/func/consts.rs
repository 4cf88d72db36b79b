//! The constants pi, ln 2 and e in fixed point, cached: `fixed(c, f)` is an
//! integer `C` with `|C - c * 2^f| < 2`.
//!
//! Series (each step a truncating division, error < 1 unit of `2^-(f+64)`
//! per operation, a few operations per term, far fewer than 2^60 terms):
//! - ln 2 = 2 atanh(1/3) = sum 2 / ((2k+1) 3^(2k+1));
//! - pi by the Chudnovskys' series, summed by binary splitting with
//!   subquadratic products (see [`chudnovsky`]);
//! - e = sum 1/k!;
//! - ln 10 = 6 atanh(1/3) + 2 atanh(1/9).
//!
//! Computed with 64 guard bits, the accumulated error is below 2^50 units,
//! so below 2^-14 units of `2^-f` after the shift; the shift's floor adds
//! less than 1: `|C - c 2^f| < 2`. The cache keeps the most precise value per
//! constant; a smaller `f` is a right shift of it (error < 1 + 2^-k·2 < 2 as
//! well, since the cached value has error < 2 units at its own scale).

use std::sync::{Arc, RwLock};

use malachite_base::num::arithmetic::traits::{FloorSqrt, ModPowerOf2, PowerOf2, UnsignedAbs};
use malachite_base::num::logic::traits::SignificantBits;
use malachite_nz::integer::Integer;
use malachite_nz::natural::Natural;

use super::Interval;

/// The constants.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Const {
    Pi,
    Ln2,
    E,
    /// ln 10 (used by log10).
    Ln10,
}

/// The most precise value computed so far, per constant: (bits, value).
type Slot = RwLock<Option<(u64, Arc<Natural>)>>;

static CACHE: [Slot; 4] = [const { RwLock::new(None) }; 4];

fn slot(c: Const) -> usize {
    match c {
        Const::Pi => 0,
        Const::Ln2 => 1,
        Const::E => 2,
        Const::Ln10 => 3,
    }
}

/// `2^f sum_k 1 / ((2k+1) m^(2k+1))` (atanh(1/m)), each step truncated.
fn atanh_inv(m: u64, f: u64) -> Natural {
    let mut t = Natural::power_of_2(f) / Natural::from(m);
    let m2 = Natural::from(m * m);
    let mut s = Natural::from(0u32);
    let mut k = 0u64;
    while t != 0u32 {
        s += &t / Natural::from(2 * k + 1);
        t /= &m2;
        k += 1;
    }
    s
}

/// `a * b`, by the huge-integer engine's transform when both are large
/// (malachite below its threshold).
fn mul(a: &Natural, b: &Natural) -> Natural {
    let t = crate::huge::cpu::ntt_t() as u64;
    if a.limb_count().min(b.limb_count()) < t {
        return a * b;
    }
    let (al, bl) = (a.to_limbs_asc(), b.to_limbs_asc());
    Natural::from_owned_limbs_asc(crate::huge::cpu::mul_limbs(&al, Some(&bl)))
}

/// `a * b` for signed values, through [`mul`].
fn mul_int(a: &Integer, b: &Integer) -> Integer {
    let p = mul(a.unsigned_abs_ref(), b.unsigned_abs_ref());
    Integer::from_sign_and_abs((*a >= 0u32) == (*b >= 0u32), p)
}

/// The Chudnovskys' series `1/pi = 12 sum_k t_k / C^(3/2)` with `C =
/// 640320`, `t_k = (-1)^k (6k)! (A + B k) / ((3k)! k!^3 C^3k)`, `A =
/// 13591409`, `B = 545140134`, as `pi = 426880 sqrt(10005) Q / (A Q + T)`
/// where `T / Q` is the sum of the terms `k = 1 .. n-1` by binary splitting
/// (`P`, `Q`, `T` of a range from its halves: `P = Pl Pr`, `Q = Ql Qr`, `T =
/// Tl Qr + Pl Tr`; a leaf `k`: `P = -(6k-5)(2k-1)(6k-1)`, `Q = k^3 C^3 / 24`,
/// `T = P (A + B k)`). Returns `V` with `|V - v 2^g| < 2` for `v = pi`, or
/// for `v = 2/pi` when `inverse` (`2 (A Q + T) sqrt(10005) / (426880 10005
/// Q)`).
///
/// Error: `|t_k| <= (A + B k) 2^(-47.11 k)` (the factorial ratio is below
/// `1728^k`), so the tail after `n = (g + 104) / 47 + 2` terms is below
/// `2^-(g+50)` relative to the sum (`> A / 2`) for any `n < 2^40`. `Q` and
/// `A Q + T` are truncated to `g + 80` bits (relative `2^-(g+79)` each),
/// `S = floor(sqrt(10005) 2^g)` is within `2^-(g+6)` relative, the quotient
/// is floored: in all below `0.1 + 1` units for `v < 3.2`.
pub(crate) fn chudnovsky(g: u64, inverse: bool) -> Natural {
    const A: u64 = 13_591_409;
    const B: u64 = 545_140_134;
    const C3_24: u64 = 10_939_058_860_032_000; // 640320^3 / 24
    // (P of the whole range is never used: `top` skips it.)
    fn split(a: u64, b: u64, top: bool) -> (Integer, Natural, Integer) {
        if b - a == 1 {
            let k = a as u128;
            let p = Integer::from_sign_and_abs(
                false,
                Natural::from((6 * k - 5) * (2 * k - 1) * (6 * k - 1)),
            );
            let q = Natural::from(k * k * k) * Natural::from(C3_24);
            let t = &p * Integer::from(A as u128 + B as u128 * k);
            return (p, q, t);
        }
        let m = (a + b) / 2;
        let ((pl, ql, tl), (pr, qr, tr)) = if b - a >= 256 {
            rayon::join(|| split(a, m, false), || split(m, b, false))
        } else {
            (split(a, m, false), split(m, b, false))
        };
        let t = mul_int(&tl, &Integer::from(&qr)) + mul_int(&pl, &tr);
        let p = if top { pl } else { mul_int(&pl, &pr) };
        (p, mul(&ql, &qr), t)
    }
    let n = (g + 104) / 47 + 2;
    let (_, q, t) = split(1, n, true);
    let d = (Integer::from(&q) * Integer::from(A) + t).unsigned_abs();
    let sh = d.significant_bits().saturating_sub(g + 80);
    let (q, d) = (q >> sh, d >> sh);
    let s = (Natural::from(10005u32) << (2 * g)).floor_sqrt();
    let v = if inverse {
        mul(&d, &s) / (q * Natural::from(2_135_467_200u64))
    } else {
        mul(&q, &s) * Natural::from(426_880u32) / d
    };
    if g > 1 << 22 {
        // The transform buffers kept for reuse (up to 1.25 GiB after 2^30
        // bits) serve no later product of this size.
        crate::huge::cpu::release_buffers();
    }
    v
}

fn compute(c: Const, f: u64) -> Natural {
    let g = f + 64;
    let v = match c {
        Const::Ln2 => atanh_inv(3, g) << 1u64,
        // ln 10 = 3 ln 2 + ln(5/4) = 6 atanh(1/3) + 2 atanh(1/9).
        Const::Ln10 => (atanh_inv(3, g) * Natural::from(6u32)) + (atanh_inv(9, g) << 1u64),
        Const::Pi => chudnovsky(g, false),
        Const::E => {
            let mut t = Natural::power_of_2(g);
            let mut s = Natural::from(0u32);
            let mut k = 1u64;
            while t != 0u32 {
                s += &t;
                t /= Natural::from(k);
                k += 1;
            }
            s
        }
    };
    v >> 64u64
}

/// Per thread and constant: the thread's reference to the most precise
/// value it has seen, and the last value it handed out, `(f, C)`. A warm
/// thread never touches the shared lock (whose counter would bounce
/// between the cores on every call) nor shifts the big value again.
#[derive(Default)]
struct Local {
    best: Option<(u64, Arc<Natural>)>,
    last: Option<(u64, Natural)>,
}

thread_local! {
    static LOCAL: std::cell::RefCell<[Local; 4]> = std::cell::RefCell::new(Default::default());
}

/// `C` with `|C - c * 2^f| < 2`.
pub(crate) fn fixed(c: Const, f: u64) -> Natural {
    LOCAL.with(|l| {
        let e = &mut l.borrow_mut()[slot(c)];
        if let Some((lf, v)) = &e.last
            && *lf == f
        {
            return v.clone();
        }
        let v = match &e.best {
            Some((cf, v)) if *cf >= f => &**v >> (cf - f),
            _ => {
                let (cf, v) = shared(c, f);
                let r = &*v >> (cf - f);
                e.best = Some((cf, v));
                r
            }
        };
        e.last = Some((f, v.clone()));
        v
    })
}

/// The precision to compute for a request of `f` bits: headroom so that
/// nearby precisions (Ziv's retries, the next element) hit the cache, a
/// smaller share for large `f` where each bit costs.
fn headroom(f: u64) -> u64 {
    let h = if f <= 1 << 16 {
        f / 4
    } else {
        (f / 32).max(1 << 14)
    };
    (f + h).next_multiple_of(256)
}

/// Serializes the computations of large constants: a thread that needs one
/// waits for the thread computing it rather than computing it again.
static COMPUTING: std::sync::Mutex<()> = std::sync::Mutex::new(());

/// From this many bits a constant is computed by [`isolated`] under
/// [`COMPUTING`]; below, [`chudnovsky`] uses no thread pool (fewer than 256
/// terms, products below the transform's threshold).
const LARGE: u64 = 1 << 13;

/// `f()` on a thread pool of its own, called from a fresh thread: the
/// caller (often a worker of the global pool, evaluating one element of a
/// batch) blocks without taking other jobs, so no element re-enters the
/// constant caches (thread-local `RefCell`s, [`COMPUTING`]) while it holds
/// them, and the jobs of `f` never wait behind elements blocked on
/// [`COMPUTING`].
fn isolated<T: Send>(f: impl FnOnce() -> T + Send) -> T {
    std::thread::scope(|sc| {
        sc.spawn(|| {
            match rayon::ThreadPoolBuilder::new()
                .num_threads(rayon::current_num_threads())
                .build()
            {
                Ok(pool) => pool.install(f),
                // (No thread for a pool: the fresh thread alone.)
                Err(_) => f(),
            }
        })
        .join()
        .unwrap_or_else(|e| std::panic::resume_unwind(e))
    })
}

/// A cached value from `slot` with at least `f` bits, or `None`.
fn cached<T>(slot: &RwLock<Option<(u64, Arc<T>)>>, f: u64) -> Option<(u64, Arc<T>)> {
    let g = slot.read().unwrap_or_else(|e| e.into_inner());
    g.as_ref().filter(|(cf, _)| *cf >= f).cloned()
}

/// `slot`'s value with at least `f` bits, computed by `make(cf)` at
/// [`headroom`]`(f)` bits if the cache has none (large ones one at a time,
/// [`isolated`]).
fn get_or_make<T: Send + Sync>(
    slot: &RwLock<Option<(u64, Arc<T>)>>,
    f: u64,
    make: impl FnOnce(u64) -> T + Send,
) -> (u64, Arc<T>) {
    if let Some(v) = cached(slot, f) {
        return v;
    }
    let cf = headroom(f);
    let v = if cf < LARGE {
        Arc::new(make(cf))
    } else {
        let _guard = COMPUTING.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(v) = cached(slot, f) {
            return v;
        }
        Arc::new(isolated(|| make(cf)))
    };
    let mut w = slot.write().unwrap_or_else(|e| e.into_inner());
    if w.as_ref().is_none_or(|(old, _)| *old < cf) {
        *w = Some((cf, v.clone()));
    }
    (cf, v)
}

/// The shared cache: a value of at least `f` bits, `(bits, value)`.
fn shared(c: Const, f: u64) -> (u64, Arc<Natural>) {
    get_or_make(&CACHE[slot(c)], f, |cf| compute(c, cf))
}

/// 2/pi's limbs `V` with `|V - 2^cf 2/pi| < 2`, at the most precise `cf`
/// computed so far.
type Limbs = RwLock<Option<(u64, Arc<Vec<u64>>)>>;
static TWO_OVER_PI: Limbs = RwLock::new(None);

thread_local! {
    static TWO_OVER_PI_LOCAL: std::cell::RefCell<Option<(u64, Arc<Vec<u64>>)>> =
        const { std::cell::RefCell::new(None) };
}

/// `P mod 2^l` for an integer `P` with `|P - 2^f 2/pi| < 2` (the low `l`
/// bits of 2/pi to `f` bits: the reduction of a huge argument needs no
/// more). `P` is a floor shift of the cached value, within `1 + 2/2^k < 2`
/// (or the value itself, `k = 0`).
pub(crate) fn two_over_pi_low(f: u64, l: u64) -> Natural {
    TWO_OVER_PI_LOCAL.with(|loc| {
        let mut loc = loc.borrow_mut();
        let (cf, v) = match &*loc {
            Some((cf, v)) if *cf >= f => (*cf, v.clone()),
            _ => {
                let (cf, v) = get_or_make(&TWO_OVER_PI, f, |cf| {
                    (chudnovsky(cf + 64, true) >> 64u64).into_limbs_asc()
                });
                *loc = Some((cf, v.clone()));
                (cf, v)
            }
        };
        bit_field(&v, cf - f, l)
    })
}

/// Bits `off .. off + len` of the limbs `v` (zeros above them).
fn bit_field(v: &[u64], off: u64, len: u64) -> Natural {
    let (q, r) = ((off / 64) as usize, (off % 64) as u32);
    let n = (len + r as u64).div_ceil(64) as usize;
    let lo = q.min(v.len());
    let hi = (q + n).min(v.len());
    (Natural::from_limbs_asc(&v[lo..hi]) >> r as u64).mod_power_of_2(len)
}

/// `C` as a signed integer.
pub(crate) fn fixed_int(c: Const, f: u64) -> Integer {
    Integer::from(fixed(c, f))
}

/// The constant at working precision `w`: `(C - 2, C + 2) * 2^-w`.
pub(crate) fn interval(c: Const, w: u64) -> Interval {
    Interval::around(fixed_int(c, w), 2, -(w as i64))
}

/// The log table's offsets: `log(1 + i/64)` for `LOG_TAB_MIN <= i <=
/// LOG_TAB_MAX` (log reduces `y` in [0.70, 1.42) to `y (1 + i/64)` within
/// 1/128 of 1).
pub(crate) const LOG_TAB_MIN: i64 = -20;
pub(crate) const LOG_TAB_MAX: i64 = 28;

/// `2^g sum_k (p/q)^(2k+1) / (2k+1)` (atanh(p/q), p/q <= 0.2), each step
/// truncated: < 2 units of error per term.
fn atanh_rat(p: u64, q: u64, g: u64) -> Natural {
    let mut t = (Natural::power_of_2(g) * Natural::from(p)) / Natural::from(q);
    let (p2, q2) = (Natural::from(p * p), Natural::from(q * q));
    let mut s = Natural::from(0u32);
    let mut k = 0u64;
    while t != 0u32 {
        s += &t / Natural::from(2 * k + 1);
        t = (t * &p2) / &q2;
        k += 1;
    }
    s
}

/// `|log(1 + i/64)| 2^f` within 2 (the same argument as for the
/// constants: 64 guard bits, then a shift).
fn log_entry(i: i64, f: u64) -> Natural {
    if i == 0 {
        return Natural::from(0u32);
    }
    // log(1 + i/64) = 2 atanh(i / (128 + i)).
    let v = atanh_rat(i.unsigned_abs(), (128 + i) as u64, f + 64) << 1u64;
    v >> 64u64
}

/// Number of table entries.
const LOG_TAB_LEN: usize = (LOG_TAB_MAX - LOG_TAB_MIN + 1) as usize;

/// Each entry at the most precise `f` computed so far, computed when first
/// needed (a single log at 1024 bits computed all 49 series: 3.5 ms).
static LOG_TAB: [Slot; LOG_TAB_LEN] = [const { RwLock::new(None) }; LOG_TAB_LEN];

/// Per thread and entry: the shared value it holds, and the value shifted
/// to the last `f` asked for.
type LogLocal = [(Option<(u64, Arc<Natural>)>, Option<(u64, Natural)>); LOG_TAB_LEN];

thread_local! {
    static LOG_LOCAL: std::cell::RefCell<LogLocal> =
        const { std::cell::RefCell::new([const { (None, None) }; LOG_TAB_LEN]) };
}

/// `C` with `|C - |log(1 + i/64)| 2^f| < 2`, `LOG_TAB_MIN <= i <= LOG_TAB_MAX`.
pub(crate) fn log_tab(i: i64, f: u64) -> Natural {
    debug_assert!((LOG_TAB_MIN..=LOG_TAB_MAX).contains(&i));
    let ix = (i - LOG_TAB_MIN) as usize;
    LOG_LOCAL.with(|l| {
        let (best, last) = &mut l.borrow_mut()[ix];
        if let Some((lf, v)) = last
            && *lf == f
        {
            return v.clone();
        }
        let v = match best {
            Some((cf, v)) if *cf >= f => &**v >> (*cf - f),
            _ => {
                let (cf, v) = get_or_make(&LOG_TAB[ix], f, |cf| log_entry(i, cf));
                let r = &*v >> (cf - f);
                *best = Some((cf, v));
                r
            }
        };
        *last = Some((f, v.clone()));
        v
    })
}
