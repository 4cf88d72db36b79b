//! Times the modular functions (powm with a full-width exponent and an odd
//! full-width modulus, gcd, modinv) at the given widths on the CPU engine
//! (all cores) and, when a GPU is usable, on CUDA, checking every CUDA
//! result against the CPU functions and a sample of the CPU results against
//! malachite. One JSON line per measurement.
//!
//! Usage: modbench [SECONDS_PER_CASE] [BITS...]   (default 0.5, 256 1024 2048 4096)
//! `MODBENCH_CPU=0` skips the CPU timings, `MODBENCH_GPU=0` the CUDA ones.

use std::time::Instant;

use malachite_base::num::arithmetic::traits::{Gcd, ModInverse, ModPow};
use malachite_nz::natural::Natural;
use mparray::Engine;
use mparray::int::cpu::modular::{self as cpu, HostOperand};
use mparray::int::cuda::modular::{self as gpu, Operand};
use mparray::int::cuda::{download, upload};

struct Rng(u64);
impl Rng {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }
}

fn inputs(n: usize, l: usize, seed: u64) -> (Vec<u64>, Vec<u64>, Vec<u64>) {
    let mut r = Rng(seed);
    let mut a: Vec<u64> = (0..n * l).map(|_| r.next()).collect();
    let mut b: Vec<u64> = (0..n * l).map(|_| r.next()).collect();
    let mut m: Vec<u64> = (0..n * l).map(|_| r.next()).collect();
    for i in 0..n {
        m[i * l] |= 1;
        m[i * l + l - 1] |= 1 << 63;
        b[i * l + l - 1] |= 1 << 63;
        a[i * l + l - 1] &= !(1 << 63); // a < m
    }
    (a, b, m)
}

fn nat(x: &[u64]) -> Natural {
    Natural::from_limbs_asc(x)
}

fn emit(op: &str, engine: &str, bits: usize, n: usize, secs: f64, check: &str) {
    println!(
        "{{\"op\":\"{op}\",\"engine\":\"{engine}\",\"bits\":{bits},\"count\":{n},\"seconds\":{secs:.6},\"per_s\":{:.1},\"check\":\"{check}\"}}",
        n as f64 / secs
    );
}

/// Times `f(n)` with n grown until one run takes `target` seconds.
fn timed<F: FnMut(usize) -> f64>(start: usize, max: usize, target: f64, mut f: F) -> (usize, f64) {
    let mut n = start;
    loop {
        let s = f(n);
        if s >= target * 0.5 || n >= max {
            return (n, s);
        }
        let grow = ((target / s.max(1e-6)) * n as f64) as usize;
        n = grow.max(n * 2).min(max);
    }
}

