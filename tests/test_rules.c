/*
 * test_rules.c - the sampler's rules (microbench/rules.h), one property
 * each. Every test states what its rule guarantees as a predicate over a
 * sampler with a given set of rules switched off, and asserts both that
 * it holds with every rule on and that it fails with its own rule off: a
 * test that passed either way would not be testing the rule. The table
 * itself, the --model syntax, and the property of every rule are checked
 * to be complete. Cases are built by hand from the algorithms' nodes, or
 * taken from the analyzer where a loop's steps matter (trains). The only
 * timings compared are ones a rule sets exactly (a bound, a stream's
 * bytes) or orders (a blend between its two timings).
 */
#include <CUnit/CUnit.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "generator/generator.h"
#include "microbench/analyze.h"
#include "microbench/predict.h"
#include "microbench/rules.h"
#include "microbench/sample.h"
#include "microbench/touch.h"
#include "runtime/blas.h"
#include "runtime/memory.h"
#include "runtime/timer.h"
#include "tests/helpers_corpus.h"

#define LLC (1 << 20) /* a small fake cache keeps setups cheap */
#define LINE 64
#define LINE_DOUBLES (LINE / 8)

static tc_blas *blas;
static tc_timer timer;
static int timer_ok;

/* C[a,b,c] = A[a,i] * B[i,b,c] at 64 (fixture 0), at a=b=256, c=4 (1: a
 * dgemv's y of 2 KiB streamed by the b loop), and
 * C[a,b,c] = A[i,j,a] * B[j,b,i,c] at 16 (2: ci'-dgemm's streamed run),
 * C[a,b] = A[a,k] * B[k,b] at 384 (3: a compute-bound dgemm), and
 * C[a,b,j,c] = A[k,b,a,c] * B[j,k] (4: cb-dgemm's interleaved columns),
 * C[a,b,j,k] = A[j,k,m,b] * B[m,a] (5: kb-dgemm's A[:,k,:,b], columns the
 * b loop continues), and C[a,b,c,j] = A[j,b,m] * B[m,a,c] (6: cb-dgemm's
 * C[:,b,c,:], whose runs at b = 0 continue those of the last c). */
static struct {
    const char *text, *sizes;
    tc_contraction c;
    tc_algorithm_set *set;
} fx[] = {
    {.text = "C[a,b,c] = A[a,i] * B[i,b,c]", .sizes = "a=b=c=64,i=8"},
    {.text = "C[a,b,c] = A[a,i] * B[i,b,c]", .sizes = "a=b=256,c=4,i=8"},
    {.text = "C[a,b,c] = A[i,j,a] * B[j,b,i,c]", .sizes = "a=b=c=16,i=j=8"},
    {.text = "C[a,b] = A[a,k] * B[k,b]", .sizes = "a=b=k=384"},
    {.text = "C[a,b,j,c] = A[k,b,a,c] * B[j,k]", .sizes = "a=16,b=8,j=8,c=4,k=16"},
    {.text = "C[a,b,j,k] = A[j,k,m,b] * B[m,a]", .sizes = "a=16,b=8,j=16,k=2,m=16"},
    {.text = "C[a,b,c,j] = A[j,b,m] * B[m,a,c]", .sizes = "a=16,b=8,c=4,j=16,m=16"},
};
#define NFX ((int)(sizeof fx / sizeof fx[0]))

static int suite_init(void)
{
    tc_error e;
    if (tc_rt_blas_load("openblas", 1, &blas, &e) != TC_OK) {
        fprintf(stderr, "rules: cannot load openblas: %s\n", e.message);
        blas = NULL;
    }
    timer_ok = tc_rt_timer_init(&timer, &e) == TC_OK;
    for (int f = 0; f < NFX; f++) {
        char msg[256];
        if (tc_corpus_parse(fx[f].text, fx[f].sizes, &fx[f].c, msg, sizeof msg) != 0 ||
            tc_gen_enumerate_families(&fx[f].c, TC_KERNEL_MASK_ALL, TC_FAMILY_MASK_ALL,
                                      &fx[f].set, &e) != TC_OK)
            return -1;
    }
    return 0;
}

static int suite_clean(void)
{
    for (int f = 0; f < NFX; f++) {
        tc_alg_set_free(fx[f].set);
        fx[f].set = NULL;
    }
    tc_rt_blas_unload(blas);
    blas = NULL;
    return 0;
}

static const tc_algorithm *alg_of(int f, const char *name)
{
    const tc_algorithm *alg = tc_alg_set_find(fx[f].set, name);
    CU_ASSERT_PTR_NOT_NULL_FATAL(alg);
    return alg;
}

/* Options every property starts from: the fake LLC, one repetition. */
static tc_mb_sampler_options base_options(unsigned off)
{
    tc_mb_sampler_options o = {.blas = blas, .timer = &timer, .llc_bytes = LLC,
                               .line_bytes = LINE, .reps = 1, .flush = TC_FLUSH_CLFLUSH,
                               .rules_off = off};
    return o;
}

