//! The CUDA modular functions (`mparray::int::cuda::modular`): the same
//! values as the CPU functions, bit for bit, and malachite's, on random
//! values and the edge cases (0, 1, equal operands, modulus 1, even moduli,
//! exponent 0, inputs >= the modulus, non-invertible elements, zero and
//! even moduli as errors), per-element and shared operands, at widths from
//! 64 bits to the kernels' widest (and one above, the CPU fallback).
//! Ignored without a GPU; run with `--include-ignored cuda_mod_`.

use std::sync::Arc;

use malachite_base::num::arithmetic::traits::{Gcd, ModPow};
use malachite_nz::natural::Natural;
use mparray::engine::CudaEngine;
use mparray::int::cpu::modular::{self as cpu, HostOperand};
use mparray::int::cuda::modular::{self as gpu, Operand};
use mparray::int::cuda::{download, upload};
use mparray::{Engine, Error};

fn eng() -> Arc<CudaEngine> {
    match Engine::cuda().expect("these tests need a CUDA device") {
        Engine::Cuda(e) => e,
        _ => unreachable!(),
    }
}

struct Rng(u64);
impl Rng {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }
    fn num(&mut self, l: usize) -> Vec<u64> {
        let mut x = vec![0u64; l];
        match self.next() % 10 {
            0 => x[0] = [0u64, 1, 2, 3, u64::MAX][(self.next() % 5) as usize],
            1 => x.fill(u64::MAX),
            2 => x[l - 1] = 1 << 63,
            3..=5 => {
                let k = 1 + (self.next() as usize % l);
                for v in x.iter_mut().take(k) {
                    *v = self.next();
                }
                x[k - 1] >>= self.next() % 64;
            }
            _ => x.iter_mut().for_each(|v| *v = self.next()),
        }
        x
    }
}

fn nat(x: &[u64]) -> Natural {
    Natural::from_limbs_asc(x)
}

/// n elements: a, b (some equal to a), m (non-zero; odd when asked; some
/// ones and powers of two).
fn batch(rng: &mut Rng, n: usize, l: usize, odd: bool) -> (Vec<u64>, Vec<u64>, Vec<u64>) {
    let (mut a, mut b, mut m) = (Vec::new(), Vec::new(), Vec::new());
    for k in 0..n {
        let x = rng.num(l);
        let y = if k % 7 == 3 { x.clone() } else { rng.num(l) };
        let mut z = rng.num(l);
        if k % 11 == 5 && !odd {
            z = vec![0; l];
            let bit = rng.next() as usize % (64 * l);
            z[bit / 64] = 1 << (bit % 64);
        }
        if k % 13 == 7 || z.iter().all(|&v| v == 0) {
            z = vec![0; l];
            z[0] = 1;
        }
        if odd {
            z[0] |= 1;
        }
        a.extend(x);
        b.extend(y);
        m.extend(z);
    }
    (a, b, m)
}

const WIDTHS: &[usize] = &[1, 2, 3, 4, 5, 8, 16, 32, 64, 65];

#[test]
#[ignore = "needs a GPU"]
fn cuda_mod_powm_matches_cpu() {
    let e = eng();
    let mut rng = Rng(11);
    for &l in WIDTHS {
        let n = if l <= 8 { 300 } else { 40 };
        let (a, x, m) = batch(&mut rng, n, l, false);
        let (da, dx, dm) = (
            upload(&e, &a).unwrap(),
            upload(&e, &x).unwrap(),
            upload(&e, &m).unwrap(),
        );
        let r = gpu::powm(&e, &da, Operand::Each(&dx), Operand::Each(&dm), n, l).unwrap();
        let got = download(&e, &r).unwrap();
        let want = cpu::powm(&a, HostOperand::Each(&x), HostOperand::Each(&m), l).unwrap();
        assert_eq!(got[..n * l], want[..], "powm l={l}");
        for i in 0..n.min(20) {
            let (b, ex, mm) = (
                nat(&a[i * l..][..l]),
                nat(&x[i * l..][..l]),
                nat(&m[i * l..][..l]),
            );
            let w = if mm == 1u32 {
                Natural::from(0u32)
            } else {
                (&b % &mm).mod_pow(&ex, &mm)
            };
            assert_eq!(nat(&got[i * l..][..l]), w, "powm vs malachite l={l} {i}");
        }
        // Shared exponent and modulus; exponent 0.
        for k in 0..3 {
            let mut mm = rng.num(l);
            mm[0] |= 1;
            if k == 1 {
                mm[0] &= !1;
                mm[0] |= 2;
            }
            let ex = if k == 2 { vec![0u64; l] } else { rng.num(l) };
            let (dmm, dex) = (upload(&e, &mm).unwrap(), upload(&e, &ex).unwrap());
            let r = gpu::powm(&e, &da, Operand::All(&dex), Operand::All(&dmm), n, l).unwrap();
            let got = download(&e, &r).unwrap();
            let want = cpu::powm(&a, HostOperand::All(&ex), HostOperand::All(&mm), l).unwrap();
            assert_eq!(got[..n * l], want[..], "powm All l={l} k={k}");
        }
    }
}

