// Division with remainder (floor quotient and remainder, all of W = 64*L
// bits) for every width.
//
// Method: schoolbook division (Knuth D), each quotient limb estimated from the
// top three limbs of the partial remainder by a 3-by-2 division with a
// precomputed reciprocal (Moller-Granlund, as GMP's mpn_sbpi1_div_qr), so at
// most one add-back is ever needed. One GROUP of G threads divides one
// element; thread t of the group keeps C limbs of the normalised divisor and
// of the partial remainder ("window") in registers. Per quotient limb q every
// thread multiply-adds its chunk in 32-bit carry chains, then the group
// resolves the carries between threads exactly (a shuffle of the carry limbs,
// then a carry-lookahead over generate/propagate bits from ballots).
//
// The subtraction W - q*V is done as additions, which the multiply-add
// chains do natively: W - q*V = W + q*~V + q - q*B^S, with ~V the complement
// of the S-limb divisor; the "+ q" enters as the carry into thread 0 and the
// "- q*B^S" at the top limb.
//
// To make the top of the window always sit in the top thread whatever the
// divisor length n, the divisor is padded with z = G*C - n zero limbs at the
// BOTTOM (u*B^z / v*B^z has the same quotient, and the remainder times B^z).
//
// Pipeline (host side in src/int/cuda/div.rs):
//   int_div_classify  warp per element: lengths, zero-divisor flag, trivial
//                     cases, zero fill of the output limbs nobody else writes,
//                     histogram of divisor lengths;
//   int_div_scan      one block: offsets of the counting sort and the bounds
//                     of each tier (a range of divisor lengths);
//   int_div_scatter   elements sorted by divisor length (equal shapes share a
//                     warp, so no thread waits for a longer neighbour);
//   int_div_tN        one launch per non-empty tier N (template div_group).
#include "common.cuh"

#define DIV_FULL 0xffffffffu
#ifndef DIV_COUNT
#define DIV_COUNT(what) do {} while (0) // the CPU emulator counts rare paths
#endif
// Tiers: divisors of at most div_tier_s[t] limbs go to tier t.
#define DIV_NTIERS 24
// meta layout: [0] ~(first element with a zero divisor) or 0; [1..=NTIERS+1]
// tier bounds in the sorted list; [DIV_HIST..] histogram / offsets, L+2 entries.
#define DIV_HIST (DIV_NTIERS + 2)

__constant__ unsigned div_tier_s[DIV_NTIERS] = {
    4,    8,    16,   32,   64,   128,  256,  512,  1024, 1536, 2048,  2560,
    3072, 3584, 4096, 4608, 5120, 5632, 6144, 6656, 7168, 7680, 8192, 16384};

// ---- limb arithmetic -------------------------------------------------------

// 32-bit multiply-add carry chains: PTX on the device (the carry flag flows
// between consecutive asm statements, as in CGBN); the CPU emulator runs the
// same sequence with an explicit flag.
#ifdef __CUDA_ARCH__
#define DIV_CC(name, ins)                                                                    \
    __device__ __forceinline__ u32 name(u32 a, u32 b, u32 c) {                               \
        u32 d;                                                                               \
        asm volatile(ins " %0, %1, %2, %3;" : "=r"(d) : "r"(a), "r"(b), "r"(c));             \
        return d;                                                                            \
    }
DIV_CC(div_madlo_cc, "mad.lo.cc.u32")
DIV_CC(div_madloc_cc, "madc.lo.cc.u32")
DIV_CC(div_madhi_cc, "mad.hi.cc.u32")
DIV_CC(div_madhic_cc, "madc.hi.cc.u32")
DIV_CC(div_madhic, "madc.hi.u32")
__device__ __forceinline__ u32 div_addc(u32 a, u32 b) {
    u32 d;
    asm volatile("addc.u32 %0, %1, %2;" : "=r"(d) : "r"(a), "r"(b));
    return d;
}
#else
static u32 div_cf;
static inline u32 div_cc_out(u64 s) {
    div_cf = (u32)(s >> 32);
    return (u32)s;
}
static inline u32 div_madlo_cc(u32 a, u32 b, u32 c) { return div_cc_out((u64)(u32)((u64)a * b) + c); }
static inline u32 div_madloc_cc(u32 a, u32 b, u32 c) {
    return div_cc_out((u64)(u32)((u64)a * b) + c + div_cf);
}
static inline u32 div_madhi_cc(u32 a, u32 b, u32 c) { return div_cc_out((((u64)a * b) >> 32) + c); }
static inline u32 div_madhic_cc(u32 a, u32 b, u32 c) {
    return div_cc_out((((u64)a * b) >> 32) + c + div_cf);
}
static inline u32 div_madhic(u32 a, u32 b, u32 c) { return (u32)((((u64)a * b) >> 32) + c + div_cf); }
static inline u32 div_addc(u32 a, u32 b) { return a + b + div_cf; }
#endif

