//! Complex functions evaluated on the CUDA device (issue 5): the
//! `float_cfunc` kernel (src/kernels/float_cfunc.cu, its own module with the
//! real functions' value cores, tiers and constants), a thread per
//! element. The kernel evaluates the REGULAR elements of a function (both
//! parts normal, exponents where func.rs takes its plain Ziv path and the
//! value cores are valid) as intervals with proven bounds and rounds each
//! part in its own mode; elements whose rounding it cannot decide are
//! gathered on the device and re-run at larger tiers (as the real
//! functions: their `drive`), and the rest (special and exact cases, huge
//! parts, still undecided) are evaluated by the CPU engine and scattered
//! back. The same bits and ternary pairs as the CPU engine.
//!
//! On the device: exp, log, sin, cos, sinh, cosh, tan, tanh, sqrt, atan,
//! asin, acos (`float_cfunc`), div (`float_cdiv`) and pow (`float_cpow`).

use std::sync::Arc;

use cudarc::driver::{CudaSlice, PushKernelArg};

use super::cuda::{CudaComplex, CudaTernary};
use super::{CFunc, CRound, ComplexArray, CpuComplex, Ternary};
use crate::engine::CudaEngine;
use crate::engine::cuda::memory;
use crate::error::{Error, Result};
use crate::float::cuda::{CudaFloats, round_code};
use crate::float::func::FuncStats;
use crate::float::func::cuda::{
    FUNC_TIERS, FlagBufs, RETRY_MIN, block_for, constants, device_constants, drive_min, emu_lists,
    emu_result, emu_run, first_use_on_cpu, from_heads, gather, gather_to_host, grid, heads_of,
    host_stats, in_chunks, launch_flagged, pick, pick_module, put, scatter, scatter_from_host,
    tier, with_flag_bufs,
};
use crate::float::limbs_for_prec;
use crate::kernels::{FLOAT_CFUNC, Instance};

/// The kernel's function code (`None` would send a function to the CPU
/// engine: every function is on the device now).
pub fn device_code(f: CFunc) -> Option<u32> {
    match f {
        CFunc::Exp => Some(0),
        CFunc::Log => Some(1),
        CFunc::Sin => Some(2),
        CFunc::Cos => Some(3),
        CFunc::Sinh => Some(4),
        CFunc::Cosh => Some(5),
        CFunc::Tan => Some(6),
        CFunc::Tanh => Some(7),
        CFunc::Sqrt => Some(8),
        CFunc::Atan => Some(9),
        CFunc::Asin => Some(10),
        CFunc::Acos => Some(11),
    }
}

/// The tier for result precisions `pr`, `pi` and inputs of `na`, `nb`
/// limbs: the real functions' tier for the larger precision plus 16 bits
/// (a product of two value cores' intervals loses up to a few bits more).
pub fn ctier(pr: u64, pi: u64, na: usize, nb: usize) -> Option<usize> {
    tier(pr.max(pi) + 16, na.max(nb))
}

/// The float_cfunc module at tier `k` (float_func's tiers and constants).
pub(crate) fn cinst(k: usize) -> Instance {
    Instance::new(&FLOAT_CFUNC, &[("FF_K", k as i64)])
}

/// The families of float_cfunc.cu's `CF_ONLY`: the first code of the
/// operations sharing one case (sin/cos/sinh/cosh, tan/tanh, asin/acos;
/// the others alone; div and pow).
pub const CFAMILIES: [u32; 9] = [0, 1, 2, 6, 8, 9, 10, DIV_CODE, POW_CODE];

/// The family of float_cfunc's code `code` (float_cfunc.cu's `CF_HAS`).
pub fn cfamily(code: u32) -> u32 {
    match code {
        3..=5 => 2,
        7 => 6,
        11 => 10,
        c => c,
    }
}

/// The float_cfunc module of one family (of code `code`) at tier `k`.
pub(crate) fn cinst_only(k: usize, code: u32) -> Instance {
    Instance::new(
        &FLOAT_CFUNC,
        &[("FF_K", k as i64), ("CF_ONLY", cfamily(code) as i64)],
    )
    .for_first_use()
}

