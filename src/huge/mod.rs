//! Huge integers: one number of any size that fits in memory, on an engine,
//! multiplied by number-theoretic transforms; division, square root and
//! radix conversion on top of that multiplication.

pub mod cuda;
pub mod engine;

pub use engine::HugeEngine;
