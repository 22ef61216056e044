/* analyze.c - access and prefetch distances, cases and their counts (analyze.h). */
#include "microbench/analyze.h"

#include <stdlib.h>
#include <string.h>

#include "ast/error.h"
#include "runtime/permute.h" /* which copies stream */

#define NBASES (TC_BASE_TEMP + TC_MAX_TEMPS)

static const char *const model_names[] = {"warm", "access", "prefetch", "failures", "full"};

const char *tc_mb_model_name(tc_mb_model m)
{
    return (unsigned)m <= TC_MODEL_FULL ? model_names[m] : "?";
}

int tc_mb_model_from_name(const char *name)
{
    for (int m = 0; m <= TC_MODEL_FULL; m++)
        if (strcmp(name, model_names[m]) == 0)
            return m;
    return -1;
}

/*
 * A set of memory regions, at most one per base. The region of a base is
 * its slice with some looped indices joined ("A[a,:] joined over a" is
 * A[:,:]), kept as a mask over index positions. Every base is reached by
 * one slice shape only (a tensor by its kernel argument or by its copy),
 * and the indices joined onto it while walking up are nested sets, so the
 * union of two regions of one base is the region with the union mask.
 */
typedef struct rset {
    int present[NBASES];
    uint32_t free[NBASES];
} rset;

typedef struct ctx {
    const tc_algorithm *alg;
    const tc_contraction *c;
    const tc_mb_params *p;
} ctx;

static uint32_t bit(int index)
{
    return 1u << index;
}

/* Every index a kept dimension spans (a fused group: all of its indices). */
static uint32_t kept_mask(const tc_operand *op)
{
    uint32_t m = 0;
    for (int d = 0; d < op->rank; d++)
        for (int g = 0; g < op->dim[d].n; g++)
            m |= bit(op->dim[d].index[g]);
    return m;
}

/* 1 when base is a temporary holding a permuted tensor (or block). */
static int permuted_temp(const ctx *x, int base)
{
    return tc_alg_is_permuted_temp(x->alg, base);
}

/* The indices of a base in storage order: a tensor's, or a permuted
 * temporary's order; NULL for a slice temporary. */
static const int *base_indices(const ctx *x, int base, int *rank)
{
    if (base < TC_BASE_TEMP) {
        *rank = x->c->tensor[base].rank;
        return x->c->tensor[base].index;
    }
    const tc_temp *t = &x->alg->temp[base - TC_BASE_TEMP];
    int permuted = t->filled_by == TC_NODE_PERMUTE;
    *rank = permuted ? t->rank : 0;
    return permuted ? t->order : NULL;
}

static uint32_t dep_mask(const ctx *x, const tc_operand *op)
{
    if (op->base >= TC_BASE_TEMP && !permuted_temp(x, op->base))
        return 0; /* a slice temporary is the same memory in every iteration */
    uint32_t m = 0;
    for (int d = 0; d < op->ndep; d++)
        m |= bit(op->dep[d]);
    return m;
}

static void rset_add(const ctx *x, rset *m, const tc_operand *op, uint32_t joined)
{
    m->present[op->base] = 1;
    m->free[op->base] |= kept_mask(op) | (dep_mask(x, op) & joined);
}

static int64_t line_elements(const ctx *x)
{
    int64_t l = x->p->line_bytes / (int64_t)tc_type_row_of(x->alg->type)->bytes;
    return l > 0 ? l : 1;
}

/* Cache lines (in elements: lines * line_elements) a block occupies when
 * it repeats n times at `stride` elements, its one copy spanning `span`
 * elements in `lines` lines: n times as many, or every line of the whole
 * span where copies share lines. */
static void repeat_block(int64_t n, int64_t stride, int64_t line, int64_t *span, int64_t *lines)
{
    int64_t all = (stride * (n - 1) + *span + line - 1) / line * line;
    int64_t each = *lines * n;
    *span += stride * (n - 1);
    *lines = all < each ? all : each;
}

/*
 * The volume of a region in the caches: the lines it touches, counted in
 * elements (the cache line is the smallest unit). A slice strided by a
 * line or more, such as B[j,:,:] of B[j,b,i] with j's extent 8, fills a
 * line per element: its footprint is 8 times its elements.
 */
