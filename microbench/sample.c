/*
 * sample.c - the Sampler (sample.h): computes a case's recipe once (its
 * parts: sample_impl.h; the rules it applies: rules.h), allocates the
 * operands at their real strides, replays the recipe's setup steps, times
 * one kernel or copy call (or a train) per repetition, keeps the median,
 * and remembers it by the recipe serialised as the key.
 *
 * Timing rules (docs/design.md §2): a warm-up call before the repetitions
 * (InstLdGuard), operands initialised on every element the call touches
 * (Page0Guard), alpha's sign flipped every repetition on mixed-sign data so
 * the accumulating outputs stay bounded (RangeGuard), 64-byte aligned
 * operands (MemAlign), and setup sums stored into a volatile sink so no
 * touch is dead code.
 *
 * A sampler holds the pool cursor and the memo: one thread at a time; the
 * pool it reads and the memory budget are the process's (pool.h).
 * With c NULL, tc_mb_sample decides prefetch parts as tc_mb_run_setup does.
 */
#include "microbench/sample_impl.h"

#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ast/error.h"
#include "runtime/execute.h"
#include "runtime/memory_limit.h"

/* ---- the key -------------------------------------------------------- */

typedef struct keybuf {
    char *buf;
    size_t n, len;
} keybuf;

#if defined(__GNUC__)
__attribute__((format(printf, 2, 3)))
#endif
static void kput(keybuf *k, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int w = vsnprintf(k->len < k->n ? k->buf + k->len : NULL,
                      k->len < k->n ? k->n - k->len : 0, fmt, ap);
    va_end(ap);
    if (w > 0)
        k->len += (size_t)w;
}

static void kput_op(keybuf *k, const tc_operand *op)
{
    kput(k, "r%d", op->rank);
    for (int d = 0; d < op->rank; d++)
        kput(k, ",%lldx%lld", (long long)op->extent[d], (long long)op->stride[d]);
    kput(k, ",ld%lld", (long long)op->ld);
}

/* The canonical description of what the sampler does with cs: the call
 * (kernel, flags, dimensions, operand layouts), the operands as the setup
 * touches them, and the setup list. Equal keys give equal benchmarks.
 * 0, or -1 when it does not fit in n bytes. */
static int build_key(const tc_mb_sampler *s, const scaled *sc, const recipe *p, char *buf,
                     size_t n)
{
    const tc_mb_case *cs = &sc->cs;
    keybuf k = {buf, n, 0};
    const tc_node *node = cs->node;
    if (node->kind == TC_NODE_KERNEL) {
        const tc_call *c = node->call;
        kput(&k, "%s t%d%d m%lld n%lld k%lld", tc_kernel_type_name(c->kernel, c->type), c->trans_a,
             c->trans_b, (long long)c->m, (long long)c->n, (long long)c->k);
    } else {
        tc_copy_dir dir = node->kind == TC_NODE_PERMUTE ? node->perm->dir : node->copy->dir;
        kput(&k, "copy-%s", dir == TC_COPY_IN ? "in" : "out"); /* permutations too */
        if (cs->type != TC_TYPE_D)
            kput(&k, " %c", tc_type_row_of(cs->type)->letter);
    }
    if (node->kind == TC_NODE_PERMUTE) { /* its view: the operands alone are flat runs, and
                                            A^ and B^ of one size shared a time */
        const tc_permute *v = &node->perm->view;
        kput(&k, " view");
        for (int d = 0; d < v->rank; d++)
            kput(&k, "%s%lld:%lld:%lld", d ? "," : "", (long long)v->extent[d],
                 (long long)v->src_stride[d], (long long)v->dst_stride[d]);
        kput(&k, " w%lld", (long long)node->perm->written);
    }
    for (int i = 0; i < p->n; i++) {
        kput(&k, "|");
        kput_op(&k, &p->call[i]);
        if (!tc_mbs_same_shape(&p->call[i], &cs->operand[i].op)) {
            kput(&k, " as ");
            kput_op(&k, &cs->operand[i].op);
        }
        kput(&k, cs->operand[i].written ? " w" : " r");
    }
    /* the placement, not the distances: cases whose operands land in the
     * same levels are the same benchmark */
    const step *plan = p->steps;
    for (int e = 0; e < p->nsteps; e++) {
        /* one letter per step kind, in enum order */
        static const char kinds[] = "TPFQEL";
        _Static_assert(sizeof kinds == STEP_KINDS + 1, "a letter per step kind");
        if (plan[e].kind == STEP_EVICT || plan[e].kind == STEP_TLB)
            kput(&k, " %c%d", kinds[plan[e].kind], plan[e].level);
        else
            kput(&k, " %c%d%s", kinds[plan[e].kind], plan[e].operand,
                 plan[e].kind == STEP_PREFETCH && p->first[plan[e].operand] ? "l" : "");
    }
    if (cs->scale > 1.0)
        kput(&k, " x%.17g", cs->scale);
    if (sc->cold_s > 0.0) /* a warm slab: the bytes it left out (tc_mbs_slab_time) */
        kput(&k, " cold%.17g", sc->cold_s);
    if (sc->peak_s > 0.0) /* the call at the peak */
        kput(&k, " peak%.17g", sc->peak_s);
    if (p->train > 1)
        kput(&k, " train%d", p->train);
    if (p->lead > 0)
        kput(&k, " lead%d", p->lead);
    if (p->lead > 0 && cs->kind == TC_CASE_FIRST) /* where the lead calls are */
        for (int i = 0; i < p->n; i++)
            kput(&k, " at%lld,%lld", (long long)cs->operand[i].before,
                 (long long)cs->operand[i].loop_step);
    if (cs->node->kind == TC_NODE_KERNEL && cs->beta != 1.0)
        kput(&k, " beta%.17g", cs->beta);
    if (s->round > 0) /* tc_mb_sampler_round */
        kput(&k, " round%d", s->round);
    if (p->off) /* rules switched off that change the time, not the steps */
        kput(&k, " off%x", p->off);
    return k.len < n ? 0 : -1;
}

