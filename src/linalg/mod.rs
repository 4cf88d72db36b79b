//! Linear algebra on arrays of multi-precision numbers: the [`Matrix`]
//! type, a `rows x cols` view over a [`FloatArray`](crate::FloatArray) or a
//! [`ComplexArray`](crate::ComplexArray) on any engine.
//!
//! A matrix is stored row-major with a leading dimension `ld >= cols`, as
//! in BLAS's row-major layout: element `(i, j)` is element `i*ld + j` of
//! the underlying array, and the array holds at least `(rows-1)*ld + cols`
//! elements (none when `rows` or `cols` is 0). The elements between `cols`
//! and `ld` in a row are padding: no operation reads them, and equality
//! ignores them. Shapes with 0 or 1 rows or columns are allowed.
//!
//! The matrix owns its array; its data lives on the array's engine and
//! moves only through [`Matrix::to_engine`], [`Matrix::into_engine`] and
//! [`Matrix::to_host`], as the arrays' do. This layer sits above the number
//! kinds ([`float`](crate::float), [`complex`](crate::complex)) and below
//! the solvers.
//!
//! The BLAS layer: level 1 on vectors ([`blas1`]: `dot`, `dotu`, `dotc`,
//! `nrm2`, `asum`, `axpy`, `scal`), levels 2 and 3 on matrices
//! ([`blas23`]: `gemv`, `gemm`, `syrk`, `herk`). Every reduction returns the
//! correctly rounded exact result of each output element, defined by the
//! exact reduction core ([`exact`], `mpfr_sum`'s semantics and algorithm),
//! so the bits are independent of summation order, tiling, threads and
//! engine. On the CPU engine the products go through a fixed-point fast
//! path with a rigorous error bound ([`fixed`]), which hands the elements
//! it cannot decide to the exact core: the same bits.

pub mod blas1;
pub mod blas23;
pub mod cuda;
#[doc(hidden)]
pub mod cuda_complex;
pub mod exact;
pub mod fixed;
mod ifma;
pub mod market;
mod matrix;

pub use blas23::{CGemm, CGemv, Gemm, Gemv, Herk, Op, Syrk, Uplo};
pub use matrix::{ComplexMatrix, Elements, FloatMatrix, Matrix};
