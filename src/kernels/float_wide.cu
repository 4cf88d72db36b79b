// Float add, sub, mul, fma, fms for large precisions (from 17 limbs,
// 1088 bits, up): a GROUP of gs threads (8, 16 or 32 lanes of one warp,
// chosen at run time) per element, operands staged in shared memory, every
// pass over the limbs split across the lanes, carries resolved by
// carry-lookahead over ballots (as int_mul's carry_scan), the product by
// bands of C = 4 columns per lane (register accumulators, PTX carry chains,
// as int_mul's band schoolbook). Same exact integers and the same one
// rounding as float_common.cuh's fl_arith_buf, so the bits are the CPU
// engine's.
//
// Written so that the host can run it (tests/emu/floatwide): code outside
// FW_LANES blocks is uniform over the group (every lane computes the same
// values); FW_LANES bodies are per lane (on the host a loop over the lanes);
// collectives (fw_ballot, fw_sync) sit between them. Within one FW_LANES
// block no lane reads what another lane writes.
#ifdef __CUDACC__
#include "common.cuh"
#include "float_common.cuh"
#endif

// The group: gs lanes at bits [shift, shift + gs) of the warp.
struct FwG {
    u32 gs;
    u32 lane;
    u32 mask;
    u32 shift;
};

#ifdef __CUDA_ARCH__
#define FW_NL 1
#define FW_LI 0
#define FW_LANES for (u32 lane = g.lane, fw_i_ = 0; fw_i_ < 1; fw_i_++)
#define FW_ONE if (g.lane == 0)
FL_DEV u32 fw_ballot(const FwG &g, const bool *pr) {
    u32 b = __ballot_sync(g.mask, pr[0]) >> g.shift;
    return g.gs == 32 ? b : b & ((1u << g.gs) - 1);
}
FL_DEV void fw_sync(const FwG &g) { __syncwarp(g.mask); }
FL_DEV u32 fw_hibit(u32 b) { return 31 - __clz(b); }
FL_DEV u32 fw_lobit(u32 b) { return __ffs(b) - 1; }
#else
#define FW_NL 32
#define FW_LI lane
#ifdef FW_REV
// Lanes in reverse order: a phase that depended on another lane's write in
// the same phase would differ between the two host builds.
#define FW_LANES for (u32 lane = g.gs; lane-- > 0;)
#else
#define FW_LANES for (u32 lane = 0; lane < g.gs; lane++)
#endif
#define FW_ONE
static inline u32 fw_ballot(const FwG &g, const bool *pr) {
    u32 b = 0;
    for (u32 l = 0; l < g.gs; l++) b |= (u32)pr[l] << l;
    return b;
}
static inline void fw_sync(const FwG &) {}
static inline u32 fw_hibit(u32 b) { return 31 - (u32)__builtin_clz(b); }
static inline u32 fw_lobit(u32 b) { return (u32)__builtin_ctz(b); }
#endif

// Lane src's value of a per-lane variable (v: one entry per lane on the
// host), for every lane of the group.
FL_DEV u64 fw_get(const FwG &g, const u64 *v, u32 src) {
#ifdef __CUDA_ARCH__
    return __shfl_sync(g.mask, v[0], src, g.gs);
#else
    return v[src];
#endif
}

// out = the value of the lane below (lane 0: 0). out may be v.
FL_DEV void fw_up(const FwG &g, const u64 *v, u64 *out) {
#ifdef __CUDA_ARCH__
    u64 t = __shfl_up_sync(g.mask, v[0], 1, g.gs);
    out[0] = g.lane ? t : 0;
#else
    for (u32 l = g.gs; l-- > 0;) out[l] = l ? v[l - 1] : 0;
#endif
}

// Product band width in limbs (fw_row is written for 4).
#define FW_C 4
// Shared-memory skew of the product operands: one spare limb every 4, so
// that the lanes' band windows (4 limbs apart) fall in distinct banks.
#define FW_SK(j) ((j) + ((j) >> 2))

// r = a + b + cin, n limbs (b null: a + c0 at limb 0 + cin); the carry
// out. r may be a or b. Lane t adds its own block of ceil(n/gs) limbs with
// a sequential carry; one carry-lookahead over the lanes' generate and
// propagate bits (ballots), then the lanes with a carry in add it.
FL_DEV u32 fw_add(const FwG &g, u64 *r, const u64 *a, const u64 *b, u32 n, u32 cin, u64 c0) {
    u32 B = (n + g.gs - 1) / g.gs;
    bool ge[FW_NL], pr[FW_NL];
    FW_LANES {
        u32 lo = lane * B, hi = lo + B < n ? lo + B : n;
        u64 c = 0, all = ~0ull;
        for (u32 i = lo; i < hi; i++) {
            u64 bv = b ? b[i] : (i == 0 ? c0 : 0);
            u64 s = a[i] + bv;
            u64 c1 = s < bv;
            u64 t = s + c;
            c = c1 | (t < s);
            r[i] = t;
            all &= t;
        }
        ge[FW_LI] = c != 0;
        pr[FW_LI] = all == ~0ull;  // empty blocks pass the carry on
    }
    u32 G = fw_ballot(g, ge), P = fw_ballot(g, pr);
    u32 x = G | P;
    u64 s = (u64)x + G + cin;
    u32 cs = (u32)(s ^ x ^ G);  // bit t: carry into lane t's block
    u32 carry = (u32)((s >> g.gs) & 1);  // bits from gs up of x, G are 0
    FW_LANES {
        if ((cs >> lane) & 1) {
            u32 lo = lane * B, hi = lo + B < n ? lo + B : n;
            for (u32 i = lo; i < hi; i++) {
                if (++r[i] != 0) break;
            }
        }
    }
    fw_sync(g);
    return carry;
}

// r = a - b - bin (b null: a - c0 at limb 0 - bin); the borrow out. As
// fw_add: a block per lane, one lookahead.
FL_DEV u32 fw_sub(const FwG &g, u64 *r, const u64 *a, const u64 *b, u32 n, u32 bin, u64 c0) {
    u32 B = (n + g.gs - 1) / g.gs;
    bool ge[FW_NL], pr[FW_NL];
    FW_LANES {
        u32 lo = lane * B, hi = lo + B < n ? lo + B : n;
        u64 c = 0, any = 0;
        for (u32 i = lo; i < hi; i++) {
            u64 av = a[i], bv = b ? b[i] : (i == 0 ? c0 : 0);
            u64 d = av - bv;
            u64 b1 = av < bv;
            u64 t = d - c;
            c = b1 | (d < c);
            r[i] = t;
            any |= t;
        }
        ge[FW_LI] = c != 0;
        pr[FW_LI] = any == 0;
    }
    u32 G = fw_ballot(g, ge), P = fw_ballot(g, pr);
    u32 x = G | P;
    u64 s = (u64)x + G + bin;
    u32 cs = (u32)(s ^ x ^ G);
    u32 borrow = (u32)((s >> g.gs) & 1);
    FW_LANES {
        if ((cs >> lane) & 1) {
            u32 lo = lane * B, hi = lo + B < n ? lo + B : n;
            for (u32 i = lo; i < hi; i++) {
                u64 v = r[i];
                r[i] = v - 1;
                if (v != 0) break;
            }
        }
    }
    fw_sync(g);
    return borrow;
}

