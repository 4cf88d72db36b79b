// Runs the int_div.cu pipeline (classify, scan, scatter, tier kernels) on the
// CPU emulator and checks every element: u == q*v + r and r < v.
// Build: g++ -O2 -std=c++17 -I../../src/kernels emu_test.cpp -o emu_test
#include <map>
#include <random>
#include <string>

#include "emu.h"
static std::map<std::string, unsigned long long> g_count;
#define DIV_COUNT(what) (g_count[#what]++)
#include "int_div.cu"

typedef std::vector<u64> Num;

struct TierDesc {
    int c, g, s, tpb;
    bool vsmem;
    void (*f)(u64 *, u64 *, const u64 *, const u64 *, const u64 *, const u64 *, u64, u32);
};
static TierDesc TIERS[DIV_NTIERS] = {
    {4, 1, 4, 128, false, int_div_t0},
    {8, 1, 8, 128, false, int_div_t1},
    {16, 1, 16, 128, false, int_div_t2},
    {16, 2, 32, 128, false, int_div_t3},
    {16, 4, 64, 128, false, int_div_t4},
    {16, 8, 128, 128, false, int_div_t5},
    {16, 16, 256, 128, false, int_div_t6},
    {16, 32, 512, 128, false, int_div_t7},
    {16, 64, 1024, 64, false, int_div_t8},
    {16, 96, 1536, 96, false, int_div_t9},
    {16, 128, 2048, 128, false, int_div_t10},
    {16, 160, 2560, 160, false, int_div_t11},
    {16, 192, 3072, 192, false, int_div_t12},
    {16, 224, 3584, 224, false, int_div_t13},
    {16, 256, 4096, 256, false, int_div_t14},
    {16, 288, 4608, 288, false, int_div_t15},
    {16, 320, 5120, 320, false, int_div_t16},
    {16, 352, 5632, 352, false, int_div_t17},
    {16, 384, 6144, 384, false, int_div_t18},
    {16, 416, 6656, 416, false, int_div_t19},
    {16, 448, 7168, 448, false, int_div_t20},
    {16, 480, 7680, 480, false, int_div_t21},
    {16, 512, 8192, 512, false, int_div_t22},
    {32, 512, 16384, 512, true, int_div_t23},
};
static unsigned long long tier_hits[DIV_NTIERS];
// Blocked kernels for tiers 7..22 (as div.rs), used from tier blocked_from up.
static void (*BLOCKED[16])(u64 *, u64 *, const u64 *, const u64 *, const u64 *, const u64 *, u64, u32, u32) = {
    int_div_b7,  int_div_b8,  int_div_b9,  int_div_b10, int_div_b11, int_div_b12,
    int_div_b13, int_div_b14, int_div_b15, int_div_b16, int_div_b17, int_div_b18,
    int_div_b19, int_div_b20, int_div_b21, int_div_b22};
static int blocked_from = 8;
static unsigned top_recip = 1; // the blocked kernel's top problem from a reciprocal

// Returns -1 or the first zero-divisor index.
static long long run_div(const std::vector<u64> &a, const std::vector<u64> &b, size_t len, u32 L,
                         std::vector<u64> &q, std::vector<u64> &r) {
    q.assign(len * L, 0xdeadbeefdeadbeefull); // poison: every limb must be written
    r.assign(len * L, 0xdeadbeefdeadbeefull);
    std::vector<u64> mn(len, 0x1234), list(len, ~0ull), meta(DIV_HIST + L + 2, 0);
    unsigned th = (unsigned)(len * 32);
    emu_launch((th + 255) / 256, 256, 0, [&] {
        int_div_classify(q.data(), r.data(), a.data(), b.data(), mn.data(), meta.data(), len, L);
    });
    emu_launch(1, 1024, 0, [&] { int_div_scan(meta.data(), L); });
    emu_launch((unsigned)((len + 255) / 256), 256, 0,
               [&] { int_div_scatter(mn.data(), meta.data(), list.data(), len); });
    if (meta[0] != 0) return (long long)~meta[0];
    for (int t = 0; t < DIV_NTIERS; t++) {
        u64 lo = meta[1 + t], hi = meta[2 + t];
        if (hi <= lo) continue;
        tier_hits[t] += hi - lo;
        TierDesc &d = TIERS[t];
        u64 cnt = hi - lo;
        unsigned grid, block;
        if (d.g > 32) {
            grid = (unsigned)cnt;
            block = d.g;
        } else {
            grid = (unsigned)((cnt * d.g + d.tpb - 1) / d.tpb);
            block = d.tpb;
        }
        size_t dyn = d.vsmem ? (size_t)d.s * 8 : 0;
        if (t >= blocked_from && t <= 22) {
            auto f = BLOCKED[t - 7];
            emu_launch((unsigned)cnt, DIVB_T, DIVB_SMEM((size_t)d.s), [&] {
                f(q.data(), r.data(), a.data(), b.data(), list.data() + lo, mn.data(), cnt, L, top_recip);
            });
            continue;
        }
        emu_launch(grid, block, dyn, [&] {
            d.f(q.data(), r.data(), a.data(), b.data(), list.data() + lo, mn.data(), cnt, L);
        });
    }
    return -1;
}

