/*
 * alloc_fail.c - out of memory inside tc_parse and tc_plan_create: the Nth
 * allocation tcgen makes is failed, for N = 1, 2, ... until calls make no
 * Nth. Every such call must return TC_ERESOURCE, or a plan that is whole
 * and computes the right result (a fallback absorbed the failure); it must
 * not crash, exit, print, leak or name another cause. A normal call works
 * afterwards, and the machine was detected once for all the plans.
 *
 * Linked with -Wl,--wrap=malloc,... (Makefile): the wrappers see the calls
 * of libtcgen.a's objects and of this file, not those inside libc, hwloc or
 * the BLAS library. Prints only lines starting "alloc_fail:"
 * (tests/alloc_fail_test.sh checks that nothing else is printed).
 * The environment: TCGEN_THREADS=1 and an XDG_CACHE_HOME whose machine
 * profile the first plan measures and every other plan loads.
 */
#include <errno.h>
#include <math.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "ast/error.h"
#include "parser/parser.h"
#include "planner/plan.h"
#include "planner/problem.h"
#include "runtime/reference.h"
#include "tcgen.h"

#define CONTRACTION "C[a,b,c] = A[a,i] * B[i,b,c]"
#define SIZES "a=6,b=5,c=3,i=4"
#define MAX_RUNS 100000 /* a bound on N, far above the counts seen */
/* A plan's count of allocations varies from call to call (the sampler's
 * work depends on its timings: 200 to 340 here): N goes on until this many
 * calls in a row made no Nth. */
#define STOP_AFTER 20

/* ---- the failing allocator --------------------------------------------- */

static atomic_int armed;   /* count (and fail) only while 1 */
static atomic_long seen;   /* allocations while armed */
static atomic_long fail_at; /* the one to fail, 1-based; 0 none */
static atomic_long injected; /* failures injected while armed */
static atomic_long live;   /* blocks allocated minus freed while armed */
static atomic_int in_fixed_series; /* the last call was a MAP_FIXED mmap */

static int fail_now(void)
{
    atomic_store(&in_fixed_series, 0);
    if (!atomic_load(&armed))
        return 0;
    if (atomic_fetch_add(&seen, 1) + 1 != atomic_load(&fail_at))
        return 0;
    atomic_fetch_add(&injected, 1);
    errno = ENOMEM;
    return 1;
}

static void *counted(void *p)
{
    if (p && atomic_load(&armed))
        atomic_fetch_add(&live, 1);
    return p;
}

void *__real_malloc(size_t n);
void *__real_calloc(size_t k, size_t n);
void *__real_realloc(void *p, size_t n);
void *__real_aligned_alloc(size_t a, size_t n);
char *__real_strdup(const char *s);
void __real_free(void *p);
void *__real_mmap(void *addr, size_t n, int prot, int flags, int fd, off_t off);
int __real_munmap(void *addr, size_t n);
int __real_hwloc_topology_init(void *topology);

void *__wrap_malloc(size_t n)
{
    return fail_now() ? NULL : counted(__real_malloc(n));
}

void *__wrap_calloc(size_t k, size_t n)
{
    return fail_now() ? NULL : counted(__real_calloc(k, n));
}

void *__wrap_realloc(void *p, size_t n)
{
    if (fail_now())
        return NULL;
    void *q = __real_realloc(p, n);
    return p ? q : counted(q);
}

void *__wrap_aligned_alloc(size_t a, size_t n)
{
    return fail_now() ? NULL : counted(__real_aligned_alloc(a, n));
}

char *__wrap_strdup(const char *s)
{
    return fail_now() ? NULL : counted(__real_strdup(s));
}

void __wrap_free(void *p)
{
    if (p && atomic_load(&armed))
        atomic_fetch_sub(&live, 1);
    __real_free(p);
}

/* MAP_FIXED maps pages into a range reserved before (microbench/tlb.c maps
 * thousands one by one, all on one path): the first of a series is failed
 * like an allocation, the rest are not counted, and none is a block. */
void *__wrap_mmap(void *addr, size_t n, int prot, int flags, int fd, off_t off)
{
    int fixed = (flags & MAP_FIXED) != 0;
    if (!(fixed && atomic_load(&in_fixed_series)) && fail_now())
        return MAP_FAILED;
    atomic_store(&in_fixed_series, fixed);
    void *p = __real_mmap(addr, n, prot, flags, fd, off);
    return p == MAP_FAILED || fixed ? p : counted(p);
}

