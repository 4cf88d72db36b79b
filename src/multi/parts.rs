//! What [`Split`](super::Split) needs of an array: pieces by element
//! range or index list on the host, and concatenation on the host.

use std::ops::Range;

use crate::complex::ComplexArray;
use crate::engine::Engine;
use crate::error::{Error, Result};
use crate::float::FloatArray;
use crate::int::IntArray;
use crate::linalg::Matrix;

use super::Pair;

/// An array that can be cut into pieces and put together again.
pub trait Parts: Sized + Send + Sync {
    /// Number of elements.
    fn len(&self) -> usize;
    /// Whether there are no elements.
    fn is_empty(&self) -> bool {
        self.len() == 0
    }
    /// A copy on `engine`.
    fn to_engine(&self, engine: &Engine) -> Result<Self>;
    /// `self` on `engine` (moved when already there).
    fn into_engine(self, engine: &Engine) -> Result<Self>;
    /// Elements `idx[0], idx[1], ...` of a host array, in that order.
    fn host_select(&self, idx: &[usize]) -> Result<Self>;
    /// Elements `r` of a host array.
    fn host_range(&self, r: Range<usize>) -> Result<Self> {
        self.host_select(&r.collect::<Vec<_>>())
    }
    /// The host arrays one after the other (at least one part).
    fn concat_host(parts: Vec<Self>) -> Result<Self>;
}

fn check_idx(len: usize, idx: &[usize]) -> Result<()> {
    match idx.iter().find(|&&i| i >= len) {
        Some(i) => Err(Error::Shape(format!(
            "element {i} asked of an array of {len}"
        ))),
        None => Ok(()),
    }
}

fn no_parts() -> Error {
    Error::Invalid("nothing to concatenate".into())
}

impl Parts for IntArray {
    fn len(&self) -> usize {
        IntArray::len(self)
    }
    fn to_engine(&self, engine: &Engine) -> Result<Self> {
        IntArray::to_engine(self, engine)
    }
    fn into_engine(self, engine: &Engine) -> Result<Self> {
        IntArray::into_engine(self, engine)
    }
    fn host_select(&self, idx: &[usize]) -> Result<Self> {
        check_idx(self.len(), idx)?;
        let l = self.limbs_per_element();
        let src = self.host_limbs().ok_or_else(|| not_host("IntArray"))?;
        let mut v = Vec::with_capacity(idx.len() * l);
        for &i in idx {
            v.extend_from_slice(&src[i * l..(i + 1) * l]);
        }
        IntArray::from_limbs(self.bits(), v)
    }
    fn host_range(&self, r: Range<usize>) -> Result<Self> {
        if r.start > r.end || r.end > self.len() {
            return Err(Error::Shape(format!(
                "elements {r:?} asked of an array of {}",
                self.len()
            )));
        }
        let l = self.limbs_per_element();
        let src = self.host_limbs().ok_or_else(|| not_host("IntArray"))?;
        IntArray::from_limbs(self.bits(), src[r.start * l..r.end * l].to_vec())
    }
    fn concat_host(parts: Vec<Self>) -> Result<Self> {
        let bits = parts.first().ok_or_else(no_parts)?.bits();
        let mut v = Vec::new();
        for p in &parts {
            if p.bits() != bits {
                return Err(Error::Shape(format!(
                    "concatenating {bits}-bit and {}-bit arrays",
                    p.bits()
                )));
            }
            v.extend_from_slice(p.host_limbs().ok_or_else(|| not_host("IntArray"))?);
        }
        IntArray::from_limbs(bits, v)
    }
}

fn not_host(what: &str) -> Error {
    Error::Invalid(format!("{what}: the parts must be in host memory"))
}

