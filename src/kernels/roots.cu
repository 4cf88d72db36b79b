// The fused Ehrlich-Aberth iteration (src/complex/polyroots.rs has the
// sequence of operations and the CPU engine's copy of it): one block per
// root, the block's threads sharing the powers, the terms of p and p', the
// repulsion sum's terms and the pairwise sums' levels; every operation is
// float_common.cuh's MPFR arithmetic at the working precision, so the bits
// are the CPU engine's. RT_N: limbs per float (every value has exactly
// RT_N limbs). Values are packed: a float is RT_N + 1 words (the head
// exp << 8 | tag, then the limbs), a complex two floats.
#include "common.cuh"
#include "float_common.cuh"

#ifndef RT_N
#define RT_N 8
#endif

#define RT_W (RT_N + 1)
#define RT_CW (2 * RT_W)

__device__ __forceinline__ bool rt_normal(u64 h) { return (fl_tag(h) & 3) == FL_NORMAL; }

// r = x * y (r distinct from x and y).
__device__ __noinline__ void rt_mul(u64 *r, const u64 *x, const u64 *y, u64 p, u32 rnd) {
    FlOut o = {r + 1, RT_N, 0};
    u64 xh = x[0], yh = y[0];
    if (rt_normal(xh) && rt_normal(yh)) {
        i8 t;
        if (RT_N < 4 || !fl_mul_short<RT_N, true>(o, xh, x + 1, yh, y + 1, p, rnd, t))
            fl_mul_fast<RT_N>(o, xh, x + 1, yh, y + 1, p, rnd);
    } else {
        fl_arith<RT_N>(FL_OP_MUL, rnd, p, o, xh, x + 1, RT_N, yh, y + 1, RT_N, 0, x + 1, 0);
    }
    r[0] = o.head;
}

// r = x + y or x - y.
__device__ __noinline__ void rt_add(u64 *r, const u64 *x, const u64 *y, bool sub, u64 p,
                                    u32 rnd) {
    FlOut o = {r + 1, RT_N, 0};
    u64 xh = x[0], yh = y[0];
    if (rt_normal(xh) && rt_normal(yh))
        fl_add_fast<RT_N>(o, xh, x + 1, yh, y + 1, sub, p, rnd);
    else
        fl_arith<RT_N>(sub ? FL_OP_SUB : FL_OP_ADD, rnd, p, o, xh, x + 1, RT_N, yh, y + 1, RT_N,
                       0, x + 1, 0);
    r[0] = o.head;
}

// r = x / y, to nearest.
__device__ __noinline__ void rt_div(u64 *r, const u64 *x, const u64 *y, u64 p) {
    FlOut o = {r + 1, RT_N, 0};
    fl_arith<RT_N>(FL_OP_DIV, FL_RN, p, o, x[0], x + 1, RT_N, y[0], y + 1, RT_N, 0, x + 1, 0);
    r[0] = o.head;
}

// r = x * 2^k (mpfr_mul_2si, k clamped to +-2^40 as the CPU engine does).
__device__ void rt_shift(u64 *r, const u64 *x, i64 k, u64 p, u32 rnd) {
    const i64 lim = 1ll << 40;
    k = k < -lim ? -lim : (k > lim ? lim : k);
    FlOut o = {r + 1, RT_N, 0};
    fl_set(o, x[0], x + 1, RT_N, false, false, k, p, rnd);
    r[0] = o.head;
}

__device__ __forceinline__ void rt_copy(u64 *r, const u64 *x, u32 words) {
    for (u32 k = 0; k < words; k++) r[k] = x[k];
}

// |x| (exact).
__device__ __forceinline__ void rt_abs(u64 *r, const u64 *x) {
    rt_copy(r, x, RT_W);
    r[0] &= ~(u64)FL_NEG;
}

// -x in place (exact; NaN unchanged).
__device__ __forceinline__ void rt_negate(u64 *x) {
    if ((fl_tag(x[0]) & 3) != FL_NAN) x[0] ^= (u64)FL_NEG;
}

// x <= y (false with a NaN).
__device__ __forceinline__ bool rt_le(const u64 *x, const u64 *y) {
    i8 c = fl_cmp(x[0], x + 1, RT_N, y[0], y + 1, RT_N);
    return c == -1 || c == 0;
}

