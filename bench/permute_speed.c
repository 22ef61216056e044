/*
 * permute_speed.c - the permutation copy (runtime/permute.h) against a
 * plain copy of the same bytes (memcpy) and against the naive gather a
 * loop nest in destination order would do, side by side in one process,
 * on tensors of about 16 MiB: 128 x 128 x 128 doubles; 48 x 864 x 48, the
 * shape of an intensli term's operand permutation (A[c,b,k,a] to
 * [a,b,k,c], b and k fused, 48 x 1920 x 48 there): two short unit-stride
 * dimensions whose rows lie a multiple of 4 KiB apart; 38^4, with every
 * permutation of its 4 indices; 11^6, with its reversal and 15 more of
 * its 720 permutations drawn with a fixed seed; and 16 x 8 x 8 x 16 x 8 x
 * 8, the shape of a CCSD(T) term's C (abcijk, a and i twice the others),
 * with the same 16 permutations.
 *
 * usage: permute_speed REPS
 * For each shape, each permutation run and each kind
 * of destination, runs alternate (memcpy, tc_rt_permute, naive) after one
 * untimed run of each, every run from memory: source and destination are
 * flushed from the caches before it, so that each starts from the same
 * state (timed one after the other, the permutation ran after memcpy had
 * left part of both tensors in L3, and its figure depended on what the
 * run before memcpy had left there); prints one TSV row per permutation
 * and destination: the permutation (with the shape), the medians, and the
 * permutation's bandwidth as a fraction of memcpy's (the target is at
 * least 0.6). Then the source side alone (read_bound): '#' lines. The
 * destinations: a tcgen temporary (tc_rt_alloc, as the executor and the
 * emitted C allocate them: 2 MiB aligned, on transparent huge pages),
 * which input permutations write from a caller's malloc'd tensor, and a
 * plain malloc'd block, as a caller's C that an output permutation
 * writes back into may be, from the product's temporary (tc_rt_alloc), as
 * the executor and the emitted C do.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench/bench_clock.h"
#include "runtime/memory.h"
#include "runtime/permute.h"

/* The shapes, about 16 MiB each (rank, extents): every permutation of
 * the 3- and 4-index ones is run, a sample of the 6-index ones'. */
typedef struct shape {
    int rank;
    int64_t extent[6];
} shape;
static const shape shapes[] = {
    {3, {128, 128, 128}}, {3, {48, 864, 48}}, {4, {38, 38, 38, 38}}, {6, {11, 11, 11, 11, 11, 11}},
    {6, {16, 8, 8, 16, 8, 8}}};
#define SAMPLE_6 16 /* permutations of the 6-index shape: the reversal and 15 drawn */

/* dst = src element by element, in the source's order (an odometer over
 * the view's dimensions, the first fastest). */
static void naive(const tc_permute *p, const double *src, double *dst)
{
    int64_t ix[TC_MAX_RANK] = {0}, n = 1, so = 0, dof = 0;
    for (int d = 0; d < p->rank; d++)
        n *= p->extent[d];
    for (int64_t k = 0; k < n; k++) {
        dst[dof] = src[so];
        for (int d = 0; d < p->rank; d++) {
            so += p->src_stride[d], dof += p->dst_stride[d];
            if (++ix[d] < p->extent[d])
                break;
            so -= ix[d] * p->src_stride[d], dof -= ix[d] * p->dst_stride[d];
            ix[d] = 0;
        }
    }
}

/* The q-th permutation of rank r in lexicographic order into perm. */
static void nth_permutation(int r, long q, int *perm)
{
    int used[6] = {0};
    long f = 1;
    for (int k = 2; k < r; k++)
        f *= k;
    for (int k = 0; k < r; k++) {
        long pick = f ? q / f : 0;
        q = f ? q % f : 0;
        for (int d = 0; d < r; d++)
            if (!used[d] && pick-- == 0) {
                perm[k] = d;
                used[d] = 1;
                break;
            }
        f = r - k - 1 > 1 ? f / (r - k - 1) : 1;
    }
}

/* The permutations a shape is run with: all of them up to rank 4, for rank 6
 * the reversal and SAMPLE_6 - 1 drawn (a fixed seed); returns how many. */
