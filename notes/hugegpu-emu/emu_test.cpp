// Runs huge_ntt.cu and huge_linear.cu on the CPU emulator with the launch
// sequence of src/huge/cuda.rs, and checks products against schoolbook
// multiplication and the add/sub carry scan against a sequential loop.
// Build: g++ -O2 -std=c++17 -I../../src/kernels emu_test.cpp -o /tmp/hemu && /tmp/hemu SEED
#include <random>
#include <string>

#include "../div-emu/emu.h"  // the shared CUDA-on-CPU emulator
#include "huge_ntt.cu"
#include "huge_linear.cu"

typedef std::vector<u64> Num;
static const u64 PR[3] = {3892314113ull, 3489660929ull, 3221225473ull};
static const u64 GEN[3] = {3, 3, 5};

static u64 pw(u64 b, u64 e, u64 p) {
    u64 r = 1;
    b %= p;
    while (e) {
        if (e & 1) r = (unsigned __int128)r * b % p;
        b = (unsigned __int128)b * b % p;
        e >>= 1;
    }
    return r;
}
static u32 mont(u64 x, u64 p) { return (u32)(((unsigned __int128)(x % p) << 32) % p); }

static std::vector<u32> make_tab() {
    std::vector<u32> t(6 * HN_TAB, 0);
    for (int d = 0; d < 2; d++)
        for (int q = 0; q < 3; q++) {
            u64 p = PR[q];
            u64 W = pw(GEN[q], (p - 1) >> HN_LOGMAX, p);
            if (d) W = pw(W, p - 2, p);
            u32 *T = &t[(d * 3 + q) * HN_TAB];
            for (u64 e = 0; e < (1u << HN_TL_BITS); e++) T[e] = mont(pw(W, e, p), p);
            for (u64 e = 0; e < (1u << (HN_LOGMAX - HN_TL_BITS)); e++)
                T[HN_OFF_TH + e] = mont(pw(W, e << HN_TL_BITS, p), p);
            for (u64 h = 1; h < HN_TILE; h <<= 1) {
                u64 w = pw(W, (1ull << HN_LOGMAX) / (2 * h), p);
                for (u64 j = 0; j < h; j++) T[HN_OFF_TT + h + j] = mont(pw(w, j, p), p);
            }
            for (int k = 0; k <= HN_LOGMAX; k++) T[HN_OFF_ROOT + k] = mont(pw(W, 1ull << (HN_LOGMAX - k), p), p);
        }
    return t;
}
static std::vector<u32> TAB;

static void launch2(unsigned gx, unsigned gy, unsigned block, std::function<void()> f) {
    gridDim.y = gy;
    for (unsigned y = 0; y < gy; y++) {
        blockIdx.y = y;
        emu_launch(gx, block, 0, f);
    }
    blockIdx.y = 0;
    gridDim.y = 1;
}

// acc[off .. off+n) +/-= b[0..nb), returns the carry out.
static u32 scan(Num &acc, u64 off, u64 n, const u64 *b, u64 nb, bool sub) {
    u64 nt = (n + HL_TILE - 1) / HL_TILE;
    if (nt == 1) {
        u64 cout = 77;
        u64 *a = acc.data() + off;
        emu_launch(1, HL_TPB, 0, [&] {
            if (sub) hl_sub3(a, b, n, nb, nullptr, &cout);
            else hl_add3(a, b, n, nb, nullptr, &cout);
        });
        return (u32)cout;
    }
    std::vector<u8> st(nt, 0xee);
    u64 cout = 77;
    u64 *a = acc.data() + off;
    emu_launch(nt, HL_TPB, 0, [&] {
        if (sub) hl_sub1(a, b, n, nb, st.data());
        else hl_add1(a, b, n, nb, st.data());
    });
    emu_launch(1, 1024, 0, [&] { hl_scan2(st.data(), nt, &cout); });
    emu_launch(nt, HL_TPB, 0, [&] {
        if (sub) hl_sub3(a, b, n, nb, st.data(), nullptr);
        else hl_add3(a, b, n, nb, st.data(), nullptr);
    });
    return (u32)cout;
}

static void passes(std::vector<u32> &x, u32 logn, bool inv, const Num *src = nullptr) {
    u32 G = logn - HN_LOGTILE;
    u64 N = 1ull << logn;
    // Forward: top stages first; inverse: bottom first.
    u32 done = 0;
    u32 npass = (G + 5) / 6;
    for (u32 i = 0; i < npass; i++) {
        u32 r = (G - done) / (npass - i);
        u32 logs = inv ? HN_LOGTILE + done : logn - done - r;
        u64 thr = N >> r;
        unsigned gx = (unsigned)((thr + 255) / 256);
        const u64 *s = i == 0 && src ? src->data() : nullptr;
        u64 np = src ? 2 * src->size() : 0;
        launch2(gx, 3, 256, [&] {
            switch (r * 2 + inv) {
            case 2: hn_fwd1(x.data(), TAB.data(), logn, logs, s, 0, np); break;
            case 3: hn_inv1(x.data(), TAB.data(), logn, logs); break;
            case 4: hn_fwd2(x.data(), TAB.data(), logn, logs, s, 0, np); break;
            case 5: hn_inv2(x.data(), TAB.data(), logn, logs); break;
            case 6: hn_fwd3(x.data(), TAB.data(), logn, logs, s, 0, np); break;
            case 7: hn_inv3(x.data(), TAB.data(), logn, logs); break;
            case 8: hn_fwd4(x.data(), TAB.data(), logn, logs, s, 0, np); break;
            case 9: hn_inv4(x.data(), TAB.data(), logn, logs); break;
            case 10: hn_fwd5(x.data(), TAB.data(), logn, logs, s, 0, np); break;
            case 11: hn_inv5(x.data(), TAB.data(), logn, logs); break;
            case 12: hn_fwd6(x.data(), TAB.data(), logn, logs, s, 0, np); break;
            case 13: hn_inv6(x.data(), TAB.data(), logn, logs); break;
            }
        });
        done += r;
    }
}

