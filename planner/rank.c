/* rank.c - predicted ranking of all algorithms (rank.h). */
#include "planner/rank.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ast/error.h"
#include "microbench/stats.h"
#include "runtime/memory.h"
#include "runtime/timer.h"

/* Sort key (a time, or a floor under one), then position in the set (the
 * enumeration order). */
typedef struct keyed {
    double key;
    int order;
    tc_rank_entry e;
    double first_s; /* the first prediction's cost (e.cost_s grows with rounds) */
} keyed;

static int by_key(const void *a, const void *b)
{
    const keyed *x = a, *y = b;
    if (x->key != y->key)
        return x->key < y->key ? -1 : 1;
    return x->order - y->order;
}

/* A floor under alg's time: its kernel calls at the cheapest call's time. */
static double call_bound(tc_mb_sampler *s, const tc_algorithm *alg)
{
    double calls = 1.0;
    for (int i = 0; i < alg->nloops; i++)
        calls *= (double)tc_alg_loop_extent(alg, alg->loop_node[i]);
    return calls * tc_mb_sampler_call_floor(s, alg->kernel);
}

/* A tighter floor for the small kernels: alg's prediction with its calls
 * repeated on operands kept in cache (the warm model), timed once per
 * call shape whatever the loop order. 0 for a tiled kernel (dgemm, in
 * the kernel table), whose calls can be long to time warm, and when the
 * prediction fails. */
/* A warm time is timed too, once: noise must not prune. Under the
 * sanitizers on a busy host, ca-dgemv of C[a,b,c] = A[a,i] * B[i,b,c]
 * (48, 48, 48, 8) came out warm at 1.8x its full prediction and was pruned
 * from the best 6 at a margin of 1.2 (2 of 30 runs); 2 prunes as many
 * there without the sanitizers (26-28 of 41). */
#define WARM_MARGIN 2.0

static double warm_bound(tc_mb_sampler *s, const tc_contraction *c, const tc_algorithm *alg,
                         const tc_mb_params *p)
{
    if (tc_kernel_table[alg->kernel].tiled)
        return 0.0;
    tc_mb_params warm = *p;
    warm.model = TC_MODEL_WARM;
    double t = 0.0;
    return tc_mb_predict(s, c, alg, &warm, &t, NULL, NULL) == TC_OK ? t : 0.0;
}

/* Inserts t into best[0..keep), the smallest times so far, ascending. */
static void keep_best(double *best, int keep, int *have, double t)
{
    if (*have == keep && t >= best[keep - 1])
        return;
    int i = *have < keep ? (*have)++ : keep - 1;
    while (i > 0 && best[i - 1] > t) {
        best[i] = best[i - 1];
        i--;
    }
    best[i] = t;
}

/* k[0..m) predicted in `rounds` more rounds, each timing the cases anew
 * (tc_mb_sampler_round) in the order opposite to the round before; each
 * keeps the median of its predictions, and its cost grows by theirs. */
static tc_status predict_again(tc_mb_sampler *s, const tc_contraction *c, const tc_mb_params *p,
                               int rounds, keyed *k, int m, tc_error *err)
{
    double *t = malloc((size_t)m * (size_t)(rounds + 1) * sizeof *t);
    if (!t)
        return tc_error_set(err, TC_ERESOURCE, 0, 0, "out of memory ranking %d algorithms", m);
    for (int i = 0; i < m; i++)
        t[(size_t)i * (size_t)(rounds + 1)] = k[i].e.seconds;
    tc_status st = TC_OK;
    for (int r = 1; r <= rounds && st == TC_OK; r++) {
        tc_mb_sampler_round(s, 1);
        for (int j = 0; j < m && st == TC_OK; j++) {
            int i = r % 2 ? m - 1 - j : j;
            double t1 = tc_rt_now();
            tc_error sub;
            st = tc_mb_predict(s, c, k[i].e.alg, p, &t[(size_t)i * (size_t)(rounds + 1) + r],
                               NULL, &sub);
            k[i].e.cost_s += tc_rt_now() - t1;
            if (st != TC_OK)
                tc_error_set(err, st, 0, 0, "predicting %s: %s", k[i].e.alg->name, sub.message);
        }
    }
    tc_mb_sampler_round(s, 0);
    for (int i = 0; st == TC_OK && i < m; i++) {
        double lo, hi;
        tc_mb_spread(t + (size_t)i * (size_t)(rounds + 1), rounds + 1, &lo, &k[i].e.seconds, &hi);
        k[i].key = k[i].e.seconds;
        k[i].e.spread = (hi - lo) / 2;
        k[i].e.predictions += rounds;
    }
    free(t);
    return st;
}

