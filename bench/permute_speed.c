/*
 * permute_speed.c - the permutation copy (runtime/permute.h) against a
 * plain copy of the same bytes (memcpy) and against the naive gather a
 * loop nest in destination order would do, side by side in one process,
 * on two tensors of about 16 MiB: 128 x 128 x 128 doubles, and 48 x 864 x
 * 48, the shape of an intensli term's operand permutation (A[c,b,k,a] to
 * [a,b,k,c], b and k fused, 48 x 1920 x 48 there): two short unit-stride
 * dimensions whose rows lie a multiple of 4 KiB apart.
 *
 * usage: permute_speed REPS
 * For each shape, each permutation of the three dimensions and each kind
 * of destination, runs alternate (memcpy, tc_rt_permute, naive) after one
 * untimed run of each, every run from memory: source and destination are
 * flushed from the caches before it, so that each starts from the same
 * state (timed one after the other, the permutation ran after memcpy had
 * left part of both tensors in L3, and its figure depended on what the
 * run before memcpy had left there); prints one TSV row per permutation
 * and destination: the permutation (with the shape), the medians, and the
 * permutation's bandwidth as a fraction of memcpy's (the target is at
 * least 0.6). The
 * destinations: a tcgen temporary (tc_rt_alloc, as the executor and the
 * emitted C allocate them: 2 MiB aligned, on transparent huge pages),
 * which input permutations write, and a plain malloc'd block, as a
 * caller's C that an output permutation writes back into may be. The
 * source is malloc'd.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "runtime/memory.h"
#include "runtime/permute.h"

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

static const int64_t shapes[2][3] = {{128, 128, 128}, {48, 864, 48}};

static double now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

/* n doubles at p out of every cache level (a no-op without SSE2). */
static void flush(const double *p, size_t n)
{
#if defined(__SSE2__)
    for (size_t i = 0; i < n; i += 8)
        _mm_clflush(p + i);
    _mm_mfence();
#else
    (void)p, (void)n;
#endif
}

static int cmp(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* dst[perm-ordered column-major] = src[column-major], element by element. */
static void naive(const tc_permute *p, const double *src, double *dst)
{
    for (int64_t k = 0; k < p->extent[2]; k++)
        for (int64_t j = 0; j < p->extent[1]; j++)
            for (int64_t i = 0; i < p->extent[0]; i++)
                dst[i * p->dst_stride[0] + j * p->dst_stride[1] + k * p->dst_stride[2]] =
                    src[i * p->src_stride[0] + j * p->src_stride[1] + k * p->src_stride[2]];
}

int main(int argc, char **argv)
{
    int reps = argc > 1 ? atoi(argv[1]) : 21;
    if (reps < 1) {
        fprintf(stderr, "usage: %s REPS\n", argv[0]);
        return 2;
    }
    size_t n = 128 * 128 * 128; /* the larger of the shapes */
    tc_error err;
    double *src = malloc(n * sizeof *src), *temporary = tc_rt_alloc((int64_t)n, &err),
           *plain = malloc(n * sizeof *plain);
    double *t = malloc(3 * (size_t)reps * sizeof *t);
    if (!src || !temporary || !plain || !t)
        return 3;
    for (size_t i = 0; i < n; i++)
        src[i] = (double)i;
    memset(temporary, 0, n * sizeof *temporary);
    memset(plain, 0, n * sizeof *plain);
    static const int perms[6][3] = {{0, 1, 2}, {0, 2, 1}, {1, 0, 2},
                                    {1, 2, 0}, {2, 0, 1}, {2, 1, 0}};
    printf("permutation\tdestination\tbytes\tmemcpy_s\tpermute_s\tnaive_s\tpermute_vs_memcpy\n");
    for (int sh = 0; sh < 2; sh++)
    for (int kind = 0; kind < 2; kind++)
    for (int q = 0; q < 6; q++) {
        double *dst = kind == 0 ? temporary : plain;
        const int64_t *e = shapes[sh];
        n = (size_t)(e[0] * e[1] * e[2]);
        /* destination dimension d is source dimension perms[q][d] */
        tc_permute p = {.rank = 3, .extent = {e[0], e[1], e[2]},
                        .src_stride = {1, e[0], e[0] * e[1]}};
        int64_t s = 1;
        for (int d = 0; d < 3; d++)
            p.dst_stride[perms[q][d]] = s, s *= e[perms[q][d]];
        memcpy(dst, src, n * sizeof *dst);
        tc_rt_permute(&p, src, dst, 0.0, 0, 1);
        naive(&p, src, dst);
        for (int r = 0; r < reps; r++) {
            double t0, t1;
            flush(src, n), flush(dst, n);
            t0 = now();
            memcpy(dst, src, n * sizeof *dst);
            t1 = now();
            t[r] = t1 - t0;
            flush(src, n), flush(dst, n);
            t0 = now();
            tc_rt_permute(&p, src, dst, 0.0, 0, 1);
            t1 = now();
            t[reps + r] = t1 - t0;
            flush(src, n), flush(dst, n);
            t0 = now();
            naive(&p, src, dst);
            t1 = now();
            t[2 * reps + r] = t1 - t0;
        }
        for (int k = 0; k < 3; k++)
            qsort(t + k * reps, (size_t)reps, sizeof *t, cmp);
        double mc = t[reps / 2], pe = t[reps + reps / 2], na = t[2 * reps + reps / 2];
        printf("%d%d%d %lldx%lldx%lld\t%s\t%zu\t%.4e\t%.4e\t%.4e\t%.2f\n", perms[q][0],
               perms[q][1], perms[q][2], (long long)e[0], (long long)e[1], (long long)e[2],
               kind == 0 ? "temporary" : "malloc", n * sizeof *dst, mc, pe, na, mc / pe);
    }
    free(src);
    tc_rt_free(temporary);
    free(plain);
    free(t);
    return 0;
}
