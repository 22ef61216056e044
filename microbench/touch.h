/*
 * touch.h - the memory accesses of the Sampler's setup lists: reading or
 * read-modify-writing every element of an operand, sweeping the remote
 * pool, and flushing an operand's cache lines (docs/design.md §2, §5).
 *
 * An operand is touched as the kernel sees it: n1 columns of n0 elements,
 * element (j0, j1) at p[j0 * s0 + j1 * s1]. Every function returns the
 * number of elements its loops visited, so callers can check what a setup
 * really touched.
 */
#ifndef TC_MICROBENCH_TOUCH_H
#define TC_MICROBENCH_TOUCH_H

#include <stdint.h>

typedef struct tc_mb_shape {
    int64_t n0, n1;  /* elements along dimension 0 and 1 (1 if absent) */
    int64_t s0, s1;  /* their strides in elements */
} tc_mb_shape;

/* Gives every element a small mixed-sign value (none is large enough to
 * overflow or small enough to be denormal after repeated calls, the
 * RangeGuard of §1.5); the writes also fault the pages in (Page0Guard). */
int64_t tc_mb_touch_init(double *p, const tc_mb_shape *sh);
/* The same for elements of `reals` reals (2: complex) of `real_bytes` (4
 * float, 8 double) each, the shape in elements: every real a proper
 * value of its type (a float read from a double's bits may be a NaN or
 * a denormal, which BLAS would run slower on). */
int64_t tc_mb_touch_init_reals(void *p, const tc_mb_shape *sh, int real_bytes, int reals);

/* Adds every element to *acc. */
int64_t tc_mb_touch_read(const double *p, const tc_mb_shape *sh, double *acc);

/* Adds every element to *acc and writes it back plus `zero`, which the
 * caller loads from a volatile 0.0, so the stores cannot be dropped and
 * the lines end up modified as a kernel's output would leave them; the
 * bits written are the bits read (the words may hold floats). */
int64_t tc_mb_touch_rmw(double *p, const tc_mb_shape *sh, double zero, double *acc);

/*
 * Reads one double per line of the next `elements` doubles of a pool of
 * `lines` lines of `line_doubles` doubles, walking down from line *cursor
 * (exclusive) and wrapping from line 0 to the top, so each region is the
 * pool memory used longest ago and no upward stream leads into operands.
 * Adds the values to *acc, moves *cursor and returns `elements`, counted
 * line by line as walked.
 */
int64_t tc_mb_touch_remote(const double *pool, int64_t lines, int line_doubles,
                           int64_t *cursor, int64_t elements, double *acc);

/* 1 where tc_mb_touch_flush works (x86-64: clflush), else 0. */
int tc_mb_touch_can_flush(void);

/* Flushes every line holding an element of the operand from all cache
 * levels (each line once when the elements are visited in address order);
 * `line_bytes` is the granularity used to skip repeats. Follow the flushes
 * with tc_mb_touch_fence(). No-op without clflush. Returns the elements
 * visited. */
int64_t tc_mb_touch_flush(const double *p, const tc_mb_shape *sh, int line_bytes);

/* Orders the flushes before later loads (mfence); no-op without clflush. */
void tc_mb_touch_fence(void);

#endif
