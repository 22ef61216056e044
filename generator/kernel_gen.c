/* kernel_gen.c - the kernel table's generator rows (kernel_gen.h): each
 * kernel's call built from the tensor slices, and emitted as CBLAS. */
#include "generator/kernel_gen.h"

#include <string.h>

/* The input (TC_A or TC_B) holding a free kernel dimension. */
static int owner_of(const tc_contraction *c, const tc_dim *d)
{
    return tc_dim_role(c, d) == TC_ROLE_FREE_A ? TC_A : TC_B;
}

static int other(int t)
{
    return t == TC_A ? TC_B : TC_A;
}

static const char *cblas(const tc_call *k)
{
    return tc_kernel_table[k->kernel].name[TC_TYPE_D];
}

/* ---- building --------------------------------------------------------- */

static void build_ddot(const tc_contraction *c, const tc_dim kept[3], const tc_operand op[3],
                       tc_call *k)
{
    (void)c;
    k->arg[0] = op[TC_A];
    k->arg[1] = op[TC_B];
    k->dim_n = kept[0];
}

static void build_daxpy(const tc_contraction *c, const tc_dim kept[3], const tc_operand op[3],
                        tc_call *k)
{
    int own = owner_of(c, &kept[0]);
    k->arg[0] = op[other(own)];
    k->arg[1] = op[own];
    k->dim_n = kept[0];
}

static void build_dgemv(const tc_contraction *c, const tc_dim kept[3], const tc_operand op[3],
                        tc_call *k)
{
    int own = owner_of(c, &kept[0]);
    k->arg[0] = op[own];
    k->arg[1] = op[other(own)];
    k->trans_a = !tc_dim_same(&op[own].dim[0], &kept[0]);
    k->dim_m = op[own].dim[0];
    k->dim_n = op[own].dim[1];
}

static void build_dger(const tc_contraction *c, const tc_dim kept[3], const tc_operand op[3],
                       tc_call *k)
{
    (void)kept;
    int own = owner_of(c, &op[TC_C].dim[0]);
    k->arg[0] = op[own];
    k->arg[1] = op[other(own)];
    k->dim_m = op[TC_C].dim[0];
    k->dim_n = op[TC_C].dim[1];
}

static void build_dgemm(const tc_contraction *c, const tc_dim kept[3], const tc_operand op[3],
                        tc_call *k)
{
    const tc_dim *r = &op[TC_C].dim[0];
    int own = owner_of(c, r);
    k->arg[0] = op[own];
    k->arg[1] = op[other(own)];
    k->trans_a = !tc_dim_same(&k->arg[0].dim[0], r);
    k->trans_b = !tc_dim_same(&k->arg[1].dim[0], &kept[2]);
    k->dim_m = *r;
    k->dim_n = op[TC_C].dim[1];
    k->dim_k = kept[2];
}

/* ---- emitting --------------------------------------------------------- */

/* "C[x] += alpha * cblas_ddot(...)", or with beta owned
 * "C[x] = alpha * cblas_ddot(...) + beta * C[x]"; beta 0 does not read C. */
static void emit_ddot(const tc_emitter *e, const tc_call *k, int level)
{
    (void)level;
    const tc_operand *a = k->arg;
    char num[64];
    int cond;
    const char *b = tc_emit_kernel_beta_text(e, num, sizeof num, &cond);
    int zero = strcmp(b, "0.0") == 0;
    tc_emit_element(e, &a[2]);
    tc_emit_put(e, strcmp(b, "1.0") == 0 ? " += " : " = ");
    fprintf(tc_emit_out(e), "alpha * cblas_%s(", cblas(k));
    tc_emit_dim(e, &k->dim_n);
    tc_emit_args(e, a, 0, 1);
    tc_emit_put(e, ")");
    if (cond) { /* " + (k == 0 ? 0.0 : C[x])", " + (k == 0 ? beta : 1.0) * C[x]" */
        tc_emit_put(e, " + (");
        tc_emit_first_iteration(e, 1);
        fprintf(tc_emit_out(e), " ? %s : ", b);
        if (!zero)
            tc_emit_put(e, "1.0) * ");
        tc_emit_element(e, &a[2]);
        tc_emit_put(e, zero ? ")" : "");
    } else if (strcmp(b, "beta") == 0) {
        tc_emit_put(e, " + beta * ");
        tc_emit_element(e, &a[2]);
    }
    tc_emit_put(e, ";\n");
}

