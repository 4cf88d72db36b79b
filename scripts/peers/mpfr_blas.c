/* MPFR as its users write BLAS, the peer of `mparray bench blas`:
     gemm  C = A*B, n x n, each output element by the plain loop
           acc = 0; for k: t = a[i][k]*b[k][j] (mpfr_mul); acc += t (mpfr_add),
           t and acc at p bits, to nearest (so NOT correctly rounded as a
           whole: two roundings per term); T threads (pthreads), rows split.
           B is read by columns through a transposed copy of its handles.
     gemv  y = A*x, 1024 x 1024, the same loop per row, T threads.
     dot   one mpfr_dot (MPFR 4.1+: the correctly rounded dot product) of
           2^20 elements, 1 thread (it is one call).
     dotl  the same dot by the mul/add loop, split over T threads, partial
           sums added at the end.
   Inputs: random p-bit mantissas, random signs, exponents in -4..0 (like
   the bench's uniform [-1, 1)). GMAC/s = multiply-accumulates per second
   (n^3 for gemm, n^2 for gemv, n for dot), best of RUNS after one warm-up
   run. The gemm line also says how many of 8 sampled elements differ from
   the correctly rounded mpfr_dot of the same row and column.
   No headers needed (MPFR 4's ABI):
     gcc -O2 -pthread -o mpfr_blas scripts/peers/mpfr_blas.c /usr/lib/x86_64-linux-gnu/libmpfr.so.6
   Use: mpfr_blas THREADS PRECS SIZES [RUNS] [OPS]
     e.g. mpfr_blas 16 512 256,1024 3 gemm,gemv,dot,dotl
   Prints one line per case: "op prec n threads ms GMAC/s ...". */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

typedef struct { long prec; int sign; long exp; unsigned long *d; } mpfr_struct;
typedef mpfr_struct *mpfr_ptr;
void mpfr_init2(mpfr_ptr, long);
void mpfr_clear(mpfr_ptr);
int mpfr_set_zero(mpfr_ptr, int);
int mpfr_add(mpfr_ptr, mpfr_ptr, mpfr_ptr, int);
int mpfr_mul(mpfr_ptr, mpfr_ptr, mpfr_ptr, int);
int mpfr_cmp(mpfr_ptr, mpfr_ptr);
int mpfr_dot(mpfr_ptr, mpfr_ptr *, mpfr_ptr *, unsigned long, int);
const char *mpfr_get_version(void);
#define RNDN 0

static unsigned long long rs = 88172645463325252ULL;
static unsigned long rnd64(void) { rs ^= rs << 13; rs ^= rs >> 7; rs ^= rs << 17; return rs; }
static double now(void) { struct timespec t; clock_gettime(CLOCK_MONOTONIC, &t); return t.tv_sec + t.tv_nsec * 1e-9; }

/* n random elements at prec bits. */
static mpfr_struct *fill(long n, long prec) {
  mpfr_struct *x = malloc(n * sizeof *x);
  long nl = (prec + 63) / 64;
  for (long i = 0; i < n; i++) {
    mpfr_init2(&x[i], prec);
    for (long j = 0; j < nl; j++) x[i].d[j] = rnd64();
    x[i].d[nl - 1] |= 1UL << 63;
    if (prec % 64) x[i].d[0] &= ~((1UL << (64 - prec % 64)) - 1);
    x[i].exp = -(long)(rnd64() % 5);
    x[i].sign = (rnd64() & 1) ? 1 : -1;
  }
  return x;
}

static void clear(mpfr_struct *x, long n) {
  for (long i = 0; i < n; i++) mpfr_clear(&x[i]);
  free(x);
}

enum { GEMM, GEMV, DOTL };
struct job {
  int op; long prec, n, k, lo, hi;
  mpfr_struct *a, *bt, *c; /* gemm: C[i*n+j] = sum_k A[i*k+..] * Bt[j*k+..] */
};

