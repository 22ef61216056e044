/*
 * tapp_execute.c - TAPP_execute_product over tcgen plans (docs/tapp.md):
 * D = alpha A B + beta C, in the tensors' own type (float, double, float
 * complex, double complex: the plan's). A tensor whose data is a
 * column-major layout of its indices, dense or with gaps, is given to the
 * plan where it lies; any other (negative or zero strides, a repeated
 * index, an index summed out, a conjugated one) is packed into a dense
 * temporary of its type first, and a D like it gets the result through
 * one, beta C added on the way.
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

/* Writes re (and im, for complex types) as element off of x in `type`. */
static void put(TAPP_datatype type, void *x, int64_t off, double re, double im)
{
    switch (type) {
    case TAPP_F32:
        ((float *)x)[off] = (float)re;
        break;
    case TAPP_C32:
        ((float *)x)[2 * off] = (float)re, ((float *)x)[2 * off + 1] = (float)im;
        break;
    case TAPP_C64:
        ((double *)x)[2 * off] = re, ((double *)x)[2 * off + 1] = im;
        break;
    default:
        ((double *)x)[off] = re;
    }
}

void tc_tapp_pack(const tc_tapp_tensor *t, const int64_t *size, TAPP_datatype type,
                  const void *x, double conj, void *out)
{
    int64_t ix[TC_TAPP_MAX_MODES] = {0}, jx[TC_TAPP_MAX_MODES], nsum = 1, off = 0;
    for (int j = 0; j < t->nsum; j++)
        nsum *= size[t->sum_label[j]];
    for (int64_t e = 0; e < t->elements; e++) {
        double re = 0.0, im = 0.0;
        int64_t so = off;
        memset(jx, 0, sizeof jx);
        for (int64_t s = 0; s < nsum; s++) {
            re += tc_tapp_load(type, x, so, 0);
            im += tc_tapp_load(type, x, so, 1);
            for (int j = 0; j < t->nsum; j++) {
                so += t->sum_stride[j];
                if (++jx[j] < size[t->sum_label[j]])
                    break;
                so -= jx[j] * t->sum_stride[j];
                jx[j] = 0;
            }
        }
        put(type, out, e, re, conj * im);
        for (int j = 0; j < t->nplan; j++) {
            off += t->plan_stride[j];
            if (++ix[j] < size[t->plan_label[j]])
                break;
            off -= ix[j] * t->plan_stride[j];
            ix[j] = 0;
        }
    }
}

void tc_tapp_store(const tc_tapp_product *p, const void *T, const double *alpha,
                   const double *beta, const void *C, void *D)
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
        double t0 = T ? tc_tapp_load(p->type, T, e, 0) : 0.0,
               t1 = T ? tc_tapp_load(p->type, T, e, 1) : 0.0;
        double c0 = read_c ? tc_tapp_load(p->type, C, oc, 0) : 0.0,
               c1 = read_c ? cc * tc_tapp_load(p->type, C, oc, 1) : 0.0;
        put(p->type, D, od, alpha[0] * t0 - alpha[1] * t1 + beta[0] * c0 - beta[1] * c1,
            cd * (alpha[0] * t1 + alpha[1] * t0 + beta[0] * c1 + beta[1] * c0));
        for (int j = 0; j < d->nplan; j++) {
            od += d->plan_stride[j], oc += cs[j];
            if (++ix[j] < p->size[d->plan_label[j]])
                break;
            od -= ix[j] * d->plan_stride[j], oc -= ix[j] * cs[j];
            ix[j] = 0;
        }
    }
}

/* x where the plan reads it: itself, or packed (conjugated where op says)
 * into *tmp. */
