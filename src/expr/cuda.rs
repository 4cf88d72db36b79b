//! Expressions on CUDA: one generated kernel per shape (codegen.rs),
//! compiled by NVRTC through the engine's module cache (in memory per
//! engine; on disk keyed by the source, which holds the canonical form and
//! the width/precision, and the architecture).
//!
//! Integer strategy per shape, as the hand-fused kernels pick theirs:
//! - `(x*x+y)*(y*y+y)+x*y` (any two inputs): the Poly kernels of
//!   int/cuda/mul.rs (band schoolbook per group of threads, NTT tiers);
//! - sums of inputs (`a+b+a+...`): the generated staged carry-scan kernel
//!   (a block per unit of elements, the six-add's tier);
//! - anything else: the generated thread-per-element kernel.
//!
//! Complex `+ - *` and unary minus: the generated thread-per-element kernel
//! of [`codegen::complex_kernel`]; the elements it lists (an unusual
//! product) are gathered, recomputed by the CPU engine's fused evaluation
//! and scattered back.

use std::collections::HashMap;
use std::sync::{Arc, Mutex, OnceLock};

use cudarc::driver::{CudaSlice, LaunchConfig, PushKernelArg};

use super::cpu::FConst;
use super::{Expr, Node, Op, codegen};
use crate::complex::{CRound, ComplexArray};
use crate::engine::CudaEngine;
use crate::error::{Error, Result};
use crate::float::cuda::{CudaFloats, round_code, tier_for};
use crate::float::{FloatArray, Round};
use crate::int::{Fused, IntArray, Store};
use crate::kernels::{Instance, KernelSource};

fn fnv(s: &str) -> u64 {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for b in s.bytes() {
        h ^= b as u64;
        h = h.wrapping_mul(0x0100_0000_01b3);
    }
    h
}

/// The (leaked, one per distinct shape) kernel source of generated code,
/// looked up by a short key (canonical form, width/precision, tier), so
/// that a repeated call neither regenerates nor hashes the source.
fn source(key: String, make: impl FnOnce() -> String) -> &'static KernelSource {
    static MAP: OnceLock<Mutex<HashMap<String, &'static KernelSource>>> = OnceLock::new();
    let mut m = MAP
        .get_or_init(Default::default)
        .lock()
        .unwrap_or_else(|p| p.into_inner());
    if let Some(s) = m.get(&key) {
        return s;
    }
    let code = make();
    let name: &'static str = Box::leak(format!("expr_{:016x}", fnv(&code)).into_boxed_str());
    let src: &'static KernelSource = Box::leak(Box::new(KernelSource {
        name,
        code: Box::leak(code.into_boxed_str()),
    }));
    m.insert(key, src);
    src
}

/// The constants' values for a source key: they are compiled in, rounded
/// in the expression's mode, so two modes can give two sources.
fn consts_key(consts: &[Option<FConst>]) -> u64 {
    let mut s = String::new();
    for c in consts.iter().flatten() {
        s.push_str(&format!("{}:{}:{:?};", c.tag, c.exp, c.limbs));
    }
    fnv(&s)
}

/// The function `func` of the generated source for `key` on `eng`
/// (generated and compiled on first use).
pub fn function(
    eng: &Arc<CudaEngine>,
    key: String,
    make: impl FnOnce() -> String,
    func: &str,
) -> Result<cudarc::driver::CudaFunction> {
    eng.function(&Instance::new(source(key, make), &[]), func)
}

fn dev(a: &IntArray) -> &CudaSlice<u64> {
    match &a.store {
        Store::Cuda { buf, .. } => buf,
        Store::Host(_) => unreachable!("inputs on one CUDA engine"),
    }
}

fn wrap(eng: &Arc<CudaEngine>, limbs: usize, len: usize, buf: CudaSlice<u64>) -> IntArray {
    IntArray::from_parts(
        limbs,
        len,
        Store::Cuda {
            buf,
            eng: eng.clone(),
        },
    )
}

