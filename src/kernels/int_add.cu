// Addition, subtraction and the fused six-add modulo 2^W.
//
// The n elements of L limbs form one flat stream of n*L limbs, and an add is
// a carry scan over it, segmented at element boundaries. A block owns a unit
// of whole elements: E of them when they fit in one window of ADD_T limbs,
// else one, walked window by window with the carry kept in registers. Each
// thread loads ADD_K consecutive limbs of a window with 16-byte loads (all
// in flight before the first use), adds them, and reduces its chunk to a
// generate bit G (carry out) and a propagate bit P (sum all ones). Carries
// are resolved across a warp with ballots and across warps through shared
// memory, with carry-in bits = ((G << 1) + P + cin) ^ P (G, P exclusive).
// A boundary forces the carry into an element's first limb: 0 for add, 1
// for sub (a - b = a + ~b + 1; the borrow out is the carry out negated).
//
// Two thread layouts share this frame. Chunk: a thread's ADD_K limbs are
// consecutive; aligned kernels (L % ADD_K == 0: a chunk never straddles
// elements, a plain PTX carry chain) and general ones (any L: per-limb
// masks; windows start at an even limb so loads stay 16-byte aligned;
// edges masked). Striped (below): each warp load covers 512 contiguous
// bytes, which is what reaches the copy rate; add.rs says which layout
// serves which operation. Memory traffic is exactly one read of a and b
// and one write of r.
#include "common.cuh"

#ifndef ADD_K
#define ADD_K 8 // limbs per thread (even)
#endif
#ifndef ADD_B
#define ADD_B 256 // threads per block
#endif
#define ADD_T (ADD_K * ADD_B) // limbs per window
#define ADD_NW (ADD_B / 32)
#define ADD_KMASK ((1u << ADD_K) - 1)

// 16-byte streaming load and store. The load is volatile asm so that the
// compiler keeps every load of a chunk ahead of the (volatile) carry chain
// that consumes them: all of a thread's loads are in flight at once.
__device__ __forceinline__ void ld2(const u64 *p, u64 &x, u64 &y) {
#ifdef __CUDA_ARCH__
    asm volatile("ld.global.cs.v2.u64 {%0, %1}, [%2];" : "=l"(x), "=l"(y) : "l"(p));
#else
    x = p[0];
    y = p[1];
#endif
}

__device__ __forceinline__ void st2(u64 *p, u64 x, u64 y) {
#ifdef __CUDA_ARCH__
    asm volatile("st.global.cs.v2.u64 [%0], {%1, %2};" ::"l"(p), "l"(x), "l"(y) : "memory");
#else
    p[0] = x;
    p[1] = y;
#endif
}

// s = x + y over ADD_K limbs; returns the carry out.
__device__ __forceinline__ u32 add_chain(u64 (&s)[ADD_K], const u64 (&x)[ADD_K],
                                         const u64 (&y)[ADD_K]) {
    u32 c;
#ifdef __CUDA_ARCH__
    asm volatile("add.cc.u64 %0, %1, %2;" : "=l"(s[0]) : "l"(x[0]), "l"(y[0]));
#pragma unroll
    for (int j = 1; j < ADD_K; j++)
        asm volatile("addc.cc.u64 %0, %1, %2;" : "=l"(s[j]) : "l"(x[j]), "l"(y[j]));
    asm volatile("addc.u32 %0, 0, 0;" : "=r"(c));
#else
    c = 0;
    for (int j = 0; j < ADD_K; j++) s[j] = addc_u64(x[j], y[j], c);
#endif
    return c;
}

// s += c (c in {0, 1}) over ADD_K limbs, carry out dropped.
__device__ __forceinline__ void inc_chain(u64 (&s)[ADD_K], u32 c) {
#ifdef __CUDA_ARCH__
    asm volatile("add.cc.u64 %0, %0, %1;" : "+l"(s[0]) : "l"((u64)c));
#pragma unroll
    for (int j = 1; j < ADD_K - 1; j++) asm volatile("addc.cc.u64 %0, %0, 0;" : "+l"(s[j]));
    asm volatile("addc.u64 %0, %0, 0;" : "+l"(s[ADD_K - 1]));
#else
    for (int j = 0; j < ADD_K; j++) {
        s[j] += c;
        c = c && s[j] == 0;
    }
#endif
}

__device__ __forceinline__ u32 all_ones(const u64 (&s)[ADD_K]) {
    u64 t = s[0];
#pragma unroll
    for (int j = 1; j < ADD_K; j++) t &= s[j];
    return t == ~0ull;
}

// The carry into this thread's chunk, given its (g, p) and the carry into
// the window (cb, which becomes the carry out of the window). All threads
// of the block call it together; `slot` alternates between two buffers so
// one barrier per scan suffices.
__device__ __forceinline__ u32 block_carry(u32 g, u32 p, u32 &cb, u32 *slot) {
    u32 lane = threadIdx.x & 31, w = threadIdx.x >> 5;
    u32 gm = __ballot_sync(~0u, g), pm = __ballot_sync(~0u, p);
    u64 ws = ((u64)gm << 1) + pm;
    if (lane == 0) slot[w] = (u32)(ws >> 32) | ((u32)(pm == ~0u) << 1);
    __syncthreads();
    u32 v = lane < ADD_NW ? slot[lane] : 0;
    u32 gw = __ballot_sync(~0u, v & 1), pw = __ballot_sync(~0u, v & 2);
    u64 bs = ((u64)gw << 1) + pw + cb;
    u32 cw = (u32)((bs ^ pw) >> w) & 1;
    cb = (u32)(bs >> ADD_NW) & 1;
    u64 ls = ((u64)gm << 1) + pm + cw;
    return (u32)((ls ^ pm) >> lane) & 1;
}

