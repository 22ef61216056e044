/* beta.c - the executor's passes over C (beta, partial sums), and the cheapest
 * call (sample_impl.h). */
#include "microbench/sample_impl.h"

#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ast/error.h"
#include "runtime/execute.h"
#include "runtime/kernel_run.h"

/* ---- the beta pass --------------------------------------------------- */

/* The executor's pass over C before an algorithm whose kernel cannot apply
 * beta (runtime/execute.c): the same loop. */
static void beta_pass(double *c, int64_t n, double beta)
{
    for (int64_t e = 0; e < n; e++)
        c[e] = beta == 0.0 ? 0.0 : c[e] * beta;
}

tc_status tc_mb_sample_beta_pass(tc_mb_sampler *s, int64_t elements, double beta,
                                 double *seconds, tc_error *err)
{
    if (!s || !seconds || elements < 0)
        return tc_error_set(err, TC_EUSAGE, 0, 0, "tc_mb_sample_beta_pass: bad argument");
    *seconds = 0.0;
    if (elements == 0)
        return TC_OK;
    /* C's distance is a whole run of the algorithm: at least C itself */
    int level = tc_mb_sampler_level(s, elements);
    /* a part, scaled up: within the budget, and from memory a streaming
     * pass of TC_MB_BETA_PART elements already runs at the rate of a longer one
     * (flushing all of C every repetition cost more than the prediction) */
    int64_t room = (s->budget - s->pool_bytes) / 8, n = elements;
    if (level == s->nlevels && room > TC_MB_BETA_PART)
        room = TC_MB_BETA_PART;
    double scale = 1.0;
    while (n > room && n > 1) {
        n = (n + 1) / 2;
        scale = (double)elements / (double)n;
    }
    char key[128];
    snprintf(key, sizeof key, "beta-pass n%lld b%d L%d x%.17g round%d", (long long)n,
             beta == 0.0 ? 0 : 1, level, scale, s->round);
    if (tc_mb_memo_find(s->memo, key, seconds)) {
        s->reused++;
        return TC_OK;
    }
    tc_status st = tc_mb_budget_reserve(n * 8, s->budget, err);
    if (st != TC_OK)
        return st;
    double *c = tc_rt_alloc(n, err);
    if (!c) {
        tc_mb_budget_release(n * 8);
        return TC_ERESOURCE;
    }
    tc_mb_shape sh = {n, 1, 1, 0};
    tc_mb_touch_init(c, &sh);
    double acc = 0.0;
    for (int r = 0; r <= s->o.reps; r++) { /* the first is the warm-up */
        if (level == s->nlevels && s->flush) {
            tc_mb_touch_flush(c, &sh, s->o.line_bytes);
            tc_mb_touch_fence();
        } else {
            tc_mb_touch_rmw(c, &sh, s->zero, &acc);
            if (level > 0)
                tc_mb_touch_remote(s->pool, s->pool_lines, s->line_doubles, &s->cursor,
                                   tc_mbs_evict_elements(s, level), &acc);
        }
        uint64_t t0 = tc_rt_timer_start();
        beta_pass(c, n, beta);
        uint64_t t1 = tc_rt_timer_stop();
        if (r > 0)
            s->times[r - 1] = t1 > t0 ? t1 - t0 : 0;
    }
    s->sink = acc + c[n - 1];
    tc_rt_free(c);
    tc_mb_budget_release(n * 8);
    *seconds = tc_rt_timer_estimate(s->o.timer, s->times, s->o.reps) * scale;
    s->timed++;
    if (tc_mb_memo_put(s->memo, key, *seconds) != 0)
        return tc_error_set(err, TC_ERESOURCE, 0, 0, "out of memory remembering a time");
    return TC_OK;
}

/* ---- the partial sums of a split contracted loop --------------------- */

/* Elements of the view v from its first to one past its last. */
static int64_t view_span(const tc_permute *v)
{
    int64_t span = 1;
    for (int k = 0; k < v->rank; k++)
        span += (v->extent[k] - 1) * v->dst_stride[k];
    return span;
}

