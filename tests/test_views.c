/*
 * test_views.c - tc_plan_create_views (include/tcgen.h): contractions given
 * by mode labels, extents and strides; tiles of larger arrays and tensors
 * in any mode order planned and executed in place, against loops over the
 * labels; wisdom keyed by the views; every refusal names the tensor, mode
 * and label.
 */
#include <CUnit/CUnit.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "planner/plan.h"
#include "tcgen.h"
#include "tests/helpers_corpus.h"

#define MAXM 4

/* A tensor's view inside a buffer: labels, extents, strides, the offset of
 * its first element and the elements its buffer holds. */
typedef struct view {
    int n;
    int64_t label[MAXM], extent[MAXM], stride[MAXM];
    int64_t offset, span;
} view;

/* A tile at (1, 1, ...) of an array 2 larger per mode, modes laid out in
 * `order` (order[0] fastest). */
static view tile(int n, const int64_t *label, const int64_t *extent, const int *order)
{
    view v = {.n = n};
    int64_t s = 1;
    for (int j = 0; j < n; j++) {
        int k = order[j];
        v.label[k] = label[k], v.extent[k] = extent[k], v.stride[k] = s;
        s *= extent[k] + 2;
    }
    for (int k = 0; k < n; k++)
        v.offset += v.stride[k];
    v.span = s;
    return v;
}

static tc_tensor_desc desc(const view *v)
{
    return (tc_tensor_desc){v->n, v->label, v->extent, v->stride};
}

/* The offset of the element whose labels take the values val[] (labels
 * lab[0..nl)). */
static int64_t at(const view *v, const int64_t *lab, int nl, const int64_t *val)
{
    int64_t off = v->offset;
    for (int k = 0; k < v->n; k++)
        for (int l = 0; l < nl; l++)
            if (lab[l] == v->label[k])
                off += val[l] * v->stride[k];
    return off;
}

/* want = alpha A B + beta C over every label's values. */
static void loops(const view v[3], const double *a, const double *b, double alpha, double beta,
                  double *c)
{
    int64_t lab[3 * MAXM], size[3 * MAXM], val[3 * MAXM] = {0}, count = 1;
    int nl = 0;
    for (int t = 0; t < 3; t++)
        for (int k = 0; k < v[t].n; k++) {
            int l = 0;
            while (l < nl && lab[l] != v[t].label[k])
                l++;
            if (l == nl)
                lab[nl] = v[t].label[k], size[nl++] = v[t].extent[k], count *= v[t].extent[k];
        }
    int64_t ccount = 1, cv[MAXM] = {0};
    for (int k = 0; k < v[0].n; k++)
        ccount *= v[0].extent[k];
    for (int64_t e = 0; e < ccount; e++) {
        int64_t off = v[0].offset;
        for (int k = 0; k < v[0].n; k++)
            off += cv[k] * v[0].stride[k];
        c[off] = beta == 0.0 ? 0.0 : beta * c[off];
        for (int k = 0; k < v[0].n && ++cv[k] == v[0].extent[k]; k++)
            cv[k] = 0;
    }
    for (int64_t e = 0; e < count; e++) {
        c[at(&v[0], lab, nl, val)] +=
            alpha * a[at(&v[1], lab, nl, val)] * b[at(&v[2], lab, nl, val)];
        for (int l = 0; l < nl && ++val[l] == size[l]; l++)
            val[l] = 0;
    }
}

/* Plans the views, runs the plan on random data and compares with the
 * loops (gaps untouched: they are compared too). Returns the plan. */
