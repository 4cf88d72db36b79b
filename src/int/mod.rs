//! Arrays of fixed-width unsigned integers.
//!
//! An [`IntArray`] holds `len` integers of `W = 64*L` bits each, stored as
//! little-endian 64-bit limbs (GMP's order), element after element, on one
//! engine. Operations take and return arrays on the same engine; moving data
//! is explicit ([`IntArray::to_engine`]).

pub mod cpu;
pub mod cuda;
pub mod limbs;
pub mod nt;
mod ops;
pub mod parse;
pub mod random;

use std::sync::Arc;

use cudarc::driver::CudaSlice;
use malachite_base::num::logic::traits::SignificantBits;
use malachite_nz::natural::Natural;

use crate::engine::{CudaEngine, Engine};
use crate::error::{Error, Result};

pub use ops::Fused;
pub use parse::Radix;

/// Smallest supported width in bits.
pub const MIN_BITS: u64 = 64;
/// Largest supported width in bits (2^20).
pub const MAX_BITS: u64 = 1 << 20;

/// Checks a width and returns its number of limbs.
pub fn limbs_for_bits(bits: u64) -> Result<usize> {
    if !(MIN_BITS..=MAX_BITS).contains(&bits) || !bits.is_multiple_of(64) {
        return Err(Error::BadWidth {
            bits,
            max: MAX_BITS,
        });
    }
    Ok((bits / 64) as usize)
}

/// Where the limbs are.
pub(crate) enum Store {
    Host(Vec<u64>),
    Cuda {
        buf: CudaSlice<u64>,
        eng: Arc<CudaEngine>,
    },
}

/// `len` unsigned integers of `64 * limbs` bits on one engine.
pub struct IntArray {
    limbs: usize,
    len: usize,
    pub(crate) store: Store,
}

impl std::fmt::Debug for IntArray {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "IntArray {{ len: {}, bits: {}, engine: {} }}",
            self.len,
            self.bits(),
            self.engine().name()
        )
    }
}

impl IntArray {
    pub(crate) fn from_parts(limbs: usize, len: usize, store: Store) -> IntArray {
        IntArray { limbs, len, store }
    }

    /// Number of elements.
    pub fn len(&self) -> usize {
        self.len
    }

    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// Width of each element in bits.
    pub fn bits(&self) -> u64 {
        self.limbs as u64 * 64
    }

    /// 64-bit limbs per element.
    pub fn limbs_per_element(&self) -> usize {
        self.limbs
    }

    /// The engine the array lives on.
    pub fn engine(&self) -> Engine {
        match &self.store {
            Store::Host(_) => Engine::Cpu,
            Store::Cuda { eng, .. } => Engine::Cuda(eng.clone()),
        }
    }

    /// `len` zeros of `bits` bits on `engine`.
    pub fn zeros(engine: &Engine, len: usize, bits: u64) -> Result<IntArray> {
        let limbs = limbs_for_bits(bits)?;
        let n = len.checked_mul(limbs).ok_or_else(|| {
            Error::Invalid(format!(
                "{len} elements of {bits} bits do not fit in memory"
            ))
        })?;
        let store = match engine {
            Engine::Cpu => Store::Host(crate::engine::host::zeros("an int array", n)?),
            Engine::Cuda(eng) => Store::Cuda {
                buf: cuda::alloc_zeros(eng, n)?,
                eng: eng.clone(),
            },
        };
        Ok(IntArray { limbs, len, store })
    }

    /// An array on the CPU from limbs: element `i` is
    /// `data[i*L .. (i+1)*L]`, least significant limb first.
    pub fn from_limbs(bits: u64, data: Vec<u64>) -> Result<IntArray> {
        let limbs = limbs_for_bits(bits)?;
        if !data.len().is_multiple_of(limbs) {
            return Err(Error::Shape(format!(
                "{} limbs is not a whole number of {bits}-bit elements ({limbs} limbs each)",
                data.len()
            )));
        }
        Ok(IntArray {
            limbs,
            len: data.len() / limbs,
            store: Store::Host(data),
        })
    }

    /// An array on the CPU from decimal or `0x`-hex strings.
    pub fn from_strs<S: AsRef<str> + Sync>(bits: u64, items: &[S]) -> Result<IntArray> {
        let limbs = limbs_for_bits(bits)?;
        let n = items.len().saturating_mul(limbs);
        let mut data = crate::engine::host::zeros("an int array", n)?;
        parse::parse_into(items, limbs, &mut data)?;
        IntArray::from_limbs(bits, data)
    }

