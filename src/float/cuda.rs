//! Float arrays on the CUDA engine: device storage ([`CudaFloats`]),
//! transfers, and the kernels of src/kernels/float_{arith,misc}.cu, which
//! mirror the CPU engine's exact algorithms and rounding step (so the bits
//! are identical; see notes/float.md).
//!
//! Layout on the device: one 64-bit head word per element (`exp << 8 | tag`,
//! the exponent arithmetic-shifted back) and the mantissa limbs contiguous
//! per element, as on the host. A thread computes one element; the scratch
//! of the arithmetic kernel is sized by a tier (the largest limb count of
//! the operands and the destination, rounded up to [`TIERS`]), passed to
//! NVRTC as `-DFL_NL=`. Precisions above [`MAX_CUDA_PREC`] are an error on
//! CUDA (the CPU engine serves them).

use std::cmp::Ordering;
use std::sync::Arc;

use cudarc::driver::{CudaSlice, LaunchConfig, PushKernelArg};

use super::round::Round;
use super::{CpuFloats, FloatOp, check_prec};
use crate::engine::CudaEngine;
use crate::engine::cuda::memory;
use crate::error::{Error, Result};
use crate::kernels::{FLOAT_ARITH, FLOAT_MISC, FLOAT_WIDE, Instance};

mod random;

/// Scratch tiers in limbs (one instantiation each).
pub const TIERS: [usize; 12] = [1, 2, 3, 4, 6, 8, 12, 16, 32, 64, 128, 256];
/// Largest precision on CUDA (operands and destination): 256 limbs.
pub const MAX_CUDA_PREC: u64 = 64 * 256;

/// An operation on the device.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DevOp {
    Add,
    Sub,
    Mul,
    Div,
    Sqrt,
    Fma,
    Fms,
    Neg,
    Abs,
    SetPrec,
    /// `x * 2^k` (div_2si is `-k`).
    Mul2si(i64),
    Min,
    Max,
}

impl DevOp {
    /// The kernels' operation code (float_common.cuh's FL_OP_*).
    pub fn code(self) -> u32 {
        match self {
            DevOp::Add => 0,
            DevOp::Sub => 1,
            DevOp::Mul => 2,
            DevOp::Div => 3,
            DevOp::Sqrt => 4,
            DevOp::Fma => 5,
            DevOp::Fms => 6,
            DevOp::Neg => 7,
            DevOp::Abs => 8,
            DevOp::SetPrec => 9,
            DevOp::Mul2si(_) => 10,
            DevOp::Min => 11,
            DevOp::Max => 12,
        }
    }

    /// Number of operands.
    pub fn arity(self) -> usize {
        match self {
            DevOp::Fma | DevOp::Fms => 3,
            DevOp::Add | DevOp::Sub | DevOp::Mul | DevOp::Div | DevOp::Min | DevOp::Max => 2,
            _ => 1,
        }
    }

    fn arith(self) -> bool {
        self.code() <= 6
    }
}

impl From<FloatOp> for DevOp {
    fn from(op: FloatOp) -> DevOp {
        match op {
            FloatOp::Add => DevOp::Add,
            FloatOp::Sub => DevOp::Sub,
            FloatOp::Mul => DevOp::Mul,
            FloatOp::Div => DevOp::Div,
            FloatOp::Min => DevOp::Min,
            FloatOp::Max => DevOp::Max,
            FloatOp::Sqrt => DevOp::Sqrt,
            FloatOp::Fma => DevOp::Fma,
            FloatOp::Fms => DevOp::Fms,
        }
    }
}

/// The kernels' rounding-mode code (N, Z, U, D, A = 0..4).
pub fn round_code(r: Round) -> u32 {
    match r {
        Round::Nearest => 0,
        Round::Zero => 1,
        Round::Up => 2,
        Round::Down => 3,
        Round::Away => 4,
    }
}

/// The scratch tier for `limbs` limbs (None above the largest).
pub fn tier_for(limbs: usize) -> Option<usize> {
    TIERS.iter().copied().find(|&t| t >= limbs)
}

fn inst_arith(tier: usize) -> Instance {
    Instance::new(&FLOAT_ARITH, &[("FL_NL", tier as i64)])
}

