// Correctly rounded tan, sin_cos, atan2, hypot, pow and agm on float arrays
// (issue 5), included by float_func.cu just before ff_eval: the same method
// (a centre C and a proven bound E with the exact value strictly inside
// (C - E, C + E) 2^s, then ff_round), the same tiers, constants and limb
// helpers. Cases left to the host (special operands of pow and agm, huge
// arguments, exact results the interval cannot decide) return 1: the element
// is flagged and the CPU engine evaluates it (src/float/func/cuda_func2.rs).
// Function codes from 32 (funcexp's float_func_explog.cuh has 6..31).

#define FF_TAN 32u
#define FF_SINCOS 33u
#define FF_ATAN2 34u
#define FF_HYPOT 35u
#define FF_POW 36u
#define FF_AGM 37u

// (The integer square root ff_isqrt_2k is float_func_explog.cuh's.)

// fl_round_to (an exact value: mantissa, exponent, sticky) out of line: it
// is called from several places here (NVRTC time).
FL_NOINL i8 ff_round_to(FlOut &o, bool neg, i64 e, const u64 *src, u32 s, bool sticky, u64 p,
                        u32 rnd) {
    return fl_round_to(o, neg, e, src, s, sticky, p, rnd);
}

// t (2l limbs) = a^2 (a: l limbs): the cross products once (rows, as
// mpn_addmul_1), doubled, plus the squares of the limbs.
FL_NOINL void ff_sqr_var(u64 *t, const u64 *a, u32 l) {
    for (u32 i = 0; i < 2 * l; i++) t[i] = 0;
    for (u32 i = 0; i + 1 < l; i++) {
        u64 ai = a[i], c = 0;
        for (u32 j = i + 1; j < l; j++) {
            u64 lo = ai * a[j], hi = fl_mulhi(ai, a[j]);
            lo += c;
            hi += lo < c;
            u64 s = t[i + j] + lo;
            hi += s < lo;
            t[i + j] = s;
            c = hi;
        }
        t[i + l] = c;
    }
    for (u32 i = 2 * l; i-- > 1;) t[i] = (t[i] << 1) | (t[i - 1] >> 63);
    t[0] <<= 1;
    u64 c = 0;
    for (u32 i = 0; i < l; i++) {
        u64 lo = a[i] * a[i], hi = fl_mulhi(a[i], a[i]);
        u64 s = t[2 * i] + lo;
        u64 c1 = s < lo;
        u64 s2 = s + c;
        c1 |= s2 < s;
        t[2 * i] = s2;
        u64 h = t[2 * i + 1] + hi;
        u64 c2 = h < hi;
        u64 h2 = h + c1;
        c2 |= h2 < h;
        t[2 * i + 1] = h2;
        c = c2;
    }
}

// t (2K limbs) = a^2 (a: K limbs): the register product up to 12 limbs,
// else the square over a's significant limbs.
template <int K>
FL_DEV void ff_sqr_full(u64 *t, const u64 *a) {
    if (K <= 12) {
        ff_mul_full<K>(t, a, a);
        return;
    }
    u32 la = K;
    while (la > 0 && a[la - 1] == 0) la--;
    ff_zero(t, 2 * K);
    if (la) ff_sqr_var(t, a, la);
}

// ---- sin and cos of one reduction (tan, sin_cos) ----

// Both sin |r| and cos r from |r| = Z 2^-(F+c): ff_trig's evaluation (one
// series for cos d and sin(d)/d, the tables of sin and cos at j 2^-10), both
// combinations kept. S = sin |r| in units 2^-(F+sc) with error < es, C =
// cos r in units 2^-F with error < ec (ff_trig's bounds: j = 0, S scaled:
// 4N + 12, C: 4N + 8; j > 0: both absolute, 4N + 20).
template <int K>
FL_NOINL void ff_sc_both(u64 *S, i64 &sc, u64 &es, u64 *C, u64 &ec, const u64 *Z, i64 c,
                         const u64 *cs) {
    const u32 F = 64 * K - 4;
    u64 D[K], T[2 * K];
    bool dneg;
    i64 cc;
    u32 j = ff_tr_split<K>(D, dneg, cc, Z, c);
    u64 z2[K], ac[K], as[K], term[K], tmp[K];
    ff_mulsh<K>(z2, D, D, (i64)F + 2 * cc, T);
    ff_zero(ac, K);
    ac[K - 1] = 1ull << 60;
    ff_copy(as, ac, K);
    ff_copy(term, ac, K);
    u32 N = 0;
    for (u32 i = 1;; i++) {
        ff_mulsh_v<K>(tmp, term, z2, F, T);
        ff_divs(tmp, K, (u64)(2 * i - 1) * (2 * i), ff_invtab(cs, K));
        if (ff_is0(tmp, K)) break;
        ff_copy(term, tmp, K);
        if (i & 1) ff_sub(ac, term, K);
        else ff_add(ac, term, K);
        ff_divs(tmp, K, 2 * i + 1, ff_invtab(cs, K));
        if (i & 1) ff_sub(as, tmp, K);
        else ff_add(as, tmp, K);
        N++;
    }
    u64 sd[K];
    ff_mulsh<K>(sd, D, as, F, T);
    if (j == 0) {
        ff_copy(S, sd, K);
        sc = cc;
        es = 4 * (u64)N + 12;
        ff_copy(C, ac, K);
        ec = 4 * (u64)N + 8;
        return;
    }
    const u64 *sv = ff_stab(cs, K, j), *cv = ff_ctab(cs, K, j);
    u64 p2[K];
    // sin(c + d) = sin c cos d + cos c sin d; cos(c + d) = cos c cos d -
    // sin c sin d (d = -|d| when dneg).
    ff_mulsh<K>(S, sv, ac, F, T);
    ff_mulsh<K>(p2, cv, sd, F, T);
    if (dneg) ff_sub(S, p2, K);
    else ff_add(S, p2, K);
    ff_mulsh<K>(C, cv, ac, F, T);
    ff_mulsh<K>(p2, sv, sd, F, T);
    if (dneg) ff_add(C, p2, K);
    else ff_sub(C, p2, K);
    sc = 0;
    es = ec = 4 * (u64)N + 20;
}

