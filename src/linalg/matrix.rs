//! [`Matrix`]: `rows x cols` floats or complex floats, row-major with a
//! leading dimension, over one array on one engine (see the
//! [module docs](crate::linalg)).
//!
//! Construction parses strings on the CPU (as the arrays' `from_strs` do),
//! or makes zeros or seeded random elements directly on an engine, with the
//! same bits on every engine. Reading (`get`, `to_rows`, `to_row_strings`)
//! works on any engine: device data is read back first.

use malachite_float::Float;
use rayon::prelude::*;

use crate::complex::ComplexArray;
use crate::engine::Engine;
use crate::error::{Error, Result};
use crate::float::text::format_dec;
use crate::float::{CpuFloats, Elem, FloatArray, Round};

mod sealed {
    pub trait Sealed {}
    impl Sealed for crate::float::FloatArray {}
    impl Sealed for crate::complex::ComplexArray {}
}

/// What a [`Matrix`] needs of its elements; implemented by
/// [`FloatArray`] and [`ComplexArray`] only (the trait is sealed).
pub trait Elements: sealed::Sealed + Sized + std::fmt::Debug {
    /// Whether each element is complex (a real and an imaginary part).
    const COMPLEX: bool;

    /// Number of elements.
    fn len(&self) -> usize;

    /// Whether there are no elements.
    fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The engine the elements live on.
    fn engine(&self) -> Engine;

    /// A copy on `engine` (a plain copy when already there).
    fn to_engine(&self, engine: &Engine) -> Result<Self>;

    /// `self` on `engine`: moved without a copy when already there, else
    /// copied there.
    fn into_engine(self, engine: &Engine) -> Result<Self>;

    /// A copy on the same engine.
    fn try_clone(&self) -> Result<Self>;

    /// The precisions in bits of the real and the imaginary parts (a real
    /// array: its precision twice).
    fn precisions(&self) -> (u64, u64);
}

/// `Elements` for an array type: its own methods, and its precisions.
macro_rules! elements {
    ($t:ty, $complex:expr, |$a:ident| $precs:expr) => {
        impl Elements for $t {
            const COMPLEX: bool = $complex;

            fn len(&self) -> usize {
                <$t>::len(self)
            }

            fn engine(&self) -> Engine {
                <$t>::engine(self)
            }

            fn to_engine(&self, engine: &Engine) -> Result<Self> {
                <$t>::to_engine(self, engine)
            }

            fn into_engine(self, engine: &Engine) -> Result<Self> {
                <$t>::into_engine(self, engine)
            }

            fn try_clone(&self) -> Result<Self> {
                <$t>::try_clone(self)
            }

            fn precisions(&self) -> (u64, u64) {
                let $a = self;
                $precs
            }
        }
    };
}

elements!(FloatArray, false, |a| (a.prec(), a.prec()));
elements!(ComplexArray, true, |a| (a.prec_re(), a.prec_im()));

/// `rows x cols` elements of an array `A` ([`FloatArray`] or
/// [`ComplexArray`]) on one engine, row-major with leading dimension `ld`:
/// element `(i, j)` is element `i*ld + j` of the array.
#[derive(Debug)]
pub struct Matrix<A: Elements = FloatArray> {
    data: A,
    rows: usize,
    cols: usize,
    ld: usize,
}

/// A matrix of floats.
pub type FloatMatrix = Matrix<FloatArray>;

/// A matrix of complex floats.
pub type ComplexMatrix = Matrix<ComplexArray>;

/// The elements a `rows x cols` matrix with leading dimension `ld` needs:
/// `(rows-1)*ld + cols`, or 0 when it has no element.
fn needed(rows: usize, cols: usize, ld: usize) -> Result<usize> {
    if ld < cols {
        return Err(Error::Shape(format!(
            "a {rows} x {cols} matrix needs ld >= {cols}, got ld {ld}"
        )));
    }
    if rows == 0 || cols == 0 {
        return Ok(0);
    }
    (rows - 1)
        .checked_mul(ld)
        .and_then(|n| n.checked_add(cols))
        .ok_or_else(|| {
            Error::Shape(format!(
                "a {rows} x {cols} matrix with ld {ld} has more elements than an array can hold"
            ))
        })
}

/// `rows * cols`, checked.
fn count(rows: usize, cols: usize) -> Result<usize> {
    rows.checked_mul(cols).ok_or_else(|| {
        Error::Shape(format!(
            "a {rows} x {cols} matrix has more elements than an array can hold"
        ))
    })
}

