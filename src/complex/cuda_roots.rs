//! The fused Ehrlich-Aberth iteration on CUDA (`src/kernels/roots.cu`):
//! the state of [`super::polyroots`] in device buffers, one launch per
//! sub-step (one block of [`BLOCK`] threads per root), and one copy of the
//! per-root flags back to the host per step.

use std::sync::Arc;

use cudarc::driver::{CudaSlice, LaunchConfig, PushKernelArg};

use super::polyroots::{CUDA_MAX_LIMBS, Setup, Stepper};
use crate::engine::CudaEngine;
use crate::engine::cuda::memory::{alloc_zeros, download, upload};
use crate::error::{Error, Result};
use crate::kernels::{Instance, ROOTS};

/// Threads per block (per root; roots.cu's RT_BLOCK, its launch bound).
pub const BLOCK: u32 = 256;

/// Threads per block of `roots_certify`.
const CERT_BLOCK: u32 = 128;

/// Words of one root's workspace (roots.cu's `rt_ws_words`).
fn ws_words(n: usize, w: usize) -> usize {
    (18 * n + 38) * w
}

/// Words of one point's workspace of `roots_certify` (`rt_cert_words`).
fn cert_words(n: usize, w: usize) -> usize {
    9 * (n + 1) * w
}

/// The roots kernels for `nl` limbs per float.
pub fn instance(nl: usize) -> Instance {
    Instance::new(&ROOTS, &[("RT_N", nl as i64)])
}

/// Every instantiation the iteration can request (1 to 16 limbs).
pub fn instances() -> Vec<Instance> {
    (1..=CUDA_MAX_LIMBS).map(instance).collect()
}

/// The limb counts of the benchmarked precisions (128..1024 bits) and 64
/// bits: what a warmed machine and CI compile.
pub fn warm_instances() -> Vec<Instance> {
    [1, 2, 4, 8, 16].into_iter().map(instance).collect()
}

/// The device state of one solve.
pub(crate) struct CudaIter {
    eng: Arc<CudaEngine>,
    inst: Instance,
    n: usize,
    p: u64,
    kshift: i64,
    a: CudaSlice<u64>,
    d: CudaSlice<u64>,
    ab: CudaSlice<u64>,
    consts: CudaSlice<u64>,
    x: CudaSlice<u64>,
    /// t^(l) ping-pong buffers; `cur` holds the last step's result.
    t: [CudaSlice<u64>; 2],
    cur: usize,
    pd: CudaSlice<u64>,
    ws: CudaSlice<u64>,
    flags: CudaSlice<u8>,
}

impl CudaIter {
    pub fn new(eng: &Arc<CudaEngine>, su: &Setup, x: &[u64]) -> Result<CudaIter> {
        let (n, w) = (su.n, su.w());
        let cw = 2 * w;
        if su.nl > CUDA_MAX_LIMBS {
            return Err(Error::Invalid(format!(
                "{} limbs: the CUDA root kernels serve up to {CUDA_MAX_LIMBS}",
                su.nl
            )));
        }
        Ok(CudaIter {
            eng: eng.clone(),
            inst: instance(su.nl),
            n,
            p: su.p,
            kshift: su.kshift,
            a: upload(eng, &su.a)?,
            d: upload(eng, &su.d)?,
            ab: upload(eng, &su.ab)?,
            consts: upload(eng, &su.consts)?,
            x: upload(eng, x)?,
            t: [alloc_zeros(eng, n * cw)?, alloc_zeros(eng, n * cw)?],
            cur: 0,
            pd: alloc_zeros(eng, n * 2 * cw)?,
            ws: alloc_zeros(eng, n * ws_words(n, w))?,
            flags: alloc_zeros(eng, n)?,
        })
    }

    fn cfg(&self) -> LaunchConfig {
        LaunchConfig {
            grid_dim: (self.n as u32, 1, 1),
            block_dim: (BLOCK, 1, 1),
            shared_mem_bytes: 0,
        }
    }
}

