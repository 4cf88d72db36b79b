/* GNU MPC itself as the reference for `mparray complex FN` (the system's
   libmpc.so.3 and libmpfr.so.6, no headers: the prototypes are declared
   here, MPFR 4 / MPC 1.x ABI). Build:
     gcc -O2 -o complex_calc scripts/peers/complex_mpc_check.c \
       /lib/x86_64-linux-gnu/libmpc.so.3 /lib/x86_64-linux-gnu/libmpfr.so.6
   Use: complex_calc FN PREC_RE PREC_IM INPREC RR FILE_A [FILE_B]
   Lines of the files are "re im" (mpfr_set_str, base 0, at INPREC to
   nearest); RR is two letters of NZUDA (real, imaginary rounding).
   Output per line: "%Ra %Ra tr ti" (ternary signs), or "%Ra t" for the
   real-valued abs, norm and arg (rounded with the first letter, at PREC_RE).
   mul_2si and div_2si use K from the environment variable K. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct { long prec; int sign; long exp; unsigned long *d; } mpfr_struct;
typedef mpfr_struct *mpfr_ptr;
typedef struct { mpfr_struct re, im; } mpc_struct;
typedef mpc_struct *mpc_ptr;
void mpfr_init2(mpfr_ptr, long);
int mpfr_set_str(mpfr_ptr, const char *, int, int);
int mpfr_sprintf(char *, const char *, ...);
void mpc_init3(mpc_ptr, long, long);
typedef int (*f1)(mpc_ptr, mpc_ptr, int);
typedef int (*f2)(mpc_ptr, mpc_ptr, mpc_ptr, int);
typedef int (*fr)(mpfr_ptr, mpc_ptr, int);
int mpc_add(mpc_ptr, mpc_ptr, mpc_ptr, int);
int mpc_sub(mpc_ptr, mpc_ptr, mpc_ptr, int);
int mpc_mul(mpc_ptr, mpc_ptr, mpc_ptr, int);
int mpc_div(mpc_ptr, mpc_ptr, mpc_ptr, int);
int mpc_pow(mpc_ptr, mpc_ptr, mpc_ptr, int);
int mpc_neg(mpc_ptr, mpc_ptr, int);
int mpc_conj(mpc_ptr, mpc_ptr, int);
int mpc_sqr(mpc_ptr, mpc_ptr, int);
int mpc_sqrt(mpc_ptr, mpc_ptr, int);
int mpc_exp(mpc_ptr, mpc_ptr, int);
int mpc_log(mpc_ptr, mpc_ptr, int);
int mpc_sin(mpc_ptr, mpc_ptr, int);
int mpc_cos(mpc_ptr, mpc_ptr, int);
int mpc_tan(mpc_ptr, mpc_ptr, int);
int mpc_sinh(mpc_ptr, mpc_ptr, int);
int mpc_cosh(mpc_ptr, mpc_ptr, int);
int mpc_tanh(mpc_ptr, mpc_ptr, int);
int mpc_asin(mpc_ptr, mpc_ptr, int);
int mpc_acos(mpc_ptr, mpc_ptr, int);
int mpc_atan(mpc_ptr, mpc_ptr, int);
int mpc_abs(mpfr_ptr, mpc_ptr, int);
int mpc_norm(mpfr_ptr, mpc_ptr, int);
int mpc_arg(mpfr_ptr, mpc_ptr, int);
int mpc_mul_2si(mpc_ptr, mpc_ptr, long, int);
int mpc_div_2si(mpc_ptr, mpc_ptr, long, int);

static int sgn(int t) { return (t > 0) - (t < 0); }
static int inex_re(int t) { t &= 3; return t == 2 ? -1 : t; }
static int inex_im(int t) { t = (t >> 2) & 3; return t == 2 ? -1 : t; }

static int read_c(FILE *f, mpc_ptr z) {
  static char buf[1 << 22];
  if (!fgets(buf, sizeof buf, f)) return 0;
  size_t l = strlen(buf);
  while (l && (buf[l - 1] == '\n' || buf[l - 1] == '\r')) buf[--l] = 0;
  char *sp = strchr(buf, ' ');
  if (!sp) { fprintf(stderr, "bad line %s\n", buf); exit(2); }
  *sp = 0;
  if (mpfr_set_str(&z->re, buf, 0, 0) || mpfr_set_str(&z->im, sp + 1, 0, 0)) {
    fprintf(stderr, "bad %s\n", buf); exit(2);
  }
  return 1;
}

int main(int argc, char **argv) {
  if (argc < 7) { fprintf(stderr, "usage\n"); return 1; }
  const char *fn = argv[1];
  long pr = atol(argv[2]), pi = atol(argv[3]), inprec = atol(argv[4]);
  int r1 = strchr("NZUDA", argv[5][0]) - "NZUDA", r2 = strchr("NZUDA", argv[5][1]) - "NZUDA";
  int rnd = r1 + (r2 << 4);
  long k = getenv("K") ? atol(getenv("K")) : 0;
  FILE *fa = fopen(argv[6], "r"), *fb = argc > 7 ? fopen(argv[7], "r") : NULL;
  mpc_struct a, b, r;
  mpfr_struct x;
  mpc_init3(&a, inprec, inprec);
  mpc_init3(&b, inprec, inprec);
  mpc_init3(&r, pr, pi);
  mpfr_init2(&x, pr);
  static char o1[1 << 22], o2[1 << 22];
  struct { const char *n; f1 f; } un[] = {
    {"neg", mpc_neg}, {"conj", mpc_conj}, {"sqr", mpc_sqr}, {"sqrt", mpc_sqrt},
    {"exp", mpc_exp}, {"log", mpc_log}, {"sin", mpc_sin}, {"cos", mpc_cos},
    {"tan", mpc_tan}, {"sinh", mpc_sinh}, {"cosh", mpc_cosh}, {"tanh", mpc_tanh},
    {"asin", mpc_asin}, {"acos", mpc_acos}, {"atan", mpc_atan}, {0, 0}};
  struct { const char *n; f2 f; } bin[] = {
    {"add", mpc_add}, {"sub", mpc_sub}, {"mul", mpc_mul}, {"div", mpc_div},
    {"pow", mpc_pow}, {0, 0}};
  struct { const char *n; fr f; } re[] = {
    {"abs", mpc_abs}, {"norm", mpc_norm}, {"arg", mpc_arg}, {0, 0}};
  while (read_c(fa, &a)) {
    int t = 0, real = 0, done = 0;
    for (int i = 0; un[i].n && !done; i++)
      if (!strcmp(fn, un[i].n)) { t = un[i].f(&r, &a, rnd); done = 1; }
    for (int i = 0; bin[i].n && !done; i++)
      if (!strcmp(fn, bin[i].n)) {
        if (!fb || !read_c(fb, &b)) { fprintf(stderr, "B file\n"); return 2; }
        t = bin[i].f(&r, &a, &b, rnd); done = 1;
      }
    for (int i = 0; re[i].n && !done; i++)
      if (!strcmp(fn, re[i].n)) { t = re[i].f(&x, &a, r1); done = 1; real = 1; }
    if (!done && !strcmp(fn, "mul_2si")) { t = mpc_mul_2si(&r, &a, k, rnd); done = 1; }
    if (!done && !strcmp(fn, "div_2si")) { t = mpc_div_2si(&r, &a, k, rnd); done = 1; }
    if (!done) { fprintf(stderr, "fn?\n"); return 1; }
    if (real) {
      mpfr_sprintf(o1, "%Ra", &x);
      printf("%s %d\n", o1, sgn(t));
    } else {
      mpfr_sprintf(o1, "%Ra", &r.re);
      mpfr_sprintf(o2, "%Ra", &r.im);
      printf("%s %s %d %d\n", o1, o2, inex_re(t), inex_im(t));
    }
  }
  return 0;
}
