/* recipe.c - a case checked, and the operands its call touches (sample_impl.h). */
#include "microbench/sample_impl.h"

#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ast/error.h"
#include "runtime/execute.h"

/* ---- operands ------------------------------------------------------- */

tc_mb_shape tc_mbs_shape_of(const tc_operand *op)
{
    tc_mb_shape sh = {1, 1, 0, 0};
    if (op->rank >= 1) {
        sh.n0 = op->extent[0];
        sh.s0 = op->stride[0];
    }
    if (op->rank >= 2) {
        sh.n1 = op->extent[1];
        sh.s1 = op->stride[1];
    }
    return sh;
}

int tc_mbs_same_shape(const tc_operand *a, const tc_operand *b)
{
    tc_mb_shape x = tc_mbs_shape_of(a), y = tc_mbs_shape_of(b);
    return x.n0 == y.n0 && x.n1 == y.n1 && x.s0 == y.s0 && x.s1 == y.s1;
}

/* Elements from the first to the last one touched (1 when none is); -1 on
 * overflow. Extents and strides are non-negative (checked before). */
int64_t tc_mbs_op_span(const tc_operand *op)
{
    tc_mb_shape sh = tc_mbs_shape_of(op);
    int64_t a, b, span;
    if (sh.n0 <= 0 || sh.n1 <= 0)
        return 1;
    if (__builtin_mul_overflow(sh.n0 - 1, sh.s0, &a) ||
        __builtin_mul_overflow(sh.n1 - 1, sh.s1, &b) || __builtin_add_overflow(a, b, &span) ||
        __builtin_add_overflow(span, (int64_t)1, &span))
        return -1;
    return span;
}

/* The operands of node as its call touches them; their number, or -1 when
 * the node is neither a kernel nor a copy. A copy's temporary is the
 * column-major extent[0] x extent[1] block tc_rt_copy fills. */
/*
 * What one side of a whole-tensor permutation's view touches (temp_side:
 * the temporary's, else the tensor's), as op's shape: the view's elements
 * in that side's dense order, one run (rank 1) or, for a view cut in one
 * dimension (a slab: fit), runs of the dimensions up to the cut one,
 * repeated at the next one's stride (rank 2). Anything else: one run over
 * the whole span, a superset.
 */
void tc_mbs_permute_footprint(const tc_permute *v, int temp_side, tc_operand *op)
{
    const int64_t *stride = temp_side ? v->dst_stride : v->src_stride;
    int order[TC_MAX_RANK], n = 0, gaps = 0, gap = -1;
    int64_t span = 1, elements = 1;
    for (int k = 0; k < v->rank; k++) {
        if (v->extent[k] == 1)
            continue;
        int j = n++;
        while (j > 0 && stride[order[j - 1]] > stride[k]) {
            order[j] = order[j - 1];
            j--;
        }
        order[j] = k;
        span += (v->extent[k] - 1) * stride[k];
        elements *= v->extent[k];
    }
    for (int j = 0; j + 1 < n; j++)
        if (stride[order[j + 1]] != stride[order[j]] * v->extent[order[j]])
            gaps++, gap = j;
    op->rank = 1;
    op->extent[0] = elements;
    op->stride[0] = 1;
    op->extent[1] = op->stride[1] = 0;
    if ((n > 0 && stride[order[0]] != 1) || gaps > 1) {
        op->extent[0] = span;
    } else if (gaps == 1) {
        int64_t run = stride[order[gap]] * v->extent[order[gap]];
        op->rank = 2;
        op->extent[0] = run;
        op->extent[1] = elements / run;
        op->stride[1] = stride[order[gap + 1]];
    }
    op->ld = op->rank == 2 ? op->stride[1] : op->stride[0];
}

static int node_operands(const tc_node *node, tc_operand call[])
{
    if (node->kind == TC_NODE_KERNEL && node->call) {
        for (int i = 0; i < 3; i++)
            call[i] = node->call->arg[i];
        return 3;
    }
    if (node->kind == TC_NODE_COPY && node->copy) {
        call[0] = node->copy->slice;
        tc_copy_temp_operand(node->copy, &call[1]);
        return 2;
    }
    if (node->kind == TC_NODE_PERMUTE && node->perm) { /* all of it, or a slab of it (fit) */
        tc_permutation_operands(node->perm, NULL, &call[0], &call[1]);
        tc_mbs_permute_footprint(&node->perm->view, 0, &call[0]);
        tc_mbs_permute_footprint(&node->perm->view, 1, &call[1]);
        return 2;
    }
    return -1;
}

static int64_t max64(int64_t a, int64_t b)
{
    return a > b ? a : b;
}

/* Elements (of `bytes` each) in the 4 KiB pages op's elements lie in (at
 * most its span): a strided slice of a large tensor touches a few pages of
 * a large span, and only those are mapped. */
