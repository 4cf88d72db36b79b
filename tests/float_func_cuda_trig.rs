//! tan, sin_cos, atan2, hypot, pow and agm on CUDA (src/kernels/
//! float_func_trig.cuh, src/float/func/cuda_func2.rs) against the CPU engine
//! (itself checked against an independent reference and MPFR): bit for bit,
//! ternary values included, every rounding mode, precisions crossing every
//! fixed-point tier edge and beyond the largest tier (CPU fallback), input
//! precisions equal to the output's or random (each argument its own),
//! specials and every special pair, tiny and huge arguments and ratios,
//! near multiples of pi/2, exact cases (Pythagorean triples, exact powers,
//! agm(x, x)).
//!
//! `funcgpu_trig_*` need a device (ignored otherwise). `funcemu_trig_*` run
//! the same per-element code compiled for the host: tan through
//! tests/emu/funcgpu/emu.cpp (MPARRAY_FUNC_EMU), the others through
//! tests/emu/functrig/emu2.cpp (MPARRAY_FUNC_EMU2); without a variable the
//! test builds the emulator with g++ (MPARRAY_NO_EMU=1 skips them). Fresh
//! seeds each run (MPARRAY_TEST_SEED replays).

use mparray::engine::CudaEngine;
use mparray::float::TernaryArray;
use mparray::float::func::cuda as fcuda;
use mparray::float::func::cuda_func2 as fcuda2;
use mparray::float::func::{Func, Func2, FuncStats};
use mparray::{Engine, FloatArray, Round};

mod common;
use common::{Raw, Rng, elem, seed};

const MODES: [Round; 5] = Round::ALL;

/// Output precisions: small ones, the bench's and each tier's edges, and
/// above the largest tier (CPU fallback).
const PRECS: &[u64] = &[
    1, 2, 53, 64, 65, 128, 129, 256, 257, 512, 513, 1024, 1025, 2048, 2060, 2100, 2500,
];

/// What is evaluated.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Op {
    Tan,
    SinCos,
    F2(Func2),
}

const OPS: [Op; 6] = [
    Op::Tan,
    Op::SinCos,
    Op::F2(Func2::Atan2),
    Op::F2(Func2::Hypot),
    Op::F2(Func2::Pow),
    Op::F2(Func2::Agm),
];

enum Dev {
    /// A CUDA engine (`Engine::Cuda`).
    Cuda(Engine),
    Emu {
        unary: Option<String>,
        binary: Option<String>,
    },
}

type Res = (
    (FloatArray, Vec<i8>),
    Option<(FloatArray, Vec<i8>)>,
    FuncStats,
);

impl Dev {
    fn cuda() -> Dev {
        let eng = CudaEngine::shared().expect("a CUDA device");
        static ONCE: std::sync::Once = std::sync::Once::new();
        ONCE.call_once(|| common::warm_kernels(&eng, fcuda::instances()));
        Dev::Cuda(Engine::Cuda(eng))
    }

    /// The emulators (named by the environment, else built with g++ by
    /// common::emulator; None when MPARRAY_NO_EMU skips them).
    fn emu(ops: &[Op]) -> Option<Dev> {
        let need1 = ops.contains(&Op::Tan);
        let need2 = ops.iter().any(|&o| o != Op::Tan);
        let path = |p: std::path::PathBuf| p.to_string_lossy().into_owned();
        let unary = if need1 {
            Some(path(common::emulator(
                "MPARRAY_FUNC_EMU",
                "tests/emu/funcgpu/emu.cpp",
            )?))
        } else {
            None
        };
        let binary = if need2 {
            Some(path(common::emulator(
                "MPARRAY_FUNC_EMU2",
                "tests/emu/functrig/emu2.cpp",
            )?))
        } else {
            None
        };
        Some(Dev::Emu { unary, binary })
    }

