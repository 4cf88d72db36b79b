// Multiplication: low half (`mul`), full product (`mul_wide`) and the fused
// polynomial (a*a+b)*(b*b+b)+a*b. Operands are little-endian 64-bit limbs,
// handled here as 32-bit words (N = 2*limbs words per instance).
//
// Two tiers, picked by mul.rs from the width (each compiled separately):
//
// BAND=C (C = 4, 8, 16): schoolbook by a group of G threads per instance, the
//   operands in shared memory. The product's columns are cut into bands of C
//   words; a thread owns two bands chosen so that every thread does the same
//   number of row steps (band t with band B-1-t). A row step adds a_i times a
//   C-word window of b into two register accumulators, one for even and one
//   for odd window words, so that each 32x32 product is one mad.lo.cc/
//   madc.hi.cc pair on the same operands, which ptxas fuses into a single
//   IMAD.WIDE.U32.X with carry in and out. Band values overlap the next band
//   by two words; those are added in, and the remaining one-bit carries are
//   resolved by a block-wide carry-lookahead scan (ballots per 32 bands).
//   Poly runs as one kernel with a, b, a*a+b and b*b+b in shared memory.
//
// MUL_NTT: number-theoretic transform modulo three 30-bit primes (product
//   ~2^88 > 2^79, the largest convolution coefficient of 32-bit words at
//   2^20 bits), recombined by CRT. The full transform of length n (a power
//   of two >= 2N) is split into R = n/4096 cosets: block (instance, prime, r)
//   computes the outputs X[r + R*j] as a length-4096 transform of a twisted,
//   folded input, entirely in shared memory (three radix-16 passes), keeps
//   the transform of a in registers while transforming b, multiplies
//   pointwise and runs the inverse passes, writing 4096 residues. A second
//   kernel sums the cosets, applies CRT, adds an optional addend and
//   propagates carries.
#include "common.cuh"

#ifdef __CUDA_ARCH__
extern __shared__ __align__(16) u32 mul_dyn_smem[];
#define MUL_SMEM mul_dyn_smem
// Carry chains: the PTX condition-code flag carries between statements.
#define CH_MADLO_CC(d, a, b) asm volatile("mad.lo.cc.u32 %0, %1, %2, %0;" : "+r"(d) : "r"(a), "r"(b))
#define CH_MADLOC_CC(d, a, b) asm volatile("madc.lo.cc.u32 %0, %1, %2, %0;" : "+r"(d) : "r"(a), "r"(b))
#define CH_MADHIC_CC(d, a, b) asm volatile("madc.hi.cc.u32 %0, %1, %2, %0;" : "+r"(d) : "r"(a), "r"(b))
#define CH_ADD_CC(d, x) asm volatile("add.cc.u32 %0, %0, %1;" : "+r"(d) : "r"(x))
#define CH_ADDC_CC(d, x) asm volatile("addc.cc.u32 %0, %0, %1;" : "+r"(d) : "r"(x))
#define CH_ADDC(d, x) asm volatile("addc.u32 %0, %0, %1;" : "+r"(d) : "r"(x))
#define LD4(p) (*(const uint4 *)(p))
#define LD2(p) (*(const uint2 *)(p))
#endif

#define MUL_DEV __device__ __forceinline__

// ---------------------------------------------------------------------------
// Block-wide carry-lookahead over a flat array of bands. flags[i]: bit 0 =
// band i generates a carry, bit 1 = it propagates one (all words 0xffffffff).
// On return bit 2 holds the carry into band i. chunk: (nbands+31)/32 words.
// Every thread of the block must call it.
MUL_DEV void carry_scan(u8 *flags, u32 *chunk, u32 nbands) {
    u32 lane = threadIdx.x & 31, warp = threadIdx.x >> 5, nw = blockDim.x >> 5;
    u32 nch = (nbands + 31) >> 5;
    for (u32 c = warp; c < nch; c += nw) {
        u32 i = c * 32 + lane;
        u32 f = i < nbands ? flags[i] : 0;
        u32 g = __ballot_sync(0xffffffffu, f & 1), p = __ballot_sync(0xffffffffu, (f >> 1) & 1);
        if (lane == 0) {
            u32 x = g | p, s = x + g;
            chunk[c] = (u32)(s < x) | ((u32)(p == 0xffffffffu) << 1);
        }
    }
    __syncthreads();
    if (threadIdx.x == 0) {
        u32 cin = 0;
        for (u32 c = 0; c < nch; c++) {
            u32 gp = chunk[c];
            chunk[c] = gp | (cin << 2);
            cin = (gp & 1) | ((gp >> 1) & cin);
        }
    }
    __syncthreads();
    for (u32 c = warp; c < nch; c += nw) {
        u32 i = c * 32 + lane;
        u32 f = i < nbands ? flags[i] : 0;
        u32 g = __ballot_sync(0xffffffffu, f & 1), p = __ballot_sync(0xffffffffu, (f >> 1) & 1);
        u32 x = g | p;
        u64 s = (u64)x + g + (chunk[c] >> 2);
        u32 carries = (u32)(s ^ x ^ g);  // bit i: carry into position i
        if (i < nbands) flags[i] = (u8)(f | (((carries >> lane) & 1) << 2));
    }
    __syncthreads();
}

