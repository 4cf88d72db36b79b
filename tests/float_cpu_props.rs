//! Algebraic properties of the float operations that hold bit for bit in
//! MPFR's semantics (proptest, independent of any reference library):
//! commutativity, sign symmetry under the mirrored rounding mode, exact
//! operations, monotonicity of rounding, and text round trips.

use proptest::prelude::*;

use mparray::float::WithTernary;
use mparray::{FloatArray, Round};

/// An operation's result and its ternary values read back.
fn tv(r: mparray::Result<WithTernary>) -> (FloatArray, Vec<i8>) {
    let (a, t) = r.unwrap();
    let t = t.into_vec().unwrap();
    assert_eq!(a.len(), t.len());
    (a, t)
}

/// A float from raw parts: sign, exponent, mantissa limbs, precision.
fn float_strategy() -> impl Strategy<Value = (bool, i64, Vec<u64>, u64)> {
    (
        any::<bool>(),
        -200i64..200,
        prop::collection::vec(any::<u64>(), 1..5),
        1u64..257,
    )
}

fn make(prec: u64, items: &[(bool, i64, Vec<u64>, u64)]) -> FloatArray {
    // Hex floats are read exactly then rounded to `prec` toward zero.
    let strs: Vec<String> = items
        .iter()
        .map(|(neg, e, limbs, _)| {
            let mut h = String::new();
            for l in limbs.iter().rev() {
                h.push_str(&format!("{l:016x}"));
            }
            format!("{}0x0.{h}1p{e}", if *neg { "-" } else { "" })
        })
        .collect();
    FloatArray::from_strs_ternary(prec, &strs, Round::Zero)
        .unwrap()
        .0
}