static tc_plan *check(const view v[3], double alpha, double beta, const char *what)
{
    tc_tensor_desc d[3] = {desc(&v[0]), desc(&v[1]), desc(&v[2])};
    tc_error err;
    tc_plan *p = tc_plan_create_views(&d[0], &d[1], &d[2], alpha, beta, TC_ESTIMATE, &err);
    CU_ASSERT_PTR_NOT_NULL(p);
    if (!p) {
        fprintf(stderr, "\n  %s: %s\n", what, err.message);
        return NULL;
    }
    double *x[3], *want = malloc((size_t)v[0].span * sizeof *want);
    uint64_t state = 17;
    for (int t = 0; t < 3; t++) {
        x[t] = malloc((size_t)v[t].span * sizeof *x[t]);
        tc_corpus_fill(x[t], v[t].span, &state);
    }
    memcpy(want, x[0], (size_t)v[0].span * sizeof *want);
    loops(v, x[1], x[2], alpha, beta, want);
    CU_ASSERT_EQUAL(tc_execute(p, x[1] + v[1].offset, x[2] + v[2].offset, x[0] + v[0].offset),
                    TC_OK);
    double e = tc_corpus_relerr(x[0], want, v[0].span);
    CU_ASSERT(e < 1e-12);
    if (!(e < 1e-12))
        fprintf(stderr, "\n  %s with %s: relative error %g\n", what, tc_plan_algorithm(p), e);
    for (int t = 0; t < 3; t++)
        free(x[t]);
    free(want);
    return p;
}

static const int64_t r_lab[4] = {'a', 'b', 'i', 'j'}, t_lab[4] = {'a', 'e', 'i', 'm'},
                     w_lab[4] = {'m', 'b', 'e', 'j'};
static const int64_t r_ext[4] = {6, 5, 3, 4}, t_ext[4] = {6, 7, 3, 2}, w_ext[4] = {2, 5, 7, 4};
static const int col[4] = {0, 1, 2, 3}, row[4] = {3, 2, 1, 0}, mixed[4] = {2, 0, 3, 1};

/* The ring term on tiles, column-major, row-major and mixed orders; any
 * alpha, beta 0 and 1. */
static void test_ring_tiles(void)
{
    const int *orders[3] = {col, row, mixed};
    for (int o = 0; o < 3; o++) {
        view v[3] = {tile(4, r_lab, r_ext, orders[o]), tile(4, t_lab, t_ext, orders[(o + 1) % 3]),
                     tile(4, w_lab, w_ext, orders[(o + 2) % 3])};
        char what[64];
        snprintf(what, sizeof what, "ring term, layouts %d %d %d", o, (o + 1) % 3, (o + 2) % 3);
        tc_plan_destroy(check(v, -0.5, 1.0, what));
        tc_plan_destroy(check(v, 2.0, 0.0, what));
    }
    /* a dense tensor given without strides, a contracted and a batch index */
    const int64_t c_lab[2] = {'i', 'z'}, a_lab[3] = {'i', 'k', 'z'}, b_lab[2] = {'k', 'z'};
    const int64_t c_ext[2] = {5, 3}, a_ext[3] = {5, 4, 3}, b_ext[2] = {4, 3};
    const int a_order[3] = {2, 0, 1}, b_order[2] = {1, 0};
    view h[3] = {tile(2, c_lab, c_ext, col), tile(3, a_lab, a_ext, a_order),
                 tile(2, b_lab, b_ext, b_order)};
    tc_plan_destroy(check(h, 1.0, 0.0, "batch index"));
}

/* A plan over views is found in wisdom the second time: the same
 * algorithm, remembered; other strides are another problem. */
static void test_wisdom(void)
{
    tc_wisdom_forget();
    view v[3] = {tile(4, r_lab, r_ext, col), tile(4, t_lab, t_ext, col),
                 tile(4, w_lab, w_ext, col)};
    tc_plan *p1 = check(v, 1.0, 1.0, "first"), *p2 = check(v, 1.0, 1.0, "second");
    CU_ASSERT_FATAL(p1 && p2);
    CU_ASSERT_STRING_EQUAL(tc_plan_origin(p1), "estimate");
    CU_ASSERT_STRING_EQUAL(tc_plan_origin(p2), "wisdom");
    CU_ASSERT_STRING_EQUAL(tc_plan_algorithm(p1), tc_plan_algorithm(p2));
    CU_ASSERT(tc_contraction_strided(&p1->c));
    v[1] = tile(4, t_lab, t_ext, row);
    tc_plan *p3 = check(v, 1.0, 1.0, "other strides");
    CU_ASSERT(p3 && strcmp(tc_plan_origin(p3), "estimate") == 0);
    tc_plan_destroy(p1);
    tc_plan_destroy(p2);
    tc_plan_destroy(p3);
    tc_wisdom_forget();
}