__device__ __forceinline__ void load_aligned(u64 (&v)[ADD_K], const u64 *p, bool ok) {
#pragma unroll
    for (int j = 0; j < ADD_K; j++) v[j] = 0;
    if (ok) {
#pragma unroll
        for (int j = 0; j < ADD_K; j += 2) ld2(p + j, v[j], v[j + 1]);
    }
}

__device__ __forceinline__ void store_aligned(u64 *p, const u64 (&v)[ADD_K], bool ok) {
    if (!ok) return;
#pragma unroll
    for (int j = 0; j < ADD_K; j += 2) st2(p + j, v[j], v[j + 1]);
}

// Limbs x0.. of base, those outside [lo, hi) read as zero. x0 is even.
__device__ __forceinline__ void load_masked(u64 (&v)[ADD_K], const u64 *base, u64 x0, u64 lo,
                                            u64 hi) {
#pragma unroll
    for (int j = 0; j < ADD_K; j += 2) {
        u64 i = x0 + j;
        if (i >= lo && i + 2 <= hi) {
            ld2(base + i, v[j], v[j + 1]);
        } else {
            v[j] = (i >= lo && i < hi) ? base[i] : 0;
            v[j + 1] = (i + 1 >= lo && i + 1 < hi) ? base[i + 1] : 0;
        }
    }
}

__device__ __forceinline__ void store_masked(u64 *base, const u64 (&v)[ADD_K], u64 x0, u64 lo,
                                             u64 hi) {
#pragma unroll
    for (int j = 0; j < ADD_K; j += 2) {
        u64 i = x0 + j;
        if (i >= lo && i + 2 <= hi) {
            st2(base + i, v[j], v[j + 1]);
        } else {
            if (i >= lo && i < hi) base[i] = v[j];
            if (i + 1 >= lo && i + 1 < hi) base[i + 1] = v[j + 1];
        }
    }
}

// One segmented addition s = x + y of the aligned tier. `end`: this chunk
// holds an element's last limb (or lies past the unit), so the carry out of
// it is replaced by F. Returns the carry out of the chunk's last limb.
template <int F>
__device__ __forceinline__ u32 step_aligned(u64 (&s)[ADD_K], const u64 (&x)[ADD_K],
                                            const u64 (&y)[ADD_K], u32 end, u32 &cb, u32 *slot) {
    u32 g = add_chain(s, x, y);
    u32 p = all_ones(s);
    u32 cin = block_carry(F ? (g | end) : (g & (end ^ 1)), p & (end ^ 1), cb, slot);
    inc_chain(s, cin);
    return g | (p & cin);
}

// Per-thread geometry of the general tier: which limbs of the chunk are in
// the unit (valid) and which end an element, and the element offset q of
// the first valid limb from the unit's first element.
struct Masks {
    u32 valid, ends, q;
};

__device__ __forceinline__ Masks chunk_masks(u64 x0, u64 lo, u64 hi, u32 L) {
    Masks m = {0, 0, 0};
    u32 rel = x0 >= lo ? (u32)(x0 - lo) : 0;
    m.q = rel / L;
    u32 pos = rel - m.q * L;
#pragma unroll
    for (int j = 0; j < ADD_K; j++) {
        u64 i = x0 + j;
        if (i >= lo && i < hi) {
            m.valid |= 1u << j;
            if (pos == L - 1) m.ends |= 1u << j;
            pos = pos + 1 == L ? 0 : pos + 1;
        }
    }
    return m;
}

// One segmented addition s = x + y of the general tier. kill: limbs whose
// carry out is replaced by F. Returns the per-limb carry-out mask.
template <int F>
__device__ __forceinline__ u32 step_general(u64 (&s)[ADD_K], const u64 (&x)[ADD_K],
                                            const u64 (&y)[ADD_K], u32 kill, u32 &cb, u32 *slot) {
    u32 g = 0, p = 0;
#pragma unroll
    for (int j = 0; j < ADD_K; j++) {
        u64 t = x[j] + y[j];
        g |= (u32)(t < x[j]) << j;
        p |= (u32)(t == ~0ull) << j;
        s[j] = t;
    }
    u32 gk = F ? (g | kill) : (g & ~kill), pk = p & ~kill;
    u32 t = (gk << 1) + pk;
    u32 cin = block_carry(t >> ADD_K, pk == ADD_KMASK, cb, slot);
    u32 c = ((gk << 1) + pk + cin) ^ pk;
#pragma unroll
    for (int j = 0; j < ADD_K; j++) s[j] += (c >> j) & 1;
    return g | (p & c);
}

// The unit u: elements [e0, e1), limbs [lo, hi).
#define ADD_UNIT                                                                                   \
    u64 e0 = u * E, e1 = e0 + E < n ? e0 + E : n;                                                  \
    u64 lo = e0 * L, hi = e1 * L;

template <int F>
__device__ __forceinline__ void add_sub_aligned(u64 *r, const u64 *a, const u64 *b, u8 *flags,
                                                u64 n, u32 L, u32 E) {
    __shared__ u32 slots[2][ADD_NW];
    u32 ph = 0;
    u64 units = (n + E - 1) / E;
    for (u64 u = blockIdx.x; u < units; u += gridDim.x) {
        ADD_UNIT
        u32 cb = F;
        for (u64 w = lo; w < hi; w += ADD_T) {
            u64 x0 = w + threadIdx.x * ADD_K;
            bool ok = x0 < hi;
            u64 x[ADD_K], y[ADD_K], s[ADD_K];
            load_aligned(x, a + x0, ok);
            load_aligned(y, b + x0, ok);
            if (F) {
#pragma unroll
                for (int j = 0; j < ADD_K; j++) y[j] = ~y[j];
            }
            u32 rel = (u32)(x0 - lo);
            u32 end = !ok || (rel + ADD_K) % L == 0;
            u32 co = step_aligned<F>(s, x, y, end, cb, slots[ph]);
            ph ^= 1;
            store_aligned(r + x0, s, ok);
            if (flags && ok && end) flags[e0 + (rel + ADD_K) / L - 1] = (u8)(co ^ F);
        }
    }
}

