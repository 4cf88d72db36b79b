// GMP's mpn_add_n over the batch layout of `mparray bench int` 1-Add
// (NumInsts elements of NumBits bits, element i at limb i*M), on all
// OpenMP threads (static schedule), outputs preallocated and reused, inputs
// and outputs first touched by the threads that use them. Prints, per
// NumBits, the min and median of RUNS timed runs after one warm-up, and
// GB/s counted as mparray does (3 * NumInsts * NumBits / 8 bytes).
//
// Usage: gmpadd LOG2_TOTAL_BITS [LG_NUMBITS,...] [RUNS]
//   e.g. gmpadd 28 12,15,19 15   (NumBits * NumInsts = 2^28 bits per operand)
// Build: gcc -O2 -fopenmp gmpadd.c -o gmpadd -lgmp
//   (static, to run where GMP is absent: add -static, or link libgmp.a)
#include <gmp.h>
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static double now(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return t.tv_sec * 1e3 + t.tv_nsec / 1e6;
}
static int cmp(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return x < y ? -1 : x > y;
}

int main(int argc, char **argv) {
  int total = argc > 1 ? atoi(argv[1]) : 28;
  const char *sizes = argc > 2 ? argv[2] : "12,13,14,15,16,17,18,19";
  int runs = argc > 3 ? atoi(argv[3]) : 15;
  if (total < 13 || total > 36 || runs < 1 || runs > 1000) {
    fprintf(stderr, "usage: gmpadd LOG2_TOTAL_BITS [LG_NUMBITS,...] [RUNS]\n");
    return 2;
  }
  char *list = strdup(sizes);
  for (char *tok = strtok(list, ","); tok; tok = strtok(NULL, ",")) {
    int lg = atoi(tok);
    if (lg < 6 || lg >= total) continue;
    long m = (1L << lg) / 64, n = 1L << (total - lg), limbs = n * m;
    mp_limb_t *a = malloc(limbs * 8), *b = malloc(limbs * 8), *r = malloc(limbs * 8);
    if (!a || !b || !r) { fprintf(stderr, "out of memory\n"); return 1; }
#pragma omp parallel for schedule(static)
    for (long i = 0; i < n; i++) {
      unsigned long long s = 88172645463325252ULL ^ (unsigned long long)i * 0x9E3779B97F4A7C15ULL;
      for (long j = 0; j < m; j++) {
        s ^= s << 13; s ^= s >> 7; s ^= s << 17; a[i * m + j] = s;
        s ^= s << 13; s ^= s >> 7; s ^= s << 17; b[i * m + j] = s;
        r[i * m + j] = 0;
      }
    }
    double *t = malloc((runs + 1) * sizeof(double));
    for (int k = 0; k <= runs; k++) {
      double t0 = now();
#pragma omp parallel for schedule(static)
      for (long i = 0; i < n; i++) mpn_add_n(r + i * m, a + i * m, b + i * m, m);
      t[k] = now() - t0;
    }
    qsort(t + 1, runs, sizeof(double), cmp);
    double med = t[1 + runs / 2], mn = t[1];
    // A check that the sums were made: r = a + b at one element.
    long i = n / 3;
    mp_limb_t chk[m];
    mpn_add_n(chk, a + i * m, b + i * m, m);
    int ok = mpn_cmp(chk, r + i * m, m) == 0;
    printf("gmp   total 2^%d NumBits 2^%d threads %d: min %.3f med %.3f ms (%.0f GB/s at the median)%s\n",
           total, lg, omp_get_max_threads(), mn, med, 3.0 * limbs * 8 / med / 1e6, ok ? "" : " WRONG");
    free(t); free(a); free(b); free(r);
  }
  free(list);
  return 0;
}
