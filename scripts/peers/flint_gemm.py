#!/usr/bin/env python3
"""FLINT's arb_mat_mul (python-flint's arb_mat @ arb_mat), the peer of
`mparray bench blas`'s GEMM: C = A*B, n x n, at p bits (ctx.prec) on T
threads (ctx.threads).

Inputs: exact p-bit midpoints (random mantissas, random signs, exponents
like the bench's uniform [-1, 1)), radius 0, so the product's midpoints
are FLINT's (not guaranteed correctly rounded; the radii bound the error).
Prints one line per case, best of RUNS after one warm-up: op, prec, n,
threads, ms, GMAC/s (n^3 multiply-accumulates per second), and the largest
radius of the result's first row (what the enclosure costs in accuracy).

Use: flint_gemm.py THREADS PRECS SIZES [RUNS]
  e.g. PYTHONPATH=/tmp/site python3 flint_gemm.py 16 512 256,1024 3
"""

import random
import sys
import time

import flint
from flint import arb, arb_mat, ctx, fmpz


def rand_matrix(n, p, rng):
    """An n x n arb_mat of exact p-bit values in (-1, 1)."""
    rows = []
    for _ in range(n):
        row = []
        for _ in range(n):
            m = rng.getrandbits(p) | (1 << (p - 1))
            if rng.getrandbits(1):
                m = -m
            row.append(arb((fmpz(m), -p - rng.randrange(5))))
        rows.append(row)
    return arb_mat(rows)


def main():
    if len(sys.argv) < 4:
        print(__doc__, file=sys.stderr)
        sys.exit(2)
    threads = int(sys.argv[1])
    precs = [int(x) for x in sys.argv[2].split(",")]
    sizes = [int(x) for x in sys.argv[3].split(",")]
    runs = max(1, int(sys.argv[4])) if len(sys.argv) > 4 else 3
    ctx.threads = threads
    rng = random.Random(1)
    print(f"python-flint {flint.__version__}, {threads} threads, best of {runs} runs after a warm-up")
    print(f"{'op':<5} {'prec':>5} {'n':>8} {'thr':>3} {'ms':>12} {'GMAC/s':>10}  max radius (row 0)")
    for p in precs:
        ctx.prec = p
        for n in sizes:
            a = rand_matrix(n, p, rng)
            b = rand_matrix(n, p, rng)
            best = float("inf")
            for r in range(runs + 1):
                t0 = time.perf_counter()
                c = a * b
                s = time.perf_counter() - t0
                if r > 0:
                    best = min(best, s)
            rad = max(float(c[0, j].rad()) for j in range(n))
            print(
                f"{'gemm':<5} {p:>5} {n:>8} {threads:>3} {best * 1e3:>12.3f} "
                f"{n ** 3 / best / 1e9:>10.5f}  {rad:.3e}",
                flush=True,
            )


if __name__ == "__main__":
    main()
