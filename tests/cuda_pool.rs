//! The CUDA engine's per-call pools and bounded waits (src/engine/cuda/
//! pool.rs), on the CPU: no device needed.
//!
//! - `pool_items_are_exclusive`: many threads (some inside rayon workers
//!   that re-enter the pool from a nested parallel loop, as a CUDA call
//!   made from a rayon job does) take and give items; no item is ever held
//!   by two calls at once, and nothing waits on another call.
//! - `wait_for_*`: a poll that never succeeds ends in an error naming the
//!   wait after the stall limit (never a hang); one that succeeds late, or
//!   only after the blocking step, returns its value.
//! - `slots_*`: the background compiles' slots never have more holders
//!   than their limit, and closing them releases every waiting thread.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use mparray::engine::cuda::pool::{Pool, Slots, wait_for};
use mparray::error::Error;
use rayon::prelude::*;

/// A pooled item: its id and whether a call holds it.
struct Item {
    id: usize,
    held: Arc<AtomicBool>,
}

fn call(pool: &Pool<Item>, made: &AtomicUsize, depth: u32) {
    let it = pool.take().unwrap_or_else(|| Item {
        id: made.fetch_add(1, Ordering::SeqCst),
        held: Arc::new(AtomicBool::new(false)),
    });
    assert!(
        !it.held.swap(true, Ordering::SeqCst),
        "item {} held by two calls",
        it.id
    );
    if depth > 0 {
        // Host work on rayon while the item is held: a worker may run
        // another call's job, which takes an item of its own.
        (0..4u32)
            .into_par_iter()
            .for_each(|_| call(pool, made, depth - 1));
    } else {
        std::hint::black_box((0..200u64).sum::<u64>());
    }
    it.held.store(false, Ordering::SeqCst);
    pool.give(it);
}

#[test]
fn pool_items_are_exclusive() {
    let pool = Arc::new(Pool::<Item>::default());
    let made = Arc::new(AtomicUsize::new(0));
    let t0 = Instant::now();
    std::thread::scope(|s| {
        for _ in 0..8 {
            let (pool, made) = (pool.clone(), made.clone());
            s.spawn(move || {
                for _ in 0..50 {
                    call(&pool, &made, 2);
                }
            });
        }
        (0..64u32)
            .into_par_iter()
            .for_each(|_| call(&pool, &made, 1));
    });
    let n = made.load(Ordering::SeqCst);
    eprintln!(
        "{n} items made for {} calls in {:.2} s, {} kept",
        8 * 50 * 21 + 64 * 5,
        t0.elapsed().as_secs_f64(),
        pool.len()
    );
    assert!(n >= 1 && pool.len() <= 16 && !pool.is_empty());
}

#[test]
fn wait_for_never_ready_is_an_error() {
    let t0 = Instant::now();
    let r: Result<u32, _> = wait_for(
        "a word that never comes",
        Some(Duration::from_millis(300)),
        || Ok(None),
        || panic!("no blocking step under a stall limit"),
    );
    let dt = t0.elapsed();
    match r {
        Err(Error::DeviceWait(m)) => assert!(m.contains("a word that never comes"), "{m}"),
        other => panic!("expected a DeviceWait error, got {other:?}"),
    }
    assert!(dt >= Duration::from_millis(300));
}

#[test]
fn wait_for_late_value() {
    // Ready after 5 ms: past the spin, found by the sleeping polls.
    let t0 = Instant::now();
    let v = wait_for(
        "late",
        Some(Duration::from_secs(60)),
        || Ok((t0.elapsed() >= Duration::from_millis(5)).then_some(7u32)),
        || panic!("no blocking step under a stall limit"),
    )
    .unwrap();
    assert_eq!(v, 7);
    // Without a limit: the blocking step runs once, then the poll must
    // succeed.
    let ready = AtomicBool::new(false);
    let v = wait_for(
        "after the block",
        None,
        || Ok(ready.load(Ordering::SeqCst).then_some(9u32)),
        || {
            ready.store(true, Ordering::SeqCst);
            Ok(())
        },
    )
    .unwrap();
    assert_eq!(v, 9);
    // A block after which the value is still missing: an error, not a hang.
    let r: Result<u32, _> = wait_for("missing", None, || Ok(None), || Ok(()));
    assert!(matches!(r, Err(Error::DeviceWait(_))), "{r:?}");
}

#[test]
fn slots_bound_their_holders() {
    let slots = Slots::new(3);
    let (now, most, done) = (
        AtomicUsize::new(0),
        AtomicUsize::new(0),
        AtomicUsize::new(0),
    );
    std::thread::scope(|sc| {
        for _ in 0..16 {
            sc.spawn(|| {
                for _ in 0..20 {
                    assert!(slots.acquire());
                    let n = now.fetch_add(1, Ordering::SeqCst) + 1;
                    most.fetch_max(n, Ordering::SeqCst);
                    std::thread::sleep(Duration::from_micros(200));
                    now.fetch_sub(1, Ordering::SeqCst);
                    slots.release();
                    done.fetch_add(1, Ordering::SeqCst);
                }
            });
        }
    });
    assert_eq!(done.load(Ordering::SeqCst), 320);
    let m = most.load(Ordering::SeqCst);
    assert!((1..=3).contains(&m), "{m} holders at once");
    assert_eq!(slots.held(), 0);
    // A limit of 0 is one slot.
    let one = Slots::new(0);
    assert!(one.acquire());
    assert_eq!(one.held(), 1);
    one.release();
}

#[test]
fn slots_close_releases_the_waiting() {
    let slots = Slots::new(1);
    assert!(slots.acquire());
    let refused = AtomicUsize::new(0);
    std::thread::scope(|sc| {
        for _ in 0..4 {
            sc.spawn(|| {
                if !slots.acquire() {
                    refused.fetch_add(1, Ordering::SeqCst);
                }
            });
        }
        // The four wait behind the holder until the slots close.
        std::thread::sleep(Duration::from_millis(50));
        assert_eq!(refused.load(Ordering::SeqCst), 0);
        slots.close();
    });
    assert_eq!(refused.load(Ordering::SeqCst), 4);
    // The holder keeps its slot; nothing new is admitted.
    assert_eq!(slots.held(), 1);
    slots.release();
    assert!(!slots.acquire());
}