static tc_mb_sampler *sampler(const tc_mb_sampler_options *o)
{
    CU_ASSERT_PTR_NOT_NULL_FATAL(blas);
    CU_ASSERT_FATAL(timer_ok);
    tc_mb_sampler *s = NULL;
    tc_error e;
    tc_status st = tc_mb_sampler_new(o, &s, &e);
    if (st != TC_OK)
        fprintf(stderr, "\n  sampler: %s\n", e.message);
    CU_ASSERT_EQUAL_FATAL(st, TC_OK);
    return s;
}

static void set_operand(tc_mb_operand *mo, const tc_operand *op, int written)
{
    memset(mo, 0, sizeof *mo);
    mo->op = *op;
    mo->written = written;
    tc_mb_operand_size(mo);
}

/* A steady case of a kernel node, its output written, no setup. */
static void kernel_case(const tc_node *node, tc_mb_case *cs)
{
    memset(cs, 0, sizeof *cs);
    cs->kind = TC_CASE_STEADY;
    cs->node = node;
    cs->count = 1;
    cs->beta = 1.0;
    cs->noperands = 3;
    for (int i = 0; i < 3; i++)
        set_operand(&cs->operand[i], &node->call->arg[i], i == 2);
}

static void add_entry(tc_mb_case *cs, tc_mb_setup_kind kind, int operand, int64_t elements,
                      int64_t distance)
{
    CU_ASSERT_FATAL(cs->nsetup < TC_MB_MAX_SETUP);
    tc_mb_setup *st = &cs->setup[cs->nsetup++];
    st->kind = kind;
    st->operand = operand;
    st->elements = elements;
    st->distance = distance;
}

/* Elements the setup of cs touches, flushes or evicts with (sample.h). */
static int64_t setup_count(tc_mb_sampler *s, const tc_contraction *c, const tc_mb_case *cs)
{
    double *base[3] = {NULL, NULL, NULL};
    for (int i = 0; i < cs->noperands; i++) {
        base[i] = tc_rt_alloc(cs->operand[i].span, NULL);
        CU_ASSERT_FATAL(base[i] != NULL);
        memset(base[i], 0, sizeof(double) * (size_t)cs->operand[i].span);
    }
    int64_t n = tc_mb_run_setup_in(s, c, cs, base);
    for (int i = 0; i < cs->noperands; i++)
        tc_rt_free(base[i]);
    return n;
}

/* The analyzer's steady case of alg's kernel (freed with *a). */
static tc_mb_case *steady_case(const tc_algorithm *alg, const tc_contraction *c,
                               tc_mb_analysis **a)
{
    tc_mb_params p = {TC_MODEL_FULL, LLC, LINE};
    tc_error e;
    CU_ASSERT_EQUAL_FATAL(tc_mb_analyze(alg, c, &p, a, &e), TC_OK);
    for (int i = 0; i < (*a)->ncases; i++)
        if ((*a)->cases[i].node == alg->kernel_node && (*a)->cases[i].kind == TC_CASE_STEADY)
            return &(*a)->cases[i];
    CU_FAIL_FATAL("no steady case");
    return NULL;
}

/* The lead calls of alg's first case of its inner loop. */
static int first_lead(const tc_mb_sampler_options *o, int f, const char *name)
{
    const tc_algorithm *alg = alg_of(f, name);
    tc_mb_params p = {TC_MODEL_FULL, LLC, LINE};
    tc_mb_analysis *a = NULL;
    tc_error e;
    CU_ASSERT_EQUAL_FATAL(tc_mb_analyze(alg, &fx[f].c, &p, &a, &e), TC_OK);
    int lead = -1;
    for (int i = 0; i < a->ncases; i++)
        if (a->cases[i].node == alg->kernel_node && a->cases[i].kind == TC_CASE_FIRST &&
            a->cases[i].level == alg->kernel_node->depth - 1) {
            tc_mb_sampler *s = sampler(o);
            lead = tc_mb_case_lead(s, &fx[f].c, &a->cases[i]);
            tc_mb_sampler_free(s);
        }
    tc_mb_analysis_free(a);
    return lead;
}

/* The train of alg's steady case, its loop's extent and (lead not NULL)
 * the calls run untimed before the train. */
static int train_of(const tc_mb_sampler_options *o, int f, const char *name, int64_t *extent,
                    int64_t *bytes_per_call, int *lead)
{
    tc_mb_analysis *a = NULL;
    tc_mb_case *cs = steady_case(alg_of(f, name), &fx[f].c, &a);
    tc_mb_sampler *s = sampler(o);
    int train = tc_mb_case_train(s, &fx[f].c, cs);
    if (lead)
        *lead = tc_mb_case_lead(s, &fx[f].c, cs);
    *extent = cs->loop_extent;
    *bytes_per_call = 0;
    for (int i = 0; i < cs->noperands; i++)
        if (cs->operand[i].loop_step != 0)
            *bytes_per_call += 8 * cs->operand[i].elements;
    tc_mb_sampler_free(s);
    tc_mb_analysis_free(a);
    return train;
}

/* ---- placement ------------------------------------------------------- */

/* llc-edge: an operand reused past the LLC's size but within the edge's
 * reach is timed both in the LLC and in memory (the two recipes differ),
 * and the case's time lies between those two timings. */
