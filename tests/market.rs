//! Matrix Market array files (`linalg::market`): the column-major order of
//! the format against our row-major matrices, round trips (decimal and hex,
//! bit for bit) over shapes, padded rows, precisions and special values,
//! comments and blank lines, and every error with its file and line.

use mparray::linalg::market::{
    Field, field, read_complex, read_complex_file, read_real, read_real_file, write_complex,
    write_real,
};
use mparray::linalg::{ComplexMatrix, FloatMatrix};
use mparray::{ComplexArray, Engine, FloatArray, Matrix, Round};

const REAL: &str = "%%MatrixMarket matrix array real general\n";
const COMPLEX: &str = "%%MatrixMarket matrix array complex general\n";

fn real(text: &str) -> mparray::Result<FloatMatrix> {
    read_real("a.mtx", text, 53, Round::Nearest)
}

fn complex(text: &str) -> mparray::Result<ComplexMatrix> {
    read_complex("a.mtx", text, 53, 24, Round::Nearest)
}

fn err<T: std::fmt::Debug>(r: mparray::Result<T>) -> String {
    r.unwrap_err().to_string()
}

/// The elements of `m` (`ld = cols`, at most 53 bits) as `f64`s printed
/// by `{:?}` (`1.0`, `-0.0`, `NaN`), row after row.
fn rows(m: &FloatMatrix) -> Vec<Vec<String>> {
    assert_eq!(m.ld(), m.cols());
    let v = m.data().to_f64s(Round::Nearest).unwrap();
    v.chunks(m.cols())
        .map(|r| r.iter().map(|x| format!("{x:?}")).collect())
        .collect()
}

/// The value lines of a written file (after the header and size line),
/// each number read as an `f64` and printed by `{:?}`.
fn values(text: &str) -> Vec<String> {
    text.lines()
        .skip(2)
        .map(|l| {
            let v: Vec<String> = l
                .split_whitespace()
                .map(|w| format!("{:?}", w.parse::<f64>().unwrap()))
                .collect();
            v.join(" ")
        })
        .collect()
}

/// The header and size line of a written file.
fn head(text: &str) -> Vec<&str> {
    text.lines().take(2).collect()
}

/// `rows x cols` real values 1, 2, ... in file (column-major) order.
fn iota_text(rows: usize, cols: usize) -> String {
    let mut t = format!("{REAL}{rows} {cols}\n");
    for k in 1..=rows * cols {
        t += &format!("{k}\n");
    }
    t
}

#[test]
fn column_major_order() {
    let m = real(&iota_text(2, 3)).unwrap();
    assert_eq!((m.rows(), m.cols(), m.ld(), m.prec()), (2, 3, 3, 53));
    assert_eq!(rows(&m), [["1.0", "3.0", "5.0"], ["2.0", "4.0", "6.0"]]);
    assert!(m.engine().same_as(&Engine::Cpu));

    // Writing goes back to the file's order.
    let m = FloatMatrix::from_rows(53, &[["1", "2", "3"], ["4", "5", "6"]]).unwrap();
    let text = write_real(&m, 0, false).unwrap();
    assert_eq!(head(&text), [REAL.trim_end(), "2 3"]);
    assert_eq!(values(&text), ["1.0", "4.0", "2.0", "5.0", "3.0", "6.0"]);
    assert_eq!(real(&text).unwrap(), m);

    let c = ComplexMatrix::from_rows(53, 24, &[[("1", "-1"), ("2", "-2"), ("3", "-3")]]).unwrap();
    let text = write_complex(&c, 0, false).unwrap();
    assert_eq!(head(&text), [COMPLEX.trim_end(), "1 3"]);
    assert_eq!(values(&text), ["1.0 -1.0", "2.0 -2.0", "3.0 -3.0"]);
    let text = format!("{COMPLEX}3 2\n1 2\n3 4\n5 6\n7 8\n9 10\n11 12\n");
    let c = complex(&text).unwrap();
    assert_eq!(
        (c.rows(), c.cols(), c.prec_re(), c.prec_im()),
        (3, 2, 53, 24)
    );
    let (re, im) = c.into_data().into_parts();
    let re = FloatMatrix::from_array(re, 3, 2).unwrap();
    let im = FloatMatrix::from_array(im, 3, 2).unwrap();
    assert_eq!(rows(&re), [["1.0", "7.0"], ["3.0", "9.0"], ["5.0", "11.0"]]);
    assert_eq!(
        rows(&im),
        [["2.0", "8.0"], ["4.0", "10.0"], ["6.0", "12.0"]]
    );
    let c = complex(&text).unwrap();
    let back = write_complex(&c, 0, false).unwrap();
    assert_eq!(values(&back), values(&text));

    // A vector is an n x 1 matrix.
    let v = real(&format!("{REAL}3 1\n7\n8\n9\n")).unwrap();
    assert_eq!(rows(&v), [["7.0"], ["8.0"], ["9.0"]]);
}

