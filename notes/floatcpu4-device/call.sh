#!/bin/bash
# floatcpu4's device call: the CPU engine (branch floatcpu4) and MPFR 4.2
# (notes/mpfr_threads.c with the dev machine's libmpfr/libgmp) on the GPU
# machine's 16 host cores, 2^20 elements, three times each, interleaved; then
# diagnostics: 2^16 elements (cache-resident) and one thread.
h=$(cd "$(dirname "$0")" && pwd); N=$h/bin/mparray; M=$h/mpfr/mpfr_threads
export LD_LIBRARY_PATH=$h/mpfr
exec > >(tee $OUT/call.log) 2>&1
date -u; nproc; lscpu | grep -E "Model name|MHz|L2|L3" | head -6
F="bench float --engine cpu --precs 128,512,1024 --ops add,mul,div,sqrt --runs 5"
for round in 1 2 3; do
  echo "== round $round: new"; timeout 30 $N $F
  echo "== round $round: mpfr 16"; timeout 20 $M 16 20 16 3 arith
done
echo "== new, 2^16 elements (memory effect)"; timeout 10 $N bench float --engine cpu --scale 4 --precs 128,512 --ops add,div,sqrt --runs 9
echo "== new, 1 thread, 2^18 elements"; RAYON_NUM_THREADS=1 timeout 20 $N bench float --engine cpu --scale 2 --precs 128,512,1024 --ops add,mul,div,sqrt --runs 3
echo "== mpfr 1"; timeout 15 $M 1 18 12 3 arith
date -u
