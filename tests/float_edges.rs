//! Precision 1 and 2 and MPFR's exponent range ends for every float op and
//! every real function on the CPU engine, against GNU MPFR 4.2 itself
//! (and complex sqrt against GNU MPC): tests/edges_mpfr.txt holds
//! their results (value and ternary) for arguments at the largest and
//! smallest floats, around the overflow and underflow thresholds of exp,
//! exp2, sinh, cosh, pow, mul_2si and the RNDN midpoint 2^(EMIN-2), the
//! special values, in every rounding mode (scripts/edges_gen.py and
//! scripts/peers/edges_mpfr.c make it; the complex lines are not in it yet).
//! tests/float_edges_cuda.rs checks the
//! CUDA engine against this one on the same inputs.
#[path = "common/edges.rs"]
mod edges;

use edges::{compare, eval, groups};
use mparray::Engine;
use rayon::prelude::*;

#[test]
fn edges_against_mpfr_and_mpc() {
    let gs = groups();
    let n: usize = gs.iter().map(|g| g.cases.len()).sum();
    assert!(n > 10_000, "only {n} cases");
    let fails: Vec<String> = gs
        .par_iter()
        .flat_map_iter(|g| compare(g, eval(g, &Engine::Cpu)))
        .collect();
    assert!(
        fails.is_empty(),
        "{} of {n} cases differ from MPFR/MPC:\n{}",
        fails.len(),
        fails.join("\n")
    );
}

/// Regressions of complex sqrt at the range's ends (GNU MPC 1.3.1's
/// results): an imaginary part that underflows beside a moderate real part
/// (the interval ends used to underflow: no result within the working
/// precision cap), and parts whose squares leave the range (their exact sum
/// used to underflow to 0: a wrong value).
#[test]
fn complex_sqrt_range_ends_as_mpc() {
    use mparray::complex::{CFunc, CRound, ComplexArray};
    use mparray::{FloatArray, Round};
    let cases = [
        (
            "0XCcBF.958E3D2D3f",
            "+0x.8p-1073741822",
            200,
            "NN",
            "0xe.4f1cac4f5be6496fa233d8519ca2f5253193d722f8a2d13fp+4 0x0p+0",
            (-1, -1),
        ),
        (
            "0XCcBF.958E3D2D3f",
            "+0x.8p-1073741822",
            200,
            "NU",
            "0xe.4f1cac4f5be6496fa233d8519ca2f5253193d722f8a2d13fp+4 0x1p-1073741824",
            (-1, 1),
        ),
        (
            "0XCcBF.958E3D2D3f",
            "+0x.8p-1073741822",
            200,
            "NA",
            "0xe.4f1cac4f5be6496fa233d8519ca2f5253193d722f8a2d13fp+4 0x1p-1073741824",
            (-1, 1),
        ),
        (
            "0x1p-1073741824",
            "0x1p-1073741824",
            2,
            "NN",
            "0x1p-536870912 0x8p-536870916",
            (-1, 1),
        ),
        (
            "0x1p-1000000000",
            "0x1p-1000000000",
            2,
            "NN",
            "0x1p-500000000 0x8p-500000004",
            (-1, 1),
        ),
        (
            "-0x1p-1073741824",
            "0x1p-1073741824",
            2,
            "NN",
            "0x8p-536870916 0x1p-536870912",
            (1, -1),
        ),
        (
            "0x1p-1073741824",
            "0x1p-1073741000",
            2,
            "NN",
            "0xcp-536870504 0xcp-536870504",
            (1, 1),
        ),
    ];
    for (re, im, p, rnd, want, wt) in cases {
        let x = ComplexArray::new(
            FloatArray::from_strs_ternary(p, &[re], Round::Nearest)
                .unwrap()
                .0,
            FloatArray::from_strs_ternary(p, &[im], Round::Nearest)
                .unwrap()
                .0,
        )
        .unwrap();
        let (r, t) = x
            .func_ternary(CFunc::Sqrt, p, p, CRound::from_name(rnd).unwrap())
            .unwrap_or_else(|e| panic!("sqrt({re} + {im} i) {rnd}: {e}"));
        let (a, b) = r.into_parts();
        let got = format!(
            "{} {}",
            a.to_hex_strings().unwrap()[0],
            b.to_hex_strings().unwrap()[0]
        );
        assert_eq!(
            (got.as_str(), t.to_pairs().unwrap()[0]),
            (want, wt),
            "sqrt({re} + {im} i) {rnd}"
        );
    }
}
