/*
 * test_plan.c - the plan and wisdom API of include/tcgen.h: planning by
 * estimate and by measurement, results against the naive reference (both
 * layouts, '=' over NaN, '+=' with a factor), wisdom export/import and its
 * file format, a plan from wisdom building the remembered algorithm alone
 * (the ranked one), damaged wisdom files rejected whole and located,
 * errors in the contraction, sizes and flags, one plan executed by two
 * threads at once, and tc_plan_emit_c; every entry point with err == NULL on failing
 * input (a failing prediction too), a host program under a comma-decimal
 * locale, TC_MEASURE over wisdom that was only estimated, and every
 * measured candidate over the time limit.
 */
#include <CUnit/CUnit.h>
#include <dlfcn.h>
#include <locale.h>
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "generator/generator.h"
#include "parser/parser.h"
#include "planner/measure.h"
#include "planner/plan.h"
#include "planner/problem.h"
#include "planner/rank.h"
#include "planner/setup.h"
#include "planner/wisdom.h"
#include "runtime/memory.h"
#include "runtime/reference.h"
#include "tcgen.h"
#include "tests/helpers_corpus.h"
#include "tests/helpers_data.h"
#include "tests/helpers_plan.h"

#define TOL 1e-12

static char tmpdir[200];
static char saved_threads[64];
static int had_threads;

static int suite_init(void)
{
    const char *t = getenv("TCGEN_THREADS");
    had_threads = t != NULL;
    if (t)
        snprintf(saved_threads, sizeof saved_threads, "%s", t);
    if (setenv("TCGEN_THREADS", "1", 1) != 0)
        return -1;
    snprintf(tmpdir, sizeof tmpdir, "/tmp/tcgen-plan-XXXXXX");
    if (!mkdtemp(tmpdir)) {
        tmpdir[0] = '\0';
        return -1;
    }
    tc_wisdom_forget();
    return 0;
}

/* The files the tests write, removed by suite_clean. */
static const char *const tmpfiles[] = {"rt.wisdom", "good.wisdom", "bad.wisdom", "locale.wisdom",
                                       "other.wisdom", "never-written.wisdom"};

static int suite_clean(void)
{
    tc_wisdom_forget();
    if (had_threads)
        setenv("TCGEN_THREADS", saved_threads, 1);
    else
        unsetenv("TCGEN_THREADS");
    if (tmpdir[0]) {
        char path[400];
        for (size_t k = 0; k < sizeof tmpfiles / sizeof tmpfiles[0]; k++) {
            snprintf(path, sizeof path, "%s/%s", tmpdir, tmpfiles[k]);
            unlink(path);
            snprintf(path, sizeof path, "%s/%s.lock", tmpdir, tmpfiles[k]); /* export's */
            unlink(path);
        }
        if (rmdir(tmpdir) != 0)
            return -1;
    }
    return 0;
}

static void tmp_path(const char *name, char *buf, size_t n)
{
    snprintf(buf, n, "%s/%s", tmpdir, name);
}

static int write_text(const char *path, const char *text)
{
    FILE *f = fopen(path, "w");
    if (!f)
        return -1;
    int bad = fputs(text, f) < 0;
    return fclose(f) != 0 || bad ? -1 : 0;
}

/* The whole file as a heap string (caller frees), or NULL. */
static char *read_text(const char *path)
{
    FILE *f = fopen(path, "r");
    if (!f)
        return NULL;
    char *s = tc_test_slurp(f);
    fclose(f);
    return s;
}

/* 1 if name is one of the algorithms tcgen enumerates for text. */
static int is_algorithm_of(const char *name, const char *text, const char *sizes)
{
    tc_contraction c;
    if (!name || tc_test_parse_cm(text, sizes, &c) != 0)
        return 0;
    tc_algorithm_set *set = NULL;
    tc_error e;
    if (tc_gen_enumerate_families(&c, TC_KERNEL_MASK_ALL, TC_FAMILY_MASK_ALL, &set, &e) != TC_OK)
        return 0;
    int found = tc_alg_set_find(set, name) != NULL;
    tc_alg_set_free(set);
    return found;
}

/* ---- 1. estimate ------------------------------------------------------- */

static void test_estimate(void)
{
    tc_wisdom_forget();
    const char *text = "C[a,b,c] = A[a,i] * B[i,b,c]", *sizes = "a=b=c=24,i=8";
    tc_error err;
    tc_plan *p = tc_plan_create(text, sizes, TC_ESTIMATE, &err);
    if (!p)
        fprintf(stderr, "\n  tc_plan_create: %s\n", err.message);
    CU_ASSERT_PTR_NOT_NULL_FATAL(p);
    CU_ASSERT_STRING_EQUAL(tc_plan_origin(p), "estimate");
    const char *alg = tc_plan_algorithm(p);
    CU_ASSERT_PTR_NOT_NULL_FATAL(alg);
    CU_ASSERT(alg[0] != '\0');
    CU_ASSERT(is_algorithm_of(alg, text, sizes));
    double sec = tc_plan_predicted_seconds(p);
    CU_ASSERT(isfinite(sec) && sec > 0);
    double e1 = tc_test_exec_vs_reference(p, text, sizes, 11);
    CU_ASSERT(e1 <= TOL);
    /* A second execution on other data: the plan is reusable. */
    double e2 = tc_test_exec_vs_reference(p, text, sizes, 12);
    CU_ASSERT(e2 <= TOL);
    if (!(e1 <= TOL) || !(e2 <= TOL))
        fprintf(stderr, "\n  %s with %s: relative errors %g %g\n", text, alg, e1, e2);
    tc_plan_destroy(p);
}

static void test_estimate_accumulate(void)
{
    tc_wisdom_forget();
    static const char *const cases[][2] = {
        {"C[a,b] += 0.5 * A[a,i] * B[i,b]", "a=9,b=11,i=5"},
        {"C[a,b,c] += -2 * A[a,i] * B[i,b,c]", "a=6,b=5,c=4,i=7"},
        {"C[a,b] = 3 * A[a,i] * B[i,b]", "a=4,b=6,i=3"},
        {"C[] = A[i,j] * B[j,i]", "i=5,j=7"},
    };
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
        tc_error err;
        tc_plan *p = tc_plan_create(cases[k][0], cases[k][1], TC_ESTIMATE, &err);
        CU_ASSERT_PTR_NOT_NULL(p);
        if (!p) {
            fprintf(stderr, "\n  %s: %s\n", cases[k][0], err.message);
            continue;
        }
        CU_ASSERT(is_algorithm_of(tc_plan_algorithm(p), cases[k][0], cases[k][1]));
        double e = tc_test_exec_vs_reference(p, cases[k][0], cases[k][1], 100 + k);
        CU_ASSERT(e <= TOL);
        if (!(e <= TOL))
            fprintf(stderr, "\n  %s with %s: relative error %g\n", cases[k][0],
                    tc_plan_algorithm(p), e);
        tc_plan_destroy(p);
    }

    /* beta = 1 and alpha by hand, independent of the reference. */
    tc_error err;
    tc_plan *p = tc_plan_create("C[a,b] += 0.5 * A[a,i] * B[i,b]", "a=2,b=2,i=2", TC_ESTIMATE,
                                &err);
    CU_ASSERT_PTR_NOT_NULL_FATAL(p);
    /* column-major: A = [1 3; 2 4], B = [5 7; 6 8], A*B = [23 31; 34 46] */
    double A[4] = {1, 2, 3, 4}, B[4] = {5, 6, 7, 8}, C[4] = {100, 200, 300, 400};
    CU_ASSERT_EQUAL(tc_execute(p, A, B, C), TC_OK);
    CU_ASSERT_DOUBLE_EQUAL(C[0], 100 + 0.5 * 23, 1e-12);
    CU_ASSERT_DOUBLE_EQUAL(C[1], 200 + 0.5 * 34, 1e-12);
    CU_ASSERT_DOUBLE_EQUAL(C[2], 300 + 0.5 * 31, 1e-12);
    CU_ASSERT_DOUBLE_EQUAL(C[3], 400 + 0.5 * 46, 1e-12);
    tc_plan_destroy(p);
}

/* ---- 2. measure -------------------------------------------------------- */

static void test_measure(void)
{
    tc_wisdom_forget();
    const char *text = "C[a,b,c] = A[a,i] * B[i,b,c]", *sizes = "a=b=c=12,i=4";
    tc_error err;
    tc_plan *p = tc_plan_create(text, sizes, TC_MEASURE, &err);
    if (!p)
        fprintf(stderr, "\n  tc_plan_create(TC_MEASURE): %s\n", err.message);
    CU_ASSERT_PTR_NOT_NULL_FATAL(p);
    CU_ASSERT_STRING_EQUAL(tc_plan_origin(p), "measure");
    CU_ASSERT(is_algorithm_of(tc_plan_algorithm(p), text, sizes));
    double sec = tc_plan_predicted_seconds(p);
    CU_ASSERT(isfinite(sec) && sec > 0);
    double e = tc_test_exec_vs_reference(p, text, sizes, 21);
    CU_ASSERT(e <= TOL);

    /* The decision is remembered: a second plan is from wisdom, same choice. */
    tc_plan *q = tc_plan_create(text, sizes, TC_MEASURE, &err);
    CU_ASSERT_PTR_NOT_NULL_FATAL(q);
    CU_ASSERT_STRING_EQUAL(tc_plan_origin(q), "wisdom");
    CU_ASSERT_STRING_EQUAL(tc_plan_algorithm(q), tc_plan_algorithm(p));
    CU_ASSERT_DOUBLE_EQUAL(tc_plan_predicted_seconds(q), sec, sec * 1e-9);
    tc_plan_destroy(q);
    tc_plan_destroy(p);
}

/* ---- 3. wisdom round trip ---------------------------------------------- */

/* Splits s at tabs in place; returns the number of fields (at most max). */
static int split_tabs(char *s, char **field, int max)
{
    int n = 0;
    for (;;) {
        if (n == max)
            return max + 1;
        field[n++] = s;
        char *tab = strchr(s, '\t');
        if (!tab)
            return n;
        *tab = '\0';
        s = tab + 1;
    }
}

/* The first line of text that is not a comment or blank, copied into buf
 * (without its newline); 0 when there is none. */
static int first_entry(const char *text, char *buf, size_t n)
{
    const char *s = text;
    while (*s) {
        const char *nl = strchr(s, '\n');
        size_t len = nl ? (size_t)(nl - s) : strlen(s);
        if (len > 0 && s[0] != '#' && len < n) {
            memcpy(buf, s, len);
            buf[len] = '\0';
            return 1;
        }
        if (!nl)
            break;
        s = nl + 1;
    }
    return 0;
}

/* A contraction renamed (tensors, indices, a factor) is the same problem:
 * after the CCSD ring term, its renamed twin is planned from wisdom alone,
 * its algorithm named in its own letters, and it computes its C. */
static void test_wisdom_renamed(void)
{
    static const char from[] = "RTWabijem", to[] = "XYZpqrstu";
    const char *ring = "R[a,b,i,j] += T[a,e,i,m] * W[m,b,e,j]", *ring_sizes = "a=b=e=12,i=j=m=4";
    const char *twin = "X[p,q,r,s] += -0.5 * Y[p,t,r,u] * Z[u,q,t,s]",
               *twin_sizes = "p=q=t=12,r=s=u=4";
    tc_wisdom_forget();
    tc_error err;
    tc_plan *p = tc_plan_create(ring, ring_sizes, TC_ESTIMATE, &err);
    CU_ASSERT_PTR_NOT_NULL_FATAL(p);
    char want[256];
    snprintf(want, sizeof want, "%s", tc_plan_algorithm(p));
    for (char *x = want, *dash = strrchr(want, '-'); *x && (!dash || x < dash); x++) {
        const char *at = strchr(from, *x); /* the name's letters, renamed */
        if (at && *x)
            *x = to[at - from];
    }
    tc_plan_destroy(p);
    tc_plan *q = tc_plan_create(twin, twin_sizes, TC_WISDOM_ONLY, &err);
    CU_ASSERT_PTR_NOT_NULL_FATAL(q);
    CU_ASSERT_STRING_EQUAL(tc_plan_origin(q), "wisdom");
    CU_ASSERT_STRING_EQUAL(tc_plan_algorithm(q), want);
    CU_ASSERT_EQUAL(q->set->count, 1); /* found by the canonical name's serial, alone */
    CU_ASSERT_EQUAL(tc_wisdom_count(), 1);
    double e = tc_test_exec_vs_reference(q, twin, twin_sizes, 31);
    CU_ASSERT(e <= TOL);
    tc_plan_destroy(q);
    tc_wisdom_forget();
}

/* Plans text (sizes, flags) twice: ranked, then from wisdom. The second
 * builds the remembered algorithm alone (its set holds that one, where
 * the first enumerated every candidate) and it is the first's: the same
 * name, subset and temporaries, the same C to the bit. */
static void expect_remembered_alone(const char *text, const char *sizes, unsigned flags)
{
    tc_wisdom_forget();
    tc_error err;
    tc_plan *fresh = tc_plan_create(text, sizes, TC_ESTIMATE | flags, &err);
    CU_ASSERT_PTR_NOT_NULL_FATAL(fresh);
    tc_plan *again = tc_plan_create(text, sizes, TC_ESTIMATE | flags, &err);
    CU_ASSERT_PTR_NOT_NULL_FATAL(again);
    CU_ASSERT_STRING_EQUAL(tc_plan_origin(fresh), "estimate");
    CU_ASSERT_STRING_EQUAL(tc_plan_origin(again), "wisdom");
    CU_ASSERT_STRING_EQUAL(tc_plan_algorithm(again), tc_plan_algorithm(fresh));
    CU_ASSERT(fresh->set->count > 10);
    CU_ASSERT_EQUAL(again->set->count, 1); /* the fast path: nothing else built */
    CU_ASSERT_PTR_EQUAL(again->alg, again->set->alg[0]);
    CU_ASSERT_EQUAL(again->alg->serial, fresh->alg->serial);
    CU_ASSERT_EQUAL(again->subset.candidates, fresh->subset.candidates);
    CU_ASSERT_EQUAL(tc_plan_workspace_bytes(again), tc_plan_workspace_bytes(fresh));
    CU_ASSERT_STRING_EQUAL(tc_plan_decided_by(again), "from wisdom");
    tc_contraction c;
    CU_ASSERT_FATAL(tc_test_parse_cm(text, sizes, &c) == 0);
    int64_t n[3] = {c.tensor[TC_A].elements, c.tensor[TC_B].elements, c.tensor[TC_C].elements};
    double *A = tc_rt_alloc(n[0], NULL), *B = tc_rt_alloc(n[1], NULL);
    double *C1 = tc_rt_alloc(n[2], NULL), *C2 = tc_rt_alloc(n[2], NULL);
    CU_ASSERT_FATAL(A && B && C1 && C2);
    uint64_t st = 77;
    tc_corpus_fill(A, n[0], &st);
    tc_corpus_fill(B, n[1], &st);
    tc_corpus_fill(C1, n[2], &st);
    memcpy(C2, C1, (size_t)n[2] * sizeof *C1);
    CU_ASSERT_EQUAL(tc_execute(fresh, A, B, C1), TC_OK);
    CU_ASSERT_EQUAL(tc_execute(again, A, B, C2), TC_OK);
    CU_ASSERT_EQUAL(memcmp(C1, C2, (size_t)n[2] * sizeof *C1), 0);
    if (!(flags & TC_ROW_MAJOR))
        CU_ASSERT(tc_test_exec_vs_reference(again, text, sizes, 5) <= TOL);
    tc_rt_free(A);
    tc_rt_free(B);
    tc_rt_free(C1);
    tc_rt_free(C2);
    tc_plan_destroy(fresh);
    tc_plan_destroy(again);
    tc_wisdom_forget();
}

