/*
 * helpers_plan.h - the plan suites' shared checks: a contraction parsed
 * inside a test, a plan executed against the naive reference.
 */
#ifndef TC_TESTS_HELPERS_PLAN_H
#define TC_TESTS_HELPERS_PLAN_H

#include <stdint.h>

#include "ast/contraction.h"
#include "tcgen.h"

/* Parses text (column-major, with sizes) into *c inside a test; 0 on
 * success, else prints why and returns -1. */
int tc_test_parse_cm(const char *text, const char *sizes, tc_contraction *c);

/*
 * Executes plan p on random data and compares with tc_rt_reference of the
 * column-major contraction text/sizes. For '=' C starts as NaN (it must be
 * overwritten); for '+=' it starts random. Returns the relative error
 * (INFINITY when something failed).
 */
double tc_test_exec_vs_reference(const tc_plan *p, const char *text, const char *sizes,
                                 uint64_t seed);

#endif
