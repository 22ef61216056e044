/*
 * test_execute.c - every algorithm of every corpus contraction executed by
 * tc_rt_execute with OpenBLAS and with BLIS (every family: the paper's,
 * fused, permuted), compared with the naive
 * reference (1e-12 relative); beta 0 overwrites NaN; alpha 0 with Inf and
 * NaN in A and B is beta * C for every algorithm; C copies; errors.
 */
#include <CUnit/CUnit.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "generator/generator.h"
#include "runtime/blas.h"
#include "runtime/execute.h"
#include "runtime/memory.h"
#include "runtime/reference.h"
#include "runtime/timer.h"
#include "tests/helpers_corpus.h"

#define NLIBS 2
static const char *const lib_names[NLIBS] = {"openblas", "blis"};
static tc_blas *libs[NLIBS];

static int suite_init(void)
{
    for (int l = 0; l < NLIBS; l++) {
        tc_error e;
        if (tc_rt_blas_load(lib_names[l], 1, &libs[l], &e) != TC_OK) {
            fprintf(stderr, "execute: cannot load %s: %s\n", lib_names[l], e.message);
            libs[l] = NULL;
        }
    }
    return 0;
}

static int suite_clean(void)
{
    for (int l = 0; l < NLIBS; l++) {
        tc_rt_blas_unload(libs[l]);
        libs[l] = NULL;
    }
    return 0;
}

/* A contraction's tensors for a test: A and B, C's initial values (C0)
 * and two results (want, got). */
typedef struct operands {
    int64_t na, nb, nc;
    double *A, *B, *C0, *want, *got;
} operands;

static void operands_free(operands *o)
{
    tc_rt_free(o->A);
    tc_rt_free(o->B);
    tc_rt_free(o->C0);
    tc_rt_free(o->want);
    tc_rt_free(o->got);
    memset(o, 0, sizeof *o);
}

/* Allocates o's tensors for c; 0 when all are, -1 (all freed) otherwise. */
static int operands_new(const tc_contraction *c, operands *o)
{
    o->na = c->tensor[TC_A].elements, o->nb = c->tensor[TC_B].elements;
    o->nc = c->tensor[TC_C].elements;
    o->A = tc_rt_alloc(o->na, NULL), o->B = tc_rt_alloc(o->nb, NULL);
    o->C0 = tc_rt_alloc(o->nc, NULL), o->want = tc_rt_alloc(o->nc, NULL);
    o->got = tc_rt_alloc(o->nc, NULL);
    if (o->A && o->B && o->C0 && o->want && o->got)
        return 0;
    operands_free(o);
    return -1;
}

static int family_runs[TC_FAMILY_COUNT]; /* executions per family */
static int blocked_runs; /* of them, a tensor permuted block by block */

/* 1 when alg permutes a tensor block by block (a permutation in a loop). */
static int blocked(const tc_algorithm *alg)
{
    for (int k = 0; k < alg->ncopies; k++)
        if (alg->copy_node[k]->kind == TC_NODE_PERMUTE && alg->copy_node[k]->parent)
            return 1;
    return 0;
}

/* Runs every algorithm of *c (every family) with every library; with
 * split >= 2, only the threaded ones over that many threads
 * (tc_gen_add_threaded). Returns the failures. */
static uint64_t wider_algorithms; /* fused and permuted, enumerated by check_all */
static int split_own_temps;       /* split runs with temporaries per thread */
static int split_reducing;        /* split runs over a contracted loop */

