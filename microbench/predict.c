/* predict.c - analysis + sampling = predicted time (predict.h). */
#include "microbench/predict.h"

tc_status tc_mb_predict(tc_mb_sampler *s, const tc_contraction *c, const tc_algorithm *alg,
                        const tc_mb_params *p, double *seconds, tc_mb_analysis **analysis,
                        tc_error *err)
{
    tc_mb_analysis *a = NULL;
    if (analysis)
        *analysis = NULL;
    tc_status st = tc_mb_analyze(alg, c, p, &a, err);
    double total = 0.0;
    for (int i = 0; st == TC_OK && i < a->ncases; i++) {
        st = tc_mb_sample(s, c, &a->cases[i], err);
        total += (double)a->cases[i].count * a->cases[i].seconds;
    }
    /* the executor zeroes (or scales) C first when the kernel cannot
     * apply beta: that pass is part of the algorithm's time. A kernel that
     * owns beta gets it only on the first contracted iteration's calls
     * when a contracted index is looped, and those cases were timed with
     * 1 (analyze.c): what beta costs them, a dgemm with beta 0 zeroing its
     * C first, is the same pass over C once */
    double kernel_beta = tc_alg_kernel_owns_beta(alg) ? tc_alg_kernel_beta(alg, c) : 1.0;
    int untimed = st == TC_OK && kernel_beta != 1.0 && a->ncases > 0 &&
                  a->cases[0].node == alg->kernel_node && a->cases[0].beta == 1.0;
    if (st == TC_OK && (tc_alg_needs_beta_pass(alg, c) || untimed)) {
        st = tc_mb_sample_beta_pass(s, c->tensor[TC_C].elements,
                                    untimed ? kernel_beta : c->beta, &a->beta_pass_seconds, err);
        total += a->beta_pass_seconds;
    }
    if (st != TC_OK || !analysis)
        tc_mb_analysis_free(a);
    else
        *analysis = a;
    *seconds = total;
    return st;
}
