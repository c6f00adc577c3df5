#!/usr/bin/env python3
"""The critical path (analyze/kineto/critical_path.c) against HTA's own figures and independent sums.

Usage: check_critical_path.py CPATH_DUMP OPSCOPE TRACES_DIR CP_DIR WORK_DIR

HTA's figures below come from running HTA's CriticalPathAnalysis (facebookresearch/
HolisticTraceAnalysis at f4d0062, Debian's pandas 1.5 / networkx 2.8, with its tests' setting
CRITICAL_PATH_ADD_ZERO_WEIGHT_LAUNCH_EDGE=1) on the same traces and windows, summing
get_critical_path_breakdown() by bound_by (microseconds). simple_add's shares are also the
ones HTA publishes in examples/critical_path_analysis.ipynb (cpu_bound 99.779087%,
gpu_compute_bound 0.210157%); alexnet's split is 89.4% CPU / 10.4% GPU compute.

Each window is found here from the JSON alone, as HTA picks it: instance I of the annotation
(by start), or for "" the span of every complete event. Checked:
  - the path's parts (cpu, launch, kernel, comm, queue, wait, idle) sum to its length, and the
    length equals the window (or, where GPU work launched in it ends later, the window up to
    the end of the last such activity, also found here);
  - CPU / GPU / launch / kernel-kernel ns equal HTA's (to the microsecond; 0.1% where the
    trace has fractional microseconds or HTA's cross-thread runtime-lock edges differ);
  - `opscope report --json`: summary.kineto.critical_path per step, parts summing to length;
  - `opscope report --chrome-trace`: critical_path flows, each "s" with its "f", forward in time;
  - the AMD (HIP) trace and a cudaGraphLaunch trace: the path exists and its kernels count;
  - `opscope report --critical-path-annotation NAME [--critical-path-instance I]`: HTA's windows
    from the command line give HTA's figures; without an instance, one path per instance; a
    missing annotation or instance is exit 2, an instance alone a usage error.
"""
import decimal
import gzip
import json
import os
import subprocess
import sys

failures = []
FIELDS = ["step", "start", "window", "length", "cpu", "launch", "kernel", "comm", "queue", "wait",
          "idle", "edges", "events"]
PARTS = ["cpu", "launch", "kernel", "comm", "queue", "wait", "idle"]
FWD = "[param|pytorch.model.alex_net|0|0|0|measure|forward]"
# trace, annotation, instance, HTA's {cpu_bound, gpu_compute_bound, launch, kernel_kernel} in us,
# tolerance (fraction of the path's work)
HTA = [
    ("T/a100_alexnet_fwd.json.gz", FWD, 1, (32042, 3712, 30, 50), 0.0),
    ("C/simple_add.json.gz", FWD, 1, (241190, 508, 17, 9), 0.0),
    ("C/cuda_event_sync.json.gz", "ProfilerStep", 0, (2365, 36, 10, 0), 0.0),
    ("T/a100_event_sync_multi_stream.json.gz", "", 0, (1025, 124, 14, 15), 0.0),
    ("T/amd_mi250_minitoy_train.json.gz", "ProfilerStep", 0, (7448, 0, 0, 0), 0.001),
    ("T/a100_ddp_train_rank0.json.gz", "ProfilerStep", 0, (190909, 0, 0, 0), 0.006),
]


def check(cond, what):
    print(("ok   " if cond else "FAIL ") + what)
    if not cond:
        failures.append(what)


def events(path):
    with gzip.open(path, "rt") as f:
        d = json.load(f)
    return d["traceEvents"] if isinstance(d, dict) else d


def ns(us):
    return int(round(float(us) * 1000))


def window(ev, ann, inst):
    x = [e for e in ev if e.get("ph") == "X" and "ts" in e]
    if not ann:
        return min(ns(e["ts"]) for e in x), max(ns(e["ts"]) + ns(e.get("dur", 0)) for e in x)
    a = sorted((e for e in x if ann in str(e.get("name", "")) and e.get("cat") == "user_annotation"),
               key=lambda e: float(e["ts"]))
    return ns(a[inst]["ts"]), ns(a[inst]["ts"]) + ns(a[inst]["dur"])


def gpu_tail(ev, start, end):
    """The end of the last GPU activity whose runtime call starts in [start, end]."""
    rt = {e["args"]["correlation"]: ns(e["ts"]) for e in ev
          if e.get("cat") in ("cuda_runtime", "cuda_driver") and "correlation" in e.get("args", {})}
    t = end
    for e in ev:
        if e.get("cat") in ("kernel", "gpu_memcpy", "gpu_memset"):
            c = e.get("args", {}).get("correlation")
            if c in rt and start <= rt[c] <= end:
                t = max(t, ns(e["ts"]) + ns(e.get("dur", 0)))
    return t


