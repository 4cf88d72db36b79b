//! Fused expressions on the CPU: random expression trees (depth up to 6,
//! every operation) on random and edge inputs against malachite and against
//! the unfused chain of library operations (bit for bit); the parser's
//! errors and columns; common subexpressions; the CLI.
mod common;
mod expr_gen;

use common::*;
use expr_gen::*;
use malachite_nz::natural::Natural;
use mparray::expr::{self, Expr, Node, parse};
use mparray::float::Round;
use mparray::{Engine, FloatArray, IntArray};

fn int_inputs(r: &mut Rng, n: usize, bits: u64, len: usize) -> Vec<IntArray> {
    let l = (bits / 64) as usize;
    let edges = edge_values(l);
    (0..n)
        .map(|_| {
            let mut v = Vec::with_capacity(len * l);
            for i in 0..len {
                if i < edges.len() && r.below(2) == 0 {
                    v.extend_from_slice(&edges[r.index(edges.len())]);
                } else {
                    // Small values too, so that comparisons and selects see
                    // equal operands.
                    let small = r.below(4) == 0;
                    for j in 0..l {
                        v.push(if small && j > 0 {
                            0
                        } else if small {
                            r.below(4)
                        } else {
                            r.next()
                        });
                    }
                }
            }
            IntArray::from_limbs(bits, v).unwrap()
        })
        .collect()
}

#[test]
fn int_random_trees_vs_malachite_and_chain() {
    let mut r = Rng(seed());
    for round in 0..60 {
        let bits = r.pick(&[64u64, 128, 192, 320, 1024]);
        let nin = 1 + r.index(4);
        let text = int_text(&mut r, nin, 1 + (round % 6) as u32, bits);
        let names: Vec<String> = (0..nin)
            .map(|k| ((b'a' + k as u8) as char).to_string())
            .collect();
        let e = parse::parse_with(&text, Some(&names)).unwrap();
        let len = 40;
        let ins = int_inputs(&mut r, nin, bits, len);
        let refs: Vec<&IntArray> = ins.iter().collect();
        let got = expr::eval_int(&e, &refs).unwrap();
        let chain = expr::chain_int(&e, &refs).unwrap();
        assert_eq!(
            got.to_limbs().unwrap(),
            chain.to_limbs().unwrap(),
            "{text} at {bits} bits: chain"
        );
        let nat: Vec<Vec<Natural>> = ins.iter().map(|a| a.to_naturals().unwrap()).collect();
        let g = got.to_naturals().unwrap();
        for i in 0..len {
            let xs: Vec<Natural> = nat.iter().map(|v| v[i].clone()).collect();
            assert_eq!(
                g[i],
                int_reference(&e, &xs, bits),
                "{text} at {bits} bits, element {i}"
            );
        }
    }
}

#[test]
fn int_fused_shapes_equal_the_hand_fused() {
    let mut r = Rng(seed());
    for bits in [64u64, 256, 4096] {
        let ins = int_inputs(&mut r, 2, bits, 33);
        let (a, b) = (&ins[0], &ins[1]);
        let poly = Expr::parse("(a*a+b)*(b*b+b)+a*b").unwrap();
        let six = Expr::parse("a+b+a+b+a+b+a").unwrap();
        let want_p = a
            .fused(b, mparray::Fused::Poly)
            .unwrap()
            .to_limbs()
            .unwrap();
        let want_s = a
            .fused(b, mparray::Fused::SixAdd)
            .unwrap()
            .to_limbs()
            .unwrap();
        assert_eq!(
            expr::eval_int(&poly, &[a, b]).unwrap().to_limbs().unwrap(),
            want_p
        );
        assert_eq!(
            expr::eval_int(&six, &[a, b]).unwrap().to_limbs().unwrap(),
            want_s
        );
        // Operands swapped and written another way: the same shapes.
        let poly2 = Expr::parse("b*a + (b + b*b)*(y + a*a)").unwrap();
        let _ = poly2;
    }
}

#[test]
fn shapes_are_recognised() {
    let poly = Expr::parse("(a*a+b)*(b*b+b)+a*b").unwrap();
    assert_eq!(mparray::expr::cuda::match_poly(&poly), Some((0, 1)));
    let swapped = parse::parse_with(
        "b*a + (b + b*b)*(b + a*a)",
        Some(&["a".to_string(), "b".to_string()]),
    )
    .unwrap();
    assert_eq!(mparray::expr::cuda::match_poly(&swapped), Some((0, 1)));
    let other = Expr::parse("(a*a+b)*(b*b+a)+a*b").unwrap();
    assert_eq!(mparray::expr::cuda::match_poly(&other), None);
    let six = Expr::parse("a+b+a+b+a+b+a").unwrap();
    assert_eq!(
        mparray::expr::codegen::sum_terms(&six),
        Some(vec![0, 1, 0, 1, 0, 1, 0])
    );
    assert_eq!(
        mparray::expr::codegen::sum_terms(&Expr::parse("a+b*c").unwrap()),
        None
    );
    // The generated staged sum has the hand kernel's six steps.
    let src = mparray::expr::codegen::sum_kernel(&[0, 1, 0, 1, 0, 1, 0], 4, 256);
    assert_eq!(src.matches("acc_chain(sum,").count(), 5);
    assert!(src.contains("extern \"C\" __global__ void __launch_bounds__(ADD_B) expr_sum_staged"));
    assert!(!src.contains("int_six_add_staged("), "entry points cut");
}

#[test]
fn common_subexpressions_are_one_node() {
    let e = Expr::parse("a*b + a*b + b*a").unwrap();
    let muls = e
        .nodes()
        .iter()
        .filter(|n| matches!(n, Node::Op(mparray::expr::Op::Mul, _)))
        .count();
    assert_eq!(muls, 1);
    assert_eq!(e.canonical(), "i0;i1;mul(0,1);add(2,2);add(2,3)");
    assert_eq!(
        Expr::parse("(a*a+b)*(b*b+b)+a*b").unwrap().canonical(),
        Expr::parse("((a*a)+b)*((b*b)+b)+(a*b)")
            .unwrap()
            .canonical()
    );
}

#[test]
fn parser_errors_name_the_column() {
    let names = vec!["a".to_string(), "b".to_string()];
    let cases: [(&str, usize, &str); 15] = [
        ("a+*b", 3, "expected a name"),
        ("a+", 3, "the end"),
        ("(a+b", 5, "expected ')'"),
        ("a+b)", 4, "unexpected ')'"),
        ("a + foo(b)", 5, "unknown function 'foo'"),
        ("a + c", 5, "unknown name 'c'"),
        ("a << b", 6, "shift count must be a constant"),
        ("a $ b", 3, "unexpected character"),
        ("fma(a, b)", 1, "takes 3 arguments"),
        ("", 1, "empty expression"),
        ("12ab", 3, "in a number"),
        ("a ? b", 6, "expected ':'"),
        ("b*expp(a)", 3, "unknown function 'expp'"),
        ("a + exp(a, b)", 5, "exp takes 1 arguments"),
        ("hypot(a)", 1, "hypot takes 2 arguments"),
    ];
    for (text, col, msg) in cases {
        let e = parse::parse_with(text, Some(&names)).unwrap_err();
        assert_eq!(e.column, col, "{text}: {e}");
        assert!(e.message.contains(msg), "{text}: {e}");
    }
    // Deep nesting is an error, not a stack overflow.
    let deep = "(".repeat(5000) + "a" + &")".repeat(5000);
    assert!(parse::parse(&deep).unwrap_err().message.contains("deeply"));
    // Kind checks.
    assert!(Expr::parse("a/b").unwrap().check_kind(false).is_err());
    assert!(Expr::parse("a<<3").unwrap().check_kind(true).is_err());
    assert!(Expr::parse("exp(a)").unwrap().check_kind(false).is_err());
    assert!(
        Expr::parse("exp(a)+atan2(a,b)")
            .unwrap()
            .check_kind(true)
            .is_ok()
    );
    for ok in [
        "sqrt(a)/b-exp(-a)",
        "pow(a, acos(b))",
        "tanh(a)*sinh(b)",
        "fma(a,b,a)",
    ] {
        assert!(Expr::parse(ok).unwrap().check_complex().is_ok(), "{ok}");
    }
    for bad in ["hypot(a,b)", "cbrt(a)", "atan2(a,b)", "a<<1", "log2(a)"] {
        let e = Expr::parse(bad).unwrap().check_complex().unwrap_err();
        assert!(
            e.to_string().contains("not defined for complex"),
            "{bad}: {e}"
        );
    }
    // Functions are nodes of the canonical form; a name without '(' is an
    // input.
    assert_eq!(
        Expr::parse("exp(a*b)+exp(b*a)").unwrap().canonical(),
        "i0;i1;mul(0,1);exp(2);add(3,3)"
    );
    assert_eq!(
        Expr::parse("exp + log(exp)").unwrap().canonical(),
        "i0;log(0);add(0,1)"
    );
}