static int64_t region_elements(const ctx *x, int base, uint32_t free)
{
    int64_t line = line_elements(x), span = 1, lines = line;
    int rank;
    const int *index = base_indices(x, base, &rank);
    if (!index) { /* a slice temporary: dense */
        int64_t n = x->alg->temp[base - TC_BASE_TEMP].elements;
        return (n + line - 1) / line * line;
    }
    int64_t stride = 1;
    for (int k = 0; k < rank; k++) {
        int64_t size = x->c->index[index[k]].size;
        if (free & bit(index[k]))
            repeat_block(size, stride, line, &span, &lines);
        stride *= size;
    }
    return lines;
}

static int64_t rset_volume(const ctx *x, const rset *m)
{
    int64_t v = 0;
    for (int b = 0; b < NBASES; b++)
        if (m->present[b])
            v += region_elements(x, b, m->free[b]);
    return v;
}

/* The operands a kernel, copy or permutation node touches (side[] holds
 * those made here); returns their number. */
static int node_operands(const ctx *x, const tc_node *n, const tc_operand **ops,
                         tc_operand side[2])
{
    if (n->kind == TC_NODE_KERNEL) {
        for (int i = 0; i < 3; i++)
            ops[i] = &n->call->arg[i];
        return 3;
    }
    if (n->kind == TC_NODE_PERMUTE) {
        tc_permutation_operands(n->perm, x->c, &side[0], &side[1]);
        ops[0] = &side[0];
    } else {
        tc_copy_temp_operand(n->copy, &side[1]);
        ops[0] = &n->copy->slice;
    }
    ops[1] = &side[1];
    return 2;
}

/* The direction of a copy or permutation node. */
static tc_copy_dir copy_dir(const tc_node *n)
{
    return n->kind == TC_NODE_PERMUTE ? n->perm->dir : n->copy->dir;
}

/* Which operands of the node it writes. */
static int is_written(const tc_node *n, int i)
{
    if (n->kind == TC_NODE_KERNEL)
        return i == 2;
    return copy_dir(n) == TC_COPY_IN ? i == 1 : i == 0;
}

/* 1 when node writes its operand i with streaming stores (a permutation
 * of 4 MiB or more, runtime/permute.h): those lines go to memory and
 * leave the caches as they were, so they count as no touch. */
static int streamed(const ctx *x, const tc_node *n, int i)
{
    if (n->kind != TC_NODE_PERMUTE || !is_written(n, i))
        return 0;
    double beta = n->perm->dir == TC_COPY_OUT ? x->c->beta : 0.0;
    return tc_rt_permute_streams(tc_permutation_elements(n->perm), n->perm->written, beta);
}

/* Adds every region touched inside node (all its iterations) to m, joined
 * over the loops between node and the access, node's own loop included. */
static void add_joined(const ctx *x, rset *m, const tc_node *n, uint32_t loops)
{
    if (n->kind == TC_NODE_LOOP) {
        for (const tc_node *ch = n->child; ch; ch = ch->next)
            add_joined(x, m, ch, loops | bit(n->index));
        return;
    }
    const tc_operand *ops[3];
    tc_operand side[2];
    int k = node_operands(x, n, ops, side);
    for (int i = 0; i < k; i++)
        if (!streamed(x, n, i))
            rset_add(x, m, ops[i], loops);
}

static int touches(const ctx *x, const tc_node *n, int base)
{
    if (n->kind == TC_NODE_LOOP) {
        for (const tc_node *ch = n->child; ch; ch = ch->next)
            if (touches(x, ch, base))
                return 1;
        return 0;
    }
    const tc_operand *ops[3];
    tc_operand side[2];
    int k = node_operands(x, n, ops, side);
    for (int i = 0; i < k; i++)
        if (ops[i]->base == base && !streamed(x, n, i))
            return 1;
    return 0;
}

/* The body that holds n: its siblings, in order, and n's position. */
static int siblings(const ctx *x, const tc_node *n, const tc_node **sib, int *pos)
{
    int count = 0;
    for (const tc_node *s = n->parent ? n->parent->child : x->alg->body; s; s = s->next) {
        if (s == n)
            *pos = count;
        sib[count++] = s;
    }
    return count;
}

#define MAX_BODY 16 /* copies in, one loop or kernel, copies out */

