//! Correctly rounded functions on CUDA (src/kernels/float_func.cu) against
//! the CPU engine (which tests/float_func.rs checks against an independent
//! reference and notes/func.md against MPFR): bit for bit, ternary values
//! included, every rounding mode, precisions around every fixed-point tier
//! threshold and beyond the largest tier (CPU fallback), input precisions
//! equal to the output's or random, arguments across magnitudes (tiny, the
//! fast-path edges, moderate, near 1 for log, near multiples of pi/2 for
//! sin/cos, huge, near overflow for exp), specials.
//!
//! The `funcgpu_*` tests need a device (ignored otherwise). The `funcemu_*`
//! tests run the very same per-element kernel code compiled for the host
//! (tests/emu/funcgpu/emu.cpp: the binary MPARRAY_FUNC_EMU names, else
//! built with g++ by the test; MPARRAY_NO_EMU=1 skips them). Fresh seeds
//! each run (printed; MPARRAY_TEST_SEED replays).

use mparray::float::func::Func;
use mparray::float::func::FuncStats;
use mparray::float::func::cuda as fcuda;
use mparray::{Engine, FloatArray, Round};

mod common;
use common::func_dev::{Dev, same_as_cpu};
use common::{Rng, elem, near_one, seed};

const FUNCS: [Func; 6] = [
    Func::Exp,
    Func::Log,
    Func::Sin,
    Func::Cos,
    Func::Atan,
    Func::Exp2,
];
const MODES: [Round; 5] = Round::ALL;

/// Output precisions: small ones, the bench's, and each tier's edges
/// (tier K serves p up to about 64 K - 40 - 0.9 sqrt(p)), and above the
/// largest tier (CPU fallback).
const PRECS: &[u64] = &[
    1, 2, 53, 64, 65, 113, 128, 129, 150, 192, 200, 256, 257, 383, 384, 450, 512, 513, 700, 1000,
    1024, 1025, 1500, 2048, 2060, 2100, 2500,
];

/// `count` arguments of precision `q` for `f` at output precision `p`.
fn inputs(f: Func, r: &mut Rng, q: u64, p: u64, count: usize) -> FloatArray {
    let n = q.div_ceil(64) as usize;
    let (mut tags, mut exps, mut limbs) = (Vec::new(), Vec::new(), Vec::new());
    let pi = std::f64::consts::PI;
    let mut near_pi = Vec::new();
    for i in 0..count {
        let neg = r.below(2) == 0;
        let fam = r.below(16);
        let (t, e, m) = if fam == 0 {
            // Specials: +-0, +-Inf, NaN, +-1.
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
            let pe = p as i64;
            let e = match (f, fam) {
                // Tiny, around the fast paths' edges.
                (_, 1) => r.range(-3000, -pe / 2 - 70),
                (_, 2) => r.range(-pe / 2 - 40, -pe / 2 + 3) - (q as i64 / 2),
                (_, 3) => r.range(-pe - 8, -pe / 2),
                (Func::Exp | Func::Exp2, 4) => r.range(25, 33),
                (Func::Exp | Func::Exp2, 5) => 30,
                (Func::Exp | Func::Exp2, _) => r.range(-40, 11),
                (Func::Log, 4 | 5) => r.range(-3000, 3000),
                (Func::Log, _) => r.range(-12, 12),
                (Func::Sin | Func::Cos, 4) => r.range(20, 50),
                (Func::Sin | Func::Cos, _) => r.range(-20, 12),
                (Func::Atan, 4 | 5) => r.range(-3000, 3000),
                _ => r.range(-14, 14),
            };
            match (f, fam) {
                (Func::Log, 6 | 7) => {
                    let k = r.range(1, 2 * p as i64 + 8) as u64;
                    near_one(r, q, k, fam == 6, false)
                }
                (Func::Sin | Func::Cos, 6 | 7) => {
                    near_pi.push(i);
                    elem(r, q, 1, neg)
                }
                (Func::Log, _) => elem(r, q, e, false),
                (Func::Exp2, 6 | 7) => {
                    // Integers (exact), and x + 2^-(bits) next to them.
                    let e = r.range(1, 31.min(q as i64 + 8));
                    let (t, e, mut m) = elem(r, q, e, neg);
                    let bits = 64 * m.len() as i64;
                    for b in 0..(bits - e).max(0) {
                        m[(b / 64) as usize] &= !(1u64 << (b % 64));
                    }
                    if fam == 7 && bits > e {
                        m[0] |= 1u64 << (64 * m.len() as u64 - q);
                    }
                    (t, e, m)
                }
                _ => elem(r, q, e, neg),
            }
        };
        tags.push(t);
        exps.push(e);
        limbs.extend(m);
    }
    let mut x = FloatArray::from_raw(q, tags, exps, limbs).unwrap();
    if !near_pi.is_empty() && q >= 24 {
        // Near multiples of pi/2: k pi/2 from a double, rounded to q bits.
        let v: Vec<f64> = near_pi
            .iter()
            .map(|_| {
                let k = r.range(1, 1 << 20) as f64;
                if r.below(2) == 0 {
                    k * pi / 2.0
                } else {
                    -k * pi / 2.0
                }
            })
            .collect();
        let (y, _) = FloatArray::from_f64s(q, &v, Round::Nearest).unwrap();
        let (mut tags, mut exps, mut limbs) = (
            x.tags().unwrap().to_vec(),
            x.exps().unwrap().to_vec(),
            x.limbs().unwrap().to_vec(),
        );
        let (yt, ye, yl) = (y.tags().unwrap(), y.exps().unwrap(), y.limbs().unwrap());
        for (j, &i) in near_pi.iter().enumerate() {
            tags[i] = yt[j];
            exps[i] = ye[j];
            limbs[i * n..(i + 1) * n].copy_from_slice(&yl[j * n..(j + 1) * n]);
        }
        x = FloatArray::from_raw(q, tags, exps, limbs).unwrap();
    }
    x
}

