#!/usr/bin/env python3
"""Tests of procs.py against what the kernel and a real HTTP server say."""
import http.server
import os
import subprocess
import sys
import threading

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import procs  # noqa: E402

fails = 0


def check(cond, msg):
    global fails
    print(("ok    " if cond else "FAIL  ") + msg)
    fails += not cond


p = procs.free_port()
check(1024 <= p <= 65535, f"free_port gives a port ({p})")


class H(http.server.BaseHTTPRequestHandler):
    def do_GET(self):
        self.send_response(200 if self.path == "/health" else 404)
        self.end_headers()

    def log_message(self, *a):
        pass


srv = http.server.HTTPServer(("127.0.0.1", p), H)
threading.Thread(target=srv.serve_forever, daemon=True).start()
child = subprocess.Popen(["sleep", "30"])
check(procs.healthy(p, child, timeout=10), "healthy: a server answering /health 200")
dead = subprocess.Popen(["true"])
dead.wait()
check(not procs.healthy(procs.free_port(), dead, timeout=10), "healthy: False once the process ended")
srv.shutdown()
# VmRSS as ps reports it (an independent reader: procps), within 10% (pages come and go)
ps = int(subprocess.run(["ps", "-o", "rss=", "-p", str(child.pid)], capture_output=True, text=True).stdout)
mine = procs.rss_kib(child.pid)
check(mine is not None and abs(mine - ps) <= max(64, ps // 10), f"rss_kib {mine} KiB against ps's {ps}")
check(procs.child_named(os.getpid(), "sleep") == child.pid, "child_named finds the sleep child")
check(procs.child_named(os.getpid(), "nosuchprogram") is None, "child_named: None for no such child")
child.kill()
child.wait()
check(procs.rss_kib(child.pid) is None, "rss_kib: None for a process gone")
print(f"{'passed' if not fails else 'FAILED'}: {fails} failed checks")
sys.exit(1 if fails else 0)