static Num ntt_mul(const Num &a, const Num &b, bool sqr) {
    u64 L = a.size() + b.size();
    u32 logn = HN_LOGTILE;
    while ((1ull << logn) < 2 * L) logn++;
    u64 N = 1ull << logn;
    std::vector<u32> X(3 * N, 0xabcdef01), Y(3 * N, 0x12345678);
    unsigned gl = (unsigned)std::min<u64>((N + 255) / 256, 64);
    // As src/huge/cuda.rs: the first forward pass loads, or hn_load when
    // there is no global pass.
    if (logn == HN_LOGTILE) launch2(gl, 3, 256, [&] { hn_load(X.data(), a.data(), 0, 2 * a.size(), logn); });
    passes(X, logn, false, &a);
    if (!sqr) {
        if (logn == HN_LOGTILE) launch2(gl, 3, 256, [&] { hn_load(Y.data(), b.data(), 0, 2 * b.size(), logn); });
        passes(Y, logn, false, &b);
    }
    u32 s[3];
    for (int q = 0; q < 3; q++) s[q] = (u32)((((unsigned __int128)1 << 64) % PR[q]) * pw(pw(2, logn, PR[q]), PR[q] - 2, PR[q]) % PR[q]);
    launch2((unsigned)(N / HN_TILE), 3, HN_TPB, [&] {
        if (sqr) hn_tile_sqr(X.data(), TAB.data(), logn, s[0], s[1], s[2]);
        else hn_tile_mul(X.data(), Y.data(), TAB.data(), logn, s[0], s[1], s[2]);
    });
    passes(X, logn, true);
    u32 c1 = mont(pw(PR[0] % PR[1], PR[1] - 2, PR[1]), PR[1]);
    u32 c2 = mont(pw((unsigned __int128)PR[0] * PR[1] % PR[2], PR[2] - 2, PR[2]), PR[2]);
    u32 r2 = (u32)(((unsigned __int128)1 << 64) % PR[2]);
    Num lo(L, 0x5555), hi(L, 0x6666);
    emu_launch((unsigned)std::min<u64>((L + 255) / 256, 40), 256, 0,
               [&] { hn_crt_limbs(lo.data(), hi.data(), X.data(), logn, L, c1, c2, r2); });
    if (hi[L - 1] != 0) { printf("top hi limb nonzero\n"); exit(1); }
    u32 c = scan(lo, 1, L - 1, hi.data(), L - 1, false);
    if (c) { printf("carry out of product\n"); exit(1); }
    return lo;
}

static Num school(const Num &a, const Num &b) {
    Num r(a.size() + b.size(), 0);
    for (size_t i = 0; i < a.size(); i++) {
        u64 c = 0;
        for (size_t j = 0; j < b.size(); j++) {
            unsigned __int128 t = (unsigned __int128)a[i] * b[j] + r[i + j] + c;
            r[i + j] = (u64)t;
            c = (u64)(t >> 64);
        }
        r[i + b.size()] = c;
    }
    return r;
}

static std::mt19937_64 rng;
static Num rnd(size_t n, int kind) {
    Num v(n);
    for (auto &x : v) {
        switch (kind) {
        case 0: x = rng(); break;
        case 1: x = ~0ull; break;
        case 2: x = (rng() % 4 == 0) ? rng() : (rng() & 1 ? ~0ull : 0); break;
        default: x = rng() % 3 == 0 ? 0 : rng();
        }
    }
    return v;
}

static u64 mod61(const Num &v) {
    const u64 M = (1ull << 61) - 1;
    u64 r = 0;
    for (size_t i = v.size(); i-- > 0;) {
        unsigned __int128 x = ((unsigned __int128)r << 3) + v[i];
        u64 y = (u64)(x & M) + (u64)(x >> 61);
        y = (y & M) + (y >> 61);
        r = y >= M ? y - M : y;
    }
    return r;
}

