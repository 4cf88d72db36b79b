//! The fused STS-Padé iteration (`complex::polyroots::sts`) against an
//! independent copy of its sequence of operations in malachite-float
//! (every intermediate the same correctly rounded value), on random
//! complex polynomials (coefficients at other precisions than the working
//! one), random starting points, Taylor orders 2-5, limb counts 1-17;
//! convergence on Wilkinson 20 and on Chebyshev nodes checked against
//! Newton's method in malachite at twice the precision from the exact
//! rational coefficients; and the CUDA engine against the CPU engine bit
//! for bit (ignored without a GPU).
mod common;
#[path = "common/roots.rs"]
mod roots_common;

use common::Rng;
use malachite_base::num::basic::traits::Zero;
use malachite_base::num::conversion::traits::ExactFrom;
use malachite_base::rounding_modes::RoundingMode::{Nearest, Up};
use malachite_float::Float;
use malachite_q::Rational;
use mparray::complex::polyroots::FusedRoots;
use mparray::complex::polyroots::sts::sts_fused;
use mparray::solvers::problems::{self, coeff_array};
use mparray::solvers::roots::{self, StsOpts};
use mparray::{ComplexArray, Engine, Round};
use roots_common::{Cf, Ref, cf_of, rand_points, rand_poly, same, tol2_of};

impl Ref {
    fn neg(z: &Cf) -> Cf {
        (-z.0.clone(), -z.1.clone())
    }

