/*
 * bench_clock.h - what the permutation benches time with: a monotonic
 * clock, a flush of a tensor out of every cache level (a no-op without
 * SSE2), and a comparison of doubles for qsort (medians).
 */
#ifndef TC_BENCH_CLOCK_H
#define TC_BENCH_CLOCK_H

#include <stddef.h>
#include <time.h>

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

static inline double now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

/* n doubles at p out of every cache level. */
static inline void flush(const double *p, size_t n)
{
#if defined(__SSE2__)
    for (size_t i = 0; i < n; i += 8)
        _mm_clflush(p + i);
    _mm_mfence();
#else
    (void)p, (void)n;
#endif
}

static inline int cmp(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

#endif
