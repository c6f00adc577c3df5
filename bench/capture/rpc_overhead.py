#!/usr/bin/env python3
"""Capture inside ggml-rpc-server: the client's decode tokens/s with the server profiled and
without (the bar: within 3%).

Runs inside the forky root (bench/capture/run.sh does that). PAIRS alternating runs (order
swapped every pair, so drift hits both sides alike): a fresh ggml-rpc-server on loopback, plain
or under libopscope-ggml.so (stopped with SIGTERM, so it writes its profile, after the run),
and `llama-bench -m MODEL --rpc EP -ngl 99 -p 0 -n N -r R -t 1` as its client, unprofiled.
Prints every run's tokens/s, the medians and their ratio.
usage: rpc_overhead.py [--model NAME] [--pairs N] [--n-gen N] [--reps R] [--pin]
"""
import argparse
import json
import os
import signal
import socket
import statistics
import subprocess
import tempfile
import time

ap = argparse.ArgumentParser()
ap.add_argument("--model", default="tiny-dense-f32")
ap.add_argument("--pairs", type=int, default=5)
ap.add_argument("--n-gen", type=int, default=64)
ap.add_argument("--reps", type=int, default=3)
ap.add_argument("--pin", action="store_true",
                help="server on CPU 1, client on CPU 0 (on 2 cores their threads otherwise share "
                     "cores by chance, and single runs are bimodal)")
a = ap.parse_args()

SERVER = "/usr/libexec/x86_64-linux-gnu/llama/bin/ggml-rpc-server"
MODEL = os.path.join(os.environ.get("OPSCOPE_MODELS", "/models"), a.model + ".gguf")
PRELOAD = os.environ["OPSCOPE_PRELOAD"]
OUT = os.path.join(tempfile.gettempdir(), "opscope-rpc-overhead")  # the server's profiles, scratch
os.makedirs(OUT, exist_ok=True)


def port():
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    p = s.getsockname()[1]
    s.close()
    return p


def one(profiled):
    p = port()
    env = dict(os.environ)
    if profiled:
        env.update(LD_PRELOAD=PRELOAD, GGML_PROFILE=f"{OUT}/server.json")
    pin = (lambda c: ["taskset", "-c", c]) if a.pin else (lambda c: [])
    srv = subprocess.Popen(pin("1") + [SERVER, "-H", "127.0.0.1", "-p", str(p), "-t", "1"], env=env,
                           stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    for _ in range(100):
        try:
            socket.create_connection(("127.0.0.1", p), timeout=0.5).close()
            break
        except OSError:
            time.sleep(0.1)
    r = subprocess.run(pin("0") + ["llama-bench", "-m", MODEL, "--rpc", f"127.0.0.1:{p}", "-ngl", "99", "-p", "0",
                        "-n", str(a.n_gen), "-r", str(a.reps), "-t", "1", "-o", "json"],
                       capture_output=True, text=True, timeout=600)
    srv.send_signal(signal.SIGTERM)
    srv.wait(timeout=60)
    ts = json.loads(r.stdout)[0]["avg_ts"]
    return ts


plain, prof = [], []
for i in range(a.pairs):
    for profiled in ((False, True) if i % 2 == 0 else (True, False)):
        ts = one(profiled)
        (prof if profiled else plain).append(ts)
        print(f"pair {i} {'profiled' if profiled else 'plain   '} {ts:8.1f} tokens/s", flush=True)
mp, mq = statistics.median(plain), statistics.median(prof)
print(f"median plain {mp:.1f} tokens/s, server profiled {mq:.1f} tokens/s: ratio {mq / mp:.4f} "
      f"({(mq / mp - 1) * 100:+.2f}%; bar: within 3%)")
