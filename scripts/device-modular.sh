#!/bin/bash
# The device job of the modular-arithmetic rounds (coordinator's queue):
# GMP on 16 threads, modbench (CPU and CUDA, checked), then the GPU tests.
# Run from the unpacked pack: ./gmpmod ./modbench ./int_cuda_modular ./int_modular.
# $R: results folder. Every step has its own timeout inside the job's 80 s.
R=${R:-/tmp/modres}
mkdir -p "$R"
cd "$(dirname "$0")"
nproc > "$R/nproc.txt"
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm --format=csv > "$R/gpu.txt" 2>&1
: > "$R/gmp.jsonl"
for spec in "2048 2048 40000" "256 65536 300000" "1024 8192 80000" "4096 256 12000"; do
    set -- $spec
    timeout 6 ./gmpmod 16 "$1" "$2" "$3" >> "$R/gmp.jsonl"
done
MODBENCH_CPU=${MODBENCH_CPU:-1} timeout ${BENCH_S:-40} ./modbench 0.3 ${WIDTHS:-2048 256 1024 4096} > "$R/bench.jsonl" 2> "$R/bench.err"
timeout ${TEST_S:-20} ./int_cuda_modular --include-ignored --test-threads 1 > "$R/tests_gpu.txt" 2>&1
echo "tests_gpu rc=$?" >> "$R/tests_gpu.txt"
timeout 5 ./int_modular > "$R/tests_cpu.txt" 2>&1
echo "tests_cpu rc=$?" >> "$R/tests_cpu.txt"