/// float_wide's two instances: add, sub, mul, fma, fms; with `extra`
/// division and square root.
fn inst_wide(extra: bool) -> Instance {
    if extra {
        Instance::new(&FLOAT_WIDE, &[("FW_EXTRA", 1)])
    } else {
        Instance::new(&FLOAT_WIDE, &[])
    }
}

fn inst_misc() -> Instance {
    Instance::new(&FLOAT_MISC, &[])
}

/// One segment table of `float_gather_segs` (float_misc.cu's `FlGatherTab`):
/// (source, words, destination offset) for up to 32 segments.
#[repr(C)]
#[derive(Clone, Copy)]
struct GatherTab {
    s: [[u64; 3]; 32],
}

// SAFETY: plain words, the layout of the kernel's struct (three u64 per
// segment), passed by value.
unsafe impl cudarc::driver::DeviceRepr for GatherTab {}

/// Copies the segments `(src, words, offset)` (device addresses of u64
/// words on `eng`, at most 32) into `dst` at their offsets in one launch
/// (`float_gather_segs`). The caller keeps the sources alive and the offsets
/// inside `dst` (in words).
pub(crate) fn gather(
    eng: &Arc<CudaEngine>,
    segs: &[(u64, u64, u64)],
    dst: &mut CudaSlice<u64>,
) -> Result<()> {
    if segs.is_empty() {
        return Ok(());
    }
    if segs.len() > 32
        || segs
            .iter()
            .any(|&(_, len, off)| off + len > dst.len() as u64)
    {
        return Err(Error::Invalid("float_gather_segs: bad segments".into()));
    }
    let mut tab = GatherTab { s: [[0; 3]; 32] };
    for (t, &(src, len, off)) in tab.s.iter_mut().zip(segs) {
        *t = [src, len, off];
    }
    let f = eng.function(&inst_misc(), "float_gather_segs")?;
    let nseg = segs.len() as u32;
    let mut b = eng.stream().launch_builder(&f);
    b.arg(dst).arg(&tab).arg(&nseg);
    let c = cudarc::driver::LaunchConfig {
        grid_dim: (nseg, 1, 1),
        block_dim: (128, 1, 1),
        shared_mem_bytes: 0,
    };
    // SAFETY: every segment's source holds `len` words (the caller's
    // buffers), its destination range is inside dst (checked above).
    unsafe { b.launch(c) }.map_err(Error::driver("launching float_gather_segs"))?;
    Ok(())
}

/// Every instantiation this module can request.
pub fn instances() -> Vec<Instance> {
    let mut v: Vec<Instance> = TIERS.iter().map(|&t| inst_arith(t)).collect();
    v.push(inst_wide(false));
    v.push(inst_wide(true));
    v.push(inst_misc());
    v
}

/// Which arithmetic kernel a launch uses.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Kind {
    /// float_mul_tile: equal precisions of exactly `tier <= 16` limbs.
    MulTile,
    /// float_mulshort_tile, float_add_tile, float_sqrt_tile: equal
    /// precisions of exactly `tier` limbs (16 at most; 8 for sqrt), in
    /// registers, staged I/O.
    FastTile,
    /// float_arith_tile: operands, result and scratch in shared memory.
    Tile,
    /// float_arith_smem: scratch in shared memory, operands in global.
    Smem,
    /// float_arith: scratch in local memory (any size up to the tier).
    Local,
    /// float_wide: a group of `gs` lanes per element (add, sub, mul, fma,
    /// fms above 16 limbs).
    Wide,
}

#[derive(Clone, Copy, Debug)]
struct Plan {
    kind: Kind,
    /// Shared scratch limbs per thread (odd).
    stride: u32,
    block: u32,
    smem_bytes: u32,
    /// Lanes per element (Wide only).
    gs: u32,
}

/// Largest dynamic shared memory a launch asks for without opting in.
const SMEM_LIMIT: u32 = 48 * 1024;

/// The scratch limbs of float_common.cuh's fl_scratch.
fn scratch_limbs(op: DevOp, n: usize, lx: usize, ly: usize, lz: usize) -> usize {
    let mx = n.max(lx).max(ly).max(lz);
    match op {
        DevOp::Add | DevOp::Sub => 2 * mx + 3,
        DevOp::Mul => lx + ly,
        DevOp::Div => {
            let ul = lx.max(ly + n + 1);
            2 * ul + 1
        }
        DevOp::Sqrt => 3 * (2 * mx + 4),
        _ => {
            let w = (lx + ly).max(lz).max(n) + 1;
            2 * w + 1 + lx + ly
        }
    }
}

