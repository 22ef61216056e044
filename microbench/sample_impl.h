/*
 * sample_impl.h - the sampler's parts, shared by its files (not a public
 * header: microbench/ only). A case goes through them in order:
 *
 *   recipe.c  checks the case, describes the operands its call touches,
 *             and runs the rules' apply functions (the decisions);
 *   slab.c    cuts a case too large or too long to a part (fit);
 *   train.c   decides how many calls in a row are timed (trains);
 *   place.c   turns the setup list into steps, level by level (place);
 *   sample.c  serialises the recipe as the memo key, replays the steps,
 *             times the call, keeps the median;
 *   bound.c   the flop and byte bounds and what a loop adds (streams);
 *   blocks.c  the operands' memory, kept for the next case;
 *   beta.c    the executor's pass over C, and the cheapest call.
 *
 * Every correction is a rule of rules.h: a switch and an apply function,
 * defined in the file whose stage uses its decision; the constants are in
 * tuning.h.
 */
#ifndef TC_MICROBENCH_SAMPLE_IMPL_H
#define TC_MICROBENCH_SAMPLE_IMPL_H

#include <stddef.h>
#include <stdint.h>

#include "ast/kernel.h"
#include "ast/type.h"
#include "microbench/memo.h"
#include "microbench/model_input.h"
#include "microbench/pool.h"
#include "microbench/rules.h"
#include "microbench/sample.h"
#include "microbench/tlb.h"
#include "microbench/touch.h"
#include "microbench/tuning.h"
#include "runtime/memory.h"

#include <stdatomic.h>

/* An operand's block: its span, the kind of its pages, and at most how
 * many of its bytes lie in pages faulted in. */
typedef struct block {
    double *base;
    int64_t count, resident;
    tc_pages pages;
} block;

/* A team's timed calls kept together (tc_mbs_team_wait): how many timed
 * repetitions each member has started, and which are running (started,
 * not finished). */
typedef struct tc_mb_team_sync {
    int n;
    atomic_long together; /* timed calls started so, over every team (tc_mb_sampler_together) */
    atomic_long reps[TC_MAX_SPLIT];
    atomic_int running[TC_MAX_SPLIT];
} tc_mb_team_sync;

struct tc_mb_sampler {
    tc_mb_sampler_options o;
    int line_doubles;
    int flush;            /* 1: memory-level operands are flushed (clflush) */
    int nlevels;
    int64_t level[TC_MB_MAX_LEVELS]; /* capacities in bytes, the last the LLC */
    int64_t budget;
    const double *pool;   /* remote regions (shared, read only) */
    int64_t pool_lines;
    int64_t cursor;       /* the next remote walk starts below this line */
    uint64_t *times;      /* tick differences of the current case */
    int64_t bounded;      /* cases timed below their bound (bound used) */
    int64_t rule_cases[TC_RULE_COUNT]; /* cases each rule changed (count_rules) */
    tc_mb_memo *memo;
    int created_reps;     /* o.reps at creation: s->times is sized for it */
    int round, rounds;    /* tc_mb_sampler_round: the current one (> 0:
                             keys carry it) and how many were started */
    int64_t timed, reused;
    int64_t case_bytes;   /* the pages of the last case timed (tc_mb_sampler_case_bytes) */
    int64_t pool_bytes;
    double checksum;      /* written operands after the last case timed */
    tc_mb_pages tlb;      /* pages touched to evict translations (tlb.h) */
    int64_t avail;        /* memory available (tc_rt_memory_available) ... */
    double avail_at;      /* ... read at this tc_rt_now() time */
    /* the last case's operand blocks, kept for the next case (operand_block):
     * fresh memory is zeroed page by page by the kernel, and allocating
     * every case anew spent a sixth of a prediction doing that */
    block spare[TC_MB_MAX_OPERANDS][2]; /* [operand][on huge pages]; base NULL: none */
    double *warm;         /* dense operands of the library's warm-up call ... */
    int64_t warm_count;   /* ... a quarter of the first level, in doubles */
    double warm_alpha;    /* its sign alternates: its output stays bounded */
    double call_floor[TC_KERNEL_COUNT]; /* tc_mb_sampler_call_floor; 0: not yet */
    int64_t warmed;       /* warm-up calls made */
    volatile double zero; /* 0.0 the compiler cannot see through */
    volatile double sink; /* setup sums end here */
    /* a split loop's threads (team.c): samplers of the same options but
     * BLAS on one thread, made when a split algorithm is first predicted */
    tc_blas team_blas;
    int nteam;
    struct tc_mb_sampler *team[TC_MAX_SPLIT];
    double team_start_s[TC_MAX_SPLIT + 1]; /* starting and joining n threads
                                              (0: not measured yet) */
    tc_mb_team_sync *sync;     /* a team member's: its leader's team_sync
                                  (NULL: not in a team) */
    int member;                /* its place in the team */
    tc_mb_team_sync team_sync; /* a leader's, for its members */
};

