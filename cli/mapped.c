/*
 * mapped.c - for `tcgen list` and `explain`: a contraction with operands
 * that the TAPP interface maps (conj(A), an index repeated within an
 * operand, an index only one operand has) loads as the contraction its
 * plan computes, with a description of each operand's mapping. The
 * mapping is TAPP's own (tc_tapp_map, docs/tapp.md): the tensors are
 * handed to it as the dense column-major tensors they are written as.
 */
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "cli.h"
#include "ast/error.h"
#include "parser/parser.h"
#include "planner/tapp_impl.h"

typedef struct names {
    int n;
    const char *name[3 * TC_MAX_RANK];
    int64_t size[3 * TC_MAX_RANK]; /* 0: no size given */
} names;

static int find(const names *v, const char *name)
{
    for (int i = 0; i < v->n; i++)
        if (!strcmp(v->name[i], name))
            return i;
    return -1;
}

/* How many times tensor t has index `name`. */
static int count_in(const tc_raw_tensor *t, const char *name)
{
    int n = 0;
    for (int k = 0; k < t->rank; k++)
        n += !strcmp(t->index[k], name);
    return n;
}

/* 0, or the exit status of an error (with its place) where the output
 * repeats an index or has one no operand has (TAPP refuses both). */
static int check_output(const tc_written *w)
{
    const tc_raw_tensor *c = &w->tensor[0];
    for (int k = 0; k < c->rank; k++) {
        tc_error e;
        int line = c->index_line[k], column = c->index_column[k];
        int earlier = 0;
        for (int j = 0; j < k; j++)
            earlier |= !strcmp(c->index[j], c->index[k]);
        if (earlier)
            tc_error_set(&e, TC_EINPUT, line, column,
                         "index '%s' appears twice in the output %s: only an operand may "
                         "repeat an index (a diagonal)", c->index[k], c->name);
        else if (!count_in(&w->tensor[1], c->index[k]) && !count_in(&w->tensor[2], c->index[k]))
            tc_error_set(&e, TC_EINPUT, line, column, "index '%s' of %s is in neither operand",
                         c->index[k], c->name);
        else
            continue;
        return tc_cli_fail(&e, NULL);
    }
    return 0;
}

/* 1 when w has something only the mapping takes. */
static int needs_mapping(const tc_written *w)
{
    const tc_raw_tensor *c = &w->tensor[0];
    int needs = 0;
    for (int x = 1; x <= 2; x++) {
        const tc_raw_tensor *t = &w->tensor[x];
        needs |= t->conj;
        for (int k = 0; k < t->rank; k++)
            needs |= count_in(t, t->index[k]) > 1 ||
                     (!count_in(c, t->index[k]) && !count_in(&w->tensor[3 - x], t->index[k]));
    }
    return needs;
}

/* The indices in order of first appearance, with the sizes given (the
 * positionals after the contraction): every size must name one of them. */
static int read_names(const tc_cli *cli, const tc_written *w, int need_sizes, names *v)
{
    tc_sizes sizes;
    tc_error err;
    memset(&sizes, 0, sizeof sizes);
    v->n = 0;
    for (int x = 0; x < 3; x++)
        for (int k = 0; k < w->tensor[x].rank; k++)
            if (find(v, w->tensor[x].index[k]) < 0)
                v->size[v->n] = 0, v->name[v->n++] = w->tensor[x].index[k];
    for (int i = 1; i < cli->npositional; i++)
        if (tc_parse_sizes(cli->positional[i], 1, &sizes, &err) != TC_OK)
            return tc_cli_fail(&err, "sizes");
    for (int i = 0; i < sizes.count; i++) {
        int l = find(v, sizes.entry[i].name);
        if (l >= 0)
            v->size[l] = sizes.entry[i].size;
        else if (!cli->allow_unused)
            return tc_cli_failf(TC_EINPUT, "sizes: '%s' is not an index of the contraction "
                                           "(--allow-unused accepts it)", sizes.entry[i].name);
    }
    for (int l = 0; l < v->n && need_sizes; l++)
        if (!v->size[l])
            return tc_cli_failf(TC_EINPUT, "no size given for index '%s'", v->name[l]);
    return 0;
}

/* The TAPP tensor of written tensor t: dense, column-major (extent 2
 * where no size is given: a dense tensor maps alike at any size). 0, or
 * the exit status of an error where its elements overflow 64 bits. */
