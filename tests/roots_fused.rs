//! The fused Ehrlich-Aberth iteration (`complex::polyroots`) against an
//! independent copy of its sequence of operations in malachite-float
//! (MPFR's semantics; every intermediate the same correctly rounded
//! value), on random complex polynomials with coefficients at other
//! precisions than the working one, random starting points, orders 1-3
//! and limb counts 1-17; and the CUDA engine against the CPU engine bit
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
use mparray::complex::polyroots::{FusedRoots, aberth_fused};
use mparray::solvers::problems::{self, coeff_array};
use mparray::{ComplexArray, Engine, Round};
use roots_common::{Cf, Ref, cf_of, rand_points, rand_poly, same, tol2_of};

impl Ref {
    /// One step of order `order`: new approximations and flags (isolated,
    /// at noise, small).
    fn step(&self, a: &[Cf], x: &[Cf], order: usize, tol2: &Float) -> (Vec<Cf>, Vec<[bool; 3]>) {
        let n = a.len() - 1;
        let p = self.p;
        let rnd = |f: &Float| Float::from_float_prec_round_ref(f, p, Nearest).0;
        let aa: Vec<Cf> = a.iter().map(|c| (rnd(&c.0), rnd(&c.1))).collect();
        let d: Vec<Cf> = (0..n)
            .map(|k| {
                let m = Float::from(k as u64 + 1);
                (
                    self.mul(&a[k + 1].0, &m, Nearest),
                    self.mul(&a[k + 1].1, &m, Nearest),
                )
            })
            .collect();
        let ab: Vec<Float> = aa.iter().map(|c| self.abs1_up(c)).collect();
        let kshift = (2 * n).next_power_of_two().trailing_zeros() as i64 - p as i64;
        let mut pd = Vec::new();
        let mut flags = vec![[false; 3]; n];
        for (i, xi) in x.iter().enumerate() {
            let mut xp: Vec<Cf> = vec![(Float::from(1u32), Float::ZERO), xi.clone()];
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
            let pv = self.csum((0..=n).map(|k| Some(self.cmul(&aa[k], &xp[k]))).collect());
            let dp = self.csum((0..n).map(|k| Some(self.cmul(&d[k], &xp[k]))).collect());
            let noise = self
                .tsum(
                    (0..=n)
                        .map(|k| Some(self.mul(&ab[k], &rp[k], Up)))
                        .collect(),
                    |u: &Float, v: &Float| self.add(u, v, Up),
                )
                .unwrap();
            let thr = Float::from_float_prec_round(noise << kshift, p, Up).0;
            flags[i][1] = Self::le(&self.abs1_up(&pv), &thr);
            pd.push((pv, dp));
        }
        let mut t: Vec<Cf> = x.to_vec();
        for l in 0..order {
            let mut tn = Vec::with_capacity(n);
            for (i, xi) in x.iter().enumerate() {
                let (pv, dp) = &pd[i];
                let s = self.csum(
                    (0..n)
                        .map(|j| (j != i).then(|| self.rec(&self.csub(xi, &t[j]))))
                        .collect(),
                );
                let ps = self.cmul(pv, &s);
                if l == 0 {
                    let a16 = Float::from_float_prec_round(self.norm2(&ps) << 4, p, Nearest).0;
                    flags[i][0] = Self::le(&a16, &self.norm2(dp));
                }
                let c = self.cmul(pv, &self.rec(&self.csub(dp, &ps)));
                let ti = self.csub(xi, &c);
                if l + 1 == order {
                    let xx = self.mul(&self.norm2(&ti), tol2, Nearest);
                    flags[i][2] = Self::le(&self.norm2(&c), &xx);
                }
                tn.push(ti);
            }
            t = tn;
        }
        (t, flags)
    }
}

fn run(c: &ComplexArray, x0: &ComplexArray, p: u64, order: usize, iters: usize) -> FusedRoots {
    aberth_fused(c, x0, p, order, &tol2_of(p), iters, &mut |_, _| {}).unwrap()
}

