/*
 * test_sample.c - the Sampler (microbench/sample.h): every timed node of
 * every algorithm of three contractions (kernels, copies in and out, a
 * scalar ddot output) samples to a positive finite time; setup lists touch
 * exactly what they claim, in both flush modes; identical cases are timed
 * once; the memory check refuses what does not fit before allocating;
 * outputs stay bounded however many repetitions run. Cases are built by
 * hand from the algorithms' nodes, so the suite does not depend on the
 * analyzer. No assertion on wall-clock time.
 */
#include <CUnit/CUnit.h>
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>

#include "generator/generator.h"
#include "microbench/analyze.h"
#include "microbench/memo.h"
#include "microbench/model_input.h"
#include "microbench/pool.h"
#include "microbench/predict.h"
#include "microbench/sample.h"
#include "microbench/sample_impl.h"
#include "microbench/tlb.h"
#include "microbench/touch.h"
#include "runtime/blas.h"
#include "runtime/memory.h"
#include "runtime/memory_limit.h"
#include "runtime/timer.h"
#include "tests/helpers_corpus.h"

#define TEST_LLC (1 << 20) /* a small fake cache keeps the pool and setups cheap */
#define TEST_LINE 64
#define LINE_DOUBLES (TEST_LINE / 8)

static tc_blas *blas;
static tc_timer timer;
static int timer_ok;

static int suite_init(void)
{
    tc_error e;
    if (tc_rt_blas_load("openblas", 1, &blas, &e) != TC_OK) {
        fprintf(stderr, "sample: cannot load openblas: %s\n", e.message);
        blas = NULL;
    }
    timer_ok = tc_rt_timer_init(&timer, &e) == TC_OK;
    if (!timer_ok)
        fprintf(stderr, "sample: no timer: %s\n", e.message);
    return 0;
}

static int suite_clean(void)
{
    tc_rt_blas_unload(blas);
    blas = NULL;
    return 0;
}

static tc_mb_sampler *new_sampler(int reps, tc_mb_flush flush)
{
    CU_ASSERT_PTR_NOT_NULL_FATAL(blas);
    CU_ASSERT_FATAL(timer_ok);
    tc_mb_sampler_options o = {.blas = blas, .timer = &timer, .llc_bytes = TEST_LLC,
                               .line_bytes = TEST_LINE, .reps = reps, .flush = flush};
    tc_mb_sampler *s = NULL;
    tc_error e;
    tc_status st = tc_mb_sampler_new(&o, &s, &e);
    if (st != TC_OK)
        fprintf(stderr, "\n  sampler: %s\n", e.message);
    CU_ASSERT_EQUAL_FATAL(st, TC_OK);
    return s;
}

/* ---- hand-built cases ---------------------------------------------- */

static void set_operand(tc_mb_operand *mo, const tc_operand *op, int written)
{
    memset(mo, 0, sizeof *mo);
    mo->op = *op;
    mo->written = written;
    tc_mb_operand_size(mo);
}

/* A case for a kernel, copy or permutation node with no setup: operands as
 * the node's call sees them (a copy: the slice, then its column-major
 * temporary; a permutation: its two sides as flat runs). */
static void case_for(const tc_node *node, tc_mb_case *cs)
{
    memset(cs, 0, sizeof *cs);
    cs->kind = TC_CASE_STEADY;
    cs->node = node;
    cs->count = 1;
    cs->beta = 1.0;
    if (node->kind == TC_NODE_KERNEL) {
        cs->noperands = 3;
        for (int i = 0; i < 3; i++)
            set_operand(&cs->operand[i], &node->call->arg[i], i == 2);
        return;
    }
    if (node->kind == TC_NODE_PERMUTE) {
        tc_operand block, temp;
        tc_permutation_operands(node->perm, NULL, &block, &temp);
        cs->noperands = 2;
        set_operand(&cs->operand[0], &block, node->perm->dir == TC_COPY_OUT);
        set_operand(&cs->operand[1], &temp, node->perm->dir == TC_COPY_IN);
        return;
    }
    const tc_copy *cp = node->copy;
    tc_operand t;
    memset(&t, 0, sizeof t);
    t.base = TC_BASE_TEMP + cp->temp;
    t.tensor = cp->slice.tensor;
    t.rank = 2;
    t.dim[0] = cp->slice.dim[0];
    t.dim[1] = cp->slice.dim[1];
    t.extent[0] = cp->slice.extent[0];
    t.extent[1] = cp->slice.extent[1];
    t.stride[0] = 1;
    t.stride[1] = t.ld = t.extent[0];
    cs->noperands = 2;
    set_operand(&cs->operand[0], &cp->slice, cp->dir == TC_COPY_OUT);
    set_operand(&cs->operand[1], &t, cp->dir == TC_COPY_IN);
}

static void add_entry(tc_mb_case *cs, tc_mb_setup_kind kind, int operand, int64_t elements)
{
    CU_ASSERT_FATAL(cs->nsetup < TC_MB_MAX_SETUP);
    tc_mb_setup *st = &cs->setup[cs->nsetup++];
    st->kind = kind;
    st->operand = operand;
    st->elements = elements;
}

static void add_operand(tc_mb_case *cs, int i)
{
    add_entry(cs, TC_SETUP_OPERAND, i, cs->operand[i].elements);
}

/* The prefetch claim: one line along dimension 0 when that is the tensor's
 * first index (a temporary's contiguous dimension 0), else the whole
 * operand. */
static void add_prefetch(tc_mb_case *cs, const tc_contraction *c, int i)
{
    const tc_operand *op = &cs->operand[i].op;
    int64_t n = cs->operand[i].elements;
    int first = op->base >= TC_BASE_TEMP ? op->stride[0] == 1
                                         : c->tensor[op->tensor].index[0] == tc_dim_start(&op->dim[0]);
    if (op->rank >= 1 && first) {
        int64_t n0 = op->extent[0] < LINE_DOUBLES ? op->extent[0] : LINE_DOUBLES;
        n = n0 * (op->rank >= 2 ? op->extent[1] : 1);
    }
    add_entry(cs, TC_SETUP_PREFETCH, i, n);
}

static void add_remote(tc_mb_case *cs, int64_t elements)
{
    add_entry(cs, TC_SETUP_REMOTE, -1, elements);
}

enum { SETUP_NONE, SETUP_ACCESS, SETUP_TRUNCATED, SETUP_VARIANTS };

/* Setup lists shaped like the analyzer's: an access list (operands with
 * remote regions between them), and a truncated one that starts with a
 * leading region and mixes in prefetch touches. */
static void make_setup(tc_mb_case *cs, const tc_contraction *c, int variant)
{
    int last = cs->noperands - 1;
    cs->nsetup = 0;
    cs->truncated = 0;
    switch (variant) {
    case SETUP_ACCESS:
        add_operand(cs, last);
        add_remote(cs, 3000);
        for (int i = last - 1; i >= 0; i--) {
            add_operand(cs, i);
            add_remote(cs, 200 + 37 * i);
        }
        break;
    case SETUP_TRUNCATED:
        cs->truncated = 1;
        add_remote(cs, 100000);
        add_operand(cs, 0);
        add_remote(cs, 5001);
        add_prefetch(cs, c, last);
        add_remote(cs, 64);
        for (int i = 1; i < cs->noperands; i++)
            add_prefetch(cs, c, i);
        add_operand(cs, last);
        break;
    default:
        break;
    }
}

/* What running cs's setup touches (sample.h): every operand or prefetch
 * entry's elements (touched, or flushed when its distance reaches memory
 * and the sampler flushes), plus 5/4 of level k-1 (at most the pool) of
 * remote data after the entries placed in level k > 0; the analyzer's
 * remote entries count for nothing; the operands a truncated list leaves
 * out are in memory. */
static int64_t claimed(const tc_mb_sampler *s, const int64_t *level, int nlevels, int flush,
                       const tc_mb_case *cs)
{
    int64_t n = 0;
    int used[TC_MB_MAX_LEVELS + 1] = {0};
    for (int i = 0; i < cs->noperands; i++) {
        int listed = 0;
        for (int e = 0; e < cs->nsetup; e++) /* a prefetch entry alone is not it */
            listed |= cs->setup[e].kind == TC_SETUP_OPERAND && cs->setup[e].operand == i;
        if (!listed && cs->truncated) { /* left out: memory */
            n += cs->operand[i].elements;
            used[nlevels] = 1;
        }
    }
    for (int e = 0; e < cs->nsetup; e++) {
        if (cs->setup[e].kind == TC_SETUP_REMOTE)
            continue;
        n += cs->setup[e].elements;
        used[tc_mb_sampler_level(s, cs->setup[e].distance)] = 1;
    }
    int64_t pool = tc_mb_sampler_pool_bytes(s) / 8;
    for (int g = 1; g <= nlevels; g++)
        if (used[g] && !(g == nlevels && flush)) {
            int64_t ev = level[g - 1] / 8 * 5 / 4;
            n += ev < pool ? ev : pool;
        }
    return n;
}

/* The kernel node, then the copy nodes, of alg. */
static int timed_nodes(const tc_algorithm *alg, const tc_node *out[])
{
    int n = 0;
    out[n++] = alg->kernel_node;
    for (int k = 0; k < alg->ncopies; k++)
        out[n++] = alg->copy_node[k];
    return n;
}

typedef struct fixture {
    const char *text, *sizes;
    tc_algorithm_set *set;
    tc_contraction c;
} fixture;

static fixture fixtures[] = {
    {.text = "C[a,b,c] = A[a,i] * B[i,b,c]", .sizes = "a=b=c=64,i=8"},
    {.text = "C[a,b,c] = A[i,j,a] * B[j,b,i,c]", .sizes = "a=b=c=16,i=j=8"},
    {.text = "C[a,b,c] = A[a,b,i] * B[i,c]", .sizes = "a=5,b=6,c=7,i=3"}, /* output copies */
    /* fused and permuted (whole-tensor permutations in and out) */
    {.text = "C[a,b,c,d] = A[a,e,b,f] * B[d,f,c,e]", .sizes = "a=b=c=d=e=f=6"},
    {.text = "C[a,b,z] = A[a,i,z] * B[b,i,z]", .sizes = "a=b=8,i=4,z=3"},
};
#define NFIXTURES ((int)(sizeof fixtures / sizeof fixtures[0]))

static int fixtures_init(void)
{
    if (suite_init() != 0)
        return -1;
    for (int f = 0; f < NFIXTURES; f++) {
        char msg[512];
        tc_error e;
        if (tc_corpus_parse(fixtures[f].text, fixtures[f].sizes, &fixtures[f].c, msg,
                            sizeof msg) != 0 ||
            tc_gen_enumerate_families(&fixtures[f].c, TC_KERNEL_MASK_ALL, TC_FAMILY_MASK_ALL,
                                      &fixtures[f].set, &e) != TC_OK) {
            fprintf(stderr, "sample: cannot build %s\n", fixtures[f].text);
            return -1;
        }
    }
    return 0;
}

static int fixtures_clean(void)
{
    for (int f = 0; f < NFIXTURES; f++) {
        tc_alg_set_free(fixtures[f].set);
        fixtures[f].set = NULL;
    }
    return suite_clean();
}

static const tc_algorithm *find_alg(int f, const char *name)
{
    const tc_algorithm *alg = tc_alg_set_find(fixtures[f].set, name);
    if (!alg)
        fprintf(stderr, "\n  no algorithm %s for %s\n", name, fixtures[f].text);
    CU_ASSERT_PTR_NOT_NULL_FATAL(alg);
    return alg;
}

