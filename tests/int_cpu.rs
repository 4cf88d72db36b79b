//! Integer operations on the CPU engine against malachite: whole arrays
//! through the public API (random and edge-case operands at widths that
//! cross every algorithm threshold), then the element-level algorithms at
//! and around each threshold with random and extreme operands.
mod common;

use common::*;
use malachite_base::num::arithmetic::traits::DivMod;
use malachite_nz::natural::Natural;
use mparray::int::cpu::{self, div, mul, ntt};
use mparray::int::{limbs, random};
use mparray::{Engine, Error, Fused, IntArray};
use std::time::Instant;

/// Every operation at each width of `limbs` on `n_random` random pairs
/// (plus the edge values).
fn widths(limbs: &[usize], n_random: usize) {
    let s = seed();
    for &l in limbs {
        let (a, b) = operands(&Engine::Cpu, l, n_random, s ^ l as u64);
        check_all(&a, &b, &format!("cpu {l} limbs"));
    }
}

#[test]
fn small_widths() {
    widths(LIMBS_SMALL, 200);
}

#[test]
fn mid_widths() {
    widths(LIMBS_MID, 20);
}

#[test]
fn large_widths() {
    widths(LIMBS_LARGE, 2);
}

/// Widths just below, at and above every threshold of the CPU algorithms.
fn threshold_widths() -> Vec<usize> {
    let mut v = Vec::new();
    for t in [
        mul::KARA_T,
        mul::TOOM3_T,
        mul::MULLO_DC_T,
        div::DC_T,
        2 * div::DC_T,
        mul::PAR_T,
        mul::ntt_t(),
        div::BARRETT_T,
    ] {
        v.extend([t - 1, t, t + 1]);
    }
    v.sort();
    v.dedup();
    v
}

#[test]
fn threshold_widths_arrays() {
    let s = seed();
    for l in threshold_widths() {
        let n = if l > 1000 { 1 } else { 6 };
        let (a, b) = operands(&Engine::Cpu, l, n, s ^ l as u64);
        check_all(&a, &b, &format!("cpu {l} limbs"));
    }
}

#[test]
fn division_random_lengths() {
    let s = seed();
    for &l in &[2usize, 3, 8, 33, 64, 200, 1024] {
        check_div_lengths(&Engine::Cpu, l, 300, s ^ l as u64);
    }
}

#[test]
fn division_by_zero_names_first_element() {
    let a = IntArray::from_strs(128, &["5", "6", "7", "8"]).unwrap();
    let b = IntArray::from_strs(128, &["1", "2", "0", "0"]).unwrap();
    match a.divrem(&b) {
        Err(Error::DivisionByZero { index }) => assert_eq!(index, 2),
        other => panic!("expected division by zero, got {other:?}"),
    }
    // The in-place form reports the same and leaves its outputs intact.
    let mut q = IntArray::from_strs(128, &["9", "9", "9", "9"]).unwrap();
    let mut r = IntArray::from_strs(128, &["9", "9", "9", "9"]).unwrap();
    match a.divrem_into(&b, &mut q, &mut r) {
        Err(Error::DivisionByZero { index }) => assert_eq!(index, 2),
        other => panic!("expected division by zero, got {other:?}"),
    }
    assert_eq!(
        q.to_strings(mparray::Radix::Dec).unwrap(),
        ["9", "9", "9", "9"]
    );
    assert_eq!(r.len(), 4);
}

