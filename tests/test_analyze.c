/*
 * test_analyze.c - the analyzer's oracles (docs/design.md §5): Table
 * 6.2's access distances, the setups of Examples 6.7, 6.9 and 6.10, the
 * first iterations of Example 6.11, setup-list invariants, and occurrence
 * counts that sum to the executions of every timed node of every algorithm
 * of the corpus under every model.
 */
#include <CUnit/CUnit.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "generator/generator.h"
#include "microbench/analyze.h"
#include "microbench/stats.h"
#include "tests/helpers_corpus.h"

#define MIB (1024 * 1024)

static tc_contraction abc;       /* C[a,b,c] = A[a,i] * B[i,b,c], a=b=c=400, i=8 */
static tc_algorithm_set *abc_set;

static int setup_abc(void)
{
    char msg[256];
    tc_error e;
    if (tc_corpus_parse("C[a,b,c] = A[a,i] * B[i,b,c]", "a=b=c=400,i=8", &abc, msg,
                        sizeof msg) != 0)
        return -1;
    return tc_gen_enumerate(&abc, TC_KERNEL_MASK_ALL, &abc_set, &e) == TC_OK ? 0 : -1;
}

static int teardown_abc(void)
{
    tc_alg_set_free(abc_set);
    return 0;
}

/* Analyses algorithm `name` of the abc contraction. */
static tc_mb_analysis *analyze(const char *name, tc_mb_model model, int64_t llc)
{
    const tc_algorithm *alg = tc_alg_set_find(abc_set, name);
    CU_ASSERT_PTR_NOT_NULL_FATAL(alg);
    tc_mb_params p = {model, llc, 64};
    tc_mb_analysis *a = NULL;
    tc_error e;
    CU_ASSERT_EQUAL_FATAL(tc_mb_analyze(alg, &abc, &p, &a, &e), TC_OK);
    return a;
}

static const tc_mb_case *find_case(const tc_mb_analysis *a, tc_mb_case_kind kind, int level)
{
    for (int i = 0; i < a->ncases; i++)
        if (a->cases[i].node == a->alg->kernel_node && a->cases[i].kind == kind &&
            (kind != TC_CASE_FIRST || a->cases[i].level == level))
            return &a->cases[i];
    return NULL;
}

static void assert_setup(const tc_mb_case *cs, const char *want)
{
    char got[256];
    tc_mb_format_setup(cs, &abc, got, sizeof got);
    if (strcmp(got, want) != 0)
        fprintf(stderr, "\n  setup: got '%s', want '%s'\n", got, want);
    CU_ASSERT_STRING_EQUAL(got, want);
}

/* Table 6.2 and Example 6.7: ca-dgemv's access distances and setup list,
 * untruncated (a cache far larger than the tensors) and cut at 5/4 of the
 * Harpertown's 6 MiB L2. */
static void test_table_6_2(void)
{
    tc_mb_analysis *a = analyze("ca-dgemv", TC_MODEL_ACCESS, (int64_t)1 << 40);
    CU_ASSERT_EQUAL_FATAL(a->ncases, 1);
    const tc_mb_case *cs = &a->cases[0];
    CU_ASSERT_EQUAL(cs->count, 160000);
    /* dgemv arguments: matrix B[:,:,c], x A[a,:], y C[a,:,c] */
    CU_ASSERT_EQUAL(cs->operand[0].elements, 3200);
    CU_ASSERT_EQUAL(cs->operand[1].elements, 8);
    CU_ASSERT_EQUAL(cs->operand[2].elements, 400);
    CU_ASSERT_EQUAL(cs->operand[0].access_distance, 0);
    CU_ASSERT_EQUAL(cs->operand[1].access_distance, 166400);
    CU_ASSERT_EQUAL(cs->operand[2].access_distance, 65283200);
    CU_ASSERT_FALSE(cs->truncated);
    assert_setup(cs, "C[a,:,c], [65116792], A[a,:], [163200], B[:,:,c]");
    tc_mb_analysis_free(a);

    a = analyze("ca-dgemv", TC_MODEL_ACCESS, 6 * MIB);
    CU_ASSERT_TRUE(a->cases[0].truncated);
    assert_setup(&a->cases[0], "[816632], A[a,:], [163200], B[:,:,c]");
    tc_mb_analysis_free(a);
}

