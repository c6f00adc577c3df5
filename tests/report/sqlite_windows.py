#!/usr/bin/env python3
"""`report --sqlite` of a windowed profile: the tables windows and marks, read back with
Python's sqlite3, against the profile's JSON (capture.windows, capture.marks) and the JSON
summary of the same read (summary.windows' graphs and records), and against a count made by
SQLite itself over the database's graphs table (the graphs whose start is inside a window:
independent of opscope's count). Three windows (a closed one, a gap, a closed one, then one
open at the last write), graphs before the first window and in the gaps, two marks. A profile
without windows or marks: both tables empty, meta windowed 0.

usage: sqlite_windows.py OPSCOPE WORKDIR
"""
import json
import os
import sqlite3
import subprocess
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))
from checks import check, done, load  # noqa: E402

WINDOWS = [{"start_ns": 10_000, "end_ns": 40_000}, {"start_ns": 60_000, "end_ns": 70_000},
           {"start_ns": 100_000, "end_ns": 0}]
MARKS = [{"ts_ns": 12_000, "text": "slow request \u00e9"}, {"ts_ns": 101_000, "text": ""}]
# graph g starts at 5_000 + 7_000 g (5k before the first window, ...), g % 3 + 1 records
RECORDS = [{"type": 0, "name": "MUL", "backend_id": 0, "split_id": 0, "graph_id": g,
            "start_ns": 5_000 + 7_000 * g + 100 * k, "duration_ns": 40, "ne": [8, 1, 1, 1]}
           for g in range(18) for k in range(g % 3 + 1)]


def by_hand():
    """Per window (graphs, records): window 1 [10k, 40k) holds graphs 1-4 (starts 12k-33k),
    graph 5 (40k, at its end) outside, window 2 [60k, 70k) graphs 8, 9 (61k, 68k), window 3
    [100k, open) graphs 14-17 (103k-124k); the other 8 graphs in none."""
    recs = lambda gs: sum(g % 3 + 1 for g in gs)  # noqa: E731
    return [(4, recs(range(1, 5))), (2, recs([8, 9])), (4, recs(range(14, 18)))]


def write(path, capture):
    with open(path, "w") as f:
        json.dump({"profiler": "opscope", "version": 3,
                   "backends": [{"id": 0, "name": "CPU", "device": "cpu", "device_type": 0}],
                   "capture": capture, "records": RECORDS}, f)


def report(opscope, prof, db, js):
    for p in (db, js):
        if os.path.exists(p):
            os.unlink(p)
    return subprocess.run([opscope, "report", prof, "--sqlite", db, "--json", js, "-q"], capture_output=True)


def main():
    opscope, work = sys.argv[1], sys.argv[2]
    os.makedirs(work, exist_ok=True)
    prof, db, js = (os.path.join(work, n) for n in ("windowed.json", "windowed.db", "windowed-out.json"))
    write(prof, {"host": "h", "start_ns": 1_000, "windowed": True, "windows": WINDOWS, "marks": MARKS})
    r = report(opscope, prof, db, js)
    check(r.returncode == 0, f"report --sqlite --json exits 0 ({r.returncode}: {r.stderr.decode()[:200]})")
    d = load(js)
    con = sqlite3.connect(db)
    rows = con.execute("SELECT window, start_ns, end_ns, graphs, records FROM windows ORDER BY window").fetchall()
    cap = d["capture"]
    check([(i + 1, w["start_ns"], w["end_ns"] or None) for i, w in enumerate(cap["windows"])]
          == [x[:3] for x in rows], f"windows' times as the profile's JSON, open as NULL ({rows})")
    summ = [(w["graphs"], w["records"]) for w in d["summary"]["windows"]]
    check([x[3:] for x in rows] == summ, f"windows' graphs, records as summary.windows ({summ})")
    check(summ == by_hand(), f"summary.windows {summ} as worked by hand {by_hand()}")
    # SQLite's own count over the graphs table: no opscope code in it
    q = con.execute("""SELECT w.window, count(g.graph_id), ifnull(sum(g.n_records), 0) FROM windows AS w
                       LEFT JOIN graphs AS g ON g.start_ns >= w.start_ns
                         AND (w.end_ns IS NULL OR g.start_ns < w.end_ns)
                       GROUP BY w.window ORDER BY w.window""").fetchall()
    check([x[1:] for x in q] == [x[3:] for x in rows], f"SQLite's count over graphs {q} equals the table's")
    outside = con.execute("""SELECT count(*) FROM graphs AS g WHERE NOT EXISTS (SELECT 1 FROM windows AS w
                             WHERE g.start_ns >= w.start_ns AND (w.end_ns IS NULL OR g.start_ns < w.end_ns))""").fetchone()[0]
    check(outside == d["summary"].get("graphs_outside_windows") == 18 - 10,
          f"graphs in no window: SQLite {outside}, summary {d['summary'].get('graphs_outside_windows')}, by hand 8")
    marks = con.execute("SELECT mark, ts_ns, text FROM marks ORDER BY mark").fetchall()
    check(marks == [(i + 1, m["ts_ns"], m["text"]) for i, m in enumerate(cap["marks"])] and len(marks) == 2,
          f"marks as the profile's JSON ({marks})")
    meta = dict(con.execute("SELECT key, value FROM meta").fetchall())
    check(meta.get("windowed") == 1 and meta.get("schema_version") == 5, f"meta windowed 1, schema_version 5 ({meta})")
    con.close()
    # paused all along (windowed, no window), then recorded whole: no rows in either table
    for capture, windowed, what in (({"windowed": True, "windows": [], "marks": []}, 1, "stayed paused"),
                                    ({}, 0, "recorded whole")):
        write(prof, dict({"host": "h", "start_ns": 1_000}, **capture))
        r = report(opscope, prof, db, js)
        con = sqlite3.connect(db)
        n = [con.execute(f"SELECT count(*) FROM {t}").fetchone()[0] for t in ("windows", "marks")]
        w = con.execute("SELECT value FROM meta WHERE key = 'windowed'").fetchone()
        check(r.returncode == 0 and n == [0, 0] and w == (windowed,),
              f"{what}: empty tables, meta windowed {windowed} ({n}, {w})")
        con.close()
    return done("report.sqlite_windows")


if __name__ == "__main__":
    sys.exit(main())
