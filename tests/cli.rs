//! The `mparray` binary end to end: the batch calculator on random files
//! against malachite, its handling of bad input (exit status 2, file:line in
//! the message), and `info` / `kernels list`.
mod common;
use common::Rng;

use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

use malachite_base::num::arithmetic::traits::{DivMod, Pow};
use malachite_nz::natural::Natural;

use common::Tmp;

impl Tmp {
    /// Writes `bytes` to a file named `name` in the folder.
    fn file(&self, name: &str, bytes: impl AsRef<[u8]>) -> PathBuf {
        let p = self.0.join(name);
        std::fs::write(&p, bytes).unwrap();
        p
    }
}

fn bin() -> std::path::PathBuf {
    common::mparray_bin()
}

fn mparray(args: &[&str]) -> Output {
    Command::new(bin())
        .args(args)
        .output()
        .expect("running mparray")
}

fn stdout(o: &Output) -> String {
    String::from_utf8(o.stdout.clone()).expect("stdout is UTF-8")
}

fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

/// Runs `mparray int ...` and expects success.
fn int_ok(args: &[&str]) -> String {
    let mut all = vec!["int"];
    all.extend_from_slice(args);
    let o = mparray(&all);
    assert!(o.status.success(), "mparray {all:?} failed: {}", stderr(&o));
    stdout(&o)
}

/// Runs `mparray int ...`, expects exit status 2 and every `want` in the
/// message; returns the message.
fn int_bad(args: &[&str], want: &[&str]) -> String {
    let mut all = vec!["int"];
    all.extend_from_slice(args);
    let o = mparray(&all);
    let msg = stderr(&o);
    assert_eq!(o.status.code(), Some(2), "mparray {all:?}: {msg}");
    for w in want {
        assert!(msg.contains(w), "mparray {all:?}: {msg:?} lacks {w:?}");
    }
    assert!(!msg.contains("panicked"), "{msg}");
    assert!(o.stdout.is_empty(), "no partial output on bad input");
    msg
}

fn p(path: &Path) -> &str {
    path.to_str().unwrap()
}

/// A small deterministic generator (splitmix64).
impl Rng {
    /// A random value of at most `bits` bits: full width, a random bit
    /// length, or an edge value.
    fn natural(&mut self, bits: u64) -> Natural {
        let full = Natural::from(2u32).pow(bits) - Natural::from(1u32);
        match self.below(10) {
            0 => match self.below(6) {
                0 => Natural::from(0u32),
                1 => Natural::from(1u32),
                2 => full,
                3 => Natural::from(2u32).pow(bits - 1),
                4 => Natural::from(u64::MAX),
                _ => full >> (bits / 2),
            },
            1..=4 => {
                let len = 1 + self.below(bits);
                let limbs: Vec<u64> = (0..len.div_ceil(64)).map(|_| self.next()).collect();
                let mut x = Natural::from_limbs_asc(&limbs) >> (len.div_ceil(64) * 64 - len);
                x |= Natural::from(2u32).pow(len - 1);
                x
            }
            _ => {
                let limbs: Vec<u64> = (0..bits / 64).map(|_| self.next()).collect();
                Natural::from_limbs_asc(&limbs)
            }
        }
    }
}

fn text(v: &[Natural], hex: bool) -> String {
    v.iter()
        .map(|x| {
            if hex {
                format!("0x{x:x}\n")
            } else {
                format!("{x}\n")
            }
        })
        .collect()
}

fn fmt(x: &Natural, hex: bool) -> String {
    if hex {
        format!("0x{x:x}")
    } else {
        x.to_string()
    }
}

/// The expected output of `op` on `a`, `b` at width `bits`.
fn expected(op: &str, a: &[Natural], b: &[Natural], bits: u64, hex: bool) -> String {
    let m = Natural::from(2u32).pow(bits);
    let mut s = String::new();
    for (x, y) in a.iter().zip(b) {
        let line = match op {
            "add" => fmt(&((x + y) % &m), hex),
            "sub" => fmt(&((x + &m - y) % &m), hex),
            "mul" => fmt(&((x * y) % &m), hex),
            "mul-wide" => fmt(&(x * y), hex),
            "divrem" => {
                let (q, r) = x.clone().div_mod(y.clone());
                format!("{} {}", fmt(&q, hex), fmt(&r, hex))
            }
            _ => unreachable!(),
        };
        s.push_str(&line);
        s.push('\n');
    }
    s
}

