"""ComplexArray against gmpy2 (GNU MPC) bit for bit: both parts, signs of
zero, special values and the ternary pairs, in several rounding pairs and
part precisions."""

import gmpy2
import numpy as np
import pytest
from gmpy2 import mpc

import mparray as mp
from util import MODES, make, rand_mpfr, same, sign

N = 30
PAIRS = [(m, m) for m in MODES] + [(0, 1), (2, 3), (4, 0), (3, 4)]
PAIR_IDS = ["NZUDA"[a] + "NZUDA"[b] for a, b in PAIRS]
# (real precision, imaginary precision) of results and of operands.
PRECS = [((53, 53), (53, 53)), ((30, 70), (64, 40)), ((200, 180), (190, 210))]
SPECIAL_PARTS = ["0", "-0", "inf", "-inf", "nan", "1", "-1"]


def inputs(rng, pr, pi, n):
    v = [mpc(rand_mpfr(rng, pr, -4, 4), rand_mpfr(rng, pi, -4, 4)) for _ in range(n)]
    for re in SPECIAL_PARTS:
        im = rng.choice(SPECIAL_PARTS + ["0.5"])
        v.append(mpc(make(re, pr), make(im, pi)))
    return v


def cctx(pr, pi, rr, ri):
    """gmpy2's context for results of precisions (pr, pi) rounded in (rr,
    ri); gmpy2 takes no RoundAwayZero for complex numbers (None then)."""
    if 4 in (rr, ri):
        return None
    if rr == ri:
        return gmpy2.context(real_prec=pr, imag_prec=pi, round=rr, allow_complex=True)
    return gmpy2.context(real_prec=pr, imag_prec=pi, real_round=rr, imag_round=ri,
                         allow_complex=True)


def arbiter(ref, args, pr, pi, rr, ri):
    """The exact result rounded in (rr, ri): ``ref`` at many more bits
    (to nearest), each part then rounded once to (pr, pi), with its
    ternary sign (the reference where gmpy2 takes no mode, and the judge
    where gmpy2 and mparray differ)."""
    hp = 4 * max(pr, pi) + 256
    # An exact zero's sign depends on the mode (RoundDown gives -0 for
    # x - x): that one mode is kept, any other gives the same zero as
    # nearest (gmpy2 takes no RoundAwayZero here).
    zr, zi = (3 if rr == 3 else 0), (3 if ri == 3 else 0)
    with gmpy2.context(real_prec=hp, imag_prec=hp, real_round=zr, imag_round=zi,
                       allow_complex=True):
        v = ref(*args)
    out = []
    for part, p, r in ((v.real, pr, rr), (v.imag, pi, ri)):
        with gmpy2.context(precision=p, round=r):
            x = gmpy2.mul_2exp(part, 0)
        out.append((x, sign(x.rc)))
    return out


def same_c(a, b):
    return same(a.real, b.real) and same(a.imag, b.imag)


def check(name, got, tern, want, args, ref, prec, rnd):
    """Compares with gmpy2's results (None: no gmpy2 result in this mode);
    where they differ, or gmpy2 has none, the arbiter must agree with
    mparray. Returns how many elements the arbiter decided against gmpy2."""
    tr, ti = tern
    overruled = 0
    for i, g in enumerate(got):
        t = (int(tr[i]), int(ti[i]))
        w = want[i] if want is not None else None
        if w is not None and same_c(g, w) and t == (sign(w.rc[0]), sign(w.rc[1])):
            continue
        (ar, sr), (ai, si) = arbiter(ref, [a[i] for a in args], *prec, *rnd)
        if same(g.real, ar) and same(g.imag, ai) and t == (sr, si):
            overruled += w is not None
            continue
        raise AssertionError(
            f"{name} element {i} ({', '.join(str(a[i]) for a in args)}): got {g!r} "
            f"ternary {t}, gmpy2 gives {w!r} ternary {w.rc if w is not None else None}, "
            f"the exact value rounded: ({ar!r}, {ai!r}) ternary ({sr}, {si})")
    return overruled


OPS = {
    "add": (2, lambda a, b: a + b),
    "sub": (2, lambda a, b: a - b),
    "mul": (2, lambda a, b: a * b),
    "div": (2, lambda a, b: a / b),
    "neg": (1, lambda a: -a),
    "sqr": (1, gmpy2.square),
    "sqrt": (1, gmpy2.sqrt),
    "exp": (1, gmpy2.exp),
    "log": (1, gmpy2.log),
    "sin": (1, gmpy2.sin),
    "cos": (1, gmpy2.cos),
    "tan": (1, gmpy2.tan),
    "sinh": (1, gmpy2.sinh),
    "cosh": (1, gmpy2.cosh),
    "tanh": (1, gmpy2.tanh),
    "atan": (1, gmpy2.atan),
    "asin": (1, gmpy2.asin),
    "acos": (1, gmpy2.acos),
}


@pytest.mark.parametrize("rnd", PAIRS, ids=PAIR_IDS)
@pytest.mark.parametrize("op", list(OPS))
def test_complex_op(op, rnd, rng):
    arity, ref = OPS[op]
    for (pr, pi), (qr, qi) in PRECS:
        args = [inputs(rng, qr, qi, N) for _ in range(arity)]
        for a in args[1:]:
            rng.shuffle(a)
        xs = [mp.ComplexArray(a, precision=(qr, qi)) for a in args]
        got, t = getattr(xs[0], op)(*xs[1:], precision=(pr, pi), round=rnd, ternary=True)
        assert got.precision == (pr, pi)
        c = cctx(pr, pi, *rnd)
        want = None
        if c is not None:
            with c:
                want = [ref(*e) for e in zip(*args)]
        check(f"{op} at {(pr, pi)}", got.to_gmpy2(), t, want, args, ref, (pr, pi), rnd)