template <int F>
__device__ __forceinline__ void add_sub_general(u64 *r, const u64 *a, const u64 *b, u8 *flags,
                                                u64 n, u32 L, u32 E) {
    __shared__ u32 slots[2][ADD_NW];
    u32 ph = 0;
    u64 units = (n + E - 1) / E;
    for (u64 u = blockIdx.x; u < units; u += gridDim.x) {
        ADD_UNIT
        u32 cb = F;
        for (u64 w = lo & ~1ull; w < hi; w += ADD_T) {
            u64 x0 = w + threadIdx.x * ADD_K;
            u64 x[ADD_K], y[ADD_K], s[ADD_K];
            load_masked(x, a, x0, lo, hi);
            load_masked(y, b, x0, lo, hi);
            if (F) {
#pragma unroll
                for (int j = 0; j < ADD_K; j++) y[j] = ~y[j];
            }
            Masks m = chunk_masks(x0, lo, hi, L);
            u32 kill = m.ends | (~m.valid & ADD_KMASK);
            u32 co = step_general<F>(s, x, y, kill, cb, slots[ph]);
            ph ^= 1;
            store_masked(r, s, x0, lo, hi);
            if (flags && m.ends) {
                u64 e = e0 + m.q;
#pragma unroll
                for (int j = 0; j < ADD_K; j++)
                    if ((m.ends >> j) & 1) flags[e++] = (u8)(((co >> j) & 1) ^ F);
            }
        }
    }
}

// r = a+b+a+b+a+b+a: six dependent additions, each with its own carry scan,
// the intermediates in registers.
__device__ __forceinline__ void six_add_aligned(u64 *r, const u64 *a, const u64 *b, u64 n, u32 L,
                                                u32 E) {
    __shared__ u32 slots[2][ADD_NW];
    u64 units = (n + E - 1) / E;
    for (u64 u = blockIdx.x; u < units; u += gridDim.x) {
        ADD_UNIT
        u32 cb[6] = {0, 0, 0, 0, 0, 0};
        for (u64 w = lo; w < hi; w += ADD_T) {
            u64 x0 = w + threadIdx.x * ADD_K;
            bool ok = x0 < hi;
            u64 x[ADD_K], y[ADD_K], s[ADD_K];
            load_aligned(x, a + x0, ok);
            load_aligned(y, b + x0, ok);
            u32 end = !ok || ((u32)(x0 - lo) + ADD_K) % L == 0;
            step_aligned<0>(s, x, y, end, cb[0], slots[0]);
#pragma unroll
            for (int k = 1; k < 6; k++) step_aligned<0>(s, s, (k & 1) ? x : y, end, cb[k], slots[k & 1]);
            store_aligned(r + x0, s, ok);
        }
    }
}

__device__ __forceinline__ void six_add_general(u64 *r, const u64 *a, const u64 *b, u64 n, u32 L,
                                                u32 E) {
    __shared__ u32 slots[2][ADD_NW];
    u64 units = (n + E - 1) / E;
    for (u64 u = blockIdx.x; u < units; u += gridDim.x) {
        ADD_UNIT
        u32 cb[6] = {0, 0, 0, 0, 0, 0};
        for (u64 w = lo & ~1ull; w < hi; w += ADD_T) {
            u64 x0 = w + threadIdx.x * ADD_K;
            u64 x[ADD_K], y[ADD_K], s[ADD_K];
            load_masked(x, a, x0, lo, hi);
            load_masked(y, b, x0, lo, hi);
            Masks m = chunk_masks(x0, lo, hi, L);
            u32 kill = m.ends | (~m.valid & ADD_KMASK);
            step_general<0>(s, x, y, kill, cb[0], slots[0]);
#pragma unroll
            for (int k = 1; k < 6; k++) step_general<0>(s, s, (k & 1) ? x : y, kill, cb[k], slots[k & 1]);
            store_masked(r, s, x0, lo, hi);
        }
    }
}

// ---- Striped layout ----
// Same units and windows, but each warp owns 32*ADD_K consecutive limbs of
// the window, taken in ADD_R rounds of 64 limbs: in round j, lane t holds
// limbs 2t and 2t+1, so every 16-byte load and store of a warp covers 512
// contiguous bytes. A round's lane (g, p) bits are ballotted; the rounds of
// a warp compose into one (G, P) for the block scan; the warp's carry-in
// then runs through its rounds on warp-uniform values. EVEN (L even): a
// pair never straddles elements. Odd L: limbs of a pair are handled one by
// one (the window starts at an even limb; limbs outside the unit masked).
#define ADD_R (ADD_K / 2)

__device__ __forceinline__ u32 add2(u64 (&s)[2], const u64 (&x)[2], const u64 (&y)[2]) {
    u32 c;
#ifdef __CUDA_ARCH__
    asm volatile("add.cc.u64 %0, %3, %5;\n\t"
                 "addc.cc.u64 %1, %4, %6;\n\t"
                 "addc.u32 %2, 0, 0;"
                 : "=l"(s[0]), "=l"(s[1]), "=r"(c)
                 : "l"(x[0]), "l"(x[1]), "l"(y[0]), "l"(y[1]));
#else
    c = 0;
    s[0] = addc_u64(x[0], y[0], c);
    s[1] = addc_u64(x[1], y[1], c);
#endif
    return c;
}

