//! The CUDA huge-integer engine against malachite (products) and host loops
//! (linear primitives): random operands at every transform length from 2^12
//! to 2^21 points and at their boundaries (so every global pass shape, radix
//! 2 to 16 and up to 3 passes), unbalanced operands, runs of zero and
//! all-one limbs, 0 and 1, and the split paths forced by a low memory limit.
//! The generic algorithms (Newton division, square root, decimal conversion)
//! run on this engine against malachite too. `huge_cuda_bench` times multiplication at 2^20..2^32 bits (sizes from
//! MPARRAY_HUGE_BENCH_BITS) and checks each product. Ignored without a GPU.
mod common;
use common::Rng;

use std::cmp::Ordering;
use std::time::Instant;

use malachite_base::num::arithmetic::traits::{DivRem, Pow, SqrtRem};
use malachite_nz::natural::Natural;
use mparray::Engine;
use mparray::huge::cuda::CudaHuge;
use mparray::huge::{HugeEngine, HugeInt, div, radix, sqrt};

fn eng() -> CudaHuge {
    CudaHuge::shared().expect("these tests need a CUDA device")
}

impl Rng {
    /// `n` limbs of kind 0 random, 1 all ones, 2 runs of zero and all-one
    /// limbs with some random ones, 3 sparse.
    fn limbs(&mut self, n: usize, kind: u32) -> Vec<u64> {
        let mut v = Vec::with_capacity(n);
        let mut run = 0u64;
        let mut left = 0usize;
        for _ in 0..n {
            let x = match kind {
                0 => self.next(),
                1 => u64::MAX,
                2 => {
                    if left == 0 {
                        left = 1 + self.index(3000);
                        run = match self.index(3) {
                            0 => 0,
                            1 => u64::MAX,
                            _ => 1,
                        };
                    }
                    left -= 1;
                    if run == 1 { self.next() } else { run }
                }
                _ => {
                    if self.index(50) == 0 {
                        self.next()
                    } else {
                        0
                    }
                }
            };
            v.push(x);
        }
        v
    }
}

fn nat(l: &[u64]) -> Natural {
    Natural::from_limbs_asc(l)
}

fn limbs_of(n: &Natural, len: usize) -> Vec<u64> {
    let mut v = n.to_limbs_asc();
    assert!(v.len() <= len, "value longer than {len} limbs");
    v.resize(len, 0);
    v
}

fn check_mul(e: &CudaHuge, a: &[u64], b: &[u64], what: &str) {
    let da = e.upload(a).unwrap();
    let db = e.upload(b).unwrap();
    let p = e.download(&e.mul(&da, &db).unwrap()).unwrap();
    let want = limbs_of(&(nat(a) * nat(b)), a.len() + b.len());
    assert_eq!(p.len(), want.len(), "{what}: length");
    if p != want {
        let i = p.iter().zip(&want).position(|(x, y)| x != y).unwrap();
        panic!(
            "{what}: {} x {} limbs: first wrong limb {i} of {}",
            a.len(),
            b.len(),
            p.len()
        );
    }
}

fn check_sqr(e: &CudaHuge, a: &[u64], what: &str) {
    let da = e.upload(a).unwrap();
    let p = e.download(&e.sqr(&da).unwrap()).unwrap();
    let x = nat(a);
    let want = limbs_of(&(&x * &x), 2 * a.len());
    assert!(p == want, "{what}: sqr of {} limbs", a.len());
}

/// Product lengths (limbs) at and around each transform length 2^12..2^21.
fn product_lengths() -> Vec<usize> {
    let mut v = vec![2, 3, 100, 1000];
    for logn in 12..=21u32 {
        let half = 1usize << (logn - 1);
        v.extend([half - 1, half, half + 1]);
    }
    v
}

#[test]
#[ignore = "needs a CUDA device"]
fn huge_cuda_mul_every_length() {
    let e = eng();
    let mut r = Rng(common::seed());
    let mut n = 0;
    for (i, &total) in product_lengths().iter().enumerate() {
        // Balanced, slightly unbalanced and one-limb splits of `total`.
        let splits = [total / 2, total / 3, 1];
        for (j, &lb) in splits.iter().enumerate() {
            let lb = lb.max(1);
            let la = total - lb;
            if la == 0 {
                continue;
            }
            let kind = ((i + j) % 4) as u32;
            let a = r.limbs(la, kind);
            let b = r.limbs(lb, if kind == 1 { 1 } else { (kind + j as u32) % 4 });
            check_mul(&e, &a, &b, &format!("kind {kind}"));
            n += 1;
        }
        if total % 2 == 0 {
            let a = r.limbs(total / 2, (i % 4) as u32);
            check_sqr(&e, &a, "sqr");
            n += 1;
        }
    }
    eprintln!("{n} products checked");
}

