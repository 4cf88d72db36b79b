//! Two-argument functions (atan2, hypot, pow, agm; pow_si through pow) and
//! sin_cos (two outputs of one reduction) on CUDA float arrays, evaluated by
//! the `float_func2` kernel (src/kernels/float_func_trig.cuh, part of the
//! float_func module): a thread per element, the same tiers, constants and
//! acceptance test as the one-argument functions (cuda.rs). Elements the
//! kernel flags (undecided rounding, special operands of pow and agm, exact
//! results, huge arguments) are gathered on the device, evaluated by the CPU
//! engine and scattered back; precisions above the largest tier run on the
//! CPU engine. See notes/functrig.md.

use std::sync::Arc;

use cudarc::driver::{CudaSlice, PushKernelArg};
use malachite_nz::integer::Integer;

use super::cuda::{block_for, device_constants, from_heads, grid, heads_of, inst, tier};
use super::{Func2, FuncStats};
use crate::engine::CudaEngine;
use crate::error::{Error, Result};
use crate::float::cuda::{CudaFloatArray, round_code, ternary_to_host};
use crate::float::{FloatArray, Round, limbs_for_prec};

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
        x: &FloatArray,
        y: Option<&FloatArray>,
        prec: u64,
        rnd: Round,
    ) -> Result<(FloatArray, Vec<i8>, Option<(FloatArray, Vec<i8>)>)> {
        match self {
            Job::Two(f) => {
                let (r, t, _) = x.func2_ternary(y.expect("two arguments"), f, prec, rnd)?;
                Ok((r, t, None))
            }
            Job::SinCos => {
                let ((s, ts), (c, tc)) = x.sin_cos_ternary(prec, rnd)?;
                Ok((s, ts, Some((c, tc))))
            }
        }
    }
}

/// A device result and its ternary values.
pub type DevResult = (CudaFloatArray, CudaSlice<i8>);

fn upload_tern(eng: &Arc<CudaEngine>, t: &[i8]) -> Result<CudaSlice<i8>> {
    if t.is_empty() {
        return eng
            .stream()
            .alloc_zeros::<i8>(1)
            .map_err(Error::driver("allocating"));
    }
    eng.stream()
        .clone_htod(t)
        .map_err(Error::driver("copying to the device"))
}

