/* predictor.c - option handling and set-up shared by the predicting commands. */
#include "predictor.h"

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "commands.h"

#define DEFAULT_REPS 10

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

int tc_cli_predictor_open(const tc_cli *cli, tc_cli_predictor *p)
{
    memset(p, 0, sizeof *p);
    tc_error err;
    p->params.model = TC_MODEL_FULL;
    if (cli->model) {
        int m = tc_mb_model_from_name(cli->model);
        if (m < 0)
            return tc_cli_failf(TC_EUSAGE, "usage: unknown model '%s' (use warm, access, "
                                           "prefetch, failures or full)", cli->model);
        p->params.model = (tc_mb_model)m;
    }
    p->options.reps = DEFAULT_REPS;
    if (cli->reps && parse_reps(cli->reps, &p->options.reps))
        return TC_EUSAGE;
    p->options.flush = TC_FLUSH_CLFLUSH;
    if (cli->flush) {
        if (strcmp(cli->flush, "remote") == 0)
            p->options.flush = TC_FLUSH_REMOTE;
        else if (strcmp(cli->flush, "clflush") != 0)
            return tc_cli_failf(TC_EUSAGE, "usage: unknown flush '%s' (use clflush or remote)",
                                cli->flush);
    }
    tc_mb_hardware_detect(&p->hw, &err);
    int rc = tc_cli_cache_size(cli, &p->hw);
    if (rc)
        return rc;
    p->params.llc_bytes = p->hw.llc_bytes;
    p->params.line_bytes = p->hw.line_bytes;
    if (tc_rt_blas_load(cli->blas, cli->threads, &p->blas, &err) != TC_OK)
        return tc_cli_fail(&err, NULL);
    if (tc_rt_timer_init(&p->timer, &err) != TC_OK) {
        tc_cli_predictor_close(p);
        return tc_cli_fail(&err, NULL);
    }
    p->options.blas = p->blas;
    p->options.timer = &p->timer;
    p->options.llc_bytes = p->hw.llc_bytes;
    p->options.line_bytes = p->hw.line_bytes;
    if (tc_mb_sampler_new(&p->options, &p->sampler, &err) != TC_OK) {
        tc_cli_predictor_close(p);
        return tc_cli_fail(&err, NULL);
    }
    return 0;
}

void tc_cli_predictor_close(tc_cli_predictor *p)
{
    tc_mb_sampler_free(p->sampler);
    tc_rt_blas_unload(p->blas);
    p->sampler = NULL;
    p->blas = NULL;
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
    if (tc_plan_rank(p->sampler, c, algs, n, &p->params, progress ? tc_cli_progress : NULL, "predicting", out,
                     &err) != TC_OK) {
        if (progress)
            fputs("\n", stderr);
        return tc_cli_fail(&err, NULL);
    }
    return 0;
}

void tc_cli_predictor_describe(const tc_cli_predictor *p, char *buf, size_t n)
{
    snprintf(buf, n, "model %s, %d reps, %s%s%s (%d thread%s), LLC %lld KiB (%s), line %d B, "
                     "flush %s",
             tc_mb_model_name(p->params.model), p->options.reps, p->blas->name,
             p->blas->version[0] ? " " : "", p->blas->version, p->blas->threads,
             p->blas->threads == 1 ? "" : "s", (long long)(p->hw.llc_bytes / 1024),
             p->hw.source, p->hw.line_bytes,
             p->options.flush == TC_FLUSH_CLFLUSH ? "clflush" : "remote");
}