/* Refused: the message names what is wrong and where. */
static void refused(const view v[3], double beta, unsigned flags, tc_status code,
                    const char *text)
{
    tc_tensor_desc d[3] = {desc(&v[0]), desc(&v[1]), desc(&v[2])};
    tc_error err;
    memset(&err, 0, sizeof err);
    tc_plan *p = tc_plan_create_views(&d[0], &d[1], &d[2], 1.0, beta, flags, &err);
    CU_ASSERT_PTR_NULL(p);
    CU_ASSERT_EQUAL(err.code, code);
    CU_ASSERT(strstr(err.message, text) != NULL);
    if (!strstr(err.message, text))
        fprintf(stderr, "\n  want '%s' in '%s'\n", text, err.message);
    tc_plan_destroy(p);
}

static void test_refused(void)
{
    view ok[3] = {tile(4, r_lab, r_ext, col), tile(4, t_lab, t_ext, col),
                  tile(4, w_lab, w_ext, col)};
    view v[3];
    memcpy(v, ok, sizeof v);
    v[1].extent[1] = 6; /* e: 6 in T, 7 in W */
    refused(v, 0.0, TC_ESTIMATE, TC_EINPUT, "mode 2 of B (label 101) has extent 7, another mode "
                                            "with that label 6");
    memcpy(v, ok, sizeof v);
    v[2].label[0] = 'e'; /* e twice in W */
    refused(v, 0.0, TC_ESTIMATE, TC_EINPUT, "label 101 twice in B (modes 0 and 2)");
    memcpy(v, ok, sizeof v);
    v[2].label[0] = 'q'; /* q in W alone, m in T alone */
    refused(v, 0.0, TC_ESTIMATE, TC_EINPUT, "is in one tensor only");
    memcpy(v, ok, sizeof v);
    v[0].stride[1] = 3; /* b's stride below a's extent */
    refused(v, 0.0, TC_ESTIMATE, TC_EINPUT, "mode 1 of C (label 98) has stride 3");
    memcpy(v, ok, sizeof v);
    v[1].stride[0] = 2; /* nothing of stride 1 */
    refused(v, 0.0, TC_ESTIMATE, TC_EINPUT, "mode 0 of A (label 97) has stride 2");
    memcpy(v, ok, sizeof v);
    v[0].extent[3] = 0;
    refused(v, 0.0, TC_ESTIMATE, TC_EINPUT, "mode 3 of C (label 106) has extent 0");
    refused(ok, 0.5, TC_ESTIMATE, TC_EUSAGE, "beta is 0 or 1");
    refused(ok, 1.0, TC_ESTIMATE | TC_ROW_MAJOR, TC_EUSAGE, "no TC_ROW_MAJOR");
    tc_error err;
    CU_ASSERT_PTR_NULL(tc_plan_create_views(NULL, NULL, NULL, 1.0, 0.0, TC_ESTIMATE, &err));
    CU_ASSERT_EQUAL(err.code, TC_EUSAGE);
}

int tc_suite_views(void)
{
    CU_pSuite s = CU_add_suite("views", NULL, NULL);
    return !s ||
           !CU_add_test(s, "tiles in any mode order, against loops", test_ring_tiles) ||
           !CU_add_test(s, "views in wisdom, keyed by their strides", test_wisdom) ||
           !CU_add_test(s, "refusals name the tensor, mode and label", test_refused);
}
