#!/usr/bin/env python3
"""fused_names.py OPSCOPE WORKDIR - one fused-name vocabulary in report, SQLite and view, as in
diff: a Vulkan record names its fused group as ggml-vulkan's perf logger does
("RMS_NORM_MUL", "MULTI_ADD"); every output names it as the CPU backend's records name the
same group ("RMS_NORM+MUL", as in real CPU profiles), so CPU and Vulkan rows read alike."""
import json
import os
import sqlite3
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from checks import check, done, load, run  # noqa: E402

opscope, work = sys.argv[1], sys.argv[2]
os.makedirs(work, exist_ok=True)
rec = {"type": 0, "split_id": 0, "bytes": 64, "graph_id": 0}
prof = {"profiler": "ggml", "version": 3,
        "backends": [{"id": 0, "name": "CPU", "device": "CPU", "device_type": 0},
                     {"id": 1, "name": "Vulkan0", "device": "llvmpipe", "device_type": 1}],
        "records": [dict(rec, name="RMS_NORM", backend_id=0, start_ns=1000, duration_ns=100, extra="RMS_NORM+MUL",
                         n_fused=2),
                    dict(rec, name="RMS_NORM", backend_id=1, start_ns=2000, duration_ns=50, extra="RMS_NORM_MUL",
                         n_fused=2),
                    dict(rec, name="ADD", backend_id=1, start_ns=3000, duration_ns=30, extra="MULTI_ADD", n_fused=3)],
        "total_records": 3, "total_ns": 180}
path = os.path.join(work, "fused.json")
with open(path, "w") as f:
    json.dump(prof, f)
want = ["RMS_NORM [fused: RMS_NORM+MUL]", "RMS_NORM [fused: RMS_NORM+MUL]", "ADD [fused: ADD+ADD+ADD]"]

out, db, page = (os.path.join(work, n) for n in ("r.json", "r.db", "v.html"))
for f in (out, db, page):
    if os.path.exists(f):
        os.remove(f)
r = run([opscope, "report", path, "-q", "--json", out, "--sqlite", db], text=True)
if check(r.returncode == 0, f"report exits 0 ({r.stderr.strip()[:200]})"):
    got = [o["display"] for o in load(out)["summary"]["ops"]]
    check(got == want, f"report's groups: {got}")
    con = sqlite3.connect(db)
    rows = con.execute("SELECT display, fused FROM op_stats ORDER BY total_ns DESC").fetchall()
    con.close()
    check([d for d, _ in rows] == want and [x for _, x in rows] == ["RMS_NORM+MUL", "RMS_NORM+MUL", "ADD+ADD+ADD"],
          f"SQLite op_stats: {rows}")
r = run([opscope, "view", path, "-o", page, "-q"], text=True)
if check(r.returncode == 0, f"view exits 0 ({r.stderr.strip()[:200]})"):
    html = open(page).read()
    check("RMS_NORM+MUL" in html and "ADD+ADD+ADD" in html and "RMS_NORM_MUL" not in html
          and "MULTI_ADD" not in html, "view's page names the groups RMS_NORM+MUL and ADD+ADD+ADD only")
sys.exit(done("fused_names"))
