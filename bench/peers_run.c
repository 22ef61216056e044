/*
 * peers_run.c - times the C that tcgen emitted for one contraction
 * (bench/peers.sh links it in as FUNC), or the hand-written transpose +
 * dgemm of bench/peers_ttgt.py: random inputs, one untimed run, then REPS
 * timed runs; prints the median in seconds, then a weighted sum of C and
 * the same sum of |C| (tab-separated), so that peers.sh can check that
 * every candidate computed the same C. With LIMIT (seconds, above 0) a
 * candidate too slow to matter is cut short: when its first timed run
 * takes longer than LIMIT it prints that time and "out" instead; the
 * untimed run, which also faults its temporaries in, is stopped after
 * 3 LIMIT + 0.25 s (printing that bound and "out"). The tensors are
 * allocated as numpy allocates its arrays: large ones advised onto
 * transparent huge pages (numpy >= 1.22 does so on Linux), so both sides
 * of the comparison work on the same kind of memory.
 *
 * usage: peers_run NA NB NC REPS [LIMIT]   (elements of A, B, C)
 */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/time.h>
#include <time.h>
#include <unistd.h>

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

/* what the timer's handler writes when the untimed run overruns */
static char overrun[64];

static void stop(int sig)
{
    (void)sig;
    ssize_t w = write(STDOUT_FILENO, overrun, strlen(overrun));
    (void)w;
    _exit(0);
}

static int cmp(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

int main(int argc, char **argv)
{
    if (argc != 5 && argc != 6) {
        fprintf(stderr, "usage: %s NA NB NC REPS [LIMIT]\n", argv[0]);
        return 2;
    }
    size_t na = strtoul(argv[1], NULL, 10), nb = strtoul(argv[2], NULL, 10),
           nc = strtoul(argv[3], NULL, 10);
    int reps = atoi(argv[4]);
    double limit = argc == 6 ? strtod(argv[5], NULL) : 0.0;
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
    if (limit > 0) {
        struct itimerval it = {{0, 0}, {0, 0}};
        double at = 3 * limit + 0.25;
        it.it_value.tv_sec = (time_t)at;
        it.it_value.tv_usec = (suseconds_t)(1e6 * (at - (double)(time_t)at));
        if (it.it_value.tv_sec == 0 && it.it_value.tv_usec == 0)
            it.it_value.tv_usec = 1;
        snprintf(overrun, sizeof overrun, "%.6e\tout\n", at);
        signal(SIGALRM, stop);
        setitimer(ITIMER_REAL, &it, NULL);
    }
    if (FUNC(A, B, C) != 0) {
        fprintf(stderr, "the emitted function failed\n");
        return 1;
    }
    if (limit > 0) {
        struct itimerval off = {{0, 0}, {0, 0}};
        setitimer(ITIMER_REAL, &off, NULL);
    }
    for (int r = 0; r < reps; r++) {
        double s = now();
        FUNC(A, B, C);
        t[r] = now() - s;
        if (r == 0 && limit > 0 && t[0] > limit) {
            printf("%.6e\tout\n", t[0]);
            return 0;
        }
    }
    qsort(t, (size_t)reps, sizeof *t, cmp);
    /* weights that differ from element to element, so that a C permuted
     * wrongly sums differently */
    double sum = 0.0, abs_sum = 0.0;
    for (size_t k = 0; k < nc; k++) {
        double w = 0.5 + (double)((k * 2654435761u) % 1000u) / 1000.0;
        sum += w * C[k];
        abs_sum += w * (C[k] < 0 ? -C[k] : C[k]);
    }
    printf("%.6e\t%.17g\t%.17g\n", t[reps / 2], sum, abs_sum);
    free(A);
    free(B);
    free(C);
    free(t);
    return 0;
}