// ===========================================================================
#ifdef BAND
constexpr int C = BAND;

// Geometry of one instance for the band schoolbook.
struct Shape {
    u32 n;     // words per operand
    u32 nc;    // n rounded up to 2C
    u32 nb;    // bands per instance (of the low half or the full product)
    u32 g;     // threads per instance (= nb / 2)
    u32 pad;   // padded operand length: data at [C, C + nc), zeros around
    u32 stg;   // staging words per instance: nb * (C + 2)
    bool wide;
};

MUL_DEV Shape make_shape(u32 limbs, bool wide) {
    Shape s;
    s.n = 2 * limbs;
    s.nc = (s.n + 2 * C - 1) / (2 * C) * (2 * C);
    s.nb = (wide ? 2 : 1) * s.nc / C;
    s.g = s.nb / 2;
    s.pad = s.nc + 2 * C;
    s.stg = s.nb * (C + 2);
    s.wide = wide;
    return s;
}

// The two bands of thread t: equal total row counts for every t.
MUL_DEV void band_pair(const Shape &s, u32 t, u32 &b1, u32 &b2) {
    if (!s.wide) {
        b1 = t;
        b2 = s.nb - 1 - t;
    } else {
        u32 h = s.nb / 2, q = h / 2;
        if (t < q) {
            b1 = t;
            b2 = h - 1 - t;
        } else {
            b1 = h + (t - q);
            b2 = s.nb - 1 - (t - q);
        }
    }
}

// Rows i in [lo, hi) touching the columns of band beta (a whole number of
// groups of C rows). Squares take only the rows i < k - i (doubled later):
// full rows below k0/2 and a last group that is masked.
MUL_DEV void band_rows(const Shape &s, u32 beta, bool sq, int &lo, int &hi) {
    int k0 = beta * C, nc = s.nc;
    if (sq) {
        // Rounded up to 4 so that vector loads stay aligned (C = 4); rows
        // past k0/2 + C/2 are masked off anyway.
        hi = (k0 / 2 + C / 2 + 3) & ~3;
        lo = hi - (hi + C - 1) / C * C;
    } else {
        lo = k0 > nc ? k0 - nc : 0;
        hi = min(nc, k0 + C);
    }
}

// Accumulators: E holds the even-window products (words 0..C), O the odd
// ones (words 1..C+1; O[0] unused).
struct Acc {
    u32 e[C + 1];
    u32 o[C + 2];
};

// init 0: zero; 1: the C words of `add` (a padded array) at the band;
// 2: the band's staged value.
MUL_DEV void acc_init(Acc &z, int init, const u32 *add, const u32 *st, u32 k0) {
#pragma unroll
    for (int w = 0; w <= C; w++) z.e[w] = 0;
#pragma unroll
    for (int w = 0; w < C + 2; w++) z.o[w] = 0;
    if (init == 1) {
#pragma unroll
        for (int w = 0; w < C; w += 4) {
            uint4 v = LD4(add + C + k0 + w);
            z.e[w] = v.x;
            z.e[w + 1] = v.y;
            z.e[w + 2] = v.z;
            z.e[w + 3] = v.w;
        }
    } else if (init == 2) {
        // Word C goes to O, whose top word has room for the row carries.
#pragma unroll
        for (int w = 0; w < C; w++) z.e[w] = st[w];
        z.o[C] = st[C];
        z.o[C + 1] = st[C + 1];
    }
}

// st[0..C+2) = E + O.
MUL_DEV void acc_flush(const Acc &z, u32 *st) {
    u32 s = z.e[1];
    st[0] = z.e[0];
    CH_ADD_CC(s, z.o[1]);
    st[1] = s;
#pragma unroll
    for (int w = 2; w <= C; w++) {
        s = z.e[w];
        CH_ADDC_CC(s, z.o[w]);
        st[w] = s;
    }
    s = z.o[C + 1];
    CH_ADDC(s, 0u);
    st[C + 1] = s;
}

// One row step: z += a * (w[0] + w[1] 2^32 + ... + w[C-1] 2^(32(C-1))).
MUL_DEV void acc_row(Acc &z, u32 a, const u32 *w) {
    CH_MADLO_CC(z.e[0], a, w[0]);
    CH_MADHIC_CC(z.e[1], a, w[0]);
#pragma unroll
    for (int j = 2; j < C; j += 2) {
        CH_MADLOC_CC(z.e[j], a, w[j]);
        CH_MADHIC_CC(z.e[j + 1], a, w[j]);
    }
    CH_ADDC(z.e[C], 0u);
    CH_MADLO_CC(z.o[1], a, w[1]);
    CH_MADHIC_CC(z.o[2], a, w[1]);
#pragma unroll
    for (int j = 3; j < C; j += 2) {
        CH_MADLOC_CC(z.o[j], a, w[j]);
        CH_MADHIC_CC(z.o[j + 1], a, w[j]);
    }
    CH_ADDC(z.o[C + 1], 0u);
}

MUL_DEV void load_c(u32 *r, const u32 *src) {
#pragma unroll
    for (int w = 0; w < C; w += 4) {
        uint4 v = LD4(src + w);
        r[w] = v.x;
        r[w + 1] = v.y;
        r[w + 2] = v.z;
        r[w + 3] = v.w;
    }
}

