/*
 * algorithm.h - one algorithm for a contraction: a loop nest around one BLAS
 * kernel, with copies into contiguous temporaries where a matrix slice has no
 * stride-1 dimension (docs/design.md §4).
 *
 * The AST has four node kinds:
 *   LOOP     for (index = 0; index < extent; index++) { body }
 *   COPY     gather a tensor slice into a temporary (TC_COPY_IN), or scatter
 *            a temporary back into the output slice (TC_COPY_OUT)
 *   PERMUTE  permute a tensor (or its block) into a temporary of another
 *            layout (TC_COPY_IN), or a temporary back into C (TC_COPY_OUT,
 *            C = T + beta * C): the permuted family
 *   KERNEL   one BLAS call (ddot, daxpy, dgemv, dger, dgemm)
 * A loop's body is a list of children (child, then next, next, ...): the
 * copies-in it holds, then the inner loop or the kernel, then the copies-out.
 * Every node has a parent pointer (NULL at top level), so the analyzer can
 * walk up from the kernel; the algorithm also keeps the loop nest as an
 * ordered array (loop_node[], outer to inner) and the copies and
 * permutations as an array (copy_node[]).
 *
 * Operands. Every kernel argument and every copy source is a tc_operand: a
 * base (tensor A, B, C or a temporary) plus an offset that is an affine
 * function of the enclosing loop indices, offset = sum dep_stride[d] *
 * value(dep[d]), and kept dimensions (0 scalar, 1 vector, 2 matrix): each
 * a kernel dimension (ast/dim.h, a fused group is one dimension) with the
 * extent and stride in elements it has in this base. For a matrix, dim[0]
 * is the stride-1 dimension and ld = stride[1] is the leading dimension;
 * for a vector, ld = stride[0] is the BLAS increment.
 *
 * A copied operand appears twice: the kernel's argument has base = the
 * temporary (column-major, dims in the tensor's order, no deps), and the
 * COPY node (alg->copy_node[], same temp) holds the tensor slice with its
 * deps and strides. An output slice that is copied has a TC_COPY_IN node
 * before the kernel and a TC_COPY_OUT node after it, in the same loop body.
 *
 * Without sizes (tc_contraction.has_sizes == 0) extents and strides are 0;
 * names, loops, copies and operand structure are still right.
 *
 * Memory: every node, operand and name lives in the arena of the
 * tc_algorithm_set that holds the algorithm; tc_alg_set_free() frees all.
 */
#ifndef TC_AST_ALGORITHM_H
#define TC_AST_ALGORITHM_H

#include <stdint.h>
#include <stdio.h>

#include "ast/contraction.h"
#include "ast/dim.h"
#include "ast/kernel.h"

/* Operand bases: the contraction's tensors TC_C, TC_A, TC_B (0..2), or the
 * temporary t as TC_BASE_TEMP + t. */
#define TC_BASE_TEMP 3
#define TC_MAX_TEMPS 3
/* The most threads a loop is split over (tc_algorithm.split). */
#define TC_MAX_SPLIT 256

typedef struct tc_operand {
    int base;           /* TC_C, TC_A, TC_B, or TC_BASE_TEMP + temp */
    int tensor;         /* the contraction tensor this stands for (TC_A..) */
    int rank;           /* kept dimensions: 0 scalar, 1 vector, 2 matrix */
    tc_dim dim[2];      /* kept dimensions; dim[0] has stride 1 for a matrix */
    int64_t extent[2];  /* their extents here (0 without sizes; a timed
                           slab's may be cut below the dimension's) */
    int64_t stride[2];  /* their strides in the base, in elements */
    int64_t ld;         /* matrix: stride[1]; vector: stride[0]; scalar: 0 */
    int ndep;           /* looped indices the offset depends on */
    int dep[TC_MAX_RANK];          /* their index positions, in the base's order */
    int64_t dep_stride[TC_MAX_RANK];
} tc_operand;

typedef enum { TC_NODE_LOOP, TC_NODE_COPY, TC_NODE_PERMUTE, TC_NODE_KERNEL } tc_node_kind;

