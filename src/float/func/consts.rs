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
