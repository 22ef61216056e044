/*
 * blas.h - the BLAS backend table. Only runtime/ calls BLAS, and only
 * through a tc_blas loaded at run time with dlopen, so that OpenBLAS, BLIS
 * and any other CBLAS library can be used (even side by side in one process).
 *
 * Enumerations are passed as the standard CBLAS integer values below, so no
 * module needs cblas.h.
 */
#ifndef TC_RUNTIME_BLAS_H
#define TC_RUNTIME_BLAS_H

#include "tcgen.h"

enum {
    TC_CBLAS_COL_MAJOR = 102,
    TC_CBLAS_NO_TRANS = 111,
    TC_CBLAS_TRANS = 112
};

typedef struct tc_blas {
    char name[32];      /* "openblas", "blis", or the file name of a .so */
    char path[256];     /* what was passed to dlopen */
    char version[128];  /* library's own version string if it has one */
    void *handle;
    double (*ddot)(int n, const double *x, int incx, const double *y, int incy);
    void (*daxpy)(int n, double alpha, const double *x, int incx, double *y,
                  int incy);
    void (*dgemv)(int layout, int trans, int m, int n, double alpha,
                  const double *a, int lda, const double *x, int incx,
                  double beta, double *y, int incy);
    void (*dger)(int layout, int m, int n, double alpha, const double *x,
                 int incx, const double *y, int incy, double *a, int lda);
    void (*dgemm)(int layout, int transa, int transb, int m, int n, int k,
                  double alpha, const double *a, int lda, const double *b,
                  int ldb, double beta, double *c, int ldc);
    void (*dcopy)(int n, const double *x, int incx, double *y, int incy);
    void (*dscal)(int n, double alpha, double *x, int incx);
    int threads;        /* thread count in effect */
    void (*set_threads)(int n); /* NULL if the library has no such call */
    int (*get_threads)(void);   /* NULL if the library has no such call */
} tc_blas;

/*
 * Loads a CBLAS library. `which`: "openblas", "blis", a path to a .so, or
 * NULL for $TCGEN_BLAS or else "openblas". threads >= 1 sets the library's
 * thread count; 0 leaves it as it is (and records it). On failure returns
 * TC_ERESOURCE (library or symbol not found) or TC_EUSAGE (bad thread
 * count) and *out is NULL.
 * The caller frees the result with tc_rt_blas_unload().
 * Two loads of one library share one copy of it, so the thread count is the
 * library's: the last set_threads() call wins for every table over it.
 */
tc_status tc_rt_blas_load(const char *which, int threads, tc_blas **out,
                          tc_error *err);

/* Frees the table; the library itself stays mapped (RTLD_NODELETE: its
 * worker threads and cached buffers outlive the table). NULL is a no-op. */
void tc_rt_blas_unload(tc_blas *b);

#endif
