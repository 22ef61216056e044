/*
 * test_runtime.c - the BLAS backend table (OpenBLAS and BLIS loaded side by
 * side, every kernel against hand-written loops), aligned allocation, and
 * the naive reference contraction.
 */
#include <CUnit/CUnit.h>
#include <dlfcn.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ast/contraction.h"
#include "ast/error.h"
#include "runtime/blas.h"
#include "runtime/cpus.h"
#include "runtime/memory.h"
#include "runtime/reference.h"

/*
 * LeakSanitizer (gcc 12, clang 14) crashes at exit ("Tracer caught signal
 * 11") when BLIS's OpenMP worker threads are alive: it misreads their
 * dynamic TLS. ASan builds therefore skip the multithreaded BLIS product.
 */
#if defined(__SANITIZE_ADDRESS__)
#define TC_TEST_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define TC_TEST_ASAN 1
#endif
#endif
#ifndef TC_TEST_ASAN
#define TC_TEST_ASAN 0
#endif

#define NLIBS 2
static const char *const lib_names[NLIBS] = {"openblas", "blis"};
static tc_blas *libs[NLIBS];

/* ---- helpers ---------------------------------------------------------- */

static uint64_t rng_state;

static void seed(uint64_t s) { rng_state = s * 2862933555777941757ULL + 3037000493ULL; }

/* Uniform in [-1, 1). */
static double rnd(void)
{
    rng_state = rng_state * 6364136223846793005ULL + 1442695040888963407ULL;
    return (double)(rng_state >> 11) / 4503599627370496.0 - 1.0;
}

static void fill(double *x, int n)
{
    for (int k = 0; k < n; k++)
        x[k] = rnd();
}

/* |got - want| within 1e-12 of the magnitude of what was summed. */
static int near(double got, double want, double scale)
{
    if (scale < 1.0)
        scale = 1.0;
    return fabs(got - want) <= 1e-12 * scale;
}

/* Every element equal within tolerance; scale[k] may be NULL (then 1). */
static int all_near(const double *got, const double *want, const double *scale,
                    int n)
{
    for (int k = 0; k < n; k++)
        if (!near(got[k], want[k], scale ? scale[k] : 1.0))
            return 0;
    return 1;
}

static int suite_init(void) { return 0; }

static int suite_clean(void)
{
    for (int l = 0; l < NLIBS; l++) {
        tc_rt_blas_unload(libs[l]);
        libs[l] = NULL;
    }
    return 0;
}

/* Loads both libraries once; later tests use them. */
static int have_libs(void)
{
    for (int l = 0; l < NLIBS; l++) {
        if (libs[l])
            continue;
        tc_error err;
        tc_error_clear(&err);
        if (tc_rt_blas_load(lib_names[l], 1, &libs[l], &err) != TC_OK)
            return 0;
    }
    return 1;
}

/* ---- loading ---------------------------------------------------------- */

static void test_load_both(void)
{
    CU_ASSERT_FATAL(have_libs());
    for (int l = 0; l < NLIBS; l++) {
        tc_blas *b = libs[l];
        CU_ASSERT_STRING_EQUAL(b->name, lib_names[l]);
        CU_ASSERT_PTR_NOT_NULL(b->handle);
        CU_ASSERT_PTR_NOT_NULL(b->ddot);
        CU_ASSERT_PTR_NOT_NULL(b->daxpy);
        CU_ASSERT_PTR_NOT_NULL(b->dgemv);
        CU_ASSERT_PTR_NOT_NULL(b->dger);
        CU_ASSERT_PTR_NOT_NULL(b->dgemm);
        CU_ASSERT_PTR_NOT_NULL(b->dcopy);
        CU_ASSERT_PTR_NOT_NULL(b->dscal);
        CU_ASSERT_PTR_NOT_NULL(b->set_threads);
        CU_ASSERT_EQUAL(b->threads, 1);
        CU_ASSERT(b->path[0] != '\0');
        CU_ASSERT(b->version[0] != '\0');
    }
    CU_ASSERT(strstr(libs[0]->version, "OpenBLAS") != NULL);
    CU_ASSERT(libs[0]->handle != libs[1]->handle);
    CU_ASSERT(libs[0]->dgemm != libs[1]->dgemm);

    /* each table's kernel lives in its own library file */
    for (int l = 0; l < NLIBS; l++) {
        Dl_info info;
        void *p;
        memcpy(&p, &libs[l]->dgemm, sizeof p);
        CU_ASSERT_FATAL(dladdr(p, &info) != 0);
        CU_ASSERT_PTR_NOT_NULL_FATAL(info.dli_fname);
        CU_ASSERT(strstr(info.dli_fname, l == 0 ? "openblas" : "blis") != NULL);
    }
}

