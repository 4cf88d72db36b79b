//! Complex arrays on the CUDA device: both parts stay in device memory
//! ([`CudaFloats`]) between operations.
//!
//! - add, sub, neg, conj, set_prec, mul_2si, div_2si are MPC's part-wise
//!   MPFR operations, run by the float kernels;
//! - mul and sqr round the exact `ac - bd`, `ad + bc` (`a^2 - b^2`, `2ab`)
//!   once, as MPC does: the products `bd`, `bc` are formed exactly at
//!   precision `pb + pd` on the device, then one fms / fma (which rounds the
//!   exact `a c -+ t`). Elements with a zero, infinite or NaN part (MPC's
//!   C99 rules), or whose exact products could leave the exponent range, are
//!   computed by the CPU engine and patched in: found on the device
//!   (float_misc.cu's float_unusual), gathered, evaluated, scattered back,
//!   so only those elements cross to the host;
//! - abs and arg are hypot(re, im) and atan2(im, re) by the two-argument
//!   function kernel (MPC's definitions); norm rounds the exact `a^2 + b^2`
//!   once as mul does (exact `b^2`, then one fma), patching special parts
//!   and squares out of the exponent range from the CPU engine;
//! - div, pow and the functions (exp, log, sin, cos, sinh, cosh, tan,
//!   tanh, sqrt, atan, asin, acos) run on the device
//!   (src/complex/cuda_func.rs: float_cdiv, float_cpow, float_cfunc): the
//!   regular elements as proven intervals rounded per part, the undecided
//!   ones retried at larger tiers, the special, exact and out-of-range ones
//!   (and any still undecided) by the CPU engine on the gathered elements,
//!   scattered back. Precisions above the largest tier: the CPU engine.

use std::sync::Arc;

use cudarc::driver::CudaSlice;

use super::{CRound, CpuComplex, Ternary, cuda_func};
use crate::engine::cuda::CudaEngine;
use crate::engine::cuda::memory;
use crate::error::{Error, Result};
use crate::float::cuda::{CudaFloats, DevOp, MAX_CUDA_PREC};
use crate::float::{EMAX, EMIN, Round};

/// Ternary values of both parts, on the device.
pub type CudaTernary = (CudaSlice<i8>, CudaSlice<i8>);

/// A real result (abs, norm, arg) and its ternary values, on the device.
pub(crate) type CudaReal = (CudaFloats, CudaSlice<i8>);

/// A complex array on the device: real and imaginary parts, each of its own
/// precision.
pub(crate) struct CudaComplex {
    re: CudaFloats,
    im: CudaFloats,
}

