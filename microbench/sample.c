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
 * A sampler holds the pool cursor and the memo: one thread at a time; the
 * pool it reads and the memory budget are the process's (pool.h).
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
#include "microbench/model_input.h"
#include "microbench/pool.h"
#include "microbench/tlb.h"
#include "microbench/touch.h"
#include "runtime/execute.h"
#include "runtime/memory.h"

/* An operand's block: its span, the kind of its pages, and at most how
 * many of its bytes lie in pages faulted in. */
typedef struct block {
    double *base;
    int64_t count, resident;
    tc_pages pages;
} block;

struct tc_mb_sampler {
    tc_mb_sampler_options o;
    int line_doubles;
    int flush;            /* 1: memory-level operands are flushed (clflush) */
    int nlevels;
    int64_t level[TC_MB_MAX_LEVELS]; /* capacities in bytes, the last the LLC */
    int64_t budget;
    const double *pool;   /* remote regions (shared, read only) */
    int64_t pool_lines;
    int64_t cursor;       /* the next remote walk starts below this line */
    uint64_t *times;      /* tick differences of the current case */
    int64_t bounded;      /* cases timed below their bound (bound used) */
    tc_mb_memo *memo;
    int edge_out;         /* 1: operands at the LLC's edge are placed in
                             memory, 0: in the LLC (tc_mb_sample) */
    int created_reps;     /* o.reps at creation: s->times is sized for it */
    int round, rounds;    /* tc_mb_sampler_round: the current one (> 0:
                             keys carry it) and how many were started */
    int64_t timed, reused;
    int64_t case_bytes;   /* the pages of the last case timed (tc_mb_sampler_case_bytes) */
    int64_t pool_bytes;
    double checksum;      /* written operands after the last case timed */
    tc_mb_pages tlb;      /* pages touched to evict translations (tlb.h) */
    int64_t avail;        /* memory available (tc_rt_memory_available) ... */
    double avail_at;      /* ... read at this tc_rt_now() time */
    /* the last case's operand blocks, kept for the next case (operand_block):
     * fresh memory is zeroed page by page by the kernel, and allocating
     * every case anew spent a sixth of a prediction doing that */
    block spare[TC_MB_MAX_OPERANDS][2]; /* [operand][on huge pages]; base NULL: none */
    double *warm;         /* dense operands of the library's warm-up call ... */
    int64_t warm_count;   /* ... a quarter of the first level, in doubles */
    double warm_alpha;    /* its sign alternates: its output stays bounded */
    double call_floor[TC_KERNEL_COUNT]; /* tc_mb_sampler_call_floor; 0: not yet */
    int64_t warmed;       /* warm-up calls made */
    volatile double zero; /* 0.0 the compiler cannot see through */
    volatile double sink; /* setup sums end here */
};

/* What the case's call touches, besides the case's own description. */
typedef struct prepared {
    int n;                                /* operands of the node */
    tc_operand call[TC_MB_MAX_OPERANDS];  /* as the kernel or copy sees them */
    int first[TC_MB_MAX_OPERANDS];        /* dim 0 is the tensor's first index */
    int64_t span[TC_MB_MAX_OPERANDS];     /* elements to allocate; -1 overflow */
    int64_t used[TC_MB_MAX_OPERANDS];     /* of which in pages touched (the
                                             memory it costs); -1 overflow */
    int train;                            /* calls timed in a row (plan_train) */
    int64_t train_step[TC_MB_MAX_OPERANDS]; /* elements each of them moves on */
} prepared;

#define KEY_MAX 2048
#define SHORT_REPS 31 /* timings of a call lasting a few counter steps */
#define LONG_REPETITION_S 2e-3 /* a repetition this long ... */
#define LONG_REPS 5            /* ... runs at most this often, */
#define HUGE_REPETITION_S 2e-2 /* one this long (a whole-tensor permutation
                                  of tens of MiB, flushed each time) ... */
#define HUGE_REPS 3            /* ... this often */
#define BETA_PART ((int64_t)1 << 18) /* elements (2 MiB) of a beta pass from memory */
#define SPARE_MAX ((int64_t)128 << 20) /* bytes resident in the blocks a sampler keeps */

/* One step of a case's setup as run (place()). */
enum { STEP_TOUCH, STEP_PREFETCH, STEP_FLUSH, STEP_FLUSH_PREFETCH, STEP_EVICT, STEP_TLB, STEP_KINDS };
typedef struct step {
    int kind;
    int operand; /* all but EVICT */
    int level;   /* the level placed in; EVICT: levels above it are evicted */
} step;
#define MAX_STEPS (TC_MB_MAX_SETUP + TC_MB_MAX_OPERANDS + TC_MB_MAX_LEVELS + 2)

struct tc_mb_sampler;
static int place(const struct tc_mb_sampler *s, const tc_mb_case *cs, const struct prepared *p,
                 step *out);

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
/*
 * What one side of a whole-tensor permutation's view touches (temp_side:
 * the temporary's, else the tensor's), as op's shape: the view's elements
 * in that side's dense order, one run (rank 1) or, for a view cut in one
 * dimension (a slab: fit), runs of the dimensions up to the cut one,
 * repeated at the next one's stride (rank 2). Anything else: one run over
 * the whole span, a superset.
 */
static void permute_footprint(const tc_permute *v, int temp_side, tc_operand *op)
{
    const int64_t *stride = temp_side ? v->dst_stride : v->src_stride;
    int order[TC_MAX_RANK], n = 0, gaps = 0, gap = -1;
    int64_t span = 1, elements = 1;
    for (int k = 0; k < v->rank; k++) {
        if (v->extent[k] == 1)
            continue;
        int j = n++;
        while (j > 0 && stride[order[j - 1]] > stride[k]) {
            order[j] = order[j - 1];
            j--;
        }
        order[j] = k;
        span += (v->extent[k] - 1) * stride[k];
        elements *= v->extent[k];
    }
    for (int j = 0; j + 1 < n; j++)
        if (stride[order[j + 1]] != stride[order[j]] * v->extent[order[j]])
            gaps++, gap = j;
    op->rank = 1;
    op->extent[0] = elements;
    op->stride[0] = 1;
    op->extent[1] = op->stride[1] = 0;
    if ((n > 0 && stride[order[0]] != 1) || gaps > 1) {
        op->extent[0] = span;
    } else if (gaps == 1) {
        int64_t run = stride[order[gap]] * v->extent[order[gap]];
        op->rank = 2;
        op->extent[0] = run;
        op->extent[1] = elements / run;
        op->stride[1] = stride[order[gap + 1]];
    }
    op->ld = op->rank == 2 ? op->stride[1] : op->stride[0];
}

static int node_operands(const tc_node *node, tc_operand call[])
{
    if (node->kind == TC_NODE_KERNEL && node->call) {
        for (int i = 0; i < 3; i++)
            call[i] = node->call->arg[i];
        return 3;
    }
    if (node->kind == TC_NODE_COPY && node->copy) {
        call[0] = node->copy->slice;
        tc_copy_temp_operand(node->copy, &call[1]);
        if (node->copy->whole) { /* whole, or a slab of it (fit) */
            permute_footprint(&node->copy->view, 0, &call[0]);
            permute_footprint(&node->copy->view, 1, &call[1]);
        }
        return 2;
    }
    return -1;
}

static int64_t max64(int64_t a, int64_t b)
{
    return a > b ? a : b;
}

/* Doubles in the 4 KiB pages op's elements lie in (at most its span): a
 * strided slice of a large tensor touches a few pages of a large span,
 * and only those are mapped. */
static int64_t shape_page_doubles(tc_mb_shape sh, int64_t span)
{
    const int64_t page = 4096 / (int64_t)sizeof(double);
    if (sh.n0 <= 0 || sh.n1 <= 0 || span < 0)
        return span;
    double per_column = (double)((sh.n0 - 1) * sh.s0 / page + 2);
    if (per_column > (double)sh.n0 + 1) /* elements a page or more apart */
        per_column = (double)sh.n0 + 1;
    double d = (double)sh.n1 * per_column * (double)page;
    return d < (double)span ? (int64_t)d : span;
}

static int64_t page_doubles(const tc_operand *op, int64_t span)
{
    return shape_page_doubles(shape_of(op), span);
}

/* Span of operand i: enough for the call and for the setup's touches. */
static int64_t case_span(const tc_mb_case *cs, const tc_operand *call, int i)
{
    int64_t a = op_span(&cs->operand[i].op), b = call ? op_span(call) : 1;
    if (a < 0 || b < 0)
        return -1;
    return max64(max64(a, b), max64(cs->operand[i].span, 1));
}

/* 1 when op's dimension 0 is its base's first (stride-1) index: a
 * tensor's first index, or a temporary's (contiguous) dimension 0. Without
 * the contraction, a tensor's stride-1 dimension 0: the two differ only
 * when indices before dim 0 have size 1. */
static int first_index(const tc_contraction *c, const tc_operand *op)
{
    if (op->rank < 1)
        return 0;
    if (op->base >= TC_BASE_TEMP)
        return op->stride[0] == 1;
    if (c) {
        if (op->tensor < 0 || op->tensor > 2 || c->tensor[op->tensor].rank < 1)
            return 0;
        return c->tensor[op->tensor].index[0] == op->dim[0];
    }
    return op->stride[0] == 1;
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
        if (cp->whole)
            snprintf(buf, n, "permute-%s %lld elements", cp->dir == TC_COPY_IN ? "in" : "out",
                     (long long)cp->slice.extent[0]);
        else
            snprintf(buf, n, "copy-%s %lldx%lld", cp->dir == TC_COPY_IN ? "in" : "out",
                     (long long)cp->slice.extent[0], (long long)cp->slice.extent[1]);
    }
}

