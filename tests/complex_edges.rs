//! Precision 1 and MPFR's exponent range ends for every complex operation
//! and function, against GNU MPC 1.3.1 itself: every line of
//! scripts/peers/edges_complex_mpc.txt (592 results with their ternary
//! pairs: operands at the largest and smallest floats, parts far apart,
//! specials, modes NN ZZ UU DD; made by scripts/edges_gen.py with
//! scripts/peers/edges_mpfr.c) on the CPU engine, each line alone (so a
//! failing line names itself), and on the CUDA engine in batches of one
//! operation and mode (ignored without a device); and the neighbours of
//! the lines that need func.rs's side rules (log, asin, acos beside +-1 and
//! +-i with tiny parts), on both engines.
mod common;
#[path = "common/edges.rs"]
mod edges;

use std::cmp::Ordering;

use edges::{Group, compare, eval, groups_in};
use malachite_base::num::arithmetic::traits::Abs;
use malachite_float::{ComparableFloatRef, Float};
use mparray::Engine;
use mparray::complex::CFunc;
use mparray::float::func::{Const, Func, Func2};
use mparray::float::{FloatArray, Round, to_rounding_mode};
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

/// The neighbours of `log` and `asin` of `1 + 2^-1073741824 i` (parts a
/// hair beside an exact float: the side rules of src/complex/func.rs) and
/// of the side rules' thresholds: `+-1 +- e i` and `+-e +- i` for tiny `e`
/// (exact and inexact square roots, the range's end), `a +- e i` with `a` =
/// 2, 1/2, 3, 3/4, for log, asin and acos at precisions 1, 2, 53, 200 (and
/// 53/2), modes NN ZZ UU DD AD. Expected values:
/// - `|e| >= 2^-301`: the independent reference
///   (`mparray::complex::reference`: other formulas, exact rationals with an
///   error bound) at `2 |exp e| + 2 * 200 + 128` bits, where the side
///   terms (relative `e^2` or `e`) are visible;
/// - `|e| <= 2^-1000000`, by the reasoning in [`huge`].
fn neighbours(eng: &Engine) -> (usize, Vec<String>) {
    use mparray::complex::reference::reference;
    use mparray::complex::{CFunc, CRound, ComplexArray};

    let tiny: [(i64, i64); 6] = [
        (1, -20),
        (1, -41),
        (1, -100),
        (9, -200),
        (3, -151),
        (1, -301),
    ];
    let far_out: [(i64, i64); 6] = [
        (1, -1073741824),
        (1, -1073741823),
        (3, -1073741824),
        (1, -1000000),
        (1, -1000001),
        (9, -1000004),
    ];
    // (a, b, e: the tiny part when |e| is huge).
    let mut inputs: Vec<Input> = Vec::new();
    for (ms, big) in [(&tiny[..], false), (&far_out[..], true)] {
        for &(m, k) in ms {
            for s in [1, -1] {
                let e = fm(s * m, k);
                let tag = big.then_some((s * m, k));
                for one in [1, -1] {
                    inputs.push((fm(one, 0), e.clone(), tag));
                    inputs.push((e.clone(), fm(one, 0), tag));
                }
                if !big && k % 2 == 0 {
                    for (ma, ka) in [(1, 1), (1, -1), (3, 0), (3, -2)] {
                        inputs.push((fm(ma, ka), e.clone(), None));
                    }
                }
            }
        }
    }
    let consts = Consts::new();
    let arr = |v: Vec<Float>| FloatArray::from_floats(8, &v, Round::Nearest).unwrap().0;
    let x = ComplexArray::new(
        arr(inputs.iter().map(|c| c.0.clone()).collect()),
        arr(inputs.iter().map(|c| c.1.clone()).collect()),
    )
    .unwrap()
    .to_engine(eng)
    .unwrap();
    let mut n = 0;
    let mut fails = Vec::new();
    for f in [CFunc::Log, CFunc::Asin, CFunc::Acos] {
        // The references at the largest precision (closer than needed for
        // the others).
        let refs: Vec<_> = inputs
            .par_iter()
            .map(|(a, b, e)| {
                if e.is_some() {
                    return None;
                }
                let k = [a, b]
                    .iter()
                    .map(|v| v.get_exponent().unwrap().unsigned_abs() as u64)
                    .max()
                    .unwrap();
                reference(f, a, b, 2 * k + 2 * 200 + 128)
            })
            .collect();
        for (pr, pq) in [(1u64, 1u64), (2, 2), (53, 53), (200, 200), (53, 2)] {
            for m in ["NN", "ZZ", "UU", "DD", "AD"] {
                let rnd = CRound::from_name(m).unwrap();
                let (z, t) = x.func_ternary(f, pr, pq, rnd).unwrap();
                let t = t.to_pairs().unwrap();
                let (zr, zi) = z.into_parts();
                for (i, (a, b, e)) in inputs.iter().enumerate() {
                    let want: [Option<Want>; 2] = match e {
                        Some(e) => huge(&consts, f, a, b, *e, [pr, pq], [rnd.re, rnd.im]).map(Some),
                        None => {
                            let c = refs[i].as_ref();
                            [
                                c.and_then(|c| c.0.round(pr, rnd.re)),
                                c.and_then(|c| c.1.round(pq, rnd.im)),
                            ]
                        }
                    };
                    for (k, (part, w)) in [(&zr, &want[0]), (&zi, &want[1])].into_iter().enumerate()
                    {
                        n += 1;
                        let what = format!("{} {pr} {pq} {m} {a:#x} {b:#x} part {k}", f.name());
                        let Some(w) = w else {
                            fails.push(format!("{what}: reference inconclusive"));
                            continue;
                        };
                        let g = part.to_float(i).unwrap();
                        let gt = if k == 0 { t[i].0 } else { t[i].1 };
                        // Values (zero signs are MPC's business, checked
                        // on the file's lines) and ternaries.
                        let same = g == w.0 && gt.cmp(&0) == w.1;
                        if !same {
                            fails.push(format!(
                                "{what}: got {g:#x} ({gt}), want {:#x} ({:?})",
                                w.0, w.1
                            ));
                        }
                    }
                }
            }
        }
    }
    (n, fails)
}