/* A plan from wisdom builds its algorithm alone, the ranked plan's:
 * column- and row-major, long index names with a batch index. */
static void test_wisdom_builds_one(void)
{
    expect_remembered_alone("R[a,b,i,j] += T[a,e,i,m] * W[m,b,e,j]", "a=b=e=12,i=j=m=4", 0);
    expect_remembered_alone("R[a,b,i,j] += T[a,e,i,m] * W[m,b,e,j]", "a=12,b=10,e=9,i=j=m=4",
                            TC_ROW_MAJOR);
    expect_remembered_alone("Out[p1,q1,n1] = 0.5 * In1[k1,p1,n1] * In2[n1,q1,k1]",
                            "p1=5,q1=6,k1=7,n1=3", 0);
}

static void test_wisdom_round_trip(void)
{
    tc_wisdom_forget();
    CU_ASSERT_EQUAL(tc_wisdom_count(), 0);
    /* in canonical names: the file holds the same text (tc_contraction_canonical) */
    const char *text = "C[a,b,c] = A[a,d] * B[d,b,c]", *sizes = "a=b=c=24,d=8";
    tc_error err;

    /* Nothing known yet: TC_WISDOM_ONLY fails, naming the wisdom. */
    memset(&err, 0, sizeof err);
    tc_plan *none = tc_plan_create(text, sizes, TC_WISDOM_ONLY, &err);
    CU_ASSERT_PTR_NULL(none);
    tc_plan_destroy(none);
    CU_ASSERT_EQUAL(err.code, TC_EINPUT);
    CU_ASSERT_PTR_NOT_NULL(strstr(err.message, "wisdom"));
    CU_ASSERT_EQUAL(tc_wisdom_count(), 0);

    tc_plan *p = tc_plan_create(text, sizes, TC_ESTIMATE, &err);
    CU_ASSERT_PTR_NOT_NULL_FATAL(p);
    CU_ASSERT_STRING_EQUAL(tc_plan_origin(p), "estimate");
    CU_ASSERT_EQUAL(tc_wisdom_count(), 1);
    char alg[256];
    snprintf(alg, sizeof alg, "%s", tc_plan_algorithm(p));
    double sec = tc_plan_predicted_seconds(p);

    /* Planned again without forgetting: from wisdom, no benchmarking. */
    tc_plan *again = tc_plan_create(text, sizes, TC_ESTIMATE, &err);
    CU_ASSERT_PTR_NOT_NULL_FATAL(again);
    CU_ASSERT_STRING_EQUAL(tc_plan_origin(again), "wisdom");
    CU_ASSERT_STRING_EQUAL(tc_plan_algorithm(again), alg);
    CU_ASSERT_EQUAL(tc_wisdom_count(), 1);
    tc_plan_destroy(again);

    /* The same problem written differently is the same wisdom key. */
    again = tc_plan_create("C_abc = A_ad B_dbc", "a=24 b=24 c=24 d=8", TC_WISDOM_ONLY, &err);
    CU_ASSERT_PTR_NOT_NULL(again);
    if (again)
        CU_ASSERT_STRING_EQUAL(tc_plan_algorithm(again), alg);
    tc_plan_destroy(again);

    /* Another layout or other sizes are other problems. */
    again = tc_plan_create(text, sizes, TC_WISDOM_ONLY | TC_ROW_MAJOR, &err);
    CU_ASSERT_PTR_NULL(again);
    tc_plan_destroy(again);
    again = tc_plan_create(text, "a=b=c=24,d=9", TC_WISDOM_ONLY, &err);
    CU_ASSERT_PTR_NULL(again);
    tc_plan_destroy(again);

    char path[400];
    tmp_path("rt.wisdom", path, sizeof path);
    CU_ASSERT_EQUAL_FATAL(tc_wisdom_export_file(path, &err), TC_OK);
    tc_plan_destroy(p);

    /* The file's text. */
    char *file = read_text(path);
    CU_ASSERT_PTR_NOT_NULL_FATAL(file);
    CU_ASSERT_EQUAL(strncmp(file, "# tcgen wisdom 1\n", 17), 0);
    char line[4096], *field[16];
    CU_ASSERT_FATAL(first_entry(file, line, sizeof line));
    int nf = split_tabs(line, field, 15);
    CU_ASSERT_EQUAL_FATAL(nf, 9);
    tc_contraction c;
    CU_ASSERT_EQUAL_FATAL(tc_test_parse_cm(text, sizes, &c), 0);
    CU_ASSERT_FATAL(tc_contraction_canonical(&c, &c)); /* wisdom's names */
    char form[1024], fsizes[1024];
    tc_contraction_format(&c, form, sizeof form);
    tc_contraction_format_sizes(&c, fsizes, sizeof fsizes);
    CU_ASSERT_STRING_EQUAL(field[0], form);
    CU_ASSERT_STRING_EQUAL(field[1], fsizes);
    CU_ASSERT_STRING_EQUAL(field[2], "col");
    CU_ASSERT_STRING_EQUAL(field[4], "1"); /* TCGEN_THREADS=1 */
    CU_ASSERT_STRING_EQUAL(field[6], alg);
    CU_ASSERT_STRING_EQUAL(field[8], "estimate");
    free(file);

    /* Forget, then planning from wisdom alone fails until imported. */
    tc_wisdom_forget();
    CU_ASSERT_EQUAL(tc_wisdom_count(), 0);
    tc_plan *q = tc_plan_create(text, sizes, TC_WISDOM_ONLY, &err);
    CU_ASSERT_PTR_NULL(q);
    tc_plan_destroy(q);
    CU_ASSERT_EQUAL(tc_wisdom_import_file(path, &err), TC_OK);
    CU_ASSERT_EQUAL(tc_wisdom_count(), 1);
    q = tc_plan_create(text, sizes, TC_WISDOM_ONLY, &err);
    if (!q)
        fprintf(stderr, "\n  after import: %s\n", err.message);
    CU_ASSERT_PTR_NOT_NULL_FATAL(q);
    CU_ASSERT_STRING_EQUAL(tc_plan_origin(q), "wisdom");
    CU_ASSERT_STRING_EQUAL(tc_plan_algorithm(q), alg);
    CU_ASSERT_DOUBLE_EQUAL(tc_plan_predicted_seconds(q), sec, sec * 1e-5);
    double e = tc_test_exec_vs_reference(q, text, sizes, 31);
    CU_ASSERT(e <= TOL);
    tc_plan_destroy(q);

    /* Importing the same file again replaces, it does not duplicate. */
    CU_ASSERT_EQUAL(tc_wisdom_import_file(path, &err), TC_OK);
    CU_ASSERT_EQUAL(tc_wisdom_count(), 1);

    /* NULL paths are usage errors. */
    CU_ASSERT_EQUAL(tc_wisdom_export_file(NULL, &err), TC_EUSAGE);
    CU_ASSERT_EQUAL(tc_wisdom_import_file(NULL, &err), TC_EUSAGE);
    tc_wisdom_forget();
}

/* ---- 4. damaged wisdom ------------------------------------------------- */

/* A good entry line (no newline) for text/sizes and its 9 fields. */
typedef struct good_entry {
    char line[4096];
    char field[9][1024];
} good_entry;

/* Plans text/sizes, exports, reads the entry back. 0 on success. Leaves
 * the wisdom holding exactly that entry. */
static int make_good_entry(const char *text, const char *sizes, good_entry *g)
{
    tc_wisdom_forget();
    tc_error err;
    tc_plan *p = tc_plan_create(text, sizes, TC_ESTIMATE, &err);
    if (!p)
        return -1;
    tc_plan_destroy(p);
    char path[400];
    tmp_path("good.wisdom", path, sizeof path);
    unlink(path); /* export merges into what is there */
    if (tc_wisdom_export_file(path, &err) != TC_OK)
        return -1;
    char *file = read_text(path);
    if (!file)
        return -1;
    int ok = first_entry(file, g->line, sizeof g->line);
    free(file);
    if (!ok)
        return -1;
    char copy[4096], *field[16];
    snprintf(copy, sizeof copy, "%s", g->line);
    if (split_tabs(copy, field, 15) != 9)
        return -1;
    for (int k = 0; k < 9; k++)
        snprintf(g->field[k], sizeof g->field[k], "%s", field[k]);
    return 0;
}

/* The entry g with field k replaced by value (k < 0: unchanged) into buf;
 * returns the 1-based column of field k in it (1 when k < 0). */
static int entry_with(const good_entry *g, int k, const char *value, char *buf, size_t n)
{
    size_t len = 0;
    int column = 1;
    buf[0] = '\0';
    for (int f = 0; f < 9; f++) {
        if (f == k)
            column = (int)len + 1;
        int w = snprintf(buf + len, n - len, "%s%s", f ? "\t" : "",
                         f == k ? value : g->field[f]);
        if (f == k)
            column += f ? 1 : 0; /* past the tab */
        len += (size_t)w;
    }
    return column;
}

/* Writes text to bad.wisdom, imports it and checks: TC_EINPUT at
 * line/column, wisdom count unchanged. */
static void expect_damaged(const char *what, const char *text, int line, int column)
{
    char path[400];
    tmp_path("bad.wisdom", path, sizeof path);
    CU_ASSERT_EQUAL_FATAL(write_text(path, text), 0);
    int before = tc_wisdom_count();
    tc_error err;
    memset(&err, 0, sizeof err);
    tc_status s = tc_wisdom_import_file(path, &err);
    CU_ASSERT_EQUAL(s, TC_EINPUT);
    CU_ASSERT_EQUAL(err.code, TC_EINPUT);
    CU_ASSERT_EQUAL(err.line, line);
    CU_ASSERT_EQUAL(err.column, column);
    CU_ASSERT(err.message[0] != '\0');
    CU_ASSERT_EQUAL(tc_wisdom_count(), before);
    if (s != TC_EINPUT || err.line != line || err.column != column ||
        tc_wisdom_count() != before)
        fprintf(stderr, "\n  damaged wisdom (%s): status %d at %d:%d (want %d:%d), "
                        "count %d -> %d: %s\n",
                what, (int)s, err.line, err.column, line, column, before, tc_wisdom_count(),
                err.message);
}

#define HEADER "# tcgen wisdom 1\n"

static void test_wisdom_damaged(void)
{
    /* in canonical names (tc_contraction_canonical), as wisdom writes them */
    const char *text = "C[a,b,c] = A[a,d] * B[d,b,c]", *sizes = "a=b=c=24,d=8";
    static good_entry g;
    CU_ASSERT_EQUAL_FATAL(make_good_entry(text, sizes, &g), 0);
    CU_ASSERT_EQUAL_FATAL(tc_wisdom_count(), 1);

    char entry[4096], file[16384];
    int col;

    /* Positive control: the good line itself imports (replacing its twin). */
    snprintf(file, sizeof file, HEADER "%s\n", g.line);
    char path[400];
    tmp_path("bad.wisdom", path, sizeof path);
    CU_ASSERT_EQUAL_FATAL(write_text(path, file), 0);
    tc_error err;
    CU_ASSERT_EQUAL(tc_wisdom_import_file(path, &err), TC_OK);
    CU_ASSERT_EQUAL(tc_wisdom_count(), 1);

    /* Wrong first line. */
    snprintf(file, sizeof file, "# tcgen wisdom 2\n%s\n", g.line);
    expect_damaged("version 2", file, 1, 1);
    snprintf(file, sizeof file, "%s\n", g.line);
    expect_damaged("no header", file, 1, 1);
    expect_damaged("empty file", "", 1, 1);

    /* An entry with 8 fields (the origin dropped), and with 10. */
    entry_with(&g, -1, NULL, entry, sizeof entry);
    *strrchr(entry, '\t') = '\0';
    snprintf(file, sizeof file, HEADER "%s\n", entry);
    expect_damaged("8 fields", file, 2, 1);
    entry_with(&g, -1, NULL, entry, sizeof entry);
    snprintf(file, sizeof file, HEADER "%s\textra\n", entry);
    expect_damaged("10 fields", file, 2, 1);

    /* One bad field at a time; comments and blank lines count as lines. */
    static const struct {
        int field;
        const char *value;
    } bad[] = {
        {2, "diag"},       {4, "0"},        {4, "-1"},       {4, "two"},
        {7, "-1"},       {7, "abc"},      {7, "0"},
        {7, "inf"},        {7, "1e-3x"},    {6, "zz-dgemm"}, {6, ""},
        {8, "guess"},      {3, ""},         {5, ""},         {0, ""},
        {1, ""},           {0, "C[a,b,c]=A[a,d]*B[d,b,c]"}, /* not the normal form */
        {1, "d=8,a=24,b=24,c=24"},                          /* sizes not in index order */
    };
    for (size_t k = 0; k < sizeof bad / sizeof bad[0]; k++) {
        col = entry_with(&g, bad[k].field, bad[k].value, entry, sizeof entry);
        snprintf(file, sizeof file, HEADER "# a comment\n\n%s\n", entry);
        char what[128];
        snprintf(what, sizeof what, "field %d = '%s'", bad[k].field, bad[k].value);
        expect_damaged(what, file, 4, col);
    }

    /* A contraction that does not parse: located inside the field. */
    const char *broken = "C[a] = A[a,i] * B[j]";
    tc_contraction c;
    tc_error perr;
    CU_ASSERT_NOT_EQUAL_FATAL(tc_parse(broken, &c, &perr), TC_OK);
    CU_ASSERT_FATAL(perr.column >= 1);
    col = entry_with(&g, 0, broken, entry, sizeof entry);
    snprintf(file, sizeof file, HEADER "%s\n", entry);
    expect_damaged("contraction does not parse", file, 2, col + perr.column - 1);

    /* Sizes that do not parse: located at the bad byte. */
    const char *bad_sizes = "a=24,b=24,c=24,d=3x";
    col = entry_with(&g, 1, bad_sizes, entry, sizeof entry);
    snprintf(file, sizeof file, HEADER "%s\n", entry);
    expect_damaged("sizes do not parse", file, 2,
                   col + (int)(strstr(bad_sizes, "3x") - bad_sizes));
    /* A size missing ('d'): an error of the sizes field. */
    col = entry_with(&g, 1, "a=24,b=24,c=24", entry, sizeof entry);
    snprintf(file, sizeof file, HEADER "%s\n", entry);
    {
        char p2[400];
        tmp_path("bad.wisdom", p2, sizeof p2);
        CU_ASSERT_EQUAL_FATAL(write_text(p2, file), 0);
        int before = tc_wisdom_count();
        tc_error e2;
        memset(&e2, 0, sizeof e2);
        CU_ASSERT_EQUAL(tc_wisdom_import_file(p2, &e2), TC_EINPUT);
        CU_ASSERT_EQUAL(e2.line, 2);
        CU_ASSERT(e2.column >= col && e2.column <= col + (int)strlen("a=24,b=24,c=24"));
        CU_ASSERT_PTR_NOT_NULL(strstr(e2.message, "'d'"));
        CU_ASSERT_EQUAL(tc_wisdom_count(), before);
    }

    /* An algorithm of another contraction. */
    col = entry_with(&g, 6, "i'c-dgemm", entry, sizeof entry);
    snprintf(file, sizeof file, HEADER "%s\n", entry);
    expect_damaged("algorithm of another contraction", file, 2, col);

    /* A valid first entry (a new key: another machine) followed by a damaged
     * second: rejected whole, the valid entry not loaded. */
    char good2[4096];
    entry_with(&g, 5, "another machine", good2, sizeof good2);
    col = entry_with(&g, 2, "diag", entry, sizeof entry);
    snprintf(file, sizeof file, HEADER "%s\n%s\n", good2, entry);
    expect_damaged("valid then damaged", file, 3, col);
    /* ... while the valid entry alone does load (the count can tell). */
    snprintf(file, sizeof file, HEADER "%s\n", good2);
    CU_ASSERT_EQUAL_FATAL(write_text(path, file), 0);
    CU_ASSERT_EQUAL(tc_wisdom_import_file(path, &err), TC_OK);
    CU_ASSERT_EQUAL(tc_wisdom_count(), 2);

    /* Damage after many good lines, with CRLF line ends. */
    snprintf(file, sizeof file, HEADER "%s\r\n%s\r\n# note\r\n%s\r\n", g.line, good2, entry);
    expect_damaged("valid, valid, damaged (CRLF)", file, 5, col);

    /* A missing file. */
    char missing[400];
    tmp_path("never-written.wisdom", missing, sizeof missing);
    unlink(missing);
    memset(&err, 0, sizeof err);
    CU_ASSERT_EQUAL(tc_wisdom_import_file(missing, &err), TC_ERESOURCE);
    CU_ASSERT_EQUAL(err.code, TC_ERESOURCE);
    CU_ASSERT_EQUAL(tc_wisdom_count(), 2);
    tc_wisdom_forget();
}

