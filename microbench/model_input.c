/* model_input.c - the model's machine facts from the profile, and their
 * check (model_input.h). */
#include "microbench/model_input.h"

#include <math.h>
#include <string.h>

#include "ast/error.h"
#include "microbench/tlb.h"

void tc_mb_model_input(const tc_mb_profile *p, const tc_hardware *hw, tc_mb_sampler_options *o)
{
    o->llc_bytes = hw->llc_bytes;
    o->line_bytes = hw->line_bytes;
    o->nlevels = hw->nlevels;
    for (int k = 0; k < TC_MB_MAX_LEVELS; k++)
        o->level_bytes[k] = k < hw->nlevels ? hw->level[k].bytes : 0;
    o->peak_flops = p->peak_flops;
    o->memory_bandwidth = p->memory_bandwidth;
    o->update_bandwidth = p->update_bandwidth;
    o->tlb_pages = p->tlb_pages;
    o->stream_lines = p->stream_lines;
    memcpy(o->llc_edge, p->llc_edge, sizeof o->llc_edge);
}

/* 0 (none) or positive and finite. */
static int rate_ok(double r)
{
    return r == 0.0 || (r > 0.0 && isfinite(r));
}

tc_status tc_mb_model_input_check(const tc_mb_sampler_options *o, tc_error *err)
{
    if (o->line_bytes < 8 || o->line_bytes > TC_MB_LINE_MAX || o->line_bytes % 8 != 0)
        return tc_error_set(err, TC_EUSAGE, 0, 0,
                            "the cache line must be a multiple of 8 bytes from 8 to %d (got %d)",
                            TC_MB_LINE_MAX, o->line_bytes);
    if (o->llc_bytes < o->line_bytes || o->llc_bytes > TC_MB_LLC_MAX)
        return tc_error_set(err, TC_EUSAGE, 0, 0,
                            "the last-level cache size must be from one line to 1 PiB (got %lld)",
                            (long long)o->llc_bytes);
    if (o->nlevels < 0 || o->nlevels > TC_MB_MAX_LEVELS)
        return tc_error_set(err, TC_EUSAGE, 0, 0, "the sampler takes 0 to %d cache levels, not %d",
                            TC_MB_MAX_LEVELS, o->nlevels);
    for (int k = 0; k < o->nlevels; k++)
        if (o->level_bytes[k] <= 0 || (k > 0 && o->level_bytes[k] <= o->level_bytes[k - 1]))
            return tc_error_set(err, TC_EUSAGE, 0, 0,
                                "cache level %d of %d holds %lld bytes: the levels must be "
                                "positive and grow from the first to the last",
                                k + 1, o->nlevels, (long long)o->level_bytes[k]);
    if (o->stream_lines < 0 || o->stream_lines > TC_MB_STREAM_MAX)
        return tc_error_set(err, TC_EUSAGE, 0, 0,
                            "the stream-prefetch depth must be 0 to %d lines (got %d)",
                            TC_MB_STREAM_MAX, o->stream_lines);
    if (o->tlb_pages < 0 || o->tlb_pages > TC_MB_TLB_MAX_PAGES)
        return tc_error_set(err, TC_EUSAGE, 0, 0, "the TLB reach must be 0 to %d pages (got %lld)",
                            TC_MB_TLB_MAX_PAGES, (long long)o->tlb_pages);
    const struct {
        const char *what;
        double v;
    } rate[] = {{"peak flop rate", o->peak_flops},
                {"memory bandwidth", o->memory_bandwidth},
                {"update bandwidth", o->update_bandwidth}};
    for (size_t k = 0; k < sizeof rate / sizeof rate[0]; k++)
        if (!rate_ok(rate[k].v))
            return tc_error_set(err, TC_EUSAGE, 0, 0,
                                "the %s must be 0 (no bound) or positive and finite (got %g)",
                                rate[k].what, rate[k].v);
    for (int k = 0; k < TC_EDGE_POINTS; k++)
        if (!(o->llc_edge[k] >= 0.0 && o->llc_edge[k] <= 1.0) ||
            (k > 0 && o->llc_edge[k] > o->llc_edge[k - 1]))
            return tc_error_set(err, TC_EUSAGE, 0, 0,
                                "the LLC's edge must be shares from 0 to 1 that do not grow "
                                "(point %d is %g)",
                                k + 1, o->llc_edge[k]);
    return TC_OK;
}
