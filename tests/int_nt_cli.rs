//! `mparray int gcd|modinv|powm|isqrt|shl|shr|and|or|xor|not|cmp|popcount|
//! bitlen|prime` end to end on the CPU engine: results against malachite,
//! scalar options, and bad input (exit status 2, file:line in the message).
mod common;

use std::path::PathBuf;
use std::process::{Command, Output};

use malachite_base::num::arithmetic::traits::{FloorSqrt, Gcd, ModInverse, ModPow};
use malachite_nz::natural::Natural;

use common::{Rng, Tmp};

fn file(t: &Tmp, name: &str, text: &str) -> PathBuf {
    let p = t.0.join(name);
    std::fs::write(&p, text).unwrap();
    p
}

fn run(args: &[&str]) -> Output {
    let mut all = vec!["int", "--engine", "cpu"];
    all.extend_from_slice(args);
    Command::new(common::mparray_bin())
        .args(&all)
        .output()
        .expect("running mparray")
}

fn ok(args: &[&str]) -> Vec<String> {
    let o = run(args);
    assert!(
        o.status.success(),
        "mparray {args:?} failed: {}",
        String::from_utf8_lossy(&o.stderr)
    );
    String::from_utf8(o.stdout)
        .unwrap()
        .lines()
        .map(str::to_string)
        .collect()
}

fn fails(args: &[&str], want: &str) {
    let o = run(args);
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(2), "mparray {args:?}: {err}");
    assert!(
        err.contains(want),
        "mparray {args:?}: {err:?} lacks {want:?}"
    );
}

fn nums(rng: &mut Rng, n: usize, limbs: usize) -> Vec<Natural> {
    (0..n)
        .map(|_| {
            let v: Vec<u64> = (0..1 + rng.index(limbs)).map(|_| rng.next()).collect();
            Natural::from_limbs_asc(&v)
        })
        .collect()
}

fn text(v: &[Natural]) -> String {
    v.iter().map(|x| format!("{x}\n")).collect()
}

fn n(s: &str) -> Natural {
    s.parse().unwrap()
}

#[test]
fn nt_cli_results_match_malachite() {
    let t = Tmp::new();
    let mut rng = Rng(common::seed());
    let a = nums(&mut rng, 50, 4);
    let b = nums(&mut rng, 50, 4);
    let m: Vec<Natural> = nums(&mut rng, 50, 4)
        .into_iter()
        .map(|x| x | Natural::from(1u32))
        .collect();
    let (fa, fb, fm) = (
        file(&t, "a", &text(&a)),
        file(&t, "b", &text(&b)),
        file(&t, "m", &text(&m)),
    );
    let (fa, fb, fm) = (
        fa.to_str().unwrap(),
        fb.to_str().unwrap(),
        fm.to_str().unwrap(),
    );
    let w = "256";
    let g = ok(&["gcd", "--bits", w, fa, fb]);
    let x = ok(&["xor", "--bits", w, fa, fb]);
    let c = ok(&["cmp", "--bits", w, fa, fb]);
    let p = ok(&["powm", "--bits", w, fa, fb, fm]);
    let pe = ok(&["powm", "--bits", w, fa, fm, "--exp", "65537"]);
    let pm = ok(&[
        "powm",
        "--bits",
        w,
        fa,
        fb,
        "--modulus",
        "0xffffffffffffffc5",
    ]);
    let inv = ok(&["modinv", "--bits", w, fa, fm, "--flags"]);
    let s = ok(&["isqrt", "--bits", w, fa]);
    let pc = ok(&["popcount", "--bits", w, fa]);
    let bl = ok(&["bitlen", "--bits", w, fa]);
    let sh = ok(&["shl", "--bits", w, fa, "--count", "70"]);
    let sr = ok(&["shr", "--bits", w, fa, "--count", "3"]);
    let w2 = Natural::from(1u32) << 256u32;
    for i in 0..a.len() {
        assert_eq!(n(&g[i]), (&a[i]).gcd(&b[i]));
        assert_eq!(n(&x[i]), &a[i] ^ &b[i]);
        assert_eq!(c[i], format!("{}", a[i].cmp(&b[i]) as i8));
        assert_eq!(n(&p[i]), (&a[i] % &m[i]).mod_pow(&b[i], &m[i]), "line {i}");
        assert_eq!(
            n(&pe[i]),
            (&a[i] % &m[i]).mod_pow(Natural::from(65537u32), &m[i])
        );
        let q = Natural::from(0xffff_ffff_ffff_ffc5u64);
        assert_eq!(n(&pm[i]), (&a[i] % &q).mod_pow(&b[i], &q));
        let r = &a[i] % &m[i];
        let want = if m[i] == 1u32 {
            Some(Natural::from(0u32))
        } else if r == 0u32 {
            None
        } else {
            r.mod_inverse(&m[i])
        };
        let parts: Vec<&str> = inv[i].split(' ').collect();
        assert_eq!(parts[1], if want.is_some() { "1" } else { "0" });
        assert_eq!(n(parts[0]), want.unwrap_or_default());
        let sq: Vec<&str> = s[i].split(' ').collect();
        let root = a[i].clone().floor_sqrt();
        assert_eq!(n(sq[0]), root);
        assert_eq!(n(sq[1]), &a[i] - &root * &root);
        assert_eq!(pc[i].parse::<u64>().unwrap(), {
            use malachite_base::num::logic::traits::CountOnes;
            a[i].count_ones()
        });
        assert_eq!(bl[i].parse::<u64>().unwrap(), {
            use malachite_base::num::logic::traits::SignificantBits;
            a[i].significant_bits()
        });
        assert_eq!(n(&sh[i]), (&a[i] << 70u32) % &w2);
        assert_eq!(n(&sr[i]), &a[i] >> 3u32);
    }
    // Per-line shift counts, hex output, not, prime.
    let counts: String = (0..a.len()).map(|i| format!("{}\n", i * 7)).collect();
    let fc = file(&t, "c", &counts);
    let sl = ok(&["shl", "--bits", w, fa, fc.to_str().unwrap(), "--hex"]);
    for i in 0..a.len() {
        assert!(sl[i].starts_with("0x"));
        assert_eq!(n(&hex(&sl[i])), (&a[i] << (i as u64 * 7)) % &w2);
    }
    let fp = file(
        &t,
        "p",
        "2\n3\n4\n561\n170141183460469231731687303715884105727\n0\n1\n",
    );
    assert_eq!(
        ok(&["prime", "--bits", "128", fp.to_str().unwrap()]),
        ["1", "1", "0", "0", "1", "0", "0"]
    );
    let fz = file(&t, "z", "0\n5\n");
    assert_eq!(
        ok(&["not", "--bits", "64", fz.to_str().unwrap(), "--dec"]),
        ["18446744073709551615", "18446744073709551610"]
    );
}

