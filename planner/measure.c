/* measure.c - timed runs of whole algorithms on real tensors (measure.h). */
#include "planner/measure.h"

#include <stdlib.h>
#include <string.h>

#include "ast/error.h"
#include "microbench/stats.h"
#include "runtime/execute.h"
#include "runtime/memory.h"
#include "runtime/memory_limit.h"
#include "runtime/timer.h"

/* n elements of c's type, each real a mixed-sign value in [-1, 1) from a
 * 64-bit LCG (no all-zero data). */
static void fill(const tc_contraction *c, void *x, int64_t n, uint64_t seed)
{
    const tc_type_row *row = tc_type_row_of(c->type);
    for (int64_t i = 0; i < n * row->reals; i++) {
        seed = seed * 6364136223846793005ull + 1442695040888963407ull;
        double v = (double)(seed >> 11) * 0x1p-52 - 1.0;
        if (row->real_bytes == 4)
            ((float *)x)[i] = (float)v;
        else
            ((double *)x)[i] = v;
    }
}

double tc_plan_measure_bytes(const tc_contraction *c)
{
    double e = (double)c->tensor[TC_A].span + (double)c->tensor[TC_B].span +
               (double)c->tensor[TC_C].span * (c->beta != 0.0 ? 2.0 : 1.0);
    return e * (double)tc_type_row_of(c->type)->bytes;
}

/* tc_rt_alloc of n elements of c's type. */
static double *alloc_typed(const tc_contraction *c, int64_t n, tc_error *err)
{
    return tc_rt_alloc(tc_type_words(c->type, n), err);
}

typedef struct tensors {
    double *a, *b, *c, *c0; /* c0: C's initial values when beta != 0 */
} tensors;

static void release(tensors *t)
{
    tc_rt_free(t->a);
    tc_rt_free(t->b);
    tc_rt_free(t->c);
    tc_rt_free(t->c0);
}

static tc_status allocate(const tc_contraction *c, tensors *t, tc_error *err)
{
    memset(t, 0, sizeof *t);
    double need = tc_plan_measure_bytes(c);
    int64_t avail = tc_rt_memory_available();
    if (avail >= 0 && need > (double)avail)
        return tc_error_set(err, TC_ERESOURCE, 0, 0,
                            "measuring needs %.0f MiB for the tensors but only %lld MiB of "
                            "memory are available",
                            need / 1048576.0, (long long)(avail / 1048576));
    int64_t nc = c->tensor[TC_C].span;
    if (!(t->a = alloc_typed(c, c->tensor[TC_A].span, err)) ||
        !(t->b = alloc_typed(c, c->tensor[TC_B].span, err)) ||
        !(t->c = alloc_typed(c, nc, err)) ||
        (c->beta != 0.0 && !(t->c0 = alloc_typed(c, nc, err)))) {
        release(t);
        return TC_ERESOURCE;
    }
    fill(c, t->a, c->tensor[TC_A].span, 1);
    fill(c, t->b, c->tensor[TC_B].span, 2);
    fill(c, t->c, nc, 3);
    if (t->c0)
        memcpy(t->c0, t->c, (size_t)tc_tensor_bytes(c, TC_C));
    return TC_OK;
}

/* One run; restores C first when the contraction reads it. */
static tc_status run_once(const tc_contraction *c, const tc_algorithm *alg, const tensors *t,
                          const tc_measure_options *o, double limit, double *seconds,
                          int *stopped, tc_error *err)
{
    if (t->c0)
        memcpy(t->c, t->c0, (size_t)tc_tensor_bytes(c, TC_C));
    double t0 = tc_rt_now();
    tc_status st = tc_rt_execute_within(o->blas, alg, c, t->a, t->b, t->c, limit, stopped, err);
    *seconds = tc_rt_now() - t0;
    return st;
}

static tc_status measure_one(const tc_contraction *c, const tc_algorithm *alg,
                             const tensors *t, const tc_measure_options *o, double *times,
                             tc_measure_entry *e, tc_error *err)
{
    int stopped = 0;
    double s;
    e->alg = alg;
    tc_status st = run_once(c, alg, t, o, o->time_limit_s, &s, &stopped, err);
    if (st != TC_OK)
        return st;
    if (stopped || s > o->time_limit_s) {
        e->over_limit = 1;
        e->seconds = o->time_limit_s;
        return TC_OK;
    }
    for (int r = 0; r < o->reps; r++)
        if ((st = run_once(c, alg, t, o, 0.0, &times[r], NULL, err)) != TC_OK)
            return st;
    double lo, hi;
    tc_mb_spread(times, o->reps, &lo, &e->seconds, &hi);
    return TC_OK;
}

