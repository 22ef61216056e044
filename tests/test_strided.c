/*
 * test_strided.c - contractions over strided views (tc_contraction_set_strides:
 * tiles of larger arrays, gaps between columns): every algorithm of every
 * corpus contraction (and its loops split over 2 threads) executed in
 * place on such views with OpenBLAS,
 * compared with the naive reference on the same views (1e-12 relative),
 * the gaps never written; dimensions fused only where every tensor holding
 * them is contiguous; the strides refused and the span.
 */
#include <CUnit/CUnit.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "generator/generator.h"
#include "runtime/blas.h"
#include "runtime/execute.h"
#include "runtime/memory.h"
#include "runtime/reference.h"
#include "tests/helpers_corpus.h"

#define GAP_VALUE 12345.0 /* what the gaps hold, before and after */

static tc_blas *blas;

static int suite_init(void)
{
    tc_error e;
    return tc_rt_blas_load("openblas", 1, &blas, &e) == TC_OK ? 0 : -1;
}

static int suite_clean(void)
{
    tc_rt_blas_unload(blas);
    return 0;
}

/* Calls f on the offset of every element of tensor t's view. */
static void each_element(const tc_contraction *c, int t, void (*f)(double *, int64_t, void *),
                         double *x, void *data)
{
    const tc_tensor *v = &c->tensor[t];
    int64_t ix[TC_MAX_RANK] = {0}, off = 0;
    for (int64_t e = 0; e < v->elements; e++) {
        f(x, off, data);
        for (int k = 0; k < v->rank; k++) {
            off += v->stride[k];
            if (++ix[k] < c->index[v->index[k]].size)
                break;
            off -= ix[k] * v->stride[k];
            ix[k] = 0;
        }
    }
}

static void fill_one(double *x, int64_t off, void *state)
{
    tc_corpus_fill(x + off, 1, state);
}

static void set_nan(double *x, int64_t off, void *data)
{
    (void)data;
    x[off] = NAN;
}

static void set_zero(double *x, int64_t off, void *data)
{
    (void)data;
    x[off] = 0.0;
}

/* A tensor's span: the gaps GAP_VALUE, the view's elements random. */
static double *view_new(const tc_contraction *c, int t, uint64_t *state)
{
    int64_t n = c->tensor[t].span;
    double *x = tc_rt_alloc(n, NULL);
    if (!x)
        return NULL;
    for (int64_t k = 0; k < n; k++)
        x[k] = GAP_VALUE;
    each_element(c, t, fill_one, x, state);
    return x;
}

/* Every algorithm of the strided *c executed on its views, and every loop
 * of them split over 2 threads (tc_gen_add_threaded); the failures. */
static int check_strided(const tc_contraction *c, const char *text, uint64_t seed, int *nrun)
{
    tc_algorithm_set *set = NULL;
    tc_error e;
    if (tc_gen_enumerate_families(c, TC_KERNEL_MASK_ALL, TC_FAMILY_MASK_ALL, &set, &e) != TC_OK ||
        tc_gen_add_threaded(set, c, 2, &e) != TC_OK) {
        tc_alg_set_free(set);
        fprintf(stderr, "\n  %s: %s\n", text, e.message);
        return 1;
    }
    uint64_t state = seed;
    int64_t nc = c->tensor[TC_C].span;
    double *A = view_new(c, TC_A, &state), *B = view_new(c, TC_B, &state),
           *C0 = view_new(c, TC_C, &state), *want = tc_rt_alloc(nc, NULL),
           *got = tc_rt_alloc(nc, NULL);
    int bad = !A || !B || !C0 || !want || !got;
    if (!bad) {
        if (c->beta == 0.0) /* garbage that must not survive */
            each_element(c, TC_C, set_nan, C0, NULL);
        memcpy(want, C0, (size_t)nc * sizeof *want);
        if (c->beta == 0.0)
            each_element(c, TC_C, set_zero, want, NULL);
        tc_rt_reference(c, A, B, want);
    }
    for (int i = 0; !bad && i < set->count; i++) {
        const tc_algorithm *alg = set->alg[i];
        memcpy(got, C0, (size_t)nc * sizeof *got);
        tc_status s = tc_rt_execute(blas, alg, c, A, B, got, &e);
        double err = s == TC_OK ? tc_corpus_relerr(got, want, nc) : INFINITY;
        (*nrun)++;
        if (!(err <= 1e-12)) { /* a gap written differs by about GAP_VALUE */
            fprintf(stderr, "\n  %s, strided: %s: %s (relative error %g)\n", text, alg->name,
                    s == TC_OK ? "wrong result" : e.message, err);
            bad++;
        }
    }
    tc_rt_free(A);
    tc_rt_free(B);
    tc_rt_free(C0);
    tc_rt_free(want);
    tc_rt_free(got);
    tc_alg_set_free(set);
    return bad;
}

