// Complex functions on the device (issue 5, GNU MPC 1.3.1 semantics, as
// src/complex/func.rs): a thread per element. An element is evaluated here
// only when it is REGULAR for the function: both parts normal, exponents in
// a range where the value cores below are valid and where func.rs takes its
// plain Ziv path (whose result is each part correctly rounded in its own
// mode), input limbs within the tier. Everything else (zeros, infinities,
// NaN, overflow/underflow conventions, huge parts, exact cases) is flagged
// "host" and computed by the CPU engine (src/complex/cuda_func.rs).
//
// A regular element's parts are built as balls: the exact value lies
// strictly inside (m - e, m + e) 2^s (m: K limbs, e: one limb) from the
// value cores of float_func.cu / float_func_explog.cuh / float_func_trig.cuh
// (ffx_exp_val, ff_tr_reduce + ff_sc_both, ffx_series, ffx_log_val,
// ff_atan2), combined by cf_mul / cf_add with the error propagation derived
// next to them, then rounded by ff_round_c (both ends must round alike,
// ternary included; representable values strictly inside never pass). A part
// that does not pass is "undecided": the host re-runs the element at a
// larger tier, then on the CPU engine.
//
// Its own module (src/kernels/mod.rs's FLOAT_CFUNC, tiers FF_K as
// float_func's, the same constants): float_func.cu is pasted for its value
// cores without its kernels (FF_CORES_ONLY), so neither module compiles
// the other's functions. Plain C++ like the rest: tests/emu/cplxgpu/emu.cpp
// runs cf_eval on the host (tests/complex_cuda_func.rs).
#define FF_CORES_ONLY
#include "float_func.cu"

// Function codes of float_cfunc (src/complex/cuda_func.rs).
#define CF_EXP 0u
#define CF_LOG 1u
#define CF_SIN 2u
#define CF_COS 3u
#define CF_SINH 4u
#define CF_COSH 5u
#define CF_TAN 6u
#define CF_TANH 7u
#define CF_SQRT 8u
#define CF_ATAN 9u
#define CF_ASIN 10u
#define CF_ACOS 11u
// Division (mpc_div), kernel float_cdiv.
#define CF_DIV 16u
// pow (mpc_pow), kernel float_cpow.
#define CF_POW 17u

// CF_ONLY (a -D define, a family's first code): the module evaluates only
// that family (sin, cos, sinh, cosh share one case; tan and tanh; asin and
// acos; the others alone; div and pow are their kernels) and holds only
// the kernel that runs it, so a first use compiles one function instead of
// all (notes/kernels.md).
#ifdef CF_ONLY
#define CF_HAS(fam) (CF_ONLY == (fam))
#else
#define CF_HAS(fam) 1
#endif

// Results of cf_eval: written, host case, undecided.
#define CF_DONE 0
#define CF_HOST 1
#define CF_UNDEC 2

// An error bound at or above this marks a ball unusable (the element is
// then undecided): errors stay below 2^48 on every regular path.
#define CF_EBIG (1ull << 56)

// The exact value lies strictly inside (m - e, m + e) 2^s, sign neg.
template <int K>
struct CfBall {
    u64 m[K];
    i64 s;
    u64 e;
    bool neg;
};

template <int K>
FL_DEV bool cf_ok(const CfBall<K> &x) {
    return x.e < CF_EBIG;
}

// x = (v +- e) 2^s for v of l <= K + 1 limbs, brought to at most F + 1
// bits: v = floor(v / 2^d) moves the value by < 1 unit and the error
// becomes e / 2^d < (e >> d) + 1 units: (e >> d) + 2.
template <int K>
FL_DEV void cf_set(CfBall<K> &x, const u64 *v, u32 l, i64 s, u64 e, bool neg) {
    const u32 F = 64 * K - 4;
    u32 b = ff_bits(v, l);
    x.neg = neg;
    if (b > F + 1) {
        u32 d = b - (F + 1);
        ff_shift(x.m, K, v, l, -(i64)d);
        x.s = s + d;
        x.e = d >= 64 ? 2 : (e >> d) + 2;
    } else {
        ff_zero(x.m, K);
        ff_copy(x.m, v, l < (u32)K ? l : (u32)K);
        x.s = s;
        x.e = e;
    }
    if (e >= CF_EBIG) x.e = CF_EBIG;
}

// e 2^d, or CF_EBIG when that reaches 2^61 (so that two or three such
// terms still add up below 2^63).
FL_DEV u64 cf_shl(u64 e, u32 d) {
    if (d >= 61 || e >= (1ull << (61 - d))) return CF_EBIG;
    return e << d;
}

// Marks r unusable (its element is then undecided).
template <int K>
FL_DEV void cf_bad(CfBall<K> &r) {
    ff_zero(r.m, K);
    r.s = 0;
    r.e = CF_EBIG;
}

// Whether x is usable as an operand: its mantissa has F - 13 to F + 1 bits
// (the value cores' outputs do, cf_set keeps F + 1 at most).
template <int K>
FL_DEV bool cf_operand(const CfBall<K> &x, u32 &b) {
    const u32 F = 64 * K - 4;
    b = ff_bits(x.m, K);
    return cf_ok(x) && b + 13 >= F && b <= F + 1;
}

// The error of a product or quotient of x and y: both must be operands
// (bits bx, by) and e = (x.e << (F+dx-bx)) + (y.e << (F+dy-by)) + 2 (the
// bounds derived below) with each term below CF_EBIG; otherwise r is
// marked unusable and false returned.
template <int K>
FL_DEV bool cf_operands(CfBall<K> &r, const CfBall<K> &x, u32 dx, const CfBall<K> &y, u32 dy,
                        u32 &bx, u32 &by, u64 &e) {
    const u32 F = 64 * K - 4;
    if (cf_operand(x, bx) && cf_operand(y, by)) {
        u64 ex = cf_shl(x.e, F + dx - bx), ey = cf_shl(y.e, F + dy - by);
        e = ex + ey + 2;
        if (ex < CF_EBIG && ey < CF_EBIG) return true;
    }
    cf_bad(r);
    return false;
}

// r = x y. With bx, by the operands' bits (F - 13 .. F + 1) and sh = bx +
// by - F - 1 > 0, M = floor(X Y / 2^sh) < 2^(F+1), and |x y - X Y| <= X ey
// + Y ex + ex ey, where X < 2^bx, Y < 2^by: in units 2^sh, X ey / 2^sh <
// ey 2^(F+1-by) (<= ey 2^14), likewise for ex; ex ey / 2^sh < 2^122 /
// 2^(F-27) < 1 (F >= 188, errors < 2^61); plus 1 for the floor:
// e = (ey << (F+1-by)) + (ex << (F+1-bx)) + 2.
template <int K>
FL_NOINL void cf_mul(CfBall<K> &r, const CfBall<K> &x, const CfBall<K> &y) {
    const u32 F = 64 * K - 4;
    u32 bx, by;
    bool neg = x.neg != y.neg;
    u64 e;
    if (!cf_operands(r, x, 1, y, 1, bx, by, e)) return;
    u64 T[2 * K];
    ff_mul_full<K>(T, x.m, y.m);
    u32 sh = bx + by - F - 1;
    ff_shift(r.m, K, T, 2 * K, -(i64)sh);
    r.s = x.s + y.s + sh;
    r.e = e;
    r.neg = neg;
}

// r = x + y (signed). Both aligned to the larger exponent s: the other
// mantissa floored by d = |x.s - y.s| bits moves by < 1 unit and its error
// becomes < (e >> d) + 1: each aligned operand is within (e >> d) + 2
// units (d = 0: e), and the exact sum or difference of the aligned
// mantissas is within the sum of the two bounds. Operands as cf_mul's (so
// the sum fits: < 2^(F+2)); the result may have few bits (cancellation),
// which its consumers refuse.
template <int K>
FL_NOINL void cf_add(CfBall<K> &r, const CfBall<K> &x, const CfBall<K> &y) {
    u32 bx, by;
    if (!cf_operand(x, bx) || !cf_operand(y, by)) {
        cf_bad(r);
        return;
    }
    const CfBall<K> &hi = x.s >= y.s ? x : y;
    const CfBall<K> &lo = x.s >= y.s ? y : x;
    u64 d = (u64)(hi.s - lo.s);
    u64 A[K + 1], B[K + 1], tmp[K + 1];
    ff_copy(A, hi.m, K);
    A[K] = 0;
    u64 el = lo.e;
    if (d == 0) {
        ff_copy(B, lo.m, K);
        B[K] = 0;
    } else {
        ff_shift(B, K + 1, lo.m, K, -(i64)(d > 64ull * K + 64 ? 64ull * K + 64 : d));
        el = (d >= 64 ? 0 : el >> d) + 2;
    }
    bool an = hi.neg;
    ff_sadd(A, an, B, lo.neg, K + 1, tmp);
    cf_set<K>(r, A, K + 1, hi.s, hi.e + el, an);
}

