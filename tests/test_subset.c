/*
 * test_subset.c - counting candidates without building them
 * (tc_gen_count_classes agrees with what is built, class by class, on the
 * corpus and on random contractions) and the bounded enumeration of the
 * main job (tc_gen_enumerate_bounded: whole classes in the stated order up
 * to the bound, a message naming no option when none fits).
 */
#include <CUnit/CUnit.h>
#include <stdio.h>
#include <string.h>

#include "generator/generator.h"
#include "tests/helpers_corpus.h"

/* The per-class counts of a built set. */
static void classes_of(const tc_algorithm_set *s, uint64_t n[TC_FAMILY_COUNT][TC_KERNEL_COUNT])
{
    memset(n, 0, sizeof(uint64_t) * TC_FAMILY_COUNT * TC_KERNEL_COUNT);
    for (int i = 0; i < s->count; i++)
        n[s->alg[i]->family][s->alg[i]->kernel]++;
}

/* Counts *c's classes (all, and some kernels per family) and builds them:
 * the number of disagreeing classes. */
static int check_counts(const tc_contraction *c, const char *text)
{
    static const unsigned some[TC_FAMILY_COUNT] = {
        1u << TC_KERNEL_DGER | 1u << TC_KERNEL_DDOT, 1u << TC_KERNEL_DGEMV | 1u << TC_KERNEL_DGEMM,
        1u << TC_KERNEL_DGEMM};
    const unsigned all[TC_FAMILY_COUNT] = {TC_KERNEL_MASK_ALL, TC_KERNEL_MASK_ALL,
                                           TC_KERNEL_MASK_ALL};
    const unsigned *asks[2] = {all, some};
    int bad = 0;
    for (int a = 0; a < 2; a++) {
        uint64_t want[TC_FAMILY_COUNT][TC_KERNEL_COUNT], got[TC_FAMILY_COUNT][TC_KERNEL_COUNT];
        tc_gen_count_classes(c, asks[a], want);
        if (tc_gen_classes_total(want) > TC_GEN_MAX_ALGORITHMS)
            continue; /* not to be built here */
        tc_algorithm_set *s = NULL;
        tc_error e;
        CU_ASSERT_EQUAL_FATAL(tc_gen_enumerate_classes(c, asks[a], &s, &e), TC_OK);
        classes_of(s, got);
        for (int f = 0; f < TC_FAMILY_COUNT; f++)
            for (int k = 0; k < TC_KERNEL_COUNT; k++)
                if (got[f][k] != want[f][k] && bad++ < 5)
                    fprintf(stderr, "\n  %s: %s %s: counted %llu, built %llu\n", text,
                            tc_family_name((tc_family)f), tc_kernel_name((tc_kernel)k),
                            (unsigned long long)want[f][k], (unsigned long long)got[f][k]);
        tc_alg_set_free(s);
    }
    return bad;
}

static void test_counts(void)
{
    tc_corpus_entry *corpus;
    int n = tc_corpus_require(&corpus), fused = 0, permuted = 0;
    for (int i = 0; i < n; i++)
        CU_ASSERT_EQUAL(check_counts(&corpus[i].c, corpus[i].text), 0);
    uint64_t state = 777;
    for (int k = 0; k < 150; k++) {
        char text[256], sizes[256], msg[512];
        tc_corpus_random(&state, 7, 3, text, sizeof text, sizes, sizeof sizes);
        tc_contraction c;
        if (tc_corpus_parse(text, sizes, &c, msg, sizeof msg) != 0) {
            fprintf(stderr, "\n  %s\n", msg);
            CU_FAIL("parse");
            continue;
        }
        CU_ASSERT_EQUAL(check_counts(&c, text), 0);
        uint64_t cnt[TC_FAMILY_COUNT][TC_KERNEL_COUNT];
        const unsigned all[TC_FAMILY_COUNT] = {TC_KERNEL_MASK_ALL, TC_KERNEL_MASK_ALL,
                                               TC_KERNEL_MASK_ALL};
        tc_gen_count_classes(&c, all, cnt);
        for (int kk = 0; kk < TC_KERNEL_COUNT; kk++)
            fused += cnt[TC_FAMILY_FUSED][kk] > 0;
        permuted += cnt[TC_FAMILY_PERMUTED][TC_KERNEL_DGEMM] > 0;
    }
    /* the wider families are counted, not only the paper's */
    CU_ASSERT(fused > 20);
    CU_ASSERT(permuted > 20);
    fprintf(stderr, "[150 random contractions: %d with fused classes, %d with permuted]\n", fused,
            permuted);
}