// ---- reference check ----
static size_t nlen(const u64 *x, size_t l) {
    while (l && !x[l - 1]) l--;
    return l;
}
static int cmp(const u64 *x, const u64 *y, size_t l) {
    for (size_t i = l; i-- > 0;)
        if (x[i] != y[i]) return x[i] < y[i] ? -1 : 1;
    return 0;
}
static bool check_one(const u64 *u, const u64 *v, const u64 *q, const u64 *r, u32 L) {
    if (cmp(r, v, L) >= 0) return false;
    std::vector<u64> t(2 * L + 1, 0);
    for (u32 i = 0; i < L; i++) {
        if (!q[i]) continue;
        unsigned __int128 c = 0;
        for (u32 j = 0; j < L; j++) {
            c += (unsigned __int128)q[i] * v[j] + t[i + j];
            t[i + j] = (u64)c;
            c >>= 64;
        }
        for (u32 k = i + L; c; k++) {
            c += t[k];
            t[k] = (u64)c;
            c >>= 64;
        }
    }
    unsigned __int128 c = 0;
    for (u32 k = 0; k < 2 * L + 1; k++) {
        c += (unsigned __int128)t[k] + (k < L ? r[k] : 0);
        t[k] = (u64)c;
        c >>= 64;
    }
    for (u32 k = 0; k < 2 * L + 1; k++)
        if (t[k] != (k < L ? u[k] : 0)) return false;
    return true;
}

static std::mt19937_64 rng;
static u64 rnd() { return rng(); }
static u64 rlimb() {
    switch (rng() % 8) {
    case 0: return 0;
    case 1: return ~0ull;
    case 2: return 1ull << 63;
    case 3: return 1;
    default: return rng();
    }
}
static Num random_num(u32 L, u32 len, bool structured) {
    Num x(L, 0);
    for (u32 i = 0; i < len; i++) x[i] = structured ? rlimb() : rnd();
    if (len && !x[len - 1]) x[len - 1] = structured ? (rng() % 2 ? ~0ull : 1) : 1;
    return x;
}
// x*y + z, truncated to L limbs (false if it does not fit).
static bool muladd(const Num &x, const Num &y, const Num &z, Num &out, u32 L) {
    std::vector<u64> t(2 * L + 2, 0);
    for (u32 i = 0; i < L; i++) {
        unsigned __int128 c = 0;
        for (u32 j = 0; j < L; j++) {
            c += (unsigned __int128)x[i] * y[j] + t[i + j];
            t[i + j] = (u64)c;
            c >>= 64;
        }
        t[i + L] = (u64)c;
    }
    unsigned __int128 c = 0;
    for (u32 k = 0; k < 2 * L + 2; k++) {
        c += (unsigned __int128)t[k] + (k < L ? z[k] : 0);
        t[k] = (u64)c;
        c >>= 64;
    }
    for (u32 k = L; k < 2 * L + 2; k++)
        if (t[k]) return false;
    out.assign(t.begin(), t.begin() + L);
    return true;
}

struct Batch {
    u32 L;
    std::vector<u64> a, b;
    size_t len = 0;
    void add(const Num &u, const Num &v) {
        a.insert(a.end(), u.begin(), u.end());
        b.insert(b.end(), v.begin(), v.end());
        len++;
    }
};

static std::vector<Num> edge_values(u32 l) {
    std::vector<Num> v;
    Num x(l, 0);
    v.push_back(x);
    x[0] = 1;
    v.push_back(x);
    v.push_back(Num(l, ~0ull));
    x = Num(l, ~0ull);
    x[l - 1] = 0;
    v.push_back(x);
    x = Num(l, 0);
    x[l - 1] = 1ull << 63;
    v.push_back(x);
    x = Num(l, 0);
    x[0] = ~0ull;
    v.push_back(x);
    x = Num(l, 0);
    x[0] = 2;
    v.push_back(x);
    x = Num(l, 0x5555555555555555ull);
    x[l - 1] = 0x7fffffffffffffffull;
    v.push_back(x);
    if (l > 1) {
        x = Num(l, 0);
        x[l / 2] = 1;
        x[0] = 3;
        v.push_back(x);
        x = Num(l, ~0ull);
        x[l - 1] = 1;
        v.push_back(x);
        x = Num(l, 0);
        x[l - 1] = 1ull << 63;
        x[0] = 1;
        v.push_back(x);
    }
    return v;
}

