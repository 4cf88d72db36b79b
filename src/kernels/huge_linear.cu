// Linear-time primitives on one huge natural (little-endian u64 limbs).
//
// Addition and subtraction over millions of limbs resolve carries in three
// launches: (1) each tile of HL_TILE limbs reports whether it generates a
// carry (with carry-in 0) or propagates one (all result limbs ~0 for add, 0
// for subtract); (2) one block scans the tile reports into tile carry-ins;
// (3) each tile recomputes its limbs with its carry-in and writes them.
// Inside a tile, the carries between threads and between warps come from the
// carry-lookahead identity: with x = g|p and y = g (one bit per lane), the
// carry into lane i is bit i of (x + y + cin) ^ x ^ y.
#include "common.cuh"

#define HL_TPB 256
#define HL_PER 8
#define HL_TILE (HL_TPB * HL_PER)

// Carry into each of `width` (<= 32) lanes given bit masks g, p and the
// carry-in cin; *out gets the carry out of the top lane.
__device__ __forceinline__ u32 hl_carries(u32 g, u32 p, u32 cin, u32 *out, int width = 32) {
    u64 x = (u64)(g | p), y = (u64)g;
    u64 s = x + y + cin;
    *out = (u32)(s >> width) & 1u;
    return (u32)((s ^ x ^ y) & 0xffffffffull);
}

// One thread's HL_PER limbs of acc[i] -/+ b[i] (b is zero at i >= nb) with
// carry-in c; writes the result when out is set. Returns the carry out and
// sets *prop when every result limb is ~0 (add) or 0 (subtract).
template <bool SUB>
__device__ __forceinline__ u32 hl_chunk(u64 *out, const u64 *acc, const u64 *b, u64 i0, u64 n,
                                        u64 nb, u32 c, u32 *prop) {
    u32 all = 1;
#pragma unroll
    for (int k = 0; k < HL_PER; k++) {
        u64 i = i0 + k;
        if (i < n) {
            u64 a = acc[i];
            u64 v = i < nb ? b[i] : 0ull;
            u64 r = SUB ? subb_u64(a, v, c) : addc_u64(a, v, c);
            all &= SUB ? (r == 0ull) : (r == ~0ull);
            if (out) out[i] = r;
        }
    }
    *prop = all;
    return c;
}

// Carry-in of this thread within its tile, for tile carry-in tcin; the
// tile's (generate, propagate) pair goes to *tg, *tp and its carry out
// (given tcin) to *tout. All threads call it.
__device__ __forceinline__ u32 hl_tile_scan(u32 g, u32 p, u32 tcin, u32 *tg, u32 *tp,
                                            u32 *tout) {
    __shared__ u32 wg[HL_TPB / 32], wp[HL_TPB / 32];
    u32 lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
    u32 G = __ballot_sync(0xffffffffu, g), P = __ballot_sync(0xffffffffu, p);
    u32 wout;
    hl_carries(G, P, 0, &wout);
    if (lane == 0) {
        wg[warp] = wout;
        wp[warp] = P == 0xffffffffu;
    }
    __syncthreads();
    u32 bg = 0, bp = 0;
    for (int w = 0; w < HL_TPB / 32; w++) {
        bg |= wg[w] << w;
        bp |= wp[w] << w;
    }
    __syncthreads();
    u32 wc = hl_carries(bg, bp, tcin, tout, HL_TPB / 32);
    u32 wcin = (wc >> warp) & 1u;
    u32 lc = hl_carries(G, P, wcin, &wout);
    hl_carries(bg, bp, 0, tg, HL_TPB / 32);
    *tp = bp == (1u << (HL_TPB / 32)) - 1u;
    return (lc >> lane) & 1u;
}

// Pass 1: st[tile] = generate | propagate << 1 for acc[i] -/+ b[i], i < n.
template <bool SUB>
__device__ __forceinline__ void hl_scan1(const u64 *acc, const u64 *b, u64 n, u64 nb, u8 *st) {
    u64 i0 = (u64)blockIdx.x * HL_TILE + (u64)threadIdx.x * HL_PER;
    u32 p;
    u32 g = hl_chunk<SUB>(nullptr, acc, b, i0, n, nb, 0, &p);
    u32 tg, tp, tout;
    hl_tile_scan(g, p, 0, &tg, &tp, &tout);
    if (threadIdx.x == 0) st[blockIdx.x] = (u8)(tg | tp << 1);
}

