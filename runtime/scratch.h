/* scratch.h - temporaries kept mapped between executions.
 *
 * A temporary freed at the end of one tc_execute and allocated again by the
 * next comes back as fresh pages from the kernel once malloc has trimmed
 * them, and faulting them in cost more than the permutation that fills
 * them (3.2 ms against 0.8 ms for a 256^3 TTGT contraction on a VM). The
 * executor therefore hands its temporaries back to a small process-wide
 * cache and takes them from it: a few blocks, bounded in total
 * (TC_SCRATCH_MAX_BYTES), shared by all threads under a lock.
 */
#ifndef TC_RUNTIME_SCRATCH_H
#define TC_RUNTIME_SCRATCH_H

#include <stdint.h>

#include "tcgen.h"

#define TC_SCRATCH_SLOTS 8
#define TC_SCRATCH_MAX_BYTES ((int64_t)256 << 20)

/* At least `count` doubles, aligned like tc_rt_alloc: a cached block when
 * one is large enough (the smallest such), else a new one. NULL with *err
 * set (TC_ERESOURCE) when neither is possible. */
double *tc_rt_scratch_take(int64_t count, tc_error *err);

/* Returns a block of `count` doubles from tc_rt_scratch_take: kept for the
 * next take when the cache has room, else freed. NULL is a no-op. */
void tc_rt_scratch_give(double *p, int64_t count);

/* Frees every cached block (tests; a program may call it too). */
void tc_rt_scratch_release(void);

/* Blocks and bytes held by the cache now. */
int tc_rt_scratch_cached(int64_t *bytes);

#endif
