#!/usr/bin/env python3
"""Progress output of `opscope view` (and `opscope report`, which shares it) on a big input.

Usage: view_progress.py OPSCOPE WORKDIR

Two inputs of just over 100 MB (70,000 records or events padded with spaces), above the size
from which progress is shown, one after the other: a valid ggml profile and a Kineto trace
(whose reader must not draw a progress line of its own).
- stderr not a terminal (a pipe): no progress on stderr (view: only the line naming the page),
  output written;
- stderr a terminal (a pseudo-terminal from Python's pty module): one progress line, the
  CLI's "reading: N% (... of 100 MB)" redrawn in place ("\\r") as the read climbs to 100%
  (the line follows the bytes read, not the records), and erased at the end
  ("\\r\\033[K"): nothing else before the erase, no newline that would leave a line on screen;
  then the output written;
- a small input on a terminal: no progress line.
Each big file is removed after its checks. Every command has TIMEOUT seconds (a read of the
big input takes about a second): one that hangs is killed and fails the test, named.
"""
import json
import os
import pty
import re
import select
import subprocess
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))
from checklist import check, failures  # noqa: E402


TIMEOUT = 120  # seconds for one command


def run_pipe(cmd):
    """Runs CMD with stdout and stderr on pipes; a CompletedProcess, or None after a failed
    check when it did not finish within TIMEOUT (then it is killed)."""
    try:
        return subprocess.run(cmd, capture_output=True, timeout=TIMEOUT)
    except subprocess.TimeoutExpired:
        check(False, f"{' '.join(cmd)} (pipe): did not finish within {TIMEOUT} s (killed)")
        return None


def run_tty(cmd):
    """Runs CMD with stderr on a pseudo-terminal; returns (exit status, stdout, stderr bytes).
    The exit status is None, after a failed check, when CMD did not finish within TIMEOUT (it is
    then killed)."""
    master, slave = pty.openpty()
    p = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=slave, stdin=subprocess.DEVNULL)
    os.close(slave)
    out, err = b"", b""
    open_fds = {master: "err", p.stdout.fileno(): "out"}
    deadline = time.monotonic() + TIMEOUT
    # drain both while the command runs: the terminal ends with EIO, the pipe with EOF
    while open_fds:
        left = deadline - time.monotonic()
        ready = select.select(list(open_fds), [], [], max(left, 0))[0] if left > 0 else []
        if not ready:
            break
        for fd in ready:
            try:
                chunk = os.read(fd, 65536)
            except OSError:
                chunk = b""
            if not chunk:
                del open_fds[fd]
            elif open_fds[fd] == "err":
                err += chunk
            else:
                out += chunk
    try:
        rc = p.wait(timeout=max(deadline - time.monotonic(), 0.1))
    except subprocess.TimeoutExpired:
        p.kill()
        p.wait()
        rc = None
    os.close(master)
    p.stdout.close()
    if rc is None or open_fds:
        check(False, f"{' '.join(cmd)} (tty): did not finish within {TIMEOUT} s (killed); "
                     f"stderr so far: {err[-200:]!r}")
        rc = None
    return rc, out, err


PAD = " " * 1450
N = 70000


def write_ggml(path):
    with open(path, "w") as f:
        f.write('{"profiler":"ggml","version":3,"backends":[{"id":0,"name":"CPU","device":"x",'
                '"device_type":0}],"records":[')
        for i in range(N):
            f.write(("," if i else "") + PAD + json.dumps(
                {"type": 0, "name": "ADD", "backend_id": 0, "split_id": 0, "start_ns": 1000 * i,
                 "duration_ns": 500, "bytes": 64, "extra": None, "n_src": 0, "ne_src": []}))
        f.write("]}\n")


def write_kineto(path):
    with open(path, "w") as f:
        f.write('{"schemaVersion":1,"deviceProperties":[{"id":0,"name":"NVIDIA H100",'
                '"warpSize":32,"computeMajor":9}],"traceEvents":[')
        for i in range(N):
            f.write(("," if i else "") + PAD + json.dumps(
                {"ph": "X", "cat": "kernel", "name": "ampere_sgemm_64x64_nn", "pid": 0, "tid": 7,
                 "ts": i, "dur": 0.5, "args": {"correlation": i}}))
        f.write("]}\n")


PROGRESS = re.compile(r"  reading: +(\d+)% \((\d+) of (\d+) MB\)")