#[test]
fn round_trips() {
    let cpu = Engine::Cpu;
    for (r, c) in [(1, 1), (3, 5), (5, 3), (4, 4), (1, 7), (7, 1)] {
        for p in [1, 24, 53, 64, 113, 300, 1000] {
            let m = FloatMatrix::random(&cpu, r, c, p, r as u64 * 31 + p).unwrap();
            for hex in [false, true] {
                let t = write_real(&m, 0, hex).unwrap();
                let back = read_real("m.mtx", &t, p, Round::Nearest).unwrap();
                assert!(back == m, "{r} x {c} at {p} bits, hex {hex}");
                // Any rounding reads exact (hex) text back exactly.
                if hex {
                    let down = read_real("m.mtx", &t, p, Round::Down).unwrap();
                    assert!(down == m, "{r} x {c} at {p} bits");
                }
            }
            let z = ComplexMatrix::random(&cpu, r, c, p, 53, p + 7).unwrap();
            for hex in [false, true] {
                let t = write_complex(&z, 0, hex).unwrap();
                let back = read_complex("z.mtx", &t, p, 53, Round::Nearest).unwrap();
                assert!(back == z, "{r} x {c} at {p} bits, hex {hex}");
            }
        }
    }
    // Fewer digits than needed round to nearest.
    let m = FloatMatrix::from_rows(53, &[["0.123456789"]]).unwrap();
    let t = write_real(&m, 3, false).unwrap();
    assert_eq!(values(&t), ["0.123"]);
    assert_eq!(t.lines().nth(2).unwrap().len(), "1.23e-01".len());
}

#[test]
fn rounding_on_read() {
    let t = format!("{REAL}1 2\n0.1\n-0.1\n");
    let near = read_real("a.mtx", &t, 8, Round::Nearest).unwrap();
    let down = read_real("a.mtx", &t, 8, Round::Down).unwrap();
    let up = read_real("a.mtx", &t, 8, Round::Up).unwrap();
    for j in 0..2 {
        let (d, n, u) = (
            down.get(0, j).unwrap(),
            near.get(0, j).unwrap(),
            up.get(0, j).unwrap(),
        );
        assert!(d < u && (n == d || n == u));
    }
    let u = up.get(0, 0).unwrap();
    let z = read_complex(
        "z.mtx",
        &format!("{COMPLEX}1 1\n0.1 0.1\n"),
        8,
        8,
        Round::Up,
    )
    .unwrap();
    assert_eq!(z.get(0, 0).unwrap(), (u.clone(), u));
}

#[test]
fn padded_rows() {
    // 3 x 2 with ld 4: the padding (junk values) is not written.
    let data: Vec<String> = (0..10).map(|k| format!("{k}.5")).collect();
    let a = FloatArray::from_strs(64, &data).unwrap();
    let m = Matrix::from_array_ld(a, 3, 2, 4).unwrap();
    let t = write_real(&m, 0, false).unwrap();
    assert_eq!(head(&t), [REAL.trim_end(), "3 2"]);
    assert_eq!(values(&t), ["0.5", "4.5", "8.5", "1.5", "5.5", "9.5"]);
    let back = read_real("m.mtx", &t, 64, Round::Nearest).unwrap();
    assert_eq!(back.ld(), 2);
    assert!(back == m);
    assert!(
        read_real(
            "m.mtx",
            &write_real(&m, 0, true).unwrap(),
            64,
            Round::Nearest
        )
        .unwrap()
            == m
    );

    let re = FloatArray::from_strs(30, &data).unwrap();
    let im = FloatArray::from_strs(70, &data[..]).unwrap();
    let z = Matrix::from_array_ld(ComplexArray::new(re, im).unwrap(), 2, 3, 5).unwrap();
    let t = write_complex(&z, 0, false).unwrap();
    assert_eq!(head(&t), [COMPLEX.trim_end(), "2 3"]);
    assert_eq!(
        values(&t),
        [
            "0.5 0.5", "5.5 5.5", "1.5 1.5", "6.5 6.5", "2.5 2.5", "7.5 7.5"
        ]
    );
    assert!(read_complex("z.mtx", &t, 30, 70, Round::Nearest).unwrap() == z);
    let t = write_complex(&z, 0, true).unwrap();
    assert!(read_complex("z.mtx", &t, 30, 70, Round::Nearest).unwrap() == z);
}

