/*
 * cmd_explain.c - `tcgen explain CONTRACTION SIZES NAME`: one algorithm's
 * AST, its cases with each operand's access and prefetch distances, each
 * case's setup list, occurrence count and median time. One algorithm per
 * run: several names are a usage error (exit 2), not sizes.
 */
#include <string.h>

#include "cli.h"
#include "commands.h"
#include "generator/generator.h"
#include "microbench/predict.h"
#include "planner/measure.h"
#include "predictor.h"
#include "table.h"

static const char *case_kind(const tc_mb_case *cs)
{
    static const char *const names[] = {"steady", "failure", "first"};
    return names[cs->kind];
}

static const char *prefetch_name(tc_mb_prefetch k)
{
    return k == TC_PREFETCH_LINE ? "line" : k == TC_PREFETCH_STREAM ? "stream" : "-";
}

/* "dgemv", or "copy A[i,:,:] -> T0" / "copy T0 -> C[a,:,c]". */
static void node_name(const tc_mb_case *cs, const tc_contraction *c, char *buf, size_t n)
{
    if (cs->node->kind == TC_NODE_KERNEL) {
        snprintf(buf, n, "%s", tc_kernel_type_name(cs->node->call->kernel, cs->node->call->type));
        return;
    }
    char slice[96];
    const tc_operand *side = NULL;
    tc_operand block, temp;
    tc_copy_dir dir;
    int t;
    if (cs->node->kind == TC_NODE_PERMUTE) { /* named as a copy of its block */
        tc_permutation_operands(cs->node->perm, c, &block, &temp);
        side = &block;
        dir = cs->node->perm->dir;
        t = cs->node->perm->temp;
    } else {
        side = &cs->node->copy->slice;
        dir = cs->node->copy->dir;
        t = cs->node->copy->temp;
    }
    tc_alg_format_operand(c, side, slice, sizeof slice);
    if (dir == TC_COPY_IN)
        snprintf(buf, n, "copy %s -> T%d", slice, t);
    else
        snprintf(buf, n, "copy T%d -> %s", t, slice);
}

/* The tensors that are views with gaps (--strides): their strides, and
 * how far their elements spread. */
static void print_views(FILE *out, const tc_contraction *c)
{
    for (int t = TC_C; t <= TC_B; t++) {
        const tc_tensor *x = &c->tensor[t];
        if (x->span == x->elements)
            continue;
        fprintf(out, "%s a view: strides ", x->name);
        for (int k = 0; k < x->rank; k++)
            fprintf(out, "%s%lld", k ? "," : "", (long long)x->stride[k]);
        fprintf(out, " (its %lld elements spread over %lld)\n", (long long)x->elements,
                (long long)x->span);
    }
}