static void test_load_threads(void)
{
    for (int l = 0; l < NLIBS; l++) {
        tc_blas *b = NULL;
        tc_error err;
        tc_error_clear(&err);
        CU_ASSERT_EQUAL_FATAL(tc_rt_blas_load(lib_names[l], 2, &b, &err), TC_OK);
        CU_ASSERT_PTR_NOT_NULL_FATAL(b->set_threads);
        CU_ASSERT_EQUAL(b->threads, 2);

        /* ask the library itself what it uses: loading leaves the
         * application's count (1 here), a bracket sets tcgen's and
         * restores it (blas.h) */
        void *p = dlsym(b->handle, l == 0 ? "openblas_get_num_threads"
                                          : "bli_thread_get_num_threads");
        CU_ASSERT_PTR_NOT_NULL_FATAL(p);
        int (*get)(void);
        memcpy(&get, &p, sizeof get);
        b->set_threads(1);
        tc_rt_blas_unload(b);
        CU_ASSERT_EQUAL_FATAL(tc_rt_blas_load(lib_names[l], 2, &b, &err), TC_OK);
        CU_ASSERT_EQUAL(get(), 1);
        int saved = tc_rt_blas_enter(b, b->threads);
        CU_ASSERT_EQUAL(saved, 1);
        CU_ASSERT_EQUAL(get(), 2);
        CU_ASSERT_EQUAL(tc_rt_blas_enter(b, b->threads), 0); /* nested: nothing to undo */

        /* a product large enough to be split across threads is still right */
        enum { N = 96 };
        static double a[N * N], x[N * N], c[N * N], want[N * N], scale[N * N];
        seed(40 + (uint64_t)l);
        fill(a, N * N);
        fill(x, N * N);
        for (int j = 0; j < N; j++)
            for (int i = 0; i < N; i++) {
                double s = 0, m = 0;
                for (int k = 0; k < N; k++) {
                    s += a[i + N * k] * x[k + N * j];
                    m += fabs(a[i + N * k] * x[k + N * j]);
                }
                want[i + N * j] = s;
                scale[i + N * j] = m;
            }
        if (!(TC_TEST_ASAN && l == 1)) {
            b->dgemm(TC_CBLAS_COL_MAJOR, TC_CBLAS_NO_TRANS, TC_CBLAS_NO_TRANS, N,
                     N, N, 1.0, a, N, x, N, 0.0, c, N);
            CU_ASSERT(all_near(c, want, scale, N * N));
        }

        tc_rt_blas_leave(b, saved);
        CU_ASSERT_EQUAL(get(), 1);
        b->dgemm(TC_CBLAS_COL_MAJOR, TC_CBLAS_NO_TRANS, TC_CBLAS_NO_TRANS, N, N,
                 N, 1.0, a, N, x, N, 0.0, c, N);
        CU_ASSERT(all_near(c, want, scale, N * N));
        tc_rt_blas_unload(b);
    }
}

static void test_load_bad_name(void)
{
    static const char *const bad[] = {
        "mkl", "", "/nonexistent/libcblas.so", "libnosuchblas.so.3",
        "./libnosuchblas.so"};
    for (size_t k = 0; k < sizeof bad / sizeof bad[0]; k++) {
        tc_blas *b = (tc_blas *)&b; /* must be reset to NULL */
        tc_error err;
        tc_error_clear(&err);
        CU_ASSERT_EQUAL(tc_rt_blas_load(bad[k], 1, &b, &err), TC_ERESOURCE);
        CU_ASSERT_PTR_NULL(b);
        CU_ASSERT_EQUAL(err.code, TC_ERESOURCE);
        char quoted[80];
        snprintf(quoted, sizeof quoted, "'%s'", bad[k]);
        CU_ASSERT(strstr(err.message, quoted) != NULL);
    }
}

