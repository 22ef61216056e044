/*
 * plan.c - tc_plan_create and friends (include/tcgen.h): consult the
 * wisdom, else rank every algorithm by prediction (and with TC_MEASURE run
 * the best candidates), remember the choice, execute or emit it.
 */
#include "planner/plan.h"

#include <stdlib.h>
#include <string.h>
#ifdef __GLIBC__
#include <malloc.h>
#endif

#include "ast/c_locale.h"
#include "ast/error.h"
#include "microbench/pool.h"
#include "parser/parser.h"
#include "planner/measure.h"
#include "planner/rank.h"
#include "planner/problem.h"
#include "planner/wisdom.h"
#include "runtime/execute.h"
#include "runtime/memory.h"
#include "runtime/memory_limit.h"
#include "runtime/scratch.h"
#include "runtime/timer.h"

#define DEFAULT_CANDIDATES 8
#define DEFAULT_MEASURE_REPS 3
#define DEFAULT_TIME_LIMIT_S 10.0

/* Control bytes (a tab in a CPU name, a library path) would break the
 * wisdom file's fields: they become spaces. */
static void plain_copy(char *dst, size_t n, const char *src)
{
    snprintf(dst, n, "%s", src);
    for (; *dst; dst++)
        if ((unsigned char)*dst < 0x20 || *dst == 0x7f)
            *dst = ' ';
}

/* The wisdom key of a problem: everything but the decision. The
 * contraction and sizes are its canonical form (tc_contraction_canonical:
 * a renamed contraction is the same problem) where it has one. THREADS is
 * the count tcgen's BLAS calls run at, so the command and a program
 * linking the library name the same problem alike. */
static void wisdom_key(const tc_plan *p, tc_wisdom_entry *e)
{
    tc_contraction canon;
    const tc_contraction *key = tc_contraction_canonical(&p->user, &canon) ? &canon : &p->user;
    memset(e, 0, sizeof *e);
    tc_contraction_format(key, e->contraction, sizeof e->contraction);
    tc_contraction_format_sizes(key, e->sizes, sizeof e->sizes);
    tc_plan_layout_format(key, p->flags, e->layout, sizeof e->layout); /* fits: 3 x 8 strides */
    plain_copy(e->blas, sizeof e->blas, p->blas->name);
    e->threads = p->blas->threads;
    plain_copy(e->machine, sizeof e->machine, p->machine);
}

/* The plan's candidates: the families' algorithms (bounded, generator.h)
 * and, with more than one thread, the threaded ones over all of them. */
static tc_status enumerate_candidates(const tc_plan *p, const tc_contraction *c,
                                      unsigned families, tc_algorithm_set **set,
                                      tc_gen_subset *sub, tc_error *err)
{
    tc_status st = tc_gen_enumerate_bounded(c, families, TC_GEN_MAX_ALGORITHMS, set, sub, err);
    if (st == TC_OK && p->blas->threads > 1)
        st = tc_gen_add_threaded(*set, c, p->blas->threads, err);
    if (st != TC_OK) {
        tc_alg_set_free(*set);
        *set = NULL;
    }
    return st;
}

/* Wisdom names algorithms as the canonical problem does: *storage gets
 * its storage form (tc_contraction_canonical, transposed under
 * TC_ROW_MAJOR as p->c is), which enumerates p->c's algorithms in the same
 * order under other names. 0 when p's problem has none (the key is the
 * user's names). */
static int canonical_storage(const tc_plan *p, tc_contraction *storage)
{
    tc_contraction canon;
    if (!tc_contraction_canonical(&p->user, &canon))
        return 0;
    if (p->flags & TC_ROW_MAJOR)
        tc_contraction_transpose(&canon, storage);
    else
        *storage = canon;
    return 1;
}

/* p->alg split over `threads` (a remembered "NAME@P": one of p's
 * candidates only at p's thread count, where its loop can be split),
 * added to p->set; p->alg NULL when it is none of p's candidates. */