/// The module evaluating `code` at tier `k` (`pick_module`: the module of
/// every operation when at hand, else the family's) and whether it is at
/// hand without NVRTC.
fn cmodule_of(eng: &Arc<CudaEngine>, k: usize, code: u32) -> (Instance, bool) {
    pick_module(eng, cinst(k), cinst_only(k, code))
}

/// A first use of a complex operation at a tier of at least this many
/// limbs with a small batch runs on the CPU engine (float::func::cuda's
/// `first_use_on_cpu`): the families take NVRTC up to 4.9 s at FF_K=3 on
/// the development machine, 9-11 s (asin/acos, pow) at FF_K=9, 28-40 s at
/// FF_K=34 (notes/kernels.md).
pub const CFIRST_USE_CPU_TIER: usize = 4;

/// The modules of every operation at every tier (what a warmed machine
/// runs): `ctier` reaches every tier (3 limbs from 1 bit), the retries the
/// larger ones.
pub fn instances() -> Vec<Instance> {
    FUNC_TIERS.iter().map(|&k| cinst(k)).collect()
}

/// Each family's module at every tier (what a first use compiles when the
/// module of every operation is not at hand).
pub fn family_instances() -> Vec<Instance> {
    FUNC_TIERS
        .iter()
        .flat_map(|&k| CFAMILIES.iter().map(move |&f| cinst_only(k, f)))
        .collect()
}

/// A part's raw device buffers (heads, limbs) and limbs per element.
type Raw<'a> = (&'a CudaSlice<u64>, &'a CudaSlice<u64>, usize);

/// One part's device output.
struct Part {
    out: CudaFloats,
    tern: CudaSlice<i8>,
}

/// One launch of float_cfunc (float_cdiv, float_cpow with `y`) at tier `k`
/// over `len` elements (parts given as raw device buffers of their limb
/// counts): writes both parts and returns the undecided and host-case
/// positions (float_func's flag protocol, `launch_flagged`).
#[allow(clippy::too_many_arguments)]
fn launch(
    eng: &Arc<CudaEngine>,
    bufs: &mut FlagBufs,
    k: usize,
    code: u32,
    rnd: CRound,
    x: [Raw; 2],
    y: Option<[Raw; 2]>,
    len: usize,
    re: &mut Part,
    im: &mut Part,
) -> Result<(Vec<u32>, Vec<u32>)> {
    let [a, b] = x;
    let name = match (y.is_some(), code) {
        (true, POW_CODE) => "float_cpow",
        (true, _) => "float_cdiv",
        _ => "float_cfunc",
    };
    let func = eng.function(&cmodule_of(eng, k, code).0, name)?;
    let cs = device_constants(eng, k)?;
    let (pr, pi) = (re.out.prec(), im.out.prec());
    let (nr, ni) = (limbs_for_prec(pr) as u32, limbs_for_prec(pi) as u32);
    let (na, nb) = (a.2 as u32, b.2 as u32);
    let ncd = y.map(|[c, d]| (c.2 as u32, d.2 as u32));
    let len64 = len as u64;
    let rc = round_code(rnd.re) | round_code(rnd.im) << 4;
    launch_flagged(eng, bufs, len, |ctl, flags| {
        let (rh, rl) = re.out.raw_parts_mut();
        let (ih, il) = im.out.raw_parts_mut();
        let mut lb = eng.stream().launch_builder(&func);
        lb.arg(rh)
            .arg(rl)
            .arg(&mut re.tern)
            .arg(ih)
            .arg(il)
            .arg(&mut im.tern)
            .arg(a.0)
            .arg(a.1)
            .arg(&na)
            .arg(b.0)
            .arg(b.1)
            .arg(&nb);
        if let (Some([c, d]), Some((nc, nd))) = (&y, &ncd) {
            lb.arg(c.0).arg(c.1).arg(nc).arg(d.0).arg(d.1).arg(nd);
        }
        lb.arg(&len64);
        if y.is_none() {
            lb.arg(&code);
        }
        lb.arg(&rc).arg(&pr).arg(&nr).arg(&pi).arg(&ni);
        if y.is_none() || code == POW_CODE {
            lb.arg(&*cs);
        }
        lb.arg(ctl).arg(flags);
        // SAFETY: the operands hold len elements of their limb counts, the
        // outputs len elements of nr and ni limbs and len ternaries each,
        // flags at least len slots (the two counters sum to at most len),
        // ctl two counters, cs the tier's constants; each thread writes its
        // own element (float_cfunc / float_cdiv / float_cpow's argument
        // lists).
        unsafe { lb.launch(grid(len, block_for(len))) }
            .map_err(Error::driver("launching float_cfunc"))?;
        Ok(())
    })
}

