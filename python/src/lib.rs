//! `mparray._mparray`: the native layer of the Python module `mparray`.
//!
//! A thin layer over the Rust library: one Python class per array type
//! (`Int`, `Float`, `Complex`) holding the library's array, an `Engine`
//! class, and functions. Every method that computes releases the GIL
//! (`Python::detach`) while the library works; every library error becomes a
//! Python exception (see [`to_py`]). Argument handling (gmpy2 values,
//! rounding-mode names, default precisions, NumPy views) lives in the pure
//! Python package `mparray` above this module.

use std::ffi::{c_int, c_void};

use mparray::complex::{CFunc, CRound};
use mparray::float::func::{Const, Func, Func2};
use mparray::linalg::{CGemm, CGemv, Gemm, Gemv, Matrix, Op};
use mparray::{ComplexArray, Engine as REngine, Error, FloatArray, Fused, IntArray, Radix, Round};
use pyo3::buffer::PyBuffer;
use pyo3::exceptions::{
    PyBufferError, PyMemoryError, PyOSError, PyRuntimeError, PyValueError, PyZeroDivisionError,
};
use pyo3::ffi;
use pyo3::prelude::*;
use pyo3::types::{PyByteArray, PyBytes};

// ---- errors -----------------------------------------------------------------

/// A library error as a Python exception: a bad element (parse, width) is a
/// `ValueError` and a zero divisor a `ZeroDivisionError`, both with an
/// `index` attribute naming the element; device memory exhaustion a
/// `MemoryError`; CUDA unavailable or failing a `RuntimeError`; any other bad
/// argument a `ValueError`.
fn to_py(e: Error) -> PyErr {
    let msg = e.to_string();
    let (err, index) = match &e {
        Error::Parse { index, .. } | Error::TooWide { index, .. } => {
            (PyValueError::new_err(msg), Some(*index))
        }
        Error::DivisionByZero { index } => (PyZeroDivisionError::new_err(msg), Some(*index)),
        Error::Driver { source, .. } if source.0 == cudarc_oom() => {
            (PyMemoryError::new_err(msg), None)
        }
        Error::DeviceMemory { .. } | Error::HostMemory { .. } => {
            (PyMemoryError::new_err(msg), None)
        }
        // The sizes the library refuses before allocating.
        Error::Invalid(m) if m.contains("elements of") && m.contains("do not fit") => {
            (PyMemoryError::new_err(msg), None)
        }
        Error::CudaUnavailable(_) | Error::Driver { .. } | Error::Compile { .. } => {
            (PyRuntimeError::new_err(msg), None)
        }
        Error::Io { .. } => (PyOSError::new_err(msg), None),
        // Other per-element errors say "element N: ...".
        Error::Invalid(m) => (PyValueError::new_err(msg.clone()), element_of(m)),
        _ => (PyValueError::new_err(msg), None),
    };
    if let Some(i) = index {
        Python::attach(|py| {
            // Best effort: the message names the element in any case.
            let _ = err.value(py).setattr("index", i);
        });
    }
    err
}

/// N of a message that starts "element N:".
fn element_of(m: &str) -> Option<usize> {
    m.strip_prefix("element ")?.split(':').next()?.parse().ok()
}

/// MemoryError unless `bytes` could be reserved on the host now (a probe
/// before the library allocates arrays of a size the caller chose: Rust
/// aborts the process when an allocation fails, Python should not).
fn room(len: usize, bytes_per_element: usize) -> R<()> {
    let bytes = len.checked_mul(bytes_per_element).ok_or_else(|| {
        PyMemoryError::new_err(format!(
            "{len} elements of {bytes_per_element} bytes overflow"
        ))
    })?;
    let mut v: Vec<u8> = Vec::new();
    v.try_reserve_exact(bytes)
        .map_err(|_| PyMemoryError::new_err(format!("cannot allocate {bytes} bytes on the host")))
}

/// CUDA's out-of-memory code, as the driver reports it.
fn cudarc_oom() -> mparray_cuda::CUresult {
    mparray_cuda::CUresult::CUDA_ERROR_OUT_OF_MEMORY
}

mod mparray_cuda {
    pub use cudarc::driver::sys::CUresult;
}

type R<T> = PyResult<T>;

/// Maps a library result into a Python one.
fn ok<T>(r: mparray::Result<T>) -> R<T> {
    r.map_err(to_py)
}

/// A rounding mode from MPFR's letter (N, Z, U, D, A; the Python layer maps
/// gmpy2's constants and names to these).
fn rnd(s: &str) -> R<Round> {
    ok(Round::from_name(s))
}

/// A zeroed vector of `n` items, or `MemoryError` when the host has no room.
fn alloc<T: Default + Clone>(n: usize) -> R<Vec<T>> {
    let mut v = Vec::new();
    v.try_reserve_exact(n)
        .map_err(|_| PyMemoryError::new_err(format!("cannot allocate {n} items on the host")))?;
    v.resize(n, T::default());
    Ok(v)
}

/// The bytes of a slice of plain numbers (for `bytearray` results).
fn bytes_of<T: Copy>(v: &[T]) -> &[u8] {
    // SAFETY: T is a plain number type (u64, i64, f64, i8): any bytes of it
    // are valid u8s, and the length covers exactly the slice.
    unsafe { std::slice::from_raw_parts(v.as_ptr() as *const u8, std::mem::size_of_val(v)) }
}

fn bytearray<'py, T: Copy>(py: Python<'py>, v: &[T]) -> Bound<'py, PyByteArray> {
    PyByteArray::new(py, bytes_of(v))
}

// ---- engines ----------------------------------------------------------------

/// An engine: the CPU, or one CUDA device.
#[pyclass(frozen, module = "mparray._mparray", name = "Engine")]
#[derive(Clone)]
struct Engine {
    e: REngine,
}

#[pymethods]
impl Engine {
    /// `cpu` or `cuda`.
    #[getter]
    fn name(&self) -> &'static str {
        self.e.name()
    }

    /// A one-line description (device name, or the CPU's thread count).
    fn describe(&self) -> String {
        self.e.describe()
    }

    /// Waits for the work queued on the engine.
    fn synchronize(&self, py: Python<'_>) -> R<()> {
        let e = self.e.clone();
        ok(py.detach(move || e.synchronize()))
    }

    fn __repr__(&self) -> String {
        format!("mparray.Engine({:?}: {})", self.e.name(), self.e.describe())
    }

    fn __eq__(&self, other: &Bound<'_, PyAny>) -> bool {
        match other.cast::<Engine>() {
            Ok(o) => self.e.same_as(&o.get().e),
            Err(_) => false,
        }
    }

    fn __hash__(&self) -> u64 {
        self.e.is_cuda() as u64
    }
}

