//! Correctly rounded functions on CUDA float arrays (issue 5): exp, exp2,
//! log, sin, cos and atan evaluated on the device (src/kernels/float_func.cu), a
//! thread per element in fixed point at a tier of `K` limbs with a proven
//! error bound and the CPU's acceptance test; the elements the kernel flags
//! (uncertain rounding, huge arguments, reductions needing a longer pi) are
//! gathered on the device, re-evaluated by the CPU engine and scattered back.
//! The other functions (and precisions above the largest tier) run on the
//! CPU engine (download, evaluate, upload). See notes/funcgpu.md.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use cudarc::driver::{CudaSlice, LaunchConfig, PushKernelArg};
use malachite_nz::natural::Natural;

use super::consts::{Const, fixed};
use super::{Func, FuncStats};
use crate::engine::CudaEngine;
use crate::error::{Error, Result};
use crate::float::cuda::{CudaFloatArray, round_code, ternary_to_host};
use crate::float::{FloatArray, Round, limbs_for_prec};
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

fn inst(k: usize) -> Instance {
    Instance::new(&FLOAT_FUNC, &[("FF_K", k as i64)])
}

/// Every instantiation this module can request.
pub fn instances() -> Vec<Instance> {
    FUNC_TIERS.iter().map(|&k| inst(k)).collect()
}