def dump(tool, path, *win):
    out = subprocess.run([tool, path] + [str(w) for w in win], capture_output=True, text=True)
    if out.returncode:
        failures.append(f"cpath_dump {path}: {out.stderr}")
        return []
    return [dict(zip(FIELDS, map(int, line.split("\t")))) for line in out.stdout.splitlines()]


def hta_part(tool, tdir, cdir):
    for rel, ann, inst, (cpu, gpu, launch, kk), tol in HTA:
        path = rel.replace("T/", tdir + "/").replace("C/", cdir + "/")
        name = os.path.basename(path)
        ev = events(path)
        s, e = window(ev, ann, inst)
        r = dump(tool, path, s, e)
        if not r:
            continue
        r = r[0]
        check(sum(r[p] for p in PARTS) == r["length"], f"{name}: parts sum to the length ({r['length']} ns)")
        check(r["length"] >= e - s and r["length"] <= gpu_tail(ev, s, e) - s,
              f"{name}: length {r['length']} = the window {e - s} (up to its GPU tail {gpu_tail(ev, s, e) - s})")
        work = cpu + gpu + launch + kk
        got = (r["cpu"], r["kernel"] + r["comm"], r["launch"], r["queue"])
        want = tuple(v * 1000 for v in (cpu, gpu, launch, kk))
        ok = all(abs(g - w) <= tol * work * 1000 for g, w in zip(got, want))
        check(ok, f"{name}: cpu/gpu/launch/kernel-kernel ns {got} vs HTA's {want}")
        mine = 100.0 * r["cpu"] / max(1, sum(got))
        check(abs(mine - 100.0 * cpu / work) < 0.1,
              f"{name}: CPU-bound {mine:.1f}% of the path's work, HTA {100.0 * cpu / work:.1f}%")


def cli_window_part(opscope, tdir, cdir):
    """`report --critical-path-annotation NAME --critical-path-instance I`: HTA's windows from the
    command line, each equal to HTA's figures; every instance without -instance; a profiler
    step with -instance alone; clear errors."""
    for rel, ann, inst, (cpu, gpu, launch, kk), tol in HTA:
        if not ann:
            continue
        path = rel.replace("T/", tdir + "/").replace("C/", cdir + "/")
        name = os.path.basename(path)
        ev = events(path)
        x = sorted((e for e in ev if e.get("ph") == "X" and ann in str(e.get("name", ""))
                    and e.get("cat") == "user_annotation"), key=lambda e: float(e["ts"]))
        full = x[inst]["name"]  # HTA's instance; the command line takes the whole name
        same = [e for e in x if e["name"] == full]
        idx = same.index(x[inst])
        p = subprocess.run([opscope, "report", path, "--critical-path-annotation", full,
                            "--critical-path-instance", str(idx), "--json", "-"], capture_output=True, text=True)
        cp = json.loads(p.stdout)["summary"]["kineto"].get("critical_path", {}) if p.returncode == 0 else {}
        st = cp.get("steps", [{}])[0]
        got = (st.get("cpu_ns"), st.get("kernel_ns", 0) + st.get("comm_ns", 0), st.get("launch_ns"), st.get("queue_ns"))
        want = tuple(v * 1000 for v in (cpu, gpu, launch, kk))
        work = cpu + gpu + launch + kk
        ok = None not in got and all(abs(g - w) <= tol * work * 1000 for g, w in zip(got, want))
        check(p.returncode == 0 and ok and st.get("instance") == idx and cp.get("annotation") == full
              and cp.get("instances") == len(same),
              f"{name}: report --critical-path-annotation '{full[:40]}' --critical-path-instance {idx}: "
              f"{got} vs HTA's {want}, {cp.get('instances')} instances (trace: {len(same)})")
        p = subprocess.run([opscope, "report", path, "--critical-path-annotation", full, "--json", "-"],
                           capture_output=True, text=True)
        cp = json.loads(p.stdout)["summary"]["kineto"].get("critical_path", {}) if p.returncode == 0 else {}
        starts = [s.get("start_ns") for s in cp.get("steps", [])]
        exact = [int(decimal.Decimal(str(e["ts"])) * 1000) for e in same]  # no float rounding at 1.7e18 ns
        check(p.returncode == 0 and starts == exact,
              f"{name}: without an instance, one path per instance of it, by start ({len(starts)} of {len(same)})")
        p = subprocess.run([opscope, "report", path, "--critical-path-annotation", full,
                            "--critical-path-instance", str(len(same)), "-q"], capture_output=True, text=True)
        check(p.returncode == 2 and f"it has {len(same)}" in p.stderr,
              f"{name}: an instance past the last: exit {p.returncode}, {p.stderr.strip()[-60:]!r}")
    p = subprocess.run([opscope, "report", tdir + "/a100_alexnet_fwd.json.gz", "--critical-path-annotation",
                        "no such range", "-q"], capture_output=True, text=True)
    check(p.returncode == 2 and "no CPU annotation or op named 'no such range'" in p.stderr,
          f"an annotation the trace lacks: exit {p.returncode}")
    # Without an annotation the instance is a profiler step by order (HTA's "ProfilerStep", I):
    # the one path, as the run over every step has it.
    ddp = tdir + "/a100_ddp_train_rank0.json.gz"
    p = subprocess.run([opscope, "report", ddp, "--json", "-"], capture_output=True, text=True)
    every = json.loads(p.stdout)["summary"]["kineto"]["critical_path"]["steps"] if p.returncode == 0 else []
    check(len(every) == 3, f"a100_ddp_train_rank0: 3 steps' paths ({len(every)})")
    for i, want in enumerate(every):
        p = subprocess.run([opscope, "report", ddp, "--critical-path-instance", str(i), "--json", "-"],
                           capture_output=True, text=True)
        got = json.loads(p.stdout)["summary"]["kineto"]["critical_path"]["steps"] if p.returncode == 0 else []
        check(got == [want], f"a100_ddp_train_rank0 --critical-path-instance {i}: step {want.get('step')}'s path "
                             f"alone ({[g.get('step') for g in got]})")
    p = subprocess.run([opscope, "report", ddp, "--critical-path-instance", "3", "-q"], capture_output=True, text=True)
    check(p.returncode == 2 and "no profiler step 3" in p.stderr,
          f"a step past the last: exit {p.returncode}, {p.stderr.strip()[-60:]!r}")


