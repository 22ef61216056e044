"""python_test.py CASES - the tcgen Python package against numpy.einsum
(run by tests/python_test.sh, which gives CASES: bench/tccg_sizes.sh's
lines at small sizes, the TCCG suite and the CCSD terms of examples/ccsd).

Prints "ok WHAT" or "FAIL: WHAT" per check. Every result is compared with
numpy.einsum elementwise, relative to numpy.einsum of the absolute values
(the size of the sum's terms), within 1e-12."""
import sys
import threading

import numpy as np

import tcgen

rng = np.random.default_rng(36)
TOL = 1e-12


def say(good, what):
    print(("ok " if good else "FAIL: ") + what, flush=True)


def close(got, want, a, b, subscripts, scale=1.0, extra=0.0):
    """got within TOL of want, relative to |alpha| einsum(|a|, |b|) + |extra|."""
    mag = scale * np.einsum(subscripts, np.abs(a), np.abs(b)) + np.abs(extra)
    got, want = np.asarray(got), np.asarray(want)
    return got.shape == want.shape and bool(np.all(np.abs(got - want) <= TOL * mag + 1e-300))


def raises(kind, fn, *args, **kw):
    """The message of the `kind` exception fn raises; None when it raises
    none, or another kind."""
    try:
        fn(*args, **kw)
    except kind as e:
        return str(e)
    except Exception:
        return None
    return None


def data(shape, order="C"):
    return np.asarray(rng.random(shape) - 0.5, order=order)


def cases(path):
    out = []
    with open(path) as f:
        for line in f:
            group, spec, _, sizes = line.rstrip("\n").split("\t")
            c, a, b = spec.split("-")
            size = {k: int(v) for k, v in (x.split("=") for x in sizes.split(","))}
            out.append((group + " " + spec, a, b, c, size))
    return out


def suite(cases_):
    """Every case in Fortran order (the TCCG layout) with out given, then the
    same memory as C-ordered arrays (subscripts reversed), as arbitrary
    transposes, as strided views (copied), as tiles of larger arrays (in
    place), and with out not given."""
    for name, a, b, c, size in cases_:
        sub = "%s,%s->%s" % (a, b, c)
        A = data([size[i] for i in a], "F")
        B = data([size[i] for i in b], "F")
        want = np.einsum(sub, A, B)
        out = np.full([size[i] for i in c], np.nan, order="F")  # beta 0 must not read it
        r = tcgen.einsum(sub, A, B, out=out)
        p = tcgen.cached(sub, A, B, out)
        say(r is out and close(out, want, A, B, sub) and isinstance(p, tcgen.Plan),
            "%s: Fortran order, out given (%s)" % (name, getattr(p, "algorithm", p)))
        # the same memory as C-ordered arrays: every index list reversed
        rsub = "%s,%s->%s" % (a[::-1], b[::-1], c[::-1])
        r = tcgen.einsum(rsub, A.T, B.T)
        say(r.flags.c_contiguous and close(r, want.T, A.T, B.T, rsub),
            "%s: C order, new out" % name)
        # any transpose of a dense array is used in place
        pa, pb, pc = (rng.permutation(len(t)) for t in (a, b, c))
        tsub = "%s,%s->%s" % ("".join(a[k] for k in pa), "".join(b[k] for k in pb),
                              "".join(c[k] for k in pc))
        tout = np.empty(out.shape, order="F").transpose(pc)
        tcgen.einsum(tsub, A.transpose(pa), B.transpose(pb), out=tout)
        say(close(tout, want.transpose(pc), A.transpose(pa), B.transpose(pb), tsub),
            "%s: transposed views %s" % (name, tsub))
        # views with gaps: every other element of the first axis, copied
        big_a = data([2 * size[i] if k == 0 else size[i] for k, i in enumerate(a)], "F")
        big_b = data([2 * size[i] if k == 0 else size[i] for k, i in enumerate(b)], "F")
        big_c = np.zeros([2 * size[i] if k == 0 else size[i] for k, i in enumerate(c)], order="F")
        va, vb, vc = big_a[::2], big_b[::2], big_c[::2]
        tcgen.einsum(sub, va, vb, out=vc)
        say(close(vc, np.einsum(sub, va, vb), va, vb, sub) and not big_c[1::2].any(),
            "%s: strided views" % name)
        # tiles of larger arrays (gaps between columns): planned where they lie
        inner = tuple(slice(1, -1) for _ in range(8))
        ta = data([size[i] + 2 for i in a], "F")[inner[:len(a)]]
        tb = data([size[i] + 2 for i in b], "F")[inner[:len(b)]]
        big_t = np.zeros([size[i] + 2 for i in c], order="F")
        tc_ = big_t[inner[:len(c)]]
        tcgen.einsum(sub, ta, tb, out=tc_)
        p = tcgen.cached(sub, ta, tb, tc_)
        rim = big_t.copy()
        rim[inner[:len(c)]] = 0
        say(close(tc_, np.einsum(sub, ta, tb), ta, tb, sub) and not rim.any() and
            isinstance(p, tcgen.Plan) and p.views,
            "%s: tiles in place (%s)" % (name, getattr(p, "algorithm", p)))
        # the tiles' plan on dense arrays: copied into its layout, gaps and all
        if isinstance(p, tcgen.Plan):
            da, db = np.ascontiguousarray(ta), np.ascontiguousarray(tb)
            r = p(da, db)
            say(close(r, np.einsum(sub, da, db), da, db, sub),
                "%s: a tile plan on dense arrays" % name)


