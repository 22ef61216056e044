/*
 * timer.h - a cycle-accurate wall-clock timer for one kernel call
 * (docs/design.md §2: Whaley and Castaldo's timing rules).
 *
 * On x86-64 the timer reads the time-stamp counter, serialised so that the
 * timed code cannot move across the reads (lfence; rdtsc to start, rdtscp;
 * lfence to stop); its frequency is calibrated against CLOCK_MONOTONIC.
 * Elsewhere it reads clock_gettime(CLOCK_MONOTONIC) in nanoseconds.
 * Ticks stay 64-bit integers until the final difference (Whaley's
 * round-off rule). The cost of an empty start/stop pair is measured once
 * and subtracted from every timing.
 *
 * Some virtual machines advance the counter in steps (20 ns here): a call
 * shorter than a few steps then reads as 0 or 1 step, so the median of such
 * timings can be 10x off. Their mean is not: the steps fall at random
 * phases against the call (dithering), so the mean of many timings less
 * the mean overhead converges on the call's time. tc_rt_timer_estimate
 * chooses between the two.
 */
#ifndef TC_RUNTIME_TIMER_H
#define TC_RUNTIME_TIMER_H

#include <stdint.h>

#include "tcgen.h"

typedef struct tc_timer {
    const char *source;      /* "rdtsc" or "clock_gettime" */
    double seconds_per_tick; /* calibrated */
    double resolution_s;     /* smallest non-zero difference of two reads */
    double overhead_ticks;   /* median cost of an empty start/stop pair */
    double overhead_mean_ticks; /* its mean (what a mean of timings includes) */
    double quantum_ticks;    /* the step the counter advances by (resolution
                                in ticks: 1 on a real TSC, ~40 under some
                                virtual machines) */
} tc_timer;

/* Calibrates the timer (takes about 20 ms). TC_ERESOURCE when no usable
 * clock exists. */
tc_status tc_rt_timer_init(tc_timer *t, tc_error *err);

/* Tick counts; only differences of a start and a later stop mean anything. */
uint64_t tc_rt_timer_start(void);
uint64_t tc_rt_timer_stop(void);

/* Seconds between start and stop, less the overhead, never negative. */
double tc_rt_timer_seconds(const tc_timer *t, uint64_t start, uint64_t stop);

/*
 * The time of one call from n start/stop tick differences (n >= 1; the
 * array is reordered): the median less the overhead, or, when the median is
 * within 8 counter steps, the mean of those at most 4 steps above the
 * median (further ones were preempted) less the mean overhead. Never
 * negative.
 */
double tc_rt_timer_estimate(const tc_timer *t, uint64_t *ticks, int n);

/* CLOCK_MONOTONIC in seconds, for timing whole runs (not single calls). */
double tc_rt_now(void);

#endif
