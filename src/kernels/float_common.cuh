// Float arrays with MPFR's semantics: per-element device functions that
// mirror src/float/{round,arith}.rs step for step (the same exact
// intermediate integers, the same one rounding step, the same range check),
// so the bits are the CPU engine's. Plain C++ on 64-bit limbs: it also
// compiles on the host (tests/emu/floatgpu), where it is checked against the
// CPU engine before it ever runs on a device.
#pragma once

#ifdef __CUDACC__
#define FL_DEV __device__ __forceinline__
#define FL_NOINL __device__ __noinline__
FL_DEV u64 fl_mulhi(u64 a, u64 b) { return __umul64hi(a, b); }
FL_DEV u32 fl_clz(u64 x) { return __clzll((long long)x); }
FL_DEV double fl_sqrt(double x) { return sqrt(x); }
#else
#define FL_DEV static inline
#define FL_NOINL static
static inline u64 fl_mulhi(u64 a, u64 b) {
    return (u64)(((unsigned __int128)a * b) >> 64);
}
static inline u32 fl_clz(u64 x) { return x ? (u32)__builtin_clzll(x) : 64; }
static inline double fl_sqrt(double x) { return __builtin_sqrt(x); }
#endif

typedef signed char i8;

#define FL_EMIN (1ll - (1ll << 30))
#define FL_EMAX ((1ll << 30) - 1)
// Tag: class in bits 0-1, sign in bit 2 (never on NaN).
#define FL_ZERO 0u
#define FL_NORMAL 1u
#define FL_INF 2u
#define FL_NAN 3u
#define FL_NEG 4u
// Rounding modes (Round's order): N, Z, U, D, A.
#define FL_RN 0u
#define FL_RZ 1u
#define FL_RU 2u
#define FL_RD 3u
#define FL_RA 4u

// Operation codes (src/float/cuda.rs's DevOp).
#define FL_OP_ADD 0u
#define FL_OP_SUB 1u
#define FL_OP_MUL 2u
#define FL_OP_DIV 3u
#define FL_OP_SQRT 4u
#define FL_OP_FMA 5u
#define FL_OP_FMS 6u
#define FL_OP_NEG 7u
#define FL_OP_ABS 8u
#define FL_OP_SET 9u
#define FL_OP_MUL2SI 10u
#define FL_OP_MIN 11u
#define FL_OP_MAX 12u
#define FL_OP_CMP 13u

// One element: head word (exponent << 8 | tag) and its limbs.
FL_DEV u32 fl_tag(u64 h) { return (u32)(h & 0xff); }
FL_DEV i64 fl_exp(u64 h) { return (i64)h >> 8; }
FL_DEV u64 fl_head(u32 tag, i64 e) { return ((u64)e << 8) | tag; }
FL_DEV u32 fl_mk_tag(u32 cls, bool neg) {
    return cls == FL_NAN ? FL_NAN : (cls | (neg ? FL_NEG : 0u));
}

// Where one element's result goes.
struct FlOut {
    u64 *m;
    u32 n;
    u64 head;
};

FL_DEV void fl_special(FlOut &o, u32 cls, bool neg) {
    o.head = fl_head(fl_mk_tag(cls, neg), 0);
    for (u32 i = 0; i < o.n; i++) o.m[i] = 0;
}

FL_DEV bool fl_like_zero(u32 rnd, bool neg) {
    return rnd == FL_RZ || (rnd == FL_RD && !neg) || (rnd == FL_RU && neg);
}
FL_DEV bool fl_like_away(u32 rnd, bool neg) {
    return rnd == FL_RA || (rnd == FL_RU && !neg) || (rnd == FL_RD && neg);
}
FL_DEV i8 fl_ternary(bool inc, bool neg) { return inc != neg ? 1 : -1; }

FL_DEV bool fl_any(const u64 *a, u32 l) {
    u64 x = 0;
    for (u32 i = 0; i < l; i++) x |= a[i];
    return x != 0;
}

// r = a - b (n limbs; r may be a or b); returns the borrow. N > 0: n = N
// at compile time (the register paths: unrolled, so register arrays stay
// in registers); N = 0: the run-time n (`#pragma unroll` then changes
// nothing).
template <int N = 0>
FL_DEV u64 fl_sub_n(u64 *r, const u64 *a, const u64 *b, u32 n) {
    u64 br = 0;
#pragma unroll
    for (u32 i = 0; i < (N ? (u32)N : n); i++) {
        u64 x = a[i], y = b[i];
        u64 dd = x - y;
        u64 b1 = x < y;
        u64 rr = dd - br;
        u64 b2 = dd < br;
        r[i] = rr;
        br = b1 | b2;
    }
    return br;
}

// r = a + b (n limbs; r may be a or b); returns the carry. N as fl_sub_n.
template <int N = 0>
FL_DEV u64 fl_add_n(u64 *r, const u64 *a, const u64 *b, u32 n) {
    u64 c = 0;
#pragma unroll
    for (u32 i = 0; i < (N ? (u32)N : n); i++) {
        u64 x = a[i];
        u64 sm = x + b[i];
        u64 c1 = sm < x;
        u64 t = sm + c;
        u64 c2 = t < sm;
        r[i] = t;
        c = c1 | c2;
    }
    return c;
}

// round_mant: the top n limbs of src are the kept bits (left-aligned), the
// round bit and sticky below; increment per mode; carry to 2^k.
FL_DEV void fl_round_mant(u64 *m, u32 n, u64 p, const u64 *src, u32 s, bool sticky, bool neg,
                          u32 rnd, bool &inexact, bool &inc, bool &carry) {
    u32 low = (u32)(64ull * n - p);
    // m may be src itself (the expression kernels round in place): the
    // limbs below the kept ones are read first, and the copy runs upwards
    // when src is longer (each read above its write), downwards when it
    // is shorter (each read below its write, the zeros last).
    u32 nb = s > n ? s - n : 0;
    u64 top = nb > 0 ? src[nb - 1] : 0;
    bool under = nb > 1 && fl_any(src, nb - 1);
    if (s >= n) {
        for (u32 i = 0; i < n; i++) m[i] = src[i + s - n];
    } else {
        for (u32 i = n; i-- > 0;) m[i] = (i + s >= n) ? src[i + s - n] : 0;
    }
    bool rb, st;
    if (low > 0) {
        u64 mask = (1ull << low) - 1;
        rb = (m[0] >> (low - 1)) & 1;
        st = (m[0] & (mask >> 1)) != 0 || sticky || top != 0 || under;
        m[0] &= ~mask;
    } else if (nb > 0) {
        rb = top >> 63;
        st = (top << 1) != 0 || sticky || under;
    } else {
        rb = false;
        st = sticky;
    }
    inexact = rb || st;
    switch (rnd) {
    case FL_RN: inc = rb && (st || ((m[0] >> low) & 1)); break;
    case FL_RZ: inc = false; break;
    case FL_RU: inc = inexact && !neg; break;
    case FL_RD: inc = inexact && neg; break;
    default: inc = inexact; break;
    }
    carry = false;
    if (inc) {
        u64 c = 1ull << low;
        u32 i = 0;
        for (; i < n; i++) {
            u64 v = m[i] + c;
            m[i] = v;
            if (v >= c) break;
            c = 1;
        }
        if (i == n) {
            m[n - 1] = 1ull << 63;
            carry = true;
        }
    }
}

FL_DEV void fl_set_max(FlOut &o, bool neg, u64 p) {
    u32 low = (u32)(64ull * o.n - p);
    for (u32 i = 0; i < o.n; i++) o.m[i] = ~0ull;
    o.m[0] &= ~((1ull << low) - 1);
    o.head = fl_head(FL_NORMAL | (neg ? FL_NEG : 0u), FL_EMAX);
}

FL_DEV void fl_set_min(FlOut &o, bool neg) {
    for (u32 i = 0; i < o.n; i++) o.m[i] = 0;
    o.m[o.n - 1] = 1ull << 63;
    o.head = fl_head(FL_NORMAL | (neg ? FL_NEG : 0u), FL_EMIN);
}

// mpfr_check_range on the rounded mantissa in o.m.
FL_DEV i8 fl_finish(FlOut &o, bool neg, i64 e, i8 t, bool inc, u64 p, u32 rnd) {
    if (e > FL_EMAX) {
        if (fl_like_zero(rnd, neg)) {
            fl_set_max(o, neg, p);
            return fl_ternary(false, neg);
        }
        fl_special(o, FL_INF, neg);
        return fl_ternary(true, neg);
    }
    if (e < FL_EMIN) {
        bool to_min;
        if (rnd == FL_RN) {
            bool pow2 = o.m[o.n - 1] == (1ull << 63) && !fl_any(o.m, o.n - 1);
            to_min = !(e < FL_EMIN - 1 || (pow2 && (t == 0 || inc)));
        } else {
            to_min = fl_like_away(rnd, neg);
        }
        if (to_min) {
            fl_set_min(o, neg);
            return fl_ternary(true, neg);
        }
        fl_special(o, FL_ZERO, neg);
        return fl_ternary(false, neg);
    }
    o.head = fl_head(FL_NORMAL | (neg ? FL_NEG : 0u), e);
    return t;
}