// Squares: st[0..C+2) = 2 (E + O) + the diagonal squares of the band
// (+ the addend words when add is set).
MUL_DEV void acc_flush_sq(const Acc &z, u32 *st, const u32 *x, u32 k0, const u32 *add) {
    u32 v[C + 2];
    v[0] = z.e[0];
    v[1] = z.e[1];
    CH_ADD_CC(v[1], z.o[1]);
#pragma unroll
    for (int w = 2; w <= C; w++) {
        v[w] = z.e[w];
        CH_ADDC_CC(v[w], z.o[w]);
    }
    v[C + 1] = z.o[C + 1];
    CH_ADDC(v[C + 1], 0u);
#pragma unroll
    for (int w = C + 1; w > 0; w--) v[w] = (v[w] << 1) | (v[w - 1] >> 31);
    v[0] <<= 1;
    u32 d[C / 2];
#pragma unroll
    for (int h = 0; h < C / 2; h += 2) {
        uint2 q = LD2(x + C + k0 / 2 + h);
        d[h] = q.x;
        d[h + 1] = q.y;
    }
    CH_MADLO_CC(v[0], d[0], d[0]);
    CH_MADHIC_CC(v[1], d[0], d[0]);
#pragma unroll
    for (int h = 1; h < C / 2; h++) {
        CH_MADLOC_CC(v[2 * h], d[h], d[h]);
        CH_MADHIC_CC(v[2 * h + 1], d[h], d[h]);
    }
    CH_ADDC_CC(v[C], 0u);
    CH_ADDC(v[C + 1], 0u);
    if (add) {
        u32 ad[C];
        load_c(ad, add + C + k0);
        CH_ADD_CC(v[0], ad[0]);
#pragma unroll
        for (int w = 1; w < C; w++) CH_ADDC_CC(v[w], ad[w]);
        CH_ADDC_CC(v[C], 0u);
        CH_ADDC(v[C + 1], 0u);
    }
#pragma unroll
    for (int w = 0; w < C + 2; w++) st[w] = v[w];
}

// Thread t's two bands of x*y (padded arrays) into st (C+2 words per band).
// sq: x*x with y == x (low half only); the addend of init 1 is added at the end.
MUL_DEV void band_mul(const Shape &s, u32 t, const u32 *x, const u32 *y, u32 *st, int init,
                      const u32 *add, bool sq) {
    u32 b1, b2;
    int lo1, hi1, lo2, hi2;
    band_pair(s, t, b1, b2);
    band_rows(s, b1, sq, lo1, hi1);
    band_rows(s, b2, sq, lo2, hi2);
    u32 ng1 = (hi1 - lo1) / C, ng = ng1 + (hi2 - lo2) / C;
    const u32 *sq_add = init == 1 ? add : nullptr;
    if (sq) init = 0;
    u32 beta = b1, k0 = b1 * C;
    int i = lo1;
    u32 m = k0 - i;  // window: y[C + m + j - u] at step u
    Acc z;
    acc_init(z, init, add, st + beta * (C + 2), k0);
    u32 hw[C], lw[C], av[C];
    load_c(hw, y + C + m);
    for (u32 gi = 0; gi < ng; gi++) {
        if (gi == ng1) {
            if (sq)
                acc_flush_sq(z, st + beta * (C + 2), x, k0, sq_add);
            else
                acc_flush(z, st + beta * (C + 2));
            beta = b2;
            k0 = b2 * C;
            i = lo2;
            m = k0 - i;
            acc_init(z, init, add, st + beta * (C + 2), k0);
            load_c(hw, y + C + m);
        }
        load_c(lw, y + m);
        load_c(av, x + C + i);
        if (sq && (gi == ng1 - 1 || gi == ng - 1)) {
            // Last group of a square band: only products a_i a_j with i < j.
#pragma unroll
            for (int u = 0; u < C; u++) {
                u32 w[C];
#pragma unroll
                for (int j = 0; j < C; j++) {
                    u32 v = j >= u ? hw[j - u] : lw[C + j - u];
                    w[j] = 2 * (i + u) < (int)(k0 + j) ? v : 0;
                }
                acc_row(z, av[u], w);
            }
        } else {
#pragma unroll
            for (int u = 0; u < C; u++) {
                u32 w[C];
#pragma unroll
                for (int j = 0; j < C; j++) w[j] = j >= u ? hw[j - u] : lw[C + j - u];
                acc_row(z, av[u], w);
            }
        }
#pragma unroll
        for (int j = 0; j < C; j++) hw[j] = lw[j];
        i += C;
        m -= C;
    }
    if (sq)
        acc_flush_sq(z, st + beta * (C + 2), x, k0, sq_add);
    else
        acc_flush(z, st + beta * (C + 2));
}

