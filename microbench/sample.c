/*
 * sample.c - the Sampler (sample.h): allocates a case's operands at their
 * real strides, replays its setup list, times one kernel or copy call per
 * repetition, keeps the median, and remembers it by the case's key.
 *
 * Timing rules (docs/design.md §2): a warm-up call before the repetitions
 * (InstLdGuard), operands initialised on every element the call touches
 * (Page0Guard), alpha's sign flipped every repetition on mixed-sign data so
 * the accumulating outputs stay bounded (RangeGuard), 64-byte aligned
 * operands (MemAlign), and setup sums stored into a volatile sink so no
 * touch is dead code.
 *
 * A sampler holds the pool cursor and the memo: one thread at a time.
 * With c NULL, tc_mb_sample decides prefetch parts as tc_mb_run_setup does.
 */
#include "microbench/sample.h"

#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ast/error.h"
#include "microbench/memo.h"
#include "microbench/touch.h"
#include "runtime/execute.h"
#include "runtime/memory.h"

struct tc_mb_sampler {
    tc_mb_sampler_options o;
    int line_doubles;
    int flush;            /* 1: flush instead of touching a leading region */
    double *pool;         /* remote regions */
    int64_t pool_lines;
    int64_t cursor;       /* the next remote walk starts below this line */
    double *times;        /* o.reps timings of the current case */
    tc_mb_memo *memo;
    int64_t timed, reused;
    int64_t pool_bytes;
    double checksum;      /* written operands after the last case timed */
    volatile double zero; /* 0.0 the compiler cannot see through */
    volatile double sink; /* setup sums end here */
};

/* What the case's call touches, besides the case's own description. */
typedef struct prepared {
    int n;                                /* operands of the node */
    tc_operand call[TC_MB_MAX_OPERANDS];  /* as the kernel or copy sees them */
    int first[TC_MB_MAX_OPERANDS];        /* dim 0 is the tensor's first index */
    int64_t span[TC_MB_MAX_OPERANDS];     /* elements to allocate; -1 overflow */
} prepared;

#define KEY_MAX 2048

/* ---- operands ------------------------------------------------------- */

static tc_mb_shape shape_of(const tc_operand *op)
{
    tc_mb_shape sh = {1, 1, 0, 0};
    if (op->rank >= 1) {
        sh.n0 = op->extent[0];
        sh.s0 = op->stride[0];
    }
    if (op->rank >= 2) {
        sh.n1 = op->extent[1];
        sh.s1 = op->stride[1];
    }
    return sh;
}

static int same_shape(const tc_operand *a, const tc_operand *b)
{
    tc_mb_shape x = shape_of(a), y = shape_of(b);
    return x.n0 == y.n0 && x.n1 == y.n1 && x.s0 == y.s0 && x.s1 == y.s1;
}

/* Elements from the first to the last one touched (1 when none is); -1 on
 * overflow. Extents and strides are non-negative (checked before). */
static int64_t op_span(const tc_operand *op)
{
    tc_mb_shape sh = shape_of(op);
    int64_t a, b, span;
    if (sh.n0 <= 0 || sh.n1 <= 0)
        return 1;
    if (__builtin_mul_overflow(sh.n0 - 1, sh.s0, &a) ||
        __builtin_mul_overflow(sh.n1 - 1, sh.s1, &b) || __builtin_add_overflow(a, b, &span) ||
        __builtin_add_overflow(span, (int64_t)1, &span))
        return -1;
    return span;
}

/* The operands of node as its call touches them; their number, or -1 when
 * the node is neither a kernel nor a copy. A copy's temporary is the
 * column-major extent[0] x extent[1] block tc_rt_copy fills. */
static int node_operands(const tc_node *node, tc_operand call[])
{
    if (node->kind == TC_NODE_KERNEL && node->call) {
        for (int i = 0; i < 3; i++)
            call[i] = node->call->arg[i];
        return 3;
    }
    if (node->kind == TC_NODE_COPY && node->copy) {
        const tc_operand *sl = &node->copy->slice;
        call[0] = *sl;
        memset(&call[1], 0, sizeof call[1]);
        call[1].base = TC_BASE_TEMP + node->copy->temp;
        call[1].tensor = sl->tensor;
        call[1].rank = 2;
        call[1].dim[0] = sl->dim[0];
        call[1].dim[1] = sl->dim[1];
        call[1].extent[0] = sl->extent[0];
        call[1].extent[1] = sl->extent[1];
        call[1].stride[0] = 1;
        call[1].stride[1] = sl->extent[0];
        call[1].ld = sl->extent[0];
        return 2;
    }
    return -1;
}