#[test]
#[ignore = "needs a CUDA device"]
fn huge_cuda_mul_edges() {
    let e = eng();
    let mut r = Rng(common::seed());
    // 0 and 1 and empty operands.
    for la in [1usize, 5, 3000, 70000] {
        let a = r.limbs(la, 0);
        let mut one = vec![0u64; 7];
        one[0] = 1;
        check_mul(&e, &a, &one, "times one");
        check_mul(&e, &a, &[0, 0, 0], "times zero");
        check_mul(&e, &a, &[1], "times 1 limb");
        let da = e.upload(&a).unwrap();
        let z = e.upload(&[]).unwrap();
        let p = e.mul(&da, &z).unwrap();
        assert_eq!(e.len(&p), la);
        assert!(e.download(&p).unwrap().iter().all(|&x| x == 0));
    }
    // All-ones operands: the largest convolution coefficients.
    for n in [2048usize, 65536, 1 << 19] {
        let a = vec![u64::MAX; n];
        check_mul(&e, &a, &a, "all ones");
        check_sqr(&e, &a, "all ones");
    }
    // 2^(64n) - 1 times 2^(64m): long zero runs.
    let mut b = vec![0u64; 40000];
    b[39999] = 1;
    check_mul(&e, &vec![u64::MAX; 50000], &b, "ones times power");
    // Unbalanced.
    for (la, lb) in [(300000usize, 7usize), (1 << 18, 1000), (100000, 33333)] {
        let a = r.limbs(la, 0);
        let b = r.limbs(lb, 2);
        check_mul(&e, &a, &b, "unbalanced");
        check_mul(&e, &b, &a, "unbalanced, swapped");
    }
}

#[test]
#[ignore = "needs a CUDA device"]
fn huge_cuda_mul_split() {
    let mut r = Rng(common::seed());
    // 256 KiB: transforms of at most 2^13 points, 4096-limb products.
    for limit in [32usize << 12, 32 << 13, 32 << 15] {
        let e = eng().with_mem_limit(limit);
        for (la, lb) in [
            (2000usize, 2000usize),
            (5000, 3000),
            (20000, 100),
            (20000, 1500),
            (33333, 33333),
            (100000, 2047),
            (70000, 9000),
        ] {
            for kind in 0..3 {
                let a = r.limbs(la, kind);
                let b = r.limbs(lb, (kind + 1) % 3);
                check_mul(&e, &a, &b, &format!("split at {limit} bytes"));
            }
            let a = r.limbs(la, 0);
            check_sqr(&e, &a, "split sqr");
        }
        check_sqr(&e, &vec![u64::MAX; 30000], "split sqr all ones");
    }
}

/// Host reference of acc +/- b 2^(64 shift) mod 2^(64 n) with the carry out.
fn host_add_at(acc: &mut [u64], b: &[u64], shift: usize, sub: bool) -> bool {
    let mut c = false;
    for i in shift..acc.len() {
        let v = if i - shift < b.len() { b[i - shift] } else { 0 };
        let (r, c1) = if sub {
            let (d, b1) = acc[i].overflowing_sub(v);
            let (d, b2) = d.overflowing_sub(c as u64);
            (d, b1 | b2)
        } else {
            let (s, c1) = acc[i].overflowing_add(v);
            let (s, c2) = s.overflowing_add(c as u64);
            (s, c1 | c2)
        };
        acc[i] = r;
        c = c1;
    }
    c
}

