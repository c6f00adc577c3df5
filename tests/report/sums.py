#!/usr/bin/env python3
"""Sums that cannot wrap: durations beyond any real run are bad input.

  sums.py OPSCOPE WORKDIR

Every reader refuses, with exit 2 and the position, a ggml record lasting more than a year
(alone, or times its weight), a profile whose durations add up to more than 2^58 ns, and
the same for Kineto events; every command (report, diff, merge, view) says it. Inputs at the
limit give exact totals: 9 records of a year each, worked out here in integers.
"""
import json
import os
import re
import subprocess
import sys

OPSCOPE, WORK = sys.argv[1], sys.argv[2]
os.makedirs(WORK, exist_ok=True)
os.chdir(WORK)
YEAR = 365 * 86400 * 10**9 + 6 * 3600 * 10**9  # 365.25 days in ns
failures = []


def check(cond, msg):
    print(("ok    " if cond else "FAIL  ") + msg, flush=True)
    if not cond:
        failures.append(msg)


def run(*args):
    r = subprocess.run([OPSCOPE] + list(args), capture_output=True, text=True, timeout=120)
    return r.returncode, r.stdout, r.stderr


def ggml(path, durations, weights=None):
    recs = []
    for i, d in enumerate(durations):
        r = {"type": 0, "name": "MUL_MAT", "backend_id": 0, "split_id": 0, "start_ns": i * YEAR,
             "duration_ns": d, "bytes": 0, "extra": None, "ne_src0": [4, 4, 1, 1], "ne_src1": [4, 1, 1, 1]}
        if weights and weights[i] > 1:
            r["weight"] = weights[i]
        recs.append(r)
    doc = {"profiler": "ggml", "version": 2,
           "backends": [{"id": 0, "name": "CPU", "device": "cpu", "device_type": 0}], "records": recs}
    with open(path, "w") as f:
        f.write('{"profiler":"ggml","version":2,"backends":' + json.dumps(doc["backends"]) + ',"records":[\n')
        f.write(",\n".join(json.dumps(r) for r in recs))
        f.write("\n]}\n")


def kineto(path, durations_us):
    ev = [{"ph": "X", "cat": "kernel", "name": "k", "pid": 0, "tid": 7, "ts": i * 10**13, "dur": d,
           "args": {"device": 0, "stream": 7, "correlation": i}} for i, d in enumerate(durations_us)]
    with open(path, "w") as f:
        json.dump({"schemaVersion": 1, "traceEvents": ev}, f)


def refused(path, line, what, commands=("report", "diff", "merge", "view")):
    for cmd in commands:
        args = {"report": [path], "diff": [path, "ok.json"], "merge": ["-o", "m.json", path, "ok.json"],
                "view": ["-o", "v.html", path]}[cmd]
        rc, out, err = run(cmd, *args)
        pos = f"{path}:{line}:" if line else f"{path}: byte "
        check(rc == 2 and pos in err and what in err,
              f"{cmd} {path}: exit 2 naming the record ({pos}...: {what}) (rc {rc}, {err.strip()[:160]!r})")
    check(not os.path.exists("m.json") and not os.path.exists("v.html"), "no output left by a refused input")


# at the limit: exact totals (9 records of a year: 284,018,400,000 ms; a wrapped sum of
# 9e18 ns records gave "3.9e12 ms" and 464%)
ggml("ok.json", [YEAR] * 9)
rc, out, err = run("report", "ok.json")
total_ms = 9 * YEAR // 10**6
m = re.search(r"Total time:\s+([0-9.]+) ms", out)
check(rc == 0 and m and m.group(1) == f"{total_ms}.00", f"9 records of a year: Total time {total_ms}.00 ms "
      f"({m.group(1) if m else out[:200]!r})")
check(re.search(r"MUL_MAT\s+100\.0%\s+9\s", out) is not None, "%Time 100.0% for the one op")

# one record of 9e18 ns (a valid int64): refused at its duration, line 4 (record 3)
ggml("huge.json", [1000, 2000, 3000, 9 * 10**18, 5000])
refused("huge.json", 5, "duration_ns is beyond any real run")
# a year and a nanosecond
ggml("year1.json", [10, YEAR + 1])
refused("year1.json", 3, "duration_ns is beyond any real run", ("report",))
# under a year alone, over it times its weight (a sampled record standing for 2 computes)
ggml("weighted.json", [10, YEAR // 2 + 1], [1, 2])
refused("weighted.json", 3, "duration_ns times weight is beyond any real run", ("report",))
# each under a year, together more than 2^58 ns: refused at the record that crosses it
n_cross = (2**58) // (YEAR - 1) + 1
ggml("many.json", [YEAR - 1] * (n_cross + 3))
refused("many.json", n_cross + 1, "durations add up to more than 2^58 ns", ("report", "diff"))

# Kineto: an event over a year (4e13 us) and 40 events of 1e13 us (each 0.32 year, 4e17 ns
# together: more than 2^58) are refused; 20 of them (2e17 ns) read with exact totals
kineto("kbig.json", [10**13] * 5 + [4 * 10**13])
rc, out, err = run("report", "kbig.json")
check(rc == 2 and "kbig.json: byte " in err and "\"dur\" is beyond any real run" in err,
      f"Kineto event over a year: exit 2 with its position (rc {rc}, {err.strip()[:160]!r})")
kineto("k40.json", [10**13] * 40)
rc, out, err = run("report", "k40.json")
check(rc == 2 and "durations add up to more than 2^58 ns" in err, f"Kineto events past 2^58 ns: exit 2 (rc {rc})")
kineto("k20.json", [10**13] * 20)
rc, out, err = run("report", "k20.json")
m = re.search(r"Total time:\s+([0-9.]+) ms", out)
check(rc == 0 and m and m.group(1) == f"{20 * 10**13 // 1000}.00",
      f"20 Kineto events of 1e13 us: Total time {20 * 10**10}.00 ms ({m.group(1) if m else err[:200]!r})")

print(f"{'FAILED' if failures else 'passed'}: {len(failures)} failed checks")
sys.exit(1 if failures else 0)
