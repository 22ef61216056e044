/* execute.c - the AST interpreter: loops, copies and BLAS calls. */
#include "runtime/execute.h"

#include <assert.h>
#include <string.h>

#include "ast/error.h"
#include "runtime/kernel_run.h"
#include "runtime/memory.h"
#include "runtime/parallel.h"
#include "runtime/scratch.h"
#include "runtime/permute.h"
#include "runtime/timer.h"

typedef struct run {
    const tc_blas *blas;
    const tc_algorithm *alg;
    /* scalars as {real, imaginary}: complex types read both */
    double alpha[2];
    double beta[2];    /* given to the first contracted iteration's calls
                          when the kernel owns beta (tc_alg_kernel_owns_beta);
                          1 otherwise, and C was scaled before the loops */
    uint32_t contracted; /* bit i: index i is contracted and looped */
    int64_t origin[TC_MAX_INDICES]; /* each loop's first value: 0, a
                                       reducing split loop's part's start */
    double c_beta[2];    /* the contraction's beta (C permuted back) */
    tc_type type;        /* of every element */
    int64_t bytes;       /* of one element: offsets below are in bytes */
    char *base[TC_BASE_TEMP + TC_MAX_TEMPS]; /* C, A, B, temporaries */
    int64_t value[TC_MAX_INDICES];             /* current loop index values */
    double deadline;   /* CLOCK_MONOTONIC seconds; 0: none */
    unsigned calls;    /* kernel calls since the last look at the clock */
    int stopped;       /* the deadline passed: unwind */
    int threads;       /* the permutations' threads: the plan's, 1 inside a
                          split loop (its threads are busy) */
    struct split *split; /* the split loop's threads, or NULL */
    tc_rt_parts *parts;  /* each part's time is added here, or NULL */
    /* The kernel's operands are not recomputed per call: kp[] holds their
     * addresses at the current loop values, and each loop steps them by
     * kstep[its index][] (how far each operand moves per iteration, in
     * bytes). */
    char *kp[3];
    int64_t kstep[TC_MAX_INDICES][3];
} run;

/* Looks at the clock every 256 calls, so a deadline costs next to nothing. */
static void check_deadline(run *r)
{
    if (r->deadline > 0 && ++r->calls % 256 == 0 && tc_rt_now() > r->deadline)
        r->stopped = 1;
}

/* Adds the time since t0 to node n's part (a node past the last slot is
 * not recorded). */
static void add_part(tc_rt_parts *parts, const tc_node *n, double t0)
{
    double dt = tc_rt_now() - t0;
    int i = 0;
    while (i < parts->n && parts->node[i] != n)
        i++;
    if (i == TC_RT_MAX_PARTS)
        return;
    if (i == parts->n)
        parts->node[parts->n++] = n, parts->seconds[i] = 0.0;
    parts->seconds[i] += dt;
}

static char *address(const run *r, const tc_operand *op)
{
    char *p = r->base[op->base];
    for (int d = 0; d < op->ndep; d++)
        p += op->dep_stride[d] * r->value[op->dep[d]] * r->bytes;
    return p;
}

/* The tensor side of permutation p: its block at the block loops' values. */
static char *block_address(const run *r, const tc_permutation *p)
{
    char *at = r->base[p->tensor];
    for (int d = 0; d < p->ndep; d++)
        at += p->dep_stride[d] * r->value[p->dep[d]] * r->bytes;
    return at;
}

/* A copy's view turned around: the temporary's side becomes the source. */
static tc_permute reversed(const tc_permute *v)
{
    tc_permute r = *v;
    memcpy(r.src_stride, v->dst_stride, sizeof r.src_stride);
    memcpy(r.dst_stride, v->src_stride, sizeof r.dst_stride);
    return r;
}

/*
 * A slice copy (its view has two dimensions; beta 0) as a plain loop,
 * dimension 0 inner, four elements at a time: the loop the emitted file
 * writes for it, at the speed it runs once compiled. Through
 * tc_rt_permute (its view set-up and recursion per call) the 9600 copies
 * of a 20 x 24 slice with no stride-1 dimension took 3.6 ms against 1.7,
 * and the algorithm ran 20 % slower in the executor (and in its
 * prediction, which times this copy) than emitted. One loop per element
 * size: 4 (float), 8 (double, float complex), 16 (double complex) bytes.
 */