static void print_text(FILE *out, const tc_mb_analysis *a, const tc_contraction *c,
                       const tc_cli_predictor *p, double total)
{
    char how[256], name[128], setup[512], op[96], kernels[TC_ERROR_MESSAGE_MAX];
    print_views(out, c);
    tc_alg_print(a->alg, c, out);
    tc_plan_setup_describe(p, how, sizeof how);
    fprintf(out, "\n%s\n", how);
    if (tc_mb_profile_kernels_note(&p->profile, kernels, sizeof kernels))
        fprintf(out, "warning: %s\n", kernels); /* every time below rests on them */
    fprintf(out, "kernel calls %lld%s; truncation at 5/4 of the LLC = %lld doubles\n",
            (long long)a->calls,
            a->alg->split > 1 ? " per thread (its threads predicted at once, the slowest kept)"
                              : "",
            (long long)(p->params.llc_bytes / 8 * 5 / 4));
    for (int i = 0; i < a->ncases; i++) {
        const tc_mb_case *cs = &a->cases[i];
        double part = (double)cs->count * cs->seconds;
        node_name(cs, c, name, sizeof name);
        fprintf(out, "\ncase %d: %s %s", i + 1, name, case_kind(cs));
        if (cs->kind == TC_CASE_FIRST)
            fprintf(out, " (loop %s)", c->index[a->alg->loop[cs->level]].name);
        fprintf(out, "  count %lld  median %.3e s  total %.3e s (%.1f %%)\n",
                (long long)cs->count, cs->seconds, part, total > 0 ? 100.0 * part / total : 0.0);
        fprintf(out, "  %-20s %10s %16s %9s %16s %10s\n", "operand", "elements",
                "access_distance", "prefetch", "prefetch_dist", "pf_elems");
        for (int j = 0; j < cs->noperands; j++) {
            const tc_mb_operand *o = &cs->operand[j];
            tc_alg_format_operand(c, &o->op, op, sizeof op);
            fprintf(out, "  %-20s %10lld %16lld %9s", op, (long long)o->elements,
                    (long long)o->access_distance, prefetch_name(o->prefetch));
            if (o->prefetch != TC_PREFETCH_NONE)
                fprintf(out, " %16lld %10lld", (long long)o->prefetch_distance,
                        (long long)o->prefetch_elements);
            fputc('\n', out);
        }
        tc_mb_format_setup(cs, c, setup, sizeof setup);
        fprintf(out, "  setup%s: %s\n", cs->truncated ? " (truncated)" : "", setup);
    }
    if (a->beta_pass_seconds > 0.0)
        fprintf(out, "\nbeta pass over C (the kernel cannot apply beta)  %.3e s (%.1f %%)\n",
                a->beta_pass_seconds, total > 0 ? 100.0 * a->beta_pass_seconds / total : 0.0);
    if (a->partial_sum_seconds > 0.0)
        fprintf(out, "\nthe other threads' partial C added into C  %.3e s (%.1f %%)\n",
                a->partial_sum_seconds, total > 0 ? 100.0 * a->partial_sum_seconds / total : 0.0);
    double flops = tc_contraction_flops(c);
    fprintf(out, "\npredicted %.6e s (%.3f GFLOP/s)\n", total,
            total > 0 ? flops / total * 1e-9 : 0.0);
}

static int fill_table(tc_table *t, const tc_mb_analysis *a, const tc_contraction *c)
{
    char name[128], setup[512], op[96];
    for (int i = 0; i < a->ncases; i++) {
        const tc_mb_case *cs = &a->cases[i];
        node_name(cs, c, name, sizeof name);
        tc_mb_format_setup(cs, c, setup, sizeof setup);
        for (int j = 0; j < cs->noperands; j++) {
            const tc_mb_operand *o = &cs->operand[j];
            tc_alg_format_operand(c, &o->op, op, sizeof op);
            if (tc_table_addf(t, "%d\t%s\t%s\t%s\t%lld\t%.6e\t%s\t%lld\t%lld\t%s\t%lld\t%lld\t%s",
                              i + 1, name, case_kind(cs),
                              cs->kind == TC_CASE_FIRST ? c->index[a->alg->loop[cs->level]].name
                                                        : "-",
                              (long long)cs->count, cs->seconds, op, (long long)o->elements,
                              (long long)o->access_distance, prefetch_name(o->prefetch),
                              (long long)o->prefetch_distance, (long long)o->prefetch_elements,
                              setup) != 0)
                return -1;
        }
    }
    return 0;
}

/* 1 when node n is part or inside of part's node. */
static int within(const tc_node *n, const tc_node *part)
{
    for (; n; n = n->parent)
        if (n == part)
            return 1;
    return 0;
}

/* The prediction of measured part i: its cases' count x median (a split
 * loop's: those of the nodes inside it, one thread's share, and the
 * partial C added into C after a contracted one). */
static double predicted_part(const tc_mb_analysis *a, const tc_rt_parts *m, int i)
{
    double s = m->node[i]->kind == TC_NODE_LOOP ? a->partial_sum_seconds : 0.0;
    for (int k = 0; k < a->ncases; k++)
        if (within(a->cases[k].node, m->node[i]))
            s += (double)a->cases[k].count * a->cases[k].seconds;
    return s;
}

