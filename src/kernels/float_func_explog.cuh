// Correctly rounded log2, log10, log1p, expm1, sinh, cosh, tanh, asinh,
// acosh, atanh on the device (issue 5), composed from value cores that
// return a centre and a proven bound instead of rounding (copies of
// float_func.cu's exp and log cores, generalized to longer mantissas), a
// scaled series for small arguments and a fixed-point square root. Each
// function computes C and E with the exact value strictly inside
// (C - E, C + E) 2^s (bound per function below) and rounds with ff_round_c,
// as the CPU's round_interval; exact results (log2(2^k), log10(10^k), ...)
// never pass that test (the interval holds the representable value
// strictly inside), so they and every undecided element go to the host.
// Included by float_func.cu before ff_eval; src/kernels/mod.rs pastes it
// for NVRTC.

// Constants after float_func.cu's tables: 1/ln2 and 1/ln10 at F+64 bits
// (K+1 limbs each, < 2 units off).
FL_DEV const u64 *ffx_inv_ln2(const u64 *cs, u32 K) { return ff_etab(cs, K, FF_EXP_J) + K; }
FL_DEV const u64 *ffx_inv_ln10(const u64 *cs, u32 K) { return ffx_inv_ln2(cs, K) + K + 1; }

// ---- fixed-point square root ----

// r (K limbs) = floor(sqrt(N)), N of 2K limbs; returns whether N is a
// square. N is shifted left by an even 2t so that its top two bits are not
// both zero (the root then has its top bit set, as fl_isqrt_root's levels
// need), the root of N 4^t by fl_isqrt_root, and shifted back:
// floor(floor(sqrt(N) 2^t) / 2^t) = floor(sqrt(N)).
template <int K>
FL_NOINL bool ff_isqrt_2k(u64 *r, const u64 *N) {
    u64 nn[2 * K], un[2 * K + 1], s[K], q[K + 2];
    u32 b = ff_bits(N, 2 * K);
    if (b == 0) {
        ff_zero(r, K);
        return true;
    }
    u32 t = (128 * K - b) / 2;
    ff_shift(nn, 2 * K, N, 2 * K, 2 * (i64)t);
    fl_isqrt_root<false>(nn, K, s, un, q);
    // un holds s^2 (2K limbs).
    bool exact = fl_cmp_mant(un, 2 * K, nn, 2 * K) == 0;
    ff_shift(r, K, s, K, -(i64)t);
    return exact;
}

// ff_isqrt_2k without the exactness (the name float_cfunc.cu uses).
template <int K>
FL_DEV void ffx_isqrt(u64 *r, const u64 *n) {
    ff_isqrt_2k<K>(r, n);
}

// r (K limbs) = floor(sqrt(a 2^F)) for a (K limbs, value a 2^-F, below
// 16): the square root in the same fixed point, less than 1 unit below
// the exact root of a. (The errors of a itself are the caller's.)
template <int K>
FL_NOINL void ff_sqrt(u64 *r, const u64 *a) {
    const u32 F = 64 * K - 4;
    u64 n[2 * K];
    ff_shift(n, 2 * K, a, K, F);
    ffx_isqrt<K>(r, n);
}

// ---- small helpers ----

// |x| compared with 1 (x normal): -1, 0, 1.
FL_DEV int ffx_cmp_one(i64 ex, const u64 *xm, u32 nx) {
    if (ex <= 0) return -1;
    if (ex >= 2) return 1;
    return (xm[nx - 1] == (1ull << 63) && !fl_any(xm, nx - 1)) ? 0 : 1;
}

// |x| as a double (x normal, ex within the double range).
FL_DEV double ffx_abs_d(i64 ex, const u64 *xm, u32 nx) {
    return (double)xm[nx - 1] * ldexp(1.0, (int)ex - 64);
}

// How many bits a formula path may lose to a small result (|f(x)| ~ 2^ex
// in absolute units 2^-F): the tier's bits above p + 2, less the largest
// bound used (exp's ~2^(s+1), s = 0.9 sqrt(F) + 1, times 4 for sinh), less
// 24 bits of safety (undecided elements then stay below 2^-20 or so), and
// at most F - 64 nx so that x stays exact in units 2^-F; at least 7 (where
// the series take over regardless). At the bench's precisions (K >= nx + 2)
// this is 40..80 bits, so its arguments (|x| >= 2^-17) never diverge into
// the series within a warp.
template <int K>
FL_DEV i64 ffx_spare(u64 p, u32 nx) {
    const i64 F = 64 * K - 4;
    i64 m = F - (i64)p - 2 - (i64)(0.9 * fl_sqrt((double)F)) - 1 - 4 - 24;
    if (m > F - 64 * (i64)nx) m = F - 64 * (i64)nx;
    return m > 7 ? m : 7;
}

// A result far above the range (expm1, sinh, cosh of |x| >= 2^30: above
// 2^(1.44 2^30 - 1)), as ia.rs's out_of_range: MPFR's overflow.
FL_DEV int ffx_overflow(FlOut &o, i8 &t, bool neg, u64 p, u32 rnd) {
    for (u32 i = 0; i < o.n; i++) o.m[i] = 0;
    o.m[o.n - 1] = 1ull << 63;
    t = fl_finish(o, neg, FL_EMAX + 100, -1, false, p, rnd);
    return 0;
}

// 1 + x (sub: 1 - x, x < 1) exactly, x = 0.xm 2^ex: a normalized mantissa m
// (nm <= K limbs) and exponent e (value 0.m 2^e); false when it needs
// more than K limbs.
template <int K>
FL_DEV bool ffx_one_plus(u64 *m, u32 &nm, i64 &e, const u64 *xm, u32 nx, i64 ex, bool sub) {
    i64 lx = ex - 64 * (i64)nx;  // weight of x's lowest bit
    i64 U = lx < 0 ? lx : 0;     // the unit
    i64 bits = (ex > 0 ? ex : 0) + 1 - U;
    if (bits > 64 * (i64)K) return false;
    u32 l = (u32)((bits + 63) / 64);
    u64 A[K], B[K];
    ff_shift(A, l, xm, nx, lx - U);
    ff_zero(B, l);
    B[(-U) / 64] = 1ull << ((-U) % 64);
    if (sub) {
        ff_sub(B, A, l);
        ff_copy(A, B, l);
    } else {
        ff_add(A, B, l);
    }
    u32 b = ff_bits(A, l);
    if (b == 0) return false;
    nm = (b + 63) / 64;
    ff_shift(m, nm, A, l, 64 * (i64)nm - b);
    e = U + b;
    return true;
}