static int holds_llc_edge(unsigned off)
{
    tc_mb_sampler_options o = base_options(off);
    for (int k = 0; k < TC_EDGE_POINTS; k++) /* all to 3/4 of the LLC, none from 2x */
        o.llc_edge[k] = k <= 1 ? 1.0 : k >= 6 ? 0.0 : 1.0 - 0.2 * (k - 1);
    tc_mb_sampler *s = sampler(&o);
    const tc_algorithm *alg = alg_of(0, "b-dgemm");
    tc_mb_case cs[3];
    double t[3];
    const double at[3] = {1.5, 0.25, 4.0}; /* on the edge, in the LLC, in memory */
    char in[2048], out[2048];
    int ok = 1;
    for (int k = 0; k < 3; k++) {
        kernel_case(alg->kernel_node, &cs[k]);
        add_entry(&cs[k], TC_SETUP_OPERAND, 2, cs[k].operand[2].elements,
                  (int64_t)(at[k] * LLC / 8));
        tc_error e;
        ok &= tc_mb_sample(s, &fx[0].c, &cs[k], &e) == TC_OK;
        t[k] = cs[k].seconds;
    }
    ok &= tc_mb_case_recipe(s, &fx[0].c, &cs[0], 0, in, sizeof in) == 0 &&
          tc_mb_case_recipe(s, &fx[0].c, &cs[0], 1, out, sizeof out) == 0;
    double lo = t[1] < t[2] ? t[1] : t[2], hi = t[1] < t[2] ? t[2] : t[1];
    ok &= strcmp(in, out) != 0 && t[0] >= lo * (1 - 1e-12) && t[0] <= hi * (1 + 1e-12);
    tc_mb_sampler_free(s);
    return ok;
}

/* tlb: an operand whose reuse distance spans more pages than the TLB
 * keeps (C[:,b,:] of b-dgemm: a column per page) is placed without its
 * translations, an L step in its recipe; a dense one at the same distance
 * keeps them. */
static int holds_tlb(unsigned off)
{
    tc_mb_sampler_options o = base_options(off);
    o.tlb_pages = 64;
    tc_mb_sampler *s = sampler(&o);
    const tc_algorithm *alg = alg_of(0, "b-dgemm");
    int has[3] = {0, 0, 0};
    for (int i = 0; i < 3; i += 2) { /* A dense, C a line per page */
        tc_mb_case cs;
        kernel_case(alg->kernel_node, &cs);
        add_entry(&cs, TC_SETUP_OPERAND, i, cs.operand[i].elements, 64 * 64 * 2);
        char key[2048];
        CU_ASSERT_EQUAL_FATAL(tc_mb_case_recipe(s, &fx[0].c, &cs, 0, key, sizeof key), 0);
        has[i] = strstr(key, " L") != NULL;
    }
    tc_mb_sampler_free(s);
    return has[2] && !has[0];
}

/* cb-dgemv's y = C[:,b,c], which the b loop streams through, in memory
 * since its last use and prefetched by the call before. */
static void streamed_dgemv(tc_mb_case *cs, const char *name)
{
    kernel_case(alg_of(0, name)->kernel_node, cs);
    cs->operand[2].prefetch = TC_PREFETCH_STREAM;
    add_entry(cs, TC_SETUP_OPERAND, 2, cs->operand[2].elements, LLC);
    add_entry(cs, TC_SETUP_PREFETCH, 2, LINE_DOUBLES, 0);
}

/* streams: on a machine with a stream-prefetch depth, an operand the loop
 * streams through is placed whole as prefetched (the setup handles its
 * elements twice: flushed, then placed), not its first line only. */
static int holds_streams(unsigned off)
{
    tc_mb_sampler_options o = base_options(off);
    o.stream_lines = 8;
    tc_mb_sampler *s = sampler(&o);
    tc_mb_case cs;
    streamed_dgemv(&cs, "cb-dgemv");
    int64_t n = setup_count(s, &fx[0].c, &cs), el = cs.operand[2].elements;
    tc_mb_sampler_free(s);
    return !tc_mb_touch_can_flush() || n == 2 * el;
}

/* tiled-streams: the prefetch of a dgemm's run of short columns
 * (B[:,:,i,c] of ci'-dgemm, a line per column) places the stream's depth
 * of it, and the rest goes where its distance says: the setup handles the
 * depth plus the whole operand. */
static int holds_tiled_streams(unsigned off)
{
    tc_mb_sampler_options o = base_options(off);
    o.stream_lines = 4;
    tc_mb_sampler *s = sampler(&o);
    tc_mb_case cs;
    kernel_case(alg_of(2, "ci'-dgemm")->kernel_node, &cs);
    cs.operand[1].prefetch = TC_PREFETCH_STREAM;
    add_entry(&cs, TC_SETUP_PREFETCH, 1, cs.operand[1].elements, 0);
    int64_t n = setup_count(s, &fx[2].c, &cs);
    tc_mb_sampler_free(s);
    return n == 4 * LINE_DOUBLES + cs.operand[1].elements;
}

/* ---- trains ---------------------------------------------------------- */

/* A train never exceeds its loop's extent, nor TC_MB_TRAIN_MAX. */
static int train_within(int train, int64_t extent)
{
    return train >= 1 && train <= extent && train <= TC_MB_TRAIN_MAX;
}

/* stream-trains: a steady case whose loop streams every operand it moves
 * (cb-dgemv at a=256: y 2 KiB, x 64 B) is timed as a train that streams
 * TC_MB_TRAIN_BYTES, or the whole loop. */