/* Checks the case's structure and dimensions and fills *p. */
static tc_status prepare(const tc_contraction *c, const tc_mb_case *cs, prepared *p,
                         tc_error *err)
{
    memset(p, 0, sizeof *p);
    p->train = 1;
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
        int64_t u = page_doubles(&p->call[i], p->span[i]);
        if (u >= 0 && !same_shape(&p->call[i], &cs->operand[i].op))
            u += page_doubles(&cs->operand[i].op, p->span[i]);
        p->used[i] = u < p->span[i] ? u : p->span[i];
    }
    return TC_OK;
}

/* Bytes the operands cost (the pages they touch); -1 on overflow. */
static int64_t prepared_bytes(const prepared *p)
{
    int64_t total = 0;
    for (int i = 0; i < p->n; i++)
        if (p->used[i] < 0 || __builtin_add_overflow(total, p->used[i], &total))
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
            p.used[i] = p.span[i] = op_ok(&cs->operand[i].op) ? case_span(cs, NULL, i) : -1;
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
static int build_key(const tc_mb_sampler *s, const tc_mb_case *cs, const prepared *p, char *buf,
                     size_t n)
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
    /* the placement, not the distances: cases whose operands land in the
     * same levels are the same benchmark */
    step plan[MAX_STEPS];
    int nsteps = place(s, cs, p, plan);
    for (int e = 0; e < nsteps; e++) {
        /* one letter per step kind, in enum order */
        static const char kinds[] = "TPFQEL";
        _Static_assert(sizeof kinds == STEP_KINDS + 1, "a letter per step kind");
        if (plan[e].kind == STEP_EVICT || plan[e].kind == STEP_TLB)
            kput(&k, " %c%d", kinds[plan[e].kind], plan[e].level);
        else
            kput(&k, " %c%d%s", kinds[plan[e].kind], plan[e].operand,
                 plan[e].kind == STEP_PREFETCH && p->first[plan[e].operand] ? "l" : "");
    }
    if (cs->scale > 1.0)
        kput(&k, " x%.17g", cs->scale);
    if (p->train > 1)
        kput(&k, " train%d", p->train);
    if (cs->node->kind == TC_NODE_KERNEL && cs->beta != 1.0)
        kput(&k, " beta%.17g", cs->beta);
    if (s->round > 0) /* tc_mb_sampler_round */
        kput(&k, " round%d", s->round);
    return k.len < n ? 0 : -1;
}

/* ---- setup and timing ----------------------------------------------- */

int tc_mb_sampler_level(const tc_mb_sampler *s, int64_t distance)
{
    int k = 0;
    if (distance < 0 || distance > INT64_MAX / 8)
        return s->nlevels;
    while (k < s->nlevels && distance * 8 >= s->level[k])
        k++;
    return k;
}

/*
 * The LLC's edge (llc_edge.h): the share of the LLC's speed an operand
 * reused after `distance` elements keeps, by the profile's curve. Placed
 * wholly in the LLC or wholly in memory, experiment 1's algorithms at
 * a=b=c=128 (C 16 MiB, the LLC measured 10-19 MiB) were predicted up to
 * 57 % fast or 120 % slow on a Zen 5 VM; a case with an operand on the
 * edge (a share strictly between 0 and 1) is timed both ways and its time
 * is the blend (tc_mb_sample).
 */
static double edge_weight(const tc_mb_sampler *s, int64_t distance)
{
    return tc_mb_edge_share(s->o.llc_edge, s->level[s->nlevels - 1], 8.0 * (double)distance);
}

static int first_lines_only(const tc_mb_sampler *s, const tc_mb_case *cs, const prepared *p,
                            int i);
static int64_t tiled_stream_part(const tc_mb_sampler *s, const tc_mb_case *cs, int i);

/*
 * Whether the setup places operand i by its access distance though its
 * list has no entry for it: a truncated list leaves out the operands
 * beyond every level; an operand prefetched whole has only its prefetch
 * entry, and where the prefetch brings in the first line of each column
 * only, or a dgemm's stream the first lines of its run, the rest is
 * where its access distance says (i'c-dgemm of
 * C[a,b,c] = A[i,j,a] * B[j,b,i,c]: C[:,:,c+1] comes from the LLC, not
 * from the caches that its first lines are in: predicted as fast as
 * cj'-dgemm, it ran 40 % slower).
 */
static int left_out(const tc_mb_sampler *s, const tc_mb_case *cs, const prepared *p, int i)
{
    int prefetched = 0;
    for (int e = 0; e < cs->nsetup; e++) {
        if (cs->setup[e].operand != i)
            continue;
        if (cs->setup[e].kind == TC_SETUP_OPERAND)
            return 0;
        prefetched |= cs->setup[e].kind == TC_SETUP_PREFETCH;
    }
    return cs->truncated ||
           (prefetched && (first_lines_only(s, cs, p, i) || tiled_stream_part(s, cs, i) > 0));
}

/* The level the setup puts an operand at this distance in: past the
 * upper levels, the LLC where the edge keeps all of it (which may be
 * beyond the LLC's measured size), memory where it keeps none, and on
 * the edge the LLC or memory as s->edge_out says. */
static int placed_level(const tc_mb_sampler *s, int64_t distance)
{
    int k = tc_mb_sampler_level(s, distance);
    if (k < s->nlevels - 1)
        return k;
    double w = edge_weight(s, distance);
    int in_llc = w >= 1.0 || (w > 0.0 && !s->edge_out);
    return in_llc ? s->nlevels - 1 : s->nlevels;
}

/* Where a left-out operand goes: by its access distance; one a truncated
 * list left out is beyond the LLC (in memory, or on the LLC's edge) even
 * where its distance says otherwise. */
static int left_out_level(const tc_mb_sampler *s, const tc_mb_case *cs, int i)
{
    int64_t d = cs->operand[i].access_distance;
    return cs->truncated && tc_mb_sampler_level(s, d) < s->nlevels ? s->nlevels
                                                                     : placed_level(s, d);
}

/* The weight of the LLC placement in cs's blend: the smallest share of
 * its operands on the edge (listed or left out); 1 when none is. */
static double case_edge_weight(const tc_mb_sampler *s, const tc_mb_case *cs, const prepared *p)
{
    double w = 1.0, x;
    for (int e = 0; e < cs->nsetup; e++)
        if (cs->setup[e].kind != TC_SETUP_REMOTE &&
            (x = edge_weight(s, cs->setup[e].distance)) > 0.0 && x < w)
            w = x;
    for (int i = 0; i < cs->noperands; i++)
        if (left_out(s, cs, p, i) &&
            (x = edge_weight(s, cs->operand[i].access_distance)) > 0.0 && x < w)
            w = x;
    return w;
}

/* Remote elements that push data out of every level above level k (5/4 of
 * level k-1), at most the pool. */
static int64_t evict_elements(const tc_mb_sampler *s, int k)
{
    int64_t e = s->level[k - 1] / 8 * 5 / 4;
    int64_t cap = s->pool_lines * s->line_doubles;
    return e < cap ? e : cap;
}

/* Pages a reuse distance of `distance` elements spans, taking the data
 * between two uses as sparse as op: a matrix whose columns lie a page or
 * more apart uses one column's run per page, a vector strided by a page
 * or more one element; dense data fills its pages. */
static int64_t distance_pages(const tc_operand *op, int64_t distance)
{
    const int64_t page = 4096 / (int64_t)sizeof(double);
    int64_t used = page; /* elements per page */
    if (op->rank >= 1 && op->stride[0] >= page)
        used = 1;
    else if (op->rank == 2 && op->stride[1] >= page && op->stride[0] == 1)
        used = op->extent[0] < page ? op->extent[0] : page;
    return distance / (used > 0 ? used : 1);
}

/*
 * The setup of cs as steps: its operand and prefetch entries grouped by
 * the level their distances reach, deepest first - the operands a
 * truncated list left out (their distances are beyond every level) in
 * memory; memory: flushed (or, in remote mode, touched and then evicted
 * from every level); level k > 0: touched, then levels above evicted; L1:
 * touched. After the shallowest level holding an operand whose distance
 * spans more pages than the TLB keeps, the TLB is evicted (tlb.h): the
 * operands placed so far lose their translations, later ones keep them.
 * Returns the number of steps.
 */
static int place(const tc_mb_sampler *s, const tc_mb_case *cs, const prepared *p, step *out)
{
    int lvl[TC_MB_MAX_SETUP], n = 0, tlb_after = -1;
    for (int e = 0; e < cs->nsetup; e++) {
        const tc_mb_setup *st = &cs->setup[e];
        lvl[e] = st->kind == TC_SETUP_REMOTE ? -1 : placed_level(s, st->distance);
        if (lvl[e] >= 0 && s->tlb.count > 0 &&
            distance_pages(&cs->operand[st->operand].op, st->distance) > s->o.tlb_pages &&
            (tlb_after < 0 || lvl[e] < tlb_after))
            tlb_after = lvl[e];
    }
    if (cs->truncated && s->tlb.count > 0 && tlb_after < 0)
        tlb_after = s->nlevels; /* operands beyond every level */
    for (int g = s->nlevels; g >= 0; g--) {
        int any = 0;
        for (int i = 0; i < cs->noperands; i++) {
            if (left_out(s, cs, p, i) && left_out_level(s, cs, i) == g) {
                out[n++] = (step){g == s->nlevels && s->flush ? STEP_FLUSH : STEP_TOUCH, i, g};
                any = 1;
            }
        }
        for (int e = 0; e < cs->nsetup; e++) {
            if (lvl[e] != g)
                continue;
            const tc_mb_setup *st = &cs->setup[e];
            int pf = st->kind == TC_SETUP_PREFETCH;
            int kind = g == s->nlevels && s->flush ? (pf ? STEP_FLUSH_PREFETCH : STEP_FLUSH)
                                                   : (pf ? STEP_PREFETCH : STEP_TOUCH);
            out[n++] = (step){kind, st->operand, g};
            any = 1;
        }
        if (any && g > 0 && !(g == s->nlevels && s->flush))
            out[n++] = (step){STEP_EVICT, -1, g};
        if (g == tlb_after)
            out[n++] = (step){STEP_TLB, -1, g};
    }
    return n;
}