@pytest.mark.parametrize("mode", MODES, ids=list("NZUDA"))
def test_complex_real_results(mode, rng):
    for (pr, pi), (qr, qi) in PRECS:
        a = inputs(rng, qr, qi, N)
        x = mp.ComplexArray(a, precision=(qr, qi))
        for name, ref in (("abs", abs), ("norm", gmpy2.norm), ("arg", gmpy2.phase)):
            got, t = getattr(x, name)(precision=pr, round=mode, ternary=True)
            with gmpy2.context(precision=pr, round=mode):
                want = [ref(v) for v in a]
            for i, (g, w) in enumerate(zip(got.to_gmpy2(), want)):
                if same(g, w) and t[i] == sign(w.rc):
                    continue
                # gmpy2 differs: the exact value at many more bits, rounded once.
                with gmpy2.context(precision=4 * pr + 256):
                    hi = ref(a[i])
                with gmpy2.context(precision=pr, round=mode):
                    e = gmpy2.mul_2exp(hi, 0)
                assert same(g, e) and t[i] == sign(e.rc), (name, i, a[i], g, w, e)


def test_complex_operators(rng):
    a = inputs(rng, 80, 80, N)
    b = inputs(rng, 80, 80, N)
    x, y = mp.ComplexArray(a, precision=80), mp.ComplexArray(b, precision=80)
    with cctx(80, 80, 0, 0):
        for got, want in ((x + y, [u + v for u, v in zip(a, b)]),
                          (x * y, [u * v for u, v in zip(a, b)]),
                          (x / y, [u / v for u, v in zip(a, b)]),
                          (x - 1j, [u - mpc(1j) for u in a]),
                          (-x, [-u for u in a])):
            assert all(same_c(g, w) for g, w in zip(got.to_gmpy2(), want))


def _exact(z):
    """An mpc's parts as exact rationals."""
    return gmpy2.mpq(z.real), gmpy2.mpq(z.imag)


def _cround(re, im, pr, pi, rr, ri):
    """Exact rational parts rounded once each, with their ternary signs."""
    out = []
    for v, p, r in ((re, pr, rr), (im, pi, ri)):
        with gmpy2.context(precision=p, round=r):
            x = gmpy2.mpfr(v, 0)
        out.append((x, sign(x.rc)))
    return out


@pytest.mark.parametrize("rnd", [(0, 0), (1, 2), (3, 3)], ids=["NN", "ZU", "DD"])
def test_complex_dot_gemm_gemv(rnd, rng):
    q = gmpy2.mpq
    a = inputs(rng, 120, 100, 12)[:12]
    b = inputs(rng, 110, 130, 12)[:12]
    x, y = mp.ComplexArray(a, precision=(120, 100)), mp.ComplexArray(b, precision=(110, 130))
    pr, pi = 70, 90
    for conj in (False, True):
        d, (tr, ti) = x.dot(y, conj=conj, precision=(pr, pi), round=rnd, ternary=True)
        sre = sum((_exact(u)[0] * _exact(v)[0]
                   + (1 if conj else -1) * _exact(u)[1] * _exact(v)[1]) for u, v in zip(a, b))
        sim = sum((_exact(u)[0] * _exact(v)[1]
                   - (1 if conj else -1) * _exact(u)[1] * _exact(v)[0]) for u, v in zip(a, b))
        (wr, sr), (wi, si) = _cround(sre, sim, pr, pi, *rnd)
        g = d.to_gmpy2()[0]
        assert same(g.real, wr) and same(g.imag, wi) and (tr[0], ti[0]) == (sr, si), conj
    # gemm: A is 3x4, B is 4x3; op(B) = B^H for the conjugate transpose.
    ma = mp.Matrix.from_array(x, 3, 4)
    mb = mp.Matrix.from_array(y, 3, 4)
    r, (tr, ti) = ma.gemm(mb, trans_b="C", precision=(pr, pi), round=rnd, ternary=True)
    assert r.shape == (3, 3) and r.is_complex
    rows = r.to_gmpy2()
    for i in range(3):
        for j in range(3):
            re = im = q(0)
            for k in range(4):
                ar, ai = _exact(a[i * 4 + k])
                br, bi = _exact(b[j * 4 + k])
                bi = -bi  # conjugated
                re += ar * br - ai * bi
                im += ar * bi + ai * br
            (wr, sr), (wi, si) = _cround(re, im, pr, pi, *rnd)
            g = rows[i][j]
            assert same(g.real, wr) and same(g.imag, wi), (i, j, g, wr, wi)
            assert (tr[i, j], ti[i, j]) == (sr, si), (i, j)
    v = ma.gemv(mp.ComplexArray(b[:4], precision=(110, 130)),
                precision=(pr, pi), round=rnd)
    for i, g in enumerate(v.to_gmpy2()):
        re = sum(_exact(a[i * 4 + k])[0] * _exact(b[k])[0] - _exact(a[i * 4 + k])[1]
                 * _exact(b[k])[1] for k in range(4))
        im = sum(_exact(a[i * 4 + k])[0] * _exact(b[k])[1] + _exact(a[i * 4 + k])[1]
                 * _exact(b[k])[0] for k in range(4))
        (wr, _), (wi, _) = _cround(re, im, pr, pi, *rnd)
        assert same(g.real, wr) and same(g.imag, wi), i
    m = mp.Matrix([[1 + 2j, 3], [0, 1j]])
    assert m.is_complex and np.allclose((m @ m).to_numpy(), m.to_numpy() @ m.to_numpy())
