"""opscope from Python: a ggml profile or a PyTorch/Chrome trace read by the C core in-process.

    import opscope
    p = opscope.load("trace.json.gz")   # any input `opscope report` reads
    p.summary                            # the JSON summary `report --json` writes, as a dict
    p.kernels.head()                     # pandas DataFrames: ops, kernels, cpu_ops, steps,
                                         # streams, requests, tests, collectives,
                                         # kernel_stats, stream_stats
    d = opscope.diff("base.json", "new.json", by="op")   # what `opscope diff` compares
    d.groups                             # DataFrames: groups, fusions, trace_cpu_ops,
                                         # trace_gpu_ops, threads; d.summary: `diff --json`

Columns and units: docs/python.md. Numbers come from numpy.frombuffer over the C arrays and
strings from one dictionary per column, so no Python code runs per row; each table becomes a
DataFrame the first time it is read, so a load costs only the tables used.
"""
import collections.abc
import ctypes
import json
import os

import numpy as np
import pandas as pd

from . import _lib

__all__ = ["load", "job", "diff", "Error", "Profile", "Job", "Diff", "TABLES", "JOB_TABLES",
           "DIFF_TABLES"]

TABLES = ("ops", "kernels", "cpu_ops", "steps", "streams", "requests", "tests", "collectives",
          "kernel_stats", "stream_stats", "queue_series", "membw_series",
          "launches", "kernel_seqs", "aten_kernels", "cupti_kernels", "cupti_values",
          "gpu_annotations", "gpu_annotation_stats", "kernel_annotations", "mem_timeline",
          "step_spans", "comm_kernels")
JOB_TABLES = ("ranks", "stragglers", "collectives")
DIFF_TABLES = ("groups", "fusions", "trace_cpu_ops", "trace_gpu_ops", "threads")

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


class _Handle:
    """A result of the C core, freed when the last table or part made from it is gone."""

    def __init__(self, h):
        self.h = h

    def __del__(self):
        if self.h:
            _L.opscope_py_free(self.h)
            self.h = None


class _Tables(collections.abc.Mapping):
    """The tables NAMES of the C result H (kept alive by OWNER, a _Handle), each made a
    DataFrame on first use and kept; once all are made the C result is let go."""

    def __init__(self, owner, h, names, refill=None):
        made = {_L.opscope_py_table_name(h, t).decode(): t for t in range(_L.opscope_py_n_tables(h))}
        self._owner, self._h, self._names = owner, h, tuple(names)
        # a memory timeline's load makes its one table: the others are empty frames
        self._index = {name: made.get(name) for name in self._names}
        self._frames = {}
        self._refill = refill or {}  # name -> a call giving the table (left out of this load)

    def __getitem__(self, name):
        df = self._frames.get(name)
        if df is None:
            if name not in self._index:
                raise KeyError(name)
            refill, t = self._refill.pop(name, None), self._index[name]
            df = self._frames[name] = refill() if refill else pd.DataFrame() if t is None else _table(self._h, t)
            if len(self._frames) == len(self._names):
                self._owner = self._h = None
        return df

    def __iter__(self):
        return iter(self._names)

    def __len__(self):
        return len(self._names)

    def column(self, name, col):
        """Column COL of table NAME as a numpy array, without making the table's DataFrame
        when it is not made yet (the frame's column when it is)."""
        t = None if name in self._frames or name in self._refill else self._index.get(name)
        if t is None:
            return self[name][col].to_numpy()
        for c in range(_L.opscope_py_table_cols(self._h, t)):
            if _L.opscope_py_col_name(self._h, t, c).decode() == col:
                return _column(self._h, t, c, _L.opscope_py_table_rows(self._h, t))
        raise KeyError(col)

    def rows(self, name):
        """NAME's number of rows, without making its DataFrame (None: left out of this load,
        read again on first use)."""
        if name in self._refill:
            return None
        if name in self._frames:
            return len(self._frames[name])
        return 0 if self._index[name] is None else _L.opscope_py_table_rows(self._h, self._index[name])


class _Result:
    """A result of the C core: `summary` (dict) and one DataFrame per table name (`tables`
    holds them all, each made on first use; an input without such rows gives an empty one,
    its columns kept)."""

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
        t = self.tables
        n = {k: (t.rows(k) if isinstance(t, _Tables) else len(t[k])) or 0 for k in t}
        sizes = ", ".join("%s=%d" % (k, v) for k, v in n.items() if v)
        return "<opscope.%s %s: %s>" % (type(self).__name__, self.path, sizes or "no rows")


class Profile(_Result):
    """A loaded profile or trace: `summary` is `report --json`'s summary member; the tables
    are TABLES."""


class Job(_Result):
    """A distributed job: `summary` is `report DIR --json`'s summary member (its "job"); the
    tables are JOB_TABLES."""


