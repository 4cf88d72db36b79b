//! Arrays of complex floats with GNU MPC's semantics, on either engine.
//!
//! A [`ComplexArray`] holds the real and the imaginary parts, each with its
//! own precision (as an `mpc_t`), on one engine (the CPU's `CpuComplex`, a
//! pair of host float arrays, or the device's `cuda::CudaComplex`). Every
//! operation takes the precisions of the two result parts and a rounding
//! mode per part ([`CRound`], MPC's `mpc_rnd_t`); each part is correctly
//! rounded in its own mode, and the `*_ternary` forms return MPC's pair of
//! ternary values per element (the sign of rounded minus exact, per part).
//! Special values (signed zeros, infinities, NaN) follow MPC, which follows
//! C99 Annex G.
//!
//! Arithmetic ([`arith`]) forms exact products (unbounded exponents) and
//! rounds once. Functions ([`func`]) decide special and exact cases first,
//! then evaluate each part as a rigorous interval at a working precision
//! from the float engine's correctly rounded operations in directed
//! rounding, and accept a part when both ends round alike (Ziv); the
//! working precision doubles for the undecided elements only. See
//! `notes/complex.md`.

mod arith;
mod array;
pub mod cuda;
pub mod cuda_func;
pub mod cuda_roots;
pub(crate) mod cuda_sts;
pub(crate) mod expr;
mod fma;
mod func;
pub mod polyroots;
mod pow;
pub mod reference;
pub(crate) mod scalar;

use rayon::prelude::*;

use crate::error::{Error, Result};
use crate::float::{Class, CpuFloats, Round, check_prec, limbs_for_prec};
use scalar::{F, Part};

pub use array::{CWithTernary, ComplexArray, ComplexTernary, RealWithTernary};
pub use func::CFunc;

/// MPC's rounding: one mode per part.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct CRound {
    pub re: Round,
    pub im: Round,
}

impl CRound {
    pub fn new(re: Round, im: Round) -> CRound {
        CRound { re, im }
    }

    /// The same mode for both parts.
    pub fn both(r: Round) -> CRound {
        CRound { re: r, im: r }
    }

    /// Every pair of modes (25).
    pub fn all() -> Vec<CRound> {
        Round::ALL
            .iter()
            .flat_map(|&re| Round::ALL.iter().map(move |&im| CRound { re, im }))
            .collect()
    }

    /// Parses "NN", "NZ", ... (MPC's MPC_RNDxy letters, real part first), or
    /// one letter for both parts.
    pub fn from_name(s: &str) -> Result<CRound> {
        let t = s.trim().to_ascii_uppercase();
        let t = t.strip_prefix("MPC_RND").unwrap_or(&t);
        let c: Vec<char> = t.chars().collect();
        let bad = || {
            Error::Invalid(format!(
                "unknown rounding {s:?}: expected two letters of N, Z, U, D, A (real part \
                 first, as NZ) or one for both parts"
            ))
        };
        match c.len() {
            1 => Ok(CRound::both(Round::from_name(t).map_err(|_| bad())?)),
            2 => Ok(CRound {
                re: Round::from_name(&c[0].to_string()).map_err(|_| bad())?,
                im: Round::from_name(&c[1].to_string()).map_err(|_| bad())?,
            }),
            _ => Err(bad()),
        }
    }

    /// The letters, as "NZ".
    pub fn name(self) -> String {
        format!("{}{}", self.re.letter(), self.im.letter())
    }
}

/// `len` complex floats: real parts of one precision, imaginary parts of
/// another.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct CpuComplex {
    re: CpuFloats,
    im: CpuFloats,
}

/// MPC's ternary pair per element (real, imaginary).
pub type Ternary = Vec<(i8, i8)>;

impl CpuComplex {
    /// A complex array from its parts (of equal lengths).
    pub fn new(re: CpuFloats, im: CpuFloats) -> Result<CpuComplex> {
        re.same_len(&im)?;
        Ok(CpuComplex { re, im })
    }

    pub fn len(&self) -> usize {
        self.re.len()
    }

    pub fn re(&self) -> &CpuFloats {
        &self.re
    }

    pub fn im(&self) -> &CpuFloats {
        &self.im
    }

    pub fn prec_re(&self) -> u64 {
        self.re.prec()
    }

    pub fn prec_im(&self) -> u64 {
        self.im.prec()
    }

    pub fn into_parts(self) -> (CpuFloats, CpuFloats) {
        (self.re, self.im)
    }

