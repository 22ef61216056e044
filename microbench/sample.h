/*
 * sample.h - the Sampler: times one case of an algorithm (analyze.h) by
 * replaying its setup list and then one kernel or copy call, repeatedly,
 * and keeping the median (docs/design.md §5, docs/prediction.md).
 *
 * Each case gets its operands allocated once at their real strides (only
 * the span a slice touches, not the whole tensor), 64-byte aligned, and
 * initialised with small mixed-sign values on the elements the call touches
 * (which also faults in its pages). One untimed call precedes the
 * repetitions (code paging, library start-up). Each repetition runs the
 * setup, then times the call alone.
 *
 * The setup puts each operand in the cache level its access distance
 * reaches (the first level larger than the distance, else memory; the
 * operands a truncated list leaves out: memory), deepest first: memory by flushing the operand's lines (clflush; with
 * TC_FLUSH_REMOTE, by touching it and then 5/4 of the last level of remote
 * data), level k > 1 by touching the operand and then 5/4 of level k-1's
 * size of remote data, which pushes it out of the levels above; L1 by
 * touching it last. A case so costs on the order of the upper levels'
 * sizes, not of the last level. Remote data comes from a pool of twice
 * 5/4 of the largest level evicted this way, shared by every sampler of the
 * process (pool.h), walked downwards from a cursor that wraps, so each
 * region is the pool memory used longest ago.
 *
 * Memory: the pool and the operands of the cases being timed stay within a
 * process-wide budget (512 MiB unless given). A case whose operands do not
 * fit is timed on a part: the kernel or copy dimension whose halving frees
 * most memory is halved until they fit, and the time is scaled up by the
 * dimensions' ratio (tc_mb_case.scale records it). A call too long to
 * repeat cheaply (its flop and compulsory-byte bound above
 * TC_MB_SLAB_SECONDS: one dgemm doing the whole contraction), or whose
 * operands touch more than TC_MB_SLAB_BYTES of pages (a vector of C with
 * an element per line), is cut the same way down to a slab, in the same
 * cache context (the placement follows the case's distances, not its
 * size).
 *
 * Types: a case is timed in its type (tc_mb_case.type): the type's
 * kernel and copies, operands of the type's bytes (sample_impl.h says
 * how elements become bytes and words).
 *
 * Identical cases - same call (kernel, transposition, dimensions, leading
 * dimensions and increments) and same placement of the operands - are
 * timed once per sampler; later requests get the remembered median.
 */
#ifndef TC_MICROBENCH_SAMPLE_H
#define TC_MICROBENCH_SAMPLE_H

#include <stddef.h>
#include <stdint.h>

#include "ast/contraction.h"
#include "microbench/analyze.h"
#include "microbench/hardware.h"
#include "microbench/llc_edge.h"
#include "microbench/rules.h"
#include "microbench/tuning.h"
#include "runtime/blas.h"
#include "runtime/timer.h"
#include "tcgen.h"


/* How a truncated setup list evicts the operands the algorithm would have
 * pushed out of every cache level. */
typedef enum tc_mb_flush {
    TC_FLUSH_CLFLUSH = 0, /* flush the operands' lines (x86-64; else REMOTE) */
    TC_FLUSH_REMOTE       /* touch the leading remote region, as in §6.2.3 */
} tc_mb_flush;

typedef struct tc_mb_sampler_options {
    const tc_blas *blas;     /* loaded BLAS library (not owned) */
    const tc_timer *timer;   /* calibrated timer (not owned) */
    int64_t llc_bytes;       /* last-level cache: sizes the remote pool */
    int line_bytes;
    int reps;                /* repetitions per case (median kept), >= 1 */
    tc_mb_flush flush;
    int nlevels;             /* the cache levels (0: one level of llc_bytes) */
    int64_t level_bytes[TC_MB_MAX_LEVELS]; /* capacity of each, L1 first; the
                                last is taken to be llc_bytes */
    int64_t memory_budget;   /* bytes for pool + operands (0: 512 MiB),
                                shared by every sampler of the process */
    double peak_flops;       /* one thread's peak flop/s (0: no flop bound) */
    double memory_bandwidth; /* one thread's bytes/s from memory (0: none) */
    double update_bandwidth; /* ... read and written back in place, both ways
                                (0: twice the bytes at memory_bandwidth) */
    int threads;             /* BLAS threads the bounds scale by (0: 1) */
    int64_t tlb_pages;       /* pages the TLB keeps (tlb.h): an operand
                                whose distance spans more is placed without
                                its translations (0: the TLB is not
                                emulated) */
    int stream_lines;        /* lines a unit-stride stream is fetched ahead
                                (the profile's); > 0: an operand the loop
                                streams through is placed in full as
                                prefetched, its bytes charged at the
                                bandwidth (0: one line, the paper's) */
    double llc_edge[TC_EDGE_POINTS]; /* the profile's LLC edge (llc_edge.h):
                                a case with operands on it is timed with
                                them in the LLC and in memory, weighed by
                                it (all 0: the LLC keeps all or nothing) */
    unsigned rules_off;      /* the sampler's rules switched off, a bit per
                                rule (rules.h; 0: all on, the default) */
    int count_rules;         /* 1: count the cases each rule in force changes
                                (tc_mb_sampler_rule_cases); a recipe per
                                rule per case timed */
} tc_mb_sampler_options;

