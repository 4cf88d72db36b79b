//! Huge integers on the CPU engine against malachite: the multiplication at
//! every transform size and on the split path, Newton division with every
//! length relation, the square root, decimal conversion, and the `huge` CLI.

mod common;
use common::Rng;

use std::str::FromStr;

use malachite_base::num::arithmetic::traits::{DivRem, Pow, SqrtRem};
use malachite_nz::natural::Natural;
use mparray::huge::{CpuHuge, HugeEngine, HugeInt, cpu, div, radix, sqrt};
use mparray::{Engine, Radix};

/// xorshift64*, seeded per test.
impl Rng {
    fn new(seed: u64) -> Rng {
        Rng(seed | 1)
    }
    fn limbs(&mut self, n: usize) -> Vec<u64> {
        (0..n).map(|_| self.next()).collect()
    }
    /// Random limbs with some structure: runs of zero and all-one limbs.
    fn structured(&mut self, n: usize) -> Vec<u64> {
        let mut v = self.limbs(n);
        let kind = self.index(4);
        for (i, x) in v.iter_mut().enumerate() {
            let run = (i / 37 + kind) % 4;
            if run == 1 {
                *x = 0;
            } else if run == 2 {
                *x = u64::MAX;
            }
        }
        if n > 0 && v[n - 1] == 0 {
            v[n - 1] = 1 + self.next() % 1000;
        }
        v
    }
}

fn nat(l: &[u64]) -> Natural {
    Natural::from_limbs_asc(l)
}

fn limbs_of(n: &Natural, len: usize) -> Vec<u64> {
    let mut l = n.to_limbs_asc();
    l.resize(len, 0);
    l
}

fn check_mul(a: &[u64], b: &[u64], seed: u64, what: &str) {
    let got = cpu::mul_limbs(a, Some(b));
    let want = limbs_of(&(nat(a) * nat(b)), a.len() + b.len());
    assert!(
        got == want,
        "{what}: {}x{} limbs wrong (seed {seed})",
        a.len(),
        b.len()
    );
}

#[test]
fn ntt_every_transform_size() {
    let seed = common::seed();
    let mut r = Rng::new(seed);
    // Each lg from 6 to 18 (odd and even: square and oblong four-step
    // shapes), lengths that just fill and just miss a power of two.
    for lg in 6..=18u32 {
        let l = 1usize << lg;
        for total in [l / 2 + 2, l - 1, l, l + 1] {
            let an = total / 2 + r.index(3);
            let bn = (total + 1).saturating_sub(an).max(1);
            let (a, b) = (r.limbs(an), r.limbs(bn));
            let got = cpu::ntt::mul(&a, Some(&b));
            let want = limbs_of(&(nat(&a) * nat(&b)), an + bn);
            assert!(got == want, "ntt {an}x{bn} (lg {lg}) wrong (seed {seed})");
        }
        if lg <= 16 {
            let a = r.limbs(l / 2);
            let got = cpu::ntt::mul(&a, None);
            assert!(
                got == limbs_of(&(nat(&a) * nat(&a)), l),
                "ntt sqr lg {lg} (seed {seed})"
            );
        }
    }
}

#[test]
fn ntt_extreme_coefficients() {
    let seed = common::seed();
    // All-ones operands give the largest convolution coefficients.
    for n in [64usize, 1000, 4096, 40000] {
        let a = vec![u64::MAX; n];
        let got = cpu::ntt::mul(&a, Some(&a));
        assert!(got == limbs_of(&(nat(&a) * nat(&a)), 2 * n), "all ones {n}");
        let got = cpu::ntt::mul(&a, None);
        assert!(
            got == limbs_of(&(nat(&a) * nat(&a)), 2 * n),
            "all ones sqr {n}"
        );
    }
    let mut r = Rng::new(seed);
    for n in [3000usize, 20000] {
        let a = r.structured(n);
        let b = r.structured(n + 17);
        let got = cpu::ntt::mul(&a, Some(&b));
        assert!(
            got == limbs_of(&(nat(&a) * nat(&b)), 2 * n + 17),
            "structured {n} (seed {seed})"
        );
    }
}

