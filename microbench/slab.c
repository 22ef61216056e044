/* slab.c - a part of a case that fits the budget, or a slab of a long call (sample_impl.h). */
#include "microbench/sample_impl.h"

#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ast/error.h"
#include "runtime/execute.h"

/* ---- a part of a case that fits the budget --------------------------- */

/* Operand i of a case cut to a slab had `before` elements: its setup
 * entries follow. The part a slab keeps is the front of the operand, and
 * the call walks the rest after it: that rest adds to its distance (a
 * dgemm writing a 95 MB temporary was timed on a 24 MB slab of it placed
 * in the LLC, 25 % fast; the permutation reading it back, likewise). */
static void shrink_setup(tc_mb_case *cs, int i, int64_t before)
{
    int64_t after = cs->operand[i].elements;
    for (int e = 0; e < cs->nsetup; e++) {
        tc_mb_setup *st = &cs->setup[e];
        if (st->operand == i && st->kind == TC_SETUP_OPERAND) {
            st->elements = after;
            st->distance += before - after;
        } else if (st->operand == i && st->kind == TC_SETUP_PREFETCH && before > 0) {
            st->elements = st->elements * after / before;
        }
    }
}

static void set_extent(tc_operand *op, const tc_dim *dim, int64_t from, int64_t to)
{
    for (int d = 0; d < op->rank; d++)
        if (tc_dim_same(&op->dim[d], dim) && op->extent[d] == from)
            op->extent[d] = to;
}

/* Cuts dimension dim from `from` to `to` everywhere in sc. */
static void cut(scaled *sc, const tc_dim *dim, int64_t from, int64_t to)
{
    if (sc->node.kind == TC_NODE_KERNEL) {
        tc_call *k = &sc->call;
        if (tc_dim_same(&k->dim_m, dim) && k->m == from)
            k->m = to;
        if (tc_dim_same(&k->dim_n, dim) && k->n == from)
            k->n = to;
        if (tc_dim_same(&k->dim_k, dim) && k->k == from)
            k->k = to;
        for (int i = 0; i < 3; i++)
            set_extent(&k->arg[i], dim, from, to);
    } else {
        /* the permutation the copy runs: its dimension with the slice
         * dimension's tensor stride (the view's source side is the
         * tensor's) */
        tc_operand *sl = &sc->copy.slice;
        for (int d = 0; d < sl->rank; d++) {
            if (!tc_dim_same(&sl->dim[d], dim) || sl->extent[d] != from)
                continue;
            for (int k = 0; k < sc->copy.view.rank; k++)
                if (sc->copy.view.src_stride[k] == sl->stride[d] &&
                    sc->copy.view.extent[k] == from) {
                    sc->copy.view.extent[k] = to;
                    break;
                }
        }
        set_extent(sl, dim, from, to);
    }
    for (int i = 0; i < sc->cs.noperands; i++) {
        tc_mb_operand *o = &sc->cs.operand[i];
        int64_t before = o->elements;
        set_extent(&o->op, dim, from, to);
        tc_mb_operand_size(o);
        shrink_setup(&sc->cs, i, before);
    }
}

/* The dimensions (and extents) a cut may halve: the call's dimensions,
 * or a copy's two. */
static int cut_candidates(const scaled *sc, tc_dim pos[3], int64_t ext[3])
{
    int n = 0;
    if (sc->node.kind == TC_NODE_KERNEL) {
        const tc_call *k = &sc->call;
        const tc_dim *dims[3] = {&k->dim_m, &k->dim_n, &k->dim_k};
        const int64_t sizes[3] = {k->m, k->n, k->k};
        for (int d = 0; d < 3; d++)
            if (dims[d]->n > 0 && sizes[d] > 1) {
                pos[n] = *dims[d];
                ext[n++] = sizes[d];
            }
    } else if (sc->node.kind == TC_NODE_COPY) { /* a permutation is not cut (slab_permutation) */
        for (int d = 0; d < sc->copy.slice.rank; d++)
            if (sc->copy.slice.extent[d] > 1) {
                pos[n] = sc->copy.slice.dim[d];
                ext[n++] = sc->copy.slice.extent[d];
            }
    }
    return n;
}

