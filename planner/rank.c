/* rank.c - predicted ranking of all algorithms (rank.h). */
#include "planner/rank.h"

#include <stdio.h>
#include <stdlib.h>

#include "ast/error.h"
#include "runtime/memory.h"
#include "runtime/timer.h"

/* Sort key: time, then position in the set (the enumeration order). */
typedef struct keyed {
    tc_rank_entry e;
    int order;
} keyed;

static int by_time(const void *a, const void *b)
{
    const keyed *x = a, *y = b;
    if (x->e.seconds != y->e.seconds)
        return x->e.seconds < y->e.seconds ? -1 : 1;
    return x->order - y->order;
}

tc_status tc_plan_rank(tc_mb_sampler *s, const tc_contraction *c,
                       const tc_algorithm *const *algs, int n, const tc_mb_params *p,
                       double fresh_bandwidth, tc_rank_progress progress, void *data,
                       tc_ranking **out, tc_error *err)
{
    *out = NULL;
    double t0 = tc_rt_now();
    tc_ranking *r = calloc(1, sizeof *r);
    keyed *k = calloc((size_t)n + 1, sizeof *k);
    if (!r || !k) {
        free(r);
        free(k);
        return tc_error_set(err, TC_ERESOURCE, 0, 0, "out of memory ranking %d algorithms",
                            n);
    }
    tc_status st = TC_OK;
    int64_t avail = tc_rt_memory_available();
    for (int i = 0; i < n && st == TC_OK; i++) {
        const tc_algorithm *alg = algs[i];
        if (!alg->fits_int) {
            r->skipped++;
        } else if (!tc_alg_temps_fit(alg, avail)) {
            r->no_memory++;
        } else {
            double t1 = tc_rt_now();
            k[r->count] = (keyed){{alg, 0.0, 0.0}, i};
            tc_error sub; /* err may be NULL (tcgen.h) */
            st = tc_mb_predict(s, c, alg, p, &k[r->count].e.seconds, NULL, &sub);
            for (int t = 0; fresh_bandwidth > 0.0 && t < alg->ntemps; t++)
                if (alg->temp[t].whole)
                    k[r->count].e.seconds +=
                        8.0 * (double)alg->temp[t].elements / fresh_bandwidth;
            k[r->count].e.cost_s = tc_rt_now() - t1;
            r->count++;
            if (st != TC_OK)
                tc_error_set(err, st, 0, 0, "predicting %s: %s", alg->name, sub.message);
        }
        if (progress)
            progress(i + 1, n, data);
    }
    if (st != TC_OK) {
        free(k);
        free(r);
        return st;
    }
    qsort(k, (size_t)r->count, sizeof *k, by_time);
    r->entry = malloc(((size_t)r->count + 1) * sizeof *r->entry);
    for (int i = 0; r->entry && i < r->count; i++)
        r->entry[i] = k[i].e;
    free(k);
    if (!r->entry) {
        free(r);
        return tc_error_set(err, TC_ERESOURCE, 0, 0, "out of memory ranking %d algorithms",
                            n);
    }
    r->elapsed_s = tc_rt_now() - t0;
    *out = r;
    return TC_OK;
}

void tc_ranking_free(tc_ranking *r)
{
    if (!r)
        return;
    free(r->entry);
    free(r);
}
