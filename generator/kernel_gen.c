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

/* The call's CBLAS routine without "cblas_": "ddot", "sgemm", "zgeru". */
static const char *cblas(const tc_call *k)
{
    return tc_kernel_type_name(k->kernel, k->type);
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

/* Complex CBLAS takes its scalars by pointer: a complex call goes into a
 * block whose local holds the scalar it needs (the dot's result, the axpy
 * factor, the kernel's beta), block-local so that a split loop's threads
 * each have their own. */
static int is_complex(const tc_emitter *e)
{
    return tc_emit_type(e)->is_complex;
}

/* "{\n", then "    [const ]T DECL" at level + 1 (the caller ends the line). */
static void open_block(const tc_emitter *e, int level, int constant, const char *decl)
{
    tc_emit_put(e, "{\n");
    tc_emit_indent(e, level + 1);
    fprintf(tc_emit_out(e), "%s%s %s", constant ? "const " : "", tc_emit_type(e)->c_name, decl);
}

static void close_block(const tc_emitter *e, int level)
{
    tc_emit_indent(e, level);
    tc_emit_put(e, "}\n");
}

/* Whether a complex call takes &beta itself: its beta is the
 * contraction's on every iteration. */
static int beta_direct(const tc_emitter *e)
{
    char num[64];
    int cond;
    return strcmp(tc_emit_kernel_beta_text(e, num, sizeof num, &cond), "beta") == 0 && !cond;
}

/* "const T tcgen_beta = (k == 0 ? beta : 1.0);" for a complex gemv or
 * gemm (which takes &tcgen_beta) unless beta_direct; nothing for a real
 * one. Returns the call's level. */
static int open_beta(const tc_emitter *e, int level)
{
    if (!is_complex(e) || beta_direct(e))
        return level;
    open_block(e, level, 1, "tcgen_beta = ");
    tc_emit_kernel_beta(e);
    tc_emit_put(e, ";\n");
    tc_emit_indent(e, level + 1);
    return level + 1;
}

/* The scalar arguments: "alpha" or "&alpha"; the kernel's beta. */
static void put_alpha(const tc_emitter *e)
{
    tc_emit_put(e, is_complex(e) ? ", &alpha" : ", alpha");
}

static void put_beta(const tc_emitter *e)
{
    if (is_complex(e))
        tc_emit_put(e, beta_direct(e) ? "&beta" : "&tcgen_beta");
    else
        tc_emit_kernel_beta(e);
}

/* Whether text is the literal v, in double or float ("1.0", "1.0f"). */
static int is_literal(const char *text, const char *v)
{
    size_t n = strlen(v);
    return strncmp(text, v, n) == 0 && (text[n] == '\0' || strcmp(text + n, "f") == 0);
}

/* "C[x] += alpha * cblas_ddot(...)", or with beta owned
 * "C[x] = alpha * cblas_ddot(...) + beta * C[x]"; beta 0 does not read C.
 * Complex: the dot into tcgen_dot by cblas_zdotu_sub, then the same with
 * tcgen_dot for the call. */
static void emit_ddot(const tc_emitter *e, const tc_call *k, int level)
{
    const tc_operand *a = k->arg;
    char num[64];
    int cond;
    const char *b = tc_emit_kernel_beta_text(e, num, sizeof num, &cond);
    int zero = is_literal(b, "0.0"), cplx = is_complex(e);
    if (cplx) { /* through the file's tcgen_?dotu (prologue_ddot) */
        open_block(e, level, 0, "tcgen_dot;\n");
        tc_emit_indent(e, level + 1);
        fprintf(tc_emit_out(e), "tcgen_%s(", cblas(k));
        tc_emit_dim(e, &k->dim_n);
        tc_emit_args(e, a, 0, 1);
        tc_emit_put(e, ", &tcgen_dot);\n");
        tc_emit_indent(e, level + 1);
    }
    tc_emit_element(e, &a[2]);
    tc_emit_put(e, is_literal(b, "1.0") ? " += " : " = ");
    if (cplx) {
        tc_emit_put(e, "alpha * tcgen_dot");
    } else {
        fprintf(tc_emit_out(e), "alpha * cblas_%s(", cblas(k));
        tc_emit_dim(e, &k->dim_n);
        tc_emit_args(e, a, 0, 1);
        tc_emit_put(e, ")");
    }
    if (cond) { /* " + (k == 0 ? 0.0 : C[x])", " + (k == 0 ? beta : 1.0) * C[x]" */
        tc_emit_put(e, " + (");
        tc_emit_first_iteration(e, 1);
        fprintf(tc_emit_out(e), " ? %s : ", b);
        if (!zero)
            fprintf(tc_emit_out(e), "%s) * ", tc_emit_one(e));
        tc_emit_element(e, &a[2]);
        tc_emit_put(e, zero ? ")" : "");
    } else if (strcmp(b, "beta") == 0) {
        tc_emit_put(e, " + beta * ");
        tc_emit_element(e, &a[2]);
    }
    tc_emit_put(e, ";\n");
    if (cplx)
        close_block(e, level);
}

/* y += alpha * x[j] * x; complex: the factor in tcgen_factor. */
static void emit_daxpy(const tc_emitter *e, const tc_call *k, int level)
{
    const tc_operand *a = k->arg;
    if (is_complex(e)) {
        open_block(e, level, 1, "tcgen_factor = alpha * ");
        tc_emit_element(e, &a[0]);
        tc_emit_put(e, ";\n");
        tc_emit_indent(e, level + 1);
    }
    fprintf(tc_emit_out(e), "cblas_%s(", cblas(k));
    tc_emit_dim(e, &k->dim_n);
    if (is_complex(e)) {
        tc_emit_put(e, ", &tcgen_factor");
    } else {
        tc_emit_put(e, ", alpha * ");
        tc_emit_element(e, &a[0]);
    }
    tc_emit_args(e, a, 1, 2);
    tc_emit_put(e, ");\n");
    if (is_complex(e))
        close_block(e, level);
}

static void emit_dgemv(const tc_emitter *e, const tc_call *k, int level)
{
    const tc_operand *a = k->arg;
    int in = open_beta(e, level);
    fprintf(tc_emit_out(e), "cblas_%s(CblasColMajor, %s, ", cblas(k), tc_emit_trans(k->trans_a));
    tc_emit_dim(e, &k->dim_m);
    tc_emit_put(e, ", ");
    tc_emit_dim(e, &k->dim_n);
    put_alpha(e);
    tc_emit_args(e, a, 0, 0);
    tc_emit_put(e, ",\n");
    tc_emit_indent(e, in + 3);
    tc_emit_address(e, &a[1]);
    tc_emit_put(e, ", ");
    tc_emit_ld(e, &a[1]);
    tc_emit_put(e, ", ");
    put_beta(e);
    tc_emit_args(e, a, 2, 2);
    tc_emit_put(e, ");\n");
    if (in != level)
        close_block(e, level);
}

static void emit_dger(const tc_emitter *e, const tc_call *k, int level)
{
    const tc_operand *a = k->arg;
    fprintf(tc_emit_out(e), "cblas_%s(CblasColMajor, ", cblas(k));
    tc_emit_dim(e, &k->dim_m);
    tc_emit_put(e, ", ");
    tc_emit_dim(e, &k->dim_n);
    put_alpha(e);
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
    int in = open_beta(e, level);
    fprintf(tc_emit_out(e), "cblas_%s(CblasColMajor, %s, %s, ", cblas(k),
            tc_emit_trans(k->trans_a), tc_emit_trans(k->trans_b));
    tc_emit_dim(e, &k->dim_m);
    tc_emit_put(e, ", ");
    tc_emit_dim(e, &k->dim_n);
    tc_emit_put(e, ", ");
    tc_emit_dim(e, &k->dim_k);
    tc_emit_put(e, ",\n");
    tc_emit_indent(e, in + 3);
    tc_emit_put(e, is_complex(e) ? "&alpha" : "alpha");
    tc_emit_args(e, a, 0, 1);
    tc_emit_put(e, ",\n");
    tc_emit_indent(e, in + 3);
    put_beta(e);
    tc_emit_args(e, a, 2, 2);
    tc_emit_put(e, ");\n");
    if (in != level)
        close_block(e, level);
}

/* Complex dots go through tcgen_cdotu or tcgen_zdotu, written once per
 * file: OpenBLAS 0.3.21's cdotu and zdotu read one element past the end of
 * a strided vector (a fault where it ends a mapping), so a strided dot is
 * a gemv of one column (a unit-stride vector as the matrix) or of one row,
 * as the executor does (runtime/kernel_run.c). */
static void prologue_ddot(const tc_emitter *e)
{
    const tc_type_row *r = tc_emit_type(e);
    if (!r->is_complex)
        return;
    const char l = r->letter, *t = r->c_name;
    fprintf(tc_emit_out(e),
            "\n#ifndef TCGEN_%cDOTU_DEFINED\n#define TCGEN_%cDOTU_DEFINED\n"
            "/* *dot = x.y (unconjugated); %cdotu only on unit strides: on strided\n"
            " * vectors OpenBLAS 0.3.21's reads past their last element. */\n"
            "static void tcgen_%cdotu(int n, const %s *x, int incx, const %s *y, int incy,\n"
            "                        %s *dot)\n{\n"
            "    const %s one = 1, zero = 0;\n"
            "    *dot = 0;\n"
            "    if (incx == 1 && incy == 1)\n"
            "        cblas_%cdotu_sub(n, x, 1, y, 1, dot);\n"
            "    else if (incx == 1 || incy == 1)\n"
            "        cblas_%cgemv(CblasColMajor, CblasTrans, n, 1, &one, incx == 1 ? x : y, n,\n"
            "                    incx == 1 ? y : x, incx == 1 ? incy : incx, &zero, dot, 1);\n"
            "    else\n"
            "        cblas_%cgemv(CblasColMajor, CblasNoTrans, 1, n, &one, x, incx, y, incy, &zero,\n"
            "                    dot, 1);\n"
            "}\n#endif\n",
            l - 'a' + 'A', l - 'a' + 'A', l, l, t, t, t, t, l, l, l);
}

const tc_kernel_gen_row tc_kernel_gen_rows[TC_KERNEL_COUNT] = {
    [TC_KERNEL_DDOT] = {build_ddot, emit_ddot, prologue_ddot},
    [TC_KERNEL_DAXPY] = {build_daxpy, emit_daxpy},
    [TC_KERNEL_DGEMV] = {build_dgemv, emit_dgemv},
    [TC_KERNEL_DGER] = {build_dger, emit_dger},
    [TC_KERNEL_DGEMM] = {build_dgemm, emit_dgemm},
};