    /// `run` with the kernels' test-only `force` (1: the first pass calls
    /// every third written element undecided, so the device retries run;
    /// 2: every pass, so some reach the CPU engine).
    fn run_forced(
        &self,
        op: Op,
        x: &FloatArray,
        y: &FloatArray,
        p: u64,
        rnd: Round,
        force: u32,
    ) -> Res {
        let f = match op {
            Op::F2(f) => Some(f),
            _ => None,
        };
        match (self, op) {
            (Dev::Cuda(eng), Op::Tan) => {
                let dx = x.to_engine(eng).expect("upload");
                let (r, t, st) = dx
                    .func_ternary_forced(Func::Tan, p, rnd, force)
                    .expect("cuda tan");
                (on_host(eng, (r, t)), None, st)
            }
            (Dev::Cuda(eng), Op::SinCos) => {
                let dx = x.to_engine(eng).expect("upload");
                let (s, c, st) = dx
                    .sin_cos_ternary_forced(p, rnd, force)
                    .expect("cuda sin_cos");
                (on_host(eng, s), Some(on_host(eng, c)), st)
            }
            (Dev::Cuda(eng), Op::F2(f)) => {
                let dx = x.to_engine(eng).expect("upload");
                let dy = y.to_engine(eng).expect("upload");
                let (r, t, st) = dx
                    .func2_ternary_forced(&dy, f, p, rnd, force)
                    .expect("cuda func2");
                (on_host(eng, (r, t)), None, st)
            }
            (Dev::Emu { unary, .. }, Op::Tan) => {
                let exe = unary.as_deref().expect("MPARRAY_FUNC_EMU");
                let (r, t, st) = fcuda::func_emulated_forced(exe, Func::Tan, x, p, rnd, force)
                    .expect("emulated tan");
                ((r, t), None, st)
            }
            (Dev::Emu { binary, .. }, _) => {
                let exe = binary.as_deref().expect("MPARRAY_FUNC_EMU2");
                let (a, b, st) = fcuda2::func2_emulated_forced(exe, f, x, y, p, rnd, force)
                    .expect("emulated func2");
                (a, f.is_none().then_some(b), st)
            }
        }
    }
}

/// A device result (which must still be on the device `eng`) read back.
fn on_host(eng: &Engine, (r, t): (FloatArray, TernaryArray)) -> (FloatArray, Vec<i8>) {
    assert!(
        r.engine().same_as(eng) && t.engine().same_as(eng),
        "the result left the device"
    );
    (
        r.to_host().expect("download"),
        t.to_vec().expect("download"),
    )
}

/// The ternary values of a host result.
fn host_t((r, t): (FloatArray, TernaryArray)) -> (FloatArray, Vec<i8>) {
    (r, t.into_vec().unwrap())
}

/// `elem` with an exponent drawn from the same generator.
macro_rules! el {
    ($r:ident, $q:expr, $e:expr, $neg:expr) => {{
        let e = $e;
        elem($r, $q, e, $neg)
    }};
}

/// Specials: +-0, +-Inf, NaN, +-1 (k = 0..7).
fn special(q: u64, k: u64) -> Raw {
    let n = q.div_ceil(64) as usize;
    let mut one = vec![0; n];
    one[n - 1] = 1 << 63;
    match k {
        0 => (0, 0, vec![0; n]),
        1 => (4, 0, vec![0; n]),
        2 => (2, 0, vec![0; n]),
        3 => (6, 0, vec![0; n]),
        4 => (3, 0, vec![0; n]),
        5 => (1, 1, one),
        _ => (5, 1, one),
    }
}

/// An element of at most `q` bits padded to `q`'s limbs (top-aligned).
fn widen(x: &Raw, q: u64) -> Raw {
    let k = q.div_ceil(64) as usize;
    let mut m = vec![0u64; k];
    let src = &x.2;
    for i in 0..src.len().min(k) {
        m[k - 1 - i] = src[src.len() - 1 - i];
    }
    (x.0, x.1, m)
}

