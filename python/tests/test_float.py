"""FloatArray against gmpy2 (GNU MPFR) bit for bit: values, signs of zero,
special values and ternary values, in every rounding mode, on random
arrays and specials, on the engine under test."""

import gmpy2
import numpy as np
import pytest
from gmpy2 import mpfr

import mparray as mp
from util import MILD_SPECIALS, MODE_NAMES, MODES, check, ctx, inputs, same, sign

N = 40
# Output precisions, and the operands' precision beside each.
PRECS = [(1, 3), (53, 53), (64, 90), (113, 100), (300, 280), (1024, 1100)]


def arr(vals, p):
    return mp.FloatArray(vals, precision=p)


ARITH = {
    "add": (2, lambda x, y: gmpy2.add(x, y)),
    "sub": (2, lambda x, y: gmpy2.sub(x, y)),
    "mul": (2, lambda x, y: gmpy2.mul(x, y)),
    "div": (2, lambda x, y: gmpy2.div(x, y)),
    "fma": (3, lambda x, y, z: gmpy2.fma(x, y, z)),
    "fms": (3, lambda x, y, z: gmpy2.fms(x, y, z)),
    "min": (2, lambda x, y: gmpy2.minnum(x, y)),
    "max": (2, lambda x, y: gmpy2.maxnum(x, y)),
    "sqrt": (1, lambda x: gmpy2.sqrt(x)),
    "neg": (1, lambda x: -x),
    "abs": (1, lambda x: abs(x)),
}


@pytest.mark.parametrize("mode", MODES, ids=MODE_NAMES)
@pytest.mark.parametrize("op", list(ARITH))
def test_arith(op, mode, rng):
    arity, ref = ARITH[op]
    for p, pin in PRECS:
        args = [inputs(rng, pin, N) for _ in range(arity)]
        for a in args[1:]:
            rng.shuffle(a)
        xs = [arr(a, pin) for a in args]
        got, t = getattr(xs[0], op)(*xs[1:], precision=p, round=mode, ternary=True)
        assert got.precision == p and len(got) == len(args[0])
        assert got.engine == mp.default_engine()
        with ctx(p, mode):
            want = [ref(*e) for e in zip(*args)]
        check(f"{op} at {p} bits", got.to_gmpy2(), t, want, args)


@pytest.mark.parametrize("mode", MODES, ids=MODE_NAMES)
def test_set_precision_and_scaling(mode, rng):
    for p, pin in PRECS:
        a = inputs(rng, pin, N)
        x = arr(a, pin)
        got, t = x.set_precision(p, round=mode, ternary=True)
        with ctx(p, mode):
            # mpfr_set; gmpy2.mpfr(v, 0) hands special values through unchanged.
            want = [gmpy2.mul_2exp(v, 0) for v in a]
        check(f"set_precision {pin} -> {p}", got.to_gmpy2(), t, want, [a])
        for k in (3, -70, 1 << 31):
            got, t = x.mul_2exp(k, precision=p, round=mode, ternary=True)
            with ctx(p, mode):
                want = [gmpy2.mul_2exp(v, k) for v in a]
            check(f"mul_2exp {k} at {p}", got.to_gmpy2(), t, want, [a])
            got, t = x.div_2exp(k, precision=p, round=mode, ternary=True)
            with ctx(p, mode):
                want = [gmpy2.div_2exp(v, k) for v in a]
            check(f"div_2exp {k} at {p}", got.to_gmpy2(), t, want, [a])


FUNCS = {name: getattr(gmpy2, name) for name in mp._FUNCS}
# Function precisions: fewer, the functions cost more (and on CUDA each
# tier is one more kernel to compile).
FPRECS = [(2, 5), (53, 53), (200, 180), (600, 620)]


def func_inputs(rng, name, p):
    """Arguments in the function's interesting range, and the specials."""
    lo, hi = {"asin": (-3, 0), "acos": (-3, 0), "atanh": (-3, 0), "acosh": (0, 4)}.get(
        name, (-6, 6))
    v = inputs(rng, p, N, specials=MILD_SPECIALS, emin=lo, emax=hi)
    if name == "acosh":
        v = [abs(x) if not gmpy2.is_nan(x) else x for x in v]
    return v