// Any nonzero limb in a[0..n)?
FL_DEV bool fw_any(const FwG &g, const u64 *a, u32 n) {
    bool nz[FW_NL];
    FW_LANES {
        u64 v = 0;
        for (u32 i = lane; i < n; i += g.gs) v |= a[i];
        nz[FW_LI] = v != 0;
    }
    return fw_ballot(g, nz) != 0;
}

// Index of the top nonzero limb of a[0..n) (0 if none).
FL_DEV u32 fw_top(const FwG &g, const u64 *a, u32 n) {
    for (u32 base = (n - 1) / g.gs * g.gs;; base -= g.gs) {
        bool nz[FW_NL];
        FW_LANES {
            u32 i = base + lane;
            nz[FW_LI] = i < n && a[i] != 0;
        }
        u32 b = fw_ballot(g, nz);
        if (b) return base + fw_hibit(b);
        if (base == 0) return 0;
    }
}

// dst = src (n limbs, nonzero) normalized: its top nonzero limb to index
// len - 1, shifted left by lz so that its top bit is set (fl_normalize
// into another buffer); returns len.
FL_DEV u32 fw_normalize(const FwG &g, u64 *dst, const u64 *src, u32 n, u32 &lz) {
    u32 top = fw_top(g, src, n);
    lz = fl_clz(src[top]);
    FW_LANES {
        for (u32 i = lane; i <= top; i += g.gs)
            dst[i] = lz ? (src[i] << lz) | (i ? src[i - 1] >> (64 - lz) : 0) : src[i];
    }
    fw_sync(g);
    return top + 1;
}

// fl_cmp_mant: top-aligned comparison of two mantissas: -1, 0, 1.
FL_DEV int fw_cmp_mant(const FwG &g, const u64 *a, u32 la, const u64 *b, u32 lb) {
    u32 mx = la > lb ? la : lb;
    for (u32 base = 1; base <= mx; base += g.gs) {
        bool df[FW_NL];
        FW_LANES {
            u32 k = base + lane;
            bool d = false;
            if (k <= mx) {
                u64 x = k <= la ? a[la - k] : 0, y = k <= lb ? b[lb - k] : 0;
                d = x != y;
            }
            df[FW_LI] = d;
        }
        u32 bits = fw_ballot(g, df);
        if (bits) {
            u32 k = base + fw_lobit(bits);
            u64 x = k <= la ? a[la - k] : 0, y = k <= lb ? b[lb - k] : 0;
            return x < y ? -1 : 1;
        }
    }
    return 0;
}

// fl_shift_into: yb (w limbs) = floor(Ya / 2^d), Ya the window with ym at
// limbs base..; whether nonzero bits were shifted out.
FL_DEV bool fw_shift_into(const FwG &g, u64 *yb, u32 w, const u64 *ym, u32 ly, u32 base, u64 d) {
    if (d >= 64ull * w) {
        FW_LANES {
            for (u32 i = lane; i < w; i += g.gs) yb[i] = 0;
        }
        fw_sync(g);
        return true;
    }
    u32 q = (u32)(d / 64), r = (u32)(d % 64);
    bool st[FW_NL];
    FW_LANES {
        for (u32 i = lane; i < w; i += g.gs) {
            u32 t = i + q;
            u64 lo = (t >= base && t < base + ly) ? ym[t - base] : 0;
            u64 hi = (t + 1 >= base && t + 1 < base + ly) ? ym[t + 1 - base] : 0;
            yb[i] = r ? (lo >> r) | (hi << (64 - r)) : lo;
        }
        u64 v = 0;
        u32 lim = q < base + ly ? q : base + ly;
        for (u32 t = base + lane; t < lim; t += g.gs) v |= ym[t - base];
        st[FW_LI] = v != 0;
    }
    bool sticky = fw_ballot(g, st) != 0;
    if (r && q >= base && q < base + ly && (ym[q - base] << (64 - r)) != 0) sticky = true;
    fw_sync(g);
    return sticky;
}

FL_DEV void fw_special(const FwG &g, FlOut &o, u32 cls, bool neg) {
    o.head = fl_head(fl_mk_tag(cls, neg), 0);
    FW_LANES {
        for (u32 i = lane; i < o.n; i += g.gs) o.m[i] = 0;
    }
    fw_sync(g);
}

// fl_finish (mpfr_check_range) with the limb writes split across the lanes.
FL_DEV i8 fw_finish(const FwG &g, FlOut &o, bool neg, i64 e, i8 t, bool inc, u64 p, u32 rnd) {
    u32 n = o.n;
    if (e > FL_EMAX) {
        if (fl_like_zero(rnd, neg)) {
            u32 low = (u32)(64ull * n - p);
            FW_LANES {
                for (u32 i = lane; i < n; i += g.gs) o.m[i] = i == 0 ? ~((1ull << low) - 1) : ~0ull;
            }
            fw_sync(g);
            o.head = fl_head(FL_NORMAL | (neg ? FL_NEG : 0u), FL_EMAX);
            return fl_ternary(false, neg);
        }
        fw_special(g, o, FL_INF, neg);
        return fl_ternary(true, neg);
    }
    if (e < FL_EMIN) {
        bool to_min;
        if (rnd == FL_RN) {
            bool pow2 = o.m[n - 1] == (1ull << 63) && !fw_any(g, o.m, n - 1);
            to_min = !(e < FL_EMIN - 1 || (pow2 && (t == 0 || inc)));
        } else {
            to_min = fl_like_away(rnd, neg);
        }
        fw_sync(g);
        if (to_min) {
            FW_LANES {
                for (u32 i = lane; i < n; i += g.gs) o.m[i] = i == n - 1 ? 1ull << 63 : 0;
            }
            fw_sync(g);
            o.head = fl_head(FL_NORMAL | (neg ? FL_NEG : 0u), FL_EMIN);
            return fl_ternary(true, neg);
        }
        fw_special(g, o, FL_ZERO, neg);
        return fl_ternary(false, neg);
    }
    o.head = fl_head(FL_NORMAL | (neg ? FL_NEG : 0u), e);
    return t;
}