/// The `*_into` forms give what the allocating forms give, whether `out`
/// has the right shape (reused) or not (replaced).
#[test]
fn into_forms_match() {
    let s = seed();
    for &l in &[1usize, 5, 64] {
        let bits = 64 * l as u64;
        let a = IntArray::random(&Engine::Cpu, 50, bits, s).unwrap();
        let b = IntArray::random_lengths(&Engine::Cpu, 50, bits, s ^ 9, 1, l).unwrap();
        let mut good = IntArray::zeros(&Engine::Cpu, 50, bits).unwrap();
        let mut other = IntArray::zeros(&Engine::Cpu, 3, 64).unwrap();
        for out in [&mut good, &mut other] {
            let c = a.overflowing_add_into(&b, out).unwrap();
            assert_eq!((out.to_limbs().unwrap(), c), {
                let (x, c) = a.overflowing_add(&b).unwrap();
                (x.to_limbs().unwrap(), c)
            });
            let c = a.overflowing_sub_into(&b, out).unwrap();
            assert_eq!((out.to_limbs().unwrap(), c), {
                let (x, c) = a.overflowing_sub(&b).unwrap();
                (x.to_limbs().unwrap(), c)
            });
            a.add_into(&b, out).unwrap();
            assert_eq!(
                out.to_limbs().unwrap(),
                a.add(&b).unwrap().to_limbs().unwrap()
            );
            a.sub_into(&b, out).unwrap();
            assert_eq!(
                out.to_limbs().unwrap(),
                a.sub(&b).unwrap().to_limbs().unwrap()
            );
            a.mul_into(&b, out).unwrap();
            assert_eq!(
                out.to_limbs().unwrap(),
                a.mul(&b).unwrap().to_limbs().unwrap()
            );
            a.mul_wide_into(&b, out).unwrap();
            assert_eq!(out.bits(), 2 * bits);
            assert_eq!(
                out.to_limbs().unwrap(),
                a.mul_wide(&b).unwrap().to_limbs().unwrap()
            );
            for k in [Fused::SixAdd, Fused::Poly] {
                a.fused_into(&b, k, out).unwrap();
                assert_eq!(
                    out.to_limbs().unwrap(),
                    a.fused(&b, k).unwrap().to_limbs().unwrap()
                );
            }
        }
        let (mut q, mut r) = (good, other);
        a.divrem_into(&b, &mut q, &mut r).unwrap();
        let (eq, er) = a.divrem(&b).unwrap();
        assert_eq!(q.to_limbs().unwrap(), eq.to_limbs().unwrap());
        assert_eq!(r.to_limbs().unwrap(), er.to_limbs().unwrap());
    }
}

/// The portable loops (used where the CPU lacks BMI2/ADX) give the same bits.
#[test]
fn portable_path() {
    let s = seed();
    cpu::force_portable(true);
    for &l in &[1usize, 3, 4, 7, 8, 9, 17, 33, 64, 130] {
        let (a, b) = operands(&Engine::Cpu, l, 10, s ^ l as u64);
        check_all(&a, &b, &format!("portable {l} limbs"));
    }
    // The 64-bit scalar transform (the AVX2 one is off too).
    for &(an, bn) in &[
        (1usize, 1usize),
        (7, 3),
        (600, 600),
        (1000, 333),
        (4097, 4097),
    ] {
        let a = limbs_of(an, s ^ an as u64, an % 2 == 0);
        let b = limbs_of(bn, s ^ 7 ^ bn as u64, bn % 2 == 1);
        let mut r = vec![0u64; an + bn];
        let mut sc = vec![0u64; ntt::itch(an, bn)];
        ntt::mul(&mut r, &a, Some(&b), &mut sc, an > 500);
        assert_eq!(nat(&r), nat(&a) * nat(&b), "scalar ntt {an}x{bn}");
        let mut r = vec![0u64; 2 * an];
        ntt::mul(&mut r, &a, None, &mut sc, false);
        assert_eq!(nat(&r), nat(&a) * nat(&a), "scalar ntt square {an}");
    }
    cpu::force_portable(false);
}

// ---- Element-level algorithms against malachite ----

fn nat(x: &[u64]) -> Natural {
    Natural::from_limbs_asc(x)
}

/// Limbs of `n` values: uniformly random, or (with `extreme`) drawn mostly
/// from 0, 1, 2^63, 2^64-1 and neighbours, which drive carries, borrows and
/// the quotient corrections that random limbs reach once in 2^64.
fn limbs_of(n: usize, seed: u64, extreme: bool) -> Vec<u64> {
    const SPECIAL: [u64; 8] = [
        0,
        1,
        u64::MAX,
        u64::MAX - 1,
        1 << 63,
        (1 << 63) - 1,
        (1 << 63) + 1,
        2,
    ];
    (0..n as u64)
        .map(|i| {
            let h = random::limb(seed, i);
            if extreme && !h.is_multiple_of(4) {
                SPECIAL[(h >> 8) as usize % SPECIAL.len()]
            } else {
                random::limb(seed ^ 0x77, i)
            }
        })
        .collect()
}

