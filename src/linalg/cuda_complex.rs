//! The complex reductions, `nrm2` and `asum` on the CUDA engine, through
//! the real kernels of [`cuda`](super::cuda) (notes/blas-cuda.md, "Complex
//! operations"): the same bits as the CPU engine.
//!
//! Each part of a complex output is an exact sum of real products. With
//! the panels `PA = [re | s_a im]` (lines of op(A)), `PBr = [re | -s_b im]`
//! and `PBi = [s_b im | re]` (lines of op(B), `s = -1` for a conjugated
//! operand), built on the device (`blas_cpanel`), `Re = alr PA.PBr - ali
//! PA.PBi + br cr - bi ci` and `Im = alr PA.PBi + ali PA.PBr + br ci + bi
//! cr`: two real fixed-point products over `2K` positions, and an epilogue
//! (`blas_cepi`/`blas_cfin`) that rounds each part's four terms once, with
//! the error bound of the real epilogue, or hands the part to the host
//! (the exact core on the CPU engine's own terms). The terms are those the
//! CPU engine sums (blas23's `push_cpart` lists), so the signs of exact
//! zeros follow from the same multiset.
//!
//! `asum` is a real product of the panel `[|re| | |im|]` with ones; `nrm2`
//! accumulates the sum of squares on the device (the product of a panel
//! with itself), and the host takes the square root of that accumulator's
//! interval (a few words read back), or, undecided, computes it as the CPU
//! engine does.
//!
//! Served: what the real path serves (precisions up to its largest tier,
//! scalars and C of at most `NF/2 + 2` limbs, `2K < 2^30`); other cases
//! return `None` and the caller computes them on the CPU engine.

use std::sync::Arc;

use cudarc::driver::{CudaSlice, LaunchConfig, PushKernelArg};
use malachite_base::num::arithmetic::traits::{FloorSqrt, UnsignedAbs};
use malachite_base::num::basic::traits::Zero;
use malachite_base::num::logic::traits::SignificantBits;
use malachite_nz::integer::Integer;
use malachite_nz::natural::Natural;
use rayon::prelude::*;

use super::blas1::{CF, push_cpart};
use super::cuda::{Acc, Side, accumulate, cfg, inst, launch_err, product, strides, tier_for};
use super::exact::Terms;
use super::{Matrix, Op};
use crate::complex::cuda::CudaComplex;
use crate::complex::{CRound, CWithTernary, ComplexArray, ComplexTernary, CpuComplex};
use crate::engine::CudaEngine;
use crate::engine::cuda::memory;
use crate::error::{Error, Result};
use crate::float::cuda::{CudaFloats, round_code};
use crate::float::func::{Interval, round_interval};
use crate::float::round::{Out, Round};
use crate::float::{
    Class, CpuFloats, FloatArray, TernaryArray, WithTernary, check_prec, round_int,
};

/// Source part and sign operation of a panel half (blas_cpanel's codes).
const RE: u32 = 0;
const IM: u32 = 1;
const KEEP: u32 = 0;
const FLIP: u32 = 1;
const ABS: u32 = 2;

/// A complex operand's lines: the parts, the strides of its lines and
/// positions, and whether it is conjugated.
#[derive(Clone, Copy)]
struct CSide<'a> {
    re: &'a CudaFloats,
    im: &'a CudaFloats,
    sl: i64,
    sp: i64,
    conj: bool,
}

/// `lines x (halves.len() k)` entries, line-major: line `t` is the halves
/// (part, sign operation) of the entries `(t, k)` of `s`, widened to the
/// larger limb count of the parts.
fn panel(
    eng: &Arc<CudaEngine>,
    nf: u32,
    s: CSide,
    lines: usize,
    k: usize,
    halves: &[(u32, u32)],
) -> Result<CudaFloats> {
    let (lr, li) = (s.re.limbs_per_element(), s.im.limbs_per_element());
    let lp = lr.max(li);
    let nh = halves.len();
    let total = lines * nh * k;
    let mut out = CudaFloats::uninit(eng, total, 64 * lp as u64)?;
    if total == 0 {
        return Ok(out);
    }
    let f = eng.function(&inst(nf), "blas_cpanel")?;
    let (rh, rl) = s.re.raw_parts();
    let (ih, il) = s.im.raw_parts();
    let (lr_u, li_u, lp_u) = (lr as u32, li as u32, lp as u32);
    let (lines_u, k_u, nh_u) = (lines as u64, k as u64, nh as u32);
    let (s0, o0) = halves[0];
    let (s1, o1) = *halves.get(1).unwrap_or(&halves[0]);
    let (ph, pl) = out.raw_parts_mut();
    let mut b = eng.stream().launch_builder(&f);
    b.arg(rh)
        .arg(rl)
        .arg(&lr_u)
        .arg(ih)
        .arg(il)
        .arg(&li_u)
        .arg(&lines_u)
        .arg(&k_u)
        .arg(&s.sl)
        .arg(&s.sp)
        .arg(&nh_u)
        .arg(&s0)
        .arg(&o0)
        .arg(&s1)
        .arg(&o1)
        .arg(ph)
        .arg(pl)
        .arg(&lp_u);
    // SAFETY: every line's positions index both parts (the caller's
    // shapes); the panel holds lines * nh * k elements of lp limbs.
    unsafe { b.launch(cfg((total as u64).div_ceil(256), 256)) }
        .map_err(launch_err("blas_cpanel"))?;
    Ok(out)
}

