// Division with remainder (floor quotient and remainder, all of W = 64*L
// bits) for every width.
//
// Method: schoolbook division (Knuth D), each quotient limb estimated from the
// top three limbs of the partial remainder by a 3-by-2 division with a
// precomputed reciprocal (Moller-Granlund, as GMP's mpn_sbpi1_div_qr), so at
// most one add-back is ever needed. One GROUP of G threads divides one
// element; thread t of the group keeps C limbs of the normalised divisor and
// of the partial remainder ("window") in registers, so per quotient limb every
// thread does C multiply-subtracts, then the group resolves the carries
// between threads exactly (a shuffle of the carry limbs, then a
// carry-lookahead over generate/propagate bits from ballots).
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
// Tiers: divisors of at most DIV_S[t] limbs go to tier t.
#define DIV_NTIERS 13
// meta layout: [0] ~(first element with a zero divisor) or 0; [1..=NTIERS+1]
// tier bounds in the sorted list; [DIV_HIST..] histogram / offsets, L+2 entries.
#define DIV_HIST (DIV_NTIERS + 2)

__constant__ unsigned div_tier_s[DIV_NTIERS] = {4,    8,    16,   32,   64,   128,  256,
                                                512,  1024, 2048, 4096, 8192, 16384};

// ---- limb arithmetic -------------------------------------------------------

// (hi:lo) = a*b + c; never overflows. 32-bit multiply-add chain on the device.
__device__ __forceinline__ void div_mad_wide(u64 a, u64 b, u64 c, u64 &lo, u64 &hi) {
#ifdef __CUDA_ARCH__
    u32 t0, t1, t2, t3;
    asm("mad.lo.cc.u32 %0, %4, %6, %8;\n\t"
        "madc.lo.cc.u32 %1, %4, %7, %9;\n\t"
        "madc.hi.u32 %2, %4, %7, 0;\n\t"
        "mad.hi.cc.u32 %1, %4, %6, %1;\n\t"
        "madc.lo.cc.u32 %2, %5, %7, %2;\n\t"
        "madc.hi.u32 %3, %5, %7, 0;\n\t"
        "mad.lo.cc.u32 %1, %5, %6, %1;\n\t"
        "madc.hi.cc.u32 %2, %5, %6, %2;\n\t"
        "addc.u32 %3, %3, 0;"
        : "=&r"(t0), "=&r"(t1), "=&r"(t2), "=&r"(t3)
        : "r"((u32)a), "r"((u32)(a >> 32)), "r"((u32)b), "r"((u32)(b >> 32)), "r"((u32)c),
          "r"((u32)(c >> 32)));
    lo = ((u64)t1 << 32) | t0;
    hi = ((u64)t3 << 32) | t2;
#else
    unsigned __int128 t = (unsigned __int128)a * b + c;
    lo = (u64)t;
    hi = (u64)(t >> 64);
#endif
}

