/* enumerate.c - every kernel x kernel-index choice x loop order (docs/design.md §4):
 * a kernel's dimensions chosen by its row of the kernel table, every loop
 * order, and building one algorithm; the families that drive it are rows
 * of the family table (family.c, permuted.c). */
#include "generator.h"

#include <assert.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "ast/error.h"
#include "generator/enumerate.h"
#include "generator/kernel_gen.h"

tc_status tc_gen_parse_kernels(const char *list, const char *what, unsigned *mask,
                               tc_error *err)
{
    unsigned m = 0;
    const char *p = list ? list : "";
    char names[128];
    tc_kernel_list(names, sizeof names);
    while (*p) {
        const char *e = strchr(p, ',');
        size_t len = e ? (size_t)(e - p) : strlen(p);
        char word[32];
        if (len == 0 || len >= sizeof word)
            return tc_error_set(err, TC_EUSAGE, 0, 0, "bad kernel '%.*s' in %s (choose from %s)",
                                (int)(len > 31 ? 31 : len), p, what, names);
        memcpy(word, p, len);
        word[len] = '\0';
        int k = tc_kernel_from_name(word, NULL);
        if (k < 0)
            return tc_error_set(err, TC_EUSAGE, 0, 0,
                                "unknown kernel '%s' in %s (choose from %s)", word, what, names);
        m |= 1u << k;
        p = e ? e + 1 : p + len;
        if (e && !*p)
            return tc_error_set(err, TC_EUSAGE, 0, 0,
                                "empty kernel name at the end of %s '%s'", what, list);
    }
    if (m == 0)
        return tc_error_set(err, TC_EUSAGE, 0, 0, "%s names no kernel", what);
    *mask = m;
    return TC_OK;
}

/* ---- building one algorithm ------------------------------------------ */

int tc_gen_in_block_loops(const builder *b, int i)
{
    for (int j = 0; j < b->nblock; j++)
        if (b->block[j] == i)
            return 1;
    return 0;
}

/* The slice of tensor t that keeps the kernel indices and loops the rest. */
static void make_slice(const builder *b, int t, tc_operand *op)
{
    const tc_contraction *c = b->c;
    const tc_tensor *x = &c->tensor[t];
    memset(op, 0, sizeof *op);
    op->base = t;
    op->tensor = t;
    unsigned added = 0; /* kernel dimensions already kept */
    for (int k = 0; k < x->rank; k++) {
        int i = x->index[k];
        int64_t stride = c->has_sizes ? x->stride[k] : 0;
        if (b->is_kept[i]) {
            int d = b->kept_in[i];
            if (added & (1u << d))
                continue; /* a later index of a fused dimension */
            added |= 1u << d;
            op->dim[op->rank] = b->dim[d];
            op->extent[op->rank] = b->dim[d].extent;
            op->stride[op->rank] = stride;
            op->rank++;
        } else {
            op->dep[op->ndep] = i;
            op->dep_stride[op->ndep] = stride;
            op->ndep++;
        }
    }
    op->ld = op->rank == 2 ? op->stride[1] : op->rank == 1 ? op->stride[0] : 0;
}

/* The contiguous temporary that holds a copy of *slice. */
static void make_temp_operand(const tc_operand *slice, int temp, tc_operand *op)
{
    memset(op, 0, sizeof *op);
    op->base = TC_BASE_TEMP + temp;
    op->tensor = slice->tensor;
    op->rank = 2;
    for (int d = 0; d < 2; d++) {
        op->dim[d] = slice->dim[d];
        op->extent[d] = slice->extent[d];
    }
    op->stride[0] = slice->extent[0] ? 1 : 0;
    op->stride[1] = slice->extent[0];
    op->ld = op->stride[1];
}

/* Fills the BLAS call from the (possibly temporary) operands of A, B, C:
 * the kernel's row places them and its dimensions. */
static void make_call(const builder *b, const tc_operand op[3], tc_call *k)
{
    memset(k, 0, sizeof *k);
    k->kernel = b->kernel;
    k->type = b->c->type;
    k->arg[2] = op[TC_C];
    tc_kernel_gen_rows[b->kernel].build(b->c, b->dim, op, k);
    k->m = k->dim_m.extent;
    k->n = k->dim_n.extent;
    k->k = k->dim_k.extent;
    tc_call_check(b->c, k);
}

