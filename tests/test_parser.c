/* test_parser.c - the parser: both notations, normal forms, malformed corpus, sizes, files. */
#include <CUnit/CUnit.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "helpers_data.h"
#include "parser/parser.h"

static int same_ir(const tc_contraction *x, const tc_contraction *y)
{
    if (x->nindex != y->nindex || x->alpha != y->alpha || x->beta != y->beta)
        return 0;
    for (int i = 0; i < x->nindex; i++)
        if (strcmp(x->index[i].name, y->index[i].name) != 0 || x->index[i].role != y->index[i].role ||
            x->index[i].size != y->index[i].size)
            return 0;
    for (int t = 0; t < 3; t++) {
        const tc_tensor *a = &x->tensor[t], *b = &y->tensor[t];
        if (strcmp(a->name, b->name) != 0 || a->rank != b->rank || a->elements != b->elements)
            return 0;
        for (int k = 0; k < a->rank; k++)
            if (a->index[k] != b->index[k] || a->stride[k] != b->stride[k])
                return 0;
    }
    return 1;
}

static void parse_sized(const char *text, const char *sizes, tc_contraction *out)
{
    tc_contraction c;
    tc_sizes s;
    tc_error err;
    memset(&s, 0, sizeof s);
    CU_ASSERT_EQUAL_FATAL(tc_parse(text, &c, &err), TC_OK);
    CU_ASSERT_EQUAL_FATAL(tc_parse_sizes(sizes, 1, &s, &err), TC_OK);
    CU_ASSERT_EQUAL_FATAL(tc_contraction_set_sizes(&c, &s, out, &err, NULL), TC_OK);
}

static void test_notations_agree(void)
{
    static const char *const pairs[][3] = {
        {"C[a,b,c] = A[a,i] * B[i,b,c]", "C_abc = A_ai B_ibc", "a=b=c=400,i=8"},
        {"C[a] = A[i,a,j] * B[j,i]", "C_a := A_iaj B_ji", "a=100,i=j=20"},
        {"C[a,b,c] = A[i,j,a] * B[j,b,i,c]", "C_abc := A_ija * B_jbic", "i=j=8 a=b=c=200"},
        {"C[] += 0.5 * A[i] * B[i]", "C += 0.5 A_i B_i", "i=7"},
    };
    for (size_t p = 0; p < sizeof pairs / sizeof pairs[0]; p++) {
        tc_contraction x, y;
        parse_sized(pairs[p][0], pairs[p][2], &x);
        parse_sized(pairs[p][1], pairs[p][2], &y);
        CU_ASSERT(same_ir(&x, &y));
        CU_ASSERT_EQUAL(tc_contraction_hash(&x), tc_contraction_hash(&y));
    }
}