// r = x y (complex; r distinct from x and y).
__device__ void rt_cmul(u64 *r, const u64 *x, const u64 *y, u64 p) {
    u64 t1[RT_W], t2[RT_W];
    rt_mul(t1, x, y, p, FL_RN);
    rt_mul(t2, x + RT_W, y + RT_W, p, FL_RN);
    rt_add(r, t1, t2, true, p, FL_RN);
    rt_mul(t1, x, y + RT_W, p, FL_RN);
    rt_mul(t2, x + RT_W, y, p, FL_RN);
    rt_add(r + RT_W, t1, t2, false, p, FL_RN);
}

// r = x +- y part by part.
__device__ void rt_cadd(u64 *r, const u64 *x, const u64 *y, bool sub, u64 p) {
    rt_add(r, x, y, sub, p, FL_RN);
    rt_add(r + RT_W, x + RT_W, y + RT_W, sub, p, FL_RN);
}

// r = 1/d = (d_r q, -(d_i q)), q = 1/(d_r^2 + d_i^2).
__device__ void rt_rec(u64 *r, const u64 *d, const u64 *one, u64 p) {
    u64 t1[RT_W], t2[RT_W], q[RT_W];
    rt_mul(t1, d, d, p, FL_RN);
    rt_mul(t2, d + RT_W, d + RT_W, p, FL_RN);
    rt_add(q, t1, t2, false, p, FL_RN);
    rt_div(t1, one, q, p);
    rt_mul(r, d, t1, p, FL_RN);
    rt_mul(r + RT_W, d + RT_W, t1, p, FL_RN);
    rt_negate(r + RT_W);
}

// r = z_r^2 + z_i^2.
__device__ void rt_norm2(u64 *r, const u64 *z, u64 p) {
    u64 t1[RT_W], t2[RT_W];
    rt_mul(t1, z, z, p, FL_RN);
    rt_mul(t2, z + RT_W, z + RT_W, p, FL_RN);
    rt_add(r, t1, t2, false, p, FL_RN);
}

// Whether the tree slot at k covering `width` leaves holds a leaf other
// than `skip` (of cnt).
__device__ __forceinline__ bool rt_present(u32 k, u32 width, u32 cnt, u32 skip) {
    u32 end = k + width < cnt ? k + width : cnt;
    return end > k && !(end - k == 1 && k == skip);
}

// The pairwise sum of cnt leaves of `parts` floats (stride parts * RT_W
// words) in v, leaf `skip` absent, into leaf 0 (zeros when all are
// absent); the whole block calls it.
__device__ void rt_tsum(u64 *v, u32 cnt, u32 parts, u32 skip, u64 p, u32 rnd) {
    const u32 cw = parts * RT_W;
    u32 s = 1;
    for (; s < cnt; s *= 2) {
        for (u32 q = threadIdx.x; (u64)q * 2 * s + s < cnt; q += blockDim.x) {
            u32 k = q * 2 * s;
            bool l = rt_present(k, s, cnt, skip), r = rt_present(k + s, s, cnt, skip);
            u64 *a = v + (u64)k * cw, *b = v + (u64)(k + s) * cw;
            if (l && r) {
                u64 tmp[RT_W];
                for (u32 part = 0; part < parts; part++) {
                    rt_add(tmp, a + part * RT_W, b + part * RT_W, false, p, rnd);
                    rt_copy(a + part * RT_W, tmp, RT_W);
                }
            } else if (r) {
                rt_copy(a, b, cw);
            }
        }
        __syncthreads();
    }
    if (threadIdx.x == 0 && !rt_present(0, s, cnt, skip))
        for (u32 k = 0; k < cw; k++) v[k] = 0;
    __syncthreads();
}

// Per-root workspace layout (words): X (n+1 complex), R (n+1 real), the
// leaves of p (n+1 complex), p' (n complex), noise (n+1 real), S (n complex).
__device__ __forceinline__ u64 rt_ws_words(u32 n) {
    return (u64)(n + 1) * RT_CW * 2 + (u64)n * RT_CW * 2 + (u64)(n + 1) * RT_W * 2;
}

#define RT_F_ISO 1
#define RT_F_NOISE 2
#define RT_F_SMALL 4

