"""opscope from Python: a ggml profile or a PyTorch/Chrome trace read by the C core in-process.

    import opscope
    p = opscope.load("trace.json.gz")   # any input `opscope report` reads
    p.summary                            # the JSON summary `report --json` writes, as a dict
    p.kernels.head()                     # pandas DataFrames: ops, kernels, cpu_ops, steps,
                                         # streams, requests, tests, collectives,
                                         # kernel_stats, stream_stats

Columns and units: docs/python.md. Numbers come from numpy.frombuffer over the C arrays and
strings from one dictionary per column, so no Python code runs per row.
"""
import ctypes
import json
import os

import numpy as np
import pandas as pd

from . import _lib

__all__ = ["load", "job", "Error", "Profile", "Job", "TABLES", "JOB_TABLES"]

TABLES = ("ops", "kernels", "cpu_ops", "steps", "streams", "requests", "tests", "collectives",
          "kernel_stats", "stream_stats")
JOB_TABLES = ("ranks", "stragglers", "collectives")

_L = _lib.load_library()
library_path = _L.path


class Error(Exception):
    """A failed load: the C error's file, line, column and byte offset (0-based), as
    `opscope report` prints them (line and column 0 when unknown)."""

    def __init__(self, message, file="", line=0, column=0, byte=0, code=0, text=None):
        super().__init__(text or message)
        self.message, self.file, self.line, self.column = message, file, line, column
        self.byte, self.code = byte, code


def _error(err):
    buf = ctypes.create_string_buffer(1024)
    _L.opscope_error_format(ctypes.byref(err), buf, len(buf))
    dec = lambda b: (b or b"").decode("utf-8", "replace")
    return Error(dec(err.msg), file=dec(err.file), line=err.line, column=err.col, byte=err.pos,
                 code=err.code, text=dec(buf.value))


_NUMPY = {0: (ctypes.c_int64, np.int64), 1: (ctypes.c_double, np.float64), 2: (ctypes.c_int32, np.int32)}


def _column(h, t, c, rows):
    """One column as a numpy array (a copy: the handle is freed after the load)."""
    ctype, dtype = _NUMPY[_L.opscope_py_col_type(h, t, c)]
    ptr = _L.opscope_py_col_data(h, t, c)
    data = np.frombuffer((ctype * rows).from_address(ptr), dtype=dtype).copy() if rows else \
        np.empty(0, dtype=dtype)
    if dtype is not np.int32:
        return data
    n = ctypes.c_size_t()
    blob = _L.opscope_py_col_dict(h, t, c, ctypes.byref(n))
    words = ctypes.string_at(blob, n.value).decode("utf-8", "replace").split("\0")[:-1] if n.value else []
    # code -1 (none) indexes the None appended last
    return np.array(words + [None], dtype=object)[data]


def _table(h, t):
    rows = _L.opscope_py_table_rows(h, t)
    cols = {}
    for c in range(_L.opscope_py_table_cols(h, t)):
        cols[_L.opscope_py_col_name(h, t, c).decode()] = _column(h, t, c, rows)
    return pd.DataFrame(cols)


class _Result:
    """A result of the C core: `summary` (dict) and one DataFrame per table name (`tables`
    holds them all; an input without such rows gives an empty one, its columns kept)."""

    def __init__(self, path, summary, tables):
        self.path, self.summary, self.tables = path, summary, tables

    def __getattr__(self, name):
        tables = self.__dict__.get("tables", {})
        if name in tables:
            return tables[name]
        raise AttributeError(name)

    def __dir__(self):
        return sorted(set(super().__dir__()) | set(self.tables))

    def __repr__(self):
        sizes = ", ".join("%s=%d" % (k, len(v)) for k, v in self.tables.items() if len(v))
        return "<opscope.%s %s: %s>" % (type(self).__name__, self.path, sizes or "no rows")


class Profile(_Result):
    """A loaded profile or trace: `summary` is `report --json`'s summary member; the tables
    are TABLES."""


class Job(_Result):
    """A distributed job: `summary` is `report DIR --json`'s summary member (its "job"); the
    tables are JOB_TABLES."""


def _take(h, names):
    """The summary and the tables NAMES of the result H, which is freed."""
    if not h:
        return None
    try:
        n = ctypes.c_size_t()
        text = ctypes.string_at(_L.opscope_py_summary(h, ctypes.byref(n)), n.value)
        summary = json.loads(text).get("summary", {})
        made = {_L.opscope_py_table_name(h, t).decode(): t for t in range(_L.opscope_py_n_tables(h))}
        tables = {name: _table(h, made[name]) for name in names}
    finally:
        _L.opscope_py_free(h)
    return summary, tables


def load(path):
    """Reads PATH (ggml profile, record log, Kineto or Chrome trace, .gz too) in one pass of the
    C core. Raises Error for bad input, with its file, line, column and byte."""
    err = _lib.CError()
    h = _L.opscope_py_load(str(path).encode(), ctypes.byref(err))
    if not h:
        raise _error(err)
    return Profile(str(path), *_take(h, TABLES))


def job(paths, threads=0):
    """Reads a distributed job as `opscope report` does: PATHS is a folder of traces, a trace or
    job summary, or a list of them (one rank each; read THREADS at once, 0: one per core).
    Raises Error naming the first input that failed."""
    paths = [paths] if isinstance(paths, (str, bytes, os.PathLike)) else list(paths)
    arr = (ctypes.c_char_p * max(len(paths), 1))(*[os.fsencode(p) for p in paths])
    err = _lib.CError()
    h = _L.opscope_py_job(arr, len(paths), int(threads), ctypes.byref(err))
    if not h:
        raise _error(err)
    summary, tables = _take(h, JOB_TABLES)
    return Job(", ".join(str(p) for p in paths), summary.get("job", summary), tables)