@pytest.mark.parametrize("mode", MODES, ids=MODE_NAMES)
@pytest.mark.parametrize("name", list(FUNCS))
def test_func(name, mode, rng):
    for p, pin in FPRECS:
        a = func_inputs(rng, name, pin)
        got, t = getattr(arr(a, pin), name)(precision=p, round=mode, ternary=True)
        with ctx(p, mode):
            want = [FUNCS[name](v) for v in a]
        check(f"{name} at {p} bits", got.to_gmpy2(), t, want, [a])


FUNC2 = {
    "atan2": lambda y, x: gmpy2.atan2(y, x),
    "hypot": lambda x, y: gmpy2.hypot(x, y),
    "pow": lambda x, y: x ** y,
    "agm": lambda x, y: gmpy2.agm(x, y),
}


@pytest.mark.parametrize("mode", MODES, ids=MODE_NAMES)
@pytest.mark.parametrize("name", list(FUNC2))
def test_func2(name, mode, rng):
    for p, pin in FPRECS:
        a = inputs(rng, pin, N, specials=MILD_SPECIALS, emin=-4, emax=4)
        b = inputs(rng, pin, N, specials=MILD_SPECIALS, emin=-4, emax=4)
        rng.shuffle(b)
        if name in ("pow", "agm"):
            a = [abs(x) if not gmpy2.is_nan(x) else x for x in a]
        got, t = getattr(arr(a, pin), name)(arr(b, pin), precision=p, round=mode,
                                            ternary=True)
        with ctx(p, mode):
            want = [FUNC2[name](x, y) for x, y in zip(a, b)]
        check(f"{name} at {p} bits", got.to_gmpy2(), t, want, [a, b])


@pytest.mark.parametrize("mode", MODES, ids=MODE_NAMES)
def test_sin_cos_and_pow_z(mode, rng):
    for p, pin in FPRECS:
        a = inputs(rng, pin, N, specials=MILD_SPECIALS, emin=-4, emax=6)
        (s, ts), (c, tc) = arr(a, pin).sin_cos(precision=p, round=mode, ternary=True)
        with ctx(p, mode):
            ws = [gmpy2.sin(v) for v in a]
            wc = [gmpy2.cos(v) for v in a]
        check(f"sin_cos/sin at {p}", s.to_gmpy2(), ts, ws, [a])
        check(f"sin_cos/cos at {p}", c.to_gmpy2(), tc, wc, [a])
        ns = [rng.randint(-40, 40) for _ in a]
        ns[0], ns[1] = 1 << 70, -(1 << 70) - 1
        got, t = arr(a, pin).pow_z(ns, precision=p, round=mode, ternary=True)
        with ctx(p, mode):
            want = [v ** gmpy2.mpz(k) for v, k in zip(a, ns)]
        check(f"pow_z at {p}", got.to_gmpy2(), t, want, [a, ns])


