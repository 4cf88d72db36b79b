#!/usr/bin/env python3
"""Peer figures for `mparray bench solvers`: python-flint's acb_poly.roots
on the same polynomials (Wilkinson prod_{k=1..n}(z-k) with exact integer
coefficients, and the Chebyshev quadrature-node polynomial with exact
rational coefficients rounded to the working precision).

Usage: flint_roots.py [--n 64,128,256] [--prec 128,256,512,1024]
                      [--problems wilkinson,chebyshev] [--threads T]
                      [--tol-bits T] [--runs R] [--json]

Compare at the same accuracy: run `mparray bench solvers` first, then pass
--tol-bits so that FLINT's certified radius reaches the accuracy mparray's
roots have (its `log10 err` column for Wilkinson); without it FLINT only
isolates the roots.

Prints per case: time to all roots (median of --runs), the largest radius
of the returned balls (log10, FLINT's certified accuracy) and, for
Wilkinson, the largest distance of a midpoint to its exact root (log10), to
compare with mparray's `log10 err` at the same precision. Needs
`pip install python-flint`.
"""
import argparse
import json
import math
import statistics
import sys
import time
from fractions import Fraction

import flint


def wilkinson(n):
    c = [1]
    for k in range(1, n + 1):
        nxt = [0] * (len(c) + 1)
        for i, ci in enumerate(c):
            nxt[i + 1] += ci
            nxt[i] -= k * ci
        c = nxt
    return [Fraction(v) for v in c]  # ascending


def chebyshev_nodes(n):
    a = [Fraction(0)] * (n + 1)
    a[0] = Fraction(1)
    for i in range(1, n // 2 + 1):
        s = sum(a[2 * (i - j)] / (2 * j + 1) for j in range(1, i + 1))
        a[2 * i] = -Fraction(n, 2 * i) * s
    return a[::-1]  # ascending: c[k] = a_{n-k}


def log10_mag(x):
    """log10 of a nonnegative arb/arf upper bound, via its float value."""
    v = float(x)
    return -math.inf if v == 0 else math.log10(v)


def run_case(problem, n, prec, runs, tol_bits):
    flint.ctx.prec = prec
    coeffs = wilkinson(n) if problem == "wilkinson" else chebyshev_nodes(n)
    # Coefficients rounded once to the working precision, as exact
    # midpoints (radius 0): the same polynomial mparray solves (exact for
    # Wilkinson when prec covers the coefficients).
    cs = [flint.arb(flint.fmpq(c.numerator, c.denominator)).mid() for c in coeffs]
    p = flint.acb_poly([flint.acb(c) for c in cs])
    tol = flint.arb(2) ** (-tol_bits) if tol_bits is not None else None
    times = []
    roots = None
    for _ in range(runs):
        t = time.perf_counter()
        roots = p.roots(tol=tol, maxprec=8 * prec)
        times.append((time.perf_counter() - t) * 1e3)
    rad = max(max(float(r.real.rad()), float(r.imag.rad())) for r in roots)
    row = {
        "problem": problem,
        "n": n,
        "prec": prec,
        "threads": flint.ctx.threads,
        "ms": statistics.median(times),
        "log10_max_radius": -math.inf if rad == 0 else math.log10(rad),
    }
    if problem == "wilkinson":
        err = 0.0
        for r in roots:
            re = r.real.mid()
            k = round(float(re))
            d = abs(flint.arb(re) - k) + abs(flint.arb(r.imag.mid()))
            err = max(err, float(d.upper()))
        row["log10_max_root_error"] = -math.inf if err == 0 else math.log10(err)
    return row


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--n", default="64,128,256")
    ap.add_argument("--prec", default="128,256,512,1024")
    ap.add_argument("--problems", default="wilkinson,chebyshev")
    ap.add_argument("--threads", type=int, default=1)
    ap.add_argument("--runs", type=int, default=1)
    ap.add_argument("--json", action="store_true")
    ap.add_argument("--tol-bits", type=int, default=None,
                    help="refine every root to a radius <= 2^-T (T <= 0: prec + T); "
                         "default: isolation only, as acb_poly.roots does")
    a = ap.parse_args()
    flint.ctx.threads = a.threads
    rows = []
    if not a.json:
        print(f"# python-flint {flint.__version__} acb_poly.roots, {a.threads} thread(s)")
        print(f"{'problem':<10} {'n':>5} {'bits':>5} {'ms':>11} {'log10 rad':>10} {'log10 err':>10}")
    for problem in a.problems.split(","):
        for n in map(int, a.n.split(",")):
            for prec in map(int, a.prec.split(",")):
                tb = None
                if a.tol_bits is not None:
                    tb = a.tol_bits if a.tol_bits > 0 else prec + a.tol_bits
                r = run_case(problem, n, prec, a.runs, tb)
                rows.append(r)
                if not a.json:
                    err = r.get("log10_max_root_error")
                    err = "-" if err is None else f"{err:.1f}"
                    print(f"{problem:<10} {n:>5} {prec:>5} {r['ms']:>11.1f} "
                          f"{r['log10_max_radius']:>10.1f} {err:>10}")
                    sys.stdout.flush()
    if a.json:
        print(json.dumps({"suite": "flint_roots", "rows": rows}))


if __name__ == "__main__":
    main()
