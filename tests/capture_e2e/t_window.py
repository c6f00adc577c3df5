#!/usr/bin/env python3
"""Capture windows on a running llama-server: `opscope record --paused`, `opscope ctl start`
and `ctl stop`, twice, with 4 clients sending requests in a loop all along.

Each client logs its own requests: the CLOCK_MONOTONIC time it sent each one and the time the
answer came back (the capture's clock is CLOCK_MONOTONIC too), and the server's own
`timings.prompt_n` / `predicted_n` and `id_slot` for it. Then, against the profile:
- it is windowed, with two windows, each opened after its `ctl start` was sent and before it
  returned, closed after its `ctl stop` was sent and before it returned;
- no record starts before the first window opened, and every graph began inside a window;
- every request that was sent after a `ctl start` returned and came back before its `ctl stop`
  was sent is in summary.requests, whole: its slot, prompt tokens and sampled tokens equal the
  server's, and its span lies within the client's send and return;
- no request in summary.requests lies within a client request that came back before the
  first `ctl start` was sent (nothing from before the window);
- `ctl status` says paused before the start and recording inside;
- summary.windows gives each window its graphs.
Prints the counts: requests sent, inside the windows, found in the profile.
usage (inside the root): t_window.py
"""
import json
import os
import signal
import subprocess
import sys
import threading
import time
import urllib.request

import e2e

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))
from procs import free_port, healthy  # noqa: E402

# seconds each window stays open: several of the loaded tiny server's requests (1 to 3 s
# each on 2 shared cores) start and end inside it
WINDOW_S = 12

e2e.need_preload()
e2e.guard_children()
m = e2e.model("tiny-dense-f32")
d = e2e.outdir("window")
prof = f"{d}/profile.json"
port = free_port()
env = e2e.env_for([], extra={"OPSCOPE_CHECKPOINT_MS": "200"})
env.pop("LD_PRELOAD", None)
env["OPSCOPE_LIB"] = e2e.PRELOAD
log = open(f"{d}/server.log", "wb")
rec = subprocess.Popen([e2e.OPSCOPE, "record", "--paused", "-o", prof, "--", "llama-server", "-m", m, "--parallel",
                        "4", "-c", "4096", "-t", "2", "--host", "127.0.0.1", "--port", str(port), "--threads-http",
                        "4", "--no-webui"], env=env, stdout=log, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL)
if not e2e.check(healthy(port, rec), "llama-server under record --paused becomes healthy"):
    e2e.stop_children(rec)
    e2e.finish()

done = threading.Event()
sent = []  # (client, send_ns, return_ns, slot, prompt_n, predicted_n)
lock = threading.Lock()


def client(i):
    k = 0
    while not done.is_set():
        body = {"prompt": f"C{i} r{k}: " + "go " * i, "n_predict": 2 + i,
                "temperature": 0, "seed": i, "cache_prompt": False, "ignore_eos": True}
        req = urllib.request.Request(f"http://127.0.0.1:{port}/completion", json.dumps(body).encode(),
                                     {"Content-Type": "application/json"})
        t0 = time.monotonic_ns()
        try:
            with urllib.request.urlopen(req, timeout=120) as r:
                a = json.loads(r.read())
        except OSError:
            continue
        t1 = time.monotonic_ns()
        with lock:
            sent.append((i, t0, t1, a.get("id_slot"), a["timings"]["prompt_n"], a["timings"]["predicted_n"]))
        k += 1


def ctl(*args):
    t0 = time.monotonic_ns()
    r = subprocess.run([e2e.OPSCOPE, "ctl", *args], env=env, capture_output=True, text=True, timeout=60)
    return t0, time.monotonic_ns(), r


threads = [threading.Thread(target=client, args=(i,)) for i in range(4)]
for t in threads:
    t.start()
time.sleep(8)
_, _, st = ctl("--pid", str(rec.pid), "status")
e2e.check(st.returncode == 0 and " paused " in st.stdout, f"ctl status before the start: paused ({st.stdout.strip()})")
marks = []
for w, how in enumerate((["--pid", str(rec.pid)], ["-o", prof])):
    s0, s1, r = ctl(*how, "start")
    e2e.check(r.returncode == 0 and "started" in r.stdout, f"window {w + 1}: ctl {how[0]} start ({r.stdout.strip()}"
              f"{r.stderr.strip()})")
    time.sleep(1)
    _, _, st = ctl(*how, "status")
    e2e.check(" recording " in st.stdout, f"window {w + 1}: ctl status says recording ({st.stdout.strip()})")
    time.sleep(WINDOW_S)
    e0, e1, r = ctl(*how, "stop")
    e2e.check(r.returncode == 0 and "stopped" in r.stdout, f"window {w + 1}: ctl stop ({r.stdout.strip()})")
    marks.append((s0, s1, e0, e1))
    time.sleep(4)