static int check_some(const tc_contraction *c, const char *text, uint64_t seed, int split,
                      int *nrun)
{
    tc_algorithm_set *set = NULL;
    tc_error e;
    if (tc_gen_enumerate_families(c, TC_KERNEL_MASK_ALL, TC_FAMILY_MASK_ALL, &set, &e) !=
            TC_OK ||
        (split > 1 && tc_gen_add_threaded(set, c, split, &e) != TC_OK)) {
        fprintf(stderr, "\n  %s: %s\n", text, e.message);
        tc_alg_set_free(set);
        return 1;
    }
    for (int i = 0; i < set->count; i++)
        wider_algorithms += split < 2 && set->alg[i]->family != TC_FAMILY_PAPER;
    operands o;
    int bad = 0;
    if (operands_new(c, &o) != 0) {
        tc_alg_set_free(set);
        return 1;
    }
    int64_t nc = o.nc;
    double *A = o.A, *B = o.B, *C0 = o.C0, *want = o.want, *got = o.got;
    uint64_t state = seed;
    tc_corpus_fill(A, o.na, &state);
    tc_corpus_fill(B, o.nb, &state);
    tc_corpus_fill(C0, nc, &state);
    if (c->beta == 0.0) /* garbage that must not survive */
        for (int64_t k = 0; k < nc; k += 2)
            C0[k] = NAN;
    memcpy(want, C0, (size_t)nc * sizeof *want);
    if (c->beta == 0.0)
        for (int64_t k = 0; k < nc; k++)
            want[k] = 0.0;
    tc_rt_reference(c, A, B, want);
    for (int l = 0; l < NLIBS; l++) {
        if (!libs[l]) {
            bad++;
            continue;
        }
        for (int i = 0; i < set->count; i++) {
            const tc_algorithm *alg = set->alg[i];
            if ((split > 1) != (alg->split > 1))
                continue;
            for (int t = 0; t < alg->ntemps; t++)
                split_own_temps += tc_alg_temp_per_thread(alg, t);
            split_reducing += alg->partial > 0;
            memcpy(got, C0, (size_t)nc * sizeof *got);
            tc_status s = tc_rt_execute(libs[l], alg, c, A, B, got, &e);
            double err = s == TC_OK ? tc_corpus_relerr(got, want, nc) : INFINITY;
            (*nrun)++;
            family_runs[alg->family]++;
            blocked_runs += blocked(alg);
            if (!(err <= 1e-12)) {
                if (bad < 10)
                    fprintf(stderr, "\n  %s: %s with %s: %s (relative error %g)\n", text,
                            alg->name, lib_names[l], s == TC_OK ? "wrong result" : e.message,
                            err);
                bad++;
            }
        }
    }
    operands_free(&o);
    tc_alg_set_free(set);
    return bad;
}

static int check_all(const tc_contraction *c, const char *text, uint64_t seed, int *nrun)
{
    return check_some(c, text, seed, 0, nrun);
}

static void test_corpus(void)
{
    tc_corpus_entry *corpus;
    int n = tc_corpus_require(&corpus);
    int runs = 0;
    uint64_t algorithms = 0;
    wider_algorithms = 0;
    for (int i = 0; i < n; i++) {
        CU_ASSERT_EQUAL(check_all(&corpus[i].c, corpus[i].text, 1000 + (uint64_t)i, &runs), 0);
        for (int k = 0; k < TC_KERNEL_COUNT; k++)
            algorithms += tc_gen_count(&corpus[i].c, 1u << TC_FAMILY_PAPER, (tc_kernel)k);
    }
    /* every algorithm (the paper's closed forms, and the fused) ran with
     * both libraries */
    CU_ASSERT_EQUAL((uint64_t)runs, NLIBS * (algorithms + wider_algorithms));
    CU_ASSERT(wider_algorithms > 20);
    CU_ASSERT(algorithms > 2500);
    fprintf(stderr, "[%d contractions, %llu + %llu fused or permuted algorithms, %d executions]\n",
            n, (unsigned long long)algorithms, (unsigned long long)wider_algorithms, runs);
}

/* Loops split over threads (tc_alg_split): every threaded algorithm of
 * every corpus contraction, over 2 and 3 threads, gives the reference's
 * result with both libraries, among them ones whose threads each fill
 * their own temporaries (slices and blocks) and ones split over a
 * contracted index (partial C per thread, added after the loop; beta 0
 * with NaN in C, and other betas, as the corpus has them). */
