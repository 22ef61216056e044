/*
 * rules.h - the sampler's corrections as named rules, each with a switch.
 *
 * The paper's setup (docs/prediction.md, "Setups bounded by the upper
 * caches") places each operand in the level its access distance reaches
 * and times one call. Every correction the sampler makes on top of that is
 * a rule of this table: a name, a one-line summary, the paragraph of
 * docs/prediction.md that measured it, and a bit in a switch mask. The
 * sampler computes a case's recipe (the setup steps, the train, the
 * blend) once, with the rules in force (tc_mb_sampler_options.rules_off);
 * the memo key serialises that recipe. With every rule on (a mask of 0),
 * the sampler is the one every golden file and oracle was made with.
 *
 * Each rule has one apply function (the file that owns its part of the
 * sampler defines it): tc_mbs_prepare runs those of the rules in force in
 * table order, and each writes its decision into the case's recipe (a
 * curve, a flag, a part, a number of calls); the sampler's stages then
 * carry the recipe out and never test a switch. The table is in the order
 * the stages use the decisions: the slab (how much of a long call is
 * timed), placement (where each operand is put), the train (how many
 * calls are timed), the composition of the timed result (what is added,
 * what bounds it). A rule's apply function reads only the case and the
 * decisions of rules before it.
 */
#ifndef TC_MICROBENCH_RULES_H
#define TC_MICROBENCH_RULES_H

#include <stddef.h>

typedef enum tc_mb_rule {
    /* slabs */
    TC_RULE_SLABS = 0,  /* a call longer than a slab timed on a slab, scaled */
    TC_RULE_SLAB_FLOOR, /* a slab stays beyond the cache as the full call was */
    TC_RULE_WARM_SLABS, /* a compute-bound dgemm's slab timed in cache */
    TC_RULE_SLAB_ROWS,  /* a dgemm's slab keeps its rows: n and k cut first */
    TC_RULE_PEAK_DGEMM, /* a compute-bound dgemm of many slabs: at the peak rate */
    /* placement */
    TC_RULE_LLC_EDGE,      /* operands on the LLC's edge: timed in both, blended */
    TC_RULE_TLB,           /* translations evicted past the TLB's reach */
    TC_RULE_STREAMS,       /* a loop's unit-stride stream placed as prefetched */
    TC_RULE_TILED_STREAMS, /* a dgemm's streamed run: the depth prefetched */
    /* trains */
    TC_RULE_INTERLEAVED,    /* columns moved by their height laid out as runs */
    TC_RULE_STREAM_TRAINS,  /* streamed steady cases timed as trains */
    TC_RULE_TINY_TRAINS,    /* calls on a few lines timed as trains */
    TC_RULE_WRITTEN_TRAINS, /* calls writing a moving vector timed as trains */
    TC_RULE_INTERLEAVED_TRAINS, /* calls on columns moved by their height: trains */
    TC_RULE_FIRST_STREAMS,  /* a first call whose runs continue the last ones' */
    /* composition */
    TC_RULE_WARM_LIBRARY, /* the library warmed after the setup's evictions */
    TC_RULE_STREAM_BYTES, /* a streamed operand's bytes added to the call */
    TC_RULE_ONE_PASS,     /* daxpy, dger: those bytes replace the call */
    TC_RULE_WRITE_BACK,   /* a written operand in memory: its bytes both ways */
    TC_RULE_BOUND,        /* no time below the flop and byte bound */
    /* a split loop's threads */
    TC_RULE_TOGETHER, /* the threads' timed calls start together */
    TC_RULE_COUNT
} tc_mb_rule;

struct tc_mb_sampler;
struct tc_mb_case;
struct tc_mbs_recipe;

typedef struct tc_mb_rule_info {
    const char *name;    /* the switch: --model full,-NAME */
    const char *summary; /* one line */
    const char *doc;     /* its paragraph in docs/prediction.md */
    /* writes the rule's decision for the case into the recipe
     * (microbench/sample_impl.h) */
    void (*apply)(const struct tc_mb_sampler *s, const struct tc_mb_case *cs,
                  struct tc_mbs_recipe *p);
} tc_mb_rule_info;

/* The rule's entry; NULL out of range. */
const tc_mb_rule_info *tc_mb_rule_get(int rule);

/* The rule named `name`, or -1. */
int tc_mb_rule_from_name(const char *name);

/* The bit of a rule in a switch mask (tc_mb_sampler_options.rules_off). */
#define TC_RULE_BIT(r) (1u << (unsigned)(r))

/* 1 when rule r is on under the mask of rules switched off. */
static inline int tc_mb_rule_on(unsigned rules_off, tc_mb_rule r)
{
    return !(rules_off & TC_RULE_BIT(r));
}

/*
 * Parses a --model value: a level (warm, access, prefetch, failures, full;
 * analyze.h), then any number of ",-NAME" (the rule switched off) or
 * ",+NAME" (switched on again). *model and *rules_off get the result.
 * 0, or -1 with why (n bytes) naming what is wrong and what is valid.
 */
int tc_mb_model_parse(const char *spec, int *model, unsigned *rules_off, char *why, size_t n);

/* Writes "full" or "full,-trains,-tlb" for *model and rules_off (n bytes). */
void tc_mb_model_format(int model, unsigned rules_off, char *buf, size_t n);

#endif
