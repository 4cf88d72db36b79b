"""IntArray against Python's exact integers: add/sub modulo 2^W with
carries, mul (low half), mul_wide, divrem, poly, comparisons, at widths
crossing the library's code paths, on random values and edges."""

import numpy as np
import pytest

import mparray as mp

WIDTHS = [64, 128, 192, 256, 512, 1024, 4096]
N = 60


def values(rng, w, n):
    """Random values of random lengths, and the edges."""
    v = [rng.getrandbits(rng.randint(1, w)) for _ in range(n)]
    return v + [0, 1, 2, (1 << w) - 1, 1 << (w - 1), (1 << (w // 2)) - 1]


@pytest.mark.parametrize("w", WIDTHS)
def test_arith(w, rng):
    a, b = values(rng, w, N), values(rng, w, N)
    rng.shuffle(b)
    x, y = mp.IntArray(a, bits=w), mp.IntArray(b, bits=w)
    assert x.bits == w and len(x) == len(a) and x.engine == mp.default_engine()
    m = 1 << w
    assert (x + y).to_list() == [(u + v) % m for u, v in zip(a, b)]
    assert (x - y).to_list() == [(u - v) % m for u, v in zip(a, b)]
    assert (x * y).to_list() == [(u * v) % m for u, v in zip(a, b)]
    wide = x.mul_wide(y)
    assert wide.bits == 2 * w and wide.to_list() == [u * v for u, v in zip(a, b)]
    r, c = x.overflowing_add(y)
    assert r.to_list() == [(u + v) % m for u, v in zip(a, b)]
    assert c.dtype == np.bool_ and c.tolist() == [u + v >= m for u, v in zip(a, b)]
    r, c = x.overflowing_sub(y)
    assert c.tolist() == [u < v for u, v in zip(a, b)]
    assert x.poly(y).to_list() == [((u * u + v) * (v * v + v) + u * v) % m
                                   for u, v in zip(a, b)]
    d = [v or 1 for v in b]
    q, rem = divmod(x, mp.IntArray(d, bits=w))
    assert q.to_list() == [u // v for u, v in zip(a, d)]
    assert rem.to_list() == [u % v for u, v in zip(a, d)]
    assert (x // 7).to_list() == [u // 7 for u in a]
    assert (x % 7).to_list() == [u % 7 for u in a]
    assert (x + 5).to_list() == [(u + 5) % m for u in a]
    assert (5 - x).to_list() == [(5 - u) % m for u in a]
    want = np.array([(u > v) - (u < v) for u, v in zip(a, b)], dtype=np.int8)
    assert (x.cmp(y) == want).all()
    assert ((x < y) == (want < 0)).all() and ((x == y) == (want == 0)).all()
    assert ((x >= y) == (want >= 0)).all()


def test_divrem_by_zero_names_the_element():
    x = mp.IntArray([5, 6, 7, 8], bits=128)
    with pytest.raises(ZeroDivisionError) as e:
        x // mp.IntArray([1, 2, 0, 0], bits=128)
    assert e.value.index == 2 and "element 2" in str(e.value)


def test_mixed_widths_and_lengths():
    x = mp.IntArray([1, 2], bits=64)
    with pytest.raises(ValueError, match="mismatch"):
        x + mp.IntArray([1, 2], bits=128)
    with pytest.raises(ValueError, match="mismatch"):
        x + mp.IntArray([1, 2, 3], bits=64)


def test_random_is_engine_independent():
    a = mp.IntArray.random(1000, 256, seed=9)
    b = mp.IntArray.random(1000, 256, seed=9, engine="cpu")
    assert a.to_list() == b.to_list()
    assert a.engine == mp.default_engine()
