/*
 * xray.c - an X-Ray-style measurement of the cache hierarchy
 * (docs/design.md §3): pointer chasing through buffers chained in
 * pseudo-random order, so that stride prefetchers find nothing to follow
 * and every access waits for the one before.
 *
 * Line size (x86): a chain of nodes at offset d in 32 blocks, one block per
 * page, visited in random order, is loaded into L1; then the first byte of
 * every block is flushed (clflush, as in Whaley & Castaldo's OneCallFlushX86)
 * and the chain is timed. While d is below the line size each node shares a
 * line with its block's first byte and misses; from d = line on it hits.
 * The line size is the smallest d in 8..256 whose chase costs nearer the
 * unflushed chase than the flushed one. (The cost of two dependent
 * accesses at distance d, X-Ray's delta idea, is blurred by adjacent-line and
 * region prefetchers; flushing is not.) Elsewhere the line size is 0.
 *
 * Capacities: the latency of one access in a random cyclic chain over a
 * working set of W bytes (one node per 64 B, or per 32 B when that is the
 * line size, so every line of the set is used), for W from 4 KiB to
 * max_bytes at 1, 1.25, 1.5 and 1.75 times each power of two. The chain
 * is warmed by one full traversal and timed in three rounds of 32768 hops,
 * each going on where the last stopped (minimum kept).
 * Each point becomes the median of itself and its neighbours (a lone
 * spike is another tenant's doing). The curve is then cut into runs whose
 * latency stays within 1.25x of their lowest; runs of three points or
 * more (two for the last) are plateaus, shorter ones belong to a ramp
 * between plateaus. A plateau at least 1.8x slower than the previous level
 * starts a new level, one within 1.3x extends it, one in between is a
 * transition. A level's capacity is the largest working set of its
 * plateaus; the last level found is memory.
 * The buffer asks for huge pages (physically indexed caches then see
 * contiguous memory, if the host backs them so) and the thread is pinned
 * to its CPU while measuring.
 */
#include "microbench/hardware.h"

#include <sched.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>

#include "ast/error.h"
#include "runtime/timer.h"

/* -DTC_XRAY_CLFLUSH=0 builds the portable path on x86 too. */
#if !defined(TC_XRAY_CLFLUSH) && (defined(__x86_64__) || (defined(__i386__) && defined(__SSE2__)))
#include <emmintrin.h>
#define TC_XRAY_CLFLUSH 1
#elif !defined(TC_XRAY_CLFLUSH)
#define TC_XRAY_CLFLUSH 0
#endif

#define XRAY_DEFAULT_MAX ((int64_t)64 << 20)
#define XRAY_MIN_MAX ((int64_t)64 << 10)
#define XRAY_MAX_MAX ((int64_t)1 << 34)
#define XRAY_MIN_BUFFER ((int64_t)256 << 10) /* the line test's 32 pages and more */
#define XRAY_HUGE ((size_t)2 << 20)
#define XRAY_START 4096
#define XRAY_MAX_POINTS TC_MB_XRAY_POINTS
#define XRAY_STEPS 32768      /* per timed round */
#define XRAY_ROUNDS 3
#define LINE_BLOCKS 32
#define LINE_PAGE 4096
#define LINE_REPS 7

#define RUN_TOL 1.25   /* a plateau stays within this factor of its lowest */
#define MERGE_TOL 1.3  /* a plateau this close to a level extends it */
#define LEVEL_STEP 1.8 /* a plateau this much slower is a new level */
#define MIN_PLATEAU 4  /* points (a factor 1.75 in size); 2 for the last */

/* Where chased pointers end up, so no chase is dead code. */
static void *volatile xray_sink;

typedef struct xray_ctx {
    char *buf;
    size_t bytes;
    uint32_t *order;
    uint64_t rng;
    tc_timer timer;
} xray_ctx;