const OPS: [&str; 5] = ["add", "sub", "mul", "mul-wide", "divrem"];

/// Every op at `bits` on `n` random lines, in hex and in decimal.
fn check_width(bits: u64, n: usize) {
    let seed = common::seed() ^ bits;
    let mut rng = Rng(seed);
    let tmp = Tmp::new();
    let a: Vec<Natural> = (0..n).map(|_| rng.natural(bits)).collect();
    let b: Vec<Natural> = (0..n).map(|_| rng.natural(bits)).collect();
    // Divisors: no zeros, and some small ones.
    let d: Vec<Natural> = b
        .iter()
        .enumerate()
        .map(|(i, x)| match (i % 7, *x == 0u32) {
            (_, true) => Natural::from(1u32),
            (3, _) => Natural::from(rng.next() | 1),
            _ => x.clone(),
        })
        .collect();
    let w = bits.to_string();
    for hex in [false, true] {
        let fa = tmp.file(&format!("a{hex}.txt"), text(&a, hex));
        let fb = tmp.file(&format!("b{hex}.txt"), text(&b, hex));
        let fd = tmp.file(&format!("d{hex}.txt"), text(&d, hex));
        for op in OPS {
            let fb = if op == "divrem" { &fd } else { &fb };
            let bb = if op == "divrem" { &d } else { &b };
            let got = int_ok(&[op, "--bits", &w, p(&fa), p(fb)]);
            let want = expected(op, &a, bb, bits, hex);
            if got != want {
                let line = got.lines().zip(want.lines()).position(|(g, w)| g != w);
                panic!(
                    "{op} at {bits} bits (hex {hex}, seed {seed}) differs at line {line:?} \
                     ({} lines, {} expected)",
                    got.lines().count(),
                    want.lines().count()
                );
            }
        }
    }
}

#[test]
fn ops_64_bits() {
    check_width(64, 400);
}

#[test]
fn ops_128_bits() {
    check_width(128, 300);
}

#[test]
fn ops_192_bits() {
    check_width(192, 300);
}

#[test]
fn ops_4096_bits() {
    check_width(4096, 60);
}

#[test]
fn ops_65536_bits() {
    check_width(1 << 16, 6);
}

#[test]
fn mul_wide_at_the_largest_width() {
    // 2^20-bit operands: the 2^21-bit product is computed on the CPU.
    let mut rng = Rng(common::seed());
    let bits = 1u64 << 20;
    let a = vec![
        rng.natural(bits),
        Natural::from(2u32).pow(bits) - Natural::from(1u32),
    ];
    let b = vec![
        rng.natural(bits),
        Natural::from(2u32).pow(bits) - Natural::from(1u32),
    ];
    let tmp = Tmp::new();
    let fa = tmp.file("a", text(&a, true));
    let fb = tmp.file("b", text(&b, true));
    let got = int_ok(&["mul-wide", "--bits", "2^20", p(&fa), p(&fb)]);
    assert!(got == expected("mul-wide", &a, &b, bits, true));
}

#[test]
fn cpu_engine_and_other_widths() {
    let mut rng = Rng(common::seed());
    let tmp = Tmp::new();
    for bits in [320u64, 1024, 8192] {
        let a: Vec<Natural> = (0..20).map(|_| rng.natural(bits)).collect();
        let b: Vec<Natural> = (0..20).map(|_| rng.natural(bits)).collect();
        let fa = tmp.file("a", text(&a, false));
        let fb = tmp.file("b", text(&b, false));
        let w = bits.to_string();
        for op in ["add", "sub", "mul", "mul-wide"] {
            let got = int_ok(&[op, "--bits", &w, "--engine", "cpu", p(&fa), p(&fb)]);
            assert_eq!(got, expected(op, &a, &b, bits, false), "{op} {bits}");
        }
    }
}