/*
 * The distance of operand op of node `node`, walking up the AST from
 * `start` (node itself, or the enclosing loop whose first iteration the
 * case is about). At each enclosing loop (§6.2.3): the previous siblings
 * in this iteration come first; then either op varies with the loop (case
 * 2: everything in the loop's iterations was touched since; join op over
 * it and go up) or it does not (case 1: the siblings after it in the
 * previous iteration, and, if op changed inside start, start's own
 * iterations). The root behaves as a loop over repeated executions of the
 * contraction that op does not vary with (case 3). `same_as` is the loop
 * whose previous iteration is taken to have touched op (for the prefetch
 * distance), or NULL.
 */
static int64_t distance(const ctx *x, const tc_node *node, const tc_operand *op,
                        const tc_node *start, const tc_node *same_as)
{
    rset m;
    memset(&m, 0, sizeof m);
    uint32_t deps = dep_mask(x, op), joined = 0;
    for (const tc_node *l = node->parent; start != node && l != start->parent; l = l->parent)
        joined |= deps & bit(l->index);
    int inner = joined != 0;
    const tc_node *cur = start;
    for (;;) {
        const tc_node *sib[MAX_BODY];
        int pos = 0, count = siblings(x, cur, sib, &pos);
        for (int i = pos - 1; i >= 0; i--) {
            if (touches(x, sib[i], op->base))
                return rset_volume(x, &m);
            add_joined(x, &m, sib[i], 0);
        }
        const tc_node *loop = cur->parent;
        uint32_t b = loop ? bit(loop->index) : 0;
        if (loop && loop != same_as && (deps & b) && !(joined & b)) {
            add_joined(x, &m, loop, 0);
            joined |= b;
            inner = 1;
            cur = loop;
            continue;
        }
        for (int i = count - 1; i > pos; i--) {
            if (touches(x, sib[i], op->base))
                return rset_volume(x, &m);
            add_joined(x, &m, sib[i], 0);
        }
        if (inner)
            add_joined(x, &m, cur, 0);
        return rset_volume(x, &m);
    }
}

/*
 * §6.2.4: does the loop directly around node bring op in ahead of time?
 * Along the tensor's first index it steps within lines (LINE); along the
 * first index the call does not span, with every index before it spanned
 * (a fused group counts as its indices) or within one line, the next
 * iteration's data continues this one's runs (STREAM).
 */
static tc_mb_prefetch prefetch_kind(const ctx *x, const tc_node *node, const tc_operand *op)
{
    const tc_node *loop = node->parent;
    if (!loop || !(dep_mask(x, op) & bit(loop->index)))
        return TC_PREFETCH_NONE;
    int rank;
    const int *index = base_indices(x, op->base, &rank);
    if (!index)
        return TC_PREFETCH_NONE;
    if (loop->index == index[0])
        return TC_PREFETCH_LINE;
    uint32_t kept = kept_mask(op);
    int spanned = 1;
    int64_t below = 1; /* elements of the indices before d */
    for (int d = 0; d < rank; d++) {
        if (loop->index == index[d])
            return spanned || below <= line_elements(x) ? TC_PREFETCH_STREAM : TC_PREFETCH_NONE;
        spanned &= (kept & bit(index[d])) != 0;
        below *= x->c->index[index[d]].size;
    }
    return TC_PREFETCH_NONE;
}

/* Elements `loop` moves op by: the product of the sizes of its base's
 * indices before the loop's (0: it does not index op). */
static int64_t step_along(const ctx *x, const tc_node *loop, const tc_operand *op)
{
    int rank;
    const int *index = loop ? base_indices(x, op->base, &rank) : NULL;
    if (!index || !(dep_mask(x, op) & bit(loop->index)))
        return 0;
    int64_t below = 1;
    for (int d = 0; d < rank; d++) {
        if (index[d] == loop->index)
            return below;
        below *= x->c->index[index[d]].size;
    }
    return 0;
}

/* Elements of the prefetch access: one line along the tensor's first dimension. */
static int64_t prefetch_elements(const ctx *x, const tc_operand *op)
{
    int rank;
    const int *index = base_indices(x, op->base, &rank);
    int first = index ? index[0] : x->c->tensor[op->tensor].index[0];
    int64_t n = 1;
    for (int d = 0; d < op->rank; d++)
        n *= tc_dim_start(&op->dim[d]) == first && op->extent[d] > line_elements(x)
                 ? line_elements(x)
                 : op->extent[d];
    return n;
}