/* Example 6.9: A[a,:] and C[a,:,c] share cache lines across a and are
 * prefetched entirely at distance 0, so the setup collapses to nothing.
 * Example 6.10: the failure case keeps the access-distance setup. */
static void test_prefetch_and_failures(void)
{
    tc_mb_analysis *a = analyze("ca-dgemv", TC_MODEL_PREFETCH, 6 * MIB);
    const tc_mb_case *cs = &a->cases[0];
    CU_ASSERT_EQUAL(a->ncases, 1);
    CU_ASSERT_EQUAL(cs->operand[0].prefetch, TC_PREFETCH_NONE);
    CU_ASSERT_EQUAL(cs->operand[1].prefetch, TC_PREFETCH_LINE);
    CU_ASSERT_EQUAL(cs->operand[2].prefetch, TC_PREFETCH_LINE);
    CU_ASSERT_EQUAL(cs->operand[1].prefetch_distance, 0);
    CU_ASSERT_EQUAL(cs->operand[2].prefetch_distance, 0);
    CU_ASSERT_EQUAL(cs->operand[2].prefetch_elements, 400);
    CU_ASSERT_EQUAL(cs->nsetup, 0);
    assert_setup(cs, "-");
    tc_mb_analysis_free(a);

    a = analyze("ca-dgemv", TC_MODEL_FAILURES, 6 * MIB);
    const tc_mb_case *steady = find_case(a, TC_CASE_STEADY, 0);
    const tc_mb_case *fail = find_case(a, TC_CASE_FAILURE, 0);
    CU_ASSERT_PTR_NOT_NULL_FATAL(steady);
    CU_ASSERT_PTR_NOT_NULL_FATAL(fail);
    assert_setup(steady, "-");
    assert_setup(fail, "[816632], A[a,:], [163200], B[:,:,c]");
    /* 400 traversals of a, a new line every 8 of 400 iterations */
    CU_ASSERT_EQUAL(fail->count, 400 * 50);
    CU_ASSERT_EQUAL(steady->count + fail->count, 160000);
    tc_mb_analysis_free(a);

    /* bi-dger: A[:,i] streams (one line of it at distance 0), B[i,b,:]
     * shares lines across i (Example 6.8). */
    a = analyze("bi-dger", TC_MODEL_PREFETCH, 6 * MIB);
    cs = &a->cases[0];
    CU_ASSERT_EQUAL(cs->operand[0].prefetch, TC_PREFETCH_STREAM);
    CU_ASSERT_EQUAL(cs->operand[0].prefetch_elements, 8);
    CU_ASSERT_EQUAL(cs->operand[1].prefetch, TC_PREFETCH_LINE);
    CU_ASSERT_EQUAL(cs->operand[2].prefetch, TC_PREFETCH_NONE);
    CU_ASSERT_EQUAL(cs->operand[2].access_distance, 0);
    tc_mb_analysis_free(a);
}

/* How far the loop around the call moves each operand (the sampler times
 * a train of calls where every moved operand continues its runs): around
 * cb-dgemv the b loop moves x B[:,b,c] by i = 8 and y C[:,b,c] by a = 400,
 * not the matrix; around ca-dgemv the a loop moves x and y by one
 * element, each within its lines. */
static void test_loop_steps(void)
{
    tc_mb_analysis *a = analyze("cb-dgemv", TC_MODEL_FULL, 6 * MIB);
    const tc_mb_case *cs = find_case(a, TC_CASE_STEADY, 0);
    CU_ASSERT_PTR_NOT_NULL_FATAL(cs);
    CU_ASSERT_EQUAL(cs->loop_extent, 400);
    CU_ASSERT_EQUAL(cs->operand[0].loop_step, 0);
    CU_ASSERT_EQUAL(cs->operand[1].loop_step, 8);
    CU_ASSERT_EQUAL(cs->operand[2].loop_step, 400);
    CU_ASSERT_EQUAL(cs->operand[2].prefetch, TC_PREFETCH_STREAM);
    tc_mb_analysis_free(a);

    a = analyze("ca-dgemv", TC_MODEL_FULL, 6 * MIB);
    cs = find_case(a, TC_CASE_STEADY, 0);
    CU_ASSERT_PTR_NOT_NULL_FATAL(cs);
    CU_ASSERT_EQUAL(cs->operand[0].loop_step, 0);
    CU_ASSERT_EQUAL(cs->operand[1].loop_step, 1);
    CU_ASSERT_EQUAL(cs->operand[2].loop_step, 1);
    tc_mb_analysis_free(a);
}

