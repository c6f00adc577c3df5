#!/usr/bin/env python3
"""hta_check.py REPO WORK: opscope.hta.TraceAnalysis on two of HTA's own test traces (copies in
tests/kineto/traces) against HTA's figures, written in hta_figures.json with where they came
from, and against this script's own reading of the trace's JSON (the activities' unions, the
per-name statistics, the steps and annotations), so that neither side is the code under test.

Where opscope computes a figure another way than HTA the check says which and asserts opscope's
own definition against this script's computation instead (docs/python.md, "HTA's face").
"""
import collections
import contextlib
import gzip
import hashlib
import io
import json
import math
import os
import re
import statistics
import sys
import warnings

import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))
from checklist import check, failures  # noqa: E402
from intervals import union_len  # noqa: E402

import opscope  # noqa: E402  (the venv's installed package)
from opscope.hta import DeviceType, MemoryAnalysis, TraceAnalysis, TraceDiff  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))
GPU_CATS = ("kernel", "gpu_memcpy", "gpu_memset")
COMM = re.compile(r"(^nccl.*)|(^hip)|(^hccl)|(.*ncclKernel.*)")
MEM = re.compile(r"(^(hip)?Memcpy)|(^(hip)?Memset)|(^dma)")
NOT_COMPUTE = re.compile(r"(^nccl)|(.*Memcpy)|(.*Memset)|(.*dma)|(^.*Sync)|(^Stream Wait Event)|(cuda.*LaunchKernel)"
                         r"|(^runFunction)|(^hip)|(^job_exe)|(^packet)|(^pe_exe)|(^cpum_exe_subgraph)|(^hccl)"
                         r"|(^collective_subgraph_execution)")
TYPES = ("COMPUTATION", "COMMUNICATION", "MEMORY")


def kernel_type(name):
    """HTA's kernel type of an event by its name (this script's reading of its patterns)."""
    if COMM.match(name):
        return "COMMUNICATION"
    if MEM.match(name):
        return "MEMORY"
    return "OTHER" if NOT_COMPUTE.match(name) else "COMPUTATION"


def merged(iv):
    """IV's intervals merged where they touch or overlap."""
    out = []
    for a, b in sorted(iv):
        if out and a <= out[-1][1]:
            out[-1][1] = max(out[-1][1], b)
        else:
            out.append([a, b])
    return out


def type_split(events, types):
    """HTA's split of the kernel types' overlaps from EVENTS (ts, end, type): per set of TYPES
    running at once, its time (whole microseconds per piece), named as HTA names the rows. The
    edges in HTA's row order: per type, the rows so far, then the type's merged starts, then
    its ends, sorted by time with numpy's default argsort (as its sort_values), so that a set
    that runs for 0 us at an instant where one type ends and another starts is a row of 0."""
    edges = []
    for i, k in enumerate(types):
        m = merged([(e[0], e[1]) for e in events if e[2] == k])
        edges += [(a, 1 << i) for a, _ in m] + [(b, -(1 << i)) for _, b in m]
        edges = [edges[j] for j in np.argsort(np.array([t for t, _ in edges], dtype=float), kind="quicksort")]
    out, run = collections.Counter(), 0
    for (t, d), (t1, _) in zip(edges, edges[1:]):
        run += d
        if run:
            out[" overlapping ".join(k for i, k in enumerate(types) if run & (1 << i))] += int(t1 - t)
    return dict(out)


def close(a, b):
    """Equal to the microsecond for times; floats (means, std, GB/s) to 1e-9 relative."""
    if a is None or b is None:
        return a is b
    if isinstance(a, float) and math.isnan(a):
        return isinstance(b, float) and math.isnan(b)
    return math.isclose(float(a), float(b), rel_tol=1e-9, abs_tol=1e-9)


def rows_equal(what, got, want):
    check(len(got) == len(want), "%s: %d rows, HTA %d" % (what, len(got), len(want)))
    for g, w in zip(got, want):
        same = len(g) == len(w) and all(close(x, y) if not isinstance(y, str) else x == y
                                        for x, y in zip(g, w))
        if not check(same, "%s: %s, HTA %s" % (what, g, w)):
            return


def trace_folder(work, sub, src):
    """WORK/SUB, made, holding SRC as trace.json.gz (a link): a trace folder for TraceAnalysis."""
    folder = os.path.join(work, sub)
    os.makedirs(folder, exist_ok=True)
    if not os.path.exists(os.path.join(folder, "trace.json.gz")):
        os.symlink(src, os.path.join(folder, "trace.json.gz"))
    return folder


def own(path):
    """This script's figures from the trace's JSON: microseconds, as the trace writes them."""
    ev = json.load(gzip.open(path))["traceEvents"]
    gpu = [e for e in ev if e.get("ph") == "X" and e.get("cat") in GPU_CATS]
    iv = [(e["ts"], e["ts"] + e["dur"]) for e in gpu]
    comp = [(e["ts"], e["ts"] + e["dur"]) for e in gpu
            if e["cat"] == "kernel" and not COMM.match(e["name"])]
    span = max(b for _, b in iv) - min(a for a, _ in iv)
    # HTA's GPU side: every event with a stream, the runtime's cuda_sync events too
    streamed = [(e["ts"], e["ts"] + e["dur"], kernel_type(e["name"])) for e in ev
                if e.get("ph") == "X" and "stream" in e.get("args", {}) and e.get("cat") != "Trace"]
    hta_span = max(b for _, b, _ in streamed) - min(a for a, _, _ in streamed)
    hta_busy = union_len([(a, b) for a, b, _ in streamed])
    hta_compute = union_len([(a, b) for a, b, k in streamed if k == "COMPUTATION"])
    by_name = collections.defaultdict(list)
    for e in gpu:
        by_name[e["name"]].append(e["dur"])
    stats = {n: (sum(d), max(d), min(d), statistics.stdev(d) if len(d) > 1 else 0.0)
             for n, d in by_name.items()}
    steps = sorted(int(e["name"].split("#")[1]) for e in ev
                   if e.get("ph") == "X" and e.get("name", "").startswith("ProfilerStep#"))
    annot = collections.defaultdict(list)
    for e in ev:
        if e.get("ph") == "X" and e.get("cat") == "user_annotation":
            annot[e["name"]].append(e["dur"])
    # HTA's queue counts the launches of cudaLaunchKernel(ExC), cudaMemcpyAsync,
    # cudaMemsetAsync and cuLaunchKernel(Ex) whose activity is in the trace
    launch = {e["args"]["correlation"] for e in ev if e.get("cat") == "cuda_runtime" and
              re.match(r"(cudaLaunchKernel(ExC)?|cudaMemcpyAsync|cudaMemsetAsync|cuLaunchKernel(Ex)?)$",
                       e.get("name", "")) and "correlation" in e.get("args", {})}
    launches = sum(1 for e in gpu if e.get("args", {}).get("correlation") in launch)
    memory = sum(1 for e in gpu if e["cat"] != "kernel")
    # kernel launch calls whose activity is in the trace, held whole by some aten:: op
    aten = sorted((e["ts"], e["ts"] + e["dur"]) for e in ev if e.get("ph") == "X" and e.get("cat") == "cpu_op"
                  and e.get("name", "").startswith("aten::"))
    has_act = {e.get("args", {}).get("correlation") for e in gpu}
    calls = [(e["ts"], e["ts"] + e["dur"]) for e in ev if e.get("cat") == "cuda_runtime" and
             re.match(r"(cuda.*LaunchKernel|cuLaunchKernel)", e.get("name", "")) and
             e.get("args", {}).get("correlation") in has_act]
    aten_launches = sum(1 for c0, c1 in calls if any(a0 <= c0 and c1 <= a1 for a0, a1 in aten if a0 <= c0))
    return {"hta_span": hta_span, "hta_busy": hta_busy, "hta_compute": hta_compute,
            "split": type_split(streamed, TYPES), "split_no_memory": type_split(streamed, TYPES[:2]),
            "aten_launches": aten_launches, "launches": launches, "memory": memory, "span": span, "busy": union_len(iv), "compute": union_len(comp), "stats": stats,
            "steps": steps, "annot": {n: sum(d) for n, d in annot.items()}}