// Q = floor(Nv 2^G / Dv) with G = F + 1 + bits(Dv) - bits(Nv) (F + 1 or F +
// 2 bits): for n = (Nv +- en) 2^-(F+cn) and d = (Dv +- ed) 2^-(F+cd),
// n / d is strictly inside (Q - E, Q + E) 2^s, s = cd - cn - G. With Dv >=
// 2^(bD-1) and ed <= 2^(bD-2), Dv - ed >= 2^(bD-2) and
// |(Nv+dn)/(Dv+dd) - Nv/Dv| <= (en + (Nv/Dv) ed) / (Dv - ed), so in units
// 2^-G: < 1 (floor) + en 2^(G-bD+2) + (Q+1) ed 2^(2-bD), and Q + 1 <=
// 2^(bits(Q)+1). Returns false (host) when the values are far from F bits.
template <int K>
FL_NOINL bool ff_quot(u64 *Q, u64 &E, i64 &s, const u64 *Nv, i64 cn, u64 en, const u64 *Dv,
                      i64 cd, u64 ed) {
    const u32 F = 64 * K - 4;
    u32 bN = ff_bits(Nv, K), bD = ff_bits(Dv, K);
    if (bN + 40 < F || bD + 40 < F || bN > F + 2) return false;
    i64 G = (i64)F + 1 + bD - bN;
    u64 U[2 * K], u[2 * K + 2], v[K], qq[2 * K + 1];
    ff_shift(U, 2 * K, Nv, K, G);
    ff_div(Q, K, U, 2 * K, Dv, K, u, v, qq);
    u32 bQ = ff_bits(Q, K) + 1;
    i64 s1 = G - (i64)bD + 2, s2 = (i64)bQ - (i64)bD + 2;
    if (s1 < 0 || s2 < 0 || s1 > 48 || s2 > 48) return false;
    E = 2 + (en << s1) + (ed << s2);
    s = cd - cn - G;
    return true;
}

// tan: NaN for NaN and Inf, a signed zero for zero; tiny x: (x, x + one
// unit of L bits) as core.rs (tan x - x < |x|^3 / 2 < that unit when 2 ex
// <= -L); else tan x = tan r = sin r / cos r (q even) or -cos r / sin r (q
// odd), the quotient of the two intervals by ff_quot.
template <int K>
FL_NOINL int ff_tan(FlOut &o, i8 &t, u32 cls, bool neg, i64 ex, const u64 *xm, u32 nx, u64 p,
                    u32 rnd, const u64 *cs) {
    if (ff_nan_zero(o, cls, neg, true)) return 0;
    if (nx + 2 > K || ex > 40) return 1;
    {
        u64 L = p + 3 > 64ull * nx ? p + 3 : 64ull * nx;
        if (2 * ex <= -(i64)L) return ff_beside<K>(o, t, ex, neg, xm, nx, L, p, rnd, true) ? 0 : 1;
    }
    u64 Z[K], S[K], C[K], Q[K];
    i64 c, sc, s;
    bool rneg;
    u32 q;
    if (ff_tr_reduce<K>(Z, c, rneg, q, neg, ex, xm, nx, cs)) return 1;
    u64 es, ec, E;
    ff_sc_both<K>(S, sc, es, C, ec, Z, c, cs);
    bool ok = (q & 1) ? ff_quot<K>(Q, E, s, C, 0, ec, S, sc, es)
                      : ff_quot<K>(Q, E, s, S, sc, es, C, 0, ec);
    if (!ok) return 1;
    bool on = (q & 1) ? !rneg : rneg;
    return ff_round_c<K>(o, t, Q, K, E, s, on, p, rnd) ? 0 : 1;
}

