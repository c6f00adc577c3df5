"""HTA's face over opscope: `TraceAnalysis` with Holistic Trace Analysis' method names,
arguments and DataFrame columns, so that a notebook written for HTA runs by changing its import:

    from opscope.hta import TraceAnalysis
    t = TraceAnalysis(trace_dir="traces/", include_last_profiler_step=True)
    t.get_temporal_breakdown(visualize=False)

Every figure is the C core's (the tables and summary of opscope.load and opscope.job); this
module only renames, converts nanoseconds to HTA's microseconds and arranges rows as HTA does.
Arguments not there yet raise NotImplementedError naming them (docs/python.md, "HTA's face").
"""
import ctypes
import enum
import os
import re
import warnings

import numpy as np
import pandas as pd

from . import _L as _LIB
from . import diff as _diff
from . import job as _job
from . import load as _load

__all__ = ["TraceAnalysis", "CriticalPath", "TraceDiff", "DeviceType", "MemoryAnalysis"]

_US = 1000.0  # HTA's times are the trace's microseconds; opscope's are nanoseconds
_WARNED = set()


def _once(key, text):
    """Warns TEXT the first time KEY is seen in this process (HTA's plots, defaults kept)."""
    if key not in _WARNED:
        _WARNED.add(key)
        warnings.warn("opscope.hta: " + text, stacklevel=3)


def _col(p, table, col):
    """Column COL of P's table TABLE as numpy, its DataFrame not made for it."""
    t = p.tables
    return t.column(table, col) if hasattr(t, "column") else t[table][col].to_numpy()


def _lib_handle():
    """The C core's library, its entry points declared (opscope/_lib.py)."""
    return _LIB


def _trace_files(trace_dir):
    """The traces of TRACE_DIR in name order, as HTA finds them (.json and .json.gz files)."""
    names = sorted(n for n in os.listdir(trace_dir) if n.endswith((".json", ".json.gz")))
    if not names:
        raise ValueError("opscope.hta: no .json or .json.gz trace in %s" % trace_dir)
    return [os.path.join(trace_dir, n) for n in names]


def _plot(visualize, draw):
    """Draws with plotly when VISUALIZE and plotly is installed; says once when it is not."""
    if not visualize:
        return
    try:
        import plotly.express as px
    except ImportError:
        _once("plotly", "plotly is not installed: visualize=True draws nothing")
        return
    draw(px).show()


_BOUND = (("cpu_ns", "cpu_bound"), ("kernel_ns", "gpu_compute_bound"), ("comm_ns", "gpu_communication_bound"),
          ("queue_ns", "gpu_kernel_kernel_overhead"), ("launch_ns", "gpu_kernel_launch_overhead"))


