#!/usr/bin/env python3
"""Checks opscope's Kineto / Chrome trace reader against an independent computation.

Usage: check_kineto.py KINETO_DUMP TRACE_DIR [OPSCOPE]

For every *.json or *.json.gz trace in TRACE_DIR (tests/kineto/traces: real traces, stored
gzip-compressed) this script recomputes, with the standard library only
(json with Decimal numbers, no opscope code), what kineto_dump prints, and requires equality:
  - per record name (GPU kernels, memsets as OPs; memcpys as COPYs): count, total ns, bytes;
  - kernels linked to a runtime call and to a CPU op (correlation id, then the innermost
    enclosing cpu_op on the launching thread found by a backwards scan, then External id);
    at least 99% linked to a CPU op in the A100 traces;
  - per-stream busy and idle time (union of intervals);
  - category sanity (totals add up, nccl kernels are communication, memcpys are memory).
The JSON summary's `kineto` object of `opscope report --json` is checked against the same
Python figures (GPU counts and totals, links, streams; categories and phases add up).
kineto_dump reads as `opscope report` does (src/read/read.c: detection, gzip, the Kineto
collector passed as an option).
Then: the same results for a plain (uncompressed) copy, a gzip copy (file and stdin) and a
shuffled copy of a trace; a generic Chrome
trace (array form, B/E pairs, string pids, float and string ts, displayTimeUnit "ns");
traces cut before their events exit with status 2 and a position (cut inside: check_cut.py).
"""
import bisect
import glob
import gzip
import json
import os
import random
import re
import subprocess
import sys

from trace_ref import D, check, clip, failures, load, ns, slices, union_len, window

GPU_OP = {"kernel", "Kernel", "mtia_ccp_events", "gpu_memset", "Memset"}
GPU_COPY = {"gpu_memcpy", "Memcpy"}
KERNEL = {"kernel", "Kernel", "mtia_ccp_events"}
RUNTIME = {"cuda_runtime", "cuda_driver", "Runtime", "Driver", "mtia_runtime",
           "mtia_cmd_runtime", "privateuse1_runtime", "privateuse1_driver", "xpu_runtime"}
FLOW = {"ac2g", "async_gpu", "async_cpu_to_gpu"}
CPU_OP = {"cpu_op", "Operator"}

def as_int(v):
    if isinstance(v, bool):
        return -1
    if isinstance(v, int):
        return v if v >= 0 else -1
    if isinstance(v, D):
        return int(v) if v >= 0 else -1
    if isinstance(v, str):
        try:
            x = int(v, 0)
            return x if x >= 0 else -1
        except ValueError:
            return -1
    return -1


def clean(s):
    return s.replace("\t", " ").replace("\n", " ")


def expected(path, chrome=False):
    ev = load(path)
    recs = {}
    kernels = []
    cpu = {}
    ext_name = {}
    runtime = {}
    flows = {}
    gpu = []
    for e in slices(ev):
        cat = e.get("cat")
        args = e.get("args") or {}
        dur = max(ns(e.get("dur")), 0)
        start = ns(e.get("ts"))
        name = e.get("name", "")
        if cat in GPU_OP or cat in GPU_COPY:
            kind = "copy" if cat in GPU_COPY else "op"
            b = as_int(args.get("bytes"))
            if b < 0:
                b = as_int(args.get("size"))
            r = recs.setdefault((kind, clean(name)), [0, 0, 0])
            r[0] += 1
            r[1] += dur
            r[2] += max(b, 0)
            gpu.append((e.get("pid"), e.get("tid"), start, start + dur))
            if cat in KERNEL:
                ext = args.get("External id", args.get("external id"))
                kernels.append((as_int(args.get("correlation")), as_int(ext), name))
        elif cat in CPU_OP:
            cpu.setdefault((e.get("pid"), e.get("tid")), []).append((start, -(start + dur), name))
            x = as_int(args.get("External id", args.get("external id")))
            if x >= 0:
                ext_name[x] = name
        elif cat in RUNTIME:
            c = as_int(args.get("correlation"))
            if c >= 0 and c not in runtime:
                ext = args.get("External id", args.get("external id"))
                runtime[c] = ((e.get("pid"), e.get("tid")), start, as_int(ext))
        elif chrome and cat not in RUNTIME and cat not in CPU_OP and not is_kineto_cat(cat):
            r = recs.setdefault(("op", clean(name)), [0, 0, 0])
            r[0] += 1
            r[1] += dur
    for e in ev:
        if isinstance(e, dict) and e.get("ph") == "s" and e.get("cat") in FLOW:
            i = as_int(e.get("id"))
            if i >= 0 and i not in flows:
                flows[i] = ((e.get("pid"), e.get("tid")), ns(e.get("ts")), -1)

    for k in cpu:
        cpu[k].sort()
    starts = {k: [x[0] for x in v] for k, v in cpu.items()}
    n_rt = n_cpu = 0
    for corr, ext, _ in kernels:
        launch = runtime.get(corr) or flows.get(corr) if corr >= 0 else None
        op = None
        if launch:
            n_rt += 1
            thr, t, rext = launch
            lst = cpu.get(thr, [])
            i = bisect.bisect_right(starts.get(thr, []), t) - 1
            while i >= 0:  # latest start first; for equal starts the shortest first
                if -lst[i][1] >= t:
                    op = lst[i][2]
                    break
                i -= 1
            if op is None and rext >= 0:
                op = ext_name.get(rext)
        if op is None and ext >= 0:
            op = ext_name.get(ext)
        if op is not None:
            n_cpu += 1

    streams = {}
    for pid, tid, a, b in gpu:
        streams.setdefault((pid, tid), []).append((a, b))
    sres = {}
    for k, iv in streams.items():
        iv.sort()
        busy = 0
        cs, ce = iv[0]
        for a, b in iv[1:]:
            if a > ce:
                busy += ce - cs
                cs, ce = a, b
            else:
                ce = max(ce, b)
        busy += ce - cs
        span = max(b for _, b in iv) - iv[0][0]
        sres[k] = (len(iv), busy, span - busy, span)
    return recs, len(kernels), n_rt, n_cpu, sres


