/*
 * enumerate.h - the enumeration's state, shared by the family table
 * (family.c) and the families' enumerations (enumerate.c: a kernel's
 * dimensions, loop orders, building one algorithm; permuted.c: the
 * permuted family's layouts). Internal to generator/.
 */
#ifndef TC_GENERATOR_ENUMERATE_H
#define TC_GENERATOR_ENUMERATE_H

#include <stdint.h>

#include "generator/generator.h"

typedef struct builder builder;

/* The bytes of an algorithm's name, with its terminator. */
#define TC_GEN_NAME_MAX (TC_MAX_INDICES * (TC_NAME_MAX + 2) + 32)

/* Finding one candidate (tc_gen_find_classes): the one named `name`, or
 * with name NULL the one numbered `serial`. Candidates are numbered in the
 * order of enumeration, as tc_alg_set_add numbers a whole set. */
typedef struct tc_gen_target {
    const char *name;
    int64_t serial;     /* sought, or (by name) found */
    int64_t next;       /* the number of the next candidate */
    tc_algorithm *alg;  /* the one found, built; NULL until then */
    int passing;        /* 1: the current choice's candidates are numbered,
                           not named (none can have the name) */
} tc_gen_target;

/*
 * The family table (docs/design.md §4, "The kernel and family tables"):
 * one row per candidate family, as FFTW registers its solvers. The
 * enumeration, counting and naming of families read only the rows.
 */
typedef struct tc_family_row {
    const char *name;   /* "paper", "fused", "permuted" */
    int fuse;           /* 1: runs of two or more indices are kernel dimensions */
    int grouped;        /* a candidate's kernel dimensions: 1 at least one
                           group, 0 none, -1 either (decided by layout) */
    int copies;         /* 1: a slice without unit stride is copied into a
                           temporary; 0: such a choice is no candidate */
    int bounded_order;  /* where its class of the top kernel (dgemm) comes
                           in the bounded enumeration (subset.c): 0 first */
    /* 0 when the contraction can have no candidate of the family (cheap;
     * enumerate would build none). */
    int (*applicable)(const tc_contraction *c);
    /* Builds, or counts (b->counts), the candidates of the kernels
     * b->kernels_of[b->family] asks for. */
    tc_status (*enumerate)(builder *b, tc_error *err);
    /* The number of candidates with kernel k, none built. */
    uint64_t (*count)(const tc_contraction *c, tc_kernel k);
} tc_family_row;

/* Indexed by tc_family. */
extern const tc_family_row tc_family_table[TC_FAMILY_COUNT];

/* A candidate kernel dimension's indices: a run of one role that lies next
 * to each other, in the same order, in every tensor holding it (one index
 * in the paper's family); the chosen ones become tc_dims (ast/dim.h). */
typedef struct kdim {
    int n;
    int idx[TC_MAX_RANK];
} kdim;

/* Every kernel dimension of one role: each index alone, and each run of
 * two or more. */
typedef struct kdims {
    int n;
    kdim d[TC_MAX_RANK * TC_MAX_RANK];
} kdims;

struct builder {
    const tc_contraction *c;
    tc_algorithm_set *set;
    tc_kernel kernel;
    unsigned kernels_of[TC_FAMILY_COUNT]; /* per family, the kernels to build */
    /* Counting (tc_gen_count_classes): NULL when building. Each candidate
     * adds 1 to counts[family][kernel] instead of being built; every loop
     * order of a choice at once where all of them are candidates. */
    uint64_t (*counts)[TC_KERNEL_COUNT];
    /* Finding one (tc_gen_find_classes): NULL when building or counting.
     * Only the candidate sought is built; the others are numbered past
     * (named, when it is sought by name). */
    tc_gen_target *find;
    tc_family family;             /* the family being enumerated ... */
    const tc_family_row *row;     /* ... and its row */
    int nkept;                    /* kernel dimensions (ast/dim.h) */
    tc_dim dim[3];
    int is_kept[TC_MAX_INDICES];
    int kept_in[TC_MAX_INDICES];  /* kept index -> the kernel dimension holding it */
    tc_operand slice[3];          /* each tensor's slice for these kernel dimensions */
    int dot_names; /* join looped names with '.' */
    /* The permuted family: b->c is the contraction with the tensors of the
     * mask `permuted` (bits 1 << tensor) in their temporaries' order, orig
     * the user's; only dgemms whose dimensions are maximal runs are built,
     * over whole roles where two or more tensors are permuted (docs/design.md
     * §4). Elsewhere orig == c and permuted == 0. */
    const tc_contraction *orig;
    unsigned permuted;
    /* The blocked variant: the last nblock indices of a permuted tensor
     * (block_tensor) looped outermost, its last first, and its temporary
     * holding only the block below them: an input's permuted in before
     * each block's kernel calls, C's permuted back after them
     * (docs/design.md §4). nblock 0 elsewhere. */
    int block_tensor;
    int nblock;
    int block[TC_MAX_RANK]; /* outer to inner */
};


/* Builds (or counts: b->counts) every candidate of the classes b asks
 * for, family by family (family.c). */
tc_status tc_gen_traverse(builder *b, tc_error *err);

/* The one candidate of the classes kernels_of asks for that *find seeks
 * (name or serial), built alone: *out a set holding it, numbered as in
 * tc_gen_enumerate_classes's set (tc_algorithm.serial), or an empty set
 * when there is none such. Errors: TC_ERESOURCE. */
tc_status tc_gen_find_classes(const tc_contraction *c, const unsigned kernels_of[TC_FAMILY_COUNT],
                              tc_gen_target *find, tc_algorithm_set **out, tc_error *err);

/* The kernel dimensions of one role: runs in tensor t1 that are also
 * runs, in the same order, in t2 (the other tensor holding the role);
 * runs of two or more only with fuse. */
void tc_gen_role_dims(const tc_contraction *c, tc_role role, int t1, int t2, int fuse,
                      kdims *out);
/* The candidates of kernel b->kernel: its row's kernel dimensions chosen
 * from the runs of their roles (fa, fb, k), each with every loop order. */
tc_status tc_gen_choose(builder *b, const kdims *fa, const kdims *fb, const kdims *k,
                        tc_error *err);
/* The permuted family's candidates (permuted.c). */
tc_status tc_gen_enumerate_permuted(builder *b, tc_error *err);

/* n! */
uint64_t tc_gen_factorial(int n);
/* Position of index i in tensor t, or -1. */
int tc_gen_position(const tc_tensor *t, int i);
/* 1 when index i is looped around the blocks. */
int tc_gen_in_block_loops(const builder *b, int i);

#endif
