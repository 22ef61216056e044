/*
 * kernel.h - the kernel table: what tcgen knows of each BLAS kernel, one
 * row per kernel (docs/design.md §4, "The kernel and family tables").
 *
 * The framework never names a kernel: it reads the kernel's row. This file
 * holds the data row (floor 1: names, operand roles, the kernel dimensions
 * it keeps, its BLAS dimensions and flops, beta, streaming); each floor
 * holds the rows of behaviour it owns, indexed by kernel, in a file of its
 * own named for the table:
 *   ast/kernel_print.c        tc_kernel_print_rows    print a call (tc_alg_print)
 *   generator/kernel_gen.c    tc_kernel_gen_rows      build a call, emit it as C
 *   runtime/kernel_run.c      tc_kernel_run_rows      execute a call, a nest of calls
 * and runtime/blas.c binds the BLAS symbol (tc_blas). Adding a kernel is a
 * value of tc_kernel, a row in each of those tables and its BLAS binding.
 *
 * Types: a row names its BLAS routine per element type (ast/type.h), so
 * float and complex are columns, not code: "sgemm", "dgemm", "cgemm",
 * "zgemm" are one kernel. The complex dot and rank-1 update are the
 * unconjugated ones (cdotu, zgeru): a contraction conjugates nothing.
 */
#ifndef TC_AST_KERNEL_H
#define TC_AST_KERNEL_H

#include <stdint.h>

#include "ast/contraction.h"
#include "ast/type.h"

/* BLAS level order; bit (1u << kernel) in a kernel mask. The enumeration
 * builds and sorts kernels in this order (the highest first). */
typedef enum tc_kernel {
    TC_KERNEL_DDOT = 0,
    TC_KERNEL_DAXPY,
    TC_KERNEL_DGEMV,
    TC_KERNEL_DGER,
    TC_KERNEL_DGEMM,
    TC_KERNEL_COUNT
} tc_kernel;

#define TC_KERNEL_MASK_ALL ((1u << TC_KERNEL_COUNT) - 1u)

/* The role of a kernel dimension the enumeration chooses: one index (or,
 * fused, a group) of a role. TC_KEPT_FREE is a free index of A or of B
 * (the matrix or vector is then its owner's). */
typedef enum tc_kept_role {
    TC_KEPT_FREE_A,
    TC_KEPT_FREE_B,
    TC_KEPT_FREE,
    TC_KEPT_CONTRACTED
} tc_kept_role;

/* BLAS dimensions a call uses (tc_call m, n, k): bits of a mask. */
enum { TC_BLAS_M = 1, TC_BLAS_N = 2, TC_BLAS_K = 4 };

typedef struct tc_kernel_row {
    const char *name[TC_TYPE_COUNT]; /* per tc_type: "ddot", "zdotu" (the CBLAS
                                        routine is cblas_<name>, cblas_zdotu_sub) */
    const char *arg_role[3]; /* tc_call.arg[0..2], as algorithm.h describes them */
    int arg_rank[3];         /* their kept dimensions: 0 scalar, 1 vector, 2 matrix */
    int nkept;               /* kernel dimensions chosen (1..3) ... */
    tc_kept_role kept[3];    /* ... of these roles, outer to inner in the enumeration */
    unsigned blas_dims;      /* TC_BLAS_M | TC_BLAS_N | TC_BLAS_K it uses */
    int applies_beta;        /* 1: the call scales its output by a beta
                                (ddot through the executor's update) */
    int one_pass;            /* 1: a streamed output is read and written in
                                the call's one pass over it (daxpy, dger),
                                so its bytes replace the call's time */
    int tiled;               /* 1: the call walks its operands in tiles, not
                                front to back (dgemm: long calls, its warm
                                time no tight floor) */
} tc_kernel_row;

/* The rows, indexed by tc_kernel. */
extern const tc_kernel_row tc_kernel_table[TC_KERNEL_COUNT];

/* The row of kernel k (NULL when k is not a kernel). */
const tc_kernel_row *tc_kernel_row_of(tc_kernel k);

/* "ddot", "daxpy", "dgemv", "dger", "dgemm" (double precision, the name
 * the kernel goes by in messages); "?" when k is not a kernel. */
const char *tc_kernel_name(tc_kernel k);
/* Its name in type t: "sgemm", "zgeru"; what algorithm names hold. */
const char *tc_kernel_type_name(tc_kernel k, tc_type t);
/* The kernel named `name` in any type ("zgemm" is dgemm's kernel), or -1;
 * *type (if not NULL) gets the type it names. */
int tc_kernel_from_name(const char *name, tc_type *type);
/* "ddot, daxpy, dgemv, dger, dgemm": every kernel, in table order.
 * snprintf semantics. */
size_t tc_kernel_list(char *buf, size_t n);

/* Flops of one call with BLAS dimensions m, n, k: 2 times the product of
 * the dimensions the kernel uses (0 when k is not a kernel). */
double tc_kernel_flops(tc_kernel kernel, int64_t m, int64_t n, int64_t k);

/* The number of choices of kernel dimensions of kernel k where the roles
 * have nfa free-A, nfb free-B and nk contracted candidates each. */
uint64_t tc_kernel_choices(tc_kernel k, uint64_t nfa, uint64_t nfb, uint64_t nk);

#endif