// The correction of root i from the sum S in leaves[0] (block-wide call;
// thread 0 computes): ps = p S, iso, c = p (1/(p' - ps)), t' = x_i - c,
// small when `last`.
__device__ void rt_tail(u32 i, const u64 *xi, const u64 *pd, const u64 *sum, u64 *tout,
                        u8 *flags, const u64 *one, const u64 *tol2, u64 p, bool first,
                        bool last) {
    if (threadIdx.x == 0) {
        u64 ps[RT_CW], den[RT_CW], r[RT_CW], c[RT_CW], tn[RT_CW];
        u64 a[RT_W], b[RT_W], a16[RT_W];
        const u64 *pv = pd, *dp = pd + RT_CW;
        rt_cmul(ps, pv, sum, p);
        u8 f = flags[i];
        if (first) {
            rt_norm2(a, ps, p);
            rt_shift(a16, a, 4, p, FL_RN);
            rt_norm2(b, dp, p);
            f = rt_le(a16, b) ? (f | RT_F_ISO) : (f & ~RT_F_ISO);
        }
        rt_cadd(den, dp, ps, true, p);
        rt_rec(r, den, one, p);
        rt_cmul(c, pv, r, p);
        rt_cadd(tn, xi, c, true, p);
        f &= ~RT_F_SMALL;
        if (last) {
            rt_norm2(a, c, p);
            rt_norm2(b, tn, p);
            rt_mul(a16, b, tol2, p, FL_RN);
            if (rt_le(a, a16)) f |= RT_F_SMALL;
        }
        flags[i] = f;
        rt_copy(tout + (u64)i * RT_CW, tn, RT_CW);
    }
}

// The leaves 1/(x_i - t_j), j != i, into S (block-wide) and their sum.
__device__ void rt_repulsion(u32 i, const u64 *xi, const u64 *t, u64 *S, u32 n,
                             const u64 *one, u64 p) {
    for (u32 j = threadIdx.x; j < n; j += blockDim.x) {
        if (j == i) continue;
        u64 d[RT_CW];
        rt_cadd(d, xi, t + (u64)j * RT_CW, true, p);
        rt_rec(S + (u64)j * RT_CW, d, one, p);
    }
    __syncthreads();
    rt_tsum(S, n, 2, i, p, FL_RN);
}

// Phase A of a step, block i = root i: powers, p, p', noise, S(x), the
// first correction t^(1) into tout, p and p' into pd, the flags.
// consts: 1 and tol^2.
extern "C" __global__ void roots_aberth_first(const u64 *x, u64 *tout, u64 *pd, u64 *ws,
                                              u8 *flags, const u64 *A, const u64 *D,
                                              const u64 *AB, const u64 *consts, u32 n, u64 p,
                                              i64 kshift, u32 last) {
    const u32 i = blockIdx.x;
    const u64 *one = consts, *tol2 = consts + RT_W;
    const u64 *xi = x + (u64)i * RT_CW;
    u64 *X = ws + (u64)i * rt_ws_words(n);
    u64 *R = X + (u64)(n + 1) * RT_CW;
    u64 *P = R + (u64)(n + 1) * RT_W;
    u64 *Q = P + (u64)(n + 1) * RT_CW;
    u64 *Z = Q + (u64)n * RT_CW;
    u64 *S = Z + (u64)(n + 1) * RT_W;
    if (threadIdx.x == 0) {
        rt_copy(X, one, RT_W);
        for (u32 k = 0; k < RT_W; k++) X[RT_W + k] = 0;
        rt_copy(X + RT_CW, xi, RT_CW);
        rt_copy(R, one, RT_W);
        u64 ar[RT_W], ai[RT_W];
        rt_abs(ar, xi);
        rt_abs(ai, xi + RT_W);
        rt_add(R + RT_W, ar, ai, false, p, FL_RU);
        flags[i] = 0;
    }
    __syncthreads();
    for (u32 s = 1; s < n; s *= 2) {
        u32 hi = 2 * s < n ? 2 * s : n;
        for (u32 k = s + 1 + threadIdx.x; k <= hi; k += blockDim.x) {
            rt_cmul(X + (u64)k * RT_CW, X + (u64)s * RT_CW, X + (u64)(k - s) * RT_CW, p);
            rt_mul(R + (u64)k * RT_W, R + (u64)s * RT_W, R + (u64)(k - s) * RT_W, p, FL_RU);
        }
        __syncthreads();
    }
    for (u32 k = threadIdx.x; k <= n; k += blockDim.x) {
        const u64 *xk = X + (u64)k * RT_CW;
        rt_cmul(P + (u64)k * RT_CW, A + (u64)k * RT_CW, xk, p);
        if (k < n) rt_cmul(Q + (u64)k * RT_CW, D + (u64)k * RT_CW, xk, p);
        rt_mul(Z + (u64)k * RT_W, AB + (u64)k * RT_W, R + (u64)k * RT_W, p, FL_RU);
    }
    __syncthreads();
    rt_tsum(P, n + 1, 2, 0xffffffffu, p, FL_RN);
    rt_tsum(Q, n, 2, 0xffffffffu, p, FL_RN);
    rt_tsum(Z, n + 1, 1, 0xffffffffu, p, FL_RU);
    u64 *pdi = pd + (u64)i * 2 * RT_CW;
    if (threadIdx.x == 0) {
        rt_copy(pdi, P, RT_CW);
        rt_copy(pdi + RT_CW, Q, RT_CW);
        u64 ar[RT_W], ai[RT_W], a1[RT_W], thr[RT_W];
        rt_abs(ar, P);
        rt_abs(ai, P + RT_W);
        rt_add(a1, ar, ai, false, p, FL_RU);
        rt_shift(thr, Z, kshift, p, FL_RU);
        if (rt_le(a1, thr)) flags[i] |= RT_F_NOISE;
    }
    rt_repulsion(i, xi, x, S, n, one, p);
    rt_tail(i, xi, pdi, S, tout, flags, one, tol2, p, true, last != 0);
}

