//! BLAS levels 2 and 3 on [`Matrix`]: `gemv`, `gemm`, `syrk`, `herk`.
//!
//! Every output element is `alpha*sum + beta*c` rounded once from its exact
//! value: the terms are the exact products `alpha*a*b` (alpha scales every
//! product exactly) and `beta*c`, summed and rounded by the
//! [exact core](super::exact) (`mpfr_sum`'s semantics on those terms, so
//! `0*Inf` in a term is NaN and the sign of an exact zero follows
//! `mpfr_sum`). `beta_c` is optional: `None` leaves the `beta*c` term out
//! (C is not read, as BLAS does for `beta = 0`; with `Some`, a NaN in C
//! gives NaN even when beta is 0). Complex elements are computed part by
//! part (see [`blas1`](super::blas1)). Scalars are one-element arrays on the
//! operands' engine; herk's alpha and beta are real.
//!
//! Any shapes, 0 and 1 included; mismatched shapes are errors naming them.
//! The output elements are computed in parallel (rayon), on the CPU by the
//! [fixed-point fast path](super::fixed) with the exact core for the
//! elements it cannot decide (the same bits). The results are new
//! row-major matrices with `ld = cols`. On CUDA matrices the real `gemv`,
//! `gemm` and `syrk` and the complex `gemv`, `gemm` and `herk` run on the
//! device ([`cuda`](super::cuda), `cuda_complex`: the same bits;
//! precisions above its tiers go to the CPU engine, on host copies, the
//! result written back to the device).

use super::Matrix;
use super::blas1::{CF, build_par, common_engine, place, place_c, push_cpart, scalar_len};
use super::exact::Terms;
use super::fixed;
use crate::complex::{CRound, ComplexArray, ComplexTernary, CpuComplex};
use crate::error::{Error, Result};
use crate::float::round::{Out, Round};
use crate::float::{CpuFloats, FloatArray, TernaryArray};

/// How a matrix operand enters an operation (BLAS's `trans`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum Op {
    /// `A`.
    #[default]
    None,
    /// `A^T`.
    Trans,
    /// `A^H` (the same as `Trans` for a real matrix).
    ConjTrans,
}

/// Which triangle of a symmetric or Hermitian result is computed.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum Uplo {
    /// Elements `(i, j)` with `i <= j`.
    #[default]
    Upper,
    /// Elements `(i, j)` with `i >= j`.
    Lower,
}

impl Uplo {
    fn has(self, i: usize, j: usize) -> bool {
        match self {
            Uplo::Upper => i <= j,
            Uplo::Lower => i >= j,
        }
    }
}

/// Options of a real [`Matrix::gemv`] (default: no transpose, 53 bits, to
/// nearest).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Gemv {
    pub op: Op,
    pub prec: u64,
    pub rnd: Round,
}

/// Options of a real [`Matrix::gemm`] (default: no transposes, 53 bits, to
/// nearest).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Gemm {
    pub op_a: Op,
    pub op_b: Op,
    pub prec: u64,
    pub rnd: Round,
}

/// Options of [`Matrix::syrk`]: `trans` `None` computes `A*A^T`, `Trans`
/// (or `ConjTrans`) `A^T*A` (default: upper, `A*A^T`, 53 bits, to nearest).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Syrk {
    pub uplo: Uplo,
    pub trans: Op,
    pub prec: u64,
    pub rnd: Round,
}

/// Options of a complex [`Matrix::gemv`]: the parts' precisions and modes
/// (default: no transpose, 53 bits each, to nearest).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct CGemv {
    pub op: Op,
    pub prec_re: u64,
    pub prec_im: u64,
    pub rnd: CRound,
}

/// Options of a complex [`Matrix::gemm`] (default: no transposes, 53 bits
/// each, to nearest).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct CGemm {
    pub op_a: Op,
    pub op_b: Op,
    pub prec_re: u64,
    pub prec_im: u64,
    pub rnd: CRound,
}

