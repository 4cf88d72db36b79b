// Host emulation of src/kernels/float_wide.cu (one group of gs lanes per
// element, the lanes run one after the other between the collectives), for
// tests/float_cuda_wide.rs (MPARRAY_FLOATWIDE_EMU=path/to/wemu). Same job
// protocol as tests/emu/floatgpu/emu.cpp: stdin: op rnd p n lx ly lz k len,
// then xh, xl, yh, yl, zh, zl; stdout: rh, rl, tern. add, sub, mul, div, fma
// and fms (and sqrt) go through the group code at every size (so small sizes test it too);
// FW_GS=4|8|16|32 forces the group size (default: the library's rule).
// Build: g++ -O2 -o wemu wemu.cpp; also with -DFW_REV (lanes in reverse
// order) and -fsanitize=address,undefined (each group's shared region is
// its own heap block of exactly fw_layout's size).
#include <cstdio>
#include <cstdlib>
#include <vector>
typedef unsigned long long u64;
typedef unsigned int u32;
typedef long long i64;
typedef unsigned char u8;
#include "../../../src/kernels/float_common.cuh"
#include "../../../src/kernels/float_wide.cu"

static std::vector<u64> rd(size_t n) {
    std::vector<u64> v(n ? n : 1);
    if (n && fread(v.data(), 8, n, stdin) != n) exit(3);
    return v;
}

// src/float/cuda.rs's wide_group_size.
static u32 group_size(u32 op, u32 n, u32 lx, u32 ly, u32 lz) {
    u32 m = n;
    if (lx > m) m = lx;
    if (ly > m) m = ly;
    if (lz > m) m = lz;
    u32 per = op == FL_OP_MUL ? 8 : (op == FL_OP_FMA || op == FL_OP_FMS ? 2 : 4);
    u32 v = m / per, g = 1;
    while (g < v) g *= 2;
    return g < 8 ? 8 : (g > 32 ? 32 : g);
}

// src/float/cuda.rs's wide_div_shape: the group size (forced, else min_gs:
// 4 for division, 8 for the root) raised until gs * 8 >= ly, then B, the
// divisor limbs per lane.
static void div_shape(u32 ly, u32 forced, u32 min_gs, u32 &gs, u32 &b) {
    gs = forced ? forced : min_gs;
    while (gs * 8 < ly && gs < 32) gs *= 2;
    b = gs * 2 >= ly ? 2 : (gs * 4 >= ly ? 4 : (gs * 6 >= ly ? 6 : 8));
}

int main() {
    std::vector<u64> h = rd(9);
    u32 op = h[0], rnd = h[1], n = h[3], lx = h[4], ly = h[5], lz = h[6];
    u64 p = h[2], len = h[8];
    i64 k = (i64)h[7];
    auto xh = rd(len), xl = rd(len * lx), yh = rd(len), yl = rd(len * ly), zh = rd(len),
         zl = rd(len * lz);
    std::vector<u64> rh(len), rl(len * n + 1);
    std::vector<i64> tn(len);
    const char *gse = getenv("FW_GS");
    for (u64 i = 0; i < len; i++) {
        FlOut o = {rl.data() + i * n, n, 0};
        i8 t;
        if (op <= FL_OP_FMS) {
            u32 lzz = (op == FL_OP_FMA || op == FL_OP_FMS) ? lz : 0;
            if (op == FL_OP_SQRT) ly = 0;
            FwG g = {gse ? (u32)atoi(gse) : group_size(op, n, lx, ly, lzz), 0, 0, 0};
            u32 db = 2;
            if (op == FL_OP_DIV) div_shape(ly, gse ? (u32)atoi(gse) : 0, 4, g.gs, db);
            if (op == FL_OP_SQRT) {
                u32 m = n + 1 > lx / 2 + 1 ? n + 1 : lx / 2 + 1;
                div_shape((m + 1) / 2, gse ? (u32)atoi(gse) : 0, 8, g.gs, db);
            }
            FwLay L = fw_layout(op, n, lx, ly, lzz);
            std::vector<u64> S(L.tot ? L.tot : 1, 0x5a5a5a5a5a5a5a5aull);
            auto el = fw_element<0>;
            if (op == FL_OP_DIV)
                el = db == 2 ? fw_element<1, 2>
                             : (db == 4 ? fw_element<1, 4>
                                        : (db == 6 ? fw_element<1, 6> : fw_element<1, 8>));
            if (op == FL_OP_SQRT)
                el = db == 2 ? fw_element<2, 2>
                             : (db == 4 ? fw_element<2, 4>
                                        : (db == 6 ? fw_element<2, 6> : fw_element<2, 8>));
            t = el(g, S.data(), op, rnd, p, o, xh[i], xl.data() + i * lx, lx, yh[i],
                           yl.data() + i * ly, ly, zh[i], zl.data() + i * lz, lzz);
        } else if (op == FL_OP_CMP) {
            t = fl_cmp(xh[i], xl.data() + i * lx, lx, yh[i], yl.data() + i * ly, ly);
        } else if (op <= FL_OP_FMS) {
            u32 a, b, c, pp;
            fl_scratch(op, n, lx, op == FL_OP_SQRT ? 0 : ly, 0, a, b, c, pp);
            std::vector<u64> A(a + 1), B(b + 1), C(c + 1), P(pp + 1);
            t = fl_arith_buf(op, rnd, p, o, xh[i], xl.data() + i * lx, lx, yh[i],
                             yl.data() + i * ly, ly, zh[i], zl.data() + i * lz, lz, A.data(),
                             B.data(), C.data(), P.data());
        } else {
            t = fl_misc(op, rnd, p, k, o, xh[i], xl.data() + i * lx, lx, yh[i],
                        yl.data() + i * ly, ly);
        }
        rh[i] = o.head;
        tn[i] = t;
    }
    fwrite(rh.data(), 8, len, stdout);
    fwrite(rl.data(), 8, len * n, stdout);
    fwrite(tn.data(), 8, len, stdout);
    return 0;
}
