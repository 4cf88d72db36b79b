//! CUDA division with remainder against malachite: every tier threshold of
//! the kernel (divisor lengths 4, 8, ..., 512, then every 512 up to 8192, and
//! 16384 limbs, each side), random
//! lengths, the benchmark's shape, edge values, the rare quotient-estimate
//! paths (add-back, the B-1 clamp, long borrows) and zero divisors.
//! Ignored without a GPU; run with `--include-ignored cuda_div_`.
mod common;
use common::Rng;

use common::*;
use malachite_base::num::arithmetic::traits::DivMod;
use malachite_base::num::logic::traits::SignificantBits;
use malachite_nz::natural::Natural;
use mparray::{Engine, Error, IntArray};

fn cuda() -> Engine {
    Engine::cuda().expect("these tests need a CUDA device")
}

/// Tier bounds of the kernel (largest divisor, in limbs, of each tier).
const TIER_S: [usize; 24] = [
    4, 8, 16, 32, 64, 128, 256, 512, 1024, 1536, 2048, 2560, 3072, 3584, 4096, 4608, 5120, 5632,
    6144, 6656, 7168, 7680, 8192, 16384,
];

impl Rng {
    /// Limbs biased to the values that stress carries and estimates.
    fn limb(&mut self) -> u64 {
        match self.next() % 8 {
            0 => 0,
            1 => u64::MAX,
            2 => 1 << 63,
            3 => 1,
            _ => self.next(),
        }
    }
    /// A number of exactly `len` limbs (top limb non-zero), padded to `l`.
    fn num(&mut self, l: usize, len: usize, structured: bool) -> Vec<u64> {
        let mut x = vec![0u64; l];
        for v in x.iter_mut().take(len) {
            *v = if structured { self.limb() } else { self.next() };
        }
        if len > 0 && x[len - 1] == 0 {
            x[len - 1] = if structured { u64::MAX } else { 1 };
        }
        x
    }
}

fn nat(x: &[u64]) -> Natural {
    Natural::from_limbs_asc(x)
}

/// Pairs (u, v) of naturals checked on CUDA, zero divisors replaced by one.
struct Cases {
    bits: u64,
    u: Vec<Natural>,
    v: Vec<Natural>,
}

impl Cases {
    fn new(limbs: usize) -> Cases {
        Cases {
            bits: 64 * limbs as u64,
            u: Vec::new(),
            v: Vec::new(),
        }
    }
    fn push(&mut self, u: Natural, v: Natural) {
        let m = modulus(self.bits);
        if u >= m || v >= m {
            return;
        }
        let v = if v == 0u32 { Natural::from(1u32) } else { v };
        self.u.push(u);
        self.v.push(v);
    }
    fn push_limbs(&mut self, u: &[u64], v: &[u64]) {
        self.push(nat(u), nat(v));
    }
    fn check(&self, e: &Engine, what: &str) {
        if self.u.is_empty() {
            return;
        }
        let a = IntArray::from_naturals(self.bits, &self.u)
            .unwrap()
            .to_engine(e)
            .unwrap();
        let b = IntArray::from_naturals(self.bits, &self.v)
            .unwrap()
            .to_engine(e)
            .unwrap();
        let (q, r) = a.divrem(&b).unwrap();
        let (nq, nr) = (q.to_naturals().unwrap(), r.to_naturals().unwrap());
        for i in 0..self.u.len() {
            let (eq, er) = self.u[i].clone().div_mod(self.v[i].clone());
            assert_eq!(
                (&nq[i], &nr[i]),
                (&eq, &er),
                "{what}: {} bits element {i} (u has {} bits, v {} bits)",
                self.bits,
                self.u[i].significant_bits(),
                self.v[i].significant_bits()
            );
        }
    }
}