/// Options of [`Matrix::herk`]: `trans` `None` computes `A*A^H`, `ConjTrans`
/// (or `Trans`) `A^H*A` (default: upper, `A*A^H`, 53 bits each, to
/// nearest).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Herk {
    pub uplo: Uplo,
    pub trans: Op,
    pub prec_re: u64,
    pub prec_im: u64,
    pub rnd: CRound,
}

macro_rules! defaults {
    ($($t:ident { $($f:ident: $v:expr),* })*) => {$(
        impl Default for $t {
            fn default() -> Self {
                $t { $($f: $v),* }
            }
        }
    )*};
}

defaults! {
    Gemv { op: Op::None, prec: 53, rnd: Round::Nearest }
    Gemm { op_a: Op::None, op_b: Op::None, prec: 53, rnd: Round::Nearest }
    Syrk { uplo: Uplo::Upper, trans: Op::None, prec: 53, rnd: Round::Nearest }
    CGemv { op: Op::None, prec_re: 53, prec_im: 53, rnd: CRound::both(Round::Nearest) }
    CGemm { op_a: Op::None, op_b: Op::None, prec_re: 53, prec_im: 53,
        rnd: CRound::both(Round::Nearest) }
    Herk { uplo: Uplo::Upper, trans: Op::None, prec_re: 53, prec_im: 53,
        rnd: CRound::both(Round::Nearest) }
}

/// The shape of `op(A)` for an `r x c` matrix.
fn op_shape(op: Op, r: usize, c: usize) -> (usize, usize) {
    match op {
        Op::None => (r, c),
        _ => (c, r),
    }
}

/// The array index of `op(A)(i, j)` in a matrix of leading dimension `ld`,
/// and whether the element is conjugated.
fn op_at(op: Op, ld: usize, i: usize, j: usize) -> (usize, bool) {
    match op {
        Op::None => (i * ld + j, false),
        Op::Trans => (j * ld + i, false),
        Op::ConjTrans => (j * ld + i, true),
    }
}

fn shape_err(what: &str, detail: String) -> Error {
    Error::Shape(format!("{what}: {detail}"))
}

/// The engines of a matrix, its companions and the optional `beta*C`.
fn engines<A: super::Elements>(
    first: &[crate::engine::Engine],
    c: Option<&Matrix<A>>,
) -> Vec<crate::engine::Engine> {
    let mut v = first.to_vec();
    if let Some(c) = c {
        v.push(c.engine());
    }
    v
}

/// The beta term and C on the host.
/// The shape `(m, n, k)` of `op(A)*op(B)` (`m x k` times `k x n`), checked
/// against C's when given, the scalars' lengths checked, and the engine
/// all operands share.
fn gemm_shape<A: super::Elements>(
    a: &Matrix<A>,
    op_a: Op,
    b: &Matrix<A>,
    op_b: Op,
    alpha: &A,
    beta_c: Option<(&A, &Matrix<A>)>,
) -> Result<(usize, usize, usize, crate::engine::Engine)> {
    let (m, ka) = op_shape(op_a, a.rows(), a.cols());
    let (kb, n) = op_shape(op_b, b.rows(), b.cols());
    scalar_len("alpha", alpha.len())?;
    if ka != kb {
        return Err(shape_err(
            "gemm",
            format!("op(A) is {m} x {ka} but op(B) is {kb} x {n}"),
        ));
    }
    let mut eng = vec![a.engine(), b.engine(), alpha.engine()];
    if let Some((beta, c)) = beta_c {
        scalar_len("beta", beta.len())?;
        if (c.rows(), c.cols()) != (m, n) {
            return Err(shape_err(
                "gemm",
                format!(
                    "op(A)*op(B) is {m} x {n} but C is {} x {}",
                    c.rows(),
                    c.cols()
                ),
            ));
        }
        eng.push(beta.engine());
    }
    let engine = common_engine(&engines(&eng, beta_c.map(|x| x.1)))?;
    Ok((m, n, ka, engine))
}

type HostBeta<'a, T> = Option<(std::borrow::Cow<'a, T>, std::borrow::Cow<'a, T>, usize)>;

