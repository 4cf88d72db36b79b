// Addition and subtraction modulo 2^W, and the fused add chain.
// Baseline tier: one thread per element, limbs looped at run time.
#include "common.cuh"

// r = a +/- b per element; flags[i] = carry/borrow out (if flags != 0).
extern "C" __global__ void int_add_sub_thread(u64 *r, const u64 *a, const u64 *b, u8 *flags,
                                              u64 n, u32 limbs, u32 subtract) {
    for (u64 i = blockIdx.x * (u64)blockDim.x + threadIdx.x; i < n;
         i += (u64)gridDim.x * blockDim.x) {
        const u64 *x = a + i * limbs, *y = b + i * limbs;
        u64 *z = r + i * limbs;
        u32 c = 0;
        if (subtract) {
            for (u32 j = 0; j < limbs; j++) z[j] = subb_u64(x[j], y[j], c);
        } else {
            for (u32 j = 0; j < limbs; j++) z[j] = addc_u64(x[j], y[j], c);
        }
        if (flags) flags[i] = (u8)c;
    }
}

// r = a+b+a+b+a+b+a (six dependent additions) per element.
extern "C" __global__ void int_six_add_thread(u64 *r, const u64 *a, const u64 *b, u64 n,
                                              u32 limbs) {
    for (u64 i = blockIdx.x * (u64)blockDim.x + threadIdx.x; i < n;
         i += (u64)gridDim.x * blockDim.x) {
        const u64 *x = a + i * limbs, *y = b + i * limbs;
        u64 *z = r + i * limbs;
        u32 c = 0;
        for (u32 j = 0; j < limbs; j++) z[j] = addc_u64(x[j], y[j], c);
        for (int k = 0; k < 5; k++) {
            const u64 *w = (k % 2 == 0) ? x : y;
            c = 0;
            for (u32 j = 0; j < limbs; j++) z[j] = addc_u64(z[j], w[j], c);
        }
    }
}
