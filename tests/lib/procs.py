"""Helpers for tests and benchmarks that run servers and watch processes: a free loopback
port, waiting for an HTTP health endpoint, a process's RSS, a child found by name, and a
load client of llama-server's /completion (tests/capture_e2e/t_longrun.py,
bench/capture/memgrowth.py)."""
import json
import os
import socket
import time
import urllib.request


def free_port():
    """A TCP port free on 127.0.0.1 now."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def healthy(port, proc, timeout=120):
    """True once http://127.0.0.1:PORT/health answers 200, False when PROC (a Popen) ended or
    TIMEOUT seconds passed first."""
    end = time.time() + timeout
    while time.time() < end and proc.poll() is None:
        try:
            with urllib.request.urlopen(f"http://127.0.0.1:{port}/health", timeout=2) as r:
                if r.status == 200:
                    return True
        except OSError:
            time.sleep(0.25)
    return False


def rss_kib(pid):
    """PID's VmRSS in KiB, or None when it cannot be read (gone)."""
    try:
        with open(f"/proc/{pid}/status") as f:
            for line in f:
                if line.startswith("VmRSS:"):
                    return int(line.split()[1])
    except OSError:
        pass
    return None


def child_named(ppid, name):
    """The pid of a child of PPID whose command name starts as NAME's (the kernel keeps 15
    characters), or None."""
    for p in os.listdir("/proc"):
        if not p.isdigit():
            continue
        try:
            with open(f"/proc/{p}/stat") as f:
                st = f.read()
        except OSError:
            continue
        comm = st[st.index("(") + 1:st.rindex(")")]
        fields = st[st.rindex(")") + 2:].split()
        if int(fields[1]) == ppid and comm.startswith(name[:15]):
            return int(p)
    return None


def completion_client(port, done, side, i, stop, n_predict=16):
    """Sends llama-server at PORT 16-token completions of prompts of 1-5 phrases, one after
    another, until STOP (a threading.Event) is set; counts each answered one in DONE[SIDE]."""
    k = 0
    while not stop.is_set():
        body = {"prompt": f"Client {i} request {k}: " + "tell me " * (1 + (i + k) % 5), "n_predict": n_predict,
                "temperature": 0, "seed": k, "cache_prompt": False}
        req = urllib.request.Request(f"http://127.0.0.1:{port}/completion", json.dumps(body).encode(),
                                     {"Content-Type": "application/json"})
        try:
            with urllib.request.urlopen(req, timeout=120) as r:
                r.read()
                done[side] += 1
        except OSError:
            if stop.is_set():
                return
            time.sleep(0.5)
        k += 1
