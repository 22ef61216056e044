/* cmd_parse.c - `tcgen parse CONTRACTION [SIZES]`: the IR as tcgen sees it. */
#include <inttypes.h>
#include <string.h>

#include "cli.h"
#include "commands.h"
#include "table.h"

static const char *const tensor_roles[3] = {"output", "input", "input"};

static void join_indices(const tc_contraction *c, const tc_tensor *t, char *buf, size_t n)
{
    size_t len = 0;
    buf[0] = '\0';
    for (int k = 0; k < t->rank && len < n; k++)
        len += (size_t)snprintf(buf + len, n - len, "%s%s", k ? "," : "", c->index[t->index[k]].name);
    if (t->rank == 0)
        snprintf(buf, n, "-");
}

static void join_strides(const tc_contraction *c, const tc_tensor *t, char *buf, size_t n)
{
    size_t len = 0;
    buf[0] = '\0';
    for (int k = 0; k < t->rank && len < n; k++)
        len += (size_t)snprintf(buf + len, n - len, "%s%" PRId64, k ? "," : "", t->stride[k]);
    if (t->rank == 0 || !c->has_sizes)
        snprintf(buf, n, "-");
}

static void print_json(const tc_contraction *c, const char *form, FILE *out)
{
    char idx[512], str[512];
    fputs("{\n  \"contraction\": ", out);
    tc_cli_json_string(out, form);
    fprintf(out, ",\n  \"alpha\": %.17g,\n  \"beta\": %.17g,\n", c->alpha, c->beta);
    if (c->has_sizes)
        fprintf(out, "  \"hash\": \"%016" PRIx64 "\",\n  \"flops\": %.17g,\n",
                tc_contraction_hash(c), tc_contraction_flops(c));
    fputs("  \"indices\": [\n", out);
    for (int i = 0; i < c->nindex; i++) {
        fputs("    {\"name\": ", out);
        tc_cli_json_string(out, c->index[i].name);
        fprintf(out, ", \"role\": \"%s\", \"size\": ", tc_role_name(c->index[i].role));
        if (c->has_sizes)
            fprintf(out, "%" PRId64 "}", c->index[i].size);
        else
            fputs("null}", out);
        fputs(i + 1 < c->nindex ? ",\n" : "\n", out);
    }
    fputs("  ],\n  \"tensors\": [\n", out);
    for (int t = 0; t < 3; t++) {
        const tc_tensor *x = &c->tensor[t];
        join_indices(c, x, idx, sizeof idx);
        join_strides(c, x, str, sizeof str);
        fputs("    {\"name\": ", out);
        tc_cli_json_string(out, x->name);
        fprintf(out, ", \"role\": \"%s\", \"indices\": [", tensor_roles[t]);
        for (int k = 0; k < x->rank; k++) {
            fputs(k ? ", " : "", out);
            tc_cli_json_string(out, c->index[x->index[k]].name);
        }
        fputs("], \"strides\": ", out);
        if (c->has_sizes) {
            fputc('[', out);
            for (int k = 0; k < x->rank; k++)
                fprintf(out, "%s%" PRId64, k ? ", " : "", x->stride[k]);
            fprintf(out, "], \"bytes\": %" PRId64 "}", tc_tensor_bytes(c, t));
        } else {
            fputs("null, \"bytes\": null}", out);
        }
        fputs(t < 2 ? ",\n" : "\n", out);
    }
    fputs("  ]\n}\n", out);
}

static int print_rows(const tc_contraction *c, const char *form, const tc_cli *cli, FILE *out)
{
    static const char *const headers[] = {"kind", "name", "role", "size", "indices", "strides", "bytes"};
    const char *prefix = cli->format == TC_FMT_TSV ? "# " : "";
    char idx[512], str[512];
    tc_table *t = tc_table_new(7, headers, "sssnlln");
    if (!t)
        return tc_cli_failf(TC_ERESOURCE, "out of memory");
    fprintf(out, "%scontraction %s\n%salpha %.17g\n%sbeta %.17g\n", prefix, form, prefix,
            c->alpha, prefix, c->beta);
    if (c->has_sizes)
        fprintf(out, "%shash %016" PRIx64 "\n%sflops %.6g\n", prefix, tc_contraction_hash(c),
                prefix, tc_contraction_flops(c));
    int bad = 0;
    for (int i = 0; i < c->nindex; i++) {
        char size[32] = "-";
        if (c->has_sizes)
            snprintf(size, sizeof size, "%" PRId64, c->index[i].size);
        bad |= tc_table_addf(t, "index\t%s\t%s\t%s\t-\t-\t-", c->index[i].name,
                             tc_role_name(c->index[i].role), size);
    }
    for (int k = 0; k < 3; k++) {
        const tc_tensor *x = &c->tensor[k];
        char bytes[32] = "-";
        join_indices(c, x, idx, sizeof idx);
        join_strides(c, x, str, sizeof str);
        if (c->has_sizes)
            snprintf(bytes, sizeof bytes, "%" PRId64, tc_tensor_bytes(c, k));
        bad |= tc_table_addf(t, "tensor\t%s\t%s\t-\t%s\t%s\t%s", x->name, tensor_roles[k], idx,
                             str, bytes);
    }
    if (bad) {
        tc_table_free(t);
        return tc_cli_failf(TC_ERESOURCE, "out of memory");
    }
    tc_table_print(t, out, cli->format);
    tc_table_free(t);
    return 0;
}

int tc_cli_print_contraction(const tc_cli *cli, const tc_contraction *c)
{
    char form[1024];
    int rc = 0;
    tc_contraction_format(c, form, sizeof form);
    FILE *out = tc_cli_open_output(cli);
    if (!out)
        return TC_ERESOURCE;
    if (cli->format == TC_FMT_JSON)
        print_json(c, form, out);
    else
        rc = print_rows(c, form, cli, out);
    int rc2 = tc_cli_close_output(out);
    return rc ? rc : rc2;
}

int tc_cmd_parse(const tc_cli *cli)
{
    tc_contraction c;
    int rc = tc_cli_load(cli, 0, &c);
    return rc ? rc : tc_cli_print_contraction(cli, &c);
}
