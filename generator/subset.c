/*
 * subset.c - the bounded enumeration of the main job: when a contraction
 * has more candidates than tcgen builds at once, the classes most likely
 * to hold the fastest (dgemm first, then the kernels by size) up to the
 * bound, counted before any is built. The steps and their descriptions
 * come from the kernel table's order and the family table's rows.
 */
#include "generator.h"

#include <string.h>

#include "ast/error.h"
#include "generator/enumerate.h"

/* One step of the bounded enumeration: the kernels it adds to each
 * family, and what the set is once it ends there. */
typedef struct step {
    unsigned kernels_of[TC_FAMILY_COUNT];
    char which[96];
} step;

enum { MAX_STEPS = TC_FAMILY_COUNT + TC_KERNEL_COUNT };

/* "a", "a and b", "a, b and c" (each name with `suffix`, the last with
 * `last`) appended to buf. */
static void put_list(char *buf, size_t n, size_t *len, const char *const *names, int count,
                     const char *suffix, const char *last)
{
    for (int i = 0; i < count; i++) {
        tc_text_put(buf, n, len, i == 0 ? "" : i + 1 < count ? ", " : " and ");
        tc_text_put(buf, n, len, names[i]);
        tc_text_put(buf, n, len, i + 1 < count ? suffix : last);
    }
}

/* The families in the order the top kernel's classes are taken. */
static void family_order(int order[TC_FAMILY_COUNT])
{
    for (int f = 0; f < TC_FAMILY_COUNT; f++)
        order[tc_family_table[f].bounded_order] = f;
}

/* What the set is once every class of the kernels above `below` (in the
 * kernel table's order) is taken: "the dgemm- and dger-based families",
 * "every family but the ddot-based", "every family". */
static void describe_kernels(int below, char *buf, size_t n)
{
    size_t len = 0;
    buf[0] = '\0';
    if (below == 0) {
        tc_text_put(buf, n, &len, "every family");
    } else if (below == 1) {
        tc_text_put(buf, n, &len, "every family but the ");
        tc_text_put(buf, n, &len, tc_kernel_name((tc_kernel)0));
        tc_text_put(buf, n, &len, "-based");
    } else {
        const char *names[TC_KERNEL_COUNT];
        int count = 0;
        for (int k = TC_KERNEL_COUNT - 1; k >= below; k--)
            names[count++] = tc_kernel_name((tc_kernel)k);
        tc_text_put(buf, n, &len, "the ");
        put_list(buf, n, &len, names, count, "-", "-based families");
    }
}

/* The steps (docs/design.md §4): the top kernel of the kernel table
 * (dgemm) family by family in the family rows' bounded_order, then each
 * lower kernel in every family at once. Returns their number. */
static int make_steps(step steps[MAX_STEPS])
{
    const int top = TC_KERNEL_COUNT - 1;
    int order[TC_FAMILY_COUNT], n = 0;
    family_order(order);
    memset(steps, 0, sizeof(step) * MAX_STEPS);
    for (int j = 0; j < TC_FAMILY_COUNT; j++, n++) {
        steps[n].kernels_of[order[j]] = 1u << top;
        if (j + 1 == TC_FAMILY_COUNT) {
            describe_kernels(top, steps[n].which, sizeof steps[n].which);
            continue;
        }
        const char *names[TC_FAMILY_COUNT];
        for (int i = 0; i <= j; i++)
            names[i] = tc_family_table[order[i]].name;
        size_t len = 0;
        tc_text_put(steps[n].which, sizeof steps[n].which, &len, "the ");
        put_list(steps[n].which, sizeof steps[n].which, &len, names, j + 1, "", "");
        tc_text_put(steps[n].which, sizeof steps[n].which, &len, " ");
        tc_text_put(steps[n].which, sizeof steps[n].which, &len, tc_kernel_name((tc_kernel)top));
        tc_text_put(steps[n].which, sizeof steps[n].which, &len, "s");
    }
    for (int k = top - 1; k >= 0; k--, n++) {
        for (int f = 0; f < TC_FAMILY_COUNT; f++)
            steps[n].kernels_of[f] = 1u << k;
        describe_kernels(k, steps[n].which, sizeof steps[n].which);
    }
    return n;
}