#[test]
#[ignore = "needs a CUDA device"]
fn cuda_div_tier_thresholds() {
    let (e, s) = (cuda(), seed());
    let mut rng = Rng(s);
    for &ts in &TIER_S {
        // Widths just above the threshold (and at it for the widest).
        let l = (ts + 1).min(16384);
        let mut c = Cases::new(l);
        for n in [ts - 1, ts, ts + 1] {
            if n == 0 || n > l {
                continue;
            }
            for rep in 0..6 {
                // Few quotient limbs at the widest tiers keeps the host check quick.
                let m = n + rng.index((l - n + 1).min(if l > 2048 { 64 } else { l }));
                let u = rng.num(l, m.min(l), rep % 3 == 1);
                let v = rng.num(l, n, rep % 3 == 2);
                c.push_limbs(&u, &v);
            }
            // A dividend shorter than the divisor.
            let u = rng.num(l, n - 1, false);
            let v = rng.num(l, n, false);
            c.push_limbs(&u, &v);
        }
        c.check(&e, &format!("tier threshold {ts}"));
    }
}

#[test]
#[ignore = "needs a CUDA device"]
fn cuda_div_random_lengths() {
    let (e, s) = (cuda(), seed());
    for &(l, count) in &[
        (1usize, 500usize),
        (2, 500),
        (3, 500),
        (4, 500),
        (5, 500),
        (8, 500),
        (9, 500),
        (16, 500),
        (17, 500),
        (31, 400),
        (33, 400),
        (64, 300),
        (65, 300),
        (128, 200),
        (200, 200),
        (257, 100),
        (513, 60),
        (1024, 40),
        (2049, 20),
        (4096, 12),
        (8193, 6),
        (16384, 4),
    ] {
        check_div_lengths(&e, l, count, s ^ l as u64);
    }
}

#[test]
#[ignore = "needs a CUDA device"]
fn cuda_div_benchmark_shape() {
    // Dividend of M-2 limbs, divisor of 2..=M/2 limbs, as in `bench int`.
    let (e, s) = (cuda(), seed());
    for &(m, count) in &[
        (4usize, 3000usize),
        (8, 3000),
        (64, 3000),
        (128, 2000),
        (256, 1000),
        (512, 500),
        (1024, 200),
        (2048, 80),
        (4096, 40),
        (8192, 16),
    ] {
        let bits = 64 * m as u64;
        let a = IntArray::random_lengths(&e, count, bits, s ^ m as u64, m - 2, m - 2).unwrap();
        let b = IntArray::random_lengths(&e, count, bits, s ^ 0x5eed, 2, m / 2).unwrap();
        let (q, r) = a.divrem(&b).unwrap();
        let (na, nb) = (a.to_naturals().unwrap(), b.to_naturals().unwrap());
        let (nq, nr) = (q.to_naturals().unwrap(), r.to_naturals().unwrap());
        for i in 0..count {
            let (eq, er) = na[i].clone().div_mod(nb[i].clone());
            assert_eq!(
                (&nq[i], &nr[i]),
                (&eq, &er),
                "bench shape M={m} element {i}"
            );
        }
    }
}

#[test]
#[ignore = "needs a CUDA device"]
fn cuda_div_edge_values() {
    let (e, s) = (cuda(), seed());
    let widths: Vec<usize> = LIMBS_SMALL
        .iter()
        .chain(LIMBS_MID)
        .copied()
        .chain([1023, 1025, 2048, 4097, 8192, 16384])
        .collect();
    for l in widths {
        let mut c = Cases::new(l);
        let ev = edge_values(l);
        for x in &ev {
            for y in &ev {
                c.push_limbs(x, y);
            }
        }
        let n_random = if l <= 64 {
            200
        } else if l <= 1024 {
            20
        } else {
            3
        };
        let (a, b) = operands(&Engine::Cpu, l, n_random, s ^ l as u64);
        let (va, vb) = (a.to_naturals().unwrap(), b.to_naturals().unwrap());
        for (x, y) in va.into_iter().zip(vb) {
            c.push(x, y);
        }
        c.check(&e, "edge values");
    }
}

