// Per-call single-thread timings of GMP's mpn functions (ns), for
// comparison with the ignored `micro` test. gcc -O2 gmpmicro.c -lgmp
#include <gmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
void __gmpn_mullo_n(mp_limb_t *, const mp_limb_t *, const mp_limb_t *, mp_size_t);
void __gmpn_mul_basecase(mp_limb_t *, const mp_limb_t *, mp_size_t, const mp_limb_t *, mp_size_t);
static double now(void) { struct timespec t; clock_gettime(CLOCK_MONOTONIC, &t); return t.tv_sec * 1e9 + t.tv_nsec; }
#define TIME(label, n, expr) { long it = 1 + 20000000 / ((n) * (n) + 100); double best = 1e30; \
  for (int k = 0; k < 5; k++) { double t0 = now(); for (long i = 0; i < it; i++) { expr; } double t = (now() - t0) / it; if (t < best) best = t; } \
  printf("%-10s n=%6ld %12.1f ns\n", label, (long)(n), best); }
int main() {
  long N = 20000;
  mp_limb_t *a = malloc(N * 8), *b = malloc(N * 8), *r = malloc(4 * N * 8), *q = malloc(N * 8);
  for (long i = 0; i < N; i++) a[i] = rand() * 0x9E3779B97F4A7C15ULL + i, b[i] = rand() * 0xBF58476D1CE4E5B9ULL + i;
  long sz[] = {8, 16, 24, 32, 48, 64, 96, 128, 192, 256, 512, 1024, 2048, 4096, 8192};
  for (int j = 0; j < 15; j++) {
    long n = sz[j];
    TIME("addmul_1", n / 8 + 1, r[n] = mpn_addmul_1(r, a, n, b[0]));
    if (n <= 64) TIME("basecase", n, __gmpn_mul_basecase(r, a, n, b, n));
    TIME("mul_n", n, mpn_mul_n(r, a, b, n));
    TIME("mullo_n", n, __gmpn_mullo_n(r, a, b, n));
    TIME("sqr", n, mpn_sqr(r, a, n));
    if (n >= 16) { b[n / 2 - 1] |= 1ULL << 63; for (long i = 0; i < n - 2; i++) r[i] = a[i];
      TIME("tdiv_qr", n, mpn_tdiv_qr(q, r + 2 * N, 0, a, n - 2, b, n / 2)); }
  }
}
// (second program) see gmpdiv.c