#[test]
fn mul_dispatch_and_split() {
    let seed = common::seed();
    let mut r = Rng::new(seed);
    // (Without IFMA on few cores every product is malachite's: the sizes
    // then only test the dispatch.)
    let t = cpu::ntt_t().min(cpu::NTT_T_SCALAR);
    let sizes = [
        (1, 1),
        (5, 3),
        (t - 1, t - 1),
        (t, t),
        (t + 1, t - 1),
        (3 * t, t),
        (4 * t, t),
        (4 * t + 1, t), // split path
        (20 * t + 7, t + 3),
        (9 * t, 2 * t + 1),
        (50_000, 100), // very unbalanced, malachite
    ];
    for &(an, bn) in &sizes {
        let (a, b) = (r.limbs(an), r.limbs(bn));
        check_mul(&a, &b, seed, "random");
        check_mul(&b, &a, seed, "random swapped");
        let (a, b) = (r.structured(an), r.structured(bn));
        check_mul(&a, &b, seed, "structured");
    }
    // Zeros, ones, powers of two and 2^k - 1, high zero limbs.
    let n = 3 * t;
    let mut pow2 = vec![0u64; n];
    pow2[n - 1] = 1 << 40;
    let ones = vec![u64::MAX; n];
    let mut one = vec![0u64; n];
    one[0] = 1;
    let zero = vec![0u64; n];
    let rnd = r.limbs(n);
    let mut padded = r.limbs(n);
    padded.extend(std::iter::repeat_n(0, 5000));
    for x in [&pow2, &ones, &one, &zero, &rnd, &padded] {
        for y in [&pow2, &ones, &one, &zero, &rnd] {
            check_mul(x, y, seed, "edge");
        }
    }
    let e = CpuHuge;
    let sq = e.sqr(&rnd).unwrap();
    assert!(
        sq == limbs_of(&(nat(&rnd) * nat(&rnd)), 2 * n),
        "sqr (seed {seed})"
    );
}

fn check_div(a: &[u64], b: &[u64], seed: u64) {
    let e = CpuHuge;
    let (q, rm) = div::divrem(&e, &a.to_vec(), &b.to_vec()).unwrap();
    let (wq, wr) = nat(a).div_rem(nat(b));
    assert!(
        nat(&q) == wq && nat(&rm) == wr,
        "divrem {}/{} limbs wrong (seed {seed})",
        a.len(),
        b.len()
    );
}

#[test]
fn division_lengths() {
    let seed = common::seed();
    let mut r = Rng::new(seed);
    for &m in &[1usize, 2, 24, 25, 33, 40, 65, 130, 257, 600, 2100, 5000] {
        for &n in &[
            m / 2,
            m,
            m + 1,
            2 * m - 1,
            2 * m,
            2 * m + 1,
            3 * m + 5,
            7 * m + 3,
        ] {
            if n == 0 {
                continue;
            }
            let a = r.limbs(n);
            let mut b = r.limbs(m);
            check_div(&a, &b, seed);
            // Small top limb (a large normalizing shift).
            b[m - 1] = 1 + r.next() % 7;
            check_div(&a, &b, seed);
            let a = r.structured(n);
            let b = r.structured(m);
            check_div(&a, &b, seed);
        }
    }
}

#[test]
fn division_near_powers_of_two() {
    let seed = common::seed();
    let mut r = Rng::new(seed);
    for &m in &[40usize, 200, 1500] {
        let mut divisors = Vec::new();
        let mut p = vec![0u64; m];
        p[m - 1] = 1 << 63;
        divisors.push(p.clone()); // 2^k
        let mut pm = vec![u64::MAX; m];
        divisors.push(pm.clone()); // 2^k - 1
        pm[m - 1] = (1 << 63) - 1;
        divisors.push(pm); // 2^(k-1) - 1
        let mut pp = p.clone();
        pp[0] = 1;
        divisors.push(pp); // 2^k + 1
        let mut t = vec![0u64; m];
        t[m - 1] = 1;
        divisors.push(t.clone()); // 2^(64(m-1))
        t[0] = u64::MAX;
        divisors.push(t);
        for b in &divisors {
            for n in [m, m + 1, 2 * m, 3 * m + 1] {
                let a = r.limbs(n);
                check_div(&a, b, seed);
                check_div(&vec![u64::MAX; n], b, seed);
                // a = b * q + (b - 1) and a = b * q exactly.
                let q = r.limbs(n.saturating_sub(m).max(1));
                let bq = nat(b) * nat(&q);
                check_div(
                    &(bq.clone() + nat(b) - Natural::from(1u32)).to_limbs_asc(),
                    b,
                    seed,
                );
                check_div(&bq.to_limbs_asc(), b, seed);
            }
        }
    }
    // Zero divisor is an error; zero dividend is fine.
    let e = CpuHuge;
    assert!(div::divrem(&e, &vec![5u64], &vec![0u64, 0]).is_err());
    check_div(&[0, 0], &[7], seed);
}

