// Modular arithmetic, one thread per element: powm (Montgomery, fixed 4-bit
// exponent windows; even moduli m = 2^k q by CRT of the odd part in
// Montgomery form and the power of two by low products), the Montgomery
// conversions and product (R = 2^W), binary gcd and binary modular inverse
// (odd moduli).
//
// MOD_N = 32-bit words per element (2 * limbs), a compile-time constant:
// the element's working values live in registers, the second operand of a
// Montgomery product in a thread-local array (one load per row), the window
// table in a global scratch buffer interleaved by thread (coalesced).
//
// The Montgomery product is CIOS over 32-bit words: per word b_i of the
// second operand, t += a * b_i and t += m * q (q = t_0 * -m^-1 mod 2^32),
// each as two PTX carry chains (mad.lo.cc / madc.lo.cc, then the high
// halves one word up), then t shifts down one word. t < 2m throughout, so
// a product of a < R and b < m (or a, b < m) is reduced by one subtraction.
#include "common.cuh"

#ifndef MOD_N
#define MOD_N 8
#endif
#define N MOD_N

#ifdef __CUDA_ARCH__
#define MD_CC(name, ins)                                                                     \
    __device__ __forceinline__ u32 name(u32 a, u32 b, u32 c) {                               \
        u32 d;                                                                               \
        asm volatile(ins " %0, %1, %2, %3;" : "=r"(d) : "r"(a), "r"(b), "r"(c));             \
        return d;                                                                            \
    }
MD_CC(md_madlo_cc, "mad.lo.cc.u32")
MD_CC(md_madloc_cc, "madc.lo.cc.u32")
MD_CC(md_madhi_cc, "mad.hi.cc.u32")
MD_CC(md_madhic_cc, "madc.hi.cc.u32")
__device__ __forceinline__ u32 md_addc(u32 a, u32 b) {
    u32 d;
    asm volatile("addc.u32 %0, %1, %2;" : "=r"(d) : "r"(a), "r"(b));
    return d;
}
__device__ __forceinline__ u32 md_addc_cc(u32 a, u32 b) {
    u32 d;
    asm volatile("addc.cc.u32 %0, %1, %2;" : "=r"(d) : "r"(a), "r"(b));
    return d;
}
#else
// The host emulation (tests/emu/modular) runs the same chains with an
// explicit carry flag.
static u32 md_cf;
static inline u32 md_out(u64 s) {
    md_cf = (u32)(s >> 32);
    return (u32)s;
}
static inline u32 md_madlo_cc(u32 a, u32 b, u32 c) { return md_out((u64)(u32)((u64)a * b) + c); }
static inline u32 md_madloc_cc(u32 a, u32 b, u32 c) { return md_out((u64)(u32)((u64)a * b) + c + md_cf); }
static inline u32 md_madhi_cc(u32 a, u32 b, u32 c) { return md_out((((u64)a * b) >> 32) + c); }
static inline u32 md_madhic_cc(u32 a, u32 b, u32 c) { return md_out((((u64)a * b) >> 32) + c + md_cf); }
static inline u32 md_addc(u32 a, u32 b) { return a + b + md_cf; }
static inline u32 md_addc_cc(u32 a, u32 b) { return md_out((u64)a + b + md_cf); }
#endif

#define MD __device__ __forceinline__

// ---- word arrays -------------------------------------------------------------

