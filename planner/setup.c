/* setup.c - hardware, BLAS, timer and sampler for ranking by prediction. */
#include "planner/setup.h"

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "ast/error.h"
#include "microbench/model_input.h"
#include "runtime/memory_limit.h"

#define DEFAULT_REPS 10

tc_plan_options tc_plan_options_default(void)
{
    tc_plan_options o;
    memset(&o, 0, sizeof o);
    o.model = TC_MODEL_FULL;
    return o;
}

tc_status tc_plan_workspace_limit(const tc_plan_options *o, int64_t *bytes, const char **from,
                                  tc_error *err)
{
    if (o->workspace_set) {
        *bytes = o->workspace;
        *from = "the plan's workspace";
        return TC_OK;
    }
    return tc_rt_workspace_from_env(bytes, from, err);
}

tc_status tc_plan_wisdom_tolerance(double *tolerance, tc_error *err)
{
    const char *v = getenv("TCGEN_WISDOM_TOLERANCE");
    *tolerance = 0.0;
    if (!v || !*v)
        return TC_OK;
    char *end;
    double t = strtod(v, &end);
    if (end == v || *end || !(t >= 0.0 && t <= 1.0))
        return tc_error_set(err, TC_EUSAGE, 0, 0,
                            "TCGEN_WISDOM_TOLERANCE is '%.64s': it takes a fraction from 0 "
                            "to 1, e.g. 0.1 to reuse decisions for sizes within 10 %%", v);
    *tolerance = t;
    return TC_OK;
}

/* $TCGEN_THREADS: digits only (no sign, space or suffix), 1 to the online
 * CPUs; -1 when it is anything else. */
static int env_threads(const char *env)
{
    long cpus = sysconf(_SC_NPROCESSORS_ONLN), n = 0;
    if (cpus < 1)
        cpus = 1;
    if (!*env)
        return -1;
    for (const char *p = env; *p; p++) {
        if (*p < '0' || *p > '9' || n > cpus)
            return -1;
        n = 10 * n + (*p - '0');
    }
    return n >= 1 && n <= cpus ? (int)n : -1;
}

/* The one-thread dgemm rate of library `which` by its profile (measured
 * once, then read; *p gets it); 0 when it does not load or measure. */
static double profiled_rate(const char *which, const tc_timer *timer, tc_mb_profile *p)
{
    tc_blas *b = NULL;
    tc_mb_profile_origin origin;
    double rate = 0.0;
    if (tc_rt_blas_load(which, 1, &b, NULL) == TC_OK &&
        tc_mb_profile_get(b, timer, 0, NULL, NULL, p, &origin, NULL) == TC_OK)
        rate = p->peak_flops;
    tc_rt_blas_unload(b);
    return rate;
}

/*
 * --blas auto: OpenBLAS, unless one of its other kernel sets runs dgemm
 * at least TC_MB_KERNELS_BETTER times as fast by their profiles (each
 * measured once, then read): then that set; and BLIS where it is that
 * much faster again than OpenBLAS's choice. The margin keeps the choice
 * from following the noise between near-equal sets (BLIS against
 * OpenBLAS's SkylakeX kernels on a Zen 4 VM went either way).
 */
static tc_status load_auto(int threads, tc_blas **out, tc_error *err)
{
    tc_timer timer;
    tc_mb_profile p;
    const char *best = "openblas";
    char core[48];
    tc_status st = tc_rt_timer_init(&timer, err);
    if (st != TC_OK)
        return st;
    double base = profiled_rate("openblas", &timer, &p), rate = base;
    int k = base > 0.0 ? tc_mb_profile_better_kernels(&p) : -1;
    if (k >= 0) {
        snprintf(core, sizeof core, "openblas:%s", p.kernel_name[k]);
        best = core;
        rate = p.kernel_flops[k];
    }
    double blis = profiled_rate("blis", &timer, &p);
    if (blis > 0.0 && (rate == 0.0 || blis >= TC_MB_KERNELS_BETTER * rate))
        best = "blis";
    return tc_rt_blas_load(best, threads, out, err);
}

