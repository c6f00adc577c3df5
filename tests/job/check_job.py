#!/usr/bin/env python3
"""Checks `opscope report` of a job against an independent computation with Python's standard
library (docs/job.md's definitions; HTA's for the GPU shares and overlap).

  check_job.py OPSCOPE gpu TRACE...          per-rank figures, launches, streams of the traces
  check_job.py OPSCOPE cpu DIR RANK CAUSE    a CPU (gloo) job: figures, and RANK named the
                                             worst straggler with CAUSE

Every rank's busy, idle, compute, non-compute, communication and overlap must equal the
computation here to 0.1 percentage points (and the nanoseconds exactly); launch delay and CPU
launch percentiles, queue lengths and the idle split exactly.
"""
import json
import os
import re
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))
from json_ref import load_json as load, us_to_ns as ns  # noqa: E402

FAILS = []


def check(cond, what):
    if not cond:
        FAILS.append(what)
        print("FAIL:", what)


def union(ivs):
    out = []
    for s, e in sorted(ivs):
        if e <= s:
            continue
        if out and s <= out[-1][1]:
            out[-1][1] = max(out[-1][1], e)
        else:
            out.append([s, e])
    return out


def length(u):
    return sum(e - s for s, e in u)


def inter(a, b):
    t, i, j = 0, 0, 0
    while i < len(a) and j < len(b):
        lo, hi = max(a[i][0], b[j][0]), min(a[i][1], b[j][1])
        if hi > lo:
            t += hi - lo
        if a[i][1] < b[j][1]:
            i += 1
        else:
            j += 1
    return t


def clip(u, s, e):
    return [[max(a, s), min(b, e)] for a, b in u if min(b, e) > max(a, s)]


def minus(a, b):
    out = []
    for s, e in a:
        cur = s
        for bs, be in b:
            if be <= cur or bs >= e:
                continue
            if bs > cur:
                out.append([cur, bs])
            cur = max(cur, be)
        if e > cur:
            out.append([cur, e])
    return out


GPU_CATS = {"kernel": "kernel", "Kernel": "kernel", "gpu_memcpy": "memcpy", "Memcpy": "memcpy",
            "gpu_memset": "memset", "Memset": "memset", "mtia_ccp_events": "kernel"}
RUNTIME_CATS = {"cuda_runtime", "cuda_driver", "Runtime", "Driver", "mtia_runtime", "xpu_runtime"}
# HTA's kernel classes (hta/common/types.py): communication, memory, else compute
HTA_COMM = re.compile(r"(^nccl.*)|(^hip)|(^hccl)|(.*ncclKernel.*)")
HTA_MEM = re.compile(r"(^(hip)?Memcpy)|(^(hip)?Memset)|(^dma)")


def events(d):
    return d["traceEvents"] if isinstance(d, dict) else d


def gpu_events(d):
    out = []
    for e in events(d):
        kind = GPU_CATS.get(e.get("cat"))
        if not kind or e.get("ph") != "X":
            continue
        s = ns(e["ts"])
        name = e.get("name", "")
        if kind != "kernel" or HTA_MEM.match(name):
            cls = "memory"
        elif HTA_COMM.match(name):
            cls = "comm"
        else:
            cls = "compute"
        corr = (e.get("args") or {}).get("correlation", -1)
        out.append(dict(s=s, e=s + ns(e.get("dur", 0)), cls=cls, dev=int(e["pid"]), stream=int(e["tid"]),
                        corr=int(corr) if corr is not None else -1, name=name))
    return out


def calls(d, with_thread=False):
    c = {}
    for e in events(d):
        cat = e.get("cat", "")
        if cat not in RUNTIME_CATS and not str(cat).startswith("privateuse1"):
            continue
        corr = (e.get("args") or {}).get("correlation")
        if corr is None or int(corr) < 0:
            continue
        s = ns(e["ts"])
        if int(corr) not in c or s < c[int(corr)][0]:
            c[int(corr)] = (s, ns(e.get("dur", 0))) + (((e.get("pid"), e.get("tid")),) if with_thread else ())
    return c


