/*
 * kernel_gen.h - the kernel table's generator rows (ast/kernel.h): how the
 * enumeration builds each kernel's call from the slices of C, A and B, and
 * how the C emitter writes it. Internal to generator/.
 */
#ifndef TC_GENERATOR_KERNEL_GEN_H
#define TC_GENERATOR_KERNEL_GEN_H

#include <stddef.h>
#include <stdio.h>

#include "ast/algorithm.h"

/* The C emitter (emit_c.c) and the kit an emit row writes with. */
typedef struct emitter tc_emitter;
FILE *tc_emit_out(const tc_emitter *e);
void tc_emit_put(const tc_emitter *e, const char *s);
void tc_emit_indent(const tc_emitter *e, int level);
/* A BLAS dimension (its index, or its group): "N_b * N_c". */
void tc_emit_dim(const tc_emitter *e, const tc_dim *d);
/* ", X, ldX" for operands a[from..to]. */
void tc_emit_args(const tc_emitter *e, const tc_operand *a, int from, int to);
/* "A" or "&B[...]"; "C[...]" (a scalar operand); "N_a" (its ld or increment). */
void tc_emit_address(const tc_emitter *e, const tc_operand *op);
void tc_emit_element(const tc_emitter *e, const tc_operand *op);
void tc_emit_ld(const tc_emitter *e, const tc_operand *op);
/* The beta argument of a kernel that applies beta, as a value: "beta",
 * "0.0", "(k == 0 ? beta : 1.0)" (literals "0.0f", "1.0f" for floats). */
void tc_emit_kernel_beta(const tc_emitter *e);
/* The kernel's beta as text into buf ("1.0" where it owns none, "0.0",
 * "beta"; "1.0f", "0.0f" for floats); *cond set when it depends on the
 * iteration (the text is then the first's). */
const char *tc_emit_kernel_beta_text(const tc_emitter *e, char *buf, size_t n, int *cond);
/* Writes (write = 1) "i == 0 && j == 0", the looped contracted indices at
 * their first value; returns 0 (nothing written) when none is looped. */
int tc_emit_first_iteration(const tc_emitter *e, int write);
/* "CblasTrans" or "CblasNoTrans". */
const char *tc_emit_trans(int t);
/* The element type's row (the contraction's type). */
const tc_type_row *tc_emit_type(const tc_emitter *e);
/* 1 in the element's precision: "1.0", or "1.0f" for float and float
 * complex (a double there would be narrowed: -Wconversion). */
const char *tc_emit_one(const tc_emitter *e);

typedef struct tc_kernel_gen_row {
    /* Fills k's arguments arg[0], arg[1] from the operands op[TC_C..TC_B]
     * (arg[2] is op[TC_C]), its transpositions and its BLAS dimensions
     * (dim_m, dim_n, dim_k; n = 0 unused), given its kernel dimensions
     * kept[0..nkept) in the row's roles. */
    void (*build)(const tc_contraction *c, const tc_dim kept[3], const tc_operand op[3], tc_call *k);
    /* Writes the call's statement (after the indentation, with its ";\n"). */
    void (*emit)(const tc_emitter *e, const tc_call *k, int level);
    /* Writes what the file needs before the function for the kernel's
     * calls in the emitter's type (a helper, guarded so that several
     * functions of one file share it), or NULL: nothing. */
    void (*prologue)(const tc_emitter *e);
} tc_kernel_gen_row;

/* Indexed by tc_kernel. */
extern const tc_kernel_gen_row tc_kernel_gen_rows[TC_KERNEL_COUNT];

#endif
