/* enumerate.c - every kernel x kernel-index choice x loop order (docs/design.md §4). */
#include "generator.h"

#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "ast/error.h"

/* Indices of the contraction by role. */
typedef struct roles {
    int nfa, nfb, nk;
    int fa[TC_MAX_INDICES], fb[TC_MAX_INDICES], k[TC_MAX_INDICES];
} roles;

static void get_roles(const tc_contraction *c, roles *r)
{
    memset(r, 0, sizeof *r);
    for (int i = 0; i < c->nindex; i++) {
        switch (c->index[i].role) {
        case TC_ROLE_FREE_A: r->fa[r->nfa++] = i; break;
        case TC_ROLE_FREE_B: r->fb[r->nfb++] = i; break;
        case TC_ROLE_CONTRACTED: r->k[r->nk++] = i; break;
        case TC_ROLE_BATCH: break;
        }
    }
}

static uint64_t factorial(int n)
{
    uint64_t f = 1;
    for (int i = 2; i <= n; i++)
        f *= (uint64_t)i;
    return f;
}

uint64_t tc_gen_count(const tc_contraction *c, tc_kernel k)
{
    roles r;
    get_roles(c, &r);
    uint64_t nf = (uint64_t)(r.nfa + r.nfb), nk = (uint64_t)r.nk;
    uint64_t choices = 0;
    int kept = 0;
    switch (k) {
    case TC_KERNEL_DDOT: choices = nk; kept = 1; break;
    case TC_KERNEL_DAXPY: choices = nf; kept = 1; break;
    case TC_KERNEL_DGEMV: choices = nf * nk; kept = 2; break;
    case TC_KERNEL_DGER: choices = (uint64_t)r.nfa * (uint64_t)r.nfb; kept = 2; break;
    case TC_KERNEL_DGEMM: choices = (uint64_t)r.nfa * (uint64_t)r.nfb * nk; kept = 3; break;
    case TC_KERNEL_COUNT: return 0;
    }
    if (choices == 0 || c->nindex < kept)
        return 0;
    return choices * factorial(c->nindex - kept);
}

tc_status tc_gen_parse_kernels(const char *list, unsigned *mask, tc_error *err)
{
    unsigned m = 0;
    const char *p = list ? list : "";
    while (*p) {
        const char *e = strchr(p, ',');
        size_t len = e ? (size_t)(e - p) : strlen(p);
        char word[32];
        if (len == 0 || len >= sizeof word)
            return tc_error_set(err, TC_EUSAGE, 0, 0,
                                "bad kernel '%.*s' in --kernels (choose from ddot, "
                                "daxpy, dgemv, dger, dgemm)", (int)(len > 31 ? 31 : len), p);
        memcpy(word, p, len);
        word[len] = '\0';
        int k = tc_kernel_from_name(word);
        if (k < 0)
            return tc_error_set(err, TC_EUSAGE, 0, 0,
                                "unknown kernel '%s' in --kernels (choose from ddot, "
                                "daxpy, dgemv, dger, dgemm)", word);
        m |= 1u << k;
        p = e ? e + 1 : p + len;
        if (e && !*p)
            return tc_error_set(err, TC_EUSAGE, 0, 0,
                                "empty kernel name at the end of --kernels '%s'", list);
    }
    if (m == 0)
        return tc_error_set(err, TC_EUSAGE, 0, 0, "--kernels names no kernel");
    *mask = m;
    return TC_OK;
}

/* ---- building one algorithm ------------------------------------------ */

typedef struct builder {
    const tc_contraction *c;
    tc_algorithm_set *set;
    tc_kernel kernel;
    int nkept;
    int kept[3];
    int is_kept[TC_MAX_INDICES];
    int dot_names; /* join looped names with '.' */
} builder;

