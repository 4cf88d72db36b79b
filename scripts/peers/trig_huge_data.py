#!/usr/bin/env python3
"""Writes tests/trig_huge_mpfr.txt: GNU MPFR/MPC 4.2 (gmpy2) results for
arguments with exponents near 2^20 and 2^22, read by
tests/float_func_huge.rs (malachite-float needs seconds per element there,
so these are precomputed; the 2^20 real cases are also checked live).

Lines: `FUNC PREC MODES X Y | RE IM | TRE TIM` for the complex functions
(csin, ccos, ctan, cexp, csinh, ccosh, ctanh; MODES one letter per part)
and `FUNC PREC MODE X | Y | T` for sin, cos, tan (hex floats, MPFR's %Ra;
T the ternary value). Usage:

    pip install --target /tmp/gm gmpy2
    PYTHONPATH=/tmp/gm scripts/peers/trig_huge_data.py > tests/trig_huge_mpfr.txt
"""
import random

import gmpy2
from gmpy2 import mpc, mpfr

MODES = {
    "N": gmpy2.RoundToNearest,
    "Z": gmpy2.RoundToZero,
    "U": gmpy2.RoundUp,
    "D": gmpy2.RoundDown,
}
rng = random.Random(20261202)
c = gmpy2.get_context()
c.emax = (1 << 30) - 1
c.emin = -(1 << 30) + 1


def rand_x(q, e):
    c.precision = q
    m = rng.getrandbits(q) | (1 << (q - 1))
    x = gmpy2.mul_2exp(mpfr(m), e - q)
    return -x if rng.random() < 0.5 else x


def sign(a, b):
    return (a > b) - (a < b)


def real(f, e):
    q = rng.choice([53, 64, 113, 200])
    p = rng.choice([1, 24, 53, 113, 200, 1024])
    mode = rng.choice(list(MODES))
    x = rand_x(q, e)
    c.precision, c.round = p, MODES[mode]
    y = getattr(gmpy2, f)(x)
    c.precision, c.round = p + 200, gmpy2.RoundToNearest
    z = getattr(gmpy2, f)(x)
    c.round = gmpy2.RoundToNearest
    print(f"{f} {p} {mode} {x:a} | {y:a} | {sign(y, z)}")


def cplx(f, e):
    q = rng.choice([53, 113])
    p = rng.choice([24, 53, 113, 200])
    modes = rng.choice(list(MODES)) + rng.choice(list(MODES))
    big, small = rand_x(q, e), rand_x(q, rng.randint(-8, 3))
    # exp, sinh, cosh, tanh of a + ib: the huge part is b.
    a, b = (small, big) if f in ("cexp", "csinh", "ccosh", "ctanh") else (big, small)
    c.precision = q
    zin = mpc(a, b)
    c.precision = c.real_prec = c.imag_prec = p
    c.real_round, c.imag_round = MODES[modes[0]], MODES[modes[1]]
    w = getattr(gmpy2, f[1:])(zin)
    c.precision = c.real_prec = c.imag_prec = p + 200
    c.real_round = c.imag_round = gmpy2.RoundToNearest
    v = getattr(gmpy2, f[1:])(zin)
    print(f"{f} {p} {modes} {a:a} {b:a} | {w.real:a} {w.imag:a} | "
          f"{sign(w.real, v.real)} {sign(w.imag, v.imag)}")


for e in [(1 << 22) + rng.randint(-99, 99) for _ in range(3)]:
    for f in ["sin", "cos", "tan"]:
        real(f, e)
for e in [(1 << 20) + rng.randint(-99, 99), (1 << 22) + rng.randint(-99, 99)]:
    for f in ["csin", "ccos", "ctan", "cexp", "csinh", "ccosh", "ctanh"]:
        cplx(f, e)
