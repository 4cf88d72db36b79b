//! Huge products across ranks: a distributed four-step NTT.
//!
//! Layout: with `P` ranks and a transform of `L = P * M` points (`M` a power
//! of two), rank `r` holds the limbs `r, r + P, r + 2P, ...` of each operand
//! (a cyclic share: `M` coefficients) and gets the product's coefficients
//! at the same positions. Writing `n = r + P j` and `k = k1 + M k2`:
//!
//! `X[k1 + M k2] = sum_r w_P^(r k2) * w_L^(r k1) * sum_j x_r[j] w_M^(j k1)`
//!
//! so a forward transform is (1) a local length-`M` NTT of each rank's
//! share, (2) the twiddles `w_L^(r k1)`, (3) one all-to-all that gives rank
//! `s` its block of `k1` from every rank, (4) local length-`P` DFTs across
//! the ranks' values. The pointwise product runs where the values are, and
//! the inverse runs the four steps backwards (one more all-to-all). Each
//! rank holds `1/P` of the transforms (three primes, `3 M` words per
//! operand) and does `1/P` of the butterflies. The local NTT is a
//! radix-2 Gentleman-Sande forward / Cooley-Tukey inverse pair (natural in,
//! bit-reversed out and back), so the order of `k1` never needs fixing: the
//! twiddles use the bit-reversed index.
//!
//! Primes: three below 2^62 with `315 * 2^33 | p - 1`, so `L` may be any
//! power of two up to 2^33 times a rank count whose odd part divides 315
//! (P = 1..10, 12, 14, 15, 16, ...). Coefficients are below
//! `L * 2^128 < p0 p1 p2 ~ 2^186` for every such `L`: exact. Each rank puts
//! its coefficients together by Garner's CRT (three limbs each); rank 0
//! gathers them and carries (linear).
//!
//! What is not distributed: in [`mul`] rank 0 holds both operands and the
//! product (the CLI reads and writes one file each, and converts decimal
//! there); [`mul_shares`] is the part whose memory and work are split.

use rayon::prelude::*;

use super::{Comm, block};
use crate::error::{Error, Result};
use crate::modp::{inv, mulmod, powmod};

/// The primes (`315 * 2^33 * c + 1`) and a primitive root of each.
const PRIMES: [u64; 3] = [
    0x3fff_b5ec_0000_0001,
    0x3fff_7866_0000_0001,
    0x3fff_7104_0000_0001,
];
const GENERATORS: [u64; 3] = [17, 13, 11];
/// The odd part of `p - 1` shared by the primes, and its power of two.
const ODD: usize = 315;
const TWO: u32 = 33;

/// Montgomery arithmetic modulo `p < 2^62` (R = 2^64), values lazy in
/// `[0, 2p)`.
#[derive(Clone, Copy)]
struct Mont {
    p: u64,
    /// `-p^-1 mod 2^64`.
    neg_inv: u64,
    /// `R^2 mod p`.
    r2: u64,
}

impl Mont {
    fn new(p: u64) -> Mont {
        let mut x: u64 = 1;
        for _ in 0..7 {
            x = x.wrapping_mul(2u64.wrapping_sub(p.wrapping_mul(x)));
        }
        let r1 = ((1u128 << 64) % p as u128) as u64;
        Mont {
            p,
            neg_inv: x.wrapping_neg(),
            r2: mulmod(r1, r1, p),
        }
    }

    /// `a b / R mod p` in `[0, 2p)`, for `a b < 2^64 p`.
    #[inline(always)]
    fn mul(self, a: u64, b: u64) -> u64 {
        let t = a as u128 * b as u128;
        let m = (t as u64).wrapping_mul(self.neg_inv);
        ((t + m as u128 * self.p as u128) >> 64) as u64
    }

    /// `x R mod p` (Montgomery form) of a reduced `x`, fully reduced.
    fn to_mont(self, x: u64) -> u64 {
        self.full(self.mul(x, self.r2))
    }