/* 1 when the operands' spans (address space, mostly unmapped for a
 * strided slice) exceed the memory available: the allocation would be
 * refused. */
static int beyond_address_space(const recipe *p, int64_t avail)
{
    double total = 0.0;
    for (int i = 0; i < p->n; i++)
        total += p->span[i] < 0 ? 1e30 : (double)p->elem_bytes * (double)p->span[i];
    return avail >= 0 && total > (double)avail;
}

/* 1 for a dgemm with at least TC_MB_COMPUTE_BOUND_INTENSITY flops per byte of
 * its operands: even streaming all of them from memory adds a few percent
 * to it (a byte from memory costs about 1.5 flops' time on the development
 * VM: 60 GFLOP/s, 39 GB/s). Its slab need not stay beyond the cache: kept
 * there, the 1920x1600x2304 dgemm of a CCSD term's A^B^-dgemm was timed on
 * 80 ms slabs, 0.69 s of a 0.8 s ranking. */
static int compute_bound(const tc_node *node)
{
    if (node->kind != TC_NODE_KERNEL || !tc_kernel_table[node->call->kernel].tiled)
        return 0;
    const tc_call *k = node->call;
    double m = (double)k->m, n = (double)k->n, kk = (double)k->k;
    double bytes = (double)tc_type_row_of(k->type)->bytes;
    return tc_mbs_node_flops(node) >= TC_MB_COMPUTE_BOUND_INTENSITY * bytes * (m * kk + kk * n + m * n);
}

/* 1 when a call of the case is more than a slab: its flop and
 * compulsory-byte bound above TC_MB_SLAB_SECONDS, or the pages its
 * operands touch above TC_MB_SLAB_BYTES (a vector of C with one element
 * per line maps all of C, each case again). Rule slabs. */
void tc_mbs_apply_slabs(const tc_mb_sampler *s, const tc_mb_case *cs, recipe *p)
{
    (void)s, (void)cs;
    p->d.slabs = 1;
}

static int beyond_slab(const tc_mb_sampler *s, const recipe *p, const tc_mb_case *cs,
                       int64_t need, int edge_out)
{
    if (!p->d.slabs)
        return 0;
    return need > TC_MB_SLAB_BYTES || tc_mbs_case_bound(s, cs, edge_out) > TC_MB_SLAB_SECONDS;
}

/*
 * The dimension of a permutation's view that its slab halves: the one
 * outermost on the tensor's side among those unit-stride on neither side
 * (else the outermost). Halving a side's unit-stride dimension shortens
 * every run on that side: intensli's A[c,b,d,k,a] -> [a,d,b,k,c] (44 MB),
 * halved in a, the temporary's unit dimension, was predicted 15.3-17.6 ms
 * and runs in 6.6-7.0; halved in b, 6.5 ms (docs/benchmarks.md).
 */
int tc_mbs_permute_cut_dim(const tc_permute *v)
{
    int k = -1;
    for (int any = 0; any < 2 && k < 0; any++)
        for (int d = 0; d < v->rank; d++) {
            int unit = v->src_stride[d] == 1 || v->dst_stride[d] == 1;
            if (v->extent[d] > 1 && (any || !unit) &&
                (k < 0 || v->src_stride[d] > v->src_stride[k]))
                k = d;
        }
    return k;
}

/*
 * A whole-tensor permutation longer than a slab, cut to one: its view's
 * dimension tc_mbs_permute_cut_dim halved (a side whose outermost it is
 * stays one run from the start, the other becomes runs: permute_footprint)
 * while the slab's bound passes TC_MB_SLAB_SECONDS or its two sides
 * TC_MB_SLAB_BYTES, keeping each side above `floor` bytes (beyond the
 * cache, as the whole was). Returns the factor the time scales by.
 */
