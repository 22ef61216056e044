/*
 * table.h - rows of cells printed as an aligned table, TSV or JSON, so that
 * every subcommand formats its output the same way.
 *
 * Column types (one letter per column in `types`):
 *   's' string, 'n' number (printed raw in JSON), 'l' comma-separated list
 *   (a JSON array of strings; "" or "-" is an empty array).
 */
#ifndef TC_CLI_TABLE_H
#define TC_CLI_TABLE_H

#include <stdio.h>

#include "cli.h"

typedef struct tc_table tc_table;

/* Creates an empty table; headers are copied. Returns NULL when out of
 * memory. The caller frees it with tc_table_free(). */
tc_table *tc_table_new(int ncols, const char *const *headers, const char *types);

/* Appends a row (ncols cells, copied). Returns 0, or -1 when out of memory. */
int tc_table_add(tc_table *t, const char *const *cells);

/* printf-style: appends a row whose cells are separated by '\t' in fmt's
 * output. Returns 0, or -1 when out of memory. */
int tc_table_addf(tc_table *t, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;

/* Prints: TSV with a header line; an aligned table; or a JSON array of
 * objects keyed by the headers. */
void tc_table_print(const tc_table *t, FILE *out, tc_format format);

/* NULL is a no-op. */
void tc_table_free(tc_table *t);

#endif