MD void md_load(u32 (&x)[N], const u64 *p) {
#pragma unroll
    for (int i = 0; i < N / 2; i++) {
        u64 v = p[i];
        x[2 * i] = (u32)v;
        x[2 * i + 1] = (u32)(v >> 32);
    }
}
MD void md_store(u64 *p, const u32 (&x)[N]) {
#pragma unroll
    for (int i = 0; i < N / 2; i++) p[i] = ((u64)x[2 * i + 1] << 32) | x[2 * i];
}
MD void md_copy(u32 (&d)[N], const u32 (&s)[N]) {
#pragma unroll
    for (int i = 0; i < N; i++) d[i] = s[i];
}
MD void md_zero(u32 (&d)[N]) {
#pragma unroll
    for (int i = 0; i < N; i++) d[i] = 0;
}
MD bool md_is_zero(const u32 (&x)[N]) {
    u32 o = 0;
#pragma unroll
    for (int i = 0; i < N; i++) o |= x[i];
    return o == 0;
}
MD bool md_is_one(const u32 (&x)[N]) {
    u32 o = x[0] ^ 1;
#pragma unroll
    for (int i = 1; i < N; i++) o |= x[i];
    return o == 0;
}
// a >= b
MD bool md_ge(const u32 (&a)[N], const u32 (&b)[N]) {
    u32 br = 0;
#pragma unroll
    for (int i = 0; i < N; i++) {
        u64 d = (u64)a[i] - b[i] - br;
        br = (u32)(d >> 63);
    }
    return br == 0;
}
// a -= b; returns the borrow.
MD u32 md_sub(u32 (&a)[N], const u32 (&b)[N]) {
    u32 br = 0;
#pragma unroll
    for (int i = 0; i < N; i++) {
        u64 d = (u64)a[i] - b[i] - br;
        a[i] = (u32)d;
        br = (u32)(d >> 63);
    }
    return br;
}
// a += b; returns the carry.
MD u32 md_add(u32 (&a)[N], const u32 (&b)[N]) {
    u32 c = 0;
#pragma unroll
    for (int i = 0; i < N; i++) {
        u64 s = (u64)a[i] + b[i] + c;
        a[i] = (u32)s;
        c = (u32)(s >> 32);
    }
    return c;
}
// a -= b if cond (branch-free).
MD void md_sub_if(u32 (&a)[N], const u32 (&b)[N], bool cond) {
    u32 mask = cond ? ~0u : 0u, br = 0;
#pragma unroll
    for (int i = 0; i < N; i++) {
        u64 d = (u64)a[i] - (b[i] & mask) - br;
        a[i] = (u32)d;
        br = (u32)(d >> 63);
    }
}
// x >>= s, 0 <= s < 32 (top filled with `top` bits).
MD void md_shr(u32 (&x)[N], u32 s, u32 top) {
#pragma unroll
    for (int i = 0; i < N - 1; i++) x[i] = __funnelshift_r(x[i], x[i + 1], s);
    x[N - 1] = __funnelshift_r(x[N - 1], top, s);
}
// x >>= 32 * w (whole words), runtime w.
MD void md_shr_words(u32 (&x)[N], int w) {
    while (w > 0) {
#pragma unroll
        for (int i = 0; i < N - 1; i++) x[i] = x[i + 1];
        x[N - 1] = 0;
        w--;
    }
}
// x <<= s bits (any s < 32N).
MD void md_shl_bits(u32 (&x)[N], u32 s) {
    while (s >= 32) {
#pragma unroll
        for (int i = N - 1; i > 0; i--) x[i] = x[i - 1];
        x[0] = 0;
        s -= 32;
    }
    if (s) {
#pragma unroll
        for (int i = N - 1; i > 0; i--) x[i] = __funnelshift_l(x[i - 1], x[i], s);
        x[0] <<= s;
    }
}
// Trailing zero bits of a non-zero x.
MD u32 md_ctz(const u32 (&x)[N]) {
    u32 r = 0;
    bool found = false;
#pragma unroll
    for (int i = 0; i < N; i++) {
        if (!found && x[i] != 0) {
            r = 32 * i + (__ffs(x[i]) - 1);
            found = true;
        }
    }
    return r;
}
// x >>= s bits (any s < 32N).
MD void md_shr_bits(u32 (&x)[N], u32 s) {
    md_shr_words(x, s >> 5);
    if (s & 31) md_shr(x, s & 31, 0);
}
// Significant bits of x.
MD u32 md_bits(const u32 (&x)[N]) {
    u32 r = 0;
#pragma unroll
    for (int i = 0; i < N; i++)
        if (x[i]) r = 32 * i + 32 - __clz(x[i]);
    return r;
}
// Keeps the low k bits.
MD void md_mask(u32 (&x)[N], u32 k) {
#pragma unroll
    for (int i = 0; i < N; i++) {
        u32 lo = 32 * i;
        if (k <= lo) x[i] = 0;
        else if (k < lo + 32) x[i] &= (1u << (k - lo)) - 1;
    }
}

// ---- Montgomery product ------------------------------------------------------