def same_order_c(cases_):
    """A few cases with the same subscripts on C-ordered arrays."""
    for name, a, b, c, size in cases_:
        sub = "%s,%s->%s" % (a, b, c)
        A, B = data([size[i] for i in a]), data([size[i] for i in b])
        out = np.empty([size[i] for i in c])
        tcgen.einsum(sub, A, B, out=out)
        say(close(out, np.einsum(sub, A, B), A, B, sub), "%s: C order, same subscripts" % name)


def alpha_beta(cases_):
    """alpha and beta: the CCSD terms as examples/ccsd writes them
    (R += 0.5 * ...) and other factors, through einsum and a plan."""
    for name, a, b, c, size in cases_:
        sub = "%s,%s->%s" % (a, b, c)
        A = data([size[i] for i in a], "F")
        B = data([size[i] for i in b], "F")
        E = np.einsum(sub, A, B)
        for alpha, beta in ((0.5, 1.0), (-2.0, 0.0), (1.0, 2.5), (0.0, -1.0)):
            R0 = data(E.shape, "F")
            R = R0.copy(order="F")
            tcgen.einsum(sub, A, B, out=R, alpha=alpha, beta=beta)
            say(close(R, alpha * E + beta * R0, A, B, sub, abs(alpha), beta * R0),
                "%s: alpha %g beta %g" % (name, alpha, beta))
        p = tcgen.plan(sub, A.shape, B.shape, E.shape, alpha=0.5, beta=1.0, order="F")
        R0 = data(E.shape, "F")
        R = R0.copy(order="F")
        r = p(A, B, R)
        say(r is R and close(R, 0.5 * E + R0, A, B, sub, 0.5, R0) and p.beta == 1.0
            and isinstance(p.algorithm, str) and p.algorithm and p.predicted_seconds > 0
            and p.origin in ("estimate", "wisdom") and "+=" in p.contraction,
            "%s: plan from shapes, %s, %s" % (name, p.algorithm, p.origin))
        # the same plan on C-ordered arrays: copied in, out through a temporary
        Ac, Bc, Rc = np.ascontiguousarray(A), np.ascontiguousarray(B), np.ascontiguousarray(R0)
        p(Ac, Bc, Rc)
        say(close(Rc, 0.5 * E + R0, A, B, sub, 0.5, R0), "%s: plan on other layouts" % name)