    /// One STS step of Taylor order m: new approximations and flags
    /// (isolated, at noise, small).
    fn step(&self, a: &[Cf], x: &[Cf], m: usize, tol2: &Float) -> (Vec<Cf>, Vec<[bool; 3]>) {
        let n = a.len() - 1;
        let p = self.p;
        let one: Cf = (Float::from(1u32), Float::ZERO);
        let rnd = |f: &Float| Float::from_float_prec_round_ref(f, p, Nearest).0;
        let aa: Vec<Cf> = a.iter().map(|c| (rnd(&c.0), rnd(&c.1))).collect();
        // B^(i)_j = C(j+i, i) a_(j+i), the exact product rounded once.
        let bin = |a: u64, b: u64| -> u64 { (0..b).fold(1u64, |c, k| c * (a - k) / (k + 1)) };
        let bb: Vec<Vec<Cf>> = (0..=m)
            .map(|i| {
                if i == 0 {
                    return aa.clone();
                }
                (0..(n + 1).saturating_sub(i))
                    .map(|j| {
                        let c = Float::from(bin((j + i) as u64, i as u64));
                        (
                            self.mul(&a[j + i].0, &c, Nearest),
                            self.mul(&a[j + i].1, &c, Nearest),
                        )
                    })
                    .collect()
            })
            .collect();
        let ab: Vec<Float> = aa.iter().map(|c| self.abs1_up(c)).collect();
        let kshift = (2 * n).next_power_of_two().trailing_zeros() as i64 - p as i64;
        let mut flags = vec![[false; 3]; n];
        let mut ys = Vec::new();
        let mut sts = Vec::new();
        for (i, xi) in x.iter().enumerate() {
            let mut xp: Vec<Cf> = vec![one.clone(), xi.clone()];
            let mut rp: Vec<Float> = vec![Float::from(1u32), self.abs1_up(xi)];
            xp.resize(n + 1, (Float::ZERO, Float::ZERO));
            rp.resize(n + 1, Float::ZERO);
            let mut s = 1;
            while s < n {
                for k in s + 1..=(2 * s).min(n) {
                    xp[k] = self.cmul(&xp[s], &xp[k - s]);
                    rp[k] = self.mul(&rp[s], &rp[k - s], Up);
                }
                s *= 2;
            }
            let b: Vec<Cf> = bb
                .iter()
                .map(|bi| {
                    self.csum(
                        bi.iter()
                            .enumerate()
                            .map(|(j, c)| Some(self.cmul(c, &xp[j])))
                            .collect(),
                    )
                })
                .collect();
            let noise = self
                .tsum(
                    (0..=n)
                        .map(|k| Some(self.mul(&ab[k], &rp[k], Up)))
                        .collect(),
                    |u: &Float, v: &Float| self.add(u, v, Up),
                )
                .unwrap();
            let thr = Float::from_float_prec_round(noise << kshift, p, Up).0;
            flags[i][1] = Self::le(&self.abs1_up(&b[0]), &thr);
            let thr = thr.clone();
            let mut e = vec![one.clone(), b[0].clone()];
            for l in 2..=m {
                e.push(self.cmul(&e[l - 1], &b[0]));
            }
            let mut beta = vec![one.clone(), b[1].clone()];
            for l in 2..=m {
                beta.push(self.cmul(&b[l], &e[l - 1]));
            }
            let mut v = vec![one.clone()];
            for k in 1..=m {
                let mut acc = self.cmul(&beta[1], &v[k - 1]);
                for l in 2..=k {
                    acc = self.cadd(&acc, &self.cmul(&beta[l], &v[k - l]));
                }
                v.push(Self::neg(&acc));
            }
            let y = self.cadd(
                xi,
                &self.cmul(&self.cmul(&b[0], &v[m - 2]), &self.rec(&v[m - 1])),
            );
            ys.push(y);
            sts.push((e, v, b[1].clone(), thr));
        }
        let mut xn = Vec::with_capacity(n);
        for (k, xk) in x.iter().enumerate() {
            let (e, v, b1, thr) = &sts[k];
            // Leaves 1/(x_k - y_j)^l, one tree over leaves of m values.
            let leaves: Vec<Option<Vec<Cf>>> = (0..n)
                .map(|j| {
                    (j != k).then(|| {
                        let r = self.rec(&self.csub(xk, &ys[j]));
                        let mut pw = vec![r.clone()];
                        for l in 1..m {
                            pw.push(self.cmul(&pw[l - 1], &r));
                        }
                        pw
                    })
                })
                .collect();
            let zero = (Float::ZERO, Float::ZERO);
            let ps = self
                .tsum(leaves, |u: &Vec<Cf>, w: &Vec<Cf>| {
                    u.iter().zip(w).map(|(a, b)| self.cadd(a, b)).collect()
                })
                .unwrap_or_else(|| vec![zero.clone(); m]);
            let lam: Vec<Cf> = ps
                .iter()
                .enumerate()
                .map(|(l, z)| if l % 2 == 1 { Self::neg(z) } else { z.clone() })
                .collect();
            let mut u = vec![one.clone()];
            for i in 0..m {
                let mut acc = self.cmul(&lam[0], &u[i]);
                for l in 1..=i {
                    acc = self.cadd(&acc, &self.cmul(&lam[l], &u[i - l]));
                }
                let c = Float::from(i as u64 + 1);
                u.push((
                    acc.0.div_prec_round_ref_ref(&c, p, Nearest).0,
                    acc.1.div_prec_round_ref_ref(&c, p, Nearest).0,
                ));
            }
            let q = |i: usize| -> Cf {
                let mut acc = self.cmul(&u[0], &v[i]);
                for l in 1..=i {
                    acc = self.cadd(&acc, &self.cmul(&self.cmul(&u[l], &e[l]), &v[i - l]));
                }
                acc
            };
            let c = self.cmul(&self.cmul(&e[1], &q(m - 1)), &self.rec(&q(m)));
            let xnk = self.cadd(xk, &c);
            let a16 = Float::from_float_prec_round(
                self.norm2(&self.cmul(&e[1], &ps[0])) << 4,
                p,
                Nearest,
            )
            .0;
            let z = self.mul(&self.norm2(&ps[0]), &self.mul(thr, thr, Nearest), Nearest);
            let z16 = Float::from_float_prec_round(z << 4, p, Nearest).0;
            flags[k][0] = Self::le(&a16, &self.norm2(b1)) && Self::le(&z16, &self.norm2(b1));
            let xx = self.mul(&self.norm2(&xnk), tol2, Nearest);
            flags[k][2] = Self::le(&self.norm2(&c), &xx);
            xn.push(xnk);
        }
        (xn, flags)
    }
}

fn run(c: &ComplexArray, x0: &ComplexArray, p: u64, m: usize, iters: usize) -> FusedRoots {
    sts_fused(c, x0, p, m, &tol2_of(p), iters, &mut |_, _| {}).unwrap()
}

