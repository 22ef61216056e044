/*
 * wisdom.c - remembered decisions, their text file, and the lock that lets
 * any thread plan at any time.
 *
 * Import reads the whole file into a private list and checks every field of
 * every line (the contraction parses, the sizes are complete, the algorithm
 * is one of the contraction's) before merging: a damaged file changes
 * nothing.
 */
#include "planner/wisdom.h"

#include <errno.h>
#include <math.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "ast/error.h"
#include "generator/generator.h"
#include "planner/plan.h"

#define HEADER "# tcgen wisdom 1"
#define NFIELDS 9

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static tc_wisdom_entry *entries;
static int count, capacity;

static int same_key(const tc_wisdom_entry *a, const tc_wisdom_entry *b)
{
    return strcmp(a->contraction, b->contraction) == 0 && strcmp(a->sizes, b->sizes) == 0 &&
           strcmp(a->layout, b->layout) == 0 && strcmp(a->blas, b->blas) == 0 &&
           a->threads == b->threads && strcmp(a->machine, b->machine) == 0;
}

/* Adds or replaces in a list; the caller holds the lock if it is the global one. */
static int list_put(tc_wisdom_entry **list, int *n, int *cap, const tc_wisdom_entry *e)
{
    for (int k = 0; k < *n; k++)
        if (same_key(&(*list)[k], e)) {
            (*list)[k] = *e;
            return 0;
        }
    if (*n == *cap) {
        int c = *cap ? 2 * *cap : 16;
        tc_wisdom_entry *p = realloc(*list, (size_t)c * sizeof *p);
        if (!p)
            return -1;
        *list = p;
        *cap = c;
    }
    (*list)[(*n)++] = *e;
    return 0;
}

int tc_wisdom_lookup(tc_wisdom_entry *e)
{
    int found = 0;
    pthread_mutex_lock(&lock);
    for (int k = 0; k < count && !found; k++)
        if (same_key(&entries[k], e)) {
            *e = entries[k];
            found = 1;
        }
    pthread_mutex_unlock(&lock);
    return found;
}

tc_status tc_wisdom_add(const tc_wisdom_entry *e, tc_error *err)
{
    pthread_mutex_lock(&lock);
    int r = list_put(&entries, &count, &capacity, e);
    pthread_mutex_unlock(&lock);
    if (r)
        return tc_error_set(err, TC_ERESOURCE, 0, 0, "out of memory adding to the wisdom");
    return TC_OK;
}

int tc_wisdom_count(void)
{
    pthread_mutex_lock(&lock);
    int n = count;
    pthread_mutex_unlock(&lock);
    return n;
}

void tc_wisdom_forget(void)
{
    pthread_mutex_lock(&lock);
    free(entries);
    entries = NULL;
    count = capacity = 0;
    pthread_mutex_unlock(&lock);
}

tc_status tc_wisdom_export_file(const char *path, tc_error *err)
{
    if (!path)
        return tc_error_set(err, TC_EUSAGE, 0, 0, "tc_wisdom_export_file: NULL path");
    FILE *f = fopen(path, "w");
    if (!f)
        return tc_error_set(err, TC_ERESOURCE, 0, 0, "cannot write wisdom file '%s': %s", path,
                            strerror(errno));
    fputs(HEADER "\n# contraction\tsizes\tlayout\tblas\tthreads\tmachine\talgorithm\tseconds"
                 "\torigin\n",
          f);
    pthread_mutex_lock(&lock);
    for (int k = 0; k < count; k++) {
        const tc_wisdom_entry *e = &entries[k];
        fprintf(f, "%s\t%s\t%s\t%s\t%d\t%s\t%s\t%.6g\t%s\n", e->contraction, e->sizes,
                e->layout, e->blas, e->threads, e->machine, e->algorithm, e->seconds,
                e->origin);
    }
    pthread_mutex_unlock(&lock);
    int bad = ferror(f);
    if (fclose(f) != 0 || bad)
        return tc_error_set(err, TC_ERESOURCE, 0, 0, "cannot write wisdom file '%s': write "
                                                     "error", path);
    return TC_OK;
}