static int64_t max64(int64_t a, int64_t b)
{
    return a > b ? a : b;
}

/* Span of operand i: enough for the call and for the setup's touches. */
static int64_t case_span(const tc_mb_case *cs, const tc_operand *call, int i)
{
    int64_t a = op_span(&cs->operand[i].op), b = call ? op_span(call) : 1;
    if (a < 0 || b < 0)
        return -1;
    return max64(max64(a, b), max64(cs->operand[i].span, 1));
}

/* 1 when op's dimension 0 is its tensor's first (stride-1) index. Without
 * the contraction: a stride-1 dimension 0 of a tensor, not a temporary
 * (a temporary never holds its tensor's first index: that is why it is a
 * copy). The two differ only when indices before dim 0 have size 1. */
static int first_index(const tc_contraction *c, const tc_operand *op)
{
    if (op->rank < 1)
        return 0;
    if (c) {
        if (op->tensor < 0 || op->tensor > 2 || c->tensor[op->tensor].rank < 1)
            return 0;
        return c->tensor[op->tensor].index[0] == op->dim[0];
    }
    return op->base < TC_BASE_TEMP && op->stride[0] == 1;
}

static int op_ok(const tc_operand *op)
{
    if (op->rank < 0 || op->rank > 2)
        return 0;
    for (int d = 0; d < op->rank; d++)
        if (op->extent[d] < 0 || op->stride[d] < 0)
            return 0;
    return 1;
}

static int fits_int(int64_t v)
{
    return v >= 0 && v <= INT_MAX;
}

/* Writes "dgemm m=64 n=64 k=8" or "copy-in 8x64" for messages. */
static void describe(const tc_mb_case *cs, char *buf, size_t n)
{
    const tc_node *node = cs->node;
    if (node->kind == TC_NODE_KERNEL) {
        const tc_call *k = node->call;
        snprintf(buf, n, "%s m=%lld n=%lld k=%lld", tc_kernel_name(k->kernel),
                 (long long)k->m, (long long)k->n, (long long)k->k);
    } else {
        const tc_copy *cp = node->copy;
        snprintf(buf, n, "copy-%s %lldx%lld", cp->dir == TC_COPY_IN ? "in" : "out",
                 (long long)cp->slice.extent[0], (long long)cp->slice.extent[1]);
    }
}

