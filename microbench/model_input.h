/*
 * model_input.h - what the model takes from the machine profile, and the
 * one place that says which values it can work with.
 *
 * The sampler refuses what it cannot emulate (a line that is not a whole
 * number of doubles, an LLC beyond any cache, levels that do not grow); a
 * profile holding such a value would be accepted at load and then fail
 * every run. So the profile's reader (profile.c) applies the same check to
 * what it would hand the model, and refuses the file at load, where it is
 * measured anew (docs/prediction.md).
 */
#ifndef TC_MICROBENCH_MODEL_INPUT_H
#define TC_MICROBENCH_MODEL_INPUT_H

#include "microbench/hardware.h"
#include "microbench/profile.h"
#include "microbench/sample.h"
#include "tcgen.h"

#define TC_MB_LINE_MAX 4096 /* the largest cache line the model takes, bytes */
#define TC_MB_LLC_MAX ((int64_t)1 << 50) /* the largest LLC it takes (1 PiB) */
#define TC_MB_STREAM_MAX 4096 /* the deepest stream prefetch, lines */

/* Sets o's machine facts: the hierarchy and line of hw (the profile's
 * hierarchy in use, its LLC possibly overridden), the bounds, the TLB
 * reach, the stream-prefetch depth and the LLC's edge of p. Leaves the
 * other fields (BLAS, timer, repetitions, flush, budget) alone. */
void tc_mb_model_input(const tc_mb_profile *p, const tc_hardware *hw, tc_mb_sampler_options *o);

/*
 * TC_EUSAGE, saying which value and why, unless o's machine facts are
 * ones the model can work with: a line of 8 to TC_MB_LINE_MAX bytes, a
 * multiple of 8; an LLC of one line to TC_MB_LLC_MAX; 0 to
 * TC_MB_MAX_LEVELS levels, each positive and larger than the one above; a
 * stream-prefetch depth of 0 to TC_MB_STREAM_MAX lines; a TLB reach of 0
 * to TC_MB_TLB_MAX_PAGES pages; the peak flop rate and the bandwidths 0
 * (no bound) or positive and finite; the LLC's edge shares in [0, 1], not
 * increasing.
 */
tc_status tc_mb_model_input_check(const tc_mb_sampler_options *o, tc_error *err);

#endif
