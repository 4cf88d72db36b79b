//! `mparray roots` and `mparray gmres` end to end: roots of generated and
//! file polynomials checked exactly (Wilkinson roots near 1..n, the
//! printed residual bounds against exact rational evaluation), GMRES on a
//! small system checked with rationals, bad input exiting with status 2,
//! and `bench solvers --quick` on a tiny case.
mod common;

use std::process::{Command, Output};

use malachite_base::num::arithmetic::traits::Abs;
use malachite_q::Rational;
use std::str::FromStr;

use common::Tmp;

fn run(args: &[&str]) -> Output {
    Command::new(common::mparray_bin())
        .args(args)
        .output()
        .expect("running mparray")
}

fn stdout(o: &Output) -> String {
    assert!(
        o.status.success(),
        "status {:?}: {}",
        o.status,
        String::from_utf8_lossy(&o.stderr)
    );
    String::from_utf8(o.stdout.clone()).unwrap()
}

/// A decimal string (`1.5e-3`) as an exact rational.
fn rat(s: &str) -> Rational {
    let (m, e) = match s.split_once(['e', 'E']) {
        Some((m, e)) => (m, e.parse::<i64>().unwrap()),
        None => (s, 0),
    };
    let neg = m.starts_with('-');
    let m = m.trim_start_matches(['-', '+']);
    let (i, f) = m.split_once('.').unwrap_or((m, ""));
    let digits = Rational::from_str(&format!("{i}{f}")).unwrap();
    let scale = e - f.len() as i64;
    let ten = Rational::from(10u32);
    let mut v = digits;
    if scale >= 0 {
        for _ in 0..scale {
            v *= &ten;
        }
    } else {
        for _ in 0..-scale {
            v /= &ten;
        }
    }
    if neg { -v } else { v }
}

/// The root lines: (re, im, bound, converged).
fn root_lines(out: &str) -> Vec<(Rational, Rational, Rational, bool)> {
    out.lines()
        .filter(|l| !l.starts_with('#'))
        .map(|l| {
            let w: Vec<&str> = l.split_whitespace().collect();
            assert_eq!(w.len(), 4, "{l}");
            (rat(w[0]), rat(w[1]), rat(w[2]), w[3] == "yes")
        })
        .collect()
}

#[test]
fn roots_of_wilkinson_and_of_a_file() {
    for method in ["aberth", "sts"] {
        let o = run(&[
            "roots",
            "--problem",
            "wilkinson",
            "--n",
            "12",
            "--prec",
            "128",
            "--method",
            method,
            "--engine",
            "cpu",
        ]);
        let out = stdout(&o);
        assert!(out.contains("converged 12/12"), "{out}");
        let mut seen = [false; 13];
        for (re, im, _, conv) in root_lines(&out) {
            assert!(conv);
            let k = (0..=12)
                .min_by_key(|&k| (&re - Rational::from(k)).abs())
                .unwrap();
            assert!((&re - Rational::from(k)).abs() < rat("1e-20"), "{re}");
            assert!(im.abs() < rat("1e-20"));
            assert!(!seen[k as usize]);
            seen[k as usize] = true;
        }
    }
    // z^3 - 2z + 1/2 from a file (a_0 first, a comment, a complex zero).
    let t = Tmp::new();
    let f = t.0.join("p.txt");
    std::fs::write(&f, "# a_0 .. a_3\n0.5\n-2 0\n\n0\n1 0\n").unwrap();
    let out = stdout(&run(&[
        "roots",
        "--coeffs",
        f.to_str().unwrap(),
        "--prec",
        "100",
        "--engine",
        "cpu",
        "--method",
        "sts",
        "--order",
        "3",
    ]));
    let c = [rat("0.5"), rat("-2"), rat("0"), rat("1")];
    let rows = root_lines(&out);
    assert_eq!(rows.len(), 3);
    for (re, im, bound, conv) in rows {
        assert!(conv);
        // |p(x)|^2 <= bound^2, exactly, for the printed (rounded) root is
        // not what was bounded; the printed digits are exact here
        // (--digits 0), so the check is exact.
        let (mut sr, mut si) = (c[3].clone(), Rational::from(0u32));
        for k in (0..3).rev() {
            let (a, b) = (&sr * &re - &si * &im, &sr * &im + &si * &re);
            sr = a + &c[k];
            si = b;
        }
        assert!(&sr * &sr + &si * &si <= &bound * &bound, "bound {bound}");
    }
}

