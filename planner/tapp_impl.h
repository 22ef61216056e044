/*
 * tapp_impl.h - tcgen's TAPP objects (include/tapp.h), shared by
 * tapp_objects.c (errors, handles, executors, statuses, tensor infos) and
 * tapp_product.c (products: planned by tcgen, executed by the plan).
 * docs/tapp.md says what is supported and how each case is mapped.
 */
#ifndef TC_PLANNER_TAPP_IMPL_H
#define TC_PLANNER_TAPP_IMPL_H

#include <stdint.h>

#include "tapp.h"

/* tcgen's TAPP error codes: 0 is success (the standard); 1-14 are the
 * conditions TAPP's reference implementation detects, with its numbers
 * (TAPP's test program checks them); 100 up are tcgen's own. */
enum {
    TC_TAPP_OK = 0,
    TC_TAPP_EEXTENT_AB = 1,   /* an index of A and B, two extents */
    TC_TAPP_EEXTENT_AD = 2,   /* ... of A and D */
    TC_TAPP_EEXTENT_BD = 3,   /* ... of B and D */
    TC_TAPP_ED_ALONE = 4,     /* an index of D in neither A nor B */
    TC_TAPP_ECD_NMODE = 5,    /* C and D: other numbers of modes */
    TC_TAPP_ECD_INDEX = 6,    /* ... other indices */
    TC_TAPP_ECD_EXTENT = 7,   /* ... other extents */
    TC_TAPP_EALIAS = 8,       /* two elements of D at one address */
    TC_TAPP_EREPEAT_A = 9,    /* an index twice in A, two extents */
    TC_TAPP_EREPEAT_B = 10,   /* ... in B */
    TC_TAPP_EREPEAT_D = 11,   /* ... in D */
    TC_TAPP_ENULL_C = 12,     /* C NULL with beta not 0 */
    TC_TAPP_ENEG_NMODE = 13,  /* a negative number of modes */
    TC_TAPP_ENEG_EXTENT = 14, /* a negative extent */
    TC_TAPP_EARGUMENT = 100,  /* a NULL pointer or a handle that is not one */
    TC_TAPP_EUNSUPPORTED,     /* a type or precision tcgen lacks yet */
    TC_TAPP_EMEMORY,          /* out of memory */
    TC_TAPP_EPLAN             /* tcgen could not plan the product */
};

/* Sets the calling thread's last error: its code and what went wrong,
 * which TAPP_explain_error adds to the code's meaning; returns code. */
TAPP_error tc_tapp_fail(TAPP_error code, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;

#define TC_TAPP_MAX_MODES 32 /* per tensor; a plan takes at most 8 (tcgen.h) */

typedef struct tc_tapp_info {
    uint32_t magic;
    TAPP_datatype type;
    int nmode;
    int64_t extent[TC_TAPP_MAX_MODES];
    int64_t stride[TC_TAPP_MAX_MODES];
} tc_tapp_info;

/* The info behind a handle value, or NULL (after setting the error) when
 * it is not one; `which` names it in the message ("A", "info"). */
const tc_tapp_info *tc_tapp_info_of(TAPP_tensor_info info, const char *which);

/* ---- products (tapp_product.c makes them, tapp_execute.c runs them) ------ */

enum { TC_TAPP_A, TC_TAPP_B, TC_TAPP_C, TC_TAPP_D };

/* One tensor as the plan sees it: its distinct indices (plan modes) in
 * the plan's order, each with the stride the user's data has along it (the
 * sum of the strides of its modes: a repeated index is a diagonal), and
 * the indices it alone has (summed out before the plan runs). */
typedef struct tc_tapp_tensor {
    int nmode;                               /* the user's modes */
    int64_t extent[TC_TAPP_MAX_MODES], stride[TC_TAPP_MAX_MODES];
    int label[TC_TAPP_MAX_MODES];            /* each mode's index */
    int nplan;                               /* the plan's modes, in its order */
    int plan_label[TC_TAPP_MAX_MODES];
    int64_t plan_stride[TC_TAPP_MAX_MODES];
    int nsum;                                /* indices summed out */
    int sum_label[TC_TAPP_MAX_MODES];
    int64_t sum_stride[TC_TAPP_MAX_MODES];
    int direct;  /* the plan reads or writes the user's data where it lies */
    int64_t elements;                        /* of the plan's (dense) tensor */
} tc_tapp_tensor;

typedef struct tc_tapp_product {
    uint32_t magic;
    TAPP_error error;        /* a product refused at creation: its error */
    TAPP_datatype type;      /* of all four tensors, and the plan's */
    unsigned type_flags;     /* the plan's (TC_SINGLE, TC_COMPLEX) */
    int64_t bytes;           /* of one element */
    TAPP_element_op op[4];   /* conjugations (complex types only) */
    tc_tapp_tensor t[4];
    int nlabel;
    int64_t index[4 * TC_TAPP_MAX_MODES]; /* each label's value in the idx arrays */
    int64_t size[4 * TC_TAPP_MAX_MODES];  /* each index's extent */
    int empty;               /* an extent 0: D = beta C, or nothing */
    int elementwise;         /* every index left in A and B (after the sums) is in
                                both and in D: no BLAS kernel applies, D = alpha A B
                                + beta C element by element */
    struct tc_plan *plan;
} tc_tapp_product;

#define TC_TAPP_PRODUCT_MAGIC 0x70726f64u /* "prod" */

/* The checks of TAPP_create_tensor_product and the mapping of the four
 * tensors onto a contraction (each tensor's plan modes, strides, summed
 * indices and `direct`) into p (zeroed), without planning: a product's
 * creation, and `tcgen list` and `explain`, which show the mapping. */
TAPP_error tc_tapp_map(tc_tapp_product *p, const tc_tapp_info *const info[4],
                       const TAPP_element_op op[4], TAPP_prectype prec,
                       const int64_t *const idx[4]);

/* Part `part` (0 real, 1 imaginary: 0 for real types) of element off of
 * data x of `type`, as a double. */
double tc_tapp_load(TAPP_datatype type, const void *x, int64_t off, int part);

/* The dense temporary of t's plan modes (first fastest) from the user's
 * data x, in its type: each element summed over t's summed-out indices,
 * its imaginary part times conj (-1 conjugates). */
void tc_tapp_pack(const tc_tapp_tensor *t, const int64_t *size, TAPP_datatype type,
                  const void *x, double conj, void *out);

/* Along each of D's plan modes, the stride of operand t (0 where it lacks
 * the index): its own where the data is used in place, else its packed
 * copy's (dense, first plan mode fastest). */
void tc_tapp_strides_along_d(const tc_tapp_product *p, const tc_tapp_tensor *t, int64_t *s);

/* No index contracted (a Hadamard product): T = A B element by element,
 * dense in D's plan order, in the product's type. */
void tc_tapp_elementwise(const tc_tapp_product *p, const void *a, const void *b, void *T);

/* D = op_D(alpha T + beta op_C(C)) over D's plan modes, in D's type (T
 * dense in their order, in that type; NULL: 0); alpha and beta are (real,
 * imaginary); beta 0 does not read C. */
void tc_tapp_store(const tc_tapp_product *p, const void *T, const double *alpha,
                   const double *beta, const void *C, void *D);

#endif
