//! The solvers against independent references: Wilkinson roots against
//! 1..n, Chebyshev-node roots against Newton refinement in malachite at
//! four times the precision, the residual bounds against exact rational
//! evaluation of the polynomial at the returned roots, determinism (the
//! same bits twice, CPU against CUDA), and GMRES on the Hilbert matrix
//! (converging at 256 bits, stalling at 53), its true residual recomputed
//! exactly with rationals.
mod common;

use malachite_base::num::arithmetic::traits::{Abs, Pow};
use malachite_base::num::conversion::traits::{ExactFrom, RoundingFrom};
use malachite_base::rounding_modes::RoundingMode;
use malachite_float::Float;
use malachite_q::Rational;
use mparray::linalg::cuda::{Deferred, Staging};
use mparray::linalg::{Gemv, Matrix};
use mparray::solvers::gmres::{GmresOpts, GmresResult, Ortho, gmres, gmres_complex};
use mparray::solvers::problems::{self, coeff_array};
use mparray::solvers::roots::{self, AberthOpts, Radius, RootsResult, Start, StsOpts};
use mparray::{ComplexArray, Engine, FloatArray, Round};

type C = (Rational, Rational);

fn q(f: &Float) -> Rational {
    Rational::exact_from(f)
}

fn cmul(a: &C, b: &C) -> C {
    (&a.0 * &b.0 - &a.1 * &b.1, &a.0 * &b.1 + &a.1 * &b.0)
}

fn cadd(a: &C, b: &C) -> C {
    (&a.0 + &b.0, &a.1 + &b.1)
}

fn norm2(a: &C) -> Rational {
    &a.0 * &a.0 + &a.1 * &a.1
}

/// `p(x)` exactly, for ascending coefficients.
fn eval_exact(c: &[C], x: &C) -> C {
    let mut s = c[c.len() - 1].clone();
    for k in (0..c.len() - 1).rev() {
        s = cadd(&cmul(&s, x), &c[k]);
    }
    s
}

fn roots_exact(r: &RootsResult) -> Vec<C> {
    r.roots
        .to_floats()
        .unwrap()
        .iter()
        .map(|(a, b)| (q(a), q(b)))
        .collect()
}

fn coeffs_exact(a: &ComplexArray) -> Vec<C> {
    a.to_floats()
        .unwrap()
        .iter()
        .map(|(x, y)| (q(x), q(y)))
        .collect()
}

/// Every residual bound is an upper bound on the exact `|p(root)|`.
fn check_bounds(a: &ComplexArray, r: &RootsResult) {
    let c = coeffs_exact(a);
    let b = r.residual_bound.to_floats().unwrap();
    for (i, x) in roots_exact(r).iter().enumerate() {
        let v = norm2(&eval_exact(&c, x));
        let bi = q(&b[i]);
        assert!(
            v <= &bi * &bi,
            "root {i}: |p(x)| exceeds its bound {}",
            b[i]
        );
    }
}

fn run_both(a: &ComplexArray, prec: u64) -> [RootsResult; 2] {
    [
        roots::aberth(a, prec, &AberthOpts::default()).unwrap(),
        roots::sts_pade(a, prec, &StsOpts::default()).unwrap(),
    ]
}

#[test]
fn wilkinson_20_roots_are_1_to_20() {
    let n = 20;
    let c = problems::wilkinson(n).unwrap();
    for prec in [64u64, 96, 256] {
        let a = coeff_array(&c, prec, &Engine::Cpu).unwrap();
        let ca = coeffs_exact(&a);
        let runs = [
            roots::aberth(
                &a,
                prec,
                &AberthOpts {
                    max_iter: 60,
                    ..Default::default()
                },
            )
            .unwrap(),
            roots::sts_pade(
                &a,
                prec,
                &StsOpts {
                    max_iter: 60,
                    ..Default::default()
                },
            )
            .unwrap(),
        ];
        for r in runs {
            // At 64 bits the noise regions of the large roots are wide and
            // a run may end unconverged; its flags must then say so.
            if prec == 64 && !r.converged.iter().all(|&c| c) {
                eprintln!(
                    "64 bits: {} of 20 converged",
                    r.converged.iter().filter(|&&c| c).count()
                );
                continue;
            }
            assert!(r.converged.iter().all(|&c| c), "{prec} bits: not converged");
            check_bounds(&a, &r);
            // The accuracy the precision allows: a root k moves by about
            // 2^-prec sum |a_j| k^j / |p'(k)| under rounding noise; allow 8n
            // times that.
            let mut xs = roots_exact(&r);
            xs.sort_by(|u, v| u.0.cmp(&v.0));
            for (k, x) in (1..=n).zip(&xs) {
                let kk = Rational::from(k as u64);
                let s: Rational = ca
                    .iter()
                    .enumerate()
                    .map(|(j, a)| a.0.clone().abs() * kk.clone().pow(j as u64))
                    .sum();
                let mut dp = Rational::from(1u32);
                for j in 1..=n {
                    if j != k {
                        dp *= Rational::from(k as i64 - j as i64).abs();
                    }
                }
                let tol = Rational::from(8 * n as u64) * s / dp * problems::pow2(-(prec as i64));
                let err = norm2(&(&x.0 - &kk, x.1.clone()));
                assert!(
                    err <= &tol * &tol,
                    "{prec} bits: root {k} is off by more than {tol:?}"
                );
            }
        }
    }
}