#[test]
fn output_base_follows_first_number_of_a_unless_told() {
    let tmp = Tmp::new();
    let dec_first = tmp.file("a", "10\n0x10\n");
    let hex_first = tmp.file("h", "0X1F\n16\n");
    let b = tmp.file("b", "1\n0x1\n");
    assert_eq!(
        int_ok(&["add", "--bits", "64", p(&dec_first), p(&b)]),
        "11\n17\n"
    );
    assert_eq!(
        int_ok(&["add", "--bits", "64", p(&hex_first), p(&b)]),
        "0x20\n0x11\n"
    );
    assert_eq!(
        int_ok(&["add", "--bits", "64", "--hex", p(&dec_first), p(&b)]),
        "0xb\n0x11\n"
    );
    assert_eq!(
        int_ok(&["add", "--bits", "64", "--dec", p(&hex_first), p(&b)]),
        "32\n17\n"
    );
    // The base of B does not matter.
    let bh = tmp.file("bh", "0x1\n0x1\n");
    assert_eq!(
        int_ok(&["sub", "--bits", "64", p(&dec_first), p(&bh)]),
        "9\n15\n"
    );
    // Zero prints as 0 or 0x0.
    let z = tmp.file("z", "0x0\n");
    assert_eq!(int_ok(&["mul", "--bits", "128", p(&z), p(&z)]), "0x0\n");
    let three = tmp.file("three", "0x3\n");
    assert_eq!(
        int_ok(&["divrem", "--bits", "128", p(&z), p(&three)]),
        "0x0 0x0\n"
    );
}

#[test]
fn lenient_layout() {
    let tmp = Tmp::new();
    // CRLF, surrounding spaces and tabs, a byte-order mark, leading zeros,
    // upper-case hex, no final newline.
    let a = tmp.file(
        "a",
        "\u{feff}  7\r\n\t0x00FF \r\n000000000000000000000000000123\r\n0X1",
    );
    let b = tmp.file("b", "1\n1\n1\n1\n");
    assert_eq!(
        int_ok(&["add", "--bits", "64", p(&a), p(&b)]),
        "8\n256\n124\n2\n"
    );
    // Empty files: no lines, no output.
    let e = tmp.file("e", "");
    assert_eq!(int_ok(&["mul", "--bits", "64", p(&e), p(&e)]), "");
    // A value of exactly W bits fits.
    let full = tmp.file("f", format!("{}\n", u128::MAX));
    let one = tmp.file("one", "1\n");
    assert_eq!(int_ok(&["add", "--bits", "128", p(&full), p(&one)]), "0\n");
    assert_eq!(
        int_ok(&["mul-wide", "--bits", "128", "--hex", p(&full), p(&full)]),
        format!("0x{}{}\n", "f".repeat(31) + "e", "0".repeat(31) + "1")
    );
}

#[test]
fn standard_input() {
    let tmp = Tmp::new();
    let b = tmp.file("b", "3\n4\n");
    let mut child = Command::new(bin())
        .args(["int", "divrem", "--bits", "64", "-", p(&b)])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    use std::io::Write;
    child
        .stdin
        .take()
        .unwrap()
        .write_all(b"10\n0x11\n")
        .unwrap();
    let o = child.wait_with_output().unwrap();
    assert!(o.status.success());
    assert_eq!(stdout(&o), "3 1\n4 1\n");
}