// sin and cos of one element (two outputs): each fast path as ff_sincos
// (sin: tiny_odd; cos: near one), else one reduction and ff_sc_both, each
// output from its quadrant as ff_sincos. 1 (host) if either is undecided.
template <int K>
FL_NOINL int ff_sin_cos(FlOut &o, i8 &t, FlOut &o2, i8 &t2, u32 cls, bool neg, i64 ex,
                        const u64 *xm, u32 nx, u64 p, u32 rnd, const u64 *cs) {
    if (cls == FL_NAN || cls == FL_INF) {
        fl_special(o, FL_NAN, false);
        fl_special(o2, FL_NAN, false);
        return 0;
    }
    if (cls == FL_ZERO) {
        fl_special(o, FL_ZERO, neg);
        t2 = ff_write_pow2(o2, false, 1, p, rnd);
        return 0;
    }
    if (nx + 2 > K || ex > 40) return 1;
    bool sdone = false, cdone = false;
    {
        int r = ff_tiny_odd<K>(o, t, ex, neg, xm, nx, p, rnd);
        if (r == 2) return 1;
        sdone = r == 1;
    }
    if (2 * ex <= 1 - (i64)(p + 2)) {
        if (!ff_near_one<K>(o2, t2, false, false, p, rnd)) return 1;
        cdone = true;
    }
    if (sdone && cdone) return 0;
    u64 Z[K], S[K], C[K];
    i64 c, sc;
    bool rneg;
    u32 q;
    if (ff_tr_reduce<K>(Z, c, rneg, q, neg, ex, xm, nx, cs)) return 1;
    u64 es, ec;
    ff_sc_both<K>(S, sc, es, C, ec, Z, c, cs);
    if (!sdone) {
        bool use_cos = q & 1, no = q >= 2;
        bool ok = use_cos ? ff_round_c<K>(o, t, C, K, ec, -(i64)(64 * K - 4), no, p, rnd)
                          : ff_round_c<K>(o, t, S, K, es, -((i64)(64 * K - 4) + sc), no != rneg,
                                          p, rnd);
        if (!ok) return 1;
    }
    if (!cdone) {
        bool use_cos = !(q & 1), no = q == 1 || q == 2;
        bool ok = use_cos ? ff_round_c<K>(o2, t2, C, K, ec, -(i64)(64 * K - 4), no, p, rnd)
                          : ff_round_c<K>(o2, t2, S, K, es, -((i64)(64 * K - 4) + sc),
                                          no != rneg, p, rnd);
        if (!ok) return 1;
    }
    return 0;
}

// ---- atan2 ----

// float_func.cu's ff_atan_sum (the name float_cfunc.cu uses).
template <int K>
FL_DEV u32 ff_tr_atan_sum(u64 *a, const u64 *z2, u64 *T, const u64 *cs) {
    return ff_atan_sum<K>(a, z2, T, cs);
}

// atan y for 0 <= y <= 1 known as Y (K limbs, units 2^-F, |Y - y 2^F| <
// dY): acc (K+1 limbs) = atan y 2^F (ffx_atan_core); returns the bound:
// |dz/dy| = (1 + c^2) / (1 + y c)^2 <= 2, so |Z - z(y) 2^F| < 1 + 2 dY;
// the series on the exact Z (ff_atan's scaled bound, 3N + 8) and atan's
// slope <= 1; atan c < 2: E = 3N + 11 + 2 dY.
template <int K>
FL_DEV u64 ff_atan_abs(u64 *acc, const u64 *Y, u64 dY, const u64 *cs) {
    u32 N = ffx_atan_core<K>(acc, Y, cs);
    return 3 * (u64)N + 11 + 2 * dY;
}

// m pi/4 with a sign (m = 1..4): m (pi/2 at F bits, < 2 units) in units
// 2^-(F+1): error < 2m.
template <int K>
FL_DEV bool ff_pi_quarter(FlOut &o, i8 &t, u32 m, bool neg, u64 p, u32 rnd, const u64 *cs) {
    const u32 F = 64 * K - 4;
    u64 C[K + 1];
    ff_mul1(C, K + 1, ff_pi2(cs, K), K, m);
    return ff_round_c<K>(o, t, C, K + 1, 2 * m + 1, -((i64)F + 1), neg, p, rnd);
}

