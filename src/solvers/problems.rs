//! Test problems with exact data: the Wilkinson polynomial, the Chebyshev
//! quadrature-node polynomial, and the Hilbert matrix.
//!
//! Polynomials are returned as exact rational coefficients in **ascending**
//! order (`c[k]` multiplies `z^k`, the last one is the leading coefficient),
//! the convention of [`roots`](super::roots); [`coeff_array`] rounds them
//! once to a working precision.

use malachite_base::num::arithmetic::traits::Pow;
use malachite_float::Float;
use malachite_q::Rational;

use crate::complex::ComplexArray;
use crate::engine::Engine;
use crate::error::{Error, Result};
use crate::float::{FloatArray, Round};
use crate::linalg::Matrix;

/// The largest degree the generators accept (the roots' n x n work arrays
/// grow as n^2).
pub const MAX_DEGREE: usize = 1 << 14;

fn check_degree(n: usize) -> Result<()> {
    if n == 0 || n > MAX_DEGREE {
        return Err(Error::Invalid(format!(
            "degree {n}: the generators take degrees 1 to {MAX_DEGREE}"
        )));
    }
    Ok(())
}

/// `prod_{k=1..n} (z - k)`, ascending exact integer coefficients (leading
/// coefficient 1), by convolving the factors one at a time.
pub fn wilkinson(n: usize) -> Result<Vec<Rational>> {
    check_degree(n)?;
    use malachite_nz::integer::Integer;
    let mut c: Vec<Integer> = vec![Integer::from(1)];
    for k in 1..=n {
        // c(z) * (z - k): shift up, subtract k * c.
        let kk = Integer::from(k as u64);
        let mut next = vec![Integer::from(0); c.len() + 1];
        for (i, ci) in c.iter().enumerate() {
            next[i + 1] += ci;
            next[i] -= &kk * ci;
        }
        c = next;
    }
    Ok(c.into_iter().map(Rational::from).collect())
}

/// The polynomial whose roots are the nodes of Chebyshev's equal-weight
/// quadrature with `n` nodes: `p(z) = sum_i a_{2i} z^{n-2i}` with
/// `a_0 = 1`, odd `a` zero and `a_{2i} = -(n/(2i)) sum_{j=1..i}
/// a_{2(i-j)}/(2j+1)` (so here `a_k` multiplies `z^(n-k)`, descending),
/// returned as exact rationals in ascending order (`c[k] = a_{n-k}`). For
/// n = 8 and n >= 10 some roots are complex.
pub fn chebyshev_nodes(n: usize) -> Result<Vec<Rational>> {
    check_degree(n)?;
    let mut a = vec![Rational::from(0u32); n + 1];
    a[0] = Rational::from(1u32);
    let nn = Rational::from(n as u64);
    for i in 1..=n / 2 {
        let mut s = Rational::from(0u32);
        for j in 1..=i {
            s += &a[2 * (i - j)] / Rational::from((2 * j + 1) as u64);
        }
        a[2 * i] = -(&nn / Rational::from((2 * i) as u64)) * s;
    }
    a.reverse();
    Ok(a)
}

/// Exact coefficients (real, ascending) rounded once to nearest at `prec`
/// bits, as a complex array with zero imaginary parts on `engine`.
pub fn coeff_array(c: &[Rational], prec: u64, engine: &Engine) -> Result<ComplexArray> {
    crate::float::check_prec(prec)?;
    let re: Vec<Float> = c
        .iter()
        .map(|q| Float::from_rational_prec(q.clone(), prec).0)
        .collect();
    let (re, _) = FloatArray::from_floats(prec, &re, Round::Nearest)?;
    let im = FloatArray::zeros(&Engine::Cpu, c.len(), prec)?;
    ComplexArray::new(re, im)?.into_engine(engine)
}

/// The Hilbert matrix `H[i][j] = 1/(i+j+1)` (0-based) of order `n`, each
/// element rounded once to nearest at `prec` bits, on `engine`.
pub fn hilbert(n: usize, prec: u64, engine: &Engine) -> Result<Matrix<FloatArray>> {
    let v: Vec<Float> = (0..n * n)
        .map(|k| {
            let q = Rational::from(1u32) / Rational::from((k / n + k % n + 1) as u64);
            Float::from_rational_prec(q, prec).0
        })
        .collect();
    let (a, _) = FloatArray::from_floats(prec, &v, Round::Nearest)?;
    Matrix::from_array(a.into_engine(engine)?, n, n)
}

/// The exact Hilbert matrix of order `n` (row-major rationals), for
/// checking.
pub fn hilbert_exact(n: usize) -> Vec<Rational> {
    (0..n * n)
        .map(|k| Rational::from(1u32) / Rational::from((k / n + k % n + 1) as u64))
        .collect()
}

/// `2^e` as a rational (a helper for bounds in tests and benches).
pub fn pow2(e: i64) -> Rational {
    Rational::from(2u32).pow(e)
}
