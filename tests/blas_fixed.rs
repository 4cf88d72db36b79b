//! The fast fixed-point path of the CPU BLAS (src/linalg/fixed.rs) against
//! the exact core (the same call with the fast path off) and against
//! malachite-q rational sums rounded once by malachite-float. The fast
//! path's counters show it decides most elements of well-scaled inputs and
//! falls back where it must (cancellation, specials).

#![allow(clippy::needless_range_loop)]

mod common;

use std::sync::Mutex;
use std::time::Instant;

use common::{Rng, seed};
use malachite_base::num::arithmetic::traits::PowerOf2;
use malachite_base::num::basic::traits::{Infinity, NaN, NegativeZero, One, Zero};
use malachite_float::{ComparableFloat, Float};
use malachite_q::Rational;
use mparray::complex::CRound;
use mparray::linalg::{CGemm, CGemv, Gemm, Gemv, Herk, Op, Syrk, Uplo, fixed};
use mparray::{ComplexArray, Engine, FloatArray, Matrix, Round};

/// Serializes the tests: the fast path switch and counters are global.
static LOCK: Mutex<()> = Mutex::new(());

fn lock() -> std::sync::MutexGuard<'static, ()> {
    LOCK.lock().unwrap_or_else(|e| e.into_inner())
}

fn rand_mat(g: &mut Rng, r: usize, c: usize, p: u64, emin: i64, emax: i64) -> Matrix<FloatArray> {
    let a = FloatArray::random_exp(&Engine::Cpu, r * c, p, g.next(), emin, emax).unwrap();
    Matrix::from_array(a, r, c).unwrap()
}

/// The process's CPU time (all threads, user and system) in seconds, from
/// /proc (the machine is shared: CPU time is the fair measure).
fn cpu_seconds() -> f64 {
    let s = std::fs::read_to_string("/proc/self/stat").unwrap_or_default();
    let rest = s.rsplit(')').next().unwrap_or("");
    let f: Vec<f64> = rest
        .split_whitespace()
        .map(|x| x.parse().unwrap_or(0.0))
        .collect();
    // Fields 14 and 15 (utime, stime) in clock ticks of 1/100 s.
    (f.get(11).copied().unwrap_or(0.0) + f.get(12).copied().unwrap_or(0.0)) / 100.0
}

/// Prints the fast path's GEMM rate (multiply-accumulates per second) at
/// several precisions: `cargo test --release --test blas_fixed -- --ignored
/// --nocapture gemm_rate` (MPARRAY_RATE_N sets n, default 256).
#[test]
#[ignore]
fn gemm_rate() {
    let _l = lock();
    let n: usize = std::env::var("MPARRAY_RATE_N")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(256);
    let mut g = Rng(seed());
    let threads = rayon::current_num_threads();
    let precs: Vec<u64> = std::env::var("MPARRAY_RATE_P")
        .map(|s| s.split(',').map(|x| x.parse().unwrap()).collect())
        .unwrap_or_else(|_| vec![53, 128, 256, 512, 1024, 2048]);
    for p in precs {
        let a = rand_mat(&mut g, n, n, p, -4, 4);
        let b = rand_mat(&mut g, n, n, p, -4, 4);
        let one = FloatArray::from_f64s(p, &[1.0], Round::Nearest).unwrap().0;
        let o = Gemm {
            prec: p,
            ..Gemm::default()
        };
        let (f0, s0) = fixed::counters();
        let (t, c0) = (Instant::now(), cpu_seconds());
        let (_c, _t) = a.gemm(&b, &one, None, &o).unwrap();
        let (dt, cpu) = (t.elapsed().as_secs_f64(), cpu_seconds() - c0);
        let (f1, s1) = fixed::counters();
        let macs = (n * n * n) as f64;
        println!(
            "gemm n={n} p={p}: {dt:.3} s, {:.4} GMAC/s on {threads} threads; {:.1} ns of CPU time per MAC; fast {} exact {}",
            macs / dt / 1e9,
            cpu * 1e9 / macs,
            f1 - f0,
            s1 - s0
        );
        // The exact core alone on a 64 x 64 x 64 product, for comparison.
        let (a64, b64) = (
            rand_mat(&mut g, 64, 64, p, -4, 4),
            rand_mat(&mut g, 64, 64, p, -4, 4),
        );
        fixed::set_enabled(false);
        let (t, c0) = (Instant::now(), cpu_seconds());
        a64.gemm(&b64, &one, None, &o).unwrap();
        let (dt, cpu) = (t.elapsed().as_secs_f64(), cpu_seconds() - c0);
        fixed::set_enabled(true);
        let m64 = (64 * 64 * 64) as f64;
        println!(
            "exact core gemm n=64 p={p}: {:.4} GMAC/s; {:.1} ns of CPU time per MAC",
            m64 / dt / 1e9,
            cpu * 1e9 / m64
        );
        // A long dot product: its terms split over the threads.
        let k = 32 * n * n;
        let x = FloatArray::random_exp(&Engine::Cpu, k, p, g.next(), -4, 4).unwrap();
        let y = FloatArray::random_exp(&Engine::Cpu, k, p, g.next(), -4, 4).unwrap();
        let (t, c0) = (Instant::now(), cpu_seconds());
        x.dot(&y, p, Round::Nearest).unwrap();
        let (dt, cpu) = (t.elapsed().as_secs_f64(), cpu_seconds() - c0);
        println!(
            "dot k={k} p={p}: {dt:.3} s, {:.4} GMAC/s; {:.1} ns of CPU time per MAC",
            k as f64 / dt / 1e9,
            cpu * 1e9 / k as f64
        );
    }
}

