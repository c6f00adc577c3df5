#!/usr/bin/env python3
"""What a paused capture costs: `opscope record --paused` against the plain program.

1. Decode speed: llama-bench tg128 (`-p 0 -n 128`, THREADS threads) on the tiny model, plain
   and under `record --paused` (never started: the hooks in place, nothing kept), in PAIRS
   rotated pairs (the order swaps every pair, so a drift of the machine's load falls on both
   sides); per pair the ratio of llama-bench's own tokens/s (paused / plain), then the median
   ratio and each side's median. Bar: the median ratio >= 0.99. On a shared machine the wall
   time swings with the others' load (10x between runs minutes apart), so each run's CPU time
   (user + system, of the whole process tree: wait4) is taken too, and the ratio of CPU time
   per run (plain / paused: >= 0.99 when paused costs under 1%) is given beside it.
2. Memory: a plain llama-server and one under `record --paused`, both at once under the same
   load (CLIENTS clients each, looping 16-token completions) for SECONDS; both RSS (VmRSS)
   every 5 s; the median and the last of (paused - plain). Bar: within 8 MiB.
Prints one line per measure and a summary; the figures go in docs/capture.md.

usage (inside the root; bench/capture/paused_cost.sh runs it there):
  paused_cost.py [PAIRS] [SECONDS] [CLIENTS] [THREADS]     (defaults 5, 120, 4, 1)
"""
import json
import os
import signal
import statistics
import subprocess
import sys
import threading
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "tests", "lib"))
import procs  # noqa: E402

PAIRS = int(sys.argv[1]) if len(sys.argv) > 1 else 5
SECONDS = int(sys.argv[2]) if len(sys.argv) > 2 else 120
CLIENTS = int(sys.argv[3]) if len(sys.argv) > 3 else 4
THREADS = int(sys.argv[4]) if len(sys.argv) > 4 else 1
MODEL = os.path.join(os.environ.get("OPSCOPE_MODELS", "/models"), "tiny-dense-f32.gguf")
OPSCOPE = os.environ.get("OPSCOPE_BIN", "opscope")
OUT = os.environ.get("OUT_DIR", os.path.join(os.getcwd(), "out-paused-cost"))
os.makedirs(OUT, exist_ok=True)
ENV = dict(os.environ)
ENV.pop("GGML_PROFILE", None)
ENV.pop("LD_PRELOAD", None)
if os.environ.get("OPSCOPE_PRELOAD"):
    ENV["OPSCOPE_LIB"] = os.environ["OPSCOPE_PRELOAD"]


def paused(cmd, out):
    return [OPSCOPE, "record", "--paused", "-o", out, "--"] + cmd


def bench_ts(cmd):
    """llama-bench's tokens/s of its one test (its -o json's avg_ts), and the CPU seconds of
    the run's whole process tree."""
    with open(f"{OUT}/bench.out", "wb") as out:
        p = subprocess.Popen(cmd, env=ENV, stdout=out, stderr=subprocess.DEVNULL, stdin=subprocess.DEVNULL)
        _, status, ru = os.wait4(p.pid, 0)
        p.returncode = os.waitstatus_to_exitcode(status)
    if p.returncode != 0:
        raise SystemExit(f"paused_cost: {' '.join(cmd[:4])}... failed ({p.returncode})")
    return json.loads(open(f"{OUT}/bench.out").read())[0]["avg_ts"], ru.ru_utime + ru.ru_stime


