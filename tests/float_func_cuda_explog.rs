//! log2, log10, log1p, expm1, sinh, cosh, tanh, asinh, acosh, atanh, asin,
//! acos, cbrt on CUDA
//! (src/kernels/float_func_explog.cuh) against the CPU engine (checked
//! against MPFR and an independent reference elsewhere): bit for bit,
//! ternary values included, every rounding mode, output precisions around
//! every fixed-point tier edge and beyond the largest tier (CPU fallback),
//! input precisions equal to the output's or random, arguments across
//! magnitudes: specials, tiny (MPFR's fast paths and their edges), the
//! series / formula switch at 2^-7, near 1 (log2, log10, acosh), near -1
//! (log1p), near +-1 (atanh, asin, acos), exact cases (powers of 2 and 10,
//! cubes), huge and
//! near overflow (expm1, sinh, cosh), the tanh = +-1 fast path.
//!
//! The `funcgpu_explog_*` tests need a device (ignored otherwise). The
//! `funcemu_explog_*` tests run the same per-element kernel code compiled
//! for the host (tests/emu/funcgpu/emu.cpp: the binary MPARRAY_FUNC_EMU
//! names, else built with g++ by the test; MPARRAY_NO_EMU=1 skips them).
//! Fresh seeds each run (printed; MPARRAY_TEST_SEED replays).

use mparray::float::func::Func;
use mparray::float::func::FuncStats;
use mparray::float::func::cuda as fcuda;
use mparray::{Engine, FloatArray, Round};

mod common;
use common::func_dev::{Dev, same_as_cpu};
use common::{Raw, Rng, elem, near_one, seed};

const FUNCS: [Func; 13] = [
    Func::Log2,
    Func::Log10,
    Func::Log1p,
    Func::Expm1,
    Func::Sinh,
    Func::Cosh,
    Func::Tanh,
    Func::Asinh,
    Func::Acosh,
    Func::Atanh,
    Func::Asin,
    Func::Acos,
    Func::Cbrt,
];
const MODES: [Round; 5] = Round::ALL;

/// Small precisions, the bench's, each tier's edges, and above the largest
/// tier (CPU fallback).
const PRECS: &[u64] = &[
    1, 2, 53, 64, 65, 113, 128, 129, 192, 255, 256, 257, 384, 512, 513, 700, 1024, 1025, 1500,
    2048, 2060, 2100, 2500,
];

/// The first element of a host array, raw.
fn raw0(y: &FloatArray) -> Raw {
    let n = y.limbs_per_element();
    (
        y.tags().unwrap()[0],
        y.exps().unwrap()[0],
        y.limbs().unwrap()[..n].to_vec(),
    )
}

/// A power of two or ten (exact cases of log2 / log10), as `q` bits when
/// it fits, else rounded.
fn power(r: &mut Rng, q: u64) -> Raw {
    let n = q.div_ceil(64) as usize;
    if r.below(2) == 0 {
        let mut m = vec![0; n];
        m[n - 1] = 1 << 63;
        return (1, r.range(-200, 200), m);
    }
    let k = r.range(1, 60) as u32;
    let v = 10f64.powi(k as i32);
    let (y, _) = FloatArray::from_f64s(q, &[v], Round::Nearest).unwrap();
    raw0(&y)
}

