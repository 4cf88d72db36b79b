//! Matrix Market *array* files (dense matrices) for [`Matrix`]: reading
//! and writing `%%MatrixMarket matrix array real general` and `...
//! array complex general`.
//!
//! The format (NIST's "The Matrix Market Exchange Formats: Initial
//! Design"): a header line `%%MatrixMarket object format field symmetry`
//! (its words case-insensitive), then comment lines starting with `%`, the
//! size line `rows cols`, and the `rows*cols` values in **column-major**
//! order, one per line (`re im` per line for a complex matrix). Blank lines
//! may appear anywhere after the header, and leading and trailing blanks
//! are ignored; this reader also skips `%` comment lines after the size
//! line. A vector is an `n x 1` matrix.
//!
//! Values are decimal or hex floats as [`FloatArray::from_strs`] parses
//! them (`1.5e-30`, `-0`, `inf`, `nan`, `0x1.8p+3`), correctly rounded to
//! the caller's precision in the caller's rounding mode, in parallel. The
//! field `integer` is read as real; `pattern`, the `coordinate` format and
//! the `symmetric`, `skew-symmetric` and `hermitian` symmetries are
//! rejected with a message saying so.
//!
//! Errors are [`Error::Invalid`] values (bad input) naming the file (the
//! name the caller passes) and, where one line is at fault, the line:
//! `a.mtx:1: ...` for the header, `a.mtx:17: cannot parse "1.2.3": ...`
//! for a number, `a.mtx: 5 x 3 needs 15 values, found 14` for a count.
//! Reading a file from a path ([`read_real_file`], [`read_complex_file`])
//! names the path, and an I/O failure is an [`Error::Io`] naming it.
//!
//! Writing ([`write_real`], [`write_complex`]) gives the header, the size
//! line and the values in column-major order, decimal (as
//! [`FloatArray::to_dec_strings`] with `digits` significant digits, 0:
//! enough to read back, rounded to nearest) or exact hex floats (as
//! [`FloatArray::to_hex_strings`]); the matrix may live on any engine and
//! have any leading dimension (the padding is not written).

use std::path::Path;

use rayon::prelude::*;

use super::Matrix;
use crate::complex::ComplexArray;
use crate::error::{Error, Result};
use crate::float::text::{format_dec, format_hex};
use crate::float::{CpuFloats, FloatArray, Round};

/// The number field a Matrix Market file declares in its header.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Field {
    /// `real` (or `integer`): one value per line.
    Real,
    /// `complex`: a real and an imaginary part per line.
    Complex,
}

impl Field {
    fn word(self) -> &'static str {
        match self {
            Field::Real => "real",
            Field::Complex => "complex",
        }
    }
}

/// The header this module writes (and the one a reader expects).
fn banner(field: Field) -> String {
    format!("%%MatrixMarket matrix array {} general", field.word())
}

/// An error about the file `name` (at `line`, when one line is at fault).
fn bad(name: &str, line: Option<usize>, msg: impl std::fmt::Display) -> Error {
    match line {
        Some(l) => Error::Invalid(format!("{name}:{l}: {msg}")),
        None => Error::Invalid(format!("{name}: {msg}")),
    }
}

/// The lines of `text` with their 1-based numbers (a byte-order mark and
/// `\r\n` line ends are ignored).
fn numbered(text: &str) -> impl Iterator<Item = (usize, &str)> {
    let t = text.strip_prefix('\u{feff}').unwrap_or(text);
    t.lines().enumerate().map(|(i, l)| (i + 1, l))
}

/// The lines after the header that are neither blank nor comments: the
/// size line, then the value lines.
fn content(text: &str) -> impl Iterator<Item = (usize, &str)> {
    numbered(text).skip(1).filter(|(_, l)| {
        let t = l.trim_start();
        !t.is_empty() && !t.starts_with('%')
    })
}