// ---- value cores ----

// (The log core ffx_log_val is float_func.cu's, with ff_log.)

// exp(r) from R = |r| 2^F (|r| <= 0.36) and r's sign, without rounding:
// Y (K limbs) = exp(r) 2^F within E units: r = c + d, c = j 2^-10 the
// nearest table point, Taylor in d / 2^s2 term by term, s2 squarings, times
// the table's exp(c); E = (N+3) 2^(s2+5) + 4 (for R exact; R's own error
// is the caller's). False when the table does not cover r (|r| > 0.35).
// (ffx_exp_val here and float_func_trig.cuh's ff_exp_fix.)
template <int K>
FL_DEV bool ffx_exp_taylor(const u64 *R, bool rneg, const u64 *cs, u64 *Y, u64 &E) {
    const u32 F = 64 * K - 4;
    const u32 s = (u32)(0.9 * fl_sqrt((double)F)) + 1;
    u64 T[2 * K];
    u32 ja = (u32)(((R[K - 1] >> (F - 11 - 64 * (K - 1))) + 1) >> 1);
    if (ja > FF_EXP_J) return false;
    u64 D[K], Cj[K], jj[1] = {(u64)ja};
    ff_shift(Cj, K, jj, 1, (i64)F - FF_TM);
    bool dneg = ff_absdiff(D, R, Cj, K);
    dneg = dneg != rneg;
    const u32 s2 = s > 13 ? s - 10 : 3;
    u64 y[K], term[K], tmp[K];
    ff_zero(y, K);
    y[K - 1] = 1ull << 60;
    ff_copy(term, y, K);
    u32 N = 0;
    for (u32 j = 1;; j++) {
        ff_mulsh_v<K>(tmp, term, D, (i64)F + s2, T);
        ff_divs(tmp, K, j, ff_invtab(cs, K));
        if (ff_is0(tmp, K)) break;
        ff_copy(term, tmp, K);
        if (dneg && (j & 1)) ff_sub(y, term, K);
        else ff_add(y, term, K);
        N++;
    }
    for (u32 i = 0; i < s2; i++) {
        ff_mulsh<K>(tmp, y, y, F, T);
        ff_copy(y, tmp, K);
    }
    int jc = rneg ? -(int)ja : (int)ja;
    ff_mulsh<K>(Y, ff_etab(cs, K, jc), y, F, T);
    E = ((u64)(N + 3) << (s2 + 5)) + 4;
    return true;
}

// exp(x) = Y 2^(k - F), x = +-0.xm 2^ex normal with ex <= 30, Y (K limbs)
// in [0.70, 1.42] 2^F with error < E units: ff_exp's reduction (k =
// round(x/ln2), R = |x - k ln2| 2^F < 2 units off) and ffx_exp_taylor
// (same bound); false when the table does not cover r (never for |r| <=
// ln2/2).
template <int K>
FL_NOINL bool ffx_exp_val(bool neg, i64 ex, const u64 *xm, u32 nx, const u64 *cs, u64 *Y, i64 &k,
                          u64 &E) {
    u64 R[K];
    bool rneg = ff_exp_reduce<K>(neg, ex, xm, nx, cs, R, k);
    return ffx_exp_taylor<K>(R, rneg, cs, Y, E);
}

// Series kinds of ffx_series.
#define FX_EXPM1 0u  // sum z^j / (j+1)!          (expm1(z) / z)
#define FX_LOG1P 1u  // sum (-z)^j / (j+1)        (log1p(z) / z)
#define FX_ATANH 2u  // sum z^2j / (2j+1)         (atanh(z) / z)
#define FX_SINH 3u   // sum z^2j / (2j+1)!        (sinh(z) / z; cosh z in Cc)
#define FX_ASINH 4u  // sum (-1)^j c_j z^2j, c_j = c_(j-1) (2j-1)^2 / (2j (2j+1))
#define FX_ASIN 5u   // sum c_j z^2j              (asin(z) / z)
#define FX_ATAN 6u   // sum (-1)^j z^2j / (2j+1)  (atan(z) / z)

// A (units 2^-F, K limbs) = the series above for z = +-Z 2^-(F+c), Z <
// 2^F (so |z| < 2^-c), c >= 7 (for the kinds in z^2, |z| < 2^-7 is
// enough: atan's reduced argument is absolute, c = 0, but below 2^-10);
// returns N, the terms after the first.
// Bound: q = z or z^2 in units 2^-F has error < 1.1 (for Z exact within
// 2 units); each term T_j = floor(floor(T_(j-1) Q / 2^F) a_j / b_j) with
// a_j / b_j <= 1 (or a power pw_j and pw_j / d) then has error < 4: the
// previous error shrinks by q <= 2^-7, plus 1.1 from Q, plus two floors;
// the loop stops at the first zero term, whose true value is < 4, and the
// rest is geometric: A is off by < 5N + 6 units (Cc likewise). So V =
// floor(Z A / 2^F) (A / 2^F <= 1.01) is off by < 1.01 dZ + 5N + 7 units
// of 2^-(F+c), dZ being Z's error.
template <int K>
FL_NOINL u32 ffx_series(u32 kind, u64 *A, u64 *Cc, const u64 *Z, i64 c, bool zneg,
                        const u64 *cs) {
    const u32 F = 64 * K - 4;
    u64 T[2 * K], Q[K], term[K], tmp[K];
    const u64 *inv = ff_invtab(cs, K);
    if (kind == FX_EXPM1 || kind == FX_LOG1P) ff_shift(Q, K, Z, K, -c);
    else ff_mulsh<K>(Q, Z, Z, (i64)F + 2 * c, T);
    ff_zero(A, K);
    A[K - 1] = 1ull << 60;
    ff_copy(term, A, K);
    ff_copy(Cc, A, K);
    u32 N = 0;
    for (u32 j = 1;; j++) {
        ff_mulsh<K>(tmp, term, Q, F, T);
        if (kind == FX_EXPM1) {
            ff_divs(tmp, K, j + 1, inv);
        } else if (kind == FX_SINH) {
            ff_divs(tmp, K, (u64)(2 * j - 1) * (2 * j), inv);
        } else if (kind == FX_ASINH || kind == FX_ASIN) {
            ff_mul1(tmp, K, tmp, K, (u64)(2 * j - 1) * (2 * j - 1));
            ff_divs(tmp, K, (u64)(2 * j) * (2 * j + 1), inv);
        }
        if (ff_is0(tmp, K)) break;
        ff_copy(term, tmp, K);
        bool sub = false;
        if (kind == FX_LOG1P) {
            ff_divs(tmp, K, j + 1, inv);
            sub = !zneg && (j & 1);
        } else if (kind == FX_ATANH || kind == FX_ATAN) {
            ff_divs(tmp, K, 2 * j + 1, inv);
            sub = kind == FX_ATAN && (j & 1);
        } else if (kind == FX_EXPM1) {
            sub = zneg && (j & 1);
        } else if (kind == FX_SINH) {
            ff_add(Cc, tmp, K);
            ff_divs(tmp, K, 2 * j + 1, inv);
        } else if (kind == FX_ASINH) {
            sub = j & 1;
        }
        if (sub) ff_sub(A, tmp, K);
        else ff_add(A, tmp, K);
        N++;
    }
    return N;
}