FL_DEV i8 fl_round_to(FlOut &o, bool neg, i64 e, const u64 *src, u32 s, bool sticky, u64 p,
                      u32 rnd) {
    bool inexact, inc, carry;
    fl_round_mant(o.m, o.n, p, src, s, sticky, neg, rnd, inexact, inc, carry);
    e += carry ? 1 : 0;
    i8 t = inexact ? fl_ternary(inc, neg) : 0;
    return fl_finish(o, neg, e, t, inc, p, rnd);
}

// A finite nonzero operand.
struct FlNum {
    bool neg;
    i64 e;
    const u64 *m;
    u32 l;
};

// Top-aligned mantissa comparison: -1, 0, 1.
FL_DEV int fl_cmp_mant(const u64 *a, u32 la, const u64 *b, u32 lb) {
    u32 mx = la > lb ? la : lb;
    for (u32 k = 1; k <= mx; k++) {
        u64 x = k <= la ? a[la - k] : 0;
        u64 y = k <= lb ? b[lb - k] : 0;
        if (x != y) return x < y ? -1 : 1;
    }
    return 0;
}

FL_DEV void fl_shl(u64 *r, u32 l, u32 s) {
    if (s == 0) return;
    for (u32 i = l - 1; i >= 1; i--) r[i] = (r[i] << s) | (r[i - 1] >> (64 - s));
    r[0] <<= s;
}

// Normalizes r (nonzero, l limbs): returns the significant length, lz the shift.
FL_DEV u32 fl_normalize(u64 *r, u32 l, u32 &lz) {
    u32 top = l - 1;
    while (r[top] == 0) top--;
    lz = fl_clz(r[top]);
    fl_shl(r, top + 1, lz);
    return top + 1;
}

// yb (w limbs) = floor(Ya / 2^d), Ya the window with ym at limbs base..;
// returns whether nonzero bits were shifted out.
FL_DEV bool fl_shift_into(u64 *yb, u32 w, const u64 *ym, u32 ly, u32 base, u64 d) {
    for (u32 i = 0; i < w; i++) yb[i] = 0;
    if (d >= 64ull * w) return true;
    u32 q = (u32)(d / 64), r = (u32)(d % 64);
    bool st = false;
    for (u32 j = 0; j < ly; j++) {
        u64 v = ym[j];
        u32 t = base + j;
        if (r == 0) {
            if (t >= q) yb[t - q] = v;
            else st |= v != 0;
        } else {
            if (t >= q) {
                yb[t - q] |= v >> r;
            } else {
                st |= v != 0;
                continue;
            }
            if (t > q) yb[t - q - 1] |= v << (64 - r);
            else st |= (v << (64 - r)) != 0;
        }
    }
    return st;
}

// x + y, finite nonzero (add_num): bf holds w+1 limbs, yb w limbs.
FL_DEV i8 fl_add_num(FlOut &o, FlNum x, FlNum y, u64 p, u32 rnd, u64 *bf, u64 *yb) {
    int ord = x.e != y.e ? (x.e < y.e ? -1 : 1) : fl_cmp_mant(x.m, x.l, y.m, y.l);
    if (ord < 0) {
        FlNum t = x;
        x = y;
        y = t;
    }
    bool sub = x.neg != y.neg;
    if (sub && ord == 0) {
        fl_special(o, FL_ZERO, rnd == FL_RD);
        return 0;
    }
    u32 w = (x.l > y.l ? x.l : y.l);
    w = (w > o.n ? w : o.n) + 1;
    u64 d = (u64)(x.e - y.e);
    for (u32 i = 0; i < w - x.l; i++) bf[i] = 0;
    for (u32 i = 0; i < x.l; i++) bf[w - x.l + i] = x.m[i];
    bf[w] = 0;
    bool sticky = fl_shift_into(yb, w, y.m, y.l, w - y.l, d);
    if (sub) {
        fl_sub_n(bf, bf, yb, w);
        if (sticky) {
            for (u32 i = 0; i < w; i++) {
                u64 v = bf[i];
                bf[i] = v - 1;
                if (v != 0) break;
            }
        }
    } else {
        bf[w] = fl_add_n(bf, bf, yb, w);
    }
    u32 lz;
    u32 len = fl_normalize(bf, w + 1, lz);
    i64 e = x.e + 64 * ((i64)len - (i64)w) - (i64)lz;
    return fl_round_to(o, x.neg, e, bf, len, sticky, p, rnd);
}

// r (la+lb limbs) = a * b, schoolbook.
FL_DEV void fl_mul_exact(u64 *r, const u64 *a, u32 la, const u64 *b, u32 lb) {
    for (u32 i = 0; i < la + lb; i++) r[i] = 0;
    for (u32 i = 0; i < la; i++) {
        u64 ai = a[i], c = 0;
        for (u32 j = 0; j < lb; j++) {
            u64 lo = ai * b[j], hi = fl_mulhi(ai, b[j]);
            lo += c;
            hi += lo < c;
            u64 t = r[i + j] + lo;
            hi += t < lo;
            r[i + j] = t;
            c = hi;
        }
        r[i + lb] = c;
    }
}

// The exact product of x and y in r, normalized.
FL_DEV FlNum fl_product(FlNum x, FlNum y, u64 *r) {
    u32 l = x.l + y.l;
    fl_mul_exact(r, x.m, x.l, y.m, y.l);
    i64 lz = 0;
    if ((r[l - 1] >> 63) == 0) {
        fl_shl(r, l, 1);
        lz = 1;
    }
    FlNum z = {(bool)(x.neg ^ y.neg), x.e + y.e - lz, r, l};
    return z;
}

// (u1:u0) / v for u1 < v, v with its top bit set (Hacker's Delight divlu).
FL_DEV u64 fl_div21(u64 u1, u64 u0, u64 v, u64 &rem) {
    const u64 b = 1ull << 32;
    u64 vn1 = v >> 32, vn0 = v & 0xffffffffull;
    u64 un1 = u0 >> 32, un0 = u0 & 0xffffffffull;
    u64 q1 = u1 / vn1, rhat = u1 - q1 * vn1;
    while (q1 >= b || q1 * vn0 > b * rhat + un1) {
        q1--;
        rhat += vn1;
        if (rhat >= b) break;
    }
    u64 un21 = u1 * b + un1 - q1 * v;
    u64 q0 = un21 / vn1;
    rhat = un21 - q0 * vn1;
    while (q0 >= b || q0 * vn0 > b * rhat + un0) {
        q0--;
        rhat += vn1;
        if (rhat >= b) break;
    }
    rem = un21 * b + un0 - q0 * v;
    return q1 * b + q0;
}

// floor((2^128 - 1) / d) - 2^64 for d with its top bit set (one slow
// division per element; the quotient digits then cost two products each).
FL_DEV u64 fl_invert(u64 d) {
    u64 r;
    return fl_div21(~d, ~0ull, d, r);
}

// (u1:u0) / d with u1 < d, d normalized, di = fl_invert(d) (GMP's
// udiv_qrnnd_preinv).
FL_DEV u64 fl_div21_pre(u64 u1, u64 u0, u64 d, u64 di, u64 &rem) {
    u64 pl = u1 * di, ph = fl_mulhi(u1, di);
    u64 ql = pl + u0;
    u64 qh = ph + u1 + 1 + (ql < pl);
    u64 r = u0 - qh * d;
    if (r > ql) {
        qh--;
        r += d;
    }
    if (r >= d) {
        qh++;
        r -= d;
    }
    rem = r;
    return qh;
}

// The quotient digit of Knuth's algorithm D from the top limbs n2 n1 n0 of
// the running remainder and vt v2 of the divisor (vi = fl_invert(vt)): the
// 2-by-1 estimate with the 3-limb correction (at most one too large). Shared
// by fl_divrem, fl_divrem_kv and float_wide.cu's register division.
FL_DEV u64 fl_qhat(u64 n2, u64 n1, u64 n0, u64 vt, u64 v2, u64 vi) {
    u64 qh, rh;
    bool rbig;
    if (n2 >= vt) {
        qh = ~0ull;
        rh = n1 + vt;
        rbig = rh < n1;
    } else {
        qh = fl_div21_pre(n2, n1, vt, vi, rh);
        rbig = false;
    }
    while (!rbig) {
        u64 plo = qh * v2, phi = fl_mulhi(qh, v2);
        if (phi > rh || (phi == rh && plo > n0)) {
            qh--;
            u64 ov = rh;
            rh += vt;
            rbig = rh < ov;
        } else {
            break;
        }
    }
    return qh;
}