typedef struct { double re, im; } pair16;
#define COPY_SLICE(NAME, T)                                                                     \
    static void NAME(const tc_permute *v, const T *src, T *dst)                                 \
    {                                                                                           \
        int64_t n0 = v->extent[0], s0 = v->src_stride[0], d0 = v->dst_stride[0];               \
        int64_t n1 = v->extent[1], s1 = v->src_stride[1], d1 = v->dst_stride[1];               \
        for (int64_t j = 0; j < n1; j++) {                                                      \
            const T *s = src + j * s1;                                                          \
            T *d = dst + j * d1;                                                                \
            int64_t i = 0;                                                                      \
            for (; i + 4 <= n0; i += 4, s += 4 * s0, d += 4 * d0) {                             \
                T x0 = s[0], x1 = s[s0], x2 = s[2 * s0], x3 = s[3 * s0];                        \
                d[0] = x0, d[d0] = x1, d[2 * d0] = x2, d[3 * d0] = x3;                          \
            }                                                                                   \
            for (; i < n0; i++, s += s0, d += d0)                                               \
                *d = *s;                                                                        \
        }                                                                                       \
    }
COPY_SLICE(copy_slice4, float)
COPY_SLICE(copy_slice8, double)
COPY_SLICE(copy_slice16, pair16)

static void copy_slice(const tc_permute *v, int bytes, const void *src, void *dst)
{
    if (bytes == 8)
        copy_slice8(v, src, dst);
    else if (bytes == 4)
        copy_slice4(v, src, dst);
    else
        copy_slice16(v, src, dst);
}

void tc_rt_copy(const tc_copy *cp, tc_type type, void *slice, void *temp)
{
    assert(cp->view.rank == 2);
    int bytes = tc_type_row_of(type)->bytes;
    if (cp->dir == TC_COPY_IN) {
        copy_slice(&cp->view, bytes, slice, temp);
    } else {
        tc_permute back = reversed(&cp->view);
        copy_slice(&back, bytes, temp, slice);
    }
}

void tc_rt_permutation(const tc_permutation *p, tc_type type, void *tensor, void *temp,
                       const double *beta, int threads)
{
    if (p->dir == TC_COPY_IN) {
        tc_rt_permute(&p->view, type, tensor, temp, 0.0, p->written, threads);
        return;
    }
    tc_permute back = reversed(&p->view);
    double b = beta ? beta[0] : 0.0;
    if (beta && beta[1] != 0.0) { /* complex beta: the block scaled first, then added to */
        tc_permute block = back;
        memcpy(block.src_stride, block.dst_stride, sizeof block.src_stride);
        tc_rt_scale(&block, type, tensor, beta);
        b = 1.0;
    }
    tc_rt_permute(&back, type, temp, tensor, b, p->written, threads);
}

void tc_rt_call(const tc_blas *b, const tc_call *k, double alpha, void *p0, void *p1, void *p2)
{
    tc_rt_call_beta(b, k, alpha, 1.0, p0, p1, p2);
}

void tc_rt_call_beta(const tc_blas *b, const tc_call *k, double alpha, double beta, void *p0,
                     void *p1, void *p2)
{
    const double a[2] = {alpha, 0.0}, be[2] = {beta, 0.0};
    if ((unsigned)k->kernel < TC_KERNEL_COUNT)
        tc_kernel_run_rows[k->kernel].call(b, k, a, be, p0, p1, p2);
}

/* How far an operand moves when loop index i advances by one. */
static int64_t step_of(const tc_operand *op, int i)
{
    for (int d = 0; d < op->ndep; d++)
        if (op->dep[d] == i)
            return op->dep_stride[d];
    return 0;
}

/* 1 when every looped contracted index outside a perfect nest is at its
 * first value (those inside are never written to r->value: they read 0). */
static int outer_first(const run *r)
{
    for (uint32_t m = r->contracted; m; m &= m - 1) {
        int i = __builtin_ctz(m);
        if (r->value[i] != r->origin[i])
            return 0;
    }
    return 1;
}

/* Runs n as a perfect nest (runtime/kernel_run.h: an odometer over the
 * loops, the kernel's row running the calls); returns 0 (doing nothing)
 * when it is not one. */
static int run_perfect_nest(run *r, const tc_node *n);

/* A perfect nest, its time the kernel's part when parts are recorded. */
static int exec_perfect_nest(run *r, const tc_node *n)
{
    if (!r->parts)
        return run_perfect_nest(r, n);
    double t0 = tc_rt_now();
    if (!run_perfect_nest(r, n))
        return 0;
    add_part(r->parts, r->alg->kernel_node, t0);
    return 1;
}

