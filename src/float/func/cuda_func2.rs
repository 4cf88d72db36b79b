//! Two-argument functions (atan2, hypot, pow, agm; pow_si through pow) and
//! sin_cos (two outputs of one reduction) on CUDA float arrays, evaluated by
//! the `float_func2` kernel (src/kernels/float_func_trig.cuh, part of the
//! float_func module): a thread per element, the same tiers, constants,
//! acceptance test and flag protocol as the one-argument functions
//! (cuda.rs's `drive`): undecided elements are gathered on the device and
//! re-run at larger tiers there; the cases the kernel leaves to the host
//! (special operands of pow and agm, exact results still undecided, huge
//! arguments) are evaluated by the CPU engine and scattered back;
//! precisions above the largest tier run on the CPU engine. See
//! notes/func.md.

use std::sync::Arc;

use cudarc::driver::{CudaSlice, PushKernelArg};

use super::cuda::{
    FIRST_USE_CPU_TIER, FlagBufs, block_for, device_constants, drive, emu_lists, emu_result,
    emu_run, first_use_on_cpu, from_heads, gather, gather_to_host, grid, heads_of, launch_flagged,
    module_of, pick, put, scatter, scatter_from_host, tier, with_flag_bufs,
};
use super::{Func2, FuncStats};
use crate::engine::CudaEngine;
use crate::engine::cuda::memory;
use crate::error::{Error, Result};
use crate::float::cuda::{CudaFloats, round_code};
use crate::float::{CpuFloats, FloatArray, Round, limbs_for_prec};

/// The kernel's function code of a two-argument function.
pub fn device_code2(f: Func2) -> u32 {
    match f {
        Func2::Atan2 => 34,
        Func2::Hypot => 35,
        Func2::Pow => 36,
        Func2::Agm => 37,
    }
}

/// The kernel's code of sin_cos.
pub const SIN_COS_CODE: u32 = 33;

/// What one launch evaluates.
#[derive(Clone, Copy, Debug)]
enum Job {
    Two(Func2),
    SinCos,
}

impl Job {
    fn code(self) -> u32 {
        match self {
            Job::Two(f) => device_code2(f),
            Job::SinCos => SIN_COS_CODE,
        }
    }

    /// The CPU engine on host arrays: (first result, its ternaries, the
    /// second result of sin_cos).
    #[allow(clippy::type_complexity)]
    fn on_cpu(
        self,
        x: &CpuFloats,
        y: Option<&CpuFloats>,
        prec: u64,
        rnd: Round,
    ) -> Result<(CpuFloats, Vec<i8>, Option<(CpuFloats, Vec<i8>)>)> {
        match self {
            Job::Two(f) => {
                let (r, t, _) = x.func2_ternary(y.expect("two arguments"), f, prec, rnd)?;
                Ok((r, t, None))
            }
            Job::SinCos => {
                let ((s, ts, _), (c, tc, _)) = x.sin_cos_stats(prec, rnd)?;
                Ok((s, ts, Some((c, tc))))
            }
        }
    }
}

/// A device result and its ternary values.
pub(crate) type DevResult = (CudaFloats, CudaSlice<i8>);

/// The device inputs of a launch: heads and limbs of x and y, and their
/// limb counts.
type Args<'a> = (
    (&'a CudaSlice<u64>, &'a CudaSlice<u64>, usize),
    (&'a CudaSlice<u64>, &'a CudaSlice<u64>, usize),
);

/// One launch of `float_func2` at tier `k` over `len` elements: writes out
/// (and out2 for sin_cos; else a one-element placeholder never written)
/// and returns the undecided and host-case positions (ff_store's).
#[allow(clippy::too_many_arguments)]
fn launch2(
    eng: &Arc<CudaEngine>,
    bufs: &mut FlagBufs,
    k: usize,
    job: Job,
    rnd_arg: u32,
    prec: u64,
    args: Args,
    len: usize,
    out: &mut DevResult,
    out2: &mut DevResult,
) -> Result<(Vec<u32>, Vec<u32>)> {
    let func = eng.function(&module_of(eng, k, job.code()).0, "float_func2")?;
    let cs = device_constants(eng, k)?;
    let ((xh, xl, nx), (yh, yl, ny)) = args;
    let (len64, code, n32, nx32, ny32) = (
        len as u64,
        job.code(),
        limbs_for_prec(prec) as u32,
        nx as u32,
        ny as u32,
    );
    launch_flagged(eng, bufs, len, |ctl, flags| {
        let (rh, rl) = out.0.raw_parts_mut();
        let (rh2, rl2) = out2.0.raw_parts_mut();
        let mut b = eng.stream().launch_builder(&func);
        b.arg(rh)
            .arg(rl)
            .arg(&mut out.1)
            .arg(rh2)
            .arg(rl2)
            .arg(&mut out2.1)
            .arg(xh)
            .arg(xl)
            .arg(&nx32)
            .arg(yh)
            .arg(yl)
            .arg(&ny32)
            .arg(&len64)
            .arg(&code)
            .arg(&rnd_arg)
            .arg(&prec)
            .arg(&n32)
            .arg(&*cs)
            .arg(ctl)
            .arg(flags);
        // SAFETY: x and y hold len elements of nx and ny limbs, out len of
        // n limbs and len ternary slots (out2 too for sin_cos; otherwise it
        // is never written), flags at least len slots, ctl two counters, cs
        // the tier's constants (float_func.cu's layout); each thread writes
        // its own element and one flag slot claimed by an atomic counter.
        unsafe { b.launch(grid(len, block_for(len))) }
            .map_err(Error::driver("launching float_func2"))?;
        Ok(())
    })
}

