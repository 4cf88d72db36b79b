//! Random float arrays generated on CUDA against the CPU engine's
//! generators, bit for bit (the same seed gives the same array on both).
//! Needs a device (ignored otherwise). Fresh seeds each run (printed;
//! MPARRAY_TEST_SEED replays).

use mparray::engine::CudaEngine;
use mparray::float::cuda::MAX_CUDA_PREC;
use mparray::float::{EMAX, EMIN};
use mparray::{Engine, FloatArray, Round};

mod common;
use common::{Rng, seed};

/// Every limb-count class, the top of the device range and the precisions
/// where `random_uniform` switches to the host (`prec + 64 > 16384`).
const PRECS: &[u64] = &[
    1, 2, 3, 53, 63, 64, 65, 127, 128, 129, 500, 512, 1000, 1024, 2049, 4096, 16320, 16321, 16384,
];
const LENS: &[usize] = &[0, 1, 7, 1000, 4097];

/// The CUDA engine, with the float kernels compiled.
fn eng() -> Engine {
    let eng = CudaEngine::shared().expect("a CUDA device");
    static ONCE: std::sync::Once = std::sync::Once::new();
    ONCE.call_once(|| common::warm_kernels(&eng, mparray::float::cuda::instances()));
    Engine::Cuda(eng)
}

/// `dev` (drawn on CUDA, and still there) against `cpu` (drawn on the CPU
/// engine), element by element.
fn same(dev: &FloatArray, cpu: &FloatArray, what: &str) {
    assert!(dev.engine().is_cuda(), "{what}: not on the device");
    assert!(!cpu.engine().is_cuda(), "{what}: not on the host");
    let got = dev.to_host().expect("download");
    assert_eq!(got.len(), cpu.len(), "{what}: length");
    assert_eq!(got.prec(), cpu.prec(), "{what}: precision");
    let (gt, ge) = (got.tags().unwrap(), got.exps().unwrap());
    let (ct, ce) = (cpu.tags().unwrap(), cpu.exps().unwrap());
    for i in 0..cpu.len() {
        assert!(
            gt[i] == ct[i]
                && ge[i] == ce[i]
                && got.get(i).unwrap().limbs == cpu.get(i).unwrap().limbs,
            "{what}: element {i} differs: cuda {:?} cpu {:?}",
            got.to_hex_strings().unwrap()[i],
            cpu.to_hex_strings().unwrap()[i],
        );
    }
}

const CPU: Engine = Engine::Cpu;

#[test]
#[ignore = "needs a CUDA device"]
fn floatgpu_random_unit_and_exp_match_cpu() {
    let eng = eng();
    let mut rng = Rng(seed());
    for &p in PRECS {
        for &len in LENS {
            let s = rng.next();
            let what = format!("random_unit p={p} len={len} seed={s}");
            let dev = FloatArray::random_unit(&eng, len, p, s).expect(&what);
            same(
                &dev,
                &FloatArray::random_unit(&CPU, len, p, s).unwrap(),
                &what,
            );
            for (lo, hi) in [(EMIN, EMAX), (-5, 5), (7, 7), (EMAX - 1, EMAX)] {
                let what = format!("random_exp p={p} len={len} seed={s} {lo}..={hi}");
                let dev = FloatArray::random_exp(&eng, len, p, s, lo, hi).expect(&what);
                same(
                    &dev,
                    &FloatArray::random_exp(&CPU, len, p, s, lo, hi).unwrap(),
                    &what,
                );
            }
        }
    }
    // Small precisions draw zeros (p = 1: half the elements).
    let z = FloatArray::random_unit(&eng, 64, 1, 3)
        .unwrap()
        .to_host()
        .unwrap();
    let zt = z.tags().unwrap();
    assert!(zt.contains(&0) && zt.contains(&1));
}

#[test]
#[ignore = "needs a CUDA device"]
fn floatgpu_random_uniform_matches_cpu() {
    let eng = eng();
    let mut rng = Rng(seed());
    let modes = [
        Round::Nearest,
        Round::Zero,
        Round::Up,
        Round::Down,
        Round::Away,
    ];
    let ranges = [
        (0.0, 1.0),
        (-3.5, 1e10),
        (1e-300, 1e300),
        (-1.0, -0.75),
        (5e-324, 1e-323),
    ];
    for &p in PRECS {
        for &(lo, hi) in &ranges {
            let (s, len, rnd) = (rng.next(), rng.pick(LENS), rng.pick(&modes));
            let what = format!("random_uniform p={p} len={len} seed={s} [{lo}, {hi}) {rnd:?}");
            let dev = FloatArray::random_uniform(&eng, len, p, s, lo, hi, rnd).expect(&what);
            let cpu = FloatArray::random_uniform(&CPU, len, p, s, lo, hi, rnd).unwrap();
            same(&dev, &cpu, &what);
        }
    }
}

#[test]
#[ignore = "needs a CUDA device"]
fn floatgpu_random_bad_arguments_are_errors() {
    let eng = eng();
    assert!(FloatArray::random_exp(&eng, 4, 64, 1, 5, 4).is_err());
    assert!(FloatArray::random_exp(&eng, 4, 64, 1, EMIN - 1, 0).is_err());
    assert!(FloatArray::random_uniform(&eng, 4, 64, 1, 1.0, 1.0, Round::Nearest).is_err());
    assert!(FloatArray::random_uniform(&eng, 4, 64, 1, 0.0, f64::NAN, Round::Nearest).is_err());
    assert!(FloatArray::random_unit(&eng, 4, 0, 1).is_err());
}

/// Precisions above MAX_CUDA_PREC are drawn by the CPU engine and placed
/// on the device: the CPU engine's bits.
#[test]
#[ignore = "needs a CUDA device"]
fn floatgpu_random_above_max_prec_is_cpu_bits() {
    let eng = eng();
    let mut rng = Rng(seed());
    for p in [MAX_CUDA_PREC + 1, MAX_CUDA_PREC + 64, 2 * MAX_CUDA_PREC] {
        for len in [0, 1, 5] {
            let s = rng.next();
            let what = format!("random_unit p={p} len={len} seed={s}");
            let dev = FloatArray::random_unit(&eng, len, p, s).expect(&what);
            same(
                &dev,
                &FloatArray::random_unit(&CPU, len, p, s).unwrap(),
                &what,
            );
            let what = format!("random_exp p={p} len={len} seed={s}");
            let dev = FloatArray::random_exp(&eng, len, p, s, -5, 5).expect(&what);
            same(
                &dev,
                &FloatArray::random_exp(&CPU, len, p, s, -5, 5).unwrap(),
                &what,
            );
            let what = format!("random_uniform p={p} len={len} seed={s}");
            let dev =
                FloatArray::random_uniform(&eng, len, p, s, -3.5, 1e10, Round::Up).expect(&what);
            let cpu = FloatArray::random_uniform(&CPU, len, p, s, -3.5, 1e10, Round::Up).unwrap();
            same(&dev, &cpu, &what);
        }
    }
}