/* A fused group counts as its indices: around ic(ab)(jk)-dgemm the c loop
 * continues C's runs (a and b spanned, c next), around ci(ab)(jk)-dgemm
 * the i loop jumps over c. */
static void test_prefetch_fused(void)
{
    tc_contraction c;
    char msg[256];
    tc_algorithm_set *set = NULL;
    tc_error e;
    CU_ASSERT_EQUAL_FATAL(tc_corpus_parse("C[a,b,c,i,j,k] = A[e,i,a,b] * B[j,k,e,c]",
                                          "a=b=c=i=j=k=e=6", &c, msg, sizeof msg), 0);
    CU_ASSERT_EQUAL_FATAL(tc_gen_enumerate_families(&c, TC_KERNEL_MASK_ALL, TC_FAMILY_MASK_ALL,
                                                    &set, &e),
                          TC_OK);
    const char *name[2] = {"ic(ab)(jk)-dgemm", "ci(ab)(jk)-dgemm"};
    tc_mb_prefetch want[2] = {TC_PREFETCH_STREAM, TC_PREFETCH_NONE};
    for (int k = 0; k < 2; k++) {
        const tc_algorithm *alg = tc_alg_set_find(set, name[k]);
        CU_ASSERT_PTR_NOT_NULL_FATAL(alg);
        tc_mb_params p = {TC_MODEL_PREFETCH, 6 * MIB, 64};
        tc_mb_analysis *a = NULL;
        CU_ASSERT_EQUAL_FATAL(tc_mb_analyze(alg, &c, &p, &a, &e), TC_OK);
        const tc_mb_case *cs = &a->cases[0];
        CU_ASSERT_EQUAL(cs->operand[2].prefetch, want[k]);
        if (want[k] == TC_PREFETCH_STREAM) /* the first line of each column */
            CU_ASSERT_EQUAL(cs->operand[2].prefetch_elements, 8 * 36);
        tc_mb_analysis_free(a);
    }
    tc_alg_set_free(set);
}

/* A permutation of 4 MiB or more writes its temporary with streaming
 * stores: the dgemm after it finds the temporary in memory (its distance
 * the whole run), while a smaller one leaves it in the caches (0). */
static void test_streamed_permutation(void)
{
    static const char *const sizes[2] = {"a=b=k=128,j=24", "a=b=k=32,j=24"};
    for (int s = 0; s < 2; s++) {
        tc_contraction c;
        char msg[256];
        tc_algorithm_set *set = NULL;
        tc_error e;
        CU_ASSERT_EQUAL_FATAL(tc_corpus_parse("C[a,b,j] = A[b,k,a] * B[k,j]", sizes[s], &c, msg,
                                              sizeof msg), 0);
        CU_ASSERT_EQUAL_FATAL(tc_gen_enumerate_families(&c, TC_KERNEL_MASK_ALL,
                                                        TC_FAMILY_MASK_ALL, &set, &e), TC_OK);
        const tc_algorithm *alg = tc_alg_set_find(set, "A^C^-dgemm");
        CU_ASSERT_PTR_NOT_NULL_FATAL(alg);
        tc_mb_params p = {TC_MODEL_FULL, 6 * MIB, 64};
        tc_mb_analysis *a = NULL;
        CU_ASSERT_EQUAL_FATAL(tc_mb_analyze(alg, &c, &p, &a, &e), TC_OK);
        const tc_mb_case *cs = &a->cases[0]; /* the dgemm */
        CU_ASSERT_EQUAL_FATAL(cs->node, alg->kernel_node);
        int64_t dist = cs->operand[0].access_distance; /* the permuted A */
        if (s == 0) {
            CU_ASSERT(dist >= c.tensor[TC_A].elements);
        } else {
            CU_ASSERT_EQUAL(dist, 0);
        }
        tc_mb_analysis_free(a);
        tc_alg_set_free(set);
    }
}

/* Distances count cache lines: jc'-dgemm of C[a,b,c] = A[i,j,a] *
 * B[j,b,i,c] copies B[j,:,:,c] (j's extent 8, one line) once per c, each
 * element from a line of its own, so between two uses of C[:,:,c] (one
 * iteration of j) every line of B was touched: C's distance holds all of
 * B, not the eighth of it the elements make. */