/// One term of an exact sum: its factors.
type Term = Vec<Float>;

fn rat(f: &Float) -> Rational {
    Rational::try_from(f).expect("a finite float")
}

/// The reference: `mpfr_sum` of the exact products `terms`, rounded to
/// `p` bits in `rnd` (malachite-q sum, malachite-float rounding); None
/// when a factor is NaN or infinite (those go to the exact core, checked
/// against it instead).
fn ref_sum(terms: &[Term], p: u64, rnd: Round) -> Option<(Float, i8)> {
    let (mut zeros, mut negz, mut nonzero) = (0usize, 0usize, 0usize);
    let mut sum = Rational::ZERO;
    for f in terms {
        if f.iter().any(|x| !x.is_finite()) {
            return None;
        }
        let neg = f.iter().fold(false, |s, x| s ^ x.is_sign_negative());
        if f.iter().any(|x| x.is_zero()) {
            zeros += 1;
            negz += neg as usize;
        } else {
            sum += f.iter().fold(Rational::ONE, |a, x| a * rat(x));
            nonzero += 1;
        }
    }
    Some(common::mpfr_sum_of(sum, nonzero, zeros, negz, p, rnd))
}

fn same(what: &str, got: (&Float, i8), want: (&Float, i8)) {
    assert_eq!(
        ComparableFloat(got.0.clone()),
        ComparableFloat(want.0.clone()),
        "{what}: got {:#x}, want {:#x}",
        got.0,
        want.0
    );
    assert_eq!(got.1, want.1, "{what}: ternary (value {:#x})", got.0);
}

/// Runs `f` with the fast path on and off: both results, and the
/// elements the fast path decided and left to the exact core.
fn both<T>(f: impl Fn() -> T) -> (T, T, u64, u64) {
    fixed::set_enabled(true);
    let (f0, s0) = fixed::counters();
    let fast = f();
    let (f1, s1) = fixed::counters();
    fixed::set_enabled(false);
    let exact = f();
    fixed::set_enabled(true);
    (fast, exact, f1 - f0, s1 - s0)
}

fn arr(p: u64, v: &[Float]) -> FloatArray {
    let (a, t) = FloatArray::from_floats(p, v, Round::Nearest).unwrap();
    assert!(t.to_vec().unwrap().iter().all(|&x| x == 0), "inputs exact");
    a
}

/// How a test vector's entries are drawn.
#[derive(Clone, Copy, Debug)]
enum Mix {
    /// Exponents in -4..=4, no zeros: truncation exact at low input
    /// precision.
    Narrow,
    /// Exponents in -300..=300 and some zeros: most truncations inexact.
    Wide,
    /// Narrow with zeros of both signs and special values.
    Special,
}

fn floats(g: &mut Rng, n: usize, p: u64, mix: Mix) -> Vec<Float> {
    let (lo, hi) = match mix {
        Mix::Wide => (-300, 300),
        _ => (-4, 4),
    };
    let mut v = FloatArray::random_exp(&Engine::Cpu, n, p, g.next(), lo, hi)
        .unwrap()
        .to_floats()
        .unwrap();
    for x in v.iter_mut() {
        match g.below(if matches!(mix, Mix::Special) { 12 } else { 40 }) {
            0 if !matches!(mix, Mix::Narrow) => *x = Float::ZERO,
            1 if !matches!(mix, Mix::Narrow) => *x = Float::NEGATIVE_ZERO,
            2 if matches!(mix, Mix::Special) => *x = Float::NAN,
            3 if matches!(mix, Mix::Special) => *x = Float::INFINITY,
            4 if matches!(mix, Mix::Special) => *x = -Float::INFINITY,
            _ => {}
        }
    }
    v
}

/// A scalar: 1, -1, 0, -0 or random.
fn scalar(g: &mut Rng, p: u64) -> Float {
    match g.below(6) {
        0 => Float::ONE,
        1 => -Float::ONE,
        2 => Float::ZERO,
        3 => Float::NEGATIVE_ZERO,
        _ => floats(g, 1, p, Mix::Narrow).remove(0),
    }
}

fn op_of(g: &mut Rng) -> Op {
    [Op::None, Op::Trans, Op::ConjTrans][g.index(3)]
}

fn dims(op: Op, r: usize, c: usize) -> (usize, usize) {
    if op == Op::None { (r, c) } else { (c, r) }
}

fn at(v: &[Float], cols: usize, op: Op, i: usize, j: usize) -> Float {
    match op {
        Op::None => v[i * cols + j].clone(),
        _ => v[j * cols + i].clone(),
    }
}

/// Output precisions crossing every limb boundary of the fast path.
const PRECS: [u64; 12] = [1, 53, 63, 64, 65, 127, 128, 511, 512, 513, 1024, 2048];

