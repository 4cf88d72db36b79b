"""Helpers for comparing mparray results with gmpy2's, bit for bit."""

import gmpy2
from gmpy2 import mpfr

MODES = [gmpy2.RoundToNearest, gmpy2.RoundToZero, gmpy2.RoundUp, gmpy2.RoundDown,
         gmpy2.RoundAwayZero]
MODE_NAMES = ["N", "Z", "U", "D", "A"]

# Values at the ends of MPFR's default exponent range, and other specials.
SPECIALS = ["0", "-0", "inf", "-inf", "nan", "1", "-1", "0.5", "-3", "0x1p1073741822",
            "-0x1.fffp1073741822", "0x1p-1073741824", "-0x1.8p-1073741823"]
MILD_SPECIALS = ["0", "-0", "inf", "-inf", "nan", "1", "-1", "0.5", "-3", "2"]


def sign(x):
    return (x > 0) - (x < 0)


def rand_mpfr(rng, p, emin=-20, emax=20):
    """A random normal mpfr of precision ``p``, exponent in emin..emax."""
    m = rng.getrandbits(p) | (1 << (p - 1))
    e = rng.randint(emin, emax)
    s = "-" if rng.random() < 0.5 else ""
    return make(f"{s}0x{m:x}p{e - p}", p)


def make(text, p):
    """``text`` read at precision ``p`` (gmpy2 reads an explicit precision 1
    as "the input's own", so the context carries it)."""
    with gmpy2.context(precision=p):
        return mpfr(text, 0, 16 if text.lstrip("-").startswith("0x") else 10)


def inputs(rng, p, n, specials=SPECIALS, emin=-20, emax=20):
    """``n`` random values of precision ``p`` followed by the specials."""
    v = [rand_mpfr(rng, p, emin, emax) for _ in range(n)]
    return v + [make(s, p) for s in specials]


def same(a, b):
    """Bit-identical mpfr values: both NaN, or equal with the same sign of
    zero and the same precision."""
    if gmpy2.is_nan(a) or gmpy2.is_nan(b):
        return gmpy2.is_nan(a) and gmpy2.is_nan(b)
    if gmpy2.is_infinite(a) or gmpy2.is_infinite(b):
        # gmpy2 hands infinities through its conversions unchanged, keeping
        # their old precision, so only the value counts here.
        return a == b
    return a == b and gmpy2.is_signed(a) == gmpy2.is_signed(b) and a.precision == b.precision


def check(name, got, tern, want, args):
    """Compares a result (list of mpfr) and ternary values with gmpy2's
    results (mpfr with ``rc``), naming the first mismatching element."""
    assert len(got) == len(want), name
    for i, (g, t, w) in enumerate(zip(got, tern, want)):
        wt = sign(w.rc)
        if not same(g, w) or int(t) != wt:
            shown = ", ".join(x.__format__("a") if hasattr(x, "precision") else repr(x)
                              for x in (a[i] for a in args))
            raise AssertionError(
                f"{name} element {i} ({shown}): got {g.__format__('a')} "
                f"(prec {g.precision}) ternary {int(t)}, gmpy2 gives {w.__format__('a')} "
                f"(prec {w.precision}) ternary {wt}")


def ctx(p, mode):
    """A gmpy2 context at precision ``p`` rounding in ``mode`` (MPFR's
    default exponent range, no subnormals)."""
    return gmpy2.context(precision=p, round=mode)
