/*
 * tlb.h - the TLB as a cache of address translations (docs/prediction.md).
 *
 * A loop nest whose operands lie far apart in memory (a strided slice of a
 * large tensor touches a page per column) pays a page walk per page on top
 * of its cache misses, once the pages it touched since their last use are
 * more than the TLB holds. The sampler emulates that like the caches: it
 * touches more distinct pages than the TLB holds before a case whose
 * operands come from memory. The pages used for it map a few physical
 * pages (128 virtual pages to each), so touching them evicts translations
 * and hardly any data: a page walk each, one line per physical page.
 */
#ifndef TC_MICROBENCH_TLB_H
#define TC_MICROBENCH_TLB_H

#include <stdint.h>

#include "tcgen.h"

typedef struct tc_mb_pages {
    char *base;       /* `count` consecutive virtual pages of 4 KiB */
    int64_t count;
    int64_t physical; /* the physical pages under them: page k maps k % physical */
} tc_mb_pages;

/* Maps `count` virtual pages onto count/128 (at least one) physical pages
 * of an anonymous shared file, each faulted in. TC_ERESOURCE when the
 * system refuses. */
tc_status tc_mb_pages_map(int64_t count, tc_mb_pages *out, tc_error *err);
void tc_mb_pages_unmap(tc_mb_pages *p);

/* Reads one double of each of the first `count` pages (at most p->count),
 * one line per physical page, and adds them to *acc. Returns the pages
 * touched. */
int64_t tc_mb_pages_touch(const tc_mb_pages *p, int64_t count, double *acc);

/*
 * How many pages' translations one core keeps (its reach): a chase through
 * one line of each of n such pages (the data stays in L1: at most 256
 * lines), in a scrambled order, costs a second-level TLB hit per step while
 * the translations fit and a page walk beyond. Returns the largest n (four
 * sizes per doubling, from TC_MB_TLB_BASE_PAGES to TC_MB_TLB_MAX_PAGES)
 * before the first whose step costs more than 1.4 times that of
 * TC_MB_TLB_BASE_PAGES pages (past any first-level TLB, within any second
 * level), or 0 when no step is seen or the pages cannot be mapped. About
 * 0.5 s.
 */
#define TC_MB_TLB_BASE_PAGES 512
#define TC_MB_TLB_MAX_PAGES 32768
int64_t tc_mb_tlb_measure(void);

#endif
