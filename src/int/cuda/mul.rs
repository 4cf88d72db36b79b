//! Multiplication and the fused polynomial on CUDA.
//!
//! Two tiers (the kernels are in `int_mul.cu`, whose header explains them):
//! - band schoolbook, one group of threads per instance, for widths below
//!   [`NTT_MIN_WORDS`] 32-bit words (template parameter: the band width C);
//! - number-theoretic transform over three primes with CRT, from there up to
//!   2^20 bits (subquadratic; several launches, processed in chunks of
//!   instances so that the residue scratch stays bounded).
//!
//! `MPARRAY_MUL_TIER=band|ntt` forces a tier where both apply, and
//! `MPARRAY_MUL_BAND` the band width (for measurements).

use std::sync::Arc;

use cudarc::driver::sys::CUfunction_attribute;
use cudarc::driver::{CudaFunction, CudaSlice, LaunchConfig, PushKernelArg};

use super::{alloc, alloc_zeros_for, launched};
use crate::engine::CudaEngine;
use crate::engine::cuda::memory::fit;
use crate::error::{Error, Result};
use crate::kernels::{INT_MUL, Instance};

/// From this many 32-bit words per operand (2^16 bits) the NTT is used.
pub const NTT_MIN_WORDS: usize = 2048;
/// The band schoolbook's largest width (its shared memory grows with it).
const BAND_MAX_WORDS: usize = 4096;
/// The NTT's largest operand (2^20 bits): transforms of length 2^16.
const NTT_MAX_WORDS: usize = 32768;
/// Threads per band block we aim for (several instances per block when small).
const BAND_BLOCK: usize = 128;
/// Shared memory per band block we aim for, so that several blocks share an SM.
const BAND_SMEM: usize = 44 * 1024;
/// Bound on the NTT residue scratch (bytes); instances are processed in chunks.
const NTT_SCRATCH: usize = 512 << 20;
/// Block transform length of the NTT kernel.
const NP: usize = 4096;

const BANDS: [u32; 3] = [4, 8, 16];

fn inst_band(c: u32) -> Instance {
    Instance::new(&INT_MUL, &[("BAND", c as i64)])
}

fn inst_ntt() -> Instance {
    Instance::new(&INT_MUL, &[("MUL_NTT", 1)])
}