/// The three panels of `op(A) op(B)`: PA (lines of `a`), PBr and PBi
/// (lines of `b`).
fn panels(
    eng: &Arc<CudaEngine>,
    nf: u32,
    a: CSide,
    b: CSide,
    m: usize,
    n: usize,
    k: usize,
) -> Result<[CudaFloats; 3]> {
    let fa = if a.conj { FLIP } else { KEEP };
    let (fbr, fbi) = if b.conj { (KEEP, FLIP) } else { (FLIP, KEEP) };
    Ok([
        panel(eng, nf, a, m, k, &[(RE, KEEP), (IM, fa)])?,
        panel(eng, nf, b, n, k, &[(RE, KEEP), (IM, fbr)])?,
        panel(eng, nf, b, n, k, &[(IM, fbi), (RE, KEEP)])?,
    ])
}

/// A complex or real scalar: the real part and the imaginary part when
/// there is one.
type CScalar<'a> = (&'a CudaFloats, Option<&'a CudaFloats>);

/// The device result of a complex product: both parts with their
/// ternaries, and the (output, parts bitmask) the host must compute.
struct CResult {
    re: CudaFloats,
    im: CudaFloats,
    tre: CudaSlice<i8>,
    tim: CudaSlice<i8>,
    todo: Vec<(usize, u8)>,
    nf: u32,
}

fn limbs(x: &CudaFloats) -> usize {
    x.limbs_per_element()
}

