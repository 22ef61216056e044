/*
 * kernel_run.h - the kernel table's execute rows (ast/kernel.h): how the
 * executor runs one call of each kernel, and a perfect nest of them.
 *
 * A perfect nest: loops that each hold only the next loop, the innermost
 * holding only the kernel. It runs as an odometer (tc_rt_nest) with the
 * kernel's operands stepped, not recomputed. With tiny calls (a ddot of 8
 * elements takes a few ns) every instruction shows, so a row may write the
 * nest out with its BLAS function fetched once (ddot and daxpy do): that
 * takes an 8-element ddot nest from 1.9x to 1.3x the emitted C
 * (bench/execute_overhead.sh).
 */
#ifndef TC_RUNTIME_KERNEL_RUN_H
#define TC_RUNTIME_KERNEL_RUN_H

#include <stdint.h>

#include "ast/algorithm.h"
#include "runtime/blas.h"

typedef struct tc_rt_nest {
    int depth;
    uint32_t contracted;                  /* bit l: level l is a contracted index */
    uint32_t moved;                       /* bit l: level l is past iteration 0 */
    int64_t extent[TC_MAX_INDICES], count[TC_MAX_INDICES];
    const int64_t *step[TC_MAX_INDICES]; /* how far each operand moves per level,
                                            in bytes */
    char *p[3];                           /* the kernel's operands now */
} tc_rt_nest;

/* Moves to the next call: steps the innermost level, carrying outwards.
 * Returns 0 when the nest is done. */
static inline int tc_rt_nest_advance(tc_rt_nest *x)
{
    for (int l = x->depth - 1; l >= 0; l--) {
        const int64_t *s = x->step[l];
        x->p[0] += s[0];
        x->p[1] += s[1];
        x->p[2] += s[2];
        if (++x->count[l] < x->extent[l]) {
            x->moved |= 1u << l;
            return 1;
        }
        x->count[l] = 0;
        x->moved &= ~(1u << l);
        x->p[0] -= s[0] * x->extent[l];
        x->p[1] -= s[1] * x->extent[l];
        x->p[2] -= s[2] * x->extent[l];
    }
    return 0;
}

/* Whether the current call of a nest gets the beta: every contracted
 * level is at 0 (and first_outside: the loops outside the nest are). */
static inline int tc_rt_nest_first(const tc_rt_nest *x, int first_outside)
{
    return first_outside && !(x->moved & x->contracted);
}

/* The beta of the current call of a nest: beta on its first calls, else 1. */
static inline double tc_rt_nest_beta(const tc_rt_nest *x, int first_outside, double beta)
{
    return tc_rt_nest_first(x, first_outside) ? beta : 1.0;
}

/* Rows take alpha and beta as {real, imaginary} (the imaginary part read
 * for complex calls only) and operands of the call's type (k->type). */
typedef struct tc_kernel_run_row {
    /* One call on operands at p0, p1, p2, the output scaled by beta first
     * where the kernel applies one (tc_rt_call_beta). */
    void (*call)(const tc_blas *b, const tc_call *k, const double *alpha, const double *beta,
                 void *p0, void *p1, void *p2);
    /* Every call of the nest *x from its current position (NULL: the
     * executor calls `call` per iteration). */
    void (*nest)(const tc_blas *b, const tc_call *k, const double *alpha, const double *beta,
                 int first_outside, tc_rt_nest *x);
} tc_kernel_run_row;

/* Indexed by tc_kernel. */
extern const tc_kernel_run_row tc_kernel_run_rows[TC_KERNEL_COUNT];

#endif