static void describe_operand(const ctx *x, const tc_operand *op, int written,
                             tc_mb_operand *o)
{
    memset(o, 0, sizeof *o);
    o->op = *op;
    o->written = written;
    if (op->base >= TC_BASE_TEMP && !permuted_temp(x, op->base)) {
        /* the copy node's view of a slice temporary: the whole temporary */
        const tc_temp *t = &x->alg->temp[op->base - TC_BASE_TEMP];
        o->op.rank = 2;
        for (int d = 0; d < 2; d++) {
            o->op.dim[d] = tc_dim_one(x->c, t->dim[d]);
            o->op.extent[d] = t->extent[d];
        }
        o->op.stride[0] = 1;
        o->op.stride[1] = t->extent[0];
        o->op.ld = t->extent[0];
    }
    tc_mb_operand_size(o);
}

void tc_mb_operand_size(tc_mb_operand *o)
{
    o->elements = 1;
    o->span = 1;
    for (int d = 0; d < o->op.rank; d++) {
        o->elements *= o->op.extent[d];
        o->span += (o->op.extent[d] - 1) * o->op.stride[d];
    }
}

/* One entry before sorting. */
typedef struct entry {
    tc_mb_setup s;
    int written;
} entry;

static int before(const entry *a, const entry *b)
{
    if (a->s.distance != b->s.distance)
        return a->s.distance > b->s.distance;
    if (a->written != b->written)
        return a->written;
    return a->s.operand > b->s.operand;
}

/*
 * §6.2.3: operands by decreasing distance, each followed by the remote
 * region that makes the volume to its right equal its distance; cut at the
 * front at 5/4 of the last-level cache; dropped when only operand touches
 * remain (each repetition already touches every operand for the next).
 */
static void build_setup(const ctx *x, tc_mb_case *cs)
{
    entry e[2 * TC_MB_MAX_OPERANDS];
    int n = 0;
    for (int i = 0; i < cs->noperands; i++) {
        const tc_mb_operand *o = &cs->operand[i];
        int all_prefetched = o->prefetch != TC_PREFETCH_NONE && o->prefetch_elements == o->elements;
        if (!all_prefetched)
            e[n++] = (entry){{TC_SETUP_OPERAND, i, o->elements, o->access_distance}, o->written};
        if (o->prefetch != TC_PREFETCH_NONE)
            e[n++] = (entry){{TC_SETUP_PREFETCH, i, o->prefetch_elements, o->prefetch_distance},
                             o->written};
    }
    for (int i = 1; i < n; i++) /* insertion sort: at most 6 entries */
        for (int j = i; j > 0 && before(&e[j], &e[j - 1]); j--) {
            entry t = e[j];
            e[j] = e[j - 1];
            e[j - 1] = t;
        }
    /* From the right: the remote region after entry i tops the volume to
     * its right up to its distance (when operands overlap, the volume to
     * the right is already larger and the entry sits a little further). */
    int64_t rem[2 * TC_MB_MAX_OPERANDS], right[2 * TC_MB_MAX_OPERANDS], vol = 0;
    for (int i = n - 1; i >= 0; i--) {
        rem[i] = e[i].s.distance > vol ? e[i].s.distance - vol : 0;
        vol += rem[i] + e[i].s.elements;
        right[i] = vol;
    }
    /* Cut at the front: entries at or beyond 5/4 of the cache are out of
     * every level; one leading region fills the list up to that size. */
    int64_t cap = x->p->llc_bytes / (int64_t)tc_type_row_of(x->alg->type)->bytes * 5 / 4;
    int first = 0;
    while (first < n && e[first].s.distance >= cap)
        first++;
    cs->truncated = first > 0;
    cs->nsetup = 0;
    int remote = 0;
    int64_t kept = first < n ? right[first] : 0;
    if (cs->truncated && cap > kept) {
        cs->setup[cs->nsetup++] = (tc_mb_setup){TC_SETUP_REMOTE, -1, cap - kept, 0};
        remote = 1;
    }
    for (int i = first; i < n; i++) {
        cs->setup[cs->nsetup++] = e[i].s;
        if (rem[i] > 0) {
            cs->setup[cs->nsetup++] = (tc_mb_setup){TC_SETUP_REMOTE, -1, rem[i], 0};
            remote = 1;
        }
    }
    if (!remote)
        cs->nsetup = 0;
}

