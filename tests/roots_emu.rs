//! The scalar operations of the fused root-finder kernels (src/kernels/
//! roots.cu's rt_mul, rt_wmul, rt_add, rt_div, with the file's default
//! code paths, RT_V; build the emulator with -DRT_V=... for the others)
//! compiled for the host (tests/emu/roots/remu.cpp: the binary MPARRAY_ROOTS_EMU
//! names, else built with g++ by the test; MPARRAY_NO_EMU=1 skips it),
//! against the CPU engine bit for bit: 4, 7 and 16 limbs (the short
//! product from 4 limbs on), precisions at and below each tier's top,
//! random, sparse, all-ones and run-of-equal-bits mantissas (the short
//! product's fallback to the exact one), zeros, exponents far apart, and
//! every rounding mode the kernels use (to nearest, upward). Fresh seed
//! each run (printed; MPARRAY_TEST_SEED replays).

use mparray::Round;
use mparray::float::cuda::DevOp;

mod common;
use common::float_dev::{El, array, cpu, emu_run, same};
use common::{Rng, seed};

/// A mantissa of `n` limbs for precision `p`: random, all ones, a single
/// top bit, sparse, or random top bits then a run of zeros or ones.
fn mantissa(r: &mut Rng, n: usize, p: u64) -> Vec<u64> {
    let low = 64 * n as u64 - p;
    let mut m: Vec<u64> = match r.below(7) {
        0 => vec![u64::MAX; n],
        1 => {
            let mut v = vec![0; n];
            v[n - 1] = r.next();
            v
        }
        2 => {
            let mut v = vec![0; n];
            let b = r.below(64 * n as u64);
            v[(b / 64) as usize] |= 1 << (b % 64);
            v
        }
        3 => {
            let cut = r.below(64 * n as u64);
            let ones = r.below(2) == 1;
            (0..n)
                .map(|i| {
                    let lo = 64 * i as u64;
                    let v = r.next();
                    if lo + 64 <= cut {
                        if ones { u64::MAX } else { 0 }
                    } else if lo >= cut {
                        v
                    } else {
                        let mask = (1u64 << (cut - lo)) - 1;
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

/// One element near exponent `e0`: mostly normal, sometimes zero.
fn element(r: &mut Rng, n: usize, p: u64, e0: i64) -> El {
    let neg = if r.below(2) == 1 { 4 } else { 0 };
    if r.below(16) == 0 {
        return (neg, 0, vec![0; n]);
    }
    (1 | neg, e0 + r.range(-3, 3), mantissa(r, n, p))
}

#[test]
fn roots_scalar_ops_match_the_cpu_engine() {
    let Some(exe) = common::emulator("MPARRAY_ROOTS_EMU", "tests/emu/roots/remu.cpp") else {
        return;
    };
    let exe = exe.to_string_lossy().into_owned();
    let s = seed();
    let mut r = Rng(s);
    let len = 3000;
    let mut checked = 0;
    for n in [4usize, 7, 16] {
        let top = 64 * n as u64;
        for p in [top, top - 1, top - 37, top - 63] {
            let base: Vec<i64> = (0..len).map(|_| r.range(-200, 200)).collect();
            // y's exponent near x's, or far below it (additions whose
            // smaller operand shifts out partly or wholly).
            let ey: Vec<i64> = base
                .iter()
                .map(|&e| match r.below(4) {
                    0 => e - r.range(0, 64 * n as i64 + 70),
                    _ => e,
                })
                .collect();
            let x = array(p, base.iter().map(|&e| element(&mut r, n, p, e)).collect());
            let y = array(p, ey.iter().map(|&e| element(&mut r, n, p, e)).collect());
            for (op, modes) in [
                (DevOp::Mul, &[Round::Nearest, Round::Up][..]),
                (DevOp::Add, &[Round::Nearest, Round::Up][..]),
                (DevOp::Sub, &[Round::Nearest][..]),
                (DevOp::Div, &[Round::Nearest][..]),
            ] {
                for &rnd in modes {
                    // The products also by a group of lanes (rt_gmul, the
                    // emulator's FW_GS; 32: rt_gmul<32>) and by rt_wmul_l
                    // (200: the carries and rounding on the lanes too; the
                    // default rt_wmul).
                    let ways: &[Option<u32>] = if op == DevOp::Mul {
                        &[
                            None,
                            Some(2),
                            Some(4),
                            Some(8),
                            Some(16),
                            Some(32),
                            Some(200),
                        ]
                    } else {
                        &[None]
                    };
                    for &w in ways {
                        let (got, _) = emu_run(&exe, w, op.code(), op, &[&x, &y], p, rnd);
                        let want = cpu(op, &[&x, &y], p, rnd).0;
                        // The kernels keep no ternary values: values only.
                        let z = vec![0i8; len];
                        same(
                            &format!("seed {s}: {op:?} {rnd:?} n {n} p {p} warp {w:?}"),
                            &(got, z.clone()),
                            &(want, z),
                            &[&x, &y],
                        );
                        checked += len;
                    }
                }
            }
        }
    }
    eprintln!("roots.cu scalar operations: {checked} results checked (seed {s})");
}

/// rt_wadd (the warp's addition of the residual bound: lane L holds limb L,
/// carries by ballots; the emulator replays the 32 lanes, FW_GS = 100 +
/// absf) against the CPU engine on |x| (absf & 1) and |y| (absf & 2),
/// zero operands and cancellations on lane 0 or on the lanes (absf & 4): the
/// cases of `roots_scalar_ops_match_the_cpu_engine` (cancellation, carries
/// across every limb from all-ones mantissas, zeros, exponents equal, near
/// and far apart, to nearest and upward), and exponent differences on
/// every limb boundary.
#[test]
fn roots_warp_addition_matches_the_cpu_engine() {
    let Some(exe) = common::emulator("MPARRAY_ROOTS_EMU", "tests/emu/roots/remu.cpp") else {
        return;
    };
    let exe = exe.to_string_lossy().into_owned();
    let s = seed();
    let mut r = Rng(s);
    let len = 300;
    let mut checked = 0;
    let abs = |a: &[El]| -> Vec<El> { a.iter().map(|(t, e, m)| (t & !4, *e, m.clone())).collect() };
    for n in [4usize, 7, 16] {
        let top = 64 * n as u64;
        for (pi, p) in [top, top - 1, top - 37, top - 63].into_iter().enumerate() {
            let base: Vec<i64> = (0..len).map(|_| r.range(-200, 200)).collect();
            let ey: Vec<i64> = base
                .iter()
                .map(|&e| match r.below(6) {
                    0 => e - r.range(0, 64 * n as i64 + 70),
                    1 => e - 64 * r.range(0, n as i64 + 2) - r.range(-1, 1),
                    2 => e + r.range(-2, 2),
                    _ => e,
                })
                .collect();
            let xe: Vec<El> = base.iter().map(|&e| element(&mut r, n, p, e)).collect();
            let mut ye: Vec<El> = ey.iter().map(|&e| element(&mut r, n, p, e)).collect();
            // Some y equal to x or to -x in magnitude (exact cancellation,
            // the highest differing limb far down).
            for i in 0..len {
                match r.below(8) {
                    0 => ye[i] = xe[i].clone(),
                    1 => {
                        let (t, e, m) = xe[i].clone();
                        ye[i] = (t ^ 4, e, m);
                    }
                    2 => {
                        let (t, e, mut m) = xe[i].clone();
                        if t & 3 == 1 {
                            let b = r.below(p) + (64 * n as u64 - p);
                            m[(b / 64) as usize] ^= 1 << (b % 64);
                            m[n - 1] |= 1 << 63;
                        }
                        ye[i] = (t ^ 4, e, m);
                    }
                    _ => {}
                }
            }
            for absf in 0u32..8 {
                let xa = if absf & 1 != 0 { abs(&xe) } else { xe.clone() };
                let ya = if absf & 2 != 0 { abs(&ye) } else { ye.clone() };
                let (x, y) = (array(p, xe.clone()), array(p, ye.clone()));
                let (xr, yr) = (array(p, xa), array(p, ya));
                for (op, rnd) in [
                    (DevOp::Add, Round::Nearest),
                    (DevOp::Add, Round::Up),
                    (DevOp::Sub, Round::Nearest),
                    (DevOp::Sub, Round::Up),
                ] {
                    // Not every pairing at every size: the replay is slow.
                    if (absf as usize + pi) % 2 == 1 && rnd == Round::Up {
                        continue;
                    }
                    let (got, _) =
                        emu_run(&exe, Some(100 + absf), op.code(), op, &[&x, &y], p, rnd);
                    let want = cpu(op, &[&xr, &yr], p, rnd).0;
                    let z = vec![0i8; len];
                    same(
                        &format!("seed {s}: rt_wadd {op:?} {rnd:?} n {n} p {p} absf {absf}"),
                        &(got, z.clone()),
                        &(want, z),
                        &[&xr, &yr],
                    );
                    checked += len;
                }
            }
        }
    }
    eprintln!("roots.cu rt_wadd: {checked} results checked (seed {s})");
}
