//! Storage helpers of GMRES: the Krylov basis as the rows of one array on
//! the matrix's engine (so that the projections are `gemv`s on a
//! `(j+1) x n` [`Matrix`](crate::linalg::Matrix) over it), and the small
//! scalars of the Hessenberg columns on the CPU engine.

use crate::Engine;
use crate::complex::ComplexArray;
use crate::error::{Error, Result};
use crate::float::{CpuFloats, FloatArray, Store};

/// `data` with the elements `at .. at + row.len()` replaced by `row`'s
/// (same engine and precision; a device-to-device copy on CUDA).
pub(crate) fn put_row(data: FloatArray, at: usize, row: &FloatArray) -> Result<FloatArray> {
    let n = row.len();
    if row.prec() != data.prec() || at + n > data.len() {
        return Err(Error::Shape(format!(
            "gmres basis: a row of {n} elements at {at} ({} bits) into {} elements of {} bits",
            row.prec(),
            data.len(),
            data.prec()
        )));
    }
    let la = data.limbs_per_element();
    match data.into_store() {
        Store::Cpu(c) => {
            let r = row.host()?;
            let (mut tags, mut exps, mut limbs) =
                (c.tags().to_vec(), c.exps().to_vec(), c.limbs().to_vec());
            tags[at..at + n].copy_from_slice(r.tags());
            exps[at..at + n].copy_from_slice(r.exps());
            limbs[at * la..(at + n) * la].copy_from_slice(r.limbs());
            Ok(CpuFloats::from_raw(c.prec(), tags, exps, limbs)?.into())
        }
        Store::Cuda(mut d) => {
            let s = row.device().ok_or_else(|| {
                Error::EngineMismatch(
                    Engine::Cuda(d.engine().clone()).describe(),
                    row.engine().describe(),
                )
            })?;
            if n > 0 {
                let eng = d.engine().clone();
                let (sh, sl) = s.raw_parts();
                let (dh, dl) = d.raw_parts_mut();
                let st = eng.stream();
                st.memcpy_dtod(&sh.slice(0..n), &mut dh.slice_mut(at..at + n))
                    .map_err(Error::driver("copying a basis row on the device"))?;
                st.memcpy_dtod(
                    &sl.slice(0..n * la),
                    &mut dl.slice_mut(at * la..(at + n) * la),
                )
                .map_err(Error::driver("copying a basis row on the device"))?;
            }
            Ok(d.into())
        }
    }
}

/// [`put_row`] for both parts of a complex array.
pub(crate) fn put_crow(data: ComplexArray, at: usize, row: &ComplexArray) -> Result<ComplexArray> {
    let (re, im) = data.into_parts();
    let re = put_row(re, at, &row.re()?)?;
    let im = put_row(im, at, &row.im()?)?;
    ComplexArray::new(re, im)
}

/// The elements of `a` as one-element arrays on the CPU engine (exact
/// copies).
pub(crate) fn split(a: &FloatArray) -> Result<Vec<FloatArray>> {
    let h = a.host()?;
    let la = h.limbs_per_element();
    (0..h.len())
        .map(|i| {
            Ok(CpuFloats::from_raw(
                h.prec(),
                vec![h.tags()[i]],
                vec![h.exps()[i]],
                h.limbs()[i * la..(i + 1) * la].to_vec(),
            )?
            .into())
        })
        .collect()
}

/// The one-element arrays `xs` (all on the CPU engine, all of precision
/// `prec`) as one CPU array.
pub(crate) fn join(xs: &[FloatArray], prec: u64) -> Result<FloatArray> {
    let (mut tags, mut exps, mut limbs) = (Vec::new(), Vec::new(), Vec::new());
    for x in xs {
        let h = x.host()?;
        tags.extend_from_slice(h.tags());
        exps.extend_from_slice(h.exps());
        limbs.extend_from_slice(h.limbs());
    }
    Ok(CpuFloats::from_raw(prec, tags, exps, limbs)?.into())
}

/// [`split`] for complex arrays.
pub(crate) fn csplit(a: &ComplexArray) -> Result<Vec<ComplexArray>> {
    split(&a.re()?)?
        .into_iter()
        .zip(split(&a.im()?)?)
        .map(|(r, i)| ComplexArray::new(r, i))
        .collect()
}

/// [`join`] for complex arrays (both parts of precision `prec`).
pub(crate) fn cjoin(xs: &[ComplexArray], prec: u64) -> Result<ComplexArray> {
    let re = xs.iter().map(|x| x.re()).collect::<Result<Vec<_>>>()?;
    let im = xs.iter().map(|x| x.im()).collect::<Result<Vec<_>>>()?;
    ComplexArray::new(join(&re, prec)?, join(&im, prec)?)
}