/* Fills the operands of a case of `node`: distances from `start`, prefetch
 * per `with_prefetch` (0 none, 1 all, 2 all but shared-line ones). */
static void fill_case(const ctx *x, tc_mb_case *cs, const tc_node *node, const tc_node *start,
                      int with_prefetch)
{
    const tc_operand *ops[3];
    tc_operand side[2];
    cs->node = node;
    cs->type = x->alg->type;
    cs->loop_extent = node->parent ? tc_alg_loop_extent(x->alg, node->parent) : 0;
    cs->noperands = node_operands(x, node, ops, side);
    for (int i = 0; i < cs->noperands; i++) {
        tc_mb_operand *o = &cs->operand[i];
        describe_operand(x, ops[i], is_written(node, i), o);
        if (x->p->model == TC_MODEL_WARM)
            continue;
        o->access_distance = distance(x, node, ops[i], start, NULL);
        o->loop_step = step_along(x, node->parent, ops[i]);
        tc_mb_prefetch k = with_prefetch ? prefetch_kind(x, node, ops[i]) : TC_PREFETCH_NONE;
        if (k == TC_PREFETCH_LINE && with_prefetch == 2)
            k = TC_PREFETCH_NONE;
        if (k != TC_PREFETCH_NONE) {
            o->prefetch = k;
            o->prefetch_distance = distance(x, node, ops[i], node, node->parent);
            o->prefetch_elements = prefetch_elements(x, ops[i]);
            /* Full model: a line shared with the last iteration comes back
             * after the operand's other lines too (its own footprint, which
             * §6.2.3's distance leaves out): cj'-dgemm of C[a,b,c] =
             * A[i,j,a] * B[j,b,i,c] (a=b=c=64) copies B[j,:,:,c], 512
             * lines, each shared by 8 iterations of j; with 36 KiB of other
             * data between they were placed in a 48 KiB L1, and the copies
             * came out 0.11 us where they take about twice that. */
            if (k == TC_PREFETCH_LINE && x->p->model == TC_MODEL_FULL)
                o->prefetch_distance += region_elements(x, ops[i]->base, kept_mask(ops[i]));
        }
    }
    if (x->p->model != TC_MODEL_WARM)
        build_setup(x, cs);
}

int64_t tc_mb_executions(const tc_algorithm *alg, const tc_node *node)
{
    int64_t n = 1;
    for (const tc_node *l = node->parent; l; l = l->parent)
        n *= tc_alg_loop_extent(alg, l);
    return n;
}

typedef struct case_list {
    tc_mb_case *v;
    int n, cap;
} case_list;

static tc_mb_case *push(case_list *l, tc_mb_case_kind kind, int level, int64_t count)
{
    if (l->n == l->cap) {
        int cap = l->cap ? 2 * l->cap : 16;
        tc_mb_case *v = realloc(l->v, (size_t)cap * sizeof *v);
        if (!v)
            return NULL;
        l->v = v;
        l->cap = cap;
    }
    tc_mb_case *cs = &l->v[l->n++];
    memset(cs, 0, sizeof *cs);
    cs->kind = kind;
    cs->level = level;
    cs->count = count;
    return cs;
}

static int any_line_prefetch(const tc_mb_case *cs)
{
    for (int i = 0; i < cs->noperands; i++)
        if (cs->operand[i].prefetch == TC_PREFETCH_LINE)
            return 1;
    return 0;
}

/* The loop outside the one directly around node, innermost first, that
 * runs over the first index of op's base (op varies with it); NULL when
 * none does. */
static const tc_node *outer_line_loop(const ctx *x, const tc_node *node, const tc_operand *op)
{
    int rank;
    const int *index = base_indices(x, op->base, &rank);
    if (!index || rank < 1 || !node->parent)
        return NULL;
    for (const tc_node *l = node->parent->parent; l; l = l->parent)
        if (l->index == index[0] && (dep_mask(x, op) & bit(l->index)))
            return l;
    return NULL;
}

