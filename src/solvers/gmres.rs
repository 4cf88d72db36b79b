//! Restarted GMRES(m) for a dense real or complex [`Matrix`] on its engine
//! ([`gmres`], [`gmres_complex`]).
//!
//! Arnoldi builds an orthonormal basis of the Krylov space, kept as the
//! rows of one array on the matrix's engine, from the library's exact
//! BLAS: `gemv` for `A v`; by default classical Gram-Schmidt twice
//! ([`Ortho::Cgs2`]: per pass `h' = V w` rounded to `2p + 64` bits and
//! `w - V^T h'` rounded once per element, two `gemv`s), or modified
//! Gram-Schmidt ([`Ortho::Mgs`]: `dot` and `axpy` per basis vector);
//! `||w||` as the root of `w.w` (rounded to `p + 64` bits) and `scal` to
//! normalise. The small least-squares problem is reduced by Givens
//! rotations as it grows, on the CPU engine (one-element arrays, a few
//! numbers downloaded per step). The iteration restarts every `m` steps:
//! `x += V^T y` by one `gemv`, then the true residual `b - A x` by one
//! `gemv` with `beta = 1` (every element the exact value rounded once) and
//! its `nrm2`. Every operation is correctly rounded in a fixed order: the
//! same bits on every engine.

use super::basis::{cjoin, csplit, join, put_crow, put_row, split};
use crate::Engine;
use crate::complex::{CRound, ComplexArray};
use crate::error::{Error, Result};
use crate::float::{FloatArray, Round};
use crate::linalg::cuda::{Deferred, Staging};
use crate::linalg::{CGemv, Gemv, Matrix, Op};

/// How the Arnoldi step orthogonalises `A v_j` against the basis.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Ortho {
    /// Classical Gram-Schmidt with the Daniel-Gragg-Kaufman-Stewart test
    /// (the default): `w` is put in the basis array as row `j+1`, so one
    /// `gemv` over `j + 2` rows gives `h = V w` and `w.w` together (at
    /// `2p + 64` bits); `w1 = w - V^T h` (one `gemv`, the coefficients
    /// masked by an exact product with `[1, .., 1, 0]`); then `w1.w1`
    /// (`dot`, at `p + 64` bits). When `2 w1.w1 >= w.w` (less than half of
    /// `w`'s square norm removed, so `w1` is orthogonal to working
    /// accuracy) `w1` is kept with `h` rounded to p and `||w1||` from
    /// `w1.w1`; otherwise a second pass: `h2 = V w1` (the extended product
    /// on `w1`), `w2 = w1 - V^T h2` and `w2.w2` (`dot`), `h = h + h2`. Two
    /// small `gemv`s and a `dot` per step in the usual case, launched back
    /// to back with their checks read at the end (see
    /// [`Deferred`]; `dot` inside such a scope reads its status with the
    /// scope's counts too). On CUDA by default (`MPARRAY_GMRES_PIPE=0`
    /// turns it off; `=1` turns it on on any engine, for tests) the step
    /// is pipelined: the second pass launched
    /// too when the last step needed one, `v_{j+1}` (`w1` or `w2` over its
    /// norm, the inverse repeated by `float_fill`) made on the device, and
    /// `A v_{j+1}` launched before the
    /// step's one read (an asynchronous copy into page-locked memory), so
    /// the host's wait and its Givens work overlap that product; when the
    /// read shows an undecided product, a wrong guess about the second
    /// pass, or a zero norm, the speculative product is dropped and the
    /// step redone with every product checked (the same bits either way).
    /// Real matrices only; for a complex one it is [`Ortho::Cgs2`].
    #[default]
    Dgks,
    /// Classical Gram-Schmidt applied twice: per pass `h' = V w` (rounded
    /// to `2p + 64` bits, so that the device decides the cancelled second
    /// pass) and `w <- w - V^T h'` are one exactly rounded `gemv` each
    /// (every element of the new `w` is `w_k - sum_i h'_i v_ik` rounded
    /// once), `h` is the two passes' coefficients added, rounded to p. Four `gemv`s per step whatever
    /// `j` is: the engine's cost is that of the BLAS, not of `2j` calls.
    Cgs2,
    /// Modified Gram-Schmidt: for `i = 0..=j` in turn, `h_i = <w, v_i>`
    /// (`dot`) and `w <- w - h_i v_i` (`axpy`): `2(j+1)` dependent calls.
    Mgs,
}

/// Options of [`gmres`] (default: m = 30, relative tolerance 1e-30, 53
/// bits, 100 restarts, classical Gram-Schmidt with the DGKS test).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct GmresOpts {
    /// Krylov steps between restarts (m >= 1).
    pub restart: usize,
    /// Stop when `||b - A x|| <= tol ||b||`.
    pub tol: f64,
    /// Working precision in bits.
    pub prec: u64,
    /// The most restart cycles (each of up to `restart` steps).
    pub max_restarts: usize,
    /// The orthogonalisation of the Arnoldi step.
    pub ortho: Ortho,
}

impl Default for GmresOpts {
    fn default() -> GmresOpts {
        GmresOpts {
            restart: 30,
            tol: 1e-30,
            prec: 53,
            max_restarts: 100,
            ortho: Ortho::Dgks,
        }
    }
}

/// The outcome of [`gmres`] (and, with a complex `x`, of
/// [`gmres_complex`]).
#[derive(Debug)]
pub struct GmresResult<X = FloatArray> {
    /// The approximate solution, on the matrix's engine.
    pub x: X,
    /// The relative residual estimate `|g_{j+1}| / ||b||` after every
    /// Arnoldi step (rounded to f64 for reporting), restarts included.
    pub history: Vec<f64>,
    /// The true residual norm at every restart (first entry: at `x0`), and
    /// at the end: `||b - A x||`, each element of `b - A x` rounded once,
    /// the norm correctly rounded.
    pub true_residuals: Vec<f64>,
    /// `||b - A x||` of the returned `x` (working precision).
    pub true_residual: FloatArray,
    /// `||b||` (working precision).
    pub b_norm: FloatArray,
    /// Arnoldi steps made in all.
    pub iterations: usize,
    /// Restart cycles begun.
    pub restarts: usize,
    /// Whether `||b - A x|| <= tol ||b||` holds for the returned `x`.
    pub converged: bool,
}

const RN: Round = Round::Nearest;

/// `MPARRAY_GMRES_PROFILE`: the time of each phase of [`gmres`], summed over
/// the run and printed on stderr at its end (the engine synchronized at
/// every phase boundary).
struct Prof {
    eng: Option<Engine>,
    t: std::time::Instant,
    acc: [f64; 6],
}

const PHASES: [&str; 6] = [
    "A v",
    "orthogonalise",
    "nrm2",
    "givens (host)",
    "new row",
    "restart",
];

