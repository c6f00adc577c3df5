#!/usr/bin/env python3
"""cpu_threads.py OPSCOPE WORKDIR - every CPU thread's work and wait through `opscope report`: a
hand-written profile whose CPU records carry `threads` and `thread_cpus`, reported as console,
--text, --json and --chrome-trace, against sums made here (Python's own arithmetic, never the
analysis): summary.cpu_threads[], the op groups' threads, the first screen's line, and one
Chrome track per thread with a work slice per record where its work is > 0 and a wait slice
where its wait is."""
import json
import os
import random
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from checks import check, done, load, run  # noqa: E402

opscope, work = sys.argv[1], sys.argv[2]
os.makedirs(work, exist_ok=True)
rng = random.Random(39)
recs, t = [], 1000
for g in range(20):
    for name in ("MUL_MAT", "ADD", "MUL_MAT", "RMS_NORM"):
        w0 = rng.randrange(1000, 5000)
        w1 = w0 * 2 if name == "MUL_MAT" else rng.randrange(0, 3000)  # thread 1 is MUL_MAT's slowest
        top = max(w0, w1)
        thr = [w0, top - w0, w1, top - w1]
        recs.append({"type": 0, "name": name, "backend_id": 0, "split_id": 0, "graph_id": g, "start_ns": t,
                     "duration_ns": top, "bytes": 64, "threads": thr, "thread_cpus": [0, 1]})
        t += top
prof = {"profiler": "opscope", "version": 3, "backends": [{"id": 0, "name": "CPU", "device": "CPU", "device_type": 0}],
        "records": recs + [{"type": 0, "name": "ADD", "backend_id": 0, "split_id": 0, "start_ns": t, "duration_ns": 5,
                            "bytes": 1}]}
path = os.path.join(work, "threads.json")
with open(path, "w") as f:
    json.dump(prof, f)
js, txt, tr = (os.path.join(work, n) for n in ("r.json", "r.txt", "t.json"))
r = run([opscope, "report", path, "--json", js, "--text", txt, "--chrome-trace", tr], text=True)
check(r.returncode == 0, f"report exits 0 ({r.stderr.strip()[:200]})")
s = load(js)["summary"]

work_ns = [sum(x["threads"][2 * i] for x in recs) for i in range(2)]
wait_ns = [sum(x["threads"][2 * i + 1] for x in recs) for i in range(2)]


def slowest(x):
    """The node's slowest thread (the most work, ties the lower), the wait it caused the other
    (its lead) and whether it leads by at least a tenth of its own work."""
    w = [x["threads"][0], x["threads"][2]]
    i = 1 if w[1] > w[0] else 0
    lead = w[i] - w[1 - i]
    return i, lead, w[i] > 0 and lead >= 0.1 * w[i]


slow = [sum(1 for x in recs if slowest(x)[0] == i and slowest(x)[2]) for i in range(2)]
held = [sum(slowest(x)[1] for x in recs if slowest(x)[0] == i) for i in range(2)]
want = [{"thread": i, "work_ns": work_ns[i], "wait_ns": wait_ns[i], "nodes": len(recs), "slowest_nodes": slow[i],
         "held_ns": held[i], "cpu": i} for i in range(2)]
check(s.get("cpu_threads") == want, f"summary.cpu_threads as summed here ({s.get('cpu_threads')} vs {want})")

mm = [x for x in recs if x["name"] == "MUL_MAT"]
g = [o for o in s["ops"] if o["name"] == "MUL_MAT"][0].get("threads")
mx = sum(max(x["threads"][0], x["threads"][2]) for x in mm)
mean = sum((x["threads"][0] + x["threads"][2]) // 2 for x in mm)
check(g is not None and (g["n"], g["work_min_ns"], g["work_mean_ns"], g["work_max_ns"]) ==
      (len(mm), sum(min(x["threads"][0], x["threads"][2]) for x in mm), mean, mx),
      f"MUL_MAT's threads: n and work min/mean/max as summed here ({g})")
check(g and g["wait_ns"] == sum(x["threads"][1] + x["threads"][3] for x in mm), "MUL_MAT's wait_ns")
check(g and abs(g["imbalance"] - mx / mean) < 5e-4 and g["slowest_thread"] == 1 and g["slowest_share"] == 1.0
      and g["held_share"] == 1.0, f"MUL_MAT: imbalance {mx / mean:.3f}, thread 1 the slowest in all of them, "
      f"by twice thread 0's work, and the cause of all their wait ({g})")
plain = [o for o in s["ops"] if o["name"] == "ADD"][0]
check(plain.get("threads", {}).get("n") == 20, "ADD's threads count only its records with per-thread times")

share = 100 * sum(wait_ns) / (sum(work_ns) + sum(wait_ns))
r = run([opscope, "report", path], text=True)
top = 0 if held[0] > held[1] else 1
mm_slow = sum(1 for x in mm if slowest(x)[0] == top and slowest(x)[2])
line = (f"CPU threads lose {share:.0f}% of their time waiting at barriers; thread {top} causes "
        f"{100 * held[top] / sum(held):.0f}% of that wait and is the slowest in {100 * mm_slow / len(mm):.0f}% of "
        f"MUL_MAT nodes")
check(line in r.stdout, f"the first screen says it in one line ({line!r})")
check("CPU threads at ggml's barriers" in r.stdout and "CPU threads at ggml's barriers" in open(txt).read(),
      "console and --text have the section")

ev = load(tr)
ev = ev["traceEvents"] if isinstance(ev, dict) else ev
names = {e["tid"]: e["args"]["name"] for e in ev if e.get("ph") == "M" and e.get("name") == "thread_name"}
tracks = sorted(tid for tid, n in names.items() if n.startswith("CPU thread"))
check([names[t] for t in tracks] == ["CPU thread 0 (CPU 0)", "CPU thread 1 (CPU 1)"],
      f"one track per CPU thread, named with its CPU ({[names[t] for t in tracks]})")
for i, tid in enumerate(tracks):
    ws = [e for e in ev if e.get("ph") == "X" and e.get("tid") == tid and e.get("cat") == "thread_work"]
    wt = [e for e in ev if e.get("ph") == "X" and e.get("tid") == tid and e.get("cat") == "thread_wait"]
    n_work = sum(1 for x in recs if x["threads"][2 * i] > 0)
    n_wait = sum(1 for x in recs if x["threads"][2 * i + 1] > 0)
    check(len(ws) == n_work and len(wt) == n_wait,
          f"thread {i}: {len(ws)} work and {len(wt)} wait slices == {n_work} and {n_wait} records with them")
    check(all(e["name"] in ("MUL_MAT", "ADD", "RMS_NORM") for e in ws) and all(e["name"] == "wait" for e in wt),
          f"thread {i}: work slices named by their op, waits 'wait'")

# A profile without per-thread times: no section, no member, no track.
bare = os.path.join(work, "bare.json")
with open(bare, "w") as f:
    json.dump({"profiler": "opscope", "version": 3, "records": [{"type": 0, "name": "ADD", "start_ns": 0,
                                                                 "duration_ns": 5}]}, f)
r = run([opscope, "report", bare, "--json", js], text=True)
check(r.returncode == 0 and "cpu_threads" not in load(js)["summary"] and "CPU threads" not in r.stdout,
      "without per-thread times: no cpu_threads, no section")
sys.exit(done("cpu_threads"))
