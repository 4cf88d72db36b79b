//! The exact BLAS reductions on the CUDA engine (src/kernels/blas.cu; the
//! algorithm and its error bound in notes/blas-cuda.md): every output
//! element `alpha*sum_k op(A)_ik op(B)_kj + beta*c_ij` is decided on the
//! device from a fixed-point accumulation with an error bound, or, where
//! the device cannot decide it (a NaN or an infinity among its operands, a
//! rounding boundary within the error: heavy cancellation or a wide spread
//! of exponents), computed on the host by the exact core
//! ([`Terms`](super::exact::Terms)) and written back: the same bits as the
//! CPU engine either way.
//!
//! Served: output precisions up to the largest tier (`32*66` bits of fixed
//! point less the guard bits, about 2060 bits for short sums), alpha, beta
//! and C of at most `NF/2 + 2` limbs, `K < 2^30`. Other cases return
//! `None`, and the caller computes them on the CPU engine.
//!
//! For measurements: `MPARRAY_BLAS_STREAM` forces the streaming kernel,
//! `MPARRAY_BLAS_NOPIPE` single-buffers its staging,
//! `MPARRAY_BLAS_TARGET` sets its thread count, `MPARRAY_BLAS_NOPACK`
//! converts gemv's x per product, `MPARRAY_BLAS_PROFILE` prints each
//! stage's device time (events between the launches),
//! `MPARRAY_BLAS_MMA` picks gemv's int8 tensor-core variant (0: off).

use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};

use cudarc::driver::sys::CUfunction_attribute;
use cudarc::driver::{CudaSlice, CudaView, LaunchConfig, PushKernelArg};
use rayon::prelude::*;

use super::exact::Terms;
use super::{Matrix, Op};
use crate::engine::CudaEngine;
use crate::engine::cuda::memory;
use crate::engine::cuda::pool::{self, Pool, event_done, wait_event};
use crate::error::{Error, Result};
use crate::float::cuda::{CudaFloats, round_code};
use crate::float::round::{Out, Round};
use crate::float::{CpuFloats, FloatArray, TernaryArray, WithTernary, check_prec};
use crate::kernels::{BLAS, Instance};

/// Fixed-point tiers in 32-bit words (one instantiation each; 66 words
/// serve up to about 2060 bits).
pub const TIERS: [u32; 6] = [4, 6, 10, 18, 34, 66];

/// Guard bits of the fixed point beyond the output precision, the sum's
/// length and the short product's bound.
const GUARD: u64 = 25;

static ON_DEVICE: AtomicU64 = AtomicU64::new(0);
static ON_HOST: AtomicU64 = AtomicU64::new(0);

/// Adds to the counts of [`stats`] (the complex paths count each part).
pub(super) fn count(device: u64, host: u64) {
    ON_DEVICE.fetch_add(device, Ordering::Relaxed);
    ON_HOST.fetch_add(host, Ordering::Relaxed);
}

/// Calls of gemv that took the int8 tensor-core path (`gemv_mma`).
static MMA_CALLS: AtomicU64 = AtomicU64::new(0);

/// How many gemv calls took the int8 tensor-core path so far.
pub fn mma_calls() -> u64 {
    MMA_CALLS.load(Ordering::Relaxed)
}

/// The product path of the fused dot (`blas_dot`) at tier 18 with 8-limb
/// operands, for tests and measurements ([`set_dot_path`]); every path
/// gives the same bits.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DotPath {
    /// The process's default (running scales unless the environment
    /// chooses otherwise: `MPARRAY_BLAS_DOT2`, `MPARRAY_BLAS_DOTMMA`).
    Default,
    /// The per-block heads pass, then `bl_mac`'s products.
    HeadsPass,
    /// Running per-warp scales, no heads pass, `bl_mac`'s products.
    Running,
    /// The products on the int8 tensor cores (with the heads pass).
    TensorCores,
}

/// The path [`set_dot_path`] chose (0: default, else 1 + the variant).
static DOT_PATH: std::sync::atomic::AtomicU8 = std::sync::atomic::AtomicU8::new(0);

/// Chooses the fused dot's product path for the whole process (tests and
/// measurements: every path gives the same bits, the speeds differ).
pub fn set_dot_path(p: DotPath) {
    let v = match p {
        DotPath::Default => 0,
        DotPath::HeadsPass => 1,
        DotPath::Running => 2,
        DotPath::TensorCores => 3,
    };
    DOT_PATH.store(v, Ordering::Relaxed);
}

/// The fused dot's pipe bits and tensor-core flag after [`set_dot_path`].
fn dot_path_bits(pipe: u32, mma: bool) -> (u32, bool) {
    const RUN: u32 = 1 << 16;
    const MMA: u32 = 1 << 14;
    match DOT_PATH.load(Ordering::Relaxed) {
        1 => (pipe & !(RUN | MMA), false),
        2 => ((pipe | RUN) & !MMA, false),
        3 => ((pipe | MMA) & !RUN, true),
        _ => (pipe, mma),
    }
}

/// Output elements decided on the device and computed on the host since
/// the start of the process (for tests and benchmarks; complex outputs
/// count per part, `nrm2` as one element).
pub fn stats() -> (u64, u64) {
    (
        ON_DEVICE.load(Ordering::Relaxed),
        ON_HOST.load(Ordering::Relaxed),
    )
}

pub(super) fn inst(nf: u32) -> Instance {
    Instance::new(&BLAS, &[("BL_NF", nf as i64)])
}

/// Every instantiation this module can request.
pub fn instances() -> Vec<Instance> {
    TIERS.iter().map(|&t| inst(t)).collect()
}

/// The largest block of blas_fin (blas.cu's BL_FINT).
pub(crate) fn fin_threads(nf: u32) -> usize {
    if nf <= 34 { 256 } else { 128 }
}

fn bits(x: u64) -> u64 {
    64 - x.leading_zeros() as u64
}

/// The tier for output precision `p`, `k` terms and scalars/C of `ls`
/// limbs (None: the CPU engine computes it).
pub fn tier_for(p: u64, k: usize, ls: usize) -> Option<u32> {
    TIERS.iter().copied().find(|&nf| {
        32 * nf as u64 >= p + bits(k as u64) + bits(nf as u64) + GUARD
            && ls <= (nf / 2 + 2) as usize
    })
}

/// One operand of the product: the array and the strides of its lines
/// (rows of op(A), columns of op(B)) and of the positions k along them.
#[derive(Clone, Copy)]
pub(crate) struct Side<'a> {
    pub f: &'a CudaFloats,
    pub sl: i64,
    pub sp: i64,
}

impl Side<'_> {
    fn at(&self, line: usize, k: usize) -> usize {
        (line as i64 * self.sl + k as i64 * self.sp) as usize
    }
}

pub(super) fn cfg(blocks: u64, threads: u32) -> LaunchConfig {
    LaunchConfig {
        grid_dim: (blocks.clamp(1, 132 * 64) as u32, 1, 1),
        block_dim: (threads, 1, 1),
        shared_mem_bytes: 0,
    }
}

pub(super) fn launch_err(what: &'static str) -> impl FnOnce(cudarc::driver::DriverError) -> Error {
    Error::driver(format!("launching {what}"))
}

/// The scale buffer of `m` lines of op(A) and `n` of op(B) (blas.cu's
/// layout: scales, special flags, the undecided count, 1.0), one zeroed
/// allocation and one launch.
fn scales(
    eng: &Arc<CudaEngine>,
    nf: u32,
    a: Side,
    b: Side,
    m: usize,
    n: usize,
    k: usize,
) -> Result<CudaSlice<u64>> {
    let mut sc = memory::alloc_zeros::<u64>(eng, 2 * (m + n) + 3)?;
    let f = eng.function(&inst(nf), "blas_scale")?;
    let (m_u, n_u, k_u) = (m as u64, n as u64, k as u64);
    let warps = (m_u + n_u) * k_u.div_ceil(1024);
    let mut bld = eng.stream().launch_builder(&f);
    bld.arg(a.f.raw_parts().0)
        .arg(&m_u)
        .arg(&a.sl)
        .arg(&a.sp)
        .arg(b.f.raw_parts().0)
        .arg(&n_u)
        .arg(&b.sl)
        .arg(&b.sp)
        .arg(&k_u)
        .arg(&mut sc);
    // SAFETY: every line's positions index its array (checked by the
    // caller's shapes); sc holds 2(m+n)+3 items.
    unsafe { bld.launch(cfg(warps.div_ceil(8), 256)) }.map_err(launch_err("blas_scale"))?;
    Ok(sc)
}

/// Packed fixed-point records of `lines` lines of `k` positions.
fn pack(
    eng: &Arc<CudaEngine>,
    nf: u32,
    s: Side,
    lines: usize,
    k: usize,
    esc: &CudaView<u64>,
) -> Result<CudaSlice<u32>> {
    let rec = ((nf + 1 + 3) & !3) as usize;
    let total = lines * k;
    let mut out = memory::alloc::<u32>(eng, total * rec)?;
    if total == 0 {
        return Ok(out);
    }
    let f = eng.function(&inst(nf), "blas_pack")?;
    let (la, lines_u, k_u) = (s.f.limbs_per_element() as u32, lines as u64, k as u64);
    let (h, l) = s.f.raw_parts();
    let mut b = eng.stream().launch_builder(&f);
    b.arg(h)
        .arg(l)
        .arg(&la)
        .arg(&lines_u)
        .arg(&k_u)
        .arg(&s.sl)
        .arg(&s.sp)
        .arg(esc)
        .arg(&mut out);
    // SAFETY: as in scale; out holds lines*k records.
    unsafe { b.launch(cfg((total as u64).div_ceil(256), 256)) }.map_err(launch_err("blas_pack"))?;
    Ok(out)
}

