#!/usr/bin/env python3
"""`opscope report --hta-steps` keeps the events HTA keeps when it loads a trace.

Usage: check_hta_steps.py OPSCOPE TRACES_DIR WORK

HTA (Holistic Trace Analysis) filters each trace it loads: it splits the slices into GPU-side
ones (args.stream >= 0 and args.correlation >= 0, or named "Event Sync" / "Context Sync") and
the rest, and keeps the rest's slices that start before the last ProfilerStep's start
(include_last_profiler_step=False: --hta-steps drop-last) or at or before the last step's end
(True: keep-last; HTA compares that end, in the trace's clock, with starts it has moved to the
trace's first one, so with epoch timestamps keep-last keeps every CPU-side slice), and the
GPU-side ones whose correlation is a kept slice's; with fewer than
two step names it keeps everything. This script applies that rule itself to synthetic traces
made so that every branch matters (a launch just before the last step, one at its start, one
at its end, kernels without a correlation, a kernel nobody launched, one step name only), and
to the repository's traces, and holds `report --json`'s GPU activity count and time and its
CPU record count against it.
"""
import gzip
import json
import os
import re
import subprocess
import sys

from trace_ref import check, failures, load, ns

GPU = {"kernel", "Kernel", "mtia_ccp_events", "gpu_memcpy", "Memcpy", "gpu_memset", "Memset"}
STEP = re.compile(r"^ProfilerStep#\d")


def number(v):
    """args.stream as pandas' to_numeric reads it (HTA): a number or a decimal string."""
    if isinstance(v, str):
        return int(v) if v.isdigit() else -1
    return int(v) if isinstance(v, (int, float)) else -1


def gpu_side(e):
    a = e.get("args", {})
    stream, corr = number(a.get("stream", -1)), a.get("correlation", -1)
    return (stream >= 0 and corr >= 0) or e.get("name") in ("Event Sync", "Context Sync")


def hta_keeps(events, keep_last):
    """The X events HTA keeps (its rule, as the docstring says), as a list."""
    xs = [e for e in events if e.get("ph") == "X" and "dur" in e and e.get("cat") not in (None, "Trace")]
    names = {e["name"] for e in xs if STEP.match(e.get("name", ""))}
    cpu = [e for e in xs if not gpu_side(e)]
    if len(names) < 2 or not cpu:
        return xs
    steps = [e for e in cpu if STEP.match(e["name"])]
    start = max(e["ts"] for e in steps) if steps else min(e["ts"] for e in cpu)
    end = max(e["ts"] + e["dur"] for e in steps) if steps else max(e["ts"] + e["dur"] for e in cpu)
    # HTA moves the starts to the trace's first one but leaves the steps' end in the trace's
    # clock: with epoch timestamps every CPU-side slice passes keep-last's bound
    origin = min(e["ts"] for e in xs)
    kept = [e for e in cpu if (e["ts"] - origin <= end if keep_last else e["ts"] < start)]
    corrs = {e.get("args", {}).get("correlation", -1) for e in kept}
    return kept + [e for e in xs if gpu_side(e) and e.get("args", {}).get("correlation", -1) in corrs]


def figures(events):
    """EVENTS' GPU activities: count and ns."""
    gpu = [e for e in events if e.get("cat") in GPU]
    return len(gpu), sum(ns(e["dur"]) for e in gpu)


def filtered(events, keep_last):
    """EVENTS as HTA keeps them, with what HTA does not read (metadata, flows of the kept
    correlations, Trace slices) left as they are: a trace for `report` without the filter."""
    kept = hta_keeps(events, keep_last)
    ids = {id(e) for e in kept}
    corrs = {e.get("args", {}).get("correlation", -1) for e in kept}
    return [e for e in events if id(e) in ids or
            (e.get("ph") == "X" and e.get("cat") in (None, "Trace")) or
            (e.get("ph") in ("s", "f") and e.get("id") in corrs) or
            (e.get("ph") != "X" and e.get("ph") not in ("s", "f"))]


