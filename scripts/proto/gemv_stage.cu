// Prototype: how fast can a gemv products kernel stage A (1024 x 1024
// elements of 512 bits: 64-byte mantissas and 8-byte heads, row-major)
// into shared memory? blas_gmm stages 64 rows x 4 elements per stage (a
// 256-byte run per row) by 16-byte cp.async, 3 stages, 2 blocks of 4 warps
// per SM beside x's forms (43 KB); copies alone measured 40 us (1.9 TB/s)
// in the gemv_mma prototype against 3.1-3.2 TB/s for one plain read of A.
// This program times the staging alone, and with a dependent chain of
// integer work per element standing in for the products, over the shapes a
// redesign could take: rows per block, elements per stage (the run per row
// is 64 elements' bytes), stages, x's forms held (shared memory, and with it
// blocks per SM), 16-byte cp.async against one bulk copy (cp.async.bulk,
// the copy engine) per row and stage, and the same stages read from one
// contiguous range per block (no row runs: the access pattern's cost).
// notes/blas-cuda.md, "GEMV: staging A, the questions for the device".
//
// Each configuration: the median of 21 timed launches (CUDA events),
// alternating between two copies of A so that L2 holds neither; every
// stage's words are read back from shared memory and XORed into one word
// per block, compared with the host's XOR of the same words after the
// first two launches (a wrong or missing copy fails the line: the two
// copies of A differ, so a block that wrote nothing keeps the other
// copy's word).
//
// Build: nvcc -O3 -arch=sm_90 gemv_stage.cu -o gemv_stage
#include "proto.cuh"

static const int M = 1024, K = 1024;

// Modes: how a stage is copied.
enum { ROWS_CP16 = 0, ROWS_BULK = 1, FLAT_CP16 = 2, FLAT_BULK = 3 };

struct Cfg {
    const char *name;
    int rows;  // rows per block (16 per warp in a products kernel)
    int me;    // elements per row and stage
    int st;    // stages in the ring
    int S;     // positions per block (the slice)
    int xs;    // bytes of x's forms held in shared memory (copied in first)
    int mode;
    int thr;   // threads per block
    int work;  // dependent IMADs per element and thread after each stage
};

struct Args {
    const u64 *ah;  // heads, M x K
    const u64 *al;  // mantissas, M x K x 8
    const uint4 *xf;  // x's forms (xs bytes per slice, read from L2)
    Cfg c;
    u32 *out;  // one word per block
};

__device__ __forceinline__ void cp16(u32 d, const void *src) {
    asm volatile("cp.async.cg.shared.global [%0], [%1], 16;\n" ::"r"(d), "l"(src) : "memory");
}
__device__ __forceinline__ void cp8(u32 d, const void *src) {
    asm volatile("cp.async.ca.shared.global [%0], [%1], 8;\n" ::"r"(d), "l"(src) : "memory");
}
__device__ __forceinline__ void cp_commit() { asm volatile("cp.async.commit_group;\n" ::: "memory"); }
__device__ __forceinline__ void cp_wait_le(int n) {
    // wait_group takes an immediate: the ring's depth is a run-time value here.
    switch (n) {
    case 0: asm volatile("cp.async.wait_group 0;\n" ::: "memory"); break;
    case 1: asm volatile("cp.async.wait_group 1;\n" ::: "memory"); break;
    case 2: asm volatile("cp.async.wait_group 2;\n" ::: "memory"); break;
    case 3: asm volatile("cp.async.wait_group 3;\n" ::: "memory"); break;
    case 4: asm volatile("cp.async.wait_group 4;\n" ::: "memory"); break;
    case 5: asm volatile("cp.async.wait_group 5;\n" ::: "memory"); break;
    case 6: asm volatile("cp.async.wait_group 6;\n" ::: "memory"); break;
    default: asm volatile("cp.async.wait_group 7;\n" ::: "memory"); break;
    }
}
__device__ __forceinline__ void bar_init(u32 bar, u32 count) {
    asm volatile("mbarrier.init.shared::cta.b64 [%0], %1;\n" ::"r"(bar), "r"(count) : "memory");
}
__device__ __forceinline__ void bar_expect(u32 bar, u32 bytes) {
    asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;\n" ::"r"(bar), "r"(bytes)
                 : "memory");
}
__device__ __forceinline__ void bar_wait(u32 bar, u32 parity) {
    u32 ok = 0;
    while (!ok) {
        asm volatile(
            "{\n.reg .pred p;\nmbarrier.try_wait.parity.shared::cta.b64 p, [%1], %2;\n"
            "selp.u32 %0, 1, 0, p;\n}\n"
            : "=r"(ok)
            : "r"(bar), "r"(parity)
            : "memory");
    }
}
__device__ __forceinline__ void bulk(u32 d, const void *src, u32 bytes, u32 bar) {
    asm volatile(
        "cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes [%0], [%1], %2, [%3];\n" ::"r"(d),
        "l"(src), "r"(bytes), "r"(bar)
        : "memory");
}

