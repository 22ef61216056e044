/* permute.c - the cache-blocked permutation copy (permute.h). */
#include "runtime/permute.h"

#include <string.h>

#if defined(__SSE2__)
#include <emmintrin.h>
#define PERMUTE_SSE2 1
#else
#define PERMUTE_SSE2 0
#endif

/* Tiles of 8 x 8 doubles: a tile row is one 64-byte line on each side, so
 * every line read or written is used whole. */
#define TILE 16
#define LINE_BYTES 64
#define LINE_DOUBLES (LINE_BYTES / 8)
/* From this many bytes of destination, stores bypass the caches (SSE2
 * streaming stores, beta 0 only): a destination that large is not read
 * again soon, and writing it without first reading each line (the read a
 * plain store costs) saves a third of the traffic. Below it, a copy that
 * stays in cache for the dgemm after it is worth keeping. */
#define STREAM_BYTES ((int64_t)4 << 20)

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

typedef struct job {
    const tc_permute *q;
    int inner;              /* the source's fastest dimension (0: runs, no tiles) */
    int outer[TC_MAX_RANK]; /* the other dimensions, outermost first */
    int nouter;
    double beta;
    int stream;             /* streaming stores (beta 0, a large destination) */
} job;

/* One run along dimension 0 of both views. */
static void run(const job *jb, int64_t n, const double *restrict s, int64_t ss,
                double *restrict d, int64_t ds)
{
    if (jb->beta != 0.0) {
        for (int64_t i = 0; i < n; i++)
            d[i * ds] = s[i * ss] + jb->beta * d[i * ds];
        return;
    }
    if (ss != 1 || ds != 1) {
        for (int64_t i = 0; i < n; i++)
            d[i * ds] = s[i * ss];
        return;
    }
#if PERMUTE_SSE2
    if (jb->stream && ((uintptr_t)d & 7) == 0) {
        int64_t i = 0; /* plain stores up to a line, then whole lines streamed */
        for (; i < n && ((uintptr_t)(d + i) & (LINE_BYTES - 1)); i++)
            d[i] = s[i];
        for (; i + LINE_DOUBLES <= n; i += LINE_DOUBLES)
            for (int k = 0; k < LINE_DOUBLES; k += 2)
                _mm_stream_pd(d + i + k, _mm_loadu_pd(s + i + k));
        for (; i < n; i++)
            d[i] = s[i];
        return;
    }
#endif
    memcpy(d, s, (size_t)n * sizeof *d);
}

/* A whole tile, the source contiguous along j (rows i, stride si) and the
 * destination along i (columns j, stride dj), beta 0: 2 x 2 blocks
 * transposed in registers, each destination line written by four
 * consecutive stores. */
static void tile_full(const job *jb, const double *restrict s, int64_t si, double *restrict d,
                      int64_t dj)
{
#if PERMUTE_SSE2
    /* streamed when every column of the tile is a whole line */
    int stream = jb->stream && ((uintptr_t)d & (LINE_BYTES - 1)) == 0 && dj % LINE_DOUBLES == 0;
    for (int j = 0; j < TILE; j += 2) {
        double *d0 = d + j * dj, *d1 = d0 + dj;
        for (int i = 0; i < TILE; i += 2) {
            __m128d r0 = _mm_loadu_pd(s + i * si + j);       /* s[i][j], s[i][j+1] */
            __m128d r1 = _mm_loadu_pd(s + (i + 1) * si + j); /* s[i+1][j], s[i+1][j+1] */
            __m128d c0 = _mm_unpacklo_pd(r0, r1), c1 = _mm_unpackhi_pd(r0, r1);
            if (stream) {
                _mm_stream_pd(d0 + i, c0);
                _mm_stream_pd(d1 + i, c1);
            } else {
                _mm_storeu_pd(d0 + i, c0);
                _mm_storeu_pd(d1 + i, c1);
            }
        }
    }
#else
    (void)jb;
    for (int j = 0; j < TILE; j++)
        for (int i = 0; i < TILE; i++)
            d[j * dj + i] = s[i * si + j];
#endif
}