def gpu_totals(path):
    """Counts and ns of kernels, memcpys (and their bytes) and memsets, from the slices."""
    t = {"kernels": 0, "kernel_ns": 0, "memcpy": 0, "memcpy_ns": 0, "memcpy_bytes": 0,
         "memset": 0, "memset_ns": 0}
    for e in slices(load(path)):
        cat, args = e.get("cat"), e.get("args") or {}
        dur = max(ns(e.get("dur")), 0)
        if cat in KERNEL:
            t["kernels"] += 1
            t["kernel_ns"] += dur
        elif cat in GPU_COPY:
            b = as_int(args.get("bytes"))
            if b < 0:
                b = as_int(args.get("size"))
            t["memcpy"] += 1
            t["memcpy_ns"] += dur
            t["memcpy_bytes"] += max(b, 0)
        elif cat in GPU_OP:
            t["memset"] += 1
            t["memset_ns"] += dur
    return t


def device_busy(path):
    """Per integer device pid: the union of its kernel and memset intervals (ns), Python's."""
    iv = {}
    for e in slices(load(path)):
        if e.get("cat") in GPU_OP and isinstance(e.get("pid"), int):
            a = ns(e.get("ts"))
            iv.setdefault(e["pid"], []).append((a, a + max(ns(e.get("dur")), 0)))
    return {pid: union_len(l) for pid, l in iv.items()}


EVENT_BUCKETS = ("kernels", "memcpy", "memset", "cpu_ops", "runtime", "python", "annotations",
                 "gpu_annotations", "flows", "metadata", "other", "ends")


def check_json_top(label, doc, path):
    """The JSON export's profiler name, event counts and per-backend busy time (the union of
    kernels and memsets on all streams of a device) against Python's reading of the trace."""
    check(doc.get("profiler") == "kineto", f"{label}: json profiler {doc.get('profiler')!r} != 'kineto'")
    ev = doc["summary"]["kineto"]["events"]
    raw = load(path)
    check(ev["all"] == len(raw), f"{label}: json events.all {ev['all']} != {len(raw)} events")
    check(sum(ev.get(b, 0) for b in EVENT_BUCKETS) == ev["all"],
          f"{label}: json events buckets sum {sum(ev.get(b, 0) for b in EVENT_BUCKETS)} != all {ev['all']}")
    got = {b["id"]: b["busy_ns"] for b in doc["summary"]["backends"] if b["n_ops"]}
    want = device_busy(path)
    check({k: got.get(k) for k in want} == want, f"{label}: json backend busy {got} != python union {want}")


