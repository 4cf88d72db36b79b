//! mparray: arrays of multi-precision numbers on the CPU and on NVIDIA GPUs,
//! with identical results on both.
//!
//! Layout: [`engine`] (CPU and CUDA, kernel compilation and caching),
//! [`int`] (fixed-width integer arrays and their operations), [`float`]
//! (float arrays with MPFR's semantics), [`huge`]
//! (single integers of any size), [`kernels`]
//! (CUDA C++ sources), [`bench`] (the benchmark suites behind
//! `mparray bench`), [`cli`] (the command-line tool).

pub mod bench;
pub mod cli;
pub mod complex;
pub mod engine;
pub mod error;
pub mod float;
pub mod huge;
pub mod int;
pub mod kernels;
pub mod linalg;
pub(crate) mod modp;

pub use complex::ComplexArray;
pub use engine::Engine;
pub use error::{Error, Result};
pub use float::{FloatArray, Round, TernaryArray};
pub use int::{Fused, IntArray, Radix};
pub use linalg::Matrix;