class Diff(_Result):
    """Two profiles or traces compared as `opscope diff` compares them: `summary` is the whole
    document `diff --json` writes; the tables are DIFF_TABLES."""


def _summary(h, whole=False):
    """The summary of the C result H (WHOLE: the whole document, else its "summary" member)."""
    n = ctypes.c_size_t()
    doc = json.loads(ctypes.string_at(_L.opscope_py_summary(h, ctypes.byref(n)), n.value))
    return doc if whole else doc.get("summary", {})


def _take(h, names, whole=False):
    """The summary and the tables NAMES (made on first use) of the result H, which is freed
    when they no longer need it."""
    if not h:
        return None
    owner = _Handle(h)
    return _summary(h, whole), _Tables(owner, h, names)


HTA_STEPS = {None: 0, "all": 0, "drop-last": 1, "keep-last": 2}


def _options(series=False, launches=False, counters_trace=None, cpath_trace=None, cpath_annotation=None,
             cpath_instance=None, cpu_ops=True, cpath_only_critical=False, hta_steps=None, sequences=True):
    """load's options as the C struct."""
    enc = lambda p: None if p is None else os.fsencode(p)
    if hta_steps not in HTA_STEPS:
        raise ValueError("hta_steps: 'drop-last', 'keep-last', 'all' or None, not %r" % (hta_steps,))
    return _lib.Options(size=ctypes.sizeof(_lib.Options), series=1 if series else 0,
                        launches=1 if launches else 0, counters_trace=enc(counters_trace),
                        cpath_trace=enc(cpath_trace), cpath_annotation=enc(cpath_annotation),
                        cpath_instance1=0 if cpath_instance is None else int(cpath_instance) + 1,
                        no_cpu_ops=0 if cpu_ops else 1, cpath_only_critical=1 if cpath_only_critical else 0,
                        hta_steps=HTA_STEPS[hta_steps], no_sequences=0 if sequences else 1)


def load(path, series=False, launches=False, counters_trace=None, cpath_trace=None, cpath_annotation=None,
         cpath_instance=None, cpath_only_critical=False, hta_steps=None, sequences=True):
    """Reads PATH (ggml profile, record log, Kineto or Chrome trace, .gz too) in one pass of the
    C core; SERIES also keeps a trace's queue length and memory bandwidth series (the tables
    queue_series and membw_series, else empty) and LAUNCHES each GPU activity's launching call
    (the table launches, in the kernels' order, else empty). COUNTERS_TRACE, CPATH_TRACE: files
    the trace is written back into, with counter tracks, resp. its critical path overlaid
    (`report --counters-trace`, `--critical-path-trace`); CPATH_ANNOTATION: the critical
    path's windows are this annotation's instances instead of the steps (CPATH_INSTANCE: that
    one only, 0 the first by start; without an annotation that profiler step only);
    CPATH_ONLY_CRITICAL: that trace keeps only HTA's only_show_critical_events (the X slices
    off the path left out). HTA_STEPS reads a trace as HTA loads it (two reads;
    docs/kineto.md): "drop-last" (HTA's include_last_profiler_step=False)
    keeps the CPU events before the last ProfilerStep and the GPU activities they launched,
    "keep-last" (True) those through its end; None or "all": every event. SEQUENCES=False
    leaves the GPU kernel sequences per CPU op and per aten op out (the tables kernel_seqs and
    aten_kernels empty, the summary's kernel_sequences and aten_op_kernels lists too): a
    quicker read when they are not needed. Raises Error for bad input, with its file, line,
    column and byte."""
    err = _lib.CError()
    opts = _options(series, launches, counters_trace, cpath_trace, cpath_annotation, cpath_instance,
                    cpath_only_critical=cpath_only_critical, hta_steps=hta_steps, sequences=sequences)
    h = _L.opscope_py_load_opts(str(path).encode(), ctypes.byref(opts), ctypes.byref(err))
    if not h:
        raise _error(err)
    return Profile(str(path), *_take(h, TABLES))