/* Copies a field into dst; 0 when it does not fit or is empty. */
static int take(char *dst, size_t n, const char *s)
{
    size_t len = strlen(s);
    if (len == 0 || len >= n)
        return 0;
    memcpy(dst, s, len + 1);
    return 1;
}

/* Checks one entry line (split into fields at col[]) and fills *e. */
static tc_status parse_entry(char **field, const int *col, int line, tc_wisdom_entry *e,
                             tc_error *err)
{
    static const char *const names[NFIELDS] = {"contraction", "sizes", "layout", "BLAS library",
                                               "thread count", "machine", "algorithm",
                                               "seconds", "origin"};
    memset(e, 0, sizeof *e);
    char *end;
    long threads = strtol(field[4], NULL, 10); /* digits only: checked below */
    e->seconds = strtod(field[7], &end);
    int bad = -1;
    if (!take(e->contraction, sizeof e->contraction, field[0]))
        bad = 0;
    else if (!take(e->sizes, sizeof e->sizes, field[1]))
        bad = 1;
    else if (strcmp(field[2], "col") && strcmp(field[2], "row"))
        bad = 2;
    else if (!take(e->blas, sizeof e->blas, field[3]))
        bad = 3;
    else if (!field[4][0] || strspn(field[4], "0123456789") != strlen(field[4]) ||
             threads < 1 || threads > 1024)
        bad = 4;
    else if (!take(e->machine, sizeof e->machine, field[5]))
        bad = 5;
    else if (!take(e->algorithm, sizeof e->algorithm, field[6]))
        bad = 6;
    else if (!field[7][0] || *end || !isfinite(e->seconds) ||
             e->seconds <= 0)
        bad = 7;
    else if (strcmp(field[8], "estimate") && strcmp(field[8], "measure"))
        bad = 8;
    if (bad >= 0)
        return tc_error_set(err, TC_EINPUT, line, col[bad], "bad %s '%.60s'%s", names[bad],
                            field[bad],
                            bad == 2 ? " (use col or row)" :
                            bad == 8 ? " (use estimate or measure)" : "");
    snprintf(e->layout, sizeof e->layout, "%s", field[2]);
    snprintf(e->origin, sizeof e->origin, "%s", field[8]);
    e->threads = (int)threads;

    /* The problem must be one tcgen can plan, and the algorithm one of its. */
    tc_contraction user, storage;
    tc_error sub;
    unsigned flags = strcmp(e->layout, "row") == 0 ? TC_ROW_MAJOR : 0;
    int which;
    tc_status s = tc_plan_problem(e->contraction, e->sizes, flags, &user, &storage, &which,
                                  &sub);
    if (s != TC_OK) {
        return tc_error_set(err, TC_EINPUT, line, col[which] + (sub.column ? sub.column - 1 : 0),
                            "%s", sub.message);
    }
    char form[1024], sizes[1024];
    tc_contraction_format(&user, form, sizeof form);
    tc_contraction_format_sizes(&user, sizes, sizeof sizes);
    if (strcmp(form, e->contraction) || strcmp(sizes, e->sizes))
        return tc_error_set(err, TC_EINPUT, line, col[strcmp(form, e->contraction) ? 0 : 1],
                            "not in normal form: write '%s' with sizes '%s'", form, sizes);
    tc_algorithm_set *set = NULL;
    s = tc_gen_enumerate(&storage, TC_KERNEL_MASK_ALL, &set, &sub);
    if (s != TC_OK)
        return tc_error_set(err, s, line, col[0], "%s", sub.message);
    int known = tc_alg_set_find(set, e->algorithm) != NULL;
    tc_alg_set_free(set);
    if (!known)
        return tc_error_set(err, TC_EINPUT, line, col[6], "'%s' is not an algorithm of %s",
                            e->algorithm, e->contraction);
    return TC_OK;
}