/// Products, sums and differences of equal precisions at a tier of at most
/// 16 limbs (square roots: 8) take the register kernels with staged I/O
/// (products of 1-3 limbs the exact product, from 4 limbs the short one;
/// `MPARRAY_FLOAT_KERNEL=mulfull` keeps the exact one, `plain` the kernels
/// without PTX carry chains); the other operations the shared-scratch
/// kernel when the scratch of a block of 64 (or 32) threads fits in 48 KiB,
/// else local memory. The staged kernel for every operation
/// (`float_arith_tile`) measured 1.3-1.7x slower than the shared-scratch
/// one on add, div and sqrt (its larger shared footprint costs occupancy),
/// so it is only used when asked: `MPARRAY_FLOAT_KERNEL=local|smem|tile`
/// forces a kind (for measurements). Above 16 limbs, add, sub, mul, fma
/// and fms take float_wide (a group of lanes per element; `nowide` keeps
/// the thread-per-element kernels, `wide` forces it at every size).
fn plan_arith(op: DevOp, n: usize, lx: usize, ly: usize, lz: usize, tier: usize) -> Plan {
    let stride = (scratch_limbs(op, n, lx, ly, lz) | 1) as u32;
    let cap = std::env::var("MPARRAY_FLOAT_KERNEL").ok();
    let local = Plan {
        kind: Kind::Local,
        stride,
        block: if tier <= 16 { 128 } else { 64 },
        smem_bytes: 0,
        gs: 1,
    };
    let uniform = n == tier && lx == tier && (ly == tier || op == DevOp::Sqrt) && tier <= 16;
    let fast = op == DevOp::Mul && uniform;
    let fast_tile = uniform
        && match op {
            DevOp::Mul => tier >= 4,
            DevOp::Add | DevOp::Sub => true,
            DevOp::Sqrt => tier <= 8,
            _ => false,
        };
    let tile_plan = |kind| Plan {
        kind,
        stride,
        block: 128,
        smem_bytes: 0,
        gs: 1,
    };
    let odd = |l: usize| (l | 1) as u32;
    let staged = odd(lx) + odd(ly) + odd(lz) + odd(n) + stride;
    let fit = |kind: Kind, per_thread: u32| {
        [64u32, 32]
            .into_iter()
            .find(|b| per_thread * b * 8 <= SMEM_LIMIT)
            .map(|block| Plan {
                kind,
                stride,
                block,
                smem_bytes: per_thread * block * 8,
                gs: 1,
            })
    };
    // Measured (notes/float.md): products from 17 limbs beat the
    // thread-per-element kernels (1088 bits: mul 1.07 vs 0.71 G/s); sums
    // only above 32 limbs (2048 bits: 1.19 vs 1.20, 1088: 1.64 vs 2.03).
    // Division and square root by the group (float_wide.cu's fw_divreg,
    // fw_sqrt_num; notes/float.md), measured against the thread
    // kernels: division 1088 bits 0.40 vs 0.53 G/s, 2048 0.215 vs 0.147,
    // 16384 5.7x: from 24 limbs (the crossover interpolated at ~22);
    // square root 2048 0.044 vs 0.067, 4096 0.0145 vs 0.0130, 16384 7x:
    // from 57 limbs (interpolated at ~55). MPARRAY_FLOAT_WIDE_DIV / _SQRT
    // = 1 or 0 force them on or off from 17 limbs.
    let m = n.max(lx).max(ly).max(lz);
    let on = |var: &str, default: bool| match std::env::var(var).as_deref() {
        Ok("1") => true,
        Ok("0") => false,
        _ => default,
    };
    let wide = match op {
        DevOp::Mul | DevOp::Fma | DevOp::Fms => tier > 16,
        DevOp::Add | DevOp::Sub => tier > 32,
        DevOp::Div => tier > 16 && on("MPARRAY_FLOAT_WIDE_DIV", m >= 24),
        DevOp::Sqrt => tier > 16 && on("MPARRAY_FLOAT_WIDE_SQRT", m >= 57),
        _ => false,
    };
    match cap.as_deref() {
        Some("local") => local,
        Some("tile") => fit(Kind::Tile, staged)
            .or_else(|| fit(Kind::Smem, stride))
            .unwrap_or(local),
        Some("smem") => fit(Kind::Smem, stride).unwrap_or(local),
        Some("nowide") if !fast_tile && !fast => fit(Kind::Smem, stride).unwrap_or(local),
        Some("wide")
            if matches!(
                op,
                DevOp::Add
                    | DevOp::Sub
                    | DevOp::Mul
                    | DevOp::Div
                    | DevOp::Sqrt
                    | DevOp::Fma
                    | DevOp::Fms
            ) =>
        {
            plan_wide(op, n, lx, ly, lz)
        }
        _ if wide => plan_wide(op, n, lx, ly, lz),
        Some("mulfull") if fast => tile_plan(Kind::MulTile),
        _ if fast_tile => tile_plan(Kind::FastTile),
        _ if fast => tile_plan(Kind::MulTile),
        _ => fit(Kind::Smem, stride).unwrap_or(local),
    }
}