__device__ __forceinline__ void inc2(u64 (&s)[2], u32 c) {
#ifdef __CUDA_ARCH__
    asm volatile("add.cc.u64 %0, %0, %2;\n\t"
                 "addc.u64 %1, %1, 0;"
                 : "+l"(s[0]), "+l"(s[1])
                 : "l"((u64)c));
#else
    s[0] += c;
    s[1] += (c && s[0] == 0);
#endif
}

// The carry into this warp's limbs, given the warp's (G, P) and the carry
// into the window (cb, which becomes the carry out of the window).
__device__ __forceinline__ u32 warp_carry_in(u32 G, u32 P, u32 &cb, u32 *slot) {
    u32 lane = threadIdx.x & 31, w = threadIdx.x >> 5;
    if (lane == 0) slot[w] = G | (P << 1);
    __syncthreads();
    u32 v = lane < ADD_NW ? slot[lane] : 0;
    u32 gw = __ballot_sync(~0u, v & 1), pw = __ballot_sync(~0u, v & 2);
    u64 bs = ((u64)gw << 1) + pw + cb;
    cb = (u32)(bs >> ADD_NW) & 1;
    return (u32)((bs ^ pw) >> w) & 1;
}

// Geometry of a thread's pairs in one window: kill bits (carry out of the
// limb replaced by F: an element's last limb, or a limb outside the unit)
// for limb 0 and limb 1 of each round, and which valid limbs end elements.
struct PairMasks {
    u32 k0, k1, e0, e1;
};

template <bool EVEN>
__device__ __forceinline__ PairMasks pair_masks(u64 x0, u64 lo, u64 hi, u32 L, u32 step) {
    PairMasks m = {0, 0, 0, 0};
    // x0 >= lo - 1; limb lo - 1 sits at position L - 1 of the previous element.
    u32 pos = x0 >= lo ? (u32)((x0 - lo) % L) : L - 1;
#pragma unroll
    for (int j = 0; j < ADD_R; j++) {
        u64 i = x0 + 64 * j;
        if (EVEN) {
            u32 v = i < hi, end = pos + 2 == L;
            m.k1 |= (!v || end) << j;
            m.e1 |= (v && end) << j;
        } else {
            u32 v0 = i >= lo && i < hi, v1 = i + 1 >= lo && i + 1 < hi;
            u32 end0 = pos == L - 1, end1 = (pos + 1 == L ? 0 : pos + 1) == L - 1;
            m.k0 |= (!v0 || end0) << j;
            m.k1 |= (!v1 || end1) << j;
            m.e0 |= (v0 && end0) << j;
            m.e1 |= (v1 && end1) << j;
        }
        pos += step;
        pos = pos >= L ? pos - L : pos;
    }
    return m;
}

template <bool EVEN>
__device__ __forceinline__ void load_pairs(u64 (&v)[ADD_R][2], const u64 *base, u64 x0, u64 lo,
                                           u64 hi) {
#pragma unroll
    for (int j = 0; j < ADD_R; j++) {
        u64 i = x0 + 64 * j;
        v[j][0] = v[j][1] = 0;
        if (EVEN) {
            if (i < hi) ld2(base + i, v[j][0], v[j][1]);
        } else if (i >= lo && i + 2 <= hi) {
            ld2(base + i, v[j][0], v[j][1]);
        } else {
            if (i >= lo && i < hi) v[j][0] = base[i];
            if (i + 1 >= lo && i + 1 < hi) v[j][1] = base[i + 1];
        }
    }
}

template <bool EVEN>
__device__ __forceinline__ void store_pairs(u64 *base, const u64 (&v)[ADD_R][2], u64 x0, u64 lo,
                                            u64 hi) {
#pragma unroll
    for (int j = 0; j < ADD_R; j++) {
        u64 i = x0 + 64 * j;
        if (EVEN) {
            if (i < hi) st2(base + i, v[j][0], v[j][1]);
        } else if (i >= lo && i + 2 <= hi) {
            st2(base + i, v[j][0], v[j][1]);
        } else {
            if (i >= lo && i < hi) base[i] = v[j][0];
            if (i + 1 >= lo && i + 1 < hi) base[i + 1] = v[j][1];
        }
    }
}

