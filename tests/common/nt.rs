//! The number-theory operations of `IntArray` on one engine against
//! malachite: random inputs of random lengths and hand-picked edges (0, 1,
//! equal operands, modulus 1, even moduli, exponent 0, inputs >= modulus,
//! non-invertible elements, shifts by 0, W-1, W and more), scalar operands,
//! and the errors. Shared by tests/int_nt.rs (CPU) and tests/int_cuda_nt.rs.
#![allow(dead_code)]

use malachite_base::num::arithmetic::traits::{
    ExtendedGcd, FloorSqrt, Gcd, ModInverse, ModPow, Pow,
};
use malachite_base::num::basic::traits::{One, Zero};
use malachite_base::num::factorization::traits::IsPrime;
use malachite_base::num::logic::traits::{CountOnes, SignificantBits};
use malachite_nz::integer::Integer;
use malachite_nz::natural::Natural;
use mparray::{Engine, Error, IntArray};

use super::Rng;

pub fn nat(x: &[u64]) -> Natural {
    Natural::from_limbs_asc(x)
}

fn pow2(bits: u64) -> Natural {
    Natural::from(2u32).pow(bits)
}

/// Random numbers of random lengths (some structured), `n` of them.
pub fn randoms(rng: &mut Rng, limbs: usize, n: usize) -> Vec<Natural> {
    (0..n)
        .map(|_| {
            let len = 1 + rng.index(limbs);
            let mut v: Vec<u64> = (0..len)
                .map(|_| match rng.below(10) {
                    0 => 0,
                    1 => u64::MAX,
                    _ => rng.next(),
                })
                .collect();
            if rng.below(4) == 0 {
                let b = rng.below(64) as u32;
                v[len - 1] >>= b;
            }
            nat(&v)
        })
        .collect()
}

pub fn edges(limbs: usize) -> Vec<Natural> {
    let w = 64 * limbs as u64;
    let top = pow2(w) - Natural::ONE;
    let mut v = vec![
        Natural::ZERO,
        Natural::ONE,
        Natural::from(2u32),
        Natural::from(3u32),
        Natural::from(4u32),
        Natural::from(u64::MAX),
        top.clone(),
        pow2(w - 1),
        &top - Natural::ONE,
    ];
    if limbs > 1 {
        v.push(pow2(64));
        v.push(pow2(64) + Natural::ONE);
    }
    v
}

pub fn arr(engine: &Engine, bits: u64, v: &[Natural]) -> IntArray {
    IntArray::from_naturals(bits, v)
        .unwrap()
        .into_engine(engine)
        .unwrap()
}

fn back(a: &IntArray) -> Vec<Natural> {
    a.to_naturals().unwrap()
}

/// A W-bit two's complement value as an integer.
fn signed(x: &Natural, bits: u64) -> Integer {
    if *x >= pow2(bits - 1) {
        Integer::from(x.clone()) - Integer::from(pow2(bits))
    } else {
        Integer::from(x.clone())
    }
}

/// Pairs for binary operations: random, equal, edges crossed, a >= b.
fn pairs(rng: &mut Rng, limbs: usize, n: usize) -> (Vec<Natural>, Vec<Natural>) {
    let mut a = randoms(rng, limbs, n);
    let mut b = randoms(rng, limbs, n);
    let e = edges(limbs);
    for x in &e {
        for y in &e {
            a.push(x.clone());
            b.push(y.clone());
        }
    }
    for _ in 0..n / 4 {
        let x = randoms(rng, limbs, 1).remove(0);
        a.push(x.clone());
        b.push(x);
    }
    (a, b)
}

