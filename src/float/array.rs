//! [`FloatArray`]: float arrays on an engine, and [`TernaryArray`], the
//! ternary values of an operation, kept where the operation ran.
//!
//! A `FloatArray` holds its elements on the CPU ([`CpuFloats`]) or on one
//! CUDA device ([`CudaFloats`]); every operation runs on the engine of its
//! operands and returns its result there. Operands of one operation must
//! live on the same engine (else [`Error::EngineMismatch`]); data moves only
//! through [`FloatArray::to_engine`] and [`FloatArray::to_host`].
//!
//! On CUDA, what the device does not serve is computed by the CPU engine
//! and written back to the device, with the same bits: precisions above
//! [`MAX_CUDA_PREC`] (operands or result), `pow_z`/`pow_si` exponent
//! conversion, the conversions to and from integers, `f64`, `i64` and
//! text. The function kernels also hand the elements they cannot decide to
//! the CPU engine (see `notes/func.md`).

use std::cmp::Ordering;
use std::sync::Arc;

use cudarc::driver::CudaSlice;
use malachite_float::Float;
use malachite_nz::integer::Integer;

use super::cuda::{CudaFloats, DevOp, MAX_CUDA_PREC};
use super::func::{Const, Func, Func2, FuncStats};
use super::{CpuFloats, Elem, FloatOp, Round};
use crate::engine::cuda::memory;
use crate::engine::{CudaEngine, Engine};
use crate::error::{Error, Result};
use crate::int::IntArray;

/// Where the elements are.
pub(crate) enum Store {
    Cpu(CpuFloats),
    Cuda(CudaFloats),
}

/// `len` floats of one precision with MPFR's semantics, on one engine (see
/// the [module docs](crate::float)).
pub struct FloatArray {
    store: Store,
}

/// MPFR's ternary value per element (-1, 0, +1: the sign of the rounded
/// result minus the exact one), on the engine of the operation that made
/// it; [`TernaryArray::to_vec`] reads it.
pub struct TernaryArray {
    store: TStore,
}

enum TStore {
    Cpu(Vec<i8>),
    Cuda {
        buf: CudaSlice<i8>,
        len: usize,
        eng: Arc<CudaEngine>,
    },
}

/// The operands of one operation, all on one engine.
enum Operands<'a> {
    Cpu(Vec<&'a CpuFloats>),
    Cuda(Arc<CudaEngine>, Vec<&'a CudaFloats>),
}

impl std::fmt::Debug for FloatArray {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "FloatArray {{ len: {}, prec: {}, engine: {}",
            self.len(),
            self.prec(),
            self.engine().name()
        )?;
        // The first elements of a host array, for failed assertions.
        if let Some(a) = self.cpu() {
            let shown: Vec<String> = (0..a.len().min(8))
                .map(|i| super::text::format_hex(&a.get(i)))
                .collect();
            let more = if a.len() > 8 { ", ..." } else { "" };
            write!(f, ", values: [{}{more}]", shown.join(", "))?;
        }
        f.write_str(" }")
    }
}

impl std::fmt::Debug for TernaryArray {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match &self.store {
            TStore::Cpu(v) => write!(f, "TernaryArray {v:?}"),
            TStore::Cuda { len, .. } => write!(f, "TernaryArray {{ len: {len}, engine: cuda }}"),
        }
    }
}

/// Two arrays are equal when they hold the same precision and the same
/// elements, bit for bit, whatever their engines (device arrays are read
/// back to compare; a failed read compares unequal).
impl PartialEq for FloatArray {
    fn eq(&self, other: &FloatArray) -> bool {
        match (self.host(), other.host()) {
            (Ok(a), Ok(b)) => *a == *b,
            _ => false,
        }
    }
}

/// Equal when they hold the same values, whatever their engines (device
/// values are read back; a failed read compares unequal).
impl PartialEq for TernaryArray {
    fn eq(&self, other: &TernaryArray) -> bool {
        match (self.to_vec(), other.to_vec()) {
            (Ok(a), Ok(b)) => a == b,
            _ => false,
        }
    }
}

impl From<CpuFloats> for FloatArray {
    fn from(a: CpuFloats) -> FloatArray {
        FloatArray {
            store: Store::Cpu(a),
        }
    }
}

impl From<CudaFloats> for FloatArray {
    fn from(a: CudaFloats) -> FloatArray {
        FloatArray {
            store: Store::Cuda(a),
        }
    }
}

/// `(result, ternary values)` of one operation.
pub type WithTernary = (FloatArray, TernaryArray);

impl TernaryArray {
    pub(crate) fn cpu(v: Vec<i8>) -> TernaryArray {
        TernaryArray {
            store: TStore::Cpu(v),
        }
    }