    /// Parses pairs of strings (decimal or hex floats, as
    /// [`CpuFloats::from_strs`]) rounded to nearest; an error names the
    /// element.
    pub fn from_strs<S: AsRef<str> + Sync>(
        prec_re: u64,
        prec_im: u64,
        items: &[(S, S)],
    ) -> Result<CpuComplex> {
        let re: Vec<&str> = items.iter().map(|x| x.0.as_ref()).collect();
        let im: Vec<&str> = items.iter().map(|x| x.1.as_ref()).collect();
        CpuComplex::new(
            CpuFloats::from_strs(prec_re, &re)?,
            CpuFloats::from_strs(prec_im, &im)?,
        )
    }

    fn same_len(&self, o: &CpuComplex) -> Result<()> {
        self.re.same_len(&o.re)
    }

    fn parts(&self, i: usize) -> (F, F) {
        (F::of(&self.re.get(i)), F::of(&self.im.get(i)))
    }

    /// Mantissa bits of the inputs (for the working-precision cap).
    fn in_bits(&self) -> u64 {
        64 * (self.re.limbs_per_element() + self.im.limbs_per_element()) as u64
    }
}

/// Writes one part's values into a new array of precision `p`.
fn assemble(p: u64, vals: &[&F]) -> Result<CpuFloats> {
    let n = limbs_for_prec(p);
    let len = vals.len();
    let mut tags = crate::engine::host::with_capacity("a complex array's tags", len)?;
    let mut exps = crate::engine::host::with_capacity("a complex array's exponents", len)?;
    let total = len.saturating_mul(n);
    let mut limbs = crate::engine::host::zeros::<u64>("a complex array's limbs", total)?;
    for (i, v) in vals.iter().enumerate() {
        tags.push(v.tag);
        if v.class() == Class::Normal {
            if v.m.len() == n {
                exps.push(v.exp);
                limbs[i * n..(i + 1) * n].copy_from_slice(&v.m);
            } else {
                // An exact value held at another precision (as +-1).
                let (r, t) = scalar::set(v, p, Round::Nearest);
                debug_assert!(t == 0);
                exps.push(r.exp);
                limbs[i * n..(i + 1) * n].copy_from_slice(&r.m);
            }
        } else {
            exps.push(0);
        }
    }
    CpuFloats::from_raw(p, tags, exps, limbs)
}

/// Elements per rayon task.
const BLOCK: usize = 64;

/// `f(i)` for every element in parallel; the first failing element is
/// reported.
fn eval_all<T, Fe>(len: usize, f: Fe) -> Result<Vec<T>>
where
    T: Send,
    Fe: Fn(usize) -> std::result::Result<T, String> + Sync,
{
    let res: Vec<std::result::Result<T, String>> = (0..len)
        .into_par_iter()
        .with_min_len(BLOCK)
        .map(&f)
        .collect();
    if let Some((i, Err(m))) = res.iter().enumerate().find(|(_, r)| r.is_err()) {
        return Err(Error::Invalid(format!("element {i}: {m}")));
    }
    Ok(res.into_iter().map(|r| r.unwrap()).collect())
}

/// Computes every element (both parts) in parallel; the first failing
/// element is reported.
pub(crate) fn build2<Fn2>(len: usize, pr: u64, pi: u64, f: Fn2) -> Result<(CpuComplex, Ternary)>
where
    Fn2: Fn(usize) -> std::result::Result<[Part; 2], String> + Sync,
{
    check_prec(pr)?;
    check_prec(pi)?;
    let res = eval_all(len, f)?;
    let re = assemble(pr, &res.iter().map(|r| &r[0].0).collect::<Vec<_>>())?;
    let im = assemble(pi, &res.iter().map(|r| &r[1].0).collect::<Vec<_>>())?;
    let t = res.iter().map(|r| (r[0].1, r[1].1)).collect();
    Ok((CpuComplex { re, im }, t))
}

/// Computes a real result per element in parallel.
pub(crate) fn build1<Fn1>(len: usize, p: u64, f: Fn1) -> Result<(CpuFloats, Vec<i8>)>
where
    Fn1: Fn(usize) -> std::result::Result<Part, String> + Sync,
{
    check_prec(p)?;
    let res = eval_all(len, f)?;
    let r = assemble(p, &res.iter().map(|r| &r.0).collect::<Vec<_>>())?;
    Ok((r, res.iter().map(|r| r.1).collect()))
}

