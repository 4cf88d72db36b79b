//! Integer operations on the CUDA engine against malachite, and CPU/GPU
//! agreement. Ignored without a GPU; the GPU machine runs them.
mod common;

use common::*;
use mparray::{Engine, Error, IntArray};

fn cuda() -> Engine {
    Engine::cuda().expect("these tests need a CUDA device")
}

#[test]
#[ignore = "needs a CUDA device"]
fn cuda_small_widths() {
    let (e, s) = (cuda(), seed());
    for &l in LIMBS_SMALL {
        let (a, b) = operands(&e, l, 300, s ^ l as u64);
        check_all(&a, &b, &format!("cuda {l} limbs"));
    }
}

#[test]
#[ignore = "needs a CUDA device"]
fn cuda_mid_widths() {
    let (e, s) = (cuda(), seed());
    for &l in LIMBS_MID {
        let (a, b) = operands(&e, l, 40, s ^ l as u64);
        check_all(&a, &b, &format!("cuda {l} limbs"));
    }
}

#[test]
#[ignore = "needs a CUDA device"]
fn cuda_large_widths() {
    let (e, s) = (cuda(), seed());
    for &l in LIMBS_LARGE {
        let (a, b) = operands(&e, l, 4, s ^ l as u64);
        check_all(&a, &b, &format!("cuda {l} limbs"));
    }
}

#[test]
#[ignore = "needs a CUDA device"]
fn cuda_division_random_lengths() {
    let (e, s) = (cuda(), seed());
    for &l in &[2usize, 3, 8, 33, 64, 200, 1024, 4096] {
        check_div_lengths(&e, l, 300, s ^ l as u64);
    }
}

#[test]
#[ignore = "needs a CUDA device"]
fn cuda_random_matches_cpu() {
    let (e, s) = (cuda(), seed());
    for &(l, lo, hi) in &[
        (1usize, 1usize, 1usize),
        (64, 64, 64),
        (64, 2, 32),
        (1000, 1, 1000),
    ] {
        let g = IntArray::random_lengths(&e, 777, 64 * l as u64, s, lo, hi).unwrap();
        let c = IntArray::random_lengths(&Engine::Cpu, 777, 64 * l as u64, s, lo, hi).unwrap();
        assert_eq!(
            g.to_limbs().unwrap(),
            c.to_limbs().unwrap(),
            "random {l} limbs {lo}..={hi}"
        );
    }
}

#[test]
#[ignore = "needs a CUDA device"]
fn cuda_division_by_zero_names_first_element() {
    let e = cuda();
    let a = IntArray::from_strs(128, &["5", "6", "7", "8"])
        .unwrap()
        .to_engine(&e)
        .unwrap();
    let b = IntArray::from_strs(128, &["1", "0", "3", "0"])
        .unwrap()
        .to_engine(&e)
        .unwrap();
    match a.divrem(&b) {
        Err(Error::DivisionByZero { index }) => assert_eq!(index, 1),
        other => panic!("expected division by zero, got {other:?}"),
    }
}

#[test]
#[ignore = "needs a CUDA device"]
fn cuda_mixed_engines_are_an_error() {
    let e = cuda();
    let a = IntArray::from_strs(64, &["5"]).unwrap();
    let b = a.to_engine(&e).unwrap();
    assert!(matches!(a.add(&b), Err(Error::EngineMismatch(..))));
}
