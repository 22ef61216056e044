/* memory.h - aligned, overflow-checked allocation of double arrays. */
#ifndef TC_RUNTIME_MEMORY_H
#define TC_RUNTIME_MEMORY_H

#include <stddef.h>
#include <stdint.h>

#include "tcgen.h"

#define TC_ALIGN 64 /* bytes: one cache line, the widest vector load */
#define TC_HUGE_PAGE ((int64_t)2 << 20) /* a transparent huge page (x86-64) */
#define TC_HUGE_MIN ((int64_t)4 << 20)  /* blocks from this size use them */

/*
 * Allocates `count` doubles aligned to TC_ALIGN. Returns NULL and fills *err
 * (TC_ERESOURCE) if count * 8 overflows or the memory is not available.
 * count 0 gives a valid one-element block. The caller frees with tc_rt_free().
 */
double *tc_rt_alloc(int64_t count, tc_error *err);

/* Blocks from TC_HUGE_MIN bytes are fresh mappings of their own, returned
 * to the system when freed (memory.c says why); smaller ones come from the
 * heap. Page size policy of a block: AUTO puts blocks from TC_HUGE_MIN bytes on
 * transparent huge pages (a fault per 2 MiB); SMALL keeps 4 KiB pages, for
 * a block used sparsely (a strided slice touching a few lines of a large
 * span: each 2 MiB page touched would be zeroed whole) or for measuring
 * latencies as a program sees them. */
typedef enum { TC_PAGES_AUTO = 0, TC_PAGES_SMALL } tc_pages;
double *tc_rt_alloc_pages(int64_t count, tc_pages pages, tc_error *err);

/* Bytes of the `count` doubles at p that lie in pages faulted in
 * (mincore), or count * 8 when the system does not say. */
int64_t tc_rt_resident_bytes(const double *p, int64_t count);

/* Frees what tc_rt_alloc returned; NULL is a no-op. */
void tc_rt_free(double *p);

#endif