    /// `[0, 2p)` to `[0, p)`.
    #[inline(always)]
    fn full(self, x: u64) -> u64 {
        sub_if(x, self.p)
    }

    /// `[0, 4p)` to `[0, 2p)`.
    #[inline(always)]
    fn half(self, x: u64) -> u64 {
        sub_if(x, 2 * self.p)
    }
}

/// `x - m` if `x >= m`, else `x`, without a branch (the lazy reductions'
/// outcomes are random: a branch mispredicts half the time). On x86-64 a
/// `cmov` in assembly, as in `huge::cpu::ntt` (written as a select, LLVM
/// may emit a branch or emulated vector compares).
#[inline(always)]
fn sub_if(x: u64, m: u64) -> u64 {
    #[cfg(target_arch = "x86_64")]
    {
        let r: u64;
        // SAFETY: register-only arithmetic.
        unsafe {
            std::arch::asm!(
                "sub {t}, {m}",
                "cmovb {t}, {x}",
                t = inout(reg) x => r,
                x = in(reg) x,
                m = in(reg) m,
                options(pure, nomem, nostack),
            );
        }
        r
    }
    #[cfg(not(target_arch = "x86_64"))]
    x.min(x.wrapping_sub(m))
}

/// `w^i` for `i < n` in Montgomery form, in parallel chunks.
fn powers(m: Mont, w: u64, n: usize) -> Vec<u64> {
    const CH: usize = 1 << 12;
    let mut v = vec![0u64; n];
    let wm = m.to_mont(w);
    v.par_chunks_mut(CH).enumerate().for_each(|(c, out)| {
        let mut x = m.to_mont(powmod(w, (c * CH) as u64, m.p));
        for o in out {
            *o = x;
            x = m.full(m.mul(x, wm));
        }
    });
    v
}

/// Blocks of at most this many points finish their stages in cache.
const BLOCK: usize = 1 << 13;

/// The twiddles of a length-`n` transform with root `w`: `w_{2h}^j` is
/// `top[j * n / (2h)]`; the stages inside a block (`2h <= BLOCK`) read a
/// small table of their own instead (`small[h + j]`), which stays in
/// cache where the strided reads of `top` would not.
struct Roots {
    n: usize,
    top: Vec<u64>,
    small: Vec<u64>,
}

impl Roots {
    fn new(m: Mont, w: u64, n: usize) -> Roots {
        let top = powers(m, w, n / 2);
        let b = BLOCK.min(n);
        let mut small = vec![0u64; b.max(1)];
        let mut h = 1;
        while 2 * h <= b {
            for j in 0..h {
                small[h + j] = top[j * (n / (2 * h))];
            }
            h *= 2;
        }
        Roots { n, top, small }
    }

    /// The table and stride of the stage of half-size `h`.
    #[inline(always)]
    fn stage(&self, h: usize) -> (&[u64], usize) {
        if 2 * h <= BLOCK {
            (&self.small[h..2 * h], 1)
        } else {
            (&self.top, self.n / (2 * h))
        }
    }
}

/// One DIF stage of half-size `h` on `x` (a multiple of `2h` long).
fn dif_stage(m: Mont, x: &mut [u64], tw: &Roots, h: usize) {
    let (top, st) = tw.stage(h);
    let bf = |lo: &mut [u64], hi: &mut [u64], j0: usize| {
        let two_p = 2 * m.p;
        for (j, (a, b)) in lo.iter_mut().zip(hi.iter_mut()).enumerate() {
            let (u, v) = (*a, *b);
            *a = m.half(u + v);
            *b = m.mul(u + two_p - v, top[(j0 + j) * st]);
        }
    };
    if 2 * h >= BLOCK {
        for blk in x.chunks_mut(2 * h) {
            let (lo, hi) = blk.split_at_mut(h);
            lo.par_chunks_mut(BLOCK / 2)
                .zip(hi.par_chunks_mut(BLOCK / 2))
                .enumerate()
                .for_each(|(c, (l, u))| bf(l, u, c * BLOCK / 2));
        }
    } else {
        for blk in x.chunks_mut(2 * h) {
            let (lo, hi) = blk.split_at_mut(h);
            bf(lo, hi, 0);
        }
    }
}

