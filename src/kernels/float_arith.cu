// Float arithmetic with MPFR's exact semantics (add, sub, mul, div, sqrt,
// fma, fms): a thread per element, the operation a run-time argument (the
// same for every thread), the per-element code in float_common.cuh. FL_NL
// is the tier in limbs: the local-memory kernel's scratch size (every
// operand and the destination have at most FL_NL limbs; limb counts are
// run-time arguments), and the size of the register path for products of
// equal precisions (FL_NL <= 16).
#include "common.cuh"
#include "float_common.cuh"

#ifndef FL_NL
#define FL_NL 8
#endif

// Uniform-precision product of two normal numbers in registers?
__device__ __forceinline__ bool fl_fast_mul(u32 op, u32 n, u32 lx, u32 ly, u64 xh, u64 yh) {
    return FL_NL <= 16 && op == FL_OP_MUL && n == FL_NL && lx == FL_NL && ly == FL_NL &&
           (fl_tag(xh) & 3) == FL_NORMAL && (fl_tag(yh) & 3) == FL_NORMAL;
}

// The grid-stride loop of float_arith and float_arith_smem: per element the
// register product when it applies, else the exact code with scratch A, B,
// C, P (BUF) or in local memory at the tier's size (fl_arith).
template <bool BUF>
__device__ __forceinline__ void fl_arith_loop(u64 *rh, u64 *rl, i8 *tern, const u64 *xh,
                                              const u64 *xl, const u64 *yh, const u64 *yl,
                                              const u64 *zh, const u64 *zl, u64 len, u32 op,
                                              u32 rnd, u64 p, u32 n, u32 lx, u32 ly, u32 lz,
                                              u32 want_tern, u64 *A, u64 *B, u64 *C, u64 *P) {
    for (u64 i = blockIdx.x * (u64)blockDim.x + threadIdx.x; i < len;
         i += (u64)gridDim.x * blockDim.x) {
        FlOut o = {rl + i * n, n, 0};
        u64 xhi = xh[i];
        u64 yhi = op == FL_OP_SQRT ? 0 : yh[i];
        u64 zhi = (op == FL_OP_FMA || op == FL_OP_FMS) ? zh[i] : 0;
        i8 t;
        if (fl_fast_mul(op, n, lx, ly, xhi, yhi)) {
            t = fl_mul_fast<(FL_NL <= 16 ? FL_NL : 1)>(o, xhi, xl + i * lx, yhi, yl + i * ly, p, rnd);
        } else if constexpr (BUF) {
            t = fl_arith_buf(op, rnd, p, o, xhi, xl + i * lx, lx, yhi, yl + i * ly, ly, zhi,
                             zl + i * lz, lz, A, B, C, P);
        } else {
            t = fl_arith<FL_NL>(op, rnd, p, o, xhi, xl + i * lx, lx, yhi, yl + i * ly, ly, zhi,
                                zl + i * lz, lz);
        }
        rh[i] = o.head;
        if (want_tern) tern[i] = t;
    }
}

// Scratch in local memory (any size up to the tier).
extern "C" __global__ void float_arith(u64 *rh, u64 *rl, i8 *tern, const u64 *xh, const u64 *xl,
                                       const u64 *yh, const u64 *yl, const u64 *zh,
                                       const u64 *zl, u64 len, u32 op, u32 rnd, u64 p, u32 n,
                                       u32 lx, u32 ly, u32 lz, u32 want_tern) {
    fl_arith_loop<false>(rh, rl, tern, xh, xl, yh, yl, zh, zl, len, op, rnd, p, n, lx, ly, lz,
                         want_tern, nullptr, nullptr, nullptr, nullptr);
}

// Scratch in shared memory: `stride` limbs per thread (odd, so that the
// threads of a half-warp hit distinct banks), laid out as fl_scratch says.
extern "C" __global__ void float_arith_smem(u64 *rh, u64 *rl, i8 *tern, const u64 *xh,
                                            const u64 *xl, const u64 *yh, const u64 *yl,
                                            const u64 *zh, const u64 *zl, u64 len, u32 op,
                                            u32 rnd, u64 p, u32 n, u32 lx, u32 ly, u32 lz,
                                            u32 want_tern, u32 stride) {
    extern __shared__ u64 fl_smem[];
    u32 a, b, c, pp;
    fl_scratch(op, n, lx, ly, lz, a, b, c, pp);
    u64 *A = fl_smem + threadIdx.x * stride;
    u64 *B = A + a, *C = B + b, *P = C + c;
    fl_arith_loop<true>(rh, rl, tern, xh, xl, yh, yl, zh, zl, len, op, rnd, p, n, lx, ly, lz,
                        want_tern, A, B, C, P);
}