static void test_wisdom_other_machine(void)
{
    const char *text = "C[a,b,c] = A[a,i] * B[i,b,c]", *sizes = "a=b=c=24,i=8";
    static good_entry g;
    CU_ASSERT_EQUAL_FATAL(make_good_entry(text, sizes, &g), 0);
    char entry[4096], file[16384], path[400];
    entry_with(&g, 5, "other machine", entry, sizeof entry);
    snprintf(file, sizeof file, HEADER "%s\n", entry);
    tmp_path("other.wisdom", path, sizeof path);
    CU_ASSERT_EQUAL_FATAL(write_text(path, file), 0);

    tc_wisdom_forget();
    tc_error err;
    CU_ASSERT_EQUAL(tc_wisdom_import_file(path, &err), TC_OK);
    CU_ASSERT_EQUAL(tc_wisdom_count(), 1);
    memset(&err, 0, sizeof err);
    tc_plan *p = tc_plan_create(text, sizes, TC_WISDOM_ONLY, &err);
    CU_ASSERT_PTR_NULL(p);
    tc_plan_destroy(p);
    CU_ASSERT_EQUAL(err.code, TC_EINPUT);

    /* Other thread count and other BLAS library: kept, not used. */
    entry_with(&g, 4, "7", entry, sizeof entry);
    snprintf(file, sizeof file, HEADER "%s\n", entry);
    CU_ASSERT_EQUAL_FATAL(write_text(path, file), 0);
    CU_ASSERT_EQUAL(tc_wisdom_import_file(path, &err), TC_OK);
    entry_with(&g, 3, "someblas", entry, sizeof entry);
    snprintf(file, sizeof file, HEADER "%s\n", entry);
    CU_ASSERT_EQUAL_FATAL(write_text(path, file), 0);
    CU_ASSERT_EQUAL(tc_wisdom_import_file(path, &err), TC_OK);
    CU_ASSERT_EQUAL(tc_wisdom_count(), 3);
    p = tc_plan_create(text, sizes, TC_WISDOM_ONLY, &err);
    CU_ASSERT_PTR_NULL(p);
    tc_plan_destroy(p);

    /* They are exported again, untouched. */
    CU_ASSERT_EQUAL_FATAL(tc_wisdom_export_file(path, &err), TC_OK);
    char *out = read_text(path);
    CU_ASSERT_PTR_NOT_NULL_FATAL(out);
    CU_ASSERT_PTR_NOT_NULL(strstr(out, "\tother machine\t"));
    CU_ASSERT_PTR_NOT_NULL(strstr(out, "\tsomeblas\t"));
    free(out);
    tc_wisdom_forget();
}

/* ---- 5. errors in the contraction, sizes and flags -------------------- */

static void test_errors(void)
{
    const char *text = "C[a,b,c] = A[a,i] * B[i,b,c]";
    tc_error err;

    memset(&err, 0, sizeof err);
    CU_ASSERT_PTR_NULL(tc_plan_create(text, "a=b=c=24", TC_ESTIMATE, &err));
    CU_ASSERT_EQUAL(err.code, TC_EINPUT);
    CU_ASSERT_PTR_NOT_NULL(strstr(err.message, "'i'"));

    /* "i=x": sizes may chain names ("a=b=c=24"), so 'x' reads as the next
     * name and the error is the '=' expected right after it. */
    const char *sizes = "a=b=c=24,i=x";
    memset(&err, 0, sizeof err);
    CU_ASSERT_PTR_NULL(tc_plan_create(text, sizes, TC_ESTIMATE, &err));
    CU_ASSERT_EQUAL(err.code, TC_EINPUT);
    CU_ASSERT_EQUAL(err.line, 1);
    CU_ASSERT_EQUAL(err.column, (int)(strchr(sizes, 'x') - sizes) + 2);
    CU_ASSERT_PTR_NOT_NULL(strstr(err.message, "in the sizes"));
    CU_ASSERT_PTR_NOT_NULL(strstr(err.message, "'x'"));
    static const char *const bad_values[] = {"a=b=c=24,i=3x", "a=b=c=24,i=-3", "a=b=c=24,i=0"};
    for (size_t k = 0; k < sizeof bad_values / sizeof bad_values[0]; k++) {
        const char *v = bad_values[k];
        memset(&err, 0, sizeof err);
        CU_ASSERT_PTR_NULL(tc_plan_create(text, v, TC_ESTIMATE, &err));
        CU_ASSERT_EQUAL(err.code, TC_EINPUT);
        CU_ASSERT_EQUAL(err.line, 1);
        CU_ASSERT_EQUAL(err.column, (int)(strstr(v, "i=") - v) + 3); /* the value */
        CU_ASSERT_PTR_NOT_NULL(strstr(err.message, "in the sizes"));
        if (err.column != (int)(strstr(v, "i=") - v) + 3)
            fprintf(stderr, "\n  sizes '%s': column %d: %s\n", v, err.column, err.message);
    }

    const char *bad = "C[a,b,c] = A[a,x] * B[i,b,c]";
    memset(&err, 0, sizeof err);
    CU_ASSERT_PTR_NULL(tc_plan_create(bad, "a=b=c=24,i=8,x=2", TC_ESTIMATE, &err));
    CU_ASSERT_EQUAL(err.code, TC_EINPUT);
    CU_ASSERT_EQUAL(err.line, 1);
    CU_ASSERT_EQUAL(err.column, (int)(strchr(bad, 'x') - bad) + 1);
    CU_ASSERT_PTR_NOT_NULL(strstr(err.message, "in the contraction"));
    CU_ASSERT_PTR_NOT_NULL(strstr(err.message, "'x'"));

    const char *syntax = "C[a,b] = A[a,i] * * B[i,b]";
    memset(&err, 0, sizeof err);
    CU_ASSERT_PTR_NULL(tc_plan_create(syntax, "a=b=4,i=2", TC_ESTIMATE, &err));
    CU_ASSERT_EQUAL(err.code, TC_EINPUT);
    CU_ASSERT_EQUAL(err.line, 1);
    CU_ASSERT_EQUAL(err.column, (int)(strstr(syntax, "* *") - syntax) + 3);
    CU_ASSERT_PTR_NOT_NULL(strstr(err.message, "in the contraction"));

    /* Both bad: the contraction is reported. */
    memset(&err, 0, sizeof err);
    CU_ASSERT_PTR_NULL(tc_plan_create(syntax, "a=x", TC_ESTIMATE, &err));
    CU_ASSERT_EQUAL(err.code, TC_EINPUT);
    CU_ASSERT_PTR_NOT_NULL(strstr(err.message, "in the contraction"));

    memset(&err, 0, sizeof err);
    CU_ASSERT_PTR_NULL(tc_plan_create(NULL, "a=b=c=24,i=8", TC_ESTIMATE, &err));
    CU_ASSERT_EQUAL(err.code, TC_EUSAGE);
    memset(&err, 0, sizeof err);
    CU_ASSERT_PTR_NULL(tc_plan_create(text, NULL, TC_ESTIMATE, &err));
    CU_ASSERT_EQUAL(err.code, TC_EUSAGE);
    /* err may be NULL. */
    CU_ASSERT_PTR_NULL(tc_plan_create(NULL, NULL, TC_ESTIMATE, NULL));
    CU_ASSERT_PTR_NULL(tc_plan_create(text, "a=b=c=24", TC_ESTIMATE, NULL));

    /* Sizes whose tensors overflow: bad input; too large to sample or
     * measure: a resource error. Neither leaves wisdom behind. */
    int count0 = tc_wisdom_count();
    memset(&err, 0, sizeof err);
    CU_ASSERT_PTR_NULL(tc_plan_create(text, "a=b=c=2000000000,i=2000000000", TC_ESTIMATE, &err));
    CU_ASSERT_EQUAL(err.code, TC_EINPUT);
    CU_ASSERT_PTR_NOT_NULL(strstr(err.message, "too large"));
    memset(&err, 0, sizeof err);
    CU_ASSERT_PTR_NULL(tc_plan_create("C[a,b] = A[a,i] * B[i,b]", "a=b=i=10000000", TC_MEASURE,
                                      &err));
    CU_ASSERT_EQUAL(err.code, TC_ERESOURCE);
    CU_ASSERT_EQUAL(tc_wisdom_count(), count0);

    static const unsigned flags[] = {0,
                                     TC_ESTIMATE | TC_MEASURE,
                                     TC_ESTIMATE | TC_WISDOM_ONLY,
                                     TC_MEASURE | TC_WISDOM_ONLY,
                                     TC_ESTIMATE | TC_MEASURE | TC_WISDOM_ONLY,
                                     TC_ROW_MAJOR,
                                     0x100,
                                     TC_ESTIMATE | 0x100,
                                     TC_ESTIMATE | 0x80000000u};
    int before = tc_wisdom_count();
    for (size_t k = 0; k < sizeof flags / sizeof flags[0]; k++) {
        memset(&err, 0, sizeof err);
        tc_plan *p = tc_plan_create(text, "a=b=c=24,i=8", flags[k], &err);
        CU_ASSERT_PTR_NULL(p);
        tc_plan_destroy(p);
        CU_ASSERT_EQUAL(err.code, TC_EUSAGE);
        if (err.code != TC_EUSAGE)
            fprintf(stderr, "\n  flags 0x%x: code %d\n", flags[k], (int)err.code);
    }
    CU_ASSERT_EQUAL(tc_wisdom_count(), before);
}

/* ---- 6. one plan, two threads ----------------------------------------- */

#define CONC_TEXT "C[a,b,c] = A[i,j,a] * B[j,b,i,c]"
#define CONC_SIZES "i=j=4,a=b=c=12"
#define CONC_RUNS 20          /* executions per thread */
#define CONC_RUNS_TEMPS 1000 /* with temporaries: more, for a race to show */

typedef struct worker {
    const tc_plan *p;
    const tc_contraction *c;
    uint64_t seed;
    int runs;
    pthread_barrier_t *start; /* both threads begin executing together */
    int failures;   /* executions not TC_OK or wrong */
    double worst;   /* largest relative error */
} worker;

static void *work(void *arg)
{
    worker *w = arg;
    const tc_contraction *c = w->c;
    int64_t na = c->tensor[TC_A].elements, nb = c->tensor[TC_B].elements;
    int64_t nc = c->tensor[TC_C].elements;
    double *A = tc_rt_alloc(na, NULL), *B = tc_rt_alloc(nb, NULL);
    double *C = tc_rt_alloc(nc, NULL), *want = tc_rt_alloc(nc, NULL);
    w->failures = 0;
    w->worst = 0;
    int ok = A && B && C && want;
    if (ok) {
        uint64_t st = w->seed;
        tc_corpus_fill(A, na, &st);
        tc_corpus_fill(B, nb, &st);
        for (int64_t k = 0; k < nc; k++)
            want[k] = NAN;
        tc_rt_reference(c, A, B, want);
    }
    pthread_barrier_wait(w->start);
    if (!ok) {
        w->failures = w->runs;
    } else {
        for (int r = 0; r < w->runs; r++) {
            for (int64_t k = 0; k < nc; k++)
                C[k] = NAN;
            double e = INFINITY;
            if (tc_execute(w->p, A, B, C) == TC_OK)
                e = tc_corpus_relerr(C, want, nc);
            if (!(e <= TOL))
                w->failures++;
            if (!(e <= w->worst))
                w->worst = e;
        }
    }
    tc_rt_free(A);
    tc_rt_free(B);
    tc_rt_free(C);
    tc_rt_free(want);
    return NULL;
}

/* Runs p on two threads at once, each `runs` times on its own data, and
 * checks both got the reference result every time. */