def check_series(name, t, want, mine):
    """The queue and bandwidth series against HTA's digest of them, and the queue's against
    this script's count of the launches (two changes each)."""
    qd = t.get_queue_length_time_series()[0]
    got = []
    for stream, g in qd.groupby("stream", sort=True):
        ts, ql = g["ts"].astype("int64"), g["queue_length"].astype("int64")
        got.append([int(stream), len(g), int(ts.sum()), int(ql.sum()), int((ts * ql).sum()),
                    [ts.iloc[0], ql.iloc[0]], [ts.iloc[-1], ql.iloc[-1]]])
    check(got == want["qts"], "%s queue series %s, HTA %s" % (name, got, want["qts"]))
    check(len(qd) == 2 * mine["launches"], "%s queue series %d rows, own launches %d" % (name, len(qd), mine["launches"]))
    bd = t.get_memory_bw_time_series()[0]
    got = [[n, len(g), g["ts"].sum(), g["memory_bw_gbps"].sum(), [g["ts"].iloc[0], g["memory_bw_gbps"].iloc[0]],
            [g["ts"].iloc[-1], g["memory_bw_gbps"].iloc[-1]]] for n, g in bd.groupby("name", sort=True)]
    same = len(got) == len(want["bwts"]) and all(
        g[0] == w[0] and g[1] == w[1] and close(g[2], w[2]) and close(g[3], w[3])
        and close(g[4][0], w[4][0]) and close(g[4][1], w[4][1]) and close(g[5][0], w[5][0]) and close(g[5][1], w[5][1])
        for g, w in zip(got, want["bwts"]))
    check(same, "%s memory bw series %s, HTA %s" % (name, got, want["bwts"]))
    check(len(bd) == 2 * mine["memory"], "%s bw series %d rows, own copies %d" % (name, len(bd), mine["memory"]))
    blocked = t.get_time_spent_blocked_on_full_queue({0: qd})
    check(len(blocked) == want["blocked_rows"] and list(blocked.columns) == [
        "rank", "stream", "duration_at_max_queue_length", "relative_duration_at_max_queue_length"],
        "%s blocked on a full queue: %s" % (name, blocked))


def check_sequences(name, t, want, mine):
    """Frequent kernel sequences (the sync events, "Stream Wait Event", in them) and aten ops'
    kernels and delays against HTA's. Of aten ops that start together (aten::matmul
    and its aten::mm) both take the first in the trace; the long table is compared by its
    rows, sums and (op, count) pairs."""
    for op, w in want["fseq"].items():
        got = t.get_frequent_cuda_kernel_sequences(op, "unused")
        got = [[r[1], int(r[2]), r[3], r[4]] for r in got.itertuples()] if len(got) else []
        rows_equal("%s sequences of %s" % (name, op), got, w)
    a = t.get_aten_op_kernels_and_delay()[0]
    rows = sorted([r[1], r[2], int(r[3]), r[4], r[5]] for r in a.itertuples())
    w = want["aten"]
    if isinstance(w, list):
        rows_equal(name + " aten op kernels", rows, w)
    else:
        got = [len(a), int(a["occurrence_count"].sum()), a["avg_aten_op_launch_delay"].sum(), a["avg_runtime_delay"].sum(),
               sorted([r[0], r[2]] for r in rows)]
        want_ = [w["rows"], w["occurrences"], w["sum_launch_delay"], w["sum_runtime_delay"], w["ops"]]
        check(got[:2] == want_[:2] and close(got[2], want_[2]) and close(got[3], want_[3]) and got[4] == want_[4],
              "%s aten op kernels %s, HTA %s" % (name, got[:4], want_[:4]))
    launched = sum(r[2] * (r[1].count(" -> ") + 1) for r in rows)
    check(launched == mine["aten_launches"], "%s aten op launches %d, own %d" % (name, launched, mine["aten_launches"]))


def check_critical_path(name, t, w, work):
    """The critical path of HTA's window: its summary() (HTA's parts without its empty
    bound_by, which weighs 0) and the overlaid trace: HTA's critical events and flows are all
    there; opscope adds the path's end at the window's closing cudaDeviceSynchronize (and its
    sync flow), docs/critical_path.md."""
    with contextlib.redirect_stdout(io.StringIO()):
        g, ok = t.critical_path_analysis(0, w["annotation"], w["instance_id"])
        got = g.summary().to_dict() if ok else {}
    want = {k: v for k, v in w["summary"].items() if k}
    check(ok and sorted(got) == sorted(want) and all(close(got[k], want[k]) for k in want),
          "%s critical path summary %s, HTA %s" % (name, got, want))
    f = g.figures
    check(sum(f[k] for k in ("cpu_ns", "launch_ns", "kernel_ns", "comm_ns", "queue_ns", "wait_ns", "idle_ns"))
          == f["length_ns"], "%s critical path parts %s" % (name, f))
    out = t.overlay_critical_path_analysis(0, g, os.path.join(work, "cpath"), only_show_critical_events=False)
    ev = json.load(gzip.open(out))["traceEvents"]
    crit = {(e["name"], e["ts"]) for e in ev if e.get("args", {}).get("critical") and e.get("cat") != "critical_path"}
    flows = {(e["ph"], e["ts"]) for e in ev if e.get("cat") == "critical_path"}
    missing = {tuple(x) for x in w["critical_events"]} - crit
    extra = {x[0] for x in crit - {tuple(x) for x in w["critical_events"]}}
    check(not missing and extra <= {"cudaDeviceSynchronize"}, "%s critical events: HTA's missing %s, ours more %s"
          % (name, sorted(missing)[:3], sorted(extra)))
    check({tuple(x) for x in w["flows"]} <= flows and len(flows) <= len(w["flows"]) + 2,
          "%s critical flows %s, HTA %s" % (name, sorted(flows), w["flows"]))
    lo, hi = f["start_ns"] / 1000, (f["start_ns"] + f["length_ns"]) / 1000
    check(all(lo <= ts <= hi for _, ts in crit), "%s critical events inside the window" % name)
    check_critical_only(name, t, g, w["only_critical"], work, len(crit), len(flows))


def check_critical_only(name, t, g, w, work, n_crit, n_flows):
    """only_show_critical_events=True (HTA's default): HTA's kept events, and opscope's one
    critical event and flow more (the closing cudaDeviceSynchronize, above); against the
    source: every non-X event kept, every X event kept critical or an annotation or python
    frame."""
    out = t.overlay_critical_path_analysis(0, g, os.path.join(work, "cpath_only"))
    ev = json.load(gzip.open(out))["traceEvents"]
    x = [e for e in ev if e.get("ph") == "X"]
    got = {"events": len(ev), "x_events": len(x), "x_critical": sum(1 for e in x if e.get("args", {}).get("critical") == 1),
           "x_kept_by_cat": dict(collections.Counter(e.get("cat") for e in x if e.get("args", {}).get("critical") != 1)),
           "other_events": dict(collections.Counter(e.get("ph") for e in ev if e.get("ph") != "X"))}
    more = {"events": 3, "x_events": 1, "x_critical": 1}  # the sync event and its flow's two ends
    want = dict(w, **{k: w[k] + v for k, v in more.items()})
    want["other_events"] = dict(w["other_events"], s=w["other_events"]["s"] + 1, f=w["other_events"]["f"] + 1)
    check(got == want, "%s only critical events %s, HTA (+ the sync) %s" % (name, got, want))
    src = json.load(gzip.open(os.path.join(REPO, "tests", "kineto", "traces", name)))["traceEvents"]
    non_x = sum(1 for e in src if e.get("ph") != "X")
    check(len(ev) - len(x) == non_x + n_flows and got["x_critical"] == n_crit and
          all(e.get("args", {}).get("critical") == 1 or e.get("cat") in ("user_annotation", "python_function") for e in x),
          "%s only critical events against the source: %d non-X (source %d, flows %d)" % (name, len(ev) - len(x), non_x, n_flows))


def check_counters_trace(name, t, w, folder):
    """The trace written back with counter tracks: HTA's tracks, event for event in count and
    sums, the out-at-end queue beside them, and every event of the trace kept."""
    t.generate_trace_with_counters()
    out = os.path.join(folder, name.replace(".json", "_with_counters.json"))
    ev = json.load(gzip.open(out))["traceEvents"]
    tracks = {}
    for e in ev:
        if e.get("ph") == "C":
            x = tracks.setdefault(e["name"], [0, 0, 0.0])
            x[0], x[1], x[2] = x[0] + 1, x[1] + int(e["ts"]), x[2] + float(list(e["args"].values())[0])
    end = tracks.pop("Queue Length (out at end)", None)
    same = sorted(tracks) == sorted(w["tracks"]) and all(
        tracks[k][:2] == w["tracks"][k][:2] and close(tracks[k][2], w["tracks"][k][2]) for k in tracks)
    check(same, "%s counter tracks %s, HTA %s" % (name, tracks, w["tracks"]))
    check(end is not None and end[0] == tracks.get("Queue Length", [0])[0],
          "%s out-at-end queue track %s" % (name, end))
    others = sum(1 for e in ev if e.get("ph") != "C")
    check(others == w["other_events"], "%s written trace keeps %d events, HTA %d" % (name, others, w["other_events"]))
    os.unlink(out)