/// `v` rounded to `q` bits (nearest) as a raw element.
fn from_f64(q: u64, v: f64) -> Raw {
    let (a, _) = FloatArray::from_f64s(q, &[v], Round::Nearest).unwrap();
    (
        a.tags().unwrap()[0],
        a.exps().unwrap()[0],
        a.limbs().unwrap().to_vec(),
    )
}

fn array(q: u64, v: Vec<Raw>) -> FloatArray {
    let (mut t, mut e, mut l) = (Vec::new(), Vec::new(), Vec::new());
    for (a, b, c) in v {
        t.push(a);
        e.push(b);
        l.extend(c);
    }
    FloatArray::from_raw(q, t, e, l).unwrap()
}

/// `count` argument pairs for `op` at output precision `p`, precisions
/// `qx`, `qy` (y unused by tan and sin_cos).
fn inputs(op: Op, r: &mut Rng, qx: u64, qy: u64, p: u64, count: usize) -> (FloatArray, FloatArray) {
    let pe = p as i64;
    let pi = std::f64::consts::PI;
    let (mut xs, mut ys) = (Vec::new(), Vec::new());
    for _ in 0..count {
        let (nx, ny) = (r.below(2) == 0, r.below(2) == 0);
        let fam = r.below(16);
        let (x, y) = match op {
            Op::Tan | Op::SinCos => {
                let x = match fam {
                    0 => special(qx, r.below(7)),
                    1 => el!(r, qx, r.range(-3000, -pe / 2 - 70), nx),
                    2 => el!(
                        r,
                        qx,
                        r.range(-pe / 2 - 40, -pe / 2 + 3) - qx as i64 / 2,
                        nx
                    ),
                    3 => el!(r, qx, r.range(-pe - 8, -pe / 2), nx),
                    4 => el!(r, qx, r.range(20, 50), nx),
                    5..=7 if qx >= 24 => {
                        // Near multiples of pi/2 (k < 2^20).
                        let k = r.range(1, 1 << 20) as f64;
                        from_f64(qx, if nx { -k * pi / 2.0 } else { k * pi / 2.0 })
                    }
                    8 => el!(r, qx, r.range(-11, 1), nx),
                    _ => el!(r, qx, r.range(-20, 12), nx),
                };
                (x, special(qy, 0))
            }
            Op::F2(Func2::Atan2) => match fam {
                0 | 1 => (special(qx, r.below(7)), special(qy, r.below(7))),
                2 => (special(qx, r.below(7)), el!(r, qy, r.range(-20, 20), ny)),
                3 => (el!(r, qx, r.range(-20, 20), nx), special(qy, r.below(7))),
                4 => {
                    // Tiny ratio.
                    let e = r.range(-20, 20);
                    (el!(r, qx, e - r.range(8, 3000), nx), el!(r, qy, e, ny))
                }
                5 => {
                    let e = r.range(-20, 20);
                    (el!(r, qx, e + r.range(8, 3000), nx), el!(r, qy, e, ny))
                }
                6 => {
                    // |y| = |x| (maybe with other precisions), or close.
                    let x = el!(r, qx.min(qy), r.range(-20, 20), nx);
                    let mut y = widen(&x, qy);
                    y.0 = if ny { 5 } else { 1 };
                    (widen(&x, qx), y)
                }
                7 => (
                    el!(r, qx, r.range(-3, 3), nx),
                    el!(r, qy, r.range(-3, 3), ny),
                ),
                _ => {
                    let e = r.range(-20, 20);
                    (el!(r, qx, e + r.range(-12, 12), nx), el!(r, qy, e, ny))
                }
            },
            Op::F2(Func2::Hypot) => {
                let l = (p as i64 + 3).max(64 * qx.div_ceil(64).max(qy.div_ceil(64)) as i64);
                match fam {
                    0 | 1 => (special(qx, r.below(7)), special(qy, r.below(7))),
                    2 => (special(qx, r.below(7)), el!(r, qy, r.range(-20, 20), ny)),
                    3 => (el!(r, qx, r.range(-20, 20), nx), special(qy, r.below(7))),
                    4 | 5 => {
                        // Pythagorean triples and small integers, scaled.
                        let t = [
                            (3.0, 4.0),
                            (5.0, 12.0),
                            (8.0, 15.0),
                            (20.0, 21.0),
                            (1.0, 1.0),
                        ];
                        let (a, b) = if fam == 4 {
                            t[r.index(t.len())]
                        } else {
                            (r.range(1, 1000) as f64, r.range(1, 1000) as f64)
                        };
                        let s = 2f64.powi(r.range(-30, 30) as i32);
                        let (a, b) = if r.below(2) == 0 { (a, b) } else { (b, a) };
                        (
                            from_f64(qx, if nx { -a * s } else { a * s }),
                            from_f64(qy, if ny { -b * s } else { b * s }),
                        )
                    }
                    6 => {
                        // Around the far-apart edge 2 d = L + 2.
                        let d = (l + 2) / 2 + r.range(-3, 3);
                        let e = r.range(-20, 20);
                        (el!(r, qx, e, nx), el!(r, qy, e - d, ny))
                    }
                    7 => {
                        let e = r.range(-20, 20);
                        (el!(r, qx, e - r.range(0, 5000), nx), el!(r, qy, e, ny))
                    }
                    8 => (
                        el!(r, qx, r.range(-1 << 29, 1 << 29), nx),
                        el!(r, qy, r.range(-1 << 29, 1 << 29), ny),
                    ),
                    _ => {
                        let e = r.range(-20, 20);
                        (el!(r, qx, e + r.range(-16, 16), nx), el!(r, qy, e, ny))
                    }
                }
            }
            Op::F2(Func2::Pow) => match fam {
                0 | 1 => (special(qx, r.below(7)), special(qy, r.below(7))),
                2 => (special(qx, r.below(7)), el!(r, qy, r.range(-8, 8), ny)),
                3 => (el!(r, qx, r.range(-20, 20), nx), special(qy, r.below(7))),
                4 => {
                    // Integer exponents (negative bases too).
                    let n = r.range(-40, 40) as f64;
                    (el!(r, qx, r.range(-8, 8), nx), from_f64(qy, n))
                }
                5 => {
                    // Exact results: small odd parts, powers of two, roots.
                    let cases: [(f64, f64); 12] = [
                        (3.0, 2.0),
                        (5.0, 3.0),
                        (9.0, 0.5),
                        (4.0, 1.5),
                        (2.0, -1.0),
                        (0.25, 0.5),
                        (1024.0, -0.1),
                        (8.0, 1.0 / 3.0),
                        (6.25, 0.5),
                        (7.0, 5.0),
                        (2.0, 10.0),
                        (0.5, -7.0),
                    ];
                    let (a, b) = cases[r.index(cases.len())];
                    let s = 2f64.powi(2 * r.range(-8, 8) as i32);
                    let a = if b.fract() == 0.0 { a * s } else { a };
                    (
                        from_f64(qx, if nx && b.fract() == 0.0 { -a } else { a }),
                        from_f64(qy, b),
                    )
                }
                6 => {
                    // Near one, big exponents, overflow and underflow.
                    let k = r.range(1, 2 * pe + 8);
                    let mut x = el!(r, qx, 1, false);
                    let n = x.2.len();
                    for b in 1..(k as usize).min(64 * n) {
                        let pos = 64 * n - 1 - b;
                        x.2[pos / 64] &= !(1u64 << (pos % 64));
                    }
                    (x, el!(r, qy, r.range(-4, 30), ny))
                }
                7 => (
                    el!(r, qx, r.range(-3000, 3000), false),
                    el!(r, qy, r.range(0, 26), ny),
                ),
                8 => (
                    el!(r, qx, r.range(-16, 16), nx),
                    el!(r, qy, r.range(-4, 4), ny),
                ),
                _ => (
                    el!(r, qx, r.range(-16, 16), false),
                    el!(r, qy, r.range(-6, 6), ny),
                ),
            },
            Op::F2(Func2::Agm) => match fam {
                0 | 1 => (special(qx, r.below(7)), special(qy, r.below(7))),
                2 => (special(qx, r.below(7)), el!(r, qy, r.range(-20, 20), ny)),
                3 => (el!(r, qx, r.range(-20, 20), false), special(qy, r.below(7))),
                4 => {
                    // Equal values (other precisions too).
                    let v = r.range(1, 1 << 20) as f64 / 64.0;
                    (from_f64(qx, v), from_f64(qy, v))
                }
                5 => (
                    el!(r, qx, r.range(-20, 20), nx),
                    el!(r, qy, r.range(-20, 20), ny),
                ),
                6 => {
                    let e = r.range(-20, 20);
                    (
                        el!(r, qx, e, false),
                        el!(r, qy, e - r.range(30, 200), false),
                    )
                }
                7 => (
                    el!(r, qx, r.range(-1 << 29, 1 << 29), false),
                    el!(r, qy, r.range(-1 << 29, 1 << 29), false),
                ),
                8 => {
                    let e = r.range(-20, 20);
                    (el!(r, qx, e, false), el!(r, qy, e, false))
                }
                _ => (
                    el!(r, qx, r.range(-16, 16), false),
                    el!(r, qy, r.range(-16, 16), false),
                ),
            },
        };
        xs.push(x);
        ys.push(y);
    }
    (array(qx, xs), array(qy, ys))
}