int64_t tc_mbs_shape_page_doubles(tc_mb_shape sh, int64_t span, int64_t bytes)
{
    const int64_t page = 4096 / bytes;
    if (sh.n0 <= 0 || sh.n1 <= 0 || span < 0)
        return span;
    double per_column = (double)((sh.n0 - 1) * sh.s0 / page + 2);
    if (per_column > (double)sh.n0 + 1) /* elements a page or more apart */
        per_column = (double)sh.n0 + 1;
    double d = (double)sh.n1 * per_column * (double)page;
    return d < (double)span ? (int64_t)d : span;
}

static int64_t page_doubles(const tc_operand *op, int64_t span, int64_t bytes)
{
    return tc_mbs_shape_page_doubles(tc_mbs_shape_of(op), span, bytes);
}

/* Span of operand i: enough for the call and for the setup's touches. */
int64_t tc_mbs_case_span(const tc_mb_case *cs, const tc_operand *call, int i)
{
    int64_t a = tc_mbs_op_span(&cs->operand[i].op), b = call ? tc_mbs_op_span(call) : 1;
    if (a < 0 || b < 0)
        return -1;
    return max64(max64(a, b), max64(cs->operand[i].span, 1));
}

/* 1 when op's dimension 0 is its base's first (stride-1) index: a
 * tensor's first index, or a temporary's (contiguous) dimension 0. Without
 * the contraction, a tensor's stride-1 dimension 0: the two differ only
 * when indices before dim 0 have size 1. */
static int first_index(const tc_contraction *c, const tc_operand *op)
{
    if (op->rank < 1)
        return 0;
    if (op->base >= TC_BASE_TEMP)
        return op->stride[0] == 1;
    if (c) {
        if (op->tensor < 0 || op->tensor > 2 || c->tensor[op->tensor].rank < 1)
            return 0;
        return c->tensor[op->tensor].index[0] == tc_dim_start(&op->dim[0]);
    }
    return op->stride[0] == 1;
}

int tc_mbs_op_ok(const tc_operand *op)
{
    if (op->rank < 0 || op->rank > 2)
        return 0;
    for (int d = 0; d < op->rank; d++)
        if (op->extent[d] < 0 || op->stride[d] < 0)
            return 0;
    return 1;
}

static int fits_int(int64_t v)
{
    return v >= 0 && v <= INT_MAX;
}

/* Writes "dgemm m=64 n=64 k=8" or "copy-in 8x64" for messages. */
void tc_mbs_describe(const tc_mb_case *cs, char *buf, size_t n)
{
    const tc_node *node = cs->node;
    if (node->kind == TC_NODE_KERNEL) {
        const tc_call *k = node->call;
        snprintf(buf, n, "%s m=%lld n=%lld k=%lld", tc_kernel_type_name(k->kernel, k->type),
                 (long long)k->m, (long long)k->n, (long long)k->k);
    } else if (node->kind == TC_NODE_PERMUTE) {
        const tc_permutation *pm = node->perm;
        snprintf(buf, n, "permute-%s %lld elements", pm->dir == TC_COPY_IN ? "in" : "out",
                 (long long)tc_permutation_elements(pm));
    } else {
        const tc_copy *cp = node->copy;
        snprintf(buf, n, "copy-%s %lldx%lld", cp->dir == TC_COPY_IN ? "in" : "out",
                 (long long)cp->slice.extent[0], (long long)cp->slice.extent[1]);
    }
}

/* Checks the case's structure and dimensions and fills *p: its operands,
 * operands on the LLC's edge placed as edge_out says, and the decisions of
 * the rules in force in s (none when s is NULL: only the operands' sizes
 * are wanted); no train, no steps yet. */
