#!/usr/bin/env python3
"""phase_spans.py PROFILE.json - what the viewer's bands and lanes must show, computed here from
the profile's records alone (no opscope code), printed as JSON.

Graph computes: the records of one graph_id; a compute spans its records' earliest start to
latest end. Its phase is the rule docs/metrics.md gives (and diff's `--by phase`): the widest
matrix product's rows (src1 ne[1] of a MUL_MAT, ne[2] of a MUL_MAT_ID) and the attention's
queries per sequence (src0 ne[1] of a FLASH_ATTN_EXT); queries when there is attention, else
rows: above 1 prefill, 1 decode, none without a matrix product. A phase band is a run of
consecutive computes (by start) of one phase. Times are ns after the earliest record's start.

Lanes: one per device (backend name, description and type) and kind (op or copy) by default,
one per split of each when expanded.
"""
import json
import sys


def main():
    doc = json.load(open(sys.argv[1]))
    recs = doc["records"]
    t0 = min(r["start_ns"] for r in recs)
    graphs = {}
    for r in recs:
        gid = r.get("graph_id")
        if not isinstance(gid, int):
            continue
        g = graphs.setdefault(gid, {"id": gid, "start": None, "end": None, "rows": 0, "queries": 0})
        a, e = r["start_ns"] - t0, r["start_ns"] + r["duration_ns"] - t0
        g["start"] = a if g["start"] is None else min(g["start"], a)
        g["end"] = e if g["end"] is None else max(g["end"], e)
        src = r.get("ne_src") or []
        if r["type"] != 0 or not src:  # copies and ops without sources decide nothing
            continue
        if r["name"] == "MUL_MAT" and len(src) >= 2:
            g["rows"] = max(g["rows"], r["ne_src"][1][1])
        elif r["name"] == "MUL_MAT_ID" and len(src) >= 2:
            g["rows"] = max(g["rows"], r["ne_src"][1][2])
        elif r["name"] == "FLASH_ATTN_EXT":
            g["queries"] = max(g["queries"], r["ne_src"][0][1])
    out = []
    for g in sorted(graphs.values(), key=lambda g: (g["start"], g["id"])):
        q = g["queries"] or g["rows"]
        g["phase"] = "prefill" if q > 1 else "decode" if q == 1 else "none"
        out.append({"id": g["id"], "start": g["start"], "end": g["end"], "phase": g["phase"], "batch": g["rows"]})
    runs = []
    for g in out:
        if runs and runs[-1]["phase"] == g["phase"]:
            runs[-1]["end"] = max(runs[-1]["end"], g["end"])
            runs[-1]["n"] += 1
        else:
            runs.append({"phase": g["phase"], "start": g["start"], "end": g["end"], "n": 1})
    be = {b["id"]: (b["name"], b.get("device", ""), b.get("device_type", 0)) for b in doc["backends"]}
    per_backend, per_split = set(), set()
    for r in recs:
        dev = be[r["backend_id"]]
        per_backend.add((dev[0], r["type"]))
        per_split.add((dev, r["type"], r.get("split_id", -1)))
    print(json.dumps({
        "t0": t0, "graphs": out, "runs": runs,
        "backend_lanes": sorted([n, c] for n, c in per_backend),
        "split_lanes": len(per_split),
    }))


if __name__ == "__main__":
    main()
