/* MPFR itself as the reference for `mparray float FN` (elementary
   functions): the system's libmpfr, no headers (MPFR 4's ABI). Build:
     gcc -O2 -o func_calc scripts/peers/func_mpfr_check.c /usr/lib/x86_64-linux-gnu/libmpfr.so.6
   Use: func_calc FN PREC INPREC RND FILE [FILE2]  -- inputs read with
   mpfr_set_str (base 0) at INPREC to nearest; output "%Ra t" per line (t:
   ternary sign). FN: exp log sin cos atan tan exp2 log2 log10 cbrt expm1
   log1p sinh cosh tanh asinh acosh atanh asin acos; two files: atan2 hypot
   pow agm pow_z (FILE2's lines are integers, read with mpz_set_str); or
   const_pi const_log2 (FILE's lines only count the outputs). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct { long prec; int sign; long exp; unsigned long *d; } mpfr_struct;
typedef mpfr_struct *mpfr_ptr;
typedef struct { int a, s; void *d; } mpz_struct;
void mpfr_init2(mpfr_ptr, long);
int mpfr_set_str(mpfr_ptr, const char *, int, int);
int mpfr_sprintf(char *, const char *, ...);
int mpfr_const_pi(mpfr_ptr, int);
int mpfr_const_log2(mpfr_ptr, int);
void __gmpz_init(mpz_struct *);
int __gmpz_set_str(mpz_struct *, const char *, int);
int mpfr_pow_z(mpfr_ptr, mpfr_ptr, mpz_struct *, int);
typedef int (*f1)(mpfr_ptr, mpfr_ptr, int);
typedef int (*f2)(mpfr_ptr, mpfr_ptr, mpfr_ptr, int);
#define D1(n) int mpfr_##n(mpfr_ptr, mpfr_ptr, int);
#define D2(n) int mpfr_##n(mpfr_ptr, mpfr_ptr, mpfr_ptr, int);
D1(exp) D1(log) D1(sin) D1(cos) D1(atan) D1(tan) D1(exp2) D1(log2) D1(log10)
D1(cbrt) D1(expm1) D1(log1p) D1(sinh) D1(cosh) D1(tanh) D1(asinh) D1(acosh)
D1(atanh) D1(asin) D1(acos) D2(atan2) D2(hypot) D2(pow) D2(agm)
static struct { const char *n; f1 f; } T1[] = {
#define E1(n) {#n, mpfr_##n},
  E1(exp) E1(log) E1(sin) E1(cos) E1(atan) E1(tan) E1(exp2) E1(log2) E1(log10)
  E1(cbrt) E1(expm1) E1(log1p) E1(sinh) E1(cosh) E1(tanh) E1(asinh) E1(acosh)
  E1(atanh) E1(asin) E1(acos) {0, 0}};
static struct { const char *n; f2 f; } T2[] = {
  {"atan2", mpfr_atan2}, {"hypot", mpfr_hypot}, {"pow", mpfr_pow}, {"agm", mpfr_agm}, {0, 0}};

static void chomp(char *b) {
  size_t l = strlen(b);
  while (l && (b[l - 1] == '\n' || b[l - 1] == '\r')) b[--l] = 0;
}

int main(int argc, char **argv) {
  if (argc < 6) { fprintf(stderr, "usage\n"); return 1; }
  const char *fn = argv[1];
  long prec = atol(argv[2]), inprec = atol(argv[3]);
  int rnd = strchr("NZUDA", argv[4][0]) - "NZUDA";
  FILE *f = fopen(argv[5], "r"), *g = argc > 6 ? fopen(argv[6], "r") : 0;
  f1 u = 0; f2 b = 0;
  for (int i = 0; T1[i].n; i++) if (!strcmp(fn, T1[i].n)) u = T1[i].f;
  for (int i = 0; T2[i].n; i++) if (!strcmp(fn, T2[i].n)) b = T2[i].f;
  int powz = !strcmp(fn, "pow_z");
  mpfr_struct x, y, r;
  mpz_struct z;
  __gmpz_init(&z);
  mpfr_init2(&x, inprec);
  mpfr_init2(&y, inprec);
  mpfr_init2(&r, prec);
  static char buf[1 << 20], buf2[1 << 20], out[1 << 20];
  while (fgets(buf, sizeof buf, f)) {
    chomp(buf);
    if (mpfr_set_str(&x, buf, 0, 0) != 0) { fprintf(stderr, "bad %s\n", buf); return 2; }
    if (g) {
      if (!fgets(buf2, sizeof buf2, g)) { fprintf(stderr, "short file 2\n"); return 2; }
      chomp(buf2);
      if (powz) {
        if (__gmpz_set_str(&z, buf2, 10) != 0) { fprintf(stderr, "bad int %s\n", buf2); return 2; }
      } else if (mpfr_set_str(&y, buf2, 0, 0) != 0) { fprintf(stderr, "bad %s\n", buf2); return 2; }
    }
    int t;
    if (u) t = u(&r, &x, rnd);
    else if (b && g) t = b(&r, &x, &y, rnd);
    else if (powz && g) t = mpfr_pow_z(&r, &x, &z, rnd);
    else if (!strcmp(fn, "const_pi")) t = mpfr_const_pi(&r, rnd);
    else if (!strcmp(fn, "const_log2")) t = mpfr_const_log2(&r, rnd);
    else { fprintf(stderr, "fn?\n"); return 1; }
    mpfr_sprintf(out, "%Ra", &r);
    printf("%s %d\n", out, (t > 0) - (t < 0));
  }
  return 0;
}
