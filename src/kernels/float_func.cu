// Correctly rounded exp, log, sin, cos, atan on float arrays (issue 5): a
// thread per element evaluates the function in fixed point with FF_K limbs
// (F = 64 FF_K - 4 fraction bits, so values below 16 fit), with a proven
// error bound E (comments per function; the derivations follow
// src/float/func/core.rs), and rounds the interval (C - E, C + E) exactly as
// the CPU's round_interval: both ends must round alike (mantissa, exponent
// and direction) with at least p + 2 bits in the smaller one. Elements whose
// rounding is uncertain are flagged "undecided" (FF_UNDECIDED below): the
// host (src/float/func/cuda.rs) gathers them and re-runs them at larger
// tiers on the device; the cases this code leaves to the host (huge
// arguments, reductions near multiples of pi/2 that need a longer pi, input
// precisions beyond the tier) are flagged "host" and re-evaluated on the CPU
// engine. Constants (ln 2, pi/2, tables of atan and log at 2^-10 steps)
// come from the host at this tier's width. Series (exp, sin, cos) by
// Paterson-Stockmeyer (ff_ps): few full products on an element's critical
// path, which is what a batch of 4096 (one warp per SM) waits for.
//
// Plain C++ on 64-bit limbs like float_common.cuh: tests/emu/funcgpu runs the
// same code on the host against the CPU engine.
#ifdef __CUDACC__
#include "common.cuh"
#endif
#include "float_common.cuh"

#ifndef FF_K
#define FF_K 9
#endif

// FF_ONLY (a -D define, a family's first function code): the module
// evaluates only that family (exp and exp2, sin and cos, log2 and log10,
// sinh and cosh, asin and acos share one value core; every other function
// is its own family) and holds only the kernel that dispatches it, so a
// first use compiles one function instead of all (NVRTC time, notes/
// kernels.md). Every function core is __noinline__: a family's module runs
// the same device code per element as the module of all of them.
#ifdef FF_ONLY
#define FF_HAS(fam) (FF_ONLY == (fam))
#else
#define FF_HAS(fam) 1
#endif

// Timing hooks (scripts/func_probe.cu records clock64 there).
#ifndef FF_PROBE
#define FF_PROBE(i)
#endif

#ifdef __CUDACC__
#define FF_MEMBER_NOINL __device__ __noinline__
#else
#define FF_MEMBER_NOINL
#endif

// Flag protocol (src/float/func/cuda.rs). ff_eval returns 0 when it wrote
// the element (o.head, o.m, t), nonzero when not. A nonzero return with
// o.head == FF_UNDECIDED (left by a failed ff_round / ff_round_c, the
// rounding test) is "undecided": the host re-runs the element at the next
// larger tier on the device. Any other nonzero return (o.head untouched) is
// a host case, evaluated by the CPU engine. ff_store applies it.
#define FF_UNDECIDED (~0ull)

// Function codes (src/float/func/cuda.rs).
#define FF_EXP 0u
#define FF_LOG 1u
#define FF_SIN 2u
#define FF_COS 3u
#define FF_ATAN 4u
#define FF_EXP2 5u
// float_func_explog.cuh's functions.
#define FF_LOG2 6u
#define FF_LOG10 7u
#define FF_LOG1P 8u
#define FF_EXPM1 9u
#define FF_SINH 10u
#define FF_COSH 11u
#define FF_TANH 12u
#define FF_ASINH 13u
#define FF_ACOSH 14u
#define FF_ATANH 15u
#define FF_ASIN 16u
#define FF_ACOS 17u
#define FF_CBRT 18u

// Tables at steps of 2^-FF_TM: atan(j 2^-10), j = 0..1024, and |log(j
// 2^-10)|, j = FF_LJ0..FF_LJ1 (the reduced log argument is in [0.707, 1.415)).
#define FF_TM 10
#define FF_AT_N 1025u
#define FF_LJ0 724u
#define FF_LJ1 1448u

// Layout of the constants (K = FF_K): ln 2 at F+64 bits (K+1 limbs), pi/2
// at F+128 bits (K+2), pi/2 at F bits (K), the atan table, the log table.
FL_DEV const u64 *ff_ln2(const u64 *cs) { return cs; }
FL_DEV const u64 *ff_pi2r(const u64 *cs, u32 K) { return cs + K + 1; }
FL_DEV const u64 *ff_pi2(const u64 *cs, u32 K) { return cs + 2 * K + 3; }
FL_DEV const u64 *ff_atab(const u64 *cs, u32 K, u32 j) { return cs + 3 * K + 3 + j * K; }
FL_DEV const u64 *ff_ltab(const u64 *cs, u32 K, u32 j) {
    return cs + 3 * K + 3 + FF_AT_N * K + (j - FF_LJ0) * K;
}
// sin(j 2^-10) and cos(j 2^-10), j = 0..1024.
FL_DEV const u64 *ff_stab(const u64 *cs, u32 K, u32 j) {
    return cs + 3 * K + 3 + (FF_AT_N + FF_LJ1 - FF_LJ0 + 1) * K + j * K;
}
FL_DEV const u64 *ff_ctab(const u64 *cs, u32 K, u32 j) {
    return ff_stab(cs, K, j) + FF_AT_N * K;
}
// Then the preinverses (fl_invert) of d << clz(d) for d < FF_INV_N: the
// series divide every term by a small integer, and one fl_invert (two
// 64-bit divisions) per term cost as much as the division itself.
#define FF_INV_N (1u << 17)
FL_DEV const u64 *ff_invtab(const u64 *cs, u32 K) { return ff_ctab(cs, K, FF_AT_N); }
// Then exp(j 2^-10), j = -FF_EXP_J..FF_EXP_J.
#define FF_EXP_J 360
FL_DEV const u64 *ff_etab(const u64 *cs, u32 K, int j) {
    return ff_invtab(cs, K) + FF_INV_N + (u32)(j + FF_EXP_J) * K;
}

// ---- limb helpers (little-endian, unsigned) ----

FL_DEV void ff_zero(u64 *a, u32 l) {
    for (u32 i = 0; i < l; i++) a[i] = 0;
}
FL_DEV void ff_copy(u64 *r, const u64 *a, u32 l) {
    for (u32 i = 0; i < l; i++) r[i] = a[i];
}
FL_DEV bool ff_is0(const u64 *a, u32 l) { return !fl_any(a, l); }