impl Prof {
    fn new(eng: &Engine) -> Prof {
        let on = std::env::var_os("MPARRAY_GMRES_PROFILE").is_some();
        Prof {
            eng: on.then(|| eng.clone()),
            t: std::time::Instant::now(),
            acc: [0.0; 6],
        }
    }

    /// Ends phase `k`.
    fn mark(&mut self, k: usize) -> Result<()> {
        if let Some(e) = &self.eng {
            e.synchronize()?;
            let now = std::time::Instant::now();
            self.acc[k] += (now - self.t).as_secs_f64() * 1e3;
            self.t = now;
        }
        Ok(())
    }

    fn report(&self, steps: usize) {
        if self.eng.is_some() {
            let parts: Vec<String> = PHASES
                .iter()
                .zip(self.acc)
                .map(|(n, ms)| format!("{n} {ms:.3} ms"))
                .collect();
            eprintln!("gmres profile, {steps} steps: {}", parts.join(", "));
        }
    }
}

/// Solves `A x = b` by GMRES(m) from `x0` (None: zeros) at `opts.prec`
/// bits on the engine `A`, `b` (and `x0`) live on.
pub fn gmres(
    a: &Matrix<FloatArray>,
    b: &FloatArray,
    x0: Option<&FloatArray>,
    opts: &GmresOpts,
) -> Result<GmresResult> {
    gmres_with(a, b, x0, opts, &mut |_, _| {})
}

