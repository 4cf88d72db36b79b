// Reference: the bench-int protocol with GMP's mpn functions on T threads
// (OpenMP), outputs preallocated. gcc -O2 -fopenmp gmpbench.c -lgmp
#include <gmp.h>
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
void __gmpn_mullo_n(mp_limb_t *, const mp_limb_t *, const mp_limb_t *, mp_size_t);
static double now(void) { struct timespec t; clock_gettime(CLOCK_MONOTONIC, &t); return t.tv_sec * 1e3 + t.tv_nsec / 1e6; }
static unsigned long long s = 88172645463325252ULL;
static mp_limb_t rnd(void) { s ^= s << 13; s ^= s >> 7; s ^= s << 17; return s; }
static int cmp(const void *a, const void *b) { double x = *(double *)a, y = *(double *)b; return x < y ? -1 : x > y; }
int main(int argc, char **argv) {
  int scale = argc > 1 ? atoi(argv[1]) : 8, runs = 5;
  for (int lg = 12; lg <= 19; lg++) {
    long m = (1L << lg) / 64, n = (1L << 32 >> lg >> scale);
    mp_limb_t *a = malloc(n * m * 8), *b = malloc(n * m * 8), *r = malloc(n * m * 8), *q = malloc(n * m * 8), *w = malloc(2 * n * m * 8);
    long *dl = malloc(n * sizeof(long));
    for (long i = 0; i < n * m; i++) a[i] = rnd(), b[i] = rnd(), r[i] = 0, q[i] = 0;
    memset(w, 0, 2 * n * m * 8);
    for (long i = 0; i < n; i++) dl[i] = 2 + rnd() % (m / 2 - 1);
    double t[4][16];
    for (int k = 0; k < runs + 1; k++) {
      double t0 = now();
#pragma omp parallel for schedule(static)
      for (long i = 0; i < n; i++) mpn_add_n(r + i * m, a + i * m, b + i * m, m);
      double t1 = now();
#pragma omp parallel for schedule(dynamic, 1)
      for (long i = 0; i < n; i++) __gmpn_mullo_n(r + i * m, a + i * m, b + i * m, m);
      double t2 = now();
#pragma omp parallel for schedule(dynamic, 1)
      for (long i = 0; i < n; i++) mpn_mul_n(w + 2 * i * m, a + i * m, b + i * m, m);
      double t3 = now();
#pragma omp parallel for schedule(dynamic, 1)
      for (long i = 0; i < n; i++) {
        mp_limb_t *bb = b + i * m; long d = dl[i]; if (bb[d - 1] == 0) bb[d - 1] = 1;
        mpn_tdiv_qr(q + i * m, r + i * m, 0, a + i * m, m - 2, bb, d);
      }
      double t4 = now();
      if (k) { t[0][k - 1] = t1 - t0; t[1][k - 1] = t2 - t1; t[2][k - 1] = t3 - t2; t[3][k - 1] = t4 - t3; }
    }
    for (int j = 0; j < 4; j++) qsort(t[j], runs, sizeof(double), cmp);
    printf("2^%d n=%ld add %.3f mullo %.3f mul_n %.3f div %.3f ms\n", lg, n, t[0][runs / 2], t[1][runs / 2], t[2][runs / 2], t[3][runs / 2]);
    free(a); free(b); free(r); free(q); free(w); free(dl);
  }
}