/* Marks alg unusable when a BLAS argument exceeds INT_MAX. */
static void check_int(const builder *b, tc_algorithm *alg, const tc_call *k)
{
    const tc_contraction *c = b->c;
    const int64_t dims[3] = {k->m, k->n, k->k};
    const tc_dim *dimi[3] = {&k->dim_m, &k->dim_n, &k->dim_k};
    static const char *const dname[3] = {"m", "n", "k"};
    for (int d = 0; d < 3; d++)
        if (dims[d] > INT_MAX) {
            char name[TC_MAX_RANK * (TC_NAME_MAX + 1) + 3];
            tc_dim_format(c, dimi[d], b->dot_names, name, sizeof name);
            alg->fits_int = 0;
            snprintf(alg->why, sizeof alg->why,
                     "BLAS dimension %s = %.48s = %lld exceeds INT_MAX", dname[d], name,
                     (long long)dims[d]);
            return;
        }
    for (int a = 0; a < 3; a++)
        if (k->arg[a].rank > 0 && k->arg[a].ld > INT_MAX) {
            alg->fits_int = 0;
            snprintf(alg->why, sizeof alg->why,
                     "the %s of %s's slice is %lld, more than INT_MAX",
                     k->arg[a].rank == 2 ? "leading dimension" : "increment",
                     c->tensor[k->arg[a].tensor].name, (long long)k->arg[a].ld);
            return;
        }
}

/* Where tensor t's slice is copied into a temporary (a matrix slice of a
 * tensor not permuted whose first index is not kept): the position of the
 * loop holding the copy, the innermost among its deps in loops
 * order[0..nloops) (-1: before all loops); -2 when it is not copied. */
static int slice_copy_at(const builder *b, int t, const tc_operand *slice, const int *order,
                         int nloops)
{
    if ((b->permuted & (1u << t)) || slice->rank != 2 || b->is_kept[b->c->tensor[t].index[0]])
        return -2;
    int pos = -1;
    for (int p = 0; p < nloops; p++)
        for (int d = 0; d < slice->ndep; d++)
            if (slice->dep[d] == order[p])
                pos = p;
    return pos;
}

/* has_copy[p + 1] set for each loop p (of order[0..nloops)) whose body
 * holds a slice copy, has_copy[0] for one before all loops: the
 * apostrophes of the name. */
static void mark_copies(const builder *b, const int *order, int nloops, int *has_copy)
{
    for (int t = TC_C; t <= TC_B; t++) {
        int pos = slice_copy_at(b, t, &b->slice[t], order, nloops);
        if (pos > -2)
            has_copy[pos + 1] = 1;
    }
}

/* 1 when a matrix slice of some tensor has no unit-stride dimension. */
static int needs_copy(const builder *b)
{
    for (int t = TC_C; t <= TC_B; t++)
        if (b->slice[t].rank == 2 && !b->is_kept[b->c->tensor[t].index[0]])
            return 1;
    return 0;
}

/* 1 when each kernel dimension holds every index of its role. */
static int full_roles(const builder *b)
{
    int in_role[4] = {0};
    for (int i = 0; i < b->c->nindex; i++)
        in_role[b->c->index[i].role] += !tc_gen_in_block_loops(b, i);
    for (int d = 0; d < b->nkept; d++)
        if (b->dim[d].n != in_role[tc_dim_role(b->c, &b->dim[d])])
            return 0;
    return 1;
}

/*
 * Tensor t of the permuted family: a temporary holding the whole tensor in
 * the order b->c gives it, the kernel's operand op moved onto it, and the
 * copy between them: an input permuted in before all loops (appended
 * here), C permuted back out after them (the caller appends it once the
 * kernel is in; C is built first, so it is copy_node[0]). 0, or -1 when
 * out of memory.
 */