/// Lanes per element of float_wide, from the largest limb count m: products
/// m/8 (more elements in flight), sums m/4, fma and fms m/2 (their serial
/// sum after the product), within 8..32; the best of 4/8/16/32 measured at
/// 2048, 4096 and 8192 bits (notes/float.md).
/// `MPARRAY_FLOAT_WIDE_G=4|8|16|32` forces one, for measurements.
fn wide_group_size(op: DevOp, n: usize, lx: usize, ly: usize, lz: usize) -> u32 {
    if let Some(g) = std::env::var("MPARRAY_FLOAT_WIDE_G")
        .ok()
        .and_then(|v| v.parse::<u32>().ok())
        .filter(|g| [4, 8, 16, 32].contains(g))
    {
        return g;
    }
    let m = n.max(lx).max(ly).max(lz);
    let per = match op {
        DevOp::Mul => 8,
        DevOp::Fma | DevOp::Fms => 2,
        _ => 4,
    };
    (m / per).next_power_of_two().clamp(8, 32) as u32
}

/// Shared limbs of one group of float_wide (float_wide.cu's fw_layout).
fn wide_smem_limbs(op: DevOp, n: usize, lx: usize, ly: usize, lz: usize) -> usize {
    const C: usize = 4;
    let sk = |j: usize| j + (j >> 2);
    if op == DevOp::Div {
        // X, Y, the quotient twice (ul - ly + 1 limbs), the result.
        let ul = lx.max(ly + n + 1);
        return lx + ly + 2 * (ul - ly + 1) + n;
    }
    if op == DevOp::Sqrt {
        // X, then NN, S, R, Q, QQ, U, the square's operands and buffers.
        let m = (n + 1).max(lx / 2 + 1);
        let nbc = (2 * m).div_ceil(C) * C;
        return lx + 7 * m + 8 + sk(m) + 1 + sk(m + 2 * C) + 1 + 2 * nbc + C + n;
    }
    let prod = matches!(op, DevOp::Mul | DevOp::Fma | DevOp::Fms);
    let fma = matches!(op, DevOp::Fma | DevOp::Fms);
    let mut c = if prod {
        sk(lx) + 1 + sk(ly + 2 * C) + 1
    } else {
        lx + ly
    };
    if fma {
        c += lz;
    }
    if prod {
        let nbc = (lx + ly).div_ceil(C) * C;
        c += 2 * nbc + C;
    }
    let w = match op {
        DevOp::Add | DevOp::Sub => lx.max(ly).max(n) + 1,
        DevOp::Mul => 0,
        _ => (lx + ly).max(lz).max(n) + 1,
    };
    if w > 0 {
        c += 2 * (w + 1);
    }
    c + n
}

/// The group division's shape (float_wide.cu's fw_divreg<B>): `gs` lanes
/// (forced by `MPARRAY_FLOAT_WIDE_G`, else `min_gs`: 4 for division, 8 for
/// the square root: the measured best at 2048 bits), doubled until 8 gs
/// reaches ly, and B the least of 2, 4, 6, 8 divisor limbs per lane with
/// gs B at least ly (tests/emu/floatwide/wemu.cpp's div_shape: the same).
fn wide_div_shape(ly: usize, min_gs: u32) -> (u32, u32) {
    let mut gs = std::env::var("MPARRAY_FLOAT_WIDE_G")
        .ok()
        .and_then(|v| v.parse::<u32>().ok())
        .filter(|g| [4, 8, 16, 32].contains(g))
        .unwrap_or(min_gs);
    while (gs as usize) * 8 < ly && gs < 32 {
        gs *= 2;
    }
    let b = [2u32, 4, 6, 8]
        .into_iter()
        .find(|&b| (gs * b) as usize >= ly)
        .unwrap_or(8);
    (gs, b)
}

