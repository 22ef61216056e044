"""Memory orders: how an array's axes lie in memory, so that any dense
array (C order, Fortran order, or any transpose of them) is handed to
tcgen in place, with its indices named in memory order, and only arrays
with gaps or negative strides are copied.

An order is a permutation of the axes from the slowest-varying to the
fastest: arr.transpose(order) is C-contiguous. tcgen is always given
column-major tensors, so an operand's indices are written fastest first,
reversed(order)."""
import numpy as np


def dense_order(arr):
    """The order in which arr is dense with positive strides, or None."""
    n = arr.ndim
    if arr.flags.c_contiguous:
        return tuple(range(n))
    if arr.flags.f_contiguous:
        return tuple(range(n - 1, -1, -1))
    order = copy_order(arr)
    return order if arr.transpose(order).flags.c_contiguous else None


def copy_order(arr):
    """The order a copy of arr is made in: its axes by decreasing stride
    (size-1 axes last), so that the copy walks arr's memory forward."""
    shape, strides = arr.shape, arr.strides
    return tuple(sorted(range(arr.ndim), key=lambda k: (shape[k] == 1, -abs(strides[k]), k)))


def inverse(order):
    inv = [0] * len(order)
    for pos, axis in enumerate(order):
        inv[axis] = pos
    return tuple(inv)


def empty(shape, order):
    """A new float64 array of `shape` laid out in `order`."""
    return np.empty([shape[k] for k in order]).transpose(inverse(order))


def strides(shape, order):
    """The strides of empty(shape, order)."""
    st = [0] * len(shape)
    step = 8
    for axis in reversed(order):
        st[axis] = step
        step *= shape[axis]
    return tuple(st)
