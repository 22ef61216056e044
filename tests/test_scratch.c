/*
 * test_scratch.c - the executor's temporaries come back from the scratch
 * cache (runtime/scratch.h): take/give reuse blocks, the cache stays within
 * its bounds, and executing an algorithm with temporaries twice leaves the
 * same blocks cached instead of allocating new ones.
 */
#include <CUnit/CUnit.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "generator/generator.h"
#include "parser/parser.h"
#include "runtime/blas.h"
#include "runtime/execute.h"
#include "runtime/memory.h"
#include "runtime/reference.h"
#include "runtime/scratch.h"

static void test_take_give(void)
{
    tc_rt_scratch_release();
    double *a = tc_rt_scratch_take(1000, NULL);
    CU_ASSERT_PTR_NOT_NULL_FATAL(a);
    CU_ASSERT_EQUAL((uintptr_t)a % TC_ALIGN, 0);
    tc_rt_scratch_give(a, 1000);
    int64_t bytes = 0;
    CU_ASSERT_EQUAL(tc_rt_scratch_cached(&bytes), 1);
    CU_ASSERT_EQUAL(bytes, 8000);
    /* a smaller request reuses the block; a larger one cannot */
    double *b = tc_rt_scratch_take(500, NULL);
    CU_ASSERT_PTR_EQUAL(b, a);
    CU_ASSERT_EQUAL(tc_rt_scratch_cached(NULL), 0);
    tc_rt_scratch_give(b, 1000);
    double *c = tc_rt_scratch_take(2000, NULL);
    CU_ASSERT_PTR_NOT_EQUAL(c, a);
    tc_rt_scratch_give(c, 2000);
    /* the smallest block that is large enough is taken */
    CU_ASSERT_PTR_EQUAL(tc_rt_scratch_take(900, NULL), a);
    tc_rt_scratch_give(a, 1000);
    /* bounded: slots, then bytes */
    double *many[TC_SCRATCH_SLOTS + 2];
    for (int i = 0; i < TC_SCRATCH_SLOTS + 2; i++)
        many[i] = tc_rt_scratch_take(3000 + i, NULL);
    for (int i = 0; i < TC_SCRATCH_SLOTS + 2; i++)
        tc_rt_scratch_give(many[i], 3000 + i);
    CU_ASSERT_EQUAL(tc_rt_scratch_cached(NULL), TC_SCRATCH_SLOTS);
    tc_rt_scratch_release();
    int64_t big = TC_SCRATCH_MAX_BYTES / 8 + 1;
    double *huge = tc_rt_scratch_take(big, NULL);
    if (huge) { /* more than the cache may hold: freed, not kept */
        tc_rt_scratch_give(huge, big);
        CU_ASSERT_EQUAL(tc_rt_scratch_cached(&bytes), 0);
    }
    CU_ASSERT_EQUAL(tc_rt_scratch_cached(&bytes), 0);
    CU_ASSERT_EQUAL(bytes, 0);
}

static void test_executor_reuses(void)
{
    tc_blas *blas = NULL;
    tc_error e;
    if (tc_rt_blas_load("openblas", 1, &blas, &e) != TC_OK) {
        CU_FAIL("cannot load OpenBLAS");
        return;
    }
    tc_contraction c;
    tc_sizes sz;
    memset(&sz, 0, sizeof sz);
    CU_ASSERT_FATAL(tc_parse("C[a,b,c,d] = A[a,e,b,f] * B[d,f,c,e]", &c, &e) == TC_OK);
    CU_ASSERT_FATAL(tc_parse_sizes("a=3,b=4,c=5,d=2,e=3,f=2", 1, &sz, &e) == TC_OK);
    CU_ASSERT_FATAL(tc_contraction_set_sizes(&c, &sz, &c, &e, NULL) == TC_OK);
    tc_algorithm_set *set = NULL;
    CU_ASSERT_FATAL(tc_gen_enumerate_families(&c, 1u << TC_KERNEL_DGEMM,
                                              1u << TC_FAMILY_PERMUTED, &set, &e) == TC_OK);
    const tc_algorithm *alg = tc_alg_set_find(set, "A^B^C^-dgemm");
    CU_ASSERT_PTR_NOT_NULL_FATAL(alg);
    int64_t na = c.tensor[TC_A].elements, nb = c.tensor[TC_B].elements,
            nc = c.tensor[TC_C].elements;
    double *A = tc_rt_alloc(na, NULL), *B = tc_rt_alloc(nb, NULL), *C = tc_rt_alloc(nc, NULL),
           *R = tc_rt_alloc(nc, NULL);
    memset(C, 0, (size_t)nc * sizeof *C);
    memset(R, 0, (size_t)nc * sizeof *R);
    for (int64_t i = 0; i < na; i++)
        A[i] = (double)(i % 7) - 3.0;
    for (int64_t i = 0; i < nb; i++)
        B[i] = (double)(i % 5) - 2.0;
    tc_rt_scratch_release();
    int64_t first = 0, second = 0;
    for (int run = 0; run < 2; run++) {
        CU_ASSERT_EQUAL(tc_rt_execute(blas, alg, &c, A, B, C, &e), TC_OK);
        CU_ASSERT_EQUAL(tc_rt_scratch_cached(run ? &second : &first), alg->ntemps);
    }
    CU_ASSERT_EQUAL(alg->ntemps, 3);
    CU_ASSERT_EQUAL(first, second); /* the same blocks, not new ones */
    tc_rt_reference(&c, A, B, R);
    for (int64_t i = 0; i < nc; i++)
        CU_ASSERT_DOUBLE_EQUAL(C[i], R[i], 1e-12);
    tc_rt_scratch_release();
    tc_rt_free(A);
    tc_rt_free(B);
    tc_rt_free(C);
    tc_rt_free(R);
    tc_alg_set_free(set);
    tc_rt_blas_unload(blas);
}

int tc_suite_scratch(void)
{
    CU_pSuite s = CU_add_suite("scratch", NULL, NULL);
    if (!s || !CU_add_test(s, "take and give: reuse, bounds", test_take_give) ||
        !CU_add_test(s, "the executor reuses its temporaries", test_executor_reuses))
        return 1;
    return 0;
}
