//! Correctly rounded functions on CUDA float arrays (issue 5): exp, exp2,
//! log, sin, cos and atan evaluated on the device (src/kernels/float_func.cu), a
//! thread per element in fixed point at a tier of `K` limbs with a proven
//! error bound and the CPU's acceptance test. Elements whose rounding the
//! kernel cannot decide are gathered on the device and re-run at the next
//! larger tiers (up to `RETRY_TIERS`), then scattered back; the cases the
//! kernel leaves to the host (huge arguments, reductions needing a longer
//! pi) and those still undecided are re-evaluated by the CPU engine. The
//! other functions (and precisions above the largest tier) run on the CPU
//! engine (download, evaluate, upload). See notes/func.md.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use cudarc::driver::{CudaSlice, LaunchConfig, PushKernelArg};
use malachite_nz::natural::Natural;

use super::consts::{Const, fixed};
use super::{Func, FuncStats};
use crate::engine::CudaEngine;
use crate::engine::cuda::memory;
use crate::error::{Error, Result};
use crate::float::cuda::{CudaFloats, round_code};
use crate::float::{CpuFloats, FloatArray, Round, limbs_for_prec};
use crate::kernels::{FLOAT_FUNC, Instance};

/// Fixed-point tiers in limbs (`F = 64 K - 4` fraction bits).
pub const FUNC_TIERS: [usize; 16] = [3, 4, 5, 6, 7, 8, 9, 10, 12, 14, 16, 18, 20, 24, 28, 34];

/// The kernel's function code, `None` for the functions it does not
/// evaluate (they run on the CPU engine).
pub fn device_code(f: Func) -> Option<u32> {
    match f {
        Func::Exp => Some(0),
        Func::Log => Some(1),
        Func::Sin => Some(2),
        Func::Cos => Some(3),
        Func::Atan => Some(4),
        Func::Exp2 => Some(5),
        Func::Log2 => Some(6),
        Func::Log10 => Some(7),
        Func::Log1p => Some(8),
        Func::Expm1 => Some(9),
        Func::Sinh => Some(10),
        Func::Cosh => Some(11),
        Func::Tanh => Some(12),
        Func::Asinh => Some(13),
        Func::Acosh => Some(14),
        Func::Atanh => Some(15),
        Func::Asin => Some(16),
        Func::Acos => Some(17),
        Func::Cbrt => Some(18),
        Func::Tan => Some(32),
        #[allow(unreachable_patterns)]
        _ => None,
    }
}

/// The tier for output precision `p` and input limbs `nx`: `F` must cover
/// `p + 2` bits, exp's error bound (`(N + 3) 2^(s+4)`, `s ~ 0.9 sqrt(F)`;
/// the largest of the five) and 20 more bits, so that about one element in
/// 2^20 or fewer needs the host; the kernel also needs `K >= nx + 2`.
pub fn tier(p: u64, nx: usize) -> Option<usize> {
    let s = 0.9 * ((p + 64) as f64).sqrt() + 1.0;
    let need = p as f64 + 2.0 + s + 10.0 + 20.0 + 4.0;
    FUNC_TIERS
        .iter()
        .copied()
        .find(|&k| (64 * k - 4) as f64 >= need && k >= nx + 2)
}

/// The float_func module of every function at tier `k`.
pub(crate) fn inst(k: usize) -> Instance {
    Instance::new(&FLOAT_FUNC, &[("FF_K", k as i64)])
}

/// The families of float_func.cu's `FF_ONLY`: the first code of the
/// functions sharing one value core (exp/exp2, sin/cos, log2/log10,
/// sinh/cosh, asin/acos; the others alone), one-argument ones below 33.
pub const FAMILIES: [u32; 20] = [
    0, 1, 2, 4, 6, 8, 9, 10, 12, 13, 14, 15, 16, 18, 32, 33, 34, 35, 36, 37,
];

/// The family of kernel function code `code` (float_func.cu's `FF_HAS`).
pub fn family(code: u32) -> u32 {
    match code {
        5 => 0,
        3 => 2,
        7 => 6,
        11 => 10,
        17 => 16,
        c => c,
    }
}

/// The float_func module of one family (of kernel code `code`) at tier `k`.
pub fn inst_only(k: usize, code: u32) -> Instance {
    Instance::new(
        &FLOAT_FUNC,
        &[("FF_K", k as i64), ("FF_ONLY", family(code) as i64)],
    )
    .for_first_use()
}

/// The modules of all functions at every tier: what a warmed machine
/// runs (`mparray kernels compile --cache` stores them).
pub fn instances() -> Vec<Instance> {
    FUNC_TIERS.iter().map(|&k| inst(k)).collect()
}

/// Each family's module at every tier: what a first use compiles when the
/// module of all functions is not at hand (seconds instead of a minute).
pub fn family_instances() -> Vec<Instance> {
    FUNC_TIERS
        .iter()
        .flat_map(|&k| FAMILIES.iter().map(move |&f| inst_only(k, f)))
        .collect()
}

/// The module that evaluates a function at a tier: `all` (the module of
/// every function) when this engine has it loaded or in the disk cache, so
/// a warmed machine runs exactly that code, else `one` (the function's
/// family module: a first use compiles one function, seconds instead of a
/// minute; built with `--Ofast-compile`, while the fully optimised family
/// module is compiled in the background and takes over once it is in the
/// disk cache). The choice is remembered per engine once the module is at
/// hand; the flag says whether it is (false: using it means NVRTC first).
pub(crate) fn pick_module(eng: &Arc<CudaEngine>, all: Instance, one: Instance) -> (Instance, bool) {
    type Map = Mutex<HashMap<String, Instance>>;
    let Ok(map) = eng.resource("func_module_choice", |_| Ok(Map::default())) else {
        return (one, false);
    };
    // A first-use family module (`--Ofast-compile`) serves until the fully
    // optimised one, compiled in the background, is in the cache.
    let full = one.clone().optimised();
    let key = one.key();
    let lock = || map.lock().unwrap_or_else(|p| p.into_inner());
    if let Some(m) = lock().get(&key).cloned() {
        if m.first_use && CudaEngine::compiled_in_background(&full) && eng.is_ready(&full) {
            lock().insert(key, full.clone());
            return (full, true);
        }
        return (m, true);
    }
    let chosen = if eng.is_ready(&all) {
        all
    } else if eng.is_ready(&full) {
        full
    } else {
        if one.first_use {
            eng.compile_in_background(&full);
        }
        if eng.is_ready(&one) {
            one
        } else {
            return (one, false);
        }
    };
    lock().insert(key, chosen.clone());
    (chosen, true)
}