// fl_round_to: the top n limbs of src (s limbs, left-aligned) rounded into
// o.m, the sticky bit below; then the range check.
// (Out of line, the group and the output by value: no reloads from the
// stack after each store through a generic pointer.)
FL_NOINL i8 fw_round_to(const FwG g, FlOut &oref, bool neg, i64 e, const u64 *src, u32 s,
                        bool sticky, u64 p, u32 rnd) {
    FlOut o = oref;
    u32 n = o.n;
    u32 low = (u32)(64ull * n - p);
    u32 nb = s > n ? s - n : 0;
    u64 m0 = s >= n ? src[s - n] : 0;
    bool rb, st;
    if (low > 0) {
        u64 mask = (1ull << low) - 1;
        rb = (m0 >> (low - 1)) & 1;
        st = (m0 & (mask >> 1)) != 0 || sticky || fw_any(g, src, nb);
        m0 &= ~mask;
    } else if (nb > 0) {
        u64 top = src[nb - 1];
        rb = top >> 63;
        st = (top << 1) != 0 || sticky || fw_any(g, src, nb - 1);
    } else {
        rb = false;
        st = sticky;
    }
    bool inexact = rb || st, inc;
    switch (rnd) {
    case FL_RN: inc = rb && (st || ((m0 >> low) & 1)); break;
    case FL_RZ: inc = false; break;
    case FL_RU: inc = inexact && !neg; break;
    case FL_RD: inc = inexact && neg; break;
    default: inc = inexact; break;
    }
    FW_LANES {
        for (u32 i = lane; i < n; i += g.gs) o.m[i] = i == 0 ? m0 : (i + s >= n ? src[i + s - n] : 0);
    }
    fw_sync(g);
    if (inc && fw_add(g, o.m, o.m, nullptr, n, 0, 1ull << low)) {
        // Carry out of the top: every limb wrapped to 0; the value is 2^k.
        FW_ONE { o.m[n - 1] = 1ull << 63; }
        fw_sync(g);
        e += 1;
    }
    i8 t = inexact ? fl_ternary(inc, neg) : 0;
    t = fw_finish(g, o, neg, e, t, inc, p, rnd);
    oref.head = o.head;
    return t;
}

// acc (6 limbs) += a * w (4 limbs): two carry chains, the low halves of the
// products at acc[0..4), the high halves at acc[1..5).
FL_DEV void fw_row(u64 *acc, u64 a, u64 w0, u64 w1, u64 w2, u64 w3) {
#ifdef __CUDA_ARCH__
    asm("mad.lo.cc.u64 %0, %6, %7, %0;\n\t"
        "madc.lo.cc.u64 %1, %6, %8, %1;\n\t"
        "madc.lo.cc.u64 %2, %6, %9, %2;\n\t"
        "madc.lo.cc.u64 %3, %6, %10, %3;\n\t"
        "addc.cc.u64 %4, %4, 0;\n\t"
        "addc.u64 %5, %5, 0;\n\t"
        "mad.hi.cc.u64 %1, %6, %7, %1;\n\t"
        "madc.hi.cc.u64 %2, %6, %8, %2;\n\t"
        "madc.hi.cc.u64 %3, %6, %9, %3;\n\t"
        "madc.hi.cc.u64 %4, %6, %10, %4;\n\t"
        "addc.u64 %5, %5, 0;"
        : "+l"(acc[0]), "+l"(acc[1]), "+l"(acc[2]), "+l"(acc[3]), "+l"(acc[4]), "+l"(acc[5])
        : "l"(a), "l"(w0), "l"(w1), "l"(w2), "l"(w3));
#else
    const u64 w[FW_C] = {w0, w1, w2, w3};
    u64 pr[FW_C + 1];
    u64 c = 0;
    for (int j = 0; j < FW_C; j++) {
        unsigned __int128 t = (unsigned __int128)a * w[j] + c;
        pr[j] = (u64)t;
        c = (u64)(t >> 64);
    }
    pr[FW_C] = c;
    u64 cc = 0;
    for (int j = 0; j < FW_C + 2; j++) {
        unsigned __int128 t = (unsigned __int128)acc[j] + (j <= FW_C ? pr[j] : 0) + cc;
        acc[j] = (u64)t;
        cc = (u64)(t >> 64);
    }
#endif
}

// The exact product of X (la limbs, skewed) and Y (lb limbs, skewed, FW_C
// zero limbs on either side: Y[FW_SK(j + FW_C)] is limb j) into P (nb*C
// limbs), Q (nb*C + C limbs) as scratch. Band k (columns kC..kC+C) is
// summed in registers by one lane (bands dealt out back and forth so that
// every lane gets a similar number of rows); its C low limbs go to P, its
// 2-limb overflow to Q at the next band; then P += Q. Returns P normalized
// (top bit set) in P or Q (la + lb limbs), lz the shift (0 or 1). Bands
// below kb are left out (zeros): a short product (see fw_element_in).
FL_NOINL u64 *fw_product(const FwG g, const u64 *X, u32 la, const u64 *Y, u32 lb, u64 *P, u64 *Q,
                         u32 &lz, u32 kb) {
    const u32 C = FW_C;
    u32 nb = (la + lb + C - 1) / C;
    FW_LANES {
        for (u32 r = 0;; r++) {
            u32 k = r * g.gs + ((r & 1) ? g.gs - 1 - lane : lane);
            if (r * g.gs >= nb) break;
            if (k >= nb) continue;
            u32 k0 = k * C;
            u32 ilo = k0 + 1 > lb ? k0 + 1 - lb : 0;
            u32 ihi = k0 + C < la ? k0 + C : la;
            if (k < kb) ihi = ilo;
            u64 acc[C + 2] = {0, 0, 0, 0, 0, 0};
            // Window v0..v3: limbs k0 - i .. k0 - i + C of y (position +
            // C); each row brings in one limb below, the names rotate over
            // four rows (no register moves).
            u32 wp = k0 - ilo + C;
            u64 v0 = Y[FW_SK(wp)], v1 = Y[FW_SK(wp + 1)], v2 = Y[FW_SK(wp + 2)],
                v3 = Y[FW_SK(wp + 3)];
            u32 i = ilo;
            for (; i + 4 <= ihi; i += 4, wp -= 4) {
                u64 a0 = X[FW_SK(i)], a1 = X[FW_SK(i + 1)], a2 = X[FW_SK(i + 2)],
                    a3 = X[FW_SK(i + 3)];
                fw_row(acc, a0, v0, v1, v2, v3);
                v3 = Y[FW_SK(wp - 1)];
                fw_row(acc, a1, v3, v0, v1, v2);
                v2 = Y[FW_SK(wp - 2)];
                fw_row(acc, a2, v2, v3, v0, v1);
                v1 = Y[FW_SK(wp - 3)];
                fw_row(acc, a3, v1, v2, v3, v0);
                v0 = Y[FW_SK(wp - 4)];
            }
            for (; i < ihi; i++) {
                fw_row(acc, X[FW_SK(i)], v0, v1, v2, v3);
                v3 = v2;
                v2 = v1;
                v1 = v0;
                wp--;
                v0 = Y[FW_SK(wp)];
            }
#pragma unroll
            for (u32 j = 0; j < C; j++) {
                P[k0 + j] = acc[j];
                Q[k0 + C + j] = j < 2 ? acc[C + j] : 0;
            }
            if (k == 0) {
#pragma unroll
                for (u32 j = 0; j < C; j++) Q[j] = 0;
            }
        }
    }
    fw_sync(g);
    fw_add(g, P, P, Q, nb * C, 0, 0);
    u32 l = la + lb;
    if ((P[l - 1] >> 63) != 0) {
        lz = 0;
        return P;
    }
    FW_LANES {
        for (u32 i = lane; i < l; i += g.gs) Q[i] = (P[i] << 1) | (i ? P[i - 1] >> 63 : 0);
    }
    fw_sync(g);
    lz = 1;
    return Q;
}