// r = x / y: Q = floor(X 2^G / Y), G = F + 1 + by - bx, so X/Y 2^G lies
// in [2^F, 2^(F+2)). With x = X +- ex, y = Y +- ey (ey < 2^61 <=
// 2^(by-2), so Y - ey >= 2^(by-2)): |x/y - X/Y| <= (ex + (X/Y) ey) / (Y -
// ey); in units 2^-G: ex 2^(G-by+2) = ex 2^(F+3-bx) (<= ex 2^16) plus
// (X/Y 2^G) ey / (Y - ey) < 2^(F+2) ey / 2^(by-2) = ey 2^(F+4-by) (<= ey
// 2^17), plus 1 for the floor: e = (ex << (F+3-bx)) + (ey << (F+4-by)) +
// 2, value Q 2^(x.s - y.s - G).
template <int K>
FL_NOINL void cf_div(CfBall<K> &r, const CfBall<K> &x, const CfBall<K> &y) {
    const u32 F = 64 * K - 4;
    u32 bx, by;
    bool neg = x.neg != y.neg;
    u64 e;
    if (!cf_operands(r, x, 3, y, 4, bx, by, e)) return;
    i64 G = (i64)F + 1 + by - bx;
    u64 U[2 * K + 1], u[2 * K + 3], v[K], qq[2 * K + 2], Q[K];
    ff_shift(U, 2 * K + 1, x.m, K, G);
    ff_div(Q, K, U, 2 * K + 1, y.m, K, u, v, qq);
    cf_set<K>(r, Q, K, x.s - y.s - G, e, neg);
}

// r = sqrt(x), x > 0: N = X 2^t with t = 2F - bx (+1 to make s - t even:
// N has 2F or 2F + 1 bits, within 2K limbs), R = floor(sqrt(N))
// (ffx_isqrt). sqrt((X +- ex) 2^t) is within ex 2^t / sqrt(N) <= ex
// 2^(2F+1-bx) / 2^(F-1/2) < ex 2^(F+2-bx) of sqrt(N), which is within 1 of
// R: e = (ex << (F+2-bx)) + 2, value R 2^((s-t)/2).
template <int K>
FL_NOINL void cf_sqrt(CfBall<K> &r, const CfBall<K> &x) {
    const u32 F = 64 * K - 4;
    u32 bx;
    if (!cf_operand(x, bx) || x.neg) {
        cf_bad(r);
        return;
    }
    u64 e1 = cf_shl(x.e, F + 2 - bx);
    if (e1 >= CF_EBIG) {
        cf_bad(r);
        return;
    }
    i64 t = 2 * (i64)F - bx;
    if ((x.s - t) & 1) t++;
    u64 N[2 * K], R[K];
    ff_shift(N, 2 * K, x.m, K, t);
    ffx_isqrt<K>(R, N);
    cf_set<K>(r, R, K, (x.s - t) / 2, e1 + 2, false);
}

// An exact ball |x| 2^(F-ex) 2^(ex-F) for a normal x of nx <= K - 1 limbs.
template <int K>
FL_DEV void cf_exact(CfBall<K> &r, i64 ex, const u64 *xm, u32 nx) {
    const u32 F = 64 * K - 4;
    ff_shift(r.m, K, xm, nx, (i64)F - 64 * (i64)nx);
    r.s = ex - (i64)F;
    r.e = 0;
    r.neg = false;
}

// Q = A^2 + B^2 (2K limbs) for normal a, b: with ea >= eb (swapped
// otherwise), A = |a| 2^(F-ea) exact (F >= 64 na), B = floor(|b| 2^(F-ea))
// (B_true - B < 1), so Q is exact or below the true value by < 2B + 1 <=
// 2^(F+1) + 1. Returns ea after the swap: Q is in units 2^(2ea-2F).
template <int K>
FL_DEV i64 cf_norm2(u64 *Q, i64 ea, const u64 *am, u32 na, i64 eb, const u64 *bm, u32 nb) {
    const u32 F = 64 * K - 4;
    if (eb > ea) {
        const u64 *tm = am;
        am = bm;
        bm = tm;
        u32 tn = na;
        na = nb;
        nb = tn;
        i64 te = ea;
        ea = eb;
        eb = te;
    }
    u64 A[K], B[K], Q2[2 * K];
    ff_shift(A, K, am, na, (i64)F - 64 * (i64)na);
    ff_shift(B, K, bm, nb, (i64)F - ea + eb - 64 * (i64)nb);
    ff_mul_full<K>(Q, A, A);
    ff_mul_full<K>(Q2, B, B);
    ff_add(Q, Q2, 2 * K);
    return ea;
}

// |z| for normal a, b as a ball: Q of cf_norm2, floor(sqrt(Q)) = Zm: |z|
// 2^(F-ea) lies in [Zm, Zm + 1 + (2B + 1) / (2 sqrt Q)) with sqrt Q >= A >=
// 2^(F-1): [Zm, Zm + 3.01). Centre Zm, e = 4.
template <int K>
FL_NOINL void cf_abs(CfBall<K> &r, i64 ea, const u64 *am, u32 na, i64 eb, const u64 *bm,
                     u32 nb) {
    const u32 F = 64 * K - 4;
    u64 Q[2 * K], Z[K];
    ea = cf_norm2<K>(Q, ea, am, na, eb, bm, nb);
    ffx_isqrt<K>(Z, Q);
    cf_set<K>(r, Z, K, ea - (i64)F, 4, false);
}

// Rounds x to p bits in mode rnd (ff_round_c); false when undecided.
template <int K>
FL_DEV bool cf_round(FlOut &o, i8 &t, const CfBall<K> &x, u64 p, u32 rnd) {
    if (!cf_ok(x)) {
        o.head = FF_UNDECIDED;
        return false;
    }
    return ff_round_c<K>(o, t, x.m, K, x.e, x.s, x.neg, p, rnd);
}

// Both parts rounded (cf_round): CF_DONE, or CF_UNDEC when either is not.
template <int K>
FL_DEV int cf_round2(FlOut &ore, i8 &tre, const CfBall<K> &re, u64 pr, u32 rre, FlOut &oim,
                     i8 &tim, const CfBall<K> &im, u64 pi, u32 rim) {
    if (!cf_round<K>(ore, tre, re, pr, rre)) return CF_UNDEC;
    return cf_round<K>(oim, tim, im, pi, rim) ? CF_DONE : CF_UNDEC;
}

// ---- value cores as balls ----

// exp x (x normal, ex <= 30): ffx_exp_val's Y 2^(k-F) within E units.
template <int K>
FL_NOINL bool cf_exp(CfBall<K> &r, bool neg, i64 ex, const u64 *xm, u32 nx, const u64 *cs) {
    const u32 F = 64 * K - 4;
    u64 Y[K], E;
    i64 k;
    if (!ffx_exp_val<K>(neg, ex, xm, nx, cs, Y, k, E)) return false;
    cf_set<K>(r, Y, K, k - (i64)F, E, false);
    return true;
}

// cos x and sin x as balls from ff_sc_both's S = sin |r| 2^(F+sc) (es)
// and C = cos r 2^F (ec) of x = k pi/2 + r in quadrant q (ff_tr_reduce),
// as ff_sin_cos: sin x = +-C (q odd) or +-S, cos x = +-C (q even) or +-S.
template <int K>
FL_DEV void cf_quadrant(CfBall<K> &cb, CfBall<K> &sb, const u64 *S, i64 sc, u64 es,
                        const u64 *C, u64 ec, u32 q, bool rneg) {
    const u32 F = 64 * K - 4;
    bool use_cos = q & 1, no = q >= 2;
    if (use_cos) cf_set<K>(sb, C, K, -(i64)F, ec, no);
    else cf_set<K>(sb, S, K, -((i64)F + sc), es, no != rneg);
    use_cos = !(q & 1);
    no = q == 1 || q == 2;
    if (use_cos) cf_set<K>(cb, C, K, -(i64)F, ec, no);
    else cf_set<K>(cb, S, K, -((i64)F + sc), es, no != rneg);
}

// cos x and sin x (x normal, ex <= 40, nx + 2 <= K): one reduction
// (ff_tr_reduce: x = k pi/2 + r, quadrant q) and ff_sc_both (S = sin |r|
// 2^(F+sc) within es, C = cos r 2^F within ec), each output from its
// quadrant as ff_sin_cos: sin x = +-C (q odd) or +-S, cos x = +-C (q even)
// or +-S. C >= cos(pi/4) 2^F; S has F - 1 bits (j = 0, scaled) or at
// least F - 11 (|r| >= 2^-11): cf_mul's inputs. False: the host (huge x,
// r needing a longer pi).
template <int K>
FL_NOINL bool cf_sincos(CfBall<K> &cb, CfBall<K> &sb, bool neg, i64 ex, const u64 *xm, u32 nx,
                        const u64 *cs) {
    u64 Z[K], S[K], C[K];
    i64 c, sc;
    bool rneg;
    u32 q;
    if (ff_tr_reduce<K>(Z, c, rneg, q, neg, ex, xm, nx, cs)) return false;
    u64 es, ec;
    ff_sc_both<K>(S, sc, es, C, ec, Z, c, cs);
    cf_quadrant<K>(cb, sb, S, sc, es, C, ec, q, rneg);
    return true;
}

