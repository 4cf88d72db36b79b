// Host emulation of the scalar operations of src/kernels/roots.cu (rt_mul,
// rt_wmul, rt_add, rt_div at RT_N = 4, 7 and 16 limbs, with the file's
// default RT_V paths, or those of -DRT_V=...), for tests/roots_emu.rs
// (MPARRAY_ROOTS_EMU=path/to/remu). Job protocol of tests/emu/floatgpu/
// emu.cpp: stdin: op rnd p n lx ly lz k len, then xh, xl, yh, yl, zh, zl
// (u64 little-endian); stdout: rh, rl, tern.
// Only add (0), sub (1), mul (2) and div (3, to nearest) with every operand
// and the result of exactly n = 4, 7 or 16 limbs; tern is always 0 (the
// roots kernels do not keep it). FW_GS = g (2, 4, 8, 16 or 32): the
// product by rt_gmul<g> (32: rt_wmul without RT_V & 16384), the group's lanes run one after
// another, lane 0 (which adds the columns and rounds) last. FW_GS = 100
// + a (a = 0..7): add and sub by rt_wadd with absf = a (the warp's 32
// lanes emulated by replay, rt_emu_ballot); FW_GS = 200: mul by rt_wmul_l
// (the same replay). Build: g++ -O1 -std=c++17 -o remu remu.cpp
#include <cstdio>
#include <cstdlib>
#include <vector>
typedef unsigned long long u64;
typedef unsigned int u32;
typedef long long i64;
typedef unsigned char u8;
// The CUDA built-ins roots.cu uses, for one thread of one block.
#define __device__
#define __noinline__
#define __forceinline__ inline
#define __global__
#define __shared__ static
#define __launch_bounds__(x)
struct EmuDim {
    unsigned x, y, z;
};
static EmuDim threadIdx = {0, 0, 0}, blockIdx = {0, 0, 0}, blockDim = {256, 1, 1},
              gridDim = {1, 1, 1};
static inline void __syncthreads() {}
static inline void __syncwarp() {}
static inline void __syncwarp(unsigned) {}
static inline int __syncthreads_or(int p) { return p; }
static inline long long clock64() { return 0; }
static inline u64 atomicAdd(u64 *p, u64 v) {
    u64 o = *p;
    *p += v;
    return o;
}
static inline u64 __umul64hi(u64 a, u64 b) { return (u64)(((unsigned __int128)a * b) >> 64); }

// The warp's collectives of rt_wadd by replay: emu_warp runs the 32 lanes
// one after another (lane 0 last) again and again; the k-th collective of
// a run returns its result once every lane's value for it is known (the
// lanes' control flow is the same up to it), else records this lane's
// value and returns 0 (the rest of that run is discarded: its writes are
// made again by the last, complete run). Each run resolves one collective.
struct EmuColl {
    bool shfl;
    u64 v[32];
    int src[32];
    u64 res[32];
};
static EmuColl emu_c[64];
static int emu_next = 0, emu_done = 0;
static bool emu_hit = false;
static u32 rt_emu_ballot(bool pr) {
    int k = emu_next++;
    if (k < emu_done) {
        if (emu_c[k].shfl) exit(5);
        return (u32)emu_c[k].res[0];
    }
    if (k == emu_done) {
        emu_c[k].shfl = false;
        emu_c[k].v[threadIdx.x] = pr ? 1 : 0;
    }
    emu_hit = true;
    return 0;
}
static u64 rt_emu_shfl(u64 v, int src) {
    int k = emu_next++;
    if (k < emu_done) {
        if (!emu_c[k].shfl) exit(5);
        return emu_c[k].res[threadIdx.x];
    }
    if (k == emu_done) {
        emu_c[k].shfl = true;
        emu_c[k].v[threadIdx.x] = v;
        emu_c[k].src[threadIdx.x] = src;
    }
    emu_hit = true;
    return 0;
}
template <class F>
static void emu_warp(F run) {
    emu_done = 0;
    for (;;) {
        emu_hit = false;
        for (int lane = 31; lane >= 0; lane--) {
            threadIdx.x = (unsigned)lane;
            emu_next = 0;
            run();
        }
        if (!emu_hit) break;
        if (emu_done >= 64) exit(4);
        EmuColl &c = emu_c[emu_done];
        if (c.shfl) {
            for (int l = 0; l < 32; l++) c.res[l] = c.v[c.src[l] & 31];
        } else {
            u64 m = 0;
            for (int l = 0; l < 32; l++) m |= c.v[l] << l;
            c.res[0] = m;
        }
        emu_done++;
    }
    threadIdx.x = 0;
}
#include "../../../src/kernels/common.cuh"
#include "../../../src/kernels/float_common.cuh"

