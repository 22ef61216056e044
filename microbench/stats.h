/*
 * stats.h - how good a ranking is: Spearman's rank correlation between
 * predicted and measured times, and the spread of repeated predictions
 * (compare and predict --repeat; docs/prediction.md).
 */
#ifndef TC_MICROBENCH_STATS_H
#define TC_MICROBENCH_STATS_H

/*
 * Spearman's rho of x[0..n) and y[0..n): the Pearson correlation of their
 * ranks, ties given the mean of the ranks they span. NAN when n < 2, when
 * either has all values equal, or when out of memory.
 */
double tc_mb_spearman(const double *x, const double *y, int n);

/* Smallest, median and largest of v[0..n) (n >= 1; v is reordered). */
void tc_mb_spread(double *v, int n, double *lo, double *median, double *hi);

#endif
