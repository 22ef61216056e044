/*
 * tapp_product.c - TAPP's tensor products over tcgen plans (docs/tapp.md):
 * D = alpha op(A) op(B) + beta op(C) for double tensors. Creating a
 * product checks the labels and extents and plans the contraction (every
 * algorithm ranked, wisdom consulted); executing it runs the plan, with
 * the scalars given then (tc_execute_scaled). A tensor whose strides make
 * a dense layout in some order of its modes is used where it lies, its
 * modes named in memory order; any other (a tile of a larger array,
 * negative or zero strides) is packed into a dense temporary first, and a
 * D like it gets the result through one.
 */
#include <stdlib.h>
#include <string.h>

#include "planner/plan.h"
#include "planner/tapp_impl.h"

#define PRODUCT_MAGIC 0x70726f64u /* "prod" */
#define NAME_MAX_LEN 12

enum { TA, TB, TC, TD };
static const char *const tensor_name[4] = {"A", "B", "C", "D"};

typedef struct tensor {
    int nmode;
    int64_t extent[TC_TAPP_MAX_MODES], stride[TC_TAPP_MAX_MODES];
    int label[TC_TAPP_MAX_MODES]; /* each mode's label, as an index into the labels */
    int order[TC_TAPP_MAX_MODES]; /* the modes as tcgen sees them: memory order when dense */
    int dense;                    /* used where it lies */
    int64_t elements;
} tensor;

typedef struct product {
    uint32_t magic;
    tensor t[4];
    int nlabel;
    int64_t size[4 * TC_TAPP_MAX_MODES]; /* each label's extent */
    int empty;                           /* an extent 0: D = beta C, or nothing */
    tc_plan *plan;
} product;

/* The labels of all four tensors, numbered in order of first appearance;
 * one label, one extent (else TC_TAPP_EEXTENT naming both places). */
static TAPP_error read_labels(product *p, const int64_t *const idx[4], int64_t *value)
{
    for (int x = 0; x < 4; x++)
        for (int k = 0; k < p->t[x].nmode; k++) {
            int l = 0;
            while (l < p->nlabel && value[l] != idx[x][k])
                l++;
            if (l == p->nlabel) {
                value[l] = idx[x][k];
                p->size[l] = p->t[x].extent[k];
                p->nlabel++;
            } else if (p->size[l] != p->t[x].extent[k]) {
                return tc_tapp_fail(TC_TAPP_EEXTENT, "index %lld has extent %lld in %s (mode "
                                    "%d) but %lld elsewhere", (long long)idx[x][k],
                                    (long long)p->t[x].extent[k], tensor_name[x], k,
                                    (long long)p->size[l]);
            }
            p->t[x].label[k] = l;
            p->empty |= p->t[x].extent[k] == 0;
        }
    return TC_TAPP_OK;
}

/* How many of tensor x's modes carry label l. */
static int count_label(const tensor *t, int l)
{
    int n = 0;
    for (int k = 0; k < t->nmode; k++)
        n += t->label[k] == l;
    return n;
}

/* The index patterns tcgen computes: each label once per tensor, in D only
 * with A or B, in A or B only with the other or D; C like D. */
static TAPP_error check_pattern(const product *p, const int64_t *const *idx)
{
    const tensor *t = p->t;
    if (t[TC].nmode != t[TD].nmode)
        return tc_tapp_fail(TC_TAPP_ESTRUCTURE, "C has %d modes, D %d", t[TC].nmode,
                            t[TD].nmode);
    for (int k = 0; k < t[TD].nmode; k++)
        if (t[TC].label[k] != t[TD].label[k])
            return tc_tapp_fail(TC_TAPP_ESTRUCTURE, "mode %d of C is index %lld, of D %lld", k,
                                (long long)idx[TC][k], (long long)idx[TD][k]);
    static const int order[4] = {TD, TA, TB, TC}; /* D's aliasing first */
    for (int o = 0; o < 4; o++)
        for (int x = order[o], k = 0; k < t[x].nmode; k++)
            if (count_label(&t[x], t[x].label[k]) > 1)
                return tc_tapp_fail(x == TD ? TC_TAPP_EALIAS : TC_TAPP_EUNSUPPORTED,
                                    "index %lld appears twice in %s (a diagonal)",
                                    (long long)idx[x][k], tensor_name[x]);
    for (int l = 0; l < p->nlabel; l++) {
        int a = count_label(&t[TA], l), b = count_label(&t[TB], l), d = count_label(&t[TD], l);
        if (a + b + d < 2 || (!a && !b))
            return tc_tapp_fail(TC_TAPP_EUNSUPPORTED, "an index appears in %s only (tcgen "
                                "does not sum over one operand or broadcast yet)",
                                a ? "A" : b ? "B" : "D");
    }
    return TC_TAPP_OK;
}