static void test_split(void)
{
    tc_corpus_entry *corpus;
    int n = tc_corpus_require(&corpus), runs = 0;
    split_own_temps = split_reducing = 0;
    for (int threads = 2; threads <= 3; threads++)
        for (int i = 0; i < n; i++)
            CU_ASSERT_EQUAL(check_some(&corpus[i].c, corpus[i].text, 3000 + (uint64_t)i,
                                       threads, &runs),
                            0);
    /* C accumulated into (beta 1 and another) over two contracted
     * indices, one looped and split: the corpus has no such case. Each
     * library's run reuses the partial C the one before it left in the
     * scratch cache, so a thread that did not start from beta 0 adds it. */
    static const char *const accumulate[][2] = {
        {"C[a,b] += A[a,i,j] * B[j,b,i]", "a=5,b=4,i=6,j=3"},
        {"C[a,b,c] += -1.5 * A[a,i,c,j] * B[j,b,i]", "a=3,b=4,c=2,i=5,j=7"},
    };
    for (int threads = 2; threads <= 3; threads++)
        for (int k = 0; k < 2; k++) {
            tc_contraction c;
            char msg[256];
            CU_ASSERT_FATAL(tc_corpus_parse(accumulate[k][0], accumulate[k][1], &c, msg,
                                            sizeof msg) == 0);
            int before = split_reducing;
            CU_ASSERT_EQUAL(check_some(&c, accumulate[k][0], 5000 + (uint64_t)k, threads, &runs),
                            0);
            CU_ASSERT(split_reducing > before);
        }
    CU_ASSERT(runs > 1000);
    CU_ASSERT(split_own_temps > 20);
    CU_ASSERT(split_reducing > 100);
    fprintf(stderr, "[%d split executions, %d with temporaries per thread, %d over a "
                    "contracted loop]\n",
            runs, split_own_temps, split_reducing);
}

/* The parts tc_rt_execute_parts timed for alg are right: each a copy,
 * permutation or kernel node of alg outside a split loop, or that loop,
 * none twice, every one of those present, none negative, and all of them
 * together within the run's own time (they are disjoint stretches of
 * it). Returns 0 when they are. */
/* 1 when node n lies inside loop (NULL: never). */
static int inside(const tc_node *n, const tc_node *loop)
{
    for (n = n->parent; loop && n; n = n->parent)
        if (n == loop)
            return 1;
    return 0;
}

static int parts_wrong(const tc_algorithm *alg, const tc_rt_parts *m, double wall)
{
    const tc_node *loop = alg->split > 1 ? alg->loop_node[0] : NULL;
    int want = 1, found = 0; /* the kernel, or the split loop around it */
    double sum = m->beta_pass_s;
    for (int k = 0; k < alg->ncopies; k++)
        want += !inside(alg->copy_node[k], loop);
    for (int i = 0; i < m->n; i++) {
        const tc_node *n = m->node[i];
        int mine = loop ? n == loop : n == alg->kernel_node;
        for (int k = 0; k < alg->ncopies; k++)
            mine |= alg->copy_node[k] == n && !inside(n, loop);
        if (!mine || m->seconds[i] < 0.0)
            return 1;
        for (int j = 0; j < i; j++)
            if (m->node[j] == n)
                return 1;
        sum += m->seconds[i];
        found++;
    }
    return found != want || sum > wall;
}

/* Every algorithm of the corpus run with its parts timed
 * (tc_rt_execute_parts, for `tcgen explain --measure`), also split over 2
 * threads: C bit for bit as tc_rt_execute leaves it, and the parts are
 * the algorithm's (parts_wrong). */
static void test_parts(void)
{
    tc_corpus_entry *corpus;
    int n = tc_corpus_require(&corpus), runs = 0, split_runs = 0;
    CU_ASSERT_PTR_NOT_NULL_FATAL(libs[0]);
    for (int i = 0; i < n; i++) {
        const tc_contraction *c = &corpus[i].c;
        tc_algorithm_set *set = NULL;
        tc_error e;
        CU_ASSERT_FATAL(tc_gen_enumerate_families(c, TC_KERNEL_MASK_ALL, TC_FAMILY_MASK_ALL,
                                                  &set, &e) == TC_OK &&
                        tc_gen_add_threaded(set, c, 2, &e) == TC_OK);
        operands o;
        CU_ASSERT_FATAL(operands_new(c, &o) == 0);
        int64_t nc = o.nc;
        double *A = o.A, *B = o.B, *C0 = o.C0, *want = o.want, *got = o.got;
        uint64_t state = 4000 + (uint64_t)i;
        tc_corpus_fill(A, o.na, &state);
        tc_corpus_fill(B, o.nb, &state);
        tc_corpus_fill(C0, nc, &state);
        for (int k = 0; k < set->count; k++) {
            const tc_algorithm *alg = set->alg[k];
            tc_rt_parts m;
            memset(&m, 0, sizeof m);
            memcpy(want, C0, (size_t)nc * sizeof *want);
            memcpy(got, C0, (size_t)nc * sizeof *got);
            CU_ASSERT_EQUAL(tc_rt_execute(libs[0], alg, c, A, B, want, &e), TC_OK);
            double t0 = tc_rt_now();
            CU_ASSERT_EQUAL(tc_rt_execute_parts(libs[0], alg, c, A, B, got, &m, &e), TC_OK);
            double wall = tc_rt_now() - t0;
            int same = memcmp(want, got, (size_t)nc * sizeof *got) == 0;
            int wrong = parts_wrong(alg, &m, wall);
            if (!same || wrong)
                fprintf(stderr, "\n  %s: %s: %s\n", corpus[i].text, alg->name,
                        !same ? "another C" : "wrong parts");
            CU_ASSERT(same && !wrong);
            runs++;
            split_runs += alg->split > 1;
        }
        operands_free(&o);
        tc_alg_set_free(set);
    }
    CU_ASSERT(runs > 2500 && split_runs > 500);
    fprintf(stderr, "[%d runs timed part by part, %d split]\n", runs, split_runs);
}