static tc_status remembered_split(tc_plan *p, int threads, tc_error *err)
{
    if (threads != p->blas->threads || !tc_alg_splittable(p->alg, &p->c, threads)) {
        p->alg = NULL;
        return TC_OK;
    }
    tc_algorithm *a = tc_alg_split(p->set, p->alg, &p->c, threads);
    if (!a || tc_alg_set_add(p->set, a) != 0)
        return tc_error_set(err, TC_ERESOURCE, 0, 0, "out of memory splitting %s",
                            p->alg->name);
    p->alg = a;
    return TC_OK;
}

/* The algorithm that wisdom's (canonical) name stands for, built alone:
 * p->set holds it and p->alg is it (NULL when p's candidates have none of
 * that name). The canonical problem's candidate of that name gives its
 * serial, p's candidate of that serial is it; none of the others is built
 * (tc_gen_find_bounded). "NAME@P" is NAME's, split over P threads. */
static tc_status remembered(tc_plan *p, unsigned families, const char *name, tc_error *err)
{
    char base[TC_WISDOM_NAME_MAX];
    int threads = tc_alg_split_name(name, base, sizeof base), serial = -1;
    tc_contraction canon;
    name = threads ? base : name;
    if (canonical_storage(p, &canon)) {
        tc_algorithm_set *set;
        tc_gen_subset sub;
        tc_status s = tc_gen_find_bounded(&canon, families, TC_GEN_MAX_ALGORITHMS, name, 0,
                                          &set, &sub, err);
        if (s != TC_OK)
            return s;
        serial = set->count ? set->alg[0]->serial : -1;
        tc_alg_set_free(set);
        if (serial < 0)
            return TC_OK;
        name = NULL;
    }
    tc_status s = tc_gen_find_bounded(&p->c, families, TC_GEN_MAX_ALGORITHMS, name, serial,
                                      &p->set, &p->subset, err);
    if (s == TC_OK && p->set->count)
        p->alg = p->set->alg[0];
    return s == TC_OK && p->alg && threads ? remembered_split(p, threads, err) : s;
}

/* The name wisdom gives p->alg, one of p->set's (TC_WISDOM_NAME_MAX
 * bytes): the canonical problem's candidate of its serial (of its base's,
 * "@P" kept, when it is split). */
static tc_status canonical_name(const tc_plan *p, unsigned families, char *name,
                                tc_error *err)
{
    tc_contraction canon;
    char base[TC_WISDOM_NAME_MAX];
    if (!canonical_storage(p, &canon)) {
        snprintf(name, TC_WISDOM_NAME_MAX, "%s", p->alg->name);
        return TC_OK;
    }
    int threads = tc_alg_split_name(p->alg->name, base, sizeof base);
    const tc_algorithm *alg = threads ? tc_alg_set_find(p->set, base) : p->alg;
    tc_algorithm_set *set = NULL;
    tc_gen_subset sub;
    tc_status s = alg ? tc_gen_find_bounded(&canon, families, TC_GEN_MAX_ALGORITHMS, NULL,
                                            alg->serial, &set, &sub, err)
                      : TC_OK;
    if (s != TC_OK)
        return s;
    if (set && set->count && threads)
        snprintf(name, TC_WISDOM_NAME_MAX, "%s@%d", set->alg[0]->name, threads);
    else if (set && set->count)
        snprintf(name, TC_WISDOM_NAME_MAX, "%s", set->alg[0]->name);
    else
        s = tc_error_set(err, TC_EINTERNAL, 0, 0, "%s has no canonical name", p->alg->name);
    tc_alg_set_free(set);
    return s;
}

/* Indices into r of the algorithms TC_MEASURE runs: the best `want`
 * predicted, and the best predicted of every kernel (a class the model gets
 * wrong still gets its chance). Returns how many. */