/// Real gemm and syrk: the fast path against the exact core, and every
/// finite element against the rational reference, for every output
/// precision crossing a limb boundary, every mode, all ops, odd shapes, K
/// crossing a block, general alpha and beta.
#[test]
fn real_gemm_syrk_against_exact_and_rationals() {
    let _l = lock();
    let mut g = Rng(seed());
    // Per mix: elements decided by the fast path, and by the exact core.
    let mut counts = [(0u64, 0u64); 3];
    for (case, &p) in PRECS.iter().enumerate() {
        let q = *[p, 53, 2 * p + 1].get(g.index(3)).unwrap();
        let mix = [Mix::Narrow, Mix::Wide, Mix::Special][case % 3];
        let (m, n, k) = match case % 4 {
            0 => (g.index(4), g.index(4), g.index(4)),
            1 => (3, 5, 1),
            2 => (2, 3, 70 + g.index(90)),
            _ => (1 + g.index(5), 1 + g.index(5), 1 + g.index(9)),
        };
        let (oa, ob) = (op_of(&mut g), op_of(&mut g));
        let (ar, ac) = dims(oa, m, k);
        let (br, bc) = dims(ob, k, n);
        let (av, bv) = (
            floats(&mut g, ar * ac, q, mix),
            floats(&mut g, br * bc, q, mix),
        );
        let cv = floats(&mut g, m * n, q, mix);
        let a = Matrix::from_array(arr(q, &av), ar, ac).unwrap();
        let b = Matrix::from_array(arr(q, &bv), br, bc).unwrap();
        let c = Matrix::from_array(arr(q, &cv), m, n).unwrap();
        // Narrow cases with k > 0 keep alpha nonzero, so the fast path's
        // count below has sums to decide whatever the draw.
        let al = if matches!(mix, Mix::Narrow) && case % 4 != 0 {
            floats(&mut g, 1, q, Mix::Narrow).remove(0)
        } else {
            scalar(&mut g, q)
        };
        let be = scalar(&mut g, q);
        let (alpha, beta) = (
            arr(q, std::slice::from_ref(&al)),
            arr(q, std::slice::from_ref(&be)),
        );
        let with_c = g.below(2) == 0;
        for rnd in Round::ALL {
            let o = Gemm {
                op_a: oa,
                op_b: ob,
                prec: p,
                rnd,
            };
            let bc_ = with_c.then_some((&beta, &c));
            let (x, y, f, s) = both(|| {
                let (r, t) = a.gemm(&b, &alpha, bc_, &o).unwrap();
                (r.data().to_floats().unwrap(), t.to_vec().unwrap())
            });
            // A zero alpha leaves a zero sum (its sign needs the terms)
            // unless C is there: not counted.
            if (!al.is_zero() && k > 0) || matches!(mix, Mix::Special) {
                counts[case % 3].0 += f;
                counts[case % 3].1 += s;
            }
            for e in 0..m * n {
                let (i, j) = (e / n, e % n);
                let w =
                    format!("gemm p={p} q={q} {mix:?} {m}x{n}x{k} {oa:?}{ob:?} {rnd:?} ({i},{j})");
                same(&w, (&x.0[e], x.1[e]), (&y.0[e], y.1[e]));
                let mut terms: Vec<Term> = (0..k)
                    .map(|kk| vec![al.clone(), at(&av, ac, oa, i, kk), at(&bv, bc, ob, kk, j)])
                    .collect();
                if with_c {
                    terms.push(vec![be.clone(), cv[e].clone()]);
                }
                if let Some(want) = ref_sum(&terms, p, rnd) {
                    same(&w, (&x.0[e], x.1[e]), (&want.0, want.1));
                }
            }
            // syrk of A (A*A^T or A^T*A) in both triangles.
            let (sn, sk) = dims(oa, ar, ac);
            let cs = Matrix::from_array(arr(q, &floats(&mut g, sn * sn, q, mix)), sn, sn).unwrap();
            for uplo in [Uplo::Upper, Uplo::Lower] {
                let o = Syrk {
                    uplo,
                    trans: oa,
                    prec: p,
                    rnd,
                };
                let (x, y, _, _) = both(|| {
                    let (r, t) = a.syrk(&alpha, with_c.then_some((&beta, &cs)), &o).unwrap();
                    (r.data().to_floats().unwrap(), t.to_vec().unwrap())
                });
                for e in 0..sn * sn {
                    let w = format!("syrk p={p} {sn}x{sk} {oa:?} {uplo:?} {rnd:?} elt {e}");
                    same(&w, (&x.0[e], x.1[e]), (&y.0[e], y.1[e]));
                }
            }
        }
    }
    eprintln!("gemm (fast, exact) per mix narrow/wide/special: {counts:?}");
    let [narrow, _, special] = counts;
    assert!(
        narrow.0 > 10 * narrow.1,
        "narrow exponents: the fast path decides: {narrow:?}"
    );
    assert!(special.1 > 0, "specials go to the exact core: {special:?}");
}

