//! The CLI across MPI ranks (feature `mpi`): `mpirun -np 1..4
//! --oversubscribe` on the built binary, every output compared with the
//! single-process run's bytes and with an exact reference (malachite):
//! int and float batches split by lines, gemm on a grid of ranks, huge mul
//! by the distributed NTT; errors on a rank, a killed rank. Needs `mpirun`
//! (OpenMPI) on the PATH.
#![cfg(feature = "mpi")]

mod common;

use std::process::{Command, Output};

use common::{Rng, Tmp};
use malachite_base::num::arithmetic::traits::Pow;
use malachite_base::num::conversion::traits::FromStringBase;
use malachite_base::rounding_modes::RoundingMode;
use malachite_float::Float;
use malachite_nz::integer::Integer;
use malachite_nz::natural::Natural;
use malachite_q::Rational;

/// `mparray ARGS` under `mpirun -np NP` (0: without mpirun), bounded by a
/// timeout so that a hang fails the test (status 124) instead of blocking.
fn run(np: usize, args: &[&str], env: &[(&str, &str)]) -> Output {
    let bin = env!("CARGO_BIN_EXE_mparray");
    let mut c = Command::new("timeout");
    c.args(["-k", "5", "120"]);
    if np > 0 {
        c.args(["mpirun", "--allow-run-as-root", "--oversubscribe", "-np"])
            .arg(np.to_string());
    }
    c.arg(bin).args(args);
    for (k, v) in env {
        c.env(k, v);
    }
    // One thread per rank: the ranks share the cores. No single-copy
    // shared memory (CMA needs ptrace rights that containers often lack).
    c.env("RAYON_NUM_THREADS", "1")
        .env("OMPI_MCA_btl_vader_single_copy_mechanism", "none");
    c.output()
        .expect("running timeout/mpirun (coreutils and OpenMPI)")
}

fn ok(o: &Output) -> String {
    assert!(
        o.status.success(),
        "status {:?}: {}",
        o.status,
        String::from_utf8_lossy(&o.stderr)
    );
    String::from_utf8(o.stdout.clone()).unwrap()
}

/// Runs `args` on one process and on 1..=4 ranks: the same bytes; returns
/// the single-process output.
fn same_on_1_to_4(args: &[&str]) -> String {
    let one = ok(&run(0, args, &[]));
    for np in 1..=4 {
        let o = ok(&run(np, args, &[]));
        assert_eq!(o, one, "mpirun -np {np} differs from one process: {args:?}");
    }
    one
}

fn write(t: &Tmp, name: &str, text: &str) -> String {
    let p = t.0.join(name);
    std::fs::write(&p, text).unwrap();
    p.display().to_string()
}

/// A hex float (`0x1.8p+3`, `-0x0p+0`) as a rational.
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

fn round(v: Rational, p: u64) -> Rational {
    if v == 0u32 {
        return v;
    }
    let (f, _) = Float::from_rational_prec_round(v, p, RoundingMode::Nearest);
    Rational::try_from(&f).unwrap()
}

/// A random dyadic value `m * 2^e` (`m` below 2^40, sometimes 0) as a hex
/// float, exact at 64 bits and more.
fn dyadic(r: &mut Rng) -> String {
    let m = r.below(1 << 40) >> r.below(40);
    let e = r.range(-70, 70);
    let s = if r.below(2) == 0 { "" } else { "-" };
    format!("{s}{m:#x}p{e}")
}