static int pick_candidates(const tc_ranking *r, int want, int *pick)
{
    int n = 0, seen_kernel[TC_KERNEL_COUNT] = {0};
    for (int k = 0; k < r->count; k++) {
        tc_kernel kern = r->entry[k].alg->kernel;
        if (want < 0 || k < want || !seen_kernel[kern])
            pick[n++] = k;
        seen_kernel[kern] = 1;
    }
    return n;
}

static int by_seconds(const void *a, const void *b)
{
    const tc_measure_entry *x = a, *y = b;
    if (x->over_limit != y->over_limit)
        return x->over_limit - y->over_limit;
    return (x->seconds > y->seconds) - (x->seconds < y->seconds);
}

/* TC_MEASURE: runs the best candidates of ranking r (freed here) and
 * takes the fastest measured, unless every one ran over the time limit. */
static tc_status measure_best(tc_plan *p, const tc_plan_options *o, tc_ranking *r,
                              tc_error *err)
{
    int *pick = malloc((size_t)r->count * sizeof *pick);
    const tc_algorithm **algs = malloc((size_t)r->count * sizeof *algs);
    if (!pick || !algs) {
        free(pick);
        free(algs);
        tc_ranking_free(r);
        return tc_error_set(err, TC_ERESOURCE, 0, 0, "out of memory choosing candidates");
    }
    int n = pick_candidates(r, o->candidates ? o->candidates : DEFAULT_CANDIDATES, pick);
    for (int k = 0; k < n; k++)
        algs[k] = r->entry[pick[k]].alg;
    tc_ranking_free(r);
    tc_measure_options mo = {p->blas, o->measure_reps ? o->measure_reps : DEFAULT_MEASURE_REPS,
                             o->time_limit_s > 0 ? o->time_limit_s : DEFAULT_TIME_LIMIT_S, 1};
    tc_measurements *m = NULL;
    tc_status s = tc_plan_measure(&p->c, algs, n, &mo, o->progress, o->progress_data, &m, err);
    free(pick);
    free(algs);
    if (s != TC_OK)
        return s;
    qsort(m->entry, (size_t)m->count, sizeof m->entry[0], by_seconds);
    p->measured = m->count;
    p->time_limit_s = mo.time_limit_s;
    if (m->count == 0 || m->entry[0].over_limit) {
        /* Every candidate ran over the limit: no time was measured, so the
         * prediction decides and the plan says so (origin estimate). */
        p->over_limit = 1;
        tc_measurements_free(m);
        return TC_OK;
    }
    p->origin = "measure";
    p->alg = m->entry[0].alg;
    p->seconds = m->entry[0].seconds;
    p->nrunners = 0;
    for (int k = 1; k < m->count && p->nrunners < TC_PLAN_RUNNERS; k++) {
        if (m->entry[k].over_limit)
            break;
        snprintf(p->runner[p->nrunners].name, sizeof p->runner[0].name, "%s",
                 m->entry[k].alg->name);
        p->runner[p->nrunners++].seconds = m->entry[k].seconds;
    }
    tc_measurements_free(m);
    return TC_OK;
}

/* Every algorithm BLAS can run needs more temporaries than the workspace. */
static tc_status over_workspace(const tc_plan *p, tc_error *err)
{
    int64_t least = INT64_MAX;
    for (int i = 0; i < p->set->count; i++)
        if (p->set->alg[i]->fits_int && tc_alg_temp_bytes(p->set->alg[i]) < least)
            least = tc_alg_temp_bytes(p->set->alg[i]);
    return tc_error_set(err, TC_ERESOURCE, 0, 0,
                        "no algorithm fits the workspace of %lld bytes (%s): the least "
                        "temporaries any algorithm needs are %lld bytes",
                        (long long)p->workspace, p->workspace_from, (long long)least);
}