/* team.c: s's first n team samplers, made as needed (NULL on failure,
 * err set); their rounds and repetitions follow s's; freed with s.
 * tc_mbs_team_start: what starting and joining n threads costs (the median
 * of a few, measured once per n). */
tc_mb_sampler *const *tc_mbs_team(tc_mb_sampler *s, int n, tc_error *err);
double tc_mbs_team_start(tc_mb_sampler *s, int n);
void tc_mbs_team_free(tc_mb_sampler *s);

/* A team's timed calls run together, as the split loop's threads do:
 * tc_mbs_team_begin before the n members start (counts cleared),
 * tc_mbs_team_enter and tc_mbs_team_leave by a member around its work,
 * tc_mbs_team_wait by a member before each timed repetition: it waits
 * until every other running member has started as many, at most
 * TC_MB_TEAM_WAIT_S (a member not yet started, or run in turn on the
 * caller's thread where a thread could not be started, is not waited
 * for). */
void tc_mbs_team_begin(tc_mb_sampler *s, int n);
void tc_mbs_team_enter(tc_mb_sampler *member);
void tc_mbs_team_wait(tc_mb_sampler *member);
void tc_mbs_team_leave(tc_mb_sampler *member);

/* One step of a case's setup as run (place()). */
enum { STEP_TOUCH, STEP_PREFETCH, STEP_FLUSH, STEP_FLUSH_PREFETCH, STEP_EVICT, STEP_TLB, STEP_KINDS };
typedef struct step {
    int kind;
    int operand; /* all but EVICT */
    int level;   /* the level placed in; EVICT: levels above it are evicted */
} step;
#define MAX_STEPS (TC_MB_MAX_SETUP + TC_MB_MAX_OPERANDS + TC_MB_MAX_LEVELS + 2)

/*
 * A case's recipe: everything the sampler decides about it, computed once
 * (tc_mbs_prepare with the rules' decisions, then tc_mbs_plan_train and
 * tc_mbs_recipe_place) with the rules in force. The timer replays it, the
 * memo key serialises it, the bound reads it. The decisions are written
 * only by the rules' apply functions (rules.h), each field by the rule its
 * comment names; zero is what the paper's setup does without the rule.
 */