def check_launches(name, t, w, src):
    """Launch statistics against HTA's digest and this script's join of the launch calls with
    their activities by correlation id."""
    d = t.get_cuda_kernel_launch_stats(visualize=False)[0]
    got = {"rows": len(d), "correlation_sum": int(d["correlation"].sum()), "cpu_duration_sum": d["cpu_duration"].sum(),
           "gpu_duration_sum": d["gpu_duration"].sum(), "launch_delay_sum": d["launch_delay"].sum(),
           "gpu_shorter": int((d["gpu_duration"] < d["cpu_duration"]).sum()), "first": d.head(5).astype(float).values.tolist()}
    check(all(close(got[k], w[k]) for k in w if k != "first") and got["first"] == w["first"],
          "%s launch stats %s, HTA %s" % (name, got, w))
    ev = json.load(gzip.open(src))["traceEvents"]
    calls = {e["args"]["correlation"]: e for e in ev if e.get("cat") == "cuda_runtime" and e.get("name") in
             ("cudaLaunchKernel", "cudaLaunchKernelExC", "cudaMemcpyAsync", "cudaMemsetAsync")}
    delay = [max(0, e["ts"] - calls[c]["ts"] - calls[c]["dur"]) for e in ev
             if e.get("cat") in GPU_CATS and (c := e.get("args", {}).get("correlation")) in calls]
    check(len(d) == len(delay) and close(d["launch_delay"].sum(), sum(delay)),
          "%s launches %d, delay %s; own %d, %s" % (name, len(d), d["launch_delay"].sum(), len(delay), sum(delay)))


def check_trace(name, want, work):
    src = os.path.join(REPO, "tests", "kineto", "traces", name)
    folder = os.path.join(work, name.split(".")[0])
    os.makedirs(folder, exist_ok=True)
    link = os.path.join(folder, name)
    if not os.path.exists(link):
        os.symlink(src, link)
    mine = own(src)
    t = TraceAnalysis(trace_dir=folder, include_last_profiler_step=True)

    tb = t.get_temporal_breakdown(visualize=False).iloc[0].tolist()
    rows_equal(name + " temporal", [tb], [want["temporal"]])
    # HTA's span covers the sync events: on alexnet it is longer than the activities' own
    check(close(tb[4], mine["hta_span"]) and close(tb[1], mine["hta_span"] - mine["hta_busy"])
          and close(tb[2], mine["hta_compute"]) and mine["hta_span"] >= mine["span"],
          "%s temporal %s, own span %s busy %s compute %s (activities' span %s)"
          % (name, tb, mine["hta_span"], mine["hta_busy"], mine["hta_compute"], mine["span"]))

    ov = t.get_comm_comp_overlap(visualize=False)["comp_comm_overlap_pctg"].iloc[0]
    check(close(None if math.isnan(ov) else float(ov), want["overlap"]),
          "%s overlap %s, HTA %s" % (name, ov, want["overlap"]))

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        kt, km = t.get_gpu_kernel_breakdown(visualize=False)
    rows_equal(name + " kernel metrics", km.drop(columns="rank").values.tolist(), want["kmetrics"])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        every = t.get_gpu_kernel_breakdown(visualize=False, duration_ratio=1.0, num_kernels=10 ** 6)[1]
    for n, (s, mx, mn, sd) in mine["stats"].items():
        r = every[every["name"] == n]
        got = r.iloc[0] if len(r) else None
        if check(got is not None, "%s kernel %s listed" % (name, n[:40])):
            check(len(r) == 1 and close(got["sum (us)"], s) and close(got["max (us)"], mx) and close(got["min (us)"], mn)
                  and close(got["stddev"], sd), "%s kernel %s: %s, own %s" % (name, n[:40], got.tolist(), (s, mx, mn, sd)))
    rows_equal(name + " kernel types", kt.values.tolist(), want["ktype"])
    types = dict(zip(kt["kernel_type"], kt["sum"]))
    check(types == mine["split"], "%s kernel types %s, own split %s" % (name, types, mine["split"]))
    kt2 = t.get_gpu_kernel_breakdown(visualize=False, include_memory_kernels=False)[0]
    rows_equal(name + " kernel types without memory", kt2.values.tolist(), want["ktype_no_memory"])
    types = dict(zip(kt2["kernel_type"], kt2["sum"]))
    check(types == mine["split_no_memory"], "%s kernel types without memory %s, own %s"
          % (name, types, mine["split_no_memory"]))

    idle = t.get_idle_time_breakdown(visualize=False)[0]
    rows_equal(name + " idle", sorted(idle.drop(columns="rank").values.tolist()), sorted(want["idle"]))

    q = t.get_queue_length_summary()
    check(q.equals(t.get_queue_length_summary_from_time_series(t.get_queue_length_time_series())),
          "%s queue summary from the series" % name)
    rows_equal(name + " queue summary", [[i[1]] + list(v) for i, v in zip(q.index, q.values)], want["qsum"])
    bw = t.get_memory_bw_summary()
    rows_equal(name + " memory bw summary", [[i[1]] + list(v) for i, v in zip(bw.index, bw.values)], want["bwsum"])

    check_series(name, t, want, mine)

    check_sequences(name, t, want, mine)
    if "critical_path" in want:
        check_critical_path(name, t, want["critical_path"], work)
    if "counters_trace" in want:
        check_counters_trace(name, t, want["counters_trace"], folder)
    check_launches(name, t, want["launch"], src)

    steps = t.get_profiler_steps()
    check(steps == want["steps"] == mine["steps"], "%s steps %s, HTA %s, own %s" % (name, steps, want["steps"], mine["steps"]))

    an = t.get_gpu_user_annotation_breakdown(use_gpu_annotation=False, visualize=False)
    rows_equal(name + " CPU annotations", an.drop(columns="rank").values.tolist(), want["annot_cpu"])
    for n, s in mine["annot"].items():
        r = an[an["name"] == n]
        check(len(r) and close(r.iloc[0]["sum (us)"], s), "%s annotation %s: own sum %s" % (name, n, s))
    print("%s: %d checks' rows compared" % (name, len(km) + len(idle) + len(q) + len(bw) + len(an)))


def rows_near(what, got, want, tol):
    """rows_equal with numbers equal to TOL (absolute) or 1e-9 relative."""
    same = len(got) == len(want) and all(len(g) == len(w) and all(
        x == y if isinstance(y, str) else (math.isnan(float(x)) and math.isnan(float(y))) or
        math.isclose(float(x), float(y), rel_tol=1e-9, abs_tol=tol)
        for x, y in zip(g, w)) for g, w in zip(got, want))
    check(same, "%s: %s, HTA %s" % (what, got, want))


def check_default(name, want, work):
    """TraceAnalysis with HTA's default include_last_profiler_step=False (the last step's CPU
    events and the activities they launched left out: docs/kineto.md, HTA's step filter)
    against HTA's figures with that default (hta_figures.json's "default")."""
    src = os.path.join(REPO, "tests", "kineto", "traces", name)
    folder = os.path.join(work, "default_" + name.split(".")[0])
    os.makedirs(folder, exist_ok=True)
    if not os.path.exists(os.path.join(folder, name)):
        os.symlink(src, os.path.join(folder, name))
    # recsys writes whole microseconds: equal. a100_ddp writes ns at ts near 4.46e12 us, where
    # HTA's float64 microseconds are 2^-10 us apart: its figures are within 1 ns a value (its
    # idle times, rounded to 0.01 us, within 0.01); opscope's integer ns are exact.
    tol = 0.0 if name.startswith("recsys") else 0.011
    t = TraceAnalysis(trace_dir=folder)
    rows_near(name + " default temporal", [t.get_temporal_breakdown(visualize=False).iloc[0].tolist()],
              [want["temporal"]], tol)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        kt, km = t.get_gpu_kernel_breakdown(visualize=False)
    rows_near(name + " default kernel metrics", km.drop(columns="rank").values.tolist(), want["kmetrics"], tol)
    rows_near(name + " default kernel types", kt.values.tolist(), want["ktype"], tol)
    idle = t.get_idle_time_breakdown(visualize=False)[0]
    rows_near(name + " default idle", sorted(idle.drop(columns="rank").values.tolist()), want["idle"], tol)
    q = t.get_queue_length_summary()
    rows_near(name + " default queue summary", [[i[1]] + list(v) for i, v in zip(q.index, q.values)],
              want["qsum"], 0.0)
    d = t.get_cuda_kernel_launch_stats(visualize=False)[0]
    w = want["launch"]
    got = [len(d), int(d["correlation"].sum()), d["cpu_duration"].sum(), d["gpu_duration"].sum(),
           int((d["gpu_duration"] < d["cpu_duration"]).sum())]
    rows_near(name + " default launch stats", [got], [[w["rows"], w["correlation_sum"], w["cpu_duration_sum"],
                                                       w["gpu_duration_sum"], w["gpu_shorter"]]], 0.0)
    rows_near(name + " default launch delay", [[d["launch_delay"].sum()]], [[w["launch_delay_sum"]]],
              tol * len(d))
    rows_near(name + " default first launches", d.head(5).astype(float).values.tolist(), w["first"], tol)
    check_step_paths(name, t, want["critical_path"], folder)
    print("%s (include_last_profiler_step=False): %d kernels, %d launches compared" % (name, len(km), len(d)))


