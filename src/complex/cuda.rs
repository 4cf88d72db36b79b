//! Complex arrays on the CUDA device: both parts stay in device memory
//! ([`CudaFloatArray`]) between operations.
//!
//! - add, sub, neg, conj, set_prec, mul_2si, div_2si are MPC's part-wise
//!   MPFR operations, run by the float kernels;
//! - mul and sqr round the exact `ac - bd`, `ad + bc` (`a^2 - b^2`, `2ab`)
//!   once, as MPC does: the products `bd`, `bc` are formed exactly at
//!   precision `pb + pd` on the device, then one fms / fma (which rounds the
//!   exact `a c -+ t`). Elements with a zero, infinite or NaN part (MPC's
//!   C99 rules), or whose exact products could leave the exponent range, are
//!   computed by the CPU engine and patched in;
//! - div, abs, norm, arg, the functions and pow run on the CPU engine
//!   (download, compute, upload): the same bits, not yet on the device.

use std::sync::Arc;

use cudarc::driver::CudaSlice;

use super::{CFunc, CRound, ComplexArray, Ternary, cuda_func};
use crate::engine::cuda::CudaEngine;
use crate::error::{Error, Result};
use crate::float::cuda::{CudaFloatArray, DevOp, MAX_CUDA_PREC, ternary_to_host};
use crate::float::{EMAX, EMIN, Round};

/// Ternary values of both parts, on the device.
pub type CudaTernary = (CudaSlice<i8>, CudaSlice<i8>);

/// A complex array on the device: real and imaginary parts, each of its own
/// precision.
pub struct CudaComplexArray {
    re: CudaFloatArray,
    im: CudaFloatArray,
}

impl ComplexArray {
    /// A copy on the CUDA device `eng` (parts up to [`MAX_CUDA_PREC`] bits).
    pub fn to_cuda(&self, eng: &Arc<CudaEngine>) -> Result<CudaComplexArray> {
        CudaComplexArray::new(self.re().to_cuda(eng)?, self.im().to_cuda(eng)?)
    }
}

/// Elements above this count are patched by one round trip of the whole
/// array rather than element by element.
const PATCH_EACH: usize = 64;

impl CudaComplexArray {
    /// From two device arrays of the same length on one engine.
    pub fn new(re: CudaFloatArray, im: CudaFloatArray) -> Result<CudaComplexArray> {
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
        Ok(CudaComplexArray { re, im })
    }