/// Checks the header (line 1) and returns its field.
fn header(name: &str, text: &str) -> Result<Field> {
    let expected = "expected \"%%MatrixMarket matrix array real general\" (or complex)";
    let Some((_, line)) = numbered(text).next() else {
        return Err(bad(name, Some(1), format!("empty file: {expected}")));
    };
    let words: Vec<&str> = line.split_whitespace().collect();
    let is = |i: usize, w: &str| words.get(i).is_some_and(|x| x.eq_ignore_ascii_case(w));
    if !is(0, "%%MatrixMarket") {
        return Err(bad(
            name,
            Some(1),
            format!("not a Matrix Market header: {expected}, found {line:?}"),
        ));
    }
    if words.len() != 5 {
        return Err(bad(
            name,
            Some(1),
            format!(
                "the header needs 4 words after %%MatrixMarket (object format field symmetry), found {}",
                words.len() - 1
            ),
        ));
    }
    if !is(1, "matrix") {
        return Err(bad(
            name,
            Some(1),
            format!("object {:?} is not supported: expected matrix", words[1]),
        ));
    }
    if is(2, "coordinate") {
        return Err(bad(
            name,
            Some(1),
            "the coordinate (sparse) format is not supported: expected array",
        ));
    }
    if !is(2, "array") {
        return Err(bad(
            name,
            Some(1),
            format!("unknown format {:?}: expected array", words[2]),
        ));
    }
    let field = if is(3, "real") || is(3, "integer") {
        Field::Real
    } else if is(3, "complex") {
        Field::Complex
    } else if is(3, "pattern") {
        return Err(bad(
            name,
            Some(1),
            "the field pattern is not allowed in the array format: expected real or complex",
        ));
    } else {
        return Err(bad(
            name,
            Some(1),
            format!("unknown field {:?}: expected real or complex", words[3]),
        ));
    };
    if !is(4, "general") {
        let sym = words[4].to_ascii_lowercase();
        return Err(bad(
            name,
            Some(1),
            if ["symmetric", "skew-symmetric", "hermitian"].contains(&sym.as_str()) {
                format!("{sym} matrices are not supported: expected general")
            } else {
                format!("unknown symmetry {:?}: expected general", words[4])
            },
        ));
    }
    Ok(field)
}

/// The field a Matrix Market array file declares, from its header alone
/// (checked as the readers check it): lets a caller choose between
/// [`read_real`] and [`read_complex`].
pub fn field(name: &str, text: &str) -> Result<Field> {
    header(name, text)
}

/// A file's shape and its value strings in the file's (column-major)
/// order: one list for a real file, real and imaginary parts for a complex
/// one.
struct Values<'a> {
    rows: usize,
    cols: usize,
    parts: Vec<Vec<&'a str>>,
}

/// Reads the header, size line and value strings of `text`, which must
/// declare `want`.
fn split<'a>(name: &str, text: &'a str, want: Field) -> Result<Values<'a>> {
    let field = header(name, text)?;
    if field != want {
        return Err(bad(
            name,
            Some(1),
            format!(
                "a {} matrix where a {} one is expected",
                field.word(),
                want.word()
            ),
        ));
    }
    let mut lines = content(text);
    let Some((at, size)) = lines.next() else {
        return Err(bad(name, None, "no size line (rows cols) after the header"));
    };
    let dims: Vec<&str> = size.split_whitespace().collect();
    let parse_dim = |s: &str| s.parse::<usize>().ok();
    let (rows, cols) = match dims[..] {
        [r, c] => match (parse_dim(r), parse_dim(c)) {
            (Some(r), Some(c)) => (r, c),
            _ => return Err(bad_size(name, at, size)),
        },
        _ => return Err(bad_size(name, at, size)),
    };
    let n = rows.checked_mul(cols).ok_or_else(|| {
        bad(
            name,
            Some(at),
            format!("a {rows} x {cols} matrix has more elements than an array can hold"),
        )
    })?;
    let width = match want {
        Field::Real => 1,
        Field::Complex => 2,
    };
    // Grow the lists as values come (a lying size line cannot make us
    // allocate more than the file holds).
    let mut parts: Vec<Vec<&str>> = vec![Vec::new(); width];
    let mut found = 0usize;
    let mut first_extra = None;
    for (at, line) in lines {
        let mut words = line.split_whitespace();
        let got: Vec<&str> = words.by_ref().take(width + 1).collect();
        if got.len() != width {
            let (what, count) = match want {
                Field::Real => ("one value", got.len() + words.count()),
                Field::Complex => ("two numbers (re im)", got.len() + words.count()),
            };
            return Err(bad(
                name,
                Some(at),
                format!(
                    "expected {what} per line, found {count} in {:?}",
                    line.trim()
                ),
            ));
        }
        if found < n {
            for (p, w) in parts.iter_mut().zip(got) {
                p.push(w);
            }
        } else if first_extra.is_none() {
            first_extra = Some(at);
        }
        found += 1;
    }
    if found != n {
        let extra =
            first_extra.map_or(String::new(), |l| format!(" (the first extra on line {l})"));
        return Err(bad(
            name,
            None,
            format!("{rows} x {cols} needs {n} values, found {found}{extra}"),
        ));
    }
    Ok(Values { rows, cols, parts })
}