static double slab_permutation(const tc_mb_sampler *s, const recipe *p, scaled *sc,
                               int64_t floor, int edge_out)
{
    tc_permute *v = &sc->perm.view;
    int k = tc_mbs_permute_cut_dim(v);
    double factor = 1.0;
    int64_t elements = tc_permutation_elements(&sc->perm);
    while (k >= 0 && v->extent[k] > 1) {
        int64_t to = (v->extent[k] + 1) / 2, part = elements / v->extent[k] * to;
        if (!beyond_slab(s, p, &sc->cs, 16 * elements, edge_out) || 8 * part < floor)
            break;
        factor *= (double)v->extent[k] / (double)to;
        v->extent[k] = to;
        elements = part;
        for (int i = 0; i < 2; i++) { /* the case's operands as the call's */
            tc_mb_operand *o = &sc->cs.operand[i];
            int64_t before = o->elements;
            tc_operand shape = o->op;
            tc_mbs_permute_footprint(v, i == 1, &shape);
            o->op.rank = shape.rank;
            memcpy(o->op.extent, shape.extent, sizeof shape.extent);
            memcpy(o->op.stride, shape.stride, sizeof shape.stride);
            o->op.ld = shape.ld;
            o->elements = elements;
            o->span = tc_mbs_op_span(&o->op);
            shrink_setup(&sc->cs, i, before);
        }
    }
    return factor;
}

/* Operands beyond twice the LLC stream from memory, and the data a call
 * touches twice (dgemm's beta pass, then its product) comes back from
 * memory only when it does not fit: a slab of such a call keeps its
 * operands beyond twice the LLC, unless the call is compute-bound whatever
 * its bytes do. Rule slab-floor: the bytes a slab keeps at least. */
void tc_mbs_apply_slab_floor(const tc_mb_sampler *s, const tc_mb_case *cs, recipe *p)
{
    int64_t need = tc_mbs_recipe_bytes(p), llc = s->level[s->nlevels - 1];
    p->d.slab_floor = (need < 0 || need >= 2 * llc) && !compute_bound(cs->node) ? 2 * llc : 0;
}

/* Rule warm-slabs: a compute-bound dgemm (warm_slab, in tc_mbs_fit). */
void tc_mbs_apply_warm_slabs(const tc_mb_sampler *s, const tc_mb_case *cs, recipe *p)
{
    (void)s;
    p->d.warm_slab = compute_bound(cs->node);
}

/* Rule slab-rows: a dgemm (or its s, c, z kin) shortened to a slab keeps
 * its rows (best_cut). */
void tc_mbs_apply_slab_rows(const tc_mb_sampler *s, const tc_mb_case *cs, recipe *p)
{
    (void)s;
    const tc_node *node = cs->node;
    p->d.slab_rows = node->kind == TC_NODE_KERNEL && tc_kernel_table[node->call->kernel].tiled;
}

/* How long dimension d of a slab is for a cut that shortens it: under
 * rule slab-rows a dgemm's rows count TC_MB_SLAB_ROWS_SHARE times less,
 * and a tie goes to n or k (the + 1). */
static int64_t shorten_length(const scaled *sc, int rows, const tc_dim *dim, int64_t size)
{
    int is_m = rows && sc->node.kind == TC_NODE_KERNEL && tc_dim_same(dim, &sc->call.dim_m) &&
               size == sc->call.m;
    return is_m ? 2 * size : 2 * size * TC_MB_SLAB_ROWS_SHARE + 1;
}

/* Rule peak-dgemm: a compute-bound double dgemm, where the profile has a
 * peak (tc_mbs_fit keeps it when the call is TC_MB_PEAK_DGEMM_SLABS slabs
 * or more), on one thread or on the plan's BLAS threads (the peak times
 * their count: a slab of the call on two threads, too short to share
 * well, had put 1444^3 at 0.148 s, the one-thread rate; it runs in
 * 0.082-0.084 s there, the peak's bound 0.072). */
void tc_mbs_apply_peak_dgemm(const tc_mb_sampler *s, const tc_mb_case *cs, recipe *p)
{
    p->d.peak_dgemm = compute_bound(cs->node) && cs->type == TC_TYPE_D && s->o.peak_flops > 0.0;
}

double tc_mbs_slab_time(const scaled *sc, double m)
{
    if (sc->peak_s > 0.0)
        return sc->peak_s + sc->cold_s;
    return m * (sc->cs.scale > 1.0 ? sc->cs.scale : 1.0) + sc->cold_s;
}