#[test]
#[ignore = "needs a GPU"]
fn cuda_mod_gcd_modinv_match_cpu() {
    let e = eng();
    let mut rng = Rng(12);
    for &l in WIDTHS {
        let n = if l <= 8 { 300 } else { 60 };
        for odd in [true, false] {
            let (mut a, mut b, m) = batch(&mut rng, n, l, odd);
            a[..l].fill(0);
            b[..2 * l].fill(0);
            let (da, db, dm) = (
                upload(&e, &a).unwrap(),
                upload(&e, &b).unwrap(),
                upload(&e, &m).unwrap(),
            );
            let g = download(&e, &gpu::gcd(&e, &da, Operand::Each(&db), n, l).unwrap()).unwrap();
            let want = cpu::gcd(&a, HostOperand::Each(&b), l).unwrap();
            assert_eq!(g[..n * l], want[..], "gcd l={l}");
            for i in 0..n.min(20) {
                let w = nat(&a[i * l..][..l]).gcd(nat(&b[i * l..][..l]));
                assert_eq!(nat(&g[i * l..][..l]), w, "gcd vs malachite l={l} {i}");
            }
            let (x, f) = gpu::modinv(&e, &da, Operand::Each(&dm), n, l).unwrap();
            let (x, f) = (download(&e, &x).unwrap(), download(&e, &f).unwrap());
            let (wx, wf) = cpu::modinv(&a, HostOperand::Each(&m), l).unwrap();
            assert_eq!(x[..n * l], wx[..], "modinv l={l} odd={odd}");
            let wf: Vec<u8> = wf.iter().map(|&o| o as u8).collect();
            assert_eq!(f[..n], wf[..], "modinv flags l={l} odd={odd}");
            let (gg, s, t) = gpu::gcd_ext(&e, &da, Operand::Each(&db), n, l).unwrap();
            let (wg, ws, wt) = cpu::gcd_ext(&a, HostOperand::Each(&b), l).unwrap();
            assert_eq!(download(&e, &gg).unwrap()[..n * l], wg[..]);
            assert_eq!(download(&e, &s).unwrap()[..n * l], ws[..]);
            assert_eq!(download(&e, &t).unwrap()[..n * l], wt[..]);
        }
        // Shared operands.
        let (a, _, _) = batch(&mut rng, n, l, true);
        let mut c = rng.num(l);
        c[0] |= 1;
        let (da, dc) = (upload(&e, &a).unwrap(), upload(&e, &c).unwrap());
        let g = download(&e, &gpu::gcd(&e, &da, Operand::All(&dc), n, l).unwrap()).unwrap();
        assert_eq!(
            g[..n * l],
            cpu::gcd(&a, HostOperand::All(&c), l).unwrap()[..]
        );
        let (x, _) = gpu::modinv(&e, &da, Operand::All(&dc), n, l).unwrap();
        let x = download(&e, &x).unwrap();
        assert_eq!(
            x[..n * l],
            cpu::modinv(&a, HostOperand::All(&c), l).unwrap().0[..]
        );
    }
}

#[test]
#[ignore = "needs a GPU"]
fn cuda_mod_montgomery_matches_cpu() {
    let e = eng();
    let mut rng = Rng(13);
    for &l in WIDTHS {
        let n = if l <= 8 { 200 } else { 40 };
        let (a, b, m) = batch(&mut rng, n, l, true);
        let (da, db, dm) = (
            upload(&e, &a).unwrap(),
            upload(&e, &b).unwrap(),
            upload(&e, &m).unwrap(),
        );
        let to = download(
            &e,
            &gpu::to_montgomery(&e, &da, Operand::Each(&dm), n, l).unwrap(),
        )
        .unwrap();
        assert_eq!(
            to[..n * l],
            cpu::to_montgomery(&a, HostOperand::Each(&m), l).unwrap()[..],
            "to l={l}"
        );
        let fr = download(
            &e,
            &gpu::from_montgomery(&e, &da, Operand::Each(&dm), n, l).unwrap(),
        )
        .unwrap();
        assert_eq!(
            fr[..n * l],
            cpu::from_montgomery(&a, HostOperand::Each(&m), l).unwrap()[..],
            "from l={l}"
        );
        let mu = download(
            &e,
            &gpu::mont_mul(&e, &da, &db, Operand::Each(&dm), n, l).unwrap(),
        )
        .unwrap();
        assert_eq!(
            mu[..n * l],
            cpu::mont_mul(&a, &b, HostOperand::Each(&m), l).unwrap()[..],
            "mul l={l}"
        );
        let mut mm = rng.num(l);
        mm[0] |= 1;
        let dmm = upload(&e, &mm).unwrap();
        let mu = download(
            &e,
            &gpu::mont_mul(&e, &da, &db, Operand::All(&dmm), n, l).unwrap(),
        )
        .unwrap();
        assert_eq!(
            mu[..n * l],
            cpu::mont_mul(&a, &b, HostOperand::All(&mm), l).unwrap()[..],
            "mul All l={l}"
        );
    }
}

