#!/usr/bin/env python3
"""A real run recorded in windows, as every output shows it: llama-bench under
`opscope record --paused`, two `ctl start` / `ctl stop` windows with a `ctl mark` in each, then
`report` (console, --text, --chrome-trace) and `view`. Against the profile the capture wrote:
- the console's first screen says `Windows: 2 (R s recorded of T s: a-b s, c-d s)` with the
  windows' times from the capture's start, their summed length and the run's end (the death
  record saw, else the capture's last write), worked out here from capture.start_ns, windows
  and end; and `Marks: 2`;
- the section's row of each window gives its start, end, duration, the time not recorded
  before it and the graph computes that began in it and their records, counted here from the
  records; a row per mark with its time and text; the text report the same;
- the Chrome trace has a slice per window at its times and a global instant per mark;
- the viewer's data holds the windows and marks after its t0.
usage (inside the root): t_win_outputs.py
"""
import json
import os
import signal
import sqlite3
import subprocess
import sys
import time

import e2e

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "viewer"))
import viewer_data  # noqa: E402


def record_paused(out_dir):
    """llama-bench on the tiny model under `opscope record --paused`, long enough for two
    windows: (the record's process, its environment, the profile's path)."""
    env = e2e.env_for([])
    env.pop("LD_PRELOAD", None)  # record loads the capture itself, from OPSCOPE_LIB
    env["OPSCOPE_LIB"] = e2e.PRELOAD
    path = os.path.join(out_dir, "bench.json")
    cmd = ["llama-bench", "-m", e2e.model("tiny-dense-f32"), "-p", "0", "-n", "64", "-r", "1000", "-t", "1"]
    with open(os.path.join(out_dir, "bench.log"), "wb") as log:
        pr = subprocess.Popen([e2e.OPSCOPE, "record", "--paused", "-o", path, "--", *cmd], env=env, stdout=log,
                              stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL)
    return pr, env, path


e2e.need_preload()
e2e.guard_children()
d = e2e.outdir("win-outputs")
rec, env, prof = record_paused(d)


def ctl(*args):
    r = subprocess.run([e2e.OPSCOPE, "ctl", "--pid", str(rec.pid), *args], env=env, capture_output=True, text=True,
                       timeout=60)
    e2e.check(r.returncode == 0, f"ctl {' '.join(args)} ({r.stdout.strip()}{r.stderr.strip()})")


TEXTS = ["window one, halfway", "window two \u00e9"]
time.sleep(3)  # the model loaded, the benchmark running
for text in TEXTS:
    ctl("start")
    time.sleep(1)
    ctl("mark", text)
    time.sleep(1)
    ctl("stop")
    time.sleep(1.5)
rec.send_signal(signal.SIGTERM)
try:
    rec.wait(timeout=60)
except subprocess.TimeoutExpired:
    pass
e2e.stop_children(rec)

p = e2e.load_checked(prof, "written and valid JSON")
cap = p["capture"]
wins = [(w["start_ns"], w["end_ns"]) for w in cap.get("windows", [])]
marks = [(k["ts_ns"], k["text"]) for k in cap.get("marks", [])]
e2e.check(cap.get("windowed") is True and len(wins) == 2 and [t for _, t in marks] == TEXTS,
          f"the profile: windowed, 2 windows, the 2 marks ({wins}, {marks})")
if len(wins) != 2:
    e2e.finish()
start = cap["start_ns"]
end = cap.get("end", {})
run_end = end.get("died_ns") or end.get("at_ns")


def sec(ns):
    return (ns - start) / 1e9


txt, trace, html = f"{d}/bench.txt", f"{d}/bench-trace.json", f"{d}/bench.html"
r = subprocess.run([e2e.OPSCOPE, "report", prof, "--text", txt, "--chrome-trace", trace], capture_output=True,
                   text=True, timeout=300)