pub fn check_cmp_logic(engine: &Engine, limbs: usize, rng: &mut Rng) {
    let bits = 64 * limbs as u64;
    let (a, mut b) = pairs(rng, limbs, 60);
    // Equal but for one limb.
    for k in 0..limbs.min(4) {
        let mut v = a[0].to_limbs_asc();
        v.resize(limbs, 0);
        v[k] ^= 1 << rng.below(64);
        b[0] = nat(&v);
        let _ = k;
    }
    let (x, y) = (arr(engine, bits, &a), arr(engine, bits, &b));
    let c = x.cmp(&y).unwrap();
    let eq = x.eq(&y).unwrap();
    let lt = x.lt(&y).unwrap();
    for i in 0..a.len() {
        assert_eq!(c[i], a[i].cmp(&b[i]), "cmp {bits} bits, element {i}");
        assert_eq!(eq[i], a[i] == b[i]);
        assert_eq!(lt[i], a[i] < b[i]);
    }
    // Scalar second operand.
    let s = arr(engine, bits, &b[..1]);
    let cs = x.cmp(&s).unwrap();
    for i in 0..a.len() {
        assert_eq!(cs[i], a[i].cmp(&b[0]));
    }
    let (and, or, xor, not) = (
        back(&x.and(&y).unwrap()),
        back(&x.or(&y).unwrap()),
        back(&x.xor(&y).unwrap()),
        back(&x.not().unwrap()),
    );
    let top = pow2(bits) - Natural::ONE;
    for i in 0..a.len() {
        assert_eq!(and[i], &a[i] & &b[i], "and {bits} bits, element {i}");
        assert_eq!(or[i], &a[i] | &b[i]);
        assert_eq!(xor[i], &a[i] ^ &b[i]);
        assert_eq!(not[i], &top - &a[i]);
    }
    let xs = back(&x.xor(&s).unwrap());
    for i in 0..a.len() {
        assert_eq!(xs[i], &a[i] ^ &b[0]);
    }
    let (pc, bl) = (x.popcount().unwrap(), x.bit_length().unwrap());
    for i in 0..a.len() {
        assert_eq!(
            pc[i],
            a[i].count_ones(),
            "popcount {bits} bits, element {i}"
        );
        assert_eq!(bl[i], a[i].significant_bits());
    }
}

pub fn check_shifts(engine: &Engine, limbs: usize, rng: &mut Rng) {
    let bits = 64 * limbs as u64;
    let mut a = randoms(rng, limbs, 40);
    a.extend(edges(limbs));
    let x = arr(engine, bits, &a);
    let m = pow2(bits);
    let mut counts = vec![
        0,
        1,
        7,
        63,
        64,
        65,
        127,
        bits - 1,
        bits,
        bits + 1,
        2 * bits,
        u64::MAX,
    ];
    counts.push(rng.below(bits));
    for &s in &counts {
        let l = back(&x.shl(s).unwrap());
        let r = back(&x.shr(s).unwrap());
        for i in 0..a.len() {
            let (el, er) = if s >= bits {
                (Natural::ZERO, Natural::ZERO)
            } else {
                ((&a[i] << s) % &m, &a[i] >> s)
            };
            assert_eq!(l[i], el, "shl {bits} bits by {s}, element {i}");
            assert_eq!(r[i], er, "shr {bits} bits by {s}, element {i}");
        }
    }
    let each: Vec<u64> = (0..a.len())
        .map(|i| {
            if i < counts.len() {
                counts[i]
            } else {
                rng.below(bits + 70)
            }
        })
        .collect();
    let l = back(&x.shl_each(&each).unwrap());
    let r = back(&x.shr_each(&each).unwrap());
    for i in 0..a.len() {
        let s = each[i];
        let (el, er) = if s >= bits {
            (Natural::ZERO, Natural::ZERO)
        } else {
            ((&a[i] << s) % &m, &a[i] >> s)
        };
        assert_eq!(l[i], el, "shl_each {bits} bits by {s}, element {i}");
        assert_eq!(r[i], er, "shr_each {bits} bits by {s}, element {i}");
    }
    assert!(matches!(x.shl_each(&each[1..]), Err(Error::Shape(_))));
}

pub fn check_isqrt(engine: &Engine, limbs: usize, rng: &mut Rng) {
    let bits = 64 * limbs as u64;
    let mut a = randoms(rng, limbs, 60);
    a.extend(edges(limbs));
    for k in [2u32, 3, 10, 1000] {
        a.push(Natural::from(k * k));
        a.push(Natural::from(k * k - 1));
    }
    let r = (pow2(bits) - Natural::ONE).floor_sqrt();
    a.push(&r * &r);
    a.push(&r * &r - Natural::ONE);
    for _ in 0..20 {
        let s = randoms(rng, limbs.div_ceil(2), 1).remove(0) % &r;
        a.push(&s * &s);
        if s > 0u32 {
            a.push(&s * &s - Natural::ONE);
        }
    }
    let x = arr(engine, bits, &a);
    let (s, rem) = x.isqrt().unwrap();
    let (s, rem) = (back(&s), back(&rem));
    for i in 0..a.len() {
        let e = a[i].clone().floor_sqrt();
        assert_eq!(s[i], e, "isqrt {bits} bits, element {i} = {}", a[i]);
        assert_eq!(rem[i], &a[i] - &e * &e);
    }
}

