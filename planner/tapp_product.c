/*
 * tapp_product.c - TAPP_create_tensor_product over tcgen (docs/tapp.md):
 * the labels and extents checked in the order TAPP's reference checks
 * them (so a test of TAPP gets the same error), the tensors mapped onto a
 * contraction tcgen computes, and that contraction planned: wisdom first,
 * else every algorithm ranked. A product refused keeps its error, which
 * TAPP_execute_product returns too. tapp_execute.c runs products.
 */
#include <stdlib.h>
#include <string.h>

#include "planner/plan.h"
#include "planner/problem.h"
#include "planner/tapp_impl.h"
#include "planner/views.h"

static const char *const tensor_name[4] = {"A", "B", "C", "D"};

/* The labels of all four tensors, numbered in order of first appearance. */
static void read_labels(tc_tapp_product *p, const int64_t *const idx[4])
{
    int64_t *value = p->index;
    for (int x = 0; x < 4; x++)
        for (int k = 0; k < p->t[x].nmode; k++) {
            int l = 0;
            while (l < p->nlabel && value[l] != idx[x][k])
                l++;
            if (l == p->nlabel) {
                value[l] = idx[x][k];
                p->size[l] = p->t[x].extent[k];
                p->nlabel++;
            }
            p->t[x].label[k] = l;
            p->empty |= p->t[x].extent[k] == 0;
        }
}

/* The extent tensor t gives label l, or -1 when it has none. */
static int64_t extent_in(const tc_tapp_tensor *t, int l)
{
    for (int k = 0; k < t->nmode; k++)
        if (t->label[k] == l)
            return t->extent[k];
    return -1;
}

/* Tensor x against itself (a repeated index, `repeat`) and the two others
 * (`with_first`, `with_second`): one index, one extent. */
static TAPP_error check_extents(const tc_tapp_product *p, int x, int o1, int o2, int repeat,
                                int with_first, int with_second, const int64_t *idx)
{
    const tc_tapp_tensor *t = &p->t[x];
    for (int k = 0; k < t->nmode; k++) {
        int64_t e1 = extent_in(&p->t[o1], t->label[k]), e2 = extent_in(&p->t[o2], t->label[k]);
        int code = extent_in(t, t->label[k]) != t->extent[k] ? repeat
                   : e1 >= 0 && e1 != t->extent[k]          ? with_first
                   : e2 >= 0 && e2 != t->extent[k]          ? with_second
                                                            : TC_TAPP_OK;
        if (code != TC_TAPP_OK)
            return tc_tapp_fail(code, "index %lld, mode %d of %s (extent %lld)",
                                (long long)idx[k], k, tensor_name[x], (long long)t->extent[k]);
    }
    return TC_TAPP_OK;
}

/* A mode of D along which two elements may share an address, or -1: one
 * whose index repeats, or whose |stride| (modes longer than 1 taken by
 * increasing |stride|) does not pass the last element the shorter ones
 * reach. Layouts that interleave without overlapping are accepted. */
static int aliased_mode(const tc_tapp_tensor *d)
{
    int order[TC_TAPP_MAX_MODES], n = 0;
    for (int k = 0; k < d->nmode; k++) {
        for (int j = 0; j < d->nmode; j++)
            if (j != k && d->label[j] == d->label[k] && d->extent[k] > 1)
                return k;
        if (d->extent[k] <= 1)
            continue;
        int i = n++;
        while (i > 0 && llabs(d->stride[order[i - 1]]) > llabs(d->stride[k])) {
            order[i] = order[i - 1];
            i--;
        }
        order[i] = k;
    }
    int64_t reach = 0; /* the farthest offset the shorter strides reach */
    for (int i = 0; i < n; i++) {
        int k = order[i];
        if (llabs(d->stride[k]) <= reach)
            return k;
        reach += llabs(d->stride[k]) * (d->extent[k] - 1);
    }
    return -1;
}