// One segmented addition s = x + y over the thread's pairs. Returns the
// true carry out of limb 0 (co0) and limb 1 (co1) of each round, as masks.
template <int F, bool EVEN>
__device__ __forceinline__ void step_pairs(u64 (&s)[ADD_R][2], const u64 (&x)[ADD_R][2],
                                           const u64 (&y)[ADD_R][2], const PairMasks &m, u32 &cb,
                                           u32 *slot, u32 &co0, u32 &co1) {
    u32 lane = threadIdx.x & 31;
    u32 gm[ADD_R], pm[ADD_R];
    u32 g0 = 0, p0 = 0, g1 = 0, p1 = 0; // lane bits per round
#pragma unroll
    for (int j = 0; j < ADD_R; j++) {
        u32 k1 = (m.k1 >> j) & 1, gp, pp;
        if (EVEN) {
            u32 g = add2(s[j], x[j], y[j]);
            u32 p = (s[j][0] & s[j][1]) == ~0ull;
            g1 |= g << j;
            p1 |= p << j;
            gp = F ? (g | k1) : (g & (k1 ^ 1));
            pp = p & (k1 ^ 1);
        } else {
            u32 k0 = (m.k0 >> j) & 1;
            u64 t0 = x[j][0] + y[j][0], t1 = x[j][1] + y[j][1];
            u32 a0 = t0 < x[j][0], b0 = t0 == ~0ull, a1 = t1 < x[j][1], b1 = t1 == ~0ull;
            s[j][0] = t0;
            s[j][1] = t1;
            g0 |= a0 << j;
            p0 |= b0 << j;
            g1 |= a1 << j;
            p1 |= b1 << j;
            u32 c1 = k0 ? F : a0; // carry into limb 1 when none enters the pair
            gp = k1 ? F : (a1 | (b1 & c1));
            pp = (k0 | k1) ? 0 : (b0 & b1);
        }
        gm[j] = __ballot_sync(~0u, gp);
        pm[j] = __ballot_sync(~0u, pp);
    }
    u32 G = 0, P = 1;
#pragma unroll
    for (int j = 0; j < ADD_R; j++) {
        u32 gj = (u32)((((u64)gm[j] << 1) + pm[j]) >> 32), pj = pm[j] == ~0u;
        G = gj | (pj & G);
        P &= pj;
    }
    u32 c = warp_carry_in(G, P, cb, slot);
    co0 = co1 = 0;
#pragma unroll
    for (int j = 0; j < ADD_R; j++) {
        u64 sm = ((u64)gm[j] << 1) + pm[j] + c;
        u32 lc = (u32)((sm ^ pm[j]) >> lane) & 1;
        c = (u32)(sm >> 32);
        if (EVEN) {
            inc2(s[j], lc);
            co1 |= (((g1 >> j) & 1) | ((p1 >> j) & lc)) << j;
        } else {
            u32 a0 = (g0 >> j) & 1, b0 = (p0 >> j) & 1;
            u32 c1 = ((m.k0 >> j) & 1) ? F : (a0 | (b0 & lc));
            s[j][0] += lc;
            s[j][1] += c1;
            co0 |= (a0 | (b0 & lc)) << j;
            co1 |= (((g1 >> j) & 1) | ((p1 >> j) & c1)) << j;
        }
    }
}

// The thread's first limb in the window at wb.
__device__ __forceinline__ u64 pair_origin(u64 wb) {
    return wb + (threadIdx.x >> 5) * (32 * ADD_K) + 2 * (threadIdx.x & 31);
}

template <int F, bool EVEN>
__device__ __forceinline__ void add_sub_pairs(u64 *r, const u64 *a, const u64 *b, u8 *flags,
                                              u64 n, u32 L, u32 E) {
    __shared__ u32 slots[2][ADD_NW];
    u32 ph = 0, step = 64 % L;
    u64 units = (n + E - 1) / E;
    for (u64 u = blockIdx.x; u < units; u += gridDim.x) {
        ADD_UNIT
        u32 cb = F;
        for (u64 wb = EVEN ? lo : (lo & ~1ull); wb < hi; wb += ADD_T) {
            u64 x0 = pair_origin(wb);
            u64 x[ADD_R][2], y[ADD_R][2], s[ADD_R][2];
            load_pairs<EVEN>(x, a, x0, lo, hi);
            load_pairs<EVEN>(y, b, x0, lo, hi);
            if (F) {
#pragma unroll
                for (int j = 0; j < ADD_R; j++) {
                    y[j][0] = ~y[j][0];
                    y[j][1] = ~y[j][1];
                }
            }
            PairMasks m = pair_masks<EVEN>(x0, lo, hi, L, step);
            u32 co0, co1;
            step_pairs<F, EVEN>(s, x, y, m, cb, slots[ph], co0, co1);
            ph ^= 1;
            store_pairs<EVEN>(r, s, x0, lo, hi);
            if (flags && (m.e0 | m.e1)) {
#pragma unroll
                for (int j = 0; j < ADD_R; j++) {
                    u32 rel = (u32)(x0 + 64 * j - lo); // valid limbs only: rel >= 0
                    if ((m.e0 >> j) & 1) flags[e0 + rel / L] = (u8)(((co0 >> j) & 1) ^ F);
                    if ((m.e1 >> j) & 1) flags[e0 + (rel + 1) / L] = (u8)(((co1 >> j) & 1) ^ F);
                }
            }
        }
    }
}

template <bool EVEN>
__device__ __forceinline__ void six_add_pairs(u64 *r, const u64 *a, const u64 *b, u64 n, u32 L,
                                              u32 E) {
    __shared__ u32 slots[2][ADD_NW];
    u32 step = 64 % L;
    u64 units = (n + E - 1) / E;
    for (u64 u = blockIdx.x; u < units; u += gridDim.x) {
        ADD_UNIT
        u32 cb[6] = {0, 0, 0, 0, 0, 0};
        for (u64 wb = EVEN ? lo : (lo & ~1ull); wb < hi; wb += ADD_T) {
            u64 x0 = pair_origin(wb);
            u64 x[ADD_R][2], y[ADD_R][2], s[ADD_R][2];
            load_pairs<EVEN>(x, a, x0, lo, hi);
            load_pairs<EVEN>(y, b, x0, lo, hi);
            PairMasks m = pair_masks<EVEN>(x0, lo, hi, L, step);
            u32 co0, co1;
            step_pairs<0, EVEN>(s, x, y, m, cb[0], slots[0], co0, co1);
#pragma unroll
            for (int k = 1; k < 6; k++)
                step_pairs<0, EVEN>(s, s, (k & 1) ? x : y, m, cb[k], slots[k & 1], co0, co1);
            store_pairs<EVEN>(r, s, x0, lo, hi);
        }
    }
}

// ---- Staged chunk layout (six-add) ----
// Chunk arithmetic with striped memory access: a warp loads its 32*ADD_K
// limbs as the striped layout does (every load covers 512 contiguous
// bytes) and exchanges them through shared memory into chunks of ADD_K
// consecutive limbs per lane (and back before the store), so the scans pay
// one (g, p) per thread and no per-round ballots. 16-byte units are XOR-
// swizzled within groups of 8 so the striped and the chunk accesses are
// both free of bank conflicts. Aligned scans fuse each carry increment into
// the next addition (s + o + cin in one chain): its carry out, less the
// increment's own carry out p & cin (already propagated by the previous
// scan), is the next g.
#define ADD_U (16 * ADD_K) // 16-byte units per warp span