/* Checks the case's structure and dimensions and fills *p. */
static tc_status prepare(const tc_contraction *c, const tc_mb_case *cs, prepared *p,
                         tc_error *err)
{
    memset(p, 0, sizeof *p);
    if (!cs->node)
        return tc_error_set(err, TC_EUSAGE, 0, 0, "sampler: the case has no node");
    p->n = node_operands(cs->node, p->call);
    if (p->n < 0)
        return tc_error_set(err, TC_EUSAGE, 0, 0,
                            "sampler: the case's node is not a kernel or a copy");
    if (cs->noperands != p->n)
        return tc_error_set(err, TC_EUSAGE, 0, 0,
                            "sampler: the case has %d operands, its %s node has %d",
                            cs->noperands,
                            cs->node->kind == TC_NODE_KERNEL ? "kernel" : "copy", p->n);
    if (cs->nsetup < 0 || cs->nsetup > TC_MB_MAX_SETUP)
        return tc_error_set(err, TC_EUSAGE, 0, 0,
                            "sampler: the case has %d setup entries (at most %d)",
                            cs->nsetup, TC_MB_MAX_SETUP);
    for (int e = 0; e < cs->nsetup; e++) {
        const tc_mb_setup *st = &cs->setup[e];
        int bad = 0;
        switch (st->kind) {
        case TC_SETUP_OPERAND:
        case TC_SETUP_PREFETCH:
            bad = st->operand < 0 || st->operand >= p->n;
            break;
        case TC_SETUP_REMOTE:
            bad = st->elements < 0;
            break;
        default:
            bad = 1;
        }
        if (bad)
            return tc_error_set(err, TC_EUSAGE, 0, 0,
                                "sampler: setup entry %d is malformed (kind %d, operand "
                                "%d, %lld elements)",
                                e, (int)st->kind, st->operand, (long long)st->elements);
    }
    char what[96];
    describe(cs, what, sizeof what);
    for (int i = 0; i < p->n; i++)
        if (!op_ok(&cs->operand[i].op) || !op_ok(&p->call[i]))
            return tc_error_set(err, TC_EINPUT, 0, 0,
                                "cannot sample %s: operand %d has a bad rank, a negative "
                                "extent or a negative stride",
                                what, i);
    if (cs->node->kind == TC_NODE_KERNEL) {
        const tc_call *k = cs->node->call;
        int ok = fits_int(k->m) && fits_int(k->n) && fits_int(k->k);
        for (int i = 0; i < 3; i++)
            ok = ok && fits_int(k->arg[i].ld);
        if (!ok)
            return tc_error_set(err, TC_EINPUT, 0, 0,
                                "cannot sample %s: a dimension, leading dimension or "
                                "increment does not fit in a BLAS int (at most %d)",
                                what, INT_MAX);
    }
    for (int i = 0; i < p->n; i++) {
        p->span[i] = case_span(cs, &p->call[i], i);
        p->first[i] = first_index(c, &cs->operand[i].op);
    }
    return TC_OK;
}

/* Sum of the spans in bytes; -1 when it overflows. */
static int64_t prepared_bytes(const prepared *p)
{
    int64_t total = 0;
    for (int i = 0; i < p->n; i++)
        if (p->span[i] < 0 || __builtin_add_overflow(total, p->span[i], &total))
            return -1;
    if (__builtin_mul_overflow(total, (int64_t)sizeof(double), &total))
        return -1;
    return total;
}

int64_t tc_mb_case_bytes(const tc_mb_case *cs)
{
    if (!cs)
        return 0;
    prepared p;
    if (prepare(NULL, cs, &p, NULL) != TC_OK) {
        /* malformed node: what the case itself describes */
        memset(&p, 0, sizeof p);
        p.n = cs->noperands < 0 ? 0
              : cs->noperands > TC_MB_MAX_OPERANDS ? TC_MB_MAX_OPERANDS
                                                   : cs->noperands;
        for (int i = 0; i < p.n; i++)
            p.span[i] = op_ok(&cs->operand[i].op) ? case_span(cs, NULL, i) : -1;
    }
    int64_t b = prepared_bytes(&p);
    return b < 0 ? INT64_MAX : b;
}

/* ---- the key -------------------------------------------------------- */

typedef struct keybuf {
    char *buf;
    size_t n, len;
} keybuf;

#if defined(__GNUC__)
__attribute__((format(printf, 2, 3)))
#endif
static void kput(keybuf *k, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int w = vsnprintf(k->len < k->n ? k->buf + k->len : NULL,
                      k->len < k->n ? k->n - k->len : 0, fmt, ap);
    va_end(ap);
    if (w > 0)
        k->len += (size_t)w;
}

static void kput_op(keybuf *k, const tc_operand *op)
{
    kput(k, "r%d", op->rank);
    for (int d = 0; d < op->rank; d++)
        kput(k, ",%lldx%lld", (long long)op->extent[d], (long long)op->stride[d]);
    kput(k, ",ld%lld", (long long)op->ld);
}

/* The canonical description of what the sampler does with cs: the call
 * (kernel, flags, dimensions, operand layouts), the operands as the setup
 * touches them, and the setup list. Equal keys give equal benchmarks.
 * 0, or -1 when it does not fit in n bytes. */