/* Whether t's strides make a dense layout in some order of its modes; its
 * modes then in memory order (extent-1 modes last), else as given. Two
 * elements of a D at one address are refused. */
static TAPP_error layout(tensor *t, int is_d)
{
    int n = 0;
    for (int k = 0; k < t->nmode; k++)
        if (t->extent[k] != 1) {
            int j = n++;
            while (j > 0 && t->stride[t->order[j - 1]] > t->stride[k]) {
                t->order[j] = t->order[j - 1];
                j--;
            }
            t->order[j] = k;
        }
    for (int k = 0; k < t->nmode; k++)
        if (t->extent[k] == 1)
            t->order[n++] = k;
    int64_t expect = 1;
    t->dense = 1;
    t->elements = 1;
    for (int j = 0; j < t->nmode; j++) {
        int k = t->order[j];
        t->elements *= t->extent[k];
        if (t->extent[k] == 1)
            continue;
        t->dense &= t->stride[k] == expect;
        if (is_d && t->stride[k] == 0)
            return tc_tapp_fail(TC_TAPP_EALIAS, "D has stride 0 along mode %d of extent %lld", k,
                                (long long)t->extent[k]);
        expect *= t->extent[k];
    }
    if (!t->dense)
        for (int k = 0; k < t->nmode; k++)
            t->order[k] = k; /* packed column-major in the given order */
    return TC_TAPP_OK;
}

/* "C[m0,m1] += A[m0,m2] * B[m2,m1]" and "m0=4,m1=5,m2=6" for tcgen. */
static void contraction_text(const product *p, char *text, size_t n, char *sizes, size_t ns)
{
    static const int role[3] = {TD, TA, TB};
    static const char *const name[3] = {"C", "A", "B"};
    size_t len = 0;
    for (int r = 0; r < 3; r++) {
        const tensor *t = &p->t[role[r]];
        len += (size_t)snprintf(text + len, n - len, "%s%s[", r == 1 ? " += " : r ? " * " : "",
                                name[r]);
        for (int j = 0; j < t->nmode && len < n; j++)
            len += (size_t)snprintf(text + len, n - len, "%sm%d", j ? "," : "",
                                    t->label[t->order[j]]);
        len += len < n ? (size_t)snprintf(text + len, n - len, "]") : 0;
    }
    len = 0;
    sizes[0] = '\0';
    for (int l = 0; l < p->nlabel && len < ns; l++)
        len += (size_t)snprintf(sizes + len, ns - len, "%sm%d=%lld", l ? "," : "", l,
                                (long long)p->size[l]);
}

static TAPP_error check_types(const tc_tapp_info *const info[4], TAPP_element_op op[4],
                              TAPP_prectype prec)
{
    for (int x = 0; x < 4; x++) {
        if (info[x]->type != TAPP_F64)
            return tc_tapp_fail(TC_TAPP_EUNSUPPORTED, "%s's type %d: tcgen takes TAPP_F64 only "
                                "so far", tensor_name[x], info[x]->type);
        if (op[x] != TAPP_IDENTITY && op[x] != TAPP_CONJUGATE)
            return tc_tapp_fail(TC_TAPP_EARGUMENT, "op_%s is %d", tensor_name[x], op[x]);
    }
    if (prec != TAPP_DEFAULT_PREC && prec != TAPP_F64F64_ACCUM_F64)
        return tc_tapp_fail(TC_TAPP_EUNSUPPORTED, "precision %d with TAPP_F64 tensors", prec);
    return TC_TAPP_OK;
}