// a += b (both l limbs); returns the carry.
FL_DEV u64 ff_add(u64 *a, const u64 *b, u32 l) {
    u64 c = 0;
    for (u32 i = 0; i < l; i++) {
        u64 s = a[i] + b[i];
        u64 c1 = s < b[i];
        u64 t = s + c;
        c = c1 | (t < s);
        a[i] = t;
    }
    return c;
}
// a -= b; returns the borrow.
FL_DEV u64 ff_sub(u64 *a, const u64 *b, u32 l) {
    u64 br = 0;
    for (u32 i = 0; i < l; i++) {
        u64 x = a[i], y = b[i];
        u64 d = x - y;
        u64 b1 = x < y;
        u64 r = d - br;
        br = b1 | (d < br);
        a[i] = r;
    }
    return br;
}
// a += v.
FL_DEV void ff_add1(u64 *a, u32 l, u64 v) {
    for (u32 i = 0; i < l && v; i++) {
        u64 s = a[i] + v;
        v = s < v;
        a[i] = s;
    }
}
// a -= v (a >= v).
FL_DEV void ff_sub1(u64 *a, u32 l, u64 v) {
    for (u32 i = 0; i < l && v; i++) {
        u64 x = a[i];
        a[i] = x - v;
        v = x < v;
    }
}
FL_DEV int ff_cmp(const u64 *a, const u64 *b, u32 l) {
    for (u32 i = l; i-- > 0;)
        if (a[i] != b[i]) return a[i] < b[i] ? -1 : 1;
    return 0;
}
// r = |a - b| (l limbs, r distinct from both); returns a < b.
FL_DEV bool ff_absdiff(u64 *r, const u64 *a, const u64 *b, u32 l) {
    bool lt = ff_cmp(a, b, l) < 0;
    if (lt) {
        ff_copy(r, b, l);
        ff_sub(r, a, l);
    } else {
        ff_copy(r, a, l);
        ff_sub(r, b, l);
    }
    return lt;
}
// Significant bits.
FL_DEV u32 ff_bits(const u64 *a, u32 l) {
    for (u32 i = l; i-- > 0;)
        if (a[i]) return 64 * i + 64 - fl_clz(a[i]);
    return 0;
}
// r (rl limbs) = floor(a * 2^sh) mod 2^(64 rl) for a shift of either sign
// (a: al limbs). r must not alias a.
FL_DEV void ff_shift(u64 *r, u32 rl, const u64 *a, u32 al, i64 sh) {
    for (u32 i = 0; i < rl; i++) {
        i64 o = 64 * (i64)i - sh;  // bit offset in a of r's limb i
        i64 q = o >> 6;
        u32 b = (u32)(o & 63);
        u64 lo = (q >= 0 && q < (i64)al) ? a[q] : 0;
        u64 hi = (q + 1 >= 0 && q + 1 < (i64)al) ? a[q + 1] : 0;
        r[i] = b ? (lo >> b) | (hi << (64 - b)) : lo;
    }
}
// r (rl limbs) = a (al limbs) * v.
FL_DEV void ff_mul1(u64 *r, u32 rl, const u64 *a, u32 al, u64 v) {
    u64 c = 0;
    for (u32 i = 0; i < rl; i++) {
        u64 x = i < al ? a[i] : 0;
        u64 lo = x * v, hi = fl_mulhi(x, v);
        lo += c;
        hi += lo < c;
        r[i] = lo;
        c = hi;
    }
}
// r (rl limbs) += a (al < rl limbs) * v; the sum must fit.
FL_DEV void ff_addmul1(u64 *r, u32 rl, const u64 *a, u32 al, u64 v) {
    u64 c = 0;
    for (u32 i = 0; i < al; i++) {
        u64 lo = a[i] * v, hi = fl_mulhi(a[i], v);
        lo += c;
        hi += lo < c;
        u64 s = r[i] + lo;
        hi += s < lo;
        r[i] = s;
        c = hi;
    }
    for (u32 i = al; i < rl && c; i++) {
        u64 s = r[i] + c;
        c = s < c;
        r[i] = s;
    }
}
// a = floor(a / d), d > 0 (one limb), by a preinverted 2-by-1 division.
FL_NOINL void ff_divs(u64 *a, u32 l, u64 d, const u64 *inv) {
    u32 lz = fl_clz(d);
    u64 dn = d << lz, di = d < FF_INV_N ? inv[d] : fl_invert(dn), r = 0;
    // The dividend shifted by lz: limb i is (a[i] << lz) | (a[i-1] >> (64-lz)).
    if (lz) {
        u64 top = a[l - 1] >> (64 - lz);
        r = top;  // top < dn since d < 2^(64-lz)
    }
    for (u32 i = l; i-- > 0;) {
        u64 u = lz ? (a[i] << lz) | (i ? a[i - 1] >> (64 - lz) : 0) : a[i];
        a[i] = fl_div21_pre(r, u, dn, di, r);
    }
}

// Signed magnitudes: (a, an) += (b, bn), l limbs; tmp l limbs.
FL_DEV void ff_sadd(u64 *a, bool &an, const u64 *b, bool bn, u32 l, u64 *tmp) {
    if (an == bn) {
        ff_add(a, b, l);
    } else if (ff_cmp(a, b, l) >= 0) {
        ff_sub(a, b, l);
    } else {
        ff_copy(tmp, b, l);
        ff_sub(tmp, a, l);
        ff_copy(a, tmp, l);
        an = bn;
    }
}

// q (ql limbs) = floor(num / den): num nl limbs, den dl limbs (nonzero);
// the quotient must fit. Knuth D (float_common.cuh) on normalized copies.
// u: nl + 2 limbs, v: dl limbs, qq: nl + 1 limbs of scratch.
FL_NOINL void ff_div(u64 *q, u32 ql, const u64 *num, u32 nl, const u64 *den, u32 dl, u64 *u,
                   u64 *v, u64 *qq) {
    while (den[dl - 1] == 0) dl--;
    u32 lz = fl_clz(den[dl - 1]);
    ff_shift(v, dl, den, dl, lz);
    ff_shift(u, nl + 1, num, nl, lz);
    u[nl + 1] = 0;
    u32 ul = nl + 1;
    if (ul < dl) {
        ff_zero(q, ql);
        return;
    }
    fl_divrem(qq, u, ul, v, dl);
    u32 qn = ul - dl + 1;
    for (u32 i = 0; i < ql; i++) q[i] = i < qn ? qq[i] : 0;
}

// t (2K limbs) = a * b (K limbs each), column by column (Comba): fully
// unrolled in registers up to 12 limbs (the hot spot of every series), with
// run-time loops above (NVRTC time: a 34-limb unrolled product takes a
// minute to compile). Not inlined, so that each tier compiles one copy.
template <int K, bool UNROLL>
struct FfMul;

template <int K>
struct FfMul<K, true> {
    static FF_MEMBER_NOINL void run(u64 *t, const u64 *a, const u64 *b) {
        u64 x[K], y[K];
#pragma unroll
        for (int i = 0; i < K; i++) {
            x[i] = a[i];
            y[i] = b[i];
        }
        // Two accumulators per column (even and odd i): two independent
        // carry chains, half the latency (a batch of 4096 is latency-bound).
        u64 c0 = 0, c1 = 0, c2 = 0;
#pragma unroll
        for (int k = 0; k < 2 * K - 1; k++) {
            u64 d0 = 0, d1 = 0, d2 = 0;
#pragma unroll
            for (int i = 0; i < K; i++) {
                const int j = k - i;
                if (j >= 0 && j < K) {
                    if (i & 1) fl_mac<false>(d0, d1, d2, x[i], y[j]);
                    else fl_mac<false>(c0, c1, c2, x[i], y[j]);
                }
            }
            c0 += d0;
            d1 += c0 < d0;
            d2 += d1 < (c0 < d0 ? 1ull : 0ull);
            c1 += d1;
            c2 += d2 + (c1 < d1);
            t[k] = c0;
            c0 = c1;
            c1 = c2;
            c2 = 0;
        }
        t[2 * K - 1] = c0;
    }
};

template <int K>
struct FfMul<K, false> {
    static FF_MEMBER_NOINL void run(u64 *t, const u64 *a, const u64 *b) {
        u64 c0 = 0, c1 = 0, c2 = 0;
        for (int k = 0; k < 2 * K - 1; k++) {
            int i0 = k < K ? 0 : k - K + 1, i1 = k < K ? k : K - 1;
#pragma unroll 4
            for (int i = i0; i <= i1; i++) fl_mac<false>(c0, c1, c2, a[i], b[k - i]);
            t[k] = c0;
            c0 = c1;
            c1 = c2;
            c2 = 0;
        }
        t[2 * K - 1] = c0;
    }
};

template <int K>
FL_DEV void ff_mul_full(u64 *t, const u64 *a, const u64 *b) {
    FfMul<K, (K <= 12)>::run(t, a, b);
}

// r (K limbs) = floor(a * b / 2^sh) (a, b: K limbs); t: 2K limbs.
template <int K>
FL_DEV void ff_mulsh(u64 *r, const u64 *a, const u64 *b, i64 sh, u64 *t) {
    ff_mul_full<K>(t, a, b);
    ff_shift(r, K, t, 2 * K, -sh);
}

// t (la+lb limbs) = a * b, out of line (one copy per tier).
FL_NOINL void ff_mul_var(u64 *t, const u64 *a, u32 la, const u64 *b, u32 lb) {
    fl_mul_exact(t, a, la, b, lb);
}

// ff_mulsh over the significant limbs only (run-time lengths), the same
// value: a series' terms shrink, so at the tiers whose products are
// run-time loops anyway (K > 12) their products cost about half on average.
template <int K>
FL_DEV void ff_mulsh_v(u64 *r, const u64 *a, const u64 *b, i64 sh, u64 *t) {
    if (K <= 12) {
        ff_mulsh<K>(r, a, b, sh, t);
        return;
    }
    u32 la = K, lb = K;
    while (la > 0 && a[la - 1] == 0) la--;
    while (lb > 0 && b[lb - 1] == 0) lb--;
    ff_zero(t, 2 * K);
    if (la && lb) ff_mul_var(t, a, la, b, lb);
    ff_shift(r, K, t, 2 * K, -sh);
}

