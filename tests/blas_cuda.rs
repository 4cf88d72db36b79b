//! The exact BLAS on the CUDA engine (src/kernels/blas.cu,
//! src/linalg/cuda.rs) against the CPU engine, bit for bit (values and
//! ternaries): the CPU engine's BLAS is itself checked against exact
//! rational sums (tests/blas_cpu.rs).
//!
//! `blasemu_*` run the kernels' per-thread code compiled for the host
//! (tests/emu/blas/emu.cpp, built with g++ unless MPARRAY_BLAS_EMU names a
//! binary; MPARRAY_NO_EMU=1 skips them): every element the emulated device
//! decides must be the CPU engine's, and ordinary random inputs must be
//! decided on the device. `blasgpu_*` need a CUDA device (ignored
//! otherwise): every operation, every rounding mode, shapes 0/1/odd/larger
//! than a tile, precisions across every tier, cancellation, specials,
//! exponent spread, general alpha and beta; `blasgpu_speed` prints GMAC/s.

mod common;

use std::io::Write;
use std::process::{Command, Stdio};

use common::{Rng, seed};

/// The device tests read process-wide counters (linalg::cuda::stats) around
/// their calls: they run one at a time so that no other test's elements
/// enter a difference.
static GPU_SERIAL: std::sync::Mutex<()> = std::sync::Mutex::new(());

fn serial() -> std::sync::MutexGuard<'static, ()> {
    GPU_SERIAL.lock().unwrap_or_else(|e| e.into_inner())
}
use mparray::complex::CRound;
use mparray::linalg::cuda::tier_for;
use mparray::linalg::{CGemm, CGemv, Gemm, Gemv, Herk, Op, Syrk, Uplo};
use mparray::{ComplexArray, Engine, FloatArray, Matrix, Round};

const MODES: [Round; 5] = [
    Round::Nearest,
    Round::Zero,
    Round::Up,
    Round::Down,
    Round::Away,
];

fn rcode(r: Round) -> u64 {
    match r {
        Round::Nearest => 0,
        Round::Zero => 1,
        Round::Up => 2,
        Round::Down => 3,
        Round::Away => 4,
    }
}

/// How the entries of a test matrix are drawn.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Kind {
    /// Exponents in -3..=3, random signs.
    Plain,
    /// Exponents spread over +-60, some zeros.
    Spread,
    /// Exponents anywhere in MPFR's range.
    Huge,
    /// Zeros, NaN and infinities sprinkled in.
    Specials,
    /// Exponents within 2 of the given one (products and sums near
    /// MPFR's exponent limits: overflow, underflow, the smallest and
    /// largest numbers).
    Range(i64),
}

/// One random entry (tag, exponent, limbs) of `q` bits.
fn entry(r: &mut Rng, q: u64, kind: Kind) -> (u8, i64, Vec<u64>) {
    let n = q.div_ceil(64) as usize;
    let neg = r.below(2) == 1;
    let roll = r.below(100);
    let zero = |neg: bool| (if neg { 4u8 } else { 0 }, 0i64, vec![0u64; n]);
    match kind {
        Kind::Spread if roll < 10 => return zero(neg),
        Kind::Specials if roll < 15 => return zero(neg),
        Kind::Specials if roll < 18 => return (3, 0, vec![0; n]),
        Kind::Specials if roll < 21 => return (2 | if neg { 4 } else { 0 }, 0, vec![0; n]),
        _ => {}
    }
    let e = match kind {
        Kind::Plain | Kind::Specials => r.range(-3, 3),
        Kind::Spread => r.range(-60, 60),
        Kind::Huge => r.range(-(1 << 29), 1 << 29),
        Kind::Range(e0) => e0 + r.range(-2, 2),
    };
    let (t, e, m) = common::elem(r, q, e, neg);
    (t, e, m)
}

fn matrix(r: &mut Rng, len: usize, q: u64, kind: Kind) -> FloatArray {
    let (mut tags, mut exps, mut limbs) = (vec![], vec![], vec![]);
    for _ in 0..len {
        let (t, e, m) = entry(r, q, kind);
        tags.push(t);
        exps.push(e);
        limbs.extend(m);
    }
    FloatArray::from_raw(q, tags, exps, limbs).unwrap()
}

/// Makes the terms of each output cancel: odd positions k repeat A's entry
/// at k-1 and negate B's (an exact zero sum), or nearly so (`near`: B's
/// entry at k is -b_(k-1) with its last bits changed).
fn cancel(
    a: &FloatArray,
    m: usize,
    bt: &FloatArray,
    n: usize,
    k: usize,
    near: bool,
) -> (FloatArray, FloatArray) {
    let copy = |x: &FloatArray, lines: usize, neg_b: bool| {
        let (mut tags, mut exps, mut limbs) = (
            x.tags().unwrap().to_vec(),
            x.exps().unwrap().to_vec(),
            x.limbs().unwrap().to_vec(),
        );
        let l = x.limbs_per_element();
        for line in 0..lines {
            for kk in (1..k).step_by(2) {
                let (d, s) = (line * k + kk, line * k + kk - 1);
                tags[d] = tags[s] ^ if neg_b && tags[s] & 3 != 3 { 4 } else { 0 };
                exps[d] = exps[s];
                let src: Vec<u64> = limbs[s * l..(s + 1) * l].to_vec();
                limbs[d * l..(d + 1) * l].copy_from_slice(&src);
                if neg_b && near && tags[d] & 3 == 1 && x.prec() >= 2 {
                    // Flip the last mantissa bit.
                    let low = 64 * l as u64 - x.prec();
                    limbs[d * l] ^= 1u64 << low;
                }
            }
        }
        FloatArray::from_raw(x.prec(), tags, exps, limbs).unwrap()
    };
    (copy(a, m, false), copy(bt, n, true))
}

/// One emulated product: per output (undecided, head, limbs, ternary).
type EmuOut = Vec<(bool, u64, Vec<u64>, i8)>;

#[allow(clippy::too_many_arguments)]
fn emu_run(
    exe: &std::path::Path,
    nf: u32,
    p: u64,
    rnd: Round,
    a: &FloatArray,
    bt: &FloatArray,
    (m, n, k): (usize, usize, usize),
    alpha: &FloatArray,
    bc: Option<(&FloatArray, &FloatArray)>,
    splits: u64,
) -> EmuOut {
    let mut job: Vec<u64> = vec![
        nf as u64,
        p,
        rcode(rnd),
        m as u64,
        n as u64,
        k as u64,
        a.limbs_per_element() as u64,
        bt.limbs_per_element() as u64,
        alpha.limbs_per_element() as u64,
        bc.map_or(1, |x| x.0.limbs_per_element() as u64),
        bc.map_or(1, |x| x.1.limbs_per_element() as u64),
        bc.is_some() as u64,
        splits,
    ];
    let mut arr = |x: &FloatArray| {
        job.extend(
            x.tags()
                .unwrap()
                .iter()
                .zip(x.exps().unwrap())
                .map(|(&t, &e)| ((e as u64) << 8) | t as u64),
        );
        job.extend(x.limbs().unwrap());
    };
    arr(a);
    arr(bt);
    arr(alpha);
    if let Some((be, c)) = bc {
        arr(be);
        arr(c);
    }
    let mut child = Command::new(exe)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    let bytes: Vec<u8> = job.iter().flat_map(|x| x.to_le_bytes()).collect();
    child.stdin.take().unwrap().write_all(&bytes).unwrap();
    let out = child.wait_with_output().unwrap();
    assert!(
        out.status.success(),
        "the emulator failed: {:?}",
        out.status
    );
    let w: Vec<u64> = out
        .stdout
        .chunks(8)
        .map(|c| u64::from_le_bytes(c.try_into().unwrap()))
        .collect();
    let rn = p.div_ceil(64) as usize;
    let per = 3 + rn;
    assert_eq!(w.len(), m * n * per, "emulator answer length");
    w.chunks(per)
        .map(|c| {
            (
                c[0] != 0,
                c[1],
                c[2..2 + rn].to_vec(),
                c[2 + rn] as i64 as i8,
            )
        })
        .collect()
}

fn scalar(r: &mut Rng, q: u64, kind: Kind) -> FloatArray {
    matrix(r, 1, q, kind)
}

/// Emulated products against the CPU engine's gemm over random cases:
/// returns (decided, undecided) counts of the `Plain` cases.
fn emu_cases(exe: &std::path::Path, seed: u64, cases: usize, dot: bool) -> (usize, usize) {
    let precs = [
        1u64, 2, 53, 64, 65, 100, 128, 129, 200, 256, 300, 512, 513, 700, 1000, 1100, 2000, 2048,
    ];
    let ks: &[usize] = if dot {
        &[1, 2, 3, 5, 17, 40, 100, 333]
    } else {
        &[0, 1, 2, 3, 5, 8, 17, 40]
    };
    emu_cases_from(exe, seed, cases, dot, &precs, ks)
}