/* ---- tests ----------------------------------------------------------- */

/* The bound of A^B^C^-dgemm's permutation of its product into C (of
 * C[a,b,c,d] = A[a,e,c,f] * B[f,b,e,d] at n), both operands in memory, on
 * a machine reading at 1 GB/s and updating at 2 GB/s. */
static double out_permutation_bound(int64_t n, int64_t *elements)
{
    char sizes[64], msg[256];
    snprintf(sizes, sizeof sizes, "a=b=c=d=e=f=%lld", (long long)n);
    tc_contraction c;
    tc_error e;
    CU_ASSERT_EQUAL_FATAL(tc_corpus_parse("C[a,b,c,d] = A[a,e,c,f] * B[f,b,e,d]", sizes, &c, msg,
                                          sizeof msg), 0);
    tc_algorithm_set *set = NULL;
    CU_ASSERT_EQUAL_FATAL(tc_gen_enumerate_families(&c, TC_KERNEL_MASK_ALL, TC_FAMILY_MASK_ALL,
                                                    &set, &e), TC_OK);
    const tc_algorithm *alg = tc_alg_set_find(set, "A^B^C^-dgemm");
    CU_ASSERT_PTR_NOT_NULL_FATAL(alg);
    tc_mb_params p = {TC_MODEL_FULL, TEST_LLC, TEST_LINE};
    tc_mb_analysis *a = NULL;
    CU_ASSERT_EQUAL_FATAL(tc_mb_analyze(alg, &c, &p, &a, &e), TC_OK);
    tc_mb_case cs;
    int found = 0;
    for (int i = 0; i < a->ncases; i++)
        if (a->cases[i].node->kind == TC_NODE_PERMUTE && a->cases[i].node->perm->dir == TC_COPY_OUT) {
            cs = a->cases[i];
            found = 1;
        }
    CU_ASSERT_FATAL(found);
    cs.nsetup = 0;
    cs.truncated = 0;
    for (int i = 0; i < 2; i++) {
        add_operand(&cs, i);
        cs.setup[i].distance = 4 * TEST_LLC;
    }
    *elements = tc_permutation_elements(cs.node->perm);
    tc_mb_sampler_options o = {.blas = blas, .timer = &timer, .llc_bytes = TEST_LLC,
                               .line_bytes = TEST_LINE, .reps = 1, .flush = TC_FLUSH_CLFLUSH,
                               .memory_bandwidth = 1e9, .update_bandwidth = 2e9};
    tc_mb_sampler *s = NULL;
    CU_ASSERT_EQUAL_FATAL(tc_mb_sampler_new(&o, &s, &e), TC_OK);
    double bound = tc_mb_case_bound(s, &cs);
    tc_mb_sampler_free(s);
    tc_mb_analysis_free(a);
    tc_alg_set_free(set);
    return bound;
}

/* A permutation that writes C with streaming stores (16 MiB at 38) never
 * reads it, and its reads and writes overlap: its bound is every byte once
 * at the update bandwidth. A small one (32 KiB at 8) reads its output
 * first and writes it back: read at the read bandwidth, the output both
 * ways at the update bandwidth. */
static void test_permutation_bound(void)
{
    int64_t n;
    if (!tc_mb_touch_can_flush())
        return; /* the bound counts flushed operands */
    double big = out_permutation_bound(38, &n);
    CU_ASSERT_DOUBLE_EQUAL(big, 2.0 * 8.0 * (double)n / 2e9, 1e-12);
    double small = out_permutation_bound(8, &n);
    CU_ASSERT_DOUBLE_EQUAL(small, 8.0 * (double)n / 1e9 + 2.0 * 8.0 * (double)n / 2e9, 1e-12);
}

/* The library is warmed on the sampler's own operands after a setup that
 * evicts (the remote sweep that pushes an operand to memory), for a call
 * small enough, and not when nothing was evicted or the call is large. */
static void test_warm_library(void)
{
    tc_mb_sampler *s = new_sampler(2, TC_FLUSH_REMOTE);
    tc_error e;
    tc_mb_case warm, evicted, large;
    case_for(find_alg(0, "c-dgemm")->kernel_node, &warm); /* 64x64x8: 5120 doubles */
    evicted = warm;
    make_setup(&evicted, &fixtures[0].c, SETUP_TRUNCATED);
    evicted.setup[1].distance = TEST_LLC;
    case_for(find_alg(0, "(bc)-dgemm")->kernel_node, &large); /* C alone 2^18 doubles */
    make_setup(&large, &fixtures[0].c, SETUP_TRUNCATED);
    large.setup[1].distance = TEST_LLC;
    CU_ASSERT_EQUAL(tc_mb_sample(s, &fixtures[0].c, &warm, &e), TC_OK);
    CU_ASSERT_EQUAL(tc_mb_sampler_warmed(s), 0);
    CU_ASSERT_EQUAL(tc_mb_sample(s, &fixtures[0].c, &evicted, &e), TC_OK);
    int64_t after = tc_mb_sampler_warmed(s);
    CU_ASSERT(after >= 2); /* the warm-up repetition and each timed one */
    CU_ASSERT_EQUAL(tc_mb_sample(s, &fixtures[0].c, &large, &e), TC_OK);
    CU_ASSERT_EQUAL(tc_mb_sampler_warmed(s), after);
    tc_mb_sampler_free(s);
}

/* Page faults of this process so far. */
static long minor_faults(void)
{
    struct rusage u;
    return getrusage(RUSAGE_SELF, &u) == 0 ? u.ru_minflt : -1;
}

/* A sampler keeps the blocks of a case for the next one by what is
 * resident, not by span: b-dgemm of a 160^3 C touches a page per column
 * of C[:,b,:] (160 pages) in a 32 MB span, and a second case on the same
 * shapes (another benchmark: A also written) faults none of them in again. */
static void test_spare_blocks(void)
{
    tc_contraction c;
    tc_algorithm_set *set = NULL;
    char msg[256];
    CU_ASSERT_EQUAL_FATAL(tc_corpus_parse("C[a,b,c] = A[a,i] * B[i,b,c]", "a=b=c=160,i=8", &c,
                                          msg, sizeof msg), 0);
    CU_ASSERT_EQUAL_FATAL(tc_gen_enumerate_families(&c, TC_KERNEL_MASK_ALL, 1u << TC_FAMILY_PAPER,
                                                    &set, NULL), TC_OK);
    const tc_algorithm *alg = tc_alg_set_find(set, "b-dgemm");
    CU_ASSERT_PTR_NOT_NULL_FATAL(alg);
    tc_mb_sampler *s = new_sampler(1, TC_FLUSH_CLFLUSH);
    tc_mb_case first, second;
    case_for(alg->kernel_node, &first);
    CU_ASSERT(first.operand[2].span > ((int64_t)2 << 20)); /* beyond 16 MiB */
    second = first;
    second.operand[0].written = 1;
    tc_error e;
    CU_ASSERT_EQUAL(tc_mb_sample(s, &c, &first, &e), TC_OK);
    long before = minor_faults();
    CU_ASSERT_EQUAL(tc_mb_sample(s, &c, &second, &e), TC_OK);
    long faults = minor_faults() - before;
    CU_ASSERT_EQUAL(tc_mb_sampler_timed(s), 2);
    CU_ASSERT(before >= 0 && faults < 40);
    if (faults >= 40)
        fprintf(stderr, "\n  second case faulted %ld pages in\n", faults);
    tc_mb_sampler_free(s);
    tc_alg_set_free(set);
}

/* Every timed node of every algorithm, with each setup variant. */
static void test_every_case(void)
{
    tc_mb_sampler *s = new_sampler(3, TC_FLUSH_CLFLUSH);
    int64_t requests = 0;
    int copies_in = 0, copies_out = 0, scalar_ddot = 0, bad = 0, permuted = 0, fused = 0;
    for (int f = 0; f < NFIXTURES; f++) {
        const tc_algorithm_set *set = fixtures[f].set;
        CU_ASSERT(set->count > 0);
        for (int a = 0; a < set->count; a++) {
            const tc_node *nodes[1 + 2 * TC_MAX_TEMPS];
            int nn = timed_nodes(set->alg[a], nodes);
            for (int k = 0; k < nn; k++) {
                const tc_node *node = nodes[k];
                permuted += node->kind == TC_NODE_PERMUTE;
                fused += set->alg[a]->family == TC_FAMILY_FUSED;
                if (node->kind != TC_NODE_KERNEL) {
                    tc_copy_dir dir = node->kind == TC_NODE_PERMUTE ? node->perm->dir
                                                                    : node->copy->dir;
                    copies_in += dir == TC_COPY_IN;
                    copies_out += dir == TC_COPY_OUT;
                } else if (node->call->kernel == TC_KERNEL_DDOT && node->call->arg[2].rank == 0)
                    scalar_ddot++;
                for (int v = 0; v < SETUP_VARIANTS; v++) {
                    tc_mb_case cs;
                    case_for(node, &cs);
                    make_setup(&cs, &fixtures[f].c, v);
                    tc_error e;
                    tc_status st = tc_mb_sample(s, &fixtures[f].c, &cs, &e);
                    requests++;
                    if (st != TC_OK || !(cs.seconds > 0.0) || !isfinite(cs.seconds)) {
                        if (bad++ < 5)
                            fprintf(stderr, "\n  %s %s node %d setup %d: %s (%g s)\n",
                                    fixtures[f].text, set->alg[a]->name, k, v,
                                    st == TC_OK ? "ok" : e.message, cs.seconds);
                    }
                }
            }
        }
    }
    CU_ASSERT_EQUAL(bad, 0);
    CU_ASSERT(copies_in > 0);
    CU_ASSERT(copies_out > 0);
    CU_ASSERT(scalar_ddot > 0);
    CU_ASSERT(permuted > 0);
    CU_ASSERT(fused > 0);
    CU_ASSERT_EQUAL(tc_mb_sampler_timed(s) + tc_mb_sampler_reused(s), requests);
    CU_ASSERT(tc_mb_sampler_timed(s) > 64); /* the memo grew past its first table */
    fprintf(stderr, "[%lld requests, %lld timed] ", (long long)requests,
            (long long)tc_mb_sampler_timed(s));
    tc_mb_sampler_free(s);
}

/* i'c-dgemm's copy of A[i,:,:] and its dgemm, in both flush modes. */
static void test_copy_algorithm(void)
{
    const tc_algorithm *alg = find_alg(1, "i'c-dgemm");
    CU_ASSERT_EQUAL_FATAL(alg->ncopies, 1);
    for (int mode = 0; mode < 2; mode++) {
        tc_mb_sampler *s = new_sampler(5, mode ? TC_FLUSH_REMOTE : TC_FLUSH_CLFLUSH);
        const tc_node *nodes[2] = {alg->copy_node[0], alg->kernel_node};
        for (int k = 0; k < 2; k++) {
            tc_mb_case cs;
            case_for(nodes[k], &cs);
            make_setup(&cs, &fixtures[1].c, SETUP_TRUNCATED);
            tc_error e;
            CU_ASSERT_EQUAL(tc_mb_sample(s, &fixtures[1].c, &cs, &e), TC_OK);
            CU_ASSERT(cs.seconds > 0.0 && isfinite(cs.seconds));
        }
        CU_ASSERT_EQUAL(tc_mb_sampler_timed(s), 2);
        tc_mb_sampler_free(s);
    }
}

