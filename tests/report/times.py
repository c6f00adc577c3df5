#!/usr/bin/env python3
"""Times beyond any real run are bad input, like durations over a year.

  times.py OPSCOPE WORKDIR

A ggml profile whose record starts near INT64_MAX (the wall span it gave was 9.2e12 ms) is
refused by report, diff, merge and view with exit 2, its file, line, column and byte offset,
and no output; so is every other time field past 2^62 ns (docs/formats.md). Real clocks read:
CLOCK_MONOTONIC of a machine up for days, the same in a time namespace 1000 s ahead, a
realtime offset of 2026, and 2^62 ns itself, with the wall span worked out here.
"""
import json
import os
import re
import sys

import checks
from checks import check

OPSCOPE, WORK = sys.argv[1], sys.argv[2]
os.makedirs(WORK, exist_ok=True)
os.chdir(WORK)
LIMIT = 2**62


def run(*args):
    r = checks.run([OPSCOPE] + list(args), text=True, timeout=300)
    return r.returncode, r.stdout, r.stderr


def rec(start, dur=1000, **kw):
    r = {"type": 0, "name": "MUL_MAT", "backend_id": 0, "split_id": 0, "start_ns": start, "duration_ns": dur,
         "bytes": 0, "ne_src0": [4, 4, 1, 1], "ne_src1": [4, 1, 1, 1]}
    r.update(kw)
    return r


def profile(path, records, capture=None):
    """One record a line (line 1 holds the header): record k is on line k + 2."""
    head = {"profiler": "ggml", "version": 2, "backends": [{"id": 0, "name": "CPU", "device": "cpu", "device_type": 0}]}
    if capture is not None:
        head["capture"] = capture
    text = json.dumps(head)[:-1] + ',"records":[\n' + ",\n".join(json.dumps(r) for r in records) + "\n]}\n"
    with open(path, "w") as f:
        f.write(text)
    return text


def refused(path, text, needle, what, commands=("report", "diff", "merge", "view")):
    """NEEDLE: the offending value's text; its line, column and byte offset come from TEXT."""
    at = text.index(needle)
    line = text.count("\n", 0, at) + 1
    col = at - (text.rfind("\n", 0, at) + 1) + 1
    for cmd in commands:
        args = {"report": [path], "diff": [path, "ok.json"], "merge": ["-o", "m.json", path, "ok.json"],
                "view": ["-o", "v.html", path]}[cmd]
        rc, out, err = run(cmd, *args)
        pos = f"{path}:{line}:{col}: error: {what}"
        check(rc == 2 and pos in err and f"(byte {at})" in err,
              f"{cmd} {path}: exit 2 at {line}:{col} (byte {at}): {what} (rc {rc}, {err.strip()[:200]!r})")
    check(not os.path.exists("m.json") and not os.path.exists("v.html"), "no output left by a refused input")


DAYS = 3 * 86400 * 10**9  # CLOCK_MONOTONIC of a machine up three days
AHEAD = 1000 * 10**9      # a time namespace 1000 s ahead

# real clocks: the wall span from the first start to the last end, worked out here
ok = [rec(DAYS + AHEAD), rec(DAYS + AHEAD + 5_000_000, 2000)]
profile("ok.json", ok, {"clock": "CLOCK_MONOTONIC", "start_ns": DAYS + AHEAD - 10**9,
                        "realtime_offset_ns": 1_795_631_245_480_772_288 - AHEAD,
                        "end": {"how": "exit", "at_ns": DAYS + AHEAD + 10**9}})
rc, out, err = run("report", "ok.json")
m = re.search(r"Wall span:\s+([0-9.]+) ms", out)
check(rc == 0 and m and m.group(1) == "5.00", f"3 days up, 1000 s ahead: read, wall span 5.00 ms ({m.group(1) if m else err!r})")
profile("limit.json", [rec(LIMIT - 10**9), rec(LIMIT, 0)])
rc, out, err = run("report", "limit.json")
m = re.search(r"Wall span:\s+([0-9.]+) ms", out)
check(rc == 0 and m and m.group(1) == "1000.00", f"2^62 ns itself is read (wall span 1000.00 ms: {m.group(1) if m else err!r})")

# the reported input: one record near INT64_MAX among real ones
near = 2**63 - 808
text = profile("near_max.json", [rec(DAYS), rec(DAYS + 10**6), rec(near), rec(DAYS + 2 * 10**6)])
refused("near_max.json", text, str(near), "start_ns is beyond any real run (more than 2^62 ns")
text = profile("past.json", [rec(DAYS), rec(LIMIT + 1)])
refused("past.json", text, str(LIMIT + 1), "start_ns is beyond any real run", ("report",))
# every other time field
for name, records, cap, needle in [
        ("host_start", [rec(DAYS, host_start_ns=LIMIT + 7, host_end_ns=DAYS)], None, "host_start_ns"),
        ("host_end", [rec(DAYS, host_start_ns=DAYS, host_end_ns=LIMIT + 7)], None, "host_end_ns"),
        ("cap_start", [rec(DAYS)], {"start_ns": LIMIT + 7}, "capture.start_ns"),
        ("cap_rt", [rec(DAYS)], {"realtime_offset_ns": -(LIMIT + 7)}, "capture.realtime_offset_ns"),
        ("cap_end", [rec(DAYS)], {"end": {"how": "exit", "at_ns": LIMIT + 7}}, "capture.end.at_ns"),
        ("cap_died", [rec(DAYS)], {"end": {"how": "killed", "died_ns": LIMIT + 7}}, "capture.end.died_ns"),
        ("ctx_end", [rec(DAYS)], {"contexts": [{"end_ns": LIMIT + 7}]}, "end_ns"),
        ("ctx_rep", [rec(DAYS)], {"contexts": [{"reps_ns": [DAYS, LIMIT + 7]}]}, "reps_ns"),
        ("dec_start", [rec(DAYS)], {"decodes": [{"start_ns": LIMIT + 7, "end_ns": LIMIT + 8}]}, "start_ns"),
        ("dec_end", [rec(DAYS)], {"decodes": [{"start_ns": DAYS, "end_ns": LIMIT + 7}]}, "end_ns")]:
    text = profile(name + ".json", records, cap)
    value = str(-(LIMIT + 7)) if name == "cap_rt" else str(LIMIT + 7)
    refused(name + ".json", text, value, needle + " is beyond any real run (more than 2^62 ns", ("report",))

sys.exit(checks.done("times.py"))
