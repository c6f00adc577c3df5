#!/usr/bin/env python3
"""job_view_mem.py OPSCOPE WORK TRACE - `opscope view DIR` keeps one rank in memory.

A job of 2 ranks and one of 8, each rank a link to TRACE (ranks from the file names), are
viewed with --threads 1; each run's peak RSS is read from the kernel (getrusage of the child,
in a process of its own). The 8-rank page holds 4 times the data of the 2-rank one, but the
peak must not grow with it: at most 10% + 4 MiB over the 2-rank job's. Also: the page names
8 rank blocks, and a list of traces on the command line gives the same page as their folder.
"""
import os
import re
import resource
import subprocess
import sys

opscope, work, trace = sys.argv[1], sys.argv[2], os.path.abspath(sys.argv[3])
os.makedirs(work, exist_ok=True)
failures = 0


def check(cond, what, detail=None):
    global failures
    print(("ok   " if cond else "FAIL ") + what + ("" if cond or detail is None else ": %r" % (detail,)))
    failures += not cond


def job(n):
    d = os.path.join(work, "ranks%d" % n)
    os.makedirs(d, exist_ok=True)
    for f in os.listdir(d):
        os.remove(os.path.join(d, f))
    for r in range(n):
        os.symlink(trace, os.path.join(d, "rank-%d.json.gz" % r))
    return d


MEASURE = ("import resource, subprocess, sys\n"
           "subprocess.run(sys.argv[1:], check=True)\n"
           "print(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)")


def peak_kib(*cmd):
    p = subprocess.run([sys.executable, "-c", MEASURE, *cmd], capture_output=True, text=True, check=True)
    return int(p.stdout.strip())


pages, peaks = {}, {}
for n in (2, 8):
    d = job(n)
    pages[n] = os.path.join(work, "ranks%d.html" % n)
    peaks[n] = min(peak_kib(opscope, "view", d, "-o", pages[n], "-q", "--threads", "1") for _ in range(2))
    print("view of %d ranks: peak RSS %d KiB (the lower of 2 runs)" % (n, peaks[n]))
sizes = {n: os.path.getsize(p) for n, p in pages.items()}
blocks = len(re.findall(r'class="opscope-rank" data-rank="\d+"', open(pages[8]).read()))
check(blocks == 8, "the 8-rank page holds 8 rank blocks", blocks)
check(sizes[8] > 3.5 * sizes[2], "the 8-rank page holds about 4 times the 2-rank page's data", sizes)
check(peaks[8] <= peaks[2] * 1.10 + 4096,
      "peak RSS does not grow with the ranks: 8 ranks %d KiB, 2 ranks %d KiB" % (peaks[8], peaks[2]), peaks)
# several threads: the same page (but read_threads)
par = os.path.join(work, "ranks8_t3.html")
subprocess.run([opscope, "view", job(8), "-o", par, "-q", "--threads", "3"], check=True, capture_output=True)
norm = lambda p: re.sub(r'"read_threads":\d+', "", open(p).read())
check(norm(par) == norm(pages[8]), "3 threads write the page 1 thread writes (ranks in order)")
# a list of traces: the same page as the folder
d = os.path.join(work, "ranks2")
lst = os.path.join(work, "list2.html")
subprocess.run([opscope, "view", os.path.join(d, "rank-1.json.gz"), os.path.join(d, "rank-0.json.gz"),
                "-o", lst, "-q"], check=True, capture_output=True)
norm = lambda p: re.sub(r'"read_threads":\d+', "", open(p).read())
check(norm(lst) == norm(pages[2]), "view A B gives the page view DIR gives (ranks sorted, but read_threads)")
# usage: a list needs -o; options a job does not take; a broken rank fails with no page
p = subprocess.run([opscope, "view", trace, trace], capture_output=True, text=True)
check(p.returncode == 1 and "-o is required" in p.stderr, "several traces without -o: usage error", p.stderr)
p = subprocess.run([opscope, "view", d, "--peak", "cache", "-o", lst], capture_output=True, text=True)
check(p.returncode == 1 and "not for a job" in p.stderr, "--peak with a job: usage error", p.stderr)
p = subprocess.run([opscope, "report", d, "--html-viewer", lst], capture_output=True, text=True)
check(p.returncode == 1 and "'opscope view' of the same inputs" in p.stderr,
      "report DIR --html-viewer: a usage error that points to view", p.stderr)
bad = os.path.join(work, "bad")
os.makedirs(bad, exist_ok=True)
for f in os.listdir(bad):
    os.remove(os.path.join(bad, f))
os.symlink(trace, os.path.join(bad, "rank-0.json.gz"))
open(os.path.join(bad, "rank-1.json"), "w").write('{"traceEvents":[{"ph":"X","cat":"cpu_op","name":"a","ts":1,"dur":2,')
out = os.path.join(work, "bad.html")
if os.path.exists(out):
    os.remove(out)
p = subprocess.run([opscope, "view", bad, "-o", out], capture_output=True, text=True)
check(p.returncode == 2 and "rank-1.json" in p.stderr and not os.path.exists(out),
      "a broken trace: exit 2, named, no page left", (p.returncode, p.stderr))
# a job summary joins with its trace (the path it names), which must be readable here
sj = os.path.join(work, "sumjob")
os.makedirs(sj, exist_ok=True)
for f in os.listdir(sj):
    os.remove(os.path.join(sj, f))
subprocess.run([opscope, "report", trace, "--job", "--json", os.path.join(sj, "rank-0.json"), "-q"], check=True)
os.symlink(trace, os.path.join(sj, "rank-1.json.gz"))
out = os.path.join(work, "sumjob.html")
p = subprocess.run([opscope, "view", sj, "-o", out, "-q"], capture_output=True, text=True)
blocks = len(re.findall(r'class="opscope-rank"', open(out).read())) if p.returncode == 0 else -1
check(blocks == 2, "a summary whose trace is here: its timeline read from that trace", (p.returncode, p.stderr, blocks))
txt = open(os.path.join(sj, "rank-0.json")).read().replace(trace, "/nonexistent/rank-0.json.gz")
open(os.path.join(sj, "rank-0.json"), "w").write(txt)
os.remove(out)
p = subprocess.run([opscope, "view", sj, "-o", out], capture_output=True, text=True)
check(p.returncode == 2 and "rank 0's timeline" in p.stderr and "/nonexistent/rank-0.json.gz" in p.stderr
      and not os.path.exists(out), "a summary whose trace is gone: exit 2, the rank and path named, no page",
      (p.returncode, p.stderr))
p = subprocess.run([opscope, "view", d], capture_output=True, text=True)
check(p.returncode == 0 and os.path.exists(d + ".html"), "view DIR writes DIR.html by default", p.stderr)
print("%d check(s) failed" % failures if failures else "job view memory and CLI: all checks passed")
sys.exit(1 if failures else 0)
