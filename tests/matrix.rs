//! `Matrix` over float and complex arrays: shapes (empty, one element,
//! non-square, padded rows), construction from rows of strings against
//! malachite's own parsing, the errors that name what is wrong, seeded
//! random matrices, equality that ignores the padding, and (with a device)
//! the same bits on CUDA as on the CPU.

use std::cmp::Ordering;

use malachite_base::num::basic::traits::{NegativeInfinity, NegativeZero, Zero};
use malachite_base::rounding_modes::RoundingMode;
use malachite_float::{ComparableFloat, Float};
use mparray::linalg::{ComplexMatrix, FloatMatrix};
use mparray::{ComplexArray, Engine, FloatArray, Matrix, Round};

/// `s` correctly rounded to nearest at `p` bits by malachite.
fn mal(s: &str, p: u64) -> Float {
    Float::from_sci_string_prec_round(s, p, RoundingMode::Nearest)
        .unwrap()
        .0
}

fn cmp(x: &Float) -> ComparableFloat {
    ComparableFloat(x.clone())
}

fn err<T: std::fmt::Debug>(r: mparray::Result<T>) -> String {
    r.unwrap_err().to_string()
}

/// An array holding the integers 0..n at `prec` bits.
fn iota(n: usize, prec: u64) -> FloatArray {
    let s: Vec<String> = (0..n).map(|i| i.to_string()).collect();
    FloatArray::from_strs(prec, &s).unwrap()
}

#[test]
fn shapes() {
    let cpu = Engine::Cpu;
    let empty: &[Vec<&str>] = &[];
    for (m, r, c) in [
        (FloatMatrix::from_rows(53, empty).unwrap(), 0, 0),
        (FloatMatrix::zeros(&cpu, 0, 0, 53).unwrap(), 0, 0),
        (FloatMatrix::zeros(&cpu, 0, 3, 53).unwrap(), 0, 3),
        (FloatMatrix::zeros(&cpu, 3, 0, 53).unwrap(), 3, 0),
        (
            FloatMatrix::from_rows(53, &[Vec::<&str>::new(), vec![]]).unwrap(),
            2,
            0,
        ),
        (FloatMatrix::zeros(&cpu, 1, 1, 53).unwrap(), 1, 1),
        (FloatMatrix::zeros(&cpu, 2, 3, 53).unwrap(), 2, 3),
        (FloatMatrix::random(&cpu, 3, 2, 53, 7).unwrap(), 3, 2),
    ] {
        assert_eq!((m.rows(), m.cols(), m.ld()), (r, c, c));
        assert_eq!(m.data().len(), r * c);
        assert!(m.engine().same_as(&cpu));
        let rows = m.to_rows().unwrap();
        assert_eq!(rows.len(), r);
        assert!(rows.iter().all(|row| row.len() == c));
        let strs = m.to_row_strings(5, Round::Nearest).unwrap();
        assert_eq!(strs.len(), r);
        assert!(strs.iter().all(|row| row.len() == c));
        assert!(m == m.try_clone().unwrap());
    }
    // Empty matrices over empty arrays; zeros are +0.
    assert!(Matrix::from_array_ld(iota(0, 8), 0, 4, 9).is_ok());
    assert!(Matrix::from_array_ld(iota(0, 8), 5, 0, 0).is_ok());
    let z = FloatMatrix::zeros(&cpu, 2, 3, 70).unwrap();
    assert_eq!(z.prec(), 70);
    assert!(
        z.to_rows()
            .unwrap()
            .concat()
            .iter()
            .all(|x| cmp(x) == cmp(&Float::ZERO))
    );
    let c = ComplexMatrix::zeros(&cpu, 0, 4, 20, 30).unwrap();
    assert_eq!(
        (c.rows(), c.cols(), c.prec_re(), c.prec_im()),
        (0, 4, 20, 30)
    );
    assert_eq!(c.to_rows().unwrap().len(), 0);
    let c = ComplexMatrix::zeros(&cpu, 2, 1, 20, 30).unwrap();
    assert_eq!(
        c.to_row_strings(3, Round::Nearest).unwrap()[1][0].1,
        "0.00e+00"
    );
}