/// [`emu_cases`] drawing precisions from `precs` and lengths from `ks`.
fn emu_cases_from(
    exe: &std::path::Path,
    seed: u64,
    cases: usize,
    dot: bool,
    precs: &[u64],
    ks: &[usize],
) -> (usize, usize) {
    let mut r = Rng(seed);
    let kinds = [
        Kind::Plain,
        Kind::Plain,
        Kind::Spread,
        Kind::Huge,
        Kind::Specials,
    ];
    let (mut dec, mut und) = (0, 0);
    let mut plain_stats = (0, 0);
    let mut limits = 0;
    for case in 0..cases {
        let p = r.pick(precs);
        let qa = if r.below(3) == 0 { r.pick(precs) } else { p };
        let qb = if r.below(3) == 0 { r.pick(precs) } else { p };
        // dot: 1 x 1 outputs, alpha = 1, no C (the fused blas_dot), longer
        // sums over more blocks.
        let (m, n) = if dot {
            (1, 1)
        } else {
            (r.range(1, 4) as usize, r.range(1, 4) as usize)
        };
        let k = r.pick(ks);
        let kind = r.pick(&kinds);
        // Near the exponent limits: both factors' exponents about e0, so the
        // products' about 2 e0 (the limits are +-2^30).
        let e0 = r.pick(&[
            (1 << 29) - 2,
            (1 << 29) + 1,
            -(1 << 29) + 2,
            -(1 << 29) - 1,
            1 << 29,
        ]);
        let (ka, kb) = if r.below(6) == 0 {
            (Kind::Range(e0), Kind::Range(e0))
        } else {
            (kind, kind)
        };
        let mut a = matrix(&mut r, m * k, qa, ka);
        let mut bt = matrix(&mut r, n * k, qb, kb);
        let cancelling = r.below(4) == 0;
        if cancelling {
            let near = r.below(2) == 0;
            (a, bt) = cancel(&a, m, &bt, n, k, near);
        }
        let qs = if r.below(4) == 0 {
            r.pick(&precs[..precs.len().min(10)])
        } else {
            p.min(512)
        };
        let skind = if r.below(5) == 0 {
            Kind::Specials
        } else {
            Kind::Plain
        };
        // alpha 0, alpha 1 (the dot path's epilogue when without C).
        let ak = if dot { 1 } else { r.below(8) };
        let alpha = if ak < 2 {
            FloatArray::from_f64s(qs, &[ak as f64], Round::Nearest)
                .unwrap()
                .0
        } else {
            scalar(&mut r, qs, skind)
        };
        let with_c = !dot && r.below(3) != 0;
        let beta = scalar(&mut r, qs, skind);
        let c = matrix(&mut r, m * n, qs, kind);
        let bc = with_c.then_some((&beta, &c));
        let ls = alpha.limbs_per_element().max(if with_c {
            beta.limbs_per_element().max(c.limbs_per_element())
        } else {
            0
        });
        let Some(nf) = tier_for(p, k, ls) else {
            continue;
        };
        let rnd = r.pick(&MODES);
        let splits = if dot { r.range(1, 8) } else { r.range(1, 3) } as u64;
        let got = emu_run(exe, nf, p, rnd, &a, &bt, (m, n, k), &alpha, bc, splits);
        let am = Matrix::from_array(a.to_engine(&Engine::Cpu).unwrap(), m, k).unwrap();
        let bm = Matrix::from_array(bt, n, k).unwrap();
        let cm = Matrix::from_array(c.to_engine(&Engine::Cpu).unwrap(), m, n).unwrap();
        let o = Gemm {
            op_a: Op::None,
            op_b: Op::Trans,
            prec: p,
            rnd,
        };
        let (want, wt) = am
            .gemm(&bm, &alpha, with_c.then_some((&beta, &cm)), &o)
            .unwrap();
        let (wtags, wexps, wl) = (
            want.data().tags().unwrap(),
            want.data().exps().unwrap(),
            want.data().limbs().unwrap(),
        );
        let wt = wt.to_vec().unwrap();
        let rn = p.div_ceil(64) as usize;
        for (x, (u, h, l, t)) in got.iter().enumerate() {
            if *u {
                und += 1;
                if ka == Kind::Plain && !cancelling && skind == Kind::Plain {
                    plain_stats.1 += 1;
                }
                continue;
            }
            dec += 1;
            // Results at the exponent limits (overflow, underflow).
            let ex = (*h as i64) >> 8;
            if (*h as u8 & 3 == 2) || (*h as u8 & 3 == 1 && ex.abs() >= (1 << 30) - 1) {
                limits += 1;
            }
            if ka == Kind::Plain && !cancelling && skind == Kind::Plain {
                plain_stats.0 += 1;
            }
            let ctx = format!(
                "case {case} (seed {seed}): p {p} qa {qa} qb {qb} {m}x{n}x{k} {kind:?} cancel {cancelling} \
                 rnd {rnd:?} nf {nf} c {with_c} element {x}"
            );
            let wh = ((wexps[x] as u64) << 8) | wtags[x] as u64;
            let wtag = wtags[x];
            // Heads of specials carry no exponent.
            let gh = if *h as u8 & 3 == 1 { *h } else { *h & 0xff };
            let wh = if wtag & 3 == 1 { wh } else { wh & 0xff };
            assert_eq!(gh, wh, "head: {ctx}");
            assert_eq!(&l[..], &wl[x * rn..(x + 1) * rn], "limbs: {ctx}");
            assert_eq!(*t, wt[x], "ternary: {ctx}");
        }
    }
    eprintln!(
        "emulated: {dec} decided ({limits} at the exponent limits or infinite), {und} undecided; \
         plain {plain_stats:?}"
    );
    plain_stats
}

#[test]
fn blasemu_vs_cpu() {
    let Some(exe) = common::emulator("MPARRAY_BLAS_EMU", "tests/emu/blas/emu.cpp") else {
        return;
    };
    let (dec, und) = emu_cases(&exe, seed(), 400, false);
    // Ordinary inputs are decided on the device.
    assert!(
        und * 50 <= dec,
        "{und} of {} plain elements undecided",
        dec + und
    );
}

/// The fused dot (blas_dot: per-block scales aligned by bl_acc_shr, the
/// zero's sign from counts) emulated against the CPU engine on dot-shaped
/// cases (1 x 1, alpha = 1, no C, K up to 333 in up to 8 blocks); the
/// emulator also checks it against blas_fin's path where both decide.
#[test]
fn blasemu_dot() {
    let Some(exe) = common::emulator("MPARRAY_BLAS_EMU", "tests/emu/blas/emu.cpp") else {
        return;
    };
    let (dec, und) = emu_cases(&exe, seed() ^ 0xd07, 300, true);
    assert!(
        und * 50 <= dec,
        "{und} of {} plain elements undecided",
        dec + und
    );
}

/// The fused dot with running scales (blas_dot's pipe bit 16: tier 18,
/// 8-limb operands) on the host: operands of 449-512 bits, lengths that
/// give a warp several rounds (a block's 4 warps take rounds of 32
/// positions 128 apart) and blocks 1 ... 7, every kind of the other
/// cases (spread and huge exponents raise the scales between rounds). The
/// emulation checks its conversions against the reference, its answer
/// against the fused dot's where both decide, and the test against the
/// CPU engine.
#[test]
fn blasemu_dot_running() {
    let Some(exe) = common::emulator("MPARRAY_BLAS_EMU", "tests/emu/blas/emu.cpp") else {
        return;
    };
    let (dec, und) = emu_cases_from(
        &exe,
        seed() ^ 0xd072,
        160,
        true,
        &[449, 450, 480, 500, 511, 512],
        &[1, 31, 33, 129, 200, 333, 700, 1500],
    );
    assert!(
        dec > 0 && und * 50 <= dec,
        "{und} of {} plain elements undecided",
        dec + und
    );
}

// ---- complex operations through the real kernels (emulated) -------------

/// `x` (row-major `rows x cols`) transposed.
fn transpose(x: &FloatArray, rows: usize, cols: usize) -> FloatArray {
    let (tags, exps, limbs) = (x.tags().unwrap(), x.exps().unwrap(), x.limbs().unwrap());
    let l = x.limbs_per_element();
    let (mut t, mut e, mut m) = (vec![], vec![], vec![]);
    for j in 0..cols {
        for i in 0..rows {
            let s = i * cols + j;
            t.push(tags[s]);
            e.push(exps[s]);
            m.extend_from_slice(&limbs[s * l..(s + 1) * l]);
        }
    }
    FloatArray::from_raw(x.prec(), t, e, m).unwrap()
}

fn cplx(re: FloatArray, im: FloatArray) -> ComplexArray {
    ComplexArray::new(re, im).unwrap()
}

/// One emulated complex product: per output (undecided bits, re (head,
/// limbs, ternary), im (head, limbs, ternary)).
type CEmuOut = Vec<(u8, (u64, Vec<u64>, i8), (u64, Vec<u64>, i8))>;

/// The complex job of tests/emu/blas/emu.cpp: op(A)'s `m` lines and
/// op(B)'s `n` lines of `k` positions (each conjugated or not), alpha
/// (None: 1; im None: real), beta and C (beta's im None: real).
#[allow(clippy::too_many_arguments)]
fn emu_crun(
    exe: &std::path::Path,
    nf: u32,
    (pr, pi): (u64, u64),
    (rr, ri): (Round, Round),
    (a, conj_a): (&ComplexArray, bool),
    (b, conj_b): (&ComplexArray, bool),
    (m, n, k): (usize, usize, usize),
    alpha: Option<(&FloatArray, Option<&FloatArray>)>,
    bc: Option<((&FloatArray, Option<&FloatArray>), &ComplexArray)>,
    splits: u64,
    tri: u64,
) -> CEmuOut {
    let l = |x: &FloatArray| x.limbs_per_element() as u64;
    let (are, aim) = (a.re().unwrap(), a.im().unwrap());
    let (bre, bim) = (b.re().unwrap(), b.im().unwrap());
    let one = FloatArray::from_f64s(64, &[1.0], Round::Nearest).unwrap().0;
    let (alr, ali) = alpha.unwrap_or((&one, None));
    let (ber, bei, cr, ci) = match bc {
        Some(((x, y), c)) => (Some(x), y, Some(c.re().unwrap()), Some(c.im().unwrap())),
        None => (None, None, None, None),
    };
    let mut job: Vec<u64> = vec![
        nf as u64 | 1 << 32,
        pr,
        pi,
        rcode(rr),
        rcode(ri),
        m as u64,
        n as u64,
        k as u64,
        l(&are),
        l(&aim),
        l(&bre),
        l(&bim),
        alpha.is_none() as u64,
        ali.is_some() as u64,
        l(alr),
        ali.map_or(1, l),
        bc.is_some() as u64,
        bei.is_some() as u64,
        ber.map_or(1, l),
        bei.map_or(1, l),
        cr.as_ref().map_or(1, l),
        ci.as_ref().map_or(1, l),
        splits,
        tri,
        conj_a as u64,
        conj_b as u64,
    ];
    let mut arr = |x: &FloatArray| {
        job.extend(
            x.tags()
                .unwrap()
                .iter()
                .zip(x.exps().unwrap())
                .map(|(&t, &e)| ((e as u64) << 8) | t as u64),
        );
        job.extend(x.limbs().unwrap());
    };
    for x in [&are, &aim, &bre, &bim] {
        arr(x);
    }
    if alpha.is_some() {
        arr(alr);
        if let Some(y) = ali {
            arr(y);
        }
    }
    if bc.is_some() {
        arr(ber.unwrap());
        if let Some(y) = bei {
            arr(y);
        }
        arr(cr.as_ref().unwrap());
        arr(ci.as_ref().unwrap());
    }
    let mut child = Command::new(exe)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    let bytes: Vec<u8> = job.iter().flat_map(|x| x.to_le_bytes()).collect();
    child.stdin.take().unwrap().write_all(&bytes).unwrap();
    let out = child.wait_with_output().unwrap();
    assert!(
        out.status.success(),
        "the emulator failed: {:?}",
        out.status
    );
    let w: Vec<u64> = out
        .stdout
        .chunks(8)
        .map(|c| u64::from_le_bytes(c.try_into().unwrap()))
        .collect();
    let (rnr, rni) = (pr.div_ceil(64) as usize, pi.div_ceil(64) as usize);
    let per = 5 + rnr + rni;
    assert_eq!(w.len(), m * n * per, "emulator answer length");
    w.chunks(per)
        .map(|c| {
            let re = (c[1], c[2..2 + rnr].to_vec(), c[2 + rnr] as i64 as i8);
            let o = 3 + rnr;
            let im = (
                c[o],
                c[o + 1..o + 1 + rni].to_vec(),
                c[o + 1 + rni] as i64 as i8,
            );
            (c[0] as u8, re, im)
        })
        .collect()
}

