/*
 * run_tests.c - the one CUnit runner.
 *
 *   run_tests [-v] [SUITE | SUITE/PATTERN]...   run the named suites (all when
 *                                               none is named); SUITE/PATTERN
 *                                               runs only the tests of SUITE
 *                                               whose name matches the shell
 *                                               PATTERN (fnmatch, e.g.
 *                                               'emit/golden*')
 *   run_tests -l [SUITE...]                     list the tests, SUITE/NAME
 *
 * It prints one line per suite as it ends (name, tests run, result,
 * seconds), each failed assertion as it happens (file:line), with -v one
 * line per test, and a total. Exit status: 0 all passed, 1 a test or suite
 * set-up failed, 2 usage (an unknown suite, a pattern no test matches).
 * make check runs a selection this way (Makefile, CHECK_TESTS).
 *
 * Each tests/test_<name>.c defines `int tc_suite_<name>(void)`, which adds
 * its suite to the registry; the Makefile lists them in suites.inc.
 */
#include <CUnit/CUnit.h>
#include <CUnit/TestDB.h>
#include <CUnit/TestRun.h>
#include <fnmatch.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define SUITE(name) int tc_suite_##name(void);
#include "tests/suites.inc"
#undef SUITE

struct entry {
    const char *name;
    int (*add)(void);
};

static const struct entry suites[] = {
#define SUITE(name) {#name, tc_suite_##name},
#include "tests/suites.inc"
#undef SUITE
};
enum { NSUITES = sizeof suites / sizeof suites[0] };

static int verbose;
static double suite_start, test_start, run_start;
static unsigned suite_tests, suite_failed;

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static void print_failures(CU_pFailureRecord f, const CU_pTest test)
{
    for (; f; f = f->pNext)
        if (f->pTest == test)
            printf("  FAIL %s/%s: %s:%u: %s\n", f->pSuite ? f->pSuite->pName : "?",
                   test ? test->pName : "?", f->strFileName ? f->strFileName : "?",
                   f->uiLineNumber, f->strCondition ? f->strCondition : "");
}

static void on_suite_start(const CU_pSuite s)
{
    (void)s;
    suite_start = now();
    suite_tests = suite_failed = 0;
}

static void on_test_start(const CU_pTest t, const CU_pSuite s)
{
    (void)t;
    (void)s;
    test_start = now();
}

static void on_test_complete(const CU_pTest t, const CU_pSuite s, const CU_pFailureRecord f)
{
    suite_tests++;
    if (f)
        suite_failed++;
    print_failures(f, t);
    if (verbose)
        printf("    %s/%s: %s %.1f s\n", s->pName, t->pName, f ? "FAILED" : "ok",
               now() - test_start);
    fflush(stdout);
}

static void on_suite_complete(const CU_pSuite s, const CU_pFailureRecord f)
{
    (void)f;
    char result[64];
    if (suite_failed)
        snprintf(result, sizeof result, "FAILED (%u)", suite_failed);
    else
        snprintf(result, sizeof result, "ok");
    printf("  suite %-12s %3u/%-3u tests  %-10s %6.1f s\n", s->pName, suite_tests,
           s->uiNumberOfTests, result, now() - suite_start);
    fflush(stdout);
}

static void on_init_failure(const CU_pSuite s)
{
    printf("  suite %-12s set-up FAILED\n", s->pName);
    fflush(stdout);
}

static void on_cleanup_failure(const CU_pSuite s)
{
    printf("  suite %-12s clean-up FAILED\n", s->pName);
    fflush(stdout);
}

/* Whether ARG names suite NAME ("NAME" or "NAME/PATTERN"); *pattern is then
 * the PATTERN, or NULL for the whole suite. */
static int names_suite(const char *arg, const char *name, const char **pattern)
{
    size_t n = strlen(name);
    if (strncmp(arg, name, n) != 0 || (arg[n] != '\0' && arg[n] != '/'))
        return 0;
    *pattern = arg[n] == '/' ? arg + n + 1 : NULL;
    return 1;
}

