/*
 * test_tapp.c - TAPP over tcgen (include/tapp.h): products of double
 * tensors against a naive loop over every index, dense in column- and
 * row-major order, in place and with C apart from D, Hadamard indices,
 * tiles of larger arrays (strided, packed), reversed (negative) strides,
 * a diagonal and an index summed out, float tensors, batches, alpha 0, an
 * extent 0; a product found in wisdom, its algorithm built alone; every
 * error the standard's reference detects refused at creation with its
 * code and a message, and again when executed; TAPP_explain_error's
 * buffer rules.
 */
#include <CUnit/CUnit.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "planner/plan.h"
#include "planner/tapp_impl.h"
#include "planner/wisdom.h"
#include "tapp.h"
#include "tcgen.h"
#include "tests/helpers_corpus.h"

#define MAXM 8

typedef struct tview {
    int nmode;
    int64_t extent[MAXM], stride[MAXM], idx[MAXM];
    int64_t offset; /* of element 0 in its buffer */
    int64_t span;   /* elements its buffer holds */
} tview;

/* A view with the given labels and extents: column-major (order 'F'), row-
 * major ('C'), or a tile at (1, 1, ...) of an array 2 larger per mode ('T'),
 * or column-major with its first mode reversed ('R') or of stride 0 ('Z':
 * an input broadcast along it). */
static tview view(int n, const int64_t *idx, const int64_t *ext, char order)
{
    tview v = {.nmode = n};
    int64_t st = 1;
    for (int j = 0; j < n; j++) {
        int k = order == 'C' ? n - 1 - j : j;
        v.idx[k] = idx[k], v.extent[k] = ext[k];
        v.stride[k] = st;
        st *= ext[k] + (order == 'T' ? 2 : 0);
    }
    v.span = st;
    for (int k = 0; order == 'T' && k < n; k++)
        v.offset += v.stride[k];
    if (order == 'R' && n > 0) {
        v.offset = (ext[0] - 1) * v.stride[0];
        v.stride[0] = -v.stride[0];
    }
    if (order == 'Z' && n > 0)
        v.stride[0] = 0;
    return v;
}

/* The offset of the element whose labels take values val[label slot]. */
static int64_t at(const tview *v, const int64_t *labels, int nl, const int64_t *val)
{
    int64_t off = v->offset;
    for (int k = 0; k < v->nmode; k++)
        for (int l = 0; l < nl; l++)
            if (labels[l] == v->idx[k])
                off += val[l] * v->stride[k];
    return off;
}

/* D = alpha A B + beta C by loops over every label's values. */
static void naive(const tview *v, const double *const *x, double alpha, double beta, double *d)
{
    int64_t labels[4 * MAXM], size[4 * MAXM], val[4 * MAXM] = {0};
    int nl = 0;
    for (int t = 0; t < 4; t++)
        for (int k = 0; k < v[t].nmode; k++) {
            int l = 0;
            while (l < nl && labels[l] != v[t].idx[k])
                l++;
            if (l == nl)
                labels[nl] = v[t].idx[k], size[nl++] = v[t].extent[k];
        }
    int64_t count = 1, dcount = 1, dv[MAXM] = {0};
    for (int l = 0; l < nl; l++)
        count *= size[l];
    for (int k = 0; k < v[3].nmode; k++)
        dcount *= v[3].extent[k];
    for (int64_t e = 0; e < dcount; e++) { /* D = beta C (C's modes are D's) */
        int64_t od = v[3].offset, oc = v[2].offset;
        for (int k = 0; k < v[3].nmode; k++)
            od += dv[k] * v[3].stride[k], oc += dv[k] * v[2].stride[k];
        d[od] = beta == 0.0 ? 0.0 : beta * x[2][oc];
        for (int k = 0; k < v[3].nmode && ++dv[k] == v[3].extent[k]; k++)
            dv[k] = 0;
    }
    for (int64_t e = 0; e < count && alpha != 0.0; e++) {
        d[at(&v[3], labels, nl, val)] +=
            alpha * x[0][at(&v[0], labels, nl, val)] * x[1][at(&v[1], labels, nl, val)];
        for (int l = 0; l < nl && ++val[l] == size[l]; l++)
            val[l] = 0;
    }
}

static TAPP_tensor_info info_of(const tview *v)
{
    TAPP_tensor_info i = 0;
    CU_ASSERT_EQUAL(TAPP_create_tensor_info(&i, TAPP_F64, v->nmode, v->extent, v->stride), 0);
    return i;
}

