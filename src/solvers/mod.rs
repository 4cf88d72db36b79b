//! Solvers built on the array API: all roots of a polynomial
//! ([`roots`]: higher-order Ehrlich-Aberth and a Sakurai-Torii-Sugiura
//! Padé method) and restarted GMRES(m) for dense systems ([`gmres`](mod@gmres)), with
//! the test problems they are measured on ([`problems`]).
//!
//! This layer sits above linear algebra: it calls only the public methods
//! of [`ComplexArray`](crate::ComplexArray), [`FloatArray`](crate::FloatArray)
//! and [`Matrix`](crate::Matrix) (element-wise arithmetic and the exact
//! BLAS), so every solver runs on the engine its inputs live on. Every step
//! is a correctly rounded operation (or an exactly rounded BLAS reduction)
//! in a fixed order, so the same inputs, options and precision give the
//! same bits on every engine. See `notes/solvers.md`.

mod basis;
pub mod gmres;
pub mod problems;
pub mod roots;

pub use gmres::{GmresComplexResult, GmresOpts, GmresResult, Ortho, gmres, gmres_complex};
pub use roots::{AberthOpts, RootsResult, Start, StsOpts, aberth, sts_pade};
