/*
 * cli_parse_oom.c - linked into a copy of the tcgen command
 * (tests/alloc/alloc.mk, -Wl,--wrap=tc_parse,--wrap=malloc,...): with
 * TCGEN_TEST_PARSE_OOM=N in the environment the Nth allocation inside
 * tc_parse fails, so that tests/alloc_fail_test.sh can check what the
 * command does when the parser runs out of memory (exit status 3).
 */
#include <stdlib.h>

#include "parser/parser.h"

static int armed;
static long seen, fail_at;

static int fail_now(void)
{
    return armed && ++seen == fail_at;
}

void *__real_malloc(size_t n);
void *__real_calloc(size_t k, size_t n);
void *__real_realloc(void *p, size_t n);
tc_status __real_tc_parse(const char *text, tc_contraction *out, tc_error *err);

void *__wrap_malloc(size_t n)
{
    return fail_now() ? NULL : __real_malloc(n);
}

void *__wrap_calloc(size_t k, size_t n)
{
    return fail_now() ? NULL : __real_calloc(k, n);
}

void *__wrap_realloc(void *p, size_t n)
{
    return fail_now() ? NULL : __real_realloc(p, n);
}

tc_status __wrap_tc_parse(const char *text, tc_contraction *out, tc_error *err)
{
    const char *n = getenv("TCGEN_TEST_PARSE_OOM");
    fail_at = n ? atol(n) : 0;
    seen = 0;
    armed = 1;
    tc_status s = __real_tc_parse(text, out, err);
    armed = 0;
    return s;
}