type Want = (Float, Ordering);

/// An operand `(a, b)` and, when `|e|` is huge, its tiny part `e = m 2^k`
/// as `(m, k)`.
type Input = (Float, Float, Option<(i64, i64)>);

/// `m 2^k`, exact.
fn fm(m: i64, k: i64) -> Float {
    Float::from(m) << k
}

/// `x` rounded to `p` bits (MPFR's exponent range: malachite's).
fn round_f(x: &Float, p: u64, r: Round) -> Want {
    Float::from_float_prec_round_ref(x, p, to_rounding_mode(r))
}

/// `x + y`, exact (`x`, `y` of at most 3100 bits, `y` at most 2^-2100 of `x`).
fn add_x(x: &Float, y: &Float) -> Float {
    x.add_prec_ref_ref(y, 6000).0
}

/// A value `c (1 +- d)`, `c` of at most 4 bits, `0 < d < 2^-(p+10)`:
/// rounds as `c (1 +- 2^-(p+10))` (no rounding boundary lies between).
fn beside(c: &Float, larger: bool, p: u64, r: Round) -> Want {
    let d = c.clone() >> (p + 10);
    round_f(&add_x(c, &if larger { d } else { -d }), p, r)
}

/// A value within `2^-2000` (relative) of `x` (3000 bits), after checking
/// that no rounding boundary lies that near `x`.
fn far(x: &Float, p: u64, r: Round) -> Want {
    let d = x.clone() >> 2000u64;
    let (lo, hi) = (
        round_f(&add_x(x, &-d.clone()), p, r),
        round_f(&add_x(x, &d), p, r),
    );
    assert!(
        ComparableFloatRef(&lo.0) == ComparableFloatRef(&hi.0) && lo.1 == hi.1,
        "a rounding boundary near {x:#x} at {p} bits"
    );
    lo
}

/// A value `v` with `|v|` strictly between 0 and `min / 2` (`half`: between
/// `min / 2` and `min`), `min = 2^-1073741824` the smallest positive float:
/// MPFR's underflow.
fn underflow(neg: bool, half: bool, r: Round) -> Want {
    let r = if neg { r.mirror() } else { r };
    let up = match r {
        Round::Up | Round::Away => true,
        Round::Nearest => half,
        _ => false,
    };
    let (v, t) = if up {
        (fm(1, -1073741824), Ordering::Greater)
    } else {
        (Float::from(0u32), Ordering::Less)
    };
    if neg { (-v, t.reverse()) } else { (v, t) }
}

/// A real function of one or two small exact floats, by the float engine
/// (checked against MPFR by tests/float_func*.rs and float_edges.rs).
fn real(f: Result<Func, Func2>, x: &Float, y: &Float, p: u64, r: Round) -> Want {
    let arr = |v: &Float| {
        FloatArray::from_floats(8, std::slice::from_ref(v), Round::Nearest)
            .unwrap()
            .0
    };
    let (v, t, _) = match f {
        Ok(f) => arr(x).func_ternary(f, p, r).unwrap(),
        Err(f) => arr(x).func2_ternary(&arr(y), f, p, r).unwrap(),
    };
    (v.to_float(0).unwrap(), t.to_vec().unwrap()[0].cmp(&0))
}

/// pi, sqrt 2, asinh 1 at 3000 bits.
struct Consts {
    pi: Float,
    sqrt2: Float,
    asinh1: Float,
}

impl Consts {
    fn new() -> Consts {
        let hp = 3000;
        let two = FloatArray::from_floats(8, &[fm(2, 0)], Round::Nearest)
            .unwrap()
            .0;
        Consts {
            pi: FloatArray::constant(Const::Pi, hp, Round::Nearest)
                .unwrap()
                .0
                .to_float(0)
                .unwrap(),
            sqrt2: two.sqrt(hp, Round::Nearest).unwrap().to_float(0).unwrap(),
            asinh1: real(Ok(Func::Asinh), &fm(1, 0), &fm(1, 0), hp, Round::Nearest).0,
        }
    }
}

