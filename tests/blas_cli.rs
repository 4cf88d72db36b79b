//! `mparray blas` end to end: small real and complex examples checked
//! exactly against malachite rationals (every result element the exact
//! value rounded once), and bad files exiting with status 2 and naming the
//! file and line.
mod common;

use std::process::{Command, Output};

use malachite_base::num::arithmetic::traits::Pow;
use malachite_base::num::conversion::traits::FromStringBase;
use malachite_float::Float;
use malachite_nz::integer::Integer;
use malachite_q::Rational;
use mparray::Round;
use mparray::float::to_rounding_mode;

use common::Tmp;

impl Tmp {
    fn file(&self, name: &str, text: &str) -> String {
        let p = self.0.join(name);
        std::fs::write(&p, text).unwrap();
        p.display().to_string()
    }

    /// A real `rows x cols` Matrix Market file from row-major values.
    fn real(&self, name: &str, rows: usize, cols: usize, v: &[&str]) -> String {
        let mut s = format!("%%MatrixMarket matrix array real general\n{rows} {cols}\n");
        for j in 0..cols {
            for i in 0..rows {
                s += v[i * cols + j];
                s += "\n";
            }
        }
        self.file(name, &s)
    }

    /// A complex file from row-major `(re, im)` values.
    fn complex(&self, name: &str, rows: usize, cols: usize, v: &[(&str, &str)]) -> String {
        let mut s = format!("%%MatrixMarket matrix array complex general\n{rows} {cols}\n");
        for j in 0..cols {
            for i in 0..rows {
                let (re, im) = v[i * cols + j];
                s += &format!("{re} {im}\n");
            }
        }
        self.file(name, &s)
    }
}

fn mparray(args: &[&str]) -> Output {
    Command::new(common::mparray_bin())
        .arg("blas")
        .args(args)
        .arg("--engine")
        .arg("cpu")
        .output()
        .expect("running mparray")
}

/// A hex float of the output (`0x1.8p+3`, `-0x0p+0`) as a rational.
fn hex(s: &str) -> Rational {
    let (neg, t) = match s.strip_prefix('-') {
        Some(t) => (true, t),
        None => (false, s),
    };
    let t = t.strip_prefix("0x").expect("a hex float");
    let (m, e) = t.split_once('p').expect("an exponent");
    let (int, frac) = m.split_once('.').unwrap_or((m, ""));
    let digits = Integer::from_string_base(16, &format!("{int}{frac}")).unwrap();
    let e: i64 = e.parse::<i64>().unwrap() - 4 * frac.len() as i64;
    let v = Rational::from(digits) * Rational::from(2u32).pow(e);
    if neg { -v } else { v }
}

/// A decimal input (`-2.25`, `1e-3`; no hex) as an exact rational.
fn q(s: &str) -> Rational {
    let (m, e) = s.split_once('e').unwrap_or((s, "0"));
    let (int, frac) = m.split_once('.').unwrap_or((m, ""));
    let digits = Integer::from_string_base(10, &format!("{int}{frac}")).unwrap();
    let e = e.parse::<i64>().unwrap() - frac.len() as i64;
    Rational::from(digits) * Rational::from(10u32).pow(e)
}

/// `v` rounded to `p` bits in `rnd`, as a rational.
fn round(v: Rational, p: u64, rnd: Round) -> Rational {
    if v == 0u32 {
        return v;
    }
    let (f, _) = Float::from_rational_prec_round(v, p, to_rounding_mode(rnd));
    Rational::try_from(&f).unwrap()
}

/// A successful run's output: its shape and values (column-major; for a
/// complex file the parts in turn).
fn parse_out(o: &Output) -> (String, usize, usize, Vec<Rational>) {
    assert!(
        o.status.success(),
        "status {:?}: {}",
        o.status,
        String::from_utf8_lossy(&o.stderr)
    );
    let s = String::from_utf8(o.stdout.clone()).unwrap();
    let mut lines = s.lines();
    let header = lines.next().unwrap().to_string();
    let dims: Vec<usize> = lines
        .next()
        .unwrap()
        .split_whitespace()
        .map(|x| x.parse().unwrap())
        .collect();
    let vals = lines.flat_map(|l| l.split_whitespace()).map(hex).collect();
    (header, dims[0], dims[1], vals)
}

