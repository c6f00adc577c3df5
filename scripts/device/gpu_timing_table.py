#!/usr/bin/env python3
"""The table of scripts/device/gpu-timing.sh from its work folder W (markdown on stdout):
- decode tokens/s per model and configuration: the median over rounds of llama-bench's tg
  avg_ts (lb_MODEL_CFG_ROUND.json), its ratio to plain, and the median of per-round ratios;
- per op name (fused name or op), the median over the decode graphs of its time per graph:
  --gpu-timing all (acc_all.json) against GGML_VK_PERF_LOGGER (acc_perflog.err), and the
  default (acc_default.json: its device-timed graphs) against all.
usage: gpu_timing_table.py W"""
import collections
import glob
import json
import os
import re
import statistics
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "tests", "capture_e2e"))
import e2e  # noqa: E402  (GGML_VK_PERF_LOGGER's output parser)

w = sys.argv[1]
runs = collections.defaultdict(dict)  # (model, cfg) -> {round: tg}
for p in glob.glob(os.path.join(w, "lb_*.json")):
    mm = re.match(r"lb_(.+)_(plain|default|all|perflog|all_group|all_shared)_(\d+)\.json$", os.path.basename(p))
    if not mm:
        continue
    t = open(p).read()
    i = t.find("[")
    try:
        rows = json.loads(t[i:]) if i >= 0 else []
    except ValueError:
        rows = []
    tg = [r["avg_ts"] for r in rows if r.get("n_gen")]
    if tg:
        runs[(mm.group(1), mm.group(2))][int(mm.group(3))] = tg[0]
print("| model | config | tg tokens/s (median) | of plain | per-round median | rounds |")
print("|---|---|---|---|---|---|")
for model in sorted({m for m, _ in runs}):
    plain = runs.get((model, "plain"), {})
    for cfg in ("plain", "default", "all", "perflog", "all_group", "all_shared"):
        r = runs.get((model, cfg), {})
        if not r:
            continue
        med = statistics.median(r.values())
        pm = statistics.median(plain.values()) if plain else float("nan")
        pr = [r[k] / plain[k] for k in r if k in plain]
        print(f"| {model} | {cfg} | {med:.1f} | {med / pm * 100:.1f}% | "
              f"{statistics.median(pr) * 100 if pr else float('nan'):.1f}% | {len(r)} |")


def decode_graphs(path):
    """Per Vulkan graph compute with device records: {name: us}; the prompt's first left out."""
    if not os.path.exists(path):
        return []
    p = json.load(open(path))
    ids = {b["id"] for b in p["backends"] if b["name"].startswith("Vulkan")}
    g = collections.defaultdict(collections.Counter)
    for r in p["records"]:
        if r["type"] == 0 and r["backend_id"] in ids and "graph_id" in r and \
                r.get("time_source", "").startswith("device"):
            g[(r["graph_id"], r["split_id"])][r.get("extra") or r["name"]] += r["duration_ns"] / 1e3
    return [g[k] for k in sorted(g)][1:]


def medians(blocks):
    names = set().union(*blocks) if blocks else set()
    m = {n: statistics.median(b.get(n, 0.0) for b in blocks) for n in names}
    if blocks:
        m["(total)"] = statistics.median(sum(b.values()) for b in blocks)
    return m


all_g = decode_graphs(os.path.join(w, "acc_all.json"))
def_g = decode_graphs(os.path.join(w, "acc_default.json"))
pl = []
if os.path.exists(os.path.join(w, "acc_perflog.err")):
    pl = [collections.Counter({n: us for n, (_c, us) in b.items()})
          for b in e2e.perf_logger_blocks(open(os.path.join(w, "acc_perflog.err"), errors="replace").read())][1:]
ma, md, mp = medians(all_g), medians(def_g), medians(pl)
print()
print(f"Per op name, median us per decode graph (all: {len(all_g)} graphs, default: {len(def_g)} device-timed, "
      f"perf logger: {len(pl)})")
print()
print("| name | all | perf logger | all / perf logger | default | default / all |")
print("|---|---|---|---|---|---|")
for n in sorted(set(ma) | set(mp), key=lambda n: -mp.get(n, ma.get(n, 0))):
    a, p, d = ma.get(n, 0.0), mp.get(n, 0.0), md.get(n, 0.0)
    print(f"| {n} | {a:.1f} | {p:.1f} | {a / p if p else float('nan'):.3f} | {d:.1f} | {d / a if a else float('nan'):.3f} |")

# The Vulkan bars, one line each (BAR ok / BAR FAIL), from the figures above.
print()


def bar(ok, what):
    print(f"BAR {'ok' if ok else 'FAIL'} {what}")


for model in sorted({m for m, _ in runs}):
    plain, dflt, al, plog = (runs.get((model, c), {}) for c in ("plain", "default", "all", "perflog"))
    med = {k: statistics.median(v.values()) if v else 0.0 for k, v in
           (("plain", plain), ("default", dflt), ("all", al), ("perflog", plog))}
    if med["plain"] and med["default"]:
        r = med["default"] / med["plain"]
        bar(r >= 0.95, f"{model}: default tg {med['default']:.1f} = {r * 100:.1f}% of plain {med['plain']:.1f} (>= 95%)")
    if med["all"] and med["perflog"]:
        r = med["all"] / med["perflog"]
        bar(r >= 0.95, f"{model}: --gpu-timing all tg {med['all']:.1f} = {r * 100:.1f}% of GGML_VK_PERF_LOGGER's "
                       f"{med['perflog']:.1f} (>= 95%: costs no more than the perf logger)")
names = [n for n in ma if n != "(total)" and ma[n] > 0]
if names and def_g:
    off = [(n, round(md.get(n, 0.0) / ma[n], 3)) for n in names if abs(md.get(n, 0.0) / ma[n] - 1) > 0.10]
    bar(not off, f"per op name, default within 10% of all: {len(names) - len(off)} of {len(names)} names"
                 + (f" (outside: {off[:8]})" if off else ""))
else:
    bar(False, "per op name, default within 10% of all: no device-timed decode graphs to compare")
if names and pl:
    off = [n for n in names if not mp.get(n) or abs(ma[n] / mp[n] - 1) > 0.05]
    print(f"info: per op name, all within 5% of the perf logger: {len(names) - len(off)} of {len(names)} names")