// Specials of a product (no rounding: NaN, +-Inf or +-0).
__device__ __forceinline__ void fl_mul_special(FlOut &o, u64 xh, u64 yh) {
    u32 cx = fl_tag(xh) & 3, cy = fl_tag(yh) & 3;
    bool neg = ((fl_tag(xh) ^ fl_tag(yh)) & FL_NEG) != 0;
    if (cx == FL_NAN || cy == FL_NAN || (cx == FL_INF && cy == FL_ZERO) ||
        (cx == FL_ZERO && cy == FL_INF))
        fl_special(o, FL_NAN, false);
    else if (cx == FL_INF || cy == FL_INF) fl_special(o, FL_INF, neg);
    else fl_special(o, FL_ZERO, neg);
}

#define FL_MUL_TILE 128

// Products of equal precisions of exactly FL_NL <= 16 limbs: tiles of 128
// elements whose limbs are loaded and stored coalesced through shared
// memory (a padded odd stride per element keeps the banks distinct), the
// product in registers. The result overwrites the x slot of its thread.
extern "C" __global__ void __launch_bounds__(FL_MUL_TILE)
    float_mul_tile(u64 *rh, u64 *rl, i8 *tern, const u64 *xh, const u64 *xl, const u64 *yh,
                   const u64 *yl, u64 len, u32 rnd, u64 p, u32 want_tern) {
#if FL_NL <= 16
    constexpr u32 N = FL_NL, S = FL_NL | 1;
    __shared__ u64 sx[FL_MUL_TILE * S], sy[FL_MUL_TILE * S];
    u64 ntiles = (len + FL_MUL_TILE - 1) / FL_MUL_TILE;
    for (u64 tile = blockIdx.x; tile < ntiles; tile += gridDim.x) {
        u64 base = tile * FL_MUL_TILE;
        u32 cnt = len - base < FL_MUL_TILE ? (u32)(len - base) : FL_MUL_TILE;
        for (u32 k = threadIdx.x; k < cnt * N; k += FL_MUL_TILE) {
            u32 t = k / N, i = k - t * N;
            sx[t * S + i] = xl[base * N + k];
            sy[t * S + i] = yl[base * N + k];
        }
        __syncthreads();
        u32 t = threadIdx.x;
        if (t < cnt) {
            u64 i = base + t;
            u64 xhi = xh[i], yhi = yh[i];
            FlOut o = {sx + t * S, N, 0};
            i8 r = 0;
            if ((fl_tag(xhi) & 3) == FL_NORMAL && (fl_tag(yhi) & 3) == FL_NORMAL)
                r = fl_mul_fast<N>(o, xhi, sx + t * S, yhi, sy + t * S, p, rnd);
            else fl_mul_special(o, xhi, yhi);
            rh[i] = o.head;
            if (want_tern) tern[i] = r;
        }
        __syncthreads();
        for (u32 k = threadIdx.x; k < cnt * N; k += FL_MUL_TILE) {
            u32 tt = k / N, i = k - tt * N;
            rl[base * N + k] = sx[tt * S + i];
        }
        __syncthreads();
    }
#endif
}

// Stages `cnt` elements of l limbs (from element `base`) into shared memory
// at stride s, coalesced.
__device__ __forceinline__ void fl_stage_in(u64 *sh, const u64 *g, u64 base, u32 cnt, u32 l,
                                            u32 s) {
    for (u32 k = threadIdx.x; k < cnt * l; k += blockDim.x) {
        u32 t = k / l, i = k - t * l;
        sh[t * s + i] = g[base * l + k];
    }
}