fn rnd_strategy() -> impl Strategy<Value = Round> {
    prop::sample::select(Round::ALL.to_vec())
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    #[test]
    fn add_mul_commute(xs in prop::collection::vec(float_strategy(), 1..40),
                       ys in prop::collection::vec(float_strategy(), 40),
                       p in 1u64..300, rnd in rnd_strategy()) {
        let n = xs.len();
        let a = make(xs[0].3, &xs);
        let b = make(ys[0].3, &ys[..n]);
        prop_assert_eq!(tv(a.add_ternary(&b, p, rnd)), tv(b.add_ternary(&a, p, rnd)));
        prop_assert_eq!(tv(a.mul_ternary(&b, p, rnd)), tv(b.mul_ternary(&a, p, rnd)));
        prop_assert_eq!(tv(a.min_ternary(&b, p, rnd)), tv(b.min_ternary(&a, p, rnd)));
    }

    #[test]
    fn sign_symmetry(xs in prop::collection::vec(float_strategy(), 1..40),
                     ys in prop::collection::vec(float_strategy(), 40),
                     p in 1u64..300, rnd in rnd_strategy()) {
        // -(x op y) in mode r equals (-x) op' y in the mirrored mode, with
        // the ternary value negated (nonzero results only: zero signs differ
        // by mode).
        let n = xs.len();
        let a = make(xs[0].3, &xs);
        let b = make(ys[0].3, &ys[..n]);
        let na = a.neg(xs[0].3, Round::Nearest).unwrap();
        let nb = b.neg(ys[0].3, Round::Nearest).unwrap();
        let (s1, t1) = tv(a.add_ternary(&b, p, rnd));
        let (s2, t2) = tv(na.add_ternary(&nb, p, rnd.mirror()));
        let (d1, u1) = tv(a.div_ternary(&b, p, rnd));
        let (d2, u2) = tv(na.div_ternary(&b, p, rnd.mirror()));
        let (n1, _) = s1.neg_ternary(p, Round::Nearest).unwrap();
        let (m1, _) = d1.neg_ternary(p, Round::Nearest).unwrap();
        for i in 0..n {
            if s1.get(i).unwrap().class == mparray::float::Class::Normal {
                prop_assert_eq!(n1.get(i).unwrap().limbs, s2.get(i).unwrap().limbs);
                prop_assert_eq!(n1.get(i).unwrap().exp, s2.get(i).unwrap().exp);
                prop_assert_eq!(n1.get(i).unwrap().neg, s2.get(i).unwrap().neg);
                prop_assert_eq!(t1[i], -t2[i]);
            }
            if d1.get(i).unwrap().class == mparray::float::Class::Normal {
                prop_assert_eq!(m1.get(i).unwrap().limbs, d2.get(i).unwrap().limbs);
                prop_assert_eq!(m1.get(i).unwrap().exp, d2.get(i).unwrap().exp);
                prop_assert_eq!(u1[i], -u2[i]);
            }
        }
    }

    #[test]
    fn exact_results(xs in prop::collection::vec(float_strategy(), 1..40), rnd in rnd_strategy()) {
        // x*1, x+0, sqrt(x*x), x*2^k/2^k, and set_prec to a wider precision
        // are exact; the ternary value is 0.
        let q = xs[0].3;
        let a = make(q, &xs);
        let n = xs.len();
        let one = FloatArray::from_strs(1, &vec!["1"; n]).unwrap();
        let zero = FloatArray::from_strs(1, &vec!["0"; n]).unwrap();
        let (m, t) = tv(a.mul_ternary(&one, q, rnd));
        prop_assert_eq!(&m, &a);
        prop_assert!(t.iter().all(|&v| v == 0));
        let (s, t) = tv(a.add_ternary(&zero, q, rnd));
        prop_assert_eq!(&s, &a);
        prop_assert!(t.iter().all(|&v| v == 0));
        let sq = a.mul(&a, 2 * q, rnd).unwrap();
        let (r, t) = tv(sq.sqrt_ternary(q, rnd));
        prop_assert_eq!(&r, &a.abs(q, rnd).unwrap());
        prop_assert!(t.iter().all(|&v| v == 0));
        let (w, t) = tv(a.set_prec_ternary(q + 77, rnd));
        prop_assert!(t.iter().all(|&v| v == 0));
        prop_assert_eq!(&w.set_prec(q, rnd).unwrap(), &a);
        let (h, _) = a.mul_2si_ternary(13, q, rnd).unwrap();
        prop_assert_eq!(&h.div_2si(13, q, rnd).unwrap(), &a);
    }

    #[test]
    fn rounding_brackets(xs in prop::collection::vec(float_strategy(), 1..40), p in 1u64..200) {
        // RNDD <= RNDN, RNDZ, RNDU, RNDA results, all within one ulp, and
        // RNDD <= RNDU with ternary signs matching.
        let a = make(xs[0].3, &xs);
        let d = tv(a.set_prec_ternary(p, Round::Down));
        let u = tv(a.set_prec_ternary(p, Round::Up));
        let nn = tv(a.set_prec_ternary(p, Round::Nearest));
        let c1 = d.0.cmp(&u.0).unwrap();
        let c2 = d.0.cmp(&nn.0).unwrap();
        let c3 = nn.0.cmp(&u.0).unwrap();
        for i in 0..xs.len() {
            prop_assert!(c1[i] != Some(std::cmp::Ordering::Greater));
            prop_assert!(c2[i] != Some(std::cmp::Ordering::Greater));
            prop_assert!(c3[i] != Some(std::cmp::Ordering::Greater));
            prop_assert!(d.1[i] <= 0 && u.1[i] >= 0);
            prop_assert_eq!(d.1[i] == 0, u.1[i] == 0);
        }
    }

    #[test]
    fn text_round_trips(xs in prop::collection::vec(float_strategy(), 1..40), rnd in rnd_strategy()) {
        let q = xs[0].3;
        let a = make(q, &xs);
        prop_assert_eq!(&FloatArray::from_strs(q, &a.to_hex_strings().unwrap()).unwrap(), &a);
        prop_assert_eq!(&FloatArray::from_strs(q, &a.to_dec_strings(0, Round::Nearest).unwrap()).unwrap(), &a);
        // Directed decimal output brackets the value.
        let lo = FloatArray::from_strs_ternary(q + 64, &a.to_dec_strings(12, Round::Down).unwrap(), rnd).unwrap().0;
        let hi = FloatArray::from_strs_ternary(q + 64, &a.to_dec_strings(12, Round::Up).unwrap(), rnd).unwrap().0;
        let c1 = lo.cmp(&a).unwrap();
        let c2 = a.cmp(&hi).unwrap();
        for i in 0..xs.len() {
            prop_assert!(c1[i] != Some(std::cmp::Ordering::Greater), "{i}");
            prop_assert!(c2[i] != Some(std::cmp::Ordering::Greater), "{i}");
        }
    }
}
