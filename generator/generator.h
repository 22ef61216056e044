/*
 * generator.h - every algorithm of a contraction (docs/design.md §4), and C99
 * emission of one of them.
 *
 * Enumeration. For each kernel in the mask, each choice of kernel indices
 *   ddot  one contracted k            daxpy one free f (of A or B)
 *   dgemv one free f and one k        dger  one f_A and one f_B
 *   dgemm f_A, f_B and one k
 * and each order of the remaining (looped) indices, one algorithm. Batch
 * indices (in A, B and C) are always looped. Transposition flags follow from
 * storage. A matrix slice whose tensor's first index is not kept is copied
 * into a temporary just inside the innermost loop it depends on; an output
 * slice that needs a copy is copied in before the kernel (inside that loop)
 * and copied back after it, so the kernel accumulates into the temporary.
 *
 * Names: looped indices outer to inner, an apostrophe after each loop whose
 * body holds a copy, '-', the kernel: "ca-dgemv", "i'-dgemv", "i'c-dgemm".
 * When any index of the contraction has a name longer than one character,
 * the looped names are joined with '.': "i1.j2'-dgemm". An algorithm with no
 * loops is named by its kernel alone: "dgemm" (C[a,b] = A[a,i] * B[i,b]).
 * (A copy before all loops would put a leading apostrophe, "'-dgemm"; it
 * cannot occur: a slice that needs a copy always has a looped first index.)
 *
 * Order of a set: by kernel (dgemm, dger, dgemv, daxpy, ddot), then by name
 * (strcmp).
 *
 * Sizes larger than int. BLAS takes int dimensions, leading dimensions and
 * increments. With sizes set, an algorithm whose BLAS arguments do not all
 * fit in an int is still listed but marked: tc_algorithm.fits_int = 0 and
 * tc_algorithm.why says which argument; tc_rt_execute and tc_emit_c refuse
 * it with TC_EINPUT. Callers that choose an algorithm skip such ones.
 */
#ifndef TC_GENERATOR_H
#define TC_GENERATOR_H

#include <stdint.h>
#include <stdio.h>

#include "ast/algorithm.h"
#include "ast/contraction.h"

/* Enumeration refuses (TC_EINPUT) contractions with more algorithms than
 * this in the requested kernels and families (counted first, nothing
 * built); tc_gen_enumerate_bounded builds a stated subset instead. */
#define TC_GEN_MAX_ALGORITHMS 100000 /* about 2 KiB each */

/*
 * All algorithms of *c that use a kernel in kernel_mask (bits 1u << tc_kernel;
 * TC_KERNEL_MASK_ALL for all), sorted as above. c must be validated; sizes
 * are optional. On success *out is a new set (possibly empty) that the
 * caller frees with tc_alg_set_free(); on failure *out is NULL.
 * Errors: TC_EINPUT (too many algorithms), TC_ERESOURCE (out of memory).
 */
tc_status tc_gen_enumerate(const tc_contraction *c, unsigned kernel_mask,
                           tc_algorithm_set **out, tc_error *err);

/*
 * tc_gen_enumerate over the candidate families in family_mask (bits
 * 1u << tc_family). The fused family: every choice where at least one
 * kernel dimension is a group of indices of one role that lie next to each
 * other, in the same order, in both tensors holding them, and no slice
 * needs a copy. Named like the paper's, with each group in parentheses
 * after the loops: "(bc)-dgemm", "c(ab)-dgemv". The permuted family: for
 * each set of tensors, each permuted whole into a temporary laid out in
 * blocks (A: free-A, contracted, batch; B: contracted, free-B, batch; C:
 * free-A, free-B, batch; a role's indices in the order of a tensor that
 * keeps its layout), the dgemms whose three dimensions take every index of
 * their role, looped over the batch indices; named by the permuted
 * tensors, then the loops: "A^C^-dgemm", "A^z-dgemm". Inputs are permuted
 * before all loops, C after them (C = T + beta * C). (tc_gen_enumerate is
 * the paper's family alone.)
 */