static int build_key(const tc_mb_case *cs, const prepared *p, char *buf, size_t n)
{
    keybuf k = {buf, n, 0};
    const tc_node *node = cs->node;
    if (node->kind == TC_NODE_KERNEL) {
        const tc_call *c = node->call;
        kput(&k, "%s t%d%d m%lld n%lld k%lld", tc_kernel_name(c->kernel), c->trans_a,
             c->trans_b, (long long)c->m, (long long)c->n, (long long)c->k);
    } else {
        kput(&k, "copy-%s", node->copy->dir == TC_COPY_IN ? "in" : "out");
    }
    for (int i = 0; i < p->n; i++) {
        kput(&k, "|");
        kput_op(&k, &p->call[i]);
        if (!same_shape(&p->call[i], &cs->operand[i].op)) {
            kput(&k, " as ");
            kput_op(&k, &cs->operand[i].op);
        }
        kput(&k, cs->operand[i].written ? " w" : " r");
    }
    kput(&k, "|T%d", cs->truncated ? 1 : 0);
    for (int e = 0; e < cs->nsetup; e++) {
        const tc_mb_setup *st = &cs->setup[e];
        switch (st->kind) {
        case TC_SETUP_OPERAND:
            kput(&k, " O%d", st->operand);
            break;
        case TC_SETUP_PREFETCH:
            kput(&k, " P%d%s", st->operand, p->first[st->operand] ? "l" : "");
            break;
        case TC_SETUP_REMOTE:
            kput(&k, " R%lld", (long long)st->elements);
            break;
        }
    }
    return k.len < n ? 0 : -1;
}

/* ---- setup and timing ----------------------------------------------- */

static void flush_operands(tc_mb_sampler *s, const tc_mb_case *cs, const prepared *p,
                           double *const base[])
{
    int lb = s->o.line_bytes;
    for (int i = 0; i < p->n; i++) {
        tc_mb_shape sh = shape_of(&cs->operand[i].op);
        tc_mb_touch_flush(base[i], &sh, lb);
        if (!same_shape(&cs->operand[i].op, &p->call[i])) {
            sh = shape_of(&p->call[i]);
            tc_mb_touch_flush(base[i], &sh, lb);
        }
    }
    tc_mb_touch_fence();
}

static int64_t run_setup(tc_mb_sampler *s, const tc_mb_case *cs, const prepared *p,
                         double *const base[])
{
    double acc = 0.0;
    int64_t touched = 0;
    for (int e = 0; e < cs->nsetup; e++) {
        const tc_mb_setup *st = &cs->setup[e];
        if (st->kind == TC_SETUP_REMOTE) {
            /* the leading region of a truncated list only evicts the
             * operands; clflush does that in time proportional to them */
            if (e == 0 && cs->truncated && s->flush) {
                flush_operands(s, cs, p, base);
                touched += st->elements;
            } else {
                touched += tc_mb_touch_remote(s->pool, s->pool_lines, s->line_doubles,
                                              &s->cursor, st->elements, &acc);
            }
            continue;
        }
        int i = st->operand;
        tc_mb_shape sh = shape_of(&cs->operand[i].op);
        /* a prefetch brings one line along the tensor's first dimension */
        if (st->kind == TC_SETUP_PREFETCH && p->first[i] && sh.n0 > s->line_doubles)
            sh.n0 = s->line_doubles;
        if (cs->operand[i].written)
            touched += tc_mb_touch_rmw(base[i], &sh, s->zero, &acc);
        else
            touched += tc_mb_touch_read(base[i], &sh, &acc);
    }
    s->sink = acc;
    return touched;
}

int64_t tc_mb_run_setup_in(tc_mb_sampler *s, const tc_contraction *c, const tc_mb_case *cs,
                           double *const base[])
{
    prepared p;
    if (!s || !cs || !base || prepare(c, cs, &p, NULL) != TC_OK)
        return -1;
    for (int i = 0; i < p.n; i++)
        if (!base[i])
            return -1;
    return run_setup(s, cs, &p, base);
}

int64_t tc_mb_run_setup(tc_mb_sampler *s, const tc_mb_case *cs, double *const base[])
{
    return tc_mb_run_setup_in(s, NULL, cs, base);
}

static void call_node(const tc_mb_sampler *s, const tc_node *node, double alpha,
                      double *const base[])
{
    if (node->kind == TC_NODE_KERNEL)
        tc_rt_call(s->o.blas, node->call, alpha, base[0], base[1], base[2]);
    else
        tc_rt_copy(node->copy, base[0], base[1]);
}

static int cmp_double(const void *x, const void *y)
{
    double a = *(const double *)x, b = *(const double *)y;
    return (a > b) - (a < b);
}

