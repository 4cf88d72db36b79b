//! BLAS level 1 on vectors ([`FloatArray`], [`ComplexArray`]): `dot`,
//! `dotu`/`dotc`, `nrm2`, `asum`, `axpy`, `scal`.
//!
//! Every reduction is the correctly rounded exact result of its terms (see
//! [`exact`](super::exact)): independent of the order of the terms, of
//! threads and of engines. Scalars (`a`) are one-element arrays on the
//! operands' engine. Complex results are computed part by part, each part
//! the exact sum of the real products that make it up (so special values
//! follow real arithmetic, `mpfr_sum` on the products, not C99 Annex G's
//! infinity recovery), each correctly rounded in its mode of the
//! [`CRound`].
//!
//! Engines: the CPU engine computes everything here; `dot`, `dotu` and
//! `dotc` through the [fixed-point fast path](super::fixed) (the exact
//! core for what it cannot decide: the same bits). On CUDA arrays the
//! real `dot`, the complex `dotu`/`dotc`, `nrm2` and `asum` run on the
//! device ([`cuda`](super::cuda), `cuda_complex`: the same bits; `nrm2`'s
//! square root is taken on the host from the device's sum of squares), the
//! real `axpy`/`scal` are the array's own `fma`/`mul` with the scalar
//! broadcast, and the other operations (and what the device does not
//! serve: precisions above its largest tier) are computed by the CPU engine
//! on host copies and written back to the device.

use malachite_base::num::arithmetic::traits::FloorSqrt;
use malachite_base::num::logic::traits::SignificantBits;
use malachite_nz::natural::Natural;
use rayon::prelude::*;

use super::exact::Terms;
use super::fixed;
use crate::complex::{CRound, CWithTernary, ComplexArray, ComplexTernary, CpuComplex};
use crate::engine::Engine;
use crate::error::{Error, Result};
use crate::float::func::{Interval, round_interval};
use crate::float::round::{Out, Round};
use crate::float::{CpuFloats, Elem, FloatArray, TernaryArray, WithTernary, check_prec, round_int};

/// The engine common to `engines`, or the error naming two that differ.
pub(super) fn common_engine(engines: &[Engine]) -> Result<Engine> {
    let first = engines[0].clone();
    for e in &engines[1..] {
        if !first.same_as(e) {
            return Err(Error::EngineMismatch(first.describe(), e.describe()));
        }
    }
    Ok(first)
}

/// A host result placed on `engine` with its ternary values.
pub(super) fn place(engine: &Engine, r: (CpuFloats, Vec<i8>)) -> Result<WithTernary> {
    Ok((
        FloatArray::from(r.0).into_engine(engine)?,
        TernaryArray::from_vec(engine, r.1)?,
    ))
}

/// Complex host parts placed on `engine` with their ternary values.
pub(super) fn place_c(
    engine: &Engine,
    re: (CpuFloats, Vec<i8>),
    im: (CpuFloats, Vec<i8>),
) -> Result<CWithTernary> {
    let z = ComplexArray::from(CpuComplex::new(re.0, im.0)?).into_engine(engine)?;
    Ok((
        z,
        ComplexTernary {
            re: TernaryArray::from_vec(engine, re.1)?,
            im: TernaryArray::from_vec(engine, im.1)?,
        },
    ))
}

/// `len` elements of precision `prec` computed in parallel, element `i` by
/// `f(i, out)` returning its ternary value.
pub(super) fn build_par<F>(len: usize, prec: u64, f: F) -> Result<(CpuFloats, Vec<i8>)>
where
    F: Fn(usize, &mut Out) -> i8 + Sync,
{
    let n = check_prec(prec)?;
    let mut tags = vec![0u8; len];
    let mut exps = vec![0i64; len];
    let mut limbs = vec![0u64; len * n];
    let mut tern = vec![0i8; len];
    tags.par_iter_mut()
        .zip(exps.par_iter_mut())
        .zip(limbs.par_chunks_mut(n.max(1)))
        .zip(tern.par_iter_mut())
        .enumerate()
        .for_each(|(i, (((tag, exp), m), t))| {
            let mut out = Out { tag, exp, m };
            *t = f(i, &mut out);
        });
    Ok((CpuFloats::from_raw(prec, tags, exps, limbs)?, tern))
}

/// A one-element result from `f(terms)`.
fn one<F>(prec: u64, f: F) -> Result<(CpuFloats, Vec<i8>)>
where
    F: Fn(&mut Out) -> i8 + Sync,
{
    build_par(1, prec, |_, out| f(out))
}

/// Checks that a scalar argument has one element.
pub(super) fn scalar_len(name: &str, len: usize) -> Result<()> {
    if len != 1 {
        return Err(Error::Shape(format!(
            "the scalar {name} must have 1 element, got {len}"
        )));
    }
    Ok(())
}

