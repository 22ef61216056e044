/*
 * peers_run.c - times the C that tcgen emitted for one contraction
 * (bench/peers.sh links it in as FUNC): random inputs, one untimed run,
 * then REPS timed runs; prints the median in seconds. The tensors are
 * allocated as numpy allocates its arrays: large ones advised onto
 * transparent huge pages (numpy >= 1.22 does so on Linux), so both sides
 * of the comparison work on the same kind of memory.
 *
 * usage: peers_run NA NB NC REPS   (elements of A, B, C)
 */
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <time.h>

int FUNC(const double *A, const double *B, double *C);

static double now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

/* n doubles, 2 MiB aligned and advised onto huge pages from 4 MiB. */
static double *tensor(size_t n)
{
    size_t bytes = (n ? n : 1) * sizeof(double), huge = (size_t)2 << 20;
    void *p = NULL;
    if (posix_memalign(&p, huge, (bytes + huge - 1) / huge * huge) != 0)
        return NULL;
    if (bytes >= 2 * huge)
        madvise(p, (bytes + huge - 1) / huge * huge, MADV_HUGEPAGE);
    return p;
}

static int cmp(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

int main(int argc, char **argv)
{
    if (argc != 5) {
        fprintf(stderr, "usage: %s NA NB NC REPS\n", argv[0]);
        return 2;
    }
    size_t na = strtoul(argv[1], NULL, 10), nb = strtoul(argv[2], NULL, 10),
           nc = strtoul(argv[3], NULL, 10);
    int reps = atoi(argv[4]);
    double *A = tensor(na), *B = tensor(nb), *C = tensor(nc);
    double *t = malloc((size_t)(reps > 0 ? reps : 1) * sizeof *t);
    if (!A || !B || !C || !t || reps < 1) {
        fprintf(stderr, "out of memory (or REPS < 1)\n");
        return 3;
    }
    srand(1);
    for (size_t k = 0; k < na; k++)
        A[k] = (double)rand() / RAND_MAX - 0.5;
    for (size_t k = 0; k < nb; k++)
        B[k] = (double)rand() / RAND_MAX - 0.5;
    for (size_t k = 0; k < nc; k++)
        C[k] = 0.0;
    if (FUNC(A, B, C) != 0) {
        fprintf(stderr, "the emitted function failed\n");
        return 1;
    }
    for (int r = 0; r < reps; r++) {
        double s = now();
        FUNC(A, B, C);
        t[r] = now() - s;
    }
    qsort(t, (size_t)reps, sizeof *t, cmp);
    printf("%.6e\n", t[reps / 2]);
    free(A);
    free(B);
    free(C);
    free(t);
    return 0;
}
