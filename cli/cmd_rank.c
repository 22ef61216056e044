/*
 * cmd_rank.c - `tcgen predict`, `measure` and `compare`: rank the
 * algorithms by predicted time, by measured time, or both side by side with
 * the prediction error and Spearman's rank correlation; optionally over a
 * --sweep of sizes, drawn with --plot. predict --repeat N predicts N times
 * independently (a fresh sampler each time: nothing remembered) and ranks
 * by the median, with the smallest and largest per algorithm; compare
 * --repeat N interleaves N rounds of prediction and measurement.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
#include "commands.h"
#include "microbench/stats.h"
#include "plot.h"
#include "predictor.h"
#include "table.h"

enum { PREDICT = 1, MEASURE = 2, COMPARE = PREDICT | MEASURE };

/* compare's regret, measured side by side: the predicted best against the
 * CONFIRM_RIVALS fastest others of the table, in CONFIRM_ROUNDS interleaved
 * rounds (docs/decisions.md). */
enum { CONFIRM_RIVALS = 3, CONFIRM_ROUNDS = 5 };

/* Everything one command run needs across sweep points. */
typedef struct job {
    const tc_cli *cli;
    int mode;
    const tc_sweep *sw;        /* NULL without --sweep */
    tc_cli_predictor p;
    int predictor_open;
    tc_measure_options mo;
    tc_table *table;
    tc_plot_row *plot;         /* one per (point, algorithm) */
    int nplot, capplot;
    FILE *summary;             /* '#' lines, printed after the table */
    char *summary_text;
    size_t summary_size;
    double abs_error_sum;      /* over all points: compare's mean */
    int abs_error_n;
    int repeat;                /* predict and compare --repeat N (1 without) */
} job;

/* One algorithm's results at one point. */
typedef struct result {
    const tc_algorithm *alg;
    double predicted, cost_s;  /* NAN when not predicted */
    double measured;           /* NAN when not measured or over the limit */
    int over_limit;
    double lo, hi;             /* --repeat: smallest and largest prediction */
} result;

/* compare's regret: from the table's measurements, and side by side. */
typedef struct regret {
    const tc_algorithm *predicted, *measured; /* the bests of the table, or NULL */
    double sweep_pct, pct;     /* INFINITY when the predicted best is over the limit */
    const tc_algorithm *against; /* the fastest side by side */
} regret;

static int by_predicted(const void *a, const void *b)
{
    const result *x = a, *y = b;
    return (x->predicted > y->predicted) - (x->predicted < y->predicted);
}

/* Measured first, fastest first; those over the limit last. */
static int by_measured(const void *a, const void *b)
{
    const result *x = a, *y = b;
    if (x->over_limit != y->over_limit)
        return x->over_limit - y->over_limit;
    return (x->measured > y->measured) - (x->measured < y->measured);
}

static double gflops(double flops, double s)
{
    return s > 0 && isfinite(s) ? flops / s * 1e-9 : NAN;
}

/* "%.6e" or "-" for a missing value. */
static const char *num(char *buf, size_t n, const char *fmt, double v)
{
    if (isfinite(v))
        snprintf(buf, n, fmt, v);
    else
        snprintf(buf, n, "-");
    return buf;
}

static int add_plot_row(job *j, double x, const result *r, double flops)
{
    if (!j->cli->plot)
        return 0;
    if (j->nplot == j->capplot) {
        int cap = j->capplot ? 2 * j->capplot : 256;
        tc_plot_row *v = realloc(j->plot, (size_t)cap * sizeof *v);
        if (!v)
            return -1;
        j->plot = v;
        j->capplot = cap;
    }
    tc_plot_row *row = &j->plot[j->nplot++];
    row->x = x;
    row->name = strdup(r->alg->name); /* the algorithm set goes with its point */
    if (!row->name)
        return -1;
    row->kernel = tc_kernel_type_name(r->alg->kernel, r->alg->type);
    row->predicted_gflops = gflops(flops, r->predicted);
    row->measured_gflops = gflops(flops, r->measured);
    row->error_pct = (r->predicted - r->measured) / r->measured * 100.0;
    return 0;
}

/* Predicts and/or measures the selected algorithms at one point into res[]:
 * predict --repeat N predicts N times; fresh: even the first prediction
 * with a new sampler. */
