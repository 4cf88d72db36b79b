# Model of blas_dot's tensor-core path (src/kernels/blas.cu, bl_dm_*): one
# warp's rounds of 32 positions with the kernel's data movement (the 4 x 4
# byte transpose by shuffles and byte permutes, the swizzled 32-byte form
# rows, ldmatrix's and mma.m16n8k32's fragment layouts, the per-lane
# relative-diagonal sums R0/R1 and Nr, the flush into D and Nv, the final
# coefficients), checked against the signed sum of the byte-pair short
# products (u + v >= 68) computed directly. Run: python3 dot_mma_model.py
import random, sys

def bperm(x, y, s):
    b = [(x >> (8 * i)) & 255 for i in range(4)] + [(y >> (8 * i)) & 255 for i in range(4)]
    return sum(b[(s >> (4 * n)) & 7] << (8 * n) for n in range(4))

def tr(xs):
    y = [xs[l ^ 2] for l in range(32)]
    x = [bperm(xs[l], y[l], 0x3276 if l & 2 else 0x5410) for l in range(32)]
    y = [x[l ^ 1] for l in range(32)]
    return [bperm(x[l], y[l], 0x3715 if l & 1 else 0x6240) for l in range(32)]

def addr(base, row, c):
    return base + row * 32 + 16 * (c ^ ((row >> 2) & 1))

def rd(smem, a):
    return int.from_bytes(smem[a:a + 4], 'little')

def ldm(smem, rows, nmat):
    regs = [[0] * nmat for _ in range(32)]
    for mi in range(nmat):
        for l in range(32):
            regs[l][mi] = rd(smem, rows[8 * mi + (l >> 2)] + 4 * (l & 3))
    return regs

def mma(A, B0, B1):
    Am = [[0] * 32 for _ in range(16)]
    Bm = [[0] * 8 for _ in range(32)]
    for l in range(32):
        g, t = l >> 2, l & 3
        for i in range(4):
            byte = lambda w: (w >> (8 * i)) & 255
            Am[g][4 * t + i] = byte(A[l][0]); Am[g + 8][4 * t + i] = byte(A[l][1])
            Am[g][16 + 4 * t + i] = byte(A[l][2]); Am[g + 8][16 + 4 * t + i] = byte(A[l][3])
            Bm[4 * t + i][g] = byte(B0[l]); Bm[16 + 4 * t + i][g] = byte(B1[l])
    d = [[0] * 4 for _ in range(32)]
    for l in range(32):
        g, t = l >> 2, l & 3
        for e in range(4):
            row, col = g + 8 * (e >> 1), 2 * t + (e & 1)
            d[l][e] = sum(Am[row][k] * Bm[k][col] for k in range(32))
    return d

