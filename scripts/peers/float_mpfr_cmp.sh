#!/bin/bash
# MPFR itself against `mparray float`: random input files (gen), every op,
# rounding mode and a list of precisions, hex output with ternary values,
# and decimal output with digits. Build the MPFR side first:
#   gcc -O2 -o $WORK/mpfr_calc scripts/peers/float_mpfr_check.c /usr/lib/x86_64-linux-gnu/libmpfr.so.6
# usage: [PRECS="..."] [MAXB=bits] WORK=/tmp/mp scripts/peers/float_mpfr_cmp.sh SEED N
S=$1; N=$2; D=${WORK:-/tmp/mp}; B=${MPARRAY:-target/release/mparray}
fail=0
for prec in ${PRECS:-1 2 24 53 64 65 113 200 500}; do
  python3 $(dirname $0)/float_mpfr_gen.py $((S+prec)) $N $D/a.txt ${MAXB:-300}; python3 $(dirname $0)/float_mpfr_gen.py $((S+prec+1000)) $N $D/b.txt ${MAXB:-300}; python3 $(dirname $0)/float_mpfr_gen.py $((S+prec+2000)) $N $D/c.txt ${MAXB:-300}
  for rnd in N Z U D A; do
    for op in add sub mul div sqrt fma fms neg abs min max mul2 div2 cmp; do
      case $op in sqrt|neg|abs|mul2|div2) files="$D/a.txt";; fma|fms) files="$D/a.txt $D/b.txt $D/c.txt";; *) files="$D/a.txt $D/b.txt";; esac
      extra=""; [ $op = mul2 ] && extra="--k 5"; [ $op = div2 ] && extra="--k 5"
      if [ $op = cmp ]; then fmt=""; else fmt="--hex --ternary"; fi
      $D/mpfr_calc $op $prec $rnd 0 $files > $D/want.txt 2>$D/err.txt || { echo "mpfr failed $op"; cat $D/err.txt; }
      $B float $op --prec $prec --round $rnd $fmt $extra $files > $D/got.txt 2>$D/err2.txt || { echo "mparray failed $op"; cat $D/err2.txt; }
      if ! cmp -s $D/want.txt $D/got.txt; then echo "DIFF $op prec=$prec rnd=$rnd"; diff $D/want.txt $D/got.txt | head -6; paste -d' ' $files | sed -n "$(diff $D/want.txt $D/got.txt | head -1 | sed 's/[acd].*//;s/,.*//')p"; fail=1; fi
    done
  done
  # decimal output with digits
  for dg in 1 2 17 30 -1; do
    $D/mpfr_calc mul $prec N $dg $D/a.txt $D/b.txt > $D/want.txt
    $B float mul --prec $prec --digits $((dg < 0 ? 0 : dg)) --ternary $D/a.txt $D/b.txt > $D/got.txt
    if ! cmp -s $D/want.txt $D/got.txt; then echo "DIFF dec digits=$dg prec=$prec"; diff $D/want.txt $D/got.txt | head -6; fail=1; fi
  done
done
echo "done fail=$fail"