/// [`pick_module`] for float_func's code `code` at tier `k`.
pub(crate) fn module_of(eng: &Arc<CudaEngine>, k: usize, code: u32) -> (Instance, bool) {
    pick_module(eng, inst(k), inst_only(k, code))
}

/// `floor(v 2^f)` of a float element as `len` limbs.
fn elem_fixed(a: &CpuFloats, i: usize, f: u64, len: usize) -> Vec<u64> {
    let x = a.get(i);
    let mut out = vec![0u64; len];
    if x.class != crate::float::Class::Normal {
        return out;
    }
    let m = Natural::from_limbs_asc(x.limbs);
    let sh = f as i64 + x.exp - 64 * x.limbs.len() as i64;
    let v = if sh >= 0 {
        m << sh as u64
    } else {
        m >> (-sh) as u64
    };
    for (o, l) in out.iter_mut().zip(v.to_limbs_asc()) {
        *o = l;
    }
    out
}

fn nat_limbs(v: &Natural, len: usize) -> Vec<u64> {
    let mut out = vec![0u64; len];
    for (o, l) in out.iter_mut().zip(v.to_limbs_asc()) {
        *o = l;
    }
    out
}

/// The constants of tier `k` (float_func.cu's layout): ln 2 at F+64 bits,
/// pi/2 at F+128 and at F bits (each < 2 units off), atan(j/1024) for j =
/// 0..=1024, |log(j/1024)| for j = 724..=1448, sin(j/1024) and cos(j/1024)
/// for j = 0..=1024 at F bits (correctly rounded at F+16 bits by the CPU
/// engine, then floored: < 2 units off), the preinverses of the divisors
/// below 2^17, and exp(j/1024) for j = -360..=360 at F bits. Cached.
pub fn constants(k: usize) -> Result<Arc<Vec<u64>>> {
    static CACHE: Mutex<Option<HashMap<usize, Arc<Vec<u64>>>>> = Mutex::new(None);
    if let Some(v) = CACHE
        .lock()
        .unwrap_or_else(|p| p.into_inner())
        .get_or_insert_with(HashMap::new)
        .get(&k)
    {
        return Ok(v.clone());
    }
    let f = 64 * k as u64 - 4;
    let mut cs = nat_limbs(&fixed(Const::Ln2, f + 64), k + 1);
    cs.extend(nat_limbs(&fixed(Const::Pi, f + 127), k + 2));
    cs.extend(nat_limbs(&fixed(Const::Pi, f - 1), k));
    let pp = f + 16;
    let at: Vec<f64> = (0..=1024).map(|j| j as f64 / 1024.0).collect();
    let (a, _) = CpuFloats::from_f64s(pp, &at, Round::Nearest)?;
    let a = a.func(Func::Atan, pp, Round::Nearest)?;
    for j in 0..a.len() {
        cs.extend(elem_fixed(&a, j, f, k));
    }
    let lg: Vec<f64> = (724..=1448).map(|j| j as f64 / 1024.0).collect();
    let (l, _) = CpuFloats::from_f64s(pp, &lg, Round::Nearest)?;
    let l = l.func(Func::Log, pp, Round::Nearest)?;
    for j in 0..l.len() {
        cs.extend(elem_fixed(&l, j, f, k));
    }
    let tr: Vec<f64> = (0..=1024).map(|j| j as f64 / 1024.0).collect();
    let (t, _) = CpuFloats::from_f64s(pp, &tr, Round::Nearest)?;
    for f2 in [super::Func::Sin, super::Func::Cos] {
        let v = t.func(f2, pp, Round::Nearest)?;
        for j in 0..v.len() {
            cs.extend(elem_fixed(&v, j, f, k));
        }
    }
    // Preinverses of the small divisors (float_func.cu's FF_INV_N).
    cs.extend((0u64..1 << 17).map(|d| {
        let dn = d.max(1) << d.max(1).leading_zeros();
        (u128::MAX / dn as u128 - (1u128 << 64)) as u64
    }));
    let ej: Vec<f64> = (-360..=360).map(|j| j as f64 / 1024.0).collect();
    let (e, _) = CpuFloats::from_f64s(pp, &ej, Round::Nearest)?;
    let e = e.func(Func::Exp, pp, Round::Nearest)?;
    for j in 0..e.len() {
        cs.extend(elem_fixed(&e, j, f, k));
    }
    // 1/ln2 and 1/ln10 at F+64 bits (float_func_explog.cuh): floor(2^(2G+8)
    // / L) for L < 2 units from the constant at G+8 bits, G = F+64: off by
    // < 0.02 + 1 units.
    let g = f + 64;
    for c in [Const::Ln2, Const::Ln10] {
        let l = fixed(c, g + 8);
        let inv = (Natural::from(1u32) << (2 * g + 8)) / l;
        cs.extend(nat_limbs(&inv, k + 1));
    }
    let v = Arc::new(cs);
    CACHE
        .lock()
        .unwrap_or_else(|p| p.into_inner())
        .get_or_insert_with(HashMap::new)
        .insert(k, v.clone());
    Ok(v)
}