static uint64_t next_random(xray_ctx *x)
{
    uint64_t z = (x->rng += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
}

/* order[0..n) := a random permutation of 0..n-1 (Fisher-Yates). */
static void shuffle(xray_ctx *x, size_t n)
{
    if (n == 0)
        return;
    for (size_t i = 0; i < n; i++)
        x->order[i] = (uint32_t)i;
    for (size_t i = n - 1; i > 0; i--) {
        size_t j = (size_t)(next_random(x) % (i + 1));
        uint32_t t = x->order[i];
        x->order[i] = x->order[j];
        x->order[j] = t;
    }
}

static void **node(const xray_ctx *x, size_t slot, size_t k, size_t offset)
{
    return (void **)(void *)(x->buf + (size_t)x->order[k] * slot + offset);
}

/* Follows the chain from p for steps (a multiple of 8) hops. */
static void *chase(void *p, size_t steps)
{
    void **q = p;
    for (size_t i = 0; i < steps; i += 8) {
        q = (void **)*q;
        q = (void **)*q;
        q = (void **)*q;
        q = (void **)*q;
        q = (void **)*q;
        q = (void **)*q;
        q = (void **)*q;
        q = (void **)*q;
    }
    return q;
}

/* Times steps hops from *at and leaves *at where the chase ended. */
static double timed_chase(xray_ctx *x, void **at, size_t steps)
{
    uint64_t t0 = tc_rt_timer_start();
    void *end = chase(*at, steps);
    uint64_t t1 = tc_rt_timer_stop();
    xray_sink = *at = end;
    return tc_rt_timer_seconds(&x->timer, t0, t1);
}

/* ---- line size ------------------------------------------------------- */

#if TC_XRAY_CLFLUSH
static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* Median time of the chain at offset d: flush 0 nothing, 1 the blocks'
 * first lines, 2 the nodes' own lines. */
static double line_chase(xray_ctx *x, size_t d, int flush)
{
    double t[LINE_REPS];
    for (int r = 0; r < LINE_REPS; r++) {
        shuffle(x, LINE_BLOCKS);
        for (size_t k = 0; k < LINE_BLOCKS; k++)
            *node(x, LINE_PAGE, k, d) = node(x, LINE_PAGE, (k + 1) % LINE_BLOCKS, d);
        void *start = node(x, LINE_PAGE, 0, d);
        xray_sink = chase(start, LINE_BLOCKS); /* into L1 */
        for (size_t k = 0; flush && k < LINE_BLOCKS; k++)
            _mm_clflush(node(x, LINE_PAGE, k, flush == 1 ? 0 : d));
        _mm_mfence();
        t[r] = timed_chase(x, &start, LINE_BLOCKS);
    }
    qsort(t, LINE_REPS, sizeof t[0], cmp_double);
    return t[LINE_REPS / 2];
}

static int measure_line(xray_ctx *x)
{
    double hit = line_chase(x, 0, 0), miss = line_chase(x, 0, 2);
    if (!(miss > 2.0 * hit + 1e-9)) /* flushing makes no difference: cannot tell */
        return 0;
    for (size_t d = 8; d <= 256; d *= 2) {
        double t = line_chase(x, d, 1);
        if (t * t < hit * miss) /* nearer hit than miss, geometrically */
            return d == 8 ? 0 : (int)d;
    }
    return 0;
}
#else
static int measure_line(xray_ctx *x)
{
    (void)x;
    return 0;
}
#endif

/* ---- capacities ------------------------------------------------------ */

/* Seconds per access of a random cyclic chain over `bytes`. */
static double chain_latency(xray_ctx *x, size_t bytes, size_t slot)
{
    size_t n = bytes / slot;
    shuffle(x, n);
    for (size_t k = 0; k < n; k++)
        *node(x, slot, k, 0) = node(x, slot, (k + 1) % n, 0);
    void *at = node(x, slot, 0, 0);
    xray_sink = chase(at, (n + 7) & ~(size_t)7);
    double best = 0.0;
    /* each round goes on where the last ended: restarting would time the
     * same XRAY_STEPS nodes again, which fit a large cache however large
     * the set (a 64 MiB chain then measured L3 latency, not memory's) */
    for (int r = 0; r < XRAY_ROUNDS; r++) {
        double t = timed_chase(x, &at, XRAY_STEPS);
        if (r == 0 || t < best)
            best = t;
    }
    return best / XRAY_STEPS;
}

typedef struct run {
    int first, last;
    double base;
} run;

static double median3(double a, double b, double c)
{
    double lo = a < b ? a : b, hi = a < b ? b : a;
    return c < lo ? lo : c > hi ? hi : c;
}

/* Fills out's levels from the curve; returns the index of the first point
 * of the last level found (memory), or -1 when no level was found. */
static int find_levels(const int64_t *size, const double *raw, int npts, tc_xray *out)
{
    run runs[XRAY_MAX_POINTS], levels[XRAY_MAX_POINTS];
    double lat[XRAY_MAX_POINTS];
    int nruns = 0, nlevels = 0;
    for (int i = 0; i < npts; i++) /* a lone spike is noise: median of 3 */
        lat[i] = i == 0 || i + 1 == npts ? raw[i] : median3(raw[i - 1], raw[i], raw[i + 1]);
    out->npoints = npts;
    for (int i = 0; i < npts; i++) {
        out->point_bytes[i] = size[i];
        out->point_ns[i] = lat[i] * 1e9;
    }
    for (int i = 0; i < npts;) {
        run r = {i, i, lat[i]};
        int j = i + 1;
        for (; j < npts && lat[j] <= r.base * RUN_TOL && lat[j] >= r.base / RUN_TOL; j++)
            if (lat[j] < r.base)
                r.base = lat[j];
        r.last = j - 1;
        runs[nruns++] = r;
        i = j;
    }
    for (int k = 0; k < nruns; k++) {
        run r = runs[k];
        if (r.last - r.first + 1 < (k + 1 < nruns ? MIN_PLATEAU : 2))
            continue; /* part of a ramp, not a plateau */
        if (nlevels == 0 || r.base >= levels[nlevels - 1].base * LEVEL_STEP)
            levels[nlevels++] = r;
        else if (r.base < levels[nlevels - 1].base * MERGE_TOL)
            levels[nlevels - 1].last = r.last;
    }
    out->nlevels = nlevels - 1 < TC_MB_MAX_LEVELS ? nlevels - 1 : TC_MB_MAX_LEVELS;
    if (out->nlevels < 0)
        out->nlevels = 0;
    for (int k = 0; k < out->nlevels; k++) {
        out->bytes[k] = size[levels[k].last];
        out->latency_ns[k] = levels[k].base * 1e9;
    }
    if (nlevels > 0)
        out->latency_ns[out->nlevels] = levels[nlevels - 1].base * 1e9;
    return nlevels > 0 ? levels[nlevels - 1].first : -1;
}

/* With stop_early, the scan ends once the slowest level found (memory)
 * starts beyond STOP_FROM bytes - past any L2, so it is not the plateau of
 * a large L3 that began right after the L2 - and has held for STOP_OCTAVES
 * doublings of the working set: larger sets would only confirm it. */
#define STOP_FROM ((int64_t)8 << 20)
#define STOP_OCTAVES 2

static void measure_capacities(xray_ctx *x, size_t max_bytes, size_t slot, int stop_early,
                               tc_xray *out)
{
    int64_t size[XRAY_MAX_POINTS];
    double lat[XRAY_MAX_POINTS];
    int npts = 0;
    for (size_t b = XRAY_START; b <= max_bytes && npts + 4 <= XRAY_MAX_POINTS; b *= 2) {
        for (size_t q = 4; q < 8; q++) {
            size_t w = b / 4 * q;
            if (w > max_bytes)
                break;
            size[npts] = (int64_t)w;
            lat[npts++] = chain_latency(x, w, slot);
        }
        if (stop_early && (int64_t)b >= STOP_FROM && npts > 0) {
            tc_xray t;
            memset(&t, 0, sizeof t);
            int first = find_levels(size, lat, npts, &t);
            if (t.nlevels >= 1 && first >= 0 && size[first] > STOP_FROM &&
                size[npts - 1] >= size[first] << STOP_OCTAVES)
                break;
        }
    }
    /* a second pass over the same working sets, each point keeping the
     * faster of the two: another tenant's burst during one pass (the
     * shared levels are then slower or smaller) does not make the
     * hierarchy look worse than it is */
    for (int i = 0; stop_early && i < npts; i++) {
        double again = chain_latency(x, (size_t)size[i], slot);
        if (again < lat[i])
            lat[i] = again;
    }
    find_levels(size, lat, npts, out);
}

/* ---- the measurement ------------------------------------------------- */

/* Pins the calling thread to the CPU it runs on; *saved gets the old mask.
 * Returns 1 when it pinned (and the mask must be restored). */
static int pin(cpu_set_t *saved)
{
    int cpu = sched_getcpu();
    cpu_set_t one;
    if (cpu < 0 || cpu >= CPU_SETSIZE || sched_getaffinity(0, sizeof *saved, saved) != 0)
        return 0;
    CPU_ZERO(&one);
    CPU_SET(cpu, &one);
    return sched_setaffinity(0, sizeof one, &one) == 0;
}

static tc_status measure(int64_t max_bytes, int stop_early, tc_xray *out, tc_error *err)
{
    if (!out)
        return tc_error_set(err, TC_EUSAGE, 0, 0, "tc_mb_xray_measure: no result given");
    memset(out, 0, sizeof *out);
    if (max_bytes < XRAY_MIN_MAX || max_bytes > XRAY_MAX_MAX)
        return tc_error_set(err, TC_EUSAGE, 0, 0,
                            "X-Ray working sets must reach from 64 KiB to 16 GiB, not %lld bytes",
                            (long long)max_bytes);
    double started = tc_rt_now();
    xray_ctx x;
    memset(&x, 0, sizeof x);
    x.rng = 0x243f6a8885a308d3ULL;
    if (tc_rt_timer_init(&x.timer, err) != TC_OK)
        return err ? err->code : TC_ERESOURCE;
    x.bytes = (size_t)(max_bytes > XRAY_MIN_BUFFER ? max_bytes : XRAY_MIN_BUFFER);
    x.bytes = (x.bytes + XRAY_HUGE - 1) / XRAY_HUGE * XRAY_HUGE;
    x.buf = aligned_alloc(XRAY_HUGE, x.bytes);
    x.order = malloc(x.bytes / 32 * sizeof *x.order);
    if (!x.buf || !x.order) {
        free(x.buf);
        free(x.order);
        return tc_error_set(err, TC_ERESOURCE, 0, 0,
                            "out of memory: X-Ray needs %zu bytes of buffers",
                            x.bytes + x.bytes / 8);
    }
#ifdef MADV_HUGEPAGE
    (void)madvise(x.buf, x.bytes, MADV_HUGEPAGE); /* a hint; fine if refused */
#endif
    /* fault in what the line test uses; the chains fault the rest as they
     * are built (untimed), so a scan that stops early maps no more */
    memset(x.buf, 0, (size_t)XRAY_MIN_BUFFER);

    cpu_set_t saved;
    int pinned = pin(&saved);
    out->line_bytes = measure_line(&x);
    size_t slot = out->line_bytes == 32 ? 32 : 64; /* every line of the set is used */
    measure_capacities(&x, (size_t)max_bytes, slot, stop_early, out);
    if (pinned)
        (void)sched_setaffinity(0, sizeof saved, &saved);
    free(x.buf);
    free(x.order);
    out->seconds = tc_rt_now() - started;
    return TC_OK;
}

tc_status tc_mb_xray_measure_upto(int64_t max_bytes, tc_xray *out, tc_error *err)
{
    return measure(max_bytes, 0, out, err);
}

tc_status tc_mb_xray_measure_until(int64_t max_bytes, tc_xray *out, tc_error *err)
{
    return measure(max_bytes, 1, out, err);
}

tc_status tc_mb_xray_measure(tc_xray *out, tc_error *err)
{
    return tc_mb_xray_measure_upto(XRAY_DEFAULT_MAX, out, err);
}
