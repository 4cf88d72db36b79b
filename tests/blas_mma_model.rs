//! The arithmetic of gemv's product on int8 tensor cores
//! (scripts/proto/gemv_mma.cu; notes/blas-cuda.md, "GEMV on int8 tensor
//! cores"), modelled on the CPU lane by lane (the fragments each lane of a
//! warp builds, `mma.sync.m16n8k32/k16.row.col.s32.u8.u8.s32` by the PTX
//! fragment layouts, the fold) and checked against malachite's exact
//! products:
//! - the fixed-point words (`conv`, the kernel's funnel shifts) equal
//!   trunc(m 2^(64 - d)) computed by malachite;
//! - the folded row sum S (20 words, two's complement, units 2^544) equals
//!   sum_k s_k kept(a'_k x'_k), the byte pairs u + v >= 68 of each product
//!   with its sign (the ones' complement of negative terms and its
//!   correction through the sign bits' product);
//! - per term: bl_mac's word pairs U + V >= 17 <= kept <= a'x' / 2^544,
//!   a'x' - 2^544 kept < 17 2^577 (bl_mac's bound), and kept is exact when
//!   the low zero words of a' and x' add up to 17 or more.

#![allow(clippy::needless_range_loop)]

mod common;

use common::{Rng, seed};
use malachite_nz::integer::Integer;
use malachite_nz::natural::Natural;

const L: usize = 16; // mantissa words
const NF: usize = 18; // fixed-point words
const D0: usize = 68; // first kept byte diagonal
const ND: usize = 80; // diagonals 68 ..= 147
const NV: usize = 72; // bytes of x'
const RW: usize = 38; // words per shifted copy of x's reversed bytes
const RE: usize = 4 * RW;
const RP: i64 = 108; // R[q] = X_(RP - q)

fn nat(w: &[u32]) -> Natural {
    let limbs: Vec<u64> = w
        .chunks(2)
        .map(|c| c[0] as u64 | (c.get(1).copied().unwrap_or(0) as u64) << 32)
        .collect();
    Natural::from_limbs_asc(&limbs)
}

/// The kernel's conversion: word j = bits o + 32 j of m, o = d - 64.
fn conv(m: &[u32; L], d: i64) -> [u32; NF] {
    let mut w = [0u32; NF];
    let o = d - 64;
    if o >= 32 * L as i64 {
        return w;
    }
    let base = o >> 5;
    let sh = (o & 31) as u32;
    let at = |x: i64| {
        if (0..L as i64).contains(&x) {
            m[x as usize]
        } else {
            0
        }
    };
    for (j, wj) in w.iter_mut().enumerate() {
        let lo = at(base + j as i64) as u64;
        let hi = at(base + j as i64 + 1) as u64;
        *wj = ((hi << 32 | lo) >> sh) as u32;
    }
    w
}

fn bytes(w: &[u32; NF]) -> [u8; 72] {
    let mut b = [0u8; 72];
    for j in 0..NF {
        for i in 0..4 {
            b[4 * j + i] = (w[j] >> (8 * i)) as u8;
        }
    }
    b
}

/// D += A B for one warp's fragments (kk = 32 or 16), PTX layouts: A row
/// gid (+8 for regs 1, 3), col 4 tig + i (+16 for regs 2, 3); B row
/// 4 tig + i (+16 for reg 1), col gid; C row gid (+8 for regs 2, 3), col
/// 2 tig + (reg & 1).
fn mma(c: &mut [[u32; 4]; 32], a: &[[u32; 4]; 32], b: &[[u32; 2]; 32], kk: usize) {
    let byte = |w: u32, i: usize| (w >> (8 * i)) & 255;
    let mut d = [[0u32; 8]; 16];
    for (r, dr) in d.iter_mut().enumerate() {
        for (col, dc) in dr.iter_mut().enumerate() {
            let mut s = 0u32;
            for k in 0..kk {
                let la = (r % 8) * 4 + (k % 16) / 4;
                let ra = (r >= 8) as usize + 2 * (k >= 16) as usize;
                let lb = col * 4 + (k % 16) / 4;
                let rb = (k >= 16) as usize;
                s += byte(a[la][ra], k % 4) * byte(b[lb][rb], k % 4);
            }
            *dc = s;
        }
    }
    for (l, cl) in c.iter_mut().enumerate() {
        let (g, t) = (l / 4, l % 4);
        for (i, ci) in cl.iter_mut().enumerate() {
            let r = g + 8 * (i >= 2) as usize;
            *ci = ci.wrapping_add(d[r][2 * t + (i & 1)]);
        }
    }
}