/// `alpha op(A) op(B) + beta C` for complex operands (op(A) `m x k` from
/// `a`, op(B) `k x n` from `b`; alpha None: 1; `beta_c` = (beta, C, ldc)),
/// row-major `m x n`, the parts rounded to `pr`/`pi` bits in the modes of
/// `rnd`; `tri` as in [`cuda::product`](super::cuda). None where the device
/// does not serve the case.
#[allow(clippy::too_many_arguments)]
fn cproduct(
    a: CSide,
    b: CSide,
    (m, n, k): (usize, usize, usize),
    alpha: Option<CScalar>,
    beta_c: Option<(CScalar, &CudaComplex, usize)>,
    (pr, pi): (u64, u64),
    rnd: CRound,
    tri: u32,
) -> Result<Option<CResult>> {
    let (rnr, rni) = (check_prec(pr)?, check_prec(pi)?);
    let mut ls = 1;
    if let Some((x, y)) = alpha {
        ls = ls.max(limbs(x)).max(y.map_or(0, limbs));
    }
    if let Some(((x, y), c, _)) = beta_c {
        ls = ls
            .max(limbs(x))
            .max(y.map_or(0, limbs))
            .max(limbs(c.re()))
            .max(limbs(c.im()));
    }
    let k2 = 2 * k;
    let Some(nf) = tier_for(pr.max(pi), k2, ls) else {
        return Ok(None);
    };
    if k2 >= 1 << 30 || m > u32::MAX as usize || n > u32::MAX as usize {
        return Ok(None);
    }
    let eng = a.re.engine().clone();
    let nout = m * n;
    let mut re = CudaFloats::uninit(&eng, nout, pr)?;
    let mut im = CudaFloats::uninit(&eng, nout, pi)?;
    let mut tre = memory::alloc::<i8>(&eng, nout)?;
    let mut tim = memory::alloc::<i8>(&eng, nout)?;
    if nout == 0 {
        let todo = Vec::new();
        return Ok(Some(CResult {
            re,
            im,
            tre,
            tim,
            todo,
            nf,
        }));
    }
    let [pa, pbr, pbi] = panels(&eng, nf, a, b, m, n, k)?;
    let side = |f| Side {
        f,
        sl: k2 as i64,
        sp: 1,
    };
    let mut none = |_: &'static str| Ok(());
    let Acc {
        sc,
        acc: acc_r,
        splits,
    } = accumulate(&eng, nf, side(&pa), side(&pbr), m, n, k2, &mut none)?;
    let ai = accumulate(&eng, nf, side(&pa), side(&pbi), m, n, k2, &mut none)?;
    if ai.splits != splits {
        return Err(Error::Invalid(
            "blas: the two products split differently".into(),
        ));
    }
    let acc_i = ai.acc;
    // Bit 0 (1): the real (imaginary) part of output o is the host's; set
    // by 32-bit atomics, so the buffer is padded to a multiple of 4.
    let mut und = memory::alloc_zeros::<u8>(&eng, nout.div_ceil(4) * 4)?;
    {
        let (f, c) = if splits == 1 {
            (
                eng.function(&inst(nf), "blas_cepi")?,
                cfg((2 * nout as u64).div_ceil(128), 128),
            )
        } else {
            let t = splits.next_power_of_two().clamp(32, cfin_threads(nf)) as u32;
            let c = LaunchConfig {
                grid_dim: (nout as u32, 1, 1),
                block_dim: (t, 1, 1),
                shared_mem_bytes: 0,
            };
            (eng.function(&inst(nf), "blas_cfin")?, c)
        };
        if splits > 1 && nout > (u32::MAX >> 1) as usize {
            return Ok(None);
        }
        let (alpha_one, (arh, arm), lar) = match alpha {
            Some((x, _)) => (0u32, x.raw_parts(), limbs(x) as u32),
            None => (1u32, (&sc, &sc), 1),
        };
        let (has_ai, (aih, aim), lai) = match alpha.and_then(|x| x.1) {
            Some(y) => (1u32, y.raw_parts(), limbs(y) as u32),
            None => (0u32, (&sc, &sc), 1),
        };
        let (has_c, (brh, brm), lbr, ldc) = match beta_c {
            Some(((x, _), _, ldc)) => (1u32, x.raw_parts(), limbs(x) as u32, ldc as u64),
            None => (0u32, (&sc, &sc), 1, 0),
        };
        let (has_bi, (bih, bim), lbi) = match beta_c.and_then(|x| x.0.1) {
            Some(y) => (1u32, y.raw_parts(), limbs(y) as u32),
            None => (0u32, (&sc, &sc), 1),
        };
        let ((crh, crm), lcr, (cih, cim), lci) = match beta_c {
            Some((_, c, _)) => (
                c.re().raw_parts(),
                limbs(c.re()) as u32,
                c.im().raw_parts(),
                limbs(c.im()) as u32,
            ),
            None => ((&sc, &sc), 1, (&sc, &sc), 1),
        };
        let (mu, nu, ku, s_u) = (m as u32, n as u32, k2 as u64, splits as u32);
        let (rndr, rndi) = (round_code(rnd.re), round_code(rnd.im));
        let (rnr_u, rni_u) = (rnr as u32, rni as u32);
        let (orh, orl) = re.raw_parts_mut();
        let (oih, oil) = im.raw_parts_mut();
        let mut bld = eng.stream().launch_builder(&f);
        bld.arg(&acc_r).arg(&acc_i);
        if splits > 1 {
            bld.arg(&s_u);
        }
        bld.arg(&mu)
            .arg(&nu)
            .arg(&sc)
            .arg(&alpha_one)
            .arg(arh)
            .arg(arm)
            .arg(&lar)
            .arg(&has_ai)
            .arg(aih)
            .arg(aim)
            .arg(&lai)
            .arg(&has_c)
            .arg(brh)
            .arg(brm)
            .arg(&lbr)
            .arg(&has_bi)
            .arg(bih)
            .arg(bim)
            .arg(&lbi)
            .arg(crh)
            .arg(crm)
            .arg(&lcr)
            .arg(cih)
            .arg(cim)
            .arg(&lci)
            .arg(&ldc)
            .arg(pa.raw_parts().0)
            .arg(pbr.raw_parts().0)
            .arg(pbi.raw_parts().0)
            .arg(&ku)
            .arg(&pr)
            .arg(&pi)
            .arg(&rndr)
            .arg(&rndi)
            .arg(orh)
            .arg(orl)
            .arg(&rnr_u)
            .arg(oih)
            .arg(oil)
            .arg(&rni_u)
            .arg(&tri)
            .arg(&mut tre)
            .arg(&mut tim)
            .arg(&mut und);
        // SAFETY: the accumulators hold splits * nout sums and counts each,
        // sc the scale buffer of m + n lines, the panels m and n lines of
        // k2 heads, C (when given) m rows of ldc, the outputs nout elements
        // of rnr / rni limbs, the ternaries nout bytes, und nout bytes
        // padded to 4.
        unsafe { bld.launch(c) }.map_err(launch_err("blas_cepi"))?;
    }
    let u = 2 * (m + n);
    let nund = eng
        .stream()
        .clone_dtoh(&sc.slice(u..u + 1))
        .map_err(Error::driver("copying from the device"))?[0] as usize;
    let todo: Vec<(usize, u8)> = if nund == 0 {
        Vec::new()
    } else {
        let flags = memory::download(&eng, &und)?;
        (0..nout)
            .filter(|&o| flags[o] != 0)
            .map(|o| (o, flags[o]))
            .collect()
    };
    Ok(Some(CResult {
        re,
        im,
        tre,
        tim,
        todo,
        nf,
    }))
}