// acc (K+1 limbs, units 2^-F) = pi - acc (m = 1), pi/2 + acc (m = 2) or
// pi/2 - acc (m = 3), pi/2 from ff_pi2 (< 2 units off); returns the bound's
// growth: 4 for pi, 2 for pi/2.
template <int K>
FL_DEV u64 ff_pi_fold(u64 *acc, u32 m, const u64 *cs) {
    u64 B[K + 1];
    ff_zero(B, K + 1);
    ff_copy(B, ff_pi2(cs, K), K);
    if (m == 1) ff_add(B, B, K + 1);
    if (m == 2) ff_add(B, acc, K + 1);
    else ff_sub(B, acc, K + 1);
    ff_copy(acc, B, K + 1);
    return m == 1 ? 4 : 2;
}

// |atan2| from W = floor(w 2^(F+cw)) (< 1 unit), w = min / max of |y|,
// |x| (swap: |y| > |x|), into acc (K+1 limbs, units 2^-F) within the
// returned bound: a = atan w, then a, pi - a (x < 0), pi/2 - a (swap) or
// pi/2 + a (both). cw > 10 (w < 2^-10): the scaled series on W (ff_atan's
// 3N + 8 for an exact argument, + 1 for W's), shifted (+ 1); with fine_ok
// and a alone the result, kept scaled instead: acc = V (K limbs, acc[K] =
// 0) in units 2^-(F+cw), fine = cw (else 0). Otherwise Y = W >> cw (< 2
// units) and ff_atan_abs.
template <int K>
FL_DEV u64 ff_atan2_tail(u64 *acc, i64 &fine, const u64 *W, i64 cw, bool swap, bool xneg,
                         bool fine_ok, const u64 *cs) {
    const u32 F = 64 * K - 4;
    u64 eA;
    fine = 0;
    if (cw > FF_TM) {
        u64 z2[K], A[K], V[K], T[2 * K];
        ff_mulsh<K>(z2, W, W, (i64)F + 2 * cw, T);
        u32 N = ff_tr_atan_sum<K>(A, z2, T, cs);
        ff_mulsh<K>(V, W, A, F, T);
        if (fine_ok && !swap && !xneg) {
            ff_copy(acc, V, K);
            acc[K] = 0;
            fine = cw;
            return 3 * (u64)N + 10;
        }
        ff_shift(acc, K + 1, V, K, -cw);
        eA = 3 * (u64)N + 11;
    } else {
        u64 Y[K];
        ff_shift(Y, K, W, K, -cw);
        eA = ff_atan_abs<K>(acc, Y, 2, cs);
    }
    if (!swap && !xneg) return eA;
    return eA + ff_pi_fold<K>(acc, !swap ? 1 : xneg ? 2 : 3, cs);
}

// |atan2(y, x)| for normal x, y (limbs + 2 <= K) as ff_atan2_tail (acc,
// fine, the bound): w = min(|x|,|y|) / max(|x|,|y|) <= 1 from one
// division, cw = the exponent difference.
template <int K>
FL_DEV u64 ff_atan2_val(u64 *acc, i64 &fine, u64 yh, const u64 *ym, u32 ny, u64 xh,
                        const u64 *xm, u32 nx, bool fine_ok, const u64 *cs) {
    const u32 F = 64 * K - 4;
    i64 ey = fl_exp(yh), ex = fl_exp(xh);
    bool swap = ey > ex || (ey == ex && fl_cmp_mant(ym, ny, xm, nx) > 0);
    const u64 *mn = swap ? xm : ym, *md = swap ? ym : xm;
    u32 ln = swap ? nx : ny, ld = swap ? ny : nx;
    u64 W[K];
    {
        u64 U[2 * K], u[2 * K + 2], v[K], qq[2 * K + 1];
        u32 nl = K + ld;
        ff_shift(U, nl, mn, ln, (i64)F - 64 * (i64)ln + 64 * (i64)ld);
        ff_div(W, K, U, nl, md, ld, u, v, qq);
    }
    bool xneg = (fl_tag(xh) & FL_NEG) != 0;
    return ff_atan2_tail<K>(acc, fine, W, swap ? ey - ex : ex - ey, swap, xneg, fine_ok, cs);
}

