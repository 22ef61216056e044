/*
 * tuning.h - every constant of the sampler, each with the reason for its
 * value (docs/prediction.md has the measurements). The rule using it is
 * named in brackets (rules.h); "timing" is the plain timer's policy.
 */
#ifndef TC_MICROBENCH_TUNING_H
#define TC_MICROBENCH_TUNING_H

#include <stdint.h>

/* [slabs] a call whose flop and byte bound passes this is cut to a slab:
 * a millisecond repeats cheaply and is long against the timer's steps */
#define TC_MB_SLAB_SECONDS 1e-3
/* [slabs] ... or whose operands' pages pass this: a vector of C with an
 * element per line maps all of C, once per case */
#define TC_MB_SLAB_BYTES ((int64_t)64 << 20)
/* [slab-floor] a permutation's slab keeps each side above this when the
 * whole was beyond the cache: 5 MiB slabs of a 95 MB permutation ran 1.5x
 * slower per byte than the whole, 20 MiB ones within 8 % */
#define TC_MB_PERMUTE_SLAB_FLOOR ((int64_t)16 << 20)
/* [slab-floor] a dgemm with this many flops per operand byte is
 * compute-bound (a byte from memory costs about 1.5 flops' time): its slab
 * need not stay beyond the cache (80 ms slabs of a CCSD term's dgemm) */
#define TC_MB_COMPUTE_BOUND_INTENSITY 32.0
/* [slab-rows] a dgemm's m is cut only once n and k are below m over
 * this: OpenBLAS packs B's panel once per block of m rows, and a
 * 361^3 slab of a 1444^3 dgemm ran 7-23 % slower per flop than the
 * whole, a 1444x180x180 one 0-8 % (BLIS: both 5-10 %) */
#define TC_MB_SLAB_ROWS_SHARE 8
/* [peak-dgemm] a compute-bound dgemm cut into this many slabs or more
 * runs at the profile's peak: slabs of a millisecond ran 9-20 % slower per
 * flop than the whole 1920x1920x1600 dgemm (229-233 ms, 51 GFLOP/s),
 * slabs of 4 ms too; the whole ran within 3 % of the peak (50-53) */
#define TC_MB_PEAK_DGEMM_SLABS 16.0
/* [slabs] halvings at most: 2^200 is beyond any extent, a guard only */
#define TC_MB_CUT_ROUNDS 200

/* [stream-trains] a streamed train moves this much: long enough for the
 * prefetcher to reach its steady pace, as in the loop */
#define TC_MB_TRAIN_BYTES ((int64_t)256 << 10)
/* [stream-trains, written-trains] fewest calls in a train: fewer leave the
 * first call's cold start most of the time */
#define TC_MB_TRAIN_MIN 8
/* [stream-trains, written-trains] most calls in a train: a case stays a
 * few microseconds to a millisecond */
#define TC_MB_TRAIN_MAX 256
/* [tiny-trains] a call on at most this many bytes is tiny: a few lines,
 * a few ns, its misses waited for one by one when timed alone */
#define TC_MB_TINY_BYTES 1024
/* [tiny-trains] calls in a tiny call's train: its timing spans a few
 * hundred ns, well above the counter's 20 ns steps */
#define TC_MB_TINY_CALLS 64
/* [written-trains] lines of the written vectors a train writes: enough
 * for dirty lines to pile into the same sets as in the loop (ac-dgemv:
 * 1.0 us per call as a train of 16 against 1.09 in the loop) */
#define TC_MB_WRITTEN_TRAIN_BYTES ((int64_t)128 << 10)
/* [first-streams] a first iteration's lead calls are run where their
 * operands lie within this many times the call's own span of it: a
 * sampler allocation, not a machine fact (the CCSD(T) terms' lie within 12) */
#define TC_MB_LEAD_SPANS 64
/* [interleaved-trains] bytes a train of calls on interleaved columns
 * moves: the first call finds its columns in memory with nothing
 * prefetched, and cb-dgemm of C[a,b,j,c] = A[k,b,a,c] * B[j,k] (28 KB a
 * call) came to 6.2 us per call as a train of 10 (256 KiB), 5.4 as one of
 * 40 (1.1 MB), against 5.4 in the loop */
#define TC_MB_INTERLEAVED_TRAIN_BYTES ((int64_t)1 << 20)

/* [timing] repetitions of a call lasting a few counter steps: enough for
 * the dithered mean to converge (docs/prediction.md, Dithering) */
#define TC_MB_SHORT_REPS 31
/* [timing] a repetition this long ... */
#define TC_MB_LONG_REPETITION_S 2e-3
/* [timing] ... runs at most this often: its median is stable, and flushing
 * megabytes each time made such cases most of a prediction's cost */
#define TC_MB_LONG_REPS 5
/* [timing] one this long (a whole-tensor permutation of tens of MiB,
 * flushed each time) ... */
#define TC_MB_HUGE_REPETITION_S 2e-2
/* [timing] ... this often */
#define TC_MB_HUGE_REPS 3
/* [timing] at most this long a team member waits for the others before
 * a timed repetition (tc_mbs_team_wait) */
#define TC_MB_TEAM_WAIT_S 5e-3
/* [timing] elements (2 MiB) of a beta pass from memory: a streaming pass
 * this long runs at the rate of a longer one, and flushing all of C every
 * repetition cost more than the prediction */
#define TC_MB_BETA_PART ((int64_t)1 << 18)
/* [timing] calls per batch of the cheapest-call floor ... */
#define TC_MB_FLOOR_CALLS 256
/* [timing] ... the fastest of this many batches kept */
#define TC_MB_FLOOR_BATCHES 7

/* [memory] bytes resident in the blocks a sampler keeps for the next
 * case: a CCSD term's operands are 24-30 MB, and faulting them anew each
 * case was most of its prediction */
#define TC_MB_SPARE_MAX ((int64_t)128 << 20)
/* [memory] memory available is read at most this often: /proc/meminfo per
 * case took a tenth of a prediction of thousands of candidates */
#define TC_MB_AVAIL_SECONDS 0.1
/* [memo] longest case key: a case's call, three operands and the setup of
 * at most TC_MB_MAX_SETUP steps fit with room to spare */
#define TC_MB_KEY_MAX 2048

#endif
