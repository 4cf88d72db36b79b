//! CUDA multiplication (`mul`, `mul_wide`, fused poly) against malachite at
//! widths crossing every tier threshold of `int_mul.cu`: band widths 4/8/16
//! (up to 8, 32 and 2046 words), the NTT from 2048 words with 1, 2, 4, 8 and
//! 16 cosets, widths that are not powers of two, edge values (all-ones
//! operands, carries through every limb) and several instance chunks. Ignored
//! without a GPU.
mod common;

use common::*;
use malachite_nz::natural::Natural;
use mparray::{Engine, Fused, IntArray};

fn cuda() -> Engine {
    Engine::cuda().expect("these tests need a CUDA device")
}

fn nats(a: &IntArray) -> Vec<Natural> {
    a.to_naturals().unwrap()
}

/// mul, mul_wide (where the product fits) and poly of a and b vs malachite.
fn check_mul(a: &IntArray, b: &IntArray, what: &str) {
    let bits = a.bits();
    let m = modulus(bits);
    let (na, nb) = (nats(a), nats(b));
    let p = nats(&a.mul(b).unwrap());
    for i in 0..na.len() {
        assert_eq!(p[i], (&na[i] * &nb[i]) % &m, "{what}: mul element {i}");
    }
    if 2 * bits <= mparray::int::MAX_BITS {
        let w = nats(&a.mul_wide(b).unwrap());
        for i in 0..na.len() {
            assert_eq!(w[i], &na[i] * &nb[i], "{what}: mul_wide element {i}");
        }
    }
    let poly = nats(&a.fused(b, Fused::Poly).unwrap());
    for i in 0..na.len() {
        let (x, y) = (&na[i], &nb[i]);
        let want = ((x * x + y) % &m * ((y * y + y) % &m) + x * y) % &m;
        assert_eq!(poly[i], want, "{what}: poly element {i}");
    }
}

fn run(limbs: &[usize], n_random: usize) {
    let (e, s) = (cuda(), seed());
    for &l in limbs {
        let (a, b) = operands(&e, l, n_random, s ^ l as u64);
        check_mul(&a, &b, &format!("cuda {l} limbs"));
    }
}

#[test]
#[ignore = "needs a CUDA device"]
fn cuda_mul_band_small() {
    // Band width 4 up to 4 limbs, 8 up to 16 limbs; many instances per block.
    run(&[1, 2, 3, 4, 5, 7, 8, 9, 15, 16], 700);
}

#[test]
#[ignore = "needs a CUDA device"]
fn cuda_mul_band_mid() {
    run(&[17, 31, 32, 33, 50, 64, 65, 100, 127, 128], 200);
}

#[test]
#[ignore = "needs a CUDA device"]
fn cuda_mul_band_large() {
    // Up to the last band width below the NTT (1023 limbs = 2046 words).
    run(&[129, 255, 256, 257, 500, 511, 512, 513, 1000, 1023], 30);
}

#[test]
#[ignore = "needs a CUDA device"]
fn cuda_mul_ntt() {
    // 1024: one coset; 1025, 2048: two; 2500, 4096: four; 5000, 8192: eight;
    // 12000, 16384: sixteen (mul_wide only up to 8192).
    run(&[1024, 1025, 2048, 2500, 4096, 5000, 8192, 12000, 16384], 3);
}

#[test]
#[ignore = "needs a CUDA device"]
fn cuda_mul_ntt_chunks() {
    // 2^20-bit poly runs 227 instances per chunk: three chunks here.
    let (e, s) = (cuda(), seed());
    let l = 16384;
    let a = IntArray::random(&e, 460, 64 * l as u64, s).unwrap();
    let b = IntArray::random(&e, 460, 64 * l as u64, s ^ 7).unwrap();
    let m = modulus(a.bits());
    let (na, nb) = (nats(&a), nats(&b));
    let poly = nats(&a.fused(&b, Fused::Poly).unwrap());
    for i in 0..na.len() {
        let (x, y) = (&na[i], &nb[i]);
        let want = ((x * x + y) % &m * ((y * y + y) % &m) + x * y) % &m;
        assert_eq!(poly[i], want, "poly {l} limbs element {i}");
    }
}

#[test]
#[ignore = "needs a CUDA device"]
fn cuda_mul_all_ones_and_empty() {
    let e = cuda();
    for l in [1usize, 8, 16, 64, 1023, 1024, 4096, 16384] {
        let ones = IntArray::from_limbs(64 * l as u64, vec![u64::MAX; 3 * l])
            .unwrap()
            .to_engine(&e)
            .unwrap();
        check_mul(&ones, &ones, &format!("all ones {l} limbs"));
        let empty = IntArray::from_limbs(64 * l as u64, vec![])
            .unwrap()
            .to_engine(&e)
            .unwrap();
        assert_eq!(empty.mul(&empty).unwrap().len(), 0);
        assert_eq!(empty.fused(&empty, Fused::Poly).unwrap().len(), 0);
    }
}