/// The rare paths of the quotient estimate: add-back (the 3-by-2 estimate one
/// too large), the B-1 clamp (top of the window equal to the divisor's),
/// quotient limbs of all ones, long borrows through zero limbs.
#[test]
#[ignore = "needs a CUDA device"]
fn cuda_div_estimate_corrections() {
    let (e, s) = (cuda(), seed());
    let mut rng = Rng(s ^ 0xadd);
    let b = |k: usize| Natural::from(1u32) << (64 * k as u64);
    for l in [
        2usize, 3, 4, 5, 8, 9, 17, 33, 64, 65, 129, 257, 513, 1025, 2049, 4097, 8193, 16384,
    ] {
        let mut c = Cases::new(l);
        let reps = if l <= 513 { 6 } else { 2 };
        for n in [1usize, 2, 3, l / 2 + 1, l - 1, l] {
            if n == 0 || n > l {
                continue;
            }
            for rep in 0..reps {
                let mut v = rng.num(l, n, rep % 2 == 1);
                if rep % 3 == 0 {
                    v[n - 1] |= 1 << 63;
                }
                if rep % 5 == 1 {
                    v.iter_mut().for_each(|x| *x = 0);
                    v[n - 1] = 1 << 63;
                    v[0] |= 1;
                }
                let vv = nat(&v);
                // Few quotient limbs for the widest widths keeps the host check quick.
                let span = (l - n + 1).min(if l > 2048 { 40 } else { l });
                // 1. Add-back: u = k * (v with its low n-2 limbs cleared) * B^j + low.
                if n >= 3 {
                    let j = rng.index(span);
                    let top = &vv - (&vv % b(n - 2));
                    let k = Natural::from(if rep % 4 == 0 {
                        u64::MAX
                    } else {
                        rng.next() | 1
                    });
                    let low = nat(&rng.num(j.max(1), j, true));
                    c.push(k * top * b(j) + low, vv.clone());
                }
                // 2. Clamp: u = (v - 1) * B^(j+1) + x.
                {
                    let j = rng.index(span);
                    let x = nat(&rng.num(j + 1, j + 1, true));
                    c.push((&vv - Natural::from(1u32)) * b(j + 1) + x, vv.clone());
                }
                // 3. u = Q*v + R, Q structured or all ones, R = v-1 or random.
                {
                    let ql = rng.index(span) + 1;
                    let q = nat(&rng.num(ql, ql, true));
                    let r = if rep % 2 == 0 {
                        &vv - Natural::from(1u32)
                    } else {
                        nat(&rng.num(n, n, false)) % &vv
                    };
                    c.push(&q * &vv + &r, vv.clone());
                    let ones = b(ql) - Natural::from(1u32);
                    c.push(ones * &vv + r, vv.clone());
                }
                // 4. All-ones dividends, and runs of ones and zeros.
                {
                    c.push(modulus(64 * l as u64) - Natural::from(1u32), vv.clone());
                    let len = n + rng.index(span);
                    let mut w = vec![0u64; l];
                    for (i, x) in w.iter_mut().enumerate().take(len) {
                        *x = if (i / 3) % 2 == 1 { u64::MAX } else { 0 };
                    }
                    w[len - 1] |= 1;
                    c.push_limbs(&w, &v);
                }
            }
        }
        c.check(&e, "estimate corrections");
    }
}