/* "fused, permuted and paper dgemm, then dger, dgemv, daxpy, ddot". */
static void describe_order(char *buf, size_t n)
{
    int order[TC_FAMILY_COUNT];
    const char *names[TC_FAMILY_COUNT];
    family_order(order);
    for (int j = 0; j < TC_FAMILY_COUNT; j++)
        names[j] = tc_family_table[order[j]].name;
    size_t len = 0;
    buf[0] = '\0';
    put_list(buf, n, &len, names, TC_FAMILY_COUNT, "", "");
    tc_text_put(buf, n, &len, " ");
    tc_text_put(buf, n, &len, tc_kernel_name((tc_kernel)(TC_KERNEL_COUNT - 1)));
    for (int k = TC_KERNEL_COUNT - 2; k >= 0; k--) {
        tc_text_put(buf, n, &len, k == TC_KERNEL_COUNT - 2 ? ", then " : ", ");
        tc_text_put(buf, n, &len, tc_kernel_name((tc_kernel)k));
    }
}

/* The classes tc_gen_enumerate_bounded builds (take, per family its
 * kernels), and *sub. Errors: TC_EINPUT (not even the first step fits). */
static tc_status bounded_classes(const tc_contraction *c, unsigned family_mask, int bound,
                                 unsigned take[TC_FAMILY_COUNT], tc_gen_subset *sub,
                                 tc_error *err)
{
    memset(sub, 0, sizeof *sub);
    unsigned asked[TC_FAMILY_COUNT];
    for (int f = 0; f < TC_FAMILY_COUNT; f++)
        asked[f] = take[f] = family_mask & (1u << f) ? TC_KERNEL_MASK_ALL : 0;
    uint64_t count[TC_FAMILY_COUNT][TC_KERNEL_COUNT];
    tc_gen_count_classes(c, asked, count);
    sub->candidates = tc_gen_classes_total(count);
    if (sub->candidates <= (uint64_t)bound)
        return TC_OK;
    memset(take, 0, sizeof(unsigned) * TC_FAMILY_COUNT);

    step steps[MAX_STEPS];
    int nsteps = make_steps(steps);
    uint64_t taken = 0;
    const char *which = NULL;
    for (int s = 0; s < nsteps; s++) {
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
    if (taken == 0) {
        char order[160];
        describe_order(order, sizeof order);
        return tc_error_set(err, TC_EINPUT, 0, 0,
                            "the contraction has %llu candidate algorithms, and the "
                            "first of its families in tcgen's order (%s) alone has more "
                            "than tcgen ranks at once (%d); use fewer indices",
                            (unsigned long long)sub->candidates, order, bound);
    }
    sub->partial = 1;
    snprintf(sub->which, sizeof sub->which, "%s", which);
    return TC_OK;
}

tc_status tc_gen_enumerate_bounded(const tc_contraction *c, unsigned family_mask, int bound,
                                   tc_algorithm_set **out, tc_gen_subset *sub, tc_error *err)
{
    *out = NULL;
    unsigned take[TC_FAMILY_COUNT];
    tc_status s = bounded_classes(c, family_mask, bound, take, sub, err);
    return s != TC_OK ? s : tc_gen_enumerate_classes(c, take, out, err);
}

tc_status tc_gen_find_bounded(const tc_contraction *c, unsigned family_mask, int bound,
                              const char *name, int serial, tc_algorithm_set **out,
                              tc_gen_subset *sub, tc_error *err)
{
    *out = NULL;
    unsigned take[TC_FAMILY_COUNT];
    tc_status s = bounded_classes(c, family_mask, bound, take, sub, err);
    tc_gen_target find = {.name = name, .serial = serial};
    return s != TC_OK ? s : tc_gen_find_classes(c, take, &find, out, err);
}