/// The engine named `cpu`, `cuda` or `auto` (CUDA when usable, else the CPU),
/// found as the command line's `--engine` finds it; `cuda` on a machine
/// without a usable GPU raises RuntimeError saying why.
#[pyfunction]
fn engine(py: Python<'_>, name: &str) -> R<Engine> {
    let name = name.to_string();
    let e = ok(py.detach(move || REngine::from_name(&name)))?;
    Ok(Engine { e })
}

/// Whether CUDA is usable: `(True, description)` or `(False, why not)`.
#[pyfunction]
fn cuda_status(py: Python<'_>) -> (bool, String) {
    py.detach(|| match mparray::engine::cuda_status() {
        Ok(_) => match REngine::cuda() {
            Ok(e) => (true, e.describe()),
            Err(e) => (false, e.to_string()),
        },
        Err(e) => (false, e.to_string()),
    })
}

// ---- integers ---------------------------------------------------------------

/// `len` unsigned integers of `bits` bits on one engine (the library's
/// `IntArray`). On the CPU it exports its limbs through the buffer protocol
/// as a read-only `(len, bits/64)` array of uint64 (no copy).
#[pyclass(frozen, module = "mparray._mparray", name = "Int")]
struct Int {
    a: IntArray,
    shape: [isize; 2],
    strides: [isize; 2],
}

impl Int {
    fn new(a: IntArray) -> Int {
        let l = a.limbs_per_element() as isize;
        Int {
            shape: [a.len() as isize, l],
            strides: [8 * l, 8],
            a,
        }
    }
}

fn int_from(py: Python<'_>, r: mparray::Result<IntArray>) -> R<Py<Int>> {
    Py::new(py, Int::new(ok(r)?))
}

/// Element-wise comparison of two host limb arrays: -1, 0, 1 per element.
fn cmp_limbs(a: &[u64], b: &[u64], l: usize) -> Vec<i8> {
    a.chunks(l)
        .zip(b.chunks(l))
        .map(|(x, y)| match x.iter().rev().cmp(y.iter().rev()) {
            std::cmp::Ordering::Less => -1,
            std::cmp::Ordering::Equal => 0,
            std::cmp::Ordering::Greater => 1,
        })
        .collect()
}

#[pymethods]
impl Int {
    /// From a buffer of uint64 limbs (any shape, `len * bits/64` items,
    /// element after element, least significant limb first), copied, on
    /// `engine`.
    #[staticmethod]
    fn from_limbs(
        py: Python<'_>,
        bits: u64,
        buf: &Bound<'_, PyAny>,
        engine: &Engine,
    ) -> R<Py<Int>> {
        let b = PyBuffer::<u64>::get(buf)?;
        let mut v = alloc::<u64>(b.item_count())?;
        b.copy_to_slice(py, &mut v)?;
        let e = engine.e.clone();
        int_from(
            py,
            py.detach(move || IntArray::from_limbs(bits, v)?.into_engine(&e)),
        )
    }

    /// From little-endian bytes (`len * bits/8` of them), on `engine`.
    #[staticmethod]
    fn from_bytes(py: Python<'_>, bits: u64, data: &[u8], engine: &Engine) -> R<Py<Int>> {
        if !data.len().is_multiple_of(8) {
            return Err(PyValueError::new_err(
                "byte string is not a whole number of limbs",
            ));
        }
        let mut v = alloc::<u64>(data.len() / 8)?;
        for (x, c) in v.iter_mut().zip(data.chunks_exact(8)) {
            *x = u64::from_le_bytes(c.try_into().expect("8 bytes"));
        }
        let e = engine.e.clone();
        int_from(
            py,
            py.detach(move || IntArray::from_limbs(bits, v)?.into_engine(&e)),
        )
    }

    /// From decimal or `0x`-hex strings, on `engine` (a bad string raises
    /// ValueError naming the element).
    #[staticmethod]
    fn from_strs(py: Python<'_>, bits: u64, items: Vec<String>, engine: &Engine) -> R<Py<Int>> {
        let e = engine.e.clone();
        int_from(
            py,
            py.detach(move || IntArray::from_strs(bits, &items)?.into_engine(&e)),
        )
    }

    /// `len` zeros on `engine`.
    #[staticmethod]
    fn zeros(py: Python<'_>, engine: &Engine, len: usize, bits: u64) -> R<Py<Int>> {
        room(len, (bits / 8) as usize)?;
        let e = engine.e.clone();
        int_from(py, py.detach(move || IntArray::zeros(&e, len, bits)))
    }

    /// Uniformly random elements drawn on `engine` (the same bits on every
    /// engine for one seed).
    #[staticmethod]
    fn random(py: Python<'_>, engine: &Engine, len: usize, bits: u64, seed: u64) -> R<Py<Int>> {
        room(len, (bits / 8) as usize)?;
        let e = engine.e.clone();
        int_from(py, py.detach(move || IntArray::random(&e, len, bits, seed)))
    }

    fn __len__(&self) -> usize {
        self.a.len()
    }

    #[getter]
    fn bits(&self) -> u64 {
        self.a.bits()
    }

    #[getter]
    fn engine(&self) -> Engine {
        Engine { e: self.a.engine() }
    }

    /// A copy on `engine` (a copy too when already there).
    fn to_engine(&self, py: Python<'_>, engine: &Engine) -> R<Py<Int>> {
        let e = engine.e.clone();
        int_from(py, py.detach(|| self.a.to_engine(&e)))
    }