/// `alpha*op(A)*op(B) + beta*C` (op(A) `m x k` from side `a`, op(B) `k x
/// n` from side `b`; alpha None: 1; `beta_c` = (beta, C, ldc)), row-major
/// `m x n`, each element rounded once to `prec` in mode `rnd`, with the
/// ternary values; `tri` 1 (2) keeps only the upper (lower) triangle of
/// the product (the other elements are C's, rounded). None where the
/// device does not serve the case (see the module docs).
#[allow(clippy::too_many_arguments)]
pub(crate) fn product(
    a: Side,
    b: Side,
    m: usize,
    n: usize,
    k: usize,
    alpha: Option<&CudaFloats>,
    beta_c: Option<(&CudaFloats, &CudaFloats, usize)>,
    prec: u64,
    rnd: Round,
    tri: u32,
) -> Result<Option<(CudaFloats, CudaSlice<i8>)>> {
    let rn = check_prec(prec)?;
    let ls = beta_c.map_or(0, |(be, c, _)| {
        be.limbs_per_element().max(c.limbs_per_element())
    });
    let ls = ls.max(alpha.map_or(1, |x| x.limbs_per_element()));
    let Some(nf) = tier_for(prec, k, ls) else {
        return Ok(None);
    };
    // The conversion's 32-bit word offsets need fewer than 2^25 words per
    // element.
    let wide = a.f.limbs_per_element().max(b.f.limbs_per_element()) >= 1 << 24;
    if k >= 1 << 30 || m > u32::MAX as usize || n > u32::MAX as usize || wide {
        return Ok(None);
    }
    let eng = a.f.engine().clone();
    let nout = m * n;
    if nout == 0 {
        let out = CudaFloats::zeros(&eng, 0, prec)?;
        return Ok(Some((out, memory::alloc_zeros::<i8>(&eng, 0)?)));
    }
    // MPARRAY_BLAS_PROFILE: the device time of each stage on stderr (events
    // between the launches, read at the end) and the host's time to there.
    let prof = std::env::var_os("MPARRAY_BLAS_PROFILE").is_some();
    let t0 = std::time::Instant::now();
    let mut marks = Vec::new();
    let mut stage = |what: &'static str| -> Result<()> {
        if prof {
            let ev = eng
                .context()
                .new_event(Some(cudarc::driver::sys::CUevent_flags::CU_EVENT_DEFAULT))
                .map_err(Error::driver("creating an event"))?;
            ev.record(eng.stream())
                .map_err(Error::driver("recording an event"))?;
            marks.push((what, ev, t0.elapsed().as_secs_f64() * 1e6));
        }
        Ok(())
    };
    stage("start")?;
    let Acc { sc, acc, splits } = accumulate(&eng, nf, a, b, m, n, k, &mut stage)?;
    let (mu, nu, ku) = (m as u32, n as u32, k as u64);
    stage("products")?;
    // The epilogue writes every output element, ternary and flag
    // (allocated after the first launches are queued: the device starts
    // sooner).
    let mut out = CudaFloats::uninit(&eng, nout, prec)?;
    let mut tern = memory::alloc::<i8>(&eng, nout)?;
    // The sums of the splits (exact integer sums, so any split gives the
    // same bits) and the epilogue: one launch.
    let mut und = memory::alloc::<u8>(&eng, nout)?;
    {
        let (f, blocks, threads) = if splits == 1 {
            (
                eng.function(&inst(nf), "blas_epi")?,
                (nout as u64).div_ceil(128),
                128,
            )
        } else {
            let t = splits.next_power_of_two().clamp(32, fin_threads(nf)) as u32;
            (eng.function(&inst(nf), "blas_fin")?, nout as u64, t)
        };
        let (alh, alm, lal, one) = match alpha {
            Some(x) => {
                let (h, l) = x.raw_parts();
                (h, l, x.limbs_per_element() as u32, 0u32)
            }
            None => (&sc, &sc, 1, 1u32),
        };
        let (beh, bem, lbe, chd, clb, lc, ldc, has_c) = match beta_c {
            Some((be, c, ldc)) => {
                let (bh, bm) = be.raw_parts();
                let (ch, cl) = c.raw_parts();
                (
                    bh,
                    bm,
                    be.limbs_per_element() as u32,
                    ch,
                    cl,
                    c.limbs_per_element() as u32,
                    ldc as u64,
                    1u32,
                )
            }
            None => (alh, alm, lal, alh, alm, lal, 0u64, 0u32),
        };
        let (p, rc, rn_u, s_u) = (prec, round_code(rnd), rn as u32, splits as u32);
        // MPARRAY_BLAS_EPIREG: the epilogue's exact products as unrolled
        // register chains (tri's bit 8; for measurements).
        let tri = tri | ((std::env::var_os("MPARRAY_BLAS_EPIREG").is_some() as u32) << 8);
        let (orh, orl) = out.raw_parts_mut();
        let mut bld = eng.stream().launch_builder(&f);
        bld.arg(&acc);
        if splits > 1 {
            bld.arg(&s_u);
        }
        bld.arg(&mu)
            .arg(&nu)
            .arg(&sc)
            .arg(&one)
            .arg(alh)
            .arg(alm)
            .arg(&lal)
            .arg(beh)
            .arg(bem)
            .arg(&lbe)
            .arg(&has_c)
            .arg(chd)
            .arg(clb)
            .arg(&lc)
            .arg(&ldc)
            .arg(a.f.raw_parts().0)
            .arg(&a.sl)
            .arg(&a.sp)
            .arg(b.f.raw_parts().0)
            .arg(&b.sl)
            .arg(&b.sp)
            .arg(&ku)
            .arg(&p)
            .arg(&rc)
            .arg(orh)
            .arg(orl)
            .arg(&rn_u)
            .arg(&tri)
            .arg(&mut tern)
            .arg(&mut und);
        let c = LaunchConfig {
            grid_dim: (
                blocks.clamp(
                    1,
                    if splits == 1 {
                        132 * 64
                    } else {
                        u32::MAX as u64 >> 1
                    },
                ) as u32,
                1,
                1,
            ),
            block_dim: (threads, 1, 1),
            shared_mem_bytes: 0,
        };
        // SAFETY: acc holds splits*nout accumulators and counts, sc the
        // scale buffer of m + n lines, C (when given) m rows of ldc, out
        // nout elements of rn limbs, tern and und nout bytes; the kernel
        // writes sc's undecided count only.
        unsafe { bld.launch(c) }.map_err(launch_err("blas_epi"))?;
    }
    stage("epilogue")?;
    // The undecided count first: the flags only when some are undecided.
    let u = 2 * (m + n);
    // Inside a [`Deferred`] scope the count is read later, with other data.
    let Some(sc) = defer_count(&eng, sc, u, nout) else {
        return Ok(Some((out, tern)));
    };
    let nund = read_word(&eng, &sc.slice(u..u + 1))? as usize;
    stage("count read")?;
    if prof {
        for w in marks.windows(2) {
            let ms = w[0]
                .1
                .elapsed_ms(&w[1].1)
                .map_err(Error::driver("reading an event"))?;
            eprintln!(
                "  blas {}: device {:.1} us (host at {:.1} us)",
                w[1].0,
                ms as f64 * 1e3,
                w[1].2
            );
        }
    }
    let todo: Vec<usize> = if nund == 0 {
        Vec::new()
    } else {
        let flags = memory::download(&eng, &und)?;
        (0..nout).filter(|&o| flags[o] != 0).collect()
    };
    ON_DEVICE.fetch_add((nout - todo.len()) as u64, Ordering::Relaxed);
    ON_HOST.fetch_add(todo.len() as u64, Ordering::Relaxed);
    if !todo.is_empty() {
        host_elements(
            &eng, nf, &todo, a, b, n, k, alpha, beta_c, prec, rnd, tri, &mut out, &mut tern,
        )?;
    }
    Ok(Some((out, tern)))
}

/// The accumulated products of one real product: the scale buffer of its
/// lines (blas.cu's layout), the partial accumulators (blas_fin's layout)
/// and their number per output.
pub(crate) struct Acc {
    pub sc: CudaSlice<u64>,
    pub acc: CudaSlice<u32>,
    pub splits: usize,
}

