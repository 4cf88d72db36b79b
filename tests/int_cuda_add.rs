//! CUDA addition, subtraction (with carries/borrows out) and the fused
//! six-add against malachite at widths crossing every tier and window
//! threshold of src/kernels/int_add.cu, and against the CPU engine on many
//! elements. Ignored without a GPU. `MPARRAY_ADD_TIER=L,K,B` runs them on
//! another tier: L = s (striped), c (chunk), t (staged) or p (pipelined;
//! t and p change the six-add only), see src/int/cuda/add.rs.
mod common;

use common::*;
use malachite_nz::natural::Natural;
use mparray::{Engine, Fused, IntArray};

fn cuda() -> Engine {
    Engine::cuda().expect("these tests need a CUDA device")
}

/// add, sub (with and without flags) and six-add of `a`, `b` vs malachite.
fn check_adds(a: &IntArray, b: &IntArray, what: &str) {
    let m = modulus(a.bits());
    let (na, nb) = (a.to_naturals().unwrap(), b.to_naturals().unwrap());
    let (s, c) = a.overflowing_add(b).unwrap();
    let (d, br) = a.overflowing_sub(b).unwrap();
    let plain_s = a.add(b).unwrap().to_limbs().unwrap();
    let plain_d = a.sub(b).unwrap().to_limbs().unwrap();
    assert_eq!(plain_s, s.to_limbs().unwrap(), "{what}: add without flags");
    assert_eq!(plain_d, d.to_limbs().unwrap(), "{what}: sub without flags");
    let six = a.fused(b, Fused::SixAdd).unwrap().to_naturals().unwrap();
    let (ns, nd) = (s.to_naturals().unwrap(), d.to_naturals().unwrap());
    assert_eq!(
        (c.len(), br.len()),
        (na.len(), na.len()),
        "{what}: flag counts"
    );
    for i in 0..na.len() {
        let (x, y) = (&na[i], &nb[i]);
        let sum = x + y;
        assert_eq!(ns[i], &sum % &m, "{what}: add element {i}");
        assert_eq!(c[i], sum >= m, "{what}: carry element {i}");
        assert_eq!(nd[i], (x + &m - y) % &m, "{what}: sub element {i}");
        assert_eq!(br[i], x < y, "{what}: borrow element {i}");
        let want = (x * Natural::from(4u32) + y * Natural::from(3u32)) % &m;
        assert_eq!(six[i], want, "{what}: six-add element {i}");
    }
}

fn run_widths(limbs: &[usize], n_random: usize) {
    let (e, s) = (cuda(), seed());
    for &l in limbs {
        let (a, b) = operands(&e, l, n_random, s ^ l as u64);
        check_adds(&a, &b, &format!("cuda {l} limbs"));
    }
}

#[test]
#[ignore = "needs a CUDA device"]
fn cuda_add_small_widths() {
    let limbs: Vec<usize> = (1..=40).collect();
    run_widths(&limbs, 300);
}

#[test]
#[ignore = "needs a CUDA device"]
fn cuda_add_mid_widths() {
    run_widths(
        &[
            63, 64, 65, 127, 128, 129, 255, 256, 257, 511, 512, 513, 682, 683, 1000,
        ],
        40,
    );
}

#[test]
#[ignore = "needs a CUDA device"]
fn cuda_add_window_widths() {
    // Windows hold 1024 or 2048 limbs depending on the tier.
    run_widths(
        &[
            1023, 1024, 1025, 1028, 2047, 2048, 2049, 2056, 4095, 4096, 4097, 4104,
        ],
        6,
    );
}

#[test]
#[ignore = "needs a CUDA device"]
fn cuda_add_large_widths() {
    run_widths(&[6000, 8191, 8192, 8200, 12345, 16383, 16384], 3);
}