static void run_two_threads(const tc_plan *p, const tc_contraction *c, uint64_t seed, int runs)
{
    pthread_barrier_t start;
    CU_ASSERT_EQUAL_FATAL(pthread_barrier_init(&start, NULL, 2), 0);
    worker w[2];
    memset(w, 0, sizeof w);
    for (int k = 0; k < 2; k++) {
        w[k].p = p;
        w[k].c = c;
        w[k].seed = seed + (uint64_t)k;
        w[k].runs = runs;
        w[k].start = &start;
    }
    pthread_t t[2];
    int started[2];
    started[0] = pthread_create(&t[0], NULL, work, &w[0]) == 0;
    started[1] = started[0] && pthread_create(&t[1], NULL, work, &w[1]) == 0;
    if (started[0] && !started[1])
        work(&w[1]); /* meets thread 0 at the barrier */
    for (int k = 0; k < 2; k++)
        if (started[k])
            pthread_join(t[k], NULL);
    pthread_barrier_destroy(&start);
    CU_ASSERT_FATAL(started[0]);
    CU_ASSERT(started[1]);
    for (int k = 0; k < 2; k++) {
        CU_ASSERT_EQUAL(w[k].failures, 0);
        if (w[k].failures)
            fprintf(stderr, "\n  thread %d with %s: %d of %d runs wrong (worst %g)\n", k,
                    tc_plan_algorithm(p), w[k].failures, runs, w[k].worst);
    }
}

static void test_concurrent(void)
{
    tc_contraction c;
    CU_ASSERT_EQUAL_FATAL(tc_test_parse_cm(CONC_TEXT, CONC_SIZES, &c), 0);
    tc_error err;
    tc_plan *p = tc_plan_create(CONC_TEXT, CONC_SIZES, TC_ESTIMATE, &err);
    CU_ASSERT_PTR_NOT_NULL_FATAL(p);
    CU_ASSERT(is_algorithm_of(tc_plan_algorithm(p), CONC_TEXT, CONC_SIZES));

    run_two_threads(p, &c, 41, CONC_RUNS);
    tc_plan_destroy(p);
}

/* An algorithm with a temporary (a copy) run by two threads at once: taken
 * from the wisdom so the choice is forced, whatever the ranking says. */
static void test_concurrent_with_copies(void)
{
    tc_contraction c;
    CU_ASSERT_EQUAL_FATAL(tc_test_parse_cm(CONC_TEXT, CONC_SIZES, &c), 0);
    static good_entry g;
    CU_ASSERT_EQUAL_FATAL(make_good_entry(CONC_TEXT, CONC_SIZES, &g), 0);

    /* Pick an algorithm that copies into a temporary; wisdom names it in
     * the canonical contraction's names, the plan in the user's (the two
     * sets match by order of enumeration). */
    tc_algorithm_set *set = NULL, *canon_set = NULL;
    tc_contraction canon;
    tc_error err;
    CU_ASSERT_FATAL(tc_contraction_canonical(&c, &canon));
    CU_ASSERT_EQUAL_FATAL(tc_gen_enumerate(&c, TC_KERNEL_MASK_ALL, &set, &err), TC_OK);
    CU_ASSERT_EQUAL_FATAL(tc_gen_enumerate(&canon, TC_KERNEL_MASK_ALL, &canon_set, &err), TC_OK);
    CU_ASSERT_EQUAL_FATAL(set->count, canon_set->count);
    char name[256] = "", canon_name[256] = "";
    for (int k = 0; k < set->count && !name[0]; k++)
        if (set->alg[k]->ntemps > 0 && set->alg[k]->kernel == TC_KERNEL_DGEMM)
            snprintf(name, sizeof name, "%s", set->alg[k]->name);
    const tc_algorithm *mine = tc_alg_set_find(set, name);
    for (int k = 0; mine && k < canon_set->count; k++)
        if (canon_set->alg[k]->serial == mine->serial)
            snprintf(canon_name, sizeof canon_name, "%s", canon_set->alg[k]->name);
    tc_alg_set_free(set);
    tc_alg_set_free(canon_set);
    CU_ASSERT_FATAL(name[0] != '\0' && canon_name[0] != '\0');
    CU_ASSERT_STRING_NOT_EQUAL(name, canon_name); /* i, j are d, e there */

    char entry[4096], file[16384], path[400];
    entry_with(&g, 6, canon_name, entry, sizeof entry);
    snprintf(file, sizeof file, HEADER "%s\n", entry);
    tmp_path("good.wisdom", path, sizeof path);
    CU_ASSERT_EQUAL_FATAL(write_text(path, file), 0);
    tc_wisdom_forget();
    CU_ASSERT_EQUAL_FATAL(tc_wisdom_import_file(path, &err), TC_OK);
    tc_plan *p = tc_plan_create(CONC_TEXT, CONC_SIZES, TC_WISDOM_ONLY, &err);
    CU_ASSERT_PTR_NOT_NULL_FATAL(p);
    CU_ASSERT_STRING_EQUAL(tc_plan_algorithm(p), name);
    CU_ASSERT_STRING_EQUAL(tc_plan_origin(p), "wisdom");

    run_two_threads(p, &c, 51, CONC_RUNS_TEMPS);
    tc_plan_destroy(p);
    tc_wisdom_forget();
}

/* ---- 7. row-major ------------------------------------------------------ */

static double max_diff(const double *got, const double *want, int n)
{
    double scale = 1, err = 0;
    for (int k = 0; k < n; k++)
        if (fabs(want[k]) > scale)
            scale = fabs(want[k]);
    for (int k = 0; k < n; k++) {
        double d = fabs(got[k] - want[k]);
        if (!(d <= err))
            err = isnan(d) ? INFINITY : d;
    }
    return err / scale;
}

static void test_row_major_2d(void)
{
    tc_wisdom_forget();
    enum { NA = 5, NB = 7, NI = 3 };
    tc_error err;
    tc_plan *p = tc_plan_create("C[a,b] = A[a,i] * B[i,b]", "a=5,b=7,i=3",
                                TC_ESTIMATE | TC_ROW_MAJOR, &err);
    if (!p)
        fprintf(stderr, "\n  row-major: %s\n", err.message);
    CU_ASSERT_PTR_NOT_NULL_FATAL(p);
    CU_ASSERT_STRING_EQUAL(tc_plan_origin(p), "estimate");
    double A[NA * NI], B[NI * NB], C[NA * NB], want[NA * NB];
    uint64_t st = 71;
    tc_corpus_fill(A, NA * NI, &st);
    tc_corpus_fill(B, NI * NB, &st);
    for (int k = 0; k < NA * NB; k++) {
        C[k] = NAN;
        want[k] = 0;
    }
    for (int a = 0; a < NA; a++)
        for (int b = 0; b < NB; b++)
            for (int i = 0; i < NI; i++)
                want[a * NB + b] += A[a * NI + i] * B[i * NB + b];
    CU_ASSERT_EQUAL(tc_execute(p, A, B, C), TC_OK);
    double e = max_diff(C, want, NA * NB);
    CU_ASSERT(e <= TOL);
    if (!(e <= TOL))
        fprintf(stderr, "\n  row-major 2d with %s: relative error %g\n", tc_plan_algorithm(p),
                e);

    /* The column-major problem is another wisdom key. */
    tc_plan *q = tc_plan_create("C[a,b] = A[a,i] * B[i,b]", "a=5,b=7,i=3", TC_WISDOM_ONLY,
                                &err);
    CU_ASSERT_PTR_NULL(q);
    tc_plan_destroy(q);
    q = tc_plan_create("C[a,b] = A[a,i] * B[i,b]", "a=5,b=7,i=3",
                       TC_WISDOM_ONLY | TC_ROW_MAJOR, &err);
    CU_ASSERT_PTR_NOT_NULL(q);
    tc_plan_destroy(q);
    tc_plan_destroy(p);
}

static void test_row_major_3d(void)
{
    tc_wisdom_forget();
    /* C[a,b,c] += 1.5 * A[a,i] * B[i,b,c], row-major. */
    enum { NA = 3, NB = 4, NC = 5, NI = 6 };
    tc_error err;
    tc_plan *p = tc_plan_create("C[a,b,c] += 1.5 * A[a,i] * B[i,b,c]", "a=3,b=4,c=5,i=6",
                                TC_ESTIMATE | TC_ROW_MAJOR, &err);
    CU_ASSERT_PTR_NOT_NULL_FATAL(p);
    double A[NA * NI], B[NI * NB * NC], C[NA * NB * NC], want[NA * NB * NC];
    uint64_t st = 81;
    tc_corpus_fill(A, NA * NI, &st);
    tc_corpus_fill(B, NI * NB * NC, &st);
    tc_corpus_fill(C, NA * NB * NC, &st);
    memcpy(want, C, sizeof C);
    for (int a = 0; a < NA; a++)
        for (int b = 0; b < NB; b++)
            for (int c = 0; c < NC; c++) {
                double s = 0;
                for (int i = 0; i < NI; i++)
                    s += A[a * NI + i] * B[(i * NB + b) * NC + c];
                want[(a * NB + b) * NC + c] += 1.5 * s;
            }
    CU_ASSERT_EQUAL(tc_execute(p, A, B, C), TC_OK);
    double e = max_diff(C, want, NA * NB * NC);
    CU_ASSERT(e <= TOL);
    if (!(e <= TOL))
        fprintf(stderr, "\n  row-major 3d with %s: relative error %g\n", tc_plan_algorithm(p),
                e);
    tc_plan_destroy(p);

    /* C[a,b,c] = A[i,j,a] * B[j,b,i,c], row-major (permuted, two contracted). */
    enum { MA = 3, MB = 4, MC = 2, MI = 5, MJ = 3 };
    p = tc_plan_create(CONC_TEXT, "a=3,b=4,c=2,i=5,j=3", TC_ESTIMATE | TC_ROW_MAJOR, &err);
    CU_ASSERT_PTR_NOT_NULL_FATAL(p);
    double A2[MI * MJ * MA], B2[MJ * MB * MI * MC], C2[MA * MB * MC], want2[MA * MB * MC];
    tc_corpus_fill(A2, MI * MJ * MA, &st);
    tc_corpus_fill(B2, MJ * MB * MI * MC, &st);
    for (int k = 0; k < MA * MB * MC; k++) {
        C2[k] = NAN;
        want2[k] = 0;
    }
    for (int a = 0; a < MA; a++)
        for (int b = 0; b < MB; b++)
            for (int c = 0; c < MC; c++)
                for (int i = 0; i < MI; i++)
                    for (int j = 0; j < MJ; j++)
                        want2[(a * MB + b) * MC + c] +=
                            A2[(i * MJ + j) * MA + a] * B2[((j * MB + b) * MI + i) * MC + c];
    CU_ASSERT_EQUAL(tc_execute(p, A2, B2, C2), TC_OK);
    e = max_diff(C2, want2, MA * MB * MC);
    CU_ASSERT(e <= TOL);
    if (!(e <= TOL))
        fprintf(stderr, "\n  row-major permuted with %s: relative error %g\n",
                tc_plan_algorithm(p), e);
    tc_plan_destroy(p);
}

/* ---- 8. emission, accessors, NULLs ------------------------------------ */

/* The emitted text of p with function name fn, or NULL (status in *s). */
static char *emit_text(const tc_plan *p, const char *fn, tc_status *s)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    if (!f)
        return NULL;
    *s = tc_plan_emit_c(p, f, fn);
    fclose(f);
    return buf;
}

/* A plan of the permuted family executes right and is emitted as the
 * permutations and one dgemm, with no pass over C before it (beta is the
 * dgemm's and the permutation back's), with and without TC_EMITTABLE. */
static void test_emit_other_family(void)
{
    tc_wisdom_forget();
    const char *text = "C[a,b,c,d] = A[a,e,b,f] * B[d,f,c,e]", *sizes = "a=b=c=d=e=f=5";
    tc_contraction c;
    CU_ASSERT_EQUAL_FATAL(tc_test_parse_cm(text, sizes, &c), 0);
    tc_plan_options o = tc_plan_options_default();
    o.families = 1u << TC_FAMILY_PERMUTED;
    tc_error err;
    for (unsigned flags = TC_ESTIMATE; flags <= (TC_ESTIMATE | TC_EMITTABLE);
         flags += TC_EMITTABLE) {
        tc_plan *p = tc_plan_create_with(&c, flags, &o, &err);
        CU_ASSERT_PTR_NOT_NULL_FATAL(p);
        CU_ASSERT_PTR_NOT_NULL(strchr(tc_plan_algorithm(p), '^'));
        CU_ASSERT(tc_test_exec_vs_reference(p, text, sizes, 5) <= TOL);
        tc_status st = TC_EUSAGE;
        char *code = emit_text(p, NULL, &st);
        CU_ASSERT_EQUAL(st, TC_OK);
        CU_ASSERT_PTR_NOT_NULL_FATAL(code);
        CU_ASSERT_PTR_NOT_NULL(strstr(code, "cblas_dgemm("));
        CU_ASSERT_PTR_NOT_NULL(strstr(code, "tmp"));
        CU_ASSERT_PTR_NULL(strstr(code, "C[pos]"));
        free(code);
        tc_plan_destroy(p);
    }
}