/// The scales and the fixed-point sums of `op(A) op(B)` (`m x k` times `k
/// x n`, sides `a` and `b`, tier `nf`, `m n > 0`) on the device: the tiled
/// kernel for large outputs, the streaming kernel for thin ones; `stage`
/// marks the stages for MPARRAY_BLAS_PROFILE.
#[allow(clippy::too_many_arguments)]
pub(crate) fn accumulate(
    eng: &Arc<CudaEngine>,
    nf: u32,
    a: Side,
    b: Side,
    m: usize,
    n: usize,
    k: usize,
    stage: &mut dyn FnMut(&'static str) -> Result<()>,
) -> Result<Acc> {
    let nout = m * n;
    let nw = (nf + 2) as usize;
    let sc = scales(eng, nf, a, b, m, n, k)?;
    stage("scales")?;
    let (mu, nu, ku) = (m as u32, n as u32, k as u64);
    // The partial accumulators of S splits of the positions, their counts
    // after them (one buffer).
    let tiles = m.div_ceil(16) * n.div_ceil(16);
    // The tiled kernel's grid holds m / 16 rows of tiles in its y dimension.
    let tiled = m >= 16
        && n >= 16
        && k >= 8
        && m.div_ceil(16) <= 65535
        && std::env::var("MPARRAY_BLAS_STREAM").is_err();
    let (mut acc, splits);
    if tiled {
        let s0 = if tiles >= 264 {
            1
        } else {
            (528 / tiles).clamp(1, (k / 64).max(1))
        };
        let kper = k.div_ceil(s0);
        splits = k.div_ceil(kper);
        let ra = pack(eng, nf, a, m, k, &sc.slice(0..m))?;
        let rb = pack(eng, nf, b, n, k, &sc.slice(m..m + n))?;
        acc = memory::alloc::<u32>(eng, splits * nout * (nw + 1))?;
        let f = eng.function(&inst(nf), "blas_tile")?;
        let kper_u = kper as u64;
        let mut bld = eng.stream().launch_builder(&f);
        bld.arg(&ra)
            .arg(&rb)
            .arg(&mu)
            .arg(&nu)
            .arg(&ku)
            .arg(&kper_u)
            .arg(&mut acc);
        let c = LaunchConfig {
            grid_dim: (n.div_ceil(16) as u32, m.div_ceil(16) as u32, splits as u32),
            block_dim: (16, 16, 1),
            shared_mem_bytes: 0,
        };
        // SAFETY: ra, rb hold m*k and n*k records; acc holds splits*nout
        // accumulators and counts; blocks beyond the shapes write nothing.
        unsafe { bld.launch(c) }.map_err(launch_err("blas_tile"))?;
    } else {
        // Threads of the streaming product: one wave of its 4 blocks of 128
        // per SM on the H200 (2112 partials for dot, not 4096: measured
        // 151 against 156-160 us); MPARRAY_BLAS_TARGET overrides it (for
        // measurements).
        let target: usize = std::env::var("MPARRAY_BLAS_TARGET")
            .ok()
            .and_then(|v| v.parse().ok())
            .unwrap_or(132 * 512);
        let kmajor = a.sp == 1;
        // Split-major (kmajor): S a multiple of 32, a warp per 32 splits,
        // S / 32 partials; else S partials.
        // kmajor: at most target / 32 warps (one wave: gemv 1024 x 1024
        // takes 2 warps per row, 2048 warps, not 3, 3072 in two waves);
        // MPARRAY_BLAS_SPLITCEIL rounds up as before (for measurements).
        let wpo = if std::env::var_os("MPARRAY_BLAS_SPLITCEIL").is_some() {
            (target / 32).div_ceil(nout)
        } else {
            (target / 32) / nout
        };
        // The fewest positions per split (kmajor: per warp-lane round of
        // 32 splits); small outputs with long sums (GMRES's `[V; w] w`,
        // `j + 2` rows of n) and many outputs of short sums (`V^T h`) get
        // more splits (any split gives the same bits: exact integer sums).
        let (kper_w, kper_t) = split_floor();
        let s_all = if kmajor {
            32 * wpo.clamp(1, (k / kper_w).max(1)).min(65535)
        } else {
            target
                .div_ceil(nout)
                .clamp(1, (k / kper_t).max(1))
                .min(65535)
        };
        splits = if kmajor { s_all / 32 } else { s_all };
        // op(B)'s lines converted once when several rows of op(A) use them
        // (gemv's x); MPARRAY_BLAS_NOPACK converts them per product.
        let brec = if m >= 4 && std::env::var_os("MPARRAY_BLAS_NOPACK").is_none() {
            Some(pack(eng, nf, b, n, k, &sc.slice(m..m + n))?)
        } else {
            None
        };
        acc = memory::alloc::<u32>(eng, splits * nout * (nw + 1))?;
        let f = eng.function(&inst(nf), "blas_stream")?;
        let (la, lb) = (
            a.f.limbs_per_element() as u32,
            b.f.limbs_per_element() as u32,
        );
        let (s_u, km) = (s_all as u32, kmajor as u32);
        // MPARRAY_BLAS_NOPIPE: single-buffered staging (for measurements).
        // MPARRAY_BLAS_NOSTAGEX: x's records read with __ldg, not staged (bit 3).
        let pipe = std::env::var_os("MPARRAY_BLAS_NOPIPE").is_none() as u32
            | dbg_bits()
            | ((std::env::var_os("MPARRAY_BLAS_NOSTAGEX").is_some() as u32) << 3)
            | pf_rounds(STREAM_PF) << 4;
        let (ah, al) = a.f.raw_parts();
        let (bh, bl) = b.f.raw_parts();
        let mut bld = eng.stream().launch_builder(&f);
        bld.arg(ah)
            .arg(al)
            .arg(&la)
            .arg(&a.sl)
            .arg(&a.sp)
            .arg(bh)
            .arg(bl)
            .arg(&lb)
            .arg(&b.sl)
            .arg(&b.sp)
            .arg(&sc)
            .arg(&mu)
            .arg(&nu)
            .arg(&ku)
            .arg(&s_u)
            .arg(&km)
            .arg(&pipe);
        let null: u64 = 0;
        match &brec {
            Some(r) => bld.arg(r),
            None => bld.arg(&null),
        };
        bld.arg(&mut acc);
        // SAFETY: as above; acc holds splits*nout accumulators and counts;
        // brec (or a null pointer) n*k records.
        unsafe { bld.launch(cfg(((s_all * nout) as u64).div_ceil(128), 128)) }
            .map_err(launch_err("blas_stream"))?;
    }
    Ok(Acc { sc, acc, splits })
}

/// The streaming product's fewest positions per split: (kmajor, per warp
/// of 32 splits; other, per split). 64 and 4 by default (256 and 16 before
/// 2026-12-03: the small products of GMRES ran on a few blocks);
/// `MPARRAY_BLAS_SPLITOLD=1` restores 256 and 16 (for measurements).
pub(crate) fn split_floor() -> (usize, usize) {
    static F: std::sync::OnceLock<(usize, usize)> = std::sync::OnceLock::new();
    *F.get_or_init(|| {
        if std::env::var_os("MPARRAY_BLAS_SPLITOLD").is_some_and(|v| v == "1") {
            (256, 16)
        } else {
            (64, 4)
        }
    })
}

/// Computes the output elements `todo` on the host with the exact core and
/// writes them into `out` and `tern` on the device.
#[allow(clippy::too_many_arguments)]
fn host_elements(
    eng: &Arc<CudaEngine>,
    nf: u32,
    todo: &[usize],
    a: Side,
    b: Side,
    n: usize,
    k: usize,
    alpha: Option<&CudaFloats>,
    beta_c: Option<(&CudaFloats, &CudaFloats, usize)>,
    prec: u64,
    rnd: Round,
    tri: u32,
    out: &mut CudaFloats,
    tern: &mut CudaSlice<i8>,
) -> Result<()> {
    let al = match alpha {
        Some(x) => x.to_host()?,
        None => CpuFloats::from_f64s(64, &[1.0], Round::Nearest)?.0,
    };
    let (ah, bh): (CpuFloats, CpuFloats) = (a.f.to_host()?, b.f.to_host()?);
    let bc = match beta_c {
        Some((be, c, ldc)) => Some((be.to_host()?, c.to_host()?, ldc)),
        None => None,
    };
    let rn = check_prec(prec)?;
    let cnt = todo.len();
    let mut tags = vec![0u8; cnt];
    let mut exps = vec![0i64; cnt];
    let mut limbs = vec![0u64; cnt * rn];
    let mut terns = vec![0i8; cnt];
    tags.par_iter_mut()
        .zip(exps.par_iter_mut())
        .zip(limbs.par_chunks_mut(rn))
        .zip(terns.par_iter_mut())
        .enumerate()
        .for_each(|(x, (((tag, exp), m), t))| {
            let (i, j) = (todo[x] / n, todo[x] % n);
            let mut terms = Terms::new();
            let outside = (tri == 1 && i > j) || (tri == 2 && i < j);
            if outside {
                if let Some((_, c, ldc)) = &bc {
                    terms.push(&[&c.get(i * ldc + j)], false);
                }
            } else {
                let al = al.get(0);
                for kk in 0..k {
                    terms.push(&[&al, &ah.get(a.at(i, kk)), &bh.get(b.at(j, kk))], false);
                }
                if let Some((be, c, ldc)) = &bc {
                    terms.push(&[&be.get(0), &c.get(i * ldc + j)], false);
                }
            }
            let mut o = Out { tag, exp, m };
            *t = terms.sum(&mut o, prec, rnd);
        });
    let heads: Vec<u64> = tags
        .iter()
        .zip(&exps)
        .map(|(&t, &e)| ((e as u64) << 8) | t as u64)
        .collect();
    let idx: Vec<u64> = todo.iter().map(|&o| o as u64).collect();
    let (d_idx, d_h, d_l, d_t) = (
        memory::upload(eng, &idx)?,
        memory::upload(eng, &heads)?,
        memory::upload(eng, &limbs)?,
        memory::upload(eng, &terns)?,
    );
    let f = eng.function(&inst(nf), "blas_scatter")?;
    let (count, rn_u) = (cnt as u64, rn as u32);
    let (rh, rl) = out.raw_parts_mut();
    let mut bld = eng.stream().launch_builder(&f);
    bld.arg(&d_idx)
        .arg(&d_h)
        .arg(&d_l)
        .arg(&d_t)
        .arg(&count)
        .arg(rh)
        .arg(rl)
        .arg(&rn_u)
        .arg(tern);
    // SAFETY: the indices are outputs (< nout); the buffers hold cnt items.
    unsafe { bld.launch(cfg(count.div_ceil(128), 128)) }.map_err(launch_err("blas_scatter"))?;
    Ok(())
}

/// The line and position strides of op(A)'s rows (`rows = true`) or
/// op(B)'s columns in a row-major matrix of leading dimension `ld`.
pub(super) fn strides(op: Op, ld: usize, rows: bool) -> (i64, i64) {
    let ld = ld as i64;
    match (op == Op::None, rows) {
        (true, true) | (false, false) => (ld, 1),
        _ => (1, ld),
    }
}

/// A device result as arrays.
pub(super) fn wrap(r: (CudaFloats, CudaSlice<i8>)) -> WithTernary {
    let len = r.0.len();
    let eng = r.0.engine().clone();
    (FloatArray::from(r.0), TernaryArray::cuda(&eng, r.1, len))
}

/// `alpha*op(A)*op(B) + beta*C` on the device when every operand is a
/// CUDA array and the case is served (else None); `tri` as in [`product`].
#[allow(clippy::too_many_arguments)]
pub(crate) fn gemm(
    a: &Matrix<FloatArray>,
    op_a: Op,
    b: &Matrix<FloatArray>,
    op_b: Op,
    alpha: &FloatArray,
    beta_c: Option<(&FloatArray, &Matrix<FloatArray>)>,
    (m, n, k): (usize, usize, usize),
    prec: u64,
    rnd: Round,
    tri: u32,
) -> Result<Option<WithTernary>> {
    let (Some(ad), Some(bd), Some(ald)) = (a.data().device(), b.data().device(), alpha.device())
    else {
        return Ok(None);
    };
    let bc = match beta_c {
        Some((be, c)) => match (be.device(), c.data().device()) {
            (Some(x), Some(y)) => Some((x, y, c.ld())),
            _ => return Ok(None),
        },
        None => None,
    };
    let (sla, spa) = strides(op_a, a.ld(), true);
    let (slb, spb) = strides(op_b, b.ld(), false);
    let sa = Side {
        f: ad,
        sl: sla,
        sp: spa,
    };
    let sb = Side {
        f: bd,
        sl: slb,
        sp: spb,
    };
    Ok(product(sa, sb, m, n, k, Some(ald), bc, prec, rnd, tri)?.map(wrap))
}

/// `alpha*op(A)*x + beta*y` on the device (see [`gemm`]).
#[allow(clippy::too_many_arguments)]
pub(crate) fn gemv(
    a: &Matrix<FloatArray>,
    op: Op,
    alpha: &FloatArray,
    x: &FloatArray,
    beta_y: Option<(&FloatArray, &FloatArray)>,
    (m, k): (usize, usize),
    prec: u64,
    rnd: Round,
) -> Result<Option<WithTernary>> {
    let (Some(ad), Some(xd), Some(ald)) = (a.data().device(), x.device(), alpha.device()) else {
        return Ok(None);
    };
    let bc = match beta_y {
        Some((be, y)) => match (be.device(), y.device()) {
            (Some(p), Some(q)) => Some((p, q, 1)),
            _ => return Ok(None),
        },
        None => None,
    };
    let (sl, sp) = strides(op, a.ld(), true);
    let sa = Side { f: ad, sl, sp };
    let sx = Side {
        f: xd,
        sl: 0,
        sp: 1,
    };
    // MPARRAY_BLAS_GEMVOLD: the general path (scales, streaming product,
    // blas_fin), for comparison.
    if std::env::var_os("MPARRAY_BLAS_GEMVOLD").is_none()
        && let Some(r) = gemv_rows(sa, xd, m, k, ald, bc, prec, rnd)?
    {
        return Ok(Some(wrap(r)));
    }
    Ok(product(sa, sx, m, 1, k, Some(ald), bc, prec, rnd, 0)?.map(wrap))
}

/// `alpha*A*x + beta*y` with A's rows contiguous (`a.sp == 1`), a block
/// per row (`blas_gvx`: x's scale and records; `blas_gemv`: each row's
/// scale, products, sum and epilogue) and one read of the undecided
/// status; the host's exact core for the undecided rows. At tier 18 with A
/// of 8 limbs the rows go to the int8 tensor cores instead ([`gemv_mma`],
/// unless `MPARRAY_BLAS_MMA=0`). None where this path does not serve the
/// case (the caller takes [`product`]): tiers above 18 words, `k > 2^16`,
/// A's rows not contiguous. The buffers, a mapped host word and the next
/// call's output come from a per-call workspace ([`GemvWs`]); the last row
/// to finish writes the status into the mapped word, which the host polls
/// (no copy from the device). `MPARRAY_BLAS_GVDBG` (bit 0: without bl_mac,
/// 1: without the epilogue, 2: without the products; wrong results) is for
/// measurements only, as are the switches of [`gemv_env`].
#[allow(clippy::too_many_arguments)]
fn gemv_rows(
    a: Side,
    x: &CudaFloats,
    m: usize,
    k: usize,
    alpha: &CudaFloats,
    beta_c: Option<(&CudaFloats, &CudaFloats, usize)>,
    prec: u64,
    rnd: Round,
) -> Result<Option<(CudaFloats, CudaSlice<i8>)>> {
    let rn = check_prec(prec)?;
    let ls = beta_c.map_or(0, |(be, c, _)| {
        be.limbs_per_element().max(c.limbs_per_element())
    });
    let ls = ls.max(alpha.limbs_per_element());
    let Some(nf) = tier_for(prec, k, ls) else {
        return Ok(None);
    };
    let wide = a.f.limbs_per_element().max(x.limbs_per_element()) >= 1 << 24;
    if nf > 18 || a.sp != 1 || m == 0 || k == 0 || k > 1 << 16 || m > i32::MAX as usize || wide {
        return Ok(None);
    }
    let eng = a.f.engine().clone();
    let env = gemv_env();
    let mut prof = Prof::new();
    prof.mark(&eng, "start")?;
    let wss = eng.resource("blas gemv workspaces", |_| Ok(Pool::<GemvWs>::default()))?;
    let mut ws = wss.take().unwrap_or_default();
    if env.nocache {
        ws.drop_buffers();
    }
    // Inside an active [`Deferred`] scope the count is kept (in a header of
    // this call's own) for the scope's read; else the status comes through
    // the mapped word.
    let deferring = defer_active();
    let mapped = !deferring && !env.nomap && ws.word.map(&eng)?;
    let (hst, seq) = if mapped { ws.word.next() } else { (0u64, 0u32) };
    let mut hdr = match ws.hdr.take() {
        Some(h) if !deferring => h,
        _ => memory::alloc::<u64>(&eng, 4)?,
    };
    let la = a.f.limbs_per_element();
    let nsl = k.div_ceil(MMA_KS);
    let mode = mma_mode();
    let mma = mode > 0 && nf == 18 && la == 8 && nsl * m * MMA_PART <= 1 << 26;
    // The output: the one made during the previous call (same shape and
    // precision), else new.
    let (mut out, mut tern) = match ws.spare.take() {
        Some((p, n, o, t)) if p == prec && n == m => (o, t),
        _ => (
            CudaFloats::uninit(&eng, m, prec)?,
            memory::alloc::<i8>(&eng, m)?,
        ),
    };
    // The fused preparation (modes 2, 3) converts x inside blas_gmp.
    if !(mma && mode >= 2) {
        let rec = ((nf + 1 + 3) & !3) as usize;
        let xrec = ws_buf(&mut ws.xrec, &eng, k * rec)?;
        let f = eng.function(&inst(nf), "blas_gvx")?;
        let (xh, xl) = x.raw_parts();
        let (lx, k_u) = (x.limbs_per_element() as u32, k as u64);
        let mut bld = eng.stream().launch_builder(&f);
        bld.arg(xh)
            .arg(xl)
            .arg(&lx)
            .arg(&k_u)
            .arg(&mut hdr)
            .arg(xrec);
        let c = LaunchConfig {
            grid_dim: (1, 1, 1),
            block_dim: (1024, 1, 1),
            shared_mem_bytes: 0,
        };
        // SAFETY: x holds k elements; hdr 4 words; xrec k records.
        unsafe { bld.launch(c) }.map_err(launch_err("blas_gvx"))?;
    }
    prof.mark(&eng, "x")?;
    ws_buf(&mut ws.und, &eng, m)?;
    if mma {
        gemv_mma(
            &eng,
            a,
            x,
            (m, k, mode),
            &mut hdr,
            &mut ws,
            (hst, seq),
            alpha,
            beta_c,
            prec,
            rnd,
            (&mut out, &mut tern),
            &mut prof,
        )?;
    } else {
        let f = eng.function(&inst(nf), "blas_gemv")?;
        let (ah, al) = a.f.raw_parts();
        let la = a.f.limbs_per_element() as u32;
        let (alh, alm) = alpha.raw_parts();
        let lal = alpha.limbs_per_element() as u32;
        let (beh, bem, lbe, chd, clb, lc, has_c) = epilogue_operands(alpha, beta_c);
        let dbg = gemv_dbg() & 7;
        let pipe = std::env::var_os("MPARRAY_BLAS_NOPIPE").is_none() as u32 | (dbg << 1);
        let (k_u, rc, rn_u) = (k as u64, round_code(rnd), rn as u32);
        let (orh, orl) = out.raw_parts_mut();
        let GemvWs { xrec, und, .. } = &mut ws;
        let (xrec, und) = (
            xrec.as_ref().expect("allocated above"),
            und.as_mut().expect("allocated above"),
        );
        let mut bld = eng.stream().launch_builder(&f);
        bld.arg(ah)
            .arg(al)
            .arg(&la)
            .arg(&a.sl)
            .arg(x.raw_parts().0)
            .arg(&k_u)
            .arg(xrec)
            .arg(&mut hdr)
            .arg(alh)
            .arg(alm)
            .arg(&lal)
            .arg(beh)
            .arg(bem)
            .arg(&lbe)
            .arg(&has_c)
            .arg(chd)
            .arg(clb)
            .arg(&lc)
            .arg(&prec)
            .arg(&rc)
            .arg(orh)
            .arg(orl)
            .arg(&rn_u)
            .arg(&mut tern)
            .arg(und)
            .arg(&pipe)
            .arg(&hst)
            .arg(&seq);
        let c = LaunchConfig {
            grid_dim: (m as u32, 1, 1),
            block_dim: (64, 1, 1),
            shared_mem_bytes: 0,
        };
        // SAFETY: row i's k positions at i*sl (contiguous) index A; xrec
        // holds k records; y (when given) m elements; out m elements of rn
        // limbs, tern and und at least m bytes; hdr 4 words; hst is 0 or
        // the device address of the mapped host word.
        unsafe { bld.launch(c) }.map_err(launch_err("blas_gemv"))?;
    }
    prof.mark(&eng, "rows")?;
    if mapped {
        let ev = ws.word.ev.as_ref().expect("set by map");
        ev.record(eng.stream())
            .map_err(Error::driver("recording an event"))?;
    }
    // The next call's output, allocated while the kernels run
    // (stream-ordered after them).
    if !env.nocache && m.saturating_mul(8 + 8 * rn) <= GEMV_KEEP_BYTES {
        ws.spare = Some((
            prec,
            m,
            CudaFloats::uninit(&eng, m, prec)?,
            memory::alloc::<i8>(&eng, m)?,
        ));
    }
    // Inside a [`Deferred`] scope the count is read later, with other data;
    // the workspace serves the next call at once (stream order).
    if deferring {
        match defer_count(&eng, hdr, 2, m) {
            None => {
                ws.trim();
                wss.give(ws);
                return Ok(Some((out, tern)));
            }
            // The scope ended in between (cannot happen on one thread):
            // the count is read now (by a copy: nothing was mapped).
            Some(h) => hdr = h,
        }
    }
    let any = match (mapped, ws.word.host.as_ref(), ws.word.ev.as_ref()) {
        (true, Some(h), Some(ev)) => poll_mapped("gemv's undecided count", h, seq, ev)? != 0,
        _ => {
            eng.stream()
                .clone_dtoh(&hdr.slice(2..3))
                .map_err(Error::driver("copying from the device"))?[0]
                != 0
        }
    };
    prof.mark(&eng, "count read")?;
    prof.print()?;
    let todo: Vec<usize> = if !any {
        Vec::new()
    } else {
        let flags = memory::download(&eng, ws.und.as_ref().expect("allocated above"))?;
        (0..m).filter(|&o| flags[o] != 0).collect()
    };
    // The status arrived (the last row has finished): the workspace serves
    // the next call (an error above drops it).
    ws.hdr = Some(hdr);
    ws.trim();
    wss.give(ws);
    count((m - todo.len()) as u64, todo.len() as u64);
    if !todo.is_empty() {
        let sx = Side { f: x, sl: 0, sp: 1 };
        host_elements(
            &eng,
            nf,
            &todo,
            a,
            sx,
            1,
            k,
            Some(alpha),
            beta_c,
            prec,
            rnd,
            0,
            &mut out,
            &mut tern,
        )?;
    }
    Ok(Some((out, tern)))
}

/// [`gemv_rows`]' switches, read once per process (measurements only):
/// `MPARRAY_BLAS_NOMAP` (the status by a copy of the count, as before the
/// mapped word), `MPARRAY_BLAS_NOCACHE` (new buffers and output every
/// call, as before the workspaces), `MPARRAY_BLAS_GVEPI` (`blas_gmf`'s
/// epilogue, the same bits: 2, the default, by the whole warp; 0 by one
/// thread, `bl_gv_epi`; 3 the warp's checked against `bl_gv_epi`, a line
/// on stdout for each row where they differ; 4 the warp's with the
/// rounding by one thread, `fl_round_to`; 5: 4 checked).
struct GemvEnv {
    nomap: bool,
    nocache: bool,
    epi: u32,
}

fn gemv_env() -> &'static GemvEnv {
    static ENV: std::sync::OnceLock<GemvEnv> = std::sync::OnceLock::new();
    ENV.get_or_init(|| {
        let on = |v: &str| std::env::var_os(v).is_some();
        GemvEnv {
            nomap: on("MPARRAY_BLAS_NOMAP"),
            nocache: on("MPARRAY_BLAS_NOCACHE"),
            epi: std::env::var("MPARRAY_BLAS_GVEPI")
                .ok()
                .and_then(|v| v.parse().ok())
                .unwrap_or(2),
        }
    })
}

