/* common.c - what every subcommand shares: loading the problem, messages, output. */
#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "cli.h"
#include "planner/problem.h"

#include "ast/error.h"
#include "generator/generator.h"
#include "parser/parser.h"
#include "runtime/file.h"

int tc_cli_failf(int status, const char *fmt, ...)
{
    va_list ap;
    fputs("tcgen: error: ", stderr);
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fputc('\n', stderr);
    return status;
}

static void print_located(const char *kind, const tc_error *e, const char *where)
{
    fprintf(stderr, "tcgen: %s: ", kind);
    if (where && e->line > 0)
        fprintf(stderr, "%s:%d:%d: ", where, e->line, e->column);
    else if (e->line > 0)
        fprintf(stderr, "%d:%d: ", e->line, e->column);
    else if (where)
        fprintf(stderr, "%s: ", where);
    fprintf(stderr, "%s\n", e->message);
}

int tc_cli_fail(const tc_error *err, const char *where)
{
    print_located("error", err, where);
    return err->code == TC_OK ? TC_EINTERNAL : (int)err->code;
}

void tc_cli_warn(const tc_cli *cli, const tc_error *w, const char *where)
{
    if (!cli->quiet && w->code != TC_OK)
        print_located("warning", w, where);
}

static int tc_cli_load_sweep(const tc_cli *cli, int need_sizes, const tc_sweep *sw, int point,
                             tc_contraction *out);

int tc_cli_load(const tc_cli *cli, int need_sizes, tc_contraction *out)
{
    return tc_cli_load_sweep(cli, need_sizes, NULL, 0, out);
}

int tc_cli_load_at(const tc_cli *cli, const tc_sweep *sw, int point, tc_contraction *out)
{
    return tc_cli_load_sweep(cli, 1, sw, point, out);
}

/* Replaces the sizes of the swept indices by their value at `point`. */
static void apply_sweep(const tc_sweep *sw, int point, tc_sizes *sizes)
{
    int n = 0;
    for (int i = 0; i < sizes->count; i++) {
        int swept = 0;
        for (int k = 0; k < sw->nnames; k++)
            swept |= strcmp(sizes->entry[i].name, sw->names[k]) == 0;
        if (!swept)
            sizes->entry[n++] = sizes->entry[i];
    }
    for (int k = 0; k < sw->nnames && n < TC_MAX_SIZES; k++) {
        memset(&sizes->entry[n], 0, sizeof sizes->entry[n]);
        snprintf(sizes->entry[n].name, sizeof sizes->entry[n].name, "%s", sw->names[k]);
        sizes->entry[n++].size = sw->value[point];
    }
    sizes->count = n;
}

static int tc_cli_load_sweep(const tc_cli *cli, int need_sizes, const tc_sweep *sw, int point,
                             tc_contraction *out)
{
    tc_error err, warning;
    tc_sizes sizes;
    tc_contraction c;
    int first_size = 0;
    memset(&sizes, 0, sizeof sizes);
    if (cli->file) {
        if (tc_parse_file(cli->file, &c, &sizes, &err) != TC_OK)
            return tc_cli_fail(&err, err.line > 0 ? cli->file : NULL);
    } else {
        if (cli->npositional < 1)
            return tc_cli_failf(TC_EUSAGE, "missing CONTRACTION (try 'tcgen %s --help')",
                                cli->command[0] ? cli->command : "");
        if (tc_parse(cli->positional[0], &c, &err) != TC_OK)
            return tc_cli_fail(&err, NULL);
        first_size = 1;
    }
    for (int i = first_size; i < cli->npositional; i++)
        if (tc_parse_sizes(cli->positional[i], 1, &sizes, &err) != TC_OK)
            return tc_cli_fail(&err, "sizes");
    if (sw)
        apply_sweep(sw, point, &sizes);
    if (cli->type) /* checked by main: s, d, c or z */
        c.type = (tc_type)tc_type_from_letter(cli->type[0]);
    if (sizes.count == 0 && !need_sizes) {
        *out = c;
        return 0;
    }
    if (sizes.count == 0)
        return tc_cli_failf(TC_EUSAGE, "missing SIZES, e.g. 'a=b=c=400,i=8' (try 'tcgen %s --help')",
                            cli->command[0] ? cli->command : "");
    if (tc_contraction_set_sizes(&c, &sizes, out, &err, &warning) != TC_OK)
        return tc_cli_fail(&err, NULL);
    if (cli->strides && strcmp(cli->strides, "param") != 0) { /* as a wisdom layout's */
        char layout[1024];
        unsigned flags;
        snprintf(layout, sizeof layout, "col;%s", cli->strides);
        if (tc_plan_layout_read(layout, out, &flags, &err) != TC_OK)
            return tc_cli_failf(TC_EUSAGE, "usage: --strides '%s': %s (e.g. "
                                           "'C=1,40,1800;A=1,40', the first stride 1)",
                                cli->strides, err.message);
    }
    if (warning.code != TC_OK && !cli->allow_unused) { /* a typo for another index? */
        size_t n = strlen(warning.message);
        snprintf(warning.message + n, sizeof warning.message - n, " (--allow-unused accepts it)");
        return tc_cli_fail(&warning, cli->file ? cli->file : "sizes");
    }
    tc_cli_warn(cli, &warning, cli->file ? cli->file : "sizes");
    return 0;
}