/*
 * Every ranked algorithm predicted again (rank.h): a shared host's slow
 * phases last longer than a case's timing, and a phase that falls on some
 * cases of a prediction and not on others moved single algorithms by
 * 20-33 % between two predictions of the 176-algorithm oracle, in 1-21 of
 * them per pair (docs/prediction.md, Interleaved rounds); more repetitions
 * per case did not help (30 instead of 10: 160-174 of 176 within 20 %).
 * Only when all the rounds fit the budget, estimated from the first
 * pass's cost: a median of two would not reject a phase.
 */
static tc_status interleave(tc_mb_sampler *s, const tc_contraction *c, const tc_mb_params *p,
                            int rounds, keyed *k, int count, tc_error *err)
{
    double cost = 0.0;
    for (int i = 0; i < count; i++)
        cost += k[i].first_s;
    /* a round at half the repetitions, estimated at half the first pass's
     * cost (on the 176-algorithm oracle it took about 2/3 of it) */
    if (rounds < 2 || count < 2 || rounds * cost / 2 > TC_RANK_INTERLEAVE_BUDGET_S)
        return TC_OK;
    int reps = tc_mb_sampler_set_reps(s, 1); /* the number to restore */
    tc_mb_sampler_set_reps(s, (reps + 1) / 2);
    tc_status st = predict_again(s, c, p, rounds, k, count, err);
    tc_mb_sampler_set_reps(s, reps);
    return st;
}

/* The kernel calls one thread of alg makes. */
static double calls_of(const tc_algorithm *alg)
{
    double calls = 1.0;
    for (int i = 0; i < alg->nloops; i++)
        calls *= (double)tc_alg_loop_extent(alg, alg->loop_node[i]);
    return calls;
}

/*
 * The contenders predicted again (rank.h): a case is timed within a few
 * milliseconds, a shared host's slow phases last longer, and two
 * algorithms whose cases fell in different phases swap places (a CCSD(T)
 * term's dgemm case: 1.06 us in one ranking, 1.34 us in the next). So
 * are, first, the best and the runner-up, however far apart: one phase
 * put a loop of dgemvs first that runs 48 % slower than the best (ao2mo's
 * aqrs-pa-pqrs at 2 threads; 9th-13th in five other rankings); then the
 * best of the algorithms with the fewest calls (one dgemm where there is
 * one) within REFINE_CONTENDER of the best: a phase on its one long call
 * put examples/ccsd's ladder's single dgemm 19th at 2 threads, 36 %
 * behind a loop it beats by 33 %; then the rest of the best REFINE_TOP
 * within REFINE_WITHIN. k is sorted; the contenders are moved to its front.
 */
#define REFINE_TOP 6
#define REFINE_WITHIN 1.25
#define REFINE_CONTENDER 1.5
#define REFINE_MAX_ROUNDS 8
#define REFINE_BUDGET_S 0.2 /* the rounds' cost, estimated from the first
                               predictions' (a CCSD term's 6 TTGT
                               candidates: 0.3 s without it) ... */
#define REFINE_RUNS 2.0     /* ... or this many runs of the best, if more: a
                               contraction of 0.3 s whose few candidates took
                               0.1 s each to predict was never refined, and
                               one slow phase on one of them (A^B^C^-dgemm of
                               TCCG's ijkl-minj-nlmk: 0.41 s, 0.30-0.31 in
                               two other rankings) picked the slower one ... */
