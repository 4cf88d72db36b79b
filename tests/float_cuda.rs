//! Float arrays on CUDA against the CPU engine (bit for bit, ternary values
//! included) and against malachite-float: every operation, every rounding
//! mode, precisions 1..16384 around every kernel tier threshold, mixed
//! precisions, special values, ties, carries, overflow and underflow.
//!
//! The `floatgpu_*` tests need a device (ignored otherwise). The
//! `floatemu_*` tests run the very same per-element kernel code compiled
//! for the host (tests/emu/floatgpu/emu.cpp: the binary MPARRAY_FLOAT_EMU
//! names, else built with g++ by the test; MPARRAY_NO_EMU=1 skips them).
//! Fresh seeds each run (printed; MPARRAY_TEST_SEED replays).

use std::cmp::Ordering;
use std::sync::Arc;

use mparray::engine::CudaEngine;
use mparray::float::cuda::{self, DevOp, MAX_CUDA_PREC};
use mparray::float::func::Func2;
use mparray::float::{self, EMAX, EMIN, FloatOp, TernaryArray};
use mparray::{Engine, Error, FloatArray, Round};

mod common;
use common::float_dev::{self, Dev, El, array, cancel_pairs, cpu, emu_run, every_tuple, same};
use common::{Rng, seed};

/// The precision classes and every tier threshold (limbs 1, 2, 3, 4, 6, 8,
/// 12, 16, 32, 64, 128, 256).
const PRECS: &[u64] = &[
    1, 2, 3, 53, 63, 64, 65, 127, 128, 129, 191, 192, 193, 255, 256, 257, 383, 384, 385, 500, 511,
    512, 513, 767, 768, 769, 1000, 1023, 1024, 1025, 2047, 2048, 2049, 4096, 4097, 8192, 8193,
    16384,
];

const OPS: &[DevOp] = &[
    DevOp::Add,
    DevOp::Sub,
    DevOp::Mul,
    DevOp::Div,
    DevOp::Sqrt,
    DevOp::Fma,
    DevOp::Fms,
    DevOp::Neg,
    DevOp::Abs,
    DevOp::SetPrec,
    DevOp::Mul2si(3),
    DevOp::Mul2si(-1_000_000_007),
    DevOp::Min,
    DevOp::Max,
];

/// Compiles every float kernel instantiation into the disk cache, all at
/// once on every core (the engine compiles one module at a time).
fn warm(eng: &Arc<CudaEngine>) {
    static ONCE: std::sync::Once = std::sync::Once::new();
    ONCE.call_once(|| common::warm_kernels(eng, cuda::instances()));
}

impl Dev {
    fn cuda() -> Dev {
        let eng = CudaEngine::shared().expect("a CUDA device");
        warm(&eng);
        Dev::Cuda(Engine::Cuda(eng))
    }

    fn emu() -> Option<Dev> {
        common::emulator("MPARRAY_FLOAT_EMU", "tests/emu/floatgpu/emu.cpp")
            .map(|p| Dev::Emu(p.to_string_lossy().into_owned(), None))
    }

    fn cmp(&self, a: &FloatArray, b: &FloatArray) -> Vec<Option<Ordering>> {
        match self {
            Dev::Cuda(eng) => a
                .to_engine(eng)
                .unwrap()
                .cmp(&b.to_engine(eng).unwrap())
                .unwrap(),
            Dev::Emu(path, gs) => {
                let (_, t) = emu_run(path, *gs, 13, DevOp::Add, &[a, b], a.prec(), Round::Nearest);
                t.into_iter()
                    .map(|c| match c {
                        -1 => Some(Ordering::Less),
                        0 => Some(Ordering::Equal),
                        1 => Some(Ordering::Greater),
                        _ => None,
                    })
                    .collect()
            }
        }
    }
}