/// The limbs of the group square root's largest divisor (float_wide.cu's
/// fw_sqrt_num: ceil(m / 2), m = max(n + 1, lx / 2 + 1)).
fn sqrt_m(n: usize, lx: usize) -> usize {
    (n + 1).max(lx / 2 + 1).div_ceil(2)
}

/// Groups of `gs` lanes, as many per block (up to 128 threads) as fit in
/// 48 KiB of shared memory.
fn plan_wide(op: DevOp, n: usize, lx: usize, ly: usize, lz: usize) -> Plan {
    let gs = if op == DevOp::Div {
        wide_div_shape(ly, 4).0
    } else if op == DevOp::Sqrt {
        wide_div_shape(sqrt_m(n, lx), 8).0
    } else {
        wide_group_size(op, n, lx, ly, lz)
    };
    let stride = (wide_smem_limbs(op, n, lx, ly, lz) | 1) as u32;
    let gpb = (128 / gs).min(SMEM_LIMIT / (stride * 8)).max(1);
    Plan {
        kind: Kind::Wide,
        stride,
        block: gpb * gs,
        smem_bytes: gpb * stride * 8,
        gs,
    }
}

/// `MPARRAY_FLOAT_KERNEL=plain`: the register product and root kernels
/// without PTX carry chains (for comparison).
fn plain_kernels() -> bool {
    std::env::var("MPARRAY_FLOAT_KERNEL").is_ok_and(|v| v == "plain")
}

/// `len` floats of one precision on a CUDA device.
pub(crate) struct CudaFloats {
    eng: Arc<CudaEngine>,
    prec: u64,
    n: usize,
    len: usize,
    head: CudaSlice<u64>,
    limbs: CudaSlice<u64>,
}

impl std::fmt::Debug for CudaFloats {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "CudaFloats {{ len: {}, prec: {}, engine: cuda }}",
            self.len, self.prec
        )
    }
}

fn check_cuda_prec(p: u64) -> Result<usize> {
    let n = check_prec(p)?;
    if p > MAX_CUDA_PREC {
        return Err(Error::Invalid(format!(
            "precision {p} bits: float arrays on CUDA go up to {MAX_CUDA_PREC} bits; use the \
             CPU engine above"
        )));
    }
    Ok(n)
}

fn upload(eng: &Arc<CudaEngine>, data: &[u64]) -> Result<CudaSlice<u64>> {
    crate::engine::cuda::memory::upload(eng, data)
}

fn grid(len: usize, block: u32) -> LaunchConfig {
    let blocks = (len as u64).div_ceil(block as u64).clamp(1, 132 * 64) as u32;
    LaunchConfig {
        grid_dim: (blocks, 1, 1),
        block_dim: (block, 1, 1),
        shared_mem_bytes: 0,
    }
}

impl CpuFloats {
    /// A copy on the CUDA device `eng` (precisions up to [`MAX_CUDA_PREC`]).
    pub fn to_cuda(&self, eng: &Arc<CudaEngine>) -> Result<CudaFloats> {
        let head: Vec<u64> = self
            .tags
            .iter()
            .zip(&self.exps)
            .map(|(&t, &e)| ((e as u64) << 8) | t as u64)
            .collect();
        Ok(CudaFloats {
            eng: eng.clone(),
            prec: self.prec,
            n: self.n,
            len: self.len,
            head: upload(eng, &head)?,
            limbs: upload(eng, &self.limbs)?,
        })
    }
}

impl CudaFloats {
    /// `len` positive zeros of precision `prec` on `eng`.
    pub fn zeros(eng: &Arc<CudaEngine>, len: usize, prec: u64) -> Result<CudaFloats> {
        Self::alloc(eng, len, prec, true)
    }

    /// An array of `len` elements with uninitialised heads and limbs, for
    /// kernels that write every element (the function kernels).
    pub(crate) fn uninit(eng: &Arc<CudaEngine>, len: usize, prec: u64) -> Result<CudaFloats> {
        Self::alloc(eng, len, prec, false)
    }