// ---- series by Paterson-Stockmeyer (rectangular splitting) ----
//
// S = sum_{j >= 0} (+-1)^j z^j / G(j), G(j) = g(1) ... g(j), with g(l) = l
// (kind 0: exp), (2l-1) 2l (kind 1: cos, z = d^2) or 2l (2l+1) (kind 2:
// sin(d)/d), signs alternating for kinds 1 and 2; z < 2^-10. In blocks of m
// terms, H_k = sum_{j >= km} (+-z)^(j-km) G(km)/G(j) satisfies
//   H_k = [sum_{i<m} (+-1)^i a_{k,i} z^i + (+-1)^m z^m H_{k+1}] / Q_k,
//   a_{k,i} = g(km+i+1) ... g(km+m), Q_k = a_{k,0} (integers < 2^62),
// and S = H_0: m-1 products for the powers z^2..z^m, one product per block
// (Horner in z^m), small-integer multiples and one division per block,
// instead of a product and a division per term.
//
// Error, in units 2^-F: the powers P_i are below z^i 2^F by eps_i (P_0 = 2^F
// exact, eps_i < 1.01 for i >= 1: eps_i <= z eps_{i-1} + eps_1 + 1); the
// computed H_k differs from the exact one by
//   |delta_k| <= [sum_{i>=1} a_{k,i} eps_i + 1 + eps_m |H_{k+1}| 2^-F
//                + z^m |delta_{k+1}|] / Q_k + 1
// (the floors of the block product and of the division); for k = 0,
// a_{0,i} / Q_0 = 1/G(i), whose sums over i >= 1 are e - 1 = 1.7183, cosh 1
// - 1 = 0.5431, sinh 1 - 1 = 0.1753, and Q_0 = G(m) >= 2, 24, 120 (m >= 2),
// |H| <= 1/(1 - z) < 1.001, so
// |delta_0| < 1.01 * 1.7183 + 2.03 / 2 + 1 + tiny < 3.76 (exp), < 1.01 *
// 0.5431 + 2.03 / 24 + 1 + tiny < 1.64 (cos), < 1.27 (sin/d). The terms
// from j = qm on are dropped: n <= qm terms with z^n / G(n) <= 2^-(F+2)
// (ff_ps_terms) leave a tail < 1.002 * 2^-(F+2) < 0.26 units. So the sum
// is within 4.02 units (exp; 3.76 + 0.26) and 1.9 units (cos, sin/d).

#define FF_PS_MMAX 8

FL_DEV u64 ff_ps_g(u32 kind, u64 l) {
    return kind == 0 ? l : kind == 1 ? (2 * l - 1) * (2 * l) : (2 * l) * (2 * l + 1);
}

// The number n of terms with z^n / G(n) <= 2^-(F+2) when z < 2^(zb - F):
// n (F - zb) + sum floor(lg l) over the factors of G(n) >= F + 2 (the floors
// make G smaller, so n is safe).
FL_DEV u32 ff_ps_terms(u32 F, u32 zb, u32 kind) {
    u64 acc = 0;
    u32 n = 0, l = 0, per = kind == 0 ? 1 : 2;
    while (acc < (u64)F + 2 && n < 4096) {
        n++;
        acc += F - zb;
        for (u32 r = 0; r < per; r++) {
            l++;
            acc += 63 - fl_clz((u64)l);
        }
    }
    return n;
}

// Block length m >= 2 (the bound above needs it) for n terms of `series`
// series sharing the powers: about the fewest products (m - 1 + series
// (ceil(n/m) - 1)), with every Q_k < 2^62 (the largest is the last
// block's; (2n + 5)^4 < 2^62 for m = 2).
FL_DEV u32 ff_ps_m(u32 n, u32 kind, u32 series) {
    u32 best = 2, bc = 0xffffffffu;
    for (u32 m = 2; m <= FF_PS_MMAX; m++) {
        u32 q = (n + m - 1) / m;
        double qk = 1.0;
        for (u32 i = 1; i <= m; i++) qk *= (double)ff_ps_g(kind, (u64)(q - 1) * m + i);
        if (qk >= 4.0e18) break;
        u32 c = 2 * (m - 1 + series * (q - 1)) + series * q;  // divisions count half
        if (c < bc) {
            bc = c;
            best = m;
        }
    }
    return best;
}

// H = S from the powers P[i K..] ~ z^i 2^F, i = 0..m (P_0 = 2^F), q blocks.
template <int K>
FL_NOINL void ff_ps(u64 *H, const u64 *P, u32 m, u32 q, u32 kind, const u64 *inv) {
    const u32 F = 64 * K - 4;
    const bool alt = kind != 0;
    u64 Bp[K + 1], Bn[K + 1], tmp[K + 1], T[2 * K];
    ff_zero(H, K);
    for (u32 k = q; k-- > 0;) {
        ff_zero(Bp, K + 1);
        ff_zero(Bn, K + 1);
        u64 a = 1;
        for (u32 i = m; i-- > 0;) {
            a *= ff_ps_g(kind, (u64)k * m + i + 1);
            ff_addmul1(alt && (i & 1) ? Bn : Bp, K + 1, P + i * K, K, a);
        }
        if (k + 1 < q) {
            ff_mulsh<K>(tmp, P + m * K, H, F, T);
            tmp[K] = 0;
            ff_add(alt && (m & 1) ? Bn : Bp, tmp, K + 1);
        }
        // Bp >= Bn: the exact difference is Q_k H_k >= 0.99 Q_k 2^F.
        ff_sub(Bp, Bn, K + 1);
        ff_divs(Bp, K + 1, a, inv);
        ff_copy(H, Bp, K);
    }
}

// P[i K..] = floor(P_{i-1} P_1 / 2^F), i = 2..m; P_0 = 2^F.
template <int K>
FL_NOINL void ff_ps_powers(u64 *P, u32 m) {
    const u32 F = 64 * K - 4;
    u64 T[2 * K];
    ff_zero(P, K);
    P[K - 1] = 1ull << 60;
    for (u32 i = 2; i <= m; i++) ff_mulsh<K>(P + i * K, P + (i - 1) * K, P + K, F, T);
}

// ---- rounding of an interval (src/float/func/mod.rs round_interval) ----

// The value lies strictly inside (lo, hi) * 2^s (magnitudes of l <= K+2
// limbs, sign neg): rounds both representatives lo + 0 and (hi - 1) + 0
// (sticky) to p bits and accepts when they agree; writes o and t.
// A failed test leaves o.head = FF_UNDECIDED: the kernel then retries the
// element at a larger tier (more guard bits) instead of the host.
template <int K>
FL_NOINL bool ff_round(FlOut &o, i8 &t, const u64 *lo, const u64 *hi, u32 l, i64 s, bool neg,
                     u64 p, u32 rnd) {
    u64 a[K + 2], b[K + 2], m2[K + 1];
    o.head = FF_UNDECIDED;
    if (ff_cmp(lo, hi, l) >= 0) return false;
    ff_copy(b, hi, l);
    ff_sub1(b, l, 1);
    u32 ba = ff_bits(lo, l), bb = ff_bits(b, l);
    if (ba < p + 2) return false;
    u32 la = (ba + 63) / 64, lb = (bb + 63) / 64;
    ff_shift(a, la, lo, l, 64 * la - ba);
    u64 c[K + 2];
    ff_shift(c, lb, b, l, 64 * lb - bb);
    bool ix1, in1, c1, ix2, in2, c2;
    fl_round_mant(o.m, o.n, p, a, la, true, neg, rnd, ix1, in1, c1);
    fl_round_mant(m2, o.n, p, c, lb, true, neg, rnd, ix2, in2, c2);
    i64 e1 = s + ba + (c1 ? 1 : 0), e2 = s + bb + (c2 ? 1 : 0);
    if (e1 != e2 || in1 != in2 || ff_cmp(o.m, m2, o.n) != 0) return false;
    t = fl_finish(o, neg, e1, fl_ternary(in1, neg), in1, p, rnd);
    return true;
}

// (c - e, c + e) * 2^s.
template <int K>
FL_DEV bool ff_round_c(FlOut &o, i8 &t, const u64 *c, u32 l, u64 e, i64 s, bool neg, u64 p,
                       u32 rnd) {
    u64 lo[K + 2], hi[K + 2];
    ff_copy(lo, c, l);
    ff_copy(hi, c, l);
    if (ff_bits(c, l) <= 64 && c[0] <= e) {
        o.head = FF_UNDECIDED;
        return false;
    }
    ff_sub1(lo, l, e);
    ff_add1(hi, l, e);
    return ff_round<K>(o, t, lo, hi, l, s, neg, p, rnd);
}