// x * y, finite nonzero (X, Y staged for fw_product; P, Q its buffers);
// e the sum of the exponents.
FL_NOINL i8 fw_mul_num(const FwG g, FlOut &oref, bool neg, i64 e, const u64 *X, u32 lx,
                       const u64 *Y, u32 ly, u64 *P, u64 *Q, u64 p, u32 rnd) {
    FlOut o = oref;
    // Short product: the bands from column K = C * kb, K <= l - n - 3.
    // The columns left out add less than K + 2 units to limb K + 1
    // (column k is below (k + 1) B^2); so if that limb u of the
    // computed sum has 1 <= u and u + K + 1 < 2^64, no carry crosses
    // it, every bit from limb K + 2 up (the kept bits and the round
    // bit, two limbs above) is exact, and some bit below the round
    // bit is set: the rounding and the ternary value are the exact
    // product's. Otherwise the full product.
    u32 l = lx + ly, sh;
    u32 kb = l >= o.n + 3 ? (l - o.n - 3) / FW_C : 0;
    u64 *R = fw_product(g, X, lx, Y, ly, P, Q, sh, kb);
    bool sticky = false;
    if (kb > 0) {
        u32 K = kb * FW_C;
        u64 u = P[K + 1];
        if (u != 0 && u <= ~0ull - (u64)(K + 2)) sticky = true;
        else R = fw_product(g, X, lx, Y, ly, P, Q, sh, 0);
    }
    i8 t = fw_round_to(g, o, neg, e - (i64)sh, R, l, sticky, p, rnd);
    oref.head = o.head;
    return t;
}

// fl_add_num: x + y, finite nonzero; window w = max(lx, ly, n) + 1; BF and
// YB w + 1 limbs each.
FL_NOINL i8 fw_add_num(const FwG g, FlOut &oref, FlNum x, FlNum y, u64 p, u32 rnd, u64 *BF,
                       u64 *YB) {
    FlOut o = oref;
    int ord = x.e != y.e ? (x.e < y.e ? -1 : 1) : fw_cmp_mant(g, x.m, x.l, y.m, y.l);
    if (ord < 0) {
        FlNum t = x;
        x = y;
        y = t;
    }
    bool sub = x.neg != y.neg;
    if (sub && ord == 0) {
        fw_special(g, o, FL_ZERO, rnd == FL_RD);
        oref.head = o.head;
        return 0;
    }
    u32 w = (x.l > y.l ? x.l : y.l);
    w = (w > o.n ? w : o.n) + 1;
    u64 d = (u64)(x.e - y.e);
    u32 off = w - x.l;
    FW_LANES {
        for (u32 i = lane; i <= w; i += g.gs) BF[i] = (i >= off && i < w) ? x.m[i - off] : 0;
    }
    bool sticky = fw_shift_into(g, YB, w, y.m, y.l, w - y.l, d);
    if (sub) {
        fw_sub(g, BF, BF, YB, w, 0, 0);
        if (sticky) fw_sub(g, BF, BF, nullptr, w, 1, 0);
    } else {
        u32 c = fw_add(g, BF, BF, YB, w, 0, 0);
        FW_ONE { BF[w] = c; }
        fw_sync(g);
    }
    // Normalize into YB: the top nonzero limb to the top, then its top bit.
    u32 lz;
    u32 len = fw_normalize(g, YB, BF, w + 1, lz);
    i64 e = x.e + 64 * ((i64)len - (i64)w) - (i64)lz;
    i8 t = fw_round_to(g, o, x.neg, e, YB, len, sticky, p, rnd);
    oref.head = o.head;
    return t;
}