    /// [`CudaFloats::zeros`] (`zeroed`) or [`CudaFloats::uninit`].
    fn alloc(eng: &Arc<CudaEngine>, len: usize, prec: u64, zeroed: bool) -> Result<CudaFloats> {
        use crate::engine::cuda::memory::{alloc, alloc_zeros};
        let n = check_prec(prec)?;
        let total = len
            .checked_mul(n)
            .ok_or_else(|| Error::Invalid(format!("{len} elements of {prec} bits do not fit")))?;
        let (head, limbs) = if zeroed {
            (alloc_zeros(eng, len)?, alloc_zeros(eng, total)?)
        } else {
            (alloc(eng, len)?, alloc(eng, total)?)
        };
        Ok(CudaFloats {
            eng: eng.clone(),
            prec,
            n,
            len,
            head,
            limbs,
        })
    }

    pub fn len(&self) -> usize {
        self.len
    }

    pub fn prec(&self) -> u64 {
        self.prec
    }

    pub fn engine(&self) -> &Arc<CudaEngine> {
        &self.eng
    }

    /// Limbs per element (`ceil(prec / 64)`).
    pub fn limbs_per_element(&self) -> usize {
        self.n
    }

    /// The device buffers (heads, limbs), for the function kernels.
    pub(crate) fn raw_parts(&self) -> (&CudaSlice<u64>, &CudaSlice<u64>) {
        (&self.head, &self.limbs)
    }

    pub(crate) fn raw_parts_mut(&mut self) -> (&mut CudaSlice<u64>, &mut CudaSlice<u64>) {
        (&mut self.head, &mut self.limbs)
    }

    /// Elements `range` as a new array on the same device.
    pub(crate) fn copy_range(&self, range: std::ops::Range<usize>) -> Result<CudaFloats> {
        use crate::engine::cuda::memory::copy_range;
        Ok(CudaFloats {
            eng: self.eng.clone(),
            prec: self.prec,
            n: self.n,
            len: range.len(),
            head: copy_range(&self.eng, &self.head, range.clone())?,
            limbs: copy_range(
                &self.eng,
                &self.limbs,
                range.start * self.n..range.end * self.n,
            )?,
        })
    }

    /// Writes all of `src` (same precision) to elements `at..` of `self`.
    pub(crate) fn write_at(&mut self, at: usize, src: &CudaFloats) -> Result<()> {
        use crate::engine::cuda::memory::write_at;
        if src.prec != self.prec || at + src.len > self.len {
            return Err(Error::Shape(format!(
                "write_at: {} elements of {} bits at {at} into {} of {} bits",
                src.len, src.prec, self.len, self.prec
            )));
        }
        write_at(&self.eng, &src.head, src.len, &mut self.head, at)?;
        write_at(
            &self.eng,
            &src.limbs,
            src.len * self.n,
            &mut self.limbs,
            at * self.n,
        )
    }

    /// A copy on the same device.
    pub fn copy(&self) -> Result<CudaFloats> {
        use crate::engine::cuda::memory::copy;
        Ok(CudaFloats {
            eng: self.eng.clone(),
            prec: self.prec,
            n: self.n,
            len: self.len,
            head: copy(&self.eng, &self.head)?,
            limbs: copy(&self.eng, &self.limbs)?,
        })
    }

    /// The array back on the host.
    pub fn to_host(&self) -> Result<CpuFloats> {
        let mut head = crate::engine::cuda::memory::download(&self.eng, &self.head)?;
        head.truncate(self.len);
        let mut limbs = crate::engine::cuda::memory::download(&self.eng, &self.limbs)?;
        limbs.truncate(self.len * self.n);
        Ok(CpuFloats {
            prec: self.prec,
            n: self.n,
            len: self.len,
            tags: head.iter().map(|&h| h as u8).collect(),
            exps: head.iter().map(|&h| (h as i64) >> 8).collect(),
            limbs,
        })
    }

    fn same(&self, o: &CudaFloats) -> Result<()> {
        if o.len != self.len {
            return Err(Error::Shape(format!(
                "operands have {} and {} elements",
                self.len, o.len
            )));
        }
        if !Arc::ptr_eq(&self.eng, &o.eng) {
            return Err(Error::Invalid("operands live on different engines".into()));
        }
        Ok(())
    }