fn check_mul(an: usize, bn: usize, seed: u64, extreme: bool) {
    let a = limbs_of(an, seed, extreme);
    let b = limbs_of(bn, seed ^ 1, extreme);
    let mut r = vec![0u64; an + bn];
    let mut s = vec![0u64; mul::mul_itch(an.max(bn), an.min(bn))];
    mul::mul_any(&mut r, &a, &b, &mut s, false);
    assert_eq!(nat(&r), nat(&a) * nat(&b), "mul {an}x{bn} seed {seed}");
    if an == bn {
        let mut s = vec![0u64; mul::mul_n_itch(an)];
        mul::mul_n(&mut r, &a, &a, &mut s, an.is_multiple_of(2));
        assert_eq!(nat(&r), nat(&a) * nat(&a), "square {an} seed {seed}");
        let mut lo = vec![0u64; an];
        let mut s = vec![0u64; mul::mullo_itch(an)];
        mul::mullo(&mut lo, &a, &b, &mut s, an.is_multiple_of(3));
        let m = Natural::from(1u32) << (64 * an as u64);
        assert_eq!(nat(&lo), nat(&a) * nat(&b) % m, "mullo {an} seed {seed}");
    }
}

#[test]
fn mul_every_small_size() {
    let s = seed();
    for n in 1..=2 * mul::TOOM3_T + 10 {
        check_mul(n, n, s ^ n as u64, n % 2 == 0);
    }
}

#[test]
fn mul_around_thresholds() {
    let s = seed();
    let mut sizes = Vec::new();
    for t in [
        mul::KARA_T,
        mul::TOOM3_T,
        2 * mul::TOOM3_T,
        3 * mul::TOOM3_T,
        mul::MULLO_DC_T,
        mul::NTT_T / 2,
        mul::NTT_T,
        mul::NTT_T * 5 / 4,
        2 * mul::NTT_T,
        mul::NTT_T_AVX2,
        mul::NTT_T_AVX2 * 5 / 4,
        mul::NTT_T_SCALAR,
    ] {
        for d in [-2i64, -1, 0, 1, 2] {
            sizes.push((t as i64 + d) as usize);
        }
    }
    for (k, &n) in sizes.iter().enumerate() {
        check_mul(n, n, s ^ k as u64, k % 2 == 0);
        check_mul(n, n, s ^ 0x100 ^ k as u64, k % 2 == 1);
    }
}

#[test]
fn mul_unbalanced() {
    let s = seed();
    let t = [
        1,
        2,
        mul::KARA_T - 1,
        mul::KARA_T,
        70,
        mul::TOOM3_T + 3,
        400,
        mul::ntt_t() / 2,
        mul::ntt_t() / 2 + 1,
    ];
    for (i, &an) in t
        .iter()
        .chain(&[3 * mul::ntt_t() / 2, 2 * mul::ntt_t() + 5])
        .enumerate()
    {
        for (j, &bn) in t.iter().enumerate() {
            if bn <= an {
                check_mul(an, bn, s ^ (i * 64 + j) as u64, (i + j) % 2 == 0);
            }
        }
    }
}

#[test]
fn ntt_direct() {
    let s = seed();
    // Both SIMD widths where the CPU has them (AVX-512, then AVX2).
    for avoid in [false, true] {
        ntt::avoid_avx512(avoid);
        for &(an, bn) in &[
            (1usize, 1usize),
            (2, 1),
            (3, 3),
            (5, 4),
            (8, 8),
            (100, 37),
            (1000, 1000),
            (4096, 100),
            (4097, 4097),
        ] {
            let a = limbs_of(an, s ^ an as u64, an % 2 == 0);
            let b = limbs_of(bn, s ^ 7 ^ bn as u64, bn % 2 == 1);
            let mut r = vec![0u64; an + bn];
            let mut sc = vec![0u64; ntt::itch(an, bn)];
            ntt::mul(&mut r, &a, Some(&b), &mut sc, an > 500);
            assert_eq!(nat(&r), nat(&a) * nat(&b), "ntt {an}x{bn} avoid {avoid}");
            let mut r = vec![0u64; 2 * an];
            let mut sc = vec![0u64; ntt::itch(an, an)];
            ntt::mul(&mut r, &a, None, &mut sc, false);
            assert_eq!(nat(&r), nat(&a) * nat(&a), "ntt square {an} avoid {avoid}");
        }
        // All-ones operands give the largest coefficients.
        let a = vec![u64::MAX; 8192];
        let mut r = vec![0u64; 16384];
        let mut sc = vec![0u64; ntt::itch(8192, 8192)];
        ntt::mul(&mut r, &a, Some(&a), &mut sc, true);
        assert_eq!(nat(&r), nat(&a) * nat(&a), "ntt all ones");
    }
    ntt::avoid_avx512(false);
}

