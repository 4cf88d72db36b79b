// Float operations that round one operand (neg, abs, set_prec, mul_2si,
// min, max) and the comparison: a thread per element, no scratch, so one
// instantiation serves every precision.
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
