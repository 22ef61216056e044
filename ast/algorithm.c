/* algorithm.c - the algorithm AST: arena, builders, walker, lookup. */
#include "algorithm.h"

#include <assert.h>
#include <stdlib.h>
#include <string.h>

/* A chain of blocks; allocation is a pointer bump, freeing is all at once. */
struct tc_arena {
    struct tc_arena *prev;
    size_t used, size;
    _Alignas(16) unsigned char data[];
};

#define ARENA_BLOCK (256u * 1024u)

tc_algorithm_set *tc_alg_set_new(void)
{
    return calloc(1, sizeof(tc_algorithm_set));
}

void tc_alg_set_free(tc_algorithm_set *s)
{
    if (!s)
        return;
    tc_arena *a = s->arena;
    while (a) {
        tc_arena *prev = a->prev;
        free(a);
        a = prev;
    }
    free(s->alg);
    free(s);
}

void *tc_alg_alloc(tc_algorithm_set *s, size_t bytes)
{
    bytes = (bytes + 15u) & ~(size_t)15u;
    tc_arena *a = s->arena;
    if (!a || a->size - a->used < bytes) {
        size_t size = bytes > ARENA_BLOCK ? bytes : ARENA_BLOCK;
        tc_arena *b = malloc(sizeof *b + size);
        if (!b)
            return NULL;
        b->prev = a;
        b->used = 0;
        b->size = size;
        s->arena = a = b;
    }
    void *p = a->data + a->used;
    a->used += bytes;
    memset(p, 0, bytes);
    return p;
}

char *tc_alg_strdup(tc_algorithm_set *s, const char *str)
{
    size_t n = strlen(str) + 1;
    char *p = tc_alg_alloc(s, n);
    if (p)
        memcpy(p, str, n);
    return p;
}

tc_algorithm *tc_alg_new(tc_algorithm_set *s, tc_kernel kernel)
{
    tc_algorithm *a = tc_alg_alloc(s, sizeof *a);
    if (a) {
        a->kernel = kernel;
        a->fits_int = 1;
        a->name = "";
    }
    return a;
}

int tc_alg_set_add(tc_algorithm_set *s, tc_algorithm *alg)
{
    if (s->count == s->capacity) {
        int cap = s->capacity ? 2 * s->capacity : 64;
        tc_algorithm **p = realloc(s->alg, (size_t)cap * sizeof *p);
        if (!p)
            return -1;
        s->alg = p;
        s->capacity = cap;
    }
    alg->serial = s->count;
    s->alg[s->count++] = alg;
    return 0;
}

static tc_node *new_node(tc_algorithm_set *s, tc_node_kind kind)
{
    tc_node *n = tc_alg_alloc(s, sizeof *n);
    if (n) {
        n->kind = kind;
        n->index = -1;
    }
    return n;
}

tc_node *tc_alg_loop(tc_algorithm_set *s, int index, int64_t extent)
{
    tc_node *n = new_node(s, TC_NODE_LOOP);
    if (n) {
        n->index = index;
        n->extent = extent;
    }
    return n;
}

tc_node *tc_alg_copy(tc_algorithm_set *s, const tc_copy *copy)
{
    tc_node *n = new_node(s, TC_NODE_COPY);
    tc_copy *c = n ? tc_alg_alloc(s, sizeof *c) : NULL;
    if (!c)
        return NULL;
    *c = *copy;
    n->copy = c;
    return n;
}

tc_node *tc_alg_permute(tc_algorithm_set *s, const tc_permutation *perm)
{
    tc_permutation_check(perm);
    tc_node *n = new_node(s, TC_NODE_PERMUTE);
    tc_permutation *p = n ? tc_alg_alloc(s, sizeof *p) : NULL;
    if (!p)
        return NULL;
    *p = *perm;
    n->perm = p;
    return n;
}

