/*
 * permuted.c - the permuted family (docs/design.md §4): whole operands
 * permuted into temporaries laid out in blocks, so that one kernel over
 * whole roles (free A x free B x contracted: dgemm) does the contraction,
 * looped over the batch indices and the runs it cannot take; and blocked,
 * a tensor permuted block by block under loops over its last indices.
 */
#include "generator/enumerate.h"

#include <string.h>

/* The tensors holding each role, the first preferred as the source of the
 * role's index order; and the roles of each tensor's blocks, in the order
 * a permuted tensor takes them (so the dgemm needs no transposes). */
static const int role_holders[4][3] = {
    [TC_ROLE_FREE_A] = {TC_A, TC_C, -1},
    [TC_ROLE_FREE_B] = {TC_B, TC_C, -1},
    [TC_ROLE_CONTRACTED] = {TC_A, TC_B, -1},
    [TC_ROLE_BATCH] = {TC_C, TC_A, TC_B},
};
static const tc_role tensor_blocks[3][3] = {
    [TC_C] = {TC_ROLE_FREE_A, TC_ROLE_FREE_B, TC_ROLE_BATCH},
    [TC_A] = {TC_ROLE_FREE_A, TC_ROLE_CONTRACTED, TC_ROLE_BATCH},
    [TC_B] = {TC_ROLE_CONTRACTED, TC_ROLE_FREE_B, TC_ROLE_BATCH},
};

/*
 * *p = *c with each tensor of the mask (bits 1 << tensor) reordered into
 * its blocks, each role's indices in the order of a holder that keeps its
 * layout (else of its first holder), strides recomputed. 0 when a dense
 * tensor of the mask would keep its order (nothing to permute; a strided
 * one is packed).
 */
static int permuted_layout(const tc_contraction *c, unsigned mask, tc_contraction *p)
{
    *p = *c;
    for (int t = TC_C; t <= TC_B; t++) {
        if (!(mask & (1u << t)))
            continue;
        tc_tensor *x = &p->tensor[t];
        int k = 0;
        for (int blk = 0; blk < 3; blk++) {
            tc_role role = tensor_blocks[t][blk];
            const int *h = role_holders[role];
            int src = h[0];
            for (int j = 0; j < 3 && h[j] >= 0; j++)
                if (!(mask & (1u << h[j]))) {
                    src = h[j];
                    break;
                }
            const tc_tensor *from = &c->tensor[src];
            for (int q = 0; q < from->rank; q++)
                if (c->index[from->index[q]].role == role)
                    x->index[k++] = from->index[q];
        }
        if (memcmp(x->index, c->tensor[t].index, (size_t)x->rank * sizeof x->index[0]) == 0 &&
            c->tensor[t].span == c->tensor[t].elements)
            return 0; /* (a strided tensor kept in order is still packed) */
        int64_t stride = 1;
        for (int q = 0; q < x->rank; q++) {
            x->stride[q] = c->has_sizes ? stride : 0;
            stride *= c->index[x->index[q]].size;
        }
        x->span = x->elements; /* a temporary: dense */
    }
    return 1;
}

/* 1 when every index of x is in y. */
static int is_subset(const kdim *x, const kdim *y)
{
    for (int i = 0; i < x->n; i++) {
        int found = 0;
        for (int j = 0; j < y->n && !found; j++)
            found = x->idx[i] == y->idx[j];
        if (!found)
            return 0;
    }
    return 1;
}

/* Drops the runs contained in a longer run of the list: after paying for
 * a permutation, a dgemm over a part of a run only adds calls. */
static void keep_maximal(kdims *l)
{
    int n = 0;
    for (int i = 0; i < l->n; i++) {
        int inside = 0;
        for (int j = 0; j < l->n && !inside; j++)
            inside = l->d[j].n > l->d[i].n && is_subset(&l->d[i], &l->d[j]);
        if (!inside)
            l->d[n++] = l->d[i];
    }
    l->n = n;
}

/* Drops the runs holding an index looped around the blocks. */
static void drop_block_loops(const builder *b, kdims *l)
{
    int n = 0;
    for (int i = 0; i < l->n; i++) {
        int looped = 0;
        for (int j = 0; j < l->d[i].n; j++)
            looped |= tc_gen_in_block_loops(b, l->d[i].idx[j]);
        if (!looped)
            l->d[n++] = l->d[i];
    }
    l->n = n;
}

/* Moves the indices looped around the blocks to the end (outermost) of
 * each tensor of the mask, the blocked tensor's last outermost, strides
 * recomputed. 0 when a tensor of the mask would then keep its order. */
