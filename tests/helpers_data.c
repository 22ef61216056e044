/* helpers_data.c - test data files. */
#include "helpers_data.h"

#include <CUnit/CUnit.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void tc_test_data_path(const char *name, char *buf, size_t n)
{
    const char *dir = getenv("TC_TEST_DATA");
    snprintf(buf, n, "%s/%s", dir ? dir : "tests/data", name);
}

int tc_test_read_tsv(const char *name,
                     void (*fn)(char **fields, int nfields, int lineno, void *ctx), void *ctx)
{
    char path[1024], line[4096];
    tc_test_data_path(name, path, sizeof path);
    FILE *f = fopen(path, "r");
    if (!f)
        return -1;
    int count = 0, lineno = 0;
    while (fgets(line, sizeof line, f)) {
        lineno++;
        line[strcspn(line, "\r\n")] = '\0';
        if (line[0] == '\0' || line[0] == '#')
            continue;
        char *fields[16];
        int nf = 0;
        for (char *p = line; nf < 16;) {
            fields[nf++] = p;
            char *tab = strchr(p, '\t');
            if (!tab)
                break;
            *tab = '\0';
            p = tab + 1;
        }
        fn(fields, nf, lineno, ctx);
        count++;
    }
    fclose(f);
    return count;
}

char *tc_test_slurp(FILE *f)
{
    char *buf = NULL;
    size_t len = 0, cap = 0, n;
    char chunk[4096];
    rewind(f);
    while ((n = fread(chunk, 1, sizeof chunk, f)) > 0) {
        if (len + n + 1 > cap) {
            cap = 2 * (len + n + 1);
            char *p = realloc(buf, cap);
            if (!p) {
                free(buf);
                return NULL;
            }
            buf = p;
        }
        memcpy(buf + len, chunk, n);
        len += n;
    }
    if (!buf)
        buf = calloc(1, 1);
    else
        buf[len] = '\0';
    return buf;
}

void tc_test_golden(const char *name, const char *got, const char *what)
{
    char path[1024];
    tc_test_data_path(name, path, sizeof path);
    CU_ASSERT_PTR_NOT_NULL_FATAL(got);
    if (getenv("TC_WRITE_GOLDEN")) {
        FILE *w = fopen(path, "w");
        if (w) {
            fputs(got, w);
            fclose(w);
        }
    }
    FILE *f = fopen(path, "rb");
    char *want = f ? tc_test_slurp(f) : NULL;
    if (f)
        fclose(f);
    if (!want)
        fprintf(stderr, "\n  missing golden file %s\n", path);
    else if (strcmp(got, want) != 0)
        fprintf(stderr, "\n  %s differs from %s\n", what, path);
    CU_ASSERT(want != NULL && strcmp(got, want) == 0);
    free(want);
}
