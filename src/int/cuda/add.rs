//! Addition, subtraction and the fused add chain on CUDA.
//!
//! One kernel family (src/kernels/int_add.cu) serves every width: a block
//! owns a unit of whole elements (as many as fit in a window of `k * block`
//! limbs, or one element walked window by window), and carries are resolved
//! by a segmented scan over the block. Thread layouts: striped (each warp
//! load covers 512 contiguous bytes; even widths take the even kernels, odd
//! widths the odd ones), chunk (each thread `k` consecutive limbs; widths
//! that are a multiple of `k` take the aligned kernels), and for the six-add
//! staged and pipelined (striped loads, chunk arithmetic).

use std::sync::Arc;

use cudarc::driver::{CudaSlice, LaunchConfig, PushKernelArg};

use super::{alloc, launched};
use crate::engine::CudaEngine;
use crate::engine::cuda::memory::op_scope;
use crate::error::{Error, Result};
use crate::kernels::{INT_ADD, Instance};

/// How a block's threads hold the limbs of a window.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Layout {
    /// `k` consecutive limbs per thread.
    Chunk,
    /// Pairs of limbs, warp loads of 512 contiguous bytes.
    Striped,
    /// Six-add only: striped loads exchanged through shared memory into
    /// chunks, scans with fused carry increments.
    Staged,
    /// Six-add only: as `Staged`, loads by cp.async one window ahead, the
    /// grid sized to the resident blocks (aligned widths; others `Staged`).
    Piped,
}

/// Layout, limbs per thread, threads per block and (pipelined kernel
/// only) the resident blocks per SM it asks registers for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Tier {
    layout: Layout,
    k: usize,
    block: u32,
    min_blocks: u32,
}

const fn tier(layout: Layout, k: usize, block: u32) -> Tier {
    Tier {
        layout,
        k,
        block,
        min_blocks: 0,
    }
}

const fn piped(k: usize, block: u32, min_blocks: u32) -> Tier {
    Tier {
        layout: Layout::Piped,
        k,
        block,
        min_blocks,
    }
}

/// Add and sub: striped, 8 limbs per thread (H200: 4130-4280 GB/s, at the
/// device copy rate; the chunk layout reached only 3730-3820).
const ADD_TIER: Tier = tier(Layout::Striped, 8, 256);
/// Six-add: staged layout, 4 limbs per thread: striped 512-byte warp loads
/// through shared memory into 4-limb chunks, fused carry increments (H200,
/// 2026-11-30: 3940-4090 GB/s; pipelined K=8 3805-3882, pipelined K=4
/// 3702-3763, chunk K=4 3464-3557, striped K=8 3290-3430).
const SIX_TIER: Tier = tier(Layout::Staged, 4, 256);
/// Every tier the code may pick: the defaults, and the others, selectable
/// through `MPARRAY_ADD_TIER=L,K,B` with L one of s (striped), c (chunk),
/// t (staged) or p (pipelined); t and p serve the six-add only (add and sub
/// keep their default). The pipelined kernel needs K*B <= 1024 (shared
/// memory); its register bounds: 48 (K=4) and 96 (K=8), no spills.
const TIERS: [Tier; 8] = [
    ADD_TIER,
    SIX_TIER,
    tier(Layout::Striped, 4, 256),
    tier(Layout::Chunk, 8, 256),
    tier(Layout::Chunk, 4, 256),
    piped(4, 256, 5),
    piped(4, 128, 10),
    piped(8, 128, 5),
];

fn forced() -> Option<Tier> {
    static FORCED: std::sync::OnceLock<Option<Tier>> = std::sync::OnceLock::new();
    *FORCED.get_or_init(|| {
        let s = std::env::var("MPARRAY_ADD_TIER").ok()?;
        let mut it = s.split(',').map(str::trim);
        let layout = match it.next()? {
            "s" => Layout::Striped,
            "c" => Layout::Chunk,
            "t" => Layout::Staged,
            "p" => Layout::Piped,
            _ => return None,
        };
        let k: usize = it.next()?.parse().ok()?;
        let block: u32 = it.next()?.parse().ok()?;
        if it.next().is_some() {
            return None;
        }
        TIERS
            .iter()
            .find(|t| t.layout == layout && t.k == k && t.block == block)
            .copied()
    })
}