static int holds_stream_trains(unsigned off)
{
    tc_mb_sampler_options o = base_options(off);
    o.stream_lines = 8;
    int64_t extent, bytes;
    int train = train_of(&o, 1, "cb-dgemv", &extent, &bytes, NULL);
    return train_within(train, extent) &&
           (train * bytes >= TC_MB_TRAIN_BYTES || train == extent || train == TC_MB_TRAIN_MAX);
}

/* tiny-trains: a call on at most TC_MB_TINY_BYTES (acbi-ddot: 8 elements
 * each) is timed as TC_MB_TINY_CALLS calls in a row, or the whole loop. */
static int holds_tiny_trains(unsigned off)
{
    tc_mb_sampler_options o = base_options(off);
    int64_t extent, bytes;
    int train = train_of(&o, 2, "acbi-ddot", &extent, &bytes, NULL);
    int64_t want = extent < TC_MB_TINY_CALLS ? extent : TC_MB_TINY_CALLS;
    return train_within(train, extent) && want > 1 && train == want;
}

/* written-trains: a call that writes a vector the loop moves (ac-dgemv: y
 * = C[a,:,c], a line per element) is timed as a train writing
 * TC_MB_WRITTEN_TRAIN_BYTES of its lines, or the whole loop. */
static int holds_written_trains(unsigned off)
{
    tc_mb_sampler_options o = base_options(off);
    int64_t extent, bytes;
    int train = train_of(&o, 0, "ac-dgemv", &extent, &bytes, NULL);
    int64_t lines = 64; /* y's elements, a line each */
    return train_within(train, extent) &&
           (train * lines * LINE >= TC_MB_WRITTEN_TRAIN_BYTES || train == extent);
}

/* interleaved: columns the loop moves by their own height (B[:,b,:] of
 * ab-dgemv, b inner) are timed as a train whose calls' runs stay apart:
 * more than one call, at most the columns' stride over their height. */
static int holds_interleaved(unsigned off)
{
    tc_mb_sampler_options o = base_options(off);
    int64_t extent, bytes;
    int train = train_of(&o, 0, "ab-dgemv", &extent, &bytes, NULL);
    int64_t apart = 0; /* the columns': their stride over their height */
    for (int i = 0; i < 3; i++) {
        const tc_operand *x = &alg_of(0, "ab-dgemv")->kernel_node->call->arg[i];
        if (x->rank == 2 && x->extent[1] > 1 && x->stride[0] == 1 && x->extent[0] > 0 &&
            x->stride[1] > x->extent[0])
            apart = x->stride[1] / x->extent[0];
    }
    return train_within(train, extent) && train > 1 && train <= apart;
}

/* interleaved-trains: a dgemm whose loop moves its operands' columns by
 * their height (cb-dgemm: A[:,b,:,c] and C[:,b,:,c], 16 high, 128 apart)
 * is timed as a train moving TC_MB_INTERLEAVED_TRAIN_BYTES, or the calls
 * the columns keep apart, or the whole loop; so is one whose loop also
 * moves columns on by their span (kb-dgemm: A[:,k,:,b], 16 columns 32
 * apart, b 512 on). With a stream depth (8 lines) the calls it takes (4
 * of 16 elements) run untimed before the train, at most half of it. */
static int holds_interleaved_trains(unsigned off)
{
    tc_mb_sampler_options o = base_options(off);
    int64_t extent, bytes, e5, b5;
    int lead, lead5, deep_lead;
    int train = train_of(&o, 4, "cb-dgemm", &extent, &bytes, &lead);
    int fits = train_within(train, extent) && train > 1 && train <= 128 / 16 &&
               (train * bytes >= TC_MB_INTERLEAVED_TRAIN_BYTES || train == extent ||
                train == 128 / 16) && lead == 0;
    int continued = train_of(&o, 5, "kb-dgemm", &e5, &b5, &lead5);
    fits &= train_within(continued, e5) && continued > 1 && lead5 == 0;
    o.stream_lines = 8;
    int deep = train_of(&o, 4, "cb-dgemm", &extent, &bytes, &deep_lead);
    return fits && deep_lead == 4 && deep == 4;
}

/* first-streams: with a stream depth (8 lines), the first call of
 * cb-dgemm's b loop, whose C[:,0,c,:] continues each column of
 * C[:,7,c-1,:], has the 4 calls before it (16 elements each) run first;
 * kb-dgemm's, whose C jumps on with k, has none. */
static int holds_first_streams(unsigned off)
{
    tc_mb_sampler_options o = base_options(off);
    o.stream_lines = 8;
    return first_lead(&o, 6, "cb-dgemm") == 4 && first_lead(&o, 5, "kb-dgemm") == 0;
}

/* ---- composition ----------------------------------------------------- */

/* warm-library: after a setup that evicts (remote mode: C pushed to
 * memory), a small call's library is warmed before each timed call and
 * the warm-up: at least twice for one repetition. */