def implicit():
    """numpy's implicit output: the letters that appear once, sorted."""
    for sub, sa, sb in (("ij,jk", (5, 6), (6, 7)), ("kj,ji", (5, 6), (6, 7)),
                        ("Ab,bC", (3, 4), (4, 5)), ("aB,Bc", (3, 4), (4, 5)),
                        ("abc,cd", (2, 3, 4), (4, 5)), ("ijk,jil", (2, 3, 4), (3, 2, 5)),
                        ("ij,ij", (4, 5), (4, 5)), ("i,j", (3,), (4,)),
                        ("ba, ac", (3, 4), (4, 5))):
        A, B = data(sa), data(sb)
        want = np.einsum(sub, A, B)
        got = tcgen.einsum(sub, A, B)
        say(np.shape(got) == np.shape(want) and close(got, want, A, B, sub)
            and isinstance(tcgen.cached(sub, A, B), tcgen.Plan), "implicit output %r" % sub)
    r = tcgen.einsum("ij,ij", data((3, 4)), data((3, 4)))
    say(isinstance(r, np.float64), "a 0-d result is a numpy scalar, as numpy's")
    r = tcgen.einsum("ij,jk", [[1.0, 2.0]], [[3.0], [4.0]])
    say(r.shape == (1, 1) and r[0, 0] == 11.0, "lists as operands")


def batch():
    """Batch indices (in a, b and the output) with a contracted or free one:
    tcgen loops over them."""
    for sub, sa, sb in (("bij,bjk->bik", (3, 4, 5), (3, 5, 6)), ("ij,ij->i", (7, 5), (7, 5)),
                        ("ij,i->ij", (4, 6), (4,)), ("abc,cb->ab", (2, 3, 4), (4, 3)),
                        ("i,j->ij", (3,), (4,)), ("i,i->", (9,), (9,))):
        for order in ("C", "F"):
            A, B = data(sa, order), data(sb, order)
            got = tcgen.einsum(sub, A, B)
            say(close(got, np.einsum(sub, A, B), A, B, sub)
                and isinstance(tcgen.cached(sub, A, B), tcgen.Plan),
                "%s, %s order (%s)" % (sub, order, tcgen.cached(sub, A, B).algorithm))


def repeated():
    """The plan cache: a repeated call takes the same plan; NaN in out with
    beta 0 is overwritten; an out overlapping an input is still right."""
    A, B = data((20, 30)), data((30, 20))
    tcgen.einsum("ij,jk->ik", A, B)
    p1 = tcgen.cached("ij,jk->ik", A, B)
    r = tcgen.einsum("ij,jk->ik", A, B)
    say(tcgen.cached("ij,jk->ik", A, B) is p1 and close(r, A @ B, A, B, "ij,jk->ik"),
        "a repeated call takes the cached plan")
    tcgen.clear_cache()
    say(tcgen.cached("ij,jk->ik", A, B) is None, "clear_cache empties the cache")
    X = data((20, 20))
    Y = data((20, 20))
    want = X @ Y
    Xa = X.copy()
    tcgen.einsum("ij,jk->ik", Xa, Y, out=Xa)
    say(close(Xa, want, X, Y, "ij,jk->ik"), "out is an input: written through a temporary")
    out = np.full((20, 20), np.nan)
    tcgen.einsum("ij,jk->ik", X, Y, out=out)
    say(close(out, want, X, Y, "ij,jk->ik"), "beta 0 overwrites NaN in out")
    big = np.zeros((20, 40))
    tcgen.einsum("ij,jk->ik", X, Y, out=big[:, ::2])
    say(close(big[:, ::2], want, X, Y, "ij,jk->ik") and not big[:, 1::2].any(),
        "a strided out is written through a temporary")
    Xn = X.copy()
    Xn[0, 0] = np.inf
    r = tcgen.einsum("ij,jk->ik", Xn, Y, alpha=0.0)
    say(not r.any() and not np.isnan(r).any(), "alpha 0 does not read a or b")
    # threads share the cache and the plans
    A2, B2 = data((40, 50)), data((50, 60))
    want2 = A2 @ B2
    bad = []

    def worker():
        for _ in range(20):
            if not close(tcgen.einsum("ij,jk->ik", A2, B2), want2, A2, B2, "ij,jk->ik"):
                bad.append(1)
    ts = [threading.Thread(target=worker) for _ in range(4)]
    for t in ts:
        t.start()
    for t in ts:
        t.join()
    say(not bad, "4 threads calling einsum at once")
    # the workspace: a plan says what it takes; releasing keeps results right
    p = tcgen.plan("ij,jk->ik", A2, B2)
    say(isinstance(p.workspace_bytes, int) and p.workspace_bytes >= 0,
        "Plan.workspace_bytes is a byte count")
    tcgen.release_workspace()
    say(close(p(A2, B2), want2, A2, B2, "ij,jk->ik"), "a plan runs after release_workspace")