    /// The limbs as little-endian bytes (read back from a device).
    fn to_bytes<'py>(&self, py: Python<'py>) -> R<Bound<'py, PyBytes>> {
        let v = ok(py.detach(|| self.a.to_limbs()))?;
        Ok(PyBytes::new(py, bytes_of(&v)))
    }

    /// The elements as decimal strings, or `0x`-hex ones.
    fn to_strings(&self, py: Python<'_>, hex: bool) -> R<Vec<String>> {
        let radix = if hex { Radix::Hex } else { Radix::Dec };
        ok(py.detach(|| self.a.to_strings(radix)))
    }

    /// `self + b` modulo 2^W.
    fn add(&self, py: Python<'_>, b: &Int) -> R<Py<Int>> {
        int_from(py, py.detach(|| self.a.add(&b.a)))
    }

    /// `self - b` modulo 2^W.
    fn sub(&self, py: Python<'_>, b: &Int) -> R<Py<Int>> {
        int_from(py, py.detach(|| self.a.sub(&b.a)))
    }

    /// `(self + b mod 2^W, carries)`: the carries as a bytearray of 0/1.
    fn overflowing_add<'py>(
        &self,
        py: Python<'py>,
        b: &Int,
    ) -> R<(Py<Int>, Bound<'py, PyByteArray>)> {
        let (r, c) = ok(py.detach(|| self.a.overflowing_add(&b.a)))?;
        let c: Vec<u8> = c.into_iter().map(u8::from).collect();
        Ok((Py::new(py, Int::new(r))?, PyByteArray::new(py, &c)))
    }

    /// `(self - b mod 2^W, borrows)`.
    fn overflowing_sub<'py>(
        &self,
        py: Python<'py>,
        b: &Int,
    ) -> R<(Py<Int>, Bound<'py, PyByteArray>)> {
        let (r, c) = ok(py.detach(|| self.a.overflowing_sub(&b.a)))?;
        let c: Vec<u8> = c.into_iter().map(u8::from).collect();
        Ok((Py::new(py, Int::new(r))?, PyByteArray::new(py, &c)))
    }

    /// The low W bits of `self * b`.
    fn mul(&self, py: Python<'_>, b: &Int) -> R<Py<Int>> {
        int_from(py, py.detach(|| self.a.mul(&b.a)))
    }

    /// The full 2W-bit product.
    fn mul_wide(&self, py: Python<'_>, b: &Int) -> R<Py<Int>> {
        int_from(py, py.detach(|| self.a.mul_wide(&b.a)))
    }

    /// `(floor(self / b), self mod b)`; a zero divisor raises
    /// ZeroDivisionError naming the first such element.
    fn divrem(&self, py: Python<'_>, b: &Int) -> R<(Py<Int>, Py<Int>)> {
        let (q, r) = ok(py.detach(|| self.a.divrem(&b.a)))?;
        Ok((Py::new(py, Int::new(q))?, Py::new(py, Int::new(r))?))
    }

    /// `(a*a+b)*(b*b+b)+a*b` modulo 2^W in one pass (the benchmark's Poly).
    fn poly(&self, py: Python<'_>, b: &Int) -> R<Py<Int>> {
        int_from(py, py.detach(|| self.a.fused(&b.a, Fused::Poly)))
    }

    /// Element-wise comparison as a bytearray of int8 (-1, 0, 1); the
    /// widths may differ (compared as numbers).
    fn cmp<'py>(&self, py: Python<'py>, b: &Int) -> R<Bound<'py, PyByteArray>> {
        if self.a.len() != b.a.len() {
            return Err(PyValueError::new_err(format!(
                "shape mismatch: operands have {} and {} elements",
                self.a.len(),
                b.a.len()
            )));
        }
        let v = ok(py.detach(|| -> mparray::Result<Vec<i8>> {
            let (x, y) = (self.a.to_limbs()?, b.a.to_limbs()?);
            let (lx, ly) = (self.a.limbs_per_element(), b.a.limbs_per_element());
            let l = lx.max(ly);
            let widen = |v: Vec<u64>, k: usize| -> Vec<u64> {
                if k == l {
                    return v;
                }
                let mut w = vec![0u64; v.len() / k * l];
                for (d, s) in w.chunks_mut(l).zip(v.chunks(k)) {
                    d[..k].copy_from_slice(s);
                }
                w
            };
            Ok(cmp_limbs(&widen(x, lx), &widen(y, ly), l))
        }))?;
        Ok(bytearray(py, &v))
    }

    /// The elements at width `bits` (zero-extended, or an error naming the
    /// first element that does not fit), on the same engine.
    fn resize(&self, py: Python<'_>, bits: u64) -> R<Py<Int>> {
        int_from(
            py,
            py.detach(|| -> mparray::Result<IntArray> {
                let l = mparray::int::limbs_for_bits(bits)?;
                let k = self.a.limbs_per_element();
                let src = self.a.to_limbs()?;
                let mut out = vec![0u64; self.a.len() * l];
                for (i, (d, s)) in out.chunks_mut(l).zip(src.chunks(k)).enumerate() {
                    let n = s.iter().rposition(|&x| x != 0).map_or(0, |p| p + 1);
                    if n > l {
                        let needed = 64 * (n as u64 - 1) + (64 - s[n - 1].leading_zeros() as u64);
                        return Err(Error::TooWide {
                            index: i,
                            needed,
                            width: bits,
                        });
                    }
                    d[..n].copy_from_slice(&s[..n]);
                }
                IntArray::from_limbs(bits, out)?.into_engine(&self.a.engine())
            }),
        )
    }

    /// Exports the host limbs, read-only, as a `(len, bits/64)` uint64
    /// array (no copy); a device array raises BufferError (copy it to the
    /// host first).
    unsafe fn __getbuffer__(
        slf: Bound<'_, Self>,
        view: *mut ffi::Py_buffer,
        flags: c_int,
    ) -> R<()> {
        if view.is_null() {
            return Err(PyBufferError::new_err("view is null"));
        }
        if flags & ffi::PyBUF_WRITABLE == ffi::PyBUF_WRITABLE {
            return Err(PyBufferError::new_err(
                "an mparray IntArray is immutable: its limbs are exported read-only",
            ));
        }
        let me = slf.get();
        let Some(data) = me.a.host_limbs() else {
            return Err(PyBufferError::new_err(format!(
                "the array is on {}: copy it to the host first (to_engine(cpu()))",
                me.a.engine().describe()
            )));
        };
        // SAFETY: `view` is a valid Py_buffer to fill (checked non-null);
        // the data, shape and strides live inside the frozen object, which
        // `view.obj` keeps alive and which never changes them.
        unsafe {
            (*view).obj = slf.clone().into_any().into_ptr();
            (*view).buf = data.as_ptr() as *mut c_void;
            (*view).len = std::mem::size_of_val(data) as isize;
            (*view).readonly = 1;
            (*view).itemsize = 8;
            (*view).format = if flags & ffi::PyBUF_FORMAT == ffi::PyBUF_FORMAT {
                c"Q".as_ptr() as *mut _
            } else {
                std::ptr::null_mut()
            };
            (*view).ndim = 2;
            (*view).shape = if flags & ffi::PyBUF_ND == ffi::PyBUF_ND {
                me.shape.as_ptr() as *mut isize
            } else {
                std::ptr::null_mut()
            };
            (*view).strides = if flags & ffi::PyBUF_STRIDES == ffi::PyBUF_STRIDES {
                me.strides.as_ptr() as *mut isize
            } else {
                std::ptr::null_mut()
            };
            (*view).suboffsets = std::ptr::null_mut();
            (*view).internal = std::ptr::null_mut();
        }
        Ok(())
    }

    unsafe fn __releasebuffer__(&self, _view: *mut ffi::Py_buffer) {}
}

/// `(milliseconds, product)` of the library's `a.mul(b)` timed inside Rust
/// (the engine's own clock), for measuring the Python call's overhead.
#[pyfunction]
fn timed_int_mul(py: Python<'_>, a: &Int, b: &Int) -> R<(f64, Py<Int>)> {
    let e = a.a.engine();
    let (ms, r) = ok(py.detach(|| e.time(|| a.a.mul(&b.a))))?;
    Ok((ms, Py::new(py, Int::new(r))?))
}