/// The constants of tier `k` on the device, uploaded once per engine.
pub(crate) fn device_constants(eng: &Arc<CudaEngine>, k: usize) -> Result<Arc<CudaSlice<u64>>> {
    type Map = Mutex<HashMap<usize, Arc<CudaSlice<u64>>>>;
    let map = eng.resource("float_func_constants", |_| Ok(Map::default()))?;
    let lock = || map.lock().unwrap_or_else(|p| p.into_inner());
    if let Some(v) = lock().get(&k) {
        return Ok(v.clone());
    }
    // Not locked while they are made: `constants` runs rayon work, whose
    // worker may take another call's job that enters here (a deadlock).
    let v = Arc::new(crate::engine::cuda::memory::upload(eng, &constants(k)?)?);
    Ok(lock().entry(k).or_insert(v).clone())
}

/// Small batches in blocks of 32 threads (more SMs busy: the batch of 4096
/// is latency-bound), larger ones in blocks of 128.
pub(crate) fn block_for(len: usize) -> u32 {
    if len <= 132 * 128 * 4 { 32 } else { 128 }
}

pub(crate) fn grid(len: usize, block: u32) -> LaunchConfig {
    let blocks = (len as u64).div_ceil(block as u64).clamp(1, 132 * 64) as u32;
    LaunchConfig {
        grid_dim: (blocks, 1, 1),
        block_dim: (block, 1, 1),
        shared_mem_bytes: 0,
    }
}

pub(crate) fn heads_of(a: &CpuFloats) -> Vec<u64> {
    a.tags()
        .iter()
        .zip(a.exps())
        .map(|(&t, &e)| ((e as u64) << 8) | t as u64)
        .collect()
}

pub(crate) fn from_heads(prec: u64, heads: &[u64], limbs: Vec<u64>) -> Result<CpuFloats> {
    CpuFloats::from_raw(
        prec,
        heads.iter().map(|&h| h as u8).collect(),
        heads.iter().map(|&h| (h as i64) >> 8).collect(),
        limbs,
    )
}

/// The statistics of `n` elements all evaluated by the CPU engine.
pub(crate) fn host_stats(n: usize) -> FuncStats {
    let n = n as u64;
    FuncStats {
        elements: n,
        retried: n,
        device_retried: 0,
        host: n,
    }
}

/// How many larger tiers an undecided element is retried at on the device
/// before the CPU engine takes it.
pub const RETRY_TIERS: usize = 3;

/// Fewer undecided elements than this go straight to the CPU engine (a few
/// elements cost it microseconds each, about what one more launch costs,
/// and a tier not used yet would first be compiled); tests lower it to 1.
pub const RETRY_MIN: usize = 32;

/// Undecided elements go to a larger tier whose module is not at hand
/// (loaded or in the disk cache) only when there are at least this many:
/// NVRTC takes seconds, the CPU engine a few microseconds per element on
/// every core (the same bits either way).
pub const RETRY_COMPILE_MIN: usize = 1 << 20;

/// A first use of a real function at a tier of at least this many limbs
/// (output precisions above ~570 bits) with fewer than `FIRST_USE_CPU_MAX`
/// elements runs on the CPU engine (the same bits) instead of compiling
/// the tier's module: there the family modules take NVRTC 7-13 s on the
/// development machine (FF_K=34; at most 5.1 s up to FF_K=9,
/// notes/kernels.md), and such a batch costs the CPU engine a fraction of
/// that. The complex functions' bound is `complex::cuda_func`'s.
pub const FIRST_USE_CPU_TIER: usize = 10;

/// See [`FIRST_USE_CPU_TIER`].
pub const FIRST_USE_CPU_MAX: usize = 4096;

/// Whether small first uses go to the CPU engine ([`set_first_use_on_cpu`]).
static FIRST_USE_CPU: std::sync::atomic::AtomicBool = std::sync::atomic::AtomicBool::new(false);

/// Turns the small-batch rule of [`FIRST_USE_CPU_TIER`] on or off for this
/// process. Off by default (the library always runs a function on the
/// device, compiling its family module on first use); the `float` and
/// `complex` calculators of the command line turn it on, since people try
/// them with one small file first.
pub fn set_first_use_on_cpu(on: bool) {
    FIRST_USE_CPU.store(on, std::sync::atomic::Ordering::Relaxed);
}

/// Whether a batch of `len` elements at tier `k` whose module is not at
/// hand (`ready` false) goes to the CPU engine instead of NVRTC: with the
/// rule on, tiers from `min_tier`, fewer than `FIRST_USE_CPU_MAX` elements,
/// never with a test's `force`.
pub(crate) fn first_use_on_cpu(
    len: usize,
    k: usize,
    min_tier: usize,
    force: u32,
    ready: bool,
) -> bool {
    small_first_use(len, k, min_tier, force, ready)
        && FIRST_USE_CPU.load(std::sync::atomic::Ordering::Relaxed)
}

/// [`first_use_on_cpu`] with the rule on.
fn small_first_use(len: usize, k: usize, min_tier: usize, force: u32, ready: bool) -> bool {
    !ready && force == 0 && k >= min_tier && len < FIRST_USE_CPU_MAX
}

/// The tiers after `k` at which undecided elements are retried.
pub fn retry_tiers(k: usize) -> impl Iterator<Item = usize> {
    FUNC_TIERS
        .iter()
        .copied()
        .filter(move |&t| t > k)
        .take(RETRY_TIERS)
}

/// The tier of function code `code`: exp, sin and cos (codes 0, 2, 3) need
/// only `K >= nx + 1` (their reductions shift the input into K + 2 or more
/// limbs, and sin/cos's scaled `Z = M 2^(F - 64 nx)` is exact when `F >= 64
/// nx`), so a 512-bit input uses 9 limbs instead of 10; the others `tier`.
pub fn tier_of(code: u32, p: u64, nx: usize) -> Option<usize> {
    match code {
        0 | 2 | 3 => tier(p, nx.saturating_sub(1).max(1)).filter(|&k| k > nx),
        _ => tier(p, nx),
    }
}