/* Scalars given at run time (tc_execute_scaled passes them in a copy of
 * the contraction): every algorithm of every corpus contraction with
 * alpha -1.5 and beta 0.5, -2 and 0 (C not read), whatever the
 * contraction's own factor and '=' or '+='. */
static void test_runtime_scalars(void)
{
    static const double betas[] = {0.5, -2.0, 0.0};
    tc_corpus_entry *corpus;
    int n = tc_corpus_require(&corpus), runs = 0;
    for (int i = 0; i < n; i++)
        for (int b = 0; b < 3; b++) {
            tc_contraction c = corpus[i].c;
            c.alpha = -1.5;
            c.beta = betas[b];
            CU_ASSERT_EQUAL(check_all(&c, corpus[i].text, 2000 + (uint64_t)(3 * i + b), &runs),
                            0);
        }
    CU_ASSERT(runs > 3 * 2500);
}

/* The three oracles at other sizes (size 1 everywhere, and mixed). */
static void test_oracle_sizes(void)
{
    static const char *const cases[][2] = {
        {"C[a,b,c] = A[a,i] * B[i,b,c]", "a=b=c=i=1"},
        {"C[a,b,c] = A[a,i] * B[i,b,c]", "a=7,b=1,c=6,i=3"},
        {"C[a] = A[i,a,j] * B[j,i]", "a=1,i=7,j=2"},
        {"C[a,b,c] = A[i,j,a] * B[j,b,i,c]", "a=1,b=3,c=4,i=1,j=5"},
        {"C[a,b,c] += 2 * A[i,j,a] * B[j,b,i,c]", "a=2,b=2,c=3,i=4,j=2"},
    };
    int runs = 0;
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
        tc_contraction c;
        char msg[512];
        CU_ASSERT_FATAL(tc_corpus_parse(cases[k][0], cases[k][1], &c, msg, sizeof msg) == 0);
        CU_ASSERT_EQUAL(check_all(&c, cases[k][0], 77 + k, &runs), 0);
    }
}

/* Random contractions (batch indices, sizes 1-4, alpha, +=): every
 * algorithm of each, both libraries. */
static void test_random(void)
{
    uint64_t state = 4242;
    int runs = 0;
    for (int k = 0; k < 40; k++) {
        char text[256], sizes[256], msg[512];
        tc_corpus_random(&state, 6, 4, text, sizeof text, sizes, sizeof sizes);
        tc_contraction c;
        if (tc_corpus_parse(text, sizes, &c, msg, sizeof msg) != 0) {
            fprintf(stderr, "\n  %s\n", msg);
            CU_FAIL("parse");
            continue;
        }
        CU_ASSERT_EQUAL(check_all(&c, text, 9000 + (uint64_t)k, &runs), 0);
    }
    CU_ASSERT(runs > 1000);
    CU_ASSERT(family_runs[TC_FAMILY_FUSED] > 100);
    CU_ASSERT(family_runs[TC_FAMILY_PERMUTED] > 50);
    CU_ASSERT(blocked_runs > 20);
    fprintf(stderr, "[%d executions, %d fused, %d permuted, %d of them blocked]\n", runs,
            family_runs[TC_FAMILY_FUSED], family_runs[TC_FAMILY_PERMUTED], blocked_runs);
}

/* Random data with an Inf, a -Inf and a NaN in it (where it has room). */
static void fill_poisoned(double *x, int64_t n, uint64_t *state)
{
    tc_corpus_fill(x, n, state);
    x[0] = INFINITY;
    x[n / 2] = NAN;
    x[n - 1] = n > 2 ? -INFINITY : x[n - 1];
}