/// [`gmres`], calling `progress(iterations, relative residual)` after every
/// Arnoldi step.
pub fn gmres_with(
    a: &Matrix<FloatArray>,
    b: &FloatArray,
    x0: Option<&FloatArray>,
    opts: &GmresOpts,
    progress: &mut dyn FnMut(usize, f64),
) -> Result<GmresResult> {
    let n = a.rows();
    check_shapes(a.rows(), a.cols(), b.len(), x0.map(|x| x.len()), opts)?;
    let p = opts.prec;
    let eng = a.engine();
    let cpu = Engine::Cpu;
    // Scalars of the least-squares problem live on the CPU engine.
    let hscalar = |v: f64| -> Result<FloatArray> { Ok(FloatArray::from_f64s(p, &[v], RN)?.0) };
    let one = hscalar(1.0)?.into_engine(&eng)?;
    let minus_one = hscalar(-1.0)?.into_engine(&eng)?;
    let hone = hscalar(1.0)?;
    let hzero = hscalar(0.0)?;
    let gv = Gemv {
        prec: p,
        ..Gemv::default()
    };
    let gt = Gemv {
        op: Op::Trans,
        ..gv
    };
    // Projection coefficients at 2p + 64 bits (exactly rounded): the second
    // pass's sums cancel to about 2^-p of their terms, which a BLAS window
    // of p plus a few guard bits cannot decide (the exact core's slow path
    // on either engine); at 2p + 64 bits the device's wider tier can.
    let gw = Gemv {
        prec: 2 * p + 64,
        ..gv
    };
    let mut x = match x0 {
        Some(x) => x.set_prec(p, RN)?,
        None => FloatArray::zeros(&eng, n, p)?,
    };
    let b_norm = b.nrm2(p, RN)?.0;
    let bnh = b_norm.to_engine(&cpu)?;
    let tol_b = bnh.mul(&hscalar(opts.tol)?, p, RN)?;
    let f64_of = |s: &FloatArray| -> Result<f64> { Ok(s.to_f64s(RN)?[0]) };
    let bn = f64_of(&bnh)?;
    let rel = |r: f64| if bn > 0.0 { r / bn } else { r };
    // r = b - A x, each element rounded once.
    let residual = |x: &FloatArray| -> Result<FloatArray> {
        Ok(a.gemv(&minus_one, x, Some((&one, b)), &gv)?.0)
    };
    let mut history = Vec::new();
    let mut true_residuals = Vec::new();
    let mut iterations = 0;
    let mut restarts = 0;
    let m = opts.restart.min(n.max(1));
    // The basis v_0 .. v_m as the rows of one array on the engine.
    let mut vdata = FloatArray::zeros(&eng, (m + 1) * n, p)?;
    // Dgks: the masks [1; j+1] ++ [0] that drop w.w from the extended
    // projections (exact products), made once per solve.
    let masks: Vec<FloatArray> = if opts.ortho == Ortho::Dgks {
        (0..m)
            .map(|j| {
                let mut v = vec![1i64; j + 2];
                v[j + 1] = 0;
                FloatArray::from_i64s(gw.prec, &v, RN)?.0.into_engine(&eng)
            })
            .collect::<Result<_>>()?
    } else {
        Vec::new()
    };
    let mut prof = Prof::new(&eng);
    // The pipeline's state: the n x 1 matrix of ones (broadcasts 1/||w||
    // on the device), the page-locked buffer of its reads, and
    // (MPARRAY_GMRES_TRACE) the host's clock at each step's start, after its
    // launches, after its read and at its end.
    let mut ones: Option<Matrix<FloatArray>> = None;
    let mut staging = Staging::default();
    let mut trace: Vec<[std::time::Instant; 4]> = Vec::new();
    let mut dt = DevTrace::new(&eng);
    // Pipelined steps redone (a speculation that failed), and whether the
    // next step is predicted to need the second DGKS pass (the last test's
    // outcome, kept across restarts).
    let mut redone = 0usize;
    let mut predict_two = false;
    loop {
        let r = residual(&x)?;
        let beta = r.nrm2(p, RN)?.0;
        let bh = beta.to_engine(&cpu)?;
        true_residuals.push(rel(f64_of(&bh)?));
        let ok = le(&bh, &tol_b)?;
        prof.mark(5)?;
        if ok || restarts == opts.max_restarts || n == 0 {
            prof.report(iterations);
            report_trace(&trace, redone);
            dt.report();
            return Ok(GmresResult {
                converged: ok,
                x,
                history,
                true_residuals,
                true_residual: beta,
                b_norm,
                iterations,
                restarts,
            });
        }
        restarts += 1;
        // v_0 = r / beta.
        let inv = hone.div(&bh, p, RN)?.into_engine(&eng)?;
        let v0 = r.scal(&inv, p, RN)?.0;
        vdata = put_row(vdata, 0, &v0)?;
        // The rows again as arrays of their own (A v_j, MGS's operands).
        let mut vs = vec![v0];
        // R (upper triangular, column by column), rotations (c, s), g.
        let mut lsq = Lsq {
            rcols: Vec::new(),
            rot: Vec::new(),
            g: vec![bh],
        };
        // On CUDA the host's Givens work of step j runs on a thread of its
        // own while the device computes A v_{j+1}; its outcome (converged
        // or not) is read after that product, which is thrown away when
        // the cycle ends there. The same operations in the same order: the
        // same bits.
        // (MPARRAY_GMRES_OVERLAP=1 or 0 forces it on or off, for tests.)
        let overlap = match std::env::var("MPARRAY_GMRES_OVERLAP").as_deref() {
            Ok("1") => true,
            Ok("0") => false,
            _ => eng.is_cuda(),
        };
        // MPARRAY_GMRES_REDO=1: every DGKS step is redone as if a product
        // had been undecided (for tests: the same bits).
        let redo = std::env::var_os("MPARRAY_GMRES_REDO").is_some_and(|v| v == "1");
        // MPARRAY_GMRES_DEFER=0: every product checked at once (as before
        // the deferred checks; for measurements).
        let defer = std::env::var_os("MPARRAY_GMRES_DEFER").is_none_or(|v| v != "0");
        // The DGKS pipeline (off by default: no gain on the H200,
        // 2026-12-03; MPARRAY_GMRES_PIPE=1 turns it on, on CUDA with the
        // deferred checks and the overlap, or on any engine for tests): v_{j+1} made on the device and A v_{j+1}
        // launched before the step's one read, which then overlaps that
        // product (see `Ortho::Dgks`); a failed speculation redoes the step
        // checked.
        let pipe = opts.ortho == Ortho::Dgks
            && match std::env::var("MPARRAY_GMRES_PIPE").as_deref() {
                Ok("1") => !eng.is_cuda() || (overlap && defer),
                Ok("0") => false,
                _ => PIPE_BY_DEFAULT && eng.is_cuda() && overlap && defer,
            };
        if pipe && ones.is_none() {
            let v = vec![1i64; n];
            ones = Some(Matrix::from_array_ld(
                FloatArray::from_i64s(p, &v, RN)?.0.into_engine(&eng)?,
                n,
                1,
                1,
            )?);
        }
        vdata = std::thread::scope(|sc| -> Result<FloatArray> {
            let mut vdata = vdata;
            let mut finish = |gabs: FloatArray| -> Result<bool> {
                iterations += 1;
                let res = f64_of(&gabs)?;
                history.push(rel(res));
                progress(iterations, rel(res));
                le(&gabs, &tol_b)
            };
            if pipe {
                let k = Consts {
                    one: &one,
                    minus_one: &minus_one,
                    gw: &gw,
                    gt: &gt,
                };
                let ones = ones.as_ref().expect("made for the pipeline");
                let mut spec: Option<(FloatArray, Deferred)> = None;
                let mut j = 0;
                while j < m {
                    let t0 = std::time::Instant::now();
                    // A v_j: launched by the previous step when its
                    // speculation held.
                    let (w, scope) = match spec.take() {
                        Some(s) => s,
                        None => {
                            let sc = Deferred::begin();
                            dt.step();
                            dt.mark("start");
                            let w = a.gemv(&one, &vs[j], None, &gv)?.0;
                            dt.mark("A v");
                            (w, sc)
                        }
                    };
                    let last = j + 1 == m;
                    // The second pass is predicted from the last step's
                    // DGKS test.
                    let two = predict_two;
                    let l =
                        dgks_launch(vdata, w, (j, n), &masks[j], &k, ones, (two, !last), &mut dt)?;
                    vdata = l.vdata;
                    let mut reads = vec![&l.he, &l.w1w1];
                    if let Some((he2, _, w2w2)) = &l.second {
                        reads.push(he2);
                        reads.push(w2w2);
                    }
                    let ticket = scope.finish_async(&reads, &mut staging)?;
                    dt.mark("read");
                    // A v_{j+1} on the speculative v_{j+1} (the usual case:
                    // every product decided, w1 kept, ||w1|| > 0).
                    if let Some(v) = &l.v {
                        let sc = Deferred::begin();
                        dt.step();
                        dt.mark("start");
                        spec = Some((a.gemv(&one, v, None, &gv)?.0, sc));
                        dt.mark("A v");
                    }
                    let t1 = std::time::Instant::now();
                    let (hs, decided) = ticket.wait()?;
                    let t2 = std::time::Instant::now();
                    let s1 = split(&hs[0])?;
                    let keep = le(&s1[j + 1], &hs[1].mul_2si(1, p + 64, RN)?)?;
                    predict_two = !keep;
                    let (h, hn) = if two {
                        let s2 = split(&hs[2])?;
                        let h = s1[..=j]
                            .iter()
                            .zip(&s2)
                            .map(|(a, b)| a.add(b, p, RN))
                            .collect::<Result<Vec<_>>>()?;
                        (h, hs[3].sqrt(p, RN)?)
                    } else {
                        let h = s1[..=j]
                            .iter()
                            .map(|v| v.set_prec(p, RN))
                            .collect::<Result<Vec<_>>>()?;
                        (h, hs[1].sqrt(p, RN)?)
                    };
                    let zero = matches!(hn.cmp(&hzero)?[0], Some(std::cmp::Ordering::Equal));
                    if decided && keep != two && !zero && !redo {
                        if let Some(v) = l.v {
                            vs.push(v);
                        }
                        let mut ls = std::mem::take(&mut lsq);
                        let gabs = ls.column(h, &hn, j, p, false)?;
                        lsq = ls;
                        if let Some((_, sc)) = spec.as_mut() {
                            sc.pause();
                        }
                        let done = finish(gabs)?;
                        if let Some((_, sc)) = spec.as_mut() {
                            sc.resume();
                        }
                        trace.push([t0, t1, t2, std::time::Instant::now()]);
                        if done || last {
                            break;
                        }
                        j += 1;
                        continue;
                    }
                    // The speculation failed: the step again, every product
                    // checked at once (as without the pipeline).
                    spec = None;
                    redone += 1;
                    drop(l.w1);
                    let w = a.gemv(&one, &vs[j], None, &gv)?.0;
                    let (vd, h, hn, zero, wf) = dgks_step_checked(vdata, w, (j, n), &masks[j], &k)?;
                    vdata = vd;
                    if !zero {
                        let inv = hone.div(&hn, p, RN)?;
                        let v = bcast(&inv, n, &eng)?.mul(&wf, p, RN)?;
                        vdata = put_row(vdata, (j + 1) * n, &v)?;
                        vs.push(v);
                    }
                    let mut ls = std::mem::take(&mut lsq);
                    let gabs = ls.column(h, &hn, j, p, zero)?;
                    lsq = ls;
                    if finish(gabs)? || zero || last {
                        break;
                    }
                    j += 1;
                }
                return Ok(vdata);
            }
            let mut pending: Option<Givens<'_>> = None;
            for j in 0..m {
                // w = A v_j, orthogonalised against v_0..v_j. DGKS: the
                // step's products are launched back to back, their
                // undecided counts read with the projections (one
                // transfer); when one was undecided the step is redone
                // with every product checked at once (the same bits).
                let mut scope = (defer && opts.ortho == Ortho::Dgks).then(Deferred::begin);
                let mut w = a.gemv(&one, &vs[j], None, &gv)?.0;
                prof.mark(0)?;
                if let Some(hd) = pending.take() {
                    if let Some(sc) = scope.as_mut() {
                        sc.pause();
                    }
                    let (l, gabs) = hd.join(p)?;
                    lsq = l;
                    if finish(gabs)? {
                        break;
                    }
                    if let Some(sc) = scope.as_mut() {
                        sc.resume();
                    }
                }
                let mut hnsq: Option<FloatArray> = None;
                let h = match opts.ortho {
                    Ortho::Dgks => {
                        let wp = gw.prec;
                        let k = Consts {
                            one: &one,
                            minus_one: &minus_one,
                            gw: &gw,
                            gt: &gt,
                        };
                        let mut d = dgks_pass(vdata, w, (j, n), &masks[j], &k, scope.take())?;
                        if !d.decided || redo {
                            // The checked products from A v_j on.
                            let w = a.gemv(&one, &vs[j], None, &gv)?.0;
                            d = dgks_pass(d.vdata, w, (j, n), &masks[j], &k, None)?;
                        }
                        let DgksPass {
                            vdata: vd,
                            w1,
                            s1,
                            w1w1,
                            ..
                        } = d;
                        vdata = vd;
                        let ve = Matrix::from_array_ld(vdata, j + 2, n, n)?;
                        let ww = &s1[j + 1];
                        let keep = le(ww, &w1w1.mul_2si(1, p + 64, RN)?)?;
                        let h = if keep {
                            w = w1;
                            hnsq = Some(w1w1);
                            s1[..=j]
                                .iter()
                                .map(|v| v.set_prec(p, RN))
                                .collect::<Result<Vec<_>>>()?
                        } else {
                            // h2 = V_j w1 (w1 is row j + 1 of ve).
                            let he2 = ve.gemv(&one, &w1, None, &gw)?.0;
                            let s2 = split(&he2)?;
                            let hm2 = he2.mul(&masks[j], wp, RN)?;
                            w = ve.gemv(&minus_one, &hm2, Some((&one, &w1)), &gt)?.0;
                            s1[..=j]
                                .iter()
                                .zip(&s2)
                                .map(|(a, b)| a.add(b, p, RN))
                                .collect::<Result<Vec<_>>>()?
                        };
                        vdata = ve.into_data();
                        h
                    }
                    Ortho::Cgs2 => {
                        let vj = Matrix::from_array_ld(vdata, j + 1, n, n)?;
                        let mut h: Option<FloatArray> = None;
                        for _ in 0..2 {
                            // h' = V w, w <- w - V^T h' (each element rounded once).
                            let hp = vj.gemv(&one, &w, None, &gw)?.0;
                            w = vj.gemv(&minus_one, &hp, Some((&one, &w)), &gt)?.0;
                            let hp = hp.to_engine(&cpu)?;
                            h = Some(match h {
                                None => hp,
                                Some(h) => h.add(&hp, p, RN)?,
                            });
                        }
                        vdata = vj.into_data();
                        split(&h.expect("two passes"))?
                    }
                    Ortho::Mgs => {
                        let mut h = Vec::with_capacity(j + 2);
                        for vi in &vs {
                            let hij = w.dot(vi, p, RN)?.0;
                            w = w.axpy(&hij.neg(p, RN)?, vi, p, RN)?.0;
                            h.push(hij.to_engine(&cpu)?);
                        }
                        h
                    }
                };
                prof.mark(1)?;
                // ||w|| = sqrt(w.w), the exact square sum rounded to p + 64 bits
                // (no cancellation: the device decides it; nrm2 on CUDA is a
                // host fallback), the root rounded to p.
                let hn = match hnsq {
                    Some(s) => s.sqrt(p, RN)?,
                    None => w.dot(&w, p + 64, RN)?.0.to_engine(&cpu)?.sqrt(p, RN)?,
                };
                prof.mark(2)?;
                let zero = matches!(hn.cmp(&hzero)?[0], Some(std::cmp::Ordering::Equal));
                if !zero {
                    // w * (1/||w||) (as scal, the factor broadcast on the
                    // host: no download of it).
                    let inv = hone.div(&hn, p, RN)?;
                    let v = bcast(&inv, n, &eng)?.mul(&w, p, RN)?;
                    vdata = put_row(vdata, (j + 1) * n, &v)?;
                    vs.push(v);
                }
                prof.mark(4)?;
                // Apply the previous rotations to h, then a new one zeroing hn.
                // Overlapped with the next A v: on a thread of its own, or,
                // when that product is only launched (deferred checks), on
                // this thread right after the launch.
                let mut l = std::mem::take(&mut lsq);
                if overlap && !zero && j + 1 < m {
                    pending = Some(if defer && opts.ortho == Ortho::Dgks {
                        Givens::Later(Box::new((l, h, hn, j)))
                    } else {
                        Givens::Thread(sc.spawn(move || -> Result<(Lsq, FloatArray)> {
                            let gabs = l.column(h, &hn, j, p, false)?;
                            Ok((l, gabs))
                        }))
                    });
                } else {
                    let gabs = l.column(h, &hn, j, p, zero)?;
                    lsq = l;
                    prof.mark(3)?;
                    if finish(gabs)? || zero || j + 1 == m {
                        break;
                    }
                }
            }
            if let Some(hd) = pending.take() {
                let (l, gabs) = hd.join(p)?;
                lsq = l;
                finish(gabs)?;
            }
            Ok(vdata)
        })?;
        let Lsq { rcols, g, .. } = lsq;
        // Back substitution R y = g (CPU engine), then x <- x + V^T y, each
        // element rounded once.
        let k = rcols.len();
        let mut y: Vec<FloatArray> = Vec::with_capacity(k);
        for i in (0..k).rev() {
            let mut s = g[i].try_clone()?;
            for (jj, yj) in y.iter().enumerate() {
                let col = k - 1 - jj;
                s = rcols[col][i].neg(p, RN)?.fma(yj, &s, p, RN)?;
            }
            y.push(s.div(&rcols[i][i], p, RN)?);
        }
        y.reverse();
        let y = join(&y, p)?.into_engine(&eng)?;
        let vk = Matrix::from_array_ld(vdata, k, n, n)?;
        x = vk.gemv(&one, &y, Some((&one, &x)), &gt)?.0;
        vdata = vk.into_data();
    }
}