/// A page-locked host word mapped into the device, into which a kernel
/// writes `(seq << 1) | status`, and an event recorded after the kernel
/// (tells a finished kernel from a slow one).
#[derive(Default)]
struct MappedWord {
    host: Option<cudarc::driver::PinnedHostSlice<u32>>,
    /// The word's device address.
    dev: u64,
    /// The last call's sequence number (1 ... 2^30).
    seq: u32,
    ev: Option<cudarc::driver::CudaEvent>,
    /// Mapping failed once: the status goes by a copy.
    nomap: bool,
}

impl MappedWord {
    /// Maps the host word (once); false where the driver cannot.
    fn map(&mut self, eng: &CudaEngine) -> Result<bool> {
        if self.host.is_some() {
            return Ok(true);
        }
        if self.nomap {
            return Ok(false);
        }
        let ctx = eng.context();
        // SAFETY: the word is written below before anything reads it.
        let mapped = unsafe {
            ctx.alloc_pinned_with_flags::<u32>(1, cudarc::driver::sys::CU_MEMHOSTALLOC_DEVICEMAP)
        };
        let Ok(mut h) = mapped else {
            self.nomap = true;
            return Ok(false);
        };
        let p = h
            .as_mut_ptr()
            .map_err(Error::driver("page-locked host memory"))?;
        // SAFETY: p is the allocation's one word.
        unsafe { std::ptr::write_volatile(p, 0) };
        let mut dev: cudarc::driver::sys::CUdeviceptr = 0;
        ctx.bind_to_thread()
            .map_err(Error::driver("binding the context"))?;
        // SAFETY: p was allocated by cuMemHostAlloc with DEVICEMAP.
        let r = unsafe { cudarc::driver::sys::cuMemHostGetDevicePointer_v2(&mut dev, p.cast(), 0) };
        if r != cudarc::driver::sys::CUresult::CUDA_SUCCESS || dev == 0 {
            self.nomap = true;
            return Ok(false);
        }
        self.ev = Some(wait_event(eng)?);
        self.host = Some(h);
        self.dev = dev;
        Ok(true)
    }

    /// The next call's sequence number (1 ... 2^30, then 1 again) and the
    /// word's device address, for the kernel that writes the status.
    fn next(&mut self) -> (u64, u32) {
        self.seq = if self.seq >= 1 << 30 { 1 } else { self.seq + 1 };
        (self.dev, self.seq)
    }
}

/// Waits for the status with sequence number `seq` in the mapped word `h`
/// ([`pool::wait_for`]: a bounded spin, then a sleeping wait on `ev`;
/// `what` names the status in its errors). `ev` (recorded after the kernel
/// that writes the word) completes only after the word is written, so a
/// completed event without it is an error, never a wait.
fn poll_mapped(
    what: &str,
    h: &cudarc::driver::PinnedHostSlice<u32>,
    seq: u32,
    ev: &cudarc::driver::CudaEvent,
) -> Result<u32> {
    let p = h
        .as_ptr()
        .map_err(Error::driver("page-locked host memory"))?;
    // SAFETY: p is the allocation's one word, written by the device.
    let read = || {
        let v = unsafe { std::ptr::read_volatile(p) };
        (v >> 1 == seq).then_some(v & 1)
    };
    let mut polls = 0u32;
    pool::wait_for(
        what,
        pool::stall_limit(),
        || {
            if let Some(r) = read() {
                return Ok(Some(r));
            }
            polls = polls.wrapping_add(1);
            if polls.is_multiple_of(64)
                && ev
                    .try_is_complete()
                    .map_err(Error::driver("waiting for the device"))?
            {
                return read().map(Some).ok_or_else(|| {
                    Error::DeviceWait(format!("{what}: the kernel finished without writing it"))
                });
            }
            Ok(None)
        },
        || {
            ev.synchronize()
                .map_err(Error::driver("waiting for the device"))
        },
    )
}

/// One call's state of [`gemv_rows`], kept in the engine's pool "blas gemv
/// workspaces" between calls (a call owns it from before its launches to
/// after its status read; inside a [`Deferred`] scope, until its launches
/// are queued, the header being the call's own): the header (x's scale and
/// flag, the undecided count, the rows' ticket; reset by the first kernel),
/// x's records, the row scales, x's forms, the slices' sums, the flags, the
/// mapped status word and an output for the next call. Buffers only grow;
/// the kernels use their first items.
#[derive(Default)]
struct GemvWs {
    hdr: Option<CudaSlice<u64>>,
    xrec: Option<CudaSlice<u32>>,
    rse: Option<CudaSlice<u64>>,
    xr: Option<CudaSlice<u32>>,
    xt: Option<CudaSlice<u32>>,
    xm: Option<CudaSlice<u32>>,
    part: Option<CudaSlice<u32>>,
    und: Option<CudaSlice<u8>>,
    word: MappedWord,
    /// An output (precision, length, the elements, their ternaries) for
    /// the next call.
    spare: Option<(u64, usize, CudaFloats, CudaSlice<i8>)>,
}

/// Bytes of one buffer (or the spare output) that [`GemvWs`] keeps for
/// the next call; larger ones are freed at the end of their call, as
/// before the workspaces (a pool of up to 16 workspaces must not hold on
/// to the slice sums of a large gemv).
const GEMV_KEEP_BYTES: usize = 8 << 20;

impl GemvWs {
    /// Frees the buffers (and the spare output) above [`GEMV_KEEP_BYTES`].
    fn trim(&mut self) {
        fn drop_big<T>(b: &mut Option<CudaSlice<T>>) {
            if b.as_ref()
                .is_some_and(|b| b.len() * std::mem::size_of::<T>() > GEMV_KEEP_BYTES)
            {
                *b = None;
            }
        }
        drop_big(&mut self.xrec);
        drop_big(&mut self.rse);
        drop_big(&mut self.xr);
        drop_big(&mut self.xt);
        drop_big(&mut self.xm);
        drop_big(&mut self.part);
        drop_big(&mut self.und);
        if self.spare.as_ref().is_some_and(|(p, n, _, _)| {
            n.saturating_mul(8 + 8 * p.div_ceil(64) as usize) > GEMV_KEEP_BYTES
        }) {
            self.spare = None;
        }
    }

    /// Drops every buffer but the mapped word (`MPARRAY_BLAS_NOCACHE`).
    fn drop_buffers(&mut self) {
        let word = std::mem::take(&mut self.word);
        *self = GemvWs {
            word,
            ..GemvWs::default()
        };
    }
}

/// The buffer in `slot`, (re)allocated when it holds fewer than `n` items.
fn ws_buf<'a, T: cudarc::driver::DeviceRepr>(
    slot: &'a mut Option<CudaSlice<T>>,
    eng: &Arc<CudaEngine>,
    n: usize,
) -> Result<&'a mut CudaSlice<T>> {
    if slot.as_ref().is_none_or(|b| b.len() < n) {
        *slot = None;
        *slot = Some(memory::alloc::<T>(eng, n)?);
    }
    Ok(slot.as_mut().expect("allocated above"))
}

/// Positions per slice of `blas_gmm` (blas.cu's BL_MKS), words per row
/// and slice of its partial sums (BL_MPART), rows per block (BL_MROWS)
/// and its dynamic shared memory.
const MMA_KS: usize = 64;
const MMA_PART: usize = 21;
const MMA_ROWS: usize = 64;
/// Rows per block of `blas_gmr` and of `blas_gmp`'s row blocks (BL_GRB).
const GMR_ROWS: usize = 2;
const MMA_SMEM: u32 = (64 * 152 + 16 * 72 + 64 + 3 * 64 * 68) * 4 + 3 * 64 * 4 * 8;
/// `blas_gmm5`'s (5 stages, x's copies staged with A).
const MMA_SMEM5: u32 = (5 * 4 * 152 + 16 * 72 + 64 + 5 * 64 * 68) * 4 + 5 * 64 * 4 * 8;