// ---- floats -----------------------------------------------------------------

/// `len` floats of one precision with MPFR's semantics on one engine (the
/// library's `FloatArray`).
#[pyclass(frozen, module = "mparray._mparray", name = "Float")]
struct Float {
    a: FloatArray,
}

/// Host bytes per float element of precision `prec` (limbs, exponent,
/// tag).
fn float_bytes(prec: u64) -> usize {
    (prec.div_ceil(64) as usize)
        .saturating_mul(8)
        .saturating_add(9)
}

type FT<'py> = (Py<Float>, Bound<'py, PyByteArray>);

/// A result and its ternary values as a bytearray of int8.
fn with_t<'py>(py: Python<'py>, r: mparray::Result<(FloatArray, Vec<i8>)>) -> R<FT<'py>> {
    let (a, t) = ok(r)?;
    Ok((Py::new(py, Float { a })?, bytearray(py, &t)))
}

fn float_from(py: Python<'_>, r: mparray::Result<FloatArray>) -> R<Py<Float>> {
    Py::new(py, Float { a: ok(r)? })
}

#[pymethods]
impl Float {
    /// Parses decimal or hex-float strings (also `inf`, `-inf`, `nan`,
    /// `-0`), each correctly rounded to `prec` bits in mode `rnd`, on
    /// `engine`, with the ternary values.
    #[staticmethod]
    fn from_strs<'py>(
        py: Python<'py>,
        prec: u64,
        items: Vec<String>,
        rnd: &str,
        engine: &Engine,
    ) -> R<FT<'py>> {
        let (r, e) = (self::rnd(rnd)?, engine.e.clone());
        with_t(
            py,
            py.detach(move || {
                let (a, t) = FloatArray::from_strs_ternary(prec, &items, r)?;
                Ok((a.into_engine(&e)?, t.into_vec()?))
            }),
        )
    }

    /// From a buffer of float64, each rounded to `prec` bits in mode
    /// `rnd`, on `engine`, with the ternary values.
    #[staticmethod]
    fn from_f64s<'py>(
        py: Python<'py>,
        prec: u64,
        buf: &Bound<'_, PyAny>,
        rnd: &str,
        engine: &Engine,
    ) -> R<FT<'py>> {
        let b = PyBuffer::<f64>::get(buf)?;
        let mut v = alloc::<f64>(b.item_count())?;
        b.copy_to_slice(py, &mut v)?;
        let (r, e) = (self::rnd(rnd)?, engine.e.clone());
        with_t(
            py,
            py.detach(move || {
                let (a, t) = FloatArray::from_f64s(prec, &v, r)?;
                Ok((a.into_engine(&e)?, t.into_vec()?))
            }),
        )
    }

    /// From a buffer of int64, rounded to `prec` bits in mode `rnd`.
    #[staticmethod]
    fn from_i64s<'py>(
        py: Python<'py>,
        prec: u64,
        buf: &Bound<'_, PyAny>,
        rnd: &str,
        engine: &Engine,
    ) -> R<FT<'py>> {
        let b = PyBuffer::<i64>::get(buf)?;
        let mut v = alloc::<i64>(b.item_count())?;
        b.copy_to_slice(py, &mut v)?;
        let (r, e) = (self::rnd(rnd)?, engine.e.clone());
        with_t(
            py,
            py.detach(move || {
                let (a, t) = FloatArray::from_i64s(prec, &v, r)?;
                Ok((a.into_engine(&e)?, t.into_vec()?))
            }),
        )
    }

    /// From the unsigned integers of `a`, rounded, on `a`'s engine.
    #[staticmethod]
    fn from_int<'py>(py: Python<'py>, prec: u64, a: &Int, rnd: &str) -> R<FT<'py>> {
        let r = self::rnd(rnd)?;
        with_t(
            py,
            py.detach(|| {
                let (x, t) = FloatArray::from_int_array(prec, &a.a, r)?;
                Ok((x, t.into_vec()?))
            }),
        )
    }

    /// From raw parts (tags: bytes, class in bits 0-1 and sign in bit 2;
    /// exponents: int64 buffer; mantissa limbs: uint64 buffer), checked,
    /// on `engine`.
    #[staticmethod]
    fn from_raw(
        py: Python<'_>,
        prec: u64,
        tags: Vec<u8>,
        exps: &Bound<'_, PyAny>,
        limbs: &Bound<'_, PyAny>,
        engine: &Engine,
    ) -> R<Py<Float>> {
        let (be, bl) = (PyBuffer::<i64>::get(exps)?, PyBuffer::<u64>::get(limbs)?);
        let mut ve = alloc::<i64>(be.item_count())?;
        be.copy_to_slice(py, &mut ve)?;
        let mut vl = alloc::<u64>(bl.item_count())?;
        bl.copy_to_slice(py, &mut vl)?;
        let e = engine.e.clone();
        float_from(
            py,
            py.detach(move || FloatArray::from_raw(prec, tags, ve, vl)?.into_engine(&e)),
        )
    }

    /// `len` positive zeros on `engine`.
    #[staticmethod]
    fn zeros(py: Python<'_>, engine: &Engine, len: usize, prec: u64) -> R<Py<Float>> {
        room(len, float_bytes(prec))?;
        let e = engine.e.clone();
        float_from(py, py.detach(move || FloatArray::zeros(&e, len, prec)))
    }

    /// Uniform in [0, 1) (mpfr_urandomb), drawn on `engine`.
    #[staticmethod]
    fn random_unit(
        py: Python<'_>,
        engine: &Engine,
        len: usize,
        prec: u64,
        seed: u64,
    ) -> R<Py<Float>> {
        room(len, float_bytes(prec))?;
        let e = engine.e.clone();
        float_from(
            py,
            py.detach(move || FloatArray::random_unit(&e, len, prec, seed)),
        )
    }

    /// Random signs, exponents in `emin..=emax`, random mantissas.
    #[staticmethod]
    #[allow(clippy::too_many_arguments)]
    fn random_exp(
        py: Python<'_>,
        engine: &Engine,
        len: usize,
        prec: u64,
        seed: u64,
        emin: i64,
        emax: i64,
    ) -> R<Py<Float>> {
        room(len, float_bytes(prec))?;
        let e = engine.e.clone();
        float_from(
            py,
            py.detach(move || FloatArray::random_exp(&e, len, prec, seed, emin, emax)),
        )
    }

    /// Uniform in [lo, hi), rounded once in mode `rnd`.
    #[staticmethod]
    #[allow(clippy::too_many_arguments)]
    fn random_uniform(
        py: Python<'_>,
        engine: &Engine,
        len: usize,
        prec: u64,
        seed: u64,
        lo: f64,
        hi: f64,
        rnd: &str,
    ) -> R<Py<Float>> {
        room(len, float_bytes(prec))?;
        let (r, e) = (self::rnd(rnd)?, engine.e.clone());
        float_from(
            py,
            py.detach(move || FloatArray::random_uniform(&e, len, prec, seed, lo, hi, r)),
        )
    }

    fn __len__(&self) -> usize {
        self.a.len()
    }

    #[getter]
    fn prec(&self) -> u64 {
        self.a.prec()
    }

    #[getter]
    fn engine(&self) -> Engine {
        Engine { e: self.a.engine() }
    }

    /// A copy on `engine`.
    fn to_engine(&self, py: Python<'_>, engine: &Engine) -> R<Py<Float>> {
        let e = engine.e.clone();
        float_from(py, py.detach(|| self.a.to_engine(&e)))
    }

    /// The elements as exact hex floats (`%Ra`).
    fn to_hex_strings(&self, py: Python<'_>) -> R<Vec<String>> {
        ok(py.detach(|| self.a.to_hex_strings()))
    }

    /// Decimal strings with `digits` significant digits (0: enough to read
    /// back), rounded in mode `rnd`.
    fn to_dec_strings(&self, py: Python<'_>, digits: usize, rnd: &str) -> R<Vec<String>> {
        let r = self::rnd(rnd)?;
        ok(py.detach(|| self.a.to_dec_strings(digits, r)))
    }

    /// Every element rounded to a float64 in mode `rnd`, as bytes.
    fn to_f64s<'py>(&self, py: Python<'py>, rnd: &str) -> R<Bound<'py, PyByteArray>> {
        let r = self::rnd(rnd)?;
        let v = ok(py.detach(|| self.a.to_f64s(r)))?;
        Ok(bytearray(py, &v))
    }

    /// Every element rounded to an unsigned integer of `bits` bits in mode
    /// `rnd` (an error names the first negative, non-finite or too wide
    /// element), on the array's engine.
    fn to_int(&self, py: Python<'_>, bits: u64, rnd: &str) -> R<Py<Int>> {
        let r = self::rnd(rnd)?;
        int_from(py, py.detach(|| self.a.to_int_array(bits, r)))
    }

    /// `(tags, exponents, limbs)` as bytes (read back from a device).
    fn to_raw<'py>(
        &self,
        py: Python<'py>,
    ) -> R<(
        Bound<'py, PyBytes>,
        Bound<'py, PyBytes>,
        Bound<'py, PyBytes>,
    )> {
        let h = ok(py.detach(|| self.a.to_host()))?;
        let (t, e, l) = (ok(h.tags())?, ok(h.exps())?, ok(h.limbs())?);
        Ok((
            PyBytes::new(py, t),
            PyBytes::new(py, bytes_of(e)),
            PyBytes::new(py, bytes_of(l)),
        ))
    }

    /// The array's one element repeated `n` times, on its engine (scalar
    /// operands of the Python operators).
    fn repeat(&self, py: Python<'_>, n: usize) -> R<Py<Float>> {
        room(n, float_bytes(self.a.prec()))?;
        if self.a.len() != 1 {
            return Err(PyValueError::new_err("repeat needs a one-element array"));
        }
        float_from(
            py,
            py.detach(|| -> mparray::Result<FloatArray> {
                let h = self.a.to_host()?;
                let l = h.limbs_per_element();
                let (t, e, m) = (h.tags()?[0], h.exps()?[0], h.limbs()?);
                let mut limbs = Vec::new();
                limbs
                    .try_reserve_exact(n * l)
                    .map_err(|_| Error::Invalid(format!("{n} elements do not fit in memory")))?;
                for _ in 0..n {
                    limbs.extend_from_slice(m);
                }
                FloatArray::from_raw(self.a.prec(), vec![t; n], vec![e; n], limbs)?
                    .into_engine(&self.a.engine())
            }),
        )
    }

    /// The arithmetic `name` (add, sub, mul, div, sqrt, fma, fms, neg, abs,
    /// set_prec, min, max, mul_2si, div_2si) of `self` and `more`, rounded
    /// to `prec` bits in mode `rnd`, with the ternary values.
    #[pyo3(signature = (name, more, prec, rnd, k=0))]
    fn op<'py>(
        &self,
        py: Python<'py>,
        name: &str,
        more: Vec<PyRef<'py, Float>>,
        prec: u64,
        rnd: &str,
        k: i64,
    ) -> R<FT<'py>> {
        let r = self::rnd(rnd)?;
        let m: Vec<&FloatArray> = more.iter().map(|f| &f.a).collect();
        let want = match name {
            "sqrt" | "neg" | "abs" | "set_prec" | "mul_2si" | "div_2si" => 0,
            "fma" | "fms" => 2,
            "add" | "sub" | "mul" | "div" | "min" | "max" => 1,
            _ => return Err(PyValueError::new_err(format!("unknown operation {name:?}"))),
        };
        if m.len() != want {
            return Err(PyValueError::new_err(format!(
                "{name} takes {} operands, got {}",
                want + 1,
                m.len() + 1
            )));
        }
        let a = &self.a;
        with_t(
            py,
            py.detach(|| {
                let (x, t) = match name {
                    "add" => a.add_ternary(m[0], prec, r),
                    "sub" => a.sub_ternary(m[0], prec, r),
                    "mul" => a.mul_ternary(m[0], prec, r),
                    "div" => a.div_ternary(m[0], prec, r),
                    "min" => a.min_ternary(m[0], prec, r),
                    "max" => a.max_ternary(m[0], prec, r),
                    "fma" => a.fma_ternary(m[0], m[1], prec, r),
                    "fms" => a.fms_ternary(m[0], m[1], prec, r),
                    "sqrt" => a.sqrt_ternary(prec, r),
                    "neg" => a.neg_ternary(prec, r),
                    "abs" => a.abs_ternary(prec, r),
                    "set_prec" => a.set_prec_ternary(prec, r),
                    "mul_2si" => a.mul_2si_ternary(k, prec, r),
                    _ => a.div_2si_ternary(k, prec, r),
                }?;
                Ok((x, t.into_vec()?))
            }),
        )
    }

    /// The function `name` (exp, log, sin, ..., cbrt) correctly rounded to
    /// `prec` bits in mode `rnd`, with the ternary values.
    fn func<'py>(&self, py: Python<'py>, name: &str, prec: u64, rnd: &str) -> R<FT<'py>> {
        let f = Func::from_name(name)
            .ok_or_else(|| PyValueError::new_err(format!("unknown function {name:?}")))?;
        let r = self::rnd(rnd)?;
        with_t(
            py,
            py.detach(|| {
                let (x, t, _) = self.a.func_ternary(f, prec, r)?;
                Ok((x, t.into_vec()?))
            }),
        )
    }

    /// The two-argument function `name` (atan2, hypot, pow, agm) of `self`
    /// and `y`, correctly rounded, with the ternary values.
    fn func2<'py>(
        &self,
        py: Python<'py>,
        name: &str,
        y: &Float,
        prec: u64,
        rnd: &str,
    ) -> R<FT<'py>> {
        let f = Func2::from_name(name)
            .ok_or_else(|| PyValueError::new_err(format!("unknown function {name:?}")))?;
        let r = self::rnd(rnd)?;
        with_t(
            py,
            py.detach(|| {
                let (x, t, _) = self.a.func2_ternary(&y.a, f, prec, r)?;
                Ok((x, t.into_vec()?))
            }),
        )
    }

    /// `((sin, ternary), (cos, ternary))` (mpfr_sin_cos).
    fn sin_cos<'py>(&self, py: Python<'py>, prec: u64, rnd: &str) -> R<(FT<'py>, FT<'py>)> {
        let r = self::rnd(rnd)?;
        let ((s, ts), (c, tc), _) = ok(py.detach(|| self.a.sin_cos_ternary(prec, r)))?;
        let (ts, tc) = (ok(ts.into_vec())?, ok(tc.into_vec())?);
        Ok((with_t(py, Ok((s, ts)))?, with_t(py, Ok((c, tc)))?))
    }

    /// `self ^ n` for integer exponents given as decimal strings
    /// (mpfr_pow_z), with the ternary values.
    fn pow_z<'py>(&self, py: Python<'py>, n: Vec<String>, prec: u64, rnd: &str) -> R<FT<'py>> {
        let r = self::rnd(rnd)?;
        let mut ints = Vec::with_capacity(n.len());
        for (i, s) in n.iter().enumerate() {
            let v: malachite_nz::integer::Integer = s.parse().map_err(|_| {
                to_py(Error::Parse {
                    index: i,
                    text: s.clone(),
                    reason: "not a decimal integer".into(),
                })
            })?;
            ints.push(v);
        }
        with_t(
            py,
            py.detach(|| {
                let (x, t, _) = self.a.pow_z_ternary(&ints, prec, r)?;
                Ok((x, t.into_vec()?))
            }),
        )
    }

    /// Element-wise comparison as int8 bytes: -1, 0, 1, or 2 where either
    /// element is NaN (unordered); +0 and -0 compare equal.
    fn cmp<'py>(&self, py: Python<'py>, b: &Float) -> R<Bound<'py, PyByteArray>> {
        let v = ok(py.detach(|| self.a.cmp(&b.a)))?;
        let v: Vec<i8> = v
            .into_iter()
            .map(|o| match o {
                None => 2,
                Some(std::cmp::Ordering::Less) => -1,
                Some(std::cmp::Ordering::Equal) => 0,
                Some(std::cmp::Ordering::Greater) => 1,
            })
            .collect();
        Ok(bytearray(py, &v))
    }

    /// The exact dot product with `y`, correctly rounded (one element).
    fn dot<'py>(&self, py: Python<'py>, y: &Float, prec: u64, rnd: &str) -> R<FT<'py>> {
        let r = self::rnd(rnd)?;
        with_t(
            py,
            py.detach(|| {
                let (x, t) = self.a.dot(&y.a, prec, r)?;
                Ok((x, t.into_vec()?))
            }),
        )
    }

    /// The square root of the exact sum of squares (one element).
    fn nrm2<'py>(&self, py: Python<'py>, prec: u64, rnd: &str) -> R<FT<'py>> {
        let r = self::rnd(rnd)?;
        with_t(
            py,
            py.detach(|| {
                let (x, t) = self.a.nrm2(prec, r)?;
                Ok((x, t.into_vec()?))
            }),
        )
    }

    /// The exact sum of the elements' absolute values (one element).
    fn asum<'py>(&self, py: Python<'py>, prec: u64, rnd: &str) -> R<FT<'py>> {
        let r = self::rnd(rnd)?;
        with_t(
            py,
            py.detach(|| {
                let (x, t) = self.a.asum(prec, r)?;
                Ok((x, t.into_vec()?))
            }),
        )
    }

    /// `a*x + self` per element, rounded once (`a` one element).
    fn axpy<'py>(&self, py: Python<'py>, a: &Float, x: &Float, prec: u64, rnd: &str) -> R<FT<'py>> {
        let r = self::rnd(rnd)?;
        with_t(
            py,
            py.detach(|| {
                let (z, t) = self.a.axpy(&a.a, &x.a, prec, r)?;
                Ok((z, t.into_vec()?))
            }),
        )
    }
}