#[test]
fn leading_dimension() {
    // 3 x 4 with ld 6 over 0..20 (needs 2*6 + 4 = 16; extra elements are allowed).
    let m = Matrix::from_array_ld(iota(20, 16), 3, 4, 6).unwrap();
    assert_eq!((m.rows(), m.cols(), m.ld()), (3, 4, 6));
    for i in 0..3 {
        for j in 0..4 {
            let want = Float::from((i * 6 + j) as u32);
            assert_eq!(m.get(i, j).unwrap(), want);
        }
    }
    let rows = m.to_rows().unwrap();
    let want: Vec<Vec<String>> = (0..3)
        .map(|i| (0..4).map(|j| (i * 6 + j).to_string()).collect())
        .collect();
    assert_eq!(rows.len(), 3);
    // Equal to the compact matrix of the same elements: padding is ignored.
    let compact = FloatMatrix::from_rows(16, &want).unwrap();
    assert_eq!(compact.ld(), 4);
    assert!(m == compact);
    // Strings as FloatArray::to_dec_strings writes them, padding skipped.
    let flat = compact.data().to_dec_strings(4, Round::Nearest).unwrap();
    assert_eq!(flat[5], "7.000e+00");
    let strs = m.to_row_strings(4, Round::Nearest).unwrap();
    assert_eq!(strs, flat.chunks(4).map(|c| c.to_vec()).collect::<Vec<_>>());
    // The same array read with other shapes or precision is another matrix.
    assert!(Matrix::from_array_ld(iota(20, 16), 4, 3, 4).unwrap() != compact);
    assert!(Matrix::from_array_ld(iota(20, 17), 3, 4, 6).unwrap() != m);
    // Conversions keep the shape and ld.
    let h = m.to_host().unwrap().into_engine(&Engine::Cpu).unwrap();
    assert_eq!((h.rows(), h.cols(), h.ld(), h.data().len()), (3, 4, 6, 20));
    assert!(h == m);
    assert_eq!(h.into_data().len(), 20);
    // An exactly long enough array, and ld == cols with rows == 1.
    assert!(Matrix::from_array_ld(iota(16, 8), 3, 4, 6).is_ok());
    assert!(Matrix::from_array_ld(iota(4, 8), 1, 4, 100).is_ok());

    // Complex, padded.
    let pairs: Vec<(String, String)> = (0..7).map(|k| (k.to_string(), (-k).to_string())).collect();
    let a = ComplexArray::from_strs(10, 12, &pairs).unwrap();
    let c = Matrix::from_array_ld(a, 2, 2, 5).unwrap();
    let (re, im) = c.get(1, 1).unwrap();
    assert_eq!((re, im), (Float::from(6u32), Float::from(-6i32)));
    let s = c.to_row_strings(2, Round::Nearest).unwrap();
    assert_eq!(s[1][0], ("5.0e+00".to_string(), "-5.0e+00".to_string()));
    let compact = ComplexMatrix::from_rows(10, 12, &s).unwrap();
    assert!(c == compact);
    assert!(ComplexMatrix::from_rows(10, 13, &s).unwrap() != compact);
}