/* A loadable library that is not a CBLAS: the message names symbol and library. */
static void test_load_missing_symbol(void)
{
    tc_blas *b = NULL;
    tc_error err;
    tc_error_clear(&err);
    CU_ASSERT_EQUAL(tc_rt_blas_load("libm.so.6", 1, &b, &err), TC_ERESOURCE);
    CU_ASSERT_PTR_NULL(b);
    CU_ASSERT(strstr(err.message, "cblas_ddot") != NULL);
    CU_ASSERT(strstr(err.message, "libm.so.6") != NULL);
}

static void test_load_bad_threads(void)
{
    static const int bad[] = {-1, -1000};
    for (size_t k = 0; k < sizeof bad / sizeof bad[0]; k++) {
        tc_blas *b = NULL;
        tc_error err;
        tc_error_clear(&err);
        CU_ASSERT_EQUAL(tc_rt_blas_load("openblas", bad[k], &b, &err), TC_EUSAGE);
        CU_ASSERT_PTR_NULL(b);
        CU_ASSERT_EQUAL(err.code, TC_EUSAGE);
        CU_ASSERT(strstr(err.message, "thread") != NULL);
    }
    /* a NULL error pointer is allowed */
    tc_blas *b = NULL;
    CU_ASSERT_EQUAL(tc_rt_blas_load("openblas", -1, &b, NULL), TC_EUSAGE);
    CU_ASSERT_PTR_NULL(b);
    tc_rt_blas_unload(NULL);
    /* 0: tcgen's calls run on the CPUs the process may use; loading sets
     * nothing. (No call is made here: more threads than one would crash
     * LeakSanitizer's tracer at exit under make test-asan.) */
    CU_ASSERT_EQUAL(tc_rt_blas_load("openblas", 0, &b, NULL), TC_OK);
    if (b)
        CU_ASSERT_EQUAL(b->threads, tc_rt_process_cpus());
    tc_rt_blas_unload(b);
}

/* An explicit path, and a library without a thread setter. */
static void test_load_path(void)
{
    tc_blas *b = NULL;
    tc_error err;
    tc_error_clear(&err);
    CU_ASSERT_FATAL(have_libs());
    /* the path that "blis" resolved to, given as a path */
    Dl_info info;
    void *p;
    memcpy(&p, &libs[1]->ddot, sizeof p);
    CU_ASSERT_FATAL(dladdr(p, &info) != 0 && info.dli_fname != NULL);
    CU_ASSERT_EQUAL_FATAL(tc_rt_blas_load(info.dli_fname, 1, &b, &err), TC_OK);
    const char *base = strrchr(info.dli_fname, '/');
    CU_ASSERT_STRING_EQUAL(b->name, base ? base + 1 : info.dli_fname);
    CU_ASSERT_STRING_EQUAL(b->path, info.dli_fname);
    CU_ASSERT_EQUAL(b->threads, 1);
    double x[3] = {1, 2, 3}, y[3] = {4, 5, 6};
    CU_ASSERT_DOUBLE_EQUAL(b->ddot(3, x, 1, y, 1), 32.0, 0.0);
    tc_rt_blas_unload(b);
}

static void test_load_env(void)
{
    const char *old = getenv("TCGEN_BLAS");
    char saved[256] = "";
    if (old)
        snprintf(saved, sizeof saved, "%s", old);
    tc_blas *b = NULL;
    tc_error err;
    tc_error_clear(&err);

    CU_ASSERT_FATAL(setenv("TCGEN_BLAS", "blis", 1) == 0);
    CU_ASSERT_EQUAL(tc_rt_blas_load(NULL, 1, &b, &err), TC_OK);
    if (b)
        CU_ASSERT_STRING_EQUAL(b->name, "blis");
    tc_rt_blas_unload(b);
    b = NULL;

    CU_ASSERT_FATAL(setenv("TCGEN_BLAS", "no-such-blas", 1) == 0);
    CU_ASSERT_EQUAL(tc_rt_blas_load(NULL, 1, &b, &err), TC_ERESOURCE);
    CU_ASSERT_PTR_NULL(b);
    CU_ASSERT(strstr(err.message, "no-such-blas") != NULL);

    CU_ASSERT_FATAL(unsetenv("TCGEN_BLAS") == 0);
    CU_ASSERT_EQUAL(tc_rt_blas_load(NULL, 1, &b, &err), TC_OK);
    if (b)
        CU_ASSERT_STRING_EQUAL(b->name, "openblas");
    tc_rt_blas_unload(b);

    if (old)
        setenv("TCGEN_BLAS", saved, 1);
}