/// The constant `name` (pi, ln2, e, ln10) correctly rounded to `prec` bits
/// in mode `rnd`, as a one-element array on `engine`, with its ternary
/// value.
#[pyfunction]
fn constant(
    py: Python<'_>,
    name: &str,
    prec: u64,
    rnd: &str,
    engine: &Engine,
) -> R<(Py<Float>, i8)> {
    let c = match name {
        "pi" => Const::Pi,
        "ln2" => Const::Ln2,
        "e" => Const::E,
        "ln10" => Const::Ln10,
        _ => {
            return Err(PyValueError::new_err(format!(
                "unknown constant {name:?}: expected pi, ln2, e or ln10"
            )));
        }
    };
    let (r, e) = (self::rnd(rnd)?, engine.e.clone());
    let (a, t) = ok(py.detach(move || {
        let (a, t) = FloatArray::constant(c, prec, r)?;
        Ok((a.into_engine(&e)?, t))
    }))?;
    Ok((Py::new(py, Float { a })?, t))
}

/// `alpha*op(A)*op(B) [+ beta*C]` on row-major matrices given as arrays with
/// their shapes, each element the exact value rounded once; returns the
/// `m x n` result's elements and ternary values.
#[pyfunction]
#[pyo3(signature = (a, ar, ac, b, br, bc, alpha, beta, c, trans_a, trans_b, prec, rnd))]
#[allow(clippy::too_many_arguments)]
fn gemm<'py>(
    py: Python<'py>,
    a: &Float,
    ar: usize,
    ac: usize,
    b: &Float,
    br: usize,
    bc: usize,
    alpha: &Float,
    beta: Option<PyRef<'py, Float>>,
    c: Option<PyRef<'py, Float>>,
    trans_a: bool,
    trans_b: bool,
    prec: u64,
    rnd: &str,
) -> R<FT<'py>> {
    let r = self::rnd(rnd)?;
    let op = |t: bool| if t { Op::Trans } else { Op::None };
    let o = Gemm {
        op_a: op(trans_a),
        op_b: op(trans_b),
        prec,
        rnd: r,
    };
    let (m, n) = (if trans_a { ac } else { ar }, if trans_b { br } else { bc });
    let beta = beta.as_deref().map(|x| &x.a);
    let c = c.as_deref().map(|x| &x.a);
    with_t(
        py,
        py.detach(|| {
            let ma = Matrix::from_array(a.a.try_clone()?, ar, ac)?;
            let mb = Matrix::from_array(b.a.try_clone()?, br, bc)?;
            let mc = match c {
                Some(c) => Some(Matrix::from_array(c.try_clone()?, m, n)?),
                None => None,
            };
            let bc = match (beta, &mc) {
                (Some(beta), Some(mc)) => Some((beta, mc)),
                _ => None,
            };
            let (z, t) = ma.gemm(&mb, &alpha.a, bc, &o)?;
            Ok((z.into_data(), t.into_vec()?))
        }),
    )
}