// atan2(y, x) (y first, as mpfr_atan2): MPFR's special values (binary.rs);
// else ff_atan2_val, rounded with y's sign (scaled when it is fine).
template <int K>
FL_NOINL int ff_atan2(FlOut &o, i8 &t, u64 yh, const u64 *ym, u32 ny, u64 xh, const u64 *xm,
                      u32 nx, u64 p, u32 rnd, const u64 *cs) {
    const u32 F = 64 * K - 4;
    u32 cy = fl_tag(yh) & 3, cx = fl_tag(xh) & 3;
    bool ny_ = (fl_tag(yh) & FL_NEG) != 0, nx_ = (fl_tag(xh) & FL_NEG) != 0;
    if (cy == FL_NAN || cx == FL_NAN) {
        fl_special(o, FL_NAN, false);
        return 0;
    }
    if (cy == FL_ZERO || (cx == FL_INF && cy != FL_INF)) {
        if (nx_) return ff_pi_quarter<K>(o, t, 4, ny_, p, rnd, cs) ? 0 : 1;
        fl_special(o, FL_ZERO, ny_);
        return 0;
    }
    if (cy == FL_INF && cx == FL_INF)
        return ff_pi_quarter<K>(o, t, nx_ ? 3 : 1, ny_, p, rnd, cs) ? 0 : 1;
    if (cy == FL_INF || cx == FL_ZERO) return ff_pi_quarter<K>(o, t, 2, ny_, p, rnd, cs) ? 0 : 1;
    if (nx + 2 > K || ny + 2 > K) return 1;
    u64 acc[K + 1];
    i64 fine;
    u64 eA = ff_atan2_val<K>(acc, fine, yh, ym, ny, xh, xm, nx, true, cs);
    u32 l = fine ? K : K + 1;
    return ff_round_c<K>(o, t, acc, l, eA, -((i64)F + fine), ny_, p, rnd) ? 0 : 1;
}

// ---- hypot ----

// hypot(x, y): +Inf if either is infinite, NaN, +0, |other| rounded when
// one is zero (binary.rs). a = the operand of the larger exponent: with
// L = max(p + 3, bits of a) and 2 (ea - eb) >= L + 2, (|a|, |a| + one unit
// of L bits) as the CPU. Else A = |a| 2^(F-ea) exact, B = floor(|b|
// 2^(F-ea)) (exact when b's bits fit), R = floor(sqrt(A^2 + B^2)) exactly
// (ff_isqrt_2k): B exact gives R itself (exact root) or (R, R + 1);
// otherwise A^2 + B^2 is below the true sum by < 2B + 1 <= 2^(F+1) + 1 and
// sqrt >= 2^(F-1), so the root moves by < 2.01: (R - 1, R + 4). Units
// 2^(ea-F).
template <int K>
FL_NOINL int ff_hypot(FlOut &o, i8 &t, u64 xh, const u64 *xm, u32 nx, u64 yh, const u64 *ym,
                      u32 ny, u64 p, u32 rnd) {
    const u32 F = 64 * K - 4;
    u32 cx = fl_tag(xh) & 3, cy = fl_tag(yh) & 3;
    if (cx == FL_INF || cy == FL_INF) {
        fl_special(o, FL_INF, false);
        return 0;
    }
    if (cx == FL_NAN || cy == FL_NAN) {
        fl_special(o, FL_NAN, false);
        return 0;
    }
    if (cx == FL_ZERO && cy == FL_ZERO) {
        fl_special(o, FL_ZERO, false);
        return 0;
    }
    if (cx == FL_ZERO) {
        t = ff_round_to(o, false, fl_exp(yh), ym, ny, false, p, rnd);
        return 0;
    }
    if (cy == FL_ZERO) {
        t = ff_round_to(o, false, fl_exp(xh), xm, nx, false, p, rnd);
        return 0;
    }
    if (nx + 2 > K || ny + 2 > K) return 1;
    i64 ex = fl_exp(xh), ey = fl_exp(yh);
    bool xa = ex >= ey;
    const u64 *am = xa ? xm : ym, *bm = xa ? ym : xm;
    u32 na = xa ? nx : ny, nb = xa ? ny : nx;
    i64 ea = xa ? ex : ey, d = xa ? ex - ey : ey - ex;
    u64 L = p + 3 > 64ull * na ? p + 3 : 64ull * na;
    if (2 * d >= (i64)L + 2) return ff_beside<K>(o, t, ea, false, am, na, L, p, rnd, true) ? 0 : 1;
    u64 A[K], B[K], N[2 * K], N2[2 * K], R[K + 1];
    ff_shift(A, K, am, na, (i64)F - 64 * (i64)na);
    i64 sb = (i64)F - d - 64 * (i64)nb;
    bool bexact = sb >= 0;
    ff_shift(B, K, bm, nb, sb);
    ff_sqr_full<K>(N, A);
    ff_sqr_full<K>(N2, B);
    ff_add(N, N2, 2 * K);
    bool sq = ff_isqrt_2k<K>(R, N);
    R[K] = 0;
    if (bexact && sq) {
        u32 bR = ff_bits(R, K);
        u64 RL[K];
        ff_shift(RL, K, R, K, 64 * (i64)K - bR);
        t = ff_round_to(o, false, ea - (i64)F + bR, RL, K, false, p, rnd);
        return 0;
    }
    u64 lo[K + 1], hi[K + 1];
    ff_copy(lo, R, K + 1);
    ff_copy(hi, R, K + 1);
    if (bexact) {
        ff_add1(hi, K + 1, 1);
    } else {
        ff_sub1(lo, K + 1, 1);
        ff_add1(hi, K + 1, 4);
    }
    return ff_round<K>(o, t, lo, hi, K + 1, ea - (i64)F, false, p, rnd) ? 0 : 1;
}

