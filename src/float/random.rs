//! Seeded random float arrays. Element `i` draws from its own SplitMix64
//! stream (seeded from `seed` and `i`), so the CUDA kernels can produce the
//! same bits element by element.

use super::ops::build;
use super::round::{Round, round_to};
use super::{Class, CpuFloats, EMAX, EMIN, check_prec};
use crate::error::{Error, Result};

/// SplitMix64 stream of element `i`.
pub struct Stream(u64);

impl Stream {
    pub fn new(seed: u64, i: u64) -> Stream {
        let mut s = Stream(seed ^ i.wrapping_mul(0xd1b5_4a32_d192_ed03));
        s.next();
        s
    }
    #[allow(clippy::should_implement_trait)]
    pub fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }
    /// Below `n` (`n >= 1`; modulo bias below 2^-32 for `n < 2^32`).
    pub fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }
    /// Uniform in `lo..=hi`.
    pub fn range(&mut self, lo: i64, hi: i64) -> i64 {
        let span = (hi as i128 - lo as i128 + 1) as u128;
        (lo as i128 + (self.next() as u128 % span) as i128) as i64
    }
}

impl CpuFloats {
    /// Uniform in [0, 1) with `prec` random bits (mpfr_urandomb): the
    /// integer of `prec` random bits divided by 2^prec (exact; zero when all
    /// bits are zero).
    pub fn random_unit(len: usize, prec: u64, seed: u64) -> Result<CpuFloats> {
        let n = check_prec(prec)?;
        Ok(build(len, prec, |i, out, _| {
            let mut r = Stream::new(seed, i as u64);
            let mut m: Vec<u64> = (0..n).map(|_| r.next()).collect();
            let low = (64 * n as u64 - prec) as u32;
            m[0] &= !((1u64 << low) - 1);
            let Some(top) = m.iter().rposition(|&x| x != 0) else {
                out.special(Class::Zero, false);
                return 0;
            };
            // Value 0.m (n limbs) = 0.(m normalized) * 2^-(shift).
            let lz = m[top].leading_zeros();
            let shift = 64 * (n - 1 - top) as i64 + lz as i64;
            let mut v = m[..=top].to_vec();
            if lz > 0 {
                for j in (1..v.len()).rev() {
                    v[j] = (v[j] << lz) | (v[j - 1] >> (64 - lz));
                }
                v[0] <<= lz;
            }
            round_to(out, false, -shift, &v, false, prec, Round::Zero)
        })?
        .0)
    }

    /// Random signs, exponents uniform in `emin..=emax` (within MPFR's
    /// range) and uniformly random normalized mantissas.
    pub fn random_exp(len: usize, prec: u64, seed: u64, emin: i64, emax: i64) -> Result<CpuFloats> {
        let n = check_prec(prec)?;
        if emin > emax || emin < EMIN || emax > EMAX {
            return Err(Error::Invalid(format!(
                "exponent range {emin}..={emax} is empty or outside {EMIN}..={EMAX}"
            )));
        }
        Ok(build(len, prec, |i, out, _| {
            let mut r = Stream::new(seed, i as u64);
            let neg = r.next() & 1 == 1;
            let e = r.range(emin, emax);
            let mut m: Vec<u64> = (0..n).map(|_| r.next()).collect();
            m[n - 1] |= 1 << 63;
            round_to(out, neg, e, &m, false, prec, Round::Zero)
        })?
        .0)
    }

    /// Uniform in [lo, hi): `lo + (hi - lo) * u` for `u` from
    /// [`CpuFloats::random_unit`] at precision `prec + 64`, rounded once to
    /// `prec` in mode `rnd`.
    pub fn random_uniform(
        len: usize,
        prec: u64,
        seed: u64,
        lo: f64,
        hi: f64,
        rnd: Round,
    ) -> Result<CpuFloats> {
        check_prec(prec)?;
        if !(lo.is_finite() && hi.is_finite() && lo < hi) {
            return Err(Error::Invalid(format!("bad range [{lo}, {hi})")));
        }
        let u = CpuFloats::random_unit(len, prec + 64, seed)?;
        // hi - lo of two doubles is exact at 2200 bits.
        let (l, _) = CpuFloats::from_f64s(53, &vec![lo; len], Round::Nearest)?;
        let (h, _) = CpuFloats::from_f64s(53, &vec![hi; len], Round::Nearest)?;
        let d = h.sub(&l, 2200, Round::Nearest)?;
        u.fma(&d, &l, prec, rnd)
    }
}
