"""Conversions both ways (Python ints, strings, gmpy2 mpz/mpfr/mpc, NumPy
limb, float64 and complex128 arrays), engines, and bad input raising an
exception that names the element."""

import gmpy2
import numpy as np
import pytest
from gmpy2 import mpc, mpfr, mpz

import mparray as mp
from util import MODE_NAMES, MODES, ctx, inputs, same, sign


def test_engines():
    names = mp.engines()
    assert names[0] == "cpu" and set(names) <= {"cpu", "cuda"}
    assert mp.cpu().name == "cpu"
    ok, why = mp.cuda_status()
    if ok:
        assert mp.cuda().name == "cuda" and "cuda" in names
    else:
        with pytest.raises(RuntimeError, match="CUDA is not available"):
            mp.cuda()
        assert mp.auto().name == "cpu"
    with pytest.raises(ValueError, match="unknown engine"):
        mp.engine("tpu")
    want = __import__("os").environ.get("MPARRAY_ENGINE")
    if want in ("cpu", "cuda"):
        assert mp.default_engine().name == want


def test_int_round_trips(rng):
    for w in (64, 256, 1024):
        a = [rng.getrandbits(w) for _ in range(50)] + [0, (1 << w) - 1]
        x = mp.IntArray(a, bits=w)
        assert x.to_list() == a
        assert x.to_gmpy2() == [mpz(v) for v in a]
        assert mp.IntArray([mpz(v) for v in a], bits=w).to_list() == a
        assert mp.IntArray([hex(v) for v in a], bits=w).to_list() == a
        assert mp.IntArray([str(v) for v in a], bits=w).to_list() == a
        assert x.to_strings() == [str(v) for v in a]
        assert x.to_strings(hex=True) == [hex(v) for v in a]
        limbs = x.to_numpy()
        assert limbs.shape == (len(a), w // 64) and limbs.dtype == np.uint64
        assert [int.from_bytes(r.tobytes(), "little") for r in limbs] == a
        y = mp.IntArray(limbs)
        assert y.bits == w and y.to_list() == a
        assert [x[i] for i in range(3)] == a[:3] and x[-1] == a[-1]
        h = x.to_engine("cpu")
        assert h.engine.name == "cpu" and h.to_list() == a


def test_int_numpy_view_is_zero_copy():
    x = mp.IntArray([1, 2, 3], bits=128, engine="cpu")
    v = x.to_numpy()
    assert not v.flags.writeable
    assert np.shares_memory(v, x.to_numpy())
    c = x.to_numpy(copy=True)
    assert c.flags.writeable and not np.shares_memory(c, v)
    assert np.asarray(x).tolist() == [[1, 0], [2, 0], [3, 0]]
    assert mp.IntArray(np.array([5, 6], dtype=np.int64), bits=128).to_list() == [5, 6]


def test_int_bits_inferred():
    assert mp.IntArray([1, 2]).bits == 64
    assert mp.IntArray([1 << 64]).bits == 128
    assert mp.IntArray(["0x" + "f" * 40]).bits == 192


@pytest.mark.parametrize("bad, exc, index", [
    ([1, -2, 3], ValueError, 1),
    ([1, 2, 1 << 64], ValueError, 2),
    (["1", "12a"], ValueError, 1),
    (["1", "2", "-3"], ValueError, 2),
    (["0x1" + "0" * 16], ValueError, 0),
    ([1, 2.5], TypeError, 1),
    ([1, None], TypeError, 1),
    (np.array([3, -1]), ValueError, 1),
])
def test_int_bad_input(bad, exc, index):
    with pytest.raises(exc) as e:
        mp.IntArray(bad, bits=64)
    assert e.value.index == index and f"element {index}" in str(e.value)


def test_int_bad_width():
    for bits in (0, 100, 1 << 21):
        with pytest.raises(ValueError, match="width"):
            mp.IntArray([1], bits=bits)
    with pytest.raises(ValueError):
        mp.IntArray(np.zeros((2, 3), dtype=np.uint64), bits=128)


@pytest.mark.parametrize("mode", MODES, ids=MODE_NAMES)
def test_float_round_trips_and_construction_ternary(mode, rng):
    for p in (1, 24, 53, 200, 2000):
        a = inputs(rng, p, 30)
        x = mp.FloatArray(a, precision=p)
        assert all(same(u, v) for u, v in zip(x.to_gmpy2(), a))
        # Rounded on the way in, with MPFR's ternary values.
        q = max(1, p // 2)
        y, t = mp.FloatArray.new(a, precision=q, round=mode, ternary=True)
        with ctx(q, mode):
            want = [gmpy2.mul_2exp(v, 0) for v in a]
        for i, (g, w) in enumerate(zip(y.to_gmpy2(), want)):
            assert same(g, w) and t[i] == sign(w.rc), (i, a[i])
        # Raw parts round-trip.
        r = mp.FloatArray.from_raw(p, *x.to_raw())
        assert all(same(u, v) for u, v in zip(r.to_gmpy2(), a))
        # Hex strings are exact.
        assert all(same(u, v) for u, v in zip(mp.FloatArray(x.to_hex(), precision=p).to_gmpy2(),
                                               a))


def test_float_from_python_and_numpy(rng):
    f = [rng.uniform(-1e6, 1e6) for _ in range(50)] + [0.0, -0.0, float("inf"), 5e-324]
    x = mp.FloatArray(f)
    assert x.precision == 53
    assert x.to_list() == f and np.array_equal(x.to_numpy(), np.array(f))
    assert np.signbit(x.to_numpy()[51])
    n = mp.FloatArray(np.array(f))
    assert n.to_list() == f
    y, t = mp.FloatArray.new(np.array(f), precision=10, round=mp.RoundUp, ternary=True)
    exact = [mpfr(v, 53) for v in f]
    with ctx(10, gmpy2.RoundUp):
        want = [gmpy2.mul_2exp(v, 0) for v in exact]
    for i, (g, w) in enumerate(zip(y.to_gmpy2(), want)):
        assert same(g, w) and t[i] == sign(w.rc)
    ints = [3, -(1 << 80) - 1, 12345678901234567890123]
    z = mp.FloatArray(ints, precision=200)
    assert [int(v) for v in z.to_gmpy2()] == ints
    z = mp.FloatArray(np.array([1, -2, 3], dtype=np.int64), precision=2)
    assert z.to_list() == [1.0, -2.0, 3.0]
    u = mp.FloatArray(mp.IntArray([7, 1 << 100], bits=128), precision=2, round="Z")
    assert u.to_list() == [6.0, float(1 << 100)]
    assert u.to_int(128).to_list() == [6, 1 << 100]
    big = mp.FloatArray([mpfr("1.5", 300), 2.0])
    assert big.precision == 300
    assert mp.FloatArray(["0.1", "1e-5"], precision=64).to_strings(digits=5) == \
        ["1.0000e-01", "1.0000e-05"]


def test_rounding_names():
    x = mp.FloatArray(["1"], precision=53)
    third = mp.FloatArray(["3"], precision=53)
    down = x.div(third, precision=10, round="D").to_gmpy2()[0]
    for r in (mp.RoundDown, gmpy2.RoundDown, "RoundDown", "down", "RNDD"):
        assert x.div(third, precision=10, round=r).to_gmpy2()[0] == down
    for bad in ("sideways", 7, -1, 1.5, True):
        with pytest.raises(ValueError, match="rounding"):
            x.add(x, round=bad)


def test_float_bad_input():
    with pytest.raises(ValueError) as e:
        mp.FloatArray(["1", "2", "1.2.3"])
    assert e.value.index == 2
    with pytest.raises(TypeError) as e:
        mp.FloatArray([1.0, object()])
    assert e.value.index == 1
    for p in (0, (1 << 20) + 1):
        with pytest.raises(ValueError, match="precision"):
            mp.FloatArray([1.0], precision=p)
    x = mp.FloatArray([1.0, 2.0])
    with pytest.raises(ValueError, match="mismatch"):
        x + mp.FloatArray([1.0])
    with pytest.raises(ValueError, match="negative"):
        mp.FloatArray([-1.0]).to_int(64)


def test_complex_round_trips(rng):
    zs = [complex(rng.uniform(-5, 5), rng.uniform(-5, 5)) for _ in range(20)]
    z = mp.ComplexArray(zs)
    assert z.precision == (53, 53) and z.to_list() == zs
    assert np.array_equal(mp.ComplexArray(np.array(zs)).to_numpy(), np.array(zs))
    g = [mpc(v, (70, 90)) for v in zs]
    w = mp.ComplexArray(g)
    assert w.precision == (70, 90)
    back = w.to_gmpy2()
    assert all(u == v and u.precision == v.precision for u, v in zip(back, g))
    parts = mp.ComplexArray.from_parts(w.real, w.imag)
    assert parts.to_list() == w.to_list()
    with pytest.raises(ValueError) as e:
        mp.ComplexArray([1j, ("1", "x")])
    assert e.value.index == 1