/// `(x*x+y)*(y*y+y)+x*y` with x, y distinct inputs: Some((x, y)).
pub fn match_poly(e: &Expr) -> Option<(usize, usize)> {
    let n = e.nodes();
    let bin = |i: usize, op: Op| match &n[i] {
        Node::Op(o, a) if *o == op => Some((a[0], a[1])),
        _ => None,
    };
    let input = |i: usize| match n[i] {
        Node::Input(k) => Some(k),
        _ => None,
    };
    // Both operand orders of a commutative node.
    let either = |(p, q): (usize, usize)| [(p, q), (q, p)];
    let (r0, r1) = bin(e.root(), Op::Add)?;
    for (prod, xy) in either((r0, r1)) {
        let Some((m0, m1)) = bin(prod, Op::Mul) else {
            continue;
        };
        let Some((xy0, xy1)) = bin(xy, Op::Mul) else {
            continue;
        };
        for (t1, t2) in either((m0, m1)) {
            for (x, y) in either((xy0, xy1)) {
                let (Some(kx), Some(ky)) = (input(x), input(y)) else {
                    continue;
                };
                if kx == ky {
                    continue;
                }
                // t1 = x*x + y, t2 = y*y + y.
                let sq_plus = |t: usize, s: usize| {
                    bin(t, Op::Add).is_some_and(|pq| {
                        either(pq)
                            .into_iter()
                            .any(|(m, a)| a == y && bin(m, Op::Mul) == Some((s, s)))
                    })
                };
                if sq_plus(t1, x) && sq_plus(t2, y) {
                    return Some((kx, ky));
                }
            }
        }
    }
    None
}

/// The launch of the staged sum: SIX_TIER's geometry (add.rs's plan).
const SUM_K: usize = 4;
const SUM_B: u32 = 256;

fn sum_plan(len: usize, limbs: usize) -> (bool, u32, LaunchConfig) {
    let window = SUM_K * SUM_B as usize;
    let aligned = limbs.is_multiple_of(SUM_K);
    let room = if !aligned && !limbs.is_multiple_of(2) {
        window - 1
    } else {
        window
    };
    let per_unit = (room / limbs).clamp(1, len.max(1));
    let units = len.div_ceil(per_unit).max(1);
    (
        aligned,
        per_unit as u32,
        LaunchConfig {
            grid_dim: (units.min(i32::MAX as usize) as u32, 1, 1),
            block_dim: (SUM_B, 1, 1),
            shared_mem_bytes: 0,
        },
    )
}

/// Integer evaluation on CUDA (see the module docs for the strategies).
pub fn eval_int(
    eng: &Arc<CudaEngine>,
    expr: &Expr,
    inputs: &[&IntArray],
    consts: &[Option<Vec<u64>>],
    bits: u64,
    len: usize,
) -> Result<IntArray> {
    let _op = crate::engine::cuda::memory::op_scope("int expression");
    let limbs = (bits / 64) as usize;
    if len == 0 {
        return IntArray::zeros(&crate::engine::Engine::Cuda(eng.clone()), 0, bits);
    }
    if let Some((x, y)) = match_poly(expr) {
        let r =
            crate::int::cuda::fused(eng, dev(inputs[x]), dev(inputs[y]), len, limbs, Fused::Poly)?;
        return Ok(wrap(eng, limbs, len, r));
    }
    if let Some(terms) = codegen::sum_terms(expr) {
        let ins = codegen::sum_inputs(&terms);
        let (aligned, e, cfg) = sum_plan(len, limbs);
        let name = if aligned {
            "expr_sum_staged"
        } else {
            "expr_sum_general"
        };
        let f = function(
            eng,
            format!("sum:{terms:?}:{SUM_K}:{SUM_B}"),
            || codegen::sum_kernel(&terms, SUM_K, SUM_B),
            name,
        )?;
        let mut r = crate::int::cuda::alloc(eng, len * limbs)?;
        let (n, l) = (len as u64, limbs as u32);
        let mut b = eng.stream().launch_builder(&f);
        b.arg(&mut r);
        for &k in &ins {
            b.arg(dev(inputs[k]));
        }
        b.arg(&n).arg(&l).arg(&e);
        // SAFETY: r and every input hold len*limbs limbs.
        crate::int::cuda::launched(unsafe { b.launch(cfg) }, name)?;
        return Ok(wrap(eng, limbs, len, r));
    }
    let f = function(
        eng,
        format!("int:{}:{limbs}", expr.canonical()),
        || codegen::int_kernel(expr, limbs, consts),
        "expr_int",
    )?;
    let mut r = crate::int::cuda::alloc(eng, len * limbs)?;
    let nscr = if limbs > codegen::LOCAL_MAX_LIMBS {
        codegen::op_slots(expr) * len * limbs
    } else {
        1
    };
    let mut scr =
        crate::engine::cuda::memory::alloc_for::<u64>(eng, "expression scratch", nscr.max(1))?;
    let n = len as u64;
    let mut b = eng.stream().launch_builder(&f);
    b.arg(&mut r).arg(&mut scr);
    for a in inputs {
        b.arg(dev(a));
    }
    b.arg(&n);
    // SAFETY: r and the inputs hold len*limbs limbs; scr slots*len*limbs
    // when the kernel uses it.
    crate::int::cuda::launched(
        unsafe { b.launch(crate::int::cuda::grid(n, 128)) },
        "expr_int",
    )?;
    Ok(wrap(eng, limbs, len, r))
}

