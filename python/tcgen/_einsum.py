"""tcgen.einsum: numpy.einsum's call for two operands, through a plan
cache per process. A call is looked up by its subscripts as written, the
operands' shapes, strides and dtypes, out's (or None), alpha and whether
beta is nonzero; a hit runs the cached plan without parsing anything
again. A miss plans (from wisdom when the problem's structure was decided
before, else by ranking: 0.1-1 s) or, where tcgen cannot compute the
call, caches numpy.einsum's turn for it."""
import threading

import numpy as np

from . import _plan, _problem

CACHE_SIZE = 512  # entries; the oldest goes first

_cache = {}
_lock = threading.Lock()
_ndarray = np.ndarray


class _Numpy:
    """A cached decision to hand the call to numpy.einsum, and why."""

    def __init__(self, reason):
        self.reason = reason

    def run(self, subscripts, a, b, out, alpha, beta):
        return numpy_einsum(subscripts, a, b, out, alpha, beta)


def numpy_einsum(subscripts, a, b, out, alpha, beta):
    """alpha * numpy.einsum(subscripts, a, b) + beta * out, as BLAS does it:
    with beta 0 what out held does not matter, with alpha 0 what a and b
    hold does not (NaN and Inf included)."""
    if alpha == 0:
        r = np.einsum(subscripts, a, b)  # numpy's errors, the result's shape and dtype
        if out is None:
            return np.zeros_like(r)[()]
        if beta == 0:
            out[...] = 0
        elif beta != 1:
            out *= beta
        return out
    if alpha == 1 and beta == 0:
        return np.einsum(subscripts, a, b, out=out, optimize=True)
    r = np.einsum(subscripts, a, b, optimize=True)
    if alpha != 1:
        r = alpha * r
    if out is None:
        return r
    if beta == 0:
        out[...] = r
        return out
    if beta != 1:
        out *= beta
    out += r
    return out


def einsum(subscripts, a, b, out=None, alpha=1.0, beta=0.0):
    """alpha * numpy.einsum(subscripts, a, b) + beta * out, computed by a
    tcgen plan (cached per process) where tcgen can, else by numpy.einsum.
    See the package's documentation."""
    if type(a) is not _ndarray:
        a = np.asarray(a)
    if type(b) is not _ndarray:
        b = np.asarray(b)
    if out is None:
        if beta != 0:
            raise ValueError("beta is %r but there is no out for it to scale" % (beta,))
        key = (subscripts, a.shape, a.strides, a.dtype, b.shape, b.strides, b.dtype,
               None, alpha, False)
    else:
        if not isinstance(out, _ndarray):
            raise TypeError("out must be a numpy.ndarray, not %s" % type(out).__name__)
        if not out.flags.writeable:
            raise ValueError("output array is read-only")
        key = (subscripts, a.shape, a.strides, a.dtype, b.shape, b.strides, b.dtype,
               (out.shape, out.strides, out.dtype), alpha, beta != 0)
    try:
        entry = _cache.get(key)
    except TypeError:  # unhashable: subscripts not a string, alpha not a number
        _problem.parse(subscripts)
        raise TypeError("alpha must be a number, not %s" % type(alpha).__name__)
    if entry is None:
        entry = _miss(key, subscripts, a, b, out, alpha, beta)
    if entry.__class__ is _Numpy:
        return entry.run(subscripts, a, b, out, alpha, beta)
    return entry.run(a, b, out, beta)


def _miss(key, subscripts, a, b, out, alpha, beta):
    with _lock:  # one plan at a time: a second thread finds the first one's
        entry = _cache.get(key)
        if entry is not None:
            return entry
        try:
            entry = _plan.make(subscripts, a, b, out, alpha, beta)
        except _problem.UnsupportedError as e:
            entry = _Numpy(str(e))
        while len(_cache) >= CACHE_SIZE:
            del _cache[next(iter(_cache))]
        _cache[key] = entry
        return entry


def clear_cache():
    """Empties the plan cache (its plans are freed once nothing else holds
    them; the decisions stay in the process's wisdom)."""
    with _lock:
        _cache.clear()


def cached(subscripts, a, b, out=None, alpha=1.0, beta=0.0):
    """What tcgen.einsum has cached for these arguments: the Plan, the
    reason it hands them to numpy.einsum (a string), or None."""
    a, b = np.asarray(a), np.asarray(b)
    okey = None if out is None else (out.shape, out.strides, out.dtype)
    entry = _cache.get((subscripts, a.shape, a.strides, a.dtype, b.shape, b.strides, b.dtype,
                        okey, alpha, out is not None and beta != 0))
    return entry.reason if isinstance(entry, _Numpy) else entry