/* ---- kernels, each library against hand-written loops ------------------ */

static void test_ddot(void)
{
    CU_ASSERT_FATAL(have_libs());
    enum { N = 13, INCX = 2, INCY = 3 };
    double x[N * INCX], y[N * INCY];
    seed(1);
    fill(x, N * INCX);
    fill(y, N * INCY);
    double want = 0, scale = 0;
    for (int k = 0; k < N; k++) {
        want += x[k * INCX] * y[k * INCY];
        scale += fabs(x[k * INCX] * y[k * INCY]);
    }
    for (int l = 0; l < NLIBS; l++) {
        CU_ASSERT(near(libs[l]->ddot(N, x, INCX, y, INCY), want, scale));
        CU_ASSERT(near(libs[l]->ddot(N, x, 1, y, 1), libs[l]->ddot(N, y, 1, x, 1), 1));
        CU_ASSERT_DOUBLE_EQUAL(libs[l]->ddot(0, x, 1, y, 1), 0.0, 0.0);
    }
}

static void test_daxpy(void)
{
    CU_ASSERT_FATAL(have_libs());
    enum { N = 11, INCX = 3, INCY = 2 };
    double x[N * INCX], y0[N * INCY], y[N * INCY], want[N * INCY];
    seed(2);
    fill(x, N * INCX);
    fill(y0, N * INCY);
    const double alpha = -0.75;
    memcpy(want, y0, sizeof want);
    for (int k = 0; k < N; k++)
        want[k * INCY] += alpha * x[k * INCX];
    for (int l = 0; l < NLIBS; l++) {
        memcpy(y, y0, sizeof y);
        libs[l]->daxpy(N, alpha, x, INCX, y, INCY);
        CU_ASSERT(all_near(y, want, NULL, N * INCY)); /* gaps untouched too */
    }
}

static void test_dgemv(void)
{
    CU_ASSERT_FATAL(have_libs());
    enum { M = 7, N = 5, LDA = 9, INCX = 2, INCY = 3 };
    double a[LDA * N], x[M * INCX], y0[M * INCY], y[M * INCY], want[M * INCY],
        scale[M * INCY];
    const double alpha = 1.5, beta = -0.5;
    for (int trans = 0; trans < 2; trans++) {
        int rows = trans ? N : M, cols = trans ? M : N; /* of op(A) */
        seed(3 + (uint64_t)trans);
        fill(a, LDA * N);
        fill(x, M * INCX);
        fill(y0, M * INCY);
        memcpy(want, y0, sizeof want);
        for (int k = 0; k < M * INCY; k++)
            scale[k] = 1;
        for (int i = 0; i < rows; i++) {
            double s = 0, m = 0;
            for (int j = 0; j < cols; j++) {
                double aij = trans ? a[j + LDA * i] : a[i + LDA * j];
                s += aij * x[j * INCX];
                m += fabs(aij * x[j * INCX]);
            }
            want[i * INCY] = alpha * s + beta * y0[i * INCY];
            scale[i * INCY] = fabs(alpha) * m + fabs(beta * y0[i * INCY]);
        }
        for (int l = 0; l < NLIBS; l++) {
            memcpy(y, y0, sizeof y);
            libs[l]->dgemv(TC_CBLAS_COL_MAJOR, trans ? TC_CBLAS_TRANS : TC_CBLAS_NO_TRANS,
                           M, N, alpha, a, LDA, x, INCX, beta, y, INCY);
            CU_ASSERT(all_near(y, want, scale, M * INCY));
        }
    }
}

static void test_dger(void)
{
    CU_ASSERT_FATAL(have_libs());
    enum { M = 6, N = 4, LDA = 8, INCX = 2, INCY = 3 };
    double a0[LDA * N], a[LDA * N], want[LDA * N], x[M * INCX], y[N * INCY];
    const double alpha = 0.25;
    seed(5);
    fill(a0, LDA * N);
    fill(x, M * INCX);
    fill(y, N * INCY);
    memcpy(want, a0, sizeof want);
    for (int j = 0; j < N; j++)
        for (int i = 0; i < M; i++)
            want[i + LDA * j] += alpha * x[i * INCX] * y[j * INCY];
    for (int l = 0; l < NLIBS; l++) {
        memcpy(a, a0, sizeof a);
        libs[l]->dger(TC_CBLAS_COL_MAJOR, M, N, alpha, x, INCX, y, INCY, a, LDA);
        CU_ASSERT(all_near(a, want, NULL, LDA * N)); /* padding rows untouched */
    }
}

