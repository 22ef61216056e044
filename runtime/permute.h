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
 * differ, it transposes the plane they span in register blocks, or tiles
 * of both sides' first dimensions through a buffer in L2 (the tiled path),
 * or, with short extents, blocks with long runs on both sides gathered run by run
 * (the wide path), or blocks of the destination's first dimensions through a
 * buffer, or chunks of runs by short columns through a buffer, or runs
 * fused from several destination dimensions, each written in whole
 * lines; short runs of one dimension unit-stride on both sides are
 * staged through a buffer (runtime/permute_kernel.inc says how);
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
#include "ast/type.h"

/*
 * dst = src + beta * dst over the view p, elements of `type` (strides in
 * elements; complex elements as their two reals, with beta real: a
 * complex beta is tc_rt_scale first). beta 0 writes dst without reading
 * it (NaN there does not survive). The views must not overlap. Extents of 0
 * copy nothing. threads > 1: a copy of TCGEN_PERMUTE_SPLIT elements or
 * more is split over that many threads (tc_rt_parallel), each taking
 * whole slices of its outermost dimensions (an emitted file splits it the
 * same way with OpenMP).
 */
void tc_rt_permute(const tc_permute *p, tc_type type, const void *src, void *dst, double beta,
                   int64_t written, int threads);

/* x = beta * x over the view p's destination side (elements of `type`,
 * beta {real, imaginary}): beta 0 writes 0 without reading x, 1 leaves it
 * alone. The beta pass over C, and a complex beta before a permutation
 * adds into C. */
void tc_rt_scale(const tc_permute *p, tc_type type, void *x, const double *beta);

/* 1 when tc_rt_permute writes a view of `elements` with streaming stores
 * (its destination then is in memory after it, not in the caches). */
int tc_rt_permute_streams(int64_t elements, int64_t written, double beta);

#endif