// cosh x and sinh x (x normal, ex <= 30, nx + 2 <= K). ex <= -7: one
// ffx_series (FX_SINH, c = -ex >= 7, Z = |x| 2^(F+c) exact) gives
// sinh(x)/x = A and cosh x = Cc, each within 5N + 6 units of 2^-F: sinh x
// = Z A / 2^F within 1.01 * 0 + 5N + 7 units of 2^-(F+c) (Z exact), its
// bits >= F - 1; cosh within 5N + 7. Else (|x| >= 2^-7) ffx_sinhcosh's
// formulas: exp|x| = Y 2^(k-F) (E units), Inv = floor(2^2F / Y), cosh,
// sinh = (Y +- Inv 2^-2k) 2^(k-F-1) within 4E + 4 units; sinh |x| >=
// |x| >= 2^-7 keeps F - 6 bits or more.
template <int K>
FL_NOINL bool cf_coshsinh(CfBall<K> &chb, CfBall<K> &shb, bool neg, i64 ex, const u64 *xm,
                          u32 nx, const u64 *cs) {
    const u32 F = 64 * K - 4;
    if (ex <= -7) {
        u64 Z[K], A[K], Cc[K], V[K], T[2 * K];
        ffx_scaled<K>(Z, xm, nx);
        u32 N = ffx_series<K>(FX_SINH, A, Cc, Z, -ex, neg, cs);
        ff_mulsh<K>(V, Z, A, F, T);
        cf_set<K>(shb, V, K, ex - (i64)F, 5 * (u64)N + 7, neg);
        cf_set<K>(chb, Cc, K, -(i64)F, 5 * (u64)N + 7, false);
        return true;
    }
    u64 Y[K], Inv[K + 1], R[K + 1], B[K + 1];
    i64 k;
    u64 E;
    if (!ffx_exp_val<K>(false, ex, xm, nx, cs, Y, k, E)) return false;
    {
        u64 Nn[2 * K], u[2 * K + 2], v[K], qq[2 * K + 1], one[1] = {1};
        ff_shift(Nn, 2 * K, one, 1, 2 * (i64)F);
        ff_div(Inv, K, Nn, 2 * K, Y, K, u, v, qq);
        Inv[K] = 0;
    }
    ff_shift(B, K + 1, Inv, K + 1, -2 * k);
    ff_copy(R, Y, K);
    R[K] = 0;
    ff_add(R, B, K + 1);
    cf_set<K>(chb, R, K + 1, k - (i64)F - 1, 4 * E + 4, false);
    ff_copy(R, Y, K);
    R[K] = 0;
    if (ff_sub(R, B, K + 1)) return false;
    cf_set<K>(shb, R, K + 1, k - (i64)F - 1, 4 * E + 4, neg);
    return true;
}

// ---- the functions ----

// log(a^2 + b^2) for normal a, b: Q of cf_norm2 and m = floor(Q / 2^F):
// the norm n = a^2 + b^2 lies in [m, m + 4) 2^(2ea-F), m >= 2^(F-2).
// ffx_log_val (scaled as its `scaled`; S = F otherwise) gives log(m
// 2^(2ea-F)) as R (K+1 limbs) within E units of 2^-S; log n - that = log(1
// + d), 0 <= d < 4/m <= 2^(4-F): < 16 2^(S-F) more units (the callers').
// Returns E.
template <int K>
FL_DEV u64 cf_log_norm(u64 *R, bool &rneg, i64 &S, u64 ah, const u64 *am, u32 na, u64 bh,
                       const u64 *bm, u32 nb, bool scaled, const u64 *cs) {
    const u32 F = 64 * K - 4;
    u64 Q[2 * K], m[K], M[K], E;
    i64 ea = cf_norm2<K>(Q, fl_exp(ah), am, na, fl_exp(bh), bm, nb);
    ff_shift(m, K, Q, 2 * K, -(i64)F);
    u32 bm_ = ff_bits(m, K);
    ff_shift(M, K, m, K, 64 * (i64)K - bm_);
    ffx_log_val<K>(M, K, (i64)bm_ + 2 * ea - (i64)F, cs, scaled, R, rneg, S, E);
    return E;
}

// Re log z = log(a^2 + b^2) / 2 rounded: cf_log_norm scaled, R 2^-(S+1).
template <int K>
FL_NOINL bool cf_log_abs(FlOut &o, i8 &t, u64 ah, const u64 *am, u32 na, u64 bh, const u64 *bm,
                         u32 nb, u64 p, u32 rnd, const u64 *cs) {
    const u32 F = 64 * K - 4;
    u64 R[K + 1];
    bool rneg;
    i64 S;
    u64 E = cf_log_norm<K>(R, rneg, S, ah, am, na, bh, bm, nb, true, cs);
    if (S - (i64)F > 40) {
        o.head = FF_UNDECIDED;
        return false;
    }
    E += 16ull << (S - (i64)F);
    return ff_round_c<K>(o, t, R, K + 1, E, -(S + 1), rneg, p, rnd);
}

// ---- atan ----

// The L = 2K + 1 limb integers of atan (cf_atan): values in units 2^-2G.
#define CF_AL (2 * K + 1)

// atan2(Y, X) / 2 rounded (atan's real part: MPC rounds arg(X + iY), an
// mpfr_atan2, then halves it exactly; halving commutes with the rounding,
// ternary included, far from underflow). Y, X: exact nonzero magnitudes
// of CF_AL limbs on one scale, signs yneg, xneg. As ff_atan2 (same
// branches and bounds) except that W = floor(w 2^(F+cw)), w = min / max,
// cw = the bit-length difference (w 2^cw in (1/2, 2), W < 2^(F+1)), comes
// from one division of the exact integers (< 1 unit), and every rounding
// takes s - 1 (the halving).
template <int K>
FL_NOINL bool cf_atan_re(FlOut &o, i8 &t, const u64 *Yv, bool yneg, const u64 *Xv, bool xneg,
                         u64 p, u32 rnd, const u64 *cs) {
    const u32 F = 64 * K - 4;
    bool swap = ff_cmp(Yv, Xv, CF_AL) > 0;
    const u64 *mn = swap ? Xv : Yv, *md = swap ? Yv : Xv;
    i64 cw = (i64)ff_bits(md, CF_AL) - (i64)ff_bits(mn, CF_AL);
    u64 W[K], acc[K + 1];
    {
        // mn 2^(F + cw) has bits(md) + F <= 64 (2K + 1) + F bits.
        u64 U[3 * K + 2], u[3 * K + 4], v[CF_AL], qq[3 * K + 3];
        ff_shift(U, 3 * K + 2, mn, CF_AL, (i64)F + cw);
        ff_div(W, K, U, 3 * K + 2, md, CF_AL, u, v, qq);
    }
    i64 fine;
    u64 eA = ff_atan2_tail<K>(acc, fine, W, cw, swap, xneg, true, cs);
    u32 l = fine ? K : K + 1;
    return ff_round_c<K>(o, t, acc, l, eA, -((i64)F + fine) - 1, yneg, p, rnd);
}