fn same(a: &FloatArray, b: &FloatArray, i: usize) -> bool {
    let (x, y) = (a.get(i).unwrap(), b.get(i).unwrap());
    x.class == y.class && x.neg == y.neg && x.exp == y.exp && x.limbs == y.limbs
}

/// Compares with the CPU engine; returns the device's statistics.
fn check(dev: &Dev, op: Op, x: &FloatArray, y: &FloatArray, p: u64, rnd: Round) -> FuncStats {
    check_forced(dev, op, x, y, p, rnd, 0)
}

/// `check` with the test-only `force` of `Dev::run_forced`.
fn check_forced(
    dev: &Dev,
    op: Op,
    x: &FloatArray,
    y: &FloatArray,
    p: u64,
    rnd: Round,
    force: u32,
) -> FuncStats {
    let ((r, t), r2, st) = dev.run_forced(op, x, y, p, rnd, force);
    let ((c, tc), c2) = match op {
        Op::Tan => {
            let (c, tc, _) = x.func_ternary(Func::Tan, p, rnd).unwrap();
            (host_t((c, tc)), None)
        }
        Op::SinCos => {
            let (s, c, _) = x.sin_cos_ternary(p, rnd).unwrap();
            (host_t(s), Some(host_t(c)))
        }
        Op::F2(f) => {
            let (c, tc, _) = x.func2_ternary(y, f, p, rnd).unwrap();
            (host_t((c, tc)), None)
        }
    };
    let mut outs = vec![(&r, &t, &c, &tc, "first")];
    if let (Some((r2, t2)), Some((c2, tc2))) = (&r2, &c2) {
        outs.push((r2, t2, c2, tc2, "second"));
    }
    assert_eq!(r2.is_some(), c2.is_some(), "{op:?}: outputs");
    for (r, t, c, tc, which) in outs {
        assert_eq!(r.len(), x.len());
        assert_eq!(t.len(), x.len());
        for i in 0..x.len() {
            assert!(
                same(r, c, i) && t[i] == tc[i],
                "{op:?} ({which} output) p={p} {rnd:?} element {i}: x = {} (prec {}), y = {} \
                 (prec {}): device {} ternary {}, cpu {} ternary {}",
                x.to_hex_strings().unwrap()[i],
                x.prec(),
                y.to_hex_strings().unwrap()[i],
                y.prec(),
                r.to_hex_strings().unwrap()[i],
                t[i],
                c.to_hex_strings().unwrap()[i],
                tc[i]
            );
        }
    }
    st
}