int __wrap_munmap(void *addr, size_t n)
{
    if (atomic_load(&armed))
        atomic_fetch_sub(&live, 1);
    return __real_munmap(addr, n);
}

/* Detection runs once per process (microbench/hardware.c): counted. */
static atomic_int topologies;

int __wrap_hwloc_topology_init(void *topology)
{
    atomic_fetch_add(&topologies, 1);
    return __real_hwloc_topology_init(topology);
}

static void arm(long n)
{
    atomic_store(&seen, 0);
    atomic_store(&injected, 0);
    atomic_store(&live, 0);
    atomic_store(&fail_at, n);
    atomic_store(&armed, 1);
}

static void disarm(void)
{
    atomic_store(&armed, 0);
}

/* Counts again, failing nothing, the blocks still in live. */
static void resume(void)
{
    atomic_store(&fail_at, 0);
    atomic_store(&armed, 1);
}

/* ---- checks ------------------------------------------------------------ */

static int failures;

/* n: the allocation failed, 0 none. */
static void bad(const char *what, long n, const char *detail)
{
    failures++;
    if (n > 0)
        printf("alloc_fail: FAIL: %s (allocation %ld failed): %s\n", what, n, detail);
    else
        printf("alloc_fail: FAIL: %s: %s\n", what, detail);
}

/* What was allocated while armed has been freed. */
static void check_freed(const char *what, long n)
{
    long left = atomic_load(&live);
    if (left != 0) {
        char t[64];
        snprintf(t, sizeof t, "%ld blocks allocated and not freed", left);
        bad(what, n, t);
    }
}

/* tc_parse with the nth allocation failed; 1 when none was. */
static int parse_once(long n, const void *ctx)
{
    const char *want = ctx;
    tc_contraction c;
    tc_error err;
    char got[512];
    arm(n);
    tc_status s = tc_parse(CONTRACTION, &c, &err);
    disarm();
    check_freed("tc_parse", n);
    if (atomic_load(&injected) == 0) {
        tc_contraction_format(&c, got, sizeof got);
        if (s != TC_OK || strcmp(got, want) != 0)
            bad("tc_parse without a failure", n, s != TC_OK ? err.message : got);
        return 1;
    }
    if (s != TC_ERESOURCE || err.code != TC_ERESOURCE || !err.message[0])
        bad("tc_parse does not say out of memory", n, err.message);
    return 0;
}

/* What a plan of the problem must be: the result to compare with and the
 * shape of a whole plan (every algorithm ranked, the runner-ups named). */
typedef struct expected {
    tc_contraction c;
    double *A, *B, *C;
    int ranked, nrunners;
} expected;

/* 1 when p is whole and computes the reference's C. */
static int plan_right(const tc_plan *p, const expected *e, char *why, size_t n)
{
    if (!p->alg || !p->origin || strcmp(p->origin, "estimate") != 0 || !(p->seconds > 0.0) ||
        !isfinite(p->seconds) || p->ranked != e->ranked || p->nrunners != e->nrunners) {
        snprintf(why, n, "incomplete plan: origin %s, %d ranked (want %d), %d runners (want %d)",
                 p->origin ? p->origin : "none", p->ranked, e->ranked, p->nrunners, e->nrunners);
        return 0;
    }
    int64_t m = e->c.tensor[0].elements;
    double *C = malloc((size_t)m * sizeof *C);
    if (!C) {
        snprintf(why, n, "no memory for the check");
        return 0;
    }
    int ok = tc_execute(p, e->A, e->B, C) == TC_OK;
    for (int64_t k = 0; ok && k < m; k++)
        ok = fabs(C[k] - e->C[k]) <= 1e-12 * (1.0 + fabs(e->C[k]));
    free(C);
    if (!ok)
        snprintf(why, n, "the plan (%s) computes a wrong C", p->alg->name);
    return ok;
}