def fallbacks():
    """What tcgen cannot compute goes to numpy.einsum: the same answer, and
    tcgen.plan says why."""
    def check(what, sub, A, B, out=None, alpha=1.0, beta=0.0):
        ref_out = None if out is None else out.copy()
        if ref_out is None:
            want = alpha * np.einsum(sub, A, B)
        else:
            want = alpha * np.einsum(sub, A, B) + beta * ref_out
        got = tcgen.einsum(sub, A, B, out=out, alpha=alpha, beta=beta)
        reason = tcgen.cached(sub, A, B, out, alpha, beta)
        err = raises(tcgen.UnsupportedError, tcgen.plan, sub, A, B, out, alpha, beta)
        same = np.shape(got) == np.shape(want) and np.allclose(got, want, rtol=1e-6, atol=1e-6,
                                                                equal_nan=True)
        say(same and isinstance(reason, str) and err == reason,
            "fallback, %s: %s" % (what, reason))

    A, B = data((4, 5)), data((5, 6))
    check("int64", "ij,jk->ik", (A * 10).astype(np.int64), (B * 10).astype(np.int64))
    check("complex alpha, float64", "ij,jk->ik", A, B, alpha=0.5j)
    check("mixed dtypes", "ij,jk->ik", A.astype(np.float32), B)
    check("big-endian", "ij,jk->ik", A.astype(">f8"), B)
    np_err = raises(TypeError, np.einsum, "ij,jk->ik", A, B, out=np.zeros((4, 6), np.float32),
                    optimize=True)
    tc_err = raises(TypeError, tcgen.einsum, "ij,jk->ik", A, B, out=np.zeros((4, 6), np.float32))
    say(bool(np_err) and tc_err == np_err, "fallback, out float32 for float64: numpy's "
        "TypeError: %s" % tc_err)
    check("ellipsis", "...j,jk->...k", data((2, 3, 5)), B)
    check("diagonal", "ii,ij->j", data((5, 5)), B)
    check("sum over one operand", "ij,jk->k", A, B)
    check("element-wise product", "ij,ij->ij", A, data((4, 5)))
    check("broadcast", "ij,jk->ik", data((4, 1)), B)
    check("size 0", "ij,jk->ik", data((0, 5)), B)
    check("0-d operand", "ij,->ij", A, np.array(2.0))
    check("9 indices", "abcdefghi,i->abcdefgh", data((2,) * 9), data((2,)))
    check("alpha inf", "ij,jk->ik", A, B, alpha=np.inf)
    check("alpha 0, int", "ij,jk->ik", (A * 10).astype(np.int64), (B * 10).astype(np.int64),
          None, 0.0)


