#!/usr/bin/env python3
"""Inputs at the precision and exponent-range edges for tests/edges_mpfr.txt:
every float op and real function, and every complex function, at output
precisions 1 and 2, with arguments at MPFR's largest and smallest floats,
around the overflow and underflow thresholds of exp, exp2, sinh, cosh, pow
and friends, and the special values. Prints lines for
scripts/peers/edges_mpfr.c (which appends MPFR's and MPC's results):

  python3 scripts/edges_gen.py --run ./edges_mpfr > tests/edges_mpfr.txt

With --run, each line goes through the tool with a time limit of 20 s:
lines MPFR or MPC do not finish in that time are left out (listed on
standard error).

Trigonometric functions get no huge arguments (their reduction at exponent
2^30 is issue 16's item 1, measured separately)."""

EMAX, EMIN = 2**30 - 1, 1 - 2**30


def mx(q):
    """The largest float of q bits."""
    return f"0x{(1 << q) - 1:x}p{EMAX - q}"


MIN = f"0x1p{EMIN - 1}"


def nxt_min(q):
    """The smallest float above MIN at q bits (MIN itself at 1 bit)."""
    return MIN if q == 1 else f"0x{(1 << (q - 1)) + 1:x}p{EMIN - q}"


def neg(s):
    return s[1:] if s.startswith("-") else "-" + s


SPECIALS = ["0", "-0", "inf", "-inf", "nan"]
PLAIN = ["1", "-1", "0.5", "3", "0x1.8p0", "0x1p-1000"]


def edge_values(q):
    m = mx(q)
    return [m, neg(m), MIN, neg(MIN), nxt_min(q), f"0x1p{EMAX - 1}", f"0x1p{EMIN}"]


EXP_T = ["744261117", "744261117.2617", "744261117.2618", "744261117.9", "744261118",
         "-744261117.9548", "-744261117.9549", "-744261118.6480", "-744261118.6481",
         "-744261119", "0x1p-1100"]
EXP2_T = ["1073741822", "1073741822.5", "1073741823", "1073741823.0001",
          "-1073741824", "-1073741824.5", "-1073741825", "-1073741825.4", "-1073741825.5",
          "-1073741826"]
HYP_T = ["744261117.9548", "744261117.9549", "744261118.6480", "744261118.6481", "744261119"]


def real_lines():
    out = []
    for p, qs in [(1, [1, 53]), (2, [2])]:
        for q in qs:
            e = edge_values(q)
            m, mn, n1 = mx(q), MIN, nxt_min(q)
            base = SPECIALS + PLAIN + e
            unary = {
                "sqrt": base, "neg": base, "abs": base, "set": base,
                "exp": base + EXP_T, "exp2": base + EXP2_T, "expm1": base + EXP_T,
                "sinh": base + HYP_T + [neg(x) for x in HYP_T],
                "cosh": base + HYP_T + [neg(x) for x in HYP_T],
                "tanh": base + ["20", "-20"],
                "log": base, "log2": base, "log10": base, "log1p": base + ["-0.5"],
                "cbrt": base + [f"0x1p{EMIN + 1}", f"0x1p{EMAX - 2}"],
                "asinh": base, "acosh": base + ["2"], "atanh": base,
                "atan": base, "asin": base, "acos": base,
                # No huge arguments for the trigonometric functions.
                "sin": SPECIALS + PLAIN + [mn, neg(mn), n1, "0x1p60"],
                "cos": SPECIALS + PLAIN + [mn, neg(mn), n1, "0x1p60"],
                "tan": SPECIALS + PLAIN + [mn, neg(mn), n1, "0x1p60"],
            }
            pairs = [(m, m), (m, neg(m)), (m, mn), (mn, m), (mn, mn), (mn, neg(mn)),
                     (m, "1"), ("1", m), (mn, "1"), ("1", mn), (m, "0.5"), (mn, "0.5"),
                     (mn, "3"), (m, "3"), (n1, "0x1.8p0"), (n1, "0.75"), ("0", mn),
                     ("-0", neg(mn)), ("inf", m), ("nan", "1"), (m, "0"), (mn, "-inf"),
                     ("2", m), ("0.5", mn)]
            binary = {f: pairs for f in ["add", "sub", "mul", "div", "min", "max",
                                         "atan2", "hypot", "agm"]}
            binary["pow"] = pairs + [
                ("2", "1073741822"), ("2", "1073741823"), ("0.5", "1073741824"),
                ("0.5", "1073741825"), ("10", "323228496"), ("10", "323228497"),
                ("10", "-323228497"), ("10", "-323228498"), ("-2", "1073741823"),
                ("3", "-677630184"), (m, "2"), (m, "-1"), (mn, "-1"), (mn, "2")]
            triples = [(m, "2", neg(m)), (m, "0.5", m), (mn, "0.5", mn), (mn, mn, m),
                       (mn, mn, "1"), (mn, mn, neg(mn)), (m, m, "-inf"), ("2", m, neg(m)),
                       (mn, "0.75", "0"), (n1, "0.5", "-0"), (m, m, m), (mn, "3", neg(mn)),
                       (m, mn, "1"), ("nan", "1", "1"), ("inf", "0", "1")]
            shifts = [(m, "1"), (m, "-1"), (mn, "-1"), (mn, "-2"), (mn, "1"), ("1", "1073741822"),
                      ("1", "1073741823"), ("1", "-1073741824"), ("1", "-1073741825"),
                      ("0x1.8p0", "-1073741825"), ("0x1.8p0", "-1073741824"), (m, "-2147483646"),
                      (mn, "2147483646"), ("0", "5"), ("inf", "-5")]
            powz = [("2", "1073741822"), ("2", "1073741823"), ("0.5", "1073741824"),
                    ("0.5", "1073741825"), ("3", "-677630184"), (m, "2"), (m, "-1"),
                    (mn, "2"), (mn, "-1"), ("-2", "1073741823"), ("-0.5", "1073741825"),
                    ("0", "-3"), ("-0", "-3"), ("inf", "-2"), ("nan", "0")]
            for r in "NZUDA":
                for f, xs in unary.items():
                    out += [f"r {f} {p} {q} {r} {x}" for x in xs]
                for f, ps in binary.items():
                    out += [f"r {f} {p} {q} {r} {x} {y}" for x, y in ps]
                for f in ["fma", "fms"]:
                    out += [f"r {f} {p} {q} {r} {x} {y} {z}" for x, y, z in triples]
                for f in ["mul2", "div2"]:
                    out += [f"r {f} {p} {q} {r} {x} {k}" for x, k in shifts]
                out += [f"r pow_z {p} {q} {r} {x} {k}" for x, k in powz]
    return out


