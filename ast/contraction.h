/*
 * contraction.h - the contraction IR: C = alpha * A * B + beta * C.
 *
 * A tc_contraction is a plain value (no pointers, no heap): copy it, compare
 * it, hash it. Index numbers are positions in index[], in order of first
 * appearance in C, then A, then B. Storage is column-major: a tensor's first
 * index has stride 1. Sizes are 0 until tc_contraction_set_sizes() gives them.
 * Once built by the parser, a contraction is never modified in place;
 * functions that "change" one write a new value.
 */
#ifndef TC_AST_CONTRACTION_H
#define TC_AST_CONTRACTION_H

#include <stddef.h>
#include <stdint.h>

#include "ast/type.h"
#include "tcgen.h"

#define TC_MAX_INDICES 16 /* distinct indices in one contraction */
#define TC_MAX_RANK 8     /* indices of one tensor               */
#define TC_NAME_MAX 32    /* bytes of an index or tensor name, with NUL */

enum { TC_C = 0, TC_A = 1, TC_B = 2 }; /* positions in tc_contraction.tensor */

typedef enum tc_role {
    TC_ROLE_FREE_A,     /* in A and C, not B */
    TC_ROLE_FREE_B,     /* in B and C, not A */
    TC_ROLE_CONTRACTED, /* in A and B, not C */
    TC_ROLE_BATCH       /* in A, B and C (always looped) */
} tc_role;

typedef struct tc_index {
    char name[TC_NAME_MAX];
    tc_role role;
    int64_t size; /* 0 = not given yet */
    int line, column; /* first appearance in the source text */
} tc_index;

typedef struct tc_tensor {
    char name[TC_NAME_MAX];
    int rank;                   /* 0 for a scalar */
    int index[TC_MAX_RANK];     /* positions in tc_contraction.index */
    int64_t stride[TC_MAX_RANK];/* in elements; valid once sizes are set */
    int64_t elements;           /* product of sizes (1 for a scalar) */
    int64_t span;               /* elements from its first to one past its
                                   last: `elements` unless strided (a tile) */
    int line, column;           /* of the tensor's name */
    int index_line[TC_MAX_RANK], index_column[TC_MAX_RANK];
} tc_tensor;

typedef struct tc_contraction {
    tc_tensor tensor[3];        /* TC_C, TC_A, TC_B */
    int nindex;
    tc_index index[TC_MAX_INDICES];
    double alpha;               /* scalar factor, 1 if none given */
    double beta;                /* 0 for '=', 1 for '+=' */
    double alpha_im, beta_im;   /* their imaginary parts (complex types;
                                   0 from the parser) */
    tc_type type;               /* of every element: double unless set
                                   (tc_contraction_set_type) */
    int has_sizes;              /* 1 once every index has a size */
} tc_contraction;

/* A list of name=size assignments, as read from a SIZES argument or file. */
#define TC_MAX_SIZES 64
typedef struct tc_size_entry {
    char name[TC_NAME_MAX];
    int64_t size;
    int line, column;
} tc_size_entry;

typedef struct tc_sizes {
    int count;
    tc_size_entry entry[TC_MAX_SIZES];
} tc_sizes;

/* Returns the position of index `name` in c->index, or -1. */
int tc_contraction_find_index(const tc_contraction *c, const char *name);

/* 1 if tensor t (TC_C/TC_A/TC_B) has index position i, else 0. */
int tc_tensor_has_index(const tc_tensor *t, int i);

/*
 * Checks the structure (roles, repeats, distinct names, limits) of a
 * contraction whose tensors and index names are filled, and assigns each
 * index its role. Located errors use the positions stored in *c.
 */
tc_status tc_contraction_validate(tc_contraction *c, tc_error *err);

/*
 * Gives every index its size from *sizes and computes strides and element
 * counts. Errors (exit code 1): an index without a size, a tensor whose
 * bytes overflow 63 bits, and a size for an index the contraction does not
 * use (often a typo for another index), located at the size. The caller
 * that accepts such sizes passes `warning`: the first of them is reported
 * there instead (code TC_OK when there is none). *out may alias *c.
 */