/*
 * The kernel's call once on small dense operands of the sampler's own, so
 * that what the library keeps between calls (its code, its packing
 * buffers, their translations) is as warm as in a loop of such calls,
 * while the case's operands stay where the setup put them. An eviction
 * from the unified levels evicts the library too: a 24x12x24 dgemm with
 * its operands in L1 took 4 us after 16 MB of other data was read and
 * 0.5 us in a loop (0.55 us with such a call in between). Calls whose
 * dense operands exceed the buffer are long enough not to notice.
 */
void tc_mbs_apply_warm_library(const tc_mb_sampler *s, const tc_mb_case *cs, recipe *p)
{
    p->d.warm_library = cs->node->kind == TC_NODE_KERNEL && s->warm;
}

static void warm_library(tc_mb_sampler *s, const recipe *r, const tc_node *node)
{
    if (!r->d.warm_library)
        return;
    tc_call k = *node->call;
    double *p[3];
    int64_t used = 0;
    for (int i = 0; i < 3; i++) {
        tc_operand *op = &k.arg[i];
        int64_t n = op->rank == 0 ? 1 : op->extent[0] * (op->rank == 2 ? op->extent[1] : 1);
        int64_t words = tc_type_words(k.type, n);
        if (n <= 0 || words > s->warm_count - used)
            return;
        op->ld = op->rank == 2 ? op->extent[0] : op->rank == 1 ? 1 : 0;
        p[i] = s->warm + used;
        used += words;
    }
    s->warm_alpha = -s->warm_alpha;
    tc_rt_call(s->o.blas, &k, s->warm_alpha, p[0], p[1], p[2]);
    s->warmed++;
}

