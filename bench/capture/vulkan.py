#!/usr/bin/env python3
"""Vulkan layer benchmarks on lavapipe (inside the forky root: bench/capture/run-vulkan.sh).

overhead  PAIRS rounds of `llama-bench -m MODEL -p 0 -n N -ngl 99 -t 2 -r 3`, each round running
          five configurations in rotating order: plain, under the capture (the layer timing
          every dispatch), the capture with OPSCOPE_VK_SERIALIZE=1, with ggml-vulkan's own
          GGML_VK_PERF_LOGGER=1, and with only GGML_VK_DEBUG_MARKERS=1 (ggml's labels, which
          the capture turns on). Prints every run with its CPU time and voluntary context
          switches per generated token (the process's rusage, which also counts the warm-up
          and load, the same for every mode), then per mode the median tokens/s, its ratio to
          plain and the median of the per-round ratios (bar: the capture keeps >= 95%).
accuracy  llama-completion -ngl 99 -n N, PAIRS times under the capture and PAIRS times with
          GGML_VK_PERF_LOGGER=1 (same configuration), alternating. Per decode graph, the time of
          each group name (the perf logger's name; ours is the record's fused name or op) and the
          graph's total; per name and for the total, the median over every decode graph of each
          side's runs and their ratio (bar: within 15%). The runs are separate processes, so
          lavapipe's run-to-run spread is part of what is compared; the perf logger's odd runs
          against its even runs show that spread. Last, one run with both in one process
          (capture under GGML_VK_PERF_LOGGER=1): the same execution measured both ways.
usage: vulkan.py overhead|accuracy [--model NAME] [--pairs N] [--n-gen N]
"""
import argparse
import collections
import json
import os
import resource
import statistics
import subprocess
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "tests", "capture_e2e"))
import e2e  # noqa: E402  (the perf logger's output parser)

ap = argparse.ArgumentParser()
ap.add_argument("what", choices=["overhead", "accuracy"])
ap.add_argument("--model", default="tiny-dense-f32")
ap.add_argument("--pairs", type=int, default=5)
ap.add_argument("--n-gen", type=int, default=32)
a = ap.parse_args()
models = os.environ.get("OPSCOPE_MODELS", "/models")
lib = os.environ.get("OPSCOPE_PRELOAD", "")
if not lib:
    sys.exit("vulkan: libopscope-ggml.so is not built in the root")
model = os.path.join(models, a.model + ".gguf")
VK = {"GGML_VK_VISIBLE_DEVICES": "0"}


def env(mode, profile=None):
    e = dict(os.environ, **VK)
    e.pop("GGML_PROFILE", None)
    e.pop("LD_PRELOAD", None)
    if mode == "capture":
        e["LD_PRELOAD"] = lib
        e["GGML_PROFILE"] = profile or "/tmp/opscope-vk-bench.json"
    elif mode == "perf_logger":
        e["GGML_VK_PERF_LOGGER"] = "1"
    elif mode == "markers":
        e["GGML_VK_DEBUG_MARKERS"] = "1"  # what the capture turns on in ggml-vulkan, alone
    return e


if a.what == "overhead":
    cmd = ["llama-bench", "-m", model, "-p", "0", "-n", str(a.n_gen), "-ngl", "99", "-t", "2", "-r", "3", "-o", "json"]
    modes = ["plain", "capture", "serialized", "perf_logger", "markers"]
    tps, cpu, csw = collections.defaultdict(list), collections.defaultdict(list), collections.defaultdict(list)
    subprocess.run(cmd, env=env("plain"), capture_output=True)  # warm-up: pipeline compilation
    tokens = a.n_gen * 4  # llama-bench's warm-up run and 3 repetitions
    for i in range(a.pairs):
        order = modes[i % len(modes):] + modes[:i % len(modes)]
        for m in order:
            e = env("capture" if m == "serialized" else m)
            if m == "serialized":
                e["OPSCOPE_VK_SERIALIZE"] = "1"
            r0 = resource.getrusage(resource.RUSAGE_CHILDREN)
            r = subprocess.run(cmd, env=e, capture_output=True, text=True, errors="replace")
            r1 = resource.getrusage(resource.RUSAGE_CHILDREN)
            t = json.loads(r.stdout)[0]["avg_ts"] if r.returncode == 0 else float("nan")
            c = (r1.ru_utime + r1.ru_stime - r0.ru_utime - r0.ru_stime) * 1e3 / tokens
            v = (r1.ru_nvcsw - r0.ru_nvcsw) / tokens
            tps[m].append(t)
            cpu[m].append(c)
            csw[m].append(v)
            print(f"round {i + 1} {m:12s} {t:8.2f} tokens/s  cpu {c:6.2f} ms/token  "
                  f"voluntary switches {v:6.1f}/token", flush=True)
    med = {m: statistics.median(v) for m, v in tps.items()}
    for m in modes:
        per_round = statistics.median(x / p for x, p in zip(tps[m], tps["plain"]))
        print(f"median {m:12s} {med[m]:8.2f} tokens/s  ({med[m] / med['plain'] * 100:.1f}% of plain; "
              f"per round {per_round * 100:.1f}%)  cpu {statistics.median(cpu[m]):6.2f} ms/token  "
              f"voluntary switches {statistics.median(csw[m]):6.1f}/token")
    sys.exit(0)


