#!/usr/bin/env python3
"""diff_check.py OPSCOPE REPO WORK, run by the venv's Python (python.venv installed the package):
opscope.diff against `opscope diff --json` on the same inputs and options, and against this
script's own reading of a small pair.

  json     on ggml pairs (one run a side, several runs a side, --by op,phase, --per none, with
           per-thread times) and
           Kineto pairs (--steps, --by kernel): every group's row of the DataFrame equals the
           JSON's row of that name (strings, counts and ns exactly, doubles to 1e-9 relative),
           fusions, the trace ops and the CPU threads' rows likewise, and `summary` is the JSON document itself
           (the generator aside)
  own      on a 1-thread against a 2-thread CPU profile, with the warm-up included and no
           normalisation: per ggml op whose records are never fused and carry no sub-op, the
           group's count, total, min and max per side are those of the profile's records of
           that name; the sides' group totals sum to every record's duration
  errors   bad input, a profile against a trace, --steps of profiles, unknown options: opscope.Error
           (its file and byte for bad input, the CLI's sentence for a refusal) or TypeError
"""
import gzip
import json
import math
import os
import subprocess
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))
from checklist import check, failures  # noqa: E402

import opscope  # noqa: E402  (the venv's installed package)

exe, repo, work = sys.argv[1:4]
os.makedirs(work, exist_ok=True)
DATA = os.path.join(repo, "tests", "diff", "data")
G = lambda n: os.path.join(DATA, "ggml", n)
K = lambda n: os.path.join(DATA, "kineto", n)
NOISE = [os.path.join(DATA, "noise", "same-%d.json.gz" % i) for i in range(1, 5)]

# the CLI's option of each keyword
FLAGS = {"by": "--by", "per": "--per", "batch": "--batch", "graphs": "--graphs", "steps": "--steps",
         "min_share": "--min-share", "include_warmup": "--include-warmup"}


def cli_json(base, new, opts, tag):
    out = os.path.join(work, tag + ".json")
    args = [exe, "diff"] + base + (["--"] if len(base) > 1 or len(new) > 1 else []) + new
    for k, v in opts.items():
        args += [FLAGS[k]] if v is True else [FLAGS[k], str(v)]
    subprocess.run(args + ["--json", out, "-q"], check=True)
    with open(out) as f:
        return json.load(f)


def same(a, b):
    if isinstance(a, float) and b is None:
        b = float("nan")  # the JSON writes a NaN (a ratio over 0, an untested p-value) as null
    if a is None or b is None:
        return a is None and b is None
    if isinstance(b, float) or isinstance(a, float):
        a, b = float(a), float(b)
        if math.isnan(a) or math.isnan(b):
            return math.isnan(a) and math.isnan(b)
        return abs(a - b) <= 1e-9 * max(1.0, abs(a), abs(b))
    return a == b


def value(v):
    """A DataFrame cell as plain Python (numpy scalars, pandas' None)."""
    return v.item() if hasattr(v, "item") else v


def check_rows(df, rows, cols, what, key="name"):
    check(len(df) == len(rows), "%s: %d rows, the JSON %d" % (what, len(df), len(rows)))
    by = {r[key]: r for r in rows}
    bad = 0
    for rec in df.to_dict("records"):
        ref = by.get(rec[key])
        if ref is None:
            bad += 1
            check(False, "%s: %r not in the JSON" % (what, rec[key]))
            continue
        for col, jcol in cols:
            got, want = value(rec[col]), ref.get(jcol)
            if isinstance(want, bool):
                got = bool(got)
            if not same(got, want) and bad < 5:
                bad += 1
                check(False, "%s %r: %s = %r, the JSON %r" % (what, rec[key], col, got, want))
    return bad == 0


GROUP_COLS = [(c, c) for c in ("status", "base_norm_ns", "new_norm_ns", "delta_ns", "ratio", "base_share_pct",
                               "new_share_pct", "p_value", "significant", "shown", "regression")] + \
    [(s + "_" + c, s + "_" + c) for s in ("base", "new") for c in ("count", "calls", "total_ns", "min_ns", "max_ns")]