tc_status tc_plan_measure(const tc_contraction *c, const tc_algorithm *const *algs, int n,
                          const tc_measure_options *o, tc_measure_progress progress,
                          void *data, tc_measurements **out, tc_error *err)
{
    *out = NULL;
    if (!c->has_sizes || o->reps < 1 || !(o->time_limit_s > 0))
        return tc_error_set(err, TC_EUSAGE, 0, 0, "tc_plan_measure: bad arguments");
    double t0 = tc_rt_now();
    tensors t;
    tc_status st = allocate(c, &t, err);
    if (st != TC_OK)
        return st;
    int rounds = o->rounds > 1 ? o->rounds : 1;
    tc_measurements *m = calloc(1, sizeof *m);
    tc_measure_entry *e = calloc((size_t)n + 1, sizeof *e);
    double *times = calloc((size_t)o->reps, sizeof *times);
    double *per_round = calloc((size_t)n * (size_t)rounds + 1, sizeof *per_round);
    if (!m || !e || !times || !per_round)
        st = tc_error_set(err, TC_ERESOURCE, 0, 0, "out of memory measuring");
    for (int r = 0; st == TC_OK && r < rounds; r++)
        for (int k = 0; st == TC_OK && k < n; k++) {
            int i = r % 2 ? n - 1 - k : k; /* odd rounds backwards */
            if (!e[i].over_limit) {
                st = measure_one(c, algs[i], &t, o, times, &e[i], err);
                per_round[(size_t)i * rounds + r] = e[i].seconds;
            }
            if (progress)
                progress(r * n + k + 1, rounds * n, data);
        }
    for (int i = 0; st == TC_OK && rounds > 1 && i < n; i++) {
        double lo, hi;
        if (!e[i].over_limit)
            tc_mb_spread(per_round + (size_t)i * rounds, rounds, &lo, &e[i].seconds, &hi);
    }
    free(per_round);
    free(times);
    release(&t);
    if (st != TC_OK) {
        free(e);
        free(m);
        return st;
    }
    m->count = n;
    m->entry = e;
    m->elapsed_s = tc_rt_now() - t0;
    *out = m;
    return TC_OK;
}

/* The median over runs[0..reps-1] of the time each part took (a part
 * missing from a run counts 0 there) into *out. */
static void median_parts(const tc_rt_parts *runs, int reps, double *times, tc_rt_parts *out)
{
    double lo, hi;
    *out = runs[0];
    for (int i = 0; i < out->n; i++) {
        for (int r = 0; r < reps; r++) {
            times[r] = 0.0;
            for (int j = 0; j < runs[r].n; j++)
                if (runs[r].node[j] == out->node[i])
                    times[r] = runs[r].seconds[j];
        }
        tc_mb_spread(times, reps, &lo, &out->seconds[i], &hi);
    }
    for (int r = 0; r < reps; r++)
        times[r] = runs[r].beta_pass_s;
    tc_mb_spread(times, reps, &lo, &out->beta_pass_s, &hi);
}

tc_status tc_plan_measure_parts(const tc_contraction *c, const tc_algorithm *alg,
                                const tc_measure_options *o, tc_rt_parts *parts,
                                double *seconds, tc_error *err)
{
    if (!c->has_sizes || o->reps < 1 || !alg->fits_int)
        return tc_error_set(err, TC_EUSAGE, 0, 0, "tc_plan_measure_parts: bad arguments");
    tensors t;
    tc_status st = allocate(c, &t, err);
    if (st != TC_OK)
        return st;
    tc_rt_parts *runs = calloc((size_t)o->reps + 1, sizeof *runs);
    double *times = calloc((size_t)o->reps + 1, sizeof *times);
    double untimed, lo, hi;
    if (!runs || !times)
        st = tc_error_set(err, TC_ERESOURCE, 0, 0, "out of memory measuring");
    else /* the cache as a repeated contraction finds it, as tc_plan_measure */
        st = run_once(c, alg, &t, o, 0.0, &untimed, NULL, err);
    for (int r = 0; st == TC_OK && r < o->reps; r++) {
        if (t.c0)
            memcpy(t.c, t.c0, (size_t)tc_tensor_bytes(c, TC_C));
        double t0 = tc_rt_now();
        st = tc_rt_execute_parts(o->blas, alg, c, t.a, t.b, t.c, &runs[r], err);
        times[r] = tc_rt_now() - t0;
    }
    if (st == TC_OK) {
        tc_mb_spread(times, o->reps, &lo, seconds, &hi);
        median_parts(runs, o->reps, times, parts);
    }
    free(times);
    free(runs);
    release(&t);
    return st;
}

void tc_measurements_free(tc_measurements *m)
{
    if (!m)
        return;
    free(m->entry);
    free(m);
}