// -m0^-1 mod 2^32 for odd m0.
MD u32 md_neg_inv(u32 m0) {
    u32 x = m0 * 3 ^ 2;
#pragma unroll
    for (int i = 0; i < 3; i++) x *= 2 - m0 * x;
    return 0u - x;
}

// r = a b / R mod m, R = 2^(32N), for a b < m R; b read word by word from
// memory (b may alias nothing in registers). r may be a.
MD void md_mont(u32 (&r)[N], const u32 (&a)[N], const u32 *b, const u32 (&m)[N], u32 minv) {
    u32 t[N + 2];
#pragma unroll
    for (int j = 0; j < N + 2; j++) t[j] = 0;
#pragma unroll 1
    for (int i = 0; i < N; i++) {
        const u32 bi = b[i];
        t[0] = md_madlo_cc(a[0], bi, t[0]);
#pragma unroll
        for (int j = 1; j < N; j++) t[j] = md_madloc_cc(a[j], bi, t[j]);
        t[N] = md_addc_cc(t[N], 0);
        t[N + 1] = md_addc(0, 0);
        t[1] = md_madhi_cc(a[0], bi, t[1]);
#pragma unroll
        for (int j = 1; j < N; j++) t[j + 1] = md_madhic_cc(a[j], bi, t[j + 1]);
        t[N + 1] = md_addc(t[N + 1], 0);
        // t += m q, shifted down one word on the way (t_0 + lo(m_0 q) = 0
        // mod 2^32: only its carry is kept).
        const u32 q = t[0] * minv;
        (void)md_madlo_cc(m[0], q, t[0]);
#pragma unroll
        for (int j = 1; j < N; j++) t[j - 1] = md_madloc_cc(m[j], q, t[j]);
        t[N - 1] = md_addc_cc(t[N], 0);
        t[N] = md_addc(t[N + 1], 0);
        t[0] = md_madhi_cc(m[0], q, t[0]);
#pragma unroll
        for (int j = 1; j < N; j++) t[j] = md_madhic_cc(m[j], q, t[j]);
        t[N] = md_addc(t[N], 0);
        t[N + 1] = 0;
    }
    // t < 2m: one conditional subtraction.
    u32 br = 0;
    u32 d[N];
#pragma unroll
    for (int i = 0; i < N; i++) {
        u64 x = (u64)t[i] - m[i] - br;
        d[i] = (u32)x;
        br = (u32)(x >> 63);
    }
    const bool keep = t[N] == 0 && br;  // t < m
#pragma unroll
    for (int i = 0; i < N; i++) r[i] = keep ? t[i] : d[i];
}

// r = a b / R mod m with both in registers.
MD void md_mont_rr(u32 (&r)[N], const u32 (&a)[N], const u32 (&b)[N], const u32 (&m)[N], u32 minv) {
    u32 bb[N];
    md_copy(bb, b);
    md_mont(r, a, bb, m, minv);
}

// x = R^2 mod m (odd m > 1) by doubling 2^(bits(m) - 1).
MD void md_r2(u32 (&x)[N], const u32 (&m)[N]) {
    u32 nb = md_bits(m);
    md_zero(x);
    x[(nb - 1) >> 5] = 1u << ((nb - 1) & 31);
    for (u32 i = nb - 1; i < 64 * N; i++) {
        u32 top = x[N - 1] >> 31;
#pragma unroll
        for (int j = N - 1; j > 0; j--) x[j] = (x[j] << 1) | (x[j - 1] >> 31);
        x[0] <<= 1;
        bool ge = top || md_ge(x, m);
        md_sub_if(x, m, ge);
    }
}

// r = (a b) mod 2^(32N).
MD void md_mullo(u32 (&r)[N], const u32 (&a)[N], const u32 *b) {
    u32 t[N];
#pragma unroll
    for (int j = 0; j < N; j++) t[j] = 0;
#pragma unroll 1
    for (int i = 0; i < N; i++) {
        const u32 bi = b[i];
        u64 c = 0;
#pragma unroll
        for (int j = 0; j < N; j++) {
            if (j >= N - i) break;
            u64 p = (u64)a[j] * bi + t[i + j] + c;  // i + j < N
            t[i + j] = (u32)p;
            c = p >> 32;
        }
    }
    md_copy(r, t);
}
MD void md_mullo_rr(u32 (&r)[N], const u32 (&a)[N], const u32 (&b)[N]) {
    u32 bb[N];
    md_copy(bb, b);
    md_mullo(r, a, bb);
}