/// The blocked kernel (divisors above 512 limbs, 16 quotient limbs a step,
/// the top 24 divisor limbs for the estimate): quotient lengths around
/// multiples of 16, divisor top limbs 1 and all ones (normalisation shifts 63
/// and 0), and the dividends that take its rare paths: a step's estimate one
/// too large (u = k * (v with the limbs below n-25 cleared) * B^j, j on a step
/// boundary), the window's top equal to the divisor's (u = (v-1) * B^j + x).
#[test]
#[ignore = "needs a CUDA device"]
fn cuda_div_blocked_steps() {
    let (e, s) = (cuda(), seed());
    let mut rng = Rng(s ^ 0xb10c);
    let b = |k: usize| Natural::from(1u32) << (64 * k as u64);
    for l in [600usize, 1100, 2100, 4200, 8192] {
        let mut c = Cases::new(l);
        for n in [
            300usize,
            512,
            513,
            528,
            529,
            1024,
            1025,
            2048,
            4097,
            l / 2 + 1,
            l - 33,
            l - 17,
            l - 16,
            l - 15,
            l - 1,
        ] {
            if n > l - 1 {
                continue;
            }
            for rep in 0..3 {
                let mut v = rng.num(l, n, rep == 1);
                match rep {
                    0 => v[n - 1] = 1,
                    1 => v[n - 1] = u64::MAX,
                    _ => v[n - 1] |= 1 << 62,
                }
                let vv = nat(&v);
                let room = l - n; // quotient limbs that fit
                // Quotient lengths around the step size.
                for ql in [1usize, 15, 16, 17, 31, 32, 33, 1 + rng.index(room.min(80))] {
                    if ql > room {
                        continue;
                    }
                    let q = nat(&rng.num(ql, ql, rep == 2));
                    let r = nat(&rng.num(n, n, false)) % &vv;
                    c.push(q * &vv + r, vv.clone());
                }
                // The estimate one too large at a step boundary.
                let top = &vv - (&vv % b(n - 25));
                for j in [0usize, 16, 32] {
                    let kl = 1 + rng.index(16);
                    if j + kl > room {
                        continue;
                    }
                    let k = nat(&rng.num(kl, kl, rep == 0));
                    c.push(k * &top * b(j), vv.clone());
                }
                // The window's top limbs equal to the divisor's.
                for j in [16usize, 32, 48] {
                    if j > room {
                        continue;
                    }
                    let x = nat(&rng.num(j, j, true));
                    c.push((&vv - Natural::from(1u32)) * b(j) + x, vv.clone());
                }
            }
        }
        c.check(&e, "blocked steps");
    }
}

#[test]
#[ignore = "needs a CUDA device"]
fn cuda_div_zero_divisor_names_first() {
    let e = cuda();
    for &(l, len, zeros) in &[
        (1usize, 4usize, &[1usize, 3][..]),
        (2, 100, &[57, 99, 58][..]),
        (65, 1000, &[999][..]),
        (600, 50, &[3, 0][..]),
        (4096, 6, &[5, 2][..]),
    ] {
        let bits = 64 * l as u64;
        let a = IntArray::random(&e, len, bits, 7).unwrap();
        let mut bl = IntArray::random_lengths(&Engine::Cpu, len, bits, 9, 1, l)
            .unwrap()
            .to_limbs()
            .unwrap();
        for &z in zeros {
            bl[z * l..(z + 1) * l].iter_mut().for_each(|x| *x = 0);
        }
        let b = IntArray::from_limbs(bits, bl)
            .unwrap()
            .to_engine(&e)
            .unwrap();
        let first = *zeros.iter().min().unwrap();
        match a.divrem(&b) {
            Err(Error::DivisionByZero { index }) => assert_eq!(index, first, "{l} limbs"),
            other => panic!("expected division by zero, got {other:?}"),
        }
    }
    // The engine is still usable afterwards.
    check_div_lengths(&e, 3, 50, 5);
}

#[test]
#[ignore = "needs a CUDA device"]
fn cuda_div_matches_cpu_and_empty() {
    let e = cuda();
    for &l in &[1usize, 7, 64, 300] {
        let bits = 64 * l as u64;
        let a = IntArray::random_lengths(&Engine::Cpu, 500, bits, 11, 1, l).unwrap();
        let b = IntArray::random_lengths(&Engine::Cpu, 500, bits, 12, 1, l).unwrap();
        let (qc, rc) = a.divrem(&b).unwrap();
        let (ag, bg) = (a.to_engine(&e).unwrap(), b.to_engine(&e).unwrap());
        let (qg, rg) = ag.divrem(&bg).unwrap();
        assert_eq!(
            qg.to_limbs().unwrap(),
            qc.to_limbs().unwrap(),
            "{l} limbs quotient"
        );
        assert_eq!(
            rg.to_limbs().unwrap(),
            rc.to_limbs().unwrap(),
            "{l} limbs remainder"
        );
    }
    let z = IntArray::zeros(&e, 0, 128).unwrap();
    let (q, r) = z.divrem(&z).unwrap();
    assert_eq!((q.len(), r.len()), (0, 0));
}