struct Case {
    k: usize,
    am: Vec<[u32; L]>, // 16 rows x k
    ad: Vec<i64>,
    asg: Vec<u32>,
    xw: Vec<[u32; NF]>,
    xsg: Vec<u32>,
}

fn mantissa(g: &mut Rng) -> [u32; L] {
    let mut m = [0u32; L];
    for w in m.iter_mut() {
        *w = g.next() as u32;
    }
    m[L - 1] |= 1 << 31;
    // Trailing zero words (exact conversions, exact short products).
    if g.below(3) == 0 {
        let z = g.index(L);
        for w in m.iter_mut().take(z) {
            *w = 0;
        }
    }
    m
}

fn make_case(g: &mut Rng, k: usize) -> Case {
    let mut c = Case {
        k,
        am: vec![],
        ad: vec![],
        asg: vec![],
        xw: vec![],
        xsg: vec![],
    };
    for _ in 0..16 * k {
        c.am.push(mantissa(g));
        c.ad.push(match g.below(8) {
            0 => g.range(0, 700), // cut off entirely from 576 on
            1 => g.range(0, 2),
            _ => g.range(0, 64),
        });
        c.asg.push((g.next() & 1) as u32);
    }
    for _ in 0..k {
        let m = mantissa(g);
        let d = if g.below(4) == 0 {
            g.range(0, 600)
        } else {
            g.range(0, 40)
        };
        c.xw.push(conv(&m, d));
        c.xsg.push((g.next() & 1) as u32);
    }
    c
}

/// The kernel's tile for one 16-row m-tile over the case's elements,
/// folded into S (20 words) per row.
fn model(c: &Case) -> Vec<[u32; 20]> {
    assert!(c.k.is_multiple_of(16));
    // x's shifted reversed copies and transposed bytes.
    let mut rr = vec![0u32; c.k * RE];
    let mut xt = vec![0u32; c.k / 4 * NV];
    for k in 0..c.k {
        let xb = bytes(&c.xw[k]);
        let rb = |q: i64| {
            let v = RP - q;
            if (0..72).contains(&v) {
                xb[v as usize] as u32
            } else {
                0
            }
        };
        for s in 0..4 {
            for w in 0..30 {
                let mut x = 0u32;
                for b in 0..4 {
                    x |= rb(4 * w as i64 + s as i64 + b as i64) << (8 * b);
                }
                rr[k * RE + s * RW + w] = x;
            }
        }
        for v in 0..NV {
            xt[k / 4 * NV + v] |= (xb[v] as u32) << (8 * (k % 4));
        }
    }
    let mut h = vec![[[0u32; 4]; 32]; 10];
    let mut n = vec![[[0u32; 4]; 32]; 9];
    let mut nm = [[0u32; 2]; 32];
    for e in 0..c.k {
        // Each lane's words 4q + tig of A~ for rows gid and gid + 8.
        let mut aw = [[[0u32; 5]; 2]; 32];
        for l in 0..32 {
            let (gid, tig) = (l / 4, l % 4);
            for (half, row) in [gid, gid + 8].into_iter().enumerate() {
                let i = row * c.k + e;
                let s = c.asg[i] ^ c.xsg[e];
                let w = conv(&c.am[i], c.ad[i]);
                for q in 0..5 {
                    let j = 4 * q + tig;
                    aw[l][half][q] = if j < NF {
                        w[j] ^ 0u32.wrapping_sub(s)
                    } else {
                        0
                    };
                }
                nm[l][half] |= s << (e & 15);
            }
        }
        let p = |l: usize, off: i64| -> u32 {
            let (gid, tig) = ((l / 4) as i64, (l % 4) as i64);
            let qb = RP - D0 as i64 - gid + 4 * tig;
            let (cs, wb) = ((qb & 3) as usize, qb >> 2);
            let w = wb + off;
            assert!((0..30).contains(&w), "window word {w}");
            rr[e * RE + cs * RW + w as usize]
        };
        let mut a = [[0u32; 4]; 32];
        let mut b = [[0u32; 2]; 32];
        for j in 0..10i64 {
            if j < 5 {
                for l in 0..32 {
                    a[l] = [aw[l][0][0], aw[l][1][0], aw[l][0][1], aw[l][1][1]];
                    b[l] = [p(l, -2 * j), p(l, 4 - 2 * j)];
                }
                mma(&mut h[j as usize], &a, &b, 32);
            }
            if j < 9 {
                for l in 0..32 {
                    a[l] = [aw[l][0][2], aw[l][1][2], aw[l][0][3], aw[l][1][3]];
                    b[l] = [p(l, 8 - 2 * j), p(l, 12 - 2 * j)];
                }
                mma(&mut h[j as usize], &a, &b, 32);
            }
            for l in 0..32 {
                a[l] = [aw[l][0][4], aw[l][1][4], 0, 0];
                b[l] = [p(l, 16 - 2 * j), 0];
            }
            mma(&mut h[j as usize], &a, &b, 16);
        }
        if e & 15 == 15 {
            let spread = |x: u32| x.wrapping_mul(0x0020_4081) & 0x0101_0101;
            for j in 0..9 {
                for l in 0..32 {
                    let (gid, tig) = (l / 4, l % 4);
                    a[l] = [
                        spread((nm[l][0] >> (4 * tig)) & 15),
                        spread((nm[l][1] >> (4 * tig)) & 15),
                        0,
                        0,
                    ];
                    b[l] = [xt[((e - 15) / 4 + tig) * NV + gid + 8 * j], 0];
                }
                mma(&mut n[j], &a, &b, 16);
            }
            nm = [[0; 2]; 32];
        }
    }
    // The fold: columns per row, then S = T + sum_v N_v c_v.
    let mut out = vec![[0u32; 20]; 16];
    for (row, o) in out.iter_mut().enumerate() {
        let mut hc = [0i64; ND + 4];
        let mut nc = [0i64; NV];
        for l in 0..32 {
            let (gid, tig) = (l / 4, l % 4);
            for i in 0..4 {
                if gid + 8 * (i >= 2) as usize != row {
                    continue;
                }
                for j in 0..10 {
                    hc[8 * j + 2 * tig + (i & 1)] = h[j][l][i] as i64;
                }
                for j in 0..9 {
                    nc[8 * j + 2 * tig + (i & 1)] = n[j][l][i] as i64;
                }
            }
        }
        let low: i64 = nc[..D0].iter().sum();
        for p in 0..4 {
            hc[p] += nc[D0 + p];
        }
        hc[0] += low;
        for v in 0..NV {
            hc[v + 4] -= nc[v];
        }
        let mut cy = 0i64;
        for (w, ow) in o.iter_mut().enumerate() {
            let mut v = cy;
            for b in 0..4 {
                v += hc[4 * w + b] << (8 * b);
            }
            *ow = v as u32;
            cy = v >> 32;
        }
    }
    out
}