    pub fn len(&self) -> usize {
        self.re.len()
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    pub fn re(&self) -> &CudaFloatArray {
        &self.re
    }

    pub fn im(&self) -> &CudaFloatArray {
        &self.im
    }

    pub fn engine(&self) -> &Arc<CudaEngine> {
        self.re.engine()
    }

    /// The array back on the host.
    pub fn to_host(&self) -> Result<ComplexArray> {
        ComplexArray::new(self.re.to_host()?, self.im.to_host()?)
    }

    /// Part-wise: `fr` on the real parts, `fi` on the imaginary ones.
    fn partwise(
        &self,
        op_re: (DevOp, Option<&CudaFloatArray>),
        op_im: (DevOp, Option<&CudaFloatArray>),
        pr: u64,
        pi: u64,
        rnd: CRound,
    ) -> Result<(CudaComplexArray, CudaTernary)> {
        let mr: Vec<&CudaFloatArray> = op_re.1.into_iter().collect();
        let mi: Vec<&CudaFloatArray> = op_im.1.into_iter().collect();
        let (re, tr) = self.re.op_ternary(op_re.0, &mr, pr, rnd.re)?;
        let (im, ti) = self.im.op_ternary(op_im.0, &mi, pi, rnd.im)?;
        Ok((CudaComplexArray { re, im }, (tr, ti)))
    }

    fn same(&self, b: &CudaComplexArray) -> Result<()> {
        if b.len() != self.len() {
            return Err(Error::Shape(format!(
                "operands have {} and {} elements",
                self.len(),
                b.len()
            )));
        }
        Ok(())
    }

    /// `self + b` (mpc_add) and the ternary pairs.
    pub fn add_ternary(
        &self,
        b: &CudaComplexArray,
        pr: u64,
        pi: u64,
        rnd: CRound,
    ) -> Result<(CudaComplexArray, CudaTernary)> {
        self.same(b)?;
        self.partwise(
            (DevOp::Add, Some(&b.re)),
            (DevOp::Add, Some(&b.im)),
            pr,
            pi,
            rnd,
        )
    }

    /// `self - b` (mpc_sub).
    pub fn sub_ternary(
        &self,
        b: &CudaComplexArray,
        pr: u64,
        pi: u64,
        rnd: CRound,
    ) -> Result<(CudaComplexArray, CudaTernary)> {
        self.same(b)?;
        self.partwise(
            (DevOp::Sub, Some(&b.re)),
            (DevOp::Sub, Some(&b.im)),
            pr,
            pi,
            rnd,
        )
    }

    /// `-self` (mpc_neg).
    pub fn neg_ternary(
        &self,
        pr: u64,
        pi: u64,
        rnd: CRound,
    ) -> Result<(CudaComplexArray, CudaTernary)> {
        self.partwise((DevOp::Neg, None), (DevOp::Neg, None), pr, pi, rnd)
    }

    /// The conjugate (mpc_conj).
    pub fn conj_ternary(
        &self,
        pr: u64,
        pi: u64,
        rnd: CRound,
    ) -> Result<(CudaComplexArray, CudaTernary)> {
        self.partwise((DevOp::SetPrec, None), (DevOp::Neg, None), pr, pi, rnd)
    }

    /// `self` rounded to the precisions `pr`, `pi` (mpc_set).
    pub fn set_prec_ternary(
        &self,
        pr: u64,
        pi: u64,
        rnd: CRound,
    ) -> Result<(CudaComplexArray, CudaTernary)> {
        self.partwise((DevOp::SetPrec, None), (DevOp::SetPrec, None), pr, pi, rnd)
    }

    /// `self * 2^k` (mpc_mul_2si).
    pub fn mul_2si_ternary(
        &self,
        k: i64,
        pr: u64,
        pi: u64,
        rnd: CRound,
    ) -> Result<(CudaComplexArray, CudaTernary)> {
        self.partwise(
            (DevOp::Mul2si(k), None),
            (DevOp::Mul2si(k), None),
            pr,
            pi,
            rnd,
        )
    }

    /// `self / 2^k` (mpc_div_2si).
    pub fn div_2si_ternary(
        &self,
        k: i64,
        pr: u64,
        pi: u64,
        rnd: CRound,
    ) -> Result<(CudaComplexArray, CudaTernary)> {
        let k = k
            .checked_neg()
            .ok_or_else(|| Error::Invalid(format!("div_2si by 2^{k}")))?;
        self.mul_2si_ternary(k, pr, pi, rnd)
    }

    /// `self * b` (mpc_mul): each part the exact value rounded once.
    pub fn mul_ternary(
        &self,
        b: &CudaComplexArray,
        pr: u64,
        pi: u64,
        rnd: CRound,
    ) -> Result<(CudaComplexArray, CudaTernary)> {
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
        let mut z = (CudaComplexArray { re, im }, (tr, ti));
        let bad = unusual(
            &[&self.re, &self.im, &b.re, &b.im],
            &[(0, 2), (1, 3), (0, 3), (1, 2)],
        )?;
        self.patch(&mut z, &bad, |x, idx| {
            let y = b.gather(idx)?;
            x.mul_ternary(&y, pr, pi, rnd)
        })?;
        Ok(z)
    }

    /// `self^2` (mpc_sqr): `a^2 - b^2` and `2ab`, each rounded once.
    pub fn sqr_ternary(
        &self,
        pr: u64,
        pi: u64,
        rnd: CRound,
    ) -> Result<(CudaComplexArray, CudaTernary)> {
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
        let mut z = (CudaComplexArray { re, im }, (tr, ti));
        // Besides the unusual operands: |a| = |b| gives an exact zero real
        // part, which MPC makes +0 in every mode (the fms gives -0 in RNDD).
        let mut bad = unusual(&[&self.re, &self.im], &[(0, 0), (1, 1), (0, 1)])?;
        let head = crate::int::cuda::download(self.engine(), z.0.re.raw_parts().0)?;
        bad.extend(
            head.iter()
                .take(self.len())
                .enumerate()
                .filter(|(_, h)| (**h as u8) & 3 == 0)
                .map(|(i, _)| i),
        );
        bad.sort_unstable();
        bad.dedup();
        self.patch(&mut z, &bad, |x, _| x.sqr_ternary(pr, pi, rnd))?;
        Ok(z)
    }

    /// `self / b` (mpc_div): on the device ([`cuda_func`]), the special
    /// elements patched by the CPU engine.
    pub fn div_ternary(
        &self,
        b: &CudaComplexArray,
        pr: u64,
        pi: u64,
        rnd: CRound,
    ) -> Result<(CudaComplexArray, CudaTernary)> {
        self.same(b)?;
        let (z, t, _) = cuda_func::div_ternary_stats(self, b, pr, pi, rnd)?;
        Ok((z, t))
    }

    /// `self^b` (mpc_pow), on the CPU engine.
    pub fn pow_ternary(
        &self,
        b: &CudaComplexArray,
        pr: u64,
        pi: u64,
        rnd: CRound,
    ) -> Result<(CudaComplexArray, CudaTernary)> {
        self.same(b)?;
        self.on_host(|x| x.pow_ternary(&b.to_host()?, pr, pi, rnd))
    }

    /// A complex function: on the device where [`cuda_func`] evaluates it
    /// (the special elements patched by the CPU engine), else on the CPU
    /// engine.
    pub fn func_ternary(
        &self,
        f: CFunc,
        pr: u64,
        pi: u64,
        rnd: CRound,
    ) -> Result<(CudaComplexArray, CudaTernary)> {
        let (z, t, _) = cuda_func::func_ternary_stats(self, f, pr, pi, rnd)?;
        Ok((z, t))
    }

    /// Elements `idx` as a host array.
    fn gather(&self, idx: &[usize]) -> Result<ComplexArray> {
        ComplexArray::new(gather(&self.re, idx)?, gather(&self.im, idx)?)
    }

    /// The whole operation on the CPU engine.
    fn on_host(
        &self,
        f: impl FnOnce(&ComplexArray) -> Result<(ComplexArray, Ternary)>,
    ) -> Result<(CudaComplexArray, CudaTernary)> {
        let (r, t) = f(&self.to_host()?)?;
        upload_result(self.engine(), &r, &t)
    }

    /// Recomputes the elements `bad` on the CPU engine (`f` gets them as a
    /// host array and their indices) and writes them into `z`.
    fn patch(
        &self,
        z: &mut (CudaComplexArray, CudaTernary),
        bad: &[usize],
        f: impl FnOnce(&ComplexArray, &[usize]) -> Result<(ComplexArray, Ternary)>,
    ) -> Result<()> {
        if bad.is_empty() {
            return Ok(());
        }
        if bad.len() > PATCH_EACH {
            let all: Vec<usize> = (0..self.len()).collect();
            let (r, t) = f(&self.to_host()?, &all)?;
            *z = upload_result(self.engine(), &r, &t)?;
            return Ok(());
        }
        let (r, t) = f(&self.gather(bad)?, bad)?;
        scatter(&mut z.0.re, &mut z.1.0, bad, r.re(), t.iter().map(|p| p.0))?;
        scatter(&mut z.0.im, &mut z.1.1, bad, r.im(), t.iter().map(|p| p.1))?;
        Ok(())
    }
}

/// Ternary pairs back on the host.
pub fn ternary_pairs_to_host(eng: &Arc<CudaEngine>, t: &CudaTernary) -> Result<Ternary> {
    let (a, b) = (ternary_to_host(eng, &t.0)?, ternary_to_host(eng, &t.1)?);
    Ok(a.into_iter().zip(b).collect())
}

fn upload_result(
    eng: &Arc<CudaEngine>,
    r: &ComplexArray,
    t: &Ternary,
) -> Result<(CudaComplexArray, CudaTernary)> {
    let s = eng.stream();
    let up = |v: Vec<i8>| -> Result<CudaSlice<i8>> {
        // One byte at least: the device ternary buffers are never empty.
        let v = if v.is_empty() { vec![0] } else { v };
        s.clone_htod(&v)
            .map_err(Error::driver("copying to the device"))
    };
    let tr = up(t.iter().map(|p| p.0).collect())?;
    let ti = up(t.iter().map(|p| p.1).collect())?;
    Ok((r.to_cuda(eng)?, (tr, ti)))
}

/// The indices of elements with a part that is not a normal number, or
/// whose exact products `x[i] * x[j]` for the pairs given could leave the
/// exponent range.
fn unusual(parts: &[&CudaFloatArray], pairs: &[(usize, usize)]) -> Result<Vec<usize>> {
    let eng = parts[0].engine();
    let len = parts[0].len();
    let heads: Vec<Vec<u64>> = parts
        .iter()
        .map(|p| crate::int::cuda::download(eng, p.raw_parts().0))
        .collect::<Result<_>>()?;
    let normal = |h: u64| (h as u8) & 3 == 1;
    let exp = |h: u64| (h as i64) >> 8;
    Ok((0..len)
        .filter(|&i| {
            heads.iter().any(|h| !normal(h[i]))
                || pairs.iter().any(|&(j, k)| {
                    let e = exp(heads[j][i]) + exp(heads[k][i]);
                    e <= EMIN + 1 || e >= EMAX
                })
        })
        .collect())
}

/// Elements `idx` of a device array, as a host array.
fn gather(a: &CudaFloatArray, idx: &[usize]) -> Result<crate::float::FloatArray> {
    let eng = a.engine();
    let n = crate::float::limbs_for_prec(a.prec());
    let (head, limbs) = a.raw_parts();
    let s = eng.stream();
    let mut heads = Vec::with_capacity(idx.len());
    let mut ls = Vec::with_capacity(idx.len() * n);
    for &i in idx {
        let h = s
            .clone_dtoh(&head.slice(i..i + 1))
            .map_err(Error::driver("copying from the device"))?;
        heads.push(h[0]);
        let l = s
            .clone_dtoh(&limbs.slice(i * n..(i + 1) * n))
            .map_err(Error::driver("copying from the device"))?;
        ls.extend_from_slice(&l);
    }
    crate::float::FloatArray::from_raw(
        a.prec(),
        heads.iter().map(|&h| h as u8).collect(),
        heads.iter().map(|&h| (h as i64) >> 8).collect(),
        ls,
    )
}

/// Writes the elements of `r` (and their ternaries) at `idx` of `a`.
fn scatter(
    a: &mut CudaFloatArray,
    tern: &mut CudaSlice<i8>,
    idx: &[usize],
    r: &crate::float::FloatArray,
    t: impl Iterator<Item = i8>,
) -> Result<()> {
    let eng = a.engine().clone();
    let s = eng.stream();
    let n = crate::float::limbs_for_prec(a.prec());
    let (head, limbs) = a.raw_parts_mut();
    for ((j, &i), tv) in idx.iter().enumerate().zip(t) {
        let h = [((r.exps()[j] as u64) << 8) | r.tags()[j] as u64];
        s.memcpy_htod(&h, &mut head.slice_mut(i..i + 1))
            .map_err(Error::driver("copying to the device"))?;
        s.memcpy_htod(
            &r.limbs()[j * n..(j + 1) * n],
            &mut limbs.slice_mut(i * n..(i + 1) * n),
        )
        .map_err(Error::driver("copying to the device"))?;
        s.memcpy_htod(&[tv], &mut tern.slice_mut(i..i + 1))
            .map_err(Error::driver("copying to the device"))?;
    }
    Ok(())
}