/* Points sc's case at sc's own node, and the node at sc's call or copy. */
static void scaled_bind(scaled *sc)
{
    sc->cs.node = &sc->node;
    if (sc->node.kind == TC_NODE_KERNEL)
        sc->node.call = &sc->call;
    else if (sc->node.kind == TC_NODE_PERMUTE)
        sc->node.perm = &sc->perm;
    else
        sc->node.copy = &sc->copy;
}

/* sc as a copy of cs that can be cut. */
static void scaled_from(scaled *sc, const tc_mb_case *cs)
{
    sc->cs = *cs;
    sc->cold_s = sc->peak_s = 0.0;
    sc->node = *cs->node;
    sc->node.parent = sc->node.next = sc->node.child = NULL;
    if (sc->node.kind == TC_NODE_KERNEL)
        sc->call = *cs->node->call;
    else if (sc->node.kind == TC_NODE_PERMUTE)
        sc->perm = *cs->node->perm;
    else
        sc->copy = *cs->node->copy;
    scaled_bind(sc);
}

/*
 * The cut of sc that frees most memory (of equals, the longest), or with
 * shorten (a call that fits, cut only to shorten it) the one along its
 * longest dimension (shorten_length), so the part stays as fast per flop
 * as it can (freeing memory first halved a 1920x1600x1920 dgemm's k and
 * predicted it 23 % slow; n alone ends in a sliver). -1 when none; *pos,
 * *ext and *need describe it.
 */
static int best_cut(const tc_mb_sampler *s, const tc_contraction *c, const scaled *sc,
                    const recipe *p, int shorten, tc_dim *pos, int64_t *ext, int64_t *need)
{
    tc_dim cand[3];
    int best = -1;
    int64_t size[3], longest = 0;
    int n = cut_candidates(sc, cand, size);
    for (int d = 0; d < n; d++) { /* try each */
        int64_t len = shorten_length(sc, p->d.slab_rows, &cand[d], size[d]);
        scaled t = *sc;
        scaled_bind(&t);
        cut(&t, &cand[d], size[d], (size[d] + 1) / 2);
        recipe q;
        if (tc_mbs_prepare(s, 0, c, &t.cs, &q, NULL) != TC_OK)
            continue;
        int64_t b = tc_mbs_recipe_bytes(&q);
        int longer = len > longest;
        int better = best < 0 || (shorten ? longer : b < *need || (b == *need && longer));
        if (b >= 0 && better) {
            best = d;
            *need = b;
            longest = len;
        }
    }
    if (best >= 0) {
        *pos = cand[best];
        *ext = size[best];
    }
    return best;
}

/*
 * Rule warm-slabs. A compute-bound dgemm pays for its operands' first
 * reads from memory once, whatever its size: a slab of a millisecond
 * timed from memory paid them too, and scaling it by the work charged
 * them a hundred times. The 1444^3 dgemm of A^B^C^-dgemm
 * (C[a,b,c,d] = A[a,e,c,f] * B[f,b,e,d] at 38) ran 113 ms with its
 * operands in memory and 115 ms in cache; its 361^3 slab ran 2.1 ms from
 * memory and 1.85 ms in cache, 134 ms and 118 ms scaled by 64, and the
 * 134 ms lost the ranking to a loop of small dgemms that ran 164 ms. So
 * such a slab is timed with its operands in cache (no setup), and the
 * whole call's operands that the case has in memory (the recipe's flushed
 * ones) are added at the bandwidth (sc->cold_s), once.
 */
static tc_status warm_slab(const tc_mb_sampler *s, const tc_contraction *c,
                           const tc_mb_case *cs, int edge_out, scaled *sc, recipe *p,
                           tc_error *err)
{
    double bytes = 0.0, bw = s->o.memory_bandwidth;
    int threads = s->o.threads > 0 ? s->o.threads : 1;
    tc_mbs_recipe_place(s, &sc->cs, p); /* where the case has its operands */
    for (int e = 0; e < p->nsteps; e++)
        if (p->steps[e].kind == STEP_FLUSH)
            bytes += (double)p->elem_bytes * (double)cs->operand[p->steps[e].operand].elements;
    sc->cold_s = bw > 0.0 ? bytes / bw / threads : 0.0;
    sc->cs.nsetup = 0; /* reused at once: in cache */
    sc->cs.truncated = 0;
    for (int i = 0; i < sc->cs.noperands; i++) {
        sc->cs.operand[i].access_distance = 0;
        sc->cs.operand[i].prefetch = TC_PREFETCH_NONE;
    }
    return tc_mbs_prepare(s, edge_out, c, &sc->cs, p, err);
}

