// Host emulation of src/kernels/int_modular.cu (one thread, sequential) for
// checking the kernel's arithmetic without a GPU. Build:
//   g++ -O1 -DMOD_N=8 -o memu memu.cpp   (MOD_N = 2 * limbs)
// Reads lines "op a b m" (hex, op = powm|gcd|inv|to|from|mul) from stdin and
// prints one result line each (inv: "x flag").
#include <cstdio>
#include <cstdint>
#include <cstring>
#include <string>
#include <vector>
#include <iostream>
#include <sstream>
#define __device__
#define __forceinline__ inline
#define __global__
#define __launch_bounds__(x)
struct D3 { unsigned x = 0; };
static D3 threadIdx, blockIdx, blockDim, gridDim;
static inline unsigned __funnelshift_r(unsigned lo, unsigned hi, unsigned s) {
    s &= 31; return (unsigned)((((unsigned long long)hi << 32) | lo) >> s);
}
static inline unsigned __funnelshift_l(unsigned lo, unsigned hi, unsigned s) {
    s &= 31; return (unsigned)(((((unsigned long long)hi << 32) | lo) << s) >> 32);
}
static inline unsigned long long __umul64hi(unsigned long long a, unsigned long long b) { return (unsigned long long)(((unsigned __int128)a * b) >> 64); }
static inline int __ffs(unsigned x) { return x ? __builtin_ctz(x) + 1 : 0; }
static inline int __clz(unsigned x) { return x ? __builtin_clz(x) : 32; }
static inline int __clzll(unsigned long long x) { return x ? __builtin_clzll(x) : 64; }
static inline unsigned long long atomicMin(unsigned long long *p, unsigned long long v) {
    unsigned long long o = *p; if (v < o) *p = v; return o;
}
#include "../../../src/kernels/common.cuh"
#include "../../../src/kernels/int_modular.cu"

static const int L = MOD_N / 2;
static std::vector<u64> hex(const std::string &s) {
    std::vector<u64> v(L, 0);
    int n = s.size();
    for (int i = 0; i < n; i++) {
        char c = s[n - 1 - i];
        u64 d = c <= '9' ? c - '0' : (c | 32) - 'a' + 10;
        v[i / 16] |= d << (4 * (i % 16));
    }
    return v;
}
static void put(const u64 *x) {
    printf("0x");
    for (int i = L - 1; i >= 0; i--) printf("%016llx", (unsigned long long)x[i]);
}
int main() {
    blockDim.x = 1; gridDim.x = 1;
    std::string line;
    std::vector<u32> tab(16 * MOD_N);
    while (std::getline(std::cin, line)) {
        std::istringstream is(line);
        std::string op, a, b, m;
        is >> op >> a >> b >> m;
        auto A = hex(a), B = hex(b), M = hex(m);
        std::vector<u64> R(L);
        if (op == "powm") mod_powm(R.data(), A.data(), B.data(), 1, M.data(), 1, 1, tab.data());
        else if (op == "gcd") mod_gcd(R.data(), A.data(), B.data(), 1, 1);
        else if (op == "inv") {
            u8 f = 7;
            std::vector<int> scr(3 * IV_K, 0x5a5a5a5a);
            mod_inv(R.data(), &f, A.data(), M.data(), 1, 1, scr.data());
            put(R.data()); printf(" %d\n", f); continue;
        } else if (op == "to") mod_mont(R.data(), A.data(), B.data(), M.data(), 1, 1, 0);
        else if (op == "from") mod_mont(R.data(), A.data(), B.data(), M.data(), 1, 1, 1);
        else if (op == "mul") mod_mont(R.data(), A.data(), B.data(), M.data(), 1, 1, 2);
        put(R.data()); printf("\n");
    }
}