#[test]
fn two_sts_steps_match_the_malachite_sequence() {
    let mut rng = Rng(common::seed());
    for (k, &(p, n)) in [
        (64u64, 7usize),
        (100, 5),
        (128, 9),
        (200, 6),
        (512, 4),
        (1088, 3),
        (64, 2),
        (192, 1),
    ]
    .iter()
    .enumerate()
    {
        let m = 2 + k % 4;
        let (pre, pim) = (p + 37, (p / 2).max(8));
        let c = rand_poly(&mut rng, n, pre, pim);
        let x0 = rand_points(&mut rng, n, p);
        let r = Ref { p };
        let a = cf_of(&c);
        let tol2 = tol2_of(p);
        let (x1, _) = r.step(&a, &cf_of(&x0), m, &tol2);
        let (x2, f2) = r.step(&a, &x1, m, &tol2);
        let (_, f3) = r.step(&a, &x2, m, &tol2);
        let got = run(&c, &x0, p, m, 2);
        assert_eq!(got.iterations, 2, "p {p}");
        for (i, (g, w)) in cf_of(&got.roots).iter().zip(&x2).enumerate() {
            assert!(
                same(&g.0, &w.0) && same(&g.1, &w.1),
                "p {p} n {n} m {m} root {i}: {g:?} against {w:?}"
            );
        }
        let conv: Vec<bool> = f3
            .iter()
            .zip(&f2)
            .map(|(f, prev)| f[0] && (f[1] || prev[2]))
            .collect();
        assert_eq!(got.converged, conv, "p {p}: flags");
    }
}

/// Newton's method on the exact coefficients in malachite at `hp` bits
/// from `x` (re, im), `iters` steps: an independent root.
fn newton(a: &[(Rational, Rational)], x: &Cf, hp: u64, iters: usize) -> Cf {
    let f = |q: &Rational| Float::from_rational_prec_round_ref(q, hp, Nearest).0;
    let af: Vec<Cf> = a.iter().map(|(r, i)| (f(r), f(i))).collect();
    let n = a.len() - 1;
    let r = Ref { p: hp };
    let mut z = (
        Float::from_float_prec_round_ref(&x.0, hp, Nearest).0,
        Float::from_float_prec_round_ref(&x.1, hp, Nearest).0,
    );
    for _ in 0..iters {
        let (mut s, mut d) = (af[n].clone(), (Float::ZERO, Float::ZERO));
        for k in (0..n).rev() {
            d = r.cadd(&r.cmul(&d, &z), &s);
            s = r.cadd(&r.cmul(&s, &z), &af[k]);
        }
        let nn = r.norm2(&d);
        // s / d = s conj(d) / |d|^2
        let q = r.cmul(&s, &(d.0.clone(), -d.1.clone()));
        let q = (
            q.0.div_prec_round_ref_ref(&nn, hp, Nearest).0,
            q.1.div_prec_round_ref_ref(&nn, hp, Nearest).0,
        );
        z = r.csub(&z, &q);
    }
    z
}

/// log2 of |x - z| / max(1, |z|), within 1 (-inf when equal).
fn rel_err_log2(x: &Cf, z: &Cf) -> f64 {
    let q = |f: &Float| Rational::exact_from(f);
    let (dr, di) = (q(&x.0) - q(&z.0), q(&x.1) - q(&z.1));
    let d2 = &dr * &dr + &di * &di;
    let z2 = q(&z.0) * q(&z.0) + q(&z.1) * q(&z.1);
    let s2 = if z2 > 1u32 { z2 } else { Rational::from(1u32) };
    let r = Float::from_rational_prec_round(d2 / s2, 53, Nearest).0;
    match r.get_exponent() {
        Some(e) => e as f64 / 2.0,
        None => f64::NEG_INFINITY,
    }
}

