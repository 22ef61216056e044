/*
 * timer.c - the cycle-accurate wall-clock timer (docs/design.md §2).
 *
 * x86: start is lfence; rdtsc; lfence (earlier work has retired before the
 * read, later work starts after it); stop is rdtscp; lfence (the timed work
 * has retired before the read, nothing after it starts early). Without
 * rdtscp the stop read is lfence; rdtsc; lfence. The tick rate is
 * calibrated against CLOCK_MONOTONIC twice; when the two calibrations
 * disagree by more than 1 % (a TSC that changes rate with the clock) or the
 * CPU has no TSC, the timer falls back to clock_gettime nanoseconds, which
 * is what it uses everywhere else.
 *
 * The read functions take no timer argument, so the choice of source is one
 * process-wide setting, stored once by tc_rt_timer_init after calibrating
 * (every init makes the same choice on one machine). Before the first init
 * they read the TSC without rdtscp.
 */
#include "runtime/timer.h"

#include <stdatomic.h>
#include <stdlib.h>
#include <time.h>

#include "ast/error.h"

/* -DTC_TIMER_X86=0 builds the portable path on x86 too. */
#if !defined(TC_TIMER_X86) && (defined(__x86_64__) || (defined(__i386__) && defined(__SSE2__)))
#include <cpuid.h>
#include <x86intrin.h>
#define TC_TIMER_X86 1
#elif !defined(TC_TIMER_X86)
#define TC_TIMER_X86 0
#endif

enum { MODE_TSC = 0, MODE_TSCP = 1, MODE_CLOCK = 2 };

#if TC_TIMER_X86
static atomic_int timer_mode = MODE_TSC;
#endif

#define CALIBRATE_NS 8000000L /* per calibration round; two rounds */
#define OVERHEAD_PAIRS 1001
#define RESOLUTION_READS 1000