/// The evaluation of `job` on the device (x, and y for two arguments).
fn run_dev(
    x: &CudaFloatArray,
    y: Option<&CudaFloatArray>,
    job: Job,
    prec: u64,
    rnd: Round,
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
    let n = limbs_for_prec(prec);
    let two = matches!(job, Job::SinCos);
    let Some(k) = tier(prec, nx.max(ny)) else {
        // The CPU engine for the whole array.
        let hy = y.map(|y| y.to_host()).transpose()?;
        let (r, t, r2) = job.on_cpu(&x.to_host()?, hy.as_ref(), prec, rnd)?;
        let stats = FuncStats {
            elements: len as u64,
            retried: len as u64,
            host: len as u64,
            device_retried: 0,
        };
        let first = (r.to_cuda(&eng)?, upload_tern(&eng, &t)?);
        let second = match r2 {
            Some((c, tc)) => Some((c.to_cuda(&eng)?, upload_tern(&eng, &tc)?)),
            None => None,
        };
        return Ok((first, second, stats));
    };
    let mut out = CudaFloatArray::zeros(&eng, len, prec)?;
    let mut tern = eng
        .stream()
        .alloc_zeros::<i8>(len.max(1))
        .map_err(Error::driver("allocating"))?;
    let (mut out2, mut tern2) = if two {
        (
            CudaFloatArray::zeros(&eng, len, prec)?,
            eng.stream()
                .alloc_zeros::<i8>(len.max(1))
                .map_err(Error::driver("allocating"))?,
        )
    } else {
        // Never written (one output).
        (
            CudaFloatArray::zeros(&eng, 1, prec)?,
            eng.stream()
                .alloc_zeros::<i8>(1)
                .map_err(Error::driver("allocating"))?,
        )
    };
    if len == 0 {
        let second = two.then_some((out2, tern2));
        return Ok(((out, tern), second, FuncStats::default()));
    }
    if len > u32::MAX as usize {
        return Err(Error::Invalid(format!(
            "{len} elements: the function kernels take at most 2^32 - 1"
        )));
    }
    let cs = device_constants(&eng, k)?;
    let mut nflag = eng
        .stream()
        .alloc_zeros::<u32>(1)
        .map_err(Error::driver("allocating"))?;
    let mut flags = eng
        .stream()
        .alloc_zeros::<u32>(len)
        .map_err(Error::driver("allocating"))?;
    let instance = inst(k);
    {
        let func = eng.function(&instance, "float_func2")?;
        let (xh, xl) = x.raw_parts();
        let (yh, yl) = y.unwrap_or(x).raw_parts();
        let (len64, code, rc, n32, nx32, ny32) = (
            len as u64,
            job.code(),
            round_code(rnd),
            n as u32,
            nx as u32,
            ny as u32,
        );
        let (rh, rl) = out.raw_parts_mut();
        let (rh2, rl2) = out2.raw_parts_mut();
        let mut b = eng.stream().launch_builder(&func);
        b.arg(rh)
            .arg(rl)
            .arg(&mut tern)
            .arg(rh2)
            .arg(rl2)
            .arg(&mut tern2)
            .arg(xh)
            .arg(xl)
            .arg(&nx32)
            .arg(yh)
            .arg(yl)
            .arg(&ny32)
            .arg(&len64)
            .arg(&code)
            .arg(&rc)
            .arg(&prec)
            .arg(&n32)
            .arg(&*cs)
            .arg(&mut nflag)
            .arg(&mut flags);
        // SAFETY: x and y hold len elements of nx and ny limbs, out len of
        // n limbs (out2 too when two; otherwise it is never written), tern,
        // tern2 (when two) and flags len slots, cs the tier's constants (the
        // layout of float_func.cu); each thread writes its own element and
        // one flag slot claimed by an atomic counter (at most len).
        unsafe { b.launch(grid(len, block_for(len))) }
            .map_err(Error::driver("launching float_func2"))?;
    }
    let cnt = eng
        .stream()
        .clone_dtoh(&nflag)
        .map_err(Error::driver("copying from the device"))?[0] as usize;
    let stats = FuncStats {
        elements: len as u64,
        retried: cnt as u64,
        host: cnt as u64,
        device_retried: 0,
    };
    if cnt > 0 {
        // Gather the flagged arguments, evaluate them on the CPU, scatter.
        let cnt32 = cnt as u32;
        let gather = |a: &CudaFloatArray, na: usize| -> Result<FloatArray> {
            let mut gh = crate::int::cuda::alloc_zeros(&eng, cnt)?;
            let mut gl = crate::int::cuda::alloc_zeros(&eng, cnt * na)?;
            let func = eng.function(&instance, "float_func_gather")?;
            let (ah, al) = a.raw_parts();
            let na32 = na as u32;
            let mut b = eng.stream().launch_builder(&func);
            b.arg(&mut gh)
                .arg(&mut gl)
                .arg(ah)
                .arg(al)
                .arg(&na32)
                .arg(&flags)
                .arg(&cnt32);
            // SAFETY: flags holds cnt indices below len; gh/gl cnt elements.
            unsafe { b.launch(grid(cnt, 128)) }
                .map_err(Error::driver("launching float_func_gather"))?;
            let mut hh = crate::int::cuda::download(&eng, &gh)?;
            hh.truncate(cnt);
            let mut hl = crate::int::cuda::download(&eng, &gl)?;
            hl.truncate(cnt * na);
            from_heads(a.prec(), &hh, hl)
        };
        let sx = gather(x, nx)?;
        let sy = match y {
            Some(y) => Some(gather(y, ny)?),
            None => None,
        };
        let (r, t, r2) = job.on_cpu(&sx, sy.as_ref(), prec, rnd)?;
        let scatter = |dst: &mut CudaFloatArray,
                       dt: &mut CudaSlice<i8>,
                       r: &FloatArray,
                       t: &[i8]|
         -> Result<()> {
            let sh = crate::int::cuda::upload(&eng, &heads_of(r))?;
            let sl = crate::int::cuda::upload(&eng, r.limbs())?;
            let st = upload_tern(&eng, t)?;
            let func = eng.function(&instance, "float_func_scatter")?;
            let n32 = n as u32;
            let (rh, rl) = dst.raw_parts_mut();
            let mut b = eng.stream().launch_builder(&func);
            b.arg(rh)
                .arg(rl)
                .arg(dt)
                .arg(&n32)
                .arg(&flags)
                .arg(&cnt32)
                .arg(&sh)
                .arg(&sl)
                .arg(&st);
            // SAFETY: as the gather; sh/sl/st hold cnt results of n limbs.
            unsafe { b.launch(grid(cnt, 128)) }
                .map_err(Error::driver("launching float_func_scatter"))?;
            Ok(())
        };
        scatter(&mut out, &mut tern, &r, &t)?;
        if let Some((c, tc)) = r2 {
            scatter(&mut out2, &mut tern2, &c, &tc)?;
        }
    }
    let second = two.then_some((out2, tern2));
    Ok(((out, tern), second, stats))
}

