/*
 * predictor.h - what the predicting commands (predict, explain, the main
 * job) set up from the options: the cache description (--cache-size), the
 * BLAS library (--blas, --threads), the timer, the model (--model), the
 * repetitions (--reps), the eviction (--flush) and the sampler.
 */
#ifndef TC_CLI_PREDICTOR_H
#define TC_CLI_PREDICTOR_H

#include "cli.h"
#include "planner/rank.h"
#include "planner/setup.h"

typedef tc_plan_setup tc_cli_predictor;

/* The planning options the command line gives (--blas, --threads, --model,
 * --reps, --flush, --cache-size, --candidates, --time-limit); on error
 * prints it and returns the exit status. */
int tc_cli_plan_options(const tc_cli *cli, tc_plan_options *o);

/* Validates the options and sets everything up; on error prints it and
 * returns the exit status (everything already set up is released). */
int tc_cli_predictor_open(const tc_cli *cli, tc_cli_predictor *p);
void tc_cli_predictor_close(tc_cli_predictor *p);

/* Ranks every algorithm of set, with progress on stderr when it is a
 * terminal (and not -q). On error prints it and returns the exit status. */
int tc_cli_rank(const tc_cli *cli, tc_cli_predictor *p, const tc_contraction *c,
                const tc_algorithm *const *algs, int n, tc_ranking **out);

/* The machine profile's origin note (setup.h's origin.note, a plan's
 * profile_note), once per run: a file refused and measured anew, or a
 * measurement that could not be saved and serves this run only.
 * "tcgen: warning: profile: NOTE" on stderr; nothing for "" or under -q. */
void tc_cli_profile_note(const tc_cli *cli, const char *note);

/* Progress of measuring the machine profile (the first run on a machine):
 * "\rtcgen: measuring this machine once (STEP, done/total)" on stderr. */
void tc_cli_profile_progress(const char *step, int done, int total, void *data);

/* Progress callback: "\rtcgen: <data> done/total" on stderr. */
void tc_cli_progress(int done, int total, void *data);

#endif
