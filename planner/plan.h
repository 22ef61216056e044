/*
 * plan.h - the planner behind include/tcgen.h's plan API, with the knobs the
 * tcgen command sets (the public API uses the defaults and the environment).
 */
#ifndef TC_PLANNER_PLAN_H
#define TC_PLANNER_PLAN_H

#include <stdio.h>

#include "ast/algorithm.h"
#include "generator/generator.h"
#include "planner/setup.h"
#include "tcgen.h"

#define TC_PLAN_RUNNERS 5 /* runner-ups named in the emitted header */

struct tc_plan {
    unsigned flags;
    tc_contraction user;        /* as given (row-major under TC_ROW_MAJOR) */
    tc_contraction c;           /* storage form: column-major */
    tc_algorithm_set *set;      /* the candidates ranked: all, or a stated
                                   subset; from wisdom, the remembered
                                   algorithm alone (tc_gen_find_bounded) */
    tc_gen_subset subset;       /* how many there are, which were enumerated
                                   (or, from wisdom, would be) */
    const tc_algorithm *alg;    /* the choice, in set */
    double seconds;             /* its predicted (or measured) time */
    const char *origin;         /* "estimate", "measure", "wisdom" */
    tc_blas *blas;              /* what tc_execute calls */
    int nrunners;
    struct {
        char name[256];
        double seconds;
    } runner[TC_PLAN_RUNNERS];
    int ranked;                 /* algorithms ranked (0 from wisdom) ... */
    int pruned;                 /* ... of which not predicted (rank.h) */
    int measured;               /* of which run (TC_MEASURE) */
    int over_limit;             /* all of them over the time limit: the
                                   prediction decided (origin "estimate") */
    double time_limit_s;        /* the limit they ran under */
    double planning_s;          /* wall time of tc_plan_create */
    char setup[512];            /* how it was ranked (tc_plan_setup_describe) */
    char decided[384];          /* tc_plan_decided_by */
    char machine[512];          /* tc_plan_machine_signature */
    char profile_note[TC_ERROR_MESSAGE_MAX]; /* the machine profile's origin
                                   note when ranking read or measured it: a
                                   file refused, or one that could not be
                                   written (setup.h); "" otherwise */
    int64_t workspace;          /* the temporaries' budget, -1: none */
    const char *workspace_from; /* where it came from (tc_plan_workspace_limit) */
    char kernels_note[TC_ERROR_MESSAGE_MAX]; /* when ranking found the BLAS
                                   running kernels below this CPU's ability:
                                   what and what to do (profile.h); "" when not */
};

/* What the plan's time is: "predicted", "measured" or "remembered"
 * (NULL for a NULL plan). */
const char *tc_plan_time_kind(const tc_plan *p);

/* How the choice was made, for a message: "ranked by prediction", "best
 * candidates run", "from wisdom", or that every candidate run was over the
 * time limit so the prediction decided; when only a subset of the
 * candidates was ranked, which and how many ("ranked 86436 of 489726
 * candidates by prediction (the dgemm- and dger-based families)"). It
 * names no option. NULL for a NULL plan. */
const char *tc_plan_decided_by(const tc_plan *p);

/* tc_plan_create for a parsed problem (*user, with sizes) and options.
 * With TC_MEASURE, wisdom decided by "estimate" is not used: the problem
 * is measured and the measured decision replaces it. */
tc_plan *tc_plan_create_with(const tc_contraction *user, unsigned flags,
                             const tc_plan_options *o, tc_error *err);

/* tc_plan_emit_c with every emit option (function, command line, generic);
 * the layout and the ranking notes come from the plan. */
tc_status tc_plan_emit(const tc_plan *p, FILE *out, const tc_emit_options *opt,
                       tc_error *err);

#endif