#[test]
fn two_steps_match_the_malachite_sequence() {
    let mut rng = Rng(common::seed());
    for (k, &(p, n)) in [
        (64u64, 7usize),
        (100, 5),
        (128, 9),
        (200, 6),
        (512, 4),
        (1088, 3),
    ]
    .iter()
    .enumerate()
    {
        let order = 1 + k % 3;
        let (pre, pim) = (p + 37, (p / 2).max(8));
        let c = rand_poly(&mut rng, n, pre, pim);
        let x0 = rand_points(&mut rng, n, p);
        let r = Ref { p };
        let a = cf_of(&c);
        let tol2 = tol2_of(p);
        let (x1, f1) = r.step(&a, &cf_of(&x0), order, &tol2);
        let (x2, f2) = r.step(&a, &x1, order, &tol2);
        // max_iter = 2: two steps made, the flags of a third.
        let got = run(&c, &x0, p, order, 2);
        let (x3, f3) = r.step(&a, &x2, order, &tol2);
        let _ = x3;
        assert_eq!(got.iterations, 2, "p {p}");
        for (i, (g, w)) in cf_of(&got.roots).iter().zip(&x2).enumerate() {
            assert!(
                same(&g.0, &w.0) && same(&g.1, &w.1),
                "p {p} n {n} L {order} root {i}: {g:?} against {w:?}"
            );
        }
        let conv: Vec<bool> = f3
            .iter()
            .zip(&f2)
            .map(|(f, prev)| f[0] && (f[1] || prev[2]))
            .collect();
        assert_eq!(got.converged, conv, "p {p}: flags");
        // The bounds hold for the exact coefficients (rounded in the
        // kernels: more bits than the working precision).
        let q = |f: &Float| Rational::exact_from(f);
        let cq: Vec<(Rational, Rational)> = a.iter().map(|(u, v)| (q(u), q(v))).collect();
        let bounds = got.residual_bound.to_floats().unwrap();
        for (i, x) in cf_of(&got.roots).iter().enumerate() {
            let (xr, xi) = (q(&x.0), q(&x.1));
            let (mut sr, mut si) = cq[n].clone();
            for k in (0..n).rev() {
                let tr = &sr * &xr - &si * &xi + &cq[k].0;
                si = &sr * &xi + &si * &xr + &cq[k].1;
                sr = tr;
            }
            let b = q(&bounds[i]);
            assert!(&sr * &sr + &si * &si <= &b * &b, "p {p}: bound {i}");
        }
        let _ = f1;
    }
}

#[test]
fn wilkinson_20_and_degree_1_fused() {
    // Wilkinson 20 at 128 bits, the fused path from the solver's start.
    let c = coeff_array(&problems::wilkinson(20).unwrap(), 128, &Engine::Cpu).unwrap();
    let r = mparray::solvers::roots::aberth(&c, 128, &Default::default()).unwrap();
    assert!(r.converged.iter().all(|&b| b));
    let mut re: Vec<f64> = r.roots.re().unwrap().to_f64s(Round::Nearest).unwrap();
    re.sort_by(|a, b| a.partial_cmp(b).unwrap());
    for (k, v) in re.iter().enumerate() {
        assert!((v - (k + 1) as f64).abs() < 1e-9, "root {k}: {v}");
    }
    // Degree 1 and 2 (one leaf, an empty repulsion sum).
    let lin = ComplexArray::from_strs(64, 64, &[("3", "1"), ("2", "0")]).unwrap();
    let r = mparray::solvers::roots::aberth(&lin, 64, &Default::default()).unwrap();
    let want = ("-1.5000e+00".to_string(), "-5.0000e-01".to_string());
    assert_eq!(r.roots.to_dec_strings(5, Round::Nearest).unwrap()[0], want);
}

#[test]
#[ignore = "needs a CUDA device"]
fn cuda_fused_gives_the_cpu_bits() {
    let cuda = Engine::cuda().expect("a CUDA device");
    let mut rng = Rng(common::seed());
    // Limb counts 1..16 (the device tiers), orders 1-3, unconverged and
    // converged states.
    // n = 300: more leaves than the block's 256 threads.
    for (k, p) in [53u64, 64, 128, 150, 256, 320, 512, 700, 1024, 192]
        .into_iter()
        .enumerate()
    {
        let n = [3usize, 17, 40, 8, 130, 5, 64, 12, 33, 300][k];
        let order = 1 + k % 3;
        let c = rand_poly(&mut rng, n, p + 64, p);
        let x0 = rand_points(&mut rng, n, p);
        for iters in [1usize, 6] {
            let cpu = run(&c, &x0, p, order, iters);
            let dev = run(
                &c.to_engine(&cuda).unwrap(),
                &x0.to_engine(&cuda).unwrap(),
                p,
                order,
                iters,
            );
            assert!(dev.roots.engine().is_cuda());
            assert_eq!(cpu.iterations, dev.iterations, "p {p} n {n}");
            assert_eq!(cpu.converged, dev.converged, "p {p} n {n}");
            assert_eq!(
                cpu.roots.to_hex_strings().unwrap(),
                dev.roots.to_hex_strings().unwrap(),
                "p {p} n {n} L {order} iters {iters}"
            );
            assert_eq!(
                cpu.residual_bound.to_hex_strings().unwrap(),
                dev.residual_bound.to_hex_strings().unwrap(),
                "bounds: p {p} n {n} L {order} iters {iters}"
            );
        }
    }
    // The benchmark problems to convergence.
    for (cf, p) in [
        (problems::wilkinson(64).unwrap(), 512u64),
        (problems::chebyshev_nodes(48).unwrap(), 256),
    ] {
        let c = coeff_array(&cf, p, &Engine::Cpu).unwrap();
        let a = mparray::solvers::roots::aberth(&c, p, &Default::default()).unwrap();
        let b =
            mparray::solvers::roots::aberth(&c.to_engine(&cuda).unwrap(), p, &Default::default())
                .unwrap();
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