    /// An array on the CPU from malachite naturals; each must fit in `bits`.
    pub fn from_naturals(bits: u64, items: &[Natural]) -> Result<IntArray> {
        let limbs = limbs_for_bits(bits)?;
        let n = items.len().saturating_mul(limbs);
        let mut data = crate::engine::host::zeros("an int array", n)?;
        for (i, (x, out)) in items.iter().zip(data.chunks_mut(limbs)).enumerate() {
            let l = x.to_limbs_asc();
            if l.len() > limbs {
                return Err(Error::TooWide {
                    index: i,
                    needed: x.significant_bits(),
                    width: bits,
                });
            }
            out[..l.len()].copy_from_slice(&l);
        }
        IntArray::from_limbs(bits, data)
    }

    /// Uniformly random elements, generated on `engine` from `seed`. The
    /// same seed gives the same bits on every engine.
    pub fn random(engine: &Engine, len: usize, bits: u64, seed: u64) -> Result<IntArray> {
        let limbs = limbs_for_bits(bits)?;
        IntArray::random_lengths(engine, len, bits, seed, limbs, limbs)
    }

    /// Random elements whose length in limbs is uniform in
    /// `min_limbs..=max_limbs` (top limb non-zero), generated on `engine`.
    pub fn random_lengths(
        engine: &Engine,
        len: usize,
        bits: u64,
        seed: u64,
        min_limbs: usize,
        max_limbs: usize,
    ) -> Result<IntArray> {
        let limbs = limbs_for_bits(bits)?;
        if min_limbs == 0 || min_limbs > max_limbs || max_limbs > limbs {
            return Err(Error::Invalid(format!(
                "random lengths {min_limbs}..={max_limbs} limbs do not fit {limbs}-limb elements"
            )));
        }
        let mut a = IntArray::zeros(engine, len, bits)?;
        match &mut a.store {
            Store::Host(data) => random::fill(data, limbs, seed, min_limbs, max_limbs),
            Store::Cuda { buf, eng } => {
                cuda::random_fill(eng, buf, len, limbs, seed, min_limbs, max_limbs)?
            }
        }
        Ok(a)
    }

    /// A copy on `engine` (a plain copy when already there).
    pub fn to_engine(&self, engine: &Engine) -> Result<IntArray> {
        let store = match engine {
            Engine::Cpu => Store::Host(self.to_limbs()?),
            Engine::Cuda(eng) => {
                let buf = match &self.store {
                    Store::Host(v) => cuda::upload(eng, v)?,
                    Store::Cuda { buf, eng: src } if Arc::ptr_eq(src, eng) => cuda::copy(eng, buf)?,
                    Store::Cuda { .. } => cuda::upload(eng, &self.to_limbs()?)?,
                };
                Store::Cuda {
                    buf,
                    eng: eng.clone(),
                }
            }
        };
        Ok(IntArray {
            limbs: self.limbs,
            len: self.len,
            store,
        })
    }

    crate::engine::engine_moves!(IntArray);

    /// All limbs, element after element (copied from the device if needed).
    pub fn to_limbs(&self) -> Result<Vec<u64>> {
        match &self.store {
            Store::Host(v) => Ok(v.clone()),
            Store::Cuda { buf, eng } => {
                crate::engine::host::check::<u64>("a copy from the device", buf.len())?;
                // An empty array's buffer holds one padding limb.
                let mut v = cuda::download(eng, buf)?;
                v.truncate(self.len * self.limbs);
                Ok(v)
            }
        }
    }

    /// Borrow the limbs of a host array (`None` on a device).
    pub fn host_limbs(&self) -> Option<&[u64]> {
        match &self.store {
            Store::Host(v) => Some(v),
            Store::Cuda { .. } => None,
        }
    }

    /// The elements as malachite naturals.
    pub fn to_naturals(&self) -> Result<Vec<Natural>> {
        let data = self.to_limbs()?;
        Ok(data
            .chunks(self.limbs.max(1))
            .take(self.len)
            .map(Natural::from_limbs_asc)
            .collect())
    }

    /// The elements as strings in `radix` (hex with a `0x` prefix).
    pub fn to_strings(&self, radix: Radix) -> Result<Vec<String>> {
        let data = self.to_limbs()?;
        Ok(parse::format_all(&data, self.limbs, radix))
    }
}
