/*
 * llc_edge.h - the LLC's edge: how much of the last level's speed data
 * keeps when it is used again after a reuse distance near the LLC's size
 * (docs/prediction.md, The LLC's edge).
 *
 * An LRU cache keeps everything reused within its size and nothing
 * beyond it. Real last levels do not: their replacement is not LRU, and
 * other tenants take a share. Sweeping a buffer over and over on a Zen 5
 * VM (LLC measured 18.8 MiB) ran at the LLC's speed to 3/4 of the LLC,
 * lost a quarter of the way to memory's at the LLC's size, half at 5/4
 * and all at twice. The profile keeps that curve, measured; the sampler
 * times a case whose operands fall on it both in the LLC and in memory
 * and weighs the two by the curve.
 */
#ifndef TC_MICROBENCH_LLC_EDGE_H
#define TC_MICROBENCH_LLC_EDGE_H

#include <stdint.h>

#include "microbench/hardware.h"
#include "tcgen.h"

/* Points of the curve: reuse distances of TC_EDGE_FIRST, + TC_EDGE_STEP,
 * ... times the LLC, the last 3 times the LLC (the measured LLC moves
 * between runs on a shared host: 11.8 and 18.8 MiB on the same VM; the
 * fall to memory lay between 16 and 30 MiB in both). */
#define TC_EDGE_POINTS 11
#define TC_EDGE_FIRST 0.5
#define TC_EDGE_STEP 0.25
#define TC_EDGE_PASSES 3 /* the sweeps' passes: the curve takes their median */

/*
 * Measures the curve for an LLC of llc_bytes. Two ways of using data
 * bracket what a kernel sees: sweeps, which stream prefetchers follow,
 * keep the LLC's speed longest (to twice the LLC measured on a Zen 5
 * VM); a random chase, which no prefetcher follows, loses it first
 * (X-Ray's curve x: a third of the way at 1.25 times). Loop nests lie
 * between: experiment 1 and 4's algorithms at a=b=c=128 needed a share
 * of 0.5-0.8 at 1.6 times, a CCSD ladder's dgemm nests over an 8 MiB W
 * ran at the LLC's speed at 1.3 times. The curve is the mean of the two
 * (3/4 sweeps fitted the ladder but not bench/peers.sh: docs/prediction.md).
 * Per point and way, the share of the way from memory's time per line
 * (the last point's) to the LLC's (the first point's) that data reused
 * after that many bytes keeps (1: the LLC's speed, 0: memory's); for the
 * sweeps the median of three passes, the mean of sweeps that read and
 * sweeps that update each line (tc_mb_edge_curve). Leaves share all 0
 * (not measured) when the sweeps' buffer would exceed max_bytes or the
 * chase has no step to memory. TC_ERESOURCE when the buffer cannot be had.
 */
tc_status tc_mb_edge_measure(int64_t llc_bytes, int line_bytes, int64_t max_bytes,
                             const tc_xray *x, double share[TC_EDGE_POINTS], tc_error *err);

/* The curve from the sweeps' seconds per line (reads, then updates; per
 * pass and point) and the chase's shares: non-increasing, 1 at the first
 * point and 0 at the last. Sweeps whose last point is not markedly
 * slower than their first in most passes kept the LLC's speed over the
 * whole range: their share is 1 at every point but the last. */
void tc_mb_edge_curve(double sweeps[2][TC_EDGE_PASSES][TC_EDGE_POINTS],
                      const double chase[TC_EDGE_POINTS], double share[TC_EDGE_POINTS]);

/* The chase's share at each point from X-Ray's latency curve (the last
 * point's latency for working sets beyond the curve); 0 when the curve
 * has no step to memory past 1.25 times the first point's latency. */
int tc_mb_edge_from_chase(const tc_xray *x, int64_t llc_bytes, double share[TC_EDGE_POINTS]);

/* 1 when share holds a measured curve (tc_mb_edge_measure). */
int tc_mb_edge_known(const double share[TC_EDGE_POINTS]);

/* The share kept at a reuse distance of `bytes`, interpolated: 1 before
 * the first point, 0 after the last. A curve not known: 1 below the LLC,
 * 0 from it. */
double tc_mb_edge_share(const double share[TC_EDGE_POINTS], int64_t llc_bytes, double bytes);

#endif