/// The flag counters and list reused between calls (float_func.cu's
/// ff_store: two counters, undecided indices from the front, host cases
/// from the back), taken out of the engine's slot for a whole call.
pub(crate) struct FlagBufs {
    ctl: CudaSlice<u32>,
    flags: CudaSlice<u32>,
}

type FlagSlot = Mutex<Option<FlagBufs>>;

/// Runs `f` with the engine's flag buffers, or new ones while another call
/// holds them. They are taken out of the slot, not locked, for the call:
/// `f` may run host work on rayon, whose workers can enter here again (a
/// call from inside a parallel iterator), and a lock held across that
/// would deadlock.
pub(crate) fn with_flag_bufs<T>(
    eng: &Arc<CudaEngine>,
    f: impl FnOnce(&mut FlagBufs) -> Result<T>,
) -> Result<T> {
    let slot = eng.resource("float_func_flags", |_| Ok(FlagSlot::default()))?;
    let taken = slot.lock().unwrap_or_else(|p| p.into_inner()).take();
    let mut bufs = match taken {
        Some(b) => b,
        None => FlagBufs {
            ctl: memory::alloc_zeros_for::<u32>(eng, "flag counters", 2)?,
            flags: memory::alloc_zeros_for::<u32>(eng, "flag list", 1)?,
        },
    };
    let r = f(&mut bufs);
    *slot.lock().unwrap_or_else(|p| p.into_inner()) = Some(bufs);
    r
}

/// One launch of a function kernel with the ff_store protocol over `len`
/// elements: `launch` gets the counters and the flag list (cleared, at
/// least `len` slots); returns the undecided and host-case positions.
pub(crate) fn launch_flagged(
    eng: &Arc<CudaEngine>,
    bufs: &mut FlagBufs,
    len: usize,
    launch: impl FnOnce(&mut CudaSlice<u32>, &mut CudaSlice<u32>) -> Result<()>,
) -> Result<(Vec<u32>, Vec<u32>)> {
    let stream = eng.stream();
    if bufs.flags.len() < len {
        // Freed first: the old list is not needed and its room may be.
        bufs.flags = memory::alloc_zeros_for::<u32>(eng, "flag list", 1)?;
        // The kernel writes the slots it reports through ctl.
        bufs.flags = memory::alloc_for::<u32>(eng, "flag list", len.next_power_of_two())?;
    }
    stream
        .memset_zeros(&mut bufs.ctl)
        .map_err(Error::driver("clearing the flag counters"))?;
    launch(&mut bufs.ctl, &mut bufs.flags)?;
    let c = stream
        .clone_dtoh(&bufs.ctl)
        .map_err(Error::driver("copying from the device"))?;
    let (nu, nh) = (c[0] as usize, c[1] as usize);
    if nu + nh > len {
        return Err(Error::Invalid("float_func: flag counters overflow".into()));
    }
    let get = |a: usize, b: usize| -> Result<Vec<u32>> {
        if a == b {
            return Ok(Vec::new());
        }
        stream
            .clone_dtoh(&bufs.flags.slice(a..b))
            .map_err(Error::driver("copying from the device"))
    };
    Ok((get(0, nu)?, get(len - nh, len)?))
}

/// The retry protocol shared by the function kernels, on the device and in
/// the emulators. `pass(k, sel, force)` evaluates at tier `k` all `len`
/// elements (`sel` None) or the elements `sel` (gathered, results
/// scattered back), with the kernels' test-only `force`, and returns the
/// undecided and host-case positions among them; `ready(k)` says whether
/// tier `k`'s module is at hand without NVRTC. The first pass runs at tier
/// `k`; undecided elements (at least `RETRY_MIN`, or one with a `force`)
/// are re-run at the next `RETRY_TIERS` tiers, a tier not at hand only for
/// `RETRY_COMPILE_MIN` of them or with a `force`; returns the elements
/// left to the CPU engine (host cases and those still undecided) and the
/// statistics.
pub(crate) fn drive(
    len: usize,
    k: usize,
    force: u32,
    ready: impl Fn(usize) -> bool,
    pass: impl FnMut(usize, Option<&[u32]>, u32) -> Result<(Vec<u32>, Vec<u32>)>,
) -> Result<(Vec<u32>, FuncStats)> {
    let min = if force > 0 { 1 } else { RETRY_MIN };
    drive_min(len, k, force, min, ready, pass)
}

/// [`drive`] retrying `min` or more undecided elements (at least 1; the
/// complex functions' emulated tests ask for 1 without a `force`).
pub(crate) fn drive_min(
    len: usize,
    k: usize,
    force: u32,
    min: usize,
    ready: impl Fn(usize) -> bool,
    mut pass: impl FnMut(usize, Option<&[u32]>, u32) -> Result<(Vec<u32>, Vec<u32>)>,
) -> Result<(Vec<u32>, FuncStats)> {
    let (mut und, mut host) = pass(k, None, force.min(2))?;
    let first = und.len() + host.len();
    let min = min.max(1);
    for k2 in retry_tiers(k) {
        if und.len() < min {
            break;
        }
        // A first use never waits for NVRTC for a few hard elements.
        if force == 0 && und.len() < RETRY_COMPILE_MIN && !ready(k2) {
            break;
        }
        let (u2, h2) = pass(k2, Some(&und), if force >= 2 { 2 } else { 0 })?;
        host.extend(h2.iter().map(|&j| und[j as usize]));
        und = u2.iter().map(|&j| und[j as usize]).collect();
    }
    host.extend(und);
    let stats = FuncStats {
        elements: len as u64,
        retried: first as u64,
        device_retried: (first - host.len()) as u64,
        host: host.len() as u64,
    };
    Ok((host, stats))
}

