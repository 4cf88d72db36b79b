// Host emulation of the little CUDA the int_mul kernels use: one std::thread
// per CUDA thread, blocks run one after another. For checking kernel logic on
// a machine without a GPU (notes/emu/run.sh).
#pragma once
#include <barrier>
#include <cstdint>
#include <cstring>
#include <functional>
#include <memory>
#include <thread>
#include <vector>
#include <algorithm>

#define __global__
#define __device__
#define __forceinline__ inline
#define __shared__ static
#define __launch_bounds__(...)
#define __align__(x)

struct emu_dim3 { unsigned x = 0, y = 0, z = 0; };
inline thread_local emu_dim3 threadIdx, blockIdx;
inline emu_dim3 blockDim, gridDim;
inline unsigned *emu_smem = nullptr;
#define MUL_SMEM emu_smem

struct uint4 { unsigned x, y, z, w; };
struct uint2 { unsigned x, y; };
#include <cstdio>
#include <cstdlib>
inline void emu_align(const void *p, unsigned a, const char *what) {
    if ((uintptr_t)p % a) { fprintf(stderr, "misaligned %s at %p\n", what, p); abort(); }
}
#define LD4(p) (emu_align(p, 16, "LD4"), *(const uint4 *)(p))
#define LD2(p) (emu_align(p, 8, "LD2"), *(const uint2 *)(p))
using std::min;
using std::max;

inline unsigned __umulhi(unsigned a, unsigned b) { return (unsigned)(((unsigned long long)a * b) >> 32); }
inline unsigned long long __umul64hi(unsigned long long a, unsigned long long b) {
    return (unsigned long long)(((unsigned __int128)a * b) >> 64);
}

inline std::unique_ptr<std::barrier<>> emu_block_bar;
struct EmuWarp { std::unique_ptr<std::barrier<>> bar; unsigned vals[32]; };
inline std::vector<EmuWarp> emu_warps;
inline void __syncthreads() { emu_block_bar->arrive_and_wait(); }
inline void __syncwarp(unsigned = 0xffffffffu) { emu_warps[threadIdx.x / 32].bar->arrive_and_wait(); }
inline unsigned __ballot_sync(unsigned, int pred) {
    EmuWarp &w = emu_warps[threadIdx.x / 32];
    w.vals[threadIdx.x % 32] = pred != 0;
    w.bar->arrive_and_wait();
    unsigned r = 0;
    for (int l = 0; l < 32; l++) r |= w.vals[l] << l;
    w.bar->arrive_and_wait();
    return r;
}

// PTX carry chains with an explicit per-thread carry flag.
inline thread_local unsigned emu_cf;
inline void emu_set(unsigned &d, unsigned long long t, bool setcf) { d = (unsigned)t; if (setcf) emu_cf = (unsigned)(t >> 32); }
#define CH_MADLO_CC(d, a, b) emu_set(d, (unsigned long long)(d) + (unsigned)((a) * (b)), true)
#define CH_MADLOC_CC(d, a, b) emu_set(d, (unsigned long long)(d) + (unsigned)((a) * (b)) + emu_cf, true)
#define CH_MADHIC_CC(d, a, b) emu_set(d, (unsigned long long)(d) + __umulhi(a, b) + emu_cf, true)
#define CH_ADD_CC(d, x) emu_set(d, (unsigned long long)(d) + (unsigned)(x), true)
#define CH_ADDC_CC(d, x) emu_set(d, (unsigned long long)(d) + (unsigned)(x) + emu_cf, true)
#define CH_ADDC(d, x) emu_set(d, (unsigned long long)(d) + (unsigned)(x) + emu_cf, false)

// Runs kernel f over grid x block with `smem` bytes of dynamic shared memory.
inline void emu_launch(emu_dim3 grid, unsigned block, size_t smem, const std::function<void()> &f) {
    gridDim = grid;
    blockDim = {block, 1, 1};
    std::vector<uint4> sm((smem + 15) / 16);  // 16-byte aligned like the device's
    for (unsigned by = 0; by < std::max(1u, grid.y); by++)
        for (unsigned bx = 0; bx < grid.x; bx++) {
            std::memset(sm.data(), 0xa5, sm.size() * sizeof(uint4));  // poison
            emu_smem = (unsigned *)sm.data();
            emu_block_bar = std::make_unique<std::barrier<>>(block);
            emu_warps.clear();
            emu_warps.resize(block / 32);
            for (auto &w : emu_warps) w.bar = std::make_unique<std::barrier<>>(32);
            std::vector<std::thread> th;
            for (unsigned t = 0; t < block; t++)
                th.emplace_back([&, t, bx, by] {
                    threadIdx = {t, 0, 0};
                    blockIdx = {bx, by, 0};
                    f();
                });
            for (auto &x : th) x.join();
        }
}