static void test_emit(void)
{
    tc_wisdom_forget();
    const char *text = "C[a,b,c] = A[a,i] * B[i,b,c]";
    tc_error err;
    tc_plan *p = tc_plan_create(text, "a=b=c=24,i=8", TC_ESTIMATE | TC_EMITTABLE, &err);
    CU_ASSERT_PTR_NOT_NULL_FATAL(p);
    tc_status s = TC_EINTERNAL;
    char *out = emit_text(p, NULL, &s);
    CU_ASSERT_EQUAL(s, TC_OK);
    CU_ASSERT_PTR_NOT_NULL_FATAL(out);
    CU_ASSERT_PTR_NOT_NULL(strstr(out, "int contraction(const double *A, const double *B, "
                                       "double *C)"));
    CU_ASSERT_PTR_NOT_NULL(strstr(out, tc_plan_algorithm(p)));
    CU_ASSERT_PTR_NOT_NULL(strstr(out, "predicted"));
    CU_ASSERT_PTR_NOT_NULL(strstr(out, "machine"));
    CU_ASSERT_PTR_NOT_NULL(strstr(out, text));
    CU_ASSERT_PTR_NOT_NULL(strstr(out, "cblas_"));
    free(out);

    s = TC_EINTERNAL;
    out = emit_text(p, "my_contract2", &s);
    CU_ASSERT_EQUAL(s, TC_OK);
    CU_ASSERT_PTR_NOT_NULL_FATAL(out);
    CU_ASSERT_PTR_NOT_NULL(strstr(out, "int my_contract2("));
    CU_ASSERT_PTR_NULL(strstr(out, "int contraction("));
    free(out);

    static const char *const bad_names[] = {"9x", "", "a-b", "my fn", "x;"};
    for (size_t k = 0; k < sizeof bad_names / sizeof bad_names[0]; k++) {
        s = TC_OK;
        out = emit_text(p, bad_names[k], &s);
        CU_ASSERT_EQUAL(s, TC_EUSAGE);
        if (s != TC_EUSAGE)
            fprintf(stderr, "\n  function name '%s' accepted\n", bad_names[k]);
        free(out);
    }

    FILE *f = tmpfile();
    CU_ASSERT_PTR_NOT_NULL_FATAL(f);
    CU_ASSERT_EQUAL(tc_plan_emit_c(NULL, f, NULL), TC_EUSAGE);
    CU_ASSERT_EQUAL(tc_plan_emit_c(p, NULL, NULL), TC_EUSAGE);
    CU_ASSERT_EQUAL(tc_plan_emit_c(p, f, "fn"), TC_OK);
    CU_ASSERT(ftell(f) > 0);
    fclose(f);

    /* A plan from wisdom says so ("remembered"), still names the machine. */
    tc_plan *q = tc_plan_create(text, "a=b=c=24,i=8", TC_ESTIMATE | TC_EMITTABLE, &err);
    CU_ASSERT_PTR_NOT_NULL_FATAL(q);
    CU_ASSERT_STRING_EQUAL(tc_plan_origin(q), "wisdom");
    out = emit_text(q, NULL, &s);
    CU_ASSERT_EQUAL(s, TC_OK);
    CU_ASSERT_PTR_NOT_NULL_FATAL(out);
    CU_ASSERT_PTR_NOT_NULL(strstr(out, tc_plan_algorithm(q)));
    CU_ASSERT_PTR_NOT_NULL(strstr(out, "machine"));
    free(out);
    tc_plan_destroy(q);

    /* A row-major plan says it is row-major. */
    q = tc_plan_create(text, "a=b=c=24,i=8", TC_ESTIMATE | TC_ROW_MAJOR | TC_EMITTABLE, &err);
    CU_ASSERT_PTR_NOT_NULL_FATAL(q);
    out = emit_text(q, NULL, &s);
    CU_ASSERT_EQUAL(s, TC_OK);
    CU_ASSERT_PTR_NOT_NULL_FATAL(out);
    CU_ASSERT_PTR_NOT_NULL(strstr(out, "row-major"));
    free(out);
    tc_plan_destroy(q);

    tc_plan_destroy(p);
}

/* tc_execute_scaled: one plan of "+= 0.5 *" run with other factors and
 * betas, NULL meaning the plan's own; C = A * B checked by hand where
 * A = [1 2; 3 4] (column-major) and B the identity. */
static void test_execute_scaled(void)
{
    tc_error err;
    tc_plan *p = tc_plan_create("C[a,b] += 0.5 * A[a,i] * B[i,b]", "a=b=i=2", TC_ESTIMATE, &err);
    CU_ASSERT_PTR_NOT_NULL_FATAL(p);
    const double A[4] = {1, 2, 3, 4}, B[4] = {1, 0, 0, 1};
    double C[4] = {10, 10, 10, 10};
    const double two = 2.0, zero = 0.0, minus = -1.0;
    CU_ASSERT_EQUAL(tc_execute_scaled(p, NULL, A, B, NULL, C), TC_OK); /* the plan's own */
    CU_ASSERT_EQUAL(C[0], 10.5);
    CU_ASSERT_EQUAL(C[3], 12.0);
    CU_ASSERT_EQUAL(tc_execute_scaled(p, &two, A, B, &zero, C), TC_OK); /* C = 2 A B */
    CU_ASSERT_EQUAL(C[0], 2.0);
    CU_ASSERT_EQUAL(C[1], 4.0);
    CU_ASSERT_EQUAL(C[2], 6.0);
    CU_ASSERT_EQUAL(C[3], 8.0);
    CU_ASSERT_EQUAL(tc_execute_scaled(p, &minus, A, B, &two, C), TC_OK); /* 2 C - A B */
    CU_ASSERT_EQUAL(C[0], 3.0);
    CU_ASSERT_EQUAL(C[3], 12.0);
    CU_ASSERT_EQUAL(tc_execute_scaled(p, &zero, A, B, &minus, C), TC_OK); /* -C only */
    CU_ASSERT_EQUAL(C[0], -3.0);
    CU_ASSERT_EQUAL(tc_execute_scaled(NULL, &two, A, B, &zero, C), TC_EUSAGE);
    CU_ASSERT_EQUAL(tc_execute_scaled(p, &two, NULL, B, &zero, C), TC_EUSAGE);
    CU_ASSERT_EQUAL(tc_execute_scaled(p, &two, A, B, &zero, NULL), TC_EUSAGE);
    CU_ASSERT_EQUAL(C[0], -3.0); /* nothing done */
    tc_plan_destroy(p);
    /* the corpus' plans with other scalars, against the reference */
    tc_corpus_entry *corpus;
    int n = tc_corpus_require(&corpus);
    for (int k = 0; k < n; k++) {
        tc_plan *q = tc_plan_create(corpus[k].text, corpus[k].sizes, TC_ESTIMATE, &err);
        CU_ASSERT_PTR_NOT_NULL(q);
        if (!q)
            continue;
        tc_contraction c = corpus[k].c;
        c.alpha = -0.75;
        c.beta = 1.5;
        int64_t na = c.tensor[TC_A].elements, nb = c.tensor[TC_B].elements,
                nc = c.tensor[TC_C].elements;
        double *a = tc_rt_alloc(na, NULL), *b = tc_rt_alloc(nb, NULL), *got = tc_rt_alloc(nc, NULL),
               *want = tc_rt_alloc(nc, NULL);
        CU_ASSERT_FATAL(a && b && got && want);
        uint64_t st = 99 + (uint64_t)k;
        tc_corpus_fill(a, na, &st);
        tc_corpus_fill(b, nb, &st);
        tc_corpus_fill(got, nc, &st);
        memcpy(want, got, (size_t)nc * sizeof *got);
        tc_rt_reference(&c, a, b, want);
        CU_ASSERT_EQUAL(tc_execute_scaled(q, &c.alpha, a, b, &c.beta, got), TC_OK);
        CU_ASSERT(tc_corpus_relerr(got, want, nc) < 1e-12);
        tc_rt_free(a);
        tc_rt_free(b);
        tc_rt_free(got);
        tc_rt_free(want);
        tc_plan_destroy(q);
    }
}

static void test_null_accessors(void)
{
    tc_plan_destroy(NULL);
    CU_ASSERT_PTR_NULL(tc_plan_algorithm(NULL));
    CU_ASSERT_PTR_NULL(tc_plan_origin(NULL));
    CU_ASSERT_EQUAL(tc_plan_predicted_seconds(NULL), 0.0);
    double x[4] = {0, 0, 0, 0};
    CU_ASSERT_EQUAL(tc_execute(NULL, x, x, x), TC_EUSAGE);

    tc_error err;
    tc_plan *p = tc_plan_create("C[a,b] = A[a,i] * B[i,b]", "a=b=i=2", TC_ESTIMATE, &err);
    CU_ASSERT_PTR_NOT_NULL_FATAL(p);
    double A[4] = {1, 2, 3, 4}, B[4] = {1, 0, 0, 1}, C[4] = {7, 7, 7, 7};
    CU_ASSERT_EQUAL(tc_execute(p, NULL, B, C), TC_EUSAGE);
    CU_ASSERT_EQUAL(tc_execute(p, A, NULL, C), TC_EUSAGE);
    CU_ASSERT_EQUAL(tc_execute(p, A, B, NULL), TC_EUSAGE);
    /* nothing done */
    CU_ASSERT_EQUAL(C[0], 7.0);
    CU_ASSERT_EQUAL(C[3], 7.0);
    CU_ASSERT_EQUAL(tc_execute(p, A, B, C), TC_OK);
    CU_ASSERT_EQUAL(C[0], 1.0);
    CU_ASSERT_EQUAL(C[1], 2.0);
    CU_ASSERT_EQUAL(C[2], 3.0);
    CU_ASSERT_EQUAL(C[3], 4.0);
    tc_plan_destroy(p);
}

/* ---- 9. err == NULL on failing input ---------------------------------- */

/* Sets an environment variable for a moment (restore with env_restore). */
typedef struct saved_env {
    const char *name;
    char value[256];
    int had;
} saved_env;

static void env_set(saved_env *e, const char *name, const char *value)
{
    const char *v = getenv(name);
    e->name = name;
    e->had = v != NULL;
    snprintf(e->value, sizeof e->value, "%s", v ? v : "");
    setenv(name, value, 1);
}

static void env_restore(const saved_env *e)
{
    if (e->had)
        setenv(e->name, e->value, 1);
    else
        unsetenv(e->name);
}

/* A code that runs OpenBLAS on 1 thread plans with TCGEN_THREADS=2 (the
 * plan's wisdom says 2) and executes: its count is 1 after each call. */
static void test_blas_threads_kept(void)
{
    void *h = dlopen("libopenblas.so.0", RTLD_NOW | RTLD_LOCAL);
    CU_ASSERT_PTR_NOT_NULL_FATAL(h);
    void *set_p = dlsym(h, "openblas_set_num_threads"), *get_p = dlsym(h, "openblas_get_num_threads");
    CU_ASSERT_FATAL(set_p && get_p);
    void (*set)(int);
    int (*get)(void);
    memcpy(&set, &set_p, sizeof set);
    memcpy(&get, &get_p, sizeof get);
    int before = get();
    set(1);
    saved_env e;
    env_set(&e, "TCGEN_THREADS", "2");
    tc_wisdom_forget();
    tc_error err;
    tc_plan *p = tc_plan_create("C[a,b] = A[a,i] * B[i,b]", "a=b=96,i=64", TC_ESTIMATE, &err);
    CU_ASSERT_PTR_NOT_NULL_FATAL(p);
    CU_ASSERT_EQUAL(get(), 1);
    char *w = tc_wisdom_export_string(NULL), line[4096], *field[16];
    CU_ASSERT_FATAL(w && first_entry(w, line, sizeof line));
    CU_ASSERT_EQUAL_FATAL(split_tabs(line, field, 15), 9);
    CU_ASSERT_STRING_EQUAL(field[4], "2"); /* the plan is for 2 threads */
    free(w);
    double *abc = calloc(3 * 96 * 96, sizeof *abc);
    CU_ASSERT_PTR_NOT_NULL_FATAL(abc);
    CU_ASSERT_EQUAL(tc_execute(p, abc, abc + 96 * 96, abc + 2 * 96 * 96), TC_OK);
    CU_ASSERT_EQUAL(get(), 1);
    free(abc);
    tc_plan_destroy(p);
    tc_wisdom_forget();
    env_restore(&e);
    set(before);
    dlclose(h);
}

/* Loops split over threads (issue 39): at 2 threads a plan's candidates
 * include the threaded algorithms (NAME@2), for emitted C too; one
 * remembered in wisdom is planned from it and runs right, leaving the
 * code's BLAS thread count alone; a remembered split of a loop that cannot
 * be split (a contracted index around dger, which has no beta to start a
 * partial C from 0) is refused. */
static const char split_text[] = "C[a,b,c] = A[a,d] * B[d,b,c]"; /* canonical */

static int split_count(const tc_plan *p)
{
    int n = 0;
    for (int i = 0; i < p->set->count; i++)
        n += p->set->alg[i]->split == 2 && strstr(p->set->alg[i]->name, "@2") != NULL;
    return n;
}

static void test_threaded_plan(void)
{
    saved_env e;
    env_set(&e, "TCGEN_THREADS", "2");
    tc_wisdom_forget();
    tc_error err;
    tc_plan *p = tc_plan_create(split_text, "a=b=c=24,d=8", TC_ESTIMATE, &err);
    tc_wisdom_forget(); /* q ranks too: a plan from wisdom holds its algorithm alone */
    tc_plan *q = tc_plan_create(split_text, "a=b=c=24,d=8", TC_ESTIMATE | TC_EMITTABLE, &err);
    CU_ASSERT_FATAL(p && q);
    CU_ASSERT(split_count(p) > 5);
    CU_ASSERT_EQUAL(split_count(q), split_count(p));
    tc_plan_destroy(p);
    tc_plan_destroy(q);
    tc_wisdom_forget();
    static const char head[] = "# tcgen wisdom 1\n# contraction\tsizes\tlayout\tblas\t"
                               "threads\tmachine\talgorithm\tseconds\torigin\n";
    char machine[512], text[2048];
    tc_hardware hw;
    tc_mb_hardware_detect(&hw, NULL);
    tc_plan_machine_signature(&hw, machine, sizeof machine);
    const char *names[2] = {"c-dgemm@2", "dc-dger@2"};
    for (int k = 0; k < 2; k++) {
        snprintf(text, sizeof text, "%s%s\ta=24,b=24,c=24,d=8\tcol\topenblas\t2\t%s\t%s\t"
                 "1e-05\testimate\n", head, split_text, machine, names[k]);
        tc_wisdom_forget();
        tc_status st = tc_wisdom_import_string(text, &err);
        if ((st == TC_OK) != (k == 0))
            fprintf(stderr, "\n  %s: %s\n", names[k], st == TC_OK ? "taken" : err.message);
        CU_ASSERT_EQUAL(st == TC_OK, k == 0);
    }
    snprintf(text, sizeof text, "%s%s\ta=24,b=24,c=24,d=8\tcol\topenblas\t2\t%s\t%s\t"
             "1e-05\testimate\n", head, split_text, machine, names[0]);
    tc_wisdom_forget();
    CU_ASSERT_EQUAL_FATAL(tc_wisdom_import_string(text, &err), TC_OK);
    p = tc_plan_create(split_text, "a=b=c=24,d=8", TC_WISDOM_ONLY, &err);
    CU_ASSERT_PTR_NOT_NULL_FATAL(p);
    CU_ASSERT_STRING_EQUAL(tc_plan_algorithm(p), "c-dgemm@2");
    CU_ASSERT(tc_test_exec_vs_reference(p, split_text, "a=b=c=24,d=8", 61) < TOL);
    tc_plan_destroy(p);
    tc_wisdom_forget();
    env_restore(&e);
}

/* split_text renamed: X, Y, Z for C, A, B and p, q, r, s for a, b, c, d. */
static const char split_twin[] = "X[p,q,r] = Y[p,s] * Z[s,q,r]";

/* An algorithm's name with the letters of `from` renamed to those of `to`
 * before its kernel. */
static void rename_name(const char *name, const char *from, const char *to, char *out,
                        size_t n)
{
    snprintf(out, n, "%s", name);
    for (char *x = out, *dash = strrchr(out, '-'); *x && (!dash || x < dash); x++) {
        const char *at = strchr(from, *x);
        if (at)
            *x = to[at - from];
    }
}

