/* blocks.c - the operands' memory, kept for the next case (sample_impl.h). */
#include "microbench/sample_impl.h"

#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ast/error.h"
#include "runtime/execute.h"

/* ---- operand blocks ---------------------------------------------------- */

/* Whether a block of count doubles with this policy gets huge pages. */
static int on_huge_pages(int64_t count, tc_pages pages)
{
    return pages == TC_PAGES_AUTO && count >= TC_HUGE_MIN / (int64_t)sizeof(double);
}

/* A block of at least count doubles for operand i on pages of the given
 * kind, `used` of them in pages it will touch: the spare one on pages of
 * the same size when it is large enough, else a new one. */
tc_status tc_mbs_operand_block(tc_mb_sampler *s, int i, int64_t count, int64_t used,
                               tc_pages pages, block *b, tc_error *err)
{
    int huge = on_huge_pages(count, pages);
    block *spare = &s->spare[i][huge];
    if (spare->base && spare->count >= count) {
        *b = *spare;
        spare->base = NULL;
    } else {
        /* from a huge page's size up to what a spare may keep, with room
         * for the slightly larger operands of cases to come (an eighth of
         * the size at most; a larger span gets what tc_mbs_fit() allowed) */
        int64_t room = count;
        if (count >= TC_HUGE_MIN / (int64_t)sizeof(double) &&
            count <= TC_MB_SPARE_MAX / (int64_t)sizeof(double)) {
            int64_t step = TC_HUGE_PAGE / (int64_t)sizeof(double);
            while (step <= count / 16)
                step *= 2;
            room = (count + step - 1) / step * step;
        }
        *b = (block){tc_rt_alloc_pages(room, pages, err), room, 0, pages};
        if (!b->base)
            return TC_ERESOURCE;
    }
    /* a huge page is faulted in whole: count it all until asked (release) */
    int64_t bytes = b->count * (int64_t)sizeof(double);
    int64_t r = huge ? bytes : b->resident + used * (int64_t)sizeof(double);
    b->resident = r < bytes ? r : bytes;
    return TC_OK;
}

/* What the spares keep resident; *largest (when asked): the largest spare
 * other than `kept`, NULL if none. */
static int64_t spares_resident(tc_mb_sampler *s, const block *kept, block **largest)
{
    int64_t total = 0;
    if (largest)
        *largest = NULL;
    for (int j = 0; j < TC_MB_MAX_OPERANDS; j++)
        for (int h = 0; h < 2; h++) {
            block *k = &s->spare[j][h];
            if (!k->base)
                continue;
            total += k->resident;
            if (largest && k != kept && (!*largest || k->resident > (*largest)->resident))
                *largest = k;
        }
    return total;
}

/* Keeps block b of operand i as the spare for its size of pages, and frees
 * other spares, largest first, until what they keep resident is at most
 * TC_MB_SPARE_MAX; a block that alone holds more is freed. A strided slice of a
 * large tensor spans the tensor but touches a page per column, and a
 * CCSD term's operands are 24-30 MB: freeing blocks by their span made
 * every case fault its pages in anew (88 000 faults and 1.5 GB of pages
 * zeroed, most of predicting a CCSD term on a VM where a fault exits to the
 * hypervisor). What is resident is counted up from the pages touched and,
 * past the limit, asked of the kernel. */
void tc_mbs_operand_release(tc_mb_sampler *s, int i, block *b)
{
    if (!b->base)
        return;
    if (b->resident > TC_MB_SPARE_MAX)
        b->resident = tc_rt_resident_bytes(b->base, b->count);
    if (b->resident > TC_MB_SPARE_MAX) {
        tc_rt_free(b->base);
        return;
    }
    int huge = on_huge_pages(b->count, b->pages);
    block *kept = &s->spare[i][huge];
    tc_rt_free(kept->base);
    *kept = *b;
    if (spares_resident(s, kept, NULL) <= TC_MB_SPARE_MAX)
        return;
    for (int j = 0; j < TC_MB_MAX_OPERANDS; j++) /* counted from pages touched: bounds */
        if (s->spare[j][0].base)
            s->spare[j][0].resident = tc_rt_resident_bytes(s->spare[j][0].base,
                                                           s->spare[j][0].count);
    block *largest;
    while (spares_resident(s, kept, &largest) > TC_MB_SPARE_MAX && largest) {
        tc_rt_free(largest->base);
        largest->base = NULL;
    }
}