/* Creates the product of the four views, runs it on random data (D's
 * untouched elements NaN-free, C == D when in_place) and compares D with the
 * loops. 1 when the product ran a plan of tcgen's, 0 when it went element
 * by element. */
static int check(const tview *given, double alpha, double beta, int in_place, const char *what)
{
    tview v[4] = {given[0], given[1], given[2], given[3]};
    if (in_place) /* C is D */
        v[2] = v[3];
    TAPP_tensor_info in[4];
    for (int t = 0; t < 4; t++)
        in[t] = info_of(&v[t]);
    TAPP_handle h;
    TAPP_tensor_product p = 0;
    CU_ASSERT_EQUAL_FATAL(TAPP_create_handle(&h), 0);
    TAPP_error e = TAPP_create_tensor_product(&p, h, TAPP_IDENTITY, in[0], v[0].idx, TAPP_IDENTITY,
                                              in[1], v[1].idx, TAPP_IDENTITY, in[2], v[2].idx,
                                              TAPP_IDENTITY, in[3], v[3].idx, TAPP_DEFAULT_PREC);
    CU_ASSERT_EQUAL(e, 0);
    if (e != 0) {
        char m[600];
        TAPP_explain_error(e, sizeof m, m);
        fprintf(stderr, "\n  %s: %s\n", what, m);
    }
    double *x[4], *want = malloc((size_t)v[3].span * sizeof *want);
    uint64_t st = 5;
    for (int t = 0; t < 4; t++) {
        x[t] = malloc((size_t)v[t].span * sizeof *x[t]);
        tc_corpus_fill(x[t], v[t].span, &st);
    }
    if (in_place)
        memcpy(x[2], x[3], (size_t)v[3].span * sizeof *x[3]);
    memcpy(want, x[3], (size_t)v[3].span * sizeof *want);
    const double *cx[4] = {x[0], x[1], x[2], x[3]};
    naive(v, cx, alpha, beta, want);
    double *base[4];
    for (int t = 0; t < 4; t++)
        base[t] = x[t] + v[t].offset;
    TAPP_status s;
    CU_ASSERT_EQUAL(TAPP_execute_product(p, 0, &s, &alpha, base[0], base[1], &beta,
                                         in_place ? base[3] : base[2], base[3]), 0);
    TAPP_destroy_status(s);
    double err = tc_corpus_relerr(x[3], want, v[3].span);
    CU_ASSERT(err < 1e-12);
    if (!(err < 1e-12))
        fprintf(stderr, "\n  %s: relative error %g\n", what, err);
    for (int t = 0; t < 4; t++) {
        free(x[t]);
        TAPP_destroy_tensor_info(in[t]);
    }
    free(want);
    int planned = p && ((const tc_tapp_product *)p)->plan != NULL;
    TAPP_destroy_tensor_product(p);
    TAPP_destroy_handle(h);
    return planned;
}