def report_part(opscope, tdir, cdir, work):
    os.makedirs(work, exist_ok=True)
    for path in (tdir + "/a100_alexnet_fwd.json.gz", tdir + "/amd_mi250_minitoy_train.json.gz",
                 cdir + "/cuda_graph_steps.json.gz", tdir + "/a100_event_sync_multi_stream.json.gz"):
        name = os.path.basename(path)
        js, ct = os.path.join(work, name + ".json"), os.path.join(work, name + ".trace.json")
        p = subprocess.run([opscope, "report", path, "--json", js, "--chrome-trace", ct],
                           capture_output=True, text=True)
        check(p.returncode == 0 and "Critical path" in p.stdout, f"{name}: report has the critical path section")
        cp = json.load(open(js))["summary"]["kineto"].get("critical_path")
        check(cp is not None and all(k in cp for k in ("length_ns", "cpu_ns", "gpu_ns", "steps")),
              f"{name}: summary.kineto.critical_path with length_ns, cpu_ns, gpu_ns, steps")
        if not cp:
            continue
        ev = events(path)
        steps = sorted((e for e in ev if str(e.get("name", "")).startswith("ProfilerStep#")
                        and e.get("cat") == "user_annotation"), key=lambda e: float(e["ts"]))
        for st in cp["steps"]:
            total = sum(st[p + "_ns"] for p in PARTS)
            check(total == st["length_ns"] and st["gpu_ns"] == st["kernel_ns"] + st["comm_ns"],
                  f"{name} step {st['step']}: parts sum to length {st['length_ns']}")
            match = [e for e in steps if e["name"] == f"ProfilerStep#{st['step']}"]
            if match:
                s = ns(match[0]["ts"])
                e = s + ns(match[0]["dur"])
                check(st["window_ns"] == e - s and e - s <= st["length_ns"] <= gpu_tail(ev, s, e) - s,
                      f"{name} step {st['step']}: window {e - s}, length {st['length_ns']} within its GPU tail")
        check(cp["length_ns"] == sum(s["length_ns"] for s in cp["steps"]), f"{name}: totals over steps")
        tr = json.load(open(ct))
        tr = tr["traceEvents"] if isinstance(tr, dict) else tr
        fl = [e for e in tr if e.get("cat") == "critical_path"]
        s_ = {e["id"]: e for e in fl if e["ph"] == "s"}
        f_ = {e["id"]: e for e in fl if e["ph"] == "f"}
        check(set(s_) == set(f_) and all(float(s_[i]["ts"]) <= float(f_[i]["ts"]) for i in s_),
              f"{name}: {len(s_)} critical_path flows, each s with its f, forward in time")
        if "multi_stream" in name or "graph" in name:
            check(len(s_) > 0, f"{name}: the path changes lane (CPU <-> GPU): flows exist")
        if "amd" in name:
            check(cp["steps"][0]["events"] > 0, f"{name}: a HIP trace gets its graph ({cp['steps'][0]['events']} events in step 1)")
        if "graph" in name:
            launches = sum(1 for e in ev if e.get("name") == "cudaGraphLaunch")
            check(launches > 0 and cp["kernel_ns"] > 0,
                  f"{name}: {launches} cudaGraphLaunch calls; kernels on the path ({cp['kernel_ns']} ns)")


def main():
    tool, opscope, tdir, cdir, work = sys.argv[1:6]
    hta_part(tool, tdir, cdir)
    cli_window_part(opscope, tdir, cdir)
    report_part(opscope, tdir, cdir, work)
    if failures:
        print(f"{len(failures)} failure(s)")
        return 1
    print("critical path: all checks passed")
    return 0


if __name__ == "__main__":
    sys.exit(main())