/// Newton's iteration in complex malachite floats at `w` bits from `x`.
fn newton(c: &[C], x: &C, w: u64) -> (Float, Float) {
    let f = |r: &Rational| Float::from_rational_prec(r.clone(), w).0;
    let cf: Vec<(Float, Float)> = c.iter().map(|(a, b)| (f(a), f(b))).collect();
    let mul = |a: &(Float, Float), b: &(Float, Float)| {
        (
            a.0.mul_prec_ref_ref(&b.0, w)
                .0
                .sub_prec(a.1.mul_prec_ref_ref(&b.1, w).0, w)
                .0,
            a.0.mul_prec_ref_ref(&b.1, w)
                .0
                .add_prec(a.1.mul_prec_ref_ref(&b.0, w).0, w)
                .0,
        )
    };
    let add = |a: &(Float, Float), b: &(Float, Float)| {
        (
            a.0.add_prec_ref_ref(&b.0, w).0,
            a.1.add_prec_ref_ref(&b.1, w).0,
        )
    };
    let mut z = (f(&x.0), f(&x.1));
    for _ in 0..8 {
        let mut p = cf[cf.len() - 1].clone();
        let mut d = (Float::from(0), Float::from(0));
        for k in (0..cf.len() - 1).rev() {
            d = add(&mul(&d, &z), &p);
            p = add(&mul(&p, &z), &cf[k]);
        }
        // z -= p/d
        let den =
            d.0.mul_prec_ref_ref(&d.0, w)
                .0
                .add_prec(d.1.mul_prec_ref_ref(&d.1, w).0, w)
                .0;
        let num = mul(&p, &(d.0.clone(), -d.1.clone()));
        z = (
            z.0.sub_prec(num.0.div_prec_ref_ref(&den, w).0, w).0,
            z.1.sub_prec(num.1.div_prec_ref_ref(&den, w).0, w).0,
        );
    }
    z
}

#[test]
fn chebyshev_roots_match_newton_at_four_times_the_precision() {
    for (n, prec) in [(9usize, 128u64), (12, 128), (16, 256)] {
        let c = problems::chebyshev_nodes(n).unwrap();
        let a = coeff_array(&c, prec, &Engine::Cpu).unwrap();
        let ca = coeffs_exact(&a);
        for r in run_both(&a, prec) {
            assert!(r.converged.iter().all(|&c| c));
            check_bounds(&a, &r);
            let xs = roots_exact(&r);
            let refined: Vec<C> = xs
                .iter()
                .map(|x| {
                    let z = newton(&ca, x, 4 * prec);
                    (q(&z.0), q(&z.1))
                })
                .collect();
            for (i, (x, z)) in xs.iter().zip(&refined).enumerate() {
                // The roots are well separated (>= 1e-3) and of modulus < 1:
                // agreement to 2^(16 - prec) is the working accuracy.
                let d = norm2(&(&x.0 - &z.0, &x.1 - &z.1));
                let tol = problems::pow2(2 * (16 - prec as i64));
                assert!(
                    d <= tol,
                    "n={n}, {prec} bits: root {i} is far from its refinement"
                );
                for z2 in &refined[..i] {
                    let sep = norm2(&(&z.0 - &z2.0, &z.1 - &z2.1));
                    assert!(sep > problems::pow2(-20), "n={n}: two roots refine to one");
                }
            }
        }
    }
}

/// Roots, bounds (hex), flags and the iteration count.
type Bits = (Vec<(String, String)>, Vec<String>, Vec<bool>, usize);

fn bits(r: &RootsResult) -> Bits {
    (
        r.roots.to_hex_strings().unwrap(),
        r.residual_bound.to_hex_strings().unwrap(),
        r.converged.clone(),
        r.iterations,
    )
}

#[test]
fn same_bits_twice_and_for_every_start() {
    let c = problems::chebyshev_nodes(10).unwrap();
    let a = coeff_array(&c, 96, &Engine::Cpu).unwrap();
    let [x, y] = run_both(&a, 96);
    let [x2, y2] = run_both(&a, 96);
    assert_eq!(bits(&x), bits(&x2));
    assert_eq!(bits(&y), bits(&y2));
    // Other starts and orders converge too.
    for radius in [Radius::Fujiwara, Radius::Fixed(3.0)] {
        let start = Start {
            radius,
            offset: 0.1,
            center: Some((0.01, -0.02)),
        };
        for order in [1, 2, 4] {
            let r = roots::aberth(
                &a,
                96,
                &AberthOpts {
                    order,
                    start,
                    ..Default::default()
                },
            )
            .unwrap();
            assert!(
                r.converged.iter().all(|&c| c),
                "aberth L={order} {radius:?}"
            );
            check_bounds(&a, &r);
        }
        for m in [2, 3, 6] {
            let r = roots::sts_pade(
                &a,
                96,
                &StsOpts {
                    m,
                    start,
                    ..Default::default()
                },
            )
            .unwrap();
            assert!(r.converged.iter().all(|&c| c), "sts m={m} {radius:?}");
            check_bounds(&a, &r);
        }
    }
}