/// Hex text to a decimal string (for the check above).
fn hex(h: &str) -> String {
    let v = Natural::from_string_base(16, h.trim_start_matches("0x")).unwrap();
    v.to_string()
}
use malachite_base::num::conversion::traits::FromStringBase;

#[test]
fn nt_cli_bad_input() {
    let t = Tmp::new();
    let fa = file(&t, "a", "6\n10\n15\n");
    let fm = file(&t, "m", "7\n0\n4\n");
    let fm2 = file(&t, "m2", "7\n9\n5\n");
    let fm3 = file(&t, "m3", "7\n9\n");
    let fbad = file(&t, "bad", "7\nx9\n5\n");
    let (fa, fm, fm2, fm3, fbad) = (
        fa.to_str().unwrap(),
        fm.to_str().unwrap(),
        fm2.to_str().unwrap(),
        fm3.to_str().unwrap(),
        fbad.to_str().unwrap(),
    );
    // Zero modulus: the modulus file's line.
    fails(
        &["modinv", "--bits", "64", fa, fm],
        &format!("{fm}:2: the modulus is 0"),
    );
    fails(
        &["powm", "--bits", "64", fa, fm2, fm],
        &format!("{fm}:2: the modulus is 0"),
    );
    fails(
        &["powm", "--bits", "64", fa, fm2, "--modulus", "0"],
        "--modulus: the modulus is 0",
    );
    // No inverse: A's line (15 and 5).
    fails(
        &["modinv", "--bits", "64", fa, fm2],
        &format!("{fa}:3: no inverse"),
    );
    fails(
        &["modinv", "--bits", "64", fa, "--modulus", "4"],
        &format!("{fa}:1: no inverse"),
    );
    assert_eq!(
        ok(&["modinv", "--bits", "64", fa, "--modulus", "7", "--flags"]),
        ["6 1", "5 1", "1 1"]
    );
    // Line counts, parse errors, counts, missing operands.
    fails(&["gcd", "--bits", "64", fa, fm3], "has 3 lines but");
    fails(
        &["gcd", "--bits", "64", fa, fbad],
        &format!("{fbad}:2: cannot parse"),
    );
    let fcnt = file(&t, "cnt", "1\n-2\n3\n");
    fails(
        &["shl", "--bits", "64", fa, fcnt.to_str().unwrap()],
        &format!("{}:2: cannot parse", fcnt.to_str().unwrap()),
    );
    fails(&["shl", "--bits", "64", fa], "needs the counts");
    fails(&["powm", "--bits", "64", fa, fm2], "needs the moduli");
    fails(&["isqrt", "--bits", "64", fa, fm2], "takes one file");
    fails(
        &["powm", "--bits", "64", fa, "--exp", "zz", "--modulus", "5"],
        "--exp \"zz\"",
    );
    fails(
        &["add", "--bits", "64", fa, fm2, "--modulus", "5"],
        "none of --modulus",
    );
}