// The special operands shared by most functions (MPFR's tables): NaN (and
// Inf when inf_nan) give NaN, a zero gives the zero of x's sign. True when
// o is written.
FL_DEV bool ff_nan_zero(FlOut &o, u32 cls, bool neg, bool inf_nan) {
    if (cls == FL_NAN || (inf_nan && cls == FL_INF)) {
        fl_special(o, FL_NAN, false);
        return true;
    }
    if (cls == FL_ZERO) {
        fl_special(o, FL_ZERO, neg);
        return true;
    }
    return false;
}

// The log family's (log, log2, log10): NaN for NaN and x < 0, -Inf at 0,
// +Inf at +Inf. True when o is written.
FL_DEV bool ff_log_special(FlOut &o, u32 cls, bool neg) {
    if (cls == FL_NAN || (neg && cls != FL_ZERO)) {
        fl_special(o, FL_NAN, false);
        return true;
    }
    if (cls != FL_NORMAL) {
        fl_special(o, FL_INF, cls == FL_ZERO);
        return true;
    }
    return false;
}

// An exact value 2^e1 * 1/2 (one): mantissa 1000..., ternary 0 (finish
// applies the range as write_exact does).
FL_DEV i8 ff_write_pow2(FlOut &o, bool neg, i64 e, u64 p, u32 rnd) {
    for (u32 i = 0; i < o.n; i++) o.m[i] = 0;
    o.m[o.n - 1] = 1ull << 63;
    return fl_finish(o, neg, e, 0, false, p, rnd);
}

// near_one: (1 - 2^-L, 1) or (1, 1 + 2^-L), L = p + 2, with sign neg.
template <int K>
FL_DEV bool ff_near_one(FlOut &o, i8 &t, bool above, bool neg, u64 p, u32 rnd) {
    u64 lo[K], hi[K];
    u32 L = (u32)p + 2;
    ff_zero(lo, K);
    lo[L / 64] = 1ull << (L % 64);
    ff_copy(hi, lo, K);
    if (above) ff_add1(hi, K, 1);
    else ff_sub1(lo, K, 1);
    return ff_round<K>(o, t, lo, hi, K, -(i64)L, neg, p, rnd);
}

// x moved by less than one unit 2^(ex-L) toward zero or away from it, L =
// max(p+3, bits of x) (MPFR's fast paths, ia.rs's beside), rounded: the
// interval (x - 1, x) or (x, x + 1) in units 2^(ex-L).
template <int K>
FL_DEV bool ff_beside(FlOut &o, i8 &t, i64 ex, bool neg, const u64 *xm, u32 nx, u64 L, u64 p,
                      u32 rnd, bool away) {
    u64 lo[K], hi[K];
    ff_shift(lo, K, xm, nx, (i64)L - 64 * (i64)nx);
    ff_copy(hi, lo, K);
    if (away) ff_add1(hi, K, 1);
    else ff_sub1(lo, K, 1);
    return ff_round<K>(o, t, lo, hi, K, ex - (i64)L, neg, p, rnd);
}

// tiny_odd: x minus (sin, atan) an infinitesimal below one unit 2^(ex-L),
// L = max(p+3, bits of x), when 2 ex <= -L; returns 0 when not that small,
// 1 decided, 2 undecided.
template <int K>
FL_DEV int ff_tiny_odd(FlOut &o, i8 &t, i64 ex, bool neg, const u64 *xm, u32 nx, u64 p,
                       u32 rnd) {
    u64 L = p + 3 > 64ull * nx ? p + 3 : 64ull * nx;
    if (2 * ex > -(i64)L) return 0;
    return ff_beside<K>(o, t, ex, neg, xm, nx, L, p, rnd, false) ? 1 : 2;
}

// ---- exp ----

template <int K>
FL_NOINL int ff_exp_tail(FlOut &o, i8 &t, const u64 *R, bool rneg, i64 k, u64 p, u32 rnd,
                         const u64 *cs);

// exp2, x not an integer, 2^-(p+3) <= |x| < 2^30: x = k + f, k = round(|x|)
// (signed as x), |f| <= 1/2 exact at F+64 bits; R = |f| ln2 2^F from ln2
// at F+64 bits (< 1 + 2^-60 units off), then exp's tail: 2^x = exp(f ln2) 2^k.
template <int K>
FL_NOINL int ff_exp2_red(FlOut &o, i8 &t, bool neg, i64 ex, const u64 *xm, u32 nx, u64 p,
                         u32 rnd, const u64 *cs) {
    const u32 F = 64 * K - 4;
    u64 X[K + 2], KF[K + 2], P[2 * K + 4], R[K];
    ff_shift(X, K + 2, xm, nx, (i64)F + 64 + ex - 64 * (i64)nx);
    // kk = floor(|x| + 1/2).
    ff_copy(KF, X, K + 2);
    {
        u64 half[K + 2], one[1] = {1};
        ff_shift(half, K + 2, one, 1, (i64)F + 63);
        ff_add(KF, half, K + 2);
    }
    u64 kk[1];
    ff_shift(kk, 1, KF, K + 2, -((i64)F + 64));
    ff_shift(KF, K + 2, kk, 1, (i64)F + 64);
    bool fneg = ff_cmp(X, KF, K + 2) < 0;
    if (fneg) {
        ff_sub(KF, X, K + 2);
        ff_copy(X, KF, K + 2);
    } else {
        ff_sub(X, KF, K + 2);
    }
    // |f| < 2^(F+63): K+1 limbs; times ln2 (K+1 limbs), down F+128 bits.
    fl_mul_exact(P, X, K + 1, ff_ln2(cs), K + 1);
    ff_shift(R, K, P, 2 * K + 2, -((i64)F + 128));
    i64 k = neg ? -(i64)kk[0] : (i64)kk[0];
    return ff_exp_tail<K>(o, t, R, fneg != neg, k, p, rnd, cs);
}

// exp's reduction of x = +-0.xm 2^ex (ex <= 30): x = k ln2 + r, k =
// round(x / ln2) from a double (|r| < 0.35); R (K limbs) = |r| 2^F with
// error < 2 units: X = x 2^(F+64) (exact or floored), ln2 at F+64 bits (< 2
// units there, times |k| < 2^32), the difference shifted down 64 bits.
// Returns r's sign. (ff_exp and float_func_explog.cuh's ffx_exp_val.)
template <int K>
FL_DEV bool ff_exp_reduce(bool neg, i64 ex, const u64 *xm, u32 nx, const u64 *cs, u64 *R,
                          i64 &k) {
    const u32 F = 64 * K - 4;
    double xd = (double)xm[nx - 1] * ldexp(1.0, (int)ex - 64);
    k = (i64)llround(xd / 0.69314718055994530942);
    if (neg) k = -k;
    u64 X[K + 2], KL[K + 2];
    ff_shift(X, K + 2, xm, nx, (i64)F + 64 + ex - 64 * (i64)nx);
    u64 ak = (u64)(k < 0 ? -k : k);
    ff_mul1(KL, K + 2, ff_ln2(cs), K + 1, ak);
    // r = x - k ln2 in magnitude and sign.
    bool kneg = k < 0;
    bool rneg;
    if (neg == kneg) {
        // |x| - |k| ln2 with sign of x.
        if (ff_cmp(X, KL, K + 2) >= 0) {
            ff_sub(X, KL, K + 2);
            rneg = neg;
        } else {
            ff_sub(KL, X, K + 2);
            ff_copy(X, KL, K + 2);
            rneg = !neg;
        }
    } else {
        // k = 0 is the only case with opposite signs (k rounds x / ln2).
        rneg = neg;
    }
    ff_shift(R, K, X, K + 2, -64);
    return rneg;
}