__device__ __forceinline__ u32 stage_swz(u32 u) { return u ^ ((u >> 3) & (ADD_K / 2 - 1)); }

// Striped pairs (round j: limbs 64j + 2*lane, +1 of the warp span) to the
// lane's chunk (limbs ADD_K*lane..). buf: the warp's ADD_U units.
__device__ __forceinline__ void stage_in(u64 (&v)[ADD_K], const u64 (&p)[ADD_R][2],
                                         ulonglong2 *buf) {
    u32 lane = threadIdx.x & 31;
#pragma unroll
    for (int j = 0; j < ADD_R; j++) buf[stage_swz(32 * j + lane)] = make_ulonglong2(p[j][0], p[j][1]);
    __syncwarp();
#pragma unroll
    for (int j = 0; j < ADD_K / 2; j++) {
        ulonglong2 q = buf[stage_swz(lane * (ADD_K / 2) + j)];
        v[2 * j] = q.x;
        v[2 * j + 1] = q.y;
    }
    __syncwarp();
}

__device__ __forceinline__ void stage_out(u64 (&p)[ADD_R][2], const u64 (&v)[ADD_K],
                                          ulonglong2 *buf) {
    u32 lane = threadIdx.x & 31;
#pragma unroll
    for (int j = 0; j < ADD_K / 2; j++)
        buf[stage_swz(lane * (ADD_K / 2) + j)] = make_ulonglong2(v[2 * j], v[2 * j + 1]);
    __syncwarp();
#pragma unroll
    for (int j = 0; j < ADD_R; j++) {
        ulonglong2 q = buf[stage_swz(32 * j + lane)];
        p[j][0] = q.x;
        p[j][1] = q.y;
    }
    __syncwarp();
}

// s += o + (c != 0) over ADD_K limbs; returns the carry out.
__device__ __forceinline__ u32 acc_chain(u64 (&s)[ADD_K], const u64 (&o)[ADD_K], u32 c) {
    u32 co;
#ifdef __CUDA_ARCH__
    asm volatile("add.cc.u32 %0, %0, -1;" : "+r"(c)); // carry flag = c != 0
#pragma unroll
    for (int j = 0; j < ADD_K; j++) asm volatile("addc.cc.u64 %0, %0, %1;" : "+l"(s[j]) : "l"(o[j]));
    asm volatile("addc.u32 %0, 0, 0;" : "=r"(co));
#else
    co = c != 0;
    for (int j = 0; j < ADD_K; j++) s[j] = addc_u64(s[j], o[j], co);
#endif
    return co;
}

// Like block_carry, but returns the carry into this lane's chunk as a mask
// (nonzero: a carry enters), in 32-bit arithmetic.
static_assert(ADD_NW < 32, "block too large for the 32-bit warp scan");
// A scan slot buffer as lane_carry uses it: on the device the shared
// addresses of this warp's slot and of slot[lane], computed once so that
// they stay in registers (the compiler otherwise rebuilds them every scan).
struct Slot {
#ifdef __CUDA_ARCH__
    u32 st, ld;
#else
    u32 *p;
#endif
};

__device__ __forceinline__ Slot slot_ref(u32 *slot) {
#ifdef __CUDA_ARCH__
    u32 base = (u32)__cvta_generic_to_shared(slot);
    u32 st = base + 4 * (threadIdx.x >> 5), ld = base + 4 * (threadIdx.x & 31);
    asm volatile("mov.b32 %0, %0;" : "+r"(st)); // opaque: not rematerialised
    asm volatile("mov.b32 %0, %0;" : "+r"(ld));
    return {st, ld};
#else
    return {slot};
#endif
}

__device__ __forceinline__ u32 lane_carry(u32 g, u32 p, u32 &cb, Slot sl) {
    u32 lane = threadIdx.x & 31, w = threadIdx.x >> 5;
    u32 gm = __ballot_sync(~0u, g), pm = __ballot_sync(~0u, p);
    // G in bit 0, P in bit 31: each is one test from a ballot predicate.
    u32 sv = (u32)((((u64)gm << 1) + pm) >> 32) | ((u32)(pm == ~0u) << 31), v = 0;
#ifdef __CUDA_ARCH__
    // Predicated in place: no branch around the store and the load.
    asm volatile("{.reg .pred q; setp.eq.u32 q, %2, 0; @q st.shared.u32 [%0], %1;}" ::"r"(sl.st),
                 "r"(sv), "r"(lane)
                 : "memory");
    __syncthreads();
    asm volatile("{.reg .pred q; setp.lt.u32 q, %2, %3; @q ld.shared.u32 %0, [%1];}"
                 : "+r"(v)
                 : "r"(sl.ld), "r"(lane), "n"(ADD_NW)
                 : "memory");
#else
    if (lane == 0) sl.p[w] = sv;
    __syncthreads();
    v = lane < ADD_NW ? sl.p[lane] : 0;
#endif
    u32 gw = __ballot_sync(~0u, v & 1), pw = __ballot_sync(~0u, (int)v < 0);
    u32 bs = (gw << 1) + pw + cb;
    u32 cw = ((bs ^ pw) >> w) & 1;
    cb = (bs >> ADD_NW) & 1;
    return (((gm << 1) + pm + cw) ^ pm) & (1u << lane);
}

// The thread's first limb of the warp span at wb, in striped order.
__device__ __forceinline__ u64 stage_origin(u64 wb) {
    return wb + (threadIdx.x >> 5) * (32 * ADD_K) + 2 * (threadIdx.x & 31);
}