/// One launch of `float_func` at tier `k` (module [`module_of`]'s) over
/// `len` elements: writes out/tern and returns the undecided and host-case
/// positions.
#[allow(clippy::too_many_arguments)]
fn launch_pass(
    eng: &Arc<CudaEngine>,
    bufs: &mut FlagBufs,
    k: usize,
    code: u32,
    rnd_arg: u32,
    prec: u64,
    x: (&CudaSlice<u64>, &CudaSlice<u64>),
    nx: usize,
    len: usize,
    out: &mut CudaFloats,
    tern: &mut CudaSlice<i8>,
) -> Result<(Vec<u32>, Vec<u32>)> {
    let func = eng.function(&module_of(eng, k, code).0, "float_func")?;
    let cs = device_constants(eng, k)?;
    let n = limbs_for_prec(prec);
    let (len64, n32, nx32) = (len as u64, n as u32, nx as u32);
    launch_flagged(eng, bufs, len, |ctl, flags| {
        let (rh, rl) = out.raw_parts_mut();
        let mut b = eng.stream().launch_builder(&func);
        b.arg(rh)
            .arg(rl)
            .arg(&mut *tern)
            .arg(x.0)
            .arg(x.1)
            .arg(&len64)
            .arg(&code)
            .arg(&rnd_arg)
            .arg(&prec)
            .arg(&n32)
            .arg(&nx32)
            .arg(&*cs)
            .arg(ctl)
            .arg(flags);
        // SAFETY: x holds len elements of nx limbs, out len of n limbs, tern
        // len slots, flags at least len slots, ctl two counters, cs the
        // tier's constants (float_func.cu's layout); each thread writes its
        // own element and one flag slot claimed by an atomic counter (the
        // two counters sum to at most len).
        unsafe { b.launch(grid(len, block_for(len))) }
            .map_err(Error::driver("launching float_func"))?;
        Ok(())
    })
}

/// Gathers the arguments at `idx` into a compact array (device), by module
/// `m`'s float_func_gather (every function module has it).
pub(crate) fn gather(
    eng: &Arc<CudaEngine>,
    m: &Instance,
    x: &CudaFloats,
    idx: &CudaSlice<u32>,
    cnt: usize,
) -> Result<(CudaSlice<u64>, CudaSlice<u64>)> {
    let nx = limbs_for_prec(x.prec());
    let mut gh = crate::engine::cuda::memory::alloc(eng, cnt)?;
    let mut gl = crate::engine::cuda::memory::alloc(eng, cnt * nx)?;
    let func = eng.function(m, "float_func_gather")?;
    let (xh, xl) = x.raw_parts();
    let (nx32, cnt32) = (nx as u32, cnt as u32);
    let mut b = eng.stream().launch_builder(&func);
    b.arg(&mut gh)
        .arg(&mut gl)
        .arg(xh)
        .arg(xl)
        .arg(&nx32)
        .arg(idx)
        .arg(&cnt32);
    // SAFETY: idx holds cnt indices below x.len(); gh/gl cnt elements.
    unsafe { b.launch(grid(cnt, 128)) }.map_err(Error::driver("launching float_func_gather"))?;
    Ok((gh, gl))
}

/// Scatters compact results (heads, limbs, ternary) to the elements `idx`
/// (module `m`'s float_func_scatter).
#[allow(clippy::too_many_arguments)]
pub(crate) fn scatter(
    eng: &Arc<CudaEngine>,
    m: &Instance,
    out: &mut CudaFloats,
    tern: &mut CudaSlice<i8>,
    idx: &CudaSlice<u32>,
    cnt: usize,
    src: (&CudaSlice<u64>, &CudaSlice<u64>, &CudaSlice<i8>),
) -> Result<()> {
    let n32 = limbs_for_prec(out.prec()) as u32;
    let cnt32 = cnt as u32;
    let func = eng.function(m, "float_func_scatter")?;
    let (rh, rl) = out.raw_parts_mut();
    let mut b = eng.stream().launch_builder(&func);
    b.arg(rh)
        .arg(rl)
        .arg(tern)
        .arg(&n32)
        .arg(idx)
        .arg(&cnt32)
        .arg(src.0)
        .arg(src.1)
        .arg(src.2);
    // SAFETY: idx holds cnt distinct indices below out.len(); the sources
    // hold cnt results of out's limb count.
    unsafe { b.launch(grid(cnt, 128)) }.map_err(Error::driver("launching float_func_scatter"))?;
    Ok(())
}

/// The elements `idx` (`cnt` of them, on the device) of `x` as a host
/// array (gathered on the device, one download).
pub(crate) fn gather_to_host(
    eng: &Arc<CudaEngine>,
    m: &Instance,
    x: &CudaFloats,
    idx: &CudaSlice<u32>,
    cnt: usize,
) -> Result<CpuFloats> {
    let nx = limbs_for_prec(x.prec());
    let (gh, gl) = gather(eng, m, x, idx, cnt)?;
    let mut hh = crate::engine::cuda::memory::download(eng, &gh)?;
    hh.truncate(cnt);
    let mut hl = crate::engine::cuda::memory::download(eng, &gl)?;
    hl.truncate(cnt * nx);
    from_heads(x.prec(), &hh, hl)
}

/// Writes the host results `r`, `t` to the elements `idx` of `out`, `tern`.
pub(crate) fn scatter_from_host(
    eng: &Arc<CudaEngine>,
    m: &Instance,
    out: &mut CudaFloats,
    tern: &mut CudaSlice<i8>,
    idx: &CudaSlice<u32>,
    r: &CpuFloats,
    t: &[i8],
) -> Result<()> {
    let sh = crate::engine::cuda::memory::upload(eng, &heads_of(r))?;
    let sl = crate::engine::cuda::memory::upload(eng, r.limbs())?;
    let st = memory::upload(eng, t)?;
    scatter(eng, m, out, tern, idx, r.len(), (&sh, &sl, &st))
}