fn mantissa(r: &mut Rng, p: u64) -> Vec<u64> {
    let n = float::limbs_for_prec(p);
    let low = 64 * n as u64 - p;
    let mut m: Vec<u64> = match r.below(9) {
        0 => vec![u64::MAX; n],
        8 => {
            // Sparse: the top and the last bit and one more (a sticky bit
            // far below the rest).
            let mut v = vec![0; n];
            v[0] = 1 << low;
            let b = r.below(64 * n as u64);
            v[(b / 64) as usize] |= 1 << (b % 64);
            v
        }
        1 => {
            let mut v = vec![0; n];
            v[n - 1] = 1 << 63;
            v
        }
        2 | 3 => {
            // Random top bits, then a run of zeros or ones (ties, carries,
            // near-cancellation).
            let cut = r.below(64 * n as u64);
            let ones = r.below(2) == 1;
            (0..n)
                .map(|i| {
                    let v = r.next();
                    let lo = 64 * i as u64;
                    if lo + 64 <= cut {
                        if ones { u64::MAX } else { 0 }
                    } else if lo >= cut {
                        v
                    } else {
                        let b = (cut - lo) as u32;
                        let mask = (1u64 << b) - 1;
                        (v & !mask) | if ones { mask } else { 0 }
                    }
                })
                .collect()
        }
        _ => (0..n).map(|_| r.next()).collect(),
    };
    m[n - 1] |= 1 << 63;
    if low > 0 {
        m[0] &= !((1u64 << low) - 1);
    }
    m
}

fn special(r: &mut Rng, n: usize) -> El {
    let t = match r.below(5) {
        0 => 3,
        1 => 2,
        2 => 6,
        3 => 0,
        _ => 4,
    };
    (t, 0, vec![0; n])
}

/// An element with exponent near `e0` (or anywhere, or at the range's
/// ends), sometimes special.
fn element(r: &mut Rng, p: u64, e0: i64) -> El {
    let n = float::limbs_for_prec(p);
    if r.below(16) == 0 {
        return special(r, n);
    }
    let e = match r.below(12) {
        0 => r.range(-20, 20),
        1 => EMIN + r.range(0, 3),
        2 => EMAX - r.range(0, 3),
        3 => e0 - p as i64 + r.range(-2, 2),
        4 => e0 - r.range(0, 5000),
        5 => e0 + r.range(-70, 70),
        6 => -e0 + r.range(-2, 2),
        _ => e0 + r.range(-2, 2),
    }
    .clamp(EMIN, EMAX);
    let neg = r.below(2) == 1;
    (1 | if neg { 4 } else { 0 }, e, mantissa(r, p))
}

/// Operands of `len` elements with precisions `ps` drawn by [`element`].
fn operands(r: &mut Rng, len: usize, ps: &[u64]) -> Vec<FloatArray> {
    float_dev::operands(r, len, ps, element)
}

/// Every op, mode and precision class against the CPU engine.
fn all_ops(dev: &Dev, seed: u64, big: bool) {
    let mut r = Rng(seed);
    for &p in PRECS {
        if !big && p > 4096 {
            continue;
        }
        let len = if p > 4096 {
            24
        } else if p > 1024 {
            64
        } else {
            192
        };
        for &op in OPS {
            for rnd in Round::ALL {
                // Equal precisions, or mixed ones drawn from the list.
                let mixed = r.below(3) == 0;
                let pick = |r: &mut Rng| {
                    if mixed {
                        PRECS[r.below(PRECS.len() as u64) as usize].min(if big {
                            16384
                        } else {
                            4096
                        })
                    } else {
                        p
                    }
                };
                let ps: Vec<u64> = (0..op.arity()).map(|_| pick(&mut r)).collect();
                let xs = operands(&mut r, len, &ps);
                let args: Vec<&FloatArray> = xs.iter().collect();
                let got = dev.run(op, &args, p, rnd);
                let want = cpu(op, &args, p, rnd);
                same(&format!("{op:?} p={p} {ps:?} {rnd:?}"), &got, &want, &args);
            }
        }
    }
}