// x's magnitude scaled: Z = |x| 2^(F+c), c = -ex (exact: F >= 64 nx).
template <int K>
FL_DEV void ffx_scaled(u64 *Z, const u64 *xm, u32 nx) {
    ff_shift(Z, K, xm, nx, (i64)(64 * K - 4) - 64 * (i64)nx);
}

// An odd function f(x) = x A(x) for |x| < 2^-7 or less, from the series:
// V = Z A, E = 5N + 7 (Z exact), sign of x.
template <int K>
FL_NOINL int ffx_odd_small(FlOut &o, i8 &t, u32 kind, bool neg, i64 ex, const u64 *xm, u32 nx,
                           u64 p, u32 rnd, const u64 *cs) {
    const u32 F = 64 * K - 4;
    u64 Z[K], A[K], Cc[K], V[K], T[2 * K];
    ffx_scaled<K>(Z, xm, nx);
    u32 N = ffx_series<K>(kind, A, Cc, Z, -ex, neg, cs);
    ff_mulsh<K>(V, Z, A, F, T);
    return ff_round_c<K>(o, t, V, K, 5 * (u64)N + 7, ex - (i64)F, neg, p, rnd) ? 0 : 1;
}

// ---- log2, log10 ----

// log x (ffx_log_val: R, E in units 2^-S) times 1/ln2 or 1/ln10 (K+1
// limbs at F+64 bits, < 2 units): floor(R I / 2^(F+64)) is off by < 1.45 E
// (E times the constant) + |R| 2^-(F+63) (< 1: |R| < 2^(S+31)) + 1 (floor)
// < 2E + 2 units of 2^-S. Exact results (log2(2^k), log10(10^k)) never
// pass the rounding test: the host.
template <int K>
FL_NOINL int ffx_log_base(FlOut &o, i8 &t, u32 cls, bool neg, i64 ex, const u64 *xm, u32 nx,
                          u64 p, u32 rnd, const u64 *cs, bool ten) {
    if (ff_log_special(o, cls, neg)) return 0;
    if (nx + 2 > K) return 1;
    if (ffx_cmp_one(ex, xm, nx) == 0) {
        fl_special(o, FL_ZERO, false);
        return 0;
    }
    const u32 F = 64 * K - 4;
    u64 R[K + 1], P[2 * K + 2], Rr[K + 1];
    bool rneg;
    i64 S;
    u64 E;
    ffx_log_val<K>(xm, nx, ex, cs, true, R, rneg, S, E);
    fl_mul_exact(P, R, K + 1, ten ? ffx_inv_ln10(cs, K) : ffx_inv_ln2(cs, K), K + 1);
    ff_shift(Rr, K + 1, P, 2 * K + 2, -((i64)F + 64));
    return ff_round_c<K>(o, t, Rr, K + 1, 2 * E + 2, -S, rneg, p, rnd) ? 0 : 1;
}

// ---- log1p ----

// |x| >= 2^-(64(K - nx) - 1) or so: 1 + x exactly (ffx_one_plus, at most K
// limbs), then ffx_log_val (scaled near 0: relative precision). Smaller x
// (down to MPFR's fast path): the series x (1 - x/2 + x^2/3 - ...), c =
// -ex >= 8. Huge x (1 + x beyond K limbs): the host.
template <int K>
FL_NOINL int ffx_log1p(FlOut &o, i8 &t, u32 cls, bool neg, i64 ex, const u64 *xm, u32 nx, u64 p,
                       u32 rnd, const u64 *cs) {
    if (cls == FL_NAN || (cls == FL_INF && neg)) {
        fl_special(o, FL_NAN, false);
        return 0;
    }
    if (cls == FL_ZERO) {
        fl_special(o, FL_ZERO, neg);
        return 0;
    }
    if (cls == FL_INF) {
        fl_special(o, FL_INF, false);
        return 0;
    }
    if (nx + 2 > K) return 1;
    if (neg) {
        int c1 = ffx_cmp_one(ex, xm, nx);
        if (c1 == 0) {
            fl_special(o, FL_INF, true);
            return 0;
        }
        if (c1 > 0) {
            fl_special(o, FL_NAN, false);
            return 0;
        }
    }
    // Tiny: log1p(x) in (x - x^2, x), below x.
    u64 L = p + 3 > 64ull * nx ? p + 3 : 64ull * nx;
    if (ex <= -(i64)L) return ff_beside<K>(o, t, ex, neg, xm, nx, L, p, rnd, neg) ? 0 : 1;
    u64 m[K];
    u32 nm;
    i64 e;
    if (ffx_one_plus<K>(m, nm, e, xm, nx, ex, neg)) {
        u64 R[K + 1];
        bool rneg;
        i64 S;
        u64 E;
        ffx_log_val<K>(m, nm, e, cs, true, R, rneg, S, E);
        return ff_round_c<K>(o, t, R, K + 1, E, -S, rneg, p, rnd) ? 0 : 1;
    }
    if (ex < -8) return ffx_odd_small<K>(o, t, FX_LOG1P, neg, ex, xm, nx, p, rnd, cs);
    return 1;
}

// ---- expm1 ----