static int run_perfect_nest(run *r, const tc_node *n)
{
    tc_rt_nest x;
    x.depth = 0;
    x.contracted = x.moved = 0;
    const tc_node *t = n;
    for (; t->kind == TC_NODE_LOOP; t = t->child) {
        if (!t->child || t->child->next || x.depth == TC_MAX_INDICES)
            return 0;
        if (r->contracted & (1u << t->index))
            x.contracted |= 1u << x.depth;
        x.extent[x.depth] = t->extent;
        x.count[x.depth] = 0;
        x.step[x.depth++] = r->kstep[t->index];
    }
    if (t->kind != TC_NODE_KERNEL)
        return 0;
    const tc_call *k = t->call;
    const tc_blas *b = r->blas;
    static const double one[2] = {1.0, 0.0};
    const int first = outer_first(r);
    const tc_kernel_run_row *row = &tc_kernel_run_rows[k->kernel];
    memcpy(x.p, r->kp, sizeof x.p);
    if (r->deadline > 0) { /* measuring: look at the clock now and then */
        do {
            row->call(b, k, r->alpha, tc_rt_nest_first(&x, first) ? r->beta : one, x.p[0],
                      x.p[1], x.p[2]);
            check_deadline(r);
        } while (!r->stopped && tc_rt_nest_advance(&x));
        return 1;
    }
    if (row->nest) {
        row->nest(b, k, r->alpha, r->beta, first, &x);
        return 1;
    }
    do
        row->call(b, k, r->alpha, tc_rt_nest_first(&x, first) ? r->beta : one, x.p[0], x.p[1],
                  x.p[2]);
    while (tc_rt_nest_advance(&x));
    return 1;
}

static void exec_list(run *r, const tc_node *n);

/* Loop n's iterations [lo, hi), its body each time. */
static void exec_iterations(run *r, const tc_node *n, int64_t lo, int64_t hi)
{
    char *saved[3] = {r->kp[0], r->kp[1], r->kp[2]};
    const int64_t *step = r->kstep[n->index];
    for (int a = 0; a < 3; a++)
        r->kp[a] += lo * step[a];
    for (int64_t v = lo; v < hi && !r->stopped; v++) {
        r->value[n->index] = v;
        exec_list(r, n->child);
        r->kp[0] += step[0];
        r->kp[1] += step[1];
        r->kp[2] += step[2];
    }
    memcpy(r->kp, saved, sizeof saved);
}

/* A split loop's threads (tc_algorithm.split): the run they start from,
 * the loop, each thread's own temporaries (NULL where shared) and, where
 * the loop is contracted, threads 1.. 's partial C. */
typedef struct split {
    const run *from;
    const tc_node *loop;
    char *own[TC_MAX_SPLIT][TC_MAX_TEMPS];
    char *partial[TC_MAX_SPLIT];
    tc_permute c_view; /* C's, where there are partials */
    int stopped[TC_MAX_SPLIT];
} split;

/* Thread t of a split loop: its near-equal part of the iterations, on a
 * run of its own (its loop values, operand pointers and temporaries). A
 * contracted loop's thread t > 0 accumulates into its partial C, its
 * first iteration with beta 0. */
static void split_part(void *arg, long t, long end)
{
    split *sp = arg;
    (void)end;
    run mine = *sp->from;
    mine.split = NULL;
    mine.parts = NULL; /* the split loop is one part */
    mine.threads = 1;
    for (int u = 0; u < mine.alg->ntemps; u++)
        if (sp->own[t][u])
            mine.base[TC_BASE_TEMP + u] = sp->own[t][u];
    int64_t n = sp->loop->extent, p = mine.alg->split;
    int64_t lo = n * t / p, hi = n * (t + 1) / p;
    if (sp->partial[t]) {
        mine.base[TC_C] = sp->partial[t];
        mine.beta[0] = mine.beta[1] = 0.0;
        mine.origin[sp->loop->index] = lo;
    }
    /* at the top level every loop value is 0: the kernel's operands are
     * their bases */
    for (int a = 0; a < 3; a++)
        mine.kp[a] = mine.base[mine.alg->kernel_node->call->arg[a].base];
    exec_iterations(&mine, sp->loop, lo, hi);
    sp->stopped[t] = mine.stopped;
}

tc_permute tc_rt_c_view(const tc_contraction *c)
{
    const tc_tensor *x = &c->tensor[TC_C];
    tc_permute v = {.rank = x->rank};
    for (int k = 0; k < x->rank; k++) {
        v.extent[k] = c->index[x->index[k]].size;
        v.src_stride[k] = v.dst_stride[k] = x->stride[k];
    }
    return v;
}

void tc_rt_add_partial(const tc_permute *v, tc_type type, const void *partial, void *C,
                       int threads)
{
    tc_rt_permute(v, type, partial, C, 1.0, tc_permute_elements(v), threads);
}