typedef struct tc_temp {
    int tensor;          /* the tensor whose slice or permutation it holds */
    tc_node_kind filled_by; /* TC_NODE_COPY: a slice; TC_NODE_PERMUTE: a
                            permuted tensor, or in the blocked variant its
                            block below the loops */
    int rank;            /* a permuted one: its indices in order[0..rank) */
    int order[TC_MAX_RANK];
    int dim[2];          /* a slice's two index positions, column-major */
    int64_t extent[2];
    int64_t elements;    /* a slice: extent[0] * extent[1]; a permuted
                            one: its elements (0 without sizes) */
} tc_temp;

typedef enum { TC_COPY_IN, TC_COPY_OUT } tc_copy_dir;

/* Two views of one geometry: a rank-n strided view copied into another of
 * the same extents (runtime/permute.h runs it): per dimension, the extent
 * and the strides in elements on the tensor's side (the source view) and
 * on the temporary's (the destination view). */
typedef struct tc_permute {
    int rank;                           /* 0..TC_MAX_RANK (0: one element) */
    int64_t extent[TC_MAX_RANK];
    int64_t src_stride[TC_MAX_RANK];    /* the tensor's side */
    int64_t dst_stride[TC_MAX_RANK];    /* the temporary's side */
} tc_permute;

/*
 * A slice copy (the paper's family): the 2-D slice of a matrix operand with
 * no unit stride, gathered into a column-major temporary just inside the
 * innermost loop it depends on and, for C, scattered back after the
 * kernel. view is its geometry (two dimensions).
 */
typedef struct tc_copy {
    tc_copy_dir dir;     /* IN: tensor -> temp; OUT: temp -> tensor */
    int temp;            /* which temporary */
    tc_operand slice;    /* the tensor slice (rank 2, with its deps) */
    tc_permute view;
} tc_copy;

/*
 * A permutation (the permuted family): an input permuted into a temporary
 * before all loops (TC_COPY_IN), or C computed in a temporary and
 * permuted back after them (TC_COPY_OUT only: C = T + beta * C), so that
 * the kernel's dimensions lie adjacent; blocked, the same for the block of
 * a tensor under the loops over its last indices, inside the last of
 * them. view is its geometry, its one owner: the tensor's side (source)
 * and the temporary's (destination), each dimension one index of the
 * block in the tensor's order.
 */
typedef struct tc_permutation {
    tc_copy_dir dir;     /* IN: tensor -> temp; OUT: temp -> tensor */
    int temp;            /* which temporary */
    int tensor;          /* which tensor */
    int ndep;            /* the block loops the tensor side's offset depends */
    int dep[TC_MAX_RANK];/* on (none for an entire tensor), as a tc_operand's */
    int64_t dep_stride[TC_MAX_RANK];
    tc_permute view;
    int64_t written;     /* the elements all executions write (all of C; an
                            input's block), which decides the kernel's
                            streaming stores */
} tc_permutation;

/*
 * One BLAS call. arg[] in BLAS argument order; arg[2] is always the output:
 *   ddot : arg0 = x, arg1 = y, arg2 = the C element (scalar) += alpha*x.y
 *   daxpy: arg0 = the scalar factor (element of the other input),
 *          arg1 = x, arg2 = y (C slice)        y += (alpha*arg0) * x
 *   dgemv: arg0 = matrix, arg1 = x, arg2 = y   y += alpha*op(A)*x
 *   dger : arg0 = x, arg1 = y, arg2 = matrix   A += alpha*x*y^T
 *   dgemm: arg0 = A, arg1 = B, arg2 = C        C += alpha*op(A)*op(B)
 * m, n, k are BLAS's dimensions (dgemv: of the stored matrix; ddot/daxpy
 * use n); dim_m/dim_n/dim_k are the kernel dimensions giving them (n = 0:
 * unused).
 * trans_a/trans_b are 1 when BLAS must transpose that argument (dgemv uses
 * trans_a); storage decides them.
 */