def check_step_paths(name, t, want, folder):
    """critical_path_analysis(0, "ProfilerStep", I) under the step filter: each step HTA finds
    has HTA's summary and its overlay HTA's critical X events (by the digest of their sorted
    "name|ts" lines) and flow count; an instance HTA does not find is not found."""
    for i in range(len(want) + 1):
        with contextlib.redirect_stdout(io.StringIO()):
            g, ok = t.critical_path_analysis(0, "ProfilerStep", i)
        w = want.get(str(i))
        if w is None:
            check(not ok and g is None, "%s step path %d: none, as HTA's (%s)" % (name, i, ok))
            continue
        got = g.summary().to_dict() if ok else {}
        ws = {k: v for k, v in w["summary"].items() if k}
        check(ok and sorted(got) == sorted(ws) and all(close(got[k], ws[k]) for k in ws),
              "%s step path %d summary %s, HTA %s" % (name, i, got, ws))
        out = t.overlay_critical_path_analysis(0, g, os.path.join(folder, "ov%d" % i), only_show_critical_events=False)
        ev = json.load(gzip.open(out))["traceEvents"]
        raw = [json.dumps(e["ts"]) for e in ev]  # ts as the JSON has it: opscope copies the bytes
        crit = sorted("%s|%s" % (e["name"], r) for e, r in zip(ev, raw)
                      if (e.get("args") or {}).get("critical") and e.get("cat") != "critical_path")
        digest = hashlib.sha256("\n".join(crit).encode()).hexdigest()
        flows = sum(1 for e in ev if e.get("cat") == "critical_path")
        check(len(crit) == w["critical_events"] and digest == w["critical_sha256"] and flows == w["flows"],
              "%s step path %d overlay: %d critical events (HTA %d, same: %s), %d flow events (HTA %d)"
              % (name, i, len(crit), w["critical_events"], digest == w["critical_sha256"], flows, w["flows"]))


def check_load_steps(name, work):
    """opscope.load(hta_steps=...): the kernels table holds the GPU activities that
    tests/kineto/check_hta_steps.py's own reading of HTA's rule keeps, on NAME (keep-last drops
    nothing there: read once) and on that script's synthetic traces (it drops some: read
    again, filtered); a bad value raises."""
    sys.path.insert(0, os.path.join(REPO, "tests", "kineto"))
    from check_hta_steps import GPU, hta_keeps, synthetic  # noqa: E402  (the rule, read from the JSON)
    from trace_ref import load as load_events, ns  # noqa: E402
    srcs = [os.path.join(REPO, "tests", "kineto", "traces", name)]
    for at in (0, 1700000000000000):
        srcs.append(os.path.join(work, "steps3_at%d.json" % at))
        with open(srcs[-1], "w") as f:
            json.dump(synthetic(3, at), f)
    for src in srcs:
        ev = load_events(src)
        for mode in ("drop-last", "keep-last"):
            own = sorted(ns(e["ts"]) for e in hta_keeps(ev, mode == "keep-last") if e.get("cat") in GPU)
            got = sorted(opscope.load(src, hta_steps=mode).kernels["start_ns"].tolist())
            check(got == own, "%s load(hta_steps=%r): %d kernels, own rule %d" % (
                os.path.basename(src), mode, len(got), len(own)))
    try:
        opscope.load(src, hta_steps="last")
        check(False, "load(hta_steps='last') raises")
    except ValueError as e:
        check("drop-last" in str(e), "the error lists the values: %s" % e)
def made_trace(path):
    """A trace of three profiler steps with ns-resolution timestamps near 1.7e15 us."""
    T = 1712195495502094.5
    ev = [{"ph": "X", "cat": "user_annotation", "name": "ProfilerStep#%d" % (i + 1), "pid": 1, "tid": 1,
           "ts": round(T + 100 * i, 3), "dur": 100.0} for i in range(3)]
    ev.append({"ph": "X", "cat": "cpu_op", "name": "aten::mm", "pid": 1, "tid": 1, "ts": T + 0.5, "dur": 299.0})
    ks = [  # corr, call ts, kernel name, kernel ts (from T), dur, cat
        (1, 1.125, "void gemm_kernel<float>", 10.137, 40.251, "kernel"),
        (2, 2.25, "ncclKernel_AllReduce_RING_LL_Sum_float(ncclDevComm*)", 30.713, 60.389, "kernel"),
        (3, 3.375, "Memcpy HtoD (Pageable -> Device)", 45.001, 20.777, "gpu_memcpy"),
        (4, 4.5, "void gemm_kernel<float>", 120.433, 15.5, "kernel"),
        (5, 250.0, "void add_kernel<float>", 260.2, 30.123, "kernel"),
        (6, 330.0, "void late_kernel<float>", 400.0, 50.0, "kernel"),  # launched after the last step
    ]
    for corr, cts, name, kts, dur, cat in ks:
        ev.append({"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel" if cat == "kernel" else "cudaMemcpyAsync",
                   "pid": 1, "tid": 1, "ts": round(T + cts, 3), "dur": 3.0, "args": {"correlation": corr}})
        ev.append({"ph": "X", "cat": cat, "name": name, "pid": 0, "tid": 7, "ts": round(T + kts, 3), "dur": dur,
                   "args": {"stream": 7, "correlation": corr, "device": 0}})
    ev.append({"ph": "X", "cat": "kernel", "name": "void orphan_kernel<float>", "pid": 0, "tid": 7, "ts": round(T + 200.0, 3),
               "dur": 5.0, "args": {"stream": 7, "correlation": 99, "device": 0}})  # no launch call
    ev.append({"ph": "X", "cat": "cuda_runtime", "name": "cudaStreamWaitEvent", "pid": 1, "tid": 1, "ts": round(T + 5.0, 3),
               "dur": 2.0, "args": {"correlation": 7}})
    ev.append({"ph": "X", "cat": "cuda_sync", "name": "Stream Wait Event", "pid": 0, "tid": 7, "ts": round(T + 95.5, 3),
               "dur": 0.25, "args": {"stream": 7, "correlation": 7, "device": 0}})
    ev.append({"ph": "X", "cat": "cuda_runtime", "name": "cudaDeviceSynchronize", "pid": 1, "tid": 1, "ts": round(T + 290.0, 3),
               "dur": 9.0, "args": {"correlation": 8}})
    ev.append({"ph": "X", "cat": "cuda_sync", "name": "Context Sync", "pid": 0, "tid": 7, "ts": round(T + 291.0, 3),
               "dur": 8.5, "args": {"stream": 4294967295, "correlation": 8, "device": 0}})
    doc = {"schemaVersion": 1, "distributedInfo": {"rank": 0, "world_size": 1}, "traceEvents": ev}
    with gzip.open(path, "wt") as f:
        json.dump(doc, f)

def made_ties_trace(path):
    """A trace whose kernel types meet at one instant, 10 times over: a copy ends where a gemm
    starts, the gemm ends where an all-reduce starts, which ends where a copy starts (whole
    microseconds, one profiler step: HTA keeps every event)."""
    ev = [{"ph": "X", "cat": "user_annotation", "name": "ProfilerStep#1", "pid": 1, "tid": 1,
           "ts": 1000, "dur": 2000}]
    corr = 0
    for i in range(10):
        base = 1100 + 100 * i
        for name, cat, a, b in (("Memcpy HtoD (Pageable -> Device)", "gpu_memcpy", 0, 20),
                                ("void gemm_kernel<float>", "kernel", 20, 50),
                                ("ncclKernel_AllReduce_RING_LL_Sum_float(ncclDevComm*)", "kernel", 50, 70),
                                ("Memcpy DtoH (Device -> Pageable)", "gpu_memcpy", 70, 80)):
            corr += 1
            ev.append({"ph": "X", "cat": "cuda_runtime", "name": "cudaMemcpyAsync" if cat == "gpu_memcpy" else "cudaLaunchKernel",
                       "pid": 1, "tid": 1, "ts": base - 90 + corr % 4, "dur": 1, "args": {"correlation": corr}})
            ev.append({"ph": "X", "cat": cat, "name": name, "pid": 0, "tid": 7, "ts": base + a, "dur": b - a,
                       "args": {"stream": 7, "correlation": corr, "device": 0}})
    doc = {"schemaVersion": 1, "distributedInfo": {"rank": 0, "world_size": 1}, "traceEvents": ev}
    with gzip.open(path, "wt") as f:
        json.dump(doc, f)


