/* predictor.c - option handling and set-up shared by the predicting commands. */
#include "predictor.h"

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "commands.h"
#include "generator/generator.h"

static int parse_reps(const char *v, int *reps)
{
    char *end;
    long n = strtol(v, &end, 10);
    if (*v == '\0' || *end != '\0' || n < 1 || n > 1000)
        return tc_cli_failf(TC_EUSAGE, "usage: --reps needs a whole number from 1 to 1000, "
                                       "not '%s'", v);
    *reps = (int)n;
    return 0;
}

int tc_cli_plan_options(const tc_cli *cli, tc_plan_options *o)
{
    *o = tc_plan_options_default();
    if (cli->model) {
        int m;
        char why[1024];
        if (tc_mb_model_parse(cli->model, &m, &o->rules_off, why, sizeof why) != 0)
            return tc_cli_failf(TC_EUSAGE, "usage: %s", why);
        o->model = (tc_mb_model)m;
    }
    if (cli->reps && parse_reps(cli->reps, &o->reps))
        return TC_EUSAGE;
    o->count_rules = cli->verbose; /* what the ranking rests on: the rules' cases */
    if (cli->flush) {
        if (strcmp(cli->flush, "remote") == 0)
            o->flush = TC_FLUSH_REMOTE;
        else if (strcmp(cli->flush, "clflush") != 0)
            return tc_cli_failf(TC_EUSAGE, "usage: unknown flush '%s' (use clflush or remote)",
                                cli->flush);
    }
    tc_hardware hw;
    memset(&hw, 0, sizeof hw);
    int rc = tc_cli_cache_size(cli, &hw);
    if (rc)
        return rc;
    o->llc_bytes = hw.llc_bytes;
    if (cli->candidates) {
        char *end;
        long n = strtol(cli->candidates, &end, 10);
        if (*cli->candidates == '\0' || *end != '\0' || n < 0 || n > 100000)
            return tc_cli_failf(TC_EUSAGE, "usage: --candidates needs a whole number from 0 "
                                           "(all) to 100000, not '%s'", cli->candidates);
        o->candidates = n == 0 ? -1 : (int)n;
    }
    tc_measure_options mo;
    rc = tc_cli_measure_options(cli, &mo);
    if (rc)
        return rc;
    o->measure_reps = cli->reps ? mo.reps : 0;
    o->time_limit_s = mo.time_limit_s;
    unsigned kernels, families;
    rc = tc_cli_masks(cli, &kernels, &families);
    if (rc)
        return rc;
    o->families = cli->family ? families : 0; /* 0: the planner's default */
    o->blas = cli->blas;
    o->threads = cli->threads;
    if (cli->workspace) {
        const char *from;
        if ((rc = tc_cli_workspace(cli, &o->workspace, &from)))
            return rc;
        o->workspace_set = 1;
    }
    if (!cli->quiet && isatty(STDERR_FILENO))
        o->profile_progress = tc_cli_profile_progress;
    return 0;
}

int tc_cli_predictor_open(const tc_cli *cli, tc_cli_predictor *p)
{
    memset(p, 0, sizeof *p);
    tc_plan_options o;
    int rc = tc_cli_plan_options(cli, &o);
    if (rc)
        return rc;
    tc_error err;
    if (tc_plan_setup_open(&o, p, &err) != TC_OK)
        return tc_cli_fail(&err, NULL);
    tc_cli_profile_note(cli, p->origin.note);
    return 0;
}

void tc_cli_profile_note(const tc_cli *cli, const char *note)
{
    if (!cli->quiet && note && note[0])
        fprintf(stderr, "tcgen: warning: profile: %s\n", note);
}

void tc_cli_predictor_close(tc_cli_predictor *p)
{
    tc_plan_setup_close(p);
}

void tc_cli_profile_progress(const char *step, int done, int total, void *data)
{
    (void)data;
    if (done < total)
        fprintf(stderr, "\r\033[Ktcgen: measuring this machine once (%s, %d/%d)", step, done,
                total);
    else
        fputs("\r\033[K", stderr);
    fflush(stderr);
}

void tc_cli_progress(int done, int total, void *data)
{
    (void)data;
    fprintf(stderr, "\rtcgen: %s %d/%d", (const char *)data, done, total);
    if (done == total)
        fputs("\r\033[K", stderr);
    fflush(stderr);
}

int tc_cli_rank(const tc_cli *cli, tc_cli_predictor *p, const tc_contraction *c,
                const tc_algorithm *const *algs, int n, tc_ranking **out)
{
    tc_error err;
    int progress = !cli->quiet && isatty(STDERR_FILENO);
    /* algs are what tc_cli_select kept: within the workspace already */
    if (tc_plan_rank(p->sampler, c, algs, n, &p->params, -1, 0, TC_RANK_ROUNDS,
                     progress ? tc_cli_progress : NULL, "predicting", out, &err) != TC_OK) {
        if (progress)
            fputs("\n", stderr);
        return tc_cli_fail(&err, NULL);
    }
    return 0;
}
