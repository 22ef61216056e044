/* helpers_data.h - locating and reading test data files (tests/data). */
#ifndef TC_TESTS_HELPERS_DATA_H
#define TC_TESTS_HELPERS_DATA_H

#include <stddef.h>
#include <stdio.h>

/* Writes "$TC_TEST_DATA/name" (default tests/data/name) into buf. */
void tc_test_data_path(const char *name, char *buf, size_t n);

/*
 * Calls fn(fields, nfields, lineno, ctx) for every line of a tab-separated
 * data file, skipping blank lines and lines starting with '#'. Returns the
 * number of lines read, or -1 if the file cannot be opened.
 */
int tc_test_read_tsv(const char *name,
                     void (*fn)(char **fields, int nfields, int lineno, void *ctx),
                     void *ctx);

/* Reads f from its start to the end into a NUL-terminated heap string
 * (caller frees), or NULL when out of memory. Does not close f. */
char *tc_test_slurp(FILE *f);

/*
 * Compares `got` with the golden file tests/data/<name> inside a CUnit test;
 * a difference or a missing file fails the test with a message naming
 * `what`. With TC_WRITE_GOLDEN set in the environment the file is rewritten
 * first (inspect it before committing it).
 */
void tc_test_golden(const char *name, const char *got, const char *what);

#endif