// Aligned (L % ADD_K == 0): a chunk never straddles elements.
__device__ __forceinline__ void six_add_staged(u64 *r, const u64 *a, const u64 *b, u64 n, u32 L,
                                               u32 E) {
    __shared__ u32 slots[2][ADD_NW];
    __shared__ ulonglong2 stage[ADD_NW][ADD_U];
    ulonglong2 *buf = stage[threadIdx.x >> 5];
    Slot sl[2] = {slot_ref(slots[0]), slot_ref(slots[1])};
    u64 units = (n + E - 1) / E;
    for (u64 u = blockIdx.x; u < units; u += gridDim.x) {
        ADD_UNIT
        u32 cb[6] = {0, 0, 0, 0, 0, 0};
        for (u64 w = lo; w < hi; w += ADD_T) {
            u64 xs = stage_origin(w);
            u64 px[ADD_R][2], py[ADD_R][2];
            load_pairs<true>(px, a, xs, lo, hi);
            load_pairs<true>(py, b, xs, lo, hi);
            u64 x[ADD_K], y[ADD_K], s[ADD_K];
            stage_in(x, px, buf);
            stage_in(y, py, buf);
            u64 x0 = w + threadIdx.x * ADD_K;
            u32 live = x0 < hi && ((u32)(x0 - lo) + ADD_K) % L != 0; // carry out propagates
            u32 g = add_chain(s, x, y), p = all_ones(s);
            u32 lc = lane_carry(g & live, p & live, cb[0], sl[0]);
#pragma unroll
            for (int k = 1; k < 6; k++) {
                u32 inc = p & (lc != 0);
                g = acc_chain(s, (k & 1) ? x : y, lc) ^ inc;
                p = all_ones(s);
                lc = lane_carry(g & live, p & live, cb[k], sl[k & 1]);
            }
            inc_chain(s, lc != 0);
            stage_out(px, s, buf);
            store_pairs<true>(r, px, xs, lo, hi);
        }
    }
}

// Any L: windows start at an even limb, limbs outside the unit masked.
__device__ __forceinline__ void six_add_staged_general(u64 *r, const u64 *a, const u64 *b, u64 n,
                                                       u32 L, u32 E) {
    __shared__ u32 slots[2][ADD_NW];
    __shared__ ulonglong2 stage[ADD_NW][ADD_U];
    ulonglong2 *buf = stage[threadIdx.x >> 5];
    u64 units = (n + E - 1) / E;
    for (u64 u = blockIdx.x; u < units; u += gridDim.x) {
        ADD_UNIT
        u32 cb[6] = {0, 0, 0, 0, 0, 0};
        for (u64 w = lo & ~1ull; w < hi; w += ADD_T) {
            u64 xs = stage_origin(w);
            u64 px[ADD_R][2], py[ADD_R][2];
            load_pairs<false>(px, a, xs, lo, hi);
            load_pairs<false>(py, b, xs, lo, hi);
            u64 x[ADD_K], y[ADD_K], s[ADD_K];
            stage_in(x, px, buf);
            stage_in(y, py, buf);
            u64 x0 = w + threadIdx.x * ADD_K;
            Masks m = chunk_masks(x0, lo, hi, L);
            u32 kill = m.ends | (~m.valid & ADD_KMASK);
            step_general<0>(s, x, y, kill, cb[0], slots[0]);
#pragma unroll
            for (int k = 1; k < 6; k++) step_general<0>(s, s, (k & 1) ? x : y, kill, cb[k], slots[k & 1]);
            stage_out(px, s, buf);
            store_pairs<false>(r, px, xs, lo, hi);
        }
    }
}

// ---- Pipelined staged layout (six-add, aligned) ----
#if ADD_T <= 1024 // two buffers of x and y: 32 * ADD_T bytes of static shared memory
#define ADD_PIPED 1
// As the staged layout, but the loads go straight to shared memory with
// cp.async, and a block walks its windows (of all the units it owns, the
// grid sized to the resident blocks) loading window i + 1 while it computes
// window i: the memory system never idles while the scans run, and the
// loads need no registers.
__device__ __forceinline__ void cp16(ulonglong2 *dst, const u64 *src, bool ok) {
#ifdef __CUDA_ARCH__
    u32 d = (u32)__cvta_generic_to_shared(dst);
    asm volatile("cp.async.cg.shared.global [%0], [%1], 16, %2;" ::"r"(d), "l"(src),
                 "r"(ok ? 16 : 0)
                 : "memory");
#else
    *dst = ok ? make_ulonglong2(src[0], src[1]) : make_ulonglong2(0, 0);
#endif
}

__device__ __forceinline__ void cp_commit() {
#ifdef __CUDA_ARCH__
    asm volatile("cp.async.commit_group;" ::: "memory");
#endif
}

// Waits until all but the latest committed group have landed.
__device__ __forceinline__ void cp_wait_prev() {
#ifdef __CUDA_ARCH__
    asm volatile("cp.async.wait_group 1;" ::: "memory");
#endif
}

// Loads the window at w (limbs >= hi read as zero) into the warp's x and y
// buffers, in striped order (round j: units 32j + lane), swizzled.
__device__ __forceinline__ void piped_issue(ulonglong2 *bx, ulonglong2 *by, const u64 *a,
                                            const u64 *b, u64 w, u64 hi) {
    u32 lane = threadIdx.x & 31;
    u64 xs = stage_origin(w);
#pragma unroll
    for (int j = 0; j < ADD_R; j++) {
        u64 i = xs + 64 * j;
        bool ok = i < hi;
        u32 q = stage_swz(32 * j + lane);
        cp16(bx + q, ok ? a + i : a, ok);
        cp16(by + q, ok ? b + i : b, ok);
    }
}

