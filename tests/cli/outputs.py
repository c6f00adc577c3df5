#!/usr/bin/env python3
"""outputs.py OPSCOPE DATA WORK - what the commands say about their inputs and outputs:
every written file named on stderr (nothing with -q), no output over an input
(by name or through a link), inputs that are no profile refused with what opscope reads."""
import os
import shutil
import subprocess
import sys

opscope, data, work = sys.argv[1:4]
shutil.rmtree(work, ignore_errors=True)
os.makedirs(work)
os.chdir(work)
failures = []


def check(cond, what, detail=""):
    print(("ok    " if cond else "FAIL  ") + what + ("" if cond else ": " + str(detail)[-600:]))
    if not cond:
        failures.append(what)


def run(*args):
    return subprocess.run([opscope] + list(args), capture_output=True, text=True)


shutil.copy(os.path.join(data, "ggml", "cpu-f32-n4.json.gz"), "t1.json.gz")
shutil.copy(os.path.join(data, "ggml", "cpu-f32-t2.json.gz"), "t2.json.gz")
before = open("t1.json.gz", "rb").read()

p = run("report", "t1.json.gz", "--json", "t1.json.gz")
check(p.returncode == 1 and "would overwrite the input 't1.json.gz'" in p.stderr and
      open("t1.json.gz", "rb").read() == before, "report --json over its input: refused, input kept", p.stderr)
os.symlink("t1.json.gz", "link.json")
p = run("report", "t1.json.gz", "--text", "link.json")
check(p.returncode == 1 and "would overwrite" in p.stderr and os.path.islink("link.json") and
      open("t1.json.gz", "rb").read() == before, "report --text through a link to its input: refused", p.stderr)
p = run("view", "t1.json.gz", "-o", "t1.json.gz")
check(p.returncode == 1 and "would overwrite" in p.stderr, "view -o over its input: refused", p.stderr)
p = run("diff", "t1.json.gz", "t2.json.gz", "--text", "./t2.json.gz")
check(p.returncode == 1 and "would overwrite" in p.stderr, "diff --text over NEW by another name: refused",
      p.stderr)

p = run("report", "t1.json.gz", "--json", "o.json", "--text", "o.txt", "--chrome-trace", "o.trace.json")
lines = [l for l in p.stderr.splitlines() if "wrote" in l]
check(p.returncode == 0 and "opscope report: wrote o.json (json)" in lines and
      "opscope report: wrote o.txt (text)" in lines and "opscope report: wrote o.trace.json (chrome-trace)" in lines,
      "report names each file it wrote on stderr", p.stderr)
p = run("report", "t1.json.gz", "--json", "q.json", "-q")
check(p.returncode == 0 and p.stderr == "" and os.path.exists("q.json"), "report -q: nothing on stderr", p.stderr)
p = run("report", "t1.json.gz", "--json", "-")
check(p.returncode == 0 and "wrote" not in p.stderr, "report --json -: stdout is not named", p.stderr)
p = run("view", "t1.json.gz", "-o", "p.html")
check(p.returncode == 0 and "opscope view: wrote p.html (" in p.stderr and os.path.exists("p.html"),
      "view says what it wrote when stderr is no terminal", p.stderr)
p = run("view", "t1.json.gz", "-o", "p2.html", "-q")
check(p.returncode == 0 and p.stderr == "", "view -q: nothing on stderr", p.stderr)
p = run("diff", "t1.json.gz", "t2.json.gz", "--json", "d.json", "--text", "d.txt")
check(p.returncode == 0 and "opscope diff: wrote d.json (json)" in p.stderr and
      "opscope diff: wrote d.txt (text)" in p.stderr, "diff names each file it wrote", p.stderr)

open("a.json", "w").write("[1,2,3]\n")
p = run("report", "a.json")
check(p.returncode == 2 and "a JSON array of values that are not objects" in p.stderr and
      "opscope reads ggml profiles" in p.stderr, "report [1,2,3]: exit 2 naming what opscope reads", p.stderr)
p = run("report", "o.txt")
check(p.returncode == 2 and "opscope's own text report" in p.stderr, "report on its own text report: exit 2",
      p.stderr)
p = run("diff", "t1.json.gz", "p.html")
check(p.returncode == 2 and "an HTML page" in p.stderr, "diff on an HTML page: exit 2", p.stderr)

print("%d check(s) failed" % len(failures) if failures else "all output checks passed")
sys.exit(1 if failures else 0)