/// Whether gemv takes the int8 tensor-core path where it serves the case
/// (`MPARRAY_BLAS_MMA`: 0 off (the block-per-row `blas_gemv`); 1 separate
/// launches for x's forms and the row scales; 2, the default, one launch
/// for both (`blas_gmp`); 3 as 2 with `blas_gmm5`, x's copies staged with
/// A through 5 stages; notes/blas-cuda.md has the figures of each).
fn mma_mode() -> u32 {
    match std::env::var("MPARRAY_BLAS_MMA").as_deref() {
        Ok("0") => 0,
        Ok("1") => 1,
        Ok("3") => 3,
        _ => 2,
    }
}

/// The rows of [`gemv_rows`] on the int8 tensor cores (tier 18, A of 8
/// limbs; notes/blas-cuda.md "GEMV on int8 tensor cores"): `blas_gmp` (x's
/// forms and each row's scale and special flag; mode 1: `blas_gmr` and
/// `blas_gmx` from `blas_gvx`'s records), `blas_gmm` (the products per
/// slice of 64 positions, each row's signed slice sum and count),
/// `blas_gmf` (the slices' sum and the epilogue, `blas_gemv`'s rules; the
/// last row writes the status into the mapped word `hst`, 0: none): the
/// same elements, ternaries and flags as `blas_gemv` where both decide.
/// The buffers come from `ws` (its `und` already allocated for m rows).
#[allow(clippy::too_many_arguments)]
fn gemv_mma(
    eng: &Arc<CudaEngine>,
    a: Side,
    x: &CudaFloats,
    (m, k, mode): (usize, usize, u32),
    hdr: &mut CudaSlice<u64>,
    ws: &mut GemvWs,
    (hst, seq): (u64, u32),
    alpha: &CudaFloats,
    beta_c: Option<(&CudaFloats, &CudaFloats, usize)>,
    prec: u64,
    rnd: Round,
    (out, tern): (&mut CudaFloats, &mut CudaSlice<i8>),
    prof: &mut Prof,
) -> Result<()> {
    MMA_CALLS.fetch_add(1, Ordering::Relaxed);
    let nf = 18u32;
    let kp = k.div_ceil(MMA_KS) * MMA_KS;
    let nsl = kp / MMA_KS;
    let (ah, al) = a.f.raw_parts();
    let (m_u, k_u, kp_u, nsl_u) = (m as u64, k as u64, kp as u64, nsl as u64);
    ws_buf(&mut ws.rse, eng, 2 * m)?;
    ws_buf(&mut ws.xr, eng, kp * 152)?;
    ws_buf(&mut ws.xt, eng, kp / 4 * 72)?;
    ws_buf(&mut ws.xm, eng, kp)?;
    ws_buf(&mut ws.part, eng, nsl * m * MMA_PART)?;
    let GemvWs {
        xrec,
        rse,
        xr,
        xt,
        xm,
        part,
        und,
        ..
    } = ws;
    let (rse, xr, xt, xm, part, und) = (
        rse.as_mut().expect("allocated above"),
        xr.as_mut().expect("allocated above"),
        xt.as_mut().expect("allocated above"),
        xm.as_mut().expect("allocated above"),
        part.as_mut().expect("allocated above"),
        und.as_mut().expect("allocated by the caller"),
    );
    if mode >= 2 {
        let f = eng.function(&inst(nf), "blas_gmp")?;
        let (xh, xl) = x.raw_parts();
        let lx = x.limbs_per_element() as u32;
        let mut bld = eng.stream().launch_builder(&f);
        bld.arg(xh)
            .arg(xl)
            .arg(&lx)
            .arg(&k_u)
            .arg(&kp_u)
            .arg(&mut *hdr)
            .arg(&mut *xr)
            .arg(&mut *xt)
            .arg(&mut *xm)
            .arg(ah)
            .arg(&a.sl)
            .arg(&m_u)
            .arg(&mut *rse);
        let c = LaunchConfig {
            grid_dim: ((kp / 64 + m.div_ceil(GMR_ROWS)) as u32, 1, 1),
            block_dim: (256, 1, 1),
            shared_mem_bytes: 0,
        };
        // SAFETY: x holds k elements, hdr 4 words; xr, xt, xm at least kp
        // positions; row i's k heads at i*sl; rse at least 2m words.
        unsafe { bld.launch(c) }.map_err(launch_err("blas_gmp"))?;
        prof.mark(eng, "mma x and row scales")?;
    } else {
        {
            let f = eng.function(&inst(nf), "blas_gmr")?;
            let mut bld = eng.stream().launch_builder(&f);
            bld.arg(ah).arg(&a.sl).arg(&m_u).arg(&k_u).arg(&mut *rse);
            let c = LaunchConfig {
                grid_dim: (m.div_ceil(GMR_ROWS) as u32, 1, 1),
                block_dim: (256, 1, 1),
                shared_mem_bytes: 0,
            };
            // SAFETY: row i's k heads at i*sl; rse at least 2m words.
            unsafe { bld.launch(c) }.map_err(launch_err("blas_gmr"))?;
        }
        prof.mark(eng, "mma row scales")?;
        let f = eng.function(&inst(nf), "blas_gmx")?;
        let xrec = xrec.as_ref().expect("blas_gvx's records");
        let mut bld = eng.stream().launch_builder(&f);
        bld.arg(xrec)
            .arg(&k_u)
            .arg(&kp_u)
            .arg(&mut *xr)
            .arg(&mut *xt)
            .arg(&mut *xm);
        let c = LaunchConfig {
            grid_dim: ((kp / 64) as u32, 1, 1),
            block_dim: (256, 1, 1),
            shared_mem_bytes: 0,
        };
        // SAFETY: xrec holds k records; xr, xt, xm at least kp positions.
        unsafe { bld.launch(c) }.map_err(launch_err("blas_gmx"))?;
        prof.mark(eng, "mma x forms")?;
    }
    {
        let (name, smem) = if mode == 3 {
            ("blas_gmm5", MMA_SMEM5)
        } else {
            ("blas_gmm", MMA_SMEM)
        };
        let f = eng.function(&inst(nf), name)?;
        f.set_attribute(
            CUfunction_attribute::CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES,
            smem as i32,
        )
        .map_err(Error::driver("raising the shared-memory limit of blas_gmm"))?;
        let mut bld = eng.stream().launch_builder(&f);
        bld.arg(ah)
            .arg(al)
            .arg(&a.sl)
            .arg(&m_u)
            .arg(&k_u)
            .arg(&*rse)
            .arg(&*xr)
            .arg(&*xt)
            .arg(&*xm)
            .arg(&mut *part);
        let c = LaunchConfig {
            grid_dim: (m.div_ceil(MMA_ROWS) as u32, nsl as u32, 1),
            block_dim: (128, 1, 1),
            shared_mem_bytes: smem,
        };
        // SAFETY: rows below m of k positions at i*sl (contiguous, 8 limbs
        // each); x's forms of at least kp positions; part at least nsl*m
        // records.
        unsafe { bld.launch(c) }.map_err(launch_err(name))?;
    }
    prof.mark(eng, "mma products")?;
    {
        let f = eng.function(&inst(nf), "blas_gmf")?;
        let (alh, alm) = alpha.raw_parts();
        let lal = alpha.limbs_per_element() as u32;
        let (beh, bem, lbe, chd, clb, lc, has_c) = epilogue_operands(alpha, beta_c);
        let rn_u = out.limbs_per_element() as u32;
        let rc = round_code(rnd);
        // MPARRAY_BLAS_GVDBG bit 1: without the epilogue (as blas_gemv's);
        // bit 2: the one-thread epilogue, bit 3: the warp's checked, bit 4:
        // the warp's with the rounding by one thread (MPARRAY_BLAS_GVEPI 0,
        // 3, 4, 5).
        let epi = match gemv_env().epi {
            0 => 4,
            3 => 8,
            4 => 16,
            5 => 8 | 16,
            _ => 0,
        };
        let dbg = gemv_dbg() & 2 | epi;
        let (orh, orl) = out.raw_parts_mut();
        let mut bld = eng.stream().launch_builder(&f);
        bld.arg(&*part)
            .arg(&nsl_u)
            .arg(&m_u)
            .arg(&*rse)
            .arg(ah)
            .arg(&a.sl)
            .arg(x.raw_parts().0)
            .arg(&k_u)
            .arg(hdr)
            .arg(alh)
            .arg(alm)
            .arg(&lal)
            .arg(beh)
            .arg(bem)
            .arg(&lbe)
            .arg(&has_c)
            .arg(chd)
            .arg(clb)
            .arg(&lc)
            .arg(&prec)
            .arg(&rc)
            .arg(orh)
            .arg(orl)
            .arg(&rn_u)
            .arg(tern)
            .arg(und)
            .arg(&dbg)
            .arg(&hst)
            .arg(&seq);
        let c = LaunchConfig {
            grid_dim: (m as u32, 1, 1),
            block_dim: (32, 1, 1),
            shared_mem_bytes: 0,
        };
        // SAFETY: part holds at least nsl*m records; rse 2m words; row i's
        // heads at i*sl; y (when given) m elements; out m elements, tern
        // and und at least m bytes; hdr 4 words; hst is 0 or the device
        // address of the mapped host word.
        unsafe { bld.launch(c) }.map_err(launch_err("blas_gmf"))?;
    }
    prof.mark(eng, "mma sum + epilogue")?;
    Ok(())
}

/// `sum x[i] y[i]` on the device (see [`gemm`]).
pub(crate) fn dot(
    x: &FloatArray,
    y: &FloatArray,
    prec: u64,
    rnd: Round,
) -> Result<Option<WithTernary>> {
    let (Some(xd), Some(yd)) = (x.device(), y.device()) else {
        return Ok(None);
    };
    let sx = Side {
        f: xd,
        sl: 0,
        sp: 1,
    };
    let sy = Side {
        f: yd,
        sl: 0,
        sp: 1,
    };
    if std::env::var_os("MPARRAY_BLAS_NOFUSE").is_none()
        && let Some(r) = dot_fused(sx, sy, x.len(), prec, rnd)?
    {
        return Ok(Some(wrap(r)));
    }
    Ok(product(sx, sy, 1, 1, x.len(), None, None, prec, rnd, 0)?.map(wrap))
}

/// MPARRAY_BLAS_DBG (1: without the products' bl_mac, 2: without the
/// conversions, 3: neither; wrong results, for measurements only) as the
/// streaming kernels' `pipe` bits 1 and 2.
fn dbg_bits() -> u32 {
    std::env::var("MPARRAY_BLAS_DBG")
        .ok()
        .and_then(|v| v.parse::<u32>().ok())
        .map_or(0, |d| (d & 3) << 1)
}

/// Device events between the stages of one call, printed on stderr when
/// `MPARRAY_BLAS_PROFILE` is set (with the host's time to each mark).
struct Prof {
    on: bool,
    t0: std::time::Instant,
    marks: Vec<(&'static str, cudarc::driver::CudaEvent, f64)>,
}

impl Prof {
    fn new() -> Prof {
        static ON: std::sync::OnceLock<bool> = std::sync::OnceLock::new();
        Prof {
            on: *ON.get_or_init(|| std::env::var_os("MPARRAY_BLAS_PROFILE").is_some()),
            t0: std::time::Instant::now(),
            marks: Vec::new(),
        }
    }

    fn mark(&mut self, eng: &CudaEngine, what: &'static str) -> Result<()> {
        if self.on {
            let ev = eng
                .context()
                .new_event(Some(cudarc::driver::sys::CUevent_flags::CU_EVENT_DEFAULT))
                .map_err(Error::driver("creating an event"))?;
            ev.record(eng.stream())
                .map_err(Error::driver("recording an event"))?;
            self.marks
                .push((what, ev, self.t0.elapsed().as_secs_f64() * 1e6));
        }
        Ok(())
    }

