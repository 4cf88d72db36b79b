//! [`ComplexArray`]: complex arrays on an engine, and [`ComplexTernary`],
//! MPC's ternary pairs kept where the operation ran.
//!
//! A `ComplexArray` holds both parts on the CPU ([`CpuComplex`]) or on one
//! CUDA device ([`CudaComplex`]); every operation runs on its operands'
//! engine and returns its result there. On CUDA, what the device does not
//! serve (`mul_fr`, parts above [`MAX_CUDA_PREC`] bits, and the special or
//! undecided elements the kernels hand back) is computed by the CPU engine
//! and written back to the device with the same bits.

use std::sync::Arc;

use super::cuda::{CudaComplex, CudaTernary};
use super::{CFunc, CRound, CpuComplex, Ternary, cuda_func};
use crate::engine::{CudaEngine, Engine};
use crate::error::{Error, Result};
use crate::float::cuda::MAX_CUDA_PREC;
use crate::float::func::FuncStats;
use crate::float::{FloatArray, Round, TernaryArray};

enum Store {
    Cpu(CpuComplex),
    Cuda(CudaComplex),
}

/// `len` complex floats on one engine: real parts of one precision,
/// imaginary parts of another (as an `mpc_t`).
pub struct ComplexArray {
    store: Store,
}

/// MPC's ternary pair per element: one [`TernaryArray`] per part, on the
/// engine of the operation that made them.
#[derive(Debug)]
pub struct ComplexTernary {
    pub re: TernaryArray,
    pub im: TernaryArray,
}

/// `(result, ternary pairs)` of one operation.
pub type CWithTernary = (ComplexArray, ComplexTernary);

/// A real result (abs, norm, arg) and its ternary values.
pub type RealWithTernary = (FloatArray, TernaryArray);

impl std::fmt::Debug for ComplexArray {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "ComplexArray {{ len: {}, prec: ({}, {}), engine: {} }}",
            self.len(),
            self.prec_re(),
            self.prec_im(),
            self.engine().name()
        )
    }
}

/// Equal when both parts are equal bit for bit, whatever the engines (see
/// `FloatArray`'s `PartialEq`).
impl PartialEq for ComplexArray {
    fn eq(&self, other: &ComplexArray) -> bool {
        match (self.host(), other.host()) {
            (Ok(a), Ok(b)) => *a == *b,
            _ => false,
        }
    }
}

impl From<CpuComplex> for ComplexArray {
    fn from(a: CpuComplex) -> ComplexArray {
        ComplexArray {
            store: Store::Cpu(a),
        }
    }
}

impl From<CudaComplex> for ComplexArray {
    fn from(a: CudaComplex) -> ComplexArray {
        ComplexArray {
            store: Store::Cuda(a),
        }
    }
}

impl ComplexTernary {
    fn cpu(t: Ternary) -> ComplexTernary {
        let (re, im): (Vec<i8>, Vec<i8>) = t.into_iter().unzip();
        ComplexTernary {
            re: TernaryArray::cpu(re),
            im: TernaryArray::cpu(im),
        }
    }

    /// Pairs computed on the host, placed on `engine`.
    fn on(engine: &Engine, t: Ternary) -> Result<ComplexTernary> {
        let (re, im): (Vec<i8>, Vec<i8>) = t.into_iter().unzip();
        Ok(ComplexTernary {
            re: TernaryArray::from_vec(engine, re)?,
            im: TernaryArray::from_vec(engine, im)?,
        })
    }

    fn cuda(eng: &Arc<CudaEngine>, t: CudaTernary, len: usize) -> ComplexTernary {
        ComplexTernary {
            re: TernaryArray::cuda(eng, t.0, len),
            im: TernaryArray::cuda(eng, t.1, len),
        }
    }

    /// Number of elements.
    pub fn len(&self) -> usize {
        self.re.len()
    }

    pub fn is_empty(&self) -> bool {
        self.re.is_empty()
    }

    /// The pairs (real, imaginary) on the host.
    pub fn to_pairs(&self) -> Result<Vec<(i8, i8)>> {
        Ok(self
            .re
            .to_vec()?
            .into_iter()
            .zip(self.im.to_vec()?)
            .collect())
    }
}

