#!/bin/bash
# 1-Add on the CPU engine beside GMP's mpn_add_n on the same threads, at
# NumBits * NumInsts = 2^26, 2^28 and 2^30 bits per operand: ours with the
# store kind chosen from the last-level cache (auto), forced plain
# (MPARRAY_CPU_STREAM=0) and forced non-temporal (=1), then GMP
# (scripts/peers/gmpadd.c). Min and median of RUNS runs, milliseconds.
#   MPARRAY=path/to/mparray GMPADD=path/to/gmpadd scripts/peers/add_llc_cmp.sh
# Optional: TOTALS="26 28 30" SIZES=12,15,19 RUNS=15.
set -u
BIN=${MPARRAY:-target/release/mparray}
GMP=${GMPADD:-/tmp/gmpadd}
TOTALS=${TOTALS:-"26 28 30"}
SIZES=${SIZES:-12,15,19}
RUNS=${RUNS:-15}
echo "cpus: $(getconf _NPROCESSORS_ONLN); last-level cache (sysfs):"
for d in /sys/devices/system/cpu/cpu0/cache/index*; do
  echo "  L$(cat $d/level) $(cat $d/type) $(cat $d/size) shared by cpus $(cat $d/shared_cpu_list)"
done
$BIN info 2>/dev/null | grep -i "cache" || true
for t in $TOTALS; do
  scale=$((32 - t))
  echo "== NumBits*NumInsts = 2^$t bits per operand ($((3 << (t - 23))) MiB for a, b, r)"
  for mode in auto 0 1; do
    if [ $mode = auto ]; then envs=""; label="ours auto"; else envs="MPARRAY_CPU_STREAM=$mode"; label="ours nt=$mode"; fi
    env $envs $BIN bench int --engine cpu --scale $scale --sizes $SIZES --cases add --runs $RUNS --json |
      python3 -c '
import json, sys
label = sys.argv[1]
for r in json.load(sys.stdin)["results"]:
    nb = r["num_bits"].bit_length() - 1
    ok = "" if r["check_ok"] else " WRONG"
    print("%-11s NumBits 2^%d: min %.3f med %.3f ms (%.0f GB/s at the median)%s" % (label, nb, r["min_ms"], r["median_ms"], r["gb_per_s"], ok))
' "$label"
  done
  $GMP $t $SIZES $RUNS
done