// A later sub-step, block i = root i: t' = x_i - p/(p' - p S(t)).
extern "C" __global__ void roots_aberth_next(const u64 *x, const u64 *t, u64 *tout,
                                             const u64 *pd, u64 *ws, u8 *flags,
                                             const u64 *consts, u32 n, u64 p, u32 last) {
    const u32 i = blockIdx.x;
    const u64 *one = consts, *tol2 = consts + RT_W;
    const u64 *xi = x + (u64)i * RT_CW;
    u64 *S = ws + (u64)i * rt_ws_words(n) + (u64)(n + 1) * RT_CW * 2 + (u64)n * RT_CW +
             (u64)(n + 1) * RT_W * 2;
    rt_repulsion(i, xi, t, S, n, one, p);
    rt_tail(i, xi, pd + (u64)i * 2 * RT_CW, S, tout, flags, one, tol2, p, false, last != 0);
}

// The rigorous residual bound of polyroots.rs's certify_root, one thread
// per point (block i = point i, thread 0): Horner's rule with the four
// rounded products and the radius in upward rounding. er: the coefficients'
// rounding bounds (n+1 reals); out: one real per point.
extern "C" __global__ void roots_certify(const u64 *x, u64 *out, const u64 *A, const u64 *er,
                                         u32 n, u32 len, u64 p) {
    const u32 i = blockIdx.x;
    if (i >= len || threadIdx.x != 0) return;
    const u64 *xi = x + (u64)i * RT_CW;
    u64 ax[RT_W], ta[RT_W], tb[RT_W], s[RT_CW], r[RT_W], t[RT_CW];
    u64 pr[4 * RT_W], m[RT_W], m2[RT_W], u[RT_W];
    rt_abs(ta, xi);
    rt_abs(tb, xi + RT_W);
    rt_add(ax, ta, tb, false, p, FL_RU);
    rt_copy(s, A + (u64)n * RT_CW, RT_CW);
    rt_copy(r, er + (u64)n * RT_W, RT_W);
    for (u32 kk = n; kk-- > 0;) {
        u64 *rr = pr, *ii = pr + RT_W, *ri = pr + 2 * RT_W, *ir = pr + 3 * RT_W;
        rt_mul(rr, s, xi, p, FL_RN);
        rt_mul(ii, s + RT_W, xi + RT_W, p, FL_RN);
        rt_mul(ri, s, xi + RT_W, p, FL_RN);
        rt_mul(ir, s + RT_W, xi, p, FL_RN);
        rt_add(t, rr, ii, true, p, FL_RN);
        rt_add(t + RT_W, ri, ir, false, p, FL_RN);
        rt_cadd(s, t, A + (u64)kk * RT_CW, false, p);
        rt_abs(ta, rr);
        rt_abs(tb, ii);
        rt_add(m, ta, tb, false, p, FL_RU);
        rt_abs(ta, ri);
        rt_add(m2, m, ta, false, p, FL_RU);
        rt_abs(ta, ir);
        rt_add(m, m2, ta, false, p, FL_RU);
        rt_abs(ta, t);
        rt_abs(tb, t + RT_W);
        rt_add(u, ta, tb, false, p, FL_RU);
        rt_add(m2, m, u, false, p, FL_RU);
        rt_abs(ta, s);
        rt_abs(tb, s + RT_W);
        rt_add(u, ta, tb, false, p, FL_RU);
        rt_add(m, m2, u, false, p, FL_RU);
        rt_shift(m2, m, -(i64)p, p, FL_RU);
        rt_mul(u, r, ax, p, FL_RU);
        rt_add(m, u, m2, false, p, FL_RU);
        rt_add(r, m, er + (u64)kk * RT_W, false, p, FL_RU);
    }
    rt_abs(ta, s);
    rt_abs(tb, s + RT_W);
    rt_add(u, ta, tb, false, p, FL_RU);
    rt_add(out + (u64)i * RT_W, u, r, false, p, FL_RU);
}

