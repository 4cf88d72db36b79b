// The exactly rounded BLAS on CUDA (notes/blas-cuda.md): every output is
// alpha * sum_k a_ik b_kj + beta * c_ij rounded once, as src/linalg/exact.rs
// (mpfr_sum) rounds it. The products run in fixed point: per line (row of
// op(A), column of op(B)) the largest exponent e of its normal entries is
// the scale, an entry becomes a' = trunc(|a| 2^(F - e)) (F = 32 BL_NF bits,
// 32-bit words) with its sign and a note whether the truncation was exact;
// a term adds the short product of a' and b' (the partial products of word
// columns >= BL_NF - 1) to a two's-complement accumulator of BL_NF + 2
// words and counts itself when it may be inexact. The epilogue bounds the
// error (notes/blas-cuda.md), rounds alpha * S + beta * c when no rounding
// boundary lies inside the interval, and flags the element for the host
// (the exact core) otherwise.
//
// The per-thread code (bl_fix, bl_mac, bl_epilogue, bl_zero_neg) is plain
// C++ outside the __CUDACC__ parts: tests/emu/blas/emu.cpp runs it on the
// host against the CPU engine. BL_NF is the tier (one instantiation each).
#ifdef __CUDACC__
#include "common.cuh"
#include "float_common.cuh"
#endif

#ifndef BL_NF
#define BL_NF 18
#endif

// Meta word of a fixed-point entry: bit 0 the sign, bits 1.. the number z
// of low zero words of an exactly truncated a' plus BL_ZB; z = BL_ZEXACT0
// for an exact zero, z = -BL_ZEXACT0 for an inexact truncation.
#define BL_ZB 16384
#define BL_ZEXACT0 8192
#define BL_META(z, neg) ((u32)(((z) + BL_ZB) << 1) | ((neg) ? 1u : 0u))

// 32-bit carry chains: PTX on the device, an explicit carry flag on the host.
#ifdef __CUDA_ARCH__
#define BL_ASM(op)                                                                             \
    u32 r;                                                                                     \
    asm volatile(op " %0, %1, %2, %3;" : "=r"(r) : "r"(a), "r"(b), "r"(c));                    \
    return r;
FL_DEV u32 bl_mad_lo_cc(u32 a, u32 b, u32 c) { BL_ASM("mad.lo.cc.u32") }
FL_DEV u32 bl_madc_lo_cc(u32 a, u32 b, u32 c) { BL_ASM("madc.lo.cc.u32") }
FL_DEV u32 bl_mad_hi_cc(u32 a, u32 b, u32 c) { BL_ASM("mad.hi.cc.u32") }
FL_DEV u32 bl_madc_hi_cc(u32 a, u32 b, u32 c) { BL_ASM("madc.hi.cc.u32") }
FL_DEV u32 bl_madc_hi(u32 a, u32 b, u32 c) { BL_ASM("madc.hi.u32") }
FL_DEV u32 bl_mad_hi(u32 a, u32 b, u32 c) { BL_ASM("mad.hi.u32") }
#undef BL_ASM
FL_DEV u32 bl_add_cc(u32 a, u32 b) {
    u32 r;
    asm volatile("add.cc.u32 %0, %1, %2;" : "=r"(r) : "r"(a), "r"(b));
    return r;
}
FL_DEV u32 bl_addc_cc(u32 a, u32 b) {
    u32 r;
    asm volatile("addc.cc.u32 %0, %1, %2;" : "=r"(r) : "r"(a), "r"(b));
    return r;
}
FL_DEV u32 bl_addc(u32 a, u32 b) {
    u32 r;
    asm volatile("addc.u32 %0, %1, %2;" : "=r"(r) : "r"(a), "r"(b));
    return r;
}
#else
// The host's carry flag (the emulator is single-threaded).
static u32 bl_cf;
// A chain's last step must not carry out (the sizes guarantee it).
static inline u32 bl_nocarry(u64 t) {
    if (t >> 32) {
        fprintf(stderr, "blas emu: a carry chain overflowed\n");
        abort();
    }
    return (u32)t;
}
static inline u32 bl_mad_lo_cc(u32 a, u32 b, u32 c) {
    u64 t = (u64)(u32)(a * b) + c;
    bl_cf = (u32)(t >> 32);
    return (u32)t;
}
static inline u32 bl_madc_lo_cc(u32 a, u32 b, u32 c) {
    u64 t = (u64)(u32)(a * b) + c + bl_cf;
    bl_cf = (u32)(t >> 32);
    return (u32)t;
}
static inline u32 bl_mad_hi_cc(u32 a, u32 b, u32 c) {
    u64 t = (((u64)a * b) >> 32) + c;
    bl_cf = (u32)(t >> 32);
    return (u32)t;
}
static inline u32 bl_madc_hi_cc(u32 a, u32 b, u32 c) {
    u64 t = (((u64)a * b) >> 32) + c + bl_cf;
    bl_cf = (u32)(t >> 32);
    return (u32)t;
}
static inline u32 bl_madc_hi(u32 a, u32 b, u32 c) {
    return bl_nocarry((((u64)a * b) >> 32) + c + bl_cf);
}
static inline u32 bl_mad_hi(u32 a, u32 b, u32 c) { return bl_nocarry((((u64)a * b) >> 32) + c); }
static inline u32 bl_add_cc(u32 a, u32 b) {
    u64 t = (u64)a + b;
    bl_cf = (u32)(t >> 32);
    return (u32)t;
}
static inline u32 bl_addc_cc(u32 a, u32 b) {
    u64 t = (u64)a + b + bl_cf;
    bl_cf = (u32)(t >> 32);
    return (u32)t;
}
static inline u32 bl_addc(u32 a, u32 b) { return (u32)((u64)a + b + bl_cf); }
#endif

// Whether m (la limbs) has a nonzero bit below bit d (d >= 1).
FL_DEV bool bl_any_below(const u64 *m, u32 la, i64 d) {
    if (d >= 64 * (i64)la) return true; // m is nonzero
    u32 q = (u32)(d >> 6), r = (u32)(d & 63);
    u64 x = r ? (m[q] & ((1ull << r) - 1)) : 0;
    for (u32 i = 0; i < q; i++) x |= m[i];
    return x != 0;
}

// Whether the l-limb m has a nonzero bit below bit d (any d).
FL_DEV bool bl_bits_any(const u64 *m, u32 l, i64 d) { return d > 0 && bl_any_below(m, l, d); }

// Trailing zero bits of x (x != 0).
FL_DEV u32 bl_ctz32(u32 x) {
#ifdef __CUDA_ARCH__
    return (u32)__ffs((int)x) - 1;
#else
    return (u32)__builtin_ctz(x);
#endif
}

// (hi:lo) >> sh, the low 32 bits (sh < 32).
FL_DEV u32 bl_funnel(u32 lo, u32 hi, u32 sh) {
#ifdef __CUDA_ARCH__
    return __funnelshift_r(lo, hi, sh);
#else
    return (u32)((((u64)hi << 32) | lo) >> sh);
#endif
}

// The fixed-point entry of the element with head h and mantissa mm (L
// 32-bit words, little-endian, L < 2^25) on a line of scale esc: w[0..NF)
// = trunc(|x| 2^(32 NF - esc)) (little-endian words); returns its meta
// word. Zeros and specials (flagged elsewhere) give 0.
template <int NF>
FL_DEV u32 bl_fix32(u64 h, const u32 *mm, u32 L, i64 esc, u32 *w) {
    u32 tag = fl_tag(h);
    // a' = floor(m 2^-o), m the mantissa integer, o = 32 L + (esc - e) -
    // 32 NF: word j is bits o + 32 j .. of m, a funnel shift of two words,
    // each read once. o >= 32 L: every bit is cut off (a' = 0, inexact).
    i64 d = esc - fl_exp(h);
    const i64 lim = 32 * (i64)L;
    bool zero = (tag & 3) != FL_NORMAL || d >= lim + 32 * NF;
    const int o = zero ? (int)lim : (int)(lim + d) - 32 * NF;
    if (zero || o >= (int)lim) {
#pragma unroll
        for (int j = 0; j < NF; j++) w[j] = 0;
        return zero && (tag & 3) != FL_NORMAL ? BL_META(BL_ZEXACT0, false)
                                              : BL_META(-BL_ZEXACT0, (tag & FL_NEG) != 0);
    }
    const int base = o >> 5;
    const u32 sh = (u32)o & 31;
    // Words base + j in [0, L) are read, the others are 0.
    u32 lo = (u32)base < L ? mm[base] : 0u;
#pragma unroll
    for (int j = 0; j < NF; j++) {
        u32 hi = (u32)(base + j + 1) < L ? mm[base + j + 1] : 0u;
        w[j] = bl_funnel(lo, hi, sh);
        lo = hi;
    }
    // Exact when no bit of m below bit o is set: tz >= o, tz the trailing
    // zeros of m (its top word is nonzero); then the lowest nonzero word
    // of a' holds bit tz - o.
    u32 i = 0;
    while (mm[i] == 0) i++;
    const int tz = 32 * (int)i + (int)bl_ctz32(mm[i]);
    int z = tz >= o ? (tz - o) >> 5 : -BL_ZEXACT0;
    return BL_META(z, (tag & FL_NEG) != 0);
}

// bl_fix32 of a normal element of 16 mantissa words held in registers (m;
// mm: the same words in memory, read only past a zero low word) at tier 18
// when its exponent lies 0 <= d < 64 bits below esc: then o = d - 64 < 0,
// no bit is cut and a' = m 2^(64 - d), word j a funnel shift of m's words
// j - 2, j - 1 (d < 32) or j - 1, j (d >= 32) with constant register
// indices. The same words and meta as bl_fix32 (the emulation checks it).
FL_DEV u32 bl_fix32_near(u64 h, const u32 *m, const u32 *mm, i64 d, u32 *w) {
    const bool up = d >= 32;
    const u32 sh = (u32)d & 31;
    u32 lo = 0;
#pragma unroll
    for (int j = 0; j < 18; j++) {
        // c_(j+1): m[j] (d >= 32) or m[j - 1] (d < 32), 0 outside.
        const u32 a = j < 16 ? m[j] : 0u, b = j >= 1 && j <= 16 ? m[j - 1] : 0u;
        const u32 hi = up ? a : b;
        w[j] = bl_funnel(lo, hi, sh);
        lo = hi;
    }
    // Exact (o < 0); the low zero words of a' from m's trailing zeros tz.
    int tz;
    if (m[0]) {
        tz = (int)bl_ctz32(m[0]);
    } else {
        u32 i = 1;
        while (mm[i] == 0) i++;
        tz = 32 * (int)i + (int)bl_ctz32(mm[i]);
    }
    return BL_META((tz + 64 - (int)d) >> 5, (fl_tag(h) & FL_NEG) != 0);
}

// acc (NW words, two's complement) >>= d (arithmetic: floor, so less than
// one unit is cut off); cnt grows by one when nonzero bits are cut off (one
// unit is within the bound of one inexact term, NF 2^33 units). Constant
// register indices only (a word shift by the bits of d >> 5, then a funnel
// shift), so that acc stays in registers.
template <int NW> FL_DEV void bl_acc_shr_r(u32 *acc, u64 d, u32 &cnt) {
    if (d == 0) return;
    const u32 fill = (acc[NW - 1] >> 31) ? ~0u : 0u;
    bool cut = false;
#pragma unroll
    for (int w = 0; w < NW; w++) {
        const u64 lo = 32 * (u64)w;
        if (lo + 32 <= d)
            cut |= acc[w] != 0;
        else if (lo < d)
            cut |= (acc[w] & ((1u << (u32)(d - lo)) - 1u)) != 0;
    }
    if (cut) cnt++;
    if (d >= 32 * (u64)NW) {
#pragma unroll
        for (int w = 0; w < NW; w++) acc[w] = fill;
        return;
    }
    const u32 q = (u32)(d >> 5), r = (u32)(d & 31);
#pragma unroll
    for (int b = 0; b < 5; b++) {
        const int s = 1 << b;
        if (q & (u32)s) {
#pragma unroll
            for (int w = 0; w < NW; w++) acc[w] = w + s < NW ? acc[w + s] : fill;
        }
    }
#pragma unroll
    for (int w = 0; w < NW; w++) acc[w] = bl_funnel(acc[w], w + 1 < NW ? acc[w + 1] : fill, r);
}

// bl_fix32 on an element of la 64-bit limbs.
template <int NF>
FL_DEV u32 bl_fix(u64 h, const u64 *m, u32 la, i64 esc, u32 *w) {
    return bl_fix32<NF>(h, (const u32 *)m, 2 * la, esc, w);
}

// acc (NF + 2 words, two's complement) += the signed short product of a
// and b (NF words each, metas ma, mb): the partial products of word
// columns >= NF - 1, in units of 2^(32 (NF - 1)); cnt counts the term when
// it may be inexact (a truncation or a left-out partial product nonzero).
// Row v of the product touches columns 0..v+1 only, so each chain starts
// on zeros above and never carries out (notes/blas-cuda.md).
template <int NF>
FL_DEV void bl_mac(u32 *acc, u32 &cnt, const u32 *a, u32 ma, const u32 *b, u32 mb) {
    u32 P[NF + 1];
#pragma unroll
    for (int c = 0; c <= NF; c++) P[c] = 0;
#pragma unroll
    for (int v = 0; v < NF; v++) {
        const u32 bv = b[v];
        const int u0 = NF - 1 - v;
        P[0] = bl_mad_lo_cc(a[u0], bv, P[0]);
#pragma unroll
        for (int c = 1; c <= v; c++) P[c] = bl_madc_lo_cc(a[u0 + c], bv, P[c]);
        P[v + 1] = bl_addc(0u, 0u);
        if (v == 0) {
            P[1] = bl_mad_hi(a[u0], bv, P[1]);
        } else {
            P[1] = bl_mad_hi_cc(a[u0], bv, P[1]);
#pragma unroll
            for (int c = 2; c <= v; c++) P[c] = bl_madc_hi_cc(a[u0 + c - 1], bv, P[c]);
            P[v + 1] = bl_madc_hi(a[u0 + v], bv, P[v + 1]);
        }
    }
    // acc += (P ^ s) + (s & 1): adds P, or subtracts it (s all ones).
    const u32 s = 0u - ((ma ^ mb) & 1u);
    bl_add_cc(s & 1u, 0xffffffffu);
#pragma unroll
    for (int c = 0; c <= NF; c++) acc[c] = bl_addc_cc(acc[c], P[c] ^ s);
    acc[NF + 1] = bl_addc(acc[NF + 1], s);
    int za = (int)(ma >> 1) - BL_ZB, zb = (int)(mb >> 1) - BL_ZB;
    cnt += (za + zb < NF - 1) ? 1u : 0u;
}

// acc += x (nw words each, two's complement).
FL_DEV void bl_acc_add(u32 *acc, const u32 *x, u32 nw) {
    u32 c = 0;
    for (u32 i = 0; i < nw; i++) {
        u64 t = (u64)acc[i] + x[i] + c;
        acc[i] = (u32)t;
        c = (u32)(t >> 32);
    }
}

// Bits of x (0 for 0).
FL_DEV i64 bl_bitlen64(u64 x) { return x ? 64 - (i64)fl_clz(x) : 0; }

// Bits of the l-limb magnitude m (0 for 0).
FL_DEV i64 bl_bitlen(const u64 *m, u32 l) {
    for (u32 i = l; i-- > 0;)
        if (m[i]) return 64 * (i64)i + bl_bitlen64(m[i]);
    return 0;
}

// buf (wb limbs, two's complement) += (neg ? -1 : 1) * trunc(src 2^sh),
// src of ls limbs; returns whether bits were cut off below. tmp: wb limbs.
FL_DEV bool bl_place(u64 *buf, u32 wb, const u64 *src, u32 ls, i64 sh, bool neg, u64 *tmp) {
    // Limb i of trunc(src 2^sh) is limbs i + q, i + q + 1 of src shifted
    // right by r (q = floor(-sh / 64), r = -sh mod 64), each read once.
    const i64 d = -sh;
    const bool in = d < 64 * (i64)ls && d > -64 * (i64)wb;
    const int q = in ? (int)(d >> 6) : 0;
    const u32 r = (u32)(d & 63);
    u64 lo = in && q >= 0 && q < (int)ls ? src[q] : 0;
    for (u32 i = 0; i < wb; i++) {
        const int x = q + (int)i + 1;
        u64 hi = in && x >= 0 && x < (int)ls ? src[x] : 0;
        tmp[i] = r ? (lo >> r) | (hi << (64 - r)) : lo;
        lo = hi;
    }
    bool cut = sh < 0 && bl_bits_any(src, ls, -sh);
    if (neg)
        fl_sub_n(buf, buf, tmp, wb);
    else
        fl_add_n(buf, buf, tmp, wb);
    return cut;
}

// r[0 .. A + B) = a b (A, B 32-bit words, A >= 2): unrolled mad.lo.cc /
// madc.hi chains in registers, a row per word of b. Before row v the sum
// is below 2^(32 (v + A)), so r[v + A] is still zero and the row's last
// chain step never carries out.
template <int A, int B> FL_DEV void bl_mulw(u32 *r, const u32 *a, const u32 *b) {
#pragma unroll
    for (int c = 0; c < A + B; c++) r[c] = 0;
#pragma unroll
    for (int v = 0; v < B; v++) {
        const u32 bv = b[v];
        r[v] = bl_mad_lo_cc(a[0], bv, r[v]);
#pragma unroll
        for (int u = 1; u < A; u++) r[v + u] = bl_madc_lo_cc(a[u], bv, r[v + u]);
        r[v + A] = bl_addc(0u, 0u);
        r[v + 1] = bl_mad_hi_cc(a[0], bv, r[v + 1]);
#pragma unroll
        for (int u = 1; u < A - 1; u++) r[v + u + 1] = bl_madc_hi_cc(a[u], bv, r[v + u + 1]);
        r[v + A] = bl_madc_hi(a[A - 1], bv, r[v + A]);
    }
}

// The A words of m (la limbs, la <= A / 2), zeros above.
template <int A> FL_DEV void bl_words(u32 *w, const u64 *m, u32 la) {
    const u32 *m32 = (const u32 *)m;
#pragma unroll
    for (int i = 0; i < A; i++) w[i] = (u32)i < 2 * la ? m32[i] : 0u;
}

// r (A / 2 + B / 2 limbs) = the words a b (bl_mulw), as limbs.
template <int A, int B> FL_DEV void bl_mul_limbs(u64 *r, const u32 *a, const u32 *b) {
    u32 rw[A + B];
    bl_mulw<A, B>(rw, a, b);
#pragma unroll
    for (int i = 0; i < (A + B) / 2; i++) r[i] = (u64)rw[2 * i] | ((u64)rw[2 * i + 1] << 32);
}

// Scalars, C and the output of the epilogue: at most BL_LMAX limbs each.
#define BL_LMAX (BL_NF / 2 + 2)
#define BL_NWL (BL_NF / 2 + 1)
#define BL_WB (2 * BL_LMAX + 2)


// The epilogue of one output: acc (NW words) with cnt possibly inexact
// terms at scale 2^(ea + eb - F - 32), times alpha, plus beta * c (has_c),
// rounded to p bits in mode rnd into o (ternary into tern) when no
// rounding boundary lies within the error. Returns 0 when done, 1 when the
// host must compute the element, 2 for an exact zero whose sign needs the
// terms (bl_zero_neg).
template <int NF, bool REG = false>
FL_DEV u32 bl_epilogue(FlOut &o, i8 &tern, const u32 *acc, u32 cnt, i64 ea, i64 eb, u64 ah,
                       const u64 *am, u32 la, bool has_c, u64 bh, const u64 *bm, u32 lb, u64 ch,
                       const u64 *cm, u32 lc, u64 p, u32 rnd) {
    const u32 NWL = NF / 2 + 1, WB = 2 * (NF / 2 + 2) + 2;
    u64 X[2 * (NF / 2 + 2) + 2], Y[2 * (NF / 2 + 2)], buf[2 * (NF / 2 + 2) + 2],
        tmp[2 * (NF / 2 + 2) + 2], mag[NF / 2 + 1];
    // |acc| and its sign.
    for (u32 i = 0; i < NWL; i++) mag[i] = (u64)acc[2 * i] | ((u64)acc[2 * i + 1] << 32);
    bool aneg = (mag[NWL - 1] >> 63) != 0;
    if (aneg) {
        u64 c = 1;
        for (u32 i = 0; i < NWL; i++) {
            u64 v = ~mag[i] + c;
            c = (c && v == 0) ? 1 : 0;
            mag[i] = v;
        }
    }
    bool alpha_on = (fl_tag(ah) & 3) == FL_NORMAL;
    i64 NOTOP = -((i64)1 << 62);
    // X = alpha * acc, unit 2^ux; its error below 2^ex (cnt > 0).
    u32 lx = la + NWL;
    i64 ux = ea + eb - 32 * (i64)NF - 32 + fl_exp(ah) - 64 * (i64)la;
    i64 topx = NOTOP, ex = NOTOP;
    bool xneg = aneg != ((fl_tag(ah) & FL_NEG) != 0);
    if (alpha_on) {
        if constexpr (REG && NF <= 18) {
            // REG: up to NF = 18 in registers (alpha padded to NF / 2 + 2
            // limbs; the limbs above la + NWL are zero). Not the default:
            // the unrolled chains run once per thread, so their code is
            // fetched once per output (GEMV's blas_fin 52 us with them, 33
            // us with the loops of fl_mul_exact; notes/blas-cuda.md).
            u32 aw[NF + 4], mw[NF + 2];
            bl_words<NF + 4>(aw, am, la);
#pragma unroll
            for (int w = 0; w < NF + 2; w++) mw[w] = (u32)(mag[w / 2] >> (32 * (w & 1)));
            bl_mul_limbs<NF + 4, NF + 2>(X, aw, mw);
        } else {
            fl_mul_exact(X, am, la, mag, NWL);
        }
        i64 bx = bl_bitlen(X, lx);
        if (bx) topx = ux + bx;
        if (cnt) ex = ux + bl_bitlen64(cnt) + 33 + bl_bitlen64(NF) + 64 * (i64)la;
    }
    // Y = beta * c, exact, unit 2^uy.
    u32 ly = lb + lc;
    i64 uy = 0, topy = NOTOP;
    bool yneg = false, y_on = false;
    if (has_c && (fl_tag(bh) & 3) == FL_NORMAL && (fl_tag(ch) & 3) == FL_NORMAL) {
        y_on = true;
        if constexpr (REG && NF <= 18) {
            u32 bw[NF + 4], cw[NF + 4];
            bl_words<NF + 4>(bw, bm, lb);
            bl_words<NF + 4>(cw, cm, lc);
            bl_mul_limbs<NF + 4, NF + 4>(Y, bw, cw);
        } else {
            fl_mul_exact(Y, bm, lb, cm, lc);
        }
        uy = fl_exp(bh) - 64 * (i64)lb + fl_exp(ch) - 64 * (i64)lc;
        topy = uy + bl_bitlen(Y, ly);
        yneg = ((fl_tag(bh) ^ fl_tag(ch)) & FL_NEG) != 0;
    }
    i64 top = topx > topy ? topx : topy;
    if (ex > top) top = ex;
    if (top == NOTOP) return 2; // no nonzero term value and no error
    i64 hi = top + 2, lo = hi - 64 * (i64)WB;
    for (u32 i = 0; i < WB; i++) buf[i] = 0;
    bool cut = false;
    if (topx != NOTOP) cut |= bl_place(buf, WB, X, lx, ux - lo, xneg, tmp);
    if (y_on) cut |= bl_place(buf, WB, Y, ly, uy - lo, yneg, tmp);
    bool neg = (buf[WB - 1] >> 63) != 0;
    if (neg) {
        u64 c = 1;
        for (u32 i = 0; i < WB; i++) {
            u64 v = ~buf[i] + c;
            c = (c && v == 0) ? 1 : 0;
            buf[i] = v;
        }
    }
    // The error, a power of two 2^e2 in units 2^lo (strict bound), or none.
    i64 e2 = -1;
    if (ex != NOTOP) {
        e2 = ex - lo + 1;
        if (e2 < 2) e2 = 2;
    } else if (cut) {
        e2 = 1;
    }
    if (e2 < 0) {
        // Exact.
        i64 bl = bl_bitlen(buf, WB);
        if (bl == 0) return 2;
        fl_shl(buf, WB, (u32)(64 * WB - bl) & 63);
        u32 sh = (u32)((64 * WB - bl) >> 6);
        for (u32 i = WB; i-- > 0;) buf[i] = i >= sh ? buf[i - sh] : 0;
        tern = fl_round_to(o, neg, lo + bl, buf, WB, false, p, rnd);
        return 0;
    }
    // L = M - 2^e2 and H = M + 2^e2 (H into X).
    for (u32 i = 0; i < WB; i++) {
        tmp[i] = 0;
        X[i] = buf[i];
    }
    tmp[e2 >> 6] = 1ull << (e2 & 63);
    if (fl_sub_n(buf, buf, tmp, WB)) return 1; // M < 2^e2
    fl_add_n(X, X, tmp, WB);
    i64 bl = bl_bitlen(buf, WB);
    if (bl == 0 || bl != bl_bitlen(X, WB)) return 1;
    i64 s = bl - (i64)p - 1;
    if (s < 0) return 1;
    // Equal from bit s up?
    for (u32 i = (u32)(s >> 6); i < WB; i++) {
        u64 d = buf[i] ^ X[i];
        if (i == (u32)(s >> 6)) d &= ~((1ull << (s & 63)) - 1);
        if (d) return 1;
    }
    // The exact value lies strictly inside the cell of L: round L with a
    // sticky bit.
    u32 lz = (u32)(64 * WB - bl);
    fl_shl(buf, WB, lz & 63);
    for (u32 i = WB; i-- > 0;) buf[i] = i >= (lz >> 6) ? buf[i - (lz >> 6)] : 0;
    tern = fl_round_to(o, neg, lo + bl, buf, WB, true, p, rnd);
    return 0;
}

