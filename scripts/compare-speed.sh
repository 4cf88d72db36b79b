#!/usr/bin/env bash
# Speed of two builds side by side on one machine: `bench int|float|func|huge`
# on CUDA and on the CPU, each suite run ROUNDS times per build, the builds
# alternating so that drift in clocks or temperature hits both alike.
# Usage (on the GPU machine, from a packed tree):
#   bash scripts/compare-speed.sh OLD_BIN NEW_BIN [ROUNDS]
# JSON reports go to $OUT/speed/<suite>-<engine>-<build>-<round>.json;
# scripts/compare-speed.py turns them into the side-by-side table.
set -uo pipefail
old=$1 new=$2 rounds=${3:-3}
out=${OUT:-/tmp/mparray-out}/speed
mkdir -p "$out"
suite() { # name engine args...
  local name=$1 engine=$2; shift 2
  # ONLY="huge-cpu int-cpu" runs just those suites.
  [ -n "${ONLY:-}" ] && [[ " $ONLY " != *" $name-$engine "* ]] && return
  for r in $(seq 1 "$rounds"); do
    for b in old new; do
      local bin=$old; [ $b = new ] && bin=$new
      local f="$out/$name-$engine-$b-$r.json"
      local s0=$(date +%s)
      if [ "$name" = int ]; then
        timeout 300 "$bin" bench int --engine "$engine" "$@" --json-out "$f" > /dev/null
      else
        timeout 300 "$bin" bench "$name" --engine "$engine" "$@" --json > "$f"
      fi
      echo "$name $engine $b round $r: exit $? in $(( $(date +%s) - s0 )) s"
    done
  done
}
# The kernels both builds use (identical sources), compiled once on all
# cores before anything is timed (the complex kernels are not needed).
[ -n "${ONLY:-}" ] || for k in int_ huge_ float_arith float_misc float_wide float_func; do
  "$new" kernels compile --cache --only $k > /dev/null || echo "compiling $k failed"
done
echo "kernels compiled at $(date -u +%H:%M:%S)"
suite float cuda --precs 128,512,1024
suite func cuda --funcs exp,sin,pow --precs 128,1024 --batches 1048576 --runs 3
suite int cuda --sizes 12,19 --runs 3
suite huge cuda --sizes 24,28 --digits 7 --runs 3
suite float cpu --scale 2 --precs 128,512
suite func cpu --funcs exp,sin --precs 128,512 --batches 65536 --runs 2
suite int cpu --scale 6 --sizes 12,19 --runs 3
suite huge cpu --sizes 24 --digits 6 --runs 3