// Any arithmetic operation with the operands and the result staged through
// shared memory (coalesced global traffic) and the scratch in shared memory:
// per block of T threads, x, y, z and the result at odd strides, then
// `stride` scratch limbs per thread.
extern "C" __global__ void float_arith_tile(u64 *rh, u64 *rl, i8 *tern, const u64 *xh,
                                            const u64 *xl, const u64 *yh, const u64 *yl,
                                            const u64 *zh, const u64 *zl, u64 len, u32 op,
                                            u32 rnd, u64 p, u32 n, u32 lx, u32 ly, u32 lz,
                                            u32 want_tern, u32 stride) {
    extern __shared__ u64 fl_smem[];
    const u32 T = blockDim.x;
    const u32 sxs = lx | 1, sys = ly | 1, szs = lz | 1, sos = n | 1;
    u64 *sx = fl_smem, *sy = sx + T * sxs, *sz = sy + T * sys, *so = sz + T * szs;
    u32 a, b, c, pp;
    fl_scratch(op, n, lx, ly, lz, a, b, c, pp);
    u64 *A = so + T * sos + threadIdx.x * stride;
    u64 *B = A + a, *C = B + b, *P = C + c;
    u64 ntiles = (len + T - 1) / T;
    for (u64 tile = blockIdx.x; tile < ntiles; tile += gridDim.x) {
        u64 base = tile * T;
        u32 cnt = len - base < T ? (u32)(len - base) : T;
        fl_stage_in(sx, xl, base, cnt, lx, sxs);
        if (ly) fl_stage_in(sy, yl, base, cnt, ly, sys);
        if (lz) fl_stage_in(sz, zl, base, cnt, lz, szs);
        __syncthreads();
        u32 t = threadIdx.x;
        if (t < cnt) {
            u64 i = base + t;
            FlOut o = {so + t * sos, n, 0};
            u64 xhi = xh[i];
            u64 yhi = ly ? yh[i] : 0;
            u64 zhi = lz ? zh[i] : 0;
            i8 r = fl_arith_buf(op, rnd, p, o, xhi, sx + t * sxs, lx, yhi, sy + t * sys, ly, zhi,
                                sz + t * szs, lz, A, B, C, P);
            rh[i] = o.head;
            if (want_tern) tern[i] = r;
        }
        __syncthreads();
        for (u32 k = threadIdx.x; k < cnt * n; k += T) {
            u32 tt = k / n, j = k - tt * n;
            rl[base * n + k] = so[tt * sos + j];
        }
        __syncthreads();
    }
}

// ---------------------------------------------------------------------------
// Staged register kernels for equal precisions (x, y and the destination of
// exactly FL_NL <= 16 limbs): tiles of 128 elements loaded and stored
// coalesced with 16-byte accesses through shared memory (odd stride per
// element), the arithmetic in registers, the rare other cases (special
// values; a short product or a root that cannot decide) by the exact code.

#define FL_FT 128
#define FL_FAST_NL (FL_NL <= 16 ? FL_NL : 1)
#define FL_FAST_S (FL_FAST_NL | 1)

// `cnt` elements of FL_NL limbs from element `base` into shared memory at
// stride S; 16-byte loads when the tile's limb count is even.
__device__ __forceinline__ void fl_tile_in(u64 *sh, const u64 *g, u64 base, u32 cnt) {
    constexpr u32 N = FL_FAST_NL, S = FL_FAST_S;
    const u64 *src = g + base * N;
    u32 tot = cnt * N;
    if ((tot & 1) == 0) {
        const ulonglong2 *s2 = (const ulonglong2 *)src;
        for (u32 k2 = threadIdx.x; k2 < tot / 2; k2 += FL_FT) {
            ulonglong2 v = s2[k2];
            u32 k = 2 * k2, t = k / N, i = k - t * N;
            u32 at = t * S + i;
            sh[at] = v.x;
            sh[at + 1 + ((N % 2 == 0 && i == N - 1) ? 1 : 0)] = v.y;
        }
    } else {
        for (u32 k = threadIdx.x; k < tot; k += FL_FT) {
            u32 t = k / N, i = k - t * N;
            sh[t * S + i] = src[k];
        }
    }
}

__device__ __forceinline__ void fl_tile_out(u64 *g, const u64 *sh, u64 base, u32 cnt) {
    constexpr u32 N = FL_FAST_NL, S = FL_FAST_S;
    u64 *dst = g + base * N;
    u32 tot = cnt * N;
    if ((tot & 1) == 0) {
        ulonglong2 *d2 = (ulonglong2 *)dst;
        for (u32 k2 = threadIdx.x; k2 < tot / 2; k2 += FL_FT) {
            u32 k = 2 * k2, t = k / N, i = k - t * N;
            u32 at = t * S + i;
            ulonglong2 v;
            v.x = sh[at];
            v.y = sh[at + 1 + ((N % 2 == 0 && i == N - 1) ? 1 : 0)];
            d2[k2] = v;
        }
    } else {
        for (u32 k = threadIdx.x; k < tot; k += FL_FT) {
            u32 t = k / N, i = k - t * N;
            dst[k] = sh[t * S + i];
        }
    }
}