/// `alpha*op(A)*x [+ beta*y]` on a row-major matrix, each element the exact
/// value rounded once.
#[pyfunction]
#[pyo3(signature = (a, ar, ac, x, alpha, beta, y, trans, prec, rnd))]
#[allow(clippy::too_many_arguments)]
fn gemv<'py>(
    py: Python<'py>,
    a: &Float,
    ar: usize,
    ac: usize,
    x: &Float,
    alpha: &Float,
    beta: Option<PyRef<'py, Float>>,
    y: Option<PyRef<'py, Float>>,
    trans: bool,
    prec: u64,
    rnd: &str,
) -> R<FT<'py>> {
    let r = self::rnd(rnd)?;
    let o = Gemv {
        op: if trans { Op::Trans } else { Op::None },
        prec,
        rnd: r,
    };
    let beta = beta.as_deref().map(|v| &v.a);
    let y = y.as_deref().map(|v| &v.a);
    let by = match (beta, y) {
        (Some(b), Some(y)) => Some((b, y)),
        _ => None,
    };
    with_t(
        py,
        py.detach(|| {
            let ma = Matrix::from_array(a.a.try_clone()?, ar, ac)?;
            let (z, t) = ma.gemv(&alpha.a, &x.a, by, &o)?;
            Ok((z, t.into_vec()?))
        }),
    )
}