// ---- agm ----

// agm(x, y): NaN with a NaN; other special operands to the host; NaN for a
// negative operand; agm(x, x) = x. Else, scaled by 2^-ea (ea the larger
// exponent), fixed point at F bits with every step rounded down: a' =
// floor((a + b) / 2), b' = floor(sqrt(a b)) (exact product, ff_isqrt_2k);
// the first b' from b's exact mantissa (a b 2^(2F + 2h), h >= 0, then >> h).
// Each computed pair is at most the exact map of the previous one and at
// least (1 - delta) times it, delta < 2^(1 - bits) of the value (floor of
// at most one unit; the first a' also loses b's truncation, < 1 unit), and
// agm is increasing in both operands and homogeneous, so agm(x, y) 2^-ea
// lies in [agm(a_n, b_n), agm(a_n, b_n) / prod (1 - delta_i)], with u =
// sum 2^(F + 1 - bits_i) >= 2^F sum delta_i; once (a_n - b_n)^2 / (8
// min) < 2^8 units, agm(a_n, b_n) is within that of (a_n + b_n) / 2 (below
// it: AM-GM), which saves the last step: the interval ((a_n + b_n) / 2 -
// 2^8 - 1, (a_n + b_n) / 2 + 1.02 u + 2) in units 2^(ea - F).
template <int K>
FL_NOINL int ff_agm(FlOut &o, i8 &t, u64 xh, const u64 *xm, u32 nx, u64 yh, const u64 *ym,
                    u32 ny, u64 p, u32 rnd) {
    const u32 F = 64 * K - 4;
    u32 cx = fl_tag(xh) & 3, cy = fl_tag(yh) & 3;
    if (cx == FL_NAN || cy == FL_NAN) {
        fl_special(o, FL_NAN, false);
        return 0;
    }
    if (cx != FL_NORMAL || cy != FL_NORMAL) return 1;
    if ((fl_tag(xh) & FL_NEG) || (fl_tag(yh) & FL_NEG)) {
        fl_special(o, FL_NAN, false);
        return 0;
    }
    if (nx + 2 > K || ny + 2 > K) return 1;
    i64 ex = fl_exp(xh), ey = fl_exp(yh);
    int cm = ex != ey ? (ex > ey ? 1 : -1) : fl_cmp_mant(xm, nx, ym, ny);
    if (cm == 0) {
        t = ff_round_to(o, false, ex, xm, nx, false, p, rnd);
        return 0;
    }
    bool xa = cm > 0;
    const u64 *am = xa ? xm : ym, *bm = xa ? ym : xm;
    u32 na = xa ? nx : ny, nb = xa ? ny : nx;
    i64 ea = xa ? ex : ey, g = xa ? ex - ey : ey - ex;
    if (g > 2 * (i64)F) return 1;
    u64 A[K], B[K], NN[2 * K], R[K], tmp[K + 1];
    ff_shift(A, K, am, na, (i64)F - 64 * (i64)na);
    // b' = floor(sqrt(A Bh) / 2^h), Bh = |b| 2^(F + 2h - ea) exact.
    i64 h = g + 64 * (i64)nb - (i64)F;
    h = h > 0 ? (h + 1) / 2 : 0;
    ff_shift(B, K, bm, nb, (i64)F + 2 * h - g - 64 * (i64)nb);
    ff_mul_full<K>(NN, A, B);
    ff_isqrt_2k<K>(R, NN);
    // a' = floor((A + floor(b 2^F)) / 2).
    ff_shift(B, K, bm, nb, (i64)F - g - 64 * (i64)nb);
    ff_copy(tmp, A, K);
    tmp[K] = ff_add(tmp, B, K);
    ff_shift(A, K, tmp, K + 1, -1);
    ff_shift(B, K, R, K, -h);
    u64 u = 0;
    bool done = false;
    for (u32 it = 0; it < 64; it++) {
        u32 ba = ff_bits(A, K), bb = ff_bits(B, K);
        if (ba + 40 < F || bb + 40 < F) return 1;
        u += (1ull << (F + 1 - ba)) + (1ull << (F + 1 - bb));
        // Done when D^2 / (8 min) < 2^(2 bits(D) - bits(min) - 2) <= 2^8.
        u64 D[K];
        ff_absdiff(D, A, B, K);
        if (2 * ff_bits(D, K) <= (ba < bb ? ba : bb) + 2 + 8) {
            done = true;
            break;
        }
        ff_mul_full<K>(NN, A, B);
        ff_copy(tmp, A, K);
        tmp[K] = ff_add(tmp, B, K);
        ff_shift(A, K, tmp, K + 1, -1);
        ff_isqrt_2k<K>(B, NN);
    }
    if (!done) return 1;
    // agm(A, B) in [sqrt(A B), (A + B) / 2], which differ by (A - B)^2 /
    // (2 (sqrt A + sqrt B)^2) <= D^2 / (8 min) < 2^8 units.
    u64 lo[K + 1], hi[K + 1];
    ff_copy(tmp, A, K);
    tmp[K] = ff_add(tmp, B, K);
    bool odd = tmp[0] & 1;
    ff_shift(lo, K + 1, tmp, K + 1, -1);
    ff_copy(hi, lo, K + 1);
    ff_sub1(lo, K + 1, (1u << 8) + 1);
    ff_add1(hi, K + 1, u + u / 32 + 2 + (odd ? 1 : 0));
    return ff_round<K>(o, t, lo, hi, K + 1, ea - (i64)F, false, p, rnd) ? 0 : 1;
}