static void test_roles_and_strides(void)
{
    tc_contraction c;
    parse_sized("C[a,b,c] = A[i,j,a] * B[j,b,i,c]", "a=5,b=6,c=7,i=2,j=3", &c);
    static const char *const names[] = {"a", "b", "c", "i", "j"};
    static const tc_role roles[] = {TC_ROLE_FREE_A, TC_ROLE_FREE_B, TC_ROLE_FREE_B,
                                    TC_ROLE_CONTRACTED, TC_ROLE_CONTRACTED};
    CU_ASSERT_EQUAL_FATAL(c.nindex, 5);
    for (int i = 0; i < 5; i++) {
        CU_ASSERT_STRING_EQUAL(c.index[i].name, names[i]);
        CU_ASSERT_EQUAL(c.index[i].role, roles[i]);
    }
    const tc_tensor *b = &c.tensor[TC_B]; /* B[j,b,i,c]: 3 x 6 x 2 x 7 */
    CU_ASSERT_EQUAL(b->stride[0], 1);
    CU_ASSERT_EQUAL(b->stride[1], 3);
    CU_ASSERT_EQUAL(b->stride[2], 18);
    CU_ASSERT_EQUAL(b->stride[3], 36);
    CU_ASSERT_EQUAL(b->elements, 252);
    CU_ASSERT_EQUAL(tc_tensor_bytes(&c, TC_B), 2016);

    parse_sized("C[a,z] = A[a,i,z] * B[i,z]", "a=2,i=3,z=4", &c);
    CU_ASSERT_EQUAL(c.index[tc_contraction_find_index(&c, "z")].role, TC_ROLE_BATCH);
    CU_ASSERT_EQUAL(c.beta, 0.0);
    parse_sized("C[a] += -2e-3 * A[a,i] * B[i]", "a=2,i=3", &c);
    CU_ASSERT_EQUAL(c.beta, 1.0);
    CU_ASSERT_DOUBLE_EQUAL(c.alpha, -2e-3, 0.0);
    /* how coupled-cluster terms are written: -= and a leading minus */
    static const struct {
        const char *text;
        double alpha, beta;
    } signs[] = {{"R[a] -= W[a,e] * T[e]", -1.0, 1.0},
                 {"R[a] += -W[a,e] * T[e]", -1.0, 1.0},
                 {"R[a] = -W[a,e] * T[e]", -1.0, 0.0},
                 {"R[a] -= 0.5 * W[a,e] * T[e]", -0.5, 1.0},
                 {"R[a] -= -W[a,e] * T[e]", 1.0, 1.0},
                 {"R_a -= W_ae T_e", -1.0, 1.0},
                 {"R[a] = +W[a,e] * T[e]", 1.0, 0.0},
                 /* a factor 0 is kept (C = beta * C, runtime/execute.h) */
                 {"R[a] = 0 * W[a,e] * T[e]", 0.0, 0.0},
                 {"R[a] += 0 * W[a,e] * T[e]", 0.0, 1.0},
                 {"R[a] -= 0.0 W[a,e] * T[e]", 0.0, 1.0}};
    for (size_t k = 0; k < sizeof signs / sizeof signs[0]; k++) {
        parse_sized(signs[k].text, "a=2,e=3", &c);
        CU_ASSERT_EQUAL(c.alpha, signs[k].alpha);
        CU_ASSERT_EQUAL(c.beta, signs[k].beta);
        CU_ASSERT_FALSE(signbit(c.alpha) && c.alpha == 0.0); /* -0: another wisdom key */
    }
    parse_sized("C[] = A[i] * B[i]", "i=3", &c);
    CU_ASSERT_EQUAL(c.tensor[TC_C].rank, 0);
    CU_ASSERT_EQUAL(c.tensor[TC_C].elements, 1);
}

/* Each golden line: input, then its normal form. */
static void check_normal_form(char **f, int nf, int lineno, void *ctx)
{
    (void)ctx;
    tc_contraction c;
    tc_error err;
    char form[1024];
    CU_ASSERT_EQUAL_FATAL(nf, 2);
    if (tc_parse(f[0], &c, &err) != TC_OK) {
        fprintf(stderr, "\nnormal_forms.tsv:%d: %s: %s\n", lineno, f[0], err.message);
        CU_FAIL("golden input does not parse");
        return;
    }
    tc_contraction_format(&c, form, sizeof form);
    if (strcmp(form, f[1]) != 0)
        fprintf(stderr, "\nnormal_forms.tsv:%d: got '%s', want '%s'\n", lineno, form, f[1]);
    CU_ASSERT_STRING_EQUAL(form, f[1]);
    /* the normal form is a fixed point */
    tc_contraction again;
    CU_ASSERT_EQUAL_FATAL(tc_parse(form, &again, &err), TC_OK);
    char form2[1024];
    tc_contraction_format(&again, form2, sizeof form2);
    CU_ASSERT_STRING_EQUAL(form2, form);
}

static void test_normal_forms(void)
{
    CU_ASSERT(tc_test_read_tsv("normal_forms.tsv", check_normal_form, NULL) >= 20);
}

