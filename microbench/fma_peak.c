/* fma_peak.c - one core's peak by a loop of fused multiply-adds (fma_peak.h). */
#include "microbench/fma_peak.h"

#include "runtime/timer.h"

/* Independent chains: enough to cover the FMA units' latency times their
 * count (4 cycles x 2 units on current cores) with room to spare. */
#define CHAINS 12
#define ITERS 4000000L /* about 7 ms a run at two FMAs a cycle */

/* 1 and 0 the compiler cannot see, so no x * 1 + 0 is folded away. */
static volatile double opaque_one = 1.0, opaque_zero = 0.0;

/* Twelve named accumulators (an array of them was kept in memory, and the
 * loop ran at the store-to-load latency, a quarter of the peak). */
#define CHAINS_OF(T, SET, FMA, ADD_ALL)                                                  \
    T a0 = SET(0), a1 = SET(1), a2 = SET(2), a3 = SET(3), a4 = SET(4), a5 = SET(5);    \
    T a6 = SET(6), a7 = SET(7), a8 = SET(8), a9 = SET(9), a10 = SET(10), a11 = SET(11); \
    T one = SET(opaque_one), zero = SET(opaque_zero);                                    \
    for (long i = 0; i < ITERS; i++) {                                                   \
        a0 = FMA(a0, one, zero), a1 = FMA(a1, one, zero), a2 = FMA(a2, one, zero);      \
        a3 = FMA(a3, one, zero), a4 = FMA(a4, one, zero), a5 = FMA(a5, one, zero);      \
        a6 = FMA(a6, one, zero), a7 = FMA(a7, one, zero), a8 = FMA(a8, one, zero);      \
        a9 = FMA(a9, one, zero), a10 = FMA(a10, one, zero), a11 = FMA(a11, one, zero);  \
    }                                                                                    \
    return ADD_ALL(a0) + ADD_ALL(a1) + ADD_ALL(a2) + ADD_ALL(a3) + ADD_ALL(a4) +        \
           ADD_ALL(a5) + ADD_ALL(a6) + ADD_ALL(a7) + ADD_ALL(a8) + ADD_ALL(a9) +        \
           ADD_ALL(a10) + ADD_ALL(a11)

#if defined(__x86_64__) && defined(__GNUC__)
#include <immintrin.h>

/* Each routine runs ITERS rounds of CHAINS vector FMAs and returns a sum
 * the compiler cannot drop; the values stay bounded (x * 1 + 0). */
#define SET512(x) _mm512_set1_pd((double)(x))
#define SUM512(v) _mm512_reduce_add_pd(v)
__attribute__((target("avx512f"))) static double fma512(void)
{
    CHAINS_OF(__m512d, SET512, _mm512_fmadd_pd, SUM512);
}

#define SET256(x) _mm256_set1_pd((double)(x))
__attribute__((target("avx2,fma"))) static double sum256(__m256d v)
{
    double out[4];
    _mm256_storeu_pd(out, v);
    return out[0] + out[1] + out[2] + out[3];
}
__attribute__((target("avx2,fma"))) static double fma256(void)
{
    CHAINS_OF(__m256d, SET256, _mm256_fmadd_pd, sum256);
}

/* SSE2 has no FMA: a multiply and an add, two flops per lane. */
#define SET128(x) _mm_set1_pd((double)(x))
#define MUL_ADD128(a, b, c) _mm_add_pd(_mm_mul_pd(a, b), c)
static double sum128(__m128d v)
{
    double out[2];
    _mm_storeu_pd(out, v);
    return out[0] + out[1];
}
static double mul_add128(void)
{
    CHAINS_OF(__m128d, SET128, MUL_ADD128, sum128);
}
#else
#define SET1(x) ((double)(x))
#define MUL_ADD1(a, b, c) ((a) * (b) + (c))
#define SUM1(v) (v)
static double scalar(void)
{
    CHAINS_OF(double, SET1, MUL_ADD1, SUM1);
}
#endif

/* The best of three runs of f, each CHAINS x ITERS x lanes x 2 flops. */
static double rate(double (*f)(void), int lanes)
{
    volatile double sink = 0.0;
    double best = 0.0;
    for (int r = 0; r < 3; r++) {
        double t0 = tc_rt_now();
        sink += f();
        double t = tc_rt_now() - t0;
        if (t > 0.0 && (best == 0.0 || t < best))
            best = t;
    }
    (void)sink;
    return best > 0.0 ? 2.0 * CHAINS * (double)ITERS * lanes / best : 0.0;
}

double tc_mb_fma_peak(const char **width)
{
    const char *w = "scalar";
    double r;
#if defined(__x86_64__) && defined(__GNUC__)
    __builtin_cpu_init();
    if (__builtin_cpu_supports("avx512f"))
        w = "avx512", r = rate(fma512, 8);
    else if (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma"))
        w = "avx2", r = rate(fma256, 4);
    else
        w = "sse2", r = rate(mul_add128, 2);
#else
    r = rate(scalar, 1);
#endif
    if (width)
        *width = w;
    return r;
}