fn same_len(op: &str, a: usize, b: usize) -> Result<()> {
    if a != b {
        return Err(Error::Shape(format!(
            "{op}: vectors of {a} and {b} elements"
        )));
    }
    Ok(())
}

/// `sqrt` of the exact sum of nonnegative `terms`, correctly rounded to `p`
/// bits in mode `rnd` (Ziv's loop on the exact sum: the sum rounded down to
/// `w` bits brackets the exact one, so no double rounding; exact square
/// roots are detected exactly).
pub(super) fn sqrt_sum(terms: &mut Terms, out: &mut Out, p: u64, rnd: Round) -> i8 {
    let Some(t0) = terms.max_top() else {
        // NaN, +Inf, or a sum of zeros (+0): sqrt keeps it.
        return terms.sum(out, p, rnd);
    };
    if terms.has_special() {
        // NaN or +Inf (squares and absolute values are never -Inf).
        return terms.sum(out, p, rnd);
    }
    // Scale by 2^(-2c) so that the sum lies near 1 (within MPFR's range).
    let c = t0.div_euclid(2);
    terms.scale_2exp(-2 * c);
    let mut w = p + 32;
    let t = loop {
        let (m, s, exact) = terms.sum_floor(w);
        let mut g = (2 * (w + 4)).saturating_sub(m.significant_bits());
        if (s - g as i64).rem_euclid(2) != 0 {
            g += 1;
        }
        let a = &m << g;
        let s2 = s - g as i64;
        let r = (&a).floor_sqrt();
        let e = s2 / 2 + c;
        if exact && &r * &r == a {
            let mut mag = r.to_limbs_asc();
            break round_int(out, false, &mut mag, e, false, p, rnd);
        }
        let hi = if exact {
            &r + Natural::from(1u32)
        } else {
            (&a + (Natural::from(1u32) << g)).floor_sqrt() + Natural::from(1u32)
        };
        let iv = Interval {
            lo: r.into(),
            hi: hi.into(),
            s: e,
        };
        if let Some(t) = round_interval(out, &iv, p, rnd) {
            break t;
        }
        w *= 2;
    };
    terms.scale_2exp(2 * c);
    t
}