/// The expected parts of `f(a + i b)`, `{|a|, |b|} = {1, |e|}`, `e = m 2^k`
/// with `|e| <= 2^-1000000` (below, `s = sqrt|e|`, `alpha = (|z+1| +
/// |z-1|)/2`):
/// - log: `log|z| = log1p(e^2)/2 = (e^2/2)(1 - d)`, `0 < d < e^2`: the real
///   log1p halved when `e^2` is a float, else an underflow; `arg z`: the
///   real atan2 (mpc_arg's definition);
/// - asin/acos of `+-1 + i b`: `acosh alpha = s (1 + d)`, `0 < d <= |e|/8`
///   (`acosh(1 + t) = sqrt(2t) (1 - t/12 + ...)`, `t = |e|/2 + e^2/8 - ...`),
///   `acos(1/alpha) = gd(acosh alpha) = s (1 - d')`, `0 < d' < |e|/5`; an
///   exact `s` a hair above or below, an irrational one within 2^-2000 of
///   its 3000-bit value; `pi/2 -+ ...`, `pi - ...`: within 2^-2000 of pi/2,
///   pi;
/// - asin/acos of `+-e + i b`: `asin z = e / sqrt 2 + i sign(b) asinh 1`
///   to within a relative `e^2` (the derivative `1/sqrt(1 - z^2)` is
///   `1/sqrt 2` at `+-i`), `acos z = pi/2 - asin z`.
fn huge(
    c: &Consts,
    f: CFunc,
    a: &Float,
    b: &Float,
    (m, k): (i64, i64),
    p: [u64; 2],
    r: [Round; 2],
) -> [Want; 2] {
    let case_a = *a == 1u32 || *a == -1i32;
    let e = fm(m, k);
    let sgn = |x: &Float| *x < 0u32;
    let neg_if = |neg: bool, x: Float| if neg { -x } else { x };
    let half_pi = c.pi.clone() >> 1u64;
    match f {
        CFunc::Log => {
            let re = if k > -500_000_000 {
                let u = Float::from(m * m) << (2 * k);
                let (v, t) = real(Ok(Func::Log1p), &u, &u, p[0], r[0]);
                (v >> 1u64, t)
            } else {
                underflow(false, false, r[0])
            };
            [re, real(Err(Func2::Atan2), b, a, p[1], r[1])]
        }
        CFunc::Asin | CFunc::Acos if case_a => {
            let s_ex = match (m.abs(), k % 2 == 0) {
                (1, true) => Some(fm(1, k / 2)),
                (9, true) => Some(fm(3, k / 2)),
                _ => None,
            };
            let s_hp = || {
                let ae = FloatArray::from_floats(8, &[e.clone().abs()], Round::Nearest)
                    .unwrap()
                    .0;
                ae.sqrt(3000, Round::Nearest).unwrap().to_float(0).unwrap()
            };
            // +-s (1 +- d), larger or smaller in magnitude.
            let side = |larger: bool, neg: bool, p: u64, r: Round| match &s_ex {
                Some(s) => beside(&neg_if(neg, s.clone()), larger, p, r),
                None => far(&neg_if(neg, s_hp()), p, r),
            };
            if f == CFunc::Asin {
                [
                    far(&neg_if(sgn(a), half_pi), p[0], r[0]),
                    side(true, sgn(b), p[1], r[1]),
                ]
            } else {
                let re = if sgn(a) {
                    far(&c.pi, p[0], r[0])
                } else {
                    side(false, false, p[0], r[0])
                };
                [re, side(true, !sgn(b), p[1], r[1])]
            }
        }
        _ => {
            let im = neg_if(sgn(b) != (f == CFunc::Acos), c.asinh1.clone());
            if f == CFunc::Acos {
                return [far(&half_pi, p[0], r[0]), far(&im, p[1], r[1])];
            }
            let re = if k == -1073741824 && m.abs() == 1 {
                // e / sqrt 2 between min/2 and min.
                underflow(m < 0, true, r[0])
            } else {
                far(&(e.mul_prec_ref_ref(&c.sqrt2, 3010).0 >> 1u64), p[0], r[0])
            };
            [re, far(&im, p[1], r[1])]
        }
    }
}

#[test]
fn complex_beside_exact_neighbours() {
    let (n, fails) = neighbours(&Engine::Cpu);
    eprintln!("{n} parts, {} differ", fails.len());
    assert!(
        fails.is_empty(),
        "{} of {n}:\n{}",
        fails.len(),
        fails.join("\n")
    );
}

#[test]
#[ignore = "needs a GPU"]
fn complex_beside_exact_neighbours_cuda() {
    let cuda = mparray::engine::CudaEngine::shared().expect("a CUDA device");
    let (n, fails) = neighbours(&Engine::Cuda(cuda));
    eprintln!("{n} parts on CUDA, {} differ", fails.len());
    assert!(
        fails.is_empty(),
        "{} of {n}:\n{}",
        fails.len(),
        fails.join("\n")
    );
}
