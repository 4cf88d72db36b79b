"""``python -m mparray bench``: mparray's batch operations beside gmpy2 in a
Python loop, and the cost of the Python call.

For n elements (default 2^20) of 512 bits it times, on the chosen engine:
integer multiplication (the full product, ``mul_wide``, against gmpy2's
``x*y``), float multiplication and float exp at 512 bits to nearest
(against gmpy2 at ``precision=512``); each mparray result is checked
against gmpy2's on a sample of elements (bit for bit). Then the call
overhead: the Python call ``a * b`` on two IntArrays of n 512-bit numbers
(the low 512 bits of each product) against the same library operation
timed inside Rust by the engine's clock, median of several runs.
"""

import argparse
import random
import statistics
import sys
import time

import mparray as mp
from mparray import _mparray as _m


def _now():
    return time.perf_counter()


def _time(f, runs, sync):
    """The median of ``runs`` timings of ``f()`` (seconds), and its result."""
    ts, r = [], None
    for _ in range(runs):
        t = _now()
        r = f()
        sync()
        ts.append(_now() - t)
    return statistics.median(ts), r


def _sample(n, k, seed):
    rng = random.Random(seed)
    return sorted(rng.sample(range(n), min(n, k)))


def bench(argv):
    p = argparse.ArgumentParser(prog="python -m mparray bench", description=__doc__,
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--n", default="2^20", help="elements (default 2^20; 2^k accepted)")
    p.add_argument("--bits", type=int, default=512, help="width and precision (default 512)")
    p.add_argument("--engine", default="auto", help="cpu, cuda or auto (default)")
    p.add_argument("--runs", type=int, default=5, help="runs per mparray timing (median)")
    p.add_argument("--check", type=int, default=256, help="elements checked against gmpy2")
    p.add_argument("--gmpy2-n", default=None,
                   help="elements in the gmpy2 loops (default: n; the time is scaled to n)")
    a = p.parse_args(argv)
    pw = lambda s: 2 ** int(s[2:]) if s.startswith("2^") else int(s)  # noqa: E731
    n, bits = pw(a.n), a.bits
    gn = min(n, pw(a.gmpy2_n)) if a.gmpy2_n else n
    eng = mp.engine(a.engine)
    import gmpy2

    sync = eng.synchronize
    print(f"mparray bench (Python): engine {eng.describe()}, n = {n}, {bits} bits, "
          f"gmpy2 {gmpy2.version()} in a loop over {gn} elements"
          + (" (scaled to n)" if gn < n else ""))
    rows = []

    def row(name, ours, theirs, ok):
        rows.append((name, ours, theirs, ok))
        sp = theirs / ours if ours > 0 else float("inf")
        print(f"  {name:<24} mparray {ours * 1e3:10.1f} ms   gmpy2 loop {theirs * 1e3:10.1f} ms"
              f"   {sp:7.1f}x   check: {ok}", flush=True)

    # Integers: the full product (gmpy2's x*y computes the same).
    x = mp.IntArray.random(n, bits, seed=1, engine=eng)
    y = mp.IntArray.random(n, bits, seed=2, engine=eng)
    sync()
    t_ours, z = _time(lambda: x.mul_wide(y), a.runs, sync)
    xs = [gmpy2.mpz(v) for v in x.to_list()[:gn]]
    ys = [gmpy2.mpz(v) for v in y.to_list()[:gn]]
    t = _now()
    zs = [u * v for u, v in zip(xs, ys)]
    t_g = (_now() - t) * n / gn
    got = z.to_list()
    idx = _sample(gn, a.check, 3)
    ok = all(got[i] == zs[i] for i in idx)
    row(f"int mul_wide {bits}", t_ours, t_g, f"{len(idx)} equal" if ok else "MISMATCH")
    del xs, ys, zs, got

    # Floats to nearest at `bits` bits.
    fx = mp.FloatArray.random_uniform(n, -1, 1, precision=bits, seed=4, engine=eng)
    fy = mp.FloatArray.random_uniform(n, -1, 1, precision=bits, seed=5, engine=eng)
    fe = mp.FloatArray.random_uniform(n, -10, 10, precision=bits, seed=6, engine=eng)
    sync()
    gx, gy, ge = (v[:gn].to_gmpy2() if gn < n else v.to_gmpy2() for v in (fx, fy, fe))
    for name, ours, theirs in (
            (f"float mul {bits} RNDN", lambda: fx * fy, lambda: [u * v for u, v in zip(gx, gy)]),
            (f"float exp {bits} RNDN", lambda: fe.exp(), lambda: [gmpy2.exp(u) for u in ge])):
        t_ours, r = _time(ours, a.runs if "mul" in name else max(1, a.runs // 2), sync)
        with gmpy2.context(precision=bits):
            t = _now()
            want = theirs()
            t_g = (_now() - t) * n / gn
        idx = _sample(gn, a.check, 7)
        got = mp.FloatArray.from_raw(bits, *(v[idx] for v in r.to_raw())).to_gmpy2()
        ok = all(g == want[i] for g, i in zip(got, idx))
        row(name, t_ours, t_g, f"{len(idx)} equal" if ok else "MISMATCH")
    del gx, gy, ge

    # The call overhead: the Python call against the library's own time.
    py_ms, rust_ms = [], []
    for _ in range(max(11, 2 * a.runs + 1)):
        t = _now()
        r = x * y
        sync()
        py_ms.append((_now() - t) * 1e3)
        del r
        ms, r = _m.timed_int_mul(x._a, y._a)
        rust_ms.append(ms)
        del r
    # The minimum is the cost without interference (other processes on the
    # cores); the median is printed beside it.
    for what, f in (("min", min), ("median", statistics.median)):
        pm, rm = f(py_ms), f(rust_ms)
        print(f"  call overhead ({what} of {len(py_ms)}), IntArray a * b ({n} x {bits} bits, "
              f"low half): Python call {pm:.2f} ms, the Rust operation alone {rm:.2f} ms: "
              f"overhead {(pm - rm) / rm * 100:+.2f}%")
    if any("MISMATCH" in r[3] for r in rows):
        print("a result differs from gmpy2's", file=sys.stderr)
        return 1
    return 0


def main(argv=None):
    argv = sys.argv[1:] if argv is None else argv
    if not argv or argv[0] in ("-h", "--help"):
        print("usage: python -m mparray bench [options]   (python -m mparray bench --help)")
        print("engines usable here:", ", ".join(mp.engines()))
        return 0
    if argv[0] == "bench":
        return bench(argv[1:])
    if argv[0] == "info":
        ok, why = mp.cuda_status()
        print("engines:", ", ".join(mp.engines()), "; default:", mp.default_engine().describe())
        print("CUDA:", why)
        return 0
    print(f"unknown command {argv[0]!r}: expected bench or info", file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main())
