// The fused Ehrlich-Aberth iteration (src/complex/polyroots.rs has the
// sequence of operations and the CPU engine's copy of it): one block per
// root, the block's threads sharing the powers, the terms of p and p', the
// repulsion sum's terms and the pairwise sums' levels; every operation is
// float_common.cuh's MPFR arithmetic at the working precision, so the bits
// are the CPU engine's. RT_N: limbs per float (every value has exactly
// RT_N limbs). Values are packed: a float is RT_N + 1 words (the head
// exp << 8 | tag, then the limbs), a complex two floats.
#include "common.cuh"
#include "float_common.cuh"

#ifndef RT_N
#define RT_N 8
#endif

// Threads per block of the iteration's kernels (cuda_roots.rs's BLOCK).
#ifndef RT_BLOCK
#define RT_BLOCK 256
#endif
// rt_tail puts up to six operations on six warps.
static_assert(RT_BLOCK >= 192 && RT_BLOCK % 32 == 0, "RT_BLOCK: at least six warps");

#define RT_W (RT_N + 1)
#define RT_CW (2 * RT_W)

__device__ __forceinline__ bool rt_normal(u64 h) { return (fl_tag(h) & 3) == FL_NORMAL; }

// Code-size variants (RT_V bits, MPARRAY_ROOTS_V; 0: the unrolled register
// paths): 1: rt_mul by rt_mul_c (rolled short product); 2: rt_add by the
// generic fl_arith (rolled loops over local arrays); 4: rt_div by fl_arith;
// 8: rt_mul by fl_arith (full schoolbook product); 16: rt_mul_c's inner
// loop not unrolled; 32: rt_wmul's carries and rounding by rolled loops
// (rt_wfin_c). Every path computes the same exact integers or rounds
// correctly, so the bits are the same. Not code size, the same
// operations on other threads: 64, 128, 256, 512 (see rt_power_group,
// roots_certify, the term products, rt_repulsion); 1024: the first
// sub-step's powers and the repulsion's leaves on the two halves of the
// block at once (rt_powers, rt_rep_leaves), 2048 and 4096 their shares;
// 8192: the residual bound's, the correction's and the trees' narrow
// levels' additions on one lane each (rt_addw, rt_tsums) instead of by a
// whole warp (rt_wadd); 16384: the warp products' carries and rounding
// on the lanes too (rt_wmul_l) instead of on lane 0 (rt_wfin); 65536:
// rt_wadd's zero operands and exact cancellations on the lanes too (not
// on lane 0 through rt_add's generic fl_arith).
// 32768: roots_certify's phases timed (clock64) and printed by block 0 (a
// measurement aid). Default 19460 = 4 + 1024 + 2048 + 16384: the generic
// division (on the H200, 2026-12-02 18:59 UTC, notes/solvers.md, a round
// of 127 divisions 129k -> 62k cycles; the rolled product and the generic
// addition were slower or no faster), the first sub-step's powers beside
// the repulsion on 5/8 of the block (2026-12-03 13:23 UTC, commit 9831274,
// with the values in shared memory: Wilkinson 128 at 1024 bits 27.4-27.6
// ms against 28.3 for 1028, 27.9 for 5124, 28.2 for 12 and 29.3 for 4),
// and the warp products' carries on the lanes (2026-12-03 16:59 UTC, the
// roots.cu of commit ed68223: 25.9 ms three times, against 26.5-26.7 with
// 3076 and 27.3-27.5 for main 7734875's roots.cu in the same call).
#ifndef RT_V
#define RT_V 19460
#endif

// x * y for normal x, y (RT_N >= 4) by the short product of fl_mul_short
// with rolled loops (columns N-2.., the operands read from memory, the
// columns kept in a local array): a few hundred bytes of code instead of
// tens of kilobytes of unrolled code. The same can-round test; when it
// fails, the exact product of fl_arith. Rounding by fl_round_to on the
// same left-aligned value with the sticky bit set (fl_round_regs's below
// = 1), so the same bits as fl_mul_short / fl_mul_fast.
__device__ void rt_mul_c(FlOut &o, u64 xh, const u64 *a, u64 yh, const u64 *b, u64 p,
                         u32 rnd) {
    const int N = RT_N;
    u64 hi[N + 1];
    u64 c0 = 0, c1 = 0, c2 = 0;
#pragma unroll 1
    for (int k = N - 2; k < 2 * N - 1; k++) {
        const int i0 = k < N ? 0 : k - N + 1, i1 = k < N ? k : N - 1;
#if (RT_V & 16) != 0
#pragma unroll 1
#endif
        for (int i = i0; i <= i1; i++) fl_mac<true>(c0, c1, c2, a[i], b[k - i]);
        if (k >= N - 1) hi[k - (N - 1)] = c0;
        c0 = c1;
        c1 = c2;
        c2 = 0;
    }
    hi[N] = c0;
    const u64 m62 = (1ull << 62) - 1;
    u64 u = hi[0] & m62;
    if (u == 0 || u >= m62 - (u64)N) {
        fl_arith<RT_N>(FL_OP_MUL, rnd, p, o, xh, a, RT_N, yh, b, RT_N, 0, a, 0);
        return;
    }
    i64 e = fl_exp(xh) + fl_exp(yh);
    if ((hi[N] >> 63) == 0) {
#pragma unroll 1
        for (int i = N; i > 0; i--) hi[i] = (hi[i] << 1) | (hi[i - 1] >> 63);
        hi[0] <<= 1;
        e -= 1;
    }
    bool neg = ((fl_tag(xh) ^ fl_tag(yh)) & FL_NEG) != 0;
    fl_round_to(o, neg, e, hi, N + 1, true, p, rnd);
}

// r = x * y (r distinct from x and y).
__device__ __noinline__ void rt_mul(u64 *r, const u64 *x, const u64 *y, u64 p, u32 rnd) {
    FlOut o = {r + 1, RT_N, 0};
    u64 xh = x[0], yh = y[0];
    if ((RT_V & 8) != 0) {
        fl_arith<RT_N>(FL_OP_MUL, rnd, p, o, xh, x + 1, RT_N, yh, y + 1, RT_N, 0, x + 1, 0);
    } else if ((RT_V & 1) != 0 && RT_N >= 4 && rt_normal(xh) && rt_normal(yh)) {
        rt_mul_c(o, xh, x + 1, yh, y + 1, p, rnd);
    } else if (rt_normal(xh) && rt_normal(yh)) {
        i8 t;
        if (RT_N < 4 || !fl_mul_short<RT_N, true>(o, xh, x + 1, yh, y + 1, p, rnd, t))
            fl_mul_fast<RT_N>(o, xh, x + 1, yh, y + 1, p, rnd);
    } else if (((fl_tag(xh) & 3) == FL_ZERO && (rt_normal(yh) || (fl_tag(yh) & 3) == FL_ZERO)) ||
               ((fl_tag(yh) & 3) == FL_ZERO && rt_normal(xh))) {
        // fl_arith's zero product (finite times zero), without its scratch.
        fl_special(o, FL_ZERO, ((fl_tag(xh) ^ fl_tag(yh)) & FL_NEG) != 0);
    } else {
        fl_arith<RT_N>(FL_OP_MUL, rnd, p, o, xh, x + 1, RT_N, yh, y + 1, RT_N, 0, x + 1, 0);
    }
    r[0] = o.head;
}

// r = x * y by the 32 lanes of the calling warp (every lane calls it with
// the same arguments; r distinct from x and y): lane k sums the column k of
// the exact product (fl_mac's three-word accumulator) into sc, then lane 0
// propagates the carries and rounds as fl_mul_fast does (the same exact
// product and the same rounding, so the same bits as rt_mul). sc: the
// warp's 3 (2 RT_N - 1) words of shared memory. Not normal: lane 0 runs
// rt_mul.
// Column k of the exact product of x and y (normal, RT_N limbs each) into
// sc[3k..3k+3) (fl_mac's three-word accumulator).
__device__ __forceinline__ void rt_wcol(u64 *sc, const u64 *x, const u64 *y, int k) {
    const int i0 = k < RT_N ? 0 : k - RT_N + 1, i1 = k < RT_N ? k : RT_N - 1;
    u64 c0 = 0, c1 = 0, c2 = 0;
    for (int q = i0; q <= i1; q++) fl_mac<true>(c0, c1, c2, x[1 + q], y[1 + k - q]);
    sc[3 * k] = c0;
    sc[3 * k + 1] = c1;
    sc[3 * k + 2] = c2;
}

// The product from its columns in sc: the carries, then fl_mul_fast's
// normalization and rounding (so the same bits).
__device__ __forceinline__ void rt_wfin(u64 *r, u64 xh, u64 yh, const u64 *sc, u64 p, u32 rnd) {
    const int N = RT_N;
    u64 hi[N + 1];
    u64 r2 = 0, lowor = 0, a0 = 0, a1 = 0, a2 = 0;
#pragma unroll
    for (int k = 0; k < 2 * N - 1; k++) {
        // (a2:a1:a0) += column k; then limb k = a0, shift down.
        u64 s0 = sc[3 * k], s1 = sc[3 * k + 1], s2 = sc[3 * k + 2];
        a0 += s0;
        u64 cy = a0 < s0;
        u64 t1 = a1 + s1;
        u64 cy1 = t1 < s1;
        a1 = t1 + cy;
        cy1 += a1 < cy;
        a2 += s2 + cy1;
        if (k < N - 2) lowor |= a0;
        else if (k == N - 2) r2 = a0;
        else hi[k - (N - 1)] = a0;
        a0 = a1;
        a1 = a2;
        a2 = 0;
    }
    hi[N] = a0;
    i64 e = fl_exp(xh) + fl_exp(yh);
    if ((hi[N] >> 63) == 0) {
#pragma unroll
        for (int q = N; q > 0; q--) hi[q] = (hi[q] << 1) | (hi[q - 1] >> 63);
        hi[0] = (hi[0] << 1) | (r2 >> 63);
        r2 <<= 1;
        e -= 1;
    }
    bool neg = ((fl_tag(xh) ^ fl_tag(yh)) & FL_NEG) != 0;
    FlOut o = {r + 1, RT_N, 0};
    fl_round_regs<RT_N>(o, hi, r2 | lowor, e, neg, p, rnd);
    r[0] = o.head;
}

// rt_wfin with rolled loops (RT_V bit 32): the kept limbs in a local
// array, rounded by fl_round_to with the same sticky (fl_round_regs's
// `below`), so the same bits.
__device__ void rt_wfin_c(u64 *r, u64 xh, u64 yh, const u64 *sc, u64 p, u32 rnd) {
    const int N = RT_N;
    u64 hi[N + 1];
    u64 r2 = 0, lowor = 0, a0 = 0, a1 = 0, a2 = 0;
#pragma unroll 1
    for (int k = 0; k < 2 * N - 1; k++) {
        u64 s0 = sc[3 * k], s1 = sc[3 * k + 1], s2 = sc[3 * k + 2];
        a0 += s0;
        u64 cy = a0 < s0;
        u64 t1 = a1 + s1;
        u64 cy1 = t1 < s1;
        a1 = t1 + cy;
        cy1 += a1 < cy;
        a2 += s2 + cy1;
        if (k < N - 2) lowor |= a0;
        else if (k == N - 2) r2 = a0;
        else hi[k - (N - 1)] = a0;
        a0 = a1;
        a1 = a2;
        a2 = 0;
    }
    hi[N] = a0;
    i64 e = fl_exp(xh) + fl_exp(yh);
    if ((hi[N] >> 63) == 0) {
#pragma unroll 1
        for (int q = N; q > 0; q--) hi[q] = (hi[q] << 1) | (hi[q - 1] >> 63);
        hi[0] = (hi[0] << 1) | (r2 >> 63);
        r2 <<= 1;
        e -= 1;
    }
    bool neg = ((fl_tag(xh) ^ fl_tag(yh)) & FL_NEG) != 0;
    FlOut o = {r + 1, RT_N, 0};
    fl_round_to(o, neg, e, hi, N + 1, (r2 | lowor) != 0, p, rnd);
    r[0] = o.head;
}