tc_node *tc_alg_kernel(tc_algorithm_set *s, const tc_call *call)
{
    tc_node *n = new_node(s, TC_NODE_KERNEL);
    tc_call *c = n ? tc_alg_alloc(s, sizeof *c) : NULL;
    if (!c)
        return NULL;
    *c = *call;
    n->call = c;
    return n;
}

void tc_alg_append(tc_algorithm *alg, tc_node *loop, tc_node *node)
{
    tc_node **link = loop ? &loop->child : &alg->body;
    while (*link)
        link = &(*link)->next;
    *link = node;
    node->parent = loop;
    node->depth = loop ? loop->depth + 1 : 0;
    node->next = NULL;
}

const tc_algorithm *tc_alg_set_find(const tc_algorithm_set *s, const char *name)
{
    if (!s || !name)
        return NULL;
    for (int i = 0; i < s->count; i++)
        if (strcmp(s->alg[i]->name, name) == 0)
            return s->alg[i];
    return NULL;
}

static int walk(const tc_node *n, int (*visit)(const tc_node *, void *), void *data)
{
    for (; n; n = n->next) {
        int r = visit(n, data);
        if (r)
            return r;
        if (n->kind == TC_NODE_LOOP && (r = walk(n->child, visit, data)) != 0)
            return r;
    }
    return 0;
}

int tc_alg_walk(const tc_algorithm *alg,
                int (*visit)(const tc_node *node, void *data), void *data)
{
    return walk(alg->body, visit, data);
}

/* 1 when C is computed in a temporary and permuted back (permuted family). */
static int c_permuted(const tc_algorithm *alg)
{
    return tc_alg_is_permuted_temp(alg, alg->kernel_node->call->arg[2].base);
}

int tc_alg_kernel_owns_beta(const tc_algorithm *alg)
{
    return tc_kernel_table[alg->kernel].applies_beta &&
           (alg->kernel_node->call->arg[2].base == TC_C || c_permuted(alg));
}

double tc_alg_kernel_beta(const tc_algorithm *alg, const tc_contraction *c)
{
    return c_permuted(alg) ? 0.0 : c->beta;
}

void tc_alg_kernel_beta_complex(const tc_algorithm *alg, const tc_contraction *c, double out[2])
{
    out[0] = c_permuted(alg) ? 0.0 : c->beta;
    out[1] = c_permuted(alg) ? 0.0 : c->beta_im;
}

int tc_alg_needs_beta_pass(const tc_algorithm *alg, const tc_contraction *c)
{
    return (c->beta != 1.0 || c->beta_im != 0.0) && !tc_alg_kernel_owns_beta(alg);
}

int tc_alg_permuted_temps(const tc_algorithm *alg)
{
    int n = 0;
    for (int t = 0; t < alg->ntemps; t++)
        n += alg->temp[t].filled_by == TC_NODE_PERMUTE;
    return n;
}

int tc_alg_is_permuted_temp(const tc_algorithm *alg, int base)
{
    return base >= TC_BASE_TEMP && base < TC_BASE_TEMP + alg->ntemps &&
           alg->temp[base - TC_BASE_TEMP].filled_by == TC_NODE_PERMUTE;
}

int64_t tc_alg_temp_bytes(const tc_algorithm *alg)
{
    int64_t total = 0;
    for (int t = 0; t < alg->ntemps; t++) {
        int64_t e = alg->temp[t].elements;
        int64_t copies = tc_alg_temp_per_thread(alg, t) ? alg->split : 1;
        int64_t bytes = tc_type_row_of(alg->type)->bytes;
        if (e > (INT64_MAX - total) / bytes / copies)
            return INT64_MAX;
        total += e * copies * bytes;
    }
    if (alg->partial > 0) { /* threads 1..split-1's partial C (split.c) */
        int64_t bytes = tc_type_row_of(alg->type)->bytes, copies = alg->split - 1;
        if (alg->partial > (INT64_MAX - total) / bytes / copies)
            return INT64_MAX;
        total += alg->partial * copies * bytes;
    }
    return total;
}