// Adds each band's overflow words into the next band, resolves carries and
// hands every band's final C words to emit(q, beta, words). All threads of
// the block call it; instance q's staging is at stg + q * stride.
template <class Emit>
MUL_DEV void band_resolve(const Shape &s, u32 ipb, u32 *stg, u32 stride, u8 *flags, u32 *chunk,
                          Emit emit) {
    u32 q = threadIdx.x / s.g, t = threadIdx.x % s.g;
    bool act = q < ipb;
    u32 bb[2] = {0, 0};
    if (act) band_pair(s, t, bb[0], bb[1]);
    if (act) {
#pragma unroll
        for (int h = 0; h < 2; h++) {
            u32 beta = bb[h];
            u32 *d = stg + q * stride + beta * (C + 2);
            u32 o0 = 0, o1 = 0;
            if (beta > 0) {
                o0 = d[-2];  // previous band's words C and C+1
                o1 = d[-1];
            }
            u32 w[C];
#pragma unroll
            for (int j = 0; j < C; j++) w[j] = d[j];
            CH_ADD_CC(w[0], o0);
            CH_ADDC_CC(w[1], o1);
#pragma unroll
            for (int j = 2; j < C; j++) CH_ADDC_CC(w[j], 0u);
            u32 e = 0;
            CH_ADDC(e, 0u);
            u32 all = 0xffffffffu;
#pragma unroll
            for (int j = 0; j < C; j++) all &= w[j];
            u32 f = e | ((u32)(all == 0xffffffffu) << 1);
            if (beta == s.nb - 1) f = 0;  // the top band's carry leaves the instance
            flags[q * s.nb + beta] = (u8)f;
#pragma unroll
            for (int j = 0; j < C; j++) d[j] = w[j];
        }
    }
    // No race above: a band rewrites only its words 0..C-1 and reads words
    // C, C+1 of the band below.
    __syncthreads();
    carry_scan(flags, chunk, ipb * s.nb);
    if (act) {
#pragma unroll
        for (int h = 0; h < 2; h++) {
            u32 beta = bb[h];
            u32 *d = stg + q * stride + beta * (C + 2);
            u32 w[C];
#pragma unroll
            for (int j = 0; j < C; j++) w[j] = d[j];
            u32 cin = (flags[q * s.nb + beta] >> 2) & 1;
            CH_ADD_CC(w[0], cin);
#pragma unroll
            for (int j = 1; j < C; j++) CH_ADDC_CC(w[j], 0u);
            emit(q, beta, w);
        }
    }
    __syncthreads();
}

// Shared memory of one block: per instance the operand arrays and staging,
// then flags (ipb*nb bytes) and scan chunks.
MUL_DEV void carve(const Shape &s, u32 ipb, u32 narrays, u32 *&base, u8 *&flags, u32 *&chunk) {
    base = MUL_SMEM;
    u32 per = narrays * s.pad + s.stg;
    chunk = base + ipb * per;
    u32 nch = (ipb * s.nb + 31) / 32;
    flags = (u8 *)(chunk + nch);
}

// Loads the block's instances of a and b (limbs n/2 each, contiguous) into
// the padded arrays at base + q*per (a) and + pad (b), eight 8-byte loads in
// flight per thread.
MUL_DEV void load_block(u32 *base, u32 per, const u64 *a, const u64 *b, u64 inst0, u64 ninst,
                        const Shape &s, u32 ipb) {
    u32 l = s.n / 2;
    u32 avail = ninst > inst0 ? (u32)min((u64)ipb, ninst - inst0) : 0;
    u32 total = avail * l;
    const u64 *sa = a + inst0 * l, *sb = b + inst0 * l;
    for (u32 i0 = threadIdx.x; i0 < total; i0 += 4 * blockDim.x) {
        u64 x[4], y[4];
#pragma unroll
        for (int k = 0; k < 4; k++) {
            u32 i = i0 + k * blockDim.x;
            x[k] = i < total ? sa[i] : 0;
            y[k] = i < total ? sb[i] : 0;
        }
#pragma unroll
        for (int k = 0; k < 4; k++) {
            u32 i = i0 + k * blockDim.x;
            if (i < total) {
                u32 q = i / l, w = 2 * (i - q * l);
                u32 *d = base + q * per + C + w;
                d[0] = (u32)x[k];
                d[1] = (u32)(x[k] >> 32);
                d[s.pad] = (u32)y[k];
                d[s.pad + 1] = (u32)(y[k] >> 32);
            }
        }
    }
}

MUL_DEV void zero_padding(u32 *base, u32 per, u32 off, const Shape &s, u32 ipb) {
    u32 z = s.pad - s.n;  // words [0, C) and [C + n, pad)
    for (u32 i = threadIdx.x; i < ipb * z; i += blockDim.x) {
        u32 q = i / z, w = i - q * z;
        base[q * per + off + (w < (u32)C ? w : w + s.n)] = 0;
    }
}

