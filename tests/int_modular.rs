//! The CPU modular functions (`mparray::int::cpu::modular`) against
//! malachite: random values of every length and the edge cases (0, 1,
//! equal operands, modulus 1, even moduli and powers of two, exponent 0,
//! inputs >= the modulus, non-invertible elements, zero and even moduli as
//! errors), with per-element and shared (`All`) operands, at widths that
//! cross the multiplication thresholds (Karatsuba from 24 limbs) and the
//! sliding-window sizes.
#![allow(dead_code, clippy::needless_range_loop, clippy::should_implement_trait)]

use malachite_base::num::arithmetic::traits::{
    ExtendedGcd, Gcd, ModInverse, ModPow, ModPowerOf2, PowerOf2,
};
use malachite_nz::integer::Integer;
use malachite_nz::natural::Natural;
use mparray::Error;
use mparray::int::cpu::modular::{self as md, HostOperand};

pub struct Rng(u64);
impl Rng {
    pub fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }
    /// A value of `l` limbs: often full width, sometimes short, sometimes
    /// an edge value.
    pub fn num(&mut self, l: usize) -> Vec<u64> {
        let mut x = vec![0u64; l];
        match self.next() % 10 {
            0 => {
                let v = [0u64, 1, 2, 3, u64::MAX][(self.next() % 5) as usize];
                x[0] = v;
            }
            1 => x.fill(u64::MAX),
            2 => x[l - 1] = 1 << 63,
            3..=5 => {
                let k = 1 + (self.next() as usize % l);
                for v in x.iter_mut().take(k) {
                    *v = self.next();
                }
                let b = self.next() % 64;
                x[k - 1] >>= b;
            }
            _ => {
                for v in x.iter_mut() {
                    *v = self.next();
                }
            }
        }
        x
    }
    pub fn nonzero(&mut self, l: usize) -> Vec<u64> {
        let mut x = self.num(l);
        if x.iter().all(|&v| v == 0) {
            x[0] = 1;
        }
        x
    }
    pub fn odd(&mut self, l: usize) -> Vec<u64> {
        let mut x = self.num(l);
        x[0] |= 1;
        x
    }
}

pub fn nat(x: &[u64]) -> Natural {
    Natural::from_limbs_asc(x)
}

pub fn limbs_of(x: &Natural, l: usize) -> Vec<u64> {
    let mut v = x.to_limbs_asc();
    v.resize(l, 0);
    v
}

pub fn signed_of(x: &Integer, l: usize) -> Vec<u64> {
    let w = 64 * l as u64;
    let u: Natural = x.mod_power_of_2(w);
    limbs_of(&u, l)
}

pub fn ref_powm(b: &Natural, e: &Natural, m: &Natural) -> Natural {
    if *m == 1u32 {
        return Natural::from(0u32);
    }
    (b % m).mod_pow(e, m)
}

pub fn ref_modinv(a: &Natural, m: &Natural) -> (Natural, bool) {
    if *m == 1u32 {
        return (Natural::from(0u32), true);
    }
    let x = a % m;
    if x == 0u32 {
        return (Natural::from(0u32), false);
    }
    match x.mod_inverse(m) {
        Some(v) => (v, true),
        None => (Natural::from(0u32), false),
    }
}

fn elem(v: &[u64], i: usize, l: usize) -> &[u64] {
    &v[i * l..(i + 1) * l]
}

