//! Seeded random float arrays generated on the device, bit for bit those of
//! the CPU engine's [`CpuFloats::random_unit`], [`CpuFloats::random_exp`]
//! and [`CpuFloats::random_uniform`] (each element draws from its own
//! SplitMix64 stream, so the kernel needs no state but the seed).

use std::sync::Arc;

use cudarc::driver::PushKernelArg;

use super::{CudaFloats, DevOp, MAX_CUDA_PREC, check_cuda_prec, grid, inst_misc};
use crate::engine::CudaEngine;
use crate::error::{Error, Result};
use crate::float::round::Round;
use crate::float::{CpuFloats, EMAX, EMIN};

impl CudaFloats {
    /// Uniform in [0, 1) with `prec` random bits (mpfr_urandomb), as
    /// [`CpuFloats::random_unit`] with the same seed.
    pub fn random_unit(
        eng: &Arc<CudaEngine>,
        len: usize,
        prec: u64,
        seed: u64,
    ) -> Result<CudaFloats> {
        let mut r = CudaFloats::zeros(eng, len, prec)?;
        r.fill_random(seed, 0, 0, 1)?;
        Ok(r)
    }

    /// Random signs, exponents uniform in `emin..=emax` and random
    /// normalized mantissas, as [`CpuFloats::random_exp`].
    pub fn random_exp(
        eng: &Arc<CudaEngine>,
        len: usize,
        prec: u64,
        seed: u64,
        emin: i64,
        emax: i64,
    ) -> Result<CudaFloats> {
        check_cuda_prec(prec)?;
        if emin > emax || emin < EMIN || emax > EMAX {
            return Err(Error::Invalid(format!(
                "exponent range {emin}..={emax} is empty or outside {EMIN}..={EMAX}"
            )));
        }
        let mut r = CudaFloats::zeros(eng, len, prec)?;
        r.fill_random(seed, 1, emin, (emax - emin) as u64 + 1)?;
        Ok(r)
    }

    /// Uniform in [lo, hi), rounded once to `prec` in mode `rnd`, as
    /// [`CpuFloats::random_uniform`]: `lo + (hi - lo) * u` by one fused
    /// multiply-add on the device, `u` of `prec + 64` random bits. Above
    /// `MAX_CUDA_PREC - 64` bits `u` does not fit the device tiers, so the
    /// array is drawn on the host and uploaded (the same bits).
    pub fn random_uniform(
        eng: &Arc<CudaEngine>,
        len: usize,
        prec: u64,
        seed: u64,
        lo: f64,
        hi: f64,
        rnd: Round,
    ) -> Result<CudaFloats> {
        check_cuda_prec(prec)?;
        if !(lo.is_finite() && hi.is_finite() && lo < hi) {
            return Err(Error::Invalid(format!("bad range [{lo}, {hi})")));
        }
        if prec + 64 > MAX_CUDA_PREC {
            return CpuFloats::random_uniform(len, prec, seed, lo, hi, rnd)?.to_cuda(eng);
        }
        // hi - lo is exact at 2200 bits; keep just its significant bits so
        // the broadcast operand stays small.
        let (l, _) = CpuFloats::from_f64s(53, &[lo], Round::Nearest)?;
        let (h, _) = CpuFloats::from_f64s(53, &[hi], Round::Nearest)?;
        let d = h.sub(&l, 2200, Round::Nearest)?;
        let zeros = d.limbs().iter().take_while(|&&w| w == 0).count() as u64;
        let tz = zeros * 64 + d.limbs()[zeros as usize].trailing_zeros() as u64;
        let bits = 64 * d.limbs_per_element() as u64 - tz;
        let d = d.set_prec(bits, Round::Nearest)?;
        let u = CudaFloats::random_unit(eng, len, prec + 64, seed)?;
        let dd = d.to_cuda(eng)?.broadcast(len)?;
        let ll = l.to_cuda(eng)?.broadcast(len)?;
        let mut out = CudaFloats::zeros(eng, len, prec)?;
        u.op_into(DevOp::Fma, &[&dd, &ll], &mut out, rnd, None)?;
        Ok(out)
    }

    /// `len` copies of element 0 (an array of at least one element).
    pub(crate) fn broadcast(&self, len: usize) -> Result<CudaFloats> {
        // float_fill writes every head and limb.
        let mut r = CudaFloats::uninit(&self.eng, len, self.prec)?;
        if len == 0 {
            return Ok(r);
        }
        let f = self.eng.function(&inst_misc(), "float_fill")?;
        let (l, n) = (len as u64, self.n as u32);
        let mut b = self.eng.stream().launch_builder(&f);
        b.arg(&mut r.head)
            .arg(&mut r.limbs)
            .arg(&self.head)
            .arg(&self.limbs)
            .arg(&l)
            .arg(&n);
        // SAFETY: r holds len elements of n limbs; self at least one.
        unsafe { b.launch(grid(len, 256)) }.map_err(Error::driver("launching float_fill"))?;
        Ok(r)
    }

    fn fill_random(&mut self, seed: u64, kind: u32, emin: i64, span: u64) -> Result<()> {
        if self.len == 0 {
            return Ok(());
        }
        let f = self.eng.function(&inst_misc(), "float_random")?;
        let (len, n, p) = (self.len as u64, self.n as u32, self.prec);
        let mut b = self.eng.stream().launch_builder(&f);
        b.arg(&mut self.head)
            .arg(&mut self.limbs)
            .arg(&len)
            .arg(&n)
            .arg(&p)
            .arg(&seed)
            .arg(&kind)
            .arg(&emin)
            .arg(&span);
        // SAFETY: the array holds len heads and len*n limbs, all written.
        unsafe { b.launch(grid(self.len, 256)) }
            .map_err(Error::driver("launching float_random"))?;
        Ok(())
    }
}