#[test]
#[ignore = "needs a CUDA device"]
fn huge_cuda_linear() {
    let e = eng();
    let mut r = Rng(common::seed());
    let mut cases = 0;
    // add_at / sub_at: tile boundaries (2048 limbs), long carry runs.
    for &n in &[1usize, 2, 100, 2047, 2048, 2049, 4097, 50000, 300000] {
        for kind in 0..4u32 {
            for sub in [false, true] {
                let mut acc = r.limbs(n, kind);
                if kind == 1 && sub {
                    acc.iter_mut().for_each(|x| *x = 0);
                }
                let m = 1 + r.index(n);
                let shift = r.index(n - m + 1);
                let mut b = r.limbs(m, if kind == 1 { 3 } else { kind });
                if kind == 1 {
                    b[0] |= 1;
                }
                let mut want = acc.clone();
                let wc = host_add_at(&mut want, &b, shift, sub);
                let mut da = e.upload(&acc).unwrap();
                let db = e.upload(&b).unwrap();
                let c = if sub {
                    e.sub_at(&mut da, &db, shift).unwrap()
                } else {
                    e.add_at(&mut da, &db, shift).unwrap()
                };
                let got = e.download(&da).unwrap();
                assert!(
                    got == want && c == wc,
                    "add_at/sub_at n {n} m {m} shift {shift} kind {kind} sub {sub}"
                );
                cases += 1;
            }
        }
    }
    // Carry out of the top and a b whose top lands past acc (zero: fine,
    // nonzero: an error).
    let mut da = e.upload(&vec![u64::MAX; 10000]).unwrap();
    assert!(e.add_at(&mut da, &e.upload(&[1]).unwrap(), 0).unwrap());
    assert!(e.download(&da).unwrap().iter().all(|&x| x == 0));
    assert!(e.sub_at(&mut da, &e.upload(&[0, 1]).unwrap(), 3).unwrap());
    let g = e.download(&da).unwrap();
    assert!(g[..4].iter().all(|&x| x == 0) && g[4..].iter().all(|&x| x == u64::MAX));
    let b = e.upload(&[5, 6, 0, 0, 0]).unwrap();
    assert!(e.add_at(&mut da, &b, 9998).unwrap());
    let b = e.upload(&[5, 6, 0, 1, 0]).unwrap();
    assert!(e.add_at(&mut da, &b, 9998).is_err());
    // add_limb / sub_limb with runs longer than the first window (4096).
    for &(n, run) in &[
        (10usize, 3usize),
        (5000, 4500),
        (100000, 99990),
        (70000, 70000),
    ] {
        for sub in [false, true] {
            let fill = if sub { 0 } else { u64::MAX };
            let mut acc = r.limbs(n, 0);
            let at = r.index(n.min(5));
            for x in acc.iter_mut().skip(at).take(run.min(n - at)) {
                *x = fill;
            }
            let v = if sub {
                1 + r.next() % 1000
            } else {
                u64::MAX - r.next() % 1000
            };
            let mut want = acc.clone();
            let wc = host_add_at(&mut want, &[v], at, sub);
            let mut da = e.upload(&acc).unwrap();
            let c = if sub {
                e.sub_limb(&mut da, v, at).unwrap()
            } else {
                e.add_limb(&mut da, v, at).unwrap()
            };
            assert!(
                e.download(&da).unwrap() == want && c == wc,
                "add_limb/sub_limb n {n} run {run} sub {sub}"
            );
            cases += 1;
        }
    }
    // mul_limb, shifts, slice, normalized_len, cmp.
    for &n in &[1usize, 2, 2048, 2049, 100001] {
        let a = r.limbs(n, (n % 3) as u32);
        let da = e.upload(&a).unwrap();
        for v in [0u64, 1, u64::MAX, r.next()] {
            let p = e.download(&e.mul_limb(&da, v).unwrap()).unwrap();
            assert_eq!(
                p,
                limbs_of(&(nat(&a) * Natural::from(v)), n + 1),
                "mul_limb"
            );
        }
        for s in [0u32, 1, 31, 63] {
            let l = e.download(&e.shl_bits(&da, s).unwrap()).unwrap();
            assert_eq!(l, limbs_of(&(nat(&a) << s), n + 1), "shl {s}");
            let rr = e.download(&e.shr_bits(&da, s).unwrap()).unwrap();
            assert_eq!(rr, limbs_of(&(nat(&a) >> s), n), "shr {s}");
        }
        let (lo, hi) = (n / 3, n + 5);
        let sl = e.download(&e.slice(&da, lo, hi).unwrap()).unwrap();
        let mut want = a[lo..].to_vec();
        want.resize(hi - lo, 0);
        assert_eq!(sl, want, "slice");
        let mut z = a.clone();
        let k = r.index(n);
        z[k..].iter_mut().for_each(|x| *x = 0);
        z.resize(n + 3, 0);
        let dz = e.upload(&z).unwrap();
        assert_eq!(e.normalized_len(&dz).unwrap(), nat(&z).to_limbs_asc().len());
        let want = nat(&a).cmp(&nat(&z));
        assert_eq!(e.cmp(&da, &dz).unwrap(), want, "cmp");
        assert_eq!(e.cmp(&dz, &da).unwrap(), want.reverse(), "cmp reversed");
        assert_eq!(e.cmp(&da, &da).unwrap(), Ordering::Equal);
        let mut w = a.clone();
        w[k] ^= 1;
        let dw = e.upload(&w).unwrap();
        assert_eq!(
            e.cmp(&da, &dw).unwrap(),
            nat(&a).cmp(&nat(&w)),
            "cmp one bit"
        );
        cases += 1;
    }
    // Downloads past the 4M-limb staging chunk.
    let big = r.limbs((9 << 20) + 3, 0);
    assert!(
        e.download(&e.upload(&big).unwrap()).unwrap() == big,
        "staged download"
    );
    let z = e.zeros(0).unwrap();
    assert_eq!(e.normalized_len(&z).unwrap(), 0);
    assert_eq!(e.cmp(&z, &e.zeros(5).unwrap()).unwrap(), Ordering::Equal);
    assert!(e.shl_bits(&z, 64).is_err());
    eprintln!("{cases} linear cases checked");
}

