//! Single-thread timings of the CPU engine's limb algorithms (ns per call),
//! to compare with notes/gmpmicro.c. Ignored; run with
//! `cargo test --release --test cpu_micro -- --ignored --nocapture`.
use mparray::int::cpu::{div, mul};
use std::time::Instant;

fn rnd(n: usize, seed: u64) -> Vec<u64> {
    (0..n as u64)
        .map(|i| mparray::int::random::limb(seed, i))
        .collect()
}

fn time(label: &str, n: usize, mut f: impl FnMut()) {
    let it = 1 + 20_000_000 / (n * n + 100);
    let mut best = f64::MAX;
    for _ in 0..5 {
        let t = Instant::now();
        for _ in 0..it {
            f();
        }
        best = best.min(t.elapsed().as_nanos() as f64 / it as f64);
    }
    println!("{label:<10} n={n:>6} {best:>12.1} ns");
}

#[test]
#[ignore = "timing, not a test"]
fn micro() {
    let sizes: Vec<usize> = std::env::var("SIZES")
        .map(|s| s.split(',').map(|x| x.parse().unwrap()).collect())
        .unwrap_or(vec![
            8, 16, 24, 32, 48, 64, 96, 128, 192, 256, 512, 1024, 2048, 4096, 8192,
        ]);
    {
        use mparray::int::cpu::arith;
        let n = 1000;
        let a = rnd(n, 1);
        let b = rnd(n, 2);
        let mut r = vec![0u64; n];
        time("add_n/1000", 10, || {
            std::hint::black_box(arith::add_n(&mut r, &a, &b));
        });
        time("sub_n/1000", 10, || {
            std::hint::black_box(arith::sub_n(&mut r, &a, &b));
        });
        time("addmul1/1000", 10, || {
            std::hint::black_box(arith::addmul_1(&mut r, &a, b[0]));
        });
        time("submul1/1000", 10, || {
            std::hint::black_box(arith::submul_1(&mut r, &a, b[0]));
        });
        time("shl1/1000", 10, || {
            std::hint::black_box(arith::shl1_assign(&mut r));
        });
        time("div3/1000", 10, || {
            arith::divexact_by3_assign(&mut r);
        });
    }
    for &n in &sizes {
        let a = rnd(n, 1);
        let mut b = rnd(n, 2);
        let mut r = vec![0u64; 2 * n];
        let mut s = vec![0u64; 20 * n + 1000];
        if n <= 64 {
            time("basecase", n, || mul::mul_basecase(&mut r, &a, &b));
        }
        time("mul_n", n, || mul::mul_n(&mut r, &a, &b, &mut s, false));
        time("mullo_n", n, || {
            mul::mullo(&mut r[..n], &a, &b, &mut s, false)
        });
        if n <= 128 {
            time("comba", n, || mul::mullo_comba(&mut r[..n], &a, &b));
            time("mullo_bc", n, || mul::mullo_basecase(&mut r[..n], &a, &b));
        }
        if n >= 48 {
            let mut s = vec![0u64; mparray::int::cpu::ntt::itch(n, n)];
            time("ntt", n, || {
                mparray::int::cpu::ntt::mul(&mut r, &a, Some(&b), &mut s, false)
            });
            mparray::int::cpu::ntt::avoid_avx512(true);
            time("ntt/avx2", n, || {
                mparray::int::cpu::ntt::mul(&mut r, &a, Some(&b), &mut s, false)
            });
            mparray::int::cpu::ntt::avoid_avx512(false);
        }
        if n >= 16 {
            b[n / 2 - 1] |= 1 << 63;
            let mut u = a.clone();
            u[n - 2] = 0;
            u[n - 1] = 0;
            let mut q = vec![0u64; n];
            let mut rr = vec![0u64; n];
            let mut sv = Vec::new();
            let bb: Vec<u64> = b[..n / 2]
                .iter()
                .cloned()
                .chain(std::iter::repeat_n(0, n - n / 2))
                .collect();
            time("divrem", n, || {
                div::divrem(&mut q, &mut rr, &u, &bb, &mut sv, false);
            });
        }
    }
}

#[test]
fn ntt_matches_schoolbook() {
    use mparray::int::cpu::ntt;
    for &(an, bn) in &[
        (1usize, 1usize),
        (2, 1),
        (3, 3),
        (5, 4),
        (64, 64),
        (100, 37),
        (1000, 1000),
        (1024, 1024),
        (4096, 100),
    ] {
        let a = rnd(an, an as u64);
        let b = rnd(bn, 7 + bn as u64);
        let mut r1 = vec![0u64; an + bn];
        let mut r2 = vec![0u64; an + bn];
        let mut s = vec![0u64; ntt::itch(an, bn)];
        ntt::mul(&mut r1, &a, Some(&b), &mut s, false);
        if an >= bn {
            mul::mul_basecase(&mut r2, &a, &b);
        } else {
            mul::mul_basecase(&mut r2, &b, &a);
        }
        assert_eq!(r1, r2, "{an}x{bn}");
        let mut r3 = vec![0u64; 2 * an];
        let mut r4 = vec![0u64; 2 * an];
        let mut s = vec![0u64; ntt::itch(an, an)];
        ntt::mul(&mut r3, &a, None, &mut s, true);
        mul::mul_basecase(&mut r4, &a, &a);
        assert_eq!(r3, r4, "sqr {an}");
    }
}

#[test]
#[ignore = "timing, not a test"]
fn micro_div() {
    let m: usize = std::env::var("M").map_or(8190, |s| s.parse().unwrap());
    let u = rnd(m, 5);
    for dn in [
        2usize, 8, 16, 40, 64, 100, 128, 200, 256, 400, 512, 1024, 2048, 3000, 4096,
    ] {
        if dn > m / 2 {
            break;
        }
        let mut v = rnd(dn, 6);
        v[dn - 1] |= 1;
        v.resize(m, 0);
        let (mut q, mut r, mut s) = (vec![0u64; m], vec![0u64; m], Vec::new());
        let it = 1 + 2_000_000_000 / (m * if dn < 200 { dn * 8 } else { 1600 } + 1);
        let mut best = [f64::MAX; 2];
        for _ in 0..5 {
            for (k, t) in [
                std::env::var("BT").map_or(div::BARRETT_T, |s| s.parse().unwrap()),
                usize::MAX,
            ]
            .into_iter()
            .enumerate()
            {
                div::set_barrett_threshold(t);
                let t = Instant::now();
                for _ in 0..it {
                    div::divrem(&mut q, &mut r, &u, &v, &mut s, false);
                }
                best[k] = best[k].min(t.elapsed().as_nanos() as f64 / it as f64);
            }
        }
        div::set_barrett_threshold(div::BARRETT_T);
        println!(
            "div 8190/{dn:<5} {:>12.1} ns   (no Barrett {:>12.1})",
            best[0], best[1]
        );
    }
}
