/* memory.c - aligned, overflow-checked allocation of double arrays. */
#include "runtime/memory.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "ast/error.h"

double *tc_rt_alloc(int64_t count, tc_error *err)
{
    return tc_rt_alloc_pages(count, TC_PAGES_AUTO, err);
}

double *tc_rt_alloc_pages(int64_t count, tc_pages pages, tc_error *err)
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
    /* Large blocks on transparent huge pages where the kernel offers them
     * (madvise mode): a fault per 2 MiB instead of per 4 KiB. Faulting in
     * fresh 4 KiB pages cost more than the timed calls on a VM (a 64 MiB
     * sampler operand: 16384 faults). Where it is refused nothing changes. */
    int huge = pages == TC_PAGES_AUTO && bytes >= TC_HUGE_MIN;
    if (huge)
        bytes = (bytes + TC_HUGE_PAGE - 1) / TC_HUGE_PAGE * TC_HUGE_PAGE;
    double *p = aligned_alloc(huge ? TC_HUGE_PAGE : TC_ALIGN, (size_t)bytes);
#ifdef MADV_HUGEPAGE
    if (p && huge)
        (void)madvise(p, (size_t)bytes, MADV_HUGEPAGE);
#endif
    if (!p)
        tc_error_set(err, TC_ERESOURCE, 0, 0,
                     "out of memory: cannot allocate %lld bytes (%lld doubles)",
                     (long long)bytes, (long long)count);
    return p;
}

int64_t tc_rt_resident_bytes(const double *p, int64_t count)
{
    int64_t bytes = count * (int64_t)sizeof(double);
    long page = sysconf(_SC_PAGESIZE);
    if (!p || count <= 0 || page <= 0)
        return bytes > 0 ? bytes : 0;
    uintptr_t from = (uintptr_t)p / (uintptr_t)page * (uintptr_t)page;
    size_t len = (uintptr_t)p + (uintptr_t)bytes - from;
    size_t npages = (len + (size_t)page - 1) / (size_t)page;
    unsigned char *v = malloc(npages);
    if (!v || mincore((void *)from, len, v) != 0) {
        free(v);
        return bytes;
    }
    int64_t resident = 0;
    for (size_t k = 0; k < npages; k++)
        resident += v[k] & 1;
    free(v);
    resident *= page;
    return resident < bytes ? resident : bytes;
}

void tc_rt_free(double *p)
{
    free(p);
}

/* MemAvailable in bytes, or -1 when /proc/meminfo does not say. */
static int64_t meminfo_available(void)
{
    FILE *f = fopen("/proc/meminfo", "r");
    if (!f)
        return -1;
    char line[256];
    long long kib = -1;
    while (fgets(line, sizeof line, f)) {
        if (strncmp(line, "MemAvailable:", 13) == 0) {
            if (sscanf(line + 13, "%lld", &kib) != 1)
                kib = -1;
            break;
        }
    }
    fclose(f);
    if (kib < 0 || kib > INT64_MAX / 1024)
        return -1;
    return (int64_t)kib * 1024;
}

int64_t tc_rt_memory_available(void)
{
    int64_t bytes = meminfo_available();
    if (bytes >= 0)
        return bytes;
    long pages = sysconf(_SC_AVPHYS_PAGES);
    if (pages < 0)
        pages = sysconf(_SC_PHYS_PAGES);
    long page = sysconf(_SC_PAGESIZE);
    if (pages < 0 || page <= 0)
        return -1;
    if ((int64_t)pages > INT64_MAX / page)
        return INT64_MAX;
    return (int64_t)pages * page;
}