def types(cases_):
    """float32, complex64 and complex128 computed in their own type (sgemm,
    cgemm, zgemm ...): every case in Fortran order, as tiles in place, with
    a complex alpha and beta for complex types, against numpy.einsum in
    complex128, within 100 units of the type's epsilon times the
    contraction's terms; a plan made from shapes and a dtype; a plan used
    with another dtype refused."""
    for dt in (np.float32, np.complex64, np.complex128):
        eps = np.finfo(dt).eps
        kind = np.dtype(dt).kind
        for name, a, b, c, size in cases_:
            sub = "%s,%s->%s" % (a, b, c)
            def typed(shape):
                x = data(shape, "F")
                return (x + 1j * data(shape, "F") if kind == "c" else x).astype(dt)
            A, B = typed([size[i] for i in a]), typed([size[i] for i in b])
            inner = tuple(slice(1, -1) for _ in range(len(c)))
            big = typed([size[i] + 2 for i in c])
            C0 = big.copy()
            alpha, beta = (0.5 - 1.25j, -0.75 + 0.5j) if kind == "c" else (0.5, -0.75)
            want = alpha * np.einsum(sub, A.astype(np.complex128), B.astype(np.complex128)) \
                + beta * C0[inner].astype(np.complex128)
            tcgen.einsum(sub, A, B, out=big[inner], alpha=alpha, beta=beta)
            p = tcgen.cached(sub, A, B, big[inner], alpha, beta)
            terms = np.einsum(sub, np.abs(A), np.abs(B)).astype(np.float64) + np.abs(C0[inner])
            k = int(np.prod([size[i] for i in a if i not in c]))
            good = np.all(np.abs(big[inner] - want) <= 100 * eps * k * terms * 4 + 1e-30)
            rim = big.copy()
            rim[inner] = C0[inner]
            letter = {np.float32: "s", np.complex64: "c", np.complex128: "z"}[dt]
            typed_kernel = isinstance(p, tcgen.Plan) and \
                p.algorithm.split("@")[0].split("-")[-1].startswith(letter)  # its kernel
            say(bool(good) and np.array_equal(rim, C0) and typed_kernel and p.dtype == dt
                and p.views,
                "%s, %s: tiles in place, alpha %s, beta %s (%s)"
                % (name, np.dtype(dt).name, alpha, beta, getattr(p, "algorithm", p)))
    p = tcgen.plan("ij,jk->ik", (30, 20), (20, 10), dtype=np.complex64)
    r = p(np.ones((30, 20), np.complex64), np.full((20, 10), 1j, np.complex64))
    say(p.dtype == np.complex64 and r.dtype == np.complex64 and np.allclose(r, 20j),
        "a plan from shapes and dtype complex64 (%s)" % p.algorithm)
    say(raises(TypeError, p, np.ones((30, 20)), np.ones((20, 10))) is not None,
        "a complex64 plan refuses float64 arrays")


def errors():
    """Bad input: ValueError (TypeError for types) with a message, as numpy."""
    A, B = data((4, 5)), data((5, 6))
    bad = [("three operands", ValueError, ("ij,jk,kl->il", A, B), {}),
           ("one operand", ValueError, ("ij->ji", A, B), {}),
           ("a digit", ValueError, ("i1,jk->ik", A, B), {}),
           ("'-' alone", ValueError, ("ij,jk-ik", A, B), {}),
           ("output twice", ValueError, ("ij,jk->ii", A, B), {}),
           ("output unknown", ValueError, ("ij,jk->iz", A, B), {}),
           ("too many subscripts", ValueError, ("ijk,jk->ik", A, B), {}),
           ("too few subscripts", ValueError, ("i,jk->ik", A, B), {}),
           ("sizes differ", ValueError, ("ij,jk->ik", A, data((6, 6))), {}),
           ("out's shape", ValueError, ("ij,jk->ik", A, B), {"out": np.zeros((4, 5))}),
           ("beta without out", ValueError, ("ij,jk->ik", A, B), {"beta": 1.0}),
           ("read-only out", ValueError, ("ij,jk->ik", A, B),
            {"out": np.lib.stride_tricks.as_strided(np.zeros((4, 6)), writeable=False)}),
           ("out not an array", TypeError, ("ij,jk->ik", A, B), {"out": [[0.0] * 6] * 4}),
           ("subscripts not a string", TypeError, (["ij", "jk"], A, B), {})]
    for what, kind, args, kw in bad:
        msg = raises(kind, tcgen.einsum, *args, **kw)
        say(bool(msg), "einsum, %s: %s %s" % (what, kind.__name__, msg))
    p = tcgen.plan("ij,jk->ik", A, B)
    for what, kind, args in (("a's shape", ValueError, (data((4, 4)), B)),
                             ("float32", TypeError, (A.astype(np.float32), B)),
                             ("out's shape", ValueError, (A, B, np.zeros((6, 4))))):
        msg = raises(kind, p, *args)
        say(bool(msg), "plan call, %s: %s %s" % (what, kind.__name__, msg))
    msg = raises(ValueError, tcgen.plan, "ij,jk->ik", A, B, effort="exhaustive")
    say(bool(msg), "plan, bad effort: %s" % msg)
    msg = raises(ValueError, tcgen.plan, "ij,jk->ik", (4, 5), (5, 6), order="K")
    say(bool(msg), "plan, bad order: %s" % msg)