fn random_all(dev: &Dev, ops: &[Op], count: usize, precs: &[u64]) {
    let mut r = Rng(seed());
    let (mut total, mut retried) = (0u64, 0u64);
    for &p in precs {
        for &op in ops {
            for rnd in MODES {
                let mut q = || {
                    if r.below(3) == 0 {
                        1 + r.below(p + 64)
                    } else {
                        p
                    }
                };
                let (qx, qy) = (q(), q());
                let (x, y) = inputs(op, &mut r, qx, qy, p, count);
                let st = check(dev, op, &x, &y, p, rnd);
                if std::env::var("FUNC_DEBUG").is_ok() {
                    eprintln!(
                        "{op:?} p={p} qx={qx} qy={qy} {rnd:?}: {}/{}",
                        st.retried, st.elements
                    );
                }
                total += st.elements;
                retried += st.retried;
            }
        }
    }
    eprintln!("{total} elements, {retried} evaluated on the host");
}

/// `op` alone on its emulator (the per-op tests below).
fn emu_random(op: Op) {
    if let Some(dev) = Dev::emu(&[op]) {
        random_all(&dev, &[op], 48, PRECS);
    }
}

#[test]
fn funcemu_trig_tan() {
    emu_random(Op::Tan);
}

#[test]
fn funcemu_trig_sin_cos() {
    emu_random(Op::SinCos);
}

