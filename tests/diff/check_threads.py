#!/usr/bin/env python3
"""`opscope diff` of CPU threads (docs/diff.md, "CPU threads"): speed-up and parallel
efficiency per op group between a 1-thread and a 2-thread run, the imbalance and wait share
per side and their change, in the JSON, the text report and the console; and nothing of it
where neither side has per-thread times.

usage: check_threads.py OPSCOPE DATA_DIR WORK_DIR

The inputs are real captures (data/threads: llama-bench -n 16 on tiny-dense-f32, -t 1 and
-t 2). Every expected number is computed here from the profiles' records (--include-warmup
--per none, so a group's total is the sum of its records' durations). A third input is the
2-thread run with the per-thread times of two ops changed here (MUL_MAT: thread 0's work
doubled; ADD: no wait), so that imbalance and wait share change by amounts known here.
"""
import collections
import gzip
import json
import os
import subprocess
import sys

OPSCOPE, DATA, WORK = sys.argv[1], sys.argv[2], sys.argv[3]
os.makedirs(WORK, exist_ok=True)
T1 = os.path.join(DATA, "threads", "t1.json.gz")
T2 = os.path.join(DATA, "threads", "t2.json.gz")
failures = []


def check(cond, what):
    print(("ok    " if cond else "FAIL: ") + what)
    if not cond:
        failures.append(what)


def close(a, b, rel=1e-9):
    return a is not None and b is not None and abs(a - b) <= rel * max(abs(a), abs(b), 1e-300)


def load(path):
    with gzip.open(path, "rt") as f:
        return json.load(f)


def groups(doc):
    """Per (name, backend name): count, total, and the per-thread sums of the records."""
    backends = {b["id"]: b["name"] for b in doc["backends"]}
    g = collections.defaultdict(lambda: {"count": 0, "total": 0, "n": 0, "work": 0, "mean": 0, "max": 0,
                                         "wait": 0})
    for r in doc["records"]:
        e = g[(r["name"], backends.get(r["backend_id"]))]
        e["count"] += 1
        e["total"] += r["duration_ns"]
        th = r.get("threads")
        if th:
            works, waits = th[0::2], th[1::2]
            e["n"] += 1
            e["work"] += sum(works)
            e["mean"] += sum(works) // len(works)
            e["max"] += max(works)
            e["wait"] += sum(waits)
    return g


def diff(base, new, name, *extra):
    j, t = os.path.join(WORK, name + ".json"), os.path.join(WORK, name + ".txt")
    p = subprocess.run([OPSCOPE, "diff", base, new, "--include-warmup", "--per", "none", "--json", j, "--text", t,
                        *extra], capture_output=True, text=True)
    check(p.returncode == 0, f"{name}: exit 0 ({p.returncode}: {p.stderr.strip()[:300]})")
    with open(j) as f, open(t) as g:
        return json.load(f), g.read(), p.stdout


def plain_rows(d):
    """Rows whose op is a plain record name (no sub-op, no fused name): (name, backend) -> row."""
    out = {}
    for r in d["groups"]:
        op = r["key"].get("op", "")
        if " " not in op and "(" not in op:
            out[(op, r["key"].get("backend"))] = r
    return out


d1, d2 = load(T1), load(T2)
g1, g2 = groups(d1), groups(d2)
check(sum(e["n"] for e in g1.values()) == 0 and sum(e["n"] for e in g2.values()) > 1000,
      "the -t 1 run has no per-thread times, the -t 2 run has them on its CPU nodes")

# ---- 1 thread against 2 ----
j, text, console = diff(T1, T2, "t1_t2")
th = j.get("threads")
check(th is not None, "JSON: a top-level threads member")
th = th or {}
check(th.get("base_threads") == 1 and th.get("new_threads") == 2, f"thread counts 1 and 2 ({th.get('base_threads')}, "
                                                                   f"{th.get('new_threads')})")
check(th.get("new_thread_records") == sum(e["n"] for e in g2.values()), "NEW's records with per-thread times")
tot1 = sum(r["duration_ns"] for r in d1["records"])
tot2 = sum(r["duration_ns"] for r in d2["records"])
check(close(th.get("speedup"), tot1 / tot2), f"whole run: speed-up = total at 1 / total at 2 ({th.get('speedup')} "
                                             f"vs {tot1 / tot2})")
check(close(th.get("efficiency"), tot1 / tot2 / 2), "whole run: efficiency = speed-up / 2")
w2 = sum(e["wait"] for e in g2.values())
k2 = sum(e["work"] for e in g2.values())
check(close(th.get("new_wait_share"), w2 / (w2 + k2)), "whole run: NEW's wait share")
check(th.get("base_wait_share") is None and th.get("wait_share_change") is None,
      "whole run: BASE has no wait share (no per-thread times): null")