/// Exact cancellation and cancellation to far below the largest term: the
/// fast path must hand those to the exact core (or decide them exactly),
/// giving the rational reference's bits.
#[test]
fn cancellation_falls_back() {
    let _l = lock();
    let mut g = Rng(seed());
    for &p in &[53u64, 64, 128, 512] {
        let x = floats(&mut g, 6, p, Mix::Narrow);
        let tiny = Float::power_of_2(-(p as i64) - 200 - g.range(0, 50));
        // [x0..x5, tiny, -x0..-x5] . [1..1, y, 1..1]: the sum is tiny*y.
        let mut a: Vec<Float> = x.clone();
        a.push(tiny.clone());
        a.extend(x.iter().map(|v| -v.clone()));
        let y = floats(&mut g, 1, p, Mix::Narrow).remove(0);
        let mut b = vec![Float::ONE; 6];
        b.push(y.clone());
        b.extend(vec![Float::ONE; 6]);
        let (xa, ya) = (arr(p, &a), arr(p, &b));
        let za = arr(p, &vec![Float::ONE; 13]);
        for rnd in Round::ALL {
            let (r, _, _, s) = both(|| {
                let (r, t) = xa.dot(&ya, p, rnd).unwrap();
                (r.to_floats().unwrap(), t.to_vec().unwrap())
            });
            assert!(
                s >= 1,
                "p={p} {rnd:?}: the cancelled dot goes to the exact core"
            );
            let terms: Vec<Term> = a
                .iter()
                .zip(&b)
                .map(|(u, v)| vec![u.clone(), v.clone()])
                .collect();
            let want = ref_sum(&terms, p, rnd).unwrap();
            same(
                &format!("cancel p={p} {rnd:?}"),
                (&r.0[0], r.1[0]),
                (&want.0, want.1),
            );
            // Exact zero: the sign of zero is the exact core's.
            let (r, e, _, _) = both(|| {
                let (r, t) = xa.dot(&za, p, rnd).unwrap();
                (r.to_floats().unwrap(), t.to_vec().unwrap())
            });
            same(
                &format!("zero p={p} {rnd:?}"),
                (&r.0[0], r.1[0]),
                (&e.0[0], e.1[0]),
            );
        }
    }
}

/// Long dot products split over the threads (K up to several blocks per
/// thread), with wide exponents, and results at the ends of MPFR's range.
#[test]
fn long_dots_and_the_exponent_range() {
    let _l = lock();
    let mut g = Rng(seed());
    for &(p, k) in &[(64u64, 5000usize), (513, 1500), (53, 129)] {
        for mix in [Mix::Narrow, Mix::Wide] {
            let (x, y) = (floats(&mut g, k, p, mix), floats(&mut g, k, p, mix));
            let (xa, ya) = (arr(p, &x), arr(p, &y));
            let terms: Vec<Term> = x
                .iter()
                .zip(&y)
                .map(|(u, v)| vec![u.clone(), v.clone()])
                .collect();
            for rnd in Round::ALL {
                let (r, e, f, _) = both(|| {
                    let (r, t) = xa.dot(&ya, p, rnd).unwrap();
                    (r.to_floats().unwrap(), t.to_vec().unwrap())
                });
                let w = format!("dot p={p} k={k} {mix:?} {rnd:?}");
                same(&w, (&r.0[0], r.1[0]), (&e.0[0], e.1[0]));
                let want = ref_sum(&terms, p, rnd).unwrap();
                same(&w, (&r.0[0], r.1[0]), (&want.0, want.1));
                if matches!(mix, Mix::Narrow) {
                    assert_eq!(f, 1, "{w}: decided by the fast path");
                }
            }
        }
    }
    // Overflow and underflow of the rounded result (products far outside
    // the range are exact intermediates).
    let big = Float::power_of_2((1i64 << 29) + 7);
    let small = Float::power_of_2(-(1i64 << 29) - 7);
    for p in [4u64, 64, 200] {
        for (u, v) in [(&big, &big), (&small, &small), (&big, &small)] {
            let mut x = floats(&mut g, 5, p, Mix::Narrow);
            let y = floats(&mut g, 5, p, Mix::Narrow);
            for t in x.iter_mut() {
                *t = t.clone() * u.clone();
            }
            let mut y2 = y.clone();
            for t in y2.iter_mut() {
                *t = t.clone() * v.clone();
            }
            let (xa, ya) = (arr(p, &x), arr(p, &y2));
            for rnd in Round::ALL {
                let (r, e, _, _) = both(|| {
                    let (r, t) = xa.dot(&ya, p, rnd).unwrap();
                    (r.to_floats().unwrap(), t.to_vec().unwrap())
                });
                same(
                    &format!("range p={p} {rnd:?}"),
                    (&r.0[0], r.1[0]),
                    (&e.0[0], e.1[0]),
                );
            }
        }
    }
}

fn carr(p: u64, v: &[(Float, Float)]) -> ComplexArray {
    let re: Vec<Float> = v.iter().map(|z| z.0.clone()).collect();
    let im: Vec<Float> = v.iter().map(|z| z.1.clone()).collect();
    ComplexArray::new(arr(p, &re), arr(p, &im)).unwrap()
}

fn cfloats(g: &mut Rng, n: usize, p: u64, mix: Mix) -> Vec<(Float, Float)> {
    let (re, im) = (floats(g, n, p, mix), floats(g, n, p, mix));
    re.into_iter().zip(im).collect()
}

type CPair = (Vec<(Float, Float)>, Vec<i8>, Vec<i8>);

fn cout(r: &ComplexArray, t: &mparray::complex::ComplexTernary) -> CPair {
    (
        r.to_floats().unwrap(),
        t.re.to_vec().unwrap(),
        t.im.to_vec().unwrap(),
    )
}