#[test]
fn funcemu_trig_atan2() {
    emu_random(Op::F2(Func2::Atan2));
}

#[test]
fn funcemu_trig_hypot() {
    emu_random(Op::F2(Func2::Hypot));
}

#[test]
fn funcemu_trig_pow() {
    emu_random(Op::F2(Func2::Pow));
}

#[test]
fn funcemu_trig_agm() {
    emu_random(Op::F2(Func2::Agm));
}

#[test]
#[ignore = "needs a CUDA device"]
fn funcgpu_trig_random() {
    random_all(&Dev::cuda(), &OPS, 96, PRECS);
}

/// The retry path of the two-argument kernel (as float_func_cuda.rs's
/// retry_all for the one-argument one): `force` 1 makes the first pass call
/// every third written element undecided, so they are gathered (both
/// arguments), re-run at the next tier and scattered back (both outputs of
/// sin_cos); `force` 2 does so at every retry tier, so some reach the CPU
/// engine. Bits and ternary values against the CPU, and the statistics.
fn retry_all(dev: &Dev, ops: &[Op], count: usize, precs: &[u64]) {
    let mut r = Rng(seed());
    for &p in precs {
        for &op in ops {
            for force in [1, 2] {
                let rnd = MODES[r.below(5) as usize];
                let mut q = || {
                    if r.below(2) == 0 {
                        p
                    } else {
                        1 + r.below(p + 64)
                    }
                };
                let (qx, qy) = (q(), q());
                let (x, y) = inputs(op, &mut r, qx, qy, p, count);
                let st = check_forced(dev, op, &x, &y, p, rnd, force);
                let (nx, ny) = (x.limbs_per_element(), y.limbs_per_element());
                let k = match op {
                    Op::Tan => fcuda::tier_of(fcuda::device_code(Func::Tan).unwrap(), p, nx),
                    Op::SinCos => fcuda::tier(p, nx),
                    Op::F2(_) => fcuda::tier(p, nx.max(ny)),
                };
                let Some(k) = k else {
                    assert_eq!(st.host, st.elements, "{op:?} p={p}: {st:?}");
                    continue;
                };
                assert_eq!(st.elements, count as u64);
                assert_eq!(st.retried, st.device_retried + st.host, "{st:?}");
                // Every third element is forced or flagged anyway.
                assert!(st.retried >= (count as u64).div_ceil(3), "{op:?} {st:?}");
                let last = fcuda::retry_tiers(k).count();
                if force == 1 && last > 0 {
                    assert!(st.device_retried > 0, "{op:?} p={p}: {st:?}");
                }
                if force == 2 || last == 0 {
                    assert!(st.host > 0, "{op:?} p={p}: {st:?}");
                }
            }
        }
    }
}