/// Room for `len` results (every slot is written by the kernel).
fn dev_result(eng: &Arc<CudaEngine>, len: usize, prec: u64) -> Result<DevResult> {
    let r = CudaFloats::uninit(eng, len.max(1), prec)?;
    // SAFETY: float_func2 (or the scatter of the CPU's results) writes
    // every slot read back.
    let t = memory::alloc::<i8>(eng, len.max(1))?;
    Ok((r, t))
}

/// The evaluation of `job` on the device (x, and y for two arguments),
/// with the retry protocol of the one-argument functions (cuda.rs's
/// `drive`): undecided elements re-run at larger tiers on the device, host
/// cases and those still undecided on the CPU engine.
fn run_dev(
    x: &CudaFloats,
    y: Option<&CudaFloats>,
    job: Job,
    prec: u64,
    rnd: Round,
    force: u32,
) -> Result<(DevResult, Option<DevResult>, FuncStats)> {
    let eng = x.engine().clone();
    let len = x.len();
    if let Some(y) = y
        && y.len() != len
    {
        return Err(Error::Invalid(format!(
            "the arrays have {} and {} elements",
            len,
            y.len()
        )));
    }
    let nx = limbs_for_prec(x.prec());
    let ny = y.map_or(nx, |y| limbs_for_prec(y.prec()));
    let two = matches!(job, Job::SinCos);
    // A first use at a large tier with a small batch: the CPU engine.
    let ready = |k| module_of(&eng, k, job.code()).1;
    let on_cpu = |k| first_use_on_cpu(len, k, FIRST_USE_CPU_TIER, force, ready(k));
    let Some(k) = tier(prec, nx.max(ny)).filter(|&k| !on_cpu(k)) else {
        // The CPU engine for the whole array.
        let hy = y.map(|y| y.to_host()).transpose()?;
        let (r, t, r2) = job.on_cpu(&x.to_host()?, hy.as_ref(), prec, rnd)?;
        let stats = FuncStats {
            elements: len as u64,
            retried: len as u64,
            host: len as u64,
            device_retried: 0,
        };
        let first = (r.to_cuda(&eng)?, memory::upload(&eng, &t)?);
        let second = match r2 {
            Some((c, tc)) => Some((c.to_cuda(&eng)?, memory::upload(&eng, &tc)?)),
            None => None,
        };
        return Ok((first, second, stats));
    };
    if len == 0 {
        let z = || -> Result<DevResult> {
            Ok((
                CudaFloats::zeros(&eng, 0, prec)?,
                memory::upload(&eng, &[])?,
            ))
        };
        let second = if two { Some(z()?) } else { None };
        return Ok((z()?, second, FuncStats::default()));
    }
    if len >= u32::MAX as usize {
        return Err(Error::Invalid(format!(
            "{len} elements: the function kernels take fewer than 2^32 - 1"
        )));
    }
    let y = y.unwrap_or(x);
    let mut out = dev_result(&eng, len, prec)?;
    // sin_cos's second output, else a placeholder.
    let mut out2 = dev_result(&eng, if two { len } else { 1 }, prec)?;
    let rc = round_code(rnd);
    // Gathers and scatters by the first pass's module (loaded by then).
    let first = || module_of(&eng, k, job.code()).0;
    let ready = |k2| module_of(&eng, k2, job.code()).1;
    let (host, stats) = with_flag_bufs(&eng, |bufs| {
        drive(len, k, force, ready, |k2, sel, force| {
            let rnd_arg = rc | force << 8;
            let Some(sel) = sel else {
                let ((xh, xl), (yh, yl)) = (x.raw_parts(), y.raw_parts());
                let args = ((xh, xl, nx), (yh, yl, ny));
                return launch2(
                    &eng, bufs, k2, job, rnd_arg, prec, args, len, &mut out, &mut out2,
                );
            };
            // The elements sel, gathered, at tier k2, scattered back.
            let (cnt, m) = (sel.len(), first());
            let idx = memory::upload(&eng, sel)?;
            let gx = gather(&eng, &m, x, &idx, cnt)?;
            // sin_cos has no y.
            let gy = if two {
                None
            } else {
                Some(gather(&eng, &m, y, &idx, cnt)?)
            };
            let gy = gy.as_ref().unwrap_or(&gx);
            let mut sub = dev_result(&eng, cnt, prec)?;
            let mut sub2 = dev_result(&eng, if two { cnt } else { 1 }, prec)?;
            let args = ((&gx.0, &gx.1, nx), (&gy.0, &gy.1, ny));
            let r = launch2(
                &eng, bufs, k2, job, rnd_arg, prec, args, cnt, &mut sub, &mut sub2,
            )?;
            let put = |dst: &mut DevResult, src: &DevResult| -> Result<()> {
                let (sh, sl) = src.0.raw_parts();
                scatter(
                    &eng,
                    &m,
                    &mut dst.0,
                    &mut dst.1,
                    &idx,
                    cnt,
                    (sh, sl, &src.1),
                )
            };
            put(&mut out, &sub)?;
            if two {
                put(&mut out2, &sub2)?;
            }
            Ok(r)
        })
    })?;
    if !host.is_empty() {
        // The rest on the CPU engine.
        let (idx, m) = (memory::upload(&eng, &host)?, first());
        let sx = gather_to_host(&eng, &m, x, &idx, host.len())?;
        let sy = gather_to_host(&eng, &m, y, &idx, host.len())?;
        let (r, t, r2) = job.on_cpu(&sx, Some(&sy), prec, rnd)?;
        scatter_from_host(&eng, &m, &mut out.0, &mut out.1, &idx, &r, &t)?;
        if let Some((c, tc)) = r2 {
            scatter_from_host(&eng, &m, &mut out2.0, &mut out2.1, &idx, &c, &tc)?;
        }
    }
    Ok((out, two.then_some(out2), stats))
}

