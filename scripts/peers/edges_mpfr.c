/* GNU MPFR 4.2 and GNU MPC themselves as the reference for the range and
   precision edges (tests/edges_mpfr.txt, made by scripts/edges_gen.py):
   the system's libmpfr.so.6 and libmpc.so.3, no headers (MPFR 4 / MPC 1
   ABI, prototypes below). Build:
     gcc -O2 -o edges_mpfr scripts/peers/edges_mpfr.c \
       /lib/x86_64-linux-gnu/libmpc.so.3 /lib/x86_64-linux-gnu/libmpfr.so.6 \
       /lib/x86_64-linux-gnu/libgmp.so.10
   Reads lines "r FN P Q RND A [B [C]]" (real: FN of the arguments read
   with mpfr_set_str at Q bits to nearest, rounded to P bits in RND, one of
   NZUDA) or "c FN P Q RR A_RE A_IM [B_RE B_IM]" (complex, RR two letters;
   abs, norm and arg round with the first), and echoes each line with
   " | RESULT | TERNARY" appended: "%Ra t" (real) or "%Ra %Ra | tr ti".
   mul2/div2 take K as their second argument, pow_z an integer. MPFR's
   default exponent range, as mparray's. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct { long prec; int sign; long exp; unsigned long *d; } mpfr_struct;
typedef mpfr_struct *mpfr_ptr;
typedef struct { mpfr_struct re, im; } mpc_struct;
typedef mpc_struct *mpc_ptr;
typedef struct { int a, s; void *d; } mpz_struct;
void mpfr_init2(mpfr_ptr, long);
void mpfr_set_prec(mpfr_ptr, long);
int mpfr_set_str(mpfr_ptr, const char *, int, int);
int mpfr_sprintf(char *, const char *, ...);
void mpc_init3(mpc_ptr, long, long);
void mpc_set_prec(mpc_ptr, long);
void __gmpz_init(mpz_struct *);
int __gmpz_set_str(mpz_struct *, const char *, int);
typedef int (*f1)(mpfr_ptr, mpfr_ptr, int);
typedef int (*f2)(mpfr_ptr, mpfr_ptr, mpfr_ptr, int);
typedef int (*f3)(mpfr_ptr, mpfr_ptr, mpfr_ptr, mpfr_ptr, int);
#define D1(n) int mpfr_##n(mpfr_ptr, mpfr_ptr, int);
#define D2(n) int mpfr_##n(mpfr_ptr, mpfr_ptr, mpfr_ptr, int);
D1(exp) D1(log) D1(sin) D1(cos) D1(atan) D1(tan) D1(exp2) D1(log2) D1(log10)
D1(cbrt) D1(expm1) D1(log1p) D1(sinh) D1(cosh) D1(tanh) D1(asinh) D1(acosh)
D1(atanh) D1(asin) D1(acos) D1(sqrt) D1(neg) D1(abs) D1(set)
D2(atan2) D2(hypot) D2(pow) D2(agm) D2(add) D2(sub) D2(mul) D2(div) D2(min) D2(max)
int mpfr_fma(mpfr_ptr, mpfr_ptr, mpfr_ptr, mpfr_ptr, int);
int mpfr_fms(mpfr_ptr, mpfr_ptr, mpfr_ptr, mpfr_ptr, int);
int mpfr_mul_2si(mpfr_ptr, mpfr_ptr, long, int);
int mpfr_div_2si(mpfr_ptr, mpfr_ptr, long, int);
int mpfr_pow_z(mpfr_ptr, mpfr_ptr, mpz_struct *, int);
static struct { const char *n; f1 f; } T1[] = {
#define E1(n) {#n, mpfr_##n},
  E1(exp) E1(log) E1(sin) E1(cos) E1(atan) E1(tan) E1(exp2) E1(log2) E1(log10)
  E1(cbrt) E1(expm1) E1(log1p) E1(sinh) E1(cosh) E1(tanh) E1(asinh) E1(acosh)
  E1(atanh) E1(asin) E1(acos) E1(sqrt) E1(neg) E1(abs) E1(set) {0, 0}};
static struct { const char *n; f2 f; } T2[] = {
#define E2(n) {#n, mpfr_##n},
  E2(atan2) E2(hypot) E2(pow) E2(agm) E2(add) E2(sub) E2(mul) E2(div) E2(min)
  E2(max) {0, 0}};

typedef int (*c1)(mpc_ptr, mpc_ptr, int);
typedef int (*c2)(mpc_ptr, mpc_ptr, mpc_ptr, int);
typedef int (*cr)(mpfr_ptr, mpc_ptr, int);
#define C1(n) int mpc_##n(mpc_ptr, mpc_ptr, int);
#define C2(n) int mpc_##n(mpc_ptr, mpc_ptr, mpc_ptr, int);
C1(neg) C1(conj) C1(sqr) C1(sqrt) C1(exp) C1(log) C1(sin) C1(cos) C1(tan)
C1(sinh) C1(cosh) C1(tanh) C1(asin) C1(acos) C1(atan)
C2(add) C2(sub) C2(mul) C2(div) C2(pow)
int mpc_abs(mpfr_ptr, mpc_ptr, int);
int mpc_norm(mpfr_ptr, mpc_ptr, int);
int mpc_arg(mpfr_ptr, mpc_ptr, int);
int mpc_mul_2si(mpc_ptr, mpc_ptr, long, int);
int mpc_div_2si(mpc_ptr, mpc_ptr, long, int);
static struct { const char *n; c1 f; } U1[] = {
#define F1(n) {#n, mpc_##n},
  F1(neg) F1(conj) F1(sqr) F1(sqrt) F1(exp) F1(log) F1(sin) F1(cos) F1(tan)
  F1(sinh) F1(cosh) F1(tanh) F1(asin) F1(acos) F1(atan) {0, 0}};
static struct { const char *n; c2 f; } U2[] = {
  {"add", mpc_add}, {"sub", mpc_sub}, {"mul", mpc_mul}, {"div", mpc_div},
  {"pow", mpc_pow}, {0, 0}};
static struct { const char *n; cr f; } UR[] = {
  {"abs", mpc_abs}, {"norm", mpc_norm}, {"arg", mpc_arg}, {0, 0}};

static int sgn(int t) { return (t > 0) - (t < 0); }
static int inex_re(int t) { t &= 3; return t == 2 ? -1 : t; }
static int inex_im(int t) { t = (t >> 2) & 3; return t == 2 ? -1 : t; }
static int rnd_of(char c) { return (int)(strchr("NZUDA", c) - "NZUDA"); }

static void set(mpfr_ptr x, const char *s) {
  if (mpfr_set_str(x, s, 0, 0)) { fprintf(stderr, "bad number %s\n", s); exit(2); }
}

int main(void) {
  static char line[1 << 16], copy[1 << 16], o1[1 << 16], o2[1 << 16];
  mpfr_struct a[3], r;
  mpc_struct ca, cb, cres;
  mpz_struct z;
  for (int i = 0; i < 3; i++) mpfr_init2(&a[i], 2);
  mpfr_init2(&r, 2);
  mpc_init3(&ca, 2, 2);
  mpc_init3(&cb, 2, 2);
  mpc_init3(&cres, 2, 2);
  __gmpz_init(&z);
  while (fgets(line, sizeof line, stdin)) {
    size_t l = strlen(line);
    while (l && (line[l - 1] == '\n' || line[l - 1] == '\r')) line[--l] = 0;
    if (!l || line[0] == '#') continue;
    strcpy(copy, line);
    char *w[12];
    int n = 0;
    for (char *t = strtok(copy, " "); t && n < 12; t = strtok(NULL, " ")) w[n++] = t;
    const char *fn = w[1];
    long p = atol(w[2]), q = atol(w[3]);
    if (w[0][0] == 'r') {
      int rnd = rnd_of(w[4][0]), t = 0, done = 0;
      mpfr_set_prec(&r, p);
      for (int i = 0; i < n - 5 && i < 3; i++) mpfr_set_prec(&a[i], q);
      for (int i = 0; T1[i].n && !done; i++)
        if (!strcmp(fn, T1[i].n)) { set(&a[0], w[5]); t = T1[i].f(&r, &a[0], rnd); done = 1; }
      for (int i = 0; T2[i].n && !done; i++)
        if (!strcmp(fn, T2[i].n)) {
          set(&a[0], w[5]); set(&a[1], w[6]);
          t = T2[i].f(&r, &a[0], &a[1], rnd); done = 1;
        }
      if (!done && (!strcmp(fn, "fma") || !strcmp(fn, "fms"))) {
        set(&a[0], w[5]); set(&a[1], w[6]); set(&a[2], w[7]);
        t = (fn[2] == 'a' ? mpfr_fma : mpfr_fms)(&r, &a[0], &a[1], &a[2], rnd); done = 1;
      }
      if (!done && (!strcmp(fn, "mul2") || !strcmp(fn, "div2"))) {
        set(&a[0], w[5]);
        long k = atol(w[6]);
        t = (fn[0] == 'm' ? mpfr_mul_2si : mpfr_div_2si)(&r, &a[0], k, rnd); done = 1;
      }
      if (!done && !strcmp(fn, "pow_z")) {
        set(&a[0], w[5]);
        if (__gmpz_set_str(&z, w[6], 10)) { fprintf(stderr, "bad int %s\n", w[6]); return 2; }
        t = mpfr_pow_z(&r, &a[0], &z, rnd); done = 1;
      }
      if (!done) { fprintf(stderr, "unknown %s\n", fn); return 1; }
      mpfr_sprintf(o1, "%Ra", &r);
      printf("%s | %s | %d\n", line, o1, sgn(t));
    } else {
      int r1 = rnd_of(w[4][0]), r2 = rnd_of(w[4][1]), rnd = r1 + (r2 << 4), t = 0, done = 0;
      mpc_set_prec(&cres, p);
      mpfr_set_prec(&r, p);
      mpc_set_prec(&ca, q);
      mpc_set_prec(&cb, q);
      set(&ca.re, w[5]); set(&ca.im, w[6]);
      if (n > 8) { set(&cb.re, w[7]); set(&cb.im, w[8]); }
      for (int i = 0; UR[i].n && !done; i++)
        if (!strcmp(fn, UR[i].n)) {
          t = UR[i].f(&r, &ca, r1);
          mpfr_sprintf(o1, "%Ra", &r);
          printf("%s | %s | %d\n", line, o1, sgn(t));
          done = 2;
        }
      for (int i = 0; U1[i].n && !done; i++)
        if (!strcmp(fn, U1[i].n)) { t = U1[i].f(&cres, &ca, rnd); done = 1; }
      for (int i = 0; U2[i].n && !done; i++)
        if (!strcmp(fn, U2[i].n)) { t = U2[i].f(&cres, &ca, &cb, rnd); done = 1; }
      if (!done) { fprintf(stderr, "unknown %s\n", fn); return 1; }
      if (done == 1) {
        mpfr_sprintf(o1, "%Ra", &cres.re);
        mpfr_sprintf(o2, "%Ra", &cres.im);
        printf("%s | %s %s | %d %d\n", line, o1, o2, inex_re(t), inex_im(t));
      }
    }
    fflush(stdout);
  }
  return 0;
}
