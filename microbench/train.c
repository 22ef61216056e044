/* train.c - how many calls in a row a case is timed as (sample_impl.h). */
#include "microbench/sample_impl.h"


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
 * (docs/prediction.md, Streams). Long enough to stream TC_MB_TRAIN_BYTES, at
 * most the loop's extent; 1 (no train) otherwise.
 *
 * A call on at most TC_MB_TINY_BYTES (a BLAS-1 call of a few lines, a few ns)
 * is timed as a train of TC_MB_TINY_CALLS, at most the loop's extent, each on
 * the data the loop gives it next, whatever the steps: timed alone, its
 * misses are waited for one by one, where in the loop the next calls'
 * misses overlap them (docs/prediction.md, Tiny calls).
 *
 * Any other call that writes a vector the loop moves is timed as a train
 * writing TC_MB_WRITTEN_TRAIN_BYTES of that vector's lines, at least TC_MB_TRAIN_MIN
 * calls, at most the loop's extent (written_vector_lines).
 *
 * Any other call whose loop moves each operand it moves by its columns'
 * height (interleaved columns: a dgemm's A[:,b,:,c] under the b loop,
 * each column's next run right after this one's) is timed as a train
 * moving TC_MB_INTERLEAVED_TRAIN_BYTES, at most the calls the columns keep
 * apart (interleaved_trains).
 *
 * Rules stream-trains, tiny-trains, written-trains, interleaved-trains and
 * interleaved.
 */

/* Columns that the loop moves by their own height (B[:,b,:] of ab-dgemv
 * in experiment 1, b inner): a train's calls interleave, together runs of
 * calls x extent[0] at the columns' stride. The most calls whose runs stay
 * apart; 0 when op is not such columns. Rule interleaved. */
static int64_t interleaved_calls(const tc_operand *op, int64_t step)
{
    if (op->rank < 2 || op->extent[0] <= 0 || op->extent[1] <= 1 || op->stride[0] != 1 ||
        step != op->extent[0] || op->stride[1] <= op->extent[0])
        return 0;
    return op->stride[1] / op->extent[0];
}

void tc_mbs_apply_interleaved(const tc_mb_sampler *s, const tc_mb_case *cs, recipe *p)
{
    (void)s;
    for (int i = 0; i < p->n; i++)
        p->d.interleave[i] = interleaved_calls(&p->call[i], cs->operand[i].loop_step);
}

/* Columns the loop moves on by all of their own span at their stride
 * (A[:,k,:,b] of kicb-dgemm: 24 columns 288 apart, b 6912 on): a train's
 * calls continue one another's columns, at most 2 dimensions. Rule
 * interleaved-trains. */
static int continued_columns(const tc_operand *op, int64_t step)
{
    return op->rank == 2 && op->extent[1] > 1 && op->stride[0] == 1 &&
           op->stride[1] >= op->extent[0] && step == op->extent[1] * op->stride[1];
}

/* Whether operand i, moved by the loop, can be laid out for a train: the
 * call sees it as the case describes it, and its span is known. */
static int trainable(const tc_mb_case *cs, const recipe *p, int i)
{
    return tc_mbs_same_shape(&p->call[i], &cs->operand[i].op) && p->span[i] >= 0 && p->used[i] >= 0;
}

/* The bytes a streamed train moves per call; 0 when the case is none. */
static int64_t stream_train_bytes(const tc_mb_case *cs, const recipe *p)
{
    int64_t bytes = 0;
    for (int i = 0; i < p->n; i++) {
        const tc_mb_operand *o = &cs->operand[i];
        if (o->loop_step == 0)
            continue; /* the same data in every iteration */
        if (!p->d.streamed[i] || o->loop_step != o->elements || o->span != o->elements ||
            !trainable(cs, p, i))
            return 0;
        bytes += p->elem_bytes * o->elements;
    }
    return bytes;
}

/* Whether the case's call is tiny and each operand the loop moves a
 * vector (train_shape covers its calls in two dimensions). */