impl FloatArray {
    /// `sum(self[i] * y[i])`: the exact dot product correctly rounded to
    /// `prec` bits in mode `rnd` (`mpfr_dot`/`mpfr_sum` semantics), as a
    /// one-element array, with its ternary value.
    pub fn dot(&self, y: &FloatArray, prec: u64, rnd: Round) -> Result<WithTernary> {
        same_len("dot", self.len(), y.len())?;
        let engine = common_engine(&[self.engine(), y.engine()])?;
        if let Some(r) = super::cuda::dot(self, y, prec, rnd)? {
            return Ok(r);
        }
        let (x, y) = (self.host()?, y.host()?);
        let exact = |_: usize, out: &mut Out| {
            let mut t = Terms::new();
            for i in 0..x.len() {
                t.push(&[&x.get(i), &y.get(i)], false);
            }
            t.sum(out, prec, rnd)
        };
        let fast = fixed::real(
            (1, 1, x.len()),
            |_, k| x.get(k),
            Some(|_, k| y.get(k)),
            fixed::one(),
            None::<(Elem, fn(usize, usize) -> Elem<'static>)>,
            |_, _| true,
            (prec, rnd),
            exact,
        );
        let r = match fast {
            Some(r) => r?,
            None => build_par(1, prec, exact)?,
        };
        place(&engine, r)
    }

    /// `sqrt(sum(self[i]^2))`: the square root of the exact sum of squares,
    /// correctly rounded (NaN if an element is NaN, else +Inf if one is
    /// infinite; +0 for no elements), one element, with its ternary value.
    pub fn nrm2(&self, prec: u64, rnd: Round) -> Result<WithTernary> {
        let engine = self.engine();
        if let Some(d) = self.device()
            && let Some(r) = super::cuda_complex::nrm2(&[d], prec, rnd)?
        {
            return Ok(r);
        }
        let x = self.host()?;
        let r = one(prec, |out| {
            let mut t = Terms::new();
            for i in 0..x.len() {
                let e = x.get(i);
                t.push(&[&e, &e], false);
            }
            sqrt_sum(&mut t, out, prec, rnd)
        })?;
        place(&engine, r)
    }

    /// `sum(|self[i]|)`, the exact sum correctly rounded, one element, with
    /// its ternary value.
    pub fn asum(&self, prec: u64, rnd: Round) -> Result<WithTernary> {
        let engine = self.engine();
        if let Some(d) = self.device()
            && let Some(r) = super::cuda_complex::asum(&[d], prec, rnd)?
        {
            return Ok(r);
        }
        let x = self.host()?;
        let r = one(prec, |out| {
            let mut t = Terms::new();
            for i in 0..x.len() {
                let e = Elem {
                    neg: false,
                    ..x.get(i)
                };
                t.push(&[&e], false);
            }
            t.sum(out, prec, rnd)
        })?;
        place(&engine, r)
    }

    /// `a*x[i] + self[i]` per element, rounded once (`mpfr_fma`), with the
    /// ternary values; `a` is a one-element array.
    pub fn axpy(
        &self,
        a: &FloatArray,
        x: &FloatArray,
        prec: u64,
        rnd: Round,
    ) -> Result<WithTernary> {
        scalar_len("a", a.len())?;
        same_len("axpy", x.len(), self.len())?;
        common_engine(&[self.engine(), a.engine(), x.engine()])?;
        broadcast(a, x.len())?.fma_ternary(x, self, prec, rnd)
    }

    /// `a*self[i]` per element, correctly rounded (`mpfr_mul`), with the
    /// ternary values; `a` is a one-element array.
    pub fn scal(&self, a: &FloatArray, prec: u64, rnd: Round) -> Result<WithTernary> {
        scalar_len("a", a.len())?;
        common_engine(&[self.engine(), a.engine()])?;
        broadcast(a, self.len())?.mul_ternary(self, prec, rnd)
    }
}

/// The one element of `a` repeated `n` times, on `a`'s engine.
fn broadcast(a: &FloatArray, n: usize) -> Result<FloatArray> {
    let h = a.host()?;
    let e = h.get(0);
    let limbs: Vec<u64> = std::iter::repeat_n(e.limbs, n).flatten().copied().collect();
    let tag = h.tags()[0];
    let b = CpuFloats::from_raw(h.prec(), vec![tag; n], vec![e.exp; n], limbs)?;
    FloatArray::from(b).into_engine(&a.engine())
}

/// A complex factor: the real part, and the imaginary part (None: a real
/// factor) with whether it is negated (a conjugate).
#[derive(Clone, Copy)]
pub(super) struct CF<'a> {
    pub re: Elem<'a>,
    pub im: Option<(Elem<'a>, bool)>,
}

impl<'a> CF<'a> {
    pub fn of(z: &'a CpuComplex, i: usize, conj: bool) -> CF<'a> {
        CF {
            re: z.re().get(i),
            im: Some((z.im().get(i), conj)),
        }
    }

    pub fn real(x: Elem<'a>) -> CF<'a> {
        CF { re: x, im: None }
    }
}

/// Pushes onto `terms` the real products making up the real (`im` false)
/// or imaginary part of the product of `factors`, negated when `negate`.
pub(super) fn push_cpart(terms: &mut Terms, factors: &[CF], im: bool, negate: bool) {
    let n = factors.len();
    let mut parts: Vec<Elem> = Vec::with_capacity(n);
    'mask: for mask in 0u32..(1 << n) {
        let count = mask.count_ones();
        if (count % 2 == 1) != im {
            continue;
        }
        // i^count: +1, +i, -1, -i.
        let mut neg = negate ^ ((count / 2) % 2 == 1);
        parts.clear();
        for (j, f) in factors.iter().enumerate() {
            if mask >> j & 1 == 1 {
                let Some((e, c)) = f.im else {
                    continue 'mask;
                };
                neg ^= c;
                parts.push(e);
            } else {
                parts.push(f.re);
            }
        }
        let refs: Vec<&Elem> = parts.iter().collect();
        terms.push(&refs, neg);
    }
}

impl ComplexArray {
    fn dot_parts(
        &self,
        y: &ComplexArray,
        conj: bool,
        pr: u64,
        pi: u64,
        rnd: CRound,
    ) -> Result<CWithTernary> {
        same_len(if conj { "dotc" } else { "dotu" }, self.len(), y.len())?;
        let engine = common_engine(&[self.engine(), y.engine()])?;
        if let Some(r) = super::cuda_complex::dot(self, y, conj, (pr, pi), rnd)? {
            return Ok(r);
        }
        let (x, y) = (self.host()?, y.host()?);
        let exact = |im: bool, p: u64, r: Round, out: &mut Out| {
            let mut t = Terms::new();
            for i in 0..x.len() {
                push_cpart(
                    &mut t,
                    &[CF::of(&x, i, conj), CF::of(&y, i, false)],
                    im,
                    false,
                );
            }
            t.sum(out, p, r)
        };
        let (ps, rs) = ([pr, pi], [rnd.re, rnd.im]);
        let fast = fixed::complex(
            (1, 1, x.len()),
            (|_, k| fixed::cget(&x, k), conj),
            (|_, k| fixed::cget(&y, k), false),
            (fixed::one(), None),
            None::<(
                (Elem, Option<Elem>),
                fn(usize, usize) -> fixed::CElem<'static>,
            )>,
            |_, _| true,
            (ps, rs),
            |part, _, out| exact(part == 1, ps[part], rs[part], out),
        );
        let (re, im) = match fast {
            Some(r) => r?.into(),
            None => {
                let part = |im: bool, p: u64, r: Round| one(p, |out| exact(im, p, r, out));
                (part(false, pr, rnd.re)?, part(true, pi, rnd.im)?)
            }
        };
        place_c(&engine, re, im)
    }