static int usage(void)
{
    fprintf(stderr, "usage: run_tests [-v] [SUITE | SUITE/PATTERN]...\n"
                    "       run_tests -l [SUITE...]\nsuites:");
    for (int i = 0; i < NSUITES; i++)
        fprintf(stderr, " %s", suites[i].name);
    fputc('\n', stderr);
    return 2;
}

int main(int argc, char **argv)
{
    int list = 0, first = 1;
    for (; first < argc && argv[first][0] == '-'; first++) {
        if (strcmp(argv[first], "-v") == 0)
            verbose = 1;
        else if (strcmp(argv[first], "-l") == 0)
            list = 1;
        else
            return usage();
    }
    /* Every argument must name a suite (and its pattern some test). */
    char *used = calloc((size_t)argc + 1, 1);
    if (!used || CU_initialize_registry() != CUE_SUCCESS) {
        fprintf(stderr, "run_tests: out of memory\n");
        free(used);
        return 2;
    }
    int status = 0, added = 0;
    for (int i = 0; i < NSUITES && status == 0; i++) {
        int whole = first == argc, named = whole;
        for (int a = first; a < argc; a++) {
            const char *pat;
            if (names_suite(argv[a], suites[i].name, &pat)) {
                named = 1;
                whole |= pat == NULL;
            }
        }
        if (!named)
            continue;
        if (suites[i].add() != 0) {
            fprintf(stderr, "run_tests: cannot add suite %s: %s\n", suites[i].name,
                    CU_get_error_msg());
            status = 2;
            break;
        }
        added++;
        CU_pSuite s = CU_get_suite(suites[i].name);
        if (!s) {
            fprintf(stderr, "run_tests: suite %s did not register as '%s'\n", suites[i].name,
                    suites[i].name);
            status = 2;
            break;
        }
        for (CU_pTest t = s->pTest; t; t = t->pNext) {
            int on = whole;
            for (int a = first; a < argc; a++) {
                const char *pat;
                if (names_suite(argv[a], suites[i].name, &pat)) {
                    if (!used[a])
                        used[a] = 1;
                    if (pat && fnmatch(pat, t->pName, 0) == 0) {
                        on = 1;
                        used[a] = 2;
                    }
                }
            }
            CU_set_test_active(t, on ? CU_TRUE : CU_FALSE);
            if (list && on)
                printf("%s/%s\n", s->pName, t->pName);
        }
    }
    for (int a = first; a < argc && status == 0; a++) {
        const char *slash = strchr(argv[a], '/');
        if (!used[a]) {
            fprintf(stderr, "run_tests: no suite '%.*s'\n",
                    (int)(slash ? (size_t)(slash - argv[a]) : strlen(argv[a])), argv[a]);
            status = usage();
        } else if (slash && used[a] != 2) {
            fprintf(stderr, "run_tests: no test of suite '%.*s' matches '%s'\n",
                    (int)(slash - argv[a]), argv[a], slash + 1);
            status = 2;
        }
    }
    free(used);
    if (status != 0 || list || added == 0) {
        if (status == 0 && added == 0)
            status = usage();
        CU_cleanup_registry();
        return status;
    }

    CU_set_fail_on_inactive(CU_FALSE);
    CU_set_suite_start_handler(on_suite_start);
    CU_set_test_start_handler(on_test_start);
    CU_set_test_complete_handler(on_test_complete);
    CU_set_suite_complete_handler(on_suite_complete);
    CU_set_suite_init_failure_handler(on_init_failure);
    CU_set_suite_cleanup_failure_handler(on_cleanup_failure);
    run_start = now();
    CU_ErrorCode rc = CU_run_all_tests();
    CU_pRunSummary r = CU_get_run_summary();
    int bad = rc != CUE_SUCCESS || r->nTestsFailed != 0 || r->nAssertsFailed != 0 ||
              r->nSuitesFailed != 0;
    printf("run_tests: %u suites, %u tests, %u asserts: %s (%.1f s)\n", r->nSuitesRun,
           r->nTestsRun, r->nAsserts, bad ? "FAILED" : "all passed", now() - run_start);
    if (rc != CUE_SUCCESS)
        printf("run_tests: %s\n", CU_get_error_msg());
    CU_cleanup_registry();
    return bad ? 1 : 0;
}