/// A batch of `n` elements: base/a, second operand, modulus (zero moduli
/// replaced by one), with some equal pairs and bases >= the modulus.
fn batch(rng: &mut Rng, n: usize, l: usize, odd: bool) -> (Vec<u64>, Vec<u64>, Vec<u64>) {
    let (mut a, mut b, mut m) = (Vec::new(), Vec::new(), Vec::new());
    for k in 0..n {
        let x = rng.num(l);
        let y = if k % 7 == 3 { x.clone() } else { rng.num(l) };
        let mut z = if odd { rng.odd(l) } else { rng.nonzero(l) };
        if !odd && k % 11 == 5 {
            // A power of two, or a multiple of a large one.
            z = vec![0; l];
            let bit = rng.next() as usize % (64 * l);
            z[bit / 64] = 1 << (bit % 64);
            if k % 2 == 0 {
                z[0] |= 0;
                let top = rng.next() | 1;
                z[l - 1] |= top & (u64::MAX >> 1);
            }
        }
        if k % 13 == 7 {
            z = vec![0; l];
            z[0] = 1;
        }
        a.extend(x);
        b.extend(y);
        m.extend(z);
    }
    (a, b, m)
}

const WIDTHS: &[usize] = &[1, 2, 3, 4, 5, 8, 16, 23, 24, 25, 32, 33, 64];

#[test]
fn powm_matches_malachite() {
    let mut rng = Rng(1);
    for &l in WIDTHS {
        let n = if l <= 8 { 60 } else { 16 };
        let (a, e, m) = batch(&mut rng, n, l, false);
        let r = md::powm(&a, HostOperand::Each(&e), HostOperand::Each(&m), l).unwrap();
        for i in 0..n {
            let want = ref_powm(
                &nat(elem(&a, i, l)),
                &nat(elem(&e, i, l)),
                &nat(elem(&m, i, l)),
            );
            assert_eq!(nat(elem(&r, i, l)), want, "powm l={l} element {i}");
        }
        // Shared exponent and modulus (odd and even).
        for odd in [true, false] {
            let mut mm = if odd { rng.odd(l) } else { rng.nonzero(l) };
            if !odd {
                mm[0] &= !1;
                if mm.iter().all(|&v| v == 0) {
                    mm[0] = 2;
                }
            }
            let ee = rng.num(l);
            let r = md::powm(&a, HostOperand::All(&ee), HostOperand::All(&mm), l).unwrap();
            for i in 0..n {
                let want = ref_powm(&nat(elem(&a, i, l)), &nat(&ee), &nat(&mm));
                assert_eq!(nat(elem(&r, i, l)), want, "powm All l={l} element {i}");
            }
        }
    }
}

#[test]
fn powm_edges() {
    for l in [1usize, 2, 4] {
        let one = limbs_of(&Natural::from(1u32), l);
        let zero = vec![0u64; l];
        let max = vec![u64::MAX; l];
        // exp 0 -> 1 mod m; m == 1 -> 0; base 0; base >= m; long exponents
        // (every window width).
        let cases: Vec<(Vec<u64>, Vec<u64>, Vec<u64>)> = vec![
            (max.clone(), zero.clone(), max.clone()),
            (zero.clone(), zero.clone(), max.clone()),
            (zero.clone(), one.clone(), max.clone()),
            (max.clone(), max.clone(), one.clone()),
            (max.clone(), zero.clone(), one.clone()),
            (max.clone(), max.clone(), limbs_of(&Natural::from(2u32), l)),
            (
                max.clone(),
                max.clone(),
                limbs_of(&Natural::power_of_2(64 * l as u64 - 1), l),
            ),
            (limbs_of(&Natural::from(3u32), l), max.clone(), max.clone()),
            (max.clone(), one.clone(), limbs_of(&Natural::from(12u32), l)),
        ];
        for (b, e, m) in cases {
            let r = md::powm(&b, HostOperand::Each(&e), HostOperand::Each(&m), l).unwrap();
            assert_eq!(
                nat(&r),
                ref_powm(&nat(&b), &nat(&e), &nat(&m)),
                "{b:?} {e:?} {m:?}"
            );
        }
    }
    // Every exponent length from 0 to 130 bits (all window sizes up to 3;
    // the random tests reach the larger ones).
    let l = 4;
    let mut rng = Rng(7);
    let m = rng.odd(l);
    let b = rng.num(l);
    for bits in 0..130u64 {
        let e = limbs_of(&(Natural::power_of_2(bits) - Natural::from(1u32)), l);
        let r = md::powm(&b, HostOperand::All(&e), HostOperand::All(&m), l).unwrap();
        assert_eq!(
            nat(&r),
            ref_powm(&nat(&b), &nat(&e), &nat(&m)),
            "bits {bits}"
        );
    }
}