/// One DIT stage of half-size `h` (twiddles as in [`dif_stage`]).
fn dit_stage(m: Mont, x: &mut [u64], tw: &Roots, h: usize) {
    let (top, st) = tw.stage(h);
    let bf = |lo: &mut [u64], hi: &mut [u64], j0: usize| {
        let two_p = 2 * m.p;
        for (j, (a, b)) in lo.iter_mut().zip(hi.iter_mut()).enumerate() {
            let t = m.mul(*b, top[(j0 + j) * st]);
            let u = *a;
            *a = m.half(u + t);
            *b = m.half(u + two_p - t);
        }
    };
    if 2 * h >= BLOCK {
        for blk in x.chunks_mut(2 * h) {
            let (lo, hi) = blk.split_at_mut(h);
            lo.par_chunks_mut(BLOCK / 2)
                .zip(hi.par_chunks_mut(BLOCK / 2))
                .enumerate()
                .for_each(|(c, (l, u))| bf(l, u, c * BLOCK / 2));
        }
    } else {
        for blk in x.chunks_mut(2 * h) {
            let (lo, hi) = blk.split_at_mut(h);
            bf(lo, hi, 0);
        }
    }
}

/// Forward NTT (natural in, bit-reversed out), values in `[0, 2p)`.
fn forward(m: Mont, x: &mut [u64], top: &Roots) {
    let n = x.len();
    let mut h = n / 2;
    while h >= 1 && 2 * h > BLOCK {
        dif_stage(m, x, top, h);
        h /= 2;
    }
    // The remaining stages block by block, each block in cache.
    x.par_chunks_mut(BLOCK.min(n.max(1))).for_each(|b| {
        let mut h = b.len() / 2;
        while h >= 1 {
            dif_stage(m, b, top, h);
            h /= 2;
        }
    });
}

/// Inverse NTT without the scaling (bit-reversed in, natural out), with the
/// inverse root's [`Roots`].
fn inverse(m: Mont, x: &mut [u64], top: &Roots) {
    let n = x.len();
    x.par_chunks_mut(BLOCK.min(n.max(1))).for_each(|b| {
        let mut h = 1;
        while 2 * h <= b.len() {
            dit_stage(m, b, top, h);
            h *= 2;
        }
    });
    let mut h = BLOCK.min(n);
    while 2 * h <= n {
        dit_stage(m, x, top, h);
        h *= 2;
    }
}

/// `x[t] *= w[bitrev(t)]` (nothing for an empty `w`: rank 0's ones).
fn twist(m: Mont, x: &mut [u64], w: &[u64], lg: u32) {
    if w.is_empty() {
        return;
    }
    x.par_chunks_mut(1 << 12).enumerate().for_each(|(c, xs)| {
        for (i, v) in xs.iter_mut().enumerate() {
            *v = m.mul(*v, w[bitrev((c << 12) + i, lg)]);
        }
    });
}

fn bitrev(t: usize, lg: u32) -> usize {
    if lg == 0 {
        0
    } else {
        t.reverse_bits() >> (usize::BITS - lg)
    }
}

/// Whether `p` ranks can share a transform (the odd part of `p` divides
/// 315).
pub fn supported(p: usize) -> bool {
    p >= 1 && ODD.is_multiple_of(p >> p.trailing_zeros())
}

/// The `lg` of `M` for a product of `limbs` limbs over `p` ranks: `P * M
/// >= limbs`.
pub fn lg_for(limbs: usize, p: usize) -> Result<u32> {
    let m = limbs.div_ceil(p).max(1).next_power_of_two();
    let lg = m.trailing_zeros();
    if !supported(p) || lg + p.trailing_zeros() > TWO {
        return Err(Error::Invalid(format!(
            "huge mul across {p} ranks of a {limbs}-limb product: the rank count's odd part \
             must divide 315 (1..10, 12, 14, 15, 16, ...) and the transform have at most \
             315 * 2^33 points"
        )));
    }
    Ok(lg)
}