// r = low or full product of a and b; ipb instances per block.
extern "C" __global__ void __launch_bounds__(256) int_mul_band(u64 *r, const u64 *a, const u64 *b,
                                                               u64 n, u32 limbs, u32 wide,
                                                               u32 ipb) {
    Shape s = make_shape(limbs, wide != 0);
    u32 *base;
    u8 *flags;
    u32 *chunk;
    carve(s, ipb, 2, base, flags, chunk);
    u32 per = 2 * s.pad + s.stg;
    u64 inst0 = (u64)blockIdx.x * ipb;
    load_block(base, per, a, b, inst0, n, s, ipb);
    for (u32 k = 0; k < 2; k++) zero_padding(base, per, k * s.pad, s, ipb);
    __syncthreads();
    u32 q = threadIdx.x / s.g, t = threadIdx.x % s.g;
    if (q < ipb) {
        u32 *x = base + q * per;
        band_mul(s, t, x, x + s.pad, x + 2 * s.pad, 0, nullptr, false);
    }
    __syncthreads();
    u32 kw = wide ? 2 * s.n : s.n;  // output words
    band_resolve(s, ipb, base + 2 * s.pad, per, flags, chunk, [&](u32 qq, u32 beta, const u32 *w) {
        u64 inst = inst0 + qq;
        if (inst >= n) return;
        u64 *dst = r + inst * (kw / 2);
        u32 k0 = beta * C;
#pragma unroll
        for (int j = 0; j < C; j += 2)
            if (k0 + j < kw) dst[(k0 + j) / 2] = (u64)w[j] | ((u64)w[j + 1] << 32);
    });
}

// r = (a*a + b) * (b*b + b) + a*b, low halves, one kernel.
extern "C" __global__ void __launch_bounds__(256) int_poly_band(u64 *r, const u64 *a,
                                                                const u64 *b, u64 n, u32 limbs,
                                                                u32 ipb) {
    Shape s = make_shape(limbs, false);
    u32 *base;
    u8 *flags;
    u32 *chunk;
    carve(s, ipb, 4, base, flags, chunk);
    u32 per = 4 * s.pad + s.stg;
    u64 inst0 = (u64)blockIdx.x * ipb;
    load_block(base, per, a, b, inst0, n, s, ipb);
    for (u32 k = 0; k < 4; k++) zero_padding(base, per, k * s.pad, s, ipb);
    __syncthreads();
    u32 q = threadIdx.x / s.g, t = threadIdx.x % s.g;
    bool act = q < ipb;
    u32 *xa = base + q * per, *xb = xa + s.pad, *t1 = xb + s.pad, *t2 = t1 + s.pad,
        *st = t2 + s.pad;
    // a*a + b and b*b + b, low halves, into t1 and t2 (zero above n words).
    for (int step = 0; step < 2; step++) {
        if (act) band_mul(s, t, step ? xb : xa, step ? xb : xa, st, 1, xb, true);
        __syncthreads();
        band_resolve(s, ipb, base + 4 * s.pad, per, flags, chunk, [&](u32 qq, u32 beta, const u32 *w) {
            u32 *dst = base + qq * per + (step ? 3 : 2) * s.pad + C;
            u32 k0 = beta * C;
#pragma unroll
            for (int j = 0; j < C; j++) dst[k0 + j] = k0 + j < s.n ? w[j] : 0;
        });
    }
    if (act) {
        band_mul(s, t, t1, t2, st, 0, nullptr, false);
        band_mul(s, t, xa, xb, st, 2, nullptr, false);
    }
    __syncthreads();
    band_resolve(s, ipb, base + 4 * s.pad, per, flags, chunk, [&](u32 qq, u32 beta, const u32 *w) {
        u64 inst = inst0 + qq;
        if (inst >= n) return;
        u64 *dst = r + inst * (s.n / 2);
        u32 k0 = beta * C;
#pragma unroll
        for (int j = 0; j < C; j += 2)
            if (k0 + j < s.n) dst[(k0 + j) / 2] = (u64)w[j] | ((u64)w[j + 1] << 32);
    });
}
#endif  // BAND

// ===========================================================================
#ifdef MUL_NTT
// Primes 7*2^26+1, 45*2^24+1, 119*2^23+1: each has roots of unity of order
// 2^16 (the longest transform, for 2^20-bit products), and each is < 2^30.
constexpr u32 NTT_P0 = 469762049u, NTT_P1 = 754974721u, NTT_P2 = 998244353u;
constexpr u32 NP = 4096;                // transform length of one block
constexpr u32 NTT_THREADS = NP / 16;    // one radix-16 group per thread
constexpr u32 PRIME_STRIDE = 1u << 19;  // table words per prime
// Table layout per prime (u32 words; twiddles are (w, floor(w*2^32/p)) pairs):
constexpr u32 T_F16 = 0;         // w16^e, e < 16
constexpr u32 T_I16 = 32;        // w16^-e
constexpr u32 T_FL4096 = 64;     // [k-1][j] = w4096^(jk), k < 16, j < 256
constexpr u32 T_IL4096 = 7744;   // inverse
constexpr u32 T_FL256 = 15424;   // [k-1][j] = w256^(jk), j < 16
constexpr u32 T_IL256 = 15904;   // inverse
constexpr u32 T_TW = 16384;      // + (R-1)*8192: [r][i] = wn^(r*i), r < R, i < 4096
constexpr u32 T_ITW = 270336;    // inverse
constexpr u32 T_CRT = 3 * PRIME_STRIDE;  // + 16*logR: CRT constants (pairs)

MUL_DEV u32 ntt_prime(u32 pi) { return pi == 0 ? NTT_P0 : pi == 1 ? NTT_P1 : NTT_P2; }

