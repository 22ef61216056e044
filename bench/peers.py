"""peers.py SPEC SIZES REPS - what users would run instead of tcgen, timed.

SPEC is TCCG's C-A-B (one letter per index), SIZES 'a=24,b=16,...'. Arrays
are column-major (Fortran order), as tcgen's tensors. Prints three medians
in seconds, tab-separated: numpy.einsum(optimize=True); a hand-written
transpose + dgemm (TTGT: A and B permuted to [M,K] and [K,N] copies, one
matrix product, the result permuted into C); and one dgemm of the same
flop count (square, n = (flops/2)^(1/3)), the rate a BLAS reaches.
Batch indices (in A, B and C) are not in the TCCG list, so TTGT needs none.
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

    def einsum():
        np.einsum(expr, A, B, out=C, optimize=True)

    m_idx = [i for i in a if i in c]
    n_idx = [i for i in b if i in c]
    k_idx = [i for i in a if i in b and i not in c]
    m = int(np.prod([size[i] for i in m_idx]))
    n = int(np.prod([size[i] for i in n_idx]))
    k = int(np.prod([size[i] for i in k_idx]))
    perm_a = [a.index(i) for i in m_idx + k_idx]
    perm_b = [b.index(i) for i in k_idx + n_idx]
    mn = m_idx + n_idx
    perm_c = [mn.index(i) for i in c]

    def ttgt():
        a2 = np.asfortranarray(A.transpose(perm_a)).reshape((m, k), order="F")
        b2 = np.asfortranarray(B.transpose(perm_b)).reshape((k, n), order="F")
        c2 = np.dot(a2, b2).reshape([size[i] for i in mn], order="F")
        C[...] = c2.transpose(perm_c)

    ttgt()
    check = np.einsum(expr, A, B, optimize=True)
    if not np.allclose(C, check):
        sys.exit("peers.py: TTGT result differs from einsum")
    flops = 2.0 * m * n * k
    s = max(1, round((flops / 2.0) ** (1.0 / 3.0)))
    X = rng.random((s, s))
    Y = rng.random((s, s))
    Z = np.zeros((s, s))

    def gemm():
        np.dot(X, Y, out=Z)

    scale = flops / (2.0 * s ** 3)
    print("%.6e\t%.6e\t%.6e" % (median_time(einsum, reps), median_time(ttgt, reps),
                                median_time(gemm, reps) * scale))


if __name__ == "__main__":
    main()