# ---- accuracy ----
cmd = ["llama-completion", "-m", model, "-p", "Hello world", "-n", str(a.n_gen), "--temp", "0", "-t", "2",
       "-ngl", "99", "--ignore-eos", "-no-cnv", "--no-warmup"]
prof = "/tmp/opscope-vk-accuracy.json"
subprocess.run(cmd, env=env("plain"), capture_output=True)  # warm-up: pipeline compilation


def capture_run(with_logger=False, serialize=False):
    e = env("capture", prof)
    if serialize:
        e["OPSCOPE_VK_SERIALIZE"] = "1"
    if with_logger:
        e["GGML_VK_PERF_LOGGER"] = "1"
    r = subprocess.run(cmd, env=e, capture_output=True, text=True, errors="replace")
    p = json.load(open(prof))
    ids = {b["id"] for b in p["backends"] if b["name"].startswith("Vulkan")}
    graphs = collections.defaultdict(lambda: collections.Counter())
    for rec in p["records"]:
        if rec["type"] == 0 and rec["backend_id"] in ids and "graph_id" in rec:
            graphs[(rec["graph_id"], rec["split_id"])][rec.get("extra") or rec["name"]] += rec["duration_ns"] / 1000.0
    ours = [graphs[k] for k in sorted(graphs)][1:]  # decode graphs
    return (ours, logger_blocks(r.stderr)) if with_logger else ours


def logger_blocks(text):
    return [collections.Counter({n: us for n, (_c, us) in b.items()}) for b in e2e.perf_logger_blocks(text)][1:]


def perf_run():
    r = subprocess.run(cmd, env=env("perf_logger"), capture_output=True, text=True, errors="replace")
    return logger_blocks(r.stderr)


# Runs alternate (capture, perf logger, perf logger, capture, ...), so that a change of load
# touches both sides; the perf logger's runs are also split in two halves to show its own spread.
ours, theirs, again, ser = [], [], [], []
for i in range(a.pairs):
    first, second = (capture_run, perf_run) if i % 2 == 0 else (perf_run, capture_run)
    for f in (first, second):
        blocks = f()
        if f is capture_run:
            ours += blocks
        else:
            (theirs if i % 2 == 0 else again).extend(blocks)
    ser += capture_run(serialize=True)
    print(f"round {i + 1}: load {open('/proc/loadavg').read().split()[0]}", flush=True)
both = theirs + again
if not again:
    again = theirs
# One more run with both in one process: the perf logger's serialisation (a timestamp and a
# barrier after every node) is then the same for both, so what differs is only where each
# puts a node's boundaries.
same_ours, same_theirs = capture_run(with_logger=True)


def medians(blocks):
    names = set().union(*blocks) if blocks else set()
    m = {n: statistics.median(b.get(n, 0.0) for b in blocks) for n in names}
    m["(total)"] = statistics.median(sum(b.values()) for b in blocks)
    return m


mo, mt, m1, m2 = medians(ours), medians(both), medians(theirs), medians(again)
so, st = medians(same_ours), medians(same_theirs)
ms = medians(ser)
print(f"decode graphs: capture {len(ours)}, GGML_VK_PERF_LOGGER {len(both)} ({a.pairs} runs each), "
      f"both in one run {len(same_ours)}/{len(same_theirs)}")
print(f"{'group':34s} {'capture us':>11s} {'perf_logger':>11s} {'ratio':>6s}   {'logger odd/even runs':>20s}"
      f"   {'both in one run':>15s}   {'serialized us':>13s} {'ratio':>6s}")
worst = worst_ser = 0.0
for n in sorted(set(mo) | set(mt), key=lambda n: -mt.get(n, 0)):
    o, t = mo.get(n, 0.0), mt.get(n, 0.0)
    ratio = o / t if t else float("inf")
    if n != "(total)":
        worst = max(worst, abs(ratio - 1))
    g = m2.get(n, 0.0) / m1[n] if m1.get(n) else 0.0
    same = so.get(n, 0.0) / st[n] if st.get(n) else 0.0
    sr = ms.get(n, 0.0) / t if t else 0.0
    if n != "(total)":
        worst_ser = max(worst_ser, abs(sr - 1))
    print(f"{n:34s} {o:11.1f} {t:11.1f} {ratio:6.3f}   {g:20.3f}   {same:15.3f}   {ms.get(n, 0.0):13.1f} {sr:6.3f}")
print(f"worst per-name deviation {worst * 100:.1f}%, total {abs(mo['(total)'] / mt['(total)'] - 1) * 100:.1f}% "
      f"(bar: 15%)")
print(f"with OPSCOPE_VK_SERIALIZE=1: worst per-name deviation {worst_ser * 100:.1f}%, "
      f"total {abs(ms['(total)'] / mt['(total)'] - 1) * 100:.1f}%")