// r = x * y by a group of G lanes (G = 2..32, a power of two; the group's
// lanes are aligned within their warp and all call it with the same
// arguments): lane j of the group sums the columns j, j + G, ... of the
// exact product into sc, then the group's lane 0 adds them up and rounds
// (rt_wfin): the same exact product and rounding as rt_mul, so the same
// bits. sc: the group's 3 (2 RT_N - 1) shared words. Not normal: lane 0
// runs rt_mul.
template <int G>
__device__ __noinline__ void rt_gmul(u64 *r, const u64 *x, const u64 *y, u64 p, u32 rnd,
                                     u64 *sc) {
    static_assert(G >= 2 && G <= 32 && (G & (G - 1)) == 0, "G: a power of two up to 32");
    const u32 lane = threadIdx.x & 31, gl = lane & (G - 1);
    const unsigned mask = G == 32 ? 0xffffffffu : (((1u << G) - 1u) << (lane & ~(u32)(G - 1)));
    const u64 xh = x[0], yh = y[0];
    if (!(rt_normal(xh) && rt_normal(yh))) {
        if (gl == 0) rt_mul(r, x, y, p, rnd);
        __syncwarp(mask);
        return;
    }
    for (int k = (int)gl; k < 2 * RT_N - 1; k += G) rt_wcol(sc, x, y, k);
    __syncwarp(mask);
    if (gl == 0) {
        if ((RT_V & 32) != 0) rt_wfin_c(r, xh, yh, sc, p, rnd);
        else rt_wfin(r, xh, yh, sc, p, rnd);
    }
    __syncwarp(mask);
}

__device__ __noinline__ void rt_wmul_l(u64 *r, const u64 *x, const u64 *y, u64 p, u32 rnd);

// rt_gmul by the whole warp (RT_V & 16384: rt_wmul_l).
__device__ __forceinline__ void rt_wmul(u64 *r, const u64 *x, const u64 *y, u64 p, u32 rnd,
                                        u64 *sc) {
    if ((RT_V & 16384) != 0) rt_wmul_l(r, x, y, p, rnd);
    else rt_gmul<32>(r, x, y, p, rnd, sc);
}

// rt_gmul for a group size known at run time (2..32; 1: rt_mul).
__device__ __forceinline__ void rt_gmul_n(u32 g, u64 *r, const u64 *x, const u64 *y, u64 p,
                                          u32 rnd, u64 *sc) {
    switch (g) {
    case 32: rt_gmul<32>(r, x, y, p, rnd, sc); break;
    case 16: rt_gmul<16>(r, x, y, p, rnd, sc); break;
    case 8: rt_gmul<8>(r, x, y, p, rnd, sc); break;
    case 4: rt_gmul<4>(r, x, y, p, rnd, sc); break;
    case 2: rt_gmul<2>(r, x, y, p, rnd, sc); break;
    default: rt_mul(r, x, y, p, rnd);
    }
}

// Shared words of rt_wmul's scratch per warp.
#define RT_WSC (3 * 2 * RT_N)
// Groups of lanes with a product each at most (the kernels' shared
// scratch gsc; RT_BLOCK / 8 of 8 lanes fit).
#define RT_GROUPS 40

// r = x + y or x - y.
__device__ __noinline__ void rt_add(u64 *r, const u64 *x, const u64 *y, bool sub, u64 p,
                                    u32 rnd) {
    FlOut o = {r + 1, RT_N, 0};
    u64 xh = x[0], yh = y[0];
    if ((RT_V & 2) == 0 && rt_normal(xh) && rt_normal(yh))
        fl_add_fast<RT_N>(o, xh, x + 1, yh, y + 1, sub, p, rnd);
    else
        fl_arith<RT_N>(sub ? FL_OP_SUB : FL_OP_ADD, rnd, p, o, xh, x + 1, RT_N, yh, y + 1, RT_N,
                       0, x + 1, 0);
    r[0] = o.head;
}

// The warp's collectives for rt_wadd (every lane of the warp calls them):
// on the host (tests/emu/roots/remu.cpp) they are the emulator's, which
// runs the lanes one after another and replays them until every ballot
// and shuffle has all 32 lanes' values.
#ifdef __CUDA_ARCH__
__device__ __forceinline__ u32 rt_ballot(bool pr) { return __ballot_sync(0xffffffffu, pr); }
__device__ __forceinline__ u64 rt_shfl(u64 v, int src) {
    return __shfl_sync(0xffffffffu, v, src & 31);
}
__device__ __forceinline__ u32 rt_top32(u32 m) { return 31 - (u32)__clz(m); }
#else
static inline u32 rt_ballot(bool pr) { return rt_emu_ballot(pr); }
static inline u64 rt_shfl(u64 v, int src) { return rt_emu_shfl(v, src & 31); }
static inline u32 rt_top32(u32 m) { return m ? 31 - (u32)__builtin_clz(m) : 0; }
#endif

// Carries into lanes from each lane's generate (g) and propagate (pp)
// bits (g and pp exclusive) and a carry cin into lane 0: bit L of the
// result is the carry into lane L (carry out of lane L: g_L | pp_L c_L),
// by one integer addition: (G | P) + G + cin has the carry c_L into bit L,
// and c_L = sum_L ^ (G | P)_L ^ G_L = sum_L ^ P_L (bit 32: the carry out of
// lane 31).
__device__ __forceinline__ u64 rt_carries(u32 G, u32 P, u32 cin) {
    return ((u64)(G | P) + G + cin) ^ P;
}

