#!/bin/bash
# floatcpu call 2: base (e40fc04) vs new on 16 threads, MPFR in the same call.
h=$(cd "$(dirname "$0")" && pwd); B=$h/bin/mparray-base; N=$h/bin/mparray-new; M=$h/bin/mpfr_threads
export LD_LIBRARY_PATH=$h/lib
exec > >(tee $OUT/final.log) 2>&1
date -u; nproc
for b in $B $N; do echo "== $(basename $b) float"; timeout 40 $b bench float --precs 128,512,1024 --ops add,mul,div,sqrt --runs 3; done
for b in $B $N; do echo "== $(basename $b) func"; timeout 40 $b bench func --precs 512 --funcs exp,log,sin,cos,atan --runs 1; done
echo "== mpfr 16"; timeout 30 $M 16 20 16 3
echo "== new float, second run"; timeout 20 $N bench float --precs 512,1024 --ops add,mul,div,sqrt --runs 5
echo "== new func 128,1024 (65536)"; timeout 30 $N bench func --precs 128,1024 --funcs exp,log,sin,cos,atan --batches 65536 --runs 2
date -u
