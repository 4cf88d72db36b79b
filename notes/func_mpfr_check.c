/* MPFR itself as the reference for `mparray float FN` (elementary
   functions): the system's libmpfr, no headers (MPFR 4's ABI). Build:
     gcc -O2 -o func_calc notes/func_mpfr_check.c /usr/lib/x86_64-linux-gnu/libmpfr.so.6
   Use: func_calc FN PREC INPREC RND FILE  -- inputs read with mpfr_set_str
   (base 0) at INPREC to nearest; output "%Ra t" per line (t: ternary sign).
   FN: exp log sin cos atan tan exp2 log2 log10, or const_pi const_log2 const_euler (FILE's
   lines only count the outputs). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct { long prec; int sign; long exp; unsigned long *d; } mpfr_struct;
typedef mpfr_struct *mpfr_ptr;
void mpfr_init2(mpfr_ptr, long);
int mpfr_set_str(mpfr_ptr, const char *, int, int);
int mpfr_exp(mpfr_ptr, mpfr_ptr, int);
int mpfr_log(mpfr_ptr, mpfr_ptr, int);
int mpfr_sin(mpfr_ptr, mpfr_ptr, int);
int mpfr_cos(mpfr_ptr, mpfr_ptr, int);
int mpfr_atan(mpfr_ptr, mpfr_ptr, int);
int mpfr_tan(mpfr_ptr, mpfr_ptr, int);
int mpfr_exp2(mpfr_ptr, mpfr_ptr, int);
int mpfr_log2(mpfr_ptr, mpfr_ptr, int);
int mpfr_log10(mpfr_ptr, mpfr_ptr, int);
int mpfr_const_pi(mpfr_ptr, int);
int mpfr_const_log2(mpfr_ptr, int);
int mpfr_sprintf(char *, const char *, ...);

int main(int argc, char **argv) {
  if (argc < 6) { fprintf(stderr, "usage\n"); return 1; }
  const char *fn = argv[1];
  long prec = atol(argv[2]), inprec = atol(argv[3]);
  int rnd = strchr("NZUDA", argv[4][0]) - "NZUDA";
  FILE *f = fopen(argv[5], "r");
  mpfr_struct x, r;
  mpfr_init2(&x, inprec);
  mpfr_init2(&r, prec);
  static char buf[1 << 20], out[1 << 20];
  while (fgets(buf, sizeof buf, f)) {
    size_t l = strlen(buf);
    while (l && (buf[l - 1] == '\n' || buf[l - 1] == '\r')) buf[--l] = 0;
    if (mpfr_set_str(&x, buf, 0, 0) != 0) { fprintf(stderr, "bad %s\n", buf); return 2; }
    int t;
    if (!strcmp(fn, "exp")) t = mpfr_exp(&r, &x, rnd);
    else if (!strcmp(fn, "log")) t = mpfr_log(&r, &x, rnd);
    else if (!strcmp(fn, "sin")) t = mpfr_sin(&r, &x, rnd);
    else if (!strcmp(fn, "cos")) t = mpfr_cos(&r, &x, rnd);
    else if (!strcmp(fn, "atan")) t = mpfr_atan(&r, &x, rnd);
    else if (!strcmp(fn, "tan")) t = mpfr_tan(&r, &x, rnd);
    else if (!strcmp(fn, "exp2")) t = mpfr_exp2(&r, &x, rnd);
    else if (!strcmp(fn, "log2")) t = mpfr_log2(&r, &x, rnd);
    else if (!strcmp(fn, "log10")) t = mpfr_log10(&r, &x, rnd);
    else if (!strcmp(fn, "const_pi")) t = mpfr_const_pi(&r, rnd);
    else if (!strcmp(fn, "const_log2")) t = mpfr_const_log2(&r, rnd);
    else { fprintf(stderr, "fn?\n"); return 1; }
    mpfr_sprintf(out, "%Ra", &r);
    printf("%s %d\n", out, (t > 0) - (t < 0));
  }
  return 0;
}
