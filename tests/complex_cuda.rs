//! Complex arrays on CUDA (`ComplexArray` on `Engine::Cuda`) against the CPU engine, bit
//! for bit with the ternary pairs: every operation, rounding-mode pairs,
//! precisions from 1 bit to the device's largest (where mul's exact
//! products stop fitting and the CPU engine takes over), mixed precisions,
//! special parts sparse and dense (a few or many elements patched from the
//! CPU engine), and products at the ends of the exponent range. The
//! CPU engine's complex arithmetic is itself checked against exact
//! rationals and GNU MPC (tests/complex_cpu.rs). Needs a device (ignored
//! otherwise). Fresh seeds each run (printed; MPARRAY_TEST_SEED replays).

use mparray::complex::{CFunc, CRound, ComplexArray};
use mparray::engine::CudaEngine;
use mparray::float::func::Func2;
use mparray::float::func::cuda_func2 as fcuda2;
use mparray::float::{EMAX, EMIN};
use mparray::{Engine, Round};

mod common;
use common::{Rng, num_hex, seed};

/// A random part: a special value with probability `special` per mille,
/// else a binary mantissa of b = 1 to min(bits, 4000) bits times 2^exp(g,
/// b), as a hex float ("0b" is not a float syntax: the mantissa is written
/// as an integer in hex).
fn hex_part(
    g: &mut Rng,
    bits: u64,
    special: u64,
    exp: impl FnOnce(&mut Rng, i64) -> i64,
) -> String {
    if g.below(1000) < special {
        return g.pick(&["0", "-0", "inf", "-inf", "nan"]).to_string();
    }
    let b = 1 + g.below(bits.min(4000));
    let mut m = String::from("1");
    for _ in 1..b {
        m.push(if g.below(2) == 0 { '0' } else { '1' });
    }
    let e = exp(g, b as i64);
    let sign = if g.below(2) == 0 { "-" } else { "" };
    format!("{sign}0x{}p{e:+}", num_hex(&m))
}

/// A random part (hex_part) with exponents in [-20, 20] and now and then
/// one near half the range's ends (products then leave it).
fn part(g: &mut Rng, bits: u64, special: u64, huge: bool) -> String {
    hex_part(g, bits, special, |g, _| {
        if huge && g.below(40) == 0 {
            g.pick(&[536_870_900i64, -536_870_900, 536_870_912, -536_870_913]) + g.range(-40, 40)
        } else {
            g.range(-20, 20)
        }
    })
}

fn array(g: &mut Rng, len: usize, prec: u64, special: u64, huge: bool) -> ComplexArray {
    let v: Vec<(String, String)> = (0..len)
        .map(|_| {
            (
                part(g, prec + 8, special, huge),
                part(g, prec + 8, special, huge),
            )
        })
        .collect();
    ComplexArray::from_strs(prec, prec, &v).unwrap()
}

fn show(z: &ComplexArray, t: &[(i8, i8)]) -> Vec<String> {
    let h = z.to_hex_strings().unwrap();
    (0..z.len())
        .map(|i| format!("{} {} {} {}", h[i].0, h[i].1, t[i].0, t[i].1))
        .collect()
}

/// The device's rows (`got`) against the CPU engine's (`want`), one per
/// element; `desc(i)` names element i in a failure.
fn same_rows(got: &[String], want: &[String], desc: impl Fn(usize) -> String) {
    assert_eq!(got.len(), want.len(), "{}", desc(0));
    for i in 0..want.len() {
        assert_eq!(got[i], want[i], "{} i={i}", desc(i));
    }
}

/// `(re, im)` of element i, in hex.
fn hexz(z: &ComplexArray, i: usize) -> String {
    let h = z.to_hex_strings().unwrap();
    format!("({}, {})", h[i].0, h[i].1)
}

#[derive(Clone, Copy, Debug)]
enum Op {
    Add,
    Sub,
    Mul,
    Sqr,
    Neg,
    Conj,
    Set,
    Mul2(i64),
    Div2(i64),
    Div,
    Pow,
    Exp,
}

const OPS: &[Op] = &[
    Op::Add,
    Op::Sub,
    Op::Mul,
    Op::Sqr,
    Op::Neg,
    Op::Conj,
    Op::Set,
    Op::Mul2(5),
    Op::Div2(1_000_000_007),
    // The shift's own ends: 2^-i64::MIN must overflow as on the CPU.
    Op::Div2(i64::MIN),
    Op::Mul2(i64::MIN),
    Op::Div,
    Op::Pow,
    Op::Exp,
];

