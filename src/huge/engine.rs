//! The primitives that the huge-integer algorithms (Newton division, square
//! root, radix conversion) need from an engine. Each engine (CPU, CUDA)
//! implements them on its own buffers, so a chain of operations stays on the
//! engine that holds the data.
//!
//! A buffer holds a fixed number `n` of little-endian 64-bit limbs; its value
//! is below `2^(64 n)` and high zero limbs are allowed. Operations that write
//! into an accumulator work modulo `2^(64 len(acc))` and report the carry or
//! borrow out of its top limb.

use std::cmp::Ordering;

use crate::error::Result;

/// One engine's storage and primitive operations for huge naturals.
pub trait HugeEngine: Sync {
    /// Limbs of one number on this engine.
    type Buf: Send + Sync;

    /// `cpu` or `cuda`.
    fn name(&self) -> &'static str;

    /// A buffer holding `limbs`.
    fn upload(&self, limbs: &[u64]) -> Result<Self::Buf>;
    /// The buffer's limbs on the host.
    fn download(&self, a: &Self::Buf) -> Result<Vec<u64>>;
    /// The buffer's length `n` in limbs.
    fn len(&self, a: &Self::Buf) -> usize;
    /// `n` zero limbs.
    fn zeros(&self, n: usize) -> Result<Self::Buf>;
    /// A copy of limbs `lo..hi` of `a` (limbs past `len(a)` read as zero).
    fn slice(&self, a: &Self::Buf, lo: usize, hi: usize) -> Result<Self::Buf>;
    /// One past the highest non-zero limb (0 when `a` is zero).
    fn normalized_len(&self, a: &Self::Buf) -> Result<usize>;
    /// `a` compared with `b` as numbers (lengths may differ).
    fn cmp(&self, a: &Self::Buf, b: &Self::Buf) -> Result<Ordering>;

    /// `a * b` in exactly `len(a) + len(b)` limbs.
    fn mul(&self, a: &Self::Buf, b: &Self::Buf) -> Result<Self::Buf>;
    /// `a * a` in exactly `2 len(a)` limbs.
    fn sqr(&self, a: &Self::Buf) -> Result<Self::Buf>;
    /// `a * v` for one limb `v`, in `len(a) + 1` limbs.
    fn mul_limb(&self, a: &Self::Buf, v: u64) -> Result<Self::Buf>;

    /// `acc += b * 2^(64 shift)` modulo `2^(64 len(acc))`; true when a carry
    /// leaves the top limb. Limbs of `b` that land past `len(acc)` must be
    /// zero (an error otherwise, never a silent truncation).
    fn add_at(&self, acc: &mut Self::Buf, b: &Self::Buf, shift: usize) -> Result<bool>;
    /// `acc -= b * 2^(64 shift)` modulo `2^(64 len(acc))`; true when a
    /// borrow leaves the top limb. Same rule for `b`'s limbs as [`add_at`].
    ///
    /// [`add_at`]: HugeEngine::add_at
    fn sub_at(&self, acc: &mut Self::Buf, b: &Self::Buf, shift: usize) -> Result<bool>;
    /// `acc += v * 2^(64 at)`; true when a carry leaves the top limb.
    fn add_limb(&self, acc: &mut Self::Buf, v: u64, at: usize) -> Result<bool>;
    /// `acc -= v * 2^(64 at)`; true when a borrow leaves the top limb.
    fn sub_limb(&self, acc: &mut Self::Buf, v: u64, at: usize) -> Result<bool>;

    /// `a << bits` (`bits < 64`) in `len(a) + 1` limbs.
    fn shl_bits(&self, a: &Self::Buf, bits: u32) -> Result<Self::Buf>;
    /// `a >> bits` (`bits < 64`) in `len(a)` limbs.
    fn shr_bits(&self, a: &Self::Buf, bits: u32) -> Result<Self::Buf>;
}