/* The LLC's edge: a case with an operand on it is timed twice, with the
 * operand in the LLC and in memory; a case off the edge is timed once. */
static void test_llc_edge(void)
{
    tc_mb_sampler_options o = {.blas = blas, .timer = &timer, .llc_bytes = TEST_LLC,
                               .line_bytes = TEST_LINE, .reps = 1, .flush = TC_FLUSH_CLFLUSH};
    for (int k = 0; k < TC_EDGE_POINTS; k++) /* all to 3/4 of the LLC, none from 2x */
        o.llc_edge[k] = k <= 1 ? 1.0 : k >= 6 ? 0.0 : 1.0 - 0.2 * (k - 1);
    tc_mb_sampler *s = NULL;
    CU_ASSERT_EQUAL_FATAL(tc_mb_sampler_new(&o, &s, NULL), TC_OK);
    const tc_algorithm *alg = find_alg(0, "b-dgemm");
    const double at[] = {0.25, 1.5, 4.0}; /* distance / LLC */
    for (int t = 0; t < 3; t++) {
        tc_mb_case cs;
        case_for(alg->kernel_node, &cs);
        add_operand(&cs, 2);
        cs.setup[0].distance = (int64_t)(at[t] * TEST_LLC / 8);
        int64_t before = tc_mb_sampler_timed(s) + tc_mb_sampler_reused(s);
        tc_error e;
        CU_ASSERT_EQUAL(tc_mb_sample(s, &fixtures[0].c, &cs, &e), TC_OK);
        /* timed, or found timed: the LLC placement is 0.25x's, memory 4x's */
        CU_ASSERT_EQUAL(tc_mb_sampler_timed(s) + tc_mb_sampler_reused(s) - before, t == 1 ? 2 : 1);
        CU_ASSERT(cs.seconds > 0.0 && isfinite(cs.seconds));
    }
    CU_ASSERT_EQUAL(tc_mb_sampler_timed(s), 2);
    tc_mb_sampler_free(s);
}

/* A dgemm's operand streamed as one run (B[:,:,i,c] of ci'-dgemm, 16
 * columns of a line): its prefetch places the profile's depth of lines,
 * and the whole operand goes where its distance says; without a depth
 * the prefetch places it whole (the paper's one line per column). */
static void test_tiled_stream(void)
{
    const tc_algorithm *alg = find_alg(1, "ci'-dgemm");
    for (int depth = 0; depth <= 4; depth += 4) {
        tc_mb_sampler_options o = {.blas = blas, .timer = &timer, .llc_bytes = TEST_LLC,
                                   .line_bytes = TEST_LINE, .reps = 1,
                                   .flush = TC_FLUSH_CLFLUSH, .stream_lines = depth};
        tc_mb_sampler *s = NULL;
        CU_ASSERT_EQUAL_FATAL(tc_mb_sampler_new(&o, &s, NULL), TC_OK);
        tc_mb_case cs;
        case_for(alg->kernel_node, &cs);
        const tc_operand *b = &cs.operand[1].op;
        CU_ASSERT_FATAL(b->base == TC_B && b->extent[0] == LINE_DOUBLES &&
                        b->stride[1] == b->extent[0]); /* one run, a line per column */
        cs.operand[1].prefetch = TC_PREFETCH_STREAM;
        add_entry(&cs, TC_SETUP_PREFETCH, 1, cs.operand[1].elements);
        double *base[3];
        for (int i = 0; i < 3; i++) {
            base[i] = tc_rt_alloc(cs.operand[i].span, NULL);
            CU_ASSERT_FATAL(base[i] != NULL);
            memset(base[i], 0, sizeof(double) * (size_t)cs.operand[i].span);
        }
        int64_t want = depth ? depth * LINE_DOUBLES + cs.operand[1].elements
                             : cs.operand[1].elements;
        CU_ASSERT_EQUAL(tc_mb_run_setup(s, &cs, base), want);
        for (int i = 0; i < 3; i++)
            tc_rt_free(base[i]);
        tc_mb_sampler_free(s);
    }
}

/* The levels of the sampler check_setup is given (new_sampler's: one). */
static const int64_t one_level[1] = {TEST_LLC};
static const int64_t *chk_levels = one_level;
static int chk_nlevels = 1;

/* Runs cs's setup on fresh operands with both run_setup entry points;
 * checks the count equals the claims and written operands are unchanged. */
static int check_setup(tc_mb_sampler *s, const tc_contraction *c, const tc_mb_case *cs, int flush)
{
    double *base[TC_MB_MAX_OPERANDS] = {NULL, NULL, NULL};
    double *copy[TC_MB_MAX_OPERANDS] = {NULL, NULL, NULL};
    int bad = 0;
    for (int i = 0; i < cs->noperands; i++) {
        int64_t n = cs->operand[i].span;
        base[i] = tc_rt_alloc(n, NULL);
        copy[i] = tc_rt_alloc(n, NULL);
        CU_ASSERT_FATAL(base[i] && copy[i]);
        for (int64_t k = 0; k < n; k++)
            base[i][k] = copy[i][k] = (double)(k % 13) - 6.0;
    }
    int64_t want = claimed(s, chk_levels, chk_nlevels, flush && tc_mb_touch_can_flush(), cs);
    int64_t got1 = tc_mb_run_setup(s, cs, base);
    int64_t got2 = tc_mb_run_setup_in(s, c, cs, base);
    if (got1 != want || got2 != want) {
        fprintf(stderr, "\n  setup touched %lld / %lld elements, claims %lld\n",
                (long long)got1, (long long)got2, (long long)want);
        bad = 1;
    }
    for (int i = 0; i < cs->noperands; i++) {
        if (memcmp(base[i], copy[i], (size_t)cs->operand[i].span * sizeof(double)) != 0)
            bad = 1;
        tc_rt_free(base[i]);
        tc_rt_free(copy[i]);
    }
    return bad;
}

static void test_setup_counts(void)
{
    for (int mode = 0; mode < 2; mode++) {
        tc_mb_sampler *s = new_sampler(1, mode ? TC_FLUSH_REMOTE : TC_FLUSH_CLFLUSH);
        int bad = 0, checked = 0;
        for (int f = 0; f < NFIXTURES; f++) {
            const tc_algorithm_set *set = fixtures[f].set;
            for (int a = 0; a < set->count; a++) {
                const tc_node *nodes[1 + 2 * TC_MAX_TEMPS];
                int nn = timed_nodes(set->alg[a], nodes);
                for (int k = 0; k < nn; k++) {
                    for (int v = 0; v < SETUP_VARIANTS; v++) {
                        tc_mb_case cs;
                        case_for(nodes[k], &cs);
                        make_setup(&cs, &fixtures[f].c, v);
                        bad += check_setup(s, &fixtures[f].c, &cs, !mode);
                        checked++;
                    }
                }
            }
        }
        CU_ASSERT_EQUAL(bad, 0);
        CU_ASSERT(checked > 200);

        /* a prefetch touch is one line along the first index: A[:,i] of
         * C[a,b,c] = A[a,i] * B[i,b,c] (a = 64) touches 8 of 64 elements */
        const tc_algorithm *alg = find_alg(0, "bi-dger");
        tc_mb_case cs;
        case_for(alg->kernel_node, &cs);
        CU_ASSERT_EQUAL(cs.operand[0].elements, 64);
        add_prefetch(&cs, &fixtures[0].c, 0);
        CU_ASSERT_EQUAL(cs.setup[0].elements, LINE_DOUBLES);
        CU_ASSERT_EQUAL(check_setup(s, &fixtures[0].c, &cs, !mode), 0);

        /* remote entries alone place nothing; an operand beyond the cache
         * is flushed, or touched and evicted by 5/4 of the cache */
        cs.nsetup = 0;
        add_remote(&cs, 3 * TEST_LLC / 8 + 5);
        CU_ASSERT_EQUAL(check_setup(s, &fixtures[0].c, &cs, !mode), 0);
        add_operand(&cs, 1);
        cs.setup[1].distance = TEST_LLC;
        CU_ASSERT_EQUAL(check_setup(s, &fixtures[0].c, &cs, !mode), 0);

        /* a malformed entry is refused */
        cs.setup[0].kind = TC_SETUP_OPERAND;
        cs.setup[0].operand = 7;
        double x = 0.0;
        double *base[3] = {&x, &x, &x};
        CU_ASSERT_EQUAL(tc_mb_run_setup(s, &cs, base), -1);
        tc_mb_sampler_free(s);
    }
}

/* The analyzer's cases (every model) for every algorithm: the sampler's
 * touches match their claims, and each samples to a positive time. */
static void test_analyzer_cases(void)
{
    tc_mb_sampler *s = new_sampler(1, TC_FLUSH_CLFLUSH);
    int bad = 0, cases = 0, truncated = 0, prefetches = 0;
    for (int f = 0; f < NFIXTURES; f++) {
        const tc_algorithm_set *set = fixtures[f].set;
        for (int m = TC_MODEL_WARM; m <= TC_MODEL_FULL; m++) {
            tc_mb_params p = {(tc_mb_model)m, TEST_LLC / 16, TEST_LINE};
            for (int a = 0; a < set->count; a++) {
                tc_mb_analysis *an = NULL;
                tc_error e;
                CU_ASSERT_EQUAL_FATAL(tc_mb_analyze(set->alg[a], &fixtures[f].c, &p, &an, &e),
                                      TC_OK);
                for (int k = 0; k < an->ncases; k++) {
                    tc_mb_case *cs = &an->cases[k];
                    int b = check_setup(s, &fixtures[f].c, cs, 1);
                    tc_status st = tc_mb_sample(s, &fixtures[f].c, cs, &e);
                    b += st != TC_OK || !(cs->seconds > 0.0);
                    if (b && bad++ < 5)
                        fprintf(stderr, "\n  %s %s model %d case %d: %s\n", fixtures[f].text,
                                set->alg[a]->name, m, k, st == TC_OK ? "miscounted" : e.message);
                    cases++;
                    truncated += cs->truncated;
                    for (int e2 = 0; e2 < cs->nsetup; e2++)
                        prefetches += cs->setup[e2].kind == TC_SETUP_PREFETCH;
                }
                tc_mb_analysis_free(an);
            }
        }
    }
    CU_ASSERT_EQUAL(bad, 0);
    CU_ASSERT(cases > 1000);
    CU_ASSERT(truncated > 0);
    CU_ASSERT(prefetches > 0);
    fprintf(stderr, "[%d analyzer cases, %d truncated, %d prefetch touches] ", cases,
            truncated, prefetches);
    tc_mb_sampler_free(s);
}