// x = k ln2 + r (ff_exp_reduce: R = |r| 2^F, < 2 units), then exp's tail.
template <int K>
FL_NOINL int ff_exp(FlOut &o, i8 &t, u32 cls, bool neg, i64 ex, const u64 *xm, u32 nx, u64 p,
                  u32 rnd, const u64 *cs, bool two) {
    if (cls == FL_NAN) {
        fl_special(o, FL_NAN, false);
        return 0;
    }
    if (cls == FL_INF) {
        fl_special(o, neg ? FL_ZERO : FL_INF, false);
        return 0;
    }
    if (cls == FL_ZERO) {
        t = ff_write_pow2(o, false, 1, p, rnd);
        return 0;
    }
    if (ex > 30) return 1;  // overflow/underflow or a long reduction: host
    if (two) {
        // An integer x: 2^x exactly (then the range check, as core.rs).
        i64 sx = ex - 64 * (i64)nx;
        u32 tz = 0;
        while (tz < 64 * nx && !((xm[tz / 64] >> (tz % 64)) & 1)) tz++;
        if (sx + (i64)tz >= 0) {
            u64 v = ex > 0 ? xm[nx - 1] >> (64 - ex) : 0;
            i64 k = neg ? -(i64)v : (i64)v;
            t = ff_write_pow2(o, false, k + 1, p, rnd);
            return 0;
        }
    }
    if (ex <= -(i64)(p + 3)) return ff_near_one<K>(o, t, !neg, false, p, rnd) ? 0 : 1;
    if (two) return ff_exp2_red<K>(o, t, neg, ex, xm, nx, p, rnd, cs);
    u64 R[K];
    i64 k;
    bool rneg = ff_exp_reduce<K>(neg, ex, xm, nx, cs, R, k);
    return ff_exp_tail<K>(o, t, R, rneg, k, p, rnd, cs);
}

// exp(r) 2^k from R = |r| 2^F (< 2 units off, |r| < 0.352) and r's sign.
// The table: r = c + d, c = jc 2^-10 = floor(r 2^10) 2^-10, so 0 <= d <
// 2^-10 (D = d 2^F exact from R) and exp(r) = exp(c) exp(d); exp(d) by
// ff_ps (all terms positive; within 4.02 units, no squarings). Then V =
// floor(exp(c) exp(d)): exp(c) from the table (< 2 units off, below
// exp(0.3516) = 1.4214): |V - exp(c + d) 2^F| < 1.4214 * 4.02 + 2 * 1.001
// + 1 < 8.72; R's error moves exp(r) by < 1.4214 * 2 * 1.0001 < 2.85
// units: E = 16 > 11.57.
template <int K>
FL_NOINL int ff_exp_tail(FlOut &o, i8 &t, const u64 *R, bool rneg, i64 k, u64 p, u32 rnd,
                         const u64 *cs) {
    const u32 F = 64 * K - 4;
    u64 T[2 * K], P[(FF_PS_MMAX + 1) * K];
    u64 *D = P + K;
    // ja = floor(R / 2^(F-10)) = R[K-1] >> 50 (F - 10 = 64 (K-1) + 50).
    u32 ja = (u32)(R[K - 1] >> (F - FF_TM - 64 * (K - 1)));
    {
        u64 C[K], jj[1] = {(u64)ja};
        ff_shift(C, K, jj, 1, (i64)F - FF_TM);
        ff_copy(D, R, K);
        ff_sub(D, C, K);
        if (rneg && !ff_is0(D, K)) {
            // r < 0: c = -(ja + 1) 2^-10, d = c' - |r| in (0, 2^-10).
            ja++;
            jj[0] = ja;
            ff_shift(C, K, jj, 1, (i64)F - FF_TM);
            ff_sub(C, R, K);
            ff_copy(D, C, K);
        }
    }
    if (ja > FF_EXP_J) return 1;
    FF_PROBE(0);
    u32 n = ff_ps_terms(F, ff_bits(D, K), 0);
    u32 m = ff_ps_m(n, 0, 1);
    ff_ps_powers<K>(P, m);
    FF_PROBE(1);
    u64 y[K], v[K];
    ff_ps<K>(y, P, m, (n + m - 1) / m, 0, ff_invtab(cs, K));
    FF_PROBE(2);
    int jc = rneg ? -(int)ja : (int)ja;
    ff_mulsh<K>(v, ff_etab(cs, K, jc), y, F, T);
    FF_PROBE(3);
    int ok = ff_round_c<K>(o, t, v, K, 16, k - (i64)F, false, p, rnd) ? 0 : 1;
    FF_PROBE(4);
    return ok;
}

// ---- log ----

// log of x = 0.xm 2^ex (nm <= K limbs, top bit set), the core of ff_log
// below, of the explog functions (float_func_explog.cuh), of pow's log|x|
// (float_func_trig.cuh) and of the complex ones: value in
// (R - E, R + E) 2^-S, sign rneg, R of K+1 limbs. Near 1 (e1 = 0, c = 1)
// the scaled series value (S = F + cz, E = 4N + 8) when scaled_ok, else
// shifted to units 2^-F (one more unit); otherwise e1 ln2 + log c + series
// in units 2^-F (S = F, E = 4N + 16), as ff_log's bounds.
template <int K>
FL_NOINL void ffx_log_val(const u64 *xm, u32 nm, i64 ex, const u64 *cs, bool scaled_ok, u64 *R,
                          bool &rneg, i64 &S, u64 &E) {
    const u32 F = 64 * K - 4;
    u64 top = xm[nm - 1];
    u32 dbl = top < 0xB504F333F9DE6484ull ? 1 : 0;
    i64 e1 = ex - dbl;
    u32 j = (u32)(((top >> (53 - dbl)) + 1) >> 1);
    // Units 2^-(64 nm): Y = M 2^dbl, C = j 2^(64nm - 10).
    u64 Y[K + 1], C[K + 1], Num[K + 1], Den[K + 1];
    ff_shift(Y, nm + 1, xm, nm, dbl);
    ff_zero(C, nm + 1);
    u64 jj[1] = {(u64)j};
    ff_shift(C, nm + 1, jj, 1, 64 * (i64)nm - FF_TM);
    ff_copy(Den, Y, nm + 1);
    ff_add(Den, C, nm + 1);
    bool zneg = ff_absdiff(Num, Y, C, nm + 1);
    u64 V[K], T[2 * K];
    u32 N = 0;
    i64 cz = 0;
    if (ff_is0(Num, nm + 1)) {
        ff_zero(V, K);
    } else {
        u32 bn = ff_bits(Num, nm + 1);
        cz = 64 * (i64)nm - bn;
        // Z = |Num| 2^(F + cz) / Den (< 1 unit): numerator of F + 64 nm bits.
        u64 U[2 * K + 2], u[2 * K + 4], v[K + 1], qq[2 * K + 3], Z[K], z2[K], a[K], pw[K],
            tmp[K];
        u32 nl = K + nm;
        ff_shift(U, nl, Num, nm + 1, (i64)F + cz);
        FF_PROBE(20);
        ff_div(Z, K, U, nl, Den, nm + 1, u, v, qq);
        FF_PROBE(21);
        ff_mulsh<K>(z2, Z, Z, (i64)F + 2 * cz, T);
        ff_zero(a, K);
        a[K - 1] = 1ull << 60;
        ff_copy(pw, a, K);
        for (u32 i = 1;; i++) {
            ff_mulsh_v<K>(tmp, pw, z2, F, T);
            if (ff_is0(tmp, K)) break;
            ff_copy(pw, tmp, K);
            ff_divs(tmp, K, 2 * i + 1, ff_invtab(cs, K));
            ff_add(a, tmp, K);
            N++;
        }
        FF_PROBE(22);
        ff_mulsh<K>(V, Z, a, (i64)F - 1, T);
    }
    u64 Ev = 4 * (u64)N + 8;
    if (e1 == 0 && j == 1024) {
        rneg = zneg;
        if (scaled_ok) {
            ff_copy(R, V, K);
            R[K] = 0;
            S = (i64)F + cz;
            E = Ev;
        } else {
            // V 2^-(F+cz) floored to units 2^-F: < Ev + 1 units.
            ff_shift(R, K + 1, V, K, -cz);
            S = F;
            E = Ev + 1;
        }
        return;
    }
    // Absolute: acc (K+1 limbs) = e1 ln2 + log c + (+-V >> cz).
    u64 b[K + 1], tmp2[K + 2], w[K + 2];
    bool an = e1 < 0;
    ff_mul1(w, K + 2, ff_ln2(cs), K + 1, (u64)(e1 < 0 ? -e1 : e1));
    ff_shift(R, K + 1, w, K + 2, -64);
    ff_zero(b, K + 1);
    ff_copy(b, ff_ltab(cs, K, j), K);
    ff_sadd(R, an, b, j < 1024, K + 1, tmp2);
    ff_shift(b, K + 1, V, K, -cz);
    ff_sadd(R, an, b, zneg, K + 1, tmp2);
    rneg = an;
    S = F;
    E = Ev + 8;
}

