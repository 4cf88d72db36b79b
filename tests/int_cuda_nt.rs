//! Number theory on CUDA against malachite (issue 20): the checks of
//! tests/int_nt.rs on the device, at widths from 64 bits to 2^20 bits for
//! the simple operations. Ignored without a GPU; run with
//! `--include-ignored cuda_nt_`.
mod common;
#[path = "common/nt.rs"]
mod nt;

use common::{Rng, seed};
use mparray::Engine;

fn cuda() -> Engine {
    Engine::cuda().expect("these tests need a CUDA device")
}

const LIMBS: &[usize] = &[
    1, 2, 3, 4, 5, 8, 16, 17, 31, 32, 33, 64, 65, 128, 512, 1024, 4097,
];

fn each(f: fn(&Engine, usize, &mut Rng), limbs: &[usize]) {
    let e = cuda();
    let mut rng = Rng(seed());
    for &l in limbs {
        f(&e, l, &mut rng);
    }
}

#[test]
#[ignore = "needs a CUDA device"]
fn cuda_nt_cmp_logic_counts() {
    each(nt::check_cmp_logic, LIMBS);
    each(nt::check_cmp_logic, &[16384]);
}

#[test]
#[ignore = "needs a CUDA device"]
fn cuda_nt_shifts() {
    each(nt::check_shifts, LIMBS);
    each(nt::check_shifts, &[16384]);
}

#[test]
#[ignore = "needs a CUDA device"]
fn cuda_nt_isqrt() {
    each(
        nt::check_isqrt,
        &[1, 2, 3, 4, 5, 8, 16, 17, 32, 33, 64, 65, 128, 257, 1024],
    );
}

#[test]
#[ignore = "needs a CUDA device"]
fn cuda_nt_gcd_and_gcd_ext() {
    each(nt::check_gcd, &[1, 2, 3, 4, 8, 16, 32, 33, 64]);
}

#[test]
#[ignore = "needs a CUDA device"]
fn cuda_nt_modinv() {
    each(nt::check_modinv, &[1, 2, 3, 4, 8, 16, 32, 33, 64]);
}

#[test]
#[ignore = "needs a CUDA device"]
fn cuda_nt_powm() {
    each(nt::check_powm, &[1, 2, 3, 4, 8, 16, 32, 64]);
}

#[test]
#[ignore = "needs a CUDA device"]
fn cuda_nt_montgomery() {
    each(nt::check_montgomery, &[1, 2, 3, 4, 8, 16, 32, 33, 64]);
}

#[test]
#[ignore = "needs a CUDA device"]
fn cuda_nt_prime() {
    each(nt::check_prime, &[1, 2, 3, 4, 8, 16, 32]);
}

#[test]
#[ignore = "needs a CUDA device"]
fn cuda_nt_shapes_and_empty() {
    nt::check_shapes(&cuda());
}
