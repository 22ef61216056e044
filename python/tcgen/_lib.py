"""Loading libtcgen with ctypes, and the C functions' prototypes.

The library is looked for, in this order, and the first place that names
one is used (a library found there that does not load is an error, not a
reason to try the next):

1. ``$TCGEN_LIBRARY``, a path to libtcgen.so;
2. the path ``make install`` wrote into ``_installed.py`` next to this file
   (absent in the repository);
3. ``build/libtcgen.so`` of the repository this file sits in (in-place use
   with ``PYTHONPATH=python``);
4. ``ctypes.util.find_library("tcgen")`` (the dynamic linker's directories).
"""
import ctypes
import ctypes.util
import os

TC_ESTIMATE = 0x1
TC_MEASURE = 0x2
TC_WISDOM_ONLY = 0x4
TC_SINGLE = 0x20
TC_COMPLEX = 0x40
TC_ROW_MAJOR = 0x8

TC_OK = 0
TC_EINPUT = 1
TC_EUSAGE = 2
TC_ERESOURCE = 3
TC_EINTERNAL = 4


class TcgenError(RuntimeError):
    """An error reported by libtcgen: ``status`` is its tc_status (1 bad
    input, 2 usage, 3 resources, 4 internal), ``line`` and ``column`` the
    1-based place in the contraction text (0 when there is none)."""

    def __init__(self, message, status=TC_EINTERNAL, line=0, column=0):
        super().__init__(message)
        self.status = status
        self.line = line
        self.column = column


class Error(ctypes.Structure):
    """tc_error of tcgen.h."""
    _fields_ = [("code", ctypes.c_int),
                ("line", ctypes.c_int),
                ("column", ctypes.c_int),
                ("message", ctypes.c_char * 512)]

    def exception(self, what):
        text = self.message.decode("utf-8", "replace")
        where = "%d:%d: " % (self.line, self.column) if self.line > 0 else ""
        return TcgenError("%s: %s%s" % (what, where, text), self.code, self.line, self.column)


def _repository_library():
    here = os.path.dirname(os.path.abspath(__file__))
    return os.path.join(os.path.dirname(os.path.dirname(here)), "build", "libtcgen.so")


def _candidates():
    """(where, path) for each place that names a library, in order."""
    env = os.environ.get("TCGEN_LIBRARY")
    if env:
        yield "$TCGEN_LIBRARY", env
        return
    try:
        from . import _installed
        yield "the installed library (make install)", _installed.LIBRARY
        return
    except ImportError:
        pass
    inplace = _repository_library()
    if os.path.exists(inplace):
        yield "the repository's build", inplace
        return
    found = ctypes.util.find_library("tcgen")
    if found:
        yield "the dynamic linker's search (find_library)", found


def load():
    """The loaded CDLL and the path it came from; ImportError when none."""
    for where, path in _candidates():
        try:
            lib = ctypes.CDLL(path)
        except OSError as e:
            raise ImportError("tcgen: cannot load libtcgen from %s (%s): %s" % (where, path, e))
        _prototypes(lib)
        return lib, path
    raise ImportError(
        "tcgen: libtcgen.so not found: $TCGEN_LIBRARY is not set, this package was not "
        "installed by 'make install', there is no %s (run 'make' in the repository) and "
        "the dynamic linker does not know libtcgen; set TCGEN_LIBRARY=/path/to/libtcgen.so"
        % _repository_library())


class Desc(ctypes.Structure):
    """struct tc_tensor_desc: a tensor as labels, extents and strides."""
    _fields_ = [("nmode", ctypes.c_int),
                ("label", ctypes.POINTER(ctypes.c_int64)),
                ("extent", ctypes.POINTER(ctypes.c_int64)),
                ("stride", ctypes.POINTER(ctypes.c_int64))]


def _prototypes(lib):
    P = ctypes.c_void_p
    S = ctypes.c_char_p
    E = ctypes.POINTER(Error)
    D = ctypes.POINTER(Desc)
    protos = {
        "tc_version": (S, []),
        "tc_plan_create_views": (P, [D, D, D, ctypes.c_double, ctypes.c_double, ctypes.c_uint,
                                     E]),
        "tc_status_name": (S, [ctypes.c_int]),
        "tc_plan_create": (P, [S, S, ctypes.c_uint, E]),
        "tc_execute": (ctypes.c_int, [P, P, P, P]),
        "tc_execute_scaled": (ctypes.c_int, [P, P, P, P, P, P]),
        "tc_plan_algorithm": (S, [P]),
        "tc_plan_predicted_seconds": (ctypes.c_double, [P]),
        "tc_plan_origin": (S, [P]),
        "tc_plan_destroy": (None, [P]),
        "tc_wisdom_export_file": (ctypes.c_int, [S, E]),
        "tc_wisdom_import_file": (ctypes.c_int, [S, E]),
        "tc_wisdom_export_string": (P, [E]),
        "tc_wisdom_import_string": (ctypes.c_int, [S, E]),
        "tc_wisdom_forget": (None, []),
        "tc_plan_workspace_bytes": (ctypes.c_size_t, [P]),
        "tc_release_workspace": (None, []),
    }
    for name, (restype, argtypes) in protos.items():
        f = getattr(lib, name)
        f.restype = restype
        f.argtypes = argtypes


lib, path = load()
_libc = ctypes.CDLL(None)
_libc.free.argtypes = [ctypes.c_void_p]
_libc.free.restype = None


def free(pointer):
    """free() of the C library, for tc_wisdom_export_string's text."""
    _libc.free(pointer)
