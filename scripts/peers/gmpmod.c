// GMP beside mparray's modular kernels: mpz_powm (odd modulus, exponent of
// the full width), mpz_gcd and mpz_invert on random full-width operands, on
// T threads (pthreads, each its own slice of the batch).
// Build: gcc -O2 -static -o gmpmod gmpmod.c -lgmp -lpthread
// Usage: gmpmod THREADS BITS COUNT_POWM COUNT_GCD
// Prints one JSON line per operation: {"op":..,"bits":..,"count":..,"seconds":..,"per_s":..}
#include <gmp.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static int T, BITS;
static long NP, NG;
static mpz_t *A, *B, *M, *R;
static int OP;

static double now(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec + 1e-9 * ts.tv_nsec;
}

static void *work(void *arg) {
    long t = (long)arg;
    long n = OP == 0 ? NP : NG;
    long lo = n * t / T, hi = n * (t + 1) / T;
    for (long i = lo; i < hi; i++) {
        if (OP == 0) mpz_powm(R[i], A[i], B[i], M[i]);
        else if (OP == 1) mpz_gcd(R[i], A[i], B[i]);
        else mpz_invert(R[i], A[i], M[i]);
    }
    return NULL;
}

static void run(const char *name, int op, long n) {
    pthread_t th[256];
    OP = op;
    double t0 = now();
    for (long t = 0; t < T; t++) pthread_create(&th[t], NULL, work, (void *)t);
    for (long t = 0; t < T; t++) pthread_join(th[t], NULL);
    double s = now() - t0;
    // A checksum so the work is not optimised away and runs can be compared.
    unsigned long ck = 0;
    for (long i = 0; i < n; i++) ck = ck * 31 + mpz_get_ui(R[i]);
    printf("{\"op\":\"%s\",\"bits\":%d,\"threads\":%d,\"count\":%ld,\"seconds\":%.6f,\"per_s\":%.1f,\"check\":%lu}\n",
           name, BITS, T, n, s, n / s, ck);
    fflush(stdout);
}

int main(int argc, char **argv) {
    if (argc < 5) {
        fprintf(stderr, "usage: gmpmod THREADS BITS COUNT_POWM COUNT_GCD\n");
        return 2;
    }
    T = atoi(argv[1]);
    BITS = atoi(argv[2]);
    NP = atol(argv[3]);
    NG = atol(argv[4]);
    long n = NP > NG ? NP : NG;
    gmp_randstate_t rs;
    gmp_randinit_default(rs);
    gmp_randseed_ui(rs, 12345);
    A = malloc(n * sizeof(mpz_t));
    B = malloc(n * sizeof(mpz_t));
    M = malloc(n * sizeof(mpz_t));
    R = malloc(n * sizeof(mpz_t));
    for (long i = 0; i < n; i++) {
        mpz_inits(A[i], B[i], M[i], R[i], NULL);
        mpz_urandomb(A[i], rs, BITS);
        mpz_urandomb(B[i], rs, BITS);
        mpz_urandomb(M[i], rs, BITS);
        mpz_setbit(M[i], BITS - 1);
        mpz_setbit(M[i], 0);
        mpz_setbit(B[i], BITS - 1);
    }
    if (NP) run("powm", 0, NP);
    if (NG) {
        run("gcd", 1, NG);
        run("modinv", 2, NG);
    }
    return 0;
}