/* Ranks (and measures) the algorithms and fills the choice and runner-ups. */
static tc_status decide(tc_plan *p, const tc_plan_options *o, tc_error *err)
{
    tc_plan_setup su;
    tc_status s = tc_plan_setup_open(o, &su, err);
    if (s != TC_OK)
        return s;
    tc_plan_setup_describe(&su, p->setup, sizeof p->setup);
    snprintf(p->profile_note, sizeof p->profile_note, "%s", su.origin.note);
    if (!tc_mb_profile_kernels_note(&su.profile, p->kernels_note, sizeof p->kernels_note))
        p->kernels_note[0] = '\0';
    tc_ranking *r = NULL;
    /* measuring wants the best predicted of every kernel too: all ranked */
    int keep = p->flags & TC_MEASURE ? 0 : 1 + TC_PLAN_RUNNERS;
    s = tc_plan_rank(su.sampler, &p->c, (const tc_algorithm *const *)p->set->alg,
                     p->set->count, &su.params, p->workspace, keep, TC_RANK_ROUNDS,
                     o->progress, o->progress_data, &r, err);
    tc_plan_setup_close(&su);
    if (s != TC_OK)
        return s;
    if (r->count == 0) {
        int no_memory = r->no_memory;
        tc_ranking_free(r);
        return no_memory ? over_workspace(p, err)
                         : tc_error_set(err, TC_EINPUT, 0, 0,
                                        "no algorithm can compute this contraction at these "
                                        "sizes: every one has a BLAS argument above INT_MAX");
    }
    p->ranked = r->count + r->pruned;
    p->pruned = r->pruned;
    p->origin = "estimate";
    p->alg = r->entry[0].alg;
    p->seconds = r->entry[0].seconds;
    for (int k = 1; k < r->count && p->nrunners < TC_PLAN_RUNNERS; k++, p->nrunners++) {
        snprintf(p->runner[p->nrunners].name, sizeof p->runner[0].name, "%s",
                 r->entry[k].alg->name);
        p->runner[p->nrunners].seconds = r->entry[k].seconds;
    }
    if (!(p->flags & TC_MEASURE)) {
        tc_ranking_free(r);
        return TC_OK;
    }
    return measure_best(p, o, r, err);
}

/* The families ranked: the options' (all by default). */
static unsigned families(const tc_plan_options *o)
{
    return o->families ? o->families : TC_FAMILY_MASK_ALL;
}

/* p->decided: how the choice was made, with the subset ranked if partial. */
static void describe_decision(tc_plan *p)
{
    const char *how = p->over_limit ? "every candidate run over the time limit, ranked by "
                                      "prediction"
                      : p->measured ? "best candidates run"
                      : p->ranked   ? "ranked by prediction"
                                    : "from wisdom";
    const tc_gen_subset *u = &p->subset;
    if (!u->partial || !p->ranked)
        snprintf(p->decided, sizeof p->decided, "%s", how);
    else if (p->ranked && !p->measured && !p->over_limit)
        snprintf(p->decided, sizeof p->decided, "ranked %d of %llu candidates by prediction (%s)",
                 p->set->count, (unsigned long long)u->candidates, u->which);
    else
        snprintf(p->decided, sizeof p->decided, "%s (of %d of %llu candidates: %s)", how,
                 p->set->count, (unsigned long long)u->candidates, u->which);
}

/* A problem whose tensors this machine cannot hold is refused before any
 * ranking: ranked, it took seconds and came out "predicted 372 days". */
static tc_status tensors_fit(const tc_contraction *c, tc_error *err)
{
    const double gib = 1024.0 * 1024.0 * 1024.0;
    double bytes[3], need = 0.0;
    for (int t = 0; t < 3; t++)
        need += bytes[t] = (double)tc_tensor_bytes(c, t);
    int64_t avail = tc_rt_memory_available();
    if (avail < 0 || need <= (double)avail)
        return TC_OK;
    return tc_error_set(err, TC_ERESOURCE, 0, 0,
                        "the tensors take %.1f GiB (A %.1f, B %.1f, C %.1f), more than the "
                        "%.1f GiB of memory this machine has available",
                        need / gib, bytes[TC_A] / gib, bytes[TC_B] / gib, bytes[TC_C] / gib,
                        (double)avail / gib);
}

