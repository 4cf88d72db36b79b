// Host emulation of the CUDA float kernels: compiles src/kernels/
// float_common.cuh with g++ and runs the same per-element code as
// float_arith.cu / float_misc.cu on jobs written by tests/float_cuda.rs
// (MPARRAY_FLOAT_EMU=path/to/emu). Job on stdin, all u64 little-endian:
// op rnd p n lx ly lz k len, then xh, xl, yh, yl, zh, zl; answer on stdout:
// rh, rl, tern (one i64 each).
// Build: g++ -O2 -o emu emu.cpp (add -fsanitize=address,undefined to check
// that the scratch sizes of fl_scratch suffice)
#include <cstdio>
#include <cstdlib>
#include <vector>
typedef unsigned long long u64;
typedef unsigned int u32;
typedef long long i64;
typedef unsigned char u8;
#include "../../../src/kernels/float_common.cuh"

// The register paths for the tiers that have them (as float_arith.cu's
// tile kernels): mul (short product, exact product when it cannot decide),
// add/sub, sqrt (tiers up to 8); false when the generic code applies.
template <int N>
static bool fastn(u32 op, FlOut &o, u64 xh, const u64 *xm, u64 yh, const u64 *ym, u64 p, u32 rnd,
                  i8 &t) {
    bool xnorm = (fl_tag(xh) & 3) == FL_NORMAL, ynorm = (fl_tag(yh) & 3) == FL_NORMAL;
    if (op == FL_OP_MUL && xnorm && ynorm) {
        if (getenv("MPARRAY_FLOAT_EMU_FULLMUL") || N < 4 || !fl_mul_short<N>(o, xh, xm, yh, ym, p, rnd, t))
            t = fl_mul_fast<N>(o, xh, xm, yh, ym, p, rnd);
        return true;
    }
    if ((op == FL_OP_ADD || op == FL_OP_SUB) && xnorm && ynorm) {
        t = fl_add_fast<N>(o, xh, xm, yh, ym, op == FL_OP_SUB, p, rnd);
        return true;
    }
    if (op == FL_OP_SQRT && N <= 8 && xnorm && (fl_tag(xh) & FL_NEG) == 0)
        return fl_sqrt_fast<(N <= 8 ? N : 1)>(o, xh, xm, p, rnd, t);
    return false;
}

static bool fast(u32 op, u32 n, FlOut &o, u64 xh, const u64 *xm, u64 yh, const u64 *ym, u64 p,
                 u32 rnd, i8 &t) {
    switch (n) {
#define F(N)                                                                                   \
    case N: return fastn<N>(op, o, xh, xm, yh, ym, p, rnd, t);
        F(1) F(2) F(3) F(4) F(6) F(8) F(12) F(16)
#undef F
    default: return false;
    }
}

static std::vector<u64> rd(size_t n) {
    std::vector<u64> v(n ? n : 1);
    if (n && fread(v.data(), 8, n, stdin) != n) exit(3);
    return v;
}

int main() {
    std::vector<u64> h = rd(9);
    u32 op = h[0], rnd = h[1], n = h[3], lx = h[4], ly = h[5], lz = h[6];
    u64 p = h[2], len = h[8];
    i64 k = (i64)h[7];
    auto xh = rd(len), xl = rd(len * lx), yh = rd(len), yl = rd(len * ly), zh = rd(len),
         zl = rd(len * lz);
    std::vector<u64> rh(len), rl(len * n + 1);
    std::vector<i64> tn(len);
    // MPARRAY_FLOAT_EMU_INPLACE=1: the result written over an operand (x in
    // even elements, y in odd ones where the op has y), as the expression
    // kernels do: a slot of max(n, l) limbs holding the operand, the same
    // base for both.
    const bool inplace = getenv("MPARRAY_FLOAT_EMU_INPLACE") != nullptr;
    u32 mx = n > lx ? n : lx;
    mx = mx > ly ? mx : ly;
    std::vector<u64> slot(mx + 1);
    for (u64 i = 0; i < len; i++) {
        FlOut o = {rl.data() + i * n, n, 0};
        i8 t;
        if (inplace) {
            bool ony = (i & 1) && ly > 0 && op != FL_OP_SQRT && op != FL_OP_CMP;
            u32 l = ony ? ly : lx;
            std::vector<u64> &src = ony ? yl : xl;
            for (u32 j = 0; j <= mx; j++) slot[j] = 0xdeadbeefcafef00dull;
            for (u32 j = 0; j < l; j++) slot[j] = src[i * l + j];
            const u64 *xm = ony ? xl.data() + i * lx : slot.data();
            const u64 *ym = ony ? slot.data() : yl.data() + i * ly;
            o.m = slot.data();
            if ((op == FL_OP_MUL || op == FL_OP_ADD || op == FL_OP_SUB || op == FL_OP_SQRT) &&
                n == lx && (op == FL_OP_SQRT || n == ly) &&
                fast(op, n, o, xh[i], xm, yh[i], ym, p, rnd, t))
                ;
            else if (op <= FL_OP_FMS) {
                u32 a, b, c, pp;
                fl_scratch(op, n, lx, op == FL_OP_SQRT ? 0 : ly, op >= FL_OP_FMA ? lz : 0, a, b, c,
                           pp);
                std::vector<u64> A(a), B(b), C(c), P(pp);
                t = fl_arith_buf(op, rnd, p, o, xh[i], xm, lx, yh[i], ym, ly, zh[i],
                                 zl.data() + i * lz, lz, A.data(), B.data(), C.data(), P.data());
            } else if (op == FL_OP_CMP)
                t = fl_cmp(xh[i], xm, lx, yh[i], ym, ly);
            else
                t = fl_misc(op, rnd, p, k, o, xh[i], xm, lx, yh[i], ym, ly);
            for (u32 j = 0; j < n; j++) rl[i * n + j] = op == FL_OP_CMP ? 0 : slot[j];
            rh[i] = o.head;
            tn[i] = t;
            continue;
        }
        if (op == FL_OP_CMP)
            t = fl_cmp(xh[i], xl.data() + i * lx, lx, yh[i], yl.data() + i * ly, ly);
        else if ((op == FL_OP_MUL || op == FL_OP_ADD || op == FL_OP_SUB || op == FL_OP_SQRT) &&
                 n == lx && (op == FL_OP_SQRT || n == ly) &&
                 fast(op, n, o, xh[i], xl.data() + i * lx, yh[i], yl.data() + i * ly, p, rnd, t))
            ;
        else if (op <= FL_OP_FMS) {
            // Scratch of exactly fl_scratch's sizes, each its own heap block,
            // so that -fsanitize=address catches any overflow.
            u32 a, b, c, pp;
            fl_scratch(op, n, lx, op == FL_OP_SQRT ? 0 : ly, op >= FL_OP_FMA ? lz : 0, a, b, c,
                       pp);
            std::vector<u64> A(a), B(b), C(c), P(pp);
            t = fl_arith_buf(op, rnd, p, o, xh[i], xl.data() + i * lx, lx, yh[i],
                             yl.data() + i * ly, ly, zh[i], zl.data() + i * lz, lz, A.data(),
                             B.data(), C.data(), P.data());
        }
        else
            t = fl_misc(op, rnd, p, k, o, xh[i], xl.data() + i * lx, lx, yh[i],
                        yl.data() + i * ly, ly);
        rh[i] = o.head;
        tn[i] = t;
    }
    fwrite(rh.data(), 8, len, stdout);
    fwrite(rl.data(), 8, len * n, stdout);
    fwrite(tn.data(), 8, len, stdout);
    return 0;
}