/// Checks the decided parts of an emulated complex product against the CPU
/// engine's result `want` (row-major) and ternaries; returns (decided,
/// undecided) parts.
fn check_cparts(
    got: &CEmuOut,
    want: &ComplexArray,
    wt: &mparray::complex::ComplexTernary,
    (pr, pi): (u64, u64),
    ctx: &str,
) -> (usize, usize) {
    let (mut dec, mut und) = (0, 0);
    let parts = [
        (want.re().unwrap(), wt.re.to_vec().unwrap(), pr),
        (want.im().unwrap(), wt.im.to_vec().unwrap(), pi),
    ];
    for (x, (u, gre, gim)) in got.iter().enumerate() {
        for (q, (h, l, t)) in [gre, gim].into_iter().enumerate() {
            if u >> q & 1 == 1 {
                und += 1;
                continue;
            }
            dec += 1;
            let (w, wtv, p) = &parts[q];
            let rn = p.div_ceil(64) as usize;
            let (wtag, wexp) = (w.tags().unwrap()[x], w.exps().unwrap()[x]);
            let wh = ((wexp as u64) << 8) | wtag as u64;
            let gh = if *h as u8 & 3 == 1 { *h } else { *h & 0xff };
            let wh = if wtag & 3 == 1 { wh } else { wh & 0xff };
            assert_eq!(gh, wh, "head: {ctx} element {x} part {q}");
            assert_eq!(
                &l[..],
                &w.limbs().unwrap()[x * rn..(x + 1) * rn],
                "limbs: {ctx} element {x} part {q}"
            );
            assert_eq!(*t, wtv[x], "ternary: {ctx} element {x} part {q}");
        }
    }
    (dec, und)
}

/// Emulated complex gemm (every conjugation, complex or absent alpha and
/// beta), herk (both triangles) and dotu/dotc against the CPU engine;
/// returns (decided, undecided) parts of the plain cases.
fn emu_ccases(exe: &std::path::Path, seed: u64, cases: usize) -> (usize, usize) {
    let mut r = Rng(seed);
    let precs = [
        1u64, 2, 53, 64, 65, 128, 129, 256, 512, 513, 1000, 1100, 2000,
    ];
    let kinds = [
        Kind::Plain,
        Kind::Plain,
        Kind::Spread,
        Kind::Huge,
        Kind::Specials,
    ];
    let mut plain = (0, 0);
    let mut all = (0, 0);
    for case in 0..cases {
        let pr = r.pick(&precs);
        let pi = if r.below(3) == 0 { r.pick(&precs) } else { pr };
        let qa = if r.below(3) == 0 { r.pick(&precs) } else { pr };
        let qai = if r.below(4) == 0 { r.pick(&precs) } else { qa };
        let qb = if r.below(3) == 0 { r.pick(&precs) } else { pr };
        let qbi = if r.below(4) == 0 { r.pick(&precs) } else { qb };
        let (m, n) = (r.range(1, 4) as usize, r.range(1, 4) as usize);
        let k = r.pick(&[0usize, 1, 2, 3, 5, 8, 17]);
        let kind = r.pick(&kinds);
        let cancelling = r.below(4) == 0;
        let mode = r.pick(&["gemm", "gemm", "herk", "dot"]);
        let (m, n) = match mode {
            "herk" => (m, m),
            "dot" => (1, 1),
            _ => (m, n),
        };
        let mut ar = matrix(&mut r, m * k, qa, kind);
        let mut ai = matrix(&mut r, m * k, qai, kind);
        let mut br = matrix(&mut r, n * k, qb, kind);
        let mut bi = matrix(&mut r, n * k, qbi, kind);
        if cancelling {
            let near = r.below(2) == 0;
            (ar, br) = cancel(&ar, m, &br, n, k, near);
            (ai, bi) = cancel(&ai, m, &bi, n, k, near);
        }
        let (rr, ri) = (r.pick(&MODES), r.pick(&MODES));
        let rnd = CRound::new(rr, ri);
        let qs = if r.below(4) == 0 {
            r.pick(&precs[..9])
        } else {
            pr.min(512)
        };
        let skind = if r.below(6) == 0 {
            Kind::Specials
        } else {
            Kind::Plain
        };
        let zero = || FloatArray::from_f64s(qs, &[0.0], Round::Nearest).unwrap().0;
        let sc = |r: &mut Rng| {
            if r.below(8) == 0 {
                zero()
            } else {
                scalar(r, qs, skind)
            }
        };
        let (alr, ali, ber, bei) = (sc(&mut r), sc(&mut r), sc(&mut r), sc(&mut r));
        let c = cplx(
            matrix(&mut r, m * n, qs, kind),
            matrix(&mut r, m * n, qs, kind),
        );
        let with_c = r.below(3) != 0;
        let splits = r.range(1, 3) as u64;
        let plain_case = kind == Kind::Plain && !cancelling && skind == Kind::Plain;
        let ctx = format!(
            "case {case} (seed {seed}): {mode} p {pr}/{pi} q {qa}/{qai} {qb}/{qbi} {m}x{n}x{k} \
             {kind:?} cancel {cancelling} rnd {rnd:?} c {with_c} splits {splits}"
        );
        let (got, want, wt, (pr, pi)) = match mode {
            "dot" => {
                let conj = r.below(2) == 0;
                let (x, y) = (cplx(ar, ai), cplx(br, bi));
                let (want, wt) = if conj {
                    x.dotc(&y, pr, pi, rnd).unwrap()
                } else {
                    x.dotu(&y, pr, pi, rnd).unwrap()
                };
                let Some(nf) = tier_for(pr.max(pi), 2 * k, 1) else {
                    continue;
                };
                let got = emu_crun(
                    exe,
                    nf,
                    (pr, pi),
                    (rr, ri),
                    (&x, conj),
                    (&y, false),
                    (1, 1, k),
                    None,
                    None,
                    splits,
                    0,
                );
                (got, want, wt, (pr, pi))
            }
            "herk" => {
                let a = cplx(ar, ai);
                let upper = r.below(2) == 0;
                let am = Matrix::from_array(a.to_engine(&Engine::Cpu).unwrap(), m, k).unwrap();
                let cm = Matrix::from_array(c.to_engine(&Engine::Cpu).unwrap(), m, m).unwrap();
                let o = Herk {
                    uplo: if upper { Uplo::Upper } else { Uplo::Lower },
                    trans: Op::None,
                    prec_re: pr,
                    prec_im: pi,
                    rnd,
                };
                let (want, wt) = am.herk(&alr, with_c.then_some((&ber, &cm)), &o).unwrap();
                let ls = [&alr, &ber]
                    .iter()
                    .map(|x| x.limbs_per_element())
                    .chain([
                        c.re().unwrap().limbs_per_element(),
                        c.im().unwrap().limbs_per_element(),
                    ])
                    .max()
                    .unwrap();
                let Some(nf) = tier_for(pr.max(pi), 2 * k, ls) else {
                    continue;
                };
                let got = emu_crun(
                    exe,
                    nf,
                    (pr, pi),
                    (rr, ri),
                    (&a, false),
                    (&a, true),
                    (m, m, k),
                    Some((&alr, None)),
                    with_c.then_some(((&ber, None), &c)),
                    splits,
                    if upper { 1 } else { 2 },
                );
                (got, want.into_data(), wt, (pr, pi))
            }
            _ => {
                let (conj_a, conj_b) = (r.below(2) == 0, r.below(2) == 0);
                let cp = |x: &FloatArray| x.to_engine(&Engine::Cpu).unwrap();
                let a = cplx(cp(&ar), cp(&ai));
                let b = cplx(br, bi);
                let alpha = cplx(cp(&alr), cp(&ali));
                let beta = cplx(cp(&ber), cp(&bei));
                // op(A): A (m x k) or A^H of the stored transpose; op(B): B^T
                // or B^H of the stored lines (n x k).
                let am = if conj_a {
                    let at = cplx(transpose(&ar, m, k), transpose(&ai, m, k));
                    Matrix::from_array(at, k, m).unwrap()
                } else {
                    Matrix::from_array(a.to_engine(&Engine::Cpu).unwrap(), m, k).unwrap()
                };
                let bm = Matrix::from_array(b.to_engine(&Engine::Cpu).unwrap(), n, k).unwrap();
                let cm = Matrix::from_array(c.to_engine(&Engine::Cpu).unwrap(), m, n).unwrap();
                let o = CGemm {
                    op_a: if conj_a { Op::ConjTrans } else { Op::None },
                    op_b: if conj_b { Op::ConjTrans } else { Op::Trans },
                    prec_re: pr,
                    prec_im: pi,
                    rnd,
                };
                let (want, wt) = am
                    .gemm(&bm, &alpha, with_c.then_some((&beta, &cm)), &o)
                    .unwrap();
                let ls = [&alr, &ali, &ber, &bei]
                    .iter()
                    .map(|x| x.limbs_per_element())
                    .chain([
                        c.re().unwrap().limbs_per_element(),
                        c.im().unwrap().limbs_per_element(),
                    ])
                    .max()
                    .unwrap();
                let Some(nf) = tier_for(pr.max(pi), 2 * k, ls) else {
                    continue;
                };
                let got = emu_crun(
                    exe,
                    nf,
                    (pr, pi),
                    (rr, ri),
                    (&a, conj_a),
                    (&b, conj_b),
                    (m, n, k),
                    Some((&alr, Some(&ali))),
                    with_c.then_some(((&ber, Some(&bei)), &c)),
                    splits,
                    0,
                );
                (got, want.into_data(), wt, (pr, pi))
            }
        };
        let (d, u) = check_cparts(&got, &want, &wt, (pr, pi), &ctx);
        all.0 += d;
        all.1 += u;
        if plain_case {
            plain.0 += d;
            plain.1 += u;
        }
    }
    eprintln!(
        "emulated complex: {} parts decided, {} undecided; plain {plain:?}",
        all.0, all.1
    );
    plain
}

#[test]
fn blasemu_complex() {
    let Some(exe) = common::emulator("MPARRAY_BLAS_EMU", "tests/emu/blas/emu.cpp") else {
        return;
    };
    let (dec, und) = emu_ccases(&exe, seed(), 300);
    assert!(dec > 0);
    // Ordinary inputs are decided on the device.
    assert!(
        und * 50 <= dec,
        "{und} of {} plain parts undecided",
        dec + und
    );
}