// bl_epilogue for alpha = 1 without C (dot): the sum acc itself is rounded
// (NF / 2 + 2 limbs instead of the 2 (NF / 2 + 2) + 2 of the general
// window); its error is below 2^E units, E = bits(cnt) + 33 + bits(NF).
// The same returns as bl_epilogue.
template <int NF>
FL_DEV u32 bl_epilogue1(FlOut &o, i8 &tern, const u32 *acc, u32 cnt, i64 ea, i64 eb, u64 p,
                        u32 rnd) {
    const u32 NWL = NF / 2 + 1, NB = NF / 2 + 2;
    u64 M[NF / 2 + 2], H[NF / 2 + 2];
#pragma unroll
    for (u32 i = 0; i < NWL; i++) M[i] = (u64)acc[2 * i] | ((u64)acc[2 * i + 1] << 32);
    M[NWL] = 0;
    bool neg = (M[NWL - 1] >> 63) != 0;
    if (neg) {
        u64 c = 1;
#pragma unroll
        for (u32 i = 0; i < NWL; i++) {
            u64 v = ~M[i] + c;
            c = (c && v == 0) ? 1 : 0;
            M[i] = v;
        }
    }
    const i64 u = ea + eb - 32 * (i64)NF - 32;
    bool sticky = false;
    if (cnt) {
        // L = M - 2^E into M, H = M + 2^E: decided when L > 0, both have
        // the same length b and agree from bit b - p - 1 up (bl_epilogue).
        const i64 E = bl_bitlen64(cnt) + 33 + bl_bitlen64(NF);
        u64 c = 1ull << (E & 63), b = 0;
        const u32 q = (u32)(E >> 6);
#pragma unroll
        for (u32 i = 0; i < NB; i++) {
            u64 t = i == q ? c : 0;
            u64 h = M[i] + t + b;
            b = (h < M[i] || (h == M[i] && (t | b))) ? 1 : 0;
            H[i] = h;
        }
        b = 0;
#pragma unroll
        for (u32 i = 0; i < NB; i++) {
            u64 t = i == q ? c : 0;
            u64 l = M[i] - t - b;
            b = (M[i] < t || M[i] - t < b) ? 1 : 0;
            M[i] = l;
        }
        if (b) return 1; // M < 2^E
        i64 bl = bl_bitlen(M, NB);
        if (bl == 0 || bl != bl_bitlen(H, NB)) return 1;
        i64 s = bl - (i64)p - 1;
        if (s < 0) return 1;
#pragma unroll
        for (u32 i = 0; i < NB; i++) {
            u64 d = M[i] ^ H[i];
            if ((i64)(64 * i + 63) < s) d = 0;
            else if ((i64)(64 * i) < s) d &= ~((1ull << (s & 63)) - 1);
            if (d) return 1;
        }
        sticky = true;
    }
    i64 bl = bl_bitlen(M, NB);
    if (bl == 0) return 2;
    u32 lz = (u32)(64 * NB - bl);
    fl_shl(M, NB, lz & 63);
    for (u32 i = NB; i-- > 0;) M[i] = i >= (lz >> 6) ? M[i - (lz >> 6)] : 0;
    tern = fl_round_to(o, neg, u + bl, M, NB, sticky, p, rnd);
    return 0;
}

// The sign of an exact zero sum (mpfr_sum): the K product terms alpha a_k
// b_k (heads at ah[k * sa], bh[k * sb]) and beta c (has_c). A nonzero term
// means an exact cancellation: -0 only in mode D. All terms zero: their
// common sign, or (mixed signs) -0 only in mode D; no terms: +0.
FL_DEV bool bl_zero_neg(u64 alh, const u64 *ah, i64 sa, const u64 *bh, i64 sb, u64 K, bool has_c,
                        u64 beh, u64 ch, u32 rnd) {
    u64 zeros = 0, negz = 0;
    bool nonzero = false;
    bool an = (fl_tag(alh) & 3) == FL_NORMAL;
    for (u64 k = 0; k < K; k++) {
        u64 x = ah[k * sa], y = bh[k * sb];
        if (an && (fl_tag(x) & 3) == FL_NORMAL && (fl_tag(y) & 3) == FL_NORMAL) {
            nonzero = true;
            break;
        }
        zeros++;
        negz += ((fl_tag(alh) ^ fl_tag(x) ^ fl_tag(y)) & FL_NEG) ? 1 : 0;
    }
    if (!nonzero && has_c) {
        if ((fl_tag(beh) & 3) == FL_NORMAL && (fl_tag(ch) & 3) == FL_NORMAL) {
            nonzero = true;
        } else {
            zeros++;
            negz += ((fl_tag(beh) ^ fl_tag(ch)) & FL_NEG) ? 1 : 0;
        }
    }
    if (nonzero) return rnd == FL_RD;
    if (zeros > 0 && negz == zeros) return true;
    if (negz == 0) return false;
    return rnd == FL_RD;
}

// The scale of a line from blas_scale's encoding (0 without normal entries).
#define BL_EOFF ((i64)1 << 40)
FL_DEV i64 bl_esc(u64 x) { return x ? (i64)x - BL_EOFF : 0; }

// ---- The fused dot (blas_dot; notes/blas-cuda.md, "DOT in one launch") ----
// Each block sums its positions at its own scale u_b = ea_b + eb_b (the
// largest exponents of its normal x and y entries: the error analysis holds
// for any scale at least the line's entries' exponents); the last block
// moves every partial to the largest scale U by bl_acc_shr and adds them.

// Encoding of a block's scale sum u in its record: u + BL_UOFF.
#define BL_UOFF ((i64)1 << 42)

// The sign of an exact zero dot (bl_zero_neg with alpha = 1 and no C) from
// counts over its K > 0 terms: nonzero (some x_k and y_k both normal) and
// negz (terms whose factors' signs differ).
FL_DEV bool bl_dot_zero_neg(bool nonzero, u64 negz, u64 K, u32 rnd) {
    if (nonzero) return rnd == FL_RD;
    if (negz == K) return true;
    if (negz == 0) return false;
    return rnd == FL_RD;
}

// The end of blas_gemv's row i (bl_epi_one's rules for one output of a
// gemv): the row's sum acc (NF + 2 words) with cnt possibly inexact terms
// at the scales ea (the row's) and eb (x's), special when the row or x
// holds a NaN or an infinity; alpha (head a0, limbs alm), beta and c
// (has_c); ah and xh the row's and x's K heads (an exact zero's sign).
// Returns 0 (decided: o, tern) or 1 (the host computes the element).
template <int NF>
FL_DEV u32 bl_gv_epi(FlOut &o, i8 &tern, const u32 *acc, u32 cnt, bool special, i64 ea, i64 eb,
                     u64 a0, const u64 *alm, u32 lal, bool has_c, u64 bh, const u64 *bem, u32 lbe,
                     u64 ch, const u64 *cm, u32 lc, const u64 *ah, const u64 *xh, u64 K, u64 p,
                     u32 rnd) {
    const bool sp = special || (fl_tag(a0) & 3) >= FL_INF ||
                    (has_c && ((fl_tag(bh) & 3) >= FL_INF || (fl_tag(ch) & 3) >= FL_INF));
    tern = 0;
    if (sp) return 1;
    u32 r = bl_epilogue<NF>(o, tern, acc, cnt, ea, eb, a0, alm, lal, has_c, bh, bem, lbe, ch, cm,
                            lc, p, rnd);
    if (r == 2) {
        fl_special(o, FL_ZERO, bl_zero_neg(a0, ah, 1, xh, 1, K, has_c, bh, ch, rnd));
        tern = 0;
        r = 0;
    }
    return r;
}

// ---- Complex reductions (notes/blas-cuda.md, "Complex operations") ----
// Each part of a complex output is an exact sum of real products: with the
// panels PA = [re | s_a im] (lines of op(A)), PBr = [re | -s_b im] and PBi
// = [s_b im | re] (lines of op(B); s = -1 for a conjugated operand), Re =
// alr PA.PBr - ali PA.PBi + br cr - bi ci and Im = alr PA.PBi + ali PA.PBr
// + br ci + bi cr, PA.PBr and PA.PBi two real products over 2K positions
// (same line scales: PBr's and PBi's lines hold the same entries).

// A float operand of the complex epilogue: head, mantissa, limbs.
struct BlF {
    u64 h;
    const u64 *m;
    u32 l;
};

FL_DEV BlF bl_negf(BlF x) {
    x.h ^= FL_NEG;
    return x;
}

// |acc| (NF + 2 words, two's complement) into mag (NF / 2 + 1 limbs);
// returns the sign.
template <int NF>
FL_DEV bool bl_absacc(const u32 *acc, u64 *mag) {
    const u32 NWL = NF / 2 + 1;
    for (u32 i = 0; i < NWL; i++) mag[i] = (u64)acc[2 * i] | ((u64)acc[2 * i + 1] << 32);
    bool neg = (mag[NWL - 1] >> 63) != 0;
    if (neg) {
        u64 c = 1;
        for (u32 i = 0; i < NWL; i++) {
            u64 v = ~mag[i] + c;
            c = (c && v == 0) ? 1 : 0;
            mag[i] = v;
        }
    }
    return neg;
}

// One part of a complex output: V = sum_{t < nx} al[t] S_t + sum_{t < ny}
// be[t] c[t], S_t the exact sum accumulated in acc[t] (NF + 2 words, cnt[t]
// possibly inexact terms) at scale 2^(es - F - 32), rounded to p bits in
// mode rnd into o (ternary into tern) when no rounding boundary lies within
// the error. Every operand is a zero or a normal number (the caller sends
// specials to the host). bl_epilogue's method with four terms: the window's
// top 4 bits above every term's (bounded) top and the errors, the error of
// S_t scaled by al[t] as there, each cut below the window less than one
// unit. Returns 0 when done, 1 when the host must compute the part, 2 for
// an exact zero whose sign needs the terms (bl_czero_neg).
template <int NF>
FL_DEV u32 bl_cepilogue(FlOut &o, i8 &tern, const u32 *acc0, u32 cnt0, const u32 *acc1, u32 cnt1,
                        u32 nx, i64 es, const BlF *al, u32 ny, const BlF *be, const BlF *c, u64 p,
                        u32 rnd) {
    const u32 NWL = NF / 2 + 1, WB = NF + 8;
    u64 X[NF + 4], buf[NF + 8], tmp[NF + 8], H[NF + 8], mag[2][NF / 2 + 1];
    const i64 NOTOP = -((i64)1 << 62);
    const u32 *accs[2] = {acc0, acc1};
    const u32 cnts[2] = {cnt0, cnt1};
    bool xon[2] = {false, false}, xneg[2] = {false, false}, yon[2] = {false, false};
    i64 ux[2] = {0, 0}, uy[2] = {0, 0};
    i64 top = NOTOP, ex = NOTOP;
    for (u32 t = 0; t < nx; t++) {
        if ((fl_tag(al[t].h) & 3) != FL_NORMAL) continue;
        bool an = bl_absacc<NF>(accs[t], mag[t]);
        xneg[t] = an != ((fl_tag(al[t].h) & FL_NEG) != 0);
        ux[t] = es - 32 * (i64)NF - 32 + fl_exp(al[t].h) - 64 * (i64)al[t].l;
        i64 bm = bl_bitlen(mag[t], NWL);
        if (bm) {
            xon[t] = true;
            i64 tt = ux[t] + 64 * (i64)al[t].l + bm;
            if (tt > top) top = tt;
        }
        if (cnts[t]) {
            i64 e = ux[t] + bl_bitlen64(cnts[t]) + 33 + bl_bitlen64(NF) + 64 * (i64)al[t].l;
            if (e > ex) ex = e;
        }
    }
    for (u32 t = 0; t < ny; t++) {
        if ((fl_tag(be[t].h) & 3) != FL_NORMAL || (fl_tag(c[t].h) & 3) != FL_NORMAL) continue;
        yon[t] = true;
        uy[t] = fl_exp(be[t].h) - 64 * (i64)be[t].l + fl_exp(c[t].h) - 64 * (i64)c[t].l;
        i64 tt = uy[t] + 64 * (i64)(be[t].l + c[t].l);
        if (tt > top) top = tt;
    }
    if (ex > top) top = ex;
    if (top == NOTOP) return 2; // no nonzero term value and no error
    i64 hi = top + 4, lo = hi - 64 * (i64)WB;
    for (u32 i = 0; i < WB; i++) buf[i] = 0;
    bool cut = false;
    for (u32 t = 0; t < nx; t++) {
        if (!xon[t]) continue;
        fl_mul_exact(X, al[t].m, al[t].l, mag[t], NWL);
        cut |= bl_place(buf, WB, X, al[t].l + NWL, ux[t] - lo, xneg[t], tmp);
    }
    for (u32 t = 0; t < ny; t++) {
        if (!yon[t]) continue;
        fl_mul_exact(X, be[t].m, be[t].l, c[t].m, c[t].l);
        bool yn = ((fl_tag(be[t].h) ^ fl_tag(c[t].h)) & FL_NEG) != 0;
        cut |= bl_place(buf, WB, X, be[t].l + c[t].l, uy[t] - lo, yn, tmp);
    }
    bool neg = (buf[WB - 1] >> 63) != 0;
    if (neg) {
        u64 cy = 1;
        for (u32 i = 0; i < WB; i++) {
            u64 v = ~buf[i] + cy;
            cy = (cy && v == 0) ? 1 : 0;
            buf[i] = v;
        }
    }
    // The error below 2^(ex + 1) (two accumulators) plus under 4 units of
    // cuts: below 2^e2 units of 2^lo.
    i64 e2 = -1;
    if (ex != NOTOP) {
        e2 = ex - lo + 2;
        if (e2 < 3) e2 = 3;
    } else if (cut) {
        e2 = 2;
    }
    if (e2 < 0) {
        i64 bl = bl_bitlen(buf, WB);
        if (bl == 0) return 2;
        fl_shl(buf, WB, (u32)(64 * WB - bl) & 63);
        u32 sh = (u32)((64 * WB - bl) >> 6);
        for (u32 i = WB; i-- > 0;) buf[i] = i >= sh ? buf[i - sh] : 0;
        tern = fl_round_to(o, neg, lo + bl, buf, WB, false, p, rnd);
        return 0;
    }
    for (u32 i = 0; i < WB; i++) {
        tmp[i] = 0;
        H[i] = buf[i];
    }
    tmp[e2 >> 6] = 1ull << (e2 & 63);
    if (fl_sub_n(buf, buf, tmp, WB)) return 1; // M < 2^e2
    fl_add_n(H, H, tmp, WB);
    i64 bl = bl_bitlen(buf, WB);
    if (bl == 0 || bl != bl_bitlen(H, WB)) return 1;
    i64 s = bl - (i64)p - 1;
    if (s < 0) return 1;
    for (u32 i = (u32)(s >> 6); i < WB; i++) {
        u64 d = buf[i] ^ H[i];
        if (i == (u32)(s >> 6)) d &= ~((1ull << (s & 63)) - 1);
        if (d) return 1;
    }
    u32 lz = (u32)(64 * WB - bl);
    fl_shl(buf, WB, lz & 63);
    for (u32 i = WB; i-- > 0;) buf[i] = i >= (lz >> 6) ? buf[i - (lz >> 6)] : 0;
    tern = fl_round_to(o, neg, lo + bl, buf, WB, true, p, rnd);
    return 0;
}

// The sign of an exact zero part (mpfr_sum's rule, as bl_zero_neg) from
// its terms: al[t] pa[k sa] pb_t[k sb] (t < nx, k < K; heads) and be[t]
// c[t] (t < ny).
FL_DEV bool bl_czero_neg(const BlF *al, u32 nx, const u64 *pa, i64 sa, const u64 *pb0,
                         const u64 *pb1, i64 sb, u64 K, const BlF *be, const BlF *c, u32 ny,
                         u32 rnd) {
    u64 zeros = 0, negz = 0;
    for (u32 t = 0; t < nx; t++) {
        const u64 *pb = t ? pb1 : pb0;
        bool an = (fl_tag(al[t].h) & 3) == FL_NORMAL;
        for (u64 k = 0; k < K; k++) {
            u64 x = pa[k * sa], y = pb[k * sb];
            if (an && (fl_tag(x) & 3) == FL_NORMAL && (fl_tag(y) & 3) == FL_NORMAL)
                return rnd == FL_RD;
            zeros++;
            negz += ((fl_tag(al[t].h) ^ fl_tag(x) ^ fl_tag(y)) & FL_NEG) ? 1 : 0;
        }
    }
    for (u32 t = 0; t < ny; t++) {
        if ((fl_tag(be[t].h) & 3) == FL_NORMAL && (fl_tag(c[t].h) & 3) == FL_NORMAL)
            return rnd == FL_RD;
        zeros++;
        negz += ((fl_tag(be[t].h) ^ fl_tag(c[t].h)) & FL_NEG) ? 1 : 0;
    }
    if (zeros > 0 && negz == zeros) return true;
    if (negz == 0) return false;
    return rnd == FL_RD;
}

// The operands of part im (0: Re, 1: Im) of a complex output: the
// accumulators' order (swap: S_1 first), the scalars al[0..nx) and the
// products be[t] c[t] (t < ny) as in the panel identity above. ar, ai:
// alpha (ai absent when !has_ai); br, bi, cr, ci: beta and C (bi absent
// when !has_bi; none when !has_c).
FL_DEV void bl_cterms(u32 im, BlF ar, BlF ai, u32 has_ai, u32 has_c, BlF br, BlF bi, u32 has_bi,
                      BlF cr, BlF ci, bool &swap, BlF *al, u32 &nx, BlF *be, BlF *c, u32 &ny) {
    swap = im != 0;
    al[0] = ar;
    nx = 1;
    if (has_ai) {
        al[1] = im ? ai : bl_negf(ai);
        nx = 2;
    }
    ny = 0;
    if (has_c) {
        be[0] = br;
        c[0] = im ? ci : cr;
        ny = 1;
        if (has_bi) {
            be[1] = im ? bi : bl_negf(bi);
            c[1] = im ? cr : ci;
            ny = 2;
        }
    }
}

// Whether a scalar or C operand is a NaN or an infinity.
FL_DEV bool bl_fspecial(u64 h) { return (fl_tag(h) & 3) >= FL_INF; }

// Atomics of the epilogue (plain on the single-threaded host emulation).
#ifdef __CUDA_ARCH__
FL_DEV void bl_atomic_add(u64 *a, u64 v) { atomicAdd((unsigned long long *)a, (unsigned long long)v); }
FL_DEV void bl_atomic_or(u32 *a, u32 v) { atomicOr((unsigned int *)a, v); }
#else
static inline void bl_atomic_add(u64 *a, u64 v) { *a += v; }
static inline void bl_atomic_or(u32 *a, u32 v) { *a |= v; }
#endif

// Entry x of a panel (blas_cpanel): lines x (nh K) entries, line-major;
// line t is [half 0 | half 1] (nh halves), half h the entries (t, k)
// (index t sl + k sp) of part src_h (0: re, 1: im), its sign kept (op 0),
// flipped (1, NaN kept) or cleared (2), its limbs widened to lp (zero
// limbs below).
FL_DEV void bl_cpanel_at(u64 x, const u64 *rh, const u64 *rl, u32 lr, const u64 *ih,
                         const u64 *il, u32 li, u64 K, i64 sl, i64 sp, u32 nh, u32 src0, u32 op0,
                         u32 src1, u32 op1, u64 *ph, u64 *pl, u32 lp) {
    u64 W = nh * K;
    u64 t = x / W, kk = x - t * W;
    u32 h = kk >= K ? 1u : 0u;
    u64 k = kk - h * K;
    u32 src = h ? src1 : src0, op = h ? op1 : op0;
    u64 idx = t * sl + k * sp;
    const u64 *hd = src ? ih : rh, *lb = src ? il : rl;
    u32 l = src ? li : lr;
    u64 head = hd[idx];
    u32 tag = fl_tag(head);
    if (op == 1 && (tag & 3) != FL_NAN) head ^= FL_NEG;
    if (op == 2) head &= ~(u64)FL_NEG;
    ph[x] = head;
    const u64 *s = lb + idx * l;
    u64 *d = pl + x * lp;
    for (u32 w = 0; w < lp; w++) d[w] = w < lp - l ? 0 : s[w - (lp - l)];
}

// The epilogue of part im of complex output o = i n + j from the sums of
// the two products (accR = PA.PBr, accI = PA.PBi, NW words, counts cR,
// cI). sc: PA.PBr's scale buffer (scales, flags and the undecided count;
// PA.PBi's lines have the same scales; blas_scale's layout), the
// undecided count at nund, alpha_one: alpha = 1 (head and limb at one), no
// imaginary part. Scalars: ar (and ai with has_ai), C with
// has_c: beta br (bi with has_bi), cr, ci at index i ldc + j. Panel heads
// pa (m lines), pbr, pbi (n lines) of K positions each, for the sign of an
// exact zero. tri as blas_epi (herk: C's part rounded outside the
// triangle). und[o] gets bit im where the host computes the part.
#define BL_CEPI_PARAMS                                                                         \
    u32 m, u32 n, u64 *sc, u32 alpha_one, const u64 *arh, const u64 *arm, u32 lar, u32 has_ai,    \
        const u64 *aih, const u64 *aim, u32 lai, u32 has_c, const u64 *brh, const u64 *brm,       \
        u32 lbr, u32 has_bi, const u64 *bih, const u64 *bim, u32 lbi, const u64 *crh,             \
        const u64 *crm, u32 lcr, const u64 *cih, const u64 *cim, u32 lci, u64 ldc, const u64 *pa, \
        const u64 *pbr, const u64 *pbi, u64 K, u64 pr, u64 pi, u32 rndr, u32 rndi, u64 *orh,      \
        u64 *orl, u32 rnr, u64 *oih, u64 *oil, u32 rni, u32 tri, i8 *ter, i8 *tei, u8 *und
#define BL_CEPI_ARGS                                                                           \
    m, n, sc, alpha_one, arh, arm, lar, has_ai, aih, aim, lai, has_c, brh, brm, lbr, has_bi, bih, \
        bim, lbi, crh, crm, lcr, cih, cim, lci, ldc, pa, pbr, pbi, K, pr, pi, rndr, rndi, orh,    \
        orl, rnr, oih, oil, rni, tri, ter, tei, und
template <int NF>
FL_DEV void bl_cepi_one(u64 o, u32 im, const u32 *accR, u32 cR, const u32 *accI, u32 cI,
                        u64 *nund, const u64 *one, BL_CEPI_PARAMS) {
    u64 i = o / n, j = o - i * n;
    u64 ci = i * ldc + j;
    const u64 *esa = sc, *esb = sc + m, *fa = sc + m + n, *fb = sc + 2 * (u64)m + n;
    BlF ar = alpha_one ? BlF{one[0], one + 1, 1u} : BlF{arh[0], arm, lar};
    BlF ai = {has_ai ? aih[0] : 0, aim, lai};
    BlF br = {has_c ? brh[0] : 0, brm, lbr}, bi = {has_c && has_bi ? bih[0] : 0, bim, lbi};
    BlF cr = {has_c ? crh[ci] : 0, crm + ci * lcr, lcr}, cc = {has_c ? cih[ci] : 0, cim + ci * lci, lci};
    u64 p = im ? pi : pr;
    u32 rnd = im ? rndi : rndr;
    FlOut out = im ? FlOut{oil + o * rni, rni, 0} : FlOut{orl + o * rnr, rnr, 0};
    i8 t = 0;
    u32 r = 1;
    if ((tri == 1 && i > j) || (tri == 2 && i < j)) {
        // Outside the triangle: C's part rounded (+0 without C).
        BlF x = im ? cc : cr;
        u32 cls = fl_tag(x.h) & 3;
        bool xn = (fl_tag(x.h) & FL_NEG) != 0;
        r = 0;
        if (!has_c)
            fl_special(out, FL_ZERO, false);
        else if (cls == FL_NORMAL)
            t = fl_round_to(out, xn, fl_exp(x.h), x.m, x.l, false, p, rnd);
        else
            fl_special(out, cls, xn);
    } else {
        bool special = fa[i] || fb[j] || bl_fspecial(ar.h) || (has_ai && bl_fspecial(ai.h)) ||
                       (has_c && (bl_fspecial(br.h) || (has_bi && bl_fspecial(bi.h)) ||
                                  bl_fspecial(cr.h) || bl_fspecial(cc.h)));
        if (!special) {
            BlF al[2], be[2], cs[2];
            u32 nx, ny;
            bool swap;
            bl_cterms(im, ar, ai, has_ai, has_c, br, bi, has_bi, cr, cc, swap, al, nx, be, cs, ny);
            const u32 *a0 = swap ? accI : accR, *a1 = swap ? accR : accI;
            u32 c0 = swap ? cI : cR, c1 = swap ? cR : cI;
            // herk's diagonal: PA.PBi = (s_a + s_b) sum re im is exactly 0
            // (s_b = -s_a), its terms cancelling in pairs; the fixed point
            // only bounds it, so the exact zero is used.
            u32 zacc[NF + 2];
            if (tri && i == j && im) {
                for (int w = 0; w < NF + 2; w++) zacc[w] = 0;
                a0 = zacc;
                c0 = 0;
            }
            r = bl_cepilogue<NF>(out, t, a0, c0, a1, c1, nx, bl_esc(esa[i]) + bl_esc(esb[j]), al,
                                    ny, be, cs, p, rnd);
            if (r == 2) {
                const u64 *b0 = swap ? pbi : pbr, *b1 = swap ? pbr : pbi;
                bool zn = bl_czero_neg(al, nx, pa + i * K, 1, b0 + j * K, b1 + j * K, 1, K, be, cs,
                                       ny, rnd);
                fl_special(out, FL_ZERO, zn);
                t = 0;
                r = 0;
            }
        }
    }
    if (r) {
        fl_special(out, FL_ZERO, false);
        bl_atomic_add(nund, 1);
        bl_atomic_or((u32 *)(und + (o & ~(u64)3)), (1u << im) << (8 * (o & 3)));
    }
    if (im) {
        oih[o] = out.head;
        tei[o] = t;
    } else {
        orh[o] = out.head;
        ter[o] = t;
    }
}