typedef struct tc_mb_sampler tc_mb_sampler;

/* Takes the remote pool (the process's shared one, or a new one faulted
 * in). TC_EUSAGE when the options' machine facts are ones the model cannot
 * use (tc_mb_model_input_check, model_input.h); TC_ERESOURCE when the pool
 * does not fit in the budget or in available memory. Free with
 * tc_mb_sampler_free(). */
tc_status tc_mb_sampler_new(const tc_mb_sampler_options *o, tc_mb_sampler **out,
                            tc_error *err);
void tc_mb_sampler_free(tc_mb_sampler *s);

/*
 * Seconds of the cheapest call of `kernel` the sampler's library makes
 * (every operand one element, in L1, the fastest of a few batches of
 * calls): a floor under every call of that kernel. Measured once per
 * sampler and kernel; 0 when s is NULL.
 */
double tc_mb_sampler_call_floor(tc_mb_sampler *s, tc_kernel kernel);

/*
 * Times case cs of an algorithm of c: sets cs->seconds to the median over
 * the repetitions (or to the remembered median of an identical case), and
 * cs->scale to the factor it was scaled by (1: timed whole). TC_ERESOURCE,
 * before allocating anything, when even a part of it does not fit in the
 * budget or in available memory; TC_EINPUT when a dimension does not fit
 * in int.
 */
tc_status tc_mb_sample(tc_mb_sampler *s, const tc_contraction *c, tc_mb_case *cs,
                       tc_error *err);

/*
 * How many calls in a row case cs of an algorithm of c is timed as (a
 * train of calls on the data the loop gives each next; 1: one call).
 */
int tc_mb_case_train(const tc_mb_sampler *s, const tc_contraction *c, const tc_mb_case *cs);
/* How many calls of the loop run untimed before that train (0: none). */
int tc_mb_case_lead(const tc_mb_sampler *s, const tc_contraction *c, const tc_mb_case *cs);

/*
 * The recipe of case cs of an algorithm of c as the memo key serialises
 * it (sample_impl.h): the call, its operands, the setup steps (T touch, P
 * prefetch, F flush, Q flush the prefetched part, E evict the levels above
 * N, L evict the TLB; each with its operand or level), the scale of a
 * slab, the train, the rules switched off; with operands on the LLC's
 * edge placed in memory (edge_out 1) or the LLC (0). Into buf (n bytes);
 * 0, or -1 when cs is malformed or does not fit. For tests and tools.
 */
int tc_mb_case_recipe(tc_mb_sampler *s, const tc_contraction *c, const tc_mb_case *cs,
                      int edge_out, char *buf, size_t n);

/*
 * The time of the pass over C's `elements` that the executor makes before
 * an algorithm whose kernel cannot apply beta (C = 0, or C *= beta), with C
 * in the level its own size puts it in (memory: flushed). Remembered like
 * a case. From memory a 2 MiB part is timed and the time scaled (a
 * streaming pass runs at one rate), as is a part within the budget.
 */
tc_status tc_mb_sample_beta_pass(tc_mb_sampler *s, int64_t elements, double beta,
                                 double *seconds, tc_error *err);

/*
 * The time of adding `partials` partial C into C after a split contracted
 * loop (tc_algorithm.partial), as the executor does (tc_rt_add_partial on
 * the sampler's BLAS thread count), both in the level their size puts
 * them in. Within the budget C's outermost dimension is halved and the
 * time scaled. Remembered like a case.
 */
tc_status tc_mb_sample_partial_sum(tc_mb_sampler *s, const tc_contraction *c, int partials,
                                   double *seconds, tc_error *err);