def test_operators_round_to_nearest(rng):
    p = 113
    a = inputs(rng, p, N, specials=MILD_SPECIALS, emin=-4, emax=4)
    b = inputs(rng, 90, N, specials=MILD_SPECIALS, emin=-4, emax=4)
    x, y = arr(a, p), arr(b, 90)
    with ctx(p, gmpy2.RoundToNearest):
        for got, want in [
            (x + y, [u + v for u, v in zip(a, b)]),
            (x - y, [u - v for u, v in zip(a, b)]),
            (x * y, [u * v for u, v in zip(a, b)]),
            (x / y, [u / v for u, v in zip(a, b)]),
            (-x, [-u for u in a]),
            (abs(x), [abs(u) for u in a]),
            (x * 3, [u * 3 for u in a]),
            (2.5 - x, [mpfr(2.5) - u for u in a]),
            (1 / x, [1 / u for u in a]),
            # gmpy2 rounds mpfr ** int through another path (+0 for (-0)**3); mpz
            # exponents take mpfr_pow_z, as mparray does.
            (x ** 3, [u ** gmpy2.mpz(3) for u in a]),
            (abs(x) ** y, [abs(u) ** v for u, v in zip(a, b)]),
            (x + mpfr("0.1", 200), [u + mpfr("0.1", 200) for u in a]),
        ]:
            assert got.precision == p
            for i, (g, w) in enumerate(zip(got.to_gmpy2(), want)):
                assert same(g, w), (i, g, w, a[i], b[i])
    # Comparisons: NaN is unordered, +0 == -0.
    with ctx(p, gmpy2.RoundToNearest):
        for op in ("__lt__", "__le__", "__eq__", "__ne__", "__gt__", "__ge__"):
            got = getattr(x, op)(y)
            want = np.array([getattr(u, op)(v) for u, v in zip(a, b)])
            assert got.dtype == np.bool_ and (got == want).all(), op
    c = x.cmp(y)
    assert c.dtype == np.int8
    for i, (u, v) in enumerate(zip(a, b)):
        want = 2 if gmpy2.is_nan(u) or gmpy2.is_nan(v) else (u > v) - (u < v)
        assert c[i] == want


def test_blas1_and_matrix(rng):
    p = 200
    a = inputs(rng, p, N, specials=[], emin=-4, emax=4)
    b = inputs(rng, p, N, specials=[], emin=-4, emax=4)
    x, y = arr(a, p), arr(b, p)
    q = gmpy2.mpq
    for mode in MODES:
        d, t = x.dot(y, precision=64, round=mode, ternary=True)
        with ctx(64, mode):
            exact = sum(q(u) * q(v) for u, v in zip(a, b))
            w = mpfr(exact, 64)
        check("dot", d.to_gmpy2(), t, [w], [[0]])
    # gemm of 3x4 by 4x2, each element the exact sum rounded once.
    m = mp.Matrix.from_array(arr(a[:12], p), 3, 4)
    n = mp.Matrix.from_array(arr(b[:8], p), 4, 2)
    r, t = m.gemm(n, precision=80, round=gmpy2.RoundDown, ternary=True)
    assert r.shape == (3, 2) and t.shape == (3, 2)
    rows = r.to_gmpy2()
    for i in range(3):
        for j in range(2):
            with ctx(80, gmpy2.RoundDown):
                w = mpfr(sum(q(a[i * 4 + k]) * q(b[k * 2 + j]) for k in range(4)), 80)
            assert same(rows[i][j], w) and t[i, j] == sign(w.rc), (i, j)
    v = m.gemv(arr(b[:4], p), precision=80)
    with ctx(80, gmpy2.RoundToNearest):
        want = [mpfr(sum(q(a[i * 4 + k]) * q(b[k]) for k in range(4)), 80) for i in range(3)]
    for g, w in zip(v.to_gmpy2(), want):
        assert same(g, w)
    assert np.allclose((m @ n).to_numpy(), m.to_numpy() @ n.to_numpy())


def test_engine_moves(rng):
    a = inputs(rng, 100, 8)
    x = arr(a, 100)
    h = x.to_engine("cpu")
    assert h.engine.name == "cpu"
    back = h.to_engine(mp.default_engine())
    assert back.engine == mp.default_engine()
    assert all(same(u, v) for u, v in zip(back.to_gmpy2(), a))
    if "cuda" in mp.engines():
        d = x.to_engine(mp.cuda())
        assert d.engine.name == "cuda"
        with pytest.raises(ValueError, match="different engines"):
            d + h


@pytest.mark.parametrize("mode", MODES, ids=MODE_NAMES)
def test_constants(mode):
    for p in (1, 53, 300, 2000):
        for name, ref in (("pi", gmpy2.const_pi), ("ln2", gmpy2.const_log2),
                          ("e", lambda: gmpy2.exp(1)), ("ln10", lambda: gmpy2.log(10))):
            got, t = mp.const(name, precision=p, round=mode, ternary=True)
            with ctx(p, mode):
                w = ref()
            check(f"{name} at {p}", got.to_gmpy2(), [t], [w], [[name]])