    pub(crate) fn cuda(eng: &Arc<CudaEngine>, buf: CudaSlice<i8>, len: usize) -> TernaryArray {
        TernaryArray {
            store: TStore::Cuda {
                buf,
                len,
                eng: eng.clone(),
            },
        }
    }

    /// Ternary values given on the host, placed on `engine`.
    pub fn from_vec(engine: &Engine, v: Vec<i8>) -> Result<TernaryArray> {
        Ok(match engine {
            Engine::Cpu => TernaryArray::cpu(v),
            Engine::Cuda(eng) => {
                let len = v.len();
                TernaryArray::cuda(eng, memory::upload(eng, &v)?, len)
            }
        })
    }

    /// Number of elements.
    pub fn len(&self) -> usize {
        match &self.store {
            TStore::Cpu(v) => v.len(),
            TStore::Cuda { len, .. } => *len,
        }
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The engine the values live on.
    pub fn engine(&self) -> Engine {
        match &self.store {
            TStore::Cpu(_) => Engine::Cpu,
            TStore::Cuda { eng, .. } => Engine::Cuda(eng.clone()),
        }
    }

    /// The values on the host (copied from the device if needed).
    pub fn to_vec(&self) -> Result<Vec<i8>> {
        match &self.store {
            TStore::Cpu(v) => Ok(v.clone()),
            TStore::Cuda { buf, len, eng } => {
                let mut v = memory::download(eng, buf)?;
                v.truncate(*len);
                Ok(v)
            }
        }
    }

    /// The values, consuming the array.
    pub fn into_vec(self) -> Result<Vec<i8>> {
        match self.store {
            TStore::Cpu(v) => Ok(v),
            TStore::Cuda { .. } => self.to_vec(),
        }
    }

    /// The device buffer (None on the host).
    pub(crate) fn device_mut(&mut self) -> Option<&mut CudaSlice<i8>> {
        match &mut self.store {
            TStore::Cpu(_) => None,
            TStore::Cuda { buf, .. } => Some(buf),
        }
    }

    /// The host values (None on a device).
    pub(crate) fn host_mut(&mut self) -> Option<&mut Vec<i8>> {
        match &mut self.store {
            TStore::Cpu(v) => Some(v),
            TStore::Cuda { .. } => None,
        }
    }

    /// `len` zeros on `engine`.
    pub fn zeros(engine: &Engine, len: usize) -> Result<TernaryArray> {
        Ok(match engine {
            Engine::Cpu => TernaryArray::cpu(crate::engine::host::zeros("ternary values", len)?),
            Engine::Cuda(eng) => TernaryArray::cuda(eng, memory::alloc_zeros(eng, len)?, len),
        })
    }
}

/// Whether a CUDA operation at these precisions runs on the device.
fn on_device(precs: impl IntoIterator<Item = u64>) -> bool {
    precs.into_iter().all(|p| p <= MAX_CUDA_PREC)
}

/// The CPU engine's form of a device operation.
fn cpu_op(
    op: DevOp,
    x: &CpuFloats,
    more: &[&CpuFloats],
    prec: u64,
    rnd: Round,
) -> Result<(CpuFloats, Vec<i8>)> {
    let b = || more[0];
    match op {
        DevOp::Add => x.add_ternary(b(), prec, rnd),
        DevOp::Sub => x.sub_ternary(b(), prec, rnd),
        DevOp::Mul => x.mul_ternary(b(), prec, rnd),
        DevOp::Div => x.div_ternary(b(), prec, rnd),
        DevOp::Sqrt => x.sqrt_ternary(prec, rnd),
        DevOp::Fma => x.fma_ternary(b(), more[1], prec, rnd),
        DevOp::Fms => x.fms_ternary(b(), more[1], prec, rnd),
        DevOp::Neg => x.neg_ternary(prec, rnd),
        DevOp::Abs => x.abs_ternary(prec, rnd),
        DevOp::SetPrec => x.set_prec_ternary(prec, rnd),
        DevOp::Mul2si(k) => x.mul_2si_ternary(k, prec, rnd),
        DevOp::Min => x.min_ternary(b(), prec, rnd),
        DevOp::Max => x.max_ternary(b(), prec, rnd),
    }
}

/// Methods `name_ternary(&self, args, prec, rnd)` running `DevOp` on either
/// engine, and `name` without the ternary values.
macro_rules! engine_ops {
    ($($tname:ident, $name:ident, ($($arg:ident: $ty:ty),*), $op:expr, [$($more:ident),*], $doc:literal;)*) => {$(
        #[doc = concat!($doc, ", rounded to `prec` bits in mode `rnd`, and the ternary values.")]
        pub fn $tname(&self, $($arg: $ty,)* prec: u64, rnd: Round) -> Result<WithTernary> {
            self.op_ternary($op, &[$($more),*], prec, rnd)
        }
        #[doc = concat!($doc, ", rounded to `prec` bits in mode `rnd`.")]
        pub fn $name(&self, $($arg: $ty,)* prec: u64, rnd: Round) -> Result<FloatArray> {
            Ok(self.$tname($($arg,)* prec, rnd)?.0)
        }
    )*};
}

/// Methods `name(&self, prec, rnd)` for one-argument functions.
macro_rules! funcs {
    ($($name:ident => $f:expr;)*) => {$(
        #[doc = concat!("`", stringify!($name), "(self)`, correctly rounded to `prec` bits in mode `rnd`.")]
        pub fn $name(&self, prec: u64, rnd: Round) -> Result<FloatArray> {
            self.func(($f), prec, rnd)
        }
    )*};
}

impl FloatArray {
    // ---- construction -------------------------------------------------