/// Methods `name_ternary(&self, b, pr, pi, rnd)` on either engine (`$cpu`
/// and `$dev` the engines' forms), and `name` without the ternary pairs.
macro_rules! complex_ops2 {
    ($($tname:ident, $name:ident, $doc:literal, $cpu:ident, $dev:ident;)*) => {$(
        #[doc = concat!($doc, ", each part rounded to its precision (`pr`, `pi`) in its mode of `rnd`, and the ternary pairs.")]
        pub fn $tname(&self, b: &ComplexArray, pr: u64, pi: u64, rnd: CRound) -> Result<CWithTernary> {
            self.run(
                &[b],
                |x: &CpuComplex, m: &[&CpuComplex]| x.$cpu(m[0], pr, pi, rnd),
                |x: &CudaComplex, m: &[&CudaComplex]| x.$dev(m[0], pr, pi, rnd),
                pr, pi,
            )
        }
        #[doc = concat!($doc, ", each part rounded to its precision in its mode of `rnd`.")]
        pub fn $name(&self, b: &ComplexArray, pr: u64, pi: u64, rnd: CRound) -> Result<ComplexArray> {
            Ok(self.$tname(b, pr, pi, rnd)?.0)
        }
    )*};
}

/// As `complex_ops2`, for operations with no second operand.
macro_rules! complex_ops1 {
    ($($tname:ident, $name:ident, ($($arg:ident: $ty:ty),*), $doc:literal, $cpu:ident, $dev:ident;)*) => {$(
        #[doc = concat!($doc, ", each part rounded to its precision (`pr`, `pi`) in its mode of `rnd`, and the ternary pairs.")]
        pub fn $tname(&self, $($arg: $ty,)* pr: u64, pi: u64, rnd: CRound) -> Result<CWithTernary> {
            self.run(
                &[],
                |x: &CpuComplex, _: &[&CpuComplex]| x.$cpu($($arg,)* pr, pi, rnd),
                |x: &CudaComplex, _: &[&CudaComplex]| x.$dev($($arg,)* pr, pi, rnd),
                pr, pi,
            )
        }
        #[doc = concat!($doc, ", each part rounded to its precision in its mode of `rnd`.")]
        pub fn $name(&self, $($arg: $ty,)* pr: u64, pi: u64, rnd: CRound) -> Result<ComplexArray> {
            Ok(self.$tname($($arg,)* pr, pi, rnd)?.0)
        }
    )*};
}

impl ComplexArray {
    // ---- construction -------------------------------------------------

    /// A complex array from its parts (equal lengths, one engine).
    pub fn new(re: FloatArray, im: FloatArray) -> Result<ComplexArray> {
        if re.len() != im.len() {
            return Err(Error::Shape(format!(
                "real and imaginary parts have {} and {} elements",
                re.len(),
                im.len()
            )));
        }
        let (er, ei) = (re.engine(), im.engine());
        if !er.same_as(&ei) {
            return Err(Error::EngineMismatch(er.describe(), ei.describe()));
        }
        use crate::float::Store as F;
        Ok(match (re.into_store(), im.into_store()) {
            (F::Cpu(r), F::Cpu(i)) => CpuComplex::new(r, i)?.into(),
            (F::Cuda(r), F::Cuda(i)) => CudaComplex::new(r, i)?.into(),
            _ => unreachable!("same engine"),
        })
    }

    /// `len` zeros (+0 + 0i) on `engine`.
    pub fn zeros(engine: &Engine, len: usize, prec_re: u64, prec_im: u64) -> Result<ComplexArray> {
        ComplexArray::new(
            FloatArray::zeros(engine, len, prec_re)?,
            FloatArray::zeros(engine, len, prec_im)?,
        )
    }

    /// Parses pairs of strings (decimal or hex floats) on the CPU, rounded
    /// to nearest; an error names the element.
    pub fn from_strs<S: AsRef<str> + Sync>(
        prec_re: u64,
        prec_im: u64,
        items: &[(S, S)],
    ) -> Result<ComplexArray> {
        Ok(CpuComplex::from_strs(prec_re, prec_im, items)?.into())
    }

    // ---- shape and engine ---------------------------------------------