#ifdef __CUDACC__

#define BL_NW (BL_NF + 2)
// Packed record: BL_NF words and the meta word, padded to 4 words.
#define BL_REC ((BL_NF + 1 + 3) & ~3)
// Shared-memory stride of a record (odd: no bank conflicts).
#define BL_SREC (BL_NF + 1)
#define BL_TILE 16
#define BL_KT (BL_NF <= 34 ? 8 : 4)

// The scale buffer sc (u64, zeroed; m, n lines of op(A), op(B)): the
// scales sc[0..m) and sc[m..m+n) (e + BL_EOFF, 0: no normal entry;
// bl_esc decodes), the special flags sc[m+n..2(m+n)) (1: a NaN or an
// infinity in the line), the count of undecided outputs at BL_UND, and
// 1.0 (head, one limb) at BL_ONE for alpha = 1.
#define BL_UND(m, n) (2 * ((u64)(m) + (n)))
#define BL_ONE(m, n) (BL_UND(m, n) + 1)

// The scales and flags of both operands' lines in one launch (lines t < m
// of op(A): heads ah[t * asl + k * asp], then n of op(B)) into sc (see
// above), and 1.0 at BL_ONE. A warp per chunk of 1024 positions of one
// line (coalesced when the position stride is 1), one atomic per warp.
extern "C" __global__ void blas_scale(const u64 *ah, u64 m, i64 asl, i64 asp, const u64 *bh, u64 n,
                                      i64 bsl, i64 bsp, u64 K, u64 *sc) {
    u32 lane = threadIdx.x & 31;
    u64 warp = (blockIdx.x * (u64)blockDim.x + threadIdx.x) >> 5;
    u64 nw = ((u64)gridDim.x * blockDim.x) >> 5;
    u64 chunks = (K + 1023) / 1024, lines = m + n;
    if (blockIdx.x == 0 && threadIdx.x == 0) {
        sc[BL_ONE(m, n)] = fl_head(FL_NORMAL, 1);
        sc[BL_ONE(m, n) + 1] = 1ull << 63;
    }
    for (u64 w = warp; w < lines * chunks; w += nw) {
        u64 t = w / chunks, c = w - t * chunks;
        const bool sa = t < m;
        const u64 *heads = sa ? ah : bh;
        const i64 sl = sa ? asl : bsl, sp = sa ? asp : bsp;
        const u64 line = sa ? t : t - m;
        u64 e = 0;
        u32 f = 0;
        u64 kend = (c + 1) * 1024 < K ? (c + 1) * 1024 : K;
        // Eight loads in flight per lane.
        for (u64 k0 = c * 1024 + lane; k0 < kend; k0 += 256) {
            u64 h[8];
#pragma unroll
            for (int r = 0; r < 8; r++) {
                u64 k = k0 + 32 * r;
                h[r] = k < kend ? heads[line * sl + k * sp] : 0;
            }
#pragma unroll
            for (int r = 0; r < 8; r++) {
                u32 cl = fl_tag(h[r]) & 3;
                if (cl == FL_NORMAL) {
                    u64 x = (u64)(fl_exp(h[r]) + BL_EOFF);
                    e = x > e ? x : e;
                } else if (cl != FL_ZERO) {
                    f = 1;
                }
            }
        }
        for (int o = 16; o > 0; o >>= 1) {
            u64 x = __shfl_xor_sync(0xffffffffu, e, o);
            e = x > e ? x : e;
            f |= __shfl_xor_sync(0xffffffffu, f, o);
        }
        if (lane == 0) {
            if (e) atomicMax(sc + t, e);
            if (f) atomicOr(sc + lines + t, (u64)1);
        }
    }
}

// Packs lines x K entries (element (t, k) at t * sl + k * sp) into
// records rec[(t * K + k) * BL_REC ..]: BL_NF words of a' then the meta.
extern "C" __global__ void blas_pack(const u64 *heads, const u64 *limbs, u32 la, u64 lines, u64 K,
                                     i64 sl, i64 sp, const u64 *esc, u32 *rec) {
    u64 total = lines * K;
    for (u64 x = blockIdx.x * (u64)blockDim.x + threadIdx.x; x < total;
         x += (u64)gridDim.x * blockDim.x) {
        u64 t = x / K, k = x - t * K;
        u64 idx = t * sl + k * sp;
        u32 w[BL_NF];
        u32 meta = bl_fix<BL_NF>(heads[idx], limbs + idx * la, la, bl_esc(esc[t]), w);
        u32 *r = rec + x * BL_REC;
#pragma unroll
        for (int j = 0; j < BL_NF; j++) r[j] = w[j];
        r[BL_NF] = meta;
    }
}

// Tiled product of packed operands: block (16, 16) computes outputs (i, j)
// of a 16 x 16 tile over the positions k of its split z = blockIdx.z
// (k in [z kper, (z+1) kper)); writes acc[(z m n + i n + j) NW ..] and
// its count at acc + (Z m n NW) + (z m n + i n + j), Z splits.
extern "C" __global__ void __launch_bounds__(256) blas_tile(const u32 *ra, const u32 *rb, u32 m,
                                                            u32 n, u64 K, u64 kper, u32 *acc_out) {
    u32 *cnt_out = acc_out + (u64)gridDim.z * m * n * BL_NW;
    __shared__ u32 As[BL_KT * BL_TILE * BL_SREC];
    __shared__ u32 Bs[BL_KT * BL_TILE * BL_SREC];
    const u32 tx = threadIdx.x, ty = threadIdx.y, tid = ty * BL_TILE + tx;
    const u32 i0 = blockIdx.y * BL_TILE, j0 = blockIdx.x * BL_TILE;
    const u64 kb = blockIdx.z * kper;
    u64 ke = kb + kper;
    if (ke > K) ke = K;
    u32 acc[BL_NW];
#pragma unroll
    for (int w = 0; w < BL_NW; w++) acc[w] = 0;
    u32 cnt = 0;
    const u32 zero_meta = BL_META(BL_ZEXACT0, false);
    for (u64 k0 = kb; k0 < ke; k0 += BL_KT) {
        // Stage BL_KT positions of 16 rows of A and 16 columns of B.
        for (u32 x = tid; x < BL_KT * BL_TILE * BL_SREC; x += 256) {
            u32 w = x % BL_SREC, rest = x / BL_SREC;
            u32 kk = rest % BL_KT, r = rest / BL_KT;
            u64 k = k0 + kk;
            bool kin = k < ke;
            u32 va = w == BL_NF ? zero_meta : 0u, vb = va;
            if (kin && i0 + r < m) va = ra[((u64)(i0 + r) * K + k) * BL_REC + w];
            if (kin && j0 + r < n) vb = rb[((u64)(j0 + r) * K + k) * BL_REC + w];
            As[(kk * BL_TILE + r) * BL_SREC + w] = va;
            Bs[(kk * BL_TILE + r) * BL_SREC + w] = vb;
        }
        __syncthreads();
#pragma unroll 1
        for (u32 kk = 0; kk < BL_KT; kk++) {
            const u32 *ap = As + (kk * BL_TILE + ty) * BL_SREC;
            const u32 *bp = Bs + (kk * BL_TILE + tx) * BL_SREC;
            u32 a[BL_NF];
#pragma unroll
            for (int w = 0; w < BL_NF; w++) a[w] = ap[w];
            bl_mac<BL_NF>(acc, cnt, a, ap[BL_NF], bp, bp[BL_NF]);
        }
        __syncthreads();
    }
    u32 i = i0 + ty, j = j0 + tx;
    if (i < m && j < n) {
        u64 o = (u64)blockIdx.z * m * n + (u64)i * n + j;
#pragma unroll
        for (int w = 0; w < BL_NW; w++) acc_out[o * BL_NW + w] = acc[w];
        cnt_out[o] = cnt;
    }
}

// acc += the accumulator of lane (lane + off) (a warp-shuffle step).
FL_DEV void bl_shfl_add(u32 *acc, u32 &cnt, int off) {
    u32 x[BL_NW];
#pragma unroll
    for (int w = 0; w < BL_NW; w++) x[w] = __shfl_down_sync(0xffffffffu, acc[w], off);
    cnt += __shfl_down_sync(0xffffffffu, cnt, off);
    acc[0] = bl_add_cc(acc[0], x[0]);
#pragma unroll
    for (int w = 1; w < BL_NW - 1; w++) acc[w] = bl_addc_cc(acc[w], x[w]);
    acc[BL_NW - 1] = bl_addc(acc[BL_NW - 1], x[BL_NW - 1]);
}

// Shared words per staged element of the streaming product: even (each
// limb one 8-byte cp.async) with an odd number of limbs, so that 32 lanes
// reading word w of their own elements hit at most two lanes per bank
// (and 16 lanes reading 8-byte pairs distinct banks). Above 34 words the
// staging holds elements of at most 19 limbs (4 warps x 2 operands x 32
// elements fit the 48 KB of static shared memory).
#define BL_SLMAX (BL_NF <= 34 ? BL_LMAX : 19)
#define BL_SST (BL_SLMAX % 2 ? 2 * BL_SLMAX : 2 * BL_SLMAX + 2)

// Copies the mantissas of elements base .. base+nl-1 (l <= BL_LMAX limbs
// each; coalesced: consecutive lanes read consecutive limbs) into s,
// element e at s + e BL_SST as 32-bit words.
FL_DEV void bl_stage(u32 *s, const u64 *limbs, u64 base, u32 nl, u32 l, u32 lane) {
    u32 e = lane / l, t = lane - e * l;
    const u32 q32 = 32 / l, r32 = 32 - q32 * l;
    const u64 *src = limbs + base * l;
    for (u32 x = lane; x < nl * l; x += 32) {
        u64 v = src[x];
        s[e * BL_SST + 2 * t] = (u32)v;
        s[e * BL_SST + 2 * t + 1] = (u32)(v >> 32);
        t += r32;
        e += q32;
        if (t >= l) {
            t -= l;
            e++;
        }
    }
}

// bl_stage with asynchronous copies (cp.async, one limb of 8 bytes each:
// a warp's copy reads 256 consecutive bytes): the words land in s after
// bl_async_wait and a __syncwarp. Unrolled (nl <= 32 elements: at most l
// limbs per lane), the shared offset of limb lane + 32 r kept
// incrementally and the source at immediate offsets. s: 8-byte aligned.
FL_DEV void bl_stage_async(u32 *s, const u64 *limbs, u64 base, u32 nl, u32 l, u32 lane) {
    if (nl == 32 && (32 % l) == 0) {
        // A full round with l dividing 32 (512 bits: l = 8): limb lane +
        // 32 r is limb lane % l of element lane / l + r (32 / l), so the
        // shared offset moves by a constant step.
        const u64 *src = limbs + base * l + lane;
        const u32 q = lane / l;
        u32 d = (u32)__cvta_generic_to_shared(s) + 4 * (q * BL_SST + 2 * (lane - q * l));
        const u32 dstep = 4 * (32 / l) * BL_SST;
#pragma unroll
        for (u32 r = 0; r < BL_SLMAX; r++) {
            if (r < l) {
                asm volatile("cp.async.ca.shared.global [%0], [%1], 8;" ::"r"(d), "l"(src + 32 * r));
                d += dstep;
            }
        }
        return;
    }
    u32 e = lane / l, t = lane - e * l;
    const u32 q32 = 32 / l, r32 = 32 - q32 * l;
    const u64 *src = limbs + base * l + lane;
    u32 d = (u32)__cvta_generic_to_shared(s) + 4 * (e * BL_SST + 2 * t);
    const u32 dq = 4 * (q32 * BL_SST + 2 * r32), dw = 4 * (BL_SST - 2 * l);
#pragma unroll
    for (u32 r = 0; r < BL_SLMAX; r++) {
        if (r < l) {
            if (e < nl)
                asm volatile("cp.async.ca.shared.global [%0], [%1], 8;" ::"r"(d), "l"(src + 32 * r));
            t += r32;
            e += q32;
            d += dq;
            if (t >= l) {
                t -= l;
                e++;
                d += dw;
            }
        }
    }
}
// blas_dot's 16-byte staging (pipe bit 8, MPARRAY_BLAS_STAGE16; 8-limb
// elements only): element e of the round at s + 20 e words (5 chunks of 16
// bytes, an odd number), chunk x = lane + 32 r is element x / 4, part
// x % 4: four cp.async.cg of 16 bytes per lane for 32 elements.
#define BL_SST16 20
// ev: with an L2 evict-first policy pol (the mantissas are read once; the
// heads, read twice, stay in L2).
FL_DEV void bl_stage16(u32 *s, const u64 *limbs, u64 base, u32 nl, u32 lane, bool ev = false,
                       u64 pol = 0) {
    const u32 d0 = (u32)__cvta_generic_to_shared(s);
    const u64 *src = limbs + base * 8;
#pragma unroll
    for (u32 r = 0; r < 4; r++) {
        const u32 x = lane + 32 * r;
        if ((x >> 2) < nl) {
            if (ev)
                asm volatile("cp.async.cg.shared.global.L2::cache_hint [%0], [%1], 16, %2;" ::"r"(
                                 d0 + 4 * ((x >> 2) * BL_SST16 + 4 * (x & 3))),
                             "l"(src + 2 * x), "l"(pol));
            else
                asm volatile("cp.async.cg.shared.global [%0], [%1], 16;" ::"r"(
                                 d0 + 4 * ((x >> 2) * BL_SST16 + 4 * (x & 3))),
                             "l"(src + 2 * x));
        }
    }
}
// Copies n16 16-byte chunks from src to s (shared, 16-byte aligned), lane
// q + 32 r taking chunk q + 32 r (cp.async.cg, 16 bytes each).
FL_DEV void bl_copy16_async(u32 *s, const u32 *src, u32 n16, u32 lane) {
    const u32 d = (u32)__cvta_generic_to_shared(s);
    for (u32 x = lane; x < n16; x += 32)
        asm volatile("cp.async.cg.shared.global [%0], [%1], 16;" ::"r"(d + 16 * x), "l"(src + 4 * x));
}
FL_DEV void bl_async_commit() { asm volatile("cp.async.commit_group;" ::: "memory"); }
// Waits until at most one group of this thread's copies is in flight.
FL_DEV void bl_async_wait1() { asm volatile("cp.async.wait_group 1;" ::: "memory"); }

// The NF words of a packed record (blas_pack) into b; returns its meta.
FL_DEV u32 bl_rec_load(const u32 *r, u32 *b) {
    u32 t[BL_REC];
#pragma unroll
    for (int q = 0; q < BL_REC / 4; q++) {
        uint4 v = __ldg((const uint4 *)r + q);
        t[4 * q] = v.x;
        t[4 * q + 1] = v.y;
        t[4 * q + 2] = v.z;
        t[4 * q + 3] = v.w;
    }
#pragma unroll
    for (int w = 0; w < BL_NF; w++) b[w] = t[w];
    return t[BL_NF];
}

// A term in the measurement modes (dbg, MPARRAY_BLAS_DBG; wrong results,
// counted exact so that the epilogue decides): bit 0 without bl_mac (the
// operands folded into acc[0]), bit 1 without the conversions (the staged
// words as they are).
FL_DEV void bl_dbg_term(u32 dbg, u32 *acc, u32 &cnt, const u32 *sa, const u32 *sb, u64 ha, u64 hb,
                        i64 ea, i64 eb, u32 L1, u32 L2) {
    u32 a[BL_NF], b[BL_NF], ma, mb;
    if (dbg & 2) {
#pragma unroll
        for (int w = 0; w < BL_NF; w++) {
            a[w] = (u32)w < L1 ? sa[w] : 0u;
            b[w] = (u32)w < L2 ? sb[w] : 0u;
        }
        ma = BL_META(BL_NF, (fl_tag(ha) & FL_NEG) != 0);
        mb = BL_META(BL_NF, (fl_tag(hb) & FL_NEG) != 0);
    } else {
        ma = bl_fix32<BL_NF>(ha, sa, L1, ea, a);
        mb = bl_fix32<BL_NF>(hb, sb, L2, eb, b);
        ma = BL_META(BL_NF, ma & 1);
        mb = BL_META(BL_NF, mb & 1);
    }
    if (dbg & 1) {
        u32 f = ma ^ mb;
#pragma unroll
        for (int w = 0; w < BL_NF; w++) f ^= a[w] ^ b[w];
        acc[0] += f & 0xffu;
    } else {
        bl_mac<BL_NF>(acc, cnt, a, ma, b, mb);
    }
}

// bl_rec_load from a record staged in shared memory (16-byte aligned).
FL_DEV u32 bl_rec_lds(const u32 *r, u32 *b) {
    u32 t[BL_REC];
#pragma unroll
    for (int q = 0; q < BL_REC / 4; q++) {
        uint4 v = ((const uint4 *)r)[q];
        t[4 * q] = v.x;
        t[4 * q + 1] = v.y;
        t[4 * q + 2] = v.z;
        t[4 * q + 3] = v.w;
    }
#pragma unroll
    for (int w = 0; w < BL_NF; w++) b[w] = t[w];
    return t[BL_NF];
}

// Asks L2 for the mantissas of positions kp .. kp+31 of the line at
// element offset row (la limbs each; a full round only, in bounds, from a
// 16-byte aligned address: the bulk prefetch's rules).
FL_DEV void bl_prefetch_round(const u64 *lb, u32 la, u64 row, u64 kp, u64 K) {
    const u64 *src = lb + (row + kp) * la;
    if (kp + 32 > K || ((size_t)src & 15)) return;
    asm volatile("cp.async.bulk.prefetch.L2.global [%0], %1;" ::"l"(src),
                 "r"(256u * la)
                 : "memory");
}

// Double-buffered staging in the streaming product (the next round's
// mantissas copied while the current round is converted and multiplied);
// two buffers fit the 48 KB of static shared memory up to NF = 18.
#define BL_NBUF (BL_NF <= 18 ? 2 : 1)

// Streaming product from the float layout (conversion in registers), for
// thin shapes (dot, gemv, small outputs). The positions k of output o =
// i n + j are split S ways (k = z, z + S, ...). kmajor (op(A)'s lines
// contiguous): a warp per (o, g) takes the splits z = 32 g + lane, so each
// round its lanes read 32 consecutive positions, staged through shared
// memory with coalesced loads (A's; B's too when its lines are contiguous;
// at most BL_LMAX limbs), and adds its lanes' sums, writing partial g of
// S / 32; else a thread per (z, o), output-major, writing partial z.
// pipe (with two buffers): the staging of round r + 1 is copied
// asynchronously during round r. brec (when not null): op(B)'s lines
// packed (blas_pack, record j K + k), read instead of converted (gemv: x
// converted once, not once per row). Partial q of output o is acc[(q m n
// + o) NW ..], its count at acc + P m n NW + (q m n + o), P partials.
// NBUF staging buffers per warp.
#define BL_STREAM_PARAMS                                                                       \
    const u64 *ahd, const u64 *alb, u32 la, i64 asl, i64 asp, const u64 *bhd, const u64 *blb,    \
        u32 lb, i64 bsl, i64 bsp, const u64 *esc, u32 m, u32 n, u64 K, u32 S, u32 kmajor,         \
        u32 pipe, const u32 *brec, u32 *acc_out
template <int NBUF> FL_DEV void bl_stream(BL_STREAM_PARAMS) {
    __shared__ __align__(16) u32 stage[4][NBUF][2][32 * BL_SST];
    const bool pp = (pipe & 1) && NBUF == 2;
    // pipe >> 1: measurement modes (MPARRAY_BLAS_DBG; wrong results): bit 0
    // leaves out bl_mac, bit 1 the conversions (bl_dbg_term).
    const u32 dbg = (pipe >> 1) & 3u;
    u64 nout = (u64)m * n, total = nout * S;
    u32 *cnt_out = acc_out + (kmajor ? S / 32 : S) * nout * BL_NW;
    const u64 *esa = esc, *esb = esc + m;
    const u32 lane = threadIdx.x & 31, wib = threadIdx.x >> 5;
    const bool bpk = brec != nullptr;
    const bool sta = kmajor && la <= BL_SLMAX,
               stb = kmajor && !bpk && bsp == 1 && lb <= BL_SLMAX;
    // Every lane of a warp runs the same rounds (shuffles, staging).
    u64 stride = (u64)gridDim.x * blockDim.x;
    u64 rounds = (total + stride - 1) / stride;
    u64 x = blockIdx.x * (u64)blockDim.x + threadIdx.x;
    for (u64 rd = 0; rd < rounds; rd++, x += stride) {
        u64 o = 0, z = 0;
        bool live = x < total;
        if (kmajor) {
            o = x / S;
            z = x - o * S;
        } else {
            z = x / nout;
            o = x - z * nout;
        }
        if (!live) o = 0;
        u64 i = o / n, j = o - i * n;
        u32 acc[BL_NW];
#pragma unroll
        for (int w = 0; w < BL_NW; w++) acc[w] = 0;
        u32 cnt = 0;
        i64 ea = bl_esc(esa[i]), eb = bl_esc(esb[j]);
        if (kmajor) {
            // Warp-uniform rounds over 32 consecutive positions.
            u64 zb = z - lane;
            u32 cur = 0;
            // sbr: op(B)'s packed records staged too (16-byte copies into
            // the B buffer, which they fit up to 34 words).
            // pipe bit 3 (MPARRAY_BLAS_NOSTAGEX): read them with __ldg instead.
            const bool sbr = pp && bpk && BL_REC <= BL_SST && !(pipe & 8u);
            if (pp && live && zb < K) {
                u32 nl = K - zb < 32 ? (u32)(K - zb) : 32u;
                if (sta) bl_stage_async(stage[wib][0][0], alb, i * asl + zb, nl, la, lane);
                if (stb) bl_stage_async(stage[wib][0][1], blb, j * bsl + zb, nl, lb, lane);
                if (sbr)
                    bl_copy16_async(stage[wib][0][1], brec + (j * K + zb) * BL_REC,
                                    nl * (BL_REC / 4), lane);
                bl_async_commit();
            }
            // pipe bits 4-6 (MPARRAY_BLAS_PF): op(A)'s mantissas asked of
            // L2 pfd rounds ahead (as blas_dot).
            const u32 pfd = sta ? (pipe >> 4) & 7u : 0u;
            if (pfd && live && lane == 0)
                for (u32 r = 1; r <= pfd; r++) bl_prefetch_round(alb, la, i * asl, zb + r * S, K);
            // The heads one round ahead (their loads in flight during a round).
            u64 han = 0, hbn = 0;
            if (live && zb + lane < K) {
                han = ahd[i * asl + zb + lane];
                if (!bpk) hbn = bhd[j * bsl + (zb + lane) * bsp];
            }
            for (u64 kb = zb; kb < K && live; kb += S) {
                u32 nl = K - kb < 32 ? (u32)(K - kb) : 32u;
                u64 k = kb + lane;
                bool kin = lane < nl;
                const u64 ha = han, hb = hbn;
                if (k + S < K) {
                    han = ahd[i * asl + k + S];
                    if (!bpk) hbn = bhd[j * bsl + (k + S) * bsp];
                }
                u32 *sA = stage[wib][cur][0], *sB = stage[wib][cur][1];
                if (pfd && lane == 0) bl_prefetch_round(alb, la, i * asl, kb + (pfd + 1) * S, K);
                if (pp) {
                    // The next round's copies into the other buffer (its
                    // last reader finished before the previous __syncwarp).
                    u64 kn = kb + S;
                    if (kn < K) {
                        u32 nn = K - kn < 32 ? (u32)(K - kn) : 32u;
                        if (sta)
                            bl_stage_async(stage[wib][cur ^ (NBUF - 1)][0], alb, i * asl + kn, nn, la,
                                           lane);
                        if (stb)
                            bl_stage_async(stage[wib][cur ^ (NBUF - 1)][1], blb, j * bsl + kn, nn, lb,
                                           lane);
                        if (sbr)
                            bl_copy16_async(stage[wib][cur ^ (NBUF - 1)][1],
                                            brec + (j * K + kn) * BL_REC, nn * (BL_REC / 4), lane);
                    }
                    bl_async_commit();
                    bl_async_wait1();
                } else {
                    if (sta) bl_stage(sA, alb, i * asl + kb, nl, la, lane);
                    if (stb) bl_stage(sB, blb, j * bsl + kb, nl, lb, lane);
                }
                __syncwarp();
                if (kin) {
                    u64 ia = i * asl + k, ib = j * bsl + k * bsp;
                    u32 a[BL_NF], b[BL_NF];
                    if (dbg) {
                        bl_dbg_term(dbg, acc, cnt, sA + lane * BL_SST, sB + lane * BL_SST, ha, hb,
                                    ea, eb, 2 * la, 2 * lb);
                    } else {
                        u32 ma = sta ? bl_fix32<BL_NF>(ha, sA + lane * BL_SST, 2 * la, ea, a)
                                     : bl_fix<BL_NF>(ha, alb + ia * la, la, ea, a);
                        u32 mb = sbr   ? bl_rec_lds(sB + lane * BL_REC, b)
                                 : bpk ? bl_rec_load(brec + (j * K + k) * BL_REC, b)
                                 : stb ? bl_fix32<BL_NF>(hb, sB + lane * BL_SST, 2 * lb, eb, b)
                                       : bl_fix<BL_NF>(hb, blb + ib * lb, lb, eb, b);
                        bl_mac<BL_NF>(acc, cnt, a, ma, b, mb);
                    }
                }
                __syncwarp();
                if (pp) cur ^= 1;
            }
            if (pp) asm volatile("cp.async.wait_all;" ::: "memory");
            // S is a multiple of 32: a warp holds one output's 32 splits.
            for (int off = 16; off > 0; off >>= 1) bl_shfl_add(acc, cnt, off);
            if (live && lane == 0) {
                u64 q = (z >> 5) * nout + o;
#pragma unroll
                for (int w = 0; w < BL_NW; w++) acc_out[q * BL_NW + w] = acc[w];
                cnt_out[q] = cnt;
            }
        } else if (live) {
            for (u64 k = z; k < K; k += S) {
                u64 ia = i * asl + k * asp, ib = j * bsl + k * bsp;
                u32 a[BL_NF], b[BL_NF];
                u32 ma = bl_fix<BL_NF>(ahd[ia], alb + ia * la, la, ea, a);
                u32 mb = bpk ? bl_rec_load(brec + (j * K + k) * BL_REC, b)
                             : bl_fix<BL_NF>(bhd[ib], blb + ib * lb, lb, eb, b);
                bl_mac<BL_NF>(acc, cnt, a, ma, b, mb);
            }
            u64 q = z * nout + o;
#pragma unroll
            for (int w = 0; w < BL_NW; w++) acc_out[q * BL_NW + w] = acc[w];
            cnt_out[q] = cnt;
        }
    }
}

