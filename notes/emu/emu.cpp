// CPU emulation of src/kernels/int_add.cu: one std::thread per CUDA thread,
// blocks run one after another; ballots and __syncthreads are block-wide
// barriers (every call site in int_add.cu is reached by all threads).
// Build: g++ -O1 -std=c++20 -pthread -I../../src/kernels emu.cpp -o emu
#include <barrier>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <random>
#include <thread>
#include <vector>

struct dim3e { unsigned x = 0, y = 0, z = 0; };
thread_local dim3e threadIdx, blockIdx;
dim3e blockDim, gridDim;
struct ulonglong2 { unsigned long long x, y; };
static inline ulonglong2 make_ulonglong2(unsigned long long a, unsigned long long b) { return {a, b}; }
#define __global__
#define __device__
#define __forceinline__ inline
#define __launch_bounds__(...)
#define __shared__ static
static inline unsigned long long __umul64hi(unsigned long long a, unsigned long long b) {
    return (unsigned long long)(((unsigned __int128)a * b) >> 64);
}
static std::barrier<> *bar;
static unsigned votes[1024];
static void __syncthreads() { bar->arrive_and_wait(); }
static void __syncwarp(unsigned = ~0u) { bar->arrive_and_wait(); }
static unsigned __ballot_sync(unsigned, unsigned pred) {
    votes[threadIdx.x] = pred != 0;
    bar->arrive_and_wait();
    unsigned m = 0, w = threadIdx.x & ~31u;
    for (unsigned l = 0; l < 32 && w + l < blockDim.x; l++) m |= votes[w + l] << l;
    bar->arrive_and_wait();
    return m;
}
#include "int_add.cu"

typedef unsigned long long U;
static void launch(unsigned grid, std::function<void()> f) {
    gridDim.x = grid;
    blockDim.x = ADD_B;
    for (unsigned bi = 0; bi < grid; bi++) {
        std::barrier<> b(ADD_B);
        bar = &b;
        std::vector<std::thread> ts;
        for (unsigned t = 0; t < ADD_B; t++)
            ts.emplace_back([&, t, bi] { threadIdx.x = t; blockIdx.x = bi; f(); });
        for (auto &t : ts) t.join();
    }
}

// Reference: one element at a time.
static void ref(const U *a, const U *b, U *r, uint8_t *fl, U n, unsigned L, int mode) {
    for (U i = 0; i < n; i++) {
        const U *x = a + i * L, *y = b + i * L;
        U *z = r + i * L;
        unsigned c = 0;
        if (mode == 1) { for (unsigned j = 0; j < L; j++) z[j] = subb_u64(x[j], y[j], c); fl[i] = c; }
        else if (mode == 0) { for (unsigned j = 0; j < L; j++) z[j] = addc_u64(x[j], y[j], c); fl[i] = c; }
        else {
            for (unsigned j = 0; j < L; j++) z[j] = addc_u64(x[j], y[j], c);
            for (int k = 1; k < 6; k++) { c = 0; const U *o = (k & 1) ? x : y;
                for (unsigned j = 0; j < L; j++) z[j] = addc_u64(z[j], o[j], c); }
        }
    }
}

static std::mt19937_64 rng(12345);
static U limb(int kind) {
    switch (kind) {
    case 0: return rng();
    case 1: return ~0ull;
    case 2: return 0;
    case 3: return rng() & 1 ? ~0ull : rng();
    default: return (rng() % 4 == 0) ? rng() : ~0ull;
    }
}