#[test]
fn empty_shapes() {
    for (r, c) in [(0, 0), (0, 3), (3, 0)] {
        let m = FloatMatrix::zeros(&Engine::Cpu, r, c, 53).unwrap();
        for hex in [false, true] {
            let t = write_real(&m, 0, hex).unwrap();
            assert_eq!(t, format!("{REAL}{r} {c}\n"));
            let back = real(&t).unwrap();
            assert_eq!((back.rows(), back.cols()), (r, c));
            assert!(back == m);
        }
        let z = ComplexMatrix::zeros(&Engine::Cpu, r, c, 53, 24).unwrap();
        let t = write_complex(&z, 0, false).unwrap();
        assert_eq!(t, format!("{COMPLEX}{r} {c}\n"));
        assert!(complex(&t).unwrap() == z);
        // Not even one value is allowed.
        assert_eq!(
            err(real(&format!("{REAL}{r} {c}\n1\n"))),
            format!("a.mtx: {r} x {c} needs 0 values, found 1 (the first extra on line 3)")
        );
    }
}

#[test]
fn specials() {
    let t = format!("{REAL}2 3\nnan\ninf\n-inf\n-0\n0\n-0x1.8p+3\n");
    let m = real(&t).unwrap();
    assert_eq!(rows(&m), [["NaN", "-inf", "0.0"], ["inf", "-0.0", "-12.0"]]);
    let (neg_zero, zero) = (m.get(1, 1).unwrap(), m.get(0, 2).unwrap());
    assert!(neg_zero == 0 && neg_zero.is_sign_negative());
    assert!(zero == 0 && zero.is_sign_positive());
    assert!(m.get(0, 0).unwrap().is_nan());
    for hex in [false, true] {
        let w = write_real(&m, 0, hex).unwrap();
        assert!(real(&w).unwrap() == m, "hex {hex}: {w}");
        let lines: Vec<&str> = w.lines().skip(2).collect();
        assert_eq!(lines[0], "nan");
        assert_eq!(&lines[1..3], ["inf", "-inf"]);
    }
    let w = write_real(&m, 0, true).unwrap();
    assert!(
        w.contains("\n-0x0p+0\n") && w.ends_with("\n-0xcp+0\n"),
        "{w}"
    );
    let w = write_real(&m, 0, false).unwrap();
    assert_eq!(values(&w), ["NaN", "inf", "-inf", "-0.0", "0.0", "-12.0"]);

    let t = format!("{COMPLEX}1 3\nnan -0\n-inf 0x1p-1\n-0 inf\n");
    let z = complex(&t).unwrap();
    for hex in [false, true] {
        assert!(complex(&write_complex(&z, 0, hex).unwrap()).unwrap() == z);
    }
    let w = write_complex(&z, 0, false).unwrap();
    assert_eq!(values(&w), ["NaN -0.0", "-inf 0.5", "-0.0 inf"]);
}

#[test]
fn comments_and_blank_lines() {
    // Mixed-case header words, comments, blank lines, blanks around
    // values, CRLF line ends, a byte-order mark, comments among values.
    let t = [
        "\u{feff}%%matrixmarket MATRIX Array REAL General",
        "% a comment",
        "%",
        "",
        "\t  2   2  ",
        "   ",
        "1",
        "  % between values",
        "   2\t",
        "",
        "3\r\n4",
    ]
    .join("\r\n");
    let t = t.as_str();
    let m = real(t).unwrap();
    assert_eq!(rows(&m), [["1.0", "3.0"], ["2.0", "4.0"]]);
    assert_eq!(field("a.mtx", t).unwrap(), Field::Real);

    let t = "%%MatrixMarket matrix array COMPLEX general\n%\n\n1 1\n\n  1.5   -2  \n\n".to_string();
    let z = complex(&t).unwrap();
    assert_eq!(values(&write_complex(&z, 0, false).unwrap()), ["1.5 -2.0"]);
    assert_eq!(field("a.mtx", &t).unwrap(), Field::Complex);

    // The integer field reads as real.
    let m = real("%%MatrixMarket matrix array integer general\n1 2\n-3\n12345678901234567890\n")
        .unwrap();
    assert_eq!(rows(&m), [["-3.0", "1.2345678901234567e19"]]);
}