// Knuth's algorithm D: u (ul+1 limbs, u[ul] = 0, destroyed; the remainder
// is left in u[0..lv]) divided by v (lv limbs, top bit set): q gets
// ul - lv + 1 limbs. (fl_divrem_kv below is this with compile-time sizes:
// a shared template changed this run-time code's register allocation.)
FL_DEV void fl_divrem(u64 *q, u64 *u, u32 ul, const u64 *v, u32 lv) {
    u64 vt = v[lv - 1];
    u64 vi = fl_invert(vt);
    if (lv == 1) {
        u64 r = 0;
        for (u32 j = ul; j-- > 0;) q[j] = fl_div21_pre(r, u[j], vt, vi, r);
        u[0] = r;
        return;
    }
    u64 v2 = v[lv - 2];
    for (u32 j = ul - lv + 1; j-- > 0;) {
        u64 qh = fl_qhat(u[j + lv], u[j + lv - 1], u[j + lv - 2], vt, v2, vi);
        // u[j..j+lv] -= qh * v.
        u64 c = 0, br = 0;
        for (u32 i = 0; i < lv; i++) {
            u64 lo = qh * v[i], hi = fl_mulhi(qh, v[i]);
            lo += c;
            hi += lo < c;
            c = hi;
            u64 a = u[j + i];
            u64 d = a - lo;
            u64 b1 = a < lo;
            u64 d2 = d - br;
            u64 b2 = d < br;
            u[j + i] = d2;
            br = b1 | b2;
        }
        u64 a = u[j + lv];
        u64 d = a - c;
        u64 b1 = a < c;
        u64 d2 = d - br;
        u64 b2 = d < br;
        u[j + lv] = d2;
        if (b1 | b2) {
            // One too many: add v back.
            qh--;
            u64 cc = 0;
            for (u32 i = 0; i < lv; i++) {
                u64 s = u[j + i] + v[i];
                u64 c1 = s < v[i];
                u64 t = s + cc;
                u64 c2 = t < s;
                u[j + i] = t;
                cc = c1 | c2;
            }
            u[j + lv] += cc;
        }
        q[j] = qh;
    }
}

// x / y, finite nonzero (div_num): ua ul+1 limbs, qa ul limbs, ul =
// max(lx, ly + n + 1).
FL_DEV i8 fl_div_num(FlOut &o, FlNum x, FlNum y, u64 p, u32 rnd, u64 *ua, u64 *qa) {
    u32 n = o.n;
    u32 k = (y.l + n + 1 > x.l) ? y.l + n + 1 - x.l : 0;
    u32 ul = x.l + k;
    for (u32 i = 0; i < k; i++) ua[i] = 0;
    for (u32 i = 0; i < x.l; i++) ua[k + i] = x.m[i];
    ua[ul] = 0;
    for (u32 i = 0; i < ul; i++) qa[i] = 0;
    fl_divrem(qa, ua, ul, y.m, y.l);
    bool sticky = fl_any(ua, y.l);
    u32 lz;
    u32 qs = fl_normalize(qa, ul, lz);
    i64 e = x.e - y.e + 64 * ((i64)y.l + (i64)qs - (i64)x.l - (i64)k) - (i64)lz;
    return fl_round_to(o, (bool)(x.neg ^ y.neg), e, qa, qs, sticky, p, rnd);
}

// Root of the top 2*mm limbs of N (nn, 2m limbs) into s[0..mm), given in s
// an over-estimate (s >= root, top bit set): Newton's floor iteration
// s' = (s + floor(N/s)) / 2 (never below the root) until s'^2 <= N. With a
// good start one step suffices. un: 2mm+1 limbs (the division, then s'^2),
// q: mm+1 limbs.
FL_DEV void fl_isqrt_level(const u64 *nt, u32 mm, u64 *s, u64 *un, u64 *q) {
    for (;;) {
        for (u32 i = 0; i < 2 * mm; i++) un[i] = nt[i];
        un[2 * mm] = 0;
        fl_divrem(q, un, 2 * mm, s, mm);  // q: mm+1 limbs
        // q = (s + q) >> 1 (below 2^(64 mm): s and q are within a factor
        // of about 2 of the root once s is normalized).
        u64 qt = q[mm] + fl_add_n(q, s, q, mm);
        for (u32 i = 0; i < mm; i++) q[i] = (q[i] >> 1) | ((i + 1 < mm ? q[i + 1] : qt) << 63);
        qt >>= 1;
        if (qt != 0) {
            // Only when s is far above the root: keep s's width.
            for (u32 i = 0; i < mm; i++) q[i] = ~0ull;
        }
        for (u32 i = 0; i < mm; i++) s[i] = q[i];
        // Done when s^2 <= N.
        fl_mul_exact(un, s, mm, s, mm);
        if (fl_cmp_mant(un, 2 * mm, nt, 2 * mm) <= 0) return;
    }
}

// An over-estimate of the root of the two-limb (n1:n0) (n1 >= 2^62): a
// double square root plus a margin, saturated at 2^64 - 1.
FL_DEV u64 fl_sqrt_top(u64 n1, u64 n0) {
    double T = (double)n1 * 18446744073709551616.0 + (double)n0;
    double r = fl_sqrt(T);
    if (r >= 18446744073709551616.0) return ~0ull;
    u64 top = (u64)r;
    return top + 16384 < top ? ~0ull : top + 16384;
}

// s (m limbs) = floor(sqrt(nn)), nn of 2m limbs with its top limb >= 2^62,
// by precision doubling: levels of m, ceil(m/2), ..., 1 limbs from the
// smallest; the root of the top 2h limbs plus one, shifted, over-estimates
// the root of the top 2mm limbs, and fl_isqrt_level's Newton steps make it
// exact. Leaves s^2 in un (2m+1 limbs); q: m+2 limbs. APART: the one-limb
// level outside the loop (fl_sqrt_num: with the constant sizes of
// float_arith's slow paths the level sizes then stay out of local memory);
// else one call site of fl_isqrt_level (float_func's ff_isqrt_2k: NVRTC
// time, and 8 registers fewer in float_func2 at FF_K=3).
template <bool APART>
FL_DEV void fl_isqrt_root(const u64 *nn, u32 m, u64 *s, u64 *un, u64 *q) {
    u32 lv[40];
    u32 nl = 0;
    for (u32 mm = m;; mm = (mm + 1) / 2) {
        lv[nl++] = mm;
        if (mm == 1) break;
    }
    s[0] = fl_sqrt_top(nn[2 * m - 1], nn[2 * m - 2]);
    if (APART) fl_isqrt_level(nn + 2 * m - 2, 1, s, un, q);
    for (u32 k = APART ? nl - 1 : nl; k-- > 0;) {
        u32 mm = lv[k];
        if (APART || k + 1 < nl) {
            // s0 = (root_h + 1) * B^d, or B^mm - 1 if that overflows.
            u32 h = lv[k + 1], d = mm - h;
            for (u32 i = h; i-- > 0;) s[i + d] = s[i];
            for (u32 i = 0; i < d; i++) s[i] = 0;
            u32 i = d;
            for (; i < mm; i++) {
                if (++s[i] != 0) break;
            }
            if (i == mm) {
                for (u32 j = 0; j < mm; j++) s[j] = ~0ull;
            }
        }
        fl_isqrt_level(nn + 2 * (m - mm), mm, s, un, q);
    }
}

// sqrt of a finite positive x: N = mantissa << (128m - 64lx - t), root =
// floor(sqrt(N)) by precision doubling: the root of the top 2h limbs plus
// one, shifted, over-estimates the root of the top 2mm limbs; one Newton
// step (checked by squaring, repeated if needed) gives it exactly. Sticky =
// N != root^2. Buffers: nn 2m limbs, un 2m+1, s m, q m+2 (m = max(n+1,
// lx/2+1)).
FL_DEV i8 fl_sqrt_num(FlOut &o, FlNum x, u64 p, u32 rnd, u64 *nn, u64 *un, u64 *s, u64 *q) {
    u32 lx = x.l, n = o.n;
    u32 m = n + 1 > lx / 2 + 1 ? n + 1 : lx / 2 + 1;
    u32 t = (u32)(x.e & 1);
    for (u32 i = 0; i < 2 * m - lx; i++) nn[i] = 0;
    for (u32 i = 0; i < lx; i++) nn[2 * m - lx + i] = x.m[i];
    if (t) {
        for (u32 i = 0; i + 1 < 2 * m; i++) nn[i] = (nn[i] >> 1) | (nn[i + 1] << 63);
        nn[2 * m - 1] >>= 1;
    }
    fl_isqrt_root<true>(nn, m, s, un, q);
    // un holds s^2 (2m limbs): exact iff it equals N.
    bool exact = fl_cmp_mant(un, 2 * m, nn, 2 * m) == 0;
    i64 e = (x.e + (i64)t) / 2;
    return fl_round_to(o, false, e, s, m, !exact, p, rnd);
}

// One operand as a finite number.
FL_DEV FlNum fl_num(u64 h, const u64 *m, u32 l, bool neg) {
    FlNum r = {neg, fl_exp(h), m, l};
    return r;
}