// ex <= -spare (ffx_spare, at least 7): the series x (1 + x/2 + x^2/6 +
// ...) (E = 5N + 7, scaled). Else exp(x) = Y 2^(k-F) (E units) minus 1: k >= 0: Y - 2^(F-k) in units
// 2^(k-F) (exact subtraction for k <= F, else 1 more unit); -68 <= k < 0:
// 2^(F-k) - Y in units 2^(k-F) (exact); k < -68: 2^(F+64) - floor(Y
// 2^(k+64)) in units 2^-(F+64), < E + 1. The result is above 2^-(spare+1)
// in magnitude, so absolute units cost at most spare + 1 bits.
template <int K>
FL_NOINL int ffx_expm1(FlOut &o, i8 &t, u32 cls, bool neg, i64 ex, const u64 *xm, u32 nx, u64 p,
                       u32 rnd, const u64 *cs) {
    if (ff_nan_zero(o, cls, neg, false)) return 0;
    if (cls == FL_INF) {
        if (neg) t = ff_write_pow2(o, true, 1, p, rnd);
        else fl_special(o, FL_INF, false);
        return 0;
    }
    if (nx + 2 > K) return 1;
    // Tiny: expm1(x) in (x, x + x^2), above x.
    u64 L = p + 3 > 64ull * nx ? p + 3 : 64ull * nx;
    if (ex <= -(i64)L) return ff_beside<K>(o, t, ex, neg, xm, nx, L, p, rnd, !neg) ? 0 : 1;
    // x <= -(p+2) ln2 (with margin): exp(x) < 2^-(p+2), expm1 in (-1, -1 + 2^-(p+2)).
    if (neg && ex >= 1 && (ex > 40 || ffx_abs_d(ex, xm, nx) >= 0.7 * (double)(p + 2) + 1.0))
        return ff_near_one<K>(o, t, false, true, p, rnd) ? 0 : 1;
    if (ex > 30) return ffx_overflow(o, t, false, p, rnd);
    if (ex <= -ffx_spare<K>(p, nx))
        return ffx_odd_small<K>(o, t, FX_EXPM1, neg, ex, xm, nx, p, rnd, cs);
    const u32 F = 64 * K - 4;
    u64 Y[K], R[K + 1], one[1] = {1};
    i64 k;
    u64 E;
    if (!ffx_exp_val<K>(neg, ex, xm, nx, cs, Y, k, E)) return 1;
    ff_copy(R, Y, K);
    R[K] = 0;
    if (k >= 0) {
        bool rn = false;
        if (k <= (i64)F) {
            // k = 0 for -0.35 < x < 0: y - 1 < 0.
            u64 B[K + 1];
            ff_shift(B, K + 1, one, 1, (i64)F - k);
            if (ff_cmp(R, B, K + 1) >= 0) {
                ff_sub(R, B, K + 1);
            } else {
                ff_sub(B, R, K + 1);
                ff_copy(R, B, K + 1);
                rn = true;
            }
        } else {
            ff_sub1(R, K + 1, 1);
            E += 1;
        }
        return ff_round_c<K>(o, t, R, K + 1, E, k - (i64)F, rn, p, rnd) ? 0 : 1;
    }
    u64 B[K + 1];
    if (k >= -68) {
        ff_shift(B, K + 1, one, 1, (i64)F - k);
        if (ff_sub(B, R, K + 1)) return 1;
        return ff_round_c<K>(o, t, B, K + 1, E, k - (i64)F, true, p, rnd) ? 0 : 1;
    }
    ff_shift(B, K + 1, one, 1, (i64)F + 64);
    ff_shift(R, K + 1, Y, K, k + 64);
    if (ff_sub(B, R, K + 1)) return 1;
    return ff_round_c<K>(o, t, B, K + 1, E + 1, -((i64)F + 64), true, p, rnd) ? 0 : 1;
}

// ---- sinh, cosh ----

// ex > -spare (sinh) or any x (cosh): exp(|x|) = Y 2^(k-F) (E units, k
// >= 0), Inv = floor(2^2F / Y) = 1/y (y >= 0.70: < 2.05 E + 1 units), then
// (Y -+ (Inv >> 2k)) / 2 in units 2^(k-F-1), off by < E + 2.05 E + 2 <
// 4E + 4; sinh's result is above |x|, so at most spare bits are lost.
// Smaller sinh arguments: the series x (1 + x^2/6 + ...).
template <int K>
FL_NOINL int ffx_sinhcosh(FlOut &o, i8 &t, u32 cls, bool neg, i64 ex, const u64 *xm, u32 nx,
                          u64 p, u32 rnd, const u64 *cs, bool cosh) {
    if (cls == FL_NAN) {
        fl_special(o, FL_NAN, false);
        return 0;
    }
    if (cls == FL_ZERO) {
        if (cosh) t = ff_write_pow2(o, false, 1, p, rnd);
        else fl_special(o, FL_ZERO, neg);
        return 0;
    }
    if (cls == FL_INF) {
        fl_special(o, FL_INF, cosh ? false : neg);
        return 0;
    }
    if (nx + 2 > K) return 1;
    if (cosh) {
        // cosh x - 1 < 2^(2ex-1) 1.01 <= 2^-(p+2).
        if (2 * ex <= -(i64)(p + 2)) return ff_near_one<K>(o, t, true, false, p, rnd) ? 0 : 1;
    } else {
        u64 L = p + 3 > 64ull * nx ? p + 3 : 64ull * nx;
        if (2 * ex <= -(i64)L) return ff_beside<K>(o, t, ex, neg, xm, nx, L, p, rnd, true) ? 0 : 1;
        if (ex <= -ffx_spare<K>(p, nx))
            return ffx_odd_small<K>(o, t, FX_SINH, neg, ex, xm, nx, p, rnd, cs);
    }
    if (ex > 30) return ffx_overflow(o, t, cosh ? false : neg, p, rnd);
    const u32 F = 64 * K - 4;
    u64 Y[K], Inv[K + 1], R[K + 1], B[K + 1];
    i64 k;
    u64 E;
    if (!ffx_exp_val<K>(false, ex, xm, nx, cs, Y, k, E)) return 1;
    {
        u64 Nn[2 * K], u[2 * K + 2], v[K], qq[2 * K + 1], one[1] = {1};
        ff_shift(Nn, 2 * K, one, 1, 2 * (i64)F);
        ff_div(Inv, K, Nn, 2 * K, Y, K, u, v, qq);
        Inv[K] = 0;
    }
    ff_shift(B, K + 1, Inv, K + 1, -2 * k);
    ff_copy(R, Y, K);
    R[K] = 0;
    if (cosh) ff_add(R, B, K + 1);
    else if (ff_sub(R, B, K + 1)) return 1;
    return ff_round_c<K>(o, t, R, K + 1, 4 * E + 4, k - (i64)F - 1, cosh ? false : neg, p, rnd)
               ? 0
               : 1;
}

// ---- tanh ----

