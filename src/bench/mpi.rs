//! `mpirun -np P mparray bench huge --mpi` and `bench blas --mpi`: the
//! operations across ranks, timed on rank 0 (wall clock between barriers),
//! with the bytes each rank sent and received, and the single-process time
//! beside them; every result is compared with the single-process one (the
//! same limbs, the same bits). Scaling is read from runs at P = 1, 2, 3, 4.
//!
//! Each rank runs `cores / ranks-on-this-node` rayon threads unless
//! `RAYON_NUM_THREADS` says otherwise (see [`crate::dist::init`]), so that
//! P ranks share the host's cores instead of oversubscribing them; the
//! single-process time beside is taken on rank 0 with its share of the
//! cores too.

use std::time::Instant;

use mpi::traits::*;

use crate::dist::{self, Comm};
use crate::engine::Engine;
use crate::error::CommandError;
use crate::float::Round;
use crate::linalg::{Gemm, Matrix, Op};

/// One row: ranks, case, size, the median ms across ranks, one process's
/// ms, the bytes per rank (max, mean), the check.
struct Row {
    case: String,
    size: String,
    ms: f64,
    one_ms: f64,
    bytes_max: u64,
    bytes_mean: u64,
    same: bool,
}

fn comm() -> Result<Comm, CommandError> {
    dist::world().ok_or_else(|| {
        CommandError::Input(
            "--mpi: start the bench with mpirun (mpirun -np P mparray bench ...)".into(),
        )
    })
}

/// Every rank's traffic during `f` (sent + received bytes), on rank 0.
fn traffic_of(c: &Comm, before: (u64, u64)) -> Result<(u64, u64), CommandError> {
    let after = dist::traffic();
    let mine = after.0 - before.0 + after.1 - before.1;
    let all = c.gather_u64(vec![mine])?;
    Ok(all.map_or((0, 0), |v| {
        let b: Vec<u64> = v.iter().map(|x| x.first().copied().unwrap_or(0)).collect();
        (
            b.iter().copied().max().unwrap_or(0),
            b.iter().sum::<u64>() / b.len().max(1) as u64,
        )
    }))
}

fn print(rows: &[Row], ranks: usize) {
    println!(
        "{:>5}  {:<6} {:>12} {:>12} {:>14} {:>22}  check",
        "ranks", "case", "size", "ms", "1 process ms", "MB sent+recv/rank"
    );
    for r in rows {
        println!(
            "{:>5}  {:<6} {:>12} {:>12.2} {:>14.2} {:>10.1} max {:>6.1} mean  {}",
            ranks,
            r.case,
            r.size,
            r.ms,
            r.one_ms,
            r.bytes_max as f64 / 1e6,
            r.bytes_mean as f64 / 1e6,
            if r.same {
                "same as 1 process"
            } else {
                "DIFFERENT"
            }
        );
    }
}

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(|a, b| a.total_cmp(b));
    v.get(v.len() / 2).copied().unwrap_or(f64::NAN)
}