/// nrm2's host step (the square root of a device accumulator's interval)
/// on synthetic accumulators of known sums of squares: exact sums (square
/// and non-square), inexact counts (decided or not), split partials, odd
/// scales, against the CPU engine's nrm2 of vectors with those sums.
#[test]
fn nrm2_host_step() {
    use mparray::linalg::cuda_complex::sqrt_acc_raw;
    let s = seed();
    let mut r = Rng(s);
    let nf = 18u32;
    let nw = (nf + 2) as usize;
    let words = |v: &malachite_nz::natural::Natural| {
        let mut w: Vec<u32> = v
            .to_limbs_asc()
            .iter()
            .flat_map(|&l| [l as u32, (l >> 32) as u32])
            .collect();
        w.resize(nw, 0);
        w
    };
    let mut decided = 0;
    for case in 0..300 {
        let (a, b) = (r.below(1 << 40) + 1, r.below(1 << 40));
        let (a, b) = if case % 7 == 0 {
            (3 * a, 4 * a)
        } else {
            (a, b)
        };
        let odd = r.below(2) == 1;
        let cnt = if r.below(2) == 0 {
            0
        } else {
            r.below(5) as u32 + 1
        };
        let splits = r.range(1, 3) as usize;
        let p = r.pick(&[1u64, 2, 10, 20, 30, 53, 64]);
        let rnd = r.pick(&MODES);
        // The vector: [a, b] (sum a^2 + b^2 = S); with an odd unit the value
        // is 2 S, the sum of squares of [a + b, a - b].
        let sum = malachite_nz::natural::Natural::from(a) * malachite_nz::natural::Natural::from(a)
            + malachite_nz::natural::Natural::from(b) * malachite_nz::natural::Natural::from(b);
        let vals: Vec<f64> = if odd {
            vec![(a + b) as f64, a as f64 - b as f64]
        } else {
            vec![a as f64, b as f64]
        };
        // Exactly representable (< 2^53).
        let x = FloatArray::from_f64s(64, &vals, Round::Nearest).unwrap().0;
        // Scales: unit 2^(ea + eb - 32 nf - 32) = 1 (2 when odd).
        let e = (32 * nf as i64 + 32) / 2;
        let enc = |e: i64| (e + (1i64 << 40)) as u64;
        let sc = vec![enc(e), enc(e + odd as i64), 0, 0, 0, 0, 0];
        // The sum split into partials (the first holds it all), counts
        // spread.
        let mut acc = vec![0u32; splits * (nw + 1)];
        acc[..nw].copy_from_slice(&words(&sum));
        acc[splits * nw] = cnt;
        let got = sqrt_acc_raw(nf, &sc, &acc, splits, p, rnd);
        if cnt == 0 {
            assert!(got.is_some(), "case {case} (seed {s}): exact sums decide");
        }
        let Some((tag, exp, m, t)) = got else {
            continue;
        };
        decided += 1;
        let (w, wt) = x.nrm2(p, rnd).unwrap();
        let ctx = format!("case {case} (seed {s}): a {a} b {b} odd {odd} cnt {cnt} p {p} {rnd:?}");
        assert_eq!(tag, w.tags().unwrap()[0], "tag: {ctx}");
        assert_eq!(exp, w.exps().unwrap()[0], "exponent: {ctx}");
        assert_eq!(&m[..], w.limbs().unwrap(), "limbs: {ctx}");
        assert_eq!(t, wt.to_vec().unwrap()[0], "ternary: {ctx}");
    }
    assert!(decided > 150, "{decided} decided");
}

// ---- on a CUDA device ----------------------------------------------------

fn cuda() -> Engine {
    Engine::cuda().expect("a CUDA device")
}

fn same(
    what: &str,
    got: &FloatArray,
    gt: &mparray::TernaryArray,
    want: &FloatArray,
    wt: &mparray::TernaryArray,
) {
    let g = got.to_engine(&Engine::Cpu).unwrap();
    let w = want.to_engine(&Engine::Cpu).unwrap();
    let (gt, wt) = (gt.to_vec().unwrap(), wt.to_vec().unwrap());
    assert_eq!(g.len(), w.len(), "{what}: lengths");
    for i in 0..g.len() {
        let (a, b) = (g.get(i).unwrap(), w.get(i).unwrap());
        let ok = a.class == b.class
            && (a.class == mparray::float::Class::NaN || a.neg == b.neg)
            && (a.class != mparray::float::Class::Normal || (a.exp == b.exp && a.limbs == b.limbs));
        assert!(
            ok,
            "{what}: element {i}: {:?} vs {:?}",
            g.to_float(i),
            w.to_float(i)
        );
        assert_eq!(gt[i], wt[i], "{what}: ternary of element {i}");
    }
}

/// gemm, gemv, syrk and dot on the device against the CPU engine over
/// random cases; returns the elements decided on the device and on the host
/// for the plain cases.
fn gpu_cases(seed: u64, cases: usize) {
    let dev = cuda();
    let mut r = Rng(seed);
    let precs = [
        1u64, 53, 64, 65, 128, 129, 200, 256, 300, 512, 513, 700, 1000, 1030, 2000, 2048, 2100,
    ];
    let kinds = [
        Kind::Plain,
        Kind::Plain,
        Kind::Spread,
        Kind::Huge,
        Kind::Specials,
    ];
    let shapes = [
        (0usize, 3usize, 4usize),
        (3, 0, 2),
        (2, 3, 0),
        (1, 1, 1),
        (1, 1, 37),
        (5, 7, 3),
        (17, 16, 9),
        (33, 20, 41),
        (40, 45, 130),
        (16, 16, 8),
    ];
    for case in 0..cases {
        let p = r.pick(&precs);
        let q = if r.below(3) == 0 { r.pick(&precs) } else { p };
        let (m, n, k) = r.pick(&shapes);
        let kind = r.pick(&kinds);
        let cancelling = r.below(4) == 0;
        let (op_a, op_b) = if cancelling {
            (Op::None, Op::Trans)
        } else {
            (
                r.pick(&[Op::None, Op::Trans]),
                r.pick(&[Op::None, Op::Trans]),
            )
        };
        let mut a = matrix(&mut r, m * k, q, kind);
        let mut bt = matrix(&mut r, n * k, q, kind);
        if cancelling {
            let near = r.below(2) == 0;
            (a, bt) = cancel(&a, m, &bt, n, k, near);
        }
        let rnd = r.pick(&MODES);
        let qs = p.min(512);
        let ak = if r.below(6) == 0 {
            Kind::Specials
        } else {
            Kind::Plain
        };
        let alpha = scalar(&mut r, qs, ak);
        let beta = scalar(&mut r, qs, Kind::Plain);
        let c = matrix(&mut r, m * n, qs, kind);
        let with_c = r.below(3) != 0;
        // Stored shapes: A m x k (k x m for Trans), B k x n (n x k for Trans).
        let am = if op_a == Op::None {
            Matrix::from_array(a, m, k)
        } else {
            Matrix::from_array(a, k, m)
        }
        .unwrap();
        let bm = if op_b == Op::Trans {
            Matrix::from_array(bt, n, k)
        } else {
            Matrix::from_array(bt, k, n)
        }
        .unwrap();
        let cm = Matrix::from_array(c, m, n).unwrap();
        let o = Gemm {
            op_a,
            op_b,
            prec: p,
            rnd,
        };
        let ctx = format!(
            "case {case} seed {seed}: p {p} q {q} {m}x{n}x{k} {kind:?} {op_a:?}/{op_b:?} cancel {cancelling} {rnd:?} c {with_c}"
        );
        let (want, wt) = am
            .gemm(&bm, &alpha, with_c.then_some((&beta, &cm)), &o)
            .unwrap();
        let on = |x: &FloatArray| x.to_engine(&dev).unwrap();
        let onm = |x: &Matrix<FloatArray>| x.to_engine(&dev).unwrap();
        let (ad, bd, cd, ald, bed) = (onm(&am), onm(&bm), onm(&cm), on(&alpha), on(&beta));
        let (got, gt) = ad
            .gemm(&bd, &ald, with_c.then_some((&bed, &cd)), &o)
            .unwrap();
        same(&format!("gemm {ctx}"), got.data(), &gt, want.data(), &wt);
        // gemv: op(A) times B's first column.
        {
            let x = matrix(&mut r, k, q, kind);
            let y = matrix(&mut r, m, qs, kind);
            let og = Gemv {
                op: op_a,
                prec: p,
                rnd,
            };
            let (want, wt) = am
                .gemv(&alpha, &x, with_c.then_some((&beta, &y)), &og)
                .unwrap();
            let (got, gt) = ad
                .gemv(&ald, &on(&x), with_c.then_some((&bed, &on(&y))), &og)
                .unwrap();
            same(&format!("gemv {ctx}"), &got, &gt, &want, &wt);
            // dot of A's first line and x.
            if m > 0 {
                let row = matrix(&mut r, k, q, kind);
                let (want, wt) = row.dot(&x, p, rnd).unwrap();
                let (got, gt) = on(&row).dot(&on(&x), p, rnd).unwrap();
                same(&format!("dot {ctx}"), &got, &gt, &want, &wt);
            }
        }
        // syrk on A (m x k), C m x m.
        let uplo = r.pick(&[Uplo::Upper, Uplo::Lower]);
        let trans = r.pick(&[Op::None, Op::Trans]);
        let sa = Matrix::from_array(matrix(&mut r, m * k, q, kind), m, k).unwrap();
        let nn = if trans == Op::None { m } else { k };
        let sc = Matrix::from_array(matrix(&mut r, nn * nn, qs, kind), nn, nn).unwrap();
        let os = Syrk {
            uplo,
            trans,
            prec: p,
            rnd,
        };
        let (want, wt) = sa
            .syrk(&alpha, with_c.then_some((&beta, &sc)), &os)
            .unwrap();
        let (got, gt) = onm(&sa)
            .syrk(&ald, with_c.then_some((&bed, &onm(&sc))), &os)
            .unwrap();
        same(
            &format!("syrk {uplo:?} {trans:?} {ctx}"),
            got.data(),
            &gt,
            want.data(),
            &wt,
        );
    }
}

#[test]
#[ignore = "needs a CUDA device"]
fn blasgpu_vs_cpu() {
    let _serial = serial();
    let s = seed();
    let (d0, h0) = mparray::linalg::cuda::stats();
    gpu_cases(s, 150);
    let (d1, h1) = mparray::linalg::cuda::stats();
    eprintln!("device decided {} elements, host {}", d1 - d0, h1 - h0);
    assert!(d1 > d0);
}