    fn print(&self) -> Result<()> {
        for w in self.marks.windows(2) {
            let ms = w[0]
                .1
                .elapsed_ms(&w[1].1)
                .map_err(Error::driver("reading an event"))?;
            eprintln!(
                "  blas {}: device {:.1} us (host at {:.1} us)",
                w[1].0,
                ms as f64 * 1e3,
                w[1].2
            );
        }
        Ok(())
    }
}

/// `blas_dot`'s default L2 prefetch distance (rounds of 32 positions per
/// warp).
const DOT_PF: u32 = 0;

/// `blas_stream`'s (kmajor rounds: op(A)'s mantissas only).
const STREAM_PF: u32 = 0;

/// The L2 prefetch distance: `MPARRAY_BLAS_PF` (0 ... 7, for
/// measurements), else `default`.
fn pf_rounds(default: u32) -> u32 {
    std::env::var("MPARRAY_BLAS_PF")
        .ok()
        .and_then(|v| v.parse::<u32>().ok())
        .unwrap_or(default)
        .min(7)
}

/// `blas_dot`'s bulk staging (8-limb operands, 16-byte aligned limbs):
/// slots per warp by default (0: off; `MPARRAY_BLAS_BULK=S`, S = 2 ... 4,
/// overrides). Off: on the H200 it measured 106-110 us for a 512-bit
/// DOT of 2^20 terms against 103 us for the 16-byte staging
/// (notes/blas-cuda.md, "DOT, bulk copies").
const DOT_BULK: u32 = 0;

/// `blas_dot`'s dynamic shared memory: the staging buffers of 4 warps
/// (blas.cu's `stage[4][BL_NBUF][2][32 * BL_SST]`, tiers up to 18 words),
/// or with `bulk` slots per warp, 16 mbarriers and 4 `bulk` slots of 4224
/// bytes (`BL_BSLOT`), or with `mma` (tier 18) the tensor-core path's
/// per-warp staging and forms and the block's diagonal sums, whichever is
/// larger.
fn dot_smem(nf: u32, bulk: u32, mma: bool) -> u32 {
    let lmax = nf / 2 + 2;
    let sst = if lmax % 2 == 1 {
        2 * lmax
    } else {
        2 * lmax + 2
    };
    let old = 4 * 2 * 2 * 32 * sst * 4;
    if mma && nf == 18 {
        // Per warp: staging 2 x 2 x 32 x 16 words, X^T 80 and Y^T 72 rows
        // of 32 bytes; then D, Nv and coef (232 eight-byte words).
        old.max(4 * 3264 * 4 + 232 * 8)
    } else if bulk >= 2 {
        old.max(128 + 4 * bulk * 4224)
    } else {
        old
    }
}

/// `blas_dot`'s 16-byte staging (8-limb operands, 16-byte aligned limbs)
/// by default; else 8-byte copies (`MPARRAY_BLAS_STAGE8` /
/// `MPARRAY_BLAS_STAGE16` choose).
const DOT_STAGE16: bool = true;

/// `blas_dot`'s mantissa copies (the 16-byte staging's, or the bulk
/// ring's) with an L2 evict-first policy, so that the heads, read again by
/// every round, stay in L2 (`MPARRAY_BLAS_NOEVICT` / `MPARRAY_BLAS_EVICT`
/// choose).
const DOT_EVICT: bool = true;

/// `blas_dot` takes its products on the int8 tensor cores (tier 18, 8-limb
/// operands; notes/blas-cuda.md, "DOT on int8 tensor cores";
/// `MPARRAY_BLAS_DOTNOMMA` / `MPARRAY_BLAS_DOTMMA` choose).
const DOT_MMA: bool = false;

/// `blas_dot` at tier 18 with 8-limb operands takes running per-warp
/// scales and rounds on demand instead of its heads pass and chunks (pipe
/// bit 16; 90-92 us against 95-96 us for a 512-bit DOT of 2^20 terms on the
/// H200; notes/blas-cuda.md, "DOT without a heads pass, rounds on demand";
/// `MPARRAY_BLAS_DOT2=0` / `=1` choose).
const DOT_RUNNING: bool = true;

/// [`dot_fused`]'s switches, read once per process (measurements only):
/// `MPARRAY_BLAS_DOTBLOCKS` (blocks), `MPARRAY_BLAS_NOCACHE` (a zeroed
/// workspace per call), `MPARRAY_BLAS_NOMAP` (the status by a copy),
/// `MPARRAY_BLAS_DOTNODEFER=1` (the status read at once inside a
/// [`Deferred`] scope too),
/// `MPARRAY_BLAS_NOPIPE`, `MPARRAY_BLAS_DBG`, `MPARRAY_BLAS_PF` (the L2
/// prefetch distance in rounds, 0 ... 7), `MPARRAY_BLAS_NOSTAGE` (with
/// `MPARRAY_BLAS_DBG` only: no staging copies), `MPARRAY_BLAS_STAGE16` /
/// `MPARRAY_BLAS_STAGE8` (the staging copies' width), `MPARRAY_BLAS_BULK`
/// (bulk staging: slots per warp, 0 or 2 ... 4), `MPARRAY_BLAS_EVICT` /
/// `MPARRAY_BLAS_NOEVICT` (the bulk or 16-byte copies with an L2
/// evict-first policy), `MPARRAY_BLAS_NOHEADS` (with
/// `MPARRAY_BLAS_DBG` only: the scales from the first 128 heads of each
/// block), `MPARRAY_BLAS_DOTTIME` (the blocks' timeline on stderr).
struct DotEnv {
    blocks: usize,
    /// Bulk staging's slots per warp (0: off).
    bulk: u32,
    nocache: bool,
    nomap: bool,
    nodefer: bool,
    /// `MPARRAY_BLAS_CARVEOUT=n`: the preferred shared-memory carve-out
    /// (percent) of `blas_dot` with any staging.
    carveout: Option<i32>,
    /// The products on the int8 tensor cores (pipe bit 14).
    mma: bool,
    /// The kernel's `pipe` bits.
    pipe: u32,
}

fn dot_env() -> &'static DotEnv {
    static ENV: std::sync::OnceLock<DotEnv> = std::sync::OnceLock::new();
    ENV.get_or_init(|| {
        let on = |v: &str| std::env::var_os(v).is_some();
        // One wave: 4 blocks of 128 threads per SM on the H200.
        let blocks = std::env::var("MPARRAY_BLAS_DOTBLOCKS")
            .ok()
            .and_then(|v| v.parse().ok())
            .unwrap_or(132 * 4)
            .max(1);
        let dbg = dbg_bits();
        let nostage = dbg != 0 && on("MPARRAY_BLAS_NOSTAGE");
        let c16 = if on("MPARRAY_BLAS_STAGE8") {
            false
        } else {
            DOT_STAGE16 || on("MPARRAY_BLAS_STAGE16")
        };
        let bulk = std::env::var("MPARRAY_BLAS_BULK")
            .ok()
            .and_then(|v| v.parse::<u32>().ok())
            .unwrap_or(DOT_BULK);
        let bulk = if (2..=4).contains(&bulk) { bulk } else { 0 };
        let evict = if on("MPARRAY_BLAS_NOEVICT") {
            false
        } else {
            DOT_EVICT || on("MPARRAY_BLAS_EVICT")
        };
        let mma = if on("MPARRAY_BLAS_DOTNOMMA") {
            false
        } else {
            DOT_MMA || on("MPARRAY_BLAS_DOTMMA")
        };
        let running = match std::env::var("MPARRAY_BLAS_DOT2").ok().as_deref() {
            Some("0") => false,
            Some(_) => true,
            None => DOT_RUNNING,
        };
        DotEnv {
            mma,
            blocks,
            bulk,
            nocache: on("MPARRAY_BLAS_NOCACHE"),
            nomap: on("MPARRAY_BLAS_NOMAP"),
            nodefer: std::env::var_os("MPARRAY_BLAS_DOTNODEFER").is_some_and(|v| v == "1"),
            carveout: std::env::var("MPARRAY_BLAS_CARVEOUT")
                .ok()
                .and_then(|v| v.parse::<i32>().ok())
                .map(|v| v.clamp(0, 100)),
            pipe: !on("MPARRAY_BLAS_NOPIPE") as u32
                | dbg
                | pf_rounds(DOT_PF) << 4
                | (nostage as u32) << 7
                | (c16 as u32) << 8
                | bulk << 9
                | (evict as u32) << 12
                | (mma as u32) << 14
                | ((dbg != 0 && on("MPARRAY_BLAS_NOHEADS")) as u32) << 15
                | (running as u32) << 16
                | (on("MPARRAY_BLAS_DOTTIME") as u32) << 17,
        }
    })
}

/// `x . y` (`k` contiguous positions each) in one launch (`blas_dot`:
/// per-block scales, the blocks' sums aligned and added and the epilogue
/// by the last block) and one read of its status; the host's exact core
/// when the device cannot decide. None where the device does not serve
/// the case (as [`product`]). `MPARRAY_BLAS_DOTBLOCKS` sets the number of
/// blocks (for measurements).
fn dot_fused(
    x: Side,
    y: Side,
    k: usize,
    prec: u64,
    rnd: Round,
) -> Result<Option<(CudaFloats, CudaSlice<i8>)>> {
    let rn = check_prec(prec)?;
    let Some(nf) = tier_for(prec, k, 1) else {
        return Ok(None);
    };
    let wide = x.f.limbs_per_element().max(y.f.limbs_per_element()) >= 1 << 24;
    // blas_dot keeps 4 blocks per SM (at most 128 registers): up to NF = 18
    // without spills; wider tiers take the general path.
    if k == 0 || k >= 1 << 30 || wide || nf > 18 {
        return Ok(None);
    }
    let eng = x.f.engine().clone();
    // This call's own workspace, mapped word and event, out of the
    // engine's pool (no lock held across the launch, the wait or the
    // host's work; see engine::cuda::pool).
    let wss = eng.resource("blas_dot workspaces", |_| Ok(Pool::<DotWs>::default()))?;
    let mut ws = wss.take().unwrap_or_default();
    let env = dot_env();
    let mut prof = Prof::new();
    prof.mark(&eng, "start")?;
    // The output: the one made during the previous call (same precision),
    // else new.
    // A status of 0: decided on the device; else the exact host retry.
    let settle = |status: u64, out: &mut CudaFloats, tern: &mut CudaSlice<i8>| -> Result<()> {
        if status == 0 {
            count(1, 0);
            return Ok(());
        }
        count(0, 1);
        host_elements(
            &eng,
            nf,
            &[0],
            x,
            y,
            1,
            k,
            None,
            None,
            prec,
            rnd,
            0,
            out,
            tern,
        )
    };
    let (mut out, mut tern) = match ws.spare.take() {
        Some((p, o, t)) if p == prec => (o, t),
        _ => (
            CudaFloats::uninit(&eng, 1, prec)?,
            memory::alloc::<i8>(&eng, 1)?,
        ),
    };
    let (pipe, mma) = dot_path_bits(env.pipe, env.mma);
    let chunk = k.div_ceil(env.blocks).next_multiple_of(128);
    // The running-scale path (tier 18, 8-limb operands; the kernel checks
    // the rest) takes its rounds on demand: every block slot of the wave,
    // at most one block per 128 positions (blocks past the chunks of the
    // other paths find no positions there).
    let running = pipe & (1 << 16) != 0
        && nf == 18
        && !mma
        && env.bulk == 0
        && x.f.limbs_per_element() == 8
        && y.f.limbs_per_element() == 8;
    let blocks = if running {
        env.blocks.min(k.div_ceil(128))
    } else {
        k.div_ceil(chunk)
    };
    let drec = nf as usize + 2 + 6;
    // With MPARRAY_BLAS_DOTTIME (pipe bit 17): the blocks' times after the
    // records (4 words per block, 6 for the last block's sum).
    let timed = env.pipe & (1 << 17) != 0;
    let nwork = 4 + blocks * drec + if timed { 4 * blocks + 6 } else { 0 };
    let mut fresh = None;
    if env.nocache {
        fresh = Some(memory::alloc_zeros::<u32>(&eng, nwork)?);
    } else if ws.work.as_ref().is_none_or(|w| w.len() < nwork) {
        ws.work = None;
        ws.work = Some(memory::alloc_zeros::<u32>(&eng, nwork)?);
    }
    // Inside an active [`Deferred`] scope the status is not read here: it
    // is copied into a word of its own and read with the scope's counts
    // (`MPARRAY_BLAS_DOTNODEFER=1`: read at once, for measurements).
    let deferring = defer_active() && !env.nodefer;
    let mapped = !deferring && !env.nomap && ws.word.map(&eng)?;
    let (hst, seq) = if mapped { ws.word.next() } else { (0u64, 0u32) };
    // The kernel, kept with the workspace (no registry look-up per call);
    // its attributes follow the path (set_dot_path may change it).
    let smem = dot_smem(nf, env.bulk, mma);
    if ws
        .func
        .as_ref()
        .is_none_or(|(t, m, _)| *t != nf || *m != mma)
    {
        let f = eng.function(&inst(nf), "blas_dot")?;
        if smem > 48 * 1024 {
            f.set_attribute(
                CUfunction_attribute::CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES,
                smem as i32,
            )
            .map_err(Error::driver("raising the shared-memory limit of blas_dot"))?;
        }
        if env.bulk >= 2 || mma || env.carveout.is_some() {
            // 4 blocks of 4 warps per SM need the largest shared carve-out
            // (it stays with the function after a switch of path).
            f.set_attribute(
                CUfunction_attribute::CU_FUNC_ATTRIBUTE_PREFERRED_SHARED_MEMORY_CARVEOUT,
                env.carveout.unwrap_or(100),
            )
            .map_err(Error::driver(
                "setting the shared-memory carve-out of blas_dot",
            ))?;
        }
        if prof.on {
            // Blocks of 128 threads per SM with this shared memory, as the
            // driver's occupancy calculator counts them.
            let occ = f
                .occupancy_max_active_blocks_per_multiprocessor(128, smem as usize, None)
                .map_err(Error::driver("blas_dot's occupancy"))?;
            eprintln!("  blas dot: {occ} blocks per SM, {smem} bytes of dynamic shared memory");
        }
        ws.func = Some((nf, mma, f));
    }
    let DotWs {
        work: cached,
        word,
        func,
        spare,
    } = &mut ws;
    let f = &func.as_ref().expect("set above").2;
    let work = match fresh.as_mut() {
        Some(w) => w,
        None => cached.as_mut().expect("allocated above"),
    };
    let (la, lb) = (
        x.f.limbs_per_element() as u32,
        y.f.limbs_per_element() as u32,
    );
    let (k_u, chunk_u, rc, rn_u) = (k as u64, chunk as u64, round_code(rnd), rn as u32);
    let (xh, xl) = x.f.raw_parts();
    let (yh, yl) = y.f.raw_parts();
    {
        let (orh, orl) = out.raw_parts_mut();
        let mut bld = eng.stream().launch_builder(f);
        bld.arg(xh)
            .arg(xl)
            .arg(&la)
            .arg(yh)
            .arg(yl)
            .arg(&lb)
            .arg(&k_u)
            .arg(&chunk_u)
            .arg(&pipe)
            .arg(&mut *work)
            .arg(&prec)
            .arg(&rc)
            .arg(orh)
            .arg(orl)
            .arg(&rn_u)
            .arg(&mut tern)
            .arg(&hst)
            .arg(&seq);
        // SAFETY: x and y hold k elements each; work holds at least 4 +
        // blocks*drec words, its ticket (word 0) zero (zeroed when
        // allocated, set back to zero by each call's last block); out one
        // element of rn limbs, tern one byte; hst is 0 or the device
        // address of the mapped host word.
        let c = LaunchConfig {
            grid_dim: (blocks as u32, 1, 1),
            block_dim: (128, 1, 1),
            shared_mem_bytes: smem,
        };
        unsafe { bld.launch(c) }.map_err(launch_err("blas_dot"))?;
    }
    prof.mark(&eng, "dot")?;
    if deferring {
        // The status (work[1], a u32) into the low half of a zeroed word:
        // the next call may reuse the workspace before the scope's read.
        let mut word = memory::alloc_zeros::<u64>(&eng, 1)?;
        {
            // SAFETY: a u64 holds two u32s; only the first is written.
            let mut low = unsafe { word.transmute_mut::<u32>(1) }
                .ok_or_else(|| Error::Invalid("blas_dot: status word".into()))?;
            eng.stream()
                .memcpy_dtod(&work.slice(1..2), &mut low)
                .map_err(Error::driver("copying blas_dot's status"))?;
        }
        if !env.nocache {
            *spare = Some((
                prec,
                CudaFloats::uninit(&eng, 1, prec)?,
                memory::alloc::<i8>(&eng, 1)?,
            ));
        }
        // Stream order: the next launch on this stream starts after this
        // one's last block has set the ticket back to zero.
        wss.give(ws);
        if let Some(word) = defer_count(&eng, word, 0, 1) {
            // The scope ended in between (cannot happen on one thread):
            // read the status now.
            let st = read_word(&eng, &word.slice(0..1))?;
            settle(st, &mut out, &mut tern)?;
        }
        return Ok(Some((out, tern)));
    }
    // The next call's output, allocated while the kernel runs (off the
    // path from the call to the launch; stream-ordered after it).
    if !env.nocache {
        *spare = Some((
            prec,
            CudaFloats::uninit(&eng, 1, prec)?,
            memory::alloc::<i8>(&eng, 1)?,
        ));
    }
    let status = match (mapped, word.host.as_ref(), word.ev.as_ref()) {
        (true, Some(h), Some(ev)) => {
            ev.record(eng.stream())
                .map_err(Error::driver("recording an event"))?;
            poll_mapped("blas_dot's status", h, seq, ev)?
        }
        _ => eng
            .stream()
            .clone_dtoh(&work.slice(1..2))
            .map_err(Error::driver("copying from the device"))?[0],
    };
    if timed {
        let t0 = 4 + blocks * drec;
        let w = eng
            .stream()
            .clone_dtoh(&work.slice(t0..t0 + 4 * blocks + 6))
            .map_err(Error::driver("copying from the device"))?;
        print_dot_times(&w, blocks);
    }
    // The status arrived: the last block has set the ticket back to zero,
    // so the workspace serves the next call (an error above drops it).
    wss.give(ws);
    prof.mark(&eng, "status read")?;
    prof.print()?;
    settle(u64::from(status), &mut out, &mut tern)?;
    Ok(Some((out, tern)))
}