// Knuth's algorithm D with the divisor and the running remainder in
// registers (no shared-memory pass per quotient digit): lane t holds limbs
// [tB, tB + B) of V' = V B^pad (pad = gs B - ly zero limbs below, so that
// every lane holds B limbs) and the same limbs of the remainder R, whose
// limb above them (rt) every lane keeps. The dividend is U' = x B^(k + pad)
// (x: lx limbs, in shared memory), its limbs coming in at the bottom of R
// one per step. Per digit: the estimate from the top limbs (shuffled from
// the top lane), R -= qhat V' as each lane's block with its limb carry
// (GMP's submul_1), the carries passed one lane up and subtracted, one
// borrow lookahead over ballots; V' added back when the estimate was one
// too large. Q gets the ul - ly + 1 digits (ul = lx + k), rem (if given)
// the remainder's ly limbs; returns whether the remainder is nonzero.
template <int B>
FL_NOINL bool fw_divreg(const FwG g, u64 *Q, const u64 *X, u32 lx, u32 k, const u64 *V, u32 ly,
                        u64 *rem = nullptr) {
    u32 lp = g.gs * B, pad = lp - ly;
    u32 ul = lx + k + pad;  // U' limbs below its zero top limb
    u32 x0 = k + pad;       // U' limb of x's limb 0
    u64 r[FW_NL][B], v[FW_NL][B];
    FW_LANES {
#pragma unroll
        for (int b = 0; b < B; b++) {
            u32 i = lane * B + b, ui = ul - lp + i;
            v[FW_LI][b] = i >= pad ? V[i - pad] : 0;
            r[FW_LI][b] = ui >= x0 && ui < x0 + lx ? X[ui - x0] : 0;
        }
    }
    u64 vt = V[ly - 1], v2 = ly >= 2 ? V[ly - 2] : 0;
    u64 vi = fl_invert_fast(vt);
    u64 rt = 0;
    u64 t1[FW_NL], t0[FW_NL];
    for (u32 j = ul - lp + 1; j-- > 0;) {
        FW_LANES {
            (void)lane;
            t1[FW_LI] = r[FW_LI][B - 1];
            t0[FW_LI] = r[FW_LI][B - 2];
        }
        u64 qh = fl_qhat(rt, fw_get(g, t1, g.gs - 1), fw_get(g, t0, g.gs - 1), vt, v2, vi);
        if (qh != 0) {
            // Each block minus qhat times its V' limbs; t1: its carry.
            FW_LANES {
                (void)lane;
                u64 c = 0;
#pragma unroll
                for (int b = 0; b < B; b++) {
                    u64 lo = qh * v[FW_LI][b], hi = fl_mulhi(qh, v[FW_LI][b]);
                    lo += c;
                    hi += lo < c;
                    u64 rv = r[FW_LI][b], d = rv - lo;
                    hi += d > rv;
                    r[FW_LI][b] = d;
                    c = hi;
                }
                t1[FW_LI] = c;
            }
            u64 ctop = fw_get(g, t1, g.gs - 1);
            fw_up(g, t1, t0);
            // The carry of the lane below, then one borrow lookahead.
            bool ge[FW_NL], pr[FW_NL];
            FW_LANES {
                (void)lane;
                u64 bw = t0[FW_LI], any = 0;
#pragma unroll
                for (int b = 0; b < B; b++) {
                    u64 rv = r[FW_LI][b];
                    r[FW_LI][b] = rv - bw;
                    bw = rv < bw;
                    any |= r[FW_LI][b];
                }
                ge[FW_LI] = bw != 0;
                pr[FW_LI] = any == 0;
            }
            u32 G = fw_ballot(g, ge), P = fw_ballot(g, pr);
            u32 x = G | P;
            u64 s = (u64)x + G;
            u32 cs = (u32)(s ^ x ^ G);
            u32 bout = (u32)((s >> g.gs) & 1);
            FW_LANES {
                u64 bw = (cs >> lane) & 1;
#pragma unroll
                for (int b = 0; b < B; b++) {
                    u64 rv = r[FW_LI][b];
                    r[FW_LI][b] = rv - bw;
                    bw = rv < bw;
                }
            }
            // rt - ctop - bout < 0: one too many; add V' back (its carry
            // out of the top cancels the borrow).
            if (ctop > rt || (ctop == rt && bout)) {
                qh--;
                FW_LANES {
                    (void)lane;
                    u64 c = 0, all = ~0ull;
#pragma unroll
                    for (int b = 0; b < B; b++) {
                        u64 sv = r[FW_LI][b] + v[FW_LI][b];
                        u64 c1 = sv < v[FW_LI][b];
                        u64 tv = sv + c;
                        c = c1 | (tv < sv);
                        r[FW_LI][b] = tv;
                        all &= tv;
                    }
                    ge[FW_LI] = c != 0;
                    pr[FW_LI] = all == ~0ull;
                }
                G = fw_ballot(g, ge);
                P = fw_ballot(g, pr);
                x = G | P;
                s = (u64)x + G;
                cs = (u32)(s ^ x ^ G);
                FW_LANES {
                    u64 c = (cs >> lane) & 1;
#pragma unroll
                    for (int b = 0; b < B; b++) {
                        u64 tv = r[FW_LI][b] + c;
                        c = tv < c;
                        r[FW_LI][b] = tv;
                    }
                }
            }
        }
        FW_ONE { Q[j] = qh; }
        if (j > 0) {
            // R = R B + U'[j - 1] (its top limb, now rt, is below vt).
            FW_LANES {
                (void)lane;
                t1[FW_LI] = r[FW_LI][B - 1];
            }
            rt = fw_get(g, t1, g.gs - 1);
            fw_up(g, t1, t0);
            u32 ui = j - 1;
            u64 nx = ui >= x0 && ui < x0 + lx ? X[ui - x0] : 0;
            FW_LANES {
#pragma unroll
                for (int b = B - 1; b > 0; b--) r[FW_LI][b] = r[FW_LI][b - 1];
                r[FW_LI][0] = lane ? t0[FW_LI] : nx;
            }
        }
    }
    bool nz[FW_NL];
    FW_LANES {
        u64 any = 0;
#pragma unroll
        for (int b = 0; b < B; b++) {
            any |= r[FW_LI][b];
            u32 i = lane * B + b;
            if (rem && i >= pad) rem[i - pad] = r[FW_LI][b];
        }
        nz[FW_LI] = any != 0;
    }
    bool sticky = fw_ballot(g, nz) != 0;
    fw_sync(g);
    return sticky;
}

// fl_div_num: x / y, finite nonzero, x (lx limbs) and y (ly) staged in
// shared memory: U = x B^k divided by fw_divreg<B> into Q (ul - ly + 1
// limbs, ul = lx + k), normalized into NQ and rounded; sticky: the
// remainder is nonzero.
template <int B>
FL_NOINL i8 fw_div_num(const FwG g, FlOut &oref, bool neg, i64 e0, const u64 *X, u32 lx,
                       const u64 *V, u32 ly, u32 k, u64 *Q, u64 *NQ, u64 p, u32 rnd) {
    FlOut o = oref;
    u32 ql = lx + k - ly + 1;
    bool sticky = fw_divreg<B>(g, Q, X, lx, k, V, ly);
    u32 lz;
    u32 qs = fw_normalize(g, NQ, Q, ql, lz);
    i64 e = e0 + 64 * ((i64)ly + (i64)qs - (i64)lx - (i64)k) - (i64)lz;
    i8 t = fw_round_to(g, o, neg, e, NQ, qs, sticky, p, rnd);
    oref.head = o.head;
    return t;
}

// Stages a (l limbs) as both product operands of fw_product (skewed; Y
// with FW_C zero limbs on either side).
FL_DEV void fw_stage_sq(const FwG &g, u64 *Xs, u64 *Ys, const u64 *a, u32 l) {
    FW_LANES {
        for (u32 i = lane; i < l; i += g.gs) Xs[FW_SK(i)] = a[i];
        for (u32 u = lane; u < l + 2 * FW_C; u += g.gs)
            Ys[FW_SK(u)] = (u >= FW_C && u < FW_C + l) ? a[u - FW_C] : 0;
    }
    fw_sync(g);
}

// Buffers of the group square root (fw_layout's sqrt case).
struct FwSq {
    u64 *nn, *s, *r, *q, *qq, *u, *xs, *ys, *p, *pq;
};