/// The outcome of [`gmres_complex`] (as [`GmresResult`], with a complex x).
pub type GmresComplexResult = GmresResult<ComplexArray>;

/// [`gmres`] for a complex `A` and `b`: Arnoldi with `dotc` projections
/// and complex Givens rotations `[[conj(c), s], [-s, c]]` (`c = h/rho`
/// complex, `s = ||w||/rho` real), both parts of every scalar at
/// `opts.prec` bits.
pub fn gmres_complex(
    a: &Matrix<ComplexArray>,
    b: &ComplexArray,
    x0: Option<&ComplexArray>,
    opts: &GmresOpts,
) -> Result<GmresComplexResult> {
    gmres_complex_with(a, b, x0, opts, &mut |_, _| {})
}

/// [`gmres_complex`], calling `progress(iterations, relative residual)`
/// after every Arnoldi step.
pub fn gmres_complex_with(
    a: &Matrix<ComplexArray>,
    b: &ComplexArray,
    x0: Option<&ComplexArray>,
    opts: &GmresOpts,
    progress: &mut dyn FnMut(usize, f64),
) -> Result<GmresComplexResult> {
    let n = a.rows();
    check_shapes(a.rows(), a.cols(), b.len(), x0.map(|x| x.len()), opts)?;
    let p = opts.prec;
    let rn = CRound::both(RN);
    let eng = a.engine();
    let cpu = Engine::Cpu;
    let cscalar = |re: f64, im: f64| -> Result<ComplexArray> {
        ComplexArray::new(
            FloatArray::from_f64s(p, &[re], RN)?.0,
            FloatArray::from_f64s(p, &[im], RN)?.0,
        )
    };
    let real = |r: &FloatArray| -> Result<ComplexArray> {
        ComplexArray::new(r.try_clone()?, FloatArray::zeros(&cpu, 1, p)?)
    };
    let one = cscalar(1.0, 0.0)?.into_engine(&eng)?;
    let minus_one = cscalar(-1.0, 0.0)?.into_engine(&eng)?;
    let hone = cscalar(1.0, 0.0)?;
    let hzero = FloatArray::zeros(&cpu, 1, p)?;
    let cv = CGemv {
        prec_re: p,
        prec_im: p,
        ..CGemv::default()
    };
    let ch = CGemv {
        op: Op::ConjTrans,
        ..cv
    };
    let mut x = match x0 {
        Some(x) => x.set_prec(p, p, rn)?,
        None => ComplexArray::zeros(&eng, n, p, p)?,
    };
    let b_norm = b.nrm2(p, RN)?.0;
    let bnh = b_norm.to_engine(&cpu)?;
    let tol_b = bnh.mul(&FloatArray::from_f64s(p, &[opts.tol], RN)?.0, p, RN)?;
    let f64_of = |s: &FloatArray| -> Result<f64> { Ok(s.to_f64s(RN)?[0]) };
    let bn = f64_of(&bnh)?;
    let rel = |r: f64| if bn > 0.0 { r / bn } else { r };
    let residual = |x: &ComplexArray| -> Result<ComplexArray> {
        Ok(a.gemv(&minus_one, x, Some((&one, b)), &cv)?.0)
    };
    let (mut history, mut true_residuals) = (Vec::new(), Vec::new());
    let (mut iterations, mut restarts) = (0, 0);
    let m = opts.restart.min(n.max(1));
    // The rows of W are conj(v_i): `W w` gives the projections v_i^H w and
    // `W^H h` is `sum_i h_i v_i`.
    let mut wdata = ComplexArray::zeros(&eng, (m + 1) * n, p, p)?;
    loop {
        let r = residual(&x)?;
        let beta = r.nrm2(p, RN)?.0;
        let bh = beta.to_engine(&cpu)?;
        true_residuals.push(rel(f64_of(&bh)?));
        let ok = le(&bh, &tol_b)?;
        if ok || restarts == opts.max_restarts || n == 0 {
            return Ok(GmresComplexResult {
                converged: ok,
                x,
                history,
                true_residuals,
                true_residual: beta,
                b_norm,
                iterations,
                restarts,
            });
        }
        restarts += 1;
        let inv = hone.div(&real(&bh)?, p, p, rn)?.into_engine(&eng)?;
        let v0 = r.scal(&inv, p, p, rn)?.0;
        wdata = put_crow(wdata, 0, &v0.conj(p, p, rn)?)?;
        let mut vs = vec![v0];
        let mut rcols: Vec<Vec<ComplexArray>> = Vec::new();
        let mut rot: Vec<(ComplexArray, ComplexArray)> = Vec::new();
        let mut g = vec![real(&bh)?];
        for j in 0..m {
            let mut w = a.gemv(&one, &vs[j], None, &cv)?.0;
            let mut h = match opts.ortho {
                Ortho::Cgs2 | Ortho::Dgks => {
                    let wj = Matrix::from_array_ld(wdata, j + 1, n, n)?;
                    let mut h: Option<ComplexArray> = None;
                    for _ in 0..2 {
                        let hp = wj.gemv(&one, &w, None, &cv)?.0;
                        w = wj.gemv(&minus_one, &hp, Some((&one, &w)), &ch)?.0;
                        let hp = hp.to_engine(&cpu)?;
                        h = Some(match h {
                            None => hp,
                            Some(h) => h.add(&hp, p, p, rn)?,
                        });
                    }
                    wdata = wj.into_data();
                    csplit(&h.expect("two passes"))?
                }
                Ortho::Mgs => {
                    let mut h = Vec::with_capacity(j + 2);
                    for vi in &vs {
                        let hij = vi.dotc(&w, p, p, rn)?.0;
                        w = w.axpy(&hij.neg(p, p, rn)?, vi, p, p, rn)?.0;
                        h.push(hij.to_engine(&cpu)?);
                    }
                    h
                }
            };
            let hn = w.nrm2(p, RN)?.0.to_engine(&cpu)?;
            for (i, (c, s)) in rot.iter().enumerate() {
                let cc = c.conj(p, p, rn)?;
                let hi = cc
                    .mul(&h[i], p, p, rn)?
                    .add(&s.mul(&h[i + 1], p, p, rn)?, p, p, rn)?;
                let hi1 = c
                    .mul(&h[i + 1], p, p, rn)?
                    .sub(&s.mul(&h[i], p, p, rn)?, p, p, rn)?;
                h[i] = hi;
                h[i + 1] = hi1;
            }
            let hj = h[j].try_clone()?;
            let rho = hj.abs_ternary(p, RN)?.0.hypot(&hn, p, RN)?;
            let zero = matches!(hn.cmp(&hzero)?[0], Some(std::cmp::Ordering::Equal));
            let (c, s) = if zero {
                (hone.try_clone()?, cscalar(0.0, 0.0)?)
            } else {
                let rc = real(&rho)?;
                (hj.div(&rc, p, p, rn)?, real(&hn.div(&rho, p, RN)?)?)
            };
            // conj(c) h_j + s ||w|| = rho.
            h[j] = if zero { hj } else { real(&rho)? };
            let gj = g[j].try_clone()?;
            g.push(s.mul(&gj, p, p, rn)?.neg(p, p, rn)?);
            g[j] = c.conj(p, p, rn)?.mul(&gj, p, p, rn)?;
            rot.push((c, s));
            h.truncate(j + 1);
            rcols.push(h);
            iterations += 1;
            let gabs = g[j + 1].abs_ternary(p, RN)?.0;
            let res = f64_of(&gabs)?;
            history.push(rel(res));
            let done = le(&gabs, &tol_b)? || zero || j + 1 == m;
            if !zero {
                let inv = hone.div(&real(&hn)?, p, p, rn)?.into_engine(&eng)?;
                let v = w.scal(&inv, p, p, rn)?.0;
                wdata = put_crow(wdata, (j + 1) * n, &v.conj(p, p, rn)?)?;
                vs.push(v);
            }
            progress(iterations, rel(res));
            if done {
                break;
            }
        }
        let k = rcols.len();
        let mut y: Vec<ComplexArray> = Vec::with_capacity(k);
        for i in (0..k).rev() {
            let mut s = g[i].try_clone()?;
            for (jj, yj) in y.iter().enumerate() {
                let col = k - 1 - jj;
                s = s.sub(&rcols[col][i].mul(yj, p, p, rn)?, p, p, rn)?;
            }
            y.push(s.div(&rcols[i][i], p, p, rn)?);
        }
        y.reverse();
        // x <- x + sum_i y_i v_i = x + W^H y, each element rounded once.
        let y = cjoin(&y, p)?.into_engine(&eng)?;
        let wk = Matrix::from_array_ld(wdata, k, n, n)?;
        x = wk.gemv(&one, &y, Some((&one, &x)), &ch)?.0;
        wdata = wk.into_data();
    }
}

