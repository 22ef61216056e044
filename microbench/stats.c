/* stats.c - rank correlation and spread (stats.h). */
#include "microbench/stats.h"

#include <math.h>
#include <stdlib.h>

typedef struct item {
    double v;
    int at;
} item;

static int by_value(const void *a, const void *b)
{
    const item *x = a, *y = b;
    return (x->v > y->v) - (x->v < y->v);
}

/* rank[i] := the rank of v[i] among v[0..n), 1-based, ties averaged. */
static int ranks(const double *v, int n, double *rank)
{
    item *it = malloc((size_t)n * sizeof *it);
    if (!it)
        return -1;
    for (int i = 0; i < n; i++)
        it[i] = (item){v[i], i};
    qsort(it, (size_t)n, sizeof *it, by_value);
    for (int i = 0; i < n;) {
        int j = i + 1;
        while (j < n && it[j].v == it[i].v)
            j++;
        double mean = (i + 1 + j) / 2.0; /* ranks i+1 .. j */
        for (int k = i; k < j; k++)
            rank[it[k].at] = mean;
        i = j;
    }
    free(it);
    return 0;
}

double tc_mb_spearman(const double *x, const double *y, int n)
{
    if (n < 2)
        return NAN;
    double *rx = malloc(2 * (size_t)n * sizeof *rx);
    if (!rx || ranks(x, n, rx) != 0 || ranks(y, n, rx + n) != 0) {
        free(rx);
        return NAN;
    }
    const double *ry = rx + n, mean = (n + 1) / 2.0;
    double sxy = 0, sxx = 0, syy = 0;
    for (int i = 0; i < n; i++) {
        sxy += (rx[i] - mean) * (ry[i] - mean);
        sxx += (rx[i] - mean) * (rx[i] - mean);
        syy += (ry[i] - mean) * (ry[i] - mean);
    }
    free(rx);
    return sxx > 0 && syy > 0 ? sxy / sqrt(sxx * syy) : NAN;
}

static int by_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

void tc_mb_spread(double *v, int n, double *lo, double *median, double *hi)
{
    qsort(v, (size_t)n, sizeof *v, by_double);
    *lo = v[0];
    *hi = v[n - 1];
    *median = n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2.0;
}