macro_rules! apply {
    ($op:expr, $x:expr, $y:expr, $pr:expr, $pi:expr, $r:expr) => {
        match $op {
            Op::Add => $x.add_ternary($y, $pr, $pi, $r),
            Op::Sub => $x.sub_ternary($y, $pr, $pi, $r),
            Op::Mul => $x.mul_ternary($y, $pr, $pi, $r),
            Op::Sqr => $x.sqr_ternary($pr, $pi, $r),
            Op::Neg => $x.neg_ternary($pr, $pi, $r),
            Op::Conj => $x.conj_ternary($pr, $pi, $r),
            Op::Set => $x.set_prec_ternary($pr, $pi, $r),
            Op::Mul2(k) => $x.mul_2si_ternary(k, $pr, $pi, $r),
            Op::Div2(k) => $x.div_2si_ternary(k, $pr, $pi, $r),
            Op::Div => $x.div_ternary($y, $pr, $pi, $r),
            Op::Pow => $x.pow_ternary($y, $pr, $pi, $r),
            Op::Exp => $x.func_ternary(CFunc::Exp, $pr, $pi, $r),
        }
    };
}

/// (input precision, result precisions): tier edges of the float kernels,
/// mixed precisions, 8192 (mul's exact products of 16384 bits: the
/// largest on the device) and 8193 (mul on the CPU engine).
const CASES: &[(u64, u64, u64)] = &[
    (1, 1, 1),
    (53, 53, 53),
    (60, 64, 65),
    (200, 128, 129),
    (500, 512, 300),
    (1024, 1024, 1024),
    (3000, 2048, 4000),
    (8192, 8192, 8192),
    (8193, 8193, 8000),
];

#[test]
#[ignore = "needs a CUDA device"]
fn complexgpu_against_cpu() {
    let eng = CudaEngine::shared().expect("a CUDA device");
    common::warm_kernels(&eng, mparray::float::cuda::instances());
    let cuda = Engine::Cuda(eng.clone());
    let mut g = Rng(seed());
    let mut checked = 0usize;
    for &(inp, pr, pi) in CASES {
        let big = inp > 1000;
        for (len, special) in [
            (if big { 24 } else { 160 }, 3u64),
            (if big { 40 } else { 400 }, 100),
        ] {
            // Parts near the exponent range's ends (for the exact products
            // of mul and sqr), and moderate ones for the CPU-engine ops
            // (pow of such parts needs an astronomical precision: an error).
            let (xh, yh) = (
                array(&mut g, len, inp, special, true),
                array(&mut g, len, inp, special, true),
            );
            let (xm, ym) = (
                array(&mut g, len, inp, special, false),
                array(&mut g, len, inp, special, false),
            );
            let rnds: Vec<CRound> = if big {
                vec![
                    CRound::both(Round::Nearest),
                    CRound::new(Round::Down, Round::Away),
                ]
            } else {
                CRound::all()
            };
            for &op in OPS {
                if matches!(op, Op::Pow | Op::Exp | Op::Div) && big {
                    continue; // the CPU fallback: checked at the small sizes
                }
                let (x, y) = if matches!(op, Op::Pow | Op::Exp | Op::Div) {
                    (&xm, &ym)
                } else {
                    (&xh, &yh)
                };
                let (dx, dy) = (x.to_engine(&cuda).unwrap(), y.to_engine(&cuda).unwrap());
                for &r in &rnds {
                    let (want, wt) = apply!(op, x, y, pr, pi, r).unwrap();
                    let wt = wt.to_pairs().unwrap();
                    let (got, gt) = apply!(op, dx, &dy, pr, pi, r).unwrap();
                    assert!(got.engine().same_as(&cuda), "{op:?}: result on the device");
                    let gt = gt.to_pairs().unwrap();
                    let got = got.to_host().unwrap();
                    same_rows(&show(&got, &gt[..got.len()]), &show(&want, &wt), |i| {
                        let (xi, yi) = (hexz(x, i), hexz(y, i));
                        format!("{op:?} in={inp} pr={pr} pi={pi} {} x={xi} y={yi}", r.name())
                    });
                    checked += len;
                }
            }
        }
    }
    eprintln!("{checked} elements compared");
}