/* At 2 threads, a renamed contraction from wisdom: a remembered split
 * (c-dgemm@2, canonical) is its own loop split, built alone (its base and
 * the split copy the plan's only algorithms), and runs right; and the
 * decision a ranked plan of the ring term remembers (split or not: it
 * was iej-dgemm@2 here) is found again in its renamed twin's names. */
static void test_threaded_from_wisdom(void)
{
    saved_env e;
    env_set(&e, "TCGEN_THREADS", "2");
    static const char head[] = "# tcgen wisdom 1\n# contraction\tsizes\tlayout\tblas\t"
                               "threads\tmachine\talgorithm\tseconds\torigin\n";
    char machine[512], text[2048], want[256];
    tc_hardware hw;
    tc_mb_hardware_detect(&hw, NULL);
    tc_plan_machine_signature(&hw, machine, sizeof machine);
    snprintf(text, sizeof text, "%s%s\ta=24,b=24,c=24,d=8\tcol\topenblas\t2\t%s\t"
             "c-dgemm@2\t1e-05\testimate\n", head, split_text, machine);
    tc_wisdom_forget();
    tc_error err;
    CU_ASSERT_EQUAL_FATAL(tc_wisdom_import_string(text, &err), TC_OK);
    tc_plan *p = tc_plan_create(split_twin, "p=q=r=24,s=8", TC_WISDOM_ONLY, &err);
    CU_ASSERT_PTR_NOT_NULL_FATAL(p);
    CU_ASSERT_STRING_EQUAL(tc_plan_algorithm(p), "r-dgemm@2");
    CU_ASSERT_EQUAL(p->alg->split, 2);
    CU_ASSERT_EQUAL(p->set->count, 2);
    CU_ASSERT(tc_test_exec_vs_reference(p, split_twin, "p=q=r=24,s=8", 67) < TOL);
    tc_plan_destroy(p);
    tc_wisdom_forget();
    p = tc_plan_create("R[a,b,i,j] += T[a,e,i,m] * W[m,b,e,j]", "a=b=e=48,i=j=m=24",
                       TC_ESTIMATE, &err);
    CU_ASSERT_PTR_NOT_NULL_FATAL(p);
    rename_name(tc_plan_algorithm(p), "RTWabijem", "XYZpqrstu", want, sizeof want);
    tc_plan *q = tc_plan_create("X[p,q,r,s] += -0.5 * Y[p,t,r,u] * Z[u,q,t,s]",
                                "p=q=t=48,r=s=u=24", TC_WISDOM_ONLY, &err);
    CU_ASSERT_PTR_NOT_NULL_FATAL(q);
    CU_ASSERT_STRING_EQUAL(tc_plan_algorithm(q), want);
    CU_ASSERT_EQUAL(q->set->count, q->alg->split > 1 ? 2 : 1);
    tc_plan_destroy(p);
    tc_plan_destroy(q);
    tc_wisdom_forget();
    env_restore(&e);
}

/* Near-ties broken by structure (tc_rank_break_ties, issue 37): within
 * their spreads (and TC_RANK_TIE_MAX) the fewest calls wins, then C
 * written in order, then the name; apart, or without spreads, the order
 * stands. */
static void test_break_ties(void)
{
    tc_contraction c;
    CU_ASSERT_FATAL(tc_test_parse_cm(split_text, "a=b=c=24,d=8", &c) == 0);
    tc_algorithm_set *set = NULL;
    tc_error err;
    CU_ASSERT_FATAL(tc_gen_enumerate_families(&c, 1u << TC_KERNEL_DGEMM, TC_FAMILY_MASK_ALL,
                                              &set, &err) == TC_OK);
    const tc_algorithm *one = tc_alg_set_find(set, "(bc)-dgemm"); /* 1 call */
    const tc_algorithm *b = tc_alg_set_find(set, "b-dgemm");
    const tc_algorithm *cl = tc_alg_set_find(set, "c-dgemm");
    CU_ASSERT_FATAL(one && b && cl);
    static const struct {
        double spread;     /* of both */
        const char *first; /* after the ties are broken */
    } cases[] = {{0.02, "(bc)-dgemm"}, {0.005, "c-dgemm"}, {0.0, "c-dgemm"}};
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
        tc_rank_entry e[3] = {{cl, 1.00, 0, cases[k].spread, 3},
                              {one, 1.02, 0, cases[k].spread, 3},
                              {b, 1.50, 0, cases[k].spread, 3}};
        tc_rank_break_ties(e, 3);
        CU_ASSERT_STRING_EQUAL(e[0].alg->name, cases[k].first);
        CU_ASSERT_PTR_EQUAL(e[2].alg, b); /* too far to tie: stays last */
    }
    tc_rank_entry same[2] = {{cl, 1.00, 0, 0.01, 3}, {b, 1.01, 0, 0.01, 3}}; /* 24 calls each */
    tc_rank_break_ties(same, 2);
    CU_ASSERT_PTR_EQUAL(same[0].alg, b);
    CU_ASSERT_PTR_EQUAL(same[1].alg, cl);
    /* within wide spreads but more than TC_RANK_TIE_MAX apart: no tie */
    tc_rank_entry wide[2] = {{cl, 1.00, 0, 0.2, 3}, {one, 1.0 + 2 * TC_RANK_TIE_MAX, 0, 0.2, 3}};
    tc_rank_break_ties(wide, 2);
    CU_ASSERT_PTR_EQUAL(wide[0].alg, cl);
    tc_alg_set_free(set);
    /* equal calls, nothing moved: the loops that write C front to back
     * (d outside c) go first, whichever the name or the order */
    CU_ASSERT_FATAL(tc_test_parse_cm("C[a,b,c,d] = A[a,e] * B[e,b,c,d]", "a=b=c=d=e=8", &c) == 0);
    CU_ASSERT_FATAL(tc_gen_enumerate_families(&c, 1u << TC_KERNEL_DGEMM, TC_FAMILY_MASK_ALL,
                                              &set, &err) == TC_OK);
    const tc_algorithm *cd = tc_alg_set_find(set, "cd-dgemm"), *dc = tc_alg_set_find(set, "dc-dgemm");
    CU_ASSERT_FATAL(cd && dc);
    for (int k = 0; k < 2; k++) {
        tc_rank_entry order[2] = {{k ? dc : cd, 1.00, 0, 0.01, 3}, {k ? cd : dc, 1.01, 0, 0.01, 3}};
        tc_rank_break_ties(order, 2);
        CU_ASSERT_PTR_EQUAL(order[0].alg, dc);
    }
    tc_alg_set_free(set);
}

/* An algorithm that only adds data movement to another's calls
 * (tc_rank_break_ties): A^k-dgemm of C[i,j,k] = A[i,l,k] * B[l,j]
 * permutes A and then makes k-dgemm's calls on slices farther apart; up
 * to TC_RANK_DOMINATED_MAX ahead it yields to k-dgemm, beyond that the
 * prediction stands. A^C^-dgemm (one call) and i'-dgemm (other calls) are
 * not its doubles; split ones only dominate split ones. */
static void test_dominated(void)
{
    tc_contraction c;
    CU_ASSERT_FATAL(tc_test_parse_cm("C[i,j,k] = A[i,l,k] * B[l,j]", "i=l=12,j=k=10", &c) == 0);
    tc_algorithm_set *set = NULL;
    tc_error err;
    CU_ASSERT_FATAL(tc_gen_enumerate_families(&c, 1u << TC_KERNEL_DGEMM, TC_FAMILY_MASK_ALL,
                                              &set, &err) == TC_OK);
    const tc_algorithm *ak = tc_alg_set_find(set, "A^k-dgemm"), *k = tc_alg_set_find(set, "k-dgemm");
    const tc_algorithm *one = tc_alg_set_find(set, "A^C^-dgemm"), *ip = tc_alg_set_find(set, "i'-dgemm");
    CU_ASSERT_FATAL(ak && k && one && ip);
    const double near = 1.0 + TC_RANK_DOMINATED_MAX / 2, far = 1.0 + 2 * TC_RANK_DOMINATED_MAX;
    tc_rank_entry e[3] = {{ak, 1.0, 0, 0, 1}, {one, 1.01, 0, 0, 1}, {k, near, 0, 0, 1}};
    tc_rank_break_ties(e, 3);
    CU_ASSERT_PTR_EQUAL(e[0].alg, k);
    CU_ASSERT_PTR_EQUAL(e[1].alg, ak);
    CU_ASSERT_PTR_EQUAL(e[2].alg, one);
    tc_rank_entry apart[2] = {{ak, 1.0, 0, 0, 1}, {k, far, 0, 0, 1}};
    tc_rank_break_ties(apart, 2);
    CU_ASSERT_PTR_EQUAL(apart[0].alg, ak);
    tc_rank_entry others[2] = {{ak, 1.0, 0, 0, 1}, {ip, near, 0, 0, 1}};
    tc_rank_break_ties(others, 2);
    CU_ASSERT_PTR_EQUAL(others[0].alg, ak);
    tc_rank_entry reverse[2] = {{k, 1.0, 0, 0, 1}, {ak, 1.01, 0, 0, 1}};
    tc_rank_break_ties(reverse, 2);
    CU_ASSERT_PTR_EQUAL(reverse[0].alg, k);
    /* k-dgemm with A's slices farther apart than A^k-dgemm's: no double */
    tc_algorithm wide = *k;
    tc_node node = *k->kernel_node;
    tc_call call = *node.call;
    call.arg[1].ld = ak->kernel_node->call->arg[1].ld + 1;
    node.call = &call;
    wide.kernel_node = &node;
    tc_rank_entry spaced[2] = {{ak, 1.0, 0, 0, 1}, {&wide, near, 0, 0, 1}};
    tc_rank_break_ties(spaced, 2);
    CU_ASSERT_PTR_EQUAL(spaced[0].alg, ak);
    const tc_algorithm *ak2 = tc_alg_split(set, ak, &c, 2), *k2 = tc_alg_split(set, k, &c, 2);
    CU_ASSERT_FATAL(ak2 && k2);
    tc_rank_entry split[3] = {{ak2, 1.0, 0, 0, 1}, {k, near, 0, 0, 1}, {k2, near, 0, 0, 1}};
    tc_rank_break_ties(split, 3);
    CU_ASSERT_PTR_EQUAL(split[0].alg, k2);
    tc_alg_set_free(set);
}

static void test_null_err(void)
{
    const char *text = "C[a,b] = A[a,i] * B[i,b]", *sizes = "a=b=i=4";
    tc_wisdom_forget();
    CU_ASSERT_PTR_NULL(tc_plan_create(NULL, sizes, TC_ESTIMATE, NULL));
    CU_ASSERT_PTR_NULL(tc_plan_create(text, NULL, TC_ESTIMATE, NULL));
    CU_ASSERT_PTR_NULL(tc_plan_create("C[a] = A[a,i] * B[j]", sizes, TC_ESTIMATE, NULL));
    CU_ASSERT_PTR_NULL(tc_plan_create(text, "a=4,b=x", TC_ESTIMATE, NULL));
    CU_ASSERT_PTR_NULL(tc_plan_create(text, sizes, TC_ESTIMATE | TC_MEASURE, NULL));
    CU_ASSERT_PTR_NULL(tc_plan_create(text, sizes, 0x100, NULL));
    CU_ASSERT_PTR_NULL(tc_plan_create(text, sizes, TC_WISDOM_ONLY, NULL));

    /* The BLAS library missing, a bad thread count. */
    saved_env e;
    env_set(&e, "TCGEN_BLAS", "/nonexistent/libnoblas.so");
    CU_ASSERT_PTR_NULL(tc_plan_create(text, sizes, TC_ESTIMATE, NULL));
    CU_ASSERT_PTR_NULL(tc_plan_create(text, sizes, TC_MEASURE, NULL));
    env_restore(&e);
    env_set(&e, "TCGEN_THREADS", "many");
    CU_ASSERT_PTR_NULL(tc_plan_create(text, sizes, TC_ESTIMATE, NULL));
    env_restore(&e);

    /* The planner's own entry point: NULL arguments, bad options. */
    tc_contraction c;
    CU_ASSERT_EQUAL_FATAL(tc_test_parse_cm(text, sizes, &c), 0);
    tc_plan_options o = tc_plan_options_default();
    CU_ASSERT_PTR_NULL(tc_plan_create_with(NULL, TC_ESTIMATE, &o, NULL));
    CU_ASSERT_PTR_NULL(tc_plan_create_with(&c, TC_ESTIMATE, NULL, NULL));
    o.reps = -1;
    CU_ASSERT_PTR_NULL(tc_plan_create_with(&c, TC_ESTIMATE, &o, NULL));

    /* Emit, accessors, execute. */
    CU_ASSERT_EQUAL(tc_plan_emit_c(NULL, stdout, NULL), TC_EUSAGE);
    CU_ASSERT_EQUAL(tc_plan_emit(NULL, stdout, NULL, NULL), TC_EUSAGE);
    CU_ASSERT_PTR_NULL(tc_plan_time_kind(NULL));
    CU_ASSERT_PTR_NULL(tc_plan_decided_by(NULL));
    tc_plan *p = tc_plan_create(text, sizes, TC_ESTIMATE, NULL);
    CU_ASSERT_PTR_NOT_NULL_FATAL(p);
    FILE *null_out = fopen("/dev/null", "w");
    CU_ASSERT_PTR_NOT_NULL_FATAL(null_out);
    CU_ASSERT_EQUAL(tc_plan_emit_c(p, null_out, "1abc"), TC_EUSAGE);
    fclose(null_out);
    CU_ASSERT_EQUAL(tc_execute(p, NULL, NULL, NULL), TC_EUSAGE);
    tc_plan_destroy(p);
    tc_wisdom_forget();
}

/* A prediction that fails inside the ranking (here: no sizes to analyse)
 * with err == NULL: a status, no crash. */
static void test_rank_failure_null_err(void)
{
    tc_contraction c;
    tc_error err;
    CU_ASSERT_EQUAL_FATAL(tc_parse("C[a,b] = A[a,i] * B[i,b]", &c, &err), TC_OK);
    tc_algorithm_set *set = NULL;
    CU_ASSERT_EQUAL_FATAL(tc_gen_enumerate(&c, TC_KERNEL_MASK_ALL, &set, &err), TC_OK);
    tc_mb_params params;
    memset(&params, 0, sizeof params);
    tc_ranking *r = NULL;
    tc_status s = tc_plan_rank(NULL, &c, (const tc_algorithm *const *)set->alg, set->count,
                               &params, -1, 0, 0, NULL, NULL, &r, NULL);
    CU_ASSERT_EQUAL(s, TC_EINPUT);
    CU_ASSERT_PTR_NULL(r);
    /* ... and with err: the message names the algorithm. */
    s = tc_plan_rank(NULL, &c, (const tc_algorithm *const *)set->alg, set->count, &params, -1,
                     0, 0, NULL, NULL, &r, &err);
    CU_ASSERT_EQUAL(s, TC_EINPUT);
    CU_ASSERT_PTR_NOT_NULL(strstr(err.message, set->alg[0]->name));
    CU_ASSERT_PTR_NOT_NULL(strstr(err.message, "sizes"));
    tc_alg_set_free(set);
}

