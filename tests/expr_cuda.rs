//! Fused expressions on CUDA (generated kernels): random expression trees
//! (depth up to 6, every operation) against the CPU engine's fused result
//! and malachite, the Poly and sum shapes at widths crossing the tiers
//! against the hand-fused kernels, float expressions against the unfused
//! chain on the device, complex expressions (the generated kernel, its
//! patched elements, the split) against the CPU engine and the device
//! chain, bit for bit. Ignored without a GPU.
mod common;
mod expr_gen;

use common::*;
use expr_gen::*;
use malachite_nz::natural::Natural;
use mparray::expr::{self, Expr, Op, parse};
use mparray::float::Round;
use mparray::{Engine, FloatArray, Fused, IntArray};

fn cuda() -> Engine {
    Engine::cuda().expect("these tests need a CUDA device")
}

fn names(n: usize) -> Vec<String> {
    (0..n)
        .map(|k| ((b'a' + k as u8) as char).to_string())
        .collect()
}

fn rand_ints(r: &mut Rng, bits: u64, len: usize) -> IntArray {
    let l = (bits / 64) as usize;
    let v: Vec<u64> = (0..len * l)
        .map(|k| match r.below(8) {
            0 => 0,
            1 => u64::MAX,
            2 if k % l == 0 => r.below(3),
            _ => r.next(),
        })
        .collect();
    IntArray::from_limbs(bits, v).unwrap()
}

#[test]
#[ignore = "needs a GPU"]
fn cuda_int_random_trees_vs_cpu_and_malachite() {
    let dev = cuda();
    let mut r = Rng(seed());
    for round in 0..12 {
        let bits = r.pick(&[64u64, 128, 192, 320, 1024, 2304]);
        let nin = 1 + r.index(4);
        let text = int_text(&mut r, nin, 1 + (round % 6) as u32, bits);
        let e = parse::parse_with(&text, Some(&names(nin))).unwrap();
        let len = 300;
        let ins: Vec<IntArray> = (0..nin).map(|_| rand_ints(&mut r, bits, len)).collect();
        let refs: Vec<&IntArray> = ins.iter().collect();
        let want = expr::eval_int(&e, &refs).unwrap();
        let on: Vec<IntArray> = ins.iter().map(|a| a.to_engine(&dev).unwrap()).collect();
        let onr: Vec<&IntArray> = on.iter().collect();
        let got = expr::eval_int(&e, &onr).unwrap();
        assert_eq!(
            got.to_limbs().unwrap(),
            want.to_limbs().unwrap(),
            "{text} at {bits} bits"
        );
        let g = got.to_naturals().unwrap();
        let nat: Vec<Vec<Natural>> = ins.iter().map(|a| a.to_naturals().unwrap()).collect();
        for i in [0, len / 2, len - 1] {
            let xs: Vec<Natural> = nat.iter().map(|v| v[i].clone()).collect();
            assert_eq!(g[i], int_reference(&e, &xs, bits), "{text}, element {i}");
        }
    }
}

