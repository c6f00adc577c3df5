"""`opscope report TRACE --critical-path-trace FILE` (docs/kineto.md, "The critical path on
the trace") against HTA's overlay_critical_path_analysis on the same traces and windows
(critical_path/hta_overlay.json.gz: the events HTA marked critical and its flows) and against
the input itself:
- the output holds the input's events in order, each unchanged but for "critical": 1 in the
  args of those on the path (args added when it had none), then only the path's flows;
- every marked event is a complete (X) slice; the marked set is HTA's but for the path's
  zero-weight end (EXPECT: HTA and opscope break the tie between equally long paths
  differently: opscope ends at the latest node, a synchronizing call after the last kernel);
- every flow has its start and end (same id, start not after end), each inside (or at an end
  of) a marked slice of its pid and tid; the flows are HTA's but for the same end.

usage: check_cpath_trace.py OPSCOPE TRACES_DIR CP_DIR WORK_DIR
"""
import copy
import gzip
import json
import os
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from trace_ref import check, failures, load, ns  # noqa: E402

FWD = "[param|pytorch.model.alex_net|0|0|0|measure|forward]"
# trace, where, window options, (marked: HTA's missing here, extra here), (flows: missing, extra):
# the differences are the paths' ends (above), each named by the call that ends one path
CASES = [
    ("a100_alexnet_fwd", "T", ["--critical-path-annotation", FWD, "--critical-path-instance", "1"],
     ([], ["cudaDeviceSynchronize"]), (0, 1)),
    ("simple_add", "C", ["--critical-path-annotation", FWD, "--critical-path-instance", "1"],
     ([], ["cudaDeviceSynchronize"]), (0, 1)),
    ("cuda_event_sync", "C", [], (["cudaEventSynchronize"], ["cudaDeviceSynchronize"]), (2, 2)),
]


def key(e):
    return (e["pid"], e["tid"], ns(e["ts"]), ns(e.get("dur", 0)))


def unmarked(e):
    """E without the mark this output adds."""
    e = copy.deepcopy(e)
    a = e.get("args")
    if isinstance(a, dict) and a.get("critical") == 1:
        del a["critical"]
        if not a and list(e).index("args") == len(e) - 1:
            del e["args"]
    return e


def main():
    opscope, tdir, cdir, work = sys.argv[1:5]
    os.makedirs(work, exist_ok=True)
    with gzip.open(os.path.join(cdir, "hta_overlay.json.gz")) as f:
        hta = json.load(f)
    for name, where, opts, (miss_ok, extra_ok), (fmiss, fextra) in CASES:
        path = os.path.join(tdir if where == "T" else cdir, name + ".json.gz")
        out = os.path.join(work, name + ".cpath.json")
        p = subprocess.run([opscope, "report", path, "-q", "--critical-path-trace", out] + opts,
                           capture_output=True, text=True)
        check(p.returncode == 0, f"{name}: exit {p.returncode}: {p.stderr.strip()}")
        if p.returncode:
            continue
        events, got = load(path), load(out)
        check(len(got) >= len(events) and [unmarked(e) for e in got[:len(events)]] == events,
              f"{name}: the input's {len(events)} events, in order, unchanged but for the mark")
        flows = got[len(events):]
        check(all(e.get("cat") == "critical_path" and e.get("ph") in ("s", "f") for e in flows),
              f"{name}: only the path's flows follow ({len(flows)})")
        marked = [e for e in got[:len(events)] if (e.get("args") or {}).get("critical") == 1]
        check(all(e.get("ph") == "X" for e in marked), f"{name}: every marked event is an X slice")
        mine = {key(e): e["name"] for e in marked}
        theirs = {(p_, t, ns(ts), ns(d)) for p_, t, ts, d in hta[name]["marked"]}
        names = {key(e): e.get("name") for e in events if e.get("ph") == "X"}
        missing = sorted(names.get(k, "?") for k in theirs - set(mine))
        extra = sorted(mine[k] for k in set(mine) - theirs)
        check(missing == miss_ok and extra == extra_ok,
              f"{name}: marked {len(mine)}, HTA {len(theirs)}: HTA's not marked {missing} (expected {miss_ok}), "
              f"marked beyond HTA's {extra} (expected {extra_ok})")
        ends = {}
        for e in flows:
            ends.setdefault(e["id"], {})[e["ph"]] = (e["pid"], e["tid"], ns(e["ts"]))
        check(all(set(v) == {"s", "f"} and v["s"][2] <= v["f"][2] for v in ends.values()),
              f"{name}: each flow has its start and end, forward in time")
        slices = {}
        for k in mine:
            slices.setdefault(k[:2], []).append((k[2], k[2] + k[3]))
        inside = all(any(s <= t <= e for s, e in slices.get((pid, tid), []))
                     for v in ends.values() for pid, tid, t in v.values())
        check(inside, f"{name}: every flow's ends lie on a marked slice of their thread or stream")
        mine_f = {v["s"] + v["f"] for v in ends.values()}
        theirs_f = {(a, b, ns(c), d, e, ns(f)) for a, b, c, d, e, f in hta[name]["flows"]}
        check(len(theirs_f - mine_f) == fmiss and len(mine_f - theirs_f) == fextra,
              f"{name}: flows {len(mine_f)}, HTA {len(theirs_f)}: {len(theirs_f - mine_f)} of HTA's missing "
              f"(expected {fmiss}), {len(mine_f - theirs_f)} beyond (expected {fextra})")
    p = subprocess.run([opscope, "report", "-", "--critical-path-trace", os.path.join(work, "x.json")],
                       capture_output=True, text=True, input="")
    check(p.returncode == 1 and "stdin" in p.stderr, f"stdin: a usage error (exit {p.returncode})")
    print(f"check_cpath_trace: {len(failures)} failure(s)")
    sys.exit(1 if failures else 0)


if __name__ == "__main__":
    main()