#[test]
fn header_errors() {
    let cases = [
        ("", "a.mtx:1: empty file"),
        ("1 1\n1\n", "a.mtx:1: not a Matrix Market header"),
        (
            "%MatrixMarket matrix array real general\n1 1\n1\n",
            "a.mtx:1: not a Matrix Market header",
        ),
        (
            "%%MatrixMarket matrix array real\n1 1\n1\n",
            "a.mtx:1: the header needs 4 words",
        ),
        (
            "%%MatrixMarket vector array real general\n1\n1\n",
            "a.mtx:1: object \"vector\" is not supported",
        ),
        (
            "%%MatrixMarket matrix coordinate real general\n1 1 1\n1 1 1\n",
            "a.mtx:1: the coordinate (sparse) format is not supported",
        ),
        (
            "%%MatrixMarket matrix dense real general\n1 1\n1\n",
            "a.mtx:1: unknown format \"dense\"",
        ),
        (
            "%%MatrixMarket matrix array pattern general\n1 1\n",
            "a.mtx:1: the field pattern is not allowed",
        ),
        (
            "%%MatrixMarket matrix array quaternion general\n1 1\n1\n",
            "a.mtx:1: unknown field \"quaternion\"",
        ),
        (
            "%%MatrixMarket matrix array real symmetric\n1 1\n1\n",
            "a.mtx:1: symmetric matrices are not supported: expected general",
        ),
        (
            "%%MatrixMarket matrix array real Skew-Symmetric\n1 1\n1\n",
            "a.mtx:1: skew-symmetric matrices are not supported",
        ),
        (
            "%%MatrixMarket matrix array complex hermitian\n1 1\n1 1\n",
            "a.mtx:1: hermitian matrices are not supported",
        ),
        (
            "%%MatrixMarket matrix array real diagonal\n1 1\n1\n",
            "a.mtx:1: unknown symmetry \"diagonal\"",
        ),
    ];
    for (text, want) in cases {
        for e in [err(real(text)), err(complex(text))] {
            assert!(e.starts_with(want), "{text:?}: {e}");
        }
        assert!(err(field("a.mtx", text)).starts_with(want));
    }
    // A real file where complex is expected and vice versa.
    assert_eq!(
        err(complex(&iota_text(1, 1))),
        "a.mtx:1: a real matrix where a complex one is expected"
    );
    assert_eq!(
        err(real(&format!("{COMPLEX}1 1\n1 2\n"))),
        "a.mtx:1: a complex matrix where a real one is expected"
    );
    // A complex header over real lines, and the other way round.
    assert_eq!(
        err(complex(&format!("{COMPLEX}2 1\n1 2\n3\n"))),
        "a.mtx:4: expected two numbers (re im) per line, found 1 in \"3\""
    );
    assert_eq!(
        err(real(&format!("{REAL}2 1\n1\n3 4\n"))),
        "a.mtx:4: expected one value per line, found 2 in \"3 4\""
    );
}

#[test]
fn size_errors() {
    assert_eq!(
        err(real(REAL)),
        "a.mtx: no size line (rows cols) after the header"
    );
    assert_eq!(
        err(real(&format!("{REAL}% only comments\n\n"))),
        "a.mtx: no size line (rows cols) after the header"
    );
    for (size, line) in [
        ("5", 2),
        ("5 x", 2),
        ("-1 3", 2),
        ("2 3 6", 2),
        ("2.0 3", 2),
        ("2,3", 2),
    ] {
        let e = err(real(&format!("{REAL}{size}\n1\n")));
        assert_eq!(
            e,
            format!(
                "a.mtx:{line}: bad size line {size:?}: expected \"rows cols\" (two non-negative integers)"
            )
        );
    }
    let e = err(real(&format!("{REAL}%\n\n   99999999999999999999 1\n")));
    assert!(e.starts_with("a.mtx:4: bad size line"), "{e}");
    let e = err(real(&format!("{REAL}4294967296 4294967296\n")));
    assert!(
        e.starts_with("a.mtx:2: a 4294967296 x 4294967296 matrix has more elements"),
        "{e}"
    );
    // A huge size line with few values only counts them.
    assert_eq!(
        err(real(&format!("{REAL}1000000 1000000\n1\n"))),
        "a.mtx: 1000000 x 1000000 needs 1000000000000 values, found 1"
    );

    let mut t = iota_text(5, 3);
    t.truncate(t.trim_end().rfind('\n').unwrap() + 1);
    assert_eq!(err(real(&t)), "a.mtx: 5 x 3 needs 15 values, found 14");
    let t = format!("{}% comment\n\n16\n17\n", iota_text(5, 3));
    assert_eq!(
        err(real(&t)),
        "a.mtx: 5 x 3 needs 15 values, found 17 (the first extra on line 20)"
    );
    assert_eq!(
        err(complex(&format!("{COMPLEX}2 2\n1 1\n2 2\n3 3\n"))),
        "a.mtx: 2 x 2 needs 4 values, found 3"
    );
}