/* Parses the way the command does: contraction, then sizes, then set_sizes. */
static tc_status parse_like_cli(const char *text, const char *sizes, tc_error *err, int *in_sizes)
{
    tc_contraction c, out;
    tc_sizes s;
    memset(&s, 0, sizeof s);
    *in_sizes = 0;
    tc_status st = tc_parse(strcmp(text, "<empty>") == 0 ? "" : text, &c, err);
    if (st != TC_OK || strcmp(sizes, "-") == 0)
        return st;
    *in_sizes = 1;
    if ((st = tc_parse_sizes(sizes, 1, &s, err)) != TC_OK)
        return st;
    *in_sizes = 0;
    return tc_contraction_set_sizes(&c, &s, &out, err, NULL);
}

static void check_malformed(char **f, int nf, int lineno, void *ctx)
{
    int *count = ctx;
    tc_error err;
    int in_sizes;
    char where[64];
    CU_ASSERT_EQUAL_FATAL(nf, 4);
    tc_status st = parse_like_cli(f[0], f[1], &err, &in_sizes);
    if (err.line > 0)
        snprintf(where, sizeof where, "%s%d:%d", in_sizes ? "sizes:" : "", err.line, err.column);
    else
        snprintf(where, sizeof where, "-");
    int ok = st == TC_EINPUT && strcmp(where, f[2]) == 0 && strstr(err.message, f[3]) != NULL;
    if (!ok)
        fprintf(stderr, "\nmalformed.tsv:%d: '%s' '%s': status %d at %s: %s\n", lineno, f[0], f[1],
                st, where, err.message);
    CU_ASSERT(ok);
    (*count)++;
}

static void test_malformed_corpus(void)
{
    int count = 0;
    CU_ASSERT_EQUAL(tc_test_read_tsv("malformed.tsv", check_malformed, &count), count);
    CU_ASSERT(count >= 40);
}

/* The parser's stacks hold 200 entries and never grow (parser/grammar.y):
 * a right-hand side of 1000 tensors is a located input error, not
 * "out of memory", which a right-recursive list would give. */
static void test_long_input(void)
{
    size_t n = 16 + 1000 * 16;
    char *text = malloc(n);
    CU_ASSERT_PTR_NOT_NULL_FATAL(text);
    size_t len = (size_t)snprintf(text, n, "C[a] = A[a]");
    for (int k = 0; k < 999; k++)
        len += (size_t)snprintf(text + len, n - len, " * T%d[a]", k);
    tc_contraction c;
    tc_error err;
    CU_ASSERT_EQUAL(tc_parse(text, &c, &err), TC_EINPUT);
    CU_ASSERT_PTR_NOT_NULL(strstr(err.message, "found 1000"));
    free(text);
}

static void test_sizes(void)
{
    tc_sizes s;
    tc_error err;
    memset(&s, 0, sizeof s);
    CU_ASSERT_EQUAL(tc_parse_sizes("a=b=c=400,i=8", 1, &s, &err), TC_OK);
    CU_ASSERT_EQUAL(tc_parse_sizes(" j = 3  k=9223372036854775807 ", 1, &s, &err), TC_OK);
    CU_ASSERT_EQUAL(tc_parse_sizes("a=400", 1, &s, &err), TC_OK); /* same value again */
    CU_ASSERT_EQUAL_FATAL(s.count, 6);
    CU_ASSERT_STRING_EQUAL(s.entry[2].name, "c");
    CU_ASSERT_EQUAL(s.entry[2].size, 400);
    CU_ASSERT_EQUAL(s.entry[5].size, INT64_MAX);
    CU_ASSERT_EQUAL(tc_parse_sizes("a=401", 1, &s, &err), TC_EINPUT);

    /* an unused size is a warning, not an error */
    tc_contraction c, out;
    tc_error warning;
    memset(&s, 0, sizeof s);
    CU_ASSERT_EQUAL_FATAL(tc_parse("C[a] = A[a,i] * B[i]", &c, &err), TC_OK);
    CU_ASSERT_EQUAL(tc_parse_sizes("a=2,i=3,x=4", 1, &s, &err), TC_OK);
    CU_ASSERT_EQUAL(tc_contraction_set_sizes(&c, &s, &out, &err, &warning), TC_OK);
    CU_ASSERT_EQUAL(warning.code, TC_EINPUT);
    CU_ASSERT_PTR_NOT_NULL(strstr(warning.message, "'x'"));
    CU_ASSERT_EQUAL(warning.column, 9);
    CU_ASSERT_EQUAL(out.has_sizes, 1);
}