tc_status tc_gen_enumerate_families(const tc_contraction *c, unsigned kernel_mask,
                                    unsigned family_mask, tc_algorithm_set **out,
                                    tc_error *err);

/*
 * The candidates of each class (family f, kernel k) of *c that
 * kernels_of[f] (bits 1u << tc_kernel) asks for, counted without building
 * any: count[f][k] is the number tc_gen_enumerate_classes builds.
 */
void tc_gen_count_classes(const tc_contraction *c, const unsigned kernels_of[TC_FAMILY_COUNT],
                          uint64_t count[TC_FAMILY_COUNT][TC_KERNEL_COUNT]);
/* Their sum (UINT64_MAX when it does not fit). */
uint64_t tc_gen_classes_total(uint64_t count[TC_FAMILY_COUNT][TC_KERNEL_COUNT]);

/* The algorithms of the classes kernels_of asks for, however many (the
 * caller bounds them), sorted as tc_gen_enumerate's. Errors: TC_ERESOURCE. */
tc_status tc_gen_enumerate_classes(const tc_contraction *c,
                                   const unsigned kernels_of[TC_FAMILY_COUNT],
                                   tc_algorithm_set **out, tc_error *err);

/* What tc_gen_enumerate_bounded built. */
typedef struct tc_gen_subset {
    uint64_t candidates; /* every kernel of the families asked for */
    int partial;         /* 1: the set holds only some of them, ... */
    char which[96];      /* ... these: "the dgemm-based families" */
} tc_gen_subset;

/*
 * Every algorithm of the families in family_mask, every kernel, when there
 * are at most `bound`; else, without building the others, the classes in
 * this order while their sum stays within the bound: the fused dgemms, the
 * permuted dgemms, the paper's dgemms, then per kernel (dger, dgemv, daxpy,
 * ddot) its paper and fused algorithms; *sub says which (docs/design.md
 * §3.2). The main job and tc_plan_create rank this set. Errors: TC_EINPUT
 * (even the fused dgemms are more than the bound; the message names no
 * option), TC_ERESOURCE.
 */
tc_status tc_gen_enumerate_bounded(const tc_contraction *c, unsigned family_mask, int bound,
                                   tc_algorithm_set **out, tc_gen_subset *sub, tc_error *err);

/*
 * One algorithm of tc_gen_enumerate_bounded's set, built alone: the one
 * named `name`, or with name NULL the one whose serial (tc_algorithm.serial,
 * its place in the order of enumeration) is `serial`. *out is a set
 * holding it, with the serial it has in the whole set, or an empty set
 * when the whole set has none such; *sub as tc_gen_enumerate_bounded's.
 * The others are numbered past, none built (by name each is named), so a
 * plan from wisdom costs a small part of an enumeration. Errors as
 * tc_gen_enumerate_bounded's.
 */
tc_status tc_gen_find_bounded(const tc_contraction *c, unsigned family_mask, int bound,
                              const char *name, int serial, tc_algorithm_set **out,
                              tc_gen_subset *sub, tc_error *err);

/*
 * The threaded candidates (docs/design.md §4): for each algorithm of set
 * whose outermost loop can be split over `threads` >= 2 threads
 * (tc_alg_splittable), that algorithm split so, named "NAME@P", appended
 * to the set (its serial continues the set's, so a renamed contraction's
 * set matches it algorithm for algorithm). Nothing without sizes or with
 * threads < 2. Errors: TC_ERESOURCE.
 */
tc_status tc_gen_add_threaded(tc_algorithm_set *set, const tc_contraction *c, int threads,
                              tc_error *err);

/* The algorithm of set named `name`; for "NAME@P", NAME split over P
 * threads (made in set's arena) where its loop can be split. NULL when
 * there is none (or out of memory). */
const tc_algorithm *tc_gen_find(tc_algorithm_set *set, const tc_contraction *c,
                                const char *name);

/* The number of algorithms with kernel k in the families of family_mask
 * (bits 1u << tc_family), by each family's row (generator/family.c): the
 * paper's closed form (docs/design.md §4), the others counted without
 * building any. */
