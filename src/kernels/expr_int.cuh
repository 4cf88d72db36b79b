// Per-element integer helpers of the generated expression kernels (a thread
// per element, src/expr/codegen.rs): every function works on EX_L limbs
// (a compile-time constant) modulo 2^(64*EX_L); r never aliases an operand.
// Plain C++ apart from the qualifiers, so it also compiles on the host.
#pragma once

#ifndef EX_DEV
#define EX_DEV __device__ __forceinline__
#endif

EX_DEV void ex_add(u64 *r, const u64 *a, const u64 *b) {
    u32 c = 0;
#pragma unroll 8
    for (int j = 0; j < EX_L; j++) r[j] = addc_u64(a[j], b[j], c);
}

EX_DEV void ex_sub(u64 *r, const u64 *a, const u64 *b) {
    u32 c = 0;
#pragma unroll 8
    for (int j = 0; j < EX_L; j++) r[j] = subb_u64(a[j], b[j], c);
}

EX_DEV void ex_neg(u64 *r, const u64 *a) {
    u32 c = 0;
#pragma unroll 8
    for (int j = 0; j < EX_L; j++) r[j] = subb_u64(0, a[j], c);
}

// Low EX_L limbs of a*b (schoolbook, rows of a times limbs of b).
EX_DEV void ex_mul(u64 *r, const u64 *a, const u64 *b) {
    for (int j = 0; j < EX_L; j++) r[j] = 0;
    for (int i = 0; i < EX_L; i++) {
        u64 ai = a[i], c = 0;
        if (ai == 0) continue;
        for (int j = 0; i + j < EX_L; j++) {
            u64 lo, hi;
            mul_wide_u64(ai, b[j], lo, hi);
            u64 s = r[i + j] + lo;
            hi += s < lo;
            s += c;
            hi += s < c;
            r[i + j] = s;
            c = hi;
        }
    }
}

EX_DEV void ex_shl(u64 *r, const u64 *a, u32 k) {
    u32 q = k / 64, s = k % 64;
    for (int j = EX_L - 1; j >= 0; j--) {
        u64 v = 0;
        if ((u32)j >= q) {
            v = a[j - q] << s;
            if (s && (u32)j > q) v |= a[j - q - 1] >> (64 - s);
        }
        r[j] = v;
    }
}

EX_DEV void ex_shr(u64 *r, const u64 *a, u32 k) {
    u32 q = k / 64, s = k % 64;
    for (int j = 0; j < EX_L; j++) {
        u64 v = 0;
        if (j + q < (u32)EX_L) {
            v = a[j + q] >> s;
            if (s && j + q + 1 < (u32)EX_L) v |= a[j + q + 1] << (64 - s);
        }
        r[j] = v;
    }
}

EX_DEV void ex_and(u64 *r, const u64 *a, const u64 *b) {
    for (int j = 0; j < EX_L; j++) r[j] = a[j] & b[j];
}
EX_DEV void ex_or(u64 *r, const u64 *a, const u64 *b) {
    for (int j = 0; j < EX_L; j++) r[j] = a[j] | b[j];
}
EX_DEV void ex_xor(u64 *r, const u64 *a, const u64 *b) {
    for (int j = 0; j < EX_L; j++) r[j] = a[j] ^ b[j];
}
EX_DEV void ex_not(u64 *r, const u64 *a) {
    for (int j = 0; j < EX_L; j++) r[j] = ~a[j];
}

// -1, 0, +1 as a <, ==, > b.
EX_DEV int ex_cmp(const u64 *a, const u64 *b) {
    for (int j = EX_L - 1; j >= 0; j--)
        if (a[j] != b[j]) return a[j] < b[j] ? -1 : 1;
    return 0;
}

EX_DEV void ex_bool(u64 *r, bool t) {
    r[0] = t;
    for (int j = 1; j < EX_L; j++) r[j] = 0;
}

EX_DEV bool ex_nonzero(const u64 *a) {
    u64 t = 0;
    for (int j = 0; j < EX_L; j++) t |= a[j];
    return t != 0;
}

EX_DEV void ex_copy(u64 *r, const u64 *a) {
    for (int j = 0; j < EX_L; j++) r[j] = a[j];
}