// x, hidden from the optimiser (so it keeps ~V, not V, in registers).
__device__ __forceinline__ u64 div_opaque(u64 x) {
#ifdef __CUDA_ARCH__
    asm volatile("mov.b64 %0, %0;" : "+l"(x));
#endif
    return x;
}

// r[0..C) += q * w[0..C), w given by its 32-bit words wd(0..2C); returns the
// carry limb (r + q*w < B^(C+1)). Four carry chains of 2C multiply-adds.
template <int C, class WD>
__device__ __forceinline__ u64 div_addmul(u64 (&r)[C], u64 q, WD wd) {
    u32 R[2 * C];
#pragma unroll
    for (int i = 0; i < C; i++) {
        R[2 * i] = (u32)r[i];
        R[2 * i + 1] = (u32)(r[i] >> 32);
    }
    const u32 q0 = (u32)q, q1 = (u32)(q >> 32);
    u32 t0, t1;
    // lo(q0 * w[i]) into word i
    R[0] = div_madlo_cc(q0, wd(0), R[0]);
#pragma unroll
    for (int i = 1; i < 2 * C; i++) R[i] = div_madloc_cc(q0, wd(i), R[i]);
    t0 = div_addc(0, 0);
    // hi(q0 * w[i]) into word i+1
    R[1] = div_madhi_cc(q0, wd(0), R[1]);
#pragma unroll
    for (int i = 1; i < 2 * C - 1; i++) R[i + 1] = div_madhic_cc(q0, wd(i), R[i + 1]);
    t0 = div_madhic_cc(q0, wd(2 * C - 1), t0);
    t1 = div_addc(0, 0);
    // lo(q1 * w[i]) into word i+1
    R[1] = div_madlo_cc(q1, wd(0), R[1]);
#pragma unroll
    for (int i = 1; i < 2 * C - 1; i++) R[i + 1] = div_madloc_cc(q1, wd(i), R[i + 1]);
    t0 = div_madloc_cc(q1, wd(2 * C - 1), t0);
    t1 = div_addc(t1, 0);
    // hi(q1 * w[i]) into word i+2
    R[2] = div_madhi_cc(q1, wd(0), R[2]);
#pragma unroll
    for (int i = 1; i < 2 * C - 2; i++) R[i + 2] = div_madhic_cc(q1, wd(i), R[i + 2]);
    t0 = div_madhic_cc(q1, wd(2 * C - 2), t0);
    t1 = div_madhic(q1, wd(2 * C - 1), t1);
#pragma unroll
    for (int i = 0; i < C; i++) r[i] = ((u64)R[2 * i + 1] << 32) | R[2 * i];
    return ((u64)t1 << 32) | t0;
}

// floor((B^2-1)/d) - B for d >= 2^63 (B = 2^64).
__device__ __forceinline__ u64 div_invert_limb(u64 d) {
    unsigned __int128 num = ((unsigned __int128)(~d) << 64) | ~0ull;
    return (u64)(num / d);
}

// floor((B^3-1)/(d1*B+d0)) - B for d1 >= 2^63 (GMP's invert_pi1).
__device__ __forceinline__ u64 div_invert_3by2(u64 d1, u64 d0) {
    u64 v = div_invert_limb(d1);
    u64 p = d1 * v + d0;
    if (p < d0) {
        v--;
        u64 mask = p >= d1 ? ~0ull : 0;
        p -= d1;
        v += mask;
        p -= mask & d1;
    }
    u64 t1 = __umul64hi(d0, v), t0 = d0 * v;
    p += t1;
    if (p < t1) {
        v--;
        if (p >= d1 && (p > d1 || t0 >= d0)) v--;
    }
    return v;
}

