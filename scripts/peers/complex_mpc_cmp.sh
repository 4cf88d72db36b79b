#!/bin/bash
# GNU MPC itself against `mparray complex FN`: random operand files
# (complex_mpc_gen.py), every pair of rounding modes, a list of precisions
# (the imaginary part at another precision in half the runs), exact hex
# output with ternary values, byte for byte. Build the MPC side first:
#   gcc -O2 -o $WORK/complex_calc scripts/peers/complex_mpc_check.c \
#     /lib/x86_64-linux-gnu/libmpc.so.3 /lib/x86_64-linux-gnu/libmpfr.so.6
# usage: [PRECS="..."] [FNS="..."] [BITS=b] [RNDS="NN ..."] WORK=/tmp/cm scripts/peers/complex_mpc_cmp.sh SEED N
S=$1; N=$2; D=${WORK:-/tmp/cm}; B=${MPARRAY:-target/release/mparray}
ALLR=""; for r in N Z U D A; do for i in N Z U D A; do ALLR="$ALLR $r$i"; done; done
fail=0; lines=0
for fn in ${FNS:-add sub mul div sqr neg conj mul_2si div_2si abs norm arg sqrt exp log sin cos tan sinh cosh tanh}; do
  cli=$fn; [ $fn = mul_2si ] && cli=mul2; [ $fn = div_2si ] && cli=div2
  for prec in ${PRECS:-1 2 53 64 65 128 500}; do
    bits=${BITS:-$((prec + 10))}; [ $bits -gt 300 ] && bits=300
    inprec=$((bits + 8))
    python3 $(dirname $0)/complex_mpc_gen.py $((S + prec)) $N $D/a.txt $bits $fn
    python3 $(dirname $0)/complex_mpc_gen.py $((S + prec + 7777)) $N $D/b.txt $bits $fn
    pim=$prec; [ $(( (S + prec) % 2 )) = 1 ] && pim=$((prec * 2 + 3))
    case $fn in abs|norm|arg) pim=$prec;; esac
    for rnd in ${RNDS:-$ALLR}; do
      case $fn in abs|norm|arg) [ ${rnd:1:1} = N ] || continue;; esac
      K=${K:-5} $D/complex_calc $fn $prec $pim $inprec $rnd $D/a.txt $D/b.txt > $D/want.txt 2>$D/err.txt || { echo "mpc failed $fn"; cat $D/err.txt; }
      args=""; case $fn in add|sub|mul|div|pow) args=$D/b.txt;; esac
      $B complex $cli --prec $prec --prec-im $pim --in-prec $inprec --round $rnd --k ${K:-5} --hex --ternary $D/a.txt $args > $D/got.txt 2>$D/err2.txt || { echo "mparray failed $fn prec=$prec rnd=$rnd"; head -3 $D/err2.txt; }
      lines=$((lines + $(wc -l < $D/want.txt)))
      if ! cmp -s $D/want.txt $D/got.txt; then
        echo "DIFF $fn prec=$prec pim=$pim rnd=$rnd"
        paste -d'|' $D/a.txt $D/b.txt $D/want.txt $D/got.txt | awk -F'|' '$3 != $4' | head -${SHOW:-4}
        fail=1
      fi
    done
  done
done
echo "done fail=$fail lines=$lines"