KEY_PARTS = ("op", "backend", "shape", "category", "cpu_op", "layer", "phase")
FUSION_COLS = [(c, c) for c in ("kind", "base_calls", "base_kernels", "base_ns", "new_calls", "new_kernels",
                                "new_ns", "delta_ns")]
THREAD_COLS = [(s + "_" + c, s + "_" + c) for s in ("base", "new")
               for c in ("n", "work_ns", "work_mean_ns", "work_max_ns", "wait_ns")] + \
    [(c, c) for c in ("speedup", "efficiency", "base_imbalance", "new_imbalance", "base_wait_share", "new_wait_share")]
PAIR_COLS = [(c, c) for c in ("base_count", "base_ns", "new_count", "new_ns")]


def compare(base, new, opts, tag):
    base, new = ([base] if isinstance(base, str) else base), ([new] if isinstance(new, str) else new)
    ref = cli_json(base, new, opts, tag)
    d = opscope.diff(base if len(base) > 1 else base[0], new if len(new) > 1 else new[0], **opts)
    strip = lambda doc: {k: v for k, v in doc.items() if k != "generator"}
    check(strip(d.summary) == strip(ref), "%s: summary is not `diff --json`'s document" % tag)
    check(len(d.groups) > 0, "%s: no groups" % tag)
    ok = check_rows(d.groups, ref["groups"], GROUP_COLS, tag + " groups")
    for part in KEY_PARTS:  # the key's parts: as the JSON's "key" object names them
        want = [r["key"].get(part) for r in ref["groups"]]
        got = [r for r in d.groups.set_index("name").loc[[r["name"] for r in ref["groups"]], part]]
        check(got == want, "%s groups: key part %s differs" % (tag, part))
    check_rows(d.fusions, ref.get("fusion", []), FUSION_COLS, tag + " fusions")
    if any("threads" in r for r in ref["groups"]):  # a side has per-thread times
        flat = [dict(r["threads"], name=r["name"]) for r in ref["groups"]]
        check_rows(d.threads, flat, THREAD_COLS, tag + " threads")
    else:
        check(len(d.threads) == 0, "%s: threads rows without per-thread times" % tag)
    tops = ref.get("trace_ops")
    check((tops is None) == (len(d.trace_cpu_ops) == 0), "%s: trace ops present only when the JSON has them" % tag)
    if tops:
        check_rows(d.trace_cpu_ops, tops["cpu"], PAIR_COLS, tag + " trace CPU ops")
        check_rows(d.trace_gpu_ops, tops["gpu"], PAIR_COLS, tag + " trace GPU ops")
    print("json %s: %d groups, %d fusions, %d+%d trace ops, %d threads rows%s" % (
        tag, len(d.groups), len(d.fusions), len(d.trace_cpu_ops), len(d.trace_gpu_ops), len(d.threads),
        "" if ok else " (differ)"))


def json_part():
    compare(G("cpu-f32-t1.json.gz"), G("cpu-f32-t2.json.gz"), {}, "ggml-threads")
    compare(G("cpu-f32-t2.json.gz"), G("cpu-q4_0-t2.json.gz"), {"by": "op,phase", "per": "none"}, "ggml-q4-phase")
    compare(G("cpu-f32-t2.json.gz"), G("cpu-f32-nofuse-t2.json.gz"), {"min_share": 0}, "ggml-fusion")
    compare(NOISE[:2], NOISE[2:4], {}, "ggml-runs")
    compare(os.path.join(DATA, "threads", "t1.json.gz"), os.path.join(DATA, "threads", "t2.json.gz"), {}, "ggml-cpu-threads")
    compare(G("cpu-f32-t1.json.gz"), G("cpu-f32-t2.json.gz"), {"graphs": "3-", "include_warmup": True}, "ggml-graphs")
    compare(K("hta_a100_step1.json.gz"), K("hta_v100_step1.json.gz"), {}, "kineto-hta")
    compare(K("hta_a100_step1.json.gz"), K("hta_v100_step1.json.gz"), {"by": "kernel", "steps": "1009-"},
            "kineto-steps")


