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

/* Every block has a header in the TC_ALIGN bytes before it: how to give
 * it back. Blocks from TC_HUGE_MIN bytes are mapped from the system and
 * unmapped when freed, never taken from or returned to the heap: a heap
 * block keeps what its last user left (pages faulted in, a region's advice
 * for huge pages), and the sampler's first prediction in a process timed
 * a strided daxpy 1.3x slower than its next ones did, which ran on memory
 * the first had freed. */
typedef struct header {
    uint64_t magic;
    void *map;      /* the mapping, NULL: from the heap */
    size_t length;  /* the mapping's length */
} header;

#define HEADER_MAGIC 0x7463676d656d3031ull /* "tcgmem01" */

static header *header_of(double *p)
{
    return (header *)(void *)((char *)p - TC_ALIGN);
}

static double *heap_block(int64_t bytes)
{
    char *m = aligned_alloc(TC_ALIGN, (size_t)(bytes + TC_ALIGN));
    if (!m)
        return NULL;
    double *p = (double *)(void *)(m + TC_ALIGN);
    *header_of(p) = (header){HEADER_MAGIC, NULL, 0};
    return p;
}

static double *mapped_block(int64_t bytes, int huge)
{
    /* the header alone in the page before the block, which starts unfaulted */
    long page = sysconf(_SC_PAGESIZE);
    size_t align = huge ? (size_t)TC_HUGE_PAGE : page > TC_ALIGN ? (size_t)page : TC_ALIGN;
    if (huge) /* all of the last huge page */
        bytes = (bytes + TC_HUGE_PAGE - 1) / TC_HUGE_PAGE * TC_HUGE_PAGE;
    size_t length = (size_t)bytes + align + TC_ALIGN;
    char *m = mmap(NULL, length, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (m == MAP_FAILED)
        return NULL;
    uintptr_t at = ((uintptr_t)m + TC_ALIGN + align - 1) / align * align;
    double *p = (double *)at;
    *header_of(p) = (header){HEADER_MAGIC, m, length};
#ifdef MADV_HUGEPAGE
    /* Large blocks on transparent huge pages where the kernel offers them
     * (madvise mode): a fault per 2 MiB instead of per 4 KiB. Faulting in
     * fresh 4 KiB pages cost more than the timed calls on a VM (a 64 MiB
     * sampler operand: 16384 faults). Where it is refused nothing changes. */
    if (huge)
        (void)madvise(p, (size_t)bytes, MADV_HUGEPAGE);
#endif
    return p;
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
    /* room for the alignment and the header */
    if (__builtin_mul_overflow(count, (int64_t)sizeof(double), &bytes) ||
        __builtin_add_overflow(bytes, (int64_t)(TC_HUGE_PAGE + 2 * TC_ALIGN), &bytes) ||
        (uint64_t)bytes > (uint64_t)PTRDIFF_MAX || (uint64_t)bytes > (uint64_t)SIZE_MAX) {
        tc_error_set(err, TC_ERESOURCE, 0, 0,
                     "cannot allocate %lld doubles: %lld x %zu bytes does not "
                     "fit in memory (it overflows 63 bits)",
                     (long long)count, (long long)count, sizeof(double));
        return NULL;
    }
    bytes = (count * (int64_t)sizeof(double) + TC_ALIGN - 1) / TC_ALIGN * TC_ALIGN;
    double *p = bytes >= TC_HUGE_MIN ? mapped_block(bytes, pages == TC_PAGES_AUTO)
                                     : heap_block(bytes);
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
    if (!p)
        return;
    header *h = header_of(p);
    if (h->magic != HEADER_MAGIC)
        abort(); /* not a block of tc_rt_alloc: freeing it would corrupt memory */
    h->magic = 0;
    if (h->map)
        munmap(h->map, h->length);
    else
        free(h);
}