#[test]
fn zero_and_even_moduli_are_errors() {
    let l = 2;
    let a = vec![5u64, 0, 7, 0, 9, 0];
    let m = vec![3u64, 0, 0, 0, 4, 0];
    let e = vec![1u64, 0, 1, 0, 1, 0];
    assert!(matches!(
        md::powm(&a, HostOperand::Each(&e), HostOperand::Each(&m), l),
        Err(Error::DivisionByZero { index: 1 })
    ));
    assert!(matches!(
        md::modinv(&a, HostOperand::Each(&m), l),
        Err(Error::DivisionByZero { index: 1 })
    ));
    assert!(matches!(
        md::powm(&a, HostOperand::All(&[1, 0]), HostOperand::All(&[0, 0]), l),
        Err(Error::DivisionByZero { index: 0 })
    ));
    let even = vec![3u64, 0, 5, 0, 4, 0];
    match md::to_montgomery(&a, HostOperand::Each(&even), l) {
        Err(Error::Invalid(s)) => assert!(s.starts_with("element 2:"), "{s}"),
        x => panic!("{x:?}"),
    }
    match md::mont_mul(&a, &a, HostOperand::All(&[6, 0]), l) {
        Err(Error::Invalid(s)) => assert!(s.starts_with("element 0:"), "{s}"),
        x => panic!("{x:?}"),
    }
    assert!(matches!(
        md::from_montgomery(&a, HostOperand::Each(&m), l),
        Err(Error::DivisionByZero { index: 1 })
    ));
    // Wrong shapes.
    assert!(matches!(
        md::gcd(&a, HostOperand::Each(&a[..4]), l),
        Err(Error::Shape(_))
    ));
    assert!(matches!(
        md::gcd(&a[..5], HostOperand::All(&a[..2]), l),
        Err(Error::Shape(_))
    ));
}

#[test]
fn gcd_and_gcd_ext_match_malachite() {
    let mut rng = Rng(2);
    for &l in WIDTHS {
        let n = if l <= 8 { 60 } else { 20 };
        let (mut a, b, _) = batch(&mut rng, n, l, false);
        // gcd(0, 0), gcd(x, 0), gcd(0, x), common factors.
        a[..l].fill(0);
        let mut b = b;
        b[..l].fill(0);
        b[l..2 * l].fill(0);
        let g = md::gcd(&a, HostOperand::Each(&b), l).unwrap();
        let (g2, s, t) = md::gcd_ext(&a, HostOperand::Each(&b), l).unwrap();
        for i in 0..n {
            let (x, y) = (nat(elem(&a, i, l)), nat(elem(&b, i, l)));
            assert_eq!(nat(elem(&g, i, l)), (&x).gcd(&y), "gcd l={l} element {i}");
            let (gg, ss, tt) = x.extended_gcd(y);
            assert_eq!(nat(elem(&g2, i, l)), gg, "gcd_ext g l={l} element {i}");
            assert_eq!(
                elem(&s, i, l),
                signed_of(&ss, l),
                "gcd_ext s l={l} element {i}"
            );
            assert_eq!(
                elem(&t, i, l),
                signed_of(&tt, l),
                "gcd_ext t l={l} element {i}"
            );
        }
        let c = rng.num(l);
        let g = md::gcd(&a, HostOperand::All(&c), l).unwrap();
        let (_, s, _) = md::gcd_ext(&a, HostOperand::All(&c), l).unwrap();
        for i in 0..n {
            let x = nat(elem(&a, i, l));
            assert_eq!(nat(elem(&g, i, l)), (&x).gcd(nat(&c)), "gcd All l={l} {i}");
            let (_, ss, _) = x.extended_gcd(nat(&c));
            assert_eq!(elem(&s, i, l), signed_of(&ss, l), "gcd_ext All l={l} {i}");
        }
    }
    // Common factors: a = g x, b = g y.
    let l = 4;
    let mut a = Vec::new();
    let mut b = Vec::new();
    for k in 0..20u64 {
        let g = Natural::from(k * 6 + 1) * Natural::power_of_2(k);
        a.extend(limbs_of(&(&g * Natural::from(1_000_003u64 * k + 5)), l));
        b.extend(limbs_of(&(&g * Natural::from(999_983u64 * k + 7)), l));
    }
    let g = md::gcd(&a, HostOperand::Each(&b), l).unwrap();
    for i in 0..20 {
        assert_eq!(
            nat(elem(&g, i, l)),
            nat(elem(&a, i, l)).gcd(nat(elem(&b, i, l)))
        );
    }
}