static void test_products(void)
{
    /* labels: i j k a b as characters */
    const int64_t ik[2] = {'i', 'k'}, kj[2] = {'k', 'j'}, ij[2] = {'i', 'j'};
    const int64_t e_ik[2] = {5, 7}, e_kj[2] = {7, 6}, e_ij[2] = {5, 6};
    static const char orders[] = "FCTR";
    for (int o = 0; o < 4; o++) {
        char what[64];
        tview v[4] = {view(2, ik, e_ik, orders[o]), view(2, kj, e_kj, 'F'), view(2, ij, e_ij, 'F'),
                      view(2, ij, e_ij, orders[(o + 1) % 4])};
        snprintf(what, sizeof what, "matrix product, A %c, D %c", orders[o], orders[(o + 1) % 4]);
        check(v, 2.0, 0.0, 0, what);
        check(v, -1.5, 0.5, 0, what);
        check(v, 1.0, 1.0, 1, what);
    }
    /* CCSD-like ring, 4 indices each, C order, C apart with other strides */
    const int64_t r[4] = {'a', 'b', 'i', 'j'}, t[4] = {'a', 'e', 'i', 'm'}, w[4] = {'m', 'b', 'e', 'j'};
    const int64_t er[4] = {4, 5, 3, 2}, et[4] = {4, 6, 3, 3}, ew[4] = {3, 5, 6, 2};
    tview ring[4] = {view(4, t, et, 'C'), view(4, w, ew, 'F'), view(4, r, er, 'F'), view(4, r, er, 'C')};
    check(ring, 0.5, 1.0, 0, "ring, C order");
    check(ring, 0.5, 1.0, 1, "ring in place");
    ring[0] = view(4, t, et, 'T'), ring[3] = view(4, r, er, 'T'), ring[2] = view(4, r, er, 'T');
    check(ring, -1.0, 1.0, 1, "ring on tiles");
    /* Hadamard (batch) index b in A, B and D */
    const int64_t hb_a[3] = {'i', 'k', 'b'}, hb_b[2] = {'k', 'b'}, hb_d[2] = {'i', 'b'};
    const int64_t eh_a[3] = {4, 3, 5}, eh_b[2] = {3, 5}, eh_d[2] = {4, 5};
    tview had[4] = {view(3, hb_a, eh_a, 'F'), view(2, hb_b, eh_b, 'C'), view(2, hb_d, eh_d, 'F'),
                    view(2, hb_d, eh_d, 'F')};
    check(had, 1.0, 0.0, 0, "Hadamard index");
    /* full contraction to a scalar, and an outer product */
    const int64_t ext_k[2] = {5, 7};
    tview dot[4] = {view(2, ik, ext_k, 'F'), view(2, ik, ext_k, 'C'), view(0, NULL, NULL, 'F'),
                    view(0, NULL, NULL, 'F')};
    CU_ASSERT(check(dot, 1.0, 2.0, 1, "to a scalar")); /* a ddot */
    const int64_t oi[1] = {'i'}, oj[1] = {'j'}, e5[1] = {5}, e6[1] = {6};
    tview outer[4] = {view(1, oi, e5, 'F'), view(1, oj, e6, 'F'), view(2, ij, e_ij, 'F'),
                      view(2, ij, e_ij, 'C')};
    CU_ASSERT(check(outer, 3.0, 0.0, 0, "outer product")); /* a dger */
    tview scaled[4] = {view(1, oi, e5, 'F'), view(0, NULL, NULL, 'F'), view(1, oi, e5, 'F'),
                       view(1, oi, e5, 'F')};
    CU_ASSERT(check(scaled, 2.0, 1.0, 1, "a scalar operand")); /* a daxpy */
    tview hadamard[4] = {scaled[0], scaled[0], scaled[0], scaled[0]};
    CU_ASSERT(!check(hadamard, 1.0, 0.5, 0, "Hadamard only")); /* no kernel applies */
    /* a diagonal of A (index i twice), and an index of A alone (summed out) */
    const int64_t iik[3] = {'i', 'i', 'k'}, iak[3] = {'i', 'a', 'k'};
    const int64_t e_iik[3] = {5, 5, 7}, e_iak[3] = {5, 3, 7};
    tview diag[4] = {view(3, iik, e_iik, 'F'), view(2, kj, e_kj, 'F'), view(2, ij, e_ij, 'F'),
                     view(2, ij, e_ij, 'F')};
    check(diag, 1.0, 1.0, 0, "a diagonal of A");
    diag[0] = view(3, iak, e_iak, 'T');
    check(diag, -2.0, 0.0, 1, "an index of A alone, summed out");
    diag[0] = view(3, iak, e_iak, 'Z');
    check(diag, 1.0, 0.0, 0, "A broadcast along a mode of stride 0");
}

/* Tiles of larger double arrays are read and written where they lie (the
 * plan given their strides), not packed; a tile whose first mode is not
 * unit-stride, or whose modes overlap, is packed. */
static void test_tiles_in_place(void)
{
    const int64_t r[4] = {'a', 'b', 'i', 'j'}, t[4] = {'a', 'e', 'i', 'm'},
                  w[4] = {'m', 'b', 'e', 'j'};
    const int64_t er[4] = {4, 5, 3, 2}, et[4] = {4, 6, 3, 3}, ew[4] = {3, 5, 6, 2};
    tview v[4] = {view(4, t, et, 'T'), view(4, w, ew, 'T'), view(4, r, er, 'T'),
                  view(4, r, er, 'T')};
    TAPP_tensor_info in[4];
    for (int x = 0; x < 4; x++)
        in[x] = info_of(&v[x]);
    TAPP_tensor_product p = 0;
    CU_ASSERT_EQUAL_FATAL(TAPP_create_tensor_product(&p, 0, TAPP_IDENTITY, in[0], v[0].idx,
                                                     TAPP_IDENTITY, in[1], v[1].idx,
                                                     TAPP_IDENTITY, in[2], v[2].idx,
                                                     TAPP_IDENTITY, in[3], v[3].idx,
                                                     TAPP_DEFAULT_PREC), 0);
    const tc_tapp_product *q = (const tc_tapp_product *)p;
    CU_ASSERT(q->t[TC_TAPP_A].direct && q->t[TC_TAPP_B].direct && q->t[TC_TAPP_D].direct);
    CU_ASSERT(tc_contraction_strided(&q->plan->c));
    TAPP_destroy_tensor_product(p);
    check(v, 0.5, 1.0, 1, "ring on tiles, in place");
    check(v, 2.0, 0.0, 0, "ring on tiles, beta 0");
    v[0].stride[0] = 2, v[0].span *= 2; /* every other element: packed */
    TAPP_destroy_tensor_info(in[0]);
    in[0] = info_of(&v[0]);
    CU_ASSERT_EQUAL_FATAL(TAPP_create_tensor_product(&p, 0, TAPP_IDENTITY, in[0], v[0].idx,
                                                     TAPP_IDENTITY, in[1], v[1].idx,
                                                     TAPP_IDENTITY, in[2], v[2].idx,
                                                     TAPP_IDENTITY, in[3], v[3].idx,
                                                     TAPP_DEFAULT_PREC), 0);
    q = (const tc_tapp_product *)p;
    CU_ASSERT(!q->t[TC_TAPP_A].direct && q->t[TC_TAPP_B].direct);
    TAPP_destroy_tensor_product(p);
    check(v, 1.0, 1.0, 1, "ring, A every other element");
    for (int x = 0; x < 4; x++)
        TAPP_destroy_tensor_info(in[x]);
}