static int add_permutation(const builder *b, tc_algorithm *alg, int t, tc_operand *op)
{
    const tc_tensor *now = &b->c->tensor[t], *was = &b->orig->tensor[t];
    int blocked = t == b->block_tensor ? b->nblock : 0; /* its last indices, looped */
    int rank = was->rank - blocked;
    int temp = alg->ntemps++;
    tc_temp *tp = &alg->temp[temp];
    tp->tensor = t;
    tp->filled_by = TC_NODE_PERMUTE;
    tp->rank = rank;
    memcpy(tp->order, now->index, sizeof tp->order);
    tp->dim[0] = tp->dim[1] = -1;
    tp->elements = 1;
    for (int k = 0; k < rank; k++)
        tp->elements *= b->c->index[was->index[k]].size;
    op->base = TC_BASE_TEMP + temp;
    tc_permutation pm = {.dir = t == TC_C ? TC_COPY_OUT : TC_COPY_IN, .temp = temp, .tensor = t};
    /* the tensor side: the block (the whole tensor unless blocked), at the
     * offset the block loops give it */
    for (int k = rank; k < was->rank; k++) {
        pm.dep[pm.ndep] = was->index[k];
        pm.dep_stride[pm.ndep++] = was->stride[k];
    }
    if (blocked) { /* the kernel's block starts the temporary in every block */
        int n = 0;
        for (int d = 0; d < op->ndep; d++)
            if (!tc_gen_in_block_loops(b, op->dep[d])) {
                op->dep[n] = op->dep[d];
                op->dep_stride[n++] = op->dep_stride[d];
            }
        op->ndep = n;
    }
    pm.written = t == TC_C ? was->elements : tp->elements; /* C's blocks add up */
    pm.view.rank = rank;
    for (int k = 0; k < rank; k++) {
        int i = was->index[k];
        pm.view.extent[k] = b->c->index[i].size;
        pm.view.src_stride[k] = was->stride[k];
        for (int j = 0; j < now->rank; j++)
            if (now->index[j] == i)
                pm.view.dst_stride[k] = now->stride[j];
    }
    tc_node *n = tc_alg_permute(b->set, &pm);
    if (!n)
        return -1;
    alg->copy_node[alg->ncopies++] = n;
    if (t != TC_C) /* before all loops, or in the last block loop */
        tc_alg_append(alg, blocked ? alg->loop_node[blocked - 1] : NULL, n);
    return 0;
}

int tc_gen_position(const tc_tensor *t, int i)
{
    for (int k = 0; k < t->rank; k++)
        if (t->index[k] == i)
            return k;
    return -1;
}

/* 1 when the loop order makes a candidate of the current choice: the
 * wider families make no slice copies, and a blocked candidate loops its
 * blocks outermost in one order. */
static int is_candidate(const builder *b, const int *order, int nloops)
{
    if (!b->row->copies && needs_copy(b))
        return 0;
    for (int p = 0; p < b->nblock; p++)
        if (p >= nloops || order[p] != b->block[p])
            return 0; /* the blocks are looped outermost, in one order */
    /* and the loops inside them in one order too, C's last outermost:
     * every order of them added 15 candidates to a CCSD(T) term's 114,
     * none more than a few per cent apart */
    for (int p = b->nblock; b->nblock && p + 1 < nloops; p++)
        if (tc_gen_position(&b->orig->tensor[TC_C], order[p]) <
            tc_gen_position(&b->orig->tensor[TC_C], order[p + 1]))
            return 0;
    return 1;
}

/* A new algorithm of the current choice with its loop nest, outer to
 * inner; NULL when out of memory. */
static tc_algorithm *new_nest(const builder *b, const int *order, int nloops)
{
    tc_algorithm *alg = tc_alg_new(b->set, b->kernel);
    if (!alg)
        return NULL;
    alg->family = b->family;
    alg->type = b->c->type;
    alg->nkept = b->nkept;
    memcpy(alg->kept, b->dim, sizeof alg->kept);
    alg->nloops = nloops;
    for (int p = 0; p < nloops; p++) {
        alg->loop[p] = order[p];
        alg->loop_node[p] = tc_alg_loop(b->set, order[p], b->c->index[order[p]].size);
        if (!alg->loop_node[p])
            return NULL;
        tc_alg_append(alg, p ? alg->loop_node[p - 1] : NULL, alg->loop_node[p]);
    }
    return alg;
}

/* Tensor t's slice copied into a new temporary (a matrix slice with no
 * unit stride): the kernel's operand *op moved onto the temporary, the
 * copy-in appended to the loop holding it (pos: its position, -1 before
 * all loops). 0, or -1 when out of memory. */
static int add_slice_copy(const builder *b, tc_algorithm *alg, int t, const tc_operand *slice,
                          tc_operand *op, int pos)
{
    int temp = alg->ntemps++;
    tc_temp *tp = &alg->temp[temp];
    tp->tensor = t;
    tp->filled_by = TC_NODE_COPY;
    for (int d = 0; d < 2; d++) {
        assert(slice->dim[d].n == 1); /* slices are copied in the paper's family */
        tp->dim[d] = slice->dim[d].index[0];
        tp->extent[d] = slice->extent[d];
    }
    tp->elements = slice->extent[0] * slice->extent[1];
    make_temp_operand(slice, temp, op);
    tc_copy cp = {.dir = TC_COPY_IN, .temp = temp, .slice = *slice};
    cp.view.rank = 2;
    for (int d = 0; d < 2; d++) {
        cp.view.extent[d] = slice->extent[d];
        cp.view.src_stride[d] = slice->stride[d];
        cp.view.dst_stride[d] = d ? slice->extent[0] : 1;
    }
    tc_node *n = tc_alg_copy(b->set, &cp);
    if (!n)
        return -1;
    alg->copy_node[alg->ncopies++] = n;
    tc_alg_append(alg, pos >= 0 ? alg->loop_node[pos] : NULL, n);
    return 0;
}