/* -o FILE is written whole or not at all: the output collects in memory
 * and replaces the file at close (runtime/file.h), so a failed or killed
 * run never leaves a truncated file. One output per run. */
static struct {
    const char *path;
    char *text;
    size_t len;
} pending;

FILE *tc_cli_open_output(const tc_cli *cli)
{
    if (!cli->output || strcmp(cli->output, "-") == 0)
        return stdout;
    FILE *f = open_memstream(&pending.text, &pending.len);
    if (!f)
        tc_cli_failf(TC_ERESOURCE, "out of memory");
    else
        pending.path = cli->output;
    return f;
}

int tc_cli_close_output(FILE *f)
{
    if (f == stdout) {
        if (ferror(f) || fflush(f) != 0)
            return tc_cli_failf(TC_ERESOURCE, "error writing output: %s", strerror(errno));
        return 0;
    }
    int bad = ferror(f) != 0;
    bad |= fclose(f) != 0;
    tc_error err;
    int rc = 0;
    if (bad)
        rc = tc_cli_failf(TC_ERESOURCE, "out of memory writing '%s'", pending.path);
    else if (tc_rt_file_replace(pending.path, pending.text, pending.len, &err) != TC_OK)
        rc = tc_cli_fail(&err, NULL);
    free(pending.text);
    pending.text = NULL;
    pending.path = NULL;
    return rc;
}

int tc_cli_write_fortran(const tc_cli *cli, const tc_algorithm *alg, const tc_contraction *c,
                         const tc_emit_options *opt)
{
    char *text = NULL;
    size_t len = 0;
    FILE *mem = open_memstream(&text, &len);
    if (!mem)
        return tc_cli_failf(TC_ERESOURCE, "cannot write '%s': out of memory", cli->fortran);
    tc_error err;
    tc_status s = tc_emit_fortran(alg, c, opt, mem, &err);
    if (fclose(mem) != 0 && s == TC_OK)
        s = tc_error_set(&err, TC_ERESOURCE, 0, 0, "cannot write '%s': out of memory",
                         cli->fortran);
    if (s == TC_OK)
        s = tc_rt_file_replace(cli->fortran, text, len, &err);
    free(text);
    return s == TC_OK ? 0 : tc_cli_fail(&err, NULL);
}

void tc_cli_json_string(FILE *f, const char *s)
{
    fputc('"', f);
    for (; *s; s++) {
        unsigned char ch = (unsigned char)*s;
        if (ch == '"' || ch == '\\')
            fprintf(f, "\\%c", ch);
        else if (ch == '\n')
            fputs("\\n", f);
        else if (ch == '\t')
            fputs("\\t", f);
        else if (ch < 0x20)
            fprintf(f, "\\u%04x", ch);
        else
            fputc(ch, f);
    }
    fputc('"', f);
}

