/* rules.c - the table of the sampler's rules and the --model syntax (rules.h). */
#include "microbench/rules.h"

#include <stdio.h>
#include <string.h>

#include "microbench/analyze.h"
#include "microbench/sample_impl.h"

/* In tc_mb_rule order, the order the apply functions run in; each `doc` is
 * a paragraph title of docs/prediction.md. */
static const tc_mb_rule_info rules[TC_RULE_COUNT] = {
    [TC_RULE_SLABS] = {"slabs",
                       "a call whose bound passes 1 ms or whose pages pass 64 MiB: timed on "
                       "a slab, scaled",
                       "The sampler's memory (a slab)",
                       tc_mbs_apply_slabs},
    [TC_RULE_SLAB_FLOOR] = {"slab-floor",
                            "a slab of a call beyond twice the LLC stays beyond it (not for "
                            "a compute-bound dgemm)",
                            "The sampler's memory (a slab beyond the LLC)",
                            tc_mbs_apply_slab_floor},
    [TC_RULE_WARM_SLABS] = {"warm-slabs",
                            "a compute-bound dgemm's slab timed with its operands in cache, "
                            "the full call's bytes from memory added once",
                            "The sampler's memory (a slab's cold start)",
                            tc_mbs_apply_warm_slabs},
    [TC_RULE_SLAB_ROWS] = {"slab-rows",
                           "a dgemm shortened to a slab keeps its rows (m): its n and k "
                           "are cut first",
                           "The sampler's memory (a slab's shape)",
                           tc_mbs_apply_slab_rows},
    [TC_RULE_PEAK_DGEMM] = {"peak-dgemm",
                            "a compute-bound double dgemm of 16 slabs or more: its flops at "
                            "the profile's peak times its BLAS threads, its bytes from memory "
                            "added once",
                            "The sampler's memory (a slab's cold start)",
                            tc_mbs_apply_peak_dgemm},
    [TC_RULE_LLC_EDGE] = {"llc-edge",
                          "operands on the LLC's edge: the case timed in the LLC and in "
                          "memory, blended by the edge's share",
                          "Setups bounded by the upper caches: The LLC's edge",
                          tc_mbs_apply_llc_edge},
    [TC_RULE_TLB] = {"tlb",
                     "an operand whose distance spans more pages than the TLB keeps loses "
                     "its translations",
                     "Setups bounded by the upper caches (the TLB)",
                     tc_mbs_apply_tlb},
    [TC_RULE_STREAMS] = {"streams",
                         "an operand the loop streams through (one run): placed in full as "
                         "prefetched",
                         "Biases corrected: Streams, one call",
                         tc_mbs_apply_streams},
    [TC_RULE_TILED_STREAMS] = {"tiled-streams",
                               "a dgemm's streamed run of short columns: the stream's depth "
                               "prefetched, the rest by distance",
                               "Setups bounded by the upper caches: A dgemm's streamed run",
                               tc_mbs_apply_tiled_streams},
    [TC_RULE_INTERLEAVED] = {"interleaved",
                             "columns the loop moves by their height: a train's calls laid "
                             "out as runs",
                             "Biases corrected: Interleaved columns in a train",
                             tc_mbs_apply_interleaved},
    [TC_RULE_STREAM_TRAINS] = {"stream-trains",
                               "a steady case whose loop streams every moved operand: a "
                               "train of calls",
                               "Biases corrected: Streams, timed as trains",
                               tc_mbs_apply_stream_trains},
    [TC_RULE_TINY_TRAINS] = {"tiny-trains", "a call on at most 1 KiB: a train of 64 calls",
                             "Biases corrected: Tiny calls, timed as trains",
                             tc_mbs_apply_tiny_trains},
    [TC_RULE_WRITTEN_TRAINS] = {"written-trains",
                                "a call writing a vector the loop moves: a train writing "
                                "128 KiB of its lines",
                                "Biases corrected: Written vectors, timed as trains",
                                tc_mbs_apply_written_trains},
    [TC_RULE_INTERLEAVED_TRAINS] = {"interleaved-trains",
                                    "a call whose loop moves each of its operands by its "
                                    "columns' height (a dgemm's too): a train streaming 1 MiB",
                                    "Biases corrected: Interleaved columns, timed as trains",
                                    tc_mbs_apply_interleaved_trains},
    [TC_RULE_FIRST_STREAMS] = {"first-streams",
                               "a first iteration whose runs continue the enclosing loop's "
                               "last calls': those calls run untimed before it",
                               "Biases corrected: First iterations that continue a stream",
                               tc_mbs_apply_first_streams},
    [TC_RULE_WARM_LIBRARY] = {"warm-library",
                              "the kernel called once on the sampler's own small operands "
                              "after the setup's last eviction",
                              "Setups bounded by the upper caches: The library warmed",
                              tc_mbs_apply_warm_library},
    [TC_RULE_STREAM_BYTES] = {"stream-bytes",
                              "a streamed operand's bytes at the bandwidth added to a call "
                              "timed alone",
                              "Biases corrected: Streams, one call",
                              tc_mbs_apply_stream_bytes},
    [TC_RULE_ONE_PASS] = {"one-pass",
                          "daxpy and dger: the streamed bytes replace the call's time "
                          "instead of adding to it",
                          "Biases corrected: Streams, one call (A daxpy or dger)",
                          tc_mbs_apply_one_pass},
    [TC_RULE_WRITE_BACK] = {"write-back",
                            "the loop's bound charges a written operand in memory its bytes "
                            "read and written back",
                            "Biases corrected: Write-back",
                            tc_mbs_apply_write_back},
    [TC_RULE_BOUND] = {"bound",
                       "no time below the flops at the peak and the bytes at the bandwidth: "
                       "timed again, then bounded",
                       "Bounds: no prediction faster than physics",
                       tc_mbs_apply_bound},
    [TC_RULE_TOGETHER] = {"together",
                          "a split loop's threads: each thread's timed call starts when the "
                          "others' do, as in the loop",
                          "Threads: a split loop's calls timed together",
                          tc_mbs_apply_together},
};