/// `u / v` through the element-level division, checked against malachite.
fn check_div(u: &[u64], v: &[u64], what: &str) {
    let l = u.len().max(v.len());
    let mut uu = u.to_vec();
    uu.resize(l, 0);
    let mut vv = v.to_vec();
    vv.resize(l, 0);
    let mut q = vec![1u64; l];
    let mut r = vec![1u64; l];
    let ok = limbs::divrem(&mut q, &mut r, &uu, &vv);
    if nat(&vv) == 0u32 {
        assert!(!ok);
        return;
    }
    let (eq, er) = nat(&uu).div_mod(nat(&vv));
    assert_eq!(nat(&q), eq, "{what}: quotient");
    assert_eq!(nat(&r), er, "{what}: remainder");
}

#[test]
fn division_shapes() {
    let s = seed();
    let dt = div::DC_T;
    let dns = [
        1usize,
        2,
        3,
        4,
        7,
        dt - 1,
        dt,
        dt + 1,
        2 * dt - 1,
        2 * dt,
        2 * dt + 1,
        3 * dt + 5,
        150,
        300,
    ];
    let mut k = 0u64;
    for &dn in &dns {
        for qn in [
            1usize,
            2,
            3,
            dt - 1,
            dt,
            dt + 1,
            dn / 2 + 1,
            dn,
            dn + 1,
            2 * dn + 3,
            3 * dn,
        ] {
            for extreme in [false, true] {
                k += 1;
                let mut v = limbs_of(dn, s ^ k, extreme);
                let top = v[dn - 1];
                v[dn - 1] = if top == 0 { 1 } else { top };
                let u = limbs_of(dn + qn - 1, s ^ k ^ 0xdead, extreme);
                check_div(
                    &u,
                    &v,
                    &format!("divrem {}/{dn} (k {k}, seed {s})", u.len()),
                );
            }
        }
    }
}

#[test]
fn division_large() {
    let s = seed();
    for (k, &(m, n)) in [
        (4000usize, 2000usize),
        (8190, 4096),
        (8190, 1500),
        (6000, 2500),
        (3000, 2999),
    ]
    .iter()
    .enumerate()
    {
        let mut v = limbs_of(n, s ^ k as u64, k % 2 == 1);
        v[n - 1] |= 1;
        let u = limbs_of(m, s ^ 0xbeef ^ k as u64, k % 2 == 0);
        check_div(&u, &v, &format!("divrem {m}/{n}"));
    }
}

/// Dividends whose top limbs equal the divisor's (the 3/2 quotient
/// estimate overflows), divisors of all ones, and near-multiples (q*v - 1,
/// q*v, q*v + v - 1) that drive every correction step.
#[test]
fn division_hard_cases() {
    let s = seed();
    let dt = div::DC_T;
    for (k, &n) in [2usize, 3, 5, dt - 1, dt + 1, 2 * dt + 3, 200]
        .iter()
        .enumerate()
    {
        for &qn in &[1usize, 2, dt + 2, 2 * n + 1] {
            let v = limbs_of(n, s ^ k as u64, true);
            let mut v = v;
            v[n - 1] |= 1 << 63;
            let mut u = limbs_of(qn, s ^ 3 ^ k as u64, true);
            u.extend_from_slice(&v);
            check_div(&u, &v, &format!("top limbs equal {}/{n}", u.len()));
            let ones = vec![u64::MAX; n];
            check_div(&u, &ones, &format!("all-ones divisor {}/{n}", u.len()));
            let q = limbs_of(qn, s ^ 5 ^ k as u64, false);
            let vn = nat(&v);
            let p = nat(&q) * &vn;
            for x in [
                &p - Natural::from(1u32),
                p.clone(),
                &p + &vn - Natural::from(1u32),
            ] {
                check_div(&x.to_limbs_asc(), &v, &format!("near multiple {qn}+{n}"));
            }
        }
    }
}