// Adds the adversarial shapes for divisor length n (n <= L).
static void adversarial(Batch &B, u32 n, int reps) {
    u32 L = B.L;
    for (int rep = 0; rep < reps; rep++) {
        // v: normalised or not, structured limbs.
        Num v = random_num(L, n, rep % 2);
        if (rep % 3 == 0) v[n - 1] |= 1ull << 63;
        if (rep % 5 == 1) {
            for (u32 i = 0; i < n; i++) v[i] = 0;
            v[n - 1] = 1ull << 63;
            v[0] |= 1;
        }
        // 1. Add-back: u = k * (v - (v mod B^(n-2))) * B^j + low, q-hat is one too big.
        if (n >= 3) {
            u32 j = L > n + 1 ? (u32)(rng() % (L - n)) : 0;
            Num top(L, 0), k(L, 0), low(L, 0), u;
            for (u32 i = n - 2; i < n && i + j < L; i++) top[i + j] = v[i];
            k[0] = rng() % 4 == 0 ? ~0ull : rnd() | 1;
            for (u32 i = 0; i < j; i++) low[i] = rlimb();
            if (muladd(k, top, low, u, L)) B.add(u, v);
        }
        // 2. Clamp: u = (v - 1)*B^(j+1) + x.
        if (n + 1 <= L) {
            u32 j = L > n + 1 ? (u32)(rng() % (L - n)) : 0;
            Num vm = v, sh(L, 0), x(L, 0), u;
            for (u32 i = 0; i < L; i++) {
                if (vm[i]--) break;
            }
            if (j + 1 < L) sh[j + 1] = 1;
            for (u32 i = 0; i <= j && i < L; i++) x[i] = rlimb();
            if (muladd(vm, sh, x, u, L)) B.add(u, v);
        }
        // 3. u = Q*v + R with Q limbs all ones / structured, R = v-1 or random.
        {
            u32 ql = L - n + 1;
            Num Q = random_num(L, (u32)(rng() % ql) + 1, true), R(L, 0), u;
            if (rng() % 2) {
                R = v;
                for (u32 i = 0; i < L; i++)
                    if (R[i]--) break;
            }
            if (muladd(Q, v, R, u, L)) B.add(u, v);
            for (u32 i = 0; i < ql && i < L; i++) Q[i] = ~0ull;
            if (muladd(Q, v, R, u, L)) B.add(u, v);
        }
        // 4. All-ones dividends and runs of ones/zeros.
        {
            Num u(L, ~0ull);
            B.add(u, v);
            u32 len = n + (u32)(rng() % (L - n + 1));
            Num w(L, 0);
            for (u32 i = 0; i < len; i++) w[i] = (i / 3) % 2 ? ~0ull : 0;
            w[len - 1] |= 1;
            B.add(w, v);
        }
    }
}

// The blocked kernel's rare paths for divisor length n: (1) the top problem's
// Q one too large (the whole divisor adds back): u = k * (v with its limbs
// below n-H-1 cleared) * B^j, j a multiple of 16 (a step boundary), k of up
// to 16 limbs; (2) the window's top H limbs equal to V_T: u = (v-1)*B^j + x.
static void adversarial_blocked(Batch &B, u32 n, int reps) {
    u32 L = B.L;
    for (int rep = 0; rep < reps; rep++) {
        Num v = random_num(L, n, rep % 2);
        if (rep % 3 == 0) v[n - 1] |= 1ull << 63;
        if (rep % 3 == 1) v[n - 1] = 1 + rng() % 3;
        u32 span = L - n; // room above v for the quotient
        if (span < 1) continue;
        {
            u32 j = 16 * (u32)(rng() % (span / 16 + 1));
            if (j >= span) j = 0;
            u32 kl = 1 + (u32)(rng() % min<u32>(16, span - j));
            Num top(L, 0), k(L, 0), u;
            for (u32 i = n - DIVB_H - 1; i < n; i++) top[i] = v[i];
            for (u32 i = 0; i < kl; i++) k[i] = rng() % 3 ? rnd() : ~0ull;
            Num sh(L, 0), kt;
            if (muladd(k, top, Num(L, 0), kt, L)) {
                if (j < L) sh[j] = 1;
                if (muladd(kt, sh, Num(L, 0), u, L)) B.add(u, v);
            }
        }
        {
            u32 j = 16 * (1 + (u32)(rng() % (span / 16 + 1)));
            if (j > span) j = 16;
            Num vm = v, sh(L, 0), x(L, 0), u;
            for (u32 i = 0; i < L; i++)
                if (vm[i]--) break;
            if (j < L) sh[j] = 1;
            for (u32 i = 0; i < j && i < L; i++) x[i] = rlimb();
            if (muladd(vm, sh, x, u, L)) B.add(u, v);
        }
    }
}