// Element i's value of an operand: each element's or the shared one.
MD const u64 *md_at(const u64 *p, u32 each, u64 i) { return each ? p + i * (N / 2) : p; }

// ---- checks ---------------------------------------------------------------

// flags[0] = min index with a zero modulus, flags[1] = min index with an even
// one (both start at ~0).
extern "C" __global__ void mod_check(const u64 *m, u32 each, u64 n, unsigned long long *flags) {
    u64 cnt = each ? n : 1;
    for (u64 i = blockIdx.x * (u64)blockDim.x + threadIdx.x; i < cnt; i += (u64)gridDim.x * blockDim.x) {
        const u64 *p = m + i * (N / 2);
        u64 o = 0;
        for (int k = 0; k < N / 2; k++) o |= p[k];
        if (o == 0) atomicMin(&flags[0], (unsigned long long)i);
        else if ((p[0] & 1) == 0) atomicMin(&flags[1], (unsigned long long)i);
    }
}

// ---- powm ---------------------------------------------------------------------

#define MD_W 4
#define MD_T (1 << MD_W)

// Window of exponent bits [4w, 4w + 4).
MD u32 md_window(const u64 *e, u32 w) {
    u32 bitpos = 4 * w;
    return (u32)(e[bitpos >> 6] >> (bitpos & 63)) & 15;
}

// r = base^e mod m. tab: scratch of MD_T * N words per thread, interleaved
// (word k of entry j of thread g at (j*N + k) * stride + g).
extern "C" __global__ void __launch_bounds__(128) mod_powm(u64 *r, const u64 *base, const u64 *exp,
                                                           u32 e_each, const u64 *mod, u32 m_each,
                                                           u64 n, u32 *tab) {
    const u64 stride = (u64)gridDim.x * blockDim.x;
    const u64 g = blockIdx.x * (u64)blockDim.x + threadIdx.x;
    u32 *T = tab + g;
#define TAB(j, k) T[((u64)(j) * N + (k)) * stride]
    for (u64 idx = g; idx < n; idx += stride) {
        u32 q[N], x[N], y[N];
        md_load(q, md_at(mod, m_each, idx));
        const u64 *e = md_at(exp, e_each, idx);
        // Top window index of the exponent (-1 when e = 0).
        int top = -1;
        for (int k = N / 2 - 1; k >= 0; k--) {
            if (e[k]) {
                top = (64 * k + 63 - __clzll(e[k])) / 4;
                break;
            }
        }
        const u32 k2 = md_ctz(q);
        md_shr_bits(q, k2);
        // x = b^e mod q (odd part), x = 0 when q == 1.
        if (md_is_one(q)) {
            md_zero(x);
        } else {
            const u32 minv = md_neg_inv(q[0]);
            u32 one[N];
            md_zero(one);
            one[0] = 1;
            md_r2(y, q);                  // R^2 mod q
            md_mont_rr(x, y, one, q, minv); // R mod q = Montgomery 1
            u32 bm[N];
            md_load(bm, base + idx * (N / 2));
            md_mont_rr(bm, bm, y, q, minv); // b R mod q (b < R, R^2 mod q < q)
#pragma unroll
            for (int k = 0; k < N; k++) {
                TAB(0, k) = x[k];
                TAB(1, k) = bm[k];
            }
#pragma unroll 1
            for (int j = 2; j < MD_T; j++) {
                u32 prev[N];
#pragma unroll
                for (int k = 0; k < N; k++) prev[k] = TAB(j - 1, k);
                md_mont_rr(y, prev, bm, q, minv);
#pragma unroll
                for (int k = 0; k < N; k++) TAB(j, k) = y[k];
            }
            bool started = false;
#pragma unroll 1
            for (int w = top; w >= 0; w--) {
                u32 v = md_window(e, w);
                if (started) {
#pragma unroll 1
                    for (int s = 0; s < MD_W; s++) md_mont_rr(x, x, x, q, minv);
                }
                if (v) {
                    if (started) {
                        u32 bb[N];
#pragma unroll
                        for (int k = 0; k < N; k++) bb[k] = TAB(v, k);
                        md_mont(x, x, bb, q, minv);
                    } else {
#pragma unroll
                        for (int k = 0; k < N; k++) x[k] = TAB(v, k);
                        started = true;
                    }
                }
            }
            md_mont_rr(x, x, one, q, minv);  // out of Montgomery form
        }
        if (k2 > 0) {
            // y = b^e mod 2^(32N) by low products (table reused).
            u32 one[N], b[N];
            md_zero(one);
            one[0] = 1;
            md_load(b, base + idx * (N / 2));
#pragma unroll
            for (int k = 0; k < N; k++) {
                TAB(0, k) = one[k];
                TAB(1, k) = b[k];
            }
#pragma unroll 1
            for (int j = 2; j < MD_T; j++) {
                u32 prev[N];
#pragma unroll
                for (int k = 0; k < N; k++) prev[k] = TAB(j - 1, k);
                md_mullo_rr(y, prev, b);
#pragma unroll
                for (int k = 0; k < N; k++) TAB(j, k) = y[k];
            }
            md_copy(y, one);
#pragma unroll 1
            for (int w = top; w >= 0; w--) {
                u32 v = md_window(e, w);
#pragma unroll 1
                for (int s = 0; s < MD_W; s++) md_mullo_rr(y, y, y);
                if (v) {
                    u32 bb[N];
#pragma unroll
                    for (int k = 0; k < N; k++) bb[k] = TAB(v, k);
                    md_mullo(y, y, bb);
                }
            }
            // CRT: x + q * ((y - x) q^-1 mod 2^k2).
            u32 qi[N];
            md_zero(qi);
            {
                u32 q0 = q[0], z = q0 * 3 ^ 2;
                for (int i = 0; i < 3; i++) z *= 2 - q0 * z;
                qi[0] = z;  // q^-1 mod 2^32
            }
            // Newton: qi = qi (2 - q qi), precision doubling from 32 bits.
            for (u32 prec = 32; prec < 32 * N; prec *= 2) {
                u32 t[N], two[N];
                md_mullo_rr(t, q, qi);
                md_zero(two);
                two[0] = 2;
                md_sub(two, t);
                md_mullo_rr(qi, qi, two);
            }
            md_sub(y, x);
            md_mask(y, k2);
            md_mullo_rr(y, y, qi);
            md_mask(y, k2);
            md_mullo_rr(y, y, q);
            md_add(x, y);
        }
        md_store(r + idx * (N / 2), x);
    }
#undef TAB
}