// ---- The fused STS-Padé iteration (src/complex/polyroots_sts.rs has the
// sequence and the CPU engine's copy; src/complex/cuda_sts.rs drives it):
// one block per root, two launches per step (phase A: Taylor coefficients,
// series, the refined point y; phase B: the power sums over the y_j and
// the Padé correction). It uses the helpers above unchanged.

// Values of B^(t) (C(j+t, t) a_{j+t}, j = 0..n-t).
__device__ __forceinline__ u32 sts_cnt(u32 n, u32 t) { return t <= n ? n + 1 - t : 0; }

// Per-root workspace: phase A's X, T_0..T_m (n+1 complex each), R, Z
// (n+1 reals each), or phase B's n leaves of m complex values; then a
// scratch of 2m + 4 complex values.
__device__ __forceinline__ u64 sts_ws_main(u32 n, u32 m) {
    u64 a = (u64)(n + 1) * RT_CW * (m + 2) + (u64)(n + 1) * RT_W * 2;
    u64 b = (u64)(n > 0 ? n : 1) * m * RT_CW;
    return a > b ? a : b;
}
__device__ __forceinline__ u64 sts_ws_words(u32 n, u32 m) {
    return sts_ws_main(n, m) + (u64)(2 * m + 4) * RT_CW;
}