/* The type letter of an algorithm's kernel ("c-zgemm": 'z'). */
static char kernel_letter(const char *name)
{
    const char *dash = strrchr(name, '-');
    return dash ? dash[1] : name[0];
}

/* Float tensors: planned in float (sgemm), B transposed in place. */
static void test_float(void)
{
    const int64_t ik[2] = {'i', 'k'}, kj[2] = {'k', 'j'}, ij[2] = {'i', 'j'};
    const int64_t e_ik[2] = {4, 3}, e_kj[2] = {3, 5}, e_ij[2] = {4, 5};
    const int64_t s_ik[2] = {1, 4}, s_kj[2] = {5, 1}, s_ij[2] = {1, 4};
    TAPP_tensor_info a, b, d;
    CU_ASSERT_EQUAL_FATAL(TAPP_create_tensor_info(&a, TAPP_F32, 2, e_ik, s_ik), 0);
    CU_ASSERT_EQUAL_FATAL(TAPP_create_tensor_info(&b, TAPP_F32, 2, e_kj, s_kj), 0);
    CU_ASSERT_EQUAL_FATAL(TAPP_create_tensor_info(&d, TAPP_F32, 2, e_ij, s_ij), 0);
    TAPP_tensor_product p;
    CU_ASSERT_EQUAL_FATAL(TAPP_create_tensor_product(&p, 0, 0, a, ik, 0, b, kj, 0, d, ij, 0, d, ij,
                                                     TAPP_DEFAULT_PREC), 0);
    float A[12], B[15], D[20], want[20], alpha = 2.0f, beta = 0.5f;
    for (int k = 0; k < 12; k++)
        A[k] = (float)(k % 5) - 1.5f;
    for (int k = 0; k < 15; k++)
        B[k] = (float)(k % 4) * 0.25f;
    for (int k = 0; k < 20; k++)
        D[k] = (float)k;
    for (int i = 0; i < 4; i++)
        for (int j = 0; j < 5; j++) {
            double s = 0.0;
            for (int k = 0; k < 3; k++)
                s += (double)A[i + 4 * k] * (double)B[5 * k + j];
            want[i + 4 * j] = (float)(alpha * s + beta * D[i + 4 * j]);
        }
    CU_ASSERT_EQUAL(TAPP_execute_product(p, 0, NULL, &alpha, A, B, &beta, D, D), 0);
    for (int k = 0; k < 20; k++)
        CU_ASSERT(fabsf(D[k] - want[k]) <= 1e-5f * (1.0f + fabsf(want[k])));
    const tc_tapp_product *tp = (const tc_tapp_product *)p;
    CU_ASSERT_EQUAL(kernel_letter(tc_plan_algorithm(tp->plan)), 's'); /* a float kernel */
    CU_ASSERT(tp->t[TC_TAPP_A].direct && tp->t[TC_TAPP_B].direct && tp->t[TC_TAPP_D].direct);
    TAPP_destroy_tensor_product(p);
    TAPP_destroy_tensor_info(a);
    TAPP_destroy_tensor_info(b);
    TAPP_destroy_tensor_info(d);
}

/* alpha 0 reads neither A nor B (NaN there); a contracted extent 0 gives
 * D = beta C; batches run each product. */
/* The ring term's product (dense, column-major, in place) created
 * (*p) and run on the data of seed 9 (D's result in *d, malloc'ed). */