tc_status tc_plan_blas_open(const char *which, int threads, tc_blas **out, tc_error *err)
{
    const char *named = which ? which : getenv("TCGEN_BLAS"); /* the runtime's default too */
    if (named && strcmp(named, "auto") == 0)
        return load_auto(threads, out, err);
    return tc_rt_blas_load(which, threads, out, err);
}

tc_status tc_plan_blas_load(const tc_plan_options *o, tc_blas **out, tc_error *err)
{
    int threads = o->threads;
    const char *env = getenv("TCGEN_THREADS");
    if (threads == 0 && env) {
        threads = env_threads(env);
        if (threads < 0) {
            long cpus = sysconf(_SC_NPROCESSORS_ONLN);
            *out = NULL;
            return tc_error_set(err, TC_EUSAGE, 0, 0,
                                "TCGEN_THREADS must be an integer from 1 to %ld (the "
                                "online CPUs), not '%.100s'",
                                cpus < 1 ? 1L : cpus, env);
        }
    }
    return tc_plan_blas_open(o->blas, threads, out, err);
}

tc_status tc_plan_setup_open(const tc_plan_options *o, tc_plan_setup *s, tc_error *err)
{
    memset(s, 0, sizeof *s);
    if (o->reps < 0 || o->reps > 1000)
        return tc_error_set(err, TC_EUSAGE, 0, 0, "repetitions must be 1 to 1000, not %d",
                            o->reps);
    if (o->llc_bytes < 0)
        return tc_error_set(err, TC_EUSAGE, 0, 0, "the cache size must be positive, not %lld",
                            (long long)o->llc_bytes);
    tc_status st = tc_plan_blas_load(o, &s->blas, err);
    if (st != TC_OK)
        return st;
    st = tc_rt_timer_init(&s->timer, err);
    if (st == TC_OK)
        st = tc_mb_profile_get(s->blas, &s->timer, o->refresh_profile, o->profile_progress,
                               o->profile_progress_data, &s->profile, &s->origin, err);
    if (st == TC_OK) {
        s->hw = s->profile.used;
        if (o->llc_bytes > 0) {
            s->hw.llc_bytes = o->llc_bytes;
            s->llc_overridden = 1;
        }
        s->params.model = o->model;
        s->params.llc_bytes = s->hw.llc_bytes;
        s->params.line_bytes = s->hw.line_bytes;
        s->options.blas = s->blas;
        s->options.timer = &s->timer;
        s->options.reps = o->reps ? o->reps : DEFAULT_REPS;
        s->options.flush = o->flush;
        s->options.rules_off = o->rules_off;
        s->options.count_rules = o->count_rules;
        s->options.threads = s->blas->threads;
        tc_mb_model_input(&s->profile, &s->hw, &s->options);
        st = tc_mb_sampler_new(&s->options, &s->sampler, err);
    }
    if (st != TC_OK)
        tc_plan_setup_close(s);
    return st;
}

/* Where the LLC size in use comes from. */
static const char *llc_origin(const tc_plan_setup *s)
{
    if (s->llc_overridden)
        return "--cache-size";
    if (s->hw.nlevels > 0 && s->profile.source[s->hw.nlevels - 1] == TC_LEVEL_MEASURED)
        return "measured";
    return s->hw.source;
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
    char model[512];
    tc_mb_model_format(s->params.model, s->options.rules_off, model, sizeof model);
    snprintf(buf, n, "model %s, %d reps, %s%s%s (%d thread%s), LLC %lld KiB (%s), line %d B, "
                     "flush %s",
             model, s->options.reps, s->blas->name,
             s->blas->version[0] ? " " : "", s->blas->version, s->blas->threads,
             s->blas->threads == 1 ? "" : "s", (long long)(s->hw.llc_bytes / 1024),
             llc_origin(s), s->hw.line_bytes,
             s->options.flush == TC_FLUSH_CLFLUSH ? "clflush" : "remote");
}

void tc_plan_machine_signature(const tc_hardware *hw, char *buf, size_t n)
{
    tc_mb_hardware_signature(hw, buf, n);
}
