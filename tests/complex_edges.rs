//! Precision 1 and MPFR's exponent range ends for every complex operation
//! and function, against GNU MPC 1.3.1 itself: every line of
//! scripts/peers/edges_complex_mpc.txt (592 results with their ternary
//! pairs: operands at the largest and smallest floats, parts far apart,
//! specials, modes NN ZZ UU DD; made by scripts/edges_gen.py with
//! scripts/peers/edges_mpfr.c) on the CPU engine, each line alone (so a
//! failing line names itself), and on the CUDA engine in batches of one
//! operation and mode (ignored without a device).
mod common;
#[path = "common/edges.rs"]
mod edges;

use edges::{Group, compare, eval, groups_in};
use mparray::Engine;
use rayon::prelude::*;

const FILE: &str = "scripts/peers/edges_complex_mpc.txt";

/// Lines where GNU MPC 1.3.1 is not correctly rounded, with our (correctly
/// rounded) result instead (notes/complex.md's table):
/// - tan/tanh with a huge hyperbolic part: |Im tan z| (Re tanh) is
///   `1 - 2 cos(2a) e^(-2|b|) + ...`, above 1 here (cos 2 < 0), and MPC
///   rounds it as if below 1;
/// - sqr(+-1 +- 2^-1073741824 i) in RNDZ/RNDD: the real part is `1 -
///   2^-2147483648`, which rounds to 0.5 toward zero and down; MPC gives 1
///   (ternary +1: above the exact value) as in RNDN.
const MPC_WRONG: &[(&str, &str)] = &[
    ("c tanh 1 1 NN 0x1p1073741822 1", "0x1p+0 0x0p+0 | -1 -1"),
    ("c tan 1 1 NN 1 0x1p1073741822", "0x0p+0 0x1p+0 | -1 -1"),
    ("c tanh 1 1 ZZ 0x1p1073741822 1", "0x1p+0 0x0p+0 | -1 -1"),
    ("c tan 1 1 ZZ 1 0x1p1073741822", "0x0p+0 0x1p+0 | -1 -1"),
    (
        "c tanh 1 1 UU 0x1p1073741822 1",
        "0x2p+0 0x1p-1073741824 | 1 1",
    ),
    (
        "c tan 1 1 UU 1 0x1p1073741822",
        "0x1p-1073741824 0x2p+0 | 1 1",
    ),
    (
        "c sqr 1 1 ZZ 1 0x1p-1073741824",
        "0x8p-4 0x2p-1073741824 | -1 0",
    ),
    (
        "c sqr 1 1 ZZ -1 0x1p-1073741824",
        "0x8p-4 -0x2p-1073741824 | -1 0",
    ),
    (
        "c sqr 1 1 ZZ -1 -0x1p-1073741824",
        "0x8p-4 0x2p-1073741824 | -1 0",
    ),
    (
        "c sqr 1 1 DD 1 0x1p-1073741824",
        "0x8p-4 0x2p-1073741824 | -1 0",
    ),
    (
        "c sqr 1 1 DD -1 0x1p-1073741824",
        "0x8p-4 -0x2p-1073741824 | -1 0",
    ),
    (
        "c sqr 1 1 DD -1 -0x1p-1073741824",
        "0x8p-4 0x2p-1073741824 | -1 0",
    ),
];

/// The operands of a line (before ` | `).
fn lhs(line: &str) -> &str {
    line.split(" | ").next().unwrap_or(line)
}

/// The groups of the file, and each case's expected result (MPC's, or
/// ours where MPC is wrong).
fn cases() -> Vec<Group> {
    let mut gs = groups_in(FILE);
    for g in &mut gs {
        for c in &mut g.cases {
            if let Some((_, ours)) = MPC_WRONG.iter().find(|(l, _)| *l == lhs(&c.line)) {
                let (v, t) = ours.split_once(" | ").unwrap();
                c.want = v.to_string();
                c.want_t = t.to_string();
            }
        }
    }
    gs
}

/// A group split into groups of one line.
fn split(g: Group) -> Vec<Group> {
    let Group {
        kind,
        op,
        p,
        q,
        rnd,
        k,
        cases,
    } = g;
    cases
        .into_iter()
        .map(|c| Group {
            kind,
            op: op.clone(),
            p,
            q,
            rnd: rnd.clone(),
            k,
            cases: vec![c],
        })
        .collect()
}