/// Methods `name(&self, args, pr, pi, rnd)` of MPC's part-wise operations:
/// [`CudaComplex::partwise`] with the ops and second operand given.
macro_rules! partwise_ops {
    ($($(#[$doc:meta])* $name:ident($($arg:ident: $ty:ty),*) => $ops:expr, $b:expr;)*) => {$(
        $(#[$doc])*
        pub fn $name(
            &self,
            $($arg: $ty,)*
            pr: u64,
            pi: u64,
            rnd: CRound,
        ) -> Result<(CudaComplex, CudaTernary)> {
            self.partwise($ops, $b, pr, pi, rnd)
        }
    )*};
}

impl CpuComplex {
    /// A copy on the CUDA device `eng` (parts up to [`MAX_CUDA_PREC`] bits).
    pub fn to_cuda(&self, eng: &Arc<CudaEngine>) -> Result<CudaComplex> {
        CudaComplex::new(self.re().to_cuda(eng)?, self.im().to_cuda(eng)?)
    }
}

impl CudaComplex {
    /// From two device arrays of the same length on one engine.
    pub fn new(re: CudaFloats, im: CudaFloats) -> Result<CudaComplex> {
        if re.len() != im.len() {
            return Err(Error::Shape(format!(
                "real and imaginary parts have {} and {} elements",
                re.len(),
                im.len()
            )));
        }
        if !Arc::ptr_eq(re.engine(), im.engine()) {
            return Err(Error::Invalid("the parts live on different engines".into()));
        }
        Ok(CudaComplex { re, im })
    }

    pub fn len(&self) -> usize {
        self.re.len()
    }

    pub fn re(&self) -> &CudaFloats {
        &self.re
    }

    pub fn im(&self) -> &CudaFloats {
        &self.im
    }

    pub fn engine(&self) -> &Arc<CudaEngine> {
        self.re.engine()
    }

    /// A copy on the same device.
    pub fn copy(&self) -> Result<CudaComplex> {
        Ok(CudaComplex {
            re: self.re.copy()?,
            im: self.im.copy()?,
        })
    }

    /// The parts.
    pub fn into_parts(self) -> (CudaFloats, CudaFloats) {
        (self.re, self.im)
    }

    /// The array back on the host.
    pub fn to_host(&self) -> Result<CpuComplex> {
        CpuComplex::new(self.re.to_host()?, self.im.to_host()?)
    }

    /// Part-wise: `ops.0` on the real parts, `ops.1` on the imaginary ones,
    /// with the parts of `b` as second operands when given.
    fn partwise(
        &self,
        ops: (DevOp, DevOp),
        b: Option<&CudaComplex>,
        pr: u64,
        pi: u64,
        rnd: CRound,
    ) -> Result<(CudaComplex, CudaTernary)> {
        if let Some(b) = b {
            self.same(b)?;
        }
        let (mr, mi): (Vec<&CudaFloats>, Vec<&CudaFloats>) =
            b.map(|b| (&b.re, &b.im)).into_iter().unzip();
        let (re, tr) = self.re.op_ternary(ops.0, &mr, pr, rnd.re)?;
        let (im, ti) = self.im.op_ternary(ops.1, &mi, pi, rnd.im)?;
        Ok((CudaComplex { re, im }, (tr, ti)))
    }

    fn same(&self, b: &CudaComplex) -> Result<()> {
        if b.len() != self.len() {
            return Err(Error::Shape(format!(
                "operands have {} and {} elements",
                self.len(),
                b.len()
            )));
        }
        Ok(())
    }

    partwise_ops! {
        /// `self + b` (mpc_add) and the ternary pairs.
        add_ternary(b: &CudaComplex) => (DevOp::Add, DevOp::Add), Some(b);
        /// `self - b` (mpc_sub).
        sub_ternary(b: &CudaComplex) => (DevOp::Sub, DevOp::Sub), Some(b);
        /// `-self` (mpc_neg).
        neg_ternary() => (DevOp::Neg, DevOp::Neg), None;
        /// The conjugate (mpc_conj).
        conj_ternary() => (DevOp::SetPrec, DevOp::Neg), None;
        /// `self` rounded to the precisions `pr`, `pi` (mpc_set).
        set_prec_ternary() => (DevOp::SetPrec, DevOp::SetPrec), None;
        /// `self * 2^k` (mpc_mul_2si).
        mul_2si_ternary(k: i64) => (DevOp::Mul2si(k), DevOp::Mul2si(k)), None;
    }

    /// `self / 2^k` (mpc_div_2si).
    pub fn div_2si_ternary(
        &self,
        k: i64,
        pr: u64,
        pi: u64,
        rnd: CRound,
    ) -> Result<(CudaComplex, CudaTernary)> {
        // As on the CPU: 2^-i64::MIN overflows every finite nonzero part
        // exactly as 2^i64::MAX does.
        self.mul_2si_ternary(k.checked_neg().unwrap_or(i64::MAX), pr, pi, rnd)
    }

    /// `self * b` (mpc_mul): each part the exact value rounded once.
    pub fn mul_ternary(
        &self,
        b: &CudaComplex,
        pr: u64,
        pi: u64,
        rnd: CRound,
    ) -> Result<(CudaComplex, CudaTernary)> {
        self.same(b)?;
        let pb = self.im.prec();
        let (pc, pd) = (b.re.prec(), b.im.prec());
        if (pb + pd).max(pb + pc) > MAX_CUDA_PREC {
            return self.on_host(|x| x.mul_ternary(&b.to_host()?, pr, pi, rnd));
        }
        let nr = Round::Nearest;
        // t = b d and u = b c, exact (the precision holds the product).
        let (t, _) = self.im.op_ternary(DevOp::Mul, &[&b.im], pb + pd, nr)?;
        let (u, _) = self.im.op_ternary(DevOp::Mul, &[&b.re], pb + pc, nr)?;
        // re = a c - t, im = a d + u, one rounding each.
        let (re, tr) = self.re.op_ternary(DevOp::Fms, &[&b.re, &t], pr, rnd.re)?;
        let (im, ti) = self.re.op_ternary(DevOp::Fma, &[&b.im, &u], pi, rnd.im)?;
        let mut z = (CudaComplex { re, im }, (tr, ti));
        let parts = [&self.re, &self.im, &b.re, &b.im];
        let bad = Bad::find(&parts, &[(0, 2), (1, 3), (0, 3), (1, 2)], None)?;
        self.patch(&mut z, &bad, |x| {
            x.mul_ternary(&b.gather(&bad)?, pr, pi, rnd)
        })?;
        Ok(z)
    }

    /// `self^2` (mpc_sqr): `a^2 - b^2` and `2ab`, each rounded once.
    pub fn sqr_ternary(&self, pr: u64, pi: u64, rnd: CRound) -> Result<(CudaComplex, CudaTernary)> {
        let (pa, pb) = (self.re.prec(), self.im.prec());
        if 2 * pb > MAX_CUDA_PREC {
            return self.on_host(|x| x.sqr_ternary(pr, pi, rnd));
        }
        let nr = Round::Nearest;
        let (t, _) = self.im.op_ternary(DevOp::Mul, &[&self.im], 2 * pb, nr)?;
        let (re, tr) = self
            .re
            .op_ternary(DevOp::Fms, &[&self.re, &t], pr, rnd.re)?;
        // 2ab = (a 2) b exactly scaled: a * 2 at pa bits is exact.
        let (a2, _) = self.re.op_ternary(DevOp::Mul2si(1), &[], pa, nr)?;
        let (im, ti) = a2.op_ternary(DevOp::Mul, &[&self.im], pi, rnd.im)?;
        let mut z = (CudaComplex { re, im }, (tr, ti));
        // Besides the unusual operands: |a| = |b| gives an exact zero real
        // part, which MPC makes +0 in every mode (the fms gives -0 in RNDD).
        let parts = [&self.re, &self.im];
        let bad = Bad::find(&parts, &[(0, 0), (1, 1), (0, 1)], Some(&z.0.re))?;
        self.patch(&mut z, &bad, |x| x.sqr_ternary(pr, pi, rnd))?;
        Ok(z)
    }

    /// `|self|` (mpc_abs, which is mpfr_hypot(re, im)) at `p` bits, and
    /// the ternary values: the device's two-argument function kernel.
    pub fn abs_ternary(&self, p: u64, rnd: Round) -> Result<CudaReal> {
        let (r, t, _) =
            self.re
                .func2_ternary(&self.im, crate::float::func::Func2::Hypot, p, rnd)?;
        Ok((r, t))
    }

    /// The argument (mpc_arg, which is mpfr_atan2(im, re)) at `p` bits.
    pub fn arg_ternary(&self, p: u64, rnd: Round) -> Result<CudaReal> {
        let (r, t, _) =
            self.im
                .func2_ternary(&self.re, crate::float::func::Func2::Atan2, p, rnd)?;
        Ok((r, t))
    }

    /// `re^2 + im^2` (mpc_norm) at `p` bits, rounded once: `im^2` exact at
    /// twice its precision, then one fma. Elements with a part that is not
    /// a normal number (MPC: an infinite part gives +Inf even with a NaN),
    /// or whose squares could leave the exponent range, come from the CPU
    /// engine.
    pub fn norm_ternary(&self, p: u64, rnd: Round) -> Result<CudaReal> {
        let pb = self.im.prec();
        if 2 * pb > MAX_CUDA_PREC {
            let (r, t) = self.to_host()?.norm_ternary(p, rnd)?;
            return Ok((
                r.to_cuda(self.engine())?,
                memory::upload(self.engine(), &t)?,
            ));
        }
        let (t, _) = self
            .im
            .op_ternary(DevOp::Mul, &[&self.im], 2 * pb, Round::Nearest)?;
        let mut z = self.re.op_ternary(DevOp::Fma, &[&self.re, &t], p, rnd)?;
        let bad = Bad::find(&[&self.re, &self.im], &[(0, 0), (1, 1)], None)?;
        if bad.cnt > 0 {
            let (r, t) = self.gather(&bad)?.norm_ternary(p, rnd)?;
            scatter(&mut z.0, &mut z.1, &bad, &r, &t)?;
        }
        Ok(z)
    }

    /// `self / b` (mpc_div): on the device ([`cuda_func`]), the special
    /// elements patched by the CPU engine.
    pub fn div_ternary(
        &self,
        b: &CudaComplex,
        pr: u64,
        pi: u64,
        rnd: CRound,
    ) -> Result<(CudaComplex, CudaTernary)> {
        self.same(b)?;
        let (z, t, _) = cuda_func::div_ternary_stats(self, b, pr, pi, rnd)?;
        Ok((z, t))
    }

    /// `self^b` (mpc_pow): on the device ([`cuda_func`]), the special,
    /// exact-looking and out-of-range elements patched by the CPU engine.
    pub fn pow_ternary(
        &self,
        b: &CudaComplex,
        pr: u64,
        pi: u64,
        rnd: CRound,
    ) -> Result<(CudaComplex, CudaTernary)> {
        self.same(b)?;
        let (z, t, _) = cuda_func::pow_ternary_stats(self, b, pr, pi, rnd)?;
        Ok((z, t))
    }

    /// The elements `bad` as a host array.
    fn gather(&self, bad: &Bad) -> Result<CpuComplex> {
        CpuComplex::new(gather(&self.re, bad)?, gather(&self.im, bad)?)
    }

    /// The whole operation on the CPU engine.
    fn on_host(
        &self,
        f: impl FnOnce(&CpuComplex) -> Result<(CpuComplex, Ternary)>,
    ) -> Result<(CudaComplex, CudaTernary)> {
        let (r, t) = f(&self.to_host()?)?;
        upload_result(self.engine(), &r, &t)
    }

    /// Recomputes the elements `bad` on the CPU engine (`f` gets them as a
    /// host array) and writes them into `z`.
    fn patch(
        &self,
        z: &mut (CudaComplex, CudaTernary),
        bad: &Bad,
        f: impl FnOnce(&CpuComplex) -> Result<(CpuComplex, Ternary)>,
    ) -> Result<()> {
        if bad.cnt == 0 {
            return Ok(());
        }
        let (r, t) = f(&self.gather(bad)?)?;
        let (tr, ti): (Vec<i8>, Vec<i8>) = t.into_iter().unzip();
        scatter(&mut z.0.re, &mut z.1.0, bad, r.re(), &tr)?;
        scatter(&mut z.0.im, &mut z.1.1, bad, r.im(), &ti)
    }
}

/// Ternary pairs back on the host.
pub fn ternary_pairs_to_host(eng: &Arc<CudaEngine>, t: &CudaTernary) -> Result<Ternary> {
    let (a, b) = (memory::download(eng, &t.0)?, memory::download(eng, &t.1)?);
    Ok(a.into_iter().zip(b).collect())
}

fn upload_result(
    eng: &Arc<CudaEngine>,
    r: &CpuComplex,
    t: &Ternary,
) -> Result<(CudaComplex, CudaTernary)> {
    let (tr, ti): (Vec<i8>, Vec<i8>) = t.iter().copied().unzip();
    let (tr, ti) = (memory::upload(eng, &tr)?, memory::upload(eng, &ti)?);
    Ok((r.to_cuda(eng)?, (tr, ti)))
}

/// The elements an operation takes from the CPU engine: their indices on
/// the device (float_misc.cu's float_unusual) and how many.
struct Bad {
    idx: CudaSlice<u32>,
    cnt: usize,
}

impl Bad {
    /// The elements with a part (at most four) that is not a normal number,
    /// whose exact products `parts[j] * parts[k]` for the pairs given could
    /// leave the exponent range, or (`zero`) with a zero in that array.
    fn find(
        parts: &[&CudaFloats],
        pairs: &[(usize, usize)],
        zero: Option<&CudaFloats>,
    ) -> Result<Bad> {
        use cudarc::driver::PushKernelArg;
        let eng = parts[0].engine();
        let len = parts[0].len();
        let s = eng.stream();
        let mut cnt = memory::alloc_zeros_for::<u32>(eng, "special-case counter", 1)?;
        // float_unusual writes the slots it counts.
        let mut idx = memory::alloc_for::<u32>(eng, "special-case list", len)?;
        if len == 0 {
            return Ok(Bad { idx, cnt: 0 });
        }
        let h: Vec<&CudaSlice<u64>> = (0..4)
            .map(|j| parts[j.min(parts.len() - 1)].raw_parts().0)
            .collect();
        let code: u32 = pairs
            .iter()
            .enumerate()
            .map(|(q, &(j, k))| ((j | k << 2) as u32) << (4 * q))
            .sum();
        let (np, npairs) = (parts.len() as u32, pairs.len() as u32);
        let (zh, zero_of) = (
            zero.map_or(h[0], |z| z.raw_parts().0),
            zero.is_some() as u32,
        );
        let (len64, emin, emax) = (len as u64, EMIN, EMAX);
        let f = eng.function(&misc(), "float_unusual")?;
        let mut b = s.launch_builder(&f);
        b.arg(&mut cnt)
            .arg(&mut idx)
            .arg(h[0])
            .arg(h[1])
            .arg(h[2])
            .arg(h[3])
            .arg(&np)
            .arg(&code)
            .arg(&npairs)
            .arg(zh)
            .arg(&zero_of)
            .arg(&len64)
            .arg(&emin)
            .arg(&emax);
        // SAFETY: every head array holds len elements (the parts of one
        // operation, `zero` its result), idx len slots, each claimed once
        // through the counter.
        unsafe { b.launch(grid(len)) }.map_err(Error::driver("launching float_unusual"))?;
        let cnt = s
            .clone_dtoh(&cnt)
            .map_err(Error::driver("copying from the device"))?[0] as usize;
        Ok(Bad { idx, cnt })
    }
}

fn misc() -> crate::kernels::Instance {
    crate::kernels::Instance::new(&crate::kernels::FLOAT_MISC, &[])
}

fn grid(len: usize) -> cudarc::driver::LaunchConfig {
    cudarc::driver::LaunchConfig {
        grid_dim: ((len as u64).div_ceil(128).clamp(1, 132 * 64) as u32, 1, 1),
        block_dim: (128, 1, 1),
        shared_mem_bytes: 0,
    }
}

/// The elements `bad` of a device array, as a host array (gathered on the
/// device, one download).
fn gather(a: &CudaFloats, bad: &Bad) -> Result<crate::float::CpuFloats> {
    use cudarc::driver::PushKernelArg;
    let eng = a.engine();
    let n = crate::float::limbs_for_prec(a.prec());
    let cnt = bad.cnt;
    let mut gh = crate::engine::cuda::memory::alloc_zeros(eng, cnt.max(1))?;
    let mut gl = crate::engine::cuda::memory::alloc_zeros(eng, (cnt * n).max(1))?;
    if cnt > 0 {
        let (xh, xl) = a.raw_parts();
        let (n32, cnt32) = (n as u32, cnt as u32);
        let f = eng.function(&misc(), "float_gather")?;
        let mut b = eng.stream().launch_builder(&f);
        b.arg(&mut gh)
            .arg(&mut gl)
            .arg(xh)
            .arg(xl)
            .arg(&n32)
            .arg(&bad.idx)
            .arg(&cnt32);
        // SAFETY: idx holds cnt indices below a.len(); gh/gl cnt elements.
        unsafe { b.launch(grid(cnt)) }.map_err(Error::driver("launching float_gather"))?;
    }
    let mut hh = crate::engine::cuda::memory::download(eng, &gh)?;
    hh.truncate(cnt);
    let mut hl = crate::engine::cuda::memory::download(eng, &gl)?;
    hl.truncate(cnt * n);
    crate::float::func::cuda::from_heads(a.prec(), &hh, hl)
}

/// Writes the elements of `r` (and their ternaries `t`) at the elements
/// `bad` of `a`.
fn scatter(
    a: &mut CudaFloats,
    tern: &mut CudaSlice<i8>,
    bad: &Bad,
    r: &crate::float::CpuFloats,
    t: &[i8],
) -> Result<()> {
    use cudarc::driver::PushKernelArg;
    if bad.cnt == 0 {
        return Ok(());
    }
    let eng = a.engine().clone();
    let n = crate::float::limbs_for_prec(a.prec());
    let sh = crate::engine::cuda::memory::upload(&eng, &crate::float::func::cuda::heads_of(r))?;
    let sl = crate::engine::cuda::memory::upload(&eng, r.limbs())?;
    let st = memory::upload(&eng, t)?;
    let (n32, cnt32) = (n as u32, bad.cnt as u32);
    let f = eng.function(&misc(), "float_scatter")?;
    let (rh, rl) = a.raw_parts_mut();
    let mut b = eng.stream().launch_builder(&f);
    b.arg(rh)
        .arg(rl)
        .arg(tern)
        .arg(&n32)
        .arg(&bad.idx)
        .arg(&cnt32)
        .arg(&sh)
        .arg(&sl)
        .arg(&st);
    // SAFETY: idx holds cnt distinct indices below a.len(); sh/sl/st cnt
    // results of a's limb count.
    unsafe { b.launch(grid(bad.cnt)) }.map_err(Error::driver("launching float_scatter"))?;
    Ok(())
}

/// Recomputes the elements `idx[..cnt]` (listed on the device by a kernel,
/// in any order) on the CPU engine and writes them into `out`: the
/// elements of each input are gathered (only they cross to the host), `f`
/// evaluates them there, the results are scattered back. The generated
/// complex expression kernel's patch (src/expr/cuda.rs).
pub(crate) fn patch_listed(
    out: &mut CudaComplex,
    inputs: &[&CudaComplex],
    idx: CudaSlice<u32>,
    cnt: usize,
    f: impl FnOnce(Vec<CpuComplex>) -> Result<CpuComplex>,
) -> Result<()> {
    if cnt == 0 {
        return Ok(());
    }
    let bad = Bad { idx, cnt };
    let ins: Vec<CpuComplex> = inputs
        .iter()
        .map(|a| a.gather(&bad))
        .collect::<Result<_>>()?;
    let r = f(ins)?;
    if r.len() != cnt {
        return Err(Error::Shape(format!(
            "{} patched elements for {cnt} listed",
            r.len()
        )));
    }
    // The ternary values are not kept (the expression has none): one
    // scratch array takes them.
    let mut tern = memory::alloc_zeros::<i8>(out.engine(), out.len())?;
    scatter(&mut out.re, &mut tern, &bad, r.re(), &vec![0; cnt])?;
    scatter(&mut out.im, &mut tern, &bad, r.im(), &vec![0; cnt])
}