def decode_speed():
    bench = ["llama-bench", "-m", MODEL, "-p", "0", "-n", "128", "-t", str(THREADS), "-r", "3", "-o", "json"]
    ratios, plain_ts, paused_ts, cpu_ratios = [], [], [], []
    for k in range(PAIRS):
        sides = [("plain", bench), ("paused", paused(bench, f"{OUT}/bench-{k}.json"))]
        got = {}
        for name, cmd in (sides if k % 2 == 0 else sides[::-1]):
            got[name] = bench_ts(cmd)
        plain_ts.append(got["plain"][0])
        paused_ts.append(got["paused"][0])
        ratios.append(got["paused"][0] / got["plain"][0])
        cpu_ratios.append(got["plain"][1] / got["paused"][1])
        print(f"pair {k + 1}/{PAIRS} ({'plain first' if k % 2 == 0 else 'paused first'}): plain {got['plain'][0]:.1f} "
              f"t/s ({got['plain'][1]:.2f} CPU s), paused {got['paused'][0]:.1f} t/s ({got['paused'][1]:.2f} CPU s), "
              f"t/s ratio {ratios[-1]:.4f}, CPU ratio {cpu_ratios[-1]:.4f}", flush=True)
    print(f"decode tg128 CPU time: median plain / paused {statistics.median(cpu_ratios):.4f}", flush=True)
    med = statistics.median(ratios)
    print(f"decode tg128: median plain {statistics.median(plain_ts):.1f} t/s, median paused "
          f"{statistics.median(paused_ts):.1f} t/s, median ratio {med:.4f} (bar >= 0.99: "
          f"{'met' if med >= 0.99 else 'NOT met'})", flush=True)
    return med


def server_cmd(port):
    return ["llama-server", "-m", MODEL, "--parallel", str(CLIENTS), "-c", str(1024 * CLIENTS), "-t", "1",
            "--host", "127.0.0.1", "--port", str(port), "--threads-http", str(CLIENTS), "--no-webui",
            "--cache-ram", "0"]


def stop_servers(plain, rec):
    """SIGTERM to the plain server and to the llama-server under record (record passes its
    death on), both waited for at most 120 s together, then killed."""
    for pid in filter(None, (plain.pid, procs.child_named(rec.pid, "llama-server"))):
        os.kill(pid, signal.SIGTERM)
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline and None in (plain.poll(), rec.poll()):
        time.sleep(0.2)
    for p in (plain, rec):
        if p.poll() is None:
            p.kill()
            p.wait()


def memory():
    pp, pc = procs.free_port(), procs.free_port()
    plain = subprocess.Popen(server_cmd(pp), env=ENV, stdout=open(f"{OUT}/plain.log", "wb"),
                             stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL)
    rec = subprocess.Popen(paused(server_cmd(pc), f"{OUT}/server.json"), env=ENV,
                           stdout=open(f"{OUT}/paused.log", "wb"), stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL)
    try:
        if not (procs.healthy(pp, plain, 180) and procs.healthy(pc, rec, 180)):
            raise SystemExit("paused_cost: a llama-server did not become healthy")
        srv = procs.child_named(rec.pid, "llama-server")
        stop, done = threading.Event(), {"plain": 0, "paused": 0}
        threads = [threading.Thread(target=procs.completion_client, args=(port, done, side, i, stop), daemon=True)
                   for port, side in ((pp, "plain"), (pc, "paused")) for i in range(CLIENTS)]
        for t in threads:
            t.start()
        t0, diffs = time.monotonic(), []
        for k in range(1, SECONDS // 5 + 1):
            while time.monotonic() - t0 < 5 * k:
                time.sleep(0.2)
            a, b = procs.rss_kib(plain.pid), procs.rss_kib(srv)
            if a and b:
                diffs.append(b - a)
                if k % 4 == 0:
                    print(f"  {5 * k:4d} s: plain {a / 1024:7.2f} MiB, paused {b / 1024:7.2f} MiB, "
                          f"paused - plain {(b - a) / 1024:+6.2f} MiB ({done['plain']} / {done['paused']} requests)",
                          flush=True)
        stop.set()
    finally:
        stop_servers(plain, rec)
    med, last = statistics.median(diffs) / 1024, diffs[-1] / 1024
    worst = max(abs(x) for x in diffs) / 1024
    print(f"server RSS, {CLIENTS} clients each, {SECONDS} s: paused - plain median {med:+.2f} MiB, last {last:+.2f} "
          f"MiB, largest {worst:.2f} MiB ({done['plain']} / {done['paused']} requests answered; bar within 8 MiB: "
          f"{'met' if worst <= 8 else 'NOT met'})", flush=True)
    return worst


def main():
    print(f"load: {open('/proc/loadavg').read().split()[:3]}; {PAIRS} pairs, {SECONDS} s, {CLIENTS} clients, "
          f"{THREADS} threads", flush=True)
    r = decode_speed()
    w = memory()
    print(f"load: {open('/proc/loadavg').read().split()[:3]}", flush=True)
    return 0 if r >= 0.99 and w <= 8 else 1


sys.exit(main())
