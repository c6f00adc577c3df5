#!/usr/bin/env python3
"""GPU busy time per device of every trace in the repository, against Python's own union.

Usage: check_busy.py OPSCOPE REPO_ROOT WORK_DIR

Every *.json / *.json.gz file under REPO_ROOT/tests and REPO_ROOT/bench that holds a trace
(an object with a "traceEvents" list, or a list of events) is reported with
`opscope report --json`; its summary.kineto.gpu_busy must equal, per device, the union that
this script computes with the standard library alone (json with Decimal numbers, no opscope
code): every kernel, memcpy and memset slice of an integer device pid, clipped to the window
(the ProfilerStep# annotations' span, else the GPU activities' span), intervals sorted and
merged. Agreement within 0.1% is required (the union is exact: it is equal in practice).
Two traces made here join them, with more than 4,096 activities on each of several streams
of a device interleaved in time (the shape a windowed union got wrong): one without steps,
one with steps that clip it. The table printed is the "busy figures" of docs/kineto.md.
"""
import json
import os
import random
import subprocess
import sys

from trace_ref import clip, load_trace, ns, slices, union_len, window

GPU = {"kernel", "Kernel", "mtia_ccp_events", "gpu_memset", "Memset", "gpu_memcpy", "Memcpy"}
failures = []


def python_busy(events):
    """{device: busy ns} over the window, and the most activities on one stream."""
    steps, gpu, per_stream = [], {}, {}
    for e in slices(events):
        cat, name = e.get("cat"), str(e.get("name", ""))
        a = ns(e.get("ts"))
        b = a + max(ns(e.get("dur")), 0)
        if cat == "user_annotation" and name.startswith("ProfilerStep#"):
            steps.append((a, b))
        elif cat in GPU and isinstance(e.get("pid"), int) and not isinstance(e.get("pid"), bool):
            gpu.setdefault(e["pid"], []).append((a, b))
            k = (e["pid"], e.get("tid"))
            per_stream[k] = per_stream.get(k, 0) + 1
    ws, we = window(steps, gpu)
    return {d: union_len(clip(v, ws, we)) for d, v in gpu.items()}, max(per_stream.values() or [0])


def made_trace(path, with_steps, seed):
    """Two devices; device 0 has 4 streams of 6,000 kernels (plus memcpys and memsets) that
    interleave in time and overlap one another, device 1 one stream of 5,000."""
    rnd = random.Random(seed)
    ev = []
    for dev, n_streams, n in ((0, 4, 6000), (1, 1, 5000)):
        for s in range(n_streams):
            t = 1_000_000 + rnd.randint(0, 500)
            for i in range(n):
                dur = rnd.randint(1, 40)
                cat = "kernel" if i % 10 else ("gpu_memcpy" if i % 20 else "gpu_memset")
                ev.append({"ph": "X", "cat": cat, "name": f"k{i % 7}", "pid": dev, "tid": 7 + s,
                           "ts": t + rnd.randint(0, 999) / 1000, "dur": dur,
                           "args": {"device": dev, "stream": 7 + s, "correlation": -1}})
                t += dur + rnd.choice((0, 0, 3, 17, 60))
    if with_steps:
        lo = min(e["ts"] for e in ev)
        hi = max(e["ts"] + e["dur"] for e in ev)
        third = (hi - lo) / 3
        for i in range(2):
            ev.append({"ph": "X", "cat": "user_annotation", "name": f"ProfilerStep#{i + 3}", "pid": 100,
                       "tid": 100, "ts": round(lo + third * (i + 0.5), 3), "dur": round(third * 0.9, 3)})
    rnd.shuffle(ev)
    with open(path, "w") as f:
        json.dump({"schemaVersion": 1, "traceEvents": ev}, f)


def main():
    opscope, root, work = sys.argv[1], sys.argv[2], sys.argv[3]
    os.makedirs(work, exist_ok=True)
    paths = []
    for top in ("tests", "bench"):
        for d, _, files in os.walk(os.path.join(root, top)):
            for f in files:
                if f.endswith(".json") or f.endswith(".json.gz"):
                    paths.append(os.path.join(d, f))
    for i, steps in enumerate((False, True)):
        p = os.path.join(work, f"made_streams{'_steps' if steps else ''}.json")
        made_trace(p, steps, 30 + i)
        paths.append(p)
    n_traces, most = 0, 0
    print(f"{'trace':58} {'dev':>4} {'opscope busy ns':>16} {'python union ns':>16} {'diff':>8}")
    for p in sorted(paths):
        ev = load_trace(p)
        if ev is None:
            continue
        want, per_stream = python_busy(ev)
        if not want:
            continue
        out = os.path.join(work, "busy.json")
        r = subprocess.run([opscope, "report", "-q", "--json", out, p], capture_output=True, text=True)
        label = os.path.relpath(p, root) if p.startswith(root) else os.path.basename(p)
        if r.returncode != 0:
            failures.append(f"{label}: opscope exit {r.returncode}: {r.stderr.strip()[:200]}")
            print("FAIL:", failures[-1])
            continue
        with open(out) as f:
            k = json.load(f)["summary"].get("kineto") or {}
        got = {d["device"]: d["busy_ns"] for d in k.get("gpu_busy", []) if isinstance(d["device"], int)}
        n_traces += 1
        most = max(most, per_stream)
        for dev in sorted(want):
            g, w = got.get(dev), want[dev]
            rel = abs(g - w) / w if g is not None and w else (0.0 if g == w else 1.0)
            print(f"{label[:58]:58} {dev:>4} {str(g):>16} {w:>16} {100 * rel:7.3f}%")
            if rel > 0.001:
                failures.append(f"{label} device {dev}: opscope busy {g} ns != python union {w} ns")
                print("FAIL:", failures[-1])
    print(f"{n_traces} traces; most activities on one stream: {most}")
    if n_traces < 10:
        failures.append(f"only {n_traces} traces found under {root}")
    if most <= 4096:
        failures.append(f"no trace has more than 4,096 activities on a stream ({most})")
    for f in failures:
        print("FAIL:", f)
    sys.exit(1 if failures else 0)


if __name__ == "__main__":
    main()