/// blas.cu's BL_CFINT: the largest block of blas_cfin.
fn cfin_threads(nf: u32) -> usize {
    if nf <= 34 { 128 } else { 64 }
}

/// Finishes a device result: the parts the device left to the host are
/// computed by the exact core from the CPU engine's terms (`terms(h, o,
/// im, t)` with the host copies `h = host()`, made only then) and written
/// back; returns the complex array and its ternaries.
fn finish<H, G, F>(
    r: CResult,
    host: G,
    terms: F,
    (pr, pi): (u64, u64),
    rnd: CRound,
) -> Result<CWithTernary>
where
    G: FnOnce() -> Result<H>,
    H: Sync,
    F: Fn(&H, usize, bool, &mut Terms) + Sync,
{
    let CResult {
        mut re,
        mut im,
        mut tre,
        mut tim,
        todo,
        nf,
    } = r;
    let eng = re.engine().clone();
    let parts = 2 * re.len() as u64;
    let host_parts: u64 = todo.iter().map(|x| x.1.count_ones() as u64).sum();
    super::cuda::count(parts - host_parts, host_parts);
    if !todo.is_empty() {
        let h = host()?;
        for (im_part, out, tern, p, rd) in [
            (false, &mut re, &mut tre, pr, rnd.re),
            (true, &mut im, &mut tim, pi, rnd.im),
        ] {
            let bit = if im_part { 2u8 } else { 1 };
            let idx: Vec<usize> = todo
                .iter()
                .filter(|x| x.1 & bit != 0)
                .map(|x| x.0)
                .collect();
            scatter(&eng, nf, &idx, p, rd, out, tern, |o, t| {
                terms(&h, o, im_part, t)
            })?;
        }
    }
    let len = re.len();
    let z = ComplexArray::from(CudaComplex::new(re, im)?);
    Ok((
        z,
        ComplexTernary {
            re: TernaryArray::cuda(&eng, tre, len),
            im: TernaryArray::cuda(&eng, tim, len),
        },
    ))
}

/// Computes the elements `idx` of `out` (precision `p`, mode `rnd`) on the
/// host, each the exact sum of the terms `f(o, terms)` rounded once, and
/// writes them and their ternaries into `out` and `tern` on the device.
#[allow(clippy::too_many_arguments)]
fn scatter<F>(
    eng: &Arc<CudaEngine>,
    nf: u32,
    idx: &[usize],
    p: u64,
    rnd: Round,
    out: &mut CudaFloats,
    tern: &mut CudaSlice<i8>,
    f: F,
) -> Result<()>
where
    F: Fn(usize, &mut Terms) + Sync,
{
    if idx.is_empty() {
        return Ok(());
    }
    let rn = check_prec(p)?;
    let cnt = idx.len();
    let mut tags = vec![0u8; cnt];
    let mut exps = vec![0i64; cnt];
    let mut limbs = vec![0u64; cnt * rn];
    let mut terns = vec![0i8; cnt];
    tags.par_iter_mut()
        .zip(exps.par_iter_mut())
        .zip(limbs.par_chunks_mut(rn))
        .zip(terns.par_iter_mut())
        .enumerate()
        .for_each(|(x, (((tag, exp), m), t))| {
            let mut terms = Terms::new();
            f(idx[x], &mut terms);
            let mut o = Out { tag, exp, m };
            *t = terms.sum(&mut o, p, rnd);
        });
    let heads: Vec<u64> = tags
        .iter()
        .zip(&exps)
        .map(|(&t, &e)| ((e as u64) << 8) | t as u64)
        .collect();
    let ix: Vec<u64> = idx.iter().map(|&o| o as u64).collect();
    let (d_idx, d_h, d_l, d_t) = (
        memory::upload(eng, &ix)?,
        memory::upload(eng, &heads)?,
        memory::upload(eng, &limbs)?,
        memory::upload(eng, &terns)?,
    );
    let f = eng.function(&inst(nf), "blas_scatter")?;
    let (count, rn_u) = (cnt as u64, rn as u32);
    let (rh, rl) = out.raw_parts_mut();
    let mut bld = eng.stream().launch_builder(&f);
    bld.arg(&d_idx)
        .arg(&d_h)
        .arg(&d_l)
        .arg(&d_t)
        .arg(&count)
        .arg(rh)
        .arg(rl)
        .arg(&rn_u)
        .arg(tern);
    // SAFETY: the indices are outputs (< out's length); the buffers hold
    // cnt items.
    unsafe { bld.launch(cfg(count.div_ceil(128), 128)) }.map_err(launch_err("blas_scatter"))?;
    Ok(())
}