fn main() -> mparray::Result<()> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let target: f64 = args.first().and_then(|x| x.parse().ok()).unwrap_or(0.5);
    let mut widths: Vec<usize> = args.iter().skip(1).filter_map(|x| x.parse().ok()).collect();
    if widths.is_empty() {
        widths = vec![256, 1024, 2048, 4096];
    }
    let do_cpu = std::env::var("MODBENCH_CPU").map_or(true, |v| v != "0");
    let do_gpu = std::env::var("MODBENCH_GPU").map_or(true, |v| v != "0");
    let eng = if do_gpu {
        match Engine::cuda() {
            Ok(Engine::Cuda(e)) => Some(e),
            _ => None,
        }
    } else {
        None
    };
    for &bits in &widths {
        let l = bits / 64;
        // The reference sample: 64 elements, malachite vs the CPU functions.
        let (a, b, m) = inputs(64, l, bits as u64);
        let p = cpu::powm(&a, HostOperand::Each(&b), HostOperand::Each(&m), l)?;
        let g = cpu::gcd(&a, HostOperand::Each(&b), l)?;
        let (x, ok) = cpu::modinv(&a, HostOperand::Each(&m), l)?;
        let mut bad = 0;
        for i in 0..64 {
            let (ai, bi, mi) = (
                nat(&a[i * l..(i + 1) * l]),
                nat(&b[i * l..(i + 1) * l]),
                nat(&m[i * l..(i + 1) * l]),
            );
            bad += (nat(&p[i * l..(i + 1) * l]) != (&ai % &mi).mod_pow(&bi, &mi)) as usize;
            bad += (nat(&g[i * l..(i + 1) * l]) != (&ai).gcd(&bi)) as usize;
            let inv = (&ai % &mi).mod_inverse(&mi);
            bad += (ok[i] != inv.is_some()
                || nat(&x[i * l..(i + 1) * l]) != inv.unwrap_or_default())
                as usize;
        }
        let ref_check = if bad == 0 { "ok" } else { "MISMATCH" };
        println!("{{\"bits\":{bits},\"malachite_sample\":64,\"check\":\"{ref_check}\"}}");

        let powm_max = (1usize << 22) / l.pow(2).max(1) + 64;
        if do_cpu {
            let (n, s) = timed(16, powm_max, target, |n| {
                let (a, b, m) = inputs(n, l, 1);
                let t = Instant::now();
                let r = cpu::powm(&a, HostOperand::Each(&b), HostOperand::Each(&m), l).unwrap();
                std::hint::black_box(r);
                t.elapsed().as_secs_f64()
            });
            emit("powm", "cpu", bits, n, s, "malachite sample above");
            for op in ["gcd", "modinv"] {
                let (n, s) = timed(256, 1 << 22, target, |n| {
                    let (a, b, m) = inputs(n, l, 1);
                    let t = Instant::now();
                    if op == "gcd" {
                        std::hint::black_box(cpu::gcd(&a, HostOperand::Each(&b), l).unwrap());
                    } else {
                        std::hint::black_box(cpu::modinv(&a, HostOperand::Each(&m), l).unwrap());
                    }
                    t.elapsed().as_secs_f64()
                });
                emit(op, "cpu", bits, n, s, "malachite sample above");
            }
        }
        let Some(e) = &eng else { continue };
        for op in ["powm", "gcd", "modinv"] {
            let mut check = String::from("ok");
            let (start, max) = if op == "powm" {
                (1024, 1 << 20)
            } else {
                (4096, 1 << 22)
            };
            let (n, s) = timed(start, max, target, |n| {
                let (a, b, m) = inputs(n, l, 2);
                let (da, db, dm) = (
                    upload(e, &a).unwrap(),
                    upload(e, &b).unwrap(),
                    upload(e, &m).unwrap(),
                );
                // First call of a module compiles it: warm up on a few elements.
                let _ = gpu::powm(e, &da, Operand::Each(&db), Operand::Each(&dm), 1, l);
                let _ = gpu::gcd(e, &da, Operand::Each(&db), 1, l);
                let _ = gpu::modinv(e, &da, Operand::Each(&dm), 1, l);
                e.synchronize().unwrap();
                let t = Instant::now();
                match op {
                    "powm" => {
                        let r = gpu::powm(e, &da, Operand::Each(&db), Operand::Each(&dm), n, l)
                            .unwrap();
                        e.synchronize().unwrap();
                        let s = t.elapsed().as_secs_f64();
                        let v = download(e, &r).unwrap();
                        // Check the first 4096 against the CPU.
                        let k = n.min(256);
                        let c = cpu::powm(
                            &a[..k * l],
                            HostOperand::Each(&b[..k * l]),
                            HostOperand::Each(&m[..k * l]),
                            l,
                        )
                        .unwrap();
                        if v[..k * l] != c[..] {
                            check = "MISMATCH vs cpu".into();
                        }
                        s
                    }
                    "gcd" => {
                        let r = gpu::gcd(e, &da, Operand::Each(&db), n, l).unwrap();
                        e.synchronize().unwrap();
                        let s = t.elapsed().as_secs_f64();
                        let v = download(e, &r).unwrap();
                        let k = n.min(16384);
                        let c = cpu::gcd(&a[..k * l], HostOperand::Each(&b[..k * l]), l).unwrap();
                        if v[..k * l] != c[..] {
                            check = "MISMATCH vs cpu".into();
                        }
                        s
                    }
                    _ => {
                        let (r, f) = gpu::modinv(e, &da, Operand::Each(&dm), n, l).unwrap();
                        e.synchronize().unwrap();
                        let s = t.elapsed().as_secs_f64();
                        let v = download(e, &r).unwrap();
                        let fv = download(e, &f).unwrap();
                        let k = n.min(16384);
                        let (c, ok) =
                            cpu::modinv(&a[..k * l], HostOperand::Each(&m[..k * l]), l).unwrap();
                        let okv: Vec<u8> = ok.iter().map(|&o| o as u8).collect();
                        if v[..k * l] != c[..] || fv[..k] != okv[..] {
                            check = "MISMATCH vs cpu".into();
                        }
                        s
                    }
                }
            });
            emit(op, "cuda", bits, n, s, &check);
        }
    }
    Ok(())
}