static void ring_product(TAPP_tensor_product *p, double **d, char order, int64_t *span)
{
    const int64_t aeim[4] = {'a', 'e', 'i', 'm'}, mbej[4] = {'m', 'b', 'e', 'j'},
                  abij[4] = {'a', 'b', 'i', 'j'};
    const int64_t e_aeim[4] = {9, 8, 4, 5}, e_mbej[4] = {5, 7, 8, 3}, e_abij[4] = {9, 7, 4, 3};
    tview v[3] = {view(4, aeim, e_aeim, order), view(4, mbej, e_mbej, order),
                  view(4, abij, e_abij, order)};
    TAPP_tensor_info in[3];
    double *x[3];
    uint64_t st = 9;
    for (int t = 0; t < 3; t++) {
        in[t] = info_of(&v[t]);
        x[t] = malloc((size_t)v[t].span * sizeof *x[t]);
        CU_ASSERT_FATAL(x[t] != NULL);
        tc_corpus_fill(x[t], v[t].span, &st);
    }
    CU_ASSERT_EQUAL_FATAL(TAPP_create_tensor_product(p, 0, TAPP_IDENTITY, in[0], v[0].idx,
                                                     TAPP_IDENTITY, in[1], v[1].idx,
                                                     TAPP_IDENTITY, in[2], v[2].idx,
                                                     TAPP_IDENTITY, in[2], v[2].idx,
                                                     TAPP_DEFAULT_PREC), 0);
    double alpha = -0.5, beta = 1.0;
    CU_ASSERT_EQUAL(TAPP_execute_product(*p, 0, NULL, &alpha, x[0] + v[0].offset,
                                         x[1] + v[1].offset, &beta, x[2] + v[2].offset,
                                         x[2] + v[2].offset), 0);
    for (int t = 0; t < 3; t++)
        TAPP_destroy_tensor_info(in[t]);
    free(x[0]);
    free(x[1]);
    *d = x[2];
    *span = v[2].span;
}

/* A product found in wisdom builds its plan's algorithm alone (the
 * issue's "planning from wisdom under 1 ms"), and it is the ranked one:
 * the same name, the same D to the bit. */
static void from_wisdom(char order)
{
    tc_wisdom_forget();
    TAPP_tensor_product p1, p2;
    double *d1, *d2;
    int64_t span;
    ring_product(&p1, &d1, order, &span);
    ring_product(&p2, &d2, order, &span);
    const tc_plan *ranked = ((const tc_tapp_product *)p1)->plan;
    const tc_plan *remembered = ((const tc_tapp_product *)p2)->plan;
    CU_ASSERT_STRING_EQUAL(tc_plan_origin(ranked), "estimate");
    CU_ASSERT_STRING_EQUAL(tc_plan_origin(remembered), "wisdom");
    CU_ASSERT_STRING_EQUAL(tc_plan_algorithm(remembered), tc_plan_algorithm(ranked));
    CU_ASSERT(ranked->set->count > 100);
    CU_ASSERT_EQUAL(remembered->set->count, 1);
    CU_ASSERT_EQUAL(memcmp(d1, d2, (size_t)span * sizeof *d1), 0);
    /* a tile's strides are part of the key, and read back */
    char *w = tc_wisdom_export_string(NULL);
    CU_ASSERT_FATAL(w != NULL);
    CU_ASSERT_EQUAL(strstr(w, "\tcol;C=1,11,99,594;A=1,11,110,660;B=1,7,63,630\t") != NULL,
                    order == 'T');
    tc_wisdom_forget();
    CU_ASSERT_EQUAL(tc_wisdom_import_string(w, NULL), TC_OK);
    CU_ASSERT_EQUAL(tc_wisdom_count(), 1);
    free(w);
    free(d1);
    free(d2);
    TAPP_destroy_tensor_product(p1);
    TAPP_destroy_tensor_product(p2);
    tc_wisdom_forget();
}

static void test_from_wisdom(void)
{
    from_wisdom('F');
    from_wisdom('T'); /* tiles: their own entry */
}

