//! Device memory: allocation and transfers of plain buffers on one engine's
//! stream, every driver failure an [`Error::Driver`] that names the call.
//! The array types (integers, floats, complex, ternary values) and the
//! kernels' launch code all allocate and copy through these.

use std::sync::Arc;

use cudarc::driver::{CudaSlice, DeviceRepr, ValidAsZeroBits};

use super::CudaEngine;
use crate::error::{Error, Result};

/// A zero-filled buffer of `n` items (at least one, so that empty arrays
/// still have a buffer to pass to kernels).
pub fn alloc_zeros<T: DeviceRepr + ValidAsZeroBits>(
    eng: &Arc<CudaEngine>,
    n: usize,
) -> Result<CudaSlice<T>> {
    eng.stream()
        .alloc_zeros::<T>(n.max(1))
        .map_err(Error::driver(format!(
            "allocating {} bytes",
            n * std::mem::size_of::<T>()
        )))
}

/// An uninitialised buffer of `n` items (at least one). Callers hand it
/// only to kernels that write every item before anything reads it.
pub fn alloc<T: DeviceRepr>(eng: &Arc<CudaEngine>, n: usize) -> Result<CudaSlice<T>> {
    // SAFETY: see above; the buffer is never read before a kernel fills it.
    unsafe { eng.stream().alloc::<T>(n.max(1)) }.map_err(Error::driver(format!(
        "allocating {} bytes",
        n * std::mem::size_of::<T>()
    )))
}

/// A device copy of `data` (a one-item zero placeholder when empty).
pub fn upload<T: DeviceRepr + ValidAsZeroBits>(
    eng: &Arc<CudaEngine>,
    data: &[T],
) -> Result<CudaSlice<T>> {
    if data.is_empty() {
        return alloc_zeros(eng, 0);
    }
    eng.stream()
        .clone_htod(data)
        .map_err(Error::driver("copying to the device"))
}

/// The whole buffer on the host (callers truncate a placeholder).
pub fn download<T: DeviceRepr + Default + Clone>(
    eng: &Arc<CudaEngine>,
    buf: &CudaSlice<T>,
) -> Result<Vec<T>> {
    eng.stream()
        .clone_dtoh(buf)
        .map_err(Error::driver("copying from the device"))
}

/// A device-to-device copy.
pub fn copy<T: DeviceRepr>(eng: &Arc<CudaEngine>, buf: &CudaSlice<T>) -> Result<CudaSlice<T>> {
    eng.stream()
        .clone_dtod(buf)
        .map_err(Error::driver("copying on the device"))
}