/// `blas_dot`'s timeline (pipe bit 17): the blocks' start and record
/// times (ns, two words each), then the last block's sum and end, printed
/// relative to the first start.
fn print_dot_times(w: &[u32], blocks: usize) {
    let at = |i: usize| u64::from(w[2 * i]) | u64::from(w[2 * i + 1]) << 32;
    let start: Vec<u64> = (0..blocks).map(|b| at(2 * b)).collect();
    let rec: Vec<u64> = (0..blocks).map(|b| at(2 * b + 1)).collect();
    let t0 = *start.iter().min().unwrap_or(&0);
    let us = |t: u64| t.saturating_sub(t0) as f64 / 1e3;
    let mut d: Vec<f64> = (0..blocks).map(|b| us(rec[b]) - us(start[b])).collect();
    d.sort_by(f64::total_cmp);
    eprintln!(
        "  blas dot times: starts {:.1}..{:.1} us, records {:.1}..{:.1} us, block durations {:.1}/{:.1}/{:.1} us (min/median/max), last block's sum {:.1} us, end {:.1} us",
        0.0,
        us(*start.iter().max().unwrap_or(&0)),
        us(*rec.iter().min().unwrap_or(&0)),
        us(*rec.iter().max().unwrap_or(&0)),
        d.first().copied().unwrap_or(0.0),
        d.get(d.len() / 2).copied().unwrap_or(0.0),
        d.last().copied().unwrap_or(0.0),
        us(at(2 * blocks)),
        us(at(2 * blocks + 1)),
    );
}

/// A page-locked host word and an event for [`read_word`] (one per call,
/// kept in the engine's pool "blas host words").
struct HostWord {
    host: cudarc::driver::PinnedHostSlice<u64>,
    ev: cudarc::driver::CudaEvent,
}

impl HostWord {
    fn new(eng: &CudaEngine) -> Result<HostWord> {
        let ctx = eng.context();
        // SAFETY: read only after a copy into it has completed.
        let host = unsafe { ctx.alloc_pinned_with_flags::<u64>(1, 0) }
            .map_err(Error::driver("allocating page-locked host memory"))?;
        Ok(HostWord {
            host,
            ev: wait_event(eng)?,
        })
    }
}

/// One u64 of the device (`src`, after the queued work) through a
/// page-locked word: an asynchronous copy and a bounded spin on an event
/// recorded after it, then a sleeping wait ([`pool::wait_for`]; a pageable
/// `cuMemcpyDtoH` costs 10-16 us on the H200; `MPARRAY_BLAS_NOMAP`: that
/// copy, for measurements). The word and the event are this call's own
/// (taken out of the engine's pool, no lock held while waiting).
fn read_word(eng: &Arc<CudaEngine>, src: &CudaView<u64>) -> Result<u64> {
    if std::env::var_os("MPARRAY_BLAS_NOMAP").is_some() {
        return Ok(eng
            .stream()
            .clone_dtoh(src)
            .map_err(Error::driver("copying from the device"))?[0]);
    }
    let words = eng.resource("blas host words", |_| Ok(Pool::<HostWord>::default()))?;
    let mut hw = match words.take() {
        Some(h) => h,
        None => HostWord::new(eng)?,
    };
    eng.stream()
        .memcpy_dtoh(src, &mut hw.host)
        .map_err(Error::driver("copying from the device"))?;
    hw.ev
        .record(eng.stream())
        .map_err(Error::driver("recording an event"))?;
    event_done("a BLAS count from the device", &hw.ev)?;
    // The copy is complete (the event follows it): the slice's own wait
    // returns at once.
    let v = hw
        .host
        .as_slice()
        .map_err(Error::driver("page-locked host memory"))?[0];
    words.give(hw);
    Ok(v)
}

/// One call's state of [`dot_fused`], kept in the engine's pool "blas_dot
/// workspaces" between calls (a call owns it from before its launch to
/// after its status read; it goes back only when the status arrived, i.e.
/// the last block set the ticket back to zero): the workspace, a
/// page-locked host word mapped into the device into which `blas_dot`
/// writes `(seq << 1) | status`, and an event recorded after the launch.
#[derive(Default)]
struct DotWs {
    work: Option<CudaSlice<u32>>,
    /// The mapped status word and the event recorded after each launch.
    word: MappedWord,
    /// `blas_dot` of the tier last used, and whether it was set up for
    /// the tensor-core path.
    func: Option<(u32, bool, cudarc::driver::CudaFunction)>,
    /// An output (precision, one element, its ternary) for the next call.
    spare: Option<(u64, CudaFloats, CudaSlice<i8>)>,
}

/// A product whose undecided count is still on the device (see
/// [`Deferred`]).
struct Pending {
    eng: Arc<CudaEngine>,
    sc: CudaSlice<u64>,
    at: usize,
    nout: usize,
}

thread_local! {
    /// The products launched on this thread inside an active [`Deferred`]
    /// scope (None: no scope).
    static DEFER: std::cell::RefCell<Option<Vec<Pending>>> = const { std::cell::RefCell::new(None) };
}

/// Whether a [`Deferred`] scope is active on this thread.
fn defer_active() -> bool {
    DEFER.with(|d| d.borrow().is_some())
}

/// [`product`]'s hook: inside an active [`Deferred`] scope, keeps `sc`
/// (whose item `at` is the undecided count of `nout` outputs) for the
/// scope's one read and returns None; else gives `sc` back.
fn defer_count(
    eng: &Arc<CudaEngine>,
    sc: CudaSlice<u64>,
    at: usize,
    nout: usize,
) -> Option<CudaSlice<u64>> {
    DEFER.with(|d| match d.borrow_mut().as_mut() {
        Some(list) => {
            list.push(Pending {
                eng: eng.clone(),
                sc,
                at,
                nout,
            });
            None
        }
        None => Some(sc),
    })
}

/// A scope in which the device products (`gemv`, `gemm`) launched on this
/// thread do not read their undecided counts back (no host round trip per
/// call: the launches follow each other on the stream): their outputs are
/// provisional until [`Deferred::finish`] reads every count, together with
/// the arrays the caller downloads anyway, in one transfer. An output the
/// device could not decide is left as the device wrote it (finite but not
/// the exact result), so the caller that sees `false` from `finish` must
/// recompute everything made from the scope's products outside a scope
/// (where the undecided elements go to the host's exact core as usual).
/// The CPU engine's products are exact at once and never pending. Scopes
/// do not nest (a second one on the same thread is inactive).
pub struct Deferred {
    /// The products of a paused scope.
    list: Option<Vec<Pending>>,
    /// Whether this scope owns the thread's deferral.
    owner: bool,
}

impl Deferred {
    /// Starts a scope on this thread.
    pub fn begin() -> Deferred {
        let owner = DEFER.with(|d| {
            let mut d = d.borrow_mut();
            if d.is_none() {
                *d = Some(Vec::new());
                true
            } else {
                false
            }
        });
        Deferred { list: None, owner }
    }

    /// Stops deferring (products launched now read their counts at once)
    /// until [`Deferred::resume`]; e.g. around a user's callback.
    pub fn pause(&mut self) {
        if self.owner && self.list.is_none() {
            self.list = Some(DEFER.with(|d| d.borrow_mut().take()).unwrap_or_default());
        }
    }

    /// Defers again after [`Deferred::pause`].
    pub fn resume(&mut self) {
        if let Some(l) = self.list.take() {
            DEFER.with(|d| *d.borrow_mut() = Some(l));
        }
    }

