/*
 * setup.h - what ranking by prediction needs, set up once per planning:
 * the cache description, the BLAS library, the timer, the model and the
 * sampler. Shared by the plan API and the tcgen commands.
 */
#ifndef TC_PLANNER_SETUP_H
#define TC_PLANNER_SETUP_H

#include "microbench/hardware.h"
#include "microbench/predict.h"
#include "microbench/profile.h"
#include "microbench/sample.h"

/* The knobs; zero-initialise for the defaults. */
typedef struct tc_plan_options {
    const char *blas;        /* NULL: $TCGEN_BLAS, else "openblas"; "auto"
                                (tc_plan_blas_open) */
    int threads;             /* BLAS threads of tcgen's calls; 0:
                                $TCGEN_THREADS if set, else the CPUs the
                                process may use (runtime/blas.h) */
    tc_mb_model model;       /* 0 is TC_MODEL_WARM: callers set it; see
                                tc_plan_options_default() */
    unsigned rules_off;      /* the sampler's rules switched off (rules.h;
                                0: all on) */
    int count_rules;         /* 1: the sampler counts the cases each rule
                                changes (tc_mb_sampler_rule_cases) */
    int reps;                /* timed repetitions per case (0: 10) */
    tc_mb_flush flush;       /* eviction (0: clflush) */
    int64_t llc_bytes;       /* last-level cache override (0: detected) */
    int candidates;          /* TC_MEASURE: best predicted algorithms run
                                (0: 8; -1: all) */
    int measure_reps;        /* TC_MEASURE: timed runs each (0: 3) */
    double time_limit_s;     /* TC_MEASURE: limit per algorithm (0: 10) */
    void (*progress)(int done, int total, void *data); /* may be NULL */
    void *progress_data;
    unsigned families;       /* candidate families ranked (bits 1u << tc_family;
                                0: all) */
    int refresh_profile;     /* 1: measure the machine profile anew */
    tc_mb_profile_progress profile_progress; /* while measuring it; may be NULL */
    void *profile_progress_data;
    int workspace_set;       /* 1: workspace is the budget; 0: from the
                                environment (tc_plan_workspace_limit) */
    int64_t workspace;       /* bytes the chosen algorithm's temporaries may
                                take (0: none at all) */
} tc_plan_options;

/* The defaults: model full, everything else 0. */
tc_plan_options tc_plan_options_default(void);

typedef struct tc_plan_setup {
    tc_mb_profile profile;        /* the machine profile (profile.h) */
    tc_mb_profile_origin origin;  /* where it came from */
    int llc_overridden;           /* llc_bytes option given */
    tc_hardware hw;               /* profile.used, LLC possibly overridden */
    tc_blas *blas;
    tc_timer timer;
    tc_mb_params params;
    tc_mb_sampler_options options;
    tc_mb_sampler *sampler;
} tc_plan_setup;

/*
 * Loads the BLAS library, calibrates the timer, gets the machine profile
 * (read from its file, or measured and stored: tc_mb_profile_get) and
 * makes a sampler over the hierarchy it uses. On failure everything
 * already set up is released. Errors: TC_EUSAGE (bad option values, a bad
 * $TCGEN_THREADS), TC_ERESOURCE (BLAS library not found, out of memory),
 * as their modules report them.
 */
tc_status tc_plan_setup_open(const tc_plan_options *o, tc_plan_setup *s, tc_error *err);
void tc_plan_setup_close(tc_plan_setup *s);

/*
 * Loads BLAS library `which` as tc_rt_blas_load does (NULL: $TCGEN_BLAS,
 * else openblas), and "auto": the library and kernel set whose dgemm runs
 * fastest here by their profiles (OpenBLAS's own choice unless another of
 * its kernel sets, or BLIS, is TC_MB_KERNELS_BETTER times faster).
 */
tc_status tc_plan_blas_open(const char *which, int threads, tc_blas **out, tc_error *err);

/* The workspace budget: the options' when set (*from "the plan's
 * workspace"), else $TCGEN_WORKSPACE, else the memory available, -1
 * when unknown (tc_rt_workspace_from_env). An algorithm whose temporaries
 * exceed it is not a candidate. TC_EUSAGE for a bad $TCGEN_WORKSPACE. */
tc_status tc_plan_workspace_limit(const tc_plan_options *o, int64_t *bytes, const char **from,
                                  tc_error *err);

/* $TCGEN_WISDOM_TOLERANCE: the fraction by which a remembered problem's
 * sizes may differ for its decision to be reused (0 when unset: exact
 * sizes only); TC_EUSAGE naming it unless a number from 0 to 1. */
tc_status tc_plan_wisdom_tolerance(double *tolerance, tc_error *err);

/* Loads the BLAS library the options name, with their thread count, else
 * $TCGEN_THREADS: digits only, 1 to the online CPUs (TC_EUSAGE naming it
 * otherwise). */
tc_status tc_plan_blas_load(const tc_plan_options *o, tc_blas **out, tc_error *err);

/* "model full, 10 reps, openblas 0.3.21 (1 thread), LLC 14336 KiB (measured,
 * profile), ..."; the LLC's origin is "measured", the detection source
 * ("hwloc", "sysfs", "default") or "--cache-size". */
void tc_plan_setup_describe(const tc_plan_setup *s, char *buf, size_t n);

/* The machine as wisdom identifies it: CPU model, cache sizes, line size,
 * CPU count, e.g. "AMD EPYC 9R14|L1 48K|L2 1024K|L3 32768K|line 64|cpus 2". */
void tc_plan_machine_signature(const tc_hardware *hw, char *buf, size_t n);

#endif