impl Matrix<FloatArray> {
    /// `alpha*op(A)*x + beta*y` (A is `self`; `beta_y` = `(beta, y)`, or
    /// None for no `beta*y` term), each element the exact value rounded
    /// once, with the ternary values.
    pub fn gemv(
        &self,
        alpha: &FloatArray,
        x: &FloatArray,
        beta_y: Option<(&FloatArray, &FloatArray)>,
        o: &Gemv,
    ) -> Result<(FloatArray, TernaryArray)> {
        let (m, n) = op_shape(o.op, self.rows(), self.cols());
        scalar_len("alpha", alpha.len())?;
        if x.len() != n {
            return Err(shape_err(
                "gemv",
                format!("op(A) is {m} x {n} but x has {} elements", x.len()),
            ));
        }
        let mut eng = vec![self.engine(), alpha.engine(), x.engine()];
        if let Some((b, y)) = beta_y {
            scalar_len("beta", b.len())?;
            if y.len() != m {
                return Err(shape_err(
                    "gemv",
                    format!("op(A) is {m} x {n} but y has {} elements", y.len()),
                ));
            }
            eng.extend([b.engine(), y.engine()]);
        }
        let engine = common_engine(&eng)?;
        if let Some(r) = super::cuda::gemv(self, o.op, alpha, x, beta_y, (m, n), o.prec, o.rnd)? {
            return Ok(r);
        }
        let (a, al, xh) = (self.data().host()?, alpha.host()?, x.host()?);
        let by = match beta_y {
            Some((b, y)) => Some((b.host()?, y.host()?)),
            None => None,
        };
        let ld = self.ld();
        let exact = |i: usize, out: &mut Out| {
            let mut t = Terms::new();
            let al = al.get(0);
            for k in 0..n {
                let (idx, _) = op_at(o.op, ld, i, k);
                t.push(&[&al, &a.get(idx), &xh.get(k)], false);
            }
            if let Some((b, y)) = &by {
                t.push(&[&b.get(0), &y.get(i)], false);
            }
            t.sum(out, o.prec, o.rnd)
        };
        let fast = fixed::real(
            (m, 1, n),
            |i, k| a.get(op_at(o.op, ld, i, k).0),
            Some(|_, k| xh.get(k)),
            al.get(0),
            by.as_ref().map(|(b, y)| (b.get(0), |i, _| y.get(i))),
            |_, _| true,
            (o.prec, o.rnd),
            exact,
        );
        let r = match fast {
            Some(r) => r?,
            None => build_par(m, o.prec, exact)?,
        };
        place(&engine, r)
    }

    /// `alpha*op(A)*op(B) + beta*C` (A is `self`; `beta_c` = `(beta, C)`,
    /// or None for no `beta*C` term), each element the exact value rounded
    /// once, with the ternary values (row after row).
    pub fn gemm(
        &self,
        b: &Matrix<FloatArray>,
        alpha: &FloatArray,
        beta_c: Option<(&FloatArray, &Matrix<FloatArray>)>,
        o: &Gemm,
    ) -> Result<(Matrix<FloatArray>, TernaryArray)> {
        let (m, n, ka, engine) = gemm_shape(self, o.op_a, b, o.op_b, alpha, beta_c)?;
        let shape = (m, n, ka);
        if let Some((r, t)) = super::cuda::gemm(
            self, o.op_a, b, o.op_b, alpha, beta_c, shape, o.prec, o.rnd, 0,
        )? {
            return Ok((Matrix::from_array(r, m, n)?, t));
        }
        let (ah, bh, al) = (self.data().host()?, b.data().host()?, alpha.host()?);
        let bc: HostBeta<CpuFloats> = match beta_c {
            Some((beta, c)) => Some((beta.host()?, c.data().host()?, c.ld())),
            None => None,
        };
        let (lda, ldb) = (self.ld(), b.ld());
        let exact = |idx: usize, out: &mut Out| {
            let (i, j) = (idx / n, idx % n);
            let mut t = Terms::new();
            let al = al.get(0);
            for k in 0..ka {
                let (ia, _) = op_at(o.op_a, lda, i, k);
                let (ib, _) = op_at(o.op_b, ldb, k, j);
                t.push(&[&al, &ah.get(ia), &bh.get(ib)], false);
            }
            if let Some((beta, c, ldc)) = &bc {
                t.push(&[&beta.get(0), &c.get(i * ldc + j)], false);
            }
            t.sum(out, o.prec, o.rnd)
        };
        let fast = fixed::real(
            (m, n, ka),
            |i, k| ah.get(op_at(o.op_a, lda, i, k).0),
            Some(|j, k| bh.get(op_at(o.op_b, ldb, k, j).0)),
            al.get(0),
            bc.as_ref()
                .map(|(beta, c, ldc)| (beta.get(0), move |i, j| c.get(i * ldc + j))),
            |_, _| true,
            (o.prec, o.rnd),
            exact,
        );
        let r = match fast {
            Some(r) => r?,
            None => build_par(m * n, o.prec, exact)?,
        };
        let (r, t) = place(&engine, r)?;
        Ok((Matrix::from_array(r, m, n)?, t))
    }

