/*
 * reference.c - the naive contraction, the oracle for tests: an odometer
 * over the indices of C and, for each element of C, an odometer over the
 * contracted indices. No recursion, no BLAS.
 */
#include "runtime/reference.h"

#include <complex.h>

/* Per-index strides of one tensor (0 where the tensor lacks the index). */
static void index_strides(const tc_contraction *c, int t, int64_t s[TC_MAX_INDICES])
{
    for (int i = 0; i < TC_MAX_INDICES; i++)
        s[i] = 0;
    for (int k = 0; k < c->tensor[t].rank; k++)
        s[c->tensor[t].index[k]] = c->tensor[t].stride[k];
}

/*
 * One odometer over the indices list[0..n-1] (list[0] fastest). Advances
 * pos[] and moves the offsets of A, B and C along; returns 0 after the last
 * position (offsets are then back at their starting values).
 */
typedef struct odometer {
    int n;
    int list[TC_MAX_INDICES];
    int64_t size[TC_MAX_INDICES];
    int64_t pos[TC_MAX_INDICES];
    int64_t step[3][TC_MAX_INDICES];
} odometer;

static int advance(odometer *o, int64_t off[3])
{
    for (int d = 0; d < o->n; d++) {
        if (++o->pos[d] < o->size[d]) {
            for (int t = 0; t < 3; t++)
                off[t] += o->step[t][d];
            return 1;
        }
        for (int t = 0; t < 3; t++)
            off[t] -= (o->size[d] - 1) * o->step[t][d];
        o->pos[d] = 0;
    }
    return 0;
}

/* 1 if the odometer's range is empty (some size is 0). */
static int setup(odometer *o, const tc_contraction *c, int in_c,
                 int64_t s[3][TC_MAX_INDICES])
{
    int empty = 0;
    o->n = 0;
    for (int i = 0; i < c->nindex; i++) {
        if (tc_tensor_has_index(&c->tensor[TC_C], i) != in_c)
            continue;
        int d = o->n++;
        o->list[d] = i;
        o->size[d] = c->index[i].size;
        o->pos[d] = 0;
        for (int t = 0; t < 3; t++)
            o->step[t][d] = s[t][i];
        if (o->size[d] <= 0)
            empty = 1;
    }
    return empty;
}

/* Element `off` of x, of c's type, as a complex double; and back. */
static double complex load(const tc_contraction *c, const void *x, int64_t off)
{
    switch (c->type) {
    case TC_TYPE_S: return ((const float *)x)[off];
    case TC_TYPE_C: return ((const float complex *)x)[off];
    case TC_TYPE_Z: return ((const double complex *)x)[off];
    default: return ((const double *)x)[off];
    }
}

static void store(const tc_contraction *c, void *x, int64_t off, double complex v)
{
    switch (c->type) {
    case TC_TYPE_S: ((float *)x)[off] = (float)creal(v); break;
    case TC_TYPE_C: ((float complex *)x)[off] = (float complex)v; break;
    case TC_TYPE_Z: ((double complex *)x)[off] = v; break;
    default: ((double *)x)[off] = creal(v); break;
    }
}

/* alpha * sum + beta * C at off; beta 0 overwrites (NaN or Inf in C must
 * not survive), alpha 0 reads only C (BLAS: A and B not read). Real types
 * in real arithmetic, so double's results are those of plain doubles. */
static void update(const tc_contraction *c, void *C, int64_t off, double complex sum)
{
    const double complex alpha = CMPLX(c->alpha, c->alpha_im), beta = CMPLX(c->beta, c->beta_im);
    const int zero_beta = c->beta == 0.0 && c->beta_im == 0.0;
    if (!tc_type_row_of(c->type)->is_complex) {
        double a = c->alpha, b = c->beta, x = creal(sum);
        store(c, C, off, b == 0.0 ? (a == 0.0 ? 0.0 : a * x)
                         : a == 0.0 ? b * creal(load(c, C, off)) : a * x + b * creal(load(c, C, off)));
        return;
    }
    double complex v = c->alpha == 0.0 && c->alpha_im == 0.0 ? 0.0 : alpha * sum;
    store(c, C, off, zero_beta ? v : v + beta * load(c, C, off));
}

void tc_rt_reference(const tc_contraction *c, const void *A, const void *B, void *C)
{
    int64_t s[3][TC_MAX_INDICES];
    odometer outer, inner;
    for (int t = 0; t < 3; t++)
        index_strides(c, t, s[t]);
    if (setup(&outer, c, 1, s))
        return;
    int no_terms = setup(&inner, c, 0, s);
    const int zero_alpha = c->alpha == 0.0 && c->alpha_im == 0.0;
    const int real = !tc_type_row_of(c->type)->is_complex;

    int64_t off[3] = {0, 0, 0};
    do {
        double complex sum = 0.0;
        double rsum = 0.0; /* real types: plain doubles */
        if (!zero_alpha && !no_terms) {
            int64_t ioff[3] = {off[0], off[1], off[2]};
            if (real)
                do
                    rsum += creal(load(c, A, ioff[TC_A])) * creal(load(c, B, ioff[TC_B]));
                while (advance(&inner, ioff));
            else
                do
                    sum += load(c, A, ioff[TC_A]) * load(c, B, ioff[TC_B]);
                while (advance(&inner, ioff));
        }
        update(c, C, off[TC_C], real ? rsum : sum);
    } while (advance(&outer, off));
}
