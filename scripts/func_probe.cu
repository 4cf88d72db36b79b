// Timing probe for src/kernels/float_func.cu (built with nvcc on the GPU
// machine: nvcc -O3 -arch=sm_90 -I src/kernels -DFF_K=9 scripts/func_probe.cu). Reads
// tier 9's constants and 512-bit arguments dumped by the ignored test
// funcprobe_dump (dir in argv[1]); prints kernel-only times per function and
// block size, cycles of one element's phases (FF_PROBE hooks) and the
// latency of the product helpers on one warp.
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cuda_runtime.h>
#include <string>
#include <vector>

__device__ long long g_pr[64];
#define FF_PROBE(i)                                                                            \
    do {                                                                                       \
        if (blockIdx.x == 0 && threadIdx.x == 0) g_pr[i] = clock64();                          \
    } while (0)
#include "float_func.cu"

#define CK(x)                                                                                  \
    do {                                                                                       \
        cudaError_t e = (x);                                                                   \
        if (e != cudaSuccess) {                                                                \
            printf("CUDA %s at %d\n", cudaGetErrorString(e), __LINE__);                       \
            exit(1);                                                                           \
        }                                                                                      \
    } while (0)

static std::vector<u64> rdf(const std::string &p) {
    FILE *f = fopen(p.c_str(), "rb");
    if (!f) {
        printf("no %s\n", p.c_str());
        exit(2);
    }
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    std::vector<u64> v(n / 8);
    if (fread(v.data(), 8, v.size(), f) != v.size()) exit(2);
    fclose(f);
    return v;
}

template <int K>
__global__ void micro(u64 *out, const u64 *cs, long long *cyc, int what, int reps) {
    const u32 F = 64 * K - 4;
    u64 a[K], b[K], T[2 * K], r[K];
    u64 s = 0x9E3779B97F4A7C15ull * (threadIdx.x + 1);
    for (int i = 0; i < K; i++) {
        s ^= s << 13; s ^= s >> 7; s ^= s << 17;
        a[i] = s;
        s ^= s << 13; s ^= s >> 7; s ^= s << 17;
        b[i] = s;
    }
    a[K - 1] >>= 4;
    b[K - 1] >>= 4;
    long long t0 = clock64();
    for (int i = 0; i < reps; i++) {
        switch (what) {
        case 0: ff_mulsh<K>(r, a, b, F, T); ff_copy(a, r, K); a[K - 1] |= 1ull << 59; break;
        case 1: ff_divs(a, K, 2 * i + 3, ff_invtab(cs, K)); a[K - 1] |= 1ull << 59; break;
        case 2: ff_mul_full<K>(T, a, b); a[0] ^= T[K]; break;
        case 3: ff_mul1(r, K, a, K, b[0] >> 40); a[1] ^= r[K - 1]; break;
        case 4: ff_add(a, b, K); break;
        }
    }
    long long t1 = clock64();
    cyc[threadIdx.x] = t1 - t0;
    for (int i = 0; i < K; i++) out[threadIdx.x * K + i] = a[i];
}