/// The common length of `rows`, or an error naming the first row whose
/// length differs from row 0's.
fn row_len<T, R: AsRef<[T]>>(rows: &[R]) -> Result<usize> {
    let cols = rows.first().map_or(0, |r| r.as_ref().len());
    match rows.iter().position(|r| r.as_ref().len() != cols) {
        None => Ok(cols),
        Some(i) => Err(Error::Shape(format!(
            "row {i} has {} entries but row 0 has {cols}",
            rows[i].as_ref().len()
        ))),
    }
}

/// A parse error of the flat element `index` of a matrix with `cols`
/// columns, restated with its row and column (`part` names the part of a
/// complex element).
fn cell_error(e: Error, cols: usize, part: &str) -> Error {
    match e {
        Error::Parse {
            index,
            text,
            reason,
        } => Error::Invalid(format!(
            "row {}, column {}{part}: cannot parse {text:?}: {reason}",
            index / cols.max(1),
            index % cols.max(1)
        )),
        other => other,
    }
}

/// A flat row-major vector cut into `rows` rows of `cols` items.
fn split_rows<T>(flat: Vec<T>, rows: usize, cols: usize) -> Vec<Vec<T>> {
    let mut it = flat.into_iter();
    (0..rows)
        .map(|_| it.by_ref().take(cols).collect())
        .collect()
}

/// Two elements of one precision are the same bits.
fn same_bits(a: &Elem, b: &Elem) -> bool {
    a.class == b.class && a.neg == b.neg && a.exp == b.exp && a.limbs == b.limbs
}

/// The seed of the imaginary parts' streams in a complex random matrix:
/// SplitMix64's first output for `seed`, so the parts draw distinct streams.
fn im_seed(seed: u64) -> u64 {
    let mut z = seed.wrapping_add(0x9e37_79b9_7f4a_7c15);
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^ (z >> 31)
}

/// Decimal strings of the elements at `idx` of a host array.
fn dec_strings(h: &CpuFloats, idx: &[usize], digits: usize, rnd: Round) -> Vec<String> {
    idx.par_iter()
        .map(|&k| format_dec(&h.get(k), h.prec(), digits, rnd))
        .collect()
}

impl<A: Elements> Matrix<A> {
    // ---- construction -------------------------------------------------

    /// The `rows x cols` matrix over `data` with `ld = cols` (`data` needs
    /// at least `rows*cols` elements).
    pub fn from_array(data: A, rows: usize, cols: usize) -> Result<Self> {
        Self::from_array_ld(data, rows, cols, cols)
    }

    /// The `rows x cols` matrix over `data` with leading dimension `ld`
    /// (checked: `ld >= cols`, and `data` holds at least `(rows-1)*ld +
    /// cols` elements).
    pub fn from_array_ld(data: A, rows: usize, cols: usize, ld: usize) -> Result<Self> {
        let need = needed(rows, cols, ld)?;
        if data.len() < need {
            return Err(Error::Shape(format!(
                "a {rows} x {cols} matrix with ld {ld} needs {need} elements, the array has {}",
                data.len()
            )));
        }
        Ok(Matrix {
            data,
            rows,
            cols,
            ld,
        })
    }

    // ---- shape, data and engine -----------------------------------------

    /// Number of rows.
    pub fn rows(&self) -> usize {
        self.rows
    }

    /// Number of columns.
    pub fn cols(&self) -> usize {
        self.cols
    }

    /// The leading dimension: the distance between the starts of two
    /// consecutive rows in the array (`ld >= cols`).
    pub fn ld(&self) -> usize {
        self.ld
    }

    /// The engine the elements live on.
    pub fn engine(&self) -> Engine {
        self.data.engine()
    }

    /// The underlying array (element `(i, j)` at `i*ld + j`).
    pub fn data(&self) -> &A {
        &self.data
    }

    /// The underlying array, consuming the matrix.
    pub fn into_data(self) -> A {
        self.data
    }

    /// A copy on `engine`, with the same shape and leading dimension.
    pub fn to_engine(&self, engine: &Engine) -> Result<Self> {
        Ok(Matrix {
            data: self.data.to_engine(engine)?,
            ..*self
        })
    }

    /// A copy on the CPU.
    pub fn to_host(&self) -> Result<Self> {
        self.to_engine(&Engine::Cpu)
    }

    /// `self` on `engine`: moved without a copy when already there, else
    /// copied there.
    pub fn into_engine(self, engine: &Engine) -> Result<Self> {
        Ok(Matrix {
            data: self.data.into_engine(engine)?,
            ..self
        })
    }

    /// A copy on the same engine.
    pub fn try_clone(&self) -> Result<Self> {
        Ok(Matrix {
            data: self.data.try_clone()?,
            ..*self
        })
    }

