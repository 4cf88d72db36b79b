//! Division with remainder on CUDA: schoolbook division by a group of
//! threads per element, the group size chosen by the divisor's length (see
//! `src/kernels/int_div.cu` for the method).
//!
//! Launch sequence: classify (lengths, zero divisors, trivial elements),
//! a counting sort of the elements by divisor length, one read-back of the
//! zero-divisor flag and the tier bounds, then one launch per non-empty tier,
//! the tiers on concurrent streams.

use std::sync::Arc;

use cudarc::driver::sys::CUfunction_attribute_enum;
use cudarc::driver::{CudaSlice, LaunchConfig, PushKernelArg};

use super::{alloc, alloc_zeros, launched};
use crate::engine::CudaEngine;
use crate::error::{Error, Result};
use crate::kernels::{INT_DIV, Instance};

/// One tier: divisors of at most `s` limbs, `g` threads per element.
struct Tier {
    kernel: &'static str,
    s: usize,
    g: u32,
    /// The divisor is kept in shared memory (8*s bytes) instead of registers.
    smem_divisor: bool,
}

const fn tier(kernel: &'static str, s: usize, g: u32, smem_divisor: bool) -> Tier {
    Tier {
        kernel,
        s,
        g,
        smem_divisor,
    }
}

/// Groups of at most 32 threads run 128 threads per block; larger groups are
/// the block.
const WARP_TIER_BLOCK: u32 = 128;

/// Keep in step with the `DIV_TIER` lines and `div_tier_s` in int_div.cu:
/// 16 limbs per thread (4 and 8 for the smallest, 32 for the widest), one
/// tier per warp count from 2 to 16 warps.
const TIERS: [Tier; 24] = [
    tier("int_div_t0", 4, 1, false),
    tier("int_div_t1", 8, 1, false),
    tier("int_div_t2", 16, 1, false),
    tier("int_div_t3", 32, 2, false),
    tier("int_div_t4", 64, 4, false),
    tier("int_div_t5", 128, 8, false),
    tier("int_div_t6", 256, 16, false),
    tier("int_div_t7", 512, 32, false),
    tier("int_div_t8", 1024, 64, false),
    tier("int_div_t9", 1536, 96, false),
    tier("int_div_t10", 2048, 128, false),
    tier("int_div_t11", 2560, 160, false),
    tier("int_div_t12", 3072, 192, false),
    tier("int_div_t13", 3584, 224, false),
    tier("int_div_t14", 4096, 256, false),
    tier("int_div_t15", 4608, 288, false),
    tier("int_div_t16", 5120, 320, false),
    tier("int_div_t17", 5632, 352, false),
    tier("int_div_t18", 6144, 384, false),
    tier("int_div_t19", 6656, 416, false),
    tier("int_div_t20", 7168, 448, false),
    tier("int_div_t21", 7680, 480, false),
    tier("int_div_t22", 8192, 512, false),
    tier("int_div_t23", 16384, 512, true),
];

/// Tiers `BLOCKED_LO..=BLOCKED_HI` have a second kernel, the blocked
/// schoolbook (`div_blocked` in int_div.cu: a block of `BLOCKED_THREADS` per
/// element, 16 quotient limbs per step, the divisor and the window in shared
/// memory), used from tier `blocked_from()` up.
const BLOCKED_LO: usize = 7;
const BLOCKED_HI: usize = 22;
const BLOCKED: [&str; BLOCKED_HI - BLOCKED_LO + 1] = [
    "int_div_b7",
    "int_div_b8",
    "int_div_b9",
    "int_div_b10",
    "int_div_b11",
    "int_div_b12",
    "int_div_b13",
    "int_div_b14",
    "int_div_b15",
    "int_div_b16",
    "int_div_b17",
    "int_div_b18",
    "int_div_b19",
    "int_div_b20",
    "int_div_b21",
    "int_div_b22",
];
const BLOCKED_THREADS: u32 = 128;
/// The first tier that runs blocked (divisors above 512 limbs), unless
/// `MPARRAY_DIV_BLOCKED_FROM` names another tier (7..=23; 23 = never), for
/// measuring the crossover.
const BLOCKED_FROM: usize = 8;

