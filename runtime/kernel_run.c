/* kernel_run.c - the kernel table's execute rows (kernel_run.h): each
 * kernel's call through the BLAS table, in the call's type (float and
 * double by value, complex by pointer, as CBLAS takes them). */
#include "runtime/kernel_run.h"

#include <complex.h>

static int trans(int t)
{
    return t ? TC_CBLAS_TRANS : TC_CBLAS_NO_TRANS;
}

/* The complex routines' column: 0 float complex, 1 double complex. */
static int zcol(const tc_call *k)
{
    return k->type == TC_TYPE_Z;
}

/* A complex scalar {re, im} in the call's type, for CBLAS's pointers. */
typedef union scalar {
    float complex c;
    double complex z;
} scalar;

static scalar to_scalar(const tc_call *k, const double *s)
{
    scalar x;
    if (zcol(k))
        x.z = CMPLX(s[0], s[1]);
    else
        x.c = CMPLXF((float)s[0], (float)s[1]);
    return x;
}

/* The ddot update: beta 0 writes the element without reading it, so a NaN
 * there does not survive. */
static inline void dot_update(double *c, double alpha, double dot, double beta)
{
    *c = beta == 0.0 ? alpha * dot : beta == 1.0 ? *c + alpha * dot : alpha * dot + beta * *c;
}

static inline void sdot_update(float *c, double alpha, float dot, double beta)
{
    *c = beta == 0.0   ? (float)alpha * dot
         : beta == 1.0 ? *c + (float)alpha * dot
                       : (float)alpha * dot + (float)beta * *c;
}

/* c = alpha * dot + beta * c in complex, beta {0, 0} not reading c. */
static void xdot_update(const tc_call *k, void *c, const double *alpha, const void *dot,
                        const double *beta)
{
    const int zero = beta[0] == 0.0 && beta[1] == 0.0;
    if (zcol(k)) {
        double complex *z = c, a = CMPLX(alpha[0], alpha[1]), b = CMPLX(beta[0], beta[1]);
        *z = zero ? a * *(const double complex *)dot : a * *(const double complex *)dot + b * *z;
    } else {
        float complex *z = c, a = CMPLXF((float)alpha[0], (float)alpha[1]),
                      b = CMPLXF((float)beta[0], (float)beta[1]);
        *z = zero ? a * *(const float complex *)dot : a * *(const float complex *)dot + b * *z;
    }
}

/*
 * A complex dot with an increment other than 1, c = alpha x.y + beta c, as
 * a gemv of one row or one column: OpenBLAS 0.3.21's cdotu and zdotu read
 * one element past the last of a strided vector (a fault where it ends a
 * mapping: tests/test_types.c puts vectors there), its gemv does not. A
 * unit-stride vector is the n x 1 matrix of a transposed gemv (its dot
 * kernel); with none, x is the 1 x n matrix of an untransposed one.
 */
static void strided_xdot(const tc_blas *b, const tc_call *k, const double *alpha,
                         const double *beta, void *x, int lx, void *y, int ly, void *c)
{
    const int n = (int)k->n;
    scalar a = to_scalar(k, alpha), be = to_scalar(k, beta);
    if (lx != 1 && ly == 1) { /* the unit-stride one as the matrix */
        void *t = x;
        x = y, y = t, ly = lx, lx = 1;
    }
    if (lx == 1)
        b->xgemv[zcol(k)](TC_CBLAS_COL_MAJOR, TC_CBLAS_TRANS, n, 1, &a, x, n, y, ly, &be, c, 1);
    else
        b->xgemv[zcol(k)](TC_CBLAS_COL_MAJOR, TC_CBLAS_NO_TRANS, 1, n, &a, x, lx, y, ly, &be, c,
                          1);
}

static void call_dot(const tc_blas *b, const tc_call *k, const double *alpha, const double *beta,
                     void *p0, void *p1, void *p2)
{
    const int n = (int)k->n, l0 = (int)k->arg[0].ld, l1 = (int)k->arg[1].ld;
    if (k->type == TC_TYPE_D) {
        dot_update(p2, alpha[0], b->ddot(n, p0, l0, p1, l1), beta[0]);
    } else if (k->type == TC_TYPE_S) {
        sdot_update(p2, alpha[0], b->sdot(n, p0, l0, p1, l1), beta[0]);
    } else if (l0 != 1 || l1 != 1) {
        strided_xdot(b, k, alpha, beta, p0, l0, p1, l1, p2);
    } else {
        double complex dot; /* room for either complex */
        b->xdotu_sub[zcol(k)](n, p0, l0, p1, l1, &dot);
        xdot_update(k, p2, alpha, &dot, beta);
    }
}

static void nest_dot(const tc_blas *b, const tc_call *k, const double *alpha, const double *beta,
                     int first, tc_rt_nest *x)
{
    if (k->type != TC_TYPE_D) { /* the tuned nest is double's */
        static const double one[2] = {1.0, 0.0};
        do
            call_dot(b, k, alpha, tc_rt_nest_first(x, first) ? beta : one, x->p[0], x->p[1],
                     x->p[2]);
        while (tc_rt_nest_advance(x));
        return;
    }
    double (*ddot)(int, const double *, int, const double *, int) = b->ddot;
    const int l0 = (int)k->arg[0].ld, l1 = (int)k->arg[1].ld, kn = (int)k->n;
    do
        dot_update((double *)x->p[2], alpha[0],
                   ddot(kn, (double *)x->p[0], l0, (double *)x->p[1], l1),
                   tc_rt_nest_beta(x, first, beta[0]));
    while (tc_rt_nest_advance(x));
}