static void test_reuse(void)
{
    tc_mb_sampler *s = new_sampler(3, TC_FLUSH_CLFLUSH);
    const tc_algorithm *alg = find_alg(0, "c-dgemm");
    tc_mb_case cs, again, other;
    case_for(alg->kernel_node, &cs);
    make_setup(&cs, &fixtures[0].c, SETUP_TRUNCATED);
    again = cs;
    other = cs;
    tc_error e;
    CU_ASSERT_EQUAL_FATAL(tc_mb_sample(s, &fixtures[0].c, &cs, &e), TC_OK);
    CU_ASSERT_EQUAL(tc_mb_sampler_timed(s), 1);
    CU_ASSERT_EQUAL(tc_mb_sampler_reused(s), 0);

    again.seconds = -1.0;
    CU_ASSERT_EQUAL_FATAL(tc_mb_sample(s, &fixtures[0].c, &again, &e), TC_OK);
    CU_ASSERT_EQUAL(tc_mb_sampler_timed(s), 1);
    CU_ASSERT_EQUAL(tc_mb_sampler_reused(s), 1);
    CU_ASSERT_EQUAL(again.seconds, cs.seconds);

    /* only a remote size differs: the same placement, the same benchmark */
    other.setup[2].elements += 8;
    CU_ASSERT_EQUAL_FATAL(tc_mb_sample(s, &fixtures[0].c, &other, &e), TC_OK);
    CU_ASSERT_EQUAL(tc_mb_sampler_timed(s), 1);
    CU_ASSERT_EQUAL(tc_mb_sampler_reused(s), 2);
    /* an operand's distance now beyond the cache: a new benchmark */
    other.setup[1].distance = TEST_LLC;
    CU_ASSERT_EQUAL_FATAL(tc_mb_sample(s, &fixtures[0].c, &other, &e), TC_OK);
    CU_ASSERT_EQUAL(tc_mb_sampler_timed(s), 2);
    CU_ASSERT_EQUAL(tc_mb_sampler_reused(s), 2);

    /* a round times a remembered case anew, once; outside rounds the
     * first time stands */
    tc_mb_sampler_round(s, 1);
    CU_ASSERT_EQUAL_FATAL(tc_mb_sample(s, &fixtures[0].c, &again, &e), TC_OK);
    CU_ASSERT_EQUAL_FATAL(tc_mb_sample(s, &fixtures[0].c, &again, &e), TC_OK);
    CU_ASSERT_EQUAL(tc_mb_sampler_timed(s), 3);
    CU_ASSERT_EQUAL(tc_mb_sampler_reused(s), 3);
    tc_mb_sampler_round(s, 0);
    CU_ASSERT_EQUAL_FATAL(tc_mb_sample(s, &fixtures[0].c, &again, &e), TC_OK);
    CU_ASSERT_EQUAL(tc_mb_sampler_timed(s), 3);
    CU_ASSERT_EQUAL(tc_mb_sampler_reused(s), 4);
    CU_ASSERT_EQUAL(again.seconds, cs.seconds);

    /* the same call from another contraction's algorithm is the same case:
     * c-dgemm of C[a,b,c] = A[a,i] * B[i,b,c] at other sizes of c */
    tc_contraction c2;
    char msg[256];
    CU_ASSERT_FATAL(tc_corpus_parse(fixtures[0].text, "a=b=64,c=9,i=8", &c2, msg,
                                    sizeof msg) == 0);
    tc_algorithm_set *set2 = NULL;
    CU_ASSERT_FATAL(tc_gen_enumerate(&c2, TC_KERNEL_MASK_ALL, &set2, &e) == TC_OK);
    const tc_algorithm *alg2 = tc_alg_set_find(set2, "c-dgemm");
    CU_ASSERT_PTR_NOT_NULL_FATAL(alg2);
    tc_mb_case cs2;
    case_for(alg2->kernel_node, &cs2);
    make_setup(&cs2, &c2, SETUP_TRUNCATED);
    CU_ASSERT_EQUAL(tc_mb_sample(s, &c2, &cs2, &e), TC_OK);
    CU_ASSERT_EQUAL(tc_mb_sampler_timed(s), 3);
    CU_ASSERT_EQUAL(tc_mb_sampler_reused(s), 5);
    CU_ASSERT_EQUAL(cs2.seconds, cs.seconds);
    tc_alg_set_free(set2);
    tc_mb_sampler_free(s);
}

/* Whole-tensor permutations of tensors of one size are other benchmarks
 * where their views differ: A^B^C^-dgemm of C[a,b,c,d] = A[a,e,c,f] *
 * B[f,b,e,d] keeps A's first index (runs) and transposes B's two first
 * ones, and its copy of B once took the time of its copy of A (0.99 ms
 * against 2.5 ms measured at 38: the key named the operands alone, each
 * one flat run); the same permutation again is the same benchmark. */
static void test_permutation_keys(void)
{
    tc_contraction c;
    char msg[256], key[3][2048];
    CU_ASSERT_FATAL(tc_corpus_parse("C[a,b,c,d] = A[a,e,c,f] * B[f,b,e,d]", "a=b=c=d=e=f=6",
                                    &c, msg, sizeof msg) == 0);
    tc_algorithm_set *set = NULL;
    tc_error e;
    CU_ASSERT_FATAL(tc_gen_enumerate_families(&c, TC_KERNEL_MASK_ALL, TC_FAMILY_MASK_ALL, &set,
                                              &e) == TC_OK);
    const tc_algorithm *alg = tc_alg_set_find(set, "A^B^C^-dgemm");
    CU_ASSERT_PTR_NOT_NULL_FATAL(alg);
    tc_mb_params params = {TC_MODEL_FULL, TEST_LLC, TEST_LINE};
    tc_mb_analysis *a = NULL;
    CU_ASSERT_FATAL(tc_mb_analyze(alg, &c, &params, &a, &e) == TC_OK);
    tc_mb_sampler *s = new_sampler(1, TC_FLUSH_CLFLUSH);
    const tc_mb_case *in[2] = {NULL, NULL};
    for (int k = 0; k < a->ncases; k++) { /* the steady copies of A and B */
        const tc_node *n = a->cases[k].node;
        if (n->kind == TC_NODE_PERMUTE && n->perm->dir == TC_COPY_IN &&
            a->cases[k].kind == TC_CASE_STEADY)
            in[n->perm->tensor == TC_A ? 0 : 1] = &a->cases[k];
    }
    CU_ASSERT_FATAL(in[0] && in[1]);
    CU_ASSERT_EQUAL(in[0]->operand[0].elements, in[1]->operand[0].elements);
    CU_ASSERT_EQUAL(tc_mb_case_recipe(s, &c, in[0], 0, key[0], sizeof key[0]), 0);
    CU_ASSERT_EQUAL(tc_mb_case_recipe(s, &c, in[1], 0, key[1], sizeof key[1]), 0);
    CU_ASSERT_EQUAL(tc_mb_case_recipe(s, &c, in[0], 0, key[2], sizeof key[2]), 0);
    CU_ASSERT(strcmp(key[0], key[1]) != 0);
    CU_ASSERT_STRING_EQUAL(key[0], key[2]);
    tc_mb_sampler_free(s);
    tc_mb_analysis_free(a);
    tc_alg_set_free(set);
}

/* A daxpy whose x has a huge increment: its span is about 2^54 doubles and
 * its 2^24 elements lie in 2^24 pages (64 GiB). It is timed on a part (n
 * halved until the pages fit the budget and the span the address space)
 * and scaled up, within the budget. */
/* The TLB (tlb.h): its pages show a physical page per 128 of them (more
 * aliases of one page trap to a shadow-paging hypervisor); a setup evicts
 * the translations (5/4 of the reach touched) after placing an operand
 * whose distance spans more pages than the TLB keeps - a strided slice,
 * its columns a page apart - and not for a dense one at the same distance. */
static void test_tlb(void)
{
    tc_mb_pages pg;
    CU_ASSERT_EQUAL_FATAL(tc_mb_pages_map(100, &pg, NULL), TC_OK);
    pg.base[0] = 7;
    CU_ASSERT_EQUAL(pg.base[99 * 4096], 7);
    double acc = 0.0;
    CU_ASSERT_EQUAL(tc_mb_pages_touch(&pg, 1000, &acc), 100);
    tc_mb_pages_unmap(&pg);
    CU_ASSERT_EQUAL_FATAL(tc_mb_pages_map(1000, &pg, NULL), TC_OK);
    CU_ASSERT_EQUAL(pg.physical, 8);
    pg.base[3 * 4096] = 5; /* physical page 3: seen at 3 + 8k, not at 4 */
    CU_ASSERT_EQUAL(pg.base[(3 + 8 * 124) * 4096], 5);
    CU_ASSERT_EQUAL(pg.base[4 * 4096], 0);
    tc_mb_pages_unmap(&pg);
    int64_t reach = tc_mb_tlb_measure();
    CU_ASSERT(reach == 0 || (reach >= TC_MB_TLB_BASE_PAGES && reach <= TC_MB_TLB_MAX_PAGES));

    tc_mb_sampler_options o = {.blas = blas, .timer = &timer, .llc_bytes = TEST_LLC,
                               .line_bytes = TEST_LINE, .reps = 1, .flush = TC_FLUSH_CLFLUSH,
                               .tlb_pages = 64};
    tc_mb_sampler *s = NULL;
    CU_ASSERT_EQUAL_FATAL(tc_mb_sampler_new(&o, &s, NULL), TC_OK);
    const tc_algorithm *alg = find_alg(0, "b-dgemm"); /* C[:,b,:]: columns 32 KiB apart */
    double *base[3];
    for (int i = 0; i < 3; i++) {
        base[i] = tc_rt_alloc(64 * 64 * 64, NULL);
        CU_ASSERT_FATAL(base[i] != NULL);
        memset(base[i], 0, sizeof(double) * 64 * 64 * 64);
    }
    for (int i = 0; i < 3; i += 2) { /* A (dense), C (a line per page) */
        tc_mb_case cs;
        case_for(alg->kernel_node, &cs);
        add_operand(&cs, i);
        cs.setup[0].distance = 64 * 64 * 2; /* 128 pages of C's density, 16 of A's */
        int64_t want = claimed(s, chk_levels, chk_nlevels, tc_mb_touch_can_flush(), &cs) + (i == 2 ? 80 : 0);
        CU_ASSERT_EQUAL(tc_mb_run_setup(s, &cs, base), want);
    }
    /* cases that differ only after the TLB step are different benchmarks:
     * C in memory with its translations evicted, then A placed in cache,
     * or not placed at all */
    tc_mb_case c_only, c_then_a;
    case_for(alg->kernel_node, &c_only);
    add_operand(&c_only, 2);
    c_only.setup[0].distance = TEST_LLC;
    c_then_a = c_only;
    add_operand(&c_then_a, 0);
    tc_error e;
    CU_ASSERT_EQUAL(tc_mb_sample(s, &fixtures[0].c, &c_only, &e), TC_OK);
    CU_ASSERT_EQUAL(tc_mb_sample(s, &fixtures[0].c, &c_then_a, &e), TC_OK);
    CU_ASSERT_EQUAL(tc_mb_sampler_timed(s), 2);
    CU_ASSERT_EQUAL(tc_mb_sampler_reused(s), 0);
    for (int i = 0; i < 3; i++)
        tc_rt_free(base[i]);
    tc_mb_sampler_free(s);
}

/* An operand the loop streams through (C[:,b,c] under cb-dgemv's b loop):
 * with a stream-prefetch depth in the profile it is placed whole as the
 * running stream would have it, without one only its first line (the
 * paper's prefetch); either way its bytes, written ones twice, bound the
 * time from below at the bandwidth, and placed whole they are added to
 * the call's own time (the loop waits for them), not only a floor under
 * it. */
