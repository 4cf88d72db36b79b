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
#include <algorithm>
#include <vector>
typedef unsigned long long u64;
typedef unsigned int u32;
typedef long long i64;
typedef unsigned char u8;
#include "../../../src/kernels/float_common.cuh"
#include "../../../src/kernels/blas.cu"

// The first bl_fix32 (64-bit indices, a scan for inexactness and for the
// lowest nonzero word): the reference that every conversion of the
// emulation is checked against.
static bool ref_any_below32(const u32 *mm, u32 L, i64 d) {
    if (d >= 32 * (i64)L) return true;
    u32 q = (u32)(d >> 5), r = (u32)(d & 31);
    u32 x = r ? (mm[q] & ((1u << r) - 1)) : 0u;
    for (u32 i = 0; i < q; i++) x |= mm[i];
    return x != 0;
}
template <int NF> static u32 ref_fix32(u64 h, const u32 *mm, u32 L, i64 esc, u32 *w) {
    u32 tag = fl_tag(h);
    if ((tag & 3) != FL_NORMAL) {
        for (int j = 0; j < NF; j++) w[j] = 0;
        return BL_META(BL_ZEXACT0, false);
    }
    i64 t = 32 * (i64)NF - 32 * (i64)L - (esc - fl_exp(h));
    const i64 o = -t, base = o >> 5;
    const u32 sh = (u32)(o & 31);
    u32 lo = (base >= 0 && base < (i64)L) ? mm[base] : 0u;
    for (int j = 0; j < NF; j++) {
        i64 x = base + j + 1;
        u32 hi = (x >= 0 && x < (i64)L) ? mm[x] : 0u;
        w[j] = sh ? (lo >> sh) | (hi << (32 - sh)) : lo;
        lo = hi;
    }
    bool exact = t >= 0 || !ref_any_below32(mm, L, -t);
    int low = NF - 1;
    for (int j = NF - 1; j >= 0; j--)
        if (w[j] != 0) low = j;
    int z = exact ? low : -BL_ZEXACT0;
    return BL_META(z, (tag & FL_NEG) != 0);
}

// bl_fix, checked against ref_fix32 (word for word, meta included).
template <int NF> static u32 fix(u64 h, const u64 *m, u32 la, i64 esc, u32 *w) {
    u32 r[NF];
    u32 meta = bl_fix<NF>(h, m, la, esc, w);
    u32 rm = ref_fix32<NF>(h, (const u32 *)m, 2 * la, esc, r);
    bool same = meta == rm;
    for (int j = 0; j < NF; j++) same = same && w[j] == r[j];
    if (!same) {
        fprintf(stderr, "blas emu: bl_fix differs from the reference\n");
        abort();
    }
    return meta;
}

// The first bl_place's word extraction: bits o..o+31 of the la-limb integer m (zeros outside it; o may be
// negative).
static u32 ref_bits32(const u64 *m, u32 la, i64 o) {
    if (o >= 64 * (i64)la || o <= -32) return 0;
    i64 q = o >> 6;
    u32 r = (u32)(o & 63);
    u64 lo = (q >= 0 && q < (i64)la) ? m[q] : 0;
    u64 hi = (q + 1 >= 0 && q + 1 < (i64)la) ? m[q + 1] : 0;
    u64 v = r ? (lo >> r) | (hi << (64 - r)) : lo;
    return (u32)v;
}

// bl_place against the first version (two ref_bits32 per limb) on random
// integers and shifts, including shifts past either end of the window.
static void check_place() {
    u64 g = 0x9e3779b97f4a7c15ull;
    auto next = [&]() {
        g ^= g << 13;
        g ^= g >> 7;
        g ^= g << 17;
        return g;
    };
    for (int c = 0; c < 20000; c++) {
        u32 ls = 1 + (u32)(next() % 12), wb = 1 + (u32)(next() % 24);
        u64 src[12], buf[24], want[24], tmp[24], w2[24];
        for (u32 i = 0; i < ls; i++) src[i] = next() % 4 == 0 ? 0 : next();
        src[ls - 1] |= 1ull << 63;
        i64 span = 64 * (i64)(ls + wb) + 70;
        i64 sh = (i64)(next() % (u64)(2 * span)) - span;
        if (c % 7 == 0) sh = (i64)(next() >> 2) * (next() % 2 ? 1 : -1);
        bool neg = next() % 2;
        for (u32 i = 0; i < wb; i++) want[i] = buf[i] = next();
        bool cut = bl_place(buf, wb, src, ls, sh, neg, tmp);
        for (u32 i = 0; i < wb; i++) {
            i64 o = 64 * (i64)i - sh;
            w2[i] = (u64)ref_bits32(src, ls, o) | ((u64)ref_bits32(src, ls, o + 32) << 32);
        }
        bool cut2 = sh < 0 && bl_bits_any(src, ls, -sh);
        if (neg)
            fl_sub_n(want, want, w2, wb);
        else
            fl_add_n(want, want, w2, wb);
        bool same = cut == cut2;
        for (u32 i = 0; i < wb; i++) same = same && buf[i] == want[i];
        if (!same) {
            fprintf(stderr, "blas emu: bl_place differs from the reference\n");
            abort();
        }
    }
}

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
    // alpha = 1 exactly (the dot path).
    bool one = alh[0] == fl_head(FL_NORMAL, 1) && alm[lal - 1] == 1ull << 63;
    for (u32 w = 0; w + 1 < lal; w++) one = one && alm[w] == 0;
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
                    u32 ma = fix<NF>(ah[ia], &al[ia * la], la, ea[i], a);
                    u32 mb = fix<NF>(bh[ib], &bl[ib * lb], lb, eb[j], b);
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
                if (one && !has_c) {
                    // The device's path for alpha = 1 without C (dot): its
                    // interval lies inside the general one, so it decides
                    // whatever the general path decides, the same way.
                    std::vector<u64> l1(rn);
                    FlOut o1 = {l1.data(), rn, 0};
                    i8 t1 = 0;
                    u32 r1 = bl_epilogue1<NF>(o1, t1, acc, cnt, ea[i], eb[j], p, rnd);
                    bool same = r1 == 0 ? (r != 0 || (o1.head == o.head && l1 == outl && t1 == t))
                                        : r1 == r;
                    if (!same) {
                        fprintf(stderr, "blas emu: bl_epilogue1 differs from bl_epilogue\n");
                        abort();
                    }
                    r = r1;
                    t = t1;
                    o.head = o1.head;
                    std::copy(l1.begin(), l1.end(), outl.begin());
                }
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
    check_place();
    std::vector<u64> hd = rd(13);
    switch (hd[0]) {
    case 4: run<4>(hd); break;
    case 6: run<6>(hd); break;
    case 10: run<10>(hd); break;
    case 18: run<18>(hd); break;
    case 34: run<34>(hd); break;
    default: return 4;
    }
    return 0;
}