    /// `len` positive zeros of precision `prec` on `engine`.
    pub fn zeros(engine: &Engine, len: usize, prec: u64) -> Result<FloatArray> {
        Ok(match engine {
            Engine::Cpu => CpuFloats::zeros(len, prec)?.into(),
            Engine::Cuda(eng) => CudaFloats::zeros(eng, len, prec)?.into(),
        })
    }

    /// An array on the CPU from its raw parts (checked: every normal
    /// element has its top bit set, zero bits below the precision and an
    /// exponent in range; special elements zero limbs and exponent 0).
    pub fn from_raw(
        prec: u64,
        tags: Vec<u8>,
        exps: Vec<i64>,
        limbs: Vec<u64>,
    ) -> Result<FloatArray> {
        Ok(CpuFloats::from_raw(prec, tags, exps, limbs)?.into())
    }

    /// Parses decimal or hex-float strings on the CPU, each correctly
    /// rounded to `prec` bits in mode `rnd`, with the ternary values; a
    /// malformed string is an [`Error::Parse`] naming the element.
    pub fn from_strs_ternary<S: AsRef<str> + Sync>(
        prec: u64,
        items: &[S],
        rnd: Round,
    ) -> Result<WithTernary> {
        let (a, t) = CpuFloats::from_strs_ternary(prec, items, rnd)?;
        Ok((a.into(), TernaryArray::cpu(t)))
    }

    /// Parses strings on the CPU, rounding to nearest.
    pub fn from_strs<S: AsRef<str> + Sync>(prec: u64, items: &[S]) -> Result<FloatArray> {
        Ok(CpuFloats::from_strs(prec, items)?.into())
    }

    /// `f64`s on the CPU, rounded to `prec` bits in mode `rnd`.
    pub fn from_f64s(prec: u64, xs: &[f64], rnd: Round) -> Result<WithTernary> {
        let (a, t) = CpuFloats::from_f64s(prec, xs, rnd)?;
        Ok((a.into(), TernaryArray::cpu(t)))
    }

    /// `i64`s on the CPU, rounded to `prec` bits in mode `rnd`.
    pub fn from_i64s(prec: u64, xs: &[i64], rnd: Round) -> Result<WithTernary> {
        let (a, t) = CpuFloats::from_i64s(prec, xs, rnd)?;
        Ok((a.into(), TernaryArray::cpu(t)))
    }

    /// malachite `Float`s on the CPU, rounded to `prec` bits in mode `rnd`.
    pub fn from_floats(prec: u64, xs: &[Float], rnd: Round) -> Result<WithTernary> {
        let (a, t) = CpuFloats::from_floats(prec, xs, rnd)?;
        Ok((a.into(), TernaryArray::cpu(t)))
    }

    /// The unsigned integers of `a`, rounded to `prec` bits in mode `rnd`,
    /// on `a`'s engine (converted by the CPU engine).
    pub fn from_int_array(prec: u64, a: &IntArray, rnd: Round) -> Result<WithTernary> {
        let engine = a.engine();
        let host;
        let a = match engine {
            Engine::Cpu => a,
            Engine::Cuda(_) => {
                host = a.to_host()?;
                &host
            }
        };
        let (r, t) = CpuFloats::from_int_array(prec, a, rnd)?;
        Ok((
            FloatArray::from(r).into_engine(&engine)?,
            TernaryArray::from_vec(&engine, t)?,
        ))
    }

    /// Uniform in [0, 1) with `prec` random bits (mpfr_urandomb), drawn on
    /// `engine`; element `i` depends only on `seed` and `i`, so every engine
    /// gives the same bits.
    pub fn random_unit(engine: &Engine, len: usize, prec: u64, seed: u64) -> Result<FloatArray> {
        match engine {
            Engine::Cuda(eng) if on_device([prec]) => {
                Ok(CudaFloats::random_unit(eng, len, prec, seed)?.into())
            }
            _ => FloatArray::from(CpuFloats::random_unit(len, prec, seed)?).into_engine(engine),
        }
    }

