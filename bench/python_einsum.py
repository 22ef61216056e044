"""python_einsum.py CASES REPS ORDER... - tcgen.einsum against
numpy.einsum(optimize=True), timed in one process (bench/python.sh runs it
at one thread and gives CASES: bench/tccg_sizes.sh's lines).

For every case and ORDER ('F': Fortran order, TCCG's layout; 'C'), both
write into an out of the same layout as the operands, in 3 interleaved
rounds (tcgen, then numpy): the first call of the round, then the median
of REPS more. tcgen's first call in round 1 comes after forget_wisdom and
clear_cache, so it plans by ranking (cold); in rounds 2 and 3 after
clear_cache only, so it plans from wisdom, as a later process with
$TCGEN_WISDOM would. numpy has no plan to keep: its first call is the
round's first. Per case the median of the rounds' medians, the cold first
call, the median of the wisdom first calls, numpy's median first call.
Prints a tab-separated row per case and '#' lines with geometric means of
the ratios numpy time / tcgen time (above 1: tcgen faster)."""
import math
import sys
import time

import numpy as np

import tcgen

COLUMNS = ("order", "group", "spec", "sizes", "algorithm", "first_cold_s", "first_wisdom_s",
           "repeated_s", "numpy_first_s", "numpy_s", "first_cold_ratio", "first_wisdom_ratio",
           "repeated_ratio")


def timed(fn):
    t = time.perf_counter()
    fn()
    return time.perf_counter() - t


def median(xs):
    xs = sorted(xs)
    return xs[len(xs) // 2]


def case(order, group, spec, sizes, reps, rng):
    c, a, b = spec.split("-")
    size = {k: int(v) for k, v in (x.split("=") for x in sizes.split(","))}
    sub = "%s,%s->%s" % (a, b, c)
    A = np.asarray(rng.random([size[i] for i in a]) - 0.5, order=order)
    B = np.asarray(rng.random([size[i] for i in b]) - 0.5, order=order)
    out_tc = np.zeros([size[i] for i in c], order=order)
    out_np = np.zeros_like(out_tc)

    def run_tc():
        tcgen.einsum(sub, A, B, out=out_tc)

    def run_np():
        np.einsum(sub, A, B, out=out_np, optimize=True)

    tc_med, np_med, wisdom_first, np_first = [], [], [], []
    for rnd in range(3):
        tcgen.clear_cache()
        if rnd == 0:
            tcgen.forget_wisdom()
            cold = timed(run_tc)
        else:
            wisdom_first.append(timed(run_tc))
        tc_med.append(median([timed(run_tc) for _ in range(reps)]))
        np_first.append(timed(run_np))
        np_med.append(median([timed(run_np) for _ in range(reps)]))
    scale = np.einsum(sub, np.abs(A), np.abs(B), optimize=True)
    if not np.all(np.abs(out_tc - out_np) <= 1e-12 * scale + 1e-300):
        sys.exit("python_einsum.py: %s (%s): tcgen.einsum differs from numpy.einsum" % (spec, order))
    plan = tcgen.cached(sub, A, B, out_tc)
    alg = plan.algorithm if isinstance(plan, tcgen.Plan) else "numpy: " + str(plan)
    t, w, f, n, nf = median(tc_med), median(wisdom_first), cold, median(np_med), median(np_first)
    return (order, group, spec, sizes, alg, "%.6e" % f, "%.6e" % w, "%.6e" % t, "%.6e" % nf,
            "%.6e" % n, "%.3f" % (nf / f), "%.3f" % (nf / w), "%.3f" % (n / t))


def geomean(xs):
    return math.exp(sum(math.log(x) for x in xs) / len(xs))


def main():
    path, reps, orders = sys.argv[1], int(sys.argv[2]), sys.argv[3:]
    with open(path) as f:
        cases = [line.rstrip("\n").split("\t") for line in f if line.strip()]
    rng = np.random.default_rng(1)
    # the machine profile is read (or measured) by the first plan of the
    # process: not part of any case's first call
    tcgen.plan("ij,jk->ik", (8, 8), (8, 8))
    print("\t".join(COLUMNS), flush=True)
    rows = []
    for order in orders:
        for group, spec, _, sizes in cases:
            row = case(order, group, spec, sizes, reps, rng)
            rows.append(row)
            print("\t".join(row), flush=True)
    for order in orders:
        mine = [r for r in rows if r[0] == order]
        ratios = [[float(r[k]) for r in mine] for k in (10, 11, 12)]
        worst = sorted(mine, key=lambda r: float(r[12]))[:3]
        print("# %s order: %d contractions, geometric mean numpy.einsum(optimize=True) time / "
              "tcgen.einsum time: repeated calls %.2fx, first call from wisdom %.2fx, first "
              "call planning cold %.2fx; slowest repeated: %s" % (
                  order, len(mine), geomean(ratios[2]), geomean(ratios[1]), geomean(ratios[0]),
                  ", ".join("%s %sx (%s)" % (r[2], r[12], r[4]) for r in worst)), flush=True)


if __name__ == "__main__":
    main()
