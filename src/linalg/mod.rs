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
//! the solvers; the BLAS operations (dot, axpy, gemv, gemm, syrk, herk)
//! build on this type.

pub mod market;
mod matrix;

pub use matrix::{ComplexMatrix, Elements, FloatMatrix, Matrix};