static void test_edges(void)
{
    const int64_t ik[2] = {'i', 'k'}, kj[2] = {'k', 'j'}, ij[2] = {'i', 'j'};
    const int64_t e_ik[2] = {3, 0}, e_kj[2] = {0, 2}, e_ij[2] = {3, 2};
    tview v[4] = {view(2, ik, e_ik, 'F'), view(2, kj, e_kj, 'F'), view(2, ij, e_ij, 'F'),
                  view(2, ij, e_ij, 'F')};
    check(v, 1.0, 0.5, 0, "contracted extent 0");
    TAPP_tensor_info in[4];
    const int64_t f_ik[2] = {3, 4}, f_kj[2] = {4, 2};
    tview w[4] = {view(2, ik, f_ik, 'F'), view(2, kj, f_kj, 'F'), view(2, ij, e_ij, 'F'),
                  view(2, ij, e_ij, 'F')};
    for (int t = 0; t < 4; t++)
        in[t] = info_of(&w[t]);
    TAPP_tensor_product p = 0;
    CU_ASSERT_EQUAL_FATAL(TAPP_create_tensor_product(&p, 0, 0, in[0], ik, 0, in[1], kj, 0, in[2],
                                                     ij, 0, in[3], ij, TAPP_F64F64_ACCUM_F64), 0);
    double A[12], B[8], C[6] = {1, 2, 3, 4, 5, 6}, D[6], zero = 0.0, two = 2.0;
    for (int k = 0; k < 12; k++)
        A[k] = NAN;
    for (int k = 0; k < 8; k++)
        B[k] = INFINITY;
    CU_ASSERT_EQUAL(TAPP_execute_product(p, 0, NULL, &zero, A, B, &two, C, D), 0);
    CU_ASSERT(D[0] == 2.0 && D[5] == 12.0);
    /* three batches */
    double A3[3][12], B3[3][8], D3[3][6];
    const void *pa[3] = {A3[0], A3[1], A3[2]}, *pb[3] = {B3[0], B3[1], B3[2]};
    void *pd[3] = {D3[0], D3[1], D3[2]};
    for (int b = 0; b < 3; b++) {
        for (int k = 0; k < 12; k++)
            A3[b][k] = b + 1;
        for (int k = 0; k < 8; k++)
            B3[b][k] = 1.0;
    }
    CU_ASSERT_EQUAL(TAPP_execute_batched_product(p, 0, NULL, 3, &two, pa, pb, &zero, NULL, pd), 0);
    CU_ASSERT(D3[0][0] == 8.0 && D3[1][3] == 16.0 && D3[2][5] == 24.0); /* 2 * 4 * (b + 1) */
    TAPP_destroy_tensor_product(p);
    for (int t = 0; t < 4; t++)
        TAPP_destroy_tensor_info(in[t]);
}

/* Creates a product of the views and expects error class `code`, with
 * `text` in its explanation. */
static void refused(const tview *v, TAPP_datatype type, int code, const char *text)
{
    TAPP_tensor_info in[4];
    for (int t = 0; t < 4; t++)
        CU_ASSERT_EQUAL(TAPP_create_tensor_info(&in[t], t == 0 ? type : TAPP_F64, v[t].nmode,
                                                v[t].extent, v[t].stride), 0);
    TAPP_tensor_product p = 0;
    TAPP_error e = TAPP_create_tensor_product(&p, 0, 0, in[0], v[0].idx, 0, in[1], v[1].idx, 0,
                                              in[2], v[2].idx, 0, in[3], v[3].idx,
                                              TAPP_DEFAULT_PREC);
    char m[600];
    TAPP_explain_error(e, sizeof m, m);
    CU_ASSERT(!TAPP_check_success(e));
    CU_ASSERT_EQUAL(e, code);
    CU_ASSERT_PTR_NOT_NULL(strstr(m, text));
    if (e != code || !strstr(m, text))
        fprintf(stderr, "\n  error %d '%s', want %d '%s'\n", e, m, code, text);
    double x[64] = {0}, one = 1.0; /* executing the refused product gives its error */
    CU_ASSERT_EQUAL(TAPP_execute_product(p, 0, NULL, &one, x, x, &one, x, x), code);
    CU_ASSERT_EQUAL(TAPP_destroy_tensor_product(p), 0);
    for (int t = 0; t < 4; t++)
        TAPP_destroy_tensor_info(in[t]);
}