/// `run(start, end)` on consecutive chunks of at most `c` of `len`
/// elements, in order, with their statistics summed: the chunked paths of
/// the real and the complex functions (when the result and the run's
/// temporaries do not fit in device memory at once).
pub(crate) fn in_chunks(
    len: usize,
    c: usize,
    mut run: impl FnMut(usize, usize) -> Result<FuncStats>,
) -> Result<FuncStats> {
    let mut stats = FuncStats::default();
    let mut start = 0;
    while start < len {
        let end = (start + c.max(1)).min(len);
        let s = run(start, end)?;
        stats.elements += s.elements;
        stats.retried += s.retried;
        stats.device_retried += s.device_retried;
        stats.host += s.host;
        start = end;
    }
    Ok(stats)
}

impl CudaFloats {
    /// `func_ternary` with the kernels' test-only `force` (float_func.cu's
    /// ff_kind): 1 makes the first pass call every third written element
    /// undecided (so the device retry runs), 2 every pass (so they reach
    /// the CPU engine too).
    ///
    /// When the result and the run's temporaries do not fit in the free
    /// device memory (or `MPARRAY_CUDA_MEM_LIMIT`), runs in chunks of
    /// elements (the same bits: every element is computed alone); when the
    /// result alone does not fit, an [`Error::DeviceMemory`] with the sizes.
    #[doc(hidden)]
    pub fn func_ternary_forced(
        &self,
        f: Func,
        prec: u64,
        rnd: Round,
        force: u32,
    ) -> Result<(CudaFloats, CudaSlice<i8>, FuncStats)> {
        let eng = self.engine().clone();
        let _op = memory::op_scope(f.name());
        let len = self.len();
        let (n, nx) = (limbs_for_prec(prec), self.limbs_per_element());
        // Per element: the result (head, limbs, ternary); the flag list (up
        // to 8 bytes: a power of two of u32) and, at worst, every element
        // retried (index, gathered argument, result); the chunk's argument.
        let out_b = 8 * (1 + n) + 1;
        let arg_b = 8 * (1 + nx);
        let tmp_b = 8 + 4 + arg_b + out_b;
        let c = match memory::plan(&eng, "result and temporaries", len, out_b, tmp_b, arg_b)? {
            memory::Plan::Whole => return self.func_ternary_whole(f, prec, rnd, force),
            memory::Plan::Chunks(c) => c,
        };
        let mut out = CudaFloats::uninit(&eng, len, prec)?;
        // Every slot is written by one chunk's result.
        let mut tern = memory::alloc_for::<i8>(&eng, "ternary values", len)?;
        let stats = in_chunks(len, c, |start, end| {
            let x = self.copy_range(start..end)?;
            let (r, t, s) = x.func_ternary_whole(f, prec, rnd, force)?;
            drop(x);
            out.write_at(start, &r)?;
            memory::write_at(&eng, &t, end - start, &mut tern, start)?;
            Ok(s)
        })?;
        Ok((out, tern, stats))
    }

    /// [`CudaFloats::func_ternary_forced`] on all elements at once.
    fn func_ternary_whole(
        &self,
        f: Func,
        prec: u64,
        rnd: Round,
        force: u32,
    ) -> Result<(CudaFloats, CudaSlice<i8>, FuncStats)> {
        let eng = self.engine().clone();
        let len = self.len();
        let nx = limbs_for_prec(self.prec());
        let code = device_code(f);
        let k = code.and_then(|c| tier_of(c, prec, nx));
        // A first use at a large tier with a small batch: the CPU engine.
        let ready = |c, k| module_of(&eng, k, c).1;
        let on_cpu = |c, k| first_use_on_cpu(len, k, FIRST_USE_CPU_TIER, force, ready(c, k));
        let k = k.filter(|&k| code.is_some_and(|c| !on_cpu(c, k)));
        let (Some(code), Some(k)) = (code, k) else {
            // The CPU engine for the whole array.
            let (r, t, _) = self.to_host()?.func_ternary(f, prec, rnd)?;
            let out = r.to_cuda(&eng)?;
            let tern = memory::upload(&eng, &t)?;
            return Ok((out, tern, host_stats(len)));
        };
        if len == 0 {
            let out = CudaFloats::zeros(&eng, 0, prec)?;
            let tern = memory::alloc_zeros::<i8>(&eng, 1)?;
            return Ok((out, tern, FuncStats::default()));
        }
        if len >= u32::MAX as usize {
            return Err(Error::Invalid(format!(
                "{len} elements: the function kernels take fewer than 2^32 - 1"
            )));
        }
        let rc = round_code(rnd);
        // Every element is written by the kernel (flagged ones as zeros).
        let mut out = CudaFloats::uninit(&eng, len, prec)?;
        // SAFETY: float_func writes every slot.
        let mut tern = memory::alloc::<i8>(&eng, len)?;
        // Gathers and scatters by the first pass's module (loaded by then).
        let first = || module_of(&eng, k, code).0;
        let ready = |k2| module_of(&eng, k2, code).1;
        let (host, stats) = with_flag_bufs(&eng, |bufs| {
            drive(len, k, force, ready, |k2, sel, force| {
                let rnd_arg = rc | force << 8;
                let Some(sel) = sel else {
                    let x = self.raw_parts();
                    return launch_pass(
                        &eng, bufs, k2, code, rnd_arg, prec, x, nx, len, &mut out, &mut tern,
                    );
                };
                // The elements sel, gathered, at tier k2, scattered back.
                let (cnt, m) = (sel.len(), first());
                let idx = memory::upload(&eng, sel)?;
                let (gh, gl) = gather(&eng, &m, self, &idx, cnt)?;
                let mut sub = CudaFloats::uninit(&eng, cnt, prec)?;
                // SAFETY: float_func writes every slot.
                let mut st = memory::alloc::<i8>(&eng, cnt)?;
                let x = (&gh, &gl);
                let r = launch_pass(
                    &eng, bufs, k2, code, rnd_arg, prec, x, nx, cnt, &mut sub, &mut st,
                )?;
                let (sh, sl) = sub.raw_parts();
                scatter(&eng, &m, &mut out, &mut tern, &idx, cnt, (sh, sl, &st))?;
                Ok(r)
            })
        })?;
        if host.is_empty() {
            return Ok((out, tern, stats));
        }
        // The rest on the CPU engine.
        let (idx, m) = (memory::upload(&eng, &host)?, first());
        let sub = gather_to_host(&eng, &m, self, &idx, host.len())?;
        let (r, t, _) = sub.func_ternary(f, prec, rnd)?;
        scatter_from_host(&eng, &m, &mut out, &mut tern, &idx, &r, &t)?;
        Ok((out, tern, stats))
    }
}

