#!/usr/bin/env bash
# On the GPU machine, carrying .gpuz (gpu-pack's .gpu as .gpuz/gpu.tar.xz or
# .gpuz/gpu.tar.gz): every packed test binary with its GPU tests
# (--include-ignored), each under a cap, all under a deadline, so that one
# call always reports. Environment: DL (deadline, s; default 560), CAP
# (per binary, s; default 150), ORDER (a file of binary names to run first,
# e.g. the ones a change touches), WARM=1 (fill the kernel cache before the
# tests instead of beside them: on an empty cache, binaries that each need
# many first-use modules (complex_edges, expr_cuda, blas_cuda) ran past
# 150 s with the whole cache compiling beside them, 2026-12-03), COMPILE=0
# (no cache fill: each test compiles what it uses, at first use). A
# .gpuz/kernels.tar.xz made by scripts/cache-pack.sh (the warm set compiled
# here by the device's NVRTC version) is unpacked into the cache first.
set -uo pipefail
out=${OUT:-/tmp/mparray-out}; mkdir -p "$out"
DL=${DL:-560}; CAP=${CAP:-150}
s0=$(date +%s)
left() { echo $(( DL - ($(date +%s) - s0) )); }
if [ ! -d .gpu ]; then
  if [ -f .gpuz/gpu.tar.xz ]; then tar xJf .gpuz/gpu.tar.xz; else tar xzf .gpuz/gpu.tar.gz; fi
fi
# A kernel cache filled off the device (scripts/cache-pack.sh), if carried.
if [ -f .gpuz/kernels.tar.xz ]; then
  c=${MPARRAY_CACHE_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/mparray/kernels}
  mkdir -p "$c" /tmp/carried && tar xJf .gpuz/kernels.tar.xz -C /tmp/carried \
    && cp -n /tmp/carried/cache/* "$c"/ && echo "kernel cache: $(ls /tmp/carried/cache | wc -l) CUBINs carried"
fi
bin=.gpu/bin/mparray
# Tests built by cargo run the CLI from env!("CARGO_BIN_EXE_mparray").
for p in /work/main/target/release; do
  [ -e $p/mparray ] || { mkdir -p $p 2>/dev/null && cp $bin $p/; }
done
$bin info | head -5
nvidia-smi --query-gpu=name,driver_version,clocks.sm,temperature.gpu --format=csv,noheader
if [ "${COMPILE:-1}" = 0 ]; then
  echo "no kernel cache fill" > "$out/compile.log"
elif [ "${WARM:-0}" = 1 ]; then
  timeout $(( $(left) / 2 )) $bin kernels compile --cache > "$out/compile.log" 2>&1
  echo "kernels compile --cache: exit $? at $(( $(date +%s) - s0 )) s"
else
  $bin kernels compile --cache > "$out/compile.log" 2>&1 &
fi
log="$out/tests.log"; : > "$log"
list=()
[ -n "${ORDER:-}" ] && while read -r t; do list+=(".gpu/tests/$t"); done < "$ORDER"
for t in .gpu/tests/*; do [[ " ${list[*]} " == *" $t "* ]] || list+=("$t"); done
for f in "${list[@]}"; do
  t=$(basename "$f")
  [ -x "$f" ] || { echo "missing $t"; continue; }
  l=$(left); [ "$l" -lt 15 ] && { echo "NOT RUN (deadline): $t"; continue; }
  [ "$l" -gt "$CAP" ] && l=$CAP
  one=$(mktemp)
  timeout -k 3 "$l" "$f" --include-ignored > "$one" 2>&1; rc=$?
  echo "=== $t rc=$rc" >> "$log"; cat "$one" >> "$log"
  echo "$t rc=$rc at $(( $(date +%s) - s0 )) s: $(grep '^test result' "$one" | tail -1)"
  [ $rc -ne 0 ] && grep -E "panicked|FAILED|running for over" "$one" | head -12
  rm -f "$one"
done
awk '/^test result:/ { for (i = 1; i <= NF; i++) { if ($(i) ~ /^passed;?$/) p += $(i-1); if ($(i) ~ /^failed;?$/) f += $(i-1) } }
     END { printf "all test binaries: %d passed, %d failed\n", p, f }' "$log"
echo "end at $(( $(date +%s) - s0 )) s; $(tail -1 "$out/compile.log")"
