#!/usr/bin/env python3
"""Cost of per-thread timing at ggml's barriers (bar: decode tokens/s with it >= 98% of without).

Runs inside the forky root (bench/capture/run.sh does that). PAIRS pairs of
`opscope record -- llama-bench -m MODEL -p 0 -n 512 -t 2 -r 3 -o json` (512 tokens: at 32, a
run of the tiny model lasts 16 ms and its spread hides any cost), one with per-thread
timing (the default) and one with OPSCOPE_THREADS=0, the order swapped every pair so that drift
in the machine's load hits both sides alike; prints every run, the load average before each,
the medians and their ratio (the bar), and the best of each side (the runs least disturbed by
other load on a shared machine).
usage: threads_cost.py [--model NAME] [--pairs N] [--n-gen N] [--threads N]
"""
import argparse
import json
import os
import statistics
import subprocess
import sys

ap = argparse.ArgumentParser()
ap.add_argument("--model", default="tiny-dense-f32")
ap.add_argument("--pairs", type=int, default=8)
ap.add_argument("--n-gen", type=int, default=512)
ap.add_argument("--threads", type=int, default=2)
ap.add_argument("--reps", type=int, default=3, help="llama-bench -r")
a = ap.parse_args()
opscope = os.environ.get("OPSCOPE_BIN", "")
if not opscope or not os.environ.get("OPSCOPE_PRELOAD"):
    sys.exit("threads_cost: opscope and libopscope-ggml.so are not built in the root")
model = os.path.join(os.environ.get("OPSCOPE_MODELS", "/models"), a.model + ".gguf")
prof = "/tmp/opscope-threads-cost.json"
cmd = [opscope, "record", "-o", prof, "--", "llama-bench", "-m", model, "-p", "0", "-n", str(a.n_gen),
       "-t", str(a.threads), "-r", str(a.reps), "-o", "json"]


def load():
    with open("/proc/loadavg") as f:
        return float(f.read().split()[0])


def run(threads_on):
    env = dict(os.environ)
    env.pop("OPSCOPE_THREADS", None)
    if not threads_on:
        env["OPSCOPE_THREADS"] = "0"
    r = subprocess.run(cmd, env=env, capture_output=True, text=True, errors="replace", stdin=subprocess.DEVNULL)
    if r.returncode != 0:
        sys.exit(f"threads_cost: the run failed ({r.returncode}): {r.stderr[-500:]}")
    return json.loads(r.stdout)[0]["avg_ts"]


print(f"# {' '.join(cmd)}  (with and without OPSCOPE_THREADS=0)", flush=True)
on, off, loads = [], [], []
for i in range(a.pairs):
    for side in ((True, False) if i % 2 == 0 else (False, True)):
        loads.append(load())
        (on if side else off).append(run(side))
        print(f"pair {i + 1} {'threads' if side else 'off    '}: {(on if side else off)[-1]:9.2f} tokens/s"
              f"  (load {loads[-1]:.2f})", flush=True)
ratio = {k: f(on) / f(off) for k, f in (("median", statistics.median), ("best", max))}
print(f"with per-thread timing / OPSCOPE_THREADS=0: median {ratio['median'] * 100:.1f}% (bar: >= 98%; "
      f"{statistics.median(on):.2f} vs {statistics.median(off):.2f} t/s), best {ratio['best'] * 100:.1f}% "
      f"({max(on):.2f} vs {max(off):.2f} t/s); load {min(loads):.2f}-{max(loads):.2f}")
sys.exit(0 if ratio["median"] >= 0.98 else 3)