#[test]
fn bad_numbers_name_file_and_line() {
    let tmp = Tmp::new();
    let good: String = (1..=20).map(|i| format!("{i}\n")).collect();
    let a = tmp.file("a.txt", &good);
    let cases: &[(&str, &str)] = &[
        ("12a", "invalid decimal digit 'a' at offset 2"),
        ("0x1g", "invalid hex digit 'g' at offset 3"),
        ("0x", "no digits after 0x"),
        ("+5", "sign"),
        ("-1", "negative"),
        ("1 2", "white space inside the number"),
        ("１２", "invalid decimal digit '１' at offset 0"),
        ("5é", "invalid decimal digit 'é' at offset 1"),
        ("", "empty line"),
        ("   ", "empty line"),
        (
            "18446744073709551616",
            "does not fit in 64 bits (it needs 65 bits)",
        ),
        (
            "0x10000000000000000",
            "does not fit in 64 bits (it needs 65 bits)",
        ),
    ];
    for (bad, why) in cases {
        let mut lines: Vec<String> = (1..=20).map(|i| i.to_string()).collect();
        lines[16] = bad.to_string();
        let b = tmp.file("b.txt", lines.join("\n") + "\n");
        let msg = int_bad(&["add", "--bits", "64", p(&a), p(&b)], &["b.txt:17:", why]);
        // The message is one line.
        assert_eq!(msg.trim_end().lines().count(), 1, "{msg}");
    }
    // The first bad line is named, in A before B.
    let b2 = tmp.file("b2.txt", "1\nx\n3\ny\n");
    let a2 = tmp.file("a2.txt", "1\n2\n3\nz\n");
    int_bad(
        &["sub", "--bits", "64", p(&a2), p(&b2)],
        &["a2.txt:4:", "\"z\""],
    );
    int_bad(
        &["sub", "--bits", "64", p(&b2), p(&a2)],
        &["b2.txt:2:", "\"x\""],
    );
    // A blank line in the middle, and a blank last line (two final newlines).
    let mid = tmp.file("mid.txt", "1\n\n3\n");
    let three = tmp.file("three.txt", "1\n2\n3\n");
    int_bad(
        &["add", "--bits", "64", p(&mid), p(&three)],
        &["mid.txt:2: empty line"],
    );
    let tail = tmp.file("tail.txt", "1\n2\n3\n\n");
    int_bad(
        &["add", "--bits", "64", p(&three), p(&tail)],
        &["tail.txt:4: empty line"],
    );
    // Too wide for a larger width: 2^192 at 192 bits; 2^192 - 1 fits.
    let big = tmp.file("big.txt", format!("1\n{}\n", Natural::from(2u32).pow(192)));
    let ok = tmp.file(
        "ok.txt",
        format!(
            "1\n{}\n",
            Natural::from(2u32).pow(192) - Natural::from(1u32)
        ),
    );
    int_bad(
        &["mul", "--bits", "192", p(&ok), p(&big)],
        &["big.txt:2:", "needs 193 bits"],
    );
    int_ok(&["mul", "--bits", "192", p(&ok), p(&ok)]);
    // Bytes that are not UTF-8.
    let raw = tmp.file("raw.txt", b"1\n2\xff\n3\n");
    int_bad(
        &["add", "--bits", "64", p(&three), p(&raw)],
        &["raw.txt:2:", "UTF-8"],
    );
}

#[test]
fn bad_files_and_arguments() {
    let tmp = Tmp::new();
    let a = tmp.file("a.txt", "1\n2\n3\n");
    let b = tmp.file("b.txt", "1\n2\n");
    let z = tmp.file("z.txt", "1\n2\n0\n");
    int_bad(
        &["add", "--bits", "64", p(&a), p(&b)],
        &["a.txt has 3 lines", "b.txt has 2"],
    );
    let missing = tmp.0.join("missing.txt");
    int_bad(
        &["add", "--bits", "64", p(&a), p(&missing)],
        &["cannot read", "missing.txt"],
    );
    int_bad(
        &["add", "--bits", "64", p(&missing), p(&a)],
        &["missing.txt"],
    );
    int_bad(
        &["divrem", "--bits", "64", p(&a), p(&z)],
        &["z.txt:3: division by zero"],
    );
    let z2 = tmp.file("z2.txt", "0x0000\n0\n0\n");
    int_bad(
        &["divrem", "--bits", "128", p(&a), p(&z2)],
        &["z2.txt:1: division by zero"],
    );
    for bits in ["0", "100", "32", "2^21", "1048640", "abc", "-64", "2^x", ""] {
        int_bad(&["add", "--bits", bits, p(&a), p(&a)], &["--bits"]);
    }
    int_bad(&["add", "--bits", "64", p(&a)], &["two files"]);
    int_bad(
        &["add", "--bits", "64", "--engine", "tpu", p(&a), p(&a)],
        &["tpu"],
    );
    // Usage errors from the argument parser also exit 2.
    for args in [
        &["frobnicate", "--bits", "64", p(&a), p(&a)][..],
        &["add", p(&a), p(&a)],
        &["add", "--bits", "64", "--hex", "--dec", p(&a), p(&a)],
    ] {
        let mut all = vec!["int"];
        all.extend_from_slice(args);
        let o = mparray(&all);
        assert_eq!(o.status.code(), Some(2), "{all:?}: {}", stderr(&o));
    }
}

#[test]
fn info_does_not_panic() {
    let o = mparray(&["info"]);
    let out = stdout(&o);
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(out.contains("cpu: available"), "{out}");
    assert!(
        out.contains("cuda: available") || out.contains("cuda: not usable"),
        "{out}"
    );
    assert!(out.contains("default engine:"), "{out}");
    // Without any CUDA library on the search path, it says why.
    let o = Command::new(bin())
        .arg("info")
        .env("LD_LIBRARY_PATH", "/nonexistent")
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(!stderr(&o).contains("panicked"));
}