    /// `alpha*A*A^T + beta*C` (or `alpha*A^T*A`, see [`Syrk`]; A is
    /// `self`): the elements of the triangle `uplo` are the exact values
    /// rounded once, the others are C's (rounded to `prec`, +0 without C),
    /// with the ternary values.
    pub fn syrk(
        &self,
        alpha: &FloatArray,
        beta_c: Option<(&FloatArray, &Matrix<FloatArray>)>,
        o: &Syrk,
    ) -> Result<(Matrix<FloatArray>, TernaryArray)> {
        let (n, kk) = op_shape(o.trans, self.rows(), self.cols());
        scalar_len("alpha", alpha.len())?;
        let mut eng = vec![self.engine(), alpha.engine()];
        if let Some((beta, c)) = beta_c {
            scalar_len("beta", beta.len())?;
            if (c.rows(), c.cols()) != (n, n) {
                return Err(shape_err(
                    "syrk",
                    format!("A*A^T is {n} x {n} but C is {} x {}", c.rows(), c.cols()),
                ));
            }
            eng.push(beta.engine());
        }
        let engine = common_engine(&engines(&eng, beta_c.map(|x| x.1)))?;
        // op(A) * op(A)^T, the triangle kept on the device.
        let op_b = if o.trans == Op::None {
            Op::Trans
        } else {
            Op::None
        };
        let tri = if o.uplo == Uplo::Upper { 1 } else { 2 };
        let shape = (n, n, kk);
        if let Some((r, t)) = super::cuda::gemm(
            self, o.trans, self, op_b, alpha, beta_c, shape, o.prec, o.rnd, tri,
        )? {
            return Ok((Matrix::from_array(r, n, n)?, t));
        }
        let (ah, al) = (self.data().host()?, alpha.host()?);
        let bc: HostBeta<CpuFloats> = match beta_c {
            Some((beta, c)) => Some((beta.host()?, c.data().host()?, c.ld())),
            None => None,
        };
        let lda = self.ld();
        let exact = |idx: usize, out: &mut Out| {
            let (i, j) = (idx / n, idx % n);
            let mut t = Terms::new();
            if !o.uplo.has(i, j) {
                if let Some((_, c, ldc)) = &bc {
                    t.push(&[&c.get(i * ldc + j)], false);
                }
                return t.sum(out, o.prec, o.rnd);
            }
            let al = al.get(0);
            for k in 0..kk {
                let (ia, _) = op_at(o.trans, lda, i, k);
                let (ja, _) = op_at(o.trans, lda, j, k);
                t.push(&[&al, &ah.get(ia), &ah.get(ja)], false);
            }
            if let Some((beta, c, ldc)) = &bc {
                t.push(&[&beta.get(0), &c.get(i * ldc + j)], false);
            }
            t.sum(out, o.prec, o.rnd)
        };
        let fast = fixed::real(
            (n, n, kk),
            |i, k| ah.get(op_at(o.trans, lda, i, k).0),
            None::<fn(usize, usize) -> crate::float::Elem<'static>>,
            al.get(0),
            bc.as_ref()
                .map(|(beta, c, ldc)| (beta.get(0), move |i, j| c.get(i * ldc + j))),
            |i, j| o.uplo.has(i, j),
            (o.prec, o.rnd),
            exact,
        );
        let r = match fast {
            Some(r) => r?,
            None => build_par(n * n, o.prec, exact)?,
        };
        let (r, t) = place(&engine, r)?;
        Ok((Matrix::from_array(r, n, n)?, t))
    }
}