#[test]
fn complex_coefficients_and_small_degrees() {
    // (z - (1+2i)) (z + 3i) (z - 0.5) = expanded exactly.
    let rts: Vec<C> = vec![
        (Rational::from(1u32), Rational::from(2u32)),
        (Rational::from(0u32), Rational::from(-3i32)),
        (
            Rational::from(1u32) / Rational::from(2u32),
            Rational::from(0u32),
        ),
    ];
    let mut c: Vec<C> = vec![(Rational::from(1u32), Rational::from(0u32))];
    for r in &rts {
        let mut next = vec![(Rational::from(0u32), Rational::from(0u32)); c.len() + 1];
        for (i, ci) in c.iter().enumerate() {
            next[i + 1] = cadd(&next[i + 1], ci);
            let m = cmul(ci, r);
            next[i] = (&next[i].0 - &m.0, &next[i].1 - &m.1);
        }
        c = next;
    }
    let f = |r: &Rational| format!("{}", Float::from_rational_prec(r.clone(), 80).0);
    let items: Vec<(String, String)> = c.iter().map(|(a, b)| (f(a), f(b))).collect();
    let a = ComplexArray::from_strs(80, 80, &items).unwrap();
    for r in run_both(&a, 80) {
        assert!(r.converged.iter().all(|&c| c));
        check_bounds(&a, &r);
        for want in &rts {
            let best = roots_exact(&r)
                .iter()
                .map(|x| norm2(&(&x.0 - &want.0, &x.1 - &want.1)))
                .min()
                .unwrap();
            assert!(best < problems::pow2(-140));
        }
    }
    // Degree 1: one root.
    let a = ComplexArray::from_strs(64, 64, &[("3", "0"), ("2", "0")]).unwrap();
    let r = roots::aberth(&a, 64, &AberthOpts::default()).unwrap();
    assert_eq!(
        r.roots.to_dec_strings(5, Round::Nearest).unwrap()[0].0,
        "-1.5000e+00"
    );
}

#[test]
fn bad_polynomials_are_errors() {
    let lead0 = ComplexArray::from_strs(64, 64, &[("1", "0"), ("2", "0"), ("0", "0")]).unwrap();
    let e = roots::aberth(&lead0, 64, &AberthOpts::default()).unwrap_err();
    assert!(e.to_string().contains("leading coefficient"), "{e}");
    let deg0 = ComplexArray::from_strs(64, 64, &[("1", "0")]).unwrap();
    let e = roots::sts_pade(&deg0, 64, &StsOpts::default()).unwrap_err();
    assert!(e.to_string().contains("degree 0"), "{e}");
    let nan = ComplexArray::from_strs(64, 64, &[("nan", "0"), ("1", "0")]).unwrap();
    assert!(roots::aberth(&nan, 64, &AberthOpts::default()).is_err());
    let ok = ComplexArray::from_strs(64, 64, &[("1", "0"), ("1", "0")]).unwrap();
    assert!(
        roots::aberth(
            &ok,
            64,
            &AberthOpts {
                order: 0,
                ..Default::default()
            }
        )
        .is_err()
    );
    assert!(
        roots::sts_pade(
            &ok,
            64,
            &StsOpts {
                m: 1,
                ..Default::default()
            }
        )
        .is_err()
    );
    assert!(
        roots::aberth(
            &ok,
            64,
            &AberthOpts {
                tol: Some(-1.0),
                ..Default::default()
            }
        )
        .is_err()
    );
    assert!(problems::wilkinson(0).is_err());
}

/// The Hilbert matrix of order 12 (cond_2 about 1.7e16) and `b_i =
/// (-1)^i`, whose solution has norm about 2.1e16: a backward-stable solve
/// at 53 bits leaves a relative residual near `2^-53 ||A|| ||x|| / ||b||`,
/// about 1.
fn hilbert_problem(prec: u64) -> (Matrix<FloatArray>, FloatArray) {
    let n = 12;
    let a = problems::hilbert(n, prec, &Engine::Cpu).unwrap();
    let e: Vec<i64> = (0..n).map(|i| if i % 2 == 0 { 1 } else { -1 }).collect();
    (
        a,
        FloatArray::from_i64s(prec, &e, Round::Nearest).unwrap().0,
    )
}

