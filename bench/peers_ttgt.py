"""peers_ttgt.py SPEC SIZES [FUNCTION] - writes, on standard output, the
transpose + dgemm (TTGT) that a C user would write by hand for one
contraction: the peer bench/peers.sh times as "hand-written transpose +
dgemm" (ttgt_s).

SPEC is TCCG's C-A-B (one letter per index, column-major: the first index
has stride 1), SIZES 'a=24,b=16,...'. The C function, int FUNCTION(const
double *A, const double *B, double *C) (default peer_fn), computes
C = A * B as:

- A and B permuted, where they must be, into the layouts one dgemm needs
  ([M,K] and [K,N]), by plain loop nests over the copy's indices, its
  first (stride-1) index innermost, so the writes run at stride 1 and the
  reads go where they must; sizes and strides are constants of the file;
- one cblas_dgemm, into C itself when C's indices are the rows' then the
  columns', else into a temporary [M,N] permuted into C by the same kind
  of loop nest.

Which operand gives the rows and the order of each index group (M, N, K:
as in C or as in an operand) are chosen to copy the fewest elements; an
operand already [M,K] or [K,M] (or [K,N], [N,K]) is passed in place with
dgemm's transpose flag, so nothing is copied that a careful user would not
copy. The temporaries are allocated once, on the first call (which
bench/peers_run.c makes before it times), 2 MiB aligned and advised onto
transparent huge pages from 4 MiB, as peers_run.c allocates the tensors and
tcgen its temporaries. Compiled by peers.sh with -O3 -march=native.
Batch indices (in A, B and C) are not in the TCCG list and are refused.

With --dgemm-only (or --dgemm-only-swapped) the function is that dgemm
alone, on A, B and C in place as if they were laid out already, nothing
permuted (swapped: as C^T = Y^T X^T, rows and columns exchanged): its
time, the faster of the two, is the most a transpose + dgemm can reach
on this contraction's shape, whatever its copies (peers.sh: shape_s).
Its C is not the contraction's.
"""
import itertools
import sys


def plan(spec, size):
    c, a, b = spec.split("-")
    if any(i in a and i in b for i in c):
        sys.exit("peers_ttgt.py: batch indices are not supported: " + spec)
    for t in (c, a, b):
        if len(set(t)) != len(t) or any(i not in size for i in t):
            sys.exit("peers_ttgt.py: bad spec or sizes: " + spec)
    best = None
    for left, pc, qc, kl in itertools.product((0, 1), (0, 1), (0, 1), (0, 1)):
        x, y = (a, b) if left == 0 else (b, a)  # x gives C's rows, y its columns
        p_in_x = [i for i in x if i in c]
        q_in_y = [i for i in y if i in c]
        k_in_x = [i for i in x if i in y]
        k_in_y = [i for i in y if i in x]
        p = [i for i in c if i in x] if pc else p_in_x
        q = [i for i in c if i in y] if qc else q_in_y
        k = k_in_x if kl else k_in_y
        ops = []
        for name, t, rows, cols in (("x", x, p, k), ("y", y, k, q)):
            if list(t) == rows + cols:
                ops.append((name, "N", None))
            elif list(t) == cols + rows:
                ops.append((name, "T", None))
            else:
                ops.append((name, "N", rows + cols))  # permuted into a temporary
        c_copy = None if list(c) == p + q else p + q
        cost = sum(prod(size, t) for t in (ops[0][2], ops[1][2], c_copy) if t is not None)
        # fewest elements copied, then fewest copies, then the first found
        key = (cost, sum(t is not None for t in (ops[0][2], ops[1][2], c_copy)))
        if best is None or key < best[0]:
            best = (key, dict(c=c, x=x, y=y, p=p, q=q, k=k, ops=ops, c_copy=c_copy,
                              left="A" if left == 0 else "B"))
    return best[1]


def prod(size, idx):
    n = 1
    for i in idx:
        n *= size[i]
    return n


def strides(size, t):
    s, n = {}, 1
    for i in t:
        s[i] = n
        n *= size[i]
    return s


def permute_fn(name, size, src, dst):
    """C loop nest: dst (indices dst, column-major) <- src (indices src)."""
    ss, ds = strides(size, src), strides(size, dst)
    lines = ["/* %s: [%s] <- [%s] */" % (name, ",".join(dst), ",".join(src)),
             "static void %s(const double *restrict src, double *restrict dst)" % name, "{"]
    depth = 1
    for i in reversed(dst):  # dst's first index innermost: stride-1 writes
        lines.append("    " * depth + "for (size_t %s = 0; %s < %d; %s++)" % (i, i, size[i], i))
        depth += 1
    d = " + ".join("%s * %d" % (i, ds[i]) if ds[i] != 1 else i for i in dst)
    s = " + ".join("%s * %d" % (i, ss[i]) if ss[i] != 1 else i for i in src)
    lines.append("    " * depth + "dst[%s] = src[%s];" % (d, s))
    lines.append("}")
    return "\n".join(lines)


