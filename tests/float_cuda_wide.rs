//! The group-per-element float kernels (src/kernels/float_wide.cu: add,
//! sub, mul, fma, fms, div, sqrt from 17 limbs up) against the CPU engine (bit for
//! bit, ternary values included) and malachite-float: precisions around
//! every threshold (1024/1025: the register kernels' end; 2048/2049,
//! 4096/4097: the group sizes 8/16/32; up to 16384), every rounding mode,
//! mixed precisions (small operands into wide destinations and the
//! reverse), special values, ties, carries to the next power of two,
//! near-total cancellation (sums and fma with z = -x*y rounded), the
//! exponent range's ends.
//!
//! `floatwidegpu_*` need a device (ignored otherwise). `floatwideemu_*` run
//! the same group code on the host (tests/emu/floatwide/wemu.cpp, built
//! with g++: the lanes of a group one after the other between the
//! collectives): the binary MPARRAY_FLOATWIDE_EMU names, else built with
//! g++ by the test; MPARRAY_NO_EMU=1 skips them. Fresh seeds each run
//! (MPARRAY_TEST_SEED replays).

use mparray::engine::CudaEngine;
use mparray::float::cuda::{self, DevOp};
use mparray::float::{self, EMAX, EMIN};
use mparray::{Engine, FloatArray, Round};

mod common;
use common::float_dev::{self, Dev, El, array, cancel_pairs, cpu, every_tuple, same};
use common::{Rng, seed};

/// Around every threshold of the wide kernels.
const PRECS: &[u64] = &[
    1024, 1025, 1088, 1089, 1500, 2047, 2048, 2049, 3000, 4095, 4096, 4097, 6000, 8191, 8192, 8193,
    12000, 16383, 16384,
];

/// Operand precisions for the mixed cases.
const MIXED: &[u64] = &[
    1, 2, 53, 64, 65, 128, 500, 1000, 1024, 1025, 1100, 2048, 2049, 4096, 8192, 16384,
];

const OPS: &[DevOp] = &[
    DevOp::Add,
    DevOp::Sub,
    DevOp::Mul,
    DevOp::Div,
    DevOp::Sqrt,
    DevOp::Fma,
    DevOp::Fms,
];

impl Dev {
    fn cuda() -> Dev {
        // Division and square root take the group kernel by default only
        // from 24 and 57 limbs: every test of this binary asks for it from
        // 17 limbs.
        // SAFETY: every test here sets the same values; nothing reads the
        // environment concurrently except the library's kernel choice.
        unsafe {
            std::env::set_var("MPARRAY_FLOAT_WIDE_DIV", "1");
            std::env::set_var("MPARRAY_FLOAT_WIDE_SQRT", "1");
        }
        let eng = CudaEngine::shared().expect("a CUDA device");
        static ONCE: std::sync::Once = std::sync::Once::new();
        // Every case here takes float_wide: compile only that module.
        ONCE.call_once(|| {
            let wide = cuda::instances()
                .into_iter()
                .filter(|i| i.source.name == "float_wide")
                .collect();
            common::warm_kernels(&eng, wide)
        });
        Dev::Cuda(Engine::Cuda(eng))
    }

    fn emu(gs: Option<u32>) -> Option<Dev> {
        common::emulator("MPARRAY_FLOATWIDE_EMU", "tests/emu/floatwide/wemu.cpp")
            .map(|p| Dev::Emu(p.to_string_lossy().into_owned(), gs))
    }
}

fn trim(m: &mut [u64], p: u64) {
    let n = m.len();
    let low = 64 * n as u64 - p;
    m[n - 1] |= 1 << 63;
    if low > 0 {
        m[0] &= !((1u64 << low) - 1);
    }
}