/// `||b - A x||^2 / ||b||^2` exactly, for the matrix and vectors as stored.
fn exact_rel_residual2(a: &Matrix<FloatArray>, b: &FloatArray, x: &FloatArray) -> Rational {
    let n = a.rows();
    let ar = a.to_rows().unwrap();
    let bv: Vec<Rational> = b.to_floats().unwrap().iter().map(q).collect();
    let xv: Vec<Rational> = x.to_floats().unwrap().iter().map(q).collect();
    let mut r2 = Rational::from(0u32);
    for i in 0..n {
        let mut s = bv[i].clone();
        for j in 0..n {
            s -= q(&ar[i][j]) * &xv[j];
        }
        r2 += &s * &s;
    }
    let b2: Rational = bv.iter().map(|v| v * v).sum();
    r2 / b2
}

#[test]
fn gmres_hilbert_converges_at_256_bits_and_stalls_at_53() {
    let tol = 1e-20;
    for ortho in [Ortho::Dgks, Ortho::Cgs2, Ortho::Mgs] {
        let (a, b) = hilbert_problem(256);
        let o = GmresOpts {
            restart: 12,
            tol,
            prec: 256,
            max_restarts: 4,
            ortho,
        };
        let r = gmres(&a, &b, None, &o).unwrap();
        assert!(r.converged, "256 bits, {ortho:?}: {:?}", r.true_residuals);
        let rel2 = exact_rel_residual2(&a, &b, &r.x);
        let t = Rational::exact_from(tol);
        assert!(
            rel2 <= &t * &t,
            "256 bits, {ortho:?}: the exact residual misses the tolerance"
        );
        // The same problem at 53 bits: the residual stalls far above tol.
        let (a, b) = hilbert_problem(53);
        let r = gmres(&a, &b, None, &GmresOpts { prec: 53, ..o }).unwrap();
        assert!(
            !r.converged,
            "53 bits, {ortho:?} converged: {:?}",
            r.true_residuals
        );
        let rel2 = exact_rel_residual2(&a, &b, &r.x);
        assert!(
            rel2 > Rational::from(10u32).pow(-12i64),
            "53 bits, {ortho:?}: the exact residual is small"
        );
        eprintln!(
            "53 bits, {ortho:?}: true relative residuals {:?}",
            r.true_residuals
        );
    }
}

/// `R + 2 sqrt(n) I` (R uniform in [-1, 1), seeded) and `b` random, at
/// `prec` bits on the CPU engine.
fn random_problem(n: usize, prec: u64, seed: u64) -> (Matrix<FloatArray>, FloatArray) {
    let r = Matrix::<FloatArray>::random(&Engine::Cpu, n, n, prec, seed).unwrap();
    let s = 2.0 * (n as f64).sqrt();
    let d: Vec<f64> = (0..n * n)
        .map(|k| if k / n == k % n { s } else { 0.0 })
        .collect();
    let d = FloatArray::from_f64s(prec, &d, Round::Nearest).unwrap().0;
    let a = r.into_data().add(&d, prec, Round::Nearest).unwrap();
    let b = FloatArray::random_unit(&Engine::Cpu, n, prec, seed ^ 0x5eed).unwrap();
    (Matrix::from_array(a, n, n).unwrap(), b)
}

/// The restarted iteration on a random problem (several cycles, both
/// orthogonalisations), its reported true residual against the exact one,
/// a start at the solution, and an exact breakdown.
#[test]
fn gmres_restarts_breakdown_and_start() {
    let seed = common::seed();
    let (n, prec, tol) = (40, 192, 1e-40);
    let (a, b) = random_problem(n, prec, seed);
    let mut xs = Vec::new();
    for ortho in [Ortho::Dgks, Ortho::Cgs2, Ortho::Mgs] {
        let o = GmresOpts {
            restart: 7,
            tol,
            prec,
            max_restarts: 40,
            ortho,
        };
        let r = gmres(&a, &b, None, &o).unwrap();
        assert!(r.converged && r.restarts > 1, "{ortho:?}: {r:?}");
        assert_eq!(r.history.len(), r.iterations);
        assert_eq!(r.true_residuals.len(), r.restarts + 1);
        let rel2 = exact_rel_residual2(&a, &b, &r.x);
        let t = Rational::exact_from(tol);
        assert!(rel2 <= &t * &t, "{ortho:?}: exact residual");
        // The reported true residual is ||b - A x|| / ||b|| to rounding.
        let got = r.true_residuals.last().unwrap();
        let want = f64::rounding_from(&rel2, RoundingMode::Nearest).0.sqrt();
        assert!((got / want - 1.0).abs() < 1e-12, "{ortho:?}: {got} {want}");
        xs.push(r.x.to_hex_strings().unwrap());
        // Started at the returned x: converged at once, no step.
        let r2 = gmres(&a, &b, Some(&r.x), &o).unwrap();
        assert!(r2.converged && r2.iterations == 0 && r2.restarts == 0);
        assert_eq!(r2.x.to_hex_strings().unwrap(), xs.last().unwrap().clone());
    }
    // A = 2 I, b = e_0: v_0 = e_0, A v_0 - 2 v_0 = 0 exactly (breakdown at
    // the first step) and x = e_0 / 2 exactly.
    let mut d = vec![0.0; 9];
    d[0] = 2.0;
    d[4] = 2.0;
    d[8] = 2.0;
    let a = Matrix::from_array(
        FloatArray::from_f64s(64, &d, Round::Nearest).unwrap().0,
        3,
        3,
    )
    .unwrap();
    let b = FloatArray::from_f64s(64, &[1.0, 0.0, 0.0], Round::Nearest)
        .unwrap()
        .0;
    for ortho in [Ortho::Dgks, Ortho::Cgs2, Ortho::Mgs] {
        let o = GmresOpts {
            restart: 3,
            tol: 0.0,
            prec: 64,
            max_restarts: 3,
            ortho,
        };
        let r = gmres(&a, &b, None, &o).unwrap();
        assert!(r.converged && r.iterations == 1, "{ortho:?}: {r:?}");
        assert_eq!(r.x.to_f64s(Round::Nearest).unwrap(), vec![0.5, 0.0, 0.0]);
    }
}