impl CudaFloats {
    /// `f(self, y)` elementwise (atan2(self, y) has self as the ordinate, as
    /// mpfr_atan2), rounded to `prec` bits in mode `rnd` on the device, the
    /// ternary values (on the device), and how many elements the host
    /// re-evaluated (`retried`).
    pub fn func2_ternary(
        &self,
        y: &CudaFloats,
        f: Func2,
        prec: u64,
        rnd: Round,
    ) -> Result<(CudaFloats, CudaSlice<i8>, FuncStats)> {
        self.func2_ternary_forced(y, f, prec, rnd, 0)
    }

    /// `func2_ternary` with the kernels' test-only `force` (as
    /// `func_ternary_forced`: 1 makes the first pass call every third
    /// written element undecided, 2 every pass).
    #[doc(hidden)]
    pub fn func2_ternary_forced(
        &self,
        y: &CudaFloats,
        f: Func2,
        prec: u64,
        rnd: Round,
        force: u32,
    ) -> Result<(CudaFloats, CudaSlice<i8>, FuncStats)> {
        let _op = memory::op_scope("float two-argument function");
        let ((r, t), _, st) = run_dev(self, Some(y), Job::Two(f), prec, rnd, force)?;
        Ok((r, t, st))
    }

    /// `sin_cos_ternary` with the test-only `force` of `func2_ternary_forced`.
    #[doc(hidden)]
    pub fn sin_cos_ternary_forced(
        &self,
        prec: u64,
        rnd: Round,
        force: u32,
    ) -> Result<(DevResult, DevResult, FuncStats)> {
        let (s, c, st) = run_dev(self, None, Job::SinCos, prec, rnd, force)?;
        Ok((s, c.expect("two outputs"), st))
    }
}

/// The same evaluation through the host emulation of the kernel
/// (tests/emu/functrig/emu2.cpp, built with g++, at path `exe`): the same
/// tiers, constants, retries at larger tiers and CPU evaluation of the
/// rest (cuda.rs's `drive`). `f = None` is sin_cos (`y` ignored; the
/// second result of one output is a copy of the first). For tests without
/// a device.
#[doc(hidden)]
pub fn func2_emulated(
    exe: &str,
    f: Option<Func2>,
    x: &FloatArray,
    y: &FloatArray,
    prec: u64,
    rnd: Round,
) -> Result<EmulatedPair> {
    func2_emulated_forced(exe, f, x, y, prec, rnd, 0)
}

/// Both results of a two-output evaluation on the CPU storage.
type CpuPair = ((CpuFloats, Vec<i8>), (CpuFloats, Vec<i8>), FuncStats);