int main(int argc, char **argv) {
    std::vector<unsigned> Ls = {1, 2, 3, 4, 5, 7, 8, 9, 15, 16, 17, 24, 33, 63, 64, 65, 255, 256, 257,
                                1023, 1024, 2047, 2048, 2049, 2050, 2051, 2052, 2053, 2054, 2055, 2056,
                                4095, 4096, 4097, 4098, 4099, 4100, 4101, 4102, 4103, 4104, 6000, 16384};
    if (argc > 1) { Ls.clear(); for (int i = 1; i < argc; i++) Ls.push_back(atoi(argv[i])); }
    int bad = 0;
    // layout 0: chunk, 1: striped (pairs), 2: staged chunk, 3: pipelined staged
    // chunk (2 and 3: six-add only; 3 on a grid of 1..3 blocks looping).
    int lay0 = getenv("EMU_LAYOUT") ? atoi(getenv("EMU_LAYOUT")) : 0;
    int lay1 = getenv("EMU_LAYOUT") ? lay0 + 1 : 4;
    for (int pairs = lay0; pairs < lay1; pairs++)
    for (unsigned L : Ls) {
        for (int kind = 0; kind < 5; kind++) {
            bool aligned = pairs == 1 ? L % 2 == 0 : L % ADD_K == 0;
            U room = (!aligned && L % 2) ? ADD_T - 1 : ADD_T;
            U E = room / L; if (E < 1) E = 1;
            U n = L >= 2048 ? 3 + (kind & 1) : (kind == 0 ? 2 * E + 3 : E + 1 + kind);
            if (L == 1 && kind == 0) n = 4 * ADD_T + 5;
            U units = (n + E - 1) / E;
            unsigned grid = units > 2 && kind == 2 ? 2 : (unsigned)units;
            std::vector<U> a(n * L), b(n * L), r(n * L, 0xdeadbeef), want(n * L);
            std::vector<uint8_t> fl(n, 7), wfl(n);
            for (U i = 0; i < n * L; i++) { a[i] = limb(kind); b[i] = limb(kind == 4 ? 0 : kind); }
            if (kind == 1) for (U i = 0; i < n; i++) { for (unsigned j = 0; j < L; j++) b[i*L+j] = (i % 3 == 0) ? (j == 0) : (i % 3 == 1 ? 0 : ~0ull); }
            for (int mode = pairs >= 2 ? 2 : 0; mode < 3; mode++) {
                std::fill(r.begin(), r.end(), 0xdeadbeefull);
                std::fill(fl.begin(), fl.end(), 7);
                ref(a.data(), b.data(), want.data(), wfl.data(), n, L, mode);
                uint8_t *fp = (mode < 2 && kind != 3) ? fl.data() : nullptr;
                if (pairs == 3) {
#ifdef ADD_PIPED
                    unsigned g3 = std::min<U>(units, kind % 3 + 1);
                    launch(g3, [&] {
                        if (aligned) int_six_add_piped(r.data(), a.data(), b.data(), n, L, E);
                        else int_six_add_staged_general(r.data(), a.data(), b.data(), n, L, E);
                    });
#else
                    r = want;
#endif
                }
                else if (pairs == 2) launch(grid, [&] {
                    if (aligned) int_six_add_staged(r.data(), a.data(), b.data(), n, L, E);
                    else int_six_add_staged_general(r.data(), a.data(), b.data(), n, L, E);
                });
                else if (pairs) launch(grid, [&] {
                    if (mode == 2) { if (aligned) int_six_add_even(r.data(), a.data(), b.data(), n, L, E);
                                     else int_six_add_odd(r.data(), a.data(), b.data(), n, L, E); }
                    else if (aligned) { if (mode) int_sub_even(r.data(), a.data(), b.data(), fp, n, L, E);
                                        else int_add_even(r.data(), a.data(), b.data(), fp, n, L, E); }
                    else { if (mode) int_sub_odd(r.data(), a.data(), b.data(), fp, n, L, E);
                           else int_add_odd(r.data(), a.data(), b.data(), fp, n, L, E); }
                });
                else launch(grid, [&] {
                    if (mode == 2) { if (aligned) int_six_add_aligned(r.data(), a.data(), b.data(), n, L, E);
                                     else int_six_add_general(r.data(), a.data(), b.data(), n, L, E); }
                    else if (aligned) { if (mode) int_sub_aligned(r.data(), a.data(), b.data(), fp, n, L, E);
                                        else int_add_aligned(r.data(), a.data(), b.data(), fp, n, L, E); }
                    else { if (mode) int_sub_general(r.data(), a.data(), b.data(), fp, n, L, E);
                           else int_add_general(r.data(), a.data(), b.data(), fp, n, L, E); }
                });
                bool ok = r == want;
                if (fp) ok = ok && fl == wfl;
                if (!fp) for (auto f : fl) ok = ok && f == 7;
                if (!ok) {
                    bad++;
                    U i = 0; while (i < n * L && r[i] == want[i]) i++;
                    printf("FAIL pairs=%d L=%u kind=%d mode=%d n=%llu E=%llu first bad limb %llu\n", pairs, L, kind, mode, n, E, i);
                }
            }
        }
        printf("pairs=%d L=%u done\n", pairs, L); fflush(stdout);
    }
    printf(bad ? "%d FAILURES\n" : "all ok\n", bad);
    return bad != 0;
}