/* Whether operand i of cs is streamed: its prefetched part is all of it,
 * one contiguous run the loop streams through (the next iteration's
 * following this one's) on a machine whose hardware fetches ahead of a
 * stream (the profile's depth > 0): in the loop the stream runs ahead of
 * every call, its latency hidden, and what it costs is bandwidth
 * (bound_of). Columns far apart are as many streams as columns, more than
 * a prefetcher follows, and dgemm walks even a contiguous operand tile by
 * tile, not front to back: their first lines only, as before, or for a
 * dgemm's run of short columns the stream's depth (step_shape). */
static int one_run(const tc_operand *op)
{
    return op->rank < 2 || op->extent[1] <= 1 || op->stride[1] == op->extent[0];
}

static int tiled(const tc_mb_case *cs)
{
    return cs->node->kind == TC_NODE_KERNEL && cs->node->call->kernel == TC_KERNEL_DGEMM;
}

static int streamed(const tc_mb_sampler *s, const tc_mb_case *cs, int i)
{
    return cs->operand[i].prefetch == TC_PREFETCH_STREAM && s->o.stream_lines > 0 &&
           one_run(&cs->operand[i].op) && !tiled(cs);
}

/* Elements of a dgemm operand's run that the stream fetched ahead of the
 * call: the profile's depth, where the run is longer (0: not such an
 * operand). A dgemm takes the run tile by tile, so the prefetcher stays
 * that far into it: ci'-dgemm of C[a,b,c] = A[i,j,a] * B[j,b,i,c] reads
 * B[:,:,i+1,c], 8 KiB right after B[:,:,i,c], and a call found 6.0 us
 * with it in memory and 5.1-5.2 with it in cache; placed whole as
 * prefetched, ci'-dgemm was predicted as fast as cj'-dgemm and ran 10 %
 * slower. (Columns longer than a line keep the first line each.) */
static int64_t tiled_stream_part(const tc_mb_sampler *s, const tc_mb_case *cs, int i)
{
    const tc_mb_operand *o = &cs->operand[i];
    int64_t ahead = (int64_t)s->o.stream_lines * s->line_doubles;
    if (!tiled(cs) || o->prefetch != TC_PREFETCH_STREAM || ahead <= 0 || !one_run(&o->op) ||
        o->op.extent[0] > s->line_doubles || o->elements <= ahead)
        return 0;
    return ahead;
}

/* Whether the prefetch of operand i brings in the first line of each of
 * its columns only (the paper's rule): the operand is not streamed and
 * its columns are longer than a line. */
static int first_lines_only(const tc_mb_sampler *s, const tc_mb_case *cs, const prepared *p,
                            int i)
{
    return !streamed(s, cs, i) && p->first[i] && cs->operand[i].op.extent[0] > s->line_doubles;
}

/*
 * A steady case whose loop moves each operand it indexes on to the run
 * right after the last (every such operand streamed) is timed as a train
 * of calls in a row, each on the next runs, as in the loop: the first
 * call's runs where the setup puts them, the others where the operand's
 * distance says (memory, mostly). The prefetcher then runs ahead of the
 * train as it does ahead of the loop, and what the stream costs is
 * measured, not added: on a Zen 5 VM a dgemv 256x8 whose 2 KiB of y the
 * loop streams ran 153 ns per call in the loop, 137 ns with y in cache,
 * and was predicted 264 ns timed alone with the stream's bytes added
 * (docs/prediction.md, Streams). Long enough to stream TRAIN_BYTES, at
 * most the loop's extent; 1 (no train) otherwise.
 *
 * A call on at most TINY_BYTES (a BLAS-1 call of a few lines, a few ns)
 * is timed as a train of TINY_CALLS, at most the loop's extent, each on
 * the data the loop gives it next, whatever the steps: timed alone, its
 * misses are waited for one by one, where in the loop the next calls'
 * misses overlap them (docs/prediction.md, Tiny calls).
 *
 * Any other call that writes a vector the loop moves is timed as a train
 * writing WRITTEN_TRAIN_BYTES of that vector's lines, at least TRAIN_MIN
 * calls, at most the loop's extent (written_vector_lines).
 */
#define TRAIN_BYTES ((int64_t)256 << 10)
#define TRAIN_MIN 8
#define TRAIN_MAX 256
#define TINY_BYTES 1024
#define TINY_CALLS 64
#define WRITTEN_TRAIN_BYTES ((int64_t)128 << 10) /* lines of written vectors */

/* Columns that the loop moves by their own height (B[:,b,:] of ab-dgemv
 * in experiment 1, b inner): a train's calls interleave, together runs of
 * calls x extent[0] at the columns' stride. The most calls whose runs stay
 * apart; 0 when op is not such columns. */
static int64_t interleaved_calls(const tc_operand *op, int64_t step)
{
    if (op->rank < 2 || op->extent[0] <= 0 || op->extent[1] <= 1 || op->stride[0] != 1 ||
        step != op->extent[0] || op->stride[1] <= op->extent[0])
        return 0;
    return op->stride[1] / op->extent[0];
}

/* Whether operand i, moved by the loop, can be laid out for a train: the
 * call sees it as the case describes it, and its span is known. */
static int trainable(const tc_mb_case *cs, const prepared *p, int i)
{
    return same_shape(&p->call[i], &cs->operand[i].op) && p->span[i] >= 0 && p->used[i] >= 0;
}

/* The bytes a streamed train moves per call; 0 when the case is none. */
static int64_t stream_train_bytes(const tc_mb_sampler *s, const tc_mb_case *cs,
                                  const prepared *p)
{
    int64_t bytes = 0;
    for (int i = 0; i < p->n; i++) {
        const tc_mb_operand *o = &cs->operand[i];
        if (o->loop_step == 0)
            continue; /* the same data in every iteration */
        if (!streamed(s, cs, i) || o->loop_step != o->elements || o->span != o->elements ||
            !trainable(cs, p, i))
            return 0;
        bytes += 8 * o->elements;
    }
    return bytes;
}

/* Whether the case's call is tiny and each operand the loop moves a
 * vector (train_shape covers its calls in two dimensions). */
static int tiny_train(const tc_mb_case *cs, const prepared *p)
{
    int64_t bytes = 0;
    if (cs->node->kind != TC_NODE_KERNEL)
        return 0;
    for (int i = 0; i < p->n; i++) {
        const tc_mb_operand *o = &cs->operand[i];
        bytes += 8 * o->elements;
        if (o->loop_step != 0 &&
            ((o->op.rank > 1 && o->op.extent[1] > 1) || !trainable(cs, p, i)))
            return 0;
    }
    return bytes <= TINY_BYTES;
}

/*
 * Lines a call writes through a vector that the loop moves (0: the case
 * writes none, or moves an operand train_shape cannot lay out). Timed
 * alone, such a call waits for its output's lines one by one and leaves
 * its dirty lines behind; in the loop the next calls' misses overlap the
 * last ones' and their dirty lines pile into the same cache sets where
 * the strides are powers of two. On a Zen 5 VM (one thread), experiment
 * 1 (C[a,b,c] = A[a,i] * B[i,b,c], i=8): ac-dgemv at a=b=c=128 (y =
 * C[a,:,c], a line per element, each c 128 KiB on) ran 1.09 us per dgemv
 * in the loop, 0.75 us alone with its lines in L3, 1.0 us as a train of
 * 16; bc-dgemv at 256 (y = C[:,b,c], 2 KiB from memory, each c 512 KiB
 * on) ran 326 ns per call and was predicted 431 ns alone
 * (docs/prediction.md, Written vectors, timed as trains).
 */
static int64_t written_vector_lines(const tc_mb_sampler *s, const tc_mb_case *cs,
                                    const prepared *p)
{
    int64_t lines = 0;
    if (cs->node->kind != TC_NODE_KERNEL)
        return 0;
    for (int i = 0; i < p->n; i++) {
        const tc_operand *op = &cs->operand[i].op;
        if (cs->operand[i].loop_step == 0)
            continue;
        int columns = op->rank > 1 && op->extent[1] > 1;
        if (!trainable(cs, p, i) || (columns && op->stride[0] != 1) ||
            !(one_run(op) || interleaved_calls(op, cs->operand[i].loop_step)))
            return 0; /* train_shape lays out vectors, runs of columns and interleaved columns */
        if (!cs->operand[i].written || op->rank != 1)
            continue; /* a matrix (dger) or a scalar (ddot) */
        int64_t n = op->extent[0], step = op->stride[0];
        lines += step >= s->line_doubles ? n : (n * step + s->line_doubles - 1) / s->line_doubles;
    }
    return lines;
}

static tc_mb_shape train_shape(const prepared *p, int i);

