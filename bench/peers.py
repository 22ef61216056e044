"""peers.py SPEC SIZES REPS - what users would run instead of tcgen, timed.

SPEC is TCCG's C-A-B (one letter per index), SIZES 'a=24,b=16,...'. Arrays
are column-major (Fortran order), as tcgen's tensors. Prints three medians
in seconds, tab-separated: numpy.einsum(optimize=True) writing into a
preallocated C (out=C, Fortran order); numpy.einsum(optimize=True)
returning its own array (often a transposed view of its last product,
which spares it the copy into C); and one dgemm of the same flop count
(square, n = (flops/2)^(1/3)), the rate a BLAS reaches. The hand-written
transpose + dgemm is C (bench/peers_ttgt.py), timed by bench/peers_run.c.
"""
import sys
import time

import numpy as np


def median_time(fn, reps):
    fn()
    times = []
    for _ in range(reps):
        t = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t)
    times.sort()
    return times[len(times) // 2]


def main():
    spec, sizes_text, reps = sys.argv[1], sys.argv[2], int(sys.argv[3])
    c, a, b = spec.split("-")
    size = {k: int(v) for k, v in (item.split("=") for item in sizes_text.split(","))}
    rng = np.random.default_rng(1)
    A = np.asfortranarray(rng.random([size[i] for i in a]) - 0.5)
    B = np.asfortranarray(rng.random([size[i] for i in b]) - 0.5)
    C = np.zeros([size[i] for i in c], order="F")
    expr = f"{a},{b}->{c}"

    def einsum_out():
        np.einsum(expr, A, B, out=C, optimize=True)

    def einsum_own():
        np.einsum(expr, A, B, optimize=True)

    einsum_out()
    if not np.allclose(C, np.einsum(expr, A, B, optimize=True)):
        sys.exit("peers.py: einsum into out differs from einsum's own")
    flops = 2.0
    for i in set(c + a + b):
        flops *= size[i]
    s = max(1, round((flops / 2.0) ** (1.0 / 3.0)))
    X = rng.random((s, s))
    Y = rng.random((s, s))
    Z = np.zeros((s, s))

    def gemm():
        np.dot(X, Y, out=Z)

    scale = flops / (2.0 * s ** 3)
    print("%.6e\t%.6e\t%.6e" % (median_time(einsum_out, reps), median_time(einsum_own, reps),
                                median_time(gemm, reps) * scale))


if __name__ == "__main__":
    main()
