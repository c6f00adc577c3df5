#!/usr/bin/env python3
"""Writes a large Kineto trace by concatenating the test traces' events (tests/kineto/traces).

Usage: make_big.py TRACE_DIR OUT.json TARGET_MB

Each copy of a trace's events is shifted in time past the previous copy and gets its
correlation / External id / flow ids offset, so links stay one-to-one as in a long capture.
The output keeps Kineto's layout: one event per line, ", " and ": " separators.
"""
import glob
import gzip
import json
import os
import sys


def main():
    tdir, out, target = sys.argv[1], sys.argv[2], int(sys.argv[3]) << 20
    traces = []
    for p in sorted(glob.glob(os.path.join(tdir, "*.json")) + glob.glob(os.path.join(tdir, "*.json.gz"))):
        with (gzip.open if p.endswith(".gz") else open)(p, "rt") as f:
            d = json.load(f)
        ev = d["traceEvents"] if isinstance(d, dict) else d
        ev = [e for e in ev if isinstance(e, dict) and e.get("ph") != "M"]
        if ev:
            traces.append(ev)
    ddp = os.path.join(tdir, "a100_ddp_train_rank0.json")
    with (gzip.open(ddp + ".gz", "rt") if os.path.exists(ddp + ".gz") else open(ddp)) as f:
        props = json.load(f)["deviceProperties"]
    written = 0
    shift_ts = 0
    id_off = 0
    with open(out + ".tmp", "w") as f:
        f.write('{\n  "schemaVersion": 1,\n  "deviceProperties": ' + json.dumps(props) +
                ',\n  "traceEvents": [\n')
        first = True
        while written < target:
            for ev in traces:
                lo = min((e["ts"] for e in ev if isinstance(e.get("ts"), (int, float))), default=0)
                hi = max((e["ts"] + e.get("dur", 0) for e in ev
                          if isinstance(e.get("ts"), (int, float))), default=0)
                lines = []
                for e in ev:
                    e = dict(e)
                    if isinstance(e.get("ts"), (int, float)):
                        e["ts"] = round(e["ts"] - lo + shift_ts, 3)
                    a = e.get("args")
                    if isinstance(a, dict):
                        a = dict(a)
                        for k in ("correlation", "External id"):
                            if isinstance(a.get(k), int):
                                a[k] += id_off
                        e["args"] = a
                    if isinstance(e.get("id"), int):
                        e["id"] += id_off
                    lines.append(("  " if first else ",\n  ") + json.dumps(e))
                    first = False
                s = "".join(lines)
                f.write(s)
                written += len(s)
                shift_ts += (hi - lo) + 1000
                id_off += 100000000
                if written >= target:
                    break
        f.write('\n  ],\n  "displayTimeUnit": "ms"\n}\n')
    os.replace(out + ".tmp", out)
    print(f"{out}: {os.path.getsize(out) / 1e6:.1f} MB")


if __name__ == "__main__":
    main()