/// One part of a complex output on the host, with its ternary values.
type HostPart = (CpuFloats, Vec<i8>);

/// Part `part` (0 real, 1 imaginary) of element `idx` by the exact core,
/// its terms pushed by `f(idx, im, terms)`.
fn exact_c<F>(f: &F, (ps, rs): ([u64; 2], [Round; 2])) -> impl Fn(usize, usize, &mut Out) -> i8
where
    F: Fn(usize, bool, &mut Terms) + Sync,
{
    move |part, idx, out| {
        let mut t = Terms::new();
        f(idx, part == 1, &mut t);
        t.sum(out, ps[part], rs[part])
    }
}

/// A complex scalar's parts, for the fast path.
fn cscalar(z: &CpuComplex) -> (crate::float::Elem<'_>, Option<crate::float::Elem<'_>>) {
    (z.re().get(0), Some(z.im().get(0)))
}

/// Both parts of an output built by `f(i, im, out)`.
fn build_c<F>(len: usize, pr: u64, pi: u64, rnd: CRound, f: F) -> Result<(HostPart, HostPart)>
where
    F: Fn(usize, bool, &mut Terms) + Sync,
{
    let part = |im: bool, p: u64, r: Round| {
        build_par(len, p, |i, out| {
            let mut t = Terms::new();
            f(i, im, &mut t);
            t.sum(out, p, r)
        })
    };
    Ok((part(false, pr, rnd.re)?, part(true, pi, rnd.im)?))
}

impl Matrix<ComplexArray> {
    /// `alpha*op(A)*x + beta*y` for complex A (`self`), x, y and scalars,
    /// each part of each element the exact value rounded once, with the
    /// ternary pairs.
    pub fn gemv(
        &self,
        alpha: &ComplexArray,
        x: &ComplexArray,
        beta_y: Option<(&ComplexArray, &ComplexArray)>,
        o: &CGemv,
    ) -> Result<(ComplexArray, ComplexTernary)> {
        let (m, n) = op_shape(o.op, self.rows(), self.cols());
        scalar_len("alpha", alpha.len())?;
        if x.len() != n {
            return Err(shape_err(
                "gemv",
                format!("op(A) is {m} x {n} but x has {} elements", x.len()),
            ));
        }
        let mut eng = vec![self.engine(), alpha.engine(), x.engine()];
        if let Some((b, y)) = beta_y {
            scalar_len("beta", b.len())?;
            if y.len() != m {
                return Err(shape_err(
                    "gemv",
                    format!("op(A) is {m} x {n} but y has {} elements", y.len()),
                ));
            }
            eng.extend([b.engine(), y.engine()]);
        }
        let engine = common_engine(&eng)?;
        if let Some(r) = super::cuda_complex::gemv(
            self,
            o.op,
            alpha,
            x,
            beta_y,
            (m, n),
            (o.prec_re, o.prec_im),
            o.rnd,
        )? {
            return Ok(r);
        }
        let (a, al, xh) = (self.data().host()?, alpha.host()?, x.host()?);
        let by = match beta_y {
            Some((b, y)) => Some((b.host()?, y.host()?)),
            None => None,
        };
        let ld = self.ld();
        let f = |i: usize, part: bool, t: &mut Terms| {
            let alf = CF::of(&al, 0, false);
            for k in 0..n {
                let (idx, conj) = op_at(o.op, ld, i, k);
                push_cpart(
                    t,
                    &[alf, CF::of(&a, idx, conj), CF::of(&xh, k, false)],
                    part,
                    false,
                );
            }
            if let Some((b, y)) = &by {
                push_cpart(t, &[CF::of(b, 0, false), CF::of(y, i, false)], part, false);
            }
        };
        let pr = ([o.prec_re, o.prec_im], [o.rnd.re, o.rnd.im]);
        let fast = fixed::complex(
            (m, 1, n),
            (
                |i, k| fixed::cget(&a, op_at(o.op, ld, i, k).0),
                o.op == Op::ConjTrans,
            ),
            (|_, k| fixed::cget(&xh, k), false),
            cscalar(&al),
            by.as_ref()
                .map(|(b, y)| (cscalar(b), |i, _| fixed::cget(y, i))),
            |_, _| true,
            pr,
            exact_c(&f, pr),
        );
        let (re, im) = match fast {
            Some(r) => r?.into(),
            None => build_c(m, o.prec_re, o.prec_im, o.rnd, f)?,
        };
        place_c(&engine, re, im)
    }