int main(int argc, char **argv) {
    std::string dir = argc > 1 ? argv[1] : ".";
    auto cs = rdf(dir + "/cs9.bin");
    const u32 K = 9, nx = 8, n = 8;
    const u64 p = 512;
    u64 *dcs;
    CK(cudaMalloc(&dcs, cs.size() * 8));
    CK(cudaMemcpy(dcs, cs.data(), cs.size() * 8, cudaMemcpyHostToDevice));
    const char *names[5] = {"exp", "log", "sin", "cos", "atan"};
    u32 codes[5] = {FF_EXP, FF_LOG, FF_SIN, FF_COS, FF_ATAN};
    const u64 big = 1 << 20;
    u64 *xh, *xl, *rh, *rl;
    i8 *tern;
    u32 *nflag, *flags;
    CK(cudaMalloc(&xh, big * 8));
    CK(cudaMalloc(&xl, big * nx * 8));
    CK(cudaMalloc(&rh, big * 8));
    CK(cudaMalloc(&rl, big * n * 8));
    CK(cudaMalloc(&tern, big));
    CK(cudaMalloc(&nflag, 8));
    CK(cudaMalloc(&flags, big * 4));
    cudaEvent_t e0, e1;
    CK(cudaEventCreate(&e0));
    CK(cudaEventCreate(&e1));
    // Tier 9 with 8-limb inputs serves exp, sin, cos (log and atan need 10).
    for (int fi : {0, 2, 3}) {
        auto h = rdf(dir + "/" + names[fi] + ".h");
        auto l = rdf(dir + "/" + names[fi] + ".l");
        for (u64 c = 0; c < big / 4096; c++) {
            CK(cudaMemcpy(xh + c * 4096, h.data(), 4096 * 8, cudaMemcpyHostToDevice));
            CK(cudaMemcpy(xl + c * 4096 * nx, l.data(), 4096 * nx * 8, cudaMemcpyHostToDevice));
        }
        struct Cfg { u64 len; u32 block; };
        Cfg cfgs[4] = {{4096, 32}, {4096, 64}, {4096, 128}, {big, 128}};
        for (auto cf : cfgs) {
            u32 blocks = (u32)std::min<u64>((cf.len + cf.block - 1) / cf.block, 132 * 64);
            std::vector<float> ts;
            for (int rep = 0; rep < 12; rep++) {
                CK(cudaMemset(nflag, 0, 8));
                CK(cudaEventRecord(e0));
                float_func<<<blocks, cf.block>>>(rh, rl, tern, xh, xl, cf.len, codes[fi], 0, p, n,
                                                 nx, dcs, nflag, flags);
                CK(cudaEventRecord(e1));
                CK(cudaEventSynchronize(e1));
                CK(cudaGetLastError());
                float ms;
                CK(cudaEventElapsedTime(&ms, e0, e1));
                if (rep >= 2) ts.push_back(ms);
            }
            std::sort(ts.begin(), ts.end());
            u32 nf2[2];
            CK(cudaMemcpy(nf2, nflag, 8, cudaMemcpyDeviceToHost));
            u32 nf = nf2[0] + nf2[1];
            printf("KERNEL %-5s len %7llu block %3u: %8.4f ms  %8.3f M/s  (flagged %u)\n",
                   names[fi], cf.len, cf.block, ts[ts.size() / 2],
                   cf.len / (ts[ts.size() / 2] * 1e3), nf);
        }
        // Phases of element 0 (block 32, 4096).
        long long z[64] = {0};
        CK(cudaMemcpyToSymbol(g_pr, z, sizeof z));
        CK(cudaMemset(nflag, 0, 8));
        float_func<<<128, 32>>>(rh, rl, tern, xh, xl, 4096, codes[fi], 0, p, n, nx, dcs, nflag,
                                flags);
        CK(cudaDeviceSynchronize());
        CK(cudaMemcpyFromSymbol(z, g_pr, sizeof z));
        printf("PHASES %-5s:", names[fi]);
        for (int i = 0; i < 40; i++)
            if (z[i]) printf(" %d:%lld", i, z[i] - z[30]);
        printf("\n");
    }
    // Helper latencies on one warp.
    const char *mn[5] = {"mulsh", "divs", "mul_full", "mul1", "add"};
    u64 *mo;
    long long *cyc;
    CK(cudaMalloc(&mo, 32 * K * 8));
    CK(cudaMalloc(&cyc, 32 * 8));
    for (int w = 0; w < 5; w++) {
        micro<9><<<1, 32>>>(mo, dcs, cyc, w, 4);
        CK(cudaDeviceSynchronize());
        micro<9><<<1, 32>>>(mo, dcs, cyc, w, 256);
        CK(cudaDeviceSynchronize());
        long long c;
        CK(cudaMemcpy(&c, cyc, 8, cudaMemcpyDeviceToHost));
        printf("MICRO K=9 %-8s %8.1f cycles/op (one warp)\n", mn[w], c / 256.0);
    }
    int clk;
    CK(cudaDeviceGetAttribute(&clk, cudaDevAttrClockRate, 0));
    printf("clock %d kHz\n", clk);
    return 0;
}
