#!/usr/bin/env python3
"""Which of the capture's structures grows on a long run, and by how much.

Two llama-servers (tiny model, 1 thread, --cache-ram 0 so the server's own prompt cache does
not grow) run at once under the same load: CLIENTS clients each, for SECONDS; one plain, one
under `opscope record` with OPSCOPE_STATS=1, whose capture prints a line of what it holds
(`opscope: mem: ...`, src/capture/store/cap_log.c) after a checkpoint every 10 s. Every 10 s
this samples both servers' RSS (VmRSS) and takes the capture's last line. Prints the table
(time, requests, RSS of both, the capture's counters), then for each quantity its slope from
WARMUP_S on (least squares): per minute and per request served by the captured server, and
the captured RSS slope beside the plain one; the structure whose slope is largest is named.

usage (inside the root, bench/capture/memgrowth.sh runs it there):
  memgrowth.py [SECONDS] [CLIENTS] [WARMUP_S]     (defaults 600, 6, 120)
Writes OUT_DIR (default ./out-memgrowth): both servers' logs and table.tsv.
"""
import os
import signal
import subprocess
import sys
import threading
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "tests", "lib"))
import procs  # noqa: E402

SECONDS = int(sys.argv[1]) if len(sys.argv) > 1 else 600
CLIENTS = int(sys.argv[2]) if len(sys.argv) > 2 else 6
WARMUP_S = int(sys.argv[3]) if len(sys.argv) > 3 else min(120, SECONDS // 5)
SAMPLE_S = 10
MODEL = os.path.join(os.environ.get("OPSCOPE_MODELS", "/models"), "tiny-dense-f32.gguf")
OPSCOPE = os.environ.get("OPSCOPE_BIN", "opscope")
OUT = os.environ.get("OUT_DIR", os.path.join(os.getcwd(), "out-memgrowth"))
os.makedirs(OUT, exist_ok=True)


def server_cmd(port):
    return ["llama-server", "-m", MODEL, "--parallel", str(CLIENTS), "-c", str(1024 * CLIENTS), "-t", "1",
            "--host", "127.0.0.1", "--port", str(port), "--no-warmup", "--threads-http", str(CLIENTS),
            "--no-webui", "--cache-ram", "0"]


def last_mem_line(path):
    """The capture's last `opscope: mem:` line in PATH, as a dict of numbers."""
    last = None
    try:
        with open(path, "rb") as f:
            for line in f:
                if line.startswith(b"opscope: mem: "):
                    last = line
    except OSError:
        return {}
    if not last:
        return {}
    out = {}
    for kv in last.decode("ascii", "replace").split()[2:]:
        k, _, v = kv.partition("=")
        try:
            out[k] = float(v)
        except ValueError:
            pass
    return out


stop = threading.Event()
done = {"plain": 0, "capture": 0}


def slope(xs, ys):
    n = len(xs)
    if n < 2:
        return 0.0
    mx, my = sum(xs) / n, sum(ys) / n
    den = sum((x - mx) ** 2 for x in xs)
    return sum((x - mx) * (y - my) for x, y in zip(xs, ys)) / den if den else 0.0


def main():
    pp, pc = procs.free_port(), procs.free_port()
    env = dict(os.environ)
    env.pop("GGML_PROFILE", None)
    env["OPSCOPE_STATS"] = "1"
    plain_log, cap_log = f"{OUT}/plain.log", f"{OUT}/capture.log"
    prof = f"{OUT}/profile.json"
    plain = subprocess.Popen(server_cmd(pp), env=env, stdout=open(plain_log, "wb"), stderr=subprocess.STDOUT,
                             stdin=subprocess.DEVNULL)
    rec = subprocess.Popen([OPSCOPE, "record", "-o", prof, "--"] + server_cmd(pc), env=env,
                           stdout=open(cap_log, "wb"), stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL)
    if not (procs.healthy(pp, plain, 180) and procs.healthy(pc, rec, 180)):
        print("memgrowth: a llama-server did not become healthy", file=sys.stderr)
        for p in (plain, rec):
            p.kill()
        return 1
    srv = procs.child_named(rec.pid, "llama-server")
    threads = [threading.Thread(target=procs.completion_client, args=(port, done, side, i, stop), daemon=True)
               for port, side in ((pp, "plain"), (pc, "capture")) for i in range(CLIENTS)]
    for t in threads:
        t.start()
    t0 = time.monotonic()
    rows = []
    cols = ["rec_kb", "keep_kb", "keep_written_kb", "descs", "caches_kb", "log_tmpls", "log_tmpl_kb", "log_bufs_kb",
            "gather_kb", "decodes_kb", "malloc_arena_kb", "malloc_used_kb", "malloc_mmap_kb", "dropped"]
    print(f"load: {open('/proc/loadavg').read().split()[:3]}; {CLIENTS} clients each, {SECONDS} s, slopes from "
          f"{WARMUP_S} s", flush=True)
    head = ["t_s", "req_plain", "req_cap", "plain_kb", "cap_kb"] + cols
    print(" ".join(f"{h:>10}" for h in head), flush=True)
    for k in range(1, SECONDS // SAMPLE_S + 1):
        while time.monotonic() - t0 < k * SAMPLE_S:
            time.sleep(0.2)
        m = last_mem_line(cap_log)
        row = [k * SAMPLE_S, done["plain"], done["capture"], procs.rss_kib(plain.pid) or 0, procs.rss_kib(srv) or 0] + \
              [m.get(c, 0) for c in cols]
        rows.append(row)
        print(" ".join(f"{v:>10.0f}" for v in row), flush=True)
    stop.set()
    for p in (plain,):
        p.send_signal(signal.SIGTERM)
    os.kill(srv, signal.SIGTERM)
    for p in (plain, rec):
        try:
            p.wait(timeout=300)
        except subprocess.TimeoutExpired:
            p.kill()
    with open(f"{OUT}/table.tsv", "w") as f:
        f.write("\t".join(head) + "\n")
        for r in rows:
            f.write("\t".join(str(v) for v in r) + "\n")
    tail = [r for r in rows if r[0] >= WARMUP_S]
    if len(tail) < 2:
        print("memgrowth: too short for a slope after the warm-up")
        return 0
    ts = [r[0] / 60 for r in tail]
    reqs = tail[-1][2] - tail[0][2]
    mins = (tail[-1][0] - tail[0][0]) / 60
    print(f"\nfrom {tail[0][0]} s to {tail[-1][0]} s: {reqs} requests served under capture "
          f"({tail[-1][1] - tail[0][1]} plain)")
    sp = slope(ts, [r[3] for r in tail])
    sc = slope(ts, [r[4] for r in tail])
    print(f"  RSS plain    {sp:9.1f} KiB/min   grew {(tail[-1][3] - tail[0][3]) / 1024:7.2f} MiB")
    print(f"  RSS captured {sc:9.1f} KiB/min   grew {(tail[-1][4] - tail[0][4]) / 1024:7.2f} MiB "
          f"({(sc - sp) * mins / max(reqs, 1) * 1024:.0f} bytes per request more than plain)")
    growth = []
    for i, c in enumerate(cols):
        ys = [r[5 + i] for r in tail]
        s = slope(ts, ys)
        unit = "" if c in ("descs", "log_tmpls", "dropped") else " KiB"
        print(f"  {c:16} {s:9.1f}{unit}/min  {s * mins / max(reqs, 1):10.3f}{unit}/request   "
              f"{ys[0]:.0f} -> {ys[-1]:.0f}")
        # held now, not cumulative (keep_written_kb counts every description ever written)
        if unit and c not in ("keep_written_kb", "malloc_arena_kb", "malloc_used_kb", "malloc_mmap_kb"):
            growth.append((s, c))
    growth.sort(reverse=True)
    print(f"  grows most: {growth[0][1]} ({growth[0][0]:.1f} KiB/min)" if growth and growth[0][0] > 1 else
          "  no structure of the capture grows by more than 1 KiB/min")
    print(f"  captured minus plain RSS growth from {tail[0][0]} s: "
          f"{(tail[-1][4] - tail[0][4] - (tail[-1][3] - tail[0][3])) / 1024:.2f} MiB; dropped {tail[-1][-1]:.0f}")
    return 0


sys.exit(main())