tc_status tc_mb_sample_partial_sum(tc_mb_sampler *s, const tc_contraction *c, int partials,
                                   double *seconds, tc_error *err)
{
    if (!s || !c || !seconds || partials < 0)
        return tc_error_set(err, TC_EUSAGE, 0, 0, "tc_mb_sample_partial_sum: bad argument");
    *seconds = 0.0;
    tc_permute v = tc_rt_c_view(c);
    int64_t all = tc_permute_elements(&v);
    if (partials == 0 || all == 0)
        return TC_OK;
    /* C and a partial: both just written by their threads, in the level
     * their size puts them in (memory: flushed) */
    int64_t bytes = tc_type_row_of(c->type)->bytes;
    int level = tc_mb_sampler_level(s, 2 * tc_type_words(c->type, all));
    /* within the budget: the outermost dimension halved, the time scaled */
    int64_t room = (s->budget - s->pool_bytes) / 2;
    for (int k = v.rank - 1; k >= 0 && view_span(&v) * bytes > room;)
        if (v.extent[k] > 1)
            v.extent[k] = (v.extent[k] + 1) / 2;
        else
            k--;
    double scale = (double)all / (double)tc_permute_elements(&v);
    int64_t words = tc_type_words(c->type, view_span(&v));
    char key[160];
    snprintf(key, sizeof key, "partial-sum w%lld e%lld t%d L%d x%.17g round%d",
             (long long)words, (long long)tc_permute_elements(&v), s->o.blas->threads, level,
             scale, s->round);
    if (tc_mb_memo_find(s->memo, key, seconds)) {
        *seconds *= partials;
        s->reused++;
        return TC_OK;
    }
    tc_status st = tc_mb_budget_reserve(2 * words * 8, s->budget, err);
    if (st != TC_OK)
        return st;
    double *to = tc_rt_alloc(words, err), *from = to ? tc_rt_alloc(words, err) : NULL;
    if (!from) {
        tc_rt_free(to);
        tc_mb_budget_release(2 * words * 8);
        return TC_ERESOURCE;
    }
    tc_mb_shape sh = {words, 1, 1, 0};
    tc_mb_touch_init(to, &sh);
    tc_mb_touch_init(from, &sh);
    double acc = 0.0;
    for (int r = 0; r <= s->o.reps; r++) { /* the first is the warm-up */
        if (level == s->nlevels && s->flush) {
            tc_mb_touch_flush(to, &sh, s->o.line_bytes);
            tc_mb_touch_flush(from, &sh, s->o.line_bytes);
            tc_mb_touch_fence();
        } else {
            tc_mb_touch_rmw(to, &sh, s->zero, &acc);
            tc_mb_touch_rmw(from, &sh, s->zero, &acc);
        }
        uint64_t t0 = tc_rt_timer_start();
        tc_rt_add_partial(&v, c->type, from, to, s->o.blas->threads);
        uint64_t t1 = tc_rt_timer_stop();
        if (r > 0)
            s->times[r - 1] = t1 > t0 ? t1 - t0 : 0;
    }
    s->sink = acc + to[words - 1];
    tc_rt_free(to);
    tc_rt_free(from);
    tc_mb_budget_release(2 * words * 8);
    *seconds = tc_rt_timer_estimate(s->o.timer, s->times, s->o.reps) * scale;
    s->timed++;
    if (tc_mb_memo_put(s->memo, key, *seconds) != 0)
        return tc_error_set(err, TC_ERESOURCE, 0, 0, "out of memory remembering a time");
    *seconds *= partials;
    return TC_OK;
}

/* ---- the cheapest call ------------------------------------------------ */


double tc_mb_sampler_call_floor(tc_mb_sampler *s, tc_kernel kernel)
{
    if (!s || kernel < 0 || kernel >= TC_KERNEL_COUNT)
        return 0.0;
    if (s->call_floor[kernel] > 0.0)
        return s->call_floor[kernel];
    const tc_blas *b = s->o.blas;
    /* one call of every operand of 1 element (the kernel's execute row) */
    tc_call one;
    memset(&one, 0, sizeof one);
    one.kernel = kernel;
    one.m = one.n = one.k = 1;
    for (int a = 0; a < 3; a++)
        one.arg[a].ld = 1;
    void (*call)(const tc_blas *, const tc_call *, const double *, const double *, void *,
                 void *, void *) = tc_kernel_run_rows[kernel].call;
    static const double plus[2] = {1.0, 0.0}, minus[2] = {-1.0, 0.0};
    double p0[1] = {0.5}, p1[1] = {0.25}, p2[1] = {0.125}, best = 0.0;
    int saved = tc_rt_blas_enter(b, b->threads);
    for (int r = 0; r < TC_MB_FLOOR_BATCHES; r++) {
        double t0 = tc_rt_now();
        for (int i = 0; i < TC_MB_FLOOR_CALLS; i++) /* alternating: outputs stay bounded */
            call(b, &one, i % 2 ? plus : minus, plus, p0, p1, p2);
        double t = (tc_rt_now() - t0) / TC_MB_FLOOR_CALLS;
        if (t > 0.0 && (best == 0.0 || t < best))
            best = t;
    }
    tc_rt_blas_leave(b, saved);
    s->sink = p2[0];
    s->call_floor[kernel] = best;
    return best;
}