// fl_round_regs<RT_N>(o, hi, below, e, neg, p, rnd) by the calling warp,
// hi[j] on lane b + j (j = 0..RT_N; v: this lane's limb; b + RT_N <= 31;
// below uniform), the result into r: the round and sticky bits from lanes
// b and b + 1 (m_0), the increment's carries by rt_carries, the kept limbs
// m_i written by lanes b + 1 + i, then lane 0 fl_finish (the range). The
// same bits as fl_round_regs.
__device__ __forceinline__ void rt_wround(u64 *r, u64 v, int b, u64 below, i64 e, bool neg,
                                          u64 p, u32 rnd) {
    constexpr int N = RT_N;
    const int L = (int)(threadIdx.x & 31);
    const u64 vh = rt_shfl(v, b), vm = rt_shfl(v, b + 1);
    const u32 low = (u32)(64ull * N - p);
    bool rb, st;
    u64 m0 = vm;
    if (low > 0) {
        const u64 mask = (1ull << low) - 1;
        rb = (vm >> (low - 1)) & 1;
        st = ((vm & (mask >> 1)) | vh | below) != 0;
        m0 = vm & ~mask;
    } else {
        rb = vh >> 63;
        st = ((vh << 1) | below) != 0;
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
    const bool kept = L > b && L <= b + N;
    u64 m = L == b + 1 ? m0 : v;
    if (inc) {
        const u64 a = L == b + 1 ? 1ull << low : 0;
        const u64 t = m + a;
        const u64 cc = rt_carries(rt_ballot(kept && t < a), rt_ballot(kept && t == ~0ull), 0u);
        m = t + ((cc >> L) & 1);
        if (((cc >> (b + N + 1)) & 1) != 0) {
            // Carry out of the top: every kept limb wrapped to 0.
            if (L == b + N) m = 1ull << 63;
            e += 1;
        }
    }
    if (kept) r[L - b] = m;
    __syncwarp();
    if (L == 0) {
        FlOut o = {r + 1, RT_N, 0};
        i8 t = inexact ? fl_ternary(inc, neg) : 0;
        fl_finish(o, neg, e, t, inc, p, rnd);
        r[0] = o.head;
    }
    __syncwarp();
}

// r = x + y or x - y (sub) by the 32 lanes of the calling warp (every lane
// calls it with the same arguments; r distinct from x and y), with the
// signs of x (absf & 1) and y (absf & 2) cleared first (absf & 4: a zero
// operand and exact cancellation on the lanes too): fl_add_fast's
// operations on the same integers, lane L holding limb L of its window of
// W + 1 = RT_N + 2 limbs: the magnitudes compared by a ballot, y's limb
// shift and bit shift by shuffles (sticky by ballot), the sum or
// difference with carries (or borrows) by rt_carries, the normalization
// by shuffles, fl_round_regs's rounding with its increment's carries by
// rt_carries, then lane 0 fl_finish (the range). So the same bits as
// rt_add. Not both normal, or an exact cancellation: lane 0 runs rt_add
// (absf & 4: only NaN and infinities; a zero operand is fl_arith's
// rounding of the other by rt_wround, zero results its signed zeros).
__device__ __noinline__ void rt_wadd(u64 *r, const u64 *x, const u64 *y, bool subop, u64 p,
                                     u32 rnd, u32 absf) {
    constexpr int N = RT_N, W = RT_N + 1;
    static_assert(W + 1 <= 31, "rt_wadd: RT_N + 2 limbs on 32 lanes, with a lane to spare");
    const int L = (int)(threadIdx.x & 31);
    u64 xh = x[0], yh = y[0];
    if (absf & 1) xh &= ~(u64)FL_NEG;
    if (absf & 2) yh &= ~(u64)FL_NEG;
    i64 ex = fl_exp(xh), ey = fl_exp(yh);
    u64 X = L >= 1 && L <= N ? x[L] : 0, Y = L >= 1 && L <= N ? y[L] : 0;
    bool xn = (fl_tag(xh) & FL_NEG) != 0, yn = ((fl_tag(yh) & FL_NEG) != 0) != subop;
    bool sub = xn != yn;
    int ord = ex != ey ? (ex < ey ? -1 : 1) : 0;
    if (ord == 0) {
        // The highest limb where they differ (fl_add_fast's loop's last).
        u32 m = rt_ballot(X != Y);
        if (m != 0) ord = (int)(i64)rt_shfl(X < Y ? ~0ull : 1ull, (int)rt_top32(m));
    }
    const bool xz = (fl_tag(xh) & 3) == FL_ZERO, yz = (fl_tag(yh) & 3) == FL_ZERO;
    const bool xv = rt_normal(xh), yv = rt_normal(yh);
    if ((absf & 4) != 0 && ((xz && (yz || yv)) || (yz && xv) || (xv && yv && sub && ord == 0))) {
        // absf & 4: zeros on the lanes too. Both zero, or x - x: fl_arith's
        // and fl_add_fast's signed zeros.
        if (xz == yz) {
            const bool zn = xz ? (xn == yn ? xn : rnd == FL_RD) : rnd == FL_RD;
            if (L == 0) r[0] = fl_head(fl_mk_tag(FL_ZERO, zn), 0);
            else if (L <= N) r[L] = 0;
            __syncwarp();
            return;
        }
        // One zero: the other rounded to p (fl_arith's fl_round_to with no
        // limbs below, so fl_round_regs's hi[0] = 0 and below = 0).
        const u64 m = L >= 2 && L <= N + 1 ? (xz ? y[L - 1] : x[L - 1]) : 0;
        rt_wround(r, m, 1, 0, xz ? ey : ex, xz ? yn : xn, p, rnd);
        return;
    }
    if (!(xv && yv) || (sub && ord == 0)) {
        if (L == 0) {
            u64 ta[RT_W], tb[RT_W];
            for (int k = 0; k < RT_W; k++) {
                ta[k] = x[k];
                tb[k] = y[k];
            }
            ta[0] = xh;
            tb[0] = yh;
            rt_add(r, ta, tb, subop, p, rnd);
        }
        __syncwarp();
        return;
    }
    bool neg = xn;
    if (ord < 0) {
        u64 t = X;
        X = Y;
        Y = t;
        i64 te = ex;
        ex = ey;
        ey = te;
        neg = yn;
    }
    // Y >> d within the window (limbs 0..W-1), sticky from the bits out.
    u64 d = (u64)(ex - ey);
    bool sticky;
    if (d >= 64ull * W) {
        sticky = rt_ballot(L < W && Y != 0) != 0;
        Y = 0;
    } else {
        const int q = (int)(d / 64), rs = (int)(d % 64);
        sticky = rt_ballot(L < q && Y != 0) != 0;
        u64 y1 = rt_shfl(Y, L + q);
        if (L + q >= W) y1 = 0;
        if (rs != 0) {
            u64 y0 = rt_shfl(y1, 0), yu = rt_shfl(y1, L + 1);
            if (L + 1 >= W) yu = 0;
            sticky = sticky || (y0 << (64 - rs)) != 0;
            y1 = (y1 >> rs) | (yu << (64 - rs));
        }
        Y = y1;
    }
    // The sum (W + 1 limbs, the carry in limb W) or the difference minus
    // the sticky borrow (fl_add_fast's extra borrow), limb W zero.
    const bool in = L < W;
    u64 s, c;
    if (sub) {
        s = X - Y;
        c = rt_carries(rt_ballot(in && X < Y), rt_ballot(in && X == Y), sticky ? 1u : 0u);
        s = in ? s - ((c >> L) & 1) : 0;
    } else {
        s = X + Y;
        c = rt_carries(rt_ballot(in && s < X), rt_ballot(in && s == ~0ull), 0u);
        s = L <= W ? s + ((c >> L) & 1) : 0;
    }
    // Normalize: the top nonzero limb to W (a limb shift up by z), then
    // its top bit (lz).
    const u32 nz = rt_ballot(L <= W && s != 0);
    const int z = W - (int)(nz != 0 ? rt_top32(nz) : 0);
    u64 v = rt_shfl(s, L - z);
    if (L < z || L > W) v = 0;
    const u64 vt = rt_shfl(v, W);
    const u32 lz = vt != 0 ? fl_clz(vt) & 63 : 0;
    if (lz != 0) {
        u64 vd = rt_shfl(v, L - 1);
        if (L == 0) vd = 0;
        v = L <= W ? (v << lz) | (vd >> (64 - lz)) : 0;
    }
    i64 e = ex + 64 * (1 - (i64)z) - (i64)lz;
    // fl_round_regs<N>(o, limbs 1..W, limb 0 | sticky, e, neg, p, rnd).
    rt_wround(r, v, 1, rt_shfl(v, 0) | (sticky ? 1 : 0), e, neg, p, rnd);
}

// rt_wadd's absf bit 4 (zeros on the lanes) from RT_V & 65536.
#define RT_WZ ((RT_V & 65536) != 0 ? 4u : 0u)

// r = x + y or x - y with the signs of x (absf & 1) and y (absf & 2)
// cleared, by the calling warp: rt_wadd, or with RT_V & 8192 rt_add on its
// lane 0 (the same bits). The residual bound's and the correction's
// additions (roots_certify, rt_tail).
__device__ __forceinline__ void rt_addw(u64 *r, const u64 *x, const u64 *y, bool sub, u64 p,
                                        u32 rnd, u32 absf) {
    if ((RT_V & 8192) == 0) {
        rt_wadd(r, x, y, sub, p, rnd, absf | RT_WZ);
        return;
    }
    if ((threadIdx.x & 31) == 0) {
        u64 ta[RT_W], tb[RT_W];
        for (int k = 0; k < RT_W; k++) {
            ta[k] = x[k];
            tb[k] = y[k];
        }
        if (absf & 1) ta[0] &= ~(u64)FL_NEG;
        if (absf & 2) tb[0] &= ~(u64)FL_NEG;
        rt_add(r, ta, tb, sub, p, rnd);
    }
    __syncwarp();
}

// r = x * y by the 32 lanes of the calling warp with the carries and the
// rounding on the lanes too (rt_wmul with RT_V & 16384; r distinct from x
// and y): lane k sums column k of the exact product (fl_mac's three words
// c0, c1, c2, as rt_wcol), then T_k = c0_k + c1_(k-1) + c2_(k-2) (lo_k
// and h_k <= 2) and limb k = lo_k + h_(k-1) with the carries by
// rt_carries: the exact product's 2 RT_N limbs on lanes 0..2 RT_N - 1.
// Then rt_wfin's normalization (one bit up when the top bit is clear;
// limb N - 2 shifted alone, the limbs below it only OR-ed, unshifted, into
// the sticky) and rt_wround. So the same bits as rt_wfin and rt_mul. Not
// normal: lane 0 runs rt_mul.
__device__ __noinline__ void rt_wmul_l(u64 *r, const u64 *x, const u64 *y, u64 p, u32 rnd) {
    constexpr int N = RT_N;
    static_assert(2 * RT_N <= 32, "rt_wmul_l: 2 RT_N limbs on 32 lanes");
    const int L = (int)(threadIdx.x & 31);
    const u64 xh = x[0], yh = y[0];
    if (!(rt_normal(xh) && rt_normal(yh))) {
        if (L == 0) rt_mul(r, x, y, p, rnd);
        __syncwarp();
        return;
    }
    u64 c0 = 0, c1 = 0, c2 = 0;
    {
        const int i0 = L < N ? 0 : L - N + 1, i1 = L < N ? L : N - 1;
        for (int q = i0; q <= i1; q++) fl_mac<true>(c0, c1, c2, x[1 + q], y[1 + L - q]);
    }
    u64 s1 = rt_shfl(c1, L - 1), s2 = rt_shfl(c2, L - 2);
    if (L < 1) s1 = 0;
    if (L < 2) s2 = 0;
    u64 lo = c0 + s1;
    u64 h = lo < s1 ? 1 : 0;
    lo += s2;
    h += lo < s2 ? 1 : 0;
    u64 hp = rt_shfl(h, L - 1);
    if (L < 1) hp = 0;
    const u64 u = lo + hp;
    const bool in = L < 2 * N;
    const u64 c = rt_carries(rt_ballot(in && u < lo), rt_ballot(in && u == ~0ull), 0u);
    const u64 limb = in ? u + ((c >> L) & 1) : 0;
    const u64 top = rt_shfl(limb, 2 * N - 1), prev = rt_shfl(limb, L - 1);
    const u32 lowm = rt_ballot(L <= N - 3 && limb != 0);
    i64 e = fl_exp(xh) + fl_exp(yh);
    u64 v = limb;
    if ((top >> 63) == 0) {
        v = (limb << 1) | (L >= N - 1 && L >= 1 ? prev >> 63 : 0);
        e -= 1;
    }
    u64 r2 = rt_shfl(v, N - 2);
    if (N < 2) r2 = 0;
    const bool neg = ((fl_tag(xh) ^ fl_tag(yh)) & FL_NEG) != 0;
    rt_wround(r, v, N - 1, r2 | (lowm != 0 ? 1 : 0), e, neg, p, rnd);
}

// r = x / y, to nearest, by fl_div_num's integers: U = x B^k, k = RT_N + 1,
// divided by y with compile-time sizes (fl_divrem_k, the digits of
// fl_divrem). Normal x, y: everything in registers (no run-time index):
// the quotient Q has RT_N + 2 limbs and Q >= B^(RT_N+1) / 2, so its top
// limb is 1 (x/y >= 1 in mantissas; shifted right one bit, exponent + 1)
// or 0 (the next limb's top bit is set): fl_normalize's two cases, then
// fl_round_regs (fl_round_to's rounding of that left-aligned value), with
// the remainder as sticky. rt_div_ref: the same through fl_normalize and
// fl_round_to in local memory (the host test compares the two).
__device__ __noinline__ void rt_div(u64 *r, const u64 *x, const u64 *y, u64 p) {
    FlOut o = {r + 1, RT_N, 0};
    if ((RT_V & 4) == 0 && rt_normal(x[0]) && rt_normal(y[0])) {
        const int N = RT_N, UL = 2 * RT_N + 1;
        u64 ua[UL + 1], qa[N + 2], v[N];
#pragma unroll
        for (int k = 0; k <= N; k++) ua[k] = 0;
#pragma unroll
        for (int k = 0; k < N; k++) {
            ua[N + 1 + k] = x[1 + k];
            v[k] = y[1 + k];
        }
        ua[UL] = 0;
#pragma unroll
        for (int k = 0; k < N + 2; k++) qa[k] = 0;
        fl_divrem_k<UL, N>(qa, ua, v);
        u64 st = 0;
#pragma unroll
        for (int k = 0; k < N; k++) st |= ua[k];
        u64 hi[N + 1], below;
        i64 e = fl_exp(x[0]) - fl_exp(y[0]);
        if (qa[N + 1] != 0) {
#pragma unroll
            for (int j = 0; j <= N; j++) hi[j] = (qa[j + 1] << 63) | (qa[j] >> 1);
            below = (qa[0] & 1) | st;
            e += 1;
        } else {
#pragma unroll
            for (int j = 0; j <= N; j++) hi[j] = qa[j];
            below = st;
        }
        bool neg = ((fl_tag(x[0]) ^ fl_tag(y[0])) & FL_NEG) != 0;
        fl_round_regs<RT_N>(o, hi, below, e, neg, p, FL_RN);
    } else {
        fl_arith<RT_N>(FL_OP_DIV, FL_RN, p, o, x[0], x + 1, RT_N, y[0], y + 1, RT_N, 0, x + 1, 0);
    }
    r[0] = o.head;
}

#ifndef __CUDA_ARCH__
// The previous rt_div (host test only).
static void rt_div_ref(u64 *r, const u64 *x, const u64 *y, u64 p) {
    FlOut o = {r + 1, RT_N, 0};
    if (rt_normal(x[0]) && rt_normal(y[0])) {
        const int UL = 2 * RT_N + 1;
        u64 ua[UL + 1], qa[UL];
        for (int k = 0; k <= RT_N; k++) ua[k] = 0;
        for (int k = 0; k < RT_N; k++) ua[RT_N + 1 + k] = x[1 + k];
        ua[UL] = 0;
        for (int k = 0; k < UL; k++) qa[k] = 0;
        fl_divrem_k<UL, RT_N>(qa, ua, y + 1);
        bool sticky = fl_any(ua, RT_N);
        u32 lz;
        u32 qs = fl_normalize(qa, UL, lz);
        i64 e = fl_exp(x[0]) - fl_exp(y[0]) + 64 * ((i64)qs - RT_N - 1) - (i64)lz;
        bool neg = ((fl_tag(x[0]) ^ fl_tag(y[0])) & FL_NEG) != 0;
        fl_round_to(o, neg, e, qa, qs, sticky, p, FL_RN);
    } else {
        fl_arith<RT_N>(FL_OP_DIV, FL_RN, p, o, x[0], x + 1, RT_N, y[0], y + 1, RT_N, 0, x + 1, 0);
    }
    r[0] = o.head;
}
#endif

// r = x * 2^k (mpfr_mul_2si, k clamped to +-2^40 as the CPU engine does).
__device__ void rt_shift(u64 *r, const u64 *x, i64 k, u64 p, u32 rnd) {
    const i64 lim = 1ll << 40;
    k = k < -lim ? -lim : (k > lim ? lim : k);
    FlOut o = {r + 1, RT_N, 0};
    fl_set(o, x[0], x + 1, RT_N, false, false, k, p, rnd);
    r[0] = o.head;
}

__device__ __forceinline__ void rt_copy(u64 *r, const u64 *x, u32 words) {
    for (u32 k = 0; k < words; k++) r[k] = x[k];
}

// |x| (exact).
__device__ __forceinline__ void rt_abs(u64 *r, const u64 *x) {
    rt_copy(r, x, RT_W);
    r[0] &= ~(u64)FL_NEG;
}

// -x in place (exact; NaN unchanged).
__device__ __forceinline__ void rt_negate(u64 *x) {
    if ((fl_tag(x[0]) & 3) != FL_NAN) x[0] ^= (u64)FL_NEG;
}

// x <= y (false with a NaN).
__device__ __forceinline__ bool rt_le(const u64 *x, const u64 *y) {
    i8 c = fl_cmp(x[0], x + 1, RT_N, y[0], y + 1, RT_N);
    return c == -1 || c == 0;
}

// The scalar complex helpers of the STS kernels (roots_sts_a/b).
// r = x y (complex; r distinct from x and y).
__device__ void rt_cmul(u64 *r, const u64 *x, const u64 *y, u64 p) {
    u64 t1[RT_W], t2[RT_W];
    rt_mul(t1, x, y, p, FL_RN);
    rt_mul(t2, x + RT_W, y + RT_W, p, FL_RN);
    rt_add(r, t1, t2, true, p, FL_RN);
    rt_mul(t1, x, y + RT_W, p, FL_RN);
    rt_mul(t2, x + RT_W, y, p, FL_RN);
    rt_add(r + RT_W, t1, t2, false, p, FL_RN);
}

// r = x +- y part by part.
__device__ void rt_cadd(u64 *r, const u64 *x, const u64 *y, bool sub, u64 p) {
    rt_add(r, x, y, sub, p, FL_RN);
    rt_add(r + RT_W, x + RT_W, y + RT_W, sub, p, FL_RN);
}

// r = 1/d = (d_r q, -(d_i q)), q = 1/(d_r^2 + d_i^2).
__device__ void rt_rec(u64 *r, const u64 *d, const u64 *one, u64 p) {
    u64 t1[RT_W], t2[RT_W], q[RT_W];
    rt_mul(t1, d, d, p, FL_RN);
    rt_mul(t2, d + RT_W, d + RT_W, p, FL_RN);
    rt_add(q, t1, t2, false, p, FL_RN);
    rt_div(t1, one, q, p);
    rt_mul(r, d, t1, p, FL_RN);
    rt_mul(r + RT_W, d + RT_W, t1, p, FL_RN);
    rt_negate(r + RT_W);
}

// r = z_r^2 + z_i^2.
__device__ void rt_norm2(u64 *r, const u64 *z, u64 p) {
    u64 t1[RT_W], t2[RT_W];
    rt_mul(t1, z, z, p, FL_RN);
    rt_mul(t2, z + RT_W, z + RT_W, p, FL_RN);
    rt_add(r, t1, t2, false, p, FL_RN);
}

// Whether the tree slot at k covering `width` leaves holds a leaf other
// than `skip` (of cnt).
__device__ __forceinline__ bool rt_present(u32 k, u32 width, u32 cnt, u32 skip) {
    u32 end = k + width < cnt ? k + width : cnt;
    return end > k && !(end - k == 1 && k == skip);
}

// The pairwise sum of cnt leaves of `parts` floats (stride parts * RT_W
// words) in v, leaf `skip` absent, into leaf 0 (zeros when all are
// absent); the whole block calls it.
__device__ void rt_tsum(u64 *v, u32 cnt, u32 parts, u32 skip, u64 p, u32 rnd) {
    const u32 cw = parts * RT_W;
    u32 s = 1;
    for (; s < cnt; s *= 2) {
        for (u32 q = threadIdx.x; (u64)q * 2 * s + s < cnt; q += blockDim.x) {
            u32 k = q * 2 * s;
            bool l = rt_present(k, s, cnt, skip), r = rt_present(k + s, s, cnt, skip);
            u64 *a = v + (u64)k * cw, *b = v + (u64)(k + s) * cw;
            if (l && r) {
                u64 tmp[RT_W];
                for (u32 part = 0; part < parts; part++) {
                    rt_add(tmp, a + part * RT_W, b + part * RT_W, false, p, rnd);
                    rt_copy(a + part * RT_W, tmp, RT_W);
                }
            } else if (r) {
                rt_copy(a, b, cw);
            }
        }
        __syncthreads();
    }
    if (threadIdx.x == 0 && !rt_present(0, s, cnt, skip))
        for (u32 k = 0; k < cw; k++) v[k] = 0;
    __syncthreads();
}

// A pairwise sum (polyroots.rs's Ar::tsum): cnt leaves of `parts` floats
// at v (stride parts * RT_W words), leaf `skip` absent, into leaf 0
// (zeros when every leaf is absent); `rnd` per part.
struct RtTree {
    u64 *v;
    u32 cnt, parts, skip, rnd;
};

// The tree's pair count at level s: slots q with 2qs + s < cnt.
__device__ __forceinline__ u32 rt_pairs(u32 cnt, u32 s) {
    return cnt > s ? (cnt - s + 2 * s - 1) / (2 * s) : 0;
}

// NT trees summed together, level by level (block-wide): a level's
// additions, every tree's and every part's, are the block's items, each
// the same operation as in the tree's own sum: one per thread, or, in a
// level of at most two per warp, one per warp (rt_wadd into the warp's
// row of gsc, then copied; not with RT_V & 8192).
template <int NT>
__device__ void rt_tsums(const RtTree (&tr)[NT], u64 p, u64 (*gsc)[RT_WSC]) {
    u32 maxc = 0;
    for (int a = 0; a < NT; a++) maxc = tr[a].cnt > maxc ? tr[a].cnt : maxc;
    const u32 nw = blockDim.x >> 5, wk = threadIdx.x >> 5, lane = threadIdx.x & 31;
    u32 s = 1;
    for (; s < maxc; s *= 2) {
        u32 tot = 0;
        for (int a = 0; a < NT; a++) tot += rt_pairs(tr[a].cnt, s) * tr[a].parts;
        const bool wide = (RT_V & 8192) == 0 && tot <= 2 * nw;
        for (u32 m = wide ? wk : threadIdx.x; m < tot; m += wide ? nw : blockDim.x) {
            u32 mm = m;
            int a = 0;
            while (a + 1 < NT && mm >= rt_pairs(tr[a].cnt, s) * tr[a].parts) {
                mm -= rt_pairs(tr[a].cnt, s) * tr[a].parts;
                a++;
            }
            const u32 parts = tr[a].parts, cnt = tr[a].cnt, skip = tr[a].skip;
            const u32 k = (mm / parts) * 2 * s, part = mm % parts;
            bool l = rt_present(k, s, cnt, skip), r = rt_present(k + s, s, cnt, skip);
            u64 *pa = tr[a].v + ((u64)k * parts + part) * RT_W;
            u64 *pb = tr[a].v + ((u64)(k + s) * parts + part) * RT_W;
            if (wide) {
                if (l && r) {
                    u64 *tmp = gsc[wk];
                    rt_wadd(tmp, pa, pb, false, p, tr[a].rnd, RT_WZ);
                    for (u32 k = lane; k < RT_W; k += 32) pa[k] = tmp[k];
                } else if (r) {
                    for (u32 k = lane; k < RT_W; k += 32) pa[k] = pb[k];
                }
                __syncwarp();
            } else if (l && r) {
                u64 tmp[RT_W];
                rt_add(tmp, pa, pb, false, p, tr[a].rnd);
                rt_copy(pa, tmp, RT_W);
            } else if (r) {
                rt_copy(pa, pb, RT_W);
            }
        }
        __syncthreads();
    }
    // s >= every cnt: whether a tree had any leaf at all.
    for (int a = 0; a < NT; a++)
        if (!rt_present(0, s, tr[a].cnt, tr[a].skip))
            for (u32 k = threadIdx.x; k < tr[a].parts * RT_W; k += blockDim.x) tr[a].v[k] = 0;
    __syncthreads();
}

// Per-root workspace, in floats of RT_W words: X (n+1 complex), R (n+1),
// the leaves of p (n+1 complex), p' (n complex), noise (n+1), S (n
// complex), T (8(n+1): the products before their sums), U (24: the
// correction's values), E (5n: the first sub-step's repulsion values when
// it runs beside the powers, RT_V bit 1024). cuda_roots.rs sizes the same.
__device__ __forceinline__ u64 rt_ws_words(u32 n) { return (23 * (u64)n + 38) * RT_W; }

struct RtWs {
    u64 *X, *R, *P, *Q, *Z, *S, *T, *U, *E;
};

__device__ __forceinline__ RtWs rt_ws(u64 *ws, u32 i, u32 n) {
    RtWs w;
    u64 *b = ws + (u64)i * rt_ws_words(n);
    w.X = b;
    b += (u64)(n + 1) * RT_CW;
    w.R = b;
    b += (u64)(n + 1) * RT_W;
    w.P = b;
    b += (u64)(n + 1) * RT_CW;
    w.Q = b;
    b += (u64)n * RT_CW;
    w.Z = b;
    b += (u64)(n + 1) * RT_W;
    w.S = b;
    b += (u64)n * RT_CW;
    w.T = b;
    b += (u64)8 * (n + 1) * RT_W;
    w.U = b;
    b += (u64)24 * RT_W;
    w.E = b;
    return w;
}

// Float k of a packed array.
#define RT_F(a, k) ((a) + (u64)(k) * RT_W)

// The launch's dynamic shared memory (its base; its size in bytes into
// `bytes`). With enough of it (cuda_roots.rs passes it when the device
// has room) the kernels keep their per-root values there instead of in
// the global workspace (same operations on the same values, so the same
// bits; only the memory differs): roots_aberth_first X, R, P, Q, Z, S
// and U (T stays global), roots_aberth_next S, U, T's 5n floats and
// copies of t and x_i, roots_certify its H. Words needed: rt_sm_first,
// rt_sm_next, rt_cert_words (cuda_roots.rs computes the same).
__device__ __forceinline__ u64 *rt_dsm(u32 &bytes) {
#ifdef __CUDA_ARCH__
    extern __shared__ __align__(16) u64 rt_dsm_base[];
    u32 v;
    asm volatile("mov.u32 %0, %%dynamic_smem_size;" : "=r"(v));
    bytes = v;
    return rt_dsm_base;
#else
    bytes = 0;
    return nullptr;
#endif
}

__device__ __forceinline__ u64 rt_sm_first(u32 n) { return (10 * (u64)n + 30) * RT_W; }
__device__ __forceinline__ u64 rt_sm_next(u32 n) { return (9 * (u64)n + 26) * RT_W; }

// The profile (MPARRAY_ROOTS_PROFILE): thread 0 of each block adds the
// clock cycles since its last mark to slot k (after a barrier, so a slot
// holds the block's time for that phase); p null when off.
// Slots 11 and 12 (at rt_done): the block's whole time in nanoseconds
// (%globaltimer) and in cycles, which give the clock rate.
struct RtProf {
    unsigned long long *p;
    long long t, c0;
    u64 g0;
};

__device__ __forceinline__ u64 rt_gtime() {
#ifdef __CUDA_ARCH__
    u64 g;
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(g));
    return g;
#else
    return 0;
#endif
}