static int failures = 0;
static void run_batch(Batch &B, const char *what) {
    std::vector<u64> q, r;
    long long z = run_div(B.a, B.b, B.len, B.L, q, r);
    if (z >= 0) {
        printf("%s: unexpected zero divisor %lld\n", what, z);
        failures++;
        return;
    }
    int bad = 0;
    for (size_t i = 0; i < B.len; i++) {
        u32 L = B.L;
        if (!check_one(&B.a[i * L], &B.b[i * L], &q[i * L], &r[i * L], L)) {
            if (bad < 3) {
                printf("%s: L=%u element %zu wrong (m=%zu n=%zu)\n", what, L, i,
                       nlen(&B.a[i * L], L), nlen(&B.b[i * L], L));
            }
            bad++;
        }
    }
    if (bad) failures++;
    printf("%-14s L=%5u: %6zu elements %s\n", what, B.L, B.len, bad ? "FAILED" : "ok");
    fflush(stdout);
}

int main(int argc, char **argv) {
    u64 seed = argc > 1 ? strtoull(argv[1], 0, 10) : 1;
    int level = argc > 2 ? atoi(argv[2]) : 1;
    if (argc > 3) blocked_from = atoi(argv[3]);
    if (argc > 4) top_recip = (unsigned)atoi(argv[4]);
    printf("blocked from tier %d, top problem %s\n", blocked_from, top_recip ? "reciprocal" : "sequential");
    rng.seed(seed);
    printf("seed %llu\n", (unsigned long long)seed);

    // div_qhat and the reciprocal against 128-bit arithmetic.
    for (int it = 0; it < 2000000; it++) {
        u64 d1 = rlimb() | (1ull << 63), d0 = rlimb();
        u64 n2 = rlimb(), n1 = rlimb(), n0 = rlimb();
        if (rng() % 4 == 0) n2 = d1 - (rng() % 3 == 0);
        if (n2 > d1 || (n2 == d1 && n1 >= d0)) {
            if (n2 != d1 || rng() % 2) continue;
            n1 = d0;
        }
        u64 di = div_invert_3by2(d1, d0);
        u64 qh = div_qhat(n2, n1, n0, d1, d0, di);
        // reference: floor((n2 n1 n0) / (d1 d0)) by binary long division (192/128 bits)
        unsigned __int128 D = ((unsigned __int128)d1 << 64) | d0;
        unsigned __int128 R = n2;
        u64 qq = 0;
        bool over = false;
        unsigned __int128 top = ((unsigned __int128)n2 << 64) | n1;
        if (top >= D) {
            over = true; // clamp case: expect B-1
        } else {
            R = top;
            for (int bit = 63; bit >= 0; bit--) {
                bool hb = R >> 127;
                R = (R << 1) | ((n0 >> bit) & 1);
                qq <<= 1;
                if (hb || R >= D) {
                    R -= D;
                    qq |= 1;
                }
            }
        }
        if (over ? qh != ~0ull : qh != qq) {
            printf("qhat wrong: %llx %llx %llx / %llx %llx: %llx want %llx\n",
                   (unsigned long long)n2, (unsigned long long)n1, (unsigned long long)n0,
                   (unsigned long long)d1, (unsigned long long)d0, (unsigned long long)qh,
                   (unsigned long long)qq);
            return 1;
        }
    }
    printf("qhat ok\n");

    // Zero divisors: the first one is named.
    {
        Batch B{5};
        for (int i = 0; i < 40; i++) {
            Num v = random_num(5, 1 + rng() % 5, false);
            if (i == 7 || i == 30 || i == 31) v.assign(5, 0);
            B.add(random_num(5, 5, false), v);
        }
        std::vector<u64> q, r;
        long long z = run_div(B.a, B.b, B.len, 5, q, r);
        printf("zero divisor: %lld %s\n", z, z == 7 ? "ok" : "FAILED");
        if (z != 7) failures++;
    }

    std::vector<u32> widths = {1, 2, 3, 4, 5, 7, 8, 9, 15, 16, 17, 31, 32, 33, 63, 64, 65, 100, 127, 128, 129, 255, 256, 257, 511, 512, 513};
    if (level >= 2) {
        for (u32 w : {1023u, 1024u, 1025u, 2047u, 2048u, 2049u, 4095u, 4096u, 4097u}) widths.push_back(w);
    }
    if (level >= 3) {
        for (u32 w : {8191u, 8192u, 8193u, 16384u}) widths.push_back(w);
    }
    for (u32 L : widths) {
        int nrand = L <= 64 ? 200 : L <= 512 ? 40 : 6;
        // random lengths
        {
            Batch B{L};
            for (int i = 0; i < nrand; i++) {
                u32 m = 1 + rng() % L, n = 1 + rng() % L;
                if (L > 600 && rng() % 2) m = min<u32>(L, n + rng() % 20); // few steps: emulation is slow
                B.add(random_num(L, m, i % 3 == 0), random_num(L, n, i % 4 == 0));
            }
            run_batch(B, "random");
        }
        // benchmark shape
        if (L >= 4 && L <= 2048) {
            Batch B{L};
            for (int i = 0; i < nrand; i++) B.add(random_num(L, L - 2, false), random_num(L, 2 + rng() % (L / 2 - 1), false));
            run_batch(B, "bench-shape");
        }
        // the benchmark shape at large widths: hundreds of blocked steps, the
        // window's ring wrapping many times
        if (level >= 2 && (L == 4096 || L == 8192)) {
            Batch B{L};
            for (int i = 0; i < 3; i++) B.add(random_num(L, L - 2, i == 2), random_num(L, L / 4 + rng() % (L / 4), false));
            run_batch(B, "bench-long");
        }
        // every tier boundary this width reaches: n = S-1, S, S+1
        {
            Batch B{L};
            for (int t = 0; t < DIV_NTIERS; t++) {
                for (int dn = -1; dn <= 1; dn++) {
                    long long n = (long long)TIERS[t].s + dn;
                    if (n < 1 || n > L) continue;
                    for (int rep = 0; rep < 3; rep++) {
                        u32 m = min<u32>(L, (u32)n + (L > 600 ? rng() % 12 : rng() % (L - n + 1)));
                        B.add(random_num(L, m, rep == 1), random_num(L, (u32)n, rep == 2));
                    }
                }
            }
            if (B.len) run_batch(B, "tier-bounds");
        }
        // edge values, all pairs (zero divisors replaced by one)
        {
            Batch B{L};
            auto ev = edge_values(L);
            for (auto &x : ev)
                for (auto &y : ev) {
                    Num v = y;
                    if (nlen(v.data(), L) == 0) v[0] = 1;
                    if (L > 600 && nlen(x.data(), L) > nlen(v.data(), L) + 40) continue;
                    B.add(x, v);
                }
            run_batch(B, "edges");
        }
        // adversarial q-hat paths at a few divisor lengths
        {
            Batch B{L};
            std::vector<u32> ns = {1, 2, 3, L / 2 + 1, L > 2 ? L - 1 : 1, L};
            for (u32 n : ns)
                if (n >= 1 && n <= L) adversarial(B, n, L > 600 ? 1 : 4);
            for (u32 n : {257u, 300u, 511u, 512u, 513u, 528u, 529u, L / 2 + 1, L - 17, L - 16, L - 15, L - 1})
                if (n >= 257 && n < L) adversarial_blocked(B, n, 3);
            if (L > 600) {
                // keep the emulation short: drop elements with many steps
                Batch C{L};
                for (size_t i = 0; i < B.len; i++) {
                    size_t m = nlen(&B.a[i * L], L), n = nlen(&B.b[i * L], L);
                    if (m <= n + 60 || n <= 256) C.add(Num(B.a.begin() + i * L, B.a.begin() + (i + 1) * L), Num(B.b.begin() + i * L, B.b.begin() + (i + 1) * L));
                }
                B = C;
            }
            run_batch(B, "adversarial");
        }
    }
    printf("tiers hit:");
    for (int t = 0; t < DIV_NTIERS; t++) printf(" t%d=%llu", t, tier_hits[t]);
    printf("\nrare paths:");
    for (auto &kv : g_count) printf(" %s=%llu", kv.first.c_str(), kv.second);
    printf("\nswitches %llu\n%s\n", emu.switches, failures ? "SOME FAILED" : "ALL OK");
    return failures ? 1 : 0;
}
