#!/usr/bin/env python3
"""Capture accuracy: per-call MUL_MAT time from the capture vs `test-backend-ops perf` (tbo) for the
same shapes and types (bar: within 25%).

Runs inside the forky root (bench/capture/run.sh does that). For each model, the MUL_MAT shapes of
its decode graphs (from test-export-graph-ops; plus --shape ones) are measured four ways:

  tbo       `test-backend-ops perf -o MUL_MAT -b CPU --test-file` without the capture: its us/run.
            Its graph repeats ONE node thousands of times, so weights that fit in a core's L2
            (2 MiB here) are read from L2 every call.
  in tbo    tbo again, under the capture: the median captured duration of the shape's calls.
            "ratio": that median / the us/run tbo printed in the same run (the median of the
            per-round ratios): same program, kernel, threads, cache state and load as the
            reference, so it is the capture's own error: the bar. "mean": the captured mean /
            that us/run, which should be about 1 whatever the load (both are time / calls, less
            the record building tbo's timing holds); tbo's us/run is a mean, so calls slowed by
            other work on the machine raise it above the captured median.
  in model  llama-bench decode (-p 0 -n 32, --repack 0) under the capture: the median captured
            duration per shape. --repack 0 keeps the weights in the plain CPU buffer, as tbo does;
            by default llama.cpp moves quantized weights into the AMX / repack buffers, whose
            kernels are different code (tiny q8_0 on this AMX CPU: 1.6-2.1x faster), not what tbo
            times.
  cold      mulmat_cold (bench/capture/mulmat_cold.c): the same shape with one distinct weight per
            call and as many weights as the model file holds, so each weight comes from beyond L2
            as in a decode; per-call time = compute wall / calls, tbo's accounting, of the fastest
            compute in a second of them (on this shared 2-core machine a compute during which
            another process holds a core is up to 1000x slower: every barrier waits for a time
            slice). The reference for in-model calls whose weights tbo keeps in L2.

Each figure is the median over --runs rounds of all four. All on the same thread count (tbo
always uses every core: --threads defaults to that). Exit status 3 when the bar is missed.
usage: accuracy.py [--models NAME,...] [--threads N] [--runs N] [--shape TYPE:M:N:K ...] [--no-model]
"""
import argparse
import collections
import json
import os
import re
import shutil
import statistics
import subprocess
import sys
import tempfile

ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
ap.add_argument("--models", default="bench-100m-f32,tiny-dense-q8_0")
ap.add_argument("--threads", type=int, default=os.cpu_count() or 2)
ap.add_argument("--runs", type=int, default=3, help="rounds of every measurement (figures: medians over them)")
ap.add_argument("--shape", action="append", default=[],
                help="extra shape TYPE:M:N:K (weights M x K, activation K x N), measured in tbo only")
ap.add_argument("--no-model", action="store_true", help="skip the llama-bench and cold columns")
a = ap.parse_args()
models = os.environ.get("OPSCOPE_MODELS", "/models")
lib = os.environ.get("OPSCOPE_PRELOAD", "")
build = os.environ.get("OPSCOPE_BUILD", "")
if not lib:
    sys.exit("accuracy: libopscope-ggml.so is not built in the root")
if a.threads != (os.cpu_count() or 2):
    print(f"note: test-backend-ops always uses {os.cpu_count()} threads; --threads {a.threads} only "
          "changes the llama-bench and cold columns", file=sys.stderr)
here = os.path.dirname(os.path.abspath(__file__))
tmp = tempfile.mkdtemp(prefix="opscope-acc-")
TYPE = {0: "f32", 1: "f16", 2: "q4_0", 8: "q8_0"}
TYPE_ID = {v: k for k, v in TYPE.items()}
BLOCK = {"f32": (1, 4), "f16": (1, 2), "q4_0": (32, 18), "q8_0": (32, 34)}  # elements, bytes per block
# test-backend-ops prints a test-file case as
#   MUL_MAT(name=N,type=f32,ne=[m,n,1,1],op_params=[],sources=q8_0[k,m,1,1],f32[k,n,1,1]): R runs - X us/run
LINE = re.compile(r"MUL_MAT\(name=[^,]*,type=\w+,ne=\[[\d,]+\],op_params=\[[^\]]*\],"
                  r"sources=(\w+)\[(\d+),(\d+),\d+,\d+\],\w+\[(\d+),(\d+),\d+,\d+\]\):\s+(\d+) runs - +([\d.]+) us/run")