/// `bench huge --mpi`: products of two random `2^k`-bit numbers by the
/// distributed NTT. The time is the distributed core ([`dist::huge::
/// mul_shares`]: every rank starts from its own cyclic share, generated
/// from the seed, and ends with its coefficients), and apart from it the
/// gathering and carrying on rank 0; the check is against the product of
/// one process on rank 0.
pub fn huge(sizes: &[u32], runs: usize, seed: u64) -> Result<(), CommandError> {
    let c = comm()?;
    let (p, me) = (c.size(), c.rank());
    let mut rows = Vec::new();
    for &k in sizes {
        let n = (1usize << k).div_ceil(64);
        let (a, b) = (
            crate::huge::random_limbs(n, seed),
            crate::huge::random_limbs(n, seed ^ 0x9e37_79b9),
        );
        let lg = dist::huge::lg_for(2 * n, p)?;
        let share = |x: &[u64]| -> Vec<u64> { x.iter().skip(me).step_by(p).copied().collect() };
        let (sa, sb) = (share(&a), share(&b));
        let mut times = Vec::new();
        let mut coeffs = Vec::new();
        let mut bytes = (0, 0);
        for _ in 0..runs.max(1) {
            c.0.barrier();
            let before = dist::traffic();
            let t = Instant::now();
            coeffs = dist::huge::mul_shares(&c, &sa, &sb, lg)?;
            c.0.barrier();
            times.push(t.elapsed().as_secs_f64() * 1e3);
            bytes = traffic_of(&c, before)?;
        }
        let all = c.gather_u64(coeffs)?;
        if let Some(all) = all {
            let mut prod = vec![0u64; 2 * n];
            let mut acc = [0u64; 3];
            for (i, o) in prod.iter_mut().enumerate() {
                let (r, j) = (i % p, i / p);
                let x = all[r].get(3 * j..3 * j + 3).unwrap_or(&[0, 0, 0]);
                let (s0, k0) = acc[0].overflowing_add(x[0]);
                let (s1, k1) = acc[1].overflowing_add(x[1]);
                let (s1, k2) = s1.overflowing_add(k0 as u64);
                *o = s0;
                acc = [s1, acc[2] + x[2] + k1 as u64 + k2 as u64, 0];
            }
            let t = Instant::now();
            let one = crate::huge::cpu::mul_limbs(&a, Some(&b));
            let one_ms = t.elapsed().as_secs_f64() * 1e3;
            rows.push(Row {
                case: "mul".into(),
                size: format!("2^{k} bits"),
                ms: median(times),
                one_ms,
                bytes_max: bytes.0,
                bytes_mean: bytes.1,
                same: one == prod,
            });
        }
    }
    if me == 0 {
        print(&rows, p);
        if rows.iter().any(|r| !r.same) {
            return Err(CommandError::Other(
                "a distributed product differs from the single-process one".into(),
            ));
        }
    }
    Ok(())
}

/// `bench blas --mpi`: `C = A*B` of random `n x n` matrices at each
/// precision on the grid of ranks ([`dist::gemm::gemm`], from rank 0's
/// matrices to rank 0's result), against one process's `Matrix::gemm` on
/// rank 0, bit for bit.
pub fn blas(
    engine: &Engine,
    sizes: &[usize],
    precs: &[u64],
    runs: usize,
    seed: u64,
) -> Result<(), CommandError> {
    let c = comm()?;
    let (p, me) = (c.size(), c.rank());
    let mut rows = Vec::new();
    for &n in sizes {
        for &prec in precs {
            let ab = if me == 0 {
                let a = Matrix::<crate::float::FloatArray>::random(&Engine::Cpu, n, n, prec, seed)?;
                let b = Matrix::<crate::float::FloatArray>::random(
                    &Engine::Cpu,
                    n,
                    n,
                    prec,
                    seed ^ 0x51,
                )?;
                let one = crate::float::FloatArray::from_strs(prec, &["1"])?;
                Some((a, b, one))
            } else {
                None
            };
            let o = Gemm {
                op_a: Op::None,
                op_b: Op::None,
                prec,
                rnd: Round::Nearest,
            };
            let mut times = Vec::new();
            let mut out = None;
            let mut bytes = (0, 0);
            for _ in 0..runs.max(1) {
                c.0.barrier();
                let before = dist::traffic();
                let t = Instant::now();
                let job = ab.as_ref().map(|(a, b, one)| dist::gemm::GemmJob {
                    a,
                    b,
                    alpha: one,
                    beta_c: None,
                });
                out = dist::gemm::gemm(&c, engine, job, &o)?;
                c.0.barrier();
                times.push(t.elapsed().as_secs_f64() * 1e3);
                bytes = traffic_of(&c, before)?;
            }
            if let (Some((a, b, one)), Some(r)) = (&ab, out) {
                let (a, b, one) = (
                    a.to_engine(engine)?,
                    b.to_engine(engine)?,
                    one.to_engine(engine)?,
                );
                let t = Instant::now();
                let (single, _) = a.gemm(&b, &one, None, &o)?;
                let one_ms = t.elapsed().as_secs_f64() * 1e3;
                let single = single.to_host()?;
                let same = single.data().tags()? == r.data().tags()?
                    && single.data().exps()? == r.data().exps()?
                    && single.data().limbs()? == r.data().limbs()?;
                rows.push(Row {
                    case: "gemm".into(),
                    size: format!("{n}@{prec}b"),
                    ms: median(times),
                    one_ms,
                    bytes_max: bytes.0,
                    bytes_mean: bytes.1,
                    same,
                });
            }
        }
    }
    if me == 0 {
        print(&rows, p);
        if rows.iter().any(|r| !r.same) {
            return Err(CommandError::Other(
                "a distributed gemm differs from the single-process one".into(),
            ));
        }
    }
    Ok(())
}