impl Parts for FloatArray {
    fn len(&self) -> usize {
        FloatArray::len(self)
    }
    fn to_engine(&self, engine: &Engine) -> Result<Self> {
        FloatArray::to_engine(self, engine)
    }
    fn into_engine(self, engine: &Engine) -> Result<Self> {
        FloatArray::into_engine(self, engine)
    }
    fn host_select(&self, idx: &[usize]) -> Result<Self> {
        check_idx(self.len(), idx)?;
        let l = self.limbs_per_element();
        let (tags, exps, limbs) = (self.tags()?, self.exps()?, self.limbs()?);
        let mut t = Vec::with_capacity(idx.len());
        let mut e = Vec::with_capacity(idx.len());
        let mut m = Vec::with_capacity(idx.len() * l);
        for &i in idx {
            t.push(tags[i]);
            e.push(exps[i]);
            m.extend_from_slice(&limbs[i * l..(i + 1) * l]);
        }
        FloatArray::from_raw(self.prec(), t, e, m)
    }
    fn concat_host(parts: Vec<Self>) -> Result<Self> {
        let prec = parts.first().ok_or_else(no_parts)?.prec();
        let (mut t, mut e, mut m) = (Vec::new(), Vec::new(), Vec::new());
        for p in &parts {
            if p.prec() != prec {
                return Err(Error::Shape(format!(
                    "concatenating {prec}-bit and {}-bit floats",
                    p.prec()
                )));
            }
            t.extend_from_slice(p.tags()?);
            e.extend_from_slice(p.exps()?);
            m.extend_from_slice(p.limbs()?);
        }
        FloatArray::from_raw(prec, t, e, m)
    }
}

impl Parts for ComplexArray {
    fn len(&self) -> usize {
        ComplexArray::len(self)
    }
    fn to_engine(&self, engine: &Engine) -> Result<Self> {
        ComplexArray::to_engine(self, engine)
    }
    fn into_engine(self, engine: &Engine) -> Result<Self> {
        ComplexArray::into_engine(self, engine)
    }
    fn host_select(&self, idx: &[usize]) -> Result<Self> {
        ComplexArray::new(self.re()?.host_select(idx)?, self.im()?.host_select(idx)?)
    }
    fn concat_host(parts: Vec<Self>) -> Result<Self> {
        let (re, im): (Vec<_>, Vec<_>) = parts.into_iter().map(|c| c.into_parts()).unzip();
        ComplexArray::new(FloatArray::concat_host(re)?, FloatArray::concat_host(im)?)
    }
}

impl<A: Parts, B: Parts> Parts for Pair<A, B> {
    fn len(&self) -> usize {
        self.0.len()
    }
    fn to_engine(&self, engine: &Engine) -> Result<Self> {
        Ok(Pair(self.0.to_engine(engine)?, self.1.to_engine(engine)?))
    }
    fn into_engine(self, engine: &Engine) -> Result<Self> {
        Ok(Pair(
            self.0.into_engine(engine)?,
            self.1.into_engine(engine)?,
        ))
    }
    fn host_select(&self, idx: &[usize]) -> Result<Self> {
        Ok(Pair(self.0.host_select(idx)?, self.1.host_select(idx)?))
    }
    fn concat_host(parts: Vec<Self>) -> Result<Self> {
        let (a, b): (Vec<A>, Vec<B>) = parts.into_iter().map(|Pair(a, b)| (a, b)).unzip();
        Ok(Pair(A::concat_host(a)?, B::concat_host(b)?))
    }
}

/// Rows `rows` and columns `cols` of a host matrix, as a new dense matrix.
pub(crate) fn matrix_block(
    m: &Matrix<FloatArray>,
    rows: Range<usize>,
    cols: Range<usize>,
) -> Result<Matrix<FloatArray>> {
    let ld = m.ld();
    let (nr, nc) = (rows.len(), cols.len());
    let idx: Vec<usize> = rows
        .flat_map(|i| cols.clone().map(move |j| i * ld + j))
        .collect();
    Matrix::from_array(m.data().host_select(&idx)?, nr, nc)
}