static int blocks_outermost(const builder *b, unsigned mask, tc_contraction *p)
{
    for (int t = TC_C; t <= TC_B; t++) {
        if (!(mask & (1u << t)))
            continue;
        tc_tensor *x = &p->tensor[t];
        int k = 0, index[TC_MAX_RANK] = {0};
        for (int q = 0; q < x->rank; q++)
            if (!tc_gen_in_block_loops(b, x->index[q]))
                index[k++] = x->index[q];
        for (int j = b->nblock - 1; j >= 0; j--)
            if (tc_gen_position(x, b->block[j]) >= 0)
                index[k++] = b->block[j];
        memcpy(x->index, index, sizeof index);
        int64_t stride = 1;
        for (int q = 0; q < x->rank; q++) {
            x->stride[q] = p->has_sizes ? stride : 0;
            stride *= p->index[x->index[q]].size;
        }
        x->span = x->elements;
        if (memcmp(x->index, b->orig->tensor[t].index, (size_t)x->rank * sizeof x->index[0]) == 0 &&
            b->orig->tensor[t].span == b->orig->tensor[t].elements)
            return 0;
    }
    return 1;
}

/* The permuted candidates of one mask (and block loops): kernels b->kernel
 * over the maximal runs of each role the new layout allows, looped over the
 * rest. */
static tc_status enumerate_layout(builder *b, const tc_contraction *c, unsigned mask,
                                  tc_error *err)
{
    tc_contraction p;
    if (!permuted_layout(c, mask, &p) || !blocks_outermost(b, mask, &p))
        return TC_OK;
    kdims fa, fb, kc;
    tc_gen_role_dims(&p, TC_ROLE_FREE_A, TC_A, TC_C, 1, &fa);
    tc_gen_role_dims(&p, TC_ROLE_FREE_B, TC_B, TC_C, 1, &fb);
    tc_gen_role_dims(&p, TC_ROLE_CONTRACTED, TC_A, TC_B, 1, &kc);
    kdims *all[3] = {&fa, &fb, &kc};
    for (int r = 0; r < 3; r++) {
        drop_block_loops(b, all[r]);
        keep_maximal(all[r]);
    }
    b->c = &p;
    b->permuted = mask;
    tc_status s = tc_gen_choose(b, &fa, &fb, &kc, err);
    b->c = c;
    b->permuted = 0;
    return s;
}

/* Every permuted candidate: for each set of tensors to permute, the dgemms
 * over the maximal runs of each role that the new layout allows (one over
 * whole roles where every role is one run), looped over the rest; and
 * blocked: for each permuted tensor (an input only where C is not
 * permuted) and each number of its last indices (none contracted), those
 * looped outermost and the tensor permuted block by block, so that its
 * temporary stays in cache and the tensor itself is read or written once
 * (docs/design.md §4). */
static tc_status enumerate_masks(builder *b, tc_error *err)
{
    const tc_contraction *c = b->c;
    tc_status s = TC_OK;
    for (unsigned mask = 1; mask < 8 && s == TC_OK; mask++) {
        s = enumerate_layout(b, c, mask, err);
        for (int t = TC_C; t <= TC_B && s == TC_OK; t++) {
            const tc_tensor *x = &c->tensor[t];
            if (!(mask & (1u << t)) || (t != TC_C && (mask & (1u << TC_C))))
                continue; /* an input blocked under a C^ of all of C: its round trip stays */
            b->block_tensor = t;
            for (int n = 1; n < x->rank && s == TC_OK; n++) {
                int i = x->index[x->rank - n];
                if (c->index[i].role == TC_ROLE_CONTRACTED)
                    break;
                b->nblock = n;
                b->block[n - 1] = i;
                s = enumerate_layout(b, c, mask, err);
            }
            b->nblock = 0;
        }
    }
    return s;
}

/* 1 when kernel k's dimensions take a free index of A, one of B and a
 * contracted one: the kernels a permuted layout serves. */
static int keeps_every_role(tc_kernel k)
{
    const tc_kernel_row *row = &tc_kernel_table[k];
    unsigned roles = 0;
    for (int d = 0; d < row->nkept; d++)
        roles |= 1u << row->kept[d];
    unsigned every = 1u << TC_KEPT_FREE_A | 1u << TC_KEPT_FREE_B | 1u << TC_KEPT_CONTRACTED;
    return (roles & every) == every;
}

tc_status tc_gen_enumerate_permuted(builder *b, tc_error *err)
{
    for (int k = TC_KERNEL_COUNT - 1; k >= 0; k--) {
        if (!(b->kernels_of[b->family] & (1u << k)) || !keeps_every_role((tc_kernel)k))
            continue;
        b->kernel = (tc_kernel)k;
        tc_status s = enumerate_masks(b, err);
        if (s != TC_OK)
            return s;
    }
    return TC_OK;
}
