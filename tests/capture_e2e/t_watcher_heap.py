#!/usr/bin/env python3
"""The capture's watcher thread makes no heap call at its checkpoints: glibc would give it a
malloc arena of its own (64 MiB of address space reserved), room a program under `ulimit -v`
may need later (docs/capture.md, "Memory").

watchalloc.c (an LD_PRELOAD shim, independent of the capture) counts every malloc, calloc,
realloc, aligned allocation and free of a block made on the thread named opscope-watch, and
its renames (one per checkpoint's status note under record). Checkpoints every 50 ms
(OPSCOPE_CHECKPOINT_MS=50), the record log on (the default):

  - completion: llama-completion, 1024 tokens (a second or more: at 64 a fast run
    ended before its first 50 ms checkpoint): the watcher ran, made at least 3 checkpoints
    and no heap call; the profile is written, with records;
  - server: llama-server for SECONDS with 2 clients (each request clears llama's memory, so
    what ran changes while it runs), stopped with SIGINT (the server's own handler: the final
    export runs on its main thread): the same, and every request answered.

usage (inside the root): t_watcher_heap.py completion|server [SECONDS]
"""
import glob
import os
import signal
import subprocess
import sys
import threading
import time

import e2e
import procs  # tests/lib, on the path through e2e

MODE = sys.argv[1] if len(sys.argv) > 1 else "completion"
SECONDS = int(sys.argv[2]) if len(sys.argv) > 2 else 6
MIN_CHECKPOINTS = 3

e2e.need_preload()
if not e2e.OPSCOPE:
    e2e.skip("OPSCOPE_BIN unset")
e2e.guard_children()
m = e2e.model("tiny-dense-f32")
d = e2e.outdir("watcher-heap-" + MODE)
so = os.path.join(d, "watchalloc.so")
subprocess.run(["gcc", "-std=c11", "-O2", "-Wall", "-Wextra", "-Werror", "-shared", "-fPIC",
                os.path.join(e2e.HERE, "watchalloc.c"), "-o", so, "-ldl"], check=True)
prof = f"{d}/profile.json"
env = e2e.env_for([so], extra={"OPSCOPE_TEST_ALLOCLOG": f"{d}/alloc", "OPSCOPE_CHECKPOINT_MS": "50"})


def shim_log():
    """The shim's log of the process that had the watcher: (fields, backtraces text)."""
    for p in sorted(glob.glob(f"{d}/alloc.*")):
        text = open(p, encoding="utf-8", errors="replace").read()
        fields = dict(ln.split(" ", 1) for ln in text.splitlines()
                      if ln.split(" ", 1)[0] in ("renames", "watcher", "calls"))
        if fields.get("watcher") == "1" or int(fields.get("calls", "0")) > 0:
            return fields, text
    return {}, ""


if MODE == "completion":
    cmd = ["llama-completion", "-m", m, "-p", "The quick brown fox jumps over", "-n", "1024", "--temp", "0",
           "-t", "2", "--ignore-eos", "-no-cnv", "--no-warmup"]
    rc, out, err = e2e.run([e2e.OPSCOPE, "record", "-o", prof, "--"] + cmd, env)
    e2e.check(rc == 0 and len(out) > 0, f"llama-completion under record exits 0 and prints its tokens (exit {rc}: "
                                        f"{err.strip()[-300:]!r})")
else:
    port = procs.free_port()
    cmd = ["llama-server", "-m", m, "--parallel", "2", "-c", "2048", "-t", "1", "--host", "127.0.0.1",
           "--port", str(port), "--no-warmup", "--threads-http", "2", "--no-webui", "--cache-ram", "0"]
    log = open(f"{d}/server.log", "wb")
    rec = subprocess.Popen([e2e.OPSCOPE, "record", "-o", prof, "--"] + cmd, env=env, stdout=log,
                           stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL)
    if not e2e.check(procs.healthy(port, rec), "llama-server under record becomes healthy"):
        rec.kill()
        e2e.finish()
    srv = procs.child_named(rec.pid, "llama-server")
    done, stop = {"capture": 0}, threading.Event()
    clients = [threading.Thread(target=procs.completion_client, args=(port, done, "capture", i, stop), daemon=True)
               for i in range(2)]
    for t in clients:
        t.start()
    time.sleep(SECONDS)
    stop.set()
    for t in clients:
        t.join(timeout=120)
    os.kill(srv, signal.SIGINT)
    rc = rec.wait(timeout=60)
    log.close()
    e2e.check(rc in (0, 130), f"llama-server under record stops on SIGINT (exit {rc})")
    e2e.check(done["capture"] >= 2, f"it answered its requests ({done['capture']})")

fields, text = shim_log()
renames, calls = int(fields.get("renames", "0")), int(fields.get("calls", "-1"))
e2e.check(fields.get("watcher") == "1", "the capture's watcher thread (opscope-watch) ran in the program")
e2e.check(renames >= MIN_CHECKPOINTS, f"it made at least {MIN_CHECKPOINTS} checkpoints ({renames} status notes)")
if not e2e.check(calls == 0, f"the watcher made no heap call ({calls})"):
    print(text[:6000])
recs = len(e2e.load_profile(prof).get("records", [])) if os.path.exists(prof) else 0
e2e.check(recs > 0, f"the profile is written ({recs} records)")
e2e.finish()