tc_status tc_mbs_prepare(const tc_mb_sampler *s, int edge_out, const tc_contraction *c,
                         const tc_mb_case *cs, recipe *p, tc_error *err)
{
    memset(p, 0, sizeof *p);
    p->elem_bytes = tc_mbs_elem_bytes(cs);
    p->off = s ? s->o.rules_off : 0;
    p->edge_out = edge_out;
    p->train = 1;
    if (!cs->node)
        return tc_error_set(err, TC_EUSAGE, 0, 0, "sampler: the case has no node");
    p->n = node_operands(cs->node, p->call);
    if (p->n < 0)
        return tc_error_set(err, TC_EUSAGE, 0, 0,
                            "sampler: the case's node is not a kernel or a copy");
    if (cs->noperands != p->n)
        return tc_error_set(err, TC_EUSAGE, 0, 0,
                            "sampler: the case has %d operands, its %s node has %d",
                            cs->noperands,
                            cs->node->kind == TC_NODE_KERNEL ? "kernel" : "copy", p->n);
    if (cs->nsetup < 0 || cs->nsetup > TC_MB_MAX_SETUP)
        return tc_error_set(err, TC_EUSAGE, 0, 0,
                            "sampler: the case has %d setup entries (at most %d)",
                            cs->nsetup, TC_MB_MAX_SETUP);
    for (int e = 0; e < cs->nsetup; e++) {
        const tc_mb_setup *st = &cs->setup[e];
        int bad = 0;
        switch (st->kind) {
        case TC_SETUP_OPERAND:
        case TC_SETUP_PREFETCH:
            bad = st->operand < 0 || st->operand >= p->n;
            break;
        case TC_SETUP_REMOTE:
            bad = st->elements < 0;
            break;
        default:
            bad = 1;
        }
        if (bad)
            return tc_error_set(err, TC_EUSAGE, 0, 0,
                                "sampler: setup entry %d is malformed (kind %d, operand "
                                "%d, %lld elements)",
                                e, (int)st->kind, st->operand, (long long)st->elements);
    }
    char what[96];
    tc_mbs_describe(cs, what, sizeof what);
    for (int i = 0; i < p->n; i++)
        if (!tc_mbs_op_ok(&cs->operand[i].op) || !tc_mbs_op_ok(&p->call[i]))
            return tc_error_set(err, TC_EINPUT, 0, 0,
                                "cannot sample %s: operand %d has a bad rank, a negative "
                                "extent or a negative stride",
                                what, i);
    if (cs->node->kind == TC_NODE_KERNEL) {
        const tc_call *k = cs->node->call;
        int ok = fits_int(k->m) && fits_int(k->n) && fits_int(k->k);
        for (int i = 0; i < 3; i++)
            ok = ok && fits_int(k->arg[i].ld);
        if (!ok)
            return tc_error_set(err, TC_EINPUT, 0, 0,
                                "cannot sample %s: a dimension, leading dimension or "
                                "increment does not fit in a BLAS int (at most %d)",
                                what, INT_MAX);
    }
    for (int i = 0; i < p->n; i++) {
        p->span[i] = tc_mbs_case_span(cs, &p->call[i], i);
        p->first[i] = first_index(c, &cs->operand[i].op);
        int64_t u = page_doubles(&p->call[i], p->span[i], tc_mbs_elem_bytes(cs));
        if (u >= 0 && !tc_mbs_same_shape(&p->call[i], &cs->operand[i].op))
            u += page_doubles(&cs->operand[i].op, p->span[i], tc_mbs_elem_bytes(cs));
        p->used[i] = u < p->span[i] ? u : p->span[i];
    }
    for (int r = 0; s && r < TC_RULE_COUNT; r++) /* the decisions, in table order */
        if (tc_mb_rule_on(p->off, (tc_mb_rule)r))
            tc_mb_rule_get(r)->apply(s, cs, p);
    return TC_OK;
}

/* Bytes the operands cost (the pages they touch); -1 on overflow. */
int64_t tc_mbs_recipe_bytes(const recipe *p)
{
    int64_t total = 0;
    for (int i = 0; i < p->n; i++)
        if (p->used[i] < 0 || __builtin_add_overflow(total, p->used[i], &total))
            return -1;
    if (__builtin_mul_overflow(total, p->elem_bytes, &total))
        return -1;
    return total;
}

tc_mb_shape tc_mbs_words_shape(const tc_mb_case *cs, tc_mb_shape sh)
{
    int64_t b = tc_mbs_elem_bytes(cs);
    if (b == 8)
        return sh;
    if (b == 16) /* each element two words: a unit-stride run twice as long */
        return (tc_mb_shape){sh.s0 == 1 ? 2 * sh.n0 : sh.n0, sh.n1, sh.s0 == 1 ? 1 : 2 * sh.s0,
                             2 * sh.s1};
    /* float: strides halved rounding down, so no word lies past the span */
    return (tc_mb_shape){sh.s0 == 1 ? (sh.n0 + 1) / 2 : sh.n0, sh.n1,
                         sh.s0 == 1 ? 1 : sh.s0 / 2, sh.s1 / 2};
}

int64_t tc_mb_case_bytes(const tc_mb_case *cs)
{
    if (!cs)
        return 0;
    recipe p;
    if (tc_mbs_prepare(NULL, 0, NULL, cs, &p, NULL) != TC_OK) {
        /* malformed node: what the case itself describes */
        memset(&p, 0, sizeof p);
        p.n = cs->noperands < 0 ? 0
              : cs->noperands > TC_MB_MAX_OPERANDS ? TC_MB_MAX_OPERANDS
                                                   : cs->noperands;
        for (int i = 0; i < p.n; i++)
            p.used[i] = p.span[i] = tc_mbs_op_ok(&cs->operand[i].op) ? tc_mbs_case_span(cs, NULL, i) : -1;
    }
    int64_t b = tc_mbs_recipe_bytes(&p);
    return b < 0 ? INT64_MAX : b;
}