typedef struct tc_mbs_recipe {
    unsigned off;                         /* rules switched off (rules.h) */
    int edge_out;                         /* operands on the LLC's edge go to
                                             memory (1) or the LLC (0) */
    int n;                                /* operands of the node */
    tc_operand call[TC_MB_MAX_OPERANDS];  /* as the kernel or copy sees them */
    int first[TC_MB_MAX_OPERANDS];        /* dim 0 is the tensor's first index */
    int64_t span[TC_MB_MAX_OPERANDS];     /* elements to allocate; -1 overflow */
    int64_t used[TC_MB_MAX_OPERANDS];     /* of which in pages touched (the
                                             memory it costs); -1 overflow */
    struct tc_mbs_decisions {             /* the rules' decisions (tc_mbs_prepare) */
        int slabs;                            /* slabs: a call beyond a slab is cut */
        int64_t slab_floor;                   /* slab-floor: the bytes a slab keeps at
                                                 least (beyond the LLC) */
        int warm_slab;                        /* warm-slabs: a slab of the call is
                                                 timed in cache, its bytes added */
        int slab_rows;                        /* slab-rows: a dgemm's slab cuts m last */
        int peak_dgemm;                       /* peak-dgemm: many slabs of the call are
                                                 its flops at the peak */
        const double *edge_curve;             /* llc-edge: the LLC's edge share by
                                                 distance (NULL: an LRU cache's) */
        int tlb;                              /* tlb: the setup evicts translations */
        int streamed[TC_MB_MAX_OPERANDS];     /* streams: placed in full as prefetched */
        int64_t tiled_part[TC_MB_MAX_OPERANDS]; /* tiled-streams: elements of a dgemm's
                                                   run the stream fetched ahead */
        int64_t interleave[TC_MB_MAX_OPERANDS]; /* interleaved: the most calls of a train
                                                   whose columns stay apart */
        int64_t train_calls;                  /* stream-, tiny-, written-trains: the calls
                                                 a steady case is timed as (0: one) */
        int train_rule;                       /* the rule that set train_calls */
        int64_t lead_calls;                   /* interleaved-trains: calls run untimed
                                                 before the train, the loop's last */
        int64_t first_lead;                   /* first-streams: the loop's calls before
                                                 a first iteration run untimed */
        int warm_library;                     /* warm-library: the library warmed */
        int stream_bytes;                     /* stream-bytes: a streamed operand's bytes added */
        int one_pass;                         /* one-pass: those bytes replace the call's time */
        int write_back;                       /* write-back: a written operand's bytes both ways */
        int bounded;                          /* bound: no time below the bound */
        int together;                         /* together: a team member's timed calls
                                                 wait for the others' (tc_mbs_team_wait) */
    } d;
    /* carried out */
    int train;                            /* calls timed in a row (tc_mbs_plan_train) */
    int lead;                             /* calls run untimed before them */
    int64_t train_step[TC_MB_MAX_OPERANDS]; /* elements each of them moves on */
    int64_t front[TC_MB_MAX_OPERANDS];    /* elements allocated before the timed
                                             call's operand, for the lead calls */
    int nsteps;                           /* the setup as run (place) */
    step steps[MAX_STEPS];
    int64_t elem_bytes;                   /* of the case's type (tc_mbs_elem_bytes) */
} recipe;

/* A case with its own copies of the node and its call or copy, so that
 * dimensions can be cut without touching the algorithm. */
typedef struct scaled {
    tc_mb_case cs;
    double cold_s; /* warm-slabs: the full call's bytes from memory at the bandwidth */
    double peak_s; /* peak-dgemm: the full call's flops at the peak (0: scaled) */
    tc_node node;
    tc_call call;
    tc_copy copy;
    tc_permutation perm;
} scaled;

/* ---- the case's type --------------------------------------------------
 * Geometry (extents, strides, spans, distances) is in elements of the
 * case's type; memory (blocks, touches, the pool) is in 8-byte words.
 * These convert: bytes of an element, elements per cache line, and a
 * shape of elements as the words its touches walk (tc_mbs_words_shape:
 * every element's first word, the runs of a unit-stride dimension whole;
 * float's halved strides round down, so that no word lies past the span,
 * and a touch may fall a line short of an odd-strided float's). Double is
 * the identity. */
static inline int64_t tc_mbs_elem_bytes(const tc_mb_case *cs)
{
    return tc_type_row_of(cs->type)->bytes;
}

static inline int64_t tc_mbs_line_elems(const tc_mb_sampler_options *o, const tc_mb_case *cs)
{
    int64_t l = o->line_bytes / tc_mbs_elem_bytes(cs);
    return l > 0 ? l : 1;
}

tc_mb_shape tc_mbs_words_shape(const tc_mb_case *cs, tc_mb_shape sh);