__device__ __forceinline__ RtProf rt_prof(u64 *prof, u32 on, u32 base) {
    long long c = clock64();
    RtProf r = {on ? (unsigned long long *)prof + base : nullptr, c, c, rt_gtime()};
    return r;
}

__device__ __forceinline__ void rt_done(RtProf &pf) {
    if (pf.p && threadIdx.x == 0) {
        atomicAdd(pf.p + 11, (unsigned long long)(rt_gtime() - pf.g0));
        atomicAdd(pf.p + 12, (unsigned long long)(clock64() - pf.c0));
    }
}

// The profile's launch spans: slots 64 + 6 row + 2 k (the earliest block
// start, %globaltimer) and + 1 (the latest block end) of the step's
// launch k (0: roots_aberth_first; 1 + last: roots_aberth_next), for
// cuda_roots.rs's span and gap report.
__device__ __forceinline__ void rt_span(u64 *prof, u32 on, u32 row, u32 k, bool end) {
#ifdef __CUDA_ARCH__
    if (on && threadIdx.x == 0) {
        unsigned long long *s = (unsigned long long *)prof + 64 + 6 * row + 2 * k;
        if (end) atomicMax(s + 1, (unsigned long long)rt_gtime());
        else atomicMin(s, (unsigned long long)rt_gtime());
    }
#endif
}

__device__ __forceinline__ void rt_mark(RtProf &pf, int k) {
    if (pf.p && threadIdx.x == 0) {
        long long c = clock64();
        atomicAdd(pf.p + k, (unsigned long long)(c - pf.t));
        pf.t = c;
    }
}

#define RT_F_ISO 1
#define RT_F_NOISE 2
#define RT_F_SMALL 4
// A step not made: the iteration had stopped (cuda_roots.rs's chained
// steps).
#define RT_F_SKIP 0x80

