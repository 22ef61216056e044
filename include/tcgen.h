/*
 * tcgen.h - the one public header of tcgen.
 *
 * tcgen takes a binary tensor contraction in Einstein notation, enumerates
 * every algorithm that computes it as a loop nest around one BLAS kernel,
 * predicts their runtimes with cache-aware micro-benchmarks, and runs or
 * emits the fastest.
 *
 * Every library function that can fail returns a tc_status and, when given a
 * non-NULL tc_error, fills it with a message that says what is wrong and,
 * for text input, where (1-based line and column; 0 when not applicable).
 * The library never prints and never exits.
 */
#ifndef TCGEN_H
#define TCGEN_H

#include <stdint.h>
#include <stdio.h>

#ifdef __cplusplus
extern "C" {
#endif

#define TC_VERSION "0.1.0"

/* TC_API marks the public functions: the library is compiled with
 * -fvisibility=hidden (Makefile), so libtcgen.so exports only these. */
#if defined(__GNUC__) && __GNUC__ >= 4
#define TC_API __attribute__((visibility("default")))
#else
#define TC_API
#endif

/* Status codes double as the command's exit codes (docs/design.md §6). */
typedef enum tc_status {
    TC_OK = 0,
    TC_EINPUT = 1,    /* malformed or invalid contraction, sizes, file    */
    TC_EUSAGE = 2,    /* a caller error: bad argument, unknown option     */
    TC_ERESOURCE = 3, /* out of memory, BLAS library not found, I/O error */
    TC_EINTERNAL = 4  /* a bug in tcgen                                   */
} tc_status;

#define TC_ERROR_MESSAGE_MAX 512

typedef struct tc_error {
    tc_status code;
    int line;   /* 1-based position in the input text, 0 if none */
    int column;
    char message[TC_ERROR_MESSAGE_MAX];
} tc_error;

/* The library's version string, TC_VERSION. */
TC_API const char *tc_version(void);

/* A short English name of a status code ("bad input", ...). */
TC_API const char *tc_status_name(tc_status s);

/* ---- plans ------------------------------------------------------------ */

/*
 * A plan is a contraction with its sizes and the algorithm chosen for it,
 * ready to execute (FFTW's model). It is immutable once created: any number
 * of threads may call tc_execute on one plan at the same time.
 *
 * Tensors are dense, column-major (Fortran order: a tensor's first index
 * has stride 1) unless TC_ROW_MAJOR is given (C order: the last index has
 * stride 1), of doubles unless TC_SINGLE or TC_COMPLEX says float, float
 * complex or double complex. The algorithms are the same in every type,
 * each predicted and run in the type (sgemm, zgemm, cgeru ...).
 *
 * The BLAS library is loaded at run time: $TCGEN_BLAS ("openblas", "blis",
 * or a path to any CBLAS .so; default openblas). tcgen's own BLAS calls
 * run at $TCGEN_THREADS threads, by default the CPUs the process may use
 * (its affinity mask, within its cgroup's CPU quota). The library's thread
 * count is the application's: tcgen sets its own only while it plans or
 * executes, and restores the application's before returning (OpenBLAS and
 * BLIS keep one count per process, so BLAS calls the application makes
 * from other threads meanwhile run at tcgen's). The count tcgen runs at is
 * part of what wisdom remembers.
 */
typedef struct tc_plan tc_plan;

/* Planning flags (combine with |). Exactly one of the first three. */
#define TC_ESTIMATE    0x1u /* rank every algorithm by predicted time (fast) */
#define TC_MEASURE     0x2u /* also run the best predicted candidates and keep
                               the fastest measured (allocates A, B and C)    */
#define TC_WISDOM_ONLY 0x4u /* use only remembered decisions: no benchmarking;
                               fails with TC_EINPUT when nothing is known     */
#define TC_ROW_MAJOR   0x8u /* tensors are row-major (C order)                */
#define TC_EMITTABLE   0x10u /* rank for the C tc_plan_emit_c writes; the
                               ranking assumes warm temporaries for both,
                               so this ranks the same                   */
/* The element type (BLAS's s, d, c, z): double without either flag. */
#define TC_SINGLE      0x20u /* float (float complex with TC_COMPLEX)    */
#define TC_COMPLEX     0x40u /* double complex (float complex with
                               TC_SINGLE): C99's _Complex layout, two
                               reals per element, real part first      */

