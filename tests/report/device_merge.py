#!/usr/bin/env python3
"""One device, several backend ids: shown once.

A llama-completion run on CPU + Vulkan makes two ggml backend objects per device, and the
capture gives each an id: 0 CPU (no records), 1 Vulkan0 (the copies made while loading),
2 CPU and 3 Vulkan0 (the decode). The profile below has that layout (written by hand, numbers
chosen here); the console and text reports must list each device once with its ids and the
sums of its backends, the JSON summary keeps `backends` per id and adds `devices`, and the
HTML viewer shows one set of lanes per device. Backends on different devices, or never
described, stay apart.

Usage: device_merge.py OPSCOPE WORKDIR
"""
import json
import os
import re
import subprocess
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "viewer"))
import viewer_data  # noqa: E402
from checks import check, done  # noqa: E402



VK = "llvmpipe (LLVM 21.1.8, 256 bits)"
BACKENDS = [
    {"id": 0, "name": "CPU", "device": "AMD EPYC", "device_type": 0},
    {"id": 1, "name": "Vulkan0", "device": VK, "device_type": 1},
    {"id": 2, "name": "CPU", "device": "AMD EPYC", "device_type": 0},
    {"id": 3, "name": "Vulkan0", "device": VK, "device_type": 1},
    {"id": 4, "name": "Vulkan1", "device": VK, "device_type": 1},  # another device, same model
]


def rec(t, name, bk, start, dur, nbytes, split=0):
    return {"type": t, "name": name, "backend_id": bk, "split_id": split, "start_ns": start,
            "duration_ns": dur, "bytes": nbytes, "extra": None, "n_src": 1,
            "ne_src": [[256, 1, 1, 1]], "type_src": [0]}


RECORDS = (
    [rec(1, "copy_H2D", 1, 1_000 + 10_000 * i, 4_000, 65_536, -1) for i in range(5)] +   # load
    [rec(0, "MUL_MAT", 3, 200_000 + 50_000 * i, 30_000, 1_024) for i in range(4)] +
    [rec(1, "copy_D2H", 3, 420_000, 2_000, 4_096)] +
    [rec(0, "GET_ROWS", 2, 190_000, 5_000, 1_024), rec(0, "ADD", 2, 460_000, 1_000, 1_024)] +
    [rec(0, "MUL_MAT", 4, 500_000, 7_000, 1_024)] +
    [rec(0, "SCALE", 9, 510_000, 3_000, 1_024)]  # a backend the profile never describes
)


def main():
    opscope, work = sys.argv[1], sys.argv[2]
    os.makedirs(work, exist_ok=True)
    src = os.path.join(work, "dup.json")
    with open(src, "w") as f:
        json.dump({"profiler": "ggml", "version": 3, "backends": BACKENDS, "records": RECORDS}, f)
    out = {k: os.path.join(work, "out." + k) for k in ("json", "txt", "html")}
    p = subprocess.run([opscope, "report", src, "--json", out["json"], "--text", out["txt"],
                        "--html-viewer", out["html"]], stdout=subprocess.PIPE,
                       stderr=subprocess.PIPE, text=True)
    if not check(p.returncode == 0, "report: exit %d %s" % (p.returncode, p.stderr)):
        return

    # expected per device, worked out from RECORDS
    groups = {(0, 2): ("CPU", 2, 6_000, 0, 0), (1, 3): ("Vulkan0", 4, 120_000, 6, 22_000),
              (4,): ("Vulkan1", 1, 7_000, 0, 0), (9,): (None, 1, 3_000, 0, 0)}
    with open(out["txt"]) as f:
        text = f.read()
    for label, rep in (("console", p.stdout), ("text", text)):
        sec = rep[rep.index("By Backend" if label == "console" else "Per-Backend Summary"):]
        sec = sec[:sec.index("opies by direction")]
        heads = re.findall(r"^ Backends? ([\d, ]+)(?::|\n)", sec, re.M)
        check(heads == ["0, 2", "1, 3", "4", "9"], "%s: one entry per device, ids together: %r" % (label, heads))
        check(len(re.findall(r"^ Backends? [\d, ]+: CPU ", sec, re.M)) == 1 and
              len(re.findall(r"^ Backends? [\d, ]+: Vulkan0 ", sec, re.M)) == 1,
              "%s: CPU and Vulkan0 listed once each" % label)
        for ids, (name, n_ops, op_ns, n_copies, copy_ns) in groups.items():
            m = re.search(r"^ Backends? %s\b[^\n]*\n   total +([\d.]+) ms \([ \d.]+%%\) +(\d+) records"
                          % re.escape(", ".join(map(str, ids))), sec, re.M)
            check(m and int(m.group(2)) == n_ops + n_copies and
                  abs(float(m.group(1)) - (op_ns + copy_ns) / 1e6) < 5e-4,
                  "%s: device %r totals %r" % (label, ids, m and m.groups()))
        check("Several ids, one device" in sec, "%s: the note on ids" % label)

    with open(out["json"]) as f:
        summ = json.load(f)["summary"]
    check([b["id"] for b in summ["backends"]] == [0, 1, 2, 3, 4, 9], "JSON: backends per id")
    devs = {tuple(d["backend_ids"]): d for d in summ["devices"]}
    check(list(devs) == list(groups), "JSON: devices %r" % list(devs))
    for ids, (name, n_ops, op_ns, n_copies, copy_ns) in groups.items():
        d = devs.get(ids)
        if not d:
            continue
        recs = [r for r in RECORDS if r["backend_id"] in ids]
        check((d["n_ops"], d["op_ns"], d["n_copies"], d["copy_ns"]) == (n_ops, op_ns, n_copies, copy_ns)
              and d["first_start_ns"] == min(r["start_ns"] for r in recs)
              and d["last_end_ns"] == max(r["start_ns"] + r["duration_ns"] for r in recs)
              and d["copy_bytes"] == sum(r["bytes"] for r in recs if r["type"] == 1),
              "JSON: device %r sums %r" % (ids, d))
        check(name is None or d["name"] == name, "JSON: device %r name" % (ids,))

    with open(out["html"]) as f:
        data, vrecs = viewer_data.decode(f.read())
    lanes = sorted({(r[0], r[1]) for r in vrecs})
    check(lanes == [(0, 0), (1, 0), (1, 1), (4, 0), (9, 0)],
          "viewer: records under one id per device (lowest): %r" % lanes)
    check(len(vrecs) == len(RECORDS), "viewer: every record")




main()
sys.exit(done("device merge"))