#[test]
fn sts_wilkinson_20_and_chebyshev_against_newton() {
    // Wilkinson 20 at 128 bits: the integers 1..20.
    let c = coeff_array(&problems::wilkinson(20).unwrap(), 128, &Engine::Cpu).unwrap();
    let r = roots::sts_pade(&c, 128, &StsOpts::default()).unwrap();
    assert!(r.converged.iter().all(|&b| b), "{:?}", r.converged);
    let mut re: Vec<f64> = r.roots.re().unwrap().to_f64s(Round::Nearest).unwrap();
    re.sort_by(|a, b| a.partial_cmp(b).unwrap());
    for (k, v) in re.iter().enumerate() {
        assert!((v - (k + 1) as f64).abs() < 1e-9, "root {k}: {v}");
    }
    // Chebyshev nodes n = 16 (some complex) at 192 bits: each root within
    // 2^-150 (relative) of the root Newton's method at 400 bits finds from
    // it on the exact coefficients, and the n Newton roots distinct.
    let n = 16;
    let p = 192;
    let exact = problems::chebyshev_nodes(n).unwrap();
    let c = coeff_array(&exact, p, &Engine::Cpu).unwrap();
    let r = roots::sts_pade(&c, p, &StsOpts::default()).unwrap();
    assert!(r.converged.iter().all(|&b| b));
    let a: Vec<(Rational, Rational)> = exact
        .iter()
        .map(|q| (q.clone(), Rational::from(0)))
        .collect();
    let xs = cf_of(&r.roots);
    let zs: Vec<Cf> = xs.iter().map(|x| newton(&a, x, 400, 8)).collect();
    for (i, (x, z)) in xs.iter().zip(&zs).enumerate() {
        let e = rel_err_log2(x, z);
        assert!(e < -150.0, "root {i}: log2 error {e}");
    }
    for i in 0..n {
        for j in 0..i {
            assert!(
                rel_err_log2(&zs[i], &zs[j]) > -20.0,
                "roots {i} and {j} coincide"
            );
        }
    }
    // Degree 1 and 2.
    let lin = ComplexArray::from_strs(64, 64, &[("3", "1"), ("2", "0")]).unwrap();
    let r = roots::sts_pade(&lin, 64, &StsOpts::default()).unwrap();
    let want = ("-1.5000e+00".to_string(), "-5.0000e-01".to_string());
    assert_eq!(r.roots.to_dec_strings(5, Round::Nearest).unwrap()[0], want);
    let quad = ComplexArray::from_strs(64, 64, &[("-2", "0"), ("0", "0"), ("1", "0")]).unwrap();
    let r = roots::sts_pade(&quad, 64, &StsOpts::default()).unwrap();
    let mut v: Vec<f64> = r.roots.re().unwrap().to_f64s(Round::Nearest).unwrap();
    v.sort_by(|a, b| a.partial_cmp(b).unwrap());
    assert!((v[0] + 2f64.sqrt()).abs() < 1e-15 && (v[1] - 2f64.sqrt()).abs() < 1e-15);
}

#[test]
#[ignore = "needs a CUDA device"]
fn cuda_sts_gives_the_cpu_bits() {
    let cuda = Engine::cuda().expect("a CUDA device");
    let mut rng = Rng(common::seed());
    for (k, p) in [53u64, 64, 128, 150, 256, 320, 512, 700, 1024]
        .into_iter()
        .enumerate()
    {
        let n = [3usize, 17, 40, 8, 130, 5, 64, 12, 33][k];
        let m = 2 + k % 4;
        let c = rand_poly(&mut rng, n, p + 64, p);
        let x0 = rand_points(&mut rng, n, p);
        for iters in [1usize, 5] {
            let cpu = run(&c, &x0, p, m, iters);
            let dev = run(
                &c.to_engine(&cuda).unwrap(),
                &x0.to_engine(&cuda).unwrap(),
                p,
                m,
                iters,
            );
            assert!(dev.roots.engine().is_cuda());
            assert_eq!(cpu.iterations, dev.iterations, "p {p} n {n}");
            assert_eq!(cpu.converged, dev.converged, "p {p} n {n}");
            assert_eq!(
                cpu.roots.to_hex_strings().unwrap(),
                dev.roots.to_hex_strings().unwrap(),
                "p {p} n {n} m {m} iters {iters}"
            );
        }
    }
    for (cf, p) in [
        (problems::wilkinson(64).unwrap(), 512u64),
        (problems::chebyshev_nodes(48).unwrap(), 256),
    ] {
        let c = coeff_array(&cf, p, &Engine::Cpu).unwrap();
        let a = roots::sts_pade(&c, p, &StsOpts::default()).unwrap();
        let b = roots::sts_pade(&c.to_engine(&cuda).unwrap(), p, &StsOpts::default()).unwrap();
        assert!(a.converged.iter().all(|&x| x));
        assert_eq!(a.iterations, b.iterations);
        assert_eq!(
            a.roots.to_hex_strings().unwrap(),
            b.roots.to_hex_strings().unwrap()
        );
        assert_eq!(
            a.residual_bound.to_hex_strings().unwrap(),
            b.residual_bound.to_hex_strings().unwrap()
        );
    }
}