/// The array index of `op(A)(i, j)` in a matrix of leading dimension `ld`,
/// and whether the element is conjugated (as blas23's).
fn op_at(op: Op, ld: usize, i: usize, j: usize) -> (usize, bool) {
    match op {
        Op::None => (i * ld + j, false),
        Op::Trans => (j * ld + i, false),
        Op::ConjTrans => (j * ld + i, true),
    }
}

/// The device parts of a CUDA complex array.
fn dev(z: &ComplexArray) -> Option<&CudaComplex> {
    z.device()
}

/// Lines of a complex matrix as op(A)'s rows (`rows`) or op(B)'s columns.
fn mside<'a>(a: &'a CudaComplex, op: Op, ld: usize, rows: bool) -> CSide<'a> {
    let (sl, sp) = strides(op, ld, rows);
    CSide {
        re: a.re(),
        im: a.im(),
        sl,
        sp,
        conj: op == Op::ConjTrans,
    }
}

/// A vector as one line.
fn vside(x: &CudaComplex, conj: bool) -> CSide<'_> {
    CSide {
        re: x.re(),
        im: x.im(),
        sl: 0,
        sp: 1,
        conj,
    }
}

/// A complex scalar's parts.
fn cscalar(z: &CudaComplex) -> CScalar<'_> {
    (z.re(), Some(z.im()))
}

/// `dotu` (`conj` false) or `dotc` of CUDA vectors on the device (None:
/// not served); the terms are blas1's.
pub(crate) fn dot(
    x: &ComplexArray,
    y: &ComplexArray,
    conj: bool,
    (pr, pi): (u64, u64),
    rnd: CRound,
) -> Result<Option<CWithTernary>> {
    let (Some(xd), Some(yd)) = (dev(x), dev(y)) else {
        return Ok(None);
    };
    let k = x.len();
    let Some(r) = cproduct(
        vside(xd, conj),
        vside(yd, false),
        (1, 1, k),
        None,
        None,
        (pr, pi),
        rnd,
        0,
    )?
    else {
        return Ok(None);
    };
    let host = || Ok((xd.to_host()?, yd.to_host()?));
    let terms = |h: &(CpuComplex, CpuComplex), _: usize, im: bool, t: &mut Terms| {
        for i in 0..k {
            push_cpart(
                t,
                &[CF::of(&h.0, i, conj), CF::of(&h.1, i, false)],
                im,
                false,
            );
        }
    };
    finish(r, host, terms, (pr, pi), rnd).map(Some)
}

/// Host copies of a complex scalar pair and C.
type HostBC = Option<(CpuComplex, CpuComplex, usize)>;

/// Complex `alpha*op(A)*x + beta*y` on the device (None: not served); the
/// terms are blas23's.
#[allow(clippy::too_many_arguments)]
pub(crate) fn gemv(
    a: &Matrix<ComplexArray>,
    op: Op,
    alpha: &ComplexArray,
    x: &ComplexArray,
    beta_y: Option<(&ComplexArray, &ComplexArray)>,
    (m, k): (usize, usize),
    (pr, pi): (u64, u64),
    rnd: CRound,
) -> Result<Option<CWithTernary>> {
    let (Some(ad), Some(xd), Some(ald)) = (dev(a.data()), dev(x), dev(alpha)) else {
        return Ok(None);
    };
    let by = match beta_y {
        Some((b, y)) => match (dev(b), dev(y)) {
            (Some(p), Some(q)) => Some((p, q)),
            _ => return Ok(None),
        },
        None => None,
    };
    let ld = a.ld();
    let Some(r) = cproduct(
        mside(ad, op, ld, true),
        vside(xd, false),
        (m, 1, k),
        Some(cscalar(ald)),
        by.map(|(b, y)| (cscalar(b), y, 1)),
        (pr, pi),
        rnd,
        0,
    )?
    else {
        return Ok(None);
    };
    let host = || -> Result<(CpuComplex, CpuComplex, CpuComplex, HostBC)> {
        let bc = match by {
            Some((b, y)) => Some((b.to_host()?, y.to_host()?, 1)),
            None => None,
        };
        Ok((ad.to_host()?, xd.to_host()?, ald.to_host()?, bc))
    };
    let terms =
        |h: &(CpuComplex, CpuComplex, CpuComplex, HostBC), i: usize, part: bool, t: &mut Terms| {
            let (a, xh, al, by) = h;
            let alf = CF::of(al, 0, false);
            for kk in 0..k {
                let (idx, conj) = op_at(op, ld, i, kk);
                push_cpart(
                    t,
                    &[alf, CF::of(a, idx, conj), CF::of(xh, kk, false)],
                    part,
                    false,
                );
            }
            if let Some((b, y, _)) = by {
                push_cpart(t, &[CF::of(b, 0, false), CF::of(y, i, false)], part, false);
            }
        };
    finish(r, host, terms, (pr, pi), rnd).map(Some)
}

