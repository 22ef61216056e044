/* bound.c - the flop and byte bounds of a case, and a stream's bytes (sample_impl.h). */
#include "microbench/sample_impl.h"

#include "runtime/permute.h" /* which permutations stream */


/* Flops of one call of the case's node (0 for a copy). */
double tc_mbs_node_flops(const tc_node *node)
{
    if (node->kind != TC_NODE_KERNEL)
        return 0.0;
    const tc_call *k = node->call;
    return tc_kernel_flops(k->kernel, k->m, k->n, k->k) * tc_type_flop_factor(k->type);
}

/* The peak rate for elements of type t: float's vector lanes are twice
 * double's, so its peak is taken as twice the profile's (double's): a
 * bound that stays below the time. */
static double peak_of(double peak, tc_type t)
{
    return tc_type_row_of(t)->real_bytes == 4 ? 2.0 * peak : peak;
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
 * Rule stream-bytes; a written operand's bytes both ways, rule write-back.
 * A permutation that writes with streaming stores never reads its
 * output's lines, and its reads and writes overlap: every byte once, at
 * the update bandwidth. T0 -> C of A^B^C^-dgemm at 38^4 (16 MiB each
 * way) ran 0.90-0.96 ms in the algorithm and 0.86-0.91 timed, and was
 * bounded to 1.14 ms (both at the read bandwidth), then 1.29 (C both
 * ways).
 *
 * The operands in memory are the recipe's flushed ones (p->steps).
 */
void tc_mbs_apply_stream_bytes(const tc_mb_sampler *s, const tc_mb_case *cs, recipe *p)
{
    (void)s, (void)cs;
    p->d.stream_bytes = 1;
}

void tc_mbs_apply_write_back(const tc_mb_sampler *s, const tc_mb_case *cs, recipe *p)
{
    (void)s, (void)cs;
    p->d.write_back = 1;
}

/* Whether the case's node writes its output with streaming stores (a
 * permutation, as the sampler runs it: beta 0). */
static int streams_out(const tc_mb_case *cs)
{
    const tc_permutation *pm = cs->node->kind == TC_NODE_PERMUTE ? cs->node->perm : NULL;
    return pm && tc_rt_permute_streams(tc_permutation_elements(pm), pm->written, 0.0);
}

double tc_mbs_bound(const tc_mb_sampler *s, const tc_mb_case *cs, const recipe *p, int steady,
                    double *stream)
{
    const tc_mb_sampler_options *o = &s->o;
    int threads = o->threads > 0 ? o->threads : 1;
    double bound = 0.0;
    if (stream)
        *stream = 0.0;
    if (!cs || !cs->node)
        return 0.0;
    if (o->peak_flops > 0.0)
        bound = tc_mbs_node_flops(cs->node) / (peak_of(o->peak_flops, cs->type) * threads);
    if (o->memory_bandwidth > 0.0) {
        const step *plan = p->steps;
        int n = p->nsteps;
        double read = 0.0, updated = 0.0; /* bytes */
        double update_bw = o->update_bandwidth > 0.0 ? o->update_bandwidth : o->memory_bandwidth;
        int once = streams_out(cs); /* every byte once, at the update bandwidth */
        for (int e = 0; e < n; e++) {
            if (plan[e].kind != STEP_FLUSH)
                continue;
            int i = plan[e].operand;
            double el = (double)cs->operand[i].elements, eb = (double)p->elem_bytes;
            if (stream && steady && p->d.stream_bytes && p->d.streamed[i])
                *stream += cs->operand[i].written ? 2.0 * eb * el / update_bw
                                                  : eb * el / o->memory_bandwidth;
            if (once || (steady && cs->operand[i].written && p->d.write_back)) {
                updated += (once ? 1.0 : 2.0) * eb * el;
                continue;
            }
            for (int f = 0; !steady && f < n; f++)
                if (plan[f].kind == STEP_PREFETCH && plan[f].operand == i) {
                    tc_mb_shape part = tc_mbs_step_shape(s, cs, p, &plan[f]);
                    el -= (double)(part.n0 * part.n1);
                }
            read += eb * (el > 0.0 ? el : 0.0);
        }
        double b = (read / o->memory_bandwidth + updated / update_bw) / threads;
        if (b > bound)
            bound = b;
    }
    return bound;
}

/* The steady bound of cs with a recipe of its own: the case's stride-1
 * dimension 0 taken as its tensor's first index (c unknown). */
double tc_mbs_case_bound(const tc_mb_sampler *s, const tc_mb_case *cs, int edge_out)
{
    recipe p;
    if (!cs)
        return 0.0;
    if (tc_mbs_prepare(s, edge_out, NULL, cs, &p, NULL) == TC_OK)
        tc_mbs_recipe_place(s, cs, &p);
    else
        p.nsteps = 0; /* malformed: the flops alone */
    return tc_mbs_bound(s, cs, &p, 1, NULL);
}

double tc_mb_case_bound(const tc_mb_sampler *s, const tc_mb_case *cs)
{
    return tc_mbs_case_bound(s, cs, 0);
}

/*
 * A daxpy or dger: the call is one pass over its output, read and
 * written in place. In cache that pass runs at the cache's pace; with the
 * output streamed from memory the same pass runs at memory's instead, so
 * the stream's bytes replace the call's time rather than add to it. Added,
 * `ic-dger` of C[a,b,c] = A[a,i] B[i,b,c] (a=b=c=192..448; C swept once
 * per i) was predicted 24-47 % slow; a daxpy of 2000 streamed ran 698 ns
 * a call in a loop, against 711 ns for its bytes alone and 811 ns added
 * (the table in docs/prediction.md, Streams). A ddot or dgemv does add
 * them. Rule one-pass.
 */
void tc_mbs_apply_one_pass(const tc_mb_sampler *s, const tc_mb_case *cs, recipe *p)
{
    (void)s;
    p->d.one_pass = cs->node->kind == TC_NODE_KERNEL && tc_kernel_table[cs->node->call->kernel].one_pass;
}

/* Rule bound: a time below the case's bound is timed again, then bounded
 * (time_case in sample.c). */
void tc_mbs_apply_bound(const tc_mb_sampler *s, const tc_mb_case *cs, recipe *p)
{
    (void)s, (void)cs;
    p->d.bounded = 1;
}