def job(paths, threads=0, profiles=False, **load_options):
    """Reads a distributed job as `opscope report` does: PATHS is a folder of traces, a trace or
    job summary, or a list of them (one rank each; read THREADS at once, 0: one per core).
    PROFILES (or any of load's options: series, launches, counters_trace, cpath_trace,
    cpath_annotation, cpath_instance, hta_steps) also gives each rank's trace as load gives it, from the
    same read (each trace is read once): the job's `profiles`, one per row of its ranks table
    (None for a rank that came from a job summary). cpu_ops=False leaves the largest table,
    cpu_ops, out of that read (less memory while the job is held), sequences=False the kernel
    sequences (a quicker read): a profile's cpu_ops, resp. kernel_seqs and aten_kernels, are
    then read again from its trace the first time they are used (the summary keeps what the
    first read gave). Raises Error naming the first input that failed."""
    paths = [paths] if isinstance(paths, (str, bytes, os.PathLike)) else list(paths)
    arr = (ctypes.c_char_p * max(len(paths), 1))(*[os.fsencode(p) for p in paths])
    err = _lib.CError()
    if profiles or load_options:
        opts = _options(**load_options)
        h = _L.opscope_py_job_opts(arr, len(paths), int(threads), ctypes.byref(opts), ctypes.byref(err))
    else:
        h = _L.opscope_py_job(arr, len(paths), int(threads), ctypes.byref(err))
    if not h:
        raise _error(err)
    owner = _Handle(h)
    summary = _summary(h)
    j = Job(", ".join(str(p) for p in paths), summary.get("job", summary), _Tables(owner, h, JOB_TABLES))
    parts = [_L.opscope_py_part(h, i) for i in range(_L.opscope_py_n_parts(h))]
    traces = j.ranks["trace"].tolist() if parts else []
    j.profiles = [Profile(trace, _summary(part), _Tables(owner, part, TABLES, _refill(trace, load_options)))
                  if part else None for trace, part in zip(traces, parts)]
    return j


def _refill(trace, load_options):
    """The tables job's LOAD_OPTIONS leave out of TRACE's profile, each made on first use by
    one more load of TRACE with the same series, launches and step filter: cpu_ops
    (cpu_ops=False) by one, the two sequence tables (sequences=False) by another."""
    again = lambda: load(trace, series=bool(load_options.get("series")),
                         launches=bool(load_options.get("launches")), hta_steps=load_options.get("hta_steps"))
    out = {}
    if not load_options.get("cpu_ops", True):
        out["cpu_ops"] = lambda: again().cpu_ops
    if not load_options.get("sequences", True):
        got = {}

        def seq(name):
            if not got:
                p = again()
                got.update(kernel_seqs=p.kernel_seqs, aten_kernels=p.aten_kernels)
            return got.pop(name)
        out["kernel_seqs"] = lambda: seq("kernel_seqs")
        out["aten_kernels"] = lambda: seq("aten_kernels")
    return out


def _paths(p):
    return [p] if isinstance(p, (str, bytes, os.PathLike)) else list(p)


_DIFF_OPTIONS = {"by", "per", "batch", "graphs", "steps", "min_share", "alpha", "fail_on_regression",
                 "merge_backends", "include_warmup"}


def diff(base, new, **options):
    """Compares BASE with NEW (each a path, or a list of runs of that side) as `opscope diff`
    does, in-process. OPTIONS are the command's, by their names: by ("op", "kernel,phase",
    "test", "request"...), per ("auto", "none", "graph", "token", "iteration"), batch, graphs
    and steps (N, "A-B" or "A-"; batch also "decode" or "prefill"), min_share (percent, 0.5),
    alpha (0.05), fail_on_regression (percent; None: not asked), merge_backends and
    include_warmup (bools). Raises Error for bad input (its file, line, byte) and for options
    or inputs the command refuses; TypeError for an unknown option."""
    unknown = set(options) - _DIFF_OPTIONS
    if unknown:
        raise TypeError("opscope.diff: unknown option(s) %s (known: %s)" % (
            ", ".join(sorted(unknown)), ", ".join(sorted(_DIFF_OPTIONS))))
    text = lambda k: None if options.get(k) is None else str(options[k]).encode()
    fail = options.get("fail_on_regression")
    o = _lib.DiffOpts(by=text("by"), per=text("per"), batch=text("batch"), graphs=text("graphs"),
                      steps=text("steps"), min_share=float(options.get("min_share", 0.5)),
                      alpha=float(options.get("alpha", 0.05)), fail_pct=-1.0 if fail is None else float(fail),
                      merge_backends=int(bool(options.get("merge_backends"))),
                      include_warmup=int(bool(options.get("include_warmup"))))
    sides = [_paths(base), _paths(new)]
    runs = sides[0] + sides[1]
    arr = (ctypes.c_char_p * max(len(runs), 1))(*[os.fsencode(p) for p in runs])
    err = _lib.CError()
    h = _L.opscope_py_diff(arr, len(sides[0]), len(sides[1]), ctypes.byref(o), ctypes.byref(err))
    if not h:
        raise _error(err)
    summary, tables = _take(h, DIFF_TABLES, whole=True)
    g = tables["groups"]
    g["p_value"] = g["p_value"].where(g["p_value"] >= 0)  # not tested (-1 in C): NaN, null in the JSON
    name = " vs ".join(", ".join(str(p) for p in s) for s in sides)
    return Diff(name, summary, tables)