// x = y' 2^e1, y' in [0.707, 1.415), c = j 2^-10 the nearest table point,
// z = (y' - c) / (y' + c) scaled (Z = |z| 2^(F+cz), one division of exact
// integers: < 1 unit), log y' = log c + 2 atanh z; the series as the CPU's
// (`4N + 8` units of 2^-(F+cz)). With e1 = 0 and c = 1 the result is that
// scaled value; otherwise e1 ln2 (< 2 units) + log c (< 2) + the series
// shifted down (< its bound + 1) in units of 2^-F: E = 4N + 16 (ffx_log_val).
template <int K>
FL_NOINL int ff_log(FlOut &o, i8 &t, u32 cls, bool neg, i64 ex, const u64 *xm, u32 nx, u64 p,
                  u32 rnd, const u64 *cs) {
    if (ff_log_special(o, cls, neg)) return 0;
    if (nx + 2 > K) return 1;
    if (ex == 1 && xm[nx - 1] == (1ull << 63) && !fl_any(xm, nx - 1)) {
        fl_special(o, FL_ZERO, false);
        return 0;
    }
    u64 R[K + 1];
    bool rneg;
    i64 S;
    u64 E;
    ffx_log_val<K>(xm, nx, ex, cs, true, R, rneg, S, E);
    return ff_round_c<K>(o, t, R, K + 1, E, -S, rneg, p, rnd) ? 0 : 1;
}

// ---- sin, cos ----

// The table split of |r| = Z 2^-(F+c) (ff_trig, float_func_trig.cuh's
// ff_sc_both): for c <= 10, R = Z >> c and j = the nearest table point
// j 2^-10, D = |R - j 2^(F-10)| (sign dneg), cc = 0; when j = 0 (or c >
// 10), D = Z with cc = c (d kept scaled). Returns j.
template <int K>
FL_DEV u32 ff_tr_split(u64 *D, bool &dneg, i64 &cc, const u64 *Z, i64 c) {
    const u32 F = 64 * K - 4;
    u32 j = 0;
    dneg = false;
    cc = c;
    if (c <= FF_TM) {
        u64 R[K], C[K];
        ff_shift(R, K, Z, K, -c);
        j = (u32)(((R[K - 1] >> (F - 11 - 64 * (K - 1))) + 1) >> 1);
        if (j > 0) {
            u64 jj[1] = {(u64)j};
            ff_shift(C, K, jj, 1, (i64)F - FF_TM);
            dneg = ff_absdiff(D, R, C, K);
            cc = 0;
        }
    }
    if (j == 0) ff_copy(D, Z, K);
    return j;
}

// |r| = Z 2^-(F+c) (Z < 2 units off, Z < 2^F). For |r| >= 2^-11 or so (c
// <= 10, j > 0): R = Z >> c (< 3 units of 2^-F), c_j = j 2^-10 the nearest
// table point, d = |r| - c_j exact from R, |d| <= 2^-11, D = |d| 2^F. For j
// = 0: D = Z, d kept scaled. ff_ps gives cos d (A_c) and sin(d)/d (A_s)
// from the powers of z = d^2 < 2^-20, each within 1.9 units of 2^-F.
// j = 0: cos within 1.9 + (Z's error: < |d| 4 2^-(F+c), tiny) -> E = 12;
// sin d = D A_s 2^-F (D < 2^F): < 1.9 + 1 (floor) + 2 (Z's error) units of
// 2^-(F+c) -> E = 16. j > 0: sin(c+d) = sin c cos d + cos c sin d, cos(c+d)
// = cos c cos d - sin c sin d with the tables (< 2 units each): < (2 + 1.9
// + 1) + (2 * 2^-10 + 1.001 + 1) + 3 (R's error) < 9.92 units of 2^-F ->
// E = 24; the result is above sin(2^-11), so absolute units cost at most 12
// bits of the margin. The same code for every element of a warp (no
// divergence between small and large arguments).
template <int K>
FL_NOINL int ff_trig(FlOut &o, i8 &t, const u64 *Z, i64 c, bool want_cos, bool neg, u64 p,
                     u32 rnd, const u64 *cs) {
    const u32 F = 64 * K - 4;
    u64 D[K], T[2 * K];
    bool dneg;
    i64 cc;
    u32 j = ff_tr_split<K>(D, dneg, cc, Z, c);
    FF_PROBE(10);
    u64 P[(FF_PS_MMAX + 1) * K], ac[K], as[K];
    ff_mulsh<K>(P + K, D, D, (i64)F + 2 * cc, T);
    u32 n = ff_ps_terms(F, ff_bits(P + K, K), 2);
    u32 m = ff_ps_m(n, 2, 2);
    ff_ps_powers<K>(P, m);
    ff_ps<K>(ac, P, m, (n + m - 1) / m, 1, ff_invtab(cs, K));
    ff_ps<K>(as, P, m, (n + m - 1) / m, 2, ff_invtab(cs, K));
    FF_PROBE(11);
    u64 sd[K], p1[K], p2[K];
    ff_mulsh<K>(sd, D, as, F, T);
    if (j == 0) {
        if (want_cos)
            return ff_round_c<K>(o, t, ac, K, 12, -(i64)F, neg, p, rnd) ? 0 : 1;
        return ff_round_c<K>(o, t, sd, K, 16, -((i64)F + cc), neg, p, rnd) ? 0 : 1;
    }
    const u64 *sc = ff_stab(cs, K, j), *cv = ff_ctab(cs, K, j);
    bool add;
    if (!want_cos) {
        ff_mulsh<K>(p1, sc, ac, F, T);
        ff_mulsh<K>(p2, cv, sd, F, T);
        add = !dneg;
    } else {
        ff_mulsh<K>(p1, cv, ac, F, T);
        ff_mulsh<K>(p2, sc, sd, F, T);
        add = dneg;
    }
    if (add) ff_add(p1, p2, K);
    else ff_sub(p1, p2, K);
    FF_PROBE(12);
    int ok = ff_round_c<K>(o, t, p1, K, 24, -(i64)F, neg, p, rnd) ? 0 : 1;
    FF_PROBE(13);
    return ok;
}

// The reduction of sin and cos (ff_sincos; float_func_trig.cuh's tan and
// sin_cos): |r| = Z 2^-(F+c) (Z < 2 units off), r's sign and the quadrant
// q (of x's sign). Returns 1 for the host (huge arguments, r needing a
// longer pi), else 0.
template <int K>
FL_NOINL int ff_tr_reduce(u64 *Z, i64 &c, bool &rneg, u32 &q, bool neg, i64 ex, const u64 *xm,
                          u32 nx, const u64 *cs) {
    const u32 F = 64 * K - 4;
    if (ex <= 0) {
        ff_shift(Z, K, xm, nx, (i64)F - 64 * (i64)nx);
        c = -ex;
        rneg = neg;
        q = 0;
        return 0;
    }
    const u32 Fr = F + 128;
    const u32 L = K + 3;
    u64 X[K + 3], KP[K + 3];
    ff_shift(X, L, xm, nx, (i64)Fr + ex - 64 * (i64)nx);
    double xd = (double)xm[nx - 1] * ldexp(1.0, (int)ex - 64);
    u64 k = (u64)llround(xd / 1.57079632679489661923);
    ff_mul1(KP, L, ff_pi2r(cs, K), K + 2, k);
    bool rn = ff_cmp(X, KP, L) < 0;
    if (rn) {
        ff_sub(KP, X, L);
        ff_copy(X, KP, L);
    } else {
        ff_sub(X, KP, L);
    }
    u32 b = ff_bits(X, L);
    if (b < F + 48 || b > Fr) return 1;
    ff_shift(Z, K, X, L, -(i64)(b - F));
    c = (i64)Fr - b;
    rneg = rn != neg;
    q = (u32)(k & 3);
    if (neg) q = (4 - q) & 3;
    return 0;
}

