/*
 * analyze.h - from an algorithm's AST to its micro-benchmark cases
 * (docs/design.md §5).
 *
 * For every timed node (the BLAS kernel, and each copy into or out of a
 * temporary) the analyzer splits its executions into cases:
 *   STEADY   loops mid-traversal: operands at their access distance, plus
 *            prefetch touches for operands a neighbouring iteration brings in
 *   FAILURE  every (line / 8 B)-th iteration of the innermost loop, where
 *            operands that share cache lines across it are not prefetched
 *   FIRST    the first iteration of a loop (the innermost one, and outer ones
 *            whose first iterations are more than 1 % of the executions)
 * Each case has a setup list - operand touches interleaved with remote
 * regions, truncated at 5/4 of the last-level cache - and an occurrence
 * count; the counts of a node's cases sum to its number of executions.
 *
 * Distances and sizes are in elements (doubles). The access distance of an
 * operand is the volume of the distinct data touched since its previous
 * access, found by walking the AST up from the node (the three cases of
 * §6.2.3; the root counts as a loop over repeated executions of the whole
 * contraction, which the operand does not depend on).
 */
#ifndef TC_MICROBENCH_ANALYZE_H
#define TC_MICROBENCH_ANALYZE_H

#include <stdint.h>

#include "ast/algorithm.h"
#include "tcgen.h"

/* The refinements of §6.2, each including the ones before it. */
typedef enum tc_mb_model {
    TC_MODEL_WARM = 0, /* repeated execution on the same operands (§6.2.2) */
    TC_MODEL_ACCESS,   /* + access distances (§6.2.3) */
    TC_MODEL_PREFETCH, /* + prefetch distances (§6.2.4) */
    TC_MODEL_FAILURES, /* + prefetch failures (§6.2.5) */
    TC_MODEL_FULL      /* + first loop iterations (§6.2.6) */
} tc_mb_model;

/* "warm", "access", "prefetch", "failures", "full". */
const char *tc_mb_model_name(tc_mb_model m);
/* The model named `name`, or -1. */
int tc_mb_model_from_name(const char *name);

typedef struct tc_mb_params {
    tc_mb_model model;
    int64_t llc_bytes;   /* last-level cache; truncation at 5/4 of it */
    int line_bytes;      /* cache line; failure period = line_bytes / 8 */
} tc_mb_params;

/* How a neighbouring iteration brings an operand into cache (§6.2.4). */
typedef enum tc_mb_prefetch {
    TC_PREFETCH_NONE = 0,
    TC_PREFETCH_LINE,   /* the loop indexes the first dimension: shared lines */
    TC_PREFETCH_STREAM  /* the loop indexes the second dimension */
} tc_mb_prefetch;

#define TC_MB_MAX_OPERANDS 3

/* One operand of a timed node, with its distances for one case. */
typedef struct tc_mb_operand {
    tc_operand op;              /* shape and strides (base: tensor or temp) */
    int written;                /* the node writes it */
    int64_t elements;           /* distinct elements it touches */
    int64_t span;               /* elements from its first to its last one */
    int64_t access_distance;
    tc_mb_prefetch prefetch;    /* NONE when this case emulates no prefetch */
    int64_t prefetch_distance;
    int64_t prefetch_elements;  /* one line along the tensor's first dimension */
    int64_t loop_step;          /* elements the loop directly around the node
                                   moves it by per iteration; 0: that loop
                                   does not index it (or there is none) */
    int64_t before;             /* where the loop's previous call had it,
                                   in elements from here (case.previous) */
} tc_mb_operand;

/* Sets o->elements and o->span from o->op's extents and strides (the one
 * place they are derived). */
void tc_mb_operand_size(tc_mb_operand *o);

typedef enum { TC_SETUP_OPERAND, TC_SETUP_PREFETCH, TC_SETUP_REMOTE } tc_mb_setup_kind;

/* One setup access: an operand (whole, or its prefetched part) or `elements`
 * doubles of fresh remote memory. */
typedef struct tc_mb_setup {
    tc_mb_setup_kind kind;
    int operand;                /* OPERAND/PREFETCH: index into operand[] */
    int64_t elements;
    int64_t distance;           /* OPERAND/PREFETCH: the distance it emulates */
} tc_mb_setup;

/* Entries: an access and a prefetch per operand, a remote region after each,
 * and the leading remote region of a truncated list. */
#define TC_MB_MAX_SETUP (4 * TC_MB_MAX_OPERANDS + 1)

typedef enum { TC_CASE_STEADY, TC_CASE_FAILURE, TC_CASE_FIRST } tc_mb_case_kind;

typedef struct tc_mb_case {
    tc_mb_case_kind kind;
    int level;                  /* FIRST: the loop (0 = outermost) */
    const tc_node *node;        /* the kernel or copy node timed */
    int64_t loop_extent;        /* iterations of the loop directly around
                                   it (0: none) */
    int noperands;
    tc_mb_operand operand[TC_MB_MAX_OPERANDS]; /* kernel: arg[]; copy: slice, temp */
    int truncated;              /* entries beyond 5/4 of the cache were cut */
    int nsetup;                 /* 0: no setup (warm repetitions) */
    tc_mb_setup setup[TC_MB_MAX_SETUP];
    int previous;               /* FIRST below the outermost loop: the
                                   operands' `before` say where the call
                                   before it (the enclosing loop's last
                                   iteration, the inner loops' last) was */
    int64_t count;              /* executions this case stands for */
    double seconds;             /* median time of one execution (sampler) */
    double scale;               /* > 1: timed on 1/scale of it, time scaled up
                                   (the sampler's memory budget); 0 or 1: all of it */
    double beta;                /* the kernel's beta on the calls it stands for */
    tc_type type;               /* of the elements (the algorithm's): the
                                   sampler's bytes and calls are the type's */
} tc_mb_case;

typedef struct tc_mb_analysis {
    const tc_algorithm *alg;
    int64_t calls;              /* kernel executions (one thread's where
                                   the algorithm is split) */
    int ncases;
    tc_mb_case *cases;          /* kernel cases first, then each copy's */
    double pass_beta;           /* a pass over C with this beta belongs
                                   to the prediction (1: none): the
                                   executor's before the algorithm when the
                                   kernel cannot apply beta, or what the
                                   kernel's own beta costs the calls timed
                                   with 1 */
    double beta_pass_seconds;   /* that pass (predict.c) */
    double partial_sum_seconds; /* a split contracted loop's partial C added
                                   into C after it (predict.c) */
} tc_mb_analysis;

/*
 * Analyses alg (which must have sizes) under p. *out is the caller's, freed
 * with tc_mb_analysis_free(). TC_EINPUT when the contraction has no sizes
 * or its number of kernel calls overflows 64 bits; TC_ERESOURCE when out of
 * memory.
 */
tc_status tc_mb_analyze(const tc_algorithm *alg, const tc_contraction *c,
                        const tc_mb_params *p, tc_mb_analysis **out, tc_error *err);

/* NULL is a no-op. */
void tc_mb_analysis_free(tc_mb_analysis *a);

/* Executions of `node` in one run of alg (product of its loops' extents),
 * by one thread where alg is split (its share of the split loop). */
int64_t tc_mb_executions(const tc_algorithm *alg, const tc_node *node);

/* Writes a setup list as in the dissertation, e.g.
 * "[816632], A[a,:], [163200], B[:,:,c]" ("-" when empty); a prefetch touch
 * is marked "~A[a,:]". snprintf semantics. */
size_t tc_mb_format_setup(const tc_mb_case *cs, const tc_contraction *c, char *buf,
                          size_t n);

#endif