static void *work(void *p) {
  struct job *j = p;
  mpfr_struct t, acc;
  mpfr_init2(&t, j->prec);
  mpfr_init2(&acc, j->prec);
  for (long i = j->lo; i < j->hi; i++) {
    long cols = j->op == GEMM ? j->n : 1;
    for (long c = 0; c < cols; c++) {
      mpfr_set_zero(&acc, 1);
      mpfr_struct *ar = &j->a[i * j->k], *br = &j->bt[c * j->k];
      if (j->op == DOTL) { ar = &j->a[i * j->k]; br = &j->bt[i * j->k]; }
      for (long q = 0; q < j->k; q++) {
        mpfr_mul(&t, &ar[q], &br[q], RNDN);
        mpfr_add(&acc, &acc, &t, RNDN);
      }
      mpfr_add(&j->c[i * cols + c], &acc, &j->c[i * cols + c], RNDN);
    }
  }
  mpfr_clear(&t);
  mpfr_clear(&acc);
  return NULL;
}

/* Runs `rows` rows of op over T threads; returns seconds. The outputs are
   zeroed first (outside the time). */
static double run(int op, long prec, long rows, long n, long k, mpfr_struct *a, mpfr_struct *bt,
                  mpfr_struct *c, long nc, int T) {
  for (long i = 0; i < nc; i++) mpfr_set_zero(&c[i], 1);
  pthread_t th[256];
  struct job jobs[256];
  if (T > 256) T = 256;
  double t0 = now();
  for (int t = 0; t < T; t++) {
    jobs[t] = (struct job){op, prec, n, k, rows * t / T, rows * (t + 1) / T, a, bt, c};
    pthread_create(&th[t], NULL, work, &jobs[t]);
  }
  for (int t = 0; t < T; t++) pthread_join(th[t], NULL);
  return now() - t0;
}

static void report(const char *op, long prec, long n, int T, double s, double macs, const char *extra) {
  printf("%-5s %5ld %8ld %3d %12.3f %10.5f%s\n", op, prec, n, T, s * 1e3, macs / s / 1e9, extra);
  fflush(stdout);
}

static void gemm(long prec, long n, int T, int runs) {
  mpfr_struct *a = fill(n * n, prec), *b = fill(n * n, prec), *c = fill(n * n, prec);
  /* Bt[j*n+k] = B[k*n+j]: the same limbs, handles transposed. */
  mpfr_struct *bt = malloc(n * n * sizeof *bt);
  for (long k = 0; k < n; k++)
    for (long j = 0; j < n; j++) bt[j * n + k] = b[k * n + j];
  double best = 1e300;
  for (int r = 0; r <= runs; r++) {
    double s = run(GEMM, prec, n, n, n, a, bt, c, n * n, T);
    if (r > 0 && s < best) best = s; /* run 0 is the warm-up */
  }
  /* 8 sampled elements against the correctly rounded mpfr_dot. */
  int differ = 0;
  mpfr_ptr *x = malloc(n * sizeof *x), *y = malloc(n * sizeof *y);
  mpfr_struct w;
  mpfr_init2(&w, prec);
  for (int s = 0; s < 8; s++) {
    long i = s == 0 ? 0 : s == 1 ? n - 1 : (long)(rnd64() % n), j = s == 0 ? 0 : s == 1 ? n - 1 : (long)(rnd64() % n);
    for (long k = 0; k < n; k++) { x[k] = &a[i * n + k]; y[k] = &bt[j * n + k]; }
    mpfr_dot(&w, x, y, n, RNDN);
    differ += mpfr_cmp(&w, &c[i * n + j]) != 0;
  }
  char extra[96];
  snprintf(extra, sizeof extra, "  (%d of 8 sampled elements differ from mpfr_dot's correctly rounded one)", differ);
  report("gemm", prec, n, T, best, (double)n * n * n, extra);
  mpfr_clear(&w);
  free(x); free(y); free(bt);
  clear(a, n * n); clear(b, n * n); clear(c, n * n);
}