// Shared memory: x's forms (xs bytes), ST mbarriers, ST stages of rows x me
// mantissas (64 B each) then ST x rows x me heads (8 B each).
__global__ void __launch_bounds__(256) stage_k(Args a) {
    extern __shared__ __align__(128) unsigned char sm[];
    const Cfg c = a.c;
    const int t = threadIdx.x, T = blockDim.x;
    const int xs = c.xs;
    u64 *bars = (u64 *)(sm + xs);
    unsigned char *SA = sm + xs + 8 * 8;
    const int sa = c.rows * c.me * 64, sh = c.rows * c.me * 8;
    unsigned char *SH = SA + (size_t)c.st * sa;
    const u64 row0 = (u64)blockIdx.x * c.rows, k0 = (u64)blockIdx.y * c.S;
    const u64 bid = (u64)blockIdx.y * gridDim.x + blockIdx.x;
    const int NS = c.S / c.me;
    const bool bulkm = c.mode == ROWS_BULK || c.mode == FLAT_BULK;
    const bool flat = c.mode == FLAT_CP16 || c.mode == FLAT_BULK;
    u32 acc = 0;
    // x's forms of the slice, as blas_gmm holds them (ordinary loads).
    for (int i = t; i < xs / 16; i += T) ((uint4 *)sm)[i] = a.xf[(size_t)blockIdx.y * (xs / 16) + i];
    if (bulkm && t == 0)
        for (int s = 0; s < c.st; s++)
            bar_init((u32)__cvta_generic_to_shared(bars + s), flat ? 1 : (u32)c.rows);
    asm volatile("fence.mbarrier_init.release.cluster;\n" ::: "memory");
    __syncthreads();
    auto issue = [&](int s) {
        const int buf = s % c.st;
        const u64 kg = k0 + (u64)s * c.me;
        const u32 dA = (u32)__cvta_generic_to_shared(SA + (size_t)buf * sa);
        const u32 dH = (u32)__cvta_generic_to_shared(SH + (size_t)buf * sh);
        const u32 bar = (u32)__cvta_generic_to_shared(bars + buf);
        if (!flat) {
            if (bulkm) {
                // One thread per row: the row's run of mantissas and of heads.
                for (int r = t; r < c.rows; r += T) {
                    const u64 row = row0 + r;
                    bar_expect(bar, (u32)(c.me * 72));
                    bulk(dA + r * c.me * 64, a.al + (row * K + kg) * 8, (u32)(c.me * 64), bar);
                    bulk(dH + r * c.me * 8, a.ah + row * K + kg, (u32)(c.me * 8), bar);
                }
            } else {
                for (int q = t; q < c.rows * c.me * 4; q += T) {
                    const int r = q / (c.me * 4), w = q % (c.me * 4);
                    cp16(dA + 16 * q, a.al + ((row0 + r) * K + kg) * 8 + 2 * w);
                }
                for (int q = t; q < c.rows * c.me; q += T) {
                    const int r = q / c.me, w = q % c.me;
                    cp8(dH + 8 * q, a.ah + (row0 + r) * K + kg + w);
                }
            }
        } else {
            // The same bytes per stage from one contiguous range per block.
            const u64 *srcA = a.al + (bid * NS + s) * (u64)(sa / 8);
            const u64 *srcH = a.ah + (bid * NS + s) * (u64)(sh / 8);
            if (bulkm) {
                if (t == 0) {
                    bar_expect(bar, (u32)(sa + sh));
                    bulk(dA, srcA, (u32)sa, bar);
                    bulk(dH, srcH, (u32)sh, bar);
                }
            } else {
                for (int q = t; q < sa / 16; q += T) cp16(dA + 16 * q, srcA + 2 * q);
                for (int q = t; q < sh / 8; q += T) cp8(dH + 8 * q, srcH + q);
            }
        }
    };
    for (int s = 0; s < c.st - 1 && s < NS; s++) {
        issue(s);
        cp_commit();
    }
    for (int s = 0; s < NS; s++) {
        const int buf = s % c.st;
        if (bulkm)
            bar_wait((u32)__cvta_generic_to_shared(bars + buf), (u32)((s / c.st) & 1));
        else
            cp_wait_le(c.st - 2);
        __syncthreads();
        if (s + c.st - 1 < NS) issue(s + c.st - 1);
        cp_commit();
        const u32 *w = (const u32 *)(SA + (size_t)buf * sa);
        const u32 *h = (const u32 *)(SH + (size_t)buf * sh);
        for (int i = t; i < sa / 4; i += T) acc ^= w[i];
        for (int i = t; i < sh / 4; i += T) acc ^= h[i];
        // Work standing in for the products: a dependent chain per element.
        u32 v = acc | 1u;
        for (int e = 0; e < c.me * c.work; e++) v = v * 2654435761u + (u32)e;
        if (v == 0x9e3779b9u) a.out[4095] = v;  // keeps the chain (not a checked word)
    }
    // x's forms once, so that their copy is not dead.
    if (t == 0 && xs) acc ^= ((const u32 *)sm)[0];
    for (int o = 16; o > 0; o >>= 1) acc ^= __shfl_xor_sync(0xffffffffu, acc, o);
    __shared__ u32 s_acc;
    if (t == 0) s_acc = 0;
    __syncthreads();
    if ((t & 31) == 0) atomicXor(&s_acc, acc);
    __syncthreads();
    if (t == 0) a.out[bid] = s_acc;
}