static void test_dgemm(void)
{
    CU_ASSERT_FATAL(have_libs());
    enum { M = 5, N = 6, K = 7, LDA = 9, LDB = 10, LDC = 8 };
    /* A is M x K (LDA x K) or K x M (LDA x M); B is K x N or N x K */
    double a[LDA * 9], b[LDB * 9], c0[LDC * N], c[LDC * N], want[LDC * N],
        scale[LDC * N];
    const double alpha = -1.25, beta = 0.5;
    for (int ta = 0; ta < 2; ta++)
        for (int tb = 0; tb < 2; tb++) {
            seed(10 + 2 * (uint64_t)ta + (uint64_t)tb);
            fill(a, LDA * 9);
            fill(b, LDB * 9);
            fill(c0, LDC * N);
            memcpy(want, c0, sizeof want);
            for (int k = 0; k < LDC * N; k++)
                scale[k] = 1;
            for (int j = 0; j < N; j++)
                for (int i = 0; i < M; i++) {
                    double s = 0, m = 0;
                    for (int p = 0; p < K; p++) {
                        double aip = ta ? a[p + LDA * i] : a[i + LDA * p];
                        double bpj = tb ? b[j + LDB * p] : b[p + LDB * j];
                        s += aip * bpj;
                        m += fabs(aip * bpj);
                    }
                    want[i + LDC * j] = alpha * s + beta * c0[i + LDC * j];
                    scale[i + LDC * j] = fabs(alpha) * m + fabs(beta * c0[i + LDC * j]);
                }
            for (int l = 0; l < NLIBS; l++) {
                memcpy(c, c0, sizeof c);
                libs[l]->dgemm(TC_CBLAS_COL_MAJOR, ta ? TC_CBLAS_TRANS : TC_CBLAS_NO_TRANS,
                               tb ? TC_CBLAS_TRANS : TC_CBLAS_NO_TRANS, M, N, K, alpha,
                               a, LDA, b, LDB, beta, c, LDC);
                CU_ASSERT(all_near(c, want, scale, LDC * N));
            }
        }
}

static void test_dcopy_dscal(void)
{
    CU_ASSERT_FATAL(have_libs());
    enum { N = 9, INCX = 3, INCY = 2 };
    double x[N * INCX], y[N * INCY], want[N * INCY], z0[N * INCX], z[N * INCX],
        zwant[N * INCX];
    seed(20);
    fill(x, N * INCX);
    fill(z0, N * INCX);
    for (int k = 0; k < N * INCY; k++)
        want[k] = 42.0;
    for (int k = 0; k < N; k++)
        want[k * INCY] = x[k * INCX];
    memcpy(zwant, z0, sizeof zwant);
    for (int k = 0; k < N; k++)
        zwant[k * INCX] *= -3.5;
    for (int l = 0; l < NLIBS; l++) {
        for (int k = 0; k < N * INCY; k++)
            y[k] = 42.0;
        libs[l]->dcopy(N, x, INCX, y, INCY);
        CU_ASSERT(memcmp(y, want, sizeof y) == 0);
        memcpy(z, z0, sizeof z);
        libs[l]->dscal(N, -3.5, z, INCX);
        CU_ASSERT(all_near(z, zwant, NULL, N * INCX));
    }
}

/* ---- memory ----------------------------------------------------------- */

static void test_alloc_aligned(void)
{
    static const int64_t counts[] = {0, 1, 3, 8, 1000, 12345};
    for (size_t k = 0; k < sizeof counts / sizeof counts[0]; k++) {
        tc_error err;
        tc_error_clear(&err);
        double *p = tc_rt_alloc(counts[k], &err);
        CU_ASSERT_PTR_NOT_NULL_FATAL(p);
        CU_ASSERT_EQUAL((uintptr_t)p % TC_ALIGN, 0);
        CU_ASSERT_EQUAL(err.code, TC_OK);
        int64_t n = counts[k] ? counts[k] : 1;
        for (int64_t i = 0; i < n; i++) /* all of it is writable */
            p[i] = (double)i;
        CU_ASSERT_DOUBLE_EQUAL(p[n - 1], (double)(n - 1), 0.0);
        tc_rt_free(p);
    }
    tc_rt_free(NULL);
}

