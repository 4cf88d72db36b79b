// A small CPU emulator of the CUDA features int_div.cu uses, to check the
// kernels' logic without a GPU: every CUDA thread is a user-level context
// (ucontext); __syncthreads and the warp intrinsics are rendezvous points
// (with their masks honoured); blocks run one after another, so __shared__
// is plain static storage. Integer semantics follow CUDA's.
#pragma once
#include <ucontext.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <vector>

#define DIV_EMU 1
#define __global__
#define __device__
#define __host__
#define __forceinline__ inline
#define __launch_bounds__(...)
#define __shared__ static
#define __constant__ static

struct EmuDim {
    unsigned x = 1, y = 1, z = 1;
};
inline EmuDim threadIdx, blockIdx, blockDim, gridDim;

template <class T> inline T min(T a, T b) { return a < b ? a : b; }
template <class T> inline T max(T a, T b) { return a > b ? a : b; }
inline unsigned long long __umul64hi(unsigned long long a, unsigned long long b) {
    return (unsigned long long)(((unsigned __int128)a * b) >> 64);
}
inline int __clz(unsigned x) { return x ? __builtin_clz(x) : 32; }
inline int __clzll(unsigned long long x) { return x ? __builtin_clzll(x) : 64; }
inline int __popc(unsigned x) { return __builtin_popcount(x); }
inline int __ffs(unsigned x) { return __builtin_ffs(x); }
inline unsigned long long atomicAdd(unsigned long long *p, unsigned long long v) {
    auto o = *p;
    *p = o + v;
    return o;
}
inline unsigned __umulhi(unsigned a, unsigned b) { return (unsigned)(((unsigned long long)a * b) >> 32); }
inline unsigned long long atomicMin(unsigned long long *p, unsigned long long v) {
    auto o = *p;
    if (v < o) *p = v;
    return o;
}
inline unsigned long long atomicMax(unsigned long long *p, unsigned long long v) {
    auto o = *p;
    if (v > o) *p = v;
    return o;
}

// ---- scheduler ----
enum EmuOp { OP_NONE, OP_BAR, OP_SHFL, OP_UP, OP_DOWN, OP_BALLOT, OP_MATCH };
struct EmuThread {
    ucontext_t ctx;
    unsigned tid;
    bool done = false, waiting = false;
    EmuOp op = OP_NONE;
    unsigned mask = 0, arg = 0, width = 32;
    unsigned long long val = 0, res = 0;
};
struct Emu {
    ucontext_t sched;
    std::vector<EmuThread> th;
    int cur = -1;
    std::function<void()> body;
    std::vector<unsigned long long> dyn;
    std::vector<char *> stacks; // reused across blocks, never zeroed
    unsigned long long switches = 0;
};
inline Emu emu;
inline void *emu_dynamic_smem() { return emu.dyn.data(); }

inline void emu_entry() {
    emu.body();
    emu.th[emu.cur].done = true;
    swapcontext(&emu.th[emu.cur].ctx, &emu.sched);
}

inline unsigned long long emu_wait(EmuOp op, unsigned mask, unsigned long long val, unsigned arg,
                                   unsigned width) {
    EmuThread &t = emu.th[emu.cur];
    t.op = op;
    t.mask = mask;
    t.val = val;
    t.arg = arg;
    t.width = width;
    t.waiting = true;
    emu.switches++;
    swapcontext(&t.ctx, &emu.sched);
    return emu.th[emu.cur].res;
}

[[noreturn]] inline void emu_fail(const char *what) {
    fprintf(stderr, "EMU ERROR: %s (block %u)\n", what, blockIdx.x);
    exit(3);
}

