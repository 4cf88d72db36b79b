// What the prototypes in this folder share: integer names, a CUDA call
// that exits with its error, a host random stream (xorshift64), a median,
// and the median time of a launch sequence by events. Each prototype is one .cu built by plain nvcc.
#pragma once
#include <cuda_runtime.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <algorithm>
#include <vector>

typedef uint32_t u32;
typedef uint64_t u64;

#define CK(x)                                                                              \
    do {                                                                                   \
        cudaError_t e_ = (x);                                                              \
        if (e_ != cudaSuccess) {                                                           \
            printf("CUDA error %s at %s:%d\n", cudaGetErrorString(e_), __FILE__, __LINE__); \
            exit(1);                                                                       \
        }                                                                                  \
    } while (0)

static u64 rs = 0x243f6a8885a308d3ull;
static inline u64 rnd() {
    rs ^= rs << 13;
    rs ^= rs >> 7;
    rs ^= rs << 17;
    return rs;
}

static inline float median(std::vector<float> v) {
    std::sort(v.begin(), v.end());
    return v[v.size() / 2];
}

// The median over reps runs (after 3 untimed ones) of the device time of
// what launch(r) queues, r the run's number; after(r) runs on the host once
// each run is finished (checks), untimed.
template <class Launch, class After>
static float time_median(int reps, Launch launch, After after) {
    cudaEvent_t e0, e1;
    CK(cudaEventCreate(&e0));
    CK(cudaEventCreate(&e1));
    std::vector<float> ts;
    for (int r = 0; r < reps + 3; r++) {
        CK(cudaEventRecord(e0));
        launch(r);
        CK(cudaEventRecord(e1));
        CK(cudaGetLastError());
        CK(cudaEventSynchronize(e1));
        float ms;
        CK(cudaEventElapsedTime(&ms, e0, e1));
        if (r >= 3) ts.push_back(ms * 1000);
        after(r);
    }
    CK(cudaEventDestroy(e0));
    CK(cudaEventDestroy(e1));
    return median(ts);
}