/// Random limbs, all ones, a power of two, sparse bits, or random top bits
/// then a run of zeros or ones (ties, carries, cancellation).
fn mantissa(r: &mut Rng, p: u64) -> Vec<u64> {
    let n = float::limbs_for_prec(p);
    let low = 64 * n as u64 - p;
    let mut m: Vec<u64> = match r.below(9) {
        0 => vec![u64::MAX; n],
        1 => vec![0; n],
        8 => {
            let mut v = vec![0; n];
            v[0] = 1 << low;
            let b = r.below(64 * n as u64);
            v[(b / 64) as usize] |= 1 << (b % 64);
            v
        }
        2 | 3 => {
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
    trim(&mut m, p);
    m
}

fn element(r: &mut Rng, p: u64, e0: i64) -> El {
    let n = float::limbs_for_prec(p);
    if r.below(16) == 0 {
        let t = [3u8, 2, 6, 0, 4][r.index(5)];
        return (t, 0, vec![0; n]);
    }
    let e = match r.below(12) {
        0 => r.range(-20, 20),
        1 => EMIN + r.range(0, 3),
        2 => EMAX - r.range(0, 3),
        3 => e0 - p as i64 + r.range(-2, 2),
        4 => e0 - r.range(0, 40000),
        5 => e0 + r.range(-70, 70),
        6 => -e0 + r.range(-2, 2),
        _ => e0 + r.range(-2, 2),
    }
    .clamp(EMIN, EMAX);
    (1 | if r.below(2) == 1 { 4 } else { 0 }, e, mantissa(r, p))
}

/// Operands of `len` elements with precisions `ps` drawn by [`element`].
fn operands(r: &mut Rng, len: usize, ps: &[u64]) -> Vec<FloatArray> {
    float_dev::operands(r, len, ps, element)
}

fn len_for(p: u64) -> usize {
    if p > 4096 {
        10
    } else if p > 2048 {
        24
    } else {
        48
    }
}

/// Every op and mode at every precision, equal or mixed operand precisions.
fn all_ops(dev: &Dev, seed: u64, precs: &[u64]) {
    let mut r = Rng(seed);
    for &p in precs {
        let len = len_for(p);
        for &op in OPS {
            for rnd in Round::ALL {
                let mixed = r.below(3) == 0;
                let ps: Vec<u64> = (0..op.arity())
                    .map(|_| if mixed { r.pick(MIXED) } else { p })
                    .collect();
                let xs = operands(&mut r, len, &ps);
                let args: Vec<&FloatArray> = xs.iter().collect();
                let got = dev.run(op, &args, p, rnd);
                let want = cpu(op, &args, p, rnd);
                same(&format!("{op:?} p={p} {ps:?} {rnd:?}"), &got, &want, &args);
            }
        }
    }
}

/// Wide operands into small destinations and the reverse.
fn mixed_dest(dev: &Dev, seed: u64) {
    let mut r = Rng(seed ^ 0x77);
    for &(px, q) in &[
        (2048u64, 1u64),
        (2048, 64),
        (4096, 100),
        (1100, 1025),
        (16384, 2048),
        (64, 2048),
        (1, 4096),
        (1024, 16384),
    ] {
        for &op in OPS {
            for rnd in Round::ALL {
                let ps: Vec<u64> = (0..op.arity())
                    .map(|_| if r.below(2) == 0 { px } else { r.pick(MIXED) })
                    .collect();
                let xs = operands(&mut r, 16, &ps);
                let args: Vec<&FloatArray> = xs.iter().collect();
                let got = dev.run(op, &args, q, rnd);
                let want = cpu(op, &args, q, rnd);
                same(&format!("{op:?} {ps:?}->{q} {rnd:?}"), &got, &want, &args);
            }
        }
    }
}

/// Near-cancelling sums, exact products of short mantissas (ties and
/// carries decided by the last bit), fma with z = -(x*y rounded): the
/// cancellation leaves only the product's low part.
fn hard_cases(dev: &Dev, seed: u64) {
    let mut r = Rng(seed ^ 0xca5e);
    for &p in &[1025u64, 1088, 2048, 2049, 4096, 8192, 16384] {
        let n = float::limbs_for_prec(p);
        let len = len_for(p);
        for rnd in Round::ALL {
            let (x, y) = cancel_pairs(&mut r, p, len, element, mantissa);
            for op in [DevOp::Add, DevOp::Sub] {
                let got = dev.run(op, &[&x, &y], p, rnd);
                let want = cpu(op, &[&x, &y], p, rnd);
                same(
                    &format!("cancel {op:?} p={p} {rnd:?}"),
                    &got,
                    &want,
                    &[&x, &y],
                );
            }
            // Short mantissas: exact products (p / 2 random bits each).
            let short = |r: &mut Rng| {
                let half = (p / 2).max(1);
                let els = (0..len)
                    .map(|_| {
                        let mut m = vec![0u64; n];
                        for _ in 0..half.min(96) {
                            let pos = 64 * n as u64 - 1 - r.below(half);
                            m[(pos / 64) as usize] |= 1 << (pos % 64);
                        }
                        trim(&mut m, p);
                        (1 | (r.below(2) as u8 * 4), r.range(-20, 20), m)
                    })
                    .collect();
                array(p, els)
            };
            let a = short(&mut r);
            let b = short(&mut r);
            for q in [p, p / 2, p / 2 + 1] {
                let got = dev.run(DevOp::Mul, &[&a, &b], q, rnd);
                let want = cpu(DevOp::Mul, &[&a, &b], q, rnd);
                same(
                    &format!("short mul p={p}->{q} {rnd:?}"),
                    &got,
                    &want,
                    &[&a, &b],
                );
            }
            // Exact roots (squares of short mantissas), to p and p + 1.
            let aa = a.abs_ternary(p, rnd).unwrap().0;
            let sq = aa.mul_ternary(&aa, p, Round::Zero).unwrap().0;
            for q in [p, p + 1, p / 2] {
                // The device's largest precision is 16384 bits.
                let q = q.min(16384);
                let got = dev.run(DevOp::Sqrt, &[&sq], q, rnd);
                let want = cpu(DevOp::Sqrt, &[&sq], q, rnd);
                same(
                    &format!("exact sqrt p={p}->{q} {rnd:?}"),
                    &got,
                    &want,
                    &[&sq],
                );
            }
            // Exact quotients (a*b exact at p, divided by a: remainder 0),
            // rounded to p, p/2 (ties and carries) and p/2 + 1.
            let ab = a.mul_ternary(&b, p, Round::Zero).unwrap().0;
            for q in [p, p / 2, p / 2 + 1] {
                let got = dev.run(DevOp::Div, &[&ab, &a], q, rnd);
                let want = cpu(DevOp::Div, &[&ab, &a], q, rnd);
                same(
                    &format!("exact div p={p}->{q} {rnd:?}"),
                    &got,
                    &want,
                    &[&ab, &a],
                );
            }
            // fma(x, y, -(x*y)) and fms(x, y, x*y) rounded to p and 2p.
            let xs = operands(&mut r, len, &[p, p]);
            for q in [p, 2 * p] {
                let q = q.min(16384);
                let xy = xs[0].mul_ternary(&xs[1], q, rnd).unwrap().0;
                let nxy = xy.neg_ternary(q, Round::Nearest).unwrap().0;
                for (op, z) in [(DevOp::Fma, &nxy), (DevOp::Fms, &xy)] {
                    let args = [&xs[0], &xs[1], z];
                    let got = dev.run(op, &args, p, rnd);
                    let want = cpu(op, &args, p, rnd);
                    same(
                        &format!("cancel {op:?} p={p} z@{q} {rnd:?}"),
                        &got,
                        &want,
                        &args,
                    );
                }
            }
        }
    }
}

/// Division and square root at every limb count where the group
/// division's shape changes (fw_divreg<B>: gs lanes of B divisor limbs,
/// gs * B >= the divisor's limbs: 8, 16, 24, 32, 48, 64, 96, 128, 192, 256
/// and one above; the root's divisor has n + 1 limbs): random operands
/// (mixed precisions too), exact ties (a quotient or root of q + 1 bits
/// ending in 1, rounded to q) and carries to the next power of two (all
/// ones), every mode. On the device the destinations are of 17 limbs or
/// more (smaller ones would take, and compile, the thread kernels).
fn div_sqrt_shapes(dev: &Dev, seed: u64) {
    let mut r = Rng(seed ^ 0xd1d1);
    let min_q = if matches!(dev, Dev::Cuda(_)) { 1025 } else { 1 };
    const LIMBS: &[u64] = &[
        1, 2, 8, 9, 16, 17, 24, 25, 32, 33, 48, 49, 64, 65, 96, 97, 128, 129, 192, 193, 256,
    ];
    // a: q + 1 bits, the last one set (1/9 of them all ones).
    let tie = |r: &mut Rng, q: u64, len: usize| {
        let els = (0..len)
            .map(|_| {
                let mut m = mantissa(r, q + 1);
                let n = m.len();
                m[0] |= 1 << (64 * n as u64 - q - 1);
                (1 | (r.below(2) as u8 * 4), r.range(-20, 20), m)
            })
            .collect();
        array(q + 1, els)
    };
    for &l in LIMBS {
        let py = 64 * l - r.below(2) * r.below(64).min(64 * l - 1);
        // Destinations: the same size, and a wide one when the divisor is
        // small (the device takes the group kernel from 17 limbs).
        let qs = [
            py.max(min_q),
            if l < 17 { 1100 + r.below(1000) } else { py },
        ];
        for rnd in Round::ALL {
            for &q in &qs {
                let px = if r.below(3) == 0 { r.pick(MIXED) } else { py };
                let xs = operands(&mut r, 8, &[px, py]);
                let args = [&xs[0], &xs[1]];
                let got = dev.run(DevOp::Div, &args, q, rnd);
                let want = cpu(DevOp::Div, &args, q, rnd);
                same(&format!("div {px}/{py}->{q} {rnd:?}"), &got, &want, &args);
                // Exact ties: x = a y exactly, a of q + 1 bits.
                if q + 1 + py <= 16384 {
                    let a = tie(&mut r, q, 8);
                    let y = operands(&mut r, 8, &[py]).pop().unwrap();
                    let y = y.abs_ternary(py, Round::Nearest).unwrap().0;
                    let x = a.mul_ternary(&y, q + 1 + py, Round::Zero).unwrap().0;
                    let args = [&x, &y];
                    let got = dev.run(DevOp::Div, &args, q, rnd);
                    let want = cpu(DevOp::Div, &args, q, rnd);
                    same(&format!("tie div ->{q} {rnd:?}"), &got, &want, &args);
                }
            }
            // The root's divisor: m = max(n + 1, lx / 2 + 1) = l limbs.
            if l >= 2 {
                let q = (64 * (l - 1) - r.below(2) * r.below(63)).max(min_q);
                let px = if r.below(3) == 0 { r.pick(MIXED) } else { q };
                let x = operands(&mut r, 8, &[px]).pop().unwrap();
                let x = x.abs_ternary(px, Round::Nearest).unwrap().0;
                let got = dev.run(DevOp::Sqrt, &[&x], q, rnd);
                let want = cpu(DevOp::Sqrt, &[&x], q, rnd);
                same(&format!("sqrt {px}->{q} {rnd:?}"), &got, &want, &[&x]);
                if 2 * q + 2 <= 16384 {
                    let a = tie(&mut r, q, 8);
                    let a = a.abs_ternary(q + 1, Round::Nearest).unwrap().0;
                    let x = a.mul_ternary(&a, 2 * q + 2, Round::Zero).unwrap().0;
                    let got = dev.run(DevOp::Sqrt, &[&x], q, rnd);
                    let want = cpu(DevOp::Sqrt, &[&x], q, rnd);
                    same(&format!("tie sqrt ->{q} {rnd:?}"), &got, &want, &[&x]);
                }
            }
        }
    }
}

/// Every pair (triple for fma/fms) of special and boundary values.
fn specials(dev: &Dev) {
    for &p in &[1100u64, 2048] {
        let n = float::limbs_for_prec(p);
        let mut one = vec![0; n];
        one[n - 1] = 1 << 63;
        let mut ones = vec![u64::MAX; n];
        trim(&mut ones, p);
        let mut vals: Vec<El> = vec![
            (3, 0, vec![0; n]),
            (2, 0, vec![0; n]),
            (6, 0, vec![0; n]),
            (0, 0, vec![0; n]),
            (4, 0, vec![0; n]),
        ];
        for neg in [0u8, 4] {
            vals.push((1 | neg, 1, one.clone()));
            vals.push((1 | neg, 1, ones.clone()));
            vals.push((1 | neg, EMIN, one.clone()));
            vals.push((1 | neg, EMIN, ones.clone()));
            vals.push((1 | neg, EMAX, ones.clone()));
            vals.push((1 | neg, -7, ones.clone()));
            // 1/4: ones at EMIN times 1/4 rounds up to 2^(EMIN-2), half
            // of the smallest magnitude (underflow to zero, not to min).
            vals.push((1 | neg, -1, one.clone()));
        }
        every_tuple(dev, OPS, &vals, p);
    }
}

/// A sample against malachite-float directly.
fn against_malachite(dev: &Dev, seed: u64) {
    let mut r = Rng(seed ^ 0x1234);
    for &p in &[1025u64, 2048, 4096] {
        for rnd in Round::ALL {
            let xs = operands(&mut r, 16, &[p, p, p]);
            float_dev::against_malachite(dev, &xs, p, rnd);
        }
    }
}

#[test]
fn floatwideemu_all_ops() {
    if let Some(d) = Dev::emu(None) {
        all_ops(&d, seed(), PRECS);
    }
}

#[test]
fn floatwideemu_group_sizes() {
    // Every group size at a few precisions (and small ones: the group code
    // serves any size in the emulator).
    for gs in [4, 8, 16, 32] {
        if let Some(d) = Dev::emu(Some(gs)) {
            all_ops(&d, seed(), &[1, 64, 65, 200, 1025, 2049, 4097]);
        }
    }
}

#[test]
fn floatwideemu_mixed_dest() {
    if let Some(d) = Dev::emu(None) {
        mixed_dest(&d, seed());
    }
}

#[test]
fn floatwideemu_hard_cases() {
    if let Some(d) = Dev::emu(None) {
        hard_cases(&d, seed());
    }
}

#[test]
fn floatwideemu_div_sqrt_shapes() {
    if let Some(d) = Dev::emu(None) {
        div_sqrt_shapes(&d, seed());
    }
    // Forced group sizes (raised where the divisor needs more lanes).
    for gs in [8, 16] {
        if let Some(d) = Dev::emu(Some(gs)) {
            div_sqrt_shapes(&d, seed() ^ gs as u64);
        }
    }
}

#[test]
fn floatwideemu_specials() {
    if let Some(d) = Dev::emu(None) {
        specials(&d);
    }
}

#[test]
fn floatwideemu_against_malachite() {
    if let Some(d) = Dev::emu(None) {
        against_malachite(&d, seed());
    }
}

#[test]
#[ignore = "needs a CUDA device"]
fn floatwidegpu_all_ops() {
    all_ops(&Dev::cuda(), seed(), PRECS);
}

#[test]
#[ignore = "needs a CUDA device"]
fn floatwidegpu_mixed_dest() {
    mixed_dest(&Dev::cuda(), seed());
}

#[test]
#[ignore = "needs a CUDA device"]
fn floatwidegpu_hard_cases() {
    hard_cases(&Dev::cuda(), seed());
}

#[test]
#[ignore = "needs a CUDA device"]
fn floatwidegpu_div_sqrt_shapes() {
    div_sqrt_shapes(&Dev::cuda(), seed());
}

#[test]
#[ignore = "needs a CUDA device"]
fn floatwidegpu_specials() {
    specials(&Dev::cuda());
}

#[test]
#[ignore = "needs a CUDA device"]
fn floatwidegpu_against_malachite() {
    against_malachite(&Dev::cuda(), seed());
}