static int evaluate_once(job *j, const tc_contraction *c, const tc_algorithm *const *sel, int n,
                         int repeat, int fresh, result *res, double *predict_s,
                         double *measure_s)
{
    const tc_cli *cli = j->cli;
    for (int i = 0; i < n; i++)
        res[i] = (result){sel[i], NAN, NAN, NAN, 0, NAN, NAN};
    if (j->mode & PREDICT) {
        double *v = calloc((size_t)n * (size_t)repeat + 1, sizeof *v);
        if (!v)
            return tc_cli_failf(TC_ERESOURCE, "out of memory");
        *predict_s = 0.0;
        for (int rep = 0; rep < repeat; rep++) {
            if (rep > 0 || fresh) { /* independent: a new sampler remembers nothing */
                tc_error err;
                tc_mb_sampler_free(j->p.sampler);
                j->p.sampler = NULL;
                if (tc_mb_sampler_new(&j->p.options, &j->p.sampler, &err) != TC_OK) {
                    free(v);
                    return tc_cli_fail(&err, NULL);
                }
            }
            tc_ranking *r = NULL;
            int rc = tc_cli_rank(cli, &j->p, c, sel, n, &r);
            if (rc) {
                free(v);
                return rc;
            }
            for (int k = 0; k < r->count; k++)
                for (int i = 0; i < n; i++)
                    if (res[i].alg == r->entry[k].alg) {
                        v[(size_t)i * repeat + rep] = r->entry[k].seconds;
                        res[i].cost_s = r->entry[k].cost_s;
                        res[i].predicted = 0.0; /* ranked */
                    }
            *predict_s += r->elapsed_s;
            tc_ranking_free(r);
        }
        for (int i = 0; i < n; i++)
            if (res[i].predicted == 0.0)
                tc_mb_spread(v + (size_t)i * repeat, repeat, &res[i].lo,
                             &res[i].predicted, &res[i].hi);
        free(v);
    }
    if (j->mode & MEASURE) {
        tc_measurements *m = NULL;
        tc_error err;
        int progress = !cli->quiet && isatty(STDERR_FILENO);
        if (tc_plan_measure(c, sel, n, &j->mo, progress ? tc_cli_progress : NULL, "measuring",
                            &m, &err) != TC_OK) {
            if (progress)
                fputc('\n', stderr);
            return tc_cli_fail(&err, NULL);
        }
        for (int i = 0; i < n; i++) {
            res[i].over_limit = m->entry[i].over_limit;
            res[i].measured = m->entry[i].over_limit ? NAN : m->entry[i].seconds;
        }
        *measure_s = m->elapsed_s;
        tc_measurements_free(m);
    }
    return 0;
}

/* evaluate_once, or for compare --repeat N, N rounds of an independent
 * prediction then a measurement, each algorithm's median prediction and
 * median measurement kept: the rounds interleave, so a slow phase of a
 * shared host falls on both sides alike. */
static int evaluate(job *j, const tc_contraction *c, const tc_algorithm *const *sel, int n,
                    result *res, double *predict_s, double *measure_s)
{
    if (j->mode != COMPARE || j->repeat < 2)
        return evaluate_once(j, c, sel, n, j->repeat, 0, res, predict_s, measure_s);
    int rounds = j->repeat, rc = 0;
    double *pv = calloc(2 * (size_t)n * (size_t)rounds + 1, sizeof *pv), *mv = pv + n * rounds;
    result *round = calloc((size_t)n + 1, sizeof *round);
    if (!pv || !round) {
        free(pv);
        free(round);
        return tc_cli_failf(TC_ERESOURCE, "out of memory");
    }
    double ps = 0.0, ms = 0.0;
    for (int r = 0; r < rounds && !rc; r++) {
        double p1 = 0.0, m1 = 0.0;
        rc = evaluate_once(j, c, sel, n, 1, r > 0, round, &p1, &m1);
        ps += p1, ms += m1;
        for (int i = 0; !rc && i < n; i++) {
            pv[(size_t)i * rounds + r] = round[i].predicted;
            mv[(size_t)i * rounds + r] = round[i].over_limit ? INFINITY : round[i].measured;
            if (r == 0)
                res[i] = round[i];
            res[i].over_limit |= round[i].over_limit;
        }
    }
    for (int i = 0; !rc && i < n; i++) {
        double lo, hi;
        tc_mb_spread(pv + (size_t)i * rounds, rounds, &lo, &res[i].predicted, &hi);
        tc_mb_spread(mv + (size_t)i * rounds, rounds, &lo, &res[i].measured, &hi);
        if (res[i].over_limit)
            res[i].measured = NAN;
    }
    *predict_s = ps / rounds, *measure_s = ms / rounds;
    free(pv);
    free(round);
    return rc;
}