def sh(cmd, env=None, cwd=None):
    r = subprocess.run(cmd, env=env, cwd=cwd, capture_output=True, text=True, errors="replace",
                       stdin=subprocess.DEVNULL)
    if r.returncode != 0:
        sys.exit(f"accuracy: {cmd[0]} failed ({r.returncode}): {r.stderr[-600:]}")
    return r.stdout + r.stderr


def tool(name, src, libs):
    """A helper program: the root build's target if there is one, else compiled here."""
    for root, _dirs, files in os.walk(build or "/nonexistent"):
        if name in files and os.access(os.path.join(root, name), os.X_OK):
            return os.path.join(root, name)
    out = os.path.join(tmp, name)
    sh(["gcc", "-std=c11", "-O2", "-Wall", "-Wextra", "-Werror", os.path.join(here, src), "-o", out] + libs)
    return out


def test_line(t, m, n, k, name):
    """One MUL_MAT case in test-export-graph-ops' format (op, type, ne, op params, sources, name)."""
    be, bb = BLOCK[t]
    row = k // be * bb
    src0 = f"{TYPE_ID[t]} {k} {m} 1 1 {bb} {row} {row * m} {row * m}"
    src1 = f"0 {k} {n} 1 1 4 {4 * k} {4 * k * n} {4 * k * n}"
    return f"29 0 {m} {n} 1 1 16 {' '.join(['0'] * 16)} 2 {src0} {src1} {name}\n"


def captured(path):
    """Median captured duration (us) per (type, m, n, k) of the CPU MUL_MAT records in a profile,
    and the shapes that were the last node of a graph. Streams the file: opscope writes one record
    per line, then "total_records" and a summary."""
    calls, last = collections.defaultdict(list), {}
    with open(path) as f:
        for ln in f:
            if ln.startswith('"total_records"'):
                break  # the records array is over (a summary follows)
            if not ln.startswith('{"type":0,'):
                continue
            r = json.loads(ln[:ln.rindex("}") + 1])
            if r.get("extra") or r["name"] != "MUL_MAT" or len(r.get("ne_src", ())) < 2:
                last[(r["graph_id"], r["split_id"])] = None
                continue
            s0, s1 = r["ne_src"][0], r["ne_src"][1]
            key = (TYPE.get(r["type_src"][0], str(r["type_src"][0])), s0[1], s1[1], s0[0])
            calls[key].append(r["duration_ns"] / 1000.0)
            last[(r["graph_id"], r["split_id"])] = key
    lasts = collections.Counter(v for v in last.values() if v)
    return ({k: statistics.median(v) for k, v in calls.items()}, {k: len(v) for k, v in calls.items()}, lasts,
            {k: statistics.fmean(v) for k, v in calls.items()})


def measure(d, model_path):
    """--runs rounds, each: tbo without the capture, tbo under it, and for a model llama-bench
    decode under it and mulmat_cold per shape. Every figure is the median over the rounds, so a
    round disturbed by other work on the machine moves no figure on its own."""
    fig = collections.defaultdict(lambda: collections.defaultdict(list))
    n_calls, lasts = collections.Counter(), collections.Counter()
    tbo = ["test-backend-ops", "perf", "-o", "MUL_MAT", "-b", "CPU", "--test-file", "tests.txt"]
    for i in range(a.runs):
        for ta, k, mm, _k1, n, _runs, us in LINE.findall(sh(tbo, cwd=d)):
            fig["tbo"][(ta, int(mm), int(n), int(k))].append(float(us))
        prof = os.path.join(d, "tbo.json")
        own = {(ta, int(mm), int(n), int(k)): float(us)
               for ta, k, mm, _k1, n, _runs, us in LINE.findall(sh(tbo, env=dict(env_on, GGML_PROFILE=prof), cwd=d))}
        med, _n, _last, mean = captured(prof)
        for key, v in med.items():
            fig["in_tbo"][key].append(v)
            if key in own:  # against the us/run tbo printed in the same run: no drift between runs
                fig["ratio"][key].append(v / own[key])
                fig["ratio_mean"][key].append(mean[key] / own[key])
        os.unlink(prof)
        if not model_path or a.no_model:
            continue
        prof = os.path.join(d, "model.json")
        sh(["llama-bench", "-m", model_path, "-p", "0", "-n", "32", "-t", str(a.threads), "-r", "3", "--repack", "0"],
           env=dict(env_on, GGML_PROFILE=prof))
        med, n, last, _mean = captured(prof)
        os.unlink(prof)
        n_calls.update(n)
        lasts.update(last)
        mib = os.path.getsize(model_path) / 1048576.0
        for key, v in med.items():
            fig["model"][key].append(v)
            if key in fig["tbo"]:
                t, mm, nn, k = key
                out = sh([cold_exe, t, str(mm), str(k), str(nn), str(a.threads), f"{mib:.0f}", "7"])
                fig["cold"][key].append(float(re.search(r"min=([\d.]+)", out).group(1)))
    return {col: {k: statistics.median(v) for k, v in d2.items()} for col, d2 in fig.items()}, n_calls, lasts