    /// The array index of element `(i, j)`, or an error when it is outside
    /// the matrix.
    fn index(&self, i: usize, j: usize) -> Result<usize> {
        if i >= self.rows || j >= self.cols {
            return Err(Error::Invalid(format!(
                "element ({i}, {j}) is outside a {} x {} matrix",
                self.rows, self.cols
            )));
        }
        Ok(i * self.ld + j)
    }

    /// The array indices of the elements, row after row.
    fn indices(&self) -> Vec<usize> {
        (0..self.rows)
            .flat_map(|i| (0..self.cols).map(move |j| i * self.ld + j))
            .collect()
    }
}

impl Matrix<FloatArray> {
    /// Parses rows of decimal or hex-float strings on the CPU, each rounded
    /// to nearest at `prec` bits (as [`FloatArray::from_strs`]); ragged rows
    /// and malformed numbers are errors naming the row (and column).
    pub fn from_rows<R, S>(prec: u64, rows: &[R]) -> Result<Self>
    where
        R: AsRef<[S]>,
        S: AsRef<str> + Sync,
    {
        let cols = row_len(rows)?;
        let flat: Vec<&str> = rows
            .iter()
            .flat_map(|r| r.as_ref().iter().map(|s| s.as_ref()))
            .collect();
        let data = FloatArray::from_strs(prec, &flat).map_err(|e| cell_error(e, cols, ""))?;
        Self::from_array(data, rows.len(), cols)
    }

    /// The `rows x cols` matrix of +0 at `prec` bits on `engine`.
    pub fn zeros(engine: &Engine, rows: usize, cols: usize, prec: u64) -> Result<Self> {
        let data = FloatArray::zeros(engine, count(rows, cols)?, prec)?;
        Self::from_array(data, rows, cols)
    }

    /// A `rows x cols` matrix uniform in [-1, 1) at `prec` bits, drawn on
    /// `engine` by [`FloatArray::random_uniform`] (rounded toward -Inf), the
    /// same bits on every engine for one `seed`.
    pub fn random(engine: &Engine, rows: usize, cols: usize, prec: u64, seed: u64) -> Result<Self> {
        let n = count(rows, cols)?;
        let data = FloatArray::random_uniform(engine, n, prec, seed, -1.0, 1.0, Round::Down)?;
        Self::from_array(data, rows, cols)
    }

    /// Precision in bits.
    pub fn prec(&self) -> u64 {
        self.data.prec()
    }

    /// Element `(i, j)` as a malachite `Float` (on a device the array is
    /// read back: read many elements with [`Matrix::to_rows`]).
    pub fn get(&self, i: usize, j: usize) -> Result<Float> {
        let k = self.index(i, j)?;
        self.data.to_float(k)
    }

    /// Every element as a malachite `Float`, row after row.
    pub fn to_rows(&self) -> Result<Vec<Vec<Float>>> {
        let h = self.data.host()?;
        let flat = self.indices().into_iter().map(|k| h.to_float(k)).collect();
        Ok(split_rows(flat, self.rows, self.cols))
    }

    /// Every element as a decimal string with `digits` significant digits
    /// (0: enough to read back) rounded in mode `rnd`, row after row (as
    /// [`FloatArray::to_dec_strings`]).
    pub fn to_row_strings(&self, digits: usize, rnd: Round) -> Result<Vec<Vec<String>>> {
        let h = self.data.host()?;
        let flat = dec_strings(&h, &self.indices(), digits, rnd);
        Ok(split_rows(flat, self.rows, self.cols))
    }
}

impl Matrix<ComplexArray> {
    /// Parses rows of (real, imaginary) string pairs on the CPU, the parts
    /// rounded to nearest at `prec_re` and `prec_im` bits (as
    /// [`FloatArray::from_strs`]); ragged rows and malformed numbers are
    /// errors naming the row (and column and part).
    pub fn from_rows<R, S>(prec_re: u64, prec_im: u64, rows: &[R]) -> Result<Self>
    where
        R: AsRef<[(S, S)]>,
        S: AsRef<str> + Sync,
    {
        let cols = row_len(rows)?;
        let part = |f: fn(&(S, S)) -> &S| -> Vec<&str> {
            rows.iter()
                .flat_map(|r| r.as_ref().iter().map(|x| f(x).as_ref()))
                .collect()
        };
        let re = FloatArray::from_strs(prec_re, &part(|x| &x.0))
            .map_err(|e| cell_error(e, cols, ", real part"))?;
        let im = FloatArray::from_strs(prec_im, &part(|x| &x.1))
            .map_err(|e| cell_error(e, cols, ", imaginary part"))?;
        Self::from_array(ComplexArray::new(re, im)?, rows.len(), cols)
    }