// r - q*v - c, the new carry (< 2^64) back in c.
__device__ __forceinline__ u64 div_submul(u64 r, u64 q, u64 v, u64 &c) {
    u64 lo, hi;
    div_mad_wide(q, v, c, lo, hi);
    c = hi + (r < lo);
    return r - lo;
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

// C limbs per thread, G threads per group (G <= 32: a warp segment, several
// groups per block; G > 32: the block). VSMEM: the divisor lives in shared
// memory instead of registers (the widest tier).
template <int C, int G, bool VSMEM>
__device__ __forceinline__ void div_group(u64 *qo, u64 *ro, const u64 *a, const u64 *b,
                                          const u64 *list, const u64 *mn, u64 count,
                                          u32 limbs) {
    constexpr bool BLOCK = G > 32;
    constexpr int S = G * C;               // padded divisor length
    constexpr int P = BLOCK ? 32 : G;      // threads that stage dividend and quotient limbs
    constexpr int NW = BLOCK ? G / 32 : 1; // warps per group
    static_assert(C >= 4, "the top three window limbs must sit in one thread");
    static_assert((G & (G - 1)) == 0 && G <= 1024, "G must be a power of two");
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
    u64 *s_v = (u64 *)emu_dynamic_smem(); // the CPU emulator in notes/div-emu
#else
    extern __shared__ u64 s_v[]; // VSMEM only: S limbs, thread-interleaved
#endif

    const u64 e = list[gi];
    const u64 mnv = mn[e];
    const u32 m = (u32)(mnv >> 32), n = (u32)mnv;
    const u64 *u = a + e * limbs, *v = b + e * limbs;
    u64 *q_out = qo + e * limbs, *r_out = ro + e * limbs;
    const u32 s = __clzll(v[n - 1]);
    const int z = S - (int)n, j0 = (int)(m - n);
    const u32 steps = (u32)j0 + 1;

    // Limb i of u << s (0 outside 0..=m) and of v << s.
    auto un = [&](int i) -> u64 {
        if (i < 0 || i > (int)m) return 0;
        u64 hi = i < (int)m ? u[i] : 0, lo = i > 0 ? u[i - 1] : 0;
        return (hi << s) | ((lo >> 1) >> (63 - s));
    };
    auto vn = [&](int i) -> u64 {
        u64 lo = i > 0 ? v[i - 1] : 0;
        return (v[i] << s) | ((lo >> 1) >> (63 - s));
    };

    // Window W[0..S] = limbs j..j+S of (u << s)*B^z at step j (j = j0 down to 0);
    // thread t holds W[tC..tC+C), the top thread also rt = W[S].
    u64 r[C], vr[VSMEM ? 1 : C];
#pragma unroll
    for (int k = 0; k < C; k++) {
        int p = (int)t * C + k;
        r[k] = un(j0 - z + p);
        u64 x = p >= z ? vn(p - z) : 0;
        if constexpr (VSMEM) s_v[k * G + t] = x;
        else vr[k] = x;
    }
    if constexpr (VSMEM) __syncthreads();
    auto V = [&](int k) -> u64 {
        if constexpr (VSMEM) return s_v[k * G + t];
        else return vr[k];
    };
    u64 rt = un((int)m);
    const u64 d1 = vn((int)n - 1), d0 = n >= 2 ? vn((int)n - 2) : 0;
    const u64 di = div_invert_3by2(d1, d0);

    // Dividend limbs to shift in: D(k) = W-limb entering after step k.
    const u32 io = BLOCK ? lane : t;
    const bool is_io = !BLOCK || warp == 0;
    auto D = [&](u32 k) -> u64 { return un(j0 - 1 - z - (int)k); };
    u64 cur = 0, nxt = 0, qb = 0;
    if (is_io) {
        cur = D(io);
        nxt = D(P + io);
    }

    // Group primitives.
    auto bcast_top = [&](u64 x) -> u64 { // the top thread's x, to all
        if constexpr (BLOCK) {
            return x; // callers use shared memory for block groups
        } else if constexpr (G == 1) {
            return x;
        } else {
            return __shfl_sync(gmask, x, G - 1, G);
        }
    };
    // Carry-lookahead: thread t generates (g) or propagates (p) a carry/borrow;
    // returns the carry into thread t (thread 0 gets none).
    auto resolve = [&](bool g, bool p) -> u32 {
        if constexpr (G == 1) {
            return 0;
        } else {
            u32 X = __ballot_sync(gmask, g || p), Y = __ballot_sync(gmask, g);
            u32 cin = 0, tl = t;
            if constexpr (BLOCK) {
                u64 sw = (u64)X + Y;
                if (lane == 0) s_gp[warp] = (u32)(sw >> 32) | (X == DIV_FULL && Y == 0 ? 2u : 0u);
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

    const bool top = t == G - 1;
    u64 qn = div_qhat(rt, r[C - 1], r[C - 2], d1, d0, di);
    if constexpr (BLOCK) {
        if (top) s_x[0] = qn;
        __syncthreads();
        qn = s_x[0];
    } else {
        qn = bcast_top(qn);
    }

    for (u32 sg = 0;; sg++) {
        u64 qd = qn;
        // W -= qd * V, carries between threads pending.
        u64 c = 0;
#pragma unroll
        for (int k = 0; k < C; k++) r[k] = div_submul(r[k], qd, V(k), c);
        // The carry limb from the thread below.
        u64 cin;
        if constexpr (BLOCK) {
            cin = __shfl_up_sync(DIV_FULL, c, 1);
            if (lane == 31) s_c[warp] = c;
            __syncthreads();
            if (lane == 0) cin = warp ? s_c[warp - 1] : 0;
        } else if constexpr (G == 1) {
            cin = 0;
        } else {
            cin = __shfl_up_sync(gmask, c, 1, G);
            if (t == 0) cin = 0;
        }
        // Subtracting cin from this chunk borrows (g) or leaves zero (p).
        u64 nz = 0;
#pragma unroll
        for (int k = 1; k < C; k++) nz |= r[k];
        const bool g = nz == 0 && r[0] < cin, p = nz == 0 && r[0] == cin;
        if (p) DIV_COUNT(propagate);
        const u32 beta = resolve(g, p);
        // Apply cin + beta; the borrow rarely passes r[1].
        u64 x0 = r[0], x1 = x0 - cin;
        u64 bo = (x0 < cin) | (x1 < beta);
        r[0] = x1 - beta;
        u64 y1 = r[1];
        r[1] = y1 - bo;
        bo &= (y1 == 0);
        if (bo) {
            DIV_COUNT(long_borrow);
#pragma unroll
            for (int k = 2; k < C; k++) {
                u64 y = r[k];
                r[k] = y - bo;
                bo &= (y == 0);
            }
        }
        // Top limb: zero unless qd was one too large.
        u64 rtn = rt - c - bo;
        bool neg = top && (rtn != 0);
        u64 ql = div_qhat(r[C - 1], r[C - 2], r[C - 3], d1, d0, di);
        bool any_neg;
        if constexpr (BLOCK) {
            if (top) {
                s_x[0] = ql;
                s_x[1] = neg;
            }
            if (lane == 31) s_sh[warp] = r[C - 1];
            __syncthreads();
            any_neg = s_x[1] != 0;
            qn = s_x[0];
        } else {
            any_neg = G == 1 ? neg : (__ballot_sync(gmask, neg) & gmask) != 0;
            qn = bcast_top(ql);
        }
        while (any_neg) { // rare: add the divisor back
            if (top) DIV_COUNT(add_back);
            qd--;
            u32 cy = 0;
#pragma unroll
            for (int k = 0; k < C; k++) {
                u64 y = r[k] + V(k);
                u32 c1 = y < r[k];
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
            ql = div_qhat(r[C - 1], r[C - 2], r[C - 3], d1, d0, di);
            if constexpr (BLOCK) {
                __syncthreads(); // everyone has read s_x and s_sh
                if (top) {
                    s_x[0] = ql;
                    s_x[1] = neg;
                }
                if (lane == 31) s_sh[warp] = r[C - 1];
                __syncthreads();
                any_neg = s_x[1] != 0;
                qn = s_x[0];
            } else {
                any_neg = G == 1 ? neg : (__ballot_sync(gmask, neg) & gmask) != 0;
                qn = bcast_top(ql);
            }
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
            cur = nxt;
            nxt = D(sg + 1 + P + io);
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

#define DIV_TIER(NAME, C, G, VSMEM, TPB)                                                     \
    extern "C" __global__ void __launch_bounds__(TPB, 512 / (TPB))                          \
        NAME(u64 *qo, u64 *ro, const u64 *a, const u64 *b, const u64 *list, const u64 *mn,  \
             u64 count, u32 limbs) {                                                         \
        div_group<C, G, VSMEM>(qo, ro, a, b, list, mn, count, limbs);                        \
    }

// Keep in step with TIERS in src/int/cuda/div.rs.
DIV_TIER(int_div_t0, 4, 1, false, 128)
DIV_TIER(int_div_t1, 8, 1, false, 128)
DIV_TIER(int_div_t2, 16, 1, false, 128)
DIV_TIER(int_div_t3, 16, 2, false, 128)
DIV_TIER(int_div_t4, 16, 4, false, 128)
DIV_TIER(int_div_t5, 16, 8, false, 128)
DIV_TIER(int_div_t6, 16, 16, false, 128)
DIV_TIER(int_div_t7, 16, 32, false, 128)
DIV_TIER(int_div_t8, 16, 64, false, 64)
DIV_TIER(int_div_t9, 16, 128, false, 128)
DIV_TIER(int_div_t10, 16, 256, false, 256)
DIV_TIER(int_div_t11, 16, 512, false, 512)
DIV_TIER(int_div_t12, 32, 512, true, 512)