/* A tile of ni elements along dimension 0 by nj along the inner one. */
static void tile(const job *jb, int64_t ni, int64_t nj, const double *restrict s, int64_t si,
                 int64_t sj, double *restrict d, int64_t di, int64_t dj)
{
    if (ni == TILE && nj == TILE && sj == 1 && di == 1 && jb->beta == 0.0) {
        tile_full(jb, s, si, d, dj);
        return;
    }
    for (int64_t j = 0; j < nj; j++)
        for (int64_t i = 0; i < ni; i++) {
            double v = s[i * si + j * sj];
            d[i * di + j * dj] = jb->beta == 0.0 ? v : v + jb->beta * d[i * di + j * dj];
        }
}

/* Dimension 0 (the destination's fastest) against the inner one (the
 * source's): tiles with dimension 0 innermost, so each of a tile's eight
 * destination columns is written front to back. */
static void body(const job *jb, const double *s, double *d)
{
    const tc_permute *q = jb->q;
    if (jb->inner == 0) {
        run(jb, q->extent[0], s, q->src_stride[0], d, q->dst_stride[0]);
        return;
    }
    int j = jb->inner;
    int64_t n0 = q->extent[0], nj = q->extent[j];
    int64_t s0 = q->src_stride[0], sj = q->src_stride[j], d0 = q->dst_stride[0],
            dj = q->dst_stride[j];
    /* tiles start on a destination line where the columns share one
     * alignment: a first tile of the rows before it */
    int64_t head = 0;
    if (d0 == 1 && dj % LINE_DOUBLES == 0 && ((uintptr_t)d & 7) == 0)
        head = (int64_t)((LINE_BYTES - ((uintptr_t)d & (LINE_BYTES - 1))) & (LINE_BYTES - 1)) / 8;
    /* a band of rows at a time, along the source's rows: the reads go
     * front to back */
    for (int64_t i0 = 0; i0 < n0;) {
        int64_t mi = i0 == 0 && head > 0 ? head : TILE;
        mi = n0 - i0 < mi ? n0 - i0 : mi;
        for (int64_t j0 = 0; j0 < nj; j0 += TILE) {
            int64_t mj = nj - j0 < TILE ? nj - j0 : TILE;
            tile(jb, mi, mj, s + i0 * s0 + j0 * sj, s0, sj, d + i0 * d0 + j0 * dj, d0, dj);
        }
        i0 += mi;
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
    int64_t elements = 1;
    for (int i = 0; i < p->rank; i++) {
        if (p->extent[i] <= 0)
            return;
        elements *= p->extent[i];
    }
    tc_permute q;
    simplify(p, &q);
    job jb = {&q, 0, {0}, 0, beta, beta == 0.0 && elements * (int64_t)sizeof(double) >= STREAM_BYTES};
    if (q.rank == 0) {
        run(&jb, 1, src, 1, dst, 1);
        return;
    }
    for (int i = 1; i < q.rank; i++) /* the source's unit (smallest) stride */
        if (q.src_stride[i] < q.src_stride[jb.inner])
            jb.inner = i;
    /* the others, largest source stride outermost: the reads go front to
     * back (scattered writes cost less than scattered reads, which wait) */
    for (int i = 1; i < q.rank; i++) {
        if (i == jb.inner)
            continue;
        int k = jb.nouter++;
        while (k > 0 && q.src_stride[jb.outer[k - 1]] < q.src_stride[i]) {
            jb.outer[k] = jb.outer[k - 1];
            k--;
        }
        jb.outer[k] = i;
    }
    loops(&jb, 0, src, dst);
#if PERMUTE_SSE2
    if (jb.stream)
        _mm_sfence(); /* streaming stores are weakly ordered: visible before return */
#endif
}