/* A large block is the system's own mapping: each new one starts with no
 * page faulted in, whatever the blocks before it left (a heap block kept
 * the pages, and page size, of the one freed before it); huge blocks are
 * aligned to a huge page. */
static void test_alloc_large_fresh(void)
{
    const int64_t n = 2 * TC_HUGE_MIN / (int64_t)sizeof(double);
    for (int round = 0; round < 3; round++) {
        tc_pages pages = round == 1 ? TC_PAGES_AUTO : TC_PAGES_SMALL;
        double *p = tc_rt_alloc_pages(n, pages, NULL);
        CU_ASSERT_PTR_NOT_NULL_FATAL(p);
        if (pages == TC_PAGES_AUTO)
            CU_ASSERT_EQUAL((uintptr_t)p % TC_HUGE_PAGE, 0);
        CU_ASSERT_EQUAL(tc_rt_resident_bytes(p, n), 0);
        memset(p, 1, (size_t)n * sizeof *p);
        CU_ASSERT_EQUAL(tc_rt_resident_bytes(p, n), n * (int64_t)sizeof *p);
        tc_rt_free(p);
    }
}

static void test_alloc_refused(void)
{
    static const int64_t bad[] = {INT64_MAX / 4, INT64_MAX / 8 + 1, INT64_MAX, -1,
                                  INT64_MIN};
    for (size_t k = 0; k < sizeof bad / sizeof bad[0]; k++) {
        tc_error err;
        tc_error_clear(&err);
        double *p = tc_rt_alloc(bad[k], &err);
        CU_ASSERT_PTR_NULL(p);
        tc_rt_free(p);
        CU_ASSERT_EQUAL(err.code, TC_ERESOURCE);
        char num[32];
        snprintf(num, sizeof num, "%lld", (long long)bad[k]);
        CU_ASSERT(strstr(err.message, num) != NULL);
    }
    CU_ASSERT_PTR_NULL(tc_rt_alloc(-5, NULL));
}

/* ---- reference contraction -------------------------------------------- */

/*
 * Builds "C[cs] = alpha * A[as] * B[bs]" from one-letter index strings and
 * gives index x the size sizes[x - 'a'] (letters a..z). Roles and strides
 * come from the ast/ functions.
 */
static tc_contraction make(const char *cs, const char *as, const char *bs,
                           const int sizes[26], double alpha, double beta)
{
    tc_contraction c;
    memset(&c, 0, sizeof c);
    const char *spec[3] = {cs, as, bs};
    const char *names[3] = {"C", "A", "B"};
    for (int t = 0; t < 3; t++) {
        strcpy(c.tensor[t].name, names[t]);
        c.tensor[t].rank = (int)strlen(spec[t]);
        for (int k = 0; spec[t][k]; k++) {
            char nm[2] = {spec[t][k], '\0'};
            int i = tc_contraction_find_index(&c, nm);
            if (i < 0) {
                i = c.nindex++;
                strcpy(c.index[i].name, nm);
            }
            c.tensor[t].index[k] = i;
        }
    }
    c.alpha = alpha;
    c.beta = beta;
    tc_sizes sz;
    memset(&sz, 0, sizeof sz);
    for (int i = 0; i < c.nindex; i++) {
        strcpy(sz.entry[sz.count].name, c.index[i].name);
        sz.entry[sz.count++].size = sizes[c.index[i].name[0] - 'a'];
    }
    tc_error err;
    CU_ASSERT_EQUAL(tc_contraction_validate(&c, &err), TC_OK);
    CU_ASSERT_EQUAL(tc_contraction_set_sizes(&c, &sz, &c, &err, NULL), TC_OK);
    return c;
}

