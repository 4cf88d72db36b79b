//! `mparray float` end to end: random files in decimal and hex against
//! malachite-float, every rounding mode, ternary output, and bad input
//! (exit status 2 with file:line).
mod common;

use std::path::PathBuf;
use std::process::{Command, Output};

use malachite_base::rounding_modes::RoundingMode;
use malachite_float::{ComparableFloatRef, Float};
use mparray::float::{text, to_rounding_mode};
use mparray::{Engine, FloatArray, Round};

use common::Tmp;

impl Tmp {
    fn file(&self, name: &str, text: &str) -> PathBuf {
        let p = self.0.join(name);
        std::fs::write(&p, text).unwrap();
        p
    }
}

fn bin() -> PathBuf {
    common::mparray_bin()
}

fn run(args: &[&str]) -> Output {
    Command::new(bin()).args(args).output().unwrap()
}

fn stdout_lines(o: &Output) -> Vec<String> {
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    String::from_utf8(o.stdout.clone())
        .unwrap()
        .lines()
        .map(str::to_string)
        .collect()
}

/// Random operands as text: hex for half the lines, decimal for the rest.
fn operands(seed: u64, prec: u64, n: usize) -> (Vec<String>, FloatArray) {
    let mut a = FloatArray::random_exp(&Engine::Cpu, n, prec, seed, -60, 60).unwrap();
    if n > 8 {
        // A few special values.
        let sp = FloatArray::from_strs(
            prec,
            &["nan", "-inf", "inf", "-0", "0", "1", "-1", "0x1p-3"],
        )
        .unwrap();
        let mut lines = a.to_hex_strings().unwrap();
        lines.splice(0..8, sp.to_hex_strings().unwrap());
        a = FloatArray::from_strs(prec, &lines).unwrap();
    }
    let hex = a.to_hex_strings().unwrap();
    let dec = a.to_dec_strings(0, Round::Nearest).unwrap();
    let lines = (0..n)
        .map(|i| {
            if i % 2 == 0 {
                hex[i].clone()
            } else {
                dec[i].clone()
            }
        })
        .collect();
    (lines, a)
}

#[test]
fn random_files_against_malachite() {
    let seed = common::seed();
    let t = Tmp::new();
    for (j, &p) in [1u64, 53, 64, 65, 200, 1000].iter().enumerate() {
        let n = 60;
        let (la, a) = operands(seed ^ j as u64, p, n);
        let (lb, b) = operands(seed ^ 0x100 ^ j as u64, p, n);
        let (lc, c) = operands(seed ^ 0x200 ^ j as u64, p, n);
        let fa = t.file("a.txt", &(la.join("\n") + "\n"));
        let fb = t.file("b.txt", &lb.join("\r\n"));
        let fc = t.file("c.txt", &lc.join("\n"));
        for rnd in Round::ALL {
            let m: RoundingMode = to_rounding_mode(rnd);
            let r = rnd.letter().to_string();
            let ps = p.to_string();
            for op in ["add", "sub", "mul", "div", "sqrt", "fma", "fms"] {
                let mut args = vec![
                    "float",
                    op,
                    "--prec",
                    &ps,
                    "--round",
                    &r,
                    "--hex",
                    "--ternary",
                ];
                let fa_s = fa.to_str().unwrap();
                let fb_s = fb.to_str().unwrap();
                let fc_s = fc.to_str().unwrap();
                args.push(fa_s);
                if op != "sqrt" {
                    args.push(fb_s);
                }
                if op.starts_with("fm") {
                    args.push(fc_s);
                }
                let out = stdout_lines(&run(&args));
                assert_eq!(out.len(), n);
                for (i, line) in out.iter().enumerate() {
                    let (x, y, z) = (
                        a.to_float(i).unwrap(),
                        b.to_float(i).unwrap(),
                        c.to_float(i).unwrap(),
                    );
                    let (w, o) = match op {
                        "add" => x.add_prec_round_ref_ref(&y, p, m),
                        "sub" => x.sub_prec_round_ref_ref(&y, p, m),
                        "mul" => x.mul_prec_round_ref_ref(&y, p, m),
                        "div" => x.div_prec_round_ref_ref(&y, p, m),
                        "sqrt" => x.sqrt_prec_round_ref(p, m),
                        "fma" => z.add_mul_prec_round_ref_ref_ref(&x, &y, p, m),
                        _ => x.clone().mul_sub_mul_prec_round(
                            y.clone(),
                            z.clone(),
                            Float::from(1),
                            p,
                            m,
                        ),
                    };
                    let (v, tern) = line.rsplit_once(' ').unwrap();
                    let got = FloatArray::from_strs(p, &[v]).unwrap().to_float(0).unwrap();
                    let want_hex = text::format_hex(
                        &FloatArray::from_floats(p, std::slice::from_ref(&w), Round::Nearest)
                            .unwrap()
                            .0
                            .get(0)
                            .unwrap(),
                    );
                    assert!(
                        ComparableFloatRef(&got) == ComparableFloatRef(&w)
                            && tern.parse::<i8>().unwrap().cmp(&0) == o,
                        "{op} p={p} {rnd:?} line {}: got {line} want {want_hex} {o:?}",
                        i + 1
                    );
                }
            }
        }
        // Decimal output with chosen digits, and cmp.
        let out = stdout_lines(&run(&[
            "float",
            "mul",
            "--prec",
            &p.to_string(),
            "--digits",
            "12",
            fa.to_str().unwrap(),
            fb.to_str().unwrap(),
        ]));
        let prod = a.mul(&b, p, Round::Nearest).unwrap();
        assert_eq!(out, prod.to_dec_strings(12, Round::Nearest).unwrap());
        let out = stdout_lines(&run(&[
            "float",
            "cmp",
            "--prec",
            &p.to_string(),
            fa.to_str().unwrap(),
            fb.to_str().unwrap(),
        ]));
        let cmp = a.cmp(&b).unwrap();
        for (i, l) in out.iter().enumerate() {
            let want = cmp[i].map_or("nan".to_string(), |o| (o as i8).to_string());
            assert_eq!(*l, want);
        }
    }
}

