#!/usr/bin/env python3
"""A long run on Vulkan (mesa lavapipe) under `opscope record --gpu-timing all`:

    t_vulkan_longrun.py shapes [SECONDS]           (default 60 s; CTest)
    t_vulkan_longrun.py server [SECONDS] [CLIENTS] (default 600 s, 4 clients; a measurement)

- shapes: vkshapes.c, a ggml program computing one small graph after another on the Vulkan
  device, each of a shape never seen (what a server's batches and KV lengths do over hours,
  here in seconds: about 7 KB of descriptions per compute);
- server: llama-server -ngl 99, CLIENTS clients sending prompts of 1 to 300 words (on this
  machine's lavapipe a few requests a minute: 600 s to write the 5 MiB the checks need).

With a GPU timing source the device work of a compute is still
pending when its thread's next compute starts, and its records, written when the device times
arrive, point at the compute's descriptions. The capture's kept chains must still be renewed
(docs/capture.md, "Memory"), so

  - the capture's own counters (OPSCOPE_STATS=1: a `opscope: mem:` line after a checkpoint
    every 10 s) stay flat: from the sample at WARM s on, the kept chains (keep_kb) grow by at
    most KEEP_SLOPE_MIB while descriptions keep being written (keep_written_kb grows by more
    than that: without renewal keep_kb would follow it), and they hold at most KEEP_MAX_MIB;
  - the profile is whole: 0 records dropped, every Vulkan compute timed on the device, and
    every computed node of every Vulkan graph compute (nodecount's OPSCOPE_TEST_NODELIST, an
    independent shim) in exactly one record.

Prints the table (time, requests, RSS, the capture's counters).
"""
import collections
import json
import os
import signal
import subprocess
import sys
import threading
import time
import urllib.request

import e2e
import procs  # tests/lib, on the path through e2e

