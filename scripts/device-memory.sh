#!/bin/bash
# On the GPU machine: (1) the CLI under a lowered device memory limit
# (MPARRAY_CUDA_MEM_LIMIT): a float function over 200k lines runs in chunks
# and prints the same lines as without the limit; with too little it exits 1
# with the sizes; (2) 1-Add ours vs GMP (scripts/peers/add_llc_cmp.sh).
#   MPARRAY=path/to/mparray GMPADD=path/to/gmpadd bash scripts/device-memory.sh
set -u
BIN=${MPARRAY:-target/release/mparray}
t=$(mktemp -d)
python3 -c "print('\n'.join('%d.%03d' % (i // 1000 - 100, i % 1000) for i in range(1, 200001)))" > "$t/x.txt"
$BIN float exp --prec 200 --ternary --engine cuda "$t/x.txt" > "$t/whole.txt"; echo "exp, no limit: exit $?"
MPARRAY_CUDA_MEM_LIMIT=32M $BIN info | grep -i "memory free"
MPARRAY_CUDA_MEM_LIMIT=32M $BIN float exp --prec 200 --ternary --engine cuda "$t/x.txt" > "$t/limited.txt"; echo "exp, MPARRAY_CUDA_MEM_LIMIT=32M: exit $?"
cmp "$t/whole.txt" "$t/limited.txt" && echo "exp under the limit prints the same $(wc -l < "$t/whole.txt") lines"
MPARRAY_CUDA_MEM_LIMIT=12M $BIN float exp --prec 200 --ternary --engine cuda "$t/x.txt" > /dev/null; echo "exp, MPARRAY_CUDA_MEM_LIMIT=12M: exit $? (1 expected, the message above)"
rm -rf "$t"
bash "$(dirname "$0")/peers/add_llc_cmp.sh"