// x*w mod p (Shoup), any x < 2^32, w < p, ws = floor(w*2^32/p).
MUL_DEV u32 mulsh(u32 x, u32 w, u32 ws, u32 p) {
    u32 q = __umulhi(x, ws);
    u32 r = x * w - q * p;
    return r >= p ? r - p : r;
}
MUL_DEV u32 mulsh2(u32 x, const u32 *wp, u32 p) { return mulsh(x, wp[0], wp[1], p); }
// x*y*2^-32 mod p (Montgomery), x, y < p; pinv = -p^-1 mod 2^32.
MUL_DEV u32 mont(u32 x, u32 y, u32 p, u32 pinv) {
    u64 t = (u64)x * y;
    u32 m = (u32)t * pinv;
    u32 r = (u32)((t + (u64)m * p) >> 32);
    return r >= p ? r - p : r;
}
MUL_DEV u32 addm(u32 x, u32 y, u32 p) {
    u32 s = x + y;
    return s >= p ? s - p : s;
}
MUL_DEV u32 subm(u32 x, u32 y, u32 p) {
    u32 d = x - y;
    return x < y ? d + p : d;
}
MUL_DEV int rev4(int k) { return ((k & 1) << 3) | ((k & 2) << 1) | ((k & 4) >> 1) | ((k & 8) >> 3); }
MUL_DEV u32 spad(u32 i) { return i + (i >> 4); }  // bank-conflict padding

// In-register 16-point DFT, natural order in and out: v[k] = sum_m v[m] c^(mk),
// c16 = table of (c^e, shoup) pairs.
MUL_DEV void dft16(u32 *v, const u32 *c16, u32 p) {
#pragma unroll
    for (int hs = 8; hs >= 1; hs >>= 1) {
#pragma unroll
        for (int blk = 0; blk < 16; blk += 2 * hs) {
#pragma unroll
            for (int a = 0; a < hs; a++) {
                u32 x = v[blk + a], y = v[blk + a + hs];
                v[blk + a] = addm(x, y, p);
                u32 d = subm(x, y, p);
                int e = a * (8 / hs);
                v[blk + a + hs] = e == 0 ? d : mulsh(d, c16[2 * e], c16[2 * e + 1], p);
            }
        }
    }
    u32 t[16];
#pragma unroll
    for (int k = 0; k < 16; k++) t[k] = v[rev4(k)];
#pragma unroll
    for (int k = 0; k < 16; k++) v[k] = t[k];
}

// Forward radix-16 pass over span L: thread's group (B0, j) at B0 + j + m*M.
// in_smem: load from S (else v already holds the inputs); out_smem: store.
MUL_DEV void fwd_pass(u32 *S, u32 *v, u32 L, const u32 *lev, const u32 *c16, u32 p, bool in_smem,
                      bool out_smem) {
    u32 M = L / 16, t = threadIdx.x, B0 = (t / M) * L, j = t % M;
    if (in_smem) {
#pragma unroll
        for (int m = 0; m < 16; m++) v[m] = S[spad(B0 + j + m * M)];
    }
    dft16(v, c16, p);
    if (j != 0) {
#pragma unroll
        for (int k = 1; k < 16; k++) v[k] = mulsh2(v[k], lev + 2 * ((k - 1) * M + j), p);
    }
    if (out_smem) {
#pragma unroll
        for (int k = 0; k < 16; k++) S[spad(B0 + k * M + j)] = v[k];
    }
}

// Exact mirror of fwd_pass (inverse twiddles, unnormalised).
MUL_DEV void inv_pass(u32 *S, u32 *v, u32 L, const u32 *lev, const u32 *c16, u32 p, bool in_smem,
                      bool out_smem) {
    u32 M = L / 16, t = threadIdx.x, B0 = (t / M) * L, j = t % M;
    if (in_smem) {
#pragma unroll
        for (int k = 0; k < 16; k++) v[k] = S[spad(B0 + k * M + j)];
    }
    if (j != 0) {
#pragma unroll
        for (int k = 1; k < 16; k++) v[k] = mulsh2(v[k], lev + 2 * ((k - 1) * M + j), p);
    }
    dft16(v, c16, p);
    if (out_smem) {
#pragma unroll
        for (int m = 0; m < 16; m++) S[spad(B0 + j + m * M)] = v[m];
    }
}

