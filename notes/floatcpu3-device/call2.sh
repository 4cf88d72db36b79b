#!/bin/bash
# floatcpu3's second device call: the final code (with sub_near) vs MPFR,
# 16 threads, 2^20 elements; the full set once, then add/div at 512 bits
# three more times to see the drift.
h=$(cd "$(dirname "$0")" && pwd); N=$h/bin/mparray-new; M=$h/mpfr/mpfr_threads
export LD_LIBRARY_PATH=$h/mpfr
exec > >(tee $OUT/call2.log) 2>&1
date -u
echo "== new"; timeout 25 $N bench float --engine cpu --precs 128,512,1024 --ops add,mul,div,sqrt --runs 5
echo "== mpfr 16"; timeout 20 $M 16 20 16 3 arith
for i in 1 2 3; do echo "== new add,div 512 ($i)"; timeout 15 $N bench float --engine cpu --precs 512 --ops add,div,sqrt --runs 5; done
echo "== mpfr 16 again"; timeout 20 $M 16 20 16 3 arith
date -u