static int tensor_info(const tc_raw_tensor *t, const names *v, TAPP_datatype type,
                       tc_tapp_info *info, int64_t *idx)
{
    int64_t stride = 1;
    memset(info, 0, sizeof *info);
    info->type = type;
    info->nmode = t->rank;
    for (int k = 0; k < t->rank; k++) {
        int l = find(v, t->index[k]);
        idx[k] = l;
        info->extent[k] = v->size[l] ? v->size[l] : 2;
        info->stride[k] = stride;
        if (stride > INT64_MAX / info->extent[k])
            return tc_cli_failf(TC_EINPUT, "sizes: %s's elements do not fit in 64 bits",
                                t->name);
        stride *= info->extent[k];
    }
    return 0;
}

/* printf at the end of buf. */
static void cat(char *buf, size_t n, const char *fmt, ...)
{
    size_t len = strlen(buf);
    va_list ap;
    va_start(ap, fmt);
    if (len < n)
        vsnprintf(buf + len, n - len, fmt, ap);
    va_end(ap);
}

/* "conj(A[a,a,i])": tensor t as written. */
static void written(const tc_raw_tensor *t, char *buf, size_t n)
{
    snprintf(buf, n, "%s%s[", t->conj ? "conj(" : "", t->name);
    for (int k = 0; k < t->rank; k++)
        cat(buf, n, "%s%s", k ? "," : "", t->index[k]);
    cat(buf, n, "]%s", t->conj ? ")" : "");
}

/* "A[a,i]": tensor x's plan modes, as the plan's contraction has it. */
static void planned(const tc_tapp_product *p, int x, const char *name, const names *v,
                    char *buf, size_t n)
{
    snprintf(buf, n, "%s[", name);
    for (int j = 0; j < p->t[x].nplan; j++)
        cat(buf, n, "%s%s", j ? "," : "", v->name[p->index[p->t[x].plan_label[j]]]);
    cat(buf, n, "]");
}

/* How operand x reaches the plan: in place, or packed, and why. */
static void describe(const tc_tapp_product *p, int x, const tc_raw_tensor *t, const names *v,
                     int sized, char *buf, size_t n)
{
    const tc_tapp_tensor *m = &p->t[x];
    char as_written[256], as_planned[256];
    written(t, as_written, sizeof as_written);
    planned(p, x, t->name, v, as_planned, sizeof as_planned);
    if (m->direct) {
        snprintf(buf, n, "%s: read in place", as_written);
        return;
    }
    snprintf(buf, n, "%s: packed into a dense %s before the plan runs (", as_written,
             as_planned);
    const char *sep = "";
    if (p->op[x] == TAPP_CONJUGATE)
        cat(buf, n, "conjugated"), sep = "; ";
    for (int j = 0; j < m->nplan; j++) {
        int l = m->plan_label[j], modes = 0;
        for (int k = 0; k < m->nmode; k++)
            modes += m->label[k] == l;
        if (modes < 2)
            continue;
        cat(buf, n, "%sthe diagonal over %s", sep, v->name[p->index[l]]);
        for (int k = 0, first = 1; k < m->nmode && sized; k++)
            if (m->label[k] == l)
                cat(buf, n, "%s%lld", first ? ", its stride " : " + ", (long long)m->stride[k]),
                    first = 0;
        if (sized)
            cat(buf, n, " = %lld", (long long)m->plan_stride[j]);
        sep = "; ";
    }
    for (int j = 0; j < m->nsum; j++)
        cat(buf, n, "%s%s summed out", sep, v->name[p->index[m->sum_label[j]]]), sep = "; ";
    cat(buf, n, "); the packing is not in the plan's times");
}

/* The TAPP mapping of w into p (its types from --type). */
static int map(const tc_cli *cli, const tc_written *w, const names *v, tc_tapp_product *p)
{
    static const char letters[] = "sdcz"; /* TAPP_F32, F64, C32, C64 */
    char letter = cli->type ? cli->type[0] : 'd';
    TAPP_datatype type = (TAPP_datatype)(strchr(letters, letter) - letters);
    tc_tapp_info info[4];
    int64_t idx[4][TC_MAX_RANK];
    TAPP_element_op op[4] = {TAPP_IDENTITY, TAPP_IDENTITY, TAPP_IDENTITY, TAPP_IDENTITY};
    for (int x = 0; x < 3; x++) { /* A, B, C from the operands and the output */
        const tc_raw_tensor *t = &w->tensor[(x + 1) % 3];
        int rc = tensor_info(t, v, type, &info[x], idx[x]);
        if (rc)
            return rc;
        tc_error err;
        if (t->conj && (letter == 's' || letter == 'd')) {
            tc_error_set(&err, TC_EINPUT, t->conj_line, t->conj_column,
                         "conj(%s) of a real tensor: conjugation needs a complex type "
                         "(--type c or z)", t->name);
            return tc_cli_fail(&err, NULL);
        }
        op[x] = t->conj ? TAPP_CONJUGATE : TAPP_IDENTITY;
    }
    info[3] = info[2];
    memcpy(idx[3], idx[2], sizeof idx[2]);
    const tc_tapp_info *const infos[4] = {&info[0], &info[1], &info[2], &info[3]};
    const int64_t *const idxs[4] = {idx[0], idx[1], idx[2], idx[3]};
    memset(p, 0, sizeof *p);
    TAPP_error e = tc_tapp_map(p, infos, op, TAPP_DEFAULT_PREC, idxs);
    if (e) {
        char why[TC_ERROR_MESSAGE_MAX];
        TAPP_explain_error(e, sizeof why, why);
        return tc_cli_failf(TC_EINPUT, "the TAPP mapping refuses the contraction: %s", why);
    }
    return 0;
}