e2e.check(r.returncode == 0, f"report exits 0 ({r.returncode}: {r.stderr.strip()[-300:]})")
lines = r.stdout.splitlines()
head = (f" Windows:       2 ({sum(e - s for s, e in wins) / 1e9:.2f} s recorded of {sec(run_end):.2f} s: "
        + ", ".join(f"{sec(s):.2f}-{sec(e):.2f} s" for s, e in wins)
        + "); graph computes outside them are not in this profile")
e2e.check(head in lines, f"the first screen: {head!r}")
e2e.check(any(ln.startswith(" Marks:         2 (") for ln in lines), "the first screen: Marks: 2")
first = {}
for rr in p["records"]:
    if rr.get("graph_id") is not None:
        first.setdefault(rr["graph_id"], []).append(rr["start_ns"])
prev, rows = start, []
for i, (s, e) in enumerate(wins):
    gs = [g for g, ts in first.items() if s <= min(ts) < e]
    rows.append(f" {i + 1:6d} {sec(s):12.3f} {sec(e):12.3f} {(e - s) / 1e9:12.3f} {(s - prev) / 1e9:23.3f}"
                f" {len(gs):10d} {sum(len(first[g]) for g in gs):12d}")
    prev = e
for row in rows:
    e2e.check(row in lines, f"console: the window row {row!r}")
for i, (t, x) in enumerate(marks):
    row = f" {i + 1:6d} {sec(t):12.3f}  {x}"
    e2e.check(row in lines, f"console: the mark row {row!r}")
with open(txt, encoding="utf-8") as f:
    tl = f.read().splitlines()
e2e.check(all(row in tl for row in rows), "the text report: the same window rows")
# the JSON summary and the SQLite database count as the console: a real capture keeps only the
# graph computes begun inside a window, so none is outside
js, db = f"{d}/bench-out.json", f"{d}/bench.db"
r = subprocess.run([e2e.OPSCOPE, "report", prof, "--json", js, "--sqlite", db, "-q"], capture_output=True, text=True,
                   timeout=300)
want = []
for s, e in wins:
    gs = [g for g, ts in first.items() if s <= min(ts) < e]
    want.append((len(gs), sum(len(first[g]) for g in gs)))
sm = json.load(open(js))["summary"] if r.returncode == 0 else {}
con = sqlite3.connect(db) if r.returncode == 0 else None
e2e.check([(w.get("graphs"), w.get("records")) for w in sm.get("windows", [])] == want
          and sm.get("graphs_outside_windows") == 0 and len(first) == sum(g for g, _ in want),
          f"summary.windows {sm.get('windows')} as the rows {want}, none outside ({sm.get('graphs_outside_windows')})")
e2e.check(con is not None and con.execute("SELECT graphs, records FROM windows ORDER BY window").fetchall() == want,
          "the SQLite windows table as the rows")

ev = json.load(open(trace))["traceEvents"]
got = [(e["ts"], e["dur"]) for e in ev if e.get("ph") == "X" and e.get("cat") == "window"]
e2e.check(len(got) == 2 and all(abs(a - s / 1e3) < 1e-3 and abs(b - (e - s) / 1e3) < 1e-3
                                for (a, b), (s, e) in zip(got, wins)),
          f"Chrome: a slice per window at its times in us ({got})")
inst = [(e["ts"], e["name"], e.get("s")) for e in ev if e.get("ph") == "i"]
e2e.check(len(inst) == 2 and all(abs(a - t / 1e3) < 1e-3 and n == x and sc == "g"
                                 for (a, n, sc), (t, x) in zip(inst, marks)),
          f"Chrome: a global instant per mark with its text ({inst})")

v = subprocess.run([e2e.OPSCOPE, "view", prof, "-o", html, "-q"], capture_output=True, text=True, timeout=300)
with open(html, encoding="utf-8") as f:
    data, _ = viewer_data.decode(f.read())
t0, W = int(data["t0"]), data.get("windows", {})
e2e.check(v.returncode == 0 and W.get("start") == [s - t0 for s, _ in wins] and W.get("end") == [e - t0 for _, e in wins]
          and W.get("mark_ts") == [t - t0 for t, _ in marks] and W.get("mark_text") == [x for _, x in marks],
          "the viewer's data: the windows and marks after t0")
e2e.finish()