/// `count` arguments of precision `q` for `f` at output precision `p`.
fn inputs(f: Func, r: &mut Rng, q: u64, p: u64, count: usize) -> FloatArray {
    let n = q.div_ceil(64) as usize;
    let (mut tags, mut exps, mut limbs) = (Vec::new(), Vec::new(), Vec::new());
    let pe = p as i64;
    let qe = q as i64;
    for _ in 0..count {
        let neg = r.below(2) == 0;
        let fam = r.below(16);
        let (t, e, m): Raw = if fam == 0 {
            match r.below(6) {
                0 => (if neg { 4 } else { 0 }, 0, vec![0; n]),
                1 => (2 | if neg { 4 } else { 0 }, 0, vec![0; n]),
                2 => (3, 0, vec![0; n]),
                _ => {
                    let mut m = vec![0; n];
                    m[n - 1] = 1 << 63;
                    (1 | if neg { 4 } else { 0 }, 1, m)
                }
            }
        } else {
            let e = match fam {
                // Tiny, around the fast paths' edges (ex <= -L, 2 ex <= -L).
                1 => r.range(-3000, -pe - 70),
                2 => r
                    .range(-pe - 8, -pe + 3)
                    .min(-(qe.max(pe) + 3) + r.range(-3, 3)),
                3 => r.range(-pe / 2 - 8, -pe / 2 + 3) - qe / 2,
                // Around the series / formula switch at 2^-7, and small.
                4 => r.range(-9, -5),
                5 => r.range(-140, -8),
                _ => match f {
                    Func::Log2 | Func::Log10 => r.range(-3000, 3000),
                    Func::Log1p => r.range(-20, 200),
                    Func::Expm1 | Func::Sinh | Func::Cosh => {
                        if fam == 6 {
                            r.range(25, 33)
                        } else {
                            r.range(-8, 12)
                        }
                    }
                    Func::Tanh => r.range(-8, 12),
                    Func::Asinh => r.range(-8, 3000),
                    Func::Acosh => r.range(1, 3000),
                    Func::Cbrt => r.range(-3000, 3000),
                    _ => r.range(-8, 0),
                },
            };
            match (f, fam) {
                (Func::Log2 | Func::Log10, 7 | 8) => {
                    let k = r.range(1, 2 * pe + 8) as u64;
                    near_one(r, q, k, fam == 7, false)
                }
                (Func::Log2 | Func::Log10, 9) => power(r, q),
                (Func::Log2 | Func::Log10, _) => elem(r, q, e, false),
                (Func::Acosh, 7..=9) => {
                    let k = r.range(1, 2 * pe + 8) as u64;
                    near_one(r, q, k, true, false)
                }
                (Func::Acosh, _) => elem(r, q, e.max(1), false),
                (Func::Atanh | Func::Asin | Func::Acos, 7 | 8) => {
                    let k = r.range(1, 2 * pe + 8) as u64;
                    near_one(r, q, k, false, neg)
                }
                (Func::Atanh | Func::Asin | Func::Acos, _) => elem(r, q, e.min(0), neg),
                (Func::Cbrt, 7 | 8) => {
                    // Exact cubes (of q/3-bit numbers) and their neighbours.
                    let b = (q / 3).clamp(1, 60);
                    let v = (r.next() >> (64 - b)) | 1;
                    let c = (v as f64).powi(3);
                    let sc = 2f64.powi(3 * r.range(-30, 30) as i32);
                    let (y, _) =
                        FloatArray::from_f64s(q.max(64), &[c * sc], Round::Nearest).unwrap();
                    let y = if neg {
                        y.neg(q.max(64), Round::Nearest).unwrap()
                    } else {
                        y
                    };
                    let (y, _) = y.set_prec_ternary(q, Round::Nearest).unwrap();
                    raw0(&y)
                }
                (Func::Log1p, 7 | 8) => {
                    // Near -1, and below -1 (NaN).
                    let k = r.range(1, 2 * pe + 8) as u64;
                    near_one(r, q, k, fam == 8, true)
                }
                (Func::Expm1, 7) => {
                    // Around the -1 fast path: x near -(p+2) ln 2 .. -(p+2).
                    let v = -(0.6 + 0.5 * r.below(1000) as f64 / 1000.0) * (p + 3) as f64;
                    let (y, _) = FloatArray::from_f64s(q.max(12), &[v], Round::Nearest).unwrap();
                    let (y, _) = y.set_prec_ternary(q, Round::Nearest).unwrap();
                    raw0(&y)
                }
                (Func::Tanh, 7) => {
                    // Around the +-1 fast path, 0.35 (p + 3).
                    let v = (0.3 + 0.1 * r.below(1000) as f64 / 1000.0) * (p + 3) as f64;
                    let v = if neg { -v } else { v };
                    let (y, _) = FloatArray::from_f64s(q.max(12), &[v], Round::Nearest).unwrap();
                    let (y, _) = y.set_prec_ternary(q, Round::Nearest).unwrap();
                    raw0(&y)
                }
                _ => elem(r, q, e, neg),
            }
        };
        tags.push(t);
        exps.push(e);
        limbs.extend(m);
    }
    FloatArray::from_raw(q, tags, exps, limbs).unwrap()
}