static void test_stream(void)
{
    if (!tc_mb_touch_can_flush())
        return; /* no memory placement to compare with */
    const tc_algorithm *alg = find_alg(0, "cb-dgemv");
    tc_mb_case cs;
    case_for(alg->kernel_node, &cs);
    cs.operand[2].prefetch = TC_PREFETCH_STREAM;
    add_operand(&cs, 2);
    cs.setup[0].distance = TEST_LLC; /* in memory since its last use... */
    add_prefetch(&cs, &fixtures[0].c, 2);
    cs.setup[1].distance = 0; /* ...and the previous call streamed up to it */
    int64_t n = cs.operand[2].elements;
    CU_ASSERT_EQUAL_FATAL(n, 64);
    double *base[3];
    for (int i = 0; i < 3; i++) {
        base[i] = tc_rt_alloc(64 * 64 * 64, NULL);
        CU_ASSERT_FATAL(base[i] != NULL);
        memset(base[i], 0, sizeof(double) * 64 * 64 * 64);
    }
    for (int depth = 0; depth <= 8; depth += 8) {
        tc_mb_sampler_options o = {.blas = blas, .timer = &timer, .llc_bytes = TEST_LLC,
                                   .line_bytes = TEST_LINE, .reps = 3,
                                   .flush = TC_FLUSH_CLFLUSH, .memory_bandwidth = 1e8,
                                   .stream_lines = depth};
        tc_mb_sampler *s = NULL;
        tc_error e;
        CU_ASSERT_EQUAL_FATAL(tc_mb_sampler_new(&o, &s, &e), TC_OK);
        /* flushed whole, then placed whole or its first line */
        CU_ASSERT_EQUAL(tc_mb_run_setup(s, &cs, base), n + (depth ? n : LINE_DOUBLES));
        double bound = 2.0 * 8.0 * (double)n / 1e8;
        CU_ASSERT_DOUBLE_EQUAL(tc_mb_case_bound(s, &cs), bound, 1e-15);
        CU_ASSERT_EQUAL(tc_mb_sample(s, &fixtures[0].c, &cs, &e), TC_OK);
        CU_ASSERT(cs.seconds >= bound);
        if (depth) /* the call's time (at least a counter step) on top */
            CU_ASSERT(cs.seconds > bound);
        cs.seconds = -1.0;
        tc_mb_sampler_free(s);
    }
    /* a daxpy is one pass over its y: streamed, that pass runs at memory's
     * pace instead of the cache's, and the bytes replace the call's time */
    alg = find_alg(0, "icb-daxpy");
    CU_ASSERT_PTR_NOT_NULL_FATAL(alg);
    tc_mb_case ax = cs;
    ax.node = alg->kernel_node;
    for (int i = 0; i < 3; i++)
        ax.operand[i].op = alg->kernel_node->call->arg[i];
    tc_mb_sampler_options o = {.blas = blas, .timer = &timer, .llc_bytes = TEST_LLC,
                               .line_bytes = TEST_LINE, .reps = 3,
                               .flush = TC_FLUSH_CLFLUSH, .memory_bandwidth = 1e8,
                               .stream_lines = 8};
    tc_mb_sampler *s = NULL;
    tc_error e;
    CU_ASSERT_EQUAL_FATAL(tc_mb_sampler_new(&o, &s, &e), TC_OK);
    double bound = 2.0 * 8.0 * (double)n / 1e8; /* 10 us: far above the call */
    CU_ASSERT_DOUBLE_EQUAL(tc_mb_case_bound(s, &ax), bound, 1e-15);
    CU_ASSERT_EQUAL(tc_mb_sample(s, &fixtures[0].c, &ax, &e), TC_OK);
    CU_ASSERT_DOUBLE_EQUAL(ax.seconds, bound, 1e-12);
    tc_mb_sampler_free(s);
    for (int i = 0; i < 3; i++)
        tc_rt_free(base[i]);
}

static void test_memory_check(void)
{
    tc_mb_sampler *s = new_sampler(3, TC_FLUSH_REMOTE);
    tc_algorithm_set *set = tc_alg_set_new();
    CU_ASSERT_PTR_NOT_NULL_FATAL(set);
    tc_call call;
    memset(&call, 0, sizeof call);
    call.kernel = TC_KERNEL_DAXPY;
    call.n = (int64_t)1 << 24;
    call.dim_n.n = 1; /* index 0 */
    call.dim_n.extent = call.n;
    call.arg[0].tensor = TC_A; /* scalar factor */
    call.arg[1].tensor = TC_B;
    call.arg[1].base = TC_B;
    call.arg[1].rank = 1;
    call.arg[1].dim[0] = call.arg[2].dim[0] = call.dim_n;
    call.arg[1].extent[0] = call.n;
    call.arg[1].stride[0] = call.arg[1].ld = (int64_t)1 << 30;
    call.arg[2].tensor = TC_C;
    call.arg[2].rank = 1;
    call.arg[2].extent[0] = call.n;
    call.arg[2].stride[0] = call.arg[2].ld = 1;
    tc_node *node = tc_alg_kernel(set, &call);
    CU_ASSERT_PTR_NOT_NULL_FATAL(node);
    tc_mb_case cs;
    case_for(node, &cs);
    make_setup(&cs, &fixtures[0].c, SETUP_ACCESS);
    int64_t avail = tc_rt_memory_available();
    CU_ASSERT(avail > 0);
    CU_ASSERT(tc_mb_case_bytes(&cs) > avail);
    /* the pages touched: a page per element of x (not its 2^54-double
     * span), C's run, a page or two for the scalar */
    int64_t x_pages = ((int64_t)1 << 24) * 4096;
    CU_ASSERT(tc_mb_case_bytes(&cs) >= x_pages);
    CU_ASSERT(tc_mb_case_bytes(&cs) <= x_pages + 8 * cs.operand[2].span + 6 * 4096 + 8 * 512);
    tc_error e;
    memset(&e, 0, sizeof e);
    int64_t before = tc_mb_budget_in_use();
    tc_mb_budget_reset_peak();
    cs.seconds = -1.0;
    CU_ASSERT_EQUAL(tc_mb_sample(s, &fixtures[0].c, &cs, &e), TC_OK);
    CU_ASSERT(cs.scale >= (double)((int64_t)1 << 10));
    CU_ASSERT(cs.seconds > 0.0 && isfinite(cs.seconds));
    CU_ASSERT(tc_mb_budget_peak() <= TC_MB_DEFAULT_BUDGET);
    CU_ASSERT_EQUAL(tc_mb_budget_in_use(), before);
    CU_ASSERT_EQUAL(tc_mb_sampler_timed(s), 1);

    /* an increment beyond a BLAS int is bad input */
    call.arg[1].stride[0] = call.arg[1].ld = (int64_t)1 << 32;
    node = tc_alg_kernel(set, &call);
    CU_ASSERT_PTR_NOT_NULL_FATAL(node);
    case_for(node, &cs);
    CU_ASSERT_EQUAL(tc_mb_sample(s, &fixtures[0].c, &cs, &e), TC_EINPUT);
    CU_ASSERT(strlen(e.message) > 0);
    CU_ASSERT_EQUAL(tc_mb_sampler_timed(s), 1);
    tc_alg_set_free(set);
    tc_mb_sampler_free(s);
}

/* A hierarchy whose LLC is 8 GiB (as hwloc reports a host's whole L3 to a
 * VM): placing operands in L3 costs 5/4 of the L2 in remote data, not
 * 5/4 of the L3, and the pool is sized by the L2. Counts, not time. */
static void test_bounded_setup(void)
{
    const int64_t l1 = 32 << 10, l2 = 1 << 20, l3 = (int64_t)8 << 30;
    for (int mode = 0; mode < 2; mode++) {
        tc_mb_sampler_options o = {.blas = blas, .timer = &timer, .llc_bytes = l3,
                                   .line_bytes = TEST_LINE, .reps = 1,
                                   .flush = mode ? TC_FLUSH_REMOTE : TC_FLUSH_CLFLUSH,
                                   .nlevels = 3, .level_bytes = {l1, l2, l3}};
        tc_mb_sampler *s = NULL;
        tc_error e;
        CU_ASSERT_EQUAL_FATAL(tc_mb_sampler_new(&o, &s, &e), TC_OK);
        int flush = !mode && tc_mb_touch_can_flush();
        int64_t pool_max = flush ? 2 * l2 / 4 * 5 + TEST_LINE : TC_MB_DEFAULT_BUDGET / 2;
        CU_ASSERT(tc_mb_sampler_pool_bytes(s) <= pool_max);
        CU_ASSERT_EQUAL(tc_mb_sampler_level(s, 0), 0);
        CU_ASSERT_EQUAL(tc_mb_sampler_level(s, l1 / 8), 1);
        CU_ASSERT_EQUAL(tc_mb_sampler_level(s, l2 / 8), 2);
        CU_ASSERT_EQUAL(tc_mb_sampler_level(s, l3 / 8), 3);

        const tc_algorithm *alg = find_alg(0, "c-dgemm");
        tc_mb_case cs;
        case_for(alg->kernel_node, &cs);
        add_remote(&cs, l3 / 8 / 4); /* a leading region the levels replace */
        add_operand(&cs, 2);
        cs.setup[1].distance = l3 / 8 / 2; /* in L3 */
        add_remote(&cs, l3 / 8 / 4);
        add_operand(&cs, 0);
        cs.setup[3].distance = l2 / 8 / 2; /* in L2 */
        add_remote(&cs, 1000);
        add_operand(&cs, 1);                /* in L1 */
        int64_t ops = cs.operand[0].elements + cs.operand[1].elements + cs.operand[2].elements;
        int64_t bound = ops + (l1 + l2) / 8 * 5 / 4;
        static const int64_t levels[3] = {32 << 10, 1 << 20, (int64_t)8 << 30};
        CU_ASSERT_EQUAL(claimed(s, levels, 3, flush, &cs), bound);
        chk_levels = levels;
        chk_nlevels = 3;
        CU_ASSERT_EQUAL(check_setup(s, &fixtures[0].c, &cs, flush), 0);

        add_operand(&cs, 2); /* beyond every level: flushed, or evicted by the pool */
        cs.setup[6].distance = l3 / 8;
        bound += cs.operand[2].elements + (flush ? 0 : tc_mb_sampler_pool_bytes(s) / 8);
        CU_ASSERT(claimed(s, levels, 3, flush, &cs) <= bound);
        CU_ASSERT_EQUAL(check_setup(s, &fixtures[0].c, &cs, flush), 0);
        CU_ASSERT_EQUAL(tc_mb_sample(s, &fixtures[0].c, &cs, &e), TC_OK);
        chk_levels = one_level;
        chk_nlevels = 1;
        tc_mb_sampler_free(s);
    }
}

/* C[a,b] = A[a,i] * B[i,b] at 2048 (three 32 MiB operands) under a 16 MiB
 * budget, by four samplers in four threads at once: each case is timed on
 * a part, and the process never holds more than the budget. */
typedef struct budget_job {
    const tc_contraction *c;
    const tc_algorithm *alg;
    tc_status st;
    double seconds, scale;
} budget_job;

#define SMALL_BUDGET ((int64_t)16 << 20)

static void *budget_thread(void *arg)
{
    budget_job *j = arg;
    tc_mb_sampler_options o = {.blas = blas, .timer = &timer, .llc_bytes = TEST_LLC,
                               .line_bytes = TEST_LINE, .reps = 1,
                               .flush = TC_FLUSH_CLFLUSH, .memory_budget = SMALL_BUDGET};
    tc_mb_sampler *s = NULL;
    j->st = tc_mb_sampler_new(&o, &s, NULL);
    if (j->st != TC_OK)
        return NULL;
    tc_mb_case cs;
    case_for(j->alg->kernel_node, &cs);
    j->st = tc_mb_sample(s, j->c, &cs, NULL);
    j->seconds = cs.seconds;
    j->scale = cs.scale;
    tc_mb_sampler_free(s);
    return NULL;
}