/// Every pair (triple for fma/fms) of special and boundary values.
fn specials(dev: &Dev) {
    for &p in &[1u64, 53, 64, 65, 200, 1000] {
        let n = float::limbs_for_prec(p);
        let one = {
            let mut m = vec![0; n];
            m[n - 1] = 1 << 63;
            m
        };
        let ones = mantissa(&mut Rng(1), p)
            .iter()
            .map(|_| u64::MAX)
            .collect::<Vec<_>>();
        let mut ones = ones;
        if 64 * n as u64 > p {
            ones[0] &= !((1u64 << (64 * n as u64 - p)) - 1);
        }
        let mut vals: Vec<El> = vec![(3, 0, vec![0; n]), (2, 0, vec![0; n]), (6, 0, vec![0; n])];
        vals.push((0, 0, vec![0; n]));
        vals.push((4, 0, vec![0; n]));
        for neg in [0u8, 4] {
            vals.push((1 | neg, 1, one.clone()));
            vals.push((1 | neg, 1, ones.clone()));
            vals.push((1 | neg, EMIN, one.clone()));
            vals.push((1 | neg, EMIN, ones.clone()));
            vals.push((1 | neg, EMAX, ones.clone()));
            vals.push((1 | neg, EMAX, one.clone()));
            vals.push((1 | neg, -7, ones.clone()));
        }
        every_tuple(dev, OPS, &vals, p);
        let k = vals.len();
        let all = array(p, (0..k * k).map(|i| vals[i % k].clone()).collect());
        let all2 = array(p, (0..k * k).map(|i| vals[i / k].clone()).collect());
        assert_eq!(dev.cmp(&all, &all2), all.cmp(&all2).unwrap(), "cmp p={p}");
    }
}

/// A sample of device results against malachite-float directly.
fn against_malachite(dev: &Dev, seed: u64) {
    let mut r = Rng(seed ^ 0x1234);
    for &p in &[1u64, 2, 53, 63, 64, 65, 127, 128, 129, 500, 1000, 4096] {
        for rnd in Round::ALL {
            let xs = operands(&mut r, 48, &[p, p, p]);
            float_dev::against_malachite(dev, &xs, p, rnd);
        }
    }
}