#[test]
#[ignore = "needs a GPU"]
fn cuda_int_shapes_equal_the_hand_fused() {
    let dev = cuda();
    let mut r = Rng(seed());
    let poly = Expr::parse("(a*a+b)*(b*b+b)+a*b").unwrap();
    let six = Expr::parse("a+b+a+b+a+b+a").unwrap();
    let sum5 = Expr::parse("a+c+b+a+c").unwrap();
    for limbs in [1usize, 3, 4, 5, 64, 65, 1024, 1026] {
        let bits = 64 * limbs as u64;
        let len = if limbs > 500 { 5 } else { 700 };
        let ins: Vec<IntArray> = (0..3).map(|_| rand_ints(&mut r, bits, len)).collect();
        let on: Vec<IntArray> = ins.iter().map(|a| a.to_engine(&dev).unwrap()).collect();
        let (a, b, c) = (&on[0], &on[1], &on[2]);
        let hp = a.fused(b, Fused::Poly).unwrap().to_limbs().unwrap();
        let hs = a.fused(b, Fused::SixAdd).unwrap().to_limbs().unwrap();
        assert_eq!(
            expr::eval_int(&poly, &[a, b]).unwrap().to_limbs().unwrap(),
            hp,
            "poly {limbs}"
        );
        assert_eq!(
            expr::eval_int(&six, &[a, b]).unwrap().to_limbs().unwrap(),
            hs,
            "six {limbs}"
        );
        let want = expr::eval_int(&sum5, &[&ins[0], &ins[1], &ins[2]]).unwrap();
        assert_eq!(
            expr::eval_int(&sum5, &[a, b, c])
                .unwrap()
                .to_limbs()
                .unwrap(),
            want.to_limbs().unwrap(),
            "sum5 {limbs}"
        );
        // Not a recognised shape: the thread-per-element kernel.
        let other = Expr::parse("(a*a+b)*(b*b+a)+a*b").unwrap();
        let want = expr::eval_int(&other, &[&ins[0], &ins[1]]).unwrap();
        if limbs <= 129 {
            assert_eq!(
                expr::eval_int(&other, &[a, b]).unwrap().to_limbs().unwrap(),
                want.to_limbs().unwrap(),
                "other {limbs}"
            );
        }
    }
}

fn rand_floats(r: &mut Rng, p: u64, len: usize) -> FloatArray {
    let strs: Vec<String> = (0..len)
        .map(|i| match (i % 97, r.below(16)) {
            (0, _) | (_, 0) => ["0", "-0", "inf", "-inf", "nan", "1", "-2.5"][r.index(7)].into(),
            _ => format!(
                "{}{}.{}e{}",
                if r.below(2) == 0 { "-" } else { "" },
                r.below(1000),
                r.next(),
                r.range(-40, 40)
            ),
        })
        .collect();
    FloatArray::from_strs(p, &strs).unwrap()
}

/// The first element where two arrays differ, both values in hex.
fn first_diff(got: &FloatArray, want: &FloatArray) -> String {
    let (g, w) = (got.to_hex_strings(), want.to_hex_strings());
    match (g, w) {
        (Ok(g), Ok(w)) => match g.iter().zip(&w).position(|(x, y)| x != y) {
            Some(i) => format!("element {i}: device {} CPU {}", g[i], w[i]),
            None => format!("lengths {} and {}", g.len(), w.len()),
        },
        (g, w) => format!("unreadable: device {:?} CPU {:?}", g.err(), w.err()),
    }
}

/// `e` over `ins` on the device equals the CPU engine's result bit for
/// bit; returns that result and the inputs on the device.
fn device_equals_cpu(
    dev: &Engine,
    e: &Expr,
    ins: &[FloatArray],
    p: u64,
    rnd: Round,
    text: &str,
) -> (FloatArray, Vec<FloatArray>) {
    let refs: Vec<&FloatArray> = ins.iter().collect();
    let want = expr::eval_float(e, &refs, p, rnd).unwrap();
    let on: Vec<FloatArray> = ins.iter().map(|a| a.to_engine(dev).unwrap()).collect();
    let onr: Vec<&FloatArray> = on.iter().collect();
    let got = expr::eval_float(e, &onr, p, rnd)
        .unwrap_or_else(|err| panic!("{text} at {p} bits {rnd:?}: {err}"))
        .to_host()
        .unwrap();
    assert!(
        got == want,
        "{text} at {p} bits {rnd:?}: device vs CPU: {}",
        first_diff(&got, &want)
    );
    (want, on)
}