/* The kernel's operands op[TC_C..TC_B] and their copies-in: a permuted
 * tensor's temporary, or a slice's; copy_pos[t] where t's slice copy
 * goes (-2: none, -1: before all loops; slice_copy_at). Copies-in go
 * before the inner loop in each body. 0, or -1 when out of memory. */
static int add_operands(const builder *b, tc_algorithm *alg, tc_operand op[3], int copy_pos[3])
{
    for (int t = TC_C; t <= TC_B; t++) {
        const tc_operand *slice = &b->slice[t];
        op[t] = *slice;
        if (b->permuted & (1u << t)) {
            if (add_permutation(b, alg, t, &op[t]) != 0)
                return -1;
            continue;
        }
        copy_pos[t] = slice_copy_at(b, t, slice, alg->loop, alg->nloops);
        if (copy_pos[t] > -2 && add_slice_copy(b, alg, t, slice, &op[t], copy_pos[t]) != 0)
            return -1;
    }
    /* Copies-in are appended after the inner loop node; move them first. */
    for (int p = -1; p < alg->nloops; p++) {
        tc_node *holder = p >= 0 ? alg->loop_node[p] : NULL;
        tc_node **head = holder ? &holder->child : &alg->body;
        tc_node *inner = p + 1 < alg->nloops ? alg->loop_node[p + 1] : NULL;
        if (!inner || *head != inner || !inner->next)
            continue;
        /* list is inner, copy, copy...: rotate inner to the end */
        *head = inner->next;
        tc_node *last = inner->next;
        while (last->next)
            last = last->next;
        last->next = inner;
        inner->next = NULL;
    }
    return 0;
}

/* The kernel call in the innermost loop, then the copies out: C's
 * permutation back (after all loops or each block) or its slice copy.
 * 0, or -1 when out of memory. */
static int add_kernel(const builder *b, tc_algorithm *alg, const tc_operand op[3],
                      const int copy_pos[3])
{
    int nloops = alg->nloops;
    tc_call call;
    make_call(b, op, &call);
    alg->kernel_node = tc_alg_kernel(b->set, &call);
    if (!alg->kernel_node)
        return -1;
    tc_alg_append(alg, nloops ? alg->loop_node[nloops - 1] : NULL, alg->kernel_node);
    if (b->permuted & (1u << TC_C)) { /* C = T + beta * C after all loops or each block */
        int blocked = b->block_tensor == TC_C ? b->nblock : 0;
        tc_alg_append(alg, blocked ? alg->loop_node[blocked - 1] : NULL, alg->copy_node[0]);
    } else if (copy_pos[TC_C] > -2) {
        tc_copy cp = *alg->copy_node[0]->copy; /* C is always first */
        cp.dir = TC_COPY_OUT;
        tc_node *n = tc_alg_copy(b->set, &cp);
        if (!n)
            return -1;
        alg->copy_node[alg->ncopies++] = n;
        tc_alg_append(alg, copy_pos[TC_C] >= 0 ? alg->loop_node[copy_pos[TC_C]] : NULL, n);
    }
    if (b->c->has_sizes)
        check_int(b, alg, &call);
    return 0;
}

/* The permuted tensors' marks, "A^B^C^" (a blocked one's after its loops). */
static void name_marks(const builder *b, char *name, size_t n, size_t *len)
{
    static const int mark_order[3] = {TC_A, TC_B, TC_C};
    for (int m = 0; m < 3; m++)
        if ((b->permuted & (1u << mark_order[m])) &&
            !(mark_order[m] == b->block_tensor && b->nblock)) {
            tc_text_put(name, n, len, b->c->tensor[mark_order[m]].name);
            tc_text_put(name, n, len, "^");
        }
}

/* The fused groups of the name, "(bc)", appended to name (n bytes). */
static void name_groups(const builder *b, char *name, size_t n, size_t *len)
{
    int full = b->permuted && full_roles(b);
    for (int d = 0; d < b->nkept; d++) { /* fused dimensions: "(bc)" */
        if (b->dim[d].n < 2 || full)
            continue; /* A^B^C^-dgemm: every dimension takes all of its role */
        char group[TC_MAX_RANK * (TC_NAME_MAX + 1) + 3];
        tc_dim_format(b->c, &b->dim[d], b->dot_names, group, sizeof group);
        tc_text_put(name, n, len, group);
    }
}

