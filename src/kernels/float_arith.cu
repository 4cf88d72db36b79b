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

// Scratch in local memory (any size up to the tier).
extern "C" __global__ void float_arith(u64 *rh, u64 *rl, i8 *tern, const u64 *xh, const u64 *xl,
                                       const u64 *yh, const u64 *yl, const u64 *zh,
                                       const u64 *zl, u64 len, u32 op, u32 rnd, u64 p, u32 n,
                                       u32 lx, u32 ly, u32 lz, u32 want_tern) {
    for (u64 i = blockIdx.x * (u64)blockDim.x + threadIdx.x; i < len;
         i += (u64)gridDim.x * blockDim.x) {
        FlOut o = {rl + i * n, n, 0};
        u64 xhi = xh[i];
        u64 yhi = op == FL_OP_SQRT ? 0 : yh[i];
        u64 zhi = (op == FL_OP_FMA || op == FL_OP_FMS) ? zh[i] : 0;
        i8 t;
        if (fl_fast_mul(op, n, lx, ly, xhi, yhi))
            t = fl_mul_fast<(FL_NL <= 16 ? FL_NL : 1)>(o, xhi, xl + i * lx, yhi, yl + i * ly, p, rnd);
        else
            t = fl_arith<FL_NL>(op, rnd, p, o, xhi, xl + i * lx, lx, yhi, yl + i * ly, ly, zhi,
                                zl + i * lz, lz);
        rh[i] = o.head;
        if (want_tern) tern[i] = t;
    }
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
    for (u64 i = blockIdx.x * (u64)blockDim.x + threadIdx.x; i < len;
         i += (u64)gridDim.x * blockDim.x) {
        FlOut o = {rl + i * n, n, 0};
        u64 xhi = xh[i];
        u64 yhi = op == FL_OP_SQRT ? 0 : yh[i];
        u64 zhi = (op == FL_OP_FMA || op == FL_OP_FMS) ? zh[i] : 0;
        i8 t;
        if (fl_fast_mul(op, n, lx, ly, xhi, yhi))
            t = fl_mul_fast<(FL_NL <= 16 ? FL_NL : 1)>(o, xhi, xl + i * lx, yhi, yl + i * ly, p, rnd);
        else
            t = fl_arith_buf(op, rnd, p, o, xhi, xl + i * lx, lx, yhi, yl + i * ly, ly, zhi,
                             zl + i * lz, lz, A, B, C, P);
        rh[i] = o.head;
        if (want_tern) tern[i] = t;
    }
}
