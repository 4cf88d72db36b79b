#!/usr/bin/env python3
"""The side-by-side table of scripts/compare-speed.sh's reports: per suite,
engine and case, the median over rounds of each build's time, and new/old.

Usage: python3 scripts/compare-speed.py SPEED_DIR"""
import glob, json, os, re, statistics, sys
from collections import defaultdict

def cases(path):
    """(case key, milliseconds) of one report."""
    name = os.path.basename(path)
    suite = name.split('-')[0]
    text = open(path).read().strip()
    if not text:
        return
    if suite == 'huge':
        for line in text.splitlines():
            r = json.loads(line)
            yield f"{r['case']} {r['size']}", r['ms']
            if r.get('from_decimal_ms'):
                yield f"fromdec {r['size']}", r['from_decimal_ms']
        return
    r = json.loads(text)
    if suite == 'int':
        for x in r['results']:
            yield f"{x['case']} 2^{x['num_bits'].bit_length() - 1}", x['median_ms']
    elif suite == 'float':
        for x in r['rows']:
            yield f"{x['op']} {x['prec']}", x['median_ms']
    elif suite == 'func':
        for x in r['rows']:
            yield f"{x['fn']} {x['prec']} n={x['len']}", x['median_ms']

def main(d):
    t = defaultdict(lambda: defaultdict(list))  # (suite, engine, case) -> build -> ms
    for p in sorted(glob.glob(os.path.join(d, '*.json'))):
        m = re.match(r'(\w+)-(\w+)-(old|new)-(\d+)\.json$', os.path.basename(p))
        if not m:
            continue
        suite, engine, build, _ = m.groups()
        try:
            for case, ms in cases(p):
                t[(suite, engine, case)][build].append(ms)
        except (ValueError, KeyError) as e:
            print(f"{p}: unreadable ({e})", file=sys.stderr)
    print("| suite | engine | case | old ms (median) | new ms (median) | new/old |")
    print("|---|---|---|---:|---:|---:|")
    worst = []
    for (suite, engine, case), b in sorted(t.items()):
        if not b['old'] or not b['new']:
            continue
        o, n = statistics.median(b['old']), statistics.median(b['new'])
        ratio = n / o if o > 0 else float('nan')
        flag = " **slower**" if ratio > 1.05 else ""
        print(f"| {suite} | {engine} | {case} | {o:.4g} | {n:.4g} | {ratio:.3f}{flag} |")
        worst.append((ratio, suite, engine, case))
    worst.sort(reverse=True)
    print()
    print("largest ratios:", ", ".join(f"{s} {e} {c}: {r:.3f}" for r, s, e, c in worst[:5]))

if __name__ == '__main__':
    main(sys.argv[1])