/* Replays the recipe's setup steps on the operands at base. */
static int64_t run_setup(tc_mb_sampler *s, const tc_mb_case *cs, const recipe *p,
                         double *const base[])
{
    const step *plan = p->steps;
    int nsteps = p->nsteps;
    double acc = 0.0;
    int64_t touched = 0, flushed = 0;
    int warm_after = -1; /* the last step that evicts the library */
    for (int e = 0; e < nsteps; e++)
        if (plan[e].kind == STEP_EVICT || plan[e].kind == STEP_TLB)
            warm_after = e;
    for (int e = 0; e < nsteps; e++) {
        const step *st = &plan[e];
        int flush = st->kind == STEP_FLUSH || st->kind == STEP_FLUSH_PREFETCH;
        if (flushed && !flush) {
            /* the flushes done before anything is placed: a load may pass a
             * flush of its own line, which then evicts what it brought */
            tc_mb_touch_fence();
            flushed = 0;
        }
        if (st->kind == STEP_EVICT || st->kind == STEP_TLB) {
            touched += st->kind == STEP_EVICT
                           ? tc_mb_touch_remote(s->pool, s->pool_lines, s->line_doubles,
                                                &s->cursor, tc_mbs_evict_elements(s, st->level), &acc)
                           : tc_mb_pages_touch(&s->tlb, s->tlb.count, &acc);
            if (e == warm_after)
                warm_library(s, p, cs->node);
            continue;
        }
        int i = st->operand;
        tc_mb_shape sh = tc_mbs_words_shape(cs, tc_mbs_step_shape(s, cs, p, st));
        if (flush) {
            touched += tc_mb_touch_flush(base[i], &sh, s->o.line_bytes);
            if (st->kind == STEP_FLUSH && !tc_mbs_same_shape(&cs->operand[i].op, &p->call[i])) {
                /* lines only the call uses */
                tc_mb_shape call = tc_mbs_words_shape(cs, tc_mbs_shape_of(&p->call[i]));
                tc_mb_touch_flush(base[i], &call, s->o.line_bytes);
            }
            flushed = 1;
        } else if (cs->operand[i].written) {
            touched += tc_mb_touch_rmw(base[i], &sh, s->zero, &acc);
        } else {
            touched += tc_mb_touch_read(base[i], &sh, &acc);
        }
    }
    if (flushed)
        tc_mb_touch_fence();
    s->sink = acc;
    return touched;
}

int64_t tc_mb_run_setup_in(tc_mb_sampler *s, const tc_contraction *c, const tc_mb_case *cs,
                           double *const base[])
{
    recipe p;
    if (!s || !cs || !base || tc_mbs_prepare(s, 0, c, cs, &p, NULL) != TC_OK)
        return -1;
    tc_mbs_recipe_place(s, cs, &p);
    for (int i = 0; i < p.n; i++)
        if (!base[i])
            return -1;
    return run_setup(s, cs, &p, base);
}

int64_t tc_mb_run_setup(tc_mb_sampler *s, const tc_mb_case *cs, double *const base[])
{
    return tc_mb_run_setup_in(s, NULL, cs, base);
}

/* The case's call, or calls from..to-1 of its train (tc_mbs_plan_train). */
static void call_node(const tc_mb_sampler *s, const tc_mb_case *cs, const recipe *p,
                      double alpha, double *const base[], int from, int to)
{
    const tc_node *node = cs->node;
    for (int k = from; k < to; k++) {
        void *at[TC_MB_MAX_OPERANDS] = {NULL, NULL, NULL};
        for (int i = 0; i < p->n; i++) /* offsets in elements */
            at[i] = (char *)base[i] + tc_mbs_call_offset(cs, p, i, k) * p->elem_bytes;
        if (node->kind == TC_NODE_KERNEL)
            tc_rt_call_beta(s->o.blas, node->call, alpha, cs->beta, at[0], at[1], at[2]);
        else if (node->kind == TC_NODE_PERMUTE)
            tc_rt_permutation(node->perm, cs->type, at[0], at[1], NULL, s->o.blas->threads);
        else
            tc_rt_copy(node->copy, cs->type, at[0], at[1]);
    }
}

/* Warm-up, then n timed calls (n <= s->ntimes); tc_rt_timer_estimate of
 * them. A repetition (setup and call) longer than TC_MB_LONG_REPETITION_S runs
 * at most TC_MB_LONG_REPS times: its median is stable, and flushing megabytes
 * each time made such cases most of a prediction's cost. */
static double timing_run(tc_mb_sampler *s, const tc_mb_case *cs, const recipe *p,
                         double *const base[], int n)
{
    double alpha = 1.0;
    int to = p->lead + p->train;
    double t = tc_rt_now();
    run_setup(s, cs, p, base);
    call_node(s, cs, p, alpha, base, 0, to);
    double once = tc_rt_now() - t;
    if (once > TC_MB_LONG_REPETITION_S && n > TC_MB_LONG_REPS)
        n = once > TC_MB_HUGE_REPETITION_S && n > TC_MB_HUGE_REPS ? TC_MB_HUGE_REPS : TC_MB_LONG_REPS;
    for (int r = 0; r < n; r++) {
        alpha = -alpha; /* outputs accumulate: keep them bounded */
        run_setup(s, cs, p, base);
        call_node(s, cs, p, alpha, base, 0, p->lead); /* the loop's last calls */
        if (p->d.together)
            tc_mbs_team_wait(s);
        uint64_t t0 = tc_rt_timer_start();
        call_node(s, cs, p, alpha, base, p->lead, to);
        uint64_t t1 = tc_rt_timer_stop();
        s->times[r] = t1 > t0 ? t1 - t0 : 0;
    }
    return tc_rt_timer_estimate(s->o.timer, s->times, n) / p->train;
}