/* C[a,b] += 0.5 * A[a,i] * B[i,b], values worked out by hand. */
static void test_ref_matmul_literal(void)
{
    int sizes[26] = {0};
    sizes['a' - 'a'] = 2;
    sizes['b' - 'a'] = 2;
    sizes['i' - 'a'] = 3;
    tc_contraction c = make("ab", "ai", "ib", sizes, 0.5, 1.0);
    CU_ASSERT_EQUAL(c.index[tc_contraction_find_index(&c, "i")].role,
                    TC_ROLE_CONTRACTED);
    /* column-major: A = [1 3 5; 2 4 6], B = [1 4; 2 5; 3 6] */
    const double A[6] = {1, 2, 3, 4, 5, 6};
    const double B[6] = {1, 2, 3, 4, 5, 6};
    double C[4] = {10, 20, 30, 40};
    /* A*B = [22 49; 28 64] */
    const double want[4] = {0.5 * 22 + 10, 0.5 * 28 + 20, 0.5 * 49 + 30,
                            0.5 * 64 + 40};
    tc_rt_reference(&c, A, B, C);
    CU_ASSERT(all_near(C, want, NULL, 4));
}

/* C[a,b] = 0.5 * A[a,i] * B[i,b] + C on random data against explicit loops. */
static void test_ref_matmul_random(void)
{
    enum { NA = 4, NB = 3, NI = 5 };
    int sizes[26] = {0};
    sizes['a' - 'a'] = NA;
    sizes['b' - 'a'] = NB;
    sizes['i' - 'a'] = NI;
    tc_contraction c = make("ab", "ai", "ib", sizes, 0.5, 1.0);
    double A[NA * NI], B[NI * NB], C[NA * NB], want[NA * NB];
    seed(30);
    fill(A, NA * NI);
    fill(B, NI * NB);
    fill(C, NA * NB);
    for (int b = 0; b < NB; b++)
        for (int a = 0; a < NA; a++) {
            double s = 0;
            for (int i = 0; i < NI; i++)
                s += A[a + NA * i] * B[i + NI * b];
            want[a + NA * b] = 0.5 * s + C[a + NA * b];
        }
    tc_rt_reference(&c, A, B, C);
    CU_ASSERT(all_near(C, want, NULL, NA * NB));
}

/* C[] = A[i] * B[i]: a scalar output. */
static void test_ref_scalar(void)
{
    int sizes[26] = {0};
    sizes['i' - 'a'] = 4;
    tc_contraction c = make("", "i", "i", sizes, 1.0, 0.0);
    CU_ASSERT_EQUAL(c.tensor[TC_C].rank, 0);
    CU_ASSERT_EQUAL(c.tensor[TC_C].elements, 1);
    const double A[4] = {1, 2, 3, 4}, B[4] = {5, -6, 7, 0.5};
    double C[1] = {99};
    tc_rt_reference(&c, A, B, C);
    CU_ASSERT_DOUBLE_EQUAL(C[0], 5 - 12 + 21 + 2, 0.0);

    /* C[] += 2 * A[i] * B[i] */
    c.alpha = 2.0;
    c.beta = 1.0;
    tc_rt_reference(&c, A, B, C);
    CU_ASSERT_DOUBLE_EQUAL(C[0], 16 + 2 * 16, 0.0);
}

/* C[a,z] = A[a,i,z] * B[i,z]: z is a batch index. */
static void test_ref_batch(void)
{
    enum { NA = 3, NI = 4, NZ = 2 };
    int sizes[26] = {0};
    sizes['a' - 'a'] = NA;
    sizes['i' - 'a'] = NI;
    sizes['z' - 'a'] = NZ;
    tc_contraction c = make("az", "aiz", "iz", sizes, 1.0, 0.0);
    CU_ASSERT_EQUAL(c.index[tc_contraction_find_index(&c, "z")].role, TC_ROLE_BATCH);
    double A[NA * NI * NZ], B[NI * NZ], C[NA * NZ], want[NA * NZ];
    for (int k = 0; k < NA * NI * NZ; k++)
        A[k] = k + 1;
    for (int k = 0; k < NI * NZ; k++)
        B[k] = k % 3 - 1;
    for (int z = 0; z < NZ; z++)
        for (int a = 0; a < NA; a++) {
            double s = 0;
            for (int i = 0; i < NI; i++)
                s += A[a + NA * i + NA * NI * z] * B[i + NI * z];
            want[a + NA * z] = s;
        }
    /* one value by hand: C[0,1] = A[0,i,1] . B[i,1] = 13*0 + 16*1 + 19*(-1) + 22*0 */
    CU_ASSERT_DOUBLE_EQUAL(want[0 + NA * 1], -3.0, 0.0);
    for (int k = 0; k < NA * NZ; k++)
        C[k] = 1e300;
    tc_rt_reference(&c, A, B, C);
    CU_ASSERT(all_near(C, want, NULL, NA * NZ));
}