static void exec_node(run *r, const tc_node *n);

static void exec_list(run *r, const tc_node *n)
{
    for (; n; n = n->next) {
        /* a loop is a part only when split; a perfect nest times itself */
        if (!r->parts || (n->kind == TC_NODE_LOOP && !(r->split && n == r->split->loop))) {
            exec_node(r, n);
            continue;
        }
        double t0 = tc_rt_now();
        exec_node(r, n);
        add_part(r->parts, n, t0);
    }
}

static void exec_node(run *r, const tc_node *n)
{
    switch (n->kind) {
    case TC_NODE_LOOP:
        if (r->split && n == r->split->loop) {
            tc_rt_parallel(r->alg->split, r->alg->split, split_part, r->split);
            for (int t = 0; t < r->alg->split; t++) {
                r->stopped |= r->split->stopped[t];
                if (r->split->partial[t])
                    tc_rt_add_partial(&r->split->c_view, r->type, r->split->partial[t],
                                      r->base[TC_C], r->threads);
            }
            break;
        }
        if (!exec_perfect_nest(r, n))
            exec_iterations(r, n, 0, n->extent);
        break;
    case TC_NODE_COPY: /* slices overwrite */
        tc_rt_copy(n->copy, r->type, address(r, &n->copy->slice),
                   r->base[TC_BASE_TEMP + n->copy->temp]);
        break;
    case TC_NODE_PERMUTE: /* C goes back with beta */
        tc_rt_permutation(n->perm, r->type, block_address(r, n->perm),
                          r->base[TC_BASE_TEMP + n->perm->temp], r->c_beta, r->threads);
        break;
    case TC_NODE_KERNEL:
        tc_kernel_run_rows[n->call->kernel].call(
            r->blas, n->call, r->alpha, outer_first(r) ? r->beta : (const double[2]){1.0, 0.0},
            r->kp[0], r->kp[1], r->kp[2]);
        check_deadline(r);
        break;
    }
}

/* C = beta * C over all of C (its view, where it is strided): the
 * contraction's beta, by tc_rt_scale. */
static void scale_c(const tc_contraction *c, void *C)
{
    tc_permute v = tc_rt_c_view(c);
    tc_rt_scale(&v, c->type, C, (const double[2]){c->beta, c->beta_im});
}

tc_status tc_rt_execute(const tc_blas *blas, const tc_algorithm *alg,
                        const tc_contraction *c, const void *A,
                        const void *B, void *C, tc_error *err)
{
    return tc_rt_execute_within(blas, alg, c, A, B, C, 0.0, NULL, err);
}

static tc_status execute_within(const tc_blas *blas, const tc_algorithm *alg,
                                const tc_contraction *c, const void *A, const void *B,
                                void *C, double limit_s, int *stopped, tc_rt_parts *parts,
                                tc_error *err);

/* The BLAS's thread count for the algorithm's calls, set and restored. */
static tc_status execute_set(const tc_blas *blas, const tc_algorithm *alg,
                             const tc_contraction *c, const void *A, const void *B,
                             void *C, double limit_s, int *stopped, tc_rt_parts *parts,
                             tc_error *err)
{
    /* a split loop's threads call BLAS on one thread each */
    int saved = tc_rt_blas_enter(blas, !blas ? 0 : alg && alg->split > 1 ? 1 : blas->threads);
    tc_status st = execute_within(blas, alg, c, A, B, C, limit_s, stopped, parts, err);
    tc_rt_blas_leave(blas, saved);
    return st;
}

/* The library's thread count set for tcgen's calls, and restored. */
tc_status tc_rt_execute_within(const tc_blas *blas, const tc_algorithm *alg,
                               const tc_contraction *c, const void *A, const void *B,
                               void *C, double limit_s, int *stopped, tc_error *err)
{
    return execute_set(blas, alg, c, A, B, C, limit_s, stopped, NULL, err);
}

tc_status tc_rt_execute_parts(const tc_blas *blas, const tc_algorithm *alg,
                              const tc_contraction *c, const void *A, const void *B,
                              void *C, tc_rt_parts *parts, tc_error *err)
{
    return execute_set(blas, alg, c, A, B, C, 0.0, NULL, parts, err);
}

/* The temporaries r's algorithm fills, taken from the scratch cache:
 * shared ones in r->base, a split loop's own ones a copy per thread in sp
 * (r->split then points to it). */