fn new_part(eng: &Arc<CudaEngine>, len: usize, prec: u64) -> Result<Part> {
    let out = CudaFloats::uninit(eng, len, prec)?;
    // SAFETY: float_cfunc writes every slot.
    let tern = memory::alloc::<i8>(eng, len.max(1))?;
    Ok(Part { out, tern })
}

/// An operation of this module: a function of [`device_code`], or div
/// (float_cdiv) and pow (float_cpow) of two operands.
#[derive(Clone, Copy, Debug)]
pub enum Op {
    Func(CFunc),
    Div,
    Pow,
}

/// float_cfunc.cu's CF_DIV (the float_cdiv kernel).
pub const DIV_CODE: u32 = 16;

/// float_cfunc.cu's CF_POW (the float_cpow kernel).
pub const POW_CODE: u32 = 17;

impl Op {
    fn code(self) -> Option<u32> {
        match self {
            Op::Func(f) => device_code(f),
            Op::Div => Some(DIV_CODE),
            Op::Pow => Some(POW_CODE),
        }
    }

    /// The CPU engine's evaluation (`y`: div's and pow's second operand).
    fn cpu(
        self,
        z: &CpuComplex,
        y: Option<&CpuComplex>,
        pr: u64,
        pi: u64,
        rnd: CRound,
    ) -> Result<(CpuComplex, Ternary)> {
        match self {
            Op::Func(f) => z.func_ternary(f, pr, pi, rnd),
            Op::Div => z.div_ternary(y.expect("two operands"), pr, pi, rnd),
            Op::Pow => z.pow_ternary(y.expect("two operands"), pr, pi, rnd),
        }
    }
}

/// `f(z)` with each part rounded to `pr`, `pi` bits in its mode of `rnd`,
/// the ternary pairs (on the device) and the statistics (`retried`: elements
/// the first pass did not write; `device_retried`: of those, written by a
/// retry at a larger tier; `host`: evaluated by the CPU engine).
pub(crate) fn func_ternary_stats(
    z: &CudaComplex,
    f: CFunc,
    pr: u64,
    pi: u64,
    rnd: CRound,
) -> Result<(CudaComplex, CudaTernary, FuncStats)> {
    let _op = memory::op_scope("complex function");
    run_dev(Op::Func(f), z, None, pr, pi, rnd)
}

/// `x / y` (mpc_div) as [`func_ternary_stats`]: the regular elements (all
/// four parts normal, moderate exponents) on the device.
pub(crate) fn div_ternary_stats(
    x: &CudaComplex,
    y: &CudaComplex,
    pr: u64,
    pi: u64,
    rnd: CRound,
) -> Result<(CudaComplex, CudaTernary, FuncStats)> {
    let _op = memory::op_scope("complex div");
    run_two(Op::Div, x, y, pr, pi, rnd)
}

/// `x^y` (mpc_pow) as [`func_ternary_stats`]: the regular elements (x with
/// two normal parts, moderate `y`, a result neither real, imaginary nor
/// near the exponent range: float_cfunc.cu's cf_pow_eval) on the device.
pub(crate) fn pow_ternary_stats(
    x: &CudaComplex,
    y: &CudaComplex,
    pr: u64,
    pi: u64,
    rnd: CRound,
) -> Result<(CudaComplex, CudaTernary, FuncStats)> {
    let _op = memory::op_scope("complex pow");
    run_two(Op::Pow, x, y, pr, pi, rnd)
}