def check_made_ties(want, work):
    """The kernel types of made_ties_trace against HTA's (its rows of 0 us where types meet)
    and this script's own split in HTA's row order (type_split)."""
    folder = os.path.join(work, "made_ties")
    os.makedirs(folder, exist_ok=True)
    path = os.path.join(folder, "made_ties.json.gz")
    made_ties_trace(path)
    ev = json.load(gzip.open(path))["traceEvents"]
    t0 = min(e["ts"] for e in ev)
    gpu = [(e["ts"] - t0, e["ts"] - t0 + e["dur"], kernel_type(e["name"])) for e in ev if "stream" in e.get("args", {})]
    t = TraceAnalysis(trace_dir=folder, include_last_profiler_step=True)
    for key, types in (("ktype", TYPES), ("ktype_no_memory", TYPES[:2])):
        kt = t.get_gpu_kernel_breakdown(visualize=False, include_memory_kernels=key == "ktype")[0]
        rows_equal("made_ties " + key, kt.values.tolist(), want[key])
        got = dict(zip(kt["kernel_type"], kt["sum"]))
        check(got == type_split(gpu, types), "made_ties %s %s, own %s" % (key, got, type_split(gpu, types)))
    print("made_ties: %d kernel types, %d without memory" % (len(want["ktype"]), len(want["ktype_no_memory"])))


def check_made(want, work):
    """The made trace (made_trace): HTA's temporal breakdown and kernel types, with its filter
    of the GPU side (an activity without a launch call left out, over two steps or more) and
    its timestamps as doubles from the earliest event; and this script's own computation of
    the same from the JSON."""
    folder = os.path.join(work, "made")
    os.makedirs(folder, exist_ok=True)
    path = os.path.join(folder, "made.json.gz")
    made_trace(path)
    ev = json.load(gzip.open(path))["traceEvents"]
    t0 = min(e["ts"] for e in ev if "dur" in e)
    launch = {e["args"]["correlation"] for e in ev if e["cat"] == "cuda_runtime"}
    gpu = [(e["ts"] - t0, e["ts"] - t0 + e["dur"], kernel_type(e["name"])) for e in ev
           if "stream" in e.get("args", {}) and e["args"]["correlation"] in launch]
    span = max(b for _, b, _ in gpu) - min(a for a, _, _ in gpu)
    busy = sum(b - a for a, b in merged([(a, b) for a, b, _ in gpu]))
    comp = sum(b - a for a, b in merged([(a, b) for a, b, k in gpu if k == "COMPUTATION"]))
    t = TraceAnalysis(trace_dir=folder, include_last_profiler_step=True)
    tb = t.get_temporal_breakdown(visualize=False).iloc[0].tolist()
    check(all(math.isclose(a, b, rel_tol=1e-12, abs_tol=1e-9) for a, b in zip(tb, want["temporal"])),
          "made temporal %s, HTA %s" % (tb, want["temporal"]))
    check(math.isclose(tb[4], span) and math.isclose(tb[1], span - busy, abs_tol=1e-9) and math.isclose(tb[2], comp),
          "made temporal %s, own span %s busy %s compute %s" % (tb, span, busy, comp))
    for key, types in (("ktype", TYPES), ("ktype_no_memory", TYPES[:2])):
        kt = t.get_gpu_kernel_breakdown(visualize=False, include_memory_kernels=key == "ktype")[0]
        rows_equal("made " + key, kt.values.tolist(), want[key])
        got = dict(zip(kt["kernel_type"], kt["sum"]))
        check(got == type_split(gpu, types), "made %s %s, own %s" % (key, got, type_split(gpu, types)))
    # aten::mm's kernel launches: the delays are differences of the JSON's doubles (a quarter of
    # a microsecond apart there), as HTA measures them
    a = t.get_aten_op_kernels_and_delay()[0]
    rows = sorted([r[1], r[2], int(r[3]), r[4], r[5]] for r in a.itertuples())
    rows_equal("made aten op kernels", rows, want["aten"])
    op = [e for e in ev if e["name"] == "aten::mm"][0]
    calls = sorted((e for e in ev if e["name"] == "cudaLaunchKernel" and op["ts"] <= e["ts"]
                    and e["ts"] + e["dur"] <= op["ts"] + op["dur"]), key=lambda e: e["ts"])
    kern = {e["args"]["correlation"]: e for e in ev if e.get("cat") == "kernel"}
    first = calls[0]
    own_delays = [first["ts"] - op["ts"], kern[first["args"]["correlation"]]["ts"] - first["ts"]]
    check(len(rows) == 1 and rows[0][3:] == [round(x, 3) for x in own_delays] and rows[0][2] == 1
          and rows[0][1].count(" -> ") + 1 == len(calls), "made aten delays %s, own %s" % (rows, own_delays))


def check_cupti(want, work):
    """CUPTI counters per operator on HTA's cupti_profiler trace against HTA's digest and this
    script's sums of the cuda_profiler_range events' counters."""
    src = os.path.join(HERE, "traces", "cupti_profiler_alexnet.json.gz")
    folder = trace_folder(work, "cupti", src)
    d = TraceAnalysis(trace_dir=folder, include_last_profiler_step=True).get_cupti_counter_data_with_operators()[0]
    w = want["get_cupti_counter_data_with_operators"]
    counters = sorted(w["counter_sums"])
    check(len(d) == w["rows"] and int(d["ts"].sum()) == w["ts_sum"] and close(d["dur"].sum(), w["dur_sum"]),
          "cupti rows %d, ts %s, dur %s; HTA %s" % (len(d), d["ts"].sum(), d["dur"].sum(), [w["rows"], w["ts_sum"], w["dur_sum"]]))
    got = {c: int(d[c].sum()) for c in counters if c in d}
    check(got == w["counter_sums"], "cupti counters %s, HTA %s" % (got, w["counter_sums"]))
    ops = [[r.top_level_op, r.bottom_level_op, len(r.op_stack) if isinstance(r.op_stack, list) else 0]
           for r in d.itertuples()]
    check(ops == w["ops"], "cupti operators differ from HTA's: %s" % [(a, b) for a, b in zip(ops, w["ops"]) if a != b][:3])
    first = [[d["name"].iloc[i], int(d["ts"].iloc[i]), float(d["dur"].iloc[i])] + [int(d[c].iloc[i]) for c in counters]
             for i in range(3)]
    check(first == w["first"], "cupti first rows differ from HTA's")
    ev = [e for e in json.load(gzip.open(src))["traceEvents"] if e.get("cat") == "cuda_profiler_range"]
    own = {c: int(sum(e.get("args", {}).get(c, 0) for e in ev)) for c in counters}
    check(len(ev) == len(d) and own == got, "cupti own: %d ranges, %s" % (len(ev), own))