#define REFINE_SHARE 1.0    /* ... or this share of the first pass's cost,
                               if more: the ladder's single dgemm costs 0.5 s
                               to predict (four calls of 0.13 s) */

/* The index in k[from..count) of the best-predicted algorithm with the
 * fewest calls, or -1 when one of k[0..from) has as few. */
static int fewest_calls(const keyed *k, int from, int count)
{
    int best = 0;
    double least = calls_of(k[0].e.alg);
    for (int i = 1; i < count; i++) {
        double n = calls_of(k[i].e.alg);
        if (n < least) {
            least = n;
            best = i;
        }
    }
    return best >= from ? best : -1;
}

static tc_status refine(tc_mb_sampler *s, const tc_contraction *c, const tc_mb_params *p,
                        int rounds, keyed *k, int count, tc_error *err)
{
    if (rounds > REFINE_MAX_ROUNDS)
        rounds = REFINE_MAX_ROUNDS;
    if (count < 2 || rounds < 1)
        return TC_OK;
    double first = 0.0;
    for (int i = 0; i < count; i++)
        first += k[i].first_s;
    double budget = REFINE_RUNS * k[0].e.seconds;
    if (budget < REFINE_BUDGET_S)
        budget = REFINE_BUDGET_S;
    if (budget < REFINE_SHARE * first)
        budget = REFINE_SHARE * first;
    int top = 2; /* the best and the runner-up */
    double cost = k[0].first_s + k[1].first_s;
    if (rounds * cost > budget)
        return TC_OK;
    int f = fewest_calls(k, top, count);
    if (f >= 0 && k[f].e.seconds <= REFINE_CONTENDER * k[0].e.seconds &&
        rounds * (cost + k[f].first_s) <= budget) {
        keyed contender = k[f];
        memmove(k + top + 1, k + top, (size_t)(f - top) * sizeof *k);
        k[top++] = contender;
        cost += contender.first_s;
    }
    while (top < count && top < REFINE_TOP && k[top].e.seconds <= REFINE_WITHIN * k[0].e.seconds &&
           rounds * (cost + k[top].first_s) <= budget)
        cost += k[top++].first_s;
    return predict_again(s, c, p, rounds, k, top, err);
}

/* The elements alg's copies and permutations move in one run. */
static double moved_of(const tc_algorithm *alg)
{
    double moved = 0.0;
    for (int i = 0; i < alg->ncopies; i++) {
        const tc_node *n = alg->copy_node[i];
        double each = n->kind == TC_NODE_PERMUTE
                          ? (double)tc_permutation_elements(n->perm)
                          : (double)n->copy->view.extent[0] * (double)n->copy->view.extent[1];
        moved += each * (double)tc_mb_executions(alg, n);
    }
    return moved;
}

/* Pairs of alg's loops, one inside the other, in which the inner loop
 * moves the kernel's output further than the outer one: 0 when the loops
 * write it front to back. A CCSD(T) term's 91 MiB C, written by loops of
 * small dgemms, ran 8-19 % slower out of that order (jkc(ab)-dgemm against
 * kjc(ab)-dgemm of C[a,b,c,i,j,k], B^ckj(ab) against B^kjc(ab), 23
 * interleaved rounds), where the prediction saw a tie; where only outer
 * loops differ the evidence is mixed (docs/decisions.md). */
static int out_of_order(const tc_algorithm *alg)
{
    const tc_operand *out = &alg->kernel_node->call->arg[2];
    int64_t step[TC_MAX_INDICES] = {0};
    for (int i = 0; i < alg->nloops; i++)
        for (int d = 0; d < out->ndep; d++)
            if (out->dep[d] == alg->loop[i])
                step[i] = out->dep_stride[d];
    int pairs = 0;
    for (int i = 0; i < alg->nloops; i++)
        for (int j = i + 1; j < alg->nloops; j++)
            pairs += step[i] > 0 && step[j] > step[i];
    return pairs;
}