// The leaves 1/(x_i - t_j), j != i, into S and their sum into S's leaf 0
// (block-wide): d = x_i - t_j, its parts' squares, q = 1/(d_r^2 + d_i^2),
// (d_r q, -(d_i q)), each phase over every leaf and part at once. FIRST:
// the first phase also copies p, p' (the sums' leaves 0) to pdi and sets
// the noise flag (sf[0]).
template <bool FIRST, bool TREE = true>
__device__ void rt_repulsion(u32 i, const u64 *xi, const u64 *t, const RtWs &w, u32 n,
                             const u64 *one, u64 p, u64 *pdi, i64 kshift, u32 *sf,
                             RtProf &pf, u64 (*gsc)[RT_WSC]) {
    u64 *D = w.T, *SQ = RT_F(w.T, 2 * n), *IQ = RT_F(w.T, 4 * n);
    const u32 m2 = 2 * (n - 1);
    for (u32 m = threadIdx.x; m < m2 + (FIRST ? 3 : 0); m += blockDim.x) {
        if (m < m2) {
            u32 j = m / 2, part = m % 2;
            j += j >= i;
            rt_add(RT_F(D, 2 * j + part), RT_F(xi, part), RT_F(t + (u64)j * RT_CW, part), true, p,
                   FL_RN);
        } else if (m == m2) {
            // At noise: |p|_1 <= 2^kshift noise (RU).
            u64 ar[RT_W], ai[RT_W], a1[RT_W], thr[RT_W];
            rt_abs(ar, w.P);
            rt_abs(ai, RT_F(w.P, 1));
            rt_add(a1, ar, ai, false, p, FL_RU);
            rt_shift(thr, w.Z, kshift, p, FL_RU);
            if (rt_le(a1, thr)) sf[0] = RT_F_NOISE;
        } else if (m == m2 + 1) {
            rt_copy(pdi, w.P, RT_CW);
        } else {
            rt_copy(pdi + RT_CW, w.Q, RT_CW);
        }
    }
    __syncthreads();
    rt_mark(pf, 5);
    // RT_V bit 512: the squares and products by groups of 8 lanes.
    const u32 gl = (RT_V & 512) != 0 && RT_N >= 8 && blockDim.x / 8 <= RT_GROUPS ? 8 : 1;
    const u32 ng = blockDim.x / gl;
    u64 *gs = gsc[gl > 1 ? threadIdx.x / gl : 0];
    for (u32 m = threadIdx.x / gl; m < m2; m += ng) {
        u32 j = m / 2, part = m % 2;
        j += j >= i;
        const u64 *d = RT_F(D, 2 * j + part);
        rt_gmul_n(gl, RT_F(SQ, 2 * j + part), d, d, p, FL_RN, gs);
    }
    __syncthreads();
    rt_mark(pf, 6);
    for (u32 m = threadIdx.x; m < n - 1; m += blockDim.x) {
        u32 j = m + (m >= i);
        u64 q[RT_W];
        rt_add(q, RT_F(SQ, 2 * j), RT_F(SQ, 2 * j + 1), false, p, FL_RN);
        rt_div(RT_F(IQ, j), one, q, p);
    }
    __syncthreads();
    rt_mark(pf, 7);
    for (u32 m = threadIdx.x / gl; m < m2; m += ng) {
        u32 j = m / 2, part = m % 2;
        j += j >= i;
        u64 *r = RT_F(w.S, 2 * j + part);
        rt_gmul_n(gl, r, RT_F(D, 2 * j + part), RT_F(IQ, j), p, FL_RN, gs);
        if (part && threadIdx.x % gl == 0) rt_negate(r);
    }
    __syncthreads();
    rt_mark(pf, 8);
    if (TREE) {
        RtTree tr[1] = {{w.S, n, 2, i, FL_RN}};
        rt_tsums(tr, p, gsc);
        rt_mark(pf, 9);
    }
}

// A barrier of the nt threads of a team: bar 0 the block's
// (__syncthreads), else the named barrier bar (nt a multiple of 32).
__device__ __forceinline__ void rt_bar(u32 bar, u32 nt) {
#ifdef __CUDA_ARCH__
    if (bar == 0) __syncthreads();
    else asm volatile("bar.sync %0, %1;" ::"r"(bar), "r"(nt) : "memory");
#else
    __syncthreads();
#endif
}

// rt_repulsion's leaves (no tree) by a team of nt threads (tid: the
// thread's index in it, bar: its barrier), each product by one thread:
// the same operations, D, SQ, IQ as given (2n, 2n, n floats).
__device__ void rt_rep_leaves(u32 i, const u64 *xi, const u64 *t, u64 *D, u64 *SQ, u64 *IQ,
                              u64 *S, u32 n, const u64 *one, u64 p, u32 tid, u32 nt, u32 bar) {
    const u32 m2 = 2 * (n - 1);
    for (u32 m = tid; m < m2; m += nt) {
        u32 j = m / 2, part = m % 2;
        j += j >= i;
        rt_add(RT_F(D, 2 * j + part), RT_F(xi, part), RT_F(t + (u64)j * RT_CW, part), true, p,
               FL_RN);
    }
    rt_bar(bar, nt);
    for (u32 m = tid; m < m2; m += nt) {
        u32 j = m / 2, part = m % 2;
        j += j >= i;
        const u64 *d = RT_F(D, 2 * j + part);
        rt_mul(RT_F(SQ, 2 * j + part), d, d, p, FL_RN);
    }
    rt_bar(bar, nt);
    for (u32 m = tid; m < n - 1; m += nt) {
        u32 j = m + (m >= i);
        u64 q[RT_W];
        rt_add(q, RT_F(SQ, 2 * j), RT_F(SQ, 2 * j + 1), false, p, FL_RN);
        rt_div(RT_F(IQ, j), one, q, p);
    }
    rt_bar(bar, nt);
    for (u32 m = tid; m < m2; m += nt) {
        u32 j = m / 2, part = m % 2;
        j += j >= i;
        u64 *r = RT_F(S, 2 * j + part);
        rt_mul(r, RT_F(D, 2 * j + part), RT_F(IQ, j), p, FL_RN);
        if (part) rt_negate(r);
    }
    rt_bar(bar, nt);
}

// The correction of root i from p, p' (pdi) and the sum S (S's leaf 0),
// block-wide, the independent operations on different threads: ps = p S,
// iso (first: 16 |ps|^2 <= |p'|^2), c = p (1/(p' - ps)), t' = x_i - c
// into tout, small (last: |c|^2 <= tol^2 |t'|^2), then the flags (first:
// sf[0] holds the noise flag).
__device__ void rt_tail(u32 i, const u64 *xi, const u64 *pdi, const RtWs &w, u64 *tout,
                        u8 *flags, u32 *sf, const u64 *one, const u64 *tol2, u64 p, bool first,
                        bool last, RtProf &pf) {
    const u64 *pr = pdi, *pi = RT_F(pdi, 1), *dr = RT_F(pdi, 2), *di = RT_F(pdi, 3);
    const u64 *sr = w.S, *si = RT_F(w.S, 1);
    u64 *U = w.U;
    const u32 t = threadIdx.x;
    // Each independent operation on its own warp (different warps run in
    // parallel; lanes of one warp on different branches would not): the
    // products and additions by the whole warp (rt_wmul, rt_addw; sc, the
    // warp's scratch, holds a sum for lane 0's next step), the rest on its
    // lane 0.
    const u32 wk = t >> 5;
    const bool l0 = (t & 31) == 0;
    __shared__ u64 wsc[RT_BLOCK / 32][RT_WSC];
    u64 *sc = wsc[wk];
    // ps's products; |p'|^2's squares.
    if (wk == 0) rt_wmul(RT_F(U, 0), pr, sr, p, FL_RN, sc);
    else if (wk == 1) rt_wmul(RT_F(U, 1), pi, si, p, FL_RN, sc);
    else if (wk == 2) rt_wmul(RT_F(U, 2), pr, si, p, FL_RN, sc);
    else if (wk == 3) rt_wmul(RT_F(U, 3), pi, sr, p, FL_RN, sc);
    else if (first && wk == 4) rt_wmul(RT_F(U, 4), dr, dr, p, FL_RN, sc);
    else if (first && wk == 5) rt_wmul(RT_F(U, 5), di, di, p, FL_RN, sc);
    __syncthreads();
    // ps (U6, U7); |p'|^2 (U8).
    if (wk == 0) rt_addw(RT_F(U, 6), RT_F(U, 0), RT_F(U, 1), true, p, FL_RN, 0);
    else if (wk == 1) rt_addw(RT_F(U, 7), RT_F(U, 2), RT_F(U, 3), false, p, FL_RN, 0);
    else if (first && wk == 2) rt_addw(RT_F(U, 8), RT_F(U, 4), RT_F(U, 5), false, p, FL_RN, 0);
    __syncthreads();
    // den = p' - ps (U9, U10); |ps|^2's squares.
    if (wk == 0) rt_addw(RT_F(U, 9), dr, RT_F(U, 6), true, p, FL_RN, 0);
    else if (wk == 1) rt_addw(RT_F(U, 10), di, RT_F(U, 7), true, p, FL_RN, 0);
    else if (first && wk == 2) rt_wmul(RT_F(U, 11), RT_F(U, 6), RT_F(U, 6), p, FL_RN, sc);
    else if (first && wk == 3) rt_wmul(RT_F(U, 12), RT_F(U, 7), RT_F(U, 7), p, FL_RN, sc);
    __syncthreads();
    // den's squares; iso.
    if (wk == 0) rt_wmul(RT_F(U, 13), RT_F(U, 9), RT_F(U, 9), p, FL_RN, sc);
    else if (wk == 1) rt_wmul(RT_F(U, 14), RT_F(U, 10), RT_F(U, 10), p, FL_RN, sc);
    else if (first && wk == 2) {
        rt_addw(sc, RT_F(U, 11), RT_F(U, 12), false, p, FL_RN, 0);
        if (l0) {
            u64 a16[RT_W];
            rt_shift(a16, sc, 4, p, FL_RN);
            sf[1] = rt_le(a16, RT_F(U, 8)) ? 1 : 0;
        }
    }
    __syncthreads();
    // 1/(den_r^2 + den_i^2) (U15).
    if (wk == 0) {
        rt_addw(sc, RT_F(U, 13), RT_F(U, 14), false, p, FL_RN, 0);
        if (l0) rt_div(RT_F(U, 15), one, sc, p);
    }
    __syncthreads();
    // 1/den (U16, U17).
    if (wk == 0) rt_wmul(RT_F(U, 16), RT_F(U, 9), RT_F(U, 15), p, FL_RN, sc);
    else if (wk == 1) {
        rt_wmul(RT_F(U, 17), RT_F(U, 10), RT_F(U, 15), p, FL_RN, sc);
        if (l0) rt_negate(RT_F(U, 17));
    }
    __syncthreads();
    // c = p (1/den): products, then c (U22, U23).
    if (wk == 0) rt_wmul(RT_F(U, 18), pr, RT_F(U, 16), p, FL_RN, sc);
    else if (wk == 1) rt_wmul(RT_F(U, 19), pi, RT_F(U, 17), p, FL_RN, sc);
    else if (wk == 2) rt_wmul(RT_F(U, 20), pr, RT_F(U, 17), p, FL_RN, sc);
    else if (wk == 3) rt_wmul(RT_F(U, 21), pi, RT_F(U, 16), p, FL_RN, sc);
    __syncthreads();
    if (wk == 0) rt_addw(RT_F(U, 22), RT_F(U, 18), RT_F(U, 19), true, p, FL_RN, 0);
    else if (wk == 1) rt_addw(RT_F(U, 23), RT_F(U, 20), RT_F(U, 21), false, p, FL_RN, 0);
    __syncthreads();
    // t' = x_i - c; |c|^2's squares.
    u64 *tn = tout + (u64)i * RT_CW;
    if (wk == 0) rt_addw(tn, xi, RT_F(U, 22), true, p, FL_RN, 0);
    else if (wk == 1) rt_addw(RT_F(tn, 1), RT_F(xi, 1), RT_F(U, 23), true, p, FL_RN, 0);
    else if (last && wk == 2) rt_wmul(RT_F(U, 0), RT_F(U, 22), RT_F(U, 22), p, FL_RN, sc);
    else if (last && wk == 3) rt_wmul(RT_F(U, 1), RT_F(U, 23), RT_F(U, 23), p, FL_RN, sc);
    if (last) {
        __syncthreads();
        if (wk == 0) rt_wmul(RT_F(U, 2), tn, tn, p, FL_RN, sc);
        else if (wk == 1) rt_wmul(RT_F(U, 3), RT_F(tn, 1), RT_F(tn, 1), p, FL_RN, sc);
        else if (wk == 2) rt_addw(RT_F(U, 4), RT_F(U, 0), RT_F(U, 1), false, p, FL_RN, 0);
        __syncthreads();
        // |t'|^2 (U5), then tol^2 |t'|^2 (U6) by a warp, then the test
        // (U5 and U6 are free by now).
        if (wk == 0) rt_addw(RT_F(U, 5), RT_F(U, 2), RT_F(U, 3), false, p, FL_RN, 0);
        __syncthreads();
        if (wk == 0) rt_wmul(RT_F(U, 6), RT_F(U, 5), tol2, p, FL_RN, sc);
        __syncthreads();
        if (t == 0) sf[2] = rt_le(RT_F(U, 4), RT_F(U, 6)) ? 1 : 0;
    }
    __syncthreads();
    if (t == 0) {
        u8 f = first ? (u8)sf[0] : flags[i];
        if (first) f = sf[1] ? (f | RT_F_ISO) : (f & ~RT_F_ISO);
        f &= ~RT_F_SMALL;
        if (last && sf[2]) f |= RT_F_SMALL;
        flags[i] = f;
    }
    rt_mark(pf, 10);
}