__device__ __forceinline__ void piped_read(u64 (&v)[ADD_K], const ulonglong2 *buf) {
    u32 lane = threadIdx.x & 31;
#pragma unroll
    for (int j = 0; j < ADD_K / 2; j++) {
        ulonglong2 q = buf[stage_swz(lane * (ADD_K / 2) + j)];
        v[2 * j] = q.x;
        v[2 * j + 1] = q.y;
    }
}

__device__ __forceinline__ void six_add_piped(u64 *r, const u64 *a, const u64 *b, u64 n, u32 L,
                                              u32 E) {
    __shared__ u32 slots[2][ADD_NW];
    __shared__ ulonglong2 stage[2][ADD_NW][2][ADD_U]; // [buffer][warp][x, y][unit]
    Slot sl[2] = {slot_ref(slots[0]), slot_ref(slots[1])};
    u32 wp = threadIdx.x >> 5;
    u64 units = (n + E - 1) / E;
    u64 u = blockIdx.x;
    if (u >= units) return;
    ADD_UNIT
    u64 w = lo;
    piped_issue(stage[0][wp][0], stage[0][wp][1], a, b, w, hi);
    cp_commit();
    u32 cb[6] = {0, 0, 0, 0, 0, 0};
    // Element ends without a division per window: the window's offset in
    // its element (pos) plus the thread's (tpos) is a multiple of L.
    u32 tpos = (threadIdx.x * ADD_K + ADD_K) % L, step = ADD_T % L, pos = 0;
    for (u32 cur = 0;; cur ^= 1) {
        // The next window: in this unit, or the first of the next one.
        u64 nw = w + ADD_T, nu = u, nlo = lo, nhi = hi;
        u32 npos = pos + step >= L ? pos + step - L : pos + step;
        if (nw >= hi) {
            nu = u + gridDim.x;
            nlo = nu * E * L;
            nhi = (nu * E + E < n ? nu * E + E : n) * L;
            nw = nlo;
            npos = 0;
        }
        bool more = nu < units;
        if (more) piped_issue(stage[cur ^ 1][wp][0], stage[cur ^ 1][wp][1], a, b, nw, nhi);
        cp_commit();
        cp_wait_prev();
        __syncwarp();
        u64 x[ADD_K], y[ADD_K], s[ADD_K];
        piped_read(x, stage[cur][wp][0]);
        piped_read(y, stage[cur][wp][1]);
        // cb needs no reset at a new unit: the chunk holding an element's
        // last limb passes no carry on, so every scan ends a unit with 0.
        u64 x0 = w + threadIdx.x * ADD_K;
        u32 live = x0 < hi && pos + tpos != 0 && pos + tpos != L;
        u32 g = add_chain(s, x, y), p = all_ones(s);
        u32 lc = lane_carry(g & live, p & live, cb[0], sl[0]);
#pragma unroll
        for (int k = 1; k < 6; k++) {
            u32 inc = p & (lc != 0);
            g = acc_chain(s, (k & 1) ? x : y, lc) ^ inc;
            p = all_ones(s);
            lc = lane_carry(g & live, p & live, cb[k], sl[k & 1]);
        }
        inc_chain(s, lc != 0);
        u64 ps[ADD_R][2];
        stage_out(ps, s, stage[cur][wp][0]); // x is consumed: reuse its buffer
        store_pairs<true>(r, ps, stage_origin(w), lo, hi);
        if (!more) break;
        u = nu;
        w = nw;
        lo = nlo;
        hi = nhi;
        pos = npos;
    }
}
#endif

// Entry points. flags: one byte per element (carry, or borrow for sub), or
// null. E: elements per unit (host side, see add.rs).
#define ADD_ENTRY(name, call)                                                                      \
    extern "C" __global__ void __launch_bounds__(ADD_B)                                           \
        name(u64 *r, const u64 *a, const u64 *b, u8 *flags, u64 n, u32 L, u32 E) {                 \
        call(r, a, b, flags, n, L, E);                                                             \
    }
#define ADD6_ENTRY(name, call)                                                                     \
    extern "C" __global__ void __launch_bounds__(ADD_B)                                           \
        name(u64 *r, const u64 *a, const u64 *b, u64 n, u32 L, u32 E) {                            \
        call(r, a, b, n, L, E);                                                                    \
    }
// Chunk layout.
ADD_ENTRY(int_add_aligned, add_sub_aligned<0>)
ADD_ENTRY(int_sub_aligned, add_sub_aligned<1>)
ADD_ENTRY(int_add_general, add_sub_general<0>)
ADD_ENTRY(int_sub_general, add_sub_general<1>)
ADD6_ENTRY(int_six_add_aligned, six_add_aligned)
ADD6_ENTRY(int_six_add_general, six_add_general)
// Striped layout.
ADD_ENTRY(int_add_even, (add_sub_pairs<0, true>))
ADD_ENTRY(int_sub_even, (add_sub_pairs<1, true>))
ADD_ENTRY(int_add_odd, (add_sub_pairs<0, false>))
ADD_ENTRY(int_sub_odd, (add_sub_pairs<1, false>))
ADD6_ENTRY(int_six_add_even, six_add_pairs<true>)
ADD6_ENTRY(int_six_add_odd, six_add_pairs<false>)
// Staged chunk layout.
ADD6_ENTRY(int_six_add_staged, six_add_staged)
ADD6_ENTRY(int_six_add_staged_general, six_add_staged_general)
#ifdef ADD_PIPED
#ifndef ADD_MINB
#define ADD_MINB 1 // resident blocks per SM the pipelined kernel asks registers for
#endif
extern "C" __global__ void __launch_bounds__(ADD_B, ADD_MINB)
    int_six_add_piped(u64 *r, const u64 *a, const u64 *b, u64 n, u32 L, u32 E) {
    six_add_piped(r, a, b, n, L, E);
}
#endif