def check_trace_diff(want, work):
    """TraceDiff on HTA's trace-diff pair cut to its first step against HTA's digest of its
    tables (row for row: the names' order, sums, categories, four rows) and this script's
    count of each side's CPU events in that step."""
    md5 = lambda xs: hashlib.md5("\n".join(xs).encode()).hexdigest()
    sides = []
    for key in ("control", "test"):
        folder = os.path.join(work, "diff_" + key)
        os.makedirs(folder, exist_ok=True)
        link = os.path.join(folder, os.path.basename(want[key]))
        if not os.path.exists(link):
            os.symlink(os.path.join(REPO, want[key]), link)
        sides.append(folder)
    for dev, w in want["compare_traces"].items():
        if dev == "ops_diff":
            continue
        df = TraceDiff.compare_traces(sides[0], sides[1], device_type=DeviceType[dev]).reset_index()
        rows = df.values.tolist()
        cats = dict(collections.Counter(r[7] for r in rows))
        got = [list(df.columns), len(rows), md5([r[0] for r in rows]), [sum(r[i] for r in rows) for i in range(1, 7)], cats,
               [r for r in rows if r[0] in ("cudaMemcpyAsync", "cudaLaunchKernel", "aten::mm", "ProfilerStep#1009")]]
        exp = [w["columns"], w["rows"], w["names_md5"], w["sums"], w["categories"], w["sample"]]
        check(got[:3] == exp[:3] and all(close(a, b) for a, b in zip(got[3], exp[3])) and got[4:] == exp[4:],
              "trace diff %s: %s, HTA %s" % (dev, got[1:5], exp[1:5]))
    od = TraceDiff.ops_diff(sides[0], sides[1])
    got = {k: [len(v), md5(sorted(v))] for k, v in od.items()}
    check(got == want["compare_traces"]["ops_diff"], "ops_diff %s, HTA %s" % (got, want["compare_traces"]["ops_diff"]))
    cpu = TraceDiff.compare_traces(sides[0], sides[1], device_type=DeviceType.CPU)
    for col, key in (("Control_counts", "control"), ("Test_counts", "test")):
        ev = json.load(gzip.open(os.path.join(REPO, want[key])))["traceEvents"]
        step = [e for e in ev if e.get("ph") == "X" and str(e.get("name", "")).startswith("ProfilerStep#1009")][0]
        own = sum(1 for e in ev if e.get("ph") == "X" and e.get("cat") in
                  ("cpu_op", "user_annotation", "python_function", "cuda_runtime", "cuda_driver")
                  and step["ts"] <= e["ts"] < step["ts"] + step["dur"])
        check(int(cpu[col].sum()) == own, "trace diff %s: %d CPU events, own %d" % (key, cpu[col].sum(), own))


def own_gpu_annotations(src):
    """This script's reading of a trace's GPU-side annotations: per name its durations, and per
    GPU activity (by correlation) the shortest gpu_user_annotation it overlaps on its own pid
    and tid (half-open spans), with the activity's start (exact decimal microseconds)."""
    import decimal
    ev = json.load(gzip.open(src), parse_float=decimal.Decimal)["traceEvents"]
    ann = [e for e in ev if e.get("ph") == "X" and e.get("cat") == "gpu_user_annotation"]
    by_name = collections.defaultdict(list)
    for e in ann:
        by_name[e["name"]].append(float(e["dur"]))
    acts = {}
    for e in ev:
        if e.get("ph") != "X" or e.get("cat") not in GPU_CATS:
            continue
        hold = [a for a in ann if (a["pid"], a["tid"]) == (e["pid"], e["tid"])
                and a["ts"] < e["ts"] + e["dur"] and e["ts"] < a["ts"] + a["dur"]]
        inner = min(hold, key=lambda a: a["dur"])["name"] if hold else ""
        acts[e["args"]["correlation"]] = (inner, e["ts"])
    return by_name, acts


def check_gpu_annotations(want, work):
    """GPU-side user annotations on HTA's ns_resolution trace: the breakdown by the
    annotations' own spans and each GPU activity's innermost annotation, against HTA's
    figures and this script's own match of the activities with the annotations."""
    src = os.path.join(REPO, want["trace"])
    folder = trace_folder(work, "gpu_annot", src)
    t = TraceAnalysis(trace_dir=folder, include_last_profiler_step=True)
    b = t.get_gpu_user_annotation_breakdown(visualize=False)
    rows_equal("GPU annotations", b.drop(columns="rank").values.tolist(), want["get_gpu_user_annotation_breakdown"])
    by_name, acts = own_gpu_annotations(src)
    own = sorted([n, sum(d), max(d), min(d), statistics.stdev(d), statistics.mean(d)] for n, d in by_name.items())
    rows_equal("GPU annotations, own", sorted(b.drop(columns="rank").values.tolist()), own)
    w = want["get_gpu_kernels_with_user_annotations"]
    df = t.get_gpu_kernels_with_user_annotations(0).sort_values("correlation", kind="stable")
    md5 = lambda col: hashlib.md5("\n".join("%d %s" % (c, a) for c, a in zip(df["correlation"], df[col])).encode()).hexdigest()
    got = [len(df), list(df.columns), dict(df["s_user_annotation"].value_counts()), md5("s_user_annotation"), md5("s_name")]
    check(got == [w["rows"], w["columns"], w["by_annotation"], w["annotation_md5"], w["name_md5"]] and close(df["dur"].sum(), w["dur_sum"]),
          "GPU kernels with annotations %s, HTA %s" % (got, [w["rows"], w["by_annotation"]]))
    sample = [[int(r.correlation), r.s_name, r.s_cat, r.s_user_annotation, float(r.dur)]
              for r in df.itertuples() if r.Index < 2 or r.correlation in (135139, 164926)]
    check(sample == w["sample"], "GPU kernels with annotations: rows %s, HTA %s" % (sample, w["sample"]))
    # HTA's ts are float64 microseconds of the trace's absolute times: 0.25 us apart at 2024's clock
    check(all(abs(a - b) <= 0.25 for a, b in zip(df["ts"].head(3), w["ts_first"])), "GPU kernels' ts %s, HTA %s"
          % (df["ts"].head(3).tolist(), w["ts_first"]))
    long = t.get_gpu_kernels_with_user_annotations(0, shorten_names=False)
    mine = {c: a for c, a in zip(long["correlation"], long["s_user_annotation"])}
    check(mine == {c: a for c, (a, _) in acts.items()}, "GPU kernels' annotations differ from own: %s" %
          [(c, mine.get(c), a) for c, (a, _) in acts.items() if mine.get(c) != a][:3])
    t0 = min(ts for _, ts in acts.values())
    rel = dict(zip(df["correlation"], df["ts"] - df["ts"].min()))
    check(all(close(rel[c], float(ts - t0)) for c, (_, ts) in acts.items()), "GPU kernels' ts against own")
    check(t.get_gpu_kernels_with_user_annotations(0, expand_names=False).columns.tolist() == w["columns"][:10],
          "expand_names=False: HTA's columns without the s_ names")
    plain = TraceAnalysis(trace_dir=os.path.join(work, "a100_alexnet_fwd"), include_last_profiler_step=True)
    check(plain.get_gpu_kernels_with_user_annotations(0) is None and
          plain.get_gpu_user_annotation_breakdown(visualize=False) is None, "no GPU annotations: None, as HTA")
    print("GPU annotations: %d activities compared" % len(df))


def check_memory_timeline(want):
    """PyTorch's memory timeline through opscope.load and opscope.hta.MemoryAnalysis against
    HTA's points and this script's own reduction of the raw entries."""
    path = os.path.join(REPO, want["trace"])
    m = MemoryAnalysis(path)
    times, sizes = m._process_raw_events()
    tot = [sum(s) for s in sizes]
    pk = max(range(len(tot)), key=lambda i: (tot[i], -i))
    got = {"trace": want["trace"], "points": len(times), "times_sum": sum(times), "first_time": times[0], "last_time": times[-1],
           "sizes_744": sizes[744], "peak": {"index": pk, "time": times[pk], "total": tot[pk], "sizes": sizes[pk]},
           "category_max": [max(s[c] for s in sizes) for c in range(8)], "final": sizes[-1]}
    check(got == want, "memory timeline %s, HTA %s" % (got, want))
    s = m.summary
    check(s["peak_total_bytes"] == want["peak"]["total"] and s["peak_ns"] == want["peak"]["time"]
          and list(s["at_peak_bytes"].values()) == want["peak"]["sizes"]
          and list(s["category_peak_bytes"].values()) == want["category_max"]
          and list(s["final_bytes"].values()) == want["final"], "memory timeline summary %s, HTA %s" % (s, want["peak"]))
    # own: a point per change of time, the pre-existing one (time -1) at the first positive time
    own_t, own_s, cur = [], [], [0] * 8
    for t, _, b, c in json.load(gzip.open(path)):
        if not own_t or t != own_t[-1]:
            own_t.append(t)
            own_s.append(list(cur))
        cur[c] += b
        own_s[-1] = list(cur)
    first = min(t for t in own_t if t > 0)
    own_t = [first if t < 0 else t for t in own_t]
    check(own_t == times and own_s == sizes, "memory timeline points against own reduction")
    t = m.memory_timeline
    check(list(t.columns) == ["ts_ns", "Parameter", "Optimizer state", "Input", "Temporary", "Activation", "Gradient",
                              "Autograd detail", "Unknown", "total_bytes"] and (t["total_bytes"] == tot).all(),
          "mem_timeline table columns %s" % list(t.columns))
    import opscope
    bad = os.path.join(os.path.dirname(WORK), "bad_timeline.raw.json")
    with open(bad, "w") as f:
        f.write("[[-1, 1, 64, 0], [5, 2, 8]]")
    try:
        opscope.load(bad)
        check(False, "a bad memory timeline raises opscope.Error")
    except opscope.Error as e:
        check(e.byte == 17 and "4 integers" in e.message, "bad memory timeline: %s (byte %d)" % (e, e.byte))
    print("memory timeline: %d points compared" % len(times))