/* The regret from the table's measurements, then measured again side by
 * side: the predicted best against the CONFIRM_RIVALS fastest others. With
 * hundreds of near-equal algorithms timed one after another, the fastest of
 * the table is partly the one a fast phase of the host fell on, and that
 * overstates the regret of any other choice. */
static int confirm_regret(job *j, const tc_contraction *c, const result *res, int n, regret *g)
{
    int best_p = -1, best_m = -1;
    for (int i = 0; i < n; i++) {
        if (isfinite(res[i].predicted) && (best_p < 0 || res[i].predicted < res[best_p].predicted))
            best_p = i;
        if (!res[i].over_limit && (best_m < 0 || res[i].measured < res[best_m].measured))
            best_m = i;
    }
    *g = (regret){best_p >= 0 ? res[best_p].alg : NULL, best_m >= 0 ? res[best_m].alg : NULL,
                  INFINITY, INFINITY, NULL};
    if (best_p < 0 || best_m < 0 || res[best_p].over_limit)
        return 0;
    g->sweep_pct = g->pct = 100.0 * (res[best_p].measured / res[best_m].measured - 1.0);
    g->against = res[best_m].alg;
    const tc_algorithm *alg[1 + CONFIRM_RIVALS] = {res[best_p].alg};
    int k = 1;
    while (k < 1 + CONFIRM_RIVALS) {
        int pick = -1;
        for (int i = 0; i < n; i++) {
            int taken = 0;
            for (int q = 0; q < k; q++)
                taken |= alg[q] == res[i].alg;
            if (!taken && !res[i].over_limit &&
                (pick < 0 || res[i].measured < res[pick].measured))
                pick = i;
        }
        if (pick < 0)
            break;
        alg[k++] = res[pick].alg;
    }
    if (k == 1)
        return 0;
    tc_measure_options o = j->mo;
    o.rounds = CONFIRM_ROUNDS;
    tc_measurements *m = NULL;
    tc_error err;
    int progress = !j->cli->quiet && isatty(STDERR_FILENO);
    if (tc_plan_measure(c, alg, k, &o, progress ? tc_cli_progress : NULL, "regret side by side",
                        &m, &err) != TC_OK) {
        if (progress)
            fputc('\n', stderr);
        return tc_cli_fail(&err, NULL);
    }
    int fastest = 0;
    for (int q = 1; q < k; q++)
        if (!m->entry[q].over_limit && m->entry[q].seconds < m->entry[fastest].seconds)
            fastest = q;
    g->against = alg[fastest];
    g->pct = m->entry[0].over_limit ? INFINITY
                                    : 100.0 * (m->entry[0].seconds / m->entry[fastest].seconds - 1.0);
    tc_measurements_free(m);
    return 0;
}