/* The name (generator.h): marks, loops with apostrophes after the loops
 * holding copies, a blocked tensor's mark after its loops, fused groups,
 * '-', the kernel. */
static void make_name(const builder *b, const int *order, int nloops, const int *has_copy,
                      char *name, size_t n)
{
    const tc_contraction *c = b->c;
    size_t len = 0;
    name[0] = '\0';
    name_marks(b, name, n, &len);
    if (has_copy[0])
        tc_text_put(name, n, &len, "'");
    for (int p = 0; p < nloops; p++) {
        if (p && b->dot_names)
            tc_text_put(name, n, &len, ".");
        tc_text_put(name, n, &len, c->index[order[p]].name);
        if (has_copy[p + 1])
            tc_text_put(name, n, &len, "'");
        if (p + 1 == b->nblock) { /* "kjC^": C's blocks under loops k, j */
            if (b->dot_names)
                tc_text_put(name, n, &len, ".");
            tc_text_put(name, n, &len, c->tensor[b->block_tensor].name);
            tc_text_put(name, n, &len, "^");
        }
    }
    name_groups(b, name, n, &len);
    if (len)
        tc_text_put(name, n, &len, "-");
    tc_text_put(name, n, &len, tc_kernel_type_name(b->kernel, b->c->type));
}

/* Finding by name: 0 when no candidate of the current choice, its loops
 * over looped[0..n), can be named `name`. Every one's name (make_name)
 * starts with the marks, holds each looped index's name and ends with
 * the groups, '-' and the kernel; a name that may have been cut to
 * TC_GEN_NAME_MAX is not judged. */
static int may_be_named(const builder *b, const int *looped, int n, const char *name)
{
    char head[TC_GEN_NAME_MAX], tail[TC_GEN_NAME_MAX], middle[TC_GEN_NAME_MAX];
    size_t hl = 0, tl = 0, len = strlen(name);
    if (n == 0)
        return 1; /* one order: named */
    head[0] = tail[0] = '\0';
    name_marks(b, head, sizeof head, &hl);
    name_groups(b, tail, sizeof tail, &tl);
    tc_text_put(tail, sizeof tail, &tl, "-");
    tc_text_put(tail, sizeof tail, &tl, tc_kernel_type_name(b->kernel, b->c->type));
    if (len + 1 >= TC_GEN_NAME_MAX || hl + 1 >= sizeof head || tl + 1 >= sizeof tail)
        return 1; /* too long to judge */
    if (len < hl + tl || strncmp(name, head, hl) != 0 || strcmp(name + len - tl, tail) != 0)
        return 0;
    snprintf(middle, sizeof middle, "%.*s", (int)(len - hl - tl), name + hl);
    for (int i = 0; i < n; i++)
        if (!strstr(middle, b->c->index[looped[i]].name))
            return 0;
    return 1;
}

/* The name of the current choice's candidate with loops order[0..nloops)
 * (TC_GEN_NAME_MAX bytes). */
static void name_of(const builder *b, const int *order, int nloops, char *name)
{
    int has_copy[TC_MAX_INDICES + 1] = {0}; /* [p + 1] */
    mark_copies(b, order, nloops, has_copy);
    make_name(b, order, nloops, has_copy, name, TC_GEN_NAME_MAX);
}

/* Finding one candidate (b->find): 1 when the candidate with loops
 * order[0..nloops), the next in the order of enumeration, is the one
 * sought (by name, or by serial); its serial is then b->find->serial. */
static int is_target(const builder *b, const int *order, int nloops)
{
    tc_gen_target *t = b->find;
    int64_t serial = t->next++;
    if (t->alg || t->passing)
        return 0; /* found already, or not in this choice */
    if (!t->name)
        return serial == t->serial;
    char name[TC_GEN_NAME_MAX];
    name_of(b, order, nloops, name);
    if (strcmp(name, t->name) != 0)
        return 0;
    t->serial = serial;
    return 1;
}

/* Builds (or counts, or when finding one passes over) the algorithm of
 * the current choice with loops order[0..nloops), when it is a candidate. */