/* The command line, shell-quoted where needed, for the emitted header. */
char *tc_cli_command_line(const tc_cli *cli)
{
    size_t n = 1;
    for (int i = 0; i < cli->argc; i++)
        n += 4 * strlen(cli->argv[i]) + 3;
    char *s = malloc(n), *p = s;
    if (!s)
        return NULL;
    for (int i = 0; i < cli->argc; i++) {
        const char *a = cli->argv[i];
        if (i)
            *p++ = ' ';
        if (i == 0 && strrchr(a, '/')) /* the program's own name */
            a = strrchr(a, '/') + 1;
        int plain = a[0] != '\0' && strspn(a, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"
                                              "0123456789_=,./:+-@%") == strlen(a);
        if (plain) {
            p += sprintf(p, "%s", a);
            continue;
        }
        if (strchr(a, '\'') && strpbrk(a, "\"$`\\!") == NULL) { /* "i'c-dgemm" */
            p += sprintf(p, "\"%s\"", a);
            continue;
        }
        *p++ = '\'';
        for (; *a; a++) {
            if (*a == '\'')
                p += sprintf(p, "'\\''");
            else
                *p++ = *a;
        }
        *p++ = '\'';
    }
    *p = '\0';
    return s;
}

int tc_cli_check_emit_names(const tc_cli *cli)
{
    tc_error err;
    tc_status s = cli->fortran ? tc_emit_fortran_check(cli->function, &err) :
                                 tc_gen_check_function_name(cli->function, &err);
    if (s != TC_OK)
        return tc_cli_fail(&err, NULL);
    if (cli->fortran && (!cli->fortran[0] || strcmp(cli->fortran, "-") == 0))
        return tc_cli_failf(TC_EUSAGE, "--fortran needs a file name (the C goes to -o FILE "
                                       "or standard output)");
    struct stat st; /* the same device or pipe twice is fine: `> /dev/null` twice */
    if (cli->fortran && cli->output && strcmp(cli->fortran, cli->output) == 0 &&
        !(stat(cli->output, &st) == 0 && !S_ISREG(st.st_mode)))
        return tc_cli_failf(TC_EUSAGE, "--fortran and -o name the same file '%s'",
                            cli->fortran);
    return 0;
}

int tc_cli_masks(const tc_cli *cli, unsigned *kernels, unsigned *families)
{
    tc_error err;
    *kernels = TC_KERNEL_MASK_ALL;
    *families = TC_FAMILY_MASK_ALL;
    if ((cli->kernels && tc_gen_parse_kernels(cli->kernels, "--kernels", kernels, &err) != TC_OK) ||
        (cli->family && tc_gen_parse_family(cli->family, "--family", families, &err) != TC_OK))
        return tc_cli_fail(&err, NULL);
    return 0;
}

int tc_cli_strides_param(const tc_cli *cli)
{
    return cli->strides && (cli->generic || strcmp(cli->strides, "param") == 0);
}

int tc_cli_layout(const tc_cli *cli, int *row_major)
{
    *row_major = 0;
    if (!cli->layout || strcmp(cli->layout, "col") == 0)
        return 0;
    if (strcmp(cli->layout, "row") == 0) {
        *row_major = 1;
        return 0;
    }
    return tc_cli_failf(TC_EUSAGE, "usage: unknown layout '%s' (use col for Fortran order, "
                                   "row for C order)", cli->layout);
}

int tc_cli_write_c(const tc_cli *cli, tc_status (*emit)(const void *data, FILE *out,
                                                         tc_error *err), const void *data)
{
    FILE *out = tc_cli_open_output(cli);
    if (!out)
        return TC_ERESOURCE;
    if (out == stdout) { /* nothing reaches standard output on error either */
        char *text = NULL;
        size_t len = 0;
        FILE *mem = open_memstream(&text, &len);
        if (!mem)
            return tc_cli_failf(TC_ERESOURCE, "out of memory");
        tc_error err;
        tc_status s = emit(data, mem, &err);
        int bad = fclose(mem) != 0;
        if (s == TC_OK && !bad)
            fwrite(text, 1, len, stdout);
        free(text);
        if (s != TC_OK)
            return tc_cli_fail(&err, NULL);
        return bad ? tc_cli_failf(TC_ERESOURCE, "out of memory") : tc_cli_close_output(stdout);
    }
    tc_error err;
    tc_status s = emit(data, out, &err);
    if (s != TC_OK) {
        fclose(out);
        free(pending.text);
        pending.text = NULL;
        return tc_cli_fail(&err, NULL);
    }
    return tc_cli_close_output(out);
}