/// Residue of a limb vector modulo 2^61 - 1 (2^64 = 8 there).
fn mod_m61(l: &[u64]) -> u64 {
    const M: u64 = (1 << 61) - 1;
    let fold = |x: u128| -> u64 {
        let mut r = (x & M as u128) + (x >> 61);
        r = (r & M as u128) + (r >> 61);
        let r = r as u64;
        if r >= M { r - M } else { r }
    };
    let mut r = 0u64;
    for &x in l.iter().rev() {
        r = fold(((r as u128) << 3) + x as u128);
    }
    r
}

fn mulmod61(a: u64, b: u64) -> u64 {
    const M: u64 = (1 << 61) - 1;
    let x = a as u128 * b as u128;
    let mut r = ((x & M as u128) + (x >> 61)) as u64;
    r = (r & M) + (r >> 61);
    if r >= M { r - M } else { r }
}

/// Times mul and sqr of two random numbers of 2^k bits for each k in
/// MPARRAY_HUGE_BENCH_BITS (default 20,24,28,30,32): upload, the product on
/// the device (median of runs, synchronized), download; checks each product
/// against malachite up to 2^28 bits and modulo 2^61-1 (plus the low limb)
/// above.
#[test]
#[ignore = "needs a CUDA device"]
fn huge_cuda_bench_mul() {
    let e = eng();
    let bits: Vec<u32> = std::env::var("MPARRAY_HUGE_BENCH_BITS")
        .unwrap_or_else(|_| "20,24,28,30,32".into())
        .split(',')
        .map(|s| s.trim().parse().unwrap())
        .collect();
    let mut r = Rng(common::seed());
    println!("bits  limbs  h2d_ms(a+b)  mul_ms(median,min)  sqr_ms  d2h_ms  check");
    for &k in &bits {
        let n = 1usize << (k - 6);
        let a = r.limbs(n, 0);
        let b = r.limbs(n, 0);
        let t = Instant::now();
        let da = e.upload(&a).unwrap();
        let db = e.upload(&b).unwrap();
        e.synchronize().unwrap();
        let h2d = t.elapsed().as_secs_f64() * 1e3;
        let runs = if k >= 32 { 3 } else { 7 };
        let mut times = Vec::new();
        let mut p = e.mul(&da, &db).unwrap(); // warm-up (compiles kernels)
        e.synchronize().unwrap();
        for _ in 0..runs {
            drop(p);
            let t = Instant::now();
            p = e.mul(&da, &db).unwrap();
            e.synchronize().unwrap();
            times.push(t.elapsed().as_secs_f64() * 1e3);
        }
        let mut st = Vec::new();
        for _ in 0..runs.min(3) {
            let t = Instant::now();
            let s = e.sqr(&da).unwrap();
            e.synchronize().unwrap();
            st.push(t.elapsed().as_secs_f64() * 1e3);
            drop(s);
        }
        times.sort_by(|x, y| x.partial_cmp(y).unwrap());
        st.sort_by(|x, y| x.partial_cmp(y).unwrap());
        let t = Instant::now();
        let ph = e.download(&p).unwrap();
        let d2h = t.elapsed().as_secs_f64() * 1e3;
        let check = if k <= 28 {
            let want = limbs_of(&(nat(&a) * nat(&b)), 2 * n);
            assert!(ph == want, "product of 2^{k} bits wrong");
            "malachite"
        } else {
            let m = mulmod61(mod_m61(&a), mod_m61(&b));
            assert_eq!(mod_m61(&ph), m, "product of 2^{k} bits wrong mod 2^61-1");
            assert_eq!(ph[0], a[0].wrapping_mul(b[0]), "low limb");
            "mod 2^61-1"
        };
        // The square, checked the same way.
        let s = e.download(&e.sqr(&da).unwrap()).unwrap();
        let m = mulmod61(mod_m61(&a), mod_m61(&a));
        assert_eq!(mod_m61(&s), m, "square of 2^{k} bits wrong mod 2^61-1");
        println!(
            "2^{k}  {n}  {h2d:.1}  {:.3} {:.3}  {:.3}  {d2h:.1}  {check}",
            times[times.len() / 2],
            times[0],
            st[st.len() / 2]
        );
        if k == 28 || k == 32 {
            // Global passes of radix 16 at most instead of 64.
            let e4 = CudaHuge::shared().unwrap().with_max_radix_log(4);
            let mut t4 = Vec::new();
            let mut p4 = e4.mul(&da, &db).unwrap();
            for _ in 0..runs {
                drop(p4);
                e4.synchronize().unwrap();
                let t = Instant::now();
                p4 = e4.mul(&da, &db).unwrap();
                e4.synchronize().unwrap();
                t4.push(t.elapsed().as_secs_f64() * 1e3);
            }
            t4.sort_by(|x, y| x.partial_cmp(y).unwrap());
            assert!(e4.download(&p4).unwrap() == ph, "radix-16 product differs");
            println!("2^{k}  radix-16 passes: mul {:.3} ms", t4[t4.len() / 2]);
        }
    }
}