// ---- complex ----------------------------------------------------------------

/// `len` complex floats with MPC's semantics on one engine (the library's
/// `ComplexArray`).
#[pyclass(frozen, module = "mparray._mparray", name = "Complex")]
struct Complex {
    a: ComplexArray,
}

type CT<'py> = (
    Py<Complex>,
    Bound<'py, PyByteArray>,
    Bound<'py, PyByteArray>,
);

fn crnd(re: &str, im: &str) -> R<CRound> {
    Ok(CRound::new(rnd(re)?, rnd(im)?))
}

/// A result and its ternary pairs (real parts' and imaginary parts' int8
/// bytes).
fn with_ct<'py>(
    py: Python<'py>,
    r: mparray::Result<(ComplexArray, Vec<i8>, Vec<i8>)>,
) -> R<CT<'py>> {
    let (a, tr, ti) = ok(r)?;
    Ok((
        Py::new(py, Complex { a })?,
        bytearray(py, &tr),
        bytearray(py, &ti),
    ))
}

#[pymethods]
impl Complex {
    /// From real and imaginary parts (same length and engine).
    #[new]
    fn new(py: Python<'_>, re: &Float, im: &Float) -> R<Complex> {
        let a = ok(py.detach(|| ComplexArray::new(re.a.try_clone()?, im.a.try_clone()?)))?;
        Ok(Complex { a })
    }

    fn __len__(&self) -> usize {
        self.a.len()
    }

    #[getter]
    fn prec(&self) -> (u64, u64) {
        (self.a.prec_re(), self.a.prec_im())
    }

    #[getter]
    fn engine(&self) -> Engine {
        Engine { e: self.a.engine() }
    }

    /// The real parts (a copy).
    fn re(&self, py: Python<'_>) -> R<Py<Float>> {
        float_from(py, py.detach(|| self.a.re()))
    }

    /// The imaginary parts (a copy).
    fn im(&self, py: Python<'_>) -> R<Py<Float>> {
        float_from(py, py.detach(|| self.a.im()))
    }

    /// A copy on `engine`.
    fn to_engine(&self, py: Python<'_>, engine: &Engine) -> R<Py<Complex>> {
        let e = engine.e.clone();
        let a = ok(py.detach(|| self.a.to_engine(&e)))?;
        Py::new(py, Complex { a })
    }

    /// The operation `name` (add, sub, mul, div, pow, sqr, neg, conj,
    /// set_prec, mul_2si, div_2si, or a function: sqrt, exp, log, sin, cos,
    /// tan, sinh, cosh, tanh, atan, asin, acos), each part rounded to its
    /// precision in its mode, with the ternary pairs.
    #[pyo3(signature = (name, more, pr, pi, rre, rim, k=0))]
    #[allow(clippy::too_many_arguments)]
    fn op<'py>(
        &self,
        py: Python<'py>,
        name: &str,
        more: Vec<PyRef<'py, Complex>>,
        pr: u64,
        pi: u64,
        rre: &str,
        rim: &str,
        k: i64,
    ) -> R<CT<'py>> {
        let r = crnd(rre, rim)?;
        let m: Vec<&ComplexArray> = more.iter().map(|f| &f.a).collect();
        let func = CFunc::from_name(name);
        let want = match name {
            "add" | "sub" | "mul" | "div" | "pow" => 1,
            "sqr" | "neg" | "conj" | "set_prec" | "mul_2si" | "div_2si" => 0,
            _ if func.is_some() => 0,
            _ => return Err(PyValueError::new_err(format!("unknown operation {name:?}"))),
        };
        if m.len() != want {
            return Err(PyValueError::new_err(format!(
                "{name} takes {} operands, got {}",
                want + 1,
                m.len() + 1
            )));
        }
        let a = &self.a;
        with_ct(
            py,
            py.detach(|| {
                let (x, t) = match (name, func) {
                    ("add", _) => a.add_ternary(m[0], pr, pi, r),
                    ("sub", _) => a.sub_ternary(m[0], pr, pi, r),
                    ("mul", _) => a.mul_ternary(m[0], pr, pi, r),
                    ("div", _) => a.div_ternary(m[0], pr, pi, r),
                    ("pow", _) => a.pow_ternary(m[0], pr, pi, r),
                    ("sqr", _) => a.sqr_ternary(pr, pi, r),
                    ("neg", _) => a.neg_ternary(pr, pi, r),
                    ("conj", _) => a.conj_ternary(pr, pi, r),
                    ("set_prec", _) => a.set_prec_ternary(pr, pi, r),
                    ("mul_2si", _) => a.mul_2si_ternary(k, pr, pi, r),
                    ("div_2si", _) => a.div_2si_ternary(k, pr, pi, r),
                    (_, Some(f)) => a.func_ternary(f, pr, pi, r),
                    _ => unreachable!("checked above"),
                }?;
                Ok((x, t.re.into_vec()?, t.im.into_vec()?))
            }),
        )
    }

    /// `self * b` for real `b` (mpc_mul_fr), with the ternary pairs.
    #[allow(clippy::too_many_arguments)]
    fn mul_fr<'py>(
        &self,
        py: Python<'py>,
        b: &Float,
        pr: u64,
        pi: u64,
        rre: &str,
        rim: &str,
    ) -> R<CT<'py>> {
        let r = crnd(rre, rim)?;
        with_ct(
            py,
            py.detach(|| {
                let (x, t) = self.a.mul_fr_ternary(&b.a, pr, pi, r)?;
                Ok((x, t.re.into_vec()?, t.im.into_vec()?))
            }),
        )
    }

    /// The exact dot product with `y` (`conj`: the first operand
    /// conjugated, as BLAS's dotc), each part correctly rounded, one
    /// element, with the ternary pair.
    #[allow(clippy::too_many_arguments)]
    fn dot<'py>(
        &self,
        py: Python<'py>,
        y: &Complex,
        conj: bool,
        pr: u64,
        pi: u64,
        rre: &str,
        rim: &str,
    ) -> R<CT<'py>> {
        let r = crnd(rre, rim)?;
        with_ct(
            py,
            py.detach(|| {
                let (x, t) = if conj {
                    self.a.dotc(&y.a, pr, pi, r)
                } else {
                    self.a.dotu(&y.a, pr, pi, r)
                }?;
                Ok((x, t.re.into_vec()?, t.im.into_vec()?))
            }),
        )
    }

    /// The real result `name` (abs, norm, arg) at `p` bits in mode `rnd`,
    /// with the ternary values.
    fn real<'py>(&self, py: Python<'py>, name: &str, p: u64, rnd: &str) -> R<FT<'py>> {
        let r = self::rnd(rnd)?;
        let a = &self.a;
        let f = match name {
            "abs" => ComplexArray::abs_ternary,
            "norm" => ComplexArray::norm_ternary,
            "arg" => ComplexArray::arg_ternary,
            _ => return Err(PyValueError::new_err(format!("unknown operation {name:?}"))),
        };
        with_t(
            py,
            py.detach(|| {
                let (x, t) = f(a, p, r)?;
                Ok((x, t.into_vec()?))
            }),
        )
    }
}