// Pass 3: writes acc[i] -/+ b[i] with the carries resolved, st[tile] now
// holding the tile's carry-in. With st null (one tile, n <= HL_TILE) the
// carry-in is 0, passes 1 and 2 are skipped, and *cout (if not null) gets
// the carry out.
template <bool SUB>
__device__ __forceinline__ void hl_scan3(u64 *acc, const u64 *b, u64 n, u64 nb, const u8 *st,
                                         u64 *cout) {
    u64 i0 = (u64)blockIdx.x * HL_TILE + (u64)threadIdx.x * HL_PER;
    u32 p;
    u32 g = hl_chunk<SUB>(nullptr, acc, b, i0, n, nb, 0, &p);
    u32 tg, tp, tout;
    u32 cin = hl_tile_scan(g, p, st != nullptr ? st[blockIdx.x] : 0u, &tg, &tp, &tout);
    if (st == nullptr && cout != nullptr && threadIdx.x == 0) *cout = tout;
    __syncthreads();
    hl_chunk<SUB>(acc, acc, b, i0, n, nb, cin, &p);
}

extern "C" __global__ void __launch_bounds__(HL_TPB)
    hl_add1(const u64 *acc, const u64 *b, u64 n, u64 nb, u8 *st) {
    hl_scan1<false>(acc, b, n, nb, st);
}
extern "C" __global__ void __launch_bounds__(HL_TPB)
    hl_sub1(const u64 *acc, const u64 *b, u64 n, u64 nb, u8 *st) {
    hl_scan1<true>(acc, b, n, nb, st);
}
extern "C" __global__ void __launch_bounds__(HL_TPB)
    hl_add3(u64 *acc, const u64 *b, u64 n, u64 nb, const u8 *st, u64 *cout) {
    hl_scan3<false>(acc, b, n, nb, st, cout);
}
extern "C" __global__ void __launch_bounds__(HL_TPB)
    hl_sub3(u64 *acc, const u64 *b, u64 n, u64 nb, const u8 *st, u64 *cout) {
    hl_scan3<true>(acc, b, n, nb, st, cout);
}

// Pass 2, one block of 1024 threads: replaces each tile's (generate,
// propagate) byte by its carry-in; *cout gets the carry out of the last tile.
extern "C" __global__ void __launch_bounds__(1024) hl_scan2(u8 *st, u64 ntiles, u64 *cout) {
    __shared__ u32 wg[32], wp[32];
    u64 per = (ntiles + 1023) / 1024;
    u64 t0 = threadIdx.x * per, t1 = min(t0 + per, ntiles);
    // This thread's run of tiles as one (generate, propagate) pair.
    u32 g = 0, p = 1;
    for (u64 t = t0; t < t1; t++) {
        u32 s = st[t];
        g = (s & 1u) | ((s >> 1) & g);
        p &= s >> 1;
    }
    u32 lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
    u32 G = __ballot_sync(0xffffffffu, g), P = __ballot_sync(0xffffffffu, p);
    u32 wout;
    hl_carries(G, P, 0, &wout);
    if (lane == 0) {
        wg[warp] = wout;
        wp[warp] = P == 0xffffffffu;
    }
    __syncthreads();
    u32 bg = 0, bp = 0;
    for (int w = 0; w < 32; w++) {
        bg |= wg[w] << w;
        bp |= wp[w] << w;
    }
    u32 tout;
    u32 wc = hl_carries(bg, bp, 0, &tout);
    u32 c = (hl_carries(G, P, (wc >> warp) & 1u, &wout) >> lane) & 1u;
    for (u64 t = t0; t < t1; t++) {
        u32 s = st[t];
        st[t] = (u8)c;
        c = (s & 1u) | ((s >> 1) & c);
    }
    if (threadIdx.x == 1023) *cout = tout;
}

// *res = min(*res, first i in [lo, hi) with a[i] != skip).
extern "C" __global__ void hl_find(const u64 *a, u64 lo, u64 hi, u64 skip, u64 *res) {
    u64 best = ~0ull;
    for (u64 i = lo + (u64)blockIdx.x * blockDim.x + threadIdx.x; i < hi;
         i += (u64)gridDim.x * blockDim.x) {
        if (a[i] != skip) {
            best = i;
            break;
        }
    }
    if (best != ~0ull) atomicMin(res, best);
}

