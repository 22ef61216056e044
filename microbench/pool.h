/*
 * pool.h - the sampler's memory, bounded per process (docs/prediction.md).
 *
 * Every sampler of a process reads remote data from one shared pool: it is
 * written once when made and only read afterwards, so samplers in several
 * planner threads share it safely (each keeps its own cursor). Operand
 * memory is reserved case by case against a process-wide budget that
 * includes the pool: a case that would go over waits until other threads'
 * cases have freed theirs, so the sampler's memory stays under the budget
 * however many planners run and whatever the problem size (cases larger
 * than the budget are timed on a part: sample.c).
 */
#ifndef TC_MICROBENCH_POOL_H
#define TC_MICROBENCH_POOL_H

#include <stdint.h>

#include "tcgen.h"

/* The budget when none is given: pool plus operands of the cases being timed. */
#define TC_MB_DEFAULT_BUDGET ((int64_t)512 << 20)

/*
 * A pool of at least `bytes` (a multiple of 64), initialised and faulted
 * in: the shared one when it is large enough (or no sampler holds it),
 * else a private one. Counted against `budget`. TC_ERESOURCE when it does
 * not fit in the budget or in memory.
 */
tc_status tc_mb_pool_acquire(int64_t bytes, int64_t budget, const double **pool,
                             tc_error *err);
/* Releases what tc_mb_pool_acquire gave for `bytes`; NULL is a no-op. The
 * shared pool stays allocated (and counted) for the next sampler. */
void tc_mb_pool_release(const double *pool, int64_t bytes);
/* Frees the shared pool when no sampler holds it (tc_release_workspace);
 * the next sampler makes a new one. */
void tc_mb_pool_trim(void);

/* Reserves `bytes` of operand memory within `budget`, waiting while other
 * threads' reservations leave too little. TC_ERESOURCE when the bytes and
 * the pools alone exceed the budget. */
tc_status tc_mb_budget_reserve(int64_t bytes, int64_t budget, tc_error *err);
void tc_mb_budget_release(int64_t bytes);

/* Bytes reserved now (pools included), and the most ever reserved at once:
 * what tests and the bench check against the budget. */
int64_t tc_mb_budget_in_use(void);
int64_t tc_mb_budget_peak(void);
/* Starts the peak anew from what is reserved now (tests). */
void tc_mb_budget_reset_peak(void);

#endif