#[test]
fn reciprocal_is_close() {
    let seed = common::seed();
    let mut r = Rng::new(seed);
    let e = CpuHuge;
    for &k in &[33usize, 34, 70, 129, 1000, 3001] {
        let mut d = r.limbs(k);
        d[k - 1] |= 1 << 63;
        for dd in [
            d.clone(),
            {
                let mut x = vec![0u64; k];
                x[k - 1] = 1 << 63;
                x
            },
            vec![u64::MAX; k],
        ] {
            let x = div::recip(&e, &dd).unwrap();
            let exact = (Natural::from(1u32) << (128 * k as u64)) - Natural::from(1u32);
            let want = exact / nat(&dd);
            let got = nat(&x);
            let diff = if got > want {
                &got - &want
            } else {
                &want - &got
            };
            assert!(diff <= 8u32, "recip k={k} off by {diff} (seed {seed})");
        }
    }
}

#[test]
fn square_roots() {
    let seed = common::seed();
    let mut r = Rng::new(seed);
    let e = CpuHuge;
    let check = |a: &Natural, what: &str| {
        let (s, rm) = sqrt::sqrt_rem(&e, &limbs_of(a, a.to_limbs_asc().len().max(1))).unwrap();
        let (ws, wr) = a.clone().sqrt_rem();
        assert!(
            nat(&s) == ws && nat(&rm) == wr,
            "sqrt {what} of {} bits (seed {seed})",
            a.significant_bits()
        );
    };
    use malachite_base::num::logic::traits::SignificantBits;
    for &n in &[
        1usize, 2, 31, 32, 33, 34, 35, 64, 65, 67, 100, 129, 301, 1000, 2500,
    ] {
        let a = nat(&r.limbs(n));
        check(&a, "random");
        let s = nat(&r.limbs(n.div_ceil(2)));
        let sq = &s * &s;
        check(&sq, "square");
        if sq > 0u32 {
            check(&(&sq - Natural::from(1u32)), "square - 1");
        }
        check(&(&sq + (&s << 1u32)), "square + 2s");
        check(
            &(Natural::from(1u32) << (64 * n as u64 - 1)),
            "power of two",
        );
        check(
            &((Natural::from(1u32) << (64 * n as u64)) - Natural::from(1u32)),
            "2^k - 1",
        );
        check(&nat(&r.structured(n)), "structured");
    }
    check(&Natural::from(0u32), "zero");
    check(&Natural::from(1u32), "one");
}

#[test]
fn decimal_round_trips() {
    let seed = common::seed();
    let mut r = Rng::new(seed);
    let e = CpuHuge;
    for &leaf in &[19usize, 76, radix::LEAF_DIGITS] {
        for &n in &[1usize, 2, 5, 17, 40, 100, 333, 1200, 4000] {
            for a in [r.limbs(n), r.structured(n)] {
                let want = nat(&a).to_string();
                // Host threshold: everything on the host, some levels on
                // the engine, all levels on the engine.
                for host_t in [radix::HOST_NODE_T, 100, 1] {
                    let got = radix::to_decimal_with(&e, &a, leaf, host_t).unwrap();
                    assert!(
                        got == want,
                        "to_decimal {n} limbs, leaf {leaf}, host {host_t} (seed {seed})"
                    );
                    let back = radix::from_decimal_with(&e, want.as_bytes(), leaf, host_t).unwrap();
                    assert!(
                        nat(&back) == nat(&a),
                        "from_decimal {n} limbs, leaf {leaf}, host {host_t} (seed {seed})"
                    );
                }
                // Leading zeros.
                let z = format!("000000{want}");
                let back = radix::from_decimal_leaf(&e, z.as_bytes(), leaf).unwrap();
                assert!(nat(&back) == nat(&a), "leading zeros (seed {seed})");
            }
        }
        // Powers of ten and their neighbours (leaves of all zeros or nines).
        for k in [1u64, 18, 19, 20, 75, 76, 77, 152, 1000, 9728, 19456, 20000] {
            let p = Natural::from(10u32).pow(k);
            for x in [
                p.clone() - Natural::from(1u32),
                p.clone(),
                p + Natural::from(1u32),
            ] {
                let l = x.to_limbs_asc();
                let got = radix::to_decimal_leaf(&e, &l, leaf).unwrap();
                assert!(got == x.to_string(), "10^{k} +-1, leaf {leaf}");
                let back = radix::from_decimal_leaf(&e, got.as_bytes(), leaf).unwrap();
                assert!(nat(&back) == x, "10^{k} +-1 back, leaf {leaf}");
            }
        }
        assert_eq!(
            radix::to_decimal_leaf(&e, &vec![0u64; 3], leaf).unwrap(),
            "0"
        );
    }
}

