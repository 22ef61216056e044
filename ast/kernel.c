/* kernel.c - the kernel table's data rows (kernel.h). */
#include "kernel.h"

#include <stdio.h>
#include <string.h>

#include "error.h"

const tc_kernel_row tc_kernel_table[TC_KERNEL_COUNT] = {
    [TC_KERNEL_DDOT] = {
        .name = {[TC_TYPE_D] = "ddot", [TC_TYPE_S] = "sdot", [TC_TYPE_Z] = "zdotu", [TC_TYPE_C] = "cdotu"},
        .arg_role = {"x", "y", "the C element += alpha x.y"},
        .arg_rank = {1, 1, 0},
        .nkept = 1, .kept = {TC_KEPT_CONTRACTED},
        .blas_dims = TC_BLAS_N,
        .applies_beta = 1,
    },
    [TC_KERNEL_DAXPY] = {
        .name = {[TC_TYPE_D] = "daxpy", [TC_TYPE_S] = "saxpy", [TC_TYPE_Z] = "zaxpy", [TC_TYPE_C] = "caxpy"},
        .arg_role = {"the factor (an element of the other input)", "x", "y (the C slice)"},
        .arg_rank = {0, 1, 1},
        .nkept = 1, .kept = {TC_KEPT_FREE},
        .blas_dims = TC_BLAS_N,
        .one_pass = 1,
    },
    [TC_KERNEL_DGEMV] = {
        .name = {[TC_TYPE_D] = "dgemv", [TC_TYPE_S] = "sgemv", [TC_TYPE_Z] = "zgemv", [TC_TYPE_C] = "cgemv"},
        .arg_role = {"the matrix (the free index's owner)", "x", "y (the C slice)"},
        .arg_rank = {2, 1, 1},
        .nkept = 2, .kept = {TC_KEPT_FREE, TC_KEPT_CONTRACTED},
        .blas_dims = TC_BLAS_M | TC_BLAS_N,
        .applies_beta = 1,
    },
    [TC_KERNEL_DGER] = {
        .name = {[TC_TYPE_D] = "dger", [TC_TYPE_S] = "sger", [TC_TYPE_Z] = "zgeru", [TC_TYPE_C] = "cgeru"},
        .arg_role = {"x", "y", "the matrix (the C slice)"},
        .arg_rank = {1, 1, 2},
        .nkept = 2, .kept = {TC_KEPT_FREE_A, TC_KEPT_FREE_B},
        .blas_dims = TC_BLAS_M | TC_BLAS_N,
        .one_pass = 1,
    },
    [TC_KERNEL_DGEMM] = {
        .name = {[TC_TYPE_D] = "dgemm", [TC_TYPE_S] = "sgemm", [TC_TYPE_Z] = "zgemm", [TC_TYPE_C] = "cgemm"},
        .arg_role = {"A", "B", "C"},
        .arg_rank = {2, 2, 2},
        .nkept = 3, .kept = {TC_KEPT_FREE_A, TC_KEPT_FREE_B, TC_KEPT_CONTRACTED},
        .blas_dims = TC_BLAS_M | TC_BLAS_N | TC_BLAS_K,
        .applies_beta = 1,
        .tiled = 1,
    },
};

const tc_kernel_row *tc_kernel_row_of(tc_kernel k)
{
    return (unsigned)k < TC_KERNEL_COUNT ? &tc_kernel_table[k] : NULL;
}

const char *tc_kernel_name(tc_kernel k)
{
    return tc_kernel_type_name(k, TC_TYPE_D);
}

const char *tc_kernel_type_name(tc_kernel k, tc_type t)
{
    return (unsigned)k < TC_KERNEL_COUNT && (unsigned)t < TC_TYPE_COUNT
               ? tc_kernel_table[k].name[t]
               : "?";
}

int tc_kernel_from_name(const char *name, tc_type *type)
{
    for (int k = 0; k < TC_KERNEL_COUNT; k++)
        for (int t = 0; t < TC_TYPE_COUNT; t++)
            if (strcmp(tc_kernel_table[k].name[t], name) == 0) {
                if (type)
                    *type = (tc_type)t;
                return k;
            }
    return -1;
}

size_t tc_kernel_list(char *buf, size_t n)
{
    size_t len = 0;
    if (n > 0)
        buf[0] = '\0';
    for (int k = 0; k < TC_KERNEL_COUNT; k++) {
        if (k)
            tc_text_put(buf, n, &len, ", ");
        tc_text_put(buf, n, &len, tc_kernel_table[k].name[TC_TYPE_D]);
    }
    return len;
}

double tc_kernel_flops(tc_kernel kernel, int64_t m, int64_t n, int64_t k)
{
    const tc_kernel_row *row = tc_kernel_row_of(kernel);
    if (!row)
        return 0.0;
    double f = 2.0;
    if (row->blas_dims & TC_BLAS_M)
        f *= (double)m;
    if (row->blas_dims & TC_BLAS_N)
        f *= (double)n;
    if (row->blas_dims & TC_BLAS_K)
        f *= (double)k;
    return f;
}

uint64_t tc_kernel_choices(tc_kernel k, uint64_t nfa, uint64_t nfb, uint64_t nk)
{
    const tc_kernel_row *row = tc_kernel_row_of(k);
    if (!row)
        return 0;
    const uint64_t of_role[] = {[TC_KEPT_FREE_A] = nfa, [TC_KEPT_FREE_B] = nfb,
                                [TC_KEPT_FREE] = nfa + nfb, [TC_KEPT_CONTRACTED] = nk};
    uint64_t choices = 1;
    for (int d = 0; d < row->nkept; d++)
        choices *= of_role[row->kept[d]];
    return choices;
}