/// The least-squares state of one real cycle (CPU engine): the columns
/// of R, the rotations (c, s), and g.
#[derive(Default)]
struct Lsq {
    rcols: Vec<Vec<FloatArray>>,
    rot: Vec<(FloatArray, FloatArray)>,
    g: Vec<FloatArray>,
}

impl Lsq {
    /// Column j of the Hessenberg matrix (`h`, j + 1 values, and `hn`):
    /// applies the previous rotations, makes a new one zeroing `hn`
    /// (`zero`: hn = 0, the identity), updates g; returns `|g_{j+1}|`.
    fn column(
        &mut self,
        mut h: Vec<FloatArray>,
        hn: &FloatArray,
        j: usize,
        p: u64,
        zero: bool,
    ) -> Result<FloatArray> {
        for (i, (c, s)) in self.rot.iter().enumerate() {
            // (h_i, h_{i+1}) <- (c h_i + s h_{i+1}, -s h_i + c h_{i+1})
            let hi = c.mul(&h[i], p, RN)?.add(&s.mul(&h[i + 1], p, RN)?, p, RN)?;
            let hi1 = c.mul(&h[i + 1], p, RN)?.sub(&s.mul(&h[i], p, RN)?, p, RN)?;
            h[i] = hi;
            h[i + 1] = hi1;
        }
        let hj = h[j].try_clone()?;
        let rho = hj.hypot(hn, p, RN)?;
        let (c, s) = if zero {
            (
                FloatArray::from_f64s(p, &[1.0], RN)?.0,
                FloatArray::from_f64s(p, &[0.0], RN)?.0,
            )
        } else {
            (hj.div(&rho, p, RN)?, hn.div(&rho, p, RN)?)
        };
        h[j] = if zero { hj } else { rho };
        let g = &mut self.g;
        let gj = g[j].try_clone()?;
        g.push(s.mul(&gj, p, RN)?.neg(p, RN)?);
        g[j] = c.mul(&gj, p, RN)?;
        self.rot.push((c, s));
        h.truncate(j + 1);
        self.rcols.push(h);
        g[j + 1].abs(p, RN)
    }
}