#[test]
#[ignore = "needs a GPU"]
fn cuda_float_random_trees_vs_cpu() {
    let dev = cuda();
    let mut r = Rng(seed());
    let modes = Round::ALL;
    for round in 0..10 {
        let p = r.pick(&[24u64, 53, 64, 128, 200, 512, 1024, 3000]);
        let rnd = modes[round % 5];
        let nin = 1 + r.index(4);
        let text = float_text(&mut r, nin, 1 + (round % 6) as u32);
        let e = parse::parse_with(&text, Some(&names(nin))).unwrap();
        let ins: Vec<FloatArray> = (0..nin)
            .map(|k| rand_floats(&mut r, [p, p + 37, 64][k % 3], 500))
            .collect();
        device_equals_cpu(&dev, &e, &ins, p, rnd, &text);
    }
    // Above the device tiers: the CPU engine, moved back.
    let big = 64 * 300;
    let ins: Vec<FloatArray> = (0..2).map(|_| rand_floats(&mut r, big, 20)).collect();
    let e = Expr::parse("a*b+a").unwrap();
    let want = expr::eval_float(&e, &[&ins[0], &ins[1]], big, Round::Nearest).unwrap();
    let on: Vec<FloatArray> = ins.iter().map(|a| a.to_engine(&dev).unwrap()).collect();
    let got = expr::eval_float(&e, &[&on[0], &on[1]], big, Round::Nearest).unwrap();
    assert!(got.to_host().unwrap() == want);
}

#[test]
#[ignore = "needs a GPU"]
fn cuda_float_four_ops_equal_the_device_chain() {
    let dev = cuda();
    let mut r = Rng(seed());
    for (text, p) in [
        ("(a*b+c*d)/e", 512u64),
        ("(a*b+c*d)*e-f", 512),
        ("sqrt(fma(a,b,c))-d", 192),
    ] {
        let e = Expr::parse(text).unwrap();
        let ins: Vec<FloatArray> = (0..e.inputs().len())
            .map(|_| rand_floats(&mut r, p, 20000).to_engine(&dev).unwrap())
            .collect();
        let refs: Vec<&FloatArray> = ins.iter().collect();
        for rnd in [Round::Nearest, Round::Down] {
            let f = expr::eval_float(&e, &refs, p, rnd)
                .unwrap()
                .to_host()
                .unwrap();
            let c = expr::chain_float(&e, &refs, p, rnd)
                .unwrap()
                .to_host()
                .unwrap();
            assert!(f == c, "{text} {rnd:?}");
        }
    }
}

/// The register float kernel (outputs of at most 16 limbs: slots in shared
/// memory, the register paths of the single-operation kernels, the exact
/// code out of line) on random trees of depth up to 6 with special values
/// and mixed input precisions, against the unfused chain on the device,
/// bit for bit.
#[test]
#[ignore = "needs a GPU"]
fn cuda_float_register_kernel_random_trees_vs_device_chain() {
    let dev = cuda();
    let mut r = Rng(seed());
    let modes = Round::ALL;
    for (round, p) in [64u64, 192, 512, 512, 1000, 300].into_iter().enumerate() {
        let rnd = modes[round % 5];
        let nin = 2 + r.index(3);
        let text = float_text(&mut r, nin, 6);
        let e = parse::parse_with(&text, Some(&names(nin))).unwrap();
        let ins: Vec<FloatArray> = (0..nin)
            .map(|k| {
                rand_floats(&mut r, [p, p, p + 100, 64][k % 4], 3000)
                    .to_engine(&dev)
                    .unwrap()
            })
            .collect();
        let refs: Vec<&FloatArray> = ins.iter().collect();
        let f = expr::eval_float(&e, &refs, p, rnd)
            .unwrap()
            .to_host()
            .unwrap();
        let c = expr::chain_float(&e, &refs, p, rnd)
            .unwrap()
            .to_host()
            .unwrap();
        assert!(f == c, "{text} at {p} bits {rnd:?}");
    }
}