// |x| < 1: r = x scaled (Z = M 2^(F - 64nx) exact, c = -ex). Else k =
// round(x / (pi/2)) (from a double: |x| < 2^40), r = X - k pi/2 at Fr = F +
// 128 bits (X exact, pi/2 < 2 units there: error < 2^42 units); r needs
// F + 48 significant bits (else the host, as near multiples of pi/2 the CPU
// extends pi), then Z = |r| >> (b - F) has error < 2 units of 2^-(F+c)
// (ff_tr_reduce). Then ff_trig.
template <int K>
FL_NOINL int ff_sincos(FlOut &o, i8 &t, u32 cls, bool neg, i64 ex, const u64 *xm, u32 nx, u64 p,
                     u32 rnd, const u64 *cs, bool cos) {
    if (cls == FL_NAN || cls == FL_INF) {
        fl_special(o, FL_NAN, false);
        return 0;
    }
    if (cls == FL_ZERO) {
        if (cos) t = ff_write_pow2(o, false, 1, p, rnd);
        else fl_special(o, FL_ZERO, neg);
        return 0;
    }
    // nx + 1 <= K: Z = M 2^(F - 64nx) below is exact (F >= 64 nx), and
    // tiny_odd's L <= 64 K.
    if (nx + 1 > K || ex > 40) return 1;
    if (cos) {
        if (2 * ex <= 1 - (i64)(p + 2)) return ff_near_one<K>(o, t, false, false, p, rnd) ? 0 : 1;
    } else {
        int r = ff_tiny_odd<K>(o, t, ex, neg, xm, nx, p, rnd);
        if (r) return r - 1;
    }
    u64 Z[K];
    i64 c;
    bool rneg;
    u32 q;
    if (ff_tr_reduce<K>(Z, c, rneg, q, neg, ex, xm, nx, cs)) return 1;
    bool use_cos, neg_out;
    if (!cos) {
        use_cos = q & 1;
        neg_out = q >= 2;
    } else {
        use_cos = !(q & 1);
        neg_out = q == 1 || q == 2;
    }
    return ff_trig<K>(o, t, Z, c, use_cos, use_cos ? neg_out : neg_out != rneg, p, rnd, cs);
}

// ---- atan ----

// sum (-1)^j z^2j / (2j+1) in units 2^-F; N terms. (Also atan2's and the
// complex functions', as ff_tr_atan_sum.)
template <int K>
FL_NOINL u32 ff_atan_sum(u64 *a, const u64 *z2, u64 *T, const u64 *cs) {
    const u32 F = 64 * K - 4;
    u64 pw[K], tmp[K];
    ff_zero(a, K);
    a[K - 1] = 1ull << 60;
    ff_copy(pw, a, K);
    u32 N = 0;
    for (u32 j = 1;; j++) {
        ff_mulsh_v<K>(tmp, pw, z2, F, T);
        if (ff_is0(tmp, K)) break;
        ff_copy(pw, tmp, K);
        ff_divs(tmp, K, 2 * j + 1, ff_invtab(cs, K));
        if (j & 1) ff_sub(a, tmp, K);
        else ff_add(a, tmp, K);
        N++;
    }
    return N;
}

// |x| < 2^-10: the scaled series (Z exact: < 3N + 8 units of 2^-(F+c)).
// Else y = |x| (exact) or 1/|x| (one division, < 1 unit of 2^-F), c = j
// 2^-10 the nearest table point, z = (y - c) / (1 + y c) (scaled when y is
// exact, absolute otherwise, where y's error moves z by < 2 units),
// atan y = atan c + atan z, and atan |x| = pi/2 - atan y for |x| >= 1; all
// in units 2^-F with E = 3N + 12 (series, z's error) + 6 (table, pi/2,
// shifts).
template <int K>
FL_NOINL int ff_atan(FlOut &o, i8 &t, u32 cls, bool neg, i64 ex, const u64 *xm, u32 nx, u64 p,
                   u32 rnd, const u64 *cs) {
    if (ff_nan_zero(o, cls, neg, false)) return 0;
    const u32 F = 64 * K - 4;
    if (cls == FL_INF)
        return ff_round_c<K>(o, t, ff_pi2(cs, K), K, 2, -(i64)F, neg, p, rnd) ? 0 : 1;
    if (nx + 2 > K) return 1;
    {
        int r = ff_tiny_odd<K>(o, t, ex, neg, xm, nx, p, rnd);
        if (r) return r - 1;
    }
    u64 T[2 * K], Z[K], z2[K], A[K], V[K];
    if (ex <= -FF_TM) {
        ff_shift(Z, K, xm, nx, (i64)F - 64 * (i64)nx);
        i64 c = -ex;
        ff_mulsh<K>(z2, Z, Z, (i64)F + 2 * c, T);
        u32 N = ff_atan_sum<K>(A, z2, T, cs);
        ff_mulsh<K>(V, Z, A, F, T);
        return ff_round_c<K>(o, t, V, K, 3 * (u64)N + 8, -((i64)F + c), neg, p, rnd) ? 0 : 1;
    }
    u64 u[2 * K + 4], v[K + 2], qq[2 * K + 3];
    u64 Num[K + 1], Den[K + 1], U[2 * K + 2];
    u32 j, dl;
    i64 cz = 0, fx;
    bool inv = ex >= 1, zneg;
    if (!inv) {
        // y = M 2^-fx, fx = 64nx - ex; C = j 2^(fx - 10); Den = 2^(fx+10) + M j.
        fx = 64 * (i64)nx - ex;
        u64 top = xm[nx - 1];
        j = (u32)(((top >> (53 - ex)) + 1) >> 1);
        u64 C[K + 1], jj[1] = {(u64)j};
        ff_shift(C, nx + 1, jj, 1, fx - FF_TM);
        ff_zero(Num, nx + 1);
        ff_copy(Num, xm, nx);
        zneg = ff_cmp(Num, C, nx + 1) < 0;
        if (zneg) {
            ff_sub(C, Num, nx + 1);
            ff_copy(Num, C, nx + 1);
        } else {
            ff_sub(Num, C, nx + 1);
        }
        dl = nx + 1;
        ff_mul1(Den, dl, xm, nx, j);
        u64 one[1] = {1};
        u64 P[K + 1];
        ff_shift(P, dl, one, 1, fx + FF_TM);
        ff_add(Den, P, dl);
    } else {
        // Y = floor(2^(F + 64nx - ex) / M): y = 1/|x| in units 2^-F.
        i64 S = (i64)F + 64 * (i64)nx - ex;
        u64 Y[K + 1];
        if (S < 64 * (i64)nx - 1) {
            ff_zero(Y, K + 1);
        } else {
            u32 nl = (u32)(S / 64) + 1;
            ff_zero(U, nl);
            U[S / 64] = 1ull << (S % 64);
            ff_div(Y, K + 1, U, nl, xm, nx, u, v, qq);
        }
        fx = F;
        j = (u32)(((Y[K - 1] >> (F - 11 - 64 * (K - 1))) + 1) >> 1);
        if (Y[K] != 0) j = 1024;  // cannot happen (y <= 1), kept safe
        u64 C[K + 1], jj[1] = {(u64)j};
        ff_shift(C, K + 1, jj, 1, (i64)F - FF_TM);
        zneg = ff_cmp(Y, C, K + 1) < 0;
        if (zneg) {
            ff_sub(C, Y, K + 1);
            ff_copy(Num, C, K + 1);
        } else {
            ff_copy(Num, Y, K + 1);
            ff_sub(Num, C, K + 1);
        }
        dl = K + 1;
        ff_mul1(Den, dl, Y, K + 1, j);
        u64 one[1] = {1};
        u64 P[K + 1];
        ff_shift(P, dl, one, 1, (i64)F + FF_TM);
        ff_add(Den, P, dl);
    }
    u32 N = 0;
    u32 nlim = inv ? K + 1 : nx + 1;
    if (ff_is0(Num, nlim)) {
        ff_zero(V, K);
    } else {
        if (!inv) {
            u32 bn = ff_bits(Num, nlim);
            cz = fx - (i64)bn;
        }
        // Z = |Num| 2^(10 + F + cz) / Den (units 2^-(F+cz)).
        u32 nl = (u32)((ff_bits(Num, nlim) + 10 + F + cz) / 64) + 1;
        ff_shift(U, nl, Num, nlim, 10 + (i64)F + cz);
        ff_div(Z, K, U, nl, Den, dl, u, v, qq);
        ff_mulsh<K>(z2, Z, Z, (i64)F + 2 * cz, T);
        N = ff_atan_sum<K>(A, z2, T, cs);
        ff_mulsh<K>(V, Z, A, F, T);
    }
    // acc = [pi/2 -] (atan c +- V >> cz), units 2^-F.
    u64 acc[K + 1], b[K + 1], tmp[K + 1];
    bool an = false;
    ff_zero(acc, K + 1);
    ff_copy(acc, ff_atab(cs, K, j), K);
    ff_zero(b, K + 1);
    ff_shift(b, K + 1, V, K, -cz);
    ff_sadd(acc, an, b, zneg, K + 1, tmp);
    if (inv) {
        // pi/2 - acc (acc = atan y <= pi/4 + tiny).
        ff_zero(b, K + 1);
        ff_copy(b, ff_pi2(cs, K), K);
        ff_sadd(b, an, acc, !an, K + 1, tmp);
        ff_copy(acc, b, K + 1);
        an = false;
    }
    return ff_round_c<K>(o, t, acc, K + 1, 3 * (u64)N + 18, -(i64)F, neg, p, rnd) ? 0 : 1;
}

