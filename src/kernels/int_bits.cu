// Comparisons, shifts, bit logic, bit counts, the steps of the integer
// square root and the trial-division screen of the primality test.
//
// Strategies: bit logic and shifts run one thread per output limb over the
// flat stream of n*L limbs (coalesced; a shift reads two source limbs);
// comparisons and bit counts run one warp per element, the lanes walking
// its limbs from the top 32 at a time and reducing with ballots or
// shuffles; the square-root steps and the screen run one thread per element
// (linear work per element beside the divisions they are chained with).
// None of these is constant-time.
#include "common.cuh"

#define GRID_STRIDE(i, n)                                                                          \
    for (u64 i = blockIdx.x * (u64)blockDim.x + threadIdx.x; i < (n);                              \
         i += (u64)gridDim.x * blockDim.x)

// r = a op b limb by limb (op 0 and, 1 or, 2 xor, 3 not a).
extern "C" __global__ void bits_logic(u64 *r, const u64 *a, const u64 *b, u64 total, u32 op) {
    GRID_STRIDE(i, total) {
        u64 x = a[i];
        u64 v;
        switch (op) {
        case 0: v = x & b[i]; break;
        case 1: v = x | b[i]; break;
        case 2: v = x ^ b[i]; break;
        default: v = ~x; break;
        }
        r[i] = v;
    }
}

// r = a << s (left) or a >> s per element; s = counts[i], or `all` when
// counts is null. Counts >= 64*L give 0.
extern "C" __global__ void bits_shift(u64 *r, const u64 *a, const u64 *counts, u64 all, u64 n,
                                      u32 L, u32 left) {
    GRID_STRIDE(g, n * (u64)L) {
        u64 i = g / L;
        long long j = (long long)(g - i * L);
        u64 s = counts ? counts[i] : all;
        const u64 *x = a + i * L;
        u64 v = 0;
        if (s < 64ull * L) {
            long long q = (long long)(s >> 6);
            u32 b = (u32)(s & 63);
            if (left) {
                long long k = j - q;
                u64 lo = k >= 0 ? x[k] : 0;
                u64 lo1 = k >= 1 ? x[k - 1] : 0;
                v = b ? (lo << b) | (lo1 >> (64 - b)) : lo;
            } else {
                long long k = j + q;
                u64 hi = k < (long long)L ? x[k] : 0;
                u64 hi1 = k + 1 < (long long)L ? x[k + 1] : 0;
                v = b ? (hi >> b) | (hi1 << (64 - b)) : hi;
            }
        }
        r[g] = v;
    }
}

// out[i] = sign(a_i - b_i) as -1, 0, 1: one warp per element.
extern "C" __global__ void bits_cmp(signed char *out, const u64 *a, const u64 *b, u64 n, u32 L) {
    u32 lane = threadIdx.x & 31;
    u64 warps = ((u64)gridDim.x * blockDim.x) >> 5;
    for (u64 i = (blockIdx.x * (u64)blockDim.x + threadIdx.x) >> 5; i < n; i += warps) {
        const u64 *x = a + i * L, *y = b + i * L;
        int res = 0;
        for (long long top = (long long)L - 1; top >= 0; top -= 32) {
            long long k = top - lane;
            u64 u = 0, v = 0;
            if (k >= 0) {
                u = x[k];
                v = y[k];
            }
            u32 m = __ballot_sync(~0u, u != v);
            if (m) {
                int src = __ffs(m) - 1; // the lowest lane holds the highest limb
                int gt = __shfl_sync(~0u, (int)(u > v), src);
                res = gt ? 1 : -1;
                break;
            }
        }
        if (lane == 0) out[i] = (signed char)res;
    }
}

// out[i] = popcount (mode 0) or bit length (mode 1) of element i: one warp
// per element.
extern "C" __global__ void bits_count(u64 *out, const u64 *a, u64 n, u32 L, u32 mode) {
    u32 lane = threadIdx.x & 31;
    u64 warps = ((u64)gridDim.x * blockDim.x) >> 5;
    for (u64 i = (blockIdx.x * (u64)blockDim.x + threadIdx.x) >> 5; i < n; i += warps) {
        const u64 *x = a + i * L;
        u64 res = 0;
        if (mode == 0) {
            u64 c = 0;
            for (u32 k = lane; k < L; k += 32) c += __popcll(x[k]);
#pragma unroll
            for (int o = 16; o > 0; o >>= 1) c += __shfl_down_sync(~0u, c, o);
            res = c;
        } else {
            for (long long top = (long long)L - 1; top >= 0; top -= 32) {
                long long k = top - lane;
                u64 u = k >= 0 ? x[k] : 0;
                u32 m = __ballot_sync(~0u, u != 0);
                if (m) {
                    int src = __ffs(m) - 1;
                    long long kk = top - src;
                    u64 v = __shfl_sync(~0u, u, src);
                    res = 64ull * (u64)kk + 64 - __clzll(v);
                    break;
                }
            }
        }
        if (lane == 0) out[i] = res;
    }
}