def cpu_side(path):
    """Profiler steps, the window (steps' span, else the GPU span), GPU busy per device over
    it (kernels, memcpys, memsets), top-level CPU op time of the busiest thread, CPU-bound."""
    steps, gpu, cpu = [], {}, {}
    for e in slices(load(path)):
        cat, name = e.get("cat"), str(e.get("name", ""))
        a = ns(e.get("ts"))
        b = a + max(ns(e.get("dur")), 0)
        if cat == "user_annotation" and name.startswith("ProfilerStep#"):
            num = name[13:]
            steps.append((a, b - a, int(num) if num.isdigit() else -1))
        elif (cat in GPU_OP or cat in GPU_COPY) and isinstance(e.get("pid"), int):
            gpu.setdefault(e["pid"], []).append((a, b))
        elif cat in CPU_OP:
            cpu.setdefault((e.get("pid"), e.get("tid")), []).append((a, b))
    steps.sort()
    ws, we = window([(a, a + d) for a, d, _ in steps], gpu)
    busy = {d: union_len(clip(v, ws, we)) for d, v in gpu.items()}
    top = max([union_len(clip(v, ws, we)) for v in cpu.values()] or [0])
    w = we - ws
    bound = bool(w and busy and 2 * max(busy.values()) < w and 2 * top > w)
    return steps, ws, w, busy, top, bound


def check_cpu_side(label, k, path):
    steps, ws, w, busy, top, bound = cpu_side(path)
    check([(x["start_ns"], x["dur_ns"], x["number"]) for x in k["steps"]] == steps,
          f"{label}: json steps {k['steps'][:3]} != python {steps[:3]}")
    check((k["window_start_ns"], k["window_ns"]) == (ws, w) or not busy,
          f"{label}: json window {(k['window_start_ns'], k['window_ns'])} != python {(ws, w)}")
    got = {d["device"]: d["busy_ns"] for d in k["gpu_busy"] if isinstance(d["device"], int)}
    check({d: got.get(d) for d in busy} == busy and
          all(d["busy_ns"] + d["idle_ns"] == w for d in k["gpu_busy"]),
          f"{label}: json gpu_busy {k['gpu_busy']} != python {busy} over {w}")
    check(k["cpu_top_level_ns"] == top or not busy,
          f"{label}: json cpu_top_level_ns {k['cpu_top_level_ns']} != python {top}")
    check(k["cpu_bound"] == bound or not busy, f"{label}: json cpu_bound {k['cpu_bound']} != {bound}")


def check_json_kineto(label, k, path, link, dump_out):
    """summary.kineto of `opscope report --json` against Python's figures (counts, totals,
    links, streams) and against kineto_dump's (categories, phases, layers, top CPU ops)."""
    _, nk, n_rt, n_cpu, est = expected(path)
    g = gpu_totals(path)
    check(k["gpu"] == g, f"{label}: json kineto.gpu {k['gpu']} != python {g}")
    ev = k["events"]
    check((ev["kernels"], ev["memcpy"], ev["memset"]) == (g["kernels"], g["memcpy"], g["memset"]),
          f"{label}: json kineto.events {ev}")
    ln = k["links"]
    check((ln["kernels"], ln["runtime"], ln["cpu_op"]) == (nk, n_rt, n_cpu),
          f"{label}: json kineto.links {ln} != python kernels {nk}, runtime {n_rt}, cpu {n_cpu}")
    check(ln["cpu_op"] == ln["cpu_op_enclosing"] + ln["cpu_op_external_id"] and
          ln["kernels"] == ln["cpu_op"] + ln["python_only"] + ln["none"],
          f"{label}: json kineto.links do not add up: {ln}")
    cats = k["kernel_categories"]
    check(sum(c["kernels"] for c in cats) == nk and sum(c["ns"] for c in cats) == g["kernel_ns"],
          f"{label}: json kernel_categories do not add up to the kernels")
    _, dcats, _, other = parse_dump(dump_out)
    check({c["category"]: (c["kernels"], c["ns"]) for c in cats} == dcats,
          f"{label}: json kernel_categories differ from kineto_dump")
    got = {(s["device"], s["stream"]): (s["activities"], s["busy_ns"], s["idle_ns"], s["span_ns"])
           for s in k["streams"]}
    want = {(int(a), int(b)): v for (a, b), v in est.items() if isinstance(a, int) and isinstance(b, int)}
    check(got == want, f"{label}: json kineto.streams {got} != python {want}")
    check(all(s["span_ns"] == s["last_ns"] - s["first_ns"] and
              s["busy_ns"] + s["idle_ns"] == s["span_ns"] for s in k["streams"]),
          f"{label}: json stream spans inconsistent")
    ph = k["phases"]["list"]
    check(sum(p["kernels"] for p in ph) == nk and sum(p["ns"] for p in ph) == g["kernel_ns"],
          f"{label}: json phases do not cover every kernel once")
    check(all(sum(p["category_ns"].values()) == p["ns"] for p in ph),
          f"{label}: json phase categories do not add up")
    dph = [l.split("\t")[1:] for l in dump_out.splitlines() if l.startswith("phase\t")]
    check([[p["phase"], str(p["kernels"]), str(p["ns"])] for p in ph] == dph,
          f"{label}: json phases differ from kineto_dump")
    ly = k["layers"]
    check([str(ly["count"]), str(ly["kernels"])] == other["layers"] and ly["kernels"] <= nk and
          ly["ns"] <= g["kernel_ns"] and (ly["count"] == 0) == (ly["method"] == "none"),
          f"{label}: json layers {ly} vs kineto_dump {other['layers']}")
    dtop = [l.split("\t")[1:] for l in dump_out.splitlines() if l.startswith("cpuop\t")]
    check([[c["name"] if c["name"] is not None else "(none)", str(c["kernels"]), str(c["ns"])]
           for c in ln["top_cpu_ops"]] == [[clean(d[0])] + d[1:] for d in dtop] or
          [[clean(c["name"] or "(none)"), str(c["kernels"]), str(c["ns"])]
           for c in ln["top_cpu_ops"]] == dtop,
          f"{label}: json top_cpu_ops differ from kineto_dump")
    print(f"   json kineto {label}: {nk} kernels, {g['memcpy']} memcpy, {len(got)} streams, "
          f"{ly['count']} layers")


