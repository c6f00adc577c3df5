#!/usr/bin/env python3
"""`opscope diff`'s Trace ops section (docs/diff.md, "Trace ops by step": count and summed time
per name over chosen profiler steps, CPU side and GPU side) against this script's own reading
of the traces and against Holistic Trace Analysis' TraceDiff.compare_traces on the same files.

The reference, HTA's rules (hta/common/trace.py add_iteration): a CPU event (cpu_op,
user_annotation, python_function, cuda_runtime/driver) is in step ProfilerStep#N when the
step's [ts, ts + dur) holds its ts; a GPU activity (kernel, gpu_memcpy, gpu_memset) is in the
step of the runtime call with its correlation id. Per name: count and summed dur.

Cases: HTA's trace-diff pair cut to its first step (data/kineto/hta_*_step1, A100 against
V100); a two-step trace made here from it (the step and a copy shifted after it, renamed
ProfilerStep#1010, correlation ids offset) with --steps 1010, 1009-1010 and 1010-; a --steps
that chooses no step (exit 2, the steps the trace has named); --steps on ggml profiles
(exit 2). Standard library only.

usage: check_trace_ops.py OPSCOPE DATA_DIR WORK_DIR
"""
import copy
import gzip
import json
import os
import re
import subprocess
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))
from checklist import check, failures  # noqa: E402
from json_ref import load_json, us_to_ns as ns  # noqa: E402

CPU = {"cpu_op", "user_annotation", "python_function", "cuda_runtime", "cuda_driver"}
GPU = {"kernel", "gpu_memcpy", "gpu_memset"}
STEP = re.compile(r"ProfilerStep\s*#\s*(\d+)")

# HTA 0.5 (HTA_DISABLE_NS_ROUNDING=1) on data/kineto/hta_a100_step1 (control) and
# hta_v100_step1 (test), TraceDiff.compare_traces with the default (first) iteration, 1009:
# names, counts_change_categories value counts, summed counts and durations (us) per side.
HTA_CPU = (231, {"-": 128, "=": 78, "+": 25}, (10526, 8684), (343188, 522227))
HTA_GPU = (201, {"=": 84, "-": 75, "+": 42}, (1575, 2503), (68591, 150930))
HTA_ROWS = {"cudaMemcpyAsync": (38, 10190, 802, 40994), "cudaLaunchKernel": (1428, 9391, 811, 6446),
            "aten::mm": (182, 6322, 46, 2182), "ProfilerStep#1009": (1, 75473, 1, 100298)}
# On the full traces (HTA's tests/data/trace_diff, 6 steps; not shipped: 3.3 MB), all steps:
# cudaMemcpyAsync 228 -> 4,812 calls, opscope equal on every CPU and GPU row (docs/diff.md).


def events(path):
    d = load_json(path)
    return d["traceEvents"] if isinstance(d, dict) else d


def reference(evs, chosen=None):
    """{'cpu': {name: [count, ns]}, 'gpu': ...} over the steps CHOSEN (None: every step)."""
    steps = []
    for e in evs:
        m = STEP.match(str(e.get("name", ""))) if e.get("cat") == "user_annotation" else None
        if m and e.get("ph") == "X":
            steps.append((ns(e["ts"]), ns(e["ts"]) + ns(e.get("dur", 0)), int(m.group(1))))

    def step_of(ts):
        hit = [n for a, b, n in steps if a <= ts < b]
        return hit[-1] if hit else None

    def keep(ts):
        if not steps:
            return True
        n = step_of(ts)
        return n is not None and (chosen is None or n in chosen)

    launch = {}
    for e in evs:
        if e.get("ph") == "X" and e.get("cat") in ("cuda_runtime", "cuda_driver"):
            c = (e.get("args") or {}).get("correlation")
            if c is not None and int(c) not in launch:
                launch[int(c)] = ns(e["ts"])
    out = {"cpu": {}, "gpu": {}}
    for e in evs:
        if e.get("ph") != "X":
            continue
        cat = e.get("cat")
        side = "cpu" if cat in CPU else "gpu" if cat in GPU else None
        if not side:
            continue
        if side == "cpu":
            at = ns(e["ts"])
        else:
            c = (e.get("args") or {}).get("correlation")
            at = launch.get(int(c)) if c is not None else None
            if at is None and steps:
                continue
        if not keep(at):
            continue
        r = out[side].setdefault(e["name"], [0, 0])
        r[0] += 1
        r[1] += max(ns(e.get("dur", 0)), 0)
    return out


def diff(opscope, a, b, work, *extra):
    out = os.path.join(work, "to.json")
    p = subprocess.run([opscope, "diff", a, b, "-q", "--json", out, *extra], capture_output=True, text=True)
    check(p.returncode == 0, f"diff {extra}: exit {p.returncode} {p.stderr.strip()}")
    with open(out) as f:
        return json.load(f)["trace_ops"]


