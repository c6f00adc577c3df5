#!/usr/bin/env python3
"""%Time of a merged RPC profile counts each instant once per machine.

The fixture is a real merge (tests/capture_e2e/t_rpc.py one: llama-completion -n 16 on the
tiny model over --rpc to a profiled ggml-rpc-server, then opscope merge). The client's
records on its RPC backend (SYNCHRONIZE, GRAPH_SPLIT, tensor set/get) overlap the server's
records on the merged timeline; the overlap is the same wall time seen from both sides.
Computed here from the records (standard library only): the union of the server's record
intervals, each client RPC record's overlap with it, per group and in all. Checked: the JSON
summary's rpc_covered_ns (total and per op) and pct_time = (total - covered) / (all -
covered); the console's and the text report's %Time and their "waiting on RPC server" line;
the same records out of start order give no figure and say so.
usage: rpc_time.py OPSCOPE WORKDIR
"""
import gzip
import json
import os
import random
import subprocess
import sys

opscope, work = sys.argv[1], sys.argv[2]
os.makedirs(work, exist_ok=True)
here = os.path.dirname(os.path.abspath(__file__))
failed = 0


def check(ok, msg):
    global failed
    print(("ok    " if ok else "FAIL  ") + msg)
    failed += not ok
    return ok


prof = json.load(gzip.open(os.path.join(here, "data", "rpc-one-merged.json.gz")))
path = os.path.join(work, "merged.json")
json.dump(prof, open(path, "w"))
be = {b["id"]: b for b in prof["backends"]}
client = next(b["process"] for b in prof["backends"] if b["name"].startswith("RPC"))
recs = prof["records"]
span = lambda r: (r["start_ns"], r["start_ns"] + r["duration_ns"])

union = []
for a, e in sorted(span(r) for r in recs if be[r["backend_id"]]["process"] != client):
    if union and a <= union[-1][1]:
        union[-1][1] = max(union[-1][1], e)
    else:
        union.append([a, e])


def covered(a, e):
    return sum(max(0, min(e, y) - max(a, x)) for x, y in union if x < e and y > a)


want = {}  # (type, backend, name, extra) -> [total, covered]
for r in recs:
    b = be[r["backend_id"]]
    key = (r["type"], r["backend_id"], r["name"], r.get("extra"))
    w = want.setdefault(key, [0, 0])
    w[0] += r["duration_ns"]
    if b["process"] == client and b["name"].startswith("RPC"):
        w[1] += covered(*span(r))
all_ns = sum(r["duration_ns"] for r in recs)
cov_ns = sum(w[1] for w in want.values())
sync = sum(w[1] for k, w in want.items() if k[2] == "SYNCHRONIZE")
check(cov_ns > 0 and sync > 0, f"the fixture's client RPC records overlap the server's: {cov_ns / 1e6:.3f} ms "
      f"of {all_ns / 1e6:.3f} ms ({sync / 1e6:.3f} ms of it in SYNCHRONIZE)")


def run(*args):
    return subprocess.run([opscope, *args], capture_output=True, text=True, errors="replace", timeout=120)


out = os.path.join(work, "report.json")
r = run("report", path, "-q", "--json", out)
check(r.returncode == 0, f"report --json exits 0 ({r.stderr.strip()[:200]})")
summ = json.load(open(out))["summary"]
check(summ["total_ns"] == all_ns, f"summary total_ns is the records' sum ({summ['total_ns']} vs {all_ns})")
check(summ.get("rpc_covered_ns") == cov_ns, f"summary rpc_covered_ns {summ.get('rpc_covered_ns')} == {cov_ns} computed here")
bad, pct_sum = [], 0.0
for g in summ["ops"]:
    x = g["call"] if g["type"] == 1 else g["extra"]
    tot, cov = want.get((g["type"], g["backend_id"], g["name"], x), [None, 0])
    pct = 100.0 * (g["total_ns"] - cov) / (all_ns - cov_ns)
    pct_sum += g["pct_time"]
    if tot != g["total_ns"] or g.get("rpc_covered_ns", 0) != cov or abs(g["pct_time"] - pct) > 1e-6:
        bad.append((g["display"], g["backend_id"], g["pct_time"], pct, g.get("rpc_covered_ns"), cov))
check(not bad, f"every op's pct_time is (total - covered) / (all - covered), covered as computed here ({bad[:3]})")
check(abs(pct_sum - 100.0) < 1e-6, f"the ops' pct_time sum to 100 ({pct_sum:.6f})")

sync_row = next((g for g in summ["ops"] if g["name"] == "SYNCHRONIZE" and g.get("rpc_covered_ns")), None)
if not check(sync_row is not None, "the JSON has a SYNCHRONIZE op with covered time"):
    sys.exit(1)
sync_pct = 100.0 * (sync_row["total_ns"] - sync_row["rpc_covered_ns"]) / (all_ns - cov_ns)
line = f"waiting on RPC server (covered by server records)"
for what, args in (("console", ("report", path)), ("text report", None)):
    if args is None:
        txt = os.path.join(work, "report.txt")
        rr = run("report", path, "-q", "--text", txt)
        text = open(txt).read() if rr.returncode == 0 else ""
    else:
        rr = run(*args)
        text = rr.stdout
    lines = text.splitlines()
    wait = [l for l in lines if line in l]
    check(rr.returncode == 0 and len(wait) == 1 and f"{cov_ns / 1e6:.3f}" in wait[0],
          f"{what}: one '{line}' line with {cov_ns / 1e6:.3f} ms ({wait})")
    row = [l for l in lines if " SYNCHRONIZE " in l and f"{sync_row['total_ns'] / 1e6:.3f}" in l]
    check(len(row) >= 1 and f"{sync_pct:5.1f}%" in row[0],
          f"{what}: the SYNCHRONIZE row shows {sync_pct:.1f}% ({row[:1]})")

# out of start order: no figure rather than a partial one, and the summary says why
shuffled = dict(prof)
shuffled["records"] = recs[:]
random.Random(1).shuffle(shuffled["records"])
spath = os.path.join(work, "shuffled.json")
json.dump(shuffled, open(spath, "w"))
r = run("report", spath, "-q", "--json", out)
s2 = json.load(open(out))["summary"] if r.returncode == 0 else {}
check(s2.get("rpc_covered_ns") is None and s2.get("rpc_cover_unsorted") is True and
      all(abs(g["pct_time"] - 100.0 * g["total_ns"] / all_ns) < 1e-6 for g in s2["ops"]),
      "records out of start order: no rpc_covered_ns, rpc_cover_unsorted, %Time of the plain sum")
r = run("report", spath)
check("not computed" in r.stdout, "the console says the overlap was not computed "
      f"({[l for l in r.stdout.splitlines() if 'RPC' in l][:2]})")
print("passed: 0 failed checks" if not failed else f"FAILED: {failed} failed checks")
sys.exit(1 if failed else 0)