/* The time of one call of cs timed at m as the recipe's composition rules
 * make it: a streamed operand's bytes on top (one pass: instead), the
 * loop's bound under it. */
static double compose(const tc_mb_sampler *s, const tc_mb_case *cs, const recipe *p, double m)
{
    double stream;
    double steady = tc_mbs_bound(s, cs, p, 1, &stream); /* what the call pays in the loop */
    if (p->train == 1) /* a train measured its streams */
        m = p->d.one_pass ? (m > stream ? m : stream) : m + stream;
    if (p->d.bounded && m < steady)
        m = steady;
    return m;
}

/*
 * The case's time: o.reps timed calls; more (at least TC_MB_SHORT_REPS) when the
 * call lasts only a few counter steps, so that their mean converges; and,
 * when that is still below what the call's flops and compulsory bytes
 * allow (a preempted timer read, a quantised counter), timed again with
 * 3x the repetitions and, if it stays impossible, the bound itself: no
 * prediction rests on a time faster than the machine. Then the streamed
 * operands' bytes on top, and the loop's bound under it (compose);
 * *timed gets the time before them.
 */
static double time_case(tc_mb_sampler *s, const tc_mb_case *cs, const recipe *p,
                        double *const base[], double *timed)
{
    const tc_timer *tm = s->o.timer;
    double quantum = (tm->quantum_ticks > 1.0 ? tm->quantum_ticks : 1.0) * tm->seconds_per_tick;
    int bounded = p->d.bounded;
    double m = timing_run(s, cs, p, base, s->o.reps);
    if (m < 8.0 * quantum && s->o.reps < TC_MB_SHORT_REPS)
        m = timing_run(s, cs, p, base, TC_MB_SHORT_REPS);
    double bound = bounded ? tc_mbs_bound(s, cs, p, 0, NULL) : 0.0;
    if (m < bound) {
        int n = 3 * s->o.reps > TC_MB_SHORT_REPS ? 3 * s->o.reps : TC_MB_SHORT_REPS;
        m = timing_run(s, cs, p, base, n);
        if (m < bound) {
            m = bound;
            s->bounded++;
        }
    }
    *timed = m;
    m = compose(s, cs, p, m);
    /* a call hidden in the timer's own overhead and no bound known: one
     * counter step, so that no case costs nothing */
    if (!(m > 0.0))
        m = quantum > 0.0 ? quantum : 1e-9;
    return m;
}

/* Memory available, read at most every TC_MB_AVAIL_SECONDS: /proc/meminfo took
 * a tenth of a prediction of thousands of candidates, read per case. */
static int64_t memory_available(tc_mb_sampler *s)
{
    double now = tc_rt_now();
    if (s->avail_at == 0.0 || now - s->avail_at > TC_MB_AVAIL_SECONDS) {
        s->avail = tc_rt_memory_available();
        s->avail_at = now;
    }
    return s->avail;
}

/*
 * The recipe of cs, computed once: the case checked, cut to a part that
 * fits in room bytes (sc->cs, fit), its train (within room), its setup
 * steps with operands on the LLC's edge placed as edge_out says.
 */
static tc_status make_recipe(tc_mb_sampler *s, const tc_contraction *c, tc_mb_case *cs,
                             int edge_out, int64_t room, int64_t avail, scaled *sc, recipe *p,
                             tc_error *err)
{
    cs->scale = 1.0;
    tc_status st = tc_mbs_fit(s, c, cs, edge_out, room, avail, sc, p, err);
    if (st != TC_OK)
        return st;
    recipe single = *p;
    tc_mbs_plan_train(s, &sc->cs, p);
    int64_t train_bytes = tc_mbs_recipe_bytes(p);
    if (p->train > 1 && (train_bytes < 0 || train_bytes > room))
        *p = single; /* a train beyond the budget: the call alone */
    tc_mbs_recipe_place(s, &sc->cs, p);
    return TC_OK;
}

/* What the operands of one case may have: what the pool leaves of the
 * budget, within the memory available (*avail, -1 unknown). */
static int64_t case_room(tc_mb_sampler *s, int64_t *avail)
{
    int64_t room = s->budget - s->pool_bytes;
    *avail = memory_available(s);
    return *avail >= 0 && *avail < room ? *avail : room;
}