static void test_files(void)
{
    char path[1024];
    tc_contraction c, out;
    tc_sizes s;
    tc_error err;
    memset(&s, 0, sizeof s);
    tc_test_data_path("files/ai_ibc.tc", path, sizeof path);
    CU_ASSERT_EQUAL_FATAL(tc_parse_file(path, &c, &s, &err), TC_OK);
    CU_ASSERT_EQUAL(tc_contraction_set_sizes(&c, &s, &out, &err, NULL), TC_OK);
    CU_ASSERT_EQUAL(out.index[tc_contraction_find_index(&out, "i")].size, 8);
    CU_ASSERT_EQUAL(out.index[tc_contraction_find_index(&out, "c")].size, 400);

    memset(&s, 0, sizeof s);
    tc_test_data_path("files/bad_size.tc", path, sizeof path);
    CU_ASSERT_EQUAL(tc_parse_file(path, &c, &s, &err), TC_EINPUT);
    CU_ASSERT_EQUAL(err.line, 4);
    CU_ASSERT_EQUAL(err.column, 5);
    tc_test_data_path("files/bad_contraction.tc", path, sizeof path);
    CU_ASSERT_EQUAL(tc_parse_file(path, &c, &s, &err), TC_EINPUT);
    CU_ASSERT_EQUAL(err.line, 3);
    CU_ASSERT_EQUAL(err.column, 17);
    tc_test_data_path("files/does-not-exist.tc", path, sizeof path);
    CU_ASSERT_EQUAL(tc_parse_file(path, &c, &s, &err), TC_EINPUT);
    CU_ASSERT_PTR_NOT_NULL(strstr(err.message, "does-not-exist.tc"));
}

/* tc_parse_written keeps what tc_parse refuses: conj, a diagonal, an
 * index one operand has; the scalars as tc_parse reads them. */
static void test_written(void)
{
    tc_written w;
    tc_error err;
    CU_ASSERT_EQUAL(tc_parse_written("C_ab -= 2 conj(A_aai) * conj(B[i,b,k])", &w, &err), TC_OK);
    CU_ASSERT_EQUAL(w.tensor[0].conj, 0);
    CU_ASSERT_EQUAL(w.tensor[1].conj, 1);
    CU_ASSERT_EQUAL(w.tensor[1].conj_column, 11);
    CU_ASSERT_EQUAL(w.tensor[2].conj, 1);
    CU_ASSERT_EQUAL(w.tensor[1].rank, 3);
    CU_ASSERT_STRING_EQUAL(w.tensor[1].index[1], "a");
    CU_ASSERT_STRING_EQUAL(w.tensor[2].index[2], "k");
    CU_ASSERT_EQUAL(w.alpha, -2.0);
    CU_ASSERT_EQUAL(w.accumulate, 1);
    CU_ASSERT_EQUAL(tc_parse_written("C[a] = A[a]", &w, &err), TC_EINPUT);
    tc_contraction c;
    CU_ASSERT_EQUAL(tc_parse("C_ab = conj(A_ai) B_ib", &c, &err), TC_EINPUT);
    CU_ASSERT_EQUAL(err.column, 8);
}

int tc_suite_parser(void)
{
    CU_pSuite s = CU_add_suite("parser", NULL, NULL);
    if (!s)
        return -1;
    return !CU_add_test(s, "both notations give equal IRs", test_notations_agree) ||
           !CU_add_test(s, "roles, strides, alpha, beta", test_roles_and_strides) ||
           !CU_add_test(s, "golden normal forms", test_normal_forms) ||
           !CU_add_test(s, "malformed corpus: status, position, message", test_malformed_corpus) ||
           !CU_add_test(s, "a long right-hand side fits the stacks", test_long_input) ||
           !CU_add_test(s, "sizes: groups, repeats, limits, unused", test_sizes) ||
           !CU_add_test(s, "contraction files (-f)", test_files) ||
           !CU_add_test(s, "as written: conj, diagonals, one operand's indices", test_written);
}