// The exact code with scratch in local memory (out of line: the register
// paths keep their registers), for what those paths leave.
__device__ __noinline__ i8 fl_arith_slow(u32 op, u32 rnd, u64 p, u64 *om, u64 *ohead, u64 xh,
                                         const u64 *xm, u64 yh, const u64 *ym) {
    constexpr u32 N = FL_FAST_NL;
    FlOut o = {om, N, 0};
    i8 r = fl_arith<FL_FAST_NL>(op, rnd, p, o, xh, xm, N, yh, ym, op == FL_OP_SQRT ? 0 : N, 0, xm,
                                0);
    *ohead = o.head;
    return r;
}

// OPK: 0 the short product (exact product when it cannot decide), 1 add or
// sub (op), 2 sqrt. ASM: the products' carries by PTX carry chains (fl_mac).
template <int OPK, bool ASM>
__device__ __forceinline__ void fl_fast_tile(u64 *rh, u64 *rl, i8 *tern, const u64 *xh,
                                             const u64 *xl, const u64 *yh, const u64 *yl,
                                             u64 len, u32 op, u32 rnd, u64 p, u32 want_tern) {
#if FL_NL <= 16
    constexpr u32 N = FL_FAST_NL, S = FL_FAST_S;
    __shared__ u64 sx[FL_FT * S], sy[OPK == 2 ? 1 : FL_FT * S];
    u64 ntiles = (len + FL_FT - 1) / FL_FT;
    for (u64 tile = blockIdx.x; tile < ntiles; tile += gridDim.x) {
        u64 base = tile * FL_FT;
        u32 cnt = len - base < FL_FT ? (u32)(len - base) : FL_FT;
        fl_tile_in(sx, xl, base, cnt);
        if (OPK != 2) fl_tile_in(sy, yl, base, cnt);
        __syncthreads();
        u32 t = threadIdx.x;
        if (t < cnt) {
            u64 i = base + t;
            u64 xhi = xh[i], yhi = OPK == 2 ? 0 : yh[i];
            u64 *xm = sx + t * S, *ym = sy + (OPK == 2 ? 0 : t * S);
            FlOut o = {xm, N, 0};
            i8 r = 0;
            bool xnorm = (fl_tag(xhi) & 3) == FL_NORMAL, ynorm = (fl_tag(yhi) & 3) == FL_NORMAL;
            if (OPK == 0) {
                if (xnorm && ynorm) {
                    if (N < 4 || !fl_mul_short<N, ASM>(o, xhi, xm, yhi, ym, p, rnd, r))
                        r = fl_mul_fast<N>(o, xhi, xm, yhi, ym, p, rnd);
                } else {
                    fl_mul_special(o, xhi, yhi);
                }
            } else if (OPK == 1) {
                if (xnorm && ynorm)
                    r = fl_add_fast<N>(o, xhi, xm, yhi, ym, op == FL_OP_SUB, p, rnd);
                else r = fl_arith_slow(op, rnd, p, xm, &o.head, xhi, xm, yhi, ym);
            } else {
#if FL_NL <= 8
                bool ok = xnorm && (fl_tag(xhi) & FL_NEG) == 0 &&
                          fl_sqrt_fast<N, ASM>(o, xhi, xm, p, rnd, r);
#else
                bool ok = false;
#endif
                if (!ok) r = fl_arith_slow(FL_OP_SQRT, rnd, p, xm, &o.head, xhi, xm, 0, xm);
            }
            rh[i] = o.head;
            if (want_tern) tern[i] = r;
        }
        __syncthreads();
        fl_tile_out(rl, sx, base, cnt);
        __syncthreads();
    }
#endif
}

// The product and root kernels with PTX carry chains, and in plain C++
// (`_c`, MPARRAY_FLOAT_KERNEL=plain) for comparison.
#define FL_FAST_KERNEL(NAME, OPK, ASM)                                                          \
    extern "C" __global__ void __launch_bounds__(FL_FT)                                         \
        NAME(u64 *rh, u64 *rl, i8 *tern, const u64 *xh, const u64 *xl, const u64 *yh,          \
             const u64 *yl, u64 len, u32 op, u32 rnd, u64 p, u32 want_tern) {                   \
        fl_fast_tile<OPK, ASM>(rh, rl, tern, xh, xl, yh, yl, len, op, rnd, p, want_tern);       \
    }
FL_FAST_KERNEL(float_mulshort_tile, 0, true)
FL_FAST_KERNEL(float_mulshort_tile_c, 0, false)
FL_FAST_KERNEL(float_add_tile, 1, false)
FL_FAST_KERNEL(float_sqrt_tile, 2, true)
FL_FAST_KERNEL(float_sqrt_tile_c, 2, false)