#[test]
#[ignore = "needs a CUDA device"]
fn huge_cuda_algorithms() {
    let e = eng();
    let mut r = Rng(common::seed());
    // Division: every length relation, small and large (Newton) sizes.
    for &(n, m) in &[
        (1usize, 1usize),
        (5, 3),
        (100, 40),
        (600, 600),
        (601, 300),
        (5000, 2100),
        (9000, 1000),
        (40000, 20000),
        (1 << 17, 1 << 16),
        (300000, 70000),
    ] {
        for kind in [0u32, 2] {
            let a = r.limbs(n, kind);
            let mut b = r.limbs(m, kind);
            if b.iter().all(|&x| x == 0) {
                b[0] = 3;
            }
            let (q, rm) = div::divrem(&e, &e.upload(&a).unwrap(), &e.upload(&b).unwrap()).unwrap();
            let (wq, wr) = nat(&a).div_rem(nat(&b));
            assert!(
                nat(&e.download(&q).unwrap()) == wq && nat(&e.download(&rm).unwrap()) == wr,
                "divrem {n}/{m} limbs kind {kind}"
            );
        }
    }
    assert!(div::divrem(&e, &e.upload(&[5]).unwrap(), &e.upload(&[0, 0]).unwrap()).is_err());
    // Square roots.
    for &n in &[1usize, 2, 33, 65, 301, 2500, 40000, 1 << 17] {
        let a = nat(&r.limbs(n, 0));
        let s = nat(&r.limbs(n.div_ceil(2), 0));
        for x in [a, &s * &s, &s * &s - Natural::from(1u32)] {
            let l = x.to_limbs_asc();
            let (sq, rm) = sqrt::sqrt_rem(&e, &e.upload(&l).unwrap()).unwrap();
            let (ws, wr) = (&x).sqrt_rem();
            assert!(
                nat(&e.download(&sq).unwrap()) == ws && nat(&e.download(&rm).unwrap()) == wr,
                "sqrt of {n} limbs"
            );
        }
    }
    // Decimal conversion both ways.
    for &n in &[1usize, 17, 1200, 4000, 40000] {
        for kind in [0u32, 2] {
            let a = r.limbs(n, kind);
            let want = nat(&a).to_string();
            let got = radix::to_decimal(&e, &e.upload(&a).unwrap()).unwrap();
            assert!(got == want, "to_decimal {n} limbs");
            let back = e
                .download(&radix::from_decimal(&e, want.as_bytes()).unwrap())
                .unwrap();
            assert!(nat(&back) == nat(&a), "from_decimal {n} limbs");
        }
    }
    for k in [19u64, 9728, 19456, 20000] {
        let p = Natural::from(10u32).pow(k);
        for x in [
            p.clone() - Natural::from(1u32),
            p.clone(),
            p + Natural::from(1u32),
        ] {
            let got = radix::to_decimal(&e, &e.upload(&x.to_limbs_asc()).unwrap()).unwrap();
            assert!(got == x.to_string(), "10^{k} +- 1");
        }
    }
    // The HugeInt API on Engine::Cuda (the dispatch point).
    let gpu = Engine::cuda().unwrap();
    let a = nat(&r.limbs(30000, 0));
    let b = nat(&r.limbs(12345, 2));
    let ha = HugeInt::from_natural(&gpu, &a).unwrap();
    let hb = HugeInt::from_natural(&gpu, &b).unwrap();
    assert_eq!(ha.mul(&hb).unwrap().to_natural().unwrap(), &a * &b);
    assert_eq!(ha.sqr().unwrap().to_natural().unwrap(), &a * &a);
    let (q, rm) = ha.divrem(&hb).unwrap();
    let (wq, wr) = (&a).div_rem(&b);
    assert_eq!(q.to_natural().unwrap(), wq);
    assert_eq!(rm.to_natural().unwrap(), wr);
    let (s, rr) = ha.sqrt_rem().unwrap();
    let (ws, wrr) = (&a).sqrt_rem();
    assert_eq!(s.to_natural().unwrap(), ws);
    assert_eq!(rr.to_natural().unwrap(), wrr);
    assert_eq!(ha.to_decimal().unwrap(), a.to_string());
    let cpu = ha.to_engine(&Engine::Cpu).unwrap();
    assert_eq!(cpu.to_natural().unwrap(), a);
}