/* The kernels in set order, the order the bounded enumeration takes them. */
static const tc_kernel by_size[] = {TC_KERNEL_DGEMM, TC_KERNEL_DGER, TC_KERNEL_DGEMV,
                                    TC_KERNEL_DAXPY, TC_KERNEL_DDOT};

/* tc_gen_enumerate_bounded(c, all families, bound): a set of whole kernels
 * (all families of each), a prefix of by_size, within the bound, the next
 * kernel beyond it; returns how many kernels it holds (-1 on error). */
static int check_bounded(const tc_contraction *c, int bound, tc_gen_subset *sub)
{
    tc_algorithm_set *s = NULL;
    tc_error e;
    if (tc_gen_enumerate_bounded(c, TC_FAMILY_MASK_ALL, bound, &s, sub, &e) != TC_OK) {
        CU_ASSERT_PTR_NULL(s);
        CU_ASSERT_PTR_NULL(strstr(e.message, "--")); /* the library names no option */
        CU_ASSERT_PTR_NOT_NULL(strstr(e.message, "more than tcgen ranks"));
        return -1;
    }
    const unsigned all[TC_FAMILY_COUNT] = {TC_KERNEL_MASK_ALL, TC_KERNEL_MASK_ALL,
                                           TC_KERNEL_MASK_ALL};
    uint64_t want[TC_FAMILY_COUNT][TC_KERNEL_COUNT], got[TC_FAMILY_COUNT][TC_KERNEL_COUNT];
    tc_gen_count_classes(c, all, want);
    classes_of(s, got);
    CU_ASSERT_EQUAL(sub->candidates, tc_gen_classes_total(want));
    CU_ASSERT(s->count <= bound);
    CU_ASSERT_EQUAL(sub->partial, (uint64_t)s->count < sub->candidates);
    int kernels = 0;
    for (int j = 0; j < TC_KERNEL_COUNT; j++) {
        tc_kernel k = by_size[j];
        uint64_t w = 0, g = 0;
        for (int f = 0; f < TC_FAMILY_COUNT; f++)
            w += want[f][k], g += got[f][k];
        if (g == w && j == kernels) {
            kernels += 1; /* taken whole */
            continue;
        }
        CU_ASSERT_EQUAL(g, 0); /* past the prefix nothing is taken ... */
        if (j == kernels) /* ... because the first one left out did not fit */
            CU_ASSERT((uint64_t)s->count + w > (uint64_t)bound);
    }
    tc_alg_set_free(s);
    return kernels;
}