// ---- Montgomery conversions and product (R = 2^W, odd m) --------------------

// op 0: a R mod m; 1: a / R mod m; 2: a b / R mod m.
extern "C" __global__ void __launch_bounds__(128) mod_mont(u64 *r, const u64 *a, const u64 *bp,
                                                           const u64 *mod, u32 m_each, u64 n, u32 op) {
    const u64 stride = (u64)gridDim.x * blockDim.x;
    for (u64 idx = blockIdx.x * (u64)blockDim.x + threadIdx.x; idx < n; idx += stride) {
        u32 m[N], x[N], y[N], one[N];
        md_load(m, md_at(mod, m_each, idx));
        md_load(x, a + idx * (N / 2));
        md_zero(one);
        one[0] = 1;
        const u32 minv = md_neg_inv(m[0]);
        if (md_is_one(m)) {
            md_zero(x);
        } else if (op == 1) {
            md_mont_rr(x, x, one, m, minv);
        } else {
            md_r2(y, m);
            md_mont_rr(x, x, y, m, minv);  // a R mod m
            if (op == 2) {
                md_mont_rr(x, x, one, m, minv);  // a mod m
                md_load(y, bp + idx * (N / 2));
                md_mont_rr(x, x, y, m, minv);  // (a mod m) b < m R
            }
        }
        md_store(r + idx * (N / 2), x);
    }
}

// ---- gcd and inverse ---------------------------------------------------------