// The power levels' group products: at most RT_GROUPS groups (their
// shared scratch), of at least 4 lanes.
// Lanes per product of a power level with `prods` products on `b` threads:
// the largest power of two up to 32 with prods * g <= b, at least 4 and
// with at most RT_GROUPS groups; 1 (a product per thread) otherwise or
// below 8 limbs (RT_V bit 64: always 1).
__device__ __forceinline__ u32 rt_power_group(u32 prods, u32 b) {
    if ((RT_V & 64) != 0 || RT_N < 8 || prods > RT_GROUPS) return 1;
    u32 g = 32;
    while (g >= 4 && prods * g > b) g /= 2;
    return g >= 4 ? g : 1;
}

// The powers X_k = X_s X_{k-s}, R_k = R_s R_{k-s} (RU), s < k <= min(2s, n),
// by a team of nt threads (tid, bar: as rt_rep_leaves; the block's
// threads with bar 0): a level's products (four per complex power, one
// per R), then its sums. The team's warps come first in the block (the
// groups of lanes are aligned in their warps).
__device__ void rt_powers(u64 *X, u64 *R, u64 *T, u32 n, u64 p, u32 tid, u32 nt, u32 bar,
                          u64 (*gsc)[RT_WSC]) {
    for (u32 s = 1; s < n; s *= 2) {
        const u32 cnt = (2 * s < n ? 2 * s : n) - s;
        const u64 *xs = X + (u64)s * RT_CW;
        // The complex products (m < 4 cnt) before the R ones, so that a
        // warp's lanes take one branch.
        // Narrow levels: each product by a group of g lanes (rt_gmul).
        const u32 g = rt_power_group(5 * cnt, nt);
        const u32 step = g > 1 ? 1 : nt;
        for (u32 m = g > 1 ? tid / g : tid; m < 5 * cnt; m += step) {
            const bool rr = m >= 4 * cnt;
            const u32 k = s + 1 + (rr ? m - 4 * cnt : m / 4), c = rr ? 4 : m % 4;
            const u64 *y = X + (u64)(k - s) * RT_CW;
            // One call for both kinds (a warp's groups stay on one path).
            u64 *r = c == 4 ? RT_F(R, k) : RT_F(T, 4 * k + c);
            const u64 *a = c == 4 ? RT_F(R, s) : RT_F(xs, c & 1);
            const u64 *b = c == 4 ? RT_F(R, k - s) : RT_F(y, c == 1 || c == 2);
            rt_gmul_n(g, r, a, b, p, c == 4 ? FL_RU : FL_RN, gsc[g > 1 ? m : 0]);
            if (g > 1) break;
        }
        rt_bar(bar, nt);
        for (u32 m = tid; m < 2 * cnt; m += nt) {
            const u32 k = s + 1 + m / 2, part = m % 2;
            rt_add(RT_F(X, 2 * k + part), RT_F(T, 4 * k + 2 * part), RT_F(T, 4 * k + 2 * part + 1),
                   part == 0, p, FL_RN);
        }
        rt_bar(bar, nt);
}
}

// Phase A of a step, block i = root i: powers, p, p', noise, S(x), the
// first correction t^(1) into tout, p and p' into pd, the flags.
// consts: 1 and tol^2.
extern "C" __global__ void __launch_bounds__(RT_BLOCK)
    roots_aberth_first(const u64 *x, u64 *tout, u64 *pd, u64 *ws, u8 *fring, const u64 *A,
                       const u64 *D, const u64 *AB, const u64 *consts, u32 n, u64 p, i64 kshift,
                       u32 last, u64 *prof, u32 profon, u32 row, u32 prow, u32 prow2,
                       u32 check) {
    __shared__ u32 sf[4];
    __shared__ u64 gsc[RT_GROUPS][RT_WSC];
    const u32 i = blockIdx.x, t = threadIdx.x, B = blockDim.x;
    u8 *flags = fring + (u64)row * n;
    rt_span(prof, profon, row, 0, false);
    if (check != 0) {
        // The stopping test of the previous step (polyroots.rs's run):
        // every root converged, or that step skipped; then skip this one.
        const u8 *f1 = fring + (u64)prow * n, *f2 = fring + (u64)prow2 * n;
        bool open = false;
        for (u32 j = t; j < n; j += B) {
            const u8 f = f1[j];
            const bool conv = (f & RT_F_SKIP) != 0 ||
                              ((f & RT_F_ISO) != 0 && ((f & RT_F_NOISE) != 0 || (f2[j] & RT_F_SMALL) != 0));
            open = open || !conv;
        }
        if (__syncthreads_or(open) == 0) {
            if (t == 0) flags[i] = RT_F_SKIP;
            return;
        }
    }
    RtProf pf = rt_prof(prof, profon, 0);
    const u64 *one = consts, *tol2 = consts + RT_W;
    const u64 *xi = x + (u64)i * RT_CW;
    RtWs w = rt_ws(ws, i, n);
    {
        u32 db;
        u64 *sm = rt_dsm(db);
        if (rt_sm_first(n) * 8 <= db) {
            w.X = sm;
            w.R = w.X + (u64)(n + 1) * RT_CW;
            w.P = w.R + (u64)(n + 1) * RT_W;
            w.Q = w.P + (u64)(n + 1) * RT_CW;
            w.Z = w.Q + (u64)n * RT_CW;
            w.S = w.Z + (u64)(n + 1) * RT_W;
            w.U = w.S + (u64)n * RT_CW;
        }
    }
    u64 *X = w.X, *R = w.R, *T = w.T;
    if (t == 0) {
        rt_copy(X, one, RT_W);
        for (u32 k = 0; k < RT_W; k++) X[RT_W + k] = 0;
        rt_copy(X + RT_CW, xi, RT_CW);
        rt_copy(R, one, RT_W);
        u64 ar[RT_W], ai[RT_W];
        rt_abs(ar, xi);
        rt_abs(ai, xi + RT_W);
        rt_add(RT_F(R, 1), ar, ai, false, p, FL_RU);
        sf[0] = 0;
        sf[1] = 0;
        sf[2] = 0;
    }
    __syncthreads();
    rt_mark(pf, 0);
    // The powers; RT_V bit 1024: on the first h threads of the block (half
    // of it; with bit 2048 five eighths, with bit 4096 three quarters)
    // while the others make the repulsion's leaves (independent of them;
    // its values in E): the same operations.
    const u32 h = (RT_V & 2048) != 0 ? B / 8 * 5 : ((RT_V & 4096) != 0 ? B / 4 * 3 : B / 2);
    const bool ovl = (RT_V & 1024) != 0 && h % 32 == 0 && h > 0 && h < B;
    if (ovl) {
        if (t < h) rt_powers(X, R, T, n, p, t, h, 1, gsc);
        else
            rt_rep_leaves(i, xi, x, w.E, RT_F(w.E, 2 * n), RT_F(w.E, 4 * n), w.S, n, one, p, t - h,
                          B - h, 2);
        __syncthreads();
    } else {
        rt_powers(X, R, T, n, p, t, B, 0, gsc);
    }
    rt_mark(pf, 1);
    // Terms A_k X_k, D_k X_k (products, then sums) and |A_k|_1 R_k (RU).
    // The products by kind c (0: a_r y_r, 2: a_r y_i, then the R products,
    // then 1: a_i y_i, 3: a_i y_r), each kind over p's and p''s terms: with
    // real coefficients the products by a_i = 0 (cheap) come last, so the
    // others spread over every thread.
    {
        const u32 g = 2 * n + 1, tot = 4 * g + n + 1;
        // RT_V bit 256: each product by a group of 8 lanes.
        const u32 gl = (RT_V & 256) != 0 && RT_N >= 8 && B / 8 <= RT_GROUPS ? 8 : 1, ng = B / gl;
        for (u32 m = t / gl; m < tot; m += ng) {
            u64 *r;
            const u64 *a, *b;
            u32 rnd = FL_RN;
            if (m >= 2 * g && m < 2 * g + n + 1) {
                const u32 k = m - 2 * g;
                r = RT_F(w.Z, k);
                a = RT_F(AB, k);
                b = RT_F(R, k);
                rnd = FL_RU;
            } else {
                const u32 mm = m < 2 * g ? m : m - (n + 1), grp = mm / g, rm = mm % g;
                const u32 c = grp == 0 ? 0 : (grp == 1 ? 2 : (grp == 2 ? 1 : 3));
                const bool q = rm > n;
                const u32 k = q ? rm - (n + 1) : rm;
                const u64 *ca = (q ? D : A) + (u64)k * RT_CW, *y = X + (u64)k * RT_CW;
                r = RT_F(T, 8 * k + (q ? 4 : 0) + c);
                a = RT_F(ca, c & 1);
                b = RT_F(y, c == 1 || c == 2);
            }
            rt_gmul_n(gl, r, a, b, p, rnd, gsc[gl > 1 ? t / gl : 0]);
        }
        __syncthreads();
        rt_mark(pf, 2);
        for (u32 m = t; m < 2 * (n + 1) + 2 * n; m += B) {
            const bool q = m >= 2 * (n + 1);
            const u32 mm = q ? m - 2 * (n + 1) : m, k = mm / 2, part = mm % 2;
            const u32 o = 8 * k + (q ? 4 : 0) + 2 * part;
            rt_add(RT_F(q ? w.Q : w.P, 2 * k + part), RT_F(T, o), RT_F(T, o + 1), part == 0, p,
                   FL_RN);
        }
        __syncthreads();
        rt_mark(pf, 3);
    }
    // The repulsion's leaves (T is free again), then the sums of p, p', the
    // noise and S together, level by level.
    if (!ovl) rt_repulsion<false, false>(i, xi, x, w, n, one, p, nullptr, 0, sf, pf, gsc);
    {
        RtTree tr[4] = {{w.P, n + 1, 2, 0xffffffffu, FL_RN},
                        {w.Q, n, 2, 0xffffffffu, FL_RN},
                        {w.Z, n + 1, 1, 0xffffffffu, FL_RU},
                        {w.S, n, 2, i, FL_RN}};
        rt_tsums(tr, p, gsc);
        rt_mark(pf, 4);
    }
    // At noise: |p|_1 <= 2^kshift noise (RU); p and p' to pd.
    u64 *pdi = pd + (u64)i * 2 * RT_CW;
    if (t == 0) {
        u64 ar[RT_W], ai[RT_W], a1[RT_W], thr[RT_W];
        rt_abs(ar, w.P);
        rt_abs(ai, RT_F(w.P, 1));
        rt_add(a1, ar, ai, false, p, FL_RU);
        rt_shift(thr, w.Z, kshift, p, FL_RU);
        if (rt_le(a1, thr)) sf[0] = RT_F_NOISE;
    } else if (t == 32) {
        rt_copy(pdi, w.P, RT_CW);
    } else if (t == 64) {
        rt_copy(pdi + RT_CW, w.Q, RT_CW);
    }
    __syncthreads();
    rt_mark(pf, 9);
    rt_tail(i, xi, pdi, w, tout, flags, sf, one, tol2, p, true, last != 0, pf);
    rt_done(pf);
    rt_span(prof, profon, row, 0, true);
}

// A later sub-step, block i = root i: t' = x_i - p/(p' - p S(t)).
extern "C" __global__ void __launch_bounds__(RT_BLOCK)
    roots_aberth_next(const u64 *x, const u64 *t, u64 *tout, const u64 *pd, u64 *ws, u8 *fring,
                      const u64 *consts, u32 n, u64 p, u32 last, u64 *prof, u32 profon, u32 row) {
    u8 *flags = fring + (u64)row * n;
    rt_span(prof, profon, row, 1 + last, false);
    // The step's first sub-step skipped (the iteration had stopped).
    if ((flags[blockIdx.x] & RT_F_SKIP) != 0) return;
    __shared__ u32 sf[4];
    __shared__ u64 gsc[RT_GROUPS][RT_WSC];
    RtProf pf = rt_prof(prof, profon, 16);
    const u32 i = blockIdx.x;
    const u64 *one = consts, *tol2 = consts + RT_W;
    const u64 *xi = x + (u64)i * RT_CW;
    RtWs w = rt_ws(ws, i, n);
    {
        u32 db;
        u64 *sm = rt_dsm(db);
        if (rt_sm_next(n) * 8 <= db) {
            w.S = sm;
            w.U = w.S + (u64)n * RT_CW;
            w.T = w.U + (u64)24 * RT_W;
            u64 *tc = w.T + (u64)5 * n * RT_W, *xc = tc + (u64)n * RT_CW;
            for (u32 k = threadIdx.x; k < n * RT_CW; k += blockDim.x) tc[k] = t[k];
            for (u32 k = threadIdx.x; k < RT_CW; k += blockDim.x) xc[k] = xi[k];
            t = tc;
            xi = xc;
            __syncthreads();
        }
    }
    if (threadIdx.x == 0) sf[2] = 0;
    const u64 *pdi = pd + (u64)i * 2 * RT_CW;
    rt_repulsion<false>(i, xi, t, w, n, one, p, nullptr, 0, sf, pf, gsc);
    rt_tail(i, xi, pdi, w, tout, flags, sf, one, tol2, p, false, last != 0, pf);
    rt_done(pf);
    rt_span(prof, profon, row, 1 + last, true);
}