// Phase A, block i = root i: b_t = tsum_j B^(t)_j X_j (t = 0..m), the
// noise flag, then on thread 0 e_l = b_0^l, v_0..v_m, b_1 and the noise
// threshold (a real) into st (2m + 4 complex per root) and y_i = x_i + (b_0 v_(m-2)) (1/v_(m-1)).
extern "C" __global__ void roots_sts_a(const u64 *x, u64 *y, u64 *st, u64 *ws, u8 *flags,
                                       const u64 *B, const u64 *AB, const u64 *consts, u32 n,
                                       u32 m, u64 p, i64 kshift) {
    const u32 i = blockIdx.x;
    const u64 *one = consts;
    const u64 *xi = x + (u64)i * RT_CW;
    u64 *X = ws + (u64)i * sts_ws_words(n, m);
    u64 *R = X + (u64)(n + 1) * RT_CW;
    u64 *Z = R + (u64)(n + 1) * RT_W;
    u64 *T = Z + (u64)(n + 1) * RT_W;
    u64 *scr = X + sts_ws_main(n, m);
    if (threadIdx.x == 0) {
        rt_copy(X, one, RT_W);
        for (u32 k = 0; k < RT_W; k++) X[RT_W + k] = 0;
        rt_copy(X + RT_CW, xi, RT_CW);
        rt_copy(R, one, RT_W);
        u64 ar[RT_W], ai[RT_W];
        rt_abs(ar, xi);
        rt_abs(ai, xi + RT_W);
        rt_add(R + RT_W, ar, ai, false, p, FL_RU);
    }
    __syncthreads();
    for (u32 s = 1; s < n; s *= 2) {
        u32 hi = 2 * s < n ? 2 * s : n;
        for (u32 k = s + 1 + threadIdx.x; k <= hi; k += blockDim.x) {
            rt_cmul(X + (u64)k * RT_CW, X + (u64)s * RT_CW, X + (u64)(k - s) * RT_CW, p);
            rt_mul(R + (u64)k * RT_W, R + (u64)s * RT_W, R + (u64)(k - s) * RT_W, p, FL_RU);
        }
        __syncthreads();
    }
    u32 off = 0;
    for (u32 t = 0; t <= m; t++) {
        u32 cnt = sts_cnt(n, t);
        u64 *Tt = T + (u64)t * (n + 1) * RT_CW;
        for (u32 j = threadIdx.x; j < cnt; j += blockDim.x)
            rt_cmul(Tt + (u64)j * RT_CW, B + (u64)(off + j) * RT_CW, X + (u64)j * RT_CW, p);
        off += cnt;
    }
    for (u32 k = threadIdx.x; k <= n; k += blockDim.x)
        rt_mul(Z + (u64)k * RT_W, AB + (u64)k * RT_W, R + (u64)k * RT_W, p, FL_RU);
    __syncthreads();
    for (u32 t = 0; t <= m; t++)
        rt_tsum(T + (u64)t * (n + 1) * RT_CW, sts_cnt(n, t), 2, 0xffffffffu, p, FL_RN);
    rt_tsum(Z, n + 1, 1, 0xffffffffu, p, FL_RU);
    if (threadIdx.x != 0) return;
#define STS_BT(t) (T + (u64)(t) * (n + 1) * RT_CW)
    const u64 *b0 = STS_BT(0);
    u64 *e = st + (u64)i * (2 * m + 4) * RT_CW;
    {
        u64 ar[RT_W], ai[RT_W], a1[RT_W];
        u64 *thr = e + (u64)(2 * m + 3) * RT_CW;
        rt_abs(ar, b0);
        rt_abs(ai, b0 + RT_W);
        rt_add(a1, ar, ai, false, p, FL_RU);
        rt_shift(thr, Z, kshift, p, FL_RU);
        flags[i] = rt_le(a1, thr) ? RT_F_NOISE : 0;
    }
    u64 *v = e + (u64)(m + 1) * RT_CW;
    u64 *beta = scr;
    rt_copy(e, one, RT_W);
    for (u32 k = 0; k < RT_W; k++) e[RT_W + k] = 0;
    rt_copy(e + RT_CW, b0, RT_CW);
    for (u32 l = 2; l <= m; l++) rt_cmul(e + (u64)l * RT_CW, e + (u64)(l - 1) * RT_CW, b0, p);
    rt_copy(beta + RT_CW, STS_BT(1), RT_CW);
    for (u32 l = 2; l <= m; l++)
        rt_cmul(beta + (u64)l * RT_CW, STS_BT(l), e + (u64)(l - 1) * RT_CW, p);
    rt_copy(v, one, RT_W);
    for (u32 k = 0; k < RT_W; k++) v[RT_W + k] = 0;
    u64 acc[RT_CW], t1[RT_CW], t2[RT_CW];
    for (u32 k = 1; k <= m; k++) {
        rt_cmul(acc, beta + RT_CW, v + (u64)(k - 1) * RT_CW, p);
        for (u32 l = 2; l <= k; l++) {
            rt_cmul(t1, beta + (u64)l * RT_CW, v + (u64)(k - l) * RT_CW, p);
            rt_cadd(t2, acc, t1, false, p);
            rt_copy(acc, t2, RT_CW);
        }
        rt_negate(acc);
        rt_negate(acc + RT_W);
        rt_copy(v + (u64)k * RT_CW, acc, RT_CW);
    }
    rt_copy(e + (u64)(2 * m + 2) * RT_CW, STS_BT(1), RT_CW);
    rt_cmul(t1, b0, v + (u64)(m - 2) * RT_CW, p);
    rt_rec(t2, v + (u64)(m - 1) * RT_CW, one, p);
    rt_cmul(acc, t1, t2, p);
    rt_cadd(y + (u64)i * RT_CW, xi, acc, false, p);
#undef STS_BT
}