typedef struct tc_call {
    tc_kernel kernel;
    tc_type type;       /* of its operands: which BLAS routine (sgemm, zgemm) */
    int trans_a, trans_b;
    int64_t m, n, k;
    tc_dim dim_m, dim_n, dim_k;
    tc_operand arg[3];
} tc_call;

typedef struct tc_node tc_node;
struct tc_node {
    tc_node_kind kind;
    tc_node *parent;    /* enclosing loop, NULL at top level */
    tc_node *next;      /* next node of the same body */
    tc_node *child;     /* LOOP: first node of the body */
    int depth;          /* number of enclosing loops */
    int index;          /* LOOP: index position */
    int64_t extent;     /* LOOP: its size (0 without sizes) */
    tc_copy *copy;      /* COPY */
    tc_permutation *perm; /* PERMUTE */
    tc_call *call;      /* KERNEL */
};

/* Candidate families (docs/design.md §4): the paper's, where every kernel
 * dimension is one index; fused, where a kernel dimension is a group of
 * indices adjacent and in the same order in every tensor it spans; and
 * permuted, where whole operands are permuted into temporaries first so
 * that one dgemm (looped over batch indices) does the contraction. */
typedef enum tc_family {
    TC_FAMILY_PAPER = 0,
    TC_FAMILY_FUSED,
    TC_FAMILY_PERMUTED,
    TC_FAMILY_COUNT
} tc_family;

#define TC_FAMILY_MASK_ALL ((1u << TC_FAMILY_COUNT) - 1u)


typedef struct tc_algorithm {
    const char *name;       /* "i'c-dgemm"; a kernel without loops: "dgemm" */
    int serial;             /* its place in the order of enumeration (before
                               the set is sorted): equal for the algorithms
                               of two contractions that differ in names only */
    tc_kernel kernel;
    tc_family family;
    int nkept;              /* kernel dimensions ... */
    tc_dim kept[3];         /* ... in the kernel row's roles (f_A, f_B, k) */
    int nloops;
    int loop[TC_MAX_INDICES];        /* looped index positions, outer to inner */
    tc_node *loop_node[TC_MAX_INDICES];
    int ncopies;                     /* COPY and PERMUTE nodes (in and out) */
    tc_node *copy_node[2 * TC_MAX_TEMPS];
    int ntemps;
    tc_temp temp[TC_MAX_TEMPS];
    tc_node *body;          /* first top-level node */
    tc_node *kernel_node;
    /* > 1: the outermost loop (loop_node[0], at top level) split over
     * `split` threads, each running its share of the iterations with the
     * kernel on one BLAS thread and its own copies of the temporaries
     * filled inside that loop (ast/split.c); named "NAME@P". 0: one thread
     * runs the loops (BLAS threads inside calls). */
    int split;
    /* Where the split loop is contracted: the elements of each partial C
     * that threads 1..split-1 accumulate into (C's span, in C's layout),
     * added into C after the loop; 0 where it runs over an index of C. */
    int64_t partial;
    tc_type type;           /* of the elements (the contraction's) */
    /* 1 when every BLAS dimension, leading dimension and increment fits in
     * an int (always 1 without sizes). When 0, why[] says which does not,
     * and tc_rt_execute / tc_emit_c refuse the algorithm with TC_EINPUT. */
    int fits_int;
    char why[128];
} tc_algorithm;

typedef struct tc_arena tc_arena;

typedef struct tc_algorithm_set {
    int count;
    tc_algorithm **alg;     /* count pointers, sorted (see generator.h) */
    int capacity;
    tc_arena *arena;
} tc_algorithm_set;

/* An empty set. NULL when out of memory. Free with tc_alg_set_free(). */
tc_algorithm_set *tc_alg_set_new(void);
/* Frees the set, its algorithms and all their nodes; NULL is a no-op. */
void tc_alg_set_free(tc_algorithm_set *s);

/* Zeroed memory from the set's arena (freed with the set); NULL if none. */
void *tc_alg_alloc(tc_algorithm_set *s, size_t bytes);
/* A copy of str in the arena, or NULL. */
char *tc_alg_strdup(tc_algorithm_set *s, const char *str);