// atan's imaginary part log(n1 / n2) / 4, n1 = |z + i|^2, n2 = |z - i|^2,
// from D = 1 + |z|^2 and Bt = |2b| (exact, CF_AL limbs, one scale): n1 / n2
// = (1 + w) / (1 - w), w = 2b / D (|w| < 1: D - |2b| = a^2 + (|b| - 1)^2 >
// 0), so the part is atanh(w) / 2 (sign of b).
// - |w| < 2^-c, c = cwi - 1 >= 8 (cwi = bits(D) - bits(Bt) >= 9): Z =
//   floor(|w| 2^(F+c)) < 2^F from one exact division (< 1 unit), the
//   series FX_ATANH, V = floor(Z A / 2^F): atanh|w| = V 2^-(F+c) within
//   1.01 + 5N + 7 < 5N + 9 units (ffx_series's bound); halved: s - 1.
// - Otherwise |w| >= 2^-9 or so: the ratio r = P / Q >= 1 + 2^-8 (P, Q =
//   D +- Bt) as Mq = floor(floor(P 2^sh) / Q) (sh = 64K + bits Q - bits P:
//   r 2^sh in (2^(64K-1), 2^(64K+1)), the two floors < 2 units, relative <
//   2^(3-64K)), normalized to M of K limbs with its top bit set (another
//   floor: relative < 2^(4-64K) in all), x = 0.M 2^ex; ffx_log_val
//   (unscaled: R within E units of 2^-F); log r - log x < 1.01 2^(4-64K)
//   = 1.01 2^-F: E + 2. The part is R 2^-(F+2) (log r / 4), sign of b.
//   log r >= 2^-8 in absolute units 2^-F costs at most 8 bits (undecided
//   elements then retry at a larger tier).
template <int K>
FL_NOINL bool cf_atan_im(FlOut &o, i8 &t, const u64 *Dv, const u64 *Bt, bool bneg, u64 p,
                         u32 rnd, const u64 *cs) {
    const u32 F = 64 * K - 4;
    i64 bd = ff_bits(Dv, CF_AL), bb = ff_bits(Bt, CF_AL);
    i64 cwi = bd - bb;
    u64 U[3 * K + 2], u[3 * K + 4], v[CF_AL], qq[3 * K + 3];
    if (cwi >= 9) {
        i64 c = cwi - 1;
        u64 Z[K], A[K], Cc[K], V[K], T[2 * K];
        // Bt 2^(F+c) has bits(D) + F - 1 bits.
        ff_shift(U, 3 * K + 2, Bt, CF_AL, (i64)F + c);
        ff_div(Z, K, U, 3 * K + 2, Dv, CF_AL, u, v, qq);
        u32 N = ffx_series<K>(FX_ATANH, A, Cc, Z, c, bneg, cs);
        ff_mulsh<K>(V, Z, A, F, T);
        return ff_round_c<K>(o, t, V, K, 5 * (u64)N + 9, -((i64)F + c) - 1, bneg, p, rnd);
    }
    u64 P[CF_AL], Q[CF_AL];
    ff_copy(P, Dv, CF_AL);
    ff_add(P, Bt, CF_AL);
    ff_copy(Q, Dv, CF_AL);
    ff_sub(Q, Bt, CF_AL);
    i64 bp = ff_bits(P, CF_AL), bq = ff_bits(Q, CF_AL);
    i64 sh = 64 * (i64)K + bq - bp;
    u64 Mq[K + 1], M[K], R[K + 1], E;
    // P 2^sh has 64K + bits(Q) <= 64 (3K + 1) bits.
    ff_shift(U, 3 * K + 2, P, CF_AL, sh);
    ff_div(Mq, K + 1, U, 3 * K + 2, Q, CF_AL, u, v, qq);
    i64 bm = ff_bits(Mq, K + 1);
    ff_shift(M, K, Mq, K + 1, 64 * (i64)K - bm);
    bool rneg;
    i64 S;
    ffx_log_val<K>(M, K, bm - sh, cs, false, R, rneg, S, E);
    if (rneg) {
        o.head = FF_UNDECIDED;
        return false;
    }
    return ff_round_c<K>(o, t, R, K + 1, E + 2, -(S + 2), bneg, p, rnd);
}

// The integer grid of cf_atan and cf_asin_acos: with G = -min(lowest bit
// exponent of a, of b, 0) and top = max(ea, eb, 1), a = A 2^-G and b = B
// 2^-G exactly (A, B of K limbs) when top + G <= F - 8; returns G, or -1
// otherwise (the host: parts of very different scales, or huge).
template <int K>
FL_DEV i64 cf_grid(u64 *A, u64 *B, i64 ea, const u64 *am, u32 na, i64 eb, const u64 *bm,
                   u32 nb) {
    const u32 F = 64 * K - 4;
    i64 la = ea - 64 * (i64)na, lb = eb - 64 * (i64)nb;
    i64 low = la < lb ? la : lb;
    if (low > 0) low = 0;
    i64 G = -low, top = ea > eb ? ea : eb;
    if (top < 1) top = 1;
    if (top + G > (i64)F - 8) return -1;
    ff_shift(A, K, am, na, la + G);
    ff_shift(B, K, bm, nb, lb + G);
    return G;
}

// r = x^2 exactly: CF_AL limbs from x of K.
template <int K>
FL_DEV void cf_sq(u64 *r, const u64 *x) {
    ff_mul_full<K>(r, x, x);
    r[2 * K] = 0;
}

// r = |x - y| (l limbs); returns x < y.
FL_DEV bool cf_absdiff(u64 *r, const u64 *x, const u64 *y, u32 l) {
    bool lt = ff_cmp(x, y, l) < 0;
    ff_copy(r, lt ? y : x, l);
    ff_sub(r, lt ? x : y, l);
    return lt;
}

// atan z (mpc_atan, func.rs's formulas) for normal a, b (limbs + 2 <= K):
// Re = atan2(2a, 1 - a^2 - b^2) / 2, Im = log(|z + i|^2 / |z - i|^2) / 4.
// Both parts from exact integers: with G = -min(lowest bit exponent of a,
// of b, 0) and top = max(ea, eb, 1), a = A 2^-G, b = B 2^-G exactly (A, B
// of K limbs) when top + G <= F - 8 (else the host: parts of very
// different scales, or huge); then 1 = 2^2G, |z|^2 = A^2 + B^2, 2a = A
// 2^(G+1), all in units 2^-2G, below 2^(2F) (CF_AL limbs). 1 - |z|^2 is
// never 0 (a^2 + b^2 = 1 has no solution in nonzero dyadics), D - |2b| > 0
// (z = +-i is not regular); func.rs's exact sums (< 2^16 bits) never fail
// here.
template <int K>
FL_NOINL int cf_atan(FlOut &ore, i8 &tre, FlOut &oim, i8 &tim, i64 ea, const u64 *am, u32 na,
                     bool an, i64 eb, const u64 *bm, u32 nb, bool bn, u64 pr, u64 pi, u32 rre,
                     u32 rim, const u64 *cs) {
    u64 A[K], B[K], N[CF_AL], S2[CF_AL], One[CF_AL], D[CF_AL], X[CF_AL], Y[CF_AL], Bt[CF_AL],
        one[1] = {1};
    i64 G = cf_grid<K>(A, B, ea, am, na, eb, bm, nb);
    if (G < 0) return CF_HOST;
    cf_sq<K>(N, A);
    cf_sq<K>(S2, B);
    ff_add(N, S2, CF_AL);
    ff_shift(One, CF_AL, one, 1, 2 * G);
    ff_copy(D, One, CF_AL);
    ff_add(D, N, CF_AL);
    bool xneg = cf_absdiff(X, One, N, CF_AL);
    if (ff_is0(X, CF_AL)) return CF_HOST;
    ff_shift(Y, CF_AL, A, K, G + 1);
    ff_shift(Bt, CF_AL, B, K, G + 1);
    if (!cf_atan_re<K>(ore, tre, Y, an, X, xneg, pr, rre, cs)) return CF_UNDEC;
    if (!cf_atan_im<K>(oim, tim, D, Bt, bn, pi, rim, cs)) return CF_UNDEC;
    return CF_DONE;
}

// ---- asin, acos ----

// An exact integer v (l limbs, nonzero) times 2^s as a ball of exactly F +
// 1 bits: shifted left exactly, or floored (< 1 unit: e = 1; cf_set's
// convention of 2 kept).
template <int K>
FL_DEV void cf_from_int(CfBall<K> &x, const u64 *v, u32 l, i64 s, bool neg) {
    const u32 F = 64 * K - 4;
    i64 d = (i64)F + 1 - (i64)ff_bits(v, l);
    ff_shift(x.m, K, v, l, d);
    x.s = s - d;
    x.e = d < 0 ? 2 : 0;
    x.neg = neg;
}

// 1 as an exact ball.
template <int K>
FL_DEV void cf_one(CfBall<K> &x, bool neg) {
    const u32 F = 64 * K - 4;
    u64 one[1] = {1};
    ff_shift(x.m, K, one, 1, F);
    x.s = -(i64)F;
    x.e = 0;
    x.neg = neg;
}

// log x for a ball x > 1 (an operand: bm = its bits, F - 13 .. F + 1):
// ffx_log_val on the centre m 2^s as 0.M 2^(s + bm) (exact) gives R within
// E units of 2^-F; the ball's radius moves log by < e / (m - e) < e
// 2^(2 - bm) (m >= 2^(bm-1), e < 2^56 << m), i.e. e 2^(F + 2 - bm) <= e
// 2^15 units. False when x is unusable or the log is not positive.
template <int K>
FL_NOINL bool cf_log_ball(u64 *R, u64 &E, const CfBall<K> &x, const u64 *cs) {
    u32 bm;
    if (!cf_operand(x, bm) || x.neg) return false;
    const u32 F = 64 * K - 4;
    u64 M[K];
    ff_shift(M, K, x.m, K, 64 * (i64)K - bm);
    bool rneg;
    i64 S;
    ffx_log_val<K>(M, K, x.s + bm, cs, false, R, rneg, S, E);
    u64 ex = cf_shl(x.e, F + 2 - bm);
    if (rneg || ex >= CF_EBIG) return false;
    E += ex + 1;
    return true;
}