static int holds_warm_library(unsigned off)
{
    tc_mb_sampler_options o = base_options(off);
    o.flush = TC_FLUSH_REMOTE;
    tc_mb_sampler *s = sampler(&o);
    tc_mb_case cs;
    kernel_case(alg_of(0, "c-dgemm")->kernel_node, &cs); /* 64x64x8 */
    add_entry(&cs, TC_SETUP_OPERAND, 2, cs.operand[2].elements, LLC);
    tc_error e;
    int ok = tc_mb_sample(s, &fx[0].c, &cs, &e) == TC_OK && tc_mb_sampler_warmed(s) >= 2;
    tc_mb_sampler_free(s);
    return ok;
}

/* A sampler on a machine of 1e8 B/s whose streams are 8 lines deep, and
 * the streamed y of `name` sampled on it: *bytes gets y's bytes both ways
 * at that bandwidth (10 us: far above the call), the return its time. */
static double streamed_time(unsigned off, const char *name, double *bytes)
{
    tc_mb_sampler_options o = base_options(off);
    o.stream_lines = 8;
    o.memory_bandwidth = 1e8;
    o.reps = 3;
    tc_mb_sampler *s = sampler(&o);
    tc_mb_case cs;
    streamed_dgemv(&cs, name);
    tc_error e;
    CU_ASSERT_EQUAL(tc_mb_sample(s, &fx[0].c, &cs, &e), TC_OK);
    *bytes = 2.0 * 8.0 * (double)cs.operand[2].elements / 1e8;
    tc_mb_sampler_free(s);
    return cs.seconds;
}

/* stream-bytes: a streamed operand's bytes are added to the call timed
 * alone (the setup put it in cache): its time exceeds them. */
static int holds_stream_bytes(unsigned off)
{
    double bytes, t = streamed_time(off, "cb-dgemv", &bytes);
    return !tc_mb_touch_can_flush() || t > bytes * (1 + 1e-9);
}

/* one-pass: a daxpy whose y streams is one pass at memory's pace: its
 * time is its streamed bytes, not the bytes plus the call. */
static int holds_one_pass(unsigned off)
{
    double bytes, t = streamed_time(off, "icb-daxpy", &bytes);
    return !tc_mb_touch_can_flush() || fabs(t - bytes) <= 1e-12;
}

/* write-back: the loop's bound charges a written operand in memory its
 * bytes read and written back. */
static int holds_write_back(unsigned off)
{
    tc_mb_sampler_options o = base_options(off);
    o.memory_bandwidth = 1e8;
    tc_mb_sampler *s = sampler(&o);
    tc_mb_case cs;
    kernel_case(alg_of(0, "cb-dgemv")->kernel_node, &cs);
    add_entry(&cs, TC_SETUP_OPERAND, 2, cs.operand[2].elements, LLC);
    double bound = tc_mb_case_bound(s, &cs), want = 2.0 * 8.0 * cs.operand[2].elements / 1e8;
    tc_mb_sampler_free(s);
    return !tc_mb_touch_can_flush() || bound >= want * (1 - 1e-12);
}

/* bound: on a machine of 2 MB/s, no case is timed below its bound (the
 * bytes of its C in memory, 0.5 ms: the call takes a microsecond). */
static int holds_bound(unsigned off)
{
    tc_mb_sampler_options o = base_options(off);
    o.memory_bandwidth = 2e6;
    tc_mb_sampler *s = sampler(&o);
    tc_mb_case cs;
    kernel_case(alg_of(0, "cb-dgemv")->kernel_node, &cs);
    add_entry(&cs, TC_SETUP_OPERAND, 2, cs.operand[2].elements, LLC);
    tc_error e;
    int ok = tc_mb_sample(s, &fx[0].c, &cs, &e) == TC_OK &&
             cs.seconds >= tc_mb_case_bound(s, &cs) * (1 - 1e-12);
    tc_mb_sampler_free(s);
    return ok;
}

/* ---- slabs ----------------------------------------------------------- */

/* slabs: a call whose flop bound passes TC_MB_SLAB_SECONDS (a 64x64x8
 * dgemm on a machine of 10 MFLOP/s: 6.6 ms) is timed on a slab, and its
 * scaled time is within its bounds: at least the whole call's bound, at
 * most the scale times what the slab's own time could be. */
static int holds_slabs(unsigned off)
{
    tc_mb_sampler_options o = base_options(off);
    o.peak_flops = 1e7;
    tc_mb_sampler *s = sampler(&o);
    tc_mb_case cs;
    kernel_case(alg_of(0, "c-dgemm")->kernel_node, &cs);
    double whole = tc_mb_case_bound(s, &cs);
    tc_error e;
    int ok = tc_mb_sample(s, &fx[0].c, &cs, &e) == TC_OK && whole > TC_MB_SLAB_SECONDS &&
             cs.scale > 1.0 && cs.seconds >= whole * (1 - 1e-9) &&
             whole / cs.scale <= TC_MB_SLAB_SECONDS * (1 + 1e-9);
    tc_mb_sampler_free(s);
    return ok;
}

/* slab-floor: a slab of a call whose operands lie beyond twice the LLC
 * ((bc)-dgemm: C 2 MiB, in memory; 4 ms of bytes at 1 GB/s) keeps them
 * beyond it, as the whole call had them. */
