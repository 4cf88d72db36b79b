#!/bin/bash
# usage: float_ns.sh BIN OP PREC -> ns per element of `bench float --engine cpu` on one
# thread: task-clock of 41 runs minus 1 run, / 40 / 65536 elements (needs perf)
B=$1; op=$2; p=$3
tc() { RAYON_NUM_THREADS=1 perf stat -x, -e task-clock $B bench float --engine cpu --scale 4 --precs $p --ops $op --runs $1 2>&1 >/dev/null | grep task-clock | cut -d, -f1; }
a=$(tc 41); b=$(tc 1)
python3 -c "print('$op $p', round(($a-$b)*1e6/40/65536,1), 'ns')"
