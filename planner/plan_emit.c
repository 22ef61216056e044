/*
 * plan_emit.c - a plan as C: the emitted file's header says what the
 * choice was based on (time, runner-ups, BLAS library, machine), in the
 * spirit of genfft's self-describing output.
 */
#include <stdarg.h>
#include <string.h>

#include "ast/c_locale.h"
#include "ast/error.h"
#include "planner/plan.h"

/* Appends to buf (printf-style), never past n. */
static void put(char *buf, size_t n, size_t *len, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 4, 5)))
#endif
    ;
static void put(char *buf, size_t n, size_t *len, const char *fmt, ...)
{
    if (*len >= n)
        return;
    va_list ap;
    va_start(ap, fmt);
    int k = vsnprintf(buf + *len, n - *len, fmt, ap);
    va_end(ap);
    if (k > 0)
        *len += (size_t)k;
}

/* The header lines about the decision. */
static void notes(const tc_plan *p, char *buf, size_t n)
{
    double flops = tc_contraction_flops(&p->c);
    size_t len = 0;
    buf[0] = '\0';
    put(buf, n, &len, "%-12s %.3g s (%.3g GFLOP/s)\n", tc_plan_time_kind(p), p->seconds,
        flops / p->seconds / 1e9);
    for (int k = 0; k < p->nrunners; k++)
        put(buf, n, &len, "%s %s %.3g s%s", k ? "," : "runner-ups  ", p->runner[k].name,
            p->runner[k].seconds, k + 1 == p->nrunners ? "\n" : "");
    if (p->over_limit)
        put(buf, n, &len, "ranked       %d algorithms predicted in %.2f s; the best %d run, "
                          "each over the time limit of %.3g s: the prediction decided\n",
            p->ranked, p->planning_s, p->measured, p->time_limit_s);
    else if (p->measured)
        put(buf, n, &len, "ranked       %d algorithms predicted, the best %d run, in %.2f s\n",
            p->ranked, p->measured, p->planning_s);
    else if (p->pruned)
        put(buf, n, &len, "ranked       %d algorithms in %.2f s: %d predicted, %d ruled out\n"
                          "             by a floor under their kernel calls' time\n",
            p->ranked, p->planning_s, p->ranked - p->pruned, p->pruned);
    else if (p->ranked)
        put(buf, n, &len, "ranked       %d algorithms predicted in %.2f s\n", p->ranked,
            p->planning_s);
    if (p->subset.partial && p->ranked)
        put(buf, n, &len, "candidates   %d of %llu ranked (%s; tcgen ranks at most %d)\n",
            p->set->count, (unsigned long long)p->subset.candidates, p->subset.which,
            TC_GEN_MAX_ALGORITHMS);
    put(buf, n, &len, "on           %s\nmachine      %s", p->setup, p->machine);
    const char *core = strncmp(p->blas->name, "openblas:", 9) == 0 ? p->blas->name + 9 : NULL;
    if (core) /* a kernel set OpenBLAS would not pick by itself */
        put(buf, n, &len, "\nrun with     OpenBLAS and OPENBLAS_CORETYPE=%s in the environment,\n"
                          "             the kernels this was ranked with", core);
    if (p->kernels_note[0])
        put(buf, n, &len, "\nwarning      %s", p->kernels_note);
}

tc_status tc_plan_emit(const tc_plan *p, FILE *out, const tc_emit_options *opt, tc_error *err)
{
    if (!p || !out)
        return tc_error_set(err, TC_EUSAGE, 0, 0, "tc_plan_emit: NULL argument");
    tc_emit_options o;
    memset(&o, 0, sizeof o);
    if (opt)
        o = *opt;
    /* numbers in the C locale whatever the host program set */
    locale_t saved = tc_c_locale_enter();
    char text[4096];
    notes(p, text, sizeof text);
    o.notes = text;
    o.row_major = (p->flags & TC_ROW_MAJOR) != 0;
    tc_status s = tc_emit_c(p->alg, &p->c, &o, out, err);
    tc_c_locale_leave(saved);
    return s;
}

tc_status tc_plan_emit_c(const tc_plan *p, FILE *out, const char *function)
{
    tc_emit_options o;
    memset(&o, 0, sizeof o);
    o.function = function;
    return tc_plan_emit(p, out, &o, NULL);
}