/* The conditions TAPP's reference detects, in its order. */
static TAPP_error check_product(const tc_tapp_product *p, const int64_t *const idx[4])
{
    const tc_tapp_tensor *t = p->t, *d = &t[TC_TAPP_D], *c = &t[TC_TAPP_C];
    for (int k = 0; k < d->nmode; k++)
        if (extent_in(&t[TC_TAPP_A], d->label[k]) < 0 && extent_in(&t[TC_TAPP_B], d->label[k]) < 0)
            return tc_tapp_fail(TC_TAPP_ED_ALONE, "index %lld, mode %d of D",
                                (long long)idx[TC_TAPP_D][k], k);
    TAPP_error e = check_extents(p, TC_TAPP_A, TC_TAPP_B, TC_TAPP_D, TC_TAPP_EREPEAT_A,
                                 TC_TAPP_EEXTENT_AB, TC_TAPP_EEXTENT_AD, idx[TC_TAPP_A]);
    if (!e)
        e = check_extents(p, TC_TAPP_B, TC_TAPP_A, TC_TAPP_D, TC_TAPP_EREPEAT_B,
                          TC_TAPP_EEXTENT_AB, TC_TAPP_EEXTENT_BD, idx[TC_TAPP_B]);
    if (!e)
        e = check_extents(p, TC_TAPP_D, TC_TAPP_A, TC_TAPP_B, TC_TAPP_EREPEAT_D,
                          TC_TAPP_EEXTENT_AD, TC_TAPP_EEXTENT_BD, idx[TC_TAPP_D]);
    if (e)
        return e;
    if (c->nmode != d->nmode)
        return tc_tapp_fail(TC_TAPP_ECD_NMODE, "C has %d modes, D %d", c->nmode, d->nmode);
    for (int k = 0; k < d->nmode; k++)
        if (c->label[k] != d->label[k] || c->extent[k] != d->extent[k])
            return tc_tapp_fail(c->label[k] != d->label[k] ? TC_TAPP_ECD_INDEX
                                                            : TC_TAPP_ECD_EXTENT,
                                "mode %d: C has index %lld of extent %lld, D %lld of %lld", k,
                                (long long)idx[TC_TAPP_C][k], (long long)c->extent[k],
                                (long long)idx[TC_TAPP_D][k], (long long)d->extent[k]);
    int k = aliased_mode(d);
    if (k >= 0)
        return tc_tapp_fail(TC_TAPP_EALIAS, "mode %d of D (index %lld, stride %lld)", k,
                            (long long)idx[TC_TAPP_D][k], (long long)d->stride[k]);
    return TC_TAPP_OK;
}

/* t's plan modes: its distinct indices that another tensor has (in memory
 * order when the data is a column-major layout of them, dense or with gaps
 * as a tile has, else in order of appearance), each with the sum of its
 * modes' strides; the indices only t has are summed out. direct: a tensor
 * the plan reads or writes where it lies (not conjugated), its modes
 * sorted by stride (tc_plan_view_order). */
static void plan_modes(tc_tapp_tensor *t, const tc_tapp_product *p, int x)
{
    int repeated = 0;
    t->nplan = t->nsum = 0;
    for (int k = 0; k < t->nmode; k++) {
        int l = t->label[k], j, shared = 0;
        for (int y = 0; y < 4; y++)
            shared |= y != x && y != TC_TAPP_C && extent_in(&p->t[y], l) >= 0;
        int *labels = shared ? t->plan_label : t->sum_label;
        int64_t *strides = shared ? t->plan_stride : t->sum_stride;
        int *n = shared ? &t->nplan : &t->nsum;
        for (j = 0; j < *n && labels[j] != l; j++)
            ;
        repeated |= j < *n;
        if (j == *n)
            labels[(*n)++] = l, strides[j] = 0;
        strides[j] += t->stride[k];
    }
    t->elements = 1;
    for (int j = 0; j < t->nplan; j++)
        t->elements *= p->size[t->plan_label[j]];
    int bad;
    t->direct = p->op[x] != TAPP_CONJUGATE && !repeated && t->nsum == 0 &&
                tc_plan_view_order(t->nplan, t->plan_label, t->plan_stride, p->size, &bad);
}

/* The contraction planned as tcgen.h's views (tc_plan_create_views): each
 * tensor's plan modes as labels, with its strides where the plan reads or
 * writes it in place (direct), else dense, as it is packed. */
static tc_plan *plan_product(const tc_tapp_product *p, tc_error *err)
{
    static const int role[3] = {TC_TAPP_D, TC_TAPP_A, TC_TAPP_B};
    int64_t label[3][TC_TAPP_MAX_MODES], extent[3][TC_TAPP_MAX_MODES];
    tc_tensor_desc d[3];
    for (int r = 0; r < 3; r++) {
        const tc_tapp_tensor *t = &p->t[role[r]];
        for (int j = 0; j < t->nplan; j++)
            label[r][j] = t->plan_label[j], extent[r][j] = p->size[t->plan_label[j]];
        d[r] = (tc_tensor_desc){t->nplan, label[r], extent[r], t->direct ? t->plan_stride : NULL};
    }
    return tc_plan_create_views(&d[0], &d[1], &d[2], 1.0, 1.0, TC_ESTIMATE | p->type_flags,
                                err);
}

static TAPP_error check_types(tc_tapp_product *p, const tc_tapp_info *const info[4],
                              const TAPP_element_op op[4], TAPP_prectype prec)
{
    p->type = info[TC_TAPP_D]->type;
    p->type_flags = (p->type == TAPP_F32 || p->type == TAPP_C32 ? TC_SINGLE : 0u) |
                    (p->type == TAPP_C32 || p->type == TAPP_C64 ? TC_COMPLEX : 0u);
    p->bytes = tc_type_row_of(tc_plan_type_of(p->type_flags))->bytes;
    for (int x = 0; x < 4; x++) {
        if (info[x]->type != p->type || p->type < TAPP_F32 || p->type > TAPP_C64)
            return tc_tapp_fail(TC_TAPP_EUNSUPPORTED, "%s's type %d (D's %d): tcgen takes "
                                "TAPP_F32, F64, C32 and C64, all four alike, so far",
                                tensor_name[x], info[x]->type, p->type);
        if (op[x] != TAPP_IDENTITY && op[x] != TAPP_CONJUGATE)
            return tc_tapp_fail(TC_TAPP_EARGUMENT, "op_%s is %d", tensor_name[x], op[x]);
        p->op[x] = op[x];
    }
    if (prec != TAPP_DEFAULT_PREC && prec != TAPP_F64F64_ACCUM_F64 &&
        prec != TAPP_F32F32_ACCUM_F32)
        return tc_tapp_fail(TC_TAPP_EUNSUPPORTED, "precision %d", prec);
    return TC_TAPP_OK;
}