/// Div or pow after the operands' shape check.
fn run_two(
    op: Op,
    x: &CudaComplex,
    y: &CudaComplex,
    pr: u64,
    pi: u64,
    rnd: CRound,
) -> Result<(CudaComplex, CudaTernary, FuncStats)> {
    if x.len() != y.len() {
        return Err(Error::Shape(format!(
            "operands have {} and {} elements",
            x.len(),
            y.len()
        )));
    }
    run_dev(op, x, Some(y), pr, pi, rnd)
}

fn limbs2(z: &CudaComplex) -> (usize, usize) {
    (limbs_for_prec(z.re().prec()), limbs_for_prec(z.im().prec()))
}

fn raw2(z: &CudaComplex) -> [Raw<'_>; 2] {
    let (na, nb) = limbs2(z);
    let (ah, al) = z.re().raw_parts();
    let (bh, bl) = z.im().raw_parts();
    [(ah, al, na), (bh, bl, nb)]
}

/// The device evaluation of `op` on z (and y for div and pow), with the
/// retries and the CPU engine for the rest (on gathered elements).
/// [`run_dev_whole`] in chunks of elements when the result and the run's
/// temporaries do not fit in the free device memory (or
/// `MPARRAY_CUDA_MEM_LIMIT`): the same bits, each element computed alone;
/// an [`Error::DeviceMemory`] with the sizes when the result alone does not.
fn run_dev(
    op: Op,
    z: &CudaComplex,
    y: Option<&CudaComplex>,
    pr: u64,
    pi: u64,
    rnd: CRound,
) -> Result<(CudaComplex, CudaTernary, FuncStats)> {
    let eng = z.engine().clone();
    let len = z.len();
    let (na, nb) = limbs2(z);
    let (nc, nd) = y.map_or((0, 0), limbs2);
    let (n_re, n_im) = (
        crate::float::limbs_for_prec(pr),
        crate::float::limbs_for_prec(pi),
    );
    // Per element: both result parts (heads, limbs, ternary); the flag list
    // (up to 8 bytes) and, at worst, every element retried (index, the
    // gathered operands, results); a chunk's copy of the operands.
    let out_b = 8 * (2 + n_re + n_im) + 2;
    let arg_b = 8 * (2 + na + nb) + if y.is_some() { 8 * (2 + nc + nd) } else { 0 };
    let tmp_b = 8 + 4 + arg_b + out_b;
    let c = match memory::plan(&eng, "result and temporaries", len, out_b, tmp_b, arg_b)? {
        memory::Plan::Whole => return run_dev_whole(op, z, y, pr, pi, rnd),
        memory::Plan::Chunks(c) => c,
    };
    let mut re = new_part(&eng, len, pr)?;
    let mut im = new_part(&eng, len, pi)?;
    let stats = in_chunks(len, c, |start, end| {
        let part = |x: &CudaComplex| -> Result<CudaComplex> {
            CudaComplex::new(
                x.re().copy_range(start..end)?,
                x.im().copy_range(start..end)?,
            )
        };
        let zc = part(z)?;
        let yc = y.map(part).transpose()?;
        let (r, (tr, ti), s) = run_dev_whole(op, &zc, yc.as_ref(), pr, pi, rnd)?;
        drop((zc, yc));
        let (rr, ri) = r.into_parts();
        re.out.write_at(start, &rr)?;
        im.out.write_at(start, &ri)?;
        memory::write_at(&eng, &tr, end - start, &mut re.tern, start)?;
        memory::write_at(&eng, &ti, end - start, &mut im.tern, start)?;
        Ok(s)
    })?;
    let out = CudaComplex::new(re.out, im.out)?;
    Ok((out, (re.tern, im.tern), stats))
}