static void test_budget(void)
{
    tc_contraction c;
    char msg[256];
    tc_error e;
    CU_ASSERT_FATAL(tc_corpus_parse("C[a,b] = A[a,i] * B[i,b]", "a=b=i=2048", &c, msg,
                                    sizeof msg) == 0);
    tc_algorithm_set *set = NULL;
    CU_ASSERT_FATAL(tc_gen_enumerate(&c, TC_KERNEL_MASK_ALL, &set, &e) == TC_OK);
    const tc_algorithm *alg = tc_alg_set_find(set, "dgemm");
    CU_ASSERT_PTR_NOT_NULL_FATAL(alg);
    int64_t before = tc_mb_budget_in_use();
    /* other suites' samplers are gone; the kept shared pool is sized anew */
    budget_job jobs[4];
    pthread_t th[4];
    budget_job first = {&c, alg, TC_OK, 0, 0};
    budget_thread(&first); /* one alone first: the shared pool is made to fit */
    CU_ASSERT_EQUAL(first.st, TC_OK);
    tc_mb_budget_reset_peak();
    for (int k = 0; k < 4; k++) {
        jobs[k] = (budget_job){&c, alg, TC_OK, 0, 0};
        CU_ASSERT_EQUAL_FATAL(pthread_create(&th[k], NULL, budget_thread, &jobs[k]), 0);
    }
    for (int k = 0; k < 4; k++) {
        pthread_join(th[k], NULL);
        CU_ASSERT_EQUAL(jobs[k].st, TC_OK);
        CU_ASSERT(jobs[k].scale > 1.0);
        CU_ASSERT(jobs[k].seconds > 0.0 && isfinite(jobs[k].seconds));
    }
    CU_ASSERT(tc_mb_budget_peak() <= SMALL_BUDGET);
    CU_ASSERT(tc_mb_budget_in_use() <= before || tc_mb_budget_in_use() <= SMALL_BUDGET);
    tc_alg_set_free(set);

    /* a slice copy timed on a part: the permutation it runs is cut with its
     * slice (it used to copy the whole slice into the part: a heap overflow
     * ASan reports, a crash at a=i=j=448 with the default budget) */
    CU_ASSERT_FATAL(tc_corpus_parse("C[a] = A[i,a,j] * B[j,i]", "a=i=j=192", &c, msg,
                                    sizeof msg) == 0);
    CU_ASSERT_FATAL(tc_gen_enumerate(&c, TC_KERNEL_MASK_ALL, &set, &e) == TC_OK);
    alg = tc_alg_set_find(set, "i'-dgemv");
    CU_ASSERT_PTR_NOT_NULL_FATAL(alg);
    CU_ASSERT_EQUAL_FATAL(alg->ncopies, 1);
    tc_mb_sampler_options o = {.blas = blas, .timer = &timer, .llc_bytes = TEST_LLC,
                               .line_bytes = TEST_LINE, .reps = 1,
                               .flush = TC_FLUSH_CLFLUSH, .memory_budget = (int64_t)1 << 20};
    tc_mb_sampler *s = NULL;
    CU_ASSERT_EQUAL_FATAL(tc_mb_sampler_new(&o, &s, &e), TC_OK);
    tc_mb_case cs;
    case_for(alg->copy_node[0], &cs); /* A[i,:,:] -> T0: 192 x 192 from a 56 MiB A */
    CU_ASSERT(tc_mb_case_bytes(&cs) > (int64_t)1 << 20);
    CU_ASSERT_EQUAL(tc_mb_sample(s, &c, &cs, &e), TC_OK);
    CU_ASSERT(cs.scale > 1.0);
    CU_ASSERT(cs.seconds > 0.0 && isfinite(cs.seconds));
    tc_mb_sampler_free(s);
    tc_alg_set_free(set);
}

/* A whole-tensor permutation timed on a slab is halved in a dimension
 * that is unit-stride on neither side, where it has one: halving the
 * temporary's unit dimension (the tensor's outermost, a, in intensli's
 * A[c,b,d,k,a] -> [a,d,b,k,c]) shortened its runs, and the permutation
 * was predicted at 2.3x its time. Where every dimension is unit on a side
 * (a transpose), the tensor's outermost. */
static void test_permutation_slab_dimension(void)
{
    tc_contraction c;
    char msg[256];
    tc_error e;
    CU_ASSERT_FATAL(tc_corpus_parse("C[a,d,b,j,c] = A[c,b,d,k,a] * B[k,j]",
                                    "a=24,d=20,b=20,j=24,c=24,k=24", &c, msg, sizeof msg) == 0);
    tc_algorithm_set *set = NULL;
    CU_ASSERT_FATAL(tc_gen_enumerate_families(&c, TC_KERNEL_MASK_ALL, TC_FAMILY_MASK_ALL, &set,
                                              &e) == TC_OK);
    const tc_algorithm *alg = tc_alg_set_find(set, "A^c(adb)-dgemm");
    CU_ASSERT_PTR_NOT_NULL_FATAL(alg);
    CU_ASSERT_EQUAL_FATAL(alg->copy_node[0]->kind, TC_NODE_PERMUTE);
    const tc_permute *v = &alg->copy_node[0]->perm->view;
    int k = tc_mbs_permute_cut_dim(v);
    CU_ASSERT_FATAL(k >= 0 && k < v->rank);
    CU_ASSERT(v->extent[k] > 1 && v->src_stride[k] != 1 && v->dst_stride[k] != 1);
    for (int d = 0; d < v->rank; d++) /* the outermost such on the tensor's side */
        if (v->src_stride[d] != 1 && v->dst_stride[d] != 1)
            CU_ASSERT(v->src_stride[d] <= v->src_stride[k]);
    tc_alg_set_free(set);

    tc_permute t = {2, {64, 32}, {1, 64}, {32, 1}}; /* a transpose */
    CU_ASSERT_EQUAL(tc_mbs_permute_cut_dim(&t), 1);
    tc_permute one = {2, {1, 1}, {1, 1}, {1, 1}};
    CU_ASSERT_EQUAL(tc_mbs_permute_cut_dim(&one), -1);
}

/* A dgemm too long to repeat is timed on a slab. One with few flops per
 * byte keeps its slab's operands beyond twice the LLC (in the loop they
 * stream from memory, and its C is touched twice); a compute-bound one is
 * cut down to about a millisecond whatever its bytes. */
static void test_slab_of_compute_bound_dgemm(void)
{
    const int64_t llc = (int64_t)16 << 20;
    tc_mb_sampler_options o = {.blas = blas, .timer = &timer, .llc_bytes = llc,
                               .line_bytes = TEST_LINE, .reps = 1,
                               .flush = TC_FLUSH_CLFLUSH, .peak_flops = 50e9,
                               .memory_bandwidth = 20e9};
    static const struct {
        const char *sizes;
        int compute_bound;
    } calls[] = {{"a=b=i=2048", 1}, {"a=b=4096,i=8", 0}};
    for (int k = 0; k < 2; k++) {
        tc_contraction c;
        char msg[256];
        tc_error e;
        CU_ASSERT_FATAL(tc_corpus_parse("C[a,b] = A[a,i] * B[i,b]", calls[k].sizes, &c, msg,
                                        sizeof msg) == 0);
        tc_algorithm_set *set = NULL;
        CU_ASSERT_FATAL(tc_gen_enumerate(&c, TC_KERNEL_MASK_ALL, &set, &e) == TC_OK);
        const tc_algorithm *alg = tc_alg_set_find(set, "dgemm");
        CU_ASSERT_PTR_NOT_NULL_FATAL(alg);
        tc_mb_sampler *s = NULL;
        CU_ASSERT_EQUAL_FATAL(tc_mb_sampler_new(&o, &s, &e), TC_OK);
        tc_mb_case cs;
        case_for(alg->kernel_node, &cs);
        CU_ASSERT_EQUAL(tc_mb_sample(s, &c, &cs, &e), TC_OK);
        CU_ASSERT(cs.seconds > 0.0 && isfinite(cs.seconds));
        double slab_bytes = (double)tc_mb_case_bytes(&cs) / cs.scale; /* about */
        /* 17 GFLOP at most 5 ms a slab; or slabs beyond twice the LLC */
        CU_ASSERT(calls[k].compute_bound ? cs.scale >= 64.0 : slab_bytes >= 2.0 * (double)llc);
        tc_mb_sampler_free(s);
        tc_alg_set_free(set);
    }
}

/* A split algorithm's whole-tensor permutations, before or after its
 * loop, run on all the plan's threads in the executor: they are timed on
 * the plan's sampler (at its thread count), the cases inside the loop on
 * the team's. Fails where the team times every case (the permutation then
 * predicted at one thread, beside a twin). */
static void test_split_around(void)
{
    tc_mb_sampler *s = new_sampler(1, TC_FLUSH_CLFLUSH);
    tc_mb_params p = {TC_MODEL_FULL, TEST_LLC, TEST_LINE};
    tc_error e;
    double seconds = 0.0;
    tc_mb_analysis *a = NULL;
    const tc_algorithm *inside =
        tc_alg_split(fixtures[3].set, find_alg(3, "ac'e'-dgemm"), &fixtures[3].c, 2);
    const tc_algorithm *around =
        tc_alg_split(fixtures[3].set, find_alg(3, "C^bce-dgemm"), &fixtures[3].c, 2);
    CU_ASSERT_PTR_NOT_NULL_FATAL(inside);
    CU_ASSERT_PTR_NOT_NULL_FATAL(around);
    CU_ASSERT_EQUAL(tc_mb_predict(s, &fixtures[3].c, inside, &p, &seconds, NULL, &e), TC_OK);
    CU_ASSERT_EQUAL(tc_mb_sampler_timed(s), 0); /* its copies are inside the loop */
    CU_ASSERT_EQUAL_FATAL(tc_mb_predict(s, &fixtures[3].c, around, &p, &seconds, &a, &e),
                          TC_OK);
    int permutations = 0;
    double parts = 0.0;
    for (int i = 0; i < a->ncases; i++) {
        permutations += a->cases[i].node->kind == TC_NODE_PERMUTE;
        CU_ASSERT(a->cases[i].seconds > 0.0);
        parts += (double)a->cases[i].count * a->cases[i].seconds;
    }
    CU_ASSERT(permutations >= 1);
    CU_ASSERT_EQUAL(tc_mb_sampler_timed(s), permutations);
    CU_ASSERT(seconds > parts * 0.999); /* the total holds every part shown */
    tc_mb_analysis_free(a);
    tc_mb_sampler_free(s);
}

/* A split contracted loop (A^ib-dgemm over i): the other threads' partial
 * C added into C after it is timed (the executor's own pass) and in the
 * total, once per partial (3 threads: twice 2 threads' figure). */
static void test_split_partial_sum(void)
{
    tc_mb_sampler *s = new_sampler(1, TC_FLUSH_CLFLUSH);
    tc_mb_params p = {TC_MODEL_FULL, TEST_LLC, TEST_LINE};
    tc_error e;
    double seconds[2] = {0.0, 0.0}, sums[2] = {0.0, 0.0};
    for (int k = 0; k < 2; k++) {
        tc_mb_analysis *a = NULL;
        const tc_algorithm *alg = tc_alg_split(fixtures[1].set, find_alg(1, "A^ib-dgemm"),
                                               &fixtures[1].c, 2 + k);
        CU_ASSERT_PTR_NOT_NULL_FATAL(alg);
        CU_ASSERT_FATAL(alg->partial > 0);
        CU_ASSERT_EQUAL_FATAL(tc_mb_predict(s, &fixtures[1].c, alg, &p, &seconds[k], &a, &e),
                              TC_OK);
        double parts = 0.0;
        for (int i = 0; i < a->ncases; i++)
            parts += (double)a->cases[i].count * a->cases[i].seconds;
        sums[k] = a->partial_sum_seconds;
        CU_ASSERT(sums[k] > 0.0);
        CU_ASSERT(seconds[k] > (parts + sums[k]) * 0.999);
        tc_mb_analysis_free(a);
    }
    CU_ASSERT_DOUBLE_EQUAL(sums[1], 2.0 * sums[0], 1e-12 * sums[0]);
    tc_mb_sampler_free(s);
}