// floor((n2:n1:n0) / (d1:d0)) for (n2:n1) < (d1:d0), d1 >= 2^63 (GMP's
// udiv_qr_3by2); if (n2:n1) == (d1:d0) the quotient limb is B-1, which is
// then exact for the whole division (the window is below B times the divisor).
__device__ __forceinline__ u64 div_qhat(u64 n2, u64 n1, u64 n0, u64 d1, u64 d0, u64 di) {
    if (n2 > d1 || (n2 == d1 && n1 >= d0)) return ~0ull;
    u64 q = __umul64hi(n2, di), q0 = n2 * di;
    u64 s0 = q0 + n1;
    q += n2 + (s0 < q0);
    q0 = s0;
    u64 r1 = n1 - d1 * q;
    u64 r0 = n0 - d0;
    r1 = r1 - d1 - (n0 < d0);
    u64 t1 = __umul64hi(d0, q), t0 = d0 * q;
    r1 = r1 - t1 - (r0 < t0);
    r0 -= t0;
    q++;
    u64 mask = r1 >= q0 ? ~0ull : 0;
    q += mask;
    u64 a0 = mask & d0;
    r0 += a0;
    r1 += (mask & d1) + (r0 < a0);
    if (r1 >= d1 && (r1 > d1 || r0 >= d0)) q++;
    return q;
}

// Number of significant limbs of a[0..l), by one warp scanning down from the top.
__device__ __forceinline__ u32 div_warp_nlen(const u64 *a, u32 l, u32 lane) {
    for (int base = (int)((l - 1) & ~31u); base >= 0; base -= 32) {
        u32 i = (u32)base + lane;
        u64 x = i < l ? a[i] : 0;
        u32 nz = __ballot_sync(DIV_FULL, x != 0);
        if (nz) return (u32)base + 32 - __clz(nz);
    }
    return 0;
}

// ---- 1. classify: a warp per element -----------------------------------------

extern "C" __global__ void __launch_bounds__(256)
    int_div_classify(u64 *qo, u64 *ro, const u64 *a, const u64 *b, u64 *mn, u64 *meta,
                     u64 n_elems, u32 limbs) {
    u64 w = (blockIdx.x * (u64)blockDim.x + threadIdx.x) >> 5;
    u32 lane = threadIdx.x & 31;
    if (w >= n_elems) return;
    const u64 *u = a + w * limbs, *v = b + w * limbs;
    u64 *q = qo + w * limbs, *r = ro + w * limbs;
    u32 m = div_warp_nlen(u, limbs, lane), n = div_warp_nlen(v, limbs, lane);
    if (n == 0) {
        if (lane == 0) {
            atomicMax(&meta[0], ~w);
            mn[w] = 0;
        }
        return;
    }
    if (m < n) {
        for (u32 i = lane; i < limbs; i += 32) {
            q[i] = 0;
            r[i] = u[i];
        }
        if (lane == 0) mn[w] = 0;
        return;
    }
    // The group writes q[0..=m-n] and r[0..n); zero the rest here.
    for (u32 i = lane; i < limbs; i += 32) {
        if (i > m - n) q[i] = 0;
        if (i >= n) r[i] = 0;
    }
    if (lane == 0) {
        mn[w] = ((u64)m << 32) | n;
        atomicAdd(&meta[DIV_HIST + n], 1ull);
    }
}

// ---- 2. scan: one block of 1024 threads --------------------------------------

extern "C" __global__ void __launch_bounds__(1024) int_div_scan(u64 *meta, u32 limbs) {
    __shared__ u64 part[1024];
    u64 *h = meta + DIV_HIST;
    u32 len = limbs + 2, t = threadIdx.x;
    u32 per = (len + 1023) / 1024, lo = min(t * per, len), hi = min(lo + per, len);
    u64 s = 0;
    for (u32 i = lo; i < hi; i++) s += h[i];
    part[t] = s;
    __syncthreads();
    for (u32 d = 1; d < 1024; d *= 2) {
        u64 x = t >= d ? part[t - d] : 0;
        __syncthreads();
        part[t] += x;
        __syncthreads();
    }
    u64 base = part[t] - s;
    for (u32 i = lo; i < hi; i++) {
        u64 x = h[i];
        h[i] = base;
        base += x;
    }
    __syncthreads();
    if (t <= DIV_NTIERS) {
        u32 idx = t == 0 ? 1 : min(div_tier_s[t - 1] + 1, limbs + 1);
        meta[1 + t] = h[idx];
    }
}