#[test]
fn huge_int_api() {
    let seed = common::seed();
    let mut r = Rng::new(seed);
    let cpu = Engine::Cpu;
    let a = nat(&r.limbs(3000));
    let b = nat(&r.limbs(1234));
    let ha = HugeInt::from_natural(&cpu, &a).unwrap();
    let hb = HugeInt::from_natural(&cpu, &b).unwrap();
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
    let dec = ha.to_decimal().unwrap();
    assert_eq!(dec, a.to_string());
    let (back, radix) = HugeInt::parse(&cpu, &format!("  {dec}\n")).unwrap();
    assert_eq!(radix, Radix::Dec);
    assert_eq!(back.to_natural().unwrap(), a);
    let hex = ha.to_hex().unwrap();
    assert_eq!(hex, format!("0x{:x}", a));
    let (back, radix) = HugeInt::parse(&cpu, &hex.to_uppercase().replace("0X", "0x")).unwrap();
    assert_eq!(radix, Radix::Hex);
    assert_eq!(back.to_natural().unwrap(), a);
    assert_eq!(
        HugeInt::parse(&cpu, "0").unwrap().0.to_limbs().unwrap(),
        Vec::<u64>::new()
    );
    assert_eq!(
        HugeInt::parse(&cpu, "0x0").unwrap().0.to_hex().unwrap(),
        "0x0"
    );
    for bad in ["", "  ", "12a3", "0x", "0xg1", "-5", "1 2"] {
        assert!(HugeInt::parse(&cpu, bad).is_err(), "{bad:?} accepted");
    }
    let zero = HugeInt::zero(&cpu).unwrap();
    assert!(ha.divrem(&zero).is_err());
    assert_eq!(
        Natural::from_str(&zero.to_decimal().unwrap()).unwrap(),
        0u32
    );
    // CUDA, where absent or not built, is an error, never a panic.
    if let Ok(gpu) = Engine::cuda() {
        let _ = ha.to_engine(&gpu);
    }
}

mod cli {
    use std::path::PathBuf;
    use std::process::Command;

    fn bin() -> Command {
        Command::new(super::common::mparray_bin())
    }