/// Row-major `rows x cols` rationals from strings.
fn qs(v: &[&str]) -> Vec<Rational> {
    v.iter().map(|s| q(s)).collect()
}

/// The expected column-major output of a row-major `m x n` result.
fn col_major(v: &[Rational], m: usize, n: usize) -> Vec<Rational> {
    (0..n)
        .flat_map(|j| (0..m).map(move |i| v[i * n + j].clone()))
        .collect()
}

/// `alpha*op(A)*op(B) + beta*C` exactly, row-major (real).
#[allow(clippy::too_many_arguments)]
fn gemm_ref(
    a: &[Rational],
    (ar, ac): (usize, usize),
    ta: bool,
    b: &[Rational],
    (br, bc): (usize, usize),
    tb: bool,
    alpha: &Rational,
    bc_c: Option<(&Rational, &[Rational])>,
) -> (Vec<Rational>, usize, usize) {
    let at = |i: usize, k: usize| if ta { &a[k * ac + i] } else { &a[i * ac + k] };
    let bt = |k: usize, j: usize| if tb { &b[j * bc + k] } else { &b[k * bc + j] };
    let (m, k) = if ta { (ac, ar) } else { (ar, ac) };
    let n = if tb { br } else { bc };
    let mut out = Vec::new();
    for i in 0..m {
        for j in 0..n {
            let mut s = Rational::from(0u32);
            for kk in 0..k {
                s += alpha * at(i, kk) * bt(kk, j);
            }
            if let Some((beta, c)) = bc_c {
                s += beta * &c[i * n + j];
            }
            out.push(s);
        }
    }
    (out, m, n)
}

const A23: [&str; 6] = ["3", "-7", "11", "0.5", "13", "-2.25"];
const B32: [&str; 6] = ["5", "-1", "17", "0.125", "-9", "3"];

#[test]
fn gemm_real_every_rounding_with_alpha_beta_and_c() {
    let t = Tmp::new();
    let a = t.real("a.mtx", 2, 3, &A23);
    let b = t.real("b.mtx", 3, 2, &B32);
    let c_v = ["1", "-3", "0.75", "100"];
    let c = t.real("c.mtx", 2, 2, &c_v);
    let (aq, bq, cq) = (qs(&A23), qs(&B32), qs(&c_v));
    // 8 bits: the inputs are exact, the sums are not.
    for r in ["N", "Z", "U", "D", "A"] {
        let rnd = Round::from_name(r).unwrap();
        let o = mparray(&[
            "gemm", "--prec", "8", "--round", r, "--hex", "--alpha", "3", "--beta", "-0.5", &a, &b,
            &c,
        ]);
        let (h, m, n, v) = parse_out(&o);
        assert_eq!(h, "%%MatrixMarket matrix array real general");
        assert_eq!((m, n), (2, 2));
        let beta = q("-0.5");
        let (e, _, _) = gemm_ref(
            &aq,
            (2, 3),
            false,
            &bq,
            (3, 2),
            false,
            &q("3"),
            Some((&beta, &cq)),
        );
        let e: Vec<_> = e.into_iter().map(|x| round(x, 8, rnd)).collect();
        assert_eq!(v, col_major(&e, 2, 2), "round {r}");
    }
    // No C: alpha*A*B; by hand, A*B = [[3*5-7*17-11*9, -3-7/8+33],
    // [2.5+221+20.25, -0.5+13/8-6.75]] at 53 bits (exact).
    let (_, _, _, v) = parse_out(&mparray(&["gemm", "--prec", "53", "--hex", &a, &b]));
    let e = qs(&["-203", "29.125", "243.75", "-5.625"]);
    assert_eq!(v, col_major(&e, 2, 2));
    // C given without --beta: beta is 1, C = A*B + C.
    let (_, _, _, v) = parse_out(&mparray(&["gemm", "--prec", "53", "--hex", &a, &b, &c]));
    let e = qs(&["-202", "26.125", "244.5", "94.375"]);
    assert_eq!(v, col_major(&e, 2, 2));
}