/* set ranked by su's sampler (keep and rounds as tc_plan_rank takes them);
 * NULL, and the test fails, when the ranking does. */
static tc_ranking *rank_with(tc_plan_setup *su, const tc_contraction *c,
                             const tc_algorithm_set *set, int keep, int rounds)
{
    tc_ranking *r = NULL;
    tc_error err;
    CU_ASSERT_EQUAL(tc_plan_rank(su->sampler, c, (const tc_algorithm *const *)set->alg,
                                 set->count, &su->params, -1, keep, rounds, NULL, NULL, &r,
                                 &err),
                    TC_OK);
    return r;
}

/* Ranked for the best 6 only, the floor prunes algorithms (most of this
 * contraction's are thousands of level-1 calls) and keeps the same best 6
 * as ranking all: the same sampler times the same cases once. Every
 * algorithm is ranked, pruned or skipped. With rounds, every algorithm
 * is predicted again in each of them (interleaved, within the budget:
 * every case timed anew per round, at half the repetitions, which are
 * restored afterwards), and the closest candidates once more: at least
 * rounds x the cases of one ranking timed anew, the ranking complete and
 * sorted but for a near-tie broken by structure (c-dgemm and b-dgemm are
 * predicted about 5 % apart here, well within the 25 % that selects
 * them). */
static void test_rank_keep_and_rounds(void)
{
    tc_contraction c;
    CU_ASSERT_EQUAL_FATAL(tc_test_parse_cm("C[a,b,c] = A[a,i] * B[i,b,c]", "a=b=c=48,i=8", &c), 0);
    tc_algorithm_set *set = NULL;
    tc_error err;
    CU_ASSERT_EQUAL_FATAL(tc_gen_enumerate(&c, TC_KERNEL_MASK_ALL, &set, &err), TC_OK);
    tc_plan_options o = tc_plan_options_default();
    tc_plan_setup su;
    CU_ASSERT_EQUAL_FATAL(tc_plan_setup_open(&o, &su, &err), TC_OK);
    CU_ASSERT(tc_mb_sampler_call_floor(su.sampler, TC_KERNEL_DAXPY) > 0.0);
    const int keep = 6;
    int64_t fresh = tc_mb_sampler_timed(su.sampler);
    tc_ranking *all = rank_with(&su, &c, set, 0, 0);
    int64_t one_ranking = tc_mb_sampler_timed(su.sampler) - fresh;
    tc_ranking *best = rank_with(&su, &c, set, keep, 0);
    CU_ASSERT_FATAL(all && best && all->count >= 2);
    CU_ASSERT_EQUAL(all->pruned, 0);
    CU_ASSERT_EQUAL(all->count, set->count);
    CU_ASSERT(best->pruned > 0);
    CU_ASSERT_EQUAL(best->count + best->pruned + best->skipped + best->no_memory, set->count);
    for (int i = 0; i < keep && i < best->count; i++) {
        CU_ASSERT_STRING_EQUAL(best->entry[i].alg->name, all->entry[i].alg->name);
        if (strcmp(best->entry[i].alg->name, all->entry[i].alg->name))
            fprintf(stderr, "\n  best %d: %s %.3g s pruned, %s %.3g s ranked all", i + 1,
                    best->entry[i].alg->name, best->entry[i].seconds, all->entry[i].alg->name,
                    all->entry[i].seconds);
    }

    int64_t timed = tc_mb_sampler_timed(su.sampler);
    tc_ranking *rounds = rank_with(&su, &c, set, 0, TC_RANK_ROUNDS);
    CU_ASSERT_FATAL(rounds != NULL);
    double cost = 0.0;
    for (int i = 0; i < all->count; i++)
        cost += all->entry[i].cost_s;
    if (TC_RANK_ROUNDS * cost / 2 <= TC_RANK_INTERLEAVE_BUDGET_S) {
        CU_ASSERT(tc_mb_sampler_timed(su.sampler) - timed >= TC_RANK_ROUNDS * one_ranking);
    } else if (all->entry[1].seconds <= 1.25 * all->entry[0].seconds) {
        fprintf(stderr, "\n  the first ranking took %.3g s: interleaved rounds not checked\n",
                cost);
        CU_ASSERT(tc_mb_sampler_timed(su.sampler) > timed);
    } else {
        fprintf(stderr, "\n  the two best predicted %.3g s and %.3g s, over 25 %% apart: "
                        "rounds not checked\n",
                all->entry[0].seconds, all->entry[1].seconds);
    }
    CU_ASSERT_EQUAL(rounds->count, all->count);
    /* sorted, but for a near-tie moved to the front (tc_rank_break_ties):
     * within its spread and the best's of the best */
    for (int i = 2; i < rounds->count; i++)
        CU_ASSERT(rounds->entry[i - 1].seconds <= rounds->entry[i].seconds);
    const tc_rank_entry *e = rounds->entry;
    CU_ASSERT(e[0].seconds <= e[1].seconds ||
              e[0].seconds - e[1].seconds <= e[0].spread + e[1].spread);
    int reps = su.options.reps;
    CU_ASSERT_EQUAL(tc_mb_sampler_set_reps(su.sampler, 0), reps); /* restored, clamped */
    CU_ASSERT_EQUAL(tc_mb_sampler_set_reps(su.sampler, reps + 1), 1);
    CU_ASSERT_EQUAL(tc_mb_sampler_set_reps(su.sampler, reps), reps);
    tc_ranking_free(all);
    tc_ranking_free(best);
    tc_ranking_free(rounds);
    tc_plan_setup_close(&su);
    tc_alg_set_free(set);
}

/* The contenders predicted again whatever the distance (rank.c's
 * refine): the best and the runner-up, here one dgemm and a ddot nest
 * 60 times slower, which a rule of "within 25 % of the best" alone never
 * refined; the third, as slow, is no contender. Whether or not the
 * interleaved rounds ran on all three, the two have more predictions. */
static void test_rank_contenders(void)
{
    tc_contraction c;
    CU_ASSERT_EQUAL_FATAL(tc_test_parse_cm("C[a,b,c] = A[a,i] * B[i,b,c]", "a=b=c=48,i=8", &c), 0);
    tc_algorithm_set *set = NULL;
    tc_error err;
    CU_ASSERT_EQUAL_FATAL(tc_gen_enumerate_families(&c, TC_KERNEL_MASK_ALL, TC_FAMILY_MASK_ALL, &set, &err), TC_OK);
    const tc_algorithm *algs[3] = {tc_alg_set_find(set, "abc-ddot"),
                                   tc_alg_set_find(set, "(bc)-dgemm"),
                                   tc_alg_set_find(set, "cba-ddot")};
    CU_ASSERT_FATAL(algs[0] && algs[1] && algs[2]);
    tc_plan_options o = tc_plan_options_default();
    tc_plan_setup su;
    CU_ASSERT_EQUAL_FATAL(tc_plan_setup_open(&o, &su, &err), TC_OK);
    tc_ranking *r = NULL;
    CU_ASSERT_EQUAL_FATAL(tc_plan_rank(su.sampler, &c, algs, 3, &su.params, -1, 0,
                                       TC_RANK_ROUNDS, NULL, NULL, &r, &err),
                          TC_OK);
    CU_ASSERT_EQUAL_FATAL(r->count, 3);
    CU_ASSERT_PTR_EQUAL(r->entry[0].alg, algs[1]);
    int least = r->entry[0].predictions, most = least, at_most = 0;
    for (int i = 1; i < 3; i++) {
        least = r->entry[i].predictions < least ? r->entry[i].predictions : least;
        most = r->entry[i].predictions > most ? r->entry[i].predictions : most;
    }
    for (int i = 0; i < 3; i++)
        at_most += r->entry[i].predictions == most;
    CU_ASSERT(least >= 1);
    CU_ASSERT_EQUAL(most, least + TC_RANK_ROUNDS);
    CU_ASSERT_EQUAL(r->entry[0].predictions, most);
    CU_ASSERT_EQUAL(at_most, 2);
    tc_ranking_free(r);
    tc_plan_setup_close(&su);
    tc_alg_set_free(set);
}

/* ---- 10. a host program under a comma-decimal locale ------------------- */

/* The emitted C of p as a heap string (caller frees), or NULL; the
 * header's wrapped lines joined ("\n *   " becomes one space). */
static char *emitted(const tc_plan *p)
{
    char *text = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&text, &len);
    if (!f)
        return NULL;
    tc_status s = tc_plan_emit_c(p, f, NULL);
    fclose(f);
    if (s != TC_OK) {
        free(text);
        return NULL;
    }
    char *w = text;
    for (const char *r = text; *r;) {
        if (r[0] == '\n' && r[1] == ' ' && r[2] == '*' && r[3] == ' ') {
            for (r += 3; *r == ' '; r++)
                ;
            *w++ = ' ';
        } else {
            *w++ = *r++;
        }
    }
    *w = '\0';
    return text;
}

static void test_comma_locale(void)
{
    const char *text = "C[a,b] += 0.5 * A[a,i] * B[i,b]", *sizes = "a=9,b=11,i=5";
    /* The reference is parsed under "C", before the switch. */
    tc_contraction c;
    CU_ASSERT_EQUAL_FATAL(tc_test_parse_cm(text, sizes, &c), 0);
    CU_ASSERT_EQUAL_FATAL(c.alpha, 0.5);
    if (!setlocale(LC_ALL, "de_DE.UTF-8") && !setlocale(LC_ALL, "de_DE.utf8")) {
        fprintf(stderr, "\n  locale de_DE.UTF-8 missing (scripts/install-deps.sh installs it): "
                        "comma-decimal test skipped\n");
        CU_PASS("de_DE.UTF-8 missing: skipped");
        return;
    }
    /* The locale really reads "0.5" as 0 (else the test proves nothing). */
    CU_ASSERT_EQUAL(strtod("0.5", NULL), 0.0);

    tc_wisdom_forget();
    tc_error err;
    tc_plan *p = tc_plan_create(text, sizes, TC_ESTIMATE, &err);
    if (!p)
        fprintf(stderr, "\n  tc_plan_create under de_DE: %s\n", err.message);
    CU_ASSERT_PTR_NOT_NULL(p);
    if (p) {
        int64_t na = c.tensor[TC_A].elements, nb = c.tensor[TC_B].elements;
        int64_t nc = c.tensor[TC_C].elements;
        double *A = tc_rt_alloc(na, NULL), *B = tc_rt_alloc(nb, NULL);
        double *got = tc_rt_alloc(nc, NULL), *want = tc_rt_alloc(nc, NULL);
        CU_ASSERT_FATAL(A && B && got && want);
        uint64_t st = 21;
        tc_corpus_fill(A, na, &st);
        tc_corpus_fill(B, nb, &st);
        tc_corpus_fill(got, nc, &st);
        memcpy(want, got, (size_t)nc * sizeof *got);
        tc_rt_reference(&c, A, B, want);
        CU_ASSERT_EQUAL(tc_execute(p, A, B, got), TC_OK);
        double e = tc_corpus_relerr(got, want, nc);
        CU_ASSERT(e <= TOL);
        if (!(e <= TOL))
            fprintf(stderr, "\n  under de_DE: relative error %g\n", e);
        tc_rt_free(A);
        tc_rt_free(B);
        tc_rt_free(got);
        tc_rt_free(want);

        /* The emitted factor is C's 0.5, not "0,5". */
        char *code = emitted(p);
        CU_ASSERT_PTR_NOT_NULL(code);
        CU_ASSERT_PTR_NULL(code ? strstr(code, "0,5") : NULL);
        CU_ASSERT_PTR_NOT_NULL(code ? strstr(code, "0.5") : NULL);
        free(code);

        /* Wisdom written and read under the locale: the same decision. */
        char path[400];
        tmp_path("locale.wisdom", path, sizeof path);
        unlink(path);
        CU_ASSERT_EQUAL(tc_wisdom_export_file(path, &err), TC_OK);
        char *file = read_text(path);
        char line[4096], *field[16];
        CU_ASSERT_FATAL(file && first_entry(file, line, sizeof line));
        CU_ASSERT_EQUAL_FATAL(split_tabs(line, field, 15), 9);
        CU_ASSERT_PTR_NULL(strchr(field[7], ','));
        free(file);
        tc_wisdom_forget();
        CU_ASSERT_EQUAL(tc_wisdom_import_file(path, &err), TC_OK);
        tc_plan *q = tc_plan_create(text, sizes, TC_WISDOM_ONLY, &err);
        CU_ASSERT_PTR_NOT_NULL(q);
        if (q)
            CU_ASSERT_STRING_EQUAL(tc_plan_algorithm(q), tc_plan_algorithm(p));
        tc_plan_destroy(q);
        unlink(path);
        tc_plan_destroy(p);
    }
    setlocale(LC_ALL, "C");
    tc_wisdom_forget();
}

/* ---- 11. TC_MEASURE and what it is satisfied by ------------------------- */

/* The origin the wisdom holds for the problem of plan p ("" when none). */
static const char *remembered_origin(const tc_plan *p)
{
    static tc_wisdom_entry e;
    tc_contraction canon;
    CU_ASSERT_FATAL(tc_contraction_canonical(&p->user, &canon));
    memset(&e, 0, sizeof e);
    tc_contraction_format(&canon, e.contraction, sizeof e.contraction);
    tc_contraction_format_sizes(&canon, e.sizes, sizeof e.sizes);
    snprintf(e.layout, sizeof e.layout, "col");
    snprintf(e.blas, sizeof e.blas, "%s", p->blas->name);
    e.threads = p->blas->threads;
    snprintf(e.machine, sizeof e.machine, "%s", p->machine);
    return tc_wisdom_lookup(&e) ? e.origin : "";
}

