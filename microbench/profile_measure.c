/*
 * profile_measure.c - measuring the machine profile (profile.h): the
 * caches by X-Ray (xray.c, stopping once memory latency is established),
 * the stream-prefetch depth, the LLC's edge (llc_edge.c), one thread's
 * streaming-read bandwidth and peak dgemm rate. Each figure is the best (or the median, for
 * latencies) of several tries, the rates' in two rounds seconds apart
 * (measure_rates_again), so another tenant's burst does not make the
 * machine look slower than it is: these are bounds.
 */
#include "microbench/profile.h"

#include <stdlib.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>
#include <time.h>

#include "ast/error.h"
#include "microbench/fma_peak.h"
#include "microbench/tlb.h"
#include "microbench/touch.h"
#include "runtime/memory.h"

#if !defined(TC_PROFILE_CLFLUSH) && (defined(__x86_64__) || (defined(__i386__) && defined(__SSE2__)))
#include <emmintrin.h>
#define TC_PROFILE_CLFLUSH 1
#elif !defined(TC_PROFILE_CLFLUSH)
#define TC_PROFILE_CLFLUSH 0
#endif

#define MIB ((int64_t)1 << 20)
#define XRAY_FLOOR (64 * MIB)    /* scan at least this far */
#define BW_MIN (64 * MIB)        /* streamed buffer: well beyond the caches */
#define BW_MAX (256 * MIB)
#define BW_PASSES 4
#define EDGE_MAX (1024 * MIB)    /* the LLC's edge: swept up to 3x the LLC */
#define GEMM_N 256
#define GEMM_REPS 12
#define STREAM_TRAIN 16          /* lines read in order before the probe */
#define STREAM_MAX 32            /* deepest prefetch looked for */
#define STREAM_REPS 41

static void *volatile profile_sink;

static void report(tc_mb_profile_progress progress, void *data, const char *step, int done)
{
    if (progress)
        progress(step, done, 4, data);
}

/* ---- bandwidth ---------------------------------------------------------- */

typedef double v4 __attribute__((vector_size(32)));

/* Sum of n doubles (n a multiple of 16), four independent vector sums. */
static double stream_sum(const double *p, int64_t n)
{
    v4 a = {0, 0, 0, 0}, b = a, c = a, d = a;
    for (int64_t i = 0; i < n; i += 16) {
        v4 x, y, z, w;
        memcpy(&x, p + i, sizeof x);
        memcpy(&y, p + i + 4, sizeof y);
        memcpy(&z, p + i + 8, sizeof z);
        memcpy(&w, p + i + 12, sizeof w);
        a += x;
        b += y;
        c += z;
        d += w;
    }
    v4 s = a + b + c + d;
    return s[0] + s[1] + s[2] + s[3];
}

/* Sum of n doubles (n a multiple of 4), four scalar sums: on a Zen 5 VM
 * this read 40 GB/s where the vector loop read 26-33. */
static double scalar_sum(const double *p, int64_t n)
{
    double a = 0.0, b = 0.0, c = 0.0, d = 0.0;
    for (int64_t i = 0; i < n; i += 4) {
        a += p[i];
        b += p[i + 1];
        c += p[i + 2];
        d += p[i + 3];
    }
    return a + b + c + d;
}

/* x = x * 0.5 + 1 over n doubles (n a multiple of 4): each line read and
 * written back; four at a time (one at a time moved 34 GB/s here, four
 * 60-70). */
static void update(double *p, int64_t n)
{
    for (int64_t i = 0; i < n; i += 4) {
        double a = p[i], b = p[i + 1], c = p[i + 2], d = p[i + 3];
        p[i] = a * 0.5 + 1.0;
        p[i + 1] = b * 0.5 + 1.0;
        p[i + 2] = c * 0.5 + 1.0;
        p[i + 3] = d * 0.5 + 1.0;
    }
}

/*
 * The fastest one thread streams from memory: reading (the best of a
 * vector and a scalar loop, each best of BW_PASSES) and updating in place
 * (bytes both ways together). On huge pages where the system gives them,
 * as the sampler's and the executor's large blocks are. These rates are
 * the bounds of docs/prediction.md: a bound must not exceed what a call
 * can do, so the fastest loop counts, and an output costs its update,
 * not twice its read (64-80 GB/s updating, both ways, against 42 reading
 * here).
 */