/// `(1 + 2i) H_12` and `b_j = (-1)^j (1 + i)`, both exact complex data at
/// `prec` bits (the Hilbert elements rounded once, then scaled exactly).
fn complex_hilbert(prec: u64) -> (Matrix<ComplexArray>, ComplexArray) {
    let (h, b) = hilbert_problem(prec);
    let n = h.rows();
    let hd = h.into_data();
    let two = FloatArray::from_i64s(prec + 2, &vec![2; n * n], Round::Nearest)
        .unwrap()
        .0;
    let a = ComplexArray::new(
        hd.try_clone().unwrap(),
        hd.mul(&two, prec + 2, Round::Nearest).unwrap(),
    )
    .unwrap();
    let bc = ComplexArray::new(b.try_clone().unwrap(), b).unwrap();
    (Matrix::from_array(a, n, n).unwrap(), bc)
}

#[test]
fn gmres_complex_converges_at_256_bits_and_stalls_at_53() {
    let tol = 1e-20;
    for (prec, want, ortho) in [
        (256u64, true, Ortho::Cgs2),
        (53, false, Ortho::Cgs2),
        (256, true, Ortho::Mgs),
        (53, false, Ortho::Mgs),
    ] {
        let (a, b) = complex_hilbert(prec);
        let o = GmresOpts {
            restart: 12,
            tol,
            prec,
            max_restarts: 4,
            ortho,
        };
        let r = gmres_complex(&a, &b, None, &o).unwrap();
        assert_eq!(
            r.converged, want,
            "{prec} bits, {ortho:?}: {:?}",
            r.true_residuals
        );
        // The exact residual of the returned x.
        let ar = a.to_rows().unwrap();
        let bv = coeffs_exact(&b);
        let xv = coeffs_exact(&r.x);
        let (mut r2, mut b2) = (Rational::from(0u32), Rational::from(0u32));
        for i in 0..a.rows() {
            let mut s = bv[i].clone();
            for j in 0..a.cols() {
                let m = cmul(&(q(&ar[i][j].0), q(&ar[i][j].1)), &xv[j]);
                s = (&s.0 - &m.0, &s.1 - &m.1);
            }
            r2 += norm2(&s);
            b2 += norm2(&bv[i]);
        }
        let t = Rational::exact_from(tol);
        assert_eq!(r2 <= &t * &t * b2, want, "{prec} bits: exact residual");
    }
}

#[test]
fn gmres_bad_shapes_are_errors() {
    let a = Matrix::from_array(FloatArray::zeros(&Engine::Cpu, 6, 64).unwrap(), 2, 3).unwrap();
    let b = FloatArray::zeros(&Engine::Cpu, 2, 64).unwrap();
    let e = gmres(&a, &b, None, &GmresOpts::default()).unwrap_err();
    assert!(e.to_string().contains("square"), "{e}");
    let (a, _) = hilbert_problem(64);
    let b = FloatArray::zeros(&Engine::Cpu, 5, 64).unwrap();
    let e = gmres(&a, &b, None, &GmresOpts::default()).unwrap_err();
    assert!(e.to_string().contains("b has 5"), "{e}");
}