static void test_bounded(void)
{
    tc_contraction c;
    char msg[512];
    tc_gen_subset sub;
    /* the main job's case: 9 indices, far more candidates than the bound */
    CU_ASSERT_FATAL(tc_corpus_parse("C[a,b,o,p,d,g,h,q] = A[p,o,g,n] * B[q,a,h,b,d,n]",
                                    "a=1,b=3,d=8,g=2,h=8,n=2,o=10,p=3,q=4", &c, msg,
                                    sizeof msg) == 0);
    int k = check_bounded(&c, TC_GEN_MAX_ALGORITHMS, &sub);
    CU_ASSERT(k >= 1 && k < TC_KERNEL_COUNT);
    CU_ASSERT(sub.partial && sub.candidates > TC_GEN_MAX_ALGORITHMS);
    CU_ASSERT_PTR_NOT_NULL(strstr(sub.which, "dgemm-"));
    tc_error e;
    tc_algorithm_set *s = NULL;
    CU_ASSERT_EQUAL(tc_gen_enumerate_families(&c, TC_KERNEL_MASK_ALL, TC_FAMILY_MASK_ALL, &s,
                                              &e), TC_EINPUT);
    CU_ASSERT_PTR_NULL(strstr(e.message, "--")); /* the command adds its own remedy */

    /* a small contraction under every bound from its total down to none */
    CU_ASSERT_FATAL(tc_corpus_parse("C[a,b,c,d] = A[a,b,e,f] * B[f,e,c,d]", NULL, &c, msg,
                                    sizeof msg) == 0);
    const unsigned all[TC_FAMILY_COUNT] = {TC_KERNEL_MASK_ALL, TC_KERNEL_MASK_ALL,
                                           TC_KERNEL_MASK_ALL};
    uint64_t n[TC_FAMILY_COUNT][TC_KERNEL_COUNT];
    tc_gen_count_classes(&c, all, n);
    int total = (int)tc_gen_classes_total(n);
    CU_ASSERT_EQUAL(check_bounded(&c, total, &sub), TC_KERNEL_COUNT);
    CU_ASSERT_EQUAL(sub.partial, 0);
    int dgemms = (int)(n[0][TC_KERNEL_DGEMM] + n[1][TC_KERNEL_DGEMM] + n[2][TC_KERNEL_DGEMM]);
    CU_ASSERT_EQUAL(check_bounded(&c, total - 1, &sub), TC_KERNEL_COUNT - 1);
    CU_ASSERT_STRING_EQUAL(sub.which, "every family but the ddot-based");
    CU_ASSERT_EQUAL(check_bounded(&c, dgemms, &sub), 1);
    CU_ASSERT_STRING_EQUAL(sub.which, "the dgemm-based families");
    /* the dgemms' families one by one: fused, then permuted, then the paper's */
    int fused = (int)n[TC_FAMILY_FUSED][TC_KERNEL_DGEMM];
    int permuted = (int)n[TC_FAMILY_PERMUTED][TC_KERNEL_DGEMM];
    CU_ASSERT_FATAL(fused > 0 && permuted > 0 && n[TC_FAMILY_PAPER][TC_KERNEL_DGEMM] > 0);
    CU_ASSERT_EQUAL(tc_gen_enumerate_bounded(&c, TC_FAMILY_MASK_ALL, fused + permuted, &s, &sub,
                                             &e), TC_OK);
    CU_ASSERT_STRING_EQUAL(sub.which, "the fused and permuted dgemms");
    uint64_t got[TC_FAMILY_COUNT][TC_KERNEL_COUNT];
    classes_of(s, got);
    CU_ASSERT(got[TC_FAMILY_FUSED][TC_KERNEL_DGEMM] == (uint64_t)fused &&
              got[TC_FAMILY_PERMUTED][TC_KERNEL_DGEMM] == (uint64_t)permuted &&
              s->count == fused + permuted);
    tc_alg_set_free(s);
    CU_ASSERT_EQUAL(tc_gen_enumerate_bounded(&c, TC_FAMILY_MASK_ALL, fused, &s, &sub, &e), TC_OK);
    CU_ASSERT_STRING_EQUAL(sub.which, "the fused dgemms");
    CU_ASSERT_EQUAL(s ? s->count : -1, fused);
    tc_alg_set_free(s);
    CU_ASSERT_EQUAL(check_bounded(&c, fused - 1, &sub), -1);
    /* the paper's family alone: its dgemms first */
    CU_ASSERT_EQUAL(tc_gen_enumerate_bounded(&c, 1u << TC_FAMILY_PAPER, dgemms, &s, &sub, &e),
                    TC_OK);
    CU_ASSERT_STRING_EQUAL(sub.which, "the dgemm-based families");
    CU_ASSERT_EQUAL(s ? (uint64_t)s->count : 0, n[TC_FAMILY_PAPER][TC_KERNEL_DGEMM]);
    tc_alg_set_free(s);
}

int tc_suite_subset(void)
{
    CU_pSuite s = CU_add_suite("subset", NULL, NULL);
    if (!s)
        return -1;
    return !CU_add_test(s, "counted without building = built, per class", test_counts) ||
           !CU_add_test(s, "bounded: whole classes in order, within the bound", test_bounded)
               ? -1
               : 0;
}