static tc_status measure_bandwidth(int64_t llc_bytes, double *read_bps, double *update_bps,
                                   tc_error *err)
{
    int64_t bytes = 4 * llc_bytes;
    bytes = bytes < BW_MIN ? BW_MIN : bytes > BW_MAX ? BW_MAX : bytes;
    int64_t n = bytes / 8 / 16 * 16;
    double *p = tc_rt_alloc_pages(n, TC_PAGES_AUTO, err);
    if (!p)
        return TC_ERESOURCE;
    tc_mb_shape all = {n, 1, 1, 0};
    tc_mb_touch_init(p, &all);
    double best[3] = {0.0, 0.0, 0.0}, sum = 0.0;
    for (int r = 0; r < BW_PASSES; r++) {
        for (int k = 0; k < 3; k++) {
            double t0 = tc_rt_now();
            if (k == 0)
                sum += stream_sum(p, n);
            else if (k == 1)
                sum += scalar_sum(p, n);
            else
                update(p, n);
            double t = tc_rt_now() - t0;
            if (t > 0 && (best[k] == 0.0 || t < best[k]))
                best[k] = t;
        }
    }
    sum += p[n / 2];
    profile_sink = &sum;
    tc_rt_free(p);
    double read = best[0] < best[1] ? best[0] : best[1];
    *read_bps = read > 0 ? (double)n * 8.0 / read : 1e9;
    *update_bps = best[2] > 0 ? 2.0 * (double)n * 8.0 / best[2] : 2e9;
    return TC_OK;
}

/* ---- peak flop rate ------------------------------------------------------- */

static tc_status measure_peak(const tc_blas *blas, double *flops, tc_error *err)
{
    const int n = GEMM_N;
    double *a = tc_rt_alloc_pages(3 * (int64_t)n * n, TC_PAGES_SMALL, err);
    if (!a)
        return TC_ERESOURCE;
    double *b = a + n * n, *c = b + n * n;
    tc_mb_shape all = {3 * (int64_t)n * n, 1, 1, 0};
    tc_mb_touch_init(a, &all);
    /* one thread: the bound is per thread (a case's time x its threads) */
    int saved = tc_rt_blas_enter(blas, 1);
    double best = 0.0;
    for (int r = 0; r < GEMM_REPS; r++) {
        double t0 = tc_rt_now();
        blas->dgemm(TC_CBLAS_COL_MAJOR, TC_CBLAS_NO_TRANS, TC_CBLAS_NO_TRANS, n, n, n,
                    r % 2 ? 1.0 : -1.0, a, n, b, n, 1.0, c, n);
        double t = tc_rt_now() - t0;
        if (r > 0 && t > 0 && (best == 0.0 || t < best)) /* the first call warms up */
            best = t;
    }
    tc_rt_blas_leave(blas, saved);
    tc_rt_free(a);
    *flops = best > 0 ? 2.0 * n * n * (double)n / best : 1e9;
    return TC_OK;
}

/* The CPU's own peak (an FMA loop), and for OpenBLAS the dgemm rate of
 * each other kernel set this CPU runs, each loaded in a namespace of its
 * own ("openblas:CORE", blas.h): what tcgen info, explain and --blas auto
 * compare the library's rate with. A set that fails to load is left out. */
static tc_status measure_kernel_sets(const tc_blas *blas, tc_mb_profile *p, tc_error *err)
{
    const char *width = NULL, *names[TC_MB_MAX_KERNEL_SETS];
    p->cpu_peak_flops = tc_mb_fma_peak(&width);
    snprintf(p->cpu_peak_width, sizeof p->cpu_peak_width, "%s", width);
    snprintf(p->blas_kernels, sizeof p->blas_kernels, "%s", blas->kernels);
    int n = blas->kernels[0] ? tc_rt_openblas_cores(names, TC_MB_MAX_KERNEL_SETS) : 0;
    for (int k = 0; k < n; k++) {
        char which[48];
        tc_blas *other = NULL;
        snprintf(which, sizeof which, "openblas:%s", names[k]);
        if (strcasecmp(names[k], blas->kernels) == 0 ||
            tc_rt_blas_load(which, 1, &other, NULL) != TC_OK)
            continue;
        double flops = 0.0;
        tc_status st = measure_peak(other, &flops, err);
        tc_rt_blas_unload(other);
        if (st != TC_OK)
            return st;
        snprintf(p->kernel_name[p->nkernel], sizeof p->kernel_name[0], "%s", names[k]);
        p->kernel_flops[p->nkernel++] = flops;
    }
    return TC_OK;
}