#[test]
fn from_rows_round_trip() {
    let rows = vec![
        vec!["0.1", "-2.5e-30", "3"],
        vec!["1e100", "-7", "0.333333333333333333333333333"],
    ];
    for p in [1u64, 24, 53, 64, 65, 200] {
        let m = FloatMatrix::from_rows(p, &rows).unwrap();
        assert_eq!((m.rows(), m.cols(), m.prec()), (2, 3, p));
        let got = m.to_rows().unwrap();
        for (i, row) in rows.iter().enumerate() {
            for (j, s) in row.iter().enumerate() {
                let want = mal(s, p);
                assert_eq!(cmp(&got[i][j]), cmp(&want), "{s} at {p} bits");
                assert_eq!(cmp(&m.get(i, j).unwrap()), cmp(&want));
            }
        }
        // Enough digits to read back: the same bits.
        let back = FloatMatrix::from_rows(p, &m.to_row_strings(0, Round::Nearest).unwrap());
        assert!(back.unwrap() == m);
    }
    // Arrays of strs work as rows; specials parse as in from_strs.
    let m = FloatMatrix::from_rows(8, &[["nan", "-inf"], ["-0", "0x1p-3"]]).unwrap();
    let r = m.to_rows().unwrap();
    assert!(r[0][0].is_nan() && r[0][1] == Float::NEGATIVE_INFINITY);
    assert!(cmp(&r[1][0]) == cmp(&Float::NEGATIVE_ZERO));
    assert_eq!(r[1][1], mal("0.125", 8));

    // Complex: both parts against malachite, each at its precision.
    let rows = vec![
        vec![("0.1", "-0.2"), ("3", "4e-5")],
        vec![("-1e-9", "7"), ("2.25", "1e300")],
        vec![("0", "1"), ("-5", "0.7")],
    ];
    let m = ComplexMatrix::from_rows(40, 70, &rows).unwrap();
    assert_eq!(
        (m.rows(), m.cols(), m.prec_re(), m.prec_im()),
        (3, 2, 40, 70)
    );
    let got = m.to_rows().unwrap();
    for (i, row) in rows.iter().enumerate() {
        for (j, (re, im)) in row.iter().enumerate() {
            assert_eq!(cmp(&got[i][j].0), cmp(&mal(re, 40)));
            assert_eq!(cmp(&got[i][j].1), cmp(&mal(im, 70)));
            let (gr, gi) = m.get(i, j).unwrap();
            assert_eq!((cmp(&gr), cmp(&gi)), (cmp(&got[i][j].0), cmp(&got[i][j].1)));
        }
    }
    let back = ComplexMatrix::from_rows(40, 70, &m.to_row_strings(0, Round::Nearest).unwrap());
    assert!(back.unwrap() == m);
}

