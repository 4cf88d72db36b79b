// Float operations that round one operand (neg, abs, set_prec, mul_2si,
// min, max) and the comparison: a thread per element, no scratch, so one
// instantiation serves every precision; at the end, the helpers of the
// complex operations' patches (float_unusual, float_gather, float_scatter).
#include "common.cuh"
#include "float_common.cuh"

extern "C" __global__ void float_misc(u64 *rh, u64 *rl, i8 *tern, const u64 *xh, const u64 *xl,
                                      const u64 *yh, const u64 *yl, u64 len, u32 op, u32 rnd,
                                      u64 p, u32 n, u32 lx, u32 ly, i64 k, u32 want_tern) {
    for (u64 i = blockIdx.x * (u64)blockDim.x + threadIdx.x; i < len;
         i += (u64)gridDim.x * blockDim.x) {
        bool two = op == FL_OP_MIN || op == FL_OP_MAX;
        FlOut o = {rl + i * n, n, 0};
        i8 t = fl_misc(op, rnd, p, k, o, xh[i], xl + i * lx, lx, two ? yh[i] : 0, yl + i * ly, ly);
        rh[i] = o.head;
        if (want_tern) tern[i] = t;
    }
}

extern "C" __global__ void float_cmp(i8 *out, const u64 *xh, const u64 *xl, const u64 *yh,
                                     const u64 *yl, u64 len, u32 lx, u32 ly) {
    for (u64 i = blockIdx.x * (u64)blockDim.x + threadIdx.x; i < len;
         i += (u64)gridDim.x * blockDim.x)
        out[i] = fl_cmp(xh[i], xl + i * lx, lx, yh[i], yl + i * ly, ly);
}

// Element i's SplitMix64 stream, as src/float/random.rs's `Stream`: seeded
// from the array's seed and i, one value discarded.
struct FlRng {
    u64 s;
    __device__ explicit FlRng(u64 seed, u64 i) : s(seed ^ (i * 0xd1b54a32d192ed03ull)) { next(); }
    __device__ u64 next() {
        s += 0x9e3779b97f4a7c15ull;
        u64 z = s;
        z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
        z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
        return z ^ (z >> 31);
    }
};

// Seeded random floats, bit for bit those of FloatArray::random_unit
// (kind 0: p random bits over 2^p, normalized in place; +0 when all are
// zero) and FloatArray::random_exp (kind 1: random sign, exponent
// emin + (draw mod span), p random mantissa bits under a set top bit).
extern "C" __global__ void float_random(u64 *rh, u64 *rl, u64 len, u32 n, u64 p, u64 seed,
                                        u32 kind, i64 emin, u64 span) {
    const u32 low = (u32)(64ull * n - p);
    const u64 mask = low ? ~((1ull << low) - 1) : ~0ull;
    for (u64 i = blockIdx.x * (u64)blockDim.x + threadIdx.x; i < len;
         i += (u64)gridDim.x * blockDim.x) {
        FlRng r(seed, i);
        u64 *m = rl + i * n;
        if (kind == 1) {
            u64 neg = r.next() & 1;
            i64 e = emin + (i64)(r.next() % span);
            for (u32 j = 0; j < n; j++) m[j] = r.next();
            m[n - 1] |= 1ull << 63;
            m[0] &= mask;
            rh[i] = ((u64)e << 8) | 1 | (neg ? 4 : 0);
            continue;
        }
        int top = -1;
        for (u32 j = 0; j < n; j++) {
            u64 v = r.next();
            if (j == 0) v &= mask;
            m[j] = v;
            if (v) top = (int)j;
        }
        if (top < 0) {
            rh[i] = 0;
            continue;
        }
        // Shift left by lz bits and up by d limbs, top limb first (every
        // source limb is read before its slot is overwritten).
        u32 lz = __clzll(m[top]);
        u32 d = n - 1 - (u32)top;
        for (int j = top; j >= 0; j--) {
            u64 v = m[j] << lz;
            if (lz && j > 0) v |= m[j - 1] >> (64 - lz);
            m[j + d] = v;
        }
        for (u32 j = 0; j < d; j++) m[j] = 0;
        i64 e = -(i64)(64ull * d + lz);
        rh[i] = ((u64)e << 8) | 1;
    }
}