def synthetic(steps, at=0):
    """A trace: STEPS ProfilerStep annotations of 100 us on thread 1, launches around the last
    one's start (200) and end (300), kernels on stream 7; every time AT us later."""
    ev = [{"ph": "X", "cat": "user_annotation", "name": "ProfilerStep#%d" % (i + 1), "pid": 1, "tid": 1,
           "ts": 100 * i, "dur": 100} for i in range(steps)]

    def launch(corr, ts, kts, kdur, cat="kernel"):
        ev.append({"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 1, "tid": 1,
                   "ts": ts, "dur": 2, "args": {"correlation": corr}})
        ev.append({"ph": "X", "cat": cat, "name": "k%d" % corr, "pid": 0, "tid": 7, "ts": kts, "dur": kdur,
                   "args": {"stream": 7, "correlation": corr, "device": 0}})
    launch(1, 10, 20, 10)
    launch(2, 95, 150, 20)
    launch(3, 199, 230, 10)   # just before the last step's start: kept by both
    launch(4, 200, 240, 10)   # at its start: drop-last drops it
    launch(5, 300, 305, 3)    # at its end: keep-last keeps it
    launch(6, 301, 310, 4)    # after it: dropped by both
    launch(7, 50, 60, 4, cat="gpu_memcpy")
    for ts in (120, 260):     # no correlation: HTA's CPU side, kept by their start
        ev.append({"ph": "X", "cat": "kernel", "name": "orphan", "pid": 0, "tid": 7, "ts": ts, "dur": 5,
                   "args": {"stream": 7, "device": 0}})
    ev.append({"ph": "X", "cat": "kernel", "name": "unlaunched", "pid": 0, "tid": 7, "ts": 70, "dur": 6,
               "args": {"stream": 7, "correlation": 999, "device": 0}})
    for ts in (150, 250, 350):
        ev.append({"ph": "X", "cat": "cpu_op", "name": "aten::mm", "pid": 1, "tid": 1, "ts": ts, "dur": 5})
    for e in ev:
        e["ts"] += at
    return {"schemaVersion": 1, "traceEvents": ev}


def report(opscope, path, mode, work):
    out = os.path.join(work, "r.json")
    p = subprocess.run([opscope, "report", path, "--hta-steps", mode, "--json", out, "-q"],
                       capture_output=True, text=True)
    if not check(p.returncode == 0, "%s --hta-steps %s: exit %d: %s" % (path, mode, p.returncode, p.stderr)):
        return None
    s = json.load(open(out))["summary"]
    return s["n_records"], s["total_ns"], s["kineto"]["cpu_records"]


def main():
    opscope, traces, work = sys.argv[1:4]
    os.makedirs(work, exist_ok=True)
    paths = []
    for steps, at in ((3, 0), (1, 0), (3, 1700000000000000)):
        p = os.path.join(work, "steps%d_at%d.json.gz" % (steps, at))
        with gzip.open(p, "wt") as f:
            json.dump(synthetic(steps, at), f)
        paths.append(p)
    # at epoch timestamps keep-last keeps k6 (after the last step's end) too, as HTA does
    epoch = figures(hta_keeps(load(paths[2]), True))
    check(epoch == (9, 71000), "keep-last at epoch timestamps keeps k6 too: %s" % (epoch,))
    # the synthetic trace is made so that each setting keeps something else
    ev = load(paths[0])
    want = {m: figures(hta_keeps(ev, m == "keep-last")) for m in ("drop-last", "keep-last")}
    check(want["drop-last"] != want["keep-last"] != figures(ev), "the filter matters: %s" % want)
    check(want["drop-last"] == (5, 49000) and want["keep-last"] == (8, 67000),
          "drop-last keeps k1 k2 k3 k7 orphan@120; keep-last k4 k5 orphan@260 too: %s" % (want,))
    paths += sorted(os.path.join(traces, n) for n in os.listdir(traces) if n.endswith(".json.gz"))
    for p in paths:
        d = json.load(gzip.open(p))
        ev = d["traceEvents"] if isinstance(d, dict) else d
        check(report(opscope, p, "all", work) == report(opscope, p, "all", work), "all is the plain read")
        for mode in ("drop-last", "keep-last"):
            got = report(opscope, p, mode, work)
            if got:
                check(got[:2] == figures(hta_keeps(load(p), mode == "keep-last")),
                      "%s --hta-steps %s: GPU activities %s, HTA's rule %s"
                      % (os.path.basename(p), mode, got[:2], figures(hta_keeps(load(p), mode == "keep-last"))))
            # every figure as report gives it for the trace this script filtered itself
            own = os.path.join(work, "own.json")
            with open(own, "w") as f:
                json.dump(dict(d, traceEvents=filtered(ev, mode == "keep-last")) if isinstance(d, dict)
                          else filtered(ev, mode == "keep-last"), f)
            exp = report(opscope, own, "all", work)
            check(got == exp, "%s --hta-steps %s: (GPU activities, ns, CPU records) %s; of the trace "
                  "filtered here %s" % (os.path.basename(p), mode, got, exp))
    p = subprocess.run([opscope, "report", "-", "--hta-steps", "drop-last"], capture_output=True, text=True,
                       stdin=subprocess.DEVNULL)
    check(p.returncode == 1 and "--hta-steps" in p.stderr, "stdin is refused: %d %s" % (p.returncode, p.stderr))
    p = subprocess.run([opscope, "report", paths[0], "--hta-steps", "first"], capture_output=True, text=True)
    check(p.returncode == 1 and "drop-last" in p.stderr, "a bad value: %d %s" % (p.returncode, p.stderr))
    sys.exit(1 if failures else 0)


if __name__ == "__main__":
    main()