// Phase B, block i = root i: leaves 1/(x_i - y_j)^l (l = 1..m, j != i),
// their sums P_l, then on thread 0 the series u, Q_(m-1), Q_m, the
// correction c, x' = x_i + c into xout, and the isolated and small flags.
// consts: 1, tol^2, then the integers 1..m.
extern "C" __global__ void roots_sts_b(const u64 *x, const u64 *y, const u64 *st, u64 *xout,
                                       u64 *ws, u8 *flags, const u64 *consts, u32 n, u32 m,
                                       u64 p) {
    const u32 i = blockIdx.x;
    const u64 *one = consts, *tol2 = consts + RT_W;
    const u64 *xi = x + (u64)i * RT_CW;
    u64 *L = ws + (u64)i * sts_ws_words(n, m);
    u64 *u = L + sts_ws_main(n, m);
    const u64 lw = (u64)m * RT_CW;
    for (u32 j = threadIdx.x; j < n; j += blockDim.x) {
        if (j == i) continue;
        u64 d[RT_CW];
        u64 *leaf = L + (u64)j * lw;
        rt_cadd(d, xi, y + (u64)j * RT_CW, true, p);
        rt_rec(leaf, d, one, p);
        for (u32 l = 1; l < m; l++)
            rt_cmul(leaf + (u64)l * RT_CW, leaf + (u64)(l - 1) * RT_CW, leaf, p);
    }
    __syncthreads();
    rt_tsum(L, n, 2 * m, i, p, FL_RN);
    if (threadIdx.x != 0) return;
    const u64 *e = st + (u64)i * (2 * m + 4) * RT_CW;
    const u64 *v = e + (u64)(m + 1) * RT_CW;
    u64 acc[RT_CW], t1[RT_CW], t2[RT_CW];
    // 16 |P_1|^2 t^2 <= |b_1|^2 (t the noise threshold), before the signs.
    bool iso2;
    {
        u64 tt[RT_W], a[RT_W], z[RT_W], b[RT_W];
        const u64 *thr = e + (u64)(2 * m + 3) * RT_CW;
        rt_mul(tt, thr, thr, p, FL_RN);
        rt_norm2(a, L, p);
        rt_mul(z, a, tt, p, FL_RN);
        rt_shift(a, z, 4, p, FL_RN);
        rt_norm2(b, e + (u64)(2 * m + 2) * RT_CW, p);
        iso2 = rt_le(a, b);
    }
    // The sums with the signs of lambda_l = (-1)^l P_(l+1), P_1 kept in ps.
    u64 ps[RT_CW];
    rt_cmul(ps, e + RT_CW, L, p);
    for (u32 l = 1; l < m; l += 2) {
        rt_negate(L + (u64)l * RT_CW);
        rt_negate(L + (u64)l * RT_CW + RT_W);
    }
    rt_copy(u, one, RT_W);
    for (u32 k = 0; k < RT_W; k++) u[RT_W + k] = 0;
    for (u32 k = 0; k < m; k++) {
        rt_cmul(acc, L, u + (u64)k * RT_CW, p);
        for (u32 l = 1; l <= k; l++) {
            rt_cmul(t1, L + (u64)l * RT_CW, u + (u64)(k - l) * RT_CW, p);
            rt_cadd(t2, acc, t1, false, p);
            rt_copy(acc, t2, RT_CW);
        }
        const u64 *c = consts + (u64)(2 + k) * RT_W;
        rt_div(u + (u64)(k + 1) * RT_CW, acc, c, p);
        rt_div(u + (u64)(k + 1) * RT_CW + RT_W, acc + RT_W, c, p);
    }
    u64 q[2][RT_CW];
    for (u32 h = 0; h < 2; h++) {
        u32 k = m - 1 + h;
        rt_cmul(acc, u, v + (u64)k * RT_CW, p);
        for (u32 l = 1; l <= k; l++) {
            rt_cmul(t1, u + (u64)l * RT_CW, e + (u64)l * RT_CW, p);
            rt_cmul(t2, t1, v + (u64)(k - l) * RT_CW, p);
            rt_cadd(t1, acc, t2, false, p);
            rt_copy(acc, t1, RT_CW);
        }
        rt_copy(q[h], acc, RT_CW);
    }
    u64 c[RT_CW], xn[RT_CW];
    rt_cmul(t1, e + RT_CW, q[0], p);
    rt_rec(t2, q[1], one, p);
    rt_cmul(c, t1, t2, p);
    rt_cadd(xn, xi, c, false, p);
    rt_copy(xout + (u64)i * RT_CW, xn, RT_CW);
    u64 a[RT_W], b[RT_W], a16[RT_W];
    u8 f = flags[i];
    rt_norm2(a, ps, p);
    rt_shift(a16, a, 4, p, FL_RN);
    rt_norm2(b, e + (u64)(2 * m + 2) * RT_CW, p);
    if (rt_le(a16, b) && iso2) f |= RT_F_ISO;
    rt_norm2(a, c, p);
    rt_norm2(b, xn, p);
    rt_mul(a16, b, tol2, p, FL_RN);
    if (rt_le(a, a16)) f |= RT_F_SMALL;
    flags[i] = f;
}