/// Compares with the CPU engine; returns the device's statistics.
fn check(dev: &Dev, f: Func, x: &FloatArray, p: u64, rnd: Round) -> FuncStats {
    check_forced(dev, f, x, p, rnd, 0)
}

fn check_forced(dev: &Dev, f: Func, x: &FloatArray, p: u64, rnd: Round, force: u32) -> FuncStats {
    let (r, t, st) = dev.run_forced(f, x, p, rnd, force);
    assert_eq!(st.retried, st.device_retried + st.host, "{st:?}");
    same_as_cpu(f, x, p, rnd, &r, &t);
    st
}

fn random_all(dev: &Dev, count: usize, precs: &[u64]) {
    let mut r = Rng(seed());
    let (mut total, mut retried) = (0u64, 0u64);
    for &p in precs {
        for f in FUNCS {
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
                total += st.elements;
                retried += st.retried;
            }
        }
    }
    eprintln!("{total} elements, {retried} evaluated on the host");
}

/// The retry path: `force` 1 makes the first pass call every third written
/// element undecided, so they are gathered, re-run at the next tier on the
/// device and scattered back; `force` 2 does so at every retry tier too, so
/// some reach the CPU engine. Bits and ternary values against the CPU.
fn retry_all(dev: &Dev, count: usize, precs: &[u64]) {
    let mut r = Rng(seed());
    for &p in precs {
        for f in FUNCS {
            for force in [1, 2] {
                let rnd = MODES[r.below(5) as usize];
                let q = if r.below(2) == 0 {
                    p
                } else {
                    1 + r.below(p + 64)
                };
                let x = inputs(f, &mut r, q, p, count);
                let st = check_forced(dev, f, &x, p, rnd, force);
                let on_device = fcuda::device_code(f)
                    .and_then(|c| fcuda::tier_of(c, p, x.limbs_per_element()))
                    .is_some();
                if !on_device {
                    assert_eq!(st.host, st.elements);
                    continue;
                }
                // Every third element is forced or flagged anyway.
                assert!(st.retried >= (count as u64).div_ceil(3), "{st:?}");
                let last = fcuda::retry_tiers(
                    fcuda::tier_of(fcuda::device_code(f).unwrap(), p, x.limbs_per_element())
                        .unwrap(),
                )
                .count();
                if force == 1 && last > 0 {
                    assert!(st.device_retried > 0, "{} p={p}: {st:?}", f.name());
                }
                // Position 0 of every pass is forced, so with force 2 (or
                // no larger tier) some element ends on the host. (Without
                // force, fewer than RETRY_MIN undecided elements go to the
                // host directly, so no comparison with a plain run.)
                if force == 2 || last == 0 {
                    assert!(st.host > 0, "{} p={p}: {st:?}", f.name());
                }
            }
        }
    }
}

