// GMP beside `mparray bench int --cases powm,gcd,modinv,isqrt --gmp PATH`:
// mpz_powm, mpz_gcd, mpz_invert, mpz_sqrtrem on every host core (OpenMP,
// one element per iteration, dynamic schedule), on the inputs mparray wrote.
//
//   gmpnt OP BITS N RUNS FILE   (OP: powm, gcd, modinv, isqrt)
//
// FILE: the operands as raw little-endian 64-bit limbs, N elements of
// BITS/64 limbs each, one array after the other (powm: base, exp, modulus;
// gcd: a, b; modinv: a, modulus; isqrt: a). Prints "MEDIAN_MS THREADS HASH":
// the median of RUNS timed runs after one warm-up, and a hash of the
// results (each padded to BITS/64 limbs; isqrt: roots then remainders;
// modinv: 0 where no inverse exists), which mparray compares with its own
// (src/bench/int_nt.rs: keep the two hashes in step).
//
// Build (static, to run on a machine without GMP):
//   gcc -O2 -fopenmp -static -o gmpnt scripts/peers/gmpnt.c -lgmp
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
static int cmpd(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

int main(int argc, char **argv) {
    if (argc != 6) {
        fprintf(stderr, "usage: gmpnt OP BITS N RUNS FILE\n");
        return 2;
    }
    const char *op = argv[1];
    long bits = atol(argv[2]), n = atol(argv[3]);
    int runs = atoi(argv[4]);
    long l = bits / 64;
    int k = !strcmp(op, "powm") ? 3 : !strcmp(op, "isqrt") ? 1 : 2;
    int nout = !strcmp(op, "isqrt") ? 2 : 1;
    if (l < 1 || n < 1 || runs < 1 || (strcmp(op, "powm") && strcmp(op, "gcd") &&
                                       strcmp(op, "modinv") && strcmp(op, "isqrt"))) {
        fprintf(stderr, "gmpnt: bad arguments\n");
        return 2;
    }
    unsigned long long *in = malloc(sizeof(*in) * k * n * l);
    FILE *f = fopen(argv[5], "rb");
    if (!f || fread(in, sizeof(*in), k * n * l, f) != (size_t)(k * n * l)) {
        fprintf(stderr, "gmpnt: cannot read %s\n", argv[5]);
        return 2;
    }
    fclose(f);
    mpz_t *x = malloc(sizeof(mpz_t) * k * n), *r = malloc(sizeof(mpz_t) * 2 * n);
    for (long i = 0; i < k * n; i++) {
        mpz_init(x[i]);
        mpz_import(x[i], l, -1, 8, 0, 0, in + i * l);
    }
    for (long i = 0; i < 2 * n; i++) mpz_init2(r[i], bits + 64);
    double *t = malloc(sizeof(double) * runs);
    for (int run = 0; run <= runs; run++) {
        double t0 = now();
#pragma omp parallel for schedule(dynamic, 16)
        for (long i = 0; i < n; i++) {
            if (op[0] == 'p') {
                mpz_powm(r[i], x[i], x[n + i], x[2 * n + i]);
            } else if (op[0] == 'g') {
                mpz_gcd(r[i], x[i], x[n + i]);
            } else if (op[0] == 'm') {
                if (!mpz_invert(r[i], x[i], x[n + i])) mpz_set_ui(r[i], 0);
            } else {
                mpz_sqrtrem(r[i], r[n + i], x[i]);
            }
        }
        double t1 = now();
        if (run) t[run - 1] = t1 - t0;
    }
    qsort(t, runs, sizeof(double), cmpd);
    unsigned long long h = 0xcbf29ce484222325ull;
    unsigned long long *buf = calloc(l + 2, 8);
    for (int o = 0; o < nout; o++)
        for (long i = 0; i < n; i++) {
            memset(buf, 0, (l + 2) * 8);
            size_t cnt = 0;
            mpz_export(buf, &cnt, -1, 8, 0, 0, r[o * n + i]);
            for (long j = 0; j < l; j++) {
                h = (h ^ buf[j]) * 0x00000100000001b3ull;
                h ^= h >> 29;
            }
        }
    printf("%.6f %d %016llx\n", t[runs / 2], omp_get_max_threads(), h);
    return 0;
}
