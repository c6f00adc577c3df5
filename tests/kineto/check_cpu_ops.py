#!/usr/bin/env python3
"""Checks opscope's CPU-op records against torch's own key_averages() (tests/kineto/torch_cpu.sh).

Usage: check_cpu_ops.py OPSCOPE DIR

DIR holds what torch_traces.py wrote in the forky root: per run NAME.json and NAME.ka.json
(torch's key_averages of the same run), and BASE.ka.json for the older shipped traces
(tests/kineto/traces/BASE.json.gz). For every trace, per CPU op name of key_averages:
count equal, self and inclusive time within 1% or 2 us a call, and no
name on one side only. Then, on the runs: cpu_bound true, the console leads with the CPU
section, JSON phases (backward and optimizer found from CPU ops), and `opscope diff` of two
CPU traces pairs at least 90% of BASE's self time (the JSON's groups present on both sides).
Prints the comparison table, so a run shows how close each name came.
"""
import gzip
import json
import os
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
FAIL = []


def check(cond, msg):
    if not cond:
        FAIL.append(msg)
        print("FAIL:", msg)


def report_json(opscope, trace):
    out = trace + ".opscope.json"
    subprocess.run([opscope, "report", "-q", trace, "--json", out], check=True)
    with open(out) as f:
        return json.load(f)


def compare(opscope, trace, ka_path, label):
    with open(ka_path) as f:
        ka = json.load(f)
    j = report_json(opscope, trace)
    k = j["summary"]["kineto"]
    ours = {g["name"]: g for g in k["cpu_ops"]}
    worst_self = worst_total = 0.0
    for name, t in sorted(ka.items()):
        g = ours.get(name)
        check(g is not None, f"{label}: {name} in key_averages, not in cpu_ops")
        if g is None:
            continue
        check(g["count"] == t["count"], f"{label}: {name} count {g['count']} vs torch {t['count']}")
        for key, tk in (("self_ns", "self_us"), ("total_ns", "total_us")):
            mine, theirs = g[key] / 1000.0, t[tk]
            tol = max(0.01 * abs(theirs), 2.0 * max(t["count"], 1))
            err = abs(mine - theirs)
            check(err <= tol, f"{label}: {name} {key} {mine:.3f} us vs torch {theirs:.3f} us (tolerance {tol:.3f})")
            rel = err / tol if tol else 0.0
            if key == "self_ns":
                worst_self = max(worst_self, rel)
            else:
                worst_total = max(worst_total, rel)
    for name in ours:
        check(name in ka, f"{label}: {name} in cpu_ops, not in key_averages")
    tot_ka = sum(t["self_us"] for t in ka.values())
    print(f"{label:28s} names {len(ka):4d} (opscope {len(ours):4d})  calls {sum(t['count'] for t in ka.values()):6d}"
          f"  self torch {tot_ka / 1000:9.3f} ms opscope {k['cpu_self_ns'] / 1e6:9.3f} ms"
          f"  worst error / tolerance: self {worst_self:.3f} incl {worst_total:.3f}")
    return j


def console_first(opscope, trace):
    out = subprocess.run([opscope, "report", trace], check=True, capture_output=True, text=True).stdout
    lines = out.splitlines()
    first = next((i for i, l in enumerate(lines) if l.startswith("CPU ops by self time")), None)
    check(first is not None and first < 5, f"{trace}: the console does not lead with the CPU section")
    check("Total records" not in out, f"{trace}: the console prints the empty record summary")


def paired_share(opscope, base, new, by):
    out = base + "." + by + ".diff.json"
    subprocess.run([opscope, "diff", base, new, "--by", by, "--json", out, "-q"], check=True)
    with open(out) as f:
        d = json.load(f)
    groups = d["groups"]
    tot = sum(g["base_total_ns"] for g in groups)
    paired = sum(g["base_total_ns"] for g in groups if g["base_count"] and g["new_count"])
    share = paired / tot if tot else 0.0
    print(f"diff {os.path.basename(base)} -> {os.path.basename(new)} --by {by}: {len(groups)} groups,"
          f" BASE self {tot / 1e6:.3f} ms, paired {100 * share:.1f}%")
    check(tot > 0, f"diff --by {by}: BASE has no time")
    check(share >= 0.90, f"diff --by {by}: {100 * share:.1f}% of BASE's self time paired (< 90%)")
    return d


def main():
    opscope, d = sys.argv[1], sys.argv[2]
    runs = ["b8", "b32", "bf16", "legacy"]
    for r in runs:
        j = compare(opscope, os.path.join(d, r + ".json"), os.path.join(d, r + ".ka.json"), r)
        k = j["summary"]["kineto"]
        check(k["cpu_bound"] is True, f"{r}: cpu_bound is {k['cpu_bound']}")
        ph = {p["phase"]: p for p in k["cpu_phases"]["list"]}
        for p in ("forward", "backward", "optimizer", "data_loading"):
            check(ph[p]["records"] > 0, f"{r}: no CPU op in phase {p}")
        check(sum(p["self_ns"] for p in ph.values()) == k["cpu_self_ns"], f"{r}: phases do not add up to the self time")
        check(len(k["cpu_threads"]) >= 2, f"{r}: {len(k['cpu_threads'])} CPU threads (the worker thread is missing)")
        check(sum(t["self_ns"] for t in k["cpu_threads"]) == k["cpu_self_ns"], f"{r}: threads do not add up")
        if r != "legacy":
            check(len(k["cpu_steps"]) == 4, f"{r}: {len(k['cpu_steps'])} profiler steps, expected 4 (active=4)")
        console_first(opscope, os.path.join(d, r + ".json"))
    # the older torch's traces kept in the repository, against torch's own key_averages
    for base in ("inference_rank1_oldformat", "cpu_only_rank34"):
        tmp = os.path.join(d, base + ".json")
        with gzip.open(os.path.join(HERE, "traces", base + ".json.gz"), "rb") as f, open(tmp, "wb") as o:
            o.write(f.read())
        compare(opscope, tmp, os.path.join(d, base + ".ka.json"), base)
    # by name (and by name + shape, falling back to the name where the shapes changed: batch 8
    # against 32); by exact name + shape where the shapes are the same (fp32 against bf16)
    for by in ("op", "cpu-op", "kernel"):
        paired_share(opscope, os.path.join(d, "b8.json"), os.path.join(d, "b32.json"), by)
    for by in ("op", "shape", "cpu-op"):
        paired_share(opscope, os.path.join(d, "b8.json"), os.path.join(d, "bf16.json"), by)
    if FAIL:
        print(f"{len(FAIL)} failures")
        sys.exit(1)
    print("ok")


if __name__ == "__main__":
    main()