static int permutations(int r, int perm[][6], int max)
{
    long total = 1;
    for (int k = 2; k <= r; k++)
        total *= k;
    if (r <= 4) {
        for (long q = 0; q < total && q < max; q++)
            nth_permutation(r, q, perm[q]);
        return (int)(total < max ? total : max);
    }
    uint64_t state = 12345;
    nth_permutation(r, total - 1, perm[0]);
    for (int k = 1; k < SAMPLE_6 && k < max; k++) {
        state = state * 6364136223846793005ull + 1442695040888963407ull;
        nth_permutation(r, (long)((state >> 33) % (uint64_t)total), perm[k]);
    }
    return SAMPLE_6 < max ? SAMPLE_6 : max;
}

/* One permutation of shape e into dst (kind 0: a tcgen temporary, 1: a
 * malloc'd block), reps alternating runs of memcpy, the kernel and the
 * naive copy, each from memory; prints its row. Destination dimension d is
 * source dimension perm[d]. */
static void run(const shape *e, const int *perm, int kind, const double *src, double *dst,
                int reps, double *t)
{
    tc_permute p = {.rank = e->rank};
    size_t n = 1;
    for (int d = 0; d < e->rank; d++) {
        p.extent[d] = e->extent[d];
        p.src_stride[d] = (int64_t)n;
        n *= (size_t)e->extent[d];
    }
    int64_t s = 1;
    for (int d = 0; d < e->rank; d++)
        p.dst_stride[perm[d]] = s, s *= e->extent[perm[d]];
    memcpy(dst, src, n * sizeof *dst);
    tc_rt_permute(&p, TC_TYPE_D, src, dst, 0.0, 0, 1);
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
        tc_rt_permute(&p, TC_TYPE_D, src, dst, 0.0, 0, 1);
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
    char name[64];
    int len = 0;
    for (int d = 0; d < e->rank; d++)
        len += snprintf(name + len, sizeof name - (size_t)len, "%d", perm[d]);
    for (int d = 0; d < e->rank; d++)
        len += snprintf(name + len, sizeof name - (size_t)len, "%s%lld", d ? "x" : " ",
                        (long long)e->extent[d]);
    printf("%s\t%s\t%zu\t%.4e\t%.4e\t%.4e\t%.2f\n", name,
           kind == 0 ? "temporary" : "malloc", n * sizeof *dst, mc, pe, na, mc / pe);
}

/* Segment k of `count` = base^digits ones in the order read_segments
 * visits them: k's base-`base` digits reversed (the last segment index
 * fastest), as a transpose reads its source's runs. */
static size_t reversed(size_t k, size_t base, int digits)
{
    size_t r = 0;
    for (int d = 0; d < digits; d++, k /= base)
        r = r * base + k % base;
    return r;
}

/* The source side alone: a tensor of base^rank doubles at p read in runs
 * of base^run_rank (its first dimensions), the runs taken with the other
 * dimensions' order reversed, the last one fastest (so consecutive runs
 * lie far apart, as a transpose reads them; run_rank == rank: one
 * sequential read), `group` consecutive runs at once, a line of each in
 * turn (as a transpose reading a band of rows). Returns seconds (the sum
 * goes to *sink, so the reads stay). */
static double read_segments(const double *p, size_t base, int rank, int run_rank, size_t group,
                            double *sink)
{
    enum { MOST = 64 };
    size_t len = 1, count = 1;
    for (int d = 0; d < rank; d++)
        *(d < run_rank ? &len : &count) *= base;
    group = group < MOST ? group : MOST;
    double acc[4] = {0.0, 0.0, 0.0, 0.0}; /* four chains of adds: they keep up with memory */
#if defined(__SSE2__)
    __m128d vacc[4] = {_mm_setzero_pd(), _mm_setzero_pd(), _mm_setzero_pd(), _mm_setzero_pd()};
#endif
    int v = 0;
    double t0 = now();
    for (size_t k = 0; k < count; k += group) {
        const double *seg[MOST];
        size_t g = count - k < group ? count - k : group;
        for (size_t r = 0; r < g; r++)
            seg[r] = p + reversed(k + r, base, rank - run_rank) * len;
        for (size_t i = 0; i < len; i += 8)
            for (size_t r = 0; r < g; r++) {
                size_t j = i;
#if defined(__SSE2__)
                for (; j + 2 <= i + 8 && j + 2 <= len; j += 2, v = (v + 1) & 3)
                    vacc[v] = _mm_add_pd(vacc[v], _mm_loadu_pd(seg[r] + j));
#endif
                for (; j < i + 8 && j < len; j++)
                    acc[j & 3] += seg[r][j];
            }
    }
    double t = now() - t0;
#if defined(__SSE2__)
    for (v = 0; v < 4; v++) {
        double two[2];
        _mm_storeu_pd(two, vacc[v]);
        acc[v] += two[0] + two[1];
    }
#endif
    *sink += acc[0] + acc[1] + acc[2] + acc[3];
    return t;
}

