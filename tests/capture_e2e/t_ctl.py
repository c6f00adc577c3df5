#!/usr/bin/env python3
"""opscope ctl's errors, and a paused llama-server that a ctl can never harm.

- no record running for the pid, the output or at all, a pid that does not exist, a process
  of another user (nobody, with a record run's environment): exit 2, one line on stderr;
  usage errors (no action, an unknown one, mark without text): exit 1;
- against a paused llama-server under record --paused: garbage on its control socket, a line
  that never ends, a peer that connects and goes away, a peer of another uid, and a ctl
  killed with SIGKILL in the middle of a stop; after each the server still answers /completion
  and ctl status still answers; then a start, a mark and a stop work and the profile holds the
  window and the mark;
- --help of ctl and of each action: exit 0, the action's usage.
usage (inside the root): t_ctl.py
"""
import glob
import json
import os
import signal
import socket
import subprocess
import sys
import time
import urllib.request

import e2e

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))
from procs import free_port, healthy  # noqa: E402

e2e.need_preload()
e2e.guard_children()
m = e2e.model("tiny-dense-f32")
d = e2e.outdir("ctl")
prof = f"{d}/profile.json"
env = e2e.env_for([])
env.pop("LD_PRELOAD", None)
env["OPSCOPE_LIB"] = e2e.PRELOAD
NOBODY = ["setpriv", "--reuid=65534", "--regid=65534", "--clear-groups"]


def ctl(*args, who=None):
    r = subprocess.run((who or []) + [e2e.OPSCOPE, "ctl", *args], env=env, capture_output=True, text=True, timeout=60)
    return r.returncode, r.stdout.strip(), r.stderr.strip()


def one_line_2(what, rc, err):
    e2e.check(rc == 2 and len(err.splitlines()) == 1 and err.startswith("opscope ctl: "),
              f"{what}: exit 2 with one line ({rc}: {err!r})")


for h in ([], ["start"], ["stop"], ["mark"], ["status"]):
    rc, out, _ = ctl(*h, "--help")
    e2e.check(rc == 0 and out.startswith("usage: opscope ctl " + (h[0] if h else "")), f"ctl {' '.join(h)} --help")
rc, _, err = ctl()
e2e.check(rc == 1, f"ctl without an action: exit 1 ({rc})")
rc, _, err = ctl("mark")
e2e.check(rc == 1, f"ctl mark without TEXT: exit 1 ({rc})")
rc, _, err = ctl("frob")
e2e.check(rc == 1, f"ctl frob: exit 1 ({rc})")
rc, _, err = ctl("--pid", "4000000", "start")
one_line_2("a pid that does not exist", rc, err)
rc, _, err = ctl("--pid", str(os.getpid()), "start")
one_line_2("a pid that runs no record", rc, err)
rc, _, err = ctl("-o", f"{d}/nothing.json", "start")
one_line_2("an output no record writes", rc, err)
other = subprocess.Popen(NOBODY + ["env", "OPSCOPE_RECORD_DIR=/tmp", f"GGML_PROFILE={d}/other.json", "sleep", "60"])
time.sleep(0.3)
rc, _, err = ctl("--pid", str(other.pid), "start")
one_line_2("another user's process", rc, err)
e2e.check("another user" in err, f"... said as another user's ({err})")
other.kill()
other.wait()

port = free_port()
log = open(f"{d}/server.log", "wb")
rec = subprocess.Popen([e2e.OPSCOPE, "record", "--paused", "-o", prof, "--", "llama-server", "-m", m, "-c", "2048",
                        "-t", "2", "--host", "127.0.0.1", "--port", str(port), "--no-webui"],
                       env=env, stdout=log, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL)
if not e2e.check(healthy(port, rec), "llama-server under record --paused becomes healthy"):
    e2e.stop_children(rec)
    e2e.finish()
# the only record running (another test's record may run beside this one: then ctl names both)
rc, out, err = ctl("status")
e2e.check((rc == 0 and "paused" in out) or (rc == 2 and "records are running" in err and prof in err),
          f"without --pid or -o: the only record running, else the list ({out} {err})")
