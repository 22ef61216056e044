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

void tc_tapp_store(const tc_tapp_product *p, const double *tr, const double *ti,
                   const double *alpha, const double *beta, const void *C, void *D)
{
    const tc_tapp_tensor *d = &p->t[TC_TAPP_D], *c = &p->t[TC_TAPP_C];
    int64_t cs[TC_TAPP_MAX_MODES], ix[TC_TAPP_MAX_MODES] = {0}, od = 0, oc = 0;
    double cc = p->op[TC_TAPP_C] == TAPP_CONJUGATE ? -1.0 : 1.0,
           cd = p->op[TC_TAPP_D] == TAPP_CONJUGATE ? -1.0 : 1.0;
    int read_c = beta[0] != 0.0 || beta[1] != 0.0;
    for (int j = 0; j < d->nplan; j++) /* C's stride along D's plan mode j */
        for (int k = 0; k < c->nmode; k++)
            if (c->label[k] == d->plan_label[j])
                cs[j] = c->stride[k];
    for (int64_t e = 0; e < d->elements; e++) {
        double t0 = tr ? tr[e] : 0.0, t1 = ti ? ti[e] : 0.0;
        double c0 = read_c ? tc_tapp_load(p->type, C, oc, 0) : 0.0,
               c1 = read_c && p->complex_type ? cc * tc_tapp_load(p->type, C, oc, 1) : 0.0;
        double re = alpha[0] * t0 - alpha[1] * t1 + beta[0] * c0 - beta[1] * c1,
               im = cd * (alpha[0] * t1 + alpha[1] * t0 + beta[0] * c1 + beta[1] * c0);
        switch (p->type) {
        case TAPP_F32:
            ((float *)D)[od] = (float)re;
            break;
        case TAPP_C32:
            ((float *)D)[2 * od] = (float)re, ((float *)D)[2 * od + 1] = (float)im;
            break;
        case TAPP_C64:
            ((double *)D)[2 * od] = re, ((double *)D)[2 * od + 1] = im;
            break;
        default:
            ((double *)D)[od] = re;
        }
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

void tc_tapp_elementwise(const tc_tapp_product *p, const double *const *a,
                         const double *const *b, double *tr, double *ti)
{
    const tc_tapp_tensor *d = &p->t[TC_TAPP_D];
    int64_t sa[TC_TAPP_MAX_MODES], sb[TC_TAPP_MAX_MODES], ix[TC_TAPP_MAX_MODES] = {0}, oa = 0,
        ob = 0;
    tc_tapp_strides_along_d(p, &p->t[TC_TAPP_A], sa);
    tc_tapp_strides_along_d(p, &p->t[TC_TAPP_B], sb);
    for (int64_t e = 0; e < d->elements; e++) {
        tr[e] = a[0][oa] * b[0][ob];
        if (ti) {
            tr[e] -= a[1][oa] * b[1][ob];
            ti[e] = a[0][oa] * b[1][ob] + a[1][oa] * b[0][ob];
        }
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
    const double zero = 0.0, one[2] = {1.0, 0.0}, al[2] = {alpha, 0.0}, be[2] = {beta, 0.0};
    if (d->direct && !p->elementwise) { /* D = C first where they differ, then D = alpha A B + beta D */
        if (beta != 0.0 && C != D)
            tc_tapp_store(p, NULL, NULL, one, one, C, D);
        return tc_execute_scaled(p->plan, &alpha, A, B, &beta, D) == TC_OK
                   ? TC_TAPP_OK
                   : tc_tapp_fail(TC_TAPP_EMEMORY, "no memory for the plan's temporaries");
    }
    double *T = malloc((size_t)(d->elements ? d->elements : 1) * sizeof *T);
    if (!T)
        return tc_tapp_fail(TC_TAPP_EMEMORY, "D's dense temporary: %lld elements",
                            (long long)d->elements);
    TAPP_error e = TC_TAPP_OK;
    const double *a[2] = {A, NULL}, *b[2] = {B, NULL};
    if (p->elementwise) /* alpha applied on storing */
        tc_tapp_elementwise(p, a, b, T, NULL);
    else if (tc_execute_scaled(p->plan, &alpha, A, B, &zero, T) != TC_OK)
        e = tc_tapp_fail(TC_TAPP_EMEMORY, "no memory for the plan's temporaries");
    if (!e)
        tc_tapp_store(p, T, NULL, p->elementwise ? al : one, be, C, D);
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
    double a = tc_tapp_load(p->type, alpha, 0, 0), b = tc_tapp_load(p->type, beta, 0, 0);
    if (b != 0.0 && !C)
        return tc_tapp_fail(TC_TAPP_ENULL_C, "beta is %g", b);
    if (p->empty || a == 0.0) { /* D = beta C; A and B are not read */
        const double one[2] = {1.0, 0.0}, be[2] = {b, 0.0};
        tc_tapp_store(p, NULL, NULL, one, be, C, D);
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