/* A machine whose peak is 1 MFLOP/s and bandwidth 1 MB/s: every measured
 * time is below the bound, so each case is timed again and then gets the
 * bound itself - never a time faster than the machine. */
static void test_physics_bound(void)
{
    tc_mb_sampler_options o = {.blas = blas, .timer = &timer, .llc_bytes = TEST_LLC,
                               .line_bytes = TEST_LINE, .reps = 3,
                               .flush = TC_FLUSH_CLFLUSH, .peak_flops = 1e6,
                               .memory_bandwidth = 1e6, .threads = 2};
    tc_mb_sampler *s = NULL;
    tc_error e;
    CU_ASSERT_EQUAL_FATAL(tc_mb_sampler_new(&o, &s, &e), TC_OK);
    const tc_algorithm *alg = find_alg(0, "c-dgemm"); /* m=64 n=64 k=8 */
    tc_mb_case cs;
    case_for(alg->kernel_node, &cs);
    double flops = 2.0 * 64 * 64 * 8;
    CU_ASSERT_DOUBLE_EQUAL(tc_mb_case_bound(s, &cs), flops / 2e6, 1e-12);
    CU_ASSERT_EQUAL(tc_mb_sample(s, &fixtures[0].c, &cs, &e), TC_OK);
    CU_ASSERT(cs.seconds >= flops / 2e6);
    CU_ASSERT_EQUAL(tc_mb_sampler_bounded(s), 1);
    /* an operand left in memory: its bytes at the bandwidth, twice for
     * C (written: in the loop its lines go back as the next ones come) */
    make_setup(&cs, &fixtures[0].c, SETUP_TRUNCATED); /* C[:,:,c] left out: memory */
    double bytes = 8.0 * (double)cs.operand[2].elements * (tc_mb_touch_can_flush() ? 2 : 1);
    double bound = tc_mb_case_bound(s, &cs);
    CU_ASSERT(bound >= bytes / 2e6 && bound >= flops / 2e6);
    CU_ASSERT_EQUAL(tc_mb_sample(s, &fixtures[0].c, &cs, &e), TC_OK);
    CU_ASSERT(cs.seconds >= bound);
    tc_mb_sampler_free(s);
    /* without the figures there is no bound */
    s = new_sampler(1, TC_FLUSH_CLFLUSH);
    CU_ASSERT_EQUAL(tc_mb_case_bound(s, &cs), 0.0);
    tc_mb_sampler_free(s);
}

/* The steady case of alg's kernel node in the analysis *a of contraction
 * c (full model; the caller frees *a). */
static tc_mb_case *steady_case(const tc_algorithm *alg, const tc_contraction *c,
                               tc_mb_analysis **a)
{
    tc_mb_params p = {TC_MODEL_FULL, TEST_LLC, TEST_LINE};
    tc_error e;
    CU_ASSERT_EQUAL_FATAL(tc_mb_analyze(alg, c, &p, a, &e), TC_OK);
    tc_mb_case *cs = NULL;
    for (int i = 0; i < (*a)->ncases; i++)
        if ((*a)->cases[i].node == alg->kernel_node && (*a)->cases[i].kind == TC_CASE_STEADY)
            cs = &(*a)->cases[i];
    CU_ASSERT_PTR_NOT_NULL_FATAL(cs);
    return cs;
}

/* How many calls in a row the sampler times the steady case of algorithm
 * `name` of fixture f as. */
static int steady_train(tc_mb_sampler *s, int f, const char *name)
{
    tc_mb_analysis *a = NULL;
    tc_mb_case *cs = steady_case(find_alg(f, name), &fixtures[f].c, &a);
    int train = tc_mb_case_train(s, &fixtures[f].c, cs);
    tc_mb_analysis_free(a);
    return train;
}

/* Trains: a ddot of 8 elements (acbi-ddot: 17 doubles) is timed as a
 * train over the whole of its loop (i = 8 calls); cb-dgemv (64x8), whose
 * loop streams x and y (72 doubles per call), as a train streaming 256
 * KiB, at most the loop's 64 calls, when the sampler knows that streams
 * are prefetched, else as one writing 128 KiB of y's lines (8 per call:
 * 256 calls, again the loop's 64); ac-dgemv's y (C[a,:,c], a line per
 * element: 64 lines, 4 KiB per call) as a train of 32, and so ab-dgemv's
 * (C[a,b,:]), though its loop also moves a matrix of columns (B[:,b,:],
 * 8 x 64, whose calls interleave: 64 of them fit between two columns);
 * alone: a dger (its output a matrix) and a dgemm. */
static void test_trains(void)
{
    /* properties, not lengths (the rules suite states each train rule's
     * own): every steady case of every algorithm of two contractions is
     * timed as a train within its loop's extent and TC_MB_TRAIN_MAX; the
     * calls on moving vectors are trains, the dgemm and the dger (a
     * matrix written, nothing streamed) are timed alone */
    for (int depth = 0; depth <= 8; depth += 8) {
        tc_mb_sampler_options o = {.blas = blas, .timer = &timer, .llc_bytes = TEST_LLC,
                                   .line_bytes = TEST_LINE, .reps = 1,
                                   .flush = TC_FLUSH_CLFLUSH, .stream_lines = depth};
        tc_mb_sampler *s = NULL;
        tc_error e;
        CU_ASSERT_EQUAL_FATAL(tc_mb_sampler_new(&o, &s, &e), TC_OK);
        for (int f = 0; f < 2; f++)
            for (int k = 0; k < fixtures[f].set->count; k++) {
                const tc_algorithm *alg = fixtures[f].set->alg[k];
                tc_mb_analysis *a = NULL;
                tc_mb_case *cs = steady_case(alg, &fixtures[f].c, &a);
                int train = tc_mb_case_train(s, &fixtures[f].c, cs);
                CU_ASSERT(train >= 1 && train <= TC_MB_TRAIN_MAX &&
                          (train == 1 || train <= cs->loop_extent));
                tc_mb_analysis_free(a);
            }
        CU_ASSERT(steady_train(s, 1, "acbi-ddot") > 1);
        CU_ASSERT(steady_train(s, 0, "cb-dgemv") > 1);
        CU_ASSERT(steady_train(s, 0, "ac-dgemv") > 1);
        CU_ASSERT(steady_train(s, 0, "ab-dgemv") > 1);
        CU_ASSERT_EQUAL(steady_train(s, 0, "ci-dger"), 1);
        CU_ASSERT_EQUAL(steady_train(s, 0, "c-dgemm"), 1);
        tc_mb_sampler_free(s);
    }
}

/* A train maps the pages its calls touch, not the span between them:
 * ac-dgemv at a=b=15000, c=2 writes y = C[a,:,c], an element every 120 KB,
 * and its loop moves y 1.8 GB on; the train of the loop's 2 calls maps
 * about a page per element of each call (counted as the span, it once
 * mapped all 3.6 GB in huge pages), and stays within the budget. */
static void test_train_pages(void)
{
    tc_contraction c;
    char msg[256];
    tc_error e;
    CU_ASSERT_EQUAL_FATAL(tc_corpus_parse("C[a,b,c] = A[a,i] * B[i,b,c]", "a=b=15000,c=2,i=8",
                                          &c, msg, sizeof msg), 0);
    tc_algorithm_set *set = NULL;
    CU_ASSERT_EQUAL_FATAL(tc_gen_enumerate(&c, TC_KERNEL_MASK_ALL, &set, &e), TC_OK);
    const tc_algorithm *alg = tc_alg_set_find(set, "ac-dgemv");
    CU_ASSERT_PTR_NOT_NULL_FATAL(alg);
    tc_mb_analysis *a = NULL;
    tc_mb_case *cs = steady_case(alg, &c, &a);
    tc_mb_sampler *s = new_sampler(1, TC_FLUSH_CLFLUSH);
    CU_ASSERT_EQUAL(tc_mb_case_train(s, &c, cs), 2);
    CU_ASSERT_EQUAL(tc_mb_sample(s, &c, cs, &e), TC_OK);
    int64_t pages = (int64_t)2 * 15000 * 4096; /* y's, both calls */
    CU_ASSERT(tc_mb_sampler_case_bytes(s) >= pages);
    CU_ASSERT(tc_mb_sampler_case_bytes(s) <= pages + ((int64_t)16 << 20));
    tc_mb_sampler_free(s);
    tc_mb_analysis_free(a);
    tc_alg_set_free(set);
}

/* The executor's pass over C (C = A*B with a kernel that cannot apply
 * beta) is in the prediction; C += A*B has none; a dgemm nest times each
 * call with the beta the executor gives it. */