// atan u for a ball 0 < u <~ 1 as ffx_atan_val's input: U = floor(u 2^F)
// of the centre (m 2^s: a right shift by -(s + F) >= 0, < 1 unit), du =
// the radius in those units + 2. False when u's centre is above 2^F (the
// caller takes the reciprocal) or the ball is unusable.
template <int K>
FL_NOINL bool cf_atan_ball(u64 *acc, u64 &E, const CfBall<K> &u, const u64 *cs) {
    const u32 F = 64 * K - 4;
    u32 bu;
    if (!cf_operand(u, bu)) return false;
    i64 sh = u.s + (i64)F;
    if (sh > 0 || (i64)bu + sh > (i64)F + 1) return false;
    u64 U[K];
    ff_shift(U, K, u.m, K, sh);
    if (ff_bits(U, K) > F) {
        // Above 1 unless exactly 2^F.
        u64 one[1] = {1}, P[K];
        ff_shift(P, K, one, 1, F);
        if (ff_cmp(U, P, K) != 0) return false;
    }
    u64 du = (-sh >= 64 ? 0 : u.e >> -sh) + 2;
    ffx_atan_val<K>(U, du, cs, acc, E);
    return true;
}

// asin z and acos z (func.rs's asin_acos, Abramowitz and Stegun 4.4.37-38)
// for normal a, b: alpha = (|z + 1| + |z - 1|) / 2, beta = a / alpha,
// asin z = asin beta + i sign(b) acosh alpha, acos z = acos beta - i
// sign(b) acosh alpha. On the integer grid of cf_atan (a = A 2^-G, b = B
// 2^-G, top + G <= F - 8): |z +- 1|^2 = (A +- 2^G)^2 + B^2 exact (CF_AL
// limbs, units 2^-2G), as balls (cf_from_int), square roots and sum by
// cf_sqrt / cf_add (no cancellation). alpha - 1 and 1 - |beta| = (alpha -
// |a|) / alpha, which cancel in the direct formulas (z near the segment
// [-1, 1], |a| >> |b|), are sums of positive balls (below); any ball that
// still loses bits (fewer than F - 13) is refused by the next cf_mul /
// cf_div / cf_sqrt: undecided (then a larger tier, then the CPU engine),
// never guessed.
// - Im: acosh alpha = log(alpha + sqrt((alpha - 1)(alpha + 1)))
//   (cf_log_ball), sign(b) for asin, -sign(b) for acos.
// - Re: with q = sqrt((1 - |beta|)(1 + |beta|)) (cos of asin|beta|), u =
//   |beta| / q, v = q / |beta|: asin|beta| = atan u (u <= 1) or pi/2 -
//   atan v; acos|beta| = atan v (v <= 1) or pi/2 - atan u; asin beta =
//   sign(a) asin|beta|; acos beta = acos|beta| (a > 0) or pi - acos|beta|
//   = pi - atan v or pi/2 + atan u. Absolute units 2^-F (cf_atan_ball):
//   pi/2 < 2 units, pi < 4 (ff_atan2's bounds). Small |beta| loses bits to
//   the absolute units (undecided when too many).
// func.rs's special rules (b = 0, a = 0, non-finite parts) never apply
// to these elements, and its exact sums (< 2^16 bits) never fail here.
template <int K>
FL_NOINL int cf_asin_acos(bool acos, FlOut &ore, i8 &tre, FlOut &oim, i8 &tim, i64 ea,
                          const u64 *am, u32 na, bool an, i64 eb, const u64 *bm, u32 nb, bool bn,
                          u64 pr, u64 pi, u32 rre, u32 rim, const u64 *cs) {
    const u32 F = 64 * K - 4;
    u64 A[K], B[K], O[K], Ap[K], Am[K], R2[CF_AL], S2[CF_AL], T2[CF_AL], one[1] = {1};
    i64 G = cf_grid<K>(A, B, ea, am, na, eb, bm, nb);
    if (G < 0) return CF_HOST;
    ff_shift(O, K, one, 1, G);
    // Ap = |a| + 1, Am = ||a| - 1| (|z + 1|, |z - 1| swap with a's sign:
    // their sum is the same).
    ff_copy(Ap, A, K);
    ff_add(Ap, O, K);
    cf_absdiff(Am, A, O, K);
    cf_sq<K>(T2, B);
    cf_sq<K>(R2, Ap);
    ff_add(R2, T2, CF_AL);
    cf_sq<K>(S2, Am);
    ff_add(S2, T2, CF_AL);
    CfBall<K> r, sv, alpha, one_b, t, ap1, q, rt, sarg, x, beta, om, op, w, cq, u, v, sr, ss,
        b2, apb, amb, d1, d2, h, ama;
    cf_from_int<K>(r, R2, CF_AL, -2 * G, false);
    cf_from_int<K>(sv, S2, CF_AL, -2 * G, false);
    cf_sqrt<K>(sr, r);
    cf_sqrt<K>(ss, sv);
    cf_add<K>(alpha, sr, ss);
    alpha.s -= 1;
    cf_one<K>(one_b, false);
    // alpha - 1 and alpha - |a| without cancellation: with d1 = |z + 1| -
    // (|a| + 1) = b^2 / (|z + 1| + |a| + 1) and d2 = |z - 1| - ||a| - 1| =
    // b^2 / (|z - 1| + ||a| - 1|) (both > 0; d2 = |b| when |a| = 1), h =
    // (d1 + d2) / 2: alpha - 1 = h + max(|a| - 1, 0), alpha - |a| = h +
    // max(1 - |a|, 0): sums of positive balls.
    int ca = ff_cmp(A, O, K);
    cf_from_int<K>(b2, T2, CF_AL, -2 * G, false);
    cf_from_int<K>(apb, Ap, K, -G, false);
    cf_add<K>(t, sr, apb);
    cf_div<K>(d1, b2, t);
    if (ca == 0) {
        d2 = ss;
    } else {
        cf_from_int<K>(amb, Am, K, -G, false);
        cf_add<K>(t, ss, amb);
        cf_div<K>(d2, b2, t);
    }
    cf_add<K>(h, d1, d2);
    h.s -= 1;
    if (ca > 0) cf_add<K>(t, h, amb);
    else t = h;  // alpha - 1
    if (ca < 0) cf_add<K>(ama, h, amb);
    else ama = h;  // alpha - |a|
    // Im.
    {
        cf_add<K>(ap1, alpha, one_b);
        cf_mul<K>(q, t, ap1);
        cf_sqrt<K>(rt, q);
        cf_add<K>(sarg, alpha, rt);
        u64 R[K + 1], E;
        if (!cf_log_ball<K>(R, E, sarg, cs)) return CF_UNDEC;
        if (!ff_round_c<K>(oim, tim, R, K + 1, E, -(i64)F, acos != bn, pi, rim)) return CF_UNDEC;
    }
    // Re.
    cf_exact<K>(x, ea, am, na);
    cf_div<K>(beta, x, alpha);
    if (!cf_ok(beta)) return CF_UNDEC;
    beta.neg = false;
    cf_div<K>(om, ama, alpha);  // 1 - |beta| = (alpha - |a|) / alpha
    cf_add<K>(op, one_b, beta);  // 1 + |beta|
    cf_mul<K>(w, om, op);
    cf_sqrt<K>(cq, w);
    cf_div<K>(u, beta, cq);
    cf_div<K>(v, cq, beta);
    u64 acc[K + 1], E;
    bool use_u = !acos;  // the result from atan u (else atan v)
    bool ok = use_u ? cf_atan_ball<K>(acc, E, u, cs) : cf_atan_ball<K>(acc, E, v, cs);
    if (!ok) {
        use_u = !use_u;
        ok = use_u ? cf_atan_ball<K>(acc, E, u, cs) : cf_atan_ball<K>(acc, E, v, cs);
        if (!ok) return CF_UNDEC;
    }
    // asin|beta| = atan u or pi/2 - atan v; acos|beta| = atan v or pi/2 -
    // atan u; pi - acos|beta| = pi - atan v or pi/2 + atan u.
    bool direct = acos ? !use_u : use_u;
    bool rneg = false;
    if (acos && an) E += ff_pi_fold<K>(acc, direct ? 1 : 2, cs);  // pi - atan v, pi/2 + atan u
    else if (!direct) E += ff_pi_fold<K>(acc, 3, cs);             // pi/2 - atan
    if (!acos) rneg = an;
    if (!ff_round_c<K>(ore, tre, acc, K + 1, E, -(i64)F, rneg, pr, rre)) return CF_UNDEC;
    return CF_DONE;
}