// The arithmetic operations (add, sub, mul, div, sqrt, fma, fms) of one
// element, MPFR's special-value tables first. Scratch: NL is the tier, at
// least the largest limb count of the operands and the destination.
// Scratch limbs the arithmetic of op needs (src/float/cuda.rs computes the
// same): A, B, C, P laid out one after the other.
FL_DEV void fl_scratch(u32 op, u32 n, u32 lx, u32 ly, u32 lz, u32 &a, u32 &b, u32 &c, u32 &pp) {
    u32 mx = n > lx ? n : lx;
    mx = mx > ly ? mx : ly;
    mx = mx > lz ? mx : lz;
    a = b = c = pp = 0;
    if (op == FL_OP_ADD || op == FL_OP_SUB) {
        a = mx + 2;  // window w + 1, w = max(lx, ly, n) + 1
        b = mx + 1;
    } else if (op == FL_OP_MUL) {
        pp = lx + ly;
    } else if (op == FL_OP_DIV) {
        u32 ul = lx > ly + n + 1 ? lx : ly + n + 1;
        a = ul + 1;
        b = ul;
    } else if (op == FL_OP_SQRT) {
        a = b = c = 2 * mx + 4;
    } else {  // FMA, FMS: product, then the window of max(lx+ly, lz, n) + 1
        pp = lx + ly;
        u32 w = lx + ly > lz ? lx + ly : lz;
        w = (w > n ? w : n) + 1;
        a = w + 1;
        b = w;
    }
}

// The arithmetic with scratch buffers A, B (2*max limbs + 4 each), C (the
// same, sqrt only) and P (lx + ly, products only).
FL_DEV i8 fl_arith_buf(u32 op, u32 rnd, u64 p, FlOut &o, u64 xh, const u64 *xm, u32 lx, u64 yh,
                       const u64 *ym, u32 ly, u64 zh, const u64 *zm, u32 lz, u64 *A, u64 *B,
                       u64 *C, u64 *P) {
    u32 NL = (u32)((o.n > lx ? o.n : lx) > (ly > lz ? ly : lz) ? (o.n > lx ? o.n : lx)
                                                                : (ly > lz ? ly : lz));
    u32 xt = fl_tag(xh), yt = fl_tag(yh), zt = fl_tag(zh);
    u32 cx = xt & 3, cy = yt & 3, cz = zt & 3;
    bool xn = (xt & FL_NEG) != 0, yn = (yt & FL_NEG) != 0, zn = (zt & FL_NEG) != 0;
    switch (op) {
    case FL_OP_ADD:
    case FL_OP_SUB: {
        yn = yn != (op == FL_OP_SUB);
        if (cx == FL_NAN || cy == FL_NAN) fl_special(o, FL_NAN, false);
        else if (cx == FL_INF && cy == FL_INF && xn != yn) fl_special(o, FL_NAN, false);
        else if (cx == FL_INF) fl_special(o, FL_INF, xn);
        else if (cy == FL_INF) fl_special(o, FL_INF, yn);
        else if (cx == FL_ZERO && cy == FL_ZERO)
            fl_special(o, FL_ZERO, xn == yn ? xn : rnd == FL_RD);
        else if (cx == FL_ZERO) return fl_round_to(o, yn, fl_exp(yh), ym, ly, false, p, rnd);
        else if (cy == FL_ZERO) return fl_round_to(o, xn, fl_exp(xh), xm, lx, false, p, rnd);
        else return fl_add_num(o, fl_num(xh, xm, lx, xn), fl_num(yh, ym, ly, yn), p, rnd, A, B);
        return 0;
    }
    case FL_OP_MUL: {
        bool neg = xn != yn;
        if (cx == FL_NAN || cy == FL_NAN) fl_special(o, FL_NAN, false);
        else if ((cx == FL_INF && cy == FL_ZERO) || (cx == FL_ZERO && cy == FL_INF))
            fl_special(o, FL_NAN, false);
        else if (cx == FL_INF || cy == FL_INF) fl_special(o, FL_INF, neg);
        else if (cx == FL_ZERO || cy == FL_ZERO) fl_special(o, FL_ZERO, neg);
        else {
            FlNum pr = fl_product(fl_num(xh, xm, lx, xn), fl_num(yh, ym, ly, yn), P);
            return fl_round_to(o, pr.neg, pr.e, pr.m, pr.l, false, p, rnd);
        }
        return 0;
    }
    case FL_OP_DIV: {
        bool neg = xn != yn;
        if (cx == FL_NAN || cy == FL_NAN || (cx == FL_INF && cy == FL_INF) ||
            (cx == FL_ZERO && cy == FL_ZERO))
            fl_special(o, FL_NAN, false);
        else if (cx == FL_INF) fl_special(o, FL_INF, neg);
        else if (cy == FL_INF) fl_special(o, FL_ZERO, neg);
        else if (cy == FL_ZERO) fl_special(o, FL_INF, neg);
        else if (cx == FL_ZERO) fl_special(o, FL_ZERO, neg);
        else return fl_div_num(o, fl_num(xh, xm, lx, xn), fl_num(yh, ym, ly, yn), p, rnd, A, B);
        return 0;
    }
    case FL_OP_SQRT: {
        if (cx == FL_NAN || (xn && cx != FL_ZERO)) fl_special(o, FL_NAN, false);
        else if (cx == FL_INF) fl_special(o, FL_INF, false);
        else if (cx == FL_ZERO) fl_special(o, FL_ZERO, xn);
        else return fl_sqrt_num(o, fl_num(xh, xm, lx, false), p, rnd, A, B, C, C + NL + 2);
        return 0;
    }
    default: {  // FMA, FMS
        bool pn = xn != yn;
        bool cn = zn != (op == FL_OP_FMS);
        if (cx == FL_NAN || cy == FL_NAN || cz == FL_NAN) {
            fl_special(o, FL_NAN, false);
            return 0;
        }
        if (cx == FL_INF || cy == FL_INF) {
            if (cx == FL_ZERO || cy == FL_ZERO || (cz == FL_INF && cn != pn))
                fl_special(o, FL_NAN, false);
            else fl_special(o, FL_INF, pn);
            return 0;
        }
        if (cz == FL_INF) {
            fl_special(o, FL_INF, cn);
            return 0;
        }
        if (cx == FL_ZERO || cy == FL_ZERO) {
            if (cz == FL_ZERO) {
                fl_special(o, FL_ZERO, pn == cn ? pn : rnd == FL_RD);
                return 0;
            }
            return fl_round_to(o, cn, fl_exp(zh), zm, lz, false, p, rnd);
        }
        FlNum pr = fl_product(fl_num(xh, xm, lx, xn), fl_num(yh, ym, ly, yn), P);
        if (cz == FL_ZERO) return fl_round_to(o, pr.neg, pr.e, pr.m, pr.l, false, p, rnd);
        return fl_add_num(o, pr, fl_num(zh, zm, lz, cn), p, rnd, A, B);
    }
    }
}

// The arithmetic with scratch in local memory, tier NL >= every limb count.
template <int NL>
FL_DEV i8 fl_arith(u32 op, u32 rnd, u64 p, FlOut &o, u64 xh, const u64 *xm, u32 lx, u64 yh,
                   const u64 *ym, u32 ly, u64 zh, const u64 *zm, u32 lz) {
    u64 A[2 * NL + 4], B[2 * NL + 4], C[2 * NL + 4], P[2 * NL];
    return fl_arith_buf(op, rnd, p, o, xh, xm, lx, yh, ym, ly, zh, zm, lz, A, B, C, P);
}

// (c2:c1:c0) += a * b. ASM: one carry chain (mad.lo.cc, madc.hi.cc, addc
// on 64-bit registers) instead of compares for the carries.
template <bool ASM>
FL_DEV void fl_mac(u64 &c0, u64 &c1, u64 &c2, u64 a, u64 b) {
#ifdef __CUDA_ARCH__
    if (ASM) {
        asm("mad.lo.cc.u64 %0, %3, %4, %0;\n\t"
            "madc.hi.cc.u64 %1, %3, %4, %1;\n\t"
            "addc.u64 %2, %2, 0;"
            : "+l"(c0), "+l"(c1), "+l"(c2)
            : "l"(a), "l"(b));
        return;
    }
#endif
    u64 lo = a * b, h = fl_mulhi(a, b);
    c0 += lo;
    h += c0 < lo;
    c1 += h;
    c2 += c1 < h;
}

// The rounding of a left-aligned value held in registers: the kept limbs
// are hi[1..N], hi[0] the limb below them, `below` nonzero when any bit
// further down is (fl_round_to's steps, then the range check).
template <int N>
FL_DEV i8 fl_round_regs(FlOut &o, const u64 *hi, u64 below, i64 e, bool neg, u64 p, u32 rnd) {
    u64 m[N];
#pragma unroll
    for (int i = 0; i < N; i++) m[i] = hi[i + 1];
    u32 low = (u32)(64ull * N - p);
    bool rb, st;
    if (low > 0) {
        u64 mask = (1ull << low) - 1;
        rb = (m[0] >> (low - 1)) & 1;
        st = ((m[0] & (mask >> 1)) | hi[0] | below) != 0;
        m[0] &= ~mask;
    } else {
        rb = hi[0] >> 63;
        st = ((hi[0] << 1) | below) != 0;
    }
    bool inexact = rb || st, inc;
    switch (rnd) {
    case FL_RN: inc = rb && (st || ((m[0] >> low) & 1)); break;
    case FL_RZ: inc = false; break;
    case FL_RU: inc = inexact && !neg; break;
    case FL_RD: inc = inexact && neg; break;
    default: inc = inexact; break;
    }
    if (inc) {
        u64 c = 1ull << low;
#pragma unroll
        for (int i = 0; i < N; i++) {
            u64 v = m[i] + c;
            c = v < c ? 1 : 0;
            m[i] = v;
        }
        if (c) {
            m[N - 1] = 1ull << 63;
            e += 1;
        }
    }
#pragma unroll
    for (int i = 0; i < N; i++) o.m[i] = m[i];
    i8 t = inexact ? fl_ternary(inc, neg) : 0;
    return fl_finish(o, neg, e, t, inc, p, rnd);
}