    /// Random signs, exponents uniform in `emin..=emax` and random
    /// normalized mantissas, drawn on `engine` (the same bits on every
    /// engine).
    pub fn random_exp(
        engine: &Engine,
        len: usize,
        prec: u64,
        seed: u64,
        emin: i64,
        emax: i64,
    ) -> Result<FloatArray> {
        match engine {
            Engine::Cuda(eng) if on_device([prec]) => {
                Ok(CudaFloats::random_exp(eng, len, prec, seed, emin, emax)?.into())
            }
            _ => FloatArray::from(CpuFloats::random_exp(len, prec, seed, emin, emax)?)
                .into_engine(engine),
        }
    }

    /// Uniform in [lo, hi): `lo + (hi - lo) * u` for `u` from
    /// [`FloatArray::random_unit`] at `prec + 64` bits, rounded once in mode
    /// `rnd`, drawn on `engine` (the same bits on every engine).
    #[allow(clippy::too_many_arguments)]
    pub fn random_uniform(
        engine: &Engine,
        len: usize,
        prec: u64,
        seed: u64,
        lo: f64,
        hi: f64,
        rnd: Round,
    ) -> Result<FloatArray> {
        match engine {
            Engine::Cuda(eng) if on_device([prec]) => {
                Ok(CudaFloats::random_uniform(eng, len, prec, seed, lo, hi, rnd)?.into())
            }
            _ => FloatArray::from(CpuFloats::random_uniform(len, prec, seed, lo, hi, rnd)?)
                .into_engine(engine),
        }
    }

    /// A one-element array on the CPU holding a constant (pi, ln 2, e)
    /// correctly rounded, and its ternary value.
    pub fn constant(c: Const, prec: u64, rnd: Round) -> Result<(FloatArray, i8)> {
        let (a, t) = CpuFloats::constant(c, prec, rnd)?;
        Ok((a.into(), t))
    }

    // ---- shape and engine ---------------------------------------------

    /// Number of elements.
    pub fn len(&self) -> usize {
        match &self.store {
            Store::Cpu(a) => a.len(),
            Store::Cuda(a) => a.len(),
        }
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Precision in bits.
    pub fn prec(&self) -> u64 {
        match &self.store {
            Store::Cpu(a) => a.prec(),
            Store::Cuda(a) => a.prec(),
        }
    }

    /// Mantissa limbs per element.
    pub fn limbs_per_element(&self) -> usize {
        super::limbs_for_prec(self.prec())
    }

    /// The engine the array lives on.
    pub fn engine(&self) -> Engine {
        match &self.store {
            Store::Cpu(_) => Engine::Cpu,
            Store::Cuda(a) => Engine::Cuda(a.engine().clone()),
        }
    }

    /// A copy on `engine` (a plain copy when already there).
    pub fn to_engine(&self, engine: &Engine) -> Result<FloatArray> {
        Ok(match (engine, &self.store) {
            (Engine::Cpu, Store::Cpu(a)) => a.clone().into(),
            (Engine::Cpu, Store::Cuda(a)) => a.to_host()?.into(),
            (Engine::Cuda(eng), Store::Cpu(a)) => a.to_cuda(eng)?.into(),
            (Engine::Cuda(eng), Store::Cuda(a)) if Arc::ptr_eq(eng, a.engine()) => a.copy()?.into(),
            (Engine::Cuda(eng), Store::Cuda(a)) => a.to_host()?.to_cuda(eng)?.into(),
        })
    }

    crate::engine::engine_moves!(FloatArray);

    // ---- internal views -------------------------------------------------

    /// The host storage (None on a device).
    pub(crate) fn cpu(&self) -> Option<&CpuFloats> {
        match &self.store {
            Store::Cpu(a) => Some(a),
            Store::Cuda(_) => None,
        }
    }

    /// The storage, consuming the array.
    /// The device storage of a CUDA array.
    pub(crate) fn device(&self) -> Option<&CudaFloats> {
        match &self.store {
            Store::Cpu(_) => None,
            Store::Cuda(a) => Some(a),
        }
    }

    /// Element 0 repeated `n` times on `engine` (exact copies): on CUDA the
    /// one element is uploaded and repeated on the device (`float_fill`),
    /// not `n` copies made on the host and uploaded.
    pub(crate) fn repeat_first(&self, n: usize, engine: &crate::Engine) -> Result<FloatArray> {
        if self.is_empty() {
            return Err(Error::Shape("repeat_first: an empty array".into()));
        }
        if let (Some(d), crate::Engine::Cuda(e)) = (self.device(), engine)
            && Arc::ptr_eq(d.engine(), e)
        {
            return Ok(FloatArray::from(d.broadcast(n)?));
        }
        let h = self.host()?;
        let la = h.limbs_per_element();
        let copies = |k: usize| {
            CpuFloats::from_raw(
                h.prec(),
                vec![h.tags()[0]; k],
                vec![h.exps()[0]; k],
                h.limbs()[..la].repeat(k),
            )
        };
        if engine.is_cuda() {
            let one = FloatArray::from(copies(1)?).into_engine(engine)?;
            if let Some(d) = one.device() {
                return Ok(FloatArray::from(d.broadcast(n)?));
            }
        }
        FloatArray::from(copies(n)?).into_engine(engine)
    }

    pub(crate) fn into_store(self) -> Store {
        self.store
    }

    /// The elements on the host: borrowed there, read back from a device.
    pub(crate) fn host(&self) -> Result<std::borrow::Cow<'_, CpuFloats>> {
        Ok(match &self.store {
            Store::Cpu(a) => std::borrow::Cow::Borrowed(a),
            Store::Cuda(a) => std::borrow::Cow::Owned(a.to_host()?),
        })
    }