#[test]
fn errors_name_what_is_wrong() {
    let e = err(FloatMatrix::from_rows(
        53,
        &[vec!["1", "2"], vec!["3", "4"], vec!["5"]],
    ));
    assert_eq!(e, "shape mismatch: row 2 has 1 entries but row 0 has 2");
    let e = err(ComplexMatrix::from_rows(
        53,
        53,
        &[vec![("1", "2")], vec![("1", "2"), ("3", "4")]],
    ));
    assert_eq!(e, "shape mismatch: row 1 has 2 entries but row 0 has 1");

    let e = err(FloatMatrix::from_rows(
        53,
        &[vec!["1", "2", "3"], vec!["4", "5", "x6"]],
    ));
    assert!(e.starts_with("row 1, column 2: cannot parse \"x6\""), "{e}");
    let e = err(ComplexMatrix::from_rows(
        53,
        53,
        &[vec![("1", "2"), ("3", "4")], vec![("5", "6"), ("7", "8i")]],
    ));
    assert!(
        e.starts_with("row 1, column 1, imaginary part: cannot parse \"8i\""),
        "{e}"
    );
    let e = err(ComplexMatrix::from_rows(
        53,
        53,
        &[vec![("1", "2"), ("--3", "4")]],
    ));
    assert!(
        e.starts_with("row 0, column 1, real part: cannot parse \"--3\""),
        "{e}"
    );
    let e = err(FloatMatrix::from_rows(0, &[vec!["1"]]));
    assert!(e.contains("invalid precision 0"), "{e}");

    let e = err(Matrix::from_array_ld(iota(12, 8), 3, 4, 5));
    assert_eq!(
        e,
        "shape mismatch: a 3 x 4 matrix with ld 5 needs 14 elements, the array has 12"
    );
    let e = err(Matrix::from_array(iota(5, 8), 2, 3));
    assert_eq!(
        e,
        "shape mismatch: a 2 x 3 matrix with ld 3 needs 6 elements, the array has 5"
    );
    let e = err(Matrix::from_array_ld(iota(20, 8), 2, 4, 3));
    assert_eq!(e, "shape mismatch: a 2 x 4 matrix needs ld >= 4, got ld 3");
    let e = err(Matrix::from_array_ld(iota(0, 8), 0, 4, 3));
    assert_eq!(e, "shape mismatch: a 0 x 4 matrix needs ld >= 4, got ld 3");
    let e = err(Matrix::from_array_ld(iota(0, 8), usize::MAX, 2, 2));
    assert!(e.contains("more elements than an array can hold"), "{e}");
    let e = err(FloatMatrix::zeros(&Engine::Cpu, usize::MAX, 2, 8));
    assert!(e.contains("more elements than an array can hold"), "{e}");

    let m = FloatMatrix::zeros(&Engine::Cpu, 2, 3, 8).unwrap();
    assert_eq!(err(m.get(2, 0)), "element (2, 0) is outside a 2 x 3 matrix");
    assert_eq!(err(m.get(0, 3)), "element (0, 3) is outside a 2 x 3 matrix");
    // Inside the array (padding) but outside the matrix.
    let p = Matrix::from_array_ld(iota(10, 8), 2, 3, 5).unwrap();
    assert_eq!(err(p.get(0, 4)), "element (0, 4) is outside a 2 x 3 matrix");
    let c = ComplexMatrix::zeros(&Engine::Cpu, 0, 0, 8, 8).unwrap();
    assert_eq!(err(c.get(0, 0)), "element (0, 0) is outside a 0 x 0 matrix");
}

#[test]
fn random_on_the_cpu() {
    let cpu = Engine::Cpu;
    let a = FloatMatrix::random(&cpu, 4, 5, 100, 42).unwrap();
    assert!(a == FloatMatrix::random(&cpu, 4, 5, 100, 42).unwrap());
    assert!(a != FloatMatrix::random(&cpu, 4, 5, 100, 43).unwrap());
    let (lo, hi) = (Float::from(-1i32), Float::from(1u32));
    let vals = a.to_rows().unwrap().concat();
    assert!(vals.iter().all(|x| *x >= lo && *x < hi));
    assert!(vals.iter().any(|x| *x < 0u32) && vals.iter().any(|x| *x > 0u32));
    // Element (i, j) depends on the seed and i*cols + j only.
    let flat = FloatArray::random_uniform(&cpu, 20, 100, 42, -1.0, 1.0, Round::Down).unwrap();
    assert!(a == Matrix::from_array(flat, 4, 5).unwrap());
    // At 1 bit the only values are -1, -1/2, 0 and 1/2: never 1.
    let one = FloatMatrix::random(&cpu, 8, 8, 1, 5).unwrap();
    assert!(one.to_rows().unwrap().concat().iter().all(|x| *x < hi));

    let c = ComplexMatrix::random(&cpu, 3, 4, 60, 90, 42).unwrap();
    assert!(c == ComplexMatrix::random(&cpu, 3, 4, 60, 90, 42).unwrap());
    assert!(c != ComplexMatrix::random(&cpu, 3, 4, 60, 90, 1).unwrap());
    let (re, im) = c.into_data().into_parts();
    // The real parts are the float matrix of the seed; the imaginary parts
    // draw another stream.
    let fre = FloatMatrix::random(&cpu, 3, 4, 60, 42).unwrap();
    assert!(Matrix::from_array(re, 3, 4).unwrap() == fre);
    let im = Matrix::from_array(im, 3, 4).unwrap();
    assert!(im != FloatMatrix::random(&cpu, 3, 4, 90, 42).unwrap());
    let iv = im.to_rows().unwrap().concat();
    assert!(iv.iter().all(|x| *x >= lo && *x < hi));
    let rv = FloatMatrix::random(&cpu, 3, 4, 90, 42)
        .unwrap()
        .to_rows()
        .unwrap()
        .concat();
    assert!(
        iv.iter()
            .zip(&rv)
            .all(|(a, b)| a.partial_cmp(b) != Some(Ordering::Equal))
    );
}