    /// `op` of `self` and `more` into `out` (whose precision governs), with
    /// the ternary values into `ternary` when given (`len` bytes).
    pub fn op_into(
        &self,
        op: DevOp,
        more: &[&CudaFloats],
        out: &mut CudaFloats,
        rnd: Round,
        ternary: Option<&mut CudaSlice<i8>>,
    ) -> Result<()> {
        let _op = memory::op_scope("float arithmetic");
        if more.len() + 1 != op.arity() {
            return Err(Error::Invalid(format!(
                "{op:?} takes {} operands, got {}",
                op.arity(),
                more.len() + 1
            )));
        }
        for m in more {
            self.same(m)?;
        }
        self.same(out)?;
        if let Some(t) = &ternary
            && t.len() < self.len
        {
            return Err(Error::Shape(format!(
                "{} ternary slots for {} elements",
                t.len(),
                self.len
            )));
        }
        if self.len == 0 {
            return Ok(());
        }
        let eng = self.eng.clone();
        let y = more.first().copied().unwrap_or(self);
        let z = more.get(1).copied().unwrap_or(self);
        let (ly, lz) = (
            if more.is_empty() { 0 } else { y.n as u32 },
            if more.len() < 2 { 0 } else { z.n as u32 },
        );
        let mut dummy;
        let (tern, want) = match ternary {
            Some(t) => (t, 1u32),
            None => {
                dummy = memory::alloc_zeros::<i8>(&eng, 1)?;
                (&mut dummy, 0u32)
            }
        };
        let (len, code, rc, p, n, lx) = (
            self.len as u64,
            op.code(),
            round_code(rnd),
            out.prec,
            out.n as u32,
            self.n as u32,
        );
        if op.arith() {
            let need = [out.n, self.n, ly as usize, lz as usize]
                .into_iter()
                .max()
                .unwrap_or(1);
            let tier = tier_for(need).ok_or_else(|| {
                Error::Invalid(format!("{need} limbs exceed the CUDA float tiers"))
            })?;
            let plan = plan_arith(op, out.n, self.n, ly as usize, lz as usize, tier);
            let name = match plan.kind {
                Kind::MulTile => "float_mul_tile",
                Kind::FastTile => match (op, plain_kernels()) {
                    (DevOp::Mul, false) => "float_mulshort_tile",
                    (DevOp::Mul, true) => "float_mulshort_tile_c",
                    (DevOp::Sqrt, false) => "float_sqrt_tile",
                    (DevOp::Sqrt, true) => "float_sqrt_tile_c",
                    _ => "float_add_tile",
                },
                Kind::Tile => "float_arith_tile",
                Kind::Smem => "float_arith_smem",
                Kind::Local => "float_arith",
                Kind::Wide if op == DevOp::Div => match wide_div_shape(ly as usize, 4).1 {
                    2 => "float_wide_div2",
                    4 => "float_wide_div4",
                    6 => "float_wide_div6",
                    _ => "float_wide_div8",
                },
                Kind::Wide if op == DevOp::Sqrt => match wide_div_shape(sqrt_m(out.n, self.n), 8).1
                {
                    2 => "float_wide_sqrt2",
                    4 => "float_wide_sqrt4",
                    6 => "float_wide_sqrt6",
                    _ => "float_wide_sqrt8",
                },
                Kind::Wide => match std::env::var("MPARRAY_FLOAT_WIDE_REGS").as_deref() {
                    Ok("full") => "float_wide_r",
                    _ => "float_wide",
                },
            };
            let f = if plan.kind == Kind::Wide {
                eng.function(&inst_wide(matches!(op, DevOp::Div | DevOp::Sqrt)), name)?
            } else {
                eng.function(&inst_arith(tier), name)?
            };
            let stride = plan.stride;
            let mut b = eng.stream().launch_builder(&f);
            b.arg(&mut out.head).arg(&mut out.limbs).arg(tern);
            if plan.kind == Kind::MulTile {
                b.arg(&self.head)
                    .arg(&self.limbs)
                    .arg(&y.head)
                    .arg(&y.limbs)
                    .arg(&len)
                    .arg(&rc)
                    .arg(&p)
                    .arg(&want);
            } else if plan.kind == Kind::FastTile {
                b.arg(&self.head)
                    .arg(&self.limbs)
                    .arg(&y.head)
                    .arg(&y.limbs)
                    .arg(&len)
                    .arg(&code)
                    .arg(&rc)
                    .arg(&p)
                    .arg(&want);
            } else {
                b.arg(&self.head)
                    .arg(&self.limbs)
                    .arg(&y.head)
                    .arg(&y.limbs)
                    .arg(&z.head)
                    .arg(&z.limbs)
                    .arg(&len)
                    .arg(&code)
                    .arg(&rc)
                    .arg(&p)
                    .arg(&n)
                    .arg(&lx)
                    .arg(&ly)
                    .arg(&lz)
                    .arg(&want);
                if matches!(plan.kind, Kind::Tile | Kind::Smem) {
                    b.arg(&stride);
                }
                if plan.kind == Kind::Wide {
                    b.arg(&plan.gs).arg(&stride);
                }
            }
            let mut cfg = grid(self.len, plan.block);
            if plan.kind == Kind::Wide {
                // One element per group: blocks for len / (groups per block).
                let gpb = (plan.block / plan.gs) as usize;
                cfg = grid(self.len.div_ceil(gpb), 1);
                cfg.block_dim = (plan.block, 1, 1);
            }
            cfg.shared_mem_bytes = plan.smem_bytes;
            // SAFETY: every buffer holds len elements of its own limb count;
            // the kernel writes out's len heads and len*n limbs (and len
            // ternary bytes when want is set); the shared memory holds what
            // the kernel lays out (plan_arith mirrors fl_scratch).
            unsafe { b.launch(cfg) }.map_err(Error::driver("launching float_arith"))?;
        } else {
            let k = match op {
                DevOp::Mul2si(k) => k,
                _ => 0i64,
            };
            let f = eng.function(&inst_misc(), "float_misc")?;
            let mut b = eng.stream().launch_builder(&f);
            b.arg(&mut out.head)
                .arg(&mut out.limbs)
                .arg(tern)
                .arg(&self.head)
                .arg(&self.limbs)
                .arg(&y.head)
                .arg(&y.limbs)
                .arg(&len)
                .arg(&code)
                .arg(&rc)
                .arg(&p)
                .arg(&n)
                .arg(&lx)
                .arg(&ly)
                .arg(&k)
                .arg(&want);
            // SAFETY: as above; no scratch.
            unsafe { b.launch(grid(self.len, 256)) }
                .map_err(Error::driver("launching float_misc"))?;
        }
        Ok(())
    }

