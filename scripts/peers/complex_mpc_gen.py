#!/usr/bin/env python3
"""Random complex operands for scripts/peers/complex_mpc_cmp.sh: lines "re im" of
exact hex floats with at most BITS bits: random values across magnitudes,
special values (+-0, +-inf, nan) in either part, small integers, parts of
equal magnitude, exact squares (for sqrt), values near the unit circle
(for log) and tiny or large parts.
usage: complex_mpc_gen.py SEED N FILE BITS [FN]"""
import random, sys
from fractions import Fraction

seed, n, path, bits = int(sys.argv[1]), int(sys.argv[2]), sys.argv[3], int(sys.argv[4])
fn = sys.argv[5] if len(sys.argv) > 5 else ""
# tan, tanh: MPC 1.3.1 misrounds |Im tan z| = 1 +- tiny for |Im z| >= 2^64 or
# so (notes/complex.md), so their large parts stay below 2^10 (MPC is also
# very slow on tan of large imaginary parts).
LARGE = 10 if fn in ("tan", "tanh") else 200
R = random.Random(seed)
SPECIAL = ["0", "-0", "inf", "-inf", "nan"]

def hexf(m, e):
    if m == 0:
        return "0"
    s = "-" if m < 0 else ""
    return "%s0x%xp%+d" % (s, abs(m), e)

def rnd_float(emin=-20, emax=20):
    b = R.randint(1, bits)
    m = R.getrandbits(b) | (1 << (b - 1))
    if R.random() < 0.5:
        m = -m
    return (m, R.randint(emin, emax) - b)

def frac(m, e):
    return Fraction(m) * (Fraction(2) ** e)

def to_hex(q):
    # q is dyadic
    if q == 0:
        return "0"
    num, den = q.numerator, q.denominator
    e = 0
    while den > 1:
        den //= 2
        e -= 1
    return hexf(num, e)

def value():
    r = R.random()
    if r < 0.08:
        return R.choice(SPECIAL)
    if r < 0.15:
        return str(R.randint(-4, 4))
    if r < 0.2:
        return hexf(*rnd_float(-300, -200))
    if r < 0.25:
        return hexf(*rnd_float(min(30, LARGE - 8), LARGE))
    return hexf(*rnd_float())

with open(path, "w") as f:
    for i in range(n):
        r = R.random()
        if fn == "sqrt" and r < 0.25:
            # an exact square (x + iy)^2 with small x, y
            hb = max(1, bits // 2 - 1)
            x = frac(R.getrandbits(hb) * R.choice([-1, 1]), R.randint(-10, 10))
            y = frac(R.getrandbits(hb) * R.choice([-1, 1]), R.randint(-10, 10))
            re, im = x * x - y * y, 2 * x * y
            if max(abs(re.numerator), abs(im.numerator)).bit_length() <= bits:
                f.write("%s %s\n" % (to_hex(re), to_hex(im)))
                continue
        if fn == "pow" and r < 0.6:
            # small integers and half-integers (real or not), +-1, +-i,
            # t +- ti, negative reals with either zero, Gaussian integers,
            # moderate values (so that most powers stay in range)
            z = R.choice(["0", "-0"])
            k = R.random()
            if k < 0.2:
                f.write("%s %s\n" % (hexf(R.randint(-9, 9), R.choice([0, -1])), z if R.random() < 0.7 else hexf(*rnd_float(-4, 2))))
            elif k < 0.35:
                f.write(R.choice(["1 0", "1 -0", "-1 0", "-1 -0", "0 1", "-0 1", "0 -1", "-0 -1"]) + "\n")
            elif k < 0.5:
                m, e = rnd_float(-4, 4)
                f.write("%s %s\n" % (hexf(m, e), hexf(m * R.choice([-1, 1]), e)))
            elif k < 0.65:
                f.write("%s %s\n" % (hexf(-R.randint(1, 40), R.randint(-4, 2)), z))
            elif k < 0.8:
                f.write("%d %d\n" % (R.randint(-6, 6), R.randint(-6, 6)))
            else:
                f.write("%s %s\n" % (hexf(*rnd_float(-6, 3)), z if R.random() < 0.3 else hexf(*rnd_float(-6, 3))))
            continue
        if fn == "log" and r < 0.15:
            # near the unit circle
            m, e = rnd_float(-bits, -1)
            f.write("%s %s\n" % (hexf(m, e), hexf((1 << (bits - 1)) + R.randint(-3, 3), -bits + 1)))
            continue
        if r < 0.05:
            v = value()
            f.write("%s %s\n" % (v, v if R.random() < 0.5 else ("-" + v if not v.startswith("-") else v[1:])))
            continue
        f.write("%s %s\n" % (value(), value()))
