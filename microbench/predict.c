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
    /* a pass over C that no timed call paid (analyze.h) */
    if (st == TC_OK && a->pass_beta != 1.0) {
        st = tc_mb_sample_beta_pass(s, c->tensor[TC_C].elements, a->pass_beta,
                                    &a->beta_pass_seconds, err);
        total += a->beta_pass_seconds;
    }
    if (st != TC_OK || !analysis)
        tc_mb_analysis_free(a);
    else
        *analysis = a;
    *seconds = total;
    return st;
}