/* The rates measured once more, seconds after the first time, each the
 * better of the two: a host's slow phase (another tenant's burst) lasts
 * seconds, and a profile measured in one had half the dgemm rate (26
 * against 53 GFLOP/s a minute later), which halved every dgemm's bound
 * until the profile was measured again. */
static tc_status measure_rates_again(const tc_blas *blas, tc_mb_profile *p, tc_error *err)
{
    double flops = 0.0, read = 0.0, update = 0.0;
    tc_status st = measure_peak(blas, &flops, err);
    if (st == TC_OK)
        st = measure_bandwidth(p->used.llc_bytes, &read, &update, err);
    if (st != TC_OK)
        return st;
    p->peak_flops = flops > p->peak_flops ? flops : p->peak_flops;
    p->memory_bandwidth = read > p->memory_bandwidth ? read : p->memory_bandwidth;
    p->update_bandwidth = update > p->update_bandwidth ? update : p->update_bandwidth;
    const char *width = NULL;
    double fma = tc_mb_fma_peak(&width);
    if (fma > p->cpu_peak_flops)
        p->cpu_peak_flops = fma;
    return TC_OK;
}

/* ---- stream-prefetch depth --------------------------------------------- */

#if TC_PROFILE_CLFLUSH
/* Mean ticks of one load of line `probe` of p after flushing lines
 * 0..STREAM_TRAIN+STREAM_MAX (all but `probe` when hit: the probe then
 * measures a hit the same way) and, when train, reading lines
 * 0..STREAM_TRAIN-1 in order. The mean, not the median: on a counter that
 * steps every 20 ns a hit reads as 0 or 1 step, a miss as several, and
 * only the mean over many reps separates a partly prefetched line. */
static double probe_ticks(volatile const double *p, int line_doubles, int probe, int train,
                          int hit)
{
    uint64_t sum = 0;
    double acc = 0.0;
    for (int r = 0; r < STREAM_REPS; r++) {
        for (int k = 0; k <= STREAM_TRAIN + STREAM_MAX; k++)
            if (!(hit && k == probe))
                _mm_clflush((const void *)(p + (size_t)k * line_doubles));
        _mm_mfence();
        if (hit)
            acc += p[(size_t)probe * line_doubles];
        for (int k = 0; train && k < STREAM_TRAIN; k++)
            acc += p[(size_t)k * line_doubles];
        /* let the prefetches the stream started land */
        struct timespec pause = {0, 20000};
        nanosleep(&pause, NULL);
        uint64_t t0 = tc_rt_timer_start();
        acc += p[(size_t)probe * line_doubles];
        uint64_t t1 = tc_rt_timer_stop();
        sum += t1 > t0 ? t1 - t0 : 0;
    }
    profile_sink = &acc;
    return (double)sum / STREAM_REPS;
}

/* Lines past the end of a trained stream that arrive before they are
 * asked for: the last probe distance whose mean cost is nearer a hit than
 * a miss, before four in a row nearer a miss. */
static int measure_stream_once(int line_bytes)
{
    int ld = line_bytes / 8;
    /* all in one 4 KiB page: a prefetcher does not follow a stream into
     * the next page, and a buffer from the heap that crossed one read as
     * no prefetching at all in one profile of three (a Zen 5 VM) */
    size_t bytes = (size_t)(STREAM_TRAIN + STREAM_MAX + 2) * (size_t)line_bytes;
    if (bytes > 4096)
        return 0;
    double *p = aligned_alloc(4096, 4096);
    if (!p)
        return 0;
    memset(p, 0, 4096);
    int far = STREAM_TRAIN + STREAM_MAX;
    double miss = probe_ticks(p, ld, far, 0, 0), hit = probe_ticks(p, ld, far, 0, 1);
    int depth = 0, misses = 0;
    for (int d = 0; miss > 2.0 * hit + 1.0 && d < STREAM_MAX && misses < 4; d++) {
        if (probe_ticks(p, ld, STREAM_TRAIN + d, 1, 0) > 0.5 * (hit + miss)) {
            misses++; /* one slow probe (the host) does not end the count: four in a row do */
        } else {
            depth = d + 1;
            misses = 0;
        }
    }
    free(p);
    return depth;
}