socks = glob.glob("/tmp/.opscope-record.*/ctl.*") + glob.glob(os.environ.get("TMPDIR", "/tmp") + "/.opscope-record.*/ctl.*")
sock = next((s for s in socks if os.path.exists(s) and f"/ctl.{e2e.descendants(rec.pid)[0][0]}" in s), None)
e2e.check(sock is not None, f"the control socket is in the run's folder ({socks})")
if sock:
    st = os.stat(sock)
    e2e.check((st.st_mode & 0o777) == 0o600, f"the socket's mode is 0600 ({oct(st.st_mode & 0o777)})")


def ask(text):
    body = json.dumps({"prompt": text, "n_predict": 2, "temperature": 0}).encode()
    req = urllib.request.Request(f"http://127.0.0.1:{port}/completion", body, {"Content-Type": "application/json"})
    try:
        with urllib.request.urlopen(req, timeout=60) as r:
            return "content" in json.loads(r.read())
    except OSError:
        return False


def raw(payload, close_after=0.0):
    """PAYLOAD sent to the socket; the answer (b"" when none)."""
    s = socket.socket(socket.AF_UNIX)
    s.settimeout(5)
    s.connect(sock)
    if payload:
        s.sendall(payload)
    time.sleep(close_after)
    try:
        got = s.recv(512)
    except OSError:
        got = b""
    s.close()
    return got


if sock:
    for what, payload, wait in (("garbage", os.urandom(700), 0), ("a line that never ends", b"x" * 5000, 0),
                                ("a peer that goes away", b"", 0), ("an unknown command", b"explode\n", 0),
                                ("half a command, then silence", b"sta", 0)):
        got = raw(payload, wait)
        e2e.check(got == b"" or got.startswith(b"err "), f"{what}: answered err or dropped ({got[:60]!r})")
        e2e.check(ask(what), f"... the server still answers")
    r = subprocess.run(NOBODY + [sys.executable, "-c", f"import socket; s=socket.socket(socket.AF_UNIX); "
                                 f"s.connect({sock!r}); s.sendall(b'start\\n'); print(s.recv(200).decode())"],
                       capture_output=True, text=True, timeout=30)
    e2e.check(r.returncode != 0 or "err" in r.stdout, f"a peer of another uid: refused ({r.stdout.strip()} "
              f"{r.stderr.strip()[-80:]})")
    # a ctl killed in the middle of its command
    k = subprocess.Popen([e2e.OPSCOPE, "ctl", "-o", prof, "start"], env=env)
    k.kill()
    k.wait()
    k = subprocess.Popen([e2e.OPSCOPE, "ctl", "-o", prof, "stop"], env=env)
    time.sleep(0.01)
    k.kill()
    k.wait()
    e2e.check(ask("after a killed ctl"), "a ctl killed mid-command: the server still answers")
rc, out, err = ctl("--pid", str(rec.pid), "start")
e2e.check(rc == 0 and ("started" in out or "already" in out), f"ctl start ({out} {err})")
e2e.check(ask("inside"), "a request inside the window")
rc, out, err = ctl("-o", prof, "mark", "after", "the", "request")
e2e.check(rc == 0 and "marked" in out, f"ctl mark ({out} {err})")
rc, out, err = ctl("-o", prof, "stop")
e2e.check(rc == 0 and "stopped" in out, f"ctl stop ({out} {err})")
rec.send_signal(signal.SIGTERM)
rc = rec.wait(timeout=60)
e2e.stop_children(rec)
log.close()
e2e.check(rc == 0, f"the server ended normally ({rc})")
p = e2e.load_checked(prof, "written and valid JSON")
cap = p.get("capture", {})
e2e.check(cap.get("windowed") is True and len(cap.get("windows", [])) >= 1 and cap["windows"][-1]["end_ns"] > 0,
          f"the profile holds the window ({cap.get('windows')})")
e2e.check([x["text"] for x in cap.get("marks", [])] == ["after the request"], f"and the mark ({cap.get('marks')})")
e2e.check(len(p.get("records", [])) > 0, f"and the window's records ({len(p.get('records', []))})")
e2e.finish()