static double median(double *v, int n)
{
    qsort(v, (size_t)n, sizeof *v, cmp_double);
    return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2.0;
}

/* Warm-up, then o.reps timed calls; the median. */
static double time_case(tc_mb_sampler *s, const tc_mb_case *cs, const prepared *p,
                        double *const base[])
{
    const tc_timer *tm = s->o.timer;
    double alpha = 1.0;
    run_setup(s, cs, p, base);
    call_node(s, cs->node, alpha, base);
    for (int r = 0; r < s->o.reps; r++) {
        alpha = -alpha; /* outputs accumulate: keep them bounded */
        run_setup(s, cs, p, base);
        uint64_t t0 = tc_rt_timer_start();
        call_node(s, cs->node, alpha, base);
        uint64_t t1 = tc_rt_timer_stop();
        s->times[r] = tc_rt_timer_seconds(tm, t0, t1);
    }
    double m = median(s->times, s->o.reps);
    /* a call hidden in the timer's own overhead measures as 0; report one
     * tick (the counter's granularity) so that no case costs nothing */
    if (m < tm->seconds_per_tick)
        m = tm->seconds_per_tick;
    if (!(m > 0.0))
        m = 1e-9;
    return m;
}

tc_status tc_mb_sample(tc_mb_sampler *s, const tc_contraction *c, tc_mb_case *cs,
                       tc_error *err)
{
    if (!s || !cs)
        return tc_error_set(err, TC_EUSAGE, 0, 0, "tc_mb_sample: NULL argument");
    prepared p;
    tc_status st = prepare(c, cs, &p, err);
    if (st != TC_OK)
        return st;
    char key[KEY_MAX];
    if (build_key(cs, &p, key, sizeof key) != 0)
        return tc_error_set(err, TC_EINTERNAL, 0, 0,
                            "sampler: a case key exceeds %d bytes", KEY_MAX);
    double seconds;
    if (tc_mb_memo_find(s->memo, key, &seconds)) {
        cs->seconds = seconds;
        s->reused++;
        return TC_OK;
    }

    char what[96];
    describe(cs, what, sizeof what);
    int64_t need = prepared_bytes(&p), avail = tc_rt_memory_available();
    if (need < 0)
        return tc_error_set(err, TC_ERESOURCE, 0, 0,
                            "cannot sample %s: its operands span more than 2^63 bytes",
                            what);
    if (avail >= 0 && need > avail)
        return tc_error_set(err, TC_ERESOURCE, 0, 0,
                            "cannot sample %s: its operands span %lld bytes but only %lld "
                            "bytes of memory are available (the remote pool already "
                            "holds %lld bytes)",
                            what, (long long)need, (long long)avail,
                            (long long)s->pool_bytes);

    double *base[TC_MB_MAX_OPERANDS] = {NULL, NULL, NULL};
    for (int i = 0; i < p.n; i++) {
        base[i] = tc_rt_alloc(p.span[i], err);
        if (!base[i]) {
            for (int j = 0; j < i; j++)
                tc_rt_free(base[j]);
            return TC_ERESOURCE;
        }
        /* only what is touched: the rest of a large span stays unmapped */
        tc_mb_shape sh = shape_of(&p.call[i]);
        tc_mb_touch_init(base[i], &sh);
        if (!same_shape(&p.call[i], &cs->operand[i].op)) {
            sh = shape_of(&cs->operand[i].op);
            tc_mb_touch_init(base[i], &sh);
        }
    }
    seconds = time_case(s, cs, &p, base);
    double sum = 0.0;
    for (int i = 0; i < p.n; i++) {
        if (cs->operand[i].written) {
            tc_mb_shape sh = shape_of(&p.call[i]);
            tc_mb_touch_read(base[i], &sh, &sum);
        }
    }
    s->checksum = sum;
    for (int i = 0; i < p.n; i++)
        tc_rt_free(base[i]);
    cs->seconds = seconds;
    s->timed++;
    if (tc_mb_memo_put(s->memo, key, seconds) != 0)
        return tc_error_set(err, TC_ERESOURCE, 0, 0,
                            "out of memory remembering the time of %s", what);
    return TC_OK;
}

