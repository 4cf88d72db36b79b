// Checks the int_mul kernels on the CPU (see cuda_emu.h) against a plain
// schoolbook reference. Built once per tier: -DBAND=4|8|16 or -DMUL_NTT=1.
#include "cuda_emu.h"
#include "int_mul.cu"
#include <cstdio>
#include <cstdlib>
#include <random>
#include <string>

typedef unsigned long long U;
static std::mt19937_64 rng(12345);

static void ref_mul(const U *x, const U *y, int l, U *z, int zl) {
    for (int k = 0; k < zl; k++) z[k] = 0;
    for (int j = 0; j < l && j < zl; j++) {
        U c = 0;
        int top = std::min(l, zl - j);
        for (int i = 0; i < top; i++) {
            unsigned __int128 t = (unsigned __int128)x[i] * y[j] + z[i + j] + c;
            z[i + j] = (U)t;
            c = (U)(t >> 64);
        }
        if (j + top < zl) z[j + top] = c;
    }
}
static void ref_add(U *z, const U *y, int l) {
    unsigned c = 0;
    for (int i = 0; i < l; i++) {
        unsigned __int128 t = (unsigned __int128)z[i] + y[i] + c;
        z[i] = (U)t;
        c = (unsigned)(t >> 64);
    }
}
static void ref_poly(const U *a, const U *b, int l, U *r) {
    std::vector<U> t1(l), t2(l), t3(l);
    ref_mul(a, a, l, t1.data(), l); ref_add(t1.data(), b, l);
    ref_mul(b, b, l, t2.data(), l); ref_add(t2.data(), b, l);
    ref_mul(t1.data(), t2.data(), l, t3.data(), l);
    ref_mul(a, b, l, r, l); ref_add(r, t3.data(), l);
}

// Operands: all pairs of the edge values of tests/common, then random ones.
static std::vector<std::vector<U>> edges(int l) {
    std::vector<std::vector<U>> v(10, std::vector<U>(l, 0));
    v[1][0] = 1;
    for (int k = 0; k < l; k++) v[2][k] = v[3][k] = ~0ull;
    v[3][l - 1] = 0;
    v[4][l - 1] = 1ull << 63;
    v[5][0] = ~0ull;
    v[6][0] = 2;
    for (int k = 0; k < l; k++) v[7][k] = 0x5555555555555555ull;
    v[7][l - 1] = 0x7fffffffffffffffull;
    v[8][l / 2] = 1;
    v[8][0] = 3;
    for (int k = 0; k < l; k++) v[9][k] = ~0ull;
    v[9][l - 1] = 1;
    if (l == 1) v.resize(8);
    return v;
}
static void make_ops(int l, int n, std::vector<U> &a, std::vector<U> &b) {
    auto e = edges(l);
    int ne = (int)e.size();
    a.assign((size_t)n * l, 0);
    b.assign((size_t)n * l, 0);
    for (int i = 0; i < n; i++) {
        U *x = &a[(size_t)i * l], *y = &b[(size_t)i * l];
        if (i < ne * ne) {
            for (int k = 0; k < l; k++) { x[k] = e[i / ne][k]; y[k] = e[i % ne][k]; }
            continue;
        }
        for (int k = 0; k < l; k++) { x[k] = rng(); y[k] = (i & 1) && k > l / 3 ? 0 : rng(); }
    }
}

static int fails = 0;
static void check(const char *what, int l, int n, const std::vector<U> &got, const std::vector<U> &want) {
    if (got != want) {
        size_t k = 0;
        while (got[k] == want[k]) k++;
        int per = (int)(want.size() / n);
        printf("FAIL %s limbs %d: instance %zu limb %zu got %016llx want %016llx\n", what, l, k / per, k % per,
               got[k], want[k]);
        fails++;
    }
}