// roots.cu once per limb count, each in its own namespace (its kernels'
// C names renamed per copy).
#define roots_aberth_first rt4_first
#define roots_aberth_next rt4_next
#define roots_certify rt4_certify
#define roots_sts_a rt4_sts_a
#define roots_sts_b rt4_sts_b
#define RT_N 4
namespace n4 {
#include "../../../src/kernels/roots.cu"
}
#undef RT_N
#undef roots_aberth_first
#undef roots_aberth_next
#undef roots_certify
#undef roots_sts_a
#undef roots_sts_b
#define roots_aberth_first rt7_first
#define roots_aberth_next rt7_next
#define roots_certify rt7_certify
#define roots_sts_a rt7_sts_a
#define roots_sts_b rt7_sts_b
#define RT_N 7
namespace n7 {
#include "../../../src/kernels/roots.cu"
}
#undef RT_N
#undef roots_aberth_first
#undef roots_aberth_next
#undef roots_certify
#undef roots_sts_a
#undef roots_sts_b
#define roots_aberth_first rt16_first
#define roots_aberth_next rt16_next
#define roots_certify rt16_certify
#define roots_sts_a rt16_sts_a
#define roots_sts_b rt16_sts_b
#define RT_N 16
namespace n16 {
#include "../../../src/kernels/roots.cu"
}

static std::vector<u64> rd(size_t n) {
    std::vector<u64> v(n ? n : 1);
    if (n && fread(v.data(), 8, n, stdin) != n) exit(3);
    return v;
}

// rt_gmul of copy NS by a group of `gs` lanes (lanes 0..gs-1 of warp
// 0), the group's lane 0 last (gs = 32: rt_gmul<32>, rt_wmul without RT_V
// & 16384).
#define RT_WARP(NS)                                                                                \
    do {                                                                                           \
        static u64 sc[3 * 2 * 16];                                                                 \
        for (int lane = gs - 1; lane >= 0; lane--) {                                               \
            threadIdx.x = (unsigned)lane;                                                          \
            NS::rt_gmul_n((u32)gs, r, x, y, p, rnd, sc);                                           \
        }                                                                                          \
    } while (0)

static bool warp = false, wadd = false, wmull = false;
static int gs = 32;
static u32 absf = 0;

template <int N>
static void one(u32 op, u32 rnd, u64 p, const u64 *x, const u64 *y, u64 *r) {
    switch (N) {
    case 4:
        if (op == 2 && wmull) emu_warp([&] { n4::rt_wmul_l(r, x, y, p, rnd); });
        else if (op == 2 && warp) RT_WARP(n4);
        else if (op == 2) n4::rt_mul(r, x, y, p, rnd);
        else if (op == 3) n4::rt_div(r, x, y, p);
        else if (wadd) emu_warp([&] { n4::rt_wadd(r, x, y, op == 1, p, rnd, absf); });
        else n4::rt_add(r, x, y, op == 1, p, rnd);
        break;
    case 7:
        if (op == 2 && wmull) emu_warp([&] { n7::rt_wmul_l(r, x, y, p, rnd); });
        else if (op == 2 && warp) RT_WARP(n7);
        else if (op == 2) n7::rt_mul(r, x, y, p, rnd);
        else if (op == 3) n7::rt_div(r, x, y, p);
        else if (wadd) emu_warp([&] { n7::rt_wadd(r, x, y, op == 1, p, rnd, absf); });
        else n7::rt_add(r, x, y, op == 1, p, rnd);
        break;
    default:
        if (op == 2 && wmull) emu_warp([&] { n16::rt_wmul_l(r, x, y, p, rnd); });
        else if (op == 2 && warp) RT_WARP(n16);
        else if (op == 2) n16::rt_mul(r, x, y, p, rnd);
        else if (op == 3) n16::rt_div(r, x, y, p);
        else if (wadd) emu_warp([&] { n16::rt_wadd(r, x, y, op == 1, p, rnd, absf); });
        else n16::rt_add(r, x, y, op == 1, p, rnd);
    }
}

int main() {
    warp = getenv("FW_GS") != nullptr;
    if (warp) gs = atoi(getenv("FW_GS"));
    if (warp && gs == 200) {
        wmull = true;
        warp = false;
    }
    if (warp && gs >= 100 && gs <= 107) {
        wadd = true;
        warp = false;
        absf = (u32)(gs - 100);
    }
    if (warp && gs != 2 && gs != 4 && gs != 8 && gs != 16 && gs != 32) return 2;
    std::vector<u64> h = rd(9);
    u32 op = (u32)h[0], rnd = (u32)h[1];
    u64 p = h[2], n = h[3], len = h[8];
    if (op > 3 || (op == 3 && rnd != 0) || h[4] != n || h[5] != n || (n != 4 && n != 7 && n != 16))
        return 2;
    auto xh = rd(len), xl = rd(len * n), yh = rd(len), yl = rd(len * n), zh = rd(len),
         zl = rd(len * h[6]);
    std::vector<u64> rh(len), rl(len * n), tn(len, 0);
    std::vector<u64> x(n + 1), y(n + 1), r(n + 1);
    for (u64 i = 0; i < len; i++) {
        x[0] = xh[i];
        y[0] = yh[i];
        for (u64 k = 0; k < n; k++) {
            x[1 + k] = xl[i * n + k];
            y[1 + k] = yl[i * n + k];
        }
        if (n == 4) one<4>(op, rnd, p, x.data(), y.data(), r.data());
        else if (n == 7) one<7>(op, rnd, p, x.data(), y.data(), r.data());
        else one<16>(op, rnd, p, x.data(), y.data(), r.data());
        rh[i] = r[0];
        for (u64 k = 0; k < n; k++) rl[i * n + k] = r[1 + k];
    }
    fwrite(rh.data(), 8, len, stdout);
    fwrite(rl.data(), 8, len * n, stdout);
    fwrite(tn.data(), 8, len, stdout);
    return 0;
}