/// The result of one group on `eng`, with a note when it took long.
fn timed(g: &Group, eng: &Engine) -> Result<Vec<(String, String)>, String> {
    let t0 = std::time::Instant::now();
    let r = eval(g, eng);
    let s = t0.elapsed().as_secs_f64();
    if s > 1.0 {
        eprintln!("slow ({s:.1} s): {}", g.cases[0].line);
    }
    r
}

/// The lines whose result on `eng` is not MPC's (with what we gave), and
/// the number of lines: each line alone, or (`batch`) the groups of one
/// operation and mode at once (a failing group's lines alone).
fn differences(eng: &Engine, batch: bool) -> (usize, Vec<String>) {
    let gs: Vec<Group> = if batch {
        cases()
    } else {
        cases().into_iter().flat_map(split).collect()
    };
    let n = gs.iter().map(|g| g.cases.len()).sum();
    let one = |g: &Group| -> Vec<String> {
        let got = match timed(g, eng) {
            Ok(got) => got,
            Err(_) if g.cases.len() > 1 => {
                return split(g.clone())
                    .iter()
                    .flat_map(|g| compare(g, timed(g, eng)))
                    .collect();
            }
            Err(e) => return vec![format!("{}: error {e}", g.cases[0].line)],
        };
        compare(g, Ok(got))
    };
    let fails = gs.par_iter().flat_map_iter(one).collect();
    (n, fails)
}

#[test]
fn complex_edges_against_mpc() {
    let (n, fails) = differences(&Engine::Cpu, false);
    assert_eq!(n, 592, "lines");
    assert!(
        fails.is_empty(),
        "{} of {n} lines differ from MPC:\n{}",
        fails.len(),
        fails.join("\n")
    );
}

#[test]
#[ignore = "needs a GPU"]
fn complex_edges_cuda_against_mpc() {
    let cuda = mparray::engine::CudaEngine::shared().expect("a CUDA device");
    let (n, fails) = differences(&Engine::Cuda(cuda), true);
    eprintln!("{n} lines, {} differ", fails.len());
    assert!(
        fails.is_empty(),
        "{} of {n} lines differ from MPC on CUDA:\n{}",
        fails.len(),
        fails.join("\n")
    );
}

/// Complex sqrt with parts 2^20 and more binades apart (the root a hair
/// above or below an exact float, by a factor 1 +- 2^-h with h up to 2^31):
/// GNU MPC 1.3.1's results (tests/complex_sqrt_far_mpc.txt), and four
/// range-end cases on which MPC does not finish (minutes), with the values
/// derived by hand: sqrt(2^1073741822 +- i) = 2^536870911 (1 + d) +- i
/// 2^-536870912 (1 - d'), sqrt(+-1 + 2^-1073741824 i) with the small part
/// 2^-1073741825 (1 - d') just below the underflow midpoint.
#[test]
fn complex_sqrt_far_parts() {
    let mut gs = groups_in("tests/complex_sqrt_far_mpc.txt");
    let ours = [
        (
            "NN",
            "0x1p1073741822",
            "1",
            "0x8p+536870908 0x1p-536870912",
            "-1 1",
        ),
        (
            "UU",
            "0x1p1073741822",
            "-1",
            "0x1p+536870912 -0x8p-536870916",
            "1 1",
        ),
        ("NN", "1", "0x1p-1073741824", "0x1p+0 0x0p+0", "-1 -1"),
        ("DD", "-1", "-0x1p-1073741824", "0x0p+0 -0x2p+0", "-1 -1"),
    ];
    for (rnd, re, im, v, t) in ours {
        gs.push(Group {
            kind: 'c',
            op: "sqrt".into(),
            p: 1,
            q: 1,
            rnd: rnd.into(),
            k: 0,
            cases: vec![edges::Case {
                line: format!("c sqrt 1 1 {rnd} {re} {im}"),
                args: vec![re.into(), im.into()],
                want: v.into(),
                want_t: t.into(),
            }],
        });
    }
    let fails: Vec<String> = gs
        .iter()
        .flat_map(|g| compare(g, eval(g, &Engine::Cpu)))
        .collect();
    assert!(fails.is_empty(), "{}", fails.join("\n"));
}