static void test_distance_in_lines(void)
{
    tc_contraction c;
    char msg[256];
    tc_algorithm_set *set = NULL;
    tc_error e;
    CU_ASSERT_EQUAL_FATAL(tc_corpus_parse("C[a,b,c] = A[i,j,a] * B[j,b,i,c]", "i=j=8,a=b=c=16",
                                          &c, msg, sizeof msg), 0);
    CU_ASSERT_EQUAL_FATAL(tc_gen_enumerate_families(&c, TC_KERNEL_MASK_ALL, 1u << TC_FAMILY_PAPER,
                                                    &set, &e), TC_OK);
    const tc_algorithm *alg = tc_alg_set_find(set, "jc'-dgemm");
    CU_ASSERT_PTR_NOT_NULL_FATAL(alg);
    tc_mb_params p = {TC_MODEL_FULL, 6 * MIB, 64};
    tc_mb_analysis *a = NULL;
    CU_ASSERT_EQUAL_FATAL(tc_mb_analyze(alg, &c, &p, &a, &e), TC_OK);
    const tc_mb_case *cs = find_case(a, TC_CASE_STEADY, 0);
    CU_ASSERT_PTR_NOT_NULL_FATAL(cs);
    CU_ASSERT_EQUAL_FATAL(cs->node, alg->kernel_node);
    /* C, all of B, A[:,j,:] (a line of i per a) and the copy's T0 */
    int64_t slice = 8 * 16; /* A[:,j,:] and T0: i (or b) by a (or i) */
    CU_ASSERT_EQUAL(cs->operand[2].access_distance,
                    c.tensor[TC_C].elements + c.tensor[TC_B].elements + slice + slice);
    tc_mb_analysis_free(a);
    tc_alg_set_free(set);
}

/* Shared lines across an outer loop: ac-dgemv writes C[a,:,c], a line per
 * element (a=b=c=400), and in 7 of 8 iterations of the outer a its lines
 * were last used one iteration of a ago: C[a,:,:]'s lines, all of B and
 * A[a,:]'s 8 lines. The other eighth keeps the whole run's distance. */
static void test_outer_shared_lines(void)
{
    tc_mb_analysis *a = analyze("ac-dgemv", TC_MODEL_FULL, 6 * MIB);
    int64_t steady = 0, shared = 0, whole = 0;
    const int64_t one_a = 400 * 400 * 8 + 8 * 400 * 400 + 8 * 8;
    for (int i = 0; i < a->ncases; i++) {
        const tc_mb_case *cs = &a->cases[i];
        if (cs->kind != TC_CASE_STEADY)
            continue;
        steady += cs->count;
        int64_t d = cs->operand[2].access_distance;
        if (d == one_a)
            shared += cs->count;
        else
            whole = d;
    }
    CU_ASSERT_EQUAL(shared, steady / 8 * 7);
    CU_ASSERT(whole > one_a);
    tc_mb_analysis_free(a);
    a = analyze("ca-dgemv", TC_MODEL_FULL, 6 * MIB); /* a directly around: §6.2.3 itself */
    for (int i = 0; i < a->ncases; i++)
        CU_ASSERT(a->cases[i].kind != TC_CASE_STEADY || a->cases[i].operand[2].access_distance != one_a);
    /* ... where the full model adds a shared line's own footprint to its
     * prefetch distance: A[a,:]'s 8 lines, C[a,:,c]'s 400 */
    tc_mb_analysis *f = analyze("ca-dgemv", TC_MODEL_FAILURES, 6 * MIB);
    const tc_mb_case *full = find_case(a, TC_CASE_STEADY, 0), *fail = find_case(f, TC_CASE_STEADY, 0);
    CU_ASSERT_EQUAL_FATAL(full->operand[1].op.base, TC_A); /* B[:,:,c], A[a,:], C[a,:,c] */
    CU_ASSERT_EQUAL(full->operand[1].prefetch_distance, fail->operand[1].prefetch_distance + 8 * 8);
    CU_ASSERT_EQUAL(full->operand[2].prefetch_distance, fail->operand[2].prefetch_distance + 400 * 8);
    tc_mb_analysis_free(f);
    tc_mb_analysis_free(a);
}

/* Example 6.11: in ci-dger's first iteration of i, C[:,:,c] is new (its
 * previous access was a whole traversal ago) and A[:,i], B[i,:,c] are not
 * prefetched. */