#[test]
fn bad_input_exit_2() {
    let t = Tmp::new();
    let good = t.file("good.txt", "1\n2\n3\n");
    let bad = t.file("bad.txt", "1\n2.5.1\n3\n");
    let blank = t.file("blank.txt", "1\n\n3\n");
    let short = t.file("short.txt", "1\n2\n");
    let g = good.to_str().unwrap();
    let cases: Vec<(Vec<&str>, &str)> = vec![
        (
            vec!["float", "add", "--prec", "53", g, bad.to_str().unwrap()],
            "bad.txt:2:",
        ),
        (
            vec!["float", "add", "--prec", "53", blank.to_str().unwrap(), g],
            "blank.txt:2: empty line",
        ),
        (
            vec!["float", "add", "--prec", "53", g, short.to_str().unwrap()],
            "has 3 lines but",
        ),
        (vec!["float", "add", "--prec", "0", g, g], "--prec"),
        (
            vec!["float", "add", "--prec", "53", "--round", "Q", g, g],
            "--round",
        ),
        (vec!["float", "add", "--prec", "53", g], "needs 2 file"),
        (
            vec!["float", "sqrt", "--prec", "53", "/nonexistent/x.txt"],
            "cannot read",
        ),
    ];
    for (args, msg) in cases {
        let o = run(&args);
        let err = String::from_utf8_lossy(&o.stderr);
        assert_eq!(o.status.code(), Some(2), "{args:?}: {err}");
        assert!(err.contains(msg), "{args:?}: {err}");
    }
}

#[test]
fn small_examples() {
    let t = Tmp::new();
    let a = t.file("a.txt", "1.5\n0.1\n-0\ninf\n1e-30\n0x1.8p+3\n");
    let b = t.file("b.txt", "2\n0.2\n+0\n-inf\n-1e-30\n3\n");
    let out = stdout_lines(&run(&[
        "float",
        "add",
        "--prec",
        "53",
        "--hex",
        "--ternary",
        a.to_str().unwrap(),
        b.to_str().unwrap(),
    ]));
    assert_eq!(
        out,
        [
            "0x3.8p+0 0",
            "0x4.cccccccccccdp-4 1",
            "0x0p+0 0",
            "nan 0",
            "0x0p+0 0",
            "0xfp+0 0"
        ]
    );
    let out = stdout_lines(&run(&[
        "float",
        "add",
        "--prec",
        "53",
        "--round",
        "D",
        a.to_str().unwrap(),
        b.to_str().unwrap(),
    ]));
    assert_eq!(out[2], "-0.0000000000000000e+00");
    assert_eq!(out[4], "-0.0000000000000000e+00");
    let out = stdout_lines(&run(&[
        "float",
        "mul2",
        "--prec",
        "53",
        "--k",
        "-3",
        "--digits",
        "3",
        a.to_str().unwrap(),
    ]));
    assert_eq!(
        out,
        [
            "1.88e-01",
            "1.25e-02",
            "-0.00e+00",
            "inf",
            "1.25e-31",
            "1.50e+00"
        ]
    );
}
