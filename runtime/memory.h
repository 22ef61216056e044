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

/* Frees what tc_rt_alloc returned; NULL is a no-op. */
void tc_rt_free(double *p);

/*
 * Bytes of memory available to a new allocation without swapping:
 * MemAvailable from /proc/meminfo, else the free physical pages
 * (sysconf), else -1 when neither can be read.
 */
int64_t tc_rt_memory_available(void);

#endif