// Binary gcd (Stein).
extern "C" __global__ void __launch_bounds__(128) mod_gcd(u64 *r, const u64 *a, const u64 *bp, u32 b_each,
                                                          u64 n) {
    const u64 stride = (u64)gridDim.x * blockDim.x;
    for (u64 idx = blockIdx.x * (u64)blockDim.x + threadIdx.x; idx < n; idx += stride) {
        u32 u[N], v[N];
        md_load(u, a + idx * (N / 2));
        md_load(v, md_at(bp, b_each, idx));
        if (md_is_zero(u)) {
            md_store(r + idx * (N / 2), v);
            continue;
        }
        if (md_is_zero(v)) {
            md_store(r + idx * (N / 2), u);
            continue;
        }
        u32 zu = md_ctz(u), zv = md_ctz(v);
        u32 k = zu < zv ? zu : zv;
        md_shr_bits(u, zu);
        md_shr_bits(v, zv);
        // Both odd from here on.
#pragma unroll 1
        while (true) {
            // v = |u - v|, u = min(u, v)
            u32 br = 0;
            u32 d[N];
#pragma unroll
            for (int i = 0; i < N; i++) {
                u64 x = (u64)v[i] - u[i] - br;
                d[i] = (u32)x;
                br = (u32)(x >> 63);
            }
            if (br) {
                // v < u: d = v - u negative; u - v = -d; u = v.
#pragma unroll
                for (int i = 0; i < N; i++) u[i] = v[i];
                u32 c = 1;
#pragma unroll
                for (int i = 0; i < N; i++) {
                    u64 s = (u64)(~d[i]) + c;
                    d[i] = (u32)s;
                    c = (u32)(s >> 32);
                }
            }
            if (md_is_zero(d)) break;
            md_copy(v, d);
            u32 s = md_ctz(v);
            md_shr_bits(v, s);
        }
        md_shl_bits(u, k);
        md_store(r + idx * (N / 2), u);
    }
}

// ---- modular inverse: Bernstein-Yang divsteps, 30 at a time ----------------
//
// Variable-time safegcd (as libsecp256k1's modinv32_var): values in signed
// 30-bit limbs (int32, all but the top limb in [0, 2^30), the top one
// signed), IV_K limbs = W + 2 bits with sign. Each batch runs 30 divsteps
// on the low limbs of f and g only (u32 arithmetic) and yields a 2x2
// matrix t of entries |.| <= 2^30; then [f, g] = t [f, g] / 2^30 (exact)
// and [d, e] = (t [d, e] + m [md, me]) / 2^30 with md, me chosen to clear
// the low 30 bits. Invariants: f = d a, g = e a (mod m); f odd; |f|, |g| <=
// max(m, a); d, e in (-2m, m). Stops when g = 0: then f = +-gcd(a, m).
// f and g live in registers; d, e and m in a scratch buffer interleaved
// by thread (word i of array j of thread g at (j*IV_K + i) * stride + g).

#define IV_K ((32 * N + 31) / 30)
#define IV_M30 0x3FFFFFFF
typedef int s32;

// 30-bit limbs of the W-bit x (u32 words).
MD void iv_to30(s32 (&y)[IV_K], const u32 (&x)[N]) {
#pragma unroll
    for (int i = 0; i < IV_K; i++) {
        const int b = 30 * i, j = b >> 5, s = b & 31;
        u32 lo = j < N ? x[j] : 0, hi = j + 1 < N ? x[j + 1] : 0;
        y[i] = (s32)(__funnelshift_r(lo, hi, s) & IV_M30);
    }
}
// W-bit words of y (limbs normalised, value in [0, 2^W)).
MD void iv_from30(u32 (&x)[N], const s32 *y, u64 stride) {
#pragma unroll
    for (int k = 0; k < N; k++) {
        const int b = 32 * k, i = b / 30, s = b % 30;  // s even, <= 28
        u32 w = (u32)y[(u64)i * stride] >> s;
        if (i + 1 < IV_K) w |= (u32)y[(u64)(i + 1) * stride] << (30 - s);
        if (s > 28 && i + 2 < IV_K) w |= (u32)y[(u64)(i + 2) * stride] << (60 - s);
        x[k] = w;
    }
}

