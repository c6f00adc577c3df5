#!/usr/bin/env python3
"""`opscope diff` of windowed profiles (docs/server.md, "A window of the run"): the header says per
side its capture windows (how many, their summed span), the JSON the same per side, and a
warning when one side was recorded in windows and the other whole (a part of a run compared
with a whole one); none when both or neither were.

usage: check_windows.py OPSCOPE WORK_DIR

A: two closed windows, 1.00-3.50 s and 6.00-7.25 s (3.75 s). B: one window open at the last
write, the profile without that write's time: it ends at B's last record, worked out here.
C: recorded whole. The same graphs in each (times inside A's windows).
"""
import json
import os
import subprocess
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))
import checklist  # noqa: E402

OPSCOPE, WORK = sys.argv[1], sys.argv[2]
os.makedirs(WORK, exist_ok=True)
check = checklist.check
S = 1_000_000_000
# graph g at 1.1 s + 0.2 s g (g < 10: inside A's first window, then the second's)
STARTS = [S + S // 10 + g * S // 5 for g in range(10)] + [6 * S + g * S // 10 for g in range(5)]
RECORDS = [{"type": 0, "name": "MUL_MAT", "backend_id": 0, "split_id": 0, "graph_id": g, "start_ns": t + k * 1000,
            "duration_ns": 700, "ne": [64, 1, 1, 1], "ne_src": [[64, 64, 1, 1], [64, 1, 1, 1]], "type_src": [0, 0],
            "n_src": 2} for g, t in enumerate(STARTS) for k in range(3)]
LAST_END = max(r["start_ns"] + r["duration_ns"] for r in RECORDS)
SIDES = {
    "A": {"windowed": True, "windows": [{"start_ns": S, "end_ns": 7 * S // 2}, {"start_ns": 6 * S, "end_ns": 29 * S // 4}]},
    "B": {"windowed": True, "windows": [{"start_ns": S // 2, "end_ns": 0}]},
    "C": {},
}
WANT_NS = {"A": 5 * S // 2 + 5 * S // 4, "B": LAST_END - S // 2}  # 3.75 s; B: to its last record


def profile(name):
    path = os.path.join(WORK, name + ".json")
    with open(path, "w") as f:
        json.dump({"profiler": "opscope", "version": 3,
                   "backends": [{"id": 0, "name": "CPU", "device": "cpu", "device_type": 0}],
                   "capture": dict({"host": "h", "start_ns": S // 4}, **SIDES[name]), "records": RECORDS}, f)
    return path


def diff(a, b):
    j, t = os.path.join(WORK, f"{a}{b}.json"), os.path.join(WORK, f"{a}{b}.txt")
    p = subprocess.run([OPSCOPE, "diff", profile(a), profile(b), "--json", j, "--text", t],
                       capture_output=True, text=True, timeout=60)
    check(p.returncode == 0, f"diff {a} {b} exits 0 ({p.returncode}: {p.stderr.strip()[:200]})")
    with open(t) as f:
        text = f.read()
    with open(j) as f:
        doc = json.load(f)
    return p.stdout, text, doc


def side_line(text, label):
    return next((ln for ln in text.splitlines() if ln.startswith(f"  {label} ")), "")


def windows_said(name):
    w = SIDES[name].get("windows", [])
    return f"; {len(w)} capture window{'s' if len(w) != 1 else ''}, {WANT_NS[name] / 1e9:.2f} s recorded)"


for a, b in (("A", "B"), ("A", "C"), ("C", "A"), ("C", "C")):
    console, text, doc = diff(a, b)
    for out, what in ((console, "console"), (text, "--text")):
        for label, name in (("BASE", a), ("NEW", b)):
            line = side_line(out, label)
            if SIDES[name]:
                check(line.endswith(windows_said(name)), f"diff {a} {b} {what}: {label}'s line ends "
                                                          f"{windows_said(name)!r} ({line!r})")
            else:
                check(line and "capture window" not in line, f"diff {a} {b} {what}: {label}'s line says no windows ({line!r})")
        warn = [ln for ln in out.splitlines() if "Warning: only" in ln]
        if bool(SIDES[a]) == bool(SIDES[b]):
            check(not warn, f"diff {a} {b} {what}: no windows warning ({warn})")
        else:
            one = "BASE" if SIDES[a] else "NEW"
            check(len(warn) == 1 and f"only {one} was recorded in capture windows" in warn[0]
                  and "compared with a whole run" in warn[0], f"diff {a} {b} {what}: the warning names {one} ({warn})")
    for key, name in (("base", a), ("new", b)):
        side = doc.get(key, {})
        if SIDES[name]:
            got = (side.get("windowed"), side.get("windows"), side.get("window_ns"))
            want = (True, len(SIDES[name]["windows"]), WANT_NS[name])
            check(got == want, f"diff {a} {b} --json {key}: windowed, windows, window_ns {got} == {want}")
        else:
            check("windowed" not in side and "windows" not in side, f"diff {a} {b} --json {key}: no window members")

# several runs a side: their windows together (B's open window closed at each run's end)
p = subprocess.run([OPSCOPE, "diff", profile("B"), profile("A"), "--", profile("C")], capture_output=True, text=True,
                   timeout=60)
want = f"; 3 capture windows, {(WANT_NS['A'] + WANT_NS['B']) / 1e9:.2f} s recorded)"
line = side_line(p.stdout, "BASE")
check(p.returncode == 0 and line.endswith(want), f"BASE of runs B and A: its line ends {want!r} ({line!r})")
print(f"diff.windows: {len(checklist.failures)} failed")
sys.exit(1 if checklist.failures else 0)