/* Checks everything and fills p from the four infos and label arrays. */
static TAPP_error build(product *p, const tc_tapp_info *const info[4],
                        const int64_t *const idx[4])
{
    int64_t value[4 * TC_TAPP_MAX_MODES];
    for (int x = 0; x < 4; x++) {
        if (info[x]->nmode > 0 && !idx[x])
            return tc_tapp_fail(TC_TAPP_EARGUMENT, "idx_%s is NULL", tensor_name[x]);
        p->t[x].nmode = info[x]->nmode;
        memcpy(p->t[x].extent, info[x]->extent, sizeof p->t[x].extent);
        memcpy(p->t[x].stride, info[x]->stride, sizeof p->t[x].stride);
    }
    TAPP_error e = read_labels(p, idx, value);
    if (e == TC_TAPP_OK)
        e = check_pattern(p, idx);
    for (int x = 0; x < 4 && e == TC_TAPP_OK; x++)
        e = layout(&p->t[x], x == TD);
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
    if (!info[TA] || !info[TB] || !info[TC] || !info[TD])
        return TC_TAPP_EARGUMENT;
    TAPP_element_op op[4] = {op_A, op_B, op_C, op_D};
    const int64_t *const idx[4] = {idx_A, idx_B, idx_C, idx_D};
    TAPP_error e = check_types(info, op, prec);
    product *p = e == TC_TAPP_OK ? calloc(1, sizeof *p) : NULL;
    if (e == TC_TAPP_OK && !p)
        e = tc_tapp_fail(TC_TAPP_EMEMORY, "TAPP_create_tensor_product");
    if (e == TC_TAPP_OK)
        e = build(p, info, idx);
    if (e == TC_TAPP_OK && !p->empty) {
        char text[1024], sizes[1024];
        tc_error err;
        contraction_text(p, text, sizeof text, sizes, sizeof sizes);
        p->plan = tc_plan_create(text, sizes, TC_ESTIMATE, &err);
        if (!p->plan)
            e = tc_tapp_fail(err.code == TC_ERESOURCE ? TC_TAPP_EMEMORY : TC_TAPP_EPLAN,
                             "%s with %s: %s", text, sizes, err.message);
    }
    if (e != TC_TAPP_OK) {
        free(p);
        return e;
    }
    p->magic = PRODUCT_MAGIC;
    *plan = (TAPP_tensor_product)p;
    return TC_TAPP_OK;
}

TAPP_error TAPP_destroy_tensor_product(TAPP_tensor_product plan)
{
    product *p = (product *)plan;
    if (!p || p->magic != PRODUCT_MAGIC)
        return tc_tapp_fail(TC_TAPP_EARGUMENT, "TAPP_destroy_tensor_product: not a product");
    p->magic = 0;
    tc_plan_destroy(p->plan);
    free(p);
    return TC_TAPP_OK;
}

/* z = x + beta * y elementwise over the view (extents e, each operand's
 * strides); x NULL is 0, beta 0 does not read y. */
static void strided_sum(int n, const int64_t *e, const double *x, const int64_t *sx, double beta,
                        const double *y, const int64_t *sy, double *z, const int64_t *sz)
{
    int64_t ix[TC_TAPP_MAX_MODES] = {0}, count = 1, ox = 0, oy = 0, oz = 0;
    for (int k = 0; k < n; k++)
        count *= e[k];
    for (int64_t c = 0; c < count; c++) {
        double v = x ? x[ox] : 0.0;
        z[oz] = beta == 0.0 ? v : v + beta * y[oy];
        for (int k = 0; k < n; k++) {
            ox += sx[k], oy += sy[k], oz += sz[k];
            if (++ix[k] < e[k])
                break;
            ox -= ix[k] * sx[k], oy -= ix[k] * sy[k], oz -= ix[k] * sz[k];
            ix[k] = 0;
        }
    }
}

/* t's dense column-major strides in its given mode order (a packed copy). */
static void packed_strides(const tensor *t, int64_t *s)
{
    int64_t st = 1;
    for (int k = 0; k < t->nmode; k++)
        s[k] = st, st *= t->extent[k];
}

/* x where tcgen can read it: itself when dense, else a packed copy in *tmp. */
static TAPP_error operand(const tensor *t, const double *x, const double **out, double **tmp)
{
    int64_t s[TC_TAPP_MAX_MODES];
    *tmp = NULL;
    *out = x;
    if (t->dense)
        return TC_TAPP_OK;
    *tmp = malloc((size_t)(t->elements ? t->elements : 1) * sizeof **tmp);
    if (!*tmp)
        return tc_tapp_fail(TC_TAPP_EMEMORY, "packing an operand of %lld elements",
                            (long long)t->elements);
    packed_strides(t, s);
    strided_sum(t->nmode, t->extent, x, t->stride, 0.0, NULL, s, *tmp, s);
    *out = *tmp;
    return TC_TAPP_OK;
}

