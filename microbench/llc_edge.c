/* llc_edge.c - the LLC's edge, measured and read (llc_edge.h). */
#include "microbench/llc_edge.h"

#include <math.h>

#include "ast/error.h"
#include "microbench/stats.h"
#include "runtime/memory.h"
#include "runtime/timer.h"

#define SWEEPS 7      /* per point: the first two bring it to a steady state */
#define MIN_STEP 1.25 /* memory's time per line over the LLC's, at least */
#define SNAP 0.1      /* shares within this of 0 or 1 are taken as 0 or 1:
                         the sampler times a case on the edge twice */
#define SWEEP_WEIGHT 0.5 /* the sweeps' part of the curve, the chase's the
                           rest (llc_edge.h) */

static volatile double edge_sink;

/* One sweep over n doubles, a line apart: a read or an update per line. */
static double sweep(double *p, int64_t n, int line, int update)
{
    double s = 0.0;
    if (update)
        for (int64_t i = 0; i < n; i += line)
            p[i] += 1e-300;
    else
        for (int64_t i = 0; i < n; i += line)
            s += p[i];
    return s;
}

/* Seconds per line of the fastest steady sweep over the first n doubles. */
static double per_line(double *p, int64_t n, int line, int update)
{
    double best = 0.0, s = 0.0;
    for (int r = 0; r < SWEEPS; r++) {
        double t0 = tc_rt_now();
        s += sweep(p, n, line, update);
        double t = tc_rt_now() - t0;
        if (r >= 2 && t > 0.0 && (best == 0.0 || t < best))
            best = t;
    }
    edge_sink = s;
    return best / (double)(n / line);
}

int tc_mb_edge_known(const double share[TC_EDGE_POINTS])
{
    return share[0] > 0.0;
}

/* The reuse distance, in bytes, of point k of the curve. */
static double point_bytes(int64_t llc_bytes, int k)
{
    return (double)llc_bytes * (TC_EDGE_FIRST + TC_EDGE_STEP * k);
}

/* X-Ray's latency at a working set of `bytes`: log-linear between its
 * points, the nearest end beyond them. */
static double chase_ns(const tc_xray *x, double bytes)
{
    int n = x->npoints;
    if (bytes <= (double)x->point_bytes[0])
        return x->point_ns[0];
    for (int k = 1; k < n; k++)
        if (bytes <= (double)x->point_bytes[k]) {
            double a = log((double)x->point_bytes[k - 1]), b = log((double)x->point_bytes[k]);
            double f = (log(bytes) - a) / (b - a);
            return x->point_ns[k - 1] + f * (x->point_ns[k] - x->point_ns[k - 1]);
        }
    return x->point_ns[n - 1];
}

int tc_mb_edge_from_chase(const tc_xray *x, int64_t llc_bytes, double share[TC_EDGE_POINTS])
{
    double t[TC_EDGE_POINTS];
    if (!x || x->npoints < 2 || llc_bytes <= 0)
        return 0;
    for (int k = 0; k < TC_EDGE_POINTS; k++)
        t[k] = chase_ns(x, point_bytes(llc_bytes, k));
    double in = t[0], out = t[TC_EDGE_POINTS - 1];
    if (!(out > MIN_STEP * in))
        return 0;
    for (int k = 0; k < TC_EDGE_POINTS; k++)
        share[k] = (out - t[k]) / (out - in);
    return 1;
}

/* One kind of sweep's share at each point, the median of its passes
 * (t: seconds per line, per pass and point). Sweeps that never reach
 * memory's time (the last point not MIN_STEP slower than the first, in
 * most passes) keep the LLC's speed over the whole range: share 1. A VM
 * whose chase measured 1.3-4.3 MiB of a 32 MiB L3 swept 9 MiB at the
 * speed of 1.4 MiB in three profiles of four; taking that for "not
 * measured" left no curve, a step to memory at the chase's LLC, which
 * is what the sweeps had shown not to happen. */