/*
 * fresh: starts a new round of timing, in which every case is timed anew,
 * once (the memo keys carry the round); 0: back to the cases remembered
 * outside rounds. The ranking re-times its closest candidates in rounds,
 * so that a slow phase of a shared host falls on all of them alike
 * (rank.h).
 */
void tc_mb_sampler_round(tc_mb_sampler *s, int fresh);

/* Sets the timed repetitions per case for the cases timed from now on,
 * from 1 to the number the sampler was created with; returns the number
 * before. */
int tc_mb_sampler_set_reps(tc_mb_sampler *s, int reps);

/* Distinct cases timed so far, and how many requests the memo answered. */
int64_t tc_mb_sampler_timed(const tc_mb_sampler *s);
int64_t tc_mb_sampler_reused(const tc_mb_sampler *s);
/* Warm-up calls of the library on the sampler's own operands (after a
 * setup's last eviction, for calls whose dense operands fit a quarter of
 * the first level). */
int64_t tc_mb_sampler_warmed(const tc_mb_sampler *s);

/* Sum of the elements of the written operands of the last case timed,
 * read after its last repetition (0 before any); for tests: alpha's sign
 * flips every call, so after an even number of calls (the warm-up plus an
 * odd number of repetitions) the outputs are back at their initial values. */
double tc_mb_sampler_checksum(const tc_mb_sampler *s);

/* The least time the case's call can take in its loop on this machine:
 * its flops at the peak rate and its compulsory bytes (operands the setup
 * leaves in memory or places as streamed, a written one's twice: its
 * lines go back) at the memory bandwidth, over the threads (0 when the
 * options give neither figure). A median below the bytes the call itself
 * fetched is a measurement error: the case is timed again; and its time
 * is never less than this. */
double tc_mb_case_bound(const tc_mb_sampler *s, const tc_mb_case *cs);

/* Cases whose time stayed below their bound after timing again (the bound
 * was used instead). */
int64_t tc_mb_sampler_bounded(const tc_mb_sampler *s);

/* Timed calls of s's team (split algorithms' threads) that started with
 * their teammates' (rule together). */
int64_t tc_mb_sampler_together(const tc_mb_sampler *s);

/* With the option count_rules: the cases timed so far that switching rule
 * `rule` (rules.h) off alone would have changed: the placement's blend,
 * the recipe (steps, train, slab), or the time composed from the same
 * timing. 0 for a rule switched off. */
int64_t tc_mb_sampler_rule_cases(const tc_mb_sampler *s, int rule);

/* Bytes of the pages the operands of the last case timed lie in, its
 * calls in a row included (0 before any): what its mapping costs. */
int64_t tc_mb_sampler_case_bytes(const tc_mb_sampler *s);

/* Bytes of the remote pool the sampler reads. */
int64_t tc_mb_sampler_pool_bytes(const tc_mb_sampler *s);

/* The level (0 = L1) an access distance of `distance` elements puts an
 * operand in; the number of levels for memory. */
int tc_mb_sampler_level(const tc_mb_sampler *s, int64_t distance);

/* Bytes of operand memory a case needs: the 4 KiB pages its operands touch
 * (a strided slice maps only the pages its elements lie in). */
int64_t tc_mb_case_bytes(const tc_mb_case *cs);

/*
 * Runs the setup of cs once on the given operand memory (base[i] points at
 * the first element of operand i) and the sampler's pool, as a timed
 * repetition does, and returns the number of elements it touched: operand
 * elements touched or flushed, plus remote elements read to evict upper
 * levels (counted per element of the regions, as tc_mb_touch_remote
 * does); for tests. The remote entries of the analyzer's list do not
 * count: the levels stand for them.
 */
int64_t tc_mb_run_setup(tc_mb_sampler *s, const tc_mb_case *cs, double *const base[]);

/*
 * tc_mb_run_setup for a case of contraction c, which decides exactly
 * whether an operand's dimension 0 is its tensor's first index (a prefetch
 * touch then covers one line along it: min(extent[0], line_bytes / 8)
 * elements per position along dimension 1; otherwise every element).
 * tc_mb_run_setup (and this with c NULL) takes a stride-1 dimension 0 of a
 * tensor, not of a temporary, to be the first index; the two differ only
 * when the indices before it have size 1. Both return -1 when cs is
 * malformed or an operand's base is NULL.
 */
int64_t tc_mb_run_setup_in(tc_mb_sampler *s, const tc_contraction *c, const tc_mb_case *cs,
                           double *const base[]);

#endif