// Per-point workspace of roots_certify, in floats: per k = 0..n the four
// products, t and s (8), then n + 1 floats no longer used.
__device__ __forceinline__ u64 rt_cert_words(u32 n) { return (u64)9 * (n + 1) * RT_W; }

// The radius term of k: m2_k = 2^-p (|rr| + |ii| + |ri| + |ir| + |t|_1 +
// |s|_1) (RU, in this order), from H_k's eight floats.
__device__ void rt_cert_m(u64 *out, const u64 *h, u64 p) {
    u64 ta[RT_W], tb[RT_W], m[RT_W], m2[RT_W], u[RT_W];
    rt_abs(ta, RT_F(h, 0));
    rt_abs(tb, RT_F(h, 1));
    rt_add(m, ta, tb, false, p, FL_RU);
    rt_abs(ta, RT_F(h, 2));
    rt_add(m2, m, ta, false, p, FL_RU);
    rt_abs(ta, RT_F(h, 3));
    rt_add(m, m2, ta, false, p, FL_RU);
    rt_abs(ta, RT_F(h, 4));
    rt_abs(tb, RT_F(h, 5));
    rt_add(u, ta, tb, false, p, FL_RU);
    rt_add(m2, m, u, false, p, FL_RU);
    rt_abs(ta, RT_F(h, 6));
    rt_abs(tb, RT_F(h, 7));
    rt_add(u, ta, tb, false, p, FL_RU);
    rt_add(m, m2, u, false, p, FL_RU);
    rt_shift(out, m, -(i64)p, p, FL_RU);
}

// roots_certify's loop with the radius terms pipelined (8 warps or more):
// the same operations as rt_cert_m and the radius steps, in the same
// order on the same values, but each k's seven additions and shift spread
// over successive ticks on lanes 0 of different warps, so that a tick
// costs a product and two additions instead of a product plus the whole
// chain. Tick j = n-1 .. -4: Horner's step k = j (products on warps 0-3,
// t and s on lanes 0 of warps 0-1); M1 = |rr|+|ii| (warp 4), U1 = |t|_1
// (warp 6), U2 = |s|_1 (warp 7) for k = j+1; M3 = (M1 + |ri|) + |ir|
// (warp 3) for k = j+1; M5 = (M3 + U1) + U2 (warp 4) for k = j+2; MM =
// 2^-p M5 (warp 5) for k = j+3; the radius r_k = (r_(k+1) |x|_1 + MM_k) +
// er_k (product on warp 5, sums on lane 0 of warp 2) for k = j+4. ring:
// per k mod 4 the values M1, M3, U1, U2 / M5 (slot 2 reused: U1 is read
// before M5 is written, by the same thread), MM. The bound |s_0|_1 + r_0
// into out (RU).
#define RT_R(k, v) (ring[(k) & 3][v])
__device__ void rt_cert_pipe(const u64 *xi, u64 *out, const u64 *A, const u64 *er, u64 *H, u32 n,
                             u64 p, u64 *ax, u64 *rr, u64 *uu, u64 (*wsc)[RT_WSC],
                             u64 (*ring)[5][RT_W]) {
    const u32 t = threadIdx.x, wk = t >> 5;
    const bool l0 = (t & 31) == 0;
#define RT_H(k, f) RT_F(H, 8 * (u64)(k) + (f))
    // RT_V & 32768 (a measurement aid): each warp's cycles in its own work
    // and in the whole phase (to the barrier's end), printed by block 0.
    long long cy[4] = {0, 0, 0, 0}, c0 = 0, c1 = 0;
    for (int j = (int)n - 1; j >= -4; j--) {
        const int kh = j, ka = j + 1, kc = j + 2, kd = j + 3, kr = j + 4;
        const bool hon = kh >= 0, aon = ka >= 0 && ka < (int)n, con = kc >= 0 && kc < (int)n,
                   don = kd >= 0 && kd < (int)n, ron = kr >= 0 && kr < (int)n;
        if ((RT_V & 32768) != 0) c0 = clock64();
        // Phase 1.
        if (wk < 4) {
            if (hon) {
                const u64 *s = RT_H(kh + 1, 6);
                rt_wmul(RT_H(kh, wk), RT_F(s, wk & 1), RT_F(xi, wk == 1 || wk == 2), p, FL_RN,
                        wsc[wk]);
            }
        } else if (wk == 5) {
            if (ron) rt_wmul(uu, rr, ax, p, FL_RU, wsc[5]);
        } else if (aon && wk <= 7) {
            const u32 f = wk == 4 ? 0 : (wk == 6 ? 4 : 6);
            rt_addw(RT_R(ka, wk == 4 ? 0 : (wk == 6 ? 2 : 3)), RT_H(ka, f), RT_H(ka, f + 1), false,
                    p, FL_RU, 3);
        }
        if ((RT_V & 32768) != 0) c1 = clock64();
        __syncthreads();
        if ((RT_V & 32768) != 0) {
            const long long c2 = clock64();
            cy[0] += c1 - c0;
            cy[1] += c2 - c0;
            c0 = c2;
        }
        // Phase 2 (warp 5's shift on its lane 0).
        if (wk < 2) {
            if (hon) {
                rt_addw(RT_H(kh, 4 + wk), RT_H(kh, 2 * wk), RT_H(kh, 2 * wk + 1), wk == 0, p, FL_RN,
                        0);
                rt_addw(RT_H(kh, 6 + wk), RT_H(kh, 4 + wk), A + (u64)kh * RT_CW + wk * RT_W, false,
                        p, FL_RN, 0);
            }
        } else if (wk == 2) {
            if (ron) {
                rt_addw(wsc[2], uu, RT_R(kr, 4), false, p, FL_RU, 0);
                rt_addw(rr, wsc[2], er + (u64)kr * RT_W, false, p, FL_RU, 0);
            }
        } else if (wk == 3) {
            if (aon) {
                rt_addw(wsc[3], RT_R(ka, 0), RT_H(ka, 2), false, p, FL_RU, 2);
                rt_addw(RT_R(ka, 1), wsc[3], RT_H(ka, 3), false, p, FL_RU, 2);
            }
        } else if (wk == 4) {
            if (con) {
                rt_addw(wsc[4], RT_R(kc, 1), RT_R(kc, 2), false, p, FL_RU, 0);
                rt_addw(RT_R(kc, 2), wsc[4], RT_R(kc, 3), false, p, FL_RU, 0);
            }
        } else if (wk == 5 && l0) {
            if (don) rt_shift(RT_R(kd, 4), RT_R(kd, 2), -(i64)p, p, FL_RU);
        }
        if ((RT_V & 32768) != 0) c1 = clock64();
        __syncthreads();
        if ((RT_V & 32768) != 0) {
            cy[2] += c1 - c0;
            cy[3] += clock64() - c0;
        }
    }
#if (RT_V & 32768) != 0
    if (blockIdx.x == 0 && (t & 31) == 0)
        printf("roots_certify block 0 warp %u: phase 1 own %lld, whole %lld; phase 2 own %lld, "
               "whole %lld cycles (%d ticks)\n",
               wk, cy[0], cy[1], cy[2], cy[3], (int)n + 4);
#else
    (void)cy;
    (void)c0;
    (void)c1;
#endif
    if (t == 0) {
        u64 ta[RT_W], tb[RT_W], u[RT_W];
        rt_abs(ta, RT_H(0, 6));
        rt_abs(tb, RT_H(0, 7));
        rt_add(u, ta, tb, false, p, FL_RU);
        rt_add(out, u, rr, false, p, FL_RU);
    }
    __syncthreads();
#undef RT_H
}
#undef RT_R

// The rigorous residual bound of polyroots.rs's certify_root, block b =
// points b, b + gridDim.x, ...: Horner's rule, s_k = (t_r + A_r, t_i +
// A_i) with t = (rr - ii, ri + ir) from the four rounded products (each by
// a warp, rt_wmul), and beside it, one k behind, the radius r_k = (r_(k+1)
// |x|_1 + m2_k) + er_k (RU; r_n = er_n) with m2_k from H_k (rt_cert_m); the
// bound |s_0|_1 + r_0 (RU). The same operations as certify_root, so the
// same bits. Roles by warp: products 0-3, m2 on warp 4 and r |x|_1 on warp
// 5 (on warp 3 in blocks of fewer warps, after its product), the sums on
// lane 0 of warps 0-2. er: the coefficients' rounding bounds (n+1 reals);
// out: one real per point; ws: gridDim.x * rt_cert_words(n) words.
extern "C" __global__ void roots_certify(const u64 *x, u64 *out, const u64 *A, const u64 *er,
                                         u64 *ws, u32 n, u32 len, u64 p) {
    const u32 t = threadIdx.x, wk = t >> 5, nw = blockDim.x >> 5;
    const bool l0 = (t & 31) == 0;
    const u32 wm = nw > 4 ? 4 : nw - 1, wu = nw > 5 ? 5 : nw - 1;
    __shared__ u64 wsc[6][RT_WSC];
    __shared__ u64 ax[RT_W], rr[RT_W], uu[RT_W], mm[RT_W];
    __shared__ u64 ring[4][5][RT_W];
    u64 *H = ws + (u64)blockIdx.x * rt_cert_words(n);
    {
        u32 db;
        u64 *sm = rt_dsm(db);
        if (rt_cert_words(n) * 8 <= db) H = sm;
    }
#define RT_H(k, f) RT_F(H, 8 * (u64)(k) + (f))
    for (u32 i = blockIdx.x; i < len; i += gridDim.x) {
        const u64 *xi = x + (u64)i * RT_CW;
        if (t < 2) rt_copy(RT_H(n, 6 + t), A + (u64)n * RT_CW + t * RT_W, RT_W);
        if (t == 32 % blockDim.x) {
            u64 ta[RT_W], tb[RT_W];
            rt_abs(ta, xi);
            rt_abs(tb, xi + RT_W);
            rt_add(ax, ta, tb, false, p, FL_RU);
            rt_copy(rr, er + (u64)n * RT_W, RT_W);
        }
        __syncthreads();
        if (nw >= 8 && (RT_V & 128) == 0) {
            rt_cert_pipe(xi, out + (u64)i * RT_W, A, er, H, n, p, ax, rr, uu, wsc, ring);
        } else {
            for (u32 kk = n; kk-- > 0;) {
                const u64 *s = RT_H(kk + 1, 6);
                const bool rad = kk + 1 < n;
                if (wk < 4) rt_wmul(RT_H(kk, wk), RT_F(s, wk & 1), RT_F(xi, wk == 1 || wk == 2), p, FL_RN,
                                    wsc[wk]);
                if (rad && wk == wm && l0) rt_cert_m(mm, RT_H(kk + 1, 0), p);
                if (rad && wk == wu) rt_wmul(uu, rr, ax, p, FL_RU, wsc[wu]);
                __syncthreads();
                if (l0 && wk < 2) {
                    rt_add(RT_H(kk, 4 + wk), RT_H(kk, 2 * wk), RT_H(kk, 2 * wk + 1), wk == 0, p, FL_RN);
                    rt_add(RT_H(kk, 6 + wk), RT_H(kk, 4 + wk), A + (u64)kk * RT_CW + wk * RT_W, false, p,
                           FL_RN);
                } else if (rad && l0 && wk == 2) {
                    u64 m[RT_W];
                    rt_add(m, uu, mm, false, p, FL_RU);
                    rt_add(rr, m, er + (u64)(kk + 1) * RT_W, false, p, FL_RU);
                }
                __syncthreads();
            }
            // The radius's last step (k = 0) and the bound.
            if (wk == wm && l0) rt_cert_m(mm, RT_H(0, 0), p);
            if (wk == wu) rt_wmul(uu, rr, ax, p, FL_RU, wsc[wu]);
            __syncthreads();
            if (t == 0) {
                u64 m[RT_W], ta[RT_W], tb[RT_W], u[RT_W];
                rt_add(m, uu, mm, false, p, FL_RU);
                rt_add(rr, m, er, false, p, FL_RU);
                rt_abs(ta, RT_H(0, 6));
                rt_abs(tb, RT_H(0, 7));
                rt_add(u, ta, tb, false, p, FL_RU);
                rt_add(out + (u64)i * RT_W, u, rr, false, p, FL_RU);
            }
        }
        __syncthreads();
    }
#undef RT_H
}