static void sweep_share(double t[TC_EDGE_PASSES][TC_EDGE_POINTS], double share[TC_EDGE_POINTS])
{
    int flat = 0;
    for (int pass = 0; pass < TC_EDGE_PASSES; pass++)
        flat += !(t[pass][TC_EDGE_POINTS - 1] > MIN_STEP * t[pass][0]);
    for (int k = 0; k < TC_EDGE_POINTS; k++) {
        double kept[TC_EDGE_PASSES], lo, median, hi;
        for (int pass = 0; pass < TC_EDGE_PASSES; pass++) {
            double first = t[pass][0], out = t[pass][TC_EDGE_POINTS - 1];
            kept[pass] = out > first ? (out - t[pass][k]) / (out - first) : 0.0;
        }
        tc_mb_spread(kept, TC_EDGE_PASSES, &lo, &median, &hi);
        /* most passes decide: one slow pass does not */
        share[k] = 2 * flat > TC_EDGE_PASSES ? 1.0 : median;
    }
}

void tc_mb_edge_curve(double sweeps[2][TC_EDGE_PASSES][TC_EDGE_POINTS],
                      const double chase[TC_EDGE_POINTS], double share[TC_EDGE_POINTS])
{
    double kind[2][TC_EDGE_POINTS];
    for (int update = 0; update < 2; update++)
        sweep_share(sweeps[update], kind[update]);
    double prev = 1.0;
    for (int k = 0; k < TC_EDGE_POINTS; k++) {
        /* half each: reads, updates */
        double v = SWEEP_WEIGHT * (kind[0][k] + kind[1][k]) / 2 + (1.0 - SWEEP_WEIGHT) * chase[k];
        v = v < SNAP ? 0.0 : v > 1.0 - SNAP ? 1.0 : v;
        v = v > prev ? prev : v; /* non-increasing */
        v = round(v * 1000.0) / 1000.0; /* as the profile's text keeps it */
        share[k] = k == 0 ? 1.0 : k == TC_EDGE_POINTS - 1 ? 0.0 : v;
        prev = share[k];
    }
}

tc_status tc_mb_edge_measure(int64_t llc_bytes, int line_bytes, int64_t max_bytes,
                             const tc_xray *x, double share[TC_EDGE_POINTS], tc_error *err)
{
    double chase[TC_EDGE_POINTS];
    for (int k = 0; k < TC_EDGE_POINTS; k++)
        share[k] = 0.0;
    int line = line_bytes >= 8 ? line_bytes / 8 : 1;
    double last = point_bytes(llc_bytes, TC_EDGE_POINTS - 1);
    if (llc_bytes <= 0 || last > (double)max_bytes || !tc_mb_edge_from_chase(x, llc_bytes, chase))
        return TC_OK;
    int64_t n = (int64_t)last / 8;
    double *p = tc_rt_alloc_pages(n, TC_PAGES_AUTO, err);
    if (!p)
        return TC_ERESOURCE;
    for (int64_t i = 0; i < n; i++)
        p[i] = 0.0;
    double sweeps[2][TC_EDGE_PASSES][TC_EDGE_POINTS];
    for (int pass = 0; pass < TC_EDGE_PASSES; pass++)
        for (int update = 0; update < 2; update++)
            for (int k = 0; k < TC_EDGE_POINTS; k++)
                sweeps[update][pass][k] =
                    per_line(p, (int64_t)point_bytes(llc_bytes, k) / 8, line, update);
    tc_rt_free(p);
    tc_mb_edge_curve(sweeps, chase, share);
    return TC_OK;
}

double tc_mb_edge_share(const double share[TC_EDGE_POINTS], int64_t llc_bytes, double bytes)
{
    if (llc_bytes <= 0)
        return 1.0;
    double r = bytes / (double)llc_bytes;
    if (!tc_mb_edge_known(share))
        return r < 1.0 ? 1.0 : 0.0;
    double x = (r - TC_EDGE_FIRST) / TC_EDGE_STEP;
    if (x <= 0.0)
        return share[0];
    if (x >= TC_EDGE_POINTS - 1)
        return share[TC_EDGE_POINTS - 1];
    int k = (int)x;
    return share[k] + (x - (double)k) * (share[k + 1] - share[k]);
}