// 30 divsteps (variable time) from eta = -delta on the low limbs f0, g0;
// returns eta, the matrix in (u, v, q, r).
MD s32 iv_divsteps(s32 eta, u32 f, u32 g, s32 &tu, s32 &tv, s32 &tq, s32 &tr) {
    u32 u = 1, v = 0, q = 0, r = 1;
    int i = 30;
#pragma unroll 1
    for (;;) {
        const int zeros = __ffs(g | (0xFFFFFFFFu << i)) - 1;  // i < 32: a set bit
        g >>= zeros;
        u <<= zeros;
        v <<= zeros;
        eta -= zeros;
        i -= zeros;
        if (i == 0) break;
        if (eta < 0) {
            u32 t;
            eta = -eta;
            t = f; f = g; g = 0u - t;
            t = u; u = q; q = 0u - t;
            t = v; v = r; r = 0u - t;
        }
        // Cancel the low min(eta + 1, i) bits of g with a multiple of f.
        const int limit = (eta + 1) > i ? i : (eta + 1);
        const u32 msk = 0xFFFFFFFFu >> (32 - limit);
        u32 fi = f;  // f^-1 mod 2^32 by Newton (f odd: f f = 1 mod 8)
        fi *= 2 - f * fi;
        fi *= 2 - f * fi;
        fi *= 2 - f * fi;
        fi *= 2 - f * fi;
        const u32 w = (0u - g * fi) & msk;
        g += f * w;
        q += u * w;
        r += v * w;
    }
    tu = (s32)u;
    tv = (s32)v;
    tq = (s32)q;
    tr = (s32)r;
    return eta;
}

// [f, g] = t [f, g] / 2^30.
MD void iv_update_fg(s32 (&f)[IV_K], s32 (&g)[IV_K], s32 u, s32 v, s32 q, s32 r) {
    i64 cf = (i64)u * f[0] + (i64)v * g[0];
    i64 cg = (i64)q * f[0] + (i64)r * g[0];
    cf >>= 30;
    cg >>= 30;
#pragma unroll
    for (int i = 1; i < IV_K; i++) {
        cf += (i64)u * f[i] + (i64)v * g[i];
        cg += (i64)q * f[i] + (i64)r * g[i];
        f[i - 1] = (s32)cf & IV_M30;
        g[i - 1] = (s32)cg & IV_M30;
        cf >>= 30;
        cg >>= 30;
    }
    f[IV_K - 1] = (s32)cf;
    g[IV_K - 1] = (s32)cg;
}

// [d, e] = (t [d, e] + m [md, me]) / 2^30, D = d, D + K stride = e, D + 2K
// stride = m (scratch); minv = m^-1 mod 2^30.
MD void iv_update_de(s32 *D, u64 stride, s32 u, s32 v, s32 q, s32 r, u32 minv) {
    s32 *E = D + (u64)IV_K * stride, *M = D + 2 * (u64)IV_K * stride;
    const s32 sd = D[(u64)(IV_K - 1) * stride] >> 31, se = E[(u64)(IV_K - 1) * stride] >> 31;
    s32 md = (u & sd) + (v & se), me = (q & sd) + (r & se);
    s32 di = D[0], ei = E[0], mi = M[0];
    i64 cd = (i64)u * di + (i64)v * ei;
    i64 ce = (i64)q * di + (i64)r * ei;
    md -= (s32)((minv * (u32)cd + (u32)md) & IV_M30);
    me -= (s32)((minv * (u32)ce + (u32)me) & IV_M30);
    cd += (i64)mi * md;
    ce += (i64)mi * me;
    cd >>= 30;
    ce >>= 30;
#pragma unroll 4
    for (int i = 1; i < IV_K; i++) {
        const u64 o = (u64)i * stride;
        di = D[o];
        ei = E[o];
        mi = M[o];
        cd += (i64)u * di + (i64)v * ei + (i64)mi * md;
        ce += (i64)q * di + (i64)r * ei + (i64)mi * me;
        D[o - stride] = (s32)cd & IV_M30;
        E[o - stride] = (s32)ce & IV_M30;
        cd >>= 30;
        ce >>= 30;
    }
    D[(u64)(IV_K - 1) * stride] = (s32)cd;
    E[(u64)(IV_K - 1) * stride] = (s32)ce;
}

