#!/usr/bin/env python3
"""Progress output of `opscope view` (and `opscope report`, which shares it) on a big input.

Usage: view_progress.py OPSCOPE WORKDIR

The input is a valid ggml profile of just over 100 MB (70,000 records padded with spaces),
above the size from which progress is shown.
- stderr not a terminal (a pipe): nothing at all on stderr, output written;
- stderr a terminal (a pseudo-terminal from Python's pty module): a "reading: N% (... of
  100 MB)" line, erased at the end ("\\r\\033[K"), and the output written;
- a small input on a terminal: no progress line.
The big file is removed at the end.
"""
import json
import os
import pty
import re
import subprocess
import sys

failures = []


def check(cond, what):
    if not cond:
        failures.append(what)
        print("FAIL:", what)
    return cond


def run_tty(cmd):
    """Runs CMD with stderr on a pseudo-terminal; returns (exit status, stdout, stderr bytes)."""
    master, slave = pty.openpty()
    p = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=slave, stdin=subprocess.DEVNULL)
    os.close(slave)
    err = b""
    while True:  # drain the terminal while the command runs (it ends with EIO)
        try:
            chunk = os.read(master, 4096)
        except OSError:
            break
        if not chunk:
            break
        err += chunk
    out = p.stdout.read()
    p.wait()
    os.close(master)
    return p.returncode, out, err


def main():
    opscope, work = sys.argv[1], sys.argv[2]
    os.makedirs(work, exist_ok=True)
    big = os.path.join(work, "big.json")
    n, pad = 70000, " " * 1450
    with open(big, "w") as f:
        f.write('{"profiler":"ggml","version":3,"backends":[{"id":0,"name":"CPU","device":"x",'
                '"device_type":0}],"records":[')
        for i in range(n):
            f.write(("," if i else "") + pad + json.dumps(
                {"type": 0, "name": "ADD", "backend_id": 0, "split_id": 0, "start_ns": 1000 * i,
                 "duration_ns": 500, "bytes": 64, "extra": None, "n_src": 0, "ne_src": []}))
        f.write("]}\n")
    size = os.path.getsize(big)
    check(size > 100_000_000, f"test input is only {size} bytes")
    small = os.path.join(work, "small.json")
    with open(small, "w") as f:
        f.write('{"profiler":"ggml","version":3,"backends":[],"records":[{"type":0,"name":"ADD",'
                '"backend_id":0,"split_id":0,"start_ns":1,"duration_ns":2,"bytes":3,"extra":null,'
                '"n_src":0,"ne_src":[]}]}')
    html = os.path.join(work, "big.html")
    try:
        # quiet: stderr is a pipe
        for cmd in ([opscope, "view", big, "-o", html], [opscope, "report", "-q", big]):
            if os.path.exists(html):
                os.remove(html)
            p = subprocess.run(cmd, capture_output=True)
            check(p.returncode == 0, f"{cmd[1]} (pipe): exit {p.returncode}")
            check(p.stderr == b"", f"{cmd[1]} (pipe): stderr not empty: {p.stderr[:200]!r}")
            if cmd[1] == "view":
                check(os.path.exists(html) and os.path.getsize(html) > 0, "view (pipe): no HTML")

        # a terminal: a progress line naming the size, erased at the end
        mb = round(size / 1e6)
        texts = {}
        for cmd in ([opscope, "view", big, "-o", html], [opscope, "report", "-q", big]):
            if os.path.exists(html):
                os.remove(html)
            rc, out, err = run_tty(cmd)
            text = texts[cmd[1]] = err.decode("utf-8", "replace")
            check(rc == 0, f"{cmd[1]} (tty): exit {rc}: {text[-300:]!r}")
            lines = re.findall(r"\r  reading: +(\d+)% \((\d+) of (\d+) MB\)", text)
            check(len(lines) >= 1 and all(int(t) == mb and int(d) <= mb and 0 <= int(pc) <= 100
                                          for pc, d, t in lines),
                  f"{cmd[1]} (tty): no progress line of {mb} MB in {text[:300]!r}")
            check("\r\x1b[K" in text and text.rfind("\r\x1b[K") > text.rfind("reading:"),
                  f"{cmd[1]} (tty): progress line not erased at the end: {text[-120:]!r}")
            if cmd[1] == "view":
                check(os.path.exists(html) and os.path.getsize(html) > 0, "view (tty): no HTML")
                # the closing note of view on a terminal comes after the erased progress line
                check(text.rfind("opscope view: wrote " + html) > text.rfind("\r\x1b[K"),
                      f"view (tty): no 'wrote' note after the progress: {text[-200:]!r}")

        # a small input on a terminal: no progress line
        rc, out, err = run_tty([opscope, "view", small, "-o", html])
        check(rc == 0 and b"reading:" not in err, f"view small (tty): {rc} {err!r}")
    finally:
        os.remove(big)
    print(f"{len(failures)} failed")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