/// Float trees with functions (depth up to 4, every `Func` at the root of
/// one tree, `Func2` inside) on the device: the function nodes run the
/// library's CUDA function kernels, the arithmetic segments between them
/// the generated kernels; equal to the CPU engine's fused evaluation bit
/// for bit, and to the device chain.
#[test]
#[ignore = "needs a GPU"]
fn cuda_float_function_trees_vs_cpu() {
    let dev = cuda();
    let mut r = Rng(seed());
    let names_f = func_names();
    // Each new segment shape and each function's module at a new tier is a
    // first compile (about 1 s each): few precisions, depth up to 4.
    for k in 0..20 {
        let p = [192u64, 512][k % 2];
        let rnd = Round::ALL[k % 5];
        let nin = 1 + r.index(3);
        let inner = float_fn_text(&mut r, nin, 1 + (k % 4) as u32);
        let text = if k < 20 {
            let arg = float_fn_arg(&mut r, nin);
            format!("({}({arg}) - {inner})", names_f[k % names_f.len()])
        } else {
            inner
        };
        let e = parse::parse_with(&text, Some(&names(nin))).unwrap();
        let ins: Vec<FloatArray> = (0..nin)
            .map(|j| rand_floats(&mut r, [p, p + 37, 64][j % 3], 300))
            .collect();
        let (want, on) = device_equals_cpu(&dev, &e, &ins, p, rnd, &text);
        let onr: Vec<&FloatArray> = on.iter().collect();
        if k % 4 == 0 {
            let c = expr::chain_float(&e, &onr, p, rnd).unwrap();
            assert!(
                c.to_host().unwrap() == want,
                "{text} at {p} bits {rnd:?}: device chain"
            );
        }
    }
    // Constant-only segments, a shared subexpression, a function at the root.
    for text in [
        "exp(2*3) + a",
        "sin(a*b) * cos(a*b) + a*b",
        "log(hypot(a, b*b))",
    ] {
        let e = Expr::parse(text).unwrap();
        let ins: Vec<FloatArray> = (0..e.inputs().len())
            .map(|_| rand_floats(&mut r, 192, 1000))
            .collect();
        let refs: Vec<&FloatArray> = ins.iter().collect();
        let want = expr::eval_float(&e, &refs, 192, Round::Nearest).unwrap();
        let on: Vec<FloatArray> = ins.iter().map(|a| a.to_engine(&dev).unwrap()).collect();
        let onr: Vec<&FloatArray> = on.iter().collect();
        let got = expr::eval_float(&e, &onr, 192, Round::Nearest).unwrap();
        assert!(got.to_host().unwrap() == want, "{text}");
    }
}

/// Complex trees (depth up to 4: CFuncs, pow) on the device (the chain
/// of ComplexArray's device operations) against the CPU engine's fused
/// evaluation, bit for bit.
#[test]
#[ignore = "needs a GPU"]
fn cuda_complex_trees_vs_cpu() {
    use mparray::complex::CRound;
    let dev = cuda();
    let mut r = Rng(seed());
    let modes = CRound::all();
    for k in 0..10 {
        let p = [100u64, 256][k % 2];
        let rnd = modes[r.index(modes.len())];
        let nin = 1 + r.index(3);
        let text = complex_text(&mut r, nin, 1 + (k % 4) as u32);
        let e = parse::parse_with(&text, Some(&names(nin))).unwrap();
        let ins = complex_inputs(&mut r, nin, 64, &[p, p + 30]);
        let refs: Vec<&mparray::ComplexArray> = ins.iter().collect();
        let want = expr::eval_complex(&e, &refs, p, rnd).unwrap();
        let on: Vec<mparray::ComplexArray> =
            ins.iter().map(|a| a.to_engine(&dev).unwrap()).collect();
        let onr: Vec<&mparray::ComplexArray> = on.iter().collect();
        let got = expr::eval_complex(&e, &onr, p, rnd).unwrap();
        assert!(
            got.to_engine(&Engine::Cpu).unwrap() == want,
            "{text} at {p} bits {rnd:?}: device vs CPU"
        );
    }
}

/// Every complex function and pow in an expression on the device (the
/// device chain) against the CPU engine's fused evaluation, bit for bit.
#[test]
#[ignore = "needs a GPU"]
fn cuda_complex_every_function_vs_cpu() {
    use mparray::complex::{CFunc, CRound};
    let dev = cuda();
    let mut r = Rng(seed());
    let modes = CRound::all();
    for f in CFunc::ALL {
        let text = format!("({}(a*b) - pow(b, 0.5)) / a", f.name());
        let e = Expr::parse(&text).unwrap();
        let ins = complex_inputs(&mut r, 2, 200, &[128, 150]);
        let rnd = modes[r.index(modes.len())];
        let want = expr::eval_complex(&e, &[&ins[0], &ins[1]], 128, rnd).unwrap();
        let on: Vec<mparray::ComplexArray> =
            ins.iter().map(|a| a.to_engine(&dev).unwrap()).collect();
        let got = expr::eval_complex(&e, &[&on[0], &on[1]], 128, rnd).unwrap();
        assert!(
            got.to_engine(&Engine::Cpu).unwrap() == want,
            "{text} {rnd:?}: device vs CPU"
        );
    }
}