// ex <= -spare: one series gives sinh(x)/x (S) and cosh x (C), both off by
// < 5N + 6 units; V = floor(Z S / C) is off by < Z/2^F (dS + dC) 1.001 + 1
// < 11N + 14. Else exp(2|x|) = Y 2^(k-F) (E units, 0 <= k < F), tanh|x| =
// (y - a) / (y + a), a = 2^-k, whose derivative in y is 2a/(y+a)^2 <=
// 1/(2y) < 0.72: Q = floor((Y - A) 2^F / (Y + A)) is off by < E + 1,
// the result above |x|/2. |x| >= 0.35 (p + 3): MPFR's fast path (1 - tanh|x| <
// 2e^(-2|x|) < 2^-(p+2)).
template <int K>
FL_NOINL int ffx_tanh(FlOut &o, i8 &t, u32 cls, bool neg, i64 ex, const u64 *xm, u32 nx, u64 p,
                      u32 rnd, const u64 *cs) {
    if (ff_nan_zero(o, cls, neg, false)) return 0;
    if (cls == FL_INF) {
        t = ff_write_pow2(o, neg, 1, p, rnd);
        return 0;
    }
    if (nx + 2 > K) return 1;
    u64 L = p + 3 > 64ull * nx ? p + 3 : 64ull * nx;
    if (2 * ex <= -(i64)L) return ff_beside<K>(o, t, ex, neg, xm, nx, L, p, rnd, false) ? 0 : 1;
    if (ex > 30 || (ex >= 1 && ffx_abs_d(ex, xm, nx) >= 0.35 * (double)(p + 3)))
        return ff_near_one<K>(o, t, false, neg, p, rnd) ? 0 : 1;
    const u32 F = 64 * K - 4;
    u64 Q[K];
    if (ex <= -ffx_spare<K>(p, nx)) {
        u64 Z[K], A[K], C[K], P[2 * K + 2], u[2 * K + 4], v[K], qq[2 * K + 3];
        ffx_scaled<K>(Z, xm, nx);
        u32 N = ffx_series<K>(FX_SINH, A, C, Z, -ex, neg, cs);
        fl_mul_exact(P, Z, K, A, K);
        ff_div(Q, K, P, 2 * K, C, K, u, v, qq);
        return ff_round_c<K>(o, t, Q, K, 11 * (u64)N + 14, ex - (i64)F, neg, p, rnd) ? 0 : 1;
    }
    u64 Y[K], Nn[K + 1], Dd[K + 1], A[K + 1], one[1] = {1};
    i64 k;
    u64 E;
    if (!ffx_exp_val<K>(false, ex + 1, xm, nx, cs, Y, k, E)) return 1;
    if (k < 0 || k > (i64)F) return 1;
    ff_shift(A, K + 1, one, 1, (i64)F - k);
    ff_copy(Nn, Y, K);
    Nn[K] = 0;
    ff_copy(Dd, Nn, K + 1);
    ff_add(Dd, A, K + 1);
    if (ff_sub(Nn, A, K + 1)) return 1;
    u64 U[2 * K + 1], u[2 * K + 3], v[K + 1], qq[2 * K + 2];
    ff_shift(U, 2 * K + 1, Nn, K + 1, F);
    ff_div(Q, K, U, 2 * K + 1, Dd, K + 1, u, v, qq);
    return ff_round_c<K>(o, t, Q, K, E + 1, -(i64)F, neg, p, rnd) ? 0 : 1;
}

// log(W 2^(e-F)) for W (K limbs, nonzero) in units 2^-F: W normalized,
// then ffx_log_val absolute (asinh, acosh).
template <int K>
FL_DEV void ffx_log_fix(const u64 *W, i64 e, const u64 *cs, u64 *R, bool &rneg, i64 &S, u64 &E) {
    u32 b = ff_bits(W, K);
    u64 m[K];
    ff_shift(m, K, W, K, 64 * (i64)K - b);
    ffx_log_val<K>(m, K, e + (i64)b - (i64)(64 * K - 4), cs, false, R, rneg, S, E);
}

// ---- asinh ----

// ex <= -spare: the series. Else e = max(ex, 0), x' = |x| 2^-e < 1 (Xf
// exact in units 2^-F: spare <= F - 64 nx), a = x'^2 + 4^-e (floor: < 2 units), S = sqrt(a)
// (ff_sqrt: < 2/(2 sqrt a) + 1 <= 3 units, a >= 1/4), W = Xf + S (< 3
// units, w >= 1), asinh|x| = log(w 2^e): ffx_log_val's bound plus 3.
template <int K>
FL_NOINL int ffx_asinh(FlOut &o, i8 &t, u32 cls, bool neg, i64 ex, const u64 *xm, u32 nx, u64 p,
                       u32 rnd, const u64 *cs) {
    if (cls == FL_NAN) {
        fl_special(o, FL_NAN, false);
        return 0;
    }
    if (cls == FL_ZERO || cls == FL_INF) {
        fl_special(o, cls, neg);
        return 0;
    }
    if (nx + 2 > K) return 1;
    u64 L = p + 3 > 64ull * nx ? p + 3 : 64ull * nx;
    if (2 * ex <= -(i64)L) return ff_beside<K>(o, t, ex, neg, xm, nx, L, p, rnd, false) ? 0 : 1;
    if (ex <= -ffx_spare<K>(p, nx))
        return ffx_odd_small<K>(o, t, FX_ASINH, neg, ex, xm, nx, p, rnd, cs);
    const u32 F = 64 * K - 4;
    i64 e = ex > 0 ? ex : 0;
    u64 Xf[K], A[K], S[K], T[2 * K], one[1] = {1};
    ff_shift(Xf, K, xm, nx, (i64)F + ex - e - 64 * (i64)nx);
    ff_mulsh<K>(A, Xf, Xf, F, T);
    if (2 * e <= (i64)F) {
        u64 B[K];
        ff_shift(B, K, one, 1, (i64)F - 2 * e);
        ff_add(A, B, K);
    }
    ff_sqrt<K>(S, A);
    ff_add(Xf, S, K);
    u64 R[K + 1];
    bool rneg;
    i64 Sc;
    u64 E;
    ffx_log_fix<K>(Xf, e, cs, R, rneg, Sc, E);
    return ff_round_c<K>(o, t, R, K + 1, E + 3, -Sc, neg, p, rnd) ? 0 : 1;
}

// ---- acosh ----