/// `x`, `y` with the second half mirroring the first: position `K-1-k`
/// holds `x_k` and `-y_k` (`near`: with y's last mantissa bit flipped), so
/// the sum cancels exactly (or nearly) across distant positions, i.e.
/// across the fused dot's blocks.
fn mirror_cancel(x: &FloatArray, y: &FloatArray, near: bool) -> (FloatArray, FloatArray) {
    let k = x.len();
    let copy = |v: &FloatArray, neg: bool| {
        let (mut tags, mut exps, mut limbs) = (
            v.tags().unwrap().to_vec(),
            v.exps().unwrap().to_vec(),
            v.limbs().unwrap().to_vec(),
        );
        let l = v.limbs_per_element();
        for s in 0..k / 2 {
            let d = k - 1 - s;
            tags[d] = tags[s] ^ if neg && tags[s] & 3 != 3 { 4 } else { 0 };
            exps[d] = exps[s];
            let src: Vec<u64> = limbs[s * l..(s + 1) * l].to_vec();
            limbs[d * l..(d + 1) * l].copy_from_slice(&src);
            if neg && near && tags[d] & 3 == 1 && v.prec() >= 2 {
                let low = 64 * l as u64 - v.prec();
                limbs[d * l] ^= 1u64 << low;
            }
        }
        FloatArray::from_raw(v.prec(), tags, exps, limbs).unwrap()
    };
    (copy(x, false), copy(y, true))
}

/// The fused dot (blas_dot) on long vectors against the CPU engine: many
/// blocks with their own scales (spread and huge exponents), exact and near
/// cancellation across blocks, zeros, NaN and infinities, every mode,
/// precisions across the tiers; plain inputs are decided on the device.
#[test]
#[ignore = "needs a CUDA device"]
fn blasgpu_dot_long_vs_cpu() {
    let _serial = serial();
    let dev = cuda();
    let mut r = Rng(seed() ^ 0xd07);
    let (d0, h0) = mparray::linalg::cuda::stats();
    for case in 0..40 {
        let p = r.pick(&[1u64, 53, 64, 200, 512, 1000, 2048]);
        let q = if r.below(3) == 0 {
            r.pick(&[64u64, 512, 1100])
        } else {
            p.max(2)
        };
        let k = r.pick(&[129usize, 1000, 4099, 70001]);
        let kind = r.pick(&[
            Kind::Plain,
            Kind::Plain,
            Kind::Spread,
            Kind::Specials,
            Kind::Huge,
        ]);
        let (mut x, mut y) = (matrix(&mut r, k, q, kind), matrix(&mut r, k, q, kind));
        let mirror = r.below(3);
        if mirror > 0 {
            (x, y) = mirror_cancel(&x, &y, mirror == 2);
        }
        let rnd = r.pick(&MODES);
        let (want, wt) = x.dot(&y, p, rnd).unwrap();
        let (s0, _) = mparray::linalg::cuda::stats();
        let (got, gt) = x
            .to_engine(&dev)
            .unwrap()
            .dot(&y.to_engine(&dev).unwrap(), p, rnd)
            .unwrap();
        let (s1, _) = mparray::linalg::cuda::stats();
        let ctx = format!("dot case {case}: p {p} q {q} k {k} {kind:?} mirror {mirror} {rnd:?}");
        same(&ctx, &got, &gt, &want, &wt);
        eprintln!("{ctx}: same bits ({} on the device)", s1 - s0);
        if kind == Kind::Plain && mirror == 0 && p > 1 {
            assert_eq!(s1 - s0, 1, "not decided on the device: {ctx}");
        }
    }
    let (d1, h1) = mparray::linalg::cuda::stats();
    eprintln!("device decided {} dots, host {}", d1 - d0, h1 - h0);
}

/// `dot` of 512-bit operands (8 limbs: blas_dot's tier-18 paths, see
/// notes/blas-cuda.md) against the CPU engine at lengths around a warp's
/// round (32 positions), a block's chunk (128) and a warp's rounds (4 x 32
/// apart), one position up to 2^18 + 3; output precisions of every served
/// tier, every mode, spread and huge exponents, specials, exact and near
/// cancellation; each case by every product path (`set_dot_path`: heads
/// pass, running scales, tensor cores). Plain inputs are decided on the
/// device.
#[test]
#[ignore = "needs a CUDA device"]
fn blasgpu_dot512_vs_cpu() {
    use mparray::linalg::cuda::{DotPath, set_dot_path};
    let _serial = serial();
    let dev = cuda();
    // The process's default path again when the test ends (or fails).
    struct Reset;
    impl Drop for Reset {
        fn drop(&mut self) {
            set_dot_path(DotPath::Default);
        }
    }
    let _reset = Reset;
    let mut r = Rng(seed() ^ 0x512d);
    let lens = [
        1usize, 2, 31, 32, 33, 127, 128, 129, 255, 256, 383, 384, 385, 511, 512, 513, 1023, 1025,
        4096, 4113, 70001, 262147,
    ];
    for (case, &k) in lens.iter().enumerate() {
        let p = r.pick(&[53u64, 200, 512, 512, 512]);
        let kind = if k > 4200 {
            r.pick(&[Kind::Plain, Kind::Plain, Kind::Spread])
        } else {
            r.pick(&[
                Kind::Plain,
                Kind::Plain,
                Kind::Spread,
                Kind::Specials,
                Kind::Huge,
            ])
        };
        let (mut x, mut y) = (matrix(&mut r, k, 512, kind), matrix(&mut r, k, 512, kind));
        let mirror = if k > 4200 { 0 } else { r.below(3) };
        if mirror > 0 {
            (x, y) = mirror_cancel(&x, &y, mirror == 2);
        }
        let rnd = r.pick(&MODES);
        let (want, wt) = x.dot(&y, p, rnd).unwrap();
        let (xd, yd) = (x.to_engine(&dev).unwrap(), y.to_engine(&dev).unwrap());
        for path in [DotPath::HeadsPass, DotPath::Running, DotPath::TensorCores] {
            set_dot_path(path);
            let (s0, _) = mparray::linalg::cuda::stats();
            let (got, gt) = xd.dot(&yd, p, rnd).unwrap();
            let (s1, _) = mparray::linalg::cuda::stats();
            let ctx = format!(
                "dot512 case {case} ({path:?}): p {p} k {k} {kind:?} mirror {mirror} {rnd:?}"
            );
            same(&ctx, &got, &gt, &want, &wt);
            if kind == Kind::Plain && mirror == 0 {
                assert_eq!(s1 - s0, 1, "not decided on the device: {ctx}");
            }
        }
    }
}

/// Ordinary random inputs (a 64 x 48 x 100 product at 512 bits, every
/// mode) are decided on the device.
#[test]
#[ignore = "needs a CUDA device"]
fn blasgpu_random_decided_on_device() {
    let _serial = serial();
    let dev = cuda();
    let mut r = Rng(seed());
    for rnd in MODES {
        let a = Matrix::from_array(matrix(&mut r, 64 * 100, 512, Kind::Plain), 64, 100).unwrap();
        let b = Matrix::from_array(matrix(&mut r, 100 * 48, 512, Kind::Plain), 100, 48).unwrap();
        let al = scalar(&mut r, 512, Kind::Plain);
        let o = Gemm {
            prec: 512,
            rnd,
            ..Gemm::default()
        };
        let (want, wt) = a.gemm(&b, &al, None, &o).unwrap();
        let (d0, h0) = mparray::linalg::cuda::stats();
        let (got, gt) = a
            .to_engine(&dev)
            .unwrap()
            .gemm(
                &b.to_engine(&dev).unwrap(),
                &al.to_engine(&dev).unwrap(),
                None,
                &o,
            )
            .unwrap();
        let (d1, h1) = mparray::linalg::cuda::stats();
        same("random gemm", got.data(), &gt, want.data(), &wt);
        assert_eq!(d1 - d0, 64 * 48, "{} host elements", h1 - h0);
    }
}

/// gemv's block per row (blas_gvx, blas_gemv) against the CPU engine:
/// rows of many lengths (one warp round and less, several rounds, not
/// multiples of 32, above 2^16 positions: the general path), A wider than
/// the staging (read from global memory), every mode, spread and huge
/// exponents, specials, exact and near cancellation along the rows, with
/// and without y; plain rows at 512 bits are decided on the device.
#[test]
#[ignore = "needs a CUDA device"]
fn blasgpu_gemv_rows_vs_cpu() {
    let _serial = serial();
    let dev = cuda();
    let s = seed();
    let mut r = Rng(s ^ 0x6e);
    let shapes = [
        (1usize, 1usize),
        (3, 31),
        (7, 64),
        (5, 65),
        (40, 300),
        (130, 97),
        (9, 1000),
        (2, 65537),
    ];
    let precs = [53u64, 200, 512, 513, 640, 1000];
    let kinds = [
        Kind::Plain,
        Kind::Plain,
        Kind::Spread,
        Kind::Huge,
        Kind::Specials,
    ];
    for case in 0..40 {
        let (m, k) = r.pick(&shapes);
        let p = r.pick(&precs);
        let q = if r.below(3) == 0 {
            r.pick(&[64u64, 512, 1300, 2000])
        } else {
            p
        };
        let kind = r.pick(&kinds);
        let mut a = matrix(&mut r, m * k, q, kind);
        let mut x = matrix(&mut r, k, q, kind);
        let cancelling = r.below(4) == 0;
        if cancelling {
            let near = r.below(2) == 0;
            // x as op(B)'s one column: A's rows cancel against it.
            let (a2, x2) = cancel(&a, m, &x, 1, k, near);
            (a, x) = (a2, x2);
        }
        let qs = p.min(512);
        let ak = if r.below(6) == 0 {
            Kind::Specials
        } else {
            Kind::Plain
        };
        let alpha = scalar(&mut r, qs, ak);
        let beta = scalar(&mut r, qs, Kind::Plain);
        let y = matrix(&mut r, m, qs, kind);
        let with_c = r.below(3) != 0;
        let rnd = r.pick(&MODES);
        let am = Matrix::from_array(a, m, k).unwrap();
        let og = Gemv {
            op: Op::None,
            prec: p,
            rnd,
        };
        let ctx = format!(
            "case {case} seed {s}: p {p} q {q} {m}x{k} {kind:?} cancel {cancelling} {rnd:?} c {with_c}"
        );
        let (want, wt) = am
            .gemv(&alpha, &x, with_c.then_some((&beta, &y)), &og)
            .unwrap();
        let on = |v: &FloatArray| v.to_engine(&dev).unwrap();
        let (d0, h0) = mparray::linalg::cuda::stats();
        let (got, gt) = am
            .to_engine(&dev)
            .unwrap()
            .gemv(
                &on(&alpha),
                &on(&x),
                with_c.then_some((&on(&beta), &on(&y))),
                &og,
            )
            .unwrap();
        let (d1, h1) = mparray::linalg::cuda::stats();
        same(&format!("gemv rows {ctx}"), &got, &gt, &want, &wt);
        let plain = kind == Kind::Plain && !cancelling && p == 512 && q == 512;
        let plain = plain && alpha.tags().unwrap()[0] & 3 == 1;
        if plain {
            assert_eq!(
                (d1 - d0, h1 - h0),
                (m as u64, 0),
                "decided on the device: {ctx}"
            );
        }
    }
}

