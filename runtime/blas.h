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
    /* float */
    float (*sdot)(int n, const float *x, int incx, const float *y, int incy);
    void (*saxpy)(int n, float alpha, const float *x, int incx, float *y, int incy);
    void (*sgemv)(int layout, int trans, int m, int n, float alpha, const float *a, int lda,
                  const float *x, int incx, float beta, float *y, int incy);
    void (*sger)(int layout, int m, int n, float alpha, const float *x, int incx,
                 const float *y, int incy, float *a, int lda);
    void (*sgemm)(int layout, int transa, int transb, int m, int n, int k, float alpha,
                  const float *a, int lda, const float *b, int ldb, float beta, float *c,
                  int ldc);
    /* complex, [0] float complex (c), [1] double complex (z): scalars and
     * elements by pointer, as CBLAS takes them; the unconjugated dot and
     * rank-1 update */
    void (*xdotu_sub[2])(int n, const void *x, int incx, const void *y, int incy, void *dot);
    void (*xaxpy[2])(int n, const void *alpha, const void *x, int incx, void *y, int incy);
    void (*xgemv[2])(int layout, int trans, int m, int n, const void *alpha, const void *a,
                     int lda, const void *x, int incx, const void *beta, void *y, int incy);
    void (*xgeru[2])(int layout, int m, int n, const void *alpha, const void *x, int incx,
                     const void *y, int incy, void *a, int lda);
    void (*xgemm[2])(int layout, int transa, int transb, int m, int n, int k, const void *alpha,
                     const void *a, int lda, const void *b, int ldb, const void *beta, void *c,
                     int ldc);
    void (*dcopy)(int n, const double *x, int incx, double *y, int incy);
    void (*dscal)(int n, double alpha, double *x, int incx);
    char kernels[32];   /* OpenBLAS: the kernel set it runs ("Haswell"), else "" */
    int threads;        /* the thread count tcgen's own calls run at */
    void (*set_threads)(int n); /* NULL if the library has no such call */
    int (*get_threads)(void);   /* NULL if the library has no such call */
} tc_blas;

/*
 * Loads a CBLAS library. `which`: "openblas", "blis", a path to a .so,
 * "openblas:CORE" (OpenBLAS with its CORE kernels, one of
 * tc_rt_openblas_cores: a copy of its own, dlmopen'ed in a new namespace
 * with OPENBLAS_CORETYPE=CORE, whatever kernels the process's copy runs),
 * or NULL for $TCGEN_BLAS or else "openblas". threads >= 1 is the thread
 * count tcgen's own calls run at; 0: the CPUs the process may use
 * (tc_rt_process_cpus). A library without a thread-count call runs at its
 * own count (1 when it cannot say). Loading never changes the library's
 * setting: tc_rt_blas_enter does, around tcgen's calls. On failure returns
 * TC_ERESOURCE (library or symbol not found) or TC_EUSAGE (bad thread
 * count) and *out is NULL. The caller frees the result with
 * tc_rt_blas_unload().
 */
tc_status tc_rt_blas_load(const char *which, int threads, tc_blas **out,
                          tc_error *err);

/*
 * OpenBLAS and BLIS keep one thread count for the process, and it is the
 * application's: tcgen sets its own only around its calls. Every entry
 * point that calls the library (execution, sampling, the profile's
 * measurements) brackets itself:
 *     int saved = tc_rt_blas_enter(b, b->threads);
 *     ... BLAS calls ...
 *     tc_rt_blas_leave(b, saved);
 * enter sets n threads where the library runs another count and returns
 * what to restore (0: nothing was changed; nested brackets cost a read);
 * leave restores it. Calls the application makes from other threads while
 * a bracket is open run at tcgen's count.
 */
int tc_rt_blas_enter(const tc_blas *b, int n);
void tc_rt_blas_leave(const tc_blas *b, int saved);

/*
 * The kernel sets of OpenBLAS (the names OPENBLAS_CORETYPE takes) that
 * this CPU can run, widest last; their number (at most max). OpenBLAS
 * picks one by itself at load, and not always the best: on an Intel Xeon
 * VM, 0.3.21 picked Prescott (SSE3) and ran dgemm 3.3x slower than with
 * SkylakeX. 0 off x86-64.
 */
int tc_rt_openblas_cores(const char *names[], int max);

/* Frees the table; the library itself stays mapped (RTLD_NODELETE: its
 * worker threads and cached buffers outlive the table). NULL is a no-op. */
void tc_rt_blas_unload(tc_blas *b);

#endif