int tc_mb_case_recipe(tc_mb_sampler *s, const tc_contraction *c, const tc_mb_case *cs,
                      int edge_out, char *buf, size_t n)
{
    if (!s || !cs || !buf)
        return -1;
    tc_mb_case copy = *cs;
    recipe p;
    int64_t avail, room = case_room(s, &avail);
    scaled *sc = malloc(sizeof *sc);
    int rc = -1;
    if (sc && tc_mbs_prepare(s, edge_out, c, &copy, &p, NULL) == TC_OK &&
        make_recipe(s, c, &copy, edge_out, room, avail, sc, &p, NULL) == TC_OK)
        rc = build_key(s, sc, &p, buf, n);
    free(sc);
    return rc;
}

/* Gives the elements of shape sh (in run's elements) at x their values:
 * double's as ever, other types' each real a value of its type. */
static void init_operand(const tc_mb_case *run, double *x, const tc_mb_shape *sh)
{
    const tc_type_row *r = tc_type_row_of(run->type);
    if (run->type == TC_TYPE_D)
        tc_mb_touch_init(x, sh);
    else
        tc_mb_touch_init_reals(x, sh, r->real_bytes, r->reals);
}

/* Allocates run's operands as p says, initialises what the calls touch,
 * times the recipe, and frees them; *seconds gets the time of one call of
 * run (unscaled). room: what the budget is charged at most. */
static tc_status time_recipe(tc_mb_sampler *s, const tc_mb_case *run, const recipe *p,
                             int64_t room, double *seconds, double *timed, tc_error *err)
{
    /* what the budget is charged: the operands, or all that is left of it
     * for a whole-tensor permutation timed above it (fit) */
    int64_t need = tc_mbs_recipe_bytes(p);
    s->case_bytes = need;
    if (need > room)
        need = room;
    tc_status st = tc_mb_budget_reserve(need, s->budget, err);
    if (st != TC_OK)
        return st;
    double *base[TC_MB_MAX_OPERANDS] = {NULL, NULL, NULL};
    block blk[TC_MB_MAX_OPERANDS];
    for (int i = 0; i < p->n; i++) {
        /* huge pages only where the touched pages fill most of the span:
         * each 2 MiB page touched is mapped and zeroed whole */
        tc_pages pages = 2 * p->used[i] < p->span[i] ? TC_PAGES_SMALL : TC_PAGES_AUTO;
        if (tc_mbs_operand_block(s, i, tc_type_words(run->type, p->span[i]),
                                 tc_type_words(run->type, p->used[i]), pages, &blk[i],
                                 err) != TC_OK) {
            for (int j = 0; j < i; j++)
                tc_mbs_operand_release(s, j, &blk[j]);
            tc_mb_budget_release(need);
            return TC_ERESOURCE;
        }
        base[i] = (double *)((char *)blk[i].base + p->front[i] * p->elem_bytes);
        /* only what is touched: the rest of a large span stays unmapped */
        tc_mb_shape sh = p->train_step[i] > 0 ? tc_mbs_train_shape(p, i)
                                              : tc_mbs_shape_of(&p->call[i]);
        init_operand(run, base[i], &sh);
        for (int c = 0; run->kind == TC_CASE_FIRST && c < p->lead; c++)
            init_operand(run, (double *)((char *)base[i] + tc_mbs_call_offset(run, p, i, c) *
                                                               p->elem_bytes),
                         &sh);
        if (!tc_mbs_same_shape(&p->call[i], &run->operand[i].op)) {
            sh = tc_mbs_shape_of(&run->operand[i].op);
            init_operand(run, base[i], &sh);
        }
    }
    *seconds = time_case(s, run, p, base, timed);
    double sum = 0.0;
    for (int i = 0; i < p->n; i++) {
        if (run->operand[i].written) {
            tc_mb_shape sh = tc_mbs_words_shape(run, tc_mbs_shape_of(&p->call[i]));
            tc_mb_touch_read(base[i], &sh, &sum);
        }
    }
    s->checksum = sum;
    for (int i = 0; i < p->n; i++)
        tc_mbs_operand_release(s, i, &blk[i]);
    tc_mb_budget_release(need);
    return TC_OK;
}

/*
 * Rule by rule (those in force), whether switching it off alone changes
 * case cs as timed, all else alike: the weight of its LLC placement (w),
 * its recipe (the key, but for the switches), or the time composed from
 * the same timing (timed); s->rule_cases counts the rules that do. The
 * rules in `acted` (the library warmed, a time bounded) did. Only with
 * the option count_rules: it makes a recipe per rule per case.
 */
