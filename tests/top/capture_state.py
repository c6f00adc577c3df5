#!/usr/bin/env python3
"""opscope top's line about the capture: paused, in which window, or recording from its start,
from the control channel's `status` (docs/server.md, "Live"). A stand-in for the capture (this
script's child: a process whose environment names a record run's folder and output, as
`opscope record` sets them) listens on FOLDER/ctl.PID and answers `status` with the line this
script puts in FOLDER/answer, as the capture's channel does (src/capture/life/cap_ctl.c). The
frame of `top --once` (by --pid, and by the output's path) must say what each answer means;
an `err` answer, or a run that is no record's, nothing.

usage: capture_state.py OPSCOPE LOG WORKDIR"""
import os
import shutil
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "lib"))
from checklist import check, failures  # noqa: E402

SERVE = r"""
import os, socket, sys
d = sys.argv[1]
s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
s.bind(os.path.join(d, "ctl.%d" % os.getpid()))
s.listen(4)
print("ready", flush=True)
while True:
    c, _ = s.accept()
    c.recv(256)
    with open(os.path.join(d, "answer")) as f:
        c.sendall((f.read().strip() + "\n").encode())
    c.close()
"""


def top(opscope, *args):
    return subprocess.run([opscope, "top", "--once"] + list(args), capture_output=True, text=True, timeout=60)


def state_of(frame):
    """The frame's words about the capture: from "capture:" to the end of that part."""
    for line in frame.splitlines():
        if "capture:" in line:
            return "capture:" + line.split("capture:", 1)[1].split("  ")[0]
    return None


def main(opscope, log, work):
    """The frames for each answer; the exit status."""
    shutil.rmtree(work, ignore_errors=True)
    run_dir = os.path.join(work, "run")
    os.makedirs(run_dir)
    copy, answer = os.path.join(work, "run.oplog"), os.path.join(run_dir, "answer")
    shutil.copy(log, copy)
    with open(answer, "w") as f:
        f.write("ok paused windowed=1 windows=0 marks=0 pid=1\n")
    env = dict(os.environ, GGML_PROFILE=copy, OPSCOPE_RECORD_DIR=run_dir)
    server = subprocess.Popen([sys.executable, "-c", SERVE, run_dir], env=env, stdout=subprocess.PIPE, text=True)
    try:
        check(server.stdout.readline().strip() == "ready", "the stand-in's channel listens")
        cases = [("ok paused windowed=1 windows=2 marks=1 pid=1", "capture: paused (2 windows so far, 1 mark)"),
                 ("ok recording windowed=1 windows=3 marks=2 pid=1", "capture: in window 3, 2 marks"),
                 ("ok recording windowed=0 windows=0 marks=0 pid=1", "capture: recording from its start"),
                 ("ok paused windowed=1 windows=1 marks=0 pid=1", "capture: paused (1 window so far)"),
                 ("err unknown command", None)]
        for line, want in cases:
            with open(answer, "w") as f:
                f.write(line + "\n")
            for args, how in ((["--pid", str(server.pid)], "--pid"), ([copy], "the output's path")):
                r = top(opscope, *args)
                check(r.returncode == 0 and state_of(r.stdout) == want,
                      "%r by %s: the frame says %r (%d: %r, %s)" % (line, how, want, r.returncode, state_of(r.stdout),
                                                                    r.stderr.strip()[:200]))
    finally:
        server.kill()
        server.wait()
    # no record runs that output any more: nothing about the capture
    r = top(opscope, copy)
    check(r.returncode == 0 and state_of(r.stdout) is None, "a log no record writes: nothing said (%r)" % state_of(r.stdout))
    print("top.capture_state: %d failed" % len(failures))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main(*sys.argv[1:4]))