/// The register paths of equal precisions (tiers 1..16 limbs) and their
/// thresholds: near-cancelling sums (same or adjacent exponents, low limbs
/// perturbed), sparse operands, products of short mantissas (exact products
/// whose low limbs are zero: the short product's fallback), squares of
/// short mantissas (exact roots), next to their mixed-precision
/// counterparts (generic code), every mode, against the CPU engine.
fn fast_paths(dev: &Dev, seed: u64) {
    let mut r = Rng(seed ^ 0xfa57);
    let precs = [
        1u64, 40, 64, 65, 100, 128, 129, 150, 192, 193, 256, 257, 300, 384, 385, 500, 512, 513,
        700, 768, 769, 1000, 1024, 1025,
    ];
    let len = 256;
    for &p in &precs {
        let n = float::limbs_for_prec(p);
        let low = 64 * n as u64 - p;
        let mask = |m: &mut Vec<u64>| {
            if low > 0 {
                m[0] &= !((1u64 << low) - 1);
            }
            m[n - 1] |= 1 << 63;
        };
        for rnd in Round::ALL {
            // Near-cancelling pairs.
            let (x, y) = cancel_pairs(&mut r, p, len, element, mantissa);
            for op in [DevOp::Add, DevOp::Sub] {
                let got = dev.run(op, &[&x, &y], p, rnd);
                let want = cpu(op, &[&x, &y], p, rnd);
                same(
                    &format!("fast {op:?} p={p} {rnd:?}"),
                    &got,
                    &want,
                    &[&x, &y],
                );
            }
            // Short mantissas: exact products, and their squares.
            let short = |r: &mut Rng| {
                let half = (p / 2).max(1);
                let mut els = Vec::new();
                for _ in 0..len {
                    let mut m = vec![0u64; n];
                    for b in 0..half.min(64) {
                        if r.below(2) == 1 {
                            let pos = 64 * n as u64 - 1 - r.below(half) - b % 2;
                            m[(pos / 64) as usize] |= 1 << (pos % 64);
                        }
                    }
                    mask(&mut m);
                    els.push((1 | (r.below(2) as u8 * 4), r.range(-20, 20), m));
                }
                array(p, els)
            };
            let a = short(&mut r);
            let b = short(&mut r);
            let got = dev.run(DevOp::Mul, &[&a, &b], p, rnd);
            let want = cpu(DevOp::Mul, &[&a, &b], p, rnd);
            same(
                &format!("fast Mul short p={p} {rnd:?}"),
                &got,
                &want,
                &[&a, &b],
            );
            let sq = a.abs_ternary(p, rnd).unwrap().0;
            let sq = sq.mul_ternary(&sq, p, Round::Zero).unwrap().0;
            for q in [p, p + 1] {
                let got = dev.run(DevOp::Sqrt, &[&sq], q, rnd);
                let want = cpu(DevOp::Sqrt, &[&sq], q, rnd);
                same(
                    &format!("fast Sqrt squares p={p}->{q} {rnd:?}"),
                    &got,
                    &want,
                    &[&sq],
                );
            }
            // Products and roots of general operands at p and mixed.
            let xs = operands(&mut r, len, &[p, p]);
            for (op, args) in [
                (DevOp::Mul, vec![&xs[0], &xs[1]]),
                (DevOp::Sqrt, vec![&xs[0]]),
                (DevOp::Sub, vec![&xs[0], &xs[1]]),
            ] {
                for q in [p, p + 64] {
                    let got = dev.run(op, &args, q, rnd);
                    let want = cpu(op, &args, q, rnd);
                    same(
                        &format!("fast {op:?} p={p}->{q} {rnd:?}"),
                        &got,
                        &want,
                        &args,
                    );
                }
            }
        }
    }
}

#[test]
#[ignore = "needs a CUDA device"]
fn floatgpu_fast_paths() {
    fast_paths(&Dev::cuda(), seed());
}

#[test]
fn floatemu_fast_paths() {
    if let Some(d) = Dev::emu() {
        fast_paths(&d, seed());
    }
}

#[test]
#[ignore = "needs a CUDA device"]
fn floatgpu_all_ops_vs_cpu() {
    all_ops(&Dev::cuda(), seed(), true);
}

#[test]
#[ignore = "needs a CUDA device"]
fn floatgpu_specials_every_pair() {
    specials(&Dev::cuda());
}

#[test]
#[ignore = "needs a CUDA device"]
fn floatgpu_against_malachite() {
    against_malachite(&Dev::cuda(), seed());
}