// Completes whatever rendezvous are complete; returns whether any was.
inline bool emu_progress() {
    int nt = (int)emu.th.size();
    bool any = false;
    // Block barrier: every live thread waits at one.
    {
        int live = 0, bar = 0;
        for (auto &t : emu.th)
            if (!t.done) {
                live++;
                if (t.waiting && t.op == OP_BAR) bar++;
            }
        if (live > 0 && bar == live) {
            for (auto &t : emu.th)
                if (!t.done) t.waiting = false;
            return true;
        }
        if (bar > 0) {
            for (auto &t : emu.th)
                if (t.done) emu_fail("__syncthreads with exited threads");
        }
    }
    for (int w = 0; w * 32 < nt; w++) {
        int base = w * 32;
        for (int l = 0; l < 32 && base + l < nt; l++) {
            EmuThread &t = emu.th[base + l];
            if (!t.waiting || t.op == OP_BAR) continue;
            unsigned m = t.mask;
            if (!(m >> l & 1)) emu_fail("lane not in its own mask");
            bool ready = true;
            for (int k = 0; k < 32; k++)
                if (m >> k & 1) {
                    if (base + k >= nt) emu_fail("mask names a missing lane");
                    EmuThread &o = emu.th[base + k];
                    if (o.done) emu_fail("mask names an exited lane");
                    if (!o.waiting || o.op == OP_BAR) {
                        ready = false;
                        break;
                    }
                    if (o.mask != m || o.op != t.op) { fprintf(stderr, "lane %d op %d mask %x vs lane %d op %d mask %x\n", l, t.op, m, k, o.op, o.mask); emu_fail("mismatched warp intrinsics"); }
                }
            if (!ready) continue;
            for (int k = 0; k < 32; k++)
                if (m >> k & 1) {
                    EmuThread &o = emu.th[base + k];
                    unsigned wd = o.width, seg = k & ~(wd - 1), src = k;
                    switch (o.op) {
                    case OP_SHFL: src = seg + (o.arg & (wd - 1)); break;
                    case OP_UP: src = (k - seg) >= o.arg ? k - o.arg : k; break;
                    case OP_DOWN: src = (k - seg) + o.arg < wd ? k + o.arg : k; break;
                    default: break;
                    }
                    if (o.op == OP_SHFL || o.op == OP_UP || o.op == OP_DOWN) {
                        if (!(m >> src & 1)) emu_fail("shuffle from a lane outside the mask");
                        o.res = emu.th[base + src].val;
                    } else if (o.op == OP_BALLOT) {
                        unsigned r = 0;
                        for (int j = 0; j < 32; j++)
                            if ((m >> j & 1) && emu.th[base + j].val) r |= 1u << j;
                        o.res = r;
                    } else if (o.op == OP_MATCH) {
                        unsigned r = 0;
                        for (int j = 0; j < 32; j++)
                            if ((m >> j & 1) && emu.th[base + j].val == o.val) r |= 1u << j;
                        o.res = r;
                    }
                }
            for (int k = 0; k < 32; k++)
                if (m >> k & 1) emu.th[base + k].waiting = false;
            any = true;
        }
    }
    return any;
}

inline void emu_launch(unsigned grid, unsigned block, size_t dyn_bytes, std::function<void()> body) {
    emu.body = body;
    emu.dyn.assign((dyn_bytes + 7) / 8 + 1, 0x5a5a5a5a5a5a5a5aull);
    gridDim.x = grid;
    blockDim.x = block;
    const size_t STACK = 96 * 1024;
    while (emu.stacks.size() < block) emu.stacks.push_back(new char[STACK]);
    for (unsigned b = 0; b < grid; b++) {
        blockIdx.x = b;
        emu.th.assign(block, EmuThread());
        for (unsigned i = 0; i < block; i++) {
            EmuThread &t = emu.th[i];
            t.tid = i;
            getcontext(&t.ctx);
            t.ctx.uc_stack.ss_sp = emu.stacks[i];
            t.ctx.uc_stack.ss_size = STACK;
            t.ctx.uc_link = nullptr;
            makecontext(&t.ctx, emu_entry, 0);
        }
        for (;;) {
            bool ran = false;
            for (unsigned i = 0; i < block; i++) {
                EmuThread &t = emu.th[i];
                if (t.done || t.waiting) continue;
                emu.cur = (int)i;
                threadIdx.x = i;
                swapcontext(&emu.sched, &t.ctx);
                ran = true;
            }
            bool all_done = true;
            for (auto &t : emu.th) all_done &= t.done;
            if (all_done) break;
            if (!emu_progress() && !ran) emu_fail("deadlock");
        }
    }
}

// ---- intrinsics ----
inline void __syncthreads() { emu_wait(OP_BAR, 0, 0, 0, 32); }
template <class T> inline T __shfl_sync(unsigned m, T v, int src, int w = 32) {
    return (T)emu_wait(OP_SHFL, m, (unsigned long long)v, (unsigned)src, (unsigned)w);
}
template <class T> inline T __shfl_up_sync(unsigned m, T v, unsigned d, int w = 32) {
    return (T)emu_wait(OP_UP, m, (unsigned long long)v, d, (unsigned)w);
}
template <class T> inline T __shfl_down_sync(unsigned m, T v, unsigned d, int w = 32) {
    return (T)emu_wait(OP_DOWN, m, (unsigned long long)v, d, (unsigned)w);
}
inline void __syncwarp(unsigned m = 0xffffffffu) { emu_wait(OP_BALLOT, m, 0, 0, 32); }
inline unsigned __ballot_sync(unsigned m, int p) { return (unsigned)emu_wait(OP_BALLOT, m, p != 0, 0, 32); }
inline unsigned __match_any_sync(unsigned m, unsigned v) { return (unsigned)emu_wait(OP_MATCH, m, v, 0, 32); }