impl CpuComplex {
    fn binary(
        &self,
        b: &CpuComplex,
        pr: u64,
        pi: u64,
        f: impl Fn(&(F, F), &(F, F)) -> [Part; 2] + Sync,
    ) -> Result<(CpuComplex, Ternary)> {
        self.same_len(b)?;
        build2(self.len(), pr, pi, |i| Ok(f(&self.parts(i), &b.parts(i))))
    }

    fn unary(
        &self,
        pr: u64,
        pi: u64,
        f: impl Fn(&(F, F)) -> [Part; 2] + Sync,
    ) -> Result<(CpuComplex, Ternary)> {
        build2(self.len(), pr, pi, |i| Ok(f(&self.parts(i))))
    }

    /// A binary operation evaluated with a working-precision cap (see
    /// [`scalar::cap_for`]), as div and pow need.
    fn capped2(
        &self,
        b: &CpuComplex,
        pr: u64,
        pi: u64,
        f: impl Fn(&(F, F), &(F, F), u64) -> std::result::Result<[Part; 2], String> + Sync,
    ) -> Result<(CpuComplex, Ternary)> {
        self.same_len(b)?;
        let cap = scalar::cap_for(pr.max(pi), self.in_bits() + b.in_bits());
        build2(self.len(), pr, pi, |i| {
            let (x, y) = (self.parts(i), b.parts(i));
            let cap = scalar::cap_elem(cap, &[&x.0, &x.1, &y.0, &y.1]);
            f(&x, &y, cap)
        })
    }

    /// `self + b` (mpc_add) and the ternary pairs.
    pub fn add_ternary(
        &self,
        b: &CpuComplex,
        pr: u64,
        pi: u64,
        rnd: CRound,
    ) -> Result<(CpuComplex, Ternary)> {
        self.binary(b, pr, pi, |x, y| arith::add(x, y, false, pr, pi, rnd))
    }

    /// `self - b` (mpc_sub) and the ternary pairs.
    pub fn sub_ternary(
        &self,
        b: &CpuComplex,
        pr: u64,
        pi: u64,
        rnd: CRound,
    ) -> Result<(CpuComplex, Ternary)> {
        self.binary(b, pr, pi, |x, y| arith::add(x, y, true, pr, pi, rnd))
    }

    /// `self * b` (mpc_mul) and the ternary pairs.
    pub fn mul_ternary(
        &self,
        b: &CpuComplex,
        pr: u64,
        pi: u64,
        rnd: CRound,
    ) -> Result<(CpuComplex, Ternary)> {
        self.binary(b, pr, pi, |x, y| arith::mul(x, y, pr, pi, rnd))
    }

    /// `self * b + c` (mpc_fma) and the ternary pairs.
    pub fn fma_ternary(
        &self,
        b: &CpuComplex,
        c: &CpuComplex,
        pr: u64,
        pi: u64,
        rnd: CRound,
    ) -> Result<(CpuComplex, Ternary)> {
        self.same_len(b)?;
        self.same_len(c)?;
        let q = [
            (self.prec_re(), self.prec_im()),
            (b.prec_re(), b.prec_im()),
            (c.prec_re(), c.prec_im()),
        ];
        build2(self.len(), pr, pi, |i| {
            Ok(fma::fma(
                &self.parts(i),
                &b.parts(i),
                &c.parts(i),
                &q,
                pr,
                pi,
                rnd,
            ))
        })
    }

    /// `self / b` (mpc_div) and the ternary pairs.
    pub fn div_ternary(
        &self,
        b: &CpuComplex,
        pr: u64,
        pi: u64,
        rnd: CRound,
    ) -> Result<(CpuComplex, Ternary)> {
        self.capped2(b, pr, pi, |x, y, cap| arith::div(x, y, pr, pi, rnd, cap))
    }

    /// `self^b` (mpc_pow: `exp(b log self)` on the principal branch, with
    /// MPC's special cases and signs of zero; see `pow.rs`) and the ternary
    /// pairs.
    pub fn pow_ternary(
        &self,
        b: &CpuComplex,
        pr: u64,
        pi: u64,
        rnd: CRound,
    ) -> Result<(CpuComplex, Ternary)> {
        self.capped2(b, pr, pi, |x, y, cap| pow::pow(x, y, pr, pi, rnd, cap))
    }