// acosh x = 2 asinh(sqrt((x-1)/2)) = 2 log(sqrt((x-1)/2) + sqrt((x+1)/2)).
// d = x - 1 exact. d < 2^-13 and d < 2^-2spare: t = sqrt(d/2) < 2^-7
// scaled (T = floor(t 2^(F+c)) from the exact integer, < 1 unit), asinh's
// series: 2 Z A, E = 5N + 9 units of 2^-(F+c). Else e = ex, e - 1 = 2h + q:
// (x +- 1)/2 = 2^2h a+-, a+- = 2^q (x 2^-e +- 2^-e) (exact for e <= F, else
// < 2 units), W = sqrt(a-) + sqrt(a+) (< 5 units, w >= 0.70): log(W 2^h)
// off by the log's bound plus 8; the result (twice that) is above
// sqrt(2d), so at most spare bits are lost.
template <int K>
FL_NOINL int ffx_acosh(FlOut &o, i8 &t, u32 cls, bool neg, i64 ex, const u64 *xm, u32 nx, u64 p,
                       u32 rnd, const u64 *cs) {
    if (cls == FL_NAN || cls == FL_ZERO || neg) {
        fl_special(o, FL_NAN, false);
        return 0;
    }
    if (cls == FL_INF) {
        fl_special(o, FL_INF, false);
        return 0;
    }
    int c1 = ffx_cmp_one(ex, xm, nx);
    if (c1 < 0) {
        fl_special(o, FL_NAN, false);
        return 0;
    }
    if (c1 == 0) {
        fl_special(o, FL_ZERO, false);
        return 0;
    }
    if (nx + 2 > K) return 1;
    const u32 F = 64 * K - 4;
    u64 one[1] = {1};
    // d = x - 1 = D 2^(ex - 64nx) (ex >= 1).
    u64 D[K];
    ff_copy(D, xm, nx);
    {
        u64 B[K];
        ff_zero(B, nx);
        if (64 * (i64)nx - ex >= 0) ff_shift(B, nx, one, 1, 64 * (i64)nx - ex);
        ff_sub(D, B, nx);
    }
    i64 ed = (i64)ff_bits(D, nx) + ex - 64 * (i64)nx;
    if (ed <= -13 && -ed > 2 * ffx_spare<K>(p, nx)) {
        i64 c = (1 - ed) >> 1;  // floor((1 - ed) / 2) >= 7
        i64 g = ex - 64 * (i64)nx - 1 + 2 * (i64)F + 2 * c;
        u64 Nn[2 * K], Z[K], A[K], Cc[K], V[K], T[2 * K];
        ff_shift(Nn, 2 * K, D, nx, g);
        ffx_isqrt<K>(Z, Nn);
        u32 N = ffx_series<K>(FX_ASINH, A, Cc, Z, c, false, cs);
        ff_mulsh<K>(V, Z, A, F, T);
        return ff_round_c<K>(o, t, V, K, 5 * (u64)N + 9, 1 - (i64)F - c, false, p, rnd) ? 0 : 1;
    }
    i64 e = ex, h = (e - 1) >> 1, q = (e - 1) - 2 * h;
    u64 Xf[K], Ap[K], Am[K], B[K], Sp[K], Sm[K];
    ff_shift(Xf, K, xm, nx, (i64)F - 64 * (i64)nx);
    ff_zero(B, K);
    if (e <= (i64)F) ff_shift(B, K, one, 1, (i64)F - e);
    ff_copy(Ap, Xf, K);
    ff_add(Ap, B, K);
    ff_copy(Am, Xf, K);
    ff_sub(Am, B, K);
    if (q) {
        ff_shift(B, K, Ap, K, 1);
        ff_copy(Ap, B, K);
        ff_shift(B, K, Am, K, 1);
        ff_copy(Am, B, K);
    }
    ff_sqrt<K>(Sp, Ap);
    ff_sqrt<K>(Sm, Am);
    ff_add(Sp, Sm, K);
    u64 R[K + 1];
    bool rneg;
    i64 Sc;
    u64 E;
    ffx_log_fix<K>(Sp, h, cs, R, rneg, Sc, E);
    if (rneg) return 1;
    return ff_round_c<K>(o, t, R, K + 1, E + 8, 1 - Sc, false, p, rnd) ? 0 : 1;
}

// ---- atanh ----

// ex <= -spare: the series. Else (log(1 + |x|) - log(1 - |x|)) / 2, both
// arguments exact (ffx_one_plus), both logs absolute (units 2^-F, E1 +
// E2); the result is above |x|.
template <int K>
FL_NOINL int ffx_atanh(FlOut &o, i8 &t, u32 cls, bool neg, i64 ex, const u64 *xm, u32 nx, u64 p,
                       u32 rnd, const u64 *cs) {
    if (ff_nan_zero(o, cls, neg, true)) return 0;
    int c1 = ffx_cmp_one(ex, xm, nx);
    if (c1 == 0) {
        fl_special(o, FL_INF, neg);
        return 0;
    }
    if (c1 > 0) {
        fl_special(o, FL_NAN, false);
        return 0;
    }
    if (nx + 2 > K) return 1;
    u64 L = p + 3 > 64ull * nx ? p + 3 : 64ull * nx;
    if (2 * ex <= -(i64)L) return ff_beside<K>(o, t, ex, neg, xm, nx, L, p, rnd, true) ? 0 : 1;
    if (ex <= -ffx_spare<K>(p, nx))
        return ffx_odd_small<K>(o, t, FX_ATANH, neg, ex, xm, nx, p, rnd, cs);
    u64 m[K], R1[K + 1], R2[K + 1], tmp[K + 1];
    u32 nm;
    i64 e, S1, S2;
    u64 E1, E2;
    bool n1, n2;
    if (!ffx_one_plus<K>(m, nm, e, xm, nx, ex, false)) return 1;
    ffx_log_val<K>(m, nm, e, cs, false, R1, n1, S1, E1);
    if (!ffx_one_plus<K>(m, nm, e, xm, nx, ex, true)) return 1;
    ffx_log_val<K>(m, nm, e, cs, false, R2, n2, S2, E2);
    ff_sadd(R1, n1, R2, !n2, K + 1, tmp);
    if (n1) return 1;
    return ff_round_c<K>(o, t, R1, K + 1, E1 + E2, -S1 - 1, neg, p, rnd) ? 0 : 1;
}

// ---- asin, acos ----