/// Overrides of the measurement variables (`MPARRAY_EXPR_*`) for this
/// process, set by `mparray bench expr --variants`: "NAME=VALUE,..."
/// (None: the environment alone).
static KNOBS: std::sync::Mutex<Option<String>> = std::sync::Mutex::new(None);

/// Sets (or clears) the overrides of [`knob`].
pub fn set_knobs(v: Option<String>) {
    if let Ok(mut k) = KNOBS.lock() {
        *k = v;
    }
}

/// A measurement variable: the override set by [`set_knobs`] when it names
/// `name`, else the environment.
fn knob(name: &str) -> Option<String> {
    if let Ok(k) = KNOBS.lock()
        && let Some(v) = k.as_ref()
    {
        for kv in v.split(',') {
            if let Some((n, val)) = kv.split_once('=')
                && n.trim() == name
            {
                return Some(val.trim().to_string());
            }
        }
    }
    std::env::var(name).ok()
}

/// Float evaluation on CUDA: one generated kernel; precisions above the
/// device tiers are computed by the CPU engine and moved back.
pub fn eval_float(
    eng: &Arc<CudaEngine>,
    expr: &Expr,
    inputs: &[&FloatArray],
    consts: &[Option<FConst>],
    prec: u64,
    rnd: Round,
    len: usize,
) -> Result<FloatArray> {
    let _op = crate::engine::cuda::memory::op_scope("float expression");
    let n_out = crate::float::limbs_for_prec(prec);
    let in_limbs: Vec<usize> = inputs.iter().map(|a| a.limbs_per_element()).collect();
    let maxl = in_limbs.iter().copied().fold(n_out, usize::max);
    let Some(tier) = tier_for(maxl) else {
        let host: Vec<FloatArray> = inputs
            .iter()
            .map(|a| a.to_engine(&crate::engine::Engine::Cpu))
            .collect::<Result<_>>()?;
        let refs: Vec<&FloatArray> = host.iter().collect();
        let r = super::cpu::eval_float(expr, &refs, consts, prec, rnd, len)?;
        return r.to_engine(&crate::engine::Engine::Cuda(eng.clone()));
    };
    let mut out = CudaFloats::uninit(eng, len, prec)?;
    if len == 0 {
        return Ok(out.into());
    }
    // Up to 16 output limbs the register kernel (MPARRAY_EXPR_KERNEL=generic
    // keeps the generic one, =inline its register paths at every node, for
    // measurements); else the generic kernel,
    // staged through shared memory where it fits (MPARRAY_EXPR_TILE=0:
    // direct loads).
    let kernel = knob("MPARRAY_EXPR_KERNEL");
    let regs = if kernel.as_deref() == Some("generic") {
        None
    } else {
        codegen::regs_plan(expr, n_out, &in_limbs).map(|mut p| {
            p.inline = kernel.as_deref() == Some("inline");
            // MPARRAY_EXPR_MUL=64: the 64-bit limb short product of
            // FloatArray's mul kernels (measurements).
            p.mul32 = !matches!(knob("MPARRAY_EXPR_MUL").as_deref(), Some("64"));
            // MPARRAY_EXPR_THREADS=64 or 32: smaller tiles (measurements).
            // The code options (codegen::RegsPlan::set_opt);
            // MPARRAY_EXPR_OPT=letters replaces the default (measurements;
            // "0": none of them).
            let opt =
                knob("MPARRAY_EXPR_OPT").unwrap_or_else(|| codegen::REGS_DEFAULT_OPT.to_string());
            p.set_opt(&opt, round_code(rnd));
            // MPARRAY_EXPR_MINB: blocks per SM for __launch_bounds__.
            p.min_blocks = knob("MPARRAY_EXPR_MINB")
                .and_then(|v| v.parse::<u32>().ok())
                .filter(|&b| b <= 32)
                .unwrap_or(0);
            if let Some(t) = knob("MPARRAY_EXPR_THREADS")
                .and_then(|v| v.parse::<u32>().ok())
                .filter(|t| [32, 64].contains(t) && *t < p.threads)
            {
                p.threads = t;
            }
            p
        })
    };
    let tile = !matches!(std::env::var("MPARRAY_EXPR_TILE").as_deref(), Ok("0"))
        && codegen::float_tile_fits(n_out, &in_limbs);
    let canon = expr.canonical();
    let f = match &regs {
        Some(plan) => function(
            eng,
            format!(
                "fregs:{canon}:{prec}:{in_limbs:?}:{tier}:{}:{}:{}:{}:{}:{:?}:{}:{}:{}:{:x}",
                plan.inline,
                plan.threads,
                plan.mul32,
                plan.const_p,
                plan.split,
                plan.const_rnd,
                plan.min_blocks,
                plan.direct,
                plan.mul_round32,
                consts_key(consts)
            ),
            || codegen::float_kernel_regs(expr, prec, n_out, &in_limbs, tier, consts, plan),
            "expr_float",
        )?,
        None => function(
            eng,
            format!(
                "float:{canon}:{prec}:{in_limbs:?}:{tier}:{tile}:{:x}",
                consts_key(consts)
            ),
            || codegen::float_kernel(expr, prec, n_out, &in_limbs, tier, consts, tile),
            "expr_float",
        )?,
    };
    let devs: Vec<&CudaFloats> = inputs
        .iter()
        .map(|a| {
            a.device()
                .ok_or_else(|| Error::Invalid("expression input not on the device".into()))
        })
        .collect::<Result<_>>()?;
    let (n, r) = (len as u64, round_code(rnd));
    {
        let (rh, rl) = out.raw_parts_mut();
        let mut b = eng.stream().launch_builder(&f);
        b.arg(rh).arg(rl);
        for d in &devs {
            let (h, l) = d.raw_parts();
            b.arg(h).arg(l);
        }
        b.arg(&n).arg(&r);
        // SAFETY: heads of len words, limbs of len*limbs words each, as
        // the generated kernel indexes them.
        let cfg = if let Some(plan) = &regs {
            crate::int::cuda::grid(n, plan.threads)
        } else if tile {
            crate::int::cuda::grid(n, codegen::FLOAT_TILE)
        } else {
            crate::int::cuda::grid(n, 128)
        };
        crate::int::cuda::launched(unsafe { b.launch(cfg) }, "expr_float")?;
    }
    Ok(out.into())
}