/*
 * Sets p->alg from wisdom when it holds a usable decision for p's problem
 * (*e gets p's key either way, for adding the decision made otherwise):
 * one for these sizes, else with $TCGEN_WISDOM_TOLERANCE one for sizes
 * within that fraction. TC_MEASURE does not take a decision that was only
 * predicted (it measures, and the measured decision replaces it); a
 * decision over the workspace is not taken (TC_WISDOM_ONLY: an error
 * that says so).
 */
static tc_status consult_wisdom(tc_plan *p, const tc_plan_options *o, unsigned how,
                                tc_wisdom_entry *e, tc_error *err)
{
    double tolerance;
    tc_status s = tc_plan_wisdom_tolerance(&tolerance, err);
    if (s != TC_OK)
        return s;
    wisdom_key(p, e);
    tc_wisdom_entry found = *e;
    if (!tc_wisdom_lookup(&found) &&
        !(tolerance > 0.0 && tc_wisdom_lookup_near(&found, tolerance)))
        return TC_OK;
    if (how == TC_MEASURE && strcmp(found.origin, "measure") != 0)
        return TC_OK;
    s = remembered(p, families(o), found.algorithm, err);
    if (s != TC_OK || !p->alg)
        return s;
    p->seconds = found.seconds;
    p->origin = "wisdom";
    if (strcmp(found.sizes, e->sizes) == 0)
        snprintf(p->setup, sizeof p->setup, "wisdom (decided by %s)", found.origin);
    else
        snprintf(p->setup, sizeof p->setup, "wisdom for %.200s (decided by %s)", found.sizes,
                 found.origin);
    if (tc_alg_temps_fit(p->alg, p->workspace))
        return TC_OK;
    if (how == TC_WISDOM_ONLY)
        return tc_error_set(err, TC_EINPUT, 0, 0,
                            "the remembered %s needs %lld bytes of temporaries, more than the "
                            "workspace of %lld bytes (%s)", p->alg->name,
                            (long long)tc_alg_temp_bytes(p->alg), (long long)p->workspace,
                            p->workspace_from);
    p->alg = NULL; /* remembered under a larger budget: ranked again within this one */
    p->setup[0] = '\0';
    return TC_OK;
}

/* Every candidate of p's problem into p->set (in place of the one a
 * wisdom decision not taken left there), for ranking. */
static tc_status candidates(tc_plan *p, const tc_plan_options *o, tc_error *err)
{
    tc_alg_set_free(p->set);
    p->set = NULL;
    return enumerate_candidates(p, &p->c, families(o), &p->set, &p->subset, err);
}

/* Exactly one of the first three flags, the others known; a strided
 * problem only column-major. */
static tc_status check_flags(const tc_contraction *user, unsigned flags, tc_error *err)
{
    unsigned how = flags & (TC_ESTIMATE | TC_MEASURE | TC_WISDOM_ONLY);
    if ((flags & ~(TC_ESTIMATE | TC_MEASURE | TC_WISDOM_ONLY | TC_ROW_MAJOR | TC_EMITTABLE |
                   TC_SINGLE | TC_COMPLEX)) ||
        (how != TC_ESTIMATE && how != TC_MEASURE && how != TC_WISDOM_ONLY))
        return tc_error_set(err, TC_EUSAGE, 0, 0, "bad planning flags 0x%x: give exactly one of "
                                                  "TC_ESTIMATE, TC_MEASURE, TC_WISDOM_ONLY, "
                                                  "optionally | TC_ROW_MAJOR, TC_SINGLE, "
                                                  "TC_COMPLEX",
                            flags);
    if (tc_contraction_strided(user) && (flags & TC_ROW_MAJOR))
        return tc_error_set(err, TC_EUSAGE, 0, 0, "a contraction of strided tensors is planned "
                                                  "column-major");
    return TC_OK;
}

