//! Device memory: allocation and transfers of plain buffers on one engine's
//! stream. The array types (integers, floats, complex, ternary values) and
//! the kernels' launch code all allocate and copy through these.
//!
//! An allocation that does not fit is an [`Error::DeviceMemory`] naming the
//! operation (the innermost [`op_scope`] label, and the buffer), the bytes
//! asked for and the bytes free: the driver's out-of-memory answer, or,
//! under a limit ([`CudaEngine::mem_limit`], `MPARRAY_CUDA_MEM_LIMIT`), a
//! check before the call. Every other driver failure is an
//! [`Error::Driver`] that names the call. [`plan`] and [`fit`] let an
//! operation size its chunks to the memory that is free.

use std::cell::Cell;
use std::sync::Arc;

use cudarc::driver::sys::CUresult;
use cudarc::driver::{CudaSlice, DeviceRepr, DriverError, ValidAsZeroBits};

use super::CudaEngine;
use crate::error::{Error, Result};

thread_local! {
    /// The operation running on this thread, for out-of-memory messages.
    static OP: Cell<&'static str> = const { Cell::new("") };
}

/// Restores the previous operation label when dropped.
pub struct OpScope(&'static str);

impl Drop for OpScope {
    fn drop(&mut self) {
        OP.with(|o| o.set(self.0));
    }
}

/// Names the operation on this thread (e.g. `"float exp"`) until the
/// returned guard drops; an outer label stays (it names what the user
/// called).
#[must_use]
pub fn op_scope(name: &'static str) -> OpScope {
    OP.with(|o| {
        let prev = o.get();
        if prev.is_empty() {
            o.set(name);
        }
        OpScope(prev)
    })
}

/// The operation label with the buffer's description.
fn op_name(what: &str) -> String {
    match OP.with(|o| o.get()) {
        "" => what.to_string(),
        op => format!("{op} ({what})"),
    }
}

/// The out-of-memory error for `bytes` of `what`.
pub fn out_of_memory(eng: &CudaEngine, what: &str, bytes: u64) -> Error {
    Error::DeviceMemory {
        op: op_name(what),
        requested: bytes,
        free: eng.free_bytes(),
    }
}

/// Fails early when a limit is set and `bytes` more would pass it.
pub fn ensure(eng: &CudaEngine, what: &str, bytes: usize) -> Result<()> {
    if let Some(l) = eng.mem_limit() {
        let used = eng.used_bytes();
        if used.saturating_add(bytes as u64) > l {
            return Err(Error::DeviceMemory {
                op: op_name(what),
                requested: bytes as u64,
                free: eng.free_bytes().min(l.saturating_sub(used)),
            });
        }
    }
    Ok(())
}

/// Maps a failed allocation (or a copy that allocates): out of memory
/// becomes [`Error::DeviceMemory`], anything else [`Error::Driver`].
pub fn alloc_error<'a>(
    eng: &'a CudaEngine,
    what: &'a str,
    bytes: usize,
) -> impl FnOnce(DriverError) -> Error + 'a {
    move |e| {
        if e.0 == CUresult::CUDA_ERROR_OUT_OF_MEMORY {
            out_of_memory(eng, what, bytes as u64)
        } else {
            Error::Driver {
                what: format!("allocating {bytes} bytes for {}", op_name(what)),
                source: e,
            }
        }
    }
}

fn bytes_of<T>(what: &str, n: usize) -> Result<usize> {
    n.checked_mul(std::mem::size_of::<T>())
        .ok_or_else(|| Error::DeviceMemory {
            op: op_name(what),
            requested: u64::MAX,
            free: 0,
        })
}

/// A zero-filled buffer of `n` items (at least one, so that empty arrays
/// still have a buffer to pass to kernels).
pub fn alloc_zeros<T: DeviceRepr + ValidAsZeroBits>(
    eng: &Arc<CudaEngine>,
    n: usize,
) -> Result<CudaSlice<T>> {
    alloc_zeros_for(eng, "a buffer", n)
}

/// [`alloc_zeros`] with a description of the buffer for errors.
pub fn alloc_zeros_for<T: DeviceRepr + ValidAsZeroBits>(
    eng: &Arc<CudaEngine>,
    what: &str,
    n: usize,
) -> Result<CudaSlice<T>> {
    let bytes = bytes_of::<T>(what, n.max(1))?;
    ensure(eng, what, bytes)?;
    eng.stream()
        .alloc_zeros::<T>(n.max(1))
        .map_err(alloc_error(eng, what, bytes))
}

/// An uninitialised buffer of `n` items (at least one). Callers hand it
/// only to kernels that write every item before anything reads it.
pub fn alloc<T: DeviceRepr>(eng: &Arc<CudaEngine>, n: usize) -> Result<CudaSlice<T>> {
    alloc_for(eng, "a buffer", n)
}

