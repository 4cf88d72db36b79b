// Number-theoretic transforms for huge-integer multiplication.
//
// An operand is cut into 32-bit pieces; its residues modulo three primes
// p = k 2^27 + 1 in (2^31, 2^32) are transformed (length N = 2^n, n <= 27),
// multiplied pointwise and transformed back; the Chinese remainder theorem
// then gives each convolution coefficient exactly (they are below
// 2^26 (2^32-1)^2 < 2^90 < p0 p1 p2 ~ 2^95.1) and the coefficients, 32 bits
// apart, are summed into limbs.
//
// Forward: decimation in frequency (natural order in, bit-reversed out);
// inverse: decimation in time (bit-reversed in, natural out), so no
// permutation pass is needed. Stages with half-size h >= 4096 run as global
// passes of LOGR stages each (each thread holds 2^LOGR elements 2^logs
// apart in registers); the last 12 stages (h < 4096) run on 4096-element
// tiles (three register rounds of 4 stages, exchanged through shared
// memory), fused with the pointwise product and the first 12 inverse
// stages. Arithmetic is Montgomery with R = 2^32, every value fully
// reduced in [0, p); twiddles are stored in Montgomery form.
#include "common.cuh"

#define HN_LOGMAX 27
#define HN_LOGTILE 12
#define HN_TILE (1 << HN_LOGTILE)
#define HN_TL_BITS 14
// Twiddle table per (direction, prime): TL[2^14] = W^e, TH[2^13] = W^(e 2^14),
// TT[4096] with TT[h + j] = w_(2h)^j, ROOT[32] with ROOT[q] = w_(2^q).
#define HN_OFF_TH (1 << HN_TL_BITS)
#define HN_OFF_TT (HN_OFF_TH + (1 << (HN_LOGMAX - HN_TL_BITS)))
#define HN_OFF_ROOT (HN_OFF_TT + HN_TILE)
#define HN_TAB (HN_OFF_ROOT + 32)
#define HN_TPB 256

__constant__ u32 HN_P[3] = {3892314113u, 3489660929u, 3221225473u};
// p^-1 mod 2^32.
__constant__ u32 HN_PINV[3] = {402653185u, 805306369u, 1073741825u};

__device__ __forceinline__ u32 hn_add(u32 a, u32 b, u32 p) {
    u32 s = a + b;
    return (s < a || s >= p) ? s - p : s;
}

__device__ __forceinline__ u32 hn_sub(u32 a, u32 b, u32 p) {
    u32 d = a - b;
    return a < b ? d + p : d;
}

// a b / 2^32 mod p, for a, b < p < 2^32: (ab - m p) / 2^32 with
// m = ab p^-1 mod 2^32 has equal low words, so it is hi(ab) - hi(mp), in (-p, p).
__device__ __forceinline__ u32 hn_mul(u32 a, u32 b, u32 p, u32 pinv) {
    u64 t = (u64)a * b;
    u32 m = (u32)t * pinv;
    u32 u = __umulhi(m, p);
    u32 h = (u32)(t >> 32);
    u32 r = h - u;
    return h < u ? r + p : r;
}

// W^e (Montgomery form) for e < 2^27, W of order 2^27.
__device__ __forceinline__ u32 hn_pow(const u32 *T, u32 e, u32 p, u32 pinv) {
    return hn_mul(T[e & ((1u << HN_TL_BITS) - 1)], T[HN_OFF_TH + (e >> HN_TL_BITS)], p, pinv);
}

// Residues of 32-bit pieces: x[q][i] = piece(lo + i) mod p_q for i < npieces,
// zero up to N. The pieces are the little-endian 32-bit halves of `limbs`.
extern "C" __global__ void hn_load(u32 *x, const u64 *limbs, u64 lo, u64 npieces, u32 logn) {
    u32 q = blockIdx.y;
    u64 N = 1ull << logn;
    u32 p = HN_P[q];
    const u32 *w = (const u32 *)limbs + 2 * lo;
    for (u64 i = (u64)blockIdx.x * blockDim.x + threadIdx.x; i < N;
         i += (u64)gridDim.x * blockDim.x) {
        u32 v = i < npieces ? w[i] : 0u;
        x[q * N + i] = v >= p ? v - p : v;
    }
}