/// kept(a' x') by byte pairs u + v >= 68 (units 2^544) and by bl_mac's
/// word pairs U + V >= 17.
fn kept(a: &[u32; NF], x: &[u32; NF]) -> (Natural, Natural) {
    let (ab, xb) = (bytes(a), bytes(x));
    let mut col = [0u128; 80];
    for u in 0..72 {
        for v in 0..72 {
            if u + v >= D0 {
                col[u + v - D0] += ab[u] as u128 * xb[v] as u128;
            }
        }
    }
    let mut kb = Natural::from(0u32);
    for p in (0..80).rev() {
        kb = (kb << 8u64) + Natural::from(col[p]);
    }
    let mut kw = Natural::from(0u32);
    for uu in 0..NF {
        for vv in 0..NF {
            if uu + vv >= NF - 1 {
                kw +=
                    Natural::from(a[uu] as u64 * x[vv] as u64) << (32 * (uu + vv + 1 - NF)) as u64;
            }
        }
    }
    (kb, kw)
}

fn low_zero_words(w: &[u32; NF]) -> usize {
    w.iter().take_while(|&&x| x == 0).count().min(NF)
}

#[test]
fn mma_model_vs_exact() {
    let mut g = Rng(seed());
    let bound = Natural::from(17u32) << 577u64;
    let two640 = Integer::from(Natural::from(1u32) << 640u64);
    let mut exact_terms = 0usize;
    let mut rows = 0usize;
    for trial in 0..12 {
        let k = 16 * (1 + trial % 3);
        let c = make_case(&mut g, k);
        // The conversion against malachite.
        for (m, &d) in c.am.iter().zip(&c.ad) {
            let w = conv(m, d);
            let want = (nat(m) << 64u64) >> d as u64;
            assert_eq!(nat(&w), want, "conv d = {d}");
        }
        let s = model(&c);
        for row in 0..16 {
            let mut want = Integer::from(0);
            for e in 0..k {
                let i = row * k + e;
                let a = conv(&c.am[i], c.ad[i]);
                let x = &c.xw[e];
                let (kb, kw) = kept(&a, x);
                let full = nat(&a) * nat(x);
                let kb544 = &kb << 544u64;
                assert!(kw <= kb, "word pairs above byte pairs");
                assert!(kb544 <= full, "kept above the product");
                assert!(&full - &kb544 < bound, "dropped pairs above bl_mac's bound");
                if low_zero_words(&a) + low_zero_words(x) >= NF - 1 {
                    assert_eq!(kb544, full, "an exact term lost bits");
                    exact_terms += 1;
                }
                let t = Integer::from(kb);
                if c.asg[i] ^ c.xsg[e] == 1 {
                    want -= t;
                } else {
                    want += t;
                }
            }
            let want = ((want % &two640) + &two640) % &two640;
            assert_eq!(
                Integer::from(nat(&s[row])),
                want,
                "trial {trial} row {row}: S"
            );
            rows += 1;
        }
    }
    eprintln!("{rows} rows checked, {exact_terms} exact terms");
    assert!(exact_terms > 0);
}