    pub fn len(&self) -> usize {
        match &self.store {
            Store::Cpu(a) => a.len(),
            Store::Cuda(a) => a.len(),
        }
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    pub fn prec_re(&self) -> u64 {
        match &self.store {
            Store::Cpu(a) => a.prec_re(),
            Store::Cuda(a) => a.re().prec(),
        }
    }

    pub fn prec_im(&self) -> u64 {
        match &self.store {
            Store::Cpu(a) => a.prec_im(),
            Store::Cuda(a) => a.im().prec(),
        }
    }

    /// The engine the array lives on.
    pub fn engine(&self) -> Engine {
        match &self.store {
            Store::Cpu(_) => Engine::Cpu,
            Store::Cuda(a) => Engine::Cuda(a.engine().clone()),
        }
    }

    /// A copy of the real parts, on the same engine.
    pub fn re(&self) -> Result<FloatArray> {
        match &self.store {
            Store::Cpu(a) => Ok(a.re().clone().into()),
            Store::Cuda(a) => Ok(a.re().copy()?.into()),
        }
    }

    /// A copy of the imaginary parts, on the same engine.
    pub fn im(&self) -> Result<FloatArray> {
        match &self.store {
            Store::Cpu(a) => Ok(a.im().clone().into()),
            Store::Cuda(a) => Ok(a.im().copy()?.into()),
        }
    }

    /// The real and imaginary parts (no copy).
    pub fn into_parts(self) -> (FloatArray, FloatArray) {
        match self.store {
            Store::Cpu(a) => {
                let (r, i) = a.into_parts();
                (r.into(), i.into())
            }
            Store::Cuda(a) => {
                let (r, i) = a.into_parts();
                (r.into(), i.into())
            }
        }
    }

    /// A copy on `engine` (a plain copy when already there).
    pub fn to_engine(&self, engine: &Engine) -> Result<ComplexArray> {
        Ok(match (engine, &self.store) {
            (Engine::Cpu, Store::Cpu(a)) => a.clone().into(),
            (Engine::Cpu, Store::Cuda(a)) => a.to_host()?.into(),
            (Engine::Cuda(eng), Store::Cpu(a)) => a.to_cuda(eng)?.into(),
            (Engine::Cuda(eng), Store::Cuda(a)) if Arc::ptr_eq(eng, a.engine()) => a.copy()?.into(),
            (Engine::Cuda(eng), Store::Cuda(a)) => a.to_host()?.to_cuda(eng)?.into(),
        })
    }

    crate::engine::engine_moves!(ComplexArray);

    /// The elements on the host: borrowed there, read back from a device.
    pub(crate) fn host(&self) -> Result<std::borrow::Cow<'_, CpuComplex>> {
        Ok(match &self.store {
            Store::Cpu(a) => std::borrow::Cow::Borrowed(a),
            Store::Cuda(a) => std::borrow::Cow::Owned(a.to_host()?),
        })
    }

    /// The device storage of a CUDA array.
    pub(crate) fn device(&self) -> Option<&CudaComplex> {
        match &self.store {
            Store::Cpu(_) => None,
            Store::Cuda(a) => Some(a),
        }
    }

    /// The host storage (None on a device).
    pub(crate) fn cpu(&self) -> Option<&CpuComplex> {
        match &self.store {
            Store::Cpu(a) => Some(a),
            Store::Cuda(_) => None,
        }
    }

    // ---- reading --------------------------------------------------------

    /// Decimal strings of both parts, `digits` significant digits each (0:
    /// enough to read back), rounded in mode `rnd`.
    pub fn to_dec_strings(&self, digits: usize, rnd: Round) -> Result<Vec<(String, String)>> {
        let h = self.host()?;
        let re = h.re().to_dec_strings(digits, rnd);
        let im = h.im().to_dec_strings(digits, rnd);
        Ok(re.into_iter().zip(im).collect())
    }

    /// Exact hex-float strings of both parts (`%Ra`).
    pub fn to_hex_strings(&self) -> Result<Vec<(String, String)>> {
        let h = self.host()?;
        Ok(h.re()
            .to_hex_strings()
            .into_iter()
            .zip(h.im().to_hex_strings())
            .collect())
    }

    /// Both parts of every element as malachite `Float`s.
    pub fn to_floats(&self) -> Result<Vec<(malachite_float::Float, malachite_float::Float)>> {
        let h = self.host()?;
        Ok(h.re()
            .to_floats()
            .into_iter()
            .zip(h.im().to_floats())
            .collect())
    }

