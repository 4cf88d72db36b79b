/* MPFR's throughput on T threads, the bench-float / bench-func protocol:
   N random elements per case (random mantissas, exponents as mparray's
   benches draw them), outputs preallocated, each thread a contiguous
   chunk, best of R runs. No headers needed (MPFR 4's ABI):
     gcc -O2 -pthread -o mpfr_threads scripts/peers/mpfr_threads.c /usr/lib/x86_64-linux-gnu/libmpfr.so.6
   Use: mpfr_threads THREADS LOG2N_ARITH LOG2N_FUNC [RUNS]
   Prints "op prec threads M-ops/s". */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

typedef struct { long prec; int sign; long exp; unsigned long *d; } mpfr_struct;
typedef mpfr_struct *mpfr_ptr;
void mpfr_init2(mpfr_ptr, long);
int mpfr_add(mpfr_ptr, mpfr_ptr, mpfr_ptr, int);
int mpfr_mul(mpfr_ptr, mpfr_ptr, mpfr_ptr, int);
int mpfr_div(mpfr_ptr, mpfr_ptr, mpfr_ptr, int);
int mpfr_sqrt(mpfr_ptr, mpfr_ptr, int);
int mpfr_fma(mpfr_ptr, mpfr_ptr, mpfr_ptr, mpfr_ptr, int);
int mpfr_exp(mpfr_ptr, mpfr_ptr, int);
int mpfr_log(mpfr_ptr, mpfr_ptr, int);
int mpfr_sin(mpfr_ptr, mpfr_ptr, int);
int mpfr_cos(mpfr_ptr, mpfr_ptr, int);
int mpfr_atan(mpfr_ptr, mpfr_ptr, int);
int mpfr_exp2(mpfr_ptr, mpfr_ptr, int);
int mpfr_log2(mpfr_ptr, mpfr_ptr, int);
int mpfr_log10(mpfr_ptr, mpfr_ptr, int);
int mpfr_tan(mpfr_ptr, mpfr_ptr, int);
int mpfr_cbrt(mpfr_ptr, mpfr_ptr, int);
int mpfr_expm1(mpfr_ptr, mpfr_ptr, int);
int mpfr_log1p(mpfr_ptr, mpfr_ptr, int);
int mpfr_sinh(mpfr_ptr, mpfr_ptr, int);
int mpfr_cosh(mpfr_ptr, mpfr_ptr, int);
int mpfr_tanh(mpfr_ptr, mpfr_ptr, int);
int mpfr_asinh(mpfr_ptr, mpfr_ptr, int);
int mpfr_acosh(mpfr_ptr, mpfr_ptr, int);
int mpfr_atanh(mpfr_ptr, mpfr_ptr, int);
int mpfr_asin(mpfr_ptr, mpfr_ptr, int);
int mpfr_acos(mpfr_ptr, mpfr_ptr, int);
int mpfr_atan2(mpfr_ptr, mpfr_ptr, mpfr_ptr, int);
int mpfr_hypot(mpfr_ptr, mpfr_ptr, mpfr_ptr, int);
int mpfr_pow(mpfr_ptr, mpfr_ptr, mpfr_ptr, int);
int mpfr_agm(mpfr_ptr, mpfr_ptr, mpfr_ptr, int);
int mpfr_add_ui(mpfr_ptr, mpfr_ptr, unsigned long, int);
void mpfr_free_cache(void);

static unsigned long long rs = 88172645463325252ULL;
static unsigned long rnd64(void) { rs ^= rs << 13; rs ^= rs >> 7; rs ^= rs << 17; return rs; }
static double now(void) { struct timespec t; clock_gettime(CLOCK_MONOTONIC, &t); return t.tv_sec + t.tv_nsec * 1e-9; }

static void fill(mpfr_struct *x, long n, long prec, int elo, int ehi, int pos) {
  long nl = (prec + 63) / 64;
  for (long i = 0; i < n; i++) {
    mpfr_init2(&x[i], prec);
    for (long j = 0; j < nl; j++) x[i].d[j] = rnd64();
    x[i].d[nl - 1] |= 1UL << 63;
    if (prec % 64) x[i].d[0] &= ~((1UL << (64 - prec % 64)) - 1);
    x[i].exp = elo + (long)(rnd64() % (unsigned long)(ehi - elo + 1));
    x[i].sign = (pos || (rnd64() & 1)) ? 1 : -1;
  }
}

enum { ADD, MUL, DIV, SQRT, FMA, EXP, LOG, SIN, COS, ATAN, EXP2, LOG2, LOG10, TAN, CBRT, EXPM1, LOG1P, SINH, COSH, TANH, ASINH, ACOSH, ATANH, ASIN, ACOS, ATAN2, HYPOT, POW, AGM };
static const char *names[] = {"add", "mul", "div", "sqrt", "fma", "exp", "log", "sin", "cos", "atan", "exp2", "log2", "log10", "tan", "cbrt", "expm1", "log1p", "sinh", "cosh", "tanh", "asinh", "acosh", "atanh", "asin", "acos", "atan2", "hypot", "pow", "agm"};
struct job { int op; mpfr_struct *r, *a, *b, *c; long lo, hi; };

