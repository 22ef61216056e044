/* predict.c - analysis + sampling = predicted time (predict.h). */
#include "microbench/predict.h"

#include <stdlib.h>

#include "ast/error.h"
#include "microbench/sample_impl.h"
#include "runtime/parallel.h"

/* Which of a split algorithm's cases a sampler times: all of them (an
 * algorithm not split), those inside the split loop (each thread's share,
 * on a team sampler) or those outside it (whole-tensor permutations, which
 * the executor runs on all the plan's threads: on the plan's sampler). */
typedef enum { CASES_ALL, CASES_INSIDE, CASES_OUTSIDE } which_cases;

/* Samples a's cases of `which` on s; their count x median into *total. */
static tc_status sample_cases(tc_mb_sampler *s, const tc_contraction *c, tc_mb_analysis *a,
                              which_cases which, double *total, tc_error *err)
{
    tc_status st = TC_OK;
    for (int i = 0; st == TC_OK && i < a->ncases; i++) {
        if (which != CASES_ALL &&
            tc_alg_in_split_loop(a->alg, a->cases[i].node) != (which == CASES_INSIDE))
            continue;
        st = tc_mb_sample(s, c, &a->cases[i], err);
        *total += (double)a->cases[i].count * a->cases[i].seconds;
    }
    return st;
}

static tc_status predict_one(tc_mb_sampler *s, const tc_contraction *c,
                             const tc_algorithm *alg, const tc_mb_params *p, which_cases which,
                             double *seconds, tc_mb_analysis **analysis, tc_error *err)
{
    tc_mb_analysis *a = NULL;
    if (analysis)
        *analysis = NULL;
    double total = 0.0;
    tc_status st = tc_mb_analyze(alg, c, p, &a, err);
    if (st == TC_OK)
        st = sample_cases(s, c, a, which, &total, err);
    /* a pass over C that no timed call paid (analyze.h) */
    if (st == TC_OK && a->pass_beta != 1.0) {
        /* C's bytes as doubles: the pass is timed on 8-byte words */
        st = tc_mb_sample_beta_pass(s, tc_type_words(c->type, c->tensor[TC_C].elements), a->pass_beta,
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

/* A split algorithm's threads, predicted at once: thread t's share on
 * team sampler t. */
typedef struct team_job {
    tc_mb_sampler *const *team;
    const tc_contraction *c;
    const tc_algorithm *alg;
    const tc_mb_params *p;
    tc_mb_analysis *first; /* thread 0's analysis */
    double seconds[TC_MAX_SPLIT];
    tc_status st[TC_MAX_SPLIT];
    tc_error err[TC_MAX_SPLIT];
} team_job;

static void team_part(void *arg, long t, long end)
{
    team_job *j = arg;
    (void)end;
    tc_mbs_team_enter(j->team[t]);
    j->st[t] = predict_one(j->team[t], j->c, j->alg, j->p, CASES_INSIDE, &j->seconds[t],
                           t == 0 ? &j->first : NULL, &j->err[t]);
    tc_mbs_team_leave(j->team[t]);
}

/* The slowest thread's time inside the split loop, plus starting and
 * joining the threads, plus the whole-tensor permutations around the loop
 * timed at the plan's thread count, as the executor runs them, plus a
 * contracted loop's partial C added into C (on thread 0's analysis, which
 * is *analysis where one is asked for). */
static tc_status predict_split(tc_mb_sampler *s, const tc_contraction *c,
                               const tc_algorithm *alg, const tc_mb_params *p, double *seconds,
                               tc_mb_analysis **analysis, tc_error *err)
{
    int n = alg->split;
    if (analysis)
        *analysis = NULL;
    tc_error sub;
    tc_mb_sampler *const *team = tc_mbs_team(s, n, &sub);
    if (!team) {
        if (err)
            *err = sub;
        return sub.code;
    }
    team_job *j = calloc(1, sizeof *j);
    if (!j)
        return tc_error_set(err, TC_ERESOURCE, 0, 0, "out of memory predicting %s", alg->name);
    *j = (team_job){.team = team, .c = c, .alg = alg, .p = p};
    /* one BLAS thread each, set once for all of them (blas.h) */
    int saved = tc_rt_blas_enter(&s->team_blas, 1);
    tc_mbs_team_begin(s, n);
    tc_rt_parallel(n, n, team_part, j);
    tc_rt_blas_leave(&s->team_blas, saved);
    tc_status st = TC_OK;
    *seconds = 0.0;
    for (int t = 0; t < n; t++) {
        if (j->st[t] != TC_OK && st == TC_OK) {
            st = j->st[t];
            if (err)
                *err = j->err[t];
        }
        if (j->seconds[t] > *seconds)
            *seconds = j->seconds[t];
    }
    *seconds += tc_mbs_team_start(s, n);
    tc_mb_analysis *a = j->first;
    free(j);
    double around = 0.0;
    if (st == TC_OK)
        st = sample_cases(s, c, a, CASES_OUTSIDE, &around, err);
    if (st == TC_OK && alg->partial) /* the other threads' partial C into C */
        st = tc_mb_sample_partial_sum(s, c, n - 1, &a->partial_sum_seconds, err);
    *seconds += around + (a ? a->partial_sum_seconds : 0.0);
    if (st == TC_OK && analysis)
        *analysis = a;
    else
        tc_mb_analysis_free(a);
    return st;
}

tc_status tc_mb_predict(tc_mb_sampler *s, const tc_contraction *c, const tc_algorithm *alg,
                        const tc_mb_params *p, double *seconds, tc_mb_analysis **analysis,
                        tc_error *err)
{
    if (alg->split > 1 && s)
        return predict_split(s, c, alg, p, seconds, analysis, err);
    return predict_one(s, c, alg, p, CASES_ALL, seconds, analysis, err);
}