// x * y for normal x, y and destination all of exactly N limbs: the
// product, the rounding and the carry in registers (compile-time indices),
// then the shared range check. Same bits as fl_round_to on fl_product.
template <int N>
FL_DEV i8 fl_mul_fast(FlOut &o, u64 xh, const u64 *xm, u64 yh, const u64 *ym, u64 p, u32 rnd) {
    u64 a[N], b[N];
#pragma unroll
    for (int i = 0; i < N; i++) {
        a[i] = xm[i];
        b[i] = ym[i];
    }
    // Column by column (Comba): only r[N-2..2N) are kept, the limbs below
    // are OR-ed into one word (they only feed the sticky bit).
    u64 hi[N + 1];
    u64 r2 = 0, lowor = 0, c0 = 0, c1 = 0, c2 = 0;
#pragma unroll
    for (int k = 0; k < 2 * N - 1; k++) {
#pragma unroll
        for (int i = 0; i < N; i++) {
            const int j = k - i;
            if (j >= 0 && j < N) fl_mac<false>(c0, c1, c2, a[i], b[j]);
        }
        if (k < N - 2) lowor |= c0;
        else if (k == N - 2) r2 = c0;
        else hi[k - (N - 1)] = c0;
        c0 = c1;
        c1 = c2;
        c2 = 0;
    }
    hi[N] = c0;
    i64 e = fl_exp(xh) + fl_exp(yh);
    if ((hi[N] >> 63) == 0) {
#pragma unroll
        for (int i = N; i > 0; i--) hi[i] = (hi[i] << 1) | (hi[i - 1] >> 63);
        hi[0] = (hi[0] << 1) | (r2 >> 63);
        r2 <<= 1;
        e -= 1;
    }
    bool neg = ((fl_tag(xh) ^ fl_tag(yh)) & FL_NEG) != 0;
    return fl_round_regs<N>(o, hi, r2 | lowor, e, neg, p, rnd);
}

// Element comparison: -1, 0, 1, or 2 when unordered (a NaN).
FL_DEV i8 fl_cmp(u64 xh, const u64 *xm, u32 lx, u64 yh, const u64 *ym, u32 ly) {
    u32 cx = fl_tag(xh) & 3, cy = fl_tag(yh) & 3;
    if (cx == FL_NAN || cy == FL_NAN) return 2;
    int sa = cx == FL_ZERO ? 0 : ((fl_tag(xh) & FL_NEG) ? -1 : 1);
    int sb = cy == FL_ZERO ? 0 : ((fl_tag(yh) & FL_NEG) ? -1 : 1);
    if (sa != sb || sa == 0) return sa < sb ? -1 : (sa > sb ? 1 : 0);
    int mag;
    if (cx == FL_INF && cy == FL_INF) mag = 0;
    else if (cx == FL_INF) mag = 1;
    else if (cy == FL_INF) mag = -1;
    else {
        i64 ex = fl_exp(xh), ey = fl_exp(yh);
        mag = ex != ey ? (ex < ey ? -1 : 1) : fl_cmp_mant(xm, lx, ym, ly);
    }
    return (i8)(sa < 0 ? -mag : mag);
}

// x (negated when flip, positive when abs) rounded to the destination.
FL_DEV i8 fl_set(FlOut &o, u64 xh, const u64 *xm, u32 lx, bool flip, bool ab, i64 k, u64 p,
                 u32 rnd) {
    u32 t = fl_tag(xh);
    bool neg = (((t & FL_NEG) != 0) != flip) && !ab;
    if ((t & 3) == FL_NORMAL) return fl_round_to(o, neg, fl_exp(xh) + k, xm, lx, false, p, rnd);
    fl_special(o, t & 3, neg);
    return 0;
}

// The operations that only round one operand (neg, abs, set_prec, mul_2si,
// min, max); no scratch.
FL_DEV i8 fl_misc(u32 op, u32 rnd, u64 p, i64 k, FlOut &o, u64 xh, const u64 *xm, u32 lx,
                  u64 yh, const u64 *ym, u32 ly) {
    switch (op) {
    case FL_OP_NEG: return fl_set(o, xh, xm, lx, true, false, 0, p, rnd);
    case FL_OP_ABS: return fl_set(o, xh, xm, lx, false, true, 0, p, rnd);
    case FL_OP_SET: return fl_set(o, xh, xm, lx, false, false, 0, p, rnd);
    case FL_OP_MUL2SI: {
        // Beyond 2^40 the result overflows or underflows either way.
        const i64 lim = 1ll << 40;
        i64 kk = k < -lim ? -lim : (k > lim ? lim : k);
        return fl_set(o, xh, xm, lx, false, false, kk, p, rnd);
    }
    default: {  // MIN, MAX
        bool mx = op == FL_OP_MAX;
        u32 cx = fl_tag(xh) & 3, cy = fl_tag(yh) & 3;
        if (cx == FL_NAN && cy == FL_NAN) {
            fl_special(o, FL_NAN, false);
            return 0;
        }
        bool pick_x;
        if (cx == FL_NAN) pick_x = false;
        else if (cy == FL_NAN) pick_x = true;
        else if (cx == FL_ZERO && cy == FL_ZERO) {
            bool xn = (fl_tag(xh) & FL_NEG) != 0, yn = (fl_tag(yh) & FL_NEG) != 0;
            fl_special(o, FL_ZERO, mx ? (xn && yn) : (xn || yn));
            return 0;
        } else {
            int c = fl_cmp(xh, xm, lx, yh, ym, ly);
            pick_x = c == 0 || (c < 0) != mx;
        }
        return pick_x ? fl_set(o, xh, xm, lx, false, false, 0, p, rnd)
                      : fl_set(o, yh, ym, ly, false, false, 0, p, rnd);
    }
    }
}

// ---------------------------------------------------------------------------
// Register paths for equal precisions (every operand and the destination of
// exactly N limbs, N a compile-time tier): the same exact integers and the
// same one rounding as the generic code above, without scratch memory.

// x * y by a short product: only the columns N-2.. of the product (about
// half the limb products for N >= 4). The columns left out add less than
// N-2 units to limb N-1, so when the low 62 bits u of the computed limb N-1
// satisfy 1 <= u < 2^62 - N, every bit from bit 62 of limb N-1 up is exact
// and some bit below the round bit is set (MPFR's can-round test): the
// rounding is the exact product's. Otherwise returns false and the caller
// takes the exact product (fl_mul_fast).
template <int N, bool ASM = false>
FL_DEV bool fl_mul_short(FlOut &o, u64 xh, const u64 *xm, u64 yh, const u64 *ym, u64 p, u32 rnd,
                         i8 &ret) {
    u64 a[N], b[N];
#pragma unroll
    for (int i = 0; i < N; i++) {
        a[i] = xm[i];
        b[i] = ym[i];
    }
    u64 hi[N + 1];
    u64 c0 = 0, c1 = 0, c2 = 0;
#pragma unroll
    for (int k = N - 2; k < 2 * N - 1; k++) {
#pragma unroll
        for (int i = 0; i < N; i++) {
            const int j = k - i;
            if (j >= 0 && j < N) fl_mac<ASM>(c0, c1, c2, a[i], b[j]);
        }
        if (k >= N - 1) hi[k - (N - 1)] = c0;
        c0 = c1;
        c1 = c2;
        c2 = 0;
    }
    hi[N] = c0;
    const u64 m62 = (1ull << 62) - 1;
    u64 u = hi[0] & m62;
    if (u == 0 || u >= m62 - (u64)N) return false;
    i64 e = fl_exp(xh) + fl_exp(yh);
    if ((hi[N] >> 63) == 0) {
#pragma unroll
        for (int i = N; i > 0; i--) hi[i] = (hi[i] << 1) | (hi[i - 1] >> 63);
        hi[0] <<= 1;
        e -= 1;
    }
    bool neg = ((fl_tag(xh) ^ fl_tag(yh)) & FL_NEG) != 0;
    ret = fl_round_regs<N>(o, hi, 1, e, neg, p, rnd);
    return true;
}