/*
 * Beta (docs/design.md §4). The kernel applies the contraction's beta itself
 * when it has one to apply (ddot through the executor's update, dgemv,
 * dgemm) and writes C directly, not a temporary: the calls where every
 * looped contracted index is 0 get beta, the others 1; each element of C
 * is reached first by such a call, since a loop nest visits the contracted
 * values of one element in lexicographic order. Otherwise C is scaled (or
 * zeroed) by a pass before the loops, when beta != 1. A C computed in a
 * temporary and permuted back counts as owned.
 */
int tc_alg_kernel_owns_beta(const tc_algorithm *alg);
/* The beta those first calls apply: the contraction's, or 0 where C is
 * computed in a temporary (the permuted family; the copy back applies
 * the contraction's beta). */
double tc_alg_kernel_beta(const tc_algorithm *alg, const tc_contraction *c);
/* The same as {real, imaginary}: a complex beta (tc_contraction.beta_im). */
void tc_alg_kernel_beta_complex(const tc_algorithm *alg, const tc_contraction *c, double out[2]);
/* 1 when running alg needs that pass over C (beta != 1, not owned). */
int tc_alg_needs_beta_pass(const tc_algorithm *alg, const tc_contraction *c);

/* The bytes all of alg's temporaries take together (what one execution
 * holds at once; INT64_MAX when that overflows). */
int64_t tc_alg_temp_bytes(const tc_algorithm *alg);

/* 1 when all of alg's temporaries together fit in `avail` bytes (always
 * when avail < 0, unknown, or without sizes). An algorithm whose
 * temporaries exceed the workspace budget is not a candidate
 * (planner/rank.c, cli/select.c, cli/cmd_list.c). */
int tc_alg_temps_fit(const tc_algorithm *alg, int64_t avail);

/* How many of alg's temporaries hold a permuted tensor (the emitted C
 * keeps those between calls; a slice temporary is small). */
int tc_alg_permuted_temps(const tc_algorithm *alg);
/* 1 when operand base `base` is a temporary filled by a permutation. */
int tc_alg_is_permuted_temp(const tc_algorithm *alg, int base);

/* The temporary's side of slice copy cp as an operand: the slice's
 * extents, contiguous (column-major) in the temporary. */
void tc_copy_temp_operand(const tc_copy *cp, tc_operand *out);

/* The elements of view v (the product of its extents), and those one
 * execution of permutation p moves (its view's). */
int64_t tc_permute_elements(const tc_permute *v);
int64_t tc_permutation_elements(const tc_permutation *p);
/* Permutation p's two sides as the flat runs the sampler and the analyser
 * see: rank 1, all its elements at stride 1, one dimension of the block's
 * indices in c's order of the tensor (c may be NULL: no indices); the
 * tensor side at the block loops' offset, the temporary's at its start. */
void tc_permutation_operands(const tc_permutation *p, const tc_contraction *c,
                             tc_operand *tensor, tc_operand *temp);

/*
 * Assertions guarding the invariants of views (compiled in unless NDEBUG,
 * which no build defines). tc_operand_check: a kernel operand of c (with
 * sizes) has rank 0..2; each kept dimension holds indices and the view's
 * extent is the dimension's; strides are non-negative; ld is the stride of
 * the last kept dimension; a matrix's dimension 0 has stride 1 (BLAS's
 * column-major) and ld at least its extent. tc_permutation_check: the view
 * has rank 0..TC_MAX_RANK and, with sizes (extents > 0), the temporary's
 * side is dense: its strides, in increasing order, each the product of the
 * extents below. tc_call_check: the call's m, n, k are its dimensions'
 * extents and its operands pass tc_operand_check.
 */
void tc_operand_check(const tc_contraction *c, const tc_operand *op);
void tc_permutation_check(const tc_permutation *p);
void tc_call_check(const tc_contraction *c, const tc_call *k);