/* ---- the sampler ---------------------------------------------------- */

tc_status tc_mb_sampler_new(const tc_mb_sampler_options *o, tc_mb_sampler **out,
                            tc_error *err)
{
    if (!out)
        return tc_error_set(err, TC_EUSAGE, 0, 0, "tc_mb_sampler_new: NULL argument");
    *out = NULL;
    if (!o || !o->blas || !o->timer)
        return tc_error_set(err, TC_EUSAGE, 0, 0,
                            "tc_mb_sampler_new: options, BLAS and timer are required");
    if (o->reps < 1)
        return tc_error_set(err, TC_EUSAGE, 0, 0,
                            "the sampler needs at least 1 repetition (got %d)", o->reps);
    if (o->line_bytes < 8 || o->line_bytes % 8 != 0)
        return tc_error_set(err, TC_EUSAGE, 0, 0,
                            "the cache line must be a positive multiple of 8 bytes (got %d)",
                            o->line_bytes);
    if (o->llc_bytes <= 0)
        return tc_error_set(err, TC_EUSAGE, 0, 0,
                            "the last-level cache size must be positive (got %lld)",
                            (long long)o->llc_bytes);
    if (o->flush != TC_FLUSH_CLFLUSH && o->flush != TC_FLUSH_REMOTE)
        return tc_error_set(err, TC_EUSAGE, 0, 0, "unknown flush mode %d", (int)o->flush);

    /* 2 x 5/4 of the cache, in whole lines: the longest setup list twice,
     * so a region is never memory the previous repetition just touched */
    int64_t line = o->line_bytes;
    if (o->llc_bytes > (INT64_MAX - 1) / 5 - line)
        return tc_error_set(err, TC_ERESOURCE, 0, 0,
                            "a remote pool for a %lld-byte cache overflows 63 bits",
                            (long long)o->llc_bytes);
    int64_t lines = ((o->llc_bytes * 5 + 1) / 2 + line - 1) / line;
    int64_t pool_bytes = lines * line;
    int64_t avail = tc_rt_memory_available();
    if (avail >= 0 && pool_bytes > avail)
        return tc_error_set(err, TC_ERESOURCE, 0, 0,
                            "the remote pool needs %lld bytes (2 x 5/4 of a %lld-byte "
                            "last-level cache) but only %lld bytes of memory are available",
                            (long long)pool_bytes, (long long)o->llc_bytes,
                            (long long)avail);

    tc_mb_sampler *s = calloc(1, sizeof *s);
    if (!s)
        return tc_error_set(err, TC_ERESOURCE, 0, 0, "out of memory creating the sampler");
    s->o = *o;
    s->line_doubles = o->line_bytes / 8;
    s->flush = o->flush == TC_FLUSH_CLFLUSH && tc_mb_touch_can_flush();
    s->pool_lines = lines;
    s->pool_bytes = pool_bytes;
    s->cursor = lines;
    s->zero = 0.0;
    s->memo = tc_mb_memo_new();
    s->times = calloc((size_t)o->reps, sizeof *s->times);
    if (!s->memo || !s->times) {
        tc_mb_sampler_free(s);
        return tc_error_set(err, TC_ERESOURCE, 0, 0, "out of memory creating the sampler");
    }
    s->pool = tc_rt_alloc(pool_bytes / 8, err);
    if (!s->pool) {
        tc_mb_sampler_free(s);
        return TC_ERESOURCE;
    }
    tc_mb_shape all = {pool_bytes / 8, 1, 1, 0};
    tc_mb_touch_init(s->pool, &all); /* fault every page in now, not while timing */
    *out = s;
    return TC_OK;
}

void tc_mb_sampler_free(tc_mb_sampler *s)
{
    if (!s)
        return;
    tc_rt_free(s->pool);
    free(s->times);
    tc_mb_memo_free(s->memo);
    free(s);
}

int64_t tc_mb_sampler_timed(const tc_mb_sampler *s)
{
    return s ? s->timed : 0;
}

int64_t tc_mb_sampler_reused(const tc_mb_sampler *s)
{
    return s ? s->reused : 0;
}

double tc_mb_sampler_checksum(const tc_mb_sampler *s)
{
    return s ? s->checksum : 0.0;
}