    /// Ends the scope: copies `arrays` to the CPU engine (exact copies) and
    /// reads the scope's undecided counts, the device's part in one
    /// transfer (the only host synchronisation); returns the copies and
    /// whether every product of the scope was decided on the device.
    pub fn finish(mut self, arrays: &[&FloatArray]) -> Result<(Vec<FloatArray>, bool)> {
        self.pause();
        let list = self.list.take().unwrap_or_default();
        let eng = list.first().map(|p| p.eng.clone()).or_else(|| {
            arrays
                .iter()
                .find_map(|a| a.device().map(|d| d.engine().clone()))
        });
        if list
            .iter()
            .any(|p| !Arc::ptr_eq(&p.eng, eng.as_ref().expect("listed")))
        {
            return Err(Error::Invalid(
                "deferred BLAS checks on two CUDA engines in one scope".into(),
            ));
        }
        let Some(eng) = eng else {
            // Nothing on a device.
            let copies = arrays
                .iter()
                .map(|a| a.to_engine(&crate::Engine::Cpu))
                .collect::<Result<Vec<_>>>()?;
            return Ok((copies, true));
        };
        let dev: Vec<Option<&CudaFloats>> = arrays
            .iter()
            .map(|a| a.device().filter(|d| Arc::ptr_eq(d.engine(), &eng)))
            .collect();
        let total = list.len()
            + dev
                .iter()
                .flatten()
                .map(|d| d.len() * (1 + d.limbs_per_element()))
                .sum::<usize>();
        let mut st = memory::alloc::<u64>(&eng, total.max(1))?;
        let on: Vec<&CudaFloats> = dev.iter().flatten().copied().collect();
        gather_scope(&eng, &list, &on, &mut st)?;
        let host = if total == 0 {
            Vec::new()
        } else {
            memory::download(&eng, &st)?
        };
        let decided = host[..list.len()].iter().all(|&c| c == 0);
        if decided {
            count(list.iter().map(|p| p.nout as u64).sum(), 0);
        }
        let mut at = list.len();
        let mut copies = Vec::with_capacity(arrays.len());
        for (a, d) in arrays.iter().zip(&dev) {
            match d {
                Some(d) => {
                    let (len, la) = (d.len(), d.limbs_per_element());
                    let head = &host[at..at + len];
                    at += len;
                    let limbs = host[at..at + len * la].to_vec();
                    at += len * la;
                    copies.push(FloatArray::from(CpuFloats::from_raw(
                        d.prec(),
                        head.iter().map(|&h| h as u8).collect(),
                        head.iter().map(|&h| (h as i64) >> 8).collect(),
                        limbs,
                    )?));
                }
                None => copies.push(a.to_engine(&crate::Engine::Cpu)?),
            }
        }
        Ok((copies, decided))
    }
}

/// The scope's undecided counts, then each array's heads and limbs, into
/// `st` (a [`Deferred`] read's layout): one `float_gather_segs` launch when the
/// segments fit its table, else a device copy per segment
/// (`MPARRAY_BLAS_GATHERCOPY=1`: always the copies, for measurements).
fn gather_scope(
    eng: &Arc<CudaEngine>,
    list: &[Pending],
    dev: &[&CudaFloats],
    st: &mut CudaSlice<u64>,
) -> Result<()> {
    use cudarc::driver::DevicePtr;
    static COPY: std::sync::OnceLock<bool> = std::sync::OnceLock::new();
    let copy =
        *COPY.get_or_init(|| std::env::var_os("MPARRAY_BLAS_GATHERCOPY").is_some_and(|v| v == "1"));
    let s = eng.stream();
    let nseg = list.len() + 2 * dev.iter().filter(|d| d.len() > 0).count();
    if !copy && nseg <= 32 {
        let mut segs = Vec::with_capacity(nseg);
        let mut at = 0u64;
        for p in list {
            if p.at >= p.sc.len() {
                return Err(Error::Invalid("a deferred count out of its buffer".into()));
            }
            let (ptr, _g) = p.sc.device_ptr(s);
            segs.push((ptr + 8 * p.at as u64, 1, at));
            at += 1;
        }
        for d in dev {
            let (len, la) = (d.len() as u64, d.limbs_per_element() as u64);
            if len > 0 {
                let (h, l) = d.raw_parts();
                let (hp, _g) = h.device_ptr(s);
                segs.push((hp, len, at));
                at += len;
                let (lp, _g) = l.device_ptr(s);
                segs.push((lp, len * la, at));
                at += len * la;
            }
        }
        return crate::float::cuda::gather(eng, &segs, st);
    }
    let mut at = 0;
    for p in list {
        s.memcpy_dtod(&p.sc.slice(p.at..p.at + 1), &mut st.slice_mut(at..at + 1))
            .map_err(Error::driver("gathering a download on the device"))?;
        at += 1;
    }
    for d in dev {
        let (len, la) = (d.len(), d.limbs_per_element());
        if len > 0 {
            let (h, l) = d.raw_parts();
            s.memcpy_dtod(&h.slice(0..len), &mut st.slice_mut(at..at + len))
                .map_err(Error::driver("gathering a download on the device"))?;
            at += len;
            s.memcpy_dtod(&l.slice(0..len * la), &mut st.slice_mut(at..at + len * la))
                .map_err(Error::driver("gathering a download on the device"))?;
            at += len * la;
        }
    }
    Ok(())
}

impl Drop for Deferred {
    fn drop(&mut self) {
        if self.owner {
            // Unfinished (an error or an early end): the outputs are dropped
            // unchecked.
            self.list = None;
            DEFER.with(|d| *d.borrow_mut() = None);
        }
    }
}

/// A reusable page-locked host buffer for [`Deferred::finish_async`] (one
/// per caller, e.g. per GMRES solve: no host allocation per read).
#[derive(Default)]
pub struct Staging {
    host: Option<cudarc::driver::PinnedHostSlice<u64>>,
    /// Recorded after each copy into `host`; [`Ticket::wait`] waits for it.
    /// (The engine tracks no events, so `PinnedHostSlice`'s own event is
    /// never recorded and its `as_slice` does not wait for the copy.)
    ev: Option<cudarc::driver::CudaEvent>,
}

/// The read of a [`Deferred`] scope queued by [`Deferred::finish_async`]:
/// [`Ticket::wait`] gives what [`Deferred::finish`] gives.
pub struct Ticket<'a> {
    inner: TicketInner<'a>,
}

enum TicketInner<'a> {
    Ready(Vec<FloatArray>, bool),
    Queued {
        staging: &'a Staging,
        /// The undecided counts of the scope's products.
        counts: usize,
        /// Each array's precision, length and limbs per element.
        layout: Vec<(u64, usize, usize)>,
        /// The scope's outputs, counted when decided.
        nout: u64,
    },
}

impl Deferred {
    /// [`Deferred::finish`] without waiting: the counts and `arrays` (all on
    /// the scope's device) are gathered on the device and copied into
    /// `staging` by one asynchronous transfer queued on the stream, so
    /// later launches on this thread (a new scope may begin at once) run
    /// on the device while the host waits for this one in
    /// [`Ticket::wait`]. Falls back to [`Deferred::finish`] when an array
    /// is not on the scope's device.
    pub fn finish_async<'a>(
        mut self,
        arrays: &[&FloatArray],
        staging: &'a mut Staging,
    ) -> Result<Ticket<'a>> {
        self.pause();
        let list = self.list.take().unwrap_or_default();
        let eng = list.first().map(|p| p.eng.clone()).or_else(|| {
            arrays
                .iter()
                .find_map(|a| a.device().map(|d| d.engine().clone()))
        });
        let dev: Option<Vec<&CudaFloats>> = eng.as_ref().and_then(|e| {
            arrays
                .iter()
                .map(|a| a.device().filter(|d| Arc::ptr_eq(d.engine(), e)))
                .collect()
        });
        let (Some(eng), Some(dev)) = (eng, dev) else {
            self.list = Some(list);
            let (c, d) = self.finish(arrays)?;
            return Ok(Ticket {
                inner: TicketInner::Ready(c, d),
            });
        };
        if list.iter().any(|p| !Arc::ptr_eq(&p.eng, &eng)) {
            return Err(Error::Invalid(
                "deferred BLAS checks on two CUDA engines in one scope".into(),
            ));
        }
        let total = list.len()
            + dev
                .iter()
                .map(|d| d.len() * (1 + d.limbs_per_element()))
                .sum::<usize>();
        if staging.ev.is_none() {
            staging.ev = Some(wait_event(&eng)?);
        }
        let ev = staging.ev.as_ref().expect("made above");
        if staging.host.as_ref().is_none_or(|h| h.len() < total.max(1)) {
            // A copy still queued into the old buffer ends before it is
            // freed.
            ev.synchronize()
                .map_err(Error::driver("waiting for the device"))?;
            staging.host = None;
            // SAFETY: page-locked memory, written by the copy below before
            // Ticket::wait reads it (after the copy's event).
            staging.host = Some(
                unsafe {
                    eng.context()
                        .alloc_pinned_with_flags::<u64>(total.max(64) * 2, 0)
                }
                .map_err(Error::driver("allocating page-locked memory"))?,
            );
        }
        // The host buffer's first `total` items as a plain slice: the copy
        // moves exactly the device buffer (a `PinnedHostSlice` destination
        // would move its whole length). Its own event is never recorded
        // (no event tracking), so this returns at once; the copies into it
        // are ordered by `ev`.
        let host = &mut staging
            .host
            .as_mut()
            .expect("allocated")
            .as_mut_slice()
            .map_err(Error::driver("page-locked host memory"))?[..total];
        let mut st = memory::alloc::<u64>(&eng, total.max(1))?;
        let s = eng.stream();
        let layout = dev
            .iter()
            .map(|d| (d.prec(), d.len(), d.limbs_per_element()))
            .collect();
        gather_scope(&eng, &list, &dev, &mut st)?;
        if total > 0 {
            s.memcpy_dtoh(&st.slice(0..total), host)
                .map_err(Error::driver("copying from the device"))?;
        }
        // The copy into page-locked memory is asynchronous: Ticket::wait
        // reads the buffer only after this event.
        ev.record(s).map_err(Error::driver("recording an event"))?;
        let nout = list.iter().map(|p| p.nout as u64).sum();
        Ok(Ticket {
            inner: TicketInner::Queued {
                staging,
                counts: list.len(),
                layout,
                nout,
            },
        })
    }
}

impl Ticket<'_> {
    /// Waits for the transfer; the copies (CPU engine) and whether every
    /// product of the scope was decided on the device.
    pub fn wait(self) -> Result<(Vec<FloatArray>, bool)> {
        match self.inner {
            TicketInner::Ready(c, d) => Ok((c, d)),
            TicketInner::Queued {
                staging,
                counts,
                layout,
                nout,
            } => {
                // Wait for the copy (its event, recorded right after it):
                // a bounded spin, then a sleeping wait.
                let ev = staging.ev.as_ref().expect("recorded by finish_async");
                event_done("a deferred read from the device", ev)?;
                let host = staging
                    .host
                    .as_ref()
                    .expect("allocated")
                    .as_slice()
                    .map_err(Error::driver("page-locked host memory"))?;
                let decided = host[..counts].iter().all(|&c| c == 0);
                if decided {
                    count(nout, 0);
                }
                let mut at = counts;
                let mut copies = Vec::with_capacity(layout.len());
                for (prec, len, la) in layout {
                    let head = &host[at..at + len];
                    at += len;
                    let limbs = host[at..at + len * la].to_vec();
                    at += len * la;
                    copies.push(FloatArray::from(CpuFloats::from_raw(
                        prec,
                        head.iter().map(|&h| h as u8).collect(),
                        head.iter().map(|&h| (h as i64) >> 8).collect(),
                        limbs,
                    )?));
                }
                Ok((copies, decided))
            }
        }
    }
}

/// The gemv epilogue's beta and C operands as kernel arguments (heads,
/// limbs, limbs per element of beta, then of C, then whether there is a C);
/// without C, alpha's in their place (never read).
#[allow(clippy::type_complexity)]
fn epilogue_operands<'a>(
    alpha: &'a CudaFloats,
    beta_c: Option<(&'a CudaFloats, &'a CudaFloats, usize)>,
) -> (
    &'a CudaSlice<u64>,
    &'a CudaSlice<u64>,
    u32,
    &'a CudaSlice<u64>,
    &'a CudaSlice<u64>,
    u32,
    u32,
) {
    let (alh, alm) = alpha.raw_parts();
    let lal = alpha.limbs_per_element() as u32;
    match beta_c {
        Some((be, c, _)) => {
            let (bh, bm) = be.raw_parts();
            let (ch, cl) = c.raw_parts();
            let (lb, lc) = (be.limbs_per_element() as u32, c.limbs_per_element() as u32);
            (bh, bm, lb, ch, cl, lc, 1)
        }
        None => (alh, alm, lal, alh, alm, lal, 0),
    }
}

/// `MPARRAY_BLAS_GVDBG` (measurements only; wrong results): bits 0-2 for
/// `blas_gemv`, bit 1 for `blas_gmf` (no epilogue).
fn gemv_dbg() -> u32 {
    std::env::var("MPARRAY_BLAS_GVDBG")
        .ok()
        .and_then(|v| v.parse::<u32>().ok())
        .unwrap_or(0)
}