def _hta_us(ns):
    """NS (int64 nanoseconds, an array or a number) as the JSON's microseconds parsed to a
    double, as HTA reads them: the whole microseconds plus the fraction (analyze/kineto/kbreak.c
    does the same)."""
    ns = np.asarray(ns, np.int64)
    return (ns // 1000).astype(np.float64) + (ns % 1000) / 1000.0


class CriticalPath:
    """The critical path of one window (a profiler step or an annotation's instance) as the C
    core computed it (docs/critical_path.md): `figures` is its entry of the summary's
    critical_path steps (ns: cpu, launch, kernel, comm, queue, wait, idle, work, length).
    Stands where HTA hands a CPGraph; its graph itself is not handed over."""

    def __init__(self, rank, path, annotation, instance, figures):
        self.rank, self.trace, self.annotation = rank, path, annotation
        self.instance, self.figures = instance, figures

    def summary(self):
        """HTA's CPGraph.summary(): the path's work by boundedness, in % of its work (the
        parts with time only, by name)."""
        work = float(self.figures.get("work_ns", 0))
        parts = {name: 100.0 * self.figures.get(key, 0) / work for key, name in _BOUND
                 if work and self.figures.get(key, 0)}
        print("Critical Path broken down by boundedness = (in % of duration)")
        return pd.Series(dict(sorted(parts.items())), name="duration").rename_axis("bound_by")


class TraceAnalysis:
    """The traces of one job (a folder, or TRACE_FILES: rank -> path), each read once by the C
    core: opscope.job gives the ranks' figures and, from the same read, each rank's
    opscope.Profile (its tables made when a method first needs them; the CPU ops, the largest,
    and the kernel sequences, of two methods only, read again by the methods that use them).

    include_last_profiler_step: each trace is read as HTA loads it (docs/kineto.md, HTA's step
    filter): False (HTA's default) keeps the CPU events that start before the last
    ProfilerStep and the GPU activities they launched, True those through the last step's
    end."""

    def __init__(self, trace_files=None, trace_dir="", include_last_profiler_step=False):
        paths = list(trace_files.values()) if trace_files else _trace_files(trace_dir)
        self._steps = "keep-last" if include_last_profiler_step else "drop-last"
        self._job = _job(paths, series=True, launches=True, cpu_ops=False, sequences=False, hta_steps=self._steps)
        ranks = self._job.ranks
        order = ranks.sort_values("rank", kind="stable").index
        self._ranks = ranks.loc[order].reset_index(drop=True)
        self._paths = dict(zip(self._ranks["rank"].astype(int), self._ranks["trace"]))
        self._loaded = {int(ranks["rank"][i]): self._job.profiles[i] for i in order
                        if self._job.profiles[i] is not None}

    def _profile(self, rank):
        """The opscope.Profile of RANK (read with the job; a rank from a job summary is
        loaded from its trace on first use)."""
        rank = int(rank)
        if rank not in self._paths:
            raise ValueError("opscope.hta: no rank %d (ranks: %s)" % (rank, sorted(self._paths)))
        if rank not in self._loaded:
            self._loaded[rank] = _load(self._paths[rank], series=True, launches=True, hta_steps=self._steps)
        return self._loaded[rank]

    def _min_ts_ns(self):
        """HTA's time origin: the earliest event start over every rank (its series' ts are
        microseconds from it)."""
        if not hasattr(self, "_origin"):
            starts = [np.concatenate([p.cpu_ops["start_ns"].to_numpy(), p.kernels["start_ns"].to_numpy()])
                      for p in (self._profile(r) for r in self._paths)]
            starts = np.concatenate(starts)
            self._origin = int(starts.min()) if len(starts) else 0
        return self._origin

    def _origin_us(self):
        """HTA's origin as its float64 microseconds: the ranks' earliest start of an event with
        a duration (each summary's first_start_ns; no second read)."""
        return _hta_us(min(int(self._profile(r).summary.get("first_start_ns", 0)) for r in self._paths))

    def _us_since_origin(self, ts_ns):
        """TS_NS as HTA's ts: microseconds from the origin (integers when they are whole)."""
        d = ts_ns.to_numpy(np.int64) - self._min_ts_ns()
        return d // 1000 if not (d % 1000).any() else d / _US

    @staticmethod
    def _ranks_of(ranks):
        return [0] if not ranks else [int(r) for r in ranks]

    # -- the ranks' GPU time -------------------------------------------------------------

    def _kernel_types_of(self, rank):
        """RANK's kernel types by HTA's definitions (the C core's summary, docs/kineto.md,
        "Kernel types by HTA's definitions")."""
        return self._profile(rank).summary.get("kineto", {}).get("kernel_stats", {}).get("kernel_types", {})

    def get_temporal_breakdown(self, visualize=True):
        """Per rank: idle, compute and non-compute time over HTA's span, its first GPU event's
        start to its last one's end, the runtime's cuda_sync events counted (HTA's columns,
        microseconds, percentages rounded to 2 places)."""
        ranks = self._ranks["rank"].to_numpy(np.int64)
        kt = [self._kernel_types_of(r) for r in ranks]
        # HTA's microseconds from the trace's earliest event, as it computes them (kbreak.h)
        span = np.array([t.get("span_us", 0) for t in kt], np.float64)
        idle = span - np.array([t.get("busy_us", 0) for t in kt], np.float64)
        comp = np.array([t.get("compute_us", 0) for t in kt], np.float64)
        df = pd.DataFrame({"rank": ranks, "idle_time(us)": idle, "compute_time(us)": comp,
                           "non_compute_time(us)": span - comp - idle, "kernel_time(us)": span})
        for col in ("idle_time", "compute_time", "non_compute_time"):
            df[col + "_pctg"] = np.round(100 * (df[col + "(us)"] / df["kernel_time(us)"]), 2)
        _plot(visualize, lambda px: px.bar(
            df, x="rank", y=["idle_time_pctg", "compute_time_pctg", "non_compute_time_pctg"],
            title="Temporal breakdown across ranks"))
        return df

    def get_comm_comp_overlap(self, visualize=True):
        """Per rank: the share of its communication time overlapped by computation (HTA:
        NaN for a rank without communication)."""
        r = self._ranks
        comm = r["comm_ns"].to_numpy(np.float64)
        with np.errstate(invalid="ignore", divide="ignore"):
            ratio = r["overlap_ns"].to_numpy(np.float64) / comm
        df = pd.DataFrame({"rank": r["rank"].to_numpy(np.int64),
                           "comp_comm_overlap_pctg": np.round(100 * ratio, 2)})
        _plot(visualize, lambda px: px.bar(df, x="rank", y="comp_comm_overlap_pctg",
                                           title="Computation-Communication Overlap"))
        return df

    # -- kernels -------------------------------------------------------------------------

    # HTA's kernel types by name, as the C core's kbreak.c classifies them: communication,
    # memory (MTIA's dma_request among them), names that are neither and not computation
    # (OTHER: left out of the breakdown), and computation.
    _COMM = re.compile(r"nccl|hip|hccl|.*ncclKernel")
    _MEMORY = re.compile(r"Memcpy|Memset|dma")
    _NOT_COMPUTE = re.compile(r"Stream Wait Event|runFunction|job_exe|packet|pe_exe|cpum_exe_subgraph"
                              r"|collective_subgraph_execution|.*(Memcpy|Memset|dma|Sync)|cuda.*LaunchKernel")

    @classmethod
    def _type_of(cls, name):
        """HTA's kernel type of kernel NAME."""
        if cls._COMM.match(name):
            return "COMMUNICATION"
        if cls._MEMORY.match(name):
            return "MEMORY"
        return "OTHER" if cls._NOT_COMPUTE.match(name) else "COMPUTATION"

    def _kernel_types(self, p):
        """P's kernel_stats with HTA's kernel_type per name (_type_of)."""
        ks = p.kernel_stats.copy()
        ks["kernel_type"] = [self._type_of(n) for n in ks["name"]]
        return ks

    @staticmethod
    def _aggregate(ks, duration_ratio, num_kernels):
        """HTA's summary of one kernel type: names by summed time, those past DURATION_RATIO of
        the running sum or past NUM_KERNELS merged into "others" (whose figures are those of
        the merged names' sums, as HTA computes them)."""
        df = pd.DataFrame({"name": ks["name"].to_numpy(), "sum": ks["sum_ns"] / _US,
                           "max": ks["max_ns"] / _US, "min": ks["min_ns"] / _US,
                           "mean": ks["mean_ns"] / _US, "std": ks["std_ns"] / _US})
        df = df.sort_values("sum", ascending=False, kind="stable", ignore_index=True)
        if len(df) > num_kernels:
            cum = df["sum"].cumsum()
            others = (cum > cum.quantile(duration_ratio)) | (df.index >= num_kernels)
            df.loc[others, "name"] = "others"
            df = df.groupby("name")["sum"].agg(["sum", "max", "min", "mean", "std"]).reset_index()
            df = df.fillna({"std": 0})
        return df

    def get_gpu_kernel_breakdown(self, visualize=True, duration_ratio=0.8, num_kernels=10,
                                 include_memory_kernels=True, image_renderer=""):
        """HTA's two tables: time per kernel type and per overlap of types ("COMPUTATION
        overlapping COMMUNICATION": kernel_type, sum, percentage) and per kernel name and rank
        (sum, max, min, stddev, mean in microseconds; "others" past the top)."""
        types = ["COMPUTATION", "COMMUNICATION"] + (["MEMORY"] if include_memory_kernels else [])
        rows, sums = [], {}
        for rank in self._paths:
            ks = self._kernel_types(self._profile(rank))
            for kt in types:
                df = self._aggregate(ks[ks["kernel_type"] == kt], duration_ratio, num_kernels)
                df["kernel_type"], df["rank"] = kt, rank
                rows.append(df)
            self._type_sums(rank, include_memory_kernels, sums)
        metrics = pd.concat(rows, ignore_index=True) if rows else pd.DataFrame()
        metrics = metrics.sort_values(["kernel_type", "name", "rank"], ignore_index=True)
        metrics = metrics.rename(columns={"sum": "sum (us)", "mean": "mean (us)", "max": "max (us)",
                                          "min": "min (us)", "std": "stddev"})
        metrics = metrics[["name", "sum (us)", "max (us)", "min (us)", "stddev", "mean (us)",
                           "kernel_type", "rank"]]
        names = sorted(sums)  # HTA's groupby order, then by sum (its sort keeps ties' order)
        kt = pd.DataFrame({"kernel_type": names, "sum": [sums[n] for n in names]})
        kt = kt.sort_values("sum", ascending=False, kind="stable", ignore_index=True)
        kt["percentage"] = np.round(kt["sum"] / kt["sum"].sum() * 100, 1)
        _plot(visualize, lambda px: px.pie(kt, values="percentage", names="kernel_type",
                                           title="Kernel Type Percentage Across All Ranks"))
        return kt, metrics

    _TYPES = ("COMPUTATION", "COMMUNICATION", "MEMORY")

    def _type_sums(self, rank, with_memory, sums):
        """Adds RANK's time per set of kernel types running at once to SUMS, as HTA names them
        ("COMPUTATION overlapping COMMUNICATION"): the C core's split of the types' overlaps
        (microseconds by mask of the types; with_memory: MEMORY among the types)."""
        types = self._kernel_types_of(rank)
        key = "with_memory" if with_memory else "without_memory"
        split, rows = types.get(key + "_us", []), types.get(key + "_rows", [])
        for mask, (us, n) in enumerate(zip(split, rows)):
            if n > 0:  # a set HTA saw running, for 0 us too (a row of 0 in its table)
                name = " overlapping ".join(t for b, t in enumerate(self._TYPES) if mask & (1 << b))
                sums[name] = sums.get(name, 0) + int(us)

    def get_idle_time_breakdown(self, ranks=None, streams=None, visualize=True, visualize_pctg=True,
                                show_idle_interval_stats=False, consecutive_kernel_delay=30):
        """Per rank and stream, its idle time split by HTA's rule: host_wait (the launch call
        started after the stream's previous activity ended), kernel_wait (a gap under
        consecutive_kernel_delay microseconds), other. Returns (that table, None)."""
        if consecutive_kernel_delay != 30:
            raise NotImplementedError("opscope.hta: consecutive_kernel_delay other than 30 us")
        if show_idle_interval_stats:
            _once("idle_stats", "show_idle_interval_stats: the interval statistics are not "
                  "computed yet (None)")
        rows = []
        for rank in self._ranks_of(ranks):
            ss = self._profile(rank).stream_stats.sort_values("stream", kind="stable")
            if streams:
                ss = ss[ss["stream"].isin(list(streams))]
            for s in ss.itertuples():
                # HTA's own figures: its doubles and float sums (the C core's idle_*_hta_us)
                split = [("host_wait", s.idle_host_hta_us), ("kernel_wait", s.idle_kernel_hta_us),
                         ("other", s.idle_other_hta_us)]
                total = s.idle_host_hta_us + s.idle_kernel_hta_us + s.idle_other_hta_us
                for cat, us in split:
                    if us or cat == "other":
                        rows.append((rank, int(s.stream), cat, us, us / total if total else np.nan))
        df = pd.DataFrame(rows, columns=["rank", "stream", "idle_category", "idle_time", "idle_time_ratio"])
        df = df.round(2)  # HTA rounds the table to 2 places
        y = "idle_time_ratio" if visualize_pctg else "idle_time"
        _plot(visualize, lambda px: px.bar(df.astype({"stream": str}), x="stream", y=y,
                                           color="idle_category", title="Idle time breakdown"))
        return df, None

    # -- queue and memory bandwidth --------------------------------------------------------

    @staticmethod
    def _describe(rows, index, value):
        """HTA's describe() layout: columns (VALUE, count ... max), index INDEX."""
        stats = ["count", "mean", "std", "min", "25%", "50%", "75%", "max"]
        if not rows:
            return None
        df = pd.DataFrame([r[len(index):] for r in rows], columns=stats, dtype=np.float64)
        df.index = pd.MultiIndex.from_tuples([r[:len(index)] for r in rows], names=index)
        df.columns = pd.MultiIndex.from_product([[value], stats])
        return df

    @staticmethod
    def _stat_row(key, s):
        return key + (s["count"], s["mean"], s["std"], s["min"], s["p25"], s["p50"], s["p75"], s["max"])

    def get_queue_length_summary(self, ranks=None):
        """Per rank and stream: the queue length's count, mean, std, min, quartiles and max
        (HTA's: +1 at a launch call's start, -1 when its activity starts; the times as HTA's
        doubles read them)."""
        rows = []
        for rank in self._ranks_of(ranks):
            ql = self._profile(rank).summary.get("kineto", {}).get("queue_length", {})
            for s in ql.get("streams", []):
                rows.append(self._stat_row((rank, s["stream"]), s["out_at_start_hta"]))
        return self._describe(rows, ["rank", "stream"], "queue_length")

    def get_memory_bw_summary(self, ranks=None):
        """Per rank and kind of copy (Memcpy HtoD, DtoH, DtoD, Memset): the bandwidth's
        statistics in GB/s over HTA's time series, its zero points left out."""
        rows = []
        for rank in self._ranks_of(ranks):
            bw = self._profile(rank).summary.get("kineto", {}).get("memory_bw", {})
            for k in bw.get("kinds", []):
                rows.append(self._stat_row((rank, k["name"]), k))
        return self._describe(rows, ["rank", "name"], "memory_bw_gbps")

    def get_queue_length_time_series(self, ranks=None):
        """Per rank, each change of a stream's launch queue: ts (HTA's: microseconds from the
        earliest event of the job), pid (the device), tid and stream, queue_length."""
        out = {}
        for rank in self._ranks_of(ranks):
            q = self._profile(rank).queue_series
            out[rank] = pd.DataFrame({"ts": self._us_since_origin(q["ts_ns"]), "pid": q["device"].to_numpy(),
                                      "tid": q["stream"].to_numpy(), "stream": q["stream"].to_numpy(),
                                      "queue_length": q["queue_length"].to_numpy()})
        return out

    def get_memory_bw_time_series(self, ranks=None):
        """Per rank, each change of a kind of copy's bandwidth (GB/s): ts (as above), pid (the
        device), name (Memcpy HtoD, Memset...), memory_bw_gbps."""
        out = {}
        for rank in self._ranks_of(ranks):
            m = self._profile(rank).membw_series
            out[rank] = pd.DataFrame({"ts": self._us_since_origin(m["ts_ns"]), "pid": m["device"].to_numpy(),
                                      "name": m["name"].to_numpy(), "memory_bw_gbps": m["memory_bw_gbps"].to_numpy()})
        return out

    def get_time_spent_blocked_on_full_queue(self, queue_length_dict, max_queue_length=1024):
        """Per rank of QUEUE_LENGTH_DICT: the time a stream's queue was at or over
        max_queue_length (1024: the C core's full size; the time from the C core, not from the
        dict's rows) and its share of the trace's duration (first to last event start). HTA
        keeps one stream per rank, the last with such time; so does this."""
        if max_queue_length != 1024:
            raise NotImplementedError("opscope.hta: max_queue_length other than 1024")
        rows = []
        for rank in queue_length_dict:
            p = self._profile(rank)
            ss = p.stream_stats.sort_values("stream", kind="stable")
            full = ss[ss["full_queue_ns"] > 0]
            if len(full):
                starts = np.concatenate([p.cpu_ops["start_ns"].to_numpy(), p.kernels["start_ns"].to_numpy()])
                span = float(starts.max() - starts.min())
                last = full.iloc[-1]
                rows.append((rank, int(last["stream"]), last["full_queue_ns"] / _US,
                             last["full_queue_ns"] / span))
        return pd.DataFrame(rows, columns=["rank", "stream", "duration_at_max_queue_length",
                                           "relative_duration_at_max_queue_length"])

    _LAUNCH_CALLS = ("cudaLaunchKernel", "cudaLaunchKernelExC", "runFunction - job_prep_and_submit_for_execution")
    _MEMORY_CALLS = ("cudaMemcpyAsync", "cudaMemsetAsync")

    def get_cuda_kernel_launch_stats(self, ranks=None, runtime_cutoff=50, launch_delay_cutoff=100,
                                     include_memory_events=True, visualize=True):
        """Per rank, each GPU activity launched by cudaLaunchKernel(ExC) (MTIA's runFunction;
        with include_memory_events cudaMemcpyAsync and cudaMemsetAsync too): correlation,
        cpu_duration (the call's), gpu_duration, launch_delay (from the call's end to the
        activity's start, 0 when negative, in HTA's float64 microseconds from its origin),
        microseconds, in the calls' start order."""
        calls = self._LAUNCH_CALLS + (self._MEMORY_CALLS if include_memory_events else ())
        out = {}
        for rank in self._ranks_of(ranks):
            p = self._profile(rank)
            lk = p.launches
            take = (lk["call"].isin(calls) & (lk["call_dur_ns"] >= 0)).to_numpy()
            start = lk["call_start_ns"].to_numpy()[take]
            cdur = lk["call_dur_ns"].to_numpy()[take]
            ks, kd = _col(p, "kernels", "start_ns")[take], _col(p, "kernels", "dur_ns")[take]
            order = np.argsort(start, kind="stable")
            # HTA's arithmetic: float64 microseconds from its origin, so that the sums are its own
            o = self._origin_us()
            delay = np.maximum((_hta_us(ks) - o) - (_hta_us(start) - o) - _hta_us(cdur), 0)
            df = pd.DataFrame({"correlation": lk["correlation"].to_numpy()[take][order],
                               "cpu_duration": cdur[order] / _US, "gpu_duration": kd[order] / _US,
                               "launch_delay": delay[order]})
            out[rank] = df
            _plot(visualize, lambda px: px.histogram(df, x="launch_delay",
                                                     title="Launch delay (us), rank %d" % rank))
        return out

    def get_cupti_counter_data_with_operators(self, ranks=None):
        """Per rank (a list, in RANKS' order), each kernel CUPTI's profiler measured: name, ts
        (microseconds from the job's earliest event), dur, one column per counter, op_stack
        (the CPU ops around its launch, outer first), top_level_op, bottom_level_op; HTA's
        pairing of the ranges with the launch calls (analyze/kineto/cupti.h)."""
        out = []
        for rank in self._ranks_of(ranks):
            p = self._profile(rank)
            k, v = p.cupti_kernels, p.cupti_values
            df = pd.DataFrame({"name": k["name"].to_numpy(), "ts": self._us_since_origin(k["start_ns"]),
                               "dur": k["dur_ns"].to_numpy() / _US})
            n = len(k)
            if n and len(v):
                names = v["counter"].to_numpy()[: len(v) // n]
                vals = v["value"].to_numpy().reshape(n, len(names))
                for c, name in enumerate(names):
                    df[name] = vals[:, c]
            stack = k["op_stack"]
            df["op_stack"] = stack.where(stack.isna(), stack.str.split("|"))
            df["top_level_op"], df["bottom_level_op"] = k["top_op"].to_numpy(), k["bottom_op"].to_numpy()
            out.append(df)
        return out

    # -- critical path ---------------------------------------------------------------------

    def critical_path_analysis(self, rank, annotation, instance_id, data_load_events=None):
        """The critical path of instance INSTANCE_ID (0: the first by start) of ANNOTATION:
        "ProfilerStep" for the profiler steps, else an annotation's whole name. Returns
        (CriticalPath, True), or (None, False) when there is no such instance."""
        if data_load_events:
            raise NotImplementedError("opscope.hta: data_load_events (no data-loading split yet)")
        if isinstance(instance_id, tuple):
            raise NotImplementedError("opscope.hta: a range of instances")
        steps = annotation == "ProfilerStep"
        path = self._paths[int(rank)]
        p = self._profile(rank) if steps else _load(path, cpath_annotation=annotation, hta_steps=self._steps)
        cp = p.summary.get("kineto", {}).get("critical_path", {}).get("steps", [])
        i = 0 if instance_id is None else int(instance_id)
        if not 0 <= i < len(cp):
            return None, False
        return CriticalPath(int(rank), path, None if steps else annotation, i, cp[i]), True

    def overlay_critical_path_analysis(self, rank, critical_path_graph, output_dir,
                                       only_show_critical_events=True, show_all_edges=False):
        """Writes the trace of RANK into OUTPUT_DIR as "overlaid_critical_path_<name>" with the
        critical path marked (args "critical": 1 on its events, flows for its edges between
        lanes); returns the file's path. The path is CRITICAL_PATH_GRAPH's annotation
        instance's (every profiler step's for "ProfilerStep"). ONLY_SHOW_CRITICAL_EVENTS (HTA's
        default): the X slices off the path are left out, the user annotations and python
        frames kept (the C core's filter, export/kineto/ktrace_out.h); False: every event."""
        os.makedirs(output_dir, exist_ok=True)
        src = self._paths[int(rank)]
        out = os.path.join(output_dir, "overlaid_critical_path_" + os.path.basename(src))
        annotation = getattr(critical_path_graph, "annotation", None)
        _load(src, cpath_trace=out, cpath_annotation=annotation,
              cpath_instance=getattr(critical_path_graph, "instance", None),
              cpath_only_critical=only_show_critical_events, hta_steps=self._steps)
        return out

    # -- kernel sequences ------------------------------------------------------------------

    def get_frequent_cuda_kernel_sequences(self, operator_name, output_dir, min_pattern_len=3, rank=0,
                                           top_k=5, visualize=False, compress_other_kernels=True):
        """The GPU activity sequences launched by the calls of the CPU ops whose name contains
        OPERATOR_NAME (the shallowest of them, as HTA starts there), at least MIN_PATTERN_LEN
        long, the runtime's sync events on a stream among them as in HTA's: pattern
        ("op|kernel|kernel..."), count, GPU kernel duration (us), CPU op duration (us), most
        frequent first. HTA keeps the calls at the least depth one by one, this the op names
        whose least depth is the least (every call of them). HTA also writes the trace with the top_k patterns overlaid
        into OUTPUT_DIR: not yet (a warning says so once)."""
        p = self._profile(rank)
        seqs = p.kernel_seqs
        seqs = seqs[seqs["op"].str.contains(operator_name, regex=False, na=False)]
        depth = p.cpu_ops[p.cpu_ops["name"].isin(set(seqs["op"]))].groupby("name")["depth"].min()
        if len(depth):
            seqs = seqs[seqs["op"].isin(set(depth.index[depth == depth.min()]))]
        seqs = seqs[seqs["n_kernels"] >= min_pattern_len]
        _once("fseq_trace", "get_frequent_cuda_kernel_sequences writes no overlaid trace yet")
        if not len(seqs):
            return pd.DataFrame()
        df = pd.DataFrame({"pattern": (seqs["op"] + "|" + seqs["kernels"]).to_numpy(),
                           "count": seqs["count"].to_numpy(),
                           "GPU kernel duration (us)": seqs["gpu_ns"].to_numpy() / _US,
                           "CPU op duration (us)": seqs["cpu_ns"].to_numpy() / _US})
        df = df.sort_values(["count", "pattern"], ascending=[False, True], ignore_index=True)
        _plot(visualize, lambda px: px.bar(df.head(top_k), x="pattern", y="count",
                                           title="Frequent CUDA kernel sequences"))
        return df

    def get_aten_op_kernels_and_delay(self, ranks=None, sort_by=None):
        """Per rank: each aten op's kernel sequence (names joined by " -> "), its occurrences, the
        mean delay from the op's start to its first launch call and from that call to its
        kernel's start (microseconds, rounded to 3 places), sorted by SORT_BY (descending)."""
        out = {}
        for rank in self._ranks_of(ranks):
            a = self._profile(rank).aten_kernels
            count = a["count"].to_numpy(np.float64)
            df = pd.DataFrame({"aten_op_name": a["op"].to_numpy(), "kernel_sequence": a["kernels"].to_numpy(),
                               "occurrence_count": a["count"].to_numpy(),
                               "avg_aten_op_launch_delay": np.round(a["cpu_ns"].to_numpy() / count / _US, 3),
                               "avg_runtime_delay": np.round(a["gpu_ns"].to_numpy() / count / _US, 3)})
            df = df.sort_values(["aten_op_name", "kernel_sequence"], ignore_index=True)
            out[rank] = df.sort_values(sort_by or ["occurrence_count"], ascending=False, kind="stable")
        return out

    def generate_trace_with_counters(self, time_series=None, ranks=None, output_suffix="_with_counters"):
        """Writes each rank's trace back beside it ("x.json.gz" -> "x_with_counters.json.gz")
        with counter tracks: "Queue Length" per stream and "Memcpy BW" per kind of copy, as
        HTA writes them, and "Queue Length (out at end)" beside them (ktrace_out.h); both kinds
        whatever TIME_SERIES asks (a warning says so when it asks for one)."""
        if time_series is not None and getattr(time_series, "value", 3) != 3:
            _once("counters_one", "generate_trace_with_counters writes both the queue length and "
                  "the bandwidth tracks")
        for rank in self._ranks_of(ranks):
            src = self._paths[rank]
            _load(src, counters_trace=src.replace(".json", "%s.json" % (output_suffix or "_with_counters")),
                  hta_steps=self._steps)

    # -- steps -----------------------------------------------------------------------------

    def get_profiler_steps(self):
        """The profiler step numbers (ProfilerStep#N) of the first rank's trace, in order."""
        first = min(self._paths)
        return [int(s) for s in self._profile(first).steps["step"]]

    # -- user annotations ------------------------------------------------------------------

    def get_gpu_user_annotation_breakdown(self, use_gpu_annotation=True, visualize=True,
                                          duration_ratio=0.8, num_kernels=1000,
                                          allowlist_patterns=None, image_renderer=None):
        """Per user annotation name and rank: its time's sum, max, min, stddev and mean
        (microseconds), HTA's "others" past the top. use_gpu_annotation=True: the spans of the
        GPU-side annotations (gpu_user_annotation events; the C core's per-name figures,
        analyze/kineto/kgann.h); False: the CPU-side annotations' durations. None when no rank
        has such annotations."""
        if allowlist_patterns:
            raise NotImplementedError("opscope.hta: allowlist_patterns")
        rows = []
        for rank in self._paths:
            if use_gpu_annotation:
                ks = self._profile(rank).gpu_annotation_stats
            else:
                ks = self._cpu_annotation_stats(self._profile(rank).cpu_ops)
            if not len(ks):
                continue
            df = self._aggregate(ks, duration_ratio, num_kernels)
            df["rank"] = rank
            rows.append(df)
        if not rows:
            _once("no_annot", "the traces hold no %suser_annotation events: None" % ("gpu_" if use_gpu_annotation else ""))
            return None
        df = pd.concat(rows, ignore_index=True).sort_values(["name", "rank"], ignore_index=True)
        df = df.rename(columns={"sum": "sum (us)", "mean": "mean (us)", "max": "max (us)",
                                "min": "min (us)", "std": "stddev"})
        df = df[["name", "sum (us)", "max (us)", "min (us)", "stddev", "mean (us)", "rank"]]
        _plot(visualize, lambda px: px.pie(df, values="sum (us)", names="name",
                                           title="User annotation breakdown"))
        return df

    @staticmethod
    def _cpu_annotation_stats(c):
        """The CPU-side annotations' durations by name, as kernel_stats' columns."""
        a = c[c["kind"] == "user_annotation"]
        dur = (a["end_ns"] - a["start_ns"]).to_numpy(np.float64)
        g = pd.DataFrame({"name": a["name"].to_numpy(), "dur": dur}).groupby("name")["dur"]
        return pd.DataFrame({"name": g.sum().index, "sum_ns": g.sum().to_numpy(),
                             "max_ns": g.max().to_numpy(), "min_ns": g.min().to_numpy(),
                             "mean_ns": g.mean().to_numpy(), "std_ns": g.std().fillna(0).to_numpy()})

    def get_gpu_kernels_with_user_annotations(self, rank, expand_names=True, shorten_names=True):
        """RANK's GPU activities (kernels, memcpys, memsets, in the kernels table's order), each
        with the innermost GPU-side user annotation it overlaps on its device and stream (the C
        core's match, analyze/kineto/kgann.h): columns cat, name, pid, tid, ts, dur, stream,
        correlation, end, user_annotation (name, cat and user_annotation as codes into one
        symbol list of this frame, -1: no annotation; ts from the job's earliest event, us)
        and, with EXPAND_NAMES, s_name, s_cat and s_user_annotation ("" for none), the names
        shortened by HTA's rule with SHORTEN_NAMES. None when the trace has no GPU-side
        annotations."""
        p = self._profile(rank)
        if not len(p.gpu_annotations):
            _once("no_gpu_annot", "rank %d's trace holds no gpu_user_annotation events: None" % int(rank))
            return None
        k, ka = p.kernels, p.kernel_annotations
        cat = k["kind"].map({"kernel": "kernel", "memcpy": "gpu_memcpy", "memset": "gpu_memset"})
        annot = ka["user_annotation"]
        symbols = pd.Index(pd.unique(pd.concat([k["name"], cat, annot.dropna()], ignore_index=True)))
        ts = self._us_since_origin(k["start_ns"])
        dur = k["dur_ns"].to_numpy(np.int64) / _US
        df = pd.DataFrame({"cat": symbols.get_indexer(cat), "name": symbols.get_indexer(k["name"]),
                           "pid": k["device"].to_numpy(), "tid": k["stream"].to_numpy(), "ts": ts, "dur": dur,
                           "stream": k["stream"].to_numpy(), "correlation": p.launches["correlation"].to_numpy(),
                           "end": ts + dur, "user_annotation": symbols.get_indexer(annot.fillna("")).astype(np.int64)})
        df.loc[annot.isna().to_numpy(), "user_annotation"] = -1
        if expand_names:
            df["s_name"] = (ka["short_name"] if shorten_names else k["name"]).to_numpy()
            df["s_cat"] = cat.to_numpy()
            df["s_user_annotation"] = (ka["short_annotation"] if shorten_names else annot).fillna("").to_numpy()
        return df

    # -- stragglers ----------------------------------------------------------------------

    def get_potential_stragglers(self, profiler_steps=None, num_candidates=2, visualize=False,
                                 straggler_identification_impl=None):
        """HTA's potential stragglers: the ranks whose last long NCCL kernel (of the kernel whose
        duration varies most over the ranks) starts latest in the chosen PROFILER_STEPS (None:
        every step of the first rank's), NUM_CANDIDATES of them, most often first (the C
        core's rule, analyze/job/job_hta.h; opscope.job's own stragglers are its `stragglers`
        table). STRAGGLER_IDENTIFICATION_IMPL other than HTA's default raises
        NotImplementedError; VISUALIZE draws nothing (a warning says so once)."""
        if straggler_identification_impl is not None:
            raise NotImplementedError("opscope.hta: straggler_identification_impl (HTA's default rule only)")
        if visualize:
            _once("strag_plot", "get_potential_stragglers draws no figure yet")
        available = self.get_profiler_steps()
        steps = available if profiler_steps is None else [s for s in profiler_steps if s in available]
        if not steps:
            raise ValueError("invalid value for argument: profiler_steps=%s; available profiler steps=%s"
                             % (profiler_steps, available))
        ranks = sorted(self._paths)
        spans, comms = [], []
        for i, rank in enumerate(ranks):
            p = self._profile(rank)
            sp, cm = p.step_spans, p.comm_kernels
            sp, cm = sp[sp["step"].isin(steps)], cm[cm["step"].isin(steps)]
            spans.append(np.column_stack([np.full(len(sp), i), sp[["step", "start_ns", "end_ns"]].to_numpy(np.int64)]))
            comms.append(cm.assign(rank=i))
        spans = np.ascontiguousarray(np.concatenate(spans), dtype=np.int64)
        cm = pd.concat(comms, ignore_index=True)
        codes = pd.factorize(cm["name"])[0]
        comms = np.ascontiguousarray(np.column_stack([cm["rank"], cm["step"], cm["stream"], codes, cm["start_ns"],
                                                      cm["dur_ns"]]), dtype=np.int64).reshape(-1, 6)
        num = max(int(num_candidates), 1)
        out = np.zeros(num, dtype=np.int64)
        n = ctypes.c_size_t()
        rc = _lib_handle().opscope_py_hta_stragglers(spans.ctypes.data, len(spans), comms.ctypes.data, len(comms), num,
                                                     out.ctypes.data, ctypes.byref(n))
        if rc < 0:
            raise MemoryError("opscope.hta: out of memory")
        if rc > 0:
            raise ValueError("opscope.hta: no NCCL kernel of the steps %s is long enough or on two ranks" % steps)
        return [ranks[int(r)] for r in out[: n.value]]

    def get_queue_length_summary_from_time_series(self, queue_length_dict):
        """get_queue_length_summary of the ranks of QUEUE_LENGTH_DICT (the C core's summary of
        the series get_queue_length_time_series hands out; the dict's rows are not read)."""
        return self.get_queue_length_summary(ranks=list(queue_length_dict))




class MemoryAnalysis:
    """HTA's MemoryAnalysis over PyTorch's memory timeline (the `.raw.json.gz` that
    torch.profiler's export_memory_timeline writes), read by the C core (read/mem_timeline.c)
    through opscope.load: `memory_timeline` is its table (per point ts_ns, the bytes of each of
    torch's categories, total_bytes), `summary` the peaks `opscope report` gives (the total's
    peak, its time and the categories there, each category's own peak, the end)."""

    def __init__(self, path):
        self.path = path
        p = _load(path)
        self.memory_timeline = p.mem_timeline
        self.summary = p.summary.get("memory_timeline", {})

    def _categories(self):
        return [c for c in self.memory_timeline.columns if c not in ("ts_ns", "total_bytes")]

    def _process_raw_events(self):
        """HTA's points: ([time_ns per point], [[bytes per category] per point]), the
        pre-existing point at the first positive time."""
        t = self.memory_timeline
        return t["ts_ns"].tolist(), t[self._categories()].to_numpy().tolist()

    def plot_memory_timeline(self, save_graph=False):
        """HTA's figure: the categories' bytes stacked over time (ms from the first point, GB),
        shown, or with SAVE_GRAPH written to images/memory_plot.png."""
        try:
            import plotly.graph_objects as go
        except ImportError:
            _once("plotly", "plotly is not installed: plot_memory_timeline draws nothing")
            return
        t = self.memory_timeline
        x = (t["ts_ns"] - t["ts_ns"].min()).to_numpy() / 1e6
        stacked = t[self._categories()].to_numpy().cumsum(axis=1) / 1024 ** 3
        fig = go.Figure()
        for i, name in enumerate(self._categories()):
            fig.add_trace(go.Scatter(x=x, y=stacked[:, i], mode="lines", fill="tonexty", name=name))
        fig.update_xaxes(title="Time (ms)")
        fig.update_yaxes(title="Memory (GB)")
        fig.update_layout(title_text="Memory timeline", title_x=0.5, width=1200, height=800)
        if save_graph:
            os.makedirs("images", exist_ok=True)
            fig.write_image("images/memory_plot.png")
        else:
            fig.show()


class DeviceType(enum.Enum):
    """HTA's choice of sides in a trace diff."""
    CPU = 1
    GPU = 2
    ALL = 3


def _side_trace(side, rank):
    """The trace file of SIDE (a trace, or a folder of traces as HTA's TraceDir) for RANK
    (None: the first rank; a folder of one trace: that trace)."""
    if not os.path.isdir(side):
        return side
    files = _trace_files(side)
    if len(files) == 1 and rank in (None, 0):
        return files[0]
    ranks = _job(files).ranks
    ranks = ranks.sort_values("rank", kind="stable")
    hit = ranks if rank is None else ranks[ranks["rank"] == int(rank)]
    if not len(hit):
        raise ValueError("opscope.hta: no rank %s in %s" % (rank, side))
    return hit["trace"].iloc[0]


def _steps_arg(it):
    """An iteration choice as opscope diff's steps: N, or A-B for consecutive numbers."""
    its = sorted([it] if isinstance(it, int) else list(it))
    if its != list(range(its[0], its[-1] + 1)):
        raise NotImplementedError("opscope.hta: iterations that are not consecutive")
    return str(its[0]) if len(its) == 1 else "%d-%d" % (its[0], its[-1])


class TraceDiff:
    """HTA's TraceDiff over opscope.diff's trace ops by step (docs/diff.md, "Trace ops by
    step"): per name, each side's count and summed duration over the chosen profiler steps."""

    @classmethod
    def compare_traces(cls, control, test, control_rank=None, test_rank=None, control_iteration=None,
                       test_iteration=None, device_type=DeviceType.ALL, use_short_name=False):
        """HTA's table, indexed by name: Control_counts, Control_total_duration, Test_counts,
        Test_total_duration (us), diff_counts, diff_duration, counts_change_categories ("+",
        "-", "="). The iterations default to each trace's first profiler step; opscope takes
        the same steps on both sides."""
        if use_short_name:
            raise NotImplementedError("opscope.hta: use_short_name")
        base, new = _side_trace(control, control_rank), _side_trace(test, test_rank)
        if control_iteration is None and test_iteration is None:
            ops = _diff(base, new).summary.get("trace_ops", {})
            firsts = {(ops.get("base_steps") or [None])[0], (ops.get("new_steps") or [None])[0]}
            if None in firsts or len(firsts) != 1:
                raise NotImplementedError("opscope.hta: traces whose first steps differ (%s)" % sorted(firsts, key=str))
            control_iteration = test_iteration = firsts.pop()
        steps = _steps_arg(control_iteration if control_iteration is not None else test_iteration)
        if test_iteration is not None and control_iteration is not None and _steps_arg(test_iteration) != steps:
            raise NotImplementedError("opscope.hta: different iterations a side")
        d = _diff(base, new, steps=steps)
        parts = {DeviceType.CPU: [d.trace_cpu_ops], DeviceType.GPU: [d.trace_gpu_ops],
                 DeviceType.ALL: [d.trace_cpu_ops, d.trace_gpu_ops]}[DeviceType(device_type)]
        ops = pd.concat(parts, ignore_index=True).groupby("name")[["base_count", "base_ns", "new_count", "new_ns"]].sum()
        df = pd.DataFrame({"Control_counts": ops["base_count"].astype(np.float64),
                           "Control_total_duration": ops["base_ns"] / _US,
                           "Test_counts": ops["new_count"].astype(np.float64),
                           "Test_total_duration": ops["new_ns"] / _US}, index=ops.index)
        df["diff_counts"] = df["Test_counts"] - df["Control_counts"]
        df["diff_duration"] = df["Test_total_duration"] - df["Control_total_duration"]
        df["counts_change_categories"] = np.where(df["diff_counts"] > 0, "+", np.where(df["diff_counts"] < 0, "-", "="))
        # HTA's order (an outer join of the two sides' sorted names): the control's names, then
        # the names only the test has
        only_test = (ops["base_count"] == 0).to_numpy()
        return pd.concat([df[~only_test], df[only_test]])

    @classmethod
    def ops_diff(cls, control, test, control_rank=None, test_rank=None, control_iteration=None,
                 test_iteration=None, device_type=DeviceType.ALL):
        """HTA's five lists of names: added, deleted, increased, decreased, unchanged."""
        df = cls.compare_traces(control, test, control_rank, test_rank, control_iteration, test_iteration,
                                device_type)
        c, t, d = df["Control_counts"], df["Test_counts"], df["diff_counts"]
        pick = lambda m: df.index[m].tolist()
        return {"added": pick(c.eq(0) & t.gt(0)), "deleted": pick(c.gt(0) & t.eq(0)),
                "increased": pick(c.gt(0) & d.gt(0)), "decreased": pick(t.gt(0) & d.lt(0)),
                "unchanged": pick(t.gt(0) & d.eq(0))}
