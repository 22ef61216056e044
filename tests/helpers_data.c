/* helpers_data.c - test data files. */
#include "helpers_data.h"

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