static void test_first_iterations(void)
{
    tc_mb_analysis *a = analyze("ci-dger", TC_MODEL_FULL, 6 * MIB);
    const tc_mb_case *first = find_case(a, TC_CASE_FIRST, 1);
    CU_ASSERT_PTR_NOT_NULL_FATAL(first);
    /* i = 8: the first iterations of i are 1/8 of the calls; those of c
     * (1/3200) are below 1 % and merge into them. */
    CU_ASSERT_EQUAL(first->count, 400);
    CU_ASSERT_PTR_NULL(find_case(a, TC_CASE_FIRST, 0));
    int64_t whole = 3200 + 1280000 + 64000000;
    CU_ASSERT_EQUAL(first->operand[2].access_distance, whole);
    CU_ASSERT_EQUAL(first->operand[0].access_distance, 3200 + 3200 + 160000);
    for (int i = 0; i < 3; i++)
        CU_ASSERT_EQUAL(first->operand[i].prefetch, TC_PREFETCH_NONE);
    const tc_mb_case *steady = find_case(a, TC_CASE_STEADY, 0);
    CU_ASSERT_EQUAL(steady->operand[2].access_distance, 0);
    CU_ASSERT_EQUAL(steady->count, 400 * 7);
    tc_mb_analysis_free(a);
}

/* Every timed node's cases sum to its executions (a split algorithm's: one
 * thread's share); setup lists keep the invariant "distance = volume to
 * the right", truncated lists total 5/4 of the cache. */
static void check_analysis(const tc_mb_analysis *a, const tc_contraction *c, int64_t llc,
                           const char *what)
{
    const tc_algorithm *alg = a->alg;
    const tc_node *nodes[1 + 2 * TC_MAX_TEMPS];
    int nn = 0;
    nodes[nn++] = alg->kernel_node;
    for (int i = 0; i < alg->ncopies; i++)
        nodes[nn++] = alg->copy_node[i];
    for (int k = 0; k < nn; k++) {
        int64_t sum = 0;
        for (int i = 0; i < a->ncases; i++)
            if (a->cases[i].node == nodes[k])
                sum += a->cases[i].count;
        if (sum != tc_mb_executions(alg, nodes[k]))
            fprintf(stderr, "\n  %s %s node %d: counts %lld, executions %lld\n", what,
                    alg->name, k, (long long)sum, (long long)tc_mb_executions(alg, nodes[k]));
        CU_ASSERT_EQUAL(sum, tc_mb_executions(alg, nodes[k]));
    }
    CU_ASSERT_EQUAL(a->calls, tc_mb_executions(alg, alg->kernel_node));
    if (alg->split > 1) { /* one thread's share: the outer loop's extent over the threads */
        int64_t all = 1, n = alg->loop_node[0]->extent;
        for (int i = 0; i < alg->nloops; i++)
            all *= alg->loop_node[i]->extent;
        CU_ASSERT_EQUAL(a->calls * n, all * ((n + alg->split - 1) / alg->split));
    }
    int64_t cap = llc / 8 * 5 / 4;
    for (int i = 0; i < a->ncases; i++) {
        const tc_mb_case *cs = &a->cases[i];
        CU_ASSERT(cs->count > 0);
        int64_t right = 0, total = 0;
        for (int j = cs->nsetup - 1; j >= 0; j--) {
            const tc_mb_setup *s = &cs->setup[j];
            CU_ASSERT(s->elements > 0);
            if (s->kind != TC_SETUP_REMOTE) {
                CU_ASSERT(right >= s->distance);
                if (j + 1 < cs->nsetup && cs->setup[j + 1].kind == TC_SETUP_REMOTE)
                    CU_ASSERT_EQUAL(right, s->distance);
                CU_ASSERT(s->distance < cap);
            }
            right += s->elements;
            total += s->elements;
        }
        if (cs->truncated && cs->nsetup > 0 && cs->setup[0].kind == TC_SETUP_REMOTE)
            CU_ASSERT_EQUAL(total, cap);
        (void)c;
    }
}