// The flag kind of an element after ff_eval returned st: 0 written, 1 host
// case, 2 undecided (FF_UNDECIDED). `force` (tests only: the kernel's rnd
// argument >> 8) also calls every third written element undecided. Here,
// before the includes: float_func2 (float_func_trig.cuh) uses ff_store too.
FL_DEV u32 ff_kind(int st, u64 head, u32 force, u64 i) {
    if (st == 0) return force && i % 3 == 0 ? 2u : 0u;
    return head == FF_UNDECIDED ? 2u : 1u;
}

#ifdef __CUDACC__
// The common end of a function kernel's element i (of len): a written
// element is stored; a flagged one gets head 0, zero limbs and ternary 0 and
// its index goes to flags: undecided ones from the front (count nflag[0]),
// host cases from the back (flags[len - 1 - j], count nflag[1]).
__device__ __forceinline__ void ff_store(int st, FlOut &o, i8 t, u64 i, u64 len, u32 force,
                                         u64 *rh, i8 *tern, u32 *nflag, u32 *flags) {
    u32 kind = ff_kind(st, o.head, force, i);
    if (kind == 2) {
        flags[atomicAdd(nflag, 1u)] = (u32)i;
    } else if (kind == 1) {
        flags[len - 1 - atomicAdd(nflag + 1, 1u)] = (u32)i;
    }
    if (st) {
        o.head = 0;
        t = 0;
        for (u32 l = 0; l < o.n; l++) o.m[l] = 0;
    }
    rh[i] = o.head;
    tern[i] = t;
}
#endif

// log2 ... cbrt (codes 6..18).
#include "float_func_explog.cuh"
// tan, sin_cos, atan2, hypot, pow, agm (codes from 32).
#include "float_func_trig.cuh"

// One element: 0 written (o.head, t), nonzero flagged (see FF_UNDECIDED).
template <int K>
FL_DEV int ff_eval(u32 fn, FlOut &o, i8 &t, u64 xh, const u64 *xm, u32 nx, u64 p, u32 rnd,
                   const u64 *cs) {
    u32 tag = fl_tag(xh);
    u32 cls = tag & 3;
    bool neg = (tag & FL_NEG) != 0;
    i64 ex = fl_exp(xh);
    t = 0;
    switch (fn) {
#if FF_HAS(0)
    case FF_EXP: return ff_exp<K>(o, t, cls, neg, ex, xm, nx, p, rnd, cs, false);
    case FF_EXP2: return ff_exp<K>(o, t, cls, neg, ex, xm, nx, p, rnd, cs, true);
#endif
#if FF_HAS(1)
    case FF_LOG: return ff_log<K>(o, t, cls, neg, ex, xm, nx, p, rnd, cs);
#endif
#if FF_HAS(2)
    case FF_SIN: return ff_sincos<K>(o, t, cls, neg, ex, xm, nx, p, rnd, cs, false);
    case FF_COS: return ff_sincos<K>(o, t, cls, neg, ex, xm, nx, p, rnd, cs, true);
#endif
#if FF_HAS(4)
    case FF_ATAN: return ff_atan<K>(o, t, cls, neg, ex, xm, nx, p, rnd, cs);
#endif
#if FF_HAS(6)
    case FF_LOG2: return ffx_log_base<K>(o, t, cls, neg, ex, xm, nx, p, rnd, cs, false);
    case FF_LOG10: return ffx_log_base<K>(o, t, cls, neg, ex, xm, nx, p, rnd, cs, true);
#endif
#if FF_HAS(8)
    case FF_LOG1P: return ffx_log1p<K>(o, t, cls, neg, ex, xm, nx, p, rnd, cs);
#endif
#if FF_HAS(9)
    case FF_EXPM1: return ffx_expm1<K>(o, t, cls, neg, ex, xm, nx, p, rnd, cs);
#endif
#if FF_HAS(10)
    case FF_SINH: return ffx_sinhcosh<K>(o, t, cls, neg, ex, xm, nx, p, rnd, cs, false);
    case FF_COSH: return ffx_sinhcosh<K>(o, t, cls, neg, ex, xm, nx, p, rnd, cs, true);
#endif
#if FF_HAS(12)
    case FF_TANH: return ffx_tanh<K>(o, t, cls, neg, ex, xm, nx, p, rnd, cs);
#endif
#if FF_HAS(13)
    case FF_ASINH: return ffx_asinh<K>(o, t, cls, neg, ex, xm, nx, p, rnd, cs);
#endif
#if FF_HAS(14)
    case FF_ACOSH: return ffx_acosh<K>(o, t, cls, neg, ex, xm, nx, p, rnd, cs);
#endif
#if FF_HAS(15)
    case FF_ATANH: return ffx_atanh<K>(o, t, cls, neg, ex, xm, nx, p, rnd, cs);
#endif
#if FF_HAS(16)
    case FF_ASIN: return ffx_asincos<K>(o, t, cls, neg, ex, xm, nx, p, rnd, cs, false);
    case FF_ACOS: return ffx_asincos<K>(o, t, cls, neg, ex, xm, nx, p, rnd, cs, true);
#endif
#if FF_HAS(18)
    case FF_CBRT: return ffx_cbrt<K>(o, t, cls, neg, ex, xm, nx, p, rnd, cs);
#endif
#if FF_HAS(32)
    case FF_TAN: return ff_tan<K>(o, t, cls, neg, ex, xm, nx, p, rnd, cs);
#endif
    default: return 1;
    }
}

// FF_CORES_ONLY (float_cfunc.cu): the value cores without the real kernels.
#if defined(__CUDACC__) && !defined(FF_CORES_ONLY) && (!defined(FF_ONLY) || FF_ONLY < 33)
// A thread per element (rnd: the rounding mode, | force << 8 in tests);
// nflag: two counters, zero at the launch (see ff_store).
extern "C" __global__ void __launch_bounds__(128) float_func(
    u64 *rh, u64 *rl, i8 *tern, const u64 *xh, const u64 *xl, u64 len, u32 fn, u32 rnd, u64 p,
    u32 n, u32 nx, const u64 *cs, u32 *nflag, u32 *flags) {
    const u32 force = rnd >> 8;
    rnd &= 0xff;
    for (u64 i = blockIdx.x * (u64)blockDim.x + threadIdx.x; i < len;
         i += (u64)gridDim.x * blockDim.x) {
        FlOut o = {rl + i * n, n, 0};
        i8 t = 0;
        FF_PROBE(30);
        int st = ff_eval<FF_K>(fn, o, t, xh[i], xl + i * nx, nx, p, rnd, cs);
        FF_PROBE(31);
        ff_store(st, o, t, i, len, force, rh, tern, nflag, flags);
    }
}
#endif

#ifdef __CUDACC__
// Gathers elements idx[0..cnt) of x into compact arrays.
extern "C" __global__ void float_func_gather(u64 *gh, u64 *gl, const u64 *xh, const u64 *xl,
                                             u32 nx, const u32 *idx, u32 cnt) {
    for (u32 i = blockIdx.x * blockDim.x + threadIdx.x; i < cnt; i += gridDim.x * blockDim.x) {
        u64 k = idx[i];
        gh[i] = xh[k];
        for (u32 l = 0; l < nx; l++) gl[(u64)i * nx + l] = xl[k * nx + l];
    }
}

// Scatters compact results back to elements idx[0..cnt).
extern "C" __global__ void float_func_scatter(u64 *rh, u64 *rl, i8 *tern, u32 n, const u32 *idx,
                                              u32 cnt, const u64 *sh, const u64 *sl,
                                              const i8 *st) {
    for (u32 i = blockIdx.x * blockDim.x + threadIdx.x; i < cnt; i += gridDim.x * blockDim.x) {
        u64 k = idx[i];
        rh[k] = sh[i];
        tern[k] = st[i];
        for (u32 l = 0; l < n; l++) rl[k * n + l] = sl[(u64)i * n + l];
    }
}
#endif
