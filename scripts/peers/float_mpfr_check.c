/* MPFR itself as the reference for `mparray float`: the same command line,
   computed with the system's libmpfr (no headers needed; the prototypes
   below are MPFR 4's ABI). Build:
     gcc -O2 -o mpfr_calc scripts/peers/float_mpfr_check.c /usr/lib/x86_64-linux-gnu/libmpfr.so.6
   Use: mpfr_calc OP PREC RND DIGITS A [B [C]]   (DIGITS 0: %Ra hex output,
   -1: %Re, which mparray's default decimal output matches)
   Inputs are read with mpfr_set_str(base 0) at PREC, to nearest; output
   is "%Ra t" or "%.{D-1}Re t" per line, t the ternary value (cmp prints
   -1, 0, 1 or nan). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct { long prec; int sign; long exp; unsigned long *d; } mpfr_struct;
typedef mpfr_struct *mpfr_ptr;
void mpfr_init2(mpfr_ptr, long);
int mpfr_set_str(mpfr_ptr, const char *, int, int);
int mpfr_set(mpfr_ptr, mpfr_ptr, int);
int mpfr_add(mpfr_ptr, mpfr_ptr, mpfr_ptr, int);
int mpfr_sub(mpfr_ptr, mpfr_ptr, mpfr_ptr, int);
int mpfr_mul(mpfr_ptr, mpfr_ptr, mpfr_ptr, int);
int mpfr_div(mpfr_ptr, mpfr_ptr, mpfr_ptr, int);
int mpfr_sqrt(mpfr_ptr, mpfr_ptr, int);
int mpfr_fma(mpfr_ptr, mpfr_ptr, mpfr_ptr, mpfr_ptr, int);
int mpfr_fms(mpfr_ptr, mpfr_ptr, mpfr_ptr, mpfr_ptr, int);
int mpfr_neg(mpfr_ptr, mpfr_ptr, int);
int mpfr_abs(mpfr_ptr, mpfr_ptr, int);
int mpfr_min(mpfr_ptr, mpfr_ptr, mpfr_ptr, int);
int mpfr_max(mpfr_ptr, mpfr_ptr, mpfr_ptr, int);
int mpfr_mul_2si(mpfr_ptr, mpfr_ptr, long, int);
int mpfr_cmp(mpfr_ptr, mpfr_ptr);
int mpfr_unordered_p(mpfr_ptr, mpfr_ptr);
int mpfr_sprintf(char *, const char *, ...);

static char *readline_(FILE *f, char *buf, size_t n) {
  if (!fgets(buf, (int)n, f)) return NULL;
  size_t l = strlen(buf);
  while (l && (buf[l - 1] == '\n' || buf[l - 1] == '\r')) buf[--l] = 0;
  return buf;
}

int main(int argc, char **argv) {
  if (argc < 6) { fprintf(stderr, "usage\n"); return 1; }
  const char *op = argv[1];
  long prec = atol(argv[2]);
  int rnd = strchr("NZUDA", argv[3][0]) - "NZUDA";
  int digits = atoi(argv[4]);
  int nf = argc - 5;
  FILE *f[3];
  for (int i = 0; i < nf; i++) f[i] = fopen(argv[5 + i], "r");
  mpfr_struct x[3], r;
  for (int i = 0; i < 3; i++) mpfr_init2(&x[i], prec);
  mpfr_init2(&r, prec);
  static char buf[1 << 20], out[1 << 20];
  for (;;) {
    for (int i = 0; i < nf; i++) {
      if (!readline_(f[i], buf, sizeof buf)) return 0;
      if (mpfr_set_str(&x[i], buf, 0, 0) != 0) { fprintf(stderr, "bad %s\n", buf); return 2; }
    }
    int t = 0;
    if (!strcmp(op, "cmp")) {
      if (mpfr_unordered_p(&x[0], &x[1])) puts("nan");
      else { int c = mpfr_cmp(&x[0], &x[1]); printf("%d\n", (c > 0) - (c < 0)); }
      continue;
    }
    if (!strcmp(op, "add")) t = mpfr_add(&r, &x[0], &x[1], rnd);
    else if (!strcmp(op, "sub")) t = mpfr_sub(&r, &x[0], &x[1], rnd);
    else if (!strcmp(op, "mul")) t = mpfr_mul(&r, &x[0], &x[1], rnd);
    else if (!strcmp(op, "div")) t = mpfr_div(&r, &x[0], &x[1], rnd);
    else if (!strcmp(op, "sqrt")) t = mpfr_sqrt(&r, &x[0], rnd);
    else if (!strcmp(op, "fma")) t = mpfr_fma(&r, &x[0], &x[1], &x[2], rnd);
    else if (!strcmp(op, "fms")) t = mpfr_fms(&r, &x[0], &x[1], &x[2], rnd);
    else if (!strcmp(op, "neg")) t = mpfr_neg(&r, &x[0], rnd);
    else if (!strcmp(op, "abs")) t = mpfr_abs(&r, &x[0], rnd);
    else if (!strcmp(op, "min")) t = mpfr_min(&r, &x[0], &x[1], rnd);
    else if (!strcmp(op, "max")) t = mpfr_max(&r, &x[0], &x[1], rnd);
    else if (!strcmp(op, "mul2")) t = mpfr_mul_2si(&r, &x[0], 5, rnd);
    else if (!strcmp(op, "div2")) t = mpfr_mul_2si(&r, &x[0], -5, rnd);
    else { fprintf(stderr, "op?\n"); return 1; }
    if (digits == 0) mpfr_sprintf(out, "%Ra", &r);
    else if (digits < 0) mpfr_sprintf(out, "%Re", &r);
    else mpfr_sprintf(out, "%.*Re", digits - 1, &r);
    printf("%s %d\n", out, (t > 0) - (t < 0));
  }
}