static void call_axpy(const tc_blas *b, const tc_call *k, const double *alpha,
                      const double *beta, void *p0, void *p1, void *p2)
{
    (void)beta;
    const int n = (int)k->n, l1 = (int)k->arg[1].ld, l2 = (int)k->arg[2].ld;
    if (k->type == TC_TYPE_D) {
        b->daxpy(n, alpha[0] * *(double *)p0, p1, l1, p2, l2);
    } else if (k->type == TC_TYPE_S) {
        b->saxpy(n, (float)alpha[0] * *(float *)p0, p1, l1, p2, l2);
    } else { /* the factor is alpha times an element of the other input */
        scalar f = to_scalar(k, alpha);
        if (zcol(k))
            f.z *= *(double complex *)p0;
        else
            f.c *= *(float complex *)p0;
        b->xaxpy[zcol(k)](n, &f, p1, l1, p2, l2);
    }
}

static void nest_axpy(const tc_blas *b, const tc_call *k, const double *alpha,
                      const double *beta, int first, tc_rt_nest *x)
{
    (void)first;
    if (k->type != TC_TYPE_D) {
        do
            call_axpy(b, k, alpha, beta, x->p[0], x->p[1], x->p[2]);
        while (tc_rt_nest_advance(x));
        return;
    }
    void (*daxpy)(int, double, const double *, int, double *, int) = b->daxpy;
    const int l1 = (int)k->arg[1].ld, l2 = (int)k->arg[2].ld, kn = (int)k->n;
    do
        daxpy(kn, alpha[0] * *(double *)x->p[0], (double *)x->p[1], l1, (double *)x->p[2], l2);
    while (tc_rt_nest_advance(x));
}

static void call_gemv(const tc_blas *b, const tc_call *k, const double *alpha,
                      const double *beta, void *p0, void *p1, void *p2)
{
    const int m = (int)k->m, n = (int)k->n, l0 = (int)k->arg[0].ld, l1 = (int)k->arg[1].ld,
              l2 = (int)k->arg[2].ld, t = trans(k->trans_a);
    if (k->type == TC_TYPE_D) {
        b->dgemv(TC_CBLAS_COL_MAJOR, t, m, n, alpha[0], p0, l0, p1, l1, beta[0], p2, l2);
    } else if (k->type == TC_TYPE_S) {
        b->sgemv(TC_CBLAS_COL_MAJOR, t, m, n, (float)alpha[0], p0, l0, p1, l1, (float)beta[0],
                 p2, l2);
    } else {
        scalar a = to_scalar(k, alpha), be = to_scalar(k, beta);
        b->xgemv[zcol(k)](TC_CBLAS_COL_MAJOR, t, m, n, &a, p0, l0, p1, l1, &be, p2, l2);
    }
}

static void call_ger(const tc_blas *b, const tc_call *k, const double *alpha,
                     const double *beta, void *p0, void *p1, void *p2)
{
    (void)beta;
    const int m = (int)k->m, n = (int)k->n, l0 = (int)k->arg[0].ld, l1 = (int)k->arg[1].ld,
              l2 = (int)k->arg[2].ld;
    if (k->type == TC_TYPE_D) {
        b->dger(TC_CBLAS_COL_MAJOR, m, n, alpha[0], p0, l0, p1, l1, p2, l2);
    } else if (k->type == TC_TYPE_S) {
        b->sger(TC_CBLAS_COL_MAJOR, m, n, (float)alpha[0], p0, l0, p1, l1, p2, l2);
    } else {
        scalar a = to_scalar(k, alpha);
        b->xgeru[zcol(k)](TC_CBLAS_COL_MAJOR, m, n, &a, p0, l0, p1, l1, p2, l2);
    }
}

static void call_gemm(const tc_blas *b, const tc_call *k, const double *alpha,
                      const double *beta, void *p0, void *p1, void *p2)
{
    const int m = (int)k->m, n = (int)k->n, kk = (int)k->k, l0 = (int)k->arg[0].ld,
              l1 = (int)k->arg[1].ld, l2 = (int)k->arg[2].ld, ta = trans(k->trans_a),
              tb = trans(k->trans_b);
    if (k->type == TC_TYPE_D) {
        b->dgemm(TC_CBLAS_COL_MAJOR, ta, tb, m, n, kk, alpha[0], p0, l0, p1, l1, beta[0], p2,
                 l2);
    } else if (k->type == TC_TYPE_S) {
        b->sgemm(TC_CBLAS_COL_MAJOR, ta, tb, m, n, kk, (float)alpha[0], p0, l0, p1, l1,
                 (float)beta[0], p2, l2);
    } else {
        scalar a = to_scalar(k, alpha), be = to_scalar(k, beta);
        b->xgemm[zcol(k)](TC_CBLAS_COL_MAJOR, ta, tb, m, n, kk, &a, p0, l0, p1, l1, &be, p2,
                          l2);
    }
}

const tc_kernel_run_row tc_kernel_run_rows[TC_KERNEL_COUNT] = {
    [TC_KERNEL_DDOT] = {call_dot, nest_dot},
    [TC_KERNEL_DAXPY] = {call_axpy, nest_axpy},
    [TC_KERNEL_DGEMV] = {call_gemv, NULL},
    [TC_KERNEL_DGER] = {call_ger, NULL},
    [TC_KERNEL_DGEMM] = {call_gemm, NULL},
};