/* The contraction p's plan computes (text) and the sizes of its indices. */
static void plan_text(const tc_tapp_product *p, const tc_written *w, const names *v, char *text,
                      size_t n, char *sizes, size_t ns)
{
    char tensor[3][256];
    for (int x = 0; x < 3; x++) /* A, B, C */
        planned(p, x, w->tensor[(x + 1) % 3].name, v, tensor[x], sizeof tensor[x]);
    snprintf(text, n, "%s %s ", tensor[2], w->accumulate ? "+=" : "=");
    if (w->alpha != 1.0)
        cat(text, n, "%.17g * ", w->alpha);
    cat(text, n, "%s * %s", tensor[0], tensor[1]);
    *sizes = '\0';
    for (int l = 0; l < p->nlabel; l++) { /* the indices left in A, B or C */
        int left = 0;
        for (int x = 0; x < 3; x++)
            for (int j = 0; j < p->t[x].nplan; j++)
                left |= p->t[x].plan_label[j] == l;
        if (left && v->size[p->index[l]])
            cat(sizes, ns, "%s%s=%lld", *sizes ? "," : "", v->name[p->index[l]],
                (long long)v->size[p->index[l]]);
    }
}

int tc_cli_load_mapped(const tc_cli *cli, int need_sizes, tc_contraction *out,
                       tc_cli_mapping *m)
{
    tc_written w;
    tc_error err;
    m->n = 0;
    /* a contraction from -f, or one that does not parse as written: as ever */
    if (cli->file || cli->npositional < 1 || tc_parse_written(cli->positional[0], &w, &err))
        return tc_cli_load(cli, need_sizes, out);
    if (!needs_mapping(&w))
        return tc_cli_load(cli, need_sizes, out);
    int rc = check_output(&w);
    if (rc)
        return rc;
    if (cli->strides || (cli->layout && strcmp(cli->layout, "col")))
        return tc_cli_failf(TC_EUSAGE, "usage: %s, with conj, a diagonal or an index summed "
                            "out: the mapping is shown for dense column-major tensors",
                            cli->strides ? "--strides" : "--layout");
    names v;
    tc_tapp_product p;
    rc = read_names(cli, &w, need_sizes, &v);
    if (!rc)
        rc = map(cli, &w, &v, &p);
    if (rc)
        return rc;
    if (p.elementwise)
        return tc_cli_failf(TC_EINPUT, "no index is contracted once the operands' own indices "
                            "are summed out: the TAPP interface computes it element by "
                            "element, without a plan");
    int sized = 1;
    for (int l = 0; l < v.n; l++)
        sized &= v.size[l] > 0;
    for (int x = 0; x < 2; x++)
        describe(&p, x, &w.tensor[x + 1], &v, sized, m->line[m->n++], sizeof m->line[0]);
    char sizes[1024];
    plan_text(&p, &w, &v, m->plan, sizeof m->plan, sizes, sizeof sizes);
    tc_cli planned_cli = *cli;
    planned_cli.positional[0] = m->plan;
    planned_cli.positional[1] = sizes;
    planned_cli.npositional = *sizes ? 2 : 1;
    return tc_cli_load(&planned_cli, need_sizes, out);
}

void tc_cli_print_mapping(const tc_cli *cli, FILE *out, const tc_cli_mapping *m)
{
    if (m->n == 0 || cli->format == TC_FMT_JSON)
        return;
    const char *prefix = cli->format == TC_FMT_TSV ? "# " : "";
    for (int i = 0; i < m->n; i++)
        fprintf(out, "%s%s\n", prefix, m->line[i]);
    fprintf(out, "%sthe plan computes %s\n%s", prefix, m->plan,
            cli->format == TC_FMT_TABLE ? "\n" : "");
}