static void give_temps(run *r, split *sp)
{
    const tc_algorithm *alg = r->alg;
    for (int t = 0; t < alg->ntemps; t++) {
        int64_t words = tc_type_words(alg->type, alg->temp[t].elements);
        tc_rt_scratch_give((double *)(void *)r->base[TC_BASE_TEMP + t], words);
        for (int j = 0; j < alg->split; j++)
            tc_rt_scratch_give((double *)(void *)sp->own[j][t], words);
    }
    for (int j = 0; j < alg->split; j++)
        tc_rt_scratch_give((double *)(void *)sp->partial[j],
                           tc_type_words(alg->type, alg->partial));
}

static tc_status take_temps(run *r, split *sp, tc_error *err)
{
    const tc_algorithm *alg = r->alg;
    memset(sp, 0, sizeof *sp);
    sp->from = r;
    sp->loop = alg->split > 1 ? alg->loop_node[0] : NULL;
    r->split = sp->loop ? sp : NULL;
    for (int t = 0; t < alg->ntemps; t++) {
        int own = tc_alg_temp_per_thread(alg, t);
        for (int j = 0; j < (own ? alg->split : 1); j++) {
            char **slot = own ? &sp->own[j][t] : &r->base[TC_BASE_TEMP + t];
            *slot = (char *)tc_rt_scratch_take(tc_type_words(alg->type, alg->temp[t].elements),
                                               err);
            if (!*slot) {
                give_temps(r, sp);
                return TC_ERESOURCE;
            }
        }
    }
    for (int j = 1; alg->partial > 0 && j < alg->split; j++) {
        sp->partial[j] = (char *)tc_rt_scratch_take(tc_type_words(alg->type, alg->partial), err);
        if (!sp->partial[j]) {
            give_temps(r, sp);
            return TC_ERESOURCE;
        }
    }
    return TC_OK;
}

static tc_status execute_within(const tc_blas *blas, const tc_algorithm *alg,
                                const tc_contraction *c, const void *A, const void *B,
                                void *C, double limit_s, int *stopped, tc_rt_parts *parts,
                                tc_error *err)
{
    if (!blas || !alg || !c || !A || !B || !C)
        return tc_error_set(err, TC_EUSAGE, 0, 0, "tc_rt_execute: NULL argument");
    if (!c->has_sizes)
        return tc_error_set(err, TC_EUSAGE, 0, 0,
                            "cannot execute %s: the contraction has no sizes", alg->name);
    if (!alg->fits_int)
        return tc_error_set(err, TC_EINPUT, 0, 0, "cannot execute %s: %s", alg->name,
                            alg->why);
    if (c->alpha == 0.0 && c->alpha_im == 0.0) { /* C = beta * C, A and B not read: 0 * Inf
                                                    is no NaN here */
        scale_c(c, C);
        if (stopped)
            *stopped = 0;
        return TC_OK;
    }
    run r;
    memset(&r, 0, sizeof r);
    r.blas = blas;
    r.alg = alg;
    r.alpha[0] = c->alpha, r.alpha[1] = c->alpha_im;
    r.type = c->type;
    r.bytes = tc_type_row_of(c->type)->bytes;
    r.deadline = limit_s > 0 ? tc_rt_now() + limit_s : 0.0;
    r.parts = parts;
    r.threads = blas->threads;
    /* The executor only reads A and B; the table is shared with C. */
    r.base[TC_C] = C;
    r.base[TC_A] = (char *)(uintptr_t)A;
    r.base[TC_B] = (char *)(uintptr_t)B;
    split sp;
    if (take_temps(&r, &sp, err) != TC_OK)
        return TC_ERESOURCE;
    sp.c_view = tc_rt_c_view(c);
    const tc_call *k = alg->kernel_node->call;
    for (int a = 0; a < 3; a++) {
        r.kp[a] = r.base[k->arg[a].base]; /* every loop value is 0 */
        for (int i = 0; i < c->nindex; i++)
            r.kstep[i][a] = step_of(&k->arg[a], i) * r.bytes;
    }
    r.beta[0] = 1.0;
    r.c_beta[0] = c->beta, r.c_beta[1] = c->beta_im;
    if (tc_alg_kernel_owns_beta(alg)) {
        tc_alg_kernel_beta_complex(alg, c, r.beta); /* 0 or the contraction's */
        for (int l = 0; l < alg->nloops; l++)
            if (c->index[alg->loop[l]].role == TC_ROLE_CONTRACTED)
                r.contracted |= 1u << alg->loop[l];
    } else if (tc_alg_needs_beta_pass(alg, c)) {
        double t0 = tc_rt_now();
        scale_c(c, C);
        if (parts)
            parts->beta_pass_s += tc_rt_now() - t0;
    }
    exec_list(&r, alg->body);
    if (stopped)
        *stopped = r.stopped;
    give_temps(&r, &sp);
    return TC_OK;
}
