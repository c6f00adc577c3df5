#!/usr/bin/env python3
"""`opscope diff` and `opscope view` of sampled device timing (docs/capture.md, "Device timing: sampled or all"):
per group, how many computes each side device-timed, of how many, and the estimated total,
marked as estimates in the console, the text report, the JSON and the HTML page; and the
viewer's per-op counts and estimates.

usage: check_sampled.py OPSCOPE WORK_DIR

BASE is a profile as the capture writes it by default: ten Vulkan graph computes, of which
five are device-timed (the first three, then two with weights 2 and 3) and the others are
host-timed GRAPH_SPLIT records; NEW the same ten computes all device-timed (no weights). The
expected counts and estimates are computed here from the records written.
"""
import collections
import json
import os
import re
import subprocess
import sys

OPSCOPE, WORK = sys.argv[1], sys.argv[2]
os.makedirs(WORK, exist_ok=True)
failures = []


def check(cond, what):
    print(("ok    " if cond else "FAIL: ") + what)
    if not cond:
        failures.append(what)


# per compute: (timed, weight); computes 9 and 10 come after the last timed one (in no weight)
PLAN = [(1, 1), (1, 1), (1, 1), (0, 0), (1, 2), (0, 0), (0, 0), (1, 3), (0, 0), (0, 0)]
OPS = [("MUL_MAT", 700), ("MUL_MAT", 650), ("ADD", 90), ("FLASH_ATTN_EXT", 400)]


def rec(name, d, t, graph, node, weight=None, device=True):
    r = {"type": 0, "name": name, "backend_id": 1, "split_id": 0, "start_ns": t, "duration_ns": d, "bytes": 0,
         "extra": None, "n_src": 2, "ne_src": [[64, 1, 1, 1], [64, 1, 1, 1]], "type_src": [0, 0],
         "graph_id": graph, "node_index": node, "tensor_name": name.lower()}
    if device:
        r["time_source"] = "device"
    if weight is not None:
        r["weight"] = weight
    return r


def profile(path, sampled):
    recs, t = [], 1000
    for g, (timed, w) in enumerate(PLAN):
        if sampled and not timed:
            recs.append(rec("GRAPH_SPLIT", 2000 + g, t, g + 1, 0, device=False))
            t += 3000
            continue
        for i, (name, d) in enumerate(OPS):
            d += 7 * g + i  # every compute a little different
            recs.append(rec(name, d, t, g + 1, i, weight=w if sampled else None))
            t += d + 10
    doc = {"profiler": "ggml", "version": 3,
           "backends": [{"id": 1, "name": "Vulkan0", "device": "llvmpipe", "device_type": 1}], "records": recs}
    with open(path, "w") as f:
        json.dump(doc, f)
    return recs


def expected(recs):
    """{op: (timed computes, computes they stand for, sum of duration x weight)}."""
    timed, sampled, est = collections.defaultdict(set), collections.Counter(), collections.Counter()
    for r in recs:
        if "weight" not in r:
            continue
        if r["graph_id"] not in timed[r["name"]]:
            sampled[r["name"]] += r["weight"]
        timed[r["name"]].add(r["graph_id"])
        est[r["name"]] += r["duration_ns"] * r["weight"]
    return {n: (len(timed[n]), sampled[n], est[n]) for n in timed}


base, new = os.path.join(WORK, "sampled.json"), os.path.join(WORK, "all.json")
want = expected(profile(base, True))
new_recs = profile(new, False)
check(want["MUL_MAT"] == (5, 8, sum((700 + 7 * g) * w + (650 + 7 * g + 1) * w
                                      for g, (t, w) in enumerate(PLAN) if t)),
      f"the test's own expectation is what the plan says ({want['MUL_MAT']})")