#define BL_STREAM_ARGS                                                                         \
    ahd, alb, la, asl, asp, bhd, blb, lb, bsl, bsp, esc, m, n, K, S, kmajor, pipe, brec, acc_out
extern "C" __global__ void __launch_bounds__(128) blas_stream(BL_STREAM_PARAMS) {
    bl_stream<BL_NBUF>(BL_STREAM_ARGS);
}

// The fused dot x . y of K contiguous positions in one launch. Block b
// takes positions [b chunk, (b + 1) chunk) and finds (1) from the heads its
// scales ea_b, eb_b (0: no normal entry), whether a NaN or an infinity
// occurs, whether some term is nonzero and how many terms have factors of
// opposite signs (the sign of an exact zero); (2) its partial sum at scale
// ea_b + eb_b (blas_stream's kmajor rounds: a warp per 32 consecutive
// positions, staged by cp.async); (3) writes its record (BL_DREC words at
// work + 4 + b BL_DREC: the sum, its count, flags, the count of opposite
// signs, the encoded scale) and takes a ticket. The last block aligns the
// records to the largest scale (bl_acc_shr), adds them exactly and runs
// bl_epilogue1: the result into rh[0], rl, tern[0] and its status (0:
// decided, 1: the host computes it) into work[1], and, when hst is not
// null, (seq << 1) | status into *hst (page-locked host memory mapped into
// the device). work: 4 + gridDim.x BL_DREC words, work[0] (the ticket)
// zero at the start; the last block sets it back to zero.
#define BL_DREC (BL_NW + 6)
// Asks L2 for the mantissas of positions kp .. kp+31 of x (lane 0) or y
// (lane 1), a full round only (16-byte multiples, in bounds).
FL_DEV void bl_dot_prefetch(const u64 *alb, u32 la, const u64 *blb, u32 lb, u64 kp, u64 k1,
                            u32 lane) {
    if (lane == 0)
        bl_prefetch_round(alb, la, 0, kp, k1);
    else
        bl_prefetch_round(blb, lb, 0, kp, k1);
}
// blas_dot's bulk staging (pipe bits 9-11: S = 2 ... 4 slots per warp,
// MPARRAY_BLAS_BULK; 8-limb operands, 16-byte aligned limbs): a ring of S
// slots per warp, each one round's mantissas of both operands, filled by
// 1-D bulk copies (cp.async.bulk, the copy engine: one instruction per 8
// elements, 512 bytes) that complete on the slot's mbarrier, so S rounds
// are in flight per warp with no per-lane copy instructions. In a slot,
// operand o's elements 8 q .. 8 q + 7 lie at word 132 (33 o + q) (512
// bytes and 16 of padding per group), element e of a group at 16 e: 32
// lanes reading word w of their own elements meet at most 4 per bank (as
// the 16-byte staging).
#define BL_BSLOT 1056 // words per slot (4224 bytes)
#define BL_BGRP 132   // words per group of 8 elements
FL_DEV u32 bl_bulk_off(u32 e) { return (e >> 3) * BL_BGRP + (e & 7) * 16; }
FL_DEV void bl_mbar_init(u32 bar) {
    asm volatile("mbarrier.init.shared::cta.b64 [%0], 1;" ::"r"(bar) : "memory");
}
// Waits for the phase of parity ph of the mbarrier at bar.
FL_DEV void bl_mbar_wait(u32 bar, u32 ph) {
    u32 ok = 0;
    do {
        asm volatile("{\n .reg .pred p;\n"
                     " mbarrier.try_wait.parity.shared::cta.b64 p, [%1], %2;\n"
                     " selp.u32 %0, 1, 0, p;\n}"
                     : "=r"(ok)
                     : "r"(bar), "r"(ph)
                     : "memory");
    } while (!ok);
}
// Lane 0: the mantissas of positions kb .. kb+nl-1 of both operands (8
// limbs each) into the slot at shared address d, completing on bar.
// ev: with an L2 evict-first policy (the mantissas are read once; the
// heads, read twice, stay).
FL_DEV void bl_bulk_issue(u32 d, u32 bar, const u64 *alb, const u64 *blb, u64 kb, u32 nl,
                          bool ev) {
    asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
    asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;" ::"r"(bar),
                 "r"(128u * nl)
                 : "memory");
    u64 pol = 0;
    if (ev) asm volatile("createpolicy.fractional.L2::evict_first.b64 %0, 1.0;" : "=l"(pol));
#pragma unroll
    for (u32 q = 0; q < 4; q++) {
        if (8 * q < nl) {
            const u32 n = nl - 8 * q >= 8 ? 512u : 64u * (nl - 8 * q);
            if (ev) {
                asm volatile("cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes.L2::"
                             "cache_hint [%0], [%1], %2, [%3], %4;" ::"r"(d + 4 * q * BL_BGRP),
                             "l"(alb + (kb + 8 * q) * 8), "r"(n), "r"(bar), "l"(pol)
                             : "memory");
                asm volatile("cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes.L2::"
                             "cache_hint [%0], [%1], %2, [%3], %4;" ::"r"(d + 4 * (4 + q) * BL_BGRP),
                             "l"(blb + (kb + 8 * q) * 8), "r"(n), "r"(bar), "l"(pol)
                             : "memory");
                continue;
            }
            asm volatile(
                "cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes [%0], [%1], %2, [%3];" ::"r"(
                    d + 4 * q * BL_BGRP),
                "l"(alb + (kb + 8 * q) * 8), "r"(n), "r"(bar)
                : "memory");
            asm volatile(
                "cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes [%0], [%1], %2, [%3];" ::"r"(
                    d + 4 * (4 + q) * BL_BGRP),
                "l"(blb + (kb + 8 * q) * 8), "r"(n), "r"(bar)
                : "memory");
        }
    }
}
// ---- DOT on int8 tensor cores (pipe bit 14; NF = 18, 8-limb operands;
// notes/blas-cuda.md, "DOT on int8 tensor cores") ----
// Each warp alone, per round of 32 positions: each lane converts its
// element of x and y (bl_dm_fix: bl_fix32's words and meta, from a
// 16-word staging row with swizzled 16-byte chunks), x complemented for a
// negative term; a 4 x 4 byte transpose in each group of four lanes (two
// shuffles and two byte permutes per word) writes the bytes as the warp's
// X^T and Y^T rows (row u = byte u of the 576-bit fixed point, 32 bytes =
// the round's positions; row 72 of X^T the sign bits n_k, rows 73-79
// zero). Then G~ = X~^T Y over the round by mma.m16n8k32 (u8 x u8 -> s32,
// A = X^T rows 16 mu.., B = Y^T rows 8 nv..), the 33 tiles with u + v >=
// 68 somewhere, each from a zero accumulator; lane (g, t)'s entries of
// tile (mu, nv) lie on the diagonals u + v = 8 j + {0, 1} + g + 2 t, j = 2
// mu + nv (rows g) or 2 mu + nv + 1 (rows g + 8), and are added into R[j]
// (u32; flushed into the block's u64 diagonal sums D every 32 rounds),
// except X^T row 72 (N_v, into Nr). The block's sum in units 2^544:
// sum_{u < 72, u + v >= 68} G~_uv 2^(8(u + v - 68)) - sum_v N_v (2^(8(v +
// 4)) - [v >= 68] 2^(8(v - 68)) - [v < 68]), N_v = sum over negative
// terms of y's byte v: a negative term adds kept(X~ Y) = 255 sum_v Y_v T_v
// - kept(X Y), T_v = sum_{u >= 68 - v, u < 72} 2^(8(u + v - 68)), 255 T_v
// = 2^(8(v + 4)) - [v >= 68] 2^(8(v - 68)) - [v < 68]. Kept byte pairs u +
// v >= 68 hold bl_mac's word pairs U + V >= 17, so bl_mac's bound per
// counted term and its exactness rule (z_x + z_y >= 17) hold; the count
// is bl_mac's. scripts/proto/dot_mma_model.py models the data movement.
#if BL_NF == 18
// At most 2^14 positions per block: D (u64) stays below 2^37, so that the
// final coefficients and words fit in i64.
#define BL_DM_MAXCHUNK 16384
// Word j of staged element e (16 words, chunk c at c ^ ((e >> 1) & 3)).
FL_DEV u32 bl_dm_at(u32 e, u32 j) { return e * 16 + 4 * ((j >> 2) ^ ((e >> 1) & 3)) + (j & 3); }
// Copies the 8 limbs of elements base .. base+nl-1 into s (32 x 16 words,
// bl_dm_at's layout): four 16-byte cp.async.cg per lane.
FL_DEV void bl_dm_stage(u32 *s, const u64 *limbs, u64 base, u32 nl, u32 lane, u64 pol) {
    const u32 d0 = (u32)__cvta_generic_to_shared(s);
    const u64 *src = limbs + base * 8;
#pragma unroll
    for (u32 r = 0; r < 4; r++) {
        const u32 x = lane + 32 * r, e = x >> 2;
        if (e < nl)
            asm volatile("cp.async.cg.shared.global.L2::cache_hint [%0], [%1], 16, %2;" ::"r"(
                             d0 + 4 * bl_dm_at(e, 4 * (x & 3))),
                         "l"(src + 2 * x), "l"(pol));
    }
}
// bl_fix32<18> of a staged 16-word mantissa (row e of s).
FL_DEV u32 bl_dm_fix(u64 h, const u32 *s, u32 e, i64 esc, u32 *w) {
    const u32 tag = fl_tag(h);
    const i64 d = esc - fl_exp(h);
    const bool zero = (tag & 3) != FL_NORMAL || d >= 512 + 32 * 18;
    const int o = zero ? 512 : (int)(d - 64);
    if (zero || o >= 512) {
#pragma unroll
        for (int j = 0; j < 18; j++) w[j] = 0;
        return zero && (tag & 3) != FL_NORMAL ? BL_META(BL_ZEXACT0, false)
                                              : BL_META(-BL_ZEXACT0, (tag & FL_NEG) != 0);
    }
    const int base = o >> 5;
    const u32 sh = (u32)o & 31;
    u32 lo = (u32)base < 16u ? s[bl_dm_at(e, (u32)base)] : 0u;
#pragma unroll
    for (int j = 0; j < 18; j++) {
        const u32 q = (u32)(base + j + 1);
        const u32 hi = q < 16u ? s[bl_dm_at(e, q)] : 0u;
        w[j] = bl_funnel(lo, hi, sh);
        lo = hi;
    }
    u32 i = 0;
    while (i < 15 && s[bl_dm_at(e, i)] == 0) i++;
    const int tz = 32 * (int)i + (int)bl_ctz32(s[bl_dm_at(e, i)] | (i == 15 ? 0x80000000u : 0u));
    const int z = tz >= o ? (tz - o) >> 5 : -BL_ZEXACT0;
    return BL_META(z, (tag & FL_NEG) != 0);
}
// Lane 4g + b of each group of four gets byte b of the four lanes' x (in
// lane order): a 4 x 4 byte transpose by two shuffles.
FL_DEV u32 bl_dm_tr(u32 x, u32 lane) {
    u32 y = __shfl_xor_sync(0xffffffffu, x, 2);
    x = __byte_perm(x, y, (lane & 2) ? 0x3276u : 0x5410u);
    y = __shfl_xor_sync(0xffffffffu, x, 1);
    return __byte_perm(x, y, (lane & 1) ? 0x3715u : 0x6240u);
}
// Byte address of (row, 16-byte chunk c) of a 32-byte form row (the chunk
// swapped in rows 4-7 of each 8: ldmatrix's 8 rows hit 8 bank groups).
FL_DEV u32 bl_dm_addr(u32 base, u32 row, u32 c) { return base + row * 32 + 16 * (c ^ ((row >> 2) & 1)); }
FL_DEV void bl_dm_ldm4(u32 addr, u32 *r) {
    asm volatile("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0,%1,%2,%3}, [%4];"
                 : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3])
                 : "r"(addr));
}
FL_DEV void bl_dm_ldm2(u32 addr, u32 *r) {
    asm volatile("ldmatrix.sync.aligned.m8n8.x2.shared.b16 {%0,%1}, [%2];"
                 : "=r"(r[0]), "=r"(r[1])
                 : "r"(addr));
}
// d = A B (m16n8k32, u8 x u8 -> s32, from a zero accumulator).
FL_DEV void bl_dm_mma(u32 *d, const u32 *a, u32 b0, u32 b1) {
    asm volatile("mma.sync.aligned.m16n8k32.row.col.s32.u8.u8.s32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, "
                 "{%8,%9}, {%10,%10,%10,%10};"
                 : "=r"(d[0]), "=r"(d[1]), "=r"(d[2]), "=r"(d[3])
                 : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b0), "r"(b1), "r"(0u));
}
// The round's 33 tiles from the warp's forms at xt, yt, added into R0/R1
// (diagonal 8 j + 0 / 8 j + 1 relative to the lane) and Nr (X^T row 72).
// Row 16 mu + r + 8 i and row 8 nv + r have r's swizzle bit ((r >> 2) & 1),
// so each lane's addresses are one base plus immediates.
FL_DEV void bl_dm_round(u32 xt, u32 yt, u32 lane, u32 *R0, u32 *R1, u32 (*Nr)[2]) {
    const u32 mi = lane >> 3, r = lane & 7, sw = (r >> 2) & 1;
    const u32 xa = xt + (r + 8 * (mi & 1)) * 32 + 16 * ((mi >> 1) ^ sw);
    const u32 ya = yt + (r + 8 * (mi >> 1)) * 32 + 16 * ((mi & 1) ^ sw);
    u32 A[5][4];
#pragma unroll
    for (int mu = 0; mu < 5; mu++) bl_dm_ldm4(xa + 512 * mu, A[mu]);
#pragma unroll
    for (int nv = 0; nv < 9; nv += 2) {
        u32 b[4];
        if (nv + 1 < 9)
            bl_dm_ldm4(ya + 256 * nv, b);
        else
            bl_dm_ldm2(ya + 256 * nv, b);
#pragma unroll
        for (int h = 0; h < 2; h++) {
            const int n = nv + h;
            if (n >= 9) continue;
#pragma unroll
            for (int mu = 0; mu < 5; mu++) {
                if (16 * mu + 8 * n < 46) continue;
                u32 d[4];
                bl_dm_mma(d, A[mu], b[2 * h], b[2 * h + 1]);
                const int j = 2 * mu + n;
                R0[j] += d[0];
                R1[j] += d[1];
                if (mu == 4) {
                    Nr[n][0] += d[2];
                    Nr[n][1] += d[3];
                } else {
                    R0[j + 1] += d[2];
                    R1[j + 1] += d[3];
                }
            }
        }
    }
}
// R and Nr into the block's D (diagonals u + v - 68 >= 0) and Nv, zeroed.
FL_DEV void bl_dm_flush(u32 lane, u32 *R0, u32 *R1, u32 (*Nr)[2], unsigned long long *D,
                        unsigned long long *Nv) {
    const u32 g = lane >> 2, t = lane & 3;
#pragma unroll
    for (int j = 0; j < 18; j++) {
        const u32 d = 8 * j + g + 2 * t;
        if (d >= 68 && d < 148 && R0[j]) atomicAdd(D + (d - 68), (unsigned long long)R0[j]);
        if (d + 1 >= 68 && d + 1 < 148 && R1[j])
            atomicAdd(D + (d + 1 - 68), (unsigned long long)R1[j]);
        R0[j] = R1[j] = 0;
    }
#pragma unroll
    for (int n = 0; n < 9; n++) {
        if (g == 0) {
            if (Nr[n][0]) atomicAdd(Nv + 8 * n + 2 * t, (unsigned long long)Nr[n][0]);
            if (Nr[n][1]) atomicAdd(Nv + 8 * n + 2 * t + 1, (unsigned long long)Nr[n][1]);
        }
        Nr[n][0] = Nr[n][1] = 0;
    }
}
#endif

#if BL_NF == 18
// The largest of the warp's 32 values v (all lanes active).
FL_DEV u64 bl_warp_max64(u64 v) {
    const u32 h = __reduce_max_sync(0xffffffffu, (u32)(v >> 32));
    const u32 l = __reduce_max_sync(0xffffffffu, (u32)(v >> 32) == h ? (u32)v : 0u);
    return ((u64)h << 32) | l;
}

// bl_fix32 of an 8-limb element staged at s (a 16-byte aligned row of the
// 16-byte staging): bl_fix32_near from four 16-byte loads when it applies,
// else bl_fix32 itself.
FL_DEV u32 bl_fix32_v4(u64 h, const u32 *s, i64 esc, u32 *w) {
    const i64 d = esc - fl_exp(h);
    if ((fl_tag(h) & 3) != FL_NORMAL || d < 0 || d >= 64) return bl_fix32<18>(h, s, 16, esc, w);
    u32 m[16];
#pragma unroll
    for (int q = 0; q < 4; q++) {
        const uint4 v = ((const uint4 *)s)[q];
        m[4 * q] = v.x;
        m[4 * q + 1] = v.y;
        m[4 * q + 2] = v.z;
        m[4 * q + 3] = v.w;
    }
    return bl_fix32_near(h, m, s, d, w);
}
#endif

// The global timer (ns) into w[0], w[1] (measurements only).
FL_DEV void bl_dot_time(u32 *w) {
    u64 g;
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(g));
    w[0] = (u32)g;
    w[1] = (u32)(g >> 32);
}

