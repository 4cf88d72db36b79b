// Shared device helpers for every kernel family.
#pragma once

typedef unsigned long long u64;
typedef unsigned int u32;
typedef long long i64;
typedef unsigned char u8;

// 64x64 -> 128 product.
__device__ __forceinline__ void mul_wide_u64(u64 a, u64 b, u64 &lo, u64 &hi) {
    lo = a * b;
    hi = __umul64hi(a, b);
}

// Add with carry in/out on 64-bit limbs.
__device__ __forceinline__ u64 addc_u64(u64 a, u64 b, u32 &carry) {
    u64 s = a + b;
    u32 c1 = s < a;
    u64 t = s + carry;
    u32 c2 = t < s;
    carry = c1 | c2;
    return t;
}

// Subtract with borrow in/out on 64-bit limbs.
__device__ __forceinline__ u64 subb_u64(u64 a, u64 b, u32 &borrow) {
    u64 d = a - b;
    u32 b1 = a < b;
    u64 t = d - borrow;
    u32 b2 = d < borrow;
    borrow = b1 | b2;
    return t;
}