#[test]
#[ignore = "needs a CUDA device"]
fn cuda_gives_the_cpu_bits() {
    let cuda = Engine::cuda().expect("a CUDA device");
    for (c, prec) in [
        (problems::wilkinson(20).unwrap(), 128u64),
        (problems::chebyshev_nodes(16).unwrap(), 256),
    ] {
        let a = coeff_array(&c, prec, &Engine::Cpu).unwrap();
        let ad = a.to_engine(&cuda).unwrap();
        let cpu = run_both(&a, prec);
        let dev = run_both(&ad, prec);
        for (x, y) in cpu.iter().zip(&dev) {
            assert!(y.roots.engine().is_cuda());
            assert_eq!(bits(x), bits(y));
        }
    }
    let (a, b) = hilbert_problem(256);
    let o = GmresOpts {
        restart: 12,
        tol: 1e-20,
        prec: 256,
        max_restarts: 4,
        ..GmresOpts::default()
    };
    let x = gmres(&a, &b, None, &o).unwrap();
    let y = gmres(
        &a.to_engine(&cuda).unwrap(),
        &b.to_engine(&cuda).unwrap(),
        None,
        &o,
    )
    .unwrap();
    assert_eq!(x.x.to_hex_strings().unwrap(), y.x.to_hex_strings().unwrap());
    assert_eq!(x.history, y.history);
}

/// The bits of everything a GMRES run returns.
fn gmres_bits<X>(r: &GmresResult<X>, x: Vec<String>) -> GBits {
    (
        x,
        r.history.clone(),
        r.true_residuals.clone(),
        vec![
            r.true_residual.to_hex_strings().unwrap(),
            r.b_norm.to_hex_strings().unwrap(),
        ],
        (r.iterations, r.restarts, r.converged),
    )
}

type GBits = (
    Vec<String>,
    Vec<f64>,
    Vec<f64>,
    Vec<Vec<String>>,
    (usize, usize, bool),
);

/// Whole GMRES runs on CUDA against the CPU engine, bit for bit: real
/// (both orthogonalisations, several restarts, a precision above the
/// device BLAS's tiers) and complex.
#[test]
#[ignore = "needs a CUDA device"]
fn cuda_gmres_gives_the_cpu_bits() {
    let cuda = Engine::cuda().expect("a CUDA device");
    let seed = common::seed();
    for (n, prec, m, tol) in [
        (300, 256u64, 20, 1e-60),
        (33, 1100, 5, 1e-200),
        (12, 53, 12, 1e-20),
    ] {
        let (a, b) = if n == 12 {
            hilbert_problem(prec)
        } else {
            random_problem(n, prec, seed)
        };
        let (ad, bd) = (a.to_engine(&cuda).unwrap(), b.to_engine(&cuda).unwrap());
        for ortho in [Ortho::Dgks, Ortho::Cgs2, Ortho::Mgs] {
            let o = GmresOpts {
                restart: m,
                tol,
                prec,
                max_restarts: 6,
                ortho,
            };
            let x = gmres(&a, &b, None, &o).unwrap();
            let y = gmres(&ad, &bd, None, &o).unwrap();
            assert!(y.x.engine().is_cuda());
            eprintln!(
                "n {n}, {prec} bits, {ortho:?}: {} steps, {} restarts, residual {:?}",
                y.iterations,
                y.restarts,
                y.true_residuals.last()
            );
            assert_eq!(
                gmres_bits(&x, x.x.to_hex_strings().unwrap()),
                gmres_bits(&y, y.x.to_hex_strings().unwrap()),
                "n {n}, {prec} bits, {ortho:?}"
            );
        }
    }
    for ortho in [Ortho::Dgks, Ortho::Cgs2, Ortho::Mgs] {
        let (a, b) = complex_hilbert(256);
        let o = GmresOpts {
            restart: 12,
            tol: 1e-20,
            prec: 256,
            max_restarts: 4,
            ortho,
        };
        let cx = |r: &GmresResult<ComplexArray>| {
            let mut v = r.x.re().unwrap().to_hex_strings().unwrap();
            v.extend(r.x.im().unwrap().to_hex_strings().unwrap());
            v
        };
        let x = gmres_complex(&a, &b, None, &o).unwrap();
        let y = gmres_complex(
            &a.to_engine(&cuda).unwrap(),
            &b.to_engine(&cuda).unwrap(),
            None,
            &o,
        )
        .unwrap();
        assert_eq!(
            gmres_bits(&x, cx(&x)),
            gmres_bits(&y, cx(&y)),
            "complex, {ortho:?}"
        );
    }
}