// 32-bit carry chains (mad.lo.cc.u32, madc.hi.cc.u32, ...): PTX on the
// device, where the carry flag is implicit and cf unused; an explicit carry
// cf on the host (the emulators).
#ifdef __CUDA_ARCH__
#define FL32_ASM3(name, op)                                                                    \
    FL_DEV u32 name(u32 a, u32 b, u32 c, u32 &cf) {                                            \
        u32 r;                                                                                 \
        (void)cf;                                                                              \
        asm volatile(op " %0, %1, %2, %3;" : "=r"(r) : "r"(a), "r"(b), "r"(c));                \
        return r;                                                                              \
    }
FL32_ASM3(fl32_mad_lo_cc, "mad.lo.cc.u32")
FL32_ASM3(fl32_madc_lo_cc, "madc.lo.cc.u32")
FL32_ASM3(fl32_madc_hi_cc, "madc.hi.cc.u32")
FL32_ASM3(fl32_madc_hi, "madc.hi.u32")
#undef FL32_ASM3
FL_DEV u32 fl32_add_cc(u32 a, u32 b, u32 &cf) {
    u32 r;
    (void)cf;
    asm volatile("add.cc.u32 %0, %1, %2;" : "=r"(r) : "r"(a), "r"(b));
    return r;
}
FL_DEV u32 fl32_addc_cc(u32 a, u32 b, u32 &cf) {
    u32 r;
    (void)cf;
    asm volatile("addc.cc.u32 %0, %1, %2;" : "=r"(r) : "r"(a), "r"(b));
    return r;
}
FL_DEV u32 fl32_addc(u32 a, u32 b, u32 &cf) {
    u32 r;
    (void)cf;
    asm volatile("addc.u32 %0, %1, %2;" : "=r"(r) : "r"(a), "r"(b));
    return r;
}
#else
FL_DEV u32 fl32_mad_lo_cc(u32 a, u32 b, u32 c, u32 &cf) {
    u64 t = (u64)(u32)(a * b) + c;
    cf = (u32)(t >> 32);
    return (u32)t;
}
FL_DEV u32 fl32_madc_lo_cc(u32 a, u32 b, u32 c, u32 &cf) {
    u64 t = (u64)(u32)(a * b) + c + cf;
    cf = (u32)(t >> 32);
    return (u32)t;
}
FL_DEV u32 fl32_madc_hi_cc(u32 a, u32 b, u32 c, u32 &cf) {
    u64 t = (((u64)a * b) >> 32) + c + cf;
    cf = (u32)(t >> 32);
    return (u32)t;
}
// The last step of a chain: the sizes guarantee no carry out.
FL_DEV u32 fl32_madc_hi(u32 a, u32 b, u32 c, u32 &cf) {
    u64 t = (((u64)a * b) >> 32) + c + cf;
    if (t >> 32) __builtin_trap();
    return (u32)t;
}
FL_DEV u32 fl32_add_cc(u32 a, u32 b, u32 &cf) {
    u64 t = (u64)a + b;
    cf = (u32)(t >> 32);
    return (u32)t;
}
FL_DEV u32 fl32_addc_cc(u32 a, u32 b, u32 &cf) {
    u64 t = (u64)a + b + cf;
    cf = (u32)(t >> 32);
    return (u32)t;
}
FL_DEV u32 fl32_addc(u32 a, u32 b, u32 &cf) {
    u64 t = (u64)a + b + cf;
    if (t >> 32) __builtin_trap();
    return (u32)t;
}
#endif

// fl_mul_short on 32-bit limbs: x * y from the limb products a_u * b_v
// (u, v over the 2N 32-bit limbs) with u + v >= K = 2N - 3 only, every
// carry by the hardware's carry flag. Row by row (one b_v per row), as
// blas.cu's bl_mac, but the row's products split by the parity of u + v
// into two sums, E (even) and O (odd): in each, the products of a row
// cover consecutive columns (low half at u + v, high half at u + v + 1,
// the next product at u + v + 2), so one carry chain of mad.lo.cc /
// madc.hi.cc pairs per row and sum, and ptxas makes each pair one
// IMAD.WIDE.U32.X on an aligned register pair (E column c at E[c - (M-2)],
// O column c at O[c - (M-3)], both even for their own columns). E + O at
// the end. About 270 instructions at N = 8 against about 600 for the
// 64-bit limb products of fl_mul_short (sm_90, counted with nvdisasm).
// The products left out sum to less than K * 2^(32K + 32) * (1 + 2^-31) =
// (2N - 3)(1 + 2^-31) * 2^(64(N - 1)): less than 2N - 2 units of 64-bit limb
// N - 1. So when the low 62 bits u of the computed limb N - 1 satisfy
// 1 <= u < 2^62 - 1 - 2N, every bit from bit 62 of limb N - 1 up is the
// exact product's and some bit below the round bit is set (MPFR's
// can-round test): the rounding is the exact product's, as in
// fl_mul_short. Otherwise returns false and the caller takes the exact
// product.
template <int N>
FL_DEV bool fl_mul_short32(FlOut &o, u64 xh, const u64 *xm, u64 yh, const u64 *ym, u64 p,
                           u32 rnd, i8 &ret) {
    constexpr int M = 2 * N, K = M - 3;
    u32 a[M], b[M];
#pragma unroll
    for (int i = 0; i < N; i++) {
        a[2 * i] = (u32)xm[i];
        a[2 * i + 1] = (u32)(xm[i] >> 32);
        b[2 * i] = (u32)ym[i];
        b[2 * i + 1] = (u32)(ym[i] >> 32);
    }
    u32 E[M + 2], O[M + 3];
#pragma unroll
    for (int c = 0; c < M + 2; c++) E[c] = 0;
#pragma unroll
    for (int c = 0; c < M + 3; c++) O[c] = 0;
    u32 cf = 0;
#pragma unroll
    for (int v = 0; v < M; v++) {
        const u32 bv = b[v];
        const int u0 = K - v > 0 ? K - v : 0;
#pragma unroll
        for (int par = 0; par < 2; par++) {
            u32 *R = par ? O : E;
            const int base = par ? M - 3 : M - 2;
            // The first and last u of this parity in u0 .. M - 1.
            const int us = u0 + (((u0 + v) & 1) != par ? 1 : 0);
            const int ul = M - 1 - (((M - 1 + v) & 1) != par ? 1 : 0);
            if (us > ul) continue;
            // The sum of rows 0..v is below 2^(32(M + v + 1)): the chain's
            // carry goes into column ul + v + 2 when that is at most M + v,
            // else there is none.
            const bool more = ul + 2 <= M;
#pragma unroll
            for (int u = us; u <= ul; u += 2) {
                const int c = u + v - base;
                R[c] = u == us ? fl32_mad_lo_cc(a[u], bv, R[c], cf)
                               : fl32_madc_lo_cc(a[u], bv, R[c], cf);
                R[c + 1] = u == ul && !more ? fl32_madc_hi(a[u], bv, R[c + 1], cf)
                                            : fl32_madc_hi_cc(a[u], bv, R[c + 1], cf);
            }
            if (more) {
                const int c = ul + v + 2 - base;
                R[c] = fl32_addc(R[c], 0, cf);
            }
        }
    }
    // E + O from column M - 2 up (column M - 3 is O's alone).
    E[0] = fl32_add_cc(E[0], O[1], cf);
#pragma unroll
    for (int c = 1; c < M + 1; c++) E[c] = fl32_addc_cc(E[c], O[c + 1], cf);
    E[M + 1] = fl32_addc(E[M + 1], O[M + 2], cf);
    // 64-bit limb N - 1 + i = columns M - 2 + 2i, M - 1 + 2i.
    u64 hi[N + 1];
#pragma unroll
    for (int i = 0; i <= N; i++) hi[i] = (u64)E[2 * i] | ((u64)E[2 * i + 1] << 32);
    const u64 m62 = (1ull << 62) - 1;
    u64 u = hi[0] & m62;
    if (u == 0 || u >= m62 - (u64)(2 * N)) return false;
    i64 e = fl_exp(xh) + fl_exp(yh);
    if ((hi[N] >> 63) == 0) {
#pragma unroll
        for (int i = N; i > 0; i--) hi[i] = (hi[i] << 1) | (hi[i - 1] >> 63);
        hi[0] <<= 1;
        e -= 1;
    }
    bool neg = ((fl_tag(xh) ^ fl_tag(yh)) & FL_NEG) != 0;
    ret = fl_round_regs<N>(o, hi, 1, e, neg, p, rnd);
    return true;
}

// v shifted toward lower indices by q limbs (0 <= q < 32), zeros in; the
// limbs shifted out are OR-ed into st. Unrolled selects: no run-time index.
template <int L>
FL_DEV void fl_limb_shr(u64 *v, u32 q, u64 &st) {
#pragma unroll
    for (int b = 1; b < L; b <<= 1) {
        if (q & (u32)b) {
#pragma unroll
            for (int i = 0; i < L; i++) {
                if (i < b) st |= v[i];
                v[i] = i + b < L ? v[i + b] : 0;
            }
        }
    }
}