    /// The `rows x cols` matrix of +0 + 0i at `prec_re`, `prec_im` bits on
    /// `engine`.
    pub fn zeros(
        engine: &Engine,
        rows: usize,
        cols: usize,
        prec_re: u64,
        prec_im: u64,
    ) -> Result<Self> {
        let data = ComplexArray::zeros(engine, count(rows, cols)?, prec_re, prec_im)?;
        Self::from_array(data, rows, cols)
    }

    /// A `rows x cols` matrix with both parts uniform in [-1, 1), drawn on
    /// `engine` as [`Matrix::<FloatArray>::random`]: the real parts with
    /// `seed`, the imaginary parts with a seed derived from it (distinct
    /// streams); the same bits on every engine.
    pub fn random(
        engine: &Engine,
        rows: usize,
        cols: usize,
        prec_re: u64,
        prec_im: u64,
        seed: u64,
    ) -> Result<Self> {
        let re = Matrix::<FloatArray>::random(engine, rows, cols, prec_re, seed)?;
        let im = Matrix::<FloatArray>::random(engine, rows, cols, prec_im, im_seed(seed))?;
        Self::from_array(ComplexArray::new(re.data, im.data)?, rows, cols)
    }

    /// Precision in bits of the real parts.
    pub fn prec_re(&self) -> u64 {
        self.data.prec_re()
    }

    /// Precision in bits of the imaginary parts.
    pub fn prec_im(&self) -> u64 {
        self.data.prec_im()
    }

    /// Element `(i, j)` as malachite `Float`s (real, imaginary) (on a
    /// device the array is read back: read many elements with
    /// [`Matrix::to_rows`]).
    pub fn get(&self, i: usize, j: usize) -> Result<(Float, Float)> {
        let k = self.index(i, j)?;
        let h = self.data.host()?;
        Ok((h.re().to_float(k), h.im().to_float(k)))
    }

    /// Every element as malachite `Float`s (real, imaginary), row after row.
    pub fn to_rows(&self) -> Result<Vec<Vec<(Float, Float)>>> {
        let h = self.data.host()?;
        let flat = self
            .indices()
            .into_iter()
            .map(|k| (h.re().to_float(k), h.im().to_float(k)))
            .collect();
        Ok(split_rows(flat, self.rows, self.cols))
    }

    /// Every element as a pair of decimal strings (real, imaginary) with
    /// `digits` significant digits each (0: enough to read back) rounded in
    /// mode `rnd`, row after row (as [`ComplexArray::to_dec_strings`]).
    pub fn to_row_strings(&self, digits: usize, rnd: Round) -> Result<Vec<Vec<(String, String)>>> {
        let h = self.data.host()?;
        let idx = self.indices();
        let re = dec_strings(h.re(), &idx, digits, rnd);
        let im = dec_strings(h.im(), &idx, digits, rnd);
        Ok(split_rows(
            re.into_iter().zip(im).collect(),
            self.rows,
            self.cols,
        ))
    }
}

/// Equal when both have the same shape and precision and the same elements
/// bit for bit, whatever their engines and leading dimensions (the padding
/// is ignored; device data is read back, and a failed read compares
/// unequal).
impl PartialEq for Matrix<FloatArray> {
    fn eq(&self, other: &Self) -> bool {
        if (self.rows, self.cols, self.prec()) != (other.rows, other.cols, other.prec()) {
            return false;
        }
        let (Ok(a), Ok(b)) = (self.data.host(), other.data.host()) else {
            return false;
        };
        self.indices()
            .into_iter()
            .zip(other.indices())
            .all(|(k, l)| same_bits(&a.get(k), &b.get(l)))
    }
}

/// Equal when both have the same shape and precisions and the same
/// elements bit for bit (both parts), whatever their engines and leading
/// dimensions (see `Matrix<FloatArray>`'s `PartialEq`).
impl PartialEq for Matrix<ComplexArray> {
    fn eq(&self, other: &Self) -> bool {
        let shape = |m: &Self| (m.rows, m.cols, m.prec_re(), m.prec_im());
        if shape(self) != shape(other) {
            return false;
        }
        let (Ok(a), Ok(b)) = (self.data.host(), other.data.host()) else {
            return false;
        };
        self.indices()
            .into_iter()
            .zip(other.indices())
            .all(|(k, l)| {
                same_bits(&a.re().get(k), &b.re().get(l))
                    && same_bits(&a.im().get(k), &b.im().get(l))
            })
    }
}