    /// `alpha*op(A)*op(B) + beta*C` for complex matrices (A is `self`),
    /// each part of each element the exact value rounded once, with the
    /// ternary pairs (row after row).
    pub fn gemm(
        &self,
        b: &Matrix<ComplexArray>,
        alpha: &ComplexArray,
        beta_c: Option<(&ComplexArray, &Matrix<ComplexArray>)>,
        o: &CGemm,
    ) -> Result<(Matrix<ComplexArray>, ComplexTernary)> {
        let (m, n, ka, engine) = gemm_shape(self, o.op_a, b, o.op_b, alpha, beta_c)?;
        if let Some((r, t)) = super::cuda_complex::gemm(
            self,
            o.op_a,
            b,
            o.op_b,
            alpha,
            beta_c,
            (m, n, ka),
            (o.prec_re, o.prec_im),
            o.rnd,
        )? {
            return Ok((Matrix::from_array(r, m, n)?, t));
        }
        let (ah, bh, al) = (self.data().host()?, b.data().host()?, alpha.host()?);
        let bc: HostBeta<CpuComplex> = match beta_c {
            Some((beta, c)) => Some((beta.host()?, c.data().host()?, c.ld())),
            None => None,
        };
        let (lda, ldb) = (self.ld(), b.ld());
        let f = |idx: usize, part: bool, t: &mut Terms| {
            let (i, j) = (idx / n, idx % n);
            let alf = CF::of(&al, 0, false);
            for k in 0..ka {
                let (ia, ca) = op_at(o.op_a, lda, i, k);
                let (ib, cb) = op_at(o.op_b, ldb, k, j);
                push_cpart(
                    t,
                    &[alf, CF::of(&ah, ia, ca), CF::of(&bh, ib, cb)],
                    part,
                    false,
                );
            }
            if let Some((beta, c, ldc)) = &bc {
                let cf = CF::of(c, i * ldc + j, false);
                push_cpart(t, &[CF::of(beta, 0, false), cf], part, false);
            }
        };
        let pr = ([o.prec_re, o.prec_im], [o.rnd.re, o.rnd.im]);
        let fast = fixed::complex(
            (m, n, ka),
            (
                |i, k| fixed::cget(&ah, op_at(o.op_a, lda, i, k).0),
                o.op_a == Op::ConjTrans,
            ),
            (
                |j, k| fixed::cget(&bh, op_at(o.op_b, ldb, k, j).0),
                o.op_b == Op::ConjTrans,
            ),
            cscalar(&al),
            bc.as_ref()
                .map(|(beta, c, ldc)| (cscalar(beta), move |i, j| fixed::cget(c, i * ldc + j))),
            |_, _| true,
            pr,
            exact_c(&f, pr),
        );
        let (re, im) = match fast {
            Some(r) => r?.into(),
            None => build_c(m * n, o.prec_re, o.prec_im, o.rnd, f)?,
        };
        let (r, t) = place_c(&engine, re, im)?;
        Ok((Matrix::from_array(r, m, n)?, t))
    }