load0 = " ".join(open("/proc/loadavg").read().split()[:3])
env_on = dict(os.environ, LD_PRELOAD=lib, OPSCOPE_MAX_MB="4096")
env_on.pop("GGML_PROFILE", None)
load_all = os.path.join(tmp, "load_all.so")
sh(["gcc", "-O2", "-shared", "-fPIC", os.path.join(here, "load_all.c"), "-o", load_all, "-lggml"])
cold_exe = None if a.no_model else tool("mulmat_cold", "mulmat_cold.c", ["-lggml", "-lggml-base"])
rows, worst = [], 0.0
sets = [(name, os.path.join(models, name + ".gguf")) for name in a.models.split(",") if name]
if a.shape:
    sets.append(("(--shape)", None))
for name, m in sets:
    d = os.path.join(tmp, re.sub(r"\W", "_", name))
    os.makedirs(d)
    if m:
        sh(["test-export-graph-ops", "-m", m, "-t", str(a.threads)], env=dict(os.environ, LD_PRELOAD=load_all), cwd=d)
        # the decode MUL_MATs (output ne[1] == 1): the model side below runs decode only
        with open(os.path.join(d, "tests.txt")) as f:
            lines = [ln for ln in f if len(ln.split()) > 3 and ln.split()[3] == "1"]
    else:
        lines = []
        for s in a.shape:
            t, mm, n, k = s.split(":")
            lines.append(test_line(t, int(mm), int(n), int(k), f"shape{len(lines)}"))
    with open(os.path.join(d, "tests.txt"), "w") as f:
        f.writelines(lines)
    fig, n_calls, lasts = measure(d, m)
    ref, in_tbo, model, cold = (fig.get(c, {}) for c in ("tbo", "in_tbo", "model", "cold"))
    for key in sorted(ref):
        r_tbo = fig.get("ratio", {}).get(key)
        if r_tbo is not None:
            worst = max(worst, abs(r_tbo - 1))
        r_mean = fig.get("ratio_mean", {}).get(key)
        rows.append((name, key, ref[key], in_tbo.get(key), r_tbo, r_mean, model.get(key), n_calls.get(key, 0),
                     cold.get(key), "last" if lasts.get(key) else ""))


def f(x, spec):
    return format(x, spec) if x is not None else "-".rjust(int(spec.split(".")[0]))


print(f"{'model':16} {'type':5} {'m':>5} {'n':>2} {'k':>5} | {'tbo us':>8} {'in tbo':>8} {'ratio':>6} {'mean':>5} | "
      f"{'in model':>8} {'calls':>5} {'/tbo':>5} {'cold us':>8} {'/cold':>5}")
for name, (t, mm, n, k), tb, it, rt, rm, md, nc, cd, last in rows:
    print(f"{name:16} {t:5} {mm:5} {n:2} {k:5} | {tb:8.2f} {f(it, '8.2f')} {f(rt, '6.3f')} {f(rm, '5.2f')} | "
          f"{f(md, '8.2f')} {nc:5} {f(md / tb if md else None, '5.2f')} {f(cd, '8.2f')} "
          f"{f(md / cd if md and cd else None, '5.2f')} {last}")
shutil.rmtree(tmp, ignore_errors=True)
print(f"threads {a.threads}, rounds {a.runs}; capture in tbo vs tbo: worst deviation {worst * 100:.1f}% "
      f"(bar: 25%) over {sum(1 for r in rows if r[4] is not None)} shapes; load average before/after: "
      f"{load0} / {' '.join(open('/proc/loadavg').read().split()[:3])}")
if worst > 0.25 and any(r[5] is not None and abs(r[5] - 1) < 0.05 for r in rows):
    print("note: captured means match test-backend-ops (column mean) where the medians do not: calls slowed "
          "by other load on the machine raise tbo's us/run (a mean); measure on an idle machine")
sys.exit(0 if worst <= 0.25 else 3)