// a[i] = fill for i in [lo, hi), then, when *stop < end, a[*stop] += delta
// (one thread). With stop = nullptr only the fill.
extern "C" __global__ void hl_fill(u64 *a, u64 lo, u64 hi, u64 fill, const u64 *stop, u64 end,
                                   u64 delta) {
    u64 tid = (u64)blockIdx.x * blockDim.x + threadIdx.x;
    for (u64 i = lo + tid; i < hi; i += (u64)gridDim.x * blockDim.x) a[i] = fill;
    if (tid == 0 && stop != nullptr && *stop < end) a[*stop] += delta;
}

// *res = max(*res, 1 + highest i < n with a[i] != b[i]) (b == nullptr: zero).
extern "C" __global__ void hl_top(const u64 *a, u64 na, const u64 *b, u64 nb, u64 *res) {
    u64 n = max(na, nb), best = 0;
    for (u64 i = (u64)blockIdx.x * blockDim.x + threadIdx.x; i < n;
         i += (u64)gridDim.x * blockDim.x) {
        u64 x = i < na ? a[i] : 0ull, y = (b != nullptr && i < nb) ? b[i] : 0ull;
        if (x != y) best = i + 1;
    }
    if (best != 0) atomicMax(res, best);
}

// *out = 0, 1, 2 as a < b, a == b, a > b, given *top from hl_top.
extern "C" __global__ void hl_cmp(const u64 *a, u64 na, const u64 *b, u64 nb, const u64 *top,
                                  u64 *out) {
    if (blockIdx.x == 0 && threadIdx.x == 0) {
        u64 t = *top;
        if (t == 0) {
            *out = 1;
        } else {
            u64 x = t - 1 < na ? a[t - 1] : 0ull, y = t - 1 < nb ? b[t - 1] : 0ull;
            *out = x < y ? 0 : x == y ? 1 : 2;
        }
    }
}

// acc[at] -/+= v, *flag = the carry or borrow out of that limb.
extern "C" __global__ void hl_limb(u64 *acc, u64 at, u64 v, u32 sub, u64 *flag) {
    if (blockIdx.x == 0 && threadIdx.x == 0) {
        u64 a = acc[at];
        u64 r = sub ? a - v : a + v;
        acc[at] = r;
        *flag = sub ? (u64)(a < v) : (u64)(r < a);
    }
}

// r[i] = (a[i] << s) | (a[i-1] >> (64 - s)), i <= n (a[-1] = a[n] = 0).
extern "C" __global__ void hl_shl(u64 *r, const u64 *a, u64 n, u32 s) {
    for (u64 i = (u64)blockIdx.x * blockDim.x + threadIdx.x; i <= n;
         i += (u64)gridDim.x * blockDim.x) {
        u64 hi = i < n ? a[i] : 0ull, lo = i > 0 ? a[i - 1] : 0ull;
        r[i] = s == 0 ? hi : (hi << s) | (lo >> (64 - s));
    }
}

// r[i] = (a[i] >> s) | (a[i+1] << (64 - s)), i < n (a[n] = 0).
extern "C" __global__ void hl_shr(u64 *r, const u64 *a, u64 n, u32 s) {
    for (u64 i = (u64)blockIdx.x * blockDim.x + threadIdx.x; i < n;
         i += (u64)gridDim.x * blockDim.x) {
        u64 lo = a[i], hi = i + 1 < n ? a[i + 1] : 0ull;
        r[i] = s == 0 ? lo : (lo >> s) | (hi << (64 - s));
    }
}

// lo[i] = low(a[i] v), hi[i] = high(a[i] v) for i < n; lo[n] = 0.
extern "C" __global__ void hl_mul_limb(u64 *lo, u64 *hi, const u64 *a, u64 n, u64 v) {
    for (u64 i = (u64)blockIdx.x * blockDim.x + threadIdx.x; i <= n;
         i += (u64)gridDim.x * blockDim.x) {
        if (i < n) {
            u64 l, h;
            mul_wide_u64(a[i], v, l, h);
            lo[i] = l;
            hi[i] = h;
        } else {
            lo[i] = 0;
        }
    }
}