static void test_errors(void)
{
    const int64_t ik[2] = {'i', 'k'}, kj[2] = {'k', 'j'}, ij[2] = {'i', 'j'}, ji[2] = {'j', 'i'};
    const int64_t ii[2] = {'i', 'i'}, ia[2] = {'i', 'a'};
    (void)ji;
    const int64_t e34[2] = {3, 4}, e42[2] = {4, 2}, e32[2] = {3, 2}, e52[2] = {5, 2}, e23[2] = {2, 3};
    tview ok[4] = {view(2, ik, e34, 'F'), view(2, kj, e42, 'F'), view(2, ij, e32, 'F'),
                   view(2, ij, e32, 'F')};
    tview v[4];
    memcpy(v, ok, sizeof v);
    v[1] = view(2, kj, e52, 'F');
    refused(v, TAPP_F64, 1, "an index of A and B has two extents: index 107, mode 1 of A");
    memcpy(v, ok, sizeof v);
    v[2] = view(2, ji, e23, 'F');
    refused(v, TAPP_F64, 6, "mode 0: C has index 106 of extent 2, D 105 of 3");
    memcpy(v, ok, sizeof v);
    v[3].stride[1] = 0;
    refused(v, TAPP_F64, 8, "mode 1 of D (index 106, stride 0)");
    memcpy(v, ok, sizeof v);
    v[3] = view(2, ii, e32, 'F'), v[2] = view(2, ii, e32, 'F');
    refused(v, TAPP_F64, 11, "index 105, mode 1 of D (extent 2)");
    const int64_t e33[2] = {3, 3};
    v[3] = view(2, ii, e33, 'F'), v[2] = view(2, ii, e33, 'F'), v[0] = view(2, ik, e34, 'F');
    refused(v, TAPP_F64, 8, "mode 0 of D (index 105, stride 1)");
    memcpy(v, ok, sizeof v);
    v[3] = view(2, ia, e34, 'F'), v[2] = view(2, ia, e34, 'F');
    refused(v, TAPP_F64, 4, "an index of D is in neither A nor B: index 97, mode 1 of D");
    memcpy(v, ok, sizeof v);
    refused(v, TAPP_BF16, 101, "A's type 5 (D's 1)");
    /* negative extents and modes, NULL pointers, C NULL with beta */
    TAPP_tensor_info bad;
    const int64_t neg[2] = {3, -1}, st[2] = {1, 3};
    CU_ASSERT_EQUAL(TAPP_create_tensor_info(&bad, TAPP_F64, 2, neg, st), 14);
    CU_ASSERT_EQUAL(TAPP_create_tensor_info(&bad, TAPP_F64, -1, neg, st), 13);
    CU_ASSERT_EQUAL(TAPP_create_tensor_info(NULL, TAPP_F64, 2, e34, st), 100);
    CU_ASSERT_EQUAL(TAPP_destroy_tensor_product(0), 100);
    TAPP_tensor_info in[4];
    for (int t = 0; t < 4; t++)
        in[t] = info_of(&ok[t]);
    TAPP_tensor_product p;
    CU_ASSERT_EQUAL_FATAL(TAPP_create_tensor_product(&p, 0, 0, in[0], ik, 0, in[1], kj, 0, in[2],
                                                     ij, 0, in[3], ij, TAPP_DEFAULT_PREC), 0);
    double A[12] = {0}, B[8] = {0}, D[6], one = 1.0;
    CU_ASSERT_EQUAL(TAPP_execute_product(p, 0, NULL, &one, A, B, &one, NULL, D), 12);
    CU_ASSERT_EQUAL(TAPP_execute_product(p, 0, NULL, &one, NULL, B, &one, D, D), 100);
    TAPP_destroy_tensor_product(p);
    for (int t = 0; t < 4; t++)
        TAPP_destroy_tensor_info(in[t]);
    /* the info accessors */
    CU_ASSERT_EQUAL(TAPP_get_nmodes(in[0] = info_of(&ok[0])), 2);
    int64_t x[2];
    TAPP_get_extents(in[0], x);
    CU_ASSERT(x[0] == 3 && x[1] == 4);
    CU_ASSERT_EQUAL(TAPP_set_extents(in[0], neg), 14);
    CU_ASSERT_EQUAL(TAPP_set_strides(in[0], e42), 0);
    TAPP_get_strides(in[0], x);
    CU_ASSERT(x[0] == 4 && x[1] == 2);
    CU_ASSERT_EQUAL(TAPP_destroy_tensor_info(in[0]), 0);
}

static void test_explain(void)
{
    char m[8];
    size_t n = TAPP_explain_error(0, 0, NULL);
    CU_ASSERT_EQUAL(n, strlen("success"));
    CU_ASSERT_EQUAL(TAPP_explain_error(100, sizeof m, m), strlen("invalid argument"));
    CU_ASSERT_STRING_EQUAL(m, "invalid"); /* 7 characters and the NUL */
    CU_ASSERT(TAPP_check_success(0));
    CU_ASSERT(!TAPP_check_success(3));
    TAPP_executor ex;
    CU_ASSERT_EQUAL(TAPP_create_executor(&ex), 0);
    CU_ASSERT_EQUAL(TAPP_destroy_executor(ex), 0);
    CU_ASSERT_NOT_EQUAL(TAPP_attr_set(0, 1, NULL), 0);
}