/* Reads and checks every entry of f into a new list. Errors are located
 * by line and column of the file. */
static tc_status read_entries(FILE *f, tc_wisdom_entry **list, int *n, int *cap, tc_error *err)
{
    char buf[4096];
    int line = 0;
    while (fgets(buf, sizeof buf, f)) {
        line++;
        size_t len = strlen(buf);
        if (len == sizeof buf - 1 && buf[len - 1] != '\n')
            return tc_error_set(err, TC_EINPUT, line, 1, "line longer than %zu bytes",
                                sizeof buf - 2);
        while (len && (buf[len - 1] == '\n' || buf[len - 1] == '\r'))
            buf[--len] = '\0';
        if (line == 1) {
            if (strcmp(buf, HEADER) != 0)
                return tc_error_set(err, TC_EINPUT, 1, 1,
                                    "not a tcgen wisdom file: the first line must be '%s'",
                                    HEADER);
            continue;
        }
        if (buf[0] == '#' || strspn(buf, " \t") == len)
            continue;
        char *field[NFIELDS];
        int col[NFIELDS], nf = 0;
        char *p = buf;
        while (nf < NFIELDS) {
            field[nf] = p;
            col[nf++] = (int)(p - buf) + 1;
            char *tab = strchr(p, '\t');
            if (!tab || nf == NFIELDS) /* a tab left in the last field: too many */
                break;
            *tab = '\0';
            p = tab + 1;
        }
        if (nf < NFIELDS || strchr(p, '\t'))
            return tc_error_set(err, TC_EINPUT, line, 1,
                                "an entry has %d tab-separated fields: contraction, sizes, "
                                "layout, blas, threads, machine, algorithm, seconds, origin "
                                "(this line has %s)",
                                NFIELDS, nf < NFIELDS ? "fewer" : "more");
        tc_wisdom_entry e;
        tc_status s = parse_entry(field, col, line, &e, err);
        if (s != TC_OK)
            return s;
        if (list_put(list, n, cap, &e))
            return tc_error_set(err, TC_ERESOURCE, line, 0, "out of memory reading wisdom");
    }
    if (ferror(f))
        return tc_error_set(err, TC_ERESOURCE, 0, 0, "read error");
    if (line == 0)
        return tc_error_set(err, TC_EINPUT, 1, 1, "empty file: the first line must be '%s'",
                            HEADER);
    return TC_OK;
}

tc_status tc_wisdom_import_file(const char *path, tc_error *err)
{
    if (!path)
        return tc_error_set(err, TC_EUSAGE, 0, 0, "tc_wisdom_import_file: NULL path");
    FILE *f = fopen(path, "r");
    if (!f)
        return tc_error_set(err, TC_ERESOURCE, 0, 0, "cannot read wisdom file '%s': %s", path,
                            strerror(errno));
    tc_wisdom_entry *list = NULL;
    int n = 0, cap = 0;
    tc_status s = read_entries(f, &list, &n, &cap, err);
    fclose(f);
    if (s != TC_OK) {
        free(list);
        return s;
    }
    /* Make room first, so that the merge itself cannot fail half way. */
    pthread_mutex_lock(&lock);
    if (count + n > capacity) {
        tc_wisdom_entry *p = realloc(entries, (size_t)(count + n) * sizeof *p);
        if (!p) {
            pthread_mutex_unlock(&lock);
            free(list);
            return tc_error_set(err, TC_ERESOURCE, 0, 0, "out of memory merging wisdom");
        }
        entries = p;
        capacity = count + n;
    }
    for (int k = 0; k < n; k++)
        list_put(&entries, &count, &capacity, &list[k]);
    pthread_mutex_unlock(&lock);
    free(list);
    return TC_OK;
}