fn csame(what: &str, x: &CPair, y: &CPair) {
    for e in 0..x.0.len() {
        same(
            &format!("{what} re {e}"),
            (&x.0[e].0, x.1[e]),
            (&y.0[e].0, y.1[e]),
        );
        same(
            &format!("{what} im {e}"),
            (&x.0[e].1, x.2[e]),
            (&y.0[e].1, y.2[e]),
        );
    }
}

/// Complex gemm, gemv, herk, dotu and dotc: the fast path against the
/// exact core (itself checked against rationals by tests/blas_cpu.rs),
/// every op and conjugation, parts in different precisions and modes.
#[test]
fn complex_against_exact() {
    let _l = lock();
    let mut g = Rng(seed());
    // Narrow inputs: parts decided by the fast path and by the exact core.
    let (mut fast_n, mut exact_n) = (0, 0);
    for (case, &p) in PRECS.iter().enumerate() {
        let q = [p, 64, p + 1][g.index(3)];
        let pi = [p, 53, 2 * p][g.index(3)];
        let mix = [Mix::Narrow, Mix::Wide, Mix::Narrow, Mix::Special][case % 4];
        let (m, n, k) = match case % 3 {
            0 => (g.index(4), g.index(4), g.index(4)),
            1 => (2, 3, 40 + g.index(50)),
            _ => (1 + g.index(4), 1 + g.index(4), 1 + g.index(7)),
        };
        let (oa, ob) = (op_of(&mut g), op_of(&mut g));
        let (ar, ac) = dims(oa, m, k);
        let (br, bc) = dims(ob, k, n);
        let a = Matrix::from_array(carr(q, &cfloats(&mut g, ar * ac, q, mix)), ar, ac).unwrap();
        let b = Matrix::from_array(carr(q, &cfloats(&mut g, br * bc, q, mix)), br, bc).unwrap();
        let c = Matrix::from_array(carr(q, &cfloats(&mut g, m * n, q, mix)), m, n).unwrap();
        let sc = |g: &mut Rng| carr(q, &[(scalar(g, q), scalar(g, q))]);
        let (alpha, beta) = (sc(&mut g), sc(&mut g));
        // A zero alpha leaves zero sums (their signs need the terms).
        let al0 = alpha.to_floats().unwrap()[0].clone();
        let counted = matches!(mix, Mix::Narrow) && k > 0 && !(al0.0.is_zero() && al0.1.is_zero());
        let with_c = g.below(2) == 0;
        for rnd in Round::ALL {
            let cr = CRound::new(rnd, Round::ALL[g.index(5)]);
            let o = CGemm {
                op_a: oa,
                op_b: ob,
                prec_re: p,
                prec_im: pi,
                rnd: cr,
            };
            let (x, y, f, s) = both(|| {
                let (r, t) = a
                    .gemm(&b, &alpha, with_c.then_some((&beta, &c)), &o)
                    .unwrap();
                cout(r.data(), &t)
            });
            if counted {
                (fast_n, exact_n) = (fast_n + f, exact_n + s);
            }
            csame(
                &format!("cgemm p={p}/{pi} {mix:?} {m}x{n}x{k} {oa:?}{ob:?} {cr:?}"),
                &x,
                &y,
            );
            // gemv: op(A) x + beta y.
            let xv = carr(q, &cfloats(&mut g, k, q, mix));
            let yv = carr(q, &cfloats(&mut g, m, q, mix));
            let o = CGemv {
                op: oa,
                prec_re: p,
                prec_im: pi,
                rnd: cr,
            };
            let (x, y, f, s) = both(|| {
                let (r, t) = a
                    .gemv(&alpha, &xv, with_c.then_some((&beta, &yv)), &o)
                    .unwrap();
                cout(&r, &t)
            });
            if counted {
                (fast_n, exact_n) = (fast_n + f, exact_n + s);
            }
            csame(&format!("cgemv p={p} {oa:?} {cr:?}"), &x, &y);
            // herk (real alpha, beta).
            let (hn, _) = dims(oa, ar, ac);
            let ch =
                Matrix::from_array(carr(q, &cfloats(&mut g, hn * hn, q, mix)), hn, hn).unwrap();
            let ra = arr(q, &[scalar(&mut g, q)]);
            let rb = arr(q, &[scalar(&mut g, q)]);
            for uplo in [Uplo::Upper, Uplo::Lower] {
                let o = Herk {
                    uplo,
                    trans: oa,
                    prec_re: p,
                    prec_im: pi,
                    rnd: cr,
                };
                let (x, y, _, _) = both(|| {
                    let (r, t) = a.herk(&ra, with_c.then_some((&rb, &ch)), &o).unwrap();
                    cout(r.data(), &t)
                });
                csame(&format!("herk p={p} {oa:?} {uplo:?} {cr:?}"), &x, &y);
            }
            // dotu and dotc on long vectors.
            let kl = 1 + g.index(300);
            let (u, v) = (
                carr(q, &cfloats(&mut g, kl, q, mix)),
                carr(q, &cfloats(&mut g, kl, q, mix)),
            );
            for conj in [false, true] {
                let (x, y, f, s) = both(|| {
                    let (r, t) = if conj {
                        u.dotc(&v, p, pi, cr)
                    } else {
                        u.dotu(&v, p, pi, cr)
                    }
                    .unwrap();
                    cout(&r, &t)
                });
                if counted {
                    (fast_n, exact_n) = (fast_n + f, exact_n + s);
                }
                csame(&format!("dot conj={conj} p={p} k={kl} {cr:?}"), &x, &y);
            }
        }
    }
    eprintln!("narrow inputs: fast {fast_n}, exact {exact_n}");
    assert!(
        fast_n > 10 * exact_n,
        "the fast path decides most parts: {fast_n} vs {exact_n}"
    );
}