def emit_dgemm_only(spec, sizes_text, func, swapped):
    """The TTGT's dgemm alone on A, B and C in place (the docstring)."""
    size = {k: int(v) for k, v in (item.split("=") for item in sizes_text.split(","))}
    pl = plan(spec, size)
    m_, n_, k_ = prod(size, pl["p"]), prod(size, pl["q"]), prod(size, pl["k"])
    flag = {name: f for name, f, _ in pl["ops"]}
    x, y = pl["left"], "B" if pl["left"] == "A" else "A"
    ld = {x: m_ if flag["x"] == "N" else k_, y: k_ if flag["y"] == "N" else n_}
    name = {"N": "CblasNoTrans", "T": "CblasTrans"}
    flip = {"N": "T", "T": "N"}
    if swapped:  # C^T[n,m] = Y^T[n,k] X^T[k,m]: each operand's flag flipped
        call = (name[flip[flag["y"]]], name[flip[flag["x"]]], n_, m_, k_, y, ld[y], x, ld[x], n_)
    else:
        call = (name[flag["x"]], name[flag["y"]], m_, n_, k_, x, ld[x], y, ld[y], m_)
    return "\n".join([
        "/* Generated by bench/peers_ttgt.py --dgemm-only%s for C_%s = A_%s B_%s (%s):"
        % ((("-swapped",) if swapped else ("",)) + tuple(spec.split("-")) + (sizes_text,)),
        " * the transpose + dgemm's dgemm alone, nothing permuted. */",
        "#include <cblas.h>\n",
        "int %s(const double *A, const double *B, double *C)\n{" % func,
        "    cblas_dgemm(CblasColMajor, %s, %s, %d, %d, %d, 1.0, %s, %d, %s, %d, 0.0, C, %d);" % call,
        "    return 0;\n}\n"])


def emit(spec, sizes_text, func):
    size = {k: int(v) for k, v in (item.split("=") for item in sizes_text.split(","))}
    pl = plan(spec, size)
    c, p, q, k = pl["c"], pl["p"], pl["q"], pl["k"]
    m_, n_, k_ = prod(size, p), prod(size, q), prod(size, k)
    src_name = {"x": pl["left"], "y": "B" if pl["left"] == "A" else "A"}
    src_idx = {"x": pl["x"], "y": pl["y"]}
    out = []
    out.append("/* Generated by bench/peers_ttgt.py for C_%s = A_%s B_%s (%s):"
               % tuple(spec.split("-") + [sizes_text]))
    out.append(" * a hand-written transpose + dgemm, C[%s] = X[%s] * Y[%s] with X = %s."
               % (",".join(p + q), ",".join(p + k), ",".join(k + q), pl["left"]))
    copies = [src_name[o[0]] for o in pl["ops"] if o[2] is not None] + \
             (["C"] if pl["c_copy"] is not None else [])
    out.append(" * Permuted: %s. */" % (", ".join(copies) if copies else "nothing"))
    out.append("#define _DEFAULT_SOURCE")
    out.append("#include <stdlib.h>\n#include <sys/mman.h>\n#include <cblas.h>\n")
    out.append("""static double *temporary(size_t n)
{
    size_t bytes = n * sizeof(double), huge = (size_t)2 << 20;
    size_t rounded = (bytes + huge - 1) / huge * huge;
    void *p = NULL;
    if (posix_memalign(&p, huge, rounded) != 0)
        return NULL;
    if (bytes >= 2 * huge)
        madvise(p, rounded, MADV_HUGEPAGE);
    return p;
}
""")
    temps = []
    operand = {}
    trans = {}
    for name, flag, layout in pl["ops"]:
        src = src_name[name]
        trans[name] = flag
        if layout is None:
            operand[name] = src
        else:
            fn = "permute_%s" % src
            out.append(permute_fn(fn, size, src_idx[name], layout) + "\n")
            temps.append(("T" + src, prod(size, layout), "%s(%s, T%s);" % (fn, src, src)))
            operand[name] = "T" + src
    if pl["c_copy"] is not None:
        out.append(permute_fn("permute_C", size, pl["c_copy"], c) + "\n")
    lda = (m_ if trans["x"] == "N" else k_)
    ldb = (k_ if trans["y"] == "N" else n_)
    cdst = "TC" if pl["c_copy"] is not None else "C"
    out.append("int %s(const double *A, const double *B, double *C)\n{" % func)
    alloc = [(t, n) for t, n, _ in temps] + ([("TC", m_ * n_)] if pl["c_copy"] is not None else [])
    for t, n in alloc:
        out.append("    static double *%s; /* allocated once, kept */" % t)
    if alloc:
        out.append("    if (!%s) {" % alloc[0][0])
        for t, n in alloc:
            out.append("        %s = temporary(%d);" % (t, n))
        out.append("        if (%s)\n            return -1;\n    }"
                   % " || ".join("!" + t for t, _ in alloc))
    for _, _, call in temps:
        out.append("    " + call)
    out.append("    cblas_dgemm(CblasColMajor, %s, %s, %d, %d, %d, 1.0, %s, %d, %s, %d, 0.0, %s, %d);"
               % ("CblasNoTrans" if trans["x"] == "N" else "CblasTrans",
                  "CblasNoTrans" if trans["y"] == "N" else "CblasTrans",
                  m_, n_, k_, operand["x"], lda, operand["y"], ldb, cdst, m_))
    if pl["c_copy"] is not None:
        out.append("    permute_C(TC, C);")
    out.append("    return 0;\n}")
    return "\n".join(out) + "\n"


def main():
    args = sys.argv[1:]
    mode = args.pop(0) if args and args[0].startswith("--") else None
    if len(args) not in (2, 3) or mode not in (None, "--dgemm-only", "--dgemm-only-swapped"):
        sys.exit("usage: peers_ttgt.py [--dgemm-only|--dgemm-only-swapped] SPEC SIZES [FUNCTION]")
    func = args[2] if len(args) == 3 else "peer_fn"
    if mode is None:
        sys.stdout.write(emit(args[0], args[1], func))
    else:
        sys.stdout.write(emit_dgemm_only(args[0], args[1], func, mode.endswith("swapped")))


if __name__ == "__main__":
    main()