// v shifted toward higher indices by q limbs (0 <= q < L), zeros in.
template <int L>
FL_DEV void fl_limb_shl(u64 *v, u32 q) {
#pragma unroll
    for (int b = 1; b < L; b <<= 1) {
        if (q & (u32)b) {
#pragma unroll
            for (int i = L - 1; i >= 0; i--) v[i] = i >= b ? v[i - b] : 0;
        }
    }
}

// x + y or x - y (sub) for normal x, y: add_num's window w = N + 1 with x
// at limbs 1..N, y shifted right by the exponent difference (sticky below
// the window), the extra borrow, the normalization and the rounding, all
// in registers.
template <int N>
FL_DEV i8 fl_add_fast(FlOut &o, u64 xh, const u64 *xm, u64 yh, const u64 *ym, bool subop, u64 p,
                      u32 rnd) {
    constexpr int W = N + 1;
    u64 X[W + 1], Y[W];
    X[0] = 0;
    Y[0] = 0;
    X[W] = 0;
    i64 ex = fl_exp(xh), ey = fl_exp(yh);
    // ord: x against y in magnitude.
    int ord = ex != ey ? (ex < ey ? -1 : 1) : 0;
#pragma unroll
    for (int i = 0; i < N; i++) {
        X[i + 1] = xm[i];
        Y[i + 1] = ym[i];
    }
    if (ord == 0) {
#pragma unroll
        for (int i = 1; i <= N; i++) {
            if (X[i] != Y[i]) ord = X[i] < Y[i] ? -1 : 1;
        }
    }
    bool xn = (fl_tag(xh) & FL_NEG) != 0, yn = ((fl_tag(yh) & FL_NEG) != 0) != subop;
    bool sub = xn != yn;
    if (sub && ord == 0) {
        fl_special(o, FL_ZERO, rnd == FL_RD);
        return 0;
    }
    bool neg = xn;
    if (ord < 0) {
#pragma unroll
        for (int i = 1; i <= N; i++) {
            u64 t = X[i];
            X[i] = Y[i];
            Y[i] = t;
        }
        i64 te = ex;
        ex = ey;
        ey = te;
        neg = yn;
    }
    // Y >> d, sticky from the bits shifted out.
    u64 d = (u64)(ex - ey);
    u64 stw = 0;
    if (d >= 64ull * W) {
#pragma unroll
        for (int i = 0; i < W; i++) {
            stw |= Y[i];
            Y[i] = 0;
        }
    } else {
        u32 q = (u32)(d / 64), r = (u32)(d % 64);
        fl_limb_shr<W>(Y, q, stw);
        if (r) {
            stw |= Y[0] << (64 - r);
#pragma unroll
            for (int i = 0; i < W; i++) Y[i] = (Y[i] >> r) | (i + 1 < W ? Y[i + 1] << (64 - r) : 0);
        }
    }
    bool sticky = stw != 0;
    if (sub) {
        fl_sub_n<W>(X, X, Y, W);
        if (sticky) {
            u64 bw = 1;
#pragma unroll
            for (int i = 0; i < W; i++) {
                u64 v = X[i];
                X[i] = v - bw;
                bw = (v < bw) ? 1 : 0;
            }
        }
    } else {
        X[W] = fl_add_n<W>(X, X, Y, W);
    }
    // Normalize: the top nonzero limb to index W, then its top bit.
    u32 top = 0;
#pragma unroll
    for (int i = 0; i <= W; i++) {
        if (X[i] != 0) top = (u32)i;
    }
    u32 z = (u32)W - top;
    fl_limb_shl<W + 1>(X, z);
    u32 lz = fl_clz(X[W]);
    if (lz) {
#pragma unroll
        for (int i = W; i > 0; i--) X[i] = (X[i] << lz) | (X[i - 1] >> (64 - lz));
        X[0] <<= lz;
    }
    i64 e = ex + 64 * (1 - (i64)z) - (i64)lz;
    // Kept limbs X[2..W], the limb below X[1], then X[0] and the sticky.
    return fl_round_regs<N>(o, X + 1, X[0] | (sticky ? 1 : 0), e, neg, p, rnd);
}

// Member functions (FL_DEV is `static inline` on the host).
#ifdef __CUDACC__
#define FL_MEMB __device__ __forceinline__
#else
#define FL_MEMB inline
#endif

// fl_invert without integer division (the divisions of fl_div21 are
// software routines on the device): a double estimate of B^2/d - B, then
// the exact remainder (B^2 - 1) - (B + v) d and corrections until it lies
// in [0, d). Same value as fl_invert.
FL_DEV u64 fl_invert_fast(u64 d) {
    double dd = (double)d;
    double est = 340282366920938463463374607431768211456.0 / dd - 18446744073709551616.0;
    if (est > 18446744073709549568.0) est = 18446744073709549568.0;
    if (est < 0) est = 0;
    u64 v = (u64)est;
    // rem = (~d : ~0) - v * d, signed 128-bit (rh:rl).
    u64 pl = v * d, ph = fl_mulhi(v, d);
    u64 rl = ~0ull - pl;
    u64 rh = ~d - ph;  // no borrow: ~0 >= pl
    // rem = rem - k d with k a double estimate of rem / d (|rem| < 2^14 d).
    double remd = (double)(i64)rh * 18446744073709551616.0 + (double)rl;
    i64 k = (i64)(remd / dd);
    if (k != 0) {
        u64 ka = k < 0 ? (u64)(-k) : (u64)k;
        u64 ql = ka * d, qh = fl_mulhi(ka, d);
        if (k > 0) {
            u64 b = rl < ql;
            rl -= ql;
            rh -= qh + b;
            v += ka;
        } else {
            u64 t = rl + ql;
            rh += qh + (t < rl);
            rl = t;
            v -= ka;
        }
    }
    for (int it = 0; it < 4 && (i64)rh < 0; it++) {
        u64 t = rl + d;
        rh += (t < rl);
        rl = t;
        v--;
    }
    for (int it = 0; it < 4 && (rh != 0 || rl >= d); it++) {
        u64 b = rl < d;
        rl -= d;
        rh -= b;
        v++;
    }
    return v;
}

// r (2M limbs) = a^2 by columns: the cross products once, doubled, plus
// the squares on the diagonal.
template <int M, bool ASM = false>
FL_DEV void fl_sqr_k(u64 *r, const u64 *a) {
    u64 k0 = 0, k1 = 0;
#pragma unroll
    for (int k = 0; k < 2 * M - 1; k++) {
        u64 x0 = 0, x1 = 0, x2 = 0;
#pragma unroll
        for (int i = 0; i < M; i++) {
            const int j = k - i;
            if (i < j && j < M) fl_mac<ASM>(x0, x1, x2, a[i], a[j]);
        }
        x2 = (x2 << 1) | (x1 >> 63);
        x1 = (x1 << 1) | (x0 >> 63);
        x0 <<= 1;
        if (k % 2 == 0) fl_mac<ASM>(x0, x1, x2, a[k / 2], a[k / 2]);
        x0 += k0;
        u64 c = x0 < k0;
        x1 += c;
        x2 += x1 < c;
        x1 += k1;
        x2 += x1 < k1;
        r[k] = x0;
        k0 = x1;
        k1 = x2;
    }
    r[2 * M - 1] = k0;
}

// fl_divrem with compile-time sizes (unrolled, so register arrays stay in
// registers): u (UL+1 limbs, u[UL] = 0, destroyed; remainder in u[0..LV))
// by v (LV limbs, top bit set); q gets UL - LV + 1 limbs.
// vi = fl_invert(v[LV - 1]) given.
template <int UL, int LV>
FL_DEV void fl_divrem_kv(u64 *q, u64 *u, const u64 *v, u64 vi) {
    u64 vt = v[LV - 1];
    if (LV == 1) {
        u64 r = 0;
#pragma unroll
        for (int j = UL - 1; j >= 0; j--) q[j] = fl_div21_pre(r, u[j], vt, vi, r);
        u[0] = r;
        return;
    }
    u64 v2 = v[LV >= 2 ? LV - 2 : 0];
#pragma unroll
    for (int j = UL - LV; j >= 0; j--) {
        u64 qh = fl_qhat(u[j + LV], u[j + LV - 1], u[j + LV >= 2 ? j + LV - 2 : 0], vt, v2, vi);
        u64 c = 0, br = 0;
#pragma unroll
        for (int i = 0; i < LV; i++) {
            u64 lo = qh * v[i], hi = fl_mulhi(qh, v[i]);
            lo += c;
            hi += lo < c;
            c = hi;
            u64 a = u[j + i];
            u64 d = a - lo;
            u64 b1 = a < lo;
            u64 d2 = d - br;
            u64 b2 = d < br;
            u[j + i] = d2;
            br = b1 | b2;
        }
        u64 a = u[j + LV];
        u64 d = a - c;
        u64 b1 = a < c;
        u64 d2 = d - br;
        u64 b2 = d < br;
        u[j + LV] = d2;
        if (b1 | b2) {
            qh--;
            u64 cc = 0;
#pragma unroll
            for (int i = 0; i < LV; i++) {
                u64 s = u[j + i] + v[i];
                u64 c1 = s < v[i];
                u64 t = s + cc;
                u64 c2 = t < s;
                u[j + i] = t;
                cc = c1 | c2;
            }
            u[j + LV] += cc;
        }
        q[j] = qh;
    }
}