#[test]
fn modinv_matches_malachite() {
    let mut rng = Rng(3);
    for &l in WIDTHS {
        let n = if l <= 8 { 60 } else { 20 };
        let (a, _, m) = batch(&mut rng, n, l, false);
        let (x, ok) = md::modinv(&a, HostOperand::Each(&m), l).unwrap();
        let mut seen = [false; 2];
        for i in 0..n {
            let (w, f) = ref_modinv(&nat(elem(&a, i, l)), &nat(elem(&m, i, l)));
            assert_eq!(
                (nat(elem(&x, i, l)), ok[i]),
                (w, f),
                "modinv l={l} element {i}"
            );
            seen[f as usize] = true;
        }
        assert!(seen[0] && seen[1], "l={l}: both outcomes");
        let mm = rng.odd(l);
        let (x, ok) = md::modinv(&a, HostOperand::All(&mm), l).unwrap();
        for i in 0..n {
            let (w, f) = ref_modinv(&nat(elem(&a, i, l)), &nat(&mm));
            assert_eq!((nat(elem(&x, i, l)), ok[i]), (w, f), "modinv All l={l} {i}");
        }
    }
}

#[test]
fn montgomery_functions_match_formulas() {
    let mut rng = Rng(4);
    for &l in WIDTHS {
        let n = if l <= 8 { 40 } else { 12 };
        let (a, b, m) = batch(&mut rng, n, l, true);
        let r = Natural::power_of_2(64 * l as u64);
        let to = md::to_montgomery(&a, HostOperand::Each(&m), l).unwrap();
        let from = md::from_montgomery(&a, HostOperand::Each(&m), l).unwrap();
        let mul = md::mont_mul(&a, &b, HostOperand::Each(&m), l).unwrap();
        for i in 0..n {
            let (x, y, mm) = (
                nat(elem(&a, i, l)),
                nat(elem(&b, i, l)),
                nat(elem(&m, i, l)),
            );
            let rinv = if mm == 1u32 {
                Natural::from(0u32)
            } else {
                (&r % &mm).mod_inverse(&mm).unwrap()
            };
            assert_eq!(nat(elem(&to, i, l)), &x * &r % &mm, "to l={l} {i}");
            assert_eq!(nat(elem(&from, i, l)), &x * &rinv % &mm, "from l={l} {i}");
            assert_eq!(
                nat(elem(&mul, i, l)),
                &x * &y % &mm * &rinv % &mm,
                "mul l={l} {i}"
            );
        }
        // Round trip through a shared modulus.
        let mm = rng.odd(l);
        let to = md::to_montgomery(&a, HostOperand::All(&mm), l).unwrap();
        let back = md::from_montgomery(&to, HostOperand::All(&mm), l).unwrap();
        for i in 0..n {
            assert_eq!(
                nat(elem(&back, i, l)),
                nat(elem(&a, i, l)) % nat(&mm),
                "round trip"
            );
        }
    }
}

