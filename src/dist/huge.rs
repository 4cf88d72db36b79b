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
//! rank holds `1/P` of the transforms and does `1/P` of the butterflies.
//!
//! The local transforms are `huge::cpu::ntt`'s tuned four-step passes
//! ([`Transform`]: column pass, row pass in cache) with this module's
//! primes; the twiddles of step (2) are applied in the forward row pass and
//! undone in the inverse one, while each row is in cache. The values of
//! `k1` come out of the local transform in its storage order, which only
//! the twiddles need to know ([`Transform::freq`]).
//!
//! Primes: three below 2^62 with `315 * 2^33 | p - 1`, so `L` may be any
//! power of two up to 2^33 times a rank count whose odd part divides 315
//! (P = 1..10, 12, 14, 15, 16, ...). Coefficients are below
//! `L * 2^128 < p0 p1 p2 ~ 2^186` for every such `L`: exact. Each rank puts
//! its coefficients together by Garner's CRT (three limbs each).
//!
//! Operands and products travel in blocks: [`mul_blocks`] takes each rank's
//! contiguous block of limbs of both operands ([`super::block`]), turns
//! them into cyclic shares (one all-to-all of the limbs), multiplies
//! ([`mul_shares`]), sends the coefficients to the ranks whose block of the
//! product holds their positions (one all-to-all), carries locally and then
//! across the ranks (one all-gather of a few words per rank): no rank ever
//! holds a whole operand or the whole product. [`mul`] is the same from and
//! to rank 0 (scatter and gather around [`mul_blocks`]).

use rayon::prelude::*;

use super::{Comm, block};
use crate::error::{Error, Result};
use crate::huge::cpu::ntt::Transform;
use crate::huge::cpu::{give_buffer, take_buffer};
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
/// The smallest local transform (`huge::cpu::ntt`'s passes need 2^6).
const MIN_LG: u32 = 6;

/// Montgomery arithmetic modulo `p < 2^62` (R = 2^64), values lazy in
/// `[0, 2p)` (Garner's steps).
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
}

/// `x - m` if `x >= m`, else `x`, without a branch (the lazy reductions'
/// outcomes are random: a branch mispredicts half the time). On x86-64 a
/// `cmov` in assembly, as in `huge::cpu::ntt`.
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

/// Whether `p` ranks can share a transform (the odd part of `p` divides
/// 315).
pub fn supported(p: usize) -> bool {
    p >= 1 && ODD.is_multiple_of(p >> p.trailing_zeros())
}

