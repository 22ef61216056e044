"""Memory orders: how an array's axes lie in memory, so that any dense
array (C order, Fortran order, or any transpose of them) is handed to
tcgen in place, with its indices named in memory order; a view with gaps
between its columns (a tile of a larger array) is handed in place with
its strides (view_order); only other layouts are copied.

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


def empty(shape, order, dtype=np.float64):
    """A new array of `shape` laid out in `order`."""
    return np.empty([shape[k] for k in order], dtype).transpose(inverse(order))


def strides(shape, order, itemsize=8):
    """The strides of empty(shape, order) of items of `itemsize` bytes."""
    st = [0] * len(shape)
    step = itemsize
    for axis in reversed(order):
        st[axis] = step
        step *= shape[axis]
    return tuple(st)


def view_order(arr):
    """The order of arr's axes when arr is a view tcgen plans over in place
    (tc_plan_create_views): its fastest axis of size above 1 at stride one
    element, each slower one at least the faster one's stride times its
    extent (a tile of a larger array); None otherwise."""
    item = arr.itemsize
    if not arr.flags.aligned:
        return None
    order = copy_order(arr)
    least = item
    for axis in reversed(order):
        n, st = arr.shape[axis], arr.strides[axis]
        if n == 1:
            continue
        if st % item or (st != item if least == item else st < least):
            return None
        least = st * n
    return order


def like(shape, strides, dtype=np.float64):
    """A new array of `shape` with `strides` (bytes, positive): its gaps
    allocated too."""
    item = np.dtype(dtype).itemsize
    span = 1 + sum((n - 1) * st // item for n, st in zip(shape, strides))
    return np.lib.stride_tricks.as_strided(np.empty(max(span, 1), dtype), shape, strides)
