/* table.c - rows printed as an aligned table, TSV or JSON. */
#include "table.h"

#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

struct tc_table {
    int ncols;
    char **headers;
    char *types;
    int nrows, cap;
    char **cells; /* nrows * ncols */
};

static char *dup(const char *s)
{
    size_t n = strlen(s) + 1;
    char *d = malloc(n);
    if (d)
        memcpy(d, s, n);
    return d;
}

tc_table *tc_table_new(int ncols, const char *const *headers, const char *types)
{
    tc_table *t = calloc(1, sizeof *t);
    if (!t)
        return NULL;
    t->ncols = ncols;
    t->headers = calloc((size_t)ncols, sizeof *t->headers);
    t->types = dup(types);
    if (!t->headers || !t->types) {
        tc_table_free(t);
        return NULL;
    }
    for (int c = 0; c < ncols; c++)
        if (!(t->headers[c] = dup(headers[c]))) {
            tc_table_free(t);
            return NULL;
        }
    return t;
}

int tc_table_add(tc_table *t, const char *const *cells)
{
    if (t->nrows == t->cap) {
        int cap = t->cap ? 2 * t->cap : 64;
        char **grown = realloc(t->cells, (size_t)cap * (size_t)t->ncols * sizeof *grown);
        if (!grown)
            return -1;
        t->cells = grown;
        t->cap = cap;
    }
    char **row = t->cells + (size_t)t->nrows * (size_t)t->ncols;
    for (int c = 0; c < t->ncols; c++)
        if (!(row[c] = dup(cells[c]))) {
            while (c--)
                free(row[c]);
            return -1;
        }
    t->nrows++;
    return 0;
}

int tc_table_addf(tc_table *t, const char *fmt, ...)
{
    char line[4096];
    const char *cells[64];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(line, sizeof line, fmt, ap);
    va_end(ap);
    int n = 0;
    for (char *p = line; n < t->ncols && n < 64;) {
        cells[n++] = p;
        char *tab = strchr(p, '\t');
        if (!tab)
            break;
        *tab = '\0';
        p = tab + 1;
    }
    while (n < t->ncols)
        cells[n++] = "";
    return tc_table_add(t, cells);
}

static void json_list(FILE *out, const char *s)
{
    fputc('[', out);
    if (strcmp(s, "-") != 0 && *s) {
        const char *p = s;
        for (int first = 1;; first = 0) {
            const char *comma = strchr(p, ',');
            size_t len = comma ? (size_t)(comma - p) : strlen(p);
            char item[256];
            snprintf(item, sizeof item, "%.*s", (int)len, p);
            if (!first)
                fputs(", ", out);
            tc_cli_json_string(out, item);
            if (!comma)
                break;
            p = comma + 1;
        }
    }
    fputc(']', out);
}

static void print_json(const tc_table *t, FILE *out)
{
    fputs("[\n", out);
    for (int r = 0; r < t->nrows; r++) {
        char **row = t->cells + (size_t)r * (size_t)t->ncols;
        fputs("  {", out);
        for (int c = 0; c < t->ncols; c++) {
            fputs(c ? ", " : "", out);
            tc_cli_json_string(out, t->headers[c]);
            fputs(": ", out);
            if (t->types[c] == 'n' && *row[c] && strcmp(row[c], "-") != 0)
                fputs(row[c], out);
            else if (t->types[c] == 'n')
                fputs("null", out);
            else if (t->types[c] == 'l')
                json_list(out, row[c]);
            else
                tc_cli_json_string(out, row[c]);
        }
        fputs(r + 1 < t->nrows ? "},\n" : "}\n", out);
    }
    fputs("]\n", out);
}

void tc_table_print(const tc_table *t, FILE *out, tc_format format)
{
    if (format == TC_FMT_JSON) {
        print_json(t, out);
        return;
    }
    size_t width[64] = {0};
    int table = format == TC_FMT_TABLE;
    for (int c = 0; c < t->ncols && c < 64 && table; c++) {
        width[c] = strlen(t->headers[c]);
        for (int r = 0; r < t->nrows; r++) {
            size_t w = strlen(t->cells[(size_t)r * (size_t)t->ncols + (size_t)c]);
            if (w > width[c])
                width[c] = w;
        }
    }
    for (int r = -1; r < t->nrows; r++) {
        char **row = r < 0 ? t->headers : t->cells + (size_t)r * (size_t)t->ncols;
        for (int c = 0; c < t->ncols; c++) {
            int last = c + 1 == t->ncols;
            if (!table)
                fprintf(out, "%s%s", row[c], last ? "\n" : "\t");
            else if (last)
                fprintf(out, "%s\n", row[c]);
            else if (t->types[c] == 'n')
                fprintf(out, "%*s  ", (int)width[c], row[c]);
            else
                fprintf(out, "%-*s  ", (int)width[c], row[c]);
        }
    }
}

void tc_table_free(tc_table *t)
{
    if (!t)
        return;
    for (int i = 0; i < t->nrows * t->ncols; i++)
        free(t->cells[i]);
    free(t->cells);
    for (int c = 0; t->headers && c < t->ncols; c++)
        free(t->headers[c]);
    free(t->headers);
    free(t->types);
    free(t);
}