static int tiny_train(const tc_mb_case *cs, const recipe *p)
{
    int64_t bytes = 0;
    if (cs->node->kind != TC_NODE_KERNEL)
        return 0;
    for (int i = 0; i < p->n; i++) {
        const tc_mb_operand *o = &cs->operand[i];
        bytes += p->elem_bytes * o->elements;
        if (o->loop_step != 0 &&
            ((o->op.rank > 1 && o->op.extent[1] > 1) || !trainable(cs, p, i)))
            return 0;
    }
    return bytes <= TC_MB_TINY_BYTES;
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
                                    const recipe *p)
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
            !(tc_mbs_one_run(op) || p->d.interleave[i]))
            return 0; /* train_shape lays out vectors, runs of columns and interleaved columns */
        if (!cs->operand[i].written || op->rank != 1)
            continue; /* a matrix (dger) or a scalar (ddot) */
        int64_t n = op->extent[0], step = op->stride[0];
        int64_t line = tc_mbs_line_elems(&s->o, cs);
        lines += step >= line ? n : (n * step + line - 1) / line;
    }
    return lines;
}

/* Calls a train moving `bytes` per call is timed as, to move `total`. */
static int64_t train_for(int64_t total, int64_t bytes)
{
    int64_t k = (total + bytes - 1) / bytes;
    return k < TC_MB_TRAIN_MIN ? TC_MB_TRAIN_MIN : k > TC_MB_TRAIN_MAX ? TC_MB_TRAIN_MAX : k;
}

/* The train rules, in table order: the first that applies sets the calls. */
void tc_mbs_apply_stream_trains(const tc_mb_sampler *s, const tc_mb_case *cs, recipe *p)
{
    int64_t bytes = stream_train_bytes(cs, p);
    (void)s;
    if (!p->d.train_calls && bytes > 0) {
        p->d.train_calls = train_for(TC_MB_TRAIN_BYTES, bytes);
        p->d.train_rule = TC_RULE_STREAM_TRAINS;
    }
}

void tc_mbs_apply_tiny_trains(const tc_mb_sampler *s, const tc_mb_case *cs, recipe *p)
{
    (void)s;
    if (!p->d.train_calls && tiny_train(cs, p)) {
        p->d.train_calls = TC_MB_TINY_CALLS;
        p->d.train_rule = TC_RULE_TINY_TRAINS;
    }
}

void tc_mbs_apply_written_trains(const tc_mb_sampler *s, const tc_mb_case *cs, recipe *p)
{
    int64_t bytes = p->d.train_calls ? 0 : 8 * s->line_doubles * written_vector_lines(s, cs, p);
    if (bytes > 0) {
        p->d.train_calls = train_for(TC_MB_WRITTEN_TRAIN_BYTES, bytes);
        p->d.train_rule = TC_RULE_WRITTEN_TRAINS;
    }
}

/*
 * A first iteration whose runs continue the enclosing loop's last calls'
 * (C[:,b,c,i,:,k] of kicb-dgemm at b = 0: each column's run right after
 * the one at b = 11 of the last c) finds them fetched ahead by the
 * streams those calls kept going; timed alone after its setup, it found
 * them in memory: 1.8 us per call against 0.6 in the rest of the loop,
 * while ckib-dgemm, whose b loop ends where C jumps on, ran 0-12 % slower
 * and was predicted the same. So the loop's calls before it, as many as a
 * stream takes to reach the profile's depth (at most the inner loop's
 * extent), run untimed before it, where the loop had them: whether the
 * hardware follows is measured. Rule first-streams.
 */
void tc_mbs_apply_first_streams(const tc_mb_sampler *s, const tc_mb_case *cs, recipe *p)
{
    int64_t depth = (int64_t)s->o.stream_lines * tc_mbs_line_elems(&s->o, cs), lead = 0;
    if (cs->kind != TC_CASE_FIRST || !cs->previous || cs->node->kind != TC_NODE_KERNEL)
        return;
    for (int i = 0; i < p->n; i++) {
        const tc_mb_operand *o = &cs->operand[i];
        int64_t run = tc_mbs_one_run(&o->op) ? o->elements : o->op.extent[0], k;
        if (o->op.rank > 0 && o->op.stride[0] == 1 && run > 0 && o->loop_step == run &&
            o->before == -run && (k = (depth + run - 1) / run) > lead)
            lead = k;
    }
    p->d.first_lead = lead < cs->loop_extent ? lead : cs->loop_extent;
}

/* Where call c of the recipe (its lead calls first) has operand i, in
 * elements from the operand's base: a steady train's at its steps from
 * the first; a first iteration's lead calls where the loop had them, the
 * nearest `before` the timed call, each earlier one the loop's step
 * further back. */
