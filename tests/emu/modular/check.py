# Drives memu (the host emulation of int_modular.cu) against Python's ints.
import random, subprocess, sys
from math import gcd
L = int(sys.argv[2]); W = 64 * L; R = 1 << W
rnd = random.Random(1)
# Optional 4th argument: the ops to draw from (comma-separated), e.g. "inv".
OPS = sys.argv[4].split(",") if len(sys.argv) > 4 else ["powm", "gcd", "inv", "to", "from", "mul"]
def num(bits=None):
    k = rnd.choice([0, 1, 2, 3, 4]) if bits is None else 4
    if k == 0: return rnd.choice([0, 1, 2, 3, R - 1, R - 2, 1 << (W - 1), (1 << (W - 1)) + 1, R // 3])
    b = rnd.randint(1, W)
    return rnd.getrandbits(b) | (1 << (b - 1))
cases, want = [], []
for _ in range(int(sys.argv[3])):
    a, e, m = num(), num(), num()
    if m == 0: m = 1
    op = rnd.choice(OPS)
    if op in ("inv", "to", "from", "mul"): m |= 1
    if op == "powm": w = pow(a, e, m)
    elif op == "gcd": w = gcd(a, e)
    elif op == "inv":
        try: w = (pow(a, -1, m), 1) if m > 1 else (0, 1)
        except ValueError: w = (0, 0)
    elif op == "to": w = a * R % m
    elif op == "from": w = a * pow(R, -1, m) % m
    else: w = a * e * pow(R, -1, m) % m
    cases.append(f"{op} {a:x} {e:x} {m:x}"); want.append((op, a, e, m, w))
out = subprocess.run([sys.argv[1]], input="\n".join(cases) + "\n", capture_output=True, text=True).stdout.split("\n")
bad = 0
for (op, a, e, m, w), o in zip(want, out):
    if op == "inv":
        x, f = o.split(); got = (int(x, 16), int(f))
    else: got = int(o, 16)
    if got != w:
        bad += 1
        if bad < 5: print("MISMATCH", op, hex(a), hex(e), hex(m), "got", got, "want", w)
print(f"L={L}: {len(want)} cases, {bad} bad")