/// Long quotients by large divisors (the Barrett blocks) at the edges of
/// the rule that picks them, with random, extreme and near-multiple
/// dividends.
#[test]
fn division_barrett() {
    let s = seed();
    let bt = div::BARRETT_T;
    let mut k = 0u64;
    // With AVX2 only the NTT starts later and the blocks of divisors below
    // its threshold take their low-half product path; cover both.
    let avx2 = [
        (bt, true),
        (bt + 1, false),
        (300, true),
        (bt - 1, false),
        (1030, false),
    ];
    for &(dn, avoid) in &avx2 {
        ntt::avoid_avx512(avoid);
        // Whole blocks just below, at and above `dn + 1024` limbs.
        let full = (dn + 1024).max(2 * dn).div_ceil(dn) * dn;
        for qn in [full - dn + 5, full + 3, full + dn - 1, 4 * full] {
            for extreme in [false, true] {
                k += 1;
                let mut v = limbs_of(dn, s ^ k, extreme);
                v[dn - 1] |= 1 << (k % 64);
                let u = limbs_of(dn + qn - 1, s ^ k ^ 0xfeed, extreme);
                check_div(&u, &v, &format!("barrett {}/{dn} (seed {s})", u.len()));
                // q v + v - 1 and q v - 1: remainders at both ends.
                let q = limbs_of(qn - 1, s ^ k ^ 0xabc, extreme);
                let p = nat(&q) * nat(&v);
                for x in [&p + nat(&v) - Natural::from(1u32), &p - Natural::from(1u32)] {
                    check_div(
                        &x.to_limbs_asc(),
                        &v,
                        &format!("barrett near multiple {qn}+{dn}"),
                    );
                }
            }
        }
    }
    ntt::avoid_avx512(false);
}

#[test]
fn reciprocals() {
    let s = seed();
    let b3 = Natural::from(1u32) << 192u64;
    for i in 0..2000u64 {
        let d1 = random::limb(s, i) | 1 << 63;
        let d0 = if i % 3 == 0 {
            u64::MAX - i
        } else {
            random::limb(s ^ 1, i)
        };
        let d = (Natural::from(d1) << 64u64) + Natural::from(d0);
        let want = (&b3 - Natural::from(1u32)) / d - (Natural::from(1u32) << 64u64);
        assert_eq!(
            Natural::from(div::invert_pi1(d1, d0)),
            want,
            "invert_pi1({d1:#x}, {d0:#x})"
        );
    }
}

/// A single huge element splits its work across cores; same bits.
#[test]
fn one_huge_element() {
    let s = seed();
    let bits = 1u64 << 20;
    let a = IntArray::random(&Engine::Cpu, 1, bits, s).unwrap();
    let b = IntArray::random_lengths(&Engine::Cpu, 1, bits, s ^ 3, 1, 16384).unwrap();
    let (na, nb) = (&a.to_naturals().unwrap()[0], &b.to_naturals().unwrap()[0]);
    let m = Natural::from(1u32) << bits;
    assert_eq!(a.mul(&b).unwrap().to_naturals().unwrap()[0], na * nb % &m);
    let (q, r) = a.divrem(&b).unwrap();
    let (eq, er) = na.clone().div_mod(nb.clone());
    assert_eq!(
        (&q.to_naturals().unwrap()[0], &r.to_naturals().unwrap()[0]),
        (&eq, &er)
    );
    let half = IntArray::random(&Engine::Cpu, 1, bits / 2, s ^ 5).unwrap();
    let w = half.mul_wide(&half).unwrap().to_naturals().unwrap()[0].clone();
    let h = &half.to_naturals().unwrap()[0];
    assert_eq!(w, h * h);
}

// ---- Timings (ignored, and skipped unless MPARRAY_TIMINGS is set, so that
// runs of all ignored tests on the GPU machine do not pay for them):
// single-thread ns per call, to compare with scripts/peers/gmpmicro.c and
// scripts/peers/gmpdiv.c. Run with `MPARRAY_TIMINGS=1 cargo test --release --test
// int_cpu micro -- --ignored --nocapture` (SIZES=64,256 picks sizes;
// M=1022 the dividend of micro_div).

fn timings_wanted() -> bool {
    let on = std::env::var_os("MPARRAY_TIMINGS").is_some();
    if !on {
        eprintln!("timing test skipped (set MPARRAY_TIMINGS=1 to run it)");
    }
    on
}

