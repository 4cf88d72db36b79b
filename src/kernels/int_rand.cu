// Random inputs on the device. Same generator as src/int/random.rs: keep
// the two in step (the tests compare them bit for bit).
#include "common.cuh"

__device__ __forceinline__ u64 mix64(u64 z) {
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

#define GOLDEN 0x9E3779B97F4A7C15ull

// One thread per limb. Element lengths uniform in [min_limbs, max_limbs].
extern "C" __global__ void int_random(u64 *out, u64 n_elems, u32 limbs, u64 seed,
                                      u32 min_limbs, u32 max_limbs) {
    u64 total = n_elems * (u64)limbs;
    u64 ms = mix64(seed);
    u64 ls = mix64(seed ^ 0xD1B54A32D192ED03ull);
    for (u64 idx = blockIdx.x * (u64)blockDim.x + threadIdx.x; idx < total;
         idx += (u64)gridDim.x * blockDim.x) {
        u64 i = idx / limbs;
        u32 j = (u32)(idx - i * limbs);
        u32 n = max_limbs;
        if (min_limbs != max_limbs) {
            u64 h = mix64(ls + i * GOLDEN);
            n = min_limbs + (u32)__umul64hi(h, (u64)(max_limbs - min_limbs + 1));
        }
        u64 x = 0;
        if (j < n) {
            x = mix64(ms + (idx + 1) * GOLDEN);
            if (min_limbs != max_limbs && j == n - 1 && x == 0) x = 1;
        }
        out[idx] = x;
    }
}