/*
 * §6.2.3's shared lines, seen across an outer loop: where a loop outside
 * the one directly around node runs over the first index of an operand's
 * tensor, consecutive iterations of it touch the same lines, so in all
 * but one of each line's iterations the operand was last used one
 * iteration of that loop ago, not a whole traversal. ac-dgemv of C[a,b,c]
 * = A[a,i] * B[i,b,c] (a=b=c=192) writes C[a,:,c], a line per element:
 * its lines come back after one iteration of a (4.5 MiB) in 7 of 8, but
 * were placed a whole run away (56 MiB) and the nest was predicted 86 %
 * slow. The steady case `at` is split: (p-1)/p of its calls, p the
 * iterations a line holds, get those operands' shorter distances.
 * -1 when out of memory.
 */
static int share_outer_lines(const ctx *x, const tc_node *node, case_list *l, int at)
{
    const tc_operand *ops[3];
    tc_operand side[2];
    int n = node_operands(x, node, ops, side);
    const tc_node *loop = NULL;
    for (int i = 0; i < n && !loop; i++)
        loop = outer_line_loop(x, node, ops[i]);
    if (!loop)
        return 0;
    int64_t p = line_elements(x), extent = x->c->index[loop->index].size;
    p = extent < p ? extent : p;
    int64_t shared = l->v[at].count / p * (p - 1);
    if (shared <= 0)
        return 0;
    tc_mb_case keep = l->v[at];
    int shorter = 0;
    for (int i = 0; i < n; i++) {
        if (outer_line_loop(x, node, ops[i]) != loop)
            continue;
        int64_t d = distance(x, node, ops[i], node, loop);
        if (d < keep.operand[i].access_distance) {
            keep.operand[i].access_distance = d;
            shorter = 1;
        }
    }
    if (!shorter)
        return 0;
    tc_mb_case *cs = push(l, TC_CASE_STEADY, 0, shared);
    if (!cs)
        return -1;
    keep.count = shared;
    build_setup(x, &keep);
    *cs = keep;
    l->v[at].count -= shared;
    return 0;
}

/* Where the call before a first iteration had each operand: loops[0]'s
 * previous iteration with loops[1..n-1] (those inside it) at their last. */
static void previous_call(const ctx *x, tc_mb_case *cs, const tc_node *const *loops, int n)
{
    for (int i = 0; i < cs->noperands; i++) {
        tc_mb_operand *o = &cs->operand[i];
        o->before = -step_along(x, loops[0], &o->op);
        for (int e = 1; e < n; e++)
            o->before +=
                (tc_alg_loop_extent(x->alg, loops[e]) - 1) * step_along(x, loops[e], &o->op);
    }
    cs->previous = 1;
}

/* Splits the executions of `node` into cases (§6.2.5-6.2.6); -1 when out of memory. */
static int node_cases(const ctx *x, const tc_node *node, case_list *l)
{
    const tc_node *loop[TC_MAX_INDICES];
    int k = node->depth;
    for (const tc_node *n = node->parent; n; n = n->parent)
        loop[n->depth] = n;
    int64_t total = tc_mb_executions(x->alg, node);
    tc_mb_model model = x->p->model;
    tc_mb_case *cs;
    if (k == 0 || model < TC_MODEL_FAILURES) {
        if (!(cs = push(l, TC_CASE_STEADY, 0, total)))
            return -1;
        fill_case(x, cs, node, node, k > 0 && model >= TC_MODEL_PREFETCH);
        return 0;
    }
    int64_t inner = tc_alg_loop_extent(x->alg, loop[k - 1]), traversals = total / inner;
    int64_t period = line_elements(x);
    int64_t first = model == TC_MODEL_FULL ? traversals : 0;
    if (!(cs = push(l, TC_CASE_STEADY, 0, total - first)))
        return -1;
    int steady = l->n - 1;
    fill_case(x, cs, node, node, 1);
    if (any_line_prefetch(cs)) {
        int64_t fails = model == TC_MODEL_FULL ? traversals * ((inner - 1) / period)
                                                : traversals * ((inner + period - 1) / period);
        cs->count -= fails;
        tc_mb_case *f = push(l, TC_CASE_FAILURE, 0, fails);
        if (!f)
            return -1;
        fill_case(x, f, node, node, 2);
    }
    if (model == TC_MODEL_FULL && share_outer_lines(x, node, l, steady) != 0)
        return -1;
    if (model == TC_MODEL_FULL) {
        /* First iterations of loop d (0-based, outer to inner): all loops
         * d..k-1 at 0. Loops whose first iterations are at most 1 % of the
         * executions merge into the outermost modelled one. */
        int64_t inside = 1; /* product of extents of loops d..k-1 */
        for (int d = k - 1; d >= 0; d--) {
            inside *= tc_alg_loop_extent(x->alg, loop[d]);
            int64_t outer = d > 0 ? tc_alg_loop_extent(x->alg, loop[d - 1]) : 0;
            int modelled_outer = d > 0 && inside * outer < 100;
            int64_t here = total / inside; /* executions with loops d.. at 0 */
            int64_t count = modelled_outer ? here - here / outer : here;
            if (!(cs = push(l, TC_CASE_FIRST, d, count)))
                return -1;
            fill_case(x, cs, node, loop[d], 0);
            if (d > 0)
                previous_call(x, cs, loop + d - 1, k - d + 1);
            if (!modelled_outer)
                break;
        }
    }
    return 0;
}