// Forward transform of coset r of operand x (words [0, nw) of one instance),
// result left in v (the thread's 16 outputs of the last pass).
MUL_DEV void ntt_forward(u32 *S, u32 *v, const u32 *x, u32 nw, u32 r, u32 log_r, const u32 *tp,
                         u32 p) {
    u32 t = threadIdx.x, R = 1u << log_r, chunks = (nw + NP - 1) / NP;
    const u32 *tw = tp + T_TW + (R - 1) * 2 * NP + 2 * r * NP;
    // y[i] = sum_c x[i + c*NP] wn^(r(i + c*NP)) = tw[i] * sum_c x[i + c*NP] wR^(rc)
    if (chunks == 1) {
#pragma unroll
        for (int m = 0; m < 16; m++) {
            u32 i = t + m * (NP / 16);
            v[m] = mulsh2(i < nw ? x[i] : 0, tw + 2 * i, p);
        }
    } else {
        u32 one_s = (u32)(0x100000000ull / p);
#pragma unroll
        for (int m = 0; m < 16; m++) {
            u32 i = t + m * (NP / 16);
            v[m] = mulsh(i < nw ? x[i] : 0, 1, one_s, p);
        }
        for (u32 c = 1; c < chunks; c++) {
            const u32 *w = tp + T_F16 + 2 * ((r * c * (16u >> log_r)) & 15);
            u32 w0 = w[0], w1 = w[1];
#pragma unroll
            for (int m = 0; m < 16; m++) {
                u32 k = t + m * (NP / 16) + c * NP;
                v[m] = addm(v[m], mulsh(k < nw ? x[k] : 0, w0, w1, p), p);
            }
        }
#pragma unroll
        for (int m = 0; m < 16; m++) v[m] = mulsh2(v[m], tw + 2 * (t + m * (NP / 16)), p);
    }
    fwd_pass(S, v, 4096, tp + T_FL4096, tp + T_F16, p, false, true);
    __syncthreads();
    fwd_pass(S, v, 256, tp + T_FL256, tp + T_F16, p, true, true);
    __syncthreads();
    fwd_pass(S, v, 16, nullptr, tp + T_F16, p, true, false);
}

// Inverse transform of v (as left by ntt_forward), untwisted by wn^(-r*i),
// written to out[0..NP).
MUL_DEV void ntt_inverse(u32 *S, u32 *v, u32 *out, u32 r, u32 log_r, const u32 *tp, u32 p) {
    u32 t = threadIdx.x, R = 1u << log_r;
    __syncthreads();  // S free
    inv_pass(S, v, 16, nullptr, tp + T_I16, p, false, true);
    __syncthreads();
    inv_pass(S, v, 256, tp + T_IL256, tp + T_I16, p, true, true);
    __syncthreads();
    inv_pass(S, v, 4096, tp + T_IL4096, tp + T_I16, p, true, false);
    const u32 *itw = tp + T_ITW + (R - 1) * 2 * NP + 2 * r * NP;
#pragma unroll
    for (int m = 0; m < 16; m++) {
        u32 i = t + m * (NP / 16);
        out[i] = mulsh2(v[m], itw + 2 * i, p);
    }
}

// Block (r + R*prime, instance): nprod = 1: the product a*b; nprod = 3: a*a,
// b*b and a*b. scr layout: [prod][inst][prime][r][NP] residues.
extern "C" __global__ void __launch_bounds__(NTT_THREADS, 2)
    int_ntt_conv(u32 *scr, const u64 *a, const u64 *b, const u32 *tab, u32 nw, u32 log_r,
                 u32 nprod, u32 ninst) {
    __shared__ u32 S[NP + NP / 16];
    u32 R = 1u << log_r, r = blockIdx.x & (R - 1), pi = blockIdx.x >> log_r, inst = blockIdx.y;
    u32 p = ntt_prime(pi);
    u32 pinv = p;  // Newton: p^-1 mod 2^32
#pragma unroll
    for (int k = 0; k < 5; k++) pinv *= 2u - p * pinv;
    pinv = 0u - pinv;
    const u32 *tp = tab + pi * PRIME_STRIDE;
    u32 ya[16], yb[16], v[16];
    ntt_forward(S, ya, (const u32 *)a + (u64)inst * nw, nw, r, log_r, tp, p);
    __syncthreads();
    ntt_forward(S, yb, (const u32 *)b + (u64)inst * nw, nw, r, log_r, tp, p);
    for (u32 k = 0; k < nprod; k++) {
        // nprod == 3: k = 0: a*a, 1: b*b, 2: a*b.
#pragma unroll
        for (int m = 0; m < 16; m++) {
            u32 x = (nprod == 3 && k == 1) ? yb[m] : ya[m];
            u32 y = (nprod == 3 && k == 0) ? ya[m] : yb[m];
            v[m] = mont(x, y, p, pinv);
        }
        u32 *out = scr + ((((u64)k * ninst + inst) * 3 + pi) * R + r) * NP;
        ntt_inverse(S, v, out, r, log_r, tp, p);
    }
}