#[test]
fn gemm_trans_a_and_trans_b() {
    let t = Tmp::new();
    // A is 3 x 2 so that A^T is 2 x 3; B^T of a 2 x 3 is 3 x 2.
    let a = t.real("a.mtx", 3, 2, &A23);
    let b = t.real("b.mtx", 2, 3, &B32);
    let (aq, bq) = (qs(&A23), qs(&B32));
    for (ta, tb) in [(true, false), (true, true), (false, true)] {
        let mut args = vec!["gemm", "--prec", "6", "--round", "Z", "--hex"];
        if ta {
            args.push("--trans-a");
        }
        if tb {
            args.push("--trans-b");
        }
        let (x, y) = match (ta, tb) {
            (true, false) => (&a, &a),
            (true, true) => (&a, &b),
            _ => (&b, &b),
        };
        args.extend([x.as_str(), y.as_str()]);
        let (_, m, n, v) = parse_out(&mparray(&args));
        let (xs, xq) = if x == &a {
            ((3, 2), &aq)
        } else {
            ((2, 3), &bq)
        };
        let (ys, yq) = if y == &a {
            ((3, 2), &aq)
        } else {
            ((2, 3), &bq)
        };
        let (e, em, en) = gemm_ref(xq, xs, ta, yq, ys, tb, &q("1"), None);
        assert_eq!((m, n), (em, en));
        let e: Vec<_> = e.into_iter().map(|x| round(x, 6, Round::Zero)).collect();
        assert_eq!(v, col_major(&e, m, n), "trans {ta} {tb}");
    }
}

#[test]
fn gemm_complex_exact_parts() {
    let t = Tmp::new();
    let a_v = [("1", "2"), ("-3", "0.5"), ("7", "-1"), ("2", "9")];
    let b_v = [("4", "-1"), ("0.25", "3"), ("-5", "6"), ("1", "1")];
    let a = t.complex("a.mtx", 2, 2, &a_v);
    let b = t.complex("b.mtx", 2, 2, &b_v);
    let cq = |v: &[(&str, &str)]| -> Vec<(Rational, Rational)> {
        v.iter().map(|(r, i)| (q(r), q(i))).collect()
    };
    let (aq, bq) = (cq(&a_v), cq(&b_v));
    let mul = |x: &(Rational, Rational), y: &(Rational, Rational)| {
        (&x.0 * &y.0 - &x.1 * &y.1, &x.0 * &y.1 + &x.1 * &y.0)
    };
    // alpha = 2 - i, conj-transposed A (--trans-a --conj): A^H[i][k] = conj(A[k][i]).
    for (conj, r) in [(false, "NZ"), (true, "UD")] {
        let rr = mparray::complex::CRound::from_name(r).unwrap();
        let mut args = vec![
            "gemm", "--prec", "5", "--round", r, "--hex", "--alpha", "2,-1",
        ];
        if conj {
            args.extend(["--trans-a", "--conj"]);
        }
        args.extend([a.as_str(), b.as_str()]);
        let (h, m, n, v) = parse_out(&mparray(&args));
        assert_eq!(h, "%%MatrixMarket matrix array complex general");
        assert_eq!((m, n), (2, 2));
        let alpha = (q("2"), q("-1"));
        let mut got = Vec::new();
        for j in 0..2 {
            for i in 0..2 {
                let mut s = (Rational::from(0u32), Rational::from(0u32));
                for k in 0..2 {
                    let x = if conj {
                        let z = &aq[k * 2 + i];
                        (z.0.clone(), -z.1.clone())
                    } else {
                        aq[i * 2 + k].clone()
                    };
                    let p = mul(&alpha, &mul(&x, &bq[k * 2 + j]));
                    s.0 += p.0;
                    s.1 += p.1;
                }
                got.push(round(s.0, 5, rr.re));
                got.push(round(s.1, 5, rr.im));
            }
        }
        assert_eq!(v, got, "conj {conj}");
    }
    // By hand, A*B (53 bits, exact): row 0 = (1+2i)(4-i) + (-3+0.5i)(-5+6i)
    // = (6+7i) + (12-20.5i) = 18-13.5i.
    let (_, _, _, v) = parse_out(&mparray(&["gemm", "--prec", "53", "--hex", &a, &b]));
    assert_eq!(v[0..2], qs(&["18", "-13.5"])[..]);
}