def records(path):
    with gzip.open(path, "rt") as f:
        return json.load(f)["records"]


def own_part():
    paths = [G("cpu-f32-t1.json.gz"), G("cpu-f32-t2.json.gz")]
    d = opscope.diff(paths[0], paths[1], include_warmup=True, per="none", min_share=0)
    groups = d.groups.set_index("name")
    for side, path in zip(("base", "new"), paths):
        recs = records(path)
        total = sum(r["duration_ns"] for r in recs)
        check(int(groups[side + "_total_ns"].sum()) == total,
              "%s: groups' totals sum to %d, the records' durations %d" % (side, groups[side + "_total_ns"].sum(), total))
        byname = {}
        for r in recs:
            byname.setdefault(r["name"], []).append(r)
        n = 0
        for name, rs in sorted(byname.items()):
            # plain ops only: a fused record or a sub-op (UNARY, GLU) names its group otherwise
            if any(r["type"] != 0 or r.get("extra") for r in rs) or name in ("UNARY", "GLU"):
                continue
            row = groups.loc[name + " @CPU"]
            durs = [r["duration_ns"] for r in rs]
            want = (len(durs), sum(durs), min(durs), max(durs))
            got = tuple(int(row[side + c]) for c in ("_count", "_total_ns", "_min_ns", "_max_ns"))
            check(got == want, "%s %s: count, total, min, max %r, the records' %r" % (side, name, got, want))
            n += 1
        check(n >= 3, "%s: only %d plain ops checked" % (side, n))
        print("own %s: %d plain ops, %d records, %d ns" % (side, n, len(recs), total))


def raises(fn, what, kind=opscope.Error):
    try:
        fn()
    except kind as e:
        return e
    check(False, what + ": no %s raised" % kind.__name__)
    return None


def errors_part():
    bad = os.path.join(work, "bad.json")
    with open(bad, "w") as f:
        f.write('{"profiler":"ggml","version":3,"records":[{"type":0,,}]}')
    e = raises(lambda: opscope.diff(G("cpu-f32-t1.json.gz"), bad), "bad input")
    if e:
        check(e.file == bad and e.byte == bad_byte(bad), "bad input: file %r byte %d" % (e.file, e.byte))
    e = raises(lambda: opscope.diff(G("cpu-f32-t1.json.gz"), K("hta_v100_step1.json.gz")), "profile vs trace")
    if e:
        check("a PyTorch (Kineto) trace" in e.message, "profile vs trace: %r" % e.message)
    e = raises(lambda: opscope.diff(G("cpu-f32-t1.json.gz"), G("cpu-f32-t2.json.gz"), steps=1), "--steps of profiles")
    if e:
        check(e.message == "--steps: for one PyTorch (Kineto) trace a side", "steps: %r" % e.message)
    e = raises(lambda: opscope.diff(K("hta_a100_step1.json.gz"), K("hta_v100_step1.json.gz"), steps=5), "no step 5")
    if e:
        check("none chosen" in e.message, "steps out of range: %r" % e.message)
    raises(lambda: opscope.diff(G("cpu-f32-t1.json.gz"), G("cpu-f32-t2.json.gz"), by="nope"), "--by nope")
    raises(lambda: opscope.diff(G("cpu-f32-t1.json.gz"), G("cpu-f32-t2.json.gz"), per="week"), "--per week")
    raises(lambda: opscope.diff(G("cpu-f32-t1.json.gz"), G("cpu-f32-t2.json.gz"), colour=1), "colour", TypeError)
    print("errors: checked")


def bad_byte(path):
    """The byte of the fault this script placed: the second comma of ',,'."""
    with open(path, "rb") as f:
        return f.read().index(b",,") + 1


json_part()
own_part()
errors_part()
sys.exit(1 if failures else 0)