/* The deepest of three measurements: the depth moves between runs (8-16
 * lines on a Zen 4 VM; 0-7 on a Zen 5 VM, where another tenant's traffic
 * leaves prefetched lines short of L2), and the noise only ever makes a
 * prefetch miss: a median of 0 there switched the stream rule off and
 * predicted cb-dgemv of C[a,b,c] = A[a,i] * B[i,b,c] 2.5x slow. */
static int measure_stream(int line_bytes)
{
    int deepest = 0;
    for (int i = 0; i < 3; i++) {
        int d = measure_stream_once(line_bytes);
        deepest = d > deepest ? d : deepest;
    }
    return deepest;
}
#else
static int measure_stream(int line_bytes)
{
    (void)line_bytes;
    return 0;
}
#endif

/* ---- the profile ------------------------------------------------------------ */

tc_status tc_mb_profile_measure(const tc_hardware *detected, const tc_blas *blas,
                                const tc_timer *timer, tc_mb_profile_progress progress,
                                void *data, tc_mb_profile *p, tc_error *err)
{
    if (!detected || !blas || !timer || !p)
        return tc_error_set(err, TC_EUSAGE, 0, 0, "tc_mb_profile_measure: NULL argument");
    double started = tc_rt_now();
    memset(p, 0, sizeof *p);
    p->detected = *detected;
    tc_mb_hardware_signature(detected, p->machine, sizeof p->machine);
    snprintf(p->blas, sizeof p->blas, "%s", blas->name);
    snprintf(p->blas_version, sizeof p->blas_version, "%s", blas->version);
    for (char *c = p->blas_version; *c; c++)
        if (*c == '\n' || *c == '\r' || *c == '\t')
            *c = ' ';

    report(progress, data, "caches", 0);
    int64_t scan = 2 * detected->llc_bytes;
    scan = scan < XRAY_FLOOR               ? XRAY_FLOOR
           : scan > TC_MB_PROFILE_SCAN_MAX ? TC_MB_PROFILE_SCAN_MAX
                                           : scan;
    tc_status st = tc_mb_xray_measure_until(scan, &p->xray, err);
    if (st != TC_OK)
        return st;
    /* the level above the last as the measurement sees it */
    int64_t upper = 0;
    for (int k = 0; k + 1 < detected->nlevels; k++)
        upper = k < p->xray.nlevels ? p->xray.bytes[k] : detected->level[k].bytes;
    p->llc_measured = tc_mb_profile_llc_from_curve(&p->xray, upper);
    tc_mb_profile_choose(p);

    report(progress, data, "stream prefetch", 1);
    p->stream_lines = measure_stream(p->used.line_bytes);
    p->tlb_pages = tc_mb_tlb_measure();
    report(progress, data, "memory bandwidth", 2);
    st = measure_bandwidth(p->used.llc_bytes, &p->memory_bandwidth, &p->update_bandwidth, err);
    if (st != TC_OK)
        return st;
    st = tc_mb_edge_measure(p->used.llc_bytes, p->used.line_bytes, EDGE_MAX, &p->xray,
                            p->llc_edge, err);
    if (st != TC_OK)
        return st;
    report(progress, data, "peak flop rate", 3);
    st = measure_peak(blas, &p->peak_flops, err);
    if (st == TC_OK)
        st = measure_kernel_sets(blas, p, err);
    if (st == TC_OK)
        st = measure_rates_again(blas, p, err);
    if (st != TC_OK)
        return st;
    report(progress, data, "done", 4);
    p->timer_resolution_s = timer->resolution_s;
    p->timer_overhead_s = timer->overhead_ticks * timer->seconds_per_tick;
    p->measured_at = (double)time(NULL);
    p->measure_seconds = tc_rt_now() - started;
    return TC_OK;
}