static void test_counts_on_corpus(void)
{
    tc_corpus_entry *corpus;
    int n = tc_corpus_require(&corpus);
    int64_t llcs[2] = {6 * MIB, (int64_t)1 << 40};
    int analysed = 0, split = 0; /* of them, split over 3 threads */
    for (int k = 0; k < n; k++) {
        tc_algorithm_set *set = NULL;
        tc_error e;
        CU_ASSERT_EQUAL_FATAL(tc_gen_enumerate_families(&corpus[k].c, TC_KERNEL_MASK_ALL,
                                                        TC_FAMILY_MASK_ALL, &set, &e),
                              TC_OK);
        CU_ASSERT_EQUAL_FATAL(tc_gen_add_threaded(set, &corpus[k].c, 3, &e), TC_OK);
        for (int i = 0; i < set->count; i++)
            split += set->alg[i]->split > 1;
        for (int i = 0; i < set->count; i++)
            for (int m = TC_MODEL_WARM; m <= TC_MODEL_FULL; m++)
                for (int l = 0; l < 2; l++) {
                    tc_mb_params p = {(tc_mb_model)m, llcs[l], 64};
                    tc_mb_analysis *a = NULL;
                    CU_ASSERT_EQUAL_FATAL(tc_mb_analyze(set->alg[i], &corpus[k].c, &p, &a, &e),
                                          TC_OK);
                    check_analysis(a, &corpus[k].c, llcs[l], corpus[k].text);
                    tc_mb_analysis_free(a);
                    analysed++;
                }
        tc_alg_set_free(set);
    }
    CU_ASSERT(analysed > 1000);
    CU_ASSERT(split > 100);
}

static void test_models_and_errors(void)
{
    CU_ASSERT_EQUAL(tc_mb_model_from_name("full"), TC_MODEL_FULL);
    CU_ASSERT_EQUAL(tc_mb_model_from_name("warm"), TC_MODEL_WARM);
    CU_ASSERT_EQUAL(tc_mb_model_from_name("cold"), -1);
    CU_ASSERT_STRING_EQUAL(tc_mb_model_name(TC_MODEL_FAILURES), "failures");

    /* warm: one case per timed node, no setup */
    tc_mb_analysis *a = analyze("c-dgemm", TC_MODEL_WARM, 6 * MIB);
    CU_ASSERT_EQUAL(a->ncases, 1);
    CU_ASSERT_EQUAL(a->cases[0].nsetup, 0);
    CU_ASSERT_EQUAL(a->cases[0].count, 400);
    tc_mb_analysis_free(a);

    /* no sizes */
    tc_contraction c;
    char msg[256];
    tc_algorithm_set *set = NULL;
    tc_error e;
    CU_ASSERT_EQUAL_FATAL(tc_corpus_parse("C[a,b] = A[a,i] * B[i,b]", NULL, &c, msg, sizeof msg), 0);
    CU_ASSERT_EQUAL_FATAL(tc_gen_enumerate(&c, TC_KERNEL_MASK_ALL, &set, &e), TC_OK);
    tc_mb_params p = {TC_MODEL_FULL, 6 * MIB, 64};
    a = (tc_mb_analysis *)1;
    CU_ASSERT_EQUAL(tc_mb_analyze(set->alg[0], &c, &p, &a, &e), TC_EINPUT);
    CU_ASSERT_PTR_NULL(a);
    CU_ASSERT_PTR_NOT_NULL(strstr(e.message, "sizes"));
    tc_alg_set_free(set);
    tc_mb_analysis_free(NULL);
}

/* A copy in the loop body: the temporary is at distance 0 for the kernel,
 * and the copy itself has cases. */
static void test_copies(void)
{
    tc_contraction c;
    char msg[256];
    tc_algorithm_set *set = NULL;
    tc_error e;
    CU_ASSERT_EQUAL_FATAL(tc_corpus_parse("C[a,b,c] = A[i,j,a] * B[j,b,i,c]",
                                          "i=j=8,a=b=c=40", &c, msg, sizeof msg), 0);
    CU_ASSERT_EQUAL_FATAL(tc_gen_enumerate(&c, TC_KERNEL_MASK_ALL, &set, &e), TC_OK);
    const tc_algorithm *alg = tc_alg_set_find(set, "i'c-dgemm");
    CU_ASSERT_PTR_NOT_NULL_FATAL(alg);
    tc_mb_params p = {TC_MODEL_FULL, 6 * MIB, 64};
    tc_mb_analysis *a = NULL;
    CU_ASSERT_EQUAL_FATAL(tc_mb_analyze(alg, &c, &p, &a, &e), TC_OK);
    int copy_cases = 0;
    for (int i = 0; i < a->ncases; i++) {
        const tc_mb_case *cs = &a->cases[i];
        if (cs->node == alg->kernel_node && cs->kind == TC_CASE_STEADY)
            CU_ASSERT_EQUAL(cs->operand[0].access_distance, 0); /* T0, reused across c */
        if (cs->node == alg->kernel_node && cs->kind == TC_CASE_FIRST && cs->level == 1)
            CU_ASSERT_EQUAL(cs->operand[0].access_distance, 0); /* just copied */
        if (cs->node != alg->kernel_node) {
            copy_cases++;
            CU_ASSERT_EQUAL(cs->noperands, 2);
            CU_ASSERT_EQUAL(cs->operand[0].elements, 8 * 40);
            CU_ASSERT_TRUE(cs->operand[1].written);
        }
    }
    CU_ASSERT(copy_cases >= 1);
    check_analysis(a, &c, 6 * MIB, "i'c-dgemm");
    tc_mb_analysis_free(a);
    tc_alg_set_free(set);
}