impl Stepper for CudaIter {
    fn step(&mut self, order: usize) -> Result<Vec<u8>> {
        let (n32, p, ks) = (self.n as u32, self.p, self.kshift);
        let cfg = self.cfg();
        let first = self.eng.function(&self.inst, "roots_aberth_first")?;
        let last = u32::from(order == 1);
        {
            let [t0, _] = &mut self.t;
            let mut b = self.eng.stream().launch_builder(&first);
            b.arg(&self.x)
                .arg(t0)
                .arg(&mut self.pd)
                .arg(&mut self.ws)
                .arg(&mut self.flags)
                .arg(&self.a)
                .arg(&self.d)
                .arg(&self.ab)
                .arg(&self.consts)
                .arg(&n32)
                .arg(&p)
                .arg(&ks)
                .arg(&last);
            // SAFETY: buffers sized in `new` for n roots of the instance's
            // limb count; one block per root.
            unsafe { b.launch(cfg) }.map_err(Error::driver("launching roots_aberth_first"))?;
        }
        let next = if order > 1 {
            Some(self.eng.function(&self.inst, "roots_aberth_next")?)
        } else {
            None
        };
        let mut cur = 0;
        for l in 1..order {
            let last = u32::from(l + 1 == order);
            let (lo, hi) = self.t.split_at_mut(1);
            let (tin, tout) = if cur == 0 {
                (&lo[0], &mut hi[0])
            } else {
                (&hi[0], &mut lo[0])
            };
            let f = next.as_ref().expect("order > 1");
            let mut b = self.eng.stream().launch_builder(f);
            b.arg(&self.x)
                .arg(tin)
                .arg(tout)
                .arg(&self.pd)
                .arg(&mut self.ws)
                .arg(&mut self.flags)
                .arg(&self.consts)
                .arg(&n32)
                .arg(&p)
                .arg(&last);
            // SAFETY: as above.
            unsafe { b.launch(cfg) }.map_err(Error::driver("launching roots_aberth_next"))?;
            cur = 1 - cur;
        }
        self.cur = cur;
        download(&self.eng, &self.flags).map(|mut f| {
            f.truncate(self.n);
            f
        })
    }

    fn commit(&mut self) {
        std::mem::swap(&mut self.x, &mut self.t[self.cur]);
    }

    fn roots(&self) -> Result<Vec<u64>> {
        let mut v = download(&self.eng, &self.x)?;
        v.truncate(self.n * 2 * (self.p.div_ceil(64) as usize + 1));
        Ok(v)
    }
}

/// The residual bounds of `polyroots::certify_root` for the packed points
/// `x` (one block per point, at most enough blocks for a 256 MiB
/// workspace, each taking every `grid`-th point), packed.
pub(crate) fn certify(eng: &Arc<CudaEngine>, su: &Setup, x: &[u64]) -> Result<Vec<u64>> {
    let w = su.w();
    let len = x.len() / (2 * w);
    if len == 0 {
        return Ok(Vec::new());
    }
    let a = upload(eng, &su.a)?;
    let er = upload(eng, &su.er)?;
    let xd = upload(eng, x)?;
    let mut out = alloc_zeros::<u64>(eng, len * w)?;
    let per = cert_words(su.n, w);
    let grid = len.min(((256usize << 20) / 8 / per).max(1)).min(65535);
    let mut ws = alloc_zeros::<u64>(eng, grid * per)?;
    let f = eng.function(&instance(su.nl), "roots_certify")?;
    let (n32, len32, p) = (su.n as u32, len as u32, su.p);
    let mut b = eng.stream().launch_builder(&f);
    b.arg(&xd)
        .arg(&mut out)
        .arg(&a)
        .arg(&er)
        .arg(&mut ws)
        .arg(&n32)
        .arg(&len32)
        .arg(&p);
    let cfg = LaunchConfig {
        grid_dim: (grid as u32, 1, 1),
        block_dim: (CERT_BLOCK, 1, 1),
        shared_mem_bytes: 0,
    };
    // SAFETY: x holds len packed points, out len reals, A and er n + 1
    // values of the instance's limb count, ws grid points' workspaces.
    unsafe { b.launch(cfg) }.map_err(Error::driver("launching roots_certify"))?;
    let mut v = download(eng, &out)?;
    v.truncate(len * w);
    Ok(v)
}
