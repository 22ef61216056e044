/*
 * split.c - an algorithm's outermost loop split over threads (algorithm.h):
 * which loops can be, the split copy and its name, and what one thread of
 * it runs and holds.
 */
#include "ast/algorithm.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int tc_alg_split_reduces(const tc_algorithm *alg, const tc_contraction *c)
{
    return alg->nloops > 0 && c->index[alg->loop[0]].role == TC_ROLE_CONTRACTED &&
           tc_kernel_table[alg->kernel].applies_beta &&
           alg->kernel_node->call->arg[2].base == TC_C;
}

int tc_alg_splittable(const tc_algorithm *alg, const tc_contraction *c, int threads)
{
    if (!alg || threads < 2 || threads > TC_MAX_SPLIT || alg->split > 1 || alg->nloops < 1)
        return 0;
    const tc_node *outer = alg->loop_node[0];
    return outer->parent == NULL && outer->extent >= threads &&
           (c->index[outer->index].role != TC_ROLE_CONTRACTED || tc_alg_split_reduces(alg, c));
}

tc_algorithm *tc_alg_split(tc_algorithm_set *s, const tc_algorithm *alg,
                           const tc_contraction *c, int threads)
{
    tc_algorithm *a = tc_alg_alloc(s, sizeof *a);
    if (!a)
        return NULL;
    *a = *alg; /* the nodes are read only once built: shared */
    a->split = threads;
    a->partial = tc_alg_split_reduces(alg, c) ? c->tensor[TC_C].span : 0;
    size_t n = strlen(alg->name) + 16;
    char *name = tc_alg_alloc(s, n);
    if (!name)
        return NULL;
    snprintf(name, n, "%s@%d", alg->name, threads);
    a->name = name;
    return a;
}

int tc_alg_split_name(const char *name, char *base, size_t n)
{
    const char *at = strrchr(name, '@');
    if (!at || at[1] < '1' || at[1] > '9' || strspn(at + 1, "0123456789") != strlen(at + 1) ||
        strlen(at + 1) > 3)
        return 0;
    int threads = atoi(at + 1);
    if (threads < 2 || threads > TC_MAX_SPLIT || (size_t)(at - name) >= n)
        return 0;
    memcpy(base, name, (size_t)(at - name));
    base[at - name] = '\0';
    return threads;
}

int64_t tc_alg_loop_extent(const tc_algorithm *alg, const tc_node *n)
{
    if (alg->split > 1 && alg->nloops > 0 && n == alg->loop_node[0])
        return (n->extent + alg->split - 1) / alg->split;
    return n->extent;
}

int tc_alg_in_split_loop(const tc_algorithm *alg, const tc_node *n)
{
    return alg->split > 1 && n->depth > 0; /* the split loop is the top-level one */
}

int tc_alg_temp_per_thread(const tc_algorithm *alg, int t)
{
    for (int i = 0; i < alg->ncopies; i++) {
        const tc_node *n = alg->copy_node[i];
        int temp = n->kind == TC_NODE_COPY ? n->copy->temp : n->perm->temp;
        if (temp == t && tc_alg_in_split_loop(alg, n))
            return 1;
    }
    return 0;
}

int tc_alg_threads(const tc_algorithm *alg)
{
    return alg->split > 1 ? alg->split : 1;
}