/// Per prime: the roots and tables of one rank's part of the transform.
struct Plan {
    m: Mont,
    /// The roots of the local transforms (`w_M` and its inverse).
    fwd: Roots,
    inv: Roots,
    /// `w_L^(r k1)` for `k1 < M` (position `t` takes `k1 = bitrev(t)`),
    /// and the inverses; empty on rank 0 (all ones).
    tw: Vec<u64>,
    itw: Vec<u64>,
    /// `w_P^e` and `w_P^-e` for `e < P`, Montgomery form.
    wp: Vec<u64>,
    iwp: Vec<u64>,
    /// `R^2 / L mod p`: undoes the pointwise product's `1/R` and the
    /// transform's factor `L`.
    scale: u64,
}

impl Plan {
    fn new(i: usize, p_ranks: usize, rank: usize, lg: u32) -> Plan {
        let (p, g) = (PRIMES[i], GENERATORS[i]);
        let m = Mont::new(p);
        let mm = 1usize << lg;
        let l = (mm * p_ranks) as u64;
        let wl = powmod(g, (p - 1) / l, p);
        let wli = inv(wl, p);
        let wm = powmod(wl, p_ranks as u64, p);
        let wp = powmod(wl, mm as u64, p);
        let r_pow = |w: u64| {
            if rank == 0 {
                Vec::new()
            } else {
                powers(m, powmod(w, rank as u64, p), mm)
            }
        };
        let pw = |w: u64| {
            (0..p_ranks)
                .map(|e| m.to_mont(powmod(w, e as u64, p)))
                .collect()
        };
        Plan {
            m,
            fwd: Roots::new(m, wm, mm),
            inv: Roots::new(m, inv(wm, p), mm),
            tw: r_pow(wl),
            itw: r_pow(wli),
            wp: pw(wp),
            iwp: pw(inv(wp, p)),
            scale: mulmod(m.r2, inv(l % p, p), p),
        }
    }
}

/// `out[k][t] = sum_r w^(r k) * x[r][t]` (a length-`P` DFT at every `t`).
fn small_dft(m: Mont, w: &[u64], x: &[Vec<u64>]) -> Vec<Vec<u64>> {
    let pr = x.len();
    let n = x.first().map_or(0, |v| v.len());
    (0..pr)
        .map(|k| {
            let mut out = vec![0u64; n];
            out.par_chunks_mut(1 << 12).enumerate().for_each(|(c, o)| {
                let t0 = c << 12;
                for (dt, o) in o.iter_mut().enumerate() {
                    let mut acc = 0u64;
                    for (r, xr) in x.iter().enumerate() {
                        acc = m.half(acc + m.mul(xr[t0 + dt], w[(r * k) % pr]));
                    }
                    *o = acc;
                }
            });
            out
        })
        .collect()
}

/// The forward transform of one operand's share: for each prime, the
/// values at this rank's block of positions, `[k2][t]`.
fn transform(comm: &Comm, plans: &[Plan], share: &[u64], lg: u32) -> Result<Vec<Vec<Vec<u64>>>> {
    let (pr, mm) = (comm.size(), 1usize << lg);
    // Steps 1-2, all primes at once.
    let local: Vec<Vec<u64>> = plans
        .par_iter()
        .map(|pl| {
            let m = pl.m;
            let mut x = vec![0u64; mm];
            x[..share.len()]
                .par_iter_mut()
                .zip(share)
                .for_each(|(o, &v)| *o = v % m.p);
            forward(m, &mut x, &pl.fwd);
            twist(m, &mut x, &pl.tw, lg);
            x
        })
        .collect();
    // Step 3: rank s gets the positions block(M, P, s) of every prime.
    let parts: Vec<Vec<u64>> = (0..pr)
        .map(|s| {
            let (a, b) = block(mm, pr, s);
            local.iter().flat_map(|x| x[a..b].iter().copied()).collect()
        })
        .collect();
    drop(local);
    let got = comm.all_to_all_u64(&parts)?;
    drop(parts);
    let (a, b) = block(mm, pr, comm.rank());
    let w = b - a;
    // Step 4 per prime: x[r][t] from rank r.
    Ok(plans
        .par_iter()
        .enumerate()
        .map(|(i, pl)| {
            let x: Vec<Vec<u64>> = got
                .iter()
                .map(|g| g.get(i * w..(i + 1) * w).unwrap_or(&[]).to_vec())
                .collect();
            small_dft(pl.m, &pl.wp, &x)
        })
        .collect())
}

