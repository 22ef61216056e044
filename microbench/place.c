/* place.c - a case's setup list as steps, level by level (sample_impl.h). */
#include "microbench/sample_impl.h"

#include <assert.h>
#include <limits.h>

int tc_mb_sampler_level(const tc_mb_sampler *s, int64_t distance)
{
    int k = 0;
    if (distance < 0 || distance > INT64_MAX / 8)
        return s->nlevels;
    while (k < s->nlevels && distance * 8 >= s->level[k])
        k++;
    return k;
}

/*
 * The LLC's edge (llc_edge.h): the share of the LLC's speed an operand
 * reused after `distance` elements keeps, by the profile's curve. Placed
 * wholly in the LLC or wholly in memory, experiment 1's algorithms at
 * a=b=c=128 (C 16 MiB, the LLC measured 10-19 MiB) were predicted up to
 * 57 % fast or 120 % slow on a Zen 5 VM; a case with an operand on the
 * edge (a share strictly between 0 and 1) is timed both ways and its time
 * is the blend (tc_mb_sample). Rule llc-edge; switched off, the curve of
 * an LRU cache: all below the LLC's size, nothing from it.
 */
void tc_mbs_apply_llc_edge(const tc_mb_sampler *s, const tc_mb_case *cs, recipe *p)
{
    (void)cs;
    p->d.edge_curve = s->o.llc_edge;
}

static double edge_weight(const tc_mb_sampler *s, const recipe *p, int64_t distance)
{
    static const double lru[TC_EDGE_POINTS]; /* not known: all or nothing */
    const double *curve = p->d.edge_curve ? p->d.edge_curve : lru;
    return tc_mb_edge_share(curve, s->level[s->nlevels - 1],
                            (double)p->elem_bytes * (double)distance);
}

/* The level a distance of the recipe's elements reaches
 * (tc_mb_sampler_level counts 8-byte words). */
static int level_of(const tc_mb_sampler *s, const recipe *p, int64_t distance)
{
    int64_t b = p->elem_bytes;
    if (b != 8 && distance >= 0)
        distance = distance > INT64_MAX / b ? INT64_MAX : distance * b / 8;
    return tc_mb_sampler_level(s, distance);
}

/*
 * Whether the setup places operand i by its access distance though its
 * list has no entry for it: a truncated list leaves out the operands
 * beyond every level; an operand prefetched whole has only its prefetch
 * entry, and where a dgemm's stream brings in the first lines of its run
 * only, the run's rest is where its access distance says (rule
 * tiled-streams). (An operand whose prefetch brings in a line per column
 * is never prefetched whole: the analyzer lists it at its access distance
 * too.)
 */
static int left_out(const tc_mb_case *cs, const recipe *p, int i)
{
    int prefetched = 0;
    for (int e = 0; e < cs->nsetup; e++) {
        if (cs->setup[e].operand != i)
            continue;
        if (cs->setup[e].kind == TC_SETUP_OPERAND)
            return 0;
        prefetched |= cs->setup[e].kind == TC_SETUP_PREFETCH;
    }
    return cs->truncated || (prefetched && p->d.tiled_part[i] > 0);
}

/* The level the setup puts an operand at this distance in: past the
 * upper levels, the LLC where the edge keeps all of it (which may be
 * beyond the LLC's measured size), memory where it keeps none, and on
 * the edge the LLC or memory as the recipe's edge_out says. */
static int placed_level(const tc_mb_sampler *s, const recipe *p, int64_t distance)
{
    int k = level_of(s, p, distance);
    if (k < s->nlevels - 1)
        return k;
    double w = edge_weight(s, p, distance);
    int in_llc = w >= 1.0 || (w > 0.0 && !p->edge_out);
    return in_llc ? s->nlevels - 1 : s->nlevels;
}

/* Where a left-out operand goes: by its access distance; one a truncated
 * list left out is beyond the LLC (in memory, or on the LLC's edge) even
 * where its distance says otherwise. */
static int left_out_level(const tc_mb_sampler *s, const tc_mb_case *cs, const recipe *p, int i)
{
    int64_t d = cs->operand[i].access_distance;
    return cs->truncated && level_of(s, p, d) < s->nlevels ? s->nlevels
                                                                     : placed_level(s, p, d);
}

/* The weight of the LLC placement in cs's blend: the smallest share of
 * its operands on the edge (listed or left out); 1 when none is. */
double tc_mbs_case_edge_weight(const tc_mb_sampler *s, const tc_mb_case *cs, const recipe *p)
{
    double w = 1.0, x;
    for (int e = 0; e < cs->nsetup; e++)
        if (cs->setup[e].kind != TC_SETUP_REMOTE &&
            (x = edge_weight(s, p, cs->setup[e].distance)) > 0.0 && x < w)
            w = x;
    for (int i = 0; i < cs->noperands; i++)
        if (left_out(cs, p, i) &&
            (x = edge_weight(s, p, cs->operand[i].access_distance)) > 0.0 && x < w)
            w = x;
    return w;
}