/* C = 0 * A * B (+ beta * C) with Inf and NaN in A and B: every algorithm
 * of every corpus contraction gives the reference's beta * C exactly, for
 * beta 0 (C not read: NaN there does not survive), 1 and 0.5. Before, 0 *
 * Inf made NaN in some algorithms and not in others. */
static void test_zero_alpha(void)
{
    tc_corpus_entry *corpus;
    int n = tc_corpus_require(&corpus), runs = 0, bad = 0;
    static const double betas[] = {0.0, 1.0, 0.5};
    CU_ASSERT_FATAL(libs[0] != NULL);
    for (int i = 0; i < n; i++) {
        tc_algorithm_set *set = NULL;
        tc_error e;
        CU_ASSERT_FATAL(tc_gen_enumerate_families(&corpus[i].c, TC_KERNEL_MASK_ALL,
                                                  TC_FAMILY_MASK_ALL, &set, &e) == TC_OK);
        for (int b = 0; b < 3; b++) {
            tc_contraction c = corpus[i].c;
            c.alpha = 0.0;
            c.beta = betas[b];
            operands o;
            CU_ASSERT_FATAL(operands_new(&c, &o) == 0);
            int64_t nc = o.nc;
            double *A = o.A, *B = o.B, *C0 = o.C0, *want = o.want, *got = o.got;
            uint64_t state = 31 + (uint64_t)i;
            fill_poisoned(A, o.na, &state);
            fill_poisoned(B, o.nb, &state);
            tc_corpus_fill(C0, nc, &state);
            if (c.beta == 0.0)
                for (int64_t k = 0; k < nc; k += 2)
                    C0[k] = NAN;
            memcpy(want, C0, (size_t)nc * sizeof *want);
            tc_rt_reference(&c, A, B, want);
            for (int64_t k = 0; k < nc; k++) /* the reference is beta * C itself */
                CU_ASSERT(want[k] == (c.beta == 0.0 ? 0.0 : c.beta * C0[k]));
            for (int a = 0; a < set->count; a++) {
                memcpy(got, C0, (size_t)nc * sizeof *got);
                tc_status s = tc_rt_execute(libs[0], set->alg[a], &c, A, B, got, &e);
                runs++;
                if (s != TC_OK || tc_corpus_relerr(got, want, nc) != 0.0) {
                    if (bad++ < 10)
                        fprintf(stderr, "\n  0 * (%s), beta %g: %s gives another C\n",
                                corpus[i].text, c.beta, set->alg[a]->name);
                }
            }
            operands_free(&o);
        }
        tc_alg_set_free(set);
    }
    CU_ASSERT_EQUAL(bad, 0);
    CU_ASSERT(runs > 3 * 2500);
    fprintf(stderr, "[%d executions with alpha 0]\n", runs);
}

/* Which loops split over a contracted index (tc_alg_split_reduces): one
 * whose kernel writes C itself with beta (dgemm, dgemv), with or without
 * a slice copy per thread; not dger or daxpy (no beta to start a partial C
 * from 0), nor a kernel writing C's permuted temporary. Each other thread's
 * partial C spans C's view and counts in the workspace. */