/* How fast the source of a permutation can be read at all, whatever is
 * done with it: the 11^6 and 38^4 tensors read in runs of their first
 * 1, 2, 3 or 4 dimensions (88 bytes to 114 KiB; 304 bytes and 11 KiB)
 * taken far apart (read_segments), one run at a time and 8 at once, as a
 * fraction of one sequential read of the same tensor (medians of reps,
 * each from memory). Printed as '#' lines after the table. */
static void read_bound(const double *src, int reps, double *t)
{
    static const struct {
        size_t base;
        int rank, run_rank;
    } runs[] = {{11, 6, 1}, {11, 6, 2}, {11, 6, 3}, {11, 6, 4}, {38, 4, 1}, {38, 4, 2}};
    double sink = 0.0;
    for (size_t q = 0; q < sizeof runs / sizeof runs[0]; q++) {
        size_t base = runs[q].base, n = 1, len = 1;
        int rank = runs[q].rank, rr = runs[q].run_rank;
        for (int d = 0; d < rank; d++)
            n *= base, len *= d < rr ? base : 1;
        for (int r = 0; r < reps; r++) {
            flush(src, n);
            t[r] = read_segments(src, base, rank, rank, 1, &sink);
            flush(src, n);
            t[reps + r] = read_segments(src, base, rank, rr, 1, &sink);
            flush(src, n);
            t[2 * reps + r] = read_segments(src, base, rank, rr, 8, &sink);
        }
        for (int k = 0; k < 3; k++)
            qsort(t + k * reps, (size_t)reps, sizeof *t, cmp);
        double seq = t[reps / 2];
        printf("# read: %zu^%d in runs of %zu doubles (%zu bytes) taken far apart: %.2f of a "
               "sequential read one run at a time, %.2f 8 runs at once\n",
               base, rank, len, len * sizeof *src, seq / t[reps + reps / 2],
               seq / t[2 * reps + reps / 2]);
    }
    if (sink == 1.0) /* never: keeps the sums */
        printf("#\n");
}

int main(int argc, char **argv)
{
    int reps = argc > 1 ? atoi(argv[1]) : 21;
    if (reps < 1) {
        fprintf(stderr, "usage: %s REPS\n", argv[0]);
        return 2;
    }
    size_t n = 128 * 128 * 128; /* the largest of the shapes */
    tc_error err;
    /* an input permutation: a caller's tensor into a temporary; an output
     * one: the product's temporary into a caller's C */
    double *src = malloc(n * sizeof *src), *temporary = tc_rt_alloc((int64_t)n, &err),
           *product = tc_rt_alloc((int64_t)n, &err), *plain = malloc(n * sizeof *plain);
    double *t = malloc(3 * (size_t)reps * sizeof *t);
    if (!src || !temporary || !product || !plain || !t)
        return 3;
    for (size_t i = 0; i < n; i++)
        src[i] = product[i] = (double)i;
    memset(temporary, 0, n * sizeof *temporary);
    memset(plain, 0, n * sizeof *plain);
    printf("permutation\tdestination\tbytes\tmemcpy_s\tpermute_s\tnaive_s\tpermute_vs_memcpy\n");
    for (size_t sh = 0; sh < sizeof shapes / sizeof shapes[0]; sh++) {
        int perm[24][6];
        const shape *e = &shapes[sh];
        int np = permutations(e->rank, perm, 24);
        for (int kind = 0; kind < 2; kind++)
            for (int q = 0; q < np; q++)
                run(e, perm[q], kind, kind == 0 ? src : product, kind == 0 ? temporary : plain,
                    reps, t);
    }
    read_bound(src, reps, t);
    free(src);
    tc_rt_free(temporary);
    tc_rt_free(product);
    free(plain);
    free(t);
    return 0;
}
