/*
 * threaded.c - the threaded candidates (generator.h): every algorithm of a
 * set whose outermost loop can be split over the threads, split so
 * (ast/split.c), appended after the set's own.
 */
#include "generator/generator.h"

#include "ast/error.h"

tc_status tc_gen_add_threaded(tc_algorithm_set *set, const tc_contraction *c, int threads,
                              tc_error *err)
{
    int n = set->count;
    for (int i = 0; i < n && c->has_sizes; i++) {
        if (!tc_alg_splittable(set->alg[i], c, threads))
            continue;
        tc_algorithm *a = tc_alg_split(set, set->alg[i], c, threads);
        if (!a || tc_alg_set_add(set, a) != 0)
            return tc_error_set(err, TC_ERESOURCE, 0, 0,
                                "out of memory adding the threaded algorithms");
    }
    return TC_OK;
}

const tc_algorithm *tc_gen_find(tc_algorithm_set *set, const tc_contraction *c,
                                const char *name)
{
    char base[512];
    int threads = tc_alg_split_name(name, base, sizeof base);
    const tc_algorithm *alg = tc_alg_set_find(set, threads ? base : name);
    if (!threads || !alg)
        return alg;
    return tc_alg_splittable(alg, c, threads) ? tc_alg_split(set, alg, c, threads) : NULL;
}