pub fn check_gcd(engine: &Engine, limbs: usize, rng: &mut Rng) {
    let bits = 64 * limbs as u64;
    let (mut a, mut b) = pairs(rng, limbs, 40);
    // Common factors.
    for _ in 0..20 {
        let g = randoms(rng, limbs.div_ceil(2), 1).remove(0) + Natural::ONE;
        let h = pow2(bits / 2);
        let u = randoms(rng, limbs, 1).remove(0) % &h;
        let v = randoms(rng, limbs, 1).remove(0) % &h;
        let m = pow2(bits);
        a.push((&g * u) % &m);
        b.push((&g * v) % &m);
    }
    let (x, y) = (arr(engine, bits, &a), arr(engine, bits, &b));
    let g = back(&x.gcd(&y).unwrap());
    for i in 0..a.len() {
        assert_eq!(g[i], (&a[i]).gcd(&b[i]), "gcd {bits} bits, element {i}");
    }
    let (g, s, t) = x.gcd_ext(&y).unwrap();
    let (g, s, t) = (back(&g), back(&s), back(&t));
    for i in 0..a.len() {
        let (eg, es, et) = a[i].clone().extended_gcd(b[i].clone());
        assert_eq!(g[i], eg, "gcd_ext {bits} bits, element {i}");
        assert_eq!(signed(&s[i], bits), es, "gcd_ext s, element {i}");
        assert_eq!(signed(&t[i], bits), et, "gcd_ext t, element {i}");
    }
    // Scalar second operand.
    let sb = arr(engine, bits, &b[..1]);
    let g = back(&x.gcd(&sb).unwrap());
    for i in 0..a.len() {
        assert_eq!(g[i], (&a[i]).gcd(&b[0]));
    }
}

fn odd(x: Natural) -> Natural {
    if x.significant_bits() == 0 || !x.get_bit(0) {
        x | Natural::ONE
    } else {
        x
    }
}
use malachite_base::num::logic::traits::BitAccess;

/// Moduli: random (odd and even), 1, 2, 2^W-1, small, and a >= m cases.
fn moduli(rng: &mut Rng, limbs: usize, n: usize) -> Vec<Natural> {
    let bits = 64 * limbs as u64;
    let mut m: Vec<Natural> = randoms(rng, limbs, n)
        .into_iter()
        .map(|x| if x == 0u32 { Natural::from(7u32) } else { x })
        .collect();
    m.extend([
        Natural::ONE,
        Natural::from(2u32),
        Natural::from(3u32),
        Natural::from(1u64 << 32),
        pow2(bits) - Natural::ONE,
        pow2(bits - 1),
    ]);
    m
}

pub fn check_modinv(engine: &Engine, limbs: usize, rng: &mut Rng) {
    let bits = 64 * limbs as u64;
    let m = moduli(rng, limbs, 50);
    let mut a = randoms(rng, limbs, m.len());
    a[0] = Natural::ZERO;
    a[1] = m[1].clone(); // a == m
    a[2] = &m[2] * Natural::from(2u32) % pow2(bits); // shares factors
    let x = arr(engine, bits, &a);
    let mm = arr(engine, bits, &m);
    let (r, f) = x.modinv_flagged(&mm).unwrap();
    let r = back(&r);
    for i in 0..a.len() {
        let ar = &a[i] % &m[i];
        let e = if m[i] == 1u32 {
            Some(Natural::ZERO)
        } else if ar == 0u32 {
            None
        } else {
            ar.mod_inverse(&m[i])
        };
        assert_eq!(f[i], e.is_some(), "modinv flag {bits} bits, element {i}");
        assert_eq!(
            r[i],
            e.unwrap_or(Natural::ZERO),
            "modinv {bits} bits, element {i}"
        );
    }
    // The error form names the first element without an inverse.
    let first = f.iter().position(|&ok| !ok).unwrap();
    match x.modinv(&mm) {
        Err(Error::Invalid(msg)) => assert!(msg.starts_with(&format!("element {first}:")), "{msg}"),
        other => panic!("expected an error, got {other:?}"),
    }
    // Scalar odd modulus, every element invertible or not.
    let p = odd(randoms(rng, limbs, 1).remove(0) | Natural::from(3u32));
    let (r, f) = x
        .modinv_flagged(&arr(engine, bits, std::slice::from_ref(&p)))
        .unwrap();
    let r = back(&r);
    for i in 0..a.len() {
        let ar = &a[i] % &p;
        let e = if p == 1u32 {
            Some(Natural::ZERO)
        } else if ar == 0u32 {
            None
        } else {
            ar.mod_inverse(&p)
        };
        assert_eq!(f[i], e.is_some());
        assert_eq!(r[i], e.unwrap_or(Natural::ZERO));
    }
    // Zero moduli.
    let mut mz = m.clone();
    mz[5] = Natural::ZERO;
    mz[9] = Natural::ZERO;
    assert!(matches!(
        x.modinv_flagged(&arr(engine, bits, &mz)),
        Err(Error::DivisionByZero { index: 5 })
    ));
}