/* 1 when a goes before b among near-ties: fewer calls, then fewer
 * elements moved, then its output written more nearly in order, then its
 * name. */
static int structurally_before(const tc_algorithm *a, const tc_algorithm *b)
{
    double ca = calls_of(a), cb = calls_of(b), ma = moved_of(a), mb = moved_of(b);
    if (ca != cb)
        return ca < cb;
    if (ma != mb)
        return ma < mb;
    int oa = out_of_order(a), ob = out_of_order(b);
    if (oa != ob)
        return oa < ob;
    return strcmp(a->name, b->name) < 0;
}

/* 1 when y makes x's kernel calls (the same kernel, shapes and
 * transposes, under the same loops, split alike) on operands no farther
 * apart (leading dimensions) and its copies and permutations move fewer
 * elements: x only adds data movement, such as A^k-dgemm of C[i,j,k] =
 * A[i,l,k] * B[l,j] (A permuted so that a fused (ik) could be one dgemm,
 * then looped over k anyway, its slices 144 x 144 at a leading
 * dimension of 18432) against k-dgemm (A's slices in place, at 144). */
static int dominates(const tc_algorithm *y, const tc_algorithm *x)
{
    const tc_call *ky = y->kernel_node->call, *kx = x->kernel_node->call;
    if (y->kernel != x->kernel || y->split != x->split || y->nloops != x->nloops ||
        ky->trans_a != kx->trans_a || ky->trans_b != kx->trans_b || ky->m != kx->m ||
        ky->n != kx->n || ky->k != kx->k)
        return 0;
    for (int a = 0; a < 3; a++)
        if (ky->arg[a].rank != kx->arg[a].rank || ky->arg[a].ld > kx->arg[a].ld)
            return 0;
    for (int i = 0; i < y->nloops; i++)
        if (y->loop[i] != x->loop[i] ||
            tc_alg_loop_extent(y, y->loop_node[i]) != tc_alg_loop_extent(x, x->loop_node[i]))
            return 0;
    return moved_of(y) < moved_of(x);
}

/* The best-predicted entry of e[1..n) within `limit` seconds that
 * dominates e[0], or 0. */
static int dominating(const tc_rank_entry *e, int n, double limit)
{
    for (int i = 1; i < n && e[i].seconds <= limit; i++)
        if (dominates(e[i].alg, e[0].alg))
            return i;
    return 0;
}

static void move_to_front(tc_rank_entry *e, int i)
{
    tc_rank_entry chosen = e[i];
    memmove(e + 1, e, (size_t)i * sizeof *e);
    e[0] = chosen;
}

void tc_rank_break_ties(tc_rank_entry *e, int n)
{
    /* the window stays the best prediction's: a chain of doubles must
     * not walk it up (each step moves fewer elements, so it ends) */
    double limit = n > 0 ? (1.0 + TC_RANK_DOMINATED_MAX) * e[0].seconds : 0.0;
    for (int d; (d = dominating(e, n, limit)) > 0;)
        move_to_front(e, d);
    int best = 0;
    for (int i = 1; i < n && e[0].spread > 0.0; i++) {
        if (e[i].seconds - e[0].seconds > e[0].spread + e[i].spread ||
            e[i].seconds > (1.0 + TC_RANK_TIE_MAX) * e[0].seconds)
            continue;
        if (structurally_before(e[i].alg, e[best].alg))
            best = i;
    }
    if (best > 0)
        move_to_front(e, best);
}

/* The first prediction of alg (algs[i]) into *slot, with its cost. */
static tc_status predict_first(tc_mb_sampler *s, const tc_contraction *c,
                               const tc_algorithm *alg, int i, const tc_mb_params *p,
                               keyed *slot, tc_error *err)
{
    double t1 = tc_rt_now();
    *slot = (keyed){0.0, i, {alg, 0.0, 0.0, 0.0, 1}, 0.0};
    tc_error sub; /* err may be NULL (tcgen.h) */
    tc_status st = tc_mb_predict(s, c, alg, p, &slot->e.seconds, NULL, &sub);
    slot->e.cost_s = slot->first_s = tc_rt_now() - t1;
    slot->key = slot->e.seconds;
    if (st != TC_OK)
        tc_error_set(err, st, 0, 0, "predicting %s: %s", alg->name, sub.message);
    return st;
}