// LOGR radix-2 stages on v[0..2^LOGR), the elements base + t S of a group
// whose largest half-size is H = S 2^(LOGR-1): DIF from H down (forward) or
// DIT up to H (inverse). w0 = w_(2H)^off with off = base mod S; T is the
// (direction, prime) table (for the roots).
template <int LOGR, bool INV>
__device__ __forceinline__ void hn_radix(u32 (&v)[1 << LOGR], u32 w0, const u32 *T, u32 p,
                                         u32 pinv) {
    const int R = 1 << LOGR;
    // wb[k] = w_(2 h_k)^off with h_k = H / 2^k; w_(2H) = W^(2^27 / 2H).
    u32 wb[LOGR];
    wb[0] = w0;
#pragma unroll
    for (int k = 1; k < LOGR; k++) wb[k] = hn_mul(wb[k - 1], wb[k - 1], p, pinv);
#pragma unroll
    for (int kk = 0; kk < LOGR; kk++) {
        const int k = INV ? LOGR - 1 - kk : kk;
        const int d = R >> (k + 1);
        // Pair (t, t + d) sits at j mod h_k = off + (t mod d) S: twiddle
        // wb[k] rho^(t mod d), rho = w_(2 h_k)^S of order R / 2^k.
        u32 rho = T[HN_OFF_ROOT + LOGR - k];
        u32 tw = wb[k];
#pragma unroll
        for (int m = 0; m < d; m++) {
#pragma unroll
            for (int b0 = 0; b0 < R; b0 += 2 * d) {
                u32 a = v[b0 + m], b = v[b0 + m + d];
                if (INV) {
                    b = hn_mul(b, tw, p, pinv);
                    v[b0 + m] = hn_add(a, b, p);
                    v[b0 + m + d] = hn_sub(a, b, p);
                } else {
                    v[b0 + m] = hn_add(a, b, p);
                    v[b0 + m + d] = hn_mul(hn_sub(a, b, p), tw, p, pinv);
                }
            }
            if (m + 1 < d) tw = hn_mul(tw, rho, p, pinv);
        }
    }
}

// LOGR consecutive radix-2 stages over global memory, for the 3 primes
// (blockIdx.y). Half-sizes H = S 2^(LOGR-1) down to S = 2^logs (forward,
// DIF) or S up to H (inverse, DIT). Thread g holds elements
// base + t S, t < 2^LOGR, with base = (g / S) 2H + g % S.
// With src set (the first forward pass), the elements are read as pieces
// of the limbs src[lo..] (piece i < npieces, else 0) reduced mod p, which
// saves the separate load pass.
template <int LOGR, bool INV>
__device__ __forceinline__ void hn_pass(u32 *x, const u32 *tab, u32 logn, u32 logs,
                                        const u64 *src, u64 lo, u64 npieces) {
    const int R = 1 << LOGR;
    u32 q = blockIdx.y;
    u32 p = HN_P[q], pinv = HN_PINV[q];
    u64 N = 1ull << logn;
    u64 g = (u64)blockIdx.x * blockDim.x + threadIdx.x;
    if (g >= (N >> LOGR)) return;
    const u32 *T = tab + (u64)((INV ? 3 : 0) + q) * HN_TAB;
    u32 *xs = x + q * N;
    u64 S = 1ull << logs;
    u64 off = g & (S - 1);
    u64 base = ((g >> logs) << (logs + LOGR)) | off;
    u32 v[R];
    if (src != nullptr) {
        const u32 *w = (const u32 *)src + 2 * lo;
#pragma unroll
        for (int t = 0; t < R; t++) {
            u64 i = base + t * S;
            u32 a = i < npieces ? w[i] : 0u;
            v[t] = a >= p ? a - p : a;
        }
    } else {
#pragma unroll
        for (int t = 0; t < R; t++) v[t] = xs[base + t * S];
    }
    hn_radix<LOGR, INV>(v, hn_pow(T, (u32)(off << (HN_LOGMAX - logs - LOGR)), p, pinv), T, p, pinv);
#pragma unroll
    for (int t = 0; t < R; t++) xs[base + t * S] = v[t];
}