def own_stragglers(paths, steps, num):
    """This script's reading of HTA's straggler rule from the traces' JSON: the steps' spans
    (their X events' latest end: CPU events starting in them, python frames left out, and GPU
    activities whose runtime call starts in them), the NCCL kernels' last per rank, stream,
    step and name, the kernel of the largest mean std over the ranks, the ranks by how often
    its start is among the NUM latest of its step. Also the metric's kernel and rows."""
    spans, comms = [], []
    for rank, path in enumerate(paths):
        ev = [e for e in json.load(gzip.open(path))["traceEvents"] if e.get("ph") == "X"]
        st = sorted((e["ts"], e["ts"] + e["dur"], int(e["name"].split("#")[1])) for e in ev
                    if e.get("cat") == "user_annotation" and e["name"].startswith("ProfilerStep#"))
        step_of = lambda t: ([s for s in st if s[0] <= t < s[1]] or [None])[-1]
        end = {s[2]: s[1] for s in st}
        calls = {e["args"]["correlation"]: e["ts"] for e in ev if e.get("cat") == "cuda_runtime" and "correlation" in e.get("args", {})}
        for e in ev:
            s = None
            if e.get("cat") in GPU_CATS:
                s = step_of(calls.get(e.get("args", {}).get("correlation"), -1))
                stream = e.get("args", {}).get("stream", e["tid"])
                if s and e["name"].startswith("ncclKernel") and stream > 0:
                    comms.append((rank, s[2], stream, e["name"], e["ts"], e["dur"]))
            elif e.get("cat") != "python_function":
                s = step_of(e["ts"])
            if s:
                end[s[2]] = max(end[s[2]], e["ts"] + e["dur"])
        spans += [(rank, s[2], s[0], end[s[2]]) for s in st if s[2] in steps]
    t_min, t_max = min(s[2] for s in spans), max(s[3] for s in spans)
    mean = (t_max - t_min) / len({s[1] for s in spans})
    last = {}
    for r, s, stream, n, ts, dur in sorted(comms, key=lambda c: c[4]):
        if s in steps and s > 0 and dur >= mean * 0.01:
            last[(r, stream, s, n)] = (ts, dur)
    by = collections.defaultdict(list)
    for (r, stream, s, n), (ts, dur) in last.items():
        by[(stream, s, n)].append(dur / mean)
    means = collections.defaultdict(list)
    for (stream, s, n), d in by.items():
        if len(d) > 1:
            means[(stream, n)].append(statistics.stdev(d))
    stream, n = max(means, key=lambda k: statistics.mean(means[k]))
    rows = sorted((r, s, last[(r, st_, s, nm)][1], (last[(r, st_, s, nm)][0] - t_min) / mean)
                  for (r, st_, s, nm) in last if (st_, nm) == (stream, n))
    count = collections.Counter()
    for s in {x[1] for x in rows}:
        m = sorted((x[3] for x in rows if x[1] == s), reverse=True)
        thr = m[min(num, len(m)) - 1]
        for x in rows:
            count[x[0]] += x[1] == s and x[3] >= thr
    return sorted(count, key=lambda r: (-count[r], r))[:num], (stream, n), rows


def check_stragglers(want, work):
    """HTA's potential stragglers on its trace_filter pair against HTA's lists and this
    script's own reading of the rule (the metric's kernel and rows against HTA's too)."""
    folder = os.path.join(REPO, "tests", "job", "traces")
    paths = [os.path.join(folder, "sampled_rank-%d.json.gz" % r) for r in (0, 1)]
    t = TraceAnalysis(trace_dir=folder, include_last_profiler_step=True)
    check(t.get_profiler_steps() == want["steps"], "straggler steps %s, HTA %s" % (t.get_profiler_steps(), want["steps"]))
    for steps, num, w in want["get_potential_stragglers"]:
        got = t.get_potential_stragglers(profiler_steps=steps, num_candidates=num)
        own, _, _ = own_stragglers(paths, steps or want["steps"], num)
        check(sorted(got) == sorted(w) and got == own, "stragglers(%s, %d) %s, HTA %s, own %s" % (steps, num, got, w, own))
    _, kernel, rows = own_stragglers(paths, want["steps"], 2)
    m = want["metric"]
    check(kernel == (m["stream"], m["name"]) and [[r, s, d, round(v, 6)] for r, s, d, v in rows] == m["rows"],
          "own straggler metric %s %s, HTA %s" % (kernel, rows, m))
    try:
        t.get_potential_stragglers(profiler_steps=[1])
        check(False, "no such step: ValueError, as HTA's")
    except ValueError as e:
        check("available profiler steps" in str(e), "the error names the steps: %s" % e)
    print("stragglers: %d calls compared" % len(want["get_potential_stragglers"]))


def own_doubles(path):
    """This script's reading of PATH as HTA reads it: the JSON's microseconds as doubles less
    the earliest event's start. Per stream, the idle split (gaps between activities in start
    order: host wait when the launch call starts after the previous end, else kernel wait under
    30 us, else other; each category's gaps summed with Kahan's compensation, as pandas sums),
    the queue (+1 at a launch call, -1 at its activity's start; at one instant in HTA's row
    order, below) and the launch delays (activity start less the call's end, 0 when negative)."""
    ev = json.load(gzip.open(path))["traceEvents"]
    t0 = min(e["ts"] for e in ev if "dur" in e)
    calls = {e["args"]["correlation"]: e for e in ev if e.get("ph") == "X" and e.get("cat") in ("cuda_runtime", "cuda_driver")
             and "correlation" in e.get("args", {})}
    # over two profiler steps or more HTA keeps only the activities of a launch call
    steps = {e["name"] for e in ev if e.get("ph") == "X" and e.get("name", "").startswith("ProfilerStep#")}
    acts = collections.defaultdict(list)
    for e in ev:
        if e.get("ph") == "X" and e.get("cat") in GPU_CATS and "stream" in e.get("args", {}) \
                and (len(steps) < 2 or e["args"].get("correlation") in calls):
            acts[e["args"]["stream"]].append(e)
    stats = ("cudaLaunchKernel", "cudaLaunchKernelExC", "cudaMemcpyAsync", "cudaMemsetAsync")
    queue_calls = stats + ("cuLaunchKernel", "cuLaunchKernelEx")
    idle, queue, delays = {}, {}, []
    for stream, a in acts.items():
        a.sort(key=lambda e: (e["ts"], e["dur"]))
        sums, comp = [0.0] * 3, [0.0] * 3
        for p, e in zip(a, a[1:]):
            prev_end = (p["ts"] - t0) + p["dur"]
            gap = (e["ts"] - t0) - prev_end
            c = calls.get(e["args"].get("correlation"))
            k = 0 if c is not None and c["ts"] - t0 > prev_end else 1 if gap < 30 else 2
            y = gap - comp[k]
            t = sums[k] + y
            comp[k], sums[k] = (t - sums[k]) - y, t
        idle[stream] = sums
        for e in a:
            c = calls.get(e["args"].get("correlation"))
            if c is not None and c["name"] in stats:
                delays.append((c["ts"], max((e["ts"] - t0) - ((c["ts"] - t0) + c["dur"]), 0.0)))
    # The queue as HTA orders its rows: the launch calls in the file's order, then their
    # activities in the file's order, sorted by time with numpy's default argsort (pandas'
    # sort_values), each stream's changes then in that order.
    queued = [e for e in ev if e.get("ph") == "X" and e.get("cat") in GPU_CATS and "stream" in e.get("args", {})
              and calls.get(e["args"].get("correlation"), {}).get("name") in queue_calls
              and (len(steps) < 2 or e["args"].get("correlation") in calls)]
    stream_of = {e["args"]["correlation"]: e["args"]["stream"] for e in queued}
    launches = [c for c in ev if c is calls.get((c.get("args") or {}).get("correlation")) and
                c["args"]["correlation"] in stream_of]
    rows = [(c["ts"] - t0, 1, stream_of[c["args"]["correlation"]]) for c in launches]
    rows += [(e["ts"] - t0, 0, e["args"]["stream"]) for e in queued]
    runs, series = collections.Counter(), collections.defaultdict(list)
    for i in np.argsort(np.array([r[0] for r in rows]), kind="quicksort"):
        _, up, stream = rows[i]
        runs[stream] += 1 if up else -1
        series[stream].append(runs[stream])
    queue = {st: (len(v), statistics.fmean(v), statistics.stdev(v)) for st, v in series.items()}
    return idle, queue, [d for _, d in sorted(delays, key=lambda x: x[0])]