// One plain read of A (the floor for these bytes): 4 uint4 loads in flight.
__global__ void __launch_bounds__(512) readall(const uint4 *p, size_t n, u32 *out) {
    u32 acc = 0;
    const size_t T = (size_t)gridDim.x * blockDim.x;
    size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    for (; i + 3 * T < n; i += 4 * T) {
        uint4 v0 = p[i], v1 = p[i + T], v2 = p[i + 2 * T], v3 = p[i + 3 * T];
        acc ^= v0.x ^ v0.y ^ v0.z ^ v0.w ^ v1.x ^ v1.y ^ v1.z ^ v1.w;
        acc ^= v2.x ^ v2.y ^ v2.z ^ v2.w ^ v3.x ^ v3.y ^ v3.z ^ v3.w;
    }
    for (; i < n; i += T) acc ^= p[i].x ^ p[i].y ^ p[i].z ^ p[i].w;
    if (acc == 0x12345678u) out[0] = acc;
}

struct Set {
    std::vector<u64> h, l;
    u64 *dh = nullptr, *dl = nullptr;
};

// The host's XOR of what block (bx, by) reads under cfg c.
static u32 expect(const Set &S, const std::vector<uint4> &xf, const Cfg &c, int bx, int by, int gx) {
    u32 acc = 0;
    const int NS = c.S / c.me;
    const u64 bid = (u64)by * gx + bx;
    const size_t sa = (size_t)c.rows * c.me * 8, sh = (size_t)c.rows * c.me;
    for (int s = 0; s < NS; s++) {
        if (c.mode == FLAT_CP16 || c.mode == FLAT_BULK) {
            for (size_t i = 0; i < sa; i++) acc ^= (u32)S.l[(bid * NS + s) * sa + i] ^ (u32)(S.l[(bid * NS + s) * sa + i] >> 32);
            for (size_t i = 0; i < sh; i++) acc ^= (u32)S.h[(bid * NS + s) * sh + i] ^ (u32)(S.h[(bid * NS + s) * sh + i] >> 32);
        } else {
            for (int r = 0; r < c.rows; r++)
                for (int e = 0; e < c.me; e++) {
                    const size_t row = (size_t)bx * c.rows + r, k = (size_t)by * c.S + (size_t)s * c.me + e;
                    for (int j = 0; j < 8; j++) {
                        const u64 v = S.l[(row * K + k) * 8 + j];
                        acc ^= (u32)v ^ (u32)(v >> 32);
                    }
                    const u64 v = S.h[row * K + k];
                    acc ^= (u32)v ^ (u32)(v >> 32);
                }
        }
    }
    if (c.xs) acc ^= xf[(size_t)by * (c.xs / 16)].x;
    return acc;
}