    // ---- dispatch ---------------------------------------------------------

    /// Runs `cpu` or `dev` on `self` and `more` (one engine), falling back
    /// to the CPU engine on CUDA for parts above the device's precisions.
    fn run(
        &self,
        more: &[&ComplexArray],
        cpu: impl FnOnce(&CpuComplex, &[&CpuComplex]) -> Result<(CpuComplex, Ternary)>,
        dev: impl FnOnce(&CudaComplex, &[&CudaComplex]) -> Result<(CudaComplex, CudaTernary)>,
        pr: u64,
        pi: u64,
    ) -> Result<CWithTernary> {
        self.run_opt(more, cpu, Some(dev), pr, pi)
    }

    /// As [`ComplexArray::run`]; without `dev` (an operation with no device
    /// kernel) CUDA operands always go through the CPU engine.
    fn run_opt<D>(
        &self,
        more: &[&ComplexArray],
        cpu: impl FnOnce(&CpuComplex, &[&CpuComplex]) -> Result<(CpuComplex, Ternary)>,
        dev: Option<D>,
        pr: u64,
        pi: u64,
    ) -> Result<CWithTernary>
    where
        D: FnOnce(&CudaComplex, &[&CudaComplex]) -> Result<(CudaComplex, CudaTernary)>,
    {
        for m in more {
            if !self.engine().same_as(&m.engine()) {
                return Err(Error::EngineMismatch(
                    self.engine().describe(),
                    m.engine().describe(),
                ));
            }
            if m.len() != self.len() {
                return Err(Error::Shape(format!(
                    "operands have {} and {} elements",
                    self.len(),
                    m.len()
                )));
            }
        }
        match &self.store {
            Store::Cpu(a) => {
                let v: Vec<&CpuComplex> = more.iter().map(|m| m.cpu().expect("cpu")).collect();
                let (r, t) = cpu(a, &v)?;
                Ok((r.into(), ComplexTernary::cpu(t)))
            }
            Store::Cuda(a) => {
                let v: Vec<&CudaComplex> = more
                    .iter()
                    .map(|m| match &m.store {
                        Store::Cuda(d) => d,
                        Store::Cpu(_) => unreachable!("same engine"),
                    })
                    .collect();
                let precs = [pr, pi, a.re().prec(), a.im().prec()];
                let fits = precs.iter().all(|&p| p <= MAX_CUDA_PREC)
                    && v.iter()
                        .all(|d| d.re().prec() <= MAX_CUDA_PREC && d.im().prec() <= MAX_CUDA_PREC);
                if let (true, Some(dev)) = (fits, dev) {
                    let (r, t) = dev(a, &v)?;
                    let len = r.len();
                    return Ok((r.into(), ComplexTernary::cuda(a.engine(), t, len)));
                }
                let hs: Vec<CpuComplex> = std::iter::once(a.to_host())
                    .chain(v.iter().map(|d| d.to_host()))
                    .collect::<Result<_>>()?;
                let refs: Vec<&CpuComplex> = hs[1..].iter().collect();
                let (r, t) = cpu(&hs[0], &refs)?;
                let engine = self.engine();
                Ok((
                    ComplexArray::from(r).into_engine(&engine)?,
                    ComplexTernary::on(&engine, t)?,
                ))
            }
        }
    }

    /// A real result of `self` on its engine (abs, norm, arg).
    fn real(
        &self,
        p: u64,
        cpu: impl FnOnce(&CpuComplex) -> Result<(crate::float::CpuFloats, Vec<i8>)>,
        dev: impl FnOnce(&CudaComplex) -> Result<crate::complex::cuda::CudaReal>,
    ) -> Result<RealWithTernary> {
        match &self.store {
            Store::Cpu(a) => {
                let (r, t) = cpu(a)?;
                Ok((r.into(), TernaryArray::cpu(t)))
            }
            Store::Cuda(a) => {
                if [p, a.re().prec(), a.im().prec()]
                    .iter()
                    .all(|&q| q <= MAX_CUDA_PREC)
                {
                    let (r, t) = dev(a)?;
                    let len = r.len();
                    return Ok((r.into(), TernaryArray::cuda(a.engine(), t, len)));
                }
                let (r, t) = cpu(&a.to_host()?)?;
                let engine = self.engine();
                Ok((
                    FloatArray::from(r).into_engine(&engine)?,
                    TernaryArray::from_vec(&engine, t)?,
                ))
            }
        }
    }

