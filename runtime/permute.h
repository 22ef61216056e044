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
 * differ, it copies tiles of 16 x 16 elements (2 x 2 blocks transposed in
 * SSE2 registers), a band of rows at a time along the source's rows, so
 * that reads go front to back and each tile's writes are whole lines; the
 * other dimensions are looped outside, the largest source stride
 * outermost. A destination of 4 MiB or more (beta 0) is written with
 * streaming stores in whole lines, without reading it first: 16 MiB
 * permutations of a 128^3 tensor run at 0.43-0.79 of memcpy's speed on a
 * Zen 4 VM, the order-keeping ones faster than memcpy, and at 0.32-0.46 on
 * a Zen 5 VM, where its power-of-two strides collide in the caches (a
 * 120^3 tensor: 0.53-0.75) (bench/permute_speed.sh). The
 * kernel is runtime/permute_kernel.inc, which emitted files carry too.
 */
#ifndef TC_RUNTIME_PERMUTE_H
#define TC_RUNTIME_PERMUTE_H

#include <stdint.h>

#include "ast/algorithm.h" /* tc_permute */

/*
 * dst = src + beta * dst over the view p. beta 0 writes dst without reading
 * it (NaN there does not survive). The views must not overlap. Extents of 0
 * copy nothing.
 */
void tc_rt_permute(const tc_permute *p, const double *src, double *dst, double beta);

#endif