/// [`run_dev`] on all elements at once.
fn run_dev_whole(
    op: Op,
    z: &CudaComplex,
    y: Option<&CudaComplex>,
    pr: u64,
    pi: u64,
    rnd: CRound,
) -> Result<(CudaComplex, CudaTernary, FuncStats)> {
    let eng = z.engine().clone();
    let len = z.len();
    let (na, nb) = limbs2(z);
    let (nc, nd) = y.map_or((1, 1), limbs2);
    let k = ctier(pr, pi, na.max(nb), nc.max(nd));
    let (Some(code), Some(k)) = (op.code(), k) else {
        return on_host(op, z, y, pr, pi, rnd);
    };
    // A first use at a large tier with a small batch: the CPU engine.
    if first_use_on_cpu(len, k, CFIRST_USE_CPU_TIER, 0, cmodule_of(&eng, k, code).1) {
        return on_host(op, z, y, pr, pi, rnd);
    }
    if len == 0 || len >= u32::MAX as usize {
        return on_host(op, z, y, pr, pi, rnd);
    }
    crate::float::check_prec(pr)?;
    crate::float::check_prec(pi)?;
    let mut re = new_part(&eng, len, pr)?;
    let mut im = new_part(&eng, len, pi)?;
    // Gathers and scatters by the first pass's module (loaded by then).
    let first = || cmodule_of(&eng, k, code).0;
    let ready = |k2| cmodule_of(&eng, k2, code).1;
    let (host, stats) = with_flag_bufs(&eng, |bufs| {
        drive_min(len, k, 0, RETRY_MIN, ready, |k2, sel, _| {
            let Some(sel) = sel else {
                let (x, y) = (raw2(z), y.map(raw2));
                return launch(&eng, bufs, k2, code, rnd, x, y, len, &mut re, &mut im);
            };
            // The elements sel, gathered, at tier k2, scattered back.
            let (cnt, m) = (sel.len(), first());
            let idx = memory::upload(&eng, sel)?;
            let g = |x: &CudaFloats| gather(&eng, &m, x, &idx, cnt);
            let (gah, gal) = g(z.re())?;
            let (gbh, gbl) = g(z.im())?;
            let gy = match y {
                Some(y) => Some((g(y.re())?, g(y.im())?)),
                None => None,
            };
            let x = [(&gah, &gal, na), (&gbh, &gbl, nb)];
            let gy = gy
                .as_ref()
                .map(|((ch, cl), (dh, dl))| [(ch, cl, nc), (dh, dl, nd)]);
            let mut sre = new_part(&eng, cnt, pr)?;
            let mut sim = new_part(&eng, cnt, pi)?;
            let r = launch(&eng, bufs, k2, code, rnd, x, gy, cnt, &mut sre, &mut sim)?;
            for (src, dst) in [(&sre, &mut re), (&sim, &mut im)] {
                let (sh, sl) = src.out.raw_parts();
                let (out, tern) = (&mut dst.out, &mut dst.tern);
                scatter(&eng, &m, out, tern, &idx, cnt, (sh, sl, &src.tern))?;
            }
            Ok(r)
        })
    })?;
    if !host.is_empty() {
        // Gather the rest, evaluate them on the CPU engine, scatter.
        let (cnt, m) = (host.len(), first());
        let idx = memory::upload(&eng, &host)?;
        let part = |x: &CudaFloats| gather_to_host(&eng, &m, x, &idx, cnt);
        let sub = CpuComplex::new(part(z.re())?, part(z.im())?)?;
        let suby = match y {
            Some(y) => Some(CpuComplex::new(part(y.re())?, part(y.im())?)?),
            None => None,
        };
        let (r, t) = op.cpu(&sub, suby.as_ref(), pr, pi, rnd)?;
        let tr: Vec<i8> = t.iter().map(|p| p.0).collect();
        let ti: Vec<i8> = t.iter().map(|p| p.1).collect();
        for (x, tv, dst) in [(r.re(), &tr, &mut re), (r.im(), &ti, &mut im)] {
            scatter_from_host(&eng, &m, &mut dst.out, &mut dst.tern, &idx, x, tv)?;
        }
    }
    let out = CudaComplex::new(re.out, im.out)?;
    Ok((out, (re.tern, im.tern), stats))
}

