// Host emulation of float_cfunc (src/kernels/float_cfunc.cu, with
// float_func.cu): the same per-element code (cf_eval) compiled with g++,
// driven by src/complex/cuda_func.rs's `func_emulated` (tests/
// complex_cuda_func.rs; MPARRAY_CFUNC_EMU=path/to/emu names a built one).
// Job on stdin, u64 little-endian: fn rnd pr nr pi ni na nb nc nd K len ncs,
// then cs[ncs], ah[len], al[len*na], bh[len], bl[len*nb], and for division
// (fn = CF_DIV: float_cdiv's cf_div_eval) and pow (fn = CF_POW: float_cpow's
// cf_pow_eval) ch[len], cl[len*nc], dh[len],
// dl[len*nd]; answer: rh[len],
// rl[len*nr], tr[len], ih[len], il[len*ni], ti[len] (ternaries as i64),
// then nund, und[nund], nhost, host[nhost] (element indices).
// Build: g++ -O1 -std=c++17 -o emu emu.cpp (-fsanitize=address,undefined
// to check the buffer sizes).
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <vector>
typedef unsigned long long u64;
typedef unsigned int u32;
typedef long long i64;
typedef unsigned char u8;
#include "../../../src/kernels/float_cfunc.cu"

static std::vector<u64> rd(size_t n) {
    std::vector<u64> v(n ? n : 1);
    if (n && fread(v.data(), 8, n, stdin) != n) exit(3);
    return v;
}

int main() {
    std::vector<u64> h = rd(13);
    u32 fn = h[0], rnd = h[1], nr = h[3], ni = h[5], na = h[6], nb = h[7], nc = h[8], nd = h[9],
        K = h[10];
    u64 pr = h[2], pi = h[4], len = h[11], ncs = h[12];
    bool pow = fn == CF_POW, div = fn == CF_DIV || pow;
    auto cs = rd(ncs), ah = rd(len), al = rd(len * na), bh = rd(len), bl = rd(len * nb);
    auto ch = rd(div ? len : 0), cl = rd(div ? len * nc : 0), dh = rd(div ? len : 0),
         dl = rd(div ? len * nd : 0);
    std::vector<u64> rh(len), rl(len * nr + 1), ih(len), il(len * ni + 1), und, host;
    std::vector<i64> tr(len), ti(len);
    for (u64 i = 0; i < len; i++) {
        FlOut o1 = {rl.data() + i * nr, nr, 0}, o2 = {il.data() + i * ni, ni, 0};
        i8 t1 = 0, t2 = 0;
        int st;
        const u64 *am = al.data() + i * na, *bm = bl.data() + i * nb;
        switch (K) {
#define F(N)                                                                                   \
    case N:                                                                                    \
        st = pow   ? cf_pow_eval<N>(o1, t1, o2, t2, ah[i], am, na, bh[i], bm, nb, ch[i],       \
                                    cl.data() + i * nc, nc, dh[i], dl.data() + i * nd, nd, pr, \
                                    pi, rnd & 15, (rnd >> 4) & 15, cs.data())                  \
             : div ? cf_div_eval<N>(o1, t1, o2, t2, ah[i], am, na, bh[i], bm, nb, ch[i],       \
                                    cl.data() + i * nc, nc, dh[i], dl.data() + i * nd, nd, pr, \
                                    pi, rnd & 15, (rnd >> 4) & 15)                             \
                 : cf_eval<N>(fn, o1, t1, o2, t2, ah[i], am, na, bh[i], bm, nb, pr, pi,        \
                              rnd & 15, (rnd >> 4) & 15, cs.data());                           \
        break;
            F(3) F(4) F(5) F(6) F(7) F(8) F(9) F(10) F(12) F(14) F(16) F(18) F(20) F(24) F(28)
            F(34)
#undef F
        default: exit(4);
        }
        if (st == CF_UNDEC) und.push_back(i);
        if (st == CF_HOST) host.push_back(i);
        if (st != CF_DONE) {
            o1.head = o2.head = 0;
            t1 = t2 = 0;
            for (u32 l = 0; l < nr; l++) o1.m[l] = 0;
            for (u32 l = 0; l < ni; l++) o2.m[l] = 0;
        }
        rh[i] = o1.head;
        tr[i] = t1;
        ih[i] = o2.head;
        ti[i] = t2;
    }
    fwrite(rh.data(), 8, len, stdout);
    fwrite(rl.data(), 8, len * nr, stdout);
    fwrite(tr.data(), 8, len, stdout);
    fwrite(ih.data(), 8, len, stdout);
    fwrite(il.data(), 8, len * ni, stdout);
    fwrite(ti.data(), 8, len, stdout);
    u64 nu = und.size(), nh = host.size();
    fwrite(&nu, 8, 1, stdout);
    if (nu) fwrite(und.data(), 8, nu, stdout);
    fwrite(&nh, 8, 1, stdout);
    if (nh) fwrite(host.data(), 8, nh, stdout);
    return 0;
}