// fl_sqrt_num: sqrt of a finite positive x (xm, lx limbs): N = the mantissa
// at the top of 2m limbs (m = max(n + 1, lx/2 + 1)), shifted right by the
// exponent's parity; its floor root s and remainder r = N - s^2 by
// Zimmermann's Karatsuba square root (GMP's mpn_dc_sqrtrem), levels mm = 1,
// ..., ceil(m/2), m: from the root s' and remainder r' (<= 2s') of the top
// 2h limbs of the top 2mm (h = ceil(mm/2), l = mm - h; N's top limb is at
// least B/4), (q, u) = divrem(r' B^l + a1, 2s') (a1: the next l limbs),
// s = s' B^l + q, r = u B^l + a0 - q^2, and if r < 0, r += 2s - 1, s -= 1.
// The division by 2s' is one by s' (normalized; fw_divreg<B>, gs B >= h):
// q1 = floor(A / s'), q = q1 / 2, u = (A mod s') + s' (q1 mod 2). Sticky:
// r != 0. One division of l + 2 digits and one square of l + 1 limbs per
// level (the Newton step s = (s + N/s) / 2 cost a division of mm + 1 digits
// and a square of mm limbs).
template <int B>
FL_NOINL i8 fw_sqrt_num(const FwG g, FlOut &oref, i64 ex, const u64 *xm, u32 lx, FwSq b, u64 p,
                        u32 rnd) {
    FlOut o = oref;
    u32 n = o.n;
    u32 m = n + 1 > lx / 2 + 1 ? n + 1 : lx / 2 + 1;
    u32 t = (u32)(ex & 1);
    u32 off = 2 * m - lx;
    FW_LANES {
        for (u32 i = lane; i < 2 * m; i += g.gs) {
            u64 a = i >= off ? xm[i - off] : 0;
            u64 a1 = i + 1 < 2 * m && i + 1 >= off ? xm[i + 1 - off] : 0;
            b.nn[i] = t ? (a >> 1) | (a1 << 63) : a;
        }
    }
    fw_sync(g);
    // Levels m, ceil(m/2), ..., 1: nl of them (level k: k halvings of m).
    u32 nl = 1;
    for (u32 mm = m; mm > 1; mm = (mm + 1) / 2) nl++;
    // Base level (one limb), every lane alike in registers: s and r = N -
    // s^2 (at most 2s: two limbs).
    {
        u64 n1 = b.nn[2 * m - 1], n0 = b.nn[2 * m - 2];
        u64 s1[1] = {fl_sqrt_top(n1, n0)}, un1[3], q1[3];
        fl_isqrt_level(b.nn + 2 * m - 2, 1, s1, un1, q1);
        u64 lo = s1[0] * s1[0], hi = fl_mulhi(s1[0], s1[0]);
        FW_ONE {
            b.s[0] = s1[0];
            b.r[0] = n0 - lo;
            b.r[1] = n1 - hi - (n0 < lo);
        }
        fw_sync(g);
    }
    for (u32 k = nl - 1; k-- > 0;) {
        u32 mm = m;
        for (u32 i = 0; i < k; i++) mm = (mm + 1) / 2;
        u32 h = (mm + 1) / 2, l = mm - h;
        const u64 *nt = b.nn + 2 * (m - mm);
        // A = r' B^l + a1 (mm + 1 limbs, in pq), divided by s'.
        FW_LANES {
            for (u32 i = lane; i <= mm; i += g.gs) b.pq[i] = i < l ? nt[l + i] : b.r[i - l];
        }
        fw_sync(g);
        fw_divreg<B>(g, b.q, b.pq, mm + 1, 0, b.s, h, b.u);  // q1: l + 2 limbs
        bool odd = b.q[0] & 1;
        FW_LANES {
            for (u32 i = lane; i <= l; i += g.gs) b.qq[i] = (b.q[i] >> 1) | (b.q[i + 1] << 63);
        }
        fw_sync(g);
        u32 uc = odd ? fw_add(g, b.u, b.u, b.s, h, 0, 0) : 0;
        // r = u B^l + a0 (mm + 1 limbs), minus q^2 (2l + 2 limbs).
        FW_LANES {
            for (u32 i = lane; i <= mm; i += g.gs)
                b.r[i] = i < l ? nt[i] : (i < mm ? b.u[i - l] : (u64)uc);
        }
        fw_stage_sq(g, b.xs, b.ys, b.qq, l + 1);
        u32 sh;
        fw_product(g, b.xs, l + 1, b.ys, l + 1, b.p, b.pq, sh, 0);
        // (q^2 <= B^2l: its limbs from mm + 1 up, when h = l, are zero.)
        u32 lq = 2 * l + 2 < mm + 1 ? 2 * l + 2 : mm + 1;
        u32 bw = fw_sub(g, b.r, b.r, b.p, lq, 0, 0);
        if (mm + 1 > lq) bw = fw_sub(g, b.r + lq, b.r + lq, nullptr, mm + 1 - lq, bw, 0);
        // s = s' B^l + q (mm + 1 limbs: q may be B^l).
        FW_LANES {
            for (u32 i = lane; i < h; i += g.gs) b.pq[i] = b.s[i];
        }
        fw_sync(g);
        FW_LANES {
            for (u32 i = lane; i <= mm; i += g.gs)
                b.s[i] = i < l ? b.qq[i] : (i < mm ? b.pq[i - l] : 0);
        }
        fw_sync(g);
        u32 sc = fw_add(g, b.s + l, b.s + l, nullptr, h, 0, b.qq[l]);
        FW_ONE { b.s[mm] = sc; }
        fw_sync(g);
        if (bw) {
            // r < 0: s -= 1, r += 2s + 1 (the new s).
            fw_sub(g, b.s, b.s, nullptr, mm + 1, 1, 0);
            fw_add(g, b.r, b.r, b.s, mm + 1, 1, 0);
            fw_add(g, b.r, b.r, b.s, mm + 1, 0, 0);
        }
    }
    bool sticky = fw_any(g, b.r, m + 1);
    fw_sync(g);
    i8 r = fw_round_to(g, o, false, (ex + (i64)t) / 2, b.s, m, sticky, p, rnd);
    oref.head = o.head;
    return r;
}

// Shared-memory layout of one group (limb offsets; total in `tot`). The
// host (src/float/cuda.rs, wide_smem_limbs) computes the same total.
struct FwLay {
    u32 x, y, z, p, q, bf, yb, r, tot;
};

// The square root's buffers after X (lx limbs): NN (2m), S (m + 1), R, Q,
// QQ (m + 2), U (m + 1), the square's operands and buffers; fw_layout
// counts the same sizes.
FL_DEV void fw_sq_layout(u32 n, u32 lx, u64 *S0, FwSq *b) {
    u32 m = n + 1 > lx / 2 + 1 ? n + 1 : lx / 2 + 1;
    u32 nbc = (2 * m + FW_C - 1) / FW_C * FW_C;
    u32 sz[10] = {2 * m, m + 1, m + 2, m + 2, m + 2, m + 1, FW_SK(m) + 1,
                  FW_SK(m + 2 * FW_C) + 1, nbc, nbc + FW_C};
    u64 **f[10] = {&b->nn, &b->s, &b->r, &b->q, &b->qq, &b->u, &b->xs, &b->ys, &b->p, &b->pq};
    u32 c = 0;
    for (int i = 0; i < 10; i++) {
        *f[i] = S0 + c;
        c += sz[i];
    }
}