static void test_corpus(void)
{
    tc_corpus_entry *corpus;
    int n = tc_corpus_require(&corpus), runs = 0;
    for (int i = 0; i < n; i++) {
        tc_contraction s;
        tc_error e;
        CU_ASSERT_EQUAL_FATAL(tc_corpus_with_gaps(&corpus[i].c, &s, &e), 0);
        int gaps = 0; /* an index after the first, of size 2 or more */
        for (int t = TC_C; t <= TC_B; t++)
            for (int k = 1; k < s.tensor[t].rank; k++)
                gaps |= s.index[s.tensor[t].index[k]].size > 1;
        CU_ASSERT_EQUAL(tc_contraction_strided(&s), gaps);
        CU_ASSERT_EQUAL(check_strided(&s, corpus[i].text, 5000 + (uint64_t)i, &runs), 0);
    }
    CU_ASSERT(runs > 2500);
    fprintf(stderr, "[%d contractions, %d strided executions]\n", n, runs);
}

/* The number of algorithms of c whose name holds `group`. */
static int named_with(const tc_contraction *c, const char *group)
{
    tc_algorithm_set *set = NULL;
    tc_error e;
    int n = 0;
    if (tc_gen_enumerate_families(c, TC_KERNEL_MASK_ALL, TC_FAMILY_MASK_ALL, &set, &e) != TC_OK)
        return -1;
    for (int i = 0; i < set->count; i++)
        n += strstr(set->alg[i]->name, group) != NULL;
    tc_alg_set_free(set);
    return n;
}

/* b and c fuse into (bc) where B and C hold them contiguously; a gap
 * between them in B leaves them apart. */
static void test_fused_contiguous(void)
{
    tc_contraction c, s;
    tc_error e;
    CU_ASSERT_EQUAL_FATAL(tc_corpus_parse("C[a,b,c] = A[a,i] * B[i,b,c]", "a=6,b=5,c=4,i=3",
                                          &c, NULL, 0), 0);
    CU_ASSERT(named_with(&c, "(bc)") > 0);
    s = c;
    CU_ASSERT_EQUAL_FATAL(tc_contraction_set_strides(&s, TC_B, (int64_t[]){1, 3, 17}, &e), TC_OK);
    CU_ASSERT_EQUAL(named_with(&s, "(bc)"), 0);
    s = c; /* a gap before b alone keeps (bc) */
    CU_ASSERT_EQUAL_FATAL(tc_contraction_set_strides(&s, TC_B, (int64_t[]){1, 4, 20}, &e), TC_OK);
    CU_ASSERT(named_with(&s, "(bc)") > 0);
}

static void test_refused(void)
{
    tc_contraction c, s;
    tc_error e;
    CU_ASSERT_EQUAL_FATAL(tc_corpus_parse("C[a,b] = A[a,i] * B[i,b]", "a=6,b=5,i=3", &c, NULL, 0),
                          0);
    s = c;
    CU_ASSERT_EQUAL(tc_contraction_set_strides(&s, TC_A, (int64_t[]){2, 12}, &e), TC_EINPUT);
    CU_ASSERT(strstr(e.message, "index 'a' of A") != NULL);
    CU_ASSERT_EQUAL(tc_contraction_set_strides(&s, TC_A, (int64_t[]){1, 5}, &e), TC_EINPUT);
    CU_ASSERT(strstr(e.message, "index 'i' of A has stride 5") != NULL);
    CU_ASSERT_EQUAL(tc_contraction_set_strides(&s, TC_A, (int64_t[]){1, INT64_MAX / 2}, &e),
                    TC_EINPUT);
    CU_ASSERT(strstr(e.message, "overflows") != NULL);
    CU_ASSERT(!tc_contraction_strided(&s)); /* refused strides change nothing */
    CU_ASSERT_EQUAL(tc_contraction_set_strides(&s, TC_A, (int64_t[]){1, 6}, &e), TC_OK);
    CU_ASSERT(!tc_contraction_strided(&s)); /* the dense ones */
    CU_ASSERT_EQUAL(tc_contraction_set_strides(&s, TC_A, (int64_t[]){1, 10}, &e), TC_OK);
    CU_ASSERT(tc_contraction_strided(&s));
    CU_ASSERT_EQUAL(s.tensor[TC_A].span, 1 + 5 + 2 * 10);
    CU_ASSERT_EQUAL(s.tensor[TC_A].elements, 18);
    CU_ASSERT_EQUAL(tc_tensor_bytes(&s, TC_A), 26 * 8);
}

int tc_suite_strided(void)
{
    CU_pSuite s = CU_add_suite("strided", suite_init, suite_clean);
    return !s ||
           !CU_add_test(s, "every algorithm of the corpus on tiles with gaps, in place",
                        test_corpus) ||
           !CU_add_test(s, "dimensions fused only where contiguous", test_fused_contiguous) ||
           !CU_add_test(s, "strides refused, span", test_refused);
}