    fn tmp(name: &str, body: &str) -> PathBuf {
        let dir = std::env::temp_dir().join(format!("mparray-huge-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let p = dir.join(name);
        std::fs::write(&p, body).unwrap();
        p
    }

    #[test]
    fn huge_cli_good_files() {
        let a = tmp("a.txt", "  123456789012345678901234567890\n");
        let b = tmp("b.txt", "987654321\r\n");
        let out = bin()
            .args(["huge", "mul"])
            .arg(&a)
            .arg(&b)
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        assert_eq!(
            String::from_utf8(out.stdout).unwrap().trim(),
            "121932631124828532112482853211126352690"
        );
        let out = bin()
            .args(["huge", "divrem"])
            .arg(&a)
            .arg(&b)
            .output()
            .unwrap();
        assert!(out.status.success());
        let s = String::from_utf8(out.stdout).unwrap();
        let lines: Vec<&str> = s.lines().collect();
        assert_eq!(lines, ["124999998873437499901", "574845669"]);
        let out = bin()
            .args(["huge", "sqrt"])
            .arg(&a)
            .arg("--hex")
            .output()
            .unwrap();
        assert!(out.status.success());
        let s = String::from_utf8(out.stdout).unwrap();
        assert_eq!(s.lines().count(), 2);
        assert!(s.starts_with("0x"));
        let h = tmp("h.txt", "0xff\n");
        let o = std::env::temp_dir().join(format!("mparray-huge-{}/o.txt", std::process::id()));
        let out = bin()
            .args(["huge", "sqr"])
            .arg(&h)
            .arg("-o")
            .arg(&o)
            .output()
            .unwrap();
        assert!(out.status.success());
        assert_eq!(std::fs::read_to_string(&o).unwrap().trim(), "0xfe01");
        let out = bin()
            .args(["huge", "sqr", "--dec"])
            .arg(&h)
            .output()
            .unwrap();
        assert_eq!(String::from_utf8(out.stdout).unwrap().trim(), "65025");
        let r = std::env::temp_dir().join(format!("mparray-huge-{}/r.txt", std::process::id()));
        let out = bin()
            .args(["huge", "rand", "--bits", "1000", "--seed", "7", "-o"])
            .arg(&r)
            .output()
            .unwrap();
        assert!(out.status.success());
        let t = std::fs::read_to_string(&r).unwrap();
        assert!(t.trim().len() > 290 && t.trim().chars().all(|c| c.is_ascii_digit()));
    }

    #[test]
    fn huge_cli_bad_files() {
        let good = tmp("g.txt", "12345\n");
        for (name, body) in [
            ("empty.txt", ""),
            ("letter.txt", "123x45\n"),
            ("two.txt", "12\n34\n"),
            ("hex.txt", "0x12g\n"),
            ("neg.txt", "-5\n"),
        ] {
            let p = tmp(name, body);
            let out = bin()
                .args(["huge", "mul"])
                .arg(&p)
                .arg(&good)
                .output()
                .unwrap();
            assert_eq!(out.status.code(), Some(2), "{name}");
            let err = String::from_utf8(out.stderr).unwrap();
            assert!(err.contains(name), "{name}: {err}");
        }
        let out = bin()
            .args(["huge", "mul", "/nonexistent/x.txt"])
            .arg(&good)
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(2));
        let zero = tmp("zero.txt", "0\n");
        let out = bin()
            .args(["huge", "divrem"])
            .arg(&good)
            .arg(&zero)
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(2));
        let out = bin().args(["huge", "mul"]).arg(&good).output().unwrap();
        assert_eq!(out.status.code(), Some(2), "missing B_FILE");
    }
}

/// The CPU engine behind checks of what the generic algorithms ask of an
/// engine: no zero-length buffers, shifts of 1..63 bits, every slice within
/// reason, additions and subtractions that never carry or borrow out (the
/// algorithms size their accumulators), products of non-empty buffers. A
/// CUDA engine then only needs the documented behaviour in these cases.
mod contract {
    use super::*;
    use std::cmp::Ordering;
    use std::sync::atomic::{AtomicUsize, Ordering::Relaxed};

    pub struct Checked {
        pub calls: AtomicUsize,
    }

    impl Checked {
        fn note(&self) {
            self.calls.fetch_add(1, Relaxed);
        }
    }

    type R<T> = mparray::Result<T>;

