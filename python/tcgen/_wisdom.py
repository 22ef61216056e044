"""Wisdom, tcgen's memory of decisions, from Python: files and text
(tcgen.h's tc_wisdom_* functions), and $TCGEN_WISDOM, a file read before
this process's first plan and written (merged) when it exits."""
import atexit
import ctypes
import os
import sys
import threading
import warnings

from . import _lib

_lock = threading.Lock()
_started = False


def _path(path):
    return os.fsencode(os.fspath(path))


def save_wisdom(path):
    """Adds this process's decisions to the wisdom file `path` (created if
    missing; other processes' entries in it are kept)."""
    err = _lib.Error()
    if _lib.lib.tc_wisdom_export_file(_path(path), ctypes.byref(err)) != _lib.TC_OK:
        raise err.exception("cannot save wisdom to %s" % os.fspath(path))


def load_wisdom(path):
    """Adds the decisions of the wisdom file `path` to this process's. A
    damaged file is refused whole (TcgenError with its line and column)."""
    err = _lib.Error()
    if _lib.lib.tc_wisdom_import_file(_path(path), ctypes.byref(err)) != _lib.TC_OK:
        raise err.exception("cannot load wisdom from %s" % os.fspath(path))


def export_wisdom():
    """This process's decisions as text (the file's format)."""
    err = _lib.Error()
    p = _lib.lib.tc_wisdom_export_string(ctypes.byref(err))
    if not p:
        raise err.exception("cannot export wisdom")
    try:
        return ctypes.string_at(p).decode("utf-8")
    finally:
        _lib.free(p)


def import_wisdom(text):
    """Adds the decisions in `text` (what export_wisdom returned, perhaps in
    another process) to this process's."""
    err = _lib.Error()
    if _lib.lib.tc_wisdom_import_string(text.encode("utf-8"), ctypes.byref(err)) != _lib.TC_OK:
        raise err.exception("cannot import wisdom")


def forget_wisdom():
    """Forgets every decision (plans made already keep theirs)."""
    _lib.lib.tc_wisdom_forget()


def start():
    """Before the first plan: with $TCGEN_WISDOM set, load that file if it
    exists and save to it at exit. A file that cannot be read or written
    is a warning: the plans are made anyway."""
    global _started
    if _started:
        return
    with _lock:
        if _started:
            return
        _started = True
        path = os.environ.get("TCGEN_WISDOM")
        if not path:
            return
        if os.path.exists(path):
            try:
                load_wisdom(path)
            except _lib.TcgenError as e:
                warnings.warn("tcgen: $TCGEN_WISDOM not used: %s" % e, RuntimeWarning)
        atexit.register(_save_at_exit, path)


def _save_at_exit(path):
    try:
        save_wisdom(path)
    except _lib.TcgenError as e:  # at exit a warning might not be shown
        sys.stderr.write("tcgen: warning: wisdom not saved to $TCGEN_WISDOM: %s\n" % e)