// x += m (scratch arrays, limbs normalised afterwards).
MD void iv_add_m(s32 *X, const s32 *M, u64 stride) {
    s32 c = 0;
#pragma unroll 4
    for (int i = 0; i < IV_K - 1; i++) {
        const u64 o = (u64)i * stride;
        c += X[o] + M[o];
        X[o] = c & IV_M30;
        c >>= 30;
    }
    X[(u64)(IV_K - 1) * stride] += M[(u64)(IV_K - 1) * stride] + c;
}
// x = -x (scratch, limbs normalised afterwards).
MD void iv_neg(s32 *X, u64 stride) {
    s32 c = 0;
#pragma unroll 4
    for (int i = 0; i < IV_K - 1; i++) {
        const u64 o = (u64)i * stride;
        c -= X[o];
        X[o] = c & IV_M30;
        c >>= 30;
    }
    X[(u64)(IV_K - 1) * stride] = c - X[(u64)(IV_K - 1) * stride];
}

// Inverse of a mod m for odd m (flag 1), or 0 and flag 0. Elements with an
// even modulus are left alone (the host runs those). scr: 3 * IV_K words
// per thread of the grid.
extern "C" __global__ void __launch_bounds__(128) mod_inv(u64 *r, u8 *flag, const u64 *a, const u64 *mod,
                                                          u32 m_each, u64 n, s32 *scr) {
    const u64 stride = (u64)gridDim.x * blockDim.x;
    const u64 gi = blockIdx.x * (u64)blockDim.x + threadIdx.x;
    s32 *D = scr + gi, *E = D + (u64)IV_K * stride, *M = D + 2 * (u64)IV_K * stride;
    for (u64 idx = gi; idx < n; idx += stride) {
        u32 x[N];
        md_load(x, md_at(mod, m_each, idx));
        if ((x[0] & 1) == 0) continue;
        if (md_is_one(x)) {
            md_zero(x);
            md_store(r + idx * (N / 2), x);
            flag[idx] = 1;
            continue;
        }
        s32 f[IV_K], g[IV_K];
        iv_to30(f, x);
        u32 minv = x[0];  // m^-1 mod 2^32
        minv *= 2 - x[0] * minv;
        minv *= 2 - x[0] * minv;
        minv *= 2 - x[0] * minv;
        minv *= 2 - x[0] * minv;
        minv &= IV_M30;
        md_load(x, a + idx * (N / 2));
        iv_to30(g, x);
#pragma unroll 4
        for (int i = 0; i < IV_K; i++) {
            const u64 o = (u64)i * stride;
            M[o] = f[i];
            D[o] = 0;
            E[o] = i == 0;
        }
        s32 eta = -1;
        // Bernstein-Yang's bound: (49 W + 80) / 17 divsteps.
        const int maxit = (49 * 32 * N + 80) / 17 / 30 + 2;
        bool done = md_is_zero(x);
#pragma unroll 1
        for (int it = 0; !done && it < maxit; it++) {
            s32 u, v, q, rr;
            eta = iv_divsteps(eta, (u32)f[0], (u32)g[0], u, v, q, rr);
            iv_update_de(D, stride, u, v, q, rr, minv);
            iv_update_fg(f, g, u, v, q, rr);
            if (g[0] == 0) {
                s32 o = 0;
#pragma unroll
                for (int i = 1; i < IV_K; i++) o |= g[i];
                done = o == 0;
            }
        }
        // f = +-1?
        bool pos = f[0] == 1, neg = f[0] == IV_M30 && f[IV_K - 1] == -1;
#pragma unroll
        for (int i = 1; i < IV_K - 1; i++) {
            pos = pos && f[i] == 0;
            neg = neg && f[i] == IV_M30;
        }
        pos = pos && f[IV_K - 1] == 0;
        const bool ok = done && (pos || neg);
        if (ok) {
            // d in (-2m, m) -> (-m, m) -> times the sign of f -> [0, m).
            if (D[(u64)(IV_K - 1) * stride] < 0) iv_add_m(D, M, stride);
            if (neg) iv_neg(D, stride);
            if (D[(u64)(IV_K - 1) * stride] < 0) iv_add_m(D, M, stride);
            iv_from30(x, D, stride);
        } else {
            md_zero(x);
        }
        md_store(r + idx * (N / 2), x);
        flag[idx] = ok ? 1 : 0;
    }
}