#[test]
fn int_batches_split_by_lines() {
    let mut r = Rng(common::seed());
    let t = Tmp::new();
    // 37 lines: uneven blocks on 2..4 ranks; edge values included.
    let n = 37;
    let mut a = Vec::new();
    let mut b = Vec::new();
    for i in 0..n {
        let x = match i {
            0 => Natural::from(0u32),
            1 => common::modulus(128) - Natural::from(1u32),
            _ => (Natural::from(r.next()) * Natural::from(r.next())) >> r.below(64),
        };
        let y = match i {
            2 => common::modulus(128) - Natural::from(1u32),
            _ => Natural::from(r.next()) + Natural::from(1u32),
        };
        a.push(x);
        b.push(y);
    }
    let lines = |v: &[Natural]| v.iter().map(|x| format!("{x}\n")).collect::<String>();
    let (fa, fb) = (write(&t, "a", &lines(&a)), write(&t, "b", &lines(&b)));
    let out = same_on_1_to_4(&["int", "mul", "--bits", "128", "--engine", "cpu", &fa, &fb]);
    let m = common::modulus(128);
    for (i, l) in out.lines().enumerate() {
        assert_eq!(l, (&a[i] * &b[i] % &m).to_string(), "line {}", i + 1);
    }
    assert_eq!(out.lines().count(), n);
    let out = same_on_1_to_4(&[
        "int", "divrem", "--bits", "128", "--engine", "cpu", &fa, &fb,
    ]);
    for (i, l) in out.lines().enumerate() {
        let want = format!("{} {}", &a[i] / &b[i], &a[i] % &b[i]);
        assert_eq!(l, want, "line {}", i + 1);
    }
    // Fewer lines than ranks, and an empty file.
    let (f1, e) = (write(&t, "one", "7\n"), write(&t, "empty", ""));
    assert_eq!(
        same_on_1_to_4(&["int", "add", "--bits", "64", "--engine", "cpu", &f1, &f1]),
        "14\n"
    );
    assert_eq!(
        same_on_1_to_4(&["int", "add", "--bits", "64", "--engine", "cpu", &e, &e]),
        ""
    );
}

#[test]
fn float_batches_split_by_lines() {
    let mut r = Rng(common::seed());
    let t = Tmp::new();
    let n = 23;
    let a: Vec<String> = (0..n).map(|_| dyadic(&mut r)).collect();
    let b: Vec<String> = (0..n).map(|_| dyadic(&mut r)).collect();
    let (fa, fb) = (
        write(&t, "a", &(a.join("\n") + "\n")),
        write(&t, "b", &(b.join("\n") + "\n")),
    );
    let p = 30;
    let ps = p.to_string();
    let out = same_on_1_to_4(&[
        "float",
        "mul",
        "--prec",
        &ps,
        "--in-prec",
        "64",
        "--hex",
        "--engine",
        "cpu",
        &fa,
        &fb,
    ]);
    for (i, l) in out.lines().enumerate() {
        assert_eq!(hex(l), round(hex(&a[i]) * hex(&b[i]), p), "line {}", i + 1);
    }
    // A function and the ternary values: the single-process bytes.
    same_on_1_to_4(&[
        "float",
        "exp",
        "--prec",
        "150",
        "--ternary",
        "--engine",
        "cpu",
        &fb,
    ]);
}

#[test]
fn gemm_on_grids_of_ranks() {
    let mut r = Rng(common::seed());
    let t = Tmp::new();
    let mm = |name: &str, rows: usize, cols: usize, v: &[String]| {
        // Matrix Market arrays are column-major; `v` is row-major.
        let mut s = format!("%%MatrixMarket matrix array real general\n{rows} {cols}\n");
        for j in 0..cols {
            for i in 0..rows {
                s.push_str(&v[i * cols + j]);
                s.push('\n');
            }
        }
        write(&t, name, &s)
    };
    // (m, k, n): degenerate, uneven over every grid (1x2, 1x3, 2x2), tall.
    for &(m, k, n) in &[(1, 1, 1), (5, 7, 3), (9, 4, 11), (2, 13, 1)] {
        let a: Vec<String> = (0..m * k).map(|_| dyadic(&mut r)).collect();
        let b: Vec<String> = (0..k * n).map(|_| dyadic(&mut r)).collect();
        let c: Vec<String> = (0..m * n).map(|_| dyadic(&mut r)).collect();
        let at: Vec<String> = (0..k * m).map(|x| a[(x % m) * k + x / m].clone()).collect();
        let (fa, fat, fb, fc) = (
            mm("a", m, k, &a),
            mm("at", k, m, &at),
            mm("b", k, n, &b),
            mm("c", m, n, &c),
        );
        let p = 40u64;
        let ps = p.to_string();
        let base = ["blas", "gemm", "--prec", &ps, "--hex", "--engine", "cpu"];
        let scal = ["--alpha", "-3", "--beta", "0.5"];
        let o1 = same_on_1_to_4(&[&base[..], &scal, &[&fa, &fb, &fc]].concat());
        let o2 = same_on_1_to_4(&[&base[..], &scal, &["--trans-a", &fat, &fb, &fc]].concat());
        assert_eq!(o1, o2, "op(A) = A^T of A^T is A");
        // The reference: exact sums rounded once (inputs are exact at 64
        // bits, read at 40: rounded first, as the CLI does).
        let q = |s: &String| round(hex(s), p);
        let vals: Vec<Rational> = o1.lines().skip(2).map(hex).collect();
        for i in 0..m {
            for j in 0..n {
                let mut s = Rational::from(0u32);
                for kk in 0..k {
                    s += Rational::from(-3) * q(&a[i * k + kk]) * q(&b[kk * n + j]);
                }
                s += Rational::from_string_base(10, "1/2").unwrap() * q(&c[i * n + j]);
                assert_eq!(vals[j * m + i], round(s, p), "({i}, {j}) of {m}x{k}x{n}");
            }
        }
    }
}