def wisdom(path):
    """Wisdom as text and as a file; effort 'wisdom' without any is tcgen's
    error, with tcgen's message."""
    A, B = data((16, 12)), data((12, 8))
    tcgen.plan("ij,jk->ik", A, B)
    text = tcgen.export_wisdom()
    say(text.startswith("# tcgen wisdom") and "\t" in text, "export_wisdom gives the text")
    tcgen.forget_wisdom()
    try:
        tcgen.plan("ij,jk->ik", A, B, effort="wisdom")
        say(False, "effort 'wisdom' with no wisdom planned anyway")
    except tcgen.TcgenError as e:
        say(e.status == 1 and "wisdom" in str(e), "effort 'wisdom', no wisdom: %s" % e)
    tcgen.import_wisdom(text)
    p = tcgen.plan("ij,jk->ik", A, B, effort="wisdom")
    say(p.origin == "wisdom", "import_wisdom, then a plan from wisdom (%s)" % p.origin)
    # the structure, not the names: 'ab,bc->ac' on the same layout is the same problem
    p = tcgen.plan("xy,yz->xz", A, B, effort="wisdom", alpha=3.0)
    say(p.origin == "wisdom", "other letters and alpha: the same wisdom")
    p = tcgen.plan("ij,jk->ik", A, B, effort="measure")
    C = np.empty((16, 8))
    say(p.origin == "measure" and close(p(A, B, C), A @ B, A, B, "ij,jk->ik"),
        "effort 'measure' (%s, %s)" % (p.origin, p.algorithm))
    tcgen.save_wisdom(path)
    tcgen.forget_wisdom()
    tcgen.load_wisdom(path)
    p = tcgen.plan("ij,jk->ik", A, B, effort="wisdom")
    say(p.origin == "wisdom", "save_wisdom, forget, load_wisdom")
    with open(path + ".bad", "w") as f:
        f.write("# tcgen wisdom 1\nnot wisdom\n")
    try:
        tcgen.load_wisdom(path + ".bad")
        say(False, "a damaged wisdom file was loaded")
    except tcgen.TcgenError as e:
        say(e.status == 1 and e.line == 2 and e.column == 1, "a damaged file: %s" % e)


def main():
    all_cases = cases(sys.argv[1])
    suite(all_cases)
    same_order_c([c for c in all_cases if c[0].split()[1] in
                  ("ij-ik-kj", "abj-bka-kj", "abcijk-ijma-mkbc", "abij-aeim-mbej")])
    alpha_beta([c for c in all_cases if c[0].startswith("ccsd_example")])
    implicit()
    batch()
    repeated()
    fallbacks()
    types(all_cases)
    errors()
    wisdom(sys.argv[2])


if __name__ == "__main__":
    main()
