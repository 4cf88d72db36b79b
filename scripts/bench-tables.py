#!/usr/bin/env python3
"""Markdown tables from `mparray bench float|func --json` output (the
figures BENCHMARKS.md quotes). Usage: bench-tables.py FILE.json..."""
import json
import sys


def fmt(v):
    return f"{v:.0f}" if v >= 100 else f"{v:.3g}"


for path in sys.argv[1:]:
    d = json.load(open(path))
    rows = d["rows"]
    ok = all(r["ok"] for r in rows)
    checked = sum(r["checked"] for r in rows)
    print(f"<!-- {path}: suite {d['suite']}, engine {d['engine']}, all checks ok: {ok}, "
          f"{checked} elements checked -->")
    if d["suite"] == "float":
        ops = list(dict.fromkeys(r["op"] for r in rows))
        precs = list(dict.fromkeys(r["prec"] for r in rows))
        scale = 1e9 if "cuda" in d["engine"].lower() else 1e6
        print("| bits | " + " | ".join(ops) + " |")
        print("|---" * (len(ops) + 1) + "|")
        for p in precs:
            cells = [fmt(r['ops_per_s'] / scale) for o in ops for r in rows
                     if r["op"] == o and r["prec"] == p]
            print(f"| {p} | " + " | ".join(cells) + " |")
    else:
        fns = list(dict.fromkeys(r["fn"] for r in rows))
        precs = list(dict.fromkeys(r["prec"] for r in rows))
        lens = sorted(set(r["len"] for r in rows))
        print("| function | " + " | ".join(f"{p} bits" for p in precs) + " | retried |")
        print("|---" * (len(precs) + 2) + "|")
        for f in fns:
            cells = []
            for p in precs:
                v = [next((r for r in rows if r["fn"] == f and r["prec"] == p and r["len"] == n), None)
                     for n in lens]
                cells.append(" / ".join(fmt(r['ops_per_s'] / 1e6) if r else "-" for r in v))
            retried = sum(r["retried"] or 0 for r in rows if r["fn"] == f)
            print(f"| {f} | " + " | ".join(cells) + f" | {retried} |")
        print(f"(M ops/s for batches of {' / '.join(str(n) for n in lens)} elements)")
    print()