/* Remote elements that push data out of every level above level k (5/4 of
 * level k-1), at most the pool. */
int64_t tc_mbs_evict_elements(const tc_mb_sampler *s, int k)
{
    int64_t e = s->level[k - 1] / 8 * 5 / 4;
    int64_t cap = s->pool_lines * s->line_doubles;
    return e < cap ? e : cap;
}

/* Pages a reuse distance of `distance` elements spans, taking the data
 * between two uses as sparse as op: a matrix whose columns lie a page or
 * more apart uses one column's run per page, a vector strided by a page
 * or more one element; dense data fills its pages. */
static int64_t distance_pages(const tc_operand *op, int64_t distance, int64_t bytes)
{
    const int64_t page = 4096 / bytes;
    int64_t used = page; /* elements per page */
    if (op->rank >= 1 && op->stride[0] >= page)
        used = 1;
    else if (op->rank == 2 && op->stride[1] >= page && op->stride[0] == 1)
        used = op->extent[0] < page ? op->extent[0] : page;
    return distance / (used > 0 ? used : 1);
}

/* The recipe's invariants (always compiled in; make test-asan runs them
 * under the sanitizers): steps within bounds, each on one of the case's
 * operands and in one of the sampler's levels or memory; a train of at
 * least one call and at most the loop's extent. */
static void recipe_assert(const tc_mb_sampler *s, const tc_mb_case *cs, const recipe *p)
{
    assert(p->nsteps >= 0 && p->nsteps <= MAX_STEPS);
    assert(p->n >= 0 && p->n <= TC_MB_MAX_OPERANDS);
    assert(p->train >= 1 && (p->train == 1 || p->lead + p->train <= cs->loop_extent));
    for (int e = 0; e < p->nsteps; e++) {
        const step *st = &p->steps[e];
        assert(st->kind >= 0 && st->kind < STEP_KINDS);
        assert(st->level >= 0 && st->level <= s->nlevels);
        assert(st->kind == STEP_EVICT || st->kind == STEP_TLB ||
               (st->operand >= 0 && st->operand < p->n));
    }
    (void)s, (void)cs, (void)p;
}

/*
 * The setup of cs as steps: its operand and prefetch entries grouped by
 * the level their distances reach, deepest first - the operands a
 * truncated list left out (their distances are beyond every level) in
 * memory; memory: flushed (or, in remote mode, touched and then evicted
 * from every level); level k > 0: touched, then levels above evicted; L1:
 * touched. After the shallowest level holding an operand whose distance
 * spans more pages than the TLB keeps, the TLB is evicted (tlb.h): the
 * operands placed so far lose their translations, later ones keep them
 * (rule tlb). Fills p->steps and p->nsteps.
 */
void tc_mbs_apply_tlb(const tc_mb_sampler *s, const tc_mb_case *cs, recipe *p)
{
    (void)cs;
    p->d.tlb = s->tlb.count > 0;
}

void tc_mbs_recipe_place(const tc_mb_sampler *s, const tc_mb_case *cs, recipe *p)
{
    int lvl[TC_MB_MAX_SETUP], n = 0, tlb_after = -1;
    int tlb = p->d.tlb;
    step *out = p->steps;
    for (int e = 0; e < cs->nsetup; e++) {
        const tc_mb_setup *st = &cs->setup[e];
        lvl[e] = st->kind == TC_SETUP_REMOTE ? -1 : placed_level(s, p, st->distance);
        if (lvl[e] >= 0 && tlb &&
            distance_pages(&cs->operand[st->operand].op, st->distance, p->elem_bytes) >
                s->o.tlb_pages &&
            (tlb_after < 0 || lvl[e] < tlb_after))
            tlb_after = lvl[e];
    }
    if (cs->truncated && tlb && tlb_after < 0)
        tlb_after = s->nlevels; /* operands beyond every level */
    for (int g = s->nlevels; g >= 0; g--) {
        int any = 0;
        for (int i = 0; i < cs->noperands; i++) {
            if (left_out(cs, p, i) && left_out_level(s, cs, p, i) == g) {
                out[n++] = (step){g == s->nlevels && s->flush ? STEP_FLUSH : STEP_TOUCH, i, g};
                any = 1;
            }
        }
        for (int e = 0; e < cs->nsetup; e++) {
            if (lvl[e] != g)
                continue;
            const tc_mb_setup *st = &cs->setup[e];
            int pf = st->kind == TC_SETUP_PREFETCH;
            int kind = g == s->nlevels && s->flush ? (pf ? STEP_FLUSH_PREFETCH : STEP_FLUSH)
                                                   : (pf ? STEP_PREFETCH : STEP_TOUCH);
            out[n++] = (step){kind, st->operand, g};
            any = 1;
        }
        if (any && g > 0 && !(g == s->nlevels && s->flush))
            out[n++] = (step){STEP_EVICT, -1, g};
        if (g == tlb_after)
            out[n++] = (step){STEP_TLB, -1, g};
    }
    p->nsteps = n;
    recipe_assert(s, cs, p);
}

