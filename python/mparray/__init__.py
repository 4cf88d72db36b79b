"""mparray: arrays of multi-precision numbers on the CPU and NVIDIA GPUs.

Three array types, each living on one engine (the CPU, or a CUDA device):

* ``IntArray``: unsigned integers of a fixed width (a multiple of 64 bits),
  with ``add``/``sub`` modulo 2^W, ``mul`` (low W bits), ``mul_wide``,
  ``divrem``;
* ``FloatArray``: floats of one precision with GNU MPFR's exact semantics
  (every operation and function correctly rounded, with MPFR's ternary
  values);
* ``ComplexArray``: complex floats with GNU MPC's semantics;

and ``Matrix`` (a row-major view over a ``FloatArray``) with the exactly
rounded ``gemm``/``gemv``. Precision and rounding arguments are named as
gmpy2 names them (``precision=``, ``round=`` with gmpy2's constants
``RoundToNearest``, ``RoundToZero``, ``RoundUp``, ``RoundDown``,
``RoundAwayZero``, also exported here, or the letters ``"N"``, ``"Z"``,
``"U"``, ``"D"``, ``"A"``). Operators (``+ - * / ** //``, comparisons,
unary ``-``) round to nearest at the array operands' largest precision.

New arrays go on the default engine: ``$MPARRAY_ENGINE`` (``cpu``, ``cuda``
or ``auto``) if set, else ``auto``: CUDA when a GPU, its driver and NVRTC are
usable, else the CPU, as the ``mparray`` command line finds them.
"""

import operator as _op
import os as _os

import numpy as _np

from . import _mparray as _m

__all__ = [
    "IntArray",
    "FloatArray",
    "ComplexArray",
    "Matrix",
    "const",
    "Engine",
    "engine",
    "engines",
    "cpu",
    "cuda",
    "auto",
    "cuda_status",
    "default_engine",
    "set_default_engine",
    "RoundToNearest",
    "RoundToZero",
    "RoundUp",
    "RoundDown",
    "RoundAwayZero",
]

Engine = _m.Engine

# gmpy2's values of its rounding constants (MPFR's rounding enum).
RoundToNearest, RoundToZero, RoundUp, RoundDown, RoundAwayZero = 0, 1, 2, 3, 4
_LETTERS = "NZUDA"
_NAMES = {
    "roundtonearest": "N", "nearest": "N", "rndn": "N", "n": "N",
    "roundtozero": "Z", "zero": "Z", "rndz": "Z", "z": "Z",
    "roundup": "U", "up": "U", "rndu": "U", "u": "U",
    "rounddown": "D", "down": "D", "rndd": "D", "d": "D",
    "roundawayzero": "A", "away": "A", "rnda": "A", "a": "A",
}


def _rnd(r):
    """MPFR's letter for a rounding mode given as gmpy2's constant or a name."""
    if r is None:
        return "N"
    if isinstance(r, str):
        letter = _NAMES.get(r.strip().lower())
        if letter is not None:
            return letter
    elif not isinstance(r, bool):
        try:
            i = _op.index(r)
        except TypeError:
            i = None
        if i is not None and 0 <= i < 5:
            return _LETTERS[i]
    raise ValueError(
        f"unknown rounding mode {r!r}: expected RoundToNearest, RoundToZero, RoundUp, "
        "RoundDown, RoundAwayZero (gmpy2's constants) or N, Z, U, D, A"
    )


def _crnd(r):
    """The two letters (real part, imaginary part) of a complex rounding."""
    if isinstance(r, (tuple, list)):
        if len(r) != 2:
            raise ValueError("a complex rounding is one mode or a pair (real, imaginary)")
        return _rnd(r[0]), _rnd(r[1])
    x = _rnd(r)
    return x, x


# ---- engines ------------------------------------------------------------------

_default = None


def engine(e=None):
    """An engine from a name (``cpu``, ``cuda``, ``auto``) or an Engine; None
    is the default engine."""
    if e is None:
        return default_engine()
    if isinstance(e, Engine):
        return e
    if isinstance(e, str):
        return _m.engine(e)
    raise TypeError(f"expected an engine or its name, got {type(e).__name__}")


def cpu():
    """The CPU engine (all cores)."""
    return _m.engine("cpu")


def cuda():
    """The first CUDA device; RuntimeError saying why when CUDA is not usable."""
    return _m.engine("cuda")


def auto():
    """CUDA when usable, else the CPU."""
    return _m.engine("auto")


def cuda_status():
    """``(True, description)`` when CUDA is usable, else ``(False, why not)``."""
    return _m.cuda_status()


def engines():
    """The names of the usable engines: ``['cpu']`` or ``['cpu', 'cuda']``."""
    return ["cpu", "cuda"] if _m.cuda_status()[0] else ["cpu"]


def default_engine():
    """The engine new arrays go on: ``$MPARRAY_ENGINE`` if set, else auto."""
    global _default
    if _default is None:
        _default = _m.engine(_os.environ.get("MPARRAY_ENGINE", "auto").strip() or "auto")
    return _default


def set_default_engine(e):
    """Sets the engine new arrays go on (an Engine or a name)."""
    global _default
    _default = engine(e)


# ---- helpers --------------------------------------------------------------------


def _tern(b):
    """Ternary values (int8 bytes from the native layer) as a NumPy array."""
    return _np.frombuffer(b, dtype=_np.int8)


def _gmpy2():
    try:
        import gmpy2
    except ImportError as e:  # pragma: no cover - gmpy2 is optional
        raise ImportError("this conversion needs gmpy2 (pip install gmpy2)") from e
    return gmpy2


def _type_name(x):
    t = type(x)
    return t.__module__ + "." + t.__name__


def _is_mpfr(x):
    return type(x).__name__ == "mpfr" and type(x).__module__.startswith("gmpy2")


def _is_mpc(x):
    return type(x).__name__ == "mpc" and type(x).__module__.startswith("gmpy2")


def _mpfr_text(x):
    """An mpfr as exact text the native parser reads (hex mantissa, binary
    exponent), keeping the sign of zero, infinities and NaN."""
    g = _gmpy2()
    if g.is_nan(x):
        return "nan"
    if g.is_infinite(x):
        return "-inf" if x < 0 else "inf"
    if g.is_zero(x):
        return "-0" if g.is_signed(x) else "0"
    m, e = x.as_mantissa_exp()
    m = int(m)
    return f"{'-' if m < 0 else ''}0x{abs(m):x}p{int(e)}"


def _float_text(x, i):
    """Element ``i`` as text: exact for ints, floats and mpfr values."""
    if isinstance(x, str):
        return x
    if isinstance(x, float) or isinstance(x, _np.floating):
        return float(x).hex()
    if _is_mpfr(x):
        return _mpfr_text(x)
    if isinstance(x, bool):
        _raise_index(TypeError, f"element {i}: a bool is not a number here", i)
    try:
        return str(_op.index(x))
    except TypeError:
        pass
    _raise_index(TypeError, f"element {i}: cannot make a float of {_type_name(x)} {x!r}", i)