/*
 * Loops split over threads (ast/split.c, docs/design.md §4).
 * tc_alg_splittable: 1 when alg's outermost loop can be split over
 * `threads` >= 2 threads: it is at top level, has at least `threads`
 * iterations, and either its index is one of C's (the threads write
 * disjoint parts of C or of its temporary) or it is contracted and the
 * kernel writes C itself with beta (tc_alg_split_reduces) (0 for a NULL
 * alg). tc_alg_split: a copy of alg split so, in s's arena, sharing
 * alg's nodes (NULL when out of memory).
 */
int tc_alg_splittable(const tc_algorithm *alg, const tc_contraction *c, int threads);
tc_algorithm *tc_alg_split(tc_algorithm_set *s, const tc_algorithm *alg,
                           const tc_contraction *c, int threads);
/* 1 when alg's outermost loop, split, would run over a contracted index:
 * the kernel writes C itself (no temporary of C) and applies beta, so
 * thread 0 accumulates into C and every other thread into a partial C of
 * its own, started with beta 0 and added into C after the loop. */
int tc_alg_split_reduces(const tc_algorithm *alg, const tc_contraction *c);
/* A split algorithm's name "BASE@P": P (2..TC_MAX_SPLIT), BASE written
 * into base (n bytes); 0 for any other name. */
int tc_alg_split_name(const char *name, char *base, size_t n);
/* The iterations of loop node n one thread runs: the split loop's share
 * (its extent over the threads, rounded up), any other loop's extent. */
int64_t tc_alg_loop_extent(const tc_algorithm *alg, const tc_node *n);
/* 1 when node n runs inside alg's split loop, each thread its share (0
 * where alg is not split, and for the permutations around the loop). */
int tc_alg_in_split_loop(const tc_algorithm *alg, const tc_node *n);
/* 1 when temporary t is filled inside the split loop: each thread has its
 * own (tc_alg_temp_bytes counts it once per thread). */
int tc_alg_temp_per_thread(const tc_algorithm *alg, int t);
/* The threads that share the work of alg's loops (1 unless split). */
int tc_alg_threads(const tc_algorithm *alg);

/* Builders. Each returns arena memory (freed with the set) or NULL. */
tc_algorithm *tc_alg_new(tc_algorithm_set *s, tc_kernel kernel);
/* Appends alg to the set; -1 when out of memory. */
int tc_alg_set_add(tc_algorithm_set *s, tc_algorithm *alg);
tc_node *tc_alg_loop(tc_algorithm_set *s, int index, int64_t extent);
tc_node *tc_alg_copy(tc_algorithm_set *s, const tc_copy *copy);
tc_node *tc_alg_permute(tc_algorithm_set *s, const tc_permutation *perm);
tc_node *tc_alg_kernel(tc_algorithm_set *s, const tc_call *call);
/* Appends node to the body of `loop` (or, with loop NULL, to the top level
 * of alg); sets parent and depth. */
void tc_alg_append(tc_algorithm *alg, tc_node *loop, tc_node *node);

/* The algorithm named `name` in s, or NULL. */
const tc_algorithm *tc_alg_set_find(const tc_algorithm_set *s, const char *name);

/* Walks the tree depth first, in execution order: visit(node, data) is
 * called on entering each node. A non-zero return stops the walk and is
 * returned. */
int tc_alg_walk(const tc_algorithm *alg,
                int (*visit)(const tc_node *node, void *data), void *data);

/* Writes the name of the offset of op, e.g. "B[j,:,:,c]" (":" for a kept
 * dimension), or "T0[:,:]" for a temporary. snprintf semantics. */
size_t tc_alg_format_operand(const tc_contraction *c, const tc_operand *op,
                             char *buf, size_t n);

/*
 * Writes a readable multi-line tree of alg into out, e.g.
 *   algorithm i'c-dgemm (kernel dgemm)
 *     for i in 0..8
 *       copy A[i,:,:] -> T0 (j x a)
 *       for c in 0..400
 *         dgemm TN m=a:400 n=b:400 k=j:8 C[:,:,c](ld 400) += T0[:,:]^T(ld 8) * B[:,:,i,c](ld 8)
 * (extents 0 without sizes). An unusable algorithm (fits_int 0) says why.
 */
void tc_alg_print(const tc_algorithm *alg, const tc_contraction *c, FILE *out);

#endif