/* The slice of tensor t that keeps the kernel indices and loops the rest. */
static void make_slice(const builder *b, int t, tc_operand *op)
{
    const tc_contraction *c = b->c;
    const tc_tensor *x = &c->tensor[t];
    memset(op, 0, sizeof *op);
    op->base = t;
    op->tensor = t;
    op->dim[0] = op->dim[1] = -1;
    for (int k = 0; k < x->rank; k++) {
        int i = x->index[k];
        int64_t stride = c->has_sizes ? x->stride[k] : 0;
        if (b->is_kept[i]) {
            op->dim[op->rank] = i;
            op->extent[op->rank] = c->index[i].size;
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

static int owner_of(const tc_contraction *c, int index)
{
    return c->index[index].role == TC_ROLE_FREE_A ? TC_A : TC_B;
}

/* Fills the BLAS call from the (possibly temporary) operands of A, B, C. */
static void make_call(const builder *b, const tc_operand op[3], tc_call *k)
{
    const tc_contraction *c = b->c;
    memset(k, 0, sizeof *k);
    k->kernel = b->kernel;
    k->dim_m = k->dim_n = k->dim_k = -1;
    k->arg[2] = op[TC_C];
    switch (b->kernel) {
    case TC_KERNEL_DDOT:
        k->arg[0] = op[TC_A];
        k->arg[1] = op[TC_B];
        k->dim_n = b->kept[0];
        break;
    case TC_KERNEL_DAXPY: {
        int own = owner_of(c, b->kept[0]);
        k->arg[0] = op[own == TC_A ? TC_B : TC_A];
        k->arg[1] = op[own];
        k->dim_n = b->kept[0];
        break;
    }
    case TC_KERNEL_DGEMV: {
        int f = b->kept[0], own = owner_of(c, f);
        k->arg[0] = op[own];
        k->arg[1] = op[own == TC_A ? TC_B : TC_A];
        k->trans_a = op[own].dim[0] != f;
        k->dim_m = op[own].dim[0];
        k->dim_n = op[own].dim[1];
        break;
    }
    case TC_KERNEL_DGER: {
        int own = owner_of(c, op[TC_C].dim[0]);
        k->arg[0] = op[own];
        k->arg[1] = op[own == TC_A ? TC_B : TC_A];
        k->dim_m = op[TC_C].dim[0];
        k->dim_n = op[TC_C].dim[1];
        break;
    }
    case TC_KERNEL_DGEMM: {
        int r = op[TC_C].dim[0], own = owner_of(c, r), kk = b->kept[2];
        k->arg[0] = op[own];
        k->arg[1] = op[own == TC_A ? TC_B : TC_A];
        k->trans_a = k->arg[0].dim[0] != r;
        k->trans_b = k->arg[1].dim[0] != kk;
        k->dim_m = r;
        k->dim_n = op[TC_C].dim[1];
        k->dim_k = kk;
        break;
    }
    case TC_KERNEL_COUNT:
        break;
    }
    k->m = k->dim_m >= 0 ? c->index[k->dim_m].size : 0;
    k->n = k->dim_n >= 0 ? c->index[k->dim_n].size : 0;
    k->k = k->dim_k >= 0 ? c->index[k->dim_k].size : 0;
}

/* Marks alg unusable when a BLAS argument exceeds INT_MAX. */
static void check_int(const builder *b, tc_algorithm *alg, const tc_call *k)
{
    const tc_contraction *c = b->c;
    const int64_t dims[3] = {k->m, k->n, k->k};
    const int dimi[3] = {k->dim_m, k->dim_n, k->dim_k};
    static const char *const dname[3] = {"m", "n", "k"};
    for (int d = 0; d < 3; d++)
        if (dims[d] > INT_MAX) {
            alg->fits_int = 0;
            snprintf(alg->why, sizeof alg->why,
                     "BLAS dimension %s = %s = %lld exceeds INT_MAX", dname[d],
                     c->index[dimi[d]].name, (long long)dims[d]);
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

/* Loop position holding each copy: the innermost loop among its deps. */
static int copy_position(const tc_algorithm *alg, const tc_operand *slice)
{
    int pos = -1;
    for (int p = 0; p < alg->nloops; p++)
        for (int d = 0; d < slice->ndep; d++)
            if (slice->dep[d] == alg->loop[p])
                pos = p;
    return pos;
}

static tc_status build(const builder *b, const int *order, int nloops, tc_error *err)
{
    const tc_contraction *c = b->c;
    tc_algorithm_set *set = b->set;
    tc_algorithm *alg = tc_alg_new(set, b->kernel);
    if (!alg)
        goto oom;
    alg->nkept = b->nkept;
    memcpy(alg->kept, b->kept, sizeof alg->kept);
    alg->nloops = nloops;
    for (int p = 0; p < nloops; p++) {
        alg->loop[p] = order[p];
        alg->loop_node[p] = tc_alg_loop(set, order[p], c->index[order[p]].size);
        if (!alg->loop_node[p])
            goto oom;
        tc_alg_append(alg, p ? alg->loop_node[p - 1] : NULL, alg->loop_node[p]);
    }

    /* operands, copies-in, and where the copies go */
    tc_operand op[3];
    int copy_pos[3] = {-2, -2, -2}; /* -2: no copy, -1: before all loops */
    int has_copy[TC_MAX_INDICES + 1] = {0}; /* [p + 1] */
    for (int t = TC_C; t <= TC_B; t++) {
        tc_operand slice;
        make_slice(b, t, &slice);
        op[t] = slice;
        if (slice.rank != 2 || b->is_kept[c->tensor[t].index[0]])
            continue;
        int temp = alg->ntemps++;
        tc_temp *tp = &alg->temp[temp];
        tp->tensor = t;
        for (int d = 0; d < 2; d++) {
            tp->dim[d] = slice.dim[d];
            tp->extent[d] = slice.extent[d];
        }
        tp->elements = slice.extent[0] * slice.extent[1];
        make_temp_operand(&slice, temp, &op[t]);
        copy_pos[t] = copy_position(alg, &slice);
        has_copy[copy_pos[t] + 1] = 1;
        tc_copy cp = {TC_COPY_IN, temp, slice};
        tc_node *n = tc_alg_copy(set, &cp);
        if (!n)
            goto oom;
        alg->copy_node[alg->ncopies++] = n;
        tc_alg_append(alg, copy_pos[t] >= 0 ? alg->loop_node[copy_pos[t]] : NULL, n);
    }
    /* Copies-in are appended after the inner loop node; move them first. */
    for (int p = -1; p < nloops; p++) {
        tc_node *holder = p >= 0 ? alg->loop_node[p] : NULL;
        tc_node **head = holder ? &holder->child : &alg->body;
        tc_node *inner = p + 1 < nloops ? alg->loop_node[p + 1] : NULL;
        if (!inner || *head != inner)
            continue;
        /* list is inner, copy, copy...: rotate inner to the end */
        if (inner->next) {
            *head = inner->next;
            tc_node *last = inner->next;
            while (last->next)
                last = last->next;
            last->next = inner;
            inner->next = NULL;
        }
    }

    tc_call call;
    make_call(b, op, &call);
    alg->kernel_node = tc_alg_kernel(set, &call);
    if (!alg->kernel_node)
        goto oom;
    tc_alg_append(alg, nloops ? alg->loop_node[nloops - 1] : NULL, alg->kernel_node);
    if (copy_pos[TC_C] > -2) {
        tc_copy cp = *alg->copy_node[0]->copy; /* C is always first */
        cp.dir = TC_COPY_OUT;
        tc_node *n = tc_alg_copy(set, &cp);
        if (!n)
            goto oom;
        alg->copy_node[alg->ncopies++] = n;
        tc_alg_append(alg, copy_pos[TC_C] >= 0 ? alg->loop_node[copy_pos[TC_C]] : NULL, n);
    }
    if (c->has_sizes)
        check_int(b, alg, &call);

    /* the name */
    char name[TC_MAX_INDICES * (TC_NAME_MAX + 2) + 16];
    size_t len = 0;
    name[0] = '\0';
    if (has_copy[0])
        tc_text_put(name, sizeof name, &len, "'");
    for (int p = 0; p < nloops; p++) {
        if (p && b->dot_names)
            tc_text_put(name, sizeof name, &len, ".");
        tc_text_put(name, sizeof name, &len, c->index[order[p]].name);
        if (has_copy[p + 1])
            tc_text_put(name, sizeof name, &len, "'");
    }
    if (len)
        tc_text_put(name, sizeof name, &len, "-");
    tc_text_put(name, sizeof name, &len, tc_kernel_name(b->kernel));
    alg->name = tc_alg_strdup(set, name);
    if (!alg->name || tc_alg_set_add(set, alg) != 0)
        goto oom;
    return TC_OK;
oom:
    return tc_error_set(err, TC_ERESOURCE, 0, 0, "out of memory while enumerating algorithms");
}

/* Every order of the looped indices, lexicographic in index position. */
static tc_status permute(const builder *b, const int *looped, int n, int *order,
                         int depth, int *used, tc_error *err)
{
    if (depth == n)
        return build(b, order, n, err);
    for (int i = 0; i < n; i++) {
        if (used[i])
            continue;
        used[i] = 1;
        order[depth] = looped[i];
        tc_status s = permute(b, looped, n, order, depth + 1, used, err);
        used[i] = 0;
        if (s != TC_OK)
            return s;
    }
    return TC_OK;
}

static tc_status with_kept(builder *b, int nkept, int k0, int k1, int k2, tc_error *err)
{
    int kept[3] = {k0, k1, k2};
    b->nkept = nkept;
    memset(b->is_kept, 0, sizeof b->is_kept);
    for (int j = 0; j < 3; j++) {
        b->kept[j] = j < nkept ? kept[j] : -1;
        if (j < nkept)
            b->is_kept[kept[j]] = 1;
    }
    int looped[TC_MAX_INDICES], n = 0, order[TC_MAX_INDICES], used[TC_MAX_INDICES] = {0};
    for (int i = 0; i < b->c->nindex; i++)
        if (!b->is_kept[i])
            looped[n++] = i;
    return permute(b, looped, n, order, 0, used, err);
}

static tc_status enumerate_kernel(builder *b, const roles *r, tc_error *err)
{
    tc_status s = TC_OK;
    int fr[2 * TC_MAX_INDICES], nf = 0;
    for (int i = 0; i < r->nfa; i++)
        fr[nf++] = r->fa[i];
    for (int i = 0; i < r->nfb; i++)
        fr[nf++] = r->fb[i];
    switch (b->kernel) {
    case TC_KERNEL_DDOT:
        for (int i = 0; i < r->nk && s == TC_OK; i++)
            s = with_kept(b, 1, r->k[i], -1, -1, err);
        break;
    case TC_KERNEL_DAXPY:
        for (int i = 0; i < nf && s == TC_OK; i++)
            s = with_kept(b, 1, fr[i], -1, -1, err);
        break;
    case TC_KERNEL_DGEMV:
        for (int i = 0; i < nf && s == TC_OK; i++)
            for (int j = 0; j < r->nk && s == TC_OK; j++)
                s = with_kept(b, 2, fr[i], r->k[j], -1, err);
        break;
    case TC_KERNEL_DGER:
        for (int i = 0; i < r->nfa && s == TC_OK; i++)
            for (int j = 0; j < r->nfb && s == TC_OK; j++)
                s = with_kept(b, 2, r->fa[i], r->fb[j], -1, err);
        break;
    case TC_KERNEL_DGEMM:
        for (int i = 0; i < r->nfa && s == TC_OK; i++)
            for (int j = 0; j < r->nfb && s == TC_OK; j++)
                for (int l = 0; l < r->nk && s == TC_OK; l++)
                    s = with_kept(b, 3, r->fa[i], r->fb[j], r->k[l], err);
        break;
    case TC_KERNEL_COUNT:
        break;
    }
    return s;
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
    *out = NULL;
    uint64_t total = 0;
    for (int k = 0; k < TC_KERNEL_COUNT; k++)
        if (kernel_mask & (1u << k)) {
            uint64_t n = tc_gen_count(c, (tc_kernel)k);
            total = total + n < total ? UINT64_MAX : total + n;
        }
    if (total > TC_GEN_MAX_ALGORITHMS)
        return tc_error_set(err, TC_EINPUT, 0, 0,
                            "the contraction has %llu algorithms with the requested "
                            "kernels, more than tcgen enumerates (%d); restrict "
                            "--kernels or use fewer indices",
                            (unsigned long long)total, TC_GEN_MAX_ALGORITHMS);
    tc_algorithm_set *set = tc_alg_set_new();
    if (!set)
        return tc_error_set(err, TC_ERESOURCE, 0, 0, "out of memory");
    builder b;
    memset(&b, 0, sizeof b);
    b.c = c;
    b.set = set;
    for (int i = 0; i < c->nindex; i++)
        if (strlen(c->index[i].name) > 1)
            b.dot_names = 1;
    roles r;
    get_roles(c, &r);
    for (int k = TC_KERNEL_COUNT - 1; k >= 0; k--) {
        if (!(kernel_mask & (1u << k)))
            continue;
        b.kernel = (tc_kernel)k;
        tc_status s = enumerate_kernel(&b, &r, err);
        if (s != TC_OK) {
            tc_alg_set_free(set);
            return s;
        }
    }
    if (set->count > 1)
        qsort(set->alg, (size_t)set->count, sizeof set->alg[0], compare);
    *out = set;
    return TC_OK;
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
        if (node->copy->dir != TC_COPY_IN)
            continue;
        if (any++)
            tc_text_put(buf, n, &len, ",");
        tc_text_put(buf, n, &len, c->tensor[node->copy->slice.tensor].name);
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
    for (int i = 0; i < s->count; i++)
        count[s->alg[i]->kernel]++;
    char part[64];
    snprintf(part, sizeof part, "%d algorithm%s:", s->count, s->count == 1 ? "" : "s");
    if (n > 0)
        buf[0] = '\0';
    size_t len = 0;
    tc_text_put(buf, n, &len, part);
    for (int k = TC_KERNEL_COUNT - 1; k >= 0; k--) {
        snprintf(part, sizeof part, " %s %d%s", tc_kernel_name((tc_kernel)k), count[k],
                 k ? "," : "");
        tc_text_put(buf, n, &len, part);
    }
    return len;
}