    /// `self` and `more` on one engine, or the error naming both engines.
    fn operands<'a>(&'a self, more: &[&'a FloatArray]) -> Result<Operands<'a>> {
        match &self.store {
            Store::Cpu(a) => {
                let mut v = vec![a];
                for m in more {
                    match &m.store {
                        Store::Cpu(b) => v.push(b),
                        Store::Cuda(_) => return Err(mismatch(self, m)),
                    }
                }
                Ok(Operands::Cpu(v))
            }
            Store::Cuda(a) => {
                let mut v = vec![a];
                for m in more {
                    match &m.store {
                        Store::Cuda(b) if Arc::ptr_eq(a.engine(), b.engine()) => v.push(b),
                        _ => return Err(mismatch(self, m)),
                    }
                }
                Ok(Operands::Cuda(a.engine().clone(), v))
            }
        }
    }

    // ---- reading --------------------------------------------------------

    /// Element `i` of a host array (an error on a device: read with
    /// [`FloatArray::to_host`] first, or use [`FloatArray::to_floats`]).
    pub fn get(&self, i: usize) -> Result<Elem<'_>> {
        let a = self.host_only("get")?;
        if i >= a.len() {
            return Err(Error::Invalid(format!(
                "element {i} of an array of {} elements",
                a.len()
            )));
        }
        Ok(a.get(i))
    }

    /// The tags of a host array (class in bits 0-1: 0 zero, 1 normal, 2
    /// inf, 3 NaN; bit 2 the sign).
    pub fn tags(&self) -> Result<&[u8]> {
        Ok(self.host_only("tags")?.tags())
    }

    /// The exponents of a host array (MPFR's convention: value `0.m * 2^exp`).
    pub fn exps(&self) -> Result<&[i64]> {
        Ok(self.host_only("exps")?.exps())
    }

    /// All mantissa limbs of a host array, element after element.
    pub fn limbs(&self) -> Result<&[u64]> {
        Ok(self.host_only("limbs")?.limbs())
    }

    fn host_only(&self, what: &str) -> Result<&CpuFloats> {
        self.cpu().ok_or_else(|| {
            Error::Invalid(format!(
                "FloatArray::{what} borrows host memory but the array is on {}; copy it \
                 with to_host() first",
                self.engine().describe()
            ))
        })
    }

    /// Element `i` as a malachite `Float` (read back from a device).
    pub fn to_float(&self, i: usize) -> Result<Float> {
        if i >= self.len() {
            return Err(Error::Invalid(format!(
                "element {i} of an array of {} elements",
                self.len()
            )));
        }
        Ok(self.host()?.to_float(i))
    }

    /// Every element as a malachite `Float`.
    pub fn to_floats(&self) -> Result<Vec<Float>> {
        Ok(self.host()?.to_floats())
    }

    /// Every element rounded to an `f64` in mode `rnd`.
    pub fn to_f64s(&self, rnd: Round) -> Result<Vec<f64>> {
        Ok(self.host()?.to_f64s(rnd))
    }

    /// Every element rounded to an integer in mode `rnd`, as an `i64`
    /// (None when it does not fit, or is NaN or infinite).
    pub fn to_i64s(&self, rnd: Round) -> Result<Vec<Option<i64>>> {
        Ok(self.host()?.to_i64s(rnd))
    }

    /// Every element rounded to an integer in mode `rnd`, as unsigned
    /// integers of `bits` bits on the array's engine (an error names the
    /// first element that is negative, not finite or too wide).
    pub fn to_int_array(&self, bits: u64, rnd: Round) -> Result<IntArray> {
        self.host()?
            .to_int_array(bits, rnd)?
            .to_engine(&self.engine())
    }

    /// Decimal strings with `digits` significant digits (0: enough to read
    /// back), rounded in mode `rnd`.
    pub fn to_dec_strings(&self, digits: usize, rnd: Round) -> Result<Vec<String>> {
        Ok(self.host()?.to_dec_strings(digits, rnd))
    }

