/*
 * execute_overhead.c - tc_execute against the emitted C of the same
 * algorithm, side by side in one process (bench/execute_overhead.sh builds
 * it once per case, with the emitted routine linked in as FUNC).
 *
 * usage: execute_overhead CONTRACTION SIZES WISDOM NA NB NC REPS
 * The plan comes from WISDOM (TC_WISDOM_ONLY), so it runs exactly the
 * algorithm the emitted routine was written for. Runs alternate, one of
 * each per repetition, after one untimed run of each; the medians and
 * their ratio are printed as one TSV row: emitted_s execute_s ratio.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "tcgen.h"

int FUNC(const double *A, const double *B, double *C);

static double now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

static int cmp(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

int main(int argc, char **argv)
{
    if (argc != 8) {
        fprintf(stderr, "usage: %s CONTRACTION SIZES WISDOM NA NB NC REPS\n", argv[0]);
        return 2;
    }
    tc_error err;
    if (tc_wisdom_import_file(argv[3], &err) != TC_OK) {
        fprintf(stderr, "%s:%d:%d: %s\n", argv[3], err.line, err.column, err.message);
        return 1;
    }
    tc_plan *p = tc_plan_create(argv[1], argv[2], TC_WISDOM_ONLY, &err);
    if (!p) {
        fprintf(stderr, "tc_plan_create: %s\n", err.message);
        return 1;
    }
    size_t na = strtoul(argv[4], NULL, 10), nb = strtoul(argv[5], NULL, 10),
           nc = strtoul(argv[6], NULL, 10);
    int reps = atoi(argv[7]);
    double *A = malloc(na * sizeof *A), *B = malloc(nb * sizeof *B);
    double *C1 = malloc(nc * sizeof *C1), *C2 = malloc(nc * sizeof *C2);
    double *t1 = malloc((size_t)reps * sizeof *t1), *t2 = malloc((size_t)reps * sizeof *t2);
    if (!A || !B || !C1 || !C2 || !t1 || !t2 || reps < 1) {
        fprintf(stderr, "out of memory (or REPS < 1)\n");
        return 3;
    }
    for (size_t k = 0; k < na; k++)
        A[k] = (double)(k % 17) / 17.0 - 0.5;
    for (size_t k = 0; k < nb; k++)
        B[k] = (double)(k % 13) / 13.0 - 0.5;
    memset(C1, 0, nc * sizeof *C1);
    memset(C2, 0, nc * sizeof *C2);
    if (FUNC(A, B, C1) != 0 || tc_execute(p, A, B, C2) != TC_OK) {
        fprintf(stderr, "a run failed\n");
        return 1;
    }
    for (size_t k = 0; k < nc; k++)
        if (fabs(C1[k] - C2[k]) > 1e-9 * (1.0 + fabs(C1[k]))) {
            fprintf(stderr, "results differ at %zu: %g vs %g\n", k, C1[k], C2[k]);
            return 1;
        }
    for (int r = 0; r < reps; r++) {
        double s = now();
        FUNC(A, B, C1);
        t1[r] = now() - s;
        s = now();
        tc_execute(p, A, B, C2);
        t2[r] = now() - s;
    }
    qsort(t1, (size_t)reps, sizeof *t1, cmp);
    qsort(t2, (size_t)reps, sizeof *t2, cmp);
    double m1 = t1[reps / 2], m2 = t2[reps / 2];
    printf("%s\t%.6g\t%.6g\t%.4f\n", tc_plan_algorithm(p), m1, m2, m2 / m1);
    tc_plan_destroy(p);
    free(A), free(B), free(C1), free(C2), free(t1), free(t2);
    return 0;
}
