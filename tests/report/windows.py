#!/usr/bin/env python3
"""Capture windows and marks through `report --json`.

A hand-written windowed profile (two windows, the second open at the last write; two
marks, one with a quote and a non-ASCII character) read by `report --json`: the profile's
capture.windowed / windows / marks come back as written, and summary.windows gives per
window the graphs whose first record starts inside it and their records, counted here from
the records, and the graphs that began in no window (summary.graphs_outside_windows: those
in the gap, which the console's section counts in its note too); summary.marks the marks. Written JSON read again gives the same members. A profile
without windows or marks has none of them; windows out of order are refused (exit 2, one
line naming the file).

Usage: windows.py OPSCOPE WORKDIR
"""
import json
import os
import subprocess
import sys

from checks import check, done, load, run

WINDOWS = [{"start_ns": 1_000, "end_ns": 50_000}, {"start_ns": 90_000, "end_ns": 0}]
MARKS = [{"ts_ns": 2_000, "text": "warm \"up\" \u00e9"}, {"ts_ns": 95_000, "text": ""}]
# graph g starts at 10_000 * g + 5_000 and has g + 1 records
RECORDS = [{"type": 0, "name": "ADD", "backend_id": 0, "split_id": 0, "graph_id": g,
            "start_ns": 10_000 * g + 5_000 + 100 * k, "duration_ns": 50, "ne": [4, 1, 1, 1]}
           for g in range(12) for k in range(g + 1)]


def expected_counts():
    """Per window: graphs whose first record starts inside it (at or after its start, before
    its end; the open one has no end, the profile having no last write), and their records;
    then the graphs that start in no window (here the gap 50_000-90_000: graphs 5 to 8)."""
    first = {}
    for r in RECORDS:
        first[r["graph_id"]] = min(first.get(r["graph_id"], 1 << 62), r["start_ns"])
    out, inside = [], set()
    for w in WINDOWS:
        hi = w["end_ns"] or 1 << 62
        gs = {g for g, t in first.items() if w["start_ns"] <= t < hi}
        inside |= gs
        out.append((len(gs), sum(1 for r in RECORDS if r["graph_id"] in gs)))
    return out, len(first) - len(inside)


def main():
    opscope, work = sys.argv[1], sys.argv[2]
    os.makedirs(work, exist_ok=True)
    prof = os.path.join(work, "windowed.json")
    with open(prof, "w") as f:
        json.dump({"profiler": "opscope", "version": 3,
                   "backends": [{"id": 0, "name": "CPU", "device": "cpu", "device_type": 0}],
                   "capture": {"host": "h", "start_ns": 500, "windowed": True, "windows": WINDOWS, "marks": MARKS},
                   "records": RECORDS}, f)
    out = os.path.join(work, "out.json")
    r = run([opscope, "report", prof, "--json", out, "-q"])
    check(r.returncode == 0, f"report --json exits 0 ({r.returncode}: {r.stderr.decode()[:200]})")
    d = load(out)
    cap = d.get("capture", {})
    check(cap.get("windowed") is True, "capture.windowed is true")
    check(cap.get("windows") == WINDOWS, f"capture.windows as written ({cap.get('windows')})")
    check(cap.get("marks") == MARKS, f"capture.marks as written ({cap.get('marks')})")
    s = d.get("summary", {})
    check(s.get("windowed") is True, "summary.windowed is true")
    got = [(w.get("graphs"), w.get("records")) for w in s.get("windows", [])]
    want, outside = expected_counts()
    # worked by hand: window 1 holds graphs 0-4 (1+2+3+4+5 records), window 2 graphs 9-11
    # (10+11+12), graphs 5-8 began in the gap
    check(want == [(5, 15), (3, 33)] and outside == 4, f"the script's count {want}, {outside} outside")
    check(got == want, f"summary.windows graphs/records {got} == {want}")
    check(s.get("graphs_outside_windows") == outside,
          f"summary.graphs_outside_windows {s.get('graphs_outside_windows')} == {outside}")
    check([{"start_ns": w["start_ns"], "end_ns": w["end_ns"]} for w in s.get("windows", [])] == WINDOWS,
          "summary.windows' times as the capture's")
    check(s.get("marks") == MARKS, "summary.marks as the capture's")
    # the text report's section counts the same graphs, and the gap's in its note
    txt = os.path.join(work, "out.txt")
    r = run([opscope, "report", prof, "--text", txt, "-q"])
    rows, note, inside = [], None, False
    with open(txt) as f:
        for line in f:
            cols = line.split()
            if "Capture windows and marks (times" in line:
                inside = True
            elif cols[:1] == ["mark"]:  # the marks' rows follow the windows'
                inside = False
            elif inside and len(cols) >= 7 and cols[0].isdigit():
                rows.append((int(cols[5]), int(cols[6])))
            if "began outside every window" in line:
                note = int(line.split("(")[1].split()[0])
    check(r.returncode == 0 and rows == want, f"--text's window rows {rows} == {want}")
    check(note == outside, f"--text's note: {note} graph computes outside == {outside}")
    # the written profile read again
    out2 = os.path.join(work, "out2.json")
    r = run([opscope, "report", out, "--json", out2, "-q"])
    d2 = load(out2) if r.returncode == 0 else {}
    check(d2.get("capture", {}).get("windows") == WINDOWS and d2.get("capture", {}).get("marks") == MARKS,
          "the exported profile read again keeps windows and marks")
    # not windowed, no marks: no member
    plain = os.path.join(work, "plain.json")
    with open(plain, "w") as f:
        json.dump({"profiler": "opscope", "version": 3, "capture": {"host": "h", "start_ns": 500},
                   "records": RECORDS}, f)
    r = run([opscope, "report", plain, "--json", out, "-q"])
    d = load(out)
    check("windowed" not in d.get("capture", {}) and "windows" not in d.get("summary", {})
          and "marks" not in d.get("summary", {}), "a profile without windows has no window members")
    # windows out of order: exit 2, one line naming the file
    bad = os.path.join(work, "bad.json")
    with open(bad, "w") as f:
        json.dump({"capture": {"windowed": True, "windows": [WINDOWS[1], WINDOWS[0]]}, "records": RECORDS}, f)
    r = run([opscope, "report", bad, "--json", os.path.join(work, "never.json"), "-q"])
    err = r.stderr.decode().strip().splitlines()
    check(r.returncode == 2, f"windows out of order: exit 2 ({r.returncode})")
    check(len(err) == 1 and "bad.json" in err[0] and "time order" in err[0], f"one line naming the file ({err})")
    check(not os.path.exists(os.path.join(work, "never.json")), "no output left")
    return done("report.windows")


if __name__ == "__main__":
    sys.exit(main())