    /// Exact hex-float strings (`%Ra`).
    pub fn to_hex_strings(&self) -> Result<Vec<String>> {
        Ok(self.host()?.to_hex_strings())
    }

    // ---- arithmetic -----------------------------------------------------

    /// `op` of `self` and `more` into a new array of precision `prec` on
    /// their engine, with the ternary values.
    fn op_ternary(
        &self,
        op: DevOp,
        more: &[&FloatArray],
        prec: u64,
        rnd: Round,
    ) -> Result<WithTernary> {
        if more.len() + 1 != op.arity() {
            return Err(Error::Invalid(format!(
                "{op:?} takes {} operands, got {}",
                op.arity(),
                more.len() + 1
            )));
        }
        super::check_prec(prec)?;
        match self.operands(more)? {
            Operands::Cpu(v) => {
                let (r, t) = cpu_op(op, v[0], &v[1..], prec, rnd)?;
                Ok((r.into(), TernaryArray::cpu(t)))
            }
            Operands::Cuda(eng, v) => {
                if on_device(v.iter().map(|a| a.prec()).chain([prec])) {
                    let (r, t) = v[0].op_ternary(op, &v[1..], prec, rnd)?;
                    let len = r.len();
                    return Ok((r.into(), TernaryArray::cuda(&eng, t, len)));
                }
                let host = v.iter().map(|a| a.to_host()).collect::<Result<Vec<_>>>()?;
                let refs: Vec<&CpuFloats> = host.iter().skip(1).collect();
                let (r, t) = cpu_op(op, &host[0], &refs, prec, rnd)?;
                let engine = Engine::Cuda(eng);
                Ok((
                    FloatArray::from(r).into_engine(&engine)?,
                    TernaryArray::from_vec(&engine, t)?,
                ))
            }
        }
    }

    engine_ops! {
        add_ternary, add, (b: &FloatArray), DevOp::Add, [b], "`self + b`";
        sub_ternary, sub, (b: &FloatArray), DevOp::Sub, [b], "`self - b`";
        mul_ternary, mul, (b: &FloatArray), DevOp::Mul, [b], "`self * b`";
        div_ternary, div, (b: &FloatArray), DevOp::Div, [b],
            "`self / b` (x/0 is +-Inf, 0/0 NaN, as MPFR)";
        sqrt_ternary, sqrt, (), DevOp::Sqrt, [], "`sqrt(self)`";
        fma_ternary, fma, (b: &FloatArray, c: &FloatArray), DevOp::Fma, [b, c],
            "`self * b + c` (one rounding)";
        fms_ternary, fms, (b: &FloatArray, c: &FloatArray), DevOp::Fms, [b, c],
            "`self * b - c` (one rounding)";
        neg_ternary, neg, (), DevOp::Neg, [], "`-self` (mpfr_neg)";
        abs_ternary, abs, (), DevOp::Abs, [], "`|self|` (mpfr_abs)";
        set_prec_ternary, set_prec, (), DevOp::SetPrec, [],
            "`self` at another precision (mpfr_set)";
        min_ternary, min, (b: &FloatArray), DevOp::Min, [b],
            "`min(self, b)` with MPFR's rules (a NaN loses, -0 < +0)";
        max_ternary, max, (b: &FloatArray), DevOp::Max, [b], "`max(self, b)` with MPFR's rules";
        mul_2si_ternary, mul_2si, (k: i64), DevOp::Mul2si(k), [], "`self * 2^k` (mpfr_mul_2si)";
        div_2si_ternary, div_2si, (k: i64), DevOp::Mul2si(k.checked_neg().unwrap_or(i64::MAX)), [],
            "`self / 2^k` (mpfr_div_2si)";
    }