#[test]
fn kernels_list() {
    let o = mparray(&["kernels", "list"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let out = stdout(&o);
    assert!(out.lines().count() >= 1, "{out}");
    assert!(out.lines().all(|l| !l.trim().is_empty()), "{out}");
}

#[test]
fn readme_shows_the_examples() {
    // The README's library examples are examples/quickstart.rs and
    // examples/floats.rs (which `cargo test` compiles), minus their first
    // comment line.
    let readme = include_str!("../README.md");
    for (name, example) in [
        ("quickstart", include_str!("../examples/quickstart.rs")),
        ("floats", include_str!("../examples/floats.rs")),
    ] {
        let body = example.split_once('\n').unwrap().1;
        assert!(
            readme.contains(body),
            "README.md and examples/{name}.rs differ"
        );
    }
}

/// Every bench suite's `--quick` runs in seconds on the CPU engine, checks
/// its results and says so (no FAILED line, exit status 0).
#[test]
fn bench_quick_suites() {
    for suite in ["int", "float", "func", "huge", "blas"] {
        let t = std::time::Instant::now();
        let o = mparray(&["bench", suite, "--quick", "--engine", "cpu"]);
        let out = stdout(&o);
        assert!(
            o.status.success(),
            "bench {suite} --quick: {}\n{out}",
            stderr(&o)
        );
        assert!(
            out.contains("ok"),
            "bench {suite} --quick printed no check:\n{out}"
        );
        assert!(!out.contains("FAILED"), "bench {suite} --quick:\n{out}");
        eprintln!("bench {suite} --quick: {:.1} s", t.elapsed().as_secs_f64());
    }
}

/// `bench blas --json`: every case (gemm, syrk, the tall Gram matrix,
/// gemv, dot) at two precisions, checked, with its multiply-accumulate
/// count; a rounding mode other than nearest; bad sizes exit 2.
#[test]
fn bench_blas_json() {
    let seed = common::seed();
    let s = seed.to_string();
    let o = mparray(&[
        "bench", "blas", "--quick", "--engine", "cpu", "--json", "--precs", "64,200", "--round",
        "D", "--sizes", "1,7", "--seed", &s,
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(v["suite"], "blas");
    let rows = v["rows"].as_array().unwrap();
    // gemm and syrk: 2 precisions x 2 sizes; tall 1; gemv and dot: 2 each.
    assert_eq!(rows.len(), 4 + 4 + 1 + 2 + 2, "{v}");
    for r in rows {
        assert_eq!(r["ok"], true, "seed {seed}: {r}");
        assert!(r["checked"].as_u64().unwrap() >= 1, "{r}");
    }
    let gemm7 = rows
        .iter()
        .find(|r| r["op"] == "gemm" && r["n"] == 7)
        .unwrap();
    assert_eq!(gemm7["macs"].as_f64(), Some(343.0));
    let tall = rows.iter().find(|r| r["op"] == "tall").unwrap();
    assert_eq!(tall["macs"].as_f64(), Some(12.0 * 13.0 / 2.0 * 1000.0));
    for bad in [&["--sizes", "0"][..], &["--tall", "5,0"], &["--precs", "0"]] {
        let mut args = vec!["bench", "blas", "--quick", "--engine", "cpu"];
        args.extend_from_slice(bad);
        let o = mparray(&args);
        assert_eq!(o.status.code(), Some(2), "{args:?}: {}", stderr(&o));
    }
}

/// `bench func` checks its complex names and precisions before any case
/// runs: a bad one exits 2 at once, naming it, with no case printed.
#[test]
fn bench_func_rejects_bad_complex_names_first() {
    for (bad, want) in [
        (&["--complex", "exp,expp"][..], "\"expp\""),
        (&["--complex", "exp", "--complex-precs", "0"], "precision"),
    ] {
        let mut args = vec![
            "bench", "func", "--quick", "--engine", "cpu", "--funcs", "exp",
        ];
        args.extend_from_slice(bad);
        let o = mparray(&args);
        assert_eq!(o.status.code(), Some(2), "{args:?}: {}", stderr(&o));
        assert!(stderr(&o).contains(want), "{args:?}: {}", stderr(&o));
        assert!(
            !stdout(&o).contains(" ok "),
            "{args:?} ran cases: {}",
            stdout(&o)
        );
    }
}
