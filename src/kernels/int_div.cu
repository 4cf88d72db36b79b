// Division with remainder (floor). Baseline tier: one thread per element,
// Knuth's algorithm D; scratch holds 2*limbs+1 limbs per element.
#include "common.cuh"

__device__ __forceinline__ u32 nlen(const u64 *a, u32 l) {
    while (l > 0 && a[l - 1] == 0) l--;
    return l;
}

// Divides the 128-bit (hi:lo) by d (hi < d), returning the quotient and remainder.
__device__ __forceinline__ u64 div128(u64 hi, u64 lo, u64 d, u64 &rem) {
    unsigned __int128 t = ((unsigned __int128)hi << 64) | lo;
    u64 q = (u64)(t / d);
    rem = (u64)(t - (unsigned __int128)q * d);
    return q;
}

// zero_at: the lowest element index whose divisor is zero (atomicMin).
extern "C" __global__ void int_divrem_thread(u64 *q, u64 *r, const u64 *a, const u64 *b,
                                             u64 *scratch, unsigned long long *zero_at, u64 n,
                                             u32 limbs) {
    for (u64 i = blockIdx.x * (u64)blockDim.x + threadIdx.x; i < n;
         i += (u64)gridDim.x * blockDim.x) {
        const u64 *u = a + i * limbs, *v = b + i * limbs;
        u64 *qq = q + i * limbs, *rr = r + i * limbs;
        u64 *un = scratch + i * (2 * limbs + 1), *vn = un + limbs + 1;
        for (u32 k = 0; k < limbs; k++) qq[k] = rr[k] = 0;
        u32 nv = nlen(v, limbs), m = nlen(u, limbs);
        if (nv == 0) {
            atomicMin(zero_at, (unsigned long long)i);
            continue;
        }
        if (m < nv) {
            for (u32 k = 0; k < m; k++) rr[k] = u[k];
            continue;
        }
        if (nv == 1) {
            u64 rem = 0;
            for (int k = (int)m - 1; k >= 0; k--) qq[k] = div128(rem, u[k], v[0], rem);
            rr[0] = rem;
            continue;
        }
        u32 s = __clzll(v[nv - 1]);
        for (u32 k = nv - 1; k > 0; k--) vn[k] = s ? (v[k] << s) | (v[k - 1] >> (64 - s)) : v[k];
        vn[0] = v[0] << s;
        un[m] = s ? u[m - 1] >> (64 - s) : 0;
        for (u32 k = m - 1; k > 0; k--) un[k] = s ? (u[k] << s) | (u[k - 1] >> (64 - s)) : u[k];
        un[0] = u[0] << s;
        u64 vtop = vn[nv - 1], vnext = vn[nv - 2];
        for (int j = (int)(m - nv); j >= 0; j--) {
            u64 qhat, rhat;
            bool rhat_big = false;
            if (un[j + nv] >= vtop) {
                qhat = ~0ull;
                // rhat = un[j+nv]*2^64 + un[j+nv-1] - qhat*vtop = un[j+nv-1] + vtop (may overflow)
                rhat = un[j + nv - 1] + vtop;
                rhat_big = rhat < vtop;
            } else {
                qhat = div128(un[j + nv], un[j + nv - 1], vtop, rhat);
            }
            while (!rhat_big) {
                u64 plo, phi;
                mul_wide_u64(qhat, vnext, plo, phi);
                if (phi > rhat || (phi == rhat && plo > un[j + nv - 2])) {
                    qhat--;
                    u64 old = rhat;
                    rhat += vtop;
                    rhat_big = rhat < old;
                } else {
                    break;
                }
            }
            // un[j..j+nv] -= qhat * vn
            u64 carry = 0;
            for (u32 k = 0; k < nv; k++) {
                u64 plo, phi;
                mul_wide_u64(qhat, vn[k], plo, phi);
                plo += carry;
                phi += plo < carry;
                u64 t = un[j + k];
                un[j + k] = t - plo;
                phi += t < plo;
                carry = phi;
            }
            u64 t = un[j + nv];
            un[j + nv] = t - carry;
            if (t < carry) {
                qhat--;
                u32 c = 0;
                for (u32 k = 0; k < nv; k++) un[j + k] = addc_u64(un[j + k], vn[k], c);
                un[j + nv] += c;
            }
            qq[j] = qhat;
        }
        for (u32 k = 0; k < nv; k++)
            rr[k] = s ? (un[k] >> s) | (un[k + 1] << (64 - s)) : un[k];
    }
}