/// Complex `alpha*op(A)*op(B) + beta*C` on the device (None: not served);
/// the terms are blas23's.
#[allow(clippy::too_many_arguments)]
pub(crate) fn gemm(
    a: &Matrix<ComplexArray>,
    op_a: Op,
    b: &Matrix<ComplexArray>,
    op_b: Op,
    alpha: &ComplexArray,
    beta_c: Option<(&ComplexArray, &Matrix<ComplexArray>)>,
    (m, n, k): (usize, usize, usize),
    (pr, pi): (u64, u64),
    rnd: CRound,
) -> Result<Option<CWithTernary>> {
    let (Some(ad), Some(bd), Some(ald)) = (dev(a.data()), dev(b.data()), dev(alpha)) else {
        return Ok(None);
    };
    let bc = match beta_c {
        Some((be, c)) => match (dev(be), dev(c.data())) {
            (Some(p), Some(q)) => Some((p, q, c.ld())),
            _ => return Ok(None),
        },
        None => None,
    };
    let (lda, ldb) = (a.ld(), b.ld());
    let Some(r) = cproduct(
        mside(ad, op_a, lda, true),
        mside(bd, op_b, ldb, false),
        (m, n, k),
        Some(cscalar(ald)),
        bc.map(|(be, c, ldc)| (cscalar(be), c, ldc)),
        (pr, pi),
        rnd,
        0,
    )?
    else {
        return Ok(None);
    };
    let host = || -> Result<(CpuComplex, CpuComplex, CpuComplex, HostBC)> {
        let hbc = match bc {
            Some((be, c, ldc)) => Some((be.to_host()?, c.to_host()?, ldc)),
            None => None,
        };
        Ok((ad.to_host()?, bd.to_host()?, ald.to_host()?, hbc))
    };
    let terms = |h: &(CpuComplex, CpuComplex, CpuComplex, HostBC),
                 idx: usize,
                 part: bool,
                 t: &mut Terms| {
        let (ah, bh, al, bc) = h;
        let (i, j) = (idx / n, idx % n);
        let alf = CF::of(al, 0, false);
        for kk in 0..k {
            let (ia, ca) = op_at(op_a, lda, i, kk);
            let (ib, cb) = op_at(op_b, ldb, kk, j);
            push_cpart(
                t,
                &[alf, CF::of(ah, ia, ca), CF::of(bh, ib, cb)],
                part,
                false,
            );
        }
        if let Some((beta, c, ldc)) = bc {
            let cf = CF::of(c, i * ldc + j, false);
            push_cpart(t, &[CF::of(beta, 0, false), cf], part, false);
        }
    };
    finish(r, host, terms, (pr, pi), rnd).map(Some)
}

/// `alpha*A*A^H + beta*C` (`trans` None) or `alpha*A^H*A` on the device,
/// the triangle `upper` (else lower) computed, the other elements C's
/// parts rounded (None: not served); the terms are blas23's.
#[allow(clippy::too_many_arguments)]
pub(crate) fn herk(
    a: &Matrix<ComplexArray>,
    trans: Op,
    upper: bool,
    alpha: &FloatArray,
    beta_c: Option<(&FloatArray, &Matrix<ComplexArray>)>,
    (n, k): (usize, usize),
    (pr, pi): (u64, u64),
    rnd: CRound,
) -> Result<Option<CWithTernary>> {
    let (Some(ad), Some(ald)) = (dev(a.data()), alpha.device()) else {
        return Ok(None);
    };
    let bc = match beta_c {
        Some((be, c)) => match (be.device(), dev(c.data())) {
            (Some(p), Some(q)) => Some((p, q, c.ld())),
            _ => return Ok(None),
        },
        None => None,
    };
    let lda = a.ld();
    // A*A^H: A(i,k) conj(A(j,k)); A^H*A: conj(A(k,i)) A(k,j).
    let left_conj = trans != Op::None;
    let (sl, sp) = if trans == Op::None {
        (lda as i64, 1)
    } else {
        (1, lda as i64)
    };
    let side = |conj| CSide {
        re: ad.re(),
        im: ad.im(),
        sl,
        sp,
        conj,
    };
    let tri = if upper { 1 } else { 2 };
    let Some(r) = cproduct(
        side(left_conj),
        side(!left_conj),
        (n, n, k),
        Some((ald, None)),
        bc.map(|(be, c, ldc)| ((be, None), c, ldc)),
        (pr, pi),
        rnd,
        tri,
    )?
    else {
        return Ok(None);
    };
    type HostHerk = (
        CpuComplex,
        CpuFloats,
        Option<(CpuFloats, CpuComplex, usize)>,
    );
    let host = || -> Result<HostHerk> {
        let hbc = match bc {
            Some((be, c, ldc)) => Some((be.to_host()?, c.to_host()?, ldc)),
            None => None,
        };
        Ok((ad.to_host()?, ald.to_host()?, hbc))
    };
    let terms = |h: &HostHerk, idx: usize, part: bool, t: &mut Terms| {
        let (ah, al, bc) = h;
        let (i, j) = (idx / n, idx % n);
        let inside = if upper { i <= j } else { i >= j };
        if !inside {
            if let Some((_, c, ldc)) = bc {
                let hp = if part { c.im() } else { c.re() };
                t.push(&[&hp.get(i * ldc + j)], false);
            }
            return;
        }
        let alf = CF::real(al.get(0));
        for kk in 0..k {
            let (ia, ja) = match trans {
                Op::None => (i * lda + kk, j * lda + kk),
                _ => (kk * lda + i, kk * lda + j),
            };
            let (x, y) = (CF::of(ah, ia, left_conj), CF::of(ah, ja, !left_conj));
            push_cpart(t, &[alf, x, y], part, false);
        }
        if let Some((beta, c, ldc)) = bc {
            let cf = CF::of(c, i * ldc + j, false);
            push_cpart(t, &[CF::real(beta.get(0)), cf], part, false);
        }
    };
    finish(r, host, terms, (pr, pi), rnd).map(Some)
}