// Record flags: a special entry, a nonzero term, a sum at a scale.
#define BL_DSPEC 1u
#define BL_DNZ 2u
#define BL_DRUN 4u
extern "C" __global__ void __launch_bounds__(128, 4)
    blas_dot(const u64 *ahd, const u64 *alb, u32 la, const u64 *bhd, const u64 *blb, u32 lb,
             u64 K, u64 chunk, u32 pipe, u32 *work, u64 p, u32 rnd, u64 *rh, u64 *rl, u32 rn,
             i8 *tern, u32 *hst, u32 seq) {
    // Dynamic shared memory (the host sizes it): the staging buffers, or
    // with bulk staging 16 mbarriers and then 4 S slots of BL_BSLOT words.
    extern __shared__ __align__(16) u32 bl_dot_sm[];
    u32(*stage)[BL_NBUF][2][32 * BL_SST] = (u32(*)[BL_NBUF][2][32 * BL_SST])bl_dot_sm;
    __shared__ unsigned long long s_ex, s_ey;
    __shared__ u32 s_fl, s_nz, s_last;
    __shared__ u32 sw[4 * (BL_NW + 1)];
    const u32 t = threadIdx.x, lane = t & 31, wib = t >> 5, T = blockDim.x;
    // pipe bit 17 (measurements): the global timer at the block's start,
    // its record, and the last block's sum and end, after the records
    // (tms: 2 words per time; the host prints them).
    u32 *const tms = (pipe & 131072u) ? work + 4 + (u64)gridDim.x * BL_DREC : nullptr;
    if (tms && t == 0) bl_dot_time(tms + 4 * blockIdx.x);
    const u64 k0 = blockIdx.x * chunk, k1 = k0 + chunk < K ? k0 + chunk : K;
    // pipe bits 9-11: bulk staging with S slots per warp (notes above
    // bl_bulk_off); 8-limb operands with 16-byte aligned limbs only.
    const u32 S = (pipe >> 9) & 7u;
    const bool bulk = S >= 2 && S <= 4 && T == 128 && la == 8 && lb == 8 &&
                      !(((size_t)alb | (size_t)blb) & 15) && !(pipe & 128u) && !(pipe & 16384u);
    // pipe bit 12: the bulk copies with an L2 evict-first policy.
    const bool bev = (pipe & 4096u) != 0;
    // pipe bit 14: the products on the int8 tensor cores (NF = 18, 8-limb
    // 16-byte aligned operands, chunks of at most BL_DM_MAXCHUNK).
#if BL_NF == 18
    const bool mmad = (pipe & 16384u) && T == 128 && la == 8 && lb == 8 &&
                      chunk <= BL_DM_MAXCHUNK && !(((size_t)alb | (size_t)blb) & 15) &&
                      !(pipe & 128u);
#endif
#if BL_NF == 18
    // pipe bit 16: no heads pass; each warp's scales are the largest
    // exponents seen so far (notes above the branch).
    const bool run2 = (pipe & 65536u) && !mmad && !bulk && T == 128 && la == 8 && lb == 8 &&
                      (pipe & 1u) && !(pipe & 128u) && !(((size_t)alb | (size_t)blb) & 15);
#else
    const bool run2 = false;
#endif
    const u32 sm0 = (u32)__cvta_generic_to_shared(bl_dot_sm);
    const u32 bar0 = sm0 + 8 * 4 * wib, ring0 = sm0 + 128 + 4 * BL_BSLOT * S * wib;
    const u64 bstep = 32 * (u64)(T >> 5);
    u32 nissued = 0;
    if (t == 0) {
        s_ex = 0;
        s_ey = 0;
        s_fl = 0;
        s_nz = 0;
    }
    if (bulk && lane == 0) {
        // The first S rounds go out before the heads pass (the copies do
        // not depend on the scales).
        for (u32 r = 0; r < S; r++) bl_mbar_init(bar0 + 8 * r);
        asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
        for (u32 r = 0; r < S; r++) {
            const u64 kb = k0 + 32 * (u64)wib + r * bstep;
            if (kb >= k1) break;
            const u32 nl = k1 - kb < 32 ? (u32)(k1 - kb) : 32u;
            bl_bulk_issue(ring0 + 4 * BL_BSLOT * r, bar0 + 8 * r, alb, blb, kb, nl, bev);
            nissued++;
        }
    }
    nissued = __shfl_sync(0xffffffffu, nissued, 0);
    // pipe bits 4-6: prefetch distance pfd (rounds; 0: none). Each warp
    // asks L2 for the mantissas of its round pfd ahead of the one it
    // stages (cp.async.bulk.prefetch: one instruction per operand and
    // round), its first pfd rounds before the heads pass.
    const u32 pfd = (pipe >> 4) & 7u;
    const u64 pstep = 32 * (u64)(T >> 5);
    if (pfd && lane < 2) {
        for (u32 r = 0; r < pfd; r++) bl_dot_prefetch(alb, la, blb, lb, k0 + 32 * (u64)wib + r * pstep, k1, lane);
    }
    __syncthreads();
    if (!run2) {
        // (1) The heads, eight loads of each operand in flight per thread
        // (a chunk of 2048 positions: two trips to memory).
        u64 ex = 0, ey = 0;
        u32 fl = 0, nz = 0;
        // pipe bit 15 (measurement modes only): the heads of the first
        // T positions only (the scales from them; wrong results).
        const u64 kh = ((pipe & 32768u) && ((pipe >> 1) & 3u)) ? (k0 + T < k1 ? k0 + T : k1) : k1;
        for (u64 kb = k0 + t; kb < kh; kb += 8 * (u64)T) {
            u64 hx[8], hy[8];
#pragma unroll
            for (int r = 0; r < 8; r++) {
                const u64 k = kb + r * (u64)T;
                hx[r] = k < kh ? ahd[k] : 0;
                hy[r] = k < kh ? bhd[k] : 0;
            }
#pragma unroll
            for (int r = 0; r < 8; r++) {
                const u32 cx = fl_tag(hx[r]) & 3, cy = fl_tag(hy[r]) & 3;
                if (cx == FL_NORMAL) {
                    const u64 e = (u64)(fl_exp(hx[r]) + BL_EOFF);
                    ex = e > ex ? e : ex;
                }
                if (cy == FL_NORMAL) {
                    const u64 e = (u64)(fl_exp(hy[r]) + BL_EOFF);
                    ey = e > ey ? e : ey;
                }
                fl |= (cx >= FL_INF || cy >= FL_INF) ? BL_DSPEC : 0u;
                fl |= (cx == FL_NORMAL && cy == FL_NORMAL) ? BL_DNZ : 0u;
                nz += ((fl_tag(hx[r]) ^ fl_tag(hy[r])) & FL_NEG) ? 1u : 0u;
            }
        }
        for (int o = 16; o > 0; o >>= 1) {
            u64 v = __shfl_xor_sync(0xffffffffu, ex, o);
            ex = v > ex ? v : ex;
            v = __shfl_xor_sync(0xffffffffu, ey, o);
            ey = v > ey ? v : ey;
            fl |= __shfl_xor_sync(0xffffffffu, fl, o);
            nz += __shfl_xor_sync(0xffffffffu, nz, o);
        }
        if (lane == 0) {
            if (ex) atomicMax(&s_ex, (unsigned long long)ex);
            if (ey) atomicMax(&s_ey, (unsigned long long)ey);
            atomicOr(&s_fl, fl);
            atomicAdd(&s_nz, nz);
        }
    }
    __syncthreads();
    const bool run = s_ex && s_ey && !(s_fl & BL_DSPEC);
    const i64 ea = bl_esc(s_ex), eb = bl_esc(s_ey);
    // The record's scale sum (+ BL_UOFF; 0: no sum).
    u64 urec = run ? (u64)(ea + eb + BL_UOFF) : 0;
    u32 acc[BL_NW];
#pragma unroll
    for (int w = 0; w < BL_NW; w++) acc[w] = 0;
    u32 cnt = 0;
#if BL_NF == 18
    if (mmad) {
        // (2'') The products on the tensor cores (notes above bl_dm_fix).
        // Dynamic shared memory, per warp (3264 words): staging [2
        // buffers][x, y][32 x 16 words], X^T (80 rows of 32 bytes) and Y^T
        // (72 rows); then the block's D (80 u64), Nv (72) and coef (80).
        // Measurement modes (MPARRAY_BLAS_DBG; wrong results): 1 without
        // the mma, 3 without the forms and the mma.
        const u32 dbg = (pipe >> 1) & 3u;
        u32 *stg = bl_dot_sm + wib * 3264;
        const u32 xt = sm0 + 4 * (wib * 3264 + 2048), yt = xt + 80 * 32;
        unsigned long long *D = (unsigned long long *)(bl_dot_sm + 4 * 3264);
        unsigned long long *Nv = D + 80;
        // X^T rows 73-79 stay zero.
        for (u32 i = lane; i < 7 * 8; i += 32) bl_dot_sm[wib * 3264 + 2048 + 73 * 8 + i] = 0;
        for (u32 i = t; i < 152; i += T) D[i] = 0;
        u32 R0[18], R1[18], Nr[9][2];
#pragma unroll
        for (int j = 0; j < 18; j++) R0[j] = R1[j] = 0;
#pragma unroll
        for (int n = 0; n < 9; n++) Nr[n][0] = Nr[n][1] = 0;
        u64 pol = 0;
        asm volatile("createpolicy.fractional.L2::evict_first.b64 %0, 1.0;" : "=l"(pol));
        // Every warp runs the block's rounds (some without positions).
        const u32 R = run ? (u32)((k1 - k0 + 127) / 128) : 0u;
        u32 cur = 0;
        u64 kb = k0 + 32 * (u64)wib;
        if (R && kb < k1) {
            const u32 nl = k1 - kb < 32 ? (u32)(k1 - kb) : 32u;
            bl_dm_stage(stg, alb, kb, nl, lane, pol);
            bl_dm_stage(stg + 512, blb, kb, nl, lane, pol);
        }
        bl_async_commit();
        u64 hxn = 0, hyn = 0;
        if (R && kb + lane < k1) {
            hxn = ahd[kb + lane];
            hyn = bhd[kb + lane];
        }
        __syncthreads(); // D zeroed before any flush
        for (u32 r = 0; r < R; r++, kb += 128) {
            const u64 k = kb + lane;
            const u64 hx = hxn, hy = hyn;
            if (k + 128 < k1) {
                hxn = ahd[k + 128];
                hyn = bhd[k + 128];
            }
            {
                const u64 kn = kb + 128;
                if (kn < k1) {
                    const u32 nn = k1 - kn < 32 ? (u32)(k1 - kn) : 32u;
                    bl_dm_stage(stg + 1024 * (cur ^ 1), alb, kn, nn, lane, pol);
                    bl_dm_stage(stg + 1024 * (cur ^ 1) + 512, blb, kn, nn, lane, pol);
                }
                bl_async_commit();
                bl_async_wait1();
            }
            // The staged round, and the forms of the round before read.
            __syncwarp();
            const bool in = k < k1;
            // The term's sign from the heads (the metas' sign bits: a
            // normal element's sign, else +).
            const u32 nx = in && (fl_tag(hx) & 3) == FL_NORMAL && (fl_tag(hx) & FL_NEG);
            const u32 ny = in && (fl_tag(hy) & 3) == FL_NORMAL && (fl_tag(hy) & FL_NEG);
            const u32 neg = nx ^ ny, cm = 0u - neg;
            const u32 nmask = __ballot_sync(0xffffffffu, neg != 0);
            const u32 *sx = stg + 1024 * cur, *sy = sx + 512;
            // Row 4 j + b, chunk g >> 2 (swizzled by j & 1), word g & 3.
            const u32 g = lane >> 2, b = lane & 3;
            const u32 fo0 = 32 * b + 16 * (g >> 2) + 4 * (g & 3), fo1 = fo0 ^ 16u;
            u32 w[18], ma = BL_META(BL_ZEXACT0, false), mb = BL_META(BL_ZEXACT0, false);
#pragma unroll
            for (int q = 0; q < 2; q++) {
                if (in) {
                    const u32 m = bl_dm_fix(q ? hy : hx, q ? sy : sx, lane, q ? eb : ea, w);
                    if (q)
                        mb = m;
                    else
                        ma = m;
                } else {
#pragma unroll
                    for (int j = 0; j < 18; j++) w[j] = 0;
                }
                const u32 ft = q ? yt : xt, c = q ? 0u : cm;
                if (dbg == 3) {
#pragma unroll
                    for (int j = 0; j < 18; j++) cnt += w[j] & 1u;
                    continue;
                }
#pragma unroll
                for (int j = 0; j < 18; j++) {
                    const u32 v = bl_dm_tr(w[j] ^ c, lane);
                    asm volatile("st.shared.u32 [%0], %1;" ::"r"(ft + 128 * j + ((j & 1) ? fo1 : fo0)),
                                 "r"(v)
                                 : "memory");
                }
            }
            if (lane < 8) {
                const u32 n4 = (nmask >> (4 * lane)) & 15u;
                const u32 nw = (n4 & 1u) | ((n4 & 2u) << 7) | ((n4 & 4u) << 14) | ((n4 & 8u) << 21);
                asm volatile("st.shared.u32 [%0], %1;" ::"r"(bl_dm_addr(xt, 72, lane >> 2) + 4 * (lane & 3)),
                             "r"(nw)
                             : "memory");
            }
            {
                const int za = (int)(ma >> 1) - BL_ZB, zb = (int)(mb >> 1) - BL_ZB;
                cnt += (za + zb < 17) ? 1u : 0u;
            }
            __syncwarp();
            if (dbg != 1 && dbg != 3) bl_dm_round(xt, yt, lane, R0, R1, Nr);
            // R holds at most 32 rounds (an entry is at most 32 * 255^2 per
            // round, at most 10 entries per R word: < 2^29.3).
            if ((r & 31) == 31) bl_dm_flush(lane, R0, R1, Nr, D, Nv);
            cur ^= 1;
        }
        asm volatile("cp.async.wait_all;" ::: "memory");
        bl_dm_flush(lane, R0, R1, Nr, D, Nv);
        __syncthreads();
        // coef[p] (bytes p = 0..79 of the sum in units 2^544): D[p] - N_(p-4)
        // + [p <= 3] N_(68+p) + [p = 0] sum_(v < 68) N_v; then words of 4
        // bytes and one carry chain (thread 0 of the block; the other lanes'
        // accumulators stay zero).
        long long *coef = (long long *)(D + 152);
        if (t < 80) {
            long long c = (long long)D[t];
            if (t >= 4 && t < 76) c -= (long long)Nv[t - 4];
            if (t <= 3) c += (long long)Nv[68 + t];
            if (t == 0)
                for (u32 v = 0; v < 68; v++) c += (long long)Nv[v];
            coef[t] = c;
        }
        __syncthreads();
        if (t == 0) {
            long long cy = 0;
#pragma unroll
            for (int w = 0; w < 20; w++) {
                const long long x = coef[4 * w] + coef[4 * w + 1] * 256 + coef[4 * w + 2] * 65536 +
                                    coef[4 * w + 3] * 16777216 + cy;
                acc[w] = (u32)x;
                cy = x >> 32;
            }
        }
    } else if (run2) {
        // (2''') Running scales, no heads pass, rounds taken on demand.
        // Each warp takes rounds of 32 consecutive positions from a global
        // counter (work[2]; the last block sets it back to zero), so the
        // blocks end together whatever their SM's load; its next round's
        // index is asked for one round ahead. Each warp converts at the
        // largest normal exponents of x and y among the positions it has
        // seen (its round's included: a scale at least the entries'
        // exponents, as the error analysis asks). When a round raises
        // them, every lane's sum moves to the new scale sum by
        // bl_acc_shr_r (floor; a cut counts as one inexact term, as the
        // last block's alignment). After the rounds the warps' sums move
        // to the block's largest scale sum, which the record carries. The
        // flags and the count of terms whose signs differ come from the
        // rounds' heads. The staging is the 16-byte one (evict-first),
        // the next round's copies issued before the current round's
        // products; the words come by four 16-byte shared loads per
        // operand (80-byte rows: no bank conflicts) and are shifted in
        // registers (bl_fix32_near) unless an element lies 64 or more bits
        // below its scale (bl_fix32 from shared memory). The sum does not
        // depend on which warp took which round (exact integer sums; the
        // bound holds for any order).
        // The copies' L2 policy: evict-first (pipe bit 12), else normal.
        u64 pol = 0;
        if (bev)
            asm volatile("createpolicy.fractional.L2::evict_first.b64 %0, 1.0;" : "=l"(pol));
        else
            asm volatile("createpolicy.fractional.L2::evict_normal.b64 %0, 1.0;" : "=l"(pol));
        u32 cur = 0;
        // Shared addresses of the staging rows (bl_stage16's layout): the
        // operands' buffers 0, buffer 1 buf1 bytes further, this lane's four
        // chunk offsets.
        const u32 dA = (u32)__cvta_generic_to_shared(stage[wib][0][0]),
                  dB = (u32)__cvta_generic_to_shared(stage[wib][0][1]),
                  buf1 = (u32)__cvta_generic_to_shared(stage[wib][1][0]) - dA;
        u32 doff[4];
#pragma unroll
        for (u32 r = 0; r < 4; r++) {
            const u32 x = lane + 32 * r;
            doff[r] = 4 * ((x >> 2) * BL_SST16 + 4 * (x & 3));
        }
        // Round q's copies into buffer bf (0, 1).
        auto stage_round = [&](u32 q, u32 bf) {
            const u64 kq = 32 * (u64)q;
            if (kq + 32 <= K) {
                const u32 b = bf ? buf1 : 0u;
#pragma unroll
                for (u32 r = 0; r < 4; r++) {
                    asm volatile(
                        "cp.async.cg.shared.global.L2::cache_hint [%0], [%1], 16, %2;" ::"r"(
                            dA + b + doff[r]),
                        "l"(alb + kq * 8 + 2 * (lane + 32 * r)), "l"(pol));
                    asm volatile(
                        "cp.async.cg.shared.global.L2::cache_hint [%0], [%1], 16, %2;" ::"r"(
                            dB + b + doff[r]),
                        "l"(blb + kq * 8 + 2 * (lane + 32 * r)), "l"(pol));
                }
            } else {
                const u32 nn = (u32)(K - kq);
                bl_stage16(stage[wib][bf][0], alb, kq, nn, lane, true, pol);
                bl_stage16(stage[wib][bf][1], blb, kq, nn, lane, true, pol);
            }
        };
        u32 *const ctr = work + 2;
        const u32 R = (u32)((K + 31) / 32);
        u32 graw = 0;
        if (lane == 0) graw = atomicAdd(ctr, 1u);
        u32 q = __shfl_sync(0xffffffffu, graw, 0);
        if (lane == 0 && q < R) graw = atomicAdd(ctr, 1u);
        u64 hxn = 0, hyn = 0;
        if (q < R) {
            stage_round(q, 0);
            const u64 k = 32 * (u64)q + lane;
            if (k < K) {
                hxn = ahd[k];
                hyn = bhd[k];
            }
        }
        bl_async_commit();
        // Encoded scales (e + BL_EOFF; 0: none yet), warp-uniform.
        u64 rex = 0, rey = 0;
        u32 fl = 0, nz = 0;
        while (q < R) {
            // The next round (asked for one round ago), and the one after.
            const u32 qn = __shfl_sync(0xffffffffu, graw, 0);
            if (lane == 0 && qn < R) graw = atomicAdd(ctr, 1u);
            const u64 kb = 32 * (u64)q;
            const u32 nl = K - kb < 32 ? (u32)(K - kb) : 32u;
            const u64 hx = hxn, hy = hyn;
            hxn = hyn = 0;
            if (qn < R) {
                const u64 k = 32 * (u64)qn + lane;
                if (k < K) {
                    hxn = ahd[k];
                    hyn = bhd[k];
                }
                stage_round(qn, cur ^ 1);
            }
            bl_async_commit();
            // The round's classes (zeros past K: heads 0), flags, scales.
            const u32 cx = fl_tag(hx) & 3, cy = fl_tag(hy) & 3;
            fl |= (cx >= FL_INF || cy >= FL_INF) ? BL_DSPEC : 0u;
            fl |= (cx == FL_NORMAL && cy == FL_NORMAL) ? BL_DNZ : 0u;
            nz += ((fl_tag(hx) ^ fl_tag(hy)) & FL_NEG) ? 1u : 0u;
            const u64 mx = bl_warp_max64(cx == FL_NORMAL ? (u64)(fl_exp(hx) + BL_EOFF) : 0),
                      my = bl_warp_max64(cy == FL_NORMAL ? (u64)(fl_exp(hy) + BL_EOFF) : 0);
            if (mx > rex || my > rey) {
                const u64 nx = mx > rex ? mx : rex, ny = my > rey ? my : rey;
                // Before both scales exist no term was nonzero: acc is 0.
                if (rex && rey) bl_acc_shr_r<BL_NW>(acc, (nx - rex) + (ny - rey), cnt);
                rex = nx;
                rey = ny;
            }
            bl_async_wait1();
            __syncwarp();
            if (lane < nl) {
                const u32 *sA = stage[wib][cur][0] + lane * BL_SST16,
                          *sB = stage[wib][cur][1] + lane * BL_SST16;
                u32 a[BL_NF], b[BL_NF];
                const u32 ma = bl_fix32_v4(hx, sA, bl_esc(rex), a);
                const u32 mb = bl_fix32_v4(hy, sB, bl_esc(rey), b);
                bl_mac<BL_NF>(acc, cnt, a, ma, b, mb);
            }
            __syncwarp();
            cur ^= 1;
            q = qn;
        }
        asm volatile("cp.async.wait_all;" ::: "memory");
        // The warps' sums at the block's largest scale sum.
        __shared__ unsigned long long s_wu[4];
        const u64 wu = rex && rey ? rex + rey : 0;
        for (int o = 16; o > 0; o >>= 1) {
            fl |= __shfl_xor_sync(0xffffffffu, fl, o);
            nz += __shfl_xor_sync(0xffffffffu, nz, o);
        }
        if (lane == 0) {
            s_wu[wib] = wu;
            atomicOr(&s_fl, fl);
            atomicAdd(&s_nz, nz);
        }
        __syncthreads();
        u64 ub = 0;
        for (u32 q = 0; q < T / 32; q++) ub = s_wu[q] > ub ? s_wu[q] : ub;
        if (wu) bl_acc_shr_r<BL_NW>(acc, ub - wu, cnt);
        urec = ub ? ub - 2 * (u64)BL_EOFF + (u64)BL_UOFF : 0;
    } else
#endif
    if (bulk) {
        // (2') The products from the bulk-staged ring (round r in slot r %
        // S, phase (r / S) & 1); a slot is refilled with round r + S once
        // the warp has read round r. Without run the issued rounds are
        // only waited for (no copy may be in flight at exit).
        const u32 dbg = (pipe >> 1) & 3u;
        u64 kb = k0 + 32 * (u64)wib;
        u64 hxn = 0, hyn = 0;
        if (run && kb + lane < k1) {
            hxn = ahd[kb + lane];
            hyn = bhd[kb + lane];
        }
        u32 slot = 0, ph = 0;
        for (u32 r = 0; r < nissued; r++) {
            const u32 nl = k1 - kb < 32 ? (u32)(k1 - kb) : 32u;
            const u64 k = kb + lane;
            const u64 hx = hxn, hy = hyn;
            if (run && k + bstep < k1) {
                hxn = ahd[k + bstep];
                hyn = bhd[k + bstep];
            }
            bl_mbar_wait(bar0 + 8 * slot, ph);
            const u32 *sA = bl_dot_sm + (ring0 - sm0) / 4 + BL_BSLOT * slot;
            const u32 *sB = sA + 4 * BL_BGRP;
            if (run && lane < nl) {
                const u32 o = bl_bulk_off(lane);
                u32 a[BL_NF], b[BL_NF];
                if (dbg) {
                    bl_dbg_term(dbg, acc, cnt, sA + o, sB + o, hx, hy, ea, eb, 16, 16);
                } else {
                    const u32 ma = bl_fix32<BL_NF>(hx, sA + o, 16, ea, a);
                    const u32 mb = bl_fix32<BL_NF>(hy, sB + o, 16, eb, b);
                    bl_mac<BL_NF>(acc, cnt, a, ma, b, mb);
                }
            }
            __syncwarp();
            const u64 kn = kb + S * bstep;
            if (run && kn < k1) {
                if (lane == 0) {
                    const u32 nn = k1 - kn < 32 ? (u32)(k1 - kn) : 32u;
                    bl_bulk_issue(ring0 + 4 * BL_BSLOT * slot, bar0 + 8 * slot, alb, blb, kn, nn,
                                      bev);
                }
                nissued++;
            }
            kb += bstep;
            if (++slot == S) {
                slot = 0;
                ph ^= 1;
            }
        }
    } else if (run) {
        // (2) The products (bl_stream's kmajor rounds).
        const bool sta = la <= BL_SLMAX, stb = lb <= BL_SLMAX;
        const bool pp = (pipe & 1) && BL_NBUF == 2 && (sta || stb);
        // pipe bit 8: 16-byte staging (both operands of 8 limbs, pipelined).
        const bool c16 = (pipe & 256u) && pp && la == 8 && lb == 8 && BL_SST16 <= BL_SST &&
                         !(((size_t)alb | (size_t)blb) & 15);
        // pipe bit 12 with the 16-byte staging: the copies with an L2
        // evict-first policy (the mantissas are read once; the heads, read
        // again by the rounds, stay in L2).
        const bool ev16 = c16 && bev;
        u64 pol16 = 0;
        if (ev16)
            asm volatile("createpolicy.fractional.L2::evict_first.b64 %0, 1.0;" : "=l"(pol16));
        const u32 sst = c16 ? BL_SST16 : BL_SST;
        const u32 dbg = (pipe >> 1) & 3u;
        const u64 step = 32 * (u64)(T >> 5);
        u32 cur = 0;
        u64 kb = k0 + 32 * (u64)wib;
        if (pp && kb < k1 && !(pipe & 128u)) {
            const u32 nl = k1 - kb < 32 ? (u32)(k1 - kb) : 32u;
            if (c16) {
                bl_stage16(stage[wib][0][0], alb, kb, nl, lane, ev16, pol16);
                bl_stage16(stage[wib][0][1], blb, kb, nl, lane, ev16, pol16);
            } else {
                if (sta) bl_stage_async(stage[wib][0][0], alb, kb, nl, la, lane);
                if (stb) bl_stage_async(stage[wib][0][1], blb, kb, nl, lb, lane);
            }
            bl_async_commit();
        }
        // The heads one round ahead (their loads in flight during a round).
        u64 hxn = 0, hyn = 0;
        if (kb + lane < k1) {
            hxn = ahd[kb + lane];
            hyn = bhd[kb + lane];
        }
        for (; kb < k1; kb += step) {
            const u32 nl = k1 - kb < 32 ? (u32)(k1 - kb) : 32u;
            const u64 k = kb + lane;
            const u64 hx = hxn, hy = hyn;
            if (k + step < k1) {
                hxn = ahd[k + step];
                hyn = bhd[k + step];
            }
            u32 *sA = stage[wib][cur][0], *sB = stage[wib][cur][1];
            if (pfd && lane < 2) bl_dot_prefetch(alb, la, blb, lb, kb + pfd * step, k1, lane);
            if (pp) {
                const u64 kn = kb + step;
                if (kn < k1 && !(pipe & 128u)) {
                    const u32 nn = k1 - kn < 32 ? (u32)(k1 - kn) : 32u;
                    if (c16) {
                        bl_stage16(stage[wib][cur ^ (BL_NBUF - 1)][0], alb, kn, nn, lane, ev16,
                                   pol16);
                        bl_stage16(stage[wib][cur ^ (BL_NBUF - 1)][1], blb, kn, nn, lane, ev16,
                                   pol16);
                    } else {
                        if (sta)
                            bl_stage_async(stage[wib][cur ^ (BL_NBUF - 1)][0], alb, kn, nn, la,
                                           lane);
                        if (stb)
                            bl_stage_async(stage[wib][cur ^ (BL_NBUF - 1)][1], blb, kn, nn, lb,
                                           lane);
                    }
                }
                bl_async_commit();
                bl_async_wait1();
            } else {
                if (sta) bl_stage(sA, alb, kb, nl, la, lane);
                if (stb) bl_stage(sB, blb, kb, nl, lb, lane);
            }
            __syncwarp();
            if (lane < nl) {
                u32 a[BL_NF], b[BL_NF];
                if (dbg) {
                    bl_dbg_term(dbg, acc, cnt, sA + lane * sst, sB + lane * sst, hx, hy, ea, eb,
                                2 * la, 2 * lb);
                } else {
                    const u32 ma = sta ? bl_fix32<BL_NF>(hx, sA + lane * sst, 2 * la, ea, a)
                                       : bl_fix<BL_NF>(hx, alb + k * la, la, ea, a);
                    const u32 mb = stb ? bl_fix32<BL_NF>(hy, sB + lane * sst, 2 * lb, eb, b)
                                       : bl_fix<BL_NF>(hy, blb + k * lb, lb, eb, b);
                    bl_mac<BL_NF>(acc, cnt, a, ma, b, mb);
                }
            }
            __syncwarp();
            if (pp) cur ^= 1;
        }
        if (pp) asm volatile("cp.async.wait_all;" ::: "memory");
    }
    // (3) The block's sum, its record and the ticket.
    for (int off = 16; off > 0; off >>= 1) bl_shfl_add(acc, cnt, off);
    if (lane == 0) {
#pragma unroll
        for (int w = 0; w < BL_NW; w++) sw[wib * (BL_NW + 1) + w] = acc[w];
        sw[wib * (BL_NW + 1) + BL_NW] = cnt;
    }
    __syncthreads();
    if (t == 0) {
        for (u32 q = 1; q < T / 32; q++) {
            bl_acc_add(sw, sw + q * (BL_NW + 1), BL_NW);
            sw[BL_NW] += sw[q * (BL_NW + 1) + BL_NW];
        }
        u32 *rec = work + 4 + (u64)blockIdx.x * BL_DREC;
        for (int w = 0; w <= BL_NW; w++) rec[w] = sw[w];
        rec[BL_NW + 1] = s_fl | (urec ? BL_DRUN : 0u);
        rec[BL_NW + 2] = s_nz;
        rec[BL_NW + 4] = (u32)urec;
        rec[BL_NW + 5] = (u32)(urec >> 32);
        __threadfence();
        if (tms) bl_dot_time(tms + 4 * blockIdx.x + 2);
        s_last = atomicAdd(work, 1u) == gridDim.x - 1;
    }
    __syncthreads();
    if (!s_last) return;
    // The last block: every record is written.
    __threadfence();
    if (t == 0) {
        s_ex = 0;
        s_fl = 0;
        s_nz = 0;
    }
    __syncthreads();
    const u32 nb = gridDim.x;
    {
        // One pass: each thread adds its records (b = t, t + T, ...) at the
        // largest scale sum among them (bl_acc_shr_r moves its sum or the
        // record; floor, a cut counted), then moves its sum to the block's
        // largest U.
        u64 um = 0;
        u32 fl = 0, nz = 0;
#pragma unroll
        for (int w = 0; w < BL_NW; w++) acc[w] = 0;
        cnt = 0;
#pragma unroll 2
        for (u32 b = t; b < nb; b += T) {
            const u32 *r = work + 4 + (u64)b * BL_DREC;
            u32 x[BL_NW];
#pragma unroll
            for (int w = 0; w < BL_NW; w++) x[w] = __ldcg(r + w);
            u32 cb = __ldcg(r + BL_NW);
            const u32 f = __ldcg(r + BL_NW + 1);
            nz += __ldcg(r + BL_NW + 2);
            const u64 ue = (u64)__ldcg(r + BL_NW + 4) | ((u64)__ldcg(r + BL_NW + 5) << 32);
            fl |= f;
            if (!(f & BL_DRUN)) continue;
            if (ue > um) {
                if (um) bl_acc_shr_r<BL_NW>(acc, ue - um, cnt);
                um = ue;
            } else {
                bl_acc_shr_r<BL_NW>(x, um - ue, cb);
            }
            acc[0] = bl_add_cc(acc[0], x[0]);
#pragma unroll
            for (int w = 1; w < BL_NW - 1; w++) acc[w] = bl_addc_cc(acc[w], x[w]);
            acc[BL_NW - 1] = bl_addc(acc[BL_NW - 1], x[BL_NW - 1]);
            cnt += cb;
        }
        u64 m = um;
        for (int o = 16; o > 0; o >>= 1) {
            const u64 v = __shfl_xor_sync(0xffffffffu, m, o);
            m = v > m ? v : m;
            fl |= __shfl_xor_sync(0xffffffffu, fl, o);
            nz += __shfl_xor_sync(0xffffffffu, nz, o);
        }
        if (lane == 0) {
            atomicMax(&s_ex, (unsigned long long)m);
            atomicOr(&s_fl, fl);
            atomicAdd(&s_nz, nz);
        }
        __syncthreads();
        if (um) bl_acc_shr_r<BL_NW>(acc, s_ex - um, cnt);
    }
    const u64 U = s_ex;
    for (int off = 16; off > 0; off >>= 1) bl_shfl_add(acc, cnt, off);
    __syncthreads();
    if (lane == 0) {
#pragma unroll
        for (int w = 0; w < BL_NW; w++) sw[wib * (BL_NW + 1) + w] = acc[w];
        sw[wib * (BL_NW + 1) + BL_NW] = cnt;
    }
    __syncthreads();
    if (t == 0) {
        if (tms) bl_dot_time(tms + 4 * gridDim.x);
        for (u32 q = 1; q < T / 32; q++) {
            bl_acc_add(sw, sw + q * (BL_NW + 1), BL_NW);
            sw[BL_NW] += sw[q * (BL_NW + 1) + BL_NW];
        }
        FlOut out = {rl, rn, 0};
        i8 tt = 0;
        u32 r = 1;
        if (!(s_fl & BL_DSPEC)) {
            const i64 u = (s_fl & BL_DRUN) ? (i64)U - BL_UOFF : 0;
            r = bl_epilogue1<BL_NF>(out, tt, sw, sw[BL_NW], u, 0, p, rnd);
            if (r == 2) {
                fl_special(out, FL_ZERO, bl_dot_zero_neg((s_fl & BL_DNZ) != 0, s_nz, K, rnd));
                tt = 0;
                r = 0;
            }
        }
        if (r) fl_special(out, FL_ZERO, false);
        if (tms) bl_dot_time(tms + 4 * gridDim.x + 2);
        if ((pipe >> 1) & 3u) r = 0; // measurement modes: no host work
        rh[0] = out.head;
        tern[0] = tt;
        work[1] = r;
        // The ticket back to zero: the workspace serves the next call
        // without a memset (every record is written before it is read).
        work[0] = 0;
        work[2] = 0; // the round counter of the running-scale path
        if (hst) {
            // The status into the host's mapped word, tagged with the
            // call's sequence number (the host polls it).
            __threadfence_system();
            *(volatile u32 *)hst = (seq << 1) | r;
        }
    }
}

