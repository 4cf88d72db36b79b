// Multiplication: low half and full product, and the fused polynomial.
// Baseline tier: one thread per element, schoolbook on 64-bit limbs.
#include "common.cuh"

// z[0..zl) = low zl limbs of x[0..l) * y[0..l) (zl <= 2l), z zeroed here.
__device__ void mul_school(u64 *z, const u64 *x, const u64 *y, u32 l, u32 zl) {
    for (u32 k = 0; k < zl; k++) z[k] = 0;
    for (u32 j = 0; j < l && j < zl; j++) {
        u64 bj = y[j], carry = 0;
        u32 top = (zl - j < l) ? zl - j : l;
        for (u32 i = 0; i < top; i++) {
            u64 lo, hi;
            mul_wide_u64(x[i], bj, lo, hi);
            lo += carry;
            hi += lo < carry;
            u64 s = z[i + j] + lo;
            hi += s < lo;
            z[i + j] = s;
            carry = hi;
        }
        if (j + top < zl) z[j + top] = carry;
    }
}

extern "C" __global__ void int_mul_thread(u64 *r, const u64 *a, const u64 *b, u64 n, u32 limbs,
                                          u32 wide) {
    u32 zl = wide ? 2 * limbs : limbs;
    for (u64 i = blockIdx.x * (u64)blockDim.x + threadIdx.x; i < n;
         i += (u64)gridDim.x * blockDim.x)
        mul_school(r + i * zl, a + i * limbs, b + i * limbs, limbs, zl);
}

// r = (a*a + b) * (b*b + b) + a*b, low halves; scratch holds 3*limbs per element.
extern "C" __global__ void int_poly_thread(u64 *r, const u64 *a, const u64 *b, u64 *scratch,
                                           u64 n, u32 limbs) {
    for (u64 i = blockIdx.x * (u64)blockDim.x + threadIdx.x; i < n;
         i += (u64)gridDim.x * blockDim.x) {
        const u64 *x = a + i * limbs, *y = b + i * limbs;
        u64 *z = r + i * limbs;
        u64 *t1 = scratch + i * 3 * limbs, *t2 = t1 + limbs, *t3 = t2 + limbs;
        u32 c;
        mul_school(t1, x, x, limbs, limbs);
        c = 0;
        for (u32 j = 0; j < limbs; j++) t1[j] = addc_u64(t1[j], y[j], c);
        mul_school(t2, y, y, limbs, limbs);
        c = 0;
        for (u32 j = 0; j < limbs; j++) t2[j] = addc_u64(t2[j], y[j], c);
        mul_school(t3, t1, t2, limbs, limbs);
        mul_school(z, x, y, limbs, limbs);
        c = 0;
        for (u32 j = 0; j < limbs; j++) z[j] = addc_u64(z[j], t3[j], c);
    }
}