/// The panel of a vector's parts (`x` real or complex) with the sign
/// operation `op`: `[x]` or `[re | im]`, one line.
fn vpanel(eng: &Arc<CudaEngine>, nf: u32, parts: &[&CudaFloats], op: u32) -> Result<CudaFloats> {
    let (re, im) = (parts[0], *parts.get(1).unwrap_or(&parts[0]));
    let s = CSide {
        re,
        im,
        sl: 0,
        sp: 1,
        conj: false,
    };
    let halves: &[(u32, u32)] = if parts.len() == 2 {
        &[(RE, op), (IM, op)]
    } else {
        &[(RE, op)]
    };
    panel(eng, nf, s, 1, re.len(), halves)
}

/// `sum |x_i|` over the parts `parts` (a real vector, or a complex one's
/// real and imaginary parts) on the device: the real product of the panel
/// of absolute values with ones (None: not served).
pub(crate) fn asum(parts: &[&CudaFloats], prec: u64, rnd: Round) -> Result<Option<WithTernary>> {
    let eng = parts[0].engine().clone();
    let k = parts.len() * parts[0].len();
    // The panel's tier first: the product picks the same one (its scalars
    // are one limb).
    let Some(nf) = tier_for(prec, k, 1) else {
        return Ok(None);
    };
    let x = vpanel(&eng, nf, parts, ABS)?;
    let one = CpuFloats::from_f64s(64, &[1.0], Round::Nearest)?
        .0
        .to_cuda(&eng)?;
    let sx = Side {
        f: &x,
        sl: 0,
        sp: 1,
    };
    let so = Side {
        f: &one,
        sl: 0,
        sp: 0,
    };
    Ok(product(sx, so, 1, 1, k, None, None, prec, rnd, 0)?.map(super::cuda::wrap))
}

/// `sqrt(sum x_i^2)` over the parts `parts` on the device: the sum of
/// squares accumulated there, its square root rounded on the host from
/// the accumulator's interval (None: not served, a NaN or an infinity
/// among the elements, or undecided; the caller computes it as the CPU
/// engine does).
pub(crate) fn nrm2(parts: &[&CudaFloats], prec: u64, rnd: Round) -> Result<Option<WithTernary>> {
    let eng = parts[0].engine().clone();
    let k = parts.len() * parts[0].len();
    let Some(nf) = tier_for(prec, k, 1) else {
        return Ok(None);
    };
    if k >= 1 << 30 {
        return Ok(None);
    }
    let rn = check_prec(prec)?;
    let (mut tag, mut exp, mut mant) = (0u8, 0i64, vec![0u64; rn]);
    let t = if k == 0 {
        // No terms: +0.
        Some(0)
    } else {
        let x = if parts.len() == 1 {
            None
        } else {
            Some(vpanel(&eng, nf, parts, KEEP)?)
        };
        let f = x.as_ref().unwrap_or(parts[0]);
        let s = Side { f, sl: 0, sp: 1 };
        let Acc { sc, acc, splits } = accumulate(&eng, nf, s, s, 1, 1, k, &mut |_| Ok(()))?;
        let sc = memory::download(&eng, &sc)?;
        let acc = memory::download(&eng, &acc)?;
        let mut out = Out {
            tag: &mut tag,
            exp: &mut exp,
            m: &mut mant,
        };
        sqrt_acc(&mut out, nf, &sc, &acc, splits, prec, rnd)
    };
    let Some(t) = t else {
        super::cuda::count(0, 1);
        return Ok(None);
    };
    super::cuda::count(1, 0);
    let r = CpuFloats::from_raw(prec, vec![tag], vec![exp], mant)?;
    Ok(Some((
        FloatArray::from(r).into_engine(&crate::engine::Engine::Cuda(eng.clone()))?,
        TernaryArray::from_vec(&crate::engine::Engine::Cuda(eng), vec![t])?,
    )))
}