fn pick(six: bool) -> Tier {
    match forced() {
        Some(t) if six || matches!(t.layout, Layout::Chunk | Layout::Striped) => t,
        _ if six => SIX_TIER,
        _ => ADD_TIER,
    }
}

fn inst(t: Tier) -> Instance {
    let mut d = vec![("ADD_K", t.k as i64), ("ADD_B", t.block as i64)];
    if t.min_blocks > 0 {
        d.push(("ADD_MINB", t.min_blocks as i64));
    }
    Instance::new(&INT_ADD, &d)
}

/// Every instantiation this module can request (every layout lives in
/// every instantiation; the pipelined kernel where K*B <= 1024).
pub fn instances() -> Vec<Instance> {
    let mut v: Vec<Instance> = Vec::new();
    for t in TIERS {
        let i = inst(t);
        if !v.iter().any(|x| x.key() == i.key()) {
            v.push(i);
        }
    }
    v
}

/// How a launch covers `len` elements of `limbs` limbs.
struct Plan {
    tier: Tier,
    aligned: bool,
    /// Elements per unit (one block's work).
    per_unit: u32,
    cfg: LaunchConfig,
}

fn plan(len: usize, limbs: usize, tier: Tier) -> Plan {
    let window = tier.k * tier.block as usize;
    let aligned = limbs.is_multiple_of(if tier.layout == Layout::Striped {
        2
    } else {
        tier.k
    });
    // General-tier windows start at an even limb: an odd start costs one.
    let room = if !aligned && !limbs.is_multiple_of(2) {
        window - 1
    } else {
        window
    };
    let per_unit = (room / limbs).clamp(1, len.max(1));
    let units = len.div_ceil(per_unit).max(1);
    Plan {
        tier,
        aligned,
        per_unit: per_unit as u32,
        cfg: LaunchConfig {
            grid_dim: (units.min(i32::MAX as usize) as u32, 1, 1),
            block_dim: (tier.block, 1, 1),
            shared_mem_bytes: 0,
        },
    }
}

/// `a +/- b`, with the carries/borrows out when `want_flags`.
pub fn add_sub(
    eng: &Arc<CudaEngine>,
    a: &CudaSlice<u64>,
    b: &CudaSlice<u64>,
    len: usize,
    limbs: usize,
    subtract: bool,
    want_flags: bool,
) -> Result<(CudaSlice<u64>, Option<Vec<bool>>)> {
    let _op = op_scope(if subtract { "int sub" } else { "int add" });
    let mut r = alloc(eng, len * limbs)?;
    if len == 0 {
        return Ok((r, want_flags.then(Vec::new)));
    }
    let p = plan(len, limbs, pick(false));
    let name = match (p.tier.layout == Layout::Striped, subtract, p.aligned) {
        (true, false, true) => "int_add_even",
        (true, true, true) => "int_sub_even",
        (true, false, false) => "int_add_odd",
        (true, true, false) => "int_sub_odd",
        (false, false, true) => "int_add_aligned",
        (false, true, true) => "int_sub_aligned",
        (false, false, false) => "int_add_general",
        (false, true, false) => "int_sub_general",
    };
    let f = eng.function(&inst(p.tier), name)?;
    let (n, l, e) = (len as u64, limbs as u32, p.per_unit);
    // Flags only when asked for: otherwise a null pointer, and no buffer.
    let mut flags = if want_flags {
        Some(
            // SAFETY: the kernel writes one flag per element.
            super::alloc_for::<u8>(eng, "carry flags", len)?,
        )
    } else {
        None
    };
    let null = 0u64;
    let mut bld = eng.stream().launch_builder(&f);
    bld.arg(&mut r).arg(a).arg(b);
    match flags.as_mut() {
        Some(fl) => bld.arg(fl),
        None => bld.arg(&null),
    };
    bld.arg(&n).arg(&l).arg(&e);
    // SAFETY: a, b and r hold len*limbs limbs; flags (if any) len bytes.
    launched(unsafe { bld.launch(p.cfg) }, name)?;
    let flags = match flags {
        Some(fl) => {
            let v = eng
                .stream()
                .clone_dtoh(&fl)
                .map_err(Error::driver("copying flags"))?;
            Some(v.into_iter().map(|x| x != 0).collect())
        }
        None => None,
    };
    Ok((r, flags))
}

