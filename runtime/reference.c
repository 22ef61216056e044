/*
 * reference.c - the naive contraction, the oracle for tests: an odometer
 * over the indices of C and, for each element of C, an odometer over the
 * contracted indices. No recursion, no BLAS.
 */
#include "runtime/reference.h"

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

void tc_rt_reference(const tc_contraction *c, const double *A,
                     const double *B, double *C)
{
    int64_t s[3][TC_MAX_INDICES];
    odometer outer, inner;
    for (int t = 0; t < 3; t++)
        index_strides(c, t, s[t]);
    if (setup(&outer, c, 1, s))
        return;
    int no_terms = setup(&inner, c, 0, s);

    int64_t off[3] = {0, 0, 0};
    do {
        double sum = 0.0;
        if (c->alpha == 0.0) { /* BLAS: C = beta * C, A and B not read */
            C[off[TC_C]] = c->beta == 0.0 ? 0.0 : c->beta * C[off[TC_C]];
            continue;
        }
        if (!no_terms) {
            int64_t ioff[3] = {off[0], off[1], off[2]};
            do
                sum += A[ioff[TC_A]] * B[ioff[TC_B]];
            while (advance(&inner, ioff));
        }
        /* beta == 0 overwrites: NaN or Inf in C must not survive */
        if (c->beta == 0.0)
            C[off[TC_C]] = c->alpha * sum;
        else
            C[off[TC_C]] = c->alpha * sum + c->beta * C[off[TC_C]];
    } while (advance(&outer, off));
}
