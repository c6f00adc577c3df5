#!/usr/bin/env python3
"""`opscope diff` on pairs captured now: llama-completion on 1 and on 2 threads, and with CPU
fusion off (GGML_CPU_DISABLE_FUSION=1) against on, under the capture library.

Checks, against sums over the profiles' records made here: per op and backend the counts and
totals of both sides, the graph and token counts (tokens: each graph's first MUL_MAT), the
RMS_NORM+MUL fusion difference (fused calls against runs of RMS_NORM, MUL), a self-diff with
zero deltas and exit 0 under --fail-on-regression 0. tests/diff/check_diff.py checks every key
on committed captures; this test keeps the pairs real on the ggml of the day.
"""
import collections
import json
import os
import subprocess

import e2e

e2e.need_preload()
m = e2e.model("tiny-dense-f32")
d = e2e.outdir("diff")
cmd = ["llama-completion", "-m", m, "-p", "The quick brown fox jumps over", "-n", "8", "--temp", "0",
       "--seed", "7", "--ignore-eos", "-no-cnv", "--no-warmup"]
prof = {}
for name, threads, extra in (("t1", "1", {}), ("t2", "2", {}), ("nofuse", "2", {"GGML_CPU_DISABLE_FUSION": "1"})):
    prof[name] = f"{d}/{name}.json"
    rc, out, err = e2e.run(cmd + ["-t", threads], e2e.env_for([e2e.PRELOAD], profile=prof[name], extra=extra))
    e2e.check(rc == 0 and os.path.exists(prof[name]), f"{name}: llama-completion under the capture exits 0")


def label(r):
    s = r["name"] + (f"({r['sub_op_name']})" if r.get("sub_op_name") else "")
    if r.get("extra") is not None:
        s += (" (via %s)" if r["type"] == 1 else " [fused: %s]") % r["extra"]
    return s


def sums(path):
    p = e2e.load_profile(path)
    names = {b["id"]: b["name"] for b in p["backends"]}
    g = collections.defaultdict(lambda: [0, 0])
    first = {}
    for r in p["records"]:
        k = (label(r), names.get(r["backend_id"], "backend %d" % r["backend_id"]))
        g[k][0] += 1
        g[k][1] += r["duration_ns"]
        gid = r.get("graph_id")
        if gid is not None and gid not in first:
            first[gid] = None
        if gid is not None and first[gid] is None and r["type"] == 0 and r["name"] == "MUL_MAT":
            first[gid] = max(1, r["ne_src"][1][1])
    return dict(g), len(first), sum(t for t in first.values() if t), p["records"]


def diff(a, b, *extra):
    out = f"{d}/diff.json"
    if os.path.exists(out):
        os.unlink(out)
    # every record, as the sums here (the steady state alone: t_warmup.py, tests/diff)
    p = subprocess.run([e2e.OPSCOPE, "diff", a, b, "--json", out, "--min-share", "0", "-q", "--include-warmup"] +
                       list(extra),
                       capture_output=True, text=True)
    return p.returncode, (json.load(open(out)) if os.path.exists(out) else None), p.stderr


for a, b in (("t1", "t2"), ("t2", "nofuse")):
    rc, doc, err = diff(prof[a], prof[b])
    e2e.check(rc == 0 and doc is not None, f"diff {a} {b} exits 0 ({err[-200:]!r})")
    if doc is None:
        continue
    sa, ga, ta, _ = sums(prof[a])
    sb, gb, tb, _ = sums(prof[b])
    got = {(g["key"]["op"], g["key"]["backend"]): (g["base_count"], g["base_total_ns"], g["new_count"],
                                                   g["new_total_ns"]) for g in doc["groups"]}
    want = {k: tuple(sa.get(k, [0, 0]) + sb.get(k, [0, 0])) for k in set(sa) | set(sb)}
    e2e.check(got == want, f"{a} vs {b}: per op and backend, counts and totals equal the record sums "
                           f"({len(got)} groups)")
    e2e.check((doc["base"]["graphs"], doc["base"]["tokens"], doc["new"]["graphs"], doc["new"]["tokens"]) ==
              (ga, ta, gb, tb), f"{a} vs {b}: graphs {ga}/{gb}, tokens {ta}/{tb}")
    if b == "nofuse":
        _, _, _, recs = sums(prof[a])
        fused = [r for r in recs if r.get("extra") == "RMS_NORM+MUL"]
        f = [x for x in doc["fusion"] if x["name"] == "RMS_NORM+MUL"]
        e2e.check(len(fused) > 0 and len(f) == 1 and f[0]["base_calls"] == len(fused) and
                  f[0]["new_calls"] == len(fused) and f[0]["new_kernels"] == 2 * len(fused),
                  f"fusion difference RMS_NORM+MUL: {len(fused)} fused calls against as many runs of two")
rc, doc, err = diff(prof["t2"], prof["t2"], "--fail-on-regression", "0", "--by", "op,layer,phase")
e2e.check(rc == 0 and doc and all(g["delta_ns"] == 0 for g in doc["groups"]) and not doc["failed"],
          "a self-diff has zero deltas and passes --fail-on-regression 0")
e2e.finish()
