//! Per-call state of the CUDA engine's host paths, and bounded waits.
//!
//! Rules (each fixes a deadlock class seen on the H200 in 2026-12):
//! - No lock is held across a launch, a wait for the device or host work
//!   that may run on rayon. State reused between calls (device work
//!   buffers, page-locked status words, events) lives in a [`Pool`]: a call
//!   takes an item out (the pool's lock is held only for the `pop`), owns
//!   it for the whole call, and gives it back at the end. Two concurrent
//!   calls never share an item, and a call re-entered from a rayon worker
//!   simply takes (or makes) another one.
//! - An item goes back only after its call has finished with it in a
//!   known state (e.g. a kernel's ticket back to zero, confirmed by its
//!   status): on an error it is dropped, never reused.
//! - A host spin is bounded: [`wait_for`] spins for at most [`SPIN`], then
//!   waits without spinning (an event synchronisation: the device's work,
//!   nothing a host thread must do) or, with `MPARRAY_CUDA_WAIT_S` set,
//!   polls with sleeps and returns an error naming what it waited for
//!   after that many seconds.
//!
//! Reuse of a pooled device buffer is ordered by the engine's one stream:
//! the next call's launch follows the previous call's kernel on it.

use std::sync::Mutex;
use std::time::{Duration, Instant};

use super::CudaEngine;
use crate::error::{Error, Result};

/// How long a host wait spins before it stops using the CPU, unless
/// `MPARRAY_CUDA_SPIN_US` gives another time (microseconds). Long enough
/// for the reads behind a GEMV or a dot (0.1-1 ms on the H200): a sleeping
/// wait's wake-up costs such a read more than the spin (with 200 us, a
/// GMRES step took 0.15-0.25 ms more than with the unbounded spin before;
/// notes/solvers.md).
pub const SPIN: Duration = Duration::from_millis(2);

/// The spin of [`wait_for`]: [`SPIN`] or `MPARRAY_CUDA_SPIN_US`.
pub fn spin() -> Duration {
    static S: std::sync::OnceLock<Duration> = std::sync::OnceLock::new();
    *S.get_or_init(|| {
        std::env::var("MPARRAY_CUDA_SPIN_US")
            .ok()
            .and_then(|v| v.parse::<u64>().ok())
            .map_or(SPIN, Duration::from_micros)
    })
}

/// Items kept per pool at most (more concurrent calls make fresh ones,
/// dropped at their end).
const KEEP: usize = 16;

/// A stack of reusable per-call items (see the module's rules).
pub struct Pool<T> {
    free: Mutex<Vec<T>>,
}

impl<T> Default for Pool<T> {
    fn default() -> Self {
        Pool {
            free: Mutex::new(Vec::new()),
        }
    }
}

impl<T> Pool<T> {
    /// An item for this call (taken out of the pool), or None: the caller
    /// makes a new one.
    pub fn take(&self) -> Option<T> {
        self.free.lock().unwrap_or_else(|p| p.into_inner()).pop()
    }

    /// Gives an item back after a call that left it in a reusable state.
    pub fn give(&self, item: T) {
        let mut f = self.free.lock().unwrap_or_else(|p| p.into_inner());
        if f.len() < KEEP {
            f.push(item);
        }
    }

