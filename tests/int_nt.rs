//! Number theory on the CPU engine against malachite (issue 20): every
//! operation of src/int/nt.rs on random inputs and edge cases at widths
//! from 64 to 4160 bits. The same checks run on CUDA in tests/int_cuda_nt.rs.
mod common;
#[path = "common/nt.rs"]
mod nt;

use common::{Rng, seed};
use mparray::Engine;

const LIMBS: &[usize] = &[1, 2, 3, 4, 5, 8, 16, 17, 32, 65];

fn each(f: fn(&Engine, usize, &mut Rng), limbs: &[usize]) {
    let mut rng = Rng(seed());
    for &l in limbs {
        f(&Engine::Cpu, l, &mut rng);
    }
}

#[test]
fn nt_cmp_logic_counts() {
    each(nt::check_cmp_logic, LIMBS);
}

#[test]
fn nt_shifts() {
    each(nt::check_shifts, LIMBS);
}

#[test]
fn nt_isqrt() {
    each(nt::check_isqrt, LIMBS);
}

#[test]
fn nt_gcd_and_gcd_ext() {
    each(nt::check_gcd, LIMBS);
}

#[test]
fn nt_modinv() {
    each(nt::check_modinv, LIMBS);
}

#[test]
fn nt_powm() {
    each(nt::check_powm, &[1, 2, 3, 4, 8, 16, 32]);
}

#[test]
fn nt_montgomery() {
    each(nt::check_montgomery, LIMBS);
}

#[test]
fn nt_prime() {
    each(nt::check_prime, &[1, 2, 3, 4, 8, 16, 32]);
}

#[test]
fn nt_shapes_and_empty() {
    nt::check_shapes(&Engine::Cpu);
}
