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
use mparray::linalg::cuda::tier_for;
use mparray::linalg::{Gemm, Gemv, Op, Syrk, Uplo};
use mparray::{Engine, FloatArray, Matrix, Round};

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
fn emu_cases(exe: &std::path::Path, seed: u64, cases: usize) -> (usize, usize) {
    let mut r = Rng(seed);
    let precs = [
        1u64, 2, 53, 64, 65, 100, 128, 129, 200, 256, 300, 512, 513, 700, 1000,
    ];
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
        let p = r.pick(&precs);
        let qa = if r.below(3) == 0 { r.pick(&precs) } else { p };
        let qb = if r.below(3) == 0 { r.pick(&precs) } else { p };
        let (m, n) = (r.range(1, 4) as usize, r.range(1, 4) as usize);
        let k = r.pick(&[0usize, 1, 2, 3, 5, 8, 17, 40]);
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
            r.pick(&precs[..10])
        } else {
            p.min(512)
        };
        let skind = if r.below(5) == 0 {
            Kind::Specials
        } else {
            Kind::Plain
        };
        // alpha 0, alpha 1 (the dot path's epilogue when without C).
        let ak = r.below(8);
        let alpha = if ak < 2 {
            FloatArray::from_f64s(qs, &[ak as f64], Round::Nearest)
                .unwrap()
                .0
        } else {
            scalar(&mut r, qs, skind)
        };
        let with_c = r.below(3) != 0;
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
        let splits = r.range(1, 3) as u64;
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
    let (dec, und) = emu_cases(&exe, seed(), 400);
    // Ordinary inputs are decided on the device.
    assert!(
        und * 50 <= dec,
        "{und} of {} plain elements undecided",
        dec + und
    );
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
        1u64, 53, 64, 65, 128, 129, 200, 256, 300, 512, 513, 700, 1000, 1030, 2000,
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
    for _ in 0..2 {
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
    for _ in 0..2 {
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