#[test]
#[ignore = "needs a GPU"]
fn cuda_mod_errors() {
    let e = eng();
    let l = 2;
    let a = upload(&e, &[5u64, 0, 7, 0, 9, 0]).unwrap();
    let m = upload(&e, &[3u64, 0, 0, 0, 4, 0]).unwrap();
    let even = upload(&e, &[3u64, 0, 5, 0, 4, 0]).unwrap();
    assert!(matches!(
        gpu::powm(&e, &a, Operand::Each(&a), Operand::Each(&m), 3, l),
        Err(Error::DivisionByZero { index: 1 })
    ));
    assert!(matches!(
        gpu::modinv(&e, &a, Operand::Each(&m), 3, l),
        Err(Error::DivisionByZero { index: 1 })
    ));
    match gpu::to_montgomery(&e, &a, Operand::Each(&even), 3, l) {
        Err(Error::Invalid(s)) => assert!(s.starts_with("element 2:"), "{s}"),
        x => panic!("{x:?}"),
    }
    let z = upload(&e, &[0u64, 0]).unwrap();
    assert!(matches!(
        gpu::mont_mul(&e, &a, &a, Operand::All(&z), 3, l),
        Err(Error::DivisionByZero { index: 0 })
    ));
}

/// The divstep inverse on batches of many blocks (the scratch buffer's
/// interleaving by thread) against malachite: full-width random odd moduli
/// (the benchmark's inputs) with a >= m, a = 0, a = m - 1, a = m, a = m + 1,
/// moduli 2^W - 1 and 3, at the benchmark widths.
#[test]
#[ignore = "needs a GPU"]
fn cuda_mod_modinv_divsteps_many_blocks() {
    use malachite_base::num::arithmetic::traits::ModInverse;
    let e = eng();
    let mut rng = Rng(77);
    for &(l, n) in &[(4usize, 20000usize), (16, 8000), (32, 6000), (64, 2000)] {
        let (mut a, mut m) = (Vec::with_capacity(n * l), Vec::with_capacity(n * l));
        for k in 0..n {
            let mut z: Vec<u64> = (0..l).map(|_| rng.next()).collect();
            z[0] |= 1;
            if k % 97 == 1 {
                z.fill(u64::MAX);
            }
            if k % 89 == 2 {
                z.fill(0);
                z[0] = 3;
            }
            let mz = nat(&z);
            let x = match k % 10 {
                0 => Natural::from(0u32),
                1 => &mz - Natural::from(1u32),
                2 => mz.clone(),
                3 => &mz + Natural::from(1u32),
                _ => nat(&(0..l).map(|_| rng.next()).collect::<Vec<_>>()),
            };
            let mut xl = x.to_limbs_asc();
            xl.resize(l, 0);
            xl.truncate(l); // m + 1 may wrap to 0 at m = 2^W - 1
            a.extend(xl);
            m.extend(z);
        }
        let (da, dm) = (upload(&e, &a).unwrap(), upload(&e, &m).unwrap());
        let (x, f) = gpu::modinv(&e, &da, Operand::Each(&dm), n, l).unwrap();
        let (x, f) = (download(&e, &x).unwrap(), download(&e, &f).unwrap());
        let mut inv = 0;
        for i in 0..n {
            let (ai, mi) = (nat(&a[i * l..][..l]), nat(&m[i * l..][..l]));
            let r = &ai % &mi;
            let want = if mi == 1u32 {
                Some(Natural::from(0u32))
            } else if r == 0u32 {
                None
            } else {
                r.mod_inverse(&mi)
            };
            inv += want.is_some() as usize;
            assert_eq!(f[i] == 1, want.is_some(), "flag l={l} element {i}");
            assert_eq!(
                nat(&x[i * l..][..l]),
                want.unwrap_or_default(),
                "modinv l={l} element {i}"
            );
        }
        assert!(inv > n / 2, "l={l}: {inv} invertible of {n}");
    }
}