/* D = alpha A B + beta C with the operands where tcgen reads them. */
static TAPP_error run(const product *p, double alpha, const double *A, const double *B,
                      double beta, const double *C, double *D)
{
    const tensor *d = &p->t[TD], *c = &p->t[TC];
    if (d->dense) {
        if (beta != 0.0 && C != D) /* D = C first, then D = alpha A B + beta D */
            strided_sum(d->nmode, d->extent, C, c->stride, 0.0, NULL, d->stride, D, d->stride);
        return tc_execute_scaled(p->plan, &alpha, A, B, &beta, D) == TC_OK
                   ? TC_TAPP_OK
                   : tc_tapp_fail(TC_TAPP_EMEMORY, "no memory for the plan's temporaries");
    }
    int64_t s[TC_TAPP_MAX_MODES];
    const double zero = 0.0;
    double *T = malloc((size_t)(d->elements ? d->elements : 1) * sizeof *T);
    if (!T)
        return tc_tapp_fail(TC_TAPP_EMEMORY, "a dense D of %lld elements", (long long)d->elements);
    TAPP_error e = tc_execute_scaled(p->plan, &alpha, A, B, &zero, T) == TC_OK
                       ? TC_TAPP_OK
                       : tc_tapp_fail(TC_TAPP_EMEMORY, "no memory for the plan's temporaries");
    packed_strides(d, s);
    if (e == TC_TAPP_OK)
        strided_sum(d->nmode, d->extent, T, s, beta, C, c->stride, D, d->stride);
    free(T);
    return e;
}

TAPP_error TAPP_execute_product(TAPP_tensor_product plan, TAPP_executor exec,
                                TAPP_status *status, const void *alpha, const void *A,
                                const void *B, const void *beta, const void *C, void *D)
{
    const product *p = (const product *)plan;
    (void)exec; /* this process, at tcgen's thread count */
    if (status)
        *status = 0;
    if (!p || p->magic != PRODUCT_MAGIC)
        return tc_tapp_fail(TC_TAPP_EARGUMENT, "TAPP_execute_product: not a product");
    if (!alpha || !beta || !D || (!p->empty && (!A || !B)))
        return tc_tapp_fail(TC_TAPP_EARGUMENT, "TAPP_execute_product: a NULL pointer");
    double a = *(const double *)alpha, b = *(const double *)beta;
    if (b != 0.0 && !C)
        return tc_tapp_fail(TC_TAPP_ENULL_C, "beta is %g", b);
    const tensor *d = &p->t[TD];
    if (p->empty || a == 0.0) { /* D = beta C; A and B are not read */
        int free_empty = 0;
        for (int k = 0; k < d->nmode; k++)
            free_empty |= d->extent[k] == 0;
        if (!free_empty)
            strided_sum(d->nmode, d->extent, NULL, d->stride, b, C, p->t[TC].stride, D,
                        d->stride);
        return TC_TAPP_OK;
    }
    const double *pa, *pb;
    double *ta, *tb = NULL;
    TAPP_error e = operand(&p->t[TA], A, &pa, &ta);
    if (e == TC_TAPP_OK)
        e = operand(&p->t[TB], B, &pb, &tb);
    if (e == TC_TAPP_OK)
        e = run(p, a, pa, pb, b, C, D);
    free(ta);
    free(tb);
    return e;
}

TAPP_error TAPP_execute_batched_product(TAPP_tensor_product plan, TAPP_executor exec,
                                        TAPP_status *status, int num_batches,
                                        const void *alpha, const void **A, const void **B,
                                        const void *beta, const void **C, void **D)
{
    if (num_batches > 0 && (!A || !B || !D))
        return tc_tapp_fail(TC_TAPP_EARGUMENT, "TAPP_execute_batched_product: NULL arrays");
    if (status)
        *status = 0;
    for (int k = 0; k < num_batches; k++) {
        TAPP_error e = TAPP_execute_product(plan, exec, NULL, alpha, A[k], B[k], beta,
                                            C ? C[k] : NULL, D[k]);
        if (e != TC_TAPP_OK)
            return e;
    }
    return TC_TAPP_OK;
}
