/* execute.h - runs an algorithm's AST on real tensors through a BLAS table. */
#ifndef TC_RUNTIME_EXECUTE_H
#define TC_RUNTIME_EXECUTE_H

#include "ast/algorithm.h"
#include "ast/contraction.h"
#include "runtime/blas.h"

/*
 * C = alpha * A * B + beta * C by algorithm alg of contraction c (sizes
 * set), column-major, the tensors' elements of c->type (alpha and beta
 * complex with c->alpha_im and c->beta_im for complex types). Beta is applied by the kernel calls of the first
 * contracted iteration where the kernel owns it (tc_alg_kernel_owns_beta),
 * else by one pass over C before the loops; beta 0 never reads C, so
 * garbage and NaN there do not survive. Alpha 0 (BLAS's convention) is
 * C = beta * C alone, whatever the algorithm: A and B are not read, so an
 * Inf or NaN in them does not turn into NaN. Temporaries are allocated for this call (aligned,
 * tc_rt_alloc) and freed before it returns. Re-entrant: no static state, so
 * several threads may execute the same algorithm on different tensors.
 * Errors: TC_EUSAGE (no sizes, NULL argument), TC_EINPUT (alg->fits_int is
 * 0: a BLAS argument exceeds INT_MAX), TC_ERESOURCE (no memory for a
 * temporary); C is then unchanged unless the error is TC_ERESOURCE.
 */
tc_status tc_rt_execute(const tc_blas *blas, const tc_algorithm *alg,
                        const tc_contraction *c, const void *A,
                        const void *B, void *C, tc_error *err);

/*
 * tc_rt_execute that gives up once limit_s seconds have passed (0: no
 * limit), checking the clock every 256 kernel calls: *stopped (if not NULL)
 * is then 1 and C holds a partial result.
 */
tc_status tc_rt_execute_within(const tc_blas *blas, const tc_algorithm *alg,
                               const tc_contraction *c, const void *A, const void *B,
                               void *C, double limit_s, int *stopped, tc_error *err);

/*
 * The time an execution spent in each part of its algorithm, for `tcgen
 * explain --measure`: every copy, permutation and kernel node (a perfect
 * nest of loops around the kernel counts as the kernel's, its loops being
 * the calls' own stepping), a split loop as one part (its threads' nodes
 * are not timed one by one), and the pass that scales C by beta. The
 * parts are disjoint stretches of the run, so they add up to at most its
 * time; what is left is the loops' own work between them.
 */
#define TC_RT_MAX_PARTS 32
typedef struct tc_rt_parts {
    int n;
    const tc_node *node[TC_RT_MAX_PARTS]; /* in the order first run */
    double seconds[TC_RT_MAX_PARTS];
    double beta_pass_s;
} tc_rt_parts;

/* tc_rt_execute that adds each part's time to *parts (zeroed by the
 * caller); C is computed the same way. */
tc_status tc_rt_execute_parts(const tc_blas *blas, const tc_algorithm *alg,
                              const tc_contraction *c, const void *A, const void *B,
                              void *C, tc_rt_parts *parts, tc_error *err);

/*
 * One kernel call of k on operands at p0, p1, p2 (k->arg[i] gives their
 * shapes, leading dimensions and increments), accumulating with alpha.
 * The caller checks that the algorithm fits_int.
 */
void tc_rt_call(const tc_blas *blas, const tc_call *k, double alpha, void *p0, void *p1,
                void *p2);
/* The same call scaling the output by beta first (ddot, dgemv, dgemm; beta
 * 0 ignores what the output held). daxpy and dger have no beta: 1 only. */
void tc_rt_call_beta(const tc_blas *blas, const tc_call *k, double alpha, double beta,
                     void *p0, void *p1, void *p2);

/* One slice copy of elements of `type`: gathers the slice at `slice` into
 * the column-major temporary at `temp` (TC_COPY_IN), or scatters it back
 * (TC_COPY_OUT). */
void tc_rt_copy(const tc_copy *cp, tc_type type, void *slice, void *temp);
/* One permutation by its view: the tensor's block at `tensor` into the
 * temporary at `temp` (TC_COPY_IN), or back (TC_COPY_OUT) as tensor =
 * temp + beta * tensor (beta {real, imaginary}; NULL
 * or 0: overwrite); split over `threads` threads, as
 * tcgen's BLAS calls run (tc_blas.threads), where it is large. */
void tc_rt_permutation(const tc_permutation *p, tc_type type, void *tensor, void *temp,
                       const double *beta, int threads);

/* C's view, all of it: its sizes, and its strides on both sides. */
tc_permute tc_rt_c_view(const tc_contraction *c);
/* C += partial over the view v of C (partial in C's layout), elements of
 * `type`, on `threads` threads: what a split contracted loop's thread > 0
 * accumulated (tc_algorithm.partial), added after the loop. */
void tc_rt_add_partial(const tc_permute *v, tc_type type, const void *partial, void *C,
                       int threads);

#endif