static int holds_slab_floor(unsigned off)
{
    tc_mb_sampler_options o = base_options(off);
    o.memory_bandwidth = 1e9;
    tc_mb_sampler *s = sampler(&o);
    tc_mb_case cs;
    kernel_case(alg_of(0, "(bc)-dgemm")->kernel_node, &cs);
    add_entry(&cs, TC_SETUP_OPERAND, 2, cs.operand[2].elements, 4 * LLC);
    tc_error e;
    int ok = tc_mb_case_bytes(&cs) >= 2 * LLC && tc_mb_sample(s, &fx[0].c, &cs, &e) == TC_OK &&
             tc_mb_sampler_case_bytes(s) >= 2 * LLC;
    tc_mb_sampler_free(s);
    return ok;
}

/* warm-slabs: a slab of a compute-bound dgemm whose operands the case has
 * in memory (384^3, 113 ms at 1 GFLOP/s, its setup truncated) is timed
 * with them in cache (its recipe flushes none), and the whole call's
 * bytes from memory (3 x 384^2 doubles at 1 GB/s: 3.5 ms) are added once
 * to the scaled slab (at least its flops at the peak: 113 ms), where
 * without the rule only the larger of the two counts. */
static int holds_warm_slabs(unsigned off)
{
    tc_mb_sampler_options o = base_options(off);
    o.peak_flops = 1e9;
    o.memory_bandwidth = 1e9;
    tc_mb_sampler *s = sampler(&o);
    tc_mb_case cs;
    kernel_case(alg_of(3, "dgemm")->kernel_node, &cs);
    cs.truncated = 1; /* every operand beyond the setup: in memory */
    char key[2048];
    int ok = tc_mb_case_recipe(s, &fx[3].c, &cs, 0, key, sizeof key) == 0 &&
             strstr(key, " x") && !strstr(key, " F");
    tc_error e;
    double flops = 2.0 * 384 * 384 * 384 / 1e9, bytes = 3.0 * 8.0 * 384 * 384 / 1e9;
    ok = ok && tc_mb_sample(s, &fx[3].c, &cs, &e) == TC_OK && cs.scale > 1.0 &&
         cs.seconds >= (flops + bytes) * (1 - 1e-9);
    tc_mb_sampler_free(s);
    return ok;
}

/* slab-rows: a dgemm shortened to a slab (384^3 at 1 GFLOP/s: 113 ms)
 * keeps its 384 rows; its n and k are cut. */
static int holds_slab_rows(unsigned off)
{
    tc_mb_sampler_options o = base_options(off);
    o.peak_flops = 1e9;
    tc_mb_sampler *s = sampler(&o);
    tc_mb_case cs;
    kernel_case(alg_of(3, "dgemm")->kernel_node, &cs);
    char key[2048];
    int ok = tc_mb_case_recipe(s, &fx[3].c, &cs, 0, key, sizeof key) == 0 &&
             strstr(key, " m384 ") && !strstr(key, " n384 ") && !strstr(key, " k384|");
    tc_mb_sampler_free(s);
    return ok;
}

/* peak-dgemm: a compute-bound dgemm of many slabs (384^3 at 10 GFLOP/s:
 * 11 ms, 16 slabs) is its flops at the peak; on two BLAS threads at a
 * peak of 5 GFLOP/s, at twice that peak (the same 11 ms); its key says
 * so. */
static int holds_peak_dgemm(unsigned off)
{
    int ok = 1;
    for (int threads = 1; threads <= 2 && ok; threads++) {
        tc_mb_sampler_options o = base_options(off);
        o.peak_flops = 1e10 / threads;
        o.threads = threads;
        tc_mb_sampler *s = sampler(&o);
        tc_mb_case cs;
        kernel_case(alg_of(3, "dgemm")->kernel_node, &cs);
        char key[2048];
        tc_error e;
        double want = 2.0 * 384 * 384 * 384 / 1e10;
        ok = tc_mb_case_recipe(s, &fx[3].c, &cs, 0, key, sizeof key) == 0 &&
             strstr(key, " peak") && tc_mb_sample(s, &fx[3].c, &cs, &e) == TC_OK &&
             cs.scale >= TC_MB_PEAK_DGEMM_SLABS && fabs(cs.seconds - want) <= 1e-9 * want;
        tc_mb_sampler_free(s);
    }
    return ok;
}

/* together: a split algorithm (c-dgemm of fixture 0 over 2 threads),
 * predicted on a team of two samplers, times its calls with each member's
 * start kept with the other's. */
static int holds_together(unsigned off)
{
    tc_mb_sampler_options o = base_options(off);
    tc_mb_sampler *s = sampler(&o);
    const tc_algorithm *alg = tc_alg_split(fx[0].set, alg_of(0, "c-dgemm"), &fx[0].c, 2);
    tc_mb_params p = {TC_MODEL_FULL, LLC, LINE};
    double seconds = 0.0;
    tc_error e;
    int ok = alg && tc_mb_predict(s, &fx[0].c, alg, &p, &seconds, NULL, &e) == TC_OK &&
             seconds > 0.0 && tc_mb_sampler_together(s) > 0;
    tc_mb_sampler_free(s);
    return ok;
}

/* ---- the table -------------------------------------------------------- */