#[test]
fn roots_bad_input_exits_2() {
    let t = Tmp::new();
    let cases: [(&str, &str); 4] = [
        ("lead0.txt", "1\n2\n0\n"),
        ("deg0.txt", "5\n"),
        ("bad.txt", "1\n2 3 4\n"),
        ("nan.txt", "1\n1e\n"),
    ];
    let wants = ["leading coefficient", "degree 0", "bad.txt:2", "nan.txt:2"];
    for ((name, text), want) in cases.iter().zip(wants) {
        let f = t.0.join(name);
        std::fs::write(&f, text).unwrap();
        let o = run(&[
            "roots",
            "--coeffs",
            f.to_str().unwrap(),
            "--prec",
            "64",
            "--engine",
            "cpu",
        ]);
        assert_eq!(o.status.code(), Some(2), "{name}");
        let e = String::from_utf8_lossy(&o.stderr);
        assert!(e.contains(want), "{name}: {e}");
    }
    let o = run(&[
        "roots",
        "--problem",
        "wilkinson",
        "--n",
        "0",
        "--prec",
        "64",
        "--engine",
        "cpu",
    ]);
    assert_eq!(o.status.code(), Some(2));
    // Non-convergence is reported, not an error.
    let o = run(&[
        "roots",
        "--problem",
        "chebyshev",
        "--n",
        "10",
        "--prec",
        "64",
        "--max-iter",
        "1",
        "--engine",
        "cpu",
    ]);
    assert!(stdout(&o).contains("NOT CONVERGED"));
}

fn mtx(t: &Tmp, name: &str, rows: usize, cols: usize, colmajor: &[&str]) -> String {
    let mut s = format!("%%MatrixMarket matrix array real general\n{rows} {cols}\n");
    for v in colmajor {
        s += v;
        s += "\n";
    }
    let p = t.0.join(name);
    std::fs::write(&p, s).unwrap();
    p.display().to_string()
}

#[test]
fn gmres_solves_and_reports() {
    let t = Tmp::new();
    // A = [[4, 1], [2, 3]] (column-major 4 2 1 3), b = (1, 2): x = (0.1, 0.6).
    let a = mtx(&t, "a.mtx", 2, 2, &["4", "2", "1", "3"]);
    let b = mtx(&t, "b.mtx", 2, 1, &["1", "2"]);
    let out = stdout(&run(&[
        "gmres",
        "--prec",
        "200",
        "--restart",
        "2",
        "--engine",
        "cpu",
        &a,
        &b,
    ]));
    assert!(
        out.starts_with("%%MatrixMarket matrix array real general\n"),
        "{out}"
    );
    assert!(out.contains("% converged"), "{out}");
    assert!(out.contains("% step 1 relative residual estimate"));
    assert!(out.contains("% restart 0 true relative residual 1.0"));
    let vals: Vec<Rational> = out
        .lines()
        .filter(|l| !l.starts_with('%'))
        .skip(1)
        .map(rat)
        .collect();
    assert_eq!(vals.len(), 2);
    assert!((&vals[0] - rat("0.1")).abs() < rat("1e-30"));
    assert!((&vals[1] - rat("0.6")).abs() < rat("1e-30"));
    // Complex: A = [[1+i, 0], [1, 2]], b = (2, 3): x = (1 - i, (2 + i)/2).
    let cm = |name: &str, rows: usize, cols: usize, v: &[&str]| {
        let mut s = format!("%%MatrixMarket matrix array complex general\n{rows} {cols}\n");
        for x in v {
            s += x;
            s += "\n";
        }
        let p = t.0.join(name);
        std::fs::write(&p, s).unwrap();
        p.display().to_string()
    };
    let ca = cm("ca.mtx", 2, 2, &["1 1", "1 0", "0 0", "2 0"]);
    let cb = cm("cb.mtx", 2, 1, &["2 0", "3 0"]);
    let out = stdout(&run(&[
        "gmres",
        "--prec",
        "200",
        "--restart",
        "2",
        "--engine",
        "cpu",
        &ca,
        &cb,
    ]));
    assert!(
        out.starts_with("%%MatrixMarket matrix array complex general\n"),
        "{out}"
    );
    assert!(out.contains("% converged"), "{out}");
    let vals: Vec<(Rational, Rational)> = out
        .lines()
        .filter(|l| !l.starts_with('%'))
        .skip(1)
        .map(|l| {
            let w: Vec<&str> = l.split_whitespace().collect();
            (rat(w[0]), rat(w[1]))
        })
        .collect();
    let want = [(rat("1"), rat("-1")), (rat("1"), rat("0.5"))];
    for (g, w) in vals.iter().zip(&want) {
        assert!(
            (&g.0 - &w.0).abs() < rat("1e-30") && (&g.1 - &w.1).abs() < rat("1e-30"),
            "{out}"
        );
    }
    // Modified Gram-Schmidt gives the same solution to 1e-30; an unknown
    // orthogonalisation exits with 2.
    let out = stdout(&run(&[
        "gmres",
        "--prec",
        "200",
        "--restart",
        "2",
        "--ortho",
        "mgs",
        "--engine",
        "cpu",
        &a,
        &b,
    ]));
    assert!(out.contains("% converged"), "{out}");
    let vals: Vec<Rational> = out
        .lines()
        .filter(|l| !l.starts_with('%'))
        .skip(1)
        .map(rat)
        .collect();
    assert!((&vals[0] - rat("0.1")).abs() < rat("1e-30"));
    assert!((&vals[1] - rat("0.6")).abs() < rat("1e-30"));
    let o = run(&["gmres", "--prec", "64", "--ortho", "householder", &a, &b]);
    assert_eq!(o.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&o.stderr).contains("dgks, cgs2 or mgs"));
    // Bad shapes exit with 2.
    let r = mtx(&t, "r.mtx", 2, 3, &["1", "2", "3", "4", "5", "6"]);
    let o = run(&["gmres", "--prec", "64", "--engine", "cpu", &r, &b]);
    assert_eq!(o.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&o.stderr).contains("square"));
    let b3 = mtx(&t, "b3.mtx", 3, 1, &["1", "2", "3"]);
    let o = run(&["gmres", "--prec", "64", "--engine", "cpu", &a, &b3]);
    assert_eq!(o.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&o.stderr).contains("3 rows"));
}