#[test]
fn number_errors() {
    // Line numbers count the header, comments and blank lines; the first
    // bad value in file order is the one named.
    let mut t = format!("{REAL}% c\n\n5 3\n");
    for k in 1..=15 {
        if k == 7 {
            t += "% between\n\n";
        }
        t += &match k {
            9 => "1.2.3\n".to_string(),
            12 => "zz\n".to_string(),
            _ => format!("{k}\n"),
        };
    }
    let e = err(real(&t));
    assert!(e.starts_with("a.mtx:15: cannot parse \"1.2.3\": "), "{e}");

    let t = format!("{COMPLEX}2 2\n1 2\n3 x\ny 4\n5 6\n");
    let e = err(complex(&t));
    assert!(
        e.starts_with("a.mtx:4: cannot parse \"x\" (imaginary part): "),
        "{e}"
    );
    let t = format!("{COMPLEX}2 2\n1 2\n3 4\ny 4\n5 z\n");
    let e = err(complex(&t));
    assert!(
        e.starts_with("a.mtx:5: cannot parse \"y\" (real part): "),
        "{e}"
    );
    let t = format!("{COMPLEX}1 2\n1 2\nq q\n");
    let e = err(complex(&t));
    assert!(
        e.starts_with("a.mtx:4: cannot parse \"q\" (real part): "),
        "{e}"
    );

    // A precision out of range is refused before the file is read.
    assert!(read_real("a.mtx", &iota_text(1, 1), 0, Round::Nearest).is_err());
    assert!(read_complex("a.mtx", &format!("{COMPLEX}0 0\n"), 53, 0, Round::Nearest).is_err());
}

#[test]
fn files() {
    let dir = std::env::temp_dir().join(format!("mparray-market-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let a = dir.join("a.mtx");
    let m = FloatMatrix::random(&Engine::Cpu, 4, 3, 200, 5).unwrap();
    std::fs::write(&a, write_real(&m, 0, false).unwrap()).unwrap();
    assert!(read_real_file(&a, 200, Round::Nearest).unwrap() == m);
    // Errors name the path.
    let e = err(read_complex_file(&a, 53, 53, Round::Nearest));
    assert_eq!(
        e,
        format!(
            "{}:1: a real matrix where a complex one is expected",
            a.display()
        )
    );

    let z = ComplexMatrix::random(&Engine::Cpu, 2, 5, 64, 100, 6).unwrap();
    let b = dir.join("b.mtx");
    std::fs::write(&b, write_complex(&z, 0, true).unwrap()).unwrap();
    assert!(read_complex_file(&b, 64, 100, Round::Nearest).unwrap() == z);

    let bad = dir.join("bad.mtx");
    let mut bytes = format!("{REAL}2 1\n1\n").into_bytes();
    bytes.extend_from_slice(b"\xff\n");
    std::fs::write(&bad, bytes).unwrap();
    assert_eq!(
        err(read_real_file(&bad, 53, Round::Nearest)),
        format!("{}:4: not valid UTF-8 text", bad.display())
    );

    let missing = dir.join("missing.mtx");
    let e = read_real_file(&missing, 53, Round::Nearest).unwrap_err();
    assert!(matches!(e, mparray::Error::Io { .. }));
    assert!(
        e.to_string()
            .starts_with(&format!("{}: ", missing.display())),
        "{e}"
    );
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
#[ignore = "needs a CUDA device"]
fn cuda_write() {
    let cuda = Engine::cuda().expect("a CUDA device");
    let m = FloatMatrix::random(&Engine::Cpu, 5, 3, 113, 1).unwrap();
    let d = m.to_engine(&cuda).unwrap();
    for hex in [false, true] {
        assert_eq!(
            write_real(&d, 0, hex).unwrap(),
            write_real(&m, 0, hex).unwrap()
        );
    }
    let z = ComplexMatrix::random(&Engine::Cpu, 3, 4, 64, 200, 2).unwrap();
    let dz = z.to_engine(&cuda).unwrap();
    for hex in [false, true] {
        assert_eq!(
            write_complex(&dz, 0, hex).unwrap(),
            write_complex(&z, 0, hex).unwrap()
        );
    }
}
