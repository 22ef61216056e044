/*
 * type.h - the element type table: one row per type tcgen computes in
 * (float, double, float complex, double complex), BLAS's s, d, c and z.
 *
 * Everything that depends on the type reads its row here (bytes, names in
 * C and Fortran, the precision a test may ask for); the kernel table names
 * each kernel's BLAS routine per type (ast/kernel.h). A contraction carries
 * its type (tc_contraction.type); double is the zero value, so a
 * contraction built without one is double as before.
 */
#ifndef TC_AST_TYPE_H
#define TC_AST_TYPE_H

#include <stdint.h>

typedef enum tc_type {
    TC_TYPE_D = 0, /* double: the default (a zeroed contraction is double) */
    TC_TYPE_S,     /* float */
    TC_TYPE_Z,     /* double complex */
    TC_TYPE_C,     /* float complex */
    TC_TYPE_COUNT
} tc_type;

typedef struct tc_type_row {
    char letter;            /* 'd': BLAS's prefix and the --type value */
    const char *c_name;     /* "double complex": the element in C99 */
    const char *real_name;  /* "double": its real part's C type */
    const char *fortran;    /* "complex(c_double_complex)" */
    const char *fortran_kind; /* "c_double_complex": its iso_c_binding kind */
    int bytes;              /* of one element */
    int is_complex;         /* 1: two reals per element */
    int reals;              /* reals per element: 1, or 2 for complex */
    int real_bytes;         /* bytes of one real: 4 (float) or 8 (double) */
    double epsilon;         /* of the real part: tests' error bounds */
} tc_type_row;

/* Indexed by tc_type. */
extern const tc_type_row tc_type_table[TC_TYPE_COUNT];

/* The row of type t (the double row when t is out of range). */
const tc_type_row *tc_type_row_of(tc_type t);

/* The type whose letter is c ('s', 'd', 'c', 'z', either case), or -1. */
int tc_type_from_letter(char c);

/* The 8-byte words n elements of type t take (rounded up): what to ask of
 * allocators counted in doubles (tc_rt_alloc). */
int64_t tc_type_words(tc_type t, int64_t n);

/* Real flops of one multiply-add counted as 2 (1 real, 4 complex). */
double tc_type_flop_factor(tc_type t);

#endif