// The largest exponent of a part on the device: |x| < 2^29 keeps e^x and
// cosh x inside the exponent range (2^29 log2 e < 7.75e8 < 2^30 - 1) and
// below func.rs's special thresholds (exp: Re z >= 2^29 decided apart;
// sin/cos: |Im z| > 745e6; sinh/cosh the same with the parts exchanged).
#define CF_EMAX 29
// The smallest: products of two such parts (and of e^-2^29) stay far above
// the underflow threshold 2^(1 - 2^30).
#define CF_EMIN (-(1ll << 20))

// One element of float_cfunc: CF_DONE (both parts written), CF_HOST (not a
// regular element: the CPU engine), CF_UNDEC (a rounding test failed).
template <int K>
FL_DEV int cf_eval(u32 fn, FlOut &ore, i8 &tre, FlOut &oim, i8 &tim, u64 ah, const u64 *am,
                   u32 na, u64 bh, const u64 *bm, u32 nb, u64 pr, u64 pi, u32 rre, u32 rim,
                   const u64 *cs) {
    tre = 0;
    tim = 0;
    u32 ta = fl_tag(ah), tb = fl_tag(bh);
    if ((ta & 3) != FL_NORMAL || (tb & 3) != FL_NORMAL) return CF_HOST;
    if (na + 2 > (u32)K || nb + 2 > (u32)K) return CF_HOST;
    i64 ea = fl_exp(ah), eb = fl_exp(bh);
    if (ea < CF_EMIN || eb < CF_EMIN) return CF_HOST;
    bool an = (ta & FL_NEG) != 0, bn = (tb & FL_NEG) != 0;
    (void)an; // unused where CF_ONLY leaves only log
    (void)bn;
#if CF_HAS(9)
    if (fn == CF_ATAN) return cf_atan<K>(ore, tre, oim, tim, ea, am, na, an, eb, bm, nb, bn, pr, pi,
                                         rre, rim, cs);
#endif
#if CF_HAS(10)
    if (fn == CF_ASIN || fn == CF_ACOS)
        return cf_asin_acos<K>(fn == CF_ACOS, ore, tre, oim, tim, ea, am, na, an, eb, bm, nb, bn,
                               pr, pi, rre, rim, cs);
#endif
#if CF_HAS(1)
    if (fn == CF_LOG) {
        // Re log|z|, Im = atan2(b, a) (mpc_arg as mpfr_atan2).
        if (ea > 1000000 || eb > 1000000) return CF_HOST;
        if (!cf_log_abs<K>(ore, tre, ah, am, na, bh, bm, nb, pr, rre, cs)) return CF_UNDEC;
        if (ff_atan2<K>(oim, tim, bh, bm, nb, ah, am, na, pi, rim, cs)) return CF_UNDEC;
        return CF_DONE;
    }
#endif
#if CF_HAS(0) || CF_HAS(2) || CF_HAS(6) || CF_HAS(8)
    CfBall<K> x, y, re, im;
    switch (fn) {
#if CF_HAS(0)
    case CF_EXP: {
        // e^a cos b + i e^a sin b.
        if (ea > CF_EMAX || eb > 40) return CF_HOST;
        CfBall<K> e;
        if (!cf_exp<K>(e, an, ea, am, na, cs)) return CF_HOST;
        if (!cf_sincos<K>(x, y, bn, eb, bm, nb, cs)) return CF_HOST;
        cf_mul<K>(re, e, x);
        cf_mul<K>(im, e, y);
        break;
    }
#endif
#if CF_HAS(2)
    case CF_SIN:
    case CF_COS:
    case CF_SINH:
    case CF_COSH: {
        // With x = cos, y = sin of the trigonometric part (a; b for sinh,
        // cosh) and ch, sh of the other: sin: sin a cosh b + i cos a sinh
        // b; cos: cos a cosh b - i sin a sinh b; sinh: sinh a cos b + i
        // cosh a sin b; cosh: cosh a cos b + i sinh a sin b.
        bool h = fn == CF_SINH || fn == CF_COSH;
        i64 et = h ? eb : ea, eh = h ? ea : eb;
        if (eh > CF_EMAX || et > 40) return CF_HOST;
        CfBall<K> ch, sh;
        if (!cf_sincos<K>(x, y, h ? bn : an, et, h ? bm : am, h ? nb : na, cs)) return CF_HOST;
        if (!cf_coshsinh<K>(ch, sh, h ? an : bn, eh, h ? am : bm, h ? na : nb, cs))
            return CF_HOST;
        bool s = fn == CF_SIN, sinh = fn == CF_SINH;
        cf_mul<K>(re, s ? y : x, sinh ? sh : ch);
        cf_mul<K>(im, s ? x : y, sinh ? ch : sh);
        if (fn == CF_COS) im.neg = !im.neg;
        break;
    }
#endif
#if CF_HAS(6)
    case CF_TAN:
    case CF_TANH: {
        // tan: (sin 2a + i sinh 2b) / (cos 2a + cosh 2b); tanh: (sinh 2a +
        // i sin 2b) / (cosh 2a + cos 2b). The hyperbolic part below 64 in
        // magnitude (func.rs decides |Im tan| near 1 apart above p + 64).
        // A denominator that cancels (cos -> -1, small hyperbolic part)
        // keeps too few bits for cf_div: undecided.
        bool t = fn == CF_TAN;
        i64 ec = t ? ea : eb, eh = t ? eb : ea;
        if (eh > 6 || ec > 39) return CF_HOST;
        CfBall<K> ch, sh, den;
        if (!cf_sincos<K>(x, y, t ? an : bn, ec + 1, t ? am : bm, t ? na : nb, cs))
            return CF_HOST;
        if (!cf_coshsinh<K>(ch, sh, t ? bn : an, eh + 1, t ? bm : am, t ? nb : na, cs))
            return CF_HOST;
        cf_add<K>(den, x, ch);
        cf_div<K>(re, t ? y : sh, den);
        cf_div<K>(im, t ? sh : y, den);
        break;
    }
#endif
#if CF_HAS(8)
    case CF_SQRT: {
        // With r = sqrt((|a| + |z|) / 2) and q = |b| / (2 r): a > 0 gives
        // r + i sign(b) q, a < 0 gives q + i sign(b) r (func.rs; no
        // cancellation). Exact roots never pass the rounding test: the
        // CPU engine decides them.
        if (ea > 1000000 || eb > 1000000) return CF_HOST;
        CfBall<K> z, t, r, q, bb;
        cf_abs<K>(z, ea, am, na, eb, bm, nb);
        cf_exact<K>(x, ea, am, na);
        cf_add<K>(t, x, z);
        t.s -= 1;
        cf_sqrt<K>(r, t);
        cf_exact<K>(bb, eb, bm, nb);
        r.s += 1;
        cf_div<K>(q, bb, r);
        r.s -= 1;
        re = an ? q : r;
        im = an ? r : q;
        im.neg = bn;
        break;
    }
#endif
    default: return CF_HOST;
    }
    return cf_round2<K>(ore, tre, re, pr, rre, oim, tim, im, pi, rim);
#else
    return CF_HOST;
#endif
}

// x / y = (a + i b) / (c + i d) (mpc_div) for regular elements: all four
// parts normal with exponents in [-2^20, 2^20] (no overflow or underflow)
// and limbs + 2 <= K. MPC rounds the exact (a c + b d) / (c^2 + d^2) and
// (b c - a d) / (c^2 + d^2) once each (src/complex/arith.rs): the parts are
// exact balls, each product (cf_mul) within 2 units of F + 1 bits, the
// sums by cf_add (a numerator that cancels more than 13 bits, an exact zero
// included, leaves the ball unusable: undecided, then the CPU engine, which
// gives MPC's +0), the quotients by cf_div.
template <int K>
FL_DEV int cf_div_eval(FlOut &ore, i8 &tre, FlOut &oim, i8 &tim, u64 ah, const u64 *am, u32 na,
                       u64 bh, const u64 *bm, u32 nb, u64 ch, const u64 *cm, u32 nc, u64 dh,
                       const u64 *dm, u32 nd, u64 pr, u64 pi, u32 rre, u32 rim) {
    tre = 0;
    tim = 0;
    const u64 hs[4] = {ah, bh, ch, dh};
    const u64 *ms[4] = {am, bm, cm, dm};
    const u32 ns[4] = {na, nb, nc, nd};
    CfBall<K> v[4];
    for (int j = 0; j < 4; j++) {
        u32 tg = fl_tag(hs[j]);
        i64 e = fl_exp(hs[j]);
        if ((tg & 3) != FL_NORMAL || ns[j] + 2 > (u32)K) return CF_HOST;
        if (e < CF_EMIN || e > -CF_EMIN) return CF_HOST;
        cf_exact<K>(v[j], e, ms[j], ns[j]);
        v[j].neg = (tg & FL_NEG) != 0;
    }
    CfBall<K> p1, p2, nre, nim, den, re, im;
    cf_mul<K>(p1, v[2], v[2]);
    cf_mul<K>(p2, v[3], v[3]);
    cf_add<K>(den, p1, p2);
    cf_mul<K>(p1, v[0], v[2]);
    cf_mul<K>(p2, v[1], v[3]);
    cf_add<K>(nre, p1, p2);
    cf_mul<K>(p1, v[1], v[2]);
    cf_mul<K>(p2, v[0], v[3]);
    p2.neg = !p2.neg;
    cf_add<K>(nim, p1, p2);
    cf_div<K>(re, nre, den);
    cf_div<K>(im, nim, den);
    return cf_round2<K>(ore, tre, re, pr, rre, oim, tim, im, pi, rim);
}