static tc_status build(const builder *b, const int *order, int nloops, tc_error *err)
{
    if (!is_candidate(b, order, nloops))
        return TC_OK;
    if (b->counts) {
        b->counts[b->family][b->kernel]++;
        return TC_OK;
    }
    if (b->find && !is_target(b, order, nloops))
        return TC_OK;
    tc_operand op[3];
    int copy_pos[3] = {-2, -2, -2};
    char name[TC_GEN_NAME_MAX];
    tc_algorithm *alg = new_nest(b, order, nloops);
    if (!alg || add_operands(b, alg, op, copy_pos) != 0 || add_kernel(b, alg, op, copy_pos) != 0)
        goto oom;
    name_of(b, order, nloops, name);
    alg->name = tc_alg_strdup(b->set, name);
    if (!alg->name || tc_alg_set_add(b->set, alg) != 0)
        goto oom;
    if (b->find) { /* numbered as in the full set */
        alg->serial = (int)b->find->serial;
        b->find->alg = alg;
    }
    return TC_OK;
oom:
    return tc_error_set(err, TC_ERESOURCE, 0, 0, "out of memory while enumerating algorithms");
}

/* 0 when no order starting with order[0..depth] passes build()'s tests of
 * a blocked candidate: the blocks outermost in their order, the loops
 * inside them in C's order from its last index. */
static int blocked_order_may_hold(const builder *b, const int *order, int depth)
{
    if (depth < b->nblock)
        return order[depth] == b->block[depth];
    return depth == b->nblock || tc_gen_position(&b->orig->tensor[TC_C], order[depth - 1]) >=
                                     tc_gen_position(&b->orig->tensor[TC_C], order[depth]);
}

/* Every order of the looped indices, lexicographic in index position
 * (a blocked candidate's: only those build() takes). */
static tc_status permute(const builder *b, const int *looped, int n, int *order,
                         int depth, int *used, tc_error *err)
{
    if (depth == n)
        return build(b, order, n, err);
    for (int i = 0; i < n; i++) {
        if (used[i])
            continue;
        order[depth] = looped[i];
        if (b->nblock && !blocked_order_may_hold(b, order, depth))
            continue;
        used[i] = 1;
        tc_status s = permute(b, looped, n, order, depth + 1, used, err);
        used[i] = 0;
        if (s != TC_OK)
            return s;
    }
    return TC_OK;
}

/* Finding one candidate: 1 when none of the current choice's orders of
 * its n looped indices (looped[]) need be visited: the one is found, or
 * none of them is it (not named so, or sought by another serial) and
 * without blocks they are numbered past at once (every order is a
 * candidate or none is). find->passing: they are visited only to be
 * numbered (a blocked choice not named so). */
static int passes_over(const builder *b, const int *looped, int n)
{
    tc_gen_target *t = b->find;
    if (t->alg)
        return 1;
    t->passing = t->name && !may_be_named(b, looped, n, t->name);
    if ((t->name && !t->passing) || b->nblock)
        return 0;
    if (!b->row->copies && needs_copy(b))
        return 1; /* no candidate */
    uint64_t orders = tc_gen_factorial(n);
    if (!t->name && t->serial >= t->next && (uint64_t)(t->serial - t->next) < orders)
        return 0;
    t->next += (int64_t)orders;
    return 1;
}

/* Builds every loop order around the kernel dimensions dims[0..nkept). */
static tc_status with_kept(builder *b, int nkept, const kdim *const *dims, tc_error *err)
{
    int fused = 0;
    b->nkept = nkept;
    memset(b->is_kept, 0, sizeof b->is_kept);
    for (int j = 0; j < 3; j++) {
        b->dim[j] = tc_dim_make(b->c, j < nkept ? dims[j]->idx : NULL, j < nkept ? dims[j]->n : 0);
        fused |= b->dim[j].n > 1;
        for (int m = 0; m < b->dim[j].n; m++) {
            b->is_kept[b->dim[j].index[m]] = 1;
            b->kept_in[b->dim[j].index[m]] = j;
        }
    }
    if (b->permuted) {
        /* Loops around a dgemm over parts of roles only with one tensor
         * permuted: a second permutation there saved little and its
         * candidates were predicted 20-40 % fast (A^B^jki(bc)-dgemm of a
         * CCSD(T) term: 22 ms, A^jki(bc)-dgemm 17 ms). */
        if ((b->permuted & (b->permuted - 1)) && !full_roles(b))
            return TC_OK;
    }
    if (b->row->grouped >= 0 && fused != b->row->grouped)
        return TC_OK; /* the other family of the paper's and the fused */
    if (!(b->kernels_of[b->family] & (1u << b->kernel)))
        return TC_OK;
    for (int t = TC_C; t <= TC_B; t++) /* one choice, one slice per tensor */
        make_slice(b, t, &b->slice[t]);
    int looped[TC_MAX_INDICES], n = 0, order[TC_MAX_INDICES], used[TC_MAX_INDICES] = {0};
    for (int i = 0; i < b->c->nindex; i++)
        if (!b->is_kept[i])
            looped[n++] = i;
    if (b->counts && !b->nblock) { /* every order, or none (build()'s first test) */
        if (b->row->copies || !needs_copy(b))
            b->counts[b->family][b->kernel] += tc_gen_factorial(n);
        return TC_OK;
    }
    if (b->find && passes_over(b, looped, n))
        return TC_OK;
    return permute(b, looped, n, order, 0, used, err);
}

