// Float arithmetic with MPFR's exact semantics (add, sub, mul, div, sqrt,
// fma, fms): a thread per element, the operation a run-time argument (the
// same for every thread), the per-element code in float_common.cuh. FL_NL
// is the scratch tier in limbs (every operand and the destination have at
// most FL_NL limbs; limb counts are run-time arguments).
#include "common.cuh"
#include "float_common.cuh"

#ifndef FL_NL
#define FL_NL 8
#endif

extern "C" __global__ void float_arith(u64 *rh, u64 *rl, i8 *tern, const u64 *xh, const u64 *xl,
                                       const u64 *yh, const u64 *yl, const u64 *zh,
                                       const u64 *zl, u64 len, u32 op, u32 rnd, u64 p, u32 n,
                                       u32 lx, u32 ly, u32 lz, u32 want_tern) {
    for (u64 i = blockIdx.x * (u64)blockDim.x + threadIdx.x; i < len;
         i += (u64)gridDim.x * blockDim.x) {
        FlOut o = {rl + i * n, n, 0};
        u64 yhi = op == FL_OP_SQRT ? 0 : yh[i];
        u64 zhi = (op == FL_OP_FMA || op == FL_OP_FMS) ? zh[i] : 0;
        i8 t = fl_arith<FL_NL>(op, rnd, p, o, xh[i], xl + i * lx, lx, yhi, yl + i * ly, ly, zhi,
                               zl + i * lz, lz);
        rh[i] = o.head;
        if (want_tern) tern[i] = t;
    }
}
