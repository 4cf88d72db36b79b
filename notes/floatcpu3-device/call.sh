#!/bin/bash
# floatcpu3's device call: new (branch floatcpu3) vs base (main 1915634's
# float arithmetic) vs MPFR 4.2, 16 threads, 2^20 elements, twice each, in
# one call; then one thread (2^18 elements).
h=$(cd "$(dirname "$0")" && pwd); N=$h/bin/mparray-new; B=$h/bin/mparray-base; M=$h/mpfr/mpfr_threads
export LD_LIBRARY_PATH=$h/mpfr
exec > >(tee $OUT/call.log) 2>&1
date -u; nproc; lscpu | grep -E "Model name|MHz" | head -3
F="bench float --engine cpu --precs 128,512,1024 --ops add,mul,div,sqrt --runs 5"
for round in 1 2; do
  echo "== round $round: new"; timeout 25 $N $F
  echo "== round $round: base"; timeout 25 $B $F
  echo "== round $round: mpfr 16"; timeout 20 $M 16 20 16 3 arith
done
echo "== new, 1 thread"; RAYON_NUM_THREADS=1 timeout 20 $N bench float --engine cpu --scale 2 --precs 128,512,1024 --ops add,mul,div,sqrt --runs 3
echo "== base, 1 thread"; RAYON_NUM_THREADS=1 timeout 20 $B bench float --engine cpu --scale 2 --precs 128,512,1024 --ops add,mul,div,sqrt --runs 3
echo "== mpfr 1"; timeout 15 $M 1 18 12 3 arith
date -u
