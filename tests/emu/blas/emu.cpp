// Host emulation of src/kernels/blas.cu for tests/blas_cuda.rs
// (MPARRAY_BLAS_EMU=path/to/emu): the kernels' per-thread code (bl_fix,
// bl_mac, bl_epilogue, bl_zero_neg) compiled with g++, driven as
// blas_scale, blas_stream (or blas_tile: the same per-term code), blas_fin
// and blas_epi drive it. Job on stdin, u64 little-endian: nf p rnd m n K la
// lb lal lbe lc has_c S, then op(A) row-major (m*K heads, m*K*la limbs),
// op(B) by columns (n*K heads, n*K*lb limbs), alpha (head, lal limbs), and
// with has_c beta (head, lbe limbs) and C (m*n heads, m*n*lc limbs). The
// positions k of an output are split into S interleaved partial sums added
// at the end (any split gives the same bits). Answer on stdout per output:
// und, head, rn limbs, ternary (i64), rn = ceil(p / 64).
// Build: g++ -O1 -std=c++17 -o emu emu.cpp
#include <cstdio>
#include <cstdlib>
#include <vector>
typedef unsigned long long u64;
typedef unsigned int u32;
typedef long long i64;
typedef unsigned char u8;
#include "../../../src/kernels/float_common.cuh"
#include "../../../src/kernels/blas.cu"

static std::vector<u64> rd(size_t n) {
    std::vector<u64> v(n ? n : 1);
    if (n && fread(v.data(), 8, n, stdin) != n) exit(3);
    return v;
}

// A line's scale and special flag (blas_scale).
static void scale(const u64 *h, u64 K, i64 &e, u32 &f) {
    i64 best = -((i64)1 << 62);
    f = 0;
    for (u64 k = 0; k < K; k++) {
        u32 c = fl_tag(h[k]) & 3;
        if (c == FL_NORMAL && fl_exp(h[k]) > best) best = fl_exp(h[k]);
        if (c == FL_INF || c == FL_NAN) f = 1;
    }
    e = best == -((i64)1 << 62) ? 0 : best;
}

template <int NF>
static void run(const std::vector<u64> &hd) {
    u64 p = hd[1];
    u32 rnd = (u32)hd[2], m = (u32)hd[3], n = (u32)hd[4];
    u64 K = hd[5];
    u32 la = (u32)hd[6], lb = (u32)hd[7], lal = (u32)hd[8], lbe = (u32)hd[9], lc = (u32)hd[10];
    bool has_c = hd[11] != 0;
    u64 S = hd[12] ? hd[12] : 1;
    std::vector<u64> ah = rd((u64)m * K), al = rd((u64)m * K * la);
    std::vector<u64> bh = rd((u64)n * K), bl = rd((u64)n * K * lb);
    std::vector<u64> alh = rd(1), alm = rd(lal);
    std::vector<u64> beh(1, 0), bem(1, 0), chd(1, 0), clb(1, 0);
    if (has_c) {
        beh = rd(1);
        bem = rd(lbe);
        chd = rd((u64)m * n);
        clb = rd((u64)m * n * lc);
    }
    u32 rn = (u32)((p + 63) / 64);
    std::vector<i64> ea(m), eb(n);
    std::vector<u32> fa(m), fb(n);
    for (u32 i = 0; i < m; i++) scale(&ah[(u64)i * K], K, ea[i], fa[i]);
    for (u32 j = 0; j < n; j++) scale(&bh[(u64)j * K], K, eb[j], fb[j]);
    const int NW = NF + 2;
    std::vector<u64> outl(rn);
    for (u32 i = 0; i < m; i++) {
        for (u32 j = 0; j < n; j++) {
            u32 acc[NW] = {0}, cnt = 0;
            for (u64 z = 0; z < S; z++) {
                u32 part[NW] = {0}, pc = 0;
                for (u64 k = z; k < K; k += S) {
                    u64 ia = (u64)i * K + k, ib = (u64)j * K + k;
                    u32 a[NF], b[NF];
                    u32 ma = bl_fix<NF>(ah[ia], &al[ia * la], la, ea[i], a);
                    u32 mb = bl_fix<NF>(bh[ib], &bl[ib * lb], lb, eb[j], b);
                    bl_mac<NF>(part, pc, a, ma, b, mb);
                }
                bl_acc_add(acc, part, NW);
                cnt += pc;
            }
            u64 ci = (u64)i * n + j;
            u64 ch = has_c ? chd[ci] : 0, bh0 = has_c ? beh[0] : 0;
            bool special = fa[i] || fb[j] || (fl_tag(alh[0]) & 3) >= FL_INF ||
                           (has_c && ((fl_tag(bh0) & 3) >= FL_INF || (fl_tag(ch) & 3) >= FL_INF));
            FlOut o = {outl.data(), rn, 0};
            i8 t = 0;
            u32 r = 1;
            if (!special) {
                r = bl_epilogue<NF>(o, t, acc, cnt, ea[i], eb[j], alh[0], alm.data(), lal, has_c,
                                    bh0, bem.data(), lbe, ch, has_c ? &clb[ci * lc] : clb.data(), lc,
                                    p, rnd);
                if (r == 2) {
                    bool zn = bl_zero_neg(alh[0], &ah[(u64)i * K], 1, &bh[(u64)j * K], 1, K, has_c,
                                          bh0, ch, rnd);
                    fl_special(o, FL_ZERO, zn);
                    t = 0;
                    r = 0;
                }
            }
            if (r) fl_special(o, FL_ZERO, false);
            u64 w[2] = {(u64)r, o.head};
            fwrite(w, 8, 2, stdout);
            fwrite(outl.data(), 8, rn, stdout);
            i64 tt = t;
            fwrite(&tt, 8, 1, stdout);
        }
    }
}

int main() {
    std::vector<u64> hd = rd(13);
    switch (hd[0]) {
    case 4: run<4>(hd); break;
    case 6: run<6>(hd); break;
    case 10: run<10>(hd); break;
    case 18: run<18>(hd); break;
    case 34: run<34>(hd); break;
    case 66: run<66>(hd); break;
    default: return 4;
    }
    return 0;
}