/// Writes the pipeline tests' problems into `dir`: `rA.mtx`/`rb.mtx`, a
/// random `n x n` matrix `R + 2 sqrt(n) I` (R uniform in [-1, 1), seeded),
/// and `hA.mtx`/`hb.mtx`, the Hilbert matrix of order 12 and `b_i =
/// (-1)^i` (as f64 decimal strings).
fn write_pipeline_problems(dir: &std::path::Path, n: usize) {
    std::fs::create_dir_all(dir).unwrap();
    let mut state = common::seed() | 1;
    let mut rnd = move || {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        (state >> 11) as f64 / (1u64 << 53) as f64 * 2.0 - 1.0
    };
    let write = |name: &str, rows: usize, cols: usize, v: &[f64]| {
        let mut s = format!("%%MatrixMarket matrix array real general\n{rows} {cols}\n");
        for x in v {
            s.push_str(&format!("{x:e}\n"));
        }
        std::fs::write(dir.join(name), s).unwrap();
    };
    let a: Vec<f64> = (0..n * n)
        .map(|k| {
            rnd()
                + if k / n == k % n {
                    2.0 * (n as f64).sqrt()
                } else {
                    0.0
                }
        })
        .collect();
    let b: Vec<f64> = (0..n).map(|_| rnd()).collect();
    write("rA.mtx", n, n, &a);
    write("rb.mtx", n, 1, &b);
    let h: Vec<f64> = (0..144)
        .map(|k| 1.0 / ((k / 12 + k % 12 + 1) as f64))
        .collect();
    let hb: Vec<f64> = (0..12)
        .map(|i| if i % 2 == 0 { 1.0 } else { -1.0 })
        .collect();
    write("hA.mtx", 12, 12, &h);
    write("hb.mtx", 12, 1, &hb);
}

/// `mparray gmres --engine ENGINE ARGS` on problem `p` of `dir` as a child
/// process with `env`: its output without the timing line, and its
/// standard error.
fn run_gmres_cli(
    dir: &std::path::Path,
    p: &str,
    engine: &str,
    args: &[&str],
    env: &[(&str, &str)],
) -> (String, String) {
    let mut c = std::process::Command::new(common::mparray_bin());
    c.args(["gmres", "--engine", engine]).args(args);
    c.arg(dir.join(format!("{p}A.mtx")))
        .arg(dir.join(format!("{p}b.mtx")));
    for (k, v) in env {
        c.env(k, v);
    }
    let o = c.output().unwrap();
    assert!(
        o.status.success(),
        "{engine} {args:?} {env:?}: {}",
        String::from_utf8_lossy(&o.stderr)
    );
    let out = String::from_utf8(o.stdout)
        .unwrap()
        .lines()
        .filter(|l| !l.starts_with("% gmres:"))
        .collect::<Vec<_>>()
        .join("\n");
    (out, String::from_utf8_lossy(&o.stderr).into_owned())
}

/// The pipelined steps kept, from `MPARRAY_GMRES_TRACE=1`'s summary line.
fn kept_steps(trace: &str) -> usize {
    trace
        .split("gmres trace: ")
        .nth(1)
        .and_then(|t| t.split(' ').next())
        .and_then(|k| k.parse().ok())
        .unwrap_or(0)
}

/// The pipeline tests' cases: a random diagonally shifted matrix at 256
/// bits (a cycle ending early on convergence) and at 1100 bits, and the
/// 53-bit Hilbert matrix (second DGKS passes).
const PIPELINE_CASES: [(&str, &[&str]); 3] = [
    (
        "r",
        &["--prec", "256", "--restart", "7", "--max-restarts", "8"],
    ),
    (
        "r",
        &["--prec", "1100", "--restart", "5", "--max-restarts", "3"],
    ),
    (
        "h",
        &["--prec", "53", "--restart", "12", "--max-restarts", "3"],
    ),
];

/// The DGKS pipeline (`MPARRAY_GMRES_PIPE=1` turns it on on any engine,
/// `=0` off; on the CPU engine its deferred reads fall back to immediate
/// ones) gives the bits of the step-by-step path: `mparray gmres` run as a
/// child process (the switch is an environment variable) on a random
/// 60 x 60 at 256 and 1100 bits and the 53-bit Hilbert matrix, with the
/// pipeline off, on, and on with every step's speculation rejected
/// (`MPARRAY_GMRES_REDO=1`): every digit of x and of the residual history
/// equal, and most steps keep their speculation (the path under test).
/// The asynchronous device read the pipeline relies on is tested on CUDA
/// by `cuda_gmres_deferred_read_waits_for_the_copy`.
#[test]
fn gmres_pipeline_gives_the_same_bits() {
    let dir = std::env::temp_dir().join(format!("mparray-gmres-pipe-{}", std::process::id()));
    let n = 60;
    write_pipeline_problems(&dir, n);
    for (p, args) in PIPELINE_CASES {
        let run = |env: &[(&str, &str)]| run_gmres_cli(&dir, p, "cpu", args, env);
        let base = run(&[("MPARRAY_GMRES_PIPE", "0")]).0;
        assert!(base.lines().count() > n / 5, "{args:?}: {base}");
        let (piped, trace) = run(&[("MPARRAY_GMRES_PIPE", "1"), ("MPARRAY_GMRES_TRACE", "1")]);
        assert_eq!(base, piped, "{args:?}");
        assert!(kept_steps(&trace) >= 10, "{args:?}: {trace}");
        assert_eq!(
            base,
            run(&[("MPARRAY_GMRES_PIPE", "1"), ("MPARRAY_GMRES_REDO", "1")]).0,
            "{args:?}, redo"
        );
    }
    let _ = std::fs::remove_dir_all(&dir);
}