/// The distributed core: every rank passes its cyclic shares of `a` and
/// `b` (limb `r + P j` of the operand at index `j`, at most `2^lg` limbs)
/// and gets its share of the product's coefficients: `3 * 2^lg` words, the
/// coefficient at position `r + P j` as three limbs at `3 j`.
pub fn mul_shares(comm: &Comm, a: &[u64], b: &[u64], lg: u32) -> Result<Vec<u64>> {
    let (pr, rank, mm) = (comm.size(), comm.rank(), 1usize << lg);
    if a.len() > mm || b.len() > mm || lg_for(pr << lg, pr).is_err() {
        return Err(Error::Shape(format!(
            "a share holds at most 2^{lg} limbs ({} and {} given) with {pr} ranks",
            a.len(),
            b.len()
        )));
    }
    let plans: Vec<Plan> = (0..3)
        .into_par_iter()
        .map(|i| Plan::new(i, pr, rank, lg))
        .collect();
    let xa = transform(comm, &plans, a, lg)?;
    let xb = transform(comm, &plans, b, lg)?;
    // Pointwise products, then the inverse length-P DFTs.
    let back: Vec<Vec<Vec<u64>>> = plans
        .par_iter()
        .zip(xa.into_par_iter().zip(xb))
        .map(|(pl, (mut x, y))| {
            let m = pl.m;
            for (xv, yv) in x.iter_mut().zip(&y) {
                xv.par_iter_mut()
                    .zip(yv)
                    .for_each(|(u, &v)| *u = m.mul(*u, v));
            }
            small_dft(m, &pl.iwp, &x)
        })
        .collect();
    // Back to the ranks: rank r gets its values at this rank's positions.
    let parts: Vec<Vec<u64>> = (0..pr)
        .map(|r| back.iter().flat_map(|pv| pv[r].iter().copied()).collect())
        .collect();
    drop(back);
    let got = comm.all_to_all_u64(&parts)?;
    drop(parts);
    let res: Vec<Vec<u64>> = plans
        .par_iter()
        .enumerate()
        .map(|(i, pl)| {
            let m = pl.m;
            let mut x = vec![0u64; mm];
            for (s, g) in got.iter().enumerate() {
                let (a, b) = block(mm, pr, s);
                let n = b - a;
                x[a..b].copy_from_slice(g.get(i * n..(i + 1) * n).unwrap_or(&[]));
            }
            twist(m, &mut x, &pl.itw, lg);
            inverse(m, &mut x, &pl.inv);
            x.par_iter_mut()
                .for_each(|v| *v = m.full(m.mul(*v, pl.scale)));
            x
        })
        .collect();
    Ok(garner(&res))
}

