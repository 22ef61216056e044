/*
 * tapp_tile.c - issue 35's tile case: the CCSD ring term
 * R[a,b,i,j] += T[a,e,i,m] * W[m,b,e,j] on tiles of larger arrays (a, b, e
 * a block of V_TILE out of V virtual orbitals; i, j, m O_TILE of O
 * occupied), executed in place through the tiles' strides against what a
 * code does without strided operands: copy the tiles out, run the dense
 * product and add the result back. Both are TAPP products planned by
 * tcgen (bench/tapp.sh runs this).
 *
 * usage: tapp_tile V O V_TILE O_TILE REPS
 * The two ways alternate (in turned order each repetition) after one
 * untimed run of each, on tiles at an offset inside every array; their
 * results must agree (to 1e-12 relative). Prints one TSV row: the
 * algorithms tcgen chose for the tiles and for the dense copies,
 * inplace_s, copy_s, the ratio copy_s / inplace_s (the target is at least
 * 1.3), the medians.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "planner/tapp_impl.h" /* the products' plans, to name their algorithms */
#include "tapp.h"
#include "tcgen.h"

static double now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

static int cmp(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* A 4-index array (column-major, extents full[]) and its tile: extents
 * tile[], at offset `at` in every index. */
typedef struct array {
    int64_t full[4], tile[4], stride[4], dense[4];
    double *data, *origin;
    size_t n;
} array;

static int array_new(array *x, const int64_t full[4], const int64_t tile[4], int64_t at)
{
    int64_t s = 1, d = 1, off = 0;
    for (int k = 0; k < 4; k++) {
        x->full[k] = full[k], x->tile[k] = tile[k];
        x->stride[k] = s, x->dense[k] = d;
        off += at * s;
        s *= full[k], d *= tile[k];
    }
    x->n = (size_t)s;
    x->data = malloc(x->n * sizeof *x->data);
    if (!x->data)
        return -1;
    for (size_t e = 0; e < x->n; e++)
        x->data[e] = (double)((e * 2654435761u) % 1000) / 1000.0 - 0.5;
    x->origin = x->data + off;
    return 0;
}

/* The tile <-> a dense block: out (dense) = tile, or tile += dense. */
static void tile_copy(const array *x, double *dense, int add)
{
    for (int64_t l = 0; l < x->tile[3]; l++)
        for (int64_t k = 0; k < x->tile[2]; k++)
            for (int64_t j = 0; j < x->tile[1]; j++) {
                double *t = x->origin + j * x->stride[1] + k * x->stride[2] + l * x->stride[3];
                double *b = dense + j * x->dense[1] + k * x->dense[2] + l * x->dense[3];
                for (int64_t i = 0; i < x->tile[0]; i++) {
                    if (add)
                        t[i] += b[i];
                    else
                        b[i] = t[i];
                }
            }
}

static int info(const array *x, int strided, TAPP_tensor_info *out)
{
    return TAPP_create_tensor_info(out, TAPP_F64, 4, x->tile, strided ? x->stride : x->dense);
}

/* The product D (= C) += A B over infos for R, T, W. */
static int product(TAPP_tensor_product *p, TAPP_tensor_info r, TAPP_tensor_info t,
                   TAPP_tensor_info w)
{
    static const int64_t lr[4] = {'a', 'b', 'i', 'j'}, lt[4] = {'a', 'e', 'i', 'm'},
                         lw[4] = {'m', 'b', 'e', 'j'};
    return TAPP_create_tensor_product(p, 0, TAPP_IDENTITY, t, lt, TAPP_IDENTITY, w, lw,
                                      TAPP_IDENTITY, r, lr, TAPP_IDENTITY, r, lr,
                                      TAPP_DEFAULT_PREC) != 0;
}

int main(int argc, char **argv)
{
    if (argc != 6) {
        fprintf(stderr, "usage: %s V O V_TILE O_TILE REPS\n", argv[0]);
        return 2;
    }
    int64_t v = atol(argv[1]), o = atol(argv[2]), vt = atol(argv[3]), ot = atol(argv[4]);
    int reps = atoi(argv[5]);
    if (v < 1 || o < 1 || vt < 1 || ot < 1 || vt > v || ot > o || reps < 1) {
        fprintf(stderr, "%s: need 1 <= V_TILE <= V, 1 <= O_TILE <= O, REPS >= 1\n", argv[0]);
        return 2;
    }
    int64_t at = (v - vt < o - ot ? v - vt : o - ot) / 2; /* tiles inside, not at 0 */
    array r, t, w;
    if (array_new(&r, (int64_t[4]){v, v, o, o}, (int64_t[4]){vt, vt, ot, ot}, at) ||
        array_new(&t, (int64_t[4]){v, v, o, o}, (int64_t[4]){vt, vt, ot, ot}, at) ||
        array_new(&w, (int64_t[4]){o, v, v, o}, (int64_t[4]){ot, vt, vt, ot}, at))
        return 3;
    size_t nt = (size_t)(vt * vt * ot * ot);
    double *td = malloc(nt * sizeof *td), *wd = malloc(nt * sizeof *wd),
           *rd = malloc(nt * sizeof *rd), *r0 = malloc(r.n * sizeof *r0),
           *ts = malloc(2 * (size_t)reps * sizeof *ts);
    if (!td || !wd || !rd || !r0 || !ts)
        return 3;
    memcpy(r0, r.data, r.n * sizeof *r0);
    TAPP_tensor_info is[3], id[3];
    TAPP_tensor_product in_place, dense;
    if (info(&r, 1, &is[0]) || info(&t, 1, &is[1]) || info(&w, 1, &is[2]) ||
        info(&r, 0, &id[0]) || info(&t, 0, &id[1]) || info(&w, 0, &id[2]) ||
        product(&in_place, is[0], is[1], is[2]) || product(&dense, id[0], id[1], id[2])) {
        fprintf(stderr, "%s: planning failed\n", argv[0]);
        return 4;
    }
    const double one = 1.0, zero = 0.0;
    double check[2] = {0.0, 0.0};
    for (int rep = -1; rep < reps; rep++)
        for (int q = 0; q < 2; q++) {
            int way = (q + (rep > 0 ? rep : 0)) % 2; /* turned order */
            memcpy(r.data, r0, r.n * sizeof *r0);
            double t0 = now();
            if (way == 0) {
                TAPP_execute_product(in_place, 0, NULL, &one, t.origin, w.origin, &one,
                                     r.origin, r.origin);
            } else {
                tile_copy(&t, td, 0);
                tile_copy(&w, wd, 0);
                TAPP_execute_product(dense, 0, NULL, &one, td, wd, &zero, rd, rd);
                tile_copy(&r, rd, 1);
            }
            double dt = now() - t0;
            if (rep >= 0)
                ts[way * reps + rep] = dt;
            else
                for (size_t e = 0; e < r.n; e += 7)
                    check[way] += r.data[e] * (double)(e % 13);
        }
    if (fabs(check[0] - check[1]) > 1e-12 * (fabs(check[0]) + 1.0)) {
        fprintf(stderr, "%s: in place %.17g, copied %.17g: the results differ\n", argv[0],
                check[0], check[1]);
        return 5;
    }
    qsort(ts, (size_t)reps, sizeof *ts, cmp);
    qsort(ts + reps, (size_t)reps, sizeof *ts, cmp);
    double a = ts[reps / 2], b = ts[reps + reps / 2];
    printf("%s\t%s\t%.4e\t%.4e\t%.3f\n",
           tc_plan_algorithm(((const tc_tapp_product *)in_place)->plan),
           tc_plan_algorithm(((const tc_tapp_product *)dense)->plan), a, b, b / a);
    return 0;
}
