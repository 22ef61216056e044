/*
 * tapp_execute.c - TAPP_execute_product over tcgen plans (docs/tapp.md):
 * D = alpha A B + beta C. A double tensor whose data is a dense layout of
 * its indices is given to the plan where it lies; any other (a tile of a
 * larger array, negative or zero strides, a repeated index, an index
 * summed out, float data) is packed into a dense double temporary first,
 * and a D like it gets the result through one, beta C added on the way.
 */
#include <stdlib.h>
#include <string.h>

#include "planner/plan.h"
#include "planner/tapp_impl.h"

double tc_tapp_load(TAPP_datatype type, const void *x, int64_t off, int part)
{
    switch (type) {
    case TAPP_F32:
        return part ? 0.0 : (double)((const float *)x)[off];
    case TAPP_C32:
        return (double)((const float *)x)[2 * off + part];
    case TAPP_C64:
        return ((const double *)x)[2 * off + part];
    default:
        return part ? 0.0 : ((const double *)x)[off];
    }
}

static double load(TAPP_datatype type, const void *x, int64_t off)
{
    return tc_tapp_load(type, x, off, 0);
}

void tc_tapp_pack(const tc_tapp_tensor *t, const int64_t *size, TAPP_datatype type,
                  const void *x, int part, double sign, double *out)
{
    int64_t ix[TC_TAPP_MAX_MODES] = {0}, jx[TC_TAPP_MAX_MODES], nsum = 1, off = 0;
    for (int j = 0; j < t->nsum; j++)
        nsum *= size[t->sum_label[j]];
    for (int64_t e = 0; e < t->elements; e++) {
        double v = 0.0;
        int64_t so = off;
        memset(jx, 0, sizeof jx);
        for (int64_t s = 0; s < nsum; s++) {
            v += sign * tc_tapp_load(type, x, so, part);
            for (int j = 0; j < t->nsum; j++) {
                so += t->sum_stride[j];
                if (++jx[j] < size[t->sum_label[j]])
                    break;
                so -= jx[j] * t->sum_stride[j];
                jx[j] = 0;
            }
        }
        out[e] = v;
        for (int j = 0; j < t->nplan; j++) {
            off += t->plan_stride[j];
            if (++ix[j] < size[t->plan_label[j]])
                break;
            off -= ix[j] * t->plan_stride[j];
            ix[j] = 0;
        }
    }
}

/* D = T + beta C over D's plan modes (T dense in their order; NULL is 0),
 * in D's type; beta 0 does not read C. C's strides along D's indices. */
static void store(const tc_tapp_product *p, const double *T, double beta, const void *C,
                  void *D)
{
    const tc_tapp_tensor *d = &p->t[TC_TAPP_D], *c = &p->t[TC_TAPP_C];
    int64_t cs[TC_TAPP_MAX_MODES], ix[TC_TAPP_MAX_MODES] = {0}, od = 0, oc = 0;
    for (int j = 0; j < d->nplan; j++) /* C's stride along D's plan mode j */
        for (int k = 0; k < c->nmode; k++)
            if (c->label[k] == d->plan_label[j])
                cs[j] = c->stride[k];
    for (int64_t e = 0; e < d->elements; e++) {
        double v = (T ? T[e] : 0.0) + (beta == 0.0 ? 0.0 : beta * load(p->type, C, oc));
        if (p->type == TAPP_F32)
            ((float *)D)[od] = (float)v;
        else
            ((double *)D)[od] = v;
        for (int j = 0; j < d->nplan; j++) {
            od += d->plan_stride[j], oc += cs[j];
            if (++ix[j] < p->size[d->plan_label[j]])
                break;
            od -= ix[j] * d->plan_stride[j], oc -= ix[j] * cs[j];
            ix[j] = 0;
        }
    }
}

/* x where the plan reads it: itself, or packed into *tmp. */
static TAPP_error operand(const tc_tapp_product *p, int which, const void *x,
                          const double **out, double **tmp)
{
    const tc_tapp_tensor *t = &p->t[which];
    *tmp = NULL;
    *out = x;
    if (t->direct)
        return TC_TAPP_OK;
    *tmp = malloc((size_t)(t->elements ? t->elements : 1) * sizeof **tmp);
    if (!*tmp)
        return tc_tapp_fail(TC_TAPP_EMEMORY, "packing %s: %lld elements", which ? "B" : "A",
                            (long long)t->elements);
    tc_tapp_pack(t, p->size, p->type, x, 0, 1.0, *tmp);
    *out = *tmp;
    return TC_TAPP_OK;
}