static tc_plan *create(const tc_contraction *user, unsigned flags, const tc_plan_options *o,
                       tc_error *err)
{
    unsigned how = flags & (TC_ESTIMATE | TC_MEASURE | TC_WISDOM_ONLY);
    if (check_flags(user, flags, err) != TC_OK)
        return NULL;
    double start = tc_rt_now();
    tc_plan *p = calloc(1, sizeof *p);
    if (!p) {
        tc_error_set(err, TC_ERESOURCE, 0, 0, "out of memory allocating a plan");
        return NULL;
    }
    p->flags = flags;
    p->user = *user;
    if (tc_contraction_set_type(&p->user, tc_plan_type_of(flags), err) != TC_OK ||
        tc_plan_workspace_limit(o, &p->workspace, &p->workspace_from, err) != TC_OK) {
        free(p);
        return NULL;
    }
    if (flags & TC_ROW_MAJOR)
        tc_contraction_transpose(&p->user, &p->c);
    else
        p->c = p->user;

    tc_hardware hw;
    tc_mb_hardware_detect(&hw, NULL);
    tc_plan_machine_signature(&hw, p->machine, sizeof p->machine);
    /* A decision from wisdom builds its algorithm alone; the others are
     * enumerated only to be ranked. */
    tc_wisdom_entry e;
    tc_status s = tc_plan_blas_load(o, &p->blas, err);
    if (s == TC_OK)
        s = consult_wisdom(p, o, how, &e, err);
    if (s == TC_OK && !p->alg)
        s = candidates(p, o, err);
    if (s != TC_OK) {
        tc_plan_destroy(p);
        return NULL;
    }
    if (!p->alg && how != TC_WISDOM_ONLY && tensors_fit(&p->c, err) != TC_OK) {
        tc_plan_destroy(p);
        return NULL;
    }
    if (!p->alg && how == TC_WISDOM_ONLY) {
        tc_error_set(err, TC_EINPUT, 0, 0,
                     "no wisdom for %s with %s (%s-major, %s, %d thread%s, this machine); "
                     "plan it once with TC_ESTIMATE or TC_MEASURE",
                     e.contraction, e.sizes, e.layout, e.blas, e.threads,
                     e.threads == 1 ? "" : "s");
        tc_plan_destroy(p);
        return NULL;
    }
    if (!p->alg) {
        s = decide(p, o, err);
        if (s == TC_OK)
            s = canonical_name(p, families(o), e.algorithm, err);
        if (s == TC_OK) {
            e.seconds = p->seconds;
            snprintf(e.origin, sizeof e.origin, "%s", p->origin);
            s = tc_wisdom_add(&e, err);
        }
        if (s != TC_OK) {
            tc_plan_destroy(p);
            return NULL;
        }
    }
    p->planning_s = tc_rt_now() - start;
    describe_decision(p);
    return p;
}

/* Both entry points parse and print numbers (the contraction's factor,
 * wisdom, the machine profile): under the C locale whatever the host
 * program set (ast/c_locale.h). */
tc_plan *tc_plan_create_with(const tc_contraction *user, unsigned flags,
                             const tc_plan_options *o, tc_error *err)
{
    if (!user || !o) {
        tc_error_set(err, TC_EUSAGE, 0, 0, "tc_plan_create_with: NULL argument");
        return NULL;
    }
    locale_t saved = tc_c_locale_enter();
    tc_plan *p = create(user, flags, o, err);
    tc_c_locale_leave(saved);
    return p;
}

/* The public entry points: the contraction and sizes as text, the
 * options the defaults but for the workspace. */