#[test]
fn huge_mul_by_the_distributed_ntt() {
    let mut r = Rng(common::seed());
    let t = Tmp::new();
    // Limb counts: one limb, uneven, around powers of two, all-ones limbs
    // (the largest coefficients), large enough for the transform's global
    // stages, and a zero.
    for &(an, bn, ones) in &[
        (1, 1, false),
        (3, 1, false),
        (17, 9, false),
        (64, 64, true),
        (1000, 333, false),
        (4096, 4097, true),
        // Transforms of 2^14..2^15 points per rank: the global stages
        // above the 2^13-point blocks.
        (20000, 19999, true),
        (0, 5, false),
    ] {
        let limbs = |n: usize, r: &mut Rng| -> Vec<u64> {
            (0..n)
                .map(|_| if ones { u64::MAX } else { r.next() })
                .collect()
        };
        let (x, y) = (
            Natural::from_limbs_asc(&limbs(an, &mut r)),
            Natural::from_limbs_asc(&limbs(bn, &mut r)),
        );
        let fa = write(&t, "a", &format!("{x:#x}\n"));
        let fb = write(&t, "b", &format!("{y:#x}\n"));
        let out = same_on_1_to_4(&["huge", "mul", "--engine", "cpu", &fa, &fb]);
        let got = out.trim();
        let got = Natural::from_string_base(16, got.strip_prefix("0x").unwrap_or(got)).unwrap();
        assert_eq!(got, &x * &y, "{an} x {bn} limbs");
    }
    // A rank count whose odd part does not divide 315 is refused cleanly.
    let f = write(&t, "s", "12345\n");
    let o = run(11, &["huge", "mul", &f, &f], &[]);
    assert_eq!(
        o.status.code(),
        Some(2),
        "{}",
        String::from_utf8_lossy(&o.stderr)
    );
    assert!(String::from_utf8_lossy(&o.stderr).contains("315"));
}

/// The ranks read their blocks of hex operands by byte offset and write
/// the hex product piece by piece: the bytes of one process for leading
/// zeros, upper-case digits, white space and a byte-order mark around the
/// number, `-o FILE`, `--dec` (gathered on rank 0) and decimal operands
/// (read by rank 0); a bad byte in either operand, wherever it falls,
/// gives one process's message and status 2; a failing rank names itself.
#[test]
fn huge_mul_reads_and_writes_in_blocks() {
    let mut r = Rng(common::seed());
    let t = Tmp::new();
    let limbs = |n: usize, r: &mut Rng| -> Vec<u64> { (0..n).map(|_| r.next()).collect() };
    let x = Natural::from_limbs_asc(&limbs(301, &mut r));
    let y = Natural::from_limbs_asc(&limbs(77, &mut r));
    let xy = &x * &y;
    let hx = format!("{x:x}");
    let fa = write(
        &t,
        "a",
        &format!("\u{feff} \n\t0x0000{}\n\n", hx.to_uppercase()),
    );
    let fb = write(&t, "b", &format!("0X{y:x}"));
    let out = same_on_1_to_4(&["huge", "mul", "--engine", "cpu", &fa, &fb]);
    assert_eq!(out, format!("{xy:#x}\n"));
    let out = same_on_1_to_4(&["huge", "mul", "--dec", &fa, &fb]);
    assert_eq!(out, format!("{xy}\n"));
    let fd = write(&t, "d", &format!("{x}\n"));
    let out = same_on_1_to_4(&["huge", "mul", &fd, &fb]);
    assert_eq!(out, format!("{xy}\n"));
    let out = same_on_1_to_4(&["huge", "mul", "--hex", &fd, &fb]);
    assert_eq!(out, format!("{xy:#x}\n"));
    // A zero product, and -o FILE.
    let fz = write(&t, "z", "0x000\n");
    assert_eq!(same_on_1_to_4(&["huge", "mul", &fz, &fb]), "0x0\n");
    for np in [0, 3] {
        let o = t.0.join(format!("o{np}"));
        ok(&run(
            np,
            &["huge", "mul", &fa, &fb, "-o", o.to_str().unwrap()],
            &[],
        ));
        assert_eq!(std::fs::read_to_string(&o).unwrap(), format!("{xy:#x}\n"));
    }
    // Bad bytes: near the top (the last rank's block), in the middle, in the
    // lowest digits, white space inside; in A, or only in B.
    let digits = format!("{:x}", &xy);
    for (which, at, c) in [
        (0, 3, "g"),
        (0, 2000, "\u{e9}"),
        (1, digits.len() - 1, " "),
        (1, 900, "z"),
    ] {
        let mut d = digits.clone();
        d.insert_str(at, c);
        let bad = write(&t, "bad", &format!("\n0x{d}\n"));
        let args: Vec<&str> = if which == 0 {
            vec!["huge", "mul", &bad, &fb]
        } else {
            vec!["huge", "mul", &fa, &bad]
        };
        let one = run(0, &args, &[]);
        assert_eq!(one.status.code(), Some(2));
        let want = String::from_utf8_lossy(&one.stderr).into_owned();
        for np in [2, 4] {
            let o = run(np, &args, &[]);
            assert_eq!(o.status.code(), Some(2), "np {np}");
            assert!(o.stdout.is_empty());
            let e = String::from_utf8_lossy(&o.stderr);
            assert!(
                e.contains(want.trim()),
                "np {np}: {e} (one process: {want})"
            );
        }
    }
    let o = run(
        3,
        &["huge", "mul", &fa, &fb],
        &[("MPARRAY_MPI_TEST_FAIL", "2:error")],
    );
    assert_eq!(o.status.code(), Some(1));
    assert!(
        String::from_utf8_lossy(&o.stderr).contains("mparray: error: rank 2: injected failure")
    );
    assert!(o.stdout.is_empty());
}