/* tc_plan_create with the nth allocation failed; 1 when none was. */
static int plan_once(long n, const void *ctx)
{
    const expected *e = ctx;
    tc_error err;
    char why[600];
    tc_wisdom_forget(); /* so that every plan ranks */
    arm(n);
    tc_plan *p = tc_plan_create(CONTRACTION, SIZES, TC_ESTIMATE, &err);
    disarm();
    int none = atomic_load(&injected) == 0;
    if (p && !plan_right(p, e, why, sizeof why))
        bad(none ? "tc_plan_create without a failure" : "tc_plan_create absorbed a failure", n,
            why);
    if (!p && (none || err.code != TC_ERESOURCE || !err.message[0]))
        bad("tc_plan_create does not say out of memory", n, err.message);
    /* what the plan holds and the wisdom it added are freed here */
    resume();
    tc_plan_destroy(p);
    tc_wisdom_forget();
    disarm();
    check_freed("tc_plan_create", n);
    return none;
}

/* once(n, ctx) for n = 1, 2, ... until STOP_AFTER calls in a row made no
 * nth allocation; the largest n failed. */
static long every_allocation(int (*once)(long n, const void *ctx), const void *ctx)
{
    long last = 0;
    for (long n = 1, misses = 0; n <= MAX_RUNS && misses < STOP_AFTER; n++) {
        if (once(n, ctx)) {
            misses++;
        } else {
            misses = 0;
            last = n;
        }
    }
    return last;
}

static double value(int64_t k, int t)
{
    return (double)((k * 7 + t * 3) % 11) - 5.0;
}

int main(void)
{
    /* tc_parse: every allocation, then a normal call */
    char want[512];
    tc_contraction c;
    tc_error err;
    if (tc_parse(CONTRACTION, &c, &err) != TC_OK) {
        printf("alloc_fail: FAIL: cannot parse %s: %s\n", CONTRACTION, err.message);
        return 1;
    }
    tc_contraction_format(&c, want, sizeof want);
    long parse_runs = every_allocation(parse_once, want);
    printf("alloc_fail: tc_parse: %ld allocations, each failed in turn\n", parse_runs);
    if (parse_runs == 0)
        bad("tc_parse", 0, "no allocation seen: is the wrapper linked?");
    parse_once(0, want);

    /* the problem's reference result and a first, normal plan (it measures
     * the machine profile once, as it detects the machine) */
    expected e;
    memset(&e, 0, sizeof e);
    tc_contraction storage;
    if (tc_plan_problem(CONTRACTION, SIZES, 0, &e.c, &storage, NULL, &err) != TC_OK) {
        printf("alloc_fail: FAIL: %s\n", err.message);
        return 1;
    }
    e.A = malloc((size_t)e.c.tensor[1].elements * sizeof(double));
    e.B = malloc((size_t)e.c.tensor[2].elements * sizeof(double));
    e.C = calloc((size_t)e.c.tensor[0].elements, sizeof(double));
    if (!e.A || !e.B || !e.C) {
        printf("alloc_fail: FAIL: no memory for the operands\n");
        return 1;
    }
    for (int64_t k = 0; k < e.c.tensor[1].elements; k++)
        e.A[k] = value(k, 1);
    for (int64_t k = 0; k < e.c.tensor[2].elements; k++)
        e.B[k] = value(k, 2);
    tc_rt_reference(&e.c, e.A, e.B, e.C);
    tc_plan *p = tc_plan_create(CONTRACTION, SIZES, TC_ESTIMATE, &err);
    if (!p) {
        printf("alloc_fail: FAIL: the first plan: %s\n", err.message);
        return 1;
    }
    e.ranked = p->ranked;
    e.nrunners = p->nrunners;
    tc_plan_destroy(p);

    /* tc_plan_create: every allocation, then a normal call */
    long plan_runs = every_allocation(plan_once, &e);
    printf("alloc_fail: tc_plan_create: up to %ld allocations, each failed in turn\n",
           plan_runs);
    if (plan_runs < parse_runs)
        bad("tc_plan_create", 0, "fewer allocations than its tc_parse: is the wrapper linked?");
    plan_once(0, &e);
    if (atomic_load(&topologies) > 1) {
        char n[64];
        snprintf(n, sizeof n, "%d hwloc topologies", atomic_load(&topologies));
        bad("the machine was detected more than once", 0, n);
    }

    free(e.A);
    free(e.B);
    free(e.C);
    printf("alloc_fail: %s\n", failures ? "FAILED" : "ok");
    return failures != 0;
}
