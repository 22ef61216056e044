/*
 * tapp_complex.c - TAPP products of complex tensors over tcgen's real
 * plans (docs/tapp.md): A and B are packed into their real and imaginary
 * parts (a conjugated one's imaginary part negated), the real plan runs
 * four times, Re T = Re A Re B - Im A Im B and Im T = Re A Im B + Im A
 * Re B, and D = op_D(alpha T + beta op_C(C)) is stored element by element.
 */
#include <stdlib.h>

#include "planner/plan.h"
#include "planner/tapp_impl.h"

/* T = A B element by element (no index contracted), dense in D's order. */
static void elementwise(const tc_tapp_product *p, const double *const *a,
                        const double *const *b, double *tr, double *ti)
{
    const tc_tapp_tensor *d = &p->t[TC_TAPP_D];
    int64_t sa[TC_TAPP_MAX_MODES], sb[TC_TAPP_MAX_MODES], ix[TC_TAPP_MAX_MODES] = {0}, oa = 0,
        ob = 0;
    tc_tapp_strides_along_d(p, &p->t[TC_TAPP_A], sa);
    tc_tapp_strides_along_d(p, &p->t[TC_TAPP_B], sb);
    for (int64_t e = 0; e < d->elements; e++) {
        tr[e] = a[0][oa] * b[0][ob] - a[1][oa] * b[1][ob];
        ti[e] = a[0][oa] * b[1][ob] + a[1][oa] * b[0][ob];
        for (int j = 0; j < d->nplan; j++) {
            oa += sa[j], ob += sb[j];
            if (++ix[j] < p->size[d->plan_label[j]])
                break;
            oa -= ix[j] * sa[j], ob -= ix[j] * sb[j];
            ix[j] = 0;
        }
    }
}

/* D = op_D(alpha T + beta op_C(C)) over D's plan modes (T NULL: 0). */
static void store(const tc_tapp_product *p, const double *tr, const double *ti,
                  const double *alpha, const double *beta, const void *C, void *D)
{
    const tc_tapp_tensor *d = &p->t[TC_TAPP_D], *c = &p->t[TC_TAPP_C];
    int64_t cs[TC_TAPP_MAX_MODES], ix[TC_TAPP_MAX_MODES] = {0}, od = 0, oc = 0;
    double cc = p->op[TC_TAPP_C] == TAPP_CONJUGATE ? -1.0 : 1.0,
           cd = p->op[TC_TAPP_D] == TAPP_CONJUGATE ? -1.0 : 1.0;
    int read_c = beta[0] != 0.0 || beta[1] != 0.0;
    for (int j = 0; j < d->nplan; j++)
        for (int k = 0; k < c->nmode; k++)
            if (c->label[k] == d->plan_label[j])
                cs[j] = c->stride[k];
    for (int64_t e = 0; e < d->elements; e++) {
        double t0 = tr ? tr[e] : 0.0, t1 = ti ? ti[e] : 0.0;
        double c0 = read_c ? tc_tapp_load(p->type, C, oc, 0) : 0.0,
               c1 = read_c ? cc * tc_tapp_load(p->type, C, oc, 1) : 0.0;
        double re = alpha[0] * t0 - alpha[1] * t1 + beta[0] * c0 - beta[1] * c1,
               im = cd * (alpha[0] * t1 + alpha[1] * t0 + beta[0] * c1 + beta[1] * c0);
        if (p->type == TAPP_C32)
            ((float *)D)[2 * od] = (float)re, ((float *)D)[2 * od + 1] = (float)im;
        else
            ((double *)D)[2 * od] = re, ((double *)D)[2 * od + 1] = im;
        for (int j = 0; j < d->nplan; j++) {
            od += d->plan_stride[j], oc += cs[j];
            if (++ix[j] < p->size[d->plan_label[j]])
                break;
            od -= ix[j] * d->plan_stride[j], oc -= ix[j] * cs[j];
            ix[j] = 0;
        }
    }
}

/* T = A B by four runs of the real plan. */
static tc_status four_products(const tc_plan *plan, const double *const *a,
                               const double *const *b, double *tr, double *ti)
{
    const double one = 1.0, minus = -1.0, zero = 0.0;
    tc_status s = tc_execute_scaled(plan, &one, a[0], b[0], &zero, tr);
    if (s == TC_OK)
        s = tc_execute_scaled(plan, &minus, a[1], b[1], &one, tr);
    if (s == TC_OK)
        s = tc_execute_scaled(plan, &one, a[0], b[1], &zero, ti);
    if (s == TC_OK)
        s = tc_execute_scaled(plan, &one, a[1], b[0], &one, ti);
    return s;
}

TAPP_error tc_tapp_execute_complex(const tc_tapp_product *p, const void *alpha, const void *A,
                                   const void *B, const void *beta, const void *C, void *D)
{
    const double al[2] = {tc_tapp_load(p->type, alpha, 0, 0), tc_tapp_load(p->type, alpha, 0, 1)},
                 be[2] = {tc_tapp_load(p->type, beta, 0, 0), tc_tapp_load(p->type, beta, 0, 1)};
    if ((be[0] != 0.0 || be[1] != 0.0) && !C)
        return tc_tapp_fail(TC_TAPP_ENULL_C, "beta is (%g, %g)", be[0], be[1]);
    if (p->empty || (al[0] == 0.0 && al[1] == 0.0)) { /* D = op_D(beta op_C(C)) */
        store(p, NULL, NULL, al, be, C, D);
        return TC_TAPP_OK;
    }
    const tc_tapp_tensor *ta = &p->t[TC_TAPP_A], *tb = &p->t[TC_TAPP_B], *td = &p->t[TC_TAPP_D];
    int64_t na = ta->elements, nb = tb->elements, nd = td->elements;
    double *buf = malloc((size_t)(2 * (na + nb + nd) + 1) * sizeof *buf);
    if (!buf)
        return tc_tapp_fail(TC_TAPP_EMEMORY, "complex temporaries of %lld elements",
                            (long long)(2 * (na + nb + nd)));
    double *a[2] = {buf, buf + na}, *b[2] = {buf + 2 * na, buf + 2 * na + nb},
           *tr = buf + 2 * (na + nb), *ti = tr + nd;
    for (int part = 0; part < 2; part++) {
        tc_tapp_pack(ta, p->size, p->type, A, part,
                     part && p->op[TC_TAPP_A] == TAPP_CONJUGATE ? -1.0 : 1.0, a[part]);
        tc_tapp_pack(tb, p->size, p->type, B, part,
                     part && p->op[TC_TAPP_B] == TAPP_CONJUGATE ? -1.0 : 1.0, b[part]);
    }
    const double *ca[2] = {a[0], a[1]}, *cb[2] = {b[0], b[1]};
    TAPP_error e = TC_TAPP_OK;
    if (p->elementwise)
        elementwise(p, ca, cb, tr, ti);
    else if (four_products(p->plan, ca, cb, tr, ti) != TC_OK)
        e = tc_tapp_fail(TC_TAPP_EMEMORY, "no memory for the plan's temporaries");
    if (!e)
        store(p, tr, ti, al, be, C, D);
    free(buf);
    return e;
}