fn rnd(n: usize, seed: u64) -> Vec<u64> {
    (0..n as u64)
        .map(|i| mparray::int::random::limb(seed, i))
        .collect()
}

fn time_it(label: &str, n: usize, mut f: impl FnMut()) {
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
    if !timings_wanted() {
        return;
    }
    let sizes: Vec<usize> = std::env::var("SIZES")
        .map(|s| s.split(',').map(|x| x.parse().unwrap()).collect())
        .unwrap_or(vec![
            8, 16, 24, 32, 48, 64, 96, 128, 192, 256, 512, 1024, 2048, 4096, 8192,
        ]);
    {
        use cpu::arith;
        let n = 1000;
        let a = rnd(n, 1);
        let b = rnd(n, 2);
        let mut r = vec![0u64; n];
        time_it("add_n/1000", 10, || {
            std::hint::black_box(arith::add_n(&mut r, &a, &b));
        });
        time_it("sub_n/1000", 10, || {
            std::hint::black_box(arith::sub_n(&mut r, &a, &b));
        });
        time_it("addmul1/1000", 10, || {
            std::hint::black_box(arith::addmul_1(&mut r, &a, b[0]));
        });
        time_it("submul1/1000", 10, || {
            std::hint::black_box(arith::submul_1(&mut r, &a, b[0]));
        });
        time_it("shl1/1000", 10, || {
            std::hint::black_box(arith::shl1_assign(&mut r));
        });
        time_it("div3/1000", 10, || {
            arith::divexact_by3_assign(&mut r);
        });
    }
    for &n in &sizes {
        let a = rnd(n, 1);
        let mut b = rnd(n, 2);
        let mut r = vec![0u64; 2 * n];
        let mut s = vec![0u64; 20 * n + 1000];
        if n <= 64 {
            time_it("basecase", n, || mul::mul_basecase(&mut r, &a, &b));
        }
        time_it("mul_n", n, || mul::mul_n(&mut r, &a, &b, &mut s, false));
        time_it("mullo_n", n, || {
            mul::mullo(&mut r[..n], &a, &b, &mut s, false)
        });
        if n <= 128 {
            time_it("comba", n, || mul::mullo_comba(&mut r[..n], &a, &b));
            time_it("mullo_bc", n, || mul::mullo_basecase(&mut r[..n], &a, &b));
        }
        if n >= 48 {
            let mut s = vec![0u64; ntt::itch(n, n)];
            time_it("ntt", n, || ntt::mul(&mut r, &a, Some(&b), &mut s, false));
            ntt::avoid_avx512(true);
            time_it("ntt/avx2", n, || {
                ntt::mul(&mut r, &a, Some(&b), &mut s, false)
            });
            ntt::avoid_avx512(false);
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
            time_it("divrem", n, || {
                div::divrem(&mut q, &mut rr, &u, &bb, &mut sv, false);
            });
        }
    }
}

#[test]
#[ignore = "timing, not a test"]
fn micro_div() {
    if !timings_wanted() {
        return;
    }
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

/// Add and sub of an array large enough (16 MiB of output) to take the
/// non-temporal store path, every element with its carry checked.
#[test]
fn large_batch_add_sub_streaming_path() {
    let s = seed();
    let (len, bits) = (256usize, 1u64 << 19);
    let a = IntArray::random(&Engine::Cpu, len, bits, s).unwrap();
    let b = IntArray::random(&Engine::Cpu, len, bits, s ^ 7).unwrap();
    let (na, nb) = (a.to_naturals().unwrap(), b.to_naturals().unwrap());
    let m = modulus(bits);
    let (sum, carries) = a.overflowing_add(&b).unwrap();
    let (diff, borrows) = a.overflowing_sub(&b).unwrap();
    let (ns, nd) = (sum.to_naturals().unwrap(), diff.to_naturals().unwrap());
    for i in 0..len {
        let full = &na[i] + &nb[i];
        assert_eq!(carries[i], full >= m, "seed {s} element {i}");
        assert_eq!(ns[i], full % &m, "seed {s} element {i}");
        let borrow = na[i] < nb[i];
        assert_eq!(borrows[i], borrow, "seed {s} element {i}");
        let want = if borrow {
            &m + &na[i] - &nb[i]
        } else {
            &na[i] - &nb[i]
        };
        assert_eq!(nd[i], want, "seed {s} element {i}");
    }
}