/* A part's name: as its cases are named, or "split loop over X". */
static void part_name(const tc_mb_analysis *a, const tc_contraction *c, const tc_node *n,
                      char *buf, size_t size)
{
    if (n->kind == TC_NODE_LOOP) {
        snprintf(buf, size, "split loop over %s", c->index[n->index].name);
        return;
    }
    for (int k = 0; k < a->ncases; k++)
        if (a->cases[k].node == n) {
            node_name(&a->cases[k], c, buf, size);
            return;
        }
    snprintf(buf, size, "%s",
             n->kind == TC_NODE_KERNEL ? tc_kernel_type_name(n->call->kernel, n->call->type) : "?");
}

/* Each part's prediction against its measurement (tc_plan_measure_parts):
 * rows part, predicted_s, measured_s, error_pct; then the beta pass, what
 * the loops took between the parts (measured only) and the algorithm's total. */
static int fill_parts(tc_table *t, const tc_mb_analysis *a, const tc_contraction *c,
                      const tc_rt_parts *m, double measured, double predicted)
{
    char name[128];
    double sum = m->beta_pass_s;
    int rc = 0;
    for (int i = 0; i < m->n && !rc; i++) {
        double p = predicted_part(a, m, i);
        part_name(a, c, m->node[i], name, sizeof name);
        sum += m->seconds[i];
        rc = tc_table_addf(t, "%s\t%.6e\t%.6e\t%.1f", name, p, m->seconds[i],
                           100.0 * (p - m->seconds[i]) / m->seconds[i]);
    }
    if (!rc && (m->beta_pass_s > 0.0 || a->beta_pass_seconds > 0.0))
        rc = tc_table_addf(t, "beta pass over C\t%.6e\t%.6e\t%.1f", a->beta_pass_seconds,
                           m->beta_pass_s,
                           100.0 * (a->beta_pass_seconds - m->beta_pass_s) / m->beta_pass_s);
    if (!rc)
        rc = tc_table_addf(t, "between the parts\t-\t%.6e\t-",
                           measured > sum ? measured - sum : 0.0);
    if (!rc)
        rc = tc_table_addf(t, "algorithm\t%.6e\t%.6e\t%.1f", predicted, measured,
                           100.0 * (predicted - measured) / measured);
    return rc;
}

/* explain --measure: runs the algorithm with its parts timed and prints
 * them beside their predictions (as text after the cases on a terminal,
 * else the parts alone as a table). */
static int print_parts(const tc_cli *cli, FILE *out, const tc_mb_analysis *a,
                       const tc_contraction *c, const tc_cli_predictor *p, double total)
{
    static const char *const headers[] = {"part", "predicted_s", "measured_s", "error_pct"};
    tc_measure_options mo;
    tc_rt_parts m;
    double measured = 0.0;
    tc_error err;
    int rc = tc_cli_measure_options(cli, &mo);
    if (rc)
        return rc;
    mo.blas = p->blas;
    if (tc_plan_measure_parts(c, a->alg, &mo, &m, &measured, &err) != TC_OK)
        return tc_cli_fail(&err, NULL);
    tc_table *t = tc_table_new(4, headers, "snnn");
    if (!t || fill_parts(t, a, c, &m, measured, total) != 0) {
        tc_table_free(t);
        return tc_cli_failf(TC_ERESOURCE, "out of memory");
    }
    if (cli->format == TC_FMT_TABLE)
        fprintf(out, "\npredicted against measured (median of %d runs, each part timed in "
                     "the run)\n", mo.reps);
    tc_table_print(t, out, cli->format);
    tc_table_free(t);
    return 0;
}

/* The algorithm's name (*name): --algorithm or the last argument that is
 * not a size, removed from *args (a copy of *cli). 0, or the exit status
 * of a usage error. */