    /// `alpha*A*A^H + beta*C` (or `alpha*A^H*A`, see [`Herk`]; A is `self`,
    /// alpha and beta real): the elements of the triangle `uplo` are the
    /// exact values rounded once per part (the diagonal's imaginary parts
    /// too: exactly `beta*Im(c)`, +0 without C), the others are C's
    /// (rounded), with the ternary pairs.
    pub fn herk(
        &self,
        alpha: &FloatArray,
        beta_c: Option<(&FloatArray, &Matrix<ComplexArray>)>,
        o: &Herk,
    ) -> Result<(Matrix<ComplexArray>, ComplexTernary)> {
        let (n, kk) = op_shape(o.trans, self.rows(), self.cols());
        scalar_len("alpha", alpha.len())?;
        let mut eng = vec![self.engine(), alpha.engine()];
        if let Some((beta, c)) = beta_c {
            scalar_len("beta", beta.len())?;
            if (c.rows(), c.cols()) != (n, n) {
                return Err(shape_err(
                    "herk",
                    format!("A*A^H is {n} x {n} but C is {} x {}", c.rows(), c.cols()),
                ));
            }
            eng.push(beta.engine());
        }
        let engine = common_engine(&engines(&eng, beta_c.map(|x| x.1)))?;
        if let Some((r, t)) = super::cuda_complex::herk(
            self,
            o.trans,
            o.uplo == Uplo::Upper,
            alpha,
            beta_c,
            (n, kk),
            (o.prec_re, o.prec_im),
            o.rnd,
        )? {
            return Ok((Matrix::from_array(r, n, n)?, t));
        }
        let (ah, al) = (self.data().host()?, alpha.host()?);
        let bc = match beta_c {
            Some((beta, c)) => Some((beta.host()?, c.data().host()?, c.ld())),
            None => None,
        };
        let lda = self.ld();
        // A*A^H: A(i,k) conj(A(j,k)); A^H*A: conj(A(k,i)) A(k,j).
        let left_conj = o.trans != Op::None;
        let f = |idx: usize, part: bool, t: &mut Terms| {
            let (i, j) = (idx / n, idx % n);
            if !o.uplo.has(i, j) {
                if let Some((_, c, ldc)) = &bc {
                    let h = if part { c.im() } else { c.re() };
                    t.push(&[&h.get(i * ldc + j)], false);
                }
                return;
            }
            let alf = CF::real(al.get(0));
            for k in 0..kk {
                let (ia, ja) = match o.trans {
                    Op::None => (i * lda + k, j * lda + k),
                    _ => (k * lda + i, k * lda + j),
                };
                let (x, y) = (CF::of(&ah, ia, left_conj), CF::of(&ah, ja, !left_conj));
                push_cpart(t, &[alf, x, y], part, false);
            }
            if let Some((beta, c, ldc)) = &bc {
                let cf = CF::of(c, i * ldc + j, false);
                push_cpart(t, &[CF::real(beta.get(0)), cf], part, false);
            }
        };
        let pr = ([o.prec_re, o.prec_im], [o.rnd.re, o.rnd.im]);
        // A*A^H: A(i,k) conj(A(j,k)); A^H*A: conj(A(k,i)) A(k,j).
        let at = |i: usize, k: usize| match o.trans {
            Op::None => fixed::cget(&ah, i * lda + k),
            _ => fixed::cget(&ah, k * lda + i),
        };
        let fast = fixed::complex(
            (n, n, kk),
            (at, left_conj),
            (at, !left_conj),
            (al.get(0), None),
            bc.as_ref().map(|(beta, c, ldc)| {
                ((beta.get(0), None), move |i, j| fixed::cget(c, i * ldc + j))
            }),
            |i, j| o.uplo.has(i, j),
            pr,
            exact_c(&f, pr),
        );
        let (re, im) = match fast {
            Some(r) => r?.into(),
            None => build_c(n * n, o.prec_re, o.prec_im, o.rnd, f)?,
        };
        let (r, t) = place_c(&engine, re, im)?;
        Ok((Matrix::from_array(r, n, n)?, t))
    }
}