// ---- 3. scatter: elements into the list, sorted by divisor length -------------

extern "C" __global__ void __launch_bounds__(256)
    int_div_scatter(const u64 *mn, u64 *meta, u64 *list, u64 n_elems) {
    u64 i = blockIdx.x * (u64)blockDim.x + threadIdx.x;
    u32 lane = threadIdx.x & 31;
    u32 n = i < n_elems ? (u32)mn[i] : 0;
    u32 act = __ballot_sync(DIV_FULL, n != 0);
    if (n == 0) return;
    // One atomic per distinct length in the warp.
    u32 peers = __match_any_sync(act, n);
    u32 leader = __ffs(peers) - 1;
    u32 rank = __popc(peers & ((1u << lane) - 1));
    u64 base = 0;
    if (lane == leader) base = atomicAdd(&meta[DIV_HIST + n], (u64)__popc(peers));
    base = __shfl_sync(peers, base, leader);
    list[base + rank] = i;
}

// ---- 4. the division proper: a group of G threads per element ----------------

// C limbs per thread, G threads per group (G <= 32: a power of two, a warp
// segment, several groups per block; G > 32: a multiple of 32, the block).
// VSMEM: the divisor lives in shared memory instead of registers (the widest
// tier).
template <int C, int G, bool VSMEM>
__device__ __forceinline__ void div_group(u64 *qo, u64 *ro, const u64 *a, const u64 *b,
                                          const u64 *list, const u64 *mn, u64 count,
                                          u32 limbs) {
    constexpr bool BLOCK = G > 32;
    constexpr int S = G * C;               // padded divisor length
    constexpr int P = BLOCK ? 32 : G;      // threads that stage dividend and quotient limbs
    constexpr int NW = BLOCK ? G / 32 : 1; // warps per group
    static_assert(C >= 4, "the top three window limbs must sit in one thread");
    static_assert(BLOCK ? G % 32 == 0 && G <= 1024 : (G & (G - 1)) == 0,
                  "G: a power of two up to 32, or a multiple of 32");
    static_assert(!VSMEM || BLOCK, "the shared-memory divisor needs a block group");

    const u32 lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
    const u32 t = BLOCK ? threadIdx.x : (threadIdx.x & (G - 1)); // thread in group
    const u64 gi = BLOCK ? blockIdx.x : (blockIdx.x * (u64)blockDim.x + threadIdx.x) / G;
    const u32 gbase = BLOCK ? 0 : (lane & ~(u32)(G - 1));
    const u32 gmask = BLOCK || G == 32 ? DIV_FULL : (((1u << G) - 1) << gbase);
    if (gi >= count) return; // whole groups leave together

    __shared__ u64 s_c[NW], s_sh[NW], s_x[2];
    __shared__ u32 s_gp[NW];
#ifdef DIV_EMU
    u64 *s_w = (u64 *)emu_dynamic_smem(); // the CPU emulator in notes/div-emu
#else
    extern __shared__ u64 s_w[]; // VSMEM only: S limbs, thread-interleaved
#endif

    const u64 e = list[gi];
    const u64 mnv = mn[e];
    const u32 m = (u32)(mnv >> 32), n = (u32)mnv;
    const u64 *u = a + e * limbs, *v = b + e * limbs;
    u64 *q_out = qo + e * limbs, *r_out = ro + e * limbs;
    const u32 s = __clzll(v[n - 1]);
    const int z = S - (int)n, j0 = (int)(m - n);
    const u32 steps = (u32)j0 + 1;

    // Limb i of u << s (0 outside 0..=m) and of v << s (0 for i < 0). Loads
    // use clamped indices and no branches, so they all issue back to back.
    const int lm = (int)limbs - 1;
    auto ldu = [&](int i) -> u64 { return u[min(max(i, 0), lm)]; };
    auto un_of = [&](int i, u64 hi, u64 lo) -> u64 { // hi = ldu(i), lo = ldu(i-1)
        hi = i >= 0 && i < (int)m ? hi : 0;
        lo = i >= 1 && i <= (int)m ? lo : 0;
        return (hi << s) | ((lo >> 1) >> (63 - s));
    };
    auto un = [&](int i) -> u64 { return un_of(i, ldu(i), ldu(i - 1)); };
    auto vn = [&](int i) -> u64 {
        u64 hi = v[min(max(i, 0), lm)], lo = v[min(max(i - 1, 0), lm)];
        hi = i >= 0 ? hi : 0;
        lo = i >= 1 ? lo : 0;
        return (hi << s) | ((lo >> 1) >> (63 - s));
    };

    // Window W[0..S] = limbs j..j+S of (u << s)*B^z at step j (j = j0 down to 0);
    // thread t holds W[tC..tC+C), the top thread also rt = W[S]. w = ~V.
    u64 r[C], wr[VSMEM ? 1 : C];
#pragma unroll
    for (int k = 0; k < C; k++) {
        int p = (int)t * C + k;
        r[k] = un(j0 - z + p);
        u64 x = ~vn(p - z);
        if constexpr (VSMEM) s_w[k * G + t] = x;
        else wr[k] = x;
    }
    if constexpr (VSMEM) __syncthreads();
    auto Wl = [&](int k) -> u64 { // limb k of this thread's ~V chunk
        if constexpr (VSMEM) return s_w[k * G + t];
        else return wr[k];
    };
    auto Wd = [&](int i) -> u32 { return (u32)(Wl(i >> 1) >> (32 * (i & 1))); };
    u64 rt = un((int)m);
    const u64 d1 = vn((int)n - 1), d0 = n >= 2 ? vn((int)n - 2) : 0;
    const u64 di = div_invert_3by2(d1, d0);

    // Dividend limbs to shift in: D(k) = W-limb entering after step k.
    const u32 io = BLOCK ? lane : t;
    const bool is_io = !BLOCK || warp == 0;
    const bool top_warp = !BLOCK || warp == NW - 1;
    // Each staging thread holds its limb for this round (cur) and the raw
    // limbs for the next, loaded a round ahead and combined only when used.
    auto di_of = [&](u32 k) -> int { return j0 - 1 - z - (int)k; };
    u64 cur = 0, ph = 0, pl = 0, qb = 0;
    if (is_io) {
        cur = un(di_of(io));
        ph = ldu(di_of(P + io));
        pl = ldu(di_of(P + io) - 1);
    }

    // Carry-lookahead: thread t generates (g) or propagates (p) a carry;
    // returns the carry into thread t (thread 0 gets none).
    auto resolve = [&](bool g, bool p) -> u32 {
        if constexpr (G == 1) {
            return 0;
        } else {
            u32 X = __ballot_sync(gmask, g || p), Y = __ballot_sync(gmask, g);
            u32 cin = 0, tl = t;
            if constexpr (BLOCK) {
                u64 sw = (u64)X + Y;
                if (lane == 0)
                    s_gp[warp] = (u32)(sw >> 32) | (X == DIV_FULL && Y == 0 ? 2u : 0u);
                __syncthreads();
                u32 e2 = lane < NW ? s_gp[lane] : 0;
                u32 GW = __ballot_sync(DIV_FULL, e2 & 1), PW = __ballot_sync(DIV_FULL, e2 & 2);
                u64 ciw = (((u64)(GW | PW) + GW) ^ PW);
                cin = (u32)(ciw >> warp) & 1;
                tl = lane;
            } else {
                X = (X & gmask) >> gbase;
                Y = (Y & gmask) >> gbase;
            }
            u64 ci = ((u64)X + Y + cin) ^ (X ^ Y);
            return (u32)(ci >> tl) & 1;
        }
    };
    // The next quotient limb from the top thread's three top limbs, to all.
    auto publish = [&](u64 ql, bool neg, bool &any_neg) -> u64 {
        if constexpr (BLOCK) {
            if (t == G - 1) {
                s_x[0] = ql;
                s_x[1] = neg;
            }
            if (lane == 31) s_sh[warp] = r[C - 1];
            __syncthreads();
            any_neg = s_x[1] != 0;
            return s_x[0];
        } else if constexpr (G == 1) {
            any_neg = neg;
            return ql;
        } else {
            any_neg = (__ballot_sync(gmask, neg) & gmask) != 0;
            return __shfl_sync(gmask, ql, G - 1, G);
        }
    };

    const bool top = t == G - 1;
    u64 qn = 0;
    {
        bool dummy;
        if (top_warp) qn = div_qhat(rt, r[C - 1], r[C - 2], d1, d0, di);
        qn = publish(qn, false, dummy);
    }

    for (u32 sg = 0;; sg++) {
        u64 qd = qn;
        // W + q*~V, carries between threads pending.
        u64 c = div_addmul<C>(r, qd, Wd);
        // The next estimate, from the top limbs as they are now: the carries
        // still to come almost never reach them, so this overlaps the carry
        // resolution below (checked after it).
        const u64 sp2 = r[C - 1], sp1 = r[C - 2], sp0 = r[C - 3];
        u64 ql = 0;
        if (top_warp) ql = div_qhat(sp2, sp1, sp0, d1, d0, di);
        // The carry limb from the thread below; thread 0 adds q.
        u64 cin;
        if constexpr (BLOCK) {
            cin = __shfl_up_sync(DIV_FULL, c, 1);
            if (lane == 31) s_c[warp] = c;
            __syncthreads();
            if (lane == 0) cin = warp ? s_c[warp - 1] : qd;
        } else if constexpr (G == 1) {
            cin = qd;
        } else {
            cin = __shfl_up_sync(gmask, c, 1, G);
            if (t == 0) cin = qd;
        }
        // Adding cin to this chunk carries out (g) or leaves all ones (p).
        u64 ones = ~0ull;
#pragma unroll
        for (int k = 1; k < C; k++) ones &= r[k];
        const u64 s0 = r[0] + cin;
        const bool ov = s0 < cin, all1 = ones == ~0ull;
        const bool g = all1 && ov, p = all1 && !ov && s0 == ~0ull;
        if (p) DIV_COUNT(propagate);
        const u32 beta = resolve(g, p);
        // Apply cin + beta; the carry rarely passes r[1].
        r[0] = s0 + beta;
        u64 bo = ov | (r[0] < beta);
        u64 y1 = r[1] + bo;
        bo &= (y1 == 0);
        r[1] = y1;
        if (bo) {
            DIV_COUNT(long_borrow);
#pragma unroll
            for (int k = 2; k < C; k++) {
                u64 y = r[k] + bo;
                bo &= (y == 0);
                r[k] = y;
            }
        }
        // Top limb: zero unless qd was one too large.
        u64 rtn = rt + c + bo - qd;
        bool neg = top && (rtn != 0);
        if (top_warp && (r[C - 1] != sp2 || r[C - 2] != sp1 || r[C - 3] != sp0)) {
            if (top) DIV_COUNT(estimate_redone);
            ql = div_qhat(r[C - 1], r[C - 2], r[C - 3], d1, d0, di);
        }
        bool any_neg;
        qn = publish(ql, neg, any_neg);
        while (any_neg) { // rare: add the divisor back
            if (top) DIV_COUNT(add_back);
            qd--;
            u32 cy = 0;
#pragma unroll
            for (int k = 0; k < C; k++) {
                u64 vk = ~div_opaque(Wl(k));
                u64 y = r[k] + vk;
                u32 c1 = y < vk;
                u64 y2 = y + cy;
                cy = c1 | (y2 < y);
                r[k] = y2;
            }
            u64 all = ~0ull;
#pragma unroll
            for (int k = 0; k < C; k++) all &= r[k];
            const u32 gen = cy;
            cy = resolve(gen != 0, gen == 0 && all == ~0ull);
#pragma unroll
            for (int k = 0; k < C; k++) {
                u64 y = r[k] + cy;
                cy &= (y == 0);
                r[k] = y;
            }
            rtn += gen | cy;
            neg = top && (rtn != 0);
            if (top_warp) ql = div_qhat(r[C - 1], r[C - 2], r[C - 3], d1, d0, di);
            if constexpr (BLOCK) __syncthreads(); // everyone has read s_x and s_sh
            qn = publish(ql, neg, any_neg);
        }
        // Record the quotient limb; P threads store P limbs at a time.
        const u32 slot = sg % P;
        if (is_io) {
            if (io == slot) qb = qd;
            if (slot == P - 1 || sg == steps - 1) {
                if (io <= slot) q_out[j0 - (int)(sg - slot) - (int)io] = qb;
            }
        }
        if (sg == steps - 1) break;
        // Shift the window up one limb and bring in the next dividend limb.
        u64 din = 0;
        if constexpr (BLOCK) {
            if (warp == 0) din = __shfl_sync(DIV_FULL, cur, slot);
        } else if constexpr (G == 1) {
            din = cur;
        } else {
            din = __shfl_sync(gmask, cur, slot, G);
        }
        u64 up;
        if constexpr (BLOCK) {
            up = __shfl_up_sync(DIV_FULL, r[C - 1], 1);
            if (lane == 0) up = warp ? s_sh[warp - 1] : din;
        } else if constexpr (G == 1) {
            up = din;
        } else {
            up = __shfl_up_sync(gmask, r[C - 1], 1, G);
            if (t == 0) up = din;
        }
        rt = r[C - 1];
#pragma unroll
        for (int k = C - 1; k > 0; k--) r[k] = r[k - 1];
        r[0] = up;
        if (is_io && slot == P - 1) {
            cur = un_of(di_of(sg + 1 + io), ph, pl);
            ph = ldu(di_of(sg + 1 + P + io));
            pl = ldu(di_of(sg + 1 + P + io) - 1);
        }
    }

    // Remainder: W[z..z+n) >> s (W[S] is zero now).
    u64 above;
    if constexpr (BLOCK) {
        __syncthreads();
        if (lane == 0) s_c[warp] = r[0];
        __syncthreads();
        above = __shfl_down_sync(DIV_FULL, r[0], 1);
        if (lane == 31) above = warp + 1 < NW ? s_c[warp + 1] : 0;
    } else if constexpr (G == 1) {
        above = 0;
    } else {
        above = __shfl_down_sync(gmask, r[0], 1, G);
        if (top) above = 0;
    }
#pragma unroll
    for (int k = 0; k < C; k++) {
        int p = (int)t * C + k;
        if (p >= z) {
            u64 hi = k + 1 < C ? r[k + 1] : above;
            r_out[p - z] = (r[k] >> s) | ((hi << 1) << (63 - s));
        }
    }
}