fn powm_ref(b: &Natural, e: &Natural, m: &Natural) -> Natural {
    if *m == 1u32 {
        return Natural::ZERO;
    }
    (b % m).mod_pow(e, m)
}

pub fn check_powm(engine: &Engine, limbs: usize, rng: &mut Rng) {
    let bits = 64 * limbs as u64;
    let n = if limbs > 16 { 12 } else { 30 };
    let m = moduli(rng, limbs, n);
    let a = randoms(rng, limbs, m.len());
    let mut e = randoms(rng, limbs, m.len());
    e[0] = Natural::ZERO;
    e[1] = Natural::ONE;
    e[3] = Natural::from(2u32);
    let (x, ee, mm) = (
        arr(engine, bits, &a),
        arr(engine, bits, &e),
        arr(engine, bits, &m),
    );
    let r = back(&x.powm(&ee, &mm).unwrap());
    for i in 0..a.len() {
        assert_eq!(
            r[i],
            powm_ref(&a[i], &e[i], &m[i]),
            "powm {bits} bits, element {i}"
        );
    }
    // Scalar exponent and scalar modulus (odd and even).
    let se = arr(engine, bits, &e[5..6]);
    let r = back(&x.powm(&se, &mm).unwrap());
    for i in 0..a.len() {
        assert_eq!(
            r[i],
            powm_ref(&a[i], &e[5], &m[i]),
            "powm scalar exp, element {i}"
        );
    }
    for sm in [
        m[4].clone(),
        odd(m[6].clone()),
        Natural::from(2u32) * odd(m[7].clone() >> 1u32) % pow2(bits),
    ] {
        let sm = if sm == 0u32 { Natural::from(6u32) } else { sm };
        let r = back(
            &x.powm(&ee, &arr(engine, bits, std::slice::from_ref(&sm)))
                .unwrap(),
        );
        for i in 0..a.len() {
            assert_eq!(
                r[i],
                powm_ref(&a[i], &e[i], &sm),
                "powm scalar modulus, element {i}"
            );
        }
    }
    let mut mz = m.clone();
    mz[3] = Natural::ZERO;
    assert!(matches!(
        x.powm(&ee, &arr(engine, bits, &mz)),
        Err(Error::DivisionByZero { index: 3 })
    ));
    assert!(matches!(
        x.powm(&ee, &arr(engine, bits, &[Natural::ZERO])),
        Err(Error::DivisionByZero { index: 0 })
    ));
}

pub fn check_montgomery(engine: &Engine, limbs: usize, rng: &mut Rng) {
    let bits = 64 * limbs as u64;
    let m: Vec<Natural> = moduli(rng, limbs, 30).into_iter().map(odd).collect();
    let a = randoms(rng, limbs, m.len());
    let b = randoms(rng, limbs, m.len());
    let (x, y, mm) = (
        arr(engine, bits, &a),
        arr(engine, bits, &b),
        arr(engine, bits, &m),
    );
    let r = pow2(bits);
    let to = back(&x.to_montgomery(&mm).unwrap());
    let from = back(&x.from_montgomery(&mm).unwrap());
    let mul = back(&x.mont_mul(&y, &mm).unwrap());
    for i in 0..a.len() {
        let mi = &m[i];
        let rinv = if *mi == 1u32 {
            Natural::ZERO
        } else {
            (&r % mi).mod_inverse(mi).unwrap()
        };
        assert_eq!(
            to[i],
            (&a[i] * &r) % mi,
            "to_montgomery {bits} bits, element {i}"
        );
        assert_eq!(
            from[i],
            (&a[i] * &rinv) % mi,
            "from_montgomery, element {i}"
        );
        assert_eq!(
            mul[i],
            ((&a[i] * &b[i]) % mi * &rinv) % mi,
            "mont_mul, element {i}"
        );
    }
    // Round trip.
    let back_ = back(&x.to_montgomery(&mm).unwrap().from_montgomery(&mm).unwrap());
    for i in 0..a.len() {
        assert_eq!(back_[i], &a[i] % &m[i]);
    }
    let mut me = m.clone();
    me[4] = Natural::from(10u32);
    match x.to_montgomery(&arr(engine, bits, &me)) {
        Err(Error::Invalid(msg)) => assert!(msg.starts_with("element 4:"), "{msg}"),
        other => panic!("expected an error, got {other:?}"),
    }
    me[2] = Natural::ZERO;
    assert!(matches!(
        x.mont_mul(&y, &arr(engine, bits, &me)),
        Err(Error::DivisionByZero { index: 2 })
    ));
}