#define HN_PASS(LOGR)                                                                          \
    extern "C" __global__ void hn_fwd##LOGR(u32 *x, const u32 *tab, u32 logn, u32 logs,        \
                                            const u64 *src, u64 lo, u64 npieces) {             \
        hn_pass<LOGR, false>(x, tab, logn, logs, src, lo, npieces);                            \
    }                                                                                          \
    extern "C" __global__ void hn_inv##LOGR(u32 *x, const u32 *tab, u32 logn, u32 logs) {      \
        hn_pass<LOGR, true>(x, tab, logn, logs, nullptr, 0, 0);                                \
    }
HN_PASS(1)
HN_PASS(2)
HN_PASS(3)
HN_PASS(4)
HN_PASS(5)
HN_PASS(6)

// A 4096-point tile is 3 rounds of 4 stages: round r groups elements
// base + 16^(2-r) k (k < 16); thread t's base is t (round 0),
// (t / 16) 256 + t % 16 (round 1) and 16 t (round 2). Shared memory keeps
// one spare word per 16 so that every round's accesses hit distinct banks.
#define HN_SPAD (HN_TILE + HN_TILE / 16)
__device__ __forceinline__ u32 hn_pad(u32 i) { return i + (i >> 4); }

template <int RD> __device__ __forceinline__ u32 hn_tbase(u32 t) {
    return RD == 0 ? t : RD == 1 ? ((t >> 4) << 8) | (t & 15) : t << 4;
}

// One round on v; the base twiddle w_(2H)^off comes from the tile table.
template <int RD, bool INV>
__device__ __forceinline__ void hn_tround(u32 (&v)[16], const u32 *T, u32 p, u32 pinv) {
    const u32 S = 1u << (8 - 4 * RD), H = S << 3;
    u32 off = hn_tbase<RD>(threadIdx.x) & (S - 1);
    hn_radix<4, INV>(v, T[HN_OFF_TT + H + off], T, p, pinv);
}

template <int RD> __device__ __forceinline__ void hn_sload(u32 (&v)[16], const u32 *s) {
    const u32 st = 1u << (8 - 4 * RD);
    u32 b = hn_tbase<RD>(threadIdx.x);
#pragma unroll
    for (int k = 0; k < 16; k++) v[k] = s[hn_pad(b + k * st)];
}

template <int RD> __device__ __forceinline__ void hn_sstore(const u32 (&v)[16], u32 *s) {
    const u32 st = 1u << (8 - 4 * RD);
    u32 b = hn_tbase<RD>(threadIdx.x);
#pragma unroll
    for (int k = 0; k < 16; k++) s[hn_pad(b + k * st)] = v[k];
}

// The 12 tile stages (DIF) of g[0..4096), ending in registers in round-2
// order (16 consecutive elements per thread).
__device__ __forceinline__ void hn_tile_fwd(u32 (&v)[16], const u32 *g, u32 *s, const u32 *T,
                                            u32 p, u32 pinv) {
#pragma unroll
    for (int k = 0; k < 16; k++) v[k] = g[threadIdx.x + k * HN_TPB];
    hn_tround<0, false>(v, T, p, pinv);
    hn_sstore<0>(v, s);
    __syncthreads();
    hn_sload<1>(v, s);
    hn_tround<1, false>(v, T, p, pinv);
    hn_sstore<1>(v, s);
    __syncthreads();
    hn_sload<2>(v, s);
    hn_tround<2, false>(v, T, p, pinv);
}