/// `a+b+a+b+a+b+a` in one kernel: six dependent additions, each with full
/// carry propagation, intermediates in registers.
pub fn six_add(
    eng: &Arc<CudaEngine>,
    a: &CudaSlice<u64>,
    b: &CudaSlice<u64>,
    len: usize,
    limbs: usize,
) -> Result<CudaSlice<u64>> {
    let mut r = alloc(eng, len * limbs)?;
    if len == 0 {
        return Ok(r);
    }
    let mut p = plan(len, limbs, pick(true));
    let name = match (p.tier.layout, p.aligned) {
        (Layout::Striped, true) => "int_six_add_even",
        (Layout::Striped, false) => "int_six_add_odd",
        (Layout::Chunk, true) => "int_six_add_aligned",
        (Layout::Chunk, false) => "int_six_add_general",
        (Layout::Staged, true) => "int_six_add_staged",
        (Layout::Piped, true) => "int_six_add_piped",
        (Layout::Staged | Layout::Piped, false) => "int_six_add_staged_general",
    };
    let f = eng.function(&inst(p.tier), name)?;
    if name == "int_six_add_piped" {
        // Blocks loop over units, loading one window ahead: one resident
        // wave of them.
        let per_sm = f
            .occupancy_max_active_blocks_per_multiprocessor(p.tier.block, 0, None)
            .unwrap_or(1)
            .max(1);
        let sms = eng.info().sms.max(1) as u32;
        p.cfg.grid_dim.0 = p.cfg.grid_dim.0.min(sms.saturating_mul(per_sm));
    }
    let (n, l, e) = (len as u64, limbs as u32, p.per_unit);
    let mut bld = eng.stream().launch_builder(&f);
    bld.arg(&mut r).arg(a).arg(b).arg(&n).arg(&l).arg(&e);
    // SAFETY: a, b and r hold len*limbs limbs.
    launched(unsafe { bld.launch(p.cfg) }, name)?;
    Ok(r)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn plans_cover_every_element_once() {
        for limbs in [
            1usize, 2, 3, 7, 8, 9, 64, 1023, 1024, 2047, 2048, 2049, 8192, 16384,
        ] {
            for (len, &t) in [1usize, 2, 5, 1000, 4097]
                .iter()
                .flat_map(|l| TIERS.iter().map(move |t| (*l, t)))
            {
                let p = plan(len, limbs, t);
                assert_eq!(p.tier, t);
                let window = t.k * t.block as usize;
                let e = p.per_unit as usize;
                assert!(e >= 1 && e <= len);
                let pair = t.layout == Layout::Striped;
                assert_eq!(p.aligned, limbs % if pair { 2 } else { t.k } == 0);
                // A unit fits one window, or is a single element.
                let span = e * limbs + usize::from(!p.aligned && limbs % 2 == 1);
                assert!(span <= window || e == 1, "{limbs} limbs, {len} elements");
                assert!(len.div_ceil(e) >= p.cfg.grid_dim.0 as usize);
            }
        }
    }

    #[test]
    fn default_tiers_and_instances() {
        if std::env::var_os("MPARRAY_ADD_TIER").is_none() {
            assert_eq!(pick(false), ADD_TIER);
            assert_eq!(pick(true), SIX_TIER);
        }
        // Every layout lives in every instantiation: one per (K, B), and
        // per register bound of the pipelined kernel.
        assert_eq!(instances().len(), 5);
        for t in TIERS {
            if t.layout == Layout::Piped {
                assert!(t.k * t.block as usize <= 1024 && t.min_blocks > 0);
            }
        }
    }
}