static void gemv(long prec, long n, int T, int runs) {
  mpfr_struct *a = fill(n * n, prec), *x = fill(n, prec), *y = fill(n, prec);
  /* One "column" of B: x as a 1 x n row, read once per output row. */
  mpfr_struct *bt = malloc(n * sizeof *bt);
  memcpy(bt, x, n * sizeof *bt);
  double best = 1e300;
  for (int r = 0; r <= runs; r++) {
    double s = run(GEMM, prec, n, 1, n, a, bt, y, n, T);
    if (r > 0 && s < best) best = s;
  }
  report("gemv", prec, n, T, best, (double)n * n, "");
  free(bt);
  clear(a, n * n); clear(x, n); clear(y, n);
}

static void dot(long prec, long n, int T, int runs) {
  mpfr_struct *a = fill(n, prec), *b = fill(n, prec), *c = fill(T, prec);
  mpfr_ptr *x = malloc(n * sizeof *x), *y = malloc(n * sizeof *y);
  for (long i = 0; i < n; i++) { x[i] = &a[i]; y[i] = &b[i]; }
  mpfr_struct r;
  mpfr_init2(&r, prec);
  double best = 1e300;
  for (int q = 0; q <= runs; q++) {
    double t0 = now();
    mpfr_dot(&r, x, y, n, RNDN);
    double s = now() - t0;
    if (q > 0 && s < best) best = s;
  }
  report("dot", prec, n, 1, best, (double)n, "  (mpfr_dot, correctly rounded)");
  /* The loop on T threads: T rows of n/T elements, partial sums added. */
  best = 1e300;
  long chunk = n / T;
  for (int q = 0; q <= runs; q++) {
    double s = run(DOTL, prec, T, chunk, chunk, a, b, c, T, T);
    double t0 = now();
    for (int t = 1; t < T; t++) mpfr_add(&c[0], &c[0], &c[t], RNDN);
    s += now() - t0;
    if (q > 0 && s < best) best = s;
  }
  report("dotl", prec, chunk * T, T, best, (double)chunk * T, "  (mul/add loop, partial sums per thread)");
  mpfr_clear(&r);
  free(x); free(y);
  clear(a, n); clear(b, n); clear(c, T);
}

/* Parses "a,b,c" into v; returns the count. */
static int list(const char *s, long *v, int max) {
  int k = 0;
  while (*s && k < max) {
    v[k++] = strtol(s, (char **)&s, 10);
    if (*s == ',') s++;
  }
  return k;
}

int main(int argc, char **argv) {
  if (argc < 4) {
    fprintf(stderr, "use: %s THREADS PRECS SIZES [RUNS] [OPS: gemm,gemv,dot]\n", argv[0]);
    return 2;
  }
  int T = atoi(argv[1]);
  long precs[16], sizes[16];
  int np = list(argv[2], precs, 16), ns = list(argv[3], sizes, 16);
  int runs = argc > 4 ? atoi(argv[4]) : 3;
  const char *ops = argc > 5 ? argv[5] : "gemm,gemv,dot";
  if (T < 1) T = 1;
  if (runs < 1) runs = 1;
  printf("MPFR %s, %d threads, best of %d runs after a warm-up\n", mpfr_get_version(), T, runs);
  printf("%-5s %5s %8s %3s %12s %10s\n", "op", "prec", "n", "thr", "ms", "GMAC/s");
  for (int p = 0; p < np; p++) {
    if (strstr(ops, "gemm"))
      for (int s = 0; s < ns; s++) gemm(precs[p], sizes[s], T, runs);
    if (strstr(ops, "gemv")) gemv(precs[p], 1024, T, runs);
    if (strstr(ops, "dot")) dot(precs[p], 1L << 20, T, runs);
  }
  return 0;
}