/// Every instantiation this module can request.
pub fn instances() -> Vec<Instance> {
    let mut v: Vec<Instance> = BANDS.iter().map(|&c| inst_band(c)).collect();
    v.push(inst_ntt());
    v
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Tier {
    Band(u32),
    Ntt,
}

/// Band width C of the schoolbook: 4 up to 8 words, 8 up to 128, then 16
/// (`MPARRAY_MUL_BAND=4|8|16` overrides where the block stays <= 256 threads).
fn band_width(words: usize) -> u32 {
    let forced = std::env::var("MPARRAY_MUL_BAND")
        .ok()
        .and_then(|v| v.parse::<u32>().ok())
        .filter(|c| BANDS.contains(c) && band_geo(words, true, *c as usize, 2).g <= 256);
    forced.unwrap_or(match words {
        0..=8 => 4,
        9..=128 => 8,
        _ => 16,
    })
}

fn tier(words: usize) -> Tier {
    let forced = std::env::var("MPARRAY_MUL_TIER").unwrap_or_default();
    let band_ok = words <= BAND_MAX_WORDS;
    let ntt_ok = (512..=NTT_MAX_WORDS).contains(&words);
    match forced.as_str() {
        "band" if band_ok => Tier::Band(band_width(words)),
        "ntt" if ntt_ok => Tier::Ntt,
        _ if words >= NTT_MIN_WORDS => Tier::Ntt,
        _ => Tier::Band(band_width(words)),
    }
}

/// Geometry of the band kernel for one instance (mirrors `make_shape`).
struct BandGeo {
    g: usize,
    per_inst_words: usize,
    nb: usize,
}

fn band_geo(words: usize, wide: bool, c: usize, narrays: usize) -> BandGeo {
    let nc = words.div_ceil(2 * c) * 2 * c;
    let nb = if wide { 2 } else { 1 } * nc / c;
    let pad = nc + 2 * c;
    BandGeo {
        g: nb / 2,
        per_inst_words: narrays * pad + nb * (c + 2),
        nb,
    }
}

/// Instances per block, threads per block and dynamic shared bytes.
fn band_launch(geo: &BandGeo) -> (usize, u32, u32) {
    let per_bytes = geo.per_inst_words * 4 + geo.nb;
    let ipb = (BAND_BLOCK / geo.g).min(BAND_SMEM / per_bytes).max(1);
    let threads = (ipb * geo.g).div_ceil(32) * 32;
    let nch = (ipb * geo.nb).div_ceil(32);
    let smem = 4 * (ipb * geo.per_inst_words + nch) + (ipb * geo.nb).div_ceil(4) * 4;
    (ipb, threads as u32, smem as u32)
}

fn with_smem(f: &CudaFunction, bytes: u32) -> Result<()> {
    if bytes > 48 * 1024 {
        f.set_attribute(
            CUfunction_attribute::CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES,
            bytes as i32,
        )
        .map_err(Error::driver("raising the shared-memory limit of int_mul"))?;
    }
    Ok(())
}

fn band_cfg(len: usize, ipb: usize, threads: u32, smem: u32) -> LaunchConfig {
    LaunchConfig {
        grid_dim: (len.div_ceil(ipb) as u32, 1, 1),
        block_dim: (threads, 1, 1),
        shared_mem_bytes: smem,
    }
}

#[allow(clippy::too_many_arguments)]
fn mul_band(
    eng: &Arc<CudaEngine>,
    r: &mut CudaSlice<u64>,
    a: &CudaSlice<u64>,
    b: &CudaSlice<u64>,
    len: usize,
    limbs: usize,
    wide: bool,
    c: u32,
) -> Result<()> {
    let geo = band_geo(2 * limbs, wide, c as usize, 2);
    let (ipb, threads, smem) = band_launch(&geo);
    let f = eng.function(&inst_band(c), "int_mul_band")?;
    with_smem(&f, smem)?;
    let (n, l, w, ip) = (len as u64, limbs as u32, wide as u32, ipb as u32);
    let mut bld = eng.stream().launch_builder(&f);
    bld.arg(r).arg(a).arg(b).arg(&n).arg(&l).arg(&w).arg(&ip);
    // SAFETY: r holds len*limbs*(1+wide) limbs, a and b len*limbs each.
    launched(
        unsafe { bld.launch(band_cfg(len, ipb, threads, smem)) },
        "int_mul_band",
    )
}

fn mul_any(
    eng: &Arc<CudaEngine>,
    a: &CudaSlice<u64>,
    b: &CudaSlice<u64>,
    len: usize,
    limbs: usize,
    wide: bool,
) -> Result<CudaSlice<u64>> {
    let mut r = alloc(eng, len * limbs * if wide { 2 } else { 1 })?;
    if len > 0 {
        match tier(2 * limbs) {
            Tier::Band(c) => mul_band(eng, &mut r, a, b, len, limbs, wide, c)?,
            Tier::Ntt => ntt_products(eng, &mut r, a, b, len, limbs, wide)?,
        }
    }
    Ok(r)
}

pub fn mul(
    eng: &Arc<CudaEngine>,
    a: &CudaSlice<u64>,
    b: &CudaSlice<u64>,
    len: usize,
    limbs: usize,
) -> Result<CudaSlice<u64>> {
    let _op = crate::engine::cuda::memory::op_scope("int mul");
    mul_any(eng, a, b, len, limbs, false)
}

pub fn mul_wide(
    eng: &Arc<CudaEngine>,
    a: &CudaSlice<u64>,
    b: &CudaSlice<u64>,
    len: usize,
    limbs: usize,
) -> Result<CudaSlice<u64>> {
    let _op = crate::engine::cuda::memory::op_scope("int mul_wide");
    mul_any(eng, a, b, len, limbs, true)
}

/// `(a*a+b)*(b*b+b)+a*b` (low halves): one kernel in the band tier; in the
/// NTT tier two transform launches and two combine passes per chunk.
pub fn poly(
    eng: &Arc<CudaEngine>,
    a: &CudaSlice<u64>,
    b: &CudaSlice<u64>,
    len: usize,
    limbs: usize,
) -> Result<CudaSlice<u64>> {
    let mut r = alloc(eng, len * limbs)?;
    if len == 0 {
        return Ok(r);
    }
    match tier(2 * limbs) {
        Tier::Band(c) => {
            let geo = band_geo(2 * limbs, false, c as usize, 4);
            let (ipb, threads, smem) = band_launch(&geo);
            let f = eng.function(&inst_band(c), "int_poly_band")?;
            with_smem(&f, smem)?;
            let (n, l, ip) = (len as u64, limbs as u32, ipb as u32);
            let mut bld = eng.stream().launch_builder(&f);
            bld.arg(&mut r).arg(a).arg(b).arg(&n).arg(&l).arg(&ip);
            // SAFETY: r, a, b hold len*limbs limbs each.
            launched(
                unsafe { bld.launch(band_cfg(len, ipb, threads, smem)) },
                "int_poly_band",
            )?;
        }
        Tier::Ntt => ntt_poly(eng, &mut r, a, b, len, limbs)?,
    }
    Ok(r)
}

// ---------------------------------------------------------------------------
// NTT tier.

/// log2 of the number of cosets: the transform length is n = 4096 * 2^log_r
/// >= 2 * words (no wrap-around of the full product).
fn ntt_log_r(words: usize) -> u32 {
    let n = (2 * words).next_power_of_two().max(NP);
    (n / NP).trailing_zeros()
}

/// Instances per chunk so that `nprod` products' residues fit the scratch.
fn ntt_chunk(words: usize, nprod: usize) -> usize {
    let per = nprod * 3 * (NP << ntt_log_r(words)) * 4;
    (NTT_SCRATCH / per).clamp(1, 65535)
}

struct Ntt {
    conv: CudaFunction,
    combine: CudaFunction,
    tables: Arc<CudaSlice<u32>>,
}

fn ntt(eng: &Arc<CudaEngine>) -> Result<Ntt> {
    Ok(Ntt {
        conv: eng.function(&inst_ntt(), "int_ntt_conv")?,
        combine: eng.function(&inst_ntt(), "int_ntt_combine")?,
        tables: ntt_tables(eng)?,
    })
}

impl Ntt {
    /// Residues of `nprod` products of chunk operands (`ninst` instances from
    /// limb offset `off`) into scr.
    #[allow(clippy::too_many_arguments)]
    fn conv(
        &self,
        eng: &Arc<CudaEngine>,
        scr: &mut CudaSlice<u32>,
        a: &CudaSlice<u64>,
        b: &CudaSlice<u64>,
        off: usize,
        ninst: usize,
        limbs: usize,
        nprod: u32,
    ) -> Result<()> {
        let words = 2 * limbs;
        let log_r = ntt_log_r(words);
        let (av, bv) = (
            a.slice(off..off + ninst * limbs),
            b.slice(off..off + ninst * limbs),
        );
        let (nw, ni) = (words as u32, ninst as u32);
        let mut bld = eng.stream().launch_builder(&self.conv);
        bld.arg(scr)
            .arg(&av)
            .arg(&bv)
            .arg(self.tables.as_ref())
            .arg(&nw)
            .arg(&log_r)
            .arg(&nprod)
            .arg(&ni);
        let cfg = LaunchConfig {
            grid_dim: (3 << log_r, ninst as u32, 1),
            block_dim: ((NP / 16) as u32, 1, 1),
            shared_mem_bytes: 0,
        };
        // SAFETY: scr holds nprod*ninst*3*2^log_r*NP residues; the views hold
        // ninst instances.
        launched(unsafe { bld.launch(cfg) }, "int_ntt_conv")
    }

    /// Output words (kw per instance) of product `prod` from the residues,
    /// plus an optional addend of the same width.
    #[allow(clippy::too_many_arguments)]
    fn combine(
        &self,
        eng: &Arc<CudaEngine>,
        out: &mut CudaSlice<u64>,
        out_off: usize,
        scr: &CudaSlice<u32>,
        addend: Option<(&CudaSlice<u64>, usize)>,
        ninst: usize,
        words: usize,
        kw: usize,
        prod: u32,
    ) -> Result<()> {
        let log_r = ntt_log_r(words);
        let mut ov = out.slice_mut(out_off..out_off + ninst * kw / 2);
        let (kw32, ni) = (kw as u32, ninst as u32);
        let null = 0u64;
        let add_view = addend.map(|(s, off)| s.slice(off..off + ninst * kw / 2));
        let mut bld = eng.stream().launch_builder(&self.combine);
        bld.arg(&mut ov).arg(scr);
        match &add_view {
            Some(v) => bld.arg(v),
            None => bld.arg(&null),
        };
        bld.arg(self.tables.as_ref())
            .arg(&kw32)
            .arg(&log_r)
            .arg(&ni)
            .arg(&prod);
        let cfg = LaunchConfig {
            grid_dim: (ninst as u32, 1, 1),
            block_dim: (256, 1, 1),
            shared_mem_bytes: 0,
        };
        // SAFETY: out view holds ninst*kw words, the addend the same; scr was
        // filled by conv for these instances.
        launched(unsafe { bld.launch(cfg) }, "int_ntt_combine")
    }
}

fn ntt_products(
    eng: &Arc<CudaEngine>,
    r: &mut CudaSlice<u64>,
    a: &CudaSlice<u64>,
    b: &CudaSlice<u64>,
    len: usize,
    limbs: usize,
    wide: bool,
) -> Result<()> {
    let words = 2 * limbs;
    let kw = if wide { 2 * words } else { words };
    let k = ntt(eng)?;
    // Instances per pass: up to the scratch budget, fewer when the device
    // has less free (the passes give the same bits at any chunk size).
    let per = 3 * (NP << ntt_log_r(words));
    let chunk = fit(eng, "NTT scratch", ntt_chunk(words, 1).min(len), per * 4)?;
    let mut scr = alloc_zeros_for::<u32>(eng, "NTT scratch", chunk * per)?;
    let mut start = 0;
    while start < len {
        let m = chunk.min(len - start);
        k.conv(eng, &mut scr, a, b, start * limbs, m, limbs, 1)?;
        k.combine(eng, r, start * kw / 2, &scr, None, m, words, kw, 0)?;
        start += m;
    }
    Ok(())
}

fn ntt_poly(
    eng: &Arc<CudaEngine>,
    r: &mut CudaSlice<u64>,
    a: &CudaSlice<u64>,
    b: &CudaSlice<u64>,
    len: usize,
    limbs: usize,
) -> Result<()> {
    let words = 2 * limbs;
    let k = ntt(eng)?;
    // As in ntt_products; the three limb temporaries per instance too.
    let per = 3 * 3 * (NP << ntt_log_r(words));
    let chunk = fit(
        eng,
        "NTT scratch",
        ntt_chunk(words, 3).min(len),
        per * 4 + 3 * limbs * 8,
    )?;
    let mut scr = alloc_zeros_for::<u32>(eng, "NTT scratch", chunk * per)?;
    // t1 = a*a + b, t2 = b*b + b, p = a*b (low halves), per chunk.
    let mut t1 = alloc(eng, chunk * limbs)?;
    let mut t2 = alloc(eng, chunk * limbs)?;
    let mut p = alloc(eng, chunk * limbs)?;
    let mut start = 0;
    while start < len {
        let m = chunk.min(len - start);
        let off = start * limbs;
        k.conv(eng, &mut scr, a, b, off, m, limbs, 3)?;
        k.combine(eng, &mut t1, 0, &scr, Some((b, off)), m, words, words, 0)?;
        k.combine(eng, &mut t2, 0, &scr, Some((b, off)), m, words, words, 1)?;
        k.combine(eng, &mut p, 0, &scr, None, m, words, words, 2)?;
        k.conv(eng, &mut scr, &t1, &t2, 0, m, limbs, 1)?;
        k.combine(eng, r, off, &scr, Some((&p, 0)), m, words, words, 0)?;
        start += m;
    }
    Ok(())
}

// ---------------------------------------------------------------------------
// NTT tables (layout mirrored in int_mul.cu).

/// The three primes: 7*2^26+1, 45*2^24+1, 119*2^23+1.
pub(crate) const PRIMES: [u32; 3] = [469_762_049, 754_974_721, 998_244_353];
const PRIME_STRIDE: usize = 1 << 19;
const T_F16: usize = 0;
const T_I16: usize = 32;
const T_FL4096: usize = 64;
const T_IL4096: usize = 7744;
const T_FL256: usize = 15424;
const T_IL256: usize = 15904;
const T_TW: usize = 16384;
const T_ITW: usize = 270_336;
const T_CRT: usize = 3 * PRIME_STRIDE;
const MAX_LOG_R: u32 = 4;

fn powmod(mut b: u64, mut e: u64, p: u64) -> u64 {
    let mut r = 1u64;
    b %= p;
    while e > 0 {
        if e & 1 == 1 {
            r = r * b % p;
        }
        b = b * b % p;
        e >>= 1;
    }
    r
}

fn inv(x: u64, p: u64) -> u64 {
    powmod(x, p - 2, p)
}

fn shoup(w: u64, p: u64) -> u32 {
    ((w << 32) / p) as u32
}

/// A primitive 2^16-th root of unity modulo p.
fn root16(p: u64) -> u64 {
    let g = (2..)
        .find(|&g| powmod(g, (p - 1) / 2, p) == p - 1)
        .expect("a non-residue exists");
    powmod(g, (p - 1) >> 16, p)
}

/// The whole table buffer (u32 words).
pub(crate) fn build_ntt_tables() -> Vec<u32> {
    let mut t = vec![0u32; T_CRT + 16 * (MAX_LOG_R as usize + 1)];
    for (pi, &p32) in PRIMES.iter().enumerate() {
        let p = p32 as u64;
        let base = pi * PRIME_STRIDE;
        let w = root16(p);
        let wi = inv(w, p);
        let mut put = |at: usize, v: u64| {
            t[base + at] = v as u32;
            t[base + at + 1] = shoup(v, p);
        };
        // w_L = w^(2^16/L); powers by index.
        let pw = |root: u64, l: u64, e: u64| powmod(root, (e % l) * (65536 / l), p);
        for e in 0..16u64 {
            put(T_F16 + 2 * e as usize, pw(w, 16, e));
            put(T_I16 + 2 * e as usize, pw(wi, 16, e));
        }
        for (fwd, inv_, l) in [(T_FL4096, T_IL4096, 4096u64), (T_FL256, T_IL256, 256u64)] {
            let m = l / 16;
            for k in 1..16u64 {
                for j in 0..m {
                    let at = 2 * ((k - 1) * m + j) as usize;
                    put(fwd + at, pw(w, l, j * k));
                    put(inv_ + at, pw(wi, l, j * k));
                }
            }
        }
        for log_r in 0..=MAX_LOG_R {
            let r_count = 1u64 << log_r;
            let n = NP as u64 * r_count;
            let off = (r_count as usize - 1) * 2 * NP;
            let (wn, wni) = (powmod(w, 65536 / n, p), powmod(wi, 65536 / n, p));
            for r in 0..r_count {
                let (step, stepi) = (powmod(wn, r, p), powmod(wni, r, p));
                let (mut x, mut y) = (1u64, 1u64);
                for i in 0..NP {
                    let at = off + 2 * (r as usize * NP + i);
                    put(T_TW + at, x);
                    put(T_ITW + at, y);
                    x = x * step % p;
                    y = y * stepi % p;
                }
            }
        }
    }
    // CRT (Garner) constants per transform length, scale 2^32/n folded in.
    let [p0, p1, p2] = PRIMES.map(|p| p as u64);
    for log_r in 0..=MAX_LOG_R {
        let n = (NP as u64) << log_r;
        let s = |p: u64| (1u64 << 32) % p * inv(n % p, p) % p;
        let inv01 = inv(p0 * p1 % p2, p2);
        let vals = [
            (s(p0), p0),
            (s(p1) * inv(p0, p1) % p1, p1),
            (inv(p0, p1), p1),
            (s(p2) * inv01 % p2, p2),
            (inv01, p2),
            (inv(p1, p2), p2),
        ];
        for (i, (v, p)) in vals.iter().enumerate() {
            let at = T_CRT + 16 * log_r as usize + 2 * i;
            t[at] = *v as u32;
            t[at + 1] = shoup(*v, *p);
        }
    }
    t
}

/// The NTT tables on `eng`, built and uploaded once per engine.
fn ntt_tables(eng: &Arc<CudaEngine>) -> Result<Arc<CudaSlice<u32>>> {
    eng.resource("int_mul.ntt_tables", |_| {
        super::upload(eng, &build_ntt_tables())
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tiers_cover_every_width() {
        for words in [2usize, 8, 10, 32, 34, 128, 2046, 2048, 4096, 32768] {
            match tier(words) {
                Tier::Band(c) => assert!(words < NTT_MIN_WORDS && c >= 4, "{words}"),
                Tier::Ntt => assert!((NTT_MIN_WORDS..=NTT_MAX_WORDS).contains(&words)),
            }
        }
        assert_eq!(ntt_log_r(2048), 0);
        assert_eq!(ntt_log_r(2049), 1);
        assert_eq!(ntt_log_r(32768), 4);
        // Band blocks stay within the opt-in shared memory of an H200.
        for words in [2usize, 100, 2046, 4096] {
            for (wide, arrays) in [(false, 2), (true, 2), (false, 4)] {
                let geo = band_geo(words, wide, band_width(words) as usize, arrays);
                let (_, threads, smem) = band_launch(&geo);
                assert!(threads <= 256 && threads % 32 == 0 && smem < 200 * 1024);
            }
        }
    }

    #[test]
    fn ntt_tables_are_consistent() {
        let t = build_ntt_tables();
        for (pi, &p) in PRIMES.iter().enumerate() {
            let p = p as u64;
            let b = pi * PRIME_STRIDE;
            let w16 = t[b + T_F16 + 2] as u64;
            assert_eq!(powmod(w16, 16, p), 1);
            assert_eq!(powmod(w16, 8, p), p - 1);
            assert_eq!(w16 * t[b + T_I16 + 2] as u64 % p, 1);
            // Shoup companions.
            for at in (0..PRIME_STRIDE).step_by(2 * 997) {
                let (w, ws) = (t[b + at] as u64, t[b + at + 1] as u64);
                assert_eq!(ws, (w << 32) / p, "prime {pi} word {at}");
            }
            // The twist root for 2^16 has order 2^16 and w_n^R = w_4096.
            let tw = |log_r: usize, r: usize, i: usize| {
                t[b + T_TW + ((1 << log_r) - 1) * 2 * NP + 2 * (r * NP + i)] as u64
            };
            let w65536 = tw(4, 1, 1);
            assert_eq!(powmod(w65536, 1 << 15, p), p - 1);
            assert_eq!(powmod(w65536, 16, p), t[b + T_FL4096 + 2] as u64);
            assert_eq!(powmod(tw(2, 1, 1), 4, p), t[b + T_FL4096 + 2] as u64);
        }
        // Garner on known values: c -> residues scaled by n*2^-32 -> c.
        let [p0, p1, p2] = PRIMES.map(|p| p as u128);
        for log_r in 0..=MAX_LOG_R as usize {
            let n = (NP as u128) << log_r;
            let crt = &t[T_CRT + 16 * log_r..];
            for c in [0u128, 1, 12345, (1 << 79) - 1, 0xdead_beef_1234_5678_9abc] {
                let x = |p: u128| {
                    let inv32 = inv((1u64 << 32) % p as u64, p as u64) as u128;
                    (c % p) * (n % p) % p * inv32 % p
                };
                let (x0, x1, x2) = (x(p0), x(p1), x(p2));
                let m = |x: u128, k: usize, p: u128| x * crt[2 * k] as u128 % p;
                let c0 = m(x0, 0, p0);
                let y1 = (m(x1, 1, p1) + p1 - m(c0, 2, p1)) % p1;
                let y2 = (m(x2, 3, p2) + 2 * p2 - m(c0, 4, p2) - m(y1, 5, p2)) % p2;
                assert_eq!(c0 + p0 * (y1 + p1 * y2), c, "log_r {log_r}");
            }
        }
    }
}