static void run(const Cfg &c, Set *sets, const uint4 *dxf, const std::vector<uint4> &xf, u32 *dout,
                int reps) {
    const int gx = M / c.rows, gy = K / c.S;
    const size_t smem = (size_t)c.xs + 64 + (size_t)c.st * c.rows * c.me * 72;
    if (smem > 227 * 1024 || c.st > 8 || c.S % c.me || M % c.rows || K % c.S) {
        printf("%-28s skipped (shared memory %zu B or shape)\n", c.name, smem);
        return;
    }
    CK(cudaFuncSetAttribute(stage_k, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)smem));
    int per = 0;
    CK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per, stage_k, c.thr, smem));
    bool ok = true;
    const float md = time_median(
        reps,
        [&](int r) {
            const Set &S = sets[r & 1];
            Args a{S.dh, S.dl, dxf, c, dout};
            stage_k<<<dim3(gx, gy), c.thr, smem>>>(a);
        },
        [&](int r) {
            if (r >= 2 || !ok) return;
            // Every block's word against the host (both sets).
            const Set &S = sets[r & 1];
            std::vector<u32> o((size_t)gx * gy);
            CK(cudaMemcpy(o.data(), dout, o.size() * 4, cudaMemcpyDeviceToHost));
            for (int by = 0; by < gy && ok; by++)
                for (int bx = 0; bx < gx && ok; bx++)
                    if (o[(size_t)by * gx + bx] != expect(S, xf, c, bx, by, gx)) {
                        printf("%-28s WRONG at block (%d, %d)\n", c.name, bx, by);
                        ok = false;
                    }
        });
    const double bytes = (double)M * K * 72;
    const double inflight = (double)(c.st - 1) * c.rows * c.me * 72 * per / 1024.0;
    printf("%-28s rows %3d me %2d st %d S %4d xs %5d thr %3d work %3d | %d/SM, %5.0f KB in flight/SM | "
           "%6.1f us %5.2f TB/s %s\n",
           c.name, c.rows, c.me, c.st, c.S, c.xs, c.thr, c.work, per, inflight, md, bytes / (md * 1e-6) / 1e12,
           ok ? "ok" : "WRONG");
    fflush(stdout);
}

