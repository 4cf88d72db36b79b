//! Integer operations on the CPU engine against malachite.
mod common;

use common::*;
use mparray::{Engine, Error, IntArray};

#[test]
fn small_widths() {
    let s = seed();
    for &l in LIMBS_SMALL {
        let (a, b) = operands(&Engine::Cpu, l, 200, s ^ l as u64);
        check_all(&a, &b, &format!("cpu {l} limbs"));
    }
}

#[test]
fn mid_widths() {
    let s = seed();
    for &l in LIMBS_MID {
        let (a, b) = operands(&Engine::Cpu, l, 20, s ^ l as u64);
        check_all(&a, &b, &format!("cpu {l} limbs"));
    }
}

#[test]
fn large_widths() {
    let s = seed();
    for &l in LIMBS_LARGE {
        let (a, b) = operands(&Engine::Cpu, l, 2, s ^ l as u64);
        check_all(&a, &b, &format!("cpu {l} limbs"));
    }
}

#[test]
fn division_random_lengths() {
    let s = seed();
    for &l in &[2usize, 3, 8, 33, 64, 200, 1024] {
        check_div_lengths(&Engine::Cpu, l, 300, s ^ l as u64);
    }
}

#[test]
fn division_by_zero_names_first_element() {
    let a = IntArray::from_strs(128, &["5", "6", "7", "8"]).unwrap();
    let b = IntArray::from_strs(128, &["1", "2", "0", "0"]).unwrap();
    match a.divrem(&b) {
        Err(Error::DivisionByZero { index }) => assert_eq!(index, 2),
        other => panic!("expected division by zero, got {other:?}"),
    }
}