fn bad_size(name: &str, at: usize, size: &str) -> Error {
    bad(
        name,
        Some(at),
        format!(
            "bad size line {:?}: expected \"rows cols\" (two non-negative integers)",
            size.trim()
        ),
    )
}

/// The line of value `entry` (0-based, in file order) of `text`.
fn line_of(text: &str, entry: usize) -> usize {
    content(text).nth(1 + entry).map_or(0, |(l, _)| l)
}

/// The file-order index of the row-major element `r` of a `rows x cols`
/// matrix.
fn col_major(r: usize, rows: usize, cols: usize) -> usize {
    (r % cols) * rows + r / cols
}

/// Parses one part's strings (file order) into a row-major array; a bad
/// number is reported as the first bad one in file order, as
/// `(entry, text, reason)`.
fn parse_part(
    cm: &[&str],
    rows: usize,
    cols: usize,
    prec: u64,
    rnd: Round,
) -> Result<std::result::Result<FloatArray, (usize, String, String)>> {
    let rm: Vec<&str> = (0..cm.len())
        .into_par_iter()
        .map(|r| cm[col_major(r, rows, cols)])
        .collect();
    match FloatArray::from_strs_ternary(prec, &rm, rnd) {
        Ok((a, _)) => Ok(Ok(a)),
        Err(Error::Parse { .. }) => first_bad(cm, prec, rnd).map(Err),
        Err(e) => Err(e),
    }
}

/// The first malformed string of `cm` in its order (known to hold one).
fn first_bad(cm: &[&str], prec: u64, rnd: Round) -> Result<(usize, String, String)> {
    match FloatArray::from_strs_ternary(prec, cm, rnd) {
        Err(Error::Parse {
            index,
            text,
            reason,
        }) => Ok((index, text, reason)),
        Err(e) => Err(e),
        Ok(_) => Err(Error::Invalid(
            "a value parsed in one order but not another".into(),
        )),
    }
}

/// The error of a malformed value of `name`.
fn cannot_parse(
    name: &str,
    text: &str,
    (entry, s, reason): (usize, String, String),
    part: &str,
) -> Error {
    bad(
        name,
        Some(line_of(text, entry)),
        format!("cannot parse {s:?}{part}: {reason}"),
    )
}

/// Reads a real Matrix Market array file (`text`, called `name` in
/// errors), each value correctly rounded to `prec` bits in mode `rnd`,
/// into a row-major matrix on the CPU (`ld = cols`).
pub fn read_real(name: &str, text: &str, prec: u64, rnd: Round) -> Result<Matrix<FloatArray>> {
    crate::float::check_prec(prec)?;
    let v = split(name, text, Field::Real)?;
    let data = parse_part(&v.parts[0], v.rows, v.cols, prec, rnd)?
        .map_err(|b| cannot_parse(name, text, b, ""))?;
    Matrix::from_array(data, v.rows, v.cols)
}

