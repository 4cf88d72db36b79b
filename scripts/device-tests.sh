#!/usr/bin/env bash
# On the GPU machine, carrying .gpuz (gpu-pack's .gpu as .gpuz/gpu.tar.gz):
# every packed test binary with its GPU tests, the kernel cache warmed in
# the background first (the integer and huge suites run meanwhile), and the
# CLI's `--engine auto` shown to run on the GPU (it fills an empty cache).
set -uo pipefail
out=${OUT:-/tmp/mparray-out}; mkdir -p "$out"
[ -d .gpu ] || tar xzf .gpuz/gpu.tar.gz
bin=.gpu/bin/mparray
$bin info
nvidia-smi --query-gpu=name,driver_version,clocks.sm,temperature.gpu --format=csv,noheader
s0=$(date +%s)
$bin kernels compile --cache > "$out/compile.log" 2>&1 &
cpid=$!
log="$out/tests.log"; : > "$log"
run() {
  for t in "$@"; do
    echo "=== $(basename "$t")" >> "$log"
    one=$(mktemp)
    "$t" --include-ignored > "$one" 2>&1 || { echo "FAILED: $(basename "$t")"; tail -30 "$one"; }
    cat "$one" >> "$log"; rm -f "$one"
    echo "$(basename "$t") done at $(( $(date +%s) - s0 )) s: $(grep '^test result' "$log" | tail -1)"
  done
}
run .gpu/tests/int_cuda* .gpu/tests/huge_cuda* .gpu/tests/matrix*
wait $cpid; echo "kernels compile --cache: exit $? at $(( $(date +%s) - s0 )) s; $(tail -1 "$out/compile.log")"
run .gpu/tests/float_* .gpu/tests/complex_* .gpu/tests/engines*
# Every other test binary (BLAS, solvers, CLI, ...), each once.
rest=()
for t in .gpu/tests/*; do
  grep -q "^=== $(basename "$t")\$" "$log" || rest+=("$t")
done
run "${rest[@]}"
awk '/^test result:/ { for (i = 1; i <= NF; i++) { if ($(i) ~ /^passed;?$/) p += $(i-1); if ($(i) ~ /^failed;?$/) f += $(i-1) } }
     END { printf "all test binaries: %d passed, %d failed\n", p, f }' "$log"
# --engine auto on the GPU: a fresh cache fills only if kernels ran.
t=$(mktemp -d); printf '0.5\n-2\n1e10\n' > "$t/a.txt"
for e in auto cpu; do
  s1=$(date +%s)
  MPARRAY_CACHE_DIR="$t/cache-$e" $bin float exp --prec 200 --ternary "$t/a.txt" --engine $e > "$t/out-$e.txt"
  echo "float exp --engine $e (empty cache): exit $? in $(( $(date +%s) - s1 )) s, cache entries: $(find "$t/cache-$e" -type f 2>/dev/null | wc -l)"
done
$bin float exp --prec 200 --ternary "$t/a.txt" --engine cuda > "$t/out-cuda.txt"; echo "float exp --engine cuda: exit $?"
cmp "$t/out-auto.txt" "$t/out-cpu.txt" && cmp "$t/out-cuda.txt" "$t/out-cpu.txt" && echo "float exp: auto, cuda and cpu print the same lines"
cat "$t/out-auto.txt"
