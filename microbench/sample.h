/*
 * sample.h - the Sampler: times one case of an algorithm (analyze.h) by
 * replaying its setup list and then one kernel or copy call, repeatedly,
 * and keeping the median (docs/design.md §5).
 *
 * Each case gets its operands allocated once at their real strides (only
 * the span a slice touches, not the whole tensor), 64-byte aligned, and
 * initialised with small mixed-sign values on the elements the call touches
 * (which also faults in its pages). Remote regions come from one pool of at
 * least twice 5/4 of the last-level cache, taken downwards from a cursor
 * that wraps, so each region is the pool memory used longest ago and the
 * hardware prefetcher has no stream to follow into operand memory. One
 * untimed call precedes the repetitions (code paging, library start-up).
 * Each repetition runs the setup, then times the call alone.
 *
 * Identical cases - same call (kernel, transposition, dimensions, leading
 * dimensions and increments) and same setup list - are timed once per
 * sampler; later requests get the remembered median.
 */
#ifndef TC_MICROBENCH_SAMPLE_H
#define TC_MICROBENCH_SAMPLE_H

#include <stdint.h>

#include "ast/contraction.h"
#include "microbench/analyze.h"
#include "runtime/blas.h"
#include "runtime/timer.h"
#include "tcgen.h"

/* How a truncated setup list evicts the operands the algorithm would have
 * pushed out of every cache level. */
typedef enum tc_mb_flush {
    TC_FLUSH_CLFLUSH = 0, /* flush the operands' lines (x86-64; else REMOTE) */
    TC_FLUSH_REMOTE       /* touch the leading remote region, as in §6.2.3 */
} tc_mb_flush;

typedef struct tc_mb_sampler_options {
    const tc_blas *blas;     /* loaded BLAS library (not owned) */
    const tc_timer *timer;   /* calibrated timer (not owned) */
    int64_t llc_bytes;       /* last-level cache: sizes the remote pool */
    int line_bytes;
    int reps;                /* repetitions per case (median kept), >= 1 */
    tc_mb_flush flush;
} tc_mb_sampler_options;

typedef struct tc_mb_sampler tc_mb_sampler;

/* Allocates and faults in the remote pool. TC_ERESOURCE when it does not fit
 * in available memory. Free with tc_mb_sampler_free(). */
tc_status tc_mb_sampler_new(const tc_mb_sampler_options *o, tc_mb_sampler **out,
                            tc_error *err);
void tc_mb_sampler_free(tc_mb_sampler *s);

/*
 * Times case cs of an algorithm of c: sets cs->seconds to the median over
 * the repetitions (or to the remembered median of an identical case).
 * TC_ERESOURCE, before allocating anything, when its operand spans do not
 * fit in available memory; TC_EINPUT when a dimension does not fit in int.
 */
tc_status tc_mb_sample(tc_mb_sampler *s, const tc_contraction *c, tc_mb_case *cs,
                       tc_error *err);

/* Distinct cases timed so far, and how many requests the memo answered. */
int64_t tc_mb_sampler_timed(const tc_mb_sampler *s);
int64_t tc_mb_sampler_reused(const tc_mb_sampler *s);

/* Sum of the elements of the written operands of the last case timed,
 * read after its last repetition (0 before any); for tests: alpha's sign
 * flips every call, so after an even number of calls (the warm-up plus an
 * odd number of repetitions) the outputs are back at their initial values. */
double tc_mb_sampler_checksum(const tc_mb_sampler *s);

/* Bytes of operand memory a case needs (sum of its operand spans). */
int64_t tc_mb_case_bytes(const tc_mb_case *cs);

/*
 * Runs the setup list of cs once on the given operand memory (base[i]
 * points at the first element of operand i) and the sampler's pool, and
 * returns the number of distinct elements it touched, counting a remote
 * region as its size; for tests. Leading regions replaced by flushing count
 * as their size too.
 */
int64_t tc_mb_run_setup(tc_mb_sampler *s, const tc_mb_case *cs, double *const base[]);

/*
 * tc_mb_run_setup for a case of contraction c, which decides exactly
 * whether an operand's dimension 0 is its tensor's first index (a prefetch
 * touch then covers one line along it: min(extent[0], line_bytes / 8)
 * elements per position along dimension 1; otherwise every element).
 * tc_mb_run_setup (and this with c NULL) takes a stride-1 dimension 0 of a
 * tensor, not of a temporary, to be the first index; the two differ only
 * when the indices before it have size 1. Both return -1 when cs is
 * malformed or an operand's base is NULL.
 */
int64_t tc_mb_run_setup_in(tc_mb_sampler *s, const tc_contraction *c, const tc_mb_case *cs,
                           double *const base[]);

#endif
