"""Plan: one tcgen plan (tc_plan_create) for one contraction, shapes,
memory orders, alpha and whether beta is nonzero, and how to run it on
numpy arrays (tc_execute), copying only what is not laid out as planned."""
import ctypes
import weakref

import numpy as np

from . import _layout, _lib, _problem, _wisdom

EFFORTS = {"estimate": _lib.TC_ESTIMATE, "measure": _lib.TC_MEASURE,
           "wisdom": _lib.TC_WISDOM_ONLY}

_execute = _lib.lib.tc_execute
_execute_scaled = _lib.lib.tc_execute_scaled
_may_share = np.may_share_memory


class Plan:
    """A planned contraction, callable as ``p(a, b, out=None)``: returns
    ``alpha * einsum(a, b) + beta * out`` (``out`` if given, else a new
    array laid out as planned). Arrays laid out as planned are used in
    place; others (another memory order, gaps, negative strides) are
    copied into the plan's layout on each call, and so is an out that is
    not, through a temporary. Immutable: threads may call one plan at once.

    Attributes: ``subscripts`` (explicit, 'ij,jk->ik'), ``shapes`` (of a,
    b and out), ``dtype`` (float32, float64, complex64 or complex128: of
    all three), ``orders`` (each operand's memory order, slowest axis
    first), ``alpha``, ``beta``, ``contraction`` and ``sizes`` (what tcgen
    was given), ``views`` (True when an operand with gaps, a tile of a
    larger array, was planned where it lies: tc_plan_create_views),
    ``algorithm``, ``predicted_seconds`` and ``origin`` ('estimate',
    'measure' or 'wisdom')."""

    def __init__(self, labels, size, orders, alpha, beta, effort="estimate", strides=None,
                 dtype=np.float64):
        if effort not in EFFORTS:
            raise ValueError("effort is %r; it takes 'estimate', 'measure' or 'wisdom'" % (effort,))
        la, lb, lc = labels
        self.subscripts = "%s,%s->%s" % (la, lb, lc)
        self.shapes = tuple(tuple(size[ch] for ch in t) for t in labels)
        self.orders = tuple(tuple(o) for o in orders)
        self.dtype = np.dtype(dtype)
        item = self.dtype.itemsize
        self.alpha = complex(alpha) if self.dtype.kind == "c" else float(alpha)
        self.beta = complex(beta) if self.dtype.kind == "c" else float(beta)
        # a complex alpha is given at each call (tc_execute_scaled), the plan's is 1
        self._alpha = None
        if self.alpha.imag != 0:
            self._alpha = np.array([self.alpha], self.dtype)
        # each operand's indices in memory order, fastest first: column-major
        mem = [[t[k] for k in reversed(o)] for t, o in zip(labels, self.orders)]
        real = self.alpha.real if self._alpha is None else 1.0
        factor = "" if real == 1.0 else repr(real) + " * "
        self.contraction = "C[%s] %s %sA[%s] * B[%s]" % (
            ",".join(mem[2]), "+=" if self.beta != 0.0 else "=", factor,
            ",".join(mem[0]), ",".join(mem[1]))
        self.sizes = ",".join("%s=%d" % kv for kv in size.items())
        # the strides used in place: as planned, or as the arrays it was made from
        self._strides = tuple(strides[k] if strides and strides[k] is not None
                              else _layout.strides(self.shapes[k], self.orders[k], item)
                              for k in range(3))
        self._base_c = [self.shapes[2][k] for k in self.orders[2]]
        self._inverse_c = _layout.inverse(self.orders[2])
        # views: an operand with gaps planned where it lies (tc_plan_create_views)
        self.views = any(self._strides[k] != _layout.strides(self.shapes[k], self.orders[k], item)
                         for k in range(3))
        _wisdom.start()
        err = _lib.Error()
        flags = EFFORTS[effort] | _problem.DTYPES[self.dtype]
        if self.views:
            handle = self._create_views(labels, flags, real, err)
        else:
            handle = _lib.lib.tc_plan_create(self.contraction.encode(), self.sizes.encode(),
                                             flags, ctypes.byref(err))
        if not handle:
            raise err.exception("tcgen cannot plan %s with %s" % (self.contraction, self.sizes))
        self._handle = handle
        self._finalizer = weakref.finalize(self, _lib.lib.tc_plan_destroy, handle)
        self.algorithm = _lib.lib.tc_plan_algorithm(handle).decode()
        self.predicted_seconds = _lib.lib.tc_plan_predicted_seconds(handle)
        self.origin = _lib.lib.tc_plan_origin(handle).decode()
        self.workspace_bytes = _lib.lib.tc_plan_workspace_bytes(handle)

    def _create_views(self, labels, flags, alpha, err):
        """tc_plan_create_views over the three operands' labels, shapes and
        strides (in elements)."""
        keep, desc = [], []
        for t, shape, st in zip(labels, self.shapes, self._strides):
            n = len(t)
            arrays = [(ctypes.c_int64 * max(n, 1))(*v) for v in
                      ([ord(ch) for ch in t], shape, [x // self.dtype.itemsize for x in st])]
            keep.append(arrays)
            desc.append(_lib.Desc(n, *arrays))
        return _lib.lib.tc_plan_create_views(ctypes.byref(desc[2]), ctypes.byref(desc[0]),
                                             ctypes.byref(desc[1]), alpha,
                                             1.0 if self.beta != 0.0 else 0.0, flags,
                                             ctypes.byref(err))

    def __repr__(self):
        return "<tcgen.Plan %s shapes %s: %s, %s, predicted %.3g s>" % (
            self.subscripts, self.shapes, self.contraction, self.algorithm,
            self.predicted_seconds)

    def __call__(self, a, b, out=None):
        a = np.asarray(a)
        b = np.asarray(b)
        for k, arr in enumerate((a, b, out)):
            if arr is None:
                continue
            if k == 2 and not isinstance(arr, np.ndarray):
                raise TypeError("out must be a numpy.ndarray, not %s" % type(arr).__name__)
            if arr.dtype != self.dtype:
                raise TypeError("%s has dtype %s; this plan is for %s arrays"
                                % (("a", "b", "out")[k], arr.dtype, self.dtype))
            if arr.shape != self.shapes[k]:
                raise ValueError("%s has shape %s; this plan is for %s"
                                 % (("a", "b", "out")[k], arr.shape, self.shapes[k]))
        if out is None and self.beta != 0.0:
            raise ValueError("this plan's beta is %r: it needs out" % self.beta)
        if out is not None and not out.flags.writeable:
            raise ValueError("output array is read-only")
        return self.run(a, b, out, self.beta)

    def _operand(self, k, arr):
        """arr itself when it is laid out as planned, else a copy that is."""
        if arr.strides == self._strides[k] and arr.flags.aligned:
            return arr
        if self.views:  # the copy takes the planned strides, gaps and all
            copy = _layout.like(arr.shape, self._strides[k], self.dtype)
            copy[...] = arr
            return copy
        if arr.flags.aligned and _layout.dense_order(arr) == self.orders[k]:
            return arr
        return np.ascontiguousarray(arr.transpose(self.orders[k]))

    def _new_out(self):
        """A new out laid out as planned."""
        if self.views:
            return _layout.like(self.shapes[2], self._strides[2], self.dtype)
        return np.empty(self._base_c, self.dtype).transpose(self._inverse_c)

    def run(self, a, b, out, beta):
        """The call without the checks: arrays of the plan's dtype and shapes,
        out writeable or None (beta 0); beta as the plan's or, when the plan
        has a nonzero beta, any nonzero value."""
        pa = self._operand(0, a)
        pb = self._operand(1, b)
        if out is None:
            target = self._new_out()
        elif (out.strides == self._strides[2] or
              (not self.views and _layout.dense_order(out) == self.orders[2])) \
                and out.flags.aligned and not _may_share(out, a) and not _may_share(out, b):
            target = out
        else:
            target = self._new_out()
            if beta != 0.0:
                target[...] = out
        if beta != 0.0 and beta != 1.0:
            target *= beta
        if self._alpha is None:
            status = _execute(self._handle, pa.ctypes.data, pb.ctypes.data, target.ctypes.data)
        else:
            status = _execute_scaled(self._handle, self._alpha.ctypes.data, pa.ctypes.data,
                                     pb.ctypes.data, None, target.ctypes.data)
        if status != _lib.TC_OK:
            raise _lib.TcgenError("tc_execute (%s): %s" % (
                self.algorithm, _lib.lib.tc_status_name(status).decode()), status)
        if out is None:
            return target[()] if target.ndim == 0 else target
        if target is not out:
            out[...] = target
        return out


def make(subscripts, a, b, out=None, alpha=1.0, beta=0.0, order=None, effort="estimate",
         dtype=None):
    """tcgen.plan: a Plan for arrays like a, b (and out), or for their shapes
    (of dtype, float64 by default)."""
    la, lb, lc = _problem.parse(subscripts)
    arrays = [x if isinstance(x, np.ndarray) else None for x in (a, b, out)]
    shapes = [tuple(x.shape) if isinstance(x, np.ndarray) else
              (None if x is None else tuple(int(n) for n in x)) for x in (a, b, out)]
    size = _problem.sizes(la, lb, lc, shapes[0], shapes[1], shapes[2])
    dtypes = [x.dtype if x is not None else None for x in arrays]
    if dtype is not None:
        dtypes = [d if d is not None else np.dtype(dtype) for d in dtypes]
    _problem.check(la, lb, lc, size, dtypes, alpha, beta)
    if order not in (None, "C", "F"):
        raise ValueError("order is %r; it takes 'C' or 'F'" % (order,))
    orders, strides = choose_orders(arrays, [len(la), len(lb), len(lc)], order)
    dtype = next((d for d in dtypes if d is not None), np.dtype(np.float64))
    return Plan((la, lb, lc), size, orders, alpha, beta, effort, strides, dtype)


def choose_orders(arrays, ndims, order=None):
    """The memory order of each operand (an array's own where it is dense,
    its copy's otherwise; `order`, default C, for a shape and for a new
    out) and the strides used in place (an array's own where dense)."""
    def given(n):
        return tuple(range(n)) if order != "F" else tuple(range(n - 1, -1, -1))
    a, b, out = arrays
    if out is None and order is None and a is not None and b is not None \
            and a.flags.f_contiguous and b.flags.f_contiguous \
            and not (a.flags.c_contiguous and b.flags.c_contiguous):
        order = "F"  # a new out follows Fortran-ordered operands
    orders, strides = [], []
    for arr, n in zip(arrays, ndims):
        if arr is None:
            orders.append(given(n))
            strides.append(None)
            continue
        dense = _layout.dense_order(arr) if arr.flags.aligned else None
        view = _layout.view_order(arr) if dense is None else None
        orders.append(dense if dense is not None else _layout.copy_order(arr))
        strides.append(arr.strides if dense is not None or view is not None else None)
    return orders, strides