int tc_alg_temps_fit(const tc_algorithm *alg, int64_t avail)
{
    return avail < 0 || tc_alg_temp_bytes(alg) <= avail;
}

void tc_copy_temp_operand(const tc_copy *cp, tc_operand *out)
{
    assert(cp->slice.rank == 2);
    *out = cp->slice;
    out->base = TC_BASE_TEMP + cp->temp;
    out->ndep = 0;
    out->stride[0] = 1;
    out->stride[1] = cp->slice.extent[0];
    out->ld = out->stride[1];
}

int64_t tc_permute_elements(const tc_permute *v)
{
    int64_t n = 1;
    for (int k = 0; k < v->rank; k++)
        n *= v->extent[k];
    return n;
}

int64_t tc_permutation_elements(const tc_permutation *p)
{
    return tc_permute_elements(&p->view);
}

void tc_permutation_operands(const tc_permutation *p, const tc_contraction *c,
                             tc_operand *tensor, tc_operand *temp)
{
    memset(tensor, 0, sizeof *tensor);
    tensor->base = tensor->tensor = p->tensor;
    tensor->rank = 1;
    if (c) { /* not a kernel dimension: the block's indices, unmerged */
        assert(p->view.rank <= c->tensor[p->tensor].rank);
        tensor->dim[0].n = p->view.rank;
        memcpy(tensor->dim[0].index, c->tensor[p->tensor].index,
               (size_t)p->view.rank * sizeof tensor->dim[0].index[0]);
    }
    tensor->dim[0].extent = tensor->extent[0] = tc_permutation_elements(p);
    tensor->stride[0] = tensor->ld = 1;
    tensor->ndep = p->ndep;
    memcpy(tensor->dep, p->dep, sizeof p->dep);
    memcpy(tensor->dep_stride, p->dep_stride, sizeof p->dep_stride);
    *temp = *tensor;
    temp->base = TC_BASE_TEMP + p->temp;
    temp->ndep = 0;
}

void tc_operand_check(const tc_contraction *c, const tc_operand *op)
{
    assert(op->rank >= 0 && op->rank <= 2);
    if (!c->has_sizes)
        return;
    for (int d = 0; d < op->rank; d++) {
        assert(op->dim[d].n > 0 && op->dim[d].n <= TC_MAX_RANK);
        assert(op->extent[d] == op->dim[d].extent && op->extent[d] > 0);
        assert(op->stride[d] >= 0);
    }
    assert(op->ld == (op->rank ? op->stride[op->rank - 1] : 0));
    assert(op->rank < 2 || (op->stride[0] == 1 && op->ld >= op->extent[0]));
    (void)op;
}

void tc_permutation_check(const tc_permutation *p)
{
    const tc_permute *v = &p->view;
    assert(v->rank >= 0 && v->rank <= TC_MAX_RANK);
    for (int k = 0; k < v->rank; k++)
        if (v->extent[k] <= 0)
            return; /* without sizes */
    int64_t next = 1; /* dense: the smallest unplaced stride is the product so far */
    unsigned placed = 0;
    for (int n = 0; n < v->rank; n++) {
        int best = -1;
        for (int k = 0; k < v->rank; k++)
            if (!(placed & (1u << k)) && (best < 0 || v->dst_stride[k] < v->dst_stride[best] ||
                                          (v->dst_stride[k] == v->dst_stride[best] &&
                                           v->extent[k] < v->extent[best])))
                best = k;
        assert(v->extent[best] == 1 || v->dst_stride[best] == next);
        placed |= 1u << best;
        next *= v->extent[best];
    }
    (void)next;
}

void tc_call_check(const tc_contraction *c, const tc_call *k)
{
    if (!c->has_sizes)
        return;
    assert(k->m == k->dim_m.extent && k->n == k->dim_n.extent && k->k == k->dim_k.extent);
    for (int a = 0; a < 3; a++)
        tc_operand_check(c, &k->arg[a]);
    (void)k;
}