    impl HugeEngine for Checked {
        type Buf = Vec<u64>;
        fn name(&self) -> &'static str {
            "checked"
        }
        fn upload(&self, l: &[u64]) -> R<Vec<u64>> {
            assert!(!l.is_empty(), "upload of nothing");
            self.note();
            CpuHuge.upload(l)
        }
        fn download(&self, a: &Vec<u64>) -> R<Vec<u64>> {
            assert!(!a.is_empty(), "download of nothing");
            CpuHuge.download(a)
        }
        fn len(&self, a: &Vec<u64>) -> usize {
            a.len()
        }
        fn zeros(&self, n: usize) -> R<Vec<u64>> {
            assert!(n > 0, "zeros(0)");
            self.note();
            CpuHuge.zeros(n)
        }
        fn slice(&self, a: &Vec<u64>, lo: usize, hi: usize) -> R<Vec<u64>> {
            assert!(lo < hi, "empty slice {lo}..{hi}");
            assert!(
                lo < a.len(),
                "slice {lo}..{hi} starts past {} limbs",
                a.len()
            );
            self.note();
            CpuHuge.slice(a, lo, hi)
        }
        fn normalized_len(&self, a: &Vec<u64>) -> R<usize> {
            CpuHuge.normalized_len(a)
        }
        fn cmp(&self, a: &Vec<u64>, b: &Vec<u64>) -> R<Ordering> {
            CpuHuge.cmp(a, b)
        }
        fn mul(&self, a: &Vec<u64>, b: &Vec<u64>) -> R<Vec<u64>> {
            assert!(!a.is_empty() && !b.is_empty());
            self.note();
            let r = CpuHuge.mul(a, b)?;
            assert_eq!(r.len(), a.len() + b.len());
            Ok(r)
        }
        fn sqr(&self, a: &Vec<u64>) -> R<Vec<u64>> {
            assert!(!a.is_empty());
            self.note();
            CpuHuge.sqr(a)
        }
        fn mul_limb(&self, a: &Vec<u64>, v: u64) -> R<Vec<u64>> {
            CpuHuge.mul_limb(a, v)
        }
        fn add_at(&self, acc: &mut Vec<u64>, b: &Vec<u64>, s: usize) -> R<bool> {
            let c = CpuHuge.add_at(acc, b, s)?;
            assert!(!c, "carry out of add_at");
            Ok(c)
        }
        fn sub_at(&self, acc: &mut Vec<u64>, b: &Vec<u64>, s: usize) -> R<bool> {
            let c = CpuHuge.sub_at(acc, b, s)?;
            assert!(!c, "borrow out of sub_at");
            Ok(c)
        }
        fn add_limb(&self, acc: &mut Vec<u64>, v: u64, at: usize) -> R<bool> {
            let c = CpuHuge.add_limb(acc, v, at)?;
            assert!(!c, "carry out of add_limb");
            Ok(c)
        }
        fn sub_limb(&self, acc: &mut Vec<u64>, v: u64, at: usize) -> R<bool> {
            let c = CpuHuge.sub_limb(acc, v, at)?;
            assert!(!c, "borrow out of sub_limb");
            Ok(c)
        }
        fn shl_bits(&self, a: &Vec<u64>, bits: u32) -> R<Vec<u64>> {
            assert!((1..64).contains(&bits), "shl by {bits}");
            CpuHuge.shl_bits(a, bits)
        }
        fn shr_bits(&self, a: &Vec<u64>, bits: u32) -> R<Vec<u64>> {
            assert!((1..64).contains(&bits), "shr by {bits}");
            CpuHuge.shr_bits(a, bits)
        }
    }

    #[test]
    fn algorithms_keep_to_the_engine_contract() {
        let seed = common::seed();
        let mut r = Rng::new(seed);
        let e = Checked {
            calls: AtomicUsize::new(0),
        };
        for &(n, m) in &[
            (300usize, 100usize),
            (1000, 999),
            (2000, 40),
            (90, 70),
            (700, 1),
        ] {
            for (a, b) in [(r.limbs(n), r.limbs(m)), (r.structured(n), r.structured(m))] {
                let (q, rm) = div::divrem(&e, &a, &b).unwrap();
                let (wq, wr) = nat(&a).div_rem(nat(&b));
                assert!(nat(&q) == wq && nat(&rm) == wr, "divrem (seed {seed})");
            }
        }
        for n in [40usize, 77, 300, 1001] {
            let a = r.limbs(n);
            let (s, rm) = sqrt::sqrt_rem(&e, &a).unwrap();
            let (ws, wr) = nat(&a).sqrt_rem();
            assert!(nat(&s) == ws && nat(&rm) == wr, "sqrt (seed {seed})");
            let d = radix::to_decimal_with(&e, &a, 19, 1).unwrap();
            assert_eq!(d, nat(&a).to_string());
            let back = radix::from_decimal_with(&e, d.as_bytes(), 19, 1).unwrap();
            assert!(nat(&back) == nat(&a));
        }
        assert!(e.calls.load(Relaxed) > 100);
    }
}

#[test]
fn engine_primitives_large() {
    // Above the size where the CPU engine copies and shifts on all cores.
    let seed = common::seed();
    let mut r = Rng::new(seed);
    let e = CpuHuge;
    let n = 70_001;
    let a = r.limbs(n);
    for bits in [1u32, 13, 63] {
        let got = e.shl_bits(&a, bits).unwrap();
        assert!(
            got == limbs_of(&(nat(&a) << bits), n + 1),
            "shl {bits} (seed {seed})"
        );
        let got = e.shr_bits(&a, bits).unwrap();
        assert!(
            got == limbs_of(&(nat(&a) >> bits), n),
            "shr {bits} (seed {seed})"
        );
    }
    assert!(e.slice(&a, 5, n + 3).unwrap()[..n - 5] == a[5..]);
    assert!(e.download(&e.upload(&a).unwrap()).unwrap() == a);
    // A division of that size with a large normalizing shift.
    let mut b = r.limbs(40_000);
    b[39_999] = 3;
    check_div(&a, &b, seed);
}