static void test_split_rules(void)
{
    static const struct {
        const char *name;
        int splits;
    } want[] = {{"i-dgemm@2", 1}, {"j'-dgemm@2", 1}, {"ia-dgemv@2", 1}, {"ij-dger@2", 0},
                {"iaj-daxpy@2", 0}, {"C^i-dgemm@2", 0}, {"A^i-dgemm@3", 1}};
    tc_contraction c;
    char msg[256];
    tc_error e;
    CU_ASSERT_FATAL(tc_corpus_parse("C[a,b] = A[a,i,j] * B[j,b,i]", "a=5,b=4,i=6,j=3", &c, msg,
                                    sizeof msg) == 0);
    tc_contraction gaps, permuted;
    CU_ASSERT_FATAL(tc_corpus_with_gaps(&c, &gaps, &e) == 0);
    CU_ASSERT_FATAL(gaps.tensor[TC_C].span > gaps.tensor[TC_C].elements);
    CU_ASSERT_FATAL(tc_corpus_parse("C[b,a] = A[a,i,j] * B[j,b,i]", "a=5,b=4,i=6,j=3",
                                    &permuted, msg, sizeof msg) == 0);
    for (int g = 0; g < 2; g++) {
        const tc_contraction *x = g ? &gaps : &c;
        tc_algorithm_set *set = NULL, *pset = NULL;
        CU_ASSERT_FATAL(tc_gen_enumerate_families(x, TC_KERNEL_MASK_ALL, TC_FAMILY_MASK_ALL,
                                                  &set, &e) == TC_OK);
        CU_ASSERT_FATAL(tc_gen_enumerate_families(&permuted, TC_KERNEL_MASK_ALL,
                                                  TC_FAMILY_MASK_ALL, &pset, &e) == TC_OK);
        for (size_t k = 0; k < sizeof want / sizeof want[0]; k++) {
            int perm = want[k].name[0] == 'C';
            char base[64];
            int threads = tc_alg_split_name(want[k].name, base, sizeof base);
            const tc_algorithm *whole = tc_alg_set_find(perm ? pset : set, base);
            CU_ASSERT_FATAL(whole != NULL); /* it exists, whether or not it splits */
            const tc_algorithm *a = tc_gen_find(perm ? pset : set, perm ? &permuted : x,
                                                want[k].name);
            CU_ASSERT_EQUAL((a != NULL), want[k].splits);
            if (!a)
                continue;
            CU_ASSERT_EQUAL(a->partial, x->tensor[TC_C].span);
            int64_t per_thread = 0; /* the temporaries each thread has its own of */
            for (int t = 0; t < a->ntemps; t++)
                per_thread += tc_alg_temp_per_thread(a, t) ? a->temp[t].elements * 8 : 0;
            CU_ASSERT_EQUAL(tc_alg_temp_bytes(a), tc_alg_temp_bytes(whole) +
                                                      (threads - 1) * per_thread +
                                                      (threads - 1) * a->partial * 8);
        }
        tc_alg_set_free(set);
        tc_alg_set_free(pset);
    }
}

static void test_errors(void)
{
    tc_contraction c, nosizes;
    char msg[512];
    tc_error e;
    CU_ASSERT_FATAL(tc_corpus_parse("C[a,b] = A[a,i] * B[i,b]", NULL, &nosizes, msg,
                                    sizeof msg) == 0);
    CU_ASSERT_FATAL(tc_corpus_parse("C[a,b] = A[a,i] * B[i,b]", "a=2,b=2,i=2", &c, msg,
                                    sizeof msg) == 0);
    tc_algorithm_set *set = NULL;
    CU_ASSERT_FATAL(tc_gen_enumerate(&c, TC_KERNEL_MASK_ALL, &set, &e) == TC_OK);
    double A[4] = {1, 2, 3, 4}, B[4] = {1, 0, 0, 1}, C[4];
    if (libs[0]) {
        CU_ASSERT_EQUAL(tc_rt_execute(libs[0], set->alg[0], &nosizes, A, B, C, &e), TC_EUSAGE);
        CU_ASSERT_EQUAL(tc_rt_execute(libs[0], set->alg[0], &c, A, B, NULL, &e), TC_EUSAGE);
        CU_ASSERT_EQUAL(tc_rt_execute(libs[0], set->alg[0], &c, A, B, C, &e), TC_OK);
        CU_ASSERT(C[0] == 1 && C[1] == 2 && C[2] == 3 && C[3] == 4);
    }
    CU_ASSERT_EQUAL(tc_rt_execute(NULL, set->alg[0], &c, A, B, C, &e), TC_EUSAGE);
    tc_alg_set_free(set);
}

int tc_suite_execute(void)
{
    CU_pSuite s = CU_add_suite("execute", suite_init, suite_clean);
    if (!s)
        return -1;
    return !CU_add_test(s, "every algorithm of the corpus, OpenBLAS and BLIS", test_corpus) ||
           !CU_add_test(s, "loops split over 2 and 3 threads, every threaded algorithm",
                        test_split) ||
           !CU_add_test(s, "which loops split over a contracted index", test_split_rules) ||
           !CU_add_test(s, "parts timed: the same C, the algorithm's own parts", test_parts) ||
           !CU_add_test(s, "oracles at sizes 1 and mixed sizes", test_oracle_sizes) ||
           !CU_add_test(s, "scalars at run time: any alpha and beta, every algorithm",
                        test_runtime_scalars) ||
           !CU_add_test(s, "40 random contractions, every algorithm", test_random) ||
           !CU_add_test(s, "alpha 0 with Inf and NaN in A and B: beta * C, every "
                           "algorithm", test_zero_alpha) ||
           !CU_add_test(s, "errors: no sizes, NULL arguments", test_errors)
               ? -1
               : 0;
}