static void count_rules(tc_mb_sampler *s, const tc_contraction *c, const tc_mb_case *cs,
                        int edge_out, int64_t room, int64_t avail, double w, const scaled *sc,
                        const recipe *p, double timed, unsigned acted)
{
    char key[TC_MB_KEY_MAX], other[TC_MB_KEY_MAX];
    recipe q = *p;
    q.off = 0;
    scaled *t = malloc(sizeof *t);
    if (!t || build_key(s, sc, &q, key, sizeof key) != 0) {
        free(t);
        return;
    }
    double mine = tc_mbs_slab_time(sc, compose(s, &sc->cs, p, timed));
    for (int r = 0; r < TC_RULE_COUNT; r++) {
        unsigned bit = TC_RULE_BIT(r);
        if (p->off & bit)
            continue;
        tc_mb_sampler alone = *s; /* the same sampler, rule r off */
        alone.o.rules_off |= bit;
        tc_mb_case copy = *cs;
        int changed = (acted & bit) != 0;
        if (!changed && tc_mbs_prepare(&alone, edge_out, c, &copy, &q, NULL) == TC_OK) {
            changed = w != tc_mbs_case_edge_weight(&alone, &copy, &q);
            if (!changed &&
                make_recipe(&alone, c, &copy, edge_out, room, avail, t, &q, NULL) == TC_OK) {
                q.off = 0;
                changed = build_key(&alone, t, &q, other, sizeof other) != 0 ||
                          strcmp(key, other) != 0 ||
                          tc_mbs_slab_time(t, compose(&alone, &t->cs, &q, timed)) != mine;
            }
        }
        s->rule_cases[r] += changed;
    }
    free(t);
}

/* Times cs with its operands on the LLC's edge placed in memory (edge_out)
 * or in the LLC, or finds it in the memo; *edge (when not NULL) gets the
 * weight of the LLC placement in its blend. */
static tc_status sample_placed(tc_mb_sampler *s, const tc_contraction *c, tc_mb_case *cs,
                               int edge_out, double *edge, tc_error *err)
{
    recipe p;
    tc_status st = tc_mbs_prepare(s, edge_out, c, cs, &p, err);
    if (st != TC_OK)
        return st;
    double w = tc_mbs_case_edge_weight(s, cs, &p);
    if (edge)
        *edge = w;
    char what[96];
    tc_mbs_describe(cs, what, sizeof what);
    int64_t avail, room = case_room(s, &avail);
    scaled *sc = malloc(sizeof *sc);
    if (!sc)
        return tc_error_set(err, TC_ERESOURCE, 0, 0, "out of memory sampling %s", what);
    char key[TC_MB_KEY_MAX];
    double seconds;
    st = make_recipe(s, c, cs, edge_out, room, avail, sc, &p, err);
    if (st == TC_OK && build_key(s, sc, &p, key, sizeof key) != 0)
        st = tc_error_set(err, TC_EINTERNAL, 0, 0, "sampler: a case key exceeds %d bytes",
                          TC_MB_KEY_MAX);
    if (st != TC_OK) {
        free(sc);
        return st;
    }
    cs->scale = sc->cs.scale;
    if (tc_mb_memo_find(s->memo, key, &seconds)) {
        free(sc);
        cs->seconds = seconds;
        s->reused++;
        return TC_OK;
    }
    int64_t warmed = s->warmed, bounded = s->bounded;
    double timed;
    int saved = tc_rt_blas_enter(s->o.blas, s->o.blas->threads); /* blas.h */
    st = time_recipe(s, &sc->cs, &p, room, &seconds, &timed, err);
    tc_rt_blas_leave(s->o.blas, saved);
    if (st == TC_OK && s->o.count_rules)
        count_rules(s, c, cs, edge_out, room, avail, w, sc, &p, timed,
                    (s->warmed > warmed ? TC_RULE_BIT(TC_RULE_WARM_LIBRARY) : 0) |
                        (s->bounded > bounded ? TC_RULE_BIT(TC_RULE_BOUND) : 0));
    if (st == TC_OK)
        cs->seconds = seconds = tc_mbs_slab_time(sc, seconds);
    free(sc);
    if (st != TC_OK)
        return st;
    s->timed++;
    if (tc_mb_memo_put(s->memo, key, seconds) != 0)
        return tc_error_set(err, TC_ERESOURCE, 0, 0,
                            "out of memory remembering the time of %s", what);
    return TC_OK;
}