def expect_annots(d, modules=False):
    """Per user annotation name (ProfilerStep#N left out; or, MODULES, per "nn.Module: X" python
    frame): ranges, their summed duration, and the GPU activities launched (call start) inside
    each range on the same thread: inclusive time, and self time for the innermost range (latest
    start, then the shortest)."""
    ranges = {}
    for e in events(d):
        name = str(e.get("name", ""))
        if e.get("ph") != "X":
            continue
        if modules and (e.get("cat") != "python_function" or not name.startswith("nn.Module: ")):
            continue
        if not modules and (e.get("cat") != "user_annotation" or name.startswith("ProfilerStep#")):
            continue
        s = ns(e["ts"])
        ranges.setdefault((e.get("pid"), e.get("tid")), []).append((s, s + ns(e.get("dur", 0)), e["name"]))
    agg = {}
    for rs in ranges.values():
        for s, en, name in rs:
            a = agg.setdefault(name, dict(count=0, kernels=0, cpu_ns=0, gpu_ns=0, self_gpu_ns=0))
            a["count"] += 1
            a["cpu_ns"] += en - s
    c = calls(d, with_thread=True)
    for x in gpu_events(d):
        if x["corr"] < 0 or x["corr"] not in c:
            continue
        t, _, th = c[x["corr"]]
        around = [r for r in ranges.get(th, []) if r[0] <= t < r[1]]
        for r in around:
            agg[r[2]]["gpu_ns"] += x["e"] - x["s"]
            agg[r[2]]["kernels"] += 1
        if around:
            agg[max(around, key=lambda r: (r[0], -r[1]))[2]]["self_gpu_ns"] += x["e"] - x["s"]
    return agg


def steps_of(d):
    st = [(ns(e["ts"]), ns(e["dur"]), int(e["name"].split("#")[1])) for e in events(d)
          if e.get("cat") == "user_annotation" and str(e.get("name", "")).startswith("ProfilerStep#")]
    return sorted(st)


def pct_of(a, b):
    return 100.0 * a / b if b > 0 else 0.0


def expect_gpu(d):
    g = gpu_events(d)
    lo, hi = min(x["s"] for x in g), max(x["e"] for x in g)
    allu = union([(x["s"], x["e"]) for x in g])
    comp = union([(x["s"], x["e"]) for x in g if x["cls"] == "compute"])
    comm = union([(x["s"], x["e"]) for x in g if x["cls"] == "comm"])
    mem = union([(x["s"], x["e"]) for x in g if x["cls"] == "memory"])
    r = dict(span=hi - lo, busy=length(allu), compute=length(comp), comm=length(comm),
             memory=length(mem), overlap=inter(comm, comp))
    r["steps"] = [dict(num=n, busy=length(clip(allu, s, s + du)), compute=length(clip(comp, s, s + du)),
                       comm=length(clip(comm, s, s + du)), overlap=inter(clip(comm, s, s + du), clip(comp, s, s + du)))
                  for s, du, n in steps_of(d)]
    return r