    /// `op` of `self` and `more` (one operand for sqrt, two for fma/fms)
    /// into the existing array `out` on the same engine, whose precision is
    /// the destination precision (no allocation; its old contents are
    /// overwritten), with the ternary values into `ternary` when given. On
    /// CUDA at precisions above [`MAX_CUDA_PREC`] the CPU engine computes a
    /// new result, which replaces `out`'s contents.
    pub fn op_into(
        &self,
        op: FloatOp,
        more: &[&FloatArray],
        out: &mut FloatArray,
        rnd: Round,
        ternary: Option<&mut TernaryArray>,
    ) -> Result<()> {
        let engine = self.engine();
        if !engine.same_as(&out.engine()) {
            return Err(mismatch(self, out));
        }
        if let Some(t) = &ternary
            && !engine.same_as(&t.engine())
        {
            return Err(Error::EngineMismatch(
                engine.describe(),
                t.engine().describe(),
            ));
        }
        let prec = out.prec();
        let n = self.len();
        if out.len() != n || more.iter().any(|m| m.len() != n) {
            return Err(Error::Shape(format!(
                "op_into: operands of {} elements and an output of {}",
                more.iter()
                    .map(|m| m.len().to_string())
                    .fold(n.to_string(), |a, b| a + ", " + &b),
                out.len()
            )));
        }
        if let Some(t) = &ternary
            && t.len() != n
        {
            return Err(Error::Shape(format!(
                "op_into: {} ternary slots for {n} elements",
                t.len()
            )));
        }
        let dev = match self.operands(more)? {
            Operands::Cpu(v) => {
                let Store::Cpu(o) = &mut out.store else {
                    unreachable!("same engine")
                };
                let t = ternary.map(|t| t.host_mut().expect("same engine").as_mut_slice());
                return v[0].op_into(op, &v[1..], o, rnd, t);
            }
            Operands::Cuda(_, v) => v,
        };
        if !on_device(dev.iter().map(|a| a.prec()).chain([prec])) {
            let args: Vec<&FloatArray> = more.to_vec();
            let (r, t) = self.op_ternary(DevOp::from(op), &args, prec, rnd)?;
            *out = r;
            if let Some(tt) = ternary {
                *tt = t;
            }
            return Ok(());
        }
        let Store::Cuda(o) = &mut out.store else {
            unreachable!("same engine")
        };
        let t = ternary.map(|t| t.device_mut().expect("same engine"));
        dev[0].op_into(DevOp::from(op), &dev[1..], o, rnd, t)
    }

    /// Element-wise comparison: `None` where either is NaN (MPFR's
    /// `mpfr_cmp` then sets the erange flag); +0 and -0 compare equal.
    #[allow(clippy::should_implement_trait)]
    pub fn cmp(&self, other: &FloatArray) -> Result<Vec<Option<Ordering>>> {
        match self.operands(&[other])? {
            Operands::Cpu(v) => v[0].cmp(v[1]),
            Operands::Cuda(_, v) if on_device([v[0].prec(), v[1].prec()]) => v[0].cmp(v[1]),
            Operands::Cuda(_, v) => v[0].to_host()?.cmp(&v[1].to_host()?),
        }
    }

    // ---- functions --------------------------------------------------------

    /// `f(self)` correctly rounded to `prec` bits in mode `rnd` on the
    /// array's engine, the ternary values, and how many elements needed a
    /// Ziv retry (on CUDA: a retry on the device, or the CPU engine).
    pub fn func_ternary(
        &self,
        f: Func,
        prec: u64,
        rnd: Round,
    ) -> Result<(FloatArray, TernaryArray, FuncStats)> {
        self.func_ternary_forced(f, prec, rnd, 0)
    }

    /// `func_ternary` with the CUDA kernels' test-only `force` (see
    /// `float::func::cuda`); `force` is ignored on the CPU.
    #[doc(hidden)]
    pub fn func_ternary_forced(
        &self,
        f: Func,
        prec: u64,
        rnd: Round,
        force: u32,
    ) -> Result<(FloatArray, TernaryArray, FuncStats)> {
        match &self.store {
            Store::Cpu(a) => {
                let (r, t, s) = a.func_ternary(f, prec, rnd)?;
                Ok((r.into(), TernaryArray::cpu(t), s))
            }
            Store::Cuda(a) => {
                let (r, t, s) = a.func_ternary_forced(f, prec, rnd, force)?;
                let len = r.len();
                Ok((r.into(), TernaryArray::cuda(a.engine(), t, len), s))
            }
        }
    }

    /// `f(self)` correctly rounded to `prec` bits in mode `rnd`.
    pub fn func(&self, f: Func, prec: u64, rnd: Round) -> Result<FloatArray> {
        Ok(self.func_ternary(f, prec, rnd)?.0)
    }

    funcs! {
        exp => Func::Exp; exp2 => Func::Exp2; expm1 => Func::Expm1;
        log => Func::Log; log2 => Func::Log2; log10 => Func::Log10; log1p => Func::Log1p;
        sin => Func::Sin; cos => Func::Cos; tan => Func::Tan;
        asin => Func::Asin; acos => Func::Acos; atan => Func::Atan;
        sinh => Func::Sinh; cosh => Func::Cosh; tanh => Func::Tanh;
        asinh => Func::Asinh; acosh => Func::Acosh; atanh => Func::Atanh;
        cbrt => Func::Cbrt;
    }

    /// `f(self, y)` element-wise (`atan2(self, y)` has `self` as the
    /// ordinate, as mpfr_atan2), correctly rounded, with the ternary values
    /// and the retry statistics.
    pub fn func2_ternary(
        &self,
        y: &FloatArray,
        f: Func2,
        prec: u64,
        rnd: Round,
    ) -> Result<(FloatArray, TernaryArray, FuncStats)> {
        self.func2_ternary_forced(y, f, prec, rnd, 0)
    }