TAPP_error tc_tapp_map(tc_tapp_product *p, const tc_tapp_info *const info[4],
                       const TAPP_element_op op[4], TAPP_prectype prec,
                       const int64_t *const idx[4])
{
    TAPP_error e = check_types(p, info, op, prec);
    if (e)
        return e;
    for (int x = 0; x < 4; x++) {
        if (info[x]->nmode > 0 && !idx[x])
            return tc_tapp_fail(TC_TAPP_EARGUMENT, "idx_%s is NULL", tensor_name[x]);
        p->t[x].nmode = info[x]->nmode;
        memcpy(p->t[x].extent, info[x]->extent, sizeof p->t[x].extent);
        memcpy(p->t[x].stride, info[x]->stride, sizeof p->t[x].stride);
    }
    read_labels(p, idx);
    e = check_product(p, idx);
    for (int x = 0; x < 4 && !e; x++)
        plan_modes(&p->t[x], p, x);
    /* every index left in A and B is in both and in D (a Hadamard index):
     * no BLAS kernel applies (an outer product is a dger, a scalar operand
     * a daxpy) */
    p->elementwise = 1;
    for (int x = TC_TAPP_A; x <= TC_TAPP_B; x++)
        for (int j = 0; j < p->t[x].nplan; j++) {
            int l = p->t[x].plan_label[j];
            p->elementwise &= extent_in(&p->t[TC_TAPP_D], l) >= 0 &&
                              extent_in(&p->t[TC_TAPP_A + TC_TAPP_B - x], l) >= 0;
        }
    return e;
}

TAPP_error TAPP_create_tensor_product(TAPP_tensor_product *plan, TAPP_handle handle,
                                      TAPP_element_op op_A, TAPP_tensor_info A,
                                      const int64_t *idx_A, TAPP_element_op op_B,
                                      TAPP_tensor_info B, const int64_t *idx_B,
                                      TAPP_element_op op_C, TAPP_tensor_info C,
                                      const int64_t *idx_C, TAPP_element_op op_D,
                                      TAPP_tensor_info D, const int64_t *idx_D,
                                      TAPP_prectype prec)
{
    (void)handle; /* one implementation: the handle carries nothing */
    if (!plan)
        return tc_tapp_fail(TC_TAPP_EARGUMENT, "TAPP_create_tensor_product: plan is NULL");
    const tc_tapp_info *info[4] = {tc_tapp_info_of(A, "A"), tc_tapp_info_of(B, "B"),
                                   tc_tapp_info_of(C, "C"), tc_tapp_info_of(D, "D")};
    if (!info[TC_TAPP_A] || !info[TC_TAPP_B] || !info[TC_TAPP_C] || !info[TC_TAPP_D])
        return TC_TAPP_EARGUMENT;
    const TAPP_element_op op[4] = {op_A, op_B, op_C, op_D};
    const int64_t *const idx[4] = {idx_A, idx_B, idx_C, idx_D};
    tc_tapp_product *p = calloc(1, sizeof *p);
    if (!p)
        return tc_tapp_fail(TC_TAPP_EMEMORY, "TAPP_create_tensor_product");
    TAPP_error e = tc_tapp_map(p, info, op, prec, idx);
    if (!e && !p->empty && !p->elementwise) {
        tc_error err;
        p->plan = plan_product(p, &err);
        if (!p->plan)
            e = tc_tapp_fail(err.code == TC_ERESOURCE ? TC_TAPP_EMEMORY : TC_TAPP_EPLAN,
                             "planning the product: %s", err.message);
    }
    p->magic = TC_TAPP_PRODUCT_MAGIC;
    p->error = e; /* a refused product returns its error when executed */
    *plan = (TAPP_tensor_product)p;
    return e;
}

TAPP_error TAPP_destroy_tensor_product(TAPP_tensor_product plan)
{
    tc_tapp_product *p = (tc_tapp_product *)plan;
    if (!p || p->magic != TC_TAPP_PRODUCT_MAGIC)
        return tc_tapp_fail(TC_TAPP_EARGUMENT, "TAPP_destroy_tensor_product: not a product");
    p->magic = 0;
    tc_plan_destroy(p->plan);
    free(p);
    return TC_TAPP_OK;
}