// The last 12 forward stages of x (and y unless SQR), the pointwise product
// scaled by 1/N (scale_q = 2^64 / N mod p_q), and the first 12 inverse
// stages, on tile blockIdx.x of prime blockIdx.y; the result replaces x.
template <bool SQR>
__device__ __forceinline__ void hn_tile(u32 *x, const u32 *y, const u32 *tab, u32 logn, u32 s0,
                                        u32 s1, u32 s2) {
    __shared__ u32 sx[HN_SPAD];
    __shared__ u32 sy[SQR ? 1 : HN_SPAD];
    u32 q = blockIdx.y;
    u32 p = HN_P[q], pinv = HN_PINV[q];
    u32 scale = q == 0 ? s0 : q == 1 ? s1 : s2;
    u64 N = 1ull << logn;
    u64 at = q * N + (u64)blockIdx.x * HN_TILE;
    const u32 *TF = tab + (u64)q * HN_TAB;
    const u32 *TI = tab + (u64)(3 + q) * HN_TAB;
    u32 v[16];
    hn_tile_fwd(v, x + at, sx, TF, p, pinv);
    if (SQR) {
#pragma unroll
        for (int k = 0; k < 16; k++) v[k] = hn_mul(hn_mul(v[k], v[k], p, pinv), scale, p, pinv);
    } else {
        u32 w[16];
        hn_tile_fwd(w, y + at, sy, TF, p, pinv);
#pragma unroll
        for (int k = 0; k < 16; k++) v[k] = hn_mul(hn_mul(v[k], w[k], p, pinv), scale, p, pinv);
    }
    hn_tround<2, true>(v, TI, p, pinv);
    hn_sstore<2>(v, sx);
    __syncthreads();
    hn_sload<1>(v, sx);
    hn_tround<1, true>(v, TI, p, pinv);
    hn_sstore<1>(v, sx);
    __syncthreads();
    hn_sload<0>(v, sx);
    hn_tround<0, true>(v, TI, p, pinv);
#pragma unroll
    for (int k = 0; k < 16; k++) x[at + threadIdx.x + k * HN_TPB] = v[k];
}

extern "C" __global__ void __launch_bounds__(HN_TPB)
    hn_tile_mul(u32 *x, const u32 *y, const u32 *tab, u32 logn, u32 s0, u32 s1, u32 s2) {
    hn_tile<false>(x, y, tab, logn, s0, s1, s2);
}

extern "C" __global__ void __launch_bounds__(HN_TPB)
    hn_tile_sqr(u32 *x, const u32 *tab, u32 logn, u32 s0, u32 s1, u32 s2) {
    hn_tile<true>(x, x, tab, logn, s0, s1, s2);
}

// The coefficient whose residues are r0, r1, r2 (Garner), below p0 p1 p2.
// c1 = p0^-1 mod p1 and c2 = (p0 p1)^-1 mod p2 in Montgomery form, r2p2 =
// 2^64 mod p2.
__device__ __forceinline__ unsigned __int128 hn_crt(u32 r0, u32 r1, u32 r2, u32 c1, u32 c2,
                                                    u32 r2p2) {
    const u32 p0 = HN_P[0], p1 = HN_P[1], p2 = HN_P[2];
    u32 x0m1 = r0 >= p1 ? r0 - p1 : r0;
    u32 x1 = hn_mul(hn_sub(r1, x0m1, p1), c1, p1, HN_PINV[1]);
    u64 y = (u64)x1 * p0 + r0;
    u32 yl = (u32)y, yh = (u32)(y >> 32);
    yl = yl >= p2 ? yl - p2 : yl;
    yh = yh >= p2 ? yh - p2 : yh;
    u32 ym = hn_add(yl, hn_mul(yh, r2p2, p2, HN_PINV[2]), p2);
    u32 x2 = hn_mul(hn_sub(r2, ym, p2), c2, p2, HN_PINV[2]);
    return (unsigned __int128)y + (unsigned __int128)x2 * ((u64)p0 * p1);
}

// Limb j of the product, before carries: T_j = c_(2j) + c_(2j+1) 2^32 (< 2^124).
// lo[j] = T_j mod 2^64, hi[j] = T_j >> 64, for j < nlimbs; the caller then
// adds hi one limb up into lo.
extern "C" __global__ void hn_crt_limbs(u64 *lo, u64 *hi, const u32 *x, u32 logn, u64 nlimbs,
                                        u32 c1, u32 c2, u32 r2p2) {
    u64 N = 1ull << logn;
    for (u64 j = (u64)blockIdx.x * blockDim.x + threadIdx.x; j < nlimbs;
         j += (u64)gridDim.x * blockDim.x) {
        u64 i = 2 * j;
        unsigned __int128 a = hn_crt(x[i], x[N + i], x[2 * N + i], c1, c2, r2p2);
        unsigned __int128 b = hn_crt(x[i + 1], x[N + i + 1], x[2 * N + i + 1], c1, c2, r2p2);
        unsigned __int128 t = a + (b << 32);
        lo[j] = (u64)t;
        hi[j] = (u64)(t >> 64);
    }
}