static void plan_train(const tc_mb_sampler *s, const tc_mb_case *cs, prepared *p)
{
    p->train = 1;
    if (cs->kind != TC_CASE_STEADY || cs->scale > 1.0)
        return;
    int64_t k, bytes = stream_train_bytes(s, cs, p);
    if (bytes > 0) {
        k = (TRAIN_BYTES + bytes - 1) / bytes;
        k = k < TRAIN_MIN ? TRAIN_MIN : k > TRAIN_MAX ? TRAIN_MAX : k;
    } else if (tiny_train(cs, p)) {
        k = TINY_CALLS;
    } else if ((bytes = 8 * s->line_doubles * written_vector_lines(s, cs, p)) > 0) {
        k = (WRITTEN_TRAIN_BYTES + bytes - 1) / bytes;
        k = k < TRAIN_MIN ? TRAIN_MIN : k > TRAIN_MAX ? TRAIN_MAX : k;
    } else {
        return;
    }
    if (k > cs->loop_extent)
        k = cs->loop_extent;
    for (int i = 0; i < p->n; i++) {
        int64_t most = interleaved_calls(&p->call[i], cs->operand[i].loop_step);
        if (most > 0 && k > most)
            k = most;
    }
    if (k < 2)
        return;
    p->train = (int)k;
    for (int i = 0; i < p->n; i++) {
        int64_t step = cs->operand[i].loop_step, more = (k - 1) * step;
        p->train_step[i] = step;
        p->span[i] += more;
        /* the pages all the calls touch: a vector whose calls lie pages
         * apart touches its pages once per call, not the span between them
         * (counted as the span, ac-dgemv of a 3.6 GB C at a=b=15000 mapped
         * it all in huge pages) */
        if (step > 0)
            p->used[i] = shape_page_doubles(train_shape(p, i), p->span[i]);
    }
}

int tc_mb_case_train(const tc_mb_sampler *s, const tc_contraction *c, const tc_mb_case *cs)
{
    prepared p;
    if (!s || !cs || prepare(c, cs, &p, NULL) != TC_OK)
        return 1;
    plan_train(s, cs, &p);
    return p.train;
}

/* Operand i for every call of a train: one run from the first call's to
 * the last's where each call continues the last one's run; interleaved
 * columns as one run per column; else the vector of each call (dimension
 * 0) at each call's step (dimension 1). */
static tc_mb_shape train_shape(const prepared *p, int i)
{
    const tc_operand *op = &p->call[i];
    int64_t n = op->rank > 0 ? op->extent[0] : 1, stride = op->rank > 0 ? op->stride[0] : 1;
    if (interleaved_calls(op, p->train_step[i]) > 0)
        return (tc_mb_shape){n * p->train, op->extent[1], 1, op->stride[1]};
    if (op->rank > 1 && op->extent[1] > 1 && op->stride[1] == n && stride == 1)
        n *= op->extent[1]; /* a run of columns */
    if (stride == 1 && p->train_step[i] == n)
        return (tc_mb_shape){p->span[i], 1, 1, 0};
    return (tc_mb_shape){n, p->train, stride, p->train_step[i]};
}

/* The shape a step touches: the operand, or its prefetched part: all of a
 * streamed operand, else one line along the tensor's first dimension; in
 * a train, the operand's runs for all its calls. */
static tc_mb_shape step_shape(const tc_mb_sampler *s, const tc_mb_case *cs, const prepared *p,
                              const step *st)
{
    tc_mb_shape sh = shape_of(&cs->operand[st->operand].op);
    int pf = st->kind == STEP_PREFETCH || st->kind == STEP_FLUSH_PREFETCH;
    int64_t part = pf ? tiled_stream_part(s, cs, st->operand) : 0;
    if (pf && first_lines_only(s, cs, p, st->operand))
        sh.n0 = s->line_doubles;
    if (part > 0) /* the first columns of the run */
        sh.n1 = (part + sh.n0 - 1) / sh.n0;
    if (!pf && p->train_step[st->operand] > 0)
        sh = train_shape(p, st->operand);
    return sh;
}

/*
 * The kernel's call once on small dense operands of the sampler's own, so
 * that what the library keeps between calls (its code, its packing
 * buffers, their translations) is as warm as in a loop of such calls,
 * while the case's operands stay where the setup put them. An eviction
 * from the unified levels evicts the library too: a 24x12x24 dgemm with
 * its operands in L1 took 4 us after 16 MB of other data was read and
 * 0.5 us in a loop (0.55 us with such a call in between). Calls whose
 * dense operands exceed the buffer are long enough not to notice.
 */
static void warm_library(tc_mb_sampler *s, const tc_node *node)
{
    if (node->kind != TC_NODE_KERNEL || !s->warm)
        return;
    tc_call k = *node->call;
    double *p[3];
    int64_t used = 0;
    for (int i = 0; i < 3; i++) {
        tc_operand *op = &k.arg[i];
        int64_t n = op->rank == 0 ? 1 : op->extent[0] * (op->rank == 2 ? op->extent[1] : 1);
        if (n <= 0 || n > s->warm_count - used)
            return;
        op->ld = op->rank == 2 ? op->extent[0] : op->rank == 1 ? 1 : 0;
        p[i] = s->warm + used;
        used += n;
    }
    s->warm_alpha = -s->warm_alpha;
    tc_rt_call(s->o.blas, &k, s->warm_alpha, p[0], p[1], p[2]);
    s->warmed++;
}