/// The scalars 1 and -1 on the engine, and the `gemv` options of the
/// projections (`gw`, at `2p + 64` bits) and of `w - V^T h` (`gt`).
struct Consts<'a> {
    one: &'a FloatArray,
    minus_one: &'a FloatArray,
    gw: &'a Gemv,
    gt: &'a Gemv,
}

/// The device part of one DGKS step (see [`Ortho::Dgks`]).
struct DgksPass {
    /// The basis array, `w1` in row `j + 1`.
    vdata: FloatArray,
    /// `w - V_j^T h`.
    w1: FloatArray,
    /// `[V_j; w] w`, element by element on the CPU engine.
    s1: Vec<FloatArray>,
    /// `w1.w1` rounded to `p + 64` bits (CPU engine).
    w1w1: FloatArray,
    /// Whether every product was decided on the device (always, outside a
    /// deferred scope).
    decided: bool,
}

/// `w` into row `j + 1` of the basis, `he = [V_j; w] w` (the projections
/// and `w.w`), `w1 = w - V_j^T (he * mask)`, `w1` into row `j + 1`, `w1.w1`
/// (`dot`, at `p + 64` bits); `he` and `w1.w1` downloaded, in one transfer
/// with the undecided counts of the products of `scope` (when given).
fn dgks_pass(
    vdata: FloatArray,
    w: FloatArray,
    (j, n): (usize, usize),
    mask: &FloatArray,
    k: &Consts,
    scope: Option<Deferred>,
) -> Result<DgksPass> {
    let (one, minus_one, gw, gt) = (k.one, k.minus_one, k.gw, k.gt);
    let wp = gw.prec;
    let vdata = put_row(vdata, (j + 1) * n, &w)?;
    let ve = Matrix::from_array_ld(vdata, j + 2, n, n)?;
    let he = ve.gemv(one, &w, None, gw)?.0;
    let hm = he.mul(mask, wp, RN)?;
    let w1 = ve.gemv(minus_one, &hm, Some((one, &w)), gt)?.0;
    let vdata = put_row(ve.into_data(), (j + 1) * n, &w1)?;
    let w1w1 = w1.dot(&w1, gt.prec + 64, RN)?.0;
    let (mut hs, decided) = match scope {
        Some(sc) => sc.finish(&[&he, &w1w1])?,
        None => (
            vec![he.to_engine(&Engine::Cpu)?, w1w1.to_engine(&Engine::Cpu)?],
            true,
        ),
    };
    let w1w1 = hs.pop().expect("two arrays");
    Ok(DgksPass {
        vdata,
        w1,
        s1: split(&hs[0])?,
        w1w1,
        decided,
    })
}

/// The launches of one pipelined DGKS step (see [`Ortho::Dgks`]).
struct DgksLaunch {
    /// The basis array: `w1` in row `j + 1`, or `v_{j+1}` when made.
    vdata: FloatArray,
    /// `[V_j; w] w` at `2p + 64` bits.
    he: FloatArray,
    /// `w - V_j^T h`.
    w1: FloatArray,
    /// `w1.w1` at `p + 64` bits.
    w1w1: FloatArray,
    /// With a second pass: `[V_j; w1] w1`, `w2`, `w2.w2` (`p + 64` bits).
    second: Option<(FloatArray, FloatArray, FloatArray)>,
    /// `v_{j+1} = w * (1/||w||)` when asked for (`w` = `w2` with a second
    /// pass, else `w1`).
    v: Option<FloatArray>,
}