// ---- pow ----

// arg x = atan2(b, a) for normal a, b (limbs + 2 <= K): ff_atan2's normal
// branch without its rounding (ff_atan2_val, never scaled): acc (K+1
// limbs) = |arg x| in units 2^-F, sign b's (aneg), returns the bound.
template <int K>
FL_NOINL u64 cf_arg_val(u64 *acc, bool &aneg, u64 yh, const u64 *ym, u32 ny, u64 xh,
                        const u64 *xm, u32 nx, const u64 *cs) {
    aneg = (fl_tag(yh) & FL_NEG) != 0;
    i64 fine;
    return ff_atan2_val<K>(acc, fine, yh, ym, ny, xh, xm, nx, false, cs);
}

// log|x| for normal a, b as cf_log_abs without the rounding, unscaled
// (cf_log_norm, S = F): log|x| = R 2^-(F+1) within E + 16 units of
// 2^-(F+1). R: K+1 limbs.
template <int K>
FL_NOINL u64 cf_log_abs_val(u64 *R, bool &rneg, u64 ah, const u64 *am, u32 na, u64 bh,
                            const u64 *bm, u32 nb, const u64 *cs) {
    i64 S;
    return cf_log_norm<K>(R, rneg, S, ah, am, na, bh, bm, nb, false, cs) + 16;
}

// acc (K+2 limbs, sign an) += v * L: v = +-0.vm 2^ev exact (nv limbs, ev <=
// 24), L = Lm (K+1 limbs, sign ln) within eL units. The exact product vm Lm
// 2^(ev - 64 nv) floored (< 1 unit), its error |v| eL < eL 2^max(ev, 0):
// returns that bound + 1. |v L| < 2^24 2^(F+1+22) stays below 2^(64(K+2)-2).
template <int K>
FL_DEV u64 cf_fix_mac(u64 *acc, bool &an, bool vneg, i64 ev, const u64 *vm, u32 nv,
                      const u64 *Lm, bool ln, u64 eL) {
    u64 P[2 * K + 1], W[K + 2], tmp[K + 2];
    fl_mul_exact(P, vm, nv, Lm, K + 1);
    ff_shift(W, K + 2, P, nv + K + 1, ev - 64 * (i64)nv);
    ff_sadd(acc, an, W, vneg != ln, K + 2, tmp);
    return cf_shl(eL, ev > 0 ? (u32)ev : 0) + 1;
}

// t = T 2^-F (T: K+2 limbs, nonzero, below 2^(F+40)) as a float mantissa
// of K+1 limbs with its top bit set and exponent: x = 0.xm 2^ex, ex = bt -
// F; xm's low 64 K + 64 - bt >= 24 bits are zero, so the consumers' shifts
// (ffx_exp_val: by ex - 4; ff_tr_reduce: by ex + 60, or by -68 when ex <=
// 0, i.e. bt <= F) drop only zero bits: x is exact for them.
template <int K>
FL_DEV i64 cf_fix_float(u64 *xm, const u64 *T) {
    const u32 F = 64 * K - 4;
    u32 bt = ff_bits(T, K + 2);
    ff_shift(xm, K + 1, T, K + 2, 64 * (i64)(K + 1) - bt);
    return (i64)bt - (i64)F;
}

// x^y = exp(y log x) (mpc_pow) for REGULAR elements only, those where
// pow.rs takes its final Ziv loop on intervals and the result is neither
// exact-and-representable-ambiguous, real, imaginary, nor near the
// exponent range:
// - a, b normal (x neither real nor imaginary: pow.rs's rules 2 and 3 for
//   real or imaginary x, fix_sign, never apply), exponents in [-2^20,
//   10^6]; c, d normal or zero (not both: rule 1), normal ones with
//   exponents in [-2^20, 24]; limbs + 2 <= K.
// - y real (d = 0): pow.rs tries exact results (rule 4) and, for |a| =
//   |b| with y an even integer, forces a zero part; with a b != 0, x^y real
//   or imaginary needs arg x a multiple of pi/4 (x^(n 2^-k) real makes x^n
//   real: for a Gaussian integer that needs |a| = |b|), so |a| = |b| goes
//   to the host and every other exact result has two nonzero parts that
//   pow.rs rounds once each (round_scaled, in range): the correct rounding
//   the balls below give when their test passes (a representable exact
//   part, or a midpoint in RNDN, is strictly inside its ball and never
//   passes: undecided).
// - |Re t| < 2^28 and |Im t| < 2^40, t = y log x: e^Re t within 2^(+-3.9e8),
//   far inside the exponent range, so pow.rs's bounds (beyond, Re t <
//   -2^29 or above 2^29; far_underflow, |t| >= 2^61) never decide a part.
// Values: L = log|x| (cf_log_abs_val: units 2^-(F+1), eL), A = arg x
// (cf_arg_val, units 2^-F, doubled to 2^-(F+1): 2 eA); Re t = c L - d A,
// Im t = c A + d L by cf_fix_mac (each product within eL 2^max(ec, 0) + 1
// or 2 eA 2^max(ed, 0) + 1 units), floored by one bit to units 2^-F (the
// errors halve, + 1 for the floor): eT (er, ei), centres T (cf_fix_float). exp(Re t): ffx_exp_val on the centre (exact
// float of K+1 limbs: X = x 2^(F+64) exact in K+2 limbs since |x| < 2^28),
// Y 2^(k-F) within E; the centre's offset (< eT 2^-F) scales exp by 1 +-
// 1.0001 eT 2^-F, Y <= 1.42 2^F: E + 2 eT (as ff_exp_fix). cos, sin (Im
// t): ff_tr_reduce + ff_sc_both on the exact centre (as cf_sincos: the
// reduction is exact, x 2^(F+128) an integer of K+3 limbs, and the scaled
// branch ex <= 0 shifts out only zero bits since the centre has <= F bits
// there), then both 1-Lipschitz: the centre's offset adds eT units of
// 2^-F, eT 2^sc units of S's 2^-(F+sc) (sc < 0 counts as 0: more). Then
// re = e^Re t cos Im t, im = e^Re t sin Im t by cf_mul, rounded per part.
template <int K>
FL_DEV int cf_pow_eval(FlOut &ore, i8 &tre, FlOut &oim, i8 &tim, u64 ah, const u64 *am, u32 na,
                       u64 bh, const u64 *bm, u32 nb, u64 ch, const u64 *cm, u32 nc, u64 dh,
                       const u64 *dm, u32 nd, u64 pr, u64 pi, u32 rre, u32 rim, const u64 *cs) {
    const u32 F = 64 * K - 4;
    tre = 0;
    tim = 0;
    u32 ta = fl_tag(ah), tb = fl_tag(bh), tc = fl_tag(ch), td = fl_tag(dh);
    if ((ta & 3) != FL_NORMAL || (tb & 3) != FL_NORMAL) return CF_HOST;
    bool cz = (tc & 3) == FL_ZERO, dz = (td & 3) == FL_ZERO;
    if ((!cz && (tc & 3) != FL_NORMAL) || (!dz && (td & 3) != FL_NORMAL) || (cz && dz))
        return CF_HOST;
    if (na + 2 > (u32)K || nb + 2 > (u32)K || nc + 2 > (u32)K || nd + 2 > (u32)K)
        return CF_HOST;
    i64 ea = fl_exp(ah), eb = fl_exp(bh), ec = cz ? 0 : fl_exp(ch), ed = dz ? 0 : fl_exp(dh);
    if (ea < CF_EMIN || eb < CF_EMIN || ea > 1000000 || eb > 1000000) return CF_HOST;
    if ((!cz && (ec < CF_EMIN || ec > 24)) || (!dz && (ed < CF_EMIN || ed > 24))) return CF_HOST;
    if (dz && ea == eb && fl_cmp_mant(am, na, bm, nb) == 0) return CF_HOST;
    bool cn = (tc & FL_NEG) != 0, dn = (td & FL_NEG) != 0;
    u64 L[K + 1], Ar[K + 1], tmp[K + 1];
    bool ln, an;
    u64 eL = cf_log_abs_val<K>(L, ln, ah, am, na, bh, bm, nb, cs);
    u64 eA = cf_arg_val<K>(Ar, an, bh, bm, nb, ah, am, na, cs);
    ff_copy(tmp, Ar, K + 1);
    ff_add(Ar, tmp, K + 1);  // units 2^-(F+1); |arg| < 4: no carry out
    eA *= 2;
    u64 Tr[K + 2], Ti[K + 2];
    bool rn = false, in = false;
    u64 er = 0, ei = 0;
    ff_zero(Tr, K + 2);
    ff_zero(Ti, K + 2);
    if (!cz) {
        er += cf_fix_mac<K>(Tr, rn, cn, ec, cm, nc, L, ln, eL);
        ei += cf_fix_mac<K>(Ti, in, cn, ec, cm, nc, Ar, an, eA);
    }
    if (!dz) {
        er += cf_fix_mac<K>(Tr, rn, !dn, ed, dm, nd, Ar, an, eA);
        ei += cf_fix_mac<K>(Ti, in, dn, ed, dm, nd, L, ln, eL);
    }
    if (er >= CF_EBIG || ei >= CF_EBIG) return CF_UNDEC;
    // To units 2^-F (floor: the bounds halve, + 1 unit; + 2 covers both).
    {
        u64 w[K + 2];
        ff_copy(w, Tr, K + 2);
        ff_shift(Tr, K + 2, w, K + 2, -1);
        ff_copy(w, Ti, K + 2);
        ff_shift(Ti, K + 2, w, K + 2, -1);
    }
    er = er / 2 + 2;
    ei = ei / 2 + 2;
    u32 br = ff_bits(Tr, K + 2), bi = ff_bits(Ti, K + 2);
    if (br > F + 28 || bi > F + 40) return CF_HOST;
    if (br == 0 || bi == 0) return CF_UNDEC;
    CfBall<K> e, cb, sb, re, im;
    {
        u64 xm[K + 1], Y[K], E;
        i64 k;
        i64 ex = cf_fix_float<K>(xm, Tr);
        if (!ffx_exp_val<K>(rn, ex, xm, K + 1, cs, Y, k, E)) return CF_HOST;
        cf_set<K>(e, Y, K, k - (i64)F, E + 2 * er, false);
    }
    {
        u64 xm[K + 1], Z[K], S[K], C[K], es, ec2;
        i64 ex = cf_fix_float<K>(xm, Ti), c, sc;
        bool rneg;
        u32 q;
        if (ff_tr_reduce<K>(Z, c, rneg, q, in, ex, xm, K + 1, cs)) return CF_HOST;
        ff_sc_both<K>(S, sc, es, C, ec2, Z, c, cs);
        es += cf_shl(ei, sc > 0 ? (u32)(sc > 60 ? 61 : sc) : 0);
        ec2 += ei;
        cf_quadrant<K>(cb, sb, S, sc, es, C, ec2, q, rneg);
    }
    cf_mul<K>(re, e, cb);
    cf_mul<K>(im, e, sb);
    return cf_round2<K>(ore, tre, re, pr, rre, oim, tim, im, pi, rim);
}