done.set()
for t in threads:
    t.join()
rec.send_signal(signal.SIGTERM)
try:
    rc = rec.wait(timeout=60)
except subprocess.TimeoutExpired:
    rc = None
e2e.stop_children(rec)
log.close()
e2e.check(rc == 0, f"record ends with the server's exit status 0 ({rc})")

p = e2e.load_checked(prof, "written and valid JSON")
cap = p.get("capture", {})
wins = cap.get("windows", [])
e2e.check(cap.get("windowed") is True and len(wins) == 2, f"the profile is windowed, two windows ({wins})")
for w, (win, (s0, s1, e0, e1)) in enumerate(zip(wins, marks)):
    e2e.check(s0 <= win["start_ns"] <= s1, f"window {w + 1} opened while its ctl start ran ({s0} <= {win['start_ns']} <= {s1})")
    e2e.check(e0 <= win["end_ns"] <= e1, f"window {w + 1} closed while its ctl stop ran ({e0} <= {win['end_ns']} <= {e1})")
recs = p.get("records", [])
before = sum(1 for r in recs if r["start_ns"] < wins[0]["start_ns"]) if wins else -1
e2e.check(bool(recs) and before == 0, f"no record starts before the first window ({before} of {len(recs)})")
graphs = {}
for r in recs:
    g = r.get("graph_id")
    if g is not None:
        graphs[g] = min(graphs.get(g, 1 << 62), r["start_ns"])
outside = [g for g, t in graphs.items() if not any(w["start_ns"] <= t <= (w["end_ns"] or 1 << 62) for w in wins)]
e2e.check(not outside, f"every graph's first record is inside a window ({len(outside)} of {len(graphs)} outside)")

out = f"{d}/report.json"
r = subprocess.run([e2e.OPSCOPE, "report", prof, "--json", out, "-q"], capture_output=True, text=True)
e2e.check(r.returncode == 0, f"report --json ({r.stderr.strip()[:200]})")
s = json.load(open(out)).get("summary", {}) if r.returncode == 0 else {}
reqs = s.get("requests", [])
sw = s.get("windows", [])
e2e.check(len(sw) == 2 and all(w.get("graphs", 0) > 0 for w in sw), f"summary.windows: two, each with graphs ({sw})")

inside = [c for c in sent if any(s1 <= c[1] and c[2] <= e0 for s0, s1, e0, e1 in marks)]
early = [c for c in sent if c[2] < marks[0][0]]


def found(c):
    """The profile's request for client request C: same slot, the server's prompt and sampled
    tokens, its span inside the client's send and return."""
    return [q for q in reqs if q["seq"] == c[3] and c[1] <= q["start_ns"] and q["end_ns"] <= c[2]]


missing = [c for c in inside if not any(q["n_prompt"] == c[4] and q["n_outputs"] == c[5] for q in found(c))]
whole_marked = [c for c in inside if any("partial" in q for q in found(c))]
partial = [q for q in reqs if "partial" in q]
e2e.check(not whole_marked, f"no request inside a window is marked partial ({len(whole_marked)})")
e2e.check(all(q["n_prompt"] == 0 for q in partial if q["partial"] in ("start", "both")),
          f"a request marked partial at the start has no prompt token in the profile")
e2e.note(f"note  {len(partial)} requests marked partial: "
         f"{sum(q['partial'] == 'start' for q in partial)} start, {sum(q['partial'] == 'end' for q in partial)} end, "
         f"{sum(q['partial'] == 'both' for q in partial)} both")
from_early = [c for c in early if found(c)]
e2e.note(f"note  requests: {len(sent)} sent by the 4 clients, {len(early)} answered before the first start, "
         f"{len(inside)} sent after a start returned and answered before its stop, {len(reqs)} in the profile")
e2e.check(len(inside) >= 8, f"the windows held client requests from start to end ({len(inside)})")
e2e.check(not missing, f"every request inside a window is in the requests table whole ({len(inside) - len(missing)} "
          f"of {len(inside)}; missing {missing[:3]})")
e2e.check(len(early) > 0 and not from_early, f"none of the {len(early)} requests answered before the start is there "
          f"({len(from_early)})")
e2e.finish()
