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
__device__ __forceinline__ u32 div_add_cc(u32 a, u32 b) {
    u32 d;
    asm volatile("add.cc.u32 %0, %1, %2;" : "=r"(d) : "r"(a), "r"(b));
    return d;
}
__device__ __forceinline__ u32 div_addc_cc(u32 a, u32 b) {
    u32 d;
    asm volatile("addc.cc.u32 %0, %1, %2;" : "=r"(d) : "r"(a), "r"(b));
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
static inline u32 div_add_cc(u32 a, u32 b) { return div_cc_out((u64)a + b); }
static inline u32 div_addc_cc(u32 a, u32 b) { return div_cc_out((u64)a + b + div_cf); }
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
    u64 *s_w = (u64 *)emu_dynamic_smem(); // shared memory of the block
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

// ---- 5. blocked schoolbook: a block per element, QS quotient limbs a step ----
//
// For long divisors. The window W (S+QS limbs: the remainder, S limbs with
// the divisor padded at the bottom to S = n rounded up to 16, times B^QS plus
// the next QS dividend limbs) gives Q = floor(W/V) < B^QS per step:
//  A. one warp divides the top H+QS window limbs by the top H divisor limbs V_T
//     (a limb per lane, 3-by-2 estimates, exact): Q and R_T. As V is
//     normalised, Q is at most 2 too large for the whole window, and only
//     if R_T < B^QS (essentially never for random data).
//  B. all threads: Z = W_L + Q*~V_L + Q over the low S-H limbs (W_L, V_L),
//     a band schoolbook as in int_mul.cu (bands of 16 words, mad.lo.cc/
//     madc.hi.cc pairs that ptxas fuses into IMAD.WIDE.U32.X); the bands'
//     overlaps and carries are resolved once per step, not per limb.
//  C. that warp: T = R_T + Z_hi - Q (Z_hi: Z's limbs from S-H up) is the top of
//     the new remainder Z_lo + T*B^(S-H); if T < 0, V is added back and Q
//     decremented (at most twice).
// The divisor (as ~V_L, zero from limb S-H up) and the window live in shared
// memory; the window is a ring of S+2*QS limbs, so that the next QS dividend
// limbs load during step A.
#define DIVB_QS 16 // quotient limbs per step
#define DIVB_H 24  // >= QS+1 (Z fits below S), a multiple of 8 (whole bands), < 32 lanes
#define DIVB_T 128 // threads per block
#define DIVB_NW (DIVB_T / 32)

// Completes a lane-parallel sum: s is this lane's limb, c (0..3) the carries
// it sends to the lane above; returns the settled limb (carries out of lane
// 31 are dropped).
__device__ __forceinline__ u64 divb_settle(u64 s, u32 c, u32 lane) {
    u32 cin = __shfl_up_sync(DIV_FULL, c, 1);
    if (lane == 0) cin = 0;
    const u64 s2 = s + cin;
    const bool g = s2 < cin, p = s2 == ~0ull;
    const u32 X = __ballot_sync(DIV_FULL, g || p), Y = __ballot_sync(DIV_FULL, g);
    const u64 ci = ((u64)X + Y) ^ (X ^ Y);
    return s2 + ((ci >> lane) & 1);
}

// Warp: x (lanes 0..H-1, below V_T; lanes from H zero) times B^iters plus
// the limbs inc (lane k: the limb entering at step k, k = iters-1 down to 0),
// divided by V_T (vt in lanes < H) a limb at a time with 3-by-2 estimates.
// Returns lane k's quotient limb; x becomes the remainder.
__device__ __forceinline__ u64 divb_seq(u64 &x, u64 inc, int iters, u64 vt, u64 d1, u64 d0, u64 di,
                                        u32 lane) {
    constexpr int H = DIVB_H;
    const u64 w = lane < H ? ~vt : 0;
    u64 myq = 0;
    // The estimate from x's top three limbs before the shift.
    auto qhat_of = [&](u64 y) -> u64 {
        return div_qhat(__shfl_sync(DIV_FULL, y, H - 1), __shfl_sync(DIV_FULL, y, H - 2),
                        __shfl_sync(DIV_FULL, y, H - 3), d1, d0, di);
    };
    u64 q = qhat_of(x);
    for (int k = iters - 1; k >= 0; k--) {
        const u64 xin = __shfl_sync(DIV_FULL, inc, k);
        x = __shfl_up_sync(DIV_FULL, x, 1);
        if (lane == 0) x = xin;
        // x + q*~V_T + q - q*B^H, settled as in divb_settle.
        const u64 lo = q * w, hi = __umul64hi(q, w);
        u64 hin = __shfl_up_sync(DIV_FULL, hi, 1);
        if (lane == 0) hin = q;
        const u64 s1 = x + lo, s2 = s1 + hin;
        u32 cin = __shfl_up_sync(DIV_FULL, (u32)(s1 < lo) + (u32)(s2 < hin), 1);
        if (lane == 0) cin = 0;
        const u64 pre = s2 + cin;
        // The next estimate, speculatively: the one-bit carries
        // below almost never reach the top limbs (checked after).
        u64 qn = 0;
        if (k > 0) qn = qhat_of(pre);
        const bool g = pre < cin, p = pre == ~0ull;
        const u32 X = __ballot_sync(DIV_FULL, g || p), Y = __ballot_sync(DIV_FULL, g);
        const u64 ci = ((u64)X + Y) ^ (X ^ Y);
        x = pre + ((ci >> lane) & 1);
        if (lane > H) x = 0;
        if (lane == H) x -= q; // 0, or ~0 if q was one too large
        bool redo = ((ci >> (H - 3)) & 7) != 0;
        if (__ballot_sync(DIV_FULL, lane == H && x != 0)) {
            if (lane == 0) DIV_COUNT(blocked_top_add_back);
            q--;
            const u64 s3 = x + vt;
            x = divb_settle(s3, s3 < vt, lane);
            if (lane > H) x = 0;
            redo = true;
        }
        if (lane == (u32)k) myq = q;
        if (k > 0) {
            if (redo && lane == 0) DIV_COUNT(blocked_estimate_redone);
            q = redo ? qhat_of(x) : qn;
        }
    }
    return myq;
}

// Block-wide carry-lookahead over bands: unit un = warp + NW*k holds bands
// 32*un..32*un+31 (one per lane). Bit k of g / p: this lane's band of unit k
// generates / propagates a carry. Returns the carries into this lane's bands.
template <int KM>
__device__ __forceinline__ u32 divb_scan(u32 g, u32 p, u32 nunits, u32 *s_u) {
    const u32 lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
#pragma unroll
    for (int k = 0; k < KM; k++) {
        const u32 un = warp + DIVB_NW * k;
        if (un < nunits) {
            u32 X = __ballot_sync(DIV_FULL, ((g | p) >> k) & 1), Y = __ballot_sync(DIV_FULL, (g >> k) & 1);
            if (lane == 0) s_u[un] = (u32)(((u64)X + Y) >> 32) | (X == DIV_FULL && Y == 0 ? 2u : 0u);
        }
    }
    __syncthreads();
    if (warp == 0) {
        const u32 f = lane < nunits ? s_u[lane] : 0;
        const u32 X = __ballot_sync(DIV_FULL, f != 0), Y = __ballot_sync(DIV_FULL, f & 1);
        const u64 ci = ((u64)X + Y) ^ (X ^ Y);
        if (lane < nunits) s_u[lane] = f | ((u32)(ci >> lane) & 1) << 2;
    }
    __syncthreads();
    u32 cin = 0;
#pragma unroll
    for (int k = 0; k < KM; k++) {
        const u32 un = warp + DIVB_NW * k;
        if (un < nunits) {
            u32 X = __ballot_sync(DIV_FULL, ((g | p) >> k) & 1), Y = __ballot_sync(DIV_FULL, (g >> k) & 1);
            const u64 ci = ((u64)X + Y + (s_u[un] >> 2)) ^ (X ^ Y);
            cin |= ((u32)(ci >> lane) & 1) << k;
        }
    }
    return cin;
}

// 16 words from shared memory, 16-byte aligned.
__device__ __forceinline__ void divb_ld16(u32 (&r)[16], const u32 *p) {
#ifdef DIV_EMU
    if ((size_t)p & 15) emu_fail("misaligned 16-byte load");
    for (int w = 0; w < 16; w++) r[w] = p[w];
#else
#pragma unroll
    for (int w = 0; w < 16; w += 4) {
        const uint4 x = *(const uint4 *)(p + w);
        r[w] = x.x;
        r[w + 1] = x.y;
        r[w + 2] = x.z;
        r[w + 3] = x.w;
    }
#endif
}

// One row: (e, o) += a * w, w a 16-word window; e holds the even words'
// products (words 0..16), o the odd ones' (words 1..17), so that each 32x32
// product is a mad.lo.cc/madc.hi.cc pair on the same operands.
__device__ __forceinline__ void divb_row(u32 (&e)[17], u32 (&o)[18], u32 a, const u32 (&w)[16]) {
    e[0] = div_madlo_cc(a, w[0], e[0]);
    e[1] = div_madhic_cc(a, w[0], e[1]);
#pragma unroll
    for (int j = 2; j < 16; j += 2) {
        e[j] = div_madloc_cc(a, w[j], e[j]);
        e[j + 1] = div_madhic_cc(a, w[j], e[j + 1]);
    }
    e[16] = div_addc(e[16], 0);
    o[1] = div_madlo_cc(a, w[1], o[1]);
    o[2] = div_madhic_cc(a, w[1], o[2]);
#pragma unroll
    for (int j = 3; j < 16; j += 2) {
        o[j] = div_madloc_cc(a, w[j], o[j]);
        o[j + 1] = div_madhic_cc(a, w[j], o[j + 1]);
    }
    o[17] = div_addc(o[17], 0);
}

// Band beta of Z: c = its 8 window limbs (replaced by Z's, the W part read
// only if withw), ov = the 2 words above them. Mw: ~V_L as words (zero below
// word 0), Qw: Q as words. Returns whether limbs 1..7 are all ones.
__device__ __forceinline__ bool divb_band(u64 *c, u64 &ov, const u32 *Mw, const u32 *Qw, u32 beta,
                                          bool withw) {
    const u32 k0 = 16 * beta;
    u32 e[17], o[18];
#pragma unroll
    for (int i = 0; i < 8; i++) {
        const u64 x = withw ? c[i] : 0;
        e[2 * i] = (u32)x;
        e[2 * i + 1] = (u32)(x >> 32);
    }
    e[16] = 0;
#pragma unroll
    for (int i = 0; i < 18; i++) o[i] = 0;
    u32 hw[16], lw[16], av[16];
    divb_ld16(hw, Mw + k0);
    divb_ld16(lw, Mw + k0 - 16);
    divb_ld16(av, Qw);
#pragma unroll
    for (int u = 0; u < 16; u++) {
        u32 w[16];
#pragma unroll
        for (int j = 0; j < 16; j++) w[j] = j >= u ? hw[j - u] : lw[16 + j - u];
        divb_row(e, o, av[u], w);
    }
#pragma unroll
    for (int j = 0; j < 16; j++) hw[j] = lw[j];
    divb_ld16(lw, Mw + k0 - 32);
    divb_ld16(av, Qw + 16);
#pragma unroll
    for (int u = 0; u < 16; u++) {
        u32 w[16];
#pragma unroll
        for (int j = 0; j < 16; j++) w[j] = j >= u ? hw[j - u] : lw[16 + j - u];
        divb_row(e, o, av[u], w);
    }
    if (k0 < 2 * DIVB_QS) { // + Q in the lowest two bands
        divb_ld16(av, Qw + k0);
        divb_row(e, o, 1u, av);
    }
    u32 st[18];
    st[0] = e[0];
    st[1] = div_add_cc(e[1], o[1]);
#pragma unroll
    for (int w = 2; w <= 16; w++) st[w] = div_addc_cc(e[w], o[w]);
    st[17] = div_addc(o[17], 0);
    u32 ones = ~0u;
#pragma unroll
    for (int w = 2; w < 16; w++) ones &= st[w];
#pragma unroll
    for (int i = 0; i < 8; i++) c[i] = ((u64)st[2 * i + 1] << 32) | st[2 * i];
    ov = ((u64)st[17] << 32) | st[16];
    return ones == ~0u;
}

// Dynamic shared memory for divisors of at most smax limbs (div.rs has the
// same formula): ~V words (2*smax+32), ring (smax+2*QS limbs), band
// overflows (smax/8 limbs), Q (QS limbs).
#define DIVB_SMEM(smax) (17 * (smax) + 512)

// recip: the top problem from a reciprocal of V_T (else a limb at a time).
template <int SMAX>
__device__ __forceinline__ void div_blocked(u64 *qo, u64 *ro, const u64 *a, const u64 *b,
                                            const u64 *list, const u64 *mn, u64 count, u32 limbs,
                                            u32 recip) {
    constexpr int QS = DIVB_QS, H = DIVB_H, NW = DIVB_NW;
    constexpr int KM = (SMAX / 8 + 32 * NW - 1) / (32 * NW); // units per warp
    static_assert(SMAX % 16 == 0 && SMAX / 8 <= 32 * 32, "at most 32 units of 32 bands");
    if (blockIdx.x >= count) return;
    const u32 tid = threadIdx.x, lane = tid & 31, warp = tid >> 5;
    // The warp that solves the top problem, and the one that loads dividend
    // limbs, rotate with the block: warp w of a block runs on the SM's
    // sub-partition w, so a fixed choice would put every resident block's
    // serial top problem on one sub-partition.
    const u32 tw = blockIdx.x % NW, lw = (tw + 1) % NW;

#ifdef DIV_EMU
    u64 *sm = (u64 *)emu_dynamic_smem();
#else
    extern __shared__ u64 s_w[];
    u64 *sm = s_w;
#endif
    u32 *Mw = (u32 *)sm + 32;        // words [-32, 2*SMAX)
    u64 *ring = sm + SMAX + 16;      // SMAX + 2*QS limbs
    u64 *sov = ring + SMAX + 2 * QS; // SMAX/8 limbs
    u64 *sQ = sov + SMAX / 8;        // QS limbs
    const u32 *Qw = (const u32 *)sQ;
    __shared__ u32 s_u[32];
    __shared__ u64 s_x, s_mu[DIVB_QS + 1], s_vt[DIVB_H];
    __shared__ int s_neg;

    const u64 e = list[blockIdx.x];
    const u64 mnv = mn[e];
    const u32 m = (u32)(mnv >> 32), n = (u32)mnv;
    const u64 *u = a + e * limbs, *v = b + e * limbs;
    u64 *q_out = qo + e * limbs, *r_out = ro + e * limbs;
    const u32 s = __clzll(v[n - 1]);
    const int S = (int)((n + 15) & ~15u), z = S - (int)n, j0 = (int)(m - n);
    const int nb = S / 8, RING = S + 2 * QS;
    const u32 nunits = (u32)(nb + 31) / 32;
    const int nsteps = (j0 + QS) / QS;

    const int lm = (int)limbs - 1;
    auto ldu = [&](int i) -> u64 { return u[min(max(i, 0), lm)]; };
    // Limb i of u << s (0 outside 0..=m) and of v << s (0 for i < 0).
    auto un = [&](int i) -> u64 {
        u64 hi = ldu(i), lo = ldu(i - 1);
        hi = i >= 0 && i < (int)m ? hi : 0;
        lo = i >= 1 && i <= (int)m ? lo : 0;
        return (hi << s) | ((lo >> 1) >> (63 - s));
    };
    auto vn = [&](int i) -> u64 {
        u64 hi = v[min(max(i, 0), lm)], lo = v[min(max(i - 1, 0), lm)];
        hi = i >= 0 ? hi : 0;
        lo = i >= 1 ? lo : 0;
        return (hi << s) | ((lo >> 1) >> (63 - s));
    };

    // ~V_L (limbs -16..S-1, zero outside 0..S-H), and the first window: the
    // dividend limbs from (nsteps-1)*QS, with zero limbs above (so that every
    // step makes QS quotient limbs, the top ones zero).
    for (int i = (int)tid; i < S + 16; i += DIVB_T) {
        const int l = i - 16;
        const u64 x = l >= 0 && l < S - H ? ~vn(l - z) : 0;
        Mw[2 * l] = (u32)x;
        Mw[2 * l + 1] = (u32)(x >> 32);
    }
    const int P0 = (nsteps - 1) * QS;
    for (int i = (int)tid; i < S + QS; i += DIVB_T) ring[i] = un(P0 + i - z);
    u64 vt = 0; // warp tw: lane i < H holds V_T limb i
    if (warp == tw && lane < H) vt = vn((int)n - H + (int)lane);
    const u64 d1 = vn((int)n - 1), d0 = vn((int)n - 2), di = div_invert_3by2(d1, d0);
    if (warp == tw) {
        if (lane < H) s_vt[lane] = vt;
        if (recip) { // mu = floor(B^(H+QS)/V_T), QS+1 limbs (the top one <= 2)
            u64 xm = lane == H - 1 ? 1 : 0;
            const u64 mu = divb_seq(xm, 0, QS + 1, vt, d1, d0, di, lane);
            if (lane <= QS) s_mu[lane] = mu;
        }
    }
    __syncthreads();

    int base = 0; // ring index of window limb 0
    auto ri = [&](int i) -> int {
        const int x = base + i;
        return x >= RING ? x - RING : x;
    };
    for (int st = 0;; st++) {
        const int P = (nsteps - 1 - st) * QS; // quotient limb of Q's limb 0
        // ---- A: the top problem (warp tw); warp lw loads the next QS limbs.
        u64 x = 0, myq = 0;
        if (warp == tw) {
            x = lane < H ? ring[ri(S + QS - H + (int)lane)] : 0;
            const u64 inc = lane < QS ? ring[ri(S - H + (int)lane)] : 0;
            // The remainder's top H limbs are at most V_T; if equal, Q would
            // not fit in QS limbs: Q = B^QS - 1 (at most 1 too large) instead.
            if (__ballot_sync(DIV_FULL, lane < H && x != vt) == 0) {
                if (lane == 0) DIV_COUNT(blocked_top_equal);
                myq = lane < QS ? ~0ull : 0;
                const u64 sum = inc + vt;
                x = divb_settle(sum, sum < vt, lane);
                if (lane > H) x = 0;
            } else if (recip) {
                // Qh = floor(a*mu/B^QS), a = W_T's top QS limbs (the window's
                // from S): Q-3 <= Qh <= Q (Barrett). Lane c sums a_i*mu_(c-i).
                u64 p0 = 0, p1 = 0, p2 = 0;
                auto mac = [&](u64 f, u64 g) {
                    const u64 lo = f * g, hi = __umul64hi(f, g);
                    p0 += lo;
                    const u64 h = hi + (p0 < lo); // hi <= B-2
                    p1 += h;
                    p2 += p1 < h;
                };
                // Column c of the sum: p0_c + p1_(c-1) + p2_(c-2).
                auto columns = [&]() -> u64 {
                    u64 a1 = __shfl_up_sync(DIV_FULL, p1, 1), a2 = __shfl_up_sync(DIV_FULL, p2, 2);
                    if (lane < 1) a1 = 0;
                    if (lane < 2) a2 = 0;
                    const u64 s1 = p0 + a1, s2 = s1 + a2;
                    return divb_settle(s2, (u32)(s1 < a1) + (u32)(s2 < a2), lane);
                };
#pragma unroll
                for (int i = 0; i < QS; i++) {
                    const int j = (int)lane - i;
                    mac(ring[ri(S + i)], j >= 0 && j <= QS ? s_mu[max(j, 0)] : 0);
                }
                if (lane == 0) DIV_COUNT(blocked_recip_step);
                u64 qh = __shfl_down_sync(DIV_FULL, columns(), QS);
                if (lane >= QS) qh = 0;
                if (lane < QS) sQ[lane] = qh;
                __syncwarp();
                // R_T = W_T - Qh*V_T, H+1 limbs (R_T < 4*V_T).
                p0 = p1 = p2 = 0;
#pragma unroll
                for (int i = 0; i < QS; i++) {
                    const int j = (int)lane - i;
                    mac(sQ[i], j >= 0 && j < H ? s_vt[max(j, 0)] : 0);
                }
                {
                    const u64 col = columns(); // every lane: it shuffles
                    const u64 nd = lane <= H ? ~col : 0;
                    const u64 wl = lane <= H ? ring[ri(S - H + (int)lane)] : 0;
                    const u64 s1 = wl + nd, s2 = s1 + (lane == 0);
                    x = divb_settle(s2, (u32)(s1 < nd) + (u32)(s2 < s1), lane);
                    if (lane > H) x = 0;
                }
                // At most 3 times: R_T >= V_T, so R_T -= V_T and Qh += 1.
                for (;;) {
                    const u64 nv = lane < H ? ~vt : (lane <= H + 1 ? ~0ull : 0);
                    const u64 s1 = x + nv, s2 = s1 + (lane == 0);
                    const u64 d = divb_settle(s2, (u32)(s1 < nv) + (u32)(s2 < s1), lane);
                    if (__shfl_sync(DIV_FULL, d, H + 1) != 0) break; // R_T - V_T < 0
                    if (lane == 0) DIV_COUNT(blocked_recip_fix);
                    x = lane <= H ? d : 0;
                    const u64 t = qh + (lane == 0);
                    qh = divb_settle(t, t < qh, lane);
                    if (lane >= QS) qh = 0;
                }
                myq = qh;
                __syncwarp(); // every lane has read sQ
            } else {
                myq = divb_seq(x, inc, QS, vt, d1, d0, di, lane);
            }
            if (lane < QS) sQ[lane] = myq;
        } else if (warp == lw && P > 0 && lane < QS) {
            int nbase = base - QS;
            if (nbase < 0) nbase += RING;
            ring[nbase + (int)lane] = un(P - QS + (int)lane - z);
        }
        __syncthreads();
        // ---- B: Z = W_L + Q*~V_L + Q, band by band.
        u32 ones = 0; // bit k: limbs 1..7 of this lane's band of unit k are all ones
#pragma unroll 1
        for (int k = 0; k < KM; k++) {
            const int beta = 32 * (int)(warp + NW * k) + (int)lane;
            if (beta < nb)
                ones |= (u32)divb_band(ring + ri(8 * beta), sov[beta], Mw, Qw, (u32)beta,
                                       8 * beta < S - H)
                        << k;
        }
        __syncthreads();
        // ---- the overlap of the band below, then one carry-lookahead.
        u32 gb = 0, pb = 0;
#pragma unroll
        for (int k = 0; k < KM; k++) {
            const int beta = 32 * (int)(warp + NW * k) + (int)lane;
            if (beta < nb) {
                u64 *c = ring + ri(8 * beta);
                const u64 o = beta > 0 ? sov[beta - 1] : 0;
                const u64 y0 = c[0] + o;
                u32 cy = y0 < o;
                c[0] = y0;
                if (cy) { // y0 < o: not all ones, so the band cannot propagate
                    for (int i = 1; i < 8 && cy; i++) cy = ++c[i] == 0;
                }
                gb |= cy << k;
                pb |= (u32)(y0 == ~0ull && ((ones >> k) & 1)) << k;
            }
        }
        u32 cin = divb_scan<KM>(gb, pb, nunits, s_u);
#pragma unroll
        for (int k = 0; k < KM; k++) {
            const int beta = 32 * (int)(warp + NW * k) + (int)lane;
            if (beta < nb && ((cin >> k) & 1)) {
                u64 *c = ring + ri(8 * beta);
                for (int i = 0; i < 8; i++)
                    if (++c[i] != 0) break;
            }
        }
        __syncthreads();
        // ---- C: T = R_T + Z_hi - Q, computed mod B^(H+1) as R_T + Z_hi + ~Q + 1.
        if (warp == tw) {
            const u64 zh = lane < H ? ring[ri(S - H + (int)lane)] : 0;
            const u64 nq = lane < QS ? ~myq : (lane <= H ? ~0ull : 0);
            const u64 s1 = x + zh, s2 = s1 + nq, s3 = s2 + (lane == 0);
            x = divb_settle(s3, (u32)(s1 < zh) + (u32)(s2 < nq) + (u32)(s3 < s2), lane);
            if (lane > H) x = 0;
            const bool neg = __shfl_sync(DIV_FULL, x, H) >> 63;
            if (!neg) {
                if (lane < H) ring[ri(S - H + (int)lane)] = x;
                if (lane < QS && P + (int)lane <= j0) q_out[P + lane] = myq;
            }
            if (lane == 0) s_neg = neg;
        }
        __syncthreads();
        while (s_neg) { // rare: add the divisor back
            if (tid == 0) DIV_COUNT(blocked_add_back);
            const int bh = (S - H) / 8; // bands below S-H get V_L
            gb = pb = 0;
#pragma unroll
            for (int k = 0; k < KM; k++) {
                const int beta = 32 * (int)(warp + NW * k) + (int)lane;
                if (beta < bh) {
                    u64 *c = ring + ri(8 * beta);
                    u32 cy = 0;
                    u64 all = ~0ull;
                    for (int i = 0; i < 8; i++) {
                        const int l = 8 * beta + i;
                        const u64 vl = ~(((u64)Mw[2 * l + 1] << 32) | Mw[2 * l]);
                        const u64 y = c[i] + vl, y2 = y + cy;
                        cy = (u32)(y < vl) | (u32)(y2 < y);
                        c[i] = y2;
                        all &= y2;
                    }
                    gb |= cy << k;
                    pb |= (u32)(all == ~0ull) << k;
                }
            }
            cin = divb_scan<KM>(gb, pb, nunits, s_u);
#pragma unroll
            for (int k = 0; k < KM; k++) {
                const int beta = 32 * (int)(warp + NW * k) + (int)lane;
                if (beta < bh && ((cin >> k) & 1)) {
                    u64 *c = ring + ri(8 * beta);
                    for (int i = 0; i < 8; i++)
                        if (++c[i] != 0) break;
                }
                if (beta == bh) s_x = (cin >> k) & 1;
            }
            __syncthreads();
            if (warp == tw) { // T += V_T + carry, Q -= 1
                const u64 cb = lane == 0 ? s_x : 0;
                const u64 s1 = x + vt, s2 = s1 + cb;
                x = divb_settle(s2, (u32)(s1 < vt) + (u32)(s2 < cb), lane);
                if (lane > H) x = 0;
                const u64 dq = lane < QS ? ~0ull : 0, s3 = myq + dq;
                myq = divb_settle(s3, s3 < dq, lane);
                if (lane >= QS) myq = 0;
                const bool neg = __shfl_sync(DIV_FULL, x, H) >> 63;
                if (!neg) {
                    if (lane < H) ring[ri(S - H + (int)lane)] = x;
                    if (lane < QS && P + (int)lane <= j0) q_out[P + lane] = myq;
                }
                if (lane == 0) s_neg = neg;
            }
            __syncthreads();
        }
        if (st == nsteps - 1) break;
        base = base >= QS ? base - QS : base - QS + RING;
    }

    // Remainder: window limbs [z, S) >> s.
    for (int i = (int)tid; i < (int)n; i += DIVB_T) {
        const u64 lo = ring[ri(z + i)], hi = z + i + 1 < S ? ring[ri(z + i + 1)] : 0;
        r_out[i] = (lo >> s) | ((hi << 1) << (63 - s));
    }
}

#define DIVB_TIER(NAME, SMAX)                                                                \
    extern "C" __global__ void __launch_bounds__(DIVB_T, 4)                                  \
        NAME(u64 *qo, u64 *ro, const u64 *a, const u64 *b, const u64 *list, const u64 *mn,  \
             u64 count, u32 limbs, u32 recip) {                                              \
        div_blocked<SMAX>(qo, ro, a, b, list, mn, count, limbs, recip);                      \
    }

// Keep in step with BLOCKED in src/int/cuda/div.rs: tier t's bound as SMAX.
DIVB_TIER(int_div_b7, 512)
DIVB_TIER(int_div_b8, 1024)
DIVB_TIER(int_div_b9, 1536)
DIVB_TIER(int_div_b10, 2048)
DIVB_TIER(int_div_b11, 2560)
DIVB_TIER(int_div_b12, 3072)
DIVB_TIER(int_div_b13, 3584)
DIVB_TIER(int_div_b14, 4096)
DIVB_TIER(int_div_b15, 4608)
DIVB_TIER(int_div_b16, 5120)
DIVB_TIER(int_div_b17, 5632)
DIVB_TIER(int_div_b18, 6144)
DIVB_TIER(int_div_b19, 6656)
DIVB_TIER(int_div_b20, 7168)
DIVB_TIER(int_div_b21, 7680)
DIVB_TIER(int_div_b22, 8192)