/// Runs the emulator `exe` on a job (u64 words on its standard input) and
/// returns its answer's words.
pub(crate) fn emu_run(exe: &str, job: &[u64]) -> Result<Vec<u64>> {
    use std::io::{Read, Write};
    use std::process::{Command, Stdio};
    let bytes: Vec<u8> = job.iter().flat_map(|v| v.to_le_bytes()).collect();
    let io = |e: std::io::Error| Error::Invalid(format!("emulator {exe}: {e}"));
    let mut child = Command::new(exe)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .map_err(io)?;
    let mut stdin = child.stdin.take().expect("piped");
    let writer = std::thread::spawn(move || stdin.write_all(&bytes));
    let mut outb = Vec::new();
    child
        .stdout
        .take()
        .expect("piped")
        .read_to_end(&mut outb)
        .map_err(io)?;
    writer.join().expect("writer").map_err(io)?;
    let status = child.wait().map_err(io)?;
    if !status.success() {
        return Err(Error::Invalid(format!("emulator {exe}: {status}")));
    }
    Ok(outb
        .chunks_exact(8)
        .map(|c| u64::from_le_bytes(c.try_into().unwrap()))
        .collect())
}

/// An emulator's result words from `o`: `len` heads, `len * n` limbs,
/// `len` ternary values.
pub(crate) fn emu_result(
    exe: &str,
    w: &[u64],
    o: usize,
    len: usize,
    n: usize,
) -> Result<(Vec<u64>, Vec<u64>, Vec<i8>)> {
    let w = w
        .get(o..o + 2 * len + len * n)
        .ok_or_else(|| Error::Invalid(format!("emulator {exe}: short answer")))?;
    let t = w[len + len * n..].iter().map(|&v| v as i64 as i8).collect();
    Ok((w[..len].to_vec(), w[len..len + len * n].to_vec(), t))
}

/// The emulators' flag lists at `w[o..]` (ff_kind's): the undecided and
/// the host-case positions, each a count and the positions.
pub(crate) fn emu_lists(exe: &str, w: &[u64], o: usize) -> Result<(Vec<u32>, Vec<u32>)> {
    let short = || Error::Invalid(format!("emulator {exe}: short answer"));
    let list = |o: usize| -> Result<(Vec<u32>, usize)> {
        let c = *w.get(o).ok_or_else(short)? as usize;
        let v = w.get(o + 1..o + 1 + c).ok_or_else(short)?;
        Ok((v.iter().map(|&v| v as u32).collect(), o + 1 + c))
    };
    let (und, o) = list(o)?;
    let (host, _) = list(o)?;
    Ok((und, host))
}

/// One pass of the emulator at tier `k`: (heads, limbs, ternary values,
/// undecided positions, host-case positions).
#[allow(clippy::type_complexity)]
fn emu_pass(
    exe: &str,
    code: u32,
    rnd_arg: u32,
    prec: u64,
    k: usize,
    x: &CpuFloats,
) -> Result<(Vec<u64>, Vec<u64>, Vec<i8>, Vec<u32>, Vec<u32>)> {
    let nx = x.limbs_per_element();
    let n = limbs_for_prec(prec);
    let len = x.len();
    let cs = constants(k)?;
    let mut job: Vec<u64> = vec![
        code as u64,
        rnd_arg as u64,
        prec,
        n as u64,
        nx as u64,
        k as u64,
        len as u64,
        cs.len() as u64,
    ];
    job.extend(cs.iter());
    job.extend(heads_of(x));
    job.extend(x.limbs());
    let w = emu_run(exe, &job)?;
    let (rh, rl, tern) = emu_result(exe, &w, 0, len, n)?;
    let (und, host) = emu_lists(exe, &w, 2 * len + len * n)?;
    Ok((rh, rl, tern, und, host))
}

/// The elements `idx` of `x` as an array.
pub(crate) fn pick(x: &CpuFloats, idx: &[u32]) -> Result<CpuFloats> {
    let nx = x.limbs_per_element();
    let xh = heads_of(x);
    let hh: Vec<u64> = idx.iter().map(|&i| xh[i as usize]).collect();
    let hl: Vec<u64> = idx
        .iter()
        .flat_map(|&i| x.limbs()[i as usize * nx..][..nx].iter().copied())
        .collect();
    from_heads(x.prec(), &hh, hl)
}

/// The same evaluation through the host emulation of the kernel
/// (tests/emu/funcgpu, built with g++, at path `exe`): the same tiers,
/// constants, retries of undecided elements at larger tiers and CPU
/// evaluation of the rest as `func_ternary_forced`. For tests without a
/// device.
#[doc(hidden)]
pub fn func_emulated(
    exe: &str,
    f: Func,
    x: &FloatArray,
    prec: u64,
    rnd: Round,
) -> Result<(FloatArray, Vec<i8>, FuncStats)> {
    func_emulated_forced(exe, f, x, prec, rnd, 0)
}

/// `func_emulated` with the test-only `force` of `func_ternary_forced`.
#[doc(hidden)]
pub fn func_emulated_forced(
    exe: &str,
    f: Func,
    x: &FloatArray,
    prec: u64,
    rnd: Round,
    force: u32,
) -> Result<(FloatArray, Vec<i8>, FuncStats)> {
    let (r, t, st) = emulated_cpu(exe, f, &*x.host()?, prec, rnd, force)?;
    Ok((r.into(), t, st))
}