// atan u for u = U 2^-F in [0, 1] (K limbs): ff_atan's reduction, c = j
// 2^-10 the nearest table point, z = (u - c) / (1 + u c), Z = floor(z 2^F)
// by one division of exact integers (< 1 unit), atan u = atan c + z A(z)
// (ff_atan_sum, |z| < 2^-10): acc (K+1 limbs, units 2^-F). Returns N, the
// series' terms; the bound is the caller's (ffx_atan_val, float_func_trig's
// ff_atan_abs).
template <int K>
FL_NOINL u32 ffx_atan_core(u64 *acc, const u64 *U, const u64 *cs) {
    const u32 F = 64 * K - 4;
    u32 j = (u32)(((U[K - 1] >> (F - 11 - 64 * (K - 1))) + 1) >> 1);
    if (j > 1024) j = 1024;
    u64 C[K + 1], Num[K + 1], Den[K + 1], jj[1] = {(u64)j}, one[1] = {1};
    u64 Uu[K + 1];
    ff_copy(Uu, U, K);
    Uu[K] = 0;
    ff_shift(C, K + 1, jj, 1, (i64)F - FF_TM);
    bool zneg = ff_absdiff(Num, Uu, C, K + 1);
    // Den = 2^(F+10) + U j (units 2^-(F+10)).
    ff_mul1(Den, K + 1, U, K, j);
    {
        u64 P[K + 1];
        ff_shift(P, K + 1, one, 1, (i64)F + FF_TM);
        ff_add(Den, P, K + 1);
    }
    u64 V[K];
    u32 N = 0;
    if (ff_is0(Num, K + 1)) {
        ff_zero(V, K);
    } else {
        u64 Us[2 * K + 2], u[2 * K + 4], v[K + 1], qq[2 * K + 3], Z[K], z2[K], A[K], T[2 * K];
        u32 nl = (u32)((ff_bits(Num, K + 1) + 10 + F) / 64) + 1;
        ff_shift(Us, nl, Num, K + 1, 10 + (i64)F);
        ff_div(Z, K, Us, nl, Den, K + 1, u, v, qq);
        ff_mulsh<K>(z2, Z, Z, (i64)F, T);
        N = ff_atan_sum<K>(A, z2, T, cs);
        ff_mulsh<K>(V, Z, A, F, T);
    }
    u64 b[K + 1], tmp[K + 1];
    bool an = false;
    ff_zero(acc, K + 1);
    ff_copy(acc, ff_atab(cs, K, j), K);
    ff_zero(b, K + 1);
    ff_copy(b, V, K);
    ff_sadd(acc, an, b, zneg, K + 1, tmp);
    return N;
}

// atan u (ffx_atan_core) for U off by < du units: acc off by < 2 (table) +
// 1.01 (2 du + 1) (z's error, dz/du <= 2) + 5N + 7 (ffx_series' bound for
// the atan series) < 5N + 11 + 3 du.
template <int K>
FL_DEV void ffx_atan_val(const u64 *U, u64 du, const u64 *cs, u64 *acc, u64 &E) {
    u32 N = ffx_atan_core<K>(acc, U, cs);
    E = 5 * (u64)N + 11 + 3 * du;
}

// acos |x| = 2 atan v, v = sqrt((1 - |x|) / (1 + |x|)) in [0, 1): a = 1 -
// |x|, b = 1 + |x| in units 2^-F (exact when x's bits reach no lower than
// 2^-F, else floored: < 1 unit each, v then off by < 1 more unit), the
// radicand R = floor(a 2^(2F+2c) / b), T = isqrt(R) = v 2^(F+c) off by <
// 1/2 + 1 (+1) units. a < 2^-14 (when scaled_ok): c = floor(-ea/2) >= 7
// and the scaled series 2 T A (5N + 9, units 2^-(F+c)); else c = 0 and
// ffx_atan_val: 2 acc. Result: R (K+1 limbs) 2^-S off by < E units.
template <int K>
FL_NOINL void ffx_acos_abs(i64 ex, const u64 *xm, u32 nx, const u64 *cs, bool scaled_ok, u64 *R,
                           i64 &S, u64 &E) {
    const u32 F = 64 * K - 4;
    u64 X[K], a[K], b[K], one[1] = {1};
    i64 sh = (i64)F + ex - 64 * (i64)nx;
    ff_shift(X, K, xm, nx, sh);
    u64 du = sh >= 0 ? 2 : 3;
    ff_shift(a, K, one, 1, F);
    ff_copy(b, a, K);
    ff_sub(a, X, K);
    ff_add(b, X, K);
    i64 ea = (i64)ff_bits(a, K) - (i64)F;
    i64 c = (scaled_ok && ea <= -14) ? ((-ea) >> 1) : 0;
    u64 Us[3 * K + 1], u[3 * K + 3], v[K], qq[3 * K + 2], Rr[2 * K + 1], T[K];
    u32 nl = (u32)((ff_bits(a, K) + 2 * F + 2 * c) / 64) + 1;
    ff_shift(Us, nl, a, K, 2 * (i64)F + 2 * c);
    ff_div(Rr, 2 * K, Us, nl, b, K, u, v, qq);
    ffx_isqrt<K>(T, Rr);
    R[K] = 0;
    if (c > 0) {
        u64 A[K], Cc[K], TT[2 * K];
        u32 N = ffx_series<K>(FX_ATAN, A, Cc, T, c, false, cs);
        ff_mulsh<K>(R, T, A, F, TT);
        S = (i64)F + c - 1;
        E = 5 * (u64)N + 9;
        return;
    }
    ffx_atan_val<K>(T, du, cs, R, E);
    S = (i64)F - 1;
}