/*
 * Makes sc a part of cs whose operands need at most `room` bytes and whose
 * call lasts about a slab (docs/prediction.md: a call too long to repeat
 * cheaply, one dgemm doing everything, is timed on a slab of it in the same
 * cache context and scaled by work), halving the dimension that frees most
 * each time; *p is the recipe for it (operands on the LLC's edge placed as
 * edge_out says). avail (bytes of memory, -1 unknown) bounds the spans.
 * TC_ERESOURCE when no part fits.
 */
tc_status tc_mbs_fit(const tc_mb_sampler *s, const tc_contraction *c, const tc_mb_case *cs,
                     int edge_out, int64_t room, int64_t avail, scaled *sc, recipe *p,
                     tc_error *err)
{
    scaled_from(sc, cs);
    double factor = cs->scale > 1.0 ? cs->scale : 1.0, uncut = factor;
    int warm = p->d.warm_slab, peak = p->d.peak_dgemm; /* decided on the full call: a
                                                            slab is less intense */
    int64_t need = tc_mbs_recipe_bytes(p), floor = p->d.slab_floor;
    if (sc->node.kind == TC_NODE_PERMUTE) {
        factor *= slab_permutation(s, p, sc, floor > 0 && floor < TC_MB_PERMUTE_SLAB_FLOOR
                                              ? TC_MB_PERMUTE_SLAB_FLOOR : floor, edge_out);
        tc_status st = tc_mbs_prepare(s, edge_out, c, &sc->cs, p, err);
        if (st != TC_OK)
            return st;
        need = tc_mbs_recipe_bytes(p);
    }
    for (int round = 0; round < TC_MB_CUT_ROUNDS; round++) {
        int fits = need >= 0 && need <= room && !beyond_address_space(p, avail);
        if (fits && !beyond_slab(s, p, &sc->cs, need, edge_out))
            break;
        tc_dim pos;
        int64_t ext, best_need = -1;
        if (best_cut(s, c, sc, p, fits, &pos, &ext, &best_need) < 0 || best_need >= need)
            break; /* nothing left to cut, or cutting does not help */
        if (best_need < floor && fits)
            break; /* a slab stays beyond the cache, as the full call was */
        int64_t to = (ext + 1) / 2;
        cut(sc, &pos, ext, to);
        factor *= (double)ext / (double)to;
        tc_status st = tc_mbs_prepare(s, edge_out, c, &sc->cs, p, err);
        if (st != TC_OK)
            return st;
        need = best_need;
    }
    if (factor > uncut && warm) {
        tc_status st = warm_slab(s, c, cs, edge_out, sc, p, err);
        if (st != TC_OK)
            return st;
        if (peak && factor >= TC_MB_PEAK_DGEMM_SLABS * uncut)
            sc->peak_s = tc_mbs_node_flops(cs->node) /
                         (s->o.peak_flops * (s->o.threads > 1 ? s->o.threads : 1)) * uncut;
    }
    sc->cs.scale = factor;
    /* a whole-tensor permutation cannot be cut (its view spans the tensor):
     * timed whole when memory allows, the one case above the budget */
    if (need > room && sc->node.kind == TC_NODE_PERMUTE && need >= 0 &&
        (avail < 0 || need <= avail))
        return TC_OK;
    if (need < 0 || need > room || beyond_address_space(p, avail)) {
        char what[96];
        tc_mbs_describe(cs, what, sizeof what);
        return tc_error_set(err, TC_ERESOURCE, 0, 0,
                            "cannot sample %s: even a part of it needs more than the %lld "
                            "bytes of the sampler's memory budget",
                            what, (long long)room);
    }
    return TC_OK;
}
