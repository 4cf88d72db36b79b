#!/bin/bash
# floatcpu call 1: host facts, MPFR on 1/8/16 threads, mparray (base) on 1/8/16 threads.
h=$(cd "$(dirname "$0")" && pwd); B=$h/bin/mparray-base; M=$h/bin/mpfr_threads
export LD_LIBRARY_PATH=$h/lib
exec > >(tee $OUT/diag.log) 2>&1
lscpu | egrep "Model name|^CPU\(s\)|Thread|Core|Socket|MHz|NUMA|L2|L3"
date -u
for T in 1 8 16; do
  if [ $T = 1 ]; then la=18; lf=13; else la=20; lf=16; fi
  timeout 40 $M $T $la $lf 3
done
date -u
RAYON_NUM_THREADS=1 timeout 30 $B bench float --precs 128,512,1024 --ops add,mul,div,sqrt --scale 2 --runs 3
for T in 8 16; do RAYON_NUM_THREADS=$T timeout 30 $B bench float --precs 128,512,1024 --ops add,mul,div,sqrt --runs 3; done
date -u
RAYON_NUM_THREADS=1 timeout 30 $B bench func --precs 512 --funcs exp,log,sin,cos,atan --batches 8192 --runs 2
for T in 8 16; do RAYON_NUM_THREADS=$T timeout 30 $B bench func --precs 512 --funcs exp,log,sin,cos,atan --batches 65536 --runs 2; done
date -u
