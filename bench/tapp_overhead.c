/*
 * tapp_overhead.c - what TAPP_execute_product adds over tc_execute (issue
 * 35's target: at most 2 %, median over the TCCG suite), side by side in
 * one process (bench/tapp.sh runs it).
 *
 * usage: tapp_overhead SPEC SIZES REPS
 * SPEC is C-A-B with one letter per index ("abc-ai-ibc"), SIZES "a=..,b=..";
 * every tensor dense and column-major, D += A B in place (C is D). The
 * contraction is planned through tcgen.h first, then as a TAPP product,
 * which is the same problem to wisdom and runs the same algorithm. Runs
 * alternate (in turned order each repetition) after one untimed run of
 * each. Then the problem is in wisdom, and TAPP_create_tensor_product (and
 * its destroy) of the same product is timed REPS times: issue 35's
 * planning from wisdom (target: under 1 ms). Prints one TSV row:
 * algorithm, execute_s, tapp_s, ratio, wisdom_plan_s (the medians).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "tapp.h"
#include "tcgen.h"

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

/* The size of index letter c in "a=12,b=7". */
static long size_of(const char *sizes, char c)
{
    for (const char *p = sizes; *p; p++)
        if (*p == c && p[1] == '=' && (p == sizes || p[-1] == ','))
            return atol(p + 2);
    return -1;
}

/* Tensor t's column-major info (letters `idx`) and its element count. */
static long tensor(const char *idx, int n, const char *sizes, TAPP_tensor_info *info,
                   int64_t *labels)
{
    int64_t ext[8], st[8], count = 1;
    for (int k = 0; k < n; k++) {
        ext[k] = size_of(sizes, idx[k]), st[k] = count, labels[k] = idx[k];
        count *= ext[k];
    }
    return TAPP_create_tensor_info(info, TAPP_F64, n, ext, st) ? -1 : (long)count;
}

static TAPP_error create(TAPP_tensor_product *p, const TAPP_tensor_info info[3],
                         int64_t labels[3][8])
{
    return TAPP_create_tensor_product(p, 0, 0, info[1], labels[1], 0, info[2], labels[2], 0,
                                      info[0], labels[0], 0, info[0], labels[0],
                                      TAPP_DEFAULT_PREC);
}

/* The median seconds of creating and destroying the product, found in
 * wisdom, over reps runs; -1 when one fails. */
static double plan_from_wisdom(const TAPP_tensor_info info[3], int64_t labels[3][8], int reps)
{
    double *ts = malloc((size_t)reps * sizeof *ts);
    if (!ts)
        return -1.0;
    for (int r = 0; r < reps; r++) {
        TAPP_tensor_product q;
        double t0 = now();
        if (create(&q, info, labels)) {
            free(ts);
            return -1.0;
        }
        TAPP_destroy_tensor_product(q);
        ts[r] = now() - t0;
    }
    qsort(ts, (size_t)reps, sizeof *ts, cmp);
    double median = ts[reps / 2];
    free(ts);
    return median;
}

int main(int argc, char **argv)
{
    if (argc != 4 || strlen(argv[1]) > 40)
        return fprintf(stderr, "usage: tapp_overhead SPEC SIZES REPS\n"), 2;
    char spec[48], *t[3], text[256];
    int n[3], reps = atoi(argv[3]);
    strcpy(spec, argv[1]);
    t[0] = strtok(spec, "-"), t[1] = strtok(NULL, "-"), t[2] = strtok(NULL, "-");
    if (!t[0] || !t[1] || !t[2] || reps < 1)
        return fprintf(stderr, "tapp_overhead: bad SPEC '%s'\n", argv[1]), 2;
    for (int k = 0; k < 3; k++)
        n[k] = (int)strlen(t[k]);
    int len = snprintf(text, sizeof text, "C[");
    for (int r = 0; r < 3; r++) {
        for (int k = 0; k < n[r]; k++)
            len += snprintf(text + len, sizeof text - (size_t)len, "%s%c", k ? "," : "", t[r][k]);
        len += snprintf(text + len, sizeof text - (size_t)len, "%s",
                        r == 0 ? "] += A[" : r == 1 ? "] * B[" : "]");
    }
    tc_error err;
    tc_plan *plan = tc_plan_create(text, argv[2], TC_ESTIMATE, &err);
    if (!plan)
        return fprintf(stderr, "tapp_overhead: %s: %s\n", text, err.message), 1;
    TAPP_tensor_info info[3];
    int64_t labels[3][8];
    long count[3];
    for (int r = 0; r < 3; r++)
        count[r] = tensor(t[r], n[r], argv[2], &info[r], labels[r]);
    TAPP_tensor_product p;
    if (count[0] < 0 || count[1] < 0 || count[2] < 0 || create(&p, info, labels))
        return fprintf(stderr, "tapp_overhead: the TAPP product of %s failed\n", text), 1;
    double *A = calloc((size_t)count[1], 8), *B = calloc((size_t)count[2], 8),
           *C = calloc((size_t)count[0], 8), *ts = malloc(2 * (size_t)reps * sizeof *ts);
    double one = 1.0;
    if (!A || !B || !C || !ts)
        return 3;
    tc_execute(plan, A, B, C);
    TAPP_execute_product(p, 0, NULL, &one, A, B, &one, C, C);
    for (int r = 0; r < reps; r++)
        for (int k = 0; k < 2; k++) {
            int which = (r + k) % 2;
            double t0 = now();
            if (which == 0)
                tc_execute(plan, A, B, C);
            else
                TAPP_execute_product(p, 0, NULL, &one, A, B, &one, C, C);
            ts[which * reps + r] = now() - t0;
        }
    qsort(ts, (size_t)reps, sizeof *ts, cmp);
    qsort(ts + reps, (size_t)reps, sizeof *ts, cmp);
    double ex = ts[reps / 2], tp = ts[reps + reps / 2];
    double wp = plan_from_wisdom(info, labels, reps);
    if (wp < 0.0)
        return fprintf(stderr, "tapp_overhead: planning %s from wisdom failed\n", text), 1;
    printf("%s\t%.4e\t%.4e\t%.3f\t%.4e\n", tc_plan_algorithm(plan), ex, tp, tp / ex, wp);
    TAPP_destroy_tensor_product(p);
    for (int r = 0; r < 3; r++)
        TAPP_destroy_tensor_info(info[r]);
    tc_plan_destroy(plan);
    free(A), free(B), free(C), free(ts);
    return 0;
}