static TAPP_error operand(const tc_tapp_product *p, int which, const void *x,
                          const void **out, void **tmp)
{
    const tc_tapp_tensor *t = &p->t[which];
    *tmp = NULL;
    *out = x;
    if (t->direct)
        return TC_TAPP_OK;
    *tmp = malloc((size_t)((t->elements ? t->elements : 1) * p->bytes));
    if (!*tmp)
        return tc_tapp_fail(TC_TAPP_EMEMORY, "packing %s: %lld elements", which ? "B" : "A",
                            (long long)t->elements);
    tc_tapp_pack(t, p->size, p->type, x, p->op[which] == TAPP_CONJUGATE ? -1.0 : 1.0, *tmp);
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

void tc_tapp_elementwise(const tc_tapp_product *p, const void *a, const void *b, void *T)
{
    const tc_tapp_tensor *d = &p->t[TC_TAPP_D];
    int64_t sa[TC_TAPP_MAX_MODES], sb[TC_TAPP_MAX_MODES], ix[TC_TAPP_MAX_MODES] = {0}, oa = 0,
        ob = 0;
    tc_tapp_strides_along_d(p, &p->t[TC_TAPP_A], sa);
    tc_tapp_strides_along_d(p, &p->t[TC_TAPP_B], sb);
    for (int64_t e = 0; e < d->elements; e++) {
        double ar = tc_tapp_load(p->type, a, oa, 0), ai = tc_tapp_load(p->type, a, oa, 1),
               br = tc_tapp_load(p->type, b, ob, 0), bi = tc_tapp_load(p->type, b, ob, 1);
        put(p->type, T, e, ar * br - ai * bi, ar * bi + ai * br);
        for (int j = 0; j < d->nplan; j++) {
            oa += sa[j], ob += sb[j];
            if (++ix[j] < p->size[d->plan_label[j]])
                break;
            oa -= ix[j] * sa[j], ob -= ix[j] * sb[j];
            ix[j] = 0;
        }
    }
}

/* D = alpha A B + beta op_C(C) with A and B where the plan reads them;
 * the scalars as the user gave them (the plan's type) and as al, be
 * {real, imaginary}. */
static TAPP_error run(const tc_tapp_product *p, const void *alpha, const double *al,
                      const void *A, const void *B, const void *beta, const double *be,
                      const void *C, void *D)
{
    const tc_tapp_tensor *d = &p->t[TC_TAPP_D];
    static const double zero[2] = {0.0, 0.0}, one[2] = {1.0, 0.0}; /* 0 in every type */
    const int read_c = be[0] != 0.0 || be[1] != 0.0;
    if (d->direct && !p->elementwise) { /* D = op_C(C) first where it differs, then
                                           D = alpha A B + beta D */
        if (read_c && (C != D || p->op[TC_TAPP_C] == TAPP_CONJUGATE))
            tc_tapp_store(p, NULL, one, one, C, D);
        return tc_execute_scaled(p->plan, alpha, A, B, beta, D) == TC_OK
                   ? TC_TAPP_OK
                   : tc_tapp_fail(TC_TAPP_EMEMORY, "no memory for the plan's temporaries");
    }
    void *T = malloc((size_t)((d->elements ? d->elements : 1) * p->bytes));
    if (!T)
        return tc_tapp_fail(TC_TAPP_EMEMORY, "D's dense temporary: %lld elements",
                            (long long)d->elements);
    TAPP_error e = TC_TAPP_OK;
    if (p->elementwise) /* alpha applied on storing */
        tc_tapp_elementwise(p, A, B, T);
    else if (tc_execute_scaled(p->plan, alpha, A, B, zero, T) != TC_OK)
        e = tc_tapp_fail(TC_TAPP_EMEMORY, "no memory for the plan's temporaries");
    if (!e)
        tc_tapp_store(p, T, p->elementwise ? al : one, be, C, D);
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
    const double al[2] = {tc_tapp_load(p->type, alpha, 0, 0), tc_tapp_load(p->type, alpha, 0, 1)},
                 be[2] = {tc_tapp_load(p->type, beta, 0, 0), tc_tapp_load(p->type, beta, 0, 1)};
    if ((be[0] != 0.0 || be[1] != 0.0) && !C)
        return tc_tapp_fail(TC_TAPP_ENULL_C, "beta is (%g, %g)", be[0], be[1]);
    if (p->empty || (al[0] == 0.0 && al[1] == 0.0)) { /* D = beta C; A and B are not read */
        static const double one[2] = {1.0, 0.0};
        tc_tapp_store(p, NULL, one, be, C, D);
        return TC_TAPP_OK;
    }
    const void *pa, *pb;
    void *ta, *tb = NULL;
    TAPP_error e = operand(p, TC_TAPP_A, A, &pa, &ta);
    if (!e)
        e = operand(p, TC_TAPP_B, B, &pb, &tb);
    if (!e)
        e = run(p, alpha, al, pa, pb, beta, be, C, D);
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
