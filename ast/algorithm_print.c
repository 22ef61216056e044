/* algorithm_print.c - the readable tree of an algorithm (for `tcgen explain`). */
#include "algorithm.h"
#include "error.h"
#include "kernel_print.h"

#include <inttypes.h>
#include <string.h>

static int is_kept(const tc_operand *op, int index)
{
    for (int d = 0; d < op->rank; d++)
        if (tc_dim_holds(&op->dim[d], index))
            return 1;
    return 0;
}

size_t tc_alg_format_operand(const tc_contraction *c, const tc_operand *op,
                             char *buf, size_t n)
{
    size_t len = 0;
    if (n > 0)
        buf[0] = '\0';
    if (op->base >= TC_BASE_TEMP) {
        char t[16];
        snprintf(t, sizeof t, "T%d", op->base - TC_BASE_TEMP);
        tc_text_put(buf, n, &len, t);
        tc_text_put(buf, n, &len, op->rank == 2 ? "[:,:]" : op->rank == 1 ? "[:]" : "[]");
        return len;
    }
    const tc_tensor *t = &c->tensor[op->base];
    tc_text_put(buf, n, &len, t->name);
    tc_text_put(buf, n, &len, "[");
    for (int k = 0; k < t->rank; k++) {
        if (k)
            tc_text_put(buf, n, &len, ",");
        tc_text_put(buf, n, &len, is_kept(op, t->index[k]) ? ":" : c->index[t->index[k]].name);
    }
    tc_text_put(buf, n, &len, "]");
    return len;
}

/* Names are joined with '.' when any index has a longer name (as in the
 * algorithm names, generator.h). */
static int dotted(const tc_contraction *c)
{
    for (int i = 0; i < c->nindex; i++)
        if (strlen(c->index[i].name) > 1)
            return 1;
    return 0;
}

static void print_call(FILE *out, const tc_contraction *c, const tc_call *k)
{
    char bm[256], bn[256], bk[256]; /* a dimension's name: "b", "(bc)" or "-" */
    tc_dim_format(c, &k->dim_m, dotted(c), bm, sizeof bm);
    tc_dim_format(c, &k->dim_n, dotted(c), bn, sizeof bn);
    tc_dim_format(c, &k->dim_k, dotted(c), bk, sizeof bk);
    const char *const dim[3] = {bm, bn, bk};
    fprintf(out, "%s", tc_kernel_type_name(k->kernel, c->type));
    if ((unsigned)k->kernel < TC_KERNEL_COUNT)
        tc_kernel_print_rows[k->kernel].print(out, c, k, dim);
    fputc('\n', out);
}

/* "NAME[i,j,k]" */
static void index_list(const tc_contraction *c, const char *name, const int *index, int rank,
                       char *buf, size_t n)
{
    size_t len = 0;
    buf[0] = '\0';
    tc_text_put(buf, n, &len, name);
    tc_text_put(buf, n, &len, "[");
    for (int k = 0; k < rank; k++) {
        if (k)
            tc_text_put(buf, n, &len, ",");
        tc_text_put(buf, n, &len, c->index[index[k]].name);
    }
    tc_text_put(buf, n, &len, "]");
}

struct print_ctx {
    const tc_algorithm *alg;
    const tc_contraction *c;
    FILE *out;
};

/* "permute A[d,e,g,a] -> T0[d,e,a,g]", or back into C (a block: " block
 * at j,k") with beta. */
static void print_permutation(const struct print_ctx *p, const tc_permutation *pm)
{
    const tc_contraction *c = p->c;
    const tc_temp *t = &p->alg->temp[pm->temp];
    const tc_tensor *x = &c->tensor[pm->tensor];
    char tensor[256], temp[256], tname[16];
    snprintf(tname, sizeof tname, "T%d", pm->temp);
    index_list(c, tname, t->order, t->rank, temp, sizeof temp);
    index_list(c, x->name, x->index, x->rank, tensor, sizeof tensor);
    if (pm->dir == TC_COPY_IN) {
        fprintf(p->out, "permute %s -> %s\n", tensor, temp);
        return;
    }
    fprintf(p->out, "permute %s -> %s", temp, tensor);
    for (int d = 0; d < pm->ndep; d++)
        fprintf(p->out, "%s%s", d ? "," : " block at ", c->index[pm->dep[d]].name);
    fprintf(p->out, " (%s = T%d + beta * %s)\n", x->name, pm->temp, x->name);
}

static int print_node(const tc_node *n, void *data)
{
    struct print_ctx *p = data;
    const tc_contraction *c = p->c;
    fprintf(p->out, "%*s", 2 * (n->depth + 1), "");
    switch (n->kind) {
    case TC_NODE_LOOP:
        fprintf(p->out, "for %s in 0..%" PRId64, c->index[n->index].name, n->extent);
        if (p->alg->split > 1 && n == p->alg->loop_node[0])
            fprintf(p->out, ", split over %d threads (at most %" PRId64 " each, BLAS on one%s)",
                    p->alg->split, tc_alg_loop_extent(p->alg, n),
                    p->alg->partial ? "; each but the first into a partial C, added after" : "");
        fputc('\n', p->out);
        break;
    case TC_NODE_COPY: {
        const tc_copy *cp = n->copy;
        const tc_temp *t = &p->alg->temp[cp->temp];
        char slice[256];
        tc_alg_format_operand(c, &cp->slice, slice, sizeof slice);
        if (cp->dir == TC_COPY_IN) {
            fprintf(p->out, "copy %s -> T%d (%s x %s)\n", slice, cp->temp,
                    c->index[t->dim[0]].name, c->index[t->dim[1]].name);
        } else {
            fprintf(p->out, "copy T%d -> %s\n", cp->temp, slice);
        }
        break;
    }
    case TC_NODE_PERMUTE:
        print_permutation(p, n->perm);
        break;
    case TC_NODE_KERNEL:
        print_call(p->out, c, n->call);
        break;
    }
    return 0;
}

void tc_alg_print(const tc_algorithm *alg, const tc_contraction *c, FILE *out)
{
    struct print_ctx p = {alg, c, out};
    fprintf(out, "algorithm %s (kernel %s)%s%s\n", alg->name,
            tc_kernel_type_name(alg->kernel, alg->type), alg->fits_int ? "" : " unusable: ",
            alg->fits_int ? "" : alg->why);
    tc_alg_walk(alg, print_node, &p);
}