/// Decimal conversion on CUDA at 10^k digits for k in
/// MPARRAY_HUGE_BENCH_DIGITS (default 6,7,8): to_decimal and from_decimal
/// times; checked against malachite up to 10^7 digits and by the round trip
/// above.
#[test]
#[ignore = "needs a CUDA device"]
fn huge_cuda_bench_decimal() {
    let e = eng();
    let ks: Vec<u32> = std::env::var("MPARRAY_HUGE_BENCH_DIGITS")
        .unwrap_or_else(|_| "6,7,8".into())
        .split(',')
        .map(|s| s.trim().parse().unwrap())
        .collect();
    let mut r = Rng(common::seed());
    println!("digits  to_decimal_s  from_decimal_s  check");
    for &k in &ks {
        let digits = 10usize.pow(k);
        // A random number of about that many digits (bits = digits log2 10).
        let n = ((digits as f64 * std::f64::consts::LOG2_10) / 64.0) as usize;
        let a = r.limbs(n, 0);
        let da = e.upload(&a).unwrap();
        let t = Instant::now();
        let s = radix::to_decimal(&e, &da).unwrap();
        let t_to = t.elapsed().as_secs_f64();
        let t = Instant::now();
        let back = radix::from_decimal(&e, s.as_bytes()).unwrap();
        e.synchronize().unwrap();
        let t_from = t.elapsed().as_secs_f64();
        let back = e.download(&back).unwrap();
        assert!(nat(&back) == nat(&a), "round trip at 10^{k} digits");
        let check = if k <= 7 {
            assert!(s == nat(&a).to_string(), "to_decimal at 10^{k} digits");
            "malachite + round trip"
        } else {
            "round trip"
        };
        println!(
            "10^{k} ({} digits)  {t_to:.3}  {t_from:.3}  {check}",
            s.len()
        );
    }
}