static void test_measure_over_estimate(void)
{
    const char *text = "C[a,b,c] = A[a,i] * B[i,b,c]", *sizes = "a=b=c=16,i=8";
    tc_wisdom_forget();
    tc_error err;
    tc_plan *p = tc_plan_create(text, sizes, TC_ESTIMATE, &err);
    CU_ASSERT_PTR_NOT_NULL_FATAL(p);
    CU_ASSERT_STRING_EQUAL(tc_plan_origin(p), "estimate");
    CU_ASSERT_STRING_EQUAL(remembered_origin(p), "estimate");
    tc_plan_destroy(p);

    /* TC_MEASURE measures though an estimate is remembered ... */
    p = tc_plan_create(text, sizes, TC_MEASURE, &err);
    CU_ASSERT_PTR_NOT_NULL_FATAL(p);
    CU_ASSERT_STRING_EQUAL(tc_plan_origin(p), "measure");
    CU_ASSERT_STRING_EQUAL(tc_plan_time_kind(p), "measured");
    CU_ASSERT(p->measured > 0);
    CU_ASSERT_STRING_EQUAL(remembered_origin(p), "measure");
    CU_ASSERT_EQUAL(tc_wisdom_count(), 1);
    double exec_err = tc_test_exec_vs_reference(p, text, sizes, 31);
    CU_ASSERT(exec_err <= TOL);
    tc_plan_destroy(p);

    /* ... and a measured decision satisfies both. */
    p = tc_plan_create(text, sizes, TC_MEASURE, &err);
    CU_ASSERT_PTR_NOT_NULL_FATAL(p);
    CU_ASSERT_STRING_EQUAL(tc_plan_origin(p), "wisdom");
    CU_ASSERT_EQUAL(p->measured, 0);
    tc_plan_destroy(p);
    p = tc_plan_create(text, sizes, TC_ESTIMATE, &err);
    CU_ASSERT_PTR_NOT_NULL_FATAL(p);
    CU_ASSERT_STRING_EQUAL(tc_plan_origin(p), "wisdom");
    tc_plan_destroy(p);
    tc_wisdom_forget();
}

/* tc_plan_measure with interleaved rounds: every algorithm measured once per
 * round, each kept with the median of its rounds; one over the limit in
 * the first round is not run again. */
static int progress_calls, progress_total;

static void count_progress(int done, int total, void *data)
{
    (void)data;
    progress_calls++;
    progress_total = total;
    CU_ASSERT_EQUAL(done, progress_calls);
}

static void test_measure_rounds(void)
{
    tc_contraction c;
    CU_ASSERT_EQUAL_FATAL(tc_test_parse_cm("C[a,b,c] = A[a,i] * B[i,b,c]", "a=b=c=16,i=4", &c), 0);
    tc_algorithm_set *set = NULL;
    tc_error err;
    CU_ASSERT_EQUAL_FATAL(tc_gen_enumerate(&c, TC_KERNEL_MASK_ALL, &set, &err), TC_OK);
    const tc_algorithm *algs[3] = {tc_alg_set_find(set, "c-dgemm"),
                                   tc_alg_set_find(set, "bc-dgemv"),
                                   tc_alg_set_find(set, "abc-ddot")};
    CU_ASSERT_FATAL(algs[0] && algs[1] && algs[2]);
    tc_blas *blas = NULL;
    CU_ASSERT_EQUAL_FATAL(tc_rt_blas_load(NULL, 1, &blas, &err), TC_OK);
    for (int rounds = 1; rounds <= 4; rounds += 3) {
        tc_measure_options o = {blas, 3, 10.0, rounds};
        tc_measurements *m = NULL;
        progress_calls = 0;
        CU_ASSERT_EQUAL_FATAL(tc_plan_measure(&c, algs, 3, &o, count_progress, NULL, &m, &err),
                              TC_OK);
        CU_ASSERT_EQUAL(progress_total, 3 * rounds);
        CU_ASSERT_EQUAL(progress_calls, 3 * rounds);
        for (int i = 0; i < 3; i++) {
            CU_ASSERT_PTR_EQUAL(m->entry[i].alg, algs[i]); /* in the order given */
            CU_ASSERT(!m->entry[i].over_limit);
            CU_ASSERT(m->entry[i].seconds > 0 && m->entry[i].seconds < 10.0);
        }
        tc_measurements_free(m);
    }
    /* over the limit: reported at the limit, whatever the rounds */
    tc_measure_options o = {blas, 1, 1e-9, 3};
    tc_measurements *m = NULL;
    CU_ASSERT_EQUAL_FATAL(tc_plan_measure(&c, algs, 3, &o, NULL, NULL, &m, &err), TC_OK);
    for (int i = 0; i < 3; i++)
        CU_ASSERT(m->entry[i].over_limit && m->entry[i].seconds == 1e-9);
    tc_measurements_free(m);
    tc_rt_blas_unload(blas);
    tc_alg_set_free(set);
}

/* Every candidate over the time limit: the prediction decides, and the
 * plan, its time and the emitted header say so. */
static void test_measure_all_over_limit(void)
{
    const char *text = "C[a,b,c] = A[a,i] * B[i,b,c]", *sizes = "a=b=c=24,i=8";
    tc_contraction c;
    CU_ASSERT_EQUAL_FATAL(tc_test_parse_cm(text, sizes, &c), 0);
    tc_wisdom_forget();
    tc_plan_options o = tc_plan_options_default();
    o.time_limit_s = 1e-9; /* no run is that fast */
    o.candidates = 2;
    tc_error err;
    tc_plan *p = tc_plan_create_with(&c, TC_MEASURE | TC_EMITTABLE, &o, &err);
    if (!p)
        fprintf(stderr, "\n  tc_plan_create_with: %s\n", err.message);
    CU_ASSERT_PTR_NOT_NULL_FATAL(p);
    CU_ASSERT(p->measured >= 2);
    CU_ASSERT(p->over_limit);
    CU_ASSERT_STRING_EQUAL(tc_plan_origin(p), "estimate");
    CU_ASSERT_STRING_EQUAL(tc_plan_time_kind(p), "predicted");
    CU_ASSERT_PTR_NOT_NULL(strstr(tc_plan_decided_by(p), "time limit"));
    CU_ASSERT(tc_plan_predicted_seconds(p) != o.time_limit_s);
    CU_ASSERT_STRING_EQUAL(remembered_origin(p), "estimate");
    char *code = emitted(p);
    CU_ASSERT_PTR_NOT_NULL_FATAL(code);
    CU_ASSERT_PTR_NULL(strstr(code, " measured  ")); /* the time line: kind, padding */
    CU_ASSERT_PTR_NOT_NULL(strstr(code, " predicted  "));
    CU_ASSERT_PTR_NOT_NULL(strstr(code, "over the time limit"));
    free(code);
    double e = tc_test_exec_vs_reference(p, text, sizes, 41);
    CU_ASSERT(e <= TOL);
    tc_plan_destroy(p);
    tc_wisdom_forget();
}

/* Plans in float, float complex and double complex (TC_SINGLE,
 * TC_COMPLEX): the typed kernel named, C computed in the type (against
 * the reference, complex scalars through tc_execute_scaled), the type in
 * the wisdom key (a double plan of the same problem is not found from a
 * complex one's wisdom), the C emitted calling the type's routine, and
 * measuring in the type. */
static void test_types(void)
{
    static const unsigned flag[3] = {TC_SINGLE, TC_COMPLEX | TC_SINGLE, TC_COMPLEX};
    static const char *const kernel[3] = {"sgemm", "cgemm", "zgemm"};
    const char *text = "C[a,b,c] = A[a,i] * B[i,b,c]", *sizes = "a=12,b=10,c=9,i=7";
    tc_wisdom_forget();
    for (int t = 0; t < 3; t++) {
        tc_error e;
        tc_plan *p = tc_plan_create(text, sizes, TC_ESTIMATE | flag[t], &e);
        CU_ASSERT_PTR_NOT_NULL_FATAL(p);
        CU_ASSERT_PTR_NOT_NULL(strstr(tc_plan_algorithm(p), kernel[t]));
        tc_contraction c;
        CU_ASSERT_EQUAL_FATAL(tc_test_parse_cm(text, sizes, &c), 0);
        CU_ASSERT_EQUAL(tc_contraction_set_type(&c, tc_plan_type_of(flag[t]), &e), TC_OK);
        c.alpha = 0.5, c.alpha_im = t ? -2.0 : 0.0, c.beta = -1.5, c.beta_im = t ? 0.25 : 0.0;
        int64_t bytes[3];
        void *x[3], *want;
        uint64_t state = 77;
        for (int k = 0; k < 3; k++) {
            bytes[k] = tc_tensor_bytes(&c, k);
            x[k] = tc_rt_alloc(bytes[k] / 4, NULL);
            CU_ASSERT_PTR_NOT_NULL_FATAL(x[k]);
            float *f = x[k]; /* every real of every type in [-1, 1): floats, or doubles */
            double *d = x[k];
            for (int64_t r = 0; r < bytes[k] / (t == 2 ? 8 : 4); r++) {
                double v;
                tc_corpus_fill(&v, 1, &state);
                if (t == 2)
                    d[r] = v;
                else
                    f[r] = (float)v;
            }
        }
        want = tc_rt_alloc(bytes[TC_C] / 4, NULL);
        memcpy(want, x[TC_C], (size_t)bytes[TC_C]);
        tc_rt_reference(&c, x[TC_A], x[TC_B], want);
        double al[2] = {c.alpha, c.alpha_im}, be[2] = {c.beta, c.beta_im};
        float alf[2] = {(float)al[0], (float)al[1]}, bef[2] = {(float)be[0], (float)be[1]};
        CU_ASSERT_EQUAL(tc_execute_scaled(p, t == 2 ? (void *)al : (void *)alf, x[TC_A], x[TC_B],
                                          t == 2 ? (void *)be : (void *)bef, x[TC_C]),
                        TC_OK);
        double err = 0.0;
        for (int64_t r = 0; r < bytes[TC_C] / (t == 2 ? 8 : 4); r++) {
            double g = t == 2 ? ((double *)x[TC_C])[r] : ((float *)x[TC_C])[r];
            double w = t == 2 ? ((double *)want)[r] : ((float *)want)[r];
            err = fabs(g - w) > err ? fabs(g - w) : err;
        }
        CU_ASSERT(err < 100.0 * (t == 2 ? 2.3e-16 : 1.2e-7) * 7 * 4);
        FILE *f = tmpfile(); /* emitted in the type (test_emit compiles such files) */
        CU_ASSERT_EQUAL(tc_plan_emit_c(p, f, NULL), TC_OK);
        if (f) {
            char text[8192];
            size_t n = (rewind(f), fread(text, 1, sizeof text - 1, f));
            text[n] = '\0';
            CU_ASSERT_PTR_NOT_NULL(strstr(text, kernel[t]));
            fclose(f);
        }
        tc_plan *w = tc_plan_create(text, sizes, TC_WISDOM_ONLY | flag[t], &e);
        CU_ASSERT_PTR_NOT_NULL(w);
        if (w)
            CU_ASSERT_STRING_EQUAL(tc_plan_algorithm(w), tc_plan_algorithm(p));
        tc_plan_destroy(w);
        tc_plan *m = tc_plan_create(text, sizes, TC_MEASURE | flag[t], &e);
        CU_ASSERT_PTR_NOT_NULL(m);
        if (m)
            CU_ASSERT_PTR_NOT_NULL(strstr(tc_plan_algorithm(m), kernel[t] + 1));
        tc_plan_destroy(m);
        for (int k = 0; k < 3; k++)
            tc_rt_free(x[k]);
        tc_rt_free(want);
        tc_plan_destroy(p);
    }
    tc_error e;
    CU_ASSERT_PTR_NULL(tc_plan_create(text, sizes, TC_WISDOM_ONLY, &e)); /* double: not known */
    char *text_w = tc_wisdom_export_string(&e);
    CU_ASSERT_PTR_NOT_NULL_FATAL(text_w);
    CU_ASSERT_PTR_NOT_NULL(strstr(text_w, "col:z"));
    CU_ASSERT_PTR_NOT_NULL(strstr(text_w, "col:c"));
    free(text_w);
    tc_wisdom_forget();
}

int tc_suite_plan(void)
{
    CU_pSuite s = CU_add_suite("plan", suite_init, suite_clean);
    if (!s)
        return -1;
    if (!CU_add_test(s, "estimate: chosen, predicted, correct", test_estimate) ||
        !CU_add_test(s, "estimate: +=, factors, scalar C", test_estimate_accumulate) ||
        !CU_add_test(s, "measure: correct, remembered", test_measure) ||
        !CU_add_test(s, "wisdom: export, forget, import, file text", test_wisdom_round_trip) ||
        !CU_add_test(s, "wisdom: a renamed contraction is the same problem", test_wisdom_renamed) ||
        !CU_add_test(s, "wisdom: a remembered algorithm built alone, as ranked",
                     test_wisdom_builds_one) ||
        !CU_add_test(s, "wisdom: damaged files rejected whole, located",
                     test_wisdom_damaged) ||
        !CU_add_test(s, "wisdom: other machine kept, not used", test_wisdom_other_machine) ||
        !CU_add_test(s, "errors: contraction, sizes, flags, NULL", test_errors) ||
        !CU_add_test(s, "concurrent: one plan, two threads", test_concurrent) ||
        !CU_add_test(s, "concurrent: an algorithm with temporaries",
                     test_concurrent_with_copies) ||
        !CU_add_test(s, "row-major: 2 indices, non-square", test_row_major_2d) ||
        !CU_add_test(s, "row-major: 3 indices, +=, permuted", test_row_major_3d) ||
        !CU_add_test(s, "emit: text, function names, NULLs", test_emit) ||
        !CU_add_test(s, "emit: a permuted plan runs and is emitted", test_emit_other_family) ||
        !CU_add_test(s, "accessors and execute on NULL", test_null_accessors) ||
        !CU_add_test(s, "execute_scaled: scalars at run time", test_execute_scaled) ||
        !CU_add_test(s, "err == NULL on failing input", test_null_err) ||
        !CU_add_test(s, "BLAS threads: the code's own count kept", test_blas_threads_kept) ||
        !CU_add_test(s, "threads: loops split, remembered, run", test_threaded_plan) ||
        !CU_add_test(s, "threads: a remembered split of a renamed contraction, built alone",
                     test_threaded_from_wisdom) ||
        !CU_add_test(s, "near-ties broken by calls, C's order, then name", test_break_ties) ||
        !CU_add_test(s, "an algorithm that only adds copies yields to its double",
                     test_dominated) ||
        !CU_add_test(s, "err == NULL: a prediction fails in the ranking",
                     test_rank_failure_null_err) ||
        !CU_add_test(s, "rank: the best few only (a floor prunes), the closest in rounds",
                     test_rank_keep_and_rounds) ||
        !CU_add_test(s, "ranking: the contenders predicted again, however far apart",
                     test_rank_contenders) ||
        !CU_add_test(s, "comma-decimal locale: plan, execute, emit, wisdom",
                     test_comma_locale) ||
        !CU_add_test(s, "measure: not satisfied by estimated wisdom",
                     test_measure_over_estimate) ||
        !CU_add_test(s, "measure: all over the limit, the prediction decides",
                     test_measure_all_over_limit) ||
        !CU_add_test(s, "measure: interleaved rounds", test_measure_rounds) ||
        !CU_add_test(s, "float and complex plans: typed kernels, scalars, wisdom",
                     test_types))
        return -1;
    return 0;
}