def compare(got, ref_a, ref_b, what):
    for side in ("cpu", "gpu"):
        mine = {r["name"]: (r["base_count"], r["base_ns"], r["new_count"], r["new_ns"]) for r in got[side]}
        want = {}
        for n in set(ref_a[side]) | set(ref_b[side]):
            a, b = ref_a[side].get(n, [0, 0]), ref_b[side].get(n, [0, 0])
            want[n] = (a[0], a[1], b[0], b[1])
        bad = [n for n in set(mine) | set(want) if mine.get(n) != want.get(n)]
        check(not bad, f"{what} {side}: {len(bad)} names differ, e.g. {[(n, mine.get(n), want.get(n)) for n in bad[:2]]}")
        deltas = [abs(r["new_ns"] - r["base_ns"]) for r in got[side]]
        check(deltas == sorted(deltas, reverse=True), f"{what} {side}: rows by |delta|")


def hta_figures(got):
    for side, (n, cats, counts, durs) in (("cpu", HTA_CPU), ("gpu", HTA_GPU)):
        rows = got[side]
        c = {"+": 0, "-": 0, "=": 0}
        for r in rows:
            c["+" if r["new_count"] > r["base_count"] else "-" if r["new_count"] < r["base_count"] else "="] += 1
        c = {k: v for k, v in c.items() if v}
        check(len(rows) == n and c == cats, f"HTA {side}: {len(rows)} names {c} (HTA {n} {cats})")
        check((sum(r["base_count"] for r in rows), sum(r["new_count"] for r in rows)) == counts, f"HTA {side} counts")
        check((sum(r["base_ns"] for r in rows), sum(r["new_ns"] for r in rows)) == tuple(1000 * d for d in durs),
              f"HTA {side} durations")
    cpu = {r["name"]: (r["base_count"], r["base_ns"], r["new_count"], r["new_ns"]) for r in got["cpu"]}
    for n, (bc, bd, nc, nd) in HTA_ROWS.items():
        check(cpu.get(n) == (bc, 1000 * bd, nc, 1000 * nd), f"HTA row {n}: {cpu.get(n)}")


def two_steps(src, dst):
    """SRC's events and a copy of its ProfilerStep#1009 window shifted after it (ids offset)."""
    with gzip.open(src, "rt") as f:
        d = json.load(f)
    evs = d["traceEvents"]
    step = next(e for e in evs if str(e.get("name", "")).startswith("ProfilerStep#"))
    shift = step["dur"] + 1000
    extra = []
    for e in evs:
        if e.get("ph") not in ("X", "s", "f") or "ts" not in e:
            continue
        x = copy.deepcopy(e)
        x["ts"] = e["ts"] + shift
        if x.get("name") == step["name"]:
            x["name"] = "ProfilerStep#1010"
        for k in ("correlation", "External id"):
            if k in (x.get("args") or {}):
                x["args"][k] += 10 ** 7
        if "id" in x:
            x["id"] += 10 ** 7
        extra.append(x)
    d["traceEvents"] = evs + extra
    with open(dst, "w") as f:
        json.dump(d, f)


def main():
    opscope, data, work = sys.argv[1:4]
    os.makedirs(work, exist_ok=True)
    a = os.path.join(data, "kineto", "hta_a100_step1.json.gz")
    b = os.path.join(data, "kineto", "hta_v100_step1.json.gz")
    ea, eb = events(a), events(b)
    got = diff(opscope, a, b, work)
    check(got["base_steps"] == [1009] and got["new_steps"] == [1009] and not got["steps_chosen"], "steps 1009")
    compare(got, reference(ea), reference(eb), "step1 pair")
    hta_figures(got)
    check(diff(opscope, a, b, work, "--steps", "1009") == dict(got, steps_chosen=True), "--steps 1009: the same")
    # two steps: each alone, both, open range
    a2, b2 = os.path.join(work, "a2.json"), os.path.join(work, "b2.json")
    two_steps(a, a2)
    two_steps(b, b2)
    ea2, eb2 = events(a2), events(b2)
    for arg, chosen in (("1010", {1010}), ("1009-1010", {1009, 1010}), ("1010-", {1010})):
        g = diff(opscope, a2, b2, work, "--steps", arg)
        check(g["base_steps"] == sorted(chosen), f"--steps {arg}: steps {g['base_steps']}")
        compare(g, reference(ea2, chosen), reference(eb2, chosen), f"--steps {arg}")
    one = {r["name"]: r for r in diff(opscope, a2, b2, work, "--steps", "1010")["cpu"]}
    check(one["cudaMemcpyAsync"]["base_count"] == 38 and one["cudaMemcpyAsync"]["new_count"] == 802,
          "the copied step: HTA's 38 -> 802 cudaMemcpyAsync")
    # no step chosen; not traces
    p = subprocess.run([opscope, "diff", a2, b2, "-q", "--steps", "7"], capture_output=True, text=True)
    check(p.returncode == 2 and "ProfilerStep#1009 to #1010, none chosen" in p.stderr, f"--steps 7: {p.stderr.strip()}")
    g1 = os.path.join(data, "ggml", sorted(os.listdir(os.path.join(data, "ggml")))[0])
    p = subprocess.run([opscope, "diff", g1, g1, "-q", "--steps", "1"], capture_output=True, text=True)
    check(p.returncode == 2 and "--steps" in p.stderr, f"--steps on ggml profiles: {p.returncode} {p.stderr.strip()}")
    p = subprocess.run([opscope, "diff", a, b], capture_output=True, text=True)
    check(p.returncode == 0 and "Trace ops by step" in p.stdout and "cudaMemcpyAsync" in p.stdout, "console section")
    print("check_trace_ops: %s" % ("FAILED" if failures else "ok"))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