/// BLAS's `trans`: N, T, or C (conjugate transpose).
fn op_of(s: &str) -> R<Op> {
    match s {
        "N" => Ok(Op::None),
        "T" => Ok(Op::Trans),
        "C" => Ok(Op::ConjTrans),
        _ => Err(PyValueError::new_err(format!(
            "unknown transpose {s:?}: expected N, T or C"
        ))),
    }
}

/// As [`gemm`] for complex matrices (`op_a`, `op_b`: N, T or C), each
/// part of each element the exact value rounded once.
#[pyfunction]
#[pyo3(signature = (a, ar, ac, b, br, bc, alpha, beta, c, op_a, op_b, pr, pi, rre, rim))]
#[allow(clippy::too_many_arguments)]
fn cgemm<'py>(
    py: Python<'py>,
    a: &Complex,
    ar: usize,
    ac: usize,
    b: &Complex,
    br: usize,
    bc: usize,
    alpha: &Complex,
    beta: Option<PyRef<'py, Complex>>,
    c: Option<PyRef<'py, Complex>>,
    op_a: &str,
    op_b: &str,
    pr: u64,
    pi: u64,
    rre: &str,
    rim: &str,
) -> R<CT<'py>> {
    let o = CGemm {
        op_a: op_of(op_a)?,
        op_b: op_of(op_b)?,
        prec_re: pr,
        prec_im: pi,
        rnd: crnd(rre, rim)?,
    };
    let m = if o.op_a == Op::None { ar } else { ac };
    let n = if o.op_b == Op::None { bc } else { br };
    let beta = beta.as_deref().map(|x| &x.a);
    let c = c.as_deref().map(|x| &x.a);
    with_ct(
        py,
        py.detach(|| {
            let ma = Matrix::from_array(a.a.try_clone()?, ar, ac)?;
            let mb = Matrix::from_array(b.a.try_clone()?, br, bc)?;
            let mc = match c {
                Some(c) => Some(Matrix::from_array(c.try_clone()?, m, n)?),
                None => None,
            };
            let bc = match (beta, &mc) {
                (Some(beta), Some(mc)) => Some((beta, mc)),
                _ => None,
            };
            let (z, t) = ma.gemm(&mb, &alpha.a, bc, &o)?;
            Ok((z.into_data(), t.re.into_vec()?, t.im.into_vec()?))
        }),
    )
}

/// As [`gemv`] for a complex matrix (`op`: N, T or C).
#[pyfunction]
#[pyo3(signature = (a, ar, ac, x, alpha, beta, y, op, pr, pi, rre, rim))]
#[allow(clippy::too_many_arguments)]
fn cgemv<'py>(
    py: Python<'py>,
    a: &Complex,
    ar: usize,
    ac: usize,
    x: &Complex,
    alpha: &Complex,
    beta: Option<PyRef<'py, Complex>>,
    y: Option<PyRef<'py, Complex>>,
    op: &str,
    pr: u64,
    pi: u64,
    rre: &str,
    rim: &str,
) -> R<CT<'py>> {
    let o = CGemv {
        op: op_of(op)?,
        prec_re: pr,
        prec_im: pi,
        rnd: crnd(rre, rim)?,
    };
    let beta = beta.as_deref().map(|v| &v.a);
    let y = y.as_deref().map(|v| &v.a);
    let by = match (beta, y) {
        (Some(b), Some(y)) => Some((b, y)),
        _ => None,
    };
    with_ct(
        py,
        py.detach(|| {
            let ma = Matrix::from_array(a.a.try_clone()?, ar, ac)?;
            let (z, t) = ma.gemv(&alpha.a, &x.a, by, &o)?;
            Ok((z, t.re.into_vec()?, t.im.into_vec()?))
        }),
    )
}

// ---- the module -------------------------------------------------------------

#[pymodule]
fn _mparray(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<Engine>()?;
    m.add_class::<Int>()?;
    m.add_class::<Float>()?;
    m.add_class::<Complex>()?;
    m.add_function(wrap_pyfunction!(engine, m)?)?;
    m.add_function(wrap_pyfunction!(cuda_status, m)?)?;
    m.add_function(wrap_pyfunction!(timed_int_mul, m)?)?;
    m.add_function(wrap_pyfunction!(constant, m)?)?;
    m.add_function(wrap_pyfunction!(gemm, m)?)?;
    m.add_function(wrap_pyfunction!(gemv, m)?)?;
    m.add_function(wrap_pyfunction!(cgemm, m)?)?;
    m.add_function(wrap_pyfunction!(cgemv, m)?)?;
    m.add("MAX_CUDA_PREC", mparray::float::cuda::MAX_CUDA_PREC)?;
    Ok(())
}
