#!/usr/bin/env bash
# One device call: focused add tests and the add benchmarks, default tier
# first, then the tuning tiers while time is left (the call has 120 s).
# Usage (GPU machine, repo root): bash notes/gpu_run.sh
set -u
G=.gpu-add
out=${OUT:-/tmp/gpu-out}; mkdir -p "$out"
tests() { echo "### tests tier $1 (t=${SECONDS}s)"; MPARRAY_ADD_TIER=$1 timeout $2 bash $G/run.sh test cuda_add_ 2>&1 | tail -4; cp "$out/tests.log" "$out/tests-$1.log" 2>/dev/null; }
bench() { echo "### bench tier $1 (t=${SECONDS}s)"; MPARRAY_ADD_TIER=$1 timeout $2 $G/bin/mparray bench int --engine cuda --cases add,add6 ${3:-} 2>&1 | tee "$out/bench-$1.log" | grep -E "Add|error|MISMATCH"; }
tests 8,256 40
bench 8,256 35
for t in 4,256 8,512; do [ $SECONDS -lt 85 ] && bench $t $((112 - SECONDS)) "--runs 5"; done
for t in 4,256 8,512; do [ $SECONDS -lt 105 ] && tests $t $((114 - SECONDS)); done
echo "### done t=${SECONDS}s"
