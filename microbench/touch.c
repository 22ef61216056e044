/* touch.c - setup accesses of the Sampler: operand touches, remote sweeps,
 * cache-line flushes. */
#include "microbench/touch.h"

#include <string.h>

#if defined(__x86_64__)
#include <emmintrin.h>
#define TC_TOUCH_CLFLUSH 1
#else
#define TC_TOUCH_CLFLUSH 0
#endif

/* clflush works on the hardware line; never skip by more than 64 bytes,
 * the smallest line of any x86-64 CPU with clflush. */
#define FLUSH_GRANULE_MAX 64

int64_t tc_mb_touch_init(double *p, const tc_mb_shape *sh)
{
    /* values in [-0.1, 0.1], both signs, rarely zero: element k gets
     * (k * 7919 mod 2001 - 1000) / 1e4, the residue stepped by an add (two
     * divisions per element made this most of a large case's setup) */
    int64_t r = 0;
    for (int64_t j1 = 0; j1 < sh->n1; j1++) {
        double *q = p + j1 * sh->s1;
        for (int64_t j0 = 0; j0 < sh->n0; j0++) {
            q[j0 * sh->s0] = (double)(r - 1000) / 1e4;
            r += 7919 % 2001;
            if (r >= 2001)
                r -= 2001;
        }
    }
    return sh->n0 * sh->n1;
}

int64_t tc_mb_touch_init_reals(void *p, const tc_mb_shape *sh, int real_bytes, int reals)
{
    int64_t r = 0;
    for (int64_t j1 = 0; j1 < sh->n1; j1++)
        for (int64_t j0 = 0; j0 < sh->n0; j0++) {
            int64_t at = (j0 * sh->s0 + j1 * sh->s1) * reals;
            for (int k = 0; k < reals; k++, at++) {
                double v = (double)(r - 1000) / 1e4;
                if (real_bytes == 4)
                    ((float *)p)[at] = (float)v;
                else
                    ((double *)p)[at] = v;
                r += 7919 % 2001;
                if (r >= 2001)
                    r -= 2001;
            }
        }
    return sh->n0 * sh->n1;
}

int64_t tc_mb_touch_read(const double *p, const tc_mb_shape *sh, double *acc)
{
    int64_t count = 0;
    double sum = 0.0;
    for (int64_t j1 = 0; j1 < sh->n1; j1++) {
        const double *q = p + j1 * sh->s1;
        for (int64_t j0 = 0; j0 < sh->n0; j0++) {
            sum += q[j0 * sh->s0];
            count++;
        }
    }
    *acc += sum;
    return count;
}

int64_t tc_mb_touch_rmw(double *p, const tc_mb_shape *sh, double zero, double *acc)
{
    const uint64_t izero = (uint64_t)zero;
    int64_t count = 0;
    double sum = 0.0;
    for (int64_t j1 = 0; j1 < sh->n1; j1++) {
        double *q = p + j1 * sh->s1;
        for (int64_t j0 = 0; j0 < sh->n0; j0++) {
            /* the word's bits plus an integer 0 the compiler cannot see:
             * every bit kept, whatever type the word holds (two floats) */
            uint64_t bits;
            memcpy(&bits, &q[j0 * sh->s0], sizeof bits);
            sum += q[j0 * sh->s0];
            bits += izero;
            memcpy(&q[j0 * sh->s0], &bits, sizeof bits);
            count++;
        }
    }
    *acc += sum;
    return count;
}

int64_t tc_mb_touch_remote(const double *pool, int64_t lines, int line_doubles,
                           int64_t *cursor, int64_t elements, double *acc)
{
    int64_t done = 0, cur = *cursor;
    double sum = 0.0;
    if (lines <= 0 || line_doubles <= 0)
        return 0;
    while (done < elements) {
        if (cur <= 0)
            cur = lines;
        cur--;
        sum += pool[cur * line_doubles];
        int64_t left = elements - done;
        done += left < line_doubles ? left : line_doubles;
    }
    *cursor = cur;
    *acc += sum;
    return done;
}

int tc_mb_touch_can_flush(void)
{
    return TC_TOUCH_CLFLUSH;
}

int64_t tc_mb_touch_flush(const double *p, const tc_mb_shape *sh, int line_bytes)
{
    int64_t count = 0;
#if TC_TOUCH_CLFLUSH
    uintptr_t granule = line_bytes > 0 && line_bytes < FLUSH_GRANULE_MAX
                            ? (uintptr_t)line_bytes
                            : (uintptr_t)FLUSH_GRANULE_MAX;
    uintptr_t last = UINTPTR_MAX;
    for (int64_t j1 = 0; j1 < sh->n1; j1++) {
        const double *q = p + j1 * sh->s1;
        if (sh->s0 == 1 && sh->n0 > 0) { /* a run: a flush per line, not per element */
            uintptr_t from = (uintptr_t)q / granule, to = (uintptr_t)(q + sh->n0 - 1) / granule;
            for (uintptr_t line = from == last ? from + 1 : from; line <= to; line++)
                _mm_clflush((const void *)(line * granule));
            last = to;
            count += sh->n0;
            continue;
        }
        for (int64_t j0 = 0; j0 < sh->n0; j0++) {
            const double *e = q + j0 * sh->s0;
            uintptr_t line = (uintptr_t)e / granule;
            if (line != last) {
                _mm_clflush(e);
                last = line;
            }
            count++;
        }
    }
#else
    (void)p;
    (void)line_bytes;
    count = sh->n0 * sh->n1;
#endif
    return count;
}

void tc_mb_touch_fence(void)
{
#if TC_TOUCH_CLFLUSH
    _mm_mfence();
#endif
}