#[test]
#[ignore = "needs a CUDA device"]
fn complexgpu_shapes_and_cli() {
    let cuda = Engine::cuda().expect("a CUDA device");
    let e = ComplexArray::from_strs::<&str>(64, 64, &[]).unwrap();
    let de = e.to_engine(&cuda).unwrap();
    let (z, t) = de
        .mul_ternary(&de, 64, 64, CRound::both(Round::Nearest))
        .unwrap();
    assert_eq!(z.len(), 0);
    assert!(t.to_pairs().unwrap().len() <= 1);
    let a = ComplexArray::from_strs(64, 64, &[("1", "2"), ("3", "4")]).unwrap();
    let b = ComplexArray::from_strs(64, 64, &[("1", "2")]).unwrap();
    let err = a
        .to_engine(&cuda)
        .unwrap()
        .add_ternary(
            &b.to_engine(&cuda).unwrap(),
            64,
            64,
            CRound::both(Round::Nearest),
        )
        .expect_err("a length mismatch");
    assert!(err.to_string().contains("elements"), "{err}");
    // The CLI on both engines: the same bytes.
    let dir = std::env::temp_dir().join(format!("mparray-ccuda-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let (fa, fb) = (dir.join("a.txt"), dir.join("b.txt"));
    std::fs::write(&fa, "1.5 -2\n0 inf\n-0x1.8p-3 7\n1e300 -1e-300\n").unwrap();
    std::fs::write(&fb, "3 0.25\n2 -0\nnan 1\n-1e300 1e300\n").unwrap();
    for op in [
        "add", "mul", "sqr", "conj", "div", "pow", "exp", "abs", "norm", "arg",
    ] {
        let run = |engine: &str| {
            let mut args = vec![
                "complex",
                op,
                "--prec",
                "77",
                "--round",
                "DU",
                "--hex",
                "--ternary",
                "--engine",
                engine,
            ];
            let (sa, sb) = (fa.to_str().unwrap(), fb.to_str().unwrap());
            args.push(sa);
            if matches!(op, "add" | "mul" | "div" | "pow") {
                args.push(sb);
            }
            let o = std::process::Command::new(common::mparray_bin())
                .args(&args)
                .output()
                .unwrap();
            assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
            o.stdout
        };
        assert_eq!(run("cuda"), run("cpu"), "complex {op}");
    }
    std::fs::remove_dir_all(&dir).ok();
}

/// A part for abs, norm and arg: random bits, specials (`special` per
/// mille), and exponents at the ends of the range and of half the range
/// (hypot and norm overflow or underflow there, atan2's ratios too).
fn part_ends(g: &mut Rng, bits: u64, special: u64) -> String {
    // The value's exponent (the text's is that minus the bits).
    hex_part(g, bits, special, |g, b| {
        let e = match g.below(10) {
            0 => EMAX - g.range(0, 40),
            1 => EMIN + g.range(0, 40),
            2 => g.pick(&[EMAX / 2, EMIN / 2, EMAX / 2 + 1, EMIN / 2 - 1]) + g.range(-3, 3),
            3 => g.range(-3000, 3000),
            _ => g.range(-20, 20),
        };
        e - b
    })
}

fn array_ends(g: &mut Rng, len: usize, pr: u64, pi: u64, special: u64) -> ComplexArray {
    let v: Vec<(String, String)> = (0..len)
        .map(|_| (part_ends(g, pr + 8, special), part_ends(g, pi + 8, special)))
        .collect();
    ComplexArray::from_strs(pr, pi, &v).unwrap()
}

fn show_real(r: &mparray::FloatArray, t: &[i8]) -> Vec<String> {
    let h = r.to_hex_strings().unwrap();
    (0..r.len()).map(|i| format!("{} {}", h[i], t[i])).collect()
}

/// (real part's precision, imaginary part's, result's) for abs, norm and
/// arg: tier edges of the function kernels, mixed precisions, above the
/// largest tier (the CPU engine for abs and arg), norm's exact square at
/// the device's largest precision (8192) and beyond it (8193).
const REAL_CASES: &[(u64, u64, u64)] = &[
    (1, 1, 1),
    (53, 53, 53),
    (64, 30, 65),
    (200, 128, 129),
    (500, 300, 512),
    (1024, 1024, 1024),
    (2000, 3000, 2048),
    (3000, 3000, 4000),
    (8192, 8192, 8192),
    (100, 8193, 300),
];

#[derive(Clone, Copy, Debug)]
enum RealOp {
    Abs,
    Norm,
    Arg,
}

macro_rules! apply_real {
    ($op:expr, $x:expr, $p:expr, $r:expr) => {
        match $op {
            RealOp::Abs => $x.abs_ternary($p, $r),
            RealOp::Norm => $x.norm_ternary($p, $r),
            RealOp::Arg => $x.arg_ternary($p, $r),
        }
    };
}

const MODES: [Round; 5] = Round::ALL;

/// abs, norm and arg on the device against the CPU engine: random parts,
/// specials sparse and dense (few or many patched elements), parts
/// at the ends of the exponent range, every rounding mode.
#[test]
#[ignore = "needs a CUDA device"]
fn complexgpu_abs_norm_arg() {
    let eng = CudaEngine::shared().expect("a CUDA device");
    common::warm_kernels(&eng, mparray::float::cuda::instances());
    let cuda = Engine::Cuda(eng.clone());
    let mut g = Rng(seed());
    let mut checked = 0usize;
    for &(pr, pi, p) in REAL_CASES {
        let big = pr.max(pi).max(p) > 2100;
        for (len, special) in [
            (if big { 24 } else { 200 }, 3u64),
            (if big { 40 } else { 400 }, 100),
        ] {
            let x = array_ends(&mut g, len, pr, pi, special);
            let dx = x.to_engine(&cuda).unwrap();
            let modes: &[Round] = if big {
                &[Round::Nearest, Round::Down]
            } else {
                &MODES
            };
            for op in [RealOp::Abs, RealOp::Norm, RealOp::Arg] {
                for &r in modes {
                    let (want, wt) = apply_real!(op, x, p, r).unwrap();
                    let wt = wt.to_vec().unwrap();
                    let (got, gt) = apply_real!(op, dx, p, r).unwrap();
                    assert!(got.engine().same_as(&cuda), "{op:?}: result on the device");
                    let gt = gt.to_vec().unwrap();
                    let got = got.to_host().unwrap();
                    same_rows(
                        &show_real(&got, &gt[..got.len()]),
                        &show_real(&want, &wt),
                        |i| format!("{op:?} pr={pr} pi={pi} p={p} {r:?} x={}", hexz(&x, i)),
                    );
                    checked += len;
                }
            }
        }
    }
    eprintln!("{checked} elements compared");
}

/// abs and arg are hypot(re, im) and atan2(im, re) on the device: checked
/// without a device through the host emulation of the two-argument kernel
/// (tests/emu/functrig/emu2.cpp, MPARRAY_FUNC_EMU2; MPARRAY_NO_EMU=1
/// skips), on the same inputs as complexgpu_abs_norm_arg.
#[test]
fn complexemu_abs_arg() {
    let Some(exe) = common::emulator("MPARRAY_FUNC_EMU2", "tests/emu/functrig/emu2.cpp") else {
        return;
    };
    let exe = exe.to_string_lossy().into_owned();
    let mut g = Rng(seed());
    for &(pr, pi, p) in &REAL_CASES[..7] {
        for special in [3u64, 100] {
            let x = array_ends(&mut g, 60, pr, pi, special);
            for r in MODES {
                for op in [RealOp::Abs, RealOp::Arg] {
                    let (want, wt) = apply_real!(op, x, p, r).unwrap();
                    let wt = wt.to_vec().unwrap();
                    let (re, im) = (x.re().unwrap(), x.im().unwrap());
                    let (f, a, b) = match op {
                        RealOp::Abs => (Func2::Hypot, &re, &im),
                        _ => (Func2::Atan2, &im, &re),
                    };
                    let ((got, gt), _, _) =
                        fcuda2::func2_emulated(&exe, Some(f), a, b, p, r).unwrap();
                    same_rows(&show_real(&got, &gt), &show_real(&want, &wt), |i| {
                        format!("{op:?} pr={pr} pi={pi} p={p} {r:?} x={}", hexz(&x, i))
                    });
                }
            }
        }
    }
}
