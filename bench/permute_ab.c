/*
 * permute_ab.c - two versions of the permutation kernel side by side in one
 * process (bench/permute_ab.sh): the one at a git revision ("old", linked in
 * as permute_ab_old) and the working tree's ("new", permute_ab_new), each
 * compiled from its own copy of runtime/permute_kernel.inc. A change to the
 * kernel moves its figures by less than the host moves them from one run to
 * the next (0.2 of memcpy between runs of bench/permute_speed.sh), so the
 * two are timed alternately, with memcpy of the same bytes, every run from
 * memory (both tensors flushed first).
 *
 * usage: permute_ab PERM E0 E1 ... [REPS]
 * PERM: destination dimension d is source dimension PERM[d] (digits), a
 * column-major source of extents E0, E1, ...; prints one TSV row: the
 * permutation and shape, memcpy's median time, and each version's
 * bandwidth as a fraction of memcpy's (medians of REPS, default 15).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench/bench_clock.h"
#include "runtime/memory.h"

void permute_ab_old(int rank, const long *extent, const double *src, const long *from,
                    double *dst, const long *to, long written);
void permute_ab_new(int rank, const long *extent, const double *src, const long *from,
                    double *dst, const long *to, long written);

#define MAX_REPS 101

int main(int argc, char **argv)
{
    int rank = argc > 1 ? (int)strlen(argv[1]) : 0, reps = 15;
    long extent[9], from[9], to[9], n = 1, stride = 1;
    if (rank < 1 || rank > 8 || argc < rank + 2) {
        fprintf(stderr, "usage: permute_ab PERM E0 E1 ... [REPS]\n");
        return 2;
    }
    if (argc > rank + 2)
        reps = atoi(argv[rank + 2]);
    if (reps < 1 || reps > MAX_REPS) {
        fprintf(stderr, "permute_ab: REPS must be 1 to %d\n", MAX_REPS);
        return 2;
    }
    for (int i = 0; i < rank; i++) {
        extent[i] = atol(argv[2 + i]);
        if (extent[i] < 1 || extent[i] > (1L << 30) / n) {
            fprintf(stderr, "permute_ab: extent %d out of range\n", i);
            return 2;
        }
        from[i] = n;
        n *= extent[i];
    }
    for (int d = 0; d < rank; d++) { /* the destination, column-major in PERM's order */
        int k = argv[1][d] - '0';
        if (k < 0 || k >= rank) {
            fprintf(stderr, "permute_ab: %s is not a permutation of 0..%d\n", argv[1], rank - 1);
            return 2;
        }
        to[k] = stride;
        stride *= extent[k];
    }
    tc_error err;
    double *src = tc_rt_alloc(n, &err), *dst = tc_rt_alloc(n, &err), *want = tc_rt_alloc(n, &err);
    if (!src || !dst || !want) {
        fprintf(stderr, "permute_ab: out of memory\n");
        return 1;
    }
    for (long i = 0; i < n; i++)
        src[i] = (double)i;
    permute_ab_old(rank, extent, src, from, want, to, n);
    permute_ab_new(rank, extent, src, from, dst, to, n);
    if (memcmp(dst, want, (size_t)n * sizeof *dst) != 0) {
        fprintf(stderr, "permute_ab: %s: the two versions differ\n", argv[1]);
        return 1;
    }
    static double t[3][MAX_REPS];
    for (int r = 0; r < reps; r++) {
        flush(src, (size_t)n), flush(dst, (size_t)n);
        double t0 = now();
        memcpy(dst, src, (size_t)n * sizeof *dst);
        t[0][r] = now() - t0;
        flush(src, (size_t)n), flush(dst, (size_t)n);
        t0 = now();
        permute_ab_old(rank, extent, src, from, dst, to, n);
        t[1][r] = now() - t0;
        flush(src, (size_t)n), flush(dst, (size_t)n);
        t0 = now();
        permute_ab_new(rank, extent, src, from, dst, to, n);
        t[2][r] = now() - t0;
    }
    for (int k = 0; k < 3; k++)
        qsort(t[k], (size_t)reps, sizeof t[k][0], cmp);
    printf("%s", argv[1]);
    for (int i = 0; i < rank; i++)
        printf("%c%ld", i ? 'x' : ' ', extent[i]);
    printf("\t%.4e\t%.3f\t%.3f\n", t[0][reps / 2], t[0][reps / 2] / t[1][reps / 2],
           t[0][reps / 2] / t[2][reps / 2]);
    tc_rt_free(src), tc_rt_free(dst), tc_rt_free(want);
    return 0;
}