def complex_lines():
    out = []
    for p in [1, 2]:
        q = p
        m, mn = mx(q), MIN
        general = [(m, m), (mn, mn), (m, mn), (mn, m), ("1", mn), ("-1", mn), ("-1", neg(mn)),
                   (neg(m), mn), ("0", m), (mn, "0"), ("3", neg(m)), (neg(mn), "-0")]
        # Huge imaginary parts only where no reduction of them is needed,
        # and the same for real parts.
        trig = [(mn, mn), ("1", "744261118"), ("1", m), (mn, m), ("0", m), ("1", mn),
                (mn, "1"), (neg(mn), neg(m))]
        hyp = [(b, a) for a, b in trig]
        un = {"neg": general, "conj": general, "sqr": general, "sqrt": general,
              "log": general, "asin": general, "acos": general, "atan": general,
              "abs": general + [("0x3p-1073741826", "0x4p-1073741826")],
              "norm": general, "arg": general,
              "exp": hyp + [("-744261119", "1")], "sinh": hyp, "cosh": hyp, "tanh": hyp,
              "sin": trig, "cos": trig, "tan": trig}
        pairs = [((m, m), (m, m)), ((mn, mn), (mn, mn)), ((m, mn), (mn, m)),
                 (("1", "1"), (mn, mn)), ((m, "1"), ("0.5", "0")), ((mn, "0"), ("0.5", "0")),
                 ((m, m), ("0.5", "0.5")), ((mn, neg(mn)), ("3", "3"))]
        bi = {"add": pairs, "sub": pairs, "mul": pairs, "div": pairs,
              "pow": [(("2", "0"), ("1073741822", "0")), ((m, "0"), ("2", "0")),
                      ((mn, mn), ("2", "0")), ((mn, "0"), ("0.5", "0")),
                      (("0", "1"), (m, "0")), ((m, m), ("-1", "0"))]}
        for r in ["NN", "ZZ", "UU", "DD", "AA", "NZ", "UD"]:
            for f, xs in un.items():
                out += [f"c {f} {p} {q} {r} {a} {b}" for a, b in xs]
            for f, xs in bi.items():
                out += [f"c {f} {p} {q} {r} {a} {b} {c} {d}" for (a, b), (c, d) in xs]
    return out


def run(tool, lines, stream=False, limit=20):
    """Each line through `tool`, restarted after a line that hangs."""
    import select
    import subprocess
    import sys

    out, i = [], 0
    while i < len(lines):
        p = subprocess.Popen([tool], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
        while i < len(lines):
            p.stdin.write(lines[i] + "\n")
            p.stdin.flush()
            ready, _, _ = select.select([p.stdout], [], [], limit)
            if not ready:
                print(f"left out (over {limit} s): {lines[i]}", file=sys.stderr)
                p.kill()
                i += 1
                break
            out.append(p.stdout.readline().rstrip("\n"))
            if stream:
                print(out[-1], flush=True)
            i += 1
        else:
            p.stdin.close()
            p.wait()
    return out


if __name__ == "__main__":
    import sys

    lines = real_lines() + complex_lines()
    print("# kind fn prec inprec rnd args | MPFR/MPC result | ternary", flush=True)
    if len(sys.argv) > 2 and sys.argv[1] == "--run":
        run(sys.argv[2], lines, stream=True)
    else:
        print("\n".join(lines))