#ifdef __CUDACC__
// The common end of an element of float_cfunc / float_cdiv (see below).
__device__ __forceinline__ void cf_store(int st, FlOut &o1, i8 t1, FlOut &o2, i8 t2, u64 i,
                                         u64 len, u64 *rh, i8 *tr, u64 *ih, i8 *ti, u32 *nflag,
                                         u32 *flags) {
    if (st == CF_UNDEC) {
        flags[atomicAdd(nflag, 1u)] = (u32)i;
    } else if (st == CF_HOST) {
        flags[len - 1 - atomicAdd(nflag + 1, 1u)] = (u32)i;
    }
    if (st != CF_DONE) {
        o1.head = 0;
        o2.head = 0;
        t1 = 0;
        t2 = 0;
        for (u32 l = 0; l < o1.n; l++) o1.m[l] = 0;
        for (u32 l = 0; l < o2.n; l++) o2.m[l] = 0;
    }
    rh[i] = o1.head;
    tr[i] = t1;
    ih[i] = o2.head;
    ti[i] = t2;
}

// A thread per element z = a + i b (parts of na, nb limbs): the real part of
// f(z) to (rh, rl, tr) at pr bits (nr limbs), the imaginary part to (ih,
// il, ti) at pi bits (ni limbs); rnd = mode of Re | mode of Im << 4. An
// element not written gets heads 0 and its index in flags: undecided ones
// from the front (count nflag[0]), host cases from the back (flags[len - 1
// - j], count nflag[1]), as ff_store.
#if !defined(CF_ONLY) || CF_ONLY < 16
extern "C" __global__ void __launch_bounds__(128) float_cfunc(
    u64 *rh, u64 *rl, i8 *tr, u64 *ih, u64 *il, i8 *ti, const u64 *ah, const u64 *al, u32 na,
    const u64 *bh, const u64 *bl, u32 nb, u64 len, u32 fn, u32 rnd, u64 pr, u32 nr, u64 pi,
    u32 ni, const u64 *cs, u32 *nflag, u32 *flags) {
    for (u64 i = blockIdx.x * (u64)blockDim.x + threadIdx.x; i < len;
         i += (u64)gridDim.x * blockDim.x) {
        FlOut o1 = {rl + i * nr, nr, 0}, o2 = {il + i * ni, ni, 0};
        i8 t1 = 0, t2 = 0;
        int st = cf_eval<FF_K>(fn, o1, t1, o2, t2, ah[i], al + i * na, na, bh[i], bl + i * nb,
                               nb, pr, pi, rnd & 15, (rnd >> 4) & 15, cs);
        cf_store(st, o1, t1, o2, t2, i, len, rh, tr, ih, ti, nflag, flags);
    }
}

#endif

#if CF_HAS(16)
// x / y (mpc_div) per element, x = a + i b, y = c + i d; outputs and flags
// as float_cfunc.
extern "C" __global__ void __launch_bounds__(128) float_cdiv(
    u64 *rh, u64 *rl, i8 *tr, u64 *ih, u64 *il, i8 *ti, const u64 *ah, const u64 *al, u32 na,
    const u64 *bh, const u64 *bl, u32 nb, const u64 *ch, const u64 *cl, u32 nc, const u64 *dh,
    const u64 *dl, u32 nd, u64 len, u32 rnd, u64 pr, u32 nr, u64 pi, u32 ni, u32 *nflag,
    u32 *flags) {
    for (u64 i = blockIdx.x * (u64)blockDim.x + threadIdx.x; i < len;
         i += (u64)gridDim.x * blockDim.x) {
        FlOut o1 = {rl + i * nr, nr, 0}, o2 = {il + i * ni, ni, 0};
        i8 t1 = 0, t2 = 0;
        int st = cf_div_eval<FF_K>(o1, t1, o2, t2, ah[i], al + i * na, na, bh[i], bl + i * nb, nb,
                                   ch[i], cl + i * nc, nc, dh[i], dl + i * nd, nd, pr, pi,
                                   rnd & 15, (rnd >> 4) & 15);
        cf_store(st, o1, t1, o2, t2, i, len, rh, tr, ih, ti, nflag, flags);
    }
}

#endif

#if CF_HAS(17)
// x^y (mpc_pow) per element, x = a + i b, y = c + i d; outputs and flags
// as float_cfunc.
extern "C" __global__ void __launch_bounds__(128) float_cpow(
    u64 *rh, u64 *rl, i8 *tr, u64 *ih, u64 *il, i8 *ti, const u64 *ah, const u64 *al, u32 na,
    const u64 *bh, const u64 *bl, u32 nb, const u64 *ch, const u64 *cl, u32 nc, const u64 *dh,
    const u64 *dl, u32 nd, u64 len, u32 rnd, u64 pr, u32 nr, u64 pi, u32 ni, const u64 *cs,
    u32 *nflag, u32 *flags) {
    for (u64 i = blockIdx.x * (u64)blockDim.x + threadIdx.x; i < len;
         i += (u64)gridDim.x * blockDim.x) {
        FlOut o1 = {rl + i * nr, nr, 0}, o2 = {il + i * ni, ni, 0};
        i8 t1 = 0, t2 = 0;
        int st = cf_pow_eval<FF_K>(o1, t1, o2, t2, ah[i], al + i * na, na, bh[i], bl + i * nb, nb,
                                   ch[i], cl + i * nc, nc, dh[i], dl + i * nd, nd, pr, pi,
                                   rnd & 15, (rnd >> 4) & 15, cs);
        cf_store(st, o1, t1, o2, t2, i, len, rh, tr, ih, ti, nflag, flags);
    }
}
#endif
#endif
