#!/usr/bin/env python3
"""Capture windows and marks in the console, the text report and the Chrome trace.

A hand-written windowed profile (the capture starts at 1000 s on its clock; windows at
3.10-9.50 s and 20.00-26.00 s from its start; record saw the program die at 61.20 s; two
marks) read by `report --text --chrome-trace`: the console's first screen says the windows,
what was recorded of the run and the marks; its section gives per window its start, end,
duration, the time not recorded before it and the graphs and records that began in it, and
per mark its time and text; the text report the same; the Chrome trace, parsed, has a slice
per window on a "capture windows" track at the windows' times and a global instant per mark
with its text. Every figure is worked out here from the profile written. A profile recorded
whole without marks has none of it and the same console as before (no line, no section).

Usage: win_outputs.py OPSCOPE WORKDIR
"""
import json
import os
import sys

from checks import check, done, load, run

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "viewer"))
import viewer_data  # noqa: E402

S = 10**9
START = 1000 * S
WINDOWS = [(START + 3_100_000_000, START + 9_500_000_000), (START + 20 * S, START + 26 * S)]
DIED = START + 61_200_000_000
MARKS = [(START + 4_200_000_000, "slow request begins"), (START + 21 * S, 'cache "cleared" \u00e9')]


def records():
    """Graph computes every 0.25 s inside each window (three records each)."""
    out, g = [], 0
    for s, e in WINDOWS:
        t = s + 50_000_000
        while t < e - 50_000_000:
            for k, (name, dur) in enumerate([("MUL_MAT", 3_000_000), ("ADD", 200_000), ("SOFT_MAX", 500_000)]):
                out.append({"type": 0, "name": name, "backend_id": 0, "split_id": 0, "graph_id": g,
                            "start_ns": t + k * 4_000_000, "duration_ns": dur, "bytes": 4096, "n_src": 1,
                            "ne_src": [[256, 1, 1, 1]], "type_src": [0]})
            g, t = g + 1, t + 250_000_000
    return out


def graph_starts():
    """Each graph compute's first record's start, by graph id."""
    out = {}
    for r in records():
        out.setdefault(r["graph_id"], r["start_ns"])
    return out


def decodes():
    """libllama's calls, one per graph compute: request 1 (seq 0) in graphs 0-4 with no prompt
    token (its prompt was decoded before window 1 opened), request 2 in graphs 5-9 (a prompt of
    4 tokens, then 4 generated), request 3 in graphs 40-49 (3 prompt tokens, then 9 generated),
    its last call ending 0.188 s before window 2 closed: less than two of its 0.25 s call
    intervals, so it was cut by the window's end (docs/metrics.md, "Requests")."""
    g0, out = graph_starts(), []

    def call(g, req, tokens, prompt):
        out.append({"start_ns": g0[g] - 1_000_000, "end_ns": g0[g] + 12_000_000, "graph": g, "graphs": 1,
                    "tokens": tokens, "outputs": 1, "context": 0, "ret": 0,
                    "seqs": [{"seq": 0, "request": req, "tokens": tokens, "prompt": prompt, "outputs": 1}]})
    for g in range(0, 5):
        call(g, 1, 1, 0)
    call(5, 2, 4, 4)
    for g in range(6, 10):
        call(g, 2, 1, 0)
    call(40, 3, 3, 3)
    for g in range(41, 50):
        call(g, 3, 1, 0)
    return out


# request -> its "partial" (none: whole), by the rules in decodes()'s comment
PARTIAL = {1: "start", 3: "end"}


def profile(path, windowed, marks):
    cap = {"program": "llama-server", "pid": 4242, "start_ns": START,
           "end": {"how": "killed", "signal": "SIGKILL", "at_ns": START + 61 * S, "died_ns": DIED}}
    if windowed:
        cap.update(windowed=True, windows=[{"start_ns": s, "end_ns": e} for s, e in WINDOWS])
    if windowed:
        cap["decodes"] = decodes()
    if marks:
        cap["marks"] = [{"ts_ns": t, "text": x} for t, x in MARKS]
    with open(path, "w") as f:
        json.dump({"profiler": "ggml", "version": 3, "backends": [{"id": 0, "name": "CPU", "device": "cpu",
                   "device_type": 0}], "records": records(), "capture": cap}, f)


def first_screen(stdout):
    """The console's first screen: its lines between the first and the third rule."""
    parts = stdout.split("=" * 80)
    return (parts[1] + parts[2]).splitlines() if len(parts) > 3 else []


def sec(ns):
    return (ns - START) / 1e9


def expected_rows():
    """Per window its row as the section prints it, from the records written."""
    firsts = {}
    for r in records():
        firsts.setdefault(r["graph_id"], []).append(r["start_ns"])
    rows, prev = [], START
    for i, (s, e) in enumerate(WINDOWS):
        gs = [g for g, ts in firsts.items() if s <= min(ts) < e]
        n = sum(len(firsts[g]) for g in gs)
        rows.append(f" {i + 1:6d} {sec(s):12.3f} {sec(e):12.3f} {(e - s) / 1e9:12.3f} {(s - prev) / 1e9:23.3f}"
                    f" {len(gs):10d} {n:12d}")
        prev = e
    return rows


