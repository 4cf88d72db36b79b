// Host emulation of src/kernels/float_func.cu: the same per-element code
// (ff_eval) compiled with g++, driven by tests/float_func_cuda.rs
// (MPARRAY_FUNC_EMU=path/to/emu). Job on stdin, u64 little-endian:
// fn rnd p n nx K len ncs, then cs[ncs], xh[len], xl[len*nx]; answer:
// rh[len], rl[len*n], tern[len] (i64 each), nu, undecided[nu], nh,
// host[nh] (float_func.cu's ff_kind; rnd >> 8 is the test-only force).
// Build: g++ -O2 -o emu emu.cpp (-fsanitize=address,undefined to check
// the buffer sizes).
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <vector>
typedef unsigned long long u64;
typedef unsigned int u32;
typedef long long i64;
typedef unsigned char u8;
#include "../../../src/kernels/float_func.cu"

static std::vector<u64> rd(size_t n) {
    std::vector<u64> v(n ? n : 1);
    if (n && fread(v.data(), 8, n, stdin) != n) exit(3);
    return v;
}

template <int K>
static int run(u32 fn, FlOut &o, i8 &t, u64 xh, const u64 *xm, u32 nx, u64 p, u32 rnd,
               const u64 *cs) {
    return ff_eval<K>(fn, o, t, xh, xm, nx, p, rnd, cs);
}

int main() {
    std::vector<u64> h = rd(8);
    u32 fn = h[0], rnd = h[1] & 0xff, force = h[1] >> 8, n = h[3], nx = h[4], K = h[5];
    u64 p = h[2], len = h[6], ncs = h[7];
    auto cs = rd(ncs), xh = rd(len), xl = rd(len * nx);
    std::vector<u64> rh(len), rl(len * n + 1), und, host;
    std::vector<i64> tn(len);
    for (u64 i = 0; i < len; i++) {
        FlOut o = {rl.data() + i * n, n, 0};
        i8 t = 0;
        int st;
        const u64 *xm = xl.data() + i * nx;
        switch (K) {
#define F(N)                                                                                   \
    case N: st = run<N>(fn, o, t, xh[i], xm, nx, p, rnd, cs.data()); break;
            F(2) F(3) F(4) F(5) F(6) F(7) F(8) F(9) F(10) F(12) F(14) F(16) F(18) F(20) F(24)
            F(28) F(34)
#undef F
        default: exit(4);
        }
        u32 kind = ff_kind(st, o.head, force, i);
        if (kind == 2) und.push_back(i);
        if (kind == 1) host.push_back(i);
        if (st) {
            o.head = 0;
            t = 0;
            for (u32 l = 0; l < n; l++) o.m[l] = 0;
        }
        rh[i] = o.head;
        tn[i] = t;
    }
    fwrite(rh.data(), 8, len, stdout);
    fwrite(rl.data(), 8, len * n, stdout);
    fwrite(tn.data(), 8, len, stdout);
    for (auto *v : {&und, &host}) {
        u64 nf = v->size();
        fwrite(&nf, 8, 1, stdout);
        if (nf) fwrite(v->data(), 8, nf, stdout);
    }
    return 0;
}