static int (*const property[TC_RULE_COUNT])(unsigned off) = {
    [TC_RULE_LLC_EDGE] = holds_llc_edge,
    [TC_RULE_TLB] = holds_tlb,
    [TC_RULE_STREAMS] = holds_streams,
    [TC_RULE_TILED_STREAMS] = holds_tiled_streams,
    [TC_RULE_STREAM_TRAINS] = holds_stream_trains,
    [TC_RULE_TINY_TRAINS] = holds_tiny_trains,
    [TC_RULE_WRITTEN_TRAINS] = holds_written_trains,
    [TC_RULE_INTERLEAVED] = holds_interleaved,
    [TC_RULE_INTERLEAVED_TRAINS] = holds_interleaved_trains,
    [TC_RULE_FIRST_STREAMS] = holds_first_streams,
    [TC_RULE_WARM_LIBRARY] = holds_warm_library,
    [TC_RULE_STREAM_BYTES] = holds_stream_bytes,
    [TC_RULE_ONE_PASS] = holds_one_pass,
    [TC_RULE_WRITE_BACK] = holds_write_back,
    [TC_RULE_BOUND] = holds_bound,
    [TC_RULE_SLABS] = holds_slabs,
    [TC_RULE_SLAB_FLOOR] = holds_slab_floor,
    [TC_RULE_WARM_SLABS] = holds_warm_slabs,
    [TC_RULE_SLAB_ROWS] = holds_slab_rows,
    [TC_RULE_PEAK_DGEMM] = holds_peak_dgemm,
    [TC_RULE_TOGETHER] = holds_together,
};

/* Rules whose property needs clflush to tell memory from cache. */
static int needs_flush(int r)
{
    return r == TC_RULE_STREAMS || r == TC_RULE_STREAM_BYTES || r == TC_RULE_ONE_PASS ||
           r == TC_RULE_WRITE_BACK;
}

/* count_rules: the steady case of a tiny ddot (acbi-ddot, timed as a train)
 * counts tiny-trains and not slabs; with tiny-trains off, it counts none. */
static void test_rule_cases(void)
{
    for (int off = 0; off < 2; off++) {
        tc_mb_sampler_options o = base_options(off ? TC_RULE_BIT(TC_RULE_TINY_TRAINS) : 0);
        o.count_rules = 1;
        tc_mb_analysis *a = NULL;
        tc_mb_case *cs = steady_case(alg_of(2, "acbi-ddot"), &fx[2].c, &a);
        tc_mb_sampler *s = sampler(&o);
        tc_error e;
        CU_ASSERT_EQUAL(tc_mb_sample(s, &fx[2].c, cs, &e), TC_OK);
        CU_ASSERT_EQUAL(tc_mb_sampler_timed(s), 1);
        CU_ASSERT_EQUAL(tc_mb_sampler_rule_cases(s, TC_RULE_TINY_TRAINS), off ? 0 : 1);
        CU_ASSERT_EQUAL(tc_mb_sampler_rule_cases(s, TC_RULE_SLABS), 0);
        tc_mb_sampler_free(s);
        tc_mb_analysis_free(a);
    }
}

/* The property of rule r holds with every rule on, and fails with r off. */
static void check_rule(int r)
{
    const tc_mb_rule_info *ri = tc_mb_rule_get(r);
    CU_ASSERT_PTR_NOT_NULL_FATAL(property[r]);
    int on = property[r](0);
    if (!on)
        fprintf(stderr, "\n  rule %s: its property fails with every rule on\n", ri->name);
    CU_ASSERT(on);
    if (needs_flush(r) && !tc_mb_touch_can_flush())
        return; /* the property holds vacuously without clflush */
    int off = property[r](TC_RULE_BIT(r));
    if (off)
        fprintf(stderr, "\n  rule %s: its property holds with the rule off\n", ri->name);
    CU_ASSERT(!off);
}

#define RULE_TEST(fn, rule)                                                                    \
    static void fn(void)                                                                       \
    {                                                                                          \
        check_rule(rule);                                                                      \
    }
RULE_TEST(test_llc_edge, TC_RULE_LLC_EDGE)
RULE_TEST(test_tlb, TC_RULE_TLB)
RULE_TEST(test_streams, TC_RULE_STREAMS)
RULE_TEST(test_tiled_streams, TC_RULE_TILED_STREAMS)
RULE_TEST(test_stream_trains, TC_RULE_STREAM_TRAINS)
RULE_TEST(test_tiny_trains, TC_RULE_TINY_TRAINS)
RULE_TEST(test_written_trains, TC_RULE_WRITTEN_TRAINS)
RULE_TEST(test_interleaved, TC_RULE_INTERLEAVED)
RULE_TEST(test_interleaved_trains, TC_RULE_INTERLEAVED_TRAINS)
RULE_TEST(test_first_streams, TC_RULE_FIRST_STREAMS)
RULE_TEST(test_warm_library, TC_RULE_WARM_LIBRARY)
RULE_TEST(test_stream_bytes, TC_RULE_STREAM_BYTES)
RULE_TEST(test_one_pass, TC_RULE_ONE_PASS)
RULE_TEST(test_write_back, TC_RULE_WRITE_BACK)
RULE_TEST(test_bound, TC_RULE_BOUND)
RULE_TEST(test_slabs, TC_RULE_SLABS)
RULE_TEST(test_slab_floor, TC_RULE_SLAB_FLOOR)
RULE_TEST(test_warm_slabs, TC_RULE_WARM_SLABS)
RULE_TEST(test_slab_rows, TC_RULE_SLAB_ROWS)
RULE_TEST(test_peak_dgemm, TC_RULE_PEAK_DGEMM)
RULE_TEST(test_together, TC_RULE_TOGETHER)

