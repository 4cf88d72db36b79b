#!/usr/bin/env python3
"""Markdown tables from `mparray bench float|func|blas --json` output (the
figures BENCHMARKS.md quotes). Usage: bench-tables.py FILE.json..."""
import json
import sys


def fmt(v):
    return f"{v:.0f}" if v >= 100 else f"{v:.3g}"


def blas(d):
    """gemm/syrk: GMAC/s per precision (rows) and n (columns); then the
    tall, gemv and dot cases, one row each; skipped cases as a comment."""
    rows = d["rows"]
    for op in ("gemm", "syrk"):
        rs = [r for r in rows if r["op"] == op]
        if not rs:
            continue
        ns = sorted(set(r["n"] for r in rs))
        print(f"| {op} GMAC/s | " + " | ".join(f"n = {n}" for n in ns) + " |")
        print("|---" * (len(ns) + 1) + "|")
        for p in sorted(set(r["prec"] for r in rs)):
            cells = []
            for n in ns:
                r = next((r for r in rs if r["prec"] == p and r["n"] == n), None)
                cells.append(fmt(r["gmac_per_s"]) if r else "-")
            print(f"| {p} bits | " + " | ".join(cells) + " |")
        print()
    rs = [r for r in rows if r["op"] in ("tall", "gemv", "dot")]
    if rs:
        print("| case | bits | shape | ms | GMAC/s |")
        print("|---|---|---|---|---|")
        for r in sorted(rs, key=lambda r: (["tall", "gemv", "dot"].index(r["op"]), r["prec"])):
            print(f"| {r['op']} | {r['prec']} | {r['shape']} | {fmt(r['median_ms'])} | "
                  f"{fmt(r['gmac_per_s'])} |")
        print()
    for sk in d.get("skipped", []):
        print(f"<!-- skipped: {sk['op']} {sk['prec']} bits {sk['shape']}: {sk['reason']} -->")


for path in sys.argv[1:]:
    d = json.load(open(path))
    rows = d["rows"]
    ok = all(r["ok"] for r in rows)
    checked = sum(r["checked"] for r in rows)
    print(f"<!-- {path}: suite {d['suite']}, engine {d['engine']}, all checks ok: {ok}, "
          f"{checked} elements checked -->")
    if d["suite"] == "blas":
        blas(d)
        continue
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