FL_DEV FwLay fw_layout(u32 op, u32 n, u32 lx, u32 ly, u32 lz) {
    FwLay L;
    bool prod = op == FL_OP_MUL || op == FL_OP_FMA || op == FL_OP_FMS;
    u32 c = 0;
    L.x = c;
    c += prod ? FW_SK(lx) + 1 : lx;
    L.y = c;
    c += prod ? FW_SK(ly + 2 * FW_C) + 1 : ly;
    L.z = c;
    c += (op == FL_OP_FMA || op == FL_OP_FMS) ? lz : 0;
    u32 nbc = prod ? (lx + ly + FW_C - 1) / FW_C * FW_C : 0;
    L.p = c;
    c += nbc;
    L.q = c;
    c += prod ? nbc + FW_C : 0;
    if (op == FL_OP_SQRT) {
        // X (staged above), then fw_sq_layout's buffers, the result.
        // (fw_sq_layout's sizes; ly is 0 here, so they start at L.y.)
        u32 m = n + 1 > lx / 2 + 1 ? n + 1 : lx / 2 + 1;
        u32 nbc = (2 * m + FW_C - 1) / FW_C * FW_C;
        c += 7 * m + 8 + FW_SK(m) + 1 + FW_SK(m + 2 * FW_C) + 1 + 2 * nbc + FW_C;
        L.r = c;
        c += n;
        L.tot = c;
        return L;
    }
    if (op == FL_OP_DIV) {
        // X, Y (staged above), Q and NQ (the quotient's ul - ly + 1
        // limbs, ul = max(lx, ly + n + 1)), the result.
        u32 ul = lx > ly + n + 1 ? lx : ly + n + 1, ql = ul - ly + 1;
        L.bf = c;  // Q
        c += ql;
        L.yb = c;  // NQ
        c += ql;
        L.r = c;
        c += n;
        L.tot = c;
        return L;
    }
    u32 w = 0;
    if (op == FL_OP_ADD || op == FL_OP_SUB) {
        w = lx > ly ? lx : ly;
        w = (w > n ? w : n) + 1;
    } else if (op != FL_OP_MUL) {
        w = lx + ly > lz ? lx + ly : lz;
        w = (w > n ? w : n) + 1;
    }
    L.bf = c;
    c += w ? w + 1 : 0;
    L.yb = c;
    c += w ? w + 1 : 0;
    L.r = c;  // the result, rounded here, then copied out
    c += n;
    L.tot = c;
    return L;
}

// fw_element's work, the result into o.m = the shared region's R. MODE 0:
// add, sub, mul, fma, fms; 1: div (DB limbs of the divisor per lane); 2:
// sqrt (each its own kernel: the others keep their registers).
template <int MODE, int DB>
FL_DEV i8 fw_element_in(const FwG &g, u64 *S, const FwLay &L, u32 op, u32 rnd, u64 p, FlOut &o,
                        u64 xh, const u64 *xm, u32 lx, u64 yh, const u64 *ym, u32 ly, u64 zh,
                        const u64 *zm, u32 lz) {
    bool prod = op == FL_OP_MUL || op == FL_OP_FMA || op == FL_OP_FMS;
    bool fma = op == FL_OP_FMA || op == FL_OP_FMS;
    u64 *X = S + L.x, *Y = S + L.y, *Z = S + L.z;
    // Stage the operands (coalesced: consecutive lanes, consecutive limbs).
    u32 dk = ly + o.n + 1 > lx ? ly + o.n + 1 - lx : 0;  // division: U = x B^dk
    FW_LANES {
        if (prod) {
            for (u32 i = lane; i < lx; i += g.gs) X[FW_SK(i)] = xm[i];
            for (u32 u = lane; u < ly + 2 * FW_C; u += g.gs)
                Y[FW_SK(u)] = (u >= FW_C && u < FW_C + ly) ? ym[u - FW_C] : 0;
        } else {
            for (u32 i = lane; i < lx; i += g.gs) X[i] = xm[i];
            for (u32 i = lane; i < ly; i += g.gs) Y[i] = ym[i];
        }
        if (fma)
            for (u32 i = lane; i < lz; i += g.gs) Z[i] = zm[i];
    }
    fw_sync(g);
    u32 xt = fl_tag(xh), yt = fl_tag(yh), zt = fl_tag(zh);
    u32 cx = xt & 3, cy = yt & 3, cz = zt & 3;
    bool xn = (xt & FL_NEG) != 0, yn = (yt & FL_NEG) != 0, zn = (zt & FL_NEG) != 0;
    if (op == FL_OP_ADD || op == FL_OP_SUB) {
        yn = yn != (op == FL_OP_SUB);
        if (cx == FL_NAN || cy == FL_NAN) fw_special(g, o, FL_NAN, false);
        else if (cx == FL_INF && cy == FL_INF && xn != yn) fw_special(g, o, FL_NAN, false);
        else if (cx == FL_INF) fw_special(g, o, FL_INF, xn);
        else if (cy == FL_INF) fw_special(g, o, FL_INF, yn);
        else if (cx == FL_ZERO && cy == FL_ZERO)
            fw_special(g, o, FL_ZERO, xn == yn ? xn : rnd == FL_RD);
        else if (cx == FL_ZERO) return fw_round_to(g, o, yn, fl_exp(yh), Y, ly, false, p, rnd);
        else if (cy == FL_ZERO) return fw_round_to(g, o, xn, fl_exp(xh), X, lx, false, p, rnd);
        else
            return fw_add_num(g, o, fl_num(xh, X, lx, xn), fl_num(yh, Y, ly, yn), p, rnd,
                              S + L.bf, S + L.yb);
        return 0;
    }
    if (MODE == 2) {
        if (cx == FL_NAN || (xn && cx != FL_ZERO)) fw_special(g, o, FL_NAN, false);
        else if (cx == FL_INF) fw_special(g, o, FL_INF, false);
        else if (cx == FL_ZERO) fw_special(g, o, FL_ZERO, xn);
        else {
            FwSq b;
            fw_sq_layout(o.n, lx, S + L.y, &b);
            return fw_sqrt_num<DB>(g, o, fl_exp(xh), X, lx, b, p, rnd);
        }
        return 0;
    }
    if (MODE == 1) {
        bool neg = xn != yn;
        if (cx == FL_NAN || cy == FL_NAN || (cx == FL_INF && cy == FL_INF) ||
            (cx == FL_ZERO && cy == FL_ZERO))
            fw_special(g, o, FL_NAN, false);
        else if (cx == FL_INF) fw_special(g, o, FL_INF, neg);
        else if (cy == FL_INF) fw_special(g, o, FL_ZERO, neg);
        else if (cy == FL_ZERO) fw_special(g, o, FL_INF, neg);
        else if (cx == FL_ZERO) fw_special(g, o, FL_ZERO, neg);
        else
            return fw_div_num<DB>(g, o, neg, fl_exp(xh) - fl_exp(yh), X, lx, Y, ly, dk, S + L.bf,
                                  S + L.yb, p, rnd);
        return 0;
    }
    if (op == FL_OP_MUL) {
        bool neg = xn != yn;
        if (cx == FL_NAN || cy == FL_NAN) fw_special(g, o, FL_NAN, false);
        else if ((cx == FL_INF && cy == FL_ZERO) || (cx == FL_ZERO && cy == FL_INF))
            fw_special(g, o, FL_NAN, false);
        else if (cx == FL_INF || cy == FL_INF) fw_special(g, o, FL_INF, neg);
        else if (cx == FL_ZERO || cy == FL_ZERO) fw_special(g, o, FL_ZERO, neg);
        else {
            return fw_mul_num(g, o, neg, fl_exp(xh) + fl_exp(yh), X, lx, Y, ly, S + L.p, S + L.q,
                              p, rnd);
        }
        return 0;
    }
    // FMA, FMS
    bool pn = xn != yn;
    bool cn = zn != (op == FL_OP_FMS);
    if (cx == FL_NAN || cy == FL_NAN || cz == FL_NAN) {
        fw_special(g, o, FL_NAN, false);
        return 0;
    }
    if (cx == FL_INF || cy == FL_INF) {
        if (cx == FL_ZERO || cy == FL_ZERO || (cz == FL_INF && cn != pn))
            fw_special(g, o, FL_NAN, false);
        else fw_special(g, o, FL_INF, pn);
        return 0;
    }
    if (cz == FL_INF) {
        fw_special(g, o, FL_INF, cn);
        return 0;
    }
    if (cx == FL_ZERO || cy == FL_ZERO) {
        if (cz == FL_ZERO) {
            fw_special(g, o, FL_ZERO, pn == cn ? pn : rnd == FL_RD);
            return 0;
        }
        return fw_round_to(g, o, cn, fl_exp(zh), Z, lz, false, p, rnd);
    }
    u32 sh;
    u64 *R = fw_product(g, X, lx, Y, ly, S + L.p, S + L.q, sh, 0);
    FlNum pr = {pn, fl_exp(xh) + fl_exp(yh) - (i64)sh, R, lx + ly};
    if (cz == FL_ZERO) return fw_round_to(g, o, pr.neg, pr.e, pr.m, pr.l, false, p, rnd);
    return fw_add_num(g, o, pr, fl_num(zh, Z, lz, cn), p, rnd, S + L.bf, S + L.yb);
}