// Combines the cosets and primes of product `prod` into kw output words per
// instance (plus an optional addend of kw words), one block per instance.
extern "C" __global__ void __launch_bounds__(256)
    int_ntt_combine(u64 *out, const u32 *scr, const u64 *addend, const u32 *tab, u32 kw,
                    u32 log_r, u32 ninst, u32 prod) {
    constexpr int C = 16;
    __shared__ u32 ovf[2 * 2048];
    __shared__ u8 flags[2048];
    __shared__ u32 chunk[64];
    u32 R = 1u << log_r, inst = blockIdx.x;
    u32 nb = (kw + C - 1) / C;
    const u32 *crt = tab + T_CRT + 16 * log_r;
    u32 *o32 = (u32 *)(out + (u64)inst * (kw / 2));
    const u32 *add32 = addend ? (const u32 *)(addend + (u64)inst * (kw / 2)) : nullptr;
    for (u32 beta = threadIdx.x; beta < nb; beta += blockDim.x) {
        u32 k0 = beta * C, c = k0 / NP, k1 = k0 % NP;
        u32 x[3][C];
#pragma unroll
        for (int pi = 0; pi < 3; pi++) {
            u32 p = ntt_prime(pi);
            const u32 *tp = tab + pi * PRIME_STRIDE;
#pragma unroll
            for (int j = 0; j < C; j++) x[pi][j] = 0;
            for (u32 r = 0; r < R; r++) {
                const u32 *src = scr + ((((u64)prod * ninst + inst) * 3 + pi) * R + r) * NP + k1;
                u32 e = (r * c * (16u >> log_r)) & 15;
                const u32 *w = tp + T_I16 + 2 * e;
#pragma unroll
                for (int j = 0; j < C; j += 4) {
                    uint4 q = LD4(src + j);
                    u32 qq[4] = {q.x, q.y, q.z, q.w};
#pragma unroll
                    for (int h = 0; h < 4; h++) {
                        u32 y = e ? mulsh2(qq[h], w, p) : qq[h];
                        x[pi][j + h] = addm(x[pi][j + h], y, p);
                    }
                }
            }
        }
        // Garner: c = c0 + p0 (y1 + p1 y2), with the 2^32/n scale folded in.
        u32 w0[C], w1[C], w2[C];
#pragma unroll
        for (int j = 0; j < C; j++) {
            u32 c0 = mulsh2(x[0][j], crt + 0, NTT_P0);
            u32 y1 = subm(mulsh2(x[1][j], crt + 2, NTT_P1), mulsh2(c0, crt + 4, NTT_P1), NTT_P1);
            u32 y2 = subm(mulsh2(x[2][j], crt + 6, NTT_P2), mulsh2(c0, crt + 8, NTT_P2), NTT_P2);
            y2 = subm(y2, mulsh2(y1, crt + 10, NTT_P2), NTT_P2);
            u64 in = (u64)y2 * NTT_P1 + y1;
            u64 lo = in * NTT_P0 + c0;
            u64 hi = __umul64hi(in, (u64)NTT_P0) + (lo < c0);
            bool live = k0 + j < kw;  // coefficients past the output are dropped
            w0[j] = live ? (u32)lo : 0;
            w1[j] = live ? (u32)(lo >> 32) : 0;
            w2[j] = live ? (u32)hi : 0;
        }
        // V = w0 + w1 << 32 + w2 << 64 (+ addend), C + 2 words.
        u32 V[C + 2];
#pragma unroll
        for (int j = 0; j < C; j++) V[j] = w0[j];
        V[C] = 0;
        V[C + 1] = 0;
        CH_ADD_CC(V[1], w1[0]);
#pragma unroll
        for (int j = 2; j <= C; j++) CH_ADDC_CC(V[j], w1[j - 1]);
        CH_ADDC(V[C + 1], 0u);
        CH_ADD_CC(V[2], w2[0]);
#pragma unroll
        for (int j = 3; j <= C + 1; j++) {
            if (j < C + 1) {
                CH_ADDC_CC(V[j], w2[j - 2]);
            } else {
                CH_ADDC(V[j], w2[j - 2]);
            }
        }
        if (add32) {
            u32 ad[C];
#pragma unroll
            for (int j = 0; j < C; j++) ad[j] = k0 + j < kw ? add32[k0 + j] : 0;
            CH_ADD_CC(V[0], ad[0]);
#pragma unroll
            for (int j = 1; j < C; j++) CH_ADDC_CC(V[j], ad[j]);
            CH_ADDC_CC(V[C], 0u);
            CH_ADDC(V[C + 1], 0u);
        }
#pragma unroll
        for (int j = 0; j < C; j++)
            if (k0 + j < kw) o32[k0 + j] = V[j];
        ovf[2 * beta] = V[C];
        ovf[2 * beta + 1] = V[C + 1];
    }
    __syncthreads();
    for (u32 beta = threadIdx.x; beta < nb; beta += blockDim.x) {
        u32 k0 = beta * C;
        u32 w[C];
#pragma unroll
        for (int j = 0; j < C; j++) w[j] = k0 + j < kw ? o32[k0 + j] : 0;
        u32 o0 = beta ? ovf[2 * beta - 2] : 0, o1 = beta ? ovf[2 * beta - 1] : 0;
        CH_ADD_CC(w[0], o0);
        CH_ADDC_CC(w[1], o1);
#pragma unroll
        for (int j = 2; j < C; j++) CH_ADDC_CC(w[j], 0u);
        u32 e = 0;
        CH_ADDC(e, 0u);
        u32 all = 0xffffffffu;
#pragma unroll
        for (int j = 0; j < C; j++) all &= w[j];
        flags[beta] = beta == nb - 1 ? 0 : (u8)(e | ((u32)(all == 0xffffffffu) << 1));
#pragma unroll
        for (int j = 0; j < C; j++)
            if (k0 + j < kw) o32[k0 + j] = w[j];
    }
    __syncthreads();
    carry_scan(flags, chunk, nb);
    for (u32 beta = threadIdx.x; beta < nb; beta += blockDim.x) {
        if (!(flags[beta] & 4)) continue;
        u32 k0 = beta * C;
        u32 cin = 1;
        for (int j = 0; j < C && cin && k0 + j < kw; j++) {
            u32 s = o32[k0 + j] + 1;
            o32[k0 + j] = s;
            cin = s == 0;
        }
    }
}
#endif  // MUL_NTT