#[test]
#[ignore = "needs a CUDA device"]
fn floatgpu_device_resident_and_errors() {
    let Dev::Cuda(eng) = Dev::cuda() else {
        unreachable!()
    };
    let mut r = Rng(seed());
    let xs = operands(&mut r, 1000, &[512, 512, 512]);
    let d: Vec<_> = xs.iter().map(|x| x.to_engine(&eng).unwrap()).collect();
    // A chain stays on the device: (x*y + z) - x, then back.
    let (m, _) = d[0].fma_ternary(&d[1], &d[2], 512, Round::Nearest).unwrap();
    let (s, t) = m.sub_ternary(&d[0], 300, Round::Up).unwrap();
    assert!(m.engine().same_as(&eng) && s.engine().same_as(&eng) && t.engine().same_as(&eng));
    let want_m = xs[0].fma(&xs[1], &xs[2], 512, Round::Nearest).unwrap();
    let want = want_m.sub_ternary(&xs[0], 300, Round::Up).unwrap();
    assert!(s.to_host().unwrap() == want.0);
    let t = t.to_vec().unwrap();
    assert_eq!(t.len(), 1000);
    assert_eq!(t, want.1.to_vec().unwrap());
    // Round trip, empty arrays, and errors as values.
    assert!(d[0].to_host().unwrap() == xs[0]);
    let e = FloatArray::zeros(&eng, 0, 64).unwrap();
    let (re, te) = e.add_ternary(&e, 64, Round::Zero).unwrap();
    assert!(re.is_empty() && te.is_empty() && te.to_vec().unwrap().is_empty());
    // Precisions above MAX_CUDA_PREC (operands or destination) are served
    // by the CPU engine on CUDA arrays: the CPU engine's bits, on the device.
    let cpu_eng = Engine::Cpu;
    let s0 = r.next();
    let big = FloatArray::random_exp(&cpu_eng, 2, MAX_CUDA_PREC + 1, s0, -10, 10).unwrap();
    let dbig = big.to_engine(&eng).unwrap();
    assert!(dbig.engine().same_as(&eng) && dbig.prec() == MAX_CUDA_PREC + 1);
    assert!(dbig.to_host().unwrap() == big);
    let drawn = FloatArray::random_exp(&eng, 2, MAX_CUDA_PREC + 1, s0, -10, 10).unwrap();
    assert!(drawn.engine().same_as(&eng) && drawn.to_host().unwrap() == big);
    let small = operands(&mut r, 2, &[64, 64]);
    let dsmall: Vec<_> = small.iter().map(|x| x.to_engine(&eng).unwrap()).collect();
    let fallback =
        |what: &str, (g, gt): (FloatArray, TernaryArray), w: (FloatArray, TernaryArray)| {
            assert!(
                g.engine().same_as(&eng) && gt.engine().same_as(&eng),
                "{what}: engine"
            );
            assert!(
                g.to_host().unwrap() == w.0 && gt.to_vec().unwrap() == w.1.to_vec().unwrap(),
                "{what}: CUDA fallback differs from the CPU engine"
            );
        };
    for rnd in Round::ALL {
        // Wide operands into a wide destination, into a small one, and
        // small operands into a wide destination.
        for q in [MAX_CUDA_PREC + 1, 64] {
            fallback(
                &format!("big add ->{q} {rnd:?}"),
                dbig.add_ternary(&dbig, q, rnd).unwrap(),
                big.add_ternary(&big, q, rnd).unwrap(),
            );
            fallback(
                &format!("big sqrt ->{q} {rnd:?}"),
                dbig.abs(q, rnd).unwrap().sqrt_ternary(q, rnd).unwrap(),
                big.abs(q, rnd).unwrap().sqrt_ternary(q, rnd).unwrap(),
            );
        }
        fallback(
            &format!("small add ->{} {rnd:?}", MAX_CUDA_PREC + 1),
            dsmall[0]
                .add_ternary(&dsmall[1], MAX_CUDA_PREC + 1, rnd)
                .unwrap(),
            small[0]
                .add_ternary(&small[1], MAX_CUDA_PREC + 1, rnd)
                .unwrap(),
        );
        fallback(
            &format!("small div ->{} {rnd:?}", MAX_CUDA_PREC + 1),
            dsmall[0]
                .div_ternary(&dsmall[1], MAX_CUDA_PREC + 1, rnd)
                .unwrap(),
            small[0]
                .div_ternary(&small[1], MAX_CUDA_PREC + 1, rnd)
                .unwrap(),
        );
    }
    let other = FloatArray::zeros(&eng, 3, 64).unwrap();
    assert!(dsmall[0].add_ternary(&other, 64, Round::Zero).is_err());
}