// One element of add, sub, mul, fma or fms by the group g, in the shared
// region S (fw_layout). MPFR's special-value tables as in fl_arith_buf.
// The rounding works in shared memory; the limbs go to o.m (global) in one
// coalesced pass at the end. Returns the ternary value; o.head the head.
template <int MODE, int DB = 2>
FL_DEV i8 fw_element(const FwG &g, u64 *S, u32 op, u32 rnd, u64 p, FlOut &o, u64 xh,
                     const u64 *xm, u32 lx, u64 yh, const u64 *ym, u32 ly, u64 zh, const u64 *zm,
                     u32 lz) {
    FwLay L = fw_layout(op, o.n, lx, ly, lz);
    FlOut os = {S + L.r, o.n, 0};
    i8 t = fw_element_in<MODE, DB>(g, S, L, op, rnd, p, os, xh, xm, lx, yh, ym, ly, zh, zm, lz);
    FW_LANES {
        for (u32 i = lane; i < o.n; i += g.gs) o.m[i] = os.m[i];
    }
    o.head = os.head;
    return t;
}

#ifdef __CUDA_ARCH__
// A group of gs lanes (4, 8, 16 or 32) per element; blockDim.x / gs groups
// per block, `stride` shared limbs each (at least fw_layout's total).
template <int MODE, int DB>
FL_DEV void fw_kernel(u64 *rh, u64 *rl, i8 *tern, const u64 *xh, const u64 *xl, const u64 *yh,
                      const u64 *yl, const u64 *zh, const u64 *zl, u64 len, u32 op, u32 rnd,
                      u64 p, u32 n, u32 lx, u32 ly, u32 lz, u32 want_tern, u32 gs, u32 stride) {
    extern __shared__ u64 fw_smem[];
    u32 gpb = blockDim.x / gs, gid = threadIdx.x / gs;
    FwG g;
    g.gs = gs;
    g.lane = threadIdx.x % gs;
    g.shift = (threadIdx.x & 31) & ~(gs - 1);
    g.mask = gs == 32 ? ~0u : ((1u << gs) - 1) << g.shift;
    u64 *S = fw_smem + (u64)gid * stride;
    bool fma = op == FL_OP_FMA || op == FL_OP_FMS;
    for (u64 i = (u64)blockIdx.x * gpb + gid; i < len; i += (u64)gridDim.x * gpb) {
        FlOut o = {rl + i * n, n, 0};
        u64 zhi = fma ? zh[i] : 0;
        i8 t = fw_element<MODE, DB>(g, S, op, rnd, p, o, xh[i], xl + i * lx, lx, yh[i], yl + i * ly, ly,
                          zhi, zl + i * lz, fma ? lz : 0);
        if (g.lane == 0) {
            rh[i] = o.head;
            if (want_tern) tern[i] = t;
        }
        fw_sync(g);
    }
}

// Blocks of at most 128 threads. float_wide: registers capped for 6 blocks
// per multiprocessor (80; a few bytes spilled); float_wide_r: no cap;
// float_wide_divB: division, B divisor limbs per lane; float_wide_sqrtB:
// square root (its divisions B limbs per lane).
#define FW_KERNEL(NAME, BOUNDS, MODE, DB)                                                       \
    extern "C" __global__ void BOUNDS NAME(                                                     \
        u64 *rh, u64 *rl, i8 *tern, const u64 *xh, const u64 *xl, const u64 *yh, const u64 *yl, \
        const u64 *zh, const u64 *zl, u64 len, u32 op, u32 rnd, u64 p, u32 n, u32 lx, u32 ly,   \
        u32 lz, u32 want_tern, u32 gs, u32 stride) {                                            \
        fw_kernel<MODE, DB>(rh, rl, tern, xh, xl, yh, yl, zh, zl, len, op, rnd, p, n, lx, ly,   \
                            lz, want_tern, gs, stride);                                         \
    }
// Two module instances: without FW_EXTRA the measured kernels (their
// out-of-line helpers compiled for them alone), with FW_EXTRA=1 division
// and square root.
#ifndef FW_EXTRA
FW_KERNEL(float_wide, __launch_bounds__(128, 6), 0, 2)
FW_KERNEL(float_wide_r, __launch_bounds__(128), 0, 2)
#else
FW_KERNEL(float_wide_div2, __launch_bounds__(128), 1, 2)
FW_KERNEL(float_wide_div4, __launch_bounds__(128), 1, 4)
FW_KERNEL(float_wide_div6, __launch_bounds__(128), 1, 6)
FW_KERNEL(float_wide_div8, __launch_bounds__(128), 1, 8)
FW_KERNEL(float_wide_sqrt2, __launch_bounds__(128), 2, 2)
FW_KERNEL(float_wide_sqrt4, __launch_bounds__(128), 2, 4)
FW_KERNEL(float_wide_sqrt6, __launch_bounds__(128), 2, 6)
FW_KERNEL(float_wide_sqrt8, __launch_bounds__(128), 2, 8)
#endif
#endif
