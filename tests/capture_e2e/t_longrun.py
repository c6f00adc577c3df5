#!/usr/bin/env python3
"""llama-server under `opscope record` for a while, beside a plain one under the same load:
the capture streams its records to the record log, so

  - memory stays flat: the captured server's RSS <= the plain server's + 64 MiB at every
    10 s sample (both run at once, CLIENTS clients each, a tiny model, --cache-ram 0 so the
    server's own prompt cache does not grow), and from the sample at WARM s on (a third of
    the run, at most 120 s) the captured RSS grows by at most SLOPE_MIB more than the plain
    one: the kept descriptions are renewed (docs/capture.md, "Memory"), so the difference
    is the record window's and kept chains' chunks, 1 MiB each, not a line. (In CTest's
    45 s the defect this guards against, 3-9 KB per request served, adds under 1 MiB at this
    machine's few requests a second: the 600 s run of bench/capture/longrun.sh tells it.)
  - nothing is dropped (the log's drop counter);
  - each checkpoint writes only what is new: per flush (a RECORDS chunk up to its END chunk,
    walked here from the framing in docs/formats.md), the bytes appended <= 2x the flush's
    records times the log's bytes per record (flushes of at least 200 records);
  - a SIGKILL at a random moment after SECONDS (within 20 s) leaves every record older than 2 s
    readable: every graph compute nodecount (an independent shim, flushed per line) saw end
    more than 2 s before the kill has all its computed nodes in the profile, read by
    `opscope report --json` straight from the log, which says how the program died.

Prints the RSS table (time, plain MiB, captured MiB, log MiB, records so far).
usage (inside the root): t_longrun.py [SECONDS] [CLIENTS]   (default 40 s, 4 clients;
bench/capture/longrun.sh runs it for 600 s)
"""
import json
import os
import random
import signal
import subprocess
import sys
import threading
import time

import e2e
import procs  # tests/lib, on the path through e2e