// asin: ex <= -spare the series; else pi/2 - acos |x| (pi/2 < 2 units; the
// result is above |x|). acos: x >= 0 acos |x|; x < 0 pi - acos |x| (pi <
// 4 units). Specials and +-1 as inverse.rs.
template <int K>
FL_NOINL int ffx_asincos(FlOut &o, i8 &t, u32 cls, bool neg, i64 ex, const u64 *xm, u32 nx,
                         u64 p, u32 rnd, const u64 *cs, bool acos) {
    const u32 F = 64 * K - 4;
    if (cls == FL_NAN || cls == FL_INF) {
        fl_special(o, FL_NAN, false);
        return 0;
    }
    if (cls == FL_ZERO) {
        if (acos) return ff_round_c<K>(o, t, ff_pi2(cs, K), K, 2, -(i64)F, false, p, rnd) ? 0 : 1;
        fl_special(o, FL_ZERO, neg);
        return 0;
    }
    int c1 = ffx_cmp_one(ex, xm, nx);
    if (c1 > 0) {
        fl_special(o, FL_NAN, false);
        return 0;
    }
    if (c1 == 0) {
        if (!acos) return ff_round_c<K>(o, t, ff_pi2(cs, K), K, 2, -(i64)F, neg, p, rnd) ? 0 : 1;
        if (!neg) {
            fl_special(o, FL_ZERO, false);
            return 0;
        }
        return ff_round_c<K>(o, t, ff_pi2(cs, K), K, 4, 1 - (i64)F, false, p, rnd) ? 0 : 1;
    }
    if (nx + 2 > K) return 1;
    if (!acos) {
        u64 L = p + 3 > 64ull * nx ? p + 3 : 64ull * nx;
        if (2 * ex <= -(i64)L) return ff_beside<K>(o, t, ex, neg, xm, nx, L, p, rnd, true) ? 0 : 1;
        if (ex <= -ffx_spare<K>(p, nx))
            return ffx_odd_small<K>(o, t, FX_ASIN, neg, ex, xm, nx, p, rnd, cs);
    }
    u64 R[K + 1], B[K + 1], tmp[K + 1];
    i64 S;
    u64 E;
    ffx_acos_abs<K>(ex, xm, nx, cs, acos && !neg, R, S, E);
    if (acos && !neg) return ff_round_c<K>(o, t, R, K + 1, E, -S, false, p, rnd) ? 0 : 1;
    // R 2^-(F-1) = acos|x|: in units 2^-F, B = pi/2 (asin) or pi (acos).
    u64 Ra[K + 1];
    ff_shift(Ra, K + 1, R, K + 1, 1);
    ff_zero(B, K + 1);
    ff_copy(B, ff_pi2(cs, K), K);
    if (acos) {
        ff_shift(tmp, K + 1, B, K + 1, 1);
        ff_copy(B, tmp, K + 1);
    }
    bool bn = false;
    ff_sadd(B, bn, Ra, true, K + 1, tmp);
    if (bn) return 1;
    return ff_round_c<K>(o, t, B, K + 1, 2 * E + 4, -(i64)F, acos ? false : neg, p, rnd) ? 0
                                                                                       : 1;
}

// ---- cbrt ----

// r (K limbs) = floor(a b / 2^F) from the top l limbs of a and b only (the
// lower limbs of r are zero): a product at the precision of a Newton step.
template <int K>
FL_NOINL void ffx_mul_top(u64 *r, const u64 *a, const u64 *b, u32 l) {
    u64 P[2 * K];
    fl_mul_exact(P, a + K - l, l, b + K - l, l);
    ff_shift(r, K, P, 2 * l, 128 * (i64)(K - l) - (i64)(64 * K - 4));
}

// x = +-w 2^3q, w = 0.m 2^r in [1/2, 4) (r = ex mod 3). y ~ w^(-1/3) by
// Newton (y += y (1 - w y^3) / 3, from a double, doubling the correct bits
// each step, each step on just enough top limbs) in units 2^-F, C = w y^2 ~
// cbrt w. No error analysis: the enclosure is proved by exact integers:
// with E = 2^8, |w 2^3F - C^3| < 2 E C^2 gives (C - E)^3 < w 2^3F < (C +
// E)^3, since (C + E)^3 - C^3 >= 3 C^2 E and C^3 - (C - E)^3 >= 3 C E (C -
// E) >= 2 E C^2 (C >= 3E); else the host. Exact cubes never
// pass the rounding test (the host writes them).
template <int K>
FL_NOINL int ffx_cbrt(FlOut &o, i8 &t, u32 cls, bool neg, i64 ex, const u64 *xm, u32 nx, u64 p,
                      u32 rnd, const u64 *cs) {
    if (cls != FL_NORMAL) {
        fl_special(o, cls, cls == FL_NAN ? false : neg);
        return 0;
    }
    if (nx + 2 > K) return 1;
    const u32 F = 64 * K - 4;
    i64 r = ((ex % 3) + 3) % 3, q = (ex - r) / 3;
    u64 W[K], Y[K], A[K], B[K], T[2 * K];
    ff_shift(W, K, xm, nx, (i64)F + r - 64 * (i64)nx);
    double wd = (double)xm[nx - 1] * ldexp(1.0, (int)r - 64);
    double y0 = 1.0 / cbrt(wd);
    u64 yi[1] = {(u64)(y0 * 4611686018427387904.0)};  // y0 2^62
    ff_shift(Y, K, yi, 1, (i64)F - 62);
    // Targets backwards from F + 8 bits (each step doubles, less 4 bits),
    // so the step before the last needs only about half the limbs.
    u32 tg[16], ns = 0;
    for (u32 b = F + 8; b > 48 && ns < 16; b = (b + 5) / 2) tg[ns++] = b;
    for (u32 i = ns; i-- > 0;) {
        u32 l = tg[i] / 64 + 2;
        if (l > K) l = K;
        ffx_mul_top<K>(A, Y, Y, l);
        ffx_mul_top<K>(B, A, Y, l);
        ffx_mul_top<K>(A, B, W, l);  // w y^3 ~ 1
        ff_zero(B, K);
        B[K - 1] = 1ull << 60;
        bool dn = ff_cmp(A, B, K) > 0;
        if (dn) ff_sub(A, B, K);
        else {
            ff_sub(B, A, K);
            ff_copy(A, B, K);
        }
        ffx_mul_top<K>(B, A, Y, l);
        ff_divs(B, K, 3, ff_invtab(cs, K));
        if (dn) ff_sub(Y, B, K);
        else ff_add(Y, B, K);
    }
    u64 C[K];
    ff_mulsh<K>(A, Y, Y, F, T);
    ff_mulsh<K>(C, A, W, F, T);
    // Verify |W 2^3F - C^3| < 2E C^2 (above) from S = floor(C^2 / 2^F) and
    // P = S C (2K limbs; 0 <= C^3 - P 2^F < C 2^F, W exact): it suffices
    // that |W 2^F - P| + C < 2E S, as C^2 / 2^F >= S.
    u64 Sq[K], P[2 * K], Wb[2 * K], Cb[2 * K];
    ff_mulsh<K>(Sq, C, C, F, T);
    ff_mul_full<K>(P, Sq, C);
    ff_shift(Wb, 2 * K, W, K, F);
    if (ff_cmp(Wb, P, 2 * K) >= 0) {
        ff_sub(Wb, P, 2 * K);
    } else {
        ff_sub(P, Wb, 2 * K);
        ff_copy(Wb, P, 2 * K);
    }
    ff_zero(Cb, 2 * K);
    ff_copy(Cb, C, K);
    ff_add(Wb, Cb, 2 * K);
    ff_shift(P, 2 * K, Sq, K, 9);  // 2E S, E = 2^8
    if (ff_cmp(Wb, P, 2 * K) >= 0) return 1;
    return ff_round_c<K>(o, t, C, K, 256, q - (i64)F, neg, p, rnd) ? 0 : 1;
}