/* A case with operands on the LLC's edge (rule llc-edge) is timed with
 * them in the LLC and in memory, and its time is the blend. */
tc_status tc_mb_sample(tc_mb_sampler *s, const tc_contraction *c, tc_mb_case *cs,
                       tc_error *err)
{
    if (!s || !cs)
        return tc_error_set(err, TC_EUSAGE, 0, 0, "tc_mb_sample: NULL argument");
    double w = 1.0;
    tc_status st = sample_placed(s, c, cs, 0, &w, err);
    if (st != TC_OK || w <= 0.0 || w >= 1.0)
        return st;
    double in_llc = cs->seconds;
    st = sample_placed(s, c, cs, 1, NULL, err);
    cs->seconds = w * in_llc + (1.0 - w) * cs->seconds;
    return st;
}

/* ---- the sampler ---------------------------------------------------- */

/* The options' own checks, then the machine's facts (model_input.h). */
static tc_status check_options(const tc_mb_sampler_options *o, tc_error *err)
{
    if (!o || !o->blas || !o->timer)
        return tc_error_set(err, TC_EUSAGE, 0, 0,
                            "tc_mb_sampler_new: options, BLAS and timer are required");
    if (o->reps < 1)
        return tc_error_set(err, TC_EUSAGE, 0, 0,
                            "the sampler needs at least 1 repetition (got %d)", o->reps);
    if (o->flush != TC_FLUSH_CLFLUSH && o->flush != TC_FLUSH_REMOTE)
        return tc_error_set(err, TC_EUSAGE, 0, 0, "unknown flush mode %d", (int)o->flush);
    if (o->memory_budget < 0)
        return tc_error_set(err, TC_EUSAGE, 0, 0, "the memory budget must be positive");
    if (o->rules_off >> TC_RULE_COUNT)
        return tc_error_set(err, TC_EUSAGE, 0, 0,
                            "rules switched off 0x%x: the sampler has %d rules (rules.h)",
                            o->rules_off, TC_RULE_COUNT);
    /* the machine's facts: the profile's reader refuses the same (model_input.h) */
    return tc_mb_model_input_check(o, err);
}

/* The levels, increasing, the last one the LLC (an override included). */
static void set_levels(tc_mb_sampler *s, const tc_mb_sampler_options *o)
{
    for (int k = 0; k < o->nlevels; k++)
        if (o->level_bytes[k] > 0 && o->level_bytes[k] < o->llc_bytes &&
            (s->nlevels == 0 || o->level_bytes[k] > s->level[s->nlevels - 1]))
            s->level[s->nlevels++] = o->level_bytes[k];
    if (s->nlevels == TC_MB_MAX_LEVELS)
        s->nlevels--;
    s->level[s->nlevels++] = o->llc_bytes;
}