int64_t tc_mbs_call_offset(const tc_mb_case *cs, const recipe *p, int i, int c)
{
    const tc_mb_operand *o = &cs->operand[i];
    if (cs->kind != TC_CASE_FIRST)
        return c * p->train_step[i];
    return c < p->lead ? o->before - (p->lead - 1 - c) * o->loop_step : 0;
}

/* A first iteration's lead calls (first-streams): their operands
 * allocated around the timed call's, which keeps its place in its lines;
 * none where they lie far apart. */
static void plan_first_lead(const tc_mb_sampler *s, const tc_mb_case *cs, recipe *p)
{
    int64_t line = tc_mbs_line_elems(&s->o, cs);
    int64_t front[TC_MB_MAX_OPERANDS], span[TC_MB_MAX_OPERANDS];
    p->lead = (int)p->d.first_lead;
    for (int i = 0; i < p->n; i++) {
        int64_t lo = 0, hi = p->span[i];
        for (int c = 0; c < p->lead && hi >= 0; c++) {
            int64_t at = tc_mbs_call_offset(cs, p, i, c);
            lo = at < lo ? at : lo;
            hi = at + p->span[i] > hi ? at + p->span[i] : hi;
        }
        if (hi < 0 || hi - lo > TC_MB_LEAD_SPANS * p->span[i]) {
            p->lead = 0; /* spread beyond what a case allocates */
            return;
        }
        front[i] = (-lo + line - 1) / line * line;
        span[i] = hi + front[i];
    }
    for (int i = 0; i < p->n; i++) {
        int64_t used = p->used[i] < 0 ? -1 : (p->lead + 1) * p->used[i];
        p->front[i] = front[i];
        p->span[i] = span[i];
        p->used[i] = used < span[i] ? used : span[i];
    }
}

/* The train the rules decided, for a steady case timed in full: with its
 * lead calls, at most the loop's extent and the calls interleaved columns
 * keep apart, the lead at most half of them; its operands' spans and
 * pages grown to all its calls. */
void tc_mbs_plan_train(const tc_mb_sampler *s, const tc_mb_case *cs, recipe *p)
{
    p->train = 1;
    p->lead = 0;
    if (cs->kind == TC_CASE_FIRST && cs->scale <= 1.0 && p->d.first_lead > 0)
        plan_first_lead(s, cs, p);
    if (cs->kind != TC_CASE_STEADY || cs->scale > 1.0 || !p->d.train_calls)
        return;
    int64_t lead = p->d.lead_calls, k = p->d.train_calls + lead;
    if (k > cs->loop_extent)
        k = cs->loop_extent;
    for (int i = 0; i < p->n; i++)
        if (p->d.interleave[i] > 0 && k > p->d.interleave[i])
            k = p->d.interleave[i];
    if (lead > k / 2)
        lead = k / 2;
    if (k - lead < 2)
        return;
    p->train = (int)(k - lead);
    p->lead = (int)lead;
    for (int i = 0; i < p->n; i++) {
        int64_t step = cs->operand[i].loop_step, more = (k - 1) * step;
        p->train_step[i] = step;
        p->span[i] += more;
        /* the pages all the calls touch: a vector whose calls lie pages
         * apart touches its pages once per call, not the span between them
         * (counted as the span, ac-dgemv of a 3.6 GB C at a=b=15000 mapped
         * it all in huge pages) */
        if (step > 0)
            p->used[i] = tc_mbs_shape_page_doubles(tc_mbs_train_shape(p, i), p->span[i],
                                                   p->elem_bytes);
    }
}

static recipe planned_train(const tc_mb_sampler *s, const tc_contraction *c, const tc_mb_case *cs)
{
    recipe p;
    if (!s || !cs || tc_mbs_prepare(s, 0, c, cs, &p, NULL) != TC_OK) {
        p.train = 1;
        p.lead = 0;
        return p;
    }
    tc_mbs_plan_train(s, cs, &p);
    return p;
}

int tc_mb_case_train(const tc_mb_sampler *s, const tc_contraction *c, const tc_mb_case *cs)
{
    return planned_train(s, c, cs).train;
}

int tc_mb_case_lead(const tc_mb_sampler *s, const tc_contraction *c, const tc_mb_case *cs)
{
    return planned_train(s, c, cs).lead;
}