fn blocked_from() -> usize {
    std::env::var("MPARRAY_DIV_BLOCKED_FROM")
        .ok()
        .and_then(|x| x.parse::<usize>().ok())
        .map_or(BLOCKED_FROM, |t| t.clamp(BLOCKED_LO, BLOCKED_HI + 1))
}

/// The blocked kernel's top problem (16 quotient limbs from the top 24
/// divisor limbs): from a per-element reciprocal, one column product and at
/// most 3 corrections (1), or a limb at a time (0, `MPARRAY_DIV_TOP=seq`,
/// for comparison).
fn top_recip() -> u32 {
    match std::env::var("MPARRAY_DIV_TOP") {
        Ok(x) if x == "seq" => 0,
        _ => 1,
    }
}

/// Dynamic shared memory of the blocked kernel for divisors of at most `s`
/// limbs (`DIVB_SMEM` in int_div.cu).
fn blocked_smem(s: usize) -> u32 {
    17 * s as u32 + 512
}

/// Layout of the small `meta` buffer: zero-divisor flag, tier bounds, then the
/// histogram of divisor lengths (`DIV_HIST` in int_div.cu).
const META_HEAD: usize = TIERS.len() + 2;

fn inst_div() -> Instance {
    Instance::new(&INT_DIV, &[])
}

/// Every instantiation this module can request.
pub fn instances() -> Vec<Instance> {
    vec![inst_div()]
}

fn blocks(threads: u64, tpb: u32) -> Result<u32> {
    u32::try_from(threads.div_ceil(tpb as u64).max(1))
        .map_err(|_| Error::Invalid(format!("divrem: {threads} threads exceed one launch")))
}

fn cfg(grid: u32, block: u32, smem: u32) -> LaunchConfig {
    LaunchConfig {
        grid_dim: (grid, 1, 1),
        block_dim: (block, 1, 1),
        shared_mem_bytes: smem,
    }
}