/* Whether operand i of cs is streamed: its prefetched part is all of it,
 * one contiguous run the loop streams through (the next iteration's
 * following this one's) on a machine whose hardware fetches ahead of a
 * stream (the profile's depth > 0): in the loop the stream runs ahead of
 * every call, its latency hidden, and what it costs is bandwidth
 * (tc_mbs_bound). Columns far apart are as many streams as columns, more than
 * a prefetcher follows, and dgemm walks even a contiguous operand tile by
 * tile, not front to back: their first lines only, as before, or for a
 * dgemm's run of short columns the stream's depth (step_shape). Rule
 * streams. */
int tc_mbs_one_run(const tc_operand *op)
{
    return op->rank < 2 || op->extent[1] <= 1 || op->stride[1] == op->extent[0];
}

int tc_mbs_tiled(const tc_mb_case *cs)
{
    return cs->node->kind == TC_NODE_KERNEL && tc_kernel_table[cs->node->call->kernel].tiled;
}

void tc_mbs_apply_streams(const tc_mb_sampler *s, const tc_mb_case *cs, recipe *p)
{
    for (int i = 0; i < p->n; i++)
        p->d.streamed[i] = cs->operand[i].prefetch == TC_PREFETCH_STREAM && s->o.stream_lines > 0 &&
                         tc_mbs_one_run(&cs->operand[i].op) && !tc_mbs_tiled(cs);
}

/* Elements of a dgemm operand's run that the stream fetched ahead of the
 * call: the profile's depth, where the run is longer (0: not such an
 * operand). A dgemm takes the run tile by tile, so the prefetcher stays
 * that far into it: ci'-dgemm of C[a,b,c] = A[i,j,a] * B[j,b,i,c] reads
 * B[:,:,i+1,c], 8 KiB right after B[:,:,i,c], and a call found 6.0 us
 * with it in memory and 5.1-5.2 with it in cache; placed whole as
 * prefetched, ci'-dgemm was predicted as fast as cj'-dgemm and ran 10 %
 * slower. (Columns longer than a line keep the first line each.) Rule
 * tiled-streams. */
static int64_t tiled_stream_part(const tc_mb_sampler *s, const tc_mb_case *cs, int i)
{
    const tc_mb_operand *o = &cs->operand[i];
    int64_t line = tc_mbs_line_elems(&s->o, cs), ahead = (int64_t)s->o.stream_lines * line;
    if (!tc_mbs_tiled(cs) || o->prefetch != TC_PREFETCH_STREAM || ahead <= 0 || !tc_mbs_one_run(&o->op) ||
        o->op.extent[0] > line || o->elements <= ahead)
        return 0;
    return ahead;
}

void tc_mbs_apply_tiled_streams(const tc_mb_sampler *s, const tc_mb_case *cs, recipe *p)
{
    for (int i = 0; i < p->n; i++)
        p->d.tiled_part[i] = tiled_stream_part(s, cs, i);
}

/* Whether the prefetch of operand i brings in the first line of each of
 * its columns only (the paper's rule): the operand is not streamed and
 * its columns are longer than a line. */
static int first_lines_only(const tc_mb_sampler *s, const tc_mb_case *cs, const recipe *p,
                            int i)
{
    return !p->d.streamed[i] && p->first[i] &&
           cs->operand[i].op.extent[0] > tc_mbs_line_elems(&s->o, cs);
}

/* The shape a step touches: the operand, or its prefetched part: all of a
 * streamed operand, else one line along the tensor's first dimension; in
 * a train, the operand's runs for all its calls. */
tc_mb_shape tc_mbs_step_shape(const tc_mb_sampler *s, const tc_mb_case *cs, const recipe *p,
                              const step *st)
{
    tc_mb_shape sh = tc_mbs_shape_of(&cs->operand[st->operand].op);
    int pf = st->kind == STEP_PREFETCH || st->kind == STEP_FLUSH_PREFETCH;
    int64_t part = pf ? p->d.tiled_part[st->operand] : 0;
    if (pf && first_lines_only(s, cs, p, st->operand))
        sh.n0 = tc_mbs_line_elems(&s->o, cs);
    if (part > 0) /* the first columns of the run */
        sh.n1 = (part + sh.n0 - 1) / sh.n0;
    if (!pf && p->train_step[st->operand] > 0)
        sh = tc_mbs_train_shape(p, st->operand);
    return sh;
}