#[test]
fn errors_reach_rank_0_and_a_killed_rank_ends_the_job() {
    let t = Tmp::new();
    let a = write(
        &t,
        "a",
        &(1..=20).map(|i| format!("{i}\n")).collect::<String>(),
    );
    // Line 19 is in the last rank's block.
    let bad: String = (1..=20)
        .map(|i| {
            if i == 19 {
                "12x\n".into()
            } else {
                format!("{i}\n")
            }
        })
        .collect();
    let b = write(&t, "b", &bad);
    let args = ["int", "add", "--bits", "64", "--engine", "cpu", &a, &b];
    let one = run(0, &args, &[]);
    let want = String::from_utf8_lossy(&one.stderr).into_owned();
    assert_eq!(one.status.code(), Some(2));
    assert!(want.contains(":19: cannot parse"), "{want}");
    for np in [2, 4] {
        let o = run(np, &args, &[]);
        assert_eq!(o.status.code(), Some(2), "np {np}");
        let e = String::from_utf8_lossy(&o.stderr);
        assert!(e.contains(want.trim()), "np {np}: {e}");
        assert!(o.stdout.is_empty());
    }
    // A failure on rank 2 (of the batch, of gemm) names the rank, status 1.
    let good = ["int", "add", "--bits", "64", "--engine", "cpu", &a, &a];
    let o = run(3, &good, &[("MPARRAY_MPI_TEST_FAIL", "2:error")]);
    assert_eq!(o.status.code(), Some(1));
    assert!(
        String::from_utf8_lossy(&o.stderr).contains("mparray: error: rank 2: injected failure")
    );
    let m = write(
        &t,
        "m",
        "%%MatrixMarket matrix array real general\n2 2\n1\n2\n3\n4\n",
    );
    let o = run(
        4,
        &["blas", "gemm", "--prec", "53", "--engine", "cpu", &m, &m],
        &[("MPARRAY_MPI_TEST_FAIL", "2:error")],
    );
    assert_eq!(o.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&o.stderr).contains("rank 2: injected failure"));
    // Rank 1 killed by SIGKILL mid-run: the job ends with an error (not the
    // timeout's 124), within the timeout.
    let o = run(
        3,
        &good,
        &[
            ("MPARRAY_MPI_TEST_FAIL", "1:kill"),
            ("MPARRAY_MPI_TIMEOUT", "60"),
        ],
    );
    let code = o.status.code();
    assert!(code != Some(0) && code != Some(124), "status {code:?}");
    let e = String::from_utf8_lossy(&o.stderr);
    assert!(
        e.contains("signal 9") || e.contains("MPARRAY_MPI_TIMEOUT"),
        "{e}"
    );
}