#[test]
fn int_errors_are_values() {
    let e = Expr::parse("a+b").unwrap();
    let a = IntArray::from_strs(64, &["1", "2"]).unwrap();
    let b = IntArray::from_strs(128, &["1", "2"]).unwrap();
    let c = IntArray::from_strs(64, &["1"]).unwrap();
    assert!(expr::eval_int(&e, &[&a, &b]).is_err());
    assert!(expr::eval_int(&e, &[&a, &c]).is_err());
    assert!(expr::eval_int(&e, &[&a]).is_err());
    let big = Expr::parse("a + 0x1ffffffffffffffff").unwrap();
    assert!(expr::eval_int(&big, &[&a, &a][..1]).is_err());
    let none = Expr::parse("3*4").unwrap();
    let r = expr::eval_int_on(&none, &[], &Engine::Cpu, 64, 3).unwrap();
    assert_eq!(r.to_strings(mparray::Radix::Dec).unwrap(), vec!["12"; 3]);
}

fn float_inputs(r: &mut Rng, nin: usize, len: usize, precs: &[u64]) -> Vec<FloatArray> {
    (0..nin)
        .map(|k| {
            let p = precs[k % precs.len()];
            let mut strs: Vec<String> = Vec::new();
            for i in 0..len {
                strs.push(match (i, r.below(12)) {
                    (0, _) | (_, 0) => {
                        ["0", "-0", "inf", "-inf", "nan", "1", "-2.5"][r.index(7)].into()
                    }
                    _ => format!(
                        "{}{}.{}e{}",
                        if r.below(2) == 0 { "-" } else { "" },
                        r.below(1000),
                        r.next(),
                        r.range(-40, 40)
                    ),
                });
            }
            FloatArray::from_strs(p, &strs).unwrap()
        })
        .collect()
}

#[test]
fn float_random_trees_vs_chain_and_malachite() {
    use malachite_float::ComparableFloatRef;
    let mut r = Rng(seed());
    let modes = [
        Round::Nearest,
        Round::Zero,
        Round::Up,
        Round::Down,
        Round::Away,
    ];
    for round in 0..40 {
        let p = r.pick(&[24u64, 53, 64, 128, 200, 512]);
        let rnd = modes[round % 5];
        let nin = 1 + r.index(4);
        let text = float_text(&mut r, nin, 1 + (round % 6) as u32);
        let names: Vec<String> = (0..nin)
            .map(|k| ((b'a' + k as u8) as char).to_string())
            .collect();
        let e = parse::parse_with(&text, Some(&names)).unwrap();
        let ins = float_inputs(&mut r, nin, 24, &[p, p + 37, 64]);
        let refs: Vec<&FloatArray> = ins.iter().collect();
        let got = expr::eval_float(&e, &refs, p, rnd).unwrap();
        let chain = expr::chain_float(&e, &refs, p, rnd).unwrap();
        assert!(
            got == chain,
            "{text} at {p} bits {rnd:?}: differs from the chain"
        );
        for i in 0..got.len() {
            let xs: Vec<_> = ins.iter().map(|a| a.to_float(i).unwrap()).collect();
            let want = float_reference(&e, &xs, p, rnd);
            assert!(
                ComparableFloatRef(&got.to_float(i).unwrap()) == ComparableFloatRef(&want),
                "{text} at {p} bits {rnd:?}, element {i}: {} vs {want}",
                got.to_float(i).unwrap()
            );
        }
    }
}

fn file(t: &Tmp, name: &str, text: &str) -> std::path::PathBuf {
    let p = t.0.join(name);
    std::fs::write(&p, text).unwrap();
    p
}

/// Runs the CLI with `args`, then the files.
fn cli(args: &[&str], files: &[&std::path::Path]) -> std::process::Output {
    std::process::Command::new(mparray_bin())
        .args(args)
        .args(files)
        .output()
        .unwrap()
}