/// Compares with the CPU engine; returns the device's statistics.
fn check(dev: &Dev, f: Func, x: &FloatArray, p: u64, rnd: Round) -> FuncStats {
    let (r, t, st) = dev.run(f, x, p, rnd);
    same_as_cpu(f, x, p, rnd, &r, &t);
    st
}

fn random_all(dev: &Dev, funcs: &[Func], count: usize, precs: &[u64]) {
    let mut r = Rng(seed());
    let (mut total, mut retried) = (0u64, 0u64);
    for &f in funcs {
        let (mut ft, mut fr) = (0u64, 0u64);
        for &p in precs {
            for rnd in MODES {
                let q = if r.below(3) == 0 {
                    1 + r.below(p + 64)
                } else {
                    p
                };
                let x = inputs(f, &mut r, q, p, count);
                let st = check(dev, f, &x, p, rnd);
                if std::env::var("FUNC_DEBUG").is_ok() {
                    eprintln!(
                        "{} p={p} q={q} {rnd:?}: {}/{}",
                        f.name(),
                        st.retried,
                        st.elements
                    );
                }
                ft += st.elements;
                fr += st.retried;
            }
        }
        eprintln!("{}: {ft} elements, {fr} evaluated on the host", f.name());
        total += ft;
        retried += fr;
    }
    eprintln!("{total} elements, {retried} evaluated on the host");
}

/// Functions named in MPARRAY_FUNC_ONLY (comma separated), else all.
fn funcs() -> Vec<Func> {
    match std::env::var("MPARRAY_FUNC_ONLY") {
        Ok(s) => s.split(',').filter_map(Func::from_name).collect(),
        Err(_) => FUNCS.to_vec(),
    }
}

#[test]
fn funcemu_explog_random() {
    if let Some(dev) = Dev::emu() {
        random_all(&dev, &funcs(), 48, PRECS);
    }
}

#[test]
#[ignore = "needs a CUDA device"]
fn funcgpu_explog_random() {
    random_all(&Dev::cuda(), &FUNCS, 96, PRECS);
}

/// The bench's arguments (src/bench/func.rs `inputs`): all checked, and
/// the share sent to the host must be tiny.
fn bench_like(dev: &Dev, precs: &[u64], len: usize) {
    for &p in precs {
        for f in funcs() {
            let (lo, hi) = match f {
                Func::Log2 | Func::Log10 => (-64, 64),
                Func::Asinh | Func::Sinh | Func::Cosh | Func::Tanh => (-16, 8),
                Func::Expm1 => (-16, 4),
                Func::Log1p | Func::Acosh => (-16, 16),
                Func::Cbrt => (-16, 8),
                _ => (-16, 0),
            };
            let x = FloatArray::random_exp(&Engine::Cpu, len, p, seed(), lo, hi).unwrap();
            let x = if matches!(f, Func::Log2 | Func::Log10 | Func::Log1p | Func::Acosh) {
                let a = x.abs(p, Round::Nearest).unwrap();
                if f == Func::Acosh {
                    let one = FloatArray::from_i64s(p, &vec![1; len], Round::Nearest)
                        .unwrap()
                        .0;
                    a.add(&one, p, Round::Nearest).unwrap()
                } else {
                    a
                }
            } else {
                x
            };
            let st = check(dev, f, &x, p, Round::Nearest);
            eprintln!(
                "{} at {p}: {} of {} on the host",
                f.name(),
                st.retried,
                st.elements
            );
            assert!(
                st.retried * 100 <= st.elements,
                "{} at {p}: {} of {} on the host",
                f.name(),
                st.retried,
                st.elements
            );
        }
    }
}