/* Removes cases that stand for no executions (e.g. an innermost loop of extent 1). */
static void drop_empty(case_list *l)
{
    int n = 0;
    for (int i = 0; i < l->n; i++)
        if (l->v[i].count > 0)
            l->v[n++] = l->v[i];
    l->n = n;
}

/* The beta of every kernel call: the kernel's own where no loop runs over
 * a contracted index (each call is then the first to reach its part of C),
 * else 1, which all but the first contracted iteration's calls get. With
 * beta 0 a dgemm first zeroes its C: timed with 1, the 12 dgemms writing
 * 8 MB slices of a CCSD(T) term's C temporary were predicted 1.04 ms each
 * and took 1.6 ms. */
static double calls_beta(const tc_algorithm *alg, const tc_contraction *c)
{
    if (!tc_alg_kernel_owns_beta(alg))
        return 1.0;
    for (int i = 0; i < alg->nloops; i++)
        if (c->index[alg->loop[i]].role == TC_ROLE_CONTRACTED)
            return 1.0;
    return tc_alg_kernel_beta(alg, c);
}

/* Of the calls one kernel case stands for (full model), every how-manyth
 * has all contracted loops at 0 and so gets the kernel's beta: 1 all, 0
 * none. Steady and failure calls have the innermost loop past 0; a FIRST
 * case's calls have its loop and those inside at 0 and, unless it is the
 * outermost FIRST case, the loop just outside it past 0. */
static int64_t beta_period(const tc_algorithm *alg, const tc_contraction *c,
                           const tc_mb_case *cs, const tc_node *const *loop, int k,
                           int outermost_first)
{
    int zero_from = cs->kind == TC_CASE_FIRST ? cs->level : k; /* loops at 0 */
    int past_zero = cs->kind != TC_CASE_FIRST ? k - 1
                    : cs->level > outermost_first ? cs->level - 1 : -1;
    int64_t period = 1;
    for (int d = 0; d < zero_from; d++) {
        if (c->index[loop[d]->index].role != TC_ROLE_CONTRACTED)
            continue;
        if (d == past_zero)
            return 0;
        period *= tc_alg_loop_extent(alg, loop[d]);
    }
    return period;
}

/* Where a loop runs over a contracted index, only the calls with every
 * contracted loop at 0 get the kernel's beta (the executor's rule). Each
 * kernel case is split into those calls, timed with that beta, and the
 * rest, timed with 1, so no pass over C is needed: a dgemm with beta 0
 * zeroes its slice of C where the product then finds it. Timed with 1 plus
 * a pass over C, cj'-dgemm of C[a,b,c] = A[i,j,a] B[j,b,i,c] (a=b=c=128,
 * i=j=8) paid C's trip from memory twice: predicted 7.5 ms, ran 6.1 ms.
 * -1 when out of memory. */
