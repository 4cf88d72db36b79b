//! Property tests of the CPU engine (proptest, fresh cases each run):
//! algebraic identities of the batch operations and agreement of the
//! element-level algorithms with malachite, on operands whose limbs mix
//! uniform values with extremes (0, 1, 2^63, 2^64-1, ...).
use malachite_base::num::arithmetic::traits::DivMod;
use malachite_nz::natural::Natural;
use mparray::int::cpu::{div, mul};
use mparray::int::limbs;
use mparray::{Fused, IntArray};
use proptest::prelude::*;

/// One limb: uniform, or one of the values that stress carries and quotient estimates.
fn limb() -> impl Strategy<Value = u64> {
    prop_oneof![
        3 => any::<u64>(),
        1 => prop::sample::select(vec![0u64, 1, 2, u64::MAX, u64::MAX - 1, 1 << 63, (1 << 63) - 1]),
    ]
}

/// `n` limbs, sometimes with high zero limbs (short values).
fn number(n: usize) -> impl Strategy<Value = Vec<u64>> {
    (prop::collection::vec(limb(), n), 0..=n).prop_map(move |(mut v, keep)| {
        if keep % 3 == 0 {
            for x in &mut v[keep.max(1)..] {
                *x = 0;
            }
        }
        v
    })
}

/// A width in limbs, weighted to the small and threshold-crossing ones.
fn width() -> impl Strategy<Value = usize> {
    prop_oneof![
        4 => 1usize..=10,
        3 => 11usize..=2 * mul::TOOM3_T + 2,
        1 => prop::sample::select(vec![
            mul::KARA_T - 1, mul::KARA_T, mul::TOOM3_T, mul::TOOM3_T + 1, div::DC_T, 2 * div::DC_T + 1,
        ]),
    ]
}

/// Arrays of `count` elements of one width.
fn pair() -> impl Strategy<Value = (usize, Vec<u64>, Vec<u64>)> {
    (width(), 1usize..=4)
        .prop_flat_map(|(l, count)| (Just(l), number(l * count), number(l * count)))
}

fn nat(x: &[u64]) -> Natural {
    Natural::from_limbs_asc(x)
}

fn arrays(l: usize, a: &[u64], b: &[u64]) -> (IntArray, IntArray) {
    let bits = 64 * l as u64;
    (
        IntArray::from_limbs(bits, a.to_vec()).unwrap(),
        IntArray::from_limbs(bits, b.to_vec()).unwrap(),
    )
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 512, .. ProptestConfig::default() })]

    /// (a + b) - b == a, and the carry of the addition equals the borrow
    /// of the subtraction.
    #[test]
    fn add_sub_round_trip((l, a, b) in pair()) {
        let (x, y) = arrays(l, &a, &b);
        let (s, c) = x.overflowing_add(&y).unwrap();
        let (d, br) = s.overflowing_sub(&y).unwrap();
        prop_assert_eq!(d.to_limbs().unwrap(), a);
        prop_assert_eq!(c, br);
    }

    /// The low half of mul_wide is mul, and the six-add is 4a + 3b.
    #[test]
    fn mul_wide_low_half_is_mul((l, a, b) in pair()) {
        let (x, y) = arrays(l, &a, &b);
        let w = x.mul_wide(&y).unwrap().to_limbs().unwrap();
        let p = x.mul(&y).unwrap().to_limbs().unwrap();
        for (we, pe) in w.chunks(2 * l).zip(p.chunks(l)) {
            prop_assert_eq!(&we[..l], pe);
        }
        let six = x.fused(&y, Fused::SixAdd).unwrap();
        let four = x.add(&x).unwrap().add(&x.add(&x).unwrap()).unwrap();
        let three = y.add(&y).unwrap().add(&y).unwrap();
        prop_assert_eq!(six.to_limbs().unwrap(), four.add(&three).unwrap().to_limbs().unwrap());
    }

    /// Poly equals the same expression built from separate operations.
    #[test]
    fn poly_matches_separate_ops((l, a, b) in pair()) {
        let (x, y) = arrays(l, &a, &b);
        let t1 = x.mul(&x).unwrap().add(&y).unwrap();
        let t2 = y.mul(&y).unwrap().add(&y).unwrap();
        let want = t1.mul(&t2).unwrap().add(&x.mul(&y).unwrap()).unwrap();
        prop_assert_eq!(x.fused(&y, Fused::Poly).unwrap().to_limbs().unwrap(), want.to_limbs().unwrap());
    }

    /// q * b + r == a and r < b, for every non-zero divisor.
    #[test]
    fn division_identity((l, a, b) in pair()) {
        let mut b = b;
        for e in b.chunks_mut(l) {
            if e.iter().all(|&x| x == 0) {
                e[0] = 1;
            }
        }
        let (x, y) = arrays(l, &a, &b);
        let (q, r) = x.divrem(&y).unwrap();
        let (q, r) = (q.to_limbs().unwrap(), r.to_limbs().unwrap());
        for i in 0..a.len() / l {
            let e = i * l..(i + 1) * l;
            let (nb, nr) = (nat(&b[e.clone()]), nat(&r[e.clone()]));
            prop_assert!(nr < nb);
            prop_assert_eq!(nat(&q[e.clone()]) * nb + nr, nat(&a[e]));
        }
    }

    /// Element-level products of unequal lengths against malachite.
    #[test]
    fn products_match_malachite(a in (1usize..300).prop_flat_map(number), b in (1usize..300).prop_flat_map(number)) {
        let mut r = vec![0u64; a.len() + b.len()];
        limbs::mul_full(&mut r, &a, &b);
        prop_assert_eq!(nat(&r), nat(&a) * nat(&b));
        let n = a.len().min(b.len());
        let mut lo = vec![0u64; n];
        limbs::mul_low(&mut lo, &a[..n], &b[..n]);
        let m = Natural::from(1u32) << (64 * n as u64);
        prop_assert_eq!(nat(&lo), nat(&a[..n]) * nat(&b[..n]) % m);
    }

    /// Element-level division of any lengths against malachite.
    #[test]
    fn quotients_match_malachite(u in (1usize..260).prop_flat_map(number), v in (1usize..130).prop_flat_map(number)) {
        let l = u.len().max(v.len());
        let (mut uu, mut vv) = (u.clone(), v.clone());
        uu.resize(l, 0);
        vv.resize(l, 0);
        let (mut q, mut r) = (vec![7u64; l], vec![7u64; l]);
        let ok = limbs::divrem(&mut q, &mut r, &uu, &vv);
        prop_assert_eq!(ok, nat(&v) != 0u32);
        if ok {
            let (eq, er) = nat(&u).div_mod(nat(&v));
            prop_assert_eq!((nat(&q), nat(&r)), (eq, er));
        }
    }
}
