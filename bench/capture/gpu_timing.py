#!/usr/bin/env python3
"""Sampled vs full device timing on lavapipe (inside the forky root: bench/capture/run-gpu-timing.sh).

ROUNDS rounds of `llama-bench -m MODEL -p 0 -n N -ngl 99 -t 2 -r 3 -o json`, each round running
four configurations in rotating order: plain; under the capture by default (sampled device
timing); under the capture with OPSCOPE_GPU_TIMING=all (every compute timed); with ggml-vulkan's
GGML_VK_PERF_LOGGER=1. Prints every run, then per configuration the median tokens/s, its ratio
to plain and the median of the per-round ratios (bar: the default keeps >= 90% of plain).
From the profiles of the capture runs (the same runs): per op name (fused name or op) the
median over the device-timed Vulkan computes of its time per compute, each weighted by the
computes it stands for (its weight; 1 under all), default vs all (bar:
within 10%); the Vulkan graph computes counted in each (bar: equal; device-timed or not); and
the estimated total per name (sum of duration x weight) against the all-mode total.
usage: gpu_timing.py [--model NAME] [--rounds N] [--n-gen N]
"""
import argparse
import collections
import json
import os
import statistics
import subprocess
import sys

ap = argparse.ArgumentParser()
ap.add_argument("--model", default="tiny-dense-f32")
ap.add_argument("--rounds", type=int, default=6)
ap.add_argument("--n-gen", type=int, default=32)
ap.add_argument("--modes", default="plain,default,all,perf_logger",
                help="of plain, default, rare (default with N at its longest), all, all_group (all with "
                     "OPSCOPE_VK_GROUP=1), all_unshared (all with OPSCOPE_VK_SHARE_BOUNDS=0), perf_logger")
ap.add_argument("--keep", default="", help="a folder: keep each capture run's profile there (MODE-ROUND.json)")
a = ap.parse_args()
models = os.environ.get("OPSCOPE_MODELS", "/models")
lib = os.environ.get("OPSCOPE_PRELOAD", "")
if not lib:
    sys.exit("gpu_timing: libopscope-ggml.so is not built in the root")
model = os.path.join(models, a.model + ".gguf")
MODES = a.modes.split(",")


def env(mode, profile):
    e = dict(os.environ, GGML_VK_VISIBLE_DEVICES="0")
    for k in ("GGML_PROFILE", "LD_PRELOAD", "OPSCOPE_GPU_TIMING"):
        e.pop(k, None)
    if mode in ("default", "rare", "all", "all_group", "all_unshared"):
        e["LD_PRELOAD"] = lib
        e["GGML_PROFILE"] = profile
        if mode == "rare":
            e["OPSCOPE_GPU_BUDGET"] = "0.001"  # N at its longest: the untimed path's own cost
        elif mode != "default":
            e["OPSCOPE_GPU_TIMING"] = "all"
        if mode == "all_group":
            e["OPSCOPE_VK_GROUP"] = "1"
        if mode == "all_unshared":  # every item its own start timestamp (lavapipe shares them)
            e["OPSCOPE_VK_SHARE_BOUNDS"] = "0"
    elif mode == "perf_logger":
        e["GGML_VK_PERF_LOGGER"] = "1"
    return e


def computes(path):
    """Per Vulkan graph compute (graph, split): {name: device ns}, the set of all computes, and
    the estimated total per name (duration x weight)."""
    p = json.load(open(path))
    ids = {b["id"] for b in p["backends"] if b["name"].startswith("Vulkan")}
    timed = collections.defaultdict(collections.Counter)
    weight = {}
    every, est = set(), collections.Counter()
    for r in p["records"]:
        if r["type"] != 0 or r["backend_id"] not in ids or "graph_id" not in r:
            continue
        k = (r["graph_id"], r["split_id"])
        every.add(k)
        if r.get("time_source", "").startswith("device"):
            n = r.get("extra") or r["name"]
            timed[k][n] += r["duration_ns"]
            weight[k] = r.get("weight", 1)
            est[n] += r["duration_ns"] * r.get("weight", 1)
    return timed, every, est, weight


def wmedian(pairs):
    """The median of (value, weight) pairs: each timed compute stands for WEIGHT computes (its
    own and the untimed ones before it), so the first computes of a graph, timed whatever N
    is, count once each and not as a third of the samples."""
    pairs = sorted(pairs)
    half, acc = sum(w for _, w in pairs) / 2, 0
    for v, w in pairs:
        acc += w
        if acc >= half:
            return v
    return float("nan")


