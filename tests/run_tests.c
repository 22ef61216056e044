/*
 * run_tests.c - the one CUnit runner. `run_tests [SUITE...]` runs the named
 * suites (all when none is named) and exits non-zero on any failure.
 * Each tests/test_<name>.c defines `int tc_suite_<name>(void)`, which adds
 * its suite to the registry; the Makefile lists them in suites.inc.
 */
#include <CUnit/Basic.h>
#include <stdio.h>
#include <string.h>

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

static int wanted(const char *name, int argc, char **argv)
{
    if (argc < 2)
        return 1;
    for (int i = 1; i < argc; i++)
        if (strcmp(argv[i], name) == 0)
            return 1;
    return 0;
}

int main(int argc, char **argv)
{
    if (CU_initialize_registry() != CUE_SUCCESS)
        return 2;
    int added = 0;
    for (size_t i = 0; i < sizeof suites / sizeof suites[0]; i++) {
        if (!wanted(suites[i].name, argc, argv))
            continue;
        if (suites[i].add() != 0) {
            fprintf(stderr, "run_tests: cannot add suite %s\n", suites[i].name);
            CU_cleanup_registry();
            return 2;
        }
        added++;
    }
    if (added == 0) {
        fprintf(stderr, "run_tests: no suite matches\n");
        CU_cleanup_registry();
        return 2;
    }
    CU_basic_set_mode(CU_BRM_NORMAL);
    CU_basic_run_tests();
    unsigned failed = CU_get_number_of_failures() + CU_get_number_of_tests_failed();
    int bad = failed != 0 || CU_get_error() != CUE_SUCCESS;
    CU_cleanup_registry();
    return bad ? 1 : 0;
}