int main(int argc, char **argv) {
    u64 seed = argc > 1 ? strtoull(argv[1], 0, 10) : 1;
    rng.seed(seed);
    TAB = make_tab();
    int fails = 0;
    if (argc > 2) {
        // One big product (2^k limbs each), checked mod 2^61-1 and its low limb.
        size_t n = (size_t)1 << atoi(argv[2]);
        Num a = rnd(n, 0), b = rnd(n, 0);
        Num r = ntt_mul(a, b, false);
        const u64 M = (1ull << 61) - 1;
        u64 want = (u64)((unsigned __int128)mod61(a) * mod61(b) % M);
        bool ok = mod61(r) == want && r[0] == a[0] * b[0];
        printf("big %zu limbs: %s\n", n, ok ? "ok" : "FAIL");
        return ok ? 0 : 1;
    }
    // Carry scan across tiles, against a sequential loop.
    for (int it = 0; it < 40; it++) {
        u64 n = 1 + rng() % (it < 10 ? 2048 : it < 20 ? 5000 : 9000);
        u64 nb = rng() % (n + 1);
        int kind = it % 4;
        Num a = rnd(n, kind == 1 ? 1 : kind == 2 ? 2 : 0), b = rnd(nb, kind == 3 ? 2 : 0);
        if (kind == 1) for (auto &x : b) x = rng() % 2;
        bool sub = it & 1;
        if (sub && kind == 2) { for (auto &x : a) x = x == ~0ull ? 0 : x; }
        Num r = a;
        u32 cr = 0;
        for (u64 i = 0; i < n; i++) {
            u64 v = i < nb ? b[i] : 0;
            r[i] = sub ? subb_u64(a[i], v, cr) : addc_u64(a[i], v, cr);
        }
        Num g = a;
        u32 cg = scan(g, 0, n, b.data(), nb, sub);
        if (g != r || cg != cr) { printf("scan FAIL n=%llu nb=%llu sub=%d\n", (unsigned long long)n, (unsigned long long)nb, sub); fails++; }
    }
    printf("scan done\n");
    // scan2 alone on many tiles.
    for (int it = 0; it < 6; it++) {
        u64 nt = 1 + rng() % 5000;
        std::vector<u8> st(nt), ref(nt);
        for (auto &s : st) { u32 r = rng() % 8; s = r < 3 ? 1 : r < 6 ? 0 : 2; }
        u32 c = 0;
        for (u64 t = 0; t < nt; t++) { ref[t] = c; c = (st[t] & 1) | ((st[t] >> 1) & c); }
        u64 cout = 9;
        emu_launch(1, 1024, 0, [&] { hl_scan2(st.data(), nt, &cout); });
        if (st != ref || cout != c) { printf("scan2 FAIL nt=%llu\n", (unsigned long long)nt); fails++; }
    }
    printf("scan2 done\n");
    // Products at every pass shape: logn 12..17.
    size_t sizes[][2] = {{1, 1}, {3, 2}, {1024, 1024}, {2048, 1}, {1500, 548}, {2049, 2047}, {3000, 1000},
                         {4096, 4096}, {5000, 3000}, {8192, 8191}, {9000, 7000}, {16384, 16384}, {20000, 15000}, {17000, 17000}, {40000, 30000}, {70000, 60000}};
    int ns = sizeof(sizes) / sizeof(sizes[0]);
    for (int i = 0; i < ns; i++)
        for (int kind = 0; kind < 3; kind++) {
            size_t la = sizes[i][0], lb = sizes[i][1];
            if (la * lb > 70000000 && kind > 0) continue;
            Num a = rnd(la, kind), b = rnd(lb, kind);
            bool sqr = kind != 1 && la == lb && (i % 2 == 0 || kind == 2);
            if (sqr) b = a;
            Num r = ntt_mul(a, b, sqr);
            Num s = school(a, b);
            bool ok = r == s;
            printf("mul %zu x %zu kind %d sqr %d: %s\n", la, lb, kind, sqr, ok ? "ok" : "FAIL");
            fflush(stdout);
            if (!ok) fails++;
        }
    // Linear helpers.
    {
        Num a = rnd(300, 0), r(301, 1);
        for (u32 s : {0u, 1u, 37u, 63u}) {
            emu_launch(2, 256, 0, [&] { hl_shl(r.data(), a.data(), 300, s); });
            Num e(301, 0);
            for (size_t i = 0; i <= 300; i++) {
                u64 hi = i < 300 ? a[i] : 0, lo = i ? a[i - 1] : 0;
                e[i] = s ? (hi << s) | (lo >> (64 - s)) : hi;
            }
            if (e != r) { printf("shl FAIL %u\n", s); fails++; }
        }
        u64 res = 0;
        Num z(500, 0);
        z[321] = 5;
        emu_launch(2, 256, 0, [&] { hl_top(z.data(), 500, nullptr, 0, &res); });
        if (res != 322) { printf("top FAIL %llu\n", (unsigned long long)res); fails++; }
        res = 1000;
        Num f(500, ~0ull);
        f[400] = 3;
        emu_launch(2, 64, 0, [&] { hl_find(f.data(), 10, 500, ~0ull, &res); });
        if (res != 400) { printf("find FAIL %llu\n", (unsigned long long)res); fails++; }
    }
    printf("%s (%d failures)\n", fails ? "FAILED" : "ALL OK", fails);
    return fails ? 1 : 0;
}