    // ---- arithmetic and functions ---------------------------------------

    complex_ops2! {
        add_ternary, add, "`self + b` (mpc_add)", add_ternary, add_ternary;
        sub_ternary, sub, "`self - b` (mpc_sub)", sub_ternary, sub_ternary;
        mul_ternary, mul, "`self * b` (mpc_mul)", mul_ternary, mul_ternary;
        div_ternary, div, "`self / b` (mpc_div)", div_ternary, div_ternary;
        pow_ternary, pow, "`self ^ b` (mpc_pow, principal branch)", pow_ternary, pow_ternary;
    }

    complex_ops1! {
        sqr_ternary, sqr, (), "`self^2` (mpc_sqr)", sqr_ternary, sqr_ternary;
        neg_ternary, neg, (), "`-self` (mpc_neg)", neg_ternary, neg_ternary;
        conj_ternary, conj, (), "The conjugate (mpc_conj)", conj_ternary, conj_ternary;
        set_prec_ternary, set_prec, (), "`self` at other precisions (mpc_set)",
            set_prec_ternary, set_prec_ternary;
        mul_2si_ternary, mul_2si, (k: i64), "`self * 2^k` (mpc_mul_2si)",
            mul_2si_ternary, mul_2si_ternary;
        div_2si_ternary, div_2si, (k: i64), "`self / 2^k` (mpc_div_2si)",
            div_2si_ternary, div_2si_ternary;
    }

    /// `self * b` for a real `b` (mpc_mul_fr), each part rounded once, and
    /// the ternary pairs (computed by the CPU engine on CUDA arrays).
    pub fn mul_fr_ternary(
        &self,
        b: &FloatArray,
        pr: u64,
        pi: u64,
        rnd: CRound,
    ) -> Result<CWithTernary> {
        let engine = self.engine();
        if !engine.same_as(&b.engine()) {
            return Err(Error::EngineMismatch(
                engine.describe(),
                b.engine().describe(),
            ));
        }
        let (r, t) = self.host()?.mul_fr_ternary(&*b.host()?, pr, pi, rnd)?;
        Ok((
            ComplexArray::from(r).into_engine(&engine)?,
            ComplexTernary::on(&engine, t)?,
        ))
    }

    /// `self * b` for a real `b` (mpc_mul_fr).
    pub fn mul_fr(&self, b: &FloatArray, pr: u64, pi: u64, rnd: CRound) -> Result<ComplexArray> {
        Ok(self.mul_fr_ternary(b, pr, pi, rnd)?.0)
    }

    /// `|self|` (mpc_abs) at `p` bits in mode `rnd`, and the ternary values.
    pub fn abs_ternary(&self, p: u64, rnd: Round) -> Result<RealWithTernary> {
        self.real(p, |a| a.abs_ternary(p, rnd), |d| d.abs_ternary(p, rnd))
    }

    /// `|self|^2` (mpc_norm) at `p` bits in mode `rnd`, and the ternary values.
    pub fn norm_ternary(&self, p: u64, rnd: Round) -> Result<RealWithTernary> {
        self.real(p, |a| a.norm_ternary(p, rnd), |d| d.norm_ternary(p, rnd))
    }

    /// The argument (mpc_arg) at `p` bits in mode `rnd`, and the ternary
    /// values.
    pub fn arg_ternary(&self, p: u64, rnd: Round) -> Result<RealWithTernary> {
        self.real(p, |a| a.arg_ternary(p, rnd), |d| d.arg_ternary(p, rnd))
    }