def data_t0(data):
    return int(data["t0"])


def main():
    opscope, work = sys.argv[1], sys.argv[2]
    os.makedirs(work, exist_ok=True)
    src, txt, trace = (os.path.join(work, n) for n in ("win.json", "win.txt", "win-trace.json"))
    profile(src, True, True)
    p = run([opscope, "report", src, "--text", txt, "--chrome-trace", trace], text=True)
    check(p.returncode == 0, f"report exits 0 ({p.returncode}: {p.stderr!r})")
    recorded = sum(e - s for s, e in WINDOWS) / 1e9
    head = (f" Windows:       2 ({recorded:.2f} s recorded of {sec(DIED):.2f} s: "
            + ", ".join(f"{sec(s):.2f}-{sec(e):.2f} s" for s, e in WINDOWS)
            + "); graph computes outside them are not in this profile")
    screen = first_screen(p.stdout)
    check(head in screen, f"the first screen says the windows: {head!r} ({screen})")
    check(' Marks:         2 (named instants: under "Capture windows and marks")' in screen, "and the marks")
    lines = p.stdout.splitlines()
    for row in expected_rows():
        check(row in lines, f"console: the window row {row!r}")
    after = f" not recorded after the last window: {(DIED - WINDOWS[-1][1]) / 1e9:.3f} s (to {sec(DIED):.3f} s)"
    check(after in lines, f"console: {after!r}")
    for i, (t, x) in enumerate(MARKS):
        row = f" {i + 1:6d} {sec(t):12.3f}  {x}"
        check(row in lines, f"console: the mark row {row!r}")
    with open(txt, encoding="utf-8") as f:
        tl = f.read().splitlines()
    check(head.replace("Windows:  ", "Windows:   ") in tl, "the text report's header says the windows")
    check(all(r in tl for r in expected_rows()) and after in tl, "the text report has the window rows")

    ev = load(trace)["traceEvents"]
    tracks = [e for e in ev if e.get("ph") == "M" and e.get("name") == "thread_name"
              and e["args"].get("name") == "capture windows"]
    check(len(tracks) == 1, f"Chrome: one \"capture windows\" track ({len(tracks)})")
    pid = tracks[0]["pid"] if tracks else None
    slices = [e for e in ev if e.get("ph") == "X" and e.get("cat") == "window"]
    want = [(s / 1e3, (e - s) / 1e3) for s, e in WINDOWS]
    check([(e["ts"], e["dur"]) for e in slices] == want and all(e["pid"] == pid and e["tid"] == tracks[0]["tid"]
          for e in slices), f"Chrome: a slice per window on that track at its times in us ({slices})")
    inst = [e for e in ev if e.get("ph") == "i"]
    check([(e["ts"], e["name"], e.get("s")) for e in inst] == [(t / 1e3, x, "g") for t, x in MARKS],
          f"Chrome: a global instant per mark with its text ({inst})")

    # the requests a window's edge cut: said in the trace's args and the viewer's data
    reqs = {e["args"]["request"]: e["args"].get("partial") for e in ev if e.get("cat") == "request"}
    check(reqs == {q: PARTIAL.get(q) for q in (1, 2, 3)}, f"Chrome: the partial requests' args ({reqs})")
    html = os.path.join(work, "win.html")
    v = run([opscope, "view", src, "-o", html, "-q"], text=True)
    with open(html, encoding="utf-8") as f:
        data, _ = viewer_data.decode(f.read())
    rq = data.get("requests", {})
    cut = {"start": 1, "end": 2}
    check(v.returncode == 0 and rq.get("request") == [1, 2, 3] and
          rq.get("partial") == [cut.get(PARTIAL.get(q), 0) for q in (1, 2, 3)],
          f"the viewer's data marks the partial requests ({rq.get('request')}, {rq.get('partial')})")
    check(data.get("windows", {}).get("start") == [s - data_t0(data) for s, _ in WINDOWS],
          "the viewer's data has the windows after t0")

    # recorded whole, no marks: nothing of it
    plain = os.path.join(work, "plain.json")
    profile(plain, False, False)
    q = run([opscope, "report", plain, "--chrome-trace", os.path.join(work, "plain-trace.json")], text=True)
    check(q.returncode == 0 and "Windows:" not in q.stdout and "Marks:" not in q.stdout
          and "Capture windows" not in q.stdout, "a profile recorded whole without marks: no line, no section")
    pev = load(os.path.join(work, "plain-trace.json"))["traceEvents"]
    check(not [e for e in pev if e.get("cat") in ("window", "mark")], "and no window or mark in its trace")
    # marks alone
    profile(plain, False, True)
    q = run([opscope, "report", plain], text=True)
    check("Windows:" not in q.stdout and " Marks:         2 (" in q.stdout and
          f" {1:6d} {sec(MARKS[0][0]):12.3f}  {MARKS[0][1]}" in q.stdout.splitlines(),
          "a profile recorded whole with marks: the marks alone")
    return done("win_outputs")


if __name__ == "__main__":
    sys.exit(main())
