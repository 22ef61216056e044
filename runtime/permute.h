/*
 * permute.h - the permutation copy of the wider algorithm space
 * (docs/design.md §4): a rank-n strided view copied into another view of
 * the same extents, dst = src + beta * dst, cache-blocked so that a
 * transpose runs near the speed of a plain copy.
 *
 * Both views give, per dimension, the extent and a stride in elements for
 * the source and for the destination, in any order. The kernel first
 * simplifies the view: dimensions of extent 1 are dropped and neighbours
 * contiguous in both views are fused (so a permutation that keeps the
 * order becomes one long copy). Then, when the two unit-stride dimensions
 * differ, it transposes the plane they span in register blocks, or, with
 * short extents, runs fused from several destination dimensions, each
 * written in whole lines; short runs of one dimension unit-stride on both
 * sides are staged through a buffer (runtime/permute_kernel.inc says how);
 * the other dimensions are looped outside, the largest source stride
 * outermost. A destination of 4 MiB or more
 * (beta 0) is written with streaming stores, without reading it first; so
 * is a smaller one when `written` (the elements written by all the calls
 * like this one: all of C's blocks) reaches 4 MiB.
 * Speed against memcpy of the same bytes: bench/permute_speed.sh. The
 * kernel is runtime/permute_kernel.inc, which emitted files carry too.
 */
#ifndef TC_RUNTIME_PERMUTE_H
#define TC_RUNTIME_PERMUTE_H

#include <stdint.h>

#include "ast/algorithm.h" /* tc_permute */

/*
 * dst = src + beta * dst over the view p. beta 0 writes dst without reading
 * it (NaN there does not survive). The views must not overlap. Extents of 0
 * copy nothing. threads > 1: a copy of TCGEN_PERMUTE_SPLIT elements or
 * more is split over that many threads (tc_rt_parallel), each taking
 * whole slices of its outermost dimensions (an emitted file splits it the
 * same way with OpenMP).
 */
void tc_rt_permute(const tc_permute *p, const double *src, double *dst, double beta,
                   int64_t written, int threads);

/* 1 when tc_rt_permute writes a view of `elements` with streaming stores
 * (its destination then is in memory after it, not in the caches). */
int tc_rt_permute_streams(int64_t elements, int64_t written, double beta);

#endif