// Element 0 of (xh, xl) copied to all len elements of (rh, rl), n limbs.
extern "C" __global__ void float_fill(u64 *rh, u64 *rl, const u64 *xh, const u64 *xl, u64 len,
                                      u32 n) {
    for (u64 i = blockIdx.x * (u64)blockDim.x + threadIdx.x; i < len;
         i += (u64)gridDim.x * blockDim.x) {
        rh[i] = xh[0];
        for (u32 j = 0; j < n; j++) rl[i * n + j] = xl[j];
    }
}

// The elements a complex operation takes from the CPU engine
// (src/complex/cuda.rs): a part (heads h0..h3, the first np) that is not a
// normal number, a product of the parts j, k of a pair (npairs pairs, 4
// bits each in `pairs`: j, then k << 2) whose exponent sum could leave the
// range, or (zero_of != 0) a zero in zh. Their indices go to idx, the count
// to *cnt (zero at the launch); only these come back to the host.
extern "C" __global__ void float_unusual(u32 *cnt, u32 *idx, const u64 *h0, const u64 *h1,
                                         const u64 *h2, const u64 *h3, u32 np, u32 pairs,
                                         u32 npairs, const u64 *zh, u32 zero_of, u64 len,
                                         i64 emin, i64 emax) {
    const u64 *hs[4] = {h0, h1, h2, h3};
    for (u64 i = blockIdx.x * (u64)blockDim.x + threadIdx.x; i < len;
         i += (u64)gridDim.x * blockDim.x) {
        bool bad = zero_of && (fl_tag(zh[i]) & 3) == FL_ZERO;
        for (u32 j = 0; j < np; j++) bad |= (fl_tag(hs[j][i]) & 3) != FL_NORMAL;
        for (u32 q = 0; q < npairs && !bad; q++) {
            u32 a = (pairs >> (4 * q)) & 3, b = (pairs >> (4 * q + 2)) & 3;
            i64 e = fl_exp(hs[a][i]) + fl_exp(hs[b][i]);
            bad = e <= emin + 1 || e >= emax;
        }
        if (bad) idx[atomicAdd(cnt, 1u)] = (u32)i;
    }
}

// Elements idx[0..cnt) of (xh, xl), n limbs each, into compact (gh, gl).
extern "C" __global__ void float_gather(u64 *gh, u64 *gl, const u64 *xh, const u64 *xl, u32 n,
                                        const u32 *idx, u32 cnt) {
    for (u32 i = blockIdx.x * blockDim.x + threadIdx.x; i < cnt; i += gridDim.x * blockDim.x) {
        u64 k = idx[i];
        gh[i] = xh[k];
        for (u32 l = 0; l < n; l++) gl[(u64)i * n + l] = xl[k * n + l];
    }
}

// Compact results (sh, sl, st) back to the elements idx[0..cnt).
extern "C" __global__ void float_scatter(u64 *rh, u64 *rl, i8 *tern, u32 n, const u32 *idx,
                                         u32 cnt, const u64 *sh, const u64 *sl, const i8 *st) {
    for (u32 i = blockIdx.x * blockDim.x + threadIdx.x; i < cnt; i += gridDim.x * blockDim.x) {
        u64 k = idx[i];
        rh[k] = sh[i];
        tern[k] = st[i];
        for (u32 l = 0; l < n; l++) rl[k * n + l] = sl[(u64)i * n + l];
    }
}

// float_gather_segs: up to 32 segments of u64 words into dst in one
// launch (linalg::cuda::Deferred's reads, instead of a copy per segment):
// block b copies segment b (len words from src to dst + off).
struct FlGatherSeg {
    const u64 *src;
    u64 len;
    u64 off;
};
struct FlGatherTab {
    FlGatherSeg s[32];
};
extern "C" __global__ void float_gather_segs(u64 *dst, FlGatherTab tab, u32 nseg) {
    if (blockIdx.x >= nseg) return;
    const FlGatherSeg g = tab.s[blockIdx.x];
    for (u64 i = threadIdx.x; i < g.len; i += blockDim.x) dst[g.off + i] = g.src[i];
}
