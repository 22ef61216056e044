/* memory.c - aligned, overflow-checked allocation of double arrays. */
#include "runtime/memory.h"

#include <stdlib.h>

#include "ast/error.h"

double *tc_rt_alloc(int64_t count, tc_error *err)
{
    int64_t bytes;
    if (count < 0) {
        tc_error_set(err, TC_ERESOURCE, 0, 0,
                     "cannot allocate %lld doubles: the count is negative",
                     (long long)count);
        return NULL;
    }
    if (count == 0)
        count = 1;
    /* aligned_alloc wants a multiple of the alignment */
    if (__builtin_mul_overflow(count, (int64_t)sizeof(double), &bytes) ||
        __builtin_add_overflow(bytes, (int64_t)(TC_ALIGN - 1), &bytes) ||
        (uint64_t)bytes > (uint64_t)PTRDIFF_MAX || (uint64_t)bytes > (uint64_t)SIZE_MAX) {
        tc_error_set(err, TC_ERESOURCE, 0, 0,
                     "cannot allocate %lld doubles: %lld x %zu bytes does not "
                     "fit in memory (it overflows 63 bits)",
                     (long long)count, (long long)count, sizeof(double));
        return NULL;
    }
    bytes -= bytes % TC_ALIGN;
    double *p = aligned_alloc(TC_ALIGN, (size_t)bytes);
    if (!p)
        tc_error_set(err, TC_ERESOURCE, 0, 0,
                     "out of memory: cannot allocate %lld bytes (%lld doubles)",
                     (long long)bytes, (long long)count);
    return p;
}

void tc_rt_free(double *p)
{
    free(p);
}