/* Operand i for every call of a train (its lead calls too): one run from
 * the first call's to the last's where each call continues the last one's
 * run; interleaved columns as one run per column; continued columns as
 * one set of columns; else the vector of each call (dimension 0) at each
 * call's step (dimension 1). */
tc_mb_shape tc_mbs_train_shape(const recipe *p, int i)
{
    const tc_operand *op = &p->call[i];
    int64_t n = op->rank > 0 ? op->extent[0] : 1, stride = op->rank > 0 ? op->stride[0] : 1;
    int64_t calls = p->lead + p->train;
    if (p->d.interleave[i] > 0)
        return (tc_mb_shape){n * calls, op->extent[1], 1, op->stride[1]};
    if (continued_columns(op, p->train_step[i]))
        return (tc_mb_shape){n, op->extent[1] * calls, 1, op->stride[1]};
    if (op->rank > 1 && op->extent[1] > 1 && op->stride[1] == n && stride == 1)
        n *= op->extent[1]; /* a run of columns */
    if (stride == 1 && p->train_step[i] == n)
        return (tc_mb_shape){p->span[i], 1, 1, 0};
    return (tc_mb_shape){n, calls, stride, p->train_step[i]};
}


/*
 * The bytes a call moves when every operand its loop moves is interleaved
 * columns or one run right after the last call's, and one of them
 * columns (0 otherwise). Timed alone, such a call found every column's
 * run in memory but its first line; in the loop each run lies right after
 * the last call's, lines the prefetchers have begun to fetch: cb-dgemm of
 * C[a,b,j,c] = A[k,b,a,c] * B[j,k] (a=48, b=40, j=24, c=40, k=48; dgemms
 * 48x24x48 on A's 48 columns and C's 24, each moved by its height of 48)
 * was predicted 6.3 us per call and ran 3.4, and lost the ranking to
 * cC^-dgemm, which ran 1.5x slower (docs/prediction.md, Interleaved
 * columns, timed as trains).
 */
static int64_t interleaved_train_bytes(const tc_mb_case *cs, const recipe *p)
{
    int64_t bytes = 0, interleaved = 0;
    if (cs->node->kind != TC_NODE_KERNEL)
        return 0;
    for (int i = 0; i < p->n; i++) {
        if (cs->operand[i].loop_step == 0)
            continue;
        const tc_mb_operand *o = &cs->operand[i];
        int run = tc_mbs_one_run(&o->op) && o->loop_step == o->elements && o->span == o->elements;
        if (!trainable(cs, p, i) ||
            !(p->d.interleave[i] > 0 || run || continued_columns(&o->op, o->loop_step)))
            return 0;
        interleaved += p->d.interleave[i] > 0;
        bytes += p->elem_bytes * o->elements;
    }
    return interleaved ? bytes : 0;
}

/* The calls in which the prefetcher takes up the streams of a train's
 * interleaved columns: enough for each column's run to reach the stream's
 * depth (the profile's), run untimed before the train. Timed from cold,
 * kicb-dgemm of C[a,b,c,i,j,k] = A[j,k,m,b] * B[m,i,a,c] (dgemms 24^3
 * on C's 24 columns, each moved by its height of 24 under the b loop of
 * 12) found C's columns in memory in the first calls of its train of 12:
 * 0.75 us per call against 0.65 in the loop (docs/prediction.md,
 * Interleaved columns, timed as trains). Whether the hardware follows
 * that many streams is then measured, not assumed. */
static int64_t lead_calls(const tc_mb_sampler *s, const tc_mb_case *cs, const recipe *p)
{
    int64_t depth = (int64_t)s->o.stream_lines * tc_mbs_line_elems(&s->o, cs), lead = 0;
    for (int i = 0; i < p->n; i++) {
        int64_t n = cs->operand[i].op.extent[0], k;
        if (p->d.interleave[i] > 0 && n > 0 && (k = (depth + n - 1) / n) > lead)
            lead = k;
    }
    return lead;
}

void tc_mbs_apply_interleaved_trains(const tc_mb_sampler *s, const tc_mb_case *cs, recipe *p)
{
    int64_t bytes = p->d.train_calls ? 0 : interleaved_train_bytes(cs, p);
    if (bytes > 0) {
        p->d.train_calls = train_for(TC_MB_INTERLEAVED_TRAIN_BYTES, bytes);
        p->d.train_rule = TC_RULE_INTERLEAVED_TRAINS;
        p->d.lead_calls = lead_calls(s, cs, p);
    }
}