#define DIV_TIER(NAME, C, G, VSMEM)                                                          \
    extern "C" __global__ void __launch_bounds__((G) > 32 ? (G) : 128,                      \
                                                 (G) > 32 ? ((G) > 512 ? 1 : 512 / (G)) : 3)  \
        NAME(u64 *qo, u64 *ro, const u64 *a, const u64 *b, const u64 *list, const u64 *mn,  \
             u64 count, u32 limbs) {                                                         \
        div_group<C, G, VSMEM>(qo, ro, a, b, list, mn, count, limbs);                        \
    }

// Keep in step with TIERS in src/int/cuda/div.rs and div_tier_s above
// (S = C*G). Groups of up to 32 threads run 128 threads per block.
DIV_TIER(int_div_t0, 4, 1, false)
DIV_TIER(int_div_t1, 8, 1, false)
DIV_TIER(int_div_t2, 16, 1, false)
DIV_TIER(int_div_t3, 16, 2, false)
DIV_TIER(int_div_t4, 16, 4, false)
DIV_TIER(int_div_t5, 16, 8, false)
DIV_TIER(int_div_t6, 16, 16, false)
DIV_TIER(int_div_t7, 16, 32, false)
DIV_TIER(int_div_t8, 16, 64, false)
DIV_TIER(int_div_t9, 16, 96, false)
DIV_TIER(int_div_t10, 16, 128, false)
DIV_TIER(int_div_t11, 16, 160, false)
DIV_TIER(int_div_t12, 16, 192, false)
DIV_TIER(int_div_t13, 16, 224, false)
DIV_TIER(int_div_t14, 16, 256, false)
DIV_TIER(int_div_t15, 16, 288, false)
DIV_TIER(int_div_t16, 16, 320, false)
DIV_TIER(int_div_t17, 16, 352, false)
DIV_TIER(int_div_t18, 16, 384, false)
DIV_TIER(int_div_t19, 16, 416, false)
DIV_TIER(int_div_t20, 16, 448, false)
DIV_TIER(int_div_t21, 16, 480, false)
DIV_TIER(int_div_t22, 16, 512, false)
DIV_TIER(int_div_t23, 32, 512, true)