    /// `sum(self[i] * y[i])` (unconjugated), each part the exact sum
    /// correctly rounded to `pr`/`pi` bits in its mode of `rnd`, one
    /// element, with its ternary pair.
    pub fn dotu(&self, y: &ComplexArray, pr: u64, pi: u64, rnd: CRound) -> Result<CWithTernary> {
        self.dot_parts(y, false, pr, pi, rnd)
    }

    /// `sum(conj(self[i]) * y[i])` (the first argument conjugated), each part
    /// correctly rounded, one element, with its ternary pair.
    pub fn dotc(&self, y: &ComplexArray, pr: u64, pi: u64, rnd: CRound) -> Result<CWithTernary> {
        self.dot_parts(y, true, pr, pi, rnd)
    }

    /// `sqrt(sum(re[i]^2 + im[i]^2))`, correctly rounded (as
    /// [`FloatArray::nrm2`]), a real one-element array with its ternary
    /// value.
    pub fn nrm2(&self, prec: u64, rnd: Round) -> Result<WithTernary> {
        let engine = self.engine();
        if let Some(d) = self.device()
            && let Some(r) = super::cuda_complex::nrm2(&[d.re(), d.im()], prec, rnd)?
        {
            return Ok(r);
        }
        let x = self.host()?;
        let r = one(prec, |out| {
            let mut t = Terms::new();
            for i in 0..x.len() {
                let (a, b) = (x.re().get(i), x.im().get(i));
                t.push(&[&a, &a], false);
                t.push(&[&b, &b], false);
            }
            sqrt_sum(&mut t, out, prec, rnd)
        })?;
        place(&engine, r)
    }

    /// `sum(|re[i]| + |im[i]|)` (BLAS's `asum`), the exact sum correctly
    /// rounded, a real one-element array with its ternary value.
    pub fn asum(&self, prec: u64, rnd: Round) -> Result<WithTernary> {
        let engine = self.engine();
        if let Some(d) = self.device()
            && let Some(r) = super::cuda_complex::asum(&[d.re(), d.im()], prec, rnd)?
        {
            return Ok(r);
        }
        let x = self.host()?;
        let r = one(prec, |out| {
            let mut t = Terms::new();
            for i in 0..x.len() {
                for e in [x.re().get(i), x.im().get(i)] {
                    t.push(&[&Elem { neg: false, ..e }], false);
                }
            }
            t.sum(out, prec, rnd)
        })?;
        place(&engine, r)
    }

    /// `a*x[i] + self[i]` per element, each part the exact value rounded
    /// once; `a` is a one-element array.
    pub fn axpy(
        &self,
        a: &ComplexArray,
        x: &ComplexArray,
        pr: u64,
        pi: u64,
        rnd: CRound,
    ) -> Result<CWithTernary> {
        scalar_len("a", a.len())?;
        same_len("axpy", x.len(), self.len())?;
        let engine = common_engine(&[self.engine(), a.engine(), x.engine()])?;
        let (y, a, x) = (self.host()?, a.host()?, x.host()?);
        let part = |im: bool, p: u64, r: Round| {
            build_par(y.len(), p, |i, out| {
                let mut t = Terms::new();
                push_cpart(
                    &mut t,
                    &[CF::of(&a, 0, false), CF::of(&x, i, false)],
                    im,
                    false,
                );
                let yi = if im { y.im().get(i) } else { y.re().get(i) };
                t.push(&[&yi], false);
                t.sum(out, p, r)
            })
        };
        place_c(&engine, part(false, pr, rnd.re)?, part(true, pi, rnd.im)?)
    }

    /// `a*self[i]` per element, each part the exact value rounded once; `a`
    /// is a one-element array.
    pub fn scal(&self, a: &ComplexArray, pr: u64, pi: u64, rnd: CRound) -> Result<CWithTernary> {
        scalar_len("a", a.len())?;
        let engine = common_engine(&[self.engine(), a.engine()])?;
        let (x, a) = (self.host()?, a.host()?);
        let part = |im: bool, p: u64, r: Round| {
            build_par(x.len(), p, |i, out| {
                let mut t = Terms::new();
                push_cpart(
                    &mut t,
                    &[CF::of(&a, 0, false), CF::of(&x, i, false)],
                    im,
                    false,
                );
                t.sum(out, p, r)
            })
        };
        place_c(&engine, part(false, pr, rnd.re)?, part(true, pi, rnd.im)?)
    }
}
