/* kernel_run.c - the kernel table's execute rows (kernel_run.h): each
 * kernel's call through the BLAS table. */
#include "runtime/kernel_run.h"

static int trans(int t)
{
    return t ? TC_CBLAS_TRANS : TC_CBLAS_NO_TRANS;
}

/* The ddot update: beta 0 writes the element without reading it, so a NaN
 * there does not survive. */
static inline void dot_update(double *c, double alpha, double dot, double beta)
{
    *c = beta == 0.0 ? alpha * dot : beta == 1.0 ? *c + alpha * dot : alpha * dot + beta * *c;
}

static void call_ddot(const tc_blas *b, const tc_call *k, double alpha, double beta, double *p0,
                      double *p1, double *p2)
{
    dot_update(p2, alpha, b->ddot((int)k->n, p0, (int)k->arg[0].ld, p1, (int)k->arg[1].ld),
               beta);
}

static void nest_ddot(const tc_blas *b, const tc_call *k, double alpha, double beta, int first,
                      tc_rt_nest *x)
{
    double (*ddot)(int, const double *, int, const double *, int) = b->ddot;
    const int l0 = (int)k->arg[0].ld, l1 = (int)k->arg[1].ld, kn = (int)k->n;
    do
        dot_update(x->p[2], alpha, ddot(kn, x->p[0], l0, x->p[1], l1),
                   tc_rt_nest_beta(x, first, beta));
    while (tc_rt_nest_advance(x));
}

static void call_daxpy(const tc_blas *b, const tc_call *k, double alpha, double beta, double *p0,
                       double *p1, double *p2)
{
    (void)beta;
    b->daxpy((int)k->n, alpha * *p0, p1, (int)k->arg[1].ld, p2, (int)k->arg[2].ld);
}

static void nest_daxpy(const tc_blas *b, const tc_call *k, double alpha, double beta, int first,
                       tc_rt_nest *x)
{
    (void)beta, (void)first;
    void (*daxpy)(int, double, const double *, int, double *, int) = b->daxpy;
    const int l1 = (int)k->arg[1].ld, l2 = (int)k->arg[2].ld, kn = (int)k->n;
    do
        daxpy(kn, alpha * *x->p[0], x->p[1], l1, x->p[2], l2);
    while (tc_rt_nest_advance(x));
}

static void call_dgemv(const tc_blas *b, const tc_call *k, double alpha, double beta, double *p0,
                       double *p1, double *p2)
{
    b->dgemv(TC_CBLAS_COL_MAJOR, trans(k->trans_a), (int)k->m, (int)k->n, alpha, p0,
             (int)k->arg[0].ld, p1, (int)k->arg[1].ld, beta, p2, (int)k->arg[2].ld);
}

static void call_dger(const tc_blas *b, const tc_call *k, double alpha, double beta, double *p0,
                      double *p1, double *p2)
{
    (void)beta;
    b->dger(TC_CBLAS_COL_MAJOR, (int)k->m, (int)k->n, alpha, p0, (int)k->arg[0].ld, p1,
            (int)k->arg[1].ld, p2, (int)k->arg[2].ld);
}

static void call_dgemm(const tc_blas *b, const tc_call *k, double alpha, double beta, double *p0,
                       double *p1, double *p2)
{
    b->dgemm(TC_CBLAS_COL_MAJOR, trans(k->trans_a), trans(k->trans_b), (int)k->m, (int)k->n,
             (int)k->k, alpha, p0, (int)k->arg[0].ld, p1, (int)k->arg[1].ld, beta, p2,
             (int)k->arg[2].ld);
}

const tc_kernel_run_row tc_kernel_run_rows[TC_KERNEL_COUNT] = {
    [TC_KERNEL_DDOT] = {call_ddot, nest_ddot},
    [TC_KERNEL_DAXPY] = {call_daxpy, nest_daxpy},
    [TC_KERNEL_DGEMV] = {call_dgemv, NULL},
    [TC_KERNEL_DGER] = {call_dger, NULL},
    [TC_KERNEL_DGEMM] = {call_dgemm, NULL},
};