#[test]
fn empty_batches() {
    let e: Vec<u64> = vec![];
    assert!(
        md::powm(&e, HostOperand::Each(&e), HostOperand::Each(&e), 2)
            .unwrap()
            .is_empty()
    );
    assert!(
        md::gcd(&e, HostOperand::All(&[1, 0]), 2)
            .unwrap()
            .is_empty()
    );
    assert!(
        md::modinv(&e, HostOperand::All(&[3, 0]), 2)
            .unwrap()
            .0
            .is_empty()
    );
}

/// `powm` on both paths (the AVX-512 IFMA lanes and one element at a time)
/// against malachite: batches of sizes around the lane groups (8, 16, 32
/// lanes: remainders of 8 and of the group), widths that cross the 52-bit
/// limb counts (ceil((bits + 2) / 52)) and the IFMA width limit, per-element
/// and shared moduli and exponents, exponents of mixed lengths (0, 1, short,
/// full), bases >= the modulus, moduli 1, even moduli (their odd part on the
/// lanes, per element and shared) mixed in.
#[test]
fn powm_ifma_and_scalar_paths_match_malachite() {
    let mut rng = Rng(0x1f3a);
    eprintln!("IFMA on this CPU: {}", md::powm_ifma_available());
    // (limbs, batch sizes)
    let plan: &[(usize, &[usize])] = &[
        (1, &[1, 3, 8, 9, 31, 33, 70]),
        (2, &[7, 17, 40]),
        (3, &[5, 33]),
        (4, &[1, 2, 3, 8, 16, 32, 37, 65]),
        (5, &[11, 34]),
        (8, &[9, 35]),
        (13, &[17]),
        (16, &[3, 19]),
        (17, &[10]),
        (32, &[9]),
        (33, &[4]),
        (64, &[3]),
    ];
    for &(l, sizes) in plan {
        for &n in sizes {
            for variant in 0..4 {
                let (a, e, mut m) = batch(&mut rng, n, l, variant < 2);
                // Mostly full-length odd moduli so that groups fill; in
                // variant 2 every other one even (2^k q, q odd, q > 1 mostly).
                for i in 0..n {
                    if i % 5 != 4 {
                        m[i * l] |= 1;
                        m[i * l + l - 1] |= 1 << 63;
                        if variant == 2 && i % 2 == 0 {
                            // Clear the low k bits (k >= 1); the top bit stays.
                            let k = 1 + (rng.next() % 70) as usize % (64 * l - 1);
                            for b in 0..k {
                                m[i * l + b / 64] &= !(1u64 << (b % 64));
                            }
                        }
                    }
                }
                let shared_m = if variant == 3 {
                    let mut x = rng.odd(l);
                    x[0] &= !0xff;
                    x[l - 1] |= 1 << 63;
                    x
                } else {
                    rng.odd(l)
                };
                let shared_e = rng.num(l);
                let (eo, mo) = match variant {
                    0 => (HostOperand::Each(&e), HostOperand::Each(&m)),
                    1 => (HostOperand::All(&shared_e), HostOperand::All(&shared_m)),
                    2 => (HostOperand::All(&shared_e), HostOperand::Each(&m)),
                    _ => (HostOperand::Each(&e), HostOperand::All(&shared_m)),
                };
                let want: Vec<u64> = (0..n)
                    .flat_map(|i| {
                        let ev = match eo {
                            HostOperand::Each(x) => elem(x, i, l),
                            HostOperand::All(x) => x,
                        };
                        let mv = match mo {
                            HostOperand::Each(x) => elem(x, i, l),
                            HostOperand::All(x) => x,
                        };
                        limbs_of(&ref_powm(&nat(elem(&a, i, l)), &nat(ev), &nat(mv)), l)
                    })
                    .collect();
                for path in [md::PowmPath::Ifma, md::PowmPath::Scalar, md::PowmPath::Auto] {
                    let got = md::powm_with(&a, eo, mo, l, path).unwrap();
                    for i in 0..n {
                        assert_eq!(
                            elem(&got, i, l),
                            elem(&want, i, l),
                            "{path:?} l {l} n {n} variant {variant} element {i}"
                        );
                    }
                }
            }
        }
    }
}