/* C[a,b,c] = A[i,j,a] * B[j,b,i,c]: permuted layouts, two contracted indices. */
static void test_ref_permuted(void)
{
    enum { NA = 3, NB = 2, NC = 4, NI = 2, NJ = 3 };
    int sizes[26] = {0};
    sizes['a' - 'a'] = NA;
    sizes['b' - 'a'] = NB;
    sizes['c' - 'a'] = NC;
    sizes['i' - 'a'] = NI;
    sizes['j' - 'a'] = NJ;
    tc_contraction c = make("abc", "ija", "jbic", sizes, -2.0, 0.25);
    double A[NI * NJ * NA], B[NJ * NB * NI * NC], C[NA * NB * NC], want[NA * NB * NC];
    seed(31);
    fill(A, NI * NJ * NA);
    fill(B, NJ * NB * NI * NC);
    fill(C, NA * NB * NC);
    for (int cc = 0; cc < NC; cc++)
        for (int b = 0; b < NB; b++)
            for (int a = 0; a < NA; a++) {
                double s = 0;
                for (int i = 0; i < NI; i++)
                    for (int j = 0; j < NJ; j++)
                        s += A[i + NI * j + NI * NJ * a] *
                             B[j + NJ * b + NJ * NB * i + NJ * NB * NI * cc];
                int o = a + NA * b + NA * NB * cc;
                want[o] = -2.0 * s + 0.25 * C[o];
            }
    tc_rt_reference(&c, A, B, C);
    CU_ASSERT(all_near(C, want, NULL, NA * NB * NC));
}

/* beta = 0 overwrites C, even NaN and infinity. */
static void test_ref_beta0_nan(void)
{
    int sizes[26] = {0};
    sizes['a' - 'a'] = 2;
    sizes['b' - 'a'] = 2;
    sizes['i' - 'a'] = 2;
    tc_contraction c = make("ab", "ai", "ib", sizes, 1.0, 0.0);
    const double A[4] = {1, 2, 3, 4}, B[4] = {1, 0, 0, 1}; /* B = identity */
    double C[4] = {NAN, INFINITY, -NAN, NAN};
    tc_rt_reference(&c, A, B, C);
    CU_ASSERT(all_near(C, A, NULL, 4));
}

/* ---- registration ----------------------------------------------------- */

int tc_suite_runtime(void)
{
    static const struct {
        const char *name;
        void (*fn)(void);
    } tests[] = {
        {"blas: openblas and blis loaded together", test_load_both},
        {"blas: thread count 2 then 1", test_load_threads},
        {"blas: unknown name or path", test_load_bad_name},
        {"blas: library without cblas symbols", test_load_missing_symbol},
        {"blas: thread count below 1", test_load_bad_threads},
        {"blas: explicit path", test_load_path},
        {"blas: TCGEN_BLAS", test_load_env},
        {"blas: ddot", test_ddot},
        {"blas: daxpy", test_daxpy},
        {"blas: dgemv N and T", test_dgemv},
        {"blas: dger", test_dger},
        {"blas: dgemm NN TN NT TT", test_dgemm},
        {"blas: dcopy and dscal", test_dcopy_dscal},
        {"alloc: aligned, count 0", test_alloc_aligned},
        {"alloc: a large block is a fresh mapping", test_alloc_large_fresh},
        {"alloc: overflow and negative refused", test_alloc_refused},
        {"reference: matmul by hand", test_ref_matmul_literal},
        {"reference: matmul alpha 0.5 beta 1", test_ref_matmul_random},
        {"reference: scalar output", test_ref_scalar},
        {"reference: batch index", test_ref_batch},
        {"reference: permuted layouts", test_ref_permuted},
        {"reference: beta 0 overwrites NaN", test_ref_beta0_nan},
    };
    CU_pSuite s = CU_add_suite("runtime", suite_init, suite_clean);
    if (!s)
        return 1;
    for (size_t k = 0; k < sizeof tests / sizeof tests[0]; k++)
        if (!CU_add_test(s, tests[k].name, tests[k].fn))
            return 1;
    return 0;
}
