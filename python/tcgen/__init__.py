"""tcgen from Python: numpy.einsum for two operands, by tcgen's plans.

    import numpy as np, tcgen
    c = tcgen.einsum("abcd,dbef->aecf", a, b)            # numpy.einsum's result
    tcgen.einsum("ij,jk->ik", a, b, out=c, alpha=0.5, beta=1.0)   # c = 0.5 a.b + c
    p = tcgen.plan("ij,jk->ik", (1000, 200), (200, 300))  # shapes or arrays
    p(a, b, out=c); p.algorithm, p.predicted_seconds

The package calls libtcgen (ctypes, no compiled extension); it is found
through $TCGEN_LIBRARY, else the path ``make install`` recorded, else the
repository's build/libtcgen.so, else the dynamic linker's directories.
Installed, it lives in PREFIX/lib/tcgen/python (``make install`` prints the
PYTHONPATH to use); in the repository, ``PYTHONPATH=python`` after ``make``.
It needs numpy.

What was decided, and why:

* ``einsum(subscripts, a, b, out=None, alpha=1.0, beta=0.0)`` returns
  ``alpha * numpy.einsum(subscripts, a, b) + beta * out``. Subscripts are
  numpy's: letters of both cases, spaces ignored, ``->`` with an explicit
  output, or without it numpy's implicit output (the letters that appear
  once, sorted, upper case first). Only the string form, two operands. As
  in BLAS, beta 0 does not read out (NaN in it is overwritten) and alpha 0
  does not read a and b; a nonzero beta needs out. Operands that are not
  arrays go through numpy.asarray.
* Memory layout: every dense operand is used in place, whatever its order:
  C order, Fortran order, or any transpose of those. tcgen is given the
  operand's indices in memory order, fastest first, as a column-major
  tensor (one convention, so no TC_ROW_MAJOR: a C-ordered operand's
  indices are simply written reversed). A tile of a larger array (a
  slice such as ``x[2:34, 4:36]``: gaps between its columns, its fastest
  axis of unit stride) is used in place too, planned with its strides
  (tc_plan_create_views; ``Plan.views`` says so). Other layouts (a
  fastest stride other than one element, negative strides) are copied
  (the copy walks memory forward); an out that is neither, or that shares
  memory with an input, is written through a temporary copied back. A new result follows Fortran order when both
  operands are Fortran-ordered, C order otherwise.
* The plan cache: a call is looked up by its subscripts as written, the
  three arrays' shapes, strides and dtypes, alpha and whether beta is 0,
  so a repeated call parses nothing and goes straight to tc_execute
  (a beta other than 0 and 1 scales out first, then accumulates). The
  cache holds 512 entries per process, the oldest dropped first;
  ``clear_cache()`` empties it. A miss plans with TC_ESTIMATE, one thread
  planning at a time. alpha is written into the contraction, which does
  not split tcgen's wisdom: wisdom is keyed by structure, not factor.
* Wisdom: with $TCGEN_WISDOM naming a file, it is read before the
  process's first plan (when it exists) and this process's decisions are
  merged into it at exit, so a later process plans each problem from
  wisdom (about 2 ms) instead of ranking (0.1-1 s). ``load_wisdom(path)``,
  ``save_wisdom(path)``, ``export_wisdom()``/``import_wisdom(text)`` and
  ``forget_wisdom()`` are tcgen.h's functions. The command-line tool's
  ``--wisdom FILE`` reads and writes the same format.
* ``plan(subscripts, a, b, out=None, alpha=1.0, beta=0.0, order=None,
  effort="estimate")`` makes a Plan for explicit reuse; a, b and out are
  arrays or shapes (shapes take ``order``, 'C' by default or 'F'), effort
  'estimate', 'measure' (also runs the best candidates) or 'wisdom'
  (only remembered decisions). The plan is freed when the Plan is.
* What numpy.einsum computes instead (tcgen.einsum calls it, with
  optimize=True; tcgen.plan raises UnsupportedError saying which): a dtype
  other than float32, float64, complex64 and complex128 (each computed in
  its own type, by sgemm, dgemm, cgemm, zgemm ...), operands of two
  dtypes, a complex alpha with real operands, an ellipsis, an
  index repeated in one operand (a diagonal), an index in one operand only
  and not in the output (a sum over it), an element-wise product (every
  index in a, b and the output), size-1 broadcasting, a dimension of size
  0, a 0-d operand, more than 8 indices in a tensor or 16 in all, and a
  non-finite alpha. ``cached(...)`` says which way a call went.
* Errors: bad subscripts and shapes that do not fit raise ValueError with
  numpy-like messages; errors from libtcgen raise TcgenError with tcgen's
  message (``status``, ``line``, ``column``).
"""
from ._lib import TcgenError, path as library_path
from ._problem import UnsupportedError
from ._plan import Plan, make as _make
from ._einsum import einsum, clear_cache, cached
from ._wisdom import save_wisdom, load_wisdom, export_wisdom, import_wisdom, forget_wisdom
from . import _lib

__version__ = _lib.lib.tc_version().decode()

__all__ = ["einsum", "plan", "Plan", "clear_cache", "cached", "save_wisdom", "load_wisdom",
           "export_wisdom", "import_wisdom", "forget_wisdom", "release_workspace",
           "TcgenError", "UnsupportedError", "library_path"]


def release_workspace():
    """Frees the temporaries the library keeps between calls and the memory
    prediction reads (tc_release_workspace); the next call allocates again.
    The budget for a plan's temporaries is $TCGEN_WORKSPACE (bytes, K/M/G),
    read when a plan is made; Plan.workspace_bytes says what one call takes."""
    _lib.lib.tc_release_workspace()


def plan(subscripts, a, b, out=None, alpha=1.0, beta=0.0, order=None, effort="estimate",
         dtype=None):
    """A Plan for ``alpha * einsum(subscripts, a, b) + beta * out``. a, b
    and out are arrays (their memory orders and dtype are planned for) or
    shapes (laid out in ``order``, 'C' or 'F'; default C; of ``dtype``,
    float32, float64 (default), complex64 or complex128). ``effort``:
    'estimate' ranks by prediction, 'measure' also runs the best
    candidates, 'wisdom' uses only remembered decisions (TcgenError when
    there are none).
    Raises UnsupportedError for what tcgen cannot compute (see the package
    documentation), ValueError for subscripts and shapes that do not fit."""
    return _make(subscripts, a, b, out, alpha, beta, order, effort, dtype)