tc_status tc_mb_sampler_new(const tc_mb_sampler_options *o, tc_mb_sampler **out,
                            tc_error *err)
{
    if (!out)
        return tc_error_set(err, TC_EUSAGE, 0, 0, "tc_mb_sampler_new: NULL argument");
    *out = NULL;
    tc_status checked = check_options(o, err);
    if (checked != TC_OK)
        return checked;

    tc_mb_sampler *s = calloc(1, sizeof *s);
    if (!s)
        return tc_error_set(err, TC_ERESOURCE, 0, 0, "out of memory creating the sampler");
    s->o = *o;
    s->line_doubles = o->line_bytes / 8;
    s->flush = o->flush == TC_FLUSH_CLFLUSH && tc_mb_touch_can_flush();
    s->budget = o->memory_budget ? o->memory_budget : TC_MB_DEFAULT_BUDGET;
    set_levels(s, o);
    s->warm_count = s->level[0] / 4 / (int64_t)sizeof(double);
    s->warm_alpha = 1.0;
    s->warm = s->warm_count > 0 ? tc_rt_alloc(s->warm_count, NULL) : NULL;
    if (s->warm) {
        tc_mb_shape all = {s->warm_count, 1, 1, 0};
        tc_mb_touch_init(s->warm, &all);
    }

    /* twice the largest eviction: a region is never memory the previous
     * repetition just touched. Flushing: 5/4 of the level below the LLC;
     * remote mode: 5/4 of the LLC itself, within half the budget. */
    int64_t line = o->line_bytes;
    int64_t biggest = s->flush ? (s->nlevels > 1 ? s->level[s->nlevels - 2] : line)
                               : s->level[s->nlevels - 1];
    int64_t pool_bytes = biggest / 4 * 5 * 2;
    if (pool_bytes > s->budget / 2)
        pool_bytes = s->budget / 2;
    if (pool_bytes < 64 * line)
        pool_bytes = 64 * line;
    pool_bytes = (pool_bytes + line - 1) / line * line;
    int64_t avail = tc_rt_memory_available();
    if (avail >= 0 && pool_bytes > avail) {
        free(s);
        return tc_error_set(err, TC_ERESOURCE, 0, 0,
                            "the remote pool needs %lld bytes but only %lld bytes of memory "
                            "are available",
                            (long long)pool_bytes, (long long)avail);
    }
    s->pool_lines = pool_bytes / line;
    s->pool_bytes = pool_bytes;
    s->cursor = s->pool_lines;
    s->zero = 0.0;
    s->memo = tc_mb_memo_new();
    int ntimes = 3 * o->reps > TC_MB_SHORT_REPS ? 3 * o->reps : TC_MB_SHORT_REPS;
    s->created_reps = o->reps;
    s->times = calloc((size_t)ntimes, sizeof *s->times);
    if (!s->memo || !s->times) {
        tc_mb_sampler_free(s);
        return tc_error_set(err, TC_ERESOURCE, 0, 0, "out of memory creating the sampler");
    }
    tc_status st = tc_mb_pool_acquire(pool_bytes, s->budget, &s->pool, err);
    /* 5/4 of the reach, as for a cache; a physical page per 128 (tlb.h) */
    if (st == TC_OK && o->tlb_pages > 0)
        st = tc_mb_pages_map(o->tlb_pages / 4 * 5, &s->tlb, err);
    if (st != TC_OK) {
        tc_mb_sampler_free(s);
        return st;
    }
    *out = s;
    return TC_OK;
}

void tc_mb_sampler_free(tc_mb_sampler *s)
{
    if (!s)
        return;
    tc_mb_pool_release(s->pool, s->pool_bytes);
    tc_mb_pages_unmap(&s->tlb);
    for (int i = 0; i < TC_MB_MAX_OPERANDS; i++)
        for (int h = 0; h < 2; h++)
            tc_rt_free(s->spare[i][h].base);
    tc_rt_free(s->warm);
    free(s->times);
    tc_mb_memo_free(s->memo);
    tc_mbs_team_free(s);
    free(s);
}

int64_t tc_mb_sampler_bounded(const tc_mb_sampler *s)
{
    return s ? s->bounded : 0;
}

int64_t tc_mb_sampler_together(const tc_mb_sampler *s)
{
    return s ? atomic_load(&s->team_sync.together) : 0;
}

int64_t tc_mb_sampler_rule_cases(const tc_mb_sampler *s, int rule)
{
    return s && rule >= 0 && rule < TC_RULE_COUNT ? s->rule_cases[rule] : 0;
}

int64_t tc_mb_sampler_pool_bytes(const tc_mb_sampler *s)
{
    return s ? s->pool_bytes : 0;
}

int64_t tc_mb_sampler_timed(const tc_mb_sampler *s)
{
    return s ? s->timed : 0;
}

int64_t tc_mb_sampler_warmed(const tc_mb_sampler *s)
{
    return s ? s->warmed : 0;
}

int64_t tc_mb_sampler_reused(const tc_mb_sampler *s)
{
    return s ? s->reused : 0;
}

int64_t tc_mb_sampler_case_bytes(const tc_mb_sampler *s)
{
    return s ? s->case_bytes : 0;
}

void tc_mb_sampler_round(tc_mb_sampler *s, int fresh)
{
    s->round = fresh ? ++s->rounds : 0;
    for (int i = 0; i < s->nteam; i++)
        s->team[i]->round = s->round;
}

int tc_mb_sampler_set_reps(tc_mb_sampler *s, int reps)
{
    int before = s->o.reps;
    s->o.reps = reps < 1 ? 1 : reps > s->created_reps ? s->created_reps : reps;
    for (int i = 0; i < s->nteam; i++)
        s->team[i]->o.reps = s->o.reps;
    return before;
}

double tc_mb_sampler_checksum(const tc_mb_sampler *s)
{
    return s ? s->checksum : 0.0;
}