#[test]
fn funcemu_explog_bench_like() {
    if let Some(dev) = Dev::emu() {
        bench_like(&dev, &[128, 512], 200);
    }
}

#[test]
#[ignore = "needs a CUDA device"]
fn funcgpu_explog_bench_like() {
    bench_like(&Dev::cuda(), &[128, 256, 512, 1024, 2048], 2000);
}

/// Device-resident chains: asinh(sinh(x)) and log1p(expm1(x)) on the
/// device against the same chain on the CPU.
#[test]
#[ignore = "needs a CUDA device"]
fn funcgpu_explog_resident() {
    let Dev::Cuda(eng) = Dev::cuda() else {
        unreachable!()
    };
    let x = FloatArray::random_exp(&Engine::Cpu, 500, 256, seed(), -10, 4).unwrap();
    let d = x.to_engine(&eng).unwrap();
    for (f, g) in [(Func::Sinh, Func::Asinh), (Func::Expm1, Func::Log1p)] {
        let y = d.func(f, 300, Round::Zero).unwrap();
        assert!(y.engine().same_as(&eng));
        let z = y.func(g, 256, Round::Up).unwrap();
        assert!(z.engine().same_as(&eng));
        let z = z.to_host().unwrap();
        let want = x
            .func(f, 300, Round::Zero)
            .unwrap()
            .func(g, 256, Round::Up)
            .unwrap();
        assert_eq!(z, want);
    }
}

/// Debug: prints the arguments the emulator flags (MPARRAY_FUNC_DEBUG_FLAGS).
#[test]
fn funcemu_explog_debug_flags() {
    let (Some(dev), Ok(_)) = (Dev::emu(), std::env::var("MPARRAY_FUNC_DEBUG_FLAGS")) else {
        return;
    };
    let mut r = Rng(seed());
    for f in funcs() {
        for &p in &[53u64, 128, 512] {
            let x = inputs(f, &mut r, p, p, 200);
            let (xt, xe, xl) = (x.tags().unwrap(), x.exps().unwrap(), x.limbs().unwrap());
            let n = x.limbs_per_element();
            for i in 0..x.len() {
                let xi = FloatArray::from_raw(
                    p,
                    vec![xt[i]],
                    vec![xe[i]],
                    xl[i * n..(i + 1) * n].to_vec(),
                )
                .unwrap();
                let (_, _, st) = dev.run(f, &xi, p, Round::Nearest);
                if st.retried > 0 {
                    eprintln!(
                        "{} p={p}: x = {}",
                        f.name(),
                        xi.to_hex_strings().unwrap()[0]
                    );
                }
            }
        }
    }
}

/// With MPARRAY_FUNC_NVRTC_CACHE=DIR: compiles every function-kernel tier
/// with NVRTC for sm_90 (no device needed) into the kernel cache DIR, in
/// parallel, failing on any warning; a GPU run with MPARRAY_CACHE_DIR=DIR
/// (same NVRTC version) then compiles nothing.
#[test]
#[ignore = "a tool, not a check: needs MPARRAY_FUNC_NVRTC_CACHE (CI compiles every kernel with `mparray kernels compile`)"]
fn funcnvrtc_explog_cache() {
    let Ok(dir) = std::env::var("MPARRAY_FUNC_NVRTC_CACHE") else {
        return; // the tool was not asked for
    };
    let dir = std::path::PathBuf::from(dir);
    std::thread::scope(|s| {
        for i in fcuda::instances() {
            let dir = &dir;
            s.spawn(move || {
                let t = std::time::Instant::now();
                let c = mparray::engine::cuda::compile::compile(
                    i.source.name,
                    &i.full_source(),
                    &i.options(),
                    "sm_90",
                    Some(dir),
                )
                .expect("compiles");
                assert!(!c.log.to_lowercase().contains("warning"), "{}", c.log);
                eprintln!("{}: {:.1} s", i.key(), t.elapsed().as_secs_f64());
            });
        }
    });
}