#[test]
fn syrk_lower_with_c() {
    let t = Tmp::new();
    let a = t.real("a.mtx", 2, 3, &A23);
    let c_v = ["1", "2", "3", "4"];
    let c = t.real("c.mtx", 2, 2, &c_v);
    let o = mparray(&[
        "syrk", "--prec", "7", "--uplo", "lower", "--beta", "0.5", "--hex", &a, &c,
    ]);
    let (_, m, n, v) = parse_out(&o);
    assert_eq!((m, n), (2, 2));
    let aq = qs(&A23);
    let dot =
        |i: usize, j: usize| -> Rational { (0..3).map(|k| &aq[i * 3 + k] * &aq[j * 3 + k]).sum() };
    let half = q("0.5");
    let e = [
        round(dot(0, 0) + &half * q("1"), 7, Round::Nearest),
        // Upper off-diagonal: C's element.
        q("2"),
        round(dot(1, 0) + &half * q("3"), 7, Round::Nearest),
        round(dot(1, 1) + &half * q("4"), 7, Round::Nearest),
    ];
    assert_eq!(v, col_major(&e, 2, 2));
    // A^T*A without C: 3 x 3, the upper triangle +0.
    let o = mparray(&[
        "syrk",
        "--prec",
        "53",
        "--trans-a",
        "--uplo",
        "lower",
        "--hex",
        &a,
    ]);
    let (_, m, n, v) = parse_out(&o);
    assert_eq!((m, n), (3, 3));
    assert_eq!(v[3], q("0")); // (0, 1)
    assert_eq!(v[1], &aq[0] * &aq[1] + &aq[3] * &aq[4]); // (1, 0)
}

#[test]
fn dot_is_exact_under_cancellation() {
    let t = Tmp::new();
    let x = t.real("x.mtx", 4, 1, &["0x1p+100", "3", "-0x1p+100", "0x1p-60"]);
    let y = t.real("y.mtx", 4, 1, &["1", "1", "1", "1"]);
    let (_, m, n, v) = parse_out(&mparray(&["dot", "--prec", "53", "--hex", &x, &y]));
    assert_eq!((m, n), (1, 1));
    assert_eq!(
        v,
        vec![round(
            q("3") + Rational::from(2u32).pow(-60i64),
            53,
            Round::Nearest
        )]
    );
    // 1 bit, rounded up: 3 + 2^-60 -> 4.
    let (_, _, _, v) = parse_out(&mparray(&[
        "dot", "--prec", "2", "--round", "U", "--hex", &x, &y,
    ]));
    assert_eq!(v, qs(&["4"]));
    // Complex dotc: conj(1+i)*(1+i) + conj(2i)*(3) = 2 - 6i.
    let zx = t.complex("zx.mtx", 2, 1, &[("1", "1"), ("0", "2")]);
    let zy = t.complex("zy.mtx", 2, 1, &[("1", "1"), ("3", "0")]);
    let (_, _, _, v) = parse_out(&mparray(&[
        "dot", "--prec", "20", "--conj", "--hex", &zx, &zy,
    ]));
    assert_eq!(v, qs(&["2", "-6"]));
    // dotu: (1+i)^2 + 6i = 8i.
    let (_, _, _, v) = parse_out(&mparray(&["dot", "--prec", "20", "--hex", &zx, &zy]));
    assert_eq!(v, qs(&["0", "8"]));
}

#[test]
fn axpy_rounds_once_per_element() {
    let t = Tmp::new();
    let xv = ["1", "3", "-5", "0.1"];
    let yv = ["7", "0.001", "5", "-1e-3"];
    let x = t.real("x.mtx", 4, 1, &xv);
    let y = t.real("y.mtx", 4, 1, &yv);
    let p = 24;
    let o = mparray(&[
        "axpy", "--prec", "24", "--alpha", "0.3", "--round", "D", "--hex", &x, &y,
    ]);
    let (_, m, n, v) = parse_out(&o);
    assert_eq!((m, n), (4, 1));
    let rn = |s: &str| round(q(s), p, Round::Nearest); // inputs rounded to nearest
    let alpha = rn("0.3");
    let e: Vec<_> = (0..4)
        .map(|i| round(&alpha * rn(xv[i]) + rn(yv[i]), p, Round::Down))
        .collect();
    assert_eq!(v, e);
}

