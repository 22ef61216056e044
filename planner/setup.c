/* setup.c - hardware, BLAS, timer and sampler for ranking by prediction. */
#include "planner/setup.h"

#include <stdlib.h>
#include <string.h>

#include "ast/error.h"

#define DEFAULT_REPS 10

tc_plan_options tc_plan_options_default(void)
{
    tc_plan_options o;
    memset(&o, 0, sizeof o);
    o.model = TC_MODEL_FULL;
    return o;
}

tc_status tc_plan_blas_load(const tc_plan_options *o, tc_blas **out, tc_error *err)
{
    int threads = o->threads;
    const char *env = getenv("TCGEN_THREADS");
    if (threads == 0 && env && *env) {
        char *end;
        long n = strtol(env, &end, 10);
        if (*end != '\0' || n < 1 || n > 1024)
            return tc_error_set(err, TC_EUSAGE, 0, 0,
                                "TCGEN_THREADS must be a whole number from 1 to 1024, not "
                                "'%s'", env);
        threads = (int)n;
    }
    return tc_rt_blas_load(o->blas, threads, out, err);
}

tc_status tc_plan_setup_open(const tc_plan_options *o, tc_plan_setup *s, tc_error *err)
{
    memset(s, 0, sizeof *s);
    if (o->reps < 0 || o->reps > 1000)
        return tc_error_set(err, TC_EUSAGE, 0, 0, "repetitions must be 1 to 1000, not %d",
                            o->reps);
    tc_mb_hardware_detect(&s->hw, NULL);
    if (o->llc_bytes > 0)
        s->hw.llc_bytes = o->llc_bytes;
    s->params.model = o->model;
    s->params.llc_bytes = s->hw.llc_bytes;
    s->params.line_bytes = s->hw.line_bytes;
    tc_status st = tc_plan_blas_load(o, &s->blas, err);
    if (st != TC_OK)
        return st;
    st = tc_rt_timer_init(&s->timer, err);
    if (st == TC_OK) {
        s->options.blas = s->blas;
        s->options.timer = &s->timer;
        s->options.llc_bytes = s->hw.llc_bytes;
        s->options.line_bytes = s->hw.line_bytes;
        s->options.reps = o->reps ? o->reps : DEFAULT_REPS;
        s->options.flush = o->flush;
        st = tc_mb_sampler_new(&s->options, &s->sampler, err);
    }
    if (st != TC_OK)
        tc_plan_setup_close(s);
    return st;
}

void tc_plan_setup_close(tc_plan_setup *s)
{
    tc_mb_sampler_free(s->sampler);
    tc_rt_blas_unload(s->blas);
    s->sampler = NULL;
    s->blas = NULL;
}

void tc_plan_setup_describe(const tc_plan_setup *s, char *buf, size_t n)
{
    snprintf(buf, n, "model %s, %d reps, %s%s%s (%d thread%s), LLC %lld KiB (%s), line %d B, "
                     "flush %s",
             tc_mb_model_name(s->params.model), s->options.reps, s->blas->name,
             s->blas->version[0] ? " " : "", s->blas->version, s->blas->threads,
             s->blas->threads == 1 ? "" : "s", (long long)(s->hw.llc_bytes / 1024),
             s->hw.source, s->hw.line_bytes,
             s->options.flush == TC_FLUSH_CLFLUSH ? "clflush" : "remote");
}

void tc_plan_machine_signature(const tc_hardware *hw, char *buf, size_t n)
{
    size_t len = (size_t)snprintf(buf, n, "%s", hw->cpu_model[0] ? hw->cpu_model : "unknown cpu");
    for (int l = 0; l < hw->nlevels && len < n; l++)
        len += (size_t)snprintf(buf + len, n - len, "|L%d %lldK", hw->level[l].level,
                                (long long)(hw->level[l].bytes / 1024));
    if (len < n)
        snprintf(buf + len, n - len, "|line %d|cpus %d", hw->line_bytes, hw->cpus);
    for (char *p = buf; *p; p++) /* wisdom fields are tab separated, one per line */
        if (*p == '\t' || *p == '\n' || *p == '\r')
            *p = ' ';
}