/// `w` into row `j + 1`, `he = [V_j; w] w`, `w1 = w - V_j^T (he * mask)`,
/// `w1` into row `j + 1`, `w1.w1` (`dot` at `p + 64` bits, its status
/// deferred as the products' counts);
/// with `two` the second pass (`[V_j; w1] w1`, `w2`, `w2.w2`); with `next`
/// `||w||` (w = w2 or w1) = the root of `w.w` rounded to p, its inverse,
/// repeated on the device (`float_fill`; with `MPARRAY_GMRES_HOSTBCAST=1`
/// the product `ones * 1` with `alpha = 1/||w||`, as before), and
/// `v_{j+1}` = the broadcast times `w` into row `j + 1`: all launched on
/// the device, nothing read (the products' checks are in the caller's
/// deferred scope). The same operations as the checked path's, so the same
/// bits when its decisions agree.
#[allow(clippy::too_many_arguments)]
fn dgks_launch(
    vdata: FloatArray,
    w: FloatArray,
    (j, n): (usize, usize),
    mask: &FloatArray,
    k: &Consts,
    ones: &Matrix<FloatArray>,
    (two, next): (bool, bool),
    dt: &mut DevTrace,
) -> Result<DgksLaunch> {
    let (one, minus_one, gw, gt) = (k.one, k.minus_one, k.gw, k.gt);
    let p = gt.prec;
    let vdata = put_row(vdata, (j + 1) * n, &w)?;
    let ve = Matrix::from_array_ld(vdata, j + 2, n, n)?;
    let he = ve.gemv(one, &w, None, gw)?.0;
    dt.mark("[V;w] w");
    let hm = he.mul(mask, gw.prec, RN)?;
    let w1 = ve.gemv(minus_one, &hm, Some((one, &w)), gt)?.0;
    let mut vdata = put_row(ve.into_data(), (j + 1) * n, &w1)?;
    dt.mark("w1");
    let gs = Gemv {
        op: Op::None,
        prec: p + 64,
        rnd: gt.rnd,
    };
    // The fused dot (its status read with the scope's counts).
    let w1w1 = w1.dot(&w1, p + 64, RN)?.0;
    dt.mark("w1.w1");
    // The second pass (as the checked path's): h2 = [V_j; w1] w1, w2 = w1 -
    // V_j^T (h2 * mask), w2.w2.
    let second = if two {
        let ve = Matrix::from_array_ld(vdata, j + 2, n, n)?;
        let he2 = ve.gemv(one, &w1, None, gw)?.0;
        let hm2 = he2.mul(mask, gw.prec, RN)?;
        let w2 = ve.gemv(minus_one, &hm2, Some((one, &w1)), gt)?.0;
        vdata = ve.into_data();
        let w2w2 = w2.dot(&w2, p + 64, RN)?.0;
        dt.mark("second pass");
        Some((he2, w2, w2w2))
    } else {
        None
    };
    let v = if next {
        let (wf, nsq) = match &second {
            Some((_, w2, w2w2)) => (w2, w2w2),
            None => (&w1, &w1w1),
        };
        let hn = nsq.sqrt(p, RN)?;
        let inv = one.div(&hn, p, RN)?;
        let gb = Gemv { prec: p, ..gs };
        // 1/||w|| repeated on the device (exact copies; the product `ones *
        // 1` with alpha = 1/||w|| with MPARRAY_GMRES_HOSTBCAST=1, as before).
        let b = if host_bcast() {
            ones.gemv(&inv, one, None, &gb)?.0
        } else {
            inv.repeat_first(n, &inv.engine())?
        };
        let v = b.mul(wf, p, RN)?;
        vdata = put_row(vdata, (j + 1) * n, &v)?;
        dt.mark("v");
        Some(v)
    } else {
        None
    };
    Ok(DgksLaunch {
        vdata,
        he,
        w1,
        w1w1,
        second,
        v,
    })
}

/// One DGKS step's orthogonalisation with every product checked at once:
/// the basis array, `h` (p bits, CPU engine), `||w||`, whether it is 0, and
/// the orthogonalised `w` (not normalised).
#[allow(clippy::type_complexity)]
fn dgks_step_checked(
    vdata: FloatArray,
    w: FloatArray,
    (j, n): (usize, usize),
    mask: &FloatArray,
    k: &Consts,
) -> Result<(FloatArray, Vec<FloatArray>, FloatArray, bool, FloatArray)> {
    let (one, minus_one, gw) = (k.one, k.minus_one, k.gw);
    let p = k.gt.prec;
    let d = dgks_pass(vdata, w, (j, n), mask, k, None)?;
    let DgksPass {
        vdata,
        w1,
        s1,
        w1w1,
        ..
    } = d;
    let ve = Matrix::from_array_ld(vdata, j + 2, n, n)?;
    let keep = le(&s1[j + 1], &w1w1.mul_2si(1, p + 64, RN)?)?;
    let (h, w, hn) = if keep {
        let h = s1[..=j]
            .iter()
            .map(|v| v.set_prec(p, RN))
            .collect::<Result<Vec<_>>>()?;
        let hn = w1w1.sqrt(p, RN)?;
        (h, w1, hn)
    } else {
        let he2 = ve.gemv(one, &w1, None, gw)?.0;
        let s2 = split(&he2)?;
        let hm2 = he2.mul(mask, gw.prec, RN)?;
        let w = ve.gemv(minus_one, &hm2, Some((one, &w1)), k.gt)?.0;
        let h = s1[..=j]
            .iter()
            .zip(&s2)
            .map(|(a, b)| a.add(b, p, RN))
            .collect::<Result<Vec<_>>>()?;
        let hn = w
            .dot(&w, p + 64, RN)?
            .0
            .to_engine(&Engine::Cpu)?
            .sqrt(p, RN)?;
        (h, w, hn)
    };
    let zero = matches!(
        hn.cmp(&FloatArray::from_f64s(p, &[0.0], RN)?.0)?[0],
        Some(std::cmp::Ordering::Equal)
    );
    Ok((ve.into_data(), h, hn, zero, w))
}

/// MPARRAY_GMRES_TRACE=2: device events between the pipeline's launches
/// (recorded on the stream, read at the end of the solve: no
/// synchronisation while it runs), printed on stderr as the mean device
/// time of each phase (a phase's time includes any wait of the device for
/// the host's next launch).
struct DevTrace {
    eng: Option<std::sync::Arc<crate::engine::CudaEngine>>,
    steps: Vec<Vec<(&'static str, cudarc::driver::CudaEvent)>>,
}

impl DevTrace {
    fn new(eng: &Engine) -> DevTrace {
        let on = std::env::var_os("MPARRAY_GMRES_TRACE").is_some_and(|v| v == "2");
        DevTrace {
            eng: match eng {
                Engine::Cuda(c) if on => Some(c.clone()),
                _ => None,
            },
            steps: Vec::new(),
        }
    }

    /// Begins a step's record.
    fn step(&mut self) {
        if self.eng.is_some() {
            self.steps.push(Vec::new());
        }
    }

    /// An event after the launches queued so far.
    fn mark(&mut self, what: &'static str) {
        if let (Some(e), Some(s)) = (&self.eng, self.steps.last_mut())
            && let Ok(ev) = e
                .context()
                .new_event(Some(cudarc::driver::sys::CUevent_flags::CU_EVENT_DEFAULT))
            && ev.record(e.stream()).is_ok()
        {
            s.push((what, ev));
        }
    }

