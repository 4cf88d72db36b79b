#!/bin/bash
# MPFR itself against `mparray float FN` for the second set of functions
# (funcreal_mpfr_gen.py), every rounding mode and a list of precisions,
# exact hex output with ternary values, byte for byte. Build the MPFR side:
#   gcc -O2 -o $WORK/func_calc scripts/peers/func_mpfr_check.c /usr/lib/x86_64-linux-gnu/libmpfr.so.6 /usr/lib/x86_64-linux-gnu/libgmp.so.10
# usage: [PRECS="..."] [FNS="..."] [MAXB=bits] WORK=/tmp/fr scripts/peers/funcreal_mpfr_cmp.sh SEED N
S=$1; N=$2; D=${WORK:-/tmp/fr}; B=${MPARRAY:-target/release/mparray}
fail=0; lines=0
for fn in ${FNS:-cbrt expm1 log1p sinh cosh tanh asinh acosh atanh asin acos atan2 hypot pow agm pow_z}; do
  two=""; case $fn in atan2|hypot|pow|agm|pow_z) two=$D/b.txt;; esac
  for prec in ${PRECS:-1 2 24 53 64 113 128 200 512}; do
    python3 $(dirname $0)/funcreal_mpfr_gen.py $((S+prec)) $N $D/a.txt $fn ${MAXB:-300} $two
    inprec=$(( ${MAXB:-300} + 64 ))
    for rnd in N Z U D A; do
      $D/func_calc $fn $prec $inprec $rnd $D/a.txt $two > $D/want.txt 2>$D/err.txt || { echo "mpfr failed $fn"; cat $D/err.txt; }
      timeout 300 $B float $fn --prec $prec --in-prec $inprec --round $rnd --hex --ternary $D/a.txt $two > $D/got.txt 2>$D/err2.txt || { echo "mparray failed $fn prec=$prec rnd=$rnd"; cat $D/err2.txt; }
      lines=$((lines + $(wc -l < $D/want.txt)))
      if ! cmp -s $D/want.txt $D/got.txt; then echo "DIFF $fn prec=$prec rnd=$rnd"; diff <(paste -d' ' $D/a.txt ${two:-/dev/null} $D/want.txt) <(paste -d' ' $D/a.txt ${two:-/dev/null} $D/got.txt) | head -6; fail=1; fi
    done
  done
done
echo "done fail=$fail lines=$lines"