tc_status tc_contraction_set_sizes(const tc_contraction *c,
                                   const tc_sizes *sizes,
                                   tc_contraction *out, tc_error *err,
                                   tc_error *warning);

/*
 * Gives tensor t (TC_C, TC_A, TC_B) of *c, sizes set, the strides of a view
 * into a larger array, one per index in the tensor's order, in elements:
 * the first 1, each at least the one before times that index's size
 * (column-major with gaps between columns, as a tile of a column-major
 * array lies), so that every algorithm stays a loop nest around BLAS calls
 * whose leading dimensions are these strides. Dense strides give the
 * tensor back as it was. Errors (TC_EINPUT): a stride out of that order,
 * named with its index; a span whose bytes overflow.
 */
tc_status tc_contraction_set_strides(tc_contraction *c, int t, const int64_t *stride,
                                     tc_error *err);

/* 1 when some tensor of c has strides other than its dense ones. */
int tc_contraction_strided(const tc_contraction *c);

/*
 * Row-major (C order) storage as tcgen's column-major model: the row-major
 * tensor X[i,j,k] is the column-major X[k,j,i], so *out is *c with every
 * tensor's index list reversed (strides recomputed when sizes are set;
 * index numbers, roles and sizes unchanged). Applying it twice gives *c back.
 * *out may alias *c.
 */
void tc_contraction_transpose(const tc_contraction *c, tc_contraction *out);

/*
 * The contraction as its structure alone, for wisdom: the tensors named
 * C, A, B, the indices a, b, c, ... in the order they first appear in C,
 * then A, then B, a factor other than 0 taken as 1 (it scales the result,
 * not the work). R[a,b,i,j] += T[a,e,i,m] * W[m,b,e,j] and X[p,q,r,s] +=
 * -0.5 * Y[p,t,r,u] * Z[u,q,t,s] are both C[a,b,c,d] += A[a,e,c,f] *
 * B[f,b,e,d]. Only names change: index numbers, roles, sizes and strides
 * are *c's, so the algorithms of *out are *c's under other names, in the
 * same order of enumeration. 0 (and *out untouched) when c's index
 * numbers are not in that order of first appearance (the parser's are).
 */
int tc_contraction_canonical(const tc_contraction *c, tc_contraction *out);

/* Bytes tensor t (TC_C, TC_A, TC_B) of c spans in memory (its span times
 * the type's element bytes). Sizes must be set. */
int64_t tc_tensor_bytes(const tc_contraction *c, int t);

/*
 * Makes c's elements of type `type` (float, double, complex): before or
 * after sizes and strides, which are in elements whatever the type. With
 * sizes set, TC_EINPUT when a tensor's bytes overflow in that type.
 */
tc_status tc_contraction_set_type(tc_contraction *c, tc_type type, tc_error *err);

/* Real floating-point operations of the contraction, 2 * prod(all sizes)
 * (four times that in a complex type: a complex multiply-add is 8). */
double tc_contraction_flops(const tc_contraction *c);

/*
 * Writes the normal form, e.g. "C[a,b,c] = A[a,i] * B[i,b,c]",
 * "C[a,b] += 0.5 * A[a,i] * B[i,b]", "C[] = A[i] * B[i]", into buf
 * (snprintf semantics: returns the length it needed).
 */
size_t tc_contraction_format(const tc_contraction *c, char *buf, size_t n);

/* Writes "a=400,b=400,..." in index order (needs sizes). */
size_t tc_contraction_format_sizes(const tc_contraction *c, char *buf,
                                   size_t n);

/* 64-bit FNV-1a hash of the normal form and the sizes. */
uint64_t tc_contraction_hash(const tc_contraction *c);

/* "free_a", "free_b", "contracted", "batch". */
const char *tc_role_name(tc_role r);

#endif