    /// `op` into a new array of precision `prec`, with the ternary values
    /// (on the device).
    pub fn op_ternary(
        &self,
        op: DevOp,
        more: &[&CudaFloats],
        prec: u64,
        rnd: Round,
    ) -> Result<(CudaFloats, CudaSlice<i8>)> {
        let _op = memory::op_scope("float arithmetic");
        let mut out = CudaFloats::zeros(&self.eng, self.len, prec)?;
        let mut t = memory::alloc_zeros::<i8>(&self.eng, self.len)?;
        self.op_into(op, more, &mut out, rnd, Some(&mut t))?;
        Ok((out, t))
    }

    /// Element-wise comparison (None with a NaN; +0 == -0).
    #[allow(clippy::should_implement_trait)]
    pub fn cmp(&self, other: &CudaFloats) -> Result<Vec<Option<Ordering>>> {
        self.same(other)?;
        if self.len == 0 {
            return Ok(Vec::new());
        }
        let eng = &self.eng;
        let mut out = memory::alloc_zeros::<i8>(eng, self.len)?;
        let f = eng.function(&inst_misc(), "float_cmp")?;
        let (len, lx, ly) = (self.len as u64, self.n as u32, other.n as u32);
        let mut b = eng.stream().launch_builder(&f);
        b.arg(&mut out)
            .arg(&self.head)
            .arg(&self.limbs)
            .arg(&other.head)
            .arg(&other.limbs)
            .arg(&len)
            .arg(&lx)
            .arg(&ly);
        // SAFETY: out holds len bytes; the operands len elements each.
        unsafe { b.launch(grid(self.len, 256)) }.map_err(Error::driver("launching float_cmp"))?;
        let v = memory::download(eng, &out)?;
        Ok(v.into_iter()
            .map(|c| match c {
                -1 => Some(Ordering::Less),
                0 => Some(Ordering::Equal),
                1 => Some(Ordering::Greater),
                _ => None,
            })
            .collect())
    }
}
