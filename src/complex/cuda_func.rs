//! Complex functions evaluated on the CUDA device (issue 5): the
//! `float_cfunc` kernel (src/kernels/float_cfunc.cuh, part of the float_func
//! module: the same tiers and constants as the real functions), a thread per
//! element. The kernel evaluates the REGULAR elements of a function (both
//! parts normal, exponents where func.rs takes its plain Ziv path and the
//! value cores are valid) as intervals with proven bounds and rounds each
//! part in its own mode; elements whose rounding it cannot decide are
//! gathered on the device and re-run at larger tiers (as the real
//! functions, `RETRY_TIERS`), and the rest (special and exact cases, huge
//! parts, still undecided) are evaluated by the CPU engine and scattered
//! back. The same bits and ternary pairs as the CPU engine.
//!
//! On the device: exp, log, sin, cos, sinh, cosh, tan, tanh, sqrt, atan,
//! asin, acos (`float_cfunc`), div (`float_cdiv`) and pow (`float_cpow`).

use std::sync::Arc;

use cudarc::driver::{CudaSlice, PushKernelArg};

use super::cuda::{CudaComplexArray, CudaTernary};
use super::{CFunc, CRound, ComplexArray, Ternary};
use crate::engine::CudaEngine;
use crate::error::{Error, Result};
use crate::float::cuda::{CudaFloatArray, round_code};
use crate::float::func::FuncStats;
use crate::float::func::cuda::{
    RETRY_MIN, block_for, constants, device_constants, from_heads, grid, heads_of, inst,
    retry_tiers, tier,
};
use crate::float::{FloatArray, limbs_for_prec};

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

fn upload_u32(eng: &Arc<CudaEngine>, v: &[u32]) -> Result<CudaSlice<u32>> {
    eng.stream()
        .clone_htod(v)
        .map_err(Error::driver("copying to the device"))
}

fn upload_i8(eng: &Arc<CudaEngine>, v: &[i8]) -> Result<CudaSlice<i8>> {
    let v = if v.is_empty() { vec![0] } else { v.to_vec() };
    eng.stream()
        .clone_htod(&v)
        .map_err(Error::driver("copying to the device"))
}

/// Elements `idx` of a device part as compact device arrays
/// (float_func_gather).
fn gather(
    eng: &Arc<CudaEngine>,
    k: usize,
    x: &CudaFloatArray,
    idx: &CudaSlice<u32>,
    cnt: usize,
) -> Result<(CudaSlice<u64>, CudaSlice<u64>)> {
    let nx = limbs_for_prec(x.prec());
    let mut gh = crate::int::cuda::alloc(eng, cnt)?;
    let mut gl = crate::int::cuda::alloc(eng, cnt * nx)?;
    let func = eng.function(&inst(k), "float_func_gather")?;
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
    // SAFETY: idx holds cnt indices below x.len(); gh/gl hold cnt elements.
    unsafe { b.launch(grid(cnt, 128)) }.map_err(Error::driver("launching float_func_gather"))?;
    Ok((gh, gl))
}