// The epilogue of output o = i n + j (bl_epilogue) from its sum acc (NW
// words) and count cnt; und[o] = 1, and the count at sc[BL_UND] grows,
// where the host computes the element (a special value in its line,
// alpha, beta or c, or no decision). tri = 1 (2): only the upper (lower)
// triangle is the product, the other elements are c rounded (syrk; +0
// without C). alpha_one: alpha = 1.0 from sc[BL_ONE].
#define BL_EPI_PARAMS                                                                          \
    u32 m, u32 n, const u64 *sc, u32 alpha_one, const u64 *alh, const u64 *alm, u32 lal,          \
        const u64 *beh, const u64 *bem, u32 lbe, u32 has_c, const u64 *chd, const u64 *clb,       \
        u32 lc, u64 ldc, const u64 *ahd, i64 asl, i64 asp, const u64 *bhd, i64 bsl, i64 bsp,      \
        u64 K, u64 p, u32 rnd, u64 *rh, u64 *rl, u32 rn, u32 tri, i8 *tern, u8 *und
#define BL_EPI_ARGS                                                                            \
    m, n, sc, alpha_one, alh, alm, lal, beh, bem, lbe, has_c, chd, clb, lc, ldc, ahd, asl, asp,   \
        bhd, bsl, bsp, K, p, rnd, rh, rl, rn, tri, tern, und
FL_DEV void bl_epi_one(u64 o, const u32 *acc, u32 cnt, BL_EPI_PARAMS) {
    u64 i = o / n, j = o - i * n;
    u64 ci = i * ldc + j;
    const u64 *esa = sc, *esb = sc + m, *fa = sc + m + n, *fb = sc + 2 * (u64)m + n;
    u64 *nund = (u64 *)sc + BL_UND(m, n);
    // tri bit 8: the epilogue's exact products as unrolled register chains
    // (MPARRAY_BLAS_EPIREG, for measurements).
    const bool reg = (tri & 0x100u) != 0;
    tri &= 0xffu;
    if (alpha_one) {
        alh = sc + BL_ONE(m, n);
        alm = alh + 1;
        lal = 1;
    }
    u64 ah = alh[0], bh = has_c ? beh[0] : 0, ch = has_c ? chd[ci] : 0;
    bool special = fa[i] || fb[j] || (fl_tag(ah) & 3) >= FL_INF ||
                   (has_c && ((fl_tag(bh) & 3) >= FL_INF || (fl_tag(ch) & 3) >= FL_INF));
    FlOut out = {rl + o * rn, rn, 0};
    i8 t = 0;
    u32 r = 1;
    if ((tri == 1 && i > j) || (tri == 2 && i < j)) {
        special = true;
        r = 0;
        u32 cls = fl_tag(ch) & 3;
        bool cneg = (fl_tag(ch) & FL_NEG) != 0;
        if (!has_c)
            fl_special(out, FL_ZERO, false);
        else if (cls == FL_NORMAL)
            t = fl_round_to(out, cneg, fl_exp(ch), clb + ci * lc, lc, false, p, rnd);
        else
            fl_special(out, cls, cneg);
    }
    if (!special && alpha_one && !has_c) {
        r = bl_epilogue1<BL_NF>(out, t, acc, cnt, bl_esc(esa[i]), bl_esc(esb[j]), p, rnd);
    } else if (!special) {
        r = reg ? bl_epilogue<BL_NF, true>(out, t, acc, cnt, bl_esc(esa[i]), bl_esc(esb[j]), ah,
                                           alm, lal, has_c != 0, bh, bem, lbe, ch, clb + ci * lc,
                                           lc, p, rnd)
                : bl_epilogue<BL_NF>(out, t, acc, cnt, bl_esc(esa[i]), bl_esc(esb[j]), ah, alm, lal,
                                     has_c != 0, bh, bem, lbe, ch, clb + ci * lc, lc, p, rnd);
    }
    if (!special) {
        if (r == 2) {
            bool zn = bl_zero_neg(ah, ahd + i * asl, asp, bhd + j * bsl, bsp, K, has_c != 0, bh,
                                  ch, rnd);
            fl_special(out, FL_ZERO, zn);
            t = 0;
            r = 0;
        }
    }
    if (r) {
        fl_special(out, FL_ZERO, false);
        atomicAdd((unsigned long long *)nund, 1ull);
    }
    rh[o] = out.head;
    tern[o] = t;
    und[o] = (u8)r;
}

// The epilogue of every output from one accumulator each (acc[o NW ..],
// counts at acc + m n NW), a thread per output.
extern "C" __global__ void blas_epi(const u32 *acc, BL_EPI_PARAMS) {
    u64 nout = (u64)m * n;
    for (u64 o = blockIdx.x * (u64)blockDim.x + threadIdx.x; o < nout;
         o += (u64)gridDim.x * blockDim.x)
        bl_epi_one(o, acc + o * BL_NW, acc[nout * BL_NW + o], BL_EPI_ARGS);
}

// Threads of blas_fin at most (its shared sums fit 48 KB).
#define BL_FINT (BL_NF <= 34 ? 256 : 128)

// The sums of S partial accumulators per output (partial q of output o at
// acc[(q m n + o) NW ..], its count at acc + S m n NW + q m n + o), added
// exactly by a block per output (blockDim a power of two, 32 ... BL_FINT), and
// the epilogue by its first thread.
extern "C" __global__ void __launch_bounds__(256) blas_fin(const u32 *acc, u32 S, BL_EPI_PARAMS) {
    __shared__ u32 sa[8 * (BL_NW + 1)];
    __shared__ u32 chunk[BL_FINT * (BL_NW + 1)];
    u64 nout = (u64)m * n, o = blockIdx.x;
    u32 t = threadIdx.x, T = blockDim.x;
    const u32 *cnts = acc + (u64)S * nout * BL_NW;
    u32 mine[BL_NW], c = 0;
#pragma unroll
    for (int w = 0; w < BL_NW; w++) mine[w] = 0;
    // T partials at a time: their words copied by the block into shared
    // memory with consecutive threads on consecutive words (coalesced: the
    // partials of one output are adjacent when m n = 1, as for dot), then
    // partial z0 + t added by thread t (odd stride NW + 1: no bank
    // conflicts).
    for (u32 z0 = 0; z0 < S; z0 += T) {
        u32 nz = S - z0 < T ? S - z0 : T;
        __syncthreads();
        for (u32 f = t; f < nz * BL_NW; f += T) {
            u32 r = f / BL_NW, w = f - r * BL_NW;
            chunk[r * (BL_NW + 1) + w] = acc[((u64)(z0 + r) * nout + o) * BL_NW + w];
        }
        __syncthreads();
        if (t < nz) {
            const u32 *x = chunk + t * (BL_NW + 1);
            mine[0] = bl_add_cc(mine[0], x[0]);
#pragma unroll
            for (int w = 1; w < BL_NW - 1; w++) mine[w] = bl_addc_cc(mine[w], x[w]);
            mine[BL_NW - 1] = bl_addc(mine[BL_NW - 1], x[BL_NW - 1]);
            c += cnts[(u64)(z0 + t) * nout + o];
        }
    }
    // Each warp's sum by shuffles, then the (at most 8) warps' sums and the
    // epilogue by the first thread.
    for (int off = 16; off > 0; off >>= 1) bl_shfl_add(mine, c, off);
    if ((t & 31) == 0) {
        u32 *sm = sa + (t >> 5) * (BL_NW + 1);
#pragma unroll
        for (int w = 0; w < BL_NW; w++) sm[w] = mine[w];
        sm[BL_NW] = c;
    }
    __syncthreads();
    if (t == 0) {
        for (u32 q = 1; q < T / 32; q++) {
            bl_acc_add(sa, sa + q * (BL_NW + 1), BL_NW);
            sa[BL_NW] += sa[q * (BL_NW + 1) + BL_NW];
        }
        bl_epi_one(o, sa, sa[BL_NW], BL_EPI_ARGS);
    }
}

// Writes the host's elements: cnt elements (index idx[x], head hh[x],
// limbs hl[x rn ..], ternary ht[x]) into the output.
extern "C" __global__ void blas_scatter(const u64 *idx, const u64 *hh, const u64 *hl, const i8 *ht,
                                        u64 count, u64 *rh, u64 *rl, u32 rn, i8 *tern) {
    for (u64 x = blockIdx.x * (u64)blockDim.x + threadIdx.x; x < count;
         x += (u64)gridDim.x * blockDim.x) {
        u64 o = idx[x];
        rh[o] = hh[x];
        for (u32 w = 0; w < rn; w++) rl[o * rn + w] = hl[x * rn + w];
        tern[o] = ht[x];
    }
}

// ---- Complex reductions: panels and the epilogue ----

// Panels of a complex operand (bl_cpanel_at), lines x (nh K) entries.
extern "C" __global__ void blas_cpanel(const u64 *rh, const u64 *rl, u32 lr, const u64 *ih,
                                       const u64 *il, u32 li, u64 lines, u64 K, i64 sl, i64 sp,
                                       u32 nh, u32 src0, u32 op0, u32 src1, u32 op1, u64 *ph,
                                       u64 *pl, u32 lp) {
    u64 total = lines * nh * K;
    for (u64 x = blockIdx.x * (u64)blockDim.x + threadIdx.x; x < total;
         x += (u64)gridDim.x * blockDim.x)
        bl_cpanel_at(x, rh, rl, lr, ih, il, li, K, sl, sp, nh, src0, op0, src1, op1, ph, pl, lp);
}

// One accumulator per output (accR[o NW ..], counts at accR + m n NW; accI
// likewise): a thread per (output, part).
extern "C" __global__ void blas_cepi(const u32 *accR, const u32 *accI, BL_CEPI_PARAMS) {
    u64 nout = (u64)m * n;
    for (u64 x = blockIdx.x * (u64)blockDim.x + threadIdx.x; x < 2 * nout;
         x += (u64)gridDim.x * blockDim.x) {
        u64 o = x >> 1;
        bl_cepi_one<BL_NF>(o, (u32)(x & 1), accR + o * BL_NW, accR[nout * BL_NW + o],
                           accI + o * BL_NW, accI[nout * BL_NW + o], sc + BL_UND(m, n),
                           sc + BL_ONE(m, n), BL_CEPI_ARGS);
    }
}

// Threads of blas_cfin at most (two shared sums fit 48 KB).
#define BL_CFINT (BL_NF <= 34 ? 128 : 64)

// S partial accumulators per output and product (blas_fin's layout), added
// exactly by a block per output; threads 0 and 1 run the two parts.
extern "C" __global__ void __launch_bounds__(128)
    blas_cfin(const u32 *accR, const u32 *accI, u32 S, BL_CEPI_PARAMS) {
    __shared__ u32 sr[BL_CFINT * (BL_NW + 1)], si[BL_CFINT * (BL_NW + 1)];
    u64 nout = (u64)m * n, o = blockIdx.x;
    u32 t = threadIdx.x, T = blockDim.x;
    for (u32 q = 0; q < 2; q++) {
        const u32 *acc = q ? accI : accR;
        u32 *sa = q ? si : sr;
        const u32 *cnts = acc + (u64)S * nout * BL_NW;
        u32 mine[BL_NW], c = 0;
        for (int w = 0; w < BL_NW; w++) mine[w] = 0;
        for (u32 z = t; z < S; z += T) {
            bl_acc_add(mine, acc + ((u64)z * nout + o) * BL_NW, BL_NW);
            c += cnts[(u64)z * nout + o];
        }
        u32 *sm = sa + t * (BL_NW + 1);
        for (int w = 0; w < BL_NW; w++) sm[w] = mine[w];
        sm[BL_NW] = c;
    }
    __syncthreads();
    for (u32 h = T / 2; h > 0; h >>= 1) {
        if (t < h) {
            for (u32 q = 0; q < 2; q++) {
                u32 *sa = q ? si : sr;
                u32 *sm = sa + t * (BL_NW + 1), *other = sa + (t + h) * (BL_NW + 1);
                bl_acc_add(sm, other, BL_NW);
                sm[BL_NW] += other[BL_NW];
            }
        }
        __syncthreads();
    }
    if (t < 2)
        bl_cepi_one<BL_NF>(o, t, sr, sr[BL_NW], si, si[BL_NW], sc + BL_UND(m, n), sc + BL_ONE(m, n),
                           BL_CEPI_ARGS);
}


// ---- GEMV, a block per row (blas_gvx, blas_gemv; notes/blas-cuda.md,
// "GEMV, a block per row") ----
// Up to NF = 18 (a block of BL_GVT threads keeps 8 blocks per SM at most
// 128 registers). The workspace header (u64): [0] x's scale (e + BL_EOFF,
// 0: no normal entry), [1] 1 when x holds a NaN or an infinity, [2] the
// count of undecided outputs, [3] the count of finished rows (the ticket of
// bl_gv_done; reset with [2]).
#if BL_NF <= 18
#define BL_GVT 64

// The end of a row's epilogue (one thread per row): r = 1 adds the row to
// the undecided count hdr[2]; with hst (page-locked host memory mapped into
// the device, 0: none) the last of the m rows to finish writes (seq << 1) |
// (count != 0) into *hst, which the host polls instead of copying hdr[2].
FL_DEV void bl_gv_done(u64 *hdr, u32 r, u64 m, u32 *hst, u32 seq) {
    if (r) atomicAdd((unsigned long long *)(hdr + 2), 1ull);
    if (!hst) return;
    __threadfence();
    const u64 t = atomicAdd((unsigned long long *)(hdr + 3), 1ull);
    if (t + 1 == m) {
        __threadfence();
        const u64 n = atomicAdd((unsigned long long *)(hdr + 2), 0ull);
        __threadfence_system();
        *(volatile u32 *)hst = (seq << 1) | (n != 0 ? 1u : 0u);
    }
}

// x's scale and special flag, its packed records xrec[k BL_REC ..]
// (blas_pack's layout) and the undecided count reset: one block (K x
// (BL_NF + 1) words of conversions, K <= 2^16).
FL_DEV void bl_gvx(const u64 *xh, const u64 *xl, u32 lx, u64 K, u64 *hdr, u32 *xrec) {
    __shared__ unsigned long long s_e;
    __shared__ u32 s_f;
    const u32 t = threadIdx.x, lane = t & 31, T = blockDim.x;
    if (t == 0) {
        s_e = 0;
        s_f = 0;
    }
    __syncthreads();
    u64 e = 0;
    u32 f = 0;
    for (u64 k = t; k < K; k += T) {
        const u64 h = xh[k];
        const u32 c = fl_tag(h) & 3;
        if (c == FL_NORMAL) {
            const u64 v = (u64)(fl_exp(h) + BL_EOFF);
            e = v > e ? v : e;
        } else if (c != FL_ZERO) {
            f = 1;
        }
    }
    for (int o = 16; o > 0; o >>= 1) {
        const u64 v = __shfl_xor_sync(0xffffffffu, e, o);
        e = v > e ? v : e;
        f |= __shfl_xor_sync(0xffffffffu, f, o);
    }
    if (lane == 0) {
        if (e) atomicMax(&s_e, (unsigned long long)e);
        if (f) atomicOr(&s_f, f);
    }
    __syncthreads();
    const i64 es = bl_esc(s_e);
    for (u64 k = t; k < K; k += T) {
        u32 w[BL_NF];
        const u32 meta = bl_fix<BL_NF>(xh[k], xl + k * lx, lx, es, w);
        u32 *r = xrec + k * BL_REC;
#pragma unroll
        for (int j = 0; j < BL_NF; j++) r[j] = w[j];
        r[BL_NF] = meta;
    }
    if (t == 0) {
        hdr[0] = s_e;
        hdr[1] = s_f;
        hdr[2] = 0;
        hdr[3] = 0;
    }
}

extern "C" __global__ void __launch_bounds__(1024)
    blas_gvx(const u64 *xh, const u64 *xl, u32 lx, u64 K, u64 *hdr, u32 *xrec) {
    bl_gvx(xh, xl, lx, K, hdr, xrec);
}

// y_i = alpha sum_k A_ik x_k + beta c_i rounded, row i = blockIdx.x (heads
// ahd[i asl + k], limbs alb + (i asl + k) la; x's records from blas_gvx):
// (1) the row's scale and special flag from its heads; (2) the products, a
// warp per 32 consecutive positions per round (A's mantissas staged by
// cp.async as in blas_stream, x's records by 16-byte loads); (3) the
// block's sum and the epilogue by its first thread (bl_epi_one's rules):
// the result into rh[i], rl, tern[i], und[i] (1: the host computes it, and
// hdr[2] grows). dbg (measurement modes, wrong results, nothing for the
// host): bit 0 without bl_mac, bit 1 without the epilogue, bit 2 without
// the products; pipe bit 0: double-buffered staging.
extern "C" __global__ void __launch_bounds__(BL_GVT, 8)
    blas_gemv(const u64 *ahd, const u64 *alb, u32 la, i64 asl, const u64 *xhd, u64 K,
              const u32 *xrec, u64 *hdr, const u64 *alh, const u64 *alm, u32 lal,
              const u64 *beh, const u64 *bem, u32 lbe, u32 has_c, const u64 *chd,
              const u64 *clb, u32 lc, u64 p, u32 rnd, u64 *rh, u64 *rl, u32 rn, i8 *tern,
              u8 *und, u32 pipe, u32 *hst, u32 seq) {
    __shared__ __align__(16) u32 stage[BL_GVT / 32][BL_NBUF][32 * BL_SST];
    __shared__ unsigned long long s_ea;
    __shared__ u32 s_fa;
    __shared__ u32 sw[(BL_GVT / 32) * (BL_NW + 1)];
    const u32 t = threadIdx.x, lane = t & 31, wib = t >> 5;
    const u64 i = blockIdx.x;
    const u64 *ah = ahd + i * asl;
    const u64 *al = alb + i * asl * la;
    const u32 dbg = pipe >> 1;
    if (t == 0) {
        s_ea = 0;
        s_fa = 0;
    }
    __syncthreads();
    {
        // (1) The row's heads, four loads in flight per thread.
        u64 e = 0;
        u32 f = 0;
        for (u64 kb = t; kb < K; kb += 4 * BL_GVT) {
            u64 h[4];
#pragma unroll
            for (int r = 0; r < 4; r++) {
                const u64 k = kb + r * BL_GVT;
                h[r] = k < K ? ah[k] : 0;
            }
#pragma unroll
            for (int r = 0; r < 4; r++) {
                const u32 c = fl_tag(h[r]) & 3;
                if (c == FL_NORMAL) {
                    const u64 v = (u64)(fl_exp(h[r]) + BL_EOFF);
                    e = v > e ? v : e;
                } else if (c != FL_ZERO) {
                    f = 1;
                }
            }
        }
        for (int o = 16; o > 0; o >>= 1) {
            const u64 v = __shfl_xor_sync(0xffffffffu, e, o);
            e = v > e ? v : e;
            f |= __shfl_xor_sync(0xffffffffu, f, o);
        }
        if (lane == 0) {
            if (e) atomicMax(&s_ea, (unsigned long long)e);
            if (f) atomicOr(&s_fa, f);
        }
    }
    __syncthreads();
    const u64 xe = __ldcg(hdr), xs = __ldcg(hdr + 1);
    const bool special = s_fa || xs;
    // Products unless special (also where the row or x has no normal
    // entry: a term of an entirely cut-off entry counts as inexact, as in
    // blas_fin's path, which this path matches status for status).
    const bool run = !special;
    const i64 ea = bl_esc(s_ea), eb = bl_esc(xe);
    u32 acc[BL_NW];
#pragma unroll
    for (int w = 0; w < BL_NW; w++) acc[w] = 0;
    u32 cnt = 0;
    if (run && !(dbg & 4u)) {
        // (2) The products.
        const bool sta = la <= BL_SLMAX;
        const bool pp = (pipe & 1) && BL_NBUF == 2 && sta;
        const u64 step = BL_GVT;
        u32 cur = 0;
        u64 kb = 32 * (u64)wib;
        if (pp && kb < K) {
            const u32 nl = K - kb < 32 ? (u32)(K - kb) : 32u;
            bl_stage_async(stage[wib][0], al, kb, nl, la, lane);
            bl_async_commit();
        }
        u64 hn = kb + lane < K ? ah[kb + lane] : 0;
        for (; kb < K; kb += step) {
            const u32 nl = K - kb < 32 ? (u32)(K - kb) : 32u;
            const u64 k = kb + lane;
            const u64 ha = hn;
            if (k + step < K) hn = ah[k + step];
            u32 *sA = stage[wib][cur];
            if (pp) {
                const u64 kn = kb + step;
                if (kn < K) {
                    const u32 nn = K - kn < 32 ? (u32)(K - kn) : 32u;
                    bl_stage_async(stage[wib][cur ^ (BL_NBUF - 1)], al, kn, nn, la, lane);
                }
                bl_async_commit();
                bl_async_wait1();
            } else if (sta) {
                bl_stage(sA, al, kb, nl, la, lane);
            }
            __syncwarp();
            if (lane < nl) {
                u32 a[BL_NF], b[BL_NF];
                const u32 ma = sta ? bl_fix32<BL_NF>(ha, sA + lane * BL_SST, 2 * la, ea, a)
                                   : bl_fix<BL_NF>(ha, al + k * la, la, ea, a);
                const u32 mb = bl_rec_load(xrec + k * BL_REC, b);
                if (dbg & 1u) {
                    u32 x = ma ^ mb;
#pragma unroll
                    for (int w = 0; w < BL_NF; w++) x ^= a[w] ^ b[w];
                    acc[0] += x & 0xffu;
                } else {
                    bl_mac<BL_NF>(acc, cnt, a, ma, b, mb);
                }
            }
            __syncwarp();
            if (pp) cur ^= 1;
        }
        if (pp) asm volatile("cp.async.wait_all;" ::: "memory");
    }
    // (3) The block's sum and the epilogue.
    for (int off = 16; off > 0; off >>= 1) bl_shfl_add(acc, cnt, off);
    if (lane == 0) {
#pragma unroll
        for (int w = 0; w < BL_NW; w++) sw[wib * (BL_NW + 1) + w] = acc[w];
        sw[wib * (BL_NW + 1) + BL_NW] = cnt;
    }
    __syncthreads();
    if (t != 0) return;
    for (u32 q = 1; q < BL_GVT / 32; q++) {
        bl_acc_add(sw, sw + q * (BL_NW + 1), BL_NW);
        sw[BL_NW] += sw[q * (BL_NW + 1) + BL_NW];
    }
    const u64 a0 = alh[0], bh = has_c ? beh[0] : 0, ch = has_c ? chd[i] : 0;
    FlOut out = {rl + i * rn, rn, 0};
    i8 tt = 0;
    u32 r = 1;
    if (!(dbg & 2u))
        r = bl_gv_epi<BL_NF>(out, tt, sw, sw[BL_NW], special, ea, eb, a0, alm, lal, has_c != 0, bh,
                             bem, lbe, ch, clb + i * lc, lc, ah, xhd, K, p, rnd);
    if (dbg) r = 0;
    if (r) fl_special(out, FL_ZERO, false);
    if (dbg & 2u) fl_special(out, FL_ZERO, (sw[0] ^ sw[BL_NW]) & 1);
    rh[i] = out.head;
    tern[i] = tt;
    und[i] = (u8)r;
    bl_gv_done(hdr, r, gridDim.x, hst, seq);
}
#endif