impl CudaFloatArray {
    /// `f(self, y)` elementwise (atan2(self, y) has self as the ordinate, as
    /// mpfr_atan2), rounded to `prec` bits in mode `rnd` on the device, the
    /// ternary values (on the device), and how many elements the host
    /// re-evaluated (`retried`).
    pub fn func2_ternary(
        &self,
        y: &CudaFloatArray,
        f: Func2,
        prec: u64,
        rnd: Round,
    ) -> Result<(CudaFloatArray, CudaSlice<i8>, FuncStats)> {
        let ((r, t), _, st) = run_dev(self, Some(y), Job::Two(f), prec, rnd)?;
        Ok((r, t, st))
    }

    /// `f(self, y)` rounded to `prec` bits in mode `rnd`.
    pub fn func2(&self, y: &CudaFloatArray, f: Func2, prec: u64, rnd: Round) -> Result<Self> {
        Ok(self.func2_ternary(y, f, prec, rnd)?.0)
    }

    /// `(sin(self), cos(self))` from one reduction per element, each rounded
    /// in `rnd` with its ternary values (as `FloatArray::sin_cos_ternary`),
    /// and the statistics (an element is counted once).
    pub fn sin_cos_ternary(
        &self,
        prec: u64,
        rnd: Round,
    ) -> Result<(DevResult, DevResult, FuncStats)> {
        let (s, c, st) = run_dev(self, None, Job::SinCos, prec, rnd)?;
        Ok((s, c.expect("two outputs"), st))
    }

    /// `(sin(self), cos(self))`.
    pub fn sin_cos(&self, prec: u64, rnd: Round) -> Result<(CudaFloatArray, CudaFloatArray)> {
        let ((s, _), (c, _), _) = self.sin_cos_ternary(prec, rnd)?;
        Ok((s, c))
    }

    /// `self ^ n` for machine-integer exponents (mpfr_pow_si): the exponents
    /// as a float array of just enough bits (as the CPU's pow_si), then pow.
    pub fn pow_si_ternary(
        &self,
        n: &[i64],
        prec: u64,
        rnd: Round,
    ) -> Result<(CudaFloatArray, CudaSlice<i8>, FuncStats)> {
        if n.len() != self.len() {
            return Err(Error::Invalid(format!(
                "pow_si: {} elements and {} exponents",
                self.len(),
                n.len()
            )));
        }
        let v: Vec<Integer> = n.iter().map(|&k| Integer::from(k)).collect();
        let y = pow_z_exponents(&v)?.to_cuda(self.engine())?;
        self.func2_ternary(&y, Func2::Pow, prec, rnd)
    }
}

/// Integer exponents as a float array of the bits of the largest (as
/// `FloatArray::pow_z_ternary`).
fn pow_z_exponents(n: &[Integer]) -> Result<FloatArray> {
    use malachite_base::num::logic::traits::SignificantBits;
    let bits = n
        .iter()
        .map(|v| v.unsigned_abs_ref().significant_bits())
        .max()
        .unwrap_or(1)
        .max(1);
    let fl: Vec<malachite_float::Float> = n
        .iter()
        .map(|v| {
            malachite_float::Float::from_integer_prec_round(
                v.clone(),
                bits,
                malachite_base::rounding_modes::RoundingMode::Exact,
            )
            .0
        })
        .collect();
    Ok(FloatArray::from_floats(bits, &fl, Round::Nearest)?.0)
}

/// Uploads `x` and `y`, evaluates `f(x, y)` on the device, and brings the
/// result, the ternary values and the statistics back (the CLI, the tests).
pub fn func2_on_host_arrays(
    eng: &Arc<CudaEngine>,
    f: Func2,
    x: &FloatArray,
    y: &FloatArray,
    prec: u64,
    rnd: Round,
) -> Result<(FloatArray, Vec<i8>, FuncStats)> {
    let (dx, dy) = (x.to_cuda(eng)?, y.to_cuda(eng)?);
    let (r, t, st) = dx.func2_ternary(&dy, f, prec, rnd)?;
    let mut t = ternary_to_host(eng, &t)?;
    t.truncate(r.len());
    Ok((r.to_host()?, t, st))
}

