#!/usr/bin/env python3
"""Times huge-argument functions: mparray (examples/func_time) against GNU
MPFR/MPC (gmpy2), each call in a fresh process (pi not cached), the best
of R runs, CPU seconds of the process (all threads) and wall seconds.
Also checks that both give the same bits. Usage:

    pip install --target /tmp/gm gmpy2
    cargo build --release --example func_time
    PYTHONPATH=/tmp/gm scripts/peers/trig_huge_time.py [R] [EXPS] [FUNCS] [PRECS]

EXPS: comma-separated binary exponents (default 1024,65536,1048576);
FUNCS default sin,cos,tan,sin_cos,csin,ccos,ctan,cexp,csinh,ccosh,ctanh; PRECS 53,1024.
"""
import subprocess
import sys

BIN = "target/release/examples/func_time"
R = int(sys.argv[1]) if len(sys.argv) > 1 else 3
EXPS = [int(e) for e in (sys.argv[2] if len(sys.argv) > 2 else "1024,65536,1048576").split(",")]
FUNCS = (sys.argv[3] if len(sys.argv) > 3 else "sin,cos,tan,sin_cos,csin,ccos,ctan,cexp,csinh,ccosh,ctanh").split(",")
PRECS = [int(p) for p in (sys.argv[4] if len(sys.argv) > 4 else "53,1024").split(",")]

MPFR = r'''
import sys, time
import gmpy2
from gmpy2 import mpfr, mpc
f, p, x, y = sys.argv[1], int(sys.argv[2]), sys.argv[3], sys.argv[4]
c = gmpy2.get_context()
c.emax = (1 << 30) - 1; c.emin = -(1 << 30) + 1
c.precision = 4 * max(len(x), len(y)) + 64
X, Y = mpfr(x), mpfr(y)
Z = mpc(X, Y)  # (at the inputs' precision: mpc() rounds to the context's)
c.precision = p
c.real_prec = p; c.imag_prec = p
t0, c0 = time.perf_counter(), time.process_time()
if f == "sin_cos":
    r = gmpy2.sin_cos(X)
elif f == "pow":
    r = (gmpy2.pow(X, Y),)
elif f.startswith("c") and f not in ("cos", "cosh", "cbrt"):
    z = getattr(gmpy2, f[1:])(Z)
    r = (z.real, z.imag)
else:
    r = (getattr(gmpy2, f)(X),)
t1, c1 = time.perf_counter(), time.process_time()
for v in r:
    print(v.__format__("a"))
print("wall %.6f cpu %.6f" % (t1 - t0, c1 - c0))
'''


def parse(out):
    lines = out.strip().split("\n")
    w, c = lines[-1].split()[1::2]
    return lines[:-1], float(w), float(c)


def run(cmd):
    return parse(subprocess.run(cmd, capture_output=True, text=True, check=True).stdout)


def same(a, b):
    import gmpy2
    from gmpy2 import mpfr
    gmpy2.get_context().precision = 4096
    return all(mpfr(u) == mpfr(v) for u, v in zip(a, b)) and len(a) == len(b)


print(f"{'func':>8} {'prec':>5} {'exp':>9} {'ours cpu':>9} {'ours wall':>9} {'mpfr cpu':>9} {'mpfr wall':>9} {'ratio':>6} same")
for e in EXPS:
    x = "0x1.921fb54442d18469898cc51701b8p+%d" % (e - 1)
    y = "0x1.8p-3"
    for f in FUNCS:
        for p in PRECS:
            # exp, sinh, cosh, tanh of a + ib: the huge part is b.
            a, b = (y, x) if f in ("cexp", "csinh", "ccosh", "ctanh") else (x, y)
            ours = [run([BIN, f, str(p), a, b]) for _ in range(R)]
            mp = [run([sys.executable, "-c", MPFR, f, str(p), a, b]) for _ in range(R)]
            oc, ow = min(o[2] for o in ours), min(o[1] for o in ours)
            mc, mw = min(m[2] for m in mp), min(m[1] for m in mp)
            ok = same(ours[0][0], mp[0][0])
            print(f"{f:>8} {p:>5} {e:>9} {oc:>9.4f} {ow:>9.4f} {mc:>9.4f} {mw:>9.4f} {oc / mc:>6.2f} {ok}", flush=True)