/* recipe.c */
tc_mb_shape tc_mbs_shape_of(const tc_operand *op);
int tc_mbs_same_shape(const tc_operand *a, const tc_operand *b);
int64_t tc_mbs_op_span(const tc_operand *op);
void tc_mbs_permute_footprint(const tc_permute *v, int temp_side, tc_operand *op);
int64_t tc_mbs_shape_page_doubles(tc_mb_shape sh, int64_t span, int64_t bytes);
int64_t tc_mbs_case_span(const tc_mb_case *cs, const tc_operand *call, int i);
int tc_mbs_op_ok(const tc_operand *op);
void tc_mbs_describe(const tc_mb_case *cs, char *buf, size_t n);
tc_status tc_mbs_prepare(const tc_mb_sampler *s, int edge_out, const tc_contraction *c,
                         const tc_mb_case *cs, recipe *p, tc_error *err);
int64_t tc_mbs_recipe_bytes(const recipe *p);

/* The rules' apply functions (rules.h), by the file that defines them. */
typedef void tc_mbs_apply(const tc_mb_sampler *s, const tc_mb_case *cs, recipe *p);
tc_mbs_apply tc_mbs_apply_slabs, tc_mbs_apply_slab_floor,                    /* slab.c */
    tc_mbs_apply_warm_slabs, tc_mbs_apply_slab_rows, tc_mbs_apply_peak_dgemm;
tc_mbs_apply tc_mbs_apply_llc_edge, tc_mbs_apply_tlb, tc_mbs_apply_streams,  /* place.c */
    tc_mbs_apply_tiled_streams;
tc_mbs_apply tc_mbs_apply_interleaved, tc_mbs_apply_stream_trains,          /* train.c */
    tc_mbs_apply_tiny_trains, tc_mbs_apply_written_trains, tc_mbs_apply_interleaved_trains,
    tc_mbs_apply_first_streams;
tc_mbs_apply tc_mbs_apply_warm_library;                                      /* sample.c */
tc_mbs_apply tc_mbs_apply_stream_bytes, tc_mbs_apply_one_pass,              /* bound.c */
    tc_mbs_apply_write_back, tc_mbs_apply_bound;
tc_mbs_apply tc_mbs_apply_together; /* team.c */

/* place.c */
double tc_mbs_case_edge_weight(const tc_mb_sampler *s, const tc_mb_case *cs, const recipe *p);
int64_t tc_mbs_evict_elements(const tc_mb_sampler *s, int k);
void tc_mbs_recipe_place(const tc_mb_sampler *s, const tc_mb_case *cs, recipe *p);
int tc_mbs_one_run(const tc_operand *op);
int tc_mbs_tiled(const tc_mb_case *cs);
tc_mb_shape tc_mbs_step_shape(const tc_mb_sampler *s, const tc_mb_case *cs, const recipe *p,
                              const step *st);

/* train.c */
void tc_mbs_plan_train(const tc_mb_sampler *s, const tc_mb_case *cs, recipe *p);
tc_mb_shape tc_mbs_train_shape(const recipe *p, int i);
int64_t tc_mbs_call_offset(const tc_mb_case *cs, const recipe *p, int i, int c);

/* bound.c */
double tc_mbs_node_flops(const tc_node *node);
double tc_mbs_bound(const tc_mb_sampler *s, const tc_mb_case *cs, const recipe *p, int steady,
                    double *stream);
double tc_mbs_case_bound(const tc_mb_sampler *s, const tc_mb_case *cs, int edge_out);

/* blocks.c */
tc_status tc_mbs_operand_block(tc_mb_sampler *s, int i, int64_t count, int64_t used,
                               tc_pages pages, block *b, tc_error *err);
void tc_mbs_operand_release(tc_mb_sampler *s, int i, block *b);

/* slab.c */
/* The dimension of a whole-tensor permutation's view that its slab
 * halves: the outermost on the tensor's side of those unit-stride on
 * neither side, else the outermost; -1 when every extent is 1. */
int tc_mbs_permute_cut_dim(const tc_permute *v);
/* The whole call's time from its slab's (sc) composed time m: m scaled
 * by the work left out, plus the bytes a warm slab left out (sc->cold_s,
 * rule warm-slabs). */
double tc_mbs_slab_time(const scaled *sc, double m);
tc_status tc_mbs_fit(const tc_mb_sampler *s, const tc_contraction *c, const tc_mb_case *cs,
                     int edge_out, int64_t room, int64_t avail, scaled *sc, recipe *p,
                     tc_error *err);

#endif