static void emit_daxpy(const tc_emitter *e, const tc_call *k, int level)
{
    (void)level;
    const tc_operand *a = k->arg;
    fprintf(tc_emit_out(e), "cblas_%s(", cblas(k));
    tc_emit_dim(e, &k->dim_n);
    tc_emit_put(e, ", alpha * ");
    tc_emit_element(e, &a[0]);
    tc_emit_args(e, a, 1, 2);
    tc_emit_put(e, ");\n");
}

static void emit_dgemv(const tc_emitter *e, const tc_call *k, int level)
{
    const tc_operand *a = k->arg;
    fprintf(tc_emit_out(e), "cblas_%s(CblasColMajor, %s, ", cblas(k), tc_emit_trans(k->trans_a));
    tc_emit_dim(e, &k->dim_m);
    tc_emit_put(e, ", ");
    tc_emit_dim(e, &k->dim_n);
    tc_emit_put(e, ", alpha");
    tc_emit_args(e, a, 0, 0);
    tc_emit_put(e, ",\n");
    tc_emit_indent(e, level + 3);
    tc_emit_address(e, &a[1]);
    tc_emit_put(e, ", ");
    tc_emit_ld(e, &a[1]);
    tc_emit_put(e, ", ");
    tc_emit_kernel_beta(e);
    tc_emit_args(e, a, 2, 2);
    tc_emit_put(e, ");\n");
}

static void emit_dger(const tc_emitter *e, const tc_call *k, int level)
{
    const tc_operand *a = k->arg;
    fprintf(tc_emit_out(e), "cblas_%s(CblasColMajor, ", cblas(k));
    tc_emit_dim(e, &k->dim_m);
    tc_emit_put(e, ", ");
    tc_emit_dim(e, &k->dim_n);
    tc_emit_put(e, ", alpha");
    tc_emit_args(e, a, 0, 0);
    tc_emit_put(e, ",\n");
    tc_emit_indent(e, level + 3);
    tc_emit_address(e, &a[1]);
    tc_emit_put(e, ", ");
    tc_emit_ld(e, &a[1]);
    tc_emit_args(e, a, 2, 2);
    tc_emit_put(e, ");\n");
}

static void emit_dgemm(const tc_emitter *e, const tc_call *k, int level)
{
    const tc_operand *a = k->arg;
    fprintf(tc_emit_out(e), "cblas_%s(CblasColMajor, %s, %s, ", cblas(k),
            tc_emit_trans(k->trans_a), tc_emit_trans(k->trans_b));
    tc_emit_dim(e, &k->dim_m);
    tc_emit_put(e, ", ");
    tc_emit_dim(e, &k->dim_n);
    tc_emit_put(e, ", ");
    tc_emit_dim(e, &k->dim_k);
    tc_emit_put(e, ",\n");
    tc_emit_indent(e, level + 3);
    tc_emit_put(e, "alpha");
    tc_emit_args(e, a, 0, 1);
    tc_emit_put(e, ",\n");
    tc_emit_indent(e, level + 3);
    tc_emit_kernel_beta(e);
    tc_emit_args(e, a, 2, 2);
    tc_emit_put(e, ");\n");
}

const tc_kernel_gen_row tc_kernel_gen_rows[TC_KERNEL_COUNT] = {
    [TC_KERNEL_DDOT] = {build_ddot, emit_ddot},
    [TC_KERNEL_DAXPY] = {build_daxpy, emit_daxpy},
    [TC_KERNEL_DGEMV] = {build_dgemv, emit_dgemv},
    [TC_KERNEL_DGER] = {build_dger, emit_dger},
    [TC_KERNEL_DGEMM] = {build_dgemm, emit_dgemm},
};
