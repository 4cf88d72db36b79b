//! The fast fixed-point path of the CPU BLAS (src/linalg/fixed.rs) against
//! the exact core (the same call with the fast path off) and against
//! malachite-q rational sums rounded once by malachite-float. The fast
//! path's counters show it decides most elements of well-scaled inputs and
//! falls back where it must (cancellation, specials).

mod common;

use std::sync::Mutex;
use std::time::Instant;

use common::{Rng, seed};
use mparray::linalg::{Gemm, fixed};
use mparray::{Engine, FloatArray, Matrix, Round};

/// Serializes the tests: the fast path switch and counters are global.
static LOCK: Mutex<()> = Mutex::new(());

fn lock() -> std::sync::MutexGuard<'static, ()> {
    LOCK.lock().unwrap_or_else(|e| e.into_inner())
}

fn rand_mat(g: &mut Rng, r: usize, c: usize, p: u64, emin: i64, emax: i64) -> Matrix<FloatArray> {
    let a = FloatArray::random_exp(&Engine::Cpu, r * c, p, g.next(), emin, emax).unwrap();
    Matrix::from_array(a, r, c).unwrap()
}

/// The process's CPU time (all threads, user and system) in seconds, from
/// /proc (the machine is shared: CPU time is the fair measure).
fn cpu_seconds() -> f64 {
    let s = std::fs::read_to_string("/proc/self/stat").unwrap_or_default();
    let rest = s.rsplit(')').next().unwrap_or("");
    let f: Vec<f64> = rest
        .split_whitespace()
        .map(|x| x.parse().unwrap_or(0.0))
        .collect();
    // Fields 14 and 15 (utime, stime) in clock ticks of 1/100 s.
    (f.get(11).copied().unwrap_or(0.0) + f.get(12).copied().unwrap_or(0.0)) / 100.0
}

/// Prints the fast path's GEMM rate (multiply-accumulates per second) at
/// several precisions: `cargo test --release --test blas_fixed -- --ignored
/// --nocapture gemm_rate` (MPARRAY_RATE_N sets n, default 256).
#[test]
#[ignore]
fn gemm_rate() {
    let _l = lock();
    let n: usize = std::env::var("MPARRAY_RATE_N")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(256);
    let mut g = Rng(seed());
    let threads = rayon::current_num_threads();
    let precs: Vec<u64> = std::env::var("MPARRAY_RATE_P")
        .map(|s| s.split(',').map(|x| x.parse().unwrap()).collect())
        .unwrap_or_else(|_| vec![53, 128, 256, 512, 1024, 2048]);
    for p in precs {
        let a = rand_mat(&mut g, n, n, p, -4, 4);
        let b = rand_mat(&mut g, n, n, p, -4, 4);
        let one = FloatArray::from_f64s(p, &[1.0], Round::Nearest).unwrap().0;
        let o = Gemm {
            prec: p,
            ..Gemm::default()
        };
        let (f0, s0) = fixed::counters();
        let (t, c0) = (Instant::now(), cpu_seconds());
        let (_c, _t) = a.gemm(&b, &one, None, &o).unwrap();
        let (dt, cpu) = (t.elapsed().as_secs_f64(), cpu_seconds() - c0);
        let (f1, s1) = fixed::counters();
        let macs = (n * n * n) as f64;
        println!(
            "gemm n={n} p={p}: {dt:.3} s, {:.4} GMAC/s on {threads} threads; {:.1} ns of CPU time per MAC; fast {} exact {}",
            macs / dt / 1e9,
            cpu * 1e9 / macs,
            f1 - f0,
            s1 - s0
        );
    }
}