    /// [`ComplexArray::run`] for the operations whose device form also
    /// reports its statistics (kept, on CUDA, in the result's third part).
    fn run_stats(
        &self,
        more: &[&ComplexArray],
        cpu: impl FnOnce(&CpuComplex, &[&CpuComplex]) -> Result<(CpuComplex, Ternary)>,
        dev: impl FnOnce(&CudaComplex, &[&CudaComplex]) -> Result<(CudaComplex, CudaTernary, FuncStats)>,
        pr: u64,
        pi: u64,
    ) -> Result<(ComplexArray, ComplexTernary, Option<FuncStats>)> {
        let mut stats = None;
        let dev = |x: &CudaComplex, m: &[&CudaComplex]| {
            let (r, t, s) = dev(x, m)?;
            stats = Some(s);
            Ok((r, t))
        };
        let (r, t) = self.run(more, cpu, dev, pr, pi)?;
        Ok((r, t, stats))
    }

    /// `self * b + c` (mpc_fma: each part of the exact value rounded once
    /// inside MPFR's exponent range), each part rounded to its precision
    /// in its mode of `rnd`, and the ternary pairs. On CUDA the operands
    /// are computed by the CPU engine and the result moved back (no device
    /// kernel yet).
    pub fn fma_ternary(
        &self,
        b: &ComplexArray,
        c: &ComplexArray,
        pr: u64,
        pi: u64,
        rnd: CRound,
    ) -> Result<CWithTernary> {
        type Dev = fn(&CudaComplex, &[&CudaComplex]) -> Result<(CudaComplex, CudaTernary)>;
        self.run_opt(
            &[b, c],
            |x: &CpuComplex, m: &[&CpuComplex]| x.fma_ternary(m[0], m[1], pr, pi, rnd),
            None::<Dev>,
            pr,
            pi,
        )
    }

    /// `self * b + c` (mpc_fma), each part rounded to its precision in its
    /// mode of `rnd`.
    pub fn fma(
        &self,
        b: &ComplexArray,
        c: &ComplexArray,
        pr: u64,
        pi: u64,
        rnd: CRound,
    ) -> Result<ComplexArray> {
        Ok(self.fma_ternary(b, c, pr, pi, rnd)?.0)
    }

    /// `f(self)`, each part correctly rounded to `pr`, `pi` bits in its
    /// mode of `rnd`, the ternary pairs, and (on CUDA) the statistics of
    /// the device's retries and of the elements the CPU engine computed.
    pub fn func_ternary_stats(
        &self,
        f: CFunc,
        pr: u64,
        pi: u64,
        rnd: CRound,
    ) -> Result<(ComplexArray, ComplexTernary, Option<FuncStats>)> {
        self.run_stats(
            &[],
            |x, _| x.func_ternary(f, pr, pi, rnd),
            |x, _| cuda_func::func_ternary_stats(x, f, pr, pi, rnd),
            pr,
            pi,
        )
    }

    /// `self / b` (mpc_div) as [`ComplexArray::func_ternary_stats`].
    pub fn div_ternary_stats(
        &self,
        b: &ComplexArray,
        pr: u64,
        pi: u64,
        rnd: CRound,
    ) -> Result<(ComplexArray, ComplexTernary, Option<FuncStats>)> {
        self.run_stats(
            &[b],
            |x, m| x.div_ternary(m[0], pr, pi, rnd),
            |x, m| cuda_func::div_ternary_stats(x, m[0], pr, pi, rnd),
            pr,
            pi,
        )
    }

    /// `self ^ b` (mpc_pow) as [`ComplexArray::func_ternary_stats`].
    pub fn pow_ternary_stats(
        &self,
        b: &ComplexArray,
        pr: u64,
        pi: u64,
        rnd: CRound,
    ) -> Result<(ComplexArray, ComplexTernary, Option<FuncStats>)> {
        self.run_stats(
            &[b],
            |x, m| x.pow_ternary(m[0], pr, pi, rnd),
            |x, m| cuda_func::pow_ternary_stats(x, m[0], pr, pi, rnd),
            pr,
            pi,
        )
    }

    /// `f(self)`, each part correctly rounded, and the ternary pairs.
    pub fn func_ternary(&self, f: CFunc, pr: u64, pi: u64, rnd: CRound) -> Result<CWithTernary> {
        let (r, t, _) = self.func_ternary_stats(f, pr, pi, rnd)?;
        Ok((r, t))
    }

    /// `f(self)`, each part correctly rounded.
    pub fn func(&self, f: CFunc, pr: u64, pi: u64, rnd: CRound) -> Result<ComplexArray> {
        Ok(self.func_ternary(f, pr, pi, rnd)?.0)
    }
}
