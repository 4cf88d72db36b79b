//! The constants pi, ln 2 and e in fixed point, cached: `fixed(c, f)` is an
//! integer `C` with `|C - c * 2^f| < 2`.
//!
//! Series (each step a truncating division, error < 1 unit of `2^-(f+64)`
//! per operation, a few operations per term, far fewer than 2^60 terms):
//! - ln 2 = 2 atanh(1/3) = sum 2 / ((2k+1) 3^(2k+1));
//! - pi = 16 atan(1/5) - 4 atan(1/239) (Machin), atan(1/m) = sum
//!   (-1)^k / ((2k+1) m^(2k+1));
//! - e = sum 1/k!;
//! - ln 10 = 6 atanh(1/3) + 2 atanh(1/9).
//!
//! Computed with 64 guard bits, the accumulated error is below 2^50 units,
//! so below 2^-14 units of `2^-f` after the shift; the shift's floor adds
//! less than 1: `|C - c 2^f| < 2`. The cache keeps the most precise value per
//! constant; a smaller `f` is a right shift of it (error < 1 + 2^-k·2 < 2 as
//! well, since the cached value has error < 2 units at its own scale).

use std::sync::{Arc, RwLock};

use malachite_base::num::arithmetic::traits::PowerOf2;
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

/// `sum_k sign^k * 2^f * num / ((2k+1) m^(2k+1))` for an odd series.
fn atan_inv(m: u64, f: u64, alternate: bool) -> Natural {
    let mut t = Natural::power_of_2(f) / Natural::from(m);
    let m2 = Natural::from(m * m);
    let mut pos = Natural::from(0u32);
    let mut negs = Natural::from(0u32);
    let mut k = 0u64;
    while t != 0u32 {
        let term = &t / Natural::from(2 * k + 1);
        if alternate && k % 2 == 1 {
            negs += term;
        } else {
            pos += term;
        }
        t /= &m2;
        k += 1;
    }
    pos - negs
}

fn compute(c: Const, f: u64) -> Natural {
    let g = f + 64;
    let v = match c {
        Const::Ln2 => atan_inv(3, g, false) << 1u64,
        // ln 10 = 3 ln 2 + ln(5/4) = 6 atanh(1/3) + 2 atanh(1/9).
        Const::Ln10 => {
            (atan_inv(3, g, false) * Natural::from(6u32)) + (atan_inv(9, g, false) << 1u64)
        }
        Const::Pi => (atan_inv(5, g, true) << 4u64) - (atan_inv(239, g, true) << 2u64),
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

/// The shared cache: a value of at least `f` bits, `(bits, value)`.
fn shared(c: Const, f: u64) -> (u64, Arc<Natural>) {
    let slot = &CACHE[slot(c)];
    if let Some((cf, v)) = slot.read().unwrap_or_else(|e| e.into_inner()).as_ref()
        && *cf >= f
    {
        return (*cf, v.clone());
    }
    // Compute with headroom so that nearby precisions hit the cache.
    let cf = (f + f / 4).next_multiple_of(256);
    let v = Arc::new(compute(c, cf));
    let mut w = slot.write().unwrap_or_else(|e| e.into_inner());
    if w.as_ref().is_none_or(|(old, _)| *old < cf) {
        *w = Some((cf, v.clone()));
    }
    (cf, v)
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

/// `|log(1 + i/64)| 2^f` for every offset, each within 2 (the same argument
/// as for the constants: 64 guard bits, then a shift).
fn log_tab_compute(f: u64) -> Vec<Natural> {
    (LOG_TAB_MIN..=LOG_TAB_MAX)
        .map(|i| {
            if i == 0 {
                return Natural::from(0u32);
            }
            // log(1 + i/64) = 2 atanh(i / (128 + i)).
            let v = atanh_rat(i.unsigned_abs(), (128 + i) as u64, f + 64) << 1u64;
            v >> 64u64
        })
        .collect()
}

/// The table at the most precise `f` computed so far.
static LOG_TAB: RwLock<Option<(u64, Arc<Vec<Natural>>)>> = RwLock::new(None);

/// Per thread: the shared table it holds, and the table shifted to the last
/// `f` asked for.
type LogLocal = (
    Option<(u64, Arc<Vec<Natural>>)>,
    Option<(u64, Vec<Natural>)>,
);

thread_local! {
    static LOG_LOCAL: std::cell::RefCell<LogLocal> =
        const { std::cell::RefCell::new((None, None)) };
}

/// `C` with `|C - |log(1 + i/64)| 2^f| < 2`, `LOG_TAB_MIN <= i <= LOG_TAB_MAX`.
pub(crate) fn log_tab(i: i64, f: u64) -> Natural {
    debug_assert!((LOG_TAB_MIN..=LOG_TAB_MAX).contains(&i));
    let ix = (i - LOG_TAB_MIN) as usize;
    LOG_LOCAL.with(|l| {
        let (best, last) = &mut *l.borrow_mut();
        if let Some((lf, v)) = last
            && *lf == f
        {
            return v[ix].clone();
        }
        let (cf, tab) = match best {
            Some((cf, t)) if *cf >= f => (*cf, t.clone()),
            _ => {
                let got = {
                    let g = LOG_TAB.read().unwrap_or_else(|e| e.into_inner());
                    g.as_ref().filter(|(cf, _)| *cf >= f).cloned()
                };
                let (cf, t) = got.unwrap_or_else(|| {
                    let cf = (f + f / 4).next_multiple_of(256);
                    let t = Arc::new(log_tab_compute(cf));
                    let mut w = LOG_TAB.write().unwrap_or_else(|e| e.into_inner());
                    if w.as_ref().is_none_or(|(old, _)| *old < cf) {
                        *w = Some((cf, t.clone()));
                    }
                    (cf, t)
                });
                *best = Some((cf, t.clone()));
                (cf, t)
            }
        };
        let v: Vec<Natural> = tab.iter().map(|x| x >> (cf - f)).collect();
        let r = v[ix].clone();
        *last = Some((f, v));
        r
    })
}