/// Real gemv with a long K (split over threads when the rows are few).
#[test]
fn real_gemv() {
    let _l = lock();
    let mut g = Rng(seed());
    for &(p, m, k) in &[(53u64, 1usize, 700usize), (512, 3, 300), (65, 40, 17)] {
        for op in [Op::None, Op::Trans] {
            let (ar, ac) = dims(op, m, k);
            let av = floats(&mut g, ar * ac, p, Mix::Narrow);
            let a = Matrix::from_array(arr(p, &av), ar, ac).unwrap();
            let xv = floats(&mut g, k, p, Mix::Wide);
            let yv = floats(&mut g, m, p, Mix::Narrow);
            let (al, be) = (scalar(&mut g, p), scalar(&mut g, p));
            let (x, alpha, y, beta) = (
                arr(p, &xv),
                arr(p, std::slice::from_ref(&al)),
                arr(p, &yv),
                arr(p, std::slice::from_ref(&be)),
            );
            for rnd in Round::ALL {
                let o = Gemv { op, prec: p, rnd };
                let (r, e, _, _) = both(|| {
                    let (r, t) = a.gemv(&alpha, &x, Some((&beta, &y)), &o).unwrap();
                    (r.to_floats().unwrap(), t.to_vec().unwrap())
                });
                for i in 0..m {
                    let w = format!("gemv p={p} {m}x{k} {op:?} {rnd:?} row {i}");
                    same(&w, (&r.0[i], r.1[i]), (&e.0[i], e.1[i]));
                    let mut terms: Vec<Term> = (0..k)
                        .map(|kk| vec![al.clone(), at(&av, ac, op, i, kk), xv[kk].clone()])
                        .collect();
                    terms.push(vec![be.clone(), yv[i].clone()]);
                    let want = ref_sum(&terms, p, rnd).unwrap();
                    same(&w, (&r.0[i], r.1[i]), (&want.0, want.1));
                }
            }
        }
    }
}

/// Terms far below their vector's largest entry lose bits in the fixed
/// point (inexact truncation): the bound still decides the element when the
/// sum is not cancelled, and the bits are the reference's.
#[test]
fn inexact_truncation_is_decided() {
    let _l = lock();
    let mut g = Rng(seed());
    for &p in &[1u64, 53, 64, 65, 128, 512, 513] {
        let k = 40;
        let q = p.max(4);
        let mut x = floats(&mut g, k, p, Mix::Narrow);
        let mut y = floats(&mut g, k, p, Mix::Narrow);
        // Entry 0 dominates: x0 in [8, 16) and y0 in [4, 8), odd q-bit
        // mantissas, so that x0 y0 (2q bits, odd) lies at least one unit
        // of its last bit from every rounding boundary at p bits (at p = 1
        // it is half an odd number). The others (|x|, |y| < 16) are scaled
        // by 2^-e and 2^(-e/2), e from 12 to 2p + 400, each below 2^-10 and
        // all together below 1/16: they cannot cancel entry 0, and at p = 1
        // cannot move it to a boundary; at larger p their bits make the sum
        // generic. (With e from 1, one entry could cancel entry 0 exactly,
        // or the sum be representable with only truncated terms left for
        // the ternary: about 6% of seeds failed.)
        let odd = |g: &mut Rng, top: i64| {
            let mut limbs: Vec<u64> = (0..q.div_ceil(64)).map(|_| g.next()).collect();
            let hi = (q - 1) % 64;
            let last = limbs.len() - 1;
            limbs[last] &= if hi == 63 {
                u64::MAX
            } else {
                (1u64 << (hi + 1)) - 1
            };
            limbs[last] |= 1u64 << hi;
            limbs[0] |= 1;
            let m = malachite_nz::natural::Natural::from_limbs_asc(&limbs);
            let (f, o) = Float::from_natural_prec(m, q);
            assert_eq!(o, std::cmp::Ordering::Equal);
            f * Float::power_of_2(top - q as i64)
        };
        x[0] = odd(&mut g, 4);
        y[0] = odd(&mut g, 3);
        for i in 1..k {
            let e = -(g.range(12, 2 * p as i64 + 400));
            x[i] = x[i].clone() * Float::power_of_2(e);
            y[i] = y[i].clone() * Float::power_of_2(e / 2);
        }
        let (xa, ya) = (arr(p.max(4), &x), arr(p.max(4), &y));
        let terms: Vec<Term> = x
            .iter()
            .zip(&y)
            .map(|(u, v)| vec![u.clone(), v.clone()])
            .collect();
        for rnd in Round::ALL {
            let (r, e, f, _) = both(|| {
                let (r, t) = xa.dot(&ya, p, rnd).unwrap();
                (r.to_floats().unwrap(), t.to_vec().unwrap())
            });
            let w = format!("spread p={p} {rnd:?}");
            same(&w, (&r.0[0], r.1[0]), (&e.0[0], e.1[0]));
            let want = ref_sum(&terms, p, rnd).unwrap();
            same(&w, (&r.0[0], r.1[0]), (&want.0, want.1));
            assert_eq!(f, 1, "{w}: decided by the fast path");
        }
    }
}

