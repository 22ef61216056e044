"""From numpy's einsum arguments to the problem tcgen plans: the subscripts
parsed (numpy's syntax and implicit output), the operands' shapes checked
(ValueError with numpy-like messages), the index sizes, and every case
tcgen cannot compute named (UnsupportedError, which tcgen.einsum answers
with numpy.einsum)."""
import math
import string

import numpy as np

from . import _lib

_LETTERS = frozenset(string.ascii_letters)
MAX_TENSOR_INDICES = 8  # tcgen's limit (README, "Input"); with it, 16 indices in all
# the dtypes tcgen computes in (native byte order), each with its planning flags
DTYPES = {np.dtype(np.float64): 0, np.dtype(np.float32): _lib.TC_SINGLE,
          np.dtype(np.complex128): _lib.TC_COMPLEX,
          np.dtype(np.complex64): _lib.TC_COMPLEX | _lib.TC_SINGLE}


class UnsupportedError(ValueError):
    """Arguments numpy.einsum takes but a tcgen plan cannot compute (an
    ellipsis, a diagonal, a sum over one operand, an element-wise product,
    broadcasting, a size-0 or 0-d operand, a dtype other than float32,
    float64, complex64 and complex128 or operands of two dtypes, more
    indices than tcgen takes). tcgen.einsum hands such a call to
    numpy.einsum; tcgen.plan raises this, saying why."""


def parse(subscripts):
    """'ij,jk->ik' -> ('ij', 'jk', 'ik'). Without '->' the output is numpy's
    implicit one: the letters that appear once, in alphabetical order
    (upper case before lower case). Spaces are ignored, as numpy does."""
    if not isinstance(subscripts, str):
        raise TypeError("subscripts must be a string such as 'ij,jk->ik', not %s"
                        % type(subscripts).__name__)
    s = subscripts.replace(" ", "")
    if "." in s:
        raise UnsupportedError("an ellipsis ('...') in %r" % subscripts)
    if s.count("->") > 1 or s.count("-") != s.count("->") or s.count(">") != s.count("->"):
        raise ValueError("einstein sum subscripts string %r: '-' and '>' must come together "
                         "as one '->'" % subscripts)
    explicit = "->" in s
    inputs, out = s.split("->") if explicit else (s, None)
    terms = inputs.split(",")
    if len(terms) != 2:
        raise ValueError("tcgen.einsum takes two operands; the subscripts %r name %d"
                         % (subscripts, len(terms)))
    for ch in inputs.replace(",", "") + (out or ""):
        if ch not in _LETTERS:
            raise ValueError("invalid subscript %r in einstein sum subscripts string, "
                             "subscripts must be letters" % ch)
    a, b = terms
    if out is None:
        both = a + b
        out = "".join(sorted(ch for ch in set(both) if both.count(ch) == 1))
    else:
        for ch in out:
            if out.count(ch) > 1:
                raise ValueError("einstein sum subscripts string includes output subscript "
                                 "%r multiple times" % ch)
            if ch not in a and ch not in b:
                raise ValueError("einstein sum subscripts string included output subscript "
                                 "%r which never appeared in an input" % ch)
    return a, b, out


def sizes(a, b, out, shape_a, shape_b, shape_out=None):
    """The size of each index, in order of first appearance in a, b. Raises
    ValueError when the shapes do not fit the subscripts (numpy's cases),
    UnsupportedError where numpy would broadcast a size-1 dimension."""
    for k, (labels, shape) in enumerate(((a, shape_a), (b, shape_b))):
        if len(labels) > len(shape):
            raise ValueError("einstein sum subscripts string contains too many subscripts "
                             "for operand %d (%d subscripts, %d dimensions)"
                             % (k, len(labels), len(shape)))
        if len(labels) < len(shape):
            raise ValueError("operand %d has more dimensions (%d) than subscripts given in "
                             "einstein sum (%d), and no '...' ellipsis to broadcast the "
                             "extra dimensions" % (k, len(shape), len(labels)))
    size = {}
    broadcast = None
    for k, (labels, shape) in enumerate(((a, shape_a), (b, shape_b))):
        for ch, n in zip(labels, shape):
            n = int(n)
            if n < 0:
                raise ValueError("negative dimension %d for label %r" % (n, ch))
            m = size.setdefault(ch, n)
            if m != n:
                if m != 1 and n != 1:
                    raise ValueError("size of label %r for operand %d (%d) does not match "
                                     "previous terms (%d)" % (ch, k, n, m))
                broadcast = broadcast or ch
                size[ch] = max(m, n)
    if shape_out is not None:
        want = tuple(size[ch] for ch in out)
        if tuple(shape_out) != want:
            raise ValueError("out has shape %s, the result of %s,%s->%s has shape %s"
                             % (tuple(shape_out), a, b, out, want))
    if broadcast:
        raise UnsupportedError("broadcasting: label %r has size 1 in one operand and %d in "
                               "the other" % (broadcast, size[broadcast]))
    return size


def check(a, b, out, size, dtypes, alpha, beta=0.0):
    """Raises UnsupportedError when tcgen cannot compute the contraction."""
    names = ("operand 0", "operand 1", "out")
    for k, dt in enumerate(dtypes):
        if dt is not None and dt not in DTYPES:
            raise UnsupportedError("%s has dtype %s; tcgen computes float32, float64, "
                                   "complex64 and complex128 (native byte order)"
                                   % (names[k], dt))
    given = [(names[k], dt) for k, dt in enumerate(dtypes) if dt is not None]
    for name, dt in given[1:]:
        if dt != given[0][1]:
            raise UnsupportedError("%s has dtype %s, %s %s: tcgen computes in one type"
                                   % (given[0][0], given[0][1], name, dt))
    if not a or not b:
        raise UnsupportedError("a 0-d operand")
    for k, labels in enumerate((a, b)):
        for ch in labels:
            if labels.count(ch) > 1:
                raise UnsupportedError("index %r repeated in operand %d (a diagonal)" % (ch, k))
    zero = [ch for ch, n in size.items() if n == 0]
    if zero:
        raise UnsupportedError("index %r has size 0" % zero[0])
    for k, (labels, other) in enumerate(((a, b), (b, a))):
        for ch in labels:
            if ch not in other and ch not in out:
                raise UnsupportedError("index %r is only in operand %d and not in the output "
                                       "(a sum over one operand)" % (ch, k))
    if all(ch in a and ch in b and ch in out for ch in size):
        raise UnsupportedError("an element-wise product: every index is in both operands "
                               "and the output")
    if max(len(a), len(b), len(out)) > MAX_TENSOR_INDICES:
        raise UnsupportedError("more than %d indices in one tensor" % MAX_TENSOR_INDICES)
    if not (math.isfinite(alpha.real) and math.isfinite(alpha.imag)):
        raise UnsupportedError("alpha is %r" % alpha)
    real = not given or given[0][1].kind != "c"
    for name, x in (("alpha", alpha), ("beta", beta)):
        if x.imag != 0 and real:
            raise UnsupportedError("a complex %s (%r) with %s operands"
                                   % (name, x, given[0][1] if given else "float64"))