static uint64_t clock_ns(void)
{
    struct timespec ts;
    if (clock_gettime(CLOCK_MONOTONIC, &ts) != 0)
        return 0;
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

#if TC_TIMER_X86
static inline uint64_t tsc_start(void)
{
    _mm_lfence();
    uint64_t t = __rdtsc();
    _mm_lfence();
    return t;
}

static inline uint64_t tsc_stop(void)
{
    unsigned aux;
    uint64_t t = __rdtscp(&aux);
    _mm_lfence();
    return t;
}

/* 1: the CPU has a time-stamp counter; *tscp: it also has rdtscp. */
static int cpu_has_tsc(int *tscp)
{
    unsigned a, b, c, d;
    *tscp = 0;
    if (!__get_cpuid(1, &a, &b, &c, &d) || !(d & (1u << 4)))
        return 0;
    if (__get_cpuid(0x80000001u, &a, &b, &c, &d))
        *tscp = (d & (1u << 27)) != 0;
    return 1;
}
#endif

uint64_t tc_rt_timer_start(void)
{
#if TC_TIMER_X86
    if (atomic_load_explicit(&timer_mode, memory_order_relaxed) != MODE_CLOCK)
        return tsc_start();
#endif
    return clock_ns();
}

uint64_t tc_rt_timer_stop(void)
{
#if TC_TIMER_X86
    int mode = atomic_load_explicit(&timer_mode, memory_order_relaxed);
    if (mode == MODE_TSCP)
        return tsc_stop();
    if (mode == MODE_TSC)
        return tsc_start();
#endif
    return clock_ns();
}

double tc_rt_timer_seconds(const tc_timer *t, uint64_t start, uint64_t stop)
{
    if (stop <= start)
        return 0.0;
    double ticks = (double)(stop - start) - t->overhead_ticks;
    return ticks > 0.0 ? ticks * t->seconds_per_tick : 0.0;
}

#if TC_TIMER_X86
/* Ticks per nanosecond over about CALIBRATE_NS; 0 if the clock failed.
 * Each clock read is bracketed by two tick reads, whose midpoint is used. */
static double calibrate_round(void)
{
    uint64_t a0 = tsc_start(), n0 = clock_ns(), b0 = tsc_start();
    uint64_t n1, a1, b1;
    do {
        a1 = tsc_start();
        n1 = clock_ns();
        b1 = tsc_start();
    } while (n1 != 0 && n1 - n0 < (uint64_t)CALIBRATE_NS);
    if (n0 == 0 || n1 <= n0 || b1 <= a0)
        return 0.0;
    double ticks = ((double)a1 + (double)(b1 - a1) / 2.0) - ((double)a0 + (double)(b0 - a0) / 2.0);
    return ticks / (double)(n1 - n0);
}
#endif

static int cmp_u64(const void *x, const void *y)
{
    uint64_t a = *(const uint64_t *)x, b = *(const uint64_t *)y;
    return (a > b) - (a < b);
}

/* Smallest non-zero difference of two consecutive reads, in ticks. */
static uint64_t measure_resolution(void)
{
    uint64_t best = 0;
    for (int k = 0; k < RESOLUTION_READS; k++) {
        uint64_t a = tc_rt_timer_start();
        uint64_t b = tc_rt_timer_start();
        while (b == a) /* a coarse clock: wait for the next tick */
            b = tc_rt_timer_start();
        if (b > a && (best == 0 || b - a < best))
            best = b - a;
    }
    return best;
}

/* Mean of the sorted v[0..n) that are at most 4 counter steps above their
 * median: the readings of one short call spread over a step or two (the
 * phase); beyond that a reading was preempted. Dropping a fixed share
 * instead would drop the upper step and bias the mean down. */
static double mean_near(const uint64_t *v, int n, double median, double quantum)
{
    double sum = 0.0;
    int kept = 0;
    for (int k = 0; k < n && (double)v[k] <= median + 4.0 * quantum; k++, kept++)
        sum += (double)v[k];
    return kept ? sum / kept : median;
}

/* Median and mean (as tc_rt_timer_estimate takes it) of the cost of an
 * empty start/stop pair, in ticks. */
static void measure_overhead(double quantum, double *median, double *mean)
{
    uint64_t pair[OVERHEAD_PAIRS];
    for (int k = 0; k < OVERHEAD_PAIRS; k++) {
        uint64_t a = tc_rt_timer_start();
        uint64_t b = tc_rt_timer_stop();
        pair[k] = b > a ? b - a : 0;
    }
    qsort(pair, OVERHEAD_PAIRS, sizeof pair[0], cmp_u64);
    *median = (double)pair[OVERHEAD_PAIRS / 2];
    *mean = mean_near(pair, OVERHEAD_PAIRS, *median, quantum);
}

double tc_rt_timer_estimate(const tc_timer *t, uint64_t *ticks, int n)
{
    if (n < 1)
        return 0.0;
    qsort(ticks, (size_t)n, sizeof ticks[0], cmp_u64);
    double median = n % 2 ? (double)ticks[n / 2]
                          : ((double)ticks[n / 2 - 1] + (double)ticks[n / 2]) / 2.0;
    double q = t->quantum_ticks > 1.0 ? t->quantum_ticks : 1.0;
    double v;
    if (median - t->overhead_ticks >= 8.0 * q) {
        v = median - t->overhead_ticks;
    } else {
        v = mean_near(ticks, n, median, q) - t->overhead_mean_ticks;
    }
    return v > 0.0 ? v * t->seconds_per_tick : 0.0;
}

tc_status tc_rt_timer_init(tc_timer *t, tc_error *err)
{
    if (!t)
        return tc_error_set(err, TC_EUSAGE, 0, 0, "tc_rt_timer_init: no timer given");
    if (clock_ns() == 0)
        return tc_error_set(err, TC_ERESOURCE, 0, 0,
                            "no usable clock: clock_gettime(CLOCK_MONOTONIC) fails");
    t->source = "clock_gettime";
    t->seconds_per_tick = 1e-9;
#if TC_TIMER_X86
    int tscp;
    int mode = MODE_CLOCK;
    if (cpu_has_tsc(&tscp)) {
        double f1 = calibrate_round();
        double f2 = calibrate_round();
        double lo = f1 < f2 ? f1 : f2, hi = f1 < f2 ? f2 : f1;
        if (lo > 0.0 && (hi - lo) / lo <= 0.01) {
            t->source = "rdtsc";
            t->seconds_per_tick = 2e-9 / (f1 + f2);
            mode = tscp ? MODE_TSCP : MODE_TSC;
        }
    }
    atomic_store(&timer_mode, mode);
#endif
    t->overhead_ticks = t->overhead_mean_ticks = 0.0;
    uint64_t res = measure_resolution();
    if (res == 0)
        return tc_error_set(err, TC_ERESOURCE, 0, 0,
                            "no usable clock: %s does not advance", t->source);
    t->resolution_s = (double)res * t->seconds_per_tick;
    t->quantum_ticks = (double)res;
    measure_overhead(t->quantum_ticks, &t->overhead_ticks, &t->overhead_mean_ticks);
    return TC_OK;
}

double tc_rt_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}