const tc_mb_rule_info *tc_mb_rule_get(int rule)
{
    return rule >= 0 && rule < TC_RULE_COUNT ? &rules[rule] : NULL;
}

int tc_mb_rule_from_name(const char *name)
{
    for (int r = 0; r < TC_RULE_COUNT; r++)
        if (strcmp(rules[r].name, name) == 0)
            return r;
    return -1;
}

/* The valid rule names, comma-separated, into buf. */
static void rule_names(char *buf, size_t n)
{
    size_t len = 0;
    buf[0] = '\0';
    for (int r = 0; r < TC_RULE_COUNT && len < n; r++) {
        int w = snprintf(buf + len, n - len, "%s%s", r ? ", " : "", rules[r].name);
        if (w > 0)
            len += (size_t)w;
    }
}

int tc_mb_model_parse(const char *spec, int *model, unsigned *rules_off, char *why, size_t n)
{
    char item[64], names[512];
    const char *p = spec;
    unsigned off = 0;
    int m = -1;
    if (!*spec || spec[strlen(spec) - 1] == ',') {
        snprintf(why, n, "'%s' is empty or ends in a comma", spec);
        return -1;
    }
    for (int first = 1; first || *p; first = 0) {
        size_t len = strcspn(p, ",");
        if (len == 0 || len >= sizeof item) {
            snprintf(why, n, "'%s' has an empty or overlong part", spec);
            return -1;
        }
        memcpy(item, p, len);
        item[len] = '\0';
        p += len + (p[len] == ',');
        if (first) {
            m = tc_mb_model_from_name(item);
            if (m < 0) {
                snprintf(why, n, "unknown model '%s' (use warm, access, prefetch, failures or "
                                 "full, then ,-RULE to switch a rule off)", item);
                return -1;
            }
            continue;
        }
        int r = item[0] == '-' || item[0] == '+' ? tc_mb_rule_from_name(item + 1) : -1;
        if (r < 0) {
            rule_names(names, sizeof names);
            snprintf(why, n, "unknown rule switch '%s' in --model (use -RULE or +RULE; the "
                             "rules: %s; tcgen info --rules)", item, names);
            return -1;
        }
        if (item[0] == '-')
            off |= TC_RULE_BIT(r);
        else
            off &= ~TC_RULE_BIT(r);
    }
    *model = m;
    *rules_off = off;
    return 0;
}

void tc_mb_model_format(int model, unsigned rules_off, char *buf, size_t n)
{
    size_t len = 0;
    int w = snprintf(buf, n, "%s", tc_mb_model_name((tc_mb_model)model));
    if (w > 0)
        len = (size_t)w;
    for (int r = 0; r < TC_RULE_COUNT && len < n; r++)
        if (rules_off & TC_RULE_BIT(r)) {
            w = snprintf(buf + len, n - len, ",-%s", rules[r].name);
            if (w > 0)
                len += (size_t)w;
        }
}