// ---- GEMV on int8 tensor cores (blas_gmr, blas_gmx, blas_gmm, blas_gmf;
// notes/blas-cuda.md, "GEMV on int8 tensor cores") ----
// Tier NF = 18 only (F = 576 bits, 72 bytes), A of 8 limbs (16 words).
// a' = bl_fix32's words (same scale, same truncation); the kernel keeps the
// byte pairs u + v >= 68 of each term (a superset of bl_mac's word pairs,
// so bl_mac's error bound and exactness rule hold) and counts the terms
// as bl_mac does. Signs: A~ = a' ^ (s ? ~0 : 0) and n = s per term; the
// row's signed sum in units 2^544 is S = T + sum_v N_v c_v (T the kept
// byte-pair product of A~ and x', N_v = sum_k n_k X_kv, c_v = [v >= 68]
// 2^(8(v - 68)) + [v < 68] - 2^(8v + 32)); tests/blas_mma_model.rs
// models the lanes' arithmetic.
#if BL_NF == 18
#define BL_MD0 68
#define BL_MND 80
#define BL_MNV 72
#define BL_MRW 38
#define BL_MRE (4 * BL_MRW)
#define BL_MRP 108
#define BL_MKS 64
#define BL_MWARPS 4
#define BL_MST 3
#define BL_ME 4
#define BL_MROWS (16 * BL_MWARPS)
#define BL_MASTR (BL_ME * 16 + 4)
#define BL_MPART (BL_NW + 1)

// One head into a line's scale e (the largest e + BL_EOFF of its normal
// entries) and special flag f, without branches (so that the compiler
// keeps a round's loads ahead of their uses).
FL_DEV void bl_gscan(u64 h, u64 &e, u32 &f) {
    const u32 c = fl_tag(h) & 3;
    const u64 v = (u64)(fl_exp(h) + BL_EOFF);
    e = (c == FL_NORMAL && v > e) ? v : e;
    f |= (c != FL_NORMAL && c != FL_ZERO) ? 1u : 0u;
}

// Each row's scale (e + BL_EOFF, 0: no normal entry) and special flag:
// rse[2 i], rse[2 i + 1]; a block of 256 threads per BL_GRB rows, 4 warps
// per row (8 loads in flight per lane: a 1024-position row in one round,
// the whole matrix's heads in flight at once; the bytes in flight, not the
// instructions, set the rate), the warps' results through shared memory.
#define BL_GRB 2
FL_DEV void bl_gmr(const u64 *ahd, i64 asl, u64 m, u64 K, u64 *rse, u64 blk) {
    __shared__ unsigned long long s_re[BL_GRB];
    __shared__ u32 s_rf[BL_GRB];
    const u32 t = threadIdx.x, lane = t & 31, wr = (t >> 5) & 3, ri = t >> 7;
    const u64 i = blk * BL_GRB + ri;
    if (t < BL_GRB) {
        s_re[t] = 0;
        s_rf[t] = 0;
    }
    __syncthreads();
    if (i < m) {
        const u64 *ah = ahd + i * asl;
        u64 e = 0;
        u32 f = 0;
        for (u64 kb = lane + 32 * wr; kb < K; kb += 1024) {
            u64 h[8];
#pragma unroll
            for (int r = 0; r < 8; r++) {
                const u64 k = kb + 128 * r;
                h[r] = k < K ? ah[k] : 0;
            }
#pragma unroll
            for (int r = 0; r < 8; r++) bl_gscan(h[r], e, f);
        }
        for (int o = 16; o > 0; o >>= 1) {
            const u64 v = __shfl_xor_sync(0xffffffffu, e, o);
            e = v > e ? v : e;
            f |= __shfl_xor_sync(0xffffffffu, f, o);
        }
        if (lane == 0) {
            if (e) atomicMax(&s_re[ri], (unsigned long long)e);
            if (f) atomicOr(&s_rf[ri], f);
        }
    }
    __syncthreads();
    if (i < m && (t & 127) == 0) {
        rse[2 * i] = s_re[ri];
        rse[2 * i + 1] = s_rf[ri];
    }
}

extern "C" __global__ void __launch_bounds__(256)
    blas_gmr(const u64 *ahd, i64 asl, u64 m, u64 K, u64 *rse) {
    bl_gmr(ahd, asl, m, K, rse, blockIdx.x);
}

// x's forms for blas_gmm from its records (blas_gvx), for Kp (a multiple
// of BL_MKS) positions, those from K on zero: R (4 copies of x's reversed
// bytes shifted by 0..3 bytes: word w of copy c holds X_(RP - 4w - c - b)
// in byte b), XT (x's bytes of 4 consecutive positions per word: XT[(k/4)
// 72 + v] byte k % 4 = X_kv) and XM (the records' metas).
// x's forms of positions [kb, kb + 64) from their words in shared memory
// (Xw[e 19 + j]: j < 18 the words, 18 the meta; zeros and an exact zero's
// meta past K), by all the block's threads (coalesced stores); Ys: 64 x
// 39 words of scratch. Y word j = X_(108 - 4j - b) in byte b: byte 0 of
// x's word 27 - j, bytes 3, 2, 1 of its word 26 - j; copy c word w =
// (Y[w], Y[w + 1]) >> 8c; XT[(k/4) 72 + v] byte j = X_(k + j, v).
FL_DEV void bl_gmx64(u64 kb, const u32 *Xw, u32 *Ys, u32 *R, u32 *XT, u32 *XM) {
    const u32 t = threadIdx.x, T = blockDim.x;
    for (u32 e = t; e < 64; e += T) {
        const u32 *xw = Xw + e * 19;
#pragma unroll
        for (int jj = 0; jj <= BL_MRW; jj++) {
            const int hi = 27 - jj, lo = 26 - jj;
            const u32 h = (hi >= 0 && hi < BL_NF) ? xw[hi] : 0u;
            const u32 l = (lo >= 0 && lo < BL_NF) ? xw[lo] : 0u;
            Ys[e * 39 + jj] = __byte_perm(l, h, 0x1234);
        }
        XM[kb + e] = xw[BL_NF];
    }
    __syncthreads();
    for (u32 idx = t; idx < 64 * BL_MRE; idx += T) {
        const u32 e = idx / BL_MRE, w = idx % BL_MRE, c = w / BL_MRW, ww = w % BL_MRW;
        const u32 *y = Ys + e * 39;
        R[(kb + e) * BL_MRE + w] = __funnelshift_r(y[ww], y[ww + 1], 8 * c);
    }
    for (u32 idx = t; idx < 16 * BL_MNV; idx += T) {
        const u32 g = idx / BL_MNV, v = idx % BL_MNV;
        u32 x = 0;
#pragma unroll
        for (int jj = 0; jj < 4; jj++)
            x |= ((Xw[(4 * g + jj) * 19 + (v >> 2)] >> (8 * (v & 3))) & 255u) << (8 * jj);
        XT[(kb / 4 + g) * BL_MNV + v] = x;
    }
}

// x's forms (R, XT, XM for Kp positions, a multiple of 64) from its
// records (blas_gvx): a block of 256 threads per 64 positions.
extern "C" __global__ void __launch_bounds__(256)
    blas_gmx(const u32 *xrec, u64 K, u64 Kp, u32 *R, u32 *XT, u32 *XM) {
    __shared__ u32 Xw[64 * 19], Ys[64 * 39];
    const u64 kb = (u64)blockIdx.x * 64;
    for (u32 idx = threadIdx.x; idx < 64 * 19; idx += blockDim.x) {
        const u64 k = kb + idx / 19;
        const u32 j = idx % 19;
        Xw[idx] = k < K ? xrec[k * BL_REC + j] : (j == BL_NF ? BL_META(BL_ZEXACT0, false) : 0u);
    }
    __syncthreads();
    bl_gmx64(kb, Xw, Ys, R, XT, XM);
}

// blas_gvx, blas_gmx and blas_gmr in one launch of 256-thread blocks:
// blocks below nx = Kp / 64 each find x's scale and special flag (all K
// heads) and convert 64 positions into x's forms (block 0 writes hdr; no
// records), the others the scales and special flags of BL_GRB rows each
// (bl_gmr). An x
// block issues its loads at once: the K heads (4 per thread per round) and
// its 64 elements' limbs (coalesced into shared memory when lx <= 16), so
// that the conversion (bl_fix, unchanged) reads shared memory instead of
// a serial chain of global loads per thread.
#define BL_GPLX 16
extern "C" __global__ void __launch_bounds__(256)
    blas_gmp(const u64 *xh, const u64 *xl, u32 lx, u64 K, u64 Kp, u64 *hdr, u32 *R, u32 *XT,
             u32 *XM, const u64 *ahd, i64 asl, u64 m, u64 *rse) {
    const u64 nx = Kp / 64;
    if (blockIdx.x >= nx) {
        bl_gmr(ahd, asl, m, K, rse, blockIdx.x - nx);
        return;
    }
    __shared__ unsigned long long s_e;
    __shared__ u32 s_f;
    __shared__ u32 Xw[64 * 19], Ys[64 * 39];
    __shared__ u64 Xl[64 * BL_GPLX], Xh[64];
    const u32 t = threadIdx.x, lane = t & 31;
    const u64 kb = (u64)blockIdx.x * 64;
    const bool stl = lx <= BL_GPLX;
    if (t == 0) {
        s_e = 0;
        s_f = 0;
    }
    // This block's 64 heads and (stl) limbs, zeros past K.
    if (t < 64) Xh[t] = kb + t < K ? xh[kb + t] : 0;
    if (stl) {
        // At most 4 limbs per thread (64 lx <= 1024), loaded together.
        const u64 n = (K - kb < 64 ? K - kb : 64) * (u64)lx;
        const u64 *src = xl + kb * lx;
        u64 v[4];
#pragma unroll
        for (int r = 0; r < 4; r++) {
            const u32 idx = t + 256 * r;
            v[r] = idx < n ? src[idx] : 0;
        }
#pragma unroll
        for (int r = 0; r < 4; r++)
            if (t + 256 * r < 64 * lx) Xl[t + 256 * r] = v[r];
    }
    __syncthreads();
    u64 e = 0;
    u32 f = 0;
    for (u64 k0 = t; k0 < K; k0 += 1024) {
        u64 h[4];
#pragma unroll
        for (int r = 0; r < 4; r++) {
            const u64 k = k0 + 256 * r;
            h[r] = k < K ? xh[k] : 0;
        }
#pragma unroll
        for (int r = 0; r < 4; r++) bl_gscan(h[r], e, f);
    }
    for (int o = 16; o > 0; o >>= 1) {
        const u64 v = __shfl_xor_sync(0xffffffffu, e, o);
        e = v > e ? v : e;
        f |= __shfl_xor_sync(0xffffffffu, f, o);
    }
    if (lane == 0) {
        if (e) atomicMax(&s_e, (unsigned long long)e);
        if (f) atomicOr(&s_f, f);
    }
    __syncthreads();
    if (t < 64) {
        const u64 k = kb + t;
        u32 w[BL_NF];
        u32 meta = BL_META(BL_ZEXACT0, false);
        if (k < K) {
            meta = bl_fix<BL_NF>(Xh[t], stl ? Xl + t * lx : xl + k * lx, lx, bl_esc(s_e), w);
        } else {
#pragma unroll
            for (int j = 0; j < BL_NF; j++) w[j] = 0;
        }
#pragma unroll
        for (int j = 0; j < BL_NF; j++) Xw[t * 19 + j] = w[j];
        Xw[t * 19 + BL_NF] = meta;
    }
    __syncthreads();
    bl_gmx64(kb, Xw, Ys, R, XT, XM);
    if (blockIdx.x == 0 && t == 0) {
        hdr[0] = s_e;
        hdr[1] = s_f;
        hdr[2] = 0;
        hdr[3] = 0;
    }
}

FL_DEV void bl_mma32(u32 *c, u32 a0, u32 a1, u32 a2, u32 a3, u32 b0, u32 b1) {
    asm volatile("mma.sync.aligned.m16n8k32.row.col.s32.u8.u8.s32 {%0,%1,%2,%3}, "
                 "{%4,%5,%6,%7}, {%8,%9}, {%0,%1,%2,%3};\n"
                 : "+r"(c[0]), "+r"(c[1]), "+r"(c[2]), "+r"(c[3])
                 : "r"(a0), "r"(a1), "r"(a2), "r"(a3), "r"(b0), "r"(b1));
}
FL_DEV void bl_mma16(u32 *c, u32 a0, u32 a1, u32 b0) {
    asm volatile("mma.sync.aligned.m16n8k16.row.col.s32.u8.u8.s32 {%0,%1,%2,%3}, {%4,%5}, {%6}, "
                 "{%0,%1,%2,%3};\n"
                 : "+r"(c[0]), "+r"(c[1]), "+r"(c[2]), "+r"(c[3])
                 : "r"(a0), "r"(a1), "r"(b0));
}
// 16 bytes (8: cp8) from src, or zeros when !ok (src is then not read).
FL_DEV void bl_cp16z(void *dst, const void *src, bool ok) {
    const u32 d = (u32)__cvta_generic_to_shared(dst);
    asm volatile("cp.async.cg.shared.global [%0], [%1], 16, %2;\n" ::"r"(d), "l"(src),
                 "r"(ok ? 16 : 0)
                 : "memory");
}
FL_DEV void bl_cp8z(void *dst, const void *src, bool ok) {
    const u32 d = (u32)__cvta_generic_to_shared(dst);
    asm volatile("cp.async.ca.shared.global [%0], [%1], 8, %2;\n" ::"r"(d), "l"(src),
                 "r"(ok ? 8 : 0)
                 : "memory");
}
template <int N> FL_DEV void bl_cp_wait() { asm volatile("cp.async.wait_group %0;\n" ::"n"(N) : "memory"); }
// 4 bits -> 4 bytes (0/1).
FL_DEV u32 bl_spread4(u32 b) { return (b * 0x00204081u) & 0x01010101u; }

// Words j = 4q + tig (q < 5) of A~ for the element with head h and
// mantissa sm[0..16) on a row of scale rs, x's sign sx: bl_fix32's words
// complemented when the term is negative (n = 1). Returns bl_fix32's z
// (low zero words; BL_ZEXACT0 for a zero or special, -BL_ZEXACT0 when the
// truncation is inexact).
FL_DEV int bl_mconv(u64 h, i64 rs, const u32 *sm, u32 sx, int tig, u32 *aw, u32 &n) {
    const u32 tag = fl_tag(h);
    if ((tag & 3) != FL_NORMAL) {
#pragma unroll
        for (int q = 0; q < 5; q++) aw[q] = 0;
        n = 0;
        return BL_ZEXACT0;
    }
    const i64 d = rs - fl_exp(h);
    const u32 s = ((tag & FL_NEG) ? 1u : 0u) ^ sx;
    n = s;
    const u32 cm = 0u - s;
    if (d >= 32 * BL_NF) {
#pragma unroll
        for (int q = 0; q < 5; q++) aw[q] = (4 * q + tig < BL_NF) ? cm : 0u;
        return -BL_ZEXACT0;
    }
    const int o = (int)d - 64;
    const int base = o >> 5;
    const u32 sh = (u32)o & 31u;
#pragma unroll
    for (int q = 0; q < 5; q++) {
        const int j = 4 * q + tig;
        const int x0 = base + j, x1 = x0 + 1;
        const u32 lo = (u32)x0 < 16u ? sm[x0] : 0u;
        const u32 hi = (u32)x1 < 16u ? sm[x1] : 0u;
        const u32 w = __funnelshift_r(lo, hi, sh);
        aw[q] = j < BL_NF ? (w ^ cm) : 0u;
    }
    u32 i = 0;
    while (i < 15 && sm[i] == 0) i++;
    const int tz = 32 * (int)i + (int)bl_ctz32(sm[i] | (i == 15 ? 0x80000000u : 0u));
    return tz >= o ? (tz - o) >> 5 : -BL_ZEXACT0;
}

// The products of rows [row0, row0 + BL_MROWS) (blockIdx.x) and the slice
// of BL_MKS positions blockIdx.y: a warp per 16-row m-tile, A's mantissas
// and heads staged by cp.async (BL_MST stages of BL_ME elements), the
// terms on the int8 tensor cores, then each row's signed sum of the slice
// (NF + 2 words, two's complement, units 2^544) and its count of possibly
// inexact terms into part[(slice m + row) BL_MPART ..]. Rows from m on
// repeat row m - 1 (not written); positions from K on read as zeros.
// ST stages; RS: x's shifted copies staged with A (RS, a ring of ST x
// BL_ME elements) instead of held for the whole slice.
template <int ST, bool RS>
FL_DEV void bl_gmm(const u64 *ahd, const u64 *alb, i64 asl, u64 m, u64 K, const u64 *rse,
                   const u32 *Rg, const u32 *XTg, const u32 *XMg, u32 *part) {
    extern __shared__ __align__(16) u32 smem[];
    constexpr int RWORDS = RS ? ST * BL_ME * BL_MRE : BL_MKS * BL_MRE;
    u32 *Rs = smem;
    u32 *XTs = Rs + RWORDS;
    u32 *XMs = XTs + (BL_MKS / 4) * BL_MNV;
    u32 *As = XMs + BL_MKS;
    u64 *Hs = (u64 *)(As + ST * BL_MROWS * BL_MASTR);
    const int t = threadIdx.x, lane = t & 31, wid = t >> 5;
    const int gid = lane >> 2, tig = lane & 3;
    const u64 row0 = (u64)blockIdx.x * BL_MROWS;
    const u64 k0 = (u64)blockIdx.y * BL_MKS;
    {
        if (!RS) {
            const uint4 *src = (const uint4 *)(Rg + k0 * BL_MRE);
            uint4 *dst = (uint4 *)Rs;
            for (int i = t; i < BL_MKS * BL_MRE / 4; i += 32 * BL_MWARPS) dst[i] = src[i];
        }
        const uint4 *s2 = (const uint4 *)(XTg + (k0 / 4) * BL_MNV);
        uint4 *d2 = (uint4 *)XTs;
        for (int i = t; i < (BL_MKS / 4) * BL_MNV / 4; i += 32 * BL_MWARPS) d2[i] = s2[i];
        for (int i = t; i < BL_MKS; i += 32 * BL_MWARPS) XMs[i] = XMg[k0 + i];
    }
    auto issue = [&](int s) {
        const int buf = s % ST;
        const u64 kg = k0 + (u64)s * BL_ME;
        u32 *dA = As + buf * BL_MROWS * BL_MASTR;
#pragma unroll
        for (int c = t; c < BL_MROWS * BL_ME * 4; c += 32 * BL_MWARPS) {
            const int r = c / (BL_ME * 4), q = c % (BL_ME * 4);
            const u64 row = row0 + r < m ? row0 + r : m - 1;
            const u64 kk = kg + q / 4;
            const bool ok = kk < K;
            const u32 *src = ok ? (const u32 *)alb + (row * asl + kk) * 16 + (q & 3) * 4
                                : (const u32 *)alb;
            bl_cp16z(dA + r * BL_MASTR + q * 4, src, ok);
        }
        u64 *dH = Hs + buf * BL_MROWS * BL_ME;
#pragma unroll
        for (int c = t; c < BL_MROWS * BL_ME; c += 32 * BL_MWARPS) {
            const int r = c / BL_ME, q = c % BL_ME;
            const u64 row = row0 + r < m ? row0 + r : m - 1;
            const u64 kk = kg + q;
            const bool ok = kk < K;
            bl_cp8z(dH + r * BL_ME + q, ok ? ahd + row * asl + kk : ahd, ok);
        }
        if (RS) {
            // x's forms of the stage's elements (padded to Kp: always there).
            u32 *dR = Rs + buf * BL_ME * BL_MRE;
            const u32 *sR = Rg + kg * BL_MRE;
            for (int c = t; c < BL_ME * BL_MRE / 4; c += 32 * BL_MWARPS)
                bl_cp16z(dR + 4 * c, sR + 4 * c, true);
        }
    };
    constexpr int NS = BL_MKS / BL_ME;
#pragma unroll
    for (int s = 0; s < ST - 1; s++) {
        issue(s);
        bl_async_commit();
    }
    u32 H[10][4], N[9][4];
#pragma unroll
    for (int j = 0; j < 10; j++)
#pragma unroll
        for (int i = 0; i < 4; i++) H[j][i] = 0;
#pragma unroll
    for (int j = 0; j < 9; j++)
#pragma unroll
        for (int i = 0; i < 4; i++) N[j][i] = 0;
    u32 nm0 = 0, nm1 = 0, c0 = 0, c1 = 0;
    const int qb = BL_MRP - BL_MD0 - gid + 4 * tig;
    const int cs = qb & 3, wb = qb >> 2;
    const int r0 = wid * 16 + gid, r1 = r0 + 8;
    const u64 g0 = row0 + r0 < m ? row0 + r0 : m - 1, g1 = row0 + r1 < m ? row0 + r1 : m - 1;
    const i64 rs0 = bl_esc(rse[2 * g0]), rs1 = bl_esc(rse[2 * g1]);
    for (int s = 0; s < NS; s++) {
        bl_cp_wait<ST - 2>();
        __syncthreads();
        if (s + ST - 1 < NS) issue(s + ST - 1);
        bl_async_commit();
        const int buf = s % ST;
        const u32 *sA = As + buf * BL_MROWS * BL_MASTR;
        const u64 *sH = Hs + buf * BL_MROWS * BL_ME;
#pragma unroll
        for (int el = 0; el < BL_ME; el++) {
            const int e = s * BL_ME + el;
            const u32 xm = XMs[e];
            const u32 sx = xm & 1u;
            const int zx = (int)(xm >> 1) - BL_ZB;
            u32 a0[5], a1[5], n0, n1;
            const int z0 = bl_mconv(sH[r0 * BL_ME + el], rs0, sA + r0 * BL_MASTR + el * 16, sx, tig, a0, n0);
            const int z1 = bl_mconv(sH[r1 * BL_ME + el], rs1, sA + r1 * BL_MASTR + el * 16, sx, tig, a1, n1);
            c0 += (z0 + zx < BL_NF - 1) ? 1u : 0u;
            c1 += (z1 + zx < BL_NF - 1) ? 1u : 0u;
            nm0 |= n0 << (e & 15);
            nm1 |= n1 << (e & 15);
            const u32 *p = (RS ? Rs + (buf * BL_ME + el) * BL_MRE : Rs + e * BL_MRE) + cs * BL_MRW + wb;
#pragma unroll
            for (int j = 0; j < 5; j++) bl_mma32(H[j], a0[0], a1[0], a0[1], a1[1], p[-2 * j], p[4 - 2 * j]);
#pragma unroll
            for (int j = 0; j < 9; j++) bl_mma32(H[j], a0[2], a1[2], a0[3], a1[3], p[8 - 2 * j], p[12 - 2 * j]);
#pragma unroll
            for (int j = 0; j < 10; j++) bl_mma16(H[j], a0[4], a1[4], p[16 - 2 * j]);
            if ((e & 15) == 15) {
                const u32 b0 = bl_spread4((nm0 >> (4 * tig)) & 15u);
                const u32 b1 = bl_spread4((nm1 >> (4 * tig)) & 15u);
                const u32 *xt = XTs + ((e - 15) / 4 + tig) * BL_MNV + gid;
#pragma unroll
                for (int j = 0; j < 9; j++) bl_mma16(N[j], b0, b1, xt[8 * j]);
                nm0 = nm1 = 0;
            }
        }
    }
    bl_cp_wait<0>();
    // The slice's signed sum per row: the columns through shared memory
    // (each warp its own 16 x 152 words), then lane r < 16 folds row r.
    __syncthreads();
    const u32 cv0 = __shfl_sync(0xffffffffu, c0, 4 * (lane & 7));
    const u32 cv1 = __shfl_sync(0xffffffffu, c1, 4 * (lane & 7));
    u32 *cw = (RS ? As : smem) + wid * 16 * (BL_MND + BL_MNV);
    constexpr int CW = BL_MND + BL_MNV;
#pragma unroll
    for (int j = 0; j < 10; j++) {
        cw[gid * CW + 8 * j + 2 * tig] = H[j][0];
        cw[gid * CW + 8 * j + 2 * tig + 1] = H[j][1];
        cw[(gid + 8) * CW + 8 * j + 2 * tig] = H[j][2];
        cw[(gid + 8) * CW + 8 * j + 2 * tig + 1] = H[j][3];
    }
#pragma unroll
    for (int j = 0; j < 9; j++) {
        cw[gid * CW + BL_MND + 8 * j + 2 * tig] = N[j][0];
        cw[gid * CW + BL_MND + 8 * j + 2 * tig + 1] = N[j][1];
        cw[(gid + 8) * CW + BL_MND + 8 * j + 2 * tig] = N[j][2];
        cw[(gid + 8) * CW + BL_MND + 8 * j + 2 * tig + 1] = N[j][3];
    }
    __syncwarp();
    const u64 row = row0 + wid * 16 + lane;
    if (lane < 16 && row < m) {
        const u32 *c = cw + lane * CW;
        long long low = 0;
        for (int v = 0; v < BL_MD0; v++) low += (long long)c[BL_MND + v];
        long long cy = low;
        u32 *so = part + ((u64)blockIdx.y * m + row) * BL_MPART;
#pragma unroll 1
        for (int w = 0; w < BL_NW; w++) {
            long long v = cy;
#pragma unroll
            for (int b = 0; b < 4; b++) {
                const int q = 4 * w + b;
                long long x = q < BL_MND ? (long long)c[q] : 0;
                if (q < 4) x += (long long)c[BL_MND + BL_MD0 + q];
                if (q >= 4 && q - 4 < BL_MNV) x -= (long long)c[BL_MND + q - 4];
                v += x * (1ll << (8 * b));
            }
            so[w] = (u32)v;
            cy = v >> 32;
        }
        so[BL_NW] = lane < 8 ? cv0 : cv1;
    }
}