def check_doubles(want, work):
    """Two of HTA's ns traces: the idle split, queue and memory bandwidth summaries, the kernel
    table and the launch delays as HTA computes them from its doubles (hta_figures.json
    "doubles"), against HTA's figures and this script's own reading (own_doubles; the queue's
    changes of one instant in the order numpy's sort gives HTA's rows there)."""
    for name, w in want.items():
        if name == "source":
            continue
        src = os.path.join(HERE, "traces", name)
        folder = os.path.join(work, "doubles_" + name.split(".")[0])
        os.makedirs(folder, exist_ok=True)
        if not os.path.exists(os.path.join(folder, name)):
            os.symlink(src, os.path.join(folder, name))
        t = TraceAnalysis(trace_dir=folder, include_last_profiler_step=True)
        idle_own, queue_own, delays_own = own_doubles(src)
        idle = t.get_idle_time_breakdown(visualize=False)[0]
        rows_equal(name + " idle", sorted(idle.drop(columns="rank").values.tolist()), w["idle"])
        ss = t._profile(0).stream_stats
        for stream, cats in w["idle_us"].items():
            r = ss[ss["stream"] == int(stream)].iloc[0]
            got = [r["idle_host_hta_us"], r["idle_kernel_hta_us"], r["idle_other_hta_us"]]
            # HTA's float sums to the last bit; the script's own to 1e-9 (its sums run in another order)
            check(got == [cats.get(c, 0.0) for c in ("host_wait", "kernel_wait", "other")]
                  and all(map(close, got, idle_own[int(stream)])),
                  "%s stream %s idle %r, HTA %r, own %r" % (name, stream, got, cats, idle_own[int(stream)]))
        q = t.get_queue_length_summary()
        got = [[i[1]] + list(v) for i, v in zip(q.index, q.values)]
        rows_equal(name + " queue summary", got, w["qsum"])
        check(all(close(g[1], queue_own[g[0]][0]) and close(g[2], queue_own[g[0]][1]) and close(g[3], queue_own[g[0]][2])
                  for g in got), "%s queue summary %s, own %s" % (name, got, queue_own))
        bw = t.get_memory_bw_summary()
        rows_equal(name + " memory bw summary", [[i[1]] + list(v) for i, v in zip(bw.index, bw.values)], w["bwsum"])
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            km = t.get_gpu_kernel_breakdown(visualize=False)[1]
        rows_equal(name + " kernel metrics", km.drop(columns="rank").values.tolist(), w["kmetrics"])
        ls = t.get_cuda_kernel_launch_stats(visualize=False)[0]
        got = {"rows": len(ls), "correlation_sum": int(ls["correlation"].sum()), "cpu_duration_sum": float(ls["cpu_duration"].sum()),
               "gpu_duration_sum": float(ls["gpu_duration"].sum()), "launch_delay_sum": float(ls["launch_delay"].sum())}
        # HTA's rows come in its merge's order: launch_delay_first is where they came from, not compared
        check(all(close(got[k], w["launch"][k]) for k in got),
              "%s launch stats %s, HTA %s" % (name, got, w["launch"]))
        check(len(delays_own) == len(ls) and close(math.fsum(delays_own), got["launch_delay_sum"]),
              "%s launch delays: %d, sum %s; own %d, %s" % (name, len(ls), got["launch_delay_sum"], len(delays_own), math.fsum(delays_own)))
        print("%s: HTA's doubles compared (%d launches)" % (name, len(ls)))
def own_mtia(path):
    """This script's reading of an MTIA trace: per args.stream of the device events
    (mtia_ccp_events) their count, and per name with HTA's kernel type its durations; events
    without args.stream (HTA's stream -1) counted apart."""
    with gzip.open(path, "rt") as f:
        events = json.load(f)["traceEvents"]
    streams, durs, no_stream = collections.Counter(), collections.defaultdict(list), 0
    for e in events:
        if e.get("ph") != "X" or e.get("cat") != "mtia_ccp_events":
            continue
        stream = (e.get("args") or {}).get("stream")
        if stream is None:
            no_stream += 1
            continue
        streams[int(stream)] += 1
        if kernel_type(e["name"]) != "OTHER":
            durs[e["name"]].append(float(e["dur"]))
    return streams, durs, no_stream


def check_mtia(want, work):
    """HTA's MTIA inference trace: streams are args.stream (not the device thread ids), device
    events without one are left out, dma_request is a MEMORY kernel and pe_exe no kernel type;
    against HTA's figures and this script's own reading of the JSON."""
    src = os.path.join(REPO, want["trace"])
    folder = trace_folder(work, "mtia", src)
    t = TraceAnalysis(trace_dir=folder, include_last_profiler_step=True)
    # to the last bit: HTA's sums of float64 microseconds in numpy's order (util/fsum.h); a sum
    # in the intervals' order is 7.45e-9 us off on idle_time here
    tb = t.get_temporal_breakdown(visualize=False).iloc[0].tolist()
    check(tb == want["temporal"], "MTIA temporal %s, HTA %s" % (tb, want["temporal"]))
    kt, km = t.get_gpu_kernel_breakdown(visualize=False)
    rows_equal("MTIA kernel types", kt.values.tolist(), want["ktype"])
    metrics = sorted(km.drop(columns="rank").values.tolist())
    rows_equal("MTIA kernels", metrics, want["kmetrics"])
    streams, durs, _ = own_mtia(src)
    mine = sorted([n, sum(d), max(d), min(d), statistics.stdev(d), statistics.mean(d), kernel_type(n)]
                  for n, d in durs.items())
    rows_equal("MTIA kernels, own", metrics, mine)
    idle = t.get_idle_time_breakdown(visualize=False)
    idle = idle[0] if isinstance(idle, tuple) else idle
    got = sorted([int(r.stream), r.idle_category, float(r.idle_time), float(r.idle_time_ratio)] for r in idle.itertuples())
    # HTA rounds idle times to 0.01 us after float64 arithmetic on epoch microseconds (0.12 ns
    # apart here): a figure on the rounding's edge may land 0.01 away
    same = len(got) == len(want["idle"]) and all(
        g[:2] == w[:2] and abs(g[2] - w[2]) <= 0.0100001 and g[3] == w[3] for g, w in zip(got, want["idle"]))
    check(same, "MTIA idle %s, HTA %s" % (got, want["idle"]))
    check({r[0] for r in got} == set(streams), "MTIA idle streams %s, own args.stream %s"
          % (sorted({r[0] for r in got}), sorted(streams)))
    q = t.get_queue_length_summary(ranks=[0]).reset_index()
    qrows = sorted([int(r[1])] + [float(x) for x in r[2:]] for r in q.itertuples(index=False))
    rows_equal("MTIA queue summary", qrows, want["qsum"])
    ls = t.get_cuda_kernel_launch_stats(ranks=[0], visualize=False)[0]
    w = want["launch"]
    # the launch delay to the last bit: HTA's float64 microseconds from its origin, as HTA
    # subtracts them (the exact ns give 530,857.913)
    check(len(ls) == w["rows"] and close(ls["cpu_duration"].sum(), w["cpu_duration"]) and
          close(ls["gpu_duration"].sum(), w["gpu_duration"]) and ls["launch_delay"].sum() == w["launch_delay"],
          "MTIA launch stats %d rows, sums %s, HTA %s" % (len(ls), ls[["cpu_duration", "gpu_duration", "launch_delay"]].sum().tolist(), w))


def main():
    global REPO, WORK
    REPO, work = sys.argv[1], sys.argv[2]
    WORK = os.path.join(work, "")
    os.makedirs(work, exist_ok=True)
    figures = json.load(open(os.path.join(HERE, "hta_figures.json")))
    for name, want in figures["traces"].items():
        check_trace(name, want, work)
    for name, want in figures["default"].items():
        if name == "source":
            continue
        check_default(name, want, work)
    check_load_steps("a100_ddp_train_rank0.json.gz", work)
    check_cupti(figures["cupti"], work)
    check_made(figures["made"], work)
    check_made_ties(figures["made_ties"], work)
    check_trace_diff(figures["trace_diff"], work)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        check_gpu_annotations(figures["gpu_annotations"], work)
    check_memory_timeline(figures["memory_timeline"])
    check_stragglers(figures["stragglers"], work)
    check_doubles(figures["doubles"], work)
    check_mtia(figures["mtia"], work)
    sys.exit(1 if failures else 0)


if __name__ == "__main__":
    main()