pub fn divrem(
    eng: &Arc<CudaEngine>,
    a: &CudaSlice<u64>,
    b: &CudaSlice<u64>,
    len: usize,
    limbs: usize,
) -> Result<(CudaSlice<u64>, CudaSlice<u64>)> {
    let _op = crate::engine::cuda::memory::op_scope("int divrem");
    let mut q = alloc(eng, len * limbs)?;
    let mut r = alloc(eng, len * limbs)?;
    if len == 0 {
        return Ok((q, r));
    }
    if limbs > TIERS[TIERS.len() - 1].s {
        return Err(Error::Invalid(format!(
            "divrem: {} bits is wider than the CUDA kernels support",
            64 * limbs
        )));
    }
    let inst = inst_div();
    let (n, l) = (len as u64, limbs as u32);
    // Every kernel below writes all of mn; list is read only where written.
    let mut mn = alloc::<u64>(eng, len)?;
    let mut list = alloc::<u64>(eng, len)?;
    let mut meta = alloc_zeros::<u64>(eng, META_HEAD + limbs + 2)?;

    let f = eng.function(&inst, "int_div_classify")?;
    let mut bld = eng.stream().launch_builder(&f);
    bld.arg(&mut q)
        .arg(&mut r)
        .arg(a)
        .arg(b)
        .arg(&mut mn)
        .arg(&mut meta)
        .arg(&n)
        .arg(&l);
    // SAFETY: a warp per element; buffers hold len*limbs limbs, mn len, meta META_HEAD+limbs+2.
    launched(
        unsafe { bld.launch(cfg(blocks(n * 32, 256)?, 256, 0)) },
        "int_div_classify",
    )?;

    let f = eng.function(&inst, "int_div_scan")?;
    let mut bld = eng.stream().launch_builder(&f);
    bld.arg(&mut meta).arg(&l);
    // SAFETY: one block over the histogram of limbs+2 entries.
    launched(unsafe { bld.launch(cfg(1, 1024, 0)) }, "int_div_scan")?;

    let f = eng.function(&inst, "int_div_scatter")?;
    let mut bld = eng.stream().launch_builder(&f);
    bld.arg(&mn).arg(&mut meta).arg(&mut list).arg(&n);
    // SAFETY: a thread per element; list receives at most len entries.
    launched(
        unsafe { bld.launch(cfg(blocks(n, 256)?, 256, 0)) },
        "int_div_scatter",
    )?;

    let head = eng
        .stream()
        .clone_dtoh(&meta.slice(0..META_HEAD))
        .map_err(Error::driver("reading the division bounds"))?;
    if head[0] != 0 {
        return Err(Error::DivisionByZero {
            index: !head[0] as usize,
        });
    }
    // The tiers run concurrently, each on its own stream forked from the
    // engine's: a tier with few elements but many quotient limbs (small
    // divisors of a wide dividend) is latency-bound and would otherwise keep
    // most of the GPU idle for its whole run.
    let main = eng.stream();
    let from = blocked_from();
    let recip = top_recip();
    let mut forks = Vec::new();
    let mut launch_tiers = || -> Result<()> {
        for (t, tier) in TIERS.iter().enumerate() {
            let (lo, hi) = (head[1 + t] as usize, head[2 + t] as usize);
            if hi <= lo {
                continue;
            }
            let count = (hi - lo) as u64;
            let blocked = t >= from && t <= BLOCKED_HI;
            let kernel = if blocked {
                BLOCKED[t - BLOCKED_LO]
            } else {
                tier.kernel
            };
            let f = eng.function(&inst, kernel)?;
            let smem = if blocked {
                blocked_smem(tier.s)
            } else if tier.smem_divisor {
                8 * tier.s as u32
            } else {
                0
            };
            if smem > 0 {
                f.set_attribute(
                    CUfunction_attribute_enum::CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES,
                    smem as i32,
                )
                .map_err(Error::driver("allowing shared memory for int_div"))?;
            }
            let launch = if blocked {
                let grid = u32::try_from(count).map_err(|_| {
                    Error::Invalid(format!("divrem: {count} elements in one launch"))
                })?;
                cfg(grid, BLOCKED_THREADS, smem)
            } else if tier.g > 32 {
                let grid = u32::try_from(count).map_err(|_| {
                    Error::Invalid(format!("divrem: {count} elements in one launch"))
                })?;
                cfg(grid, tier.g, smem)
            } else {
                cfg(
                    blocks(count * tier.g as u64, WARP_TIER_BLOCK)?,
                    WARP_TIER_BLOCK,
                    smem,
                )
            };
            let stream = main.fork().map_err(Error::driver("creating a stream"))?;
            let sub = list.slice(lo..hi);
            let mut bld = stream.launch_builder(&f);
            bld.arg(&mut q)
                .arg(&mut r)
                .arg(a)
                .arg(b)
                .arg(&sub)
                .arg(&mn)
                .arg(&count)
                .arg(&l);
            if blocked {
                bld.arg(&recip);
            }
            // SAFETY: count elements of the sorted list, each within len*limbs; the
            // tiers write disjoint elements; the engine's stream joins them below,
            // before any buffer here is freed or read.
            launched(unsafe { bld.launch(launch) }, kernel)?;
            forks.push(stream);
        }
        Ok(())
    };
    let launched_all = launch_tiers();
    // Join even after a failed launch: the buffers below must outlive the tiers.
    for s in &forks {
        main.join(s).map_err(Error::driver("joining streams"))?;
    }
    launched_all?;
    Ok((q, r))
}