/* Spearman's rho (compare's ranking quality) and the spread of repeated
 * predictions (predict --repeat). */
static void test_rank_statistics(void)
{
    double x[5] = {1, 2, 3, 4, 5}, y[5] = {2, 1, 4, 3, 5}, r[5] = {5, 4, 3, 2, 1};
    CU_ASSERT_DOUBLE_EQUAL(tc_mb_spearman(x, x, 5), 1.0, 1e-12);
    CU_ASSERT_DOUBLE_EQUAL(tc_mb_spearman(x, r, 5), -1.0, 1e-12);
    CU_ASSERT_DOUBLE_EQUAL(tc_mb_spearman(x, y, 5), 0.8, 1e-12); /* 1 - 6*4/(5*24) */
    double sq[5] = {1e-6, 4e-6, 9e-6, 16e-6, 25e-6}; /* ranks only: monotone is 1 */
    CU_ASSERT_DOUBLE_EQUAL(tc_mb_spearman(x, sq, 5), 1.0, 1e-12);
    double tie[4] = {1, 2, 2, 3}, u[4] = {1, 2, 3, 4}; /* ranks 1, 2.5, 2.5, 4 */
    CU_ASSERT_DOUBLE_EQUAL(tc_mb_spearman(tie, u, 4), 4.5 / sqrt(4.5 * 5.0), 1e-12);
    double same[3] = {7, 7, 7};
    CU_ASSERT(isnan(tc_mb_spearman(same, x, 3)));
    CU_ASSERT(isnan(tc_mb_spearman(x, y, 1)));
    double v[4] = {3e-3, 1e-3, 4e-3, 2e-3}, lo, med, hi;
    tc_mb_spread(v, 4, &lo, &med, &hi);
    CU_ASSERT_EQUAL(lo, 1e-3);
    CU_ASSERT_DOUBLE_EQUAL(med, 2.5e-3, 1e-15);
    CU_ASSERT_EQUAL(hi, 4e-3);
    tc_mb_spread(v, 1, &lo, &med, &hi);
    CU_ASSERT(lo == med && med == hi);
}

int tc_suite_analyze(void)
{
    CU_pSuite s = CU_add_suite("analyze", setup_abc, teardown_abc);
    if (!s)
        return 1;
    return !CU_add_test(s, "Table 6.2 and Example 6.7: distances, setup, truncation",
                        test_table_6_2) ||
           !CU_add_test(s, "Examples 6.8-6.10: prefetch and failures", test_prefetch_and_failures) ||
           !CU_add_test(s, "loop steps around the call", test_loop_steps) ||
           !CU_add_test(s, "prefetch across a fused group", test_prefetch_fused) ||
           !CU_add_test(s, "a streamed permutation leaves its temporary in memory",
                        test_streamed_permutation) ||
           !CU_add_test(s, "Example 6.11: first iterations", test_first_iterations) ||
           !CU_add_test(s, "distances count cache lines", test_distance_in_lines) ||
           !CU_add_test(s, "lines shared across an outer loop", test_outer_shared_lines) ||
           !CU_add_test(s, "copies: temporaries and copy cases", test_copies) ||
           !CU_add_test(s, "models and errors", test_models_and_errors) ||
           !CU_add_test(s, "counts and setup invariants on the corpus", test_counts_on_corpus) ||
           !CU_add_test(s, "rank correlation and spread", test_rank_statistics);
}