// ---- pow ----

// exp(t) for t = (+-) T 2^-F with |T - t 2^F| < eT, |t| < 2^28: ff_exp's
// reduction on T (k from a double, R = |T - k ln2 2^F|, < eT + 2 units) and
// ff_exp_tail's evaluation; R's extra error eT moves exp(r) <= 1.42 by a
// factor within 1 +- 1.0001 eT 2^-F: E = exp_tail's bound + 2 eT.
template <int K>
FL_NOINL int ff_exp_fix(FlOut &o, i8 &t, const u64 *Tm, bool tneg, u64 eT, bool neg, u64 p,
                        u32 rnd, const u64 *cs) {
    const u32 F = 64 * K - 4;
    // t from its top 64 bits.
    u32 bt = ff_bits(Tm, K + 1);
    double td = 0;
    if (bt > 0) {
        u64 top[1];
        ff_shift(top, 1, Tm, K + 1, 64 - (i64)bt);
        td = (double)top[0] * ldexp(1.0, (int)bt - 64 - (int)F);
    }
    i64 k = (i64)llround(td / 0.69314718055994530942);
    u64 X[K + 2], KL[K + 2], R[K];
    ff_zero(X, K + 2);
    ff_shift(X, K + 2, Tm, K + 1, 64);
    ff_mul1(KL, K + 2, ff_ln2(cs), K + 1, (u64)k);
    bool rneg;
    if (ff_cmp(X, KL, K + 2) >= 0) {
        ff_sub(X, KL, K + 2);
        rneg = tneg;
    } else {
        ff_sub(KL, X, K + 2);
        ff_copy(X, KL, K + 2);
        rneg = !tneg;
    }
    ff_shift(R, K, X, K + 2, -64);
    if (tneg) k = -k;
    // ffx_exp_taylor, then the extra error.
    u64 Y[K], E;
    if (!ffx_exp_taylor<K>(R, rneg, cs, Y, E)) return 1;
    E += 2 * eT;
    return ff_round_c<K>(o, t, Y, K, E, k - (i64)F, neg, p, rnd) ? 0 : 1;
}

// pow(x, y) = exp(y log |x|): special operands to the host (pow.rs's
// table); x < 0: NaN unless y is an integer (then the sign of y's parity);
// |x| = 1: +-1 exactly. |y| >= 2^24 or |t| >= 2^28: the host. T = |y| |L|
// shifted down (floor), L = log|x| (ffx_log_val, < eL): eT = eL 2^max(ey,0)
// + 1, then ff_exp_fix. Exact results (x^y a float or a midpoint) leave the
// interval undecided: the host's exact-case code decides them.
template <int K>
FL_NOINL int ff_pow(FlOut &o, i8 &t, u64 xh, const u64 *xm, u32 nx, u64 yh, const u64 *ym,
                    u32 ny, u64 p, u32 rnd, const u64 *cs) {
    const u32 F = 64 * K - 4;
    u32 cx = fl_tag(xh) & 3, cy = fl_tag(yh) & 3;
    if (cx != FL_NORMAL || cy != FL_NORMAL) return 1;
    if (nx + 2 > K || ny + 2 > K) return 1;
    bool xneg = (fl_tag(xh) & FL_NEG) != 0, yneg = (fl_tag(yh) & FL_NEG) != 0;
    i64 ex = fl_exp(xh), ey = fl_exp(yh);
    // y = n 2^v with n odd: v = ey - 64 ny + trailing zeros.
    u32 tz = 0;
    while (tz < 64 * ny && !((ym[tz / 64] >> (tz % 64)) & 1)) tz++;
    i64 v = ey - 64 * (i64)ny + tz;
    bool yint = v >= 0, yodd = v == 0;
    if (xneg && !yint) {
        fl_special(o, FL_NAN, false);
        return 0;
    }
    bool neg = xneg && yodd;
    if (ex == 1 && xm[nx - 1] == (1ull << 63) && !fl_any(xm, nx - 1)) {
        t = ff_write_pow2(o, neg, 1, p, rnd);
        return 0;
    }
    if (ey > 24) return 1;
    // L = log|x| absolute (units 2^-F, < eL; |x| != 1).
    u64 Lg[K + 1], eL;
    bool an;
    i64 SL;
    ffx_log_val<K>(xm, nx, ex, cs, false, Lg, an, SL, eL);
    // T = |y| |L| = My |L| 2^(ey - 64 ny), floored.
    u64 P[2 * K + 2], Tm[K + 1];
    fl_mul_exact(P, ym, ny, Lg, K + 1);
    ff_shift(Tm, K + 1, P, ny + K + 1, ey - 64 * (i64)ny);
    if (ff_bits(Tm, K + 1) > F + 28) return 1;
    u64 eT = (ey > 0 ? eL << ey : eL) + 1;
    return ff_exp_fix<K>(o, t, Tm, an != yneg, eT, neg, p, rnd, cs);
}

