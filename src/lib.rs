//! mparray: arrays of multi-precision numbers on the CPU and on NVIDIA GPUs,
//! with identical results on both.
//!
//! One array type per number kind, each living on an [`Engine`] (the CPU,
//! or one CUDA device) and moved only by `to_engine`/`to_host`:
//! [`IntArray`] (fixed-width integers), [`FloatArray`] (floats with MPFR's
//! semantics), [`ComplexArray`] (complex floats with MPC's semantics).
//! Every operation is a method of the array, runs on its engine and returns
//! an array there.
//!
//! Layers, each importing only those below it: [`engine`] (devices, memory,
//! kernel compilation and caching), the number kinds [`int`], [`float`],
//! [`complex`], [`huge`] (single integers of any size), linear algebra
//! [`linalg`] ([`Matrix`] over float and complex arrays), the [`solvers`]
//! (polynomial roots, GMRES), and the front ends
//! [`bench`] (the benchmark suites behind `mparray bench`) and [`cli`] (the
//! command-line tool). [`kernels`] holds the CUDA C++ sources.

pub mod bench;
pub mod cli;
pub mod complex;
#[cfg(feature = "mpi")]
pub mod dist;
pub mod engine;
pub mod error;
pub mod expr;
pub mod float;
pub mod huge;
pub mod int;
pub mod kernels;
pub mod linalg;
pub(crate) mod modp;
pub mod multi;
pub mod solvers;

pub use complex::ComplexArray;
pub use engine::Engine;
pub use error::{Error, Result};
pub use float::{FloatArray, Round, TernaryArray};
pub use int::{Fused, IntArray, Radix};
pub use linalg::Matrix;