MODE = sys.argv[1] if len(sys.argv) > 1 else "shapes"
SECONDS = int(sys.argv[2]) if len(sys.argv) > 2 else (60 if MODE == "shapes" else 600)
CLIENTS = int(sys.argv[3]) if len(sys.argv) > 3 else 4
SAMPLE_S = 10
WARM = min(120, SECONDS // 3)
KEEP_SLOPE_MIB = 4  # the renewal's window: chains of 3 chunks (1 MiB), a retired one awaiting its take
KEEP_MAX_MIB = 12

e2e.need_preload()
if not e2e.OPSCOPE:
    e2e.skip("OPSCOPE_BIN unset")
d = e2e.outdir(f"vulkan_longrun_{MODE}")
nc = e2e.nodecount_lib(d)
e2e.guard_children()
prof, nodes = f"{d}/profile.json", f"{d}/nodes.txt"
for f in (prof, nodes):
    if os.path.exists(f):
        os.unlink(f)

port = procs.free_port()
if MODE == "shapes":
    program = [f"{d}/vkshapes", str(SECONDS)]
    subprocess.run(["gcc", "-std=c11", "-O1", "-Wall", "-Wextra", "-Werror", os.path.join(e2e.HERE, "vkshapes.c"),
                    "-o", program[0], "-lggml", "-lggml-base"], check=True)
else:
    program = ["llama-server", "-m", e2e.model("tiny-dense-f32"), "--parallel", str(CLIENTS), "-c", str(1024 * CLIENTS), "-t", "1",
               "--host", "127.0.0.1", "--port", str(port), "--no-warmup", "--threads-http", str(CLIENTS),
               "--no-webui", "--cache-ram", "0", "-ngl", "99"]
env = e2e.env_for([], extra={"GGML_VK_VISIBLE_DEVICES": "0", "LP_NUM_THREADS": "2", "OPSCOPE_STATS": "1",
                             "OPSCOPE_TEST_NODELIST": nodes, "OPSCOPE_LIB": e2e.PRELOAD})
env.pop("OPSCOPE_GPU_TIMING", None)  # --gpu-timing all says it
# nodecount must run inside the program: a wrapper puts it before record's own preload
cmd = [e2e.OPSCOPE, "record", "-o", prof, "--gpu-timing", "all", "--", "env",
       f"LD_PRELOAD={nc}:{e2e.PRELOAD}"] + program
log_path = f"{d}/capture.log"


def mem_of(line):
    """A `opscope: mem:` line as {name: number} (its fields are numbers, name=value)."""
    pairs = (kv.partition("=") for kv in line.decode("ascii", "replace").split()[2:])
    return {k: float(v) for k, _, v in pairs if v.replace(".", "", 1).isdigit()}


def mem_lines():
    with open(log_path, "rb") as f:
        return [mem_of(line) for line in f if line.startswith(b"opscope: mem: ")]


def run_shapes():
    """The program to its end; the rows from every mem line the capture printed."""
    with open(log_path, "wb") as log:
        rc = subprocess.run(cmd, env=env, stdout=log, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL,
                            timeout=SECONDS + 300).returncode
    out = open(log_path, "rb").read().decode("utf-8", "replace")
    e2e.check(rc == 0 and "\nok\n" in out, f"vkshapes computed right on Vulkan under record (exit {rc}; "
                                           f"{[l for l in out.splitlines() if l.startswith('computes')]})")
    mem = mem_lines()
    t0 = mem[0]["mono_s"] - SAMPLE_S if mem else 0
    return [(round(x["mono_s"] - t0), 0, 0.0, x) for x in mem]


def run_server():
    """llama-server under load for SECONDS, sampled every 10 s, then stopped."""
    log = open(log_path, "wb")
    rec = subprocess.Popen(cmd, env=env, stdout=log, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL)
    if not e2e.check(procs.healthy(port, rec), "the llama-server on Vulkan becomes healthy under record"):
        rec.kill()
        e2e.finish()
    srv = procs.child_named(rec.pid, "llama-server")
    e2e.check(srv is not None, f"the captured llama-server runs under record (pid {srv})")

    stop = threading.Event()
    done = {"capture": 0}

    def client(i):
        """Completions of prompts of any length (1 to 300 words), as a server meets them: each new
        length is a prompt graph of new shapes, so descriptions keep coming."""
        k = 0
        while not stop.is_set():
            words = 1 + (i * 7919 + k * 104729) % 300
            body = {"prompt": f"Client {i} request {k}: " + "tell me " * words, "n_predict": 8, "temperature": 0,
                    "seed": k, "cache_prompt": False}
            req = urllib.request.Request(f"http://127.0.0.1:{port}/completion", json.dumps(body).encode(),
                                         {"Content-Type": "application/json"})
            try:
                with urllib.request.urlopen(req, timeout=120) as r:
                    r.read()
                    done["capture"] += 1
            except OSError:
                time.sleep(0.5)
            k += 1


    threads = [threading.Thread(target=client, args=(i,), daemon=True) for i in range(CLIENTS)]
    for t in threads:
        t.start()
    t0 = time.monotonic()
    rows = []
    next_sample = SAMPLE_S
    while next_sample <= SECONDS:
        time.sleep(max(0.0, t0 + next_sample - time.monotonic()))
        kib = procs.rss_kib(srv)
        mem = mem_lines()
        rows.append((next_sample, done["capture"], (kib or 0) / 1024, mem[-1] if mem else {}))
        next_sample += SAMPLE_S
    stop.set()
    for t in threads:
        t.join(timeout=120)  # their requests answered: a server stopped mid-request may not end
    os.kill(srv, signal.SIGTERM)
    try:
        rc = rec.wait(timeout=120)
    except subprocess.TimeoutExpired:
        rec.kill()
        rc = rec.wait()
    log.close()
    e2e.check(rc == 0, f"record exits 0 after the server's SIGTERM ({rc})")
    e2e.check(done["capture"] > 0, f"the server answered {done['capture']} requests")
    return rows


rows = run_shapes() if MODE == "shapes" else run_server()
cols = ("rec_kb", "keep_kb", "keep_written_kb", "descs", "caches_kb")
print(f"{'t_s':>5} {'requests':>8} {'rss_MiB':>8} " + " ".join(f"{c:>15}" for c in cols))
for t, n, rss, mem in rows:
    print(f"{t:>5} {n:>8} {rss:>8.1f} " + " ".join(f"{mem.get(c, float('nan')):>15.0f}" for c in cols))
warm = [r for r in rows if r[0] >= WARM and "keep_kb" in r[3]]
if e2e.check(len(warm) >= 2, f"the capture printed its counters from {WARM} s on ({len(warm)} samples)"):
    first, last = warm[0][3], warm[-1][3]
    written = (last["keep_written_kb"] - first["keep_written_kb"]) / 1024
    grew = (last["keep_kb"] - first["keep_kb"]) / 1024
    peak = max(r[3]["keep_kb"] for r in rows if "keep_kb" in r[3]) / 1024
    e2e.check(written > KEEP_SLOPE_MIB + 1,
              f"descriptions kept coming: {written:.1f} MiB written from {warm[0][0]} s to {warm[-1][0]} s "
              f"(> {KEEP_SLOPE_MIB + 1} MiB, so that a chain never renewed would show)")
    e2e.check(grew <= KEEP_SLOPE_MIB and peak <= KEEP_MAX_MIB,
              f"the kept chains stay a window: they grew {grew:.1f} MiB over that time (<= {KEEP_SLOPE_MIB}) "
              f"and held at most {peak:.1f} MiB (<= {KEEP_MAX_MIB})")

p = e2e.load_profile(prof)
e2e.check(p.get("dropped_records", 0) == 0, f"no record dropped ({p.get('dropped_records', 0)})")
ids = {b["id"] for b in p["backends"] if b["name"].startswith("Vulkan")}
recs = [r for r in p["records"] if r.get("backend_id") in ids and r.get("type") == 0 and "graph_id" in r]
e2e.check(recs and all(r.get("time_source") == "device" for r in recs),
          f"all {len(recs)} Vulkan records timed on the device "
          f"({sum(r.get('time_source') != 'device' for r in recs)} not)")
by_graph = collections.defaultdict(list)
for r in recs:
    by_graph[(r["graph_id"], r["split_id"])].append(r)
calls = []
with open(nodes) as f:
    for line in f:
        _seq, backend, lst = line.split()
        if backend.startswith("Vulkan") and lst != "-":
            calls.append({int(x) for x in lst.split(",")})
keys = sorted(by_graph)
e2e.check(len(keys) == len(calls), f"{len(keys)} Vulkan graph computes with records == {len(calls)} computing "
                                   f"calls seen by nodecount")
bad = []
for k, want in zip(keys, calls):
    seen = collections.Counter(i for r in by_graph[k] for i in range(r["node_index"], r["node_index"] +
                                                                       r.get("n_fused", 1)) if i in want)
    if set(seen) != want or any(c > 1 for c in seen.values()):
        bad.append((k, sorted(want - set(seen))[:5], sorted(i for i, c in seen.items() if c > 1)[:5]))
e2e.check(keys and not bad, f"every computed node of every Vulkan graph compute in exactly one record "
                            f"({len(keys)} graphs; [graph, missing, twice]: {bad[:3]})")
e2e.finish()
