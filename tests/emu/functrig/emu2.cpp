// Host emulation of float_func2 (src/kernels/float_func_trig.cuh, via
// float_func.cu): the same per-element code (ff_eval2) compiled with g++,
// driven by tests/float_func_cuda_trig.rs (MPARRAY_FUNC_EMU2=path/to/emu2).
// Job on stdin, u64 little-endian: fn rnd p n nx ny K len two ncs, then
// cs[ncs], xh[len], xl[len*nx], yh[len], yl[len*ny]; answer: rh[len],
// rl[len*n], tern[len] (i64 each), then when two: rh2, rl2, tern2 alike;
// then nu, undecided[nu], nh, host[nh] (float_func.cu's ff_kind after
// ff_merge2; rnd >> 8 is the test-only force).
// Build: g++ -O2 -o emu2 emu2.cpp (-fsanitize=address,undefined to check
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
static int run(u32 fn, FlOut &o, i8 &t, FlOut &o2, i8 &t2, u64 xh, const u64 *xm, u32 nx,
               u64 yh, const u64 *ym, u32 ny, u64 p, u32 rnd, const u64 *cs) {
    return ff_eval2<K>(fn, o, t, o2, t2, xh, xm, nx, yh, ym, ny, p, rnd, cs);
}

int main() {
    std::vector<u64> h = rd(10);
    u32 fn = h[0], rnd = h[1] & 0xff, force = h[1] >> 8, n = h[3], nx = h[4], ny = h[5], K = h[6];
    u64 p = h[2], len = h[7], two = h[8], ncs = h[9];
    auto cs = rd(ncs), xh = rd(len), xl = rd(len * nx), yh = rd(len), yl = rd(len * ny);
    std::vector<u64> rh(len), rl(len * n + 1), rh2(len), rl2(len * n + 1), und, host;
    std::vector<i64> tn(len), tn2(len);
    for (u64 i = 0; i < len; i++) {
        FlOut o = {rl.data() + i * n, n, 0};
        FlOut o2 = {rl2.data() + i * n, n, 0};
        i8 t = 0, t2 = 0;
        int st;
        const u64 *xm = xl.data() + i * nx, *ym = yl.data() + i * ny;
        switch (K) {
#define F(N)                                                                                   \
    case N: st = run<N>(fn, o, t, o2, t2, xh[i], xm, nx, yh[i], ym, ny, p, rnd, cs.data()); break;
            F(3) F(4) F(5) F(6) F(7) F(8) F(9) F(10) F(12) F(14) F(16) F(18) F(20) F(24) F(28)
            F(34)
#undef F
        default: exit(4);
        }
        ff_merge2(st, o, o2, two);
        u32 kind = ff_kind(st, o.head, force, i);
        if (kind == 2) und.push_back(i);
        if (kind == 1) host.push_back(i);
        if (st) {
            o.head = o2.head = 0;
            t = t2 = 0;
            for (u32 l = 0; l < n; l++) o.m[l] = o2.m[l] = 0;
        }
        rh[i] = o.head;
        tn[i] = t;
        rh2[i] = o2.head;
        tn2[i] = t2;
    }
    fwrite(rh.data(), 8, len, stdout);
    fwrite(rl.data(), 8, len * n, stdout);
    fwrite(tn.data(), 8, len, stdout);
    if (two) {
        fwrite(rh2.data(), 8, len, stdout);
        fwrite(rl2.data(), 8, len * n, stdout);
        fwrite(tn2.data(), 8, len, stdout);
    }
    for (auto *v : {&und, &host}) {
        u64 nf = v->size();
        fwrite(&nf, 8, 1, stdout);
        if (nf) fwrite(v->data(), 8, nf, stdout);
    }
    return 0;
}