/* 1 when index i follows index `before` in x's memory without a gap
 * (always without sizes); a strided tensor's (a tile's) may not. */
static int continues(const tc_contraction *c, const tc_tensor *x, int before, int i)
{
    int p = tc_gen_position(x, before), q = tc_gen_position(x, i);
    return q == p + 1 &&
           (!c->has_sizes || x->stride[q] == x->stride[p] * c->index[before].size);
}

void tc_gen_role_dims(const tc_contraction *c, tc_role role, int t1, int t2, int fuse,
                      kdims *out)
{
    const tc_tensor *x = &c->tensor[t1], *y = &c->tensor[t2];
    out->n = 0;
    for (int p = 0; p < x->rank; p++) {
        if (c->index[x->index[p]].role != role)
            continue;
        kdim g = {1, {x->index[p]}};
        out->d[out->n++] = g;
        for (int q = p + 1; fuse && q < x->rank; q++) {
            int i = x->index[q];
            if (c->index[i].role != role || !continues(c, x, x->index[q - 1], i) ||
                !continues(c, y, x->index[q - 1], i))
                break;
            g.idx[g.n++] = i;
            out->d[out->n++] = g;
        }
    }
}

/* Every choice of the kernel dimensions d[slot..nkept) from the lists of
 * their roles (two lists for a free dimension: A's, then B's), outer to
 * inner, each built with every loop order. */
static tc_status choose_dims(builder *b, int nkept, const kdims *lists[][2], int slot,
                             const kdim **d, tc_error *err)
{
    if (slot == nkept)
        return with_kept(b, nkept, d, err);
    tc_status s = TC_OK;
    for (int l = 0; l < 2 && lists[slot][l] && s == TC_OK; l++)
        for (int i = 0; i < lists[slot][l]->n && s == TC_OK; i++) {
            d[slot] = &lists[slot][l]->d[i];
            s = choose_dims(b, nkept, lists, slot + 1, d, err);
        }
    return s;
}

tc_status tc_gen_choose(builder *b, const kdims *fa, const kdims *fb, const kdims *k,
                        tc_error *err)
{
    const tc_kernel_row *row = &tc_kernel_table[b->kernel];
    const kdims *const of_role[][2] = {[TC_KEPT_FREE_A] = {fa, NULL},
                                       [TC_KEPT_FREE_B] = {fb, NULL},
                                       [TC_KEPT_FREE] = {fa, fb},
                                       [TC_KEPT_CONTRACTED] = {k, NULL}};
    const kdims *lists[3][2] = {{NULL, NULL}, {NULL, NULL}, {NULL, NULL}};
    for (int slot = 0; slot < row->nkept; slot++)
        memcpy(lists[slot], of_role[row->kept[slot]], sizeof lists[slot]);
    const kdim *d[3];
    return choose_dims(b, row->nkept, lists, 0, d, err);
}

static int compare(const void *pa, const void *pb)
{
    const tc_algorithm *a = *(const tc_algorithm *const *)pa;
    const tc_algorithm *b = *(const tc_algorithm *const *)pb;
    if (a->kernel != b->kernel)
        return a->kernel > b->kernel ? -1 : 1;
    return strcmp(a->name, b->name);
}

tc_status tc_gen_enumerate(const tc_contraction *c, unsigned kernel_mask,
                           tc_algorithm_set **out, tc_error *err)
{
    return tc_gen_enumerate_families(c, kernel_mask, 1u << TC_FAMILY_PAPER, out, err);
}

/* The candidates of the classes kernels_of asks for: all, or the one
 * *find seeks (NULL: all), sorted. */
static tc_status enumerate_classes(const tc_contraction *c,
                                   const unsigned kernels_of[TC_FAMILY_COUNT],
                                   tc_gen_target *find, tc_algorithm_set **out, tc_error *err)
{
    *out = NULL;
    tc_algorithm_set *set = tc_alg_set_new();
    if (!set)
        return tc_error_set(err, TC_ERESOURCE, 0, 0, "out of memory");
    builder b;
    memset(&b, 0, sizeof b);
    b.c = b.orig = c;
    b.set = set;
    b.find = find;
    memcpy(b.kernels_of, kernels_of, sizeof b.kernels_of);
    tc_status s = tc_gen_traverse(&b, err);
    if (s != TC_OK) {
        tc_alg_set_free(set);
        return s;
    }
    if (set->count > 1)
        qsort(set->alg, (size_t)set->count, sizeof set->alg[0], compare);
    *out = set;
    return TC_OK;
}

