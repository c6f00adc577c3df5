"""One measured run of bench/python (started by bench.py, one fresh process per run): the
imports a notebook kernel has, then the notebook cell of the speed bar, the same code for
HTA's TraceAnalysis and opscope.hta's; only the import differs.

usage: cell.py hta|opscope TRACE_DIR OUT_JSON [--no-cpath]

OUT_JSON gets the cell's wall and CPU time (after the imports to the last call's return), the peak RSS
before and after resetting the high-water mark, the RSS after the imports, the largest peak
of the processes it started and waited for, the critical
path's outcome and the figures bench.py compares between the sides.
"""
import json
import math
import resource
import sys
import time


def _status_kib(field):
    """FIELD of /proc/self/status (VmHWM, VmRSS) in KiB."""
    with open("/proc/self/status") as f:
        for line in f:
            if line.startswith(field + ":"):
                return int(line.split()[1])
    raise RuntimeError("no %s in /proc/self/status" % field)


def _reset_hwm(hwm_before):
    """Resets VmHWM to the current RSS (Linux: clear_refs 5); False where that is refused or
    has no effect. The kernel's RSS counters lag by a few pages per CPU, so a high-water mark
    within 4 MiB of the RSS read after it counts as reset."""
    try:
        with open("/proc/self/clear_refs", "w") as f:
            f.write("5")
    except OSError:
        return False
    hwm = _status_kib("VmHWM")
    return hwm < hwm_before or hwm <= _status_kib("VmRSS") + 4096


def _num(v):
    """A JSON-safe float (NaN and infinities as strings, so the JSON stays standard)."""
    v = float(v)
    return v if math.isfinite(v) else str(v)


def _key(v):
    """A row key's text: whole numbers without a fraction whatever their type (7, 7.0)."""
    if isinstance(v, float) and v.is_integer():
        v = int(v)
    return str(v)


def _rows(df, keys, values):
    """{"key|key": {value: number}} of DataFrame DF (its index reset into columns; two-level
    column names, as the queue summary's, joined by a dot)."""
    df = df.copy()
    df.columns = [".".join(c) if isinstance(c, tuple) else c for c in df.columns]
    df = df.reset_index()
    out = {}
    for rec in df.to_dict("records"):
        k = "|".join(_key(rec[c]) for c in keys)
        out[k] = {c: _num(rec[c]) for c in values if c in rec}
    return out


def _launch(launch):
    """Per rank: the launch stats' row count and the sums of their columns."""
    out = {}
    for r, df in sorted(launch.items()):
        row = {"rows": len(df)}
        row.update({c + ".sum": _num(df[c].sum()) for c in ("cpu_duration", "gpu_duration", "launch_delay")
                    if c in df.columns})
        out[str(r)] = row
    return out


def _figures(temporal, overlap, kernels, idle, queue, launch):
    """The calls' figures, keyed so that the sides' rows pair up whatever their order: the
    kernel breakdown as sums per kernel type and per rank and kernel name ("others" as the
    side groups it), the launch stats as row counts and sums per rank."""
    types, metrics = kernels
    idle_df = idle[0] if isinstance(idle, tuple) else idle
    fig = {
        "temporal": _rows(temporal, ["rank"], [c for c in temporal.columns if c != "rank"]),
        "overlap": _rows(overlap, ["rank"], [c for c in overlap.columns if c != "rank"]),
        "kernel_type_sum": _rows(types, ["kernel_type"], ["sum"]),
        "kernel_sum": _rows(metrics.groupby(["rank", "name"], as_index=False)["sum (us)"].sum(),
                            ["rank", "name"], ["sum (us)"]),
        "idle": _rows(idle_df, ["rank", "stream", "idle_category"], ["idle_time", "idle_time_ratio"]),
        "queue": {} if queue is None else _rows(queue, ["rank", "stream"],
                                                [".".join(c) if isinstance(c, tuple) else c for c in queue.columns]),
        "launch": _launch(launch),
    }
    return fig


def main(argv):
    side, trace_dir, out = argv[1], argv[2], argv[3]
    cpath = "--no-cpath" not in argv[4:]
    hwm_start = _status_kib("VmHWM")
    import pandas  # a notebook kernel has it imported
    if side == "hta":
        from hta.trace_analysis import TraceAnalysis
    else:
        from opscope.hta import TraceAnalysis
    hwm_imports = _status_kib("VmHWM")
    children_imports = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss  # pandas' import runs one
    reset = _reset_hwm(hwm_imports)
    rss_imports = _status_kib("VmRSS")
    t0, c0 = time.perf_counter(), time.process_time()

    marks = []  # (call, seconds since t0 at its return)

    def mark(name):
        marks.append((name, time.perf_counter() - t0))

    t = TraceAnalysis(trace_dir=trace_dir, include_last_profiler_step=True)
    mark("TraceAnalysis")
    temporal = t.get_temporal_breakdown(visualize=False)
    mark("get_temporal_breakdown")
    ranks = sorted(int(r) for r in temporal["rank"])  # the ranks the trace has
    overlap = t.get_comm_comp_overlap(visualize=False)
    mark("get_comm_comp_overlap")
    kernels = t.get_gpu_kernel_breakdown(visualize=False)
    mark("get_gpu_kernel_breakdown")
    idle = t.get_idle_time_breakdown(ranks=ranks, visualize=False)
    mark("get_idle_time_breakdown")
    queue = t.get_queue_length_summary(ranks=ranks)
    mark("get_queue_length_summary")
    launch = t.get_cuda_kernel_launch_stats(ranks=ranks, visualize=False)
    mark("get_cuda_kernel_launch_stats")
    t_calls = time.perf_counter()
    hwm_calls = _status_kib("VmHWM")
    cpath_error = None
    if cpath:
        for r in ranks:
            try:
                t.critical_path_analysis(r, "ProfilerStep", 0)
            except Exception as e:  # HTA's path stops on an assertion on some traces
                cpath_error = "rank %d: %s: %s" % (r, type(e).__name__, str(e).splitlines()[0] if str(e) else "")
                break
        mark("critical_path_analysis")
    t1, c1 = time.perf_counter(), time.process_time()
    hwm_end = _status_kib("VmHWM")
    # HTA parses several ranks' traces in forked workers: their largest peak, which counts
    # the pages they share with this process (0 when none ran during the cell)
    children_kib = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
    children_kib = children_kib if children_kib > children_imports else 0

    res = {
        "side": side, "pandas": pandas.__version__, "trace_dir": trace_dir, "ranks": ranks,
        "cpath": cpath, "cpath_error": cpath_error,
        "hwm_reset": reset, "hwm_start_kib": hwm_start, "hwm_imports_kib": hwm_imports,
        "rss_imports_kib": rss_imports, "hwm_calls_kib": hwm_calls, "hwm_end_kib": hwm_end,
        "children_kib": children_kib,
        "cell_s": t1 - t0, "cell_cpu_s": c1 - c0,
        "calls": {name: at - (marks[i - 1][1] if i else 0.0) for i, (name, at) in enumerate(marks)},
        "before_cpath_s": t_calls - t0,
        "figures": _figures(temporal, overlap, kernels, idle, queue, launch),
    }
    with open(out, "w") as f:
        json.dump(res, f)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