/// `e` over the complex `ins` on the device ([`expr::eval_complex_stats`])
/// equals the CPU engine's fused evaluation and the device chain bit for
/// bit; returns what the device evaluation did.
fn complex_device_equals_cpu(
    dev: &Engine,
    e: &Expr,
    ins: &[mparray::ComplexArray],
    p: u64,
    rnd: mparray::complex::CRound,
    what: &str,
) -> expr::ComplexStats {
    let refs: Vec<&mparray::ComplexArray> = ins.iter().collect();
    let want = expr::eval_complex(e, &refs, p, rnd).unwrap();
    let on: Vec<mparray::ComplexArray> = ins.iter().map(|a| a.to_engine(dev).unwrap()).collect();
    let onr: Vec<&mparray::ComplexArray> = on.iter().collect();
    let (got, stats) =
        expr::eval_complex_stats(e, &onr, p, rnd).unwrap_or_else(|err| panic!("{what}: {err}"));
    let got = got.to_engine(&Engine::Cpu).unwrap();
    if got != want {
        let (g, w) = (
            got.to_hex_strings().unwrap(),
            want.to_hex_strings().unwrap(),
        );
        let i = g.iter().zip(&w).position(|(x, y)| x != y).unwrap_or(0);
        panic!(
            "{what}: device vs CPU, element {i}: device {:?} CPU {:?} ({stats:?})",
            g[i], w[i]
        );
    }
    let chain = expr::chain_complex(e, &onr, p, rnd).unwrap();
    assert!(
        chain.to_engine(&Engine::Cpu).unwrap() == want,
        "{what}: device chain vs CPU"
    );
    stats
}

/// The generated complex kernel on the device: random trees of `+ - *`,
/// unary minus and constants (depth up to 6), some with `/`, `sqrt`,
/// `exp`, `pow` nodes (the split: ComplexArray operations between fused
/// segments), inputs of mixed part precisions with signed zeros,
/// infinities, NaN, exponents at the range's ends and exact cancellations,
/// precisions across limb boundaries (53 to 1100 bits), all 25 pairs of
/// rounding modes over the trees. Equal to the CPU engine's fused evaluation and to the
/// device chain bit for bit; a fused tree's patched elements are exactly
/// those with an unusual product (`complex_expected_flags`).
#[test]
#[ignore = "needs a GPU"]
fn cuda_complex_fused_random_trees_vs_cpu_and_chain() {
    use mparray::complex::CRound;
    let dev = cuda();
    let mut r = Rng(seed());
    let modes = CRound::all();
    let precs = [53u64, 64, 65, 128, 200, 512, 1024, 1100];
    let (mut patched, mut split) = (0usize, 0usize);
    // Each new shape is a first compile (about 2 s): 10 trees, three mode
    // pairs each, all 25 pairs over the trees.
    for k in 0..10 {
        let p = precs[k % precs.len()];
        let nin = 1 + r.index(3);
        let with_split = k % 3 == 2;
        // A split tree has at least one split node.
        let (text, e) = loop {
            let text = complex_arith_text(&mut r, nin, 2 + (k % 5) as u32, with_split);
            let e = parse::parse_with(&text, Some(&names(nin))).unwrap();
            let live = e.live();
            let splits = e.nodes().iter().enumerate().any(|(i, n)| {
                live[i]
                    && matches!(n, mparray::expr::Node::Op(op, _)
                        if !matches!(op, Op::Add | Op::Sub | Op::Mul | Op::Neg))
            });
            if splits == with_split {
                break (text, e);
            }
        };
        let pparts = [(p, p + 13), (64, p), (p + 70, 53)];
        let special = match (with_split, k % 4) {
            (_, 3) => 0,
            (true, _) => 1,
            _ => 2,
        };
        let ins = complex_mixed_inputs(&mut r, nin, 400, &pparts, special);
        for j in 0..3 {
            let rnd = modes[(3 * k + j) % modes.len()];
            let what = format!("{text} at {p} bits {rnd:?}");
            let stats = complex_device_equals_cpu(&dev, &e, &ins, p, rnd, &what);
            if stats.split == 0 {
                let refs: Vec<&mparray::ComplexArray> = ins.iter().collect();
                let want = complex_expected_flags(&e, &refs, p, rnd);
                assert_eq!(
                    stats.patched,
                    want.iter().filter(|&&f| f).count(),
                    "{what}: patched elements ({stats:?})"
                );
                assert_eq!((stats.fused, stats.host), (1, 0), "{what}: {stats:?}");
            }
            patched += stats.patched;
            split += stats.split;
        }
    }
    assert!(patched > 0 && split > 0, "patched {patched}, split {split}");
}

