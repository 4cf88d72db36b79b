#!/usr/bin/env python3
"""Huge-argument functions against GNU MPFR (gmpy2 bundles MPFR 4.2).

Random inputs with exponents from 2^8 to 2^EMAX_LG (and a few near
multiples of pi/2 found by continued fractions are not attempted: random
mantissas only), every rounding mode, precisions 1..2048; each batch is
evaluated by `mparray float FUNC --hex --ternary` and by MPFR, and the bits
and ternary values compared. Usage:

    pip install --target /tmp/gm gmpy2
    PYTHONPATH=/tmp/gm scripts/peers/trig_huge_cmp.py [BIN] [N] [EMAX_LG] [SEED]
"""
import random
import subprocess
import sys
import tempfile

import gmpy2
from gmpy2 import mpfr

BIN = sys.argv[1] if len(sys.argv) > 1 else "target/release/mparray"
N = int(sys.argv[2]) if len(sys.argv) > 2 else 20
EMAX_LG = int(sys.argv[3]) if len(sys.argv) > 3 else 22
SEED = int(sys.argv[4]) if len(sys.argv) > 4 else 1
MODES = {
    "N": gmpy2.RoundToNearest,
    "Z": gmpy2.RoundToZero,
    "U": gmpy2.RoundUp,
    "D": gmpy2.RoundDown,
    "A": gmpy2.RoundAwayZero,
}


def ctx(prec, rnd):
    c = gmpy2.context()
    c.precision = prec
    c.round = rnd
    c.emax = (1 << 30) - 1
    c.emin = -(1 << 30) + 1
    return c


def ternary(f, x, y, p):
    # The exact value is irrational: compare with a far more precise value
    # (log(1 + d) is within d^2 of d: twice the input's bits).
    with ctx(p + 200 + 2 * x.precision, gmpy2.RoundToNearest):
        z = getattr(gmpy2, f)(x)
    return (y > z) - (y < z)


def main():
    rng = random.Random(SEED)
    bad = total = 0
    for f in ["sin", "cos", "tan", "sinh", "cosh", "exp", "log"]:
        for mode in MODES:
            p = rng.choice([1, 2, 24, 53, 64, 113, 200, 512, 1024, 2048])
            q = rng.choice([p, 53, 200])
            if f == "log":
                # 1 + d with d of a few bits far below 1 (x needs k + 1 bits).
                k = rng.choice([100, 1000, 20000, 100000])
                q = k + rng.randint(1, 3)
            xs = []
            with ctx(q, gmpy2.RoundToNearest):
                for _ in range(N):
                    if f in ("sin", "cos", "tan"):
                        e = rng.randint(8, EMAX_LG)
                        e = rng.randint(1 << (e - 1), 1 << e)
                    else:
                        # Near overflow: |x| around 2^29.5 (exp's edge 744261117.95).
                        e = 30
                    if f == "log":
                        d = gmpy2.mul_2exp(mpfr(rng.choice([1, 3, 5, -1, -3])), -k + rng.randint(-3, 0))
                        xs.append(1 + d)
                        continue
                    m = rng.getrandbits(q) | (1 << (q - 1))
                    x = gmpy2.mul_2exp(mpfr(m), e - q)
                    if f in ("sinh", "cosh", "exp"):
                        x = mpfr(744261117.95 * rng.uniform(0.999, 1.0)) if rng.random() < 0.5 else x / 2
                    if rng.random() < 0.5:
                        x = -x
                    xs.append(x)
            with tempfile.NamedTemporaryFile("w", suffix=".txt", delete=False) as fh:
                for x in xs:
                    fh.write(x.__format__("a") + "\n")
                name = fh.name
            out = subprocess.run(
                [BIN, "float", f, "--prec", str(p), "--in-prec", str(q), "--round", mode,
                 "--hex", "--ternary", "--engine", "cpu", name],
                capture_output=True, text=True, check=True).stdout.split("\n")
            for x, line in zip(xs, out):
                got, t = line.rsplit(" ", 1) if " " in line else (line, "?")
                with ctx(p, MODES[mode]):
                    y = getattr(gmpy2, f)(x)
                    g = mpfr(got, p) if got not in ("inf", "-inf", "nan") else mpfr(got)
                tt = ternary(f, x, y, p) if gmpy2.is_finite(y) and not gmpy2.is_zero(y) else None
                ok = (g == y or (gmpy2.is_nan(g) and gmpy2.is_nan(y))) and (tt is None or int(t) == tt)
                total += 1
                if total % 97 == 0:
                    print("sample", f, p, mode, x.__format__("a")[:40], line[:60], y.__format__("a")[:40], tt)
                if not ok:
                    bad += 1
                    print("MISMATCH", f, p, mode, x.__format__("a")[:80], "ours", line[:200], "mpfr", y.__format__("a")[:200], tt)
    print(f"{total} compared, {bad} mismatches (seed {SEED})")
    sys.exit(1 if bad else 0)


main()