// Square root, start: x_i >= isqrt(a_i), about 30 bits right: the double
// square root of the top 64 bits (an even shift), plus 2, shifted back; 1
// for 0. One thread per element.
extern "C" __global__ void isqrt_init(u64 *xo, const u64 *a, u64 n, u32 L) {
    GRID_STRIDE(i, n) {
        const u64 *x = a + i * L;
        u64 *o = xo + i * L;
        long long k = (long long)L - 1;
        while (k >= 0 && x[k] == 0) k--;
        for (u32 j = 0; j < L; j++) o[j] = 0;
        if (k < 0) {
            o[0] = 1;
            continue;
        }
        u64 b = 64ull * (u64)k + 64 - __clzll(x[k]); // bit length
        u64 sh = b > 64 ? b - 64 : 0;
        sh += sh & 1;
        // t = a >> sh (< 2^64)
        u64 q = sh >> 6;
        u32 r = (u32)(sh & 63);
        u64 lo = x[q];
        u64 hi = q + 1 < L ? x[q + 1] : 0;
        u64 t = r ? (lo >> r) | (hi << (64 - r)) : lo;
        u64 s = (u64)sqrt((double)t) + 2; // > sqrt(t + 1)
        // o = s << (sh / 2)
        u64 h = sh >> 1;
        u64 hq = h >> 6;
        u32 hr = (u32)(h & 63);
        if (hq < L) o[hq] = s << hr;
        if (hr && hq + 1 < L) o[hq + 1] = s >> (64 - hr);
    }
}

// Square root, one Newton step: y = (x + q) >> 1 with q = a / x, then
// x = max(min(x, y), 1). q is overwritten. One thread per element.
extern "C" __global__ void isqrt_step(u64 *xs, u64 *qs, u64 n, u32 L) {
    GRID_STRIDE(i, n) {
        u64 *x = xs + i * L, *y = qs + i * L;
        u32 c = 0;
        u64 prev = 0;
        for (u32 j = 0; j < L; j++) {
            u64 s = addc_u64(x[j], y[j], c);
            if (j > 0) y[j - 1] = (prev >> 1) | (s << 63);
            prev = s;
        }
        y[L - 1] = (prev >> 1) | ((u64)c << 63);
        // y < x ?
        int less = 0;
        for (long long k = (long long)L - 1; k >= 0; k--) {
            if (y[k] != x[k]) {
                less = y[k] < x[k];
                break;
            }
        }
        if (less) {
            int zero = 1;
            for (u32 j = 0; j < L; j++) {
                x[j] = y[j];
                zero &= y[j] == 0;
            }
            if (zero) x[0] = 1;
        }
    }
}

// Square root, end: where a_i = 0, s_i = r_i = 0 (the steps keep s >= 1).
extern "C" __global__ void isqrt_fix(u64 *s, u64 *r, const u64 *a, u64 n, u32 L) {
    GRID_STRIDE(i, n) {
        const u64 *x = a + i * L;
        int zero = 1;
        for (u32 j = 0; j < L && zero; j++) zero = x[j] == 0;
        if (zero) {
            for (u32 j = 0; j < L; j++) {
                s[i * L + j] = 0;
                r[i * L + j] = 0;
            }
        }
    }
}

// The primality screen (cpu::bits::screen_one): 0 composite, 1 prime,
// 2 unknown. primes: the odd primes below `bound`; groups: (product, first,
// count) of consecutive primes with products below 2^32. One thread per
// element.
extern "C" __global__ void bits_screen(u8 *out, const u64 *a, u64 n, u32 L, const u32 *primes,
                                       u32 n_primes, const u32 *groups, u32 n_groups, u64 bound) {
    GRID_STRIDE(i, n) {
        const u64 *x = a + i * L;
        long long k = (long long)L - 1;
        while (k >= 0 && x[k] == 0) k--;
        u32 nl = (u32)(k + 1);
        u8 res = 2;
        if (nl <= 1) {
            u64 v = nl ? x[0] : 0;
            if (v < 2) {
                out[i] = 0;
                continue;
            }
            if (v == 2) {
                out[i] = 1;
                continue;
            }
            if ((v & 1) == 0) {
                out[i] = 0;
                continue;
            }
            if (v < bound * bound) {
                res = 1;
                for (u32 j = 0; j < n_primes; j++) {
                    u64 p = primes[j];
                    if (p * p > v) break;
                    if (v % p == 0) {
                        res = 0;
                        break;
                    }
                }
                out[i] = res;
                continue;
            }
        }
        if ((x[0] & 1) == 0) {
            out[i] = 0;
            continue;
        }
        for (u32 g = 0; g < n_groups && res; g++) {
            u64 m = groups[3 * g];
            u64 r = 0;
            for (long long j = (long long)nl - 1; j >= 0; j--) {
                u64 v = x[j];
                r = ((r << 32) | (v >> 32)) % m;
                r = ((r << 32) | (v & 0xFFFFFFFFull)) % m;
            }
            u32 f = groups[3 * g + 1], c = groups[3 * g + 2];
            for (u32 j = f; j < f + c; j++)
                if (r % primes[j] == 0) {
                    res = 0;
                    break;
                }
        }
        out[i] = res;
    }
}