// ---- dispatch of the two-argument and two-output functions ----

// One element of float_func2: 0 written (o, t and, for sin_cos, o2, t2), 1
// flagged for the host.
template <int K>
FL_DEV int ff_eval2(u32 fn, FlOut &o, i8 &t, FlOut &o2, i8 &t2, u64 xh, const u64 *xm, u32 nx,
                    u64 yh, const u64 *ym, u32 ny, u64 p, u32 rnd, const u64 *cs) {
    t = 0;
    t2 = 0;
    switch (fn) {
#if FF_HAS(33)
    case FF_SINCOS: {
        u32 tag = fl_tag(xh);
        return ff_sin_cos<K>(o, t, o2, t2, tag & 3, (tag & FL_NEG) != 0, fl_exp(xh), xm, nx, p,
                             rnd, cs);
    }
#endif
#if FF_HAS(34)
    case FF_ATAN2: return ff_atan2<K>(o, t, xh, xm, nx, yh, ym, ny, p, rnd, cs);
#endif
#if FF_HAS(35)
    case FF_HYPOT: return ff_hypot<K>(o, t, xh, xm, nx, yh, ym, ny, p, rnd);
#endif
#if FF_HAS(36)
    case FF_POW: return ff_pow<K>(o, t, xh, xm, nx, yh, ym, ny, p, rnd, cs);
#endif
#if FF_HAS(37)
    case FF_AGM: return ff_agm<K>(o, t, xh, xm, nx, yh, ym, ny, p, rnd);
#endif
    default: return 1;
    }
}

// float_func2's flag kind is ff_kind's of the first output: sin_cos is
// undecided too when only its second output's rounding failed.
FL_DEV void ff_merge2(int st, FlOut &o, const FlOut &o2, bool two) {
    if (st && two && o2.head == FF_UNDECIDED) o.head = FF_UNDECIDED;
}

#if defined(__CUDACC__) && !defined(FF_CORES_ONLY) && (!defined(FF_ONLY) || FF_ONLY >= 33)
// A thread per element of f(x, y) (y unused by sin_cos; rnd: the rounding
// mode, | force << 8 in tests); sin_cos writes its second output (cos) to
// rh2/rl2/tern2. The flag protocol of float_func (ff_store): nflag two
// counters, zero at the launch; undecided elements are retried at larger
// tiers by the host, host cases go to the CPU engine.
extern "C" __global__ void __launch_bounds__(128) float_func2(
    u64 *rh, u64 *rl, i8 *tern, u64 *rh2, u64 *rl2, i8 *tern2, const u64 *xh, const u64 *xl,
    u32 nx, const u64 *yh, const u64 *yl, u32 ny, u64 len, u32 fn, u32 rnd, u64 p, u32 n,
    const u64 *cs, u32 *nflag, u32 *flags) {
    const u32 force = rnd >> 8;
    rnd &= 0xff;
    bool two = fn == FF_SINCOS;
    for (u64 i = blockIdx.x * (u64)blockDim.x + threadIdx.x; i < len;
         i += (u64)gridDim.x * blockDim.x) {
        FlOut o = {rl + i * n, n, 0};
        FlOut o2 = {two ? rl2 + i * n : rl + i * n, n, 0};
        i8 t = 0, t2 = 0;
        int st = ff_eval2<FF_K>(fn, o, t, o2, t2, xh[i], xl + i * nx, nx, yh[i], yl + i * ny, ny,
                                p, rnd, cs);
        ff_merge2(st, o, o2, two);
        ff_store(st, o, t, i, len, force, rh, tern, nflag, flags);
        if (two) {
            if (st) {
                o2.head = 0;
                t2 = 0;
                for (u32 l = 0; l < n; l++) o2.m[l] = 0;
            }
            rh2[i] = o2.head;
            tern2[i] = t2;
        }
    }
}
#endif
