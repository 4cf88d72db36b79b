#!/usr/bin/env bash
# One device call: focused add tests and the add benchmarks, default tier
# first, then the other tiers while time is left (the call has 120 s).
# Usage (GPU machine, repo root, .gpu-add carried): bash .gpu-add/gpu_run.sh
set -u
G=.gpu-add
out=${OUT:-/tmp/gpu-out}; mkdir -p "$out"
tests() { echo "### tests tier $1 filter $2 (t=${SECONDS}s)"; MPARRAY_ADD_TIER=$1 timeout $3 bash $G/run.sh test $2 2>&1 | tail -4; cp "$out/tests.log" "$out/tests-${1//,/_}-$2.log" 2>/dev/null; }
bench() { echo "### bench tier $1 (t=${SECONDS}s)"; MPARRAY_ADD_TIER=$1 timeout $2 $G/bin/mparray bench int --engine cuda --cases add,add6 2>&1 | tee "$out/bench-${1//,/_}.log" | grep -E "Add|error|MISMATCH"; }
tests s,8,256 cuda_add_ 30
bench s,8,256 30
for t in s,4,256 s,4,512 c,4,256; do [ $SECONDS -lt 80 ] && bench $t $((108 - SECONDS)); done
[ $SECONDS -lt 104 ] && tests s,4,256 cuda_add_ $((112 - SECONDS))
[ $SECONDS -lt 106 ] && tests s,8,256 cuda_small $((114 - SECONDS))
echo "### done t=${SECONDS}s"