/// The whole array on the CPU engine (functions not on the device,
/// precisions above the largest tier).
fn on_host(
    op: Op,
    z: &CudaComplex,
    y: Option<&CudaComplex>,
    pr: u64,
    pi: u64,
    rnd: CRound,
) -> Result<(CudaComplex, CudaTernary, FuncStats)> {
    let eng = z.engine();
    let hy = y.map(|y| y.to_host()).transpose()?;
    let (r, t) = op.cpu(&z.to_host()?, hy.as_ref(), pr, pi, rnd)?;
    let tr: Vec<i8> = t.iter().map(|p| p.0).collect();
    let ti: Vec<i8> = t.iter().map(|p| p.1).collect();
    let out = r.to_cuda(eng)?;
    let tern = (memory::upload(eng, &tr)?, memory::upload(eng, &ti)?);
    Ok((out, tern, host_stats(z.len())))
}

// ---- the host emulation (tests without a device) ----

/// The result of one emulated pass: both parts (heads, limbs, ternaries),
/// the undecided and the host-case positions.
struct EmuPass {
    parts: [(Vec<u64>, Vec<u64>, Vec<i8>); 2],
    und: Vec<u32>,
    host: Vec<u32>,
}

/// One pass of tests/emu/cplxgpu/emu.cpp (built at `exe`) at tier `k`.
#[allow(clippy::too_many_arguments)]
fn emu_pass(
    exe: &str,
    code: u32,
    rnd: CRound,
    pr: u64,
    pi: u64,
    k: usize,
    z: &CpuComplex,
    y: Option<&CpuComplex>,
) -> Result<EmuPass> {
    let (na, nb) = (z.re().limbs_per_element(), z.im().limbs_per_element());
    let (nr, ni) = (limbs_for_prec(pr), limbs_for_prec(pi));
    let len = z.len();
    let cs = constants(k)?;
    let rc = round_code(rnd.re) | round_code(rnd.im) << 4;
    let mut job: Vec<u64> = vec![
        code as u64,
        rc as u64,
        pr,
        nr as u64,
        pi,
        ni as u64,
        na as u64,
        nb as u64,
        y.map_or(0, |y| y.re().limbs_per_element() as u64),
        y.map_or(0, |y| y.im().limbs_per_element() as u64),
        k as u64,
        len as u64,
        cs.len() as u64,
    ];
    job.extend(cs.iter());
    for x in [Some(z), y].into_iter().flatten() {
        for p in [x.re(), x.im()] {
            job.extend(heads_of(p));
            job.extend(p.limbs());
        }
    }
    let w = emu_run(exe, &job)?;
    let p0 = emu_result(exe, &w, 0, len, nr)?;
    let o = 2 * len + len * nr;
    let p1 = emu_result(exe, &w, o, len, ni)?;
    let (und, host) = emu_lists(exe, &w, o + 2 * len + len * ni)?;
    Ok(EmuPass {
        parts: [p0, p1],
        und,
        host,
    })
}

fn pick2(z: &CpuComplex, idx: &[u32]) -> Result<CpuComplex> {
    CpuComplex::new(pick(z.re(), idx)?, pick(z.im(), idx)?)
}

/// The same evaluation as [`func_ternary_stats`] (`op` a function) or
/// [`div_ternary_stats`], [`pow_ternary_stats`] (`y` their second operand)
/// through the host emulation of the kernel (tests/emu/cplxgpu/emu.cpp
/// built at `exe`): the same tiers, constants, retries at larger tiers
/// (`retry_min`: the fewest undecided elements worth a retry; the device
/// uses `RETRY_MIN`) and CPU evaluation of the rest. For tests without a
/// device.
#[doc(hidden)]
#[allow(clippy::too_many_arguments)]
pub fn emulated(
    exe: &str,
    op: Op,
    z: &ComplexArray,
    y: Option<&ComplexArray>,
    pr: u64,
    pi: u64,
    rnd: CRound,
    retry_min: usize,
) -> Result<(ComplexArray, Ternary, FuncStats)> {
    let y = y.map(|y| y.host()).transpose()?;
    let (r, t, st) = emulated_cpu(exe, op, &*z.host()?, y.as_deref(), pr, pi, rnd, retry_min)?;
    Ok((r.into(), t, st))
}

