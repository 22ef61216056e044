/*
 * kernel_print.h - the kernel table's print rows (ast/kernel.h): how
 * tc_alg_print writes one call of each kernel, after its name.
 */
#ifndef TC_AST_KERNEL_PRINT_H
#define TC_AST_KERNEL_PRINT_H

#include <stdio.h>

#include "ast/algorithm.h"

typedef struct tc_kernel_print_row {
    /* Writes " m=a:400 n=b:400 C[:,:,c](ld 400) += ..." (no newline);
     * dim[] names the BLAS dimensions m, n, k ("a", "(bc)", "-"). */
    void (*print)(FILE *out, const tc_contraction *c, const tc_call *k, const char *const dim[3]);
} tc_kernel_print_row;

/* Indexed by tc_kernel. */
extern const tc_kernel_print_row tc_kernel_print_rows[TC_KERNEL_COUNT];

#endif