/* Every rule has a unique name, a summary, a paragraph and a property;
 * --model parses and prints the switches back; unknown rules are refused
 * with the valid ones named; a mask beyond the table is refused. */
static void test_table(void)
{
    for (int r = 0; r < TC_RULE_COUNT; r++) {
        const tc_mb_rule_info *ri = tc_mb_rule_get(r);
        CU_ASSERT_PTR_NOT_NULL_FATAL(ri);
        CU_ASSERT(ri->name && *ri->name && ri->summary && *ri->summary && ri->doc && *ri->doc);
        CU_ASSERT_EQUAL(tc_mb_rule_from_name(ri->name), r);
        CU_ASSERT_PTR_NOT_NULL(property[r]);
        char spec[96], back[512], why[1024];
        int model;
        unsigned off;
        snprintf(spec, sizeof spec, "full,-%s", ri->name);
        CU_ASSERT_EQUAL(tc_mb_model_parse(spec, &model, &off, why, sizeof why), 0);
        CU_ASSERT_EQUAL(model, TC_MODEL_FULL);
        CU_ASSERT_EQUAL(off, TC_RULE_BIT(r));
        tc_mb_model_format(model, off, back, sizeof back);
        CU_ASSERT_STRING_EQUAL(back, spec);
    }
    CU_ASSERT_PTR_NULL(tc_mb_rule_get(TC_RULE_COUNT));
    CU_ASSERT_EQUAL(tc_mb_rule_from_name("nope"), -1);
    char why[1024];
    int model;
    unsigned off = 0;
    CU_ASSERT_EQUAL(tc_mb_model_parse("access,-tlb,+tlb", &model, &off, why, sizeof why), 0);
    CU_ASSERT(model == TC_MODEL_ACCESS && off == 0);
    CU_ASSERT_EQUAL(tc_mb_model_parse("full,-nope", &model, &off, why, sizeof why), -1);
    CU_ASSERT(strstr(why, "'-nope'") && strstr(why, "slab-floor"));
    CU_ASSERT_EQUAL(tc_mb_model_parse("full,,-tlb", &model, &off, why, sizeof why), -1);
    CU_ASSERT_EQUAL(tc_mb_model_parse("", &model, &off, why, sizeof why), -1);
    CU_ASSERT_EQUAL(tc_mb_model_parse("cold", &model, &off, why, sizeof why), -1);
    tc_mb_sampler_options o = base_options(TC_RULE_BIT(TC_RULE_COUNT));
    tc_mb_sampler *s = NULL;
    tc_error e;
    CU_ASSERT_EQUAL(tc_mb_sampler_new(&o, &s, &e), TC_EUSAGE);
    CU_ASSERT_PTR_NULL(s);
}

int tc_suite_rules(void)
{
    CU_pSuite s = CU_add_suite("rules", suite_init, suite_clean);
    if (!s)
        return -1;
    return !CU_add_test(s, "the table and --model's switches", test_table) ||
           !CU_add_test(s, "llc-edge: timed in the LLC and in memory, blended between",
                        test_llc_edge) ||
           !CU_add_test(s, "tlb: translations evicted past the reach", test_tlb) ||
           !CU_add_test(s, "streams: a streamed operand placed whole", test_streams) ||
           !CU_add_test(s, "tiled-streams: the depth of a dgemm's run", test_tiled_streams) ||
           !CU_add_test(s, "stream-trains: a train streams its bytes", test_stream_trains) ||
           !CU_add_test(s, "tiny-trains: tiny calls in a row", test_tiny_trains) ||
           !CU_add_test(s, "written-trains: a train writes its lines", test_written_trains) ||
           !CU_add_test(s, "interleaved: columns' runs stay apart", test_interleaved) ||
           !CU_add_test(s, "interleaved-trains: a dgemm on interleaved columns",
                        test_interleaved_trains) ||
           !CU_add_test(s, "first-streams: a first call continuing a stream",
                        test_first_streams) ||
           !CU_add_test(s, "warm-library: warmed after an eviction", test_warm_library) ||
           !CU_add_test(s, "stream-bytes: added to the call", test_stream_bytes) ||
           !CU_add_test(s, "one-pass: a daxpy's bytes replace it", test_one_pass) ||
           !CU_add_test(s, "write-back: written bytes both ways", test_write_back) ||
           !CU_add_test(s, "bound: no time below the bound", test_bound) ||
           !CU_add_test(s, "slabs: a long call on a slab, within bounds", test_slabs) ||
           !CU_add_test(s, "slab-floor: a slab stays beyond the LLC", test_slab_floor) ||
           !CU_add_test(s, "warm-slabs: a compute-bound slab in cache", test_warm_slabs) ||
           !CU_add_test(s, "slab-rows: a dgemm's slab keeps its rows", test_slab_rows) ||
           !CU_add_test(s, "peak-dgemm: a dgemm of many slabs at the peak", test_peak_dgemm) ||
           !CU_add_test(s, "together: a split loop's threads timed at once", test_together) ||
           !CU_add_test(s, "count_rules: the rules a case's recipe rests on", test_rule_cases)
               ? -1
               : 0;
}
