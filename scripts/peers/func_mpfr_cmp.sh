#!/bin/bash
# MPFR itself against `mparray float FN`: random argument files per function
# (func_mpfr_gen.py), every rounding mode and a list of precisions, exact hex
# output with ternary values, byte for byte. Build the MPFR side first:
#   gcc -O2 -o $WORK/func_calc scripts/peers/func_mpfr_check.c /usr/lib/x86_64-linux-gnu/libmpfr.so.6
# usage: [PRECS="..."] [FNS="..."] [MAXB=bits] WORK=/tmp/fm scripts/peers/func_mpfr_cmp.sh SEED N
S=$1; N=$2; D=${WORK:-/tmp/fm}; B=${MPARRAY:-target/release/mparray}
fail=0; lines=0
for fn in ${FNS:-exp log sin cos atan tan exp2 log2 log10}; do
  for prec in ${PRECS:-1 2 24 53 64 113 128 200 512}; do
    python3 $(dirname $0)/func_mpfr_gen.py $((S+prec)) $N $D/a.txt $fn ${MAXB:-300}
    inprec=$(( ${MAXB:-300} + 64 ))
    for rnd in N Z U D A; do
      $D/func_calc $fn $prec $inprec $rnd $D/a.txt > $D/want.txt 2>$D/err.txt || { echo "mpfr failed $fn"; cat $D/err.txt; }
      $B float $fn --prec $prec --in-prec $inprec --round $rnd --hex --ternary $D/a.txt > $D/got.txt 2>$D/err2.txt || { echo "mparray failed $fn"; cat $D/err2.txt; }
      lines=$((lines + $(wc -l < $D/want.txt)))
      if ! cmp -s $D/want.txt $D/got.txt; then echo "DIFF $fn prec=$prec rnd=$rnd"; diff $D/want.txt $D/got.txt | head -6; fail=1; fi
    done
  done
done
echo "done fail=$fail lines=$lines"