/// Keeps only the top 1-3 limbs of some normal entries (the others
/// zeroed), so that many terms are exact (the exactness count).
fn shorten(r: &mut Rng, a: &FloatArray) -> FloatArray {
    let (tags, exps, mut limbs) = (
        a.tags().unwrap().to_vec(),
        a.exps().unwrap().to_vec(),
        a.limbs().unwrap().to_vec(),
    );
    let l = a.limbs_per_element();
    for i in 0..tags.len() {
        if tags[i] & 3 == 1 && r.below(3) != 0 {
            let keep = 1 + r.below(3) as usize;
            for w in limbs[i * l..(i + 1) * l - keep.min(l)].iter_mut() {
                *w = 0;
            }
        }
    }
    FloatArray::from_raw(a.prec(), tags, exps, limbs).unwrap()
}

/// Sets an environment variable for the life of the value (device tests
/// hold `serial`, so no other device test reads it meanwhile).
struct EnvSet(&'static str);
impl EnvSet {
    fn new(k: &'static str, v: &str) -> EnvSet {
        // SAFETY: the tests that read this variable hold `serial`.
        unsafe { std::env::set_var(k, v) };
        EnvSet(k)
    }
}
impl Drop for EnvSet {
    fn drop(&mut self) {
        // SAFETY: as in `new`.
        unsafe { std::env::remove_var(self.0) };
    }
}

/// gemv on the int8 tensor cores (`MPARRAY_BLAS_MMA=1`, `2`, `3`: tier 18, A of 8
/// limbs) against the CPU engine bit for bit: shapes crossing the 64-row
/// block and the 64-position slice, spread and huge exponents, exact and
/// near cancellation, short mantissas (exact terms), zeros, NaN and
/// infinities in A and x, every rounding mode, with and without C.
#[test]
#[ignore = "needs a CUDA device"]
fn blasgpu_gemv_mma_vs_cpu() {
    let _serial = serial();
    let dev = cuda();
    let s = seed();
    let mut r = Rng(s ^ 0x3a7);
    let shapes = [
        (1usize, 1usize),
        (1, 64),
        (3, 63),
        (5, 65),
        (63, 129),
        (64, 64),
        (65, 200),
        (130, 97),
        (9, 1000),
        (200, 333),
        (1, 4097),
        (2, 65536),
    ];
    let kinds = [
        Kind::Plain,
        Kind::Plain,
        Kind::Spread,
        Kind::Huge,
        Kind::Specials,
    ];
    let cases: usize = std::env::var("MPARRAY_MMA_CASES")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(48);
    let mut served = 0;
    for case in 0..cases {
        let (m, k) = if case < shapes.len() {
            shapes[case]
        } else {
            r.pick(&shapes)
        };
        let p = r.pick(&[512u64, 512, 480, 500]);
        let qa = r.pick(&[512u64, 512, 500, 449, 300]);
        let qx = r.pick(&[512u64, 512, 64, 300, 1000]);
        let kind = r.pick(&kinds);
        let xkind = if r.below(4) == 0 {
            r.pick(&kinds)
        } else {
            kind
        };
        let mut a = matrix(&mut r, m * k, qa, kind);
        let mut x = matrix(&mut r, k, qx, xkind);
        let short = r.below(4) == 0;
        if short {
            a = shorten(&mut r, &a);
            x = shorten(&mut r, &x);
        }
        let cancelling = r.below(4) == 0 && qa == qx;
        if cancelling {
            let near = r.below(2) == 0;
            let (a2, x2) = cancel(&a, m, &x, 1, k, near);
            (a, x) = (a2, x2);
        }
        let qs = p.min(512);
        let ak = if r.below(8) == 0 {
            Kind::Specials
        } else {
            Kind::Plain
        };
        let alpha = scalar(&mut r, qs, ak);
        let beta = scalar(&mut r, qs, Kind::Plain);
        let y = matrix(&mut r, m, qs, kind);
        let with_c = r.below(3) != 0;
        let rnd = r.pick(&MODES);
        // Mode 1: separate launches; 2: x's forms and the row scales in
        // one; 3: as 2 with x's copies staged with A (blas_gmm5).
        let mode = ["1", "2", "3"][case % 3];
        let _mma = EnvSet::new("MPARRAY_BLAS_MMA", mode);
        let am = Matrix::from_array(a, m, k).unwrap();
        let og = Gemv {
            op: Op::None,
            prec: p,
            rnd,
        };
        let ctx = format!(
            "case {case} mode {mode} seed {s}: p {p} qa {qa} qx {qx} {m}x{k} {kind:?}/{xkind:?} short {short} \
             cancel {cancelling} {rnd:?} c {with_c}"
        );
        let (want, wt) = am
            .gemv(&alpha, &x, with_c.then_some((&beta, &y)), &og)
            .unwrap();
        let on = |v: &FloatArray| v.to_engine(&dev).unwrap();
        let c0 = mparray::linalg::cuda::mma_calls();
        let (d0, h0) = mparray::linalg::cuda::stats();
        let (got, gt) = am
            .to_engine(&dev)
            .unwrap()
            .gemv(
                &on(&alpha),
                &on(&x),
                with_c.then_some((&on(&beta), &on(&y))),
                &og,
            )
            .unwrap();
        let (d1, h1) = mparray::linalg::cuda::stats();
        let c1 = mparray::linalg::cuda::mma_calls();
        same(&format!("gemv mma {ctx}"), &got, &gt, &want, &wt);
        let ls = if with_c { qs.div_ceil(64) as usize } else { 0 };
        let ls = ls.max(qs.div_ceil(64) as usize);
        let expect = tier_for(p, k, ls) == Some(18) && qa.div_ceil(64) == 8;
        assert_eq!(c1 - c0, expect as u64, "mma path taken: {ctx}");
        served += expect as usize;
        let plain = kind == Kind::Plain && xkind == Kind::Plain && !cancelling && !short;
        let plain = plain && expect && alpha.tags().unwrap()[0] & 3 == 1;
        if plain {
            assert_eq!(
                (d1 - d0, h1 - h0),
                (m as u64, 0),
                "decided on the device: {ctx}"
            );
        }
    }
    eprintln!("blasgpu_gemv_mma_vs_cpu: {served} of {cases} cases on the tensor-core path");
    assert!(
        served * 3 >= cases * 2,
        "too few cases on the tensor-core path"
    );
}

/// Timed runs of DOT and GEMV in `blasgpu_speed` (`MPARRAY_BLAS_SPEED_RUNS`,
/// default 2).
fn speed_runs() -> usize {
    std::env::var("MPARRAY_BLAS_SPEED_RUNS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(2)
}

/// GMAC/s of the device path (not a timed assertion): GEMM at 512 bits n =
/// 1024 and 4096, 1024 bits n = 1024 and 2048, DOT 2^20 and GEMV 1024 x
/// 1024 at 512 bits.
#[test]
#[ignore = "needs a CUDA device"]
fn blasgpu_speed() {
    let _serial = serial();
    use std::time::Instant;
    let dev = cuda();
    let eng = match &dev {
        Engine::Cuda(e) => e.clone(),
        _ => unreachable!(),
    };
    let sizes: Vec<(u64, usize)> = std::env::var("MPARRAY_BLAS_SPEED")
        .ok()
        .map(|v| {
            v.split(',')
                .map(|s| {
                    let (p, n) = s.split_once(':').unwrap();
                    (p.parse().unwrap(), n.parse().unwrap())
                })
                .collect()
        })
        .unwrap_or(vec![(512, 1024), (512, 4096), (1024, 1024), (1024, 2048)]);
    let one = FloatArray::from_f64s(64, &[1.0], Round::Nearest)
        .unwrap()
        .0
        .to_engine(&dev)
        .unwrap();
    for (p, n) in sizes {
        let a =
            Matrix::from_array(FloatArray::random_unit(&dev, n * n, p, 1).unwrap(), n, n).unwrap();
        let b =
            Matrix::from_array(FloatArray::random_unit(&dev, n * n, p, 2).unwrap(), n, n).unwrap();
        let o = Gemm {
            prec: p,
            ..Gemm::default()
        };
        // Warm up (kernels compiled and loaded) on a small product.
        let small = Matrix::from_array(
            FloatArray::random_unit(&dev, 64 * 64, p, 3).unwrap(),
            64,
            64,
        )
        .unwrap();
        small.gemm(&small, &one, None, &o).unwrap();
        eng.synchronize().unwrap();
        let (d0, h0) = mparray::linalg::cuda::stats();
        let t = Instant::now();
        let (c, _) = a.gemm(&b, &one, None, &o).unwrap();
        eng.synchronize().unwrap();
        let dt = t.elapsed().as_secs_f64();
        let (d1, h1) = mparray::linalg::cuda::stats();
        drop(c);
        let macs = (n as f64).powi(3);
        eprintln!(
            "GEMM {p} bits n = {n}: {dt:.3} s, {:.2} GMAC/s ({} device, {} host elements)",
            macs / dt / 1e9,
            d1 - d0,
            h1 - h0
        );
    }
    let p = 512;
    let len = 1 << 20;
    let x = FloatArray::random_unit(&dev, len, p, 4).unwrap();
    let y = FloatArray::random_unit(&dev, len, p, 5).unwrap();
    x.dot(&y, p, Round::Nearest).unwrap();
    for _ in 0..speed_runs() {
        eng.synchronize().unwrap();
        let t = Instant::now();
        let (d, _) = x.dot(&y, p, Round::Nearest).unwrap();
        eng.synchronize().unwrap();
        let dt = t.elapsed().as_secs_f64();
        drop(d);
        let bytes = 2.0 * len as f64 * (8.0 + 64.0);
        eprintln!(
            "DOT 512 bits 2^20: {:.1} us, {:.2} GMAC/s; reading the operands at 4.3 TB/s: {:.1} us",
            dt * 1e6,
            len as f64 / dt / 1e9,
            bytes / 4.3e12 * 1e6
        );
    }
    let a = Matrix::from_array(
        FloatArray::random_unit(&dev, len, p, 6).unwrap(),
        1024,
        1024,
    )
    .unwrap();
    let xv = FloatArray::random_unit(&dev, 1024, p, 7).unwrap();
    let og = Gemv {
        prec: p,
        ..Gemv::default()
    };
    a.gemv(&one, &xv, None, &og).unwrap();
    for _ in 0..speed_runs() {
        eng.synchronize().unwrap();
        let t = Instant::now();
        let (g, _) = a.gemv(&one, &xv, None, &og).unwrap();
        eng.synchronize().unwrap();
        let dt = t.elapsed().as_secs_f64();
        drop(g);
        let bytes = len as f64 * (8.0 + 64.0);
        eprintln!(
            "GEMV 512 bits 1024 x 1024: {:.1} us, {:.2} GMAC/s; reading A at 4.3 TB/s: {:.1} us",
            dt * 1e6,
            len as f64 / dt / 1e9,
            bytes / 4.3e12 * 1e6
        );
    }
}

/// Both parts of a device result equal the CPU engine's, values and
/// ternaries.
fn csame(
    what: &str,
    got: &ComplexArray,
    gt: &mparray::complex::ComplexTernary,
    want: &ComplexArray,
    wt: &mparray::complex::ComplexTernary,
) {
    same(
        &format!("{what} (re)"),
        &got.re().unwrap(),
        &gt.re,
        &want.re().unwrap(),
        &wt.re,
    );
    same(
        &format!("{what} (im)"),
        &got.im().unwrap(),
        &gt.im,
        &want.im().unwrap(),
        &wt.im,
    );
}

fn cmatrix(r: &mut Rng, len: usize, (qr, qi): (u64, u64), kind: Kind) -> ComplexArray {
    cplx(matrix(r, len, qr, kind), matrix(r, len, qi, kind))
}

/// Complex gemm (every op pair), gemv (every op), dotu/dotc and herk (both
/// triangles and transposes) on the device against the CPU engine.
fn gpu_ccases(seed: u64, cases: usize) {
    let dev = cuda();
    let mut r = Rng(seed);
    let precs = [
        1u64, 53, 64, 65, 128, 200, 512, 513, 1000, 1100, 2000, 2048, 2100,
    ];
    let kinds = [
        Kind::Plain,
        Kind::Plain,
        Kind::Spread,
        Kind::Huge,
        Kind::Specials,
    ];
    let shapes = [
        (0usize, 3usize, 4usize),
        (3, 0, 2),
        (2, 3, 0),
        (1, 1, 1),
        (1, 1, 37),
        (5, 7, 3),
        (17, 16, 9),
        (33, 20, 41),
        (16, 16, 8),
        (40, 3, 300),
    ];
    let ops = [Op::None, Op::Trans, Op::ConjTrans];
    for case in 0..cases {
        let pr = r.pick(&precs);
        let pi = if r.below(3) == 0 { r.pick(&precs) } else { pr };
        let q = if r.below(3) == 0 { r.pick(&precs) } else { pr };
        let qi = if r.below(4) == 0 { r.pick(&precs) } else { q };
        let (m, n, k) = r.pick(&shapes);
        let kind = r.pick(&kinds);
        let cancelling = r.below(4) == 0;
        let (op_a, op_b) = if cancelling {
            (Op::None, r.pick(&[Op::Trans, Op::ConjTrans]))
        } else {
            (r.pick(&ops), r.pick(&ops))
        };
        let mut ar = matrix(&mut r, m * k, q, kind);
        let mut ai = matrix(&mut r, m * k, qi, kind);
        let mut br = matrix(&mut r, n * k, q, kind);
        let mut bi = matrix(&mut r, n * k, qi, kind);
        if cancelling {
            // A's lines m x k, B's lines n x k (op_b transposes).
            let near = r.below(2) == 0;
            (ar, br) = cancel(&ar, m, &br, n, k, near);
            (ai, bi) = cancel(&ai, m, &bi, n, k, near);
        }
        let rnd = CRound::new(r.pick(&MODES), r.pick(&MODES));
        let qs = pr.min(512);
        let ak = if r.below(6) == 0 {
            Kind::Specials
        } else {
            Kind::Plain
        };
        let alpha = cmatrix(&mut r, 1, (qs, qs), ak);
        let beta = cmatrix(&mut r, 1, (qs, qs), Kind::Plain);
        let c = cmatrix(&mut r, m * n, (qs, qs), kind);
        let with_c = r.below(3) != 0;
        let a = cplx(ar, ai);
        let b = cplx(br, bi);
        // Stored shapes: A m x k (k x m transposed), B k x n (n x k).
        let am = if op_a == Op::None {
            Matrix::from_array(a, m, k)
        } else {
            Matrix::from_array(a, k, m)
        }
        .unwrap();
        let bm = if op_b == Op::None {
            Matrix::from_array(b, k, n)
        } else {
            Matrix::from_array(b, n, k)
        }
        .unwrap();
        let cm = Matrix::from_array(c, m, n).unwrap();
        let ctx = format!(
            "case {case} seed {seed}: p {pr}/{pi} q {q}/{qi} {m}x{n}x{k} {kind:?} {op_a:?}/{op_b:?} \
             cancel {cancelling} {rnd:?} c {with_c}"
        );
        let on = |x: &ComplexArray| x.to_engine(&dev).unwrap();
        let onm = |x: &Matrix<ComplexArray>| x.to_engine(&dev).unwrap();
        let o = CGemm {
            op_a,
            op_b,
            prec_re: pr,
            prec_im: pi,
            rnd,
        };
        let (want, wt) = am
            .gemm(&bm, &alpha, with_c.then_some((&beta, &cm)), &o)
            .unwrap();
        let (ad, bd, cd, ald, bed) = (onm(&am), onm(&bm), onm(&cm), on(&alpha), on(&beta));
        let (got, gt) = ad
            .gemm(&bd, &ald, with_c.then_some((&bed, &cd)), &o)
            .unwrap();
        csame(&format!("cgemm {ctx}"), got.data(), &gt, want.data(), &wt);
        // gemv: op(A) times a vector; dotu/dotc of two vectors.
        {
            let x = cmatrix(&mut r, k, (q, qi), kind);
            let y = cmatrix(&mut r, m, (qs, qs), kind);
            let og = CGemv {
                op: op_a,
                prec_re: pr,
                prec_im: pi,
                rnd,
            };
            let (want, wt) = am
                .gemv(&alpha, &x, with_c.then_some((&beta, &y)), &og)
                .unwrap();
            let (got, gt) = ad
                .gemv(&ald, &on(&x), with_c.then_some((&bed, &on(&y))), &og)
                .unwrap();
            csame(&format!("cgemv {ctx}"), &got, &gt, &want, &wt);
            let row = cmatrix(&mut r, k, (q, qi), kind);
            let (want, wt) = row.dotu(&x, pr, pi, rnd).unwrap();
            let (got, gt) = on(&row).dotu(&on(&x), pr, pi, rnd).unwrap();
            csame(&format!("dotu {ctx}"), &got, &gt, &want, &wt);
            let (want, wt) = row.dotc(&x, pr, pi, rnd).unwrap();
            let (got, gt) = on(&row).dotc(&on(&x), pr, pi, rnd).unwrap();
            csame(&format!("dotc {ctx}"), &got, &gt, &want, &wt);
        }
        // herk on A (m x k), C m x m (or k x k), real alpha and beta.
        let uplo = r.pick(&[Uplo::Upper, Uplo::Lower]);
        let trans = r.pick(&[Op::None, Op::ConjTrans]);
        let ha = Matrix::from_array(cmatrix(&mut r, m * k, (q, qi), kind), m, k).unwrap();
        let nn = if trans == Op::None { m } else { k };
        let hc = Matrix::from_array(cmatrix(&mut r, nn * nn, (qs, qs), kind), nn, nn).unwrap();
        let (hal, hbe) = (scalar(&mut r, qs, ak), scalar(&mut r, qs, Kind::Plain));
        let oh = Herk {
            uplo,
            trans,
            prec_re: pr,
            prec_im: pi,
            rnd,
        };
        let (want, wt) = ha.herk(&hal, with_c.then_some((&hbe, &hc)), &oh).unwrap();
        let (hald, hbed) = (hal.to_engine(&dev).unwrap(), hbe.to_engine(&dev).unwrap());
        let (got, gt) = onm(&ha)
            .herk(&hald, with_c.then_some((&hbed, &onm(&hc))), &oh)
            .unwrap();
        csame(
            &format!("herk {uplo:?} {trans:?} {ctx}"),
            got.data(),
            &gt,
            want.data(),
            &wt,
        );
    }
}

#[test]
#[ignore = "needs a CUDA device"]
fn blasgpu_complex_vs_cpu() {
    let _serial = serial();
    let s = seed();
    let (d0, h0) = mparray::linalg::cuda::stats();
    gpu_ccases(s, 120);
    let (d1, h1) = mparray::linalg::cuda::stats();
    eprintln!(
        "device decided {} parts/elements, host {}",
        d1 - d0,
        h1 - h0
    );
    assert!(d1 > d0);
}

/// Ordinary random complex inputs (a 40 x 24 x 50 product at 512 bits,
/// every mode, alpha complex, with C) are decided on the device.
#[test]
#[ignore = "needs a CUDA device"]
fn blasgpu_complex_decided_on_device() {
    let _serial = serial();
    let dev = cuda();
    let mut r = Rng(seed());
    for rnd in MODES {
        let a =
            Matrix::from_array(cmatrix(&mut r, 40 * 50, (512, 512), Kind::Plain), 40, 50).unwrap();
        let b =
            Matrix::from_array(cmatrix(&mut r, 50 * 24, (512, 512), Kind::Plain), 50, 24).unwrap();
        let c =
            Matrix::from_array(cmatrix(&mut r, 40 * 24, (512, 512), Kind::Plain), 40, 24).unwrap();
        let al = cmatrix(&mut r, 1, (512, 512), Kind::Plain);
        let be = cmatrix(&mut r, 1, (512, 512), Kind::Plain);
        let o = CGemm {
            prec_re: 512,
            prec_im: 512,
            rnd: CRound::both(rnd),
            ..CGemm::default()
        };
        let (want, wt) = a.gemm(&b, &al, Some((&be, &c)), &o).unwrap();
        let on = |x: &ComplexArray| x.to_engine(&dev).unwrap();
        let (d0, h0) = mparray::linalg::cuda::stats();
        let (got, gt) = a
            .to_engine(&dev)
            .unwrap()
            .gemm(
                &b.to_engine(&dev).unwrap(),
                &on(&al),
                Some((&on(&be), &c.to_engine(&dev).unwrap())),
                &o,
            )
            .unwrap();
        let (d1, h1) = mparray::linalg::cuda::stats();
        csame("random cgemm", got.data(), &gt, want.data(), &wt);
        assert_eq!(d1 - d0, 2 * 40 * 24, "{} host parts", h1 - h0);
    }
}

/// nrm2 and asum of real and complex vectors on the device against the
/// CPU engine: lengths 0 ... 70000, every mode, precisions across the tiers
/// and above, zeros, specials, exponent spread.
#[test]
#[ignore = "needs a CUDA device"]
fn blasgpu_nrm2_asum_vs_cpu() {
    let _serial = serial();
    let dev = cuda();
    let s = seed();
    let mut r = Rng(s);
    let precs = [1u64, 2, 53, 64, 100, 256, 512, 1000, 2000, 2100];
    let kinds = [
        Kind::Plain,
        Kind::Plain,
        Kind::Spread,
        Kind::Huge,
        Kind::Specials,
    ];
    let (d0, h0) = mparray::linalg::cuda::stats();
    for case in 0..80 {
        let p = r.pick(&precs);
        let q = if r.below(2) == 0 { r.pick(&precs) } else { p };
        let len = r.pick(&[0usize, 1, 2, 7, 100, 5000, 70000]);
        let kind = r.pick(&kinds);
        let rnd = r.pick(&MODES);
        let ctx = format!("case {case} seed {s}: p {p} q {q} len {len} {kind:?} {rnd:?}");
        let x = matrix(&mut r, len, q, kind);
        let xd = x.to_engine(&dev).unwrap();
        let (w, wt) = x.nrm2(p, rnd).unwrap();
        let (g, gt) = xd.nrm2(p, rnd).unwrap();
        same(&format!("nrm2 {ctx}"), &g, &gt, &w, &wt);
        let (w, wt) = x.asum(p, rnd).unwrap();
        let (g, gt) = xd.asum(p, rnd).unwrap();
        same(&format!("asum {ctx}"), &g, &gt, &w, &wt);
        let qi = r.pick(&precs);
        let z = cmatrix(&mut r, len, (q, qi), kind);
        let zd = z.to_engine(&dev).unwrap();
        let (w, wt) = z.nrm2(p, rnd).unwrap();
        let (g, gt) = zd.nrm2(p, rnd).unwrap();
        same(&format!("complex nrm2 {ctx}"), &g, &gt, &w, &wt);
        let (w, wt) = z.asum(p, rnd).unwrap();
        let (g, gt) = zd.asum(p, rnd).unwrap();
        same(&format!("complex asum {ctx}"), &g, &gt, &w, &wt);
    }
    // Exact squares: sqrt(3^2 + 4^2) = 5 exactly.
    let v = FloatArray::from_f64s(53, &[3.0, -4.0], Round::Nearest)
        .unwrap()
        .0;
    let (g, gt) = v.to_engine(&dev).unwrap().nrm2(10, Round::Up).unwrap();
    let (w, wt) = v.nrm2(10, Round::Up).unwrap();
    same("nrm2 exact", &g, &gt, &w, &wt);
    assert_eq!(gt.to_vec().unwrap(), vec![0]);
    let (d1, h1) = mparray::linalg::cuda::stats();
    eprintln!("device decided {} elements, host {}", d1 - d0, h1 - h0);
    assert!(d1 > d0);
}

/// GMAC/s of the complex device path (not a timed assertion): complex GEMM
/// at the sizes of MPARRAY_BLAS_CSPEED (`bits:n,...`, default 512:1024),
/// a complex MAC counted once (four real products).
#[test]
#[ignore = "needs a CUDA device"]
fn blasgpu_complex_speed() {
    let _serial = serial();
    use std::time::Instant;
    let dev = cuda();
    let eng = match &dev {
        Engine::Cuda(e) => e.clone(),
        _ => unreachable!(),
    };
    let sizes: Vec<(u64, usize)> = std::env::var("MPARRAY_BLAS_CSPEED")
        .ok()
        .map(|v| {
            v.split(',')
                .map(|s| {
                    let (p, n) = s.split_once(':').unwrap();
                    (p.parse().unwrap(), n.parse().unwrap())
                })
                .collect()
        })
        .unwrap_or(vec![(512, 1024)]);
    let one = ComplexArray::new(
        FloatArray::from_f64s(64, &[1.0], Round::Nearest).unwrap().0,
        FloatArray::from_f64s(64, &[0.0], Round::Nearest).unwrap().0,
    )
    .unwrap()
    .to_engine(&dev)
    .unwrap();
    let rnd = |n: usize, p: u64, s: u64| {
        ComplexArray::new(
            FloatArray::random_unit(&dev, n, p, s).unwrap(),
            FloatArray::random_unit(&dev, n, p, s + 100).unwrap(),
        )
        .unwrap()
    };
    for (p, n) in sizes {
        let a = Matrix::from_array(rnd(n * n, p, 1), n, n).unwrap();
        let b = Matrix::from_array(rnd(n * n, p, 2), n, n).unwrap();
        let o = CGemm {
            prec_re: p,
            prec_im: p,
            ..CGemm::default()
        };
        let small = Matrix::from_array(rnd(64 * 64, p, 3), 64, 64).unwrap();
        small.gemm(&small, &one, None, &o).unwrap();
        eng.synchronize().unwrap();
        let (d0, h0) = mparray::linalg::cuda::stats();
        let t = Instant::now();
        let (c, _) = a.gemm(&b, &one, None, &o).unwrap();
        eng.synchronize().unwrap();
        let dt = t.elapsed().as_secs_f64();
        let (d1, h1) = mparray::linalg::cuda::stats();
        drop(c);
        let macs = (n as f64).powi(3);
        eprintln!(
            "complex GEMM {p} bits n = {n}: {dt:.3} s, {:.2} complex GMAC/s ({:.2} real GMAC/s; \
             {} device, {} host parts)",
            macs / dt / 1e9,
            4.0 * macs / dt / 1e9,
            d1 - d0,
            h1 - h0
        );
    }
}

/// The small products of GMRES's orthogonalisation on the device against
/// the CPU engine: `[V; w] w` (rows 1 ... 64 of long sums, k around the
/// streaming product's split floors 64 and 256, tiers above gemv_rows'),
/// `V^T h` (many outputs of 1 ... 33 terms around the floors 4 and 16),
/// random and cancelling; then the same products and a fused dot inside a
/// `Deferred` scope (their checks read at its end): decided plain cases
/// give the CPU's bits, and a cancelled dot reads back as undecided.
#[test]
#[ignore = "needs a CUDA device"]
fn blasgpu_small_products_vs_cpu() {
    use mparray::linalg::cuda::Deferred;
    let _serial = serial();
    let dev = cuda();
    let s = seed();
    let mut r = Rng(s ^ 0x5a11);
    let on = |v: &FloatArray| v.to_engine(&dev).unwrap();
    for case in 0..48 {
        let trans = r.below(2) == 0;
        let (m, k) = if trans {
            (
                r.pick(&[1usize, 7, 100, 1000, 4096]),
                r.pick(&[1usize, 2, 3, 4, 5, 7, 8, 9, 15, 16, 17, 31, 32, 33]),
            )
        } else {
            (
                r.pick(&[1usize, 2, 5, 17, 30, 33, 64]),
                r.pick(&[63usize, 64, 65, 255, 256, 257, 1000, 4096]),
            )
        };
        let p = r.pick(&[53u64, 256, 320, 576, 700, 1000]);
        let q = r.pick(&[256u64, p]);
        let kind = r.pick(&[Kind::Plain, Kind::Plain, Kind::Spread, Kind::Specials]);
        let mut a = matrix(&mut r, m * k, q, kind);
        let mut x = matrix(&mut r, k, q, kind);
        let cancelling = r.below(3) == 0;
        if cancelling {
            let (a2, x2) = cancel(&a, m, &x, 1, k, r.below(2) == 0);
            (a, x) = (a2, x2);
        }
        let rnd = r.pick(&MODES);
        let alpha = scalar(&mut r, p.min(512), Kind::Plain);
        let beta = scalar(&mut r, p.min(512), Kind::Plain);
        let y = matrix(&mut r, m, q, kind);
        let with_c = r.below(2) == 0;
        // op(A) = the m x k rows either way.
        let (am, op) = if trans {
            (
                Matrix::from_array(transpose(&a, m, k), k, m).unwrap(),
                Op::Trans,
            )
        } else {
            (Matrix::from_array(a, m, k).unwrap(), Op::None)
        };
        let og = Gemv { op, prec: p, rnd };
        let ctx = format!(
            "case {case} seed {s}: p {p} q {q} {m}x{k} {op:?} {kind:?} cancel {cancelling} {rnd:?} c {with_c}"
        );
        let (want, wt) = am
            .gemv(&alpha, &x, with_c.then_some((&beta, &y)), &og)
            .unwrap();
        let ad = am.to_engine(&dev).unwrap();
        let (got, gt) = ad
            .gemv(
                &on(&alpha),
                &on(&x),
                with_c.then_some((&on(&beta), &on(&y))),
                &og,
            )
            .unwrap();
        same(&format!("small gemv {ctx}"), &got, &gt, &want, &wt);
        // Deferred: the product and x.x (fused dot at p + 64 bits).
        let (wd, wdt) = x.dot(&x, p + 64, rnd).unwrap();
        let sc = Deferred::begin();
        let (g2, _) = ad
            .gemv(
                &on(&alpha),
                &on(&x),
                with_c.then_some((&on(&beta), &on(&y))),
                &og,
            )
            .unwrap();
        let (gd, _) = on(&x).dot(&on(&x), p + 64, rnd).unwrap();
        let (copies, decided) = sc.finish(&[&g2, &gd]).unwrap();
        if decided {
            same(&format!("deferred gemv {ctx}"), &copies[0], &wt, &want, &wt);
            same(&format!("deferred dot {ctx}"), &copies[1], &wdt, &wd, &wdt);
        } else {
            eprintln!("deferred scope undecided: {ctx}");
        }
        // A cancelled dot inside a scope: undecided (exact zero or a
        // last-bit difference at 2p + 64 bits needs the host), then the
        // checked call gives the CPU's bits.
        if kind == Kind::Plain && k >= 64 {
            let (cx, cy) = mirror_cancel(&x, &x, true);
            let sc = Deferred::begin();
            let (gd, _) = on(&cx).dot(&on(&cy), 2 * p + 64, rnd).unwrap();
            let (_, decided) = sc.finish(&[&gd]).unwrap();
            let (want, wt) = cx.dot(&cy, 2 * p + 64, rnd).unwrap();
            let (got, gt) = on(&cx).dot(&on(&cy), 2 * p + 64, rnd).unwrap();
            same(
                &format!("cancelled dot {ctx} (deferred: decided {decided})"),
                &got,
                &gt,
                &want,
                &wt,
            );
        }
    }
}