def pick(v, q):
    return v[(len(v) - 1) * q // 100] if v else 0


def expect_launch_streams(d):
    g, c = gpu_events(d), calls(d)
    delays, cpus = [], []
    for x in g:
        if x["corr"] >= 0 and x["corr"] in c:
            delays.append(x["s"] - c[x["corr"]][0])
            cpus.append(c[x["corr"]][1])
    delays.sort()
    cpus.sort()
    launch = dict(launches=len(delays), delay_p50_ns=pick(delays, 50), delay_p90_ns=pick(delays, 90),
                  delay_p99_ns=pick(delays, 99), delay_max_ns=delays[-1] if delays else 0,
                  cpu_p50_ns=pick(cpus, 50), cpu_p90_ns=pick(cpus, 90), cpu_max_ns=cpus[-1] if cpus else 0)
    streams = {}
    for x in g:
        streams.setdefault((x["dev"], x["stream"]), []).append(x)
    out = {}
    for key, acts in streams.items():
        acts.sort(key=lambda x: (x["s"], x["e"]))
        host = kern = other = 0
        end = acts[0]["e"]
        for x in acts[1:]:
            if x["s"] > end:
                gap = x["s"] - end
                if x["corr"] >= 0 and x["corr"] in c:
                    h = min(max(c[x["corr"]][0] - end, 0), gap)
                    host += h
                    kern += gap - h
                else:
                    other += gap
            end = max(end, x["e"])
        busy = length(union([(x["s"], x["e"]) for x in acts]))
        span = max(x["e"] for x in acts) - acts[0]["s"]
        # queue: +1 at the call's start, -1 at the activity's end; the value after an instant
        # holds until the next one
        deltas = {}
        for x in acts:
            if x["corr"] >= 0 and x["corr"] in c:
                deltas[c[x["corr"]][0]] = deltas.get(c[x["corr"]][0], 0) + 1
                deltas[x["e"]] = deltas.get(x["e"], 0) - 1
        q = dict(queue_max=0, queue_at_max_ns=0, queue_mean=0.0)
        if deltas:
            times = sorted(deltas)
            v, vals = 0, []
            for i, t in enumerate(times):
                v += deltas[t]
                vals.append((v, (times[i + 1] - t) if i + 1 < len(times) else 0))
            mx = max(v for v, _ in vals)
            q = dict(queue_max=mx, queue_at_max_ns=sum(l for v, l in vals if v == mx),
                     queue_mean=(sum(v * l for v, l in vals) / (times[-1] - times[0])) if times[-1] > times[0] else 0.0)
        out[key] = dict(activities=len(acts), span_ns=span, busy_ns=busy, idle_ns=span - busy, host_wait_ns=host,
                        kernel_wait_ns=kern, other_wait_ns=other, **q)
    return launch, out


def run_job(opscope, inputs):
    with tempfile.TemporaryDirectory() as tmp:
        out = os.path.join(tmp, "job.json")
        p = subprocess.run([opscope, "report", *inputs, "--json", out], capture_output=True, text=True)
        print(p.stdout)
        if p.returncode != 0:
            print(p.stderr)
            sys.exit("opscope report failed: %d" % p.returncode)
        with open(out) as f:
            return json.load(f)["summary"]["job"], p.stdout


def compare_shares(row, exp, label):
    span = exp["span"]
    for key, val in (("span_ns", span), ("busy_ns", exp["busy"]), ("compute_ns", exp["compute"]),
                     ("comm_ns", exp["comm"]), ("memory_ns", exp["memory"]), ("overlap_ns", exp["overlap"])):
        check(row[key] == val, "%s %s: opscope %s, python %s" % (label, key, row[key], val))
    for key, val in (("idle_pct", pct_of(span - exp["busy"], span)), ("compute_pct", pct_of(exp["compute"], span)),
                     ("non_compute_pct", pct_of(exp["busy"] - exp["compute"], span)),
                     ("overlap_pct", pct_of(exp["overlap"], exp["comm"]))):
        check(abs(row[key] - val) <= 0.1, "%s %s: opscope %.4f, python %.4f" % (label, key, row[key], val))
        print("%s %-16s opscope %9.4f  python %9.4f" % (label, key, row[key], val))


def check_gpu(opscope, traces):
    job, _ = run_job(opscope, traces)
    check(len(job["ranks"]) == len(traces), "ranks: %d of %d traces" % (len(job["ranks"]), len(traces)))
    by_trace = {r["trace"]: r for r in job["ranks"]}
    for t in traces:
        row, d = by_trace[t], load(t)
        label = os.path.basename(t)
        exp = expect_gpu(d)
        compare_shares(row, exp, label)
        check(len(row["steps"]) == len(exp["steps"]), "%s steps: %d vs %d" % (label, len(row["steps"]), len(exp["steps"])))
        for got, want in zip(row["steps"], exp["steps"]):
            for k in ("busy", "compute", "comm", "overlap"):
                check(got[k + "_ns"] == want[k], "%s step %d %s: %s vs %s" % (label, want["num"], k, got[k + "_ns"], want[k]))
        launch, streams = expect_launch_streams(d)
        for k, v in launch.items():
            check(row["launch"][k] == v, "%s launch %s: opscope %s, python %s" % (label, k, row["launch"][k], v))
        print("%s launches %d, delay p50 %d ns, p99 %d ns, cpu p50 %d ns" % (
            label, launch["launches"], launch["delay_p50_ns"], launch["delay_p99_ns"], launch["cpu_p50_ns"]))
        check(row["launch_delay_p50_ns"] == launch["delay_p50_ns"], "%s launch_delay_p50_ns" % label)
        mods = expect_annots(d, True)
        check([a["name"] for a in row["modules"]] == sorted(mods, key=lambda n: (-mods[n]["gpu_ns"], n))[:10],
              "%s modules" % label)
        annots = expect_annots(d)
        top = sorted(annots, key=lambda n: (-annots[n]["gpu_ns"], n))[:10]
        check([a["name"] for a in row["annotations"]] == [n[:159] for n in top],
              "%s annotation names: %s vs %s" % (label, [a["name"] for a in row["annotations"]], top))
        for a in row["annotations"]:
            want = annots.get(a["name"], {})
            for k, v in want.items():
                check(a[k] == v, "%s annotation %s %s: opscope %s, python %s" % (label, a["name"], k, a[k], v))
        if row["annotations"]:
            a = row["annotations"][0]
            print("%s top annotation %s: %d kernels, GPU %d ns (self %d ns)" % (label, a["name"], a["kernels"], a["gpu_ns"], a["self_gpu_ns"]))
        got_streams = {(s["device"], s["stream"]): s for s in row["streams"]}
        check(set(got_streams) == set(streams), "%s streams %s vs %s" % (label, sorted(got_streams), sorted(streams)))
        for key, want in streams.items():
            got = got_streams.get(key, {})
            for k, v in want.items():
                ok = abs(got.get(k, -1) - v) <= 1e-3 * max(1.0, abs(v)) if k == "queue_mean" else got.get(k) == v
                check(ok, "%s stream %s %s: opscope %s, python %s" % (label, key, k, got.get(k), v))
            print("%s stream %s: idle %d = host %d + kernel %d + other %d; queue max %d mean %.3f at max %d ns" % (
                label, key, want["idle_ns"], want["host_wait_ns"], want["kernel_wait_ns"], want["other_wait_ns"],
                want["queue_max"], want["queue_mean"], want["queue_at_max_ns"]))
    return job


COMM_PREFIX = ("gloo:", "nccl:", "c10d::", "record_param_comms")


def expect_cpu(d):
    ev = [e for e in events(d) if e.get("ph") == "X"]
    st = steps_of(d)
    lo, hi = min(s for s, _, _ in st), max(s + du for s, du, _ in st)
    threads = {}
    comm, inp = [], []
    for e in ev:
        name, cat = str(e.get("name", "")), e.get("cat")
        s = ns(e["ts"])
        iv = (max(s, lo), min(s + ns(e.get("dur", 0)), hi))
        th = threads.setdefault((e.get("pid"), e.get("tid")), dict(ops=[], ex=[]))
        if cat not in ("cpu_op", "user_annotation") or name.startswith("ProfilerStep#"):
            continue
        if name.startswith(COMM_PREFIX):
            comm.append(iv)
            th["ex"].append(iv)
        elif name.startswith("enumerate(DataLoader)"):
            inp.append(iv)
            th["ex"].append(iv)
        elif cat == "cpu_op":
            th["ops"].append(iv)
    compute = []
    for th in threads.values():
        compute += minus(union(th["ops"]), union(th["ex"]))
    comp, commu, inpu = union(compute), union(comm), union(inp)
    allu = union([tuple(x) for x in comp + commu + inpu])
    return dict(span=hi - lo, busy=length(allu), compute=length(comp), comm=length(commu), memory=0,
                input=length(inpu), overlap=inter(commu, comp))


def check_cpu(opscope, folder, rank, cause):
    job, text = run_job(opscope, [folder])
    traces = sorted(os.path.join(folder, f) for f in os.listdir(folder) if f.endswith(".json"))
    by_trace = {r["trace"]: r for r in job["ranks"]}
    check(len(job["ranks"]) == len(traces), "ranks %d vs %d traces" % (len(job["ranks"]), len(traces)))
    comm = {}
    for t in traces:
        row, d = by_trace[t], load(t)
        exp = expect_cpu(d)
        label = "rank %d" % row["rank"]
        check(row["rank"] == d["distributedInfo"]["rank"], "%s: distributedInfo says %s" % (label, d["distributedInfo"]["rank"]))
        compare_shares(row, exp, label)
        check(row["input_ns"] == exp["input"], "%s input_ns %s vs %s" % (label, row["input_ns"], exp["input"]))
        for key, mods in (("annotations", False), ("modules", True)):
            annots = expect_annots(d, mods)
            top = sorted(annots, key=lambda n: (-annots[n]["cpu_ns"], n))[:10]
            check([a["name"] for a in row[key]] == top, "%s %s %s" % (label, key, top))
            for a in row[key]:
                check(all(a[k] == v for k, v in annots.get(a["name"], {}).items()), "%s %s %s" % (label, key, a["name"]))
            if mods:
                check(len(top) > 0, "%s: module frames (with_stack)" % label)
                print("%s modules: %s" % (label, ", ".join("%s %d ns" % (a["name"], a["cpu_ns"]) for a in row[key][:3])))
        comm[row["rank"]] = exp["comm"]
    # the straggler: least communication (the others wait for it), and its cause
    st = job["stragglers"]
    check(len(st) >= 1 and st[0]["rank"] == rank, "worst straggler %s, expected rank %d" % (st[:1], rank))
    check(len(st) >= 1 and st[0]["cause"] == cause, "cause %s, expected %s" % (st[:1], cause))
    check(min(comm, key=comm.get) == rank, "python: least communication on rank %d" % min(comm, key=comm.get))
    check(job["bound"]["rank"] == rank, "bound rank %s" % job["bound"]["rank"])
    first = text.splitlines()[:6]
    check(any(("Bound by: rank %d" % rank) in l for l in first), "first screen names rank %d" % rank)


def main():
    opscope, mode = sys.argv[1], sys.argv[2]
    if mode == "gpu":
        check_gpu(opscope, sys.argv[3:])
    else:
        check_cpu(opscope, sys.argv[3], int(sys.argv[4]), sys.argv[5])
    if FAILS:
        print("%d check(s) failed" % len(FAILS))
        return 1
    print("all checks passed")
    return 0


if __name__ == "__main__":
    sys.exit(main())