/// The CLI's standard output; it must succeed.
fn cli_ok(args: &[&str], files: &[&std::path::Path]) -> String {
    let out = cli(args, files);
    assert!(
        out.status.success(),
        "{args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout).into_owned()
}

/// The CLI exits 2 and its message contains `msg`.
fn cli_fails(args: &[&str], files: &[&std::path::Path], msg: &str) {
    let out = cli(args, files);
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{args:?}: {err}");
    assert!(err.contains(msg), "{args:?}: {err}");
}

#[test]
fn cli_eval() {
    let t = Tmp::new();
    let a = file(&t, "a.txt", "1\n2\n0x10\n");
    let b = file(&t, "b.txt", "3\n4\n5\n");
    let e64 = ["--bits", "64", "--engine", "cpu"];
    let out = cli_ok(
        &[&["int", "eval", "(a*a+b)*(b*b+b)+a*b"], &e64[..]].concat(),
        &[&a, &b],
    );
    assert_eq!(out, "51\n168\n7910\n");
    let (vy, vx) = (
        format!("--var=y={}", a.display()),
        format!("--var=x={}", b.display()),
    );
    let out = cli_ok(
        &[&["int", "eval", "x - y", "--dec", &vy, &vx], &e64[..]].concat(),
        &[],
    );
    assert_eq!(out, "2\n2\n18446744073709551605\n");
    // Errors: exit 2 with the column.
    for (ex, msg) in [("a + * b", "column 5"), ("a + c", "unknown name 'c'")] {
        cli_fails(&[&["int", "eval", ex], &e64[..]].concat(), &[&a, &b], msg);
    }
    let f = file(&t, "f.txt", "1.5\n-2\n");
    let g = file(&t, "g.txt", "0.25\n3\n");
    let s = cli_ok(
        &[
            "float",
            "eval",
            "sqrt(a*a + b)",
            "--prec",
            "53",
            "--engine",
            "cpu",
            "--digits",
            "6",
        ],
        &[&f, &g],
    );
    let lines: Vec<&str> = s.lines().collect();
    assert_eq!(lines.len(), 2);
    assert!(lines[0].starts_with("1.58114"), "{s}");
    assert!(lines[1].starts_with("2.64575"), "{s}");
}

/// Host emulation of the generated thread-per-element kernels: the source
/// compiled by g++ behind a shim (one thread walks every element), run on
/// the inputs, compared with the CPU engine. Catches generator errors
/// without a GPU.
const SHIM: &str = r#"
#include <cstdio>
#include <vector>
#define __global__
#define __device__
#define __forceinline__ inline
#define __noinline__
#define __launch_bounds__(...)
#define __restrict__
#define __shared__ static
static inline void __syncthreads() {}
struct EmuDim { unsigned x, y, z; };
static EmuDim blockIdx = {0, 0, 0}, blockDim = {1, 1, 1}, threadIdx = {0, 0, 0}, gridDim = {1, 1, 1};
typedef unsigned long long u64;
struct ulonglong2 { u64 x, y; };
static inline u64 __umul64hi(u64 a, u64 b) { return (u64)(((unsigned __int128)a * b) >> 64); }
static inline unsigned atomicAdd(unsigned *a, unsigned v) { unsigned o = *a; *a += v; return o; }
"#;

fn emulate(src: &str, input: &[u64], out_words: usize) -> Option<Vec<u64>> {
    use std::io::{Read, Write};
    if std::env::var_os("MPARRAY_NO_EMU").is_some() {
        return None;
    }
    let t = Tmp::new();
    let cpp = t.0.join("k.cpp");
    std::fs::write(&cpp, format!("{SHIM}{src}")).unwrap();
    let exe = t.0.join("k");
    let out = std::process::Command::new("g++")
        .args(["-O1", "-std=c++17", "-w", "-o"])
        .arg(&exe)
        .arg(&cpp)
        .output()
        .expect("g++ (set MPARRAY_NO_EMU=1 to skip)");
    assert!(
        out.status.success(),
        "g++: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    let mut child = std::process::Command::new(&exe)
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let bytes: Vec<u8> = input.iter().flat_map(|w| w.to_le_bytes()).collect();
    child.stdin.take().unwrap().write_all(&bytes).unwrap();
    let mut o = Vec::new();
    child.stdout.take().unwrap().read_to_end(&mut o).unwrap();
    assert!(child.wait().unwrap().success());
    assert_eq!(o.len(), out_words * 8);
    Some(
        o.chunks(8)
            .map(|c| u64::from_le_bytes(c.try_into().unwrap()))
            .collect(),
    )
}

#[test]
fn generated_int_kernel_on_the_host() {
    use mparray::expr::{codegen, cpu};
    let mut r = Rng(seed());
    let text = "select(a < b, (a*b + 0x1234) << 70, ~(a ^ c) >> 3) - (a & b | c) * -c + (b >= 7)";
    for limbs in [3usize, 40] {
        let bits = 64 * limbs as u64;
        let e = Expr::parse(text).unwrap();
        let len = 50;
        let ins = int_inputs(&mut r, 3, bits, len);
        let refs: Vec<&IntArray> = ins.iter().collect();
        let want = expr::eval_int(&e, &refs).unwrap().to_limbs().unwrap();
        let consts = cpu::int_constants(&e, bits).unwrap();
        let mut src = codegen::int_kernel(&e, limbs, &consts);
        let slots = codegen::op_slots(&e);
        src.push_str(&format!(
            r#"
int main() {{
    u64 n = {len}, L = {limbs};
    std::vector<u64> a(n * L), b(n * L), c(n * L), r(n * L), s({slots} * n * L + 1);
    fread(a.data(), 8, n * L, stdin); fread(b.data(), 8, n * L, stdin); fread(c.data(), 8, n * L, stdin);
    expr_int(r.data(), s.data(), a.data(), b.data(), c.data(), n);
    fwrite(r.data(), 8, n * L, stdout);
}}
"#
        ));
        let input: Vec<u64> = ins.iter().flat_map(|a| a.to_limbs().unwrap()).collect();
        if let Some(got) = emulate(&src, &input, len * limbs) {
            assert_eq!(got, want, "{limbs} limbs");
        }
    }
}

/// The generated float kernels for `e` on the host (one g++ program, each
/// variant in its own namespace): the register kernel with its register
/// paths out of line and inline, and the generic kernel (staged when
/// `tile`); their outputs (heads, limbs) in that order, or None when
/// emulation is off.
fn emulate_float(
    e: &Expr,
    ins: &[FloatArray],
    p: u64,
    rnd: Round,
    tile: bool,
) -> Option<Vec<(Vec<u64>, Vec<u64>)>> {
    use mparray::expr::{codegen, cpu};
    let n = mparray::float::limbs_for_prec(p);
    let lk: Vec<usize> = ins.iter().map(|a| a.limbs_per_element()).collect();
    let tier = mparray::float::cuda::tier_for(lk.iter().copied().fold(n, usize::max)).unwrap();
    let consts = cpu::float_constants(e, p, rnd).unwrap();
    let mut plan = codegen::regs_plan(e, n, &lk).expect("a register plan");
    let mut srcs = vec![codegen::float_kernel_regs(
        e, p, n, &lk, tier, &consts, &plan,
    )];
    plan.inline = true;
    srcs.push(codegen::float_kernel_regs(
        e, p, n, &lk, tier, &consts, &plan,
    ));
    srcs.push(codegen::float_kernel(e, p, n, &lk, tier, &consts, tile));
    // Compile-time precision and rounding mode, fast and exact code in
    // separate functions.
    plan.inline = false;
    plan.set_opt("psrdf", mparray::float::cuda::round_code(rnd));
    srcs.push(codegen::float_kernel_regs(
        e, p, n, &lk, tier, &consts, &plan,
    ));
    let mut src = String::new();
    for (v, s) in srcs.iter().enumerate() {
        src.push_str(&format!(
            "namespace v{v} {{\n{}\n}}\n",
            s.replace("extern \"C\" ", "").replace("#pragma once", "")
        ));
    }
    let m = ins.len();
    let len = ins[0].len();
    let rc = mparray::float::cuda::round_code(rnd);
    let lks: Vec<String> = lk.iter().map(|l| l.to_string()).collect();
    let args: Vec<String> = (0..m)
        .map(|k| format!("h[{k}].data(), l[{k}].data()"))
        .collect();
    src.push_str(&format!(
        r#"
int main() {{
    u64 n = {len};
    std::vector<u64> h[{m}], l[{m}];
    u64 lk[{m}] = {{{}}};
    for (int k = 0; k < {m}; k++) {{
        h[k].resize(n); l[k].resize(n * lk[k]);
        fread(h[k].data(), 8, n, stdin); fread(l[k].data(), 8, n * lk[k], stdin);
    }}
    std::vector<u64> rh(n), rl(n * {n});
"#,
        lks.join(", ")
    ));
    for v in 0..srcs.len() {
        src.push_str(&format!(
            "    v{v}::expr_float(rh.data(), rl.data(), {}, n, {rc});\n    fwrite(rh.data(), 8, n, stdout); fwrite(rl.data(), 8, n * {n}, stdout);\n",
            args.join(", ")
        ));
    }
    src.push_str("}\n");
    let mut input = Vec::new();
    for a in ins {
        let (t, x) = (a.tags().unwrap(), a.exps().unwrap());
        input.extend((0..len).map(|i| ((x[i] as u64) << 8) | t[i] as u64));
        input.extend_from_slice(a.limbs().unwrap());
    }
    let per = len * (1 + n);
    let got = emulate(&src, &input, srcs.len() * per)?;
    Some(
        got.chunks(per)
            .map(|c| (c[..len].to_vec(), c[len..].to_vec()))
            .collect(),
    )
}

/// Each emulated kernel's output against `want`.
fn check_emulated(got: &[(Vec<u64>, Vec<u64>)], want: &FloatArray, what: &str) {
    let names = [
        "register",
        "register inline",
        "generic",
        "register (constant p and mode, split, direct loads, 32-bit rounding)",
    ];
    for (v, (rh, rl)) in got.iter().enumerate() {
        let tags: Vec<u8> = rh.iter().map(|h| (h & 0xff) as u8).collect();
        let exps: Vec<i64> = rh.iter().map(|h| (*h as i64) >> 8).collect();
        assert_eq!(
            tags,
            want.tags().unwrap(),
            "{what}, {} kernel: tags",
            names[v]
        );
        assert_eq!(
            exps,
            want.exps().unwrap(),
            "{what}, {} kernel: exponents",
            names[v]
        );
        assert_eq!(
            rl,
            want.limbs().unwrap(),
            "{what}, {} kernel: limbs",
            names[v]
        );
    }
}

#[test]
fn generated_float_kernel_on_the_host() {
    let mut r = Rng(seed());
    let text = "fma(a, b, -c) / sqrt(a*a + 0.1) - (b - c*a) + b*c / a";
    for (p, pin, rnds) in [
        (192u64, [192u64, 192, 192], &[Round::Nearest][..]),
        (512, [512, 512, 512], &[Round::Up, Round::Zero][..]),
        (300, [64, 500, 300], &[Round::Nearest, Round::Up][..]),
    ] {
        for &rnd in rnds {
            let e = Expr::parse(text).unwrap();
            let ins = float_inputs(&mut r, 3, 60, &pin);
            let refs: Vec<&FloatArray> = ins.iter().collect();
            let want = expr::eval_float(&e, &refs, p, rnd).unwrap();
            if let Some(got) = emulate_float(&e, &ins, p, rnd, rnd == Round::Up) {
                check_emulated(&got, &want, &format!("{p} {rnd:?}"));
            }
        }
    }
}

/// Random trees (depth up to 6, every float operation) through the
/// generated kernels on the host, against the unfused chain of library
/// operations, at register sizes (up to 16 limbs) and mixed input
/// precisions.
#[test]
fn generated_float_kernels_random_trees_on_the_host() {
    let mut r = Rng(seed());
    let modes = [Round::Nearest, Round::Down, Round::Away];
    for round in 0..3 {
        let p = [128u64, 512, 1000][round];
        let rnd = modes[round];
        let nin = 2 + r.index(3);
        let names: Vec<String> = (0..nin)
            .map(|k| ((b'a' + k as u8) as char).to_string())
            .collect();
        let pin = [p, p, p + 37, 64];
        // A tree whose slots fit the register kernel (a deep tree at 16
        // limbs may not: the library then takes the generic kernel).
        let n = mparray::float::limbs_for_prec(p);
        let lk: Vec<usize> = (0..nin)
            .map(|k| mparray::float::limbs_for_prec(pin[k % 4]))
            .collect();
        let (text, e) = loop {
            let text = float_text(&mut r, nin, 6);
            let e = parse::parse_with(&text, Some(&names)).unwrap();
            if mparray::expr::codegen::regs_plan(&e, n, &lk).is_some() {
                break (text, e);
            }
        };
        let ins = float_inputs(&mut r, nin, 40, &pin);
        let refs: Vec<&FloatArray> = ins.iter().collect();
        let chain = expr::chain_float(&e, &refs, p, rnd).unwrap();
        if let Some(got) = emulate_float(&e, &ins, p, rnd, round == 1) {
            check_emulated(&got, &chain, &format!("{text} at {p} bits {rnd:?}"));
        }
    }
}

/// NVRTC's time for the generated float kernels (no GPU needed, NVRTC in
/// LD_LIBRARY_PATH): prints the milliseconds and ptxas's register and
/// spill counts per shape. A measurement, not a check: `cargo test
/// --release --test expr nvrtc_time -- --ignored --nocapture`.
#[test]
#[ignore = "needs NVRTC; prints compile times"]
fn nvrtc_time_of_generated_float_kernels() {
    use mparray::expr::{codegen, cpu};
    let arch = std::env::var("MPARRAY_ARCH").unwrap_or_else(|_| "sm_90".into());
    let texts = std::env::var("MPARRAY_EXPRS").unwrap_or_else(|_| {
        "a*b+c*d;(a*b+c*d)*e;(a*b+c*d)/e;(a*b+c*d)*e-f;fma(a,b,-c)/sqrt(a*a+0.1)-(b-c*a)+b*c".into()
    });
    let p: u64 = std::env::var("MPARRAY_PREC")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(512);
    let n = mparray::float::limbs_for_prec(p);
    for text in texts.split(';') {
        let e = Expr::parse(text).unwrap();
        let lk = vec![n; e.inputs().len()];
        let tier = mparray::float::cuda::tier_for(n).unwrap();
        let consts = cpu::float_constants(&e, p, Round::Nearest).unwrap();
        let mut srcs = vec![(
            "generic",
            codegen::float_kernel(&e, p, n, &lk, tier, &consts, true),
        )];
        if let Some(mut plan) = codegen::regs_plan(&e, n, &lk) {
            srcs.push((
                "regs",
                codegen::float_kernel_regs(&e, p, n, &lk, tier, &consts, &plan),
            ));
            plan.inline = true;
            srcs.push((
                "regs-inline",
                codegen::float_kernel_regs(&e, p, n, &lk, tier, &consts, &plan),
            ));
            // MPARRAY_EXPR_OPT's letters, as eval_float reads them.
            let opt = std::env::var("MPARRAY_EXPR_OPT")
                .unwrap_or_else(|_| codegen::REGS_DEFAULT_OPT.to_string());
            plan.inline = false;
            plan.set_opt(&opt, 0);
            srcs.push((
                "regs-opt",
                codegen::float_kernel_regs(&e, p, n, &lk, tier, &consts, &plan),
            ));
        }
        for (kind, src) in srcs {
            let t0 = std::time::Instant::now();
            let c = mparray::engine::cuda::compile::compile(
                "expr_t",
                &src,
                &["--ptxas-options=-v".to_string()],
                &arch,
                None,
            )
            .unwrap();
            let ms = t0.elapsed().as_secs_f64() * 1e3;
            if let Ok(d) = std::env::var("MPARRAY_EXPR_SRC_DIR") {
                let stem = format!(
                    "{d}/{}-{kind}",
                    text.replace(|c: char| !c.is_ascii_alphanumeric(), "_")
                );
                let _ = std::fs::write(format!("{stem}.cu"), &src);
                let _ = std::fs::write(format!("{stem}.cubin"), &c.cubin);
            }
            let info: Vec<&str> = c
                .log
                .lines()
                .filter(|l| {
                    l.contains("registers")
                        || l.contains("spill")
                        || l.contains("stack")
                        || l.contains("unction")
                })
                .collect();
            println!("{text} [{kind}]: {ms:.0} ms, {} bytes of source", src.len());
            for l in info {
                println!("    {}", l.trim());
            }
        }
    }
}

/// The register kernel's products (fl_mul_short32: 32-bit limb carry
/// chains, the products below column 2N - 3 left out) on the host against
/// the CPU engine, at an odd limb count and at 16 limbs: random mantissas,
/// and products whose limb N - 1 is all zeros or all ones (2^k - 1, 2^k + 1,
/// small integers), where the short product cannot decide and the exact
/// code takes over.
#[test]
fn generated_float_short_products_32_on_the_host() {
    let mut r = Rng(seed());
    let e = Expr::parse("a*b*a - b*b").unwrap();
    let one = || Natural::from(1u32);
    for (p, rnd) in [(320u64, Round::Nearest), (1024, Round::Up)] {
        let l = p / 64;
        let crafted = |k: u64| -> String {
            match k % 6 {
                0 => (one() << (64 * (l / 2) + k % 7)).to_string(),
                1 => ((one() << (64 * (l / 2))) - one()).to_string(),
                2 => ((one() << (32 * l + 1)) + one()).to_string(),
                3 => ((one() << (64 * l - 3)) - one()).to_string(),
                4 => format!("{}", 3 + k),
                _ => ((one() << (64 * l)) - one()).to_string(),
            }
        };
        let ins: Vec<FloatArray> = (0..2u64)
            .map(|j| {
                let mut strs: Vec<String> = (0..40)
                    .map(|_| {
                        format!(
                            "{}{}.{}e{}",
                            if r.below(2) == 0 { "-" } else { "" },
                            r.below(1000),
                            r.next(),
                            r.range(-40, 40)
                        )
                    })
                    .collect();
                strs.extend((0..24).map(|k| crafted(k + 5 * j)));
                FloatArray::from_strs(p, &strs).unwrap()
            })
            .collect();
        let refs: Vec<&FloatArray> = ins.iter().collect();
        let want = expr::eval_float(&e, &refs, p, rnd).unwrap();
        if let Some(got) = emulate_float(&e, &ins, p, rnd, false) {
            check_emulated(&got, &want, &format!("products at {p} bits {rnd:?}"));
        }
    }
}

/// fl_mul_short32 (the register kernel's 32-bit limb short product) on the
/// host against the exact product rounded once (fl_mul_fast), 8 limb
/// counts, every rounding mode, random and patterned limbs
/// (tests/emu/mulshort/emu.cpp).
#[test]
fn short_product_32_equals_the_exact_product_on_the_host() {
    let Some(exe) = common::emulator("MPARRAY_MULSHORT_EMU", "tests/emu/mulshort/emu.cpp") else {
        return;
    };
    let out = std::process::Command::new(exe)
        .args(["60000", &seed().to_string()])
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "{text}");
    assert_eq!(text.matches("mismatches 0").count(), 8, "{text}");
}

/// The register kernel's product with its rounding on 32-bit words
/// (`codegen::EX_MUL32`, variant `f` of the measurements) on the host
/// against fl_mul_short32 (the same decisions) and the exact product
/// rounded once (fl_mul_fast): limb counts 4, 5, 8, 9, 16, precisions
/// 64N - low for low in {0, 1, 20, 31, 32, 33, 63}, every rounding mode,
/// random and patterned limbs (runs of zeros and ones, all-ones mantissas
/// whose rounding carries out), exponents near both ends of the range.
#[test]
fn product_rounding_on_32_bit_words_equals_the_exact_product_on_the_host() {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
    let inc = root.join("src/kernels/float_common.cuh");
    let mut src = String::from(
        "#include <cstdio>\n#include <cstdlib>\ntypedef unsigned long long u64;\ntypedef unsigned int u32;\ntypedef long long i64;\ntypedef unsigned char u8;\n#define __device__\n#define __forceinline__ inline\n",
    );
    src.push_str(&format!("#include \"{}\"\n", inc.display()));
    src.push_str(mparray::expr::codegen::EX_MUL32);
    src.push_str(
        r#"
static u64 s;
static u64 rnd64() { s ^= s << 13; s ^= s >> 7; s ^= s << 17; return s; }
static u64 limb(int mode) {
    static const u64 pat[] = {0, ~0ull, 1ull << 63, 0xffffffffull, 0xffffffff00000000ull, 1, 0x8000000080000000ull};
    if (mode == 0 || (rnd64() & 3) == 0) return rnd64();
    if (mode == 2) return ~0ull;
    return pat[rnd64() % 7];
}
template <int N, u64 P>
static long run(long iters, long &decided) {
    long bad = 0;
    for (long it = 0; it < iters; it++) {
        u64 x[N], y[N];
        int mode = it % 5 == 0 ? 0 : (it % 5 == 1 ? 2 : 1);
        for (int i = 0; i < N; i++) { x[i] = limb(mode); y[i] = limb(mode); }
        x[N - 1] |= 1ull << 63; y[N - 1] |= 1ull << 63;
        i64 ex = (i64)(rnd64() % 4000) - 2000, ey = (i64)(rnd64() % 4000) - 2000;
        if (it % 7 == 0) { ex = FL_EMAX - (i64)(rnd64() % 3); ey = (i64)(rnd64() % 3); }
        if (it % 7 == 1) { ex = FL_EMIN + (i64)(rnd64() % 3); ey = -(i64)(rnd64() % 3); }
        u64 xh = fl_head(FL_NORMAL | ((rnd64() & 1) ? FL_NEG : 0u), ex);
        u64 yh = fl_head(FL_NORMAL | ((rnd64() & 1) ? FL_NEG : 0u), ey);
        u32 rm = (u32)(rnd64() % 5);
        u64 m1[N], m2[N], m3[N];
        FlOut o1 = {m1, N, 0}, o2 = {m2, N, 0}, o3 = {m3, N, 0};
        i8 t1 = 0, t3 = 0;
        bool ok = ex_mul32<N, P>(o1, xh, x, yh, y, P, rm, t1);
        bool ok3 = fl_mul_short32<N>(o3, xh, x, yh, y, P, rm, t3);
        i8 t2 = fl_mul_fast<N>(o2, xh, x, yh, y, P, rm);
        if (ok != ok3) { bad++; continue; }
        if (!ok) continue;
        decided++;
        bool same = o1.head == o2.head && t1 == t2;
        for (int i = 0; i < N; i++) same = same && m1[i] == m2[i];
        if (!same) bad++;
    }
    return bad;
}
template <int N>
static long all(long n, long &d) {
    return run<N, 64 * N>(n, d) + run<N, 64 * N - 1>(n, d) + run<N, 64 * N - 20>(n, d) +
           run<N, 64 * N - 31>(n, d) + run<N, 64 * N - 32>(n, d) + run<N, 64 * N - 33>(n, d) +
           run<N, 64 * N - 63>(n, d);
}
int main(int argc, char **argv) {
    long n = atol(argv[1]);
    s = strtoull(argv[2], 0, 10) | 1;
    long d = 0;
    long bad = all<4>(n, d) + all<5>(n, d) + all<8>(n, d) + all<9>(n, d) + all<16>(n, d);
    printf("decided %ld mismatches %ld\n", d, bad);
    return bad ? 1 : 0;
}
"#,
    );
    if std::env::var_os("MPARRAY_NO_EMU").is_some() {
        return;
    }
    let dir = std::env::temp_dir().join(format!("mparray-exmul32-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let cpp = dir.join("m.cpp");
    let exe = dir.join("m");
    std::fs::write(&cpp, &src).unwrap();
    let out = std::process::Command::new("g++")
        .args(["-O1", "-std=c++17", "-w", "-o"])
        .arg(&exe)
        .arg(&cpp)
        .output()
        .expect("g++ (set MPARRAY_NO_EMU=1 to skip)");
    assert!(
        out.status.success(),
        "g++: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    let run = std::process::Command::new(&exe)
        .args(["3000", &seed().to_string()])
        .output()
        .unwrap();
    let _ = std::fs::remove_dir_all(&dir);
    let text = String::from_utf8_lossy(&run.stdout);
    assert!(run.status.success(), "{text}");
    assert!(text.contains("mismatches 0"), "{text}");
    let decided: u64 = text
        .split_whitespace()
        .nth(1)
        .and_then(|v| v.parse().ok())
        .unwrap_or(0);
    assert!(decided > 50_000, "{text}");
}

/// Products just below a power of two (x random of 64N bits, y =
/// floor((2^(128N-1) - 1) / x): the top 64N - 1 bits of x*y are ones and
/// its limb N - 1 is random, so the short product decides and the
/// rounding carries out to the next power of two) through the generated
/// kernels on the host, output precision 64N - low, against the CPU engine.
#[test]
fn generated_float_products_whose_rounding_carries_out_on_the_host() {
    let mut r = Rng(seed());
    let e = Expr::parse("a*b").unwrap();
    for (n, low, rnd) in [(8u64, 9u64, Round::Nearest), (5, 40, Round::Up)] {
        let k = 64 * n;
        let top = Natural::from(1u32) << (2 * k - 1);
        let mut xs = Vec::new();
        let mut ys = Vec::new();
        for _ in 0..24 {
            let mut x = Natural::from(1u32) << (k - 1);
            for j in 0..n {
                x += Natural::from(r.next()) << (64 * j);
            }
            x %= Natural::from(1u32) << k;
            x |= Natural::from(1u32) << (k - 1);
            let y = (&top - Natural::from(1u32)) / &x;
            xs.push(x.to_string());
            ys.push(y.to_string());
        }
        let ins = vec![
            FloatArray::from_strs(k, &xs).unwrap(),
            FloatArray::from_strs(k, &ys).unwrap(),
        ];
        let p = k - low;
        let refs: Vec<&FloatArray> = ins.iter().collect();
        let want = expr::eval_float(&e, &refs, p, rnd).unwrap();
        // Every product rounds up to a power of two: mantissa 2^(64N-1).
        let limbs = want.limbs().unwrap();
        for i in 0..24 {
            let m = &limbs[i * n as usize..(i + 1) * n as usize];
            assert_eq!(m[n as usize - 1], 1u64 << 63, "element {i} carries out");
            assert!(m[..n as usize - 1].iter().all(|&w| w == 0));
        }
        if let Some(got) = emulate_float(&e, &ins, p, rnd, false) {
            check_emulated(&got, &want, &format!("carries at {p} bits {rnd:?}"));
        }
    }
}

/// Float trees with functions (depth up to 6; every `Func` at least once:
/// tree k has `Func::ALL[k % 20]` at its root, and functions inside) on
/// random and special inputs of mixed precisions: the fused CPU evaluation
/// equals the chain of FloatArray operations bit for bit.
#[test]
fn float_function_trees_vs_chain() {
    let mut r = Rng(seed());
    let names = func_names();
    for k in 0..44 {
        let p = r.pick(&[24u64, 53, 64, 113, 200]);
        let rnd = Round::ALL[k % 5];
        let nin = 1 + r.index(3);
        let inner = float_fn_text(&mut r, nin, 1 + (k % 6) as u32);
        let text = if k < 40 {
            let arg = float_fn_arg(&mut r, nin);
            format!("({}({arg}) * {inner})", names[k % names.len()])
        } else {
            inner
        };
        let vn: Vec<String> = (0..nin)
            .map(|j| ((b'a' + j as u8) as char).to_string())
            .collect();
        let e = parse::parse_with(&text, Some(&vn)).unwrap();
        let ins = float_inputs(&mut r, nin, 16, &[p, p + 37, 64]);
        let refs: Vec<&FloatArray> = ins.iter().collect();
        let got = expr::eval_float(&e, &refs, p, rnd).unwrap();
        let chain = expr::chain_float(&e, &refs, p, rnd).unwrap();
        assert!(
            got == chain,
            "{text} at {p} bits {rnd:?}: differs from the chain"
        );
    }
}

/// A sample against the independent reference of the function tests
/// (float::func::reference: other methods in malachite-float at a higher
/// precision): `f(a*b)` (`acosh(a*b+2)`), the product rounded once by
/// malachite, then the reference's correctly rounded `f` in the same mode;
/// also `atan2(a*b, a)` and `hypot(a*b, b)`.
#[test]
fn float_functions_vs_the_reference() {
    use malachite_float::{ComparableFloatRef, Float};
    use mparray::float::func::{Func, Func2, reference};
    let mut r = Rng(seed());
    let p = 80u64;
    for (k, f) in Func::ALL.into_iter().enumerate() {
        let rnd = Round::ALL[k % 5];
        let m = mparray::float::to_rounding_mode(rnd);
        let strs = |r: &mut Rng| -> Vec<String> {
            (0..4)
                .map(|_| format!("0.{}{}", 3 + r.below(6), r.next()))
                .collect()
        };
        let (sa, sb) = (strs(&mut r), strs(&mut r));
        let a = FloatArray::from_strs(p, &sa).unwrap();
        let b = FloatArray::from_strs(p + 20, &sb).unwrap();
        let text = if f == Func::Acosh {
            "acosh(a*b+2)".to_string()
        } else {
            format!("{}(a*b)", f.name())
        };
        let e = Expr::parse(&text).unwrap();
        let got = expr::eval_float(&e, &[&a, &b], p, rnd).unwrap();
        for i in 0..a.len() {
            let mut x = a
                .to_float(i)
                .unwrap()
                .mul_prec_round(b.to_float(i).unwrap(), p, m)
                .0;
            if f == Func::Acosh {
                x = x.add_prec_round(Float::from(2u32), p, m).0;
            }
            let want = &reference::reference(f, &x, p)[k % 5].0;
            assert!(
                ComparableFloatRef(&got.to_float(i).unwrap()) == ComparableFloatRef(want),
                "{text} {rnd:?} element {i}: {} vs {want}",
                got.to_float(i).unwrap()
            );
        }
        if k < 2 {
            let g = [Func2::Atan2, Func2::Hypot][k];
            let e = Expr::parse(&format!("{}(a*b, b)", g.name())).unwrap();
            let got = expr::eval_float(&e, &[&a, &b], p, rnd).unwrap();
            for i in 0..a.len() {
                let x = a
                    .to_float(i)
                    .unwrap()
                    .mul_prec_round(b.to_float(i).unwrap(), p, m)
                    .0;
                let want = &reference::reference2(g, &x, &b.to_float(i).unwrap(), p)[k % 5].0;
                assert!(
                    ComparableFloatRef(&got.to_float(i).unwrap()) == ComparableFloatRef(want),
                    "{g:?} {rnd:?} element {i}"
                );
            }
        }
    }
}

/// Complex trees (depth up to 5: + - * /, unary minus; sqrt, the CFuncs and
/// pow of leaves or one operation on leaves) on random and special inputs: the fused CPU evaluation equals the
/// chain of ComplexArray operations bit for bit, in mixed modes.
#[test]
fn complex_random_trees_vs_chain() {
    use mparray::complex::CRound;
    let mut r = Rng(seed());
    let modes = CRound::all();
    for k in 0..30 {
        let p = r.pick(&[24u64, 53, 100]);
        let rnd = modes[r.index(modes.len())];
        let nin = 1 + r.index(3);
        let text = complex_text(&mut r, nin, 1 + (k % 5) as u32);
        let vn: Vec<String> = (0..nin)
            .map(|j| ((b'a' + j as u8) as char).to_string())
            .collect();
        let e = parse::parse_with(&text, Some(&vn)).unwrap();
        let ins = complex_inputs(&mut r, nin, 8, &[p, p + 30]);
        let refs: Vec<&mparray::ComplexArray> = ins.iter().collect();
        let got = expr::eval_complex(&e, &refs, p, rnd);
        let chain = expr::chain_complex(&e, &refs, p, rnd);
        match (got, chain) {
            (Ok(g), Ok(c)) => assert!(g == c, "{text} at {p} bits {rnd:?}: differs from the chain"),
            // An element the library gives up on (its working-precision
            // cap) fails both alike.
            (Err(g), Err(c)) => assert_eq!(g.to_string(), c.to_string(), "{text}"),
            (g, c) => panic!("{text}: {:?} vs {:?}", g.err(), c.err()),
        }
    }
    // Every complex function and pow at least once, in a tree.
    for f in mparray::complex::CFunc::ALL {
        let text = format!("({}(a*b) - pow(b, 0.5)) / a", f.name());
        let e = Expr::parse(&text).unwrap();
        let ins = complex_inputs(&mut r, 2, 12, &[64, 90]);
        let rnd = modes[r.index(modes.len())];
        let g = expr::eval_complex(&e, &[&ins[0], &ins[1]], 64, rnd).unwrap();
        let c = expr::chain_complex(&e, &[&ins[0], &ins[1]], 64, rnd).unwrap();
        assert!(g == c, "{text} {rnd:?}");
    }
    // A constant is real (+0 imaginary part); the root may be an input.
    let a = mparray::ComplexArray::from_strs(53, 53, &[("1.5", "-2")]).unwrap();
    let e = Expr::parse("a*2 - 0.5").unwrap();
    let got = expr::eval_complex(&e, &[&a], 53, CRound::both(Round::Nearest)).unwrap();
    assert_eq!(
        got.to_dec_strings(5, Round::Nearest).unwrap(),
        vec![("2.5000e+00".to_string(), "-4.0000e+00".to_string())]
    );
    let e = Expr::parse("a").unwrap();
    let got = expr::eval_complex(&e, &[&a], 2, CRound::both(Round::Zero)).unwrap();
    assert!(got == a.set_prec(2, 2, CRound::both(Round::Zero)).unwrap());
    // fma is mpc_fma: (1.5-2i)^2 + 1.5-2i = -1.75-6i + 1.5-2i.
    let e = Expr::parse("fma(a,a,a)").unwrap();
    let got = expr::eval_complex(&e, &[&a], 53, CRound::both(Round::Nearest)).unwrap();
    assert_eq!(
        got.to_dec_strings(5, Round::Nearest).unwrap(),
        vec![("-2.5000e-01".to_string(), "-8.0000e+00".to_string())]
    );
    assert!(got == a.fma(&a, &a, 53, 53, CRound::both(Round::Nearest)).unwrap());
}

#[test]
fn cli_eval_functions_and_complex() {
    let t = Tmp::new();
    let f = file(&t, "f.txt", "0.5\n2\n");
    let out = cli_ok(
        &[
            "float",
            "eval",
            "exp(log(a)*3)+sin(0)",
            "--prec",
            "53",
            "--engine",
            "cpu",
            "--digits",
            "6",
        ],
        &[&f],
    );
    assert_eq!(out, "1.25000e-01\n8.00000e+00\n");
    let z = file(&t, "z.txt", "1 2\n-0.5 0\n");
    let w = file(&t, "w.txt", "0 1\n2 -1\n");
    let out = cli_ok(
        &[
            "complex", "eval", "a*b+a", "--prec", "53", "--round", "NZ", "--engine", "cpu",
            "--digits", "4",
        ],
        &[&z, &w],
    );
    // (1+2i)i + 1+2i = -1+3i; (-0.5)(2-i) - 0.5 = -1.5+0.5i.
    assert_eq!(out, "-1.000e+00 3.000e+00\n-1.500e+00 5.000e-01\n");
    let c53 = ["--prec", "53", "--engine", "cpu"];
    for (ex, msg) in [
        ("a + expp(b)", "column 5"),
        ("hypot(a,b)", "not defined for complex"),
    ] {
        cli_fails(
            &[&["complex", "eval", ex], &c53[..]].concat(),
            &[&z, &w],
            msg,
        );
    }
    let bad = file(&t, "bad.txt", "1 2\n3\n");
    cli_fails(
        &[&["complex", "eval", "a*b"], &c53[..]].concat(),
        &[&z, &bad],
        ":2:",
    );
}

/// The generated complex kernel for `e` on the host, run once per mode
/// pair of `modes` (its constants rounded in `modes[0].re`): per pair the
/// parts (heads, limbs, heads, limbs) and the listed elements, or None
/// when emulation is off.
#[allow(clippy::type_complexity)]
fn emulate_complex(
    e: &Expr,
    ins: &[mparray::ComplexArray],
    p: u64,
    modes: &[mparray::complex::CRound],
) -> Option<Vec<([Vec<u64>; 4], Vec<u32>)>> {
    use mparray::expr::{codegen, cpu};
    use mparray::float::cuda::round_code;
    let n = mparray::float::limbs_for_prec(p);
    let lf = mparray::float::limbs_for_prec;
    let lk: Vec<(usize, usize)> = ins
        .iter()
        .map(|a| (lf(a.prec_re()), lf(a.prec_im())))
        .collect();
    let maxl = lk.iter().fold(n, |m, &(a, b)| m.max(a).max(b));
    let tier = mparray::float::cuda::tier_for(maxl).unwrap();
    let consts = cpu::float_constants(e, p, modes[0].re).unwrap();
    let mut src = codegen::complex_kernel(e, p, n, &lk, tier, &consts);
    let m = ins.len();
    let len = ins[0].len();
    let limbs: Vec<String> = lk
        .iter()
        .flat_map(|&(a, b)| [a.to_string(), b.to_string()])
        .collect();
    let args: Vec<String> = (0..2 * m)
        .map(|k| format!("h[{k}].data(), l[{k}].data()"))
        .collect();
    let codes: Vec<String> = modes
        .iter()
        .flat_map(|c| [round_code(c.re).to_string(), round_code(c.im).to_string()])
        .collect();
    src.push_str(&format!(
        r#"
int main() {{
    u64 n = {len};
    std::vector<u64> h[{}], l[{}];
    u64 lk[] = {{{}}};
    for (int k = 0; k < {}; k++) {{
        h[k].resize(n); l[k].resize(n * lk[k]);
        fread(h[k].data(), 8, n, stdin); fread(l[k].data(), 8, n * lk[k], stdin);
    }}
    u32 modes[] = {{{}}};
    for (u32 q = 0; q < {}; q++) {{
        // Garbage where the kernel must write (the device's outputs are
        // not initialised).
        const u64 g = 0x5a5a5a5a5a5a5a5aull;
        std::vector<u64> rrh(n, g), rrl(n * {n}, g), rih(n, g), ril(n * {n}, g), ix(n, ~0ull);
        std::vector<u32> idx(n);
        u32 cnt = 0;
        expr_complex(rrh.data(), rrl.data(), rih.data(), ril.data(), {}, n, modes[2 * q], modes[2 * q + 1], &cnt, idx.data());
        for (u32 j = 0; j < cnt; j++) ix[j] = idx[j];
        fwrite(rrh.data(), 8, n, stdout); fwrite(rrl.data(), 8, n * {n}, stdout);
        fwrite(rih.data(), 8, n, stdout); fwrite(ril.data(), 8, n * {n}, stdout);
        fwrite(ix.data(), 8, n, stdout);
    }}
}}
"#,
        2 * m,
        2 * m,
        limbs.join(", "),
        2 * m,
        codes.join(", "),
        modes.len(),
        args.join(", ")
    ));
    let src = src.replace("extern \"C\" ", "");
    let mut input = Vec::new();
    for a in ins {
        for part in [a.re().unwrap(), a.im().unwrap()] {
            let (t, x) = (part.tags().unwrap(), part.exps().unwrap());
            input.extend((0..len).map(|i| ((x[i] as u64) << 8) | t[i] as u64));
            input.extend_from_slice(part.limbs().unwrap());
        }
    }
    let per = 3 * len + 2 * len * n;
    let got = emulate(&src, &input, modes.len() * per)?;
    Some(
        got.chunks(per)
            .map(|c| {
                let (rh, c) = c.split_at(len);
                let (rl, c) = c.split_at(len * n);
                let (ih, c) = c.split_at(len);
                let (il, ix) = c.split_at(len * n);
                let listed: Vec<u32> = ix
                    .iter()
                    .take_while(|&&x| x != u64::MAX)
                    .map(|&x| x as u32)
                    .collect();
                ([rh.to_vec(), rl.to_vec(), ih.to_vec(), il.to_vec()], listed)
            })
            .collect(),
    )
}

/// The generated complex kernel (`+ - *`, unary minus, constants) on the
/// host: random trees of depth up to 6 at precisions crossing limb
/// boundaries, inputs of mixed part precisions with signed zeros,
/// infinities, NaN, exponents at the range's ends and exact cancellations,
/// every pair of rounding modes (the real part's mode fixed where the
/// tree has constants, as they are compiled in). The elements the kernel
/// computes equal the CPU engine's fused evaluation bit for bit; the
/// elements it lists for the CPU engine are exactly those with an unusual
/// product (`complex_expected_flags`); both kinds occur.
#[test]
fn generated_complex_kernel_random_trees_on_the_host() {
    use mparray::ComplexArray;
    use mparray::complex::CRound;
    let mut r = Rng(seed());
    // Trees, inputs and modes first; the g++ builds then run in parallel.
    let mut cases = Vec::new();
    let precs = [53u64, 64, 65, 128, 200, 512, 1024, 1100];
    for (k, p) in precs.iter().chain(&precs).copied().enumerate() {
        let nin = 1 + r.index(3);
        let vn: Vec<String> = (0..nin)
            .map(|j| ((b'a' + j as u8) as char).to_string())
            .collect();
        let (text, e) = loop {
            let text = complex_arith_text(&mut r, nin, 2 + (k % 5) as u32, false);
            let e = parse::parse_with(&text, Some(&vn)).unwrap();
            if e.nodes().iter().any(|n| matches!(n, Node::Op(..))) {
                break (text, e);
            }
        };
        let pparts = [(p, p + 13), (64, p), (p + 70, 53)];
        let ins = complex_mixed_inputs(&mut r, nin, 40, &pparts, if k % 8 == 5 { 0 } else { 2 });
        let re = Round::ALL[k % 5];
        let modes: Vec<CRound> = if e.nodes().iter().any(|n| matches!(n, Node::Const(_))) {
            Round::ALL.iter().map(|&im| CRound { re, im }).collect()
        } else {
            CRound::all()
        };
        cases.push((text, e, ins, p, modes));
    }
    // An input at the root (mpc_set), a square, constants, a negation.
    for (text, p) in [("a", 100u64), ("-(a*a) + 0.1*b - a*(b*a)", 130)] {
        let e = Expr::parse(text).unwrap();
        let ins = complex_mixed_inputs(&mut r, e.inputs().len(), 40, &[(p, 70), (200, p)], 2);
        let re = Round::Down;
        let modes = Round::ALL.iter().map(|&im| CRound { re, im }).collect();
        cases.push((text.to_string(), e, ins, p, modes));
    }
    let runs: Vec<_> = std::thread::scope(|s| {
        let hs: Vec<_> = cases
            .iter()
            .map(|(_, e, ins, p, modes)| s.spawn(move || emulate_complex(e, ins, *p, modes)))
            .collect();
        hs.into_iter().map(|h| h.join().unwrap()).collect()
    });
    let (mut listed, mut direct) = (0usize, 0usize);
    for ((text, e, ins, p, modes), run) in cases.iter().zip(runs) {
        let Some(run) = run else { return };
        let refs: Vec<&ComplexArray> = ins.iter().collect();
        for (q, (rnd, (parts, list))) in modes.iter().zip(run).enumerate() {
            let what = format!("{text} at {p} bits {rnd:?}");
            if q == 0 {
                let want = expr::eval_complex(e, &refs, *p, *rnd).unwrap();
                let chain = expr::chain_complex(e, &refs, *p, *rnd).unwrap();
                assert!(want == chain, "{what}: fused vs chain");
            }
            listed += list.len();
            direct += check_emulated_complex(&what, e, &refs, *p, *rnd, &parts, &list);
        }
    }
    eprintln!("complex kernel on the host: {listed} elements listed, {direct} computed");
    assert!(
        listed > 0 && direct > 0,
        "listed {listed}, computed {direct}"
    );
}

/// The split evaluation's walk (CUDA's scheme for complex expressions with
/// `/`, `sqrt`, `fma`, `pow` and the functions: those as ComplexArray
/// operations, the `+ - *` segments between them fused) run on the CPU
/// engine: equal to the fused CPU evaluation and to the chain bit for bit
/// on random trees with special inputs, shared subexpressions, constant
/// segments; one ComplexArray operation per split node.
#[test]
fn complex_split_walk_on_the_cpu() {
    use mparray::ComplexArray;
    use mparray::complex::CRound;
    let mut r = Rng(seed());
    let modes = CRound::all();
    let mut texts: Vec<(String, usize)> = Vec::new();
    for k in 0..24 {
        let nin = 1 + r.index(3);
        let t = if k % 2 == 0 {
            complex_arith_text(&mut r, nin, 2 + (k % 5) as u32, true)
        } else {
            complex_text(&mut r, nin, 1 + (k % 4) as u32)
        };
        texts.push((t, nin));
    }
    for t in [
        "exp(2*3) + a",
        "sqrt(a*b) * (a*b) + a*b",
        "pow(a*b - b, a) / (a + 0.1)",
        "-sqrt(a)",
        "fma(a, b, a*b) * exp(b)",
    ] {
        texts.push((t.to_string(), 2));
    }
    let mut ok = 0;
    for (k, (text, nin)) in texts.iter().enumerate() {
        let p = [53u64, 65, 128, 200][k % 4];
        let rnd = modes[k % modes.len()];
        let vn: Vec<String> = (0..*nin)
            .map(|j| ((b'a' + j as u8) as char).to_string())
            .collect();
        let e = parse::parse_with(text, Some(&vn)).unwrap();
        let ins = complex_mixed_inputs(&mut r, *nin, 24, &[(p, p + 13), (64, p)], 1);
        let refs: Vec<&ComplexArray> = ins.iter().collect();
        let what = format!("{text} at {p} bits {rnd:?}");
        let live = e.live();
        let nsplit = e
            .nodes()
            .iter()
            .enumerate()
            .filter(|(i, n)| {
                live[*i]
                    && matches!(n, Node::Op(op, _)
                        if !matches!(op, mparray::expr::Op::Add | mparray::expr::Op::Sub | mparray::expr::Op::Mul | mparray::expr::Op::Neg))
            })
            .count();
        let split = expr::eval_complex_split_on(&e, &refs, p, rnd);
        let fused = expr::eval_complex(&e, &refs, p, rnd);
        let chain = expr::chain_complex(&e, &refs, p, rnd);
        match (split, fused, chain) {
            (Ok((s, st)), Ok(f), Ok(c)) => {
                ok += 1;
                assert!(s == f, "{what}: split vs fused");
                assert!(f == c, "{what}: fused vs chain");
                assert_eq!(st.split, nsplit, "{what}");
            }
            // An element the library gives up on (its working-precision
            // cap) fails all alike.
            (Err(s), Err(f), Err(c)) => {
                assert_eq!(s.to_string(), f.to_string(), "{what}");
                assert_eq!(f.to_string(), c.to_string(), "{what}");
            }
            (s, f, c) => panic!("{what}: {:?} vs {:?} vs {:?}", s.err(), f.err(), c.err()),
        }
    }
    // Most trees evaluate (a failure is an element past the cap).
    assert!(
        ok * 4 >= texts.len() * 3,
        "{ok} of {} evaluated",
        texts.len()
    );
}

/// NVRTC compiles the generated complex kernels (no GPU needed, NVRTC in
/// LD_LIBRARY_PATH): shapes of 1 to 13 operations at 53 to 1100 bits with
/// mixed part precisions; prints the time and ptxas's registers, stack
/// and spills. `cargo test --release --test expr nvrtc_compiles_generated_complex
/// -- --ignored --nocapture`.
#[test]
#[ignore = "needs NVRTC; prints compile times"]
fn nvrtc_compiles_generated_complex_kernels() {
    use mparray::expr::{codegen, cpu};
    let arch = std::env::var("MPARRAY_ARCH").unwrap_or_else(|_| "sm_90".into());
    for (text, p, lk) in [
        ("a*b", 53u64, vec![(1usize, 1usize), (1, 1)]),
        ("(a*b+c*d)*e - -a*0.1", 512, vec![(8, 8); 5]),
        (
            "(a*a - b)*(b*c + 2.5) - c*(a - b*b)*a",
            1100,
            vec![(18, 1), (1, 18), (20, 18)],
        ),
    ] {
        let e = Expr::parse(text).unwrap();
        let n = mparray::float::limbs_for_prec(p);
        let maxl = lk.iter().fold(n, |m, &(a, b)| m.max(a).max(b));
        let tier = mparray::float::cuda::tier_for(maxl).unwrap();
        let consts = cpu::float_constants(&e, p, Round::Nearest).unwrap();
        let src = codegen::complex_kernel(&e, p, n, &lk, tier, &consts);
        let t0 = std::time::Instant::now();
        let c = mparray::engine::cuda::compile::compile(
            "expr_c",
            &src,
            &["--ptxas-options=-v".to_string()],
            &arch,
            None,
        )
        .unwrap_or_else(|err| panic!("{text} at {p} bits: {err}"));
        let ms = t0.elapsed().as_secs_f64() * 1e3;
        println!(
            "{text} at {p} bits (tier {tier}): {ms:.0} ms, {} bytes of source",
            src.len()
        );
        for l in c
            .log
            .lines()
            .filter(|l| l.contains("registers") || l.contains("spill") || l.contains("stack"))
        {
            println!("    {}", l.trim());
        }
    }
}

/// The GPU test `cuda_complex_fused_shapes`' products of products on the
/// host emulator: a product of products with mixed part precisions at
/// 128, 512 and 2000 bits, with and without special values; the listed
/// elements are exactly the predicted ones (without specials, those whose
/// shared values cancel exactly) and
/// every other element equals the CPU engine's fused evaluation.
#[test]
fn generated_complex_kernel_products_of_products_on_the_host() {
    use mparray::ComplexArray;
    use mparray::complex::CRound;
    let mut r = Rng(seed());
    let e = Expr::parse("(a*b)*(c*a) - (b*c)*c + -a").unwrap();
    let rnd = CRound {
        re: Round::Up,
        im: Round::Nearest,
    };
    for (p, special) in [(128u64, 0u8), (512, 0), (512, 2), (2000, 2)] {
        let pparts = [(p, p), (p + 64, 64), (53, p)];
        let ins = complex_mixed_inputs(&mut r, 3, 600, &pparts, special);
        let Some(mut run) = emulate_complex(&e, &ins, p, &[rnd]) else {
            return;
        };
        let (parts, list) = run.remove(0);
        let refs: Vec<&ComplexArray> = ins.iter().collect();
        let what = format!("products at {p} bits, special {special}");
        check_emulated_complex(&what, &e, &refs, p, rnd, &parts, &list);
        // Without special inputs only exact cancellations (the shared
        // values) list elements; with them some must be listed.
        if special > 0 {
            assert!(!list.is_empty(), "{what}: none listed");
        }
    }
}

/// Checks an emulated run of the generated complex kernel: the listed
/// elements are exactly those with an unusual product, each once, and
/// every other element equals the CPU engine's fused evaluation (heads
/// and limbs of both parts). The number of elements compared.
fn check_emulated_complex(
    what: &str,
    e: &Expr,
    refs: &[&mparray::ComplexArray],
    p: u64,
    rnd: mparray::complex::CRound,
    parts: &[Vec<u64>; 4],
    list: &[u32],
) -> usize {
    let want = expr::eval_complex(e, refs, p, rnd).unwrap();
    let flags = complex_expected_flags(e, refs, p, rnd);
    let mut got_flags = vec![false; flags.len()];
    for &i in list {
        assert!(!got_flags[i as usize], "{what}: element {i} listed twice");
        got_flags[i as usize] = true;
    }
    assert_eq!(got_flags, flags, "{what}: listed elements");
    let n = mparray::float::limbs_for_prec(p);
    let (wr, wi) = (want.re().unwrap(), want.im().unwrap());
    let mut direct = 0;
    for (i, &f) in flags.iter().enumerate() {
        if f {
            continue;
        }
        direct += 1;
        for (w, h, l, part) in [
            (&wr, &parts[0], &parts[1], "re"),
            (&wi, &parts[2], &parts[3], "im"),
        ] {
            let head = ((w.exps().unwrap()[i] as u64) << 8) | w.tags().unwrap()[i] as u64;
            assert_eq!(h[i], head, "{what}: element {i} {part} head");
            assert_eq!(
                &l[i * n..(i + 1) * n],
                &w.limbs().unwrap()[i * n..(i + 1) * n],
                "{what}: element {i} {part} limbs"
            );
        }
    }
    direct
}