#[test]
fn bench_solvers_tiny() {
    let out = stdout(&run(&[
        "bench",
        "solvers",
        "--engine",
        "cpu",
        "--n",
        "8",
        "--precs",
        "128",
        "--gmres-n",
        "8",
        "--step-n",
        "16",
        "--step-m",
        "4",
        "--json",
    ]));
    let v: serde_json::Value = serde_json::from_str(out.trim()).unwrap();
    let roots = v["roots"].as_array().unwrap();
    assert_eq!(roots.len(), 4);
    assert!(roots.iter().all(|r| r["ok"] == true));
    let gm = v["gmres"].as_array().unwrap();
    assert_eq!(gm.len(), 2);
    assert!(gm.iter().any(|r| r["converged"] == true));
    // One GMRES cycle per orthogonalisation, timed against one gemv, its
    // true residual checked against the estimate.
    let st = v["gmres_step"].as_array().unwrap();
    assert_eq!(st.len(), 3);
    for r in st {
        assert_eq!(r["ok"], true, "{r}");
        assert_eq!(r["n"], 16);
        assert!(r["ratio_mean"].as_f64().unwrap() > 0.0, "{r}");
    }
}

/// GMRES's execution paths (the Givens work overlapped or not, the DGKS
/// step's deferred checks, every step redone as after an undecided
/// product, and no deferral) give the same bits: x, every estimate, every
/// true residual (a random `R + 2 sqrt(n) I`, several restarts).
#[test]
fn gmres_paths_give_the_same_bits() {
    let t = Tmp::new();
    let n = 24;
    let mut s = common::seed() | 1;
    let mut next = || {
        // xorshift64: uniform decimals in (-1, 1) with 17 digits.
        s ^= s << 13;
        s ^= s >> 7;
        s ^= s << 17;
        let v = (s >> 11) as f64 / (1u64 << 53) as f64 * 2.0 - 1.0;
        format!("{v:.17e}")
    };
    let shift = 2.0 * (n as f64).sqrt();
    let a: Vec<String> = (0..n * n)
        .map(|k| {
            let v = next();
            if k / n == k % n {
                format!("{:.17e}", v.parse::<f64>().unwrap() + shift)
            } else {
                v
            }
        })
        .collect();
    let b: Vec<String> = (0..n).map(|_| next()).collect();
    let a = mtx(
        &t,
        "a.mtx",
        n,
        n,
        &a.iter().map(|s| s.as_str()).collect::<Vec<_>>(),
    );
    let b = mtx(
        &t,
        "b.mtx",
        n,
        1,
        &b.iter().map(|s| s.as_str()).collect::<Vec<_>>(),
    );
    let runs: Vec<String> = [
        vec![],
        vec![("MPARRAY_GMRES_OVERLAP", "1")],
        vec![("MPARRAY_GMRES_OVERLAP", "1"), ("MPARRAY_GMRES_REDO", "1")],
        vec![("MPARRAY_GMRES_OVERLAP", "0"), ("MPARRAY_GMRES_REDO", "1")],
        vec![("MPARRAY_GMRES_OVERLAP", "1"), ("MPARRAY_GMRES_DEFER", "0")],
    ]
    .iter()
    .map(|env| {
        let o = Command::new(common::mparray_bin())
            .args([
                "gmres",
                "--prec",
                "192",
                "--restart",
                "5",
                "--tol",
                "1e-40",
                "--engine",
                "cpu",
                &a,
                &b,
            ])
            .envs(env.iter().copied())
            .output()
            .expect("running mparray");
        // The first line has the time.
        let out = stdout(&o);
        assert!(out.contains("% converged"), "{env:?}: {out}");
        out.lines().skip(2).collect::<Vec<_>>().join("\n")
    })
    .collect();
    for (i, r) in runs.iter().enumerate() {
        assert_eq!(r, &runs[0], "run {i}");
    }
}
