/* permute.c - the cache-blocked permutation copy (permute.h). */
#include "runtime/permute.h"

#include <string.h>

/* 32 x 32 doubles: a tile of the source and one of the destination take
 * 16 KiB together, within any L1 data cache, and each tile row is four
 * 64-byte lines. */
#define PERMUTE_TILE 32
/* Tiles are visited in blocks of 256 x 256 elements, so the pages one
 * block touches stay within the TLB. */
#define PERMUTE_BLOCK 256

/* The view with extent-1 dimensions dropped, ordered by destination stride
 * (dimension 0 is the destination's fastest), contiguous neighbours fused. */
static void simplify(const tc_permute *p, tc_permute *q)
{
    q->rank = 0;
    for (int i = 0; i < p->rank; i++) {
        if (p->extent[i] == 1)
            continue;
        int k = q->rank++;
        while (k > 0 && q->dst_stride[k - 1] > p->dst_stride[i]) { /* insertion sort */
            q->extent[k] = q->extent[k - 1];
            q->src_stride[k] = q->src_stride[k - 1];
            q->dst_stride[k] = q->dst_stride[k - 1];
            k--;
        }
        q->extent[k] = p->extent[i];
        q->src_stride[k] = p->src_stride[i];
        q->dst_stride[k] = p->dst_stride[i];
    }
    int r = 0;
    for (int i = 1; i < q->rank; i++) {
        if (q->src_stride[i] == q->src_stride[r] * q->extent[r] &&
            q->dst_stride[i] == q->dst_stride[r] * q->extent[r]) {
            q->extent[r] *= q->extent[i];
        } else {
            r++;
            q->extent[r] = q->extent[i];
            q->src_stride[r] = q->src_stride[i];
            q->dst_stride[r] = q->dst_stride[i];
        }
    }
    if (q->rank > 0)
        q->rank = r + 1;
}

/* One run along dimension 0 of both views. */
static void run(int64_t n, const double *restrict s, int64_t ss, double *restrict d, int64_t ds,
                double beta)
{
    if (beta == 0.0) {
        if (ss == 1 && ds == 1)
            memcpy(d, s, (size_t)n * sizeof *d);
        else
            for (int64_t i = 0; i < n; i++)
                d[i * ds] = s[i * ss];
    } else {
        for (int64_t i = 0; i < n; i++)
            d[i * ds] = s[i * ss] + beta * d[i * ds];
    }
}

/* A whole tile with unit stride along j in src and along i in dst (the
 * common case, with constant bounds the compiler unrolls): rows read whole
 * into a transposed buffer in L1, then written out column by column, so
 * that both sides move whole lines in order (measured 1.5x faster on
 * 16 MiB than transposing in place). */
static void full_tile(const double *restrict s, int64_t si, double *restrict d, int64_t dj,
                      double beta)
{
    double buf[PERMUTE_TILE * PERMUTE_TILE];
    for (int i = 0; i < PERMUTE_TILE; i++)
        for (int j = 0; j < PERMUTE_TILE; j++)
            buf[j * PERMUTE_TILE + i] = s[i * si + j];
    for (int j = 0; j < PERMUTE_TILE; j++) {
        double *restrict dc = d + j * dj;
        const double *bc = buf + j * PERMUTE_TILE;
        if (beta == 0.0)
            for (int i = 0; i < PERMUTE_TILE; i++)
                dc[i] = bc[i];
        else
            for (int i = 0; i < PERMUTE_TILE; i++)
                dc[i] = bc[i] + beta * dc[i];
    }
}

/* A tile: ni elements of dimension 0 (unit stride in dst) by nj of
 * dimension j (unit stride in src). Rows are read contiguously and
 * written across the tile, which stays in L1 until its lines are full. */
static void tile(int64_t ni, int64_t nj, const double *restrict s, int64_t si, int64_t sj,
                 double *restrict d, int64_t di, int64_t dj, double beta)
{
    if (sj == 1 && di == 1 && ni == PERMUTE_TILE && nj == PERMUTE_TILE) {
        full_tile(s, si, d, dj, beta);
        return;
    }
    if (beta == 0.0) {
        for (int64_t i = 0; i < ni; i++)
            for (int64_t j = 0; j < nj; j++)
                d[i * di + j * dj] = s[i * si + j * sj];
    } else {
        for (int64_t i = 0; i < ni; i++)
            for (int64_t j = 0; j < nj; j++)
                d[i * di + j * dj] = s[i * si + j * sj] + beta * d[i * di + j * dj];
    }
}

typedef struct job {
    const tc_permute *q;
    int inner;              /* the source's fastest dimension (0: no tiling) */
    int outer[TC_MAX_RANK]; /* the other dimensions, outermost first */
    int nouter;
    double beta;
} job;

static void body(const job *jb, const double *s, double *d)
{
    const tc_permute *q = jb->q;
    if (jb->inner == 0) {
        run(q->extent[0], s, q->src_stride[0], d, q->dst_stride[0], jb->beta);
        return;
    }
    int j = jb->inner;
    const int64_t ti = PERMUTE_TILE, tj = PERMUTE_TILE;
    int64_t n0 = q->extent[0], nj = q->extent[j];
    for (int64_t J = 0; J < nj; J += PERMUTE_BLOCK)
        for (int64_t I = 0; I < n0; I += PERMUTE_BLOCK)
            for (int64_t j0 = J; j0 < nj && j0 < J + PERMUTE_BLOCK; j0 += tj) {
                int64_t mj = nj - j0 < tj ? nj - j0 : tj;
                for (int64_t i0 = I; i0 < n0 && i0 < I + PERMUTE_BLOCK; i0 += ti) {
                    int64_t mi = n0 - i0 < ti ? n0 - i0 : ti;
                    tile(mi, mj, s + i0 * q->src_stride[0] + j0 * q->src_stride[j],
                         q->src_stride[0], q->src_stride[j],
                         d + i0 * q->dst_stride[0] + j0 * q->dst_stride[j], q->dst_stride[0],
                         q->dst_stride[j], jb->beta);
                }
            }
}

static void loops(const job *jb, int level, const double *s, double *d)
{
    if (level == jb->nouter) {
        body(jb, s, d);
        return;
    }
    int k = jb->outer[level];
    for (int64_t x = 0; x < jb->q->extent[k]; x++)
        loops(jb, level + 1, s + x * jb->q->src_stride[k], d + x * jb->q->dst_stride[k]);
}

void tc_rt_permute(const tc_permute *p, const double *src, double *dst, double beta)
{
    for (int i = 0; i < p->rank; i++)
        if (p->extent[i] <= 0)
            return;
    tc_permute q;
    simplify(p, &q);
    if (q.rank == 0) {
        run(1, src, 1, dst, 1, beta);
        return;
    }
    job jb = {&q, 0, {0}, 0, beta};
    for (int i = 1; i < q.rank; i++) /* the source's unit (smallest) stride */
        if (q.src_stride[i] < q.src_stride[jb.inner])
            jb.inner = i;
    for (int i = q.rank - 1; i > 0; i--) /* largest destination stride outermost */
        if (i != jb.inner)
            jb.outer[jb.nouter++] = i;
    loops(&jb, 0, src, dst);
}