/// Three residues per coefficient to its three limbs (Garner).
fn garner(r: &[Vec<u64>]) -> Vec<u64> {
    let [p0, p1, p2] = PRIMES;
    let (m1, m2) = (Mont::new(p1), Mont::new(p2));
    let inv01 = m1.to_mont(inv(p0 % p1, p1));
    let p0_2 = m2.to_mont(p0 % p2);
    let inv012 = m2.to_mont(inv(mulmod(p0 % p2, p1 % p2, p2), p2));
    let p01 = p0 as u128 * p1 as u128;
    let (p01_lo, p01_hi) = (p01 as u64, (p01 >> 64) as u64);
    let n = r[0].len();
    let mut out = vec![0u64; 3 * n];
    out.par_chunks_mut(3).enumerate().for_each(|(j, o)| {
        let (x0, x1, x2) = (r[0][j], r[1][j], r[2][j]);
        let c0 = x0;
        let c1 = m1.full(m1.mul(x1 + p1 - m1.full(c0 % p1), inv01));
        let a = c0 % p2;
        let b = m2.full(m2.mul(c1, p0_2));
        let t = (x2 + 2 * p2 - a - b) % p2;
        let c2 = m2.full(m2.mul(t, inv012));
        // c0 + p0 c1 + p0 p1 c2 in three limbs.
        let v = c0 as u128 + p0 as u128 * c1 as u128;
        let lo = p01_lo as u128 * c2 as u128;
        let hi = p01_hi as u128 * c2 as u128 + (lo >> 64);
        let (s0, carry) = (v as u64).overflowing_add(lo as u64);
        let mid = (v >> 64) + (hi as u64) as u128 + carry as u128;
        o[0] = s0;
        o[1] = mid as u64;
        o[2] = ((hi >> 64) + (mid >> 64)) as u64;
    });
    out
}

/// `a * b` across the ranks of `comm` (both at least one limb or zero):
/// rank 0 passes the limbs and gets the product's `len(a) + len(b)` limbs,
/// the other ranks pass `None` and get `None`.
pub fn mul(comm: &Comm, ab: Option<(&[u64], &[u64])>) -> Result<Option<Vec<u64>>> {
    let pr = comm.size();
    let lens = comm.bcast_u64(
        0,
        ab.map_or(vec![0, 0], |(a, b)| vec![a.len() as u64, b.len() as u64]),
    );
    let (an, bn) = (lens[0] as usize, lens[1] as usize);
    let total = an + bn;
    if an == 0 || bn == 0 {
        return Ok(ab.map(|_| vec![0u64; total]));
    }
    let lg = lg_for(total, pr)?;
    let share =
        |x: &[u64], r: usize| -> Vec<u64> { x.iter().skip(r).step_by(pr).copied().collect() };
    let parts: Vec<Vec<u64>> = match ab {
        Some((a, b)) => (0..pr)
            .map(|r| {
                let mut v = vec![0u64; 2];
                let (sa, sb) = (share(a, r), share(b, r));
                v[0] = sa.len() as u64;
                v[1] = sb.len() as u64;
                v.extend(sa);
                v.extend(sb);
                v
            })
            .collect(),
        None => Vec::new(),
    };
    let mine = comm.scatter_u64(parts)?;
    let la = mine.first().copied().unwrap_or(0) as usize;
    let lb = mine.get(1).copied().unwrap_or(0) as usize;
    let (sa, sb) = (
        mine.get(2..2 + la).unwrap_or(&[]),
        mine.get(2 + la..2 + la + lb).unwrap_or(&[]),
    );
    let coeffs = mul_shares(comm, sa, sb, lg)?;
    drop(mine);
    let Some(all) = comm.gather_u64(coeffs)? else {
        return Ok(None);
    };
    // Carry the coefficients (three limbs at position r + P j) into limbs.
    let mut out = vec![0u64; total];
    let mut acc = [0u64; 3];
    for (n, o) in out.iter_mut().enumerate() {
        let (r, j) = (n % pr, n / pr);
        let c = all[r].get(3 * j..3 * j + 3).unwrap_or(&[0, 0, 0]);
        let (s0, k0) = acc[0].overflowing_add(c[0]);
        let (s1, k1a) = acc[1].overflowing_add(c[1]);
        let (s1, k1b) = s1.overflowing_add(k0 as u64);
        let s2 = acc[2]
            .wrapping_add(c[2])
            .wrapping_add(k1a as u64 + k1b as u64);
        *o = s0;
        // (The running value stays below 2^188: the top word cannot carry.)
        acc = [s1, s2, 0];
    }
    Ok(Some(out))
}
