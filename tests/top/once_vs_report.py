#!/usr/bin/env python3
"""opscope top --once against opscope report on one finished run's record log: the top 5 op
groups by time since the start, their times (within 1%) and calls equal report's JSON summary
(the stats, independent code: analyze/ggml/stats.c); the same for the JSON profile made from
the log (a finished profile: one frame of the whole run). Also: no terminal control codes when
stdout is a pipe, the run found by --pid (the program's, and its parent's, as the pid of an
`opscope record` whose child runs the capture), and exit 2 with one line for a process that
runs no capture, a path that does not exist or a file that is no profile; a log cut inside a
chunk gets one warning at report's byte and counts report's records before it.

usage: once_vs_report.py OPSCOPE LOG WORKDIR"""
import json
import os
import shutil
import signal
import subprocess
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))
import checklist  # noqa: E402

opscope, log, work = sys.argv[1], sys.argv[2], sys.argv[3]
shutil.rmtree(work, ignore_errors=True)
os.makedirs(work)
check = checklist.check


def run(args, env=None):
    return subprocess.run([opscope] + args, capture_output=True, text=True, env=env, timeout=60)


def frame_rows(text):
    """The op rows of a frame: (type, backend label, display, total ms, calls)."""
    rows, on = [], False
    for line in text.splitlines():
        if line.startswith(" TYPE Backend"):
            on = True
            continue
        if not on or not line.strip() or line.startswith(" ..."):
            continue
        parts = line.split()
        # TYPE BACKEND NAME... last(ms) share calls Total(ms) share Count
        rows.append((parts[0], parts[1], " ".join(parts[2:-6]), float(parts[-3]), int(parts[-1])))
    return rows


def report_top(path):
    js = os.path.join(work, "summary.json")
    r = run(["report", path, "--json", js, "-q"])
    check(r.returncode == 0, "report %s: %s" % (path, r.stderr))
    s = json.load(open(js))
    names = {b["id"]: b["name"] for b in s["backends"]}
    ops = sorted(s["summary"]["ops"], key=lambda o: -o["total_ns"])[:5]
    return [("COPY" if o["type"] == 1 else "OP", "%s#%d" % (names[o["backend_id"]], o["backend_id"]),
             o["display"], o["total_ns"] / 1e6, o["count"]) for o in ops]


def compare(path, label):
    r = run(["top", "--once", "--sort", "total", path])
    check(r.returncode == 0, "%s: top exits 0 (%d: %s)" % (label, r.returncode, r.stderr))
    check("\033" not in r.stdout, "%s: no control codes in a piped frame" % label)
    got, want = frame_rows(r.stdout)[:5], report_top(path)
    check(len(want) == 5, "%s: report has 5 op groups" % label)
    check(len(got) == 5, "%s: top shows 5 rows (%r)" % (label, got))
    for g, w in zip(got, want):
        check(g[:3] == w[:3], "%s: row %r is report's %r" % (label, g[:3], w[:3]))
        check(abs(g[3] - w[3]) <= 0.01 * w[3], "%s: %s %.3f ms within 1%% of report's %.3f" % (label, w[2], g[3], w[3]))
        check(g[4] == w[4], "%s: %s calls %d = report's %d" % (label, w[2], g[4], w[4]))
    print("%s: top 5 %s" % (label, [(w[2], round(w[3], 3)) for w in want]))
    return r.stdout


copy = os.path.join(work, "run.oplog")
shutil.copy(log, copy)
frame = compare(copy, "record log")
check("tokens/s" in frame and "busy" in frame and "copies" in frame, "the frame's head lines")
profile = os.path.join(work, "profile.json")
r = run(["report", copy, "--json", profile, "-q"])
check(r.returncode == 0, "the JSON profile made")
compare(profile, "JSON profile")

# --pid: the process whose environment names the capture's output, then its parent's pid
env = dict(os.environ, GGML_PROFILE=copy, OPSCOPE_RECORD_DIR=work)
child = subprocess.Popen(["sleep", "60"], env=env)
parent = subprocess.Popen(["sh", "-c", "GGML_PROFILE=%s OPSCOPE_RECORD_DIR=%s sleep 60 & wait" % (copy, work)],
                          env={k: v for k, v in os.environ.items() if k not in ("GGML_PROFILE", "OPSCOPE_RECORD_DIR")},
                          start_new_session=True)
try:
    for pid, what in ((child.pid, "the program's pid"), (parent.pid, "its parent's pid")):
        for _ in range(50):  # the shell's child starting
            r = run(["top", "--once", "--pid", str(pid)])
            if r.returncode == 0:
                break
            subprocess.run(["sleep", "0.1"])
        check(r.returncode == 0 and frame_rows(r.stdout)[:1] == frame_rows(frame)[:1],
              "--pid %s finds the run (%d: %s)" % (what, r.returncode, r.stderr.strip()))
finally:
    child.kill()
    os.killpg(parent.pid, signal.SIGKILL)  # the shell and its sleep: the group this test made
    child.wait()
    parent.wait()

r = run(["top", "--once", "--pid", str(os.getpid())])
check(r.returncode == 2 and len(r.stderr.strip().splitlines()) == 1 and "no capture" in r.stderr,
      "--pid of a process without a capture: exit 2, one line (%d: %r)" % (r.returncode, r.stderr))
r = run(["top", "--once", os.path.join(work, "none.json")])
check(r.returncode == 2 and len(r.stderr.strip().splitlines()) == 1, "a missing path: exit 2, one line (%r)" % r.stderr)
# a log cut inside a chunk: one warning at report's byte, the records before it counted
cut = os.path.join(work, "cut.oplog")
open(cut, "wb").write(open(log, "rb").read()[:9000])
rep = run(["report", cut])
warn = [ln for ln in rep.stderr.splitlines() if "cut short at byte" in ln]
byte = warn[0].split("cut short at byte ")[1].split()[0] if warn else "?"
n_before = int(warn[0].split("read the ")[1].split()[0]) if warn else -1
r = run(["top", "--once", cut])
check(r.returncode == 0 and r.stderr.count("\n") == 1 and ("at byte %s " % byte) in r.stderr,
      "a cut log: exit 0, one warning at report's byte %s (%r)" % (byte, r.stderr))
check(sum(row[4] for row in frame_rows(r.stdout)) == n_before,
      "a cut log: the frame counts report's %d records before the cut" % n_before)
bad = os.path.join(work, "bad.json")
open(bad, "w").write("hello")
r = run(["top", "--once", bad])
check(r.returncode == 2 and len(r.stderr.strip().splitlines()) == 1 and "bad.json" in r.stderr,
      "a short file that is no profile: exit 2, one line naming it (%r)" % r.stderr)
r = run(["top", "--window", "0", copy])
check(r.returncode == 1, "--window 0 is a usage error")

print("%d failed" % len(checklist.failures))
sys.exit(1 if checklist.failures else 0)