/// `floor(v 2^f)` of a float element as `len` limbs.
fn elem_fixed(a: &FloatArray, i: usize, f: u64, len: usize) -> Vec<u64> {
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
    let (a, _) = FloatArray::from_f64s(pp, &at, Round::Nearest)?;
    let a = a.atan(pp, Round::Nearest)?;
    for j in 0..a.len() {
        cs.extend(elem_fixed(&a, j, f, k));
    }
    let lg: Vec<f64> = (724..=1448).map(|j| j as f64 / 1024.0).collect();
    let (l, _) = FloatArray::from_f64s(pp, &lg, Round::Nearest)?;
    let l = l.log(pp, Round::Nearest)?;
    for j in 0..l.len() {
        cs.extend(elem_fixed(&l, j, f, k));
    }
    let tr: Vec<f64> = (0..=1024).map(|j| j as f64 / 1024.0).collect();
    let (t, _) = FloatArray::from_f64s(pp, &tr, Round::Nearest)?;
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
    let (e, _) = FloatArray::from_f64s(pp, &ej, Round::Nearest)?;
    let e = e.exp(pp, Round::Nearest)?;
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
fn device_constants(eng: &Arc<CudaEngine>, k: usize) -> Result<Arc<CudaSlice<u64>>> {
    type Map = Mutex<HashMap<usize, Arc<CudaSlice<u64>>>>;
    let map = eng.resource("float_func_constants", |_| Ok(Map::default()))?;
    let mut m = map.lock().unwrap_or_else(|p| p.into_inner());
    if let Some(v) = m.get(&k) {
        return Ok(v.clone());
    }
    let v = Arc::new(crate::int::cuda::upload(eng, &constants(k)?)?);
    m.insert(k, v.clone());
    Ok(v)
}

/// Small batches in blocks of 32 threads (more SMs busy: the batch of 4096
/// is latency-bound), larger ones in blocks of 128.
fn block_for(len: usize) -> u32 {
    if len <= 132 * 128 * 4 { 32 } else { 128 }
}

fn grid(len: usize, block: u32) -> LaunchConfig {
    let blocks = (len as u64).div_ceil(block as u64).clamp(1, 132 * 64) as u32;
    LaunchConfig {
        grid_dim: (blocks, 1, 1),
        block_dim: (block, 1, 1),
        shared_mem_bytes: 0,
    }
}

fn heads_of(a: &FloatArray) -> Vec<u64> {
    a.tags()
        .iter()
        .zip(a.exps())
        .map(|(&t, &e)| ((e as u64) << 8) | t as u64)
        .collect()
}

fn from_heads(prec: u64, heads: &[u64], limbs: Vec<u64>) -> Result<FloatArray> {
    FloatArray::from_raw(
        prec,
        heads.iter().map(|&h| h as u8).collect(),
        heads.iter().map(|&h| (h as i64) >> 8).collect(),
        limbs,
    )
}

impl CudaFloatArray {
    /// `f(self)` rounded to `prec` bits in mode `rnd` on the device, the
    /// ternary values (on the device), and how many elements the host
    /// re-evaluated (`retried`).
    pub fn func_ternary(
        &self,
        f: Func,
        prec: u64,
        rnd: Round,
    ) -> Result<(CudaFloatArray, CudaSlice<i8>, FuncStats)> {
        let eng = self.engine().clone();
        let len = self.len();
        let nx = limbs_for_prec(self.prec());
        let mut out = CudaFloatArray::zeros(&eng, len, prec)?;
        let n = limbs_for_prec(prec);
        let mut tern = eng
            .stream()
            .alloc_zeros::<i8>(len.max(1))
            .map_err(Error::driver("allocating"))?;
        let code = device_code(f);
        let k = tier(prec, nx);
        let (Some(code), Some(k)) = (code, k) else {
            // The CPU engine for the whole array.
            let (r, t, st) = self.to_host()?.func_ternary(f, prec, rnd)?;
            let out = r.to_cuda(&eng)?;
            let tern = eng
                .stream()
                .clone_htod(&t)
                .map_err(Error::driver("copying to the device"))?;
            let stats = FuncStats {
                elements: st.elements,
                retried: st.elements,
            };
            return Ok((out, tern, stats));
        };
        if len == 0 {
            return Ok((out, tern, FuncStats::default()));
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
            let func = eng.function(&instance, "float_func")?;
            let (xh, xl) = self.raw_parts();
            let (len64, rc, n32, nx32) = (len as u64, round_code(rnd), n as u32, nx as u32);
            let (rh, rl) = out.raw_parts_mut();
            let mut b = eng.stream().launch_builder(&func);
            b.arg(rh)
                .arg(rl)
                .arg(&mut tern)
                .arg(xh)
                .arg(xl)
                .arg(&len64)
                .arg(&code)
                .arg(&rc)
                .arg(&prec)
                .arg(&n32)
                .arg(&nx32)
                .arg(&*cs)
                .arg(&mut nflag)
                .arg(&mut flags);
            // SAFETY: x holds len elements of nx limbs, out len of n limbs,
            // tern and flags len slots, cs the tier's constants (the layout
            // of float_func.cu); each thread writes its own element and one
            // flag slot claimed by an atomic counter (at most len).
            unsafe { b.launch(grid(len, block_for(len))) }
                .map_err(Error::driver("launching float_func"))?;
        }
        let cnt = eng
            .stream()
            .clone_dtoh(&nflag)
            .map_err(Error::driver("copying from the device"))?[0] as usize;
        let stats = FuncStats {
            elements: len as u64,
            retried: cnt as u64,
        };
        if cnt == 0 {
            return Ok((out, tern, stats));
        }
        // Gather the flagged arguments, evaluate them on the CPU, scatter.
        let cnt32 = cnt as u32;
        let mut gh = crate::int::cuda::alloc_zeros(&eng, cnt)?;
        let mut gl = crate::int::cuda::alloc_zeros(&eng, cnt * nx)?;
        {
            let func = eng.function(&instance, "float_func_gather")?;
            let (xh, xl) = self.raw_parts();
            let nx32 = nx as u32;
            let mut b = eng.stream().launch_builder(&func);
            b.arg(&mut gh)
                .arg(&mut gl)
                .arg(xh)
                .arg(xl)
                .arg(&nx32)
                .arg(&flags)
                .arg(&cnt32);
            // SAFETY: flags holds cnt indices below len; gh/gl cnt elements.
            unsafe { b.launch(grid(cnt, 128)) }
                .map_err(Error::driver("launching float_func_gather"))?;
        }
        let mut hh = crate::int::cuda::download(&eng, &gh)?;
        hh.truncate(cnt);
        let mut hl = crate::int::cuda::download(&eng, &gl)?;
        hl.truncate(cnt * nx);
        let sub = from_heads(self.prec(), &hh, hl)?;
        let (r, t, _) = sub.func_ternary(f, prec, rnd)?;
        let sh = crate::int::cuda::upload(&eng, &heads_of(&r))?;
        let sl = crate::int::cuda::upload(&eng, r.limbs())?;
        let st = eng
            .stream()
            .clone_htod(&t)
            .map_err(Error::driver("copying to the device"))?;
        {
            let func = eng.function(&instance, "float_func_scatter")?;
            let n32 = n as u32;
            let (rh, rl) = out.raw_parts_mut();
            let mut b = eng.stream().launch_builder(&func);
            b.arg(rh)
                .arg(rl)
                .arg(&mut tern)
                .arg(&n32)
                .arg(&flags)
                .arg(&cnt32)
                .arg(&sh)
                .arg(&sl)
                .arg(&st);
            // SAFETY: as the gather; sh/sl/st hold cnt results of n limbs.
            unsafe { b.launch(grid(cnt, 128)) }
                .map_err(Error::driver("launching float_func_scatter"))?;
        }
        Ok((out, tern, stats))
    }

    /// `f(self)` rounded to `prec` bits in mode `rnd`.
    pub fn func(&self, f: Func, prec: u64, rnd: Round) -> Result<CudaFloatArray> {
        Ok(self.func_ternary(f, prec, rnd)?.0)
    }
}

/// Uploads `x`, evaluates `f` on the device, and brings the result, the
/// ternary values and the statistics back (the CLI and the tests).
pub fn func_on_host_arrays(
    eng: &Arc<CudaEngine>,
    f: Func,
    x: &FloatArray,
    prec: u64,
    rnd: Round,
) -> Result<(FloatArray, Vec<i8>, FuncStats)> {
    let d = x.to_cuda(eng)?;
    let (r, t, st) = d.func_ternary(f, prec, rnd)?;
    let mut t = ternary_to_host(eng, &t)?;
    t.truncate(r.len());
    Ok((r.to_host()?, t, st))
}

/// The same evaluation through the host emulation of the kernel
/// (notes/funcgpu-emu, built with g++, at path `exe`): the same tier,
/// constants and patching of flagged elements. For tests without a device.
#[doc(hidden)]
pub fn func_emulated(
    exe: &str,
    f: Func,
    x: &FloatArray,
    prec: u64,
    rnd: Round,
) -> Result<(FloatArray, Vec<i8>, FuncStats)> {
    use std::io::{Read, Write};
    use std::process::{Command, Stdio};
    let nx = x.limbs_per_element();
    let n = limbs_for_prec(prec);
    let len = x.len();
    let (Some(code), Some(k)) = (device_code(f), tier(prec, nx)) else {
        let (r, t, st) = x.func_ternary(f, prec, rnd)?;
        let retried = st.elements;
        return Ok((r, t, FuncStats { retried, ..st }));
    };
    let cs = constants(k)?;
    let mut job: Vec<u64> = vec![
        code as u64,
        round_code(rnd) as u64,
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
    child.wait().map_err(io)?;
    let w: Vec<u64> = outb
        .chunks_exact(8)
        .map(|c| u64::from_le_bytes(c.try_into().unwrap()))
        .collect();
    if w.len() < 2 * len + len * n + 1 {
        return Err(Error::Invalid(format!("emulator {exe}: short answer")));
    }
    let mut rh = w[..len].to_vec();
    let mut rl = w[len..len + len * n].to_vec();
    let mut tern: Vec<i8> = w[len + len * n..2 * len + len * n]
        .iter()
        .map(|&v| v as i64 as i8)
        .collect();
    let nf = w[2 * len + len * n] as usize;
    let flags: Vec<usize> = w[2 * len + len * n + 1..][..nf]
        .iter()
        .map(|&v| v as usize)
        .collect();
    if nf > 0 {
        let xh = heads_of(x);
        let hh: Vec<u64> = flags.iter().map(|&i| xh[i]).collect();
        let hl: Vec<u64> = flags
            .iter()
            .flat_map(|&i| x.limbs()[i * nx..(i + 1) * nx].iter().copied())
            .collect();
        let sub = from_heads(x.prec(), &hh, hl)?;
        let (r, t, _) = sub.func_ternary(f, prec, rnd)?;
        let sh = heads_of(&r);
        for (j, &i) in flags.iter().enumerate() {
            rh[i] = sh[j];
            rl[i * n..(i + 1) * n].copy_from_slice(&r.limbs()[j * n..(j + 1) * n]);
            tern[i] = t[j];
        }
    }
    let r = from_heads(prec, &rh, rl)?;
    Ok((
        r,
        tern,
        FuncStats {
            elements: len as u64,
            retried: nf as u64,
        },
    ))
}
