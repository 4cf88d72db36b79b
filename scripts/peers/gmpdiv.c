// GMP tdiv_qr of an M-limb dividend (argv[1], default 8190) by divisors of various lengths (ns per call).
#include <gmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
static double now(void) { struct timespec t; clock_gettime(CLOCK_MONOTONIC, &t); return t.tv_sec * 1e9 + t.tv_nsec; }
int main(int argc, char **argv) {
  long m = argc > 1 ? atol(argv[1]) : 8190; static mp_limb_t a[8192], b[8192], q[8192], r[8192];
  for (long i = 0; i < 8192; i++) a[i] = rand() * 0x9E3779B97F4A7C15ULL + i, b[i] = rand() * 0xBF58476D1CE4E5B9ULL + 3 * i;
  long ds[] = {2, 3, 4, 8, 16, 24, 31, 40, 64, 100, 128, 200, 256, 400, 512, 1024, 2048, 3000, 4096};
  for (int j = 0; j < 19; j++) { long dn = ds[j]; if (dn > m / 2) break; b[dn - 1] |= 1; long it = 1 + 2000000000L / (m * (dn < 200 ? dn * 8 : 1600) + 1);
    double best = 1e30; for (int k = 0; k < 5; k++) { double t0 = now(); for (long i = 0; i < it; i++) mpn_tdiv_qr(q, r, 0, a, m, b, dn); double t = (now() - t0) / it; if (t < best) best = t; }
    printf("div %ld/%-5ld %12.1f ns\n", m, dn, best); }
}