static int64_t run_setup(tc_mb_sampler *s, const tc_mb_case *cs, const prepared *p,
                         double *const base[])
{
    step plan[MAX_STEPS];
    int nsteps = place(s, cs, p, plan);
    double acc = 0.0;
    int64_t touched = 0, flushed = 0;
    int warm_after = -1; /* the last step that evicts the library */
    for (int e = 0; e < nsteps; e++)
        if (plan[e].kind == STEP_EVICT || plan[e].kind == STEP_TLB)
            warm_after = e;
    for (int e = 0; e < nsteps; e++) {
        const step *st = &plan[e];
        int flush = st->kind == STEP_FLUSH || st->kind == STEP_FLUSH_PREFETCH;
        if (flushed && !flush) {
            /* the flushes done before anything is placed: a load may pass a
             * flush of its own line, which then evicts what it brought */
            tc_mb_touch_fence();
            flushed = 0;
        }
        if (st->kind == STEP_EVICT || st->kind == STEP_TLB) {
            touched += st->kind == STEP_EVICT
                           ? tc_mb_touch_remote(s->pool, s->pool_lines, s->line_doubles,
                                                &s->cursor, evict_elements(s, st->level), &acc)
                           : tc_mb_pages_touch(&s->tlb, s->tlb.count, &acc);
            if (e == warm_after)
                warm_library(s, cs->node);
            continue;
        }
        int i = st->operand;
        tc_mb_shape sh = step_shape(s, cs, p, st);
        if (flush) {
            touched += tc_mb_touch_flush(base[i], &sh, s->o.line_bytes);
            if (st->kind == STEP_FLUSH && !same_shape(&cs->operand[i].op, &p->call[i])) {
                tc_mb_shape call = shape_of(&p->call[i]); /* lines only the call uses */
                tc_mb_touch_flush(base[i], &call, s->o.line_bytes);
            }
            flushed = 1;
        } else if (cs->operand[i].written) {
            touched += tc_mb_touch_rmw(base[i], &sh, s->zero, &acc);
        } else {
            touched += tc_mb_touch_read(base[i], &sh, &acc);
        }
    }
    if (flushed)
        tc_mb_touch_fence();
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

/* The case's call, or its train of calls (plan_train). */
static void call_node(const tc_mb_sampler *s, const tc_mb_case *cs, const prepared *p,
                      double alpha, double *const base[])
{
    const tc_node *node = cs->node;
    for (int k = 0; k < p->train; k++) {
        double *at[TC_MB_MAX_OPERANDS] = {NULL, NULL, NULL};
        for (int i = 0; i < p->n; i++)
            at[i] = base[i] + k * p->train_step[i];
        if (node->kind == TC_NODE_KERNEL)
            tc_rt_call_beta(s->o.blas, node->call, alpha, cs->beta, at[0], at[1], at[2]);
        else
            tc_rt_copy(node->copy, at[0], at[1]);
    }
}

/* Warm-up, then n timed calls (n <= s->ntimes); tc_rt_timer_estimate of
 * them. A repetition (setup and call) longer than LONG_REPETITION_S runs
 * at most LONG_REPS times: its median is stable, and flushing megabytes
 * each time made such cases most of a prediction's cost. */
static double timing_run(tc_mb_sampler *s, const tc_mb_case *cs, const prepared *p,
                         double *const base[], int n)
{
    double alpha = 1.0;
    double t = tc_rt_now();
    run_setup(s, cs, p, base);
    call_node(s, cs, p, alpha, base);
    double once = tc_rt_now() - t;
    if (once > LONG_REPETITION_S && n > LONG_REPS)
        n = once > HUGE_REPETITION_S && n > HUGE_REPS ? HUGE_REPS : LONG_REPS;
    for (int r = 0; r < n; r++) {
        alpha = -alpha; /* outputs accumulate: keep them bounded */
        run_setup(s, cs, p, base);
        uint64_t t0 = tc_rt_timer_start();
        call_node(s, cs, p, alpha, base);
        uint64_t t1 = tc_rt_timer_stop();
        s->times[r] = t1 > t0 ? t1 - t0 : 0;
    }
    return tc_rt_timer_estimate(s->o.timer, s->times, n) / p->train;
}

/* Flops of one call of the case's node (0 for a copy). */
static double node_flops(const tc_node *node)
{
    if (node->kind != TC_NODE_KERNEL)
        return 0.0;
    const tc_call *k = node->call;
    switch (k->kernel) {
    case TC_KERNEL_DGEMM:
        return 2.0 * (double)k->m * (double)k->n * (double)k->k;
    case TC_KERNEL_DGEMV:
    case TC_KERNEL_DGER:
        return 2.0 * (double)k->m * (double)k->n;
    case TC_KERNEL_DAXPY:
    case TC_KERNEL_DDOT:
        return 2.0 * (double)k->n;
    default:
        return 0.0;
    }
}

/*
 * The least time the case can take: its flops at the peak rate, and the
 * bytes of the operands in memory (the setup flushed them) at the
 * bandwidth. steady: every such operand's bytes, a written one's read and
 * written back at the update bandwidth (in the loop its lines go back to
 * memory as the next call's come in), which the call in isolation does
 * not pay; else only the bytes the timed call itself fetched from memory
 * (a streamed operand's prefetched part is in cache): a timing below that
 * bound is a measurement error.
 *
 * *stream (when given, steady): what the streamed operands in memory add
 * to the call in the loop. The setup put them in cache, and the timed
 * call paid nothing for them: all their bytes at the bandwidth, added,
 * not overlapped with the call's work; only the bytes beyond the
 * prefetcher's depth fit short vectors better, and ranked a dgemv nest
 * 1.8x slower than a dgemm first (docs/prediction.md, Biases corrected,
 * Streams). Not divided among threads: a call this short runs on one.
 */
static double bound_of(const tc_mb_sampler *s, const tc_mb_case *cs, int steady, double *stream)
{
    const tc_mb_sampler_options *o = &s->o;
    int threads = o->threads > 0 ? o->threads : 1;
    double bound = 0.0;
    if (stream)
        *stream = 0.0;
    if (!cs || !cs->node)
        return 0.0;
    if (o->peak_flops > 0.0)
        bound = node_flops(cs->node) / (o->peak_flops * threads);
    if (o->memory_bandwidth > 0.0) {
        prepared p;
        step plan[MAX_STEPS];
        if (prepare(NULL, cs, &p, NULL) != TC_OK)
            return bound;
        int n = place(s, cs, &p, plan);
        double read = 0.0, updated = 0.0; /* bytes */
        double update_bw = o->update_bandwidth > 0.0 ? o->update_bandwidth : o->memory_bandwidth;
        for (int e = 0; e < n; e++) {
            if (plan[e].kind != STEP_FLUSH)
                continue;
            int i = plan[e].operand;
            double el = (double)cs->operand[i].elements;
            if (stream && steady && streamed(s, cs, i))
                *stream += cs->operand[i].written ? 2.0 * 8.0 * el / update_bw
                                                  : 8.0 * el / o->memory_bandwidth;
            if (steady && cs->operand[i].written) {
                updated += 2.0 * 8.0 * el;
                continue;
            }
            for (int f = 0; !steady && f < n; f++)
                if (plan[f].kind == STEP_PREFETCH && plan[f].operand == i) {
                    tc_mb_shape part = step_shape(s, cs, &p, &plan[f]);
                    el -= (double)(part.n0 * part.n1);
                }
            read += 8.0 * (el > 0.0 ? el : 0.0);
        }
        double b = (read / o->memory_bandwidth + updated / update_bw) / threads;
        if (b > bound)
            bound = b;
    }
    return bound;
}

double tc_mb_case_bound(const tc_mb_sampler *s, const tc_mb_case *cs)
{
    return bound_of(s, cs, 1, NULL);
}

/*
 * 1 for a daxpy or dger: the call is one pass over its output, read and
 * written in place. In cache that pass runs at the cache's pace; with the
 * output streamed from memory the same pass runs at memory's instead, so
 * the stream's bytes replace the call's time rather than add to it. Added,
 * `ic-dger` of C[a,b,c] = A[a,i] B[i,b,c] (a=b=c=192..448; C swept once
 * per i) was predicted 24-47 % slow; a daxpy of 2000 streamed ran 698 ns
 * a call in a loop, against 711 ns for its bytes alone and 811 ns added
 * (the table in docs/prediction.md, Streams). A ddot or dgemv does add
 * them.
 */
static int one_pass(const tc_node *node)
{
    return node->kind == TC_NODE_KERNEL &&
           (node->call->kernel == TC_KERNEL_DAXPY || node->call->kernel == TC_KERNEL_DGER);
}

/*
 * The case's time: o.reps timed calls; more (at least SHORT_REPS) when the
 * call lasts only a few counter steps, so that their mean converges; and,
 * when that is still below what the call's flops and compulsory bytes
 * allow (a preempted timer read, a quantised counter), timed again with
 * 3x the repetitions and, if it stays impossible, the bound itself: no
 * prediction rests on a time faster than the machine. Then the streamed
 * operands' bytes on top, and the loop's bound under it (bound_of).
 */
static double time_case(tc_mb_sampler *s, const tc_mb_case *cs, const prepared *p,
                        double *const base[])
{
    const tc_timer *tm = s->o.timer;
    double quantum = (tm->quantum_ticks > 1.0 ? tm->quantum_ticks : 1.0) * tm->seconds_per_tick;
    double m = timing_run(s, cs, p, base, s->o.reps);
    if (m < 8.0 * quantum && s->o.reps < SHORT_REPS)
        m = timing_run(s, cs, p, base, SHORT_REPS);
    double bound = bound_of(s, cs, 0, NULL);
    if (m < bound) {
        int n = 3 * s->o.reps > SHORT_REPS ? 3 * s->o.reps : SHORT_REPS;
        m = timing_run(s, cs, p, base, n);
        if (m < bound) {
            m = bound;
            s->bounded++;
        }
    }
    double stream;
    double steady = bound_of(s, cs, 1, &stream); /* what the call pays in the loop */
    if (p->train == 1) /* a train measured its streams */
        m = one_pass(cs->node) ? (m > stream ? m : stream) : m + stream;
    if (m < steady)
        m = steady;
    /* a call hidden in the timer's own overhead and no bound known: one
     * counter step, so that no case costs nothing */
    if (!(m > 0.0))
        m = quantum > 0.0 ? quantum : 1e-9;
    return m;
}

/* ---- operand blocks ---------------------------------------------------- */

/* Whether a block of count doubles with this policy gets huge pages. */
static int on_huge_pages(int64_t count, tc_pages pages)
{
    return pages == TC_PAGES_AUTO && count >= TC_HUGE_MIN / (int64_t)sizeof(double);
}

/* A block of at least count doubles for operand i on pages of the given
 * kind, `used` of them in pages it will touch: the spare one on pages of
 * the same size when it is large enough, else a new one. */
static tc_status operand_block(tc_mb_sampler *s, int i, int64_t count, int64_t used,
                               tc_pages pages, block *b, tc_error *err)
{
    int huge = on_huge_pages(count, pages);
    block *spare = &s->spare[i][huge];
    if (spare->base && spare->count >= count) {
        *b = *spare;
        spare->base = NULL;
    } else {
        /* from a huge page's size up to what a spare may keep, with room
         * for the slightly larger operands of cases to come (an eighth of
         * the size at most; a larger span gets what fit() allowed) */
        int64_t room = count;
        if (count >= TC_HUGE_MIN / (int64_t)sizeof(double) &&
            count <= SPARE_MAX / (int64_t)sizeof(double)) {
            int64_t step = TC_HUGE_PAGE / (int64_t)sizeof(double);
            while (step <= count / 16)
                step *= 2;
            room = (count + step - 1) / step * step;
        }
        *b = (block){tc_rt_alloc_pages(room, pages, err), room, 0, pages};
        if (!b->base)
            return TC_ERESOURCE;
    }
    /* a huge page is faulted in whole: count it all until asked (release) */
    int64_t bytes = b->count * (int64_t)sizeof(double);
    int64_t r = huge ? bytes : b->resident + used * (int64_t)sizeof(double);
    b->resident = r < bytes ? r : bytes;
    return TC_OK;
}

/* What the spares keep resident; *largest (when asked): the largest spare
 * other than `kept`, NULL if none. */
static int64_t spares_resident(tc_mb_sampler *s, const block *kept, block **largest)
{
    int64_t total = 0;
    if (largest)
        *largest = NULL;
    for (int j = 0; j < TC_MB_MAX_OPERANDS; j++)
        for (int h = 0; h < 2; h++) {
            block *k = &s->spare[j][h];
            if (!k->base)
                continue;
            total += k->resident;
            if (largest && k != kept && (!*largest || k->resident > (*largest)->resident))
                *largest = k;
        }
    return total;
}

/* Keeps block b of operand i as the spare for its size of pages, and frees
 * other spares, largest first, until what they keep resident is at most
 * SPARE_MAX; a block that alone holds more is freed. A strided slice of a
 * large tensor spans the tensor but touches a page per column, and a
 * CCSD term's operands are 24-30 MB: freeing blocks by their span made
 * every case fault its pages in anew (88 000 faults and 1.5 GB of pages
 * zeroed, most of predicting a CCSD term on a VM where a fault exits to the
 * hypervisor). What is resident is counted up from the pages touched and,
 * past the limit, asked of the kernel. */
static void operand_release(tc_mb_sampler *s, int i, block *b)
{
    if (!b->base)
        return;
    if (b->resident > SPARE_MAX)
        b->resident = tc_rt_resident_bytes(b->base, b->count);
    if (b->resident > SPARE_MAX) {
        tc_rt_free(b->base);
        return;
    }
    int huge = on_huge_pages(b->count, b->pages);
    block *kept = &s->spare[i][huge];
    tc_rt_free(kept->base);
    *kept = *b;
    if (spares_resident(s, kept, NULL) <= SPARE_MAX)
        return;
    for (int j = 0; j < TC_MB_MAX_OPERANDS; j++) /* counted from pages touched: bounds */
        if (s->spare[j][0].base)
            s->spare[j][0].resident = tc_rt_resident_bytes(s->spare[j][0].base,
                                                           s->spare[j][0].count);
    block *largest;
    while (spares_resident(s, kept, &largest) > SPARE_MAX && largest) {
        tc_rt_free(largest->base);
        largest->base = NULL;
    }
}

/* ---- a part of a case that fits the budget --------------------------- */

/* A case with its own copies of the node and its call or copy, so that
 * dimensions can be cut without touching the algorithm. */
typedef struct scaled {
    tc_mb_case cs;
    tc_node node;
    tc_call call;
    tc_copy copy;
} scaled;

/* Operand i of a case cut to a slab had `before` elements: its setup
 * entries follow. The part a slab keeps is the front of the operand, and
 * the call walks the rest after it: that rest adds to its distance (a
 * dgemm writing a 95 MB temporary was timed on a 24 MB slab of it placed
 * in the LLC, 25 % fast; the permutation reading it back, likewise). */
static void shrink_setup(tc_mb_case *cs, int i, int64_t before)
{
    int64_t after = cs->operand[i].elements;
    for (int e = 0; e < cs->nsetup; e++) {
        tc_mb_setup *st = &cs->setup[e];
        if (st->operand == i && st->kind == TC_SETUP_OPERAND) {
            st->elements = after;
            st->distance += before - after;
        } else if (st->operand == i && st->kind == TC_SETUP_PREFETCH && before > 0) {
            st->elements = st->elements * after / before;
        }
    }
}

static void set_extent(tc_operand *op, int pos, int64_t from, int64_t to)
{
    for (int d = 0; d < op->rank; d++)
        if (op->dim[d] == pos && op->extent[d] == from)
            op->extent[d] = to;
}

/* Cuts index position pos from `from` to `to` everywhere in sc. */
static void cut(scaled *sc, int pos, int64_t from, int64_t to)
{
    if (sc->node.kind == TC_NODE_KERNEL) {
        tc_call *k = &sc->call;
        if (k->dim_m == pos && k->m == from)
            k->m = to;
        if (k->dim_n == pos && k->n == from)
            k->n = to;
        if (k->dim_k == pos && k->k == from)
            k->k = to;
        for (int i = 0; i < 3; i++)
            set_extent(&k->arg[i], pos, from, to);
    } else {
        /* the permutation the copy runs: its dimension with the slice
         * dimension's tensor stride (the view's source side is the
         * tensor's) */
        tc_operand *sl = &sc->copy.slice;
        for (int d = 0; d < sl->rank; d++) {
            if (sl->dim[d] != pos || sl->extent[d] != from)
                continue;
            for (int k = 0; k < sc->copy.view.rank; k++)
                if (sc->copy.view.src_stride[k] == sl->stride[d] &&
                    sc->copy.view.extent[k] == from) {
                    sc->copy.view.extent[k] = to;
                    break;
                }
        }
        set_extent(sl, pos, from, to);
    }
    for (int i = 0; i < sc->cs.noperands; i++) {
        tc_mb_operand *o = &sc->cs.operand[i];
        int64_t before = o->elements;
        set_extent(&o->op, pos, from, to);
        o->elements = 1;
        o->span = 1;
        for (int d = 0; d < o->op.rank; d++) {
            o->elements *= o->op.extent[d];
            o->span += (o->op.extent[d] - 1) * o->op.stride[d];
        }
        shrink_setup(&sc->cs, i, before);
    }
}

/* The index positions (and extents) a cut may halve: the call's dimensions,
 * or a copy's two. */
static int cut_candidates(const scaled *sc, int pos[3], int64_t ext[3])
{
    int n = 0;
    if (sc->node.kind == TC_NODE_KERNEL) {
        const tc_call *k = &sc->call;
        const int dims[3] = {k->dim_m, k->dim_n, k->dim_k};
        const int64_t sizes[3] = {k->m, k->n, k->k};
        for (int d = 0; d < 3; d++)
            if (dims[d] >= 0 && sizes[d] > 1) {
                pos[n] = dims[d];
                ext[n++] = sizes[d];
            }
    } else if (!sc->copy.whole) { /* a whole-tensor permutation is timed whole */
        for (int d = 0; d < sc->copy.slice.rank; d++)
            if (sc->copy.slice.extent[d] > 1) {
                pos[n] = sc->copy.slice.dim[d];
                ext[n++] = sc->copy.slice.extent[d];
            }
    }
    return n;
}

/* 1 when the operands' spans (address space, mostly unmapped for a
 * strided slice) exceed the memory available: the allocation would be
 * refused. */
static int beyond_address_space(const prepared *p, int64_t avail)
{
    double total = 0.0;
    for (int i = 0; i < p->n; i++)
        total += p->span[i] < 0 ? 1e30 : 8.0 * (double)p->span[i];
    return avail >= 0 && total > (double)avail;
}

/* 1 for a dgemm with at least COMPUTE_BOUND_INTENSITY flops per byte of
 * its operands: even streaming all of them from memory adds a few percent
 * to it (a byte from memory costs about 1.5 flops' time on the development
 * VM: 60 GFLOP/s, 39 GB/s). Its slab need not stay beyond the cache: kept
 * there, the 1920x1600x2304 dgemm of a CCSD term's A^B^-dgemm was timed on
 * 80 ms slabs, 0.69 s of a 0.8 s ranking. */
#define COMPUTE_BOUND_INTENSITY 32.0
static int compute_bound(const tc_node *node)
{
    if (node->kind != TC_NODE_KERNEL || node->call->kernel != TC_KERNEL_DGEMM)
        return 0;
    const tc_call *k = node->call;
    double m = (double)k->m, n = (double)k->n, kk = (double)k->k;
    return node_flops(node) >= COMPUTE_BOUND_INTENSITY * 8.0 * (m * kk + kk * n + m * n);
}

/* 1 when a call of the case is more than a slab: its flop and
 * compulsory-byte bound above TC_MB_SLAB_SECONDS, or the pages its
 * operands touch above TC_MB_SLAB_BYTES (a vector of C with one element
 * per line maps all of C, each case again). */
static int beyond_slab(const tc_mb_sampler *s, const tc_mb_case *cs, int64_t need)
{
    return need > TC_MB_SLAB_BYTES || tc_mb_case_bound(s, cs) > TC_MB_SLAB_SECONDS;
}

/* A permutation's slab keeps each side above this many bytes when the
 * whole was beyond the cache: slabs of 5 MiB of a 95 MB permutation (twice
 * an LLC of 2.5 MiB) were timed 1.5x slower per byte than the whole, of
 * 20 MiB within 8 %. */
#define PERMUTE_SLAB_FLOOR ((int64_t)16 << 20)

/*
 * A whole-tensor permutation longer than a slab, cut to one: its view's
 * dimension outermost on the tensor's side halved (the tensor's side stays
 * one run from the start, the temporary's becomes runs: permute_footprint)
 * while the slab's bound passes TC_MB_SLAB_SECONDS or its two sides
 * TC_MB_SLAB_BYTES, keeping each side above `floor` bytes (beyond the
 * cache, as the whole was). Returns the factor the time scales by.
 */
static double slab_permutation(const tc_mb_sampler *s, scaled *sc, int64_t floor)
{
    tc_permute *v = &sc->copy.view;
    int k = -1;
    for (int d = 0; d < v->rank; d++)
        if (v->extent[d] > 1 && (k < 0 || v->src_stride[d] > v->src_stride[k]))
            k = d;
    double factor = 1.0;
    int64_t elements = sc->copy.slice.extent[0];
    while (k >= 0 && v->extent[k] > 1) {
        int64_t to = (v->extent[k] + 1) / 2, part = elements / v->extent[k] * to;
        int longer = 16 * elements > TC_MB_SLAB_BYTES ||
                     tc_mb_case_bound(s, &sc->cs) > TC_MB_SLAB_SECONDS;
        if (!longer || 8 * part < floor)
            break;
        factor *= (double)v->extent[k] / (double)to;
        v->extent[k] = to;
        elements = part;
        sc->copy.slice.extent[0] = elements;
        for (int i = 0; i < 2; i++) { /* the case's operands as the call's */
            tc_mb_operand *o = &sc->cs.operand[i];
            int64_t before = o->elements;
            tc_operand shape = o->op;
            permute_footprint(v, i == 1, &shape);
            o->op.rank = shape.rank;
            memcpy(o->op.extent, shape.extent, sizeof shape.extent);
            memcpy(o->op.stride, shape.stride, sizeof shape.stride);
            o->op.ld = shape.ld;
            o->elements = elements;
            o->span = op_span(&o->op);
            shrink_setup(&sc->cs, i, before);
        }
    }
    return factor;
}

/*
 * Makes sc a part of cs whose operands need at most `room` bytes and whose
 * call lasts about a slab (docs/prediction.md: a call too long to repeat
 * cheaply, one dgemm doing everything, is timed on a slab of it in the same
 * cache context and scaled by work), halving the dimension that frees most
 * each time; *p is prepared for it. avail (bytes of memory, -1 unknown)
 * bounds the spans. TC_ERESOURCE when no part fits.
 */
static tc_status fit(const tc_mb_sampler *s, const tc_contraction *c, const tc_mb_case *cs,
                     int64_t room, int64_t avail, scaled *sc, prepared *p, tc_error *err)
{
    sc->cs = *cs;
    sc->node = *cs->node;
    sc->node.parent = sc->node.next = sc->node.child = NULL;
    sc->cs.node = &sc->node;
    if (sc->node.kind == TC_NODE_KERNEL) {
        sc->call = *cs->node->call;
        sc->node.call = &sc->call;
    } else {
        sc->copy = *cs->node->copy;
        sc->node.copy = &sc->copy;
    }
    double factor = cs->scale > 1.0 ? cs->scale : 1.0;
    int64_t need = prepared_bytes(p);
    /* operands beyond twice the LLC stream from memory, and the data a
     * call touches twice (dgemm's beta pass, then its product) comes back
     * from memory only when it does not fit: a slab keeps that, unless
     * the call is compute-bound whatever its bytes do */
    int64_t llc = s->level[s->nlevels - 1];
    int64_t floor = (need < 0 || need >= 2 * llc) && !compute_bound(&sc->node) ? 2 * llc : 0;
    if (sc->node.kind == TC_NODE_COPY && sc->copy.whole) {
        factor *= slab_permutation(s, sc, floor > 0 && floor < PERMUTE_SLAB_FLOOR
                                                  ? PERMUTE_SLAB_FLOOR : floor);
        tc_status st = prepare(c, &sc->cs, p, err);
        if (st != TC_OK)
            return st;
        need = prepared_bytes(p);
    }
    for (int round = 0; round < 200 && (need < 0 || need > room || beyond_address_space(p, avail) ||
                                        beyond_slab(s, &sc->cs, need));
         round++) {
        int pos[3], best = -1;
        int64_t ext[3], best_need = -1;
        int n = cut_candidates(sc, pos, ext);
        /* a call that fits is cut only to shorten it: along its largest
         * dimension, so the part stays as square, and as fast per flop, as
         * it can (freeing memory first halved a 1920x1600x1920 dgemm's k
         * and predicted it 23 % slow; n alone ends in a sliver) */
        int shorten = need >= 0 && need <= room && !beyond_address_space(p, avail);
        for (int d = 0; d < n; d++) { /* try each, keep the one freeing most */
            scaled t = *sc;
            t.cs.node = &t.node;
            if (t.node.kind == TC_NODE_KERNEL)
                t.node.call = &t.call;
            else
                t.node.copy = &t.copy;
            cut(&t, pos[d], ext[d], (ext[d] + 1) / 2);
            prepared q;
            if (prepare(c, &t.cs, &q, NULL) != TC_OK)
                continue;
            int64_t b = prepared_bytes(&q);
            int better = best < 0 || (shorten ? ext[d] > ext[best] : b < best_need);
            if (b >= 0 && better) {
                best = d;
                best_need = b;
            }
        }
        if (best < 0 || best_need >= need)
            break; /* nothing left to cut, or cutting does not help */
        if (best_need < floor && need >= 0 && need <= room && !beyond_address_space(p, avail))
            break; /* a slab stays beyond the cache, as the whole call was */
        int64_t to = (ext[best] + 1) / 2;
        cut(sc, pos[best], ext[best], to);
        factor *= (double)ext[best] / (double)to;
        tc_status st = prepare(c, &sc->cs, p, err);
        if (st != TC_OK)
            return st;
        need = best_need;
    }
    sc->cs.scale = factor;
    /* a whole-tensor permutation cannot be cut (its view spans the tensor):
     * timed whole when memory allows, the one case above the budget */
    if (need > room && sc->node.kind == TC_NODE_COPY && sc->copy.whole && need >= 0 &&
        (avail < 0 || need <= avail))
        return TC_OK;
    if (need < 0 || need > room || beyond_address_space(p, avail)) {
        char what[96];
        describe(cs, what, sizeof what);
        return tc_error_set(err, TC_ERESOURCE, 0, 0,
                            "cannot sample %s: even a part of it needs more than the %lld "
                            "bytes of the sampler's memory budget",
                            what, (long long)room);
    }
    return TC_OK;
}

/* Memory available, read at most every AVAIL_SECONDS: /proc/meminfo took
 * a tenth of a prediction of thousands of candidates, read per case. */
#define AVAIL_SECONDS 0.1
static int64_t memory_available(tc_mb_sampler *s)
{
    double now = tc_rt_now();
    if (s->avail_at == 0.0 || now - s->avail_at > AVAIL_SECONDS) {
        s->avail = tc_rt_memory_available();
        s->avail_at = now;
    }
    return s->avail;
}

/* Times cs with its operands placed as s->edge_out says; *edge (when not
 * NULL) gets the weight of the LLC placement in its blend. */
static tc_status sample_placed(tc_mb_sampler *s, const tc_contraction *c, tc_mb_case *cs,
                               double *edge, tc_error *err)
{
    prepared p;
    tc_status st = prepare(c, cs, &p, err);
    if (st != TC_OK)
        return st;
    if (edge)
        *edge = case_edge_weight(s, cs, &p);
    char what[96];
    describe(cs, what, sizeof what);
    /* the operands of one case get what the pool leaves of the budget */
    int64_t room = s->budget - s->pool_bytes, avail = memory_available(s);
    if (avail >= 0 && avail < room)
        room = avail;
    scaled *sc = malloc(sizeof *sc);
    if (!sc)
        return tc_error_set(err, TC_ERESOURCE, 0, 0, "out of memory sampling %s", what);
    cs->scale = 1.0;
    st = fit(s, c, cs, room, avail, sc, &p, err);
    if (st != TC_OK) {
        free(sc);
        return st;
    }
    const tc_mb_case *run = &sc->cs; /* cs itself, or a part of it */
    prepared single = p;
    plan_train(s, run, &p);
    int64_t train_bytes = prepared_bytes(&p);
    if (p.train > 1 && (train_bytes < 0 || train_bytes > room))
        p = single; /* a train beyond the budget: the call alone */
    char key[KEY_MAX];
    if (build_key(s, run, &p, key, sizeof key) != 0) {
        free(sc);
        return tc_error_set(err, TC_EINTERNAL, 0, 0,
                            "sampler: a case key exceeds %d bytes", KEY_MAX);
    }
    double seconds;
    cs->scale = run->scale;
    if (tc_mb_memo_find(s->memo, key, &seconds)) {
        free(sc);
        cs->seconds = seconds;
        s->reused++;
        return TC_OK;
    }
    /* what the budget is charged: the operands, or all that is left of it
     * for a whole-tensor permutation timed above it (fit) */
    int64_t need = prepared_bytes(&p);
    s->case_bytes = need;
    if (need > room)
        need = room;
    st = tc_mb_budget_reserve(need, s->budget, err);
    if (st != TC_OK) {
        free(sc);
        return st;
    }
    double *base[TC_MB_MAX_OPERANDS] = {NULL, NULL, NULL};
    block blk[TC_MB_MAX_OPERANDS];
    for (int i = 0; i < p.n; i++) {
        /* huge pages only where the touched pages fill most of the span:
         * each 2 MiB page touched is mapped and zeroed whole */
        tc_pages pages = 2 * p.used[i] < p.span[i] ? TC_PAGES_SMALL : TC_PAGES_AUTO;
        if (operand_block(s, i, p.span[i], p.used[i], pages, &blk[i], err) != TC_OK) {
            for (int j = 0; j < i; j++)
                operand_release(s, j, &blk[j]);
            tc_mb_budget_release(need);
            free(sc);
            return TC_ERESOURCE;
        }
        base[i] = blk[i].base;
        /* only what is touched: the rest of a large span stays unmapped */
        tc_mb_shape sh = p.train_step[i] > 0 ? train_shape(&p, i) : shape_of(&p.call[i]);
        tc_mb_touch_init(base[i], &sh);
        if (!same_shape(&p.call[i], &run->operand[i].op)) {
            sh = shape_of(&run->operand[i].op);
            tc_mb_touch_init(base[i], &sh);
        }
    }
    seconds = time_case(s, run, &p, base) * run->scale;
    double sum = 0.0;
    for (int i = 0; i < p.n; i++) {
        if (run->operand[i].written) {
            tc_mb_shape sh = shape_of(&p.call[i]);
            tc_mb_touch_read(base[i], &sh, &sum);
        }
    }
    s->checksum = sum;
    for (int i = 0; i < p.n; i++)
        operand_release(s, i, &blk[i]);
    tc_mb_budget_release(need);
    free(sc);
    cs->seconds = seconds;
    s->timed++;
    if (tc_mb_memo_put(s->memo, key, seconds) != 0)
        return tc_error_set(err, TC_ERESOURCE, 0, 0,
                            "out of memory remembering the time of %s", what);
    return TC_OK;
}

tc_status tc_mb_sample(tc_mb_sampler *s, const tc_contraction *c, tc_mb_case *cs,
                       tc_error *err)
{
    if (!s || !cs)
        return tc_error_set(err, TC_EUSAGE, 0, 0, "tc_mb_sample: NULL argument");
    double w = 1.0;
    s->edge_out = 0;
    tc_status st = sample_placed(s, c, cs, &w, err);
    if (st != TC_OK || w <= 0.0 || w >= 1.0)
        return st;
    double in_llc = cs->seconds;
    s->edge_out = 1;
    st = sample_placed(s, c, cs, NULL, err);
    s->edge_out = 0;
    cs->seconds = w * in_llc + (1.0 - w) * cs->seconds;
    return st;
}

/* ---- the beta pass --------------------------------------------------- */

/* The executor's pass over C before an algorithm whose kernel cannot apply
 * beta (runtime/execute.c): the same loop. */
static void beta_pass(double *c, int64_t n, double beta)
{
    for (int64_t e = 0; e < n; e++)
        c[e] = beta == 0.0 ? 0.0 : c[e] * beta;
}

tc_status tc_mb_sample_beta_pass(tc_mb_sampler *s, int64_t elements, double beta,
                                 double *seconds, tc_error *err)
{
    if (!s || !seconds || elements < 0)
        return tc_error_set(err, TC_EUSAGE, 0, 0, "tc_mb_sample_beta_pass: bad argument");
    *seconds = 0.0;
    if (elements == 0)
        return TC_OK;
    /* C's distance is a whole run of the algorithm: at least C itself */
    int level = tc_mb_sampler_level(s, elements);
    /* a part, scaled up: within the budget, and from memory a streaming
     * pass of BETA_PART elements already runs at the rate of a longer one
     * (flushing all of C every repetition cost more than the prediction) */
    int64_t room = (s->budget - s->pool_bytes) / 8, n = elements;
    if (level == s->nlevels && room > BETA_PART)
        room = BETA_PART;
    double scale = 1.0;
    while (n > room && n > 1) {
        n = (n + 1) / 2;
        scale = (double)elements / (double)n;
    }
    char key[128];
    snprintf(key, sizeof key, "beta-pass n%lld b%d L%d x%.17g round%d", (long long)n,
             beta == 0.0 ? 0 : 1, level, scale, s->round);
    if (tc_mb_memo_find(s->memo, key, seconds)) {
        s->reused++;
        return TC_OK;
    }
    tc_status st = tc_mb_budget_reserve(n * 8, s->budget, err);
    if (st != TC_OK)
        return st;
    double *c = tc_rt_alloc(n, err);
    if (!c) {
        tc_mb_budget_release(n * 8);
        return TC_ERESOURCE;
    }
    tc_mb_shape sh = {n, 1, 1, 0};
    tc_mb_touch_init(c, &sh);
    double acc = 0.0;
    for (int r = 0; r <= s->o.reps; r++) { /* the first is the warm-up */
        if (level == s->nlevels && s->flush) {
            tc_mb_touch_flush(c, &sh, s->o.line_bytes);
            tc_mb_touch_fence();
        } else {
            tc_mb_touch_rmw(c, &sh, s->zero, &acc);
            if (level > 0)
                tc_mb_touch_remote(s->pool, s->pool_lines, s->line_doubles, &s->cursor,
                                   evict_elements(s, level), &acc);
        }
        uint64_t t0 = tc_rt_timer_start();
        beta_pass(c, n, beta);
        uint64_t t1 = tc_rt_timer_stop();
        if (r > 0)
            s->times[r - 1] = t1 > t0 ? t1 - t0 : 0;
    }
    s->sink = acc + c[n - 1];
    tc_rt_free(c);
    tc_mb_budget_release(n * 8);
    *seconds = tc_rt_timer_estimate(s->o.timer, s->times, s->o.reps) * scale;
    s->timed++;
    if (tc_mb_memo_put(s->memo, key, *seconds) != 0)
        return tc_error_set(err, TC_ERESOURCE, 0, 0, "out of memory remembering a time");
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
    if (o->flush != TC_FLUSH_CLFLUSH && o->flush != TC_FLUSH_REMOTE)
        return tc_error_set(err, TC_EUSAGE, 0, 0, "unknown flush mode %d", (int)o->flush);
    if (o->memory_budget < 0)
        return tc_error_set(err, TC_EUSAGE, 0, 0, "the memory budget must be positive");
    /* the machine's facts: the profile's reader refuses the same (model_input.h) */
    tc_status checked = tc_mb_model_input_check(o, err);
    if (checked != TC_OK)
        return checked;

    tc_mb_sampler *s = calloc(1, sizeof *s);
    if (!s)
        return tc_error_set(err, TC_ERESOURCE, 0, 0, "out of memory creating the sampler");
    s->o = *o;
    s->line_doubles = o->line_bytes / 8;
    s->flush = o->flush == TC_FLUSH_CLFLUSH && tc_mb_touch_can_flush();
    s->budget = o->memory_budget ? o->memory_budget : TC_MB_DEFAULT_BUDGET;
    /* the levels, increasing, the last one the LLC (an override included) */
    for (int k = 0; k < o->nlevels; k++)
        if (o->level_bytes[k] > 0 && o->level_bytes[k] < o->llc_bytes &&
            (s->nlevels == 0 || o->level_bytes[k] > s->level[s->nlevels - 1]))
            s->level[s->nlevels++] = o->level_bytes[k];
    if (s->nlevels == TC_MB_MAX_LEVELS)
        s->nlevels--;
    s->level[s->nlevels++] = o->llc_bytes;
    s->warm_count = s->level[0] / 4 / (int64_t)sizeof(double);
    s->warm_alpha = 1.0;
    s->warm = s->warm_count > 0 ? tc_rt_alloc(s->warm_count, NULL) : NULL;
    if (s->warm) {
        tc_mb_shape all = {s->warm_count, 1, 1, 0};
        tc_mb_touch_init(s->warm, &all);
    }

    /* twice the largest eviction: a region is never memory the previous
     * repetition just touched. Flushing: 5/4 of the level below the LLC;
     * remote mode: 5/4 of the LLC itself, within half the budget. */
    int64_t line = o->line_bytes;
    int64_t biggest = s->flush ? (s->nlevels > 1 ? s->level[s->nlevels - 2] : line)
                               : s->level[s->nlevels - 1];
    int64_t pool_bytes = biggest / 4 * 5 * 2;
    if (pool_bytes > s->budget / 2)
        pool_bytes = s->budget / 2;
    if (pool_bytes < 64 * line)
        pool_bytes = 64 * line;
    pool_bytes = (pool_bytes + line - 1) / line * line;
    int64_t avail = tc_rt_memory_available();
    if (avail >= 0 && pool_bytes > avail) {
        free(s);
        return tc_error_set(err, TC_ERESOURCE, 0, 0,
                            "the remote pool needs %lld bytes but only %lld bytes of memory "
                            "are available",
                            (long long)pool_bytes, (long long)avail);
    }
    s->pool_lines = pool_bytes / line;
    s->pool_bytes = pool_bytes;
    s->cursor = s->pool_lines;
    s->zero = 0.0;
    s->memo = tc_mb_memo_new();
    int ntimes = 3 * o->reps > SHORT_REPS ? 3 * o->reps : SHORT_REPS;
    s->created_reps = o->reps;
    s->times = calloc((size_t)ntimes, sizeof *s->times);
    if (!s->memo || !s->times) {
        tc_mb_sampler_free(s);
        return tc_error_set(err, TC_ERESOURCE, 0, 0, "out of memory creating the sampler");
    }
    tc_status st = tc_mb_pool_acquire(pool_bytes, s->budget, &s->pool, err);
    /* 5/4 of the reach, as for a cache; a physical page per 128 (tlb.h) */
    if (st == TC_OK && o->tlb_pages > 0)
        st = tc_mb_pages_map(o->tlb_pages / 4 * 5, &s->tlb, err);
    if (st != TC_OK) {
        tc_mb_sampler_free(s);
        return st;
    }
    *out = s;
    return TC_OK;
}

void tc_mb_sampler_free(tc_mb_sampler *s)
{
    if (!s)
        return;
    tc_mb_pool_release(s->pool, s->pool_bytes);
    tc_mb_pages_unmap(&s->tlb);
    for (int i = 0; i < TC_MB_MAX_OPERANDS; i++)
        for (int h = 0; h < 2; h++)
            tc_rt_free(s->spare[i][h].base);
    tc_rt_free(s->warm);
    free(s->times);
    tc_mb_memo_free(s->memo);
    free(s);
}

int64_t tc_mb_sampler_bounded(const tc_mb_sampler *s)
{
    return s ? s->bounded : 0;
}

int64_t tc_mb_sampler_pool_bytes(const tc_mb_sampler *s)
{
    return s ? s->pool_bytes : 0;
}

int64_t tc_mb_sampler_timed(const tc_mb_sampler *s)
{
    return s ? s->timed : 0;
}

int64_t tc_mb_sampler_warmed(const tc_mb_sampler *s)
{
    return s ? s->warmed : 0;
}

int64_t tc_mb_sampler_reused(const tc_mb_sampler *s)
{
    return s ? s->reused : 0;
}

int64_t tc_mb_sampler_case_bytes(const tc_mb_sampler *s)
{
    return s ? s->case_bytes : 0;
}

void tc_mb_sampler_round(tc_mb_sampler *s, int fresh)
{
    s->round = fresh ? ++s->rounds : 0;
}

int tc_mb_sampler_set_reps(tc_mb_sampler *s, int reps)
{
    int before = s->o.reps;
    s->o.reps = reps < 1 ? 1 : reps > s->created_reps ? s->created_reps : reps;
    return before;
}

double tc_mb_sampler_checksum(const tc_mb_sampler *s)
{
    return s ? s->checksum : 0.0;
}

/* ---- the cheapest call ------------------------------------------------ */

#define FLOOR_CALLS 256 /* calls per batch ... */
#define FLOOR_BATCHES 7 /* ... the fastest batch kept */

double tc_mb_sampler_call_floor(tc_mb_sampler *s, tc_kernel kernel)
{
    if (!s || kernel < 0 || kernel >= TC_KERNEL_COUNT)
        return 0.0;
    if (s->call_floor[kernel] > 0.0)
        return s->call_floor[kernel];
    const tc_blas *b = s->o.blas;
    double x[1] = {0.5}, y[1] = {0.25}, a[1] = {0.125}, best = 0.0, sum = 0.0;
    for (int r = 0; r < FLOOR_BATCHES; r++) {
        double t0 = tc_rt_now();
        for (int i = 0; i < FLOOR_CALLS; i++) {
            double alpha = i % 2 ? 1.0 : -1.0; /* outputs stay bounded */
            switch (kernel) {
            case TC_KERNEL_DDOT:
                sum += b->ddot(1, x, 1, y, 1);
                break;
            case TC_KERNEL_DAXPY:
                b->daxpy(1, alpha, x, 1, y, 1);
                break;
            case TC_KERNEL_DGEMV:
                b->dgemv(TC_CBLAS_COL_MAJOR, TC_CBLAS_NO_TRANS, 1, 1, alpha, a, 1, x, 1, 1.0,
                         y, 1);
                break;
            case TC_KERNEL_DGER:
                b->dger(TC_CBLAS_COL_MAJOR, 1, 1, alpha, x, 1, y, 1, a, 1);
                break;
            case TC_KERNEL_DGEMM:
                b->dgemm(TC_CBLAS_COL_MAJOR, TC_CBLAS_NO_TRANS, TC_CBLAS_NO_TRANS, 1, 1, 1,
                         alpha, a, 1, x, 1, 1.0, y, 1);
                break;
            case TC_KERNEL_COUNT:
                break;
            }
        }
        double t = (tc_rt_now() - t0) / FLOOR_CALLS;
        if (t > 0.0 && (best == 0.0 || t < best))
            best = t;
    }
    s->sink = sum + y[0] + a[0];
    s->call_floor[kernel] = best;
    return best;
}
