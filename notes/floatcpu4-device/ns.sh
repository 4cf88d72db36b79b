#!/bin/bash
# usage: ns.sh BIN op prec  -> ns per element, task-clock (41 runs - 1 run) / 40 / 65536
B=$1; op=$2; p=$3
tc() { RAYON_NUM_THREADS=1 perf stat -x, -e task-clock $B bench float --engine cpu --scale 4 --precs $p --ops $op --runs $1 2>&1 >/dev/null | grep task-clock | cut -d, -f1; }
a=$(tc 41); b=$(tc 1)
python3 -c "print('$op $p', round(($a-$b)*1e6/40/65536,1), 'ns')"
