/*
 * dim.h - a kernel dimension (docs/design.md §4, "Dimensions and views").
 *
 * A kernel dimension is a set of indices the BLAS call treats as one, with
 * one extent and, per tensor it spans, one stride. In the paper's family it
 * is one index; a fused group "(bc)" is simply a dimension with several
 * indices, which lie next to each other, in the same order, in every
 * tensor holding them, so that they merge into one (as FFTW merges
 * contiguous iodims): extent = the product of their sizes, stride = the
 * stride of the one that comes first. A call's m, n, k, an operand's kept
 * dimensions and an algorithm's kernel dimensions are all tc_dims, so a
 * group is never looked up again from one of its indices.
 */
#ifndef TC_AST_DIM_H
#define TC_AST_DIM_H

#include <stddef.h>
#include <stdint.h>

#include "ast/contraction.h"

typedef struct tc_dim {
    int n;                  /* its indices; 0: no dimension (an unused BLAS one) */
    int index[TC_MAX_RANK]; /* positions in tc_contraction.index, in the
                               tensors' order (index[0] has the smallest stride) */
    int64_t extent;         /* the product of their sizes (0 without sizes) */
    int64_t stride[3];      /* per tensor (TC_C, TC_A, TC_B): in elements; 0
                               where the tensor does not hold it or without sizes */
} tc_dim;

/* The dimension of the n indices index[0..n) of c, in that order (n 0: no
 * dimension). Asserts that they lie next to each other, in that order,
 * with consistent strides, in every tensor holding the first. */
tc_dim tc_dim_make(const tc_contraction *c, const int *index, int n);
/* The dimension of the one index i of c. */
tc_dim tc_dim_one(const tc_contraction *c, int i);

/* 1 when d holds index i. */
int tc_dim_holds(const tc_dim *d, int i);
/* 1 when a and b hold the same indices in the same order. */
int tc_dim_same(const tc_dim *a, const tc_dim *b);
/* The index d starts with in every tensor holding it (the one with the
 * smallest stride): where it lies in a tensor's layout; -1 for none. */
int tc_dim_start(const tc_dim *d);
/* The role of d's indices (all share one). */
tc_role tc_dim_role(const tc_contraction *c, const tc_dim *d);

/* Writes d's name: its index ("b"), a group in parentheses ("(bc)", the
 * names joined with '.' when `dotted`, as algorithm names do), or "-" for
 * none. snprintf semantics. */
size_t tc_dim_format(const tc_contraction *c, const tc_dim *d, int dotted, char *buf,
                     size_t n);

#endif