/// Compact results (heads, limbs, ternaries) into elements `idx` of `out`
/// (float_func_scatter).
fn scatter(
    eng: &Arc<CudaEngine>,
    k: usize,
    out: &mut CudaFloatArray,
    tern: &mut CudaSlice<i8>,
    idx: &CudaSlice<u32>,
    cnt: usize,
    src: (&CudaSlice<u64>, &CudaSlice<u64>, &CudaSlice<i8>),
) -> Result<()> {
    let n32 = limbs_for_prec(out.prec()) as u32;
    let cnt32 = cnt as u32;
    let func = eng.function(&inst(k), "float_func_scatter")?;
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

/// A part's raw device buffers (heads, limbs) and limbs per element.
type Raw<'a> = (&'a CudaSlice<u64>, &'a CudaSlice<u64>, usize);

/// One part's device output.
struct Part {
    out: CudaFloatArray,
    tern: CudaSlice<i8>,
}

/// One launch of float_cfunc at tier `k` over `len` elements (parts given
/// as raw device buffers of `na`, `nb` limbs): writes both parts and
/// returns the undecided and host-case positions.
#[allow(clippy::too_many_arguments)]
fn launch(
    eng: &Arc<CudaEngine>,
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
    let s = eng.stream();
    let mut ctl = s
        .alloc_zeros::<u32>(2)
        .map_err(Error::driver("allocating"))?;
    // SAFETY: the kernel writes the slots it reports through ctl.
    let mut flags = unsafe { s.alloc::<u32>(len) }.map_err(Error::driver("allocating"))?;
    let func = eng.function(
        &inst(k),
        match (y.is_some(), code) {
            (true, POW_CODE) => "float_cpow",
            (true, _) => "float_cdiv",
            _ => "float_cfunc",
        },
    )?;
    let cs = device_constants(eng, k)?;
    let (pr, pi) = (re.out.prec(), im.out.prec());
    let (nr, ni) = (limbs_for_prec(pr) as u32, limbs_for_prec(pi) as u32);
    let (na, nb) = (a.2 as u32, b.2 as u32);
    let len64 = len as u64;
    let rc = round_code(rnd.re) | round_code(rnd.im) << 4;
    {
        let (rh, rl) = re.out.raw_parts_mut();
        let (ih, il) = im.out.raw_parts_mut();
        let mut lb = s.launch_builder(&func);
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
        let ncd = y.map(|[c, d]| (c.2 as u32, d.2 as u32));
        if let (Some([c, d]), Some((nc, nd))) = (&y, &ncd) {
            lb.arg(c.0)
                .arg(c.1)
                .arg(nc)
                .arg(d.0)
                .arg(d.1)
                .arg(nd)
                .arg(&len64)
                .arg(&rc)
                .arg(&pr)
                .arg(&nr)
                .arg(&pi)
                .arg(&ni);
            if code == POW_CODE {
                lb.arg(&*cs);
            }
        } else {
            lb.arg(&len64)
                .arg(&code)
                .arg(&rc)
                .arg(&pr)
                .arg(&nr)
                .arg(&pi)
                .arg(&ni)
                .arg(&*cs);
        }
        lb.arg(&mut ctl).arg(&mut flags);
        // SAFETY: the operands hold len elements of their limb counts, the
        // outputs len elements of nr and ni limbs and len ternaries each,
        // flags len slots (the two counters sum to at most len), ctl two
        // counters, cs the tier's constants; each thread writes its own
        // element (float_cfunc / float_cdiv's argument lists).
        unsafe { lb.launch(grid(len, block_for(len))) }
            .map_err(Error::driver("launching float_cfunc"))?;
    }
    let c = s
        .clone_dtoh(&ctl)
        .map_err(Error::driver("copying from the device"))?;
    let (nu, nh) = (c[0] as usize, c[1] as usize);
    if nu + nh > len {
        return Err(Error::Invalid("float_cfunc: flag counters overflow".into()));
    }
    let get = |x: usize, y: usize| -> Result<Vec<u32>> {
        if x == y {
            return Ok(Vec::new());
        }
        s.clone_dtoh(&flags.slice(x..y))
            .map_err(Error::driver("copying from the device"))
    };
    Ok((get(0, nu)?, get(len - nh, len)?))
}

fn new_part(eng: &Arc<CudaEngine>, len: usize, prec: u64) -> Result<Part> {
    let out = CudaFloatArray::uninit(eng, len, prec)?;
    // SAFETY: float_cfunc writes every slot.
    let tern =
        unsafe { eng.stream().alloc::<i8>(len.max(1)) }.map_err(Error::driver("allocating"))?;
    Ok(Part { out, tern })
}

/// `f(z)` with each part rounded to `pr`, `pi` bits in its mode of `rnd`,
/// the ternary pairs (on the device) and the statistics (`retried`: elements
/// the first pass did not write; `device_retried`: of those, written by a
/// retry at a larger tier; `host`: evaluated by the CPU engine).
pub fn func_ternary_stats(
    z: &CudaComplexArray,
    f: CFunc,
    pr: u64,
    pi: u64,
    rnd: CRound,
) -> Result<(CudaComplexArray, CudaTernary, FuncStats)> {
    run_dev(z, None, device_code(f), pr, pi, rnd, |x, _| {
        x.func_ternary(f, pr, pi, rnd)
    })
}

/// `x / y` (mpc_div) as [`func_ternary_stats`]: the regular elements (all
/// four parts normal, moderate exponents) on the device.
pub fn div_ternary_stats(
    x: &CudaComplexArray,
    y: &CudaComplexArray,
    pr: u64,
    pi: u64,
    rnd: CRound,
) -> Result<(CudaComplexArray, CudaTernary, FuncStats)> {
    if x.len() != y.len() {
        return Err(Error::Shape(format!(
            "operands have {} and {} elements",
            x.len(),
            y.len()
        )));
    }
    run_dev(x, Some(y), Some(DIV_CODE), pr, pi, rnd, |a, b| {
        a.div_ternary(b.expect("two operands"), pr, pi, rnd)
    })
}

/// float_cfunc.cuh's CF_DIV (the float_cdiv kernel).
pub const DIV_CODE: u32 = 16;

/// `x^y` (mpc_pow) as [`func_ternary_stats`]: the regular elements (x with
/// two normal parts, moderate `y`, a result neither real, imaginary nor
/// near the exponent range: float_cfunc.cuh's cf_pow_eval) on the device.
pub fn pow_ternary_stats(
    x: &CudaComplexArray,
    y: &CudaComplexArray,
    pr: u64,
    pi: u64,
    rnd: CRound,
) -> Result<(CudaComplexArray, CudaTernary, FuncStats)> {
    if x.len() != y.len() {
        return Err(Error::Shape(format!(
            "operands have {} and {} elements",
            x.len(),
            y.len()
        )));
    }
    run_dev(x, Some(y), Some(POW_CODE), pr, pi, rnd, |a, b| {
        a.pow_ternary(b.expect("two operands"), pr, pi, rnd)
    })
}

/// float_cfunc.cuh's CF_POW (the float_cpow kernel).
pub const POW_CODE: u32 = 17;

fn limbs2(z: &CudaComplexArray) -> (usize, usize) {
    (limbs_for_prec(z.re().prec()), limbs_for_prec(z.im().prec()))
}

fn raw2(z: &CudaComplexArray) -> [Raw<'_>; 2] {
    let (na, nb) = limbs2(z);
    let (ah, al) = z.re().raw_parts();
    let (bh, bl) = z.im().raw_parts();
    [(ah, al, na), (bh, bl, nb)]
}

/// The device evaluation of `code` on z (and y for division), with the
/// retries and the CPU engine's `cpu` for the rest (on gathered elements).
#[allow(clippy::too_many_arguments)]
fn run_dev(
    z: &CudaComplexArray,
    y: Option<&CudaComplexArray>,
    code: Option<u32>,
    pr: u64,
    pi: u64,
    rnd: CRound,
    cpu: impl Fn(&ComplexArray, Option<&ComplexArray>) -> Result<(ComplexArray, Ternary)>,
) -> Result<(CudaComplexArray, CudaTernary, FuncStats)> {
    let eng = z.engine().clone();
    let len = z.len();
    let (na, nb) = limbs2(z);
    let (nc, nd) = y.map_or((1, 1), limbs2);
    let k = ctier(pr, pi, na.max(nb), nc.max(nd));
    let (Some(code), Some(k)) = (code, k) else {
        return on_host(z, y, cpu);
    };
    if len == 0 || len >= u32::MAX as usize {
        return on_host(z, y, cpu);
    }
    crate::float::check_prec(pr)?;
    crate::float::check_prec(pi)?;
    let mut re = new_part(&eng, len, pr)?;
    let mut im = new_part(&eng, len, pi)?;
    let (und, mut host) = launch(
        &eng,
        k,
        code,
        rnd,
        raw2(z),
        y.map(raw2),
        len,
        &mut re,
        &mut im,
    )?;
    let first = und.len() + host.len();
    let mut und = und;
    for k2 in retry_tiers(k) {
        if und.len() < RETRY_MIN {
            break;
        }
        let cnt = und.len();
        let idx = upload_u32(&eng, &und)?;
        let g = |x: &CudaFloatArray| gather(&eng, k, x, &idx, cnt);
        let (gah, gal) = g(z.re())?;
        let (gbh, gbl) = g(z.im())?;
        let gy = match y {
            Some(y) => Some((g(y.re())?, g(y.im())?)),
            None => None,
        };
        let mut sre = new_part(&eng, cnt, pr)?;
        let mut sim = new_part(&eng, cnt, pi)?;
        let (u2, h2) = launch(
            &eng,
            k2,
            code,
            rnd,
            [(&gah, &gal, na), (&gbh, &gbl, nb)],
            gy.as_ref()
                .map(|((ch, cl), (dh, dl))| [(ch, cl, nc), (dh, dl, nd)]),
            cnt,
            &mut sre,
            &mut sim,
        )?;
        for (src, dst) in [(&sre, &mut re), (&sim, &mut im)] {
            let (sh, sl) = src.out.raw_parts();
            scatter(
                &eng,
                k,
                &mut dst.out,
                &mut dst.tern,
                &idx,
                cnt,
                (sh, sl, &src.tern),
            )?;
        }
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
    if !host.is_empty() {
        // Gather the rest, evaluate them on the CPU engine, scatter.
        let cnt = host.len();
        let idx = upload_u32(&eng, &host)?;
        let part = |x: &CudaFloatArray| -> Result<FloatArray> {
            let n = limbs_for_prec(x.prec());
            let (gh, gl) = gather(&eng, k, x, &idx, cnt)?;
            let mut hh = crate::int::cuda::download(&eng, &gh)?;
            hh.truncate(cnt);
            let mut hl = crate::int::cuda::download(&eng, &gl)?;
            hl.truncate(cnt * n);
            from_heads(x.prec(), &hh, hl)
        };
        let sub = ComplexArray::new(part(z.re())?, part(z.im())?)?;
        let suby = match y {
            Some(y) => Some(ComplexArray::new(part(y.re())?, part(y.im())?)?),
            None => None,
        };
        let (r, t) = cpu(&sub, suby.as_ref())?;
        let tr: Vec<i8> = t.iter().map(|p| p.0).collect();
        let ti: Vec<i8> = t.iter().map(|p| p.1).collect();
        for (x, tv, dst) in [(r.re(), &tr, &mut re), (r.im(), &ti, &mut im)] {
            let sh = crate::int::cuda::upload(&eng, &heads_of(x))?;
            let sl = crate::int::cuda::upload(&eng, x.limbs())?;
            let st = upload_i8(&eng, tv)?;
            scatter(
                &eng,
                k,
                &mut dst.out,
                &mut dst.tern,
                &idx,
                cnt,
                (&sh, &sl, &st),
            )?;
        }
    }
    let out = CudaComplexArray::new(re.out, im.out)?;
    Ok((out, (re.tern, im.tern), stats))
}

/// The whole array on the CPU engine (functions not on the device,
/// precisions above the largest tier).
fn on_host(
    z: &CudaComplexArray,
    y: Option<&CudaComplexArray>,
    cpu: impl Fn(&ComplexArray, Option<&ComplexArray>) -> Result<(ComplexArray, Ternary)>,
) -> Result<(CudaComplexArray, CudaTernary, FuncStats)> {
    let eng = z.engine();
    let hy = y.map(|y| y.to_host()).transpose()?;
    let (r, t) = cpu(&z.to_host()?, hy.as_ref())?;
    let tr: Vec<i8> = t.iter().map(|p| p.0).collect();
    let ti: Vec<i8> = t.iter().map(|p| p.1).collect();
    let n = z.len() as u64;
    let stats = FuncStats {
        elements: n,
        retried: n,
        device_retried: 0,
        host: n,
    };
    let out = r.to_cuda(eng)?;
    Ok((out, (upload_i8(eng, &tr)?, upload_i8(eng, &ti)?), stats))
}

/// Uploads `z`, evaluates `f` on the device and brings the result, the
/// ternary pairs and the statistics back (tests, bench).
pub fn func_on_host_arrays(
    eng: &Arc<CudaEngine>,
    f: CFunc,
    z: &ComplexArray,
    pr: u64,
    pi: u64,
    rnd: CRound,
) -> Result<(ComplexArray, Ternary, FuncStats)> {
    let d = z.to_cuda(eng)?;
    let (r, t, st) = func_ternary_stats(&d, f, pr, pi, rnd)?;
    let mut t = super::cuda::ternary_pairs_to_host(eng, &t)?;
    t.truncate(r.len());
    Ok((r.to_host()?, t, st))
}

// ---- the host emulation (tests without a device) ----

/// The result of one emulated pass: both parts (heads, limbs, ternaries),
/// the undecided and the host-case positions.
struct EmuPass {
    parts: [(Vec<u64>, Vec<u64>, Vec<i8>); 2],
    und: Vec<usize>,
    host: Vec<usize>,
}

/// One pass of notes/cplxgpu-emu/emu.cpp (built at `exe`) at tier `k`.
#[allow(clippy::too_many_arguments)]
fn emu_pass(
    exe: &str,
    code: u32,
    rnd: CRound,
    pr: u64,
    pi: u64,
    k: usize,
    z: &ComplexArray,
    y: Option<&ComplexArray>,
) -> Result<EmuPass> {
    use std::io::{Read, Write};
    use std::process::{Command, Stdio};
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
    job.extend(heads_of(z.re()));
    job.extend(z.re().limbs());
    job.extend(heads_of(z.im()));
    job.extend(z.im().limbs());
    if let Some(y) = y {
        job.extend(heads_of(y.re()));
        job.extend(y.re().limbs());
        job.extend(heads_of(y.im()));
        job.extend(y.im().limbs());
    }
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
    let w: Vec<u64> = outb
        .chunks_exact(8)
        .map(|c| u64::from_le_bytes(c.try_into().expect("8 bytes")))
        .collect();
    let short = || Error::Invalid(format!("emulator {exe}: short answer"));
    let mut pos = 0usize;
    let mut take = |n: usize| -> Result<Vec<u64>> {
        let v = w.get(pos..pos + n).ok_or_else(short)?.to_vec();
        pos += n;
        Ok(v)
    };
    let mut part = |n: usize| -> Result<(Vec<u64>, Vec<u64>, Vec<i8>)> {
        let h = take(len)?;
        let l = take(len * n)?;
        let t = take(len)?.iter().map(|&v| v as i64 as i8).collect();
        Ok((h, l, t))
    };
    let p0 = part(nr)?;
    let p1 = part(ni)?;
    let mut list = || -> Result<Vec<usize>> {
        let n = take(1)?[0] as usize;
        Ok(take(n)?.iter().map(|&v| v as usize).collect())
    };
    let und = list()?;
    let host = list()?;
    Ok(EmuPass {
        parts: [p0, p1],
        und,
        host,
    })
}

/// Elements `idx` of a host array.
fn pick(x: &FloatArray, idx: &[usize]) -> Result<FloatArray> {
    let nx = x.limbs_per_element();
    let xh = heads_of(x);
    let hh: Vec<u64> = idx.iter().map(|&i| xh[i]).collect();
    let hl: Vec<u64> = idx
        .iter()
        .flat_map(|&i| x.limbs()[i * nx..(i + 1) * nx].iter().copied())
        .collect();
    from_heads(x.prec(), &hh, hl)
}

fn pick2(z: &ComplexArray, idx: &[usize]) -> Result<ComplexArray> {
    ComplexArray::new(pick(z.re(), idx)?, pick(z.im(), idx)?)
}

/// The same evaluation as [`func_ternary_stats`] through the host
/// emulation of the kernel (notes/cplxgpu-emu/emu.cpp built at `exe`): the
/// same tiers, constants, retries at larger tiers (`retry_min`: the fewest
/// undecided elements worth a retry; the device uses `RETRY_MIN`) and CPU
/// evaluation of the rest. For tests without a device.
#[doc(hidden)]
pub fn func_emulated(
    exe: &str,
    f: CFunc,
    z: &ComplexArray,
    pr: u64,
    pi: u64,
    rnd: CRound,
    retry_min: usize,
) -> Result<(ComplexArray, Ternary, FuncStats)> {
    emulated(
        exe,
        z,
        None,
        device_code(f),
        pr,
        pi,
        rnd,
        retry_min,
        |x, _| x.func_ternary(f, pr, pi, rnd),
    )
}

/// [`div_ternary_stats`] through the emulator, as [`func_emulated`].
#[doc(hidden)]
pub fn div_emulated(
    exe: &str,
    x: &ComplexArray,
    y: &ComplexArray,
    pr: u64,
    pi: u64,
    rnd: CRound,
    retry_min: usize,
) -> Result<(ComplexArray, Ternary, FuncStats)> {
    emulated(
        exe,
        x,
        Some(y),
        Some(DIV_CODE),
        pr,
        pi,
        rnd,
        retry_min,
        |a, b| a.div_ternary(b.expect("two operands"), pr, pi, rnd),
    )
}

/// [`pow_ternary_stats`] through the emulator, as [`func_emulated`].
#[doc(hidden)]
pub fn pow_emulated(
    exe: &str,
    x: &ComplexArray,
    y: &ComplexArray,
    pr: u64,
    pi: u64,
    rnd: CRound,
    retry_min: usize,
) -> Result<(ComplexArray, Ternary, FuncStats)> {
    emulated(
        exe,
        x,
        Some(y),
        Some(POW_CODE),
        pr,
        pi,
        rnd,
        retry_min,
        |a, b| a.pow_ternary(b.expect("two operands"), pr, pi, rnd),
    )
}

#[allow(clippy::too_many_arguments)]
fn emulated(
    exe: &str,
    z: &ComplexArray,
    y: Option<&ComplexArray>,
    code: Option<u32>,
    pr: u64,
    pi: u64,
    rnd: CRound,
    retry_min: usize,
    cpu: impl Fn(&ComplexArray, Option<&ComplexArray>) -> Result<(ComplexArray, Ternary)>,
) -> Result<(ComplexArray, Ternary, FuncStats)> {
    let (na, nb) = (z.re().limbs_per_element(), z.im().limbs_per_element());
    let (nc, nd) = y.map_or((1, 1), |y| {
        (y.re().limbs_per_element(), y.im().limbs_per_element())
    });
    let len = z.len();
    let (Some(code), Some(k)) = (code, ctier(pr, pi, na.max(nb), nc.max(nd))) else {
        let (r, t) = cpu(z, y)?;
        let n = len as u64;
        let st = FuncStats {
            elements: n,
            retried: n,
            device_retried: 0,
            host: n,
        };
        return Ok((r, t, st));
    };
    let (nr, ni) = (limbs_for_prec(pr), limbs_for_prec(pi));
    let EmuPass {
        parts: [mut p0, mut p1],
        mut und,
        mut host,
    } = emu_pass(exe, code, rnd, pr, pi, k, z, y)?;
    let first = und.len() + host.len();
    let put =
        |dst: &mut (Vec<u64>, Vec<u64>, Vec<i8>), n: usize, i: usize, h: u64, l: &[u64], t: i8| {
            dst.0[i] = h;
            dst.1[i * n..(i + 1) * n].copy_from_slice(l);
            dst.2[i] = t;
        };
    for k2 in retry_tiers(k) {
        if und.len() < retry_min.max(1) {
            break;
        }
        let sub = pick2(z, &und)?;
        let suby = y.map(|y| pick2(y, &und)).transpose()?;
        let r = emu_pass(exe, code, rnd, pr, pi, k2, &sub, suby.as_ref())?;
        for (j, &i) in und.iter().enumerate() {
            let [s0, s1] = &r.parts;
            put(
                &mut p0,
                nr,
                i,
                s0.0[j],
                &s0.1[j * nr..(j + 1) * nr],
                s0.2[j],
            );
            put(
                &mut p1,
                ni,
                i,
                s1.0[j],
                &s1.1[j * ni..(j + 1) * ni],
                s1.2[j],
            );
        }
        host.extend(r.host.iter().map(|&j| und[j]));
        und = r.und.iter().map(|&j| und[j]).collect();
    }
    host.extend(und);
    if !host.is_empty() {
        let sub = pick2(z, &host)?;
        let suby = y.map(|y| pick2(y, &host)).transpose()?;
        let (r, t) = cpu(&sub, suby.as_ref())?;
        let (h0, h1) = (heads_of(r.re()), heads_of(r.im()));
        for (j, &i) in host.iter().enumerate() {
            put(
                &mut p0,
                nr,
                i,
                h0[j],
                &r.re().limbs()[j * nr..(j + 1) * nr],
                t[j].0,
            );
            put(
                &mut p1,
                ni,
                i,
                h1[j],
                &r.im().limbs()[j * ni..(j + 1) * ni],
                t[j].1,
            );
        }
    }
    let out = ComplexArray::new(from_heads(pr, &p0.0, p0.1)?, from_heads(pi, &p1.0, p1.1)?)?;
    let t = p0.2.into_iter().zip(p1.2).collect();
    let st = FuncStats {
        elements: len as u64,
        retried: first as u64,
        device_retried: (first - host.len()) as u64,
        host: host.len() as u64,
    };
    Ok((out, t, st))
}