int main(int argc, char **argv) {
    const int reps = argc > 1 ? atoi(argv[1]) : 21;
    const int only = argc > 2 ? atoi(argv[2]) : -1;
    cudaDeviceProp pr;
    CK(cudaGetDeviceProperties(&pr, 0));
    printf("device %s, %d SMs, L2 %d MB, smem/block optin %zu\n", pr.name, pr.multiProcessorCount,
           pr.l2CacheSize >> 20, (size_t)pr.sharedMemPerBlockOptin);
    Set sets[2];
    for (auto &S : sets) {
        S.h.resize((size_t)M * K);
        S.l.resize((size_t)M * K * 8);
        for (auto &v : S.h) v = rnd();
        for (auto &v : S.l) v = rnd();
        CK(cudaMalloc(&S.dh, S.h.size() * 8));
        CK(cudaMalloc(&S.dl, S.l.size() * 8));
        CK(cudaMemcpy(S.dh, S.h.data(), S.h.size() * 8, cudaMemcpyHostToDevice));
        CK(cudaMemcpy(S.dl, S.l.data(), S.l.size() * 8, cudaMemcpyHostToDevice));
    }
    // x's forms: up to 48 KB per slice, for up to 64 slices.
    std::vector<uint4> xf((size_t)64 * 3072);
    for (auto &v : xf) v = make_uint4((u32)rnd(), (u32)rnd(), (u32)rnd(), (u32)rnd());
    uint4 *dxf;
    CK(cudaMalloc(&dxf, xf.size() * 16));
    CK(cudaMemcpy(dxf, xf.data(), xf.size() * 16, cudaMemcpyHostToDevice));
    u32 *dout;
    CK(cudaMalloc(&dout, 1 << 20));
    {
        const float md = time_median(
            reps,
            [&](int r) {
                const Set &S = sets[r & 1];
                readall<<<pr.multiProcessorCount * 4, 512>>>((const uint4 *)S.dl, S.l.size() / 2, dout);
                readall<<<pr.multiProcessorCount * 4, 512>>>((const uint4 *)S.dh, S.h.size() / 2, dout);
            },
            [](int) {});
        printf("%-28s %6.1f us %5.2f TB/s\n", "plain read of A (2 launches)", md,
               (double)M * K * 72 / (md * 1e-6) / 1e12);
    }
    // xs: blas_gmm holds 64 positions x 608 B of x's shifted copies plus
    // 4.6 KB of XT (43.5 KB); per 32 positions about half.
    const int X64 = 44544, X32 = 22272;
    const Cfg cfgs[] = {
        // blas_gmm as it is, copies alone, then with work.
        {"gmm as is", 64, 4, 3, 64, X64, ROWS_CP16, 128, 0},
        {"gmm as is, bulk", 64, 4, 3, 64, X64, ROWS_BULK, 128, 0},
        {"gmm as is, flat", 64, 4, 3, 64, X64, FLAT_CP16, 128, 0},
        {"gmm as is, flat bulk", 64, 4, 3, 64, X64, FLAT_BULK, 128, 0},
        // Deeper rings and longer runs at 2 blocks per SM.
        {"st 2", 64, 4, 2, 64, X64, ROWS_CP16, 128, 0},
        {"st 4 (1/SM)", 64, 4, 4, 64, X64, ROWS_CP16, 128, 0},
        {"me 8 st 2 S 32", 64, 8, 2, 32, X32, ROWS_CP16, 128, 0},
        {"me 8 st 2 S 32 bulk", 64, 8, 2, 32, X32, ROWS_BULK, 128, 0},
        {"me 4 st 4 S 32", 64, 4, 4, 32, X32, ROWS_CP16, 128, 0},
        {"me 4 st 4 S 32 bulk", 64, 4, 4, 32, X32, ROWS_BULK, 128, 0},
        {"me 2 st 8 S 32 bulk", 64, 2, 8, 32, X32, ROWS_BULK, 128, 0},
        {"me 16 st 2 S 64 r32 bulk", 32, 16, 2, 64, X64, ROWS_BULK, 64, 0},
        {"me 8 st 3 S 64 r32", 32, 8, 3, 64, X64, ROWS_CP16, 64, 0},
        {"me 8 st 3 S 64 r32 bulk", 32, 8, 3, 64, X64, ROWS_BULK, 64, 0},
        {"no x held, st 6", 64, 4, 6, 64, 0, ROWS_CP16, 128, 0},
        {"no x held, st 6 bulk", 64, 4, 6, 64, 0, ROWS_BULK, 128, 0},
        {"no x held, me 8 st 3 bulk", 64, 8, 3, 64, 0, ROWS_BULK, 128, 0},
        {"8 warps r128 st 3", 128, 4, 3, 64, X64, ROWS_CP16, 256, 0},
        {"8 warps r128 st 3 bulk", 128, 4, 3, 64, X64, ROWS_BULK, 256, 0},
        // With work standing in for the products (64 dependent IMADs per
        // element and thread: about 300 clocks of latency per element).
        {"gmm as is +work", 64, 4, 3, 64, X64, ROWS_CP16, 128, 64},
        {"gmm as is, bulk +work", 64, 4, 3, 64, X64, ROWS_BULK, 128, 64},
        {"me 8 st 2 S 32 bulk +work", 64, 8, 2, 32, X32, ROWS_BULK, 128, 64},
        {"me 4 st 4 S 32 bulk +work", 64, 4, 4, 32, X32, ROWS_BULK, 128, 64},
        {"no x, st 6 bulk +work", 64, 4, 6, 64, 0, ROWS_BULK, 128, 64},
        {"8 warps r128 bulk +work", 128, 4, 3, 64, X64, ROWS_BULK, 256, 64},
    };
    const int n = (int)(sizeof(cfgs) / sizeof(cfgs[0]));
    for (int i = 0; i < n; i++)
        if (only < 0 || only == i) run(cfgs[i], sets, dxf, xf, dout, reps);
    return 0;
}