void tc_tapp_strides_along_d(const tc_tapp_product *p, const tc_tapp_tensor *t, int64_t *s)
{
    const tc_tapp_tensor *d = &p->t[TC_TAPP_D];
    for (int j = 0; j < d->nplan; j++) {
        int64_t packed = 1;
        s[j] = 0;
        for (int i = 0; i < t->nplan; i++) {
            if (t->plan_label[i] == d->plan_label[j])
                s[j] = t->direct ? t->plan_stride[i] : packed;
            packed *= p->size[t->plan_label[i]];
        }
    }
}

/* No index contracted: T = alpha A B element by element, dense in D's
 * plan order (no BLAS kernel applies to a Hadamard product). */
static void elementwise(const tc_tapp_product *p, double alpha, const double *A,
                        const double *B, double *T)
{
    const tc_tapp_tensor *d = &p->t[TC_TAPP_D];
    int64_t sa[TC_TAPP_MAX_MODES], sb[TC_TAPP_MAX_MODES], ix[TC_TAPP_MAX_MODES] = {0}, oa = 0,
        ob = 0;
    tc_tapp_strides_along_d(p, &p->t[TC_TAPP_A], sa);
    tc_tapp_strides_along_d(p, &p->t[TC_TAPP_B], sb);
    for (int64_t e = 0; e < d->elements; e++) {
        T[e] = alpha * A[oa] * B[ob];
        for (int j = 0; j < d->nplan; j++) {
            oa += sa[j], ob += sb[j];
            if (++ix[j] < p->size[d->plan_label[j]])
                break;
            oa -= ix[j] * sa[j], ob -= ix[j] * sb[j];
            ix[j] = 0;
        }
    }
}

/* D = alpha A B + beta C with A and B where the plan reads them. */
static TAPP_error run(const tc_tapp_product *p, double alpha, const double *A, const double *B,
                      double beta, const void *C, void *D)
{
    const tc_tapp_tensor *d = &p->t[TC_TAPP_D];
    const double zero = 0.0;
    if (d->direct && !p->elementwise) { /* D = C first where they differ, then D = alpha A B + beta D */
        if (beta != 0.0 && C != D)
            store(p, NULL, 1.0, C, D);
        return tc_execute_scaled(p->plan, &alpha, A, B, &beta, D) == TC_OK
                   ? TC_TAPP_OK
                   : tc_tapp_fail(TC_TAPP_EMEMORY, "no memory for the plan's temporaries");
    }
    double *T = malloc((size_t)(d->elements ? d->elements : 1) * sizeof *T);
    if (!T)
        return tc_tapp_fail(TC_TAPP_EMEMORY, "D's dense temporary: %lld elements",
                            (long long)d->elements);
    TAPP_error e = TC_TAPP_OK;
    if (p->elementwise)
        elementwise(p, alpha, A, B, T);
    else if (tc_execute_scaled(p->plan, &alpha, A, B, &zero, T) != TC_OK)
        e = tc_tapp_fail(TC_TAPP_EMEMORY, "no memory for the plan's temporaries");
    if (!e)
        store(p, T, beta, C, D);
    free(T);
    return e;
}

TAPP_error TAPP_execute_product(TAPP_tensor_product plan, TAPP_executor exec,
                                TAPP_status *status, const void *alpha, const void *A,
                                const void *B, const void *beta, const void *C, void *D)
{
    const tc_tapp_product *p = (const tc_tapp_product *)plan;
    (void)exec; /* this process, at tcgen's thread count */
    if (status)
        *status = 0;
    if (!p || p->magic != TC_TAPP_PRODUCT_MAGIC)
        return tc_tapp_fail(TC_TAPP_EARGUMENT, "TAPP_execute_product: not a product");
    if (p->error)
        return p->error;
    if (!alpha || !beta || !D || (!p->empty && (!A || !B)))
        return tc_tapp_fail(TC_TAPP_EARGUMENT, "TAPP_execute_product: a NULL pointer");
    if (p->complex_type)
        return tc_tapp_execute_complex(p, alpha, A, B, beta, C, D);
    double a = load(p->type, alpha, 0), b = load(p->type, beta, 0);
    if (b != 0.0 && !C)
        return tc_tapp_fail(TC_TAPP_ENULL_C, "beta is %g", b);
    if (p->empty || a == 0.0) { /* D = beta C; A and B are not read */
        store(p, NULL, b, C, D);
        return TC_TAPP_OK;
    }
    const double *pa, *pb;
    double *ta, *tb = NULL;
    TAPP_error e = operand(p, TC_TAPP_A, A, &pa, &ta);
    if (!e)
        e = operand(p, TC_TAPP_B, B, &pb, &tb);
    if (!e)
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