    fn report(&self) {
        if self.eng.is_none() || self.steps.len() < 3 {
            return;
        }
        let _ = self.eng.as_ref().map(|e| e.stream().synchronize());
        // Steps 1 .. len - 2 (the first compiles and waits; the last may be
        // cut short): each phase from the previous mark, and the whole step
        // from its start to the next step's.
        let mut names: Vec<&'static str> = Vec::new();
        let mut sums: Vec<f64> = Vec::new();
        let (mut whole, mut k) = (0.0, 0usize);
        for i in 1..self.steps.len() - 1 {
            let st = &self.steps[i];
            for w in st.windows(2) {
                let ms = w[0].1.elapsed_ms(&w[1].1).unwrap_or(f32::NAN) as f64;
                match names.iter().position(|&n| n == w[1].0) {
                    Some(p) => sums[p] += ms,
                    None => {
                        names.push(w[1].0);
                        sums.push(ms);
                    }
                }
            }
            if let (Some(a), Some(b)) = (st.first(), self.steps[i + 1].first()) {
                whole += a.1.elapsed_ms(&b.1).unwrap_or(f32::NAN) as f64;
                k += 1;
            }
        }
        let parts: Vec<String> = names
            .iter()
            .zip(&sums)
            .map(|(n, s)| format!("{n} {:.1} us", s * 1e3 / k.max(1) as f64))
            .collect();
        eprintln!(
            "gmres device trace, {k} steps, mean: step {:.1} us; {}",
            whole * 1e3 / k.max(1) as f64,
            parts.join(", ")
        );
    }
}

/// MPARRAY_GMRES_TRACE: the pipeline's host clock per step on stderr (the
/// launches, the wait for the step's read, the host's work after it), and
/// how many steps were redone.
fn report_trace(trace: &[[std::time::Instant; 4]], redone: usize) {
    if std::env::var_os("MPARRAY_GMRES_TRACE").is_none() {
        return;
    }
    eprintln!(
        "gmres trace: {} pipelined steps kept, {redone} redone",
        trace.len()
    );
    if trace.is_empty() {
        return;
    }
    let us = |a: std::time::Instant, b: std::time::Instant| (b - a).as_secs_f64() * 1e6;
    let mut sum = [0.0; 4];
    for (i, t) in trace.iter().enumerate() {
        let gap = trace.get(i + 1).map_or(0.0, |n| us(t[3], n[0]));
        let row = [us(t[0], t[1]), us(t[1], t[2]), us(t[2], t[3]), gap];
        for (s, r) in sum.iter_mut().zip(row) {
            *s += r;
        }
        eprintln!(
            "gmres trace step {i}: launches {:.0} us, wait {:.0} us, host after {:.0} us, to next {:.0} us",
            row[0], row[1], row[2], row[3]
        );
    }
    let k = trace.len() as f64;
    eprintln!(
        "gmres trace, {} steps, mean: launches {:.0} us, wait {:.0} us, host after {:.0} us, to next {:.0} us",
        trace.len(),
        sum[0] / k,
        sum[1] / k,
        sum[2] / k,
        sum[3] / k
    );
}

/// Whether the DGKS pipeline runs by default on CUDA (`MPARRAY_GMRES_PIPE`
/// 0 or 1 overrides it).
const PIPE_BY_DEFAULT: bool = true;

/// `MPARRAY_GMRES_HOSTBCAST=1` (see [`bcast`]).
fn host_bcast() -> bool {
    static HOST: std::sync::OnceLock<bool> = std::sync::OnceLock::new();
    *HOST.get_or_init(|| std::env::var_os("MPARRAY_GMRES_HOSTBCAST").is_some_and(|v| v == "1"))
}

/// The one element of `a` (CPU engine) repeated `n` times on `eng`: on
/// CUDA one element uploaded and repeated on the device;
/// `MPARRAY_GMRES_HOSTBCAST=1`: `n` copies made on the host and uploaded
/// (as before 2026-12-03, for measurements). Exact copies either way.
fn bcast(a: &FloatArray, n: usize, eng: &Engine) -> Result<FloatArray> {
    if !host_bcast() {
        return a.repeat_first(n, eng);
    }
    let h = a.host()?;
    let la = h.limbs_per_element();
    FloatArray::from_raw(
        h.prec(),
        vec![h.tags()[0]; n],
        vec![h.exps()[0]; n],
        h.limbs()[..la].repeat(n),
    )?
    .into_engine(eng)
}

/// A Hessenberg column's Givens work (`Lsq::column` with `zero` false)
/// overlapped with the next `A v`: on a thread, or to be done on this one.
enum Givens<'s> {
    Thread(std::thread::ScopedJoinHandle<'s, Result<(Lsq, FloatArray)>>),
    Later(Box<(Lsq, Vec<FloatArray>, FloatArray, usize)>),
}

impl Givens<'_> {
    /// The least-squares state after the column, and `|g_{j+1}|`.
    fn join(self, p: u64) -> Result<(Lsq, FloatArray)> {
        match self {
            Givens::Thread(hd) => hd
                .join()
                .map_err(|_| Error::Invalid("gmres: the Givens thread panicked".into()))?,
            Givens::Later(b) => {
                let (mut l, h, hn, j) = *b;
                let gabs = l.column(h, &hn, j, p, false)?;
                Ok((l, gabs))
            }
        }
    }
}

/// Whether the one-element `u <= v`.
fn le(u: &FloatArray, v: &FloatArray) -> Result<bool> {
    Ok(matches!(
        u.cmp(v)?[0],
        Some(std::cmp::Ordering::Less | std::cmp::Ordering::Equal)
    ))
}

/// The shape and option checks shared by both forms.
fn check_shapes(
    rows: usize,
    cols: usize,
    b: usize,
    x0: Option<usize>,
    opts: &GmresOpts,
) -> Result<()> {
    if cols != rows {
        return Err(Error::Shape(format!(
            "gmres: A must be square, it is {rows} x {cols}"
        )));
    }
    if b != rows {
        return Err(Error::Shape(format!(
            "gmres: A is {rows} x {rows} but b has {b} elements"
        )));
    }
    if let Some(x) = x0
        && x != rows
    {
        return Err(Error::Shape(format!(
            "gmres: A is {rows} x {rows} but x0 has {x} elements"
        )));
    }
    if opts.restart == 0 {
        return Err(Error::Invalid(
            "gmres: the restart length m must be at least 1".into(),
        ));
    }
    if !(opts.tol >= 0.0 && opts.tol.is_finite()) {
        return Err(Error::Invalid(format!(
            "gmres: the tolerance must be a finite number >= 0, got {}",
            opts.tol
        )));
    }
    crate::float::check_prec(opts.prec)?;
    Ok(())
}