/// Complex evaluation of `+ - *` and unary minus on CUDA: one generated
/// kernel ([`codegen::complex_kernel`]); the elements it lists (a product
/// of unusual operands) are recomputed by the CPU engine's fused
/// evaluation of the whole expression and written back. Parts above the
/// device tiers: the CPU engine, moved back.
pub fn eval_complex(
    eng: &Arc<CudaEngine>,
    expr: &Expr,
    inputs: &[&ComplexArray],
    prec: u64,
    rnd: CRound,
    len: usize,
    stats: &mut super::ComplexStats,
) -> Result<ComplexArray> {
    use crate::complex::cuda::{CudaComplex, patch_listed};
    let _op = crate::engine::cuda::memory::op_scope("complex expression");
    let engine = crate::engine::Engine::Cuda(eng.clone());
    let n_out = crate::float::limbs_for_prec(prec);
    let lf = crate::float::limbs_for_prec;
    let in_limbs: Vec<(usize, usize)> = inputs
        .iter()
        .map(|a| (lf(a.prec_re()), lf(a.prec_im())))
        .collect();
    let maxl = in_limbs.iter().fold(n_out, |m, &(r, i)| m.max(r).max(i));
    let tier = tier_for(maxl);
    // The kernel lists elements by u32 index (as float_unusual).
    let (Some(tier), true) = (tier, u32::try_from(len).is_ok()) else {
        stats.host += 1;
        let host: Vec<ComplexArray> = inputs
            .iter()
            .map(|a| a.to_engine(&crate::engine::Engine::Cpu))
            .collect::<Result<_>>()?;
        let refs: Vec<&ComplexArray> = host.iter().collect();
        return crate::complex::expr::eval(expr, &refs, prec, rnd, len)?.into_engine(&engine);
    };
    if len == 0 {
        return ComplexArray::zeros(&engine, 0, prec, prec);
    }
    let devs: Vec<&CudaComplex> = inputs
        .iter()
        .map(|a| {
            a.device()
                .ok_or_else(|| Error::Invalid("expression input not on the device".into()))
        })
        .collect::<Result<_>>()?;
    let consts = super::cpu::float_constants(expr, prec, rnd.re)?;
    let canon = expr.canonical();
    let f = function(
        eng,
        format!(
            "cplx:{canon}:{prec}:{in_limbs:?}:{tier}:{:x}",
            consts_key(&consts)
        ),
        || codegen::complex_kernel(expr, prec, n_out, &in_limbs, tier, &consts),
        "expr_complex",
    )?;
    let mut re = CudaFloats::uninit(eng, len, prec)?;
    let mut im = CudaFloats::uninit(eng, len, prec)?;
    let mut cnt = crate::engine::cuda::memory::alloc_zeros_for::<u32>(eng, "patch counter", 1)?;
    let mut idx = crate::engine::cuda::memory::alloc_for::<u32>(eng, "patch list", len)?;
    let (n, rr, ri) = (len as u64, round_code(rnd.re), round_code(rnd.im));
    {
        let (rrh, rrl) = re.raw_parts_mut();
        let (rih, ril) = im.raw_parts_mut();
        let mut b = eng.stream().launch_builder(&f);
        b.arg(rrh).arg(rrl).arg(rih).arg(ril);
        for d in &devs {
            let (h, l) = d.re().raw_parts();
            b.arg(h).arg(l);
            let (h, l) = d.im().raw_parts();
            b.arg(h).arg(l);
        }
        b.arg(&n).arg(&rr).arg(&ri).arg(&mut cnt).arg(&mut idx);
        // SAFETY: heads of len words and limbs of len * limbs words per
        // part, as the kernel indexes them; idx has len slots, each claimed
        // once through the counter.
        crate::int::cuda::launched(
            unsafe { b.launch(crate::int::cuda::grid(n, 128)) },
            "expr_complex",
        )?;
    }
    stats.fused += 1;
    let listed = eng
        .stream()
        .clone_dtoh(&cnt)
        .map_err(Error::driver("copying from the device"))?[0] as usize;
    let mut out = CudaComplex::new(re, im)?;
    patch_listed(&mut out, &devs, idx, listed, |xs| {
        let arrays: Vec<ComplexArray> = xs.into_iter().map(ComplexArray::from).collect();
        let refs: Vec<&ComplexArray> = arrays.iter().collect();
        let r = crate::complex::expr::eval(expr, &refs, prec, rnd, listed)?;
        r.cpu()
            .cloned()
            .ok_or_else(|| Error::Invalid("the CPU engine's result is not on the CPU".into()))
    })?;
    stats.patched += listed;
    Ok(out.into())
}
