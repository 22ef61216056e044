/*
 * predict.h - an algorithm's predicted runtime: the sum over its cases of
 * occurrence count x median time of the case (docs/design.md §5), plus the
 * executor's pass over C when the algorithm's kernel cannot apply beta. A
 * loop split over P threads (tc_algorithm.split) is predicted P-wide: one
 * thread's share on each of P team samplers at once, BLAS on one thread,
 * the slowest thread's time plus starting and joining the threads
 * (docs/design.md §7).
 */
#ifndef TC_MICROBENCH_PREDICT_H
#define TC_MICROBENCH_PREDICT_H

#include "microbench/analyze.h"
#include "microbench/sample.h"

/*
 * Analyses alg under p and samples each case with s. *seconds gets the
 * prediction. When analysis is non-NULL, *analysis gets the analysis with
 * every case's median filled in (the caller frees it with
 * tc_mb_analysis_free); otherwise it is freed here. Errors are those of
 * tc_mb_analyze and tc_mb_sample.
 */
tc_status tc_mb_predict(tc_mb_sampler *s, const tc_contraction *c, const tc_algorithm *alg,
                        const tc_mb_params *p, double *seconds, tc_mb_analysis **analysis,
                        tc_error *err);

#endif