for by in ("op", "op,phase"):
    j, t, h = (os.path.join(WORK, f"{by.replace(',', '-')}.{x}") for x in ("json", "txt", "html"))
    # every compute, the first of its topology too: the estimates are over the whole run
    p = subprocess.run([OPSCOPE, "diff", base, new, "--by", by, "--json", j, "--text", t, "--html", h,
                        "--min-share", "0", "--include-warmup"], capture_output=True, text=True)
    check(p.returncode == 0, f"--by {by}: diff exits 0 ({p.stderr[-300:]!r})")
    doc = json.load(open(j))
    got = {}
    for g in doc["groups"]:
        if "base_device_timed_computes" in g:
            got[g["key"]["op"]] = (g["base_device_timed_computes"], g["base_computes"], g["base_estimated_total_ns"])
        check(not any(k.startswith("new_device") or k.startswith("new_estimated") for k in g),
              f"--by {by}: {g['name']}: NEW (every compute timed) carries no estimate")
    check(got == want, f"--by {by}: JSON per group: device-timed computes, computes, estimated total == "
                       f"the records' ({got} vs {want})")
    text, console = open(t).read(), p.stdout
    for label, out in (("text", text), ("console", console)):
        check("Sampled device timing (estimates)" in out, f"--by {by}: the {label} diff has the estimates section")
        rows = [ln for ln in out.splitlines() if re.match(r"\s+5 / 8\s", ln)]
        check(len(rows) == 3 and all(ln.count(" est. ") == 2 and " all 10 " in ln for ln in rows),
              f"--by {by}: {label}: the three device op rows say 5 / 8 timed and est. on BASE, all 10 on NEW "
              f"({rows})")
        # per compute: BASE's estimate over its 8 computes against NEW's total over its 10
        for name in ("MUL_MAT", "ADD", "FLASH_ATTN_EXT"):
            row = [ln for ln in rows if ln.rstrip().endswith(name + " @Vulkan0")]
            nt = sum(r["duration_ns"] for r in new_recs if r["name"] == name)
            pct = 100.0 * (nt / 10 - want[name][2] / 8) / (want[name][2] / 8)
            check(len(row) == 1 and f"{pct:+.1f}%" in row[0],
                  f"--by {by}: {label}: {name}: d% per compute {pct:+.1f}% ({row})")
        check(out.count("[sampled: see estimates]") >= 3, f"--by {by}: {label}: sampled rows marked in the table")
    page = open(h, encoding="utf-8").read()
    m = re.search(r'<script type="application/json" id="opscope-diff">(.*?)</script>', page, re.S)
    check(m and json.loads(m.group(1))["groups"] == doc["groups"], f"--by {by}: --html embeds the same estimates")
    check("_device_timed_computes" in page and "device-timed " in page,
          f"--by {by}: the page's script shows the device-timed counts")

# the viewer: per op, the computes device-timed, of how many, and the estimate, from every
# record (also when the page keeps only some records)
for extra in ([], ["--max-records", "7"]):
    h = os.path.join(WORK, "view.html")
    p = subprocess.run([OPSCOPE, "view", base, "-o", h, "-q"] + extra, capture_output=True, text=True)
    page = open(h, encoding="utf-8").read() if p.returncode == 0 else ""
    m = re.search(r'<script type="application/json" id="opscope-data">(.*?)</script>', page, re.S)
    data = json.loads(m.group(1)) if m else {}
    got = {x["name"]: (x["timed"], x["computes"], x["est_ns"]) for x in data.get("sampled", []) if not x["sub"]}
    check(got == want, f"view {' '.join(extra)}: the page's sampled entries == the records' ({got} vs {want})")
    check("device-timed " in page and "est." in page, f"view {' '.join(extra)}: the page's script shows them")
h = os.path.join(WORK, "view-all.html")
p = subprocess.run([OPSCOPE, "view", new, "-o", h, "-q"], capture_output=True, text=True)
check(p.returncode == 0 and '"sampled":[]' in open(h, encoding="utf-8").read(),
      "view of a run timed in full: no sampled entries")

# two runs timed in full: no estimates anywhere
j = os.path.join(WORK, "full.json")
p = subprocess.run([OPSCOPE, "diff", new, new, "--json", j], capture_output=True, text=True)
check(p.returncode == 0 and "Sampled device timing" not in p.stdout and "estimated" not in open(j).read(),
      "two runs timed in full: no estimates section, no estimate keys")

if failures:
    print(f"{len(failures)} check(s) failed")
    sys.exit(1)
print("all sampled diff checks passed")