/// Host arrays of a sin_cos result.
pub type HostSinCos = ((FloatArray, Vec<i8>), (FloatArray, Vec<i8>), FuncStats);

/// Uploads `x`, evaluates sin_cos on the device, brings both results back.
pub fn sin_cos_on_host_arrays(
    eng: &Arc<CudaEngine>,
    x: &FloatArray,
    prec: u64,
    rnd: Round,
) -> Result<HostSinCos> {
    let ((s, ts), (c, tc), st) = x.to_cuda(eng)?.sin_cos_ternary(prec, rnd)?;
    let mut ts = ternary_to_host(eng, &ts)?;
    ts.truncate(s.len());
    let mut tc = ternary_to_host(eng, &tc)?;
    tc.truncate(c.len());
    Ok(((s.to_host()?, ts), (c.to_host()?, tc), st))
}

/// The same evaluation through the host emulation of the kernel
/// (notes/functrig-emu/emu2.cpp, built with g++, at path `exe`): the same
/// tier, constants and patching of flagged elements. `f = None` is sin_cos
/// (`y` ignored). For tests without a device.
#[doc(hidden)]
pub fn func2_emulated(
    exe: &str,
    f: Option<Func2>,
    x: &FloatArray,
    y: &FloatArray,
    prec: u64,
    rnd: Round,
) -> Result<HostSinCos> {
    use std::io::{Read, Write};
    use std::process::{Command, Stdio};
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
    let cs = super::cuda::constants(k)?;
    let mut job_w: Vec<u64> = vec![
        job.code() as u64,
        round_code(rnd) as u64,
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
    let bytes: Vec<u8> = job_w.iter().flat_map(|v| v.to_le_bytes()).collect();
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
    let w: Vec<u64> = outb
        .chunks_exact(8)
        .map(|c| u64::from_le_bytes(c.try_into().unwrap()))
        .collect();
    let parts = if two { 2 } else { 1 };
    let per = 2 * len + len * n;
    if !status.success() || w.len() < parts * per + 1 {
        return Err(Error::Invalid(format!(
            "emulator {exe}: short answer ({status})"
        )));
    }
    let split = |o: usize| {
        let rh = w[o..o + len].to_vec();
        let rl = w[o + len..o + len + len * n].to_vec();
        let t: Vec<i8> = w[o + len + len * n..o + per]
            .iter()
            .map(|&v| v as i64 as i8)
            .collect();
        (rh, rl, t)
    };
    let (mut rh, mut rl, mut tern) = split(0);
    let (mut rh2, mut rl2, mut tern2) = if two {
        split(per)
    } else {
        (rh.clone(), rl.clone(), tern.clone())
    };
    let nf = w[parts * per] as usize;
    let flags: Vec<usize> = w[parts * per + 1..][..nf]
        .iter()
        .map(|&v| v as usize)
        .collect();
    if nf > 0 {
        let pick = |a: &FloatArray, na: usize| -> Result<FloatArray> {
            let ah = heads_of(a);
            let hh: Vec<u64> = flags.iter().map(|&i| ah[i]).collect();
            let hl: Vec<u64> = flags
                .iter()
                .flat_map(|&i| a.limbs()[i * na..(i + 1) * na].iter().copied())
                .collect();
            from_heads(a.prec(), &hh, hl)
        };
        let sx = pick(x, nx)?;
        let sy = pick(y, ny)?;
        let (r, t, r2) = job.on_cpu(&sx, Some(&sy), prec, rnd)?;
        let patch =
            |rh: &mut Vec<u64>, rl: &mut Vec<u64>, tn: &mut Vec<i8>, r: &FloatArray, t: &[i8]| {
                let sh = heads_of(r);
                for (j, &i) in flags.iter().enumerate() {
                    rh[i] = sh[j];
                    rl[i * n..(i + 1) * n].copy_from_slice(&r.limbs()[j * n..(j + 1) * n]);
                    tn[i] = t[j];
                }
            };
        patch(&mut rh, &mut rl, &mut tern, &r, &t);
        if let Some((c, tc)) = r2 {
            patch(&mut rh2, &mut rl2, &mut tern2, &c, &tc);
        }
    }
    let st = FuncStats {
        elements: len as u64,
        retried: nf as u64,
        host: nf as u64,
        device_retried: 0,
    };
    let first = from_heads(prec, &rh, rl)?;
    let second = if two {
        from_heads(prec, &rh2, rl2)?
    } else {
        // One output: a copy of the first (the caller ignores it).
        tern2.clone_from(&tern);
        first.clone()
    };
    Ok(((first, tern), (second, tern2), st))
}