static int split_beta_calls(const tc_algorithm *alg, const tc_contraction *c, case_list *l)
{
    const tc_node *node = alg->kernel_node, *loop[TC_MAX_INDICES];
    int k = node->depth, outermost_first = k;
    for (const tc_node *n = node->parent; n; n = n->parent)
        loop[n->depth] = n;
    for (int i = 0; i < l->n; i++)
        if (l->v[i].node == node && l->v[i].kind == TC_CASE_FIRST
            && l->v[i].level < outermost_first)
            outermost_first = l->v[i].level;
    double beta = tc_alg_kernel_beta(alg, c);
    for (int i = 0, n = l->n; i < n; i++) {
        if (l->v[i].node != node)
            continue;
        int64_t period = beta_period(alg, c, &l->v[i], loop, k, outermost_first);
        int64_t share = period > 0 ? l->v[i].count / period : 0;
        if (share == l->v[i].count) {
            l->v[i].beta = beta;
        } else if (share > 0) {
            tc_mb_case part = l->v[i];
            l->v[i].count -= share;
            tc_mb_case *cs = push(l, part.kind, part.level, share);
            if (!cs)
                return -1;
            *cs = part;
            cs->count = share;
            cs->beta = beta;
        }
    }
    return 0;
}

tc_status tc_mb_analyze(const tc_algorithm *alg, const tc_contraction *c,
                        const tc_mb_params *p, tc_mb_analysis **out, tc_error *err)
{
    *out = NULL;
    if (!c->has_sizes)
        return tc_error_set(err, TC_EINPUT, 0, 0, "cannot analyse %s without index sizes",
                            alg->name);
    int64_t calls = 1;
    for (int i = 0; i < alg->nloops; i++)
        if (__builtin_mul_overflow(calls, tc_alg_loop_extent(alg, alg->loop_node[i]), &calls))
            return tc_error_set(err, TC_EINPUT, 0, 0,
                                "%s makes more than 2^63 kernel calls", alg->name);
    ctx x = {alg, c, p};
    case_list l = {NULL, 0, 0};
    int bad = node_cases(&x, alg->kernel_node, &l);
    for (int i = 0; !bad && i < alg->ncopies; i++)
        bad = node_cases(&x, alg->copy_node[i], &l);
    tc_mb_analysis *a = bad ? NULL : calloc(1, sizeof *a);
    if (!a) {
        free(l.v);
        return tc_error_set(err, TC_ERESOURCE, 0, 0, "out of memory analysing %s", alg->name);
    }
    drop_empty(&l);
    double beta = calls_beta(alg, c);
    for (int i = 0; i < l.n; i++)
        l.v[i].beta = l.v[i].node == alg->kernel_node ? beta : 1.0;
    /* calls_beta gave 1 for a kernel owning a beta other than 1: a
     * contracted loop runs, and only some of the calls get that beta */
    int split = beta == 1.0 && tc_alg_kernel_owns_beta(alg) && tc_alg_kernel_beta(alg, c) != 1.0
                && p->model == TC_MODEL_FULL;
    if (split && split_beta_calls(alg, c, &l)) {
        free(l.v);
        return tc_error_set(err, TC_ERESOURCE, 0, 0, "out of memory analysing %s", alg->name);
    }
    /* a dgemm with beta 0 zeroes its C first: where the calls that get the
     * kernel's beta were timed with 1 (models below full), that costs the
     * same pass over C */
    a->pass_beta = tc_alg_needs_beta_pass(alg, c) ? c->beta
                   : tc_alg_kernel_owns_beta(alg) && beta == 1.0 && !split
                       ? tc_alg_kernel_beta(alg, c)
                       : 1.0;
    a->alg = alg;
    a->calls = calls;
    a->ncases = l.n;
    a->cases = l.v;
    *out = a;
    return TC_OK;
}

void tc_mb_analysis_free(tc_mb_analysis *a)
{
    if (!a)
        return;
    free(a->cases);
    free(a);
}

size_t tc_mb_format_setup(const tc_mb_case *cs, const tc_contraction *c, char *buf, size_t n)
{
    size_t len = 0;
    char item[96];
    if (n)
        buf[0] = '\0';
    if (cs->nsetup == 0)
        tc_text_put(buf, n, &len, "-");
    for (int i = 0; i < cs->nsetup; i++) {
        const tc_mb_setup *s = &cs->setup[i];
        if (i)
            tc_text_put(buf, n, &len, ", ");
        if (s->kind == TC_SETUP_REMOTE) {
            snprintf(item, sizeof item, "[%lld]", (long long)s->elements);
        } else {
            size_t k = 0;
            if (s->kind == TC_SETUP_PREFETCH)
                item[k++] = '~';
            tc_alg_format_operand(c, &cs->operand[s->operand].op, item + k, sizeof item - k);
        }
        tc_text_put(buf, n, &len, item);
    }
    return len;
}