/// The `lg` of `M` for a product of `limbs` limbs over `p` ranks: `P * M
/// >= limbs`, `M >= 2^6`.
pub fn lg_for(limbs: usize, p: usize) -> Result<u32> {
    let m = limbs
        .div_ceil(p.max(1))
        .max(1 << MIN_LG)
        .next_power_of_two();
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

/// Per prime: one rank's part of the transform.
struct Plan {
    p: u64,
    /// The local length-`M` transform (root `w_M = w_L^P`).
    t: Transform,
    /// The twiddle `w_L^(r k1)` of storage position `row * cols + q` is
    /// `trow[row] * tcol[q]` (Montgomery form); `itrow`, `itcol` the
    /// inverses. Empty on rank 0 (all ones).
    trow: Vec<u64>,
    tcol: Vec<u64>,
    itrow: Vec<u64>,
    itcol: Vec<u64>,
    /// `w_P^e` and `w_P^-e / P` for `e < P`, Montgomery form (the `1 / P`
    /// finishes the inverse: the local inverse divides by `M` and undoes
    /// the pointwise Montgomery product).
    wp: Vec<u64>,
    iwp: Vec<u64>,
    /// `w_P^-1` and `1 / P`, Montgomery form (the butterflies of P = 2, 4).
    iw1: u64,
    ip: u64,
}

impl Plan {
    fn new(i: usize, p_ranks: usize, rank: usize, lg: u32) -> Plan {
        let (p, g) = (PRIMES[i], GENERATORS[i]);
        let t = Transform::new(p, g, lg);
        let mm = 1usize << lg;
        let l = (mm * p_ranks) as u64;
        let wl = powmod(g, (p - 1) / l, p);
        let wp = powmod(wl, mm as u64, p);
        let (c, rows) = (t.cols(), mm / t.cols());
        // Powers `step^j`, j < n, Montgomery form.
        let pows = |step: u64, n: usize| -> Vec<u64> {
            let s = t.to_mont(step);
            let mut x = t.to_mont(1);
            (0..n)
                .map(|_| {
                    let v = x;
                    x = t.reduce(t.mont(x, s));
                    v
                })
                .collect()
        };
        // freq(row * c) < rows, freq(q) = rows * (a column index < c).
        let twist = |w: u64| -> (Vec<u64>, Vec<u64>) {
            if rank == 0 {
                return (Vec::new(), Vec::new());
            }
            let wr = powmod(w, rank as u64, p);
            let rp = pows(wr, rows);
            let cp = pows(powmod(wr, rows as u64, p), c);
            (
                (0..rows).map(|row| rp[t.freq(row * c)]).collect(),
                (0..c).map(|q| cp[t.freq(q) / rows]).collect(),
            )
        };
        let (trow, tcol) = twist(wl);
        let (itrow, itcol) = twist(inv(wl, p));
        let iwp1 = inv(wp, p);
        let inv_p = inv(p_ranks as u64 % p, p);
        Plan {
            p,
            iw1: t.to_mont(iwp1),
            ip: t.to_mont(inv_p),
            wp: (0..p_ranks)
                .map(|e| t.to_mont(powmod(wp, e as u64, p)))
                .collect(),
            iwp: (0..p_ranks)
                .map(|e| t.to_mont(mulmod(powmod(iwp1, e as u64, p), inv_p, p)))
                .collect(),
            t,
            trow,
            tcol,
            itrow,
            itcol,
        }
    }

    /// Row `row` (storage positions `row * cols ..`) times its twiddles.
    #[inline(always)]
    fn twist(&self, tr: &[u64], tc: &[u64], row: usize, v: &mut [u64]) {
        if tr.is_empty() {
            return;
        }
        let a = tr[row];
        for (x, &b) in v.iter_mut().zip(tc) {
            *x = self.t.mont(*x, self.t.mont(a, b));
        }
    }
}

/// A pointer shared by tasks that touch disjoint elements.
#[derive(Clone, Copy)]
struct Shared(*mut u64);
// SAFETY: every use reads and writes disjoint index sets from different
// tasks.
unsafe impl Send for Shared {}
unsafe impl Sync for Shared {}

impl Shared {
    #[inline(always)]
    fn get(self) -> *mut u64 {
        self.0
    }
}

/// Steps 1-3 of one operand's forward transform for one prime: the local
/// transform with its twiddles, then the all-to-all. Returns the values of
/// this rank's block of positions from every rank, `[r][t]` (`P` runs of
/// the block's width).
fn forward(comm: &Comm, pl: &Plan, share: &[u64], counts: &[usize]) -> Result<Vec<u64>> {
    let mut x = take_buffer(pl.t.len());
    pl.t.forward(share, &mut x, |row, v| pl.twist(&pl.trow, &pl.tcol, row, v));
    if comm.size() == 1 {
        return Ok(x);
    }
    let (got, _) = comm.all_to_all_flat(&x, counts)?;
    give_buffer(x);
    Ok(got)
}

/// Step 4 both ways for one prime, in place in `xa` (`[r][t]`, `P` runs of
/// `w`): the length-`P` DFTs of both operands, their pointwise product and
/// the inverse length-`P` DFT (with its `1 / P`); `xa[r][t]` is then the
/// value that rank `r` needs at position `t`.
fn across(pl: &Plan, xa: &mut [u64], xb: &[u64], pr: usize, w: usize) {
    let t = &pl.t;
    if pr == 1 {
        xa.par_iter_mut()
            .zip(xb)
            .for_each(|(a, &b)| *a = t.mont(*a, b));
        return;
    }
    const CH: usize = 1 << 10;
    let pa = Shared(xa.as_mut_ptr());
    let p2 = 2 * pl.p;
    let h = |x: u64| sub_if(x, p2);
    if pr == 2 || pr == 4 {
        // Butterflies (w_2 = -1; w_4^2 = -1: one product by w_4 per
        // transform of four), then the `1 / P`.
        let (w1, iw1, ip) = (pl.wp[1], pl.iw1, pl.ip);
        let dft4 = |x: [u64; 4], w: u64| -> [u64; 4] {
            let (s02, d02) = (h(x[0] + x[2]), h(x[0] + p2 - x[2]));
            let (s13, d13) = (h(x[1] + x[3]), t.mont(x[1] + p2 - x[3], w));
            [
                h(s02 + s13),
                h(d02 + d13),
                h(s02 + p2 - s13),
                h(d02 + p2 - d13),
            ]
        };
        (0..w.div_ceil(CH)).into_par_iter().for_each(|c| {
            let x = pa.get();
            for i in c * CH..(w.min((c + 1) * CH)) {
                // SAFETY: chunk c alone touches positions c*CH.. of every run.
                unsafe {
                    if pr == 2 {
                        let (u0, u1) = (*x.add(i), *x.add(w + i));
                        let (v0, v1) = (xb[i], xb[w + i]);
                        let z0 = t.mont(h(u0 + u1), h(v0 + v1));
                        let z1 = t.mont(h(u0 + p2 - u1), h(v0 + p2 - v1));
                        *x.add(i) = t.mont(h(z0 + z1), ip);
                        *x.add(w + i) = t.mont(h(z0 + p2 - z1), ip);
                    } else {
                        let u = dft4(std::array::from_fn(|r| *x.add(r * w + i)), w1);
                        let v = dft4(std::array::from_fn(|r| xb[r * w + i]), w1);
                        let z = dft4(std::array::from_fn(|k| t.mont(u[k], v[k])), iw1);
                        for (r, &zr) in z.iter().enumerate() {
                            *x.add(r * w + i) = t.mont(zr, ip);
                        }
                    }
                }
            }
        });
        return;
    }
    (0..w.div_ceil(CH)).into_par_iter().for_each(|c| {
        let (mut av, mut bv, mut zv) = (vec![0u64; pr], vec![0u64; pr], vec![0u64; pr]);
        for i in c * CH..(w.min((c + 1) * CH)) {
            for r in 0..pr {
                // SAFETY: chunk c alone touches positions c*CH.. of every run.
                av[r] = unsafe { *pa.get().add(r * w + i) };
                bv[r] = xb[r * w + i];
            }
            for (k, z) in zv.iter_mut().enumerate() {
                let (mut sa, mut sb) = (av[0], bv[0]);
                for r in 1..pr {
                    let e = pl.wp[(r * k) % pr];
                    sa = h(sa + t.mont(av[r], e));
                    sb = h(sb + t.mont(bv[r], e));
                }
                *z = t.mont(sa, sb);
            }
            for r in 0..pr {
                let mut s = 0u64;
                for (k, &z) in zv.iter().enumerate() {
                    s = h(s + t.mont(z, pl.iwp[(r * k) % pr]));
                }
                // SAFETY: as above.
                unsafe { *pa.get().add(r * w + i) = s };
            }
        }
    });
}

/// The counts of an all-to-all of transform values: `w_s` to rank `s`.
fn widths(mm: usize, pr: usize) -> Vec<usize> {
    (0..pr)
        .map(|s| {
            let (a, b) = block(mm, pr, s);
            b - a
        })
        .collect()
}

/// The distributed core: every rank passes its cyclic shares of `a` and
/// `b` (limb `r + P j` of the operand at index `j`, at most `2^lg` limbs)
/// and gets its share of the product's coefficients: `3 * 2^lg` words, the
/// coefficient at position `r + P j` as three limbs at `3 j`.
pub fn mul_shares(comm: &Comm, a: &[u64], b: &[u64], lg: u32) -> Result<Vec<u64>> {
    let (pr, rank, mm) = (comm.size(), comm.rank(), 1usize << lg);
    if a.len() > mm || b.len() > mm || lg < MIN_LG || lg_for(pr << lg, pr).is_err() {
        return Err(Error::Shape(format!(
            "a share holds at most 2^{lg} limbs ({} and {} given, 2^{MIN_LG} <= 2^lg) with \
             {pr} ranks",
            a.len(),
            b.len()
        )));
    }
    let counts = widths(mm, pr);
    let w = counts[rank];
    let mut res = Vec::with_capacity(3);
    for i in 0..3 {
        let pl = Plan::new(i, pr, rank, lg);
        let mut xa = forward(comm, &pl, a, &counts)?;
        let xb = forward(comm, &pl, b, &counts)?;
        across(&pl, &mut xa, &xb, pr, w);
        give_buffer(xb);
        // Back to the ranks: each sends every rank its values at its own
        // block of positions, so what arrives is the transform in storage
        // order.
        let mut x = if pr == 1 {
            xa
        } else {
            let (x, _) = comm.all_to_all_flat(&xa, &vec![w; pr])?;
            give_buffer(xa);
            x
        };
        pl.t.inverse(&mut x, |row, v| pl.twist(&pl.itrow, &pl.itcol, row, v));
        res.push(x);
    }
    let out = garner(&res);
    for x in res {
        give_buffer(x);
    }
    Ok(out)
}

/// Three residues per coefficient (each in `[0, 2p)`) to its three limbs
/// (Garner).
fn garner(r: &[Vec<u64>]) -> Vec<u64> {
    let [p0, p1, p2] = PRIMES;
    let (m0, m1, m2) = (Mont::new(p0), Mont::new(p1), Mont::new(p2));
    let inv01 = m1.to_mont(inv(p0 % p1, p1));
    let p0_2 = m2.to_mont(p0 % p2);
    let inv012 = m2.to_mont(inv(mulmod(p0 % p2, p1 % p2, p2), p2));
    let p01 = p0 as u128 * p1 as u128;
    let (p01_lo, p01_hi) = (p01 as u64, (p01 >> 64) as u64);
    let n = r[0].len();
    let mut out = vec![0u64; 3 * n];
    out.par_chunks_mut(3 << 12)
        .enumerate()
        .for_each(|(ch, oc)| {
            for (jj, o) in oc.chunks_exact_mut(3).enumerate() {
                let j = (ch << 12) + jj;
                let (x0, x1, x2) = (m0.full(r[0][j]), m1.full(r[1][j]), m2.full(r[2][j]));
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
            }
        });
    out
}

/// The first position `>= a` that is `r` modulo `p`.
fn first_at(a: usize, r: usize, p: usize) -> usize {
    a + (r + p - a % p) % p
}

/// An `n`-limb number from blocks to cyclic shares: every rank passes its
/// block (`block(n, P, rank)`) and gets the limbs at `rank + P j`.
pub fn block_to_cyclic(comm: &Comm, n: usize, mine: &[u64]) -> Result<Vec<u64>> {
    let (pr, me) = (comm.size(), comm.rank());
    if pr == 1 {
        return Ok(mine.to_vec());
    }
    let (a, _) = block(n, pr, me);
    let mut send = Vec::with_capacity(mine.len());
    let mut counts = vec![0usize; pr];
    for (s, c) in counts.iter_mut().enumerate() {
        let f = first_at(a, s, pr) - a;
        let before = send.len();
        send.extend(mine.iter().skip(f).step_by(pr));
        *c = send.len() - before;
    }
    // From every rank in rank order: the positions come in ascending order.
    Ok(comm.all_to_all_flat(&send, &counts)?.0)
}

/// The product's coefficients (as [`mul_shares`] returns them) to this
/// rank's block of its `total` limbs (`block(total, P, rank)`), carried:
/// the coefficients travel to the ranks whose blocks hold their positions,
/// each rank carries its block in parallel chunks, and the carries between
/// the ranks are settled from one all-gather of six words per rank.
pub fn carry_to_blocks(comm: &Comm, coeffs: &[u64], total: usize) -> Result<Vec<u64>> {
    let (pr, me) = (comm.size(), comm.rank());
    let (a, b) = block(total, pr, me);
    // What arrives: from rank r the coefficients at the positions of
    // [a, b) that are r modulo P, ascending, three words each.
    let (got, offs) = if pr == 1 {
        (None, vec![0usize])
    } else {
        let mut counts = vec![0usize; pr];
        for (s, c) in counts.iter_mut().enumerate() {
            let (sa, sb) = block(total, pr, s);
            *c = 3 * (sb.saturating_sub(first_at(sa, me, pr))).div_ceil(pr);
        }
        let mut send = vec![0u64; counts.iter().sum()];
        let mut rest = send.as_mut_slice();
        let mut parts = Vec::with_capacity(pr);
        for (s, &c) in counts.iter().enumerate() {
            let (head, tail) = std::mem::take(&mut rest).split_at_mut(c);
            parts.push((s, head));
            rest = tail;
        }
        parts.into_par_iter().for_each(|(s, dst)| {
            let f = first_at(block(total, pr, s).0, me, pr);
            dst.par_chunks_mut(3).enumerate().for_each(|(k, o)| {
                let j = (f + k * pr - me) / pr;
                o.copy_from_slice(coeffs.get(3 * j..3 * j + 3).unwrap_or(&[0; 3]));
            });
        });
        let (got, rc) = comm.all_to_all_flat(&send, &counts)?;
        let offs = rc
            .iter()
            .scan(0, |s, &c| {
                let d = *s;
                *s += c;
                Some(d)
            })
            .collect();
        (Some(got), offs)
    };
    let src: &[u64] = got.as_deref().unwrap_or(coeffs);
    let coeff = |n: usize| -> &[u64] {
        let r = n % pr;
        let k = (n - first_at(a, r, pr)) / pr;
        src.get(offs[r] + 3 * k..offs[r] + 3 * k + 3)
            .unwrap_or(&[0; 3])
    };
    // Chunks carried in parallel; each chunk's carry out (< 2^100) goes
    // into the next one after.
    const CH: usize = 1 << 14;
    let mut out = vec![0u64; b - a];
    let carries: Vec<u128> = out
        .par_chunks_mut(CH)
        .enumerate()
        .map(|(k, o)| {
            let mut acc: u128 = 0;
            for (i, o) in o.iter_mut().enumerate() {
                let c = coeff(a + k * CH + i);
                let lo = c[0] as u128 + (acc as u64) as u128;
                *o = lo as u64;
                acc = (acc >> 64) + c[1] as u128 + ((c[2] as u128) << 64) + (lo >> 64);
            }
            acc
        })
        .collect();
    if let Some(g) = got {
        give_buffer(g);
    }
    // Chunk k - 1's carry goes in at chunk k; what falls off the block's
    // end adds to its carry out.
    let (mut pending, mut over) = (0u128, 0u128);
    for (k, &c) in carries.iter().enumerate() {
        over += add_at(&mut out[k * CH..], pending);
        pending = c;
    }
    let cout = pending + over;
    // Across the ranks: rank s's carry out is its own plus the overflow
    // of its block when its carry in is added.
    let len = out.len();
    let ones = len <= 2 || out[2..].iter().all(|&x| x == u64::MAX);
    let info = [
        cout as u64,
        (cout >> 64) as u64,
        len as u64,
        out.first().copied().unwrap_or(0),
        out.get(1).copied().unwrap_or(0),
        u64::from(ones),
    ];
    let all = if pr == 1 {
        info.to_vec()
    } else {
        comm.all_gather_u64(&info)
    };
    let mut cin: u128 = 0;
    for s in 0..me {
        let v = &all[6 * s..6 * s + 6];
        let own = v[0] as u128 | (v[1] as u128) << 64;
        let over = match v[2] {
            0 => cin,
            1 => (v[3] as u128 + cin) >> 64,
            _ => {
                let low = v[3] as u128 | (v[4] as u128) << 64;
                let (_, o) = low.overflowing_add(cin);
                u128::from(o && v[5] == 1)
            }
        };
        cin = own + over;
    }
    add_at(&mut out, cin);
    Ok(out)
}

/// Adds `c` at limb 0 of `x` with the carry; returns what falls off the
/// end.
fn add_at(x: &mut [u64], c: u128) -> u128 {
    let mut c = c;
    for v in x.iter_mut() {
        if c == 0 {
            return 0;
        }
        let (s, o) = v.overflowing_add(c as u64);
        *v = s;
        c = (c >> 64) + o as u128;
    }
    c
}

/// `a * b` from blocks to blocks: every rank passes its blocks of the two
/// operands (`block(an, P, rank)` and `block(bn, P, rank)` of their
/// limbs) and gets its block of the product's `an + bn` limbs.
pub fn mul_blocks(comm: &Comm, a: &[u64], an: usize, b: &[u64], bn: usize) -> Result<Vec<u64>> {
    let (pr, me) = (comm.size(), comm.rank());
    let total = an + bn;
    let (s, e) = block(total, pr, me);
    if an == 0 || bn == 0 {
        return Ok(vec![0u64; e - s]);
    }
    let lg = lg_for(total, pr)?;
    let sa = block_to_cyclic(comm, an, a)?;
    let sb = block_to_cyclic(comm, bn, b)?;
    let coeffs = mul_shares(comm, &sa, &sb, lg)?;
    drop((sa, sb));
    carry_to_blocks(comm, &coeffs, total)
}

/// `a * b` across the ranks of `comm` (both at least one limb or zero):
/// rank 0 passes the limbs and gets the product's `len(a) + len(b)` limbs,
/// the other ranks pass `None` and get `None`. (Rank 0 holds everything:
/// [`mul_blocks`] is the version that never does.)
pub fn mul(comm: &Comm, ab: Option<(&[u64], &[u64])>) -> Result<Option<Vec<u64>>> {
    let pr = comm.size();
    let lens = comm.bcast_u64(
        0,
        ab.map_or(vec![0, 0], |(a, b)| vec![a.len() as u64, b.len() as u64]),
    );
    let (an, bn) = (lens[0] as usize, lens[1] as usize);
    let cut = |x: &[u64], n: usize| -> Vec<Vec<u64>> {
        (0..pr)
            .map(|r| {
                let (s, e) = block(n, pr, r);
                x[s..e].to_vec()
            })
            .collect()
    };
    let (pa, pb) = match ab {
        Some((a, b)) => (cut(a, an), cut(b, bn)),
        None => (Vec::new(), Vec::new()),
    };
    let ma = comm.scatter_u64(pa)?;
    let mb = comm.scatter_u64(pb)?;
    let prod = mul_blocks(comm, &ma, an, &mb, bn)?;
    Ok(comm.gather_u64(prod)?.map(|v| v.concat()))
}