#[test]
fn funcemu_trig_retry() {
    let ops = [
        Op::SinCos,
        Op::F2(Func2::Atan2),
        Op::F2(Func2::Hypot),
        Op::F2(Func2::Pow),
        Op::F2(Func2::Agm),
    ];
    if let Some(dev) = Dev::emu(&ops) {
        retry_all(&dev, &ops, 60, &[53, 128, 512, 2048, 2100]);
    }
}

#[test]
#[ignore = "needs a CUDA device"]
fn funcgpu_trig_retry() {
    retry_all(&Dev::cuda(), &OPS, 150, &[53, 128, 512, 1024, 2048, 2100]);
}

/// The bench's arguments (src/bench/func.rs): the share sent to the host
/// must be tiny.
fn bench_like(dev: &Dev, ops: &[Op], precs: &[u64], len: usize) {
    for &p in precs {
        for &op in ops {
            let s = seed();
            let cpu = Engine::Cpu;
            let x = FloatArray::random_exp(&cpu, len, p, s, -16, 16).unwrap();
            let y = FloatArray::random_exp(&cpu, len, p, s ^ 0x5eed, -16, 16).unwrap();
            let (x, y) = match op {
                Op::Tan | Op::SinCos => {
                    (FloatArray::random_exp(&cpu, len, p, s, -16, 8).unwrap(), y)
                }
                Op::F2(Func2::Pow) => (
                    x.abs(p, Round::Nearest).unwrap(),
                    FloatArray::random_exp(&cpu, len, p, s ^ 0x5eed, -4, 4).unwrap(),
                ),
                Op::F2(Func2::Agm) => (
                    x.abs(p, Round::Nearest).unwrap(),
                    y.abs(p, Round::Nearest).unwrap(),
                ),
                _ => (x, y),
            };
            let st = check(dev, op, &x, &y, p, Round::Nearest);
            assert!(
                st.retried * 100 <= st.elements,
                "{op:?} at {p}: {} of {} on the host",
                st.retried,
                st.elements
            );
        }
    }
}

#[test]
fn funcemu_trig_bench_like() {
    let ops = [
        Op::SinCos,
        Op::F2(Func2::Atan2),
        Op::F2(Func2::Hypot),
        Op::F2(Func2::Pow),
        Op::F2(Func2::Agm),
    ];
    if let Some(dev) = Dev::emu(&ops) {
        bench_like(&dev, &ops, &[128, 512, 2048], 100);
    }
    if let Some(dev) = Dev::emu(&[Op::Tan]) {
        bench_like(&dev, &[Op::Tan], &[128, 512, 2048], 100);
    }
}

#[test]
#[ignore = "needs a CUDA device"]
fn funcgpu_trig_bench_like() {
    bench_like(&Dev::cuda(), &OPS, &[128, 256, 512, 1024, 2048], 2000);
}