/// CUDA's `__byte_perm(x, y, s)`: byte n of the result is byte `s`'s
/// nibble n of the 8 bytes (x low, y high).
fn byte_perm(x: u32, y: u32, s: u32) -> u32 {
    let b = ((y as u64) << 32) | x as u64;
    (0..4).fold(0u32, |r, n| {
        let sel = (s >> (4 * n)) & 7;
        r | ((((b >> (8 * sel)) & 255) as u32) << (8 * n))
    })
}

/// blas.cu's `bl_gmx64` builds x's forms by byte permutes and funnel shifts
/// (Y word j from x's words 27 - j and 26 - j, copy c word w = (Y[w],
/// Y[w + 1]) >> 8c, a 4 x 4 byte transposition for XT): the same words as
/// the definitions (R: word w of copy c holds X_(108 - 4w - c - b) in byte
/// b; XT[(k/4) 72 + v] byte j = X_(k + j, v)).
#[test]
fn mma_x_forms_by_byte_permutes() {
    let mut g = Rng(seed() ^ 0x9e);
    for _ in 0..200 {
        let xs: Vec<[u32; NF]> = (0..4)
            .map(|_| {
                let mut w = [0u32; NF];
                for x in w.iter_mut() {
                    *x = g.next() as u32;
                }
                w
            })
            .collect();
        let xw = &xs[0];
        let xb = bytes(xw);
        let y: Vec<u32> = (0..=RW as i64)
            .map(|j| {
                let word = |i: i64| {
                    if (0..NF as i64).contains(&i) {
                        xw[i as usize]
                    } else {
                        0
                    }
                };
                byte_perm(word(26 - j), word(27 - j), 0x1234)
            })
            .collect();
        for c in 0..4 {
            for w in 0..RW {
                let mut want = 0u32;
                for b in 0..4 {
                    let v = RP - (4 * w + c + b) as i64;
                    if (0..72).contains(&v) {
                        want |= (xb[v as usize] as u32) << (8 * b);
                    }
                }
                let got = if c == 0 {
                    y[w]
                } else {
                    ((((y[w + 1] as u64) << 32) | y[w] as u64) >> (8 * c)) as u32
                };
                assert_eq!(got, want, "copy {c} word {w}");
            }
        }
        for w in 0..NF {
            let q: Vec<u32> = xs.iter().map(|x| x[w]).collect();
            let lo01 = byte_perm(q[0], q[1], 0x5140);
            let hi01 = byte_perm(q[0], q[1], 0x7362);
            let lo23 = byte_perm(q[2], q[3], 0x5140);
            let hi23 = byte_perm(q[2], q[3], 0x7362);
            let o = [
                byte_perm(lo01, lo23, 0x5410),
                byte_perm(lo01, lo23, 0x7632),
                byte_perm(hi01, hi23, 0x5410),
                byte_perm(hi01, hi23, 0x7632),
            ];
            for b in 0..4 {
                let want = (0..4).fold(0u32, |r, j| r | (((q[j] >> (8 * b)) & 255) << (8 * j)));
                assert_eq!(o[b], want, "XT word {w} byte {b}");
            }
        }
    }
}