def warp_sum(X, Y, S, rounds, flush_every=32):
    smem = bytearray(80 * 32 + 72 * 32)
    XT, YT = 0, 80 * 32
    D = [0] * 80; Nv = [0] * 72
    R0 = [[0] * 18 for _ in range(32)]; R1 = [[0] * 18 for _ in range(32)]
    Nr = [[[0, 0] for _ in range(9)] for _ in range(32)]
    def flush():
        for l in range(32):
            g, t = l >> 2, l & 3
            for j in range(18):
                d = 8 * j + g + 2 * t
                if 68 <= d < 148: D[d - 68] += R0[l][j]
                if 68 <= d + 1 < 148: D[d + 1 - 68] += R1[l][j]
                R0[l][j] = R1[l][j] = 0
            for n in range(9):
                if g == 0:
                    Nv[8 * n + 2 * t] += Nr[l][n][0]; Nv[8 * n + 2 * t + 1] += Nr[l][n][1]
                Nr[l][n] = [0, 0]
    for r in range(rounds):
        xs, ys, ss = X[32 * r:32 * r + 32], Y[32 * r:32 * r + 32], S[32 * r:32 * r + 32]
        for q, (vals, ft) in enumerate(((xs, XT), (ys, YT))):
            for j in range(18):
                w = [((vals[l] >> (32 * j)) & 0xffffffff) ^ (0xffffffff if (q == 0 and ss[l]) else 0) for l in range(32)]
                tw = tr(w)
                for l in range(32):
                    g, b = l >> 2, l & 3
                    a = addr(ft, 4 * j + b, g >> 2) + 4 * (g & 3)
                    smem[a:a + 4] = tw[l].to_bytes(4, 'little')
        nmask = sum(1 << l for l in range(32) if ss[l])
        for l in range(8):
            n4 = (nmask >> (4 * l)) & 15
            nw = (n4 & 1) | ((n4 & 2) << 7) | ((n4 & 4) << 14) | ((n4 & 8) << 21)
            a = addr(XT, 72, l >> 2) + 4 * (l & 3)
            smem[a:a + 4] = nw.to_bytes(4, 'little')
        A = [ldm(smem, [addr(XT, 16 * mu + (l & 7) + 8 * ((l >> 3) & 1), (l >> 3) >> 1) for l in range(32)], 4) for mu in range(5)]
        for nv in range(0, 9, 2):
            if nv + 1 < 9:
                b = ldm(smem, [addr(YT, 8 * (nv + ((l >> 3) >> 1)) + (l & 7), (l >> 3) & 1) for l in range(32)], 4)
            else:
                b = ldm(smem, [addr(YT, 8 * nv + (l & 7), (l >> 3) & 1) for l in range(32)], 2)
            for h in range(2):
                n = nv + h
                if n >= 9: continue
                for mu in range(5):
                    if 16 * mu + 8 * n < 46: continue
                    d = mma([A[mu][l] for l in range(32)], [b[l][2 * h] for l in range(32)], [b[l][2 * h + 1] for l in range(32)])
                    j = 2 * mu + n
                    for l in range(32):
                        R0[l][j] += d[l][0]; R1[l][j] += d[l][1]
                        if mu == 4:
                            Nr[l][n][0] += d[l][2]; Nr[l][n][1] += d[l][3]
                        else:
                            R0[l][j + 1] += d[l][2]; R1[l][j + 1] += d[l][3]
                    assert all(max(R0[l] + R1[l]) < 2 ** 32 for l in range(32))
        if r % flush_every == flush_every - 1: flush()
    flush()
    coef = [0] * 80
    for p in range(80):
        c = D[p]
        if 4 <= p < 76: c -= Nv[p - 4]
        if p <= 3: c += Nv[68 + p]
        if p == 0: c += sum(Nv[:68])
        coef[p] = c
    acc, cy = 0, 0
    for w in range(20):
        x = coef[4 * w] + coef[4 * w + 1] * 256 + coef[4 * w + 2] * 65536 + coef[4 * w + 3] * 16777216 + cy
        acc |= (x & 0xffffffff) << (32 * w)
        cy = x >> 32
    return acc

def reference(X, Y, S):
    ref = 0
    for x, y, s in zip(X, Y, S):
        xb = [(x >> (8 * u)) & 255 for u in range(72)]
        yb = [(y >> (8 * v)) & 255 for v in range(72)]
        kept = sum(xb[u] * yb[v] << (8 * (u + v - 68)) for u in range(72) for v in range(72) if u + v >= 68)
        ref += -kept if s else kept
    return ref % (1 << 640)

random.seed(int(sys.argv[1]) if len(sys.argv) > 1 else 1)
for trial in range(6):
    rounds = random.choice([1, 2, 3])
    n = 32 * rounds
    kind = trial % 3
    # Values: random 576-bit, short (few low words zero), all-ones bytes, zeros.
    def val():
        c = random.random()
        if c < 0.1: return 0
        if c < 0.2: return (1 << 576) - 1
        if c < 0.4: return random.getrandbits(576) >> (32 * random.randrange(0, 18)) << (32 * random.randrange(0, 2))
        return random.getrandbits(576)
    X = [val() for _ in range(n)]; Y = [val() for _ in range(n)]
    S = [random.random() < 0.5 for _ in range(n)]
    got = warp_sum(X, Y, S, rounds, flush_every=1 if kind == 1 else 32)
    ok = got == reference(X, Y, S)
    print(f"trial {trial}: {rounds} rounds, {'ok' if ok else 'MISMATCH'}")
    if not ok: sys.exit(1)