/// Both results of an emulated two-output evaluation, on the host.
pub type EmulatedPair = ((FloatArray, Vec<i8>), (FloatArray, Vec<i8>), FuncStats);

/// `func2_emulated` with the test-only `force` of `func2_ternary_forced`.
#[doc(hidden)]
pub fn func2_emulated_forced(
    exe: &str,
    f: Option<Func2>,
    x: &FloatArray,
    y: &FloatArray,
    prec: u64,
    rnd: Round,
    force: u32,
) -> Result<EmulatedPair> {
    let ((a, ta), (b, tb), st) = emulated_cpu(exe, f, &*x.host()?, &*y.host()?, prec, rnd, force)?;
    Ok(((a.into(), ta), (b.into(), tb), st))
}

fn emulated_cpu(
    exe: &str,
    f: Option<Func2>,
    x: &CpuFloats,
    y: &CpuFloats,
    prec: u64,
    rnd: Round,
    force: u32,
) -> Result<CpuPair> {
    let job = f.map_or(Job::SinCos, Job::Two);
    let two = f.is_none();
    let y = if two { x } else { y };
    if x.len() != y.len() {
        return Err(Error::Invalid("length mismatch".into()));
    }
    let (nx, ny) = (x.limbs_per_element(), y.limbs_per_element());
    let n = limbs_for_prec(prec);
    let len = x.len();
    let Some(k) = tier(prec, nx.max(ny)) else {
        let (r, t, r2) = job.on_cpu(x, Some(y), prec, rnd)?;
        let (c, tc) = r2.unwrap_or_else(|| (r.clone(), t.clone()));
        let st = FuncStats {
            elements: len as u64,
            retried: len as u64,
            host: len as u64,
            device_retried: 0,
        };
        return Ok(((r, t), (c, tc), st));
    };
    // One pass at tier k over x, y: both results and the flag lists.
    let pass = |k: usize, rnd_arg: u32, x: &CpuFloats, y: &CpuFloats| {
        let len = x.len();
        let cs = super::cuda::constants(k)?;
        let mut job_w: Vec<u64> = vec![
            job.code() as u64,
            rnd_arg as u64,
            prec,
            n as u64,
            nx as u64,
            ny as u64,
            k as u64,
            len as u64,
            two as u64,
            cs.len() as u64,
        ];
        job_w.extend(cs.iter());
        job_w.extend(heads_of(x));
        job_w.extend(x.limbs());
        job_w.extend(heads_of(y));
        job_w.extend(y.limbs());
        let w = emu_run(exe, &job_w)?;
        let per = 2 * len + len * n;
        let a = emu_result(exe, &w, 0, len, n)?;
        let b = if two {
            emu_result(exe, &w, per, len, n)?
        } else {
            a.clone()
        };
        let (und, host) = emu_lists(exe, &w, if two { 2 * per } else { per })?;
        Ok::<_, Error>((a, b, und, host))
    };
    let rc = round_code(rnd);
    let (mut a, mut b) = Default::default();
    let (host, st) = drive(
        len,
        k,
        force,
        |_| true,
        |k2, sel, force| {
            let rnd_arg = rc | force << 8;
            let Some(sel) = sel else {
                let (ra, rb, u, h) = pass(k2, rnd_arg, x, y)?;
                (a, b) = (ra, rb);
                return Ok((u, h));
            };
            let (ra, rb, u, h) = pass(k2, rnd_arg, &pick(x, sel)?, &pick(y, sel)?)?;
            let (ah, al, at): &mut (Vec<u64>, Vec<u64>, Vec<i8>) = &mut a;
            put(ah, al, at, n, sel, &ra.0, &ra.1, &ra.2);
            let (bh, bl, bt): &mut (Vec<u64>, Vec<u64>, Vec<i8>) = &mut b;
            put(bh, bl, bt, n, sel, &rb.0, &rb.1, &rb.2);
            Ok((u, h))
        },
    )?;
    if !host.is_empty() {
        let (r, t, r2) = job.on_cpu(&pick(x, &host)?, Some(&pick(y, &host)?), prec, rnd)?;
        let (c, tc) = r2.unwrap_or_else(|| (r.clone(), t.clone()));
        put(
            &mut a.0,
            &mut a.1,
            &mut a.2,
            n,
            &host,
            &heads_of(&r),
            r.limbs(),
            &t,
        );
        put(
            &mut b.0,
            &mut b.1,
            &mut b.2,
            n,
            &host,
            &heads_of(&c),
            c.limbs(),
            &tc,
        );
    }
    let first = (from_heads(prec, &a.0, a.1)?, a.2);
    let second = (from_heads(prec, &b.0, b.1)?, b.2);
    Ok((first, second, st))
}