def check_tty_progress(what, text, mb):
    """TEXT (stderr of a run on a terminal) holds one progress line: only the CLI's
    "reading:" drawings, each after a "\\r", then the erase; no newline before the erase."""
    erase = text.rfind("\r\x1b[K")
    if not check(erase >= 0, f"{what}: progress line not erased at the end: {text[-120:]!r}"):
        return
    drawn = text[:erase]
    check("\n" not in drawn,
          f"{what}: a newline among the progress drawings leaves a line on screen: {drawn[-300:]!r}")
    parts = drawn.split("\r")
    check(parts[0] == "", f"{what}: text before the first progress drawing: {parts[0][:200]!r}")
    lines = [PROGRESS.fullmatch(p) for p in parts[1:]]
    check(len(lines) >= 1 and all(lines),
          f"{what}: something other than the CLI's progress line was drawn: "
          f"{[p for p, m in zip(parts[1:], lines) if not m][:3]!r}")
    check(all(m and int(m[3]) == mb and int(m[2]) <= mb and 0 <= int(m[1]) <= 100 for m in lines),
          f"{what}: no progress line of {mb} MB in {drawn[:300]!r}")
    # the line follows the bytes read, whatever the input yields: it climbs to 100%
    pcts = [int(m[1]) for m in lines if m]
    check(pcts == sorted(pcts) and pcts[-1:] == [100] and len(set(pcts)) > 50,
          f"{what}: the progress did not climb to 100%: {pcts}")
    check("reading" not in text[erase:], f"{what}: progress after the erase: {text[erase:][:200]!r}")


def check_big(opscope, work, kind, big):
    size = os.path.getsize(big)
    check(size > 100_000_000, f"{kind}: test input is only {size} bytes")
    html = os.path.join(work, "big.html")
    # quiet: stderr is a pipe
    for cmd in ([opscope, "view", big, "-o", html], [opscope, "report", "-q", big]):
        if os.path.exists(html):
            os.remove(html)
        p = run_pipe(cmd)
        if p is None:
            continue
        check(p.returncode == 0, f"{kind} {cmd[1]} (pipe): exit {p.returncode}")
        # no progress on a pipe, but view still names the page it wrote: a silent run leaves the
        # user no page to open
        want = (b"opscope view: wrote " + html.encode() + b" (70000 of 70000 records); open it in a browser\n"
                if cmd[1] == "view" else b"")
        check(p.stderr == want, f"{kind} {cmd[1]} (pipe): stderr {p.stderr[:200]!r}, wanted {want!r}")
        if cmd[1] == "view":
            check(os.path.exists(html) and os.path.getsize(html) > 0, f"{kind} view (pipe): no HTML")

    # a terminal: one progress line naming the size, erased at the end
    mb = round(size / 1e6)
    for cmd in ([opscope, "view", big, "-o", html], [opscope, "report", "-q", big]):
        what = f"{kind} {cmd[1]} (tty)"
        if os.path.exists(html):
            os.remove(html)
        rc, out, err = run_tty(cmd)
        if rc is None:
            continue
        text = err.decode("utf-8", "replace")
        check(rc == 0, f"{what}: exit {rc}: {text[-300:]!r}")
        if cmd[1] == "view":
            check(os.path.exists(html) and os.path.getsize(html) > 0, f"{what}: no HTML")
            # the closing note of view on a terminal comes after the erased progress line
            note = "opscope view: wrote " + html
            check(text.rfind(note) > text.rfind("\r\x1b[K"),
                  f"{what}: no 'wrote' note after the progress: {text[-200:]!r}")
            text = text.replace(note, "")
        check_tty_progress(what, text, mb)


def main():
    opscope, work = sys.argv[1], sys.argv[2]
    os.makedirs(work, exist_ok=True)
    for kind, write in (("ggml", write_ggml), ("kineto", write_kineto)):
        big = os.path.join(work, f"big-{kind}.json")
        try:
            write(big)
            check_big(opscope, work, kind, big)
        finally:
            os.remove(big)

    # a small input on a terminal: no progress line
    small = os.path.join(work, "small.json")
    with open(small, "w") as f:
        f.write('{"profiler":"ggml","version":3,"backends":[],"records":[{"type":0,"name":"ADD",'
                '"backend_id":0,"split_id":0,"start_ns":1,"duration_ns":2,"bytes":3,"extra":null,'
                '"n_src":0,"ne_src":[]}]}')
    rc, out, err = run_tty([opscope, "view", small, "-o", os.path.join(work, "small.html")])
    check(rc == 0 and b"reading:" not in err, f"view small (tty): {rc} {err!r}")
    print(f"{len(failures)} failed")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