/* r's entries: the predictions k[0..r->count) in their order (k freed).
 * 0, or -1 when out of memory. */
static int entries_of(tc_ranking *r, keyed *k)
{
    r->entry = malloc(((size_t)r->count + 1) * sizeof *r->entry);
    for (int i = 0; r->entry && i < r->count; i++)
        r->entry[i] = k[i].e;
    free(k);
    return r->entry ? 0 : -1;
}

tc_status tc_plan_rank(tc_mb_sampler *s, const tc_contraction *c,
                       const tc_algorithm *const *algs, int n, const tc_mb_params *p,
                       int64_t workspace, int keep, int rounds, tc_rank_progress progress,
                       void *data, tc_ranking **out, tc_error *err)
{
    *out = NULL;
    double t0 = tc_rt_now();
    tc_ranking *r = calloc(1, sizeof *r);
    keyed *k = calloc((size_t)n + 1, sizeof *k);
    keyed *order = calloc((size_t)n + 1, sizeof *order);
    double *best = calloc((size_t)(keep > 0 ? keep : 1), sizeof *best);
    if (!r || !k || !order || !best) {
        free(r);
        free(k);
        free(order);
        free(best);
        return tc_error_set(err, TC_ERESOURCE, 0, 0, "out of memory ranking %d algorithms",
                            n);
    }
    /* with keep: the fewest-calls algorithms first, and none predicted
     * whose call floor alone exceeds the keep-th best time so far, by
     * more than an algorithm that dominates the best may lie behind it
     * (tc_rank_break_ties) */
    for (int i = 0; i < n; i++)
        order[i] = (keyed){keep > 0 && s ? call_bound(s, algs[i]) : 0.0, i, {0}, 0.0};
    if (keep > 0 && s)
        qsort(order, (size_t)n, sizeof *order, by_key);
    tc_status st = TC_OK;
    int kept = 0;
    for (int j = 0; j < n && st == TC_OK; j++) {
        int i = order[j].order;
        const tc_algorithm *alg = algs[i];
        if (keep > 0 && kept == keep &&
            order[j].key > (1.0 + TC_RANK_DOMINATED_MAX) * best[keep - 1]) {
            r->pruned += n - j;
            break;
        }
        if (keep > 0 && kept == keep &&
            warm_bound(s, c, alg, p) > WARM_MARGIN * best[keep - 1]) {
            r->pruned++;
            continue;
        }
        if (!alg->fits_int) {
            r->skipped++;
        } else if (!tc_alg_temps_fit(alg, workspace)) {
            r->no_memory++;
        } else {
            st = predict_first(s, c, alg, i, p, &k[r->count], err);
            if (keep > 0)
                keep_best(best, keep, &kept, k[r->count].e.seconds);
            r->count++;
        }
        if (progress)
            progress(j + 1, n, data);
    }
    if (progress && r->pruned)
        progress(n, n, data);
    free(order);
    free(best);
    if (st == TC_OK && s)
        st = interleave(s, c, p, rounds, k, r->count, err);
    if (st == TC_OK && s) {
        qsort(k, (size_t)r->count, sizeof *k, by_key);
        st = refine(s, c, p, rounds, k, r->count, err);
    }
    if (st != TC_OK) {
        free(k);
        free(r);
        return st;
    }
    qsort(k, (size_t)r->count, sizeof *k, by_key);
    if (entries_of(r, k) != 0) {
        free(r);
        return tc_error_set(err, TC_ERESOURCE, 0, 0, "out of memory ranking %d algorithms",
                            n);
    }
    tc_rank_break_ties(r->entry, r->count);
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