def check_short_names(opscope, path):
    """Long C++ kernel names: short labels in the console and text tables, aligned columns,
    the full names listed once at the end of the text report, full names in the JSON."""
    label = os.path.basename(path)
    tp = os.path.abspath(label + ".report.txt")
    p = subprocess.run([opscope, "report", "--top-ops", "1000", "--text", tp, path],
                       capture_output=True, text=True)
    if not check(p.returncode == 0, f"{label}: report --text exit {p.returncode}"):
        return
    text = open(tp, encoding="utf-8").read()
    names = {n for (_, n) in expected(path)[0]}
    legend = {}
    if "Kernel names (" in text:
        lines = text.split("Kernel names (", 1)[1].split("\n\n", 1)[0].splitlines()[2:]
        for short, full in zip(lines[0::2], lines[1::2]):
            check(short.startswith(" ") and full.startswith("     "), f"{label}: legend layout")
            check(short.strip() not in legend, f"{label}: label {short.strip()!r} twice")
            legend[short.strip()] = full[5:]
    check(set(legend.values()) <= names, f"{label}: legend names not in the trace")
    long_cpp = {n for n in names if len(n) > 100 and re.search(r"\w[<(]", n) and not n.startswith("_Z")}
    check(long_cpp <= set(legend.values()),
          f"{label}: {len(long_cpp - set(legend.values()))} long C++ names without a short form")
    check(all(len(k) < len(v) and "(" not in k.replace("(anonymous namespace)", "")
              for k, v in legend.items()), f"{label}: a label is no shorter form")
    ops = text.split(" Operations\n", 1)[1].split("\n\n", 1)[0]
    for lb in legend:
        check(re.search(r"^ OP +\S+ +%s +\d" % re.escape(lb), ops, re.M),
              f"{label}: label {lb!r} not in the operations table")
    # console: labels at most 60 columns, cut in the middle, the next column aligned
    rows = p.stdout.split(" TYPE Backend   Operation", 1)[-1].split("\n\n", 1)[0].splitlines()[1:]
    cols = {m.end() for m in (re.search(r" +\d+\.\d%", r) for r in rows if not r.startswith(" ...")) if m}
    check(len(cols) <= 1 and (not cols or min(cols) <= 1 + 4 + 1 + 9 + 1 + 60 + 8),
          f"{label}: console columns not aligned: {sorted(cols)[:5]}")
    if legend:
        print(f"   short names {label}: {len(legend)} labels, console name column {sorted(cols)}")


def is_kineto_cat(cat):
    return cat in {"python_function", "user_annotation", "gpu_user_annotation", "Trace",
                   "fwdbwd", "overhead", "cuda_sync", "cuda_profiler_range"} | FLOW or \
        (isinstance(cat, str) and cat.startswith("cuda_") and len(cat) >= 7)