#[allow(clippy::too_many_arguments)]
fn emulated_cpu(
    exe: &str,
    op: Op,
    z: &CpuComplex,
    y: Option<&CpuComplex>,
    pr: u64,
    pi: u64,
    rnd: CRound,
    retry_min: usize,
) -> Result<(CpuComplex, Ternary, FuncStats)> {
    let (na, nb) = (z.re().limbs_per_element(), z.im().limbs_per_element());
    let (nc, nd) = y.map_or((1, 1), |y| {
        (y.re().limbs_per_element(), y.im().limbs_per_element())
    });
    let len = z.len();
    let (Some(code), Some(k)) = (op.code(), ctier(pr, pi, na.max(nb), nc.max(nd))) else {
        let (r, t) = op.cpu(z, y, pr, pi, rnd)?;
        return Ok((r, t, host_stats(len)));
    };
    let ns = [limbs_for_prec(pr), limbs_for_prec(pi)];
    let mut parts: [(Vec<u64>, Vec<u64>, Vec<i8>); 2] = Default::default();
    let (host, stats) = drive_min(
        len,
        k,
        0,
        retry_min,
        |_| true,
        |k2, sel, _| {
            let Some(sel) = sel else {
                let r = emu_pass(exe, code, rnd, pr, pi, k2, z, y)?;
                parts = r.parts;
                return Ok((r.und, r.host));
            };
            let suby = y.map(|y| pick2(y, sel)).transpose()?;
            let r = emu_pass(exe, code, rnd, pr, pi, k2, &pick2(z, sel)?, suby.as_ref())?;
            for ((d, s), n) in parts.iter_mut().zip(&r.parts).zip(ns) {
                put(&mut d.0, &mut d.1, &mut d.2, n, sel, &s.0, &s.1, &s.2);
            }
            Ok((r.und, r.host))
        },
    )?;
    if !host.is_empty() {
        let suby = y.map(|y| pick2(y, &host)).transpose()?;
        let (r, t) = op.cpu(&pick2(z, &host)?, suby.as_ref(), pr, pi, rnd)?;
        let tp: [Vec<i8>; 2] = [
            t.iter().map(|p| p.0).collect(),
            t.iter().map(|p| p.1).collect(),
        ];
        for (((d, x), tv), n) in parts.iter_mut().zip([r.re(), r.im()]).zip(&tp).zip(ns) {
            put(
                &mut d.0,
                &mut d.1,
                &mut d.2,
                n,
                &host,
                &heads_of(x),
                x.limbs(),
                tv,
            );
        }
    }
    let [p0, p1] = parts;
    let out = CpuComplex::new(from_heads(pr, &p0.0, p0.1)?, from_heads(pi, &p1.0, p1.1)?)?;
    let t = p0.2.into_iter().zip(p1.2).collect();
    Ok((out, t, stats))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every operation's code has a family with one `CF_HAS` line in
    /// float_cfunc.cu (div and pow: their kernels), and a family is its own
    /// family.
    #[test]
    fn families_cover_every_operation() {
        let src = crate::kernels::FLOAT_CFUNC.code;
        let mut codes: Vec<u32> = CFunc::ALL
            .iter()
            .map(|&f| device_code(f).unwrap())
            .collect();
        codes.extend([DIV_CODE, POW_CODE]);
        for c in codes {
            let f = cfamily(c);
            assert!(CFAMILIES.contains(&f), "code {c}");
            assert_eq!(cfamily(f), f);
            assert!(src.contains(&format!("CF_HAS({f})")), "code {c}");
        }
    }
}