extern "C" __global__ void __launch_bounds__(32 * BL_MWARPS, 1)
    blas_gmm(const u64 *ahd, const u64 *alb, i64 asl, u64 m, u64 K, const u64 *rse,
             const u32 *Rg, const u32 *XTg, const u32 *XMg, u32 *part) {
    bl_gmm<BL_MST, false>(ahd, alb, asl, m, K, rse, Rg, XTg, XMg, part);
}

// x's copies streamed with A through 5 stages (more of A in flight).
extern "C" __global__ void __launch_bounds__(32 * BL_MWARPS, 1)
    blas_gmm5(const u64 *ahd, const u64 *alb, i64 asl, u64 m, u64 K, const u64 *rse,
              const u32 *Rg, const u32 *XTg, const u32 *XMg, u32 *part) {
    bl_gmm<5, true>(ahd, alb, asl, m, K, rse, Rg, XTg, XMg, part);
}

// ---- gemv's warp epilogue (blas_gmf; MPARRAY_BLAS_GVEPI=0: bl_gv_epi) ----
// bl_gv_epi's values with a limb per lane: every multiword step of
// bl_epilogue (the exact products alpha |S| and beta c, the two
// placements into the window, the negations, L = M - 2^e2 and H = M +
// 2^e2, the comparison, the normalisation) as a few instructions per lane,
// carries by ballots (a lane's carry in from the generate and propagate
// masks G, P: ((G | P) + G) ^ P), the rounding too (fl_round_mant's steps);
// only fl_finish and an exact zero's sign (bl_zero_neg) stay on lane 0. The same exact integers, so the same
// decisions and roundings as bl_epilogue. The steps used more than once are
// out of line: the epilogue runs once per warp, so its time follows the
// code it fetches more than the instructions it executes.
#define BL_WFULL 0xffffffffu

// The carry (borrow) into this lane from each lane's generate g and
// propagate p (disjoint; lanes past the value: both false).
FL_DEV u32 bl_w_cin(bool g, bool p, u32 lane) {
    const u32 G = __ballot_sync(BL_WFULL, g), P = __ballot_sync(BL_WFULL, p);
    return ((((G | P) + G) ^ P) >> lane) & 1u;
}

// a + b (a limb per lane; lanes from n on: zeros in, ignored out).
FL_NOINL u64 bl_w_add(u64 a, u64 b, u32 lane, u32 n) {
    const u64 t = a + b;
    const bool in = lane < n;
    return t + bl_w_cin(in && t < a, in && t == ~0ull, lane);
}

// a - b, and the borrow out of limb n - 1 (into bo, every lane).
FL_NOINL u64 bl_w_sub(u64 a, u64 b, u32 lane, u32 n, bool &bo) {
    const u64 t = a - b;
    const bool in = lane < n;
    const bool g = in && a < b, p = in && t == 0;
    const u32 G = __ballot_sync(BL_WFULL, g), P = __ballot_sync(BL_WFULL, p);
    const u32 B = ((G | P) + G) ^ P;
    const u32 top = 1u << (n - 1);
    bo = (G & top) != 0 || ((P & top) != 0 && (B & top) != 0);
    return t - ((B >> lane) & 1u);
}

// -x on n limbs (two's complement).
FL_DEV u64 bl_w_neg(u64 x, u32 lane, u32 n) { return bl_w_add(~x, lane == 0 ? 1 : 0, lane, n); }

// Bits of the n-limb magnitude (0 for 0).
FL_NOINL i64 bl_w_bitlen(u64 x, u32 lane, u32 n) {
    const u32 nz = __ballot_sync(BL_WFULL, lane < n && x != 0);
    const int top = nz ? 31 - __clz((int)nz) : 0;
    const u64 v = __shfl_sync(BL_WFULL, x, top);
    return nz ? 64 * (i64)top + bl_bitlen64(v) : 0;
}

// Limb j (this lane) of the exact product of a (la limbs in memory, the
// same for every lane) and b (lb limbs, limb j in lane j, zeros above):
// la + lb limbs. Column sums of the 128-bit partial products (lo parts in
// column i + j, hi parts in column i + j + 1) in 96 bits, then the carries.
FL_NOINL u64 bl_w_mul(const u64 *a, u32 la, u64 b, u32 lane) {
    u64 lo = 0, hl = 0;
    u32 lc = 0, hc = 0;
#pragma unroll 1
    for (u32 i = 0; i < la; i++) {
        const u64 ai = a[i];
        const u64 bs = __shfl_up_sync(BL_WFULL, b, i);
        const u64 bj = lane >= i ? bs : 0;
        const u64 pl = ai * bj, ph = fl_mulhi(ai, bj);
        lo += pl;
        lc += lo < pl;
        hl += ph;
        hc += hl < ph;
    }
    // Column j = lo + 2^64 lc + (hl + 2^64 hc of column j - 1).
    const u64 hp = __shfl_up_sync(BL_WFULL, hl, 1);
    const u32 hcp = __shfl_up_sync(BL_WFULL, hc, 1);
    const u64 hp0 = lane ? hp : 0;
    const u32 hcp0 = lane ? hcp : 0;
    u64 t = lo + hp0;
    u32 hi = lc + hcp0 + (t < hp0); // < 2^32: at most 2 la + 1
    // t + 2^64 hi: hi goes to the next limb, then one carry chain.
    const u32 hin = __shfl_up_sync(BL_WFULL, hi, 1);
    const u64 hin0 = lane ? hin : 0;
    const u64 t2 = t + hin0;
    return t2 + bl_w_cin(t2 < hin0, t2 == ~0ull, lane);
}

// bl_place: buf += (neg ? -1 : 1) trunc(src 2^sh) on wb limbs (src: ls
// limbs, limb s in lane s); returns whether bits were cut off below.
FL_NOINL u64 bl_w_place(u64 buf, u32 wb, u64 src, u32 ls, i64 sh, bool neg, u32 lane, bool &cut) {
    const i64 d = -sh;
    const bool in = d < 64 * (i64)ls && d > -64 * (i64)wb;
    const int q = in ? (int)(d >> 6) : 0;
    const u32 r = (u32)(d & 63);
    const int x0 = q + (int)lane, x1 = x0 + 1;
    const u64 s0 = __shfl_sync(BL_WFULL, src, x0 & 31), s1 = __shfl_sync(BL_WFULL, src, x1 & 31);
    const u64 lo = in && x0 >= 0 && x0 < (int)ls ? s0 : 0;
    const u64 hi = in && x1 >= 0 && x1 < (int)ls ? s1 : 0;
    const u64 tmp = lane < wb ? (r ? (lo >> r) | (hi << (64 - r)) : lo) : 0;
    // bl_bits_any(src, ls, d): d >= 64 ls counts as true (src is nonzero).
    bool below = false;
    if (d > 0) {
        const u64 m = (u64)lane * 64 + 64 <= (u64)d ? ~0ull
                      : (u64)lane * 64 < (u64)d ? (1ull << (d & 63)) - 1
                                                : 0;
        below = __ballot_sync(BL_WFULL, lane < ls && (src & m) != 0) != 0 || d >= 64 * (i64)ls;
    }
    cut = below;
    bool bo;
    return neg ? bl_w_sub(buf, tmp, lane, wb, bo) : bl_w_add(buf, tmp, lane, wb);
}

// The normalised window (top bit of limb wb - 1 set) of the wb-limb
// magnitude x of bl bits: x << (64 wb - bl), a limb per lane.
FL_NOINL u64 bl_w_norm(u64 x, u32 wb, i64 bl, u32 lane) {
    const u32 lz = (u32)(64 * wb - bl), q = lz >> 6, r = lz & 63;
    const int i0 = (int)lane - (int)q, i1 = i0 - 1;
    const u64 a = __shfl_sync(BL_WFULL, x, i0 & 31), b = __shfl_sync(BL_WFULL, x, i1 & 31);
    const u64 va = i0 >= 0 ? a : 0, vb = i1 >= 0 ? b : 0;
    return r ? (va << r) | (vb >> (64 - r)) : va;
}

// fl_round_to(o, neg, e, src, WB, sticky, p, rnd) with src (WB limbs, the
// top bit of limb WB - 1 set) a limb per lane: fl_round_mant's kept limbs,
// round bit, sticky bit and increment by the lanes (the increment's carry
// by ballots), then fl_finish by lane 0. Returns the ternary (lane 0).
FL_NOINL i8 bl_w_round(FlOut &o, bool neg, i64 e, u64 x, u32 wb, bool sticky, u64 p, u32 rnd,
                       u32 lane) {
    const u32 n = o.n, nb = wb - n;
    const u32 low = (u32)(64ull * n - p);
    const u64 top = __shfl_sync(BL_WFULL, x, nb - 1);
    const bool under = __ballot_sync(BL_WFULL, lane + 1 < nb && x != 0) != 0;
    const u64 m0 = __shfl_sync(BL_WFULL, x, nb);
    bool rb, st;
    u64 mask = 0;
    if (low > 0) {
        mask = (1ull << low) - 1;
        rb = (m0 >> (low - 1)) & 1;
        st = (m0 & (mask >> 1)) != 0 || sticky || top != 0 || under;
    } else {
        rb = top >> 63;
        st = (top << 1) != 0 || sticky || under;
    }
    const bool inexact = rb || st;
    bool inc;
    switch (rnd) {
    case FL_RN: inc = rb && (st || ((m0 >> low) & 1)); break;
    case FL_RZ: inc = false; break;
    case FL_RU: inc = inexact && !neg; break;
    case FL_RD: inc = inexact && neg; break;
    default: inc = inexact; break;
    }
    const bool kept = lane >= nb && lane < wb;
    u64 v = lane == nb ? x & ~mask : x;
    bool carry = false;
    if (inc) {
        const u64 c = lane == nb ? 1ull << low : 0;
        const u64 t = v + c;
        const bool g = kept && t < v, pp = kept && t == ~0ull;
        const u32 G = __ballot_sync(BL_WFULL, g), P = __ballot_sync(BL_WFULL, pp);
        const u32 C = ((G | P) + G) ^ P;
        v = t + ((C >> lane) & 1u);
        carry = ((C >> wb) & 1u) != 0;
        if (carry && lane == wb - 1) v = 1ull << 63;
    }
    if (kept) o.m[lane - nb] = v;
    __syncwarp();
    i8 t = 0;
    if (lane == 0) {
        const i8 tt = inexact ? fl_ternary(inc, neg) : 0;
        t = fl_finish(o, neg, e + (carry ? 1 : 0), tt, inc, p, rnd);
    }
    return t;
}

// bl_epilogue by the whole warp (acc, cnt valid in lane 0; the arguments
// the same in every lane); o's limbs by the lanes, its head and tern by
// lane 0 (rl0: the rounding too, by fl_round_to). Returns bl_epilogue's
// status in every lane.
template <int NF>
FL_DEV u32 bl_w_epilogue(FlOut &o, i8 &tern, const u32 *acc, u32 cnt, i64 ea, i64 eb, u64 ah,
                         const u64 *am, u32 la, bool has_c, u64 bh, const u64 *bm, u32 lb, u64 ch,
                         const u64 *cm, u32 lc, u64 p, u32 rnd, bool rl0) {
    const u32 lane = threadIdx.x & 31;
    const u32 NWL = NF / 2 + 1, WB = 2 * (NF / 2 + 2) + 2;
    cnt = __shfl_sync(BL_WFULL, cnt, 0);
    u64 mag = 0;
#pragma unroll
    for (int w = 0; w < NF + 2; w++) {
        const u64 v = __shfl_sync(BL_WFULL, acc[w], 0);
        if (lane == (u32)(w / 2)) mag |= v << (32 * (w & 1));
    }
    const bool aneg = (__shfl_sync(BL_WFULL, mag, NWL - 1) >> 63) != 0;
    if (aneg) mag = bl_w_neg(mag, lane, NWL);
    if (lane >= NWL) mag = 0;
    const bool alpha_on = (fl_tag(ah) & 3) == FL_NORMAL;
    const i64 NOTOP = -((i64)1 << 62);
    const u32 lx = la + NWL;
    const i64 ux = ea + eb - 32 * (i64)NF - 32 + fl_exp(ah) - 64 * (i64)la;
    i64 topx = NOTOP, ex = NOTOP;
    const bool xneg = aneg != ((fl_tag(ah) & FL_NEG) != 0);
    u64 X = 0;
    if (alpha_on) {
        X = bl_w_mul(am, la, mag, lane);
        if (lane >= lx) X = 0;
        const i64 bx = bl_w_bitlen(X, lane, lx);
        if (bx) topx = ux + bx;
        if (cnt) ex = ux + bl_bitlen64(cnt) + 33 + bl_bitlen64(NF) + 64 * (i64)la;
    }
    const u32 ly = lb + lc;
    i64 uy = 0, topy = NOTOP;
    bool yneg = false, y_on = false;
    u64 Y = 0;
    if (has_c && (fl_tag(bh) & 3) == FL_NORMAL && (fl_tag(ch) & 3) == FL_NORMAL) {
        y_on = true;
        const u64 cl = lane < lc ? cm[lane] : 0;
        Y = bl_w_mul(bm, lb, cl, lane);
        if (lane >= ly) Y = 0;
        uy = fl_exp(bh) - 64 * (i64)lb + fl_exp(ch) - 64 * (i64)lc;
        topy = uy + bl_w_bitlen(Y, lane, ly);
        yneg = ((fl_tag(bh) ^ fl_tag(ch)) & FL_NEG) != 0;
    }
    i64 top = topx > topy ? topx : topy;
    if (ex > top) top = ex;
    if (top == NOTOP) return 2;
    const i64 hi = top + 2, lo = hi - 64 * (i64)WB;
    u64 buf = 0;
    bool cut = false, c1;
    if (topx != NOTOP) {
        buf = bl_w_place(buf, WB, X, lx, ux - lo, xneg, lane, c1);
        cut |= c1;
    }
    if (y_on) {
        buf = bl_w_place(buf, WB, Y, ly, uy - lo, yneg, lane, c1);
        cut |= c1;
    }
    const bool neg = (__shfl_sync(BL_WFULL, buf, WB - 1) >> 63) != 0;
    if (neg) buf = bl_w_neg(buf, lane, WB);
    if (lane >= WB) buf = 0;
    i64 e2 = -1;
    if (ex != NOTOP) {
        e2 = ex - lo + 1;
        if (e2 < 2) e2 = 2;
    } else if (cut) {
        e2 = 1;
    }
    bool sticky = false;
    i64 bl;
    if (e2 < 0) {
        bl = bl_w_bitlen(buf, lane, WB);
        if (bl == 0) return 2;
    } else {
        const u64 t = lane == (u32)(e2 >> 6) ? 1ull << (e2 & 63) : 0;
        bool bo;
        const u64 L = bl_w_sub(buf, t, lane, WB, bo);
        if (bo) return 1; // M < 2^e2
        u64 H = bl_w_add(buf, t, lane, WB);
        if (lane >= WB) H = 0;
        bl = bl_w_bitlen(L, lane, WB);
        if (bl == 0 || bl != bl_w_bitlen(H, lane, WB)) return 1;
        const i64 s = bl - (i64)p - 1;
        if (s < 0) return 1;
        u64 dd = L ^ H;
        if (lane < (u32)(s >> 6) || lane >= WB) dd = 0;
        if (lane == (u32)(s >> 6)) dd &= ~((1ull << (s & 63)) - 1);
        if (__ballot_sync(BL_WFULL, dd != 0)) return 1;
        buf = L;
        sticky = true;
    }
    const u64 nb = bl_w_norm(buf, WB, bl, lane);
    if (rl0) {
        // fl_round_to by lane 0 (measurements: the lanes' rounding's
        // alternative).
        __shared__ u64 sb[32];
        if (lane < WB) sb[lane] = nb;
        __syncwarp();
        if (lane == 0) tern = fl_round_to(o, neg, lo + bl, sb, WB, sticky, p, rnd);
        return 0;
    }
    const i8 t = bl_w_round(o, neg, lo + bl, lane < WB ? nb : 0, WB, sticky, p, rnd, lane);
    if (lane == 0) tern = t;
    return 0;
}

// bl_gv_epi by the whole warp (bl_w_epilogue): the status in every lane,
// o and tern by lane 0.
FL_DEV u32 bl_gv_wepi(FlOut &o, i8 &tern, const u32 *acc, u32 cnt, bool special, i64 ea, i64 eb,
                      u64 a0, const u64 *alm, u32 lal, bool has_c, u64 bh, const u64 *bem,
                      u32 lbe, u64 ch, const u64 *cm, u32 lc, const u64 *ah, const u64 *xh, u64 K,
                      u64 p, u32 rnd, bool rl0) {
    const bool sp = special || (fl_tag(a0) & 3) >= FL_INF ||
                    (has_c && ((fl_tag(bh) & 3) >= FL_INF || (fl_tag(ch) & 3) >= FL_INF));
    tern = 0;
    if (sp) return 1;
    u32 r = bl_w_epilogue<BL_NF>(o, tern, acc, cnt, ea, eb, a0, alm, lal, has_c, bh, bem, lbe, ch,
                                 cm, lc, p, rnd, rl0);
    if (r == 2) {
        if ((threadIdx.x & 31) == 0)
            fl_special(o, FL_ZERO, bl_zero_neg(a0, ah, 1, xh, 1, K, has_c, bh, ch, rnd));
        tern = 0;
        r = 0;
    }
    return r;
}

// Row i = blockIdx.x (a warp): the slices' sums and counts, then
// blas_gemv's epilogue (bl_gv_epi) by lane 0: y_i, its ternary and its
// flag (hdr[2] grows for an undecided row; bl_gv_done: the status word
// hst). The epilogue by the whole warp (bl_gv_wepi), or with dbg bit 2 by
// lane 0 (bl_gv_epi); the same bits. dbg bit 3: the warp's checked against
// bl_gv_epi (a line on stdout per row where they differ), bit 4: the
// warp's with fl_round_to by lane 0, bit 1: without the epilogue (wrong
// results); measurements only.
extern "C" __global__ void __launch_bounds__(32)
    blas_gmf(const u32 *part, u64 nsl, u64 m, const u64 *rse, const u64 *ahd, i64 asl,
             const u64 *xhd, u64 K, u64 *hdr, const u64 *alh, const u64 *alm, u32 lal,
             const u64 *beh, const u64 *bem, u32 lbe, u32 has_c, const u64 *chd,
             const u64 *clb, u32 lc, u64 p, u32 rnd, u64 *rh, u64 *rl, u32 rn, i8 *tern,
             u8 *und, u32 dbg, u32 *hst, u32 seq) {
    const u64 i = blockIdx.x;
    const u32 lane = threadIdx.x;
    u32 acc[BL_NW];
#pragma unroll
    for (int w = 0; w < BL_NW; w++) acc[w] = 0;
    u32 cnt = 0;
    for (u64 s = lane; s < nsl; s += 32) {
        const u32 *q = part + (s * m + i) * BL_MPART;
        u32 x[BL_NW];
#pragma unroll
        for (int w = 0; w < BL_NW; w++) x[w] = __ldcg(q + w);
        bl_acc_add(acc, x, BL_NW);
        cnt += __ldcg(q + BL_NW);
    }
    for (int off = 16; off > 0; off >>= 1) bl_shfl_add(acc, cnt, off);
    const u64 xe = __ldcg(hdr), xs = __ldcg(hdr + 1);
    const bool special = rse[2 * i + 1] != 0 || xs != 0;
    const i64 ea = bl_esc(rse[2 * i]), eb = bl_esc(xe);
    const u64 a0 = alh[0], bh = has_c ? beh[0] : 0, ch = has_c ? chd[i] : 0;
    FlOut out = {rl + i * rn, rn, 0};
    i8 tt = 0;
    if (!(dbg & 6u)) {
        u32 r = bl_gv_wepi(out, tt, acc, cnt, special, ea, eb, a0, alm, lal, has_c != 0, bh, bem,
                           lbe, ch, clb + i * lc, lc, ahd + i * asl, xhd, K, p, rnd,
                           (dbg & 16u) != 0);
        if (lane != 0) return;
        if (dbg & 8u) {
            u64 l2[BL_LMAX];
            FlOut o2 = {l2, rn, 0};
            i8 t2 = 0;
            const u32 r2 =
                bl_gv_epi<BL_NF>(o2, t2, acc, cnt, special, ea, eb, a0, alm, lal, has_c != 0, bh,
                                 bem, lbe, ch, clb + i * lc, lc, ahd + i * asl, xhd, K, p, rnd);
            bool same = r2 == r && (r != 0 || (o2.head == out.head && t2 == tt));
            for (u32 w = 0; same && r == 0 && w < rn && (fl_tag(o2.head) & 3) == FL_NORMAL; w++)
                same = l2[w] == out.m[w];
            if (!same)
                printf("blas_gmf: row %llu: the warp epilogue differs (r %u/%u, head %llx/%llx, "
                       "tern %d/%d)\n",
                       (unsigned long long)i, r, r2, (unsigned long long)out.head,
                       (unsigned long long)o2.head, (int)tt, (int)t2);
        }
        if (r) fl_special(out, FL_ZERO, false);
        rh[i] = out.head;
        tern[i] = tt;
        und[i] = (u8)r;
        bl_gv_done(hdr, r, m, hst, seq);
        return;
    }
    if (lane != 0) return;
    if (dbg & 2u) {
        // Without the epilogue (measurements only; wrong results).
        fl_special(out, FL_ZERO, (acc[0] ^ cnt) & 1);
        rh[i] = out.head;
        tern[i] = 0;
        und[i] = 0;
        bl_gv_done(hdr, 0, m, hst, seq);
        return;
    }
    const u32 r = bl_gv_epi<BL_NF>(out, tt, acc, cnt, special, ea, eb, a0, alm, lal, has_c != 0,
                                   bh, bem, lbe, ch, clb + i * lc, lc, ahd + i * asl, xhd, K, p,
                                   rnd);
    if (r) fl_special(out, FL_ZERO, false);
    rh[i] = out.head;
    tern[i] = tt;
    und[i] = (u8)r;
    bl_gv_done(hdr, r, m, hst, seq);
}
#endif

#endif