/// The device-resident API: sin_cos, func2 chained on the device, pow_si,
/// empty arrays and a length mismatch.
#[test]
#[ignore = "needs a CUDA device"]
fn funcgpu_trig_api() {
    let Dev::Cuda(eng) = Dev::cuda() else {
        unreachable!()
    };
    let cpu = Engine::Cpu;
    let x = FloatArray::random_exp(&cpu, 300, 256, seed(), -4, 6).unwrap();
    let y = FloatArray::random_exp(&cpu, 300, 200, seed(), -4, 6).unwrap();
    let (dx, dy) = (x.to_engine(&eng).unwrap(), y.to_engine(&eng).unwrap());
    let (s, c, _) = dx.sin_cos_ternary(300, Round::Up).unwrap();
    let (ws, wc, _) = x.sin_cos_ternary(300, Round::Up).unwrap();
    assert!(s.0.engine().same_as(&eng) && c.0.engine().same_as(&eng));
    assert_eq!(s.0.to_host().unwrap(), ws.0);
    assert_eq!(c.0.to_host().unwrap(), wc.0);
    assert_eq!(s.1.to_vec().unwrap(), ws.1.to_vec().unwrap());
    assert_eq!(c.1.to_vec().unwrap(), wc.1.to_vec().unwrap());
    // hypot(atan2(x, y), y) on the device.
    let a = dx.func2(&dy, Func2::Atan2, 280, Round::Zero).unwrap();
    assert!(a.engine().same_as(&eng));
    let h = a.func2(&dy, Func2::Hypot, 256, Round::Down).unwrap();
    assert!(h.engine().same_as(&eng));
    let h = h.to_host().unwrap();
    let want = x
        .func2(&y, Func2::Atan2, 280, Round::Zero)
        .unwrap()
        .func2(&y, Func2::Hypot, 256, Round::Down)
        .unwrap();
    assert_eq!(h, want);
    // pow_si.
    let n: Vec<i64> = (0..300).map(|i| (i as i64 % 41) - 20).collect();
    let (r, t, _) = dx.pow_si_ternary(&n, 256, Round::Nearest).unwrap();
    let (wr, wt, _) = x.pow_si_ternary(&n, 256, Round::Nearest).unwrap();
    assert!(r.engine().same_as(&eng) && t.engine().same_as(&eng));
    assert_eq!(r.to_host().unwrap(), wr);
    assert_eq!(t.to_vec().unwrap()[..300], wt.to_vec().unwrap()[..]);
    // Empty arrays, a length mismatch.
    let z = FloatArray::zeros(&eng, 0, 64).unwrap();
    assert_eq!(
        z.func2(&z, Func2::Pow, 64, Round::Nearest).unwrap().len(),
        0
    );
    assert_eq!(z.sin_cos_ternary(64, Round::Nearest).unwrap().0.0.len(), 0);
    assert!(dx.func2(&z, Func2::Hypot, 64, Round::Nearest).is_err());
}

/// With MPARRAY_TRIG_PRECOMPILE=dir: compiles every function-kernel tier
/// with NVRTC for sm_90 (no device needed) into the kernel cache `dir`,
/// failing on any warning, all at once on every core; a device run can then
/// carry `dir` as MPARRAY_CACHE_DIR and skip NVRTC (MPARRAY_TRIG_TIERS
/// restricts the tiers).
#[test]
#[ignore = "a tool, not a check: needs MPARRAY_TRIG_PRECOMPILE (CI compiles every kernel with `mparray kernels compile`)"]
fn funcnvrtc_trig_precompile() {
    let Ok(dir) = std::env::var("MPARRAY_TRIG_PRECOMPILE") else {
        return; // the tool was not asked for
    };
    let dir = std::path::PathBuf::from(dir);
    // MPARRAY_TRIG_TIERS=3,5,...: only those tiers.
    let only = std::env::var("MPARRAY_TRIG_TIERS").ok();
    std::thread::scope(|s| {
        for i in fcuda::instances() {
            if let Some(o) = &only
                && !o.split(',').any(|k| i.key().ends_with(&format!("={k}")))
            {
                continue;
            }
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
                eprintln!(
                    "{}: {:.1} s, {} bytes",
                    i.key(),
                    t.elapsed().as_secs_f64(),
                    c.cubin.len()
                );
            });
        }
    });
}
