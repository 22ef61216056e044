/*
 * test_workspace.c - the workspace budget (include/tcgen.h, docs/design.md
 * §8): with none, every corpus contraction plans without temporaries and
 * runs right; within a budget no choice exceeds it; $TCGEN_WORKSPACE is
 * read and a bad one refused; a remembered decision over the budget is
 * not used; tc_release_workspace empties the executor's cache.
 */
#include <CUnit/CUnit.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "runtime/scratch.h"
#include "tcgen.h"
#include "tests/helpers_corpus.h"
#include "tests/helpers_plan.h"

/* Plans entry e of the corpus within `budget` bytes (from
 * $TCGEN_WORKSPACE when env, else tc_plan_create_within) and checks the
 * plan's workspace and its result. */
static void plan_within(const tc_corpus_entry *e, size_t budget, int env)
{
    tc_error err;
    char value[32];
    snprintf(value, sizeof value, "%zu", budget);
    if (env)
        setenv("TCGEN_WORKSPACE", value, 1);
    tc_plan *p = env ? tc_plan_create(e->text, e->sizes, TC_ESTIMATE, &err)
                     : tc_plan_create_within(e->text, e->sizes, TC_ESTIMATE, budget, &err);
    unsetenv("TCGEN_WORKSPACE");
    CU_ASSERT_PTR_NOT_NULL(p);
    if (!p) {
        fprintf(stderr, "\n  %s ; %s within %zu bytes: %s\n", e->text, e->sizes, budget,
                err.message);
        return;
    }
    CU_ASSERT(tc_plan_workspace_bytes(p) <= budget);
    double rel = tc_test_exec_vs_reference(p, e->text, e->sizes, 7);
    CU_ASSERT(rel < 1e-12);
    if (!(rel < 1e-12) || tc_plan_workspace_bytes(p) > budget)
        fprintf(stderr, "\n  %s ; %s: %s, %zu bytes, error %g\n", e->text, e->sizes,
                tc_plan_algorithm(p), tc_plan_workspace_bytes(p), rel);
    tc_plan_destroy(p);
}

static void test_no_temporaries(void)
{
    tc_corpus_entry *corpus;
    int n = tc_corpus_require(&corpus);
    tc_wisdom_forget(); /* each ranked within the budget, none from wisdom */
    for (int k = 0; k < n; k++)
        plan_within(&corpus[k], 0, 1);
}

static void test_budget(void)
{
    tc_corpus_entry *corpus;
    int n = tc_corpus_require(&corpus);
    tc_wisdom_forget();
    for (int k = 0; k < n; k++)
        plan_within(&corpus[k], (size_t)64 << 20, 0);
    /* the ring term at 24^4 elements: a whole permuted tensor takes 2.6 MB,
     * so within 1 MiB only loops and block-by-block permutations remain */
    tc_corpus_entry ring;
    memset(&ring, 0, sizeof ring);
    strcpy(ring.text, "C[a,b,c,d] = A[a,e,c,f] * B[f,b,e,d]");
    strcpy(ring.sizes, "a=b=c=d=e=f=24");
    plan_within(&ring, (size_t)1 << 20, 0);
}

/* TCGEN_WORKSPACE is the budget of tc_plan_create; a bad one is refused. */
static void test_environment(void)
{
    tc_error err;
    const char *text = "C[a,b,c,d] = A[a,e,c,f] * B[f,b,e,d]", *sizes = "a=b=c=d=e=f=12";
    setenv("TCGEN_WORKSPACE", "0", 1);
    tc_plan *p = tc_plan_create(text, sizes, TC_ESTIMATE, &err);
    CU_ASSERT_PTR_NOT_NULL(p);
    CU_ASSERT_EQUAL(tc_plan_workspace_bytes(p), 0);
    tc_plan_destroy(p);
    setenv("TCGEN_WORKSPACE", "12 MB", 1);
    p = tc_plan_create(text, sizes, TC_ESTIMATE, &err);
    CU_ASSERT_PTR_NULL(p);
    CU_ASSERT_EQUAL(err.code, TC_EUSAGE);
    CU_ASSERT_PTR_NOT_NULL(strstr(err.message, "TCGEN_WORKSPACE is '12 MB'"));
    unsetenv("TCGEN_WORKSPACE");
    CU_ASSERT_EQUAL(tc_plan_workspace_bytes(NULL), 0);
}

/* A decision remembered without a budget is used within one only when its
 * temporaries fit; TC_WISDOM_ONLY says why it cannot use one that does not. */
static void test_wisdom_over_budget(void)
{
    tc_error err;
    const char *text = "C[a,b,c,d] = A[a,e,c,f] * B[f,b,e,d]", *sizes = "a=b=c=d=e=f=16";
    tc_wisdom_forget();
    tc_plan *p = tc_plan_create(text, sizes, TC_ESTIMATE, &err);
    CU_ASSERT_PTR_NOT_NULL_FATAL(p);
    size_t need = tc_plan_workspace_bytes(p);
    tc_plan *q = tc_plan_create_within(text, sizes, TC_WISDOM_ONLY, 0, &err);
    if (need == 0) {
        CU_ASSERT_PTR_NOT_NULL(q);
    } else {
        CU_ASSERT_PTR_NULL(q);
        CU_ASSERT_EQUAL(err.code, TC_EINPUT);
        CU_ASSERT_PTR_NOT_NULL(strstr(err.message, "more than the workspace of 0 bytes"));
        q = tc_plan_create_within(text, sizes, TC_ESTIMATE, 0, &err);
        CU_ASSERT_PTR_NOT_NULL(q);
        CU_ASSERT_STRING_EQUAL(tc_plan_origin(q), "estimate");
    }
    CU_ASSERT_EQUAL(tc_plan_workspace_bytes(q), 0);
    tc_plan_destroy(q);
    tc_plan_destroy(p);
    tc_wisdom_forget();
}

static void test_release(void)
{
    tc_error err;
    tc_release_workspace();
    double *t = tc_rt_scratch_take(4096, &err);
    CU_ASSERT_PTR_NOT_NULL_FATAL(t);
    tc_rt_scratch_give(t, 4096);
    CU_ASSERT_EQUAL(tc_rt_scratch_cached(NULL), 1);
    tc_release_workspace();
    int64_t bytes = -1;
    CU_ASSERT_EQUAL(tc_rt_scratch_cached(&bytes), 0);
    CU_ASSERT_EQUAL(bytes, 0);
}

int tc_suite_workspace(void)
{
    CU_pSuite s = CU_add_suite("workspace", NULL, NULL);
    if (!s || !CU_add_test(s, "TCGEN_WORKSPACE=0: every corpus contraction, no temporaries",
                           test_no_temporaries) ||
        !CU_add_test(s, "a budget: no choice exceeds it", test_budget) ||
        !CU_add_test(s, "TCGEN_WORKSPACE read, a bad one refused", test_environment) ||
        !CU_add_test(s, "wisdom over the budget not used", test_wisdom_over_budget) ||
        !CU_add_test(s, "tc_release_workspace empties the cache", test_release))
        return 1;
    return 0;
}