static tc_plan *create_from_text(const char *fn, const char *contraction, const char *sizes,
                                 unsigned flags, const tc_plan_options *o, tc_error *err)
{
    if (!contraction || !sizes) {
        tc_error_set(err, TC_EUSAGE, 0, 0, "%s: the %s is NULL", fn,
                     contraction ? "sizes string" : "contraction");
        return NULL;
    }
    locale_t saved = tc_c_locale_enter();
    tc_contraction user, storage;
    int which;
    tc_error sub;
    tc_plan *p = NULL;
    if (tc_plan_problem(contraction, sizes, flags, &user, &storage, &which, &sub) != TC_OK) {
        tc_error_set(err, sub.code, sub.line, sub.column, "%s: %s",
                     which ? "in the sizes" : "in the contraction", sub.message);
    } else {
        p = create(&user, flags, o, err);
    }
    tc_c_locale_leave(saved);
    return p;
}

tc_plan *tc_plan_create(const char *contraction, const char *sizes, unsigned flags,
                        tc_error *err)
{
    tc_plan_options o = tc_plan_options_default();
    return create_from_text("tc_plan_create", contraction, sizes, flags, &o, err);
}

tc_plan *tc_plan_create_within(const char *contraction, const char *sizes, unsigned flags,
                               size_t workspace_bytes, tc_error *err)
{
    tc_plan_options o = tc_plan_options_default();
    o.workspace_set = 1;
    o.workspace = workspace_bytes > (size_t)TC_BYTES_MAX ? TC_BYTES_MAX
                                                          : (int64_t)workspace_bytes;
    return create_from_text("tc_plan_create_within", contraction, sizes, flags, &o, err);
}

size_t tc_plan_workspace_bytes(const tc_plan *p)
{
    return p ? (size_t)tc_alg_temp_bytes(p->alg) : 0;
}

void tc_release_workspace(void)
{
    tc_rt_scratch_release();
    tc_mb_pool_trim();
#ifdef __GLIBC__
    /* planning's many small blocks, freed, stay in the heap's top until it
     * is trimmed: 3.5 MiB after the CCSD terms at v=64, o=16 */
    malloc_trim(0);
#endif
}

tc_status tc_execute(const tc_plan *p, const void *A, const void *B, void *C)
{
    if (!p || !A || !B || !C)
        return TC_EUSAGE;
    return tc_rt_execute(p->blas, p->alg, &p->c, A, B, C, NULL);
}

/* A scalar of type t at x as {real, imaginary}. */
static void read_scalar(tc_type t, const void *x, double *re, double *im)
{
    const tc_type_row *row = tc_type_row_of(t);
    const int single = row->real_bytes == 4;
    *re = single ? ((const float *)x)[0] : ((const double *)x)[0];
    *im = !row->is_complex ? 0.0 : single ? ((const float *)x)[1] : ((const double *)x)[1];
}

tc_status tc_execute_scaled(const tc_plan *p, const void *alpha, const void *A, const void *B,
                            const void *beta, void *C)
{
    if (!p || !A || !B || !C)
        return TC_EUSAGE;
    tc_contraction c = p->c; /* the executor reads the scalars from the contraction */
    if (alpha)
        read_scalar(c.type, alpha, &c.alpha, &c.alpha_im);
    if (beta)
        read_scalar(c.type, beta, &c.beta, &c.beta_im);
    return tc_rt_execute(p->blas, p->alg, &c, A, B, C, NULL);
}

const char *tc_plan_algorithm(const tc_plan *p)
{
    return p ? p->alg->name : NULL;
}

double tc_plan_predicted_seconds(const tc_plan *p)
{
    return p ? p->seconds : 0.0;
}

const char *tc_plan_time_kind(const tc_plan *p)
{
    if (!p)
        return NULL;
    return strcmp(p->origin, "measure") == 0  ? "measured" :
           strcmp(p->origin, "wisdom") == 0   ? "remembered" : "predicted";
}

const char *tc_plan_decided_by(const tc_plan *p)
{
    return p ? p->decided : NULL;
}

const char *tc_plan_origin(const tc_plan *p)
{
    return p ? p->origin : NULL;
}

void tc_plan_destroy(tc_plan *p)
{
    if (!p)
        return;
    tc_alg_set_free(p->set);
    tc_rt_blas_unload(p->blas);
    free(p);
}
