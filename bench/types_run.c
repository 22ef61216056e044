/*
 * types_run.c - times the C tcgen emitted for one contraction in one
 * element type (bench/types.sh links it in as FUNC, compiled with
 * -DELEM=float|double|'float complex'|'double complex', -DGEMM=cblas_sgemm
 * ... and -DIS_COMPLEX=0|1)
 * against one gemm of that type doing as many multiply-adds, n x n x n
 * with n the cube root of the contraction's: random inputs, one untimed
 * run of each, then REPS rounds alternating the two; prints the medians
 * (contraction_s, gemm_s) tab-separated.
 *
 * usage: types_run NA NB NC MULADDS REPS   (elements of A, B, C; the
 * contraction's multiply-adds, the product of all its sizes)
 */
#include <cblas.h>
#include <complex.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

int FUNC(const ELEM *A, const ELEM *B, ELEM *C);

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

static ELEM *filled(size_t n)
{
    ELEM *x = malloc((n ? n : 1) * sizeof *x);
    for (size_t k = 0; x && k < n; k++)
        x[k] = (ELEM)((double)rand() / RAND_MAX - 0.5);
    return x;
}

/* One n x n x n gemm of the type: C = A B. */
static void gemm(int n, const ELEM *a, const ELEM *b, ELEM *c)
{
#if IS_COMPLEX
    const ELEM one = 1, zero = 0;
    GEMM(CblasColMajor, CblasNoTrans, CblasNoTrans, n, n, n, &one, a, n, b, n, &zero, c, n);
#else
    GEMM(CblasColMajor, CblasNoTrans, CblasNoTrans, n, n, n, 1, a, n, b, n, 0, c, n);
#endif
}

static double median(double *t, int n)
{
    qsort(t, (size_t)n, sizeof *t, cmp);
    return n % 2 ? t[n / 2] : 0.5 * (t[n / 2 - 1] + t[n / 2]);
}

int main(int argc, char **argv)
{
    if (argc != 6) {
        fprintf(stderr, "usage: %s NA NB NC MULADDS REPS\n", argv[0]);
        return 2;
    }
    size_t na = strtoul(argv[1], NULL, 10), nb = strtoul(argv[2], NULL, 10),
           nc = strtoul(argv[3], NULL, 10);
    int n = (int)lround(cbrt(strtod(argv[4], NULL))), reps = atoi(argv[5]);
    size_t nn = (size_t)n * (size_t)n;
    ELEM *A = filled(na), *B = filled(nb), *C = filled(nc), *ga = filled(nn), *gb = filled(nn),
         *gc = filled(nn);
    double *tf = malloc((size_t)(reps > 0 ? reps : 1) * sizeof *tf),
           *tg = malloc((size_t)(reps > 0 ? reps : 1) * sizeof *tg);
    if (!A || !B || !C || !ga || !gb || !gc || !tf || !tg || reps < 1 || n < 1) {
        fprintf(stderr, "out of memory (or REPS < 1)\n");
        return 3;
    }
    if (FUNC(A, B, C) != 0) {
        fprintf(stderr, "the emitted function failed\n");
        return 1;
    }
    gemm(n, ga, gb, gc);
    for (int r = 0; r < reps; r++) {
        double t0 = now();
        FUNC(A, B, C);
        double t1 = now();
        gemm(n, ga, gb, gc);
        double t2 = now();
        tf[r] = t1 - t0, tg[r] = t2 - t1;
    }
    printf("%.6e\t%.6e\n", median(tf, reps), median(tg, reps));
    return 0;
}
