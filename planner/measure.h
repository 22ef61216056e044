/*
 * measure.h - runs algorithms on real tensors and times them: the ground
 * truth that predictions are checked against (`tcgen measure`, `compare`).
 *
 * A, B and C are allocated once (after checking they fit in available
 * memory) and filled with random data; C is restored before every run when
 * the contraction accumulates (beta != 0). Each algorithm runs once untimed
 * - which also leaves the cache as a repeated contraction finds it, the
 * state the dissertation measures - then `reps` timed runs; the median is
 * kept. A first run that exceeds the time limit is abandoned (the executor
 * stops at the deadline) and the algorithm reported as over the limit.
 * With rounds > 1 the algorithms are measured that many times, each round
 * in the order opposite to the last, and each keeps the median of its
 * rounds: a slow phase of a shared host then falls on all of them alike
 * (how `compare` checks its regret, docs/decisions.md).
 */
#ifndef TC_PLANNER_MEASURE_H
#define TC_PLANNER_MEASURE_H

#include "ast/algorithm.h"
#include "runtime/blas.h"
#include "runtime/execute.h" /* tc_rt_parts */

typedef struct tc_measure_options {
    const tc_blas *blas;
    int reps;              /* timed runs per algorithm, >= 1 */
    double time_limit_s;   /* > 0 */
    int rounds;            /* interleaved rounds; 0 or 1: one */
} tc_measure_options;

typedef struct tc_measure_entry {
    const tc_algorithm *alg;
    double seconds;        /* median of the timed runs; the limit when over it */
    int over_limit;
} tc_measure_entry;

typedef struct tc_measurements {
    int count;             /* in the order the algorithms were given */
    tc_measure_entry *entry;
    double elapsed_s;      /* wall time of the entire measurement */
} tc_measurements;

typedef void (*tc_measure_progress)(int done, int total, void *data);

/* Bytes the tensors of c need for measuring (A, B, C and C's saved copy). */
double tc_plan_measure_bytes(const tc_contraction *c);

/*
 * Measures algs[0..n-1] (each must fit_int) of contraction c (sizes set).
 * TC_ERESOURCE, before allocating, when the tensors do not fit in available
 * memory. *out is the caller's, freed with tc_measurements_free().
 */
tc_status tc_plan_measure(const tc_contraction *c, const tc_algorithm *const *algs, int n,
                          const tc_measure_options *o, tc_measure_progress progress,
                          void *data, tc_measurements **out, tc_error *err);

/*
 * Runs alg as tc_plan_measure does (one untimed run, then o->reps timed
 * ones) with each part timed (tc_rt_execute_parts): *parts gets each
 * part's median over the runs, *seconds the runs' median. For `tcgen
 * explain --measure`, which sets each part beside its prediction.
 */
tc_status tc_plan_measure_parts(const tc_contraction *c, const tc_algorithm *alg,
                                const tc_measure_options *o, tc_rt_parts *parts,
                                double *seconds, tc_error *err);

/* NULL is a no-op. */
void tc_measurements_free(tc_measurements *m);

#endif
