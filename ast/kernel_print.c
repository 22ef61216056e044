/* kernel_print.c - the kernel table's print rows (kernel_print.h). */
#include "kernel_print.h"

#include <inttypes.h>

static void operand(FILE *out, const tc_contraction *c, const tc_operand *op)
{
    char buf[256];
    tc_alg_format_operand(c, op, buf, sizeof buf);
    fputs(buf, out);
}

static const char *tr(int t)
{
    return t ? "T" : "N";
}

static void print_ddot(FILE *out, const tc_contraction *c, const tc_call *k,
                       const char *const dim[3])
{
    const tc_operand *a = k->arg;
    fprintf(out, " n=%s:%" PRId64 " ", dim[1], k->n);
    operand(out, c, &a[2]);
    fputs(" += ", out);
    operand(out, c, &a[0]);
    fprintf(out, "(inc %" PRId64 ") . ", a[0].ld);
    operand(out, c, &a[1]);
    fprintf(out, "(inc %" PRId64 ")", a[1].ld);
}

static void print_daxpy(FILE *out, const tc_contraction *c, const tc_call *k,
                        const char *const dim[3])
{
    const tc_operand *a = k->arg;
    fprintf(out, " n=%s:%" PRId64 " ", dim[1], k->n);
    operand(out, c, &a[2]);
    fprintf(out, "(inc %" PRId64 ") += ", a[2].ld);
    operand(out, c, &a[0]);
    fputs(" * ", out);
    operand(out, c, &a[1]);
    fprintf(out, "(inc %" PRId64 ")", a[1].ld);
}

static void print_dgemv(FILE *out, const tc_contraction *c, const tc_call *k,
                        const char *const dim[3])
{
    const tc_operand *a = k->arg;
    fprintf(out, " %s m=%s:%" PRId64 " n=%s:%" PRId64 " ", tr(k->trans_a), dim[0], k->m,
            dim[1], k->n);
    operand(out, c, &a[2]);
    fprintf(out, "(inc %" PRId64 ") += ", a[2].ld);
    operand(out, c, &a[0]);
    fprintf(out, "%s(ld %" PRId64 ") * ", k->trans_a ? "^T" : "", a[0].ld);
    operand(out, c, &a[1]);
    fprintf(out, "(inc %" PRId64 ")", a[1].ld);
}

static void print_dger(FILE *out, const tc_contraction *c, const tc_call *k,
                       const char *const dim[3])
{
    const tc_operand *a = k->arg;
    fprintf(out, " m=%s:%" PRId64 " n=%s:%" PRId64 " ", dim[0], k->m, dim[1], k->n);
    operand(out, c, &a[2]);
    fprintf(out, "(ld %" PRId64 ") += ", a[2].ld);
    operand(out, c, &a[0]);
    fprintf(out, "(inc %" PRId64 ") * ", a[0].ld);
    operand(out, c, &a[1]);
    fprintf(out, "(inc %" PRId64 ")^T", a[1].ld);
}

static void print_dgemm(FILE *out, const tc_contraction *c, const tc_call *k,
                        const char *const dim[3])
{
    const tc_operand *a = k->arg;
    fprintf(out, " %s%s m=%s:%" PRId64 " n=%s:%" PRId64 " k=%s:%" PRId64 " ", tr(k->trans_a),
            tr(k->trans_b), dim[0], k->m, dim[1], k->n, dim[2], k->k);
    operand(out, c, &a[2]);
    fprintf(out, "(ld %" PRId64 ") += ", a[2].ld);
    operand(out, c, &a[0]);
    fprintf(out, "%s(ld %" PRId64 ") * ", k->trans_a ? "^T" : "", a[0].ld);
    operand(out, c, &a[1]);
    fprintf(out, "%s(ld %" PRId64 ")", k->trans_b ? "^T" : "", a[1].ld);
}

const tc_kernel_print_row tc_kernel_print_rows[TC_KERNEL_COUNT] = {
    [TC_KERNEL_DDOT] = {print_ddot},
    [TC_KERNEL_DAXPY] = {print_daxpy},
    [TC_KERNEL_DGEMV] = {print_dgemv},
    [TC_KERNEL_DGER] = {print_dger},
    [TC_KERNEL_DGEMM] = {print_dgemm},
};