template <int UL, int LV>
FL_DEV void fl_divrem_k(u64 *q, u64 *u, const u64 *v) {
    fl_divrem_kv<UL, LV>(q, u, v, fl_invert_fast(v[LV - 1]));
}

// An approximation s (MM limbs, top bit set) of the square root of the top
// 2*MM limbs nt of a normalized N, by precision doubling: the root of the
// top half, then one Newton step s = (s0 + N/s0) / 2 with s0 = that root
// shifted, dividing by its H limbs only. The levels' divisors mostly share
// their top limb (the root's): (cvt, cvi) keeps the last inverse (cvt = 0:
// none yet). Never trusted: fl_sqrt_fast checks the result by squaring and
// corrects it exactly.
template <int MM>
struct FlSqrtApprox {
    static FL_MEMB void run(const u64 *nt, u64 *s, u64 &cvt, u64 &cvi) {
        constexpr int H = (MM + 1) / 2, D = MM - H, UL = 2 * MM - D;
        u64 rh[H];
        FlSqrtApprox<H>::run(nt + 2 * D, rh, cvt, cvi);
        u64 u[UL + 1], q[MM + 1];
#pragma unroll
        for (int i = 0; i < UL; i++) u[i] = nt[D + i];
        u[UL] = 0;
        if (rh[H - 1] != cvt) {
            cvt = rh[H - 1];
            cvi = fl_invert_fast(cvt);
        }
        fl_divrem_kv<UL, H>(q, u, rh, cvi);
        // (rh * B^D + q) / 2, clamped to MM limbs and to the top bit set.
        u64 qt = q[MM] + fl_add_n<H>(q + D, q + D, rh, H);
#pragma unroll
        for (int i = 0; i < MM; i++) s[i] = (q[i] >> 1) | ((i + 1 < MM ? q[i + 1] : qt) << 63);
        if ((qt >> 1) != 0) {
#pragma unroll
            for (int i = 0; i < MM; i++) s[i] = ~0ull;
        }
        if ((s[MM - 1] >> 63) == 0) {
#pragma unroll
            for (int i = 0; i < MM; i++) s[i] = i == MM - 1 ? 1ull << 63 : 0;
        }
    }
};

template <>
struct FlSqrtApprox<1> {
    // A double square root, then one Newton correction E / 2r computed in
    // doubles from the exact 128-bit residual E = N - r^2.
    static FL_MEMB void run(const u64 *nt, u64 *s, u64 &cvt, u64 &cvi) {
        cvt = 0;
        cvi = 0;
        double T = (double)nt[1] * 18446744073709551616.0 + (double)nt[0];
        double rd = fl_sqrt(T);
        if (rd > 18446744073709549568.0) rd = 18446744073709549568.0;
        u64 r = (u64)rd;
        if ((r >> 63) == 0) r = 1ull << 63;
        u64 lo = r * r, hi = fl_mulhi(r, r);
        u64 el = nt[0] - lo;
        u64 eh = nt[1] - hi - (nt[0] < lo ? 1 : 0);
        double E = (double)(i64)eh * 18446744073709551616.0 + (double)el;
        double dl = E / (2.0 * (double)r);
        if (dl > 1e15) dl = 1e15;
        if (dl < -1e15) dl = -1e15;
        i64 di = (i64)dl;
        u64 r1 = r + (u64)di;
        if (di > 0 && r1 < r) r1 = ~0ull;
        if ((r1 >> 63) == 0) r1 = 1ull << 63;
        // Usually exact after a few +-1 steps on E = N - r1^2: then every
        // level's divisor has the same top limb and one inverse serves.
        lo = r1 * r1;
        hi = fl_mulhi(r1, r1);
        el = nt[0] - lo;
        eh = nt[1] - hi - (nt[0] < lo ? 1 : 0);
        for (int it = 0; it < 3 && (i64)eh < 0 && r1 > (1ull << 63); it++) {
            r1--;
            u64 al = (r1 << 1) | 1, ah = r1 >> 63;
            u64 t = el + al;
            eh += ah + (t < el);
            el = t;
        }
        for (int it = 0; it < 3 && (i64)eh >= 0 && r1 != ~0ull; it++) {
            u64 al = (r1 << 1) | 1, ah = r1 >> 63;
            if (eh < ah || (eh == ah && el < al)) break;
            eh -= ah + (el < al);
            el -= al;
            r1++;
        }
        s[0] = r1;
    }
};

// r (LA+LB limbs) = a * b, by columns, in registers.
template <int LA, int LB>
FL_DEV void fl_mul_k(u64 *r, const u64 *a, const u64 *b) {
    u64 c0 = 0, c1 = 0, c2 = 0;
#pragma unroll
    for (int k = 0; k < LA + LB - 1; k++) {
#pragma unroll
        for (int i = 0; i < LA; i++) {
            const int j = k - i;
            if (j >= 0 && j < LB) fl_mac<false>(c0, c1, c2, a[i], b[j]);
        }
        r[k] = c0;
        c0 = c1;
        c1 = c2;
        c2 = 0;
    }
    r[LA + LB - 1] = c0;
}

// sqrt of a normal positive x of N limbs into N limbs: fl_sqrt_num's N
// (2M limbs, M = N + 1) and its exact floor root and remainder: an
// approximation, then R = N - s^2 exactly and a few +-1 corrections until
// 0 <= R <= 2s. Returns false (the caller takes fl_sqrt_num) if the
// approximation was not within those corrections.
template <int N, bool ASM = false>
FL_DEV bool fl_sqrt_fast(FlOut &o, u64 xh, const u64 *xm, u64 p, u32 rnd, i8 &ret) {
    constexpr int M = N + 1;
    u64 nn[2 * M];
    i64 ex = fl_exp(xh);
    u32 t = (u32)(ex & 1);
#pragma unroll
    for (int i = 0; i < 2 * M; i++) nn[i] = i < 2 * M - N ? 0 : xm[i - (2 * M - N)];
    if (t) {
#pragma unroll
        for (int i = 0; i < 2 * M; i++) nn[i] = (nn[i] >> 1) | (i + 1 < 2 * M ? nn[i + 1] << 63 : 0);
    }
    u64 s[M];
    u64 cvt, cvi;
    FlSqrtApprox<M>::run(nn, s, cvt, cvi);
    // R = N - s^2, 2M+1 limbs two's complement.
    u64 R[2 * M + 1];
    fl_sqr_k<M, ASM>(R, s);
    R[2 * M] = fl_sub_n<2 * M>(R, nn, R, 2 * M) ? ~0ull : 0;
    // R < 0: s -= 1, R += 2s + 1.
    for (int it = 0; it < 4 && (R[2 * M] >> 63); it++) {
        u64 bw = 1;
#pragma unroll
        for (int i = 0; i < M; i++) {
            u64 v = s[i];
            s[i] = v - bw;
            bw = v < bw ? 1 : 0;
        }
        u64 c = 1;
#pragma unroll
        for (int i = 0; i <= 2 * M; i++) {
            u64 a = i < M ? (s[i] << 1) | (i ? s[i - 1] >> 63 : 0) : (i == M ? s[M - 1] >> 63 : 0);
            u64 x = R[i] + a;
            u64 c1 = x < a;
            u64 y = x + c;
            u64 c2 = y < x;
            R[i] = y;
            c = c1 | c2;
        }
    }
    if (R[2 * M] >> 63) return false;
    // R > 2s: R -= 2s + 1, s += 1.
    bool done = false;
    for (int it = 0; it < 5; it++) {
        u64 Dv[2 * M + 1];
        u64 br = 1;  // subtracting 2s + 1: the +1 as an initial borrow
#pragma unroll
        for (int i = 0; i <= 2 * M; i++) {
            u64 a = i < M ? (s[i] << 1) | (i ? s[i - 1] >> 63 : 0) : (i == M ? s[M - 1] >> 63 : 0);
            u64 x = R[i];
            u64 dd = x - a;
            u64 b1 = x < a;
            u64 rr = dd - br;
            u64 b2 = dd < br;
            Dv[i] = rr;
            br = b1 | b2;
        }
        if (Dv[2 * M] >> 63) {
            done = true;
            break;
        }
#pragma unroll
        for (int i = 0; i <= 2 * M; i++) R[i] = Dv[i];
        u64 c = 1;
#pragma unroll
        for (int i = 0; i < M; i++) {
            u64 v = s[i] + c;
            c = v < c ? 1 : 0;
            s[i] = v;
        }
        if (c) return false;
    }
    if (!done || (s[M - 1] >> 63) == 0) return false;
    u64 rem = 0;
#pragma unroll
    for (int i = 0; i <= 2 * M; i++) rem |= R[i];
    // The root s (M = N+1 limbs, top bit set): kept limbs s[1..N], s[0] below.
    ret = fl_round_regs<N>(o, s, rem, (ex + (i64)t) / 2, false, p, rnd);
    return true;
}