static void *work(void *p) {
  struct job *j = p;
  for (long i = j->lo; i < j->hi; i++) {
    mpfr_ptr r = &j->r[i], a = &j->a[i], b = &j->b[i];
    switch (j->op) {
      case ADD: mpfr_add(r, a, b, 0); break;
      case MUL: mpfr_mul(r, a, b, 0); break;
      case DIV: mpfr_div(r, a, b, 0); break;
      case SQRT: mpfr_sqrt(r, a, 0); break;
      case FMA: mpfr_fma(r, a, b, &j->c[i], 0); break;
      case EXP: mpfr_exp(r, a, 0); break;
      case LOG: mpfr_log(r, a, 0); break;
      case SIN: mpfr_sin(r, a, 0); break;
      case COS: mpfr_cos(r, a, 0); break;
      case ATAN: mpfr_atan(r, a, 0); break;
      case EXP2: mpfr_exp2(r, a, 0); break;
      case LOG2: mpfr_log2(r, a, 0); break;
      case LOG10: mpfr_log10(r, a, 0); break;
      case TAN: mpfr_tan(r, a, 0); break;
      case CBRT: mpfr_cbrt(r, a, 0); break;
      case EXPM1: mpfr_expm1(r, a, 0); break;
      case LOG1P: mpfr_log1p(r, a, 0); break;
      case SINH: mpfr_sinh(r, a, 0); break;
      case COSH: mpfr_cosh(r, a, 0); break;
      case TANH: mpfr_tanh(r, a, 0); break;
      case ASINH: mpfr_asinh(r, a, 0); break;
      case ACOSH: mpfr_acosh(r, a, 0); break;
      case ATANH: mpfr_atanh(r, a, 0); break;
      case ASIN: mpfr_asin(r, a, 0); break;
      case ACOS: mpfr_acos(r, a, 0); break;
      case ATAN2: mpfr_atan2(r, a, b, 0); break;
      case HYPOT: mpfr_hypot(r, a, b, 0); break;
      case POW: mpfr_pow(r, a, b, 0); break;
      case AGM: mpfr_agm(r, a, b, 0); break;
    }
  }
  return NULL;
}

static void bench(int op, long prec, long n, int T, int runs) {
  mpfr_struct *a = malloc(n * sizeof *a), *b = malloc(n * sizeof *b), *c = malloc(n * sizeof *c), *r = malloc(n * sizeof *r);
  int elo = -16, ehi = 16, pos = 0;
  if (op == SQRT || op == LOG) pos = 1;
  if (op == EXP) ehi = 4;
  if (op == LOG) { elo = -64; ehi = 64; }
  if (op == SIN || op == COS) ehi = 8;
  /* the other functions: the ranges of src/bench/func.rs */
  int blo = -16, bhi = 16, bpos = 0;
  switch (op) {
    case EXP2: case EXPM1: ehi = 4; break;
    case LOG2: case LOG10: elo = -64; ehi = 64; pos = 1; break;
    case TAN: case CBRT: case ASINH: case SINH: case COSH: case TANH: ehi = 8; break;
    case LOG1P: case ACOSH: pos = 1; break;
    case ATANH: case ASIN: case ACOS: ehi = 0; break;
    case POW: pos = 1; blo = -4; bhi = 4; break;
    case AGM: pos = 1; bpos = 1; break;
  }
  fill(a, n, prec, elo, ehi, pos); fill(b, n, prec, blo, bhi, bpos); fill(c, n, prec, -16, 16, 0);
  if (op == ACOSH)
    for (long i = 0; i < n; i++) mpfr_add_ui(&a[i], &a[i], 1, 0);
  for (long i = 0; i < n; i++) mpfr_init2(&r[i], prec);
  /* touch the outputs once (a warm-up run) */
  double best = 1e30;
  for (int k = 0; k <= runs; k++) {
    pthread_t th[256]; struct job jb[256];
    double t0 = now();
    for (int t = 0; t < T; t++) {
      jb[t] = (struct job){op, r, a, b, c, n * t / T, n * (t + 1) / T};
      pthread_create(&th[t], NULL, work, &jb[t]);
    }
    for (int t = 0; t < T; t++) pthread_join(th[t], NULL);
    double dt = now() - t0;
    if (k > 0 && dt < best) best = dt;
  }
  printf("mpfr %-5s %5ld %3d %10.4f M/s\n", names[op], prec, T, n / best / 1e6);
  fflush(stdout);
  /* leak: the process is short */
}

int main(int argc, char **argv) {
  int T = argc > 1 ? atoi(argv[1]) : 1;
  int la = argc > 2 ? atoi(argv[2]) : 20, lf = argc > 3 ? atoi(argv[3]) : 16;
  int runs = argc > 4 ? atoi(argv[4]) : 3;
  const char *which = argc > 5 ? argv[5] : "arith,func";
  if (strstr(which, "arith")) {
    long precs[] = {128, 512, 1024};
    for (int pi = 0; pi < 3; pi++)
      for (int op = ADD; op <= SQRT; op++) {
        if (precs[pi] != 512 && op != MUL) continue;
        bench(op, precs[pi], 1L << la, T, runs);
      }
  }
  if (strstr(which, "funcall")) {
    /* every precision of bench func (the CUDA bar: 100x MPFR on one core at
       each of them) */
    long precs[] = {128, 256, 512, 1024, 2048};
    for (int pi = 0; pi < 5; pi++)
      for (int op = EXP; op <= AGM; op++) bench(op, precs[pi], 1L << lf, T, runs);
  } else if (strstr(which, "func"))
    for (int op = EXP; op <= ATAN; op++) bench(op, 512, 1L << lf, T, runs);
  return 0;
}