    /// `func2_ternary` with the CUDA kernels' test-only `force`.
    #[doc(hidden)]
    pub fn func2_ternary_forced(
        &self,
        y: &FloatArray,
        f: Func2,
        prec: u64,
        rnd: Round,
        force: u32,
    ) -> Result<(FloatArray, TernaryArray, FuncStats)> {
        match self.operands(&[y])? {
            Operands::Cpu(v) => {
                let (r, t, s) = v[0].func2_ternary(v[1], f, prec, rnd)?;
                Ok((r.into(), TernaryArray::cpu(t), s))
            }
            Operands::Cuda(eng, v) => {
                let (r, t, s) = v[0].func2_ternary_forced(v[1], f, prec, rnd, force)?;
                let len = r.len();
                Ok((r.into(), TernaryArray::cuda(&eng, t, len), s))
            }
        }
    }

    /// `f(self, y)` correctly rounded to `prec` bits in mode `rnd`.
    pub fn func2(&self, y: &FloatArray, f: Func2, prec: u64, rnd: Round) -> Result<FloatArray> {
        Ok(self.func2_ternary(y, f, prec, rnd)?.0)
    }

    /// `self ^ y` (mpfr_pow).
    pub fn pow(&self, y: &FloatArray, prec: u64, rnd: Round) -> Result<FloatArray> {
        self.func2(y, Func2::Pow, prec, rnd)
    }

    /// `atan2(self, x)` (`self` the ordinate).
    pub fn atan2(&self, x: &FloatArray, prec: u64, rnd: Round) -> Result<FloatArray> {
        self.func2(x, Func2::Atan2, prec, rnd)
    }

    /// `hypot(self, y)`.
    pub fn hypot(&self, y: &FloatArray, prec: u64, rnd: Round) -> Result<FloatArray> {
        self.func2(y, Func2::Hypot, prec, rnd)
    }

    /// `agm(self, y)`.
    pub fn agm(&self, y: &FloatArray, prec: u64, rnd: Round) -> Result<FloatArray> {
        self.func2(y, Func2::Agm, prec, rnd)
    }

    /// `(sin(self), cos(self))`, each correctly rounded in `rnd` with its
    /// ternary values (MPFR's mpfr_sin_cos), and the retry statistics (an
    /// element is counted once on CUDA, where one reduction serves both).
    #[allow(clippy::type_complexity)]
    pub fn sin_cos_ternary(
        &self,
        prec: u64,
        rnd: Round,
    ) -> Result<(WithTernary, WithTernary, FuncStats)> {
        self.sin_cos_ternary_forced(prec, rnd, 0)
    }

    /// `sin_cos_ternary` with the CUDA kernels' test-only `force`.
    #[doc(hidden)]
    #[allow(clippy::type_complexity)]
    pub fn sin_cos_ternary_forced(
        &self,
        prec: u64,
        rnd: Round,
        force: u32,
    ) -> Result<(WithTernary, WithTernary, FuncStats)> {
        match &self.store {
            Store::Cpu(a) => {
                let ((s, ts, st), (c, tc, _)) = a.sin_cos_stats(prec, rnd)?;
                Ok((
                    (s.into(), TernaryArray::cpu(ts)),
                    (c.into(), TernaryArray::cpu(tc)),
                    st,
                ))
            }
            Store::Cuda(a) => {
                let ((s, ts), (c, tc), st) = a.sin_cos_ternary_forced(prec, rnd, force)?;
                let (e, len) = (a.engine(), a.len());
                Ok((
                    (s.into(), TernaryArray::cuda(e, ts, len)),
                    (c.into(), TernaryArray::cuda(e, tc, len)),
                    st,
                ))
            }
        }
    }

    /// `self ^ n` for integer exponents (mpfr_pow_z): pow with the exact
    /// integer exponent, on the array's engine.
    pub fn pow_z_ternary(
        &self,
        n: &[Integer],
        prec: u64,
        rnd: Round,
    ) -> Result<(FloatArray, TernaryArray, FuncStats)> {
        if n.len() != self.len() {
            return Err(Error::Shape(format!(
                "pow_z: {} elements and {} exponents",
                self.len(),
                n.len()
            )));
        }
        let y = FloatArray::from(super::func::pow_z_exponents(n)?).into_engine(&self.engine())?;
        self.func2_ternary(&y, Func2::Pow, prec, rnd)
    }

    /// `self ^ n` for machine-integer exponents (mpfr_pow_si).
    pub fn pow_si_ternary(
        &self,
        n: &[i64],
        prec: u64,
        rnd: Round,
    ) -> Result<(FloatArray, TernaryArray, FuncStats)> {
        let v: Vec<Integer> = n.iter().map(|&k| Integer::from(k)).collect();
        self.pow_z_ternary(&v, prec, rnd)
    }
}

fn mismatch(a: &FloatArray, b: &FloatArray) -> Error {
    Error::EngineMismatch(a.engine().describe(), b.engine().describe())
}