def _prec_of_scalar(x, default):
    """The precision that holds scalar ``x`` exactly (``default`` for text)."""
    if _is_mpfr(x):
        return x.precision
    if isinstance(x, (float, _np.floating)):
        return 53
    if isinstance(x, (int, _np.integer)) or hasattr(x, "__index__"):
        n = abs(_op.index(x))
        if n == 0:
            return 1
        return max(1, n.bit_length() - ((n & -n).bit_length() - 1))
    return default


def _is_scalar(x):
    return isinstance(x, (int, float, str, _np.number)) or _is_mpfr(x) or (
        type(x).__name__ == "mpz" and type(x).__module__.startswith("gmpy2")
    )


# ---- integers ---------------------------------------------------------------------


class IntArray:
    """``len`` unsigned integers of ``bits`` bits (a multiple of 64, up to
    2^20) on one engine.

    ``IntArray(values, bits=None, engine=None)``: ``values`` is a sequence of
    Python ints, gmpy2 ``mpz`` values or decimal/``0x``-hex strings, a NumPy
    uint64 array of limbs of shape ``(n, bits/64)`` (least significant limb
    first), a 1-D NumPy integer array (one value per element), or an
    IntArray. ``bits`` defaults to the widest value rounded up to a multiple
    of 64 (limb arrays: ``64 * shape[1]``). A value that is negative, does not
    parse or does not fit raises ValueError naming the element (its
    ``index`` attribute).
    """

    __slots__ = ("_a",)
    __hash__ = None

    def __init__(self, values, bits=None, engine=None):
        eng = globals()["engine"](engine)
        if isinstance(values, IntArray):
            a = values._a if bits is None or bits == values.bits else values._a.resize(bits)
            self._a = a if a.engine == eng else a.to_engine(eng)
            return
        if isinstance(values, _m.Int):
            self._a = values if values.engine == eng else values.to_engine(eng)
            return
        if isinstance(values, _np.ndarray):
            self._a = _int_from_numpy(values, bits, eng)
            return
        items = list(values)
        if any(isinstance(x, str) for x in items):
            texts = [x if isinstance(x, str) else str(_index(x, i)) for i, x in enumerate(items)]
            if bits is None:
                bits = 64 * max(1, -(-max((_text_bits(t) for t in texts), default=1) // 64))
            self._a = _m.Int.from_strs(bits, texts, eng)
            return
        ints = [_index(x, i) for i, x in enumerate(items)]
        if bits is None:
            bits = 64 * max(1, -(-max((x.bit_length() for x in ints), default=1) // 64))
        nb = bits // 8 if bits % 64 == 0 else 0
        if nb == 0 or bits <= 0:
            # The native layer says what is wrong with the width.
            self._a = _m.Int.from_bytes(bits, b"", eng)
            return
        try:
            data = b"".join([x.to_bytes(nb, "little") for x in ints])
        except OverflowError:
            for i, x in enumerate(ints):
                if x < 0 or x.bit_length() > bits:
                    _raise_index(
                        ValueError,
                        f"element {i}: "
                        + (f"{x} is negative" if x < 0 else
                           f"value needs {x.bit_length()} bits but the width is {bits} bits"),
                        i,
                    )
            raise
        self._a = _m.Int.from_bytes(bits, data, eng)

    @classmethod
    def _wrap(cls, a):
        r = object.__new__(cls)
        r._a = a
        return r

    @classmethod
    def zeros(cls, n, bits, engine=None):
        """``n`` zeros of ``bits`` bits."""
        return cls._wrap(_m.Int.zeros(globals()["engine"](engine), n, bits))

    @classmethod
    def random(cls, n, bits, seed=0, engine=None):
        """``n`` uniformly random ``bits``-bit values drawn on the engine (the
        same bits on every engine for one seed)."""
        return cls._wrap(_m.Int.random(globals()["engine"](engine), n, bits, seed))

    # -- shape, engine, conversions
    def __len__(self):
        return len(self._a)

    @property
    def bits(self):
        """The width of every element in bits."""
        return self._a.bits

    @property
    def limbs(self):
        """64-bit limbs per element."""
        return self._a.bits // 64

    @property
    def engine(self):
        """The engine the array lives on."""
        return self._a.engine

    def to_engine(self, engine):
        """A copy on ``engine`` (an Engine or a name)."""
        return IntArray._wrap(self._a.to_engine(globals()["engine"](engine)))

    def to_host(self):
        """A copy on the CPU."""
        return self.to_engine(cpu())

    def to_numpy(self, copy=False):
        """The limbs as a ``(n, bits/64)`` uint64 array, least significant
        limb first. On the CPU this is a read-only view of the array's own
        memory (no copy) unless ``copy=True``; a device array is copied."""
        a = self._a
        if a.engine.name != "cpu":
            return _np.asarray(a.to_engine(cpu()))
        v = _np.asarray(a)
        return v.copy() if copy else v

    def __array__(self, dtype=None, copy=None):
        v = self.to_numpy(copy=bool(copy))
        return v if dtype is None else v.astype(dtype)

    def to_list(self):
        """The elements as Python ints."""
        b = self._a.to_bytes()
        k = self.bits // 8
        fb = int.from_bytes
        return [fb(b[i:i + k], "little") for i in range(0, len(b), k)]

    def to_gmpy2(self):
        """The elements as gmpy2 ``mpz`` values."""
        mpz = _gmpy2().mpz
        return [mpz(x) for x in self.to_list()]

    def to_strings(self, hex=False):
        """The elements as decimal strings, or ``0x``-hex ones."""
        return self._a.to_strings(hex)

    def resize(self, bits):
        """The elements at another width (an error names the first element
        that does not fit)."""
        return IntArray._wrap(self._a.resize(bits))

    def __getitem__(self, i):
        if isinstance(i, slice):
            return IntArray(self.to_numpy()[i], bits=self.bits, engine=self.engine)
        n = len(self)
        j = _op.index(i)
        if j < 0:
            j += n
        if not 0 <= j < n:
            raise IndexError(f"index {i} out of range for {n} elements")
        return int.from_bytes(self.to_numpy()[j].tobytes(), "little") if self.engine.name == "cpu" \
            else self.to_list()[j]

    def __iter__(self):
        return iter(self.to_list())

    def __repr__(self):
        n = len(self)
        shown = self.to_list()[:6] if n <= 1 << 16 else IntArray(self.to_numpy()[:6]).to_list()
        more = ", ..." if n > 6 else ""
        return (f"IntArray([{', '.join(map(str, shown))}{more}], bits={self.bits}, "
                f"engine={self.engine.name!r})")

    # -- operations
    def _other(self, b):
        if isinstance(b, IntArray):
            return b._a
        if _is_scalar(b):
            x = _index(b, 0)
            if x < 0 or x.bit_length() > self.bits:
                raise ValueError(f"{x} does not fit in an unsigned {self.bits}-bit element")
            data = x.to_bytes(self.bits // 8, "little") * len(self)
            return _m.Int.from_bytes(self.bits, data, self.engine)
        return IntArray(b, bits=self.bits, engine=self.engine)._a

    def add(self, b):
        """``self + b`` modulo 2^W."""
        return IntArray._wrap(self._a.add(self._other(b)))

    def sub(self, b):
        """``self - b`` modulo 2^W."""
        return IntArray._wrap(self._a.sub(self._other(b)))

    def overflowing_add(self, b):
        """``(self + b mod 2^W, carry out)``; the carries as a NumPy bool array."""
        r, c = self._a.overflowing_add(self._other(b))
        return IntArray._wrap(r), _np.frombuffer(c, dtype=_np.bool_)

    def overflowing_sub(self, b):
        """``(self - b mod 2^W, borrow out)``."""
        r, c = self._a.overflowing_sub(self._other(b))
        return IntArray._wrap(r), _np.frombuffer(c, dtype=_np.bool_)

    def mul(self, b):
        """The low W bits of ``self * b``."""
        return IntArray._wrap(self._a.mul(self._other(b)))

    def mul_wide(self, b):
        """The full product, as a 2W-bit array."""
        return IntArray._wrap(self._a.mul_wide(self._other(b)))

    def divrem(self, b):
        """``(self // b, self % b)``; a zero divisor raises ZeroDivisionError
        naming the first such element."""
        q, r = self._a.divrem(self._other(b))
        return IntArray._wrap(q), IntArray._wrap(r)

    def poly(self, b):
        """``(a*a+b)*(b*b+b)+a*b`` modulo 2^W, in one pass."""
        return IntArray._wrap(self._a.poly(self._other(b)))

    def cmp(self, b):
        """Element-wise comparison: a NumPy int8 array of -1, 0, 1."""
        return _tern(self._a.cmp(self._other_cmp(b)))

    def _other_cmp(self, b):
        if isinstance(b, IntArray):
            return b._a
        if _is_scalar(b):
            x = _index(b, 0)
            if x < 0:
                raise ValueError("comparison with a negative number")
            bits = max(self.bits, 64 * -(-max(x.bit_length(), 1) // 64))
            return IntArray([x] * len(self), bits=bits, engine=self.engine)._a
        return IntArray(b, engine=self.engine)._a

    __add__ = __radd__ = add
    __sub__ = sub
    __mul__ = __rmul__ = mul

    def __rsub__(self, b):
        return IntArray._wrap(self._other(b).sub(self._a))

    def __floordiv__(self, b):
        return self.divrem(b)[0]

    def __mod__(self, b):
        return self.divrem(b)[1]

    def __divmod__(self, b):
        return self.divrem(b)

    def __eq__(self, b):
        return self.cmp(b) == 0

    def __ne__(self, b):
        return self.cmp(b) != 0

    def __lt__(self, b):
        return self.cmp(b) < 0

    def __le__(self, b):
        return self.cmp(b) <= 0

    def __gt__(self, b):
        return self.cmp(b) > 0

    def __ge__(self, b):
        return self.cmp(b) >= 0


def _index(x, i):
    """Element ``i`` as a non-negative Python int, or an error naming it."""
    if isinstance(x, bool) or isinstance(x, (float, _np.floating)):
        _raise_index(TypeError, f"element {i}: {x!r} is not an integer", i)
    try:
        v = _op.index(x)
    except TypeError:
        _raise_index(TypeError, f"element {i}: {_type_name(x)} {x!r} is not an integer", i)
    if v < 0:
        _raise_index(ValueError, f"element {i}: {v} is negative (elements are unsigned)", i)
    return v


def _raise_index(cls, msg, i):
    e = cls(msg)
    e.index = i
    raise e


def _text_bits(t):
    """The bits an integer string needs (the parser checks it properly)."""
    s = t.strip()
    try:
        return max(1, int(s, 0).bit_length())
    except ValueError:
        return 1


def _int_from_numpy(v, bits, eng):
    if v.ndim == 2:
        if v.dtype != _np.uint64:
            raise TypeError(f"a limb array must be uint64, not {v.dtype}")
        if bits is None:
            bits = 64 * v.shape[1]
        elif bits != 64 * v.shape[1]:
            raise ValueError(f"{v.shape[1]} limbs per element make {64 * v.shape[1]} bits, "
                             f"not {bits}")
        return _m.Int.from_limbs(bits, _np.ascontiguousarray(v), eng)
    if v.ndim == 1 and v.dtype.kind in "iu":
        if v.dtype.kind == "i" and v.size and v.min() < 0:
            i = int(_np.argmax(v < 0))
            _raise_index(ValueError, f"element {i}: {int(v[i])} is negative (elements are "
                         "unsigned)", i)
        bits = 64 if bits is None else bits
        if bits % 64 or bits <= 0:
            return _m.Int.from_bytes(bits, b"", eng)
        limbs = _np.zeros((v.size, bits // 64), dtype=_np.uint64)
        limbs[:, 0] = v.astype(_np.uint64)
        return _m.Int.from_limbs(bits, limbs, eng)
    if v.ndim == 1 and v.dtype == object:
        return IntArray(list(v), bits=bits, engine=eng)._a
    raise TypeError(f"cannot make an IntArray of a {v.ndim}-D {v.dtype} array: give uint64 "
                    "limbs of shape (n, bits/64) or a 1-D integer array")


# ---- floats ------------------------------------------------------------------------


def _float_native(values, precision, rnd, eng):
    """``(native array, ternary bytes)`` of ``values`` (see FloatArray)."""
    if isinstance(values, FloatArray):
        p = precision or values.precision
        a, t = values._a.op("set_prec", [], p, rnd)
        return (a if a.engine == eng else a.to_engine(eng)), t
    if isinstance(values, IntArray):
        a, t = _m.Float.from_int(precision or 53, values._a, rnd)
        return (a if a.engine == eng else a.to_engine(eng)), t
    if isinstance(values, _np.ndarray):
        if values.dtype.kind == "f":
            return _m.Float.from_f64s(precision or 53,
                                      _np.ascontiguousarray(values, dtype=_np.float64).ravel(),
                                      rnd, eng)
        if values.dtype.kind in "iu" and values.dtype.itemsize <= 8 and not (
                values.dtype.kind == "u" and values.dtype.itemsize == 8):
            return _m.Float.from_i64s(precision or 53,
                                      _np.ascontiguousarray(values, dtype=_np.int64).ravel(),
                                      rnd, eng)
        values = values.ravel().tolist()
    items = list(values)
    if precision is None:
        precision = max([x.precision for x in items if _is_mpfr(x)] or [53])
    texts = [_float_text(x, i) for i, x in enumerate(items)]
    return _m.Float.from_strs(precision, texts, rnd, eng)


class FloatArray:
    """``len`` floats of one precision with GNU MPFR's semantics on one engine.

    ``FloatArray(values, precision=None, round=RoundToNearest, engine=None)``:
    ``values`` is a sequence of Python floats or ints, gmpy2 ``mpfr`` or
    ``mpz`` values, or strings (decimal, hex floats, ``inf``, ``nan``,
    ``-0``), a NumPy float64 (or integer) array, an IntArray or a
    FloatArray; each is correctly rounded to ``precision`` bits (default:
    the largest precision of the mpfr values given, else 53) in mode
    ``round``. ``FloatArray.new(..., ternary=True)`` also returns the
    ternary values of that rounding. A string that does not parse raises
    ValueError naming the element.
    """

    __slots__ = ("_a",)
    __hash__ = None

    def __init__(self, values, precision=None, round=RoundToNearest, engine=None):
        self._a = _float_native(values, precision, _rnd(round), globals()["engine"](engine))[0]

    @classmethod
    def new(cls, values, precision=None, round=RoundToNearest, engine=None, ternary=False):
        """As the constructor; with ``ternary=True`` returns ``(array,
        ternary values)``."""
        a, t = _float_native(values, precision, _rnd(round), globals()["engine"](engine))
        r = cls._wrap(a)
        return (r, _tern(t)) if ternary else r

    @classmethod
    def _wrap(cls, a):
        r = object.__new__(cls)
        r._a = a
        return r

    @classmethod
    def zeros(cls, n, precision=53, engine=None):
        """``n`` positive zeros."""
        return cls._wrap(_m.Float.zeros(globals()["engine"](engine), n, precision))

    @classmethod
    def random(cls, n, precision=53, seed=0, engine=None):
        """Uniform in [0, 1) with ``precision`` random bits (mpfr_urandomb),
        drawn on the engine (the same bits on every engine)."""
        return cls._wrap(_m.Float.random_unit(globals()["engine"](engine), n, precision, seed))

    @classmethod
    def random_exp(cls, n, precision=53, seed=0, emin=-64, emax=64, engine=None):
        """Random signs, exponents uniform in ``emin..emax``, random mantissas."""
        return cls._wrap(_m.Float.random_exp(globals()["engine"](engine), n, precision, seed,
                                             emin, emax))

    @classmethod
    def random_uniform(cls, n, lo, hi, precision=53, seed=0, round=RoundToNearest, engine=None):
        """Uniform in [lo, hi), rounded once."""
        return cls._wrap(_m.Float.random_uniform(globals()["engine"](engine), n, precision, seed,
                                                 float(lo), float(hi), _rnd(round)))

    @classmethod
    def from_raw(cls, precision, tags, exps, limbs, engine=None):
        """From raw parts (see ``to_raw``), checked."""
        return cls._wrap(_m.Float.from_raw(
            precision, bytes(_np.ascontiguousarray(tags, dtype=_np.uint8)),
            _np.ascontiguousarray(exps, dtype=_np.int64),
            _np.ascontiguousarray(limbs, dtype=_np.uint64), globals()["engine"](engine)))

    # -- shape, engine, conversions
    def __len__(self):
        return len(self._a)

    @property
    def precision(self):
        """The precision in bits."""
        return self._a.prec

    @property
    def engine(self):
        return self._a.engine

    def to_engine(self, engine):
        """A copy on ``engine``."""
        return FloatArray._wrap(self._a.to_engine(globals()["engine"](engine)))

    def to_host(self):
        return self.to_engine(cpu())

    def to_numpy(self, round=RoundToNearest):
        """The elements rounded to float64 in mode ``round``."""
        return _np.frombuffer(self._a.to_f64s(_rnd(round)), dtype=_np.float64)

    def __array__(self, dtype=None, copy=None):
        v = self.to_numpy()
        return v if dtype is None else v.astype(dtype)

    def to_list(self, round=RoundToNearest):
        """The elements rounded to Python floats."""
        return self.to_numpy(round).tolist()

    def to_gmpy2(self):
        """The elements as gmpy2 ``mpfr`` values of the array's precision
        (exact)."""
        g = _gmpy2()
        mpfr = g.mpfr
        # Precision 0 is the context's: gmpy2 reads an explicit precision 1
        # as "the input's own".
        with g.context(precision=self.precision):
            return [mpfr(s, 0, 16) for s in self._a.to_hex_strings()]

    def to_strings(self, digits=0, round=RoundToNearest):
        """Decimal strings with ``digits`` significant digits (0: enough to
        read back), as MPFR's ``mpfr_get_str`` rounds them."""
        return self._a.to_dec_strings(digits, _rnd(round))

    def to_hex(self):
        """Exact hex-float strings (``%Ra``)."""
        return self._a.to_hex_strings()

    def to_int(self, bits, round=RoundToNearest):
        """Every element rounded to an integer, as an IntArray of ``bits``
        bits (an error names the first negative, non-finite or too wide
        element)."""
        return IntArray._wrap(self._a.to_int(bits, _rnd(round)))

    def to_raw(self):
        """``(tags, exponents, limbs)`` as NumPy arrays: tags uint8 (class in
        bits 0-1: 0 zero, 1 normal, 2 inf, 3 NaN; bit 2 the sign), exponents
        int64 (value ``0.m * 2^exp``), limbs uint64 of shape ``(n,
        ceil(precision/64))``, the most significant bit of the last limb set
        for normal numbers."""
        t, e, m = self._a.to_raw()
        l = -(-self.precision // 64)
        return (_np.frombuffer(t, dtype=_np.uint8), _np.frombuffer(e, dtype=_np.int64),
                _np.frombuffer(m, dtype=_np.uint64).reshape(len(self), l))

    def __getitem__(self, i):
        if isinstance(i, slice):
            idx = range(len(self))[i]
            t, e, m = self.to_raw()
            return FloatArray.from_raw(self.precision, t[i], e[i], m[i], engine=self.engine) \
                if len(idx) else FloatArray([], precision=self.precision, engine=self.engine)
        n = len(self)
        j = _op.index(i)
        if j < 0:
            j += n
        if not 0 <= j < n:
            raise IndexError(f"index {i} out of range for {n} elements")
        return self[j:j + 1].to_gmpy2()[0]

    def __repr__(self):
        n = len(self)
        head = self if n <= 6 else self[:6]
        s = head.to_strings(digits=min(20, max(1, self.precision * 3 // 10)))
        more = ", ..." if n > 6 else ""
        return (f"FloatArray([{', '.join(s)}{more}], precision={self.precision}, "
                f"engine={self.engine.name!r})")

    # -- operations
    def _coerce(self, b):
        """An operand: a FloatArray as it is, a scalar broadcast exactly."""
        if isinstance(b, FloatArray):
            return b._a
        if _is_scalar(b):
            p = _prec_of_scalar(b, self.precision)
            one, _ = _m.Float.from_strs(p, [_float_text(b, 0)], "N", self.engine)
            return one.repeat(len(self))
        return FloatArray(b, engine=self.engine)._a

    def _prec(self, precision, *more):
        if precision is not None:
            return precision
        return max([self.precision] + [m.prec for m in more])

    def _op(self, name, others, precision, round, ternary, k=0):
        more = [self._coerce(b) for b in others]
        arrays = [m for m, b in zip(more, others) if isinstance(b, FloatArray)]
        a, t = self._a.op(name, more, self._prec(precision, *arrays), _rnd(round), k)
        r = FloatArray._wrap(a)
        return (r, _tern(t)) if ternary else r

    def add(self, b, precision=None, round=RoundToNearest, ternary=False):
        """``self + b`` correctly rounded to ``precision`` bits (default: the
        operands' largest) in mode ``round``; ``ternary=True`` returns
        ``(result, ternary values)``. The same holds for every method below."""
        return self._op("add", [b], precision, round, ternary)

    def sub(self, b, precision=None, round=RoundToNearest, ternary=False):
        return self._op("sub", [b], precision, round, ternary)

    def mul(self, b, precision=None, round=RoundToNearest, ternary=False):
        return self._op("mul", [b], precision, round, ternary)

    def div(self, b, precision=None, round=RoundToNearest, ternary=False):
        """``self / b`` (x/0 is +-inf and 0/0 NaN, as in MPFR)."""
        return self._op("div", [b], precision, round, ternary)

    def fma(self, b, c, precision=None, round=RoundToNearest, ternary=False):
        """``self * b + c`` with one rounding."""
        return self._op("fma", [b, c], precision, round, ternary)

    def fms(self, b, c, precision=None, round=RoundToNearest, ternary=False):
        """``self * b - c`` with one rounding."""
        return self._op("fms", [b, c], precision, round, ternary)

    def min(self, b, precision=None, round=RoundToNearest, ternary=False):
        """MPFR's min (a NaN loses; -0 < +0)."""
        return self._op("min", [b], precision, round, ternary)

    def max(self, b, precision=None, round=RoundToNearest, ternary=False):
        return self._op("max", [b], precision, round, ternary)

    def sqrt(self, precision=None, round=RoundToNearest, ternary=False):
        return self._op("sqrt", [], precision, round, ternary)

    def neg(self, precision=None, round=RoundToNearest, ternary=False):
        return self._op("neg", [], precision, round, ternary)

    def abs(self, precision=None, round=RoundToNearest, ternary=False):
        return self._op("abs", [], precision, round, ternary)

    def set_precision(self, precision, round=RoundToNearest, ternary=False):
        """The elements rounded to another precision (mpfr_set)."""
        return self._op("set_prec", [], precision, round, ternary)

    def mul_2exp(self, k, precision=None, round=RoundToNearest, ternary=False):
        """``self * 2^k`` (mpfr_mul_2si)."""
        return self._op("mul_2si", [], precision, round, ternary, k=int(k))

    def div_2exp(self, k, precision=None, round=RoundToNearest, ternary=False):
        """``self / 2^k`` (mpfr_div_2si)."""
        return self._op("div_2si", [], precision, round, ternary, k=int(k))

    def _func(self, name, precision, round, ternary):
        a, t = self._a.func(name, self._prec(precision), _rnd(round))
        r = FloatArray._wrap(a)
        return (r, _tern(t)) if ternary else r

    def _func2(self, name, y, precision, round, ternary):
        yy = self._coerce(y)
        more = [yy] if isinstance(y, FloatArray) else []
        a, t = self._a.func2(name, yy, self._prec(precision, *more), _rnd(round))
        r = FloatArray._wrap(a)
        return (r, _tern(t)) if ternary else r

    def pow(self, y, precision=None, round=RoundToNearest, ternary=False):
        """``self ** y`` (mpfr_pow; an int exponent is exact, mpfr_pow_z)."""
        if isinstance(y, (int, _np.integer)) and not isinstance(y, bool) or (
                type(y).__name__ == "mpz"):
            a, t = self._a.pow_z([str(int(y))] * len(self), self._prec(precision),
                                 _rnd(round))
            r = FloatArray._wrap(a)
            return (r, _tern(t)) if ternary else r
        return self._func2("pow", y, precision, round, ternary)

    def pow_z(self, n, precision=None, round=RoundToNearest, ternary=False):
        """``self ** n[i]`` for exact integer exponents (mpfr_pow_z)."""
        ns = [str(_op.index(x)) for x in n]
        a, t = self._a.pow_z(ns, self._prec(precision), _rnd(round))
        r = FloatArray._wrap(a)
        return (r, _tern(t)) if ternary else r

    def atan2(self, x, precision=None, round=RoundToNearest, ternary=False):
        """``atan2(self, x)``: ``self`` is the ordinate, as in mpfr_atan2."""
        return self._func2("atan2", x, precision, round, ternary)

    def hypot(self, y, precision=None, round=RoundToNearest, ternary=False):
        return self._func2("hypot", y, precision, round, ternary)

    def agm(self, y, precision=None, round=RoundToNearest, ternary=False):
        return self._func2("agm", y, precision, round, ternary)

    def sin_cos(self, precision=None, round=RoundToNearest, ternary=False):
        """``(sin, cos)`` (mpfr_sin_cos); with ``ternary=True``
        ``((sin, t), (cos, t))``."""
        (s, ts), (c, tc) = self._a.sin_cos(self._prec(precision), _rnd(round))
        s, c = FloatArray._wrap(s), FloatArray._wrap(c)
        return ((s, _tern(ts)), (c, _tern(tc))) if ternary else (s, c)

    def cmp(self, b):
        """Element-wise comparison as int8: -1, 0, 1, or 2 where either is
        NaN; +0 and -0 compare equal."""
        return _tern(self._a.cmp(self._coerce(b)))

    def dot(self, y, precision=None, round=RoundToNearest, ternary=False):
        """The exact dot product correctly rounded (mpfr_dot), as a
        one-element array."""
        yy = self._coerce(y)
        a, t = self._a.dot(yy, self._prec(precision, yy), _rnd(round))
        r = FloatArray._wrap(a)
        return (r, _tern(t)) if ternary else r

    def nrm2(self, precision=None, round=RoundToNearest, ternary=False):
        """``sqrt(sum(x^2))`` of the exact sum, correctly rounded."""
        a, t = self._a.nrm2(self._prec(precision), _rnd(round))
        r = FloatArray._wrap(a)
        return (r, _tern(t)) if ternary else r

    def asum(self, precision=None, round=RoundToNearest, ternary=False):
        """The exact ``sum(|x|)`` correctly rounded."""
        a, t = self._a.asum(self._prec(precision), _rnd(round))
        r = FloatArray._wrap(a)
        return (r, _tern(t)) if ternary else r

    def axpy(self, a, x, precision=None, round=RoundToNearest, ternary=False):
        """``a*x + self`` per element, rounded once (``a`` a scalar)."""
        if isinstance(a, FloatArray):
            aa = a._a
        else:
            aa = _m.Float.from_strs(_prec_of_scalar(a, self.precision), [_float_text(a, 0)],
                                    "N", self.engine)[0]
        xx = self._coerce(x)
        r, t = self._a.axpy(aa, xx, self._prec(precision, xx), _rnd(round))
        r = FloatArray._wrap(r)
        return (r, _tern(t)) if ternary else r

    # operators: round to nearest at the array operands' precision
    def __add__(self, b):
        return self.add(b)

    def __radd__(self, b):
        return self.add(b)

    def __sub__(self, b):
        return self.sub(b)

    def __rsub__(self, b):
        return FloatArray._wrap(self._coerce(b)).sub(self, precision=self.precision)

    def __mul__(self, b):
        return self.mul(b)

    def __rmul__(self, b):
        return self.mul(b)

    def __truediv__(self, b):
        return self.div(b)

    def __rtruediv__(self, b):
        return FloatArray._wrap(self._coerce(b)).div(self, precision=self.precision)

    def __pow__(self, b):
        return self.pow(b)

    def __rpow__(self, b):
        return FloatArray._wrap(self._coerce(b)).pow(self, precision=self.precision)

    def __neg__(self):
        return self.neg()

    def __pos__(self):
        return self

    def __abs__(self):
        return self.abs()

    def __eq__(self, b):
        return self.cmp(b) == 0

    def __ne__(self, b):
        return self.cmp(b) != 0

    def __lt__(self, b):
        return self.cmp(b) == -1

    def __le__(self, b):
        c = self.cmp(b)
        return (c == -1) | (c == 0)

    def __gt__(self, b):
        return self.cmp(b) == 1

    def __ge__(self, b):
        c = self.cmp(b)
        return (c == 1) | (c == 0)


def const(name, precision=53, round=RoundToNearest, engine=None, ternary=False):
    """The constant ``name`` (``pi``, ``ln2``, ``e``, ``ln10``) correctly
    rounded, as a one-element FloatArray (gmpy2's const_pi, const_log2);
    with ``ternary=True`` also its ternary value."""
    a, t = _m.constant(name, precision, _rnd(round), globals()["engine"](engine))
    r = FloatArray._wrap(a)
    return (r, t) if ternary else r


def _add_funcs():
    names = ["exp", "exp2", "expm1", "log", "log2", "log10", "log1p", "sin", "cos", "tan",
             "asin", "acos", "atan", "sinh", "cosh", "tanh", "asinh", "acosh", "atanh", "cbrt"]
    for name in names:
        def f(self, precision=None, round=RoundToNearest, ternary=False, _n=name):
            return self._func(_n, precision, round, ternary)
        f.__name__ = name
        f.__doc__ = (f"``{name}(self)`` correctly rounded to ``precision`` bits (default: the "
                     "array's) in mode ``round``, as MPFR's; ``ternary=True`` returns "
                     "``(result, ternary values)``.")
        setattr(FloatArray, name, f)
    return names


_FUNCS = _add_funcs()


# ---- complex -----------------------------------------------------------------------


def _cprec(p):
    if isinstance(p, (tuple, list)):
        if len(p) != 2:
            raise ValueError("a complex precision is one number or a pair (real, imaginary)")
        return int(p[0]), int(p[1])
    return int(p), int(p)


class ComplexArray:
    """``len`` complex floats with GNU MPC's semantics on one engine: real
    parts of one precision, imaginary parts of another.

    ``ComplexArray(values, precision=None, round=RoundToNearest,
    engine=None)``: ``values`` is a sequence of Python complex numbers,
    gmpy2 ``mpc`` values, or anything FloatArray takes (a real part with
    an imaginary +0), a NumPy complex array, or a pair ``(re, im)`` of
    FloatArrays via ``ComplexArray.from_parts``. ``precision`` is one
    number or a pair (real, imaginary) as in gmpy2 (default: the mpc
    values' largest, else 53); ``round`` one mode or a pair.
    """

    __slots__ = ("_a",)
    __hash__ = None

    def __init__(self, values, precision=None, round=RoundToNearest, engine=None):
        self._a = _complex_native(values, precision, round, engine)[0]

    @classmethod
    def new(cls, values, precision=None, round=RoundToNearest, engine=None, ternary=False):
        """As the constructor; with ``ternary=True`` returns ``(array,
        (real ternary values, imaginary ternary values))``."""
        a, t = _complex_native(values, precision, round, engine)
        r = cls._wrap(a)
        return (r, t) if ternary else r

    @classmethod
    def from_parts(cls, re, im):
        """From real and imaginary FloatArrays (same length and engine)."""
        return cls._wrap(_m.Complex(re._a, im._a))

    @classmethod
    def _wrap(cls, a):
        r = object.__new__(cls)
        r._a = a
        return r

    def __len__(self):
        return len(self._a)

    @property
    def precision(self):
        """``(real precision, imaginary precision)``."""
        return self._a.prec

    @property
    def engine(self):
        return self._a.engine

    @property
    def real(self):
        return FloatArray._wrap(self._a.re())

    @property
    def imag(self):
        return FloatArray._wrap(self._a.im())

    def to_engine(self, engine):
        return ComplexArray._wrap(self._a.to_engine(globals()["engine"](engine)))

    def to_host(self):
        return self.to_engine(cpu())

    def to_numpy(self, round=RoundToNearest):
        """The elements rounded to complex128 (each part in mode ``round``)."""
        rr, ri = _crnd(round)
        return self.real.to_numpy(rr) + 1j * self.imag.to_numpy(ri)

    def to_list(self, round=RoundToNearest):
        return self.to_numpy(round).tolist()

    def to_gmpy2(self):
        """The elements as gmpy2 ``mpc`` values of the array's precisions
        (exact)."""
        g = _gmpy2()
        pr, pi = self.precision
        return [g.mpc(a, b, precision=(pr, pi))
                for a, b in zip(self.real.to_gmpy2(), self.imag.to_gmpy2())]

    def __repr__(self):
        re, im = self.real, self.imag
        n = len(self)
        k = min(n, 4)
        rs = re[:k].to_strings(digits=17) if k else []
        is_ = im[:k].to_strings(digits=17) if k else []
        body = ", ".join(f"({a}, {b})" for a, b in zip(rs, is_))
        more = ", ..." if n > k else ""
        return f"ComplexArray([{body}{more}], precision={self.precision}, engine={self.engine.name!r})"

    def _coerce(self, b):
        if isinstance(b, ComplexArray):
            return b._a
        if isinstance(b, (int, float, complex, str, _np.number)) or _is_mpfr(b) or _is_mpc(b):
            if _is_mpc(b):
                pr, pi = b.precision
            elif isinstance(b, (complex, _np.complexfloating)):
                pr = pi = 53
            else:
                pr = pi = _prec_of_scalar(b, max(self.precision))
            one = ComplexArray([b], precision=(pr, pi), engine=self.engine)
            re = one.real._a.repeat(len(self))
            im = one.imag._a.repeat(len(self))
            return _m.Complex(re, im)
        return ComplexArray(b, engine=self.engine)._a

    def _op(self, name, others, precision, round, ternary, k=0):
        more = [self._coerce(b) for b in others]
        if precision is None:
            ps = [self.precision] + [m.prec for m, b in zip(more, others)
                                     if isinstance(b, ComplexArray)]
            pr, pi = max(p[0] for p in ps), max(p[1] for p in ps)
        else:
            pr, pi = _cprec(precision)
        rr, ri = _crnd(round)
        a, tr, ti = self._a.op(name, more, pr, pi, rr, ri, k)
        r = ComplexArray._wrap(a)
        return (r, (_tern(tr), _tern(ti))) if ternary else r

    def add(self, b, precision=None, round=RoundToNearest, ternary=False):
        """``self + b``, each part correctly rounded to its precision (one
        number or a pair; default the operands' largest) in its mode
        (``round`` one mode or a pair); ``ternary=True`` returns ``(result,
        (real ternary values, imaginary ternary values))``. The same holds for
        every method below."""
        return self._op("add", [b], precision, round, ternary)

    def sub(self, b, precision=None, round=RoundToNearest, ternary=False):
        return self._op("sub", [b], precision, round, ternary)

    def mul(self, b, precision=None, round=RoundToNearest, ternary=False):
        return self._op("mul", [b], precision, round, ternary)

    def div(self, b, precision=None, round=RoundToNearest, ternary=False):
        return self._op("div", [b], precision, round, ternary)

    def pow(self, b, precision=None, round=RoundToNearest, ternary=False):
        """``self ** b`` (mpc_pow, principal branch)."""
        return self._op("pow", [b], precision, round, ternary)

    def sqr(self, precision=None, round=RoundToNearest, ternary=False):
        return self._op("sqr", [], precision, round, ternary)

    def neg(self, precision=None, round=RoundToNearest, ternary=False):
        return self._op("neg", [], precision, round, ternary)

    def conj(self, precision=None, round=RoundToNearest, ternary=False):
        return self._op("conj", [], precision, round, ternary)

    def set_precision(self, precision, round=RoundToNearest, ternary=False):
        return self._op("set_prec", [], precision, round, ternary)

    def mul_2exp(self, k, precision=None, round=RoundToNearest, ternary=False):
        return self._op("mul_2si", [], precision, round, ternary, k=int(k))

    def div_2exp(self, k, precision=None, round=RoundToNearest, ternary=False):
        return self._op("div_2si", [], precision, round, ternary, k=int(k))

    def mul_fr(self, b, precision=None, round=RoundToNearest, ternary=False):
        """``self * b`` for a real FloatArray ``b`` (mpc_mul_fr)."""
        pr, pi = self.precision if precision is None else _cprec(precision)
        rr, ri = _crnd(round)
        bb = b._a if isinstance(b, FloatArray) else FloatArray(b, engine=self.engine)._a
        a, tr, ti = self._a.mul_fr(bb, pr, pi, rr, ri)
        r = ComplexArray._wrap(a)
        return (r, (_tern(tr), _tern(ti))) if ternary else r

    def dot(self, y, conj=False, precision=None, round=RoundToNearest, ternary=False):
        """The exact ``sum(self[i] * y[i])`` (``conj=True``: ``self``
        conjugated, BLAS's dotc), each part correctly rounded, as a
        one-element array."""
        yy = self._coerce(y)
        if precision is None:
            pr, pi = (max(p) for p in zip(self.precision, yy.prec))
        else:
            pr, pi = _cprec(precision)
        rr, ri = _crnd(round)
        a, tr, ti = self._a.dot(yy, conj, pr, pi, rr, ri)
        r = ComplexArray._wrap(a)
        return (r, (_tern(tr), _tern(ti))) if ternary else r

    def _real(self, name, precision, round, ternary):
        p = max(self.precision) if precision is None else int(precision)
        a, t = self._a.real(name, p, _rnd(round))
        r = FloatArray._wrap(a)
        return (r, _tern(t)) if ternary else r

    def abs(self, precision=None, round=RoundToNearest, ternary=False):
        """``|self|`` (mpc_abs) as a FloatArray."""
        return self._real("abs", precision, round, ternary)

    def norm(self, precision=None, round=RoundToNearest, ternary=False):
        """``|self|^2`` (mpc_norm) as a FloatArray."""
        return self._real("norm", precision, round, ternary)

    def arg(self, precision=None, round=RoundToNearest, ternary=False):
        """The argument (mpc_arg) as a FloatArray."""
        return self._real("arg", precision, round, ternary)

    def __add__(self, b):
        return self.add(b)

    __radd__ = __add__

    def __sub__(self, b):
        return self.sub(b)

    def __rsub__(self, b):
        return ComplexArray._wrap(self._coerce(b)).sub(self, precision=self.precision)

    def __mul__(self, b):
        return self.mul(b)

    __rmul__ = __mul__

    def __truediv__(self, b):
        return self.div(b)

    def __rtruediv__(self, b):
        return ComplexArray._wrap(self._coerce(b)).div(self, precision=self.precision)

    def __pow__(self, b):
        return self.pow(b)

    def __neg__(self):
        return self.neg()

    def __pos__(self):
        return self

    def __abs__(self):
        return self.abs()

    def __eq__(self, b):
        b = ComplexArray._wrap(self._coerce(b))
        return (self.real.cmp(b.real) == 0) & (self.imag.cmp(b.imag) == 0)

    def __ne__(self, b):
        return ~self.__eq__(b)


def _add_cfuncs():
    names = ["sqrt", "exp", "log", "sin", "cos", "tan", "sinh", "cosh", "tanh", "atan", "asin",
             "acos"]
    for name in names:
        def f(self, precision=None, round=RoundToNearest, ternary=False, _n=name):
            return self._op(_n, [], precision, round, ternary)
        f.__name__ = name
        f.__doc__ = (f"``{name}(self)`` with each part correctly rounded, as GNU MPC's "
                     f"``mpc_{name}``.")
        setattr(ComplexArray, name, f)


_add_cfuncs()


def _complex_native(values, precision, round, engine):
    eng = globals()["engine"](engine)
    rr, ri = _crnd(round)
    if isinstance(values, ComplexArray):
        pr, pi = values.precision if precision is None else _cprec(precision)
        a, tr, ti = values._a.op("set_prec", [], pr, pi, rr, ri)
        a = a if a.engine == eng else a.to_engine(eng)
        return a, (_tern(tr), _tern(ti))
    if isinstance(values, _np.ndarray) and values.dtype.kind == "c":
        v = values.ravel().astype(_np.complex128)
        pr, pi = (53, 53) if precision is None else _cprec(precision)
        re, tr = _float_native(_np.ascontiguousarray(v.real), pr, rr, eng)
        im, ti = _float_native(_np.ascontiguousarray(v.imag), pi, ri, eng)
        return _m.Complex(re, im), (_tern(tr), _tern(ti))
    items = list(values.ravel().tolist() if isinstance(values, _np.ndarray) else values)
    if precision is None:
        ps = [x.precision for x in items if _is_mpc(x)] + [
            (x.precision, x.precision) for x in items if _is_mpfr(x)]
        pr = max([p[0] for p in ps] or [53])
        pi = max([p[1] for p in ps] or [53])
    else:
        pr, pi = _cprec(precision)
    res, ims = [], []
    for i, x in enumerate(items):
        if _is_mpc(x):
            res.append(_mpfr_text(x.real))
            ims.append(_mpfr_text(x.imag))
        elif isinstance(x, (complex, _np.complexfloating)):
            res.append(float(x.real).hex())
            ims.append(float(x.imag).hex())
        elif isinstance(x, tuple) and len(x) == 2:
            res.append(_float_text(x[0], i))
            ims.append(_float_text(x[1], i))
        else:
            res.append(_float_text(x, i))
            ims.append("0")
    re, tr = _m.Float.from_strs(pr, res, rr, eng)
    im, ti = _m.Float.from_strs(pi, ims, ri, eng)
    return _m.Complex(re, im), (_tern(tr), _tern(ti))


# ---- matrices --------------------------------------------------------------------


def _trans(t, complex_):
    """BLAS's trans letter: False/"N", True/"T", or "C"/"H" (conjugate
    transpose; the same as "T" for real matrices)."""
    if t is False or t is None or t == "N":
        return "N"
    if t is True or t == "T":
        return "T"
    if t in ("C", "H"):
        return "C" if complex_ else "T"
    raise ValueError(f"unknown transpose {t!r}: expected False, True, 'N', 'T' or 'C'")


class Matrix:
    """A ``rows x cols`` matrix of floats or complex floats, row-major over
    a FloatArray or a ComplexArray (``data``).

    ``Matrix(values, precision=None, round=RoundToNearest, engine=None)``:
    a nested sequence (rows) of anything FloatArray takes (complex numbers or
    mpc values make a complex matrix), or a 2-D NumPy array;
    ``Matrix.from_array(a, rows, cols)`` views an array. ``gemm`` and
    ``gemv`` (and ``@``) compute each output element (each part) as the
    exact value rounded once (as mpfr_dot), so the result does not depend on
    the order of summation or the engine.
    """

    __slots__ = ("data", "rows", "cols")

    def __init__(self, values, precision=None, round=RoundToNearest, engine=None):
        if isinstance(values, _np.ndarray):
            if values.ndim != 2:
                raise ValueError(f"a matrix needs a 2-D array, not {values.ndim}-D")
            r, c = values.shape
            flat = values.reshape(-1)
            cplx = values.dtype.kind == "c"
        else:
            rows = [list(row) for row in values]
            r = len(rows)
            c = len(rows[0]) if rows else 0
            for i, row in enumerate(rows):
                if len(row) != c:
                    raise ValueError(f"row {i} has {len(row)} entries, row 0 has {c}")
            flat = [x for row in rows for x in row]
            cplx = any(isinstance(x, (complex, _np.complexfloating)) or _is_mpc(x)
                       for x in flat)
        kind = ComplexArray if cplx else FloatArray
        self.data = kind(flat, precision=precision, round=round, engine=engine)
        self.rows, self.cols = r, c

    @classmethod
    def from_array(cls, a, rows, cols):
        """A view of ``a`` (a FloatArray or ComplexArray of ``rows * cols``
        elements, row-major)."""
        if not isinstance(a, (FloatArray, ComplexArray)):
            raise TypeError("a matrix is made of a FloatArray or a ComplexArray")
        if len(a) != rows * cols:
            raise ValueError(f"{len(a)} elements do not make a {rows} x {cols} matrix")
        m = object.__new__(cls)
        m.data, m.rows, m.cols = a, rows, cols
        return m

    @property
    def is_complex(self):
        return isinstance(self.data, ComplexArray)

    @property
    def shape(self):
        return (self.rows, self.cols)

    @property
    def precision(self):
        return self.data.precision

    @property
    def engine(self):
        return self.data.engine

    def to_engine(self, engine):
        return Matrix.from_array(self.data.to_engine(engine), self.rows, self.cols)

    def to_numpy(self, round=RoundToNearest):
        return self.data.to_numpy(round).reshape(self.rows, self.cols)

    def to_gmpy2(self):
        v = self.data.to_gmpy2()
        return [v[i * self.cols:(i + 1) * self.cols] for i in range(self.rows)]

    def to_list(self, round=RoundToNearest):
        return self.to_numpy(round).tolist()

    def __repr__(self):
        kind = "complex " if self.is_complex else ""
        return f"Matrix({self.rows} x {self.cols} {kind}precision={self.precision}, " \
               f"engine={self.engine.name!r})"

    def _scalar(self, x):
        """A one-element array of this matrix's kind holding ``x`` exactly."""
        if self.is_complex:
            if isinstance(x, ComplexArray):
                return x._a
            return ComplexArray([x], precision=_exact_cprec(x, self.precision),
                                engine=self.engine)._a
        if isinstance(x, FloatArray):
            return x._a
        return _m.Float.from_strs(_prec_of_scalar(x, self.precision), [_float_text(x, 0)], "N",
                                  self.engine)[0]

    def gemm(self, b, alpha=1, beta=None, c=None, trans_a=False, trans_b=False, precision=None,
             round=RoundToNearest, ternary=False):
        """``alpha*op(self)*op(b) + beta*c`` (``c`` optional; ``beta`` 1 when
        ``c`` is given without it), each element rounded once; ``trans_*``:
        False, True (transpose) or "C" (conjugate transpose)."""
        ta, tb = _trans(trans_a, self.is_complex), _trans(trans_b, self.is_complex)
        m = self.rows if ta == "N" else self.cols
        n = b.cols if tb == "N" else b.rows
        if c is not None and beta is None:
            beta = 1
        bb = self._scalar(beta) if c is not None else None
        cc = c.data._a if c is not None else None
        if self.is_complex:
            if precision is None:
                pr, pi = (max(p) for p in zip(self.precision, b.precision))
            else:
                pr, pi = _cprec(precision)
            rr, ri = _crnd(round)
            d, tr, ti = _m.cgemm(self.data._a, self.rows, self.cols, b.data._a, b.rows, b.cols,
                                 self._scalar(alpha), bb, cc, ta, tb, pr, pi, rr, ri)
            r = Matrix.from_array(ComplexArray._wrap(d), m, n)
            return (r, (_tern(tr).reshape(m, n), _tern(ti).reshape(m, n))) if ternary else r
        p = precision or max(self.precision, b.precision)
        d, t = _m.gemm(self.data._a, self.rows, self.cols, b.data._a, b.rows, b.cols,
                       self._scalar(alpha), bb, cc, ta != "N", tb != "N", p, _rnd(round))
        r = Matrix.from_array(FloatArray._wrap(d), m, n)
        return (r, _tern(t).reshape(m, n)) if ternary else r

    def gemv(self, x, alpha=1, beta=None, y=None, trans=False, precision=None,
             round=RoundToNearest, ternary=False):
        """``alpha*op(self)*x + beta*y`` (``y`` optional), each element
        rounded once; an array of the matrix's kind."""
        kind = ComplexArray if self.is_complex else FloatArray
        xx = x if isinstance(x, kind) else kind(x, engine=self.engine)
        if y is not None and beta is None:
            beta = 1
        bb = self._scalar(beta) if y is not None else None
        yy = (y if isinstance(y, kind) else kind(y, engine=self.engine))._a \
            if y is not None else None
        t_ = _trans(trans, self.is_complex)
        if self.is_complex:
            if precision is None:
                pr, pi = (max(p) for p in zip(self.precision, xx.precision))
            else:
                pr, pi = _cprec(precision)
            rr, ri = _crnd(round)
            d, tr, ti = _m.cgemv(self.data._a, self.rows, self.cols, xx._a, self._scalar(alpha),
                                 bb, yy, t_, pr, pi, rr, ri)
            r = ComplexArray._wrap(d)
            return (r, (_tern(tr), _tern(ti))) if ternary else r
        p = precision or max(self.precision, xx.precision)
        d, t = _m.gemv(self.data._a, self.rows, self.cols, xx._a, self._scalar(alpha), bb, yy,
                       t_ != "N", p, _rnd(round))
        r = FloatArray._wrap(d)
        return (r, _tern(t)) if ternary else r

    def __matmul__(self, b):
        if isinstance(b, Matrix):
            return self.gemm(b)
        return self.gemv(b)


def _exact_cprec(x, default):
    """Part precisions that hold complex scalar ``x`` exactly."""
    if _is_mpc(x):
        return x.precision
    if isinstance(x, (complex, _np.complexfloating)):
        return (53, 53)
    p = _prec_of_scalar(x, max(default))
    return (p, p)
