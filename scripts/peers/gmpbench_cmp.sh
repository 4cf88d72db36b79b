#!/bin/bash
# Single-thread comparison with GMP at --scale $1 (min of runs): mparray vs scripts/peers/gmpbench.c
S=${1:-10}; CASES=${2:-add,mul,div}  # needs /tmp/gmpbench: gcc -O2 -fopenmp scripts/peers/gmpbench.c -o /tmp/gmpbench -lgmp
RAYON_NUM_THREADS=1 ${CARGO_TARGET_DIR:-target}/release/mparray bench int --engine cpu --scale $S --runs 7 --cases $CASES --json | python3 -c '
import json,sys
d=json.load(sys.stdin)
for r in d["results"]: print("%7d %-6s min %8.3f med %8.3f" % (r["num_bits"], r["case"], r["min_ms"], r["median_ms"]))'
OMP_NUM_THREADS=1 /tmp/gmpbench $S