/* The compare summary of one point (docs/design.md §6), with `at` before each key. */
static void compare_summary(job *j, const result *res, int n, const regret *g, const char *at,
                            double predict_s, double measure_s)
{
    FILE *f = j->summary;
    double sum = 0;
    int counted = 0;
    double cost[TC_KERNEL_COUNT] = {0}, run[TC_KERNEL_COUNT] = {0};
    for (int i = 0; i < n; i++) {
        if (res[i].over_limit)
            continue;
        sum += fabs(res[i].predicted - res[i].measured) / res[i].measured;
        counted++;
        cost[res[i].alg->kernel] += res[i].cost_s;
        run[res[i].alg->kernel] += res[i].measured;
    }
    j->abs_error_sum += sum;
    j->abs_error_n += counted;
    fprintf(f, "# %smean_abs_error_pct %.2f\n", at, counted ? 100.0 * sum / counted : NAN);
    double *px = malloc(2 * (size_t)(counted + 1) * sizeof *px), rho = NAN;
    if (px) {
        int m = 0;
        for (int i = 0; i < n; i++)
            if (!res[i].over_limit && isfinite(res[i].predicted)) {
                px[m] = res[i].predicted;
                px[counted + 1 + m++] = res[i].measured;
            }
        rho = tc_mb_spearman(px, px + counted + 1, m);
        free(px);
    }
    fprintf(f, "# %sspearman %.3f\n", at, rho);
    fprintf(f, "# %sbest_predicted %s\n", at, g->predicted ? g->predicted->name : "-");
    fprintf(f, "# %sbest_measured %s\n", at, g->measured ? g->measured->name : "-");
    /* side by side, never below 0: the predicted best is one of those timed */
    if (isfinite(g->pct))
        fprintf(f, "# %sregret_pct %.2f\n", at, g->pct > 0.0 ? g->pct : 0.0);
    else
        fprintf(f, "# %sregret_pct inf\n", at);
    if (isfinite(g->sweep_pct))
        fprintf(f, "# %sregret_sweep_pct %.2f\n", at, g->sweep_pct);
    else
        fprintf(f, "# %sregret_sweep_pct inf\n", at);
    if (g->against)
        fprintf(f, "# %sregret_against %s\n", at, g->against->name);
    fprintf(f, "# %spredict_s %.3f\n# %smeasure_s %.3f\n", at, predict_s, at, measure_s);
    /* §6.3.4: one run of the algorithms of a kernel class against the time
     * their predictions took */
    for (int k = 0; k < TC_KERNEL_COUNT; k++)
        if (cost[k] > 0)
            fprintf(f, "# %sspeedup_%s %.0f\n", at, tc_kernel_name((tc_kernel)k), run[k] / cost[k]);
}

static int one_point(job *j, int point)
{
    const tc_cli *cli = j->cli;
    tc_contraction c;
    int rc = j->sw ? tc_cli_load_at(cli, j->sw, point, &c) : tc_cli_load(cli, 1, &c);
    if (rc)
        return rc;
    tc_algorithm_set *set = NULL;
    const tc_algorithm **sel = NULL;
    int n = 0;
    if ((rc = tc_cli_select(cli, &c, &set, &sel, &n)))
        return rc;
    result *res = calloc((size_t)n + 1, sizeof *res);
    double predict_s = 0, measure_s = 0;
    regret g = {NULL, NULL, INFINITY, INFINITY, NULL};
    rc = res ? evaluate(j, &c, sel, n, res, &predict_s, &measure_s)
             : tc_cli_failf(TC_ERESOURCE, "out of memory");
    if (!rc && j->mode == COMPARE)
        rc = confirm_regret(j, &c, res, n, &g);
    double x = j->sw ? (double)j->sw->value[point] : 0.0;
    char at[TC_MAX_INDICES * TC_NAME_MAX + 40] = "", xs[32] = "", a[32], b[32], e[32];
    if (j->sw) {
        snprintf(xs, sizeof xs, "%lld", (long long)j->sw->value[point]);
        snprintf(at, sizeof at, "%s=%s ", j->sw->label, xs);
    }
    const char *pre = j->sw ? xs : NULL;
    double flops = tc_contraction_flops(&c);
    if (!rc)
        qsort(res, (size_t)n, sizeof *res, j->mode == PREDICT ? by_predicted : by_measured);
    for (int i = 0; !rc && i < n; i++) {
        const result *r = &res[i];
        int bad;
        if (j->mode == COMPARE)
            bad = tc_table_addf(j->table, "%s%s%s\t%s\t%s\t%s\t%s", pre ? pre : "", pre ? "\t" : "",
                                r->alg->name, tc_kernel_type_name(r->alg->kernel, r->alg->type),
                                num(a, sizeof a, "%.6e", r->predicted),
                                num(b, sizeof b, "%.6e", r->measured),
                                num(e, sizeof e, "%.2f",
                                    (r->predicted - r->measured) / r->measured * 100.0));
        else if (j->repeat > 1) {
            char lo[32], hi[32], sp[32];
            bad = tc_table_addf(j->table, "%s%s%d\t%s\t%s\t%s\t%s\t%s\t%s\t%s", pre ? pre : "",
                                pre ? "\t" : "", i + 1, r->alg->name,
                                tc_kernel_type_name(r->alg->kernel, r->alg->type),
                                num(a, sizeof a, "%.6e", r->predicted),
                                num(b, sizeof b, "%.3f", gflops(flops, r->predicted)),
                                num(lo, sizeof lo, "%.6e", r->lo), num(hi, sizeof hi, "%.6e", r->hi),
                                num(sp, sizeof sp, "%.1f", 100.0 * (r->hi / r->lo - 1.0)));
        } else {
            double s = j->mode == PREDICT ? r->predicted : r->measured;
            bad = tc_table_addf(j->table, "%s%s%d\t%s\t%s\t%s\t%s", pre ? pre : "", pre ? "\t" : "",
                                i + 1, r->alg->name, tc_kernel_type_name(r->alg->kernel, r->alg->type),
                                num(a, sizeof a, "%.6e", s),
                                num(b, sizeof b, "%.3f", gflops(flops, s)));
        }
        if (bad || add_plot_row(j, x, r, flops))
            rc = tc_cli_failf(TC_ERESOURCE, "out of memory");
    }
    if (!rc) {
        int over = 0;
        for (int i = 0; i < n; i++)
            over += res[i].over_limit;
        if (j->mode == COMPARE)
            compare_summary(j, res, n, &g, at, predict_s, measure_s);
        else if (j->mode == PREDICT)
            fprintf(j->summary, "# %spredict_s %.3f\n", at, predict_s);
        else
            fprintf(j->summary, "# %smeasure_s %.3f\n", at, measure_s);
        if (j->mode == PREDICT && j->repeat > 1) {
            int agree = 0, ranked = 0;
            double widest = 0.0;
            for (int i = 0; i < n; i++) {
                if (!(res[i].lo > 0.0))
                    continue;
                double spread = res[i].hi / res[i].lo - 1.0;
                ranked++;
                agree += spread <= 0.2;
                widest = spread > widest ? spread : widest;
            }
            fprintf(j->summary, "# %srepeat %d\n# %swithin_20pct %d of %d (%.1f %%)\n"
                                "# %smax_spread_pct %.1f\n",
                    at, j->repeat, at, agree, ranked, ranked ? 100.0 * agree / ranked : NAN,
                    at, 100.0 * widest);
        }
        if (over)
            fprintf(j->summary, "# %sover_limit %d (time limit %g s)\n", at, over,
                    j->mo.time_limit_s);
    }
    free(res);
    free(sel);
    tc_alg_set_free(set);
    return rc;
}