cmd = ["llama-bench", "-m", model, "-p", "0", "-n", str(a.n_gen), "-ngl", "99", "-t", "2", "-r", "3", "-o", "json"]
subprocess.run(cmd, env=env("plain", None), capture_output=True)  # warm-up: pipeline compilation
tps = collections.defaultdict(list)
CAP = [m for m in MODES if m in ("default", "rare", "all", "all_group", "all_unshared")]
per = {m: collections.defaultdict(list) for m in CAP}
counts = {m: [] for m in CAP}
timed_counts = {m: [] for m in CAP}
ests = {m: collections.Counter() for m in CAP}
round_med = {m: collections.defaultdict(dict) for m in CAP}  # mode -> name -> round -> median


def paired(a, b, n):
    """The median over rounds of A's per-compute median over B's, per round: both ran within
    minutes of each other, so a load that changes between rounds cancels (the machine is
    shared); None when no round has both."""
    r = [round_med[a][n][i] / round_med[b][n][i] for i in round_med[a][n] if round_med[b][n].get(i)]
    return statistics.median(r) if r else float("nan")
for i in range(a.rounds):
    order = MODES[i % len(MODES):] + MODES[:i % len(MODES)]
    for m in order:
        prof = os.path.join(a.keep, f"{m}-{i + 1}.json") if a.keep else f"/tmp/opscope-gpu-timing-{m}.json"
        r = subprocess.run(cmd, env=env(m, prof), capture_output=True, text=True, errors="replace")
        t = json.loads(r.stdout)[0]["avg_ts"] if r.returncode == 0 else float("nan")
        tps[m].append(t)
        extra = ""
        if m in per:
            timed, every, est, weight = computes(prof)
            here = collections.defaultdict(list)
            for k, g in timed.items():
                for n, ns in g.items():
                    per[m][n].append((ns, weight[k]))
                    here[n].append((ns, weight[k]))
            for n, v in here.items():
                round_med[m][n][i] = wmedian(v)
            counts[m].append(len(every))
            timed_counts[m].append(len(timed))
            ests[m].update(est)
            extra = f"  Vulkan computes {len(every)}, device-timed {len(timed)}"
        print(f"round {i + 1} {m:12s} {t:8.2f} tokens/s{extra}", flush=True)
med = {m: statistics.median(v) for m, v in tps.items()}
print()
for m in MODES:
    if "plain" not in tps:
        print(f"median {m:12s} {med[m]:8.2f} tokens/s")
        continue
    pr = statistics.median(x / p for x, p in zip(tps[m], tps["plain"]))
    print(f"median {m:12s} {med[m]:8.2f} tokens/s  ({med[m] / med['plain'] * 100:.1f}% of plain; per round {pr * 100:.1f}%)")
for m in CAP:
    print(f"Vulkan graph computes per run, {m}: {counts[m]}; device-timed {timed_counts[m]}")
if "default" in CAP and "all" in CAP:
    print(f"graph computes {'equal' if counts['default'] == counts['all'] else 'DIFFERENT'} in default and all")
    print(f"\n{'op (per compute)':34s} {'default us':>10s} {'all us':>10s} {'ratio':>6s} {'paired':>6s}   "
          f"{'est. total ms':>13s} {'all total ms':>12s} {'ratio':>6s}")
    worst = worst_p = 0.0
    names = set(per["all"]) | set(per["default"])  # every op name of either mode
    for n in sorted(names, key=lambda n: -wmedian(per["all"][n]) if per["all"].get(n) else 0):
        d = wmedian(per["default"][n]) / 1e3 if per["default"].get(n) else float("nan")
        f = wmedian(per["all"][n]) / 1e3 if per["all"].get(n) else float("nan")
        ratio, pr = d / f if f else float("nan"), paired("default", "all", n)
        worst = max(worst, abs(ratio - 1)) if ratio == ratio else float("inf")
        worst_p = max(worst_p, abs(pr - 1)) if pr == pr else float("inf")
        e, t = ests["default"][n] / 1e6, ests["all"][n] / 1e6
        print(f"{n:34s} {d:10.1f} {f:10.1f} {ratio:6.3f} {pr:6.3f}   {e:13.2f} {t:12.2f} {e / t if t else 0:6.3f}")
    print(f"worst per-name deviation of the per-compute medians {worst * 100:.1f}%, of the per-round paired "
          f"ratios {worst_p * 100:.1f}% (bar: 10%; a name missing from a mode counts as infinite)")
for other in ("all_group", "all_unshared"):
    if other not in CAP or "all" not in CAP:
        continue
    print(f"\n{'op (per compute)':34s} {'all us':>10s} {other + ' us':>16s} {'ratio':>6s} {'paired':>6s}")
    for n in sorted(per["all"], key=lambda n: -wmedian(per["all"][n])):
        f = wmedian(per["all"][n]) / 1e3
        g = wmedian(per[other][n]) / 1e3 if per[other].get(n) else float("nan")
        print(f"{n:34s} {f:10.1f} {g:16.1f} {g / f if f else float('nan'):6.3f} {paired(other, 'all', n):6.3f}")