static int explain_name(const tc_cli *cli, tc_cli *args, const char **name_out)
{
    *args = *cli;
    const char *name = cli->algorithm;
    if (!name && args->npositional >= 2 && !strchr(args->positional[args->npositional - 1], '='))
        name = args->positional[--args->npositional];
    if (!name)
        return tc_cli_failf(TC_EUSAGE, "usage: explain needs an algorithm name after the sizes "
                                       "(see 'tcgen list')");
    /* one algorithm per run: a second name would otherwise be read as sizes */
    int names = 0;
    const char *other = NULL;
    for (int k = 1; k < cli->npositional; k++)
        if (!strchr(cli->positional[k], '=') && cli->positional[k] != name) {
            names++;
            other = cli->positional[k];
        }
    if (names > 0 || (cli->algorithm && args->npositional > 2))
        return tc_cli_failf(TC_EUSAGE,
                            "usage: explain takes one algorithm name, not '%s' and '%s'; "
                            "explain them one at a time, or rank them all with 'tcgen "
                            "predict'",
                            other ? other : args->positional[args->npositional - 1], name);
    *name_out = name;
    return 0;
}

int tc_cmd_explain(const tc_cli *cli)
{
    static const char *const headers[] = {
        "case", "node", "kind", "first_loop", "count", "median_s", "operand", "elements",
        "access_distance", "prefetch", "prefetch_distance", "prefetch_elements", "setup"};
    tc_cli args;
    const char *name = NULL;
    int rc = explain_name(cli, &args, &name);
    if (rc)
        return rc;
    tc_contraction c;
    tc_cli_mapping mapping;
    rc = tc_cli_load_mapped(&args, 1, &c, &mapping);
    if (rc)
        return rc;
    tc_algorithm_set *set = NULL;
    tc_error err;
    /* only the kernel the name ends in: a contraction with more algorithms
     * than tcgen enumerates at once may have few of it (as emit does) */
    int kernel = tc_cli_name_kernel(name);
    if (tc_gen_enumerate_families(&c, kernel >= 0 ? 1u << kernel : TC_KERNEL_MASK_ALL,
                                  TC_FAMILY_MASK_ALL, &set, &err) != TC_OK)
        return tc_cli_fail(&err, NULL);
    const tc_algorithm *alg = tc_gen_find(set, &c, name);
    if (!alg) {
        tc_alg_set_free(set);
        return tc_cli_failf(TC_EINPUT, "no algorithm named '%s' (see 'tcgen list')", name);
    }
    if (!alg->fits_int) {
        tc_alg_set_free(set);
        return tc_cli_failf(TC_EINPUT, "cannot predict %s: %s", alg->name, alg->why);
    }
    tc_cli_predictor p;
    tc_mb_analysis *a = NULL;
    double total = 0.0;
    rc = tc_cli_predictor_open(cli, &p);
    if (!rc && tc_mb_predict(p.sampler, &c, alg, &p.params, &total, &a, &err) != TC_OK)
        rc = tc_cli_fail(&err, NULL);
    FILE *out = rc ? NULL : tc_cli_open_output(cli);
    if (!rc && !out)
        rc = TC_ERESOURCE;
    if (!rc)
        tc_cli_print_mapping(cli, out, &mapping);
    if (!rc && cli->format == TC_FMT_TABLE) {
        print_text(out, a, &c, &p, total);
        if (cli->measure)
            rc = print_parts(cli, out, a, &c, &p, total);
    } else if (!rc && cli->measure) {
        rc = print_parts(cli, out, a, &c, &p, total);
    } else if (!rc) {
        tc_table *t = tc_table_new(13, headers, "nsssnnsnnsnns");
        if (!t || fill_table(t, a, &c) != 0) {
            rc = tc_cli_failf(TC_ERESOURCE, "out of memory");
        } else {
            tc_table_print(t, out, cli->format);
            if (cli->format == TC_FMT_TSV)
            {
                if (a->beta_pass_seconds > 0.0)
                    fprintf(out, "# beta_pass_s %.6e\n", a->beta_pass_seconds);
                char kernels[TC_ERROR_MESSAGE_MAX];
                if (tc_mb_profile_kernels_note(&p.profile, kernels, sizeof kernels))
                    fprintf(out, "# warning %s\n", kernels);
                fprintf(out, "# predicted_s %.6e\n", total);
            }
        }
        tc_table_free(t);
    }
    if (out) {
        int closed = tc_cli_close_output(out);
        rc = rc ? rc : closed;
    }
    tc_mb_analysis_free(a);
    if (p.blas)
        tc_cli_predictor_close(&p);
    tc_alg_set_free(set);
    return rc;
}