uint64_t tc_gen_count(const tc_contraction *c, unsigned family_mask, tc_kernel k);

/* "paper", "fused", "permuted" (the family table's names). */
const char *tc_family_name(tc_family f);

/*
 * Parses a comma-separated kernel list ("dgemm,dgemv") into a mask.
 * Errors: TC_EUSAGE naming the bad kernel (or an empty list) and the list
 * as `what` (the caller's name for it: "--kernels").
 */
tc_status tc_gen_parse_kernels(const char *list, const char *what, unsigned *mask,
                               tc_error *err);

/*
 * Writes the list form of an algorithm's loops ("c,i", "-" when none) and
 * copies ("A@i,B@c"; "A@-" before all loops; "A^" a whole tensor
 * permuted; "-" when none). snprintf semantics.
 */
size_t tc_gen_format_loops(const tc_algorithm *alg, const tc_contraction *c,
                           char *buf, size_t n);
size_t tc_gen_format_copies(const tc_algorithm *alg, const tc_contraction *c,
                            char *buf, size_t n);

/* Writes the summary of a set, "36 algorithms: dgemm 2, dger 4, dgemv 6,
 * daxpy 18, ddot 6" (kernels in set order). snprintf semantics. */
size_t tc_gen_format_summary(const tc_algorithm_set *s, char *buf, size_t n);
/* The same per family: "families: paper 36, fused 5, permuted 0". */
size_t tc_gen_format_families(const tc_algorithm_set *s, char *buf, size_t n);

/* Parses a family choice: "paper" (the dissertation's family) or "all"
 * into a family mask. Errors: TC_EUSAGE naming the choices and the choice
 * as `what` (the caller's name for it: "--family"). */
tc_status tc_gen_parse_family(const char *name, const char *what, unsigned *mask,
                              tc_error *err);

/* Options of tc_emit_c. Zero-initialise, then set what you need. */
typedef struct tc_emit_options {
    const char *function;     /* function name; NULL = "contraction" */
    const char *command_line; /* recorded in the header comment; NULL = none */
    int no_header;            /* 1: omit the header comment and #includes
                                 (for several functions in one file) */
    int generic;              /* 1: sizes are parameters, one size_t per index
                                 in index order, before A, B, C */
    int row_major;            /* 1: c is the tc_contraction_transpose of the
                                 user's row-major contraction; comments show
                                 the user's form */
    const char *notes;        /* more header lines ('\n' separated): the
                                 ranking, BLAS, machine; NULL = none */
    int keep_temporaries;     /* 1: the file defines TCGEN_KEEP_TEMPORARIES:
                                 tensor-sized temporaries kept between calls
                                 (default: allocated per call) */
    int strides;              /* 1: the tensors are views whose strides are
                                 parameters, `const long *stride_X` after
                                 each tensor X (required by generic code of
                                 a strided contraction, whose strides are
                                 otherwise constants) */
} tc_emit_options;

/*
 * Checks a name for the emitted function (NULL: the default, "contraction"):
 * a C identifier starting with a letter, at most 63 characters, not a
 * keyword, not a name the emitted code uses (A, B, C, alpha, beta, pos,
 * N_..., n_..., ix_..., tmp..., stride_..., sA_..., sB_..., sC_...) and not
 * one its headers declare (the C library's, cblas..., ..._t). Cheap:
 * callers check --function before any work. Errors: TC_EUSAGE saying why.
 */
tc_status tc_gen_check_function_name(const char *name, tc_error *err);