/*
 * Plans `contraction` ("C[a,b,c] = A[a,i] * B[i,b,c]", or compact
 * "C_abc = A_ai B_ibc"; "+=" accumulates; an optional scalar factor) for
 * `sizes` ("a=b=c=400,i=8"). Wisdom is consulted first: a problem already
 * decided in this process (or imported) for the same BLAS library, thread
 * count and machine is planned without any benchmarking (with
 * $TCGEN_WISDOM_TOLERANCE=0.1, also one decided for sizes each within
 * 10 % of these: the nearest); the problem is
 * its structure, whatever the names of its tensors and indices and its
 * factor (wisdom writes it as C[a,b,...] = A[...] * B[...]). Otherwise the
 * algorithms are ranked as the flags say and the decision is added to the
 * wisdom. With TC_MEASURE, a decision remembered from an estimate is not
 * used: the problem is measured. A contraction with more candidate
 * algorithms than tcgen ranks at once (100 000) is planned from a stated
 * subset, the dgemm-based families first (docs/design.md §4). Numbers in `contraction` are read in the
 * C locale whatever the program's locale ("0.5", never "0,5"). err may be
 * NULL here and everywhere. Returns a new plan, freed by tc_plan_destroy(),
 * or NULL with *err set: TC_EINPUT (bad contraction or sizes, located in the string: line 1
 * and the column; or TC_WISDOM_ONLY with no wisdom for the problem),
 * TC_EUSAGE (NULL argument, bad flags), TC_ERESOURCE (BLAS library not
 * found, out of memory, tensors too large to measure).
 */
TC_API tc_plan *tc_plan_create(const char *contraction, const char *sizes, unsigned flags,
                               tc_error *err);

/*
 * A tensor given by its modes instead of a string: nmode labels (any
 * integers; a label in two tensors is one index), their extents and
 * their strides in elements (stride NULL: dense column-major in mode
 * order). tcgen plans over a view in place when its strides, sorted,
 * start at 1 and each reach at least the one before times its extent:
 * a dense tensor in any mode order (row-major too), or a tile of a larger
 * column-major array, whose gaps become BLAS's leading dimensions.
 */
typedef struct tc_tensor_desc {
    int nmode;              /* 0 to 8 */
    const int64_t *label;   /* nmode labels */
    const int64_t *extent;  /* nmode extents, at least 1 */
    const int64_t *stride;  /* nmode strides, or NULL */
} tc_tensor_desc;

/*
 * Plans C = alpha * A * B + beta * C over views (beta 0 or 1 here;
 * tc_execute_scaled takes any alpha and beta at run time). A label in A
 * and B but not C is contracted; in all three, a batch index; a label in
 * one tensor, or twice in one, is refused (TC_EINPUT, naming the tensor,
 * mode and label), as are strides outside the form above. Otherwise as
 * tc_plan_create: wisdom first (the views' strides are part of its key),
 * else ranked as the flags say (TC_ROW_MAJOR is refused: a view carries
 * its layout). tc_execute then takes the address of each tensor's first
 * element (every label 0). A plan over views with gaps is not emitted.
 */
TC_API tc_plan *tc_plan_create_views(const tc_tensor_desc *C, const tc_tensor_desc *A,
                                     const tc_tensor_desc *B, double alpha, double beta,
                                     unsigned flags, tc_error *err);

/*
 * C = alpha * A * B + beta * C by the plan's algorithm (beta is 0 for "=",
 * 1 for "+="; as in BLAS, beta 0 does not read C and alpha 0 does not read
 * A or B). A, B and C must not overlap. Re-entrant: each call takes its
 * own temporaries (tc_plan_workspace_bytes), from a cache the library
 * keeps between calls (tc_release_workspace frees it). The
 * status says all there is to say: TC_EUSAGE (a NULL argument; nothing
 * done), TC_ERESOURCE (no memory for a temporary: they are all taken
 * before C is written, so C is unchanged).
 */
TC_API tc_status tc_execute(const tc_plan *p, const void *A, const void *B, void *C);

/*
 * C = alpha * A * B + beta * C with the scalars given now, by the plan's
 * algorithm: one plan serves every factor of a term ("+= -0.5 *" and "+=
 * 1.0 *"), and any beta, whatever the contraction said. The scalars are
 * passed by pointer in the plan's type (a double, float, float complex
 * or double complex); NULL takes the plan's own (its factor; 0 for "=",
 * 1 for "+="). As in BLAS, beta 0 does not
 * read C and alpha 0 does not read A or B. Otherwise as tc_execute.
 */
TC_API tc_status tc_execute_scaled(const tc_plan *p, const void *alpha, const void *A,
                                   const void *B, const void *beta, void *C);

