/*
 * rank.h - every algorithm of a contraction, sorted by predicted time.
 */
#ifndef TC_PLANNER_RANK_H
#define TC_PLANNER_RANK_H

#include "microbench/predict.h"

typedef struct tc_rank_entry {
    const tc_algorithm *alg;   /* points into the algorithm set */
    double seconds;            /* predicted time of one contraction */
    double cost_s;             /* wall time its prediction took */
    double spread;             /* half the range of its rounds' predictions
                                  (0: predicted once) */
    int predictions;           /* how many: seconds is their median */
} tc_rank_entry;

typedef struct tc_ranking {
    int count;                 /* ranked algorithms, fastest first */
    tc_rank_entry *entry;
    int skipped;               /* algorithms whose BLAS arguments exceed int */
    int no_memory;             /* algorithms whose temporaries exceed the
                                  workspace: not candidates */
    int pruned;                /* algorithms not predicted: their calls alone
                                  take longer than the keep-th best */
    double elapsed_s;          /* wall time the ranking took */
} tc_ranking;

/* Called after each algorithm: done of total. */
typedef void (*tc_rank_progress)(int done, int total, void *data);

/*
 * Predicts algs[0..n-1] (of contraction c, with sizes) with sampler s under
 * p and sorts them by predicted time (ties in the given order).
 * Algorithms that do not fit BLAS's int arguments, or whose temporaries
 * need more than `workspace` bytes (-1: no limit; tc_plan_workspace_limit),
 * are skipped and counted. keep > 0:
 * only the best `keep` are wanted; algorithms are predicted fewest calls
 * first, and one whose floor exceeds the keep-th best prediction so far is
 * counted as pruned, not ranked: its calls at the library's cheapest call
 * time (tc_mb_sampler_call_floor), or, but for dgemm, its warm-model
 * prediction (calls repeated on cached operands, one timing per call
 * shape). A CCSD(T) term: 7466 algorithms, most of them millions of level
 * 1 and 2 calls against dgemm nests of 17 ms; 242 predicted, 1.0 -> 0.66 s.
 * rounds >= 2: every ranked algorithm is predicted `rounds` more times,
 * interleaved (each round over all of them, in alternating order, timing
 * the cases anew at half the sampler's repetitions) and keeps the median
 * of its predictions, when those rounds are estimated from the first
 * pass's cost to take at most TC_RANK_INTERLEAVE_BUDGET_S; a slow phase
 * of a shared host then moves one of an algorithm's predictions, not its
 * median. rounds > 0 (at most 8): the contenders, as far as their rounds
 * are estimated to take at most 0.2 s, two runs of the best or the first
 * pass's cost, whichever is longest (from their first predictions' cost),
 * are predicted again in `rounds` more rounds: the best and the runner-up
 * however far apart, the best of the algorithms with the fewest kernel
 * calls within 50 % of the best, and the rest of the best 6 within 25 %;
 * each round times their cases anew (tc_mb_sampler_round), and each keeps
 * the median of its predictions: contenders are compared in the same
 * phases of a shared host. Near-ties are then broken by
 * structure (tc_rank_break_ties). *out is the caller's, freed with
 * tc_ranking_free().
 */
#define TC_RANK_ROUNDS 2 /* the ranking's rounds in the tool and the library */
#define TC_RANK_INTERLEAVE_BUDGET_S 0.25

tc_status tc_plan_rank(tc_mb_sampler *s, const tc_contraction *c,
                       const tc_algorithm *const *algs, int n, const tc_mb_params *p,
                       int64_t workspace, int keep, int rounds, tc_rank_progress progress,
                       void *data, tc_ranking **out, tc_error *err);

/*
 * Near-ties broken by structure, not by the host's phase (tc_plan_rank's
 * last step; e[0..n) sorted by seconds). First, while an entry within
 * TC_RANK_DOMINATED_MAX of the best prediction makes the first's kernel
 * calls under the same loops, on operands no farther apart, and moves
 * fewer elements, it goes first. Then, of the entries whose predictions
 * lie within their spreads of the first's (its spread and theirs
 * together; only refined entries have one) and within TC_RANK_TIE_MAX of
 * it, the one whose threads make the fewest kernel calls, then whose
 * copies and permutations move the fewest elements, then whose loops
 * write the kernel's output most nearly front to back (fewest loop pairs
 * whose inner loop moves it further than the outer), then whose name
 * comes first, is moved to the front. Two rankings whose noise swaps
 * close candidates then choose alike.
 */
void tc_rank_break_ties(tc_rank_entry *e, int n);

/* A near-tie is at most this much slower than the best predicted: one
 * outlying round widens a spread to tens of percent, and then the name
 * chose a loop order measured 14-27 % slower (A^cikb-dgemm before
 * A^ikcb-dgemm of TCCG's abcijk-ikma-mjbc, predicted 4-15 % apart in five
 * rankings); issue 37 counts choices within 3 % as one. */
#define TC_RANK_TIE_MAX 0.03

/* An algorithm that only adds copies to another's calls is predicted
 * faster by noise alone, which reached 15 % on a case of 200 us: the
 * steady dgemm case of k-dgemm of C[i,j,k] = A[i,l,k] * B[l,j] (144, 128,
 * 128, 144) was timed 187-245 us in three rankings, 190 us per call
 * measured in the loop, and A^k-dgemm, the same calls after a
 * permutation of A, was chosen at 1 and 2 threads in two suite runs,
 * 6-10 % slower (docs/benchmarks.md). */
#define TC_RANK_DOMINATED_MAX 0.15

/* NULL is a no-op. */
void tc_ranking_free(tc_ranking *r);

#endif