/// Reads a complex Matrix Market array file (`text`, called `name` in
/// errors), the real and imaginary parts correctly rounded to `prec_re`
/// and `prec_im` bits in mode `rnd`, into a row-major matrix on the CPU
/// (`ld = cols`).
pub fn read_complex(
    name: &str,
    text: &str,
    prec_re: u64,
    prec_im: u64,
    rnd: Round,
) -> Result<Matrix<ComplexArray>> {
    crate::float::check_prec(prec_re)?;
    crate::float::check_prec(prec_im)?;
    let v = split(name, text, Field::Complex)?;
    let re = parse_part(&v.parts[0], v.rows, v.cols, prec_re, rnd)?;
    let im = parse_part(&v.parts[1], v.rows, v.cols, prec_im, rnd)?;
    match (re, im) {
        (Ok(re), Ok(im)) => Matrix::from_array(ComplexArray::new(re, im)?, v.rows, v.cols),
        // The first bad part in file order (the real part first on a line).
        (Err(r), Err(i)) if i.0 < r.0 => Err(cannot_parse(name, text, i, " (imaginary part)")),
        (Err(r), _) => Err(cannot_parse(name, text, r, " (real part)")),
        (_, Err(i)) => Err(cannot_parse(name, text, i, " (imaginary part)")),
    }
}

/// The text of the file at `path`, with its name for errors.
fn read_text(path: &Path) -> Result<(String, String)> {
    let name = path.display().to_string();
    let bytes = std::fs::read(path).map_err(|source| Error::Io {
        path: name.clone(),
        source,
    })?;
    match String::from_utf8(bytes) {
        Ok(t) => Ok((name, t)),
        Err(e) => {
            let at = e.utf8_error().valid_up_to();
            let line = e.as_bytes()[..at].iter().filter(|&&b| b == b'\n').count() + 1;
            Err(bad(&name, Some(line), "not valid UTF-8 text"))
        }
    }
}

/// [`read_real`] of the file at `path` (errors name the path).
pub fn read_real_file(path: &Path, prec: u64, rnd: Round) -> Result<Matrix<FloatArray>> {
    let (name, text) = read_text(path)?;
    read_real(&name, &text, prec, rnd)
}

/// [`read_complex`] of the file at `path` (errors name the path).
pub fn read_complex_file(
    path: &Path,
    prec_re: u64,
    prec_im: u64,
    rnd: Round,
) -> Result<Matrix<ComplexArray>> {
    let (name, text) = read_text(path)?;
    read_complex(&name, &text, prec_re, prec_im, rnd)
}

/// The array indices of a matrix's elements in column-major order.
fn col_major_indices<A: super::Elements>(m: &Matrix<A>) -> Vec<usize> {
    let (rows, ld) = (m.rows(), m.ld());
    (0..m.cols())
        .flat_map(|j| (0..rows).map(move |i| i * ld + j))
        .collect()
}

/// The text of element `k` of `h`: decimal with `digits` digits rounded to
/// nearest, or exact hex.
fn text_of(h: &CpuFloats, k: usize, digits: usize, hex: bool) -> String {
    if hex {
        format_hex(&h.get(k))
    } else {
        format_dec(&h.get(k), h.prec(), digits, Round::Nearest)
    }
}

/// Header, size line and one line per value.
fn assemble(field: Field, rows: usize, cols: usize, lines: Vec<String>) -> String {
    let mut out = format!("{}\n{rows} {cols}\n", banner(field));
    out.reserve(lines.iter().map(|l| l.len() + 1).sum());
    for l in lines {
        out.push_str(&l);
        out.push('\n');
    }
    out
}

/// A real matrix (on any engine) as a Matrix Market array file: values in
/// column-major order, decimal with `digits` significant digits (0: enough
/// to read back at the matrix's precision) rounded to nearest, or exact
/// hex floats when `hex`.
pub fn write_real(m: &Matrix<FloatArray>, digits: usize, hex: bool) -> Result<String> {
    let h = m.data().host()?;
    let lines = col_major_indices(m)
        .into_par_iter()
        .map(|k| text_of(&h, k, digits, hex))
        .collect();
    Ok(assemble(Field::Real, m.rows(), m.cols(), lines))
}

/// A complex matrix (on any engine) as a Matrix Market array file: `re im`
/// per line in column-major order, each part as in [`write_real`].
pub fn write_complex(m: &Matrix<ComplexArray>, digits: usize, hex: bool) -> Result<String> {
    let h = m.data().host()?;
    let (re, im) = (h.re(), h.im());
    let lines = col_major_indices(m)
        .into_par_iter()
        .map(|k| {
            format!(
                "{} {}",
                text_of(re, k, digits, hex),
                text_of(im, k, digits, hex)
            )
        })
        .collect();
    Ok(assemble(Field::Complex, m.rows(), m.cols(), lines))
}