// ---- The fused STS-Padé iteration (src/complex/polyroots_sts.rs has the
// sequence and the CPU engine's copy; src/complex/cuda_sts.rs drives it):
// one block per root, two launches per step (phase A: Taylor coefficients,
// series, the refined point y; phase B: the power sums over the y_j and
// the Padé correction). It uses the helpers above unchanged.

// Values of B^(t) (C(j+t, t) a_{j+t}, j = 0..n-t).
__device__ __forceinline__ u32 sts_cnt(u32 n, u32 t) { return t <= n ? n + 1 - t : 0; }

// Per-root workspace: phase A's X, T_0..T_m (n+1 complex each), R, Z
// (n+1 reals each), or phase B's n leaves of m complex values; then a
// scratch of 2m + 4 complex values.
__device__ __forceinline__ u64 sts_ws_main(u32 n, u32 m) {
    u64 a = (u64)(n + 1) * RT_CW * (m + 2) + (u64)(n + 1) * RT_W * 2;
    u64 b = (u64)(n > 0 ? n : 1) * m * RT_CW;
    return a > b ? a : b;
}
__device__ __forceinline__ u64 sts_ws_words(u32 n, u32 m) {
    return sts_ws_main(n, m) + (u64)(2 * m + 4) * RT_CW;
}

// Phase A, block i = root i: b_t = tsum_j B^(t)_j X_j (t = 0..m), the
// noise flag, then on thread 0 e_l = b_0^l, v_0..v_m, b_1 and the noise
// threshold (a real) into st (2m + 4 complex per root) and y_i = x_i + (b_0 v_(m-2)) (1/v_(m-1)).
extern "C" __global__ void roots_sts_a(const u64 *x, u64 *y, u64 *st, u64 *ws, u8 *flags,
                                       const u64 *B, const u64 *AB, const u64 *consts, u32 n,
                                       u32 m, u64 p, i64 kshift) {
    const u32 i = blockIdx.x;
    const u64 *one = consts;
    const u64 *xi = x + (u64)i * RT_CW;
    u64 *X = ws + (u64)i * sts_ws_words(n, m);
    u64 *R = X + (u64)(n + 1) * RT_CW;
    u64 *Z = R + (u64)(n + 1) * RT_W;
    u64 *T = Z + (u64)(n + 1) * RT_W;
    u64 *scr = X + sts_ws_main(n, m);
    if (threadIdx.x == 0) {
        rt_copy(X, one, RT_W);
        for (u32 k = 0; k < RT_W; k++) X[RT_W + k] = 0;
        rt_copy(X + RT_CW, xi, RT_CW);
        rt_copy(R, one, RT_W);
        u64 ar[RT_W], ai[RT_W];
        rt_abs(ar, xi);
        rt_abs(ai, xi + RT_W);
        rt_add(R + RT_W, ar, ai, false, p, FL_RU);
    }
    __syncthreads();
    for (u32 s = 1; s < n; s *= 2) {
        u32 hi = 2 * s < n ? 2 * s : n;
        for (u32 k = s + 1 + threadIdx.x; k <= hi; k += blockDim.x) {
            rt_cmul(X + (u64)k * RT_CW, X + (u64)s * RT_CW, X + (u64)(k - s) * RT_CW, p);
            rt_mul(R + (u64)k * RT_W, R + (u64)s * RT_W, R + (u64)(k - s) * RT_W, p, FL_RU);
        }
        __syncthreads();
    }
    u32 off = 0;
    for (u32 t = 0; t <= m; t++) {
        u32 cnt = sts_cnt(n, t);
        u64 *Tt = T + (u64)t * (n + 1) * RT_CW;
        for (u32 j = threadIdx.x; j < cnt; j += blockDim.x)
            rt_cmul(Tt + (u64)j * RT_CW, B + (u64)(off + j) * RT_CW, X + (u64)j * RT_CW, p);
        off += cnt;
    }
    for (u32 k = threadIdx.x; k <= n; k += blockDim.x)
        rt_mul(Z + (u64)k * RT_W, AB + (u64)k * RT_W, R + (u64)k * RT_W, p, FL_RU);
    __syncthreads();
    for (u32 t = 0; t <= m; t++)
        rt_tsum(T + (u64)t * (n + 1) * RT_CW, sts_cnt(n, t), 2, 0xffffffffu, p, FL_RN);
    rt_tsum(Z, n + 1, 1, 0xffffffffu, p, FL_RU);
    if (threadIdx.x != 0) return;
#define STS_BT(t) (T + (u64)(t) * (n + 1) * RT_CW)
    const u64 *b0 = STS_BT(0);
    u64 *e = st + (u64)i * (2 * m + 4) * RT_CW;
    {
        u64 ar[RT_W], ai[RT_W], a1[RT_W];
        u64 *thr = e + (u64)(2 * m + 3) * RT_CW;
        rt_abs(ar, b0);
        rt_abs(ai, b0 + RT_W);
        rt_add(a1, ar, ai, false, p, FL_RU);
        rt_shift(thr, Z, kshift, p, FL_RU);
        flags[i] = rt_le(a1, thr) ? RT_F_NOISE : 0;
    }
    u64 *v = e + (u64)(m + 1) * RT_CW;
    u64 *beta = scr;
    rt_copy(e, one, RT_W);
    for (u32 k = 0; k < RT_W; k++) e[RT_W + k] = 0;
    rt_copy(e + RT_CW, b0, RT_CW);
    for (u32 l = 2; l <= m; l++) rt_cmul(e + (u64)l * RT_CW, e + (u64)(l - 1) * RT_CW, b0, p);
    rt_copy(beta + RT_CW, STS_BT(1), RT_CW);
    for (u32 l = 2; l <= m; l++)
        rt_cmul(beta + (u64)l * RT_CW, STS_BT(l), e + (u64)(l - 1) * RT_CW, p);
    rt_copy(v, one, RT_W);
    for (u32 k = 0; k < RT_W; k++) v[RT_W + k] = 0;
    u64 acc[RT_CW], t1[RT_CW], t2[RT_CW];
    for (u32 k = 1; k <= m; k++) {
        rt_cmul(acc, beta + RT_CW, v + (u64)(k - 1) * RT_CW, p);
        for (u32 l = 2; l <= k; l++) {
            rt_cmul(t1, beta + (u64)l * RT_CW, v + (u64)(k - l) * RT_CW, p);
            rt_cadd(t2, acc, t1, false, p);
            rt_copy(acc, t2, RT_CW);
        }
        rt_negate(acc);
        rt_negate(acc + RT_W);
        rt_copy(v + (u64)k * RT_CW, acc, RT_CW);
    }
    rt_copy(e + (u64)(2 * m + 2) * RT_CW, STS_BT(1), RT_CW);
    rt_cmul(t1, b0, v + (u64)(m - 2) * RT_CW, p);
    rt_rec(t2, v + (u64)(m - 1) * RT_CW, one, p);
    rt_cmul(acc, t1, t2, p);
    rt_cadd(y + (u64)i * RT_CW, xi, acc, false, p);
#undef STS_BT
}

// Phase B, block i = root i: leaves 1/(x_i - y_j)^l (l = 1..m, j != i),
// their sums P_l, then on thread 0 the series u, Q_(m-1), Q_m, the
// correction c, x' = x_i + c into xout, and the isolated and small flags.
// consts: 1, tol^2, then the integers 1..m.
extern "C" __global__ void roots_sts_b(const u64 *x, const u64 *y, const u64 *st, u64 *xout,
                                       u64 *ws, u8 *flags, const u64 *consts, u32 n, u32 m,
                                       u64 p) {
    const u32 i = blockIdx.x;
    const u64 *one = consts, *tol2 = consts + RT_W;
    const u64 *xi = x + (u64)i * RT_CW;
    u64 *L = ws + (u64)i * sts_ws_words(n, m);
    u64 *u = L + sts_ws_main(n, m);
    const u64 lw = (u64)m * RT_CW;
    for (u32 j = threadIdx.x; j < n; j += blockDim.x) {
        if (j == i) continue;
        u64 d[RT_CW];
        u64 *leaf = L + (u64)j * lw;
        rt_cadd(d, xi, y + (u64)j * RT_CW, true, p);
        rt_rec(leaf, d, one, p);
        for (u32 l = 1; l < m; l++)
            rt_cmul(leaf + (u64)l * RT_CW, leaf + (u64)(l - 1) * RT_CW, leaf, p);
    }
    __syncthreads();
    rt_tsum(L, n, 2 * m, i, p, FL_RN);
    if (threadIdx.x != 0) return;
    const u64 *e = st + (u64)i * (2 * m + 4) * RT_CW;
    const u64 *v = e + (u64)(m + 1) * RT_CW;
    u64 acc[RT_CW], t1[RT_CW], t2[RT_CW];
    // 16 |P_1|^2 t^2 <= |b_1|^2 (t the noise threshold), before the signs.
    bool iso2;
    {
        u64 tt[RT_W], a[RT_W], z[RT_W], b[RT_W];
        const u64 *thr = e + (u64)(2 * m + 3) * RT_CW;
        rt_mul(tt, thr, thr, p, FL_RN);
        rt_norm2(a, L, p);
        rt_mul(z, a, tt, p, FL_RN);
        rt_shift(a, z, 4, p, FL_RN);
        rt_norm2(b, e + (u64)(2 * m + 2) * RT_CW, p);
        iso2 = rt_le(a, b);
    }
    // The sums with the signs of lambda_l = (-1)^l P_(l+1), P_1 kept in ps.
    u64 ps[RT_CW];
    rt_cmul(ps, e + RT_CW, L, p);
    for (u32 l = 1; l < m; l += 2) {
        rt_negate(L + (u64)l * RT_CW);
        rt_negate(L + (u64)l * RT_CW + RT_W);
    }
    rt_copy(u, one, RT_W);
    for (u32 k = 0; k < RT_W; k++) u[RT_W + k] = 0;
    for (u32 k = 0; k < m; k++) {
        rt_cmul(acc, L, u + (u64)k * RT_CW, p);
        for (u32 l = 1; l <= k; l++) {
            rt_cmul(t1, L + (u64)l * RT_CW, u + (u64)(k - l) * RT_CW, p);
            rt_cadd(t2, acc, t1, false, p);
            rt_copy(acc, t2, RT_CW);
        }
        const u64 *c = consts + (u64)(2 + k) * RT_W;
        rt_div(u + (u64)(k + 1) * RT_CW, acc, c, p);
        rt_div(u + (u64)(k + 1) * RT_CW + RT_W, acc + RT_W, c, p);
    }
    u64 q[2][RT_CW];
    for (u32 h = 0; h < 2; h++) {
        u32 k = m - 1 + h;
        rt_cmul(acc, u, v + (u64)k * RT_CW, p);
        for (u32 l = 1; l <= k; l++) {
            rt_cmul(t1, u + (u64)l * RT_CW, e + (u64)l * RT_CW, p);
            rt_cmul(t2, t1, v + (u64)(k - l) * RT_CW, p);
            rt_cadd(t1, acc, t2, false, p);
            rt_copy(acc, t1, RT_CW);
        }
        rt_copy(q[h], acc, RT_CW);
    }
    u64 c[RT_CW], xn[RT_CW];
    rt_cmul(t1, e + RT_CW, q[0], p);
    rt_rec(t2, q[1], one, p);
    rt_cmul(c, t1, t2, p);
    rt_cadd(xn, xi, c, false, p);
    rt_copy(xout + (u64)i * RT_CW, xn, RT_CW);
    u64 a[RT_W], b[RT_W], a16[RT_W];
    u8 f = flags[i];
    rt_norm2(a, ps, p);
    rt_shift(a16, a, 4, p, FL_RN);
    rt_norm2(b, e + (u64)(2 * m + 2) * RT_CW, p);
    if (rt_le(a16, b) && iso2) f |= RT_F_ISO;
    rt_norm2(a, c, p);
    rt_norm2(b, xn, p);
    rt_mul(a16, b, tol2, p, FL_RN);
    if (rt_le(a, a16)) f |= RT_F_SMALL;
    flags[i] = f;
}