    /// Items waiting in the pool.
    pub fn len(&self) -> usize {
        self.free.lock().unwrap_or_else(|p| p.into_inner()).len()
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

/// The stall limit from `MPARRAY_CUDA_WAIT_S` (seconds; unset or 0: none).
pub fn stall_limit() -> Option<Duration> {
    std::env::var("MPARRAY_CUDA_WAIT_S")
        .ok()
        .and_then(|v| v.parse::<f64>().ok())
        .filter(|&s| s > 0.0 && s.is_finite())
        .map(Duration::from_secs_f64)
}

/// Waits until `poll` gives a value: spins (calling `poll`) for at most
/// [`SPIN`]; then, without a limit, calls `block` once (a wait that does
/// not spin, e.g. an event synchronisation after which `poll` must
/// succeed) and `poll` again; with a `limit`, polls with growing sleeps
/// (up to 1 ms) and fails with an error naming `what` after `limit`.
/// `poll` returning None after `block` is an error too (never a hang).
pub fn wait_for<R>(
    what: &str,
    limit: Option<Duration>,
    mut poll: impl FnMut() -> Result<Option<R>>,
    block: impl FnOnce() -> Result<()>,
) -> Result<R> {
    let (t0, spin) = (Instant::now(), spin());
    let mut n = 0u32;
    loop {
        if let Some(r) = poll()? {
            return Ok(r);
        }
        n = n.wrapping_add(1);
        if n.is_multiple_of(64) && t0.elapsed() >= spin {
            break;
        }
        std::hint::spin_loop();
    }
    match limit {
        None => {
            block()?;
            poll()?.ok_or_else(|| {
                Error::DeviceWait(format!("{what}: the device finished without the result"))
            })
        }
        Some(limit) => {
            let mut nap = Duration::from_micros(10);
            loop {
                if let Some(r) = poll()? {
                    return Ok(r);
                }
                if t0.elapsed() >= limit {
                    return Err(Error::DeviceWait(format!(
                        "{what}: no result from the device after {:.1} s (MPARRAY_CUDA_WAIT_S)",
                        t0.elapsed().as_secs_f64()
                    )));
                }
                std::thread::sleep(nap);
                nap = (nap * 2).min(Duration::from_millis(1));
            }
        }
    }
}

/// At most `limit` holders at once, the rest waiting in line, until
/// [`Slots::close`]: then waiting ones give up and new ones are refused.
/// The background compiles take one each (a bound on the NVRTC threads
/// that compete with a process's own first-use compiles; at exit the
/// queued ones are dropped instead of awaited).
pub struct Slots {
    state: Mutex<(usize, bool)>,
    freed: std::sync::Condvar,
    limit: usize,
}

impl Slots {
    /// Slots for `limit` holders (at least one).
    pub fn new(limit: usize) -> Slots {
        Slots {
            state: Mutex::new((0, false)),
            freed: std::sync::Condvar::new(),
            limit: limit.max(1),
        }
    }

    /// Waits for a slot: true when taken (give it back with
    /// [`Slots::release`]), false once the slots are closed.
    pub fn acquire(&self) -> bool {
        let mut s = self.state.lock().unwrap_or_else(|p| p.into_inner());
        loop {
            if s.1 {
                return false;
            }
            if s.0 < self.limit {
                s.0 += 1;
                return true;
            }
            s = self.freed.wait(s).unwrap_or_else(|p| p.into_inner());
        }
    }

    /// Gives a slot back.
    pub fn release(&self) {
        let mut s = self.state.lock().unwrap_or_else(|p| p.into_inner());
        s.0 = s.0.saturating_sub(1);
        self.freed.notify_all();
    }

    /// Refuses every later [`Slots::acquire`] and wakes the waiting ones
    /// (they get false); holders keep their slots.
    pub fn close(&self) {
        self.state.lock().unwrap_or_else(|p| p.into_inner()).1 = true;
        self.freed.notify_all();
    }

    /// Slots held now.
    pub fn held(&self) -> usize {
        self.state.lock().unwrap_or_else(|p| p.into_inner()).0
    }
}

/// An event whose synchronisation sleeps instead of spinning.
pub fn wait_event(eng: &CudaEngine) -> Result<cudarc::driver::CudaEvent> {
    eng.context()
        .new_event(Some(
            cudarc::driver::sys::CUevent_flags::CU_EVENT_BLOCKING_SYNC,
        ))
        .map_err(Error::driver("creating an event"))
}

/// Waits for `ev` (recorded after the work `what` names): a bounded spin,
/// then a sleeping wait ([`wait_for`]).
pub fn event_done(what: &str, ev: &cudarc::driver::CudaEvent) -> Result<()> {
    wait_for(
        what,
        stall_limit(),
        || {
            Ok(ev
                .try_is_complete()
                .map_err(Error::driver("waiting for the device"))?
                .then_some(()))
        },
        || {
            ev.synchronize()
                .map_err(Error::driver("waiting for the device"))
        },
    )
}
