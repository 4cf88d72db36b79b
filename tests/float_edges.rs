//! Precision 1 and 2 and MPFR's exponent range ends for every float op,
//! every real function and every complex function on the CPU engine,
//! against GNU MPFR 4.2 and GNU MPC themselves: tests/edges_mpfr.txt holds
//! their results (value and ternary) for arguments at the largest and
//! smallest floats, around the overflow and underflow thresholds of exp,
//! exp2, sinh, cosh, pow, mul_2si and the RNDN midpoint 2^(EMIN-2), the
//! special values, in every rounding mode (scripts/edges_gen.py and
//! scripts/peers/edges_mpfr.c make it). tests/float_edges_cuda.rs checks the
//! CUDA engine against this one on the same inputs.
#[path = "common/edges.rs"]
mod edges;

use edges::{eval, groups};
use mparray::Engine;
use rayon::prelude::*;

#[test]
fn edges_against_mpfr_and_mpc() {
    let gs = groups();
    let n: usize = gs.iter().map(|g| g.cases.len()).sum();
    assert!(n > 10_000, "only {n} cases");
    let fails: Vec<String> = gs
        .par_iter()
        .flat_map_iter(|g| match eval(g, &Engine::Cpu) {
            Err(e) => g
                .cases
                .iter()
                .map(|c| format!("{}: error {e}", c.line))
                .collect(),
            Ok(got) => g
                .cases
                .iter()
                .zip(got)
                .filter(|(c, (v, t))| *v != c.want || *t != c.want_t)
                .map(|(c, (v, t))| format!("{}: got {v} | {t}", c.line))
                .collect::<Vec<_>>(),
        })
        .collect();
    assert!(
        fails.is_empty(),
        "{} of {n} cases differ from MPFR/MPC:\n{}",
        fails.len(),
        fails.join("\n")
    );
}