def check_chrome_launches(t, sl, ce):
    """The Chrome export keeps every runtime call (name, start) and one launch flow per GPU
    activity whose correlation id is a runtime call's or a flow start's (Kineto's ac2g: CPU
    launch -> GPU work), its end on that activity's own event."""
    rt_in = sorted((ns(e.get("ts")), str(e.get("name"))) for e in sl if e.get("cat") in RUNTIME)
    rt_out = sorted((ns(e.get("ts")), e.get("name")) for e in ce if e.get("cat") == "runtime")
    check(rt_in == rt_out, f"{t}: chrome export runtime calls {len(rt_out)} != input's {len(rt_in)} (or names/starts differ)")
    corr = lambda e: (e.get("args") or {}).get("correlation")
    launches = {corr(e) for e in sl if e.get("cat") in RUNTIME and corr(e) is not None}
    launches |= {e.get("id") for e in load(t) if isinstance(e, dict) and e.get("ph") == "s" and e.get("cat") in FLOW}
    gpu = [e for e in sl if e.get("cat") in GPU_OP | GPU_COPY]
    want = sorted(ns(e.get("ts")) for e in gpu if corr(e) is not None and corr(e) in launches)
    fs = [e for e in ce if e.get("ph") == "f" and e.get("cat") == "ac2g"]  # not the critical path's
    starts = [e for e in ce if e.get("ph") == "s" and e.get("cat") == "ac2g"]
    check(sorted(ns(e["ts"]) for e in fs) == want and len(starts) == len(fs),
          f"{t}: chrome export launch flows {len(starts)}/{len(fs)} != input's launched GPU activities {len(want)}")
    xs = {(e["pid"], e["tid"], e["ts"]) for e in ce if e.get("ph") == "X" and e.get("cat") in ("compute", "copy")}
    check(all((e["pid"], e["tid"], e["ts"]) in xs for e in fs), f"{t}: a flow ends off its GPU activity's event")


def run_dump(dump, path, chrome=False):
    cmd = [dump] + (["--chrome"] if chrome else []) + [path]
    p = subprocess.run(cmd, capture_output=True, text=True)
    return p


def parse_dump(out):
    recs, cats, streams, other = {}, {}, {}, {}
    for line in out.splitlines():
        f = line.split("\t")
        if f[0] in ("op", "copy"):
            recs[(f[0], f[1])] = [int(f[2]), int(f[3]), int(f[4])]
            other.setdefault("reccat", {})[(f[0], f[1])] = f[5]
        elif f[0] == "cat":
            cats[f[1]] = (int(f[2]), int(f[3]))
        elif f[0] == "stream":
            streams[(int(f[1]), int(f[2]))] = tuple(int(x) for x in f[3:7])
        else:
            other[f[0]] = f[1:]
    return recs, cats, streams, other


def check_trace(dump, path, chrome=False, label=None):
    label = label or os.path.basename(path)
    p = run_dump(dump, path, chrome)
    if not check(p.returncode == 0, f"{label}: kineto_dump exit {p.returncode}: {p.stderr.strip()}"):
        return None
    recs, cats, streams, other = parse_dump(p.stdout)
    erecs, nk, n_rt, n_cpu, estreams = expected(path, chrome)
    if not check(recs == erecs, f"{label}: per-name totals differ"):
        for k in sorted(set(recs) | set(erecs)):
            if recs.get(k) != erecs.get(k):
                print("   ", k[0], k[1][:70], "opscope", recs.get(k), "python", erecs.get(k))
    link = [int(x) for x in other["link"]]
    check(link[0] == nk, f"{label}: kernels {link[0]} != {nk}")
    check(link[1] == n_rt, f"{label}: linked to runtime {link[1]} != {n_rt}")
    check(link[2] == n_cpu, f"{label}: linked to CPU op {link[2]} != {n_cpu}")
    check(sum(link[2:5]) == link[0], f"{label}: link classes do not add up: {link}")
    est = {(int(k[0]), int(k[1])): v for k, v in estreams.items()
           if isinstance(k[0], int) and isinstance(k[1], int)}
    check(streams == est, f"{label}: streams differ: {streams} vs {est}")
    # category sanity
    check(sum(c for c, _ in cats.values()) == nk, f"{label}: category counts != kernels")
    kernel_ns = sum(v[1] for (kind, name), v in recs.items()
                    if kind == "op" and other["reccat"][(kind, name)] != "" and
                    not name.startswith("Memset"))
    if not chrome:
        check(sum(n for _, n in cats.values()) + sum(
            v[1] for (kind, name), v in recs.items() if kind == "op" and name.startswith("Memset"))
            == sum(v[1] for (kind, _), v in recs.items() if kind == "op"),
            f"{label}: category ns do not add up ({kernel_ns})")
    for (kind, name), c in other.get("reccat", {}).items():
        low = name.lower()
        if kind == "copy":
            check(c == "memory", f"{label}: memcpy {name} is {c}")
        elif "nccl" in low:
            check(c == "communication", f"{label}: {name[:60]} is {c}")
        elif low.startswith("memset"):
            check(c == "memory", f"{label}: {name} is {c}")
        elif "bn_fw" in low or "layer_norm" in low:
            check(c == "norm", f"{label}: {name[:60]} is {c}")
        elif "sgemm" in low or "s1688gemm" in low:
            check(c == "gemm", f"{label}: {name[:60]} is {c}")
    print(f"ok {label}: {len(recs)} names, {nk} kernels, runtime {n_rt}, cpu op {n_cpu}, "
          f"{len(streams)} streams")
    return link, p.stdout