#[test]
fn funcemu_retry() {
    if let Some(dev) = Dev::emu() {
        retry_all(&dev, 120, &[53, 128, 512, 1024, 2048, 2100]);
    }
}

#[test]
#[ignore = "needs a CUDA device"]
fn funcgpu_retry() {
    retry_all(&Dev::cuda(), 200, &[53, 128, 256, 512, 1024, 2048, 2100]);
}

#[test]
fn funcemu_random() {
    if let Some(dev) = Dev::emu() {
        random_all(&dev, 48, PRECS);
    }
}

#[test]
#[ignore = "needs a CUDA device"]
fn funcgpu_random() {
    random_all(&Dev::cuda(), 96, PRECS);
}

/// Bench-like arguments: the share sent to the host must be tiny.
fn bench_like(dev: &Dev, precs: &[u64], len: usize) {
    for &p in precs {
        for f in FUNCS {
            let (lo, hi) = match f {
                Func::Exp | Func::Exp2 => (-16, 4),
                Func::Log => (-64, 64),
                Func::Atan => (-16, 16),
                _ => (-16, 8),
            };
            let x = FloatArray::random_exp(&Engine::Cpu, len, p, seed(), lo, hi).unwrap();
            let x = if f == Func::Log {
                x.abs(p, Round::Nearest).unwrap()
            } else {
                x
            };
            let st = check(dev, f, &x, p, Round::Nearest);
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
fn funcemu_bench_like() {
    if let Some(dev) = Dev::emu() {
        bench_like(&dev, &[128, 512], 200);
    }
}

#[test]
#[ignore = "needs a CUDA device"]
fn funcgpu_bench_like() {
    bench_like(&Dev::cuda(), &[128, 256, 512, 1024, 2048], 2000);
}

/// Precisions beyond the kernels' tiers run on the CPU engine, and
/// device-resident chains work.
#[test]
#[ignore = "needs a CUDA device"]
fn funcgpu_fallback_and_resident() {
    let dev = Dev::cuda();
    let Dev::Cuda(eng) = &dev else { unreachable!() };
    let eng = eng.clone();
    let cpu = Engine::Cpu;
    let mut r = Rng(seed());
    // Every function runs on the device now; precisions above the largest
    // tier go to the CPU engine whole.
    for f in [Func::Exp, Func::Tan, Func::Log2] {
        let x = inputs(Func::Atan, &mut r, 3000, 3000, 40);
        let x = if f == Func::Log2 {
            x.abs(3000, Round::Nearest).unwrap()
        } else {
            x
        };
        let st = check(&dev, f, &x, 3000, Round::Nearest);
        assert_eq!(st.retried, st.elements);
    }
    // exp(log(x)) on the device against the CPU.
    let x = FloatArray::random_exp(&cpu, 300, 256, seed(), 1, 8).unwrap();
    let d = x.to_engine(&eng).unwrap();
    let l = d.func(Func::Log, 300, Round::Zero).unwrap();
    assert!(l.engine().same_as(&eng));
    let e = l.func(Func::Exp, 256, Round::Up).unwrap();
    assert!(e.engine().same_as(&eng));
    let e = e.to_host().unwrap();
    let want = x
        .log(300, Round::Zero)
        .unwrap()
        .exp(256, Round::Up)
        .unwrap();
    assert_eq!(e, want);
    // Empty arrays.
    let z = FloatArray::zeros(&eng, 0, 64).unwrap();
    assert_eq!(z.func(Func::Sin, 64, Round::Nearest).unwrap().len(), 0);
}

/// Compiles the function kernels with NVRTC (no device needed) when
/// MPARRAY_FUNC_NVRTC is set, printing each instance's compile time
/// (`mparray kernels compile` checks every kernel in CI).
#[test]
#[ignore = "a tool, not a check: needs MPARRAY_FUNC_NVRTC (CI compiles every kernel with `mparray kernels compile`)"]
fn funcnvrtc_compile() {
    let Ok(which) = std::env::var("MPARRAY_FUNC_NVRTC") else {
        return; // the tool was not asked for
    };
    std::thread::scope(|s| {
        for i in fcuda::instances() {
            if which != "all"
                && !which
                    .split(',')
                    .any(|k| i.key().ends_with(&format!("={k}")))
            {
                continue;
            }
            s.spawn(move || {
                let t = std::time::Instant::now();
                mparray::engine::cuda::compile::compile(
                    i.source.name,
                    &i.full_source(),
                    &i.options(),
                    "sm_90",
                    // MPARRAY_CACHE_DIR set: into that kernel cache (to
                    // carry to the GPU machine).
                    std::env::var_os("MPARRAY_CACHE_DIR")
                        .map(|_| mparray::engine::cuda::compile::cache_dir())
                        .as_deref(),
                )
                .map(|c| assert!(!c.log.to_lowercase().contains("warning"), "{}", c.log))
                .expect("compiles");
                eprintln!("{}: {:.1} s", i.key(), t.elapsed().as_secs_f64());
            });
        }
    });
}

/// A first use's compile that lasts longer than a second prints the
/// one-line notice (engine::cuda::compile::notice) once: the module of all
/// functions at the smallest tier (several seconds on any host) into an
/// empty kernel cache; the family modules a first use compiles load from
/// that cache afterwards without NVRTC. Needs NVRTC, no device.
#[test]
#[ignore = "needs NVRTC (libnvrtc.so on LD_LIBRARY_PATH); compiles one full function module"]
fn funcnvrtc_first_use_notice() {
    use mparray::engine::cuda::compile;
    let dir = common::Tmp::new();
    let i = fcuda::instances().remove(0);
    assert!(!compile::noticed());
    let (src, opts) = (i.full_source(), i.options());
    let t = std::time::Instant::now();
    let c = compile::compile_noticed(i.source.name, &src, &opts, "sm_90", Some(&dir.0)).unwrap();
    let secs = t.elapsed().as_secs_f64();
    assert!(!c.from_cache && !c.cubin.is_empty());
    // The notice fires exactly when the compile outlasts its second (a
    // margin either side for the watcher thread's wake-up).
    if secs > 1.5 {
        assert!(
            compile::noticed(),
            "{} took {secs:.1} s, no notice",
            i.key()
        );
    } else if secs < 0.8 {
        assert!(
            !compile::noticed(),
            "{} took {secs:.1} s, yet a notice",
            i.key()
        );
    }
    eprintln!("{}: {secs:.1} s, notice {}", i.key(), compile::noticed());
    let again = compile::compile_noticed(i.source.name, &src, &opts, "sm_90", Some(&dir.0));
    assert!(again.unwrap().from_cache);
}

/// Writes tier 9's constants and bench-like 512-bit arguments (4096 each of
/// exp, log, sin, cos, atan) for the standalone timing probe
/// (scripts/func_probe.cu) into MPARRAY_FUNC_DUMP.
#[test]
#[ignore = "writes probe data"]
fn funcprobe_dump() {
    let Ok(dir) = std::env::var("MPARRAY_FUNC_DUMP") else {
        return;
    };
    let w = |name: &str, v: &[u64]| {
        let b: Vec<u8> = v.iter().flat_map(|x| x.to_le_bytes()).collect();
        std::fs::write(format!("{dir}/{name}"), b).unwrap();
    };
    w("cs9.bin", &fcuda::constants(9).unwrap());
    for (f, lo, hi) in [
        (Func::Exp, -16, 4),
        (Func::Log, -64, 64),
        (Func::Sin, -16, 8),
        (Func::Cos, -16, 8),
        (Func::Atan, -16, 16),
    ] {
        let x = FloatArray::random_exp(&Engine::Cpu, 4096, 512, 1, lo, hi).unwrap();
        let x = if f == Func::Log {
            x.abs(512, Round::Nearest).unwrap()
        } else {
            x
        };
        let h: Vec<u64> = x
            .tags()
            .unwrap()
            .iter()
            .zip(x.exps().unwrap())
            .map(|(&t, &e)| ((e as u64) << 8) | t as u64)
            .collect();
        w(&format!("{}.h", f.name()), &h);
        w(&format!("{}.l", f.name()), x.limbs().unwrap());
    }
}