tc_status tc_gen_enumerate_classes(const tc_contraction *c,
                                   const unsigned kernels_of[TC_FAMILY_COUNT],
                                   tc_algorithm_set **out, tc_error *err)
{
    return enumerate_classes(c, kernels_of, NULL, out, err);
}

tc_status tc_gen_find_classes(const tc_contraction *c, const unsigned kernels_of[TC_FAMILY_COUNT],
                              tc_gen_target *find, tc_algorithm_set **out, tc_error *err)
{
    find->next = 0;
    find->alg = NULL;
    find->passing = 0;
    return enumerate_classes(c, kernels_of, find, out, err);
}

tc_status tc_gen_enumerate_families(const tc_contraction *c, unsigned kernel_mask,
                                    unsigned family_mask, tc_algorithm_set **out, tc_error *err)
{
    *out = NULL;
    unsigned kernels_of[TC_FAMILY_COUNT];
    for (int f = 0; f < TC_FAMILY_COUNT; f++)
        kernels_of[f] = family_mask & (1u << f) ? kernel_mask : 0;
    uint64_t count[TC_FAMILY_COUNT][TC_KERNEL_COUNT];
    tc_gen_count_classes(c, kernels_of, count);
    uint64_t total = tc_gen_classes_total(count);
    if (total > TC_GEN_MAX_ALGORITHMS)
        return tc_error_set(err, TC_EINPUT, 0, 0,
                            "the contraction has %llu algorithms with the requested "
                            "kernels, more than tcgen enumerates at once (%d)",
                            (unsigned long long)total, TC_GEN_MAX_ALGORITHMS);
    return tc_gen_enumerate_classes(c, kernels_of, out, err);
}

size_t tc_gen_format_loops(const tc_algorithm *alg, const tc_contraction *c,
                           char *buf, size_t n)
{
    size_t len = 0;
    if (n > 0)
        buf[0] = '\0';
    if (alg->nloops == 0) {
        tc_text_put(buf, n, &len, "-");
        return len;
    }
    for (int p = 0; p < alg->nloops; p++) {
        if (p)
            tc_text_put(buf, n, &len, ",");
        tc_text_put(buf, n, &len, c->index[alg->loop[p]].name);
    }
    return len;
}

size_t tc_gen_format_copies(const tc_algorithm *alg, const tc_contraction *c,
                            char *buf, size_t n)
{
    size_t len = 0;
    int any = 0;
    if (n > 0)
        buf[0] = '\0';
    for (int i = 0; i < alg->ncopies; i++) {
        const tc_node *node = alg->copy_node[i];
        int permute = node->kind == TC_NODE_PERMUTE;
        if (!permute && node->copy->dir != TC_COPY_IN)
            continue;
        if (any++)
            tc_text_put(buf, n, &len, ",");
        tc_text_put(buf, n, &len,
                    c->tensor[permute ? node->perm->tensor : node->copy->slice.tensor].name);
        if (permute) { /* before or after all loops: "C^"; blocks: "C^@j" */
            tc_text_put(buf, n, &len, "^");
            if (!node->parent)
                continue;
        }
        tc_text_put(buf, n, &len, "@");
        tc_text_put(buf, n, &len, node->parent ? c->index[node->parent->index].name : "-");
    }
    if (!any)
        tc_text_put(buf, n, &len, "-");
    return len;
}

size_t tc_gen_format_summary(const tc_algorithm_set *s, char *buf, size_t n)
{
    int count[TC_KERNEL_COUNT] = {0};
    tc_type type = s->count ? s->alg[0]->type : TC_TYPE_D; /* one contraction's: one type */
    for (int i = 0; i < s->count; i++)
        count[s->alg[i]->kernel]++;
    char part[64];
    snprintf(part, sizeof part, "%d algorithm%s:", s->count, s->count == 1 ? "" : "s");
    if (n > 0)
        buf[0] = '\0';
    size_t len = 0;
    tc_text_put(buf, n, &len, part);
    for (int k = TC_KERNEL_COUNT - 1; k >= 0; k--) {
        snprintf(part, sizeof part, " %s %d%s", tc_kernel_type_name((tc_kernel)k, type), count[k],
                 k ? "," : "");
        tc_text_put(buf, n, &len, part);
    }
    return len;
}
