/* test_contraction.c - the IR (ast/contraction.c): hashing, printing, flops,
 * overflow, unused sizes. */
#include <CUnit/CUnit.h>
#include <string.h>

#include "parser/parser.h"
#include "tcgen.h"

static tc_contraction sized(const char *text, const char *sizes)
{
    tc_contraction c, out;
    tc_sizes s;
    tc_error err;
    memset(&s, 0, sizeof s);
    memset(&out, 0, sizeof out);
    CU_ASSERT_EQUAL(tc_parse(text, &c, &err), TC_OK);
    CU_ASSERT_EQUAL(tc_parse_sizes(sizes, 1, &s, &err), TC_OK);
    CU_ASSERT_EQUAL(tc_contraction_set_sizes(&c, &s, &out, &err, NULL), TC_OK);
    return out;
}

static void test_hash(void)
{
    tc_contraction a = sized("C[a,b] = A[a,i] * B[i,b]", "a=b=4,i=2");
    tc_contraction same = sized("C_ab = A_ai B_ib", "i=2 b=4 a=4");
    tc_contraction other_size = sized("C[a,b] = A[a,i] * B[i,b]", "a=b=4,i=3");
    tc_contraction other_beta = sized("C[a,b] += A[a,i] * B[i,b]", "a=b=4,i=2");
    tc_contraction other_alpha = sized("C[a,b] = 2 * A[a,i] * B[i,b]", "a=b=4,i=2");
    tc_contraction other_layout = sized("C[a,b] = A[i,a] * B[i,b]", "a=b=4,i=2");
    uint64_t h = tc_contraction_hash(&a);
    CU_ASSERT_EQUAL(h, tc_contraction_hash(&same));
    CU_ASSERT_NOT_EQUAL(h, tc_contraction_hash(&other_size));
    CU_ASSERT_NOT_EQUAL(h, tc_contraction_hash(&other_beta));
    CU_ASSERT_NOT_EQUAL(h, tc_contraction_hash(&other_alpha));
    CU_ASSERT_NOT_EQUAL(h, tc_contraction_hash(&other_layout));
}

static void test_format(void)
{
    tc_contraction c = sized("C[a,b,c] = A[a,i] * B[i,b,c]", "a=b=c=400,i=8");
    char buf[128], small[8];
    CU_ASSERT_EQUAL(tc_contraction_format_sizes(&c, buf, sizeof buf), strlen("a=400,b=400,c=400,i=8"));
    CU_ASSERT_STRING_EQUAL(buf, "a=400,b=400,c=400,i=8");
    /* snprintf semantics: truncated, terminated, full length returned */
    size_t need = tc_contraction_format(&c, small, sizeof small);
    CU_ASSERT_EQUAL(need, strlen("C[a,b,c] = A[a,i] * B[i,b,c]"));
    CU_ASSERT_STRING_EQUAL(small, "C[a,b,c");
    CU_ASSERT_DOUBLE_EQUAL(tc_contraction_flops(&c), 2.0 * 400 * 400 * 400 * 8, 0.0);
    CU_ASSERT_STRING_EQUAL(tc_role_name(c.index[3].role), "contracted");
}

static void test_overflow(void)
{
    tc_contraction c, out;
    tc_sizes s;
    tc_error err;
    memset(&s, 0, sizeof s);
    CU_ASSERT_EQUAL_FATAL(tc_parse("C[a,b] = A[a,i] * B[i,b]", &c, &err), TC_OK);
    /* 2^31 * 2^29 elements * 8 bytes = 2^63: one too many */
    CU_ASSERT_EQUAL(tc_parse_sizes("a=2147483648,b=2,i=536870912", 1, &s, &err), TC_OK);
    CU_ASSERT_EQUAL(tc_contraction_set_sizes(&c, &s, &out, &err, NULL), TC_EINPUT);
    CU_ASSERT_PTR_NOT_NULL(strstr(err.message, "tensor A is too large"));
    memset(&s, 0, sizeof s);
    CU_ASSERT_EQUAL(tc_parse_sizes("a=2147483648,b=2,i=536870911", 1, &s, &err), TC_OK);
    CU_ASSERT_EQUAL(tc_contraction_set_sizes(&c, &s, &out, &err, NULL), TC_OK);
    CU_ASSERT_EQUAL(tc_tensor_bytes(&out, TC_A), (int64_t)2147483648 * 536870911 * 8);
}

/* A size for an index the contraction does not use: an error located at
 * it, or, for a caller that accepts it, a warning and the rest sized. */
static void test_unused_size(void)
{
    tc_contraction c, out;
    tc_sizes s;
    tc_error err, warning;
    memset(&s, 0, sizeof s);
    CU_ASSERT_EQUAL_FATAL(tc_parse("C[a,b] = A[a,i] * B[i,b]", &c, &err), TC_OK);
    CU_ASSERT_EQUAL_FATAL(tc_parse_sizes("a=2,b=3,x=5,i=4", 1, &s, &err), TC_OK);
    CU_ASSERT_EQUAL(tc_contraction_set_sizes(&c, &s, &out, &err, NULL), TC_EINPUT);
    CU_ASSERT_EQUAL(err.column, 9);
    CU_ASSERT_PTR_NOT_NULL(strstr(err.message, "'x'"));
    CU_ASSERT_EQUAL(tc_contraction_set_sizes(&c, &s, &out, &err, &warning), TC_OK);
    CU_ASSERT_EQUAL(warning.code, TC_EINPUT);
    CU_ASSERT_EQUAL(out.index[tc_contraction_find_index(&out, "i")].size, 4);
    /* the library's plans: the same error */
    tc_plan *p = tc_plan_create("C[a,b] = A[a,i] * B[i,b]", "a=2,b=3,x=5,i=4", TC_ESTIMATE, &err);
    CU_ASSERT_PTR_NULL(p);
    CU_ASSERT_EQUAL(err.code, TC_EINPUT);
    tc_plan_destroy(p);
}

int tc_suite_contraction(void)
{
    CU_pSuite s = CU_add_suite("contraction", NULL, NULL);
    if (!s)
        return -1;
    return !CU_add_test(s, "hash: equal forms agree, any change differs", test_hash) ||
           !CU_add_test(s, "normal form, sizes, flops", test_format) ||
           !CU_add_test(s, "tensor byte counts refused past 2^63", test_overflow) ||
           !CU_add_test(s, "a size for an unused index: an error or a warning",
                        test_unused_size);
}
