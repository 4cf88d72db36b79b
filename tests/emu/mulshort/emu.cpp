// Host check of fl_mul_short32 (src/kernels/float_common.cuh: the 32-bit
// limb short product of the register float kernel, its carry chains
// emulated with an explicit carry): for random normal operands of N limbs
// (N = 4..9, 12, 16), every rounding mode, precisions 64N and below, each
// product it decides must equal fl_mul_fast's (the exact product, rounded
// once); it may decline (the caller then takes the exact code). Operands
// draw their limbs at random or from patterns (0, all ones, 2^63, 2^32 - 1,
// ...) that put runs of zeros or ones at the short product's boundary.
// Usage: emu ITERATIONS SEED; prints one line per N:
// "N=.. decided .. fallback .. mismatches .." and exits 1 on a mismatch.
// (The chains' "no carry out" steps abort on an overflow.)
#include <cstdio>
#include <cstdlib>
typedef unsigned long long u64;
typedef unsigned int u32;
typedef long long i64;
typedef unsigned char u8;
#include "../../../src/kernels/float_common.cuh"

static u64 s;
static u64 rnd64() {
    s ^= s << 13;
    s ^= s >> 7;
    s ^= s << 17;
    return s;
}
static u64 limb(bool patterns) {
    static const u64 pat[] = {0, ~0ull, 1ull << 63, 0xffffffffull, 0xffffffff00000000ull, 1,
                              0x8000000080000000ull};
    if (!patterns || (rnd64() & 3) == 0) return rnd64();
    return pat[rnd64() % 7];
}

template <int N>
static long run(long iters) {
    long dec = 0, fb = 0, bad = 0;
    for (long it = 0; it < iters; it++) {
        u64 x[N], y[N];
        bool patterns = it % 3 != 0;
        for (int i = 0; i < N; i++) {
            x[i] = limb(patterns);
            y[i] = limb(patterns);
        }
        x[N - 1] |= 1ull << 63;
        y[N - 1] |= 1ull << 63;
        u64 xh = ((u64)(rnd64() % 2000) << 8) | FL_NORMAL | ((rnd64() & 1) ? FL_NEG : 0);
        u64 yh = ((u64)(rnd64() % 2000) << 8) | FL_NORMAL | ((rnd64() & 1) ? FL_NEG : 0);
        u32 rm = (u32)(rnd64() % 5);
        u64 p = 64 * N - (rnd64() % 3 == 0 ? rnd64() % 64 : 0);
        u64 m1[N], m2[N];
        FlOut o1 = {m1, N, 0}, o2 = {m2, N, 0};
        i8 t1 = 0;
        bool ok = fl_mul_short32<N>(o1, xh, x, yh, y, p, rm, t1);
        i8 t2 = fl_mul_fast<N>(o2, xh, x, yh, y, p, rm);
        if (!ok) {
            fb++;
            continue;
        }
        dec++;
        bool same = o1.head == o2.head && t1 == t2;
        for (int i = 0; i < N; i++) same = same && m1[i] == m2[i];
        if (!same) bad++;
    }
    printf("N=%d decided %ld fallback %ld mismatches %ld\n", N, dec, fb, bad);
    return bad;
}

int main(int argc, char **argv) {
    long n = argc > 1 ? atol(argv[1]) : 100000;
    s = argc > 2 ? strtoull(argv[2], 0, 10) | 1 : 88172645463325252ull;
    long bad = run<4>(n) + run<5>(n) + run<6>(n) + run<7>(n) + run<8>(n) + run<9>(n) +
               run<12>(n) + run<16>(n);
    return bad ? 1 : 0;
}