/// Fixed shapes of the complex kernel: products of products on all-normal
/// inputs patch nothing, the same with special values patch exactly the
/// unusual products; many elements (several blocks); parts above the
/// device tiers (the CPU engine); a constant-only segment, a shared
/// subexpression and a split node at the root; an inexact constant under
/// two modes (two sources).
#[test]
#[ignore = "needs a GPU"]
fn cuda_complex_fused_shapes() {
    use mparray::complex::CRound;
    let dev = cuda();
    let mut r = Rng(seed());
    let e = Expr::parse("(a*b)*(c*a) - (b*c)*c + -a").unwrap();
    for (p, special) in [(128u64, 0), (512, 0), (512, 2), (2000, 2)] {
        let pparts = [(p, p), (p + 64, 64), (53, p)];
        let ins = complex_mixed_inputs(&mut r, 3, 20000, &pparts, special);
        let rnd = CRound {
            re: Round::Up,
            im: Round::Nearest,
        };
        let what = format!("products at {p} bits, special {special}");
        let stats = complex_device_equals_cpu(&dev, &e, &ins, p, rnd, &what);
        assert_eq!((stats.fused, stats.split, stats.host), (1, 0, 0), "{what}");
        // The patched elements are exactly the predicted ones: without
        // special inputs those whose shared values cancel exactly (a zero
        // part in a product), with them more.
        let refs: Vec<&mparray::ComplexArray> = ins.iter().collect();
        let want = complex_expected_flags(&e, &refs, p, rnd);
        let want = want.iter().filter(|&&f| f).count();
        assert_eq!(stats.patched, want, "{what}: {stats:?}");
        if special > 0 {
            assert!(stats.patched > 0, "{what}: {stats:?}");
        }
    }
    // Above the device tiers: the CPU engine, moved back.
    let big = 64 * 300;
    let ins = complex_mixed_inputs(&mut r, 2, 20, &[(big, big)], 2);
    let stats = complex_device_equals_cpu(
        &dev,
        &Expr::parse("a*b+a").unwrap(),
        &ins,
        big,
        CRound::both(Round::Nearest),
        "above the tiers",
    );
    assert_eq!((stats.fused, stats.host), (0, 1));
    for (text, split) in [
        ("exp(2*3) + a", 1),
        ("sqrt(a*b) * (a*b) + a*b", 1),
        ("pow(a*b - b, a) / (a + 0.1)", 2),
    ] {
        let e = Expr::parse(text).unwrap();
        let ins = complex_mixed_inputs(&mut r, e.inputs().len(), 500, &[(192, 150)], 1);
        let stats =
            complex_device_equals_cpu(&dev, &e, &ins, 192, CRound::both(Round::Nearest), text);
        assert_eq!(stats.split, split, "{text}: {stats:?}");
    }
    let e = Expr::parse("a*0.1 + 0.1").unwrap();
    let ins = complex_mixed_inputs(&mut r, 1, 100, &[(1100, 1100)], 0);
    for m in [Round::Up, Round::Down] {
        complex_device_equals_cpu(&dev, &e, &ins, 1100, CRound::both(m), "a*0.1 + 0.1");
    }
}