#[test]
fn gemv_trans_with_y() {
    let t = Tmp::new();
    let a = t.real("a.mtx", 2, 3, &A23);
    let x = t.real("x.mtx", 2, 1, &["1", "-2"]);
    let y = t.real("y.mtx", 3, 1, &["10", "20", "30"]);
    let o = mparray(&[
        "gemv",
        "--prec",
        "9",
        "--trans-a",
        "--alpha",
        "-1",
        "--beta",
        "2",
        "--hex",
        &a,
        &x,
        &y,
    ]);
    let (_, m, n, v) = parse_out(&o);
    assert_eq!((m, n), (3, 1));
    let aq = qs(&A23);
    let (xq, yq) = (qs(&["1", "-2"]), qs(&["10", "20", "30"]));
    let e: Vec<_> = (0..3)
        .map(|j| {
            let s: Rational = (0..2).map(|i| -(&aq[i * 3 + j] * &xq[i])).sum();
            round(s + q("2") * &yq[j], 9, Round::Nearest)
        })
        .collect();
    assert_eq!(v, e);
    // Decimal output by default.
    let x3 = t.real("x3.mtx", 3, 1, &["1", "-2", "0.5"]);
    let o = mparray(&["gemv", "--prec", "53", "--digits", "5", &a, &x3]);
    let s = String::from_utf8(o.stdout).unwrap();
    assert_eq!(
        s,
        "%%MatrixMarket matrix array real general\n2 1\n2.2500e+01\n-2.6625e+01\n"
    );
}

/// Runs `args`, expects status 2 and a message containing `want`.
fn fails(args: &[&str], want: &str) {
    let o = mparray(args);
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(2), "{args:?}: {err}");
    assert!(err.contains(want), "{args:?}: expected {want:?} in {err:?}");
    assert!(o.stdout.is_empty());
}

#[test]
fn bad_inputs_exit_2_with_file_and_line() {
    let t = Tmp::new();
    let a = t.real("a.mtx", 2, 3, &A23);
    let b = t.real("b.mtx", 3, 2, &B32);
    let hdr = t.file(
        "hdr.mtx",
        "%%MatrixMarket matrix coordinate real general\n1 1 1\n1 1 5\n",
    );
    fails(&["gemm", "--prec", "53", &hdr, &b], &format!("{hdr}:1:"));
    let hdr2 = t.file(
        "hdr2.mtx",
        "%%MatrixMarket matrix array real general\n2 1\n1\n2\n",
    );
    let junk = t.file("junk.mtx", "hello\n");
    fails(
        &["gemm", "--prec", "53", &hdr2, &junk],
        &format!("{junk}:1:"),
    );
    // Wrong count: named at the size line (after a comment and a blank).
    let count = t.file(
        "count.mtx",
        "%%MatrixMarket matrix array real general\n% c\n\n3 2\n1\n2\n3\n4\n5\n",
    );
    fails(
        &["gemm", "--prec", "53", &a, &count],
        &format!("{count}:4: 3 x 2 needs 6 values, found 5"),
    );
    // Bad number at its line.
    let num = t.file(
        "num.mtx",
        "%%MatrixMarket matrix array real general\n3 2\n1\n2\n1.2.3\n4\n5\n6\n",
    );
    fails(
        &["gemm", "--prec", "53", &a, &num],
        &format!("{num}:5: cannot parse \"1.2.3\""),
    );
    // Shape mismatches name the file and its size line.
    fails(&["gemm", "--prec", "53", &a, &a], &format!("{a}:2:"));
    let c = t.real("c.mtx", 3, 3, &["0"; 9]);
    fails(
        &["gemm", "--prec", "53", &a, &b, &c],
        &format!("{c}:2: C is 3 x 3"),
    );
    let x = t.real("x.mtx", 2, 1, &["1", "2"]);
    fails(
        &["gemv", "--prec", "53", &a, &x],
        &format!("{x}:2: x has 2 elements"),
    );
    fails(
        &["dot", "--prec", "53", &a, &x],
        &format!("{a}:2: x must be a vector"),
    );
    let z = t.complex("z.mtx", 3, 2, &[("1", "0"); 6]);
    fails(
        &["gemm", "--prec", "53", &a, &z],
        &format!("{z}:1: a complex matrix"),
    );
    fails(
        &["syrk", "--prec", "53", &z],
        &format!("{z}:1: syrk needs a real matrix"),
    );
    // Bad options.
    fails(&["gemm", "--prec", "53", "--alpha", "x", &a, &b], "--alpha");
    fails(
        &["gemm", "--prec", "53", "--beta", "2", &a, &b],
        "--beta needs",
    );
    fails(&["dot", "--prec", "53", &x], "dot needs 2 files");
    let missing = t.0.join("missing.mtx").display().to_string();
    fails(&["dot", "--prec", "53", &missing, &x], "missing.mtx");
}