/* The chosen algorithm's name ("ca-dgemv"); owned by the plan. */
TC_API const char *tc_plan_algorithm(const tc_plan *p);

/* Its predicted time in seconds (with TC_MEASURE, the measured time; from
 * wisdom, the time remembered with it). */
TC_API double tc_plan_predicted_seconds(const tc_plan *p);

/* How the plan was made: "estimate", "measure" or "wisdom". */
TC_API const char *tc_plan_origin(const tc_plan *p);

/*
 * Writes the plan's algorithm as a standalone C99 file calling CBLAS, with
 *     int FUNCTION(const double *A, const double *B, double *C)
 * (FUNCTION NULL: "contraction") and a header comment naming the
 * contraction, sizes, layout, predicted time, runner-ups, BLAS library and
 * machine. A plan of views (tc_plan_create_views with gaps) addresses its
 * tensors through their strides, written as constants. Returns TC_EUSAGE (NULL plan or out, a function name that is
 * not a usable C identifier) or TC_ERESOURCE (write error).
 */
TC_API tc_status tc_plan_emit_c(const tc_plan *p, FILE *out, const char *function);

/* Frees the plan. NULL is a no-op. */
TC_API void tc_plan_destroy(tc_plan *p);

/* ---- memory ----------------------------------------------------------- */

/*
 * The workspace is what a plan's algorithm may take for temporaries
 * (permuted copies of whole tensors, copied slices) during tc_execute: an
 * algorithm that needs more is not a candidate. tc_plan_create's budget
 * is $TCGEN_WORKSPACE (bytes, with K, M, G or T for powers of 1024: "512M";
 * a bad value is TC_EUSAGE), else the memory available: the smaller of
 * MemAvailable and the room under the process's cgroup limit (v1 or v2,
 * the job's SLURM or container limit). A budget of 0 means no temporaries:
 * only algorithms that call BLAS on the tensors where they lie. When no
 * algorithm fits, planning fails with TC_ERESOURCE and the least any
 * needs. A remembered decision over the budget is ranked again.
 */
TC_API tc_plan *tc_plan_create_within(const char *contraction, const char *sizes,
                                      unsigned flags, size_t workspace_bytes, tc_error *err);

/* The bytes of temporaries one tc_execute of the plan takes (at once;
 * each concurrent call takes its own): 0 when it takes none. */
TC_API size_t tc_plan_workspace_bytes(const tc_plan *p);

/*
 * Frees the memory tcgen keeps between calls: the temporaries tc_execute
 * hands back for the next call (a cache of at most 256 MiB) and the
 * memory prediction reads (a pool the size of the last-level cache). The
 * next tc_execute or planning allocates again. Safe at any time: blocks
 * other threads are using are not freed (they return to the cache).
 */
TC_API void tc_release_workspace(void);

/* ---- wisdom ----------------------------------------------------------- */

/*
 * Wisdom is the process's memory of decisions: (contraction normal form,
 * sizes, layout, BLAS library, thread count, machine signature) -> chosen
 * algorithm and its time. It is shared by all threads (guarded by a lock).
 *
 * The file is readable text, one decision per line (docs/decisions.md).
 * Import checks the whole file before taking any of it: a damaged file is
 * rejected with TC_EINPUT, the line and column of the damage, and nothing
 * loaded. Entries for another machine, BLAS library or thread count are
 * kept (and exported again) but never used here.
 *
 * Export merges: under an advisory lock on PATH.lock it reads the file's
 * entries, adds this process's, and replaces the file whole (a temporary
 * in the same directory, renamed), so processes sharing one file lose no
 * decision, a reader never sees half a file, and a failed write leaves the
 * previous file intact. A file that is not wisdom is refused, not
 * overwritten. Numbers are written and read in the C locale.
 */
TC_API tc_status tc_wisdom_export_file(const char *path, tc_error *err);
TC_API tc_status tc_wisdom_import_file(const char *path, tc_error *err);

/*
 * The same wisdom as text, FFTW's way of planning on one MPI rank and
 * broadcasting: export returns the process's decisions in the file's
 * format (malloc'ed, free() it; NULL with TC_ERESOURCE when out of
 * memory), import takes such a text with the file's checks (a damaged text
 * is rejected with its line and column and nothing taken).
 */
TC_API char *tc_wisdom_export_string(tc_error *err);
TC_API tc_status tc_wisdom_import_string(const char *wisdom, tc_error *err);

/* Forgets every decision. */
TC_API void tc_wisdom_forget(void);

#ifdef __cplusplus
}
#endif
#endif /* TCGEN_H */