rows = plain_rows(j)
checked = 0
for (op, be), r in rows.items():
    a, b = g1.get((op, be)), g2.get((op, be))
    if not a or not b or r["status"] != "both" or not b["n"]:
        continue
    checked += 1
    t = r.get("threads") or {}
    check(r["base_total_ns"] == a["total"] and r["new_total_ns"] == b["total"], f"{op}@{be}: totals are the records'")
    check(t.get("new_n") == b["n"] and t.get("new_work_ns") == b["work"] and t.get("new_wait_ns") == b["wait"] and
          t.get("new_work_max_ns") == b["max"] and t.get("new_work_mean_ns") == b["mean"],
          f"{op}@{be}: NEW's per-thread sums ({t.get('new_n')} records)")
    check(t.get("base_n") == 0, f"{op}@{be}: BASE has no per-thread times")
    su = a["total"] / b["total"]
    check(close(t.get("speedup"), su), f"{op}@{be}: speed-up {t.get('speedup')} = {su}")
    check(close(t.get("efficiency"), su / 2), f"{op}@{be}: efficiency = speed-up / 2")
    check(close(t.get("new_imbalance"), b["max"] / b["mean"]), f"{op}@{be}: NEW imbalance = max / mean work")
    check(close(t.get("new_wait_share"), b["wait"] / (b["wait"] + b["work"])), f"{op}@{be}: NEW wait share")
    section = text[text.find("\n  CPU threads:"):].splitlines()
    line = next((l for l in section if l.endswith("  " + r["name"])), None)
    check(line is not None and line.split()[0] == f"{su:.3f}x",
          f"{op}@{be}: the text report's threads line says {su:.3f}x ({line})")
    if line:
        check(f"{100 * su / 2:.1f}%" in line and f"{b['max'] / b['mean']:.3f}" in line and
              f"{100 * b['wait'] / (b['wait'] + b['work']):.1f}%" in line,
              f"{op}@{be}: its efficiency, NEW imbalance and wait share in the line")
check(checked >= 5, f"at least 5 op groups compared ({checked})")
copies = [r for r in j["groups"] if r["key"].get("op", "").startswith("copy_")]
check(copies and all(r["threads"]["speedup"] is None and r["threads"]["new_n"] == 0 for r in copies),
      f"copies (no per-thread times on either side): no speed-up ({len(copies)} rows)")
check("CPU threads: BASE 1, NEW 2; speed-up = time at 1 thread / time at 2" in text, "text: the section's header")
check("CPU threads: BASE 1, NEW 2" in console, "console: the section")

# ---- 2 threads against 2, with per-thread times changed here ----
d3 = load(T2)
for r in d3["records"]:
    th3 = r.get("threads")
    if not th3:
        continue
    if r["name"] == "MUL_MAT":
        th3[0] *= 2
    if r["name"] == "ADD":
        for i in range(1, len(th3), 2):
            th3[i] = 0
T3 = os.path.join(WORK, "t2_changed.json")
with open(T3, "w") as f:
    json.dump(d3, f)
g3 = groups(d3)
j, text, _ = diff(T2, T3, "t2_t2")
check(j.get("threads", {}).get("speedup") is None, "same thread counts: no speed-up (null)")
rows = plain_rows(j)
for op, what in (("MUL_MAT", "imbalance"), ("ADD", "wait share"), ("ROPE", "nothing")):
    r = rows.get((op, "CPU"))
    check(r is not None, f"{op}@CPU: a row")
    if not r:
        continue
    t, a, b = r.get("threads") or {}, g2[(op, "CPU")], g3[(op, "CPU")]
    ib, inew = a["max"] / a["mean"], b["max"] / b["mean"]
    wb, wn = a["wait"] / (a["wait"] + a["work"]), b["wait"] / (b["wait"] + b["work"])
    check(close(t.get("base_imbalance"), ib) and close(t.get("new_imbalance"), inew) and
          abs(t.get("imbalance_change", 9) - (inew - ib)) < 1e-9,
          f"{op}@CPU: imbalance {ib:.4f} -> {inew:.4f} ({what} changed)")
    check(close(t.get("base_wait_share"), wb) and close(t.get("new_wait_share"), wn) and
          abs(t.get("wait_share_change", 9) - (wn - wb)) < 1e-9, f"{op}@CPU: wait share {wb:.4f} -> {wn:.4f}")
    check(t.get("speedup") is None and t.get("efficiency") is None, f"{op}@CPU: no speed-up with equal threads")
check(abs(rows[("MUL_MAT", "CPU")]["threads"]["imbalance_change"]) > 0.01 and
      rows[("ADD", "CPU")]["threads"]["wait_share_change"] < -0.1 and
      rows[("ROPE", "CPU")]["threads"]["imbalance_change"] == 0, "the changes are where they were made")

# ---- the default read (warm-up apart: records held until their compute is decided) keeps them ----
j = os.path.join(WORK, "default.json")
p = subprocess.run([OPSCOPE, "diff", T2, T3, "-q", "--json", j], capture_output=True, text=True)
check(p.returncode == 0, f"default read: exit 0 ({p.stderr.strip()[:200]})")
with open(j) as f:
    th = json.load(f).get("threads") or {}
steady = sum(1 for r in d2["records"] if r.get("threads")) - th.get("base_thread_records", 0)
check(th.get("base_thread_records", 0) > 1000 and th.get("base_thread_records") == th.get("new_thread_records"),
      f"default read: the held records keep their per-thread times ({th.get('base_thread_records')}; "
      f"{steady} in the warm-up left out)")

# ---- neither side has per-thread times: nothing about threads ----
j, text, console = diff(T1, T1, "t1_t1")
check("threads" not in j and all("threads" not in r for r in j["groups"]), "JSON: no threads members")
check("CPU threads" not in text and "CPU threads" not in console, "text and console: no threads section")

print(f"{len(failures)} failure(s)")
sys.exit(1 if failures else 0)
