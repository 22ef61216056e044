/*
 * tapp_complex.c - TAPP products of complex tensors over tcgen's real
 * plans (docs/tapp.md): A and B are packed into their real and imaginary
 * parts (a conjugated one's imaginary part negated), the real plan runs
 * four times, Re T = Re A Re B - Im A Im B and Im T = Re A Im B + Im A
 * Re B, and D = op_D(alpha T + beta op_C(C)) is stored (tc_tapp_store).
 */
#include <stdlib.h>

#include "planner/plan.h"
#include "planner/tapp_impl.h"

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
        tc_tapp_store(p, NULL, NULL, al, be, C, D);
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
        tc_tapp_elementwise(p, ca, cb, tr, ti);
    else if (four_products(p->plan, ca, cb, tr, ti) != TC_OK)
        e = tc_tapp_fail(TC_TAPP_EMEMORY, "no memory for the plan's temporaries");
    if (!e)
        tc_tapp_store(p, tr, ti, al, be, C, D);
    free(buf);
    return e;
}
