//! The fused STS-Padé iteration on CUDA (`roots_sts_a`, `roots_sts_b` at
//! the end of `src/kernels/roots.cu`, the `roots,RT_N` instances): the
//! state of [`super::polyroots::sts`] in device buffers, two launches per
//! step (one block of [`super::cuda_roots::BLOCK`] threads per root), and
//! one copy of the per-root flags back to the host per step.

use std::sync::Arc;

use cudarc::driver::{CudaSlice, LaunchConfig, PushKernelArg};

use super::cuda_roots::{BLOCK, instance};
use super::polyroots::sts::StsSetup;
use super::polyroots::{CUDA_MAX_LIMBS, Stepper};
use crate::engine::CudaEngine;
use crate::engine::cuda::memory::{alloc_zeros, download, upload};
use crate::error::{Error, Result};
use crate::kernels::Instance;

/// Words of one root's workspace (`sts_ws_words` in roots.cu).
fn ws_words(n: usize, m: usize, w: usize) -> usize {
    let cw = 2 * w;
    let a = (n + 1) * cw * (m + 2) + (n + 1) * w * 2;
    let b = n.max(1) * m * cw;
    a.max(b) + (2 * m + 4) * cw
}

/// The device state of one solve.
pub(crate) struct StsCuda {
    eng: Arc<CudaEngine>,
    inst: Instance,
    n: usize,
    m: usize,
    p: u64,
    w: usize,
    kshift: i64,
    b: CudaSlice<u64>,
    ab: CudaSlice<u64>,
    consts: CudaSlice<u64>,
    x: CudaSlice<u64>,
    xn: CudaSlice<u64>,
    y: CudaSlice<u64>,
    st: CudaSlice<u64>,
    ws: CudaSlice<u64>,
    flags: CudaSlice<u8>,
}

impl StsCuda {
    pub fn new(eng: &Arc<CudaEngine>, ss: &StsSetup, x: &[u64]) -> Result<StsCuda> {
        let su = &ss.su;
        let (n, w, m) = (su.n, su.w(), ss.m);
        let cw = 2 * w;
        if su.nl > CUDA_MAX_LIMBS {
            return Err(Error::Invalid(format!(
                "{} limbs: the CUDA root kernels serve up to {CUDA_MAX_LIMBS}",
                su.nl
            )));
        }
        Ok(StsCuda {
            eng: eng.clone(),
            inst: instance(su.nl),
            n,
            m,
            p: su.p,
            w,
            kshift: su.kshift,
            b: upload(eng, &ss.b)?,
            ab: upload(eng, &su.ab)?,
            consts: upload(eng, &ss.consts)?,
            x: upload(eng, x)?,
            xn: alloc_zeros(eng, n * cw)?,
            y: alloc_zeros(eng, n * cw)?,
            st: alloc_zeros(eng, n * ss.st_len() * cw)?,
            ws: alloc_zeros(eng, n * ws_words(n, m, w))?,
            flags: alloc_zeros(eng, n)?,
        })
    }
}

impl Stepper for StsCuda {
    fn step(&mut self, _order: usize) -> Result<Vec<u8>> {
        let (n32, m32, p, ks) = (self.n as u32, self.m as u32, self.p, self.kshift);
        let cfg = LaunchConfig {
            grid_dim: (n32, 1, 1),
            block_dim: (BLOCK, 1, 1),
            shared_mem_bytes: 0,
        };
        let fa = self.eng.function(&self.inst, "roots_sts_a")?;
        let fb = self.eng.function(&self.inst, "roots_sts_b")?;
        {
            let mut b = self.eng.stream().launch_builder(&fa);
            b.arg(&self.x)
                .arg(&mut self.y)
                .arg(&mut self.st)
                .arg(&mut self.ws)
                .arg(&mut self.flags)
                .arg(&self.b)
                .arg(&self.ab)
                .arg(&self.consts)
                .arg(&n32)
                .arg(&m32)
                .arg(&p)
                .arg(&ks);
            // SAFETY: buffers sized in `new` for n roots, Taylor order m and
            // the instance's limb count; one block per root.
            unsafe { b.launch(cfg) }.map_err(Error::driver("launching roots_sts_a"))?;
        }
        {
            let mut b = self.eng.stream().launch_builder(&fb);
            b.arg(&self.x)
                .arg(&self.y)
                .arg(&self.st)
                .arg(&mut self.xn)
                .arg(&mut self.ws)
                .arg(&mut self.flags)
                .arg(&self.consts)
                .arg(&n32)
                .arg(&m32)
                .arg(&p);
            // SAFETY: as above.
            unsafe { b.launch(cfg) }.map_err(Error::driver("launching roots_sts_b"))?;
        }
        download(&self.eng, &self.flags).map(|mut f| {
            f.truncate(self.n);
            f
        })
    }

    fn commit(&mut self) {
        std::mem::swap(&mut self.x, &mut self.xn);
    }

    fn roots(&self) -> Result<Vec<u64>> {
        let mut v = download(&self.eng, &self.x)?;
        v.truncate(self.n * 2 * self.w);
        Ok(v)
    }
}
