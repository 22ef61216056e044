/*
 * cmd_main.c - `tcgen CONTRACTION SIZES [-o FILE]`, the main job: plan the
 * contraction (rank every algorithm by predicted time, or with --measure
 * run the best candidates) and write the chosen one as C. The planning is
 * the library's (tc_plan_create), so the command and a code that links
 * libtcgen choose alike.
 */
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli.h"
#include "commands.h"
#include "generator/generator.h"
#include "planner/plan.h"
#include "planner/problem.h"
#include "planner/wisdom.h"
#include "predictor.h"

typedef struct main_job {
    const tc_plan *plan;
    tc_emit_options opt;
} main_job;

static tc_status emit_plan(const void *data, FILE *out, tc_error *err)
{
    const main_job *j = data;
    return tc_plan_emit(j->plan, out, &j->opt, err);
}

/* --wisdom FILE: a missing file is an empty wisdom. */
static int import_wisdom(const tc_cli *cli)
{
    struct stat st;
    if (!cli->wisdom || stat(cli->wisdom, &st) != 0)
        return 0;
    tc_error err;
    if (tc_wisdom_import_file(cli->wisdom, &err) != TC_OK)
        return tc_cli_fail(&err, err.line > 0 ? cli->wisdom : NULL); /* else named already */
    return 0;
}

/* --wisdom FILE: a failure to save is a warning (the exit status stays 0). */
static void save_wisdom(const tc_cli *cli)
{
    tc_error err, w;
    if (tc_wisdom_export_file(cli->wisdom, &err) == TC_OK)
        return;
    w = err;
    snprintf(w.message, sizeof w.message, "wisdom not saved: %.480s", err.message);
    tc_cli_warn(cli, &w, err.line > 0 ? cli->wisdom : NULL);
}

/* -v when standard error is not a terminal: a line at every tenth. */
static void progress_lines(int done, int total, void *data)
{
    if (total > 0 && (done == total || done * 10 / total != (done - 1) * 10 / total))
        fprintf(stderr, "tcgen: %s %d/%d\n", (const char *)data, done, total);
}

int tc_cmd_main(const tc_cli *cli)
{
    tc_contraction c;
    tc_plan_options o;
    int row_major = 0;
    int rc = tc_cli_check_emit_names(cli);
    if (!rc)
        rc = tc_cli_load(cli, 1, &c);
    if (!rc)
        rc = tc_cli_layout(cli, &row_major);
    if (!rc)
        rc = tc_cli_plan_options(cli, &o);
    if (!rc)
        rc = import_wisdom(cli);
    if (rc)
        return rc;
    int progress = !cli->quiet && isatty(STDERR_FILENO);
    if (progress || cli->verbose) {
        o.progress = progress ? tc_cli_progress : progress_lines;
        o.progress_data = cli->measure ? "planning" : "predicting";
    }
    unsigned flags =
        (cli->measure ? TC_MEASURE : TC_ESTIMATE) | (row_major ? TC_ROW_MAJOR : 0) | TC_EMITTABLE |
        tc_plan_type_flags(c.type);
    tc_error err;
    tc_plan *plan = tc_plan_create_with(&c, flags, &o, &err);
    if (!plan) {
        if (progress)
            fputs("\n", stderr);
        return tc_cli_fail(&err, NULL);
    }
    tc_cli_profile_note(cli, plan->profile_note);
    if (cli->wisdom) /* the decision is lost to later runs, the C is still written */
        save_wisdom(cli);
    if (!cli->quiet)
        fprintf(stderr, "tcgen: %s, %s %.3g s; %s in %.2f s\n", tc_plan_algorithm(plan),
                tc_plan_time_kind(plan), tc_plan_predicted_seconds(plan),
                tc_plan_decided_by(plan),
                plan->planning_s);
    if (cli->verbose && plan->ranked) /* what the ranking rests on */
        fprintf(stderr, "tcgen: ranked with %s\n", plan->setup);

    main_job job = {plan, {0}};
    job.opt.function = cli->function;
    job.opt.generic = cli->generic;
    job.opt.keep_temporaries = cli->keep_temporaries;
    job.opt.strides = tc_cli_strides_param(cli);
    char *cmd = tc_cli_command_line(cli);
    job.opt.command_line = cmd;
    rc = cmd ? tc_cli_write_c(cli, emit_plan, &job) : tc_cli_failf(TC_ERESOURCE, "out of memory");
    if (!rc && cli->fortran) { /* --fortran FILE: written only when the C was */
        job.opt.row_major = row_major;
        rc = tc_cli_write_fortran(cli, plan->alg, &plan->c, &job.opt);
    }
    free(cmd);
    tc_plan_destroy(plan);
    return rc;
}