static void subtitle(const job *j, char *buf, size_t n)
{
    const tc_hardware *hw = j->predictor_open ? &j->p.hw : NULL;
    const tc_blas *b = j->predictor_open ? j->p.blas : j->mo.blas;
    snprintf(buf, n, "%s, %s%s%.40s, %d thread%s", hw && hw->cpu_model[0] ? hw->cpu_model : "this machine",
             b->name, b->version[0] ? " " : "", b->version, b->threads, b->threads == 1 ? "" : "s");
}

static int draw(job *j)
{
    char title[600], sub[400];
    const tc_cli *cli = j->cli;
    snprintf(title, sizeof title, "%s", cli->file ? cli->file : cli->positional[0]);
    subtitle(j, sub, sizeof sub);
    tc_plot p = {cli->plot, title, sub, j->sw ? j->sw->label : "", j->mode == COMPARE, j->nplot,
                 j->plot};
    return tc_cli_plot(&p);
}

static int run(const tc_cli *cli, int mode)
{
    static const char *const heads[4][9] = {
        {"rank", "name", "kernel", "predicted_s", "gflops", NULL},
        {"rank", "name", "kernel", "measured_s", "gflops", NULL},
        {"name", "kernel", "predicted_s", "measured_s", "error_pct", NULL},
        {"rank", "name", "kernel", "predicted_s", "gflops", "min_s", "max_s", "spread_pct",
         NULL},
    };
    job j;
    memset(&j, 0, sizeof j);
    j.cli = cli;
    j.mode = mode;
    j.repeat = 1;
    tc_sweep sw;
    int rc = 0;
    if (cli->repeat) {
        char *end;
        long v = strtol(cli->repeat, &end, 10);
        if (mode == MEASURE || cli->repeat[0] < '0' || cli->repeat[0] > '9' || *end != '\0' ||
            v < 1 || v > 100)
            return tc_cli_failf(TC_EUSAGE, mode == MEASURE
                                               ? "usage: --repeat is for predict and compare"
                                               : "usage: --repeat needs a whole number from 1 "
                                                 "to 100, not '%s'",
                                cli->repeat);
        j.repeat = (int)v;
    }
    if (cli->sweep) {
        if ((rc = tc_cli_sweep_parse(cli->sweep, &sw)))
            return rc;
        j.sw = &sw;
    }
    if (mode & MEASURE && (rc = tc_cli_measure_options(cli, &j.mo)))
        return rc;
    if (mode & PREDICT) {
        if ((rc = tc_cli_predictor_open(cli, &j.p)))
            return rc;
        j.predictor_open = 1;
        j.mo.blas = j.p.blas;
    } else {
        tc_error err;
        if (tc_plan_blas_open(cli->blas, cli->threads, (tc_blas **)&j.mo.blas, &err) != TC_OK)
            return tc_cli_fail(&err, NULL);
    }
    int kind = mode == PREDICT ? (j.repeat > 1 ? 3 : 0) : mode == MEASURE ? 1 : 2;
    const char *const *h = heads[kind];
    const char *headers[9] = {j.sw ? j.sw->label : NULL};
    int ncols = kind == 3 ? 8 : 5, off = j.sw ? 1 : 0;
    for (int i = 0; i < ncols; i++)
        headers[i + off] = h[i];
    const char *types = kind == 3   ? (off ? "nnssnnnnn" : "nssnnnnn")
                        : kind == 2 ? (off ? "nssnnn" : "ssnnn")
                                    : (off ? "nnssnn" : "nssnn");
    j.table = tc_table_new(ncols + off, headers, types);
    j.summary = open_memstream(&j.summary_text, &j.summary_size);
    if (!j.table || !j.summary)
        rc = tc_cli_failf(TC_ERESOURCE, "out of memory");
    int points = j.sw ? j.sw->npoints : 1;
    for (int pt = 0; !rc && pt < points; pt++)
        rc = one_point(&j, pt);
    if (!rc && mode == COMPARE && j.sw)
        fprintf(j.summary, "# mean_abs_error_pct %.2f\n",
                j.abs_error_n ? 100.0 * j.abs_error_sum / j.abs_error_n : NAN);
    if (!rc && j.predictor_open) {
        char how[256];
        tc_plan_setup_describe(&j.p, how, sizeof how);
        fprintf(j.summary, "# cases_timed %lld reused %lld\n",
                (long long)tc_mb_sampler_timed(j.p.sampler),
                (long long)tc_mb_sampler_reused(j.p.sampler));
        if (j.p.options.count_rules) { /* -v */
            fputs("# rule_cases", j.summary);
            for (int r = 0; r < TC_RULE_COUNT; r++)
                fprintf(j.summary, " %s=%lld", tc_mb_rule_get(r)->name,
                        (long long)tc_mb_sampler_rule_cases(j.p.sampler, r));
            fputc('\n', j.summary);
        }
        fprintf(j.summary, "# %s\n", how);
    }
    if (j.summary)
        fclose(j.summary);
    FILE *out = rc ? NULL : tc_cli_open_output(cli);
    if (!rc && !out)
        rc = TC_ERESOURCE;
    if (!rc) {
        tc_table_print(j.table, out, cli->format);
        if (cli->format != TC_FMT_JSON && j.summary_text)
            fputs(j.summary_text, out);
        rc = tc_cli_close_output(out);
    }
    if (!rc && cli->plot)
        rc = draw(&j);
    for (int i = 0; i < j.nplot; i++)
        free((char *)(uintptr_t)j.plot[i].name);
    free(j.plot);
    free(j.summary_text);
    tc_table_free(j.table);
    if (j.predictor_open)
        tc_cli_predictor_close(&j.p);
    else if (j.mo.blas)
        tc_rt_blas_unload((tc_blas *)(uintptr_t)j.mo.blas);
    return rc;
}

int tc_cmd_predict(const tc_cli *cli)
{
    return run(cli, PREDICT);
}

int tc_cmd_measure(const tc_cli *cli)
{
    return run(cli, MEASURE);
}

int tc_cmd_compare(const tc_cli *cli)
{
    return run(cli, COMPARE);
}