/* Complex double tensors, A conjugated, C apart from D and conjugated,
 * complex alpha and beta, against complex arithmetic in loops. */
static void test_complex(void)
{
    const int64_t ik[2] = {'i', 'k'}, kj[2] = {'k', 'j'}, ij[2] = {'i', 'j'};
    const int64_t e_ik[2] = {3, 4}, e_kj[2] = {4, 2}, e_ij[2] = {3, 2};
    const int64_t s_ik[2] = {1, 3}, s_kj[2] = {2, 1}, s_ij[2] = {1, 3};
    TAPP_tensor_info a, b, d;
    CU_ASSERT_EQUAL_FATAL(TAPP_create_tensor_info(&a, TAPP_C64, 2, e_ik, s_ik), 0);
    CU_ASSERT_EQUAL_FATAL(TAPP_create_tensor_info(&b, TAPP_C64, 2, e_kj, s_kj), 0);
    CU_ASSERT_EQUAL_FATAL(TAPP_create_tensor_info(&d, TAPP_C64, 2, e_ij, s_ij), 0);
    TAPP_tensor_product p;
    CU_ASSERT_EQUAL_FATAL(TAPP_create_tensor_product(&p, 0, TAPP_CONJUGATE, a, ik, TAPP_IDENTITY, b,
                                                     kj, TAPP_CONJUGATE, d, ij, TAPP_IDENTITY, d,
                                                     ij, TAPP_DEFAULT_PREC), 0);
    double A[24], B[16], C[12], D[12], want[12];
    const double alpha[2] = {0.5, -1.0}, beta[2] = {2.0, 0.25};
    for (int k = 0; k < 24; k++)
        A[k] = (double)(k % 7) - 3.0;
    for (int k = 0; k < 16; k++)
        B[k] = (double)(k % 5) * 0.5 - 1.0;
    for (int k = 0; k < 12; k++)
        C[k] = (double)k * 0.1, D[k] = NAN;
    for (int i = 0; i < 3; i++)
        for (int j = 0; j < 2; j++) {
            double sr = 0.0, si = 0.0;
            for (int k = 0; k < 4; k++) {
                double ar = A[2 * (i + 3 * k)], ai = -A[2 * (i + 3 * k) + 1]; /* conjugated */
                double br = B[2 * (2 * k + j)], bi = B[2 * (2 * k + j) + 1];
                sr += ar * br - ai * bi;
                si += ar * bi + ai * br;
            }
            int o = i + 3 * j;
            double cr = C[2 * o], ci = -C[2 * o + 1]; /* conjugated */
            want[2 * o] = alpha[0] * sr - alpha[1] * si + beta[0] * cr - beta[1] * ci;
            want[2 * o + 1] = alpha[0] * si + alpha[1] * sr + beta[0] * ci + beta[1] * cr;
        }
    CU_ASSERT_EQUAL(TAPP_execute_product(p, 0, NULL, alpha, A, B, beta, C, D), 0);
    CU_ASSERT(tc_corpus_relerr(D, want, 12) < 1e-14);
    /* one complex plan (a z kernel), B and D where they lie, conjugated A packed */
    const tc_tapp_product *tp = (const tc_tapp_product *)p;
    CU_ASSERT_EQUAL(kernel_letter(tc_plan_algorithm(tp->plan)), 'z');
    CU_ASSERT(!tp->t[TC_TAPP_A].direct && tp->t[TC_TAPP_B].direct && tp->t[TC_TAPP_D].direct);
    TAPP_destroy_tensor_product(p);
    TAPP_destroy_tensor_info(a);
    TAPP_destroy_tensor_info(b);
    TAPP_destroy_tensor_info(d);
}

int tc_suite_tapp(void)
{
    CU_pSuite s = CU_add_suite("tapp", NULL, NULL);
    if (!s || !CU_add_test(s, "products against loops: layouts, tiles, in place, Hadamard",
                           test_products) ||
        !CU_add_test(s, "tiles read and written in place", test_tiles_in_place) ||
        !CU_add_test(s, "alpha 0, an extent 0, batches", test_edges) ||
        !CU_add_test(s, "a product found in wisdom: its algorithm alone, as ranked",
                     test_from_wisdom) ||
        !CU_add_test(s, "float tensors", test_float) ||
        !CU_add_test(s, "complex tensors, conjugated, complex scalars", test_complex) ||
        !CU_add_test(s, "errors refused at creation, with messages", test_errors) ||
        !CU_add_test(s, "TAPP_explain_error's buffer, handles, attributes", test_explain))
        return 1;
    return 0;
}