/// [`alloc`] with a description of the buffer for errors.
pub fn alloc_for<T: DeviceRepr>(
    eng: &Arc<CudaEngine>,
    what: &str,
    n: usize,
) -> Result<CudaSlice<T>> {
    let bytes = bytes_of::<T>(what, n.max(1))?;
    ensure(eng, what, bytes)?;
    // SAFETY: see above; the buffer is never read before a kernel fills it.
    unsafe { eng.stream().alloc::<T>(n.max(1)) }.map_err(alloc_error(eng, what, bytes))
}

/// A device copy of `data` (a one-item zero placeholder when empty).
pub fn upload<T: DeviceRepr + ValidAsZeroBits>(
    eng: &Arc<CudaEngine>,
    data: &[T],
) -> Result<CudaSlice<T>> {
    if data.is_empty() {
        return alloc_zeros(eng, 0);
    }
    let what = "a copy to the device";
    let bytes = std::mem::size_of_val(data);
    ensure(eng, what, bytes)?;
    // SAFETY: filled by the copy below before anything reads it.
    let mut buf =
        unsafe { eng.stream().alloc::<T>(data.len()) }.map_err(alloc_error(eng, what, bytes))?;
    eng.stream()
        .memcpy_htod(data, &mut buf)
        .map_err(Error::driver("copying to the device"))?;
    Ok(buf)
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
    copy_range(eng, buf, 0..buf.len())
}

/// A new buffer holding items `range` of `buf` (at least one item).
pub fn copy_range<T: DeviceRepr>(
    eng: &Arc<CudaEngine>,
    buf: &CudaSlice<T>,
    range: std::ops::Range<usize>,
) -> Result<CudaSlice<T>> {
    let n = range.len();
    let mut out = alloc_for::<T>(eng, "a copy on the device", n)?;
    if n > 0 {
        eng.stream()
            .memcpy_dtod(&buf.slice(range), &mut out.slice_mut(0..n))
            .map_err(Error::driver("copying on the device"))?;
    }
    Ok(out)
}

/// Copies the first `n` items of `src` to `dst[at..at + n]`.
pub fn write_at<T: DeviceRepr>(
    eng: &Arc<CudaEngine>,
    src: &CudaSlice<T>,
    n: usize,
    dst: &mut CudaSlice<T>,
    at: usize,
) -> Result<()> {
    if n == 0 {
        return Ok(());
    }
    eng.stream()
        .memcpy_dtod(&src.slice(0..n), &mut dst.slice_mut(at..at + n))
        .map_err(Error::driver("copying on the device"))
}

/// Below this many bytes an operation is not measured against the free
/// memory (no driver query) unless a limit is set.
const PLAN_MIN: usize = 16 << 20;

/// How an element-wise operation runs: all elements at once, or in chunks
/// of this many elements.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Plan {
    Whole,
    Chunks(usize),
}

/// Sizes an element-wise operation `op` over `len` elements whose result
/// takes `out` bytes per element and whose run takes `tmp` more (its
/// temporaries); a chunked run also copies `inp` bytes of operands per
/// element. Whole when everything fits in the free memory (with a margin);
/// else chunks such that the result plus one chunk's operands, result
/// and temporaries fit; else an [`Error::DeviceMemory`] with the sizes.
pub fn plan(
    eng: &CudaEngine,
    op: &str,
    len: usize,
    out: usize,
    tmp: usize,
    inp: usize,
) -> Result<Plan> {
    let whole = len.saturating_mul(out.saturating_add(tmp));
    if eng.mem_limit().is_none() && whole < PLAN_MIN {
        return Ok(Plan::Whole);
    }
    let free = usable(eng.free_bytes());
    if whole as u64 <= free {
        return Ok(Plan::Whole);
    }
    let keep = len.saturating_mul(out) as u64;
    let per = (inp + out + tmp).max(1) as u64;
    if keep.saturating_add(per) > free {
        return Err(Error::DeviceMemory {
            op: op_name(op),
            requested: whole as u64,
            free: eng.free_bytes(),
        });
    }
    Ok(Plan::Chunks(
        (((free - keep) / per) as usize).clamp(1, len.max(1)),
    ))
}

/// How many of `want` items of `per` bytes each (one allocation) fit in
/// the free memory with a margin: `want` when they do, fewer (at least one)
/// when not, an [`Error::DeviceMemory`] when not even one does.
pub fn fit(eng: &CudaEngine, what: &str, want: usize, per: usize) -> Result<usize> {
    let total = want.saturating_mul(per);
    if eng.mem_limit().is_none() && total < PLAN_MIN {
        return Ok(want);
    }
    let free = usable(eng.free_bytes());
    let n = (free / per.max(1) as u64).min(want as u64) as usize;
    if n == 0 && want > 0 {
        return Err(out_of_memory(eng, what, per as u64));
    }
    Ok(n)
}

/// The part of `free` an operation plans with: 15/16 of it less 4 MiB, for
/// the small buffers (indices, counters) it allocates besides.
fn usable(free: u64) -> u64 {
    (free - free / 16).saturating_sub(4 << 20)
}