/// Carries and borrows that ripple through every limb of every element,
/// many elements per block and across windows.
#[test]
#[ignore = "needs a CUDA device"]
fn cuda_add_ripples() {
    let e = cuda();
    for &l in &[1usize, 2, 3, 8, 9, 64, 65, 2048, 2049, 5000, 16384] {
        let n = (50_000 / l).clamp(3, 300);
        let bits = 64 * l as u64;
        let mut a = Vec::new();
        let mut b = Vec::new();
        for i in 0..n {
            match i % 4 {
                // all ones + 1: carry through every limb, result 0, carry out.
                0 => {
                    a.extend(std::iter::repeat_n(u64::MAX, l));
                    b.push(1);
                    b.extend(std::iter::repeat_n(0, l - 1));
                }
                // 0 - 1: borrow through every limb.
                1 => {
                    a.extend(std::iter::repeat_n(0, l));
                    b.push(1);
                    b.extend(std::iter::repeat_n(0, l - 1));
                }
                // sum all ones exactly: propagates everywhere, no carry.
                2 => {
                    a.extend(std::iter::repeat_n(0x5555_5555_5555_5555, l));
                    b.extend(std::iter::repeat_n(0xaaaa_aaaa_aaaa_aaaa, l));
                }
                // all ones + all ones.
                _ => {
                    a.extend(std::iter::repeat_n(u64::MAX, l));
                    b.extend(std::iter::repeat_n(u64::MAX, l));
                }
            }
        }
        let ha = IntArray::from_limbs(bits, a)
            .unwrap()
            .to_engine(&e)
            .unwrap();
        let hb = IntArray::from_limbs(bits, b)
            .unwrap()
            .to_engine(&e)
            .unwrap();
        check_adds(&ha, &hb, &format!("ripples {l} limbs"));
    }
}

/// Many elements (many blocks, partial last units) against the CPU engine.
#[test]
#[ignore = "needs a CUDA device"]
fn cuda_add_many_elements_match_cpu() {
    let (e, s) = (cuda(), seed());
    for &(l, n) in &[
        (1usize, 300_001usize),
        (2, 100_003),
        (3, 77_777),
        (8, 40_001),
        (12, 9_999),
        (64, 5_003),
        (100, 3_001),
        (2048, 129),
        (3000, 77),
        (8192, 33),
    ] {
        let bits = 64 * l as u64;
        let ca = IntArray::random(&Engine::Cpu, n, bits, s ^ l as u64).unwrap();
        let cb = IntArray::random_lengths(&Engine::Cpu, n, bits, s ^ 7, 1, l).unwrap();
        let (ga, gb) = (ca.to_engine(&e).unwrap(), cb.to_engine(&e).unwrap());
        let (cs, cc) = ca.overflowing_add(&cb).unwrap();
        let (gs, gc) = ga.overflowing_add(&gb).unwrap();
        assert_eq!(
            cs.to_limbs().unwrap(),
            gs.to_limbs().unwrap(),
            "add {l} limbs"
        );
        assert_eq!(cc, gc, "carries {l} limbs");
        let (cd, cbr) = ca.overflowing_sub(&cb).unwrap();
        let (gd, gbr) = ga.overflowing_sub(&gb).unwrap();
        assert_eq!(
            cd.to_limbs().unwrap(),
            gd.to_limbs().unwrap(),
            "sub {l} limbs"
        );
        assert_eq!(cbr, gbr, "borrows {l} limbs");
        let c6 = ca.fused(&cb, Fused::SixAdd).unwrap().to_limbs().unwrap();
        let g6 = ga.fused(&gb, Fused::SixAdd).unwrap().to_limbs().unwrap();
        assert_eq!(c6, g6, "six-add {l} limbs");
    }
}

/// Six-add over more units than resident blocks (the pipelined tier's
/// blocks then walk several units, one or several windows each).
#[test]
#[ignore = "needs a CUDA device"]
fn cuda_add_six_many_units_match_cpu() {
    let (e, s) = (cuda(), seed());
    for &(l, n) in &[
        (4usize, 400_003usize),
        (8, 200_001),
        (64, 40_001),
        (1020, 3_001),
        (2048, 1_501),
        (4100, 701),
    ] {
        let bits = 64 * l as u64;
        let ca = IntArray::random(&Engine::Cpu, n, bits, s ^ l as u64).unwrap();
        let cb = IntArray::random(&Engine::Cpu, n, bits, s ^ 11).unwrap();
        let (ga, gb) = (ca.to_engine(&e).unwrap(), cb.to_engine(&e).unwrap());
        let c6 = ca.fused(&cb, Fused::SixAdd).unwrap().to_limbs().unwrap();
        let g6 = ga.fused(&gb, Fused::SixAdd).unwrap().to_limbs().unwrap();
        assert_eq!(c6, g6, "six-add {l} limbs, {n} elements");
    }
}

#[test]
#[ignore = "needs a CUDA device"]
fn cuda_add_empty_arrays() {
    let e = cuda();
    let a = IntArray::from_limbs(128, vec![])
        .unwrap()
        .to_engine(&e)
        .unwrap();
    let (s, c) = a.overflowing_add(&a).unwrap();
    assert_eq!((s.len(), c.len()), (0, 0));
    let (d, br) = a.overflowing_sub(&a).unwrap();
    assert_eq!((d.len(), br.len()), (0, 0));
    assert_eq!(a.fused(&a, Fused::SixAdd).unwrap().len(), 0);
}