/// Runs `f` with the AVX-512 IFMA kernel (where the CPU has it), the
/// portable kernel and the exact core: the three results, and the tiles
/// the IFMA kernel computed.
fn three<T>(f: impl Fn() -> T) -> (T, T, T, u64) {
    fixed::set_enabled(true);
    fixed::set_ifma(true);
    let t0 = fixed::ifma_state().1;
    let x = f();
    let t1 = fixed::ifma_state().1;
    fixed::set_ifma(false);
    let y = f();
    fixed::set_ifma(true);
    fixed::set_enabled(false);
    let z = f();
    fixed::set_enabled(true);
    (x, y, z, t1 - t0)
}

/// The IFMA kernel's tiles (8 columns, partial last tiles, 4 to 7
/// columns), K past its flush block (2048 / NL terms), every limb count up
/// to its largest (24) and one past it (the portable kernel), exact and
/// inexact truncations, zeros, specials in some lanes, cancellation in one
/// lane, syrk (its columns from A), complex gemm and herk: IFMA, portable and
/// exact core give the same bits, and the real elements are the rational
/// reference's. Without IFMA on this CPU both fast runs are the portable
/// kernel.
#[test]
fn ifma_tiles_against_portable_exact_and_rationals() {
    let _l = lock();
    let mut g = Rng(seed());
    let threads = rayon::current_num_threads();
    let (has, _) = fixed::ifma_state();
    eprintln!("AVX-512 IFMA on this CPU: {has}");
    // (output precision, n, k, mix); p = 1300 needs NL = 25: portable.
    let cases: [(u64, usize, usize, Mix); 14] = [
        (1, 8, 5, Mix::Narrow),
        (24, 9, 3, Mix::Wide),
        (53, 4, 1030, Mix::Narrow),
        (64, 7, 12, Mix::Special),
        (100, 16, 9, Mix::Wide),
        (128, 17, 40, Mix::Narrow),
        (256, 23, 7, Mix::Special),
        (300, 8, 1, Mix::Narrow),
        (511, 12, 190, Mix::Wide),
        (512, 9, 400, Mix::Narrow),
        (513, 5, 6, Mix::Wide),
        (1024, 10, 100, Mix::Narrow),
        (1200, 8, 4, Mix::Wide),
        (1300, 8, 3, Mix::Narrow),
    ];
    let mut tiles_seen = 0u64;
    let (mut nfast, mut nexact) = (0u64, 0u64);
    for (case, &(p, n, k, mix)) in cases.iter().enumerate() {
        let q = [p, 53, p + 7][g.index(3)];
        // Enough outputs that the dot products are not split over threads.
        let m = (1 + g.index(4)).max((2 * threads).div_ceil(n));
        let (oa, ob) = if case % 3 == 0 {
            (Op::None, Op::None)
        } else {
            (op_of(&mut g), op_of(&mut g))
        };
        let (ar, ac) = dims(oa, m, k);
        let (br, bc) = dims(ob, k, n);
        let mut av = floats(&mut g, ar * ac, q, mix);
        let mut bv = floats(&mut g, br * bc, q, mix);
        if case % 3 == 0 && k >= 3 {
            // Row 0 times column 0 cancels: A(0,1) = A(0,0), B(0,0) =
            // -B(1,0), B(k,0) = 0 beyond; every 3rd such case leaves a
            // tiny last term instead.
            av[1] = av[0].clone();
            bv[n] = -bv[0].clone();
            for kk in 2..k {
                bv[kk * n] = Float::ZERO;
            }
            if case % 2 == 0 {
                bv[2 * n] = Float::power_of_2(-(p as i64) - 300);
            }
        }
        let cv = floats(&mut g, m * n, q, mix);
        let a = Matrix::from_array(arr(q, &av), ar, ac).unwrap();
        let b = Matrix::from_array(arr(q, &bv), br, bc).unwrap();
        let c = Matrix::from_array(arr(q, &cv), m, n).unwrap();
        let (mut al, be) = (scalar(&mut g, q), scalar(&mut g, q));
        if case % 2 == 0 && al.is_zero() {
            // Some cases surely count towards the decided elements.
            al = Float::ONE;
        }
        let (alpha, beta) = (
            arr(q, std::slice::from_ref(&al)),
            arr(q, std::slice::from_ref(&be)),
        );
        let with_c = g.below(2) == 0;
        let rnd = Round::ALL[g.index(5)];
        let o = Gemm {
            op_a: oa,
            op_b: ob,
            prec: p,
            rnd,
        };
        let (f0, s0) = fixed::counters();
        let (x, y, z, tiles) = three(|| {
            let (r, t) = a
                .gemm(&b, &alpha, with_c.then_some((&beta, &c)), &o)
                .unwrap();
            (r.data().to_floats().unwrap(), t.to_vec().unwrap())
        });
        let (f1, s1) = fixed::counters();
        // Zero alpha (zero sums: their signs need the terms), specials and
        // wide exponent ranges (row and column maxima far apart) go to the
        // exact core: narrow inputs only.
        if !al.is_zero() && matches!(mix, Mix::Narrow) {
            (nfast, nexact) = (nfast + f1 - f0, nexact + s1 - s0);
        }
        tiles_seen += tiles;
        // (Specials fill most rows and columns: those go to the exact core.)
        if has && !matches!(mix, Mix::Special) {
            assert_eq!(
                tiles > 0,
                p <= 1200,
                "gemm p={p}: IFMA tiles {tiles} (NL <= 24 only)"
            );
        }
        for e in 0..m * n {
            let (i, j) = (e / n, e % n);
            let w = format!("gemm p={p} q={q} {mix:?} {m}x{n}x{k} {oa:?}{ob:?} {rnd:?} ({i},{j})");
            same(
                &format!("{w} ifma/exact"),
                (&x.0[e], x.1[e]),
                (&z.0[e], z.1[e]),
            );
            same(
                &format!("{w} portable/exact"),
                (&y.0[e], y.1[e]),
                (&z.0[e], z.1[e]),
            );
            let mut terms: Vec<Term> = (0..k)
                .map(|kk| vec![al.clone(), at(&av, ac, oa, i, kk), at(&bv, bc, ob, kk, j)])
                .collect();
            if with_c {
                terms.push(vec![be.clone(), cv[e].clone()]);
            }
            if let Some(want) = ref_sum(&terms, p, rnd) {
                same(&w, (&x.0[e], x.1[e]), (&want.0, want.1));
            }
        }
        // syrk: op(B) = op(A)^T, the columns built from A's getter.
        let (sn, _) = dims(oa, ar, ac);
        let uplo = [Uplo::Upper, Uplo::Lower][g.index(2)];
        let os = Syrk {
            uplo,
            trans: oa,
            prec: p,
            rnd,
        };
        let cs = Matrix::from_array(arr(q, &floats(&mut g, sn * sn, q, mix)), sn, sn).unwrap();
        let (x, y, z, _) = three(|| {
            let (r, t) = a.syrk(&alpha, with_c.then_some((&beta, &cs)), &os).unwrap();
            (r.data().to_floats().unwrap(), t.to_vec().unwrap())
        });
        for e in 0..sn * sn {
            let w = format!("syrk p={p} {sn} k={k} {oa:?} {uplo:?} {rnd:?} elt {e}");
            same(
                &format!("{w} ifma/exact"),
                (&x.0[e], x.1[e]),
                (&z.0[e], z.1[e]),
            );
            same(
                &format!("{w} portable/exact"),
                (&y.0[e], y.1[e]),
                (&z.0[e], z.1[e]),
            );
        }
        // Complex gemm: two column panels per tile row (real, imaginary).
        if k <= 400 {
            let ca =
                Matrix::from_array(carr(q, &cfloats(&mut g, ar * ac, q, mix)), ar, ac).unwrap();
            let cb =
                Matrix::from_array(carr(q, &cfloats(&mut g, br * bc, q, mix)), br, bc).unwrap();
            let cc = Matrix::from_array(carr(q, &cfloats(&mut g, m * n, q, mix)), m, n).unwrap();
            let sc = |g: &mut Rng| carr(q, &[(scalar(g, q), scalar(g, q))]);
            let (calpha, cbeta) = (sc(&mut g), sc(&mut g));
            let cr = CRound::new(rnd, Round::ALL[g.index(5)]);
            let oc = CGemm {
                op_a: oa,
                op_b: ob,
                prec_re: p,
                prec_im: [p, 53, p + 64][g.index(3)],
                rnd: cr,
            };
            let (x, y, z, _) = three(|| {
                let (r, t) = ca
                    .gemm(&cb, &calpha, with_c.then_some((&cbeta, &cc)), &oc)
                    .unwrap();
                cout(r.data(), &t)
            });
            let w = format!("cgemm p={p} {mix:?} {m}x{n}x{k} {oa:?}{ob:?} {cr:?}");
            csame(&format!("{w} ifma/exact"), &x, &z);
            csame(&format!("{w} portable/exact"), &y, &z);
            // herk: the columns are A's conjugated rows.
            let (hn, _) = dims(oa, ar, ac);
            let ch =
                Matrix::from_array(carr(q, &cfloats(&mut g, hn * hn, q, mix)), hn, hn).unwrap();
            let oh = Herk {
                uplo,
                trans: oa,
                prec_re: p,
                prec_im: p,
                rnd: cr,
            };
            let (x, y, z, _) = three(|| {
                let (r, t) = ca
                    .herk(&alpha, with_c.then_some((&beta, &ch)), &oh)
                    .unwrap();
                cout(r.data(), &t)
            });
            let w = format!("herk p={p} {mix:?} {hn} k={k} {oa:?} {uplo:?} {cr:?}");
            csame(&format!("{w} ifma/exact"), &x, &z);
            csame(&format!("{w} portable/exact"), &y, &z);
        }
    }
    eprintln!(
        "IFMA tiles {tiles_seen}; gemm elements fast {nfast}, exact {nexact} (both fast kernels)"
    );
    assert!(!has || tiles_seen > 0, "the IFMA kernel ran");
    assert!(
        nfast > 8 * nexact,
        "the fast path decides most elements: {nfast} vs {nexact}"
    );
}