fn emulated_cpu(
    exe: &str,
    f: Func,
    x: &CpuFloats,
    prec: u64,
    rnd: Round,
    force: u32,
) -> Result<(CpuFloats, Vec<i8>, FuncStats)> {
    let nx = x.limbs_per_element();
    let n = limbs_for_prec(prec);
    let len = x.len();
    let code = device_code(f);
    let (Some(code), Some(k)) = (code, code.and_then(|c| tier_of(c, prec, nx))) else {
        let (r, t, _) = x.func_ternary(f, prec, rnd)?;
        return Ok((r, t, host_stats(len)));
    };
    let rc = round_code(rnd);
    let (mut rh, mut rl, mut tern) = (Vec::new(), Vec::new(), Vec::new());
    let (host, stats) = drive(
        len,
        k,
        force,
        |_| true,
        |k2, sel, force| {
            let rnd_arg = rc | force << 8;
            let Some(sel) = sel else {
                let (h, l, t, u, hs) = emu_pass(exe, code, rnd_arg, prec, k2, x)?;
                (rh, rl, tern) = (h, l, t);
                return Ok((u, hs));
            };
            let (sh, sl, st, u, hs) = emu_pass(exe, code, rnd_arg, prec, k2, &pick(x, sel)?)?;
            put(&mut rh, &mut rl, &mut tern, n, sel, &sh, &sl, &st);
            Ok((u, hs))
        },
    )?;
    if !host.is_empty() {
        let (r, t, _) = pick(x, &host)?.func_ternary(f, prec, rnd)?;
        put(
            &mut rh,
            &mut rl,
            &mut tern,
            n,
            &host,
            &heads_of(&r),
            r.limbs(),
            &t,
        );
    }
    Ok((from_heads(prec, &rh, rl)?, tern, stats))
}

/// Writes compact results (heads, limbs of `n` each, ternary values) to the
/// elements `idx` of host arrays (the emulators' scatter).
#[allow(clippy::too_many_arguments)]
pub(crate) fn put(
    rh: &mut [u64],
    rl: &mut [u64],
    tern: &mut [i8],
    n: usize,
    idx: &[u32],
    sh: &[u64],
    sl: &[u64],
    st: &[i8],
) {
    for (j, &i) in idx.iter().enumerate() {
        let i = i as usize;
        rh[i] = sh[j];
        rl[i * n..(i + 1) * n].copy_from_slice(&sl[j * n..(j + 1) * n]);
        tern[i] = st[j];
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A pass that leaves `und` of its elements undecided and records the
    /// tiers it ran at.
    fn run(len: usize, und: usize, force: u32, ready: bool) -> (Vec<usize>, Vec<u32>, FuncStats) {
        let mut tiers = Vec::new();
        let (host, st) = drive(
            len,
            3,
            force,
            |_| ready,
            |k, sel, _| {
                tiers.push(k);
                let n = sel.map_or(len, |s| s.len());
                Ok(((0..und.min(n) as u32).collect(), Vec::new()))
            },
        )
        .unwrap();
        (tiers, host, st)
    }

    /// Undecided elements go to larger tiers that are at hand; a tier not
    /// at hand (NVRTC first) is skipped for fewer than RETRY_COMPILE_MIN of
    /// them, and they go to the CPU engine; a `force` retries anyway.
    #[test]
    fn retries_wait_for_nvrtc_only_for_many_elements() {
        let (tiers, host, st) = run(1000, 100, 0, true);
        assert_eq!(tiers, vec![3, 4, 5, 6]);
        assert_eq!((host.len(), st.retried, st.host), (100, 100, 100));
        let (tiers, host, st) = run(1000, 100, 0, false);
        assert_eq!(tiers, vec![3]);
        assert_eq!((host.len(), st.device_retried), (100, 0));
        let (tiers, _, _) = run(1000, 100, 1, false);
        assert_eq!(tiers, vec![3, 4, 5, 6]);
        let (tiers, _, _) = run(RETRY_COMPILE_MIN, RETRY_COMPILE_MIN, 0, false);
        assert_eq!(tiers, vec![3, 4, 5, 6]);
        let (tiers, _, _) = run(1000, RETRY_MIN - 1, 0, true);
        assert_eq!(tiers, vec![3]);
    }

    /// A small batch at a large tier whose module is not at hand goes to
    /// the CPU engine; a module at hand, a small tier, a large batch or a
    /// test's force go to the device.
    #[test]
    fn first_use_on_cpu_only_for_small_batches_at_large_tiers() {
        let t = FIRST_USE_CPU_TIER;
        assert!(small_first_use(2, 34, t, 0, false));
        assert!(!small_first_use(2, 34, t, 0, true));
        assert!(!small_first_use(2, 9, t, 0, false));
        assert!(!small_first_use(FIRST_USE_CPU_MAX, 34, t, 0, false));
        assert!(!small_first_use(2, 34, t, 1, false));
    }

    /// Every kernel code has a family, every family is a code of
    /// float_func.cu's FF_HAS lines, and a family is its own family.
    #[test]
    fn families_cover_every_code() {
        let mut codes: Vec<u32> = Func::ALL.iter().map(|&f| device_code(f).unwrap()).collect();
        codes.extend(33..=37);
        let src = [
            crate::kernels::FLOAT_FUNC.code,
            crate::kernels::FLOAT_FUNC_TRIG,
        ]
        .concat();
        for c in codes {
            let f = family(c);
            assert!(FAMILIES.contains(&f), "code {c}");
            assert_eq!(family(f), f);
            assert!(src.contains(&format!("#if FF_HAS({f})")), "code {c}");
        }
        for f in FAMILIES {
            assert_eq!(src.matches(&format!("#if FF_HAS({f})\n")).count(), 1, "{f}");
        }
    }
}