/*
 * Writes alg as a standalone C99 file into out: a header comment, #include
 * <cblas.h> and <stdlib.h> (and <complex.h> for a complex type), and one
 * function
 *     int NAME(const T *A, const T *B, T *C)
 * in the contraction's element type T (double, float, float complex,
 * double complex: c->type, which must be alg->type; the CBLAS routines of
 * that type, complex scalars with alpha_im and beta_im) that returns 0, or
 * -1 when a temporary cannot be allocated. With
 * opt->generic the sizes are parameters instead of constants,
 *     int NAME(size_t a, size_t b, ..., const double *A, ...)
 * valid for any sizes (0 included), returning -2 when one makes a BLAS int
 * argument overflow. A strided contraction (views, tc_contraction_strided)
 * is addressed through its strides, written as constants; with
 * opt->strides they are parameters,
 *     int NAME(..., const T *A, const long *stride_A, const T *B,
 *              const long *stride_B, T *C, const long *stride_C)
 * one per index in the tensor's order, in elements, and the function
 * returns -3 when they are not a view tcgen takes (the first 1, each at
 * least the one before times its size) or leave a gap between indices the
 * algorithm fuses into one BLAS dimension. A parameter or loop variable takes its index's name
 * when that is usable in C, else n_NAME (parameter) or ix_NAME (variable);
 * sizes are N_NAME (emit_c.c says which names are usable). Text from the
 * contraction, the command line and the notes is escaped in comments.
 * Numbers are written in the C locale whatever the caller's. c must have
 * sizes (for the header; generic code does not depend on them). Errors:
 * TC_EUSAGE (bad function name, no sizes, alg of another type than c,
 * row-major views, generic code of a strided contraction without
 * opt->strides),
 * TC_EINPUT (alg->fits_int == 0, unless generic), TC_ERESOURCE (out of
 * memory, write error on out). Several functions in one file (no_header):
 * the caller includes <complex.h> for complex ones, and puts float and
 * complex functions that permute before double ones (their permutation
 * kernel's typed part is kept out once the double one is in; the file
 * says so with an #error).
 */
tc_status tc_emit_c(const tc_algorithm *alg, const tc_contraction *c,
                    const tc_emit_options *opt, FILE *out, tc_error *err);

/*
 * Checks --function NAME (NULL: "contraction") for tc_emit_fortran: as
 * tc_gen_check_function_name, short enough for the module name
 * NAME_interface (63 characters), and not a name the module uses (the
 * kinds, the intrinsics size, int, present, trim, error_unit, the
 * wrapper's tcgen_* helpers). Errors: TC_EUSAGE saying why.
 */
tc_status tc_emit_fortran_check(const char *function, tc_error *err);

/*
 * Writes the Fortran 2008 interface of the function tc_emit_c writes for
 * the same alg, c and opt (function, generic, row_major, command_line):
 *     module NAME_interface
 *       interface
 *         function NAME(n_a, ..., A, B, C) result(rc) bind(C, name="NAME")
 * with the sizes (generic) as integer(c_size_t), value dummies named
 * n_INDEX; the arrays as dummies of the element type (real(c_double),
 * real(c_float), complex(c_double_complex), complex(c_float_complex))
 * named after the contraction's tensors, intent(in) for the inputs and
 * intent(inout) for the output, explicit-shape in storage order (a
 * row-major tensor's indices reversed; rank 8 assumed-size); the result
 * integer(c_int). And
 *       contains
 *         subroutine NAME_checked(n_a, ..., A, B, C, stat, errmsg)
 * with default integer sizes and assumed-shape arrays in the same storage
 * order, which refuses a negative size or an extent that is not its
 * index's size with a message naming the function, the array, the
 * dimension and the index (error stop, or the optional stat and errmsg;
 * emit_fortran_checked.c). Names that clash in Fortran (case-insensitive)
 * get _2, _3, ... Errors: TC_EUSAGE (tc_emit_fortran_check, no sizes,
 * views: a strided contraction or opt->strides), TC_ERESOURCE (out of
 * memory, write error on out).
 */
tc_status tc_emit_fortran(const tc_algorithm *alg, const tc_contraction *c,
                          const tc_emit_options *opt, FILE *out, tc_error *err);

/* Writes the #include lines of an emitted file (cblas.h, with BLIS's unused
 * static helpers silenced, and stdlib.h): for callers that put several
 * functions (no_header = 1) into one file. */
void tc_emit_includes(FILE *out);

#endif
