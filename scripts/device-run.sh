#!/usr/bin/env bash
# The one call on the GPU machine that produces BENCHMARKS.md's figures:
# engine info, every test binary (GPU tests included), the integer suite on
# CUDA at full scale, the six-add tiers side by side, the CPU suite at scale
# 4, and a run that verifies every instance. Logs go to $OUT: run.txt
# (everything printed), tests.log (all test output), bench-*.json.
# Usage (device tool, carrying .gpu): bash scripts/device-run.sh
set -uo pipefail
out=${OUT:-/tmp/mparray-out}
mkdir -p "$out"
log="$out/run.txt"
bin=.gpu/bin/mparray
{
  $bin info
  nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem,temperature.gpu --format=csv
  echo "=== tests (default tiers)"
  start=$(date +%s)
  bash .gpu/run.sh 2>&1 | tail -40
  echo "tests exit ${PIPESTATUS[0]} in $(($(date +%s) - start)) s"
  echo "=== bench int cuda (full scale)"
  $bin bench int --engine cuda --runs 10 --json-out "$out/bench-cuda.json"
  for t in p,8,128 p,4,256 t,4,256; do
    echo "=== six-add tier $t: bench and GPU add tests"
    MPARRAY_ADD_TIER=$t $bin bench int --engine cuda --cases add6 --runs 10
    MPARRAY_ADD_TIER=$t OUT="$out/tier-${t//,/_}" bash .gpu/run.sh test cuda_add_ 2>&1 | tail -3
  done
  echo "=== bench int cpu (scale 4)"
  $bin bench int --engine cpu --scale 4 --runs 5 --json-out "$out/bench-cpu.json"
  echo "=== bench int cuda, every instance verified at 2^12 and 2^19"
  $bin bench int --engine cuda --runs 3 --sizes 12,19 --verify all
} 2>&1 | tee -a "$log"