/// The DGKS pipeline on CUDA against the CPU engine, bit for bit: `mparray
/// gmres --engine cuda` with the pipeline on (`MPARRAY_GMRES_PIPE=1`, and
/// with `MPARRAY_GMRES_REDO=1`), off (`=0`) and as by default, against
/// `--engine cpu`, on the cases of `gmres_pipeline_gives_the_same_bits`
/// with a random 400 x 400 (the device's queue a product ahead of the
/// host's reads, as in the bench).
#[test]
#[ignore = "needs a CUDA device"]
fn cuda_gmres_pipeline_gives_the_cpu_bits() {
    Engine::cuda().expect("a CUDA device");
    let dir = std::env::temp_dir().join(format!("mparray-gmres-cpipe-{}", std::process::id()));
    write_pipeline_problems(&dir, 400);
    for (p, args) in PIPELINE_CASES {
        let cpu = run_gmres_cli(&dir, p, "cpu", args, &[]).0;
        assert!(cpu.lines().count() > 12, "{args:?}: {cpu}");
        let (piped, trace) = run_gmres_cli(
            &dir,
            p,
            "cuda",
            args,
            &[("MPARRAY_GMRES_PIPE", "1"), ("MPARRAY_GMRES_TRACE", "1")],
        );
        assert_eq!(cpu, piped, "{args:?}, pipeline");
        eprintln!(
            "{args:?}: {}",
            trace
                .lines()
                .filter(|l| l.contains("gmres trace"))
                .collect::<Vec<_>>()
                .join("; ")
        );
        assert!(kept_steps(&trace) >= 5, "{args:?}: {trace}");
        for env in [
            &[("MPARRAY_GMRES_PIPE", "1"), ("MPARRAY_GMRES_REDO", "1")][..],
            &[("MPARRAY_GMRES_PIPE", "0")],
            &[],
        ] {
            assert_eq!(
                cpu,
                run_gmres_cli(&dir, p, "cuda", args, env).0,
                "{args:?} {env:?}"
            );
        }
    }
    let _ = std::fs::remove_dir_all(&dir);
}

/// The pipeline's asynchronous read ([`Deferred::finish_async`], then
/// `Ticket::wait`) gives the device array's contents while the device is
/// still busy with work queued after it (as the pipeline's next `A v`):
/// deferred products at 256 ... 2264 bits (the `2p + 64` projections of
/// 256 and 1100 bits among them), lengths changing between reads (the
/// staging buffer reused and regrown), each read against the array's
/// synchronous download. Before 2026-12-03 the host read the page-locked
/// buffer without waiting for the copy (its event was never recorded: the
/// engine tracks no events), and the pipeline failed on the H200 parsing
/// stale words (`not a valid float of precision 576`).
#[test]
#[ignore = "needs a CUDA device"]
fn cuda_gmres_deferred_read_waits_for_the_copy() {
    let cuda = Engine::cuda().expect("a CUDA device");
    let seed = common::seed();
    let mut staging = Staging::default();
    for (n, prec) in [
        (1500, 256u64),
        (700, 576),
        (1000, 320),
        (300, 2264),
        (40, 576),
    ] {
        let (a, x) = random_problem(n, prec, seed ^ n as u64);
        let (a, x) = (a.to_engine(&cuda).unwrap(), x.to_engine(&cuda).unwrap());
        let one = FloatArray::from_f64s(prec, &[1.0], Round::Nearest)
            .unwrap()
            .0
            .into_engine(&cuda)
            .unwrap();
        let g = Gemv {
            prec,
            ..Gemv::default()
        };
        for _ in 0..3 {
            let sc = Deferred::begin();
            let y = a.gemv(&one, &x, None, &g).unwrap().0;
            // y.y as the pipeline makes it: y as a 1 x n matrix times
            // itself at prec + 64 bits (deferred; a fused dot reads its
            // status at once).
            let ym = Matrix::from_array_ld(y, 1, n, n).unwrap();
            let gs = Gemv {
                prec: prec + 64,
                ..g
            };
            let yy = ym.gemv(&one, ym.data(), None, &gs).unwrap().0;
            let y = ym.into_data();
            let ticket = sc.finish_async(&[&y, &yy], &mut staging).unwrap();
            // Work queued after the copy, in a scope of its own.
            let sc2 = Deferred::begin();
            let z = a.gemv(&one, &y, None, &g).unwrap().0;
            let (hs, _) = ticket.wait().unwrap();
            let (zs, _) = sc2.finish(&[&z]).unwrap();
            assert_eq!(
                hs[0].to_hex_strings().unwrap(),
                y.to_hex_strings().unwrap(),
                "n {n}, {prec} bits"
            );
            assert_eq!(
                hs[1].to_hex_strings().unwrap(),
                yy.to_hex_strings().unwrap(),
                "n {n}, {prec} bits"
            );
            assert_eq!(zs[0].to_hex_strings().unwrap(), z.to_hex_strings().unwrap());
        }
    }
}