static void test_beta_pass(void)
{
    tc_mb_sampler *s = new_sampler(3, TC_FLUSH_CLFLUSH);
    tc_mb_params p = {TC_MODEL_FULL, TEST_LLC, TEST_LINE};
    const tc_algorithm *alg = find_alg(0, "ic-dger");
    CU_ASSERT_FATAL(tc_alg_needs_beta_pass(alg, &fixtures[0].c));
    double total = 0.0;
    tc_mb_analysis *a = NULL;
    tc_error e;
    CU_ASSERT_EQUAL_FATAL(tc_mb_predict(s, &fixtures[0].c, alg, &p, &total, &a, &e), TC_OK);
    CU_ASSERT(a->beta_pass_seconds > 0.0);
    double sum = 0.0;
    for (int k = 0; k < a->ncases; k++)
        sum += (double)a->cases[k].count * a->cases[k].seconds;
    CU_ASSERT_DOUBLE_EQUAL(total, sum + a->beta_pass_seconds, 1e-12 * total);
    tc_mb_analysis_free(a);
    tc_contraction acc = fixtures[0].c;
    acc.beta = 1.0;
    CU_ASSERT_EQUAL_FATAL(tc_mb_predict(s, &acc, alg, &p, &total, &a, &e), TC_OK);
    CU_ASSERT_EQUAL(a->beta_pass_seconds, 0.0);
    tc_mb_analysis_free(a);
    /* a kernel owning beta 0: its calls are timed with it when no
     * contracted index is looped; else (full model) the calls with every
     * contracted loop at 0 are timed with it and the rest with 1, and no
     * pass is added; below the full model all are timed with 1, plus the
     * pass */
    const tc_contraction *c1 = &fixtures[1].c;
    CU_ASSERT_FATAL(c1->beta == 0.0);
    int with_loop = 0, without = 0;
    for (int k = 0; k < fixtures[1].set->count; k++) {
        const tc_algorithm *g = fixtures[1].set->alg[k];
        if (g->kernel != TC_KERNEL_DGEMM || !tc_alg_kernel_owns_beta(g))
            continue;
        int64_t period = 1; /* every period-th call has the contracted loops at 0 */
        for (int l = 0; l < g->nloops; l++)
            if (c1->index[g->loop[l]].role == TC_ROLE_CONTRACTED)
                period *= c1->index[g->loop[l]].size;
        CU_ASSERT_EQUAL_FATAL(tc_mb_analyze(g, c1, &p, &a, &e), TC_OK);
        int64_t zero = 0, calls = 0;
        for (int i = 0; i < a->ncases; i++) {
            if (a->cases[i].node != g->kernel_node)
                continue;
            calls += a->cases[i].count;
            zero += a->cases[i].beta == 0.0 ? a->cases[i].count : 0;
            CU_ASSERT(a->cases[i].beta == 0.0 || a->cases[i].beta == 1.0);
        }
        CU_ASSERT_EQUAL(calls, a->calls);
        CU_ASSERT_EQUAL(zero, a->calls / period);
        CU_ASSERT_EQUAL(a->pass_beta, 1.0);
        tc_mb_analysis_free(a);
        *(period > 1 ? &with_loop : &without) += 1;
        if (period == 1 || with_loop > 1)
            continue;
        CU_ASSERT_EQUAL_FATAL(tc_mb_predict(s, c1, g, &p, &total, &a, &e), TC_OK);
        CU_ASSERT_EQUAL(a->beta_pass_seconds, 0.0);
        tc_mb_analysis_free(a);
        tc_mb_params below = {TC_MODEL_FAILURES, TEST_LLC, TEST_LINE};
        CU_ASSERT_EQUAL_FATAL(tc_mb_predict(s, c1, g, &below, &total, &a, &e), TC_OK);
        CU_ASSERT_EQUAL(a->cases[0].beta, 1.0);
        CU_ASSERT_EQUAL(a->pass_beta, 0.0);
        CU_ASSERT(a->beta_pass_seconds > 0.0);
        tc_mb_analysis_free(a);
    }
    CU_ASSERT(with_loop > 1 && without > 0);
    double t1, t2;
    int64_t timed = tc_mb_sampler_timed(s);
    CU_ASSERT_EQUAL(tc_mb_sample_beta_pass(s, 1000, 0.0, &t1, &e), TC_OK);
    CU_ASSERT_EQUAL(tc_mb_sample_beta_pass(s, 1000, 0.0, &t2, &e), TC_OK);
    CU_ASSERT_EQUAL(t1, t2); /* remembered */
    CU_ASSERT_EQUAL(tc_mb_sampler_timed(s), timed + 1);
    CU_ASSERT_EQUAL(tc_mb_sample_beta_pass(s, -1, 0.0, &t1, &e), TC_EUSAGE);
    tc_mb_sampler_free(s);
}

/* reps = 1, and 201 repetitions leave the outputs where 1 does: alpha's
 * sign flips every call (warm-up included), so an even number of calls
 * returns them to their initial values. */
static void test_repetitions(void)
{
    tc_mb_sampler *one = new_sampler(1, TC_FLUSH_CLFLUSH);
    tc_mb_sampler *many = new_sampler(201, TC_FLUSH_CLFLUSH);
    static const char *const names[] = {"c-dgemm", "ci-dger", "ca-dgemv", "cib-daxpy",
                                        "cab-ddot"};
    for (size_t k = 0; k < sizeof names / sizeof names[0]; k++) {
        const tc_algorithm *alg = find_alg(0, names[k]);
        tc_mb_case cs;
        case_for(alg->kernel_node, &cs);
        make_setup(&cs, &fixtures[0].c, SETUP_ACCESS);
        tc_mb_case cs2 = cs;
        tc_error e;
        CU_ASSERT_EQUAL_FATAL(tc_mb_sample(one, &fixtures[0].c, &cs, &e), TC_OK);
        double c1 = tc_mb_sampler_checksum(one);
        CU_ASSERT_EQUAL_FATAL(tc_mb_sample(many, &fixtures[0].c, &cs2, &e), TC_OK);
        double c2 = tc_mb_sampler_checksum(many);
        CU_ASSERT(cs.seconds > 0.0 && isfinite(cs.seconds));
        CU_ASSERT(cs2.seconds > 0.0 && isfinite(cs2.seconds));
        CU_ASSERT(isfinite(c1) && isfinite(c2));
        double tol = 1e-9 * (double)(cs.operand[2].elements + 1);
        if (!(fabs(c1 - c2) <= tol))
            fprintf(stderr, "\n  %s: outputs %.17g after 2 calls, %.17g after 202\n",
                    names[k], c1, c2);
        CU_ASSERT(fabs(c1 - c2) <= tol);
    }
    tc_mb_sampler_free(one);
    tc_mb_sampler_free(many);
}

static void test_options(void)
{
    CU_ASSERT_PTR_NOT_NULL_FATAL(blas);
    tc_mb_sampler_options o = {.blas = blas, .timer = &timer, .llc_bytes = TEST_LLC,
                               .line_bytes = TEST_LINE, .reps = 0, .flush = TC_FLUSH_REMOTE};
    tc_mb_sampler *s = NULL;
    tc_error e;
    CU_ASSERT_EQUAL(tc_mb_sampler_new(&o, &s, &e), TC_EUSAGE);
    CU_ASSERT_PTR_NULL(s);
    o.reps = 3;
    o.line_bytes = 12;
    CU_ASSERT_EQUAL(tc_mb_sampler_new(&o, &s, &e), TC_EUSAGE);
    o.line_bytes = TEST_LINE;
    o.llc_bytes = 0;
    CU_ASSERT_EQUAL(tc_mb_sampler_new(&o, &s, &e), TC_EUSAGE);
    o.llc_bytes = (int64_t)1 << 58; /* beyond any cache */
    CU_ASSERT_EQUAL(tc_mb_sampler_new(&o, &s, &e), TC_EUSAGE);
    o.llc_bytes = TEST_LLC;
    o.memory_budget = 1024; /* not even the smallest pool fits */
    CU_ASSERT_EQUAL(tc_mb_sampler_new(&o, &s, &e), TC_ERESOURCE);
    CU_ASSERT_PTR_NOT_NULL(strstr(e.message, "budget"));
    o.memory_budget = 0;
    o.nlevels = TC_MB_MAX_LEVELS + 1;
    CU_ASSERT_EQUAL(tc_mb_sampler_new(&o, &s, &e), TC_EUSAGE);
    o.nlevels = 0;
    /* the machine's facts: refused with the words of the one check the
     * profile's reader applies too (model_input.h) */
    for (int k = 0; k < 6; k++) {
        tc_mb_sampler_options bad = o;
        switch (k) {
        case 0: bad.nlevels = 2, bad.level_bytes[0] = 1 << 20, bad.level_bytes[1] = 1 << 15; break;
        case 1: bad.stream_lines = 5000; break;
        case 2: bad.tlb_pages = -1; break;
        case 3: bad.peak_flops = INFINITY; break;
        case 4: bad.memory_bandwidth = -1.0; break;
        default: bad.llc_edge[3] = 0.5, bad.llc_edge[4] = 0.9; break;
        }
        tc_error m;
        CU_ASSERT_EQUAL(tc_mb_model_input_check(&bad, &m), TC_EUSAGE);
        CU_ASSERT_EQUAL(tc_mb_sampler_new(&bad, &s, &e), TC_EUSAGE);
        CU_ASSERT_STRING_EQUAL(e.message, m.message);
        CU_ASSERT_PTR_NULL(s);
    }
    o.timer = NULL;
    CU_ASSERT_EQUAL(tc_mb_sampler_new(&o, &s, &e), TC_EUSAGE);
    CU_ASSERT_EQUAL(tc_mb_sample(NULL, NULL, NULL, &e), TC_EUSAGE);
    CU_ASSERT_EQUAL(tc_mb_sampler_timed(NULL), 0);
    tc_mb_sampler_free(NULL);
}

static void test_memo(void)
{
    tc_mb_memo *m = tc_mb_memo_new();
    CU_ASSERT_PTR_NOT_NULL_FATAL(m);
    char key[32];
    double v;
    for (int i = 0; i < 5000; i++) {
        snprintf(key, sizeof key, "case %d", i);
        CU_ASSERT_EQUAL(tc_mb_memo_find(m, key, &v), 0);
        CU_ASSERT_EQUAL(tc_mb_memo_put(m, key, (double)i), 0);
    }
    CU_ASSERT_EQUAL(tc_mb_memo_count(m), 5000);
    int bad = 0;
    for (int i = 0; i < 5000; i++) {
        snprintf(key, sizeof key, "case %d", i);
        bad += !tc_mb_memo_find(m, key, &v) || v != (double)i;
    }
    CU_ASSERT_EQUAL(bad, 0);
    CU_ASSERT_EQUAL(tc_mb_memo_put(m, "case 7", 0.5), 0);
    CU_ASSERT(tc_mb_memo_find(m, "case 7", &v) && v == 0.5);
    CU_ASSERT_EQUAL(tc_mb_memo_count(m), 5000);
    tc_mb_memo_free(m);
    tc_mb_memo_free(NULL);
}

int tc_suite_sample(void)
{
    CU_pSuite s = CU_add_suite("sample", fixtures_init, fixtures_clean);
    if (!s)
        return -1;
    return !CU_add_test(s, "every node of every algorithm samples", test_every_case) ||
           !CU_add_test(s, "i'c-dgemm: copy and dgemm, both flush modes",
                        test_copy_algorithm) ||
           !CU_add_test(s, "setups touch what they claim", test_setup_counts) ||
           !CU_add_test(s, "the analyzer's cases", test_analyzer_cases) ||
           !CU_add_test(s, "identical cases are timed once", test_reuse) ||
           !CU_add_test(s, "permutations of one size, other views: other benchmarks",
                        test_permutation_keys) ||
           !CU_add_test(s, "memory check and int dimensions", test_memory_check) ||
           !CU_add_test(s, "the TLB evicted past its reach", test_tlb) ||
           !CU_add_test(s, "the LLC's edge: timed in the LLC and in memory", test_llc_edge) ||
           !CU_add_test(s, "a dgemm's streamed run: the depth prefetched", test_tiled_stream) ||
           !CU_add_test(s, "operand blocks kept by what is resident", test_spare_blocks) ||
           !CU_add_test(s, "the library warmed after an eviction", test_warm_library) ||
           !CU_add_test(s, "setup bounded by the upper levels (8 GiB LLC)",
                        test_bounded_setup) ||
           !CU_add_test(s, "memory budget across four threads", test_budget) ||
           !CU_add_test(s, "no time below the flop and byte bound", test_physics_bound) ||
           !CU_add_test(s, "a streamed permutation's bound: each byte once", test_permutation_bound) ||
           !CU_add_test(s, "a streamed operand: placed whole, its bytes added to the call (a daxpy's replace it)", test_stream) ||
           !CU_add_test(s, "the beta pass over C is predicted", test_beta_pass) ||
           !CU_add_test(s, "a compute-bound dgemm's slab is short", test_slab_of_compute_bound_dgemm) ||
           !CU_add_test(s, "a permutation's slab keeps both sides' runs",
                        test_permutation_slab_dimension) ||
           !CU_add_test(s, "reps 1 and 201: outputs stay bounded", test_repetitions) ||
           !CU_add_test(s, "option errors", test_options) ||
           !CU_add_test(s, "memo hash table", test_memo) ||
           !CU_add_test(s, "trains of calls", test_trains) ||
           !CU_add_test(s, "a train maps its pages, not its span", test_train_pages) ||
           !CU_add_test(s, "a split loop's permutations around it: the plan's sampler",
                        test_split_around) ||
           !CU_add_test(s, "a split contracted loop's partial sums", test_split_partial_sum)
               ? -1
               : 0;
}
