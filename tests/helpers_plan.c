/* helpers_plan.c - running a plan against the reference (helpers_plan.h). */
#include "tests/helpers_plan.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "runtime/memory.h"
#include "runtime/reference.h"
#include "tests/helpers_corpus.h"

int tc_test_parse_cm(const char *text, const char *sizes, tc_contraction *c)
{
    char msg[256];
    if (tc_corpus_parse(text, sizes, c, msg, sizeof msg) != 0) {
        fprintf(stderr, "\n  cannot parse %s ; %s: %s\n", text, sizes, msg);
        return -1;
    }
    return 0;
}

double tc_test_exec_vs_reference(const tc_plan *p, const char *text, const char *sizes,
                                 uint64_t seed)
{
    tc_contraction c;
    if (tc_test_parse_cm(text, sizes, &c) != 0)
        return INFINITY;
    int64_t na = c.tensor[TC_A].elements, nb = c.tensor[TC_B].elements;
    int64_t nc = c.tensor[TC_C].elements;
    double *A = tc_rt_alloc(na, NULL), *B = tc_rt_alloc(nb, NULL);
    double *got = tc_rt_alloc(nc, NULL), *want = tc_rt_alloc(nc, NULL);
    double err = INFINITY;
    if (A && B && got && want) {
        uint64_t st = seed;
        tc_corpus_fill(A, na, &st);
        tc_corpus_fill(B, nb, &st);
        if (c.beta == 0.0) {
            for (int64_t k = 0; k < nc; k++)
                got[k] = want[k] = NAN;
        } else {
            tc_corpus_fill(got, nc, &st);
            memcpy(want, got, (size_t)nc * sizeof *got);
        }
        tc_rt_reference(&c, A, B, want);
        tc_status s = tc_execute(p, A, B, got);
        if (s == TC_OK)
            err = tc_corpus_relerr(got, want, nc);
        else
            fprintf(stderr, "\n  tc_execute(%s): %s\n", text, tc_status_name(s));
    }
    tc_rt_free(A);
    tc_rt_free(B);
    tc_rt_free(got);
    tc_rt_free(want);
    return err;
}