/// An operation with operands on different engines (the CPU and CUDA) is
/// an `Error::EngineMismatch`, whichever operand is where, not a panic.
#[test]
#[ignore = "needs a CUDA device"]
fn floatgpu_mixed_engines_are_errors() {
    let Dev::Cuda(eng) = Dev::cuda() else {
        unreachable!()
    };
    let mut r = Rng(seed());
    let xs = operands(&mut r, 16, &[128, 128]);
    let (h, hy) = (&xs[0], &xs[1]);
    let (d, dy) = (h.to_engine(&eng).unwrap(), hy.to_engine(&eng).unwrap());
    let mismatch = |what: &str, res: mparray::Result<FloatArray>| match res {
        Err(Error::EngineMismatch(..)) => {}
        Err(e) => panic!("{what}: {e:?}, not EngineMismatch"),
        Ok(a) => panic!("{what}: {a:?}, not EngineMismatch"),
    };
    let p = 128;
    let rnd = Round::Nearest;
    for (a, b, which) in [(h, &dy, "cpu, cuda"), (&d, hy, "cuda, cpu")] {
        mismatch(&format!("add({which})"), a.add(b, p, rnd));
        mismatch(&format!("sub({which})"), a.sub(b, p, rnd));
        mismatch(&format!("mul({which})"), a.mul(b, p, rnd));
        mismatch(&format!("div({which})"), a.div(b, p, rnd));
        mismatch(&format!("min({which})"), a.min(b, p, rnd));
        mismatch(&format!("fma({which})"), a.fma(b, b, p, rnd));
        mismatch(&format!("fms({which})"), a.fms(a, b, p, rnd));
        mismatch(&format!("pow({which})"), a.pow(b, p, rnd));
        mismatch(&format!("atan2({which})"), a.func2(b, Func2::Atan2, p, rnd));
        assert!(
            matches!(a.cmp(b), Err(Error::EngineMismatch(..))),
            "cmp({which})"
        );
        // Above MAX_CUDA_PREC (the CPU fallback path) too.
        mismatch(
            &format!("add({which}) ->{}", MAX_CUDA_PREC + 1),
            a.add(b, MAX_CUDA_PREC + 1, rnd),
        );
    }
    // op_into: an operand, or the destination, on the other engine.
    let mut out = FloatArray::zeros(&eng, 16, p).unwrap();
    assert!(matches!(
        h.op_into(FloatOp::Add, &[&dy], &mut out, rnd, None),
        Err(Error::EngineMismatch(..))
    ));
    assert!(matches!(
        h.op_into(FloatOp::Add, &[hy], &mut out, rnd, None),
        Err(Error::EngineMismatch(..))
    ));
    assert!(matches!(
        d.op_into(FloatOp::Add, &[hy], &mut out, rnd, None),
        Err(Error::EngineMismatch(..))
    ));
    let mut host_out = FloatArray::zeros(&Engine::Cpu, 16, p).unwrap();
    let mut dev_t = TernaryArray::zeros(&eng, 16).unwrap();
    assert!(matches!(
        h.op_into(FloatOp::Add, &[hy], &mut host_out, rnd, Some(&mut dev_t)),
        Err(Error::EngineMismatch(..))
    ));
}

#[test]
fn floatemu_all_ops_vs_cpu() {
    if let Some(d) = Dev::emu() {
        all_ops(&d, seed(), std::env::var("MPARRAY_FLOAT_EMU_BIG").is_ok());
    }
}

/// Every op with the result written over an operand of another limb count
/// (longer, shorter, equal), as the expression kernels' slots do: the
/// same bits as the CPU engine.
#[test]
fn floatemu_in_place_vs_cpu() {
    if let Some(d) = Dev::emu() {
        float_dev::in_place(|| {
            all_ops(&d, seed(), false);
            specials(&d);
        });
    }
}

#[test]
fn floatemu_specials_every_pair() {
    if let Some(d) = Dev::emu() {
        specials(&d);
    }
}

#[test]
fn floatemu_against_malachite() {
    if let Some(d) = Dev::emu() {
        against_malachite(&d, seed());
    }
}