/// Primes and composites with a known answer: small numbers (u64 test),
/// Mersenne and other known primes, products of two primes above the
/// screen, Carmichael numbers with large factors.
pub fn check_prime(engine: &Engine, limbs: usize, rng: &mut Rng) {
    let bits = 64 * limbs as u64;
    let mut v: Vec<(Natural, bool)> = Vec::new();
    for k in 0..300u64 {
        v.push((Natural::from(k), k.is_prime()));
    }
    for _ in 0..200 {
        let k = rng.next() >> rng.below(64);
        v.push((Natural::from(k), k.is_prime()));
    }
    // 2^61-1, 2^89-1, 2^107-1, 2^127-1, 2^521-1, 2^607-1, 2^1279-1, 2^255-19.
    let two = |e: u64| pow2(e);
    let known = [
        two(61) - Natural::ONE,
        two(89) - Natural::ONE,
        two(107) - Natural::ONE,
        two(127) - Natural::ONE,
        two(521) - Natural::ONE,
        two(607) - Natural::ONE,
        two(1279) - Natural::ONE,
        two(255) - Natural::from(19u32),
    ];
    for p in &known {
        v.push((p.clone(), true));
        for q in &known {
            v.push((p * q, false));
        }
        v.push((p + Natural::from(2u32), false)); // 2^k+1: a multiple of 3, or not prime (checked below)
    }
    // Carmichael numbers (6k+1)(12k+1)(18k+1) with prime factors above 2^20.
    let mut k = 1u64 << 20;
    let mut found = 0;
    while found < 3 {
        let (p, q, r) = (6 * k + 1, 12 * k + 1, 18 * k + 1);
        if p.is_prime() && q.is_prime() && r.is_prime() {
            v.push((
                Natural::from(p) * Natural::from(q) * Natural::from(r),
                false,
            ));
            found += 1;
        }
        k += 1;
    }
    // Products of two u64 primes above the screen.
    let mut ps = Vec::new();
    while ps.len() < 10 {
        let x = (rng.next() >> 8) | 1;
        if x.is_prime() {
            ps.push(x);
        }
    }
    for w in ps.windows(2) {
        v.push((Natural::from(w[0]) * Natural::from(w[1]), false));
        v.push((Natural::from(w[0]), true));
    }
    let m = pow2(bits);
    v.retain(|(x, _)| *x < m);
    // p + 2 of a Mersenne prime: decide by trial (they are 2^k + 1 with k odd, a multiple of 3).
    for (x, p) in v.iter_mut() {
        if *x > 1u32 << 20 && (&*x % Natural::from(3u32)) == 0u32 {
            *p = false;
        }
    }
    let xs: Vec<Natural> = v.iter().map(|t| t.0.clone()).collect();
    let x = arr(engine, bits, &xs);
    let r = x.is_probable_prime(20).unwrap();
    for i in 0..v.len() {
        assert_eq!(
            r[i], v[i].1,
            "is_probable_prime {bits} bits, element {i} = {}",
            v[i].0
        );
    }
    // Same answers with another seed and in a smaller batch.
    let r2 = arr(engine, bits, &xs[xs.len() / 2..])
        .is_probable_prime_seeded(5, 99)
        .unwrap();
    assert_eq!(&r2[..], &r[xs.len() / 2..]);
}

/// Mismatched widths, lengths and engines are errors, not panics.
pub fn check_shapes(engine: &Engine) {
    let a = arr(engine, 128, &[Natural::ONE, Natural::ONE, Natural::ONE]);
    let b = arr(engine, 192, &[Natural::ONE, Natural::ONE, Natural::ONE]);
    let c = arr(engine, 128, &[Natural::ONE, Natural::ONE]);
    assert!(matches!(a.gcd(&b), Err(Error::Shape(_))));
    assert!(matches!(a.gcd(&c), Err(Error::Shape(_))));
    assert!(matches!(a.powm(&c, &a), Err(Error::Shape(_))));
    assert!(matches!(
        a.mont_mul(&a.shr(0).unwrap(), &c),
        Err(Error::Shape(_))
    ));
    assert!(matches!(a.cmp(&c), Err(Error::Shape(_))));
    // Empty arrays.
    let e = arr(engine, 128, &[]);
    assert!(e.gcd(&e).unwrap().is_empty());
    assert!(e.isqrt().unwrap().0.is_empty());
    assert!(e.is_probable_prime(3).unwrap().is_empty());
    assert!(e.popcount().unwrap().is_empty());
    assert!(e.cmp(&e).unwrap().is_empty());
}
