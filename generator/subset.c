/*
 * subset.c - the bounded enumeration of the main job: when a contraction
 * has more candidates than tcgen builds at once, the classes most likely
 * to hold the fastest (dgemm first, then the kernels by size) up to the
 * bound, counted before any is built.
 */
#include "generator.h"

#include <string.h>

#include "ast/error.h"

#define KERNEL(k) (1u << TC_KERNEL_##k)

/* The classes in the order they are taken: the kernels each step adds to
 * each family (paper, fused, permuted) and what the set is once it ends
 * there. */
static const struct step {
    unsigned kernels_of[TC_FAMILY_COUNT];
    const char *which;
} steps[] = {
    {{0, KERNEL(DGEMM), 0}, "the fused dgemms"},
    {{0, 0, KERNEL(DGEMM)}, "the fused and permuted dgemms"},
    {{KERNEL(DGEMM), 0, 0}, "the dgemm-based families"},
    {{KERNEL(DGER), KERNEL(DGER), 0}, "the dgemm- and dger-based families"},
    {{KERNEL(DGEMV), KERNEL(DGEMV), 0}, "the dgemm-, dger- and dgemv-based families"},
    {{KERNEL(DAXPY), KERNEL(DAXPY), 0}, "every family but the ddot-based"},
    {{KERNEL(DDOT), KERNEL(DDOT), 0}, "every family"},
};
enum { NSTEPS = sizeof steps / sizeof steps[0] };

tc_status tc_gen_enumerate_bounded(const tc_contraction *c, unsigned family_mask, int bound,
                                   tc_algorithm_set **out, tc_gen_subset *sub, tc_error *err)
{
    *out = NULL;
    memset(sub, 0, sizeof *sub);
    unsigned asked[TC_FAMILY_COUNT];
    for (int f = 0; f < TC_FAMILY_COUNT; f++)
        asked[f] = family_mask & (1u << f) ? TC_KERNEL_MASK_ALL : 0;
    uint64_t count[TC_FAMILY_COUNT][TC_KERNEL_COUNT];
    tc_gen_count_classes(c, asked, count);
    sub->candidates = tc_gen_classes_total(count);
    if (sub->candidates <= (uint64_t)bound)
        return tc_gen_enumerate_classes(c, asked, out, err);

    unsigned take[TC_FAMILY_COUNT] = {0};
    uint64_t taken = 0;
    const char *which = NULL;
    for (int s = 0; s < NSTEPS; s++) {
        uint64_t add = 0;
        for (int f = 0; f < TC_FAMILY_COUNT; f++)
            for (int k = 0; k < TC_KERNEL_COUNT; k++)
                if (steps[s].kernels_of[f] & asked[f] & (1u << k))
                    add += count[f][k];
        if (taken + add > (uint64_t)bound)
            break;
        taken += add;
        for (int f = 0; f < TC_FAMILY_COUNT; f++)
            take[f] |= steps[s].kernels_of[f] & asked[f];
        which = steps[s].which;
    }
    if (taken == 0)
        return tc_error_set(err, TC_EINPUT, 0, 0,
                            "the contraction has %llu candidate algorithms, and the "
                            "first of its families in tcgen's order (fused, permuted and "
                            "paper dgemm, then dger, dgemv, daxpy, ddot) alone has more "
                            "than tcgen ranks at once (%d); use fewer indices",
                            (unsigned long long)sub->candidates, bound);
    sub->partial = 1;
    snprintf(sub->which, sizeof sub->which, "%s", which);
    return tc_gen_enumerate_classes(c, take, out, err);
}