#ifdef BAND
struct Geo { int g, per, nb; };
static Geo geo(int words, bool wide, int c, int narrays) {
    int nc = (words + 2 * c - 1) / (2 * c) * 2 * c, nb = (wide ? 2 : 1) * nc / c, pad = nc + 2 * c;
    return {nb / 2, narrays * pad + nb * (c + 2), nb};
}
static void launch_cfg(const Geo &g, int &ipb, int &threads, size_t &smem) {
    int per_bytes = g.per * 4 + g.nb;
    ipb = std::max(1, std::min(128 / g.g, 44 * 1024 / per_bytes));
    threads = (ipb * g.g + 31) / 32 * 32;
    int nch = (ipb * g.nb + 31) / 32;
    smem = 4 * ((size_t)ipb * g.per + nch) + ((size_t)ipb * g.nb + 3) / 4 * 4;
}
static void run(int l, int n) {
    std::vector<U> a, b;
    make_ops(l, n, a, b);
    for (int wide = 0; wide < 2; wide++) {
        int zl = wide ? 2 * l : l;
        std::vector<U> want((size_t)n * zl), got((size_t)n * zl, 0x5a5a5a5a5a5a5a5aull);
        for (int i = 0; i < n; i++) ref_mul(&a[(size_t)i * l], &b[(size_t)i * l], l, &want[(size_t)i * zl], zl);
        int ipb, threads; size_t smem;
        launch_cfg(geo(2 * l, wide, BAND, 2), ipb, threads, smem);
        emu_launch({(unsigned)((n + ipb - 1) / ipb), 1, 1}, threads, smem,
                   [&] { int_mul_band(got.data(), a.data(), b.data(), n, l, wide, ipb); });
        check(wide ? "mul_wide" : "mul", l, n, got, want);
    }
    std::vector<U> want((size_t)n * l), got((size_t)n * l, 0x5a5a5a5a5a5a5a5aull);
    for (int i = 0; i < n; i++) ref_poly(&a[(size_t)i * l], &b[(size_t)i * l], l, &want[(size_t)i * l]);
    int ipb, threads; size_t smem;
    launch_cfg(geo(2 * l, false, BAND, 4), ipb, threads, smem);
    emu_launch({(unsigned)((n + ipb - 1) / ipb), 1, 1}, threads, smem,
               [&] { int_poly_band(got.data(), a.data(), b.data(), n, l, ipb); });
    check("poly", l, n, got, want);
    printf("limbs %d (n %d, ipb %d, threads %d, smem %zu) done\n", l, n, ipb, threads, smem);
}
#endif

#ifdef MUL_NTT
static std::vector<unsigned> tables;
static int log_r_for(int words) {
    int n = 4096;
    while (n < 2 * words) n *= 2;
    int lr = 0;
    while ((4096 << lr) < n) lr++;
    return lr;
}
static void conv(std::vector<unsigned> &scr, const U *a, const U *b, int l, int n, int nprod) {
    int lr = log_r_for(2 * l);
    scr.assign((size_t)nprod * n * 3 * (4096 << lr), 0xdeadbeef);
    emu_launch({3u << lr, (unsigned)n, 1}, 256, 0, [&] {
        int_ntt_conv(scr.data(), a, b, tables.data(), 2 * l, lr, nprod, n);
    });
}
static void combine(U *out, const std::vector<unsigned> &scr, const U *add, int l, int kw, int n, int prod) {
    int lr = log_r_for(2 * l);
    emu_launch({(unsigned)n, 1, 1}, 256, 0,
               [&] { int_ntt_combine(out, scr.data(), add, tables.data(), kw, lr, n, prod); });
}
static void run(int l, int n) {
    std::vector<U> a, b;
    make_ops(l, n, a, b);
    std::vector<unsigned> scr;
    conv(scr, a.data(), b.data(), l, n, 1);
    for (int wide = 0; wide < 2; wide++) {
        if (wide && l > 8192) continue;
        int zl = wide ? 2 * l : l;
        std::vector<U> want((size_t)n * zl), got((size_t)n * zl, 0x5a5a5a5a5a5a5a5aull);
        for (int i = 0; i < n; i++) ref_mul(&a[(size_t)i * l], &b[(size_t)i * l], l, &want[(size_t)i * zl], zl);
        combine(got.data(), scr, nullptr, l, 2 * zl, n, 0);
        check(wide ? "ntt mul_wide" : "ntt mul", l, n, got, want);
    }
    // poly as mul.rs runs it
    std::vector<U> t1((size_t)n * l), t2((size_t)n * l), p((size_t)n * l), r((size_t)n * l), want((size_t)n * l);
    conv(scr, a.data(), b.data(), l, n, 3);
    combine(t1.data(), scr, b.data(), l, 2 * l, n, 0);
    combine(t2.data(), scr, b.data(), l, 2 * l, n, 1);
    combine(p.data(), scr, nullptr, l, 2 * l, n, 2);
    conv(scr, t1.data(), t2.data(), l, n, 1);
    combine(r.data(), scr, p.data(), l, 2 * l, n, 0);
    for (int i = 0; i < n; i++) ref_poly(&a[(size_t)i * l], &b[(size_t)i * l], l, &want[(size_t)i * l]);
    check("ntt poly", l, n, r, want);
    printf("limbs %d (n %d, log_r %d) done\n", l, n, log_r_for(2 * l));
}
#endif

int main(int argc, char **argv) {
#ifdef MUL_NTT
    FILE *f = fopen(getenv("NTT_TABLES"), "rb");
    if (!f) { printf("set NTT_TABLES\n"); return 2; }
    fseek(f, 0, SEEK_END);
    long sz = ftell(f);
    fseek(f, 0, SEEK_SET);
    tables.resize(sz / 4);
    if (fread(tables.data(), 4, tables.size(), f) != tables.size()) return 2;
    fclose(f);
#endif
    for (int i = 1; i + 1 < argc; i += 2) run(atoi(argv[i]), atoi(argv[i + 1]));
    printf(fails ? "%d FAILED\n" : "all ok\n", fails);
    return fails != 0;
}