/// The square root of a one-output accumulation of squares (scale buffer
/// `sc` of two lines, `splits` partial sums of `nf + 2` words and their
/// counts in `acc`), rounded to `p` bits in mode `rnd` into `out`, with its
/// ternary value; None when a line holds a NaN or an infinity or the
/// interval does not decide the rounding.
pub(crate) fn sqrt_acc(
    out: &mut Out,
    nf: u32,
    sc: &[u64],
    acc: &[u32],
    splits: usize,
    p: u64,
    rnd: Round,
) -> Option<i8> {
    // Flags of the two lines (the same line twice).
    if sc[2] != 0 || sc[3] != 0 {
        return None;
    }
    let nw = (nf + 2) as usize;
    let mut s = Integer::ZERO;
    let mut cnt = 0u64;
    for q in 0..splits {
        s += twos(&acc[q * nw..(q + 1) * nw]);
        cnt += acc[splits * nw + q] as u64;
    }
    if cnt == 0 && s == 0 {
        // Every element zero (a square of a normal number is not): +0.
        out.special(Class::Zero, false);
        return Some(0);
    }
    // Both lines' scale: the sum is s in units 2^u, within cnt NF 2^33.
    let esc = |x: u64| if x == 0 { 0 } else { x as i64 - (1i64 << 40) };
    let mut u = esc(sc[0]) + esc(sc[1]) - 32 * nf as i64 - 32;
    let err = (Integer::from(cnt) * Integer::from(nf)) << 33u64;
    let (mut lo, mut hi) = (&s - &err, &s + &err);
    if lo <= 0 {
        return None;
    }
    if u.rem_euclid(2) != 0 {
        lo <<= 1u64;
        hi <<= 1u64;
        u -= 1;
    }
    let (lo, hi) = (lo.unsigned_abs(), hi.unsigned_abs());
    // Scale so that the square roots carry p + 4 bits at least.
    let g = (2 * (p + 4))
        .saturating_sub(lo.significant_bits())
        .div_ceil(2);
    let (lo, hi) = (lo << (2 * g), hi << (2 * g));
    let e = (u - 2 * g as i64) / 2;
    let r = (&lo).floor_sqrt();
    if cnt == 0 {
        // Exact sum: an exact square root, or strictly inside (r, r + 1).
        if &r * &r == lo {
            let mut mag = r.to_limbs_asc();
            return Some(round_int(out, false, &mut mag, e, false, p, rnd));
        }
        let iv = Interval {
            lo: r.clone().into(),
            hi: (r + Natural::from(1u32)).into(),
            s: e,
        };
        return round_interval(out, &iv, p, rnd);
    }
    // The sum lies strictly inside (lo, hi): its root inside (r, r_hi).
    let rh = hi.floor_sqrt() + Natural::from(1u32);
    let iv = Interval {
        lo: r.into(),
        hi: rh.into(),
        s: e,
    };
    round_interval(out, &iv, p, rnd)
}

/// [`sqrt_acc`] as (tag, exponent, limbs, ternary), for tests.
#[doc(hidden)]
pub fn sqrt_acc_raw(
    nf: u32,
    sc: &[u64],
    acc: &[u32],
    splits: usize,
    p: u64,
    rnd: Round,
) -> Option<(u8, i64, Vec<u64>, i8)> {
    let (mut tag, mut exp, mut m) = (0u8, 0i64, vec![0u64; p.div_ceil(64) as usize]);
    let mut out = Out {
        tag: &mut tag,
        exp: &mut exp,
        m: &mut m,
    };
    let t = sqrt_acc(&mut out, nf, sc, acc, splits, p, rnd)?;
    Some((tag, exp, m, t))
}

/// The integer of `w` (32-bit words, little-endian, two's complement).
fn twos(w: &[u32]) -> Integer {
    let neg = w.last().is_some_and(|&x| x >> 31 != 0);
    let limbs: Vec<u64> = w
        .chunks(2)
        .map(|c| c[0] as u64 | (*c.get(1).unwrap_or(&0) as u64) << 32)
        .collect();
    let v = Integer::from(Natural::from_owned_limbs_asc(limbs));
    if neg {
        v - (Integer::from(1) << (32 * w.len() as u64))
    } else {
        v
    }
}