#[test]
#[ignore = "needs a CUDA device"]
fn cuda_same_bits() {
    let cuda = Engine::cuda().expect("a CUDA device");
    let cpu = Engine::Cpu;
    for (r, c) in [(0, 0), (0, 3), (3, 0), (1, 1), (5, 7)] {
        for p in [1u64, 53, 300, 20000] {
            let h = FloatMatrix::random(&cpu, r, c, p, 9).unwrap();
            let d = FloatMatrix::random(&cuda, r, c, p, 9).unwrap();
            assert!(d.engine().same_as(&cuda));
            assert!(d == h, "random {r}x{c} at {p} bits");
            let back = d.to_host().unwrap();
            assert!(back.engine().same_as(&cpu) && back == h);
            assert_eq!(d.to_rows().unwrap(), h.to_rows().unwrap());
            assert_eq!(
                d.to_row_strings(0, Round::Nearest).unwrap(),
                h.to_row_strings(0, Round::Nearest).unwrap()
            );
            if r * c > 0 {
                assert_eq!(d.get(r - 1, c - 1).unwrap(), h.get(r - 1, c - 1).unwrap());
            }
            let moved = h.try_clone().unwrap().into_engine(&cuda).unwrap();
            assert!(moved.engine().same_as(&cuda) && moved == h);
            assert!(moved.try_clone().unwrap().engine().same_as(&cuda));

            let hz = FloatMatrix::zeros(&cpu, r, c, p).unwrap();
            let dz = FloatMatrix::zeros(&cuda, r, c, p).unwrap();
            assert!(dz == hz && dz.to_host().unwrap() == hz);

            let hc = ComplexMatrix::random(&cpu, r, c, p, 64, 9).unwrap();
            let dc = ComplexMatrix::random(&cuda, r, c, p, 64, 9).unwrap();
            assert!(
                dc == hc && dc.to_host().unwrap() == hc,
                "complex {r}x{c} at {p}"
            );
            assert_eq!(dc.to_rows().unwrap(), hc.to_rows().unwrap());
            let dcz = ComplexMatrix::zeros(&cuda, r, c, p, 64).unwrap();
            assert!(dcz == ComplexMatrix::zeros(&cpu, r, c, p, 64).unwrap());
        }
    }
    // from_rows with padding, to the device and back.
    let m = Matrix::from_array_ld(iota(20, 80), 3, 4, 6).unwrap();
    let d = m.to_engine(&cuda).unwrap();
    assert_eq!((d.rows(), d.cols(), d.ld()), (3, 4, 6));
    assert!(d == m && d.to_host().unwrap() == m);
    let s = vec![vec!["0.1", "nan", "-0"], vec!["1e-300", "-inf", "2"]];
    let f = FloatMatrix::from_rows(113, &s).unwrap();
    let back = f.to_engine(&cuda).unwrap().to_host().unwrap();
    assert_eq!(back.data().tags().unwrap(), f.data().tags().unwrap());
    assert_eq!(back.data().limbs().unwrap(), f.data().limbs().unwrap());
    assert!(back == f);
    let cs = vec![vec![("0.1", "-3"), ("inf", "-0")]];
    let c = ComplexMatrix::from_rows(30, 200, &cs).unwrap();
    assert!(c.to_engine(&cuda).unwrap().to_host().unwrap() == c);
}