    /// `self * b` for a real array `b` (mpc_mul_fr).
    pub fn mul_fr_ternary(
        &self,
        b: &CpuFloats,
        pr: u64,
        pi: u64,
        rnd: CRound,
    ) -> Result<(CpuComplex, Ternary)> {
        self.re.same_len(b)?;
        build2(self.len(), pr, pi, |i| {
            let x = self.parts(i);
            let y = F::of(&b.get(i));
            Ok([
                scalar::mul(&x.0, &y, pr, rnd.re),
                scalar::mul(&x.1, &y, pi, rnd.im),
            ])
        })
    }

    /// `self^2` (mpc_sqr) and the ternary pairs.
    pub fn sqr_ternary(&self, pr: u64, pi: u64, rnd: CRound) -> Result<(CpuComplex, Ternary)> {
        self.unary(pr, pi, |x| arith::sqr(x, pr, pi, rnd))
    }

    /// `-self` (mpc_neg) and the ternary pairs.
    pub fn neg_ternary(&self, pr: u64, pi: u64, rnd: CRound) -> Result<(CpuComplex, Ternary)> {
        self.unary(pr, pi, |x| {
            [
                scalar::set(&x.0.negate(), pr, rnd.re),
                scalar::set(&x.1.negate(), pi, rnd.im),
            ]
        })
    }

    /// The conjugate (mpc_conj) and the ternary pairs.
    pub fn conj_ternary(&self, pr: u64, pi: u64, rnd: CRound) -> Result<(CpuComplex, Ternary)> {
        self.unary(pr, pi, |x| {
            [
                scalar::set(&x.0, pr, rnd.re),
                scalar::set(&x.1.negate(), pi, rnd.im),
            ]
        })
    }

    /// `self` rounded to other precisions (mpc_set).
    pub fn set_prec_ternary(&self, pr: u64, pi: u64, rnd: CRound) -> Result<(CpuComplex, Ternary)> {
        self.unary(pr, pi, |x| {
            [scalar::set(&x.0, pr, rnd.re), scalar::set(&x.1, pi, rnd.im)]
        })
    }

    /// `self * 2^k` (mpc_mul_2si) and the ternary pairs.
    pub fn mul_2si_ternary(
        &self,
        k: i64,
        pr: u64,
        pi: u64,
        rnd: CRound,
    ) -> Result<(CpuComplex, Ternary)> {
        self.unary(pr, pi, |x| {
            [
                scalar::mul_2si(&x.0, k, pr, rnd.re),
                scalar::mul_2si(&x.1, k, pi, rnd.im),
            ]
        })
    }

    /// `self / 2^k` (mpc_div_2si) and the ternary pairs.
    pub fn div_2si_ternary(
        &self,
        k: i64,
        pr: u64,
        pi: u64,
        rnd: CRound,
    ) -> Result<(CpuComplex, Ternary)> {
        self.mul_2si_ternary(k.checked_neg().unwrap_or(i64::MAX), pr, pi, rnd)
    }

    /// `|self|` (mpc_abs, which is mpfr_hypot(re, im)) and the ternary
    /// values.
    pub fn abs_ternary(&self, p: u64, rnd: Round) -> Result<(CpuFloats, Vec<i8>)> {
        let (r, t, _) =
            self.re()
                .func2_ternary(self.im(), crate::float::func::Func2::Hypot, p, rnd)?;
        Ok((r, t))
    }

    /// `re^2 + im^2` (mpc_norm) and the ternary values.
    pub fn norm_ternary(&self, p: u64, rnd: Round) -> Result<(CpuFloats, Vec<i8>)> {
        build1(self.len(), p, |i| Ok(arith::norm(&self.parts(i), p, rnd)))
    }

    /// The argument (mpc_arg, which is mpfr_atan2(im, re)) and the ternary
    /// values.
    pub fn arg_ternary(&self, p: u64, rnd: Round) -> Result<(CpuFloats, Vec<i8>)> {
        let (r, t, _) =
            self.im()
                .func2_ternary(self.re(), crate::float::func::Func2::Atan2, p, rnd)?;
        Ok((r, t))
    }

    /// `f(self)`, each part correctly rounded, and the ternary pairs.
    pub fn func_ternary(
        &self,
        f: CFunc,
        pr: u64,
        pi: u64,
        rnd: CRound,
    ) -> Result<(CpuComplex, Ternary)> {
        let cap = scalar::cap_for(pr.max(pi), self.in_bits());
        build2(self.len(), pr, pi, |i| {
            let x = self.parts(i);
            let cap = scalar::cap_elem(cap, &[&x.0, &x.1]);
            func::eval(f, &x, pr, pi, rnd, cap)
        })
    }
}