SECONDS = int(sys.argv[1]) if len(sys.argv) > 1 else 40
CLIENTS = int(sys.argv[2]) if len(sys.argv) > 2 else 4
SAMPLE_S = 10
RSS_SLACK_MIB = 64
SLOPE_MIB = 4
WARM = min(120, SECONDS // 3)

e2e.need_preload()
if not e2e.OPSCOPE:
    e2e.skip("OPSCOPE_BIN unset")
e2e.guard_children()
m = e2e.model("tiny-dense-f32")
d = e2e.outdir("longrun")
nc = e2e.nodecount_lib(d)
prof = f"{d}/profile.json"
counts = f"{d}/counts.txt"
for f in (prof, counts):
    if os.path.exists(f):
        os.unlink(f)


def server_cmd(port):
    return ["llama-server", "-m", m, "--parallel", str(CLIENTS), "-c", str(1024 * CLIENTS), "-t", "1",
            "--host", "127.0.0.1", "--port", str(port), "--no-warmup", "--threads-http", str(CLIENTS),
            "--no-webui", "--cache-ram", "0"]


def rss_mib(pid):
    kib = procs.rss_kib(pid)
    return kib / 1024 if kib is not None else None


stop = threading.Event()
done = {"plain": 0, "capture": 0}


pp, pc = procs.free_port(), procs.free_port()
plain_log, cap_log = open(f"{d}/plain.log", "wb"), open(f"{d}/capture.log", "wb")
plain = subprocess.Popen(server_cmd(pp), env=e2e.env_for([nc], counts=f"{d}/counts-plain.txt"),
                         stdout=plain_log, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL)
rec = subprocess.Popen([e2e.OPSCOPE, "record", "-o", prof, "--"] + server_cmd(pc),
                       env=e2e.env_for([nc], counts=counts), stdout=cap_log, stderr=subprocess.STDOUT,
                       stdin=subprocess.DEVNULL)
ok = procs.healthy(pp, plain) and procs.healthy(pc, rec)
if not e2e.check(ok, "both llama-servers become healthy"):
    stop.set()
    for p in (plain, rec):
        p.kill()
    e2e.finish()
srv = procs.child_named(rec.pid, "llama-server")
e2e.check(srv is not None, f"the captured llama-server runs under record (pid {srv})")
threads = [threading.Thread(target=procs.completion_client, args=(port, done, side, i, stop), daemon=True)
           for port, side in ((pp, "plain"), (pc, "capture")) for i in range(CLIENTS)]
for t in threads:
    t.start()

rng = random.Random(os.getpid())
# sampled for SECONDS, then killed at a random moment of the next 20 s
kill_at = SECONDS + 20 * rng.random()
t0 = time.monotonic()
rows = []
next_sample = SAMPLE_S
kill_ns = None
while True:
    now = time.monotonic() - t0
    if now >= kill_at:
        kill_ns = time.monotonic_ns()
        os.kill(srv, signal.SIGKILL)
        break
    if now >= next_sample and next_sample <= SECONDS:
        size = os.path.getsize(prof) / 1048576 if os.path.exists(prof) else 0.0
        rows.append((next_sample, rss_mib(plain.pid), rss_mib(srv), size, done["plain"], done["capture"]))
        next_sample += SAMPLE_S
    time.sleep(0.2)
stop.set()
rc = rec.wait(timeout=60)
plain.send_signal(signal.SIGTERM)
try:
    plain.wait(timeout=30)
except subprocess.TimeoutExpired:
    plain.kill()
plain_log.close()
cap_log.close()

print(f"{'t_s':>5} {'plain_MiB':>10} {'capture_MiB':>12} {'delta_MiB':>10} {'log_MiB':>8} {'req_plain':>9} {'req_cap':>8}")
over = []
for t, a, b, size, np_, nc_ in rows:
    delta = (b - a) if a is not None and b is not None else None
    print(f"{t:>5} {a or 0:>10.1f} {b or 0:>12.1f} {delta if delta is not None else float('nan'):>10.1f} "
          f"{size:>8.1f} {np_:>9} {nc_:>8}")
    if delta is None or delta > RSS_SLACK_MIB:
        over.append((t, a, b))
e2e.check(rows and not over, f"captured RSS <= plain RSS + {RSS_SLACK_MIB} MiB at every {SAMPLE_S} s sample "
                             f"({len(rows)} samples; over: {over[:3]})")
warm = [r for r in rows if r[0] >= WARM and r[1] is not None and r[2] is not None]
if len(warm) >= 2:
    grew = (warm[-1][2] - warm[0][2]) - (warm[-1][1] - warm[0][1])
    e2e.check(grew <= SLOPE_MIB, f"from {warm[0][0]} s to {warm[-1][0]} s the captured RSS grew {grew:.1f} MiB more "
                                 f"than the plain one (<= {SLOPE_MIB}; {warm[-1][5] - warm[0][5]} requests served)")
e2e.check(done["capture"] > 0, f"the captured server answered {done['capture']} requests "
                               f"(plain {done['plain']}) before the SIGKILL at {kill_at:.1f} s")
e2e.check(rc == -signal.SIGKILL or rc == 128 + signal.SIGKILL, f"record exits as its program died (SIGKILL: {rc})")


# ---- the log, walked by hand: chunks of a 16-byte header (magic, type, length, sum) ----
def varint(b, i):
    v, s = 0, 0
    while True:
        x = b[i]
        i += 1
        v |= (x & 0x7F) << s
        s += 7
        if not x & 0x80:
            return v, i


with open(prof, "rb") as f:
    data = f.read()
e2e.check(data[:8] == e2e.LOG_MAGIC, "the killed run leaves the record log at the profile's path")
flushes, cur, off, drops = [], None, 16, 0
while off + 16 <= len(data) and data[off:off + 4] == b"OPCK":
    typ = int.from_bytes(data[off + 4:off + 8], "little")
    n = int.from_bytes(data[off + 8:off + 12], "little")
    if off + 16 + n > len(data):
        break
    if cur is None:
        cur = [0, 0, 0]
    cur[0] += 16 + n
    if typ == 3:
        nrec, i = varint(data, off + 16)
        _total, i = varint(data, i)
        cur[1] += nrec
        cur[2] += varint(data, i)[0]
    elif typ == 4:
        drops = varint(data, off + 16)[0]
    elif typ == 5:
        flushes.append(tuple(cur))
        cur = None
    off += 16 + n
records = sum(f[1] for f in flushes)
per_rec = sum(f[0] for f in flushes) / records if records else 0
big = [f for f in flushes if f[1] >= 200]
ratios = sorted(b / (r * per_rec) for b, r, _ in big)
e2e.note(f"note  log: {len(data) / 1048576:.1f} MiB, {records} records in {len(flushes)} flushes, "
         f"{per_rec:.1f} bytes per record; bytes per flush / its records' share of the log: median "
         f"{ratios[len(ratios) // 2] if ratios else 0:.2f}, worst {ratios[-1] if ratios else 0:.2f} "
         f"(a flush also writes the templates of the op shapes new in it)")
e2e.check(drops == 0, f"no record dropped (the log's drop counter: {drops})")
e2e.check(sum(f[0] for f in flushes) + 16 == len(data), f"the log is its flushes' appends and nothing else "
                                                       f"({len(data)} bytes)")

# ---- SIGKILL: every graph compute that ended > 2 s before it is whole in the profile ----
t_conv = time.monotonic()
p = e2e.load_profile(prof)
t_conv = time.monotonic() - t_conv  # report --json of the log (what the capture does at a normal end) + json.load
end = p.get("capture", {}).get("end", {})
e2e.check(end.get("how") == "killed" and end.get("signal") == "SIGKILL",
          f"the profile says the program was killed by SIGKILL ({end})")
graphs = {}
order = []
with open(counts) as f:
    for line in f:
        seq, sseq, _b, _n, comp, _tok, g0, g1 = line.split()[:8]
        key = int(sseq) if int(sseq) >= 0 else ("call", int(seq))
        if key not in graphs:
            graphs[key] = [0, 0]
            order.append(key)
        graphs[key][0] += int(comp)
        graphs[key][1] = max(graphs[key][1], int(g1))
old = [graphs[k][0] for k in order if graphs[k][1] < kill_ns - 2_000_000_000]
prof_graphs = e2e.graphs_of(p)
got = [e2e.covered(recs) for _, recs in prof_graphs[:len(old)]]
missing = [(i, g, w) for i, (g, w) in enumerate(zip(got, old)) if g != w]
e2e.check(len(old) > 0 and len(prof_graphs) >= len(old) and not missing,
          f"all {len(old)} graph computes that ended > 2 s before the SIGKILL are whole in the profile "
          f"({len(prof_graphs)} graphs read; mismatches [i, recorded, computed]: {missing[:3]})")
n_json = len(p.get("records", []))
json_bytes = os.path.getsize(prof + ".from-log.json")
e2e.note(f"note  profile read from the log: {n_json} records; as JSON {json_bytes / 1048576:.1f} MiB "
         f"({json_bytes / max(n_json, 1):.0f} bytes per record); log to JSON and loaded in {t_conv:.1f} s")
# Checkpoint I/O against the profile a checkpoint would write if it rewrote it whole: a flush's
# bytes <= 2x its records' share of the JSON profile (checked on flushes of >= 200 records);
# and, once the program's op shapes are known (a flush defining < 10 templates), <= 2x their
# share of the log itself.
share = json_bytes / max(n_json, 1)
worst_json = max((b / (r * share) for b, r, _ in big), default=0)
steady = [b / (r * per_rec) for b, r, t in big if t < 10]
e2e.check(big and worst_json <= 2.0, f"every flush of >= 200 records wrote <= 2x its records' share of the profile "
                                     f"({len(big)} flushes, worst {worst_json:.3f}x)")
e2e.check(steady and max(steady) <= 2.0, f"every such flush with < 10 new templates wrote <= 2x its records' share "
                                         f"of the log ({len(steady)} flushes, worst {max(steady, default=0):.2f}x)")

# ---- every reader reads the log as it is: view, diff (report did above) ----
v = subprocess.run([e2e.OPSCOPE, "view", prof, "-o", f"{d}/v.html"], capture_output=True, text=True, timeout=300)
e2e.check(v.returncode == 0 and os.path.getsize(f"{d}/v.html") > 10000,
          f"opscope view reads the log (exit {v.returncode}: {v.stderr.strip()[-200:]!r})")
df = subprocess.run([e2e.OPSCOPE, "diff", prof, prof + ".from-log.json", "--json", f"{d}/diff.json"],
                    capture_output=True, text=True, timeout=300)
same = json.load(open(f"{d}/diff.json")) if df.returncode == 0 else {}
e2e.check(df.returncode == 0, f"opscope diff reads the log beside its JSON (exit {df.returncode}: "
                              f"{df.stderr.strip()[-200:]!r})")
e2e.finish()