def main():
    dump, tdir = sys.argv[1], sys.argv[2]
    opscope = sys.argv[3] if len(sys.argv) > 3 else None
    traces = sorted(glob.glob(os.path.join(tdir, "*.json")) + glob.glob(os.path.join(tdir, "*.json.gz")))
    check(len(traces) >= 1, f"no traces in {tdir}")
    outs = {}
    for t in traces:
        r = check_trace(dump, t)
        if r is None:
            continue
        link, out = r
        outs[t] = out
        if opscope:  # the same figures in `opscope report`'s Kineto section
            p = subprocess.run([opscope, "report", "--top-ops", "3", t], capture_output=True, text=True)
            ok = check(p.returncode == 0, f"{t}: opscope report exit {p.returncode}: {p.stderr[-300:]}")
            if ok and link[0]:
                m = re.search(r"^  CPU op +(\d+) ", p.stdout, re.M)
                check(m is not None and int(m.group(1)) == link[2],
                      f"{t}: report's CPU op link count differs from {link[2]}")
                m = re.search(r"^  all kernels +(\d+) ", p.stdout, re.M)
                check(m is not None and int(m.group(1)) == link[0],
                      f"{t}: report's kernel count differs from {link[0]}")
            elif ok:
                check("Kineto trace" in p.stdout, f"{t}: no Kineto section in the report")
            # per-name totals through the whole product: reader dispatch, statistics, JSON export
            jp = os.path.abspath(os.path.basename(t).removesuffix(".gz") + ".report.json")
            p = subprocess.run([opscope, "report", "-q", "--json", jp, t], capture_output=True, text=True)
            if check(p.returncode == 0, f"{t}: opscope report --json exit {p.returncode}"):
                with open(jp) as f:
                    jdoc = json.load(f)
                summ = jdoc["summary"]
                check_json_top(os.path.basename(t), jdoc, t)
            # the Chrome export keeps the CPU side: every cpu_op slice, annotation (the profiler
            # steps among them) and Python function
            cp = os.path.abspath(os.path.basename(t).removesuffix(".gz") + ".chrome.json")
            p = subprocess.run([opscope, "report", "-q", "--chrome-trace", cp, t], capture_output=True, text=True)
            if check(p.returncode == 0, f"{t}: opscope report --chrome-trace exit {p.returncode}"):
                with open(cp) as f:
                    ce = json.load(f)["traceEvents"]
                sl = list(slices(load(t)))
                # (user annotations: the steps and every other one; Python functions)
                want = (sum(1 for e in sl if e.get("cat") in CPU_OP),
                        sum(1 for e in sl if e.get("cat") == "user_annotation"),
                        sum(1 for e in sl if e.get("cat") == "python_function"))
                got = (sum(1 for e in ce if e.get("cat") == "cpu_op"),
                       sum(1 for e in ce if e.get("cat") == "user_annotation"),
                       sum(1 for e in ce if e.get("cat") == "python_function"))
                check(got == want, f"{t}: chrome export cpu_op slices, annotations, python functions {got} != input's {want}")
                ops_in = sorted((ns(e.get("ts")), str(e.get("name"))) for e in sl if e.get("cat") in CPU_OP)
                ops_out = sorted((ns(e.get("ts")), e.get("name")) for e in ce if e.get("cat") == "cpu_op")
                check(ops_in == ops_out, f"{t}: chrome export cpu_op names/starts differ from the input's")
                check_chrome_launches(t, sl, ce)
                if check("kineto" in summ, f"{t}: no kineto object in the JSON summary"):
                    check_json_kineto(os.path.basename(t), summ["kineto"], t, link, out)
                    check_cpu_side(os.path.basename(t), summ["kineto"], t)
                got = {}
                for o in summ["ops"]:  # copies are listed there too (type 1)
                    k = ("copy" if o["type"] == 1 else "op", clean(o["name"]))
                    g = got.setdefault(k, [0, 0])
                    g[0] += o["count"]
                    g[1] += o["total_ns"]
                want = {k: v[:2] for k, v in expected(t)[0].items()}
                check(got == want, f"{t}: opscope report --json per-name totals differ from Python "
                      f"({len(got)} vs {len(want)} names)")
        if opscope:
            check_short_names(opscope, t)
        if os.path.basename(t).startswith("a100_") and link[0]:
            ratio = link[2] / link[0]
            check(ratio >= 0.99, f"{t}: only {ratio:.4f} of kernels linked to a CPU op")
            print(f"   link ratio {os.path.basename(t)}: {link[2]}/{link[0]} = {ratio:.4f}")

    work = os.path.abspath("kineto_work")
    os.makedirs(work, exist_ok=True)
    big = max(traces, key=os.path.getsize)
    # plain input gives the same output as the stored gzip one (and a gzip copy of a plain one)
    plain = os.path.join(work, "trace.json")
    with (gzip.open if big.endswith(".gz") else open)(big, "rb") as f, open(plain, "wb") as g:
        g.write(f.read())
    p = run_dump(dump, plain)
    check(p.returncode == 0 and p.stdout == outs.get(big), "plain input differs from gzip input")
    gz = os.path.join(work, "trace.json.gz")
    with open(plain, "rb") as f, gzip.open(gz, "wb") as g:
        g.write(f.read())
    p = run_dump(dump, gz)
    check(p.returncode == 0 and p.stdout == outs.get(big), "gzip input differs from plain input")
    # ... also on stdin: kineto_dump reads through opscope report's reader, which takes it
    with open(gz, "rb") as f:
        p = subprocess.run([dump, "-"], stdin=f, capture_output=True, text=True)
    check(p.returncode == 0 and p.stdout == outs.get(big),
          f"gzip input on stdin differs from plain input: exit {p.returncode} {p.stderr[-200:]}")

    # shuffled events (unsorted input) give the same totals, links and streams
    with open(plain) as f:
        d = json.load(f)
    random.Random(5).shuffle(d["traceEvents"])
    shuf = os.path.join(work, "shuffled.json")
    with open(shuf, "w") as f:
        json.dump(d, f)
    r = check_trace(dump, shuf, label="shuffled " + os.path.basename(big))
    if r:
        a = [l for l in r[1].splitlines() if l.split("\t")[0] in ("link", "stream", "cat", "layers")]
        b = [l for l in outs.get(big, "").splitlines()
             if l.split("\t")[0] in ("link", "stream", "cat", "layers")]
        check(a == b, "shuffled trace: analysis differs from the sorted one")

    # a generic Chrome trace: array form, B/E pairs, string pids, float/string ts, ns unit
    generic = [
        {"ph": "M", "name": "process_name", "pid": "render", "tid": 0, "args": {"name": "Renderer"}},
        {"ph": "B", "name": "frame", "cat": "gfx", "pid": "render", "tid": "main", "ts": 10.5},
        {"ph": "X", "name": "draw", "cat": "gfx", "pid": "render", "tid": "main", "ts": 11, "dur": 2.25},
        {"ph": "X", "name": "draw", "cat": "gfx", "pid": "render", "tid": "main", "ts": "14.0005", "dur": 1},
        {"ph": "E", "pid": "render", "tid": "main", "ts": 20.125},
        {"ph": "X", "name": "io", "cat": "disk", "pid": 7, "tid": 1, "ts": 3, "dur": 0.0004},
        {"ph": "X", "name": "io", "cat": "disk", "pid": 7, "tid": 1, "ts": 2, "dur": 5},
        {"ph": "X", "name": "k", "cat": "kernel", "pid": 0, "tid": 7, "ts": 1.0, "dur": 1.5,
         "args": {"correlation": 1}},
        {"ph": "X", "name": "k2", "cat": "kernel", "pid": 0, "tid": 7, "ts": 1.5, "dur": 3},  # overlaps k
        {"ph": "X", "name": "k3", "cat": "kernel", "pid": 0, "tid": 7, "ts": 9, "dur": 1},
        {"ph": "i", "name": "mark", "pid": 7, "tid": 1, "ts": 4},
    ]
    gpath = os.path.join(work, "generic.json")
    with open(gpath, "w") as f:
        json.dump({"displayTimeUnit": "ns", "traceEvents": generic}, f)
    check_trace(dump, gpath, chrome=True, label="generic chrome trace")
    apath = os.path.join(work, "generic_array.json")
    with open(apath, "w") as f:
        json.dump(generic, f)
    check_trace(dump, apath, chrome=True, label="generic chrome array")

    # layers and phases through the JSON summary, on a trace written here: three eager
    # layers (attention, GEMM, elementwise) on stream 7; a gpu_user_annotation "prefill" around
    # the first layer, "decode" around the other two. Expected values worked out by hand.
    if opscope:
        evs = [{"ph": "X", "cat": "gpu_user_annotation", "name": "prefill", "pid": 0, "tid": 7,
                "ts": 0, "dur": 100},
               {"ph": "X", "cat": "gpu_user_annotation", "name": "decode", "pid": 0, "tid": 7,
                "ts": 100, "dur": 200}]
        t0 = 1
        for layer in range(3):
            for kname, dur in (("flash_fwd_kernel", 10), ("ampere_sgemm_128x64_tn", 20),
                               ("vectorized_elementwise_kernel", 5)):
                evs.append({"ph": "X", "cat": "kernel", "name": kname, "pid": 0, "tid": 7,
                            "ts": t0, "dur": dur, "args": {"correlation": 0}})
                t0 += dur + 1
            t0 += 62  # layers start at 1, 101, 201
        lpath = os.path.join(work, "layers.json")
        with open(lpath, "w") as f:
            json.dump({"schemaVersion": 1, "traceEvents": evs}, f)
        jp = os.path.join(work, "layers.report.json")
        p = subprocess.run([opscope, "report", "-q", "--json", jp, lpath], capture_output=True, text=True)
        if check(p.returncode == 0, f"layers trace: exit {p.returncode}: {p.stderr}"):
            k = json.load(open(jp))["summary"]["kineto"]
            ly = k["layers"]
            check((ly["method"], ly["count"], ly["kernels"]) == ("attention_anchored", 3, 9),
                  f"layers trace: json layers {ly}")
            ph = {p["phase"]: (p["kernels"], p["ns"]) for p in k["phases"]["list"]}
            check(ph == {"unannotated": (0, 0), "prefill": (3, 35000), "decode": (6, 70000),
                         "mixed": (0, 0), "forward": (0, 0), "backward": (0, 0),
                         "optimizer": (0, 0)}, f"layers trace: json phases {ph}")
            check(k["phases"]["annotations"] == 2, f"layers trace: {k['phases']['annotations']} annotations")
            cats = {c["category"]: (c["kernels"], c["ns"]) for c in k["kernel_categories"] if c["kernels"]}
            check(cats == {"attention_prefill": (3, 30000), "gemm": (3, 60000), "elementwise": (3, 15000)},
                  f"layers trace: json categories {cats}")
            st = k["streams"]
            # span 1 .. 238 us (last layer: 201 + 10 + 1 + 20 + 1 + 5); busy = 9 kernels = 105 us
            check([(s["device"], s["stream"], s["activities"], s["span_ns"], s["busy_ns"]) for s in st]
                  == [(0, 7, 9, 237000, 105000)], f"layers trace: json streams {st}")

    # a trace cut before its events began: exit status 2, one line naming file and position
    # (one cut inside its events is read up to its last complete event: check_cut.py)
    raw = open(plain, "rb").read()
    cut = raw.index(b'"traceEvents"') + len(b'"traceEvents"') + 1
    tp = os.path.join(work, "truncated.json")
    with open(tp, "wb") as f:
        f.write(raw[:cut])
    for cmd in ([dump, tp], [opscope, "report", tp] if opscope else None):
        if not cmd:
            continue
        p = subprocess.run(cmd, capture_output=True, text=True)
        err = p.stderr.strip()
        check(p.returncode == 2, f"truncated before the events via {os.path.basename(cmd[0])}: exit {p.returncode}")
        check("truncated.json" in err and ("byte" in err or ":" in err.split("truncated.json", 1)[1]),
              f"truncated via {os.path.basename(cmd[0])}: message lacks a position: {err!r}")
    bad = os.path.join(work, "badts.json")
    with open(bad, "w") as f:
        f.write('{"traceEvents": [{"ph": "X", "cat": "kernel", "name": "k", "pid": 0, "tid": 7, '
                '"ts": "soon", "dur": 1}]}')
    p = run_dump(dump, bad)
    check(p.returncode == 2 and "ts" in p.stderr and "1:" in p.stderr,
          f"bad ts: exit {p.returncode} {p.stderr!r}")

    # docs/kineto.md shows the rule table of src/read/kernel_rules.def, row by row
    root = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..")
    rules = re.findall(r'^RULE\((\w+), "([^"]+)"\)',
                       open(os.path.join(root, "src/read/kernel_rules.def")).read(), re.M)
    doc_rows = re.findall(r"^\| \d+ \| `(\w+)` \| (.*) \|$",
                          open(os.path.join(root, "docs/kineto.md")).read(), re.M)
    doc = [(c, p) for c, pats in doc_rows if c != "other" for p in re.findall(r"`([^`]+)`", pats)]
    check([p for _, p in doc] == [p for _, p in rules],
          "docs/kineto.md category table differs from kernel_rules.def")

    print(f"{len(failures)} failed")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
