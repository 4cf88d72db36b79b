//! Random float arrays generated on CUDA against the CPU engine's
//! generators, bit for bit (the same seed gives the same array on both).
//! Needs a device (ignored otherwise). Fresh seeds each run (printed;
//! MPARRAY_TEST_SEED replays).

use std::sync::Arc;

use mparray::engine::CudaEngine;
use mparray::float::cuda::{CudaFloatArray, MAX_CUDA_PREC};
use mparray::float::{EMAX, EMIN};
use mparray::{FloatArray, Round};

mod common;
use common::{Rng, seed};

/// Every limb-count class, the top of the device range and the precisions
/// where `random_uniform` switches to the host (`prec + 64 > 16384`).
const PRECS: &[u64] = &[
    1, 2, 3, 53, 63, 64, 65, 127, 128, 129, 500, 512, 1000, 1024, 2049, 4096, 16320, 16321, 16384,
];
const LENS: &[usize] = &[0, 1, 7, 1000, 4097];

fn eng() -> Arc<CudaEngine> {
    let eng = CudaEngine::shared().expect("a CUDA device");
    static ONCE: std::sync::Once = std::sync::Once::new();
    ONCE.call_once(|| common::warm_kernels(&eng, mparray::float::cuda::instances()));
    eng
}

fn same(dev: &CudaFloatArray, cpu: &FloatArray, what: &str) {
    let got = dev.to_host().expect("download");
    assert_eq!(got.len(), cpu.len(), "{what}: length");
    assert_eq!(got.prec(), cpu.prec(), "{what}: precision");
    for i in 0..cpu.len() {
        assert!(
            got.tags()[i] == cpu.tags()[i]
                && got.exps()[i] == cpu.exps()[i]
                && got.get(i).limbs == cpu.get(i).limbs,
            "{what}: element {i} differs: cuda {:?} cpu {:?}",
            got.to_hex_strings()[i],
            cpu.to_hex_strings()[i],
        );
    }
}

#[test]
#[ignore = "needs a CUDA device"]
fn floatgpu_random_unit_and_exp_match_cpu() {
    let eng = eng();
    let mut rng = Rng(seed());
    for &p in PRECS {
        for &len in LENS {
            let s = rng.next();
            let what = format!("random_unit p={p} len={len} seed={s}");
            let dev = CudaFloatArray::random_unit(&eng, len, p, s).expect(&what);
            same(&dev, &FloatArray::random_unit(len, p, s).unwrap(), &what);
            for (lo, hi) in [(EMIN, EMAX), (-5, 5), (7, 7), (EMAX - 1, EMAX)] {
                let what = format!("random_exp p={p} len={len} seed={s} {lo}..={hi}");
                let dev = CudaFloatArray::random_exp(&eng, len, p, s, lo, hi).expect(&what);
                same(
                    &dev,
                    &FloatArray::random_exp(len, p, s, lo, hi).unwrap(),
                    &what,
                );
            }
        }
    }
    // Small precisions draw zeros (p = 1: half the elements).
    let z = CudaFloatArray::random_unit(&eng, 64, 1, 3)
        .unwrap()
        .to_host()
        .unwrap();
    assert!(z.tags().contains(&0) && z.tags().contains(&1));
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
            let dev = CudaFloatArray::random_uniform(&eng, len, p, s, lo, hi, rnd).expect(&what);
            let cpu = FloatArray::random_uniform(len, p, s, lo, hi, rnd).unwrap();
            same(&dev, &cpu, &what);
        }
    }
}

#[test]
#[ignore = "needs a CUDA device"]
fn floatgpu_random_bad_arguments_are_errors() {
    let eng = eng();
    assert!(CudaFloatArray::random_exp(&eng, 4, 64, 1, 5, 4).is_err());
    assert!(CudaFloatArray::random_exp(&eng, 4, 64, 1, EMIN - 1, 0).is_err());
    assert!(CudaFloatArray::random_uniform(&eng, 4, 64, 1, 1.0, 1.0, Round::Nearest).is_err());
    assert!(CudaFloatArray::random_uniform(&eng, 4, 64, 1, 0.0, f64::NAN, Round::Nearest).is_err());
    assert!(CudaFloatArray::random_unit(&eng, 4, MAX_CUDA_PREC + 1, 1).is_err());
    assert!(CudaFloatArray::random_unit(&eng, 4, 0, 1).is_err());
}
