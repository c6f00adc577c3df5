#!/usr/bin/env python3
"""The report's RPC figures in `opscope report --json` (summary.rpc) and `--sqlite` (tables
rpc_servers, rpc_calls), checked against what this script built (standard library only).

A client with two RPC servers (endpoints A and B, their own clocks) is generated here the
way ggml-rpc shapes a token: per endpoint a tensor set, the graph submit (GRAPH_SPLIT), an
asynchronous get and the SYNCHRONIZE that waits for it; each server computes the graph inside
the client's call. Also: a call to B whose graph the server did not record (no server, no
compute), a last call to A with no wait recorded (the call is its submit alone) and a graph A
ran for another client between two tokens (outside every call: no call's compute), and a
blocking get from B inside a call to A (it ends no call of A: a get waits for its own endpoint
only; it is B's copy, charged to B's next call). The truth
of every call (span, submit, server compute span, copies) is kept as it is built; the
per-server sums are computed from it and from the client's copy records. The profiles are
merged with the offsets given (--offset), so nothing here depends on the estimator.
Checked: the JSON summary's rpc servers and calls, the SQLite tables equal to them, the
backends' process column, the text report's line for a server, and no rpc member or rows
for a profile without RPC backends.
usage: rpc_summary.py OPSCOPE WORKDIR
"""
import json
import os
import random
import shutil
import sqlite3
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "report"))
from checks import check, done, load, run  # noqa: E402

OPSCOPE, WORK = sys.argv[1], sys.argv[2]
shutil.rmtree(WORK, ignore_errors=True)
os.makedirs(WORK)

EP = {"a": "10.0.0.2:50052", "b": "10.0.0.3:50053"}
OFF = {"a": 1_000_000_000_000 + 777, "b": 2_500_000_000_000 - 4_321}  # server clock - client clock
N_TOKENS = 12
SKIP_B = 7  # B's graph of this token is not in B's profile
rnd = random.Random(13)

client_be = [{"id": 0, "name": "CPU", "device": "Client CPU", "device_type": 0},
             {"id": 1, "name": f"RPC0[{EP['a']}]", "device": EP["a"], "device_type": 1},
             {"id": 2, "name": f"RPC1[{EP['b']}]", "device": EP["b"], "device_type": 1}]
BE_OF = {"a": 1, "b": 2}
crec = []
srec = {"a": [], "b": []}
truth = []  # per call, in start order: endpoint, server, start, end, submit, compute, copies, ...
graph_no = {"a": 0, "b": 0}


def server_graph(s, t0_client):
    """Records of one graph on server S starting at T0_CLIENT (client clock); its span."""
    t = t0_client + OFF[s]
    g = graph_no[s]
    graph_no[s] += 1
    first = t
    for i in range(rnd.randint(6, 14)):
        d = rnd.randint(3_000, 30_000)
        srec[s].append({"type": 0, "name": "MUL_MAT" if i % 2 else "ADD", "backend_id": 0, "split_id": -1,
                        "start_ns": t, "duration_ns": d, "bytes": 2048, "graph_id": g, "node_index": i})
        t += d + rnd.randint(0, 2_000)
    last = srec[s][-1]["start_ns"] + srec[s][-1]["duration_ns"]
    return first - OFF[s], last - OFF[s]


t = 10_000_000_000
pending_b = (0, 0)  # B's copies made before its next call
for k in range(N_TOKENS):
    for s in ("a", "b"):
        be = BE_OF[s]
        no_wait = s == "a" and k == N_TOKENS - 1
        set_ns, set_bytes = rnd.randint(10_000, 30_000), 4096 * (2 if s == "b" else 1)
        crec.append({"type": 1, "name": "copy_H2D", "backend_id": be, "split_id": -1, "start_ns": t,
                     "duration_ns": set_ns, "bytes": set_bytes, "extra": "tensor_set"})
        c0 = t + set_ns + 5_000
        submit = rnd.randint(3_000, 9_000)
        crec.append({"type": 0, "name": "GRAPH_SPLIT", "backend_id": be, "split_id": 1, "start_ns": c0,
                     "duration_ns": submit, "bytes": 0, "extra": "20 nodes, no per-op timing", "n_fused": 20})
        call = {"endpoint": EP[s], "start_ns": c0, "submit_ns": submit, "copies": 1 + pending_b[0],
                "copy_ns": set_ns + pending_b[1]}
        if s == "b":
            pending_b = (0, 0)
        if no_wait:  # the call ends with its submit; the server's graph is not recorded
            call.update(end_ns=c0 + submit, server=None, compute_start_ns=None, compute_ns=0, end_known=False)
            truth.append(call)
            t = c0 + submit + 400_000
            continue
        ga = c0 + submit + 2_000
        get_ns = rnd.randint(1_000, 4_000)
        crec.append({"type": 1, "name": "copy_D2H", "backend_id": be, "split_id": -1, "start_ns": ga,
                     "duration_ns": get_ns, "bytes": 512, "extra": "tensor_get_async"})
        if s == "a" and k == 2:  # a blocking get from B while A's call waits
            crec.append({"type": 1, "name": "copy_D2H", "backend_id": BE_OF["b"], "split_id": -1,
                         "start_ns": ga + get_ns + 100, "duration_ns": 500, "bytes": 256, "extra": "tensor_get"})
            pending_b = (1, 500)
        if s == "b" and k == SKIP_B:
            g0 = g1 = None
            answered = ga + 150_000
        else:
            g0, g1 = server_graph(s, c0 + rnd.randint(30_000, 120_000))
            answered = g1 + rnd.randint(20_000, 80_000)
        sync0 = ga + get_ns + 1_000
        crec.append({"type": 0, "name": "SYNCHRONIZE", "backend_id": be, "split_id": -1, "start_ns": sync0,
                     "duration_ns": answered - sync0, "bytes": 0})
        call.update(end_ns=answered, server=None if g0 is None else s, compute_start_ns=g0,
                    compute_ns=0 if g0 is None else g1 - g0, copies=call["copies"] + 1,
                    copy_ns=call["copy_ns"] + get_ns, end_known=True)
        truth.append(call)
        t = answered + rnd.randint(5_000, 20_000)
    crec.append({"type": 0, "name": "GET_ROWS", "backend_id": 0, "split_id": 0, "start_ns": t,
                 "duration_ns": 10_000, "bytes": 1024, "graph_id": 500 + k})
    if k == 4:  # A works for another client between two tokens, nearer the next call to A
        outside = server_graph("a", t + 300_000)
        t = outside[1] + 100_000
    else:
        t += rnd.randint(500_000, 2_000_000)

for c in truth:
    c["other_ns"] = c["end_ns"] - c["start_ns"] - c["compute_ns"]


def capture(program, pid, boot):
    return {"host": "box", "program": program, "pid": pid, "clock": "CLOCK_MONOTONIC", "boot_id": boot,
            "time_ns": 4026531834, "realtime_offset_ns": 1_700_000_000_000_000_000, "start_ns": 1000}


def write(name, obj):
    p = os.path.join(WORK, name)
    with open(p, "w") as f:
        json.dump(obj, f)
    return p


cp = write("client.json", {"profiler": "opscope", "version": 3, "backends": client_be,
                           "records": sorted(crec, key=lambda r: r["start_ns"]),
                           "capture": capture("llama-cli", 100, "b0")})
sp = {s: write(f"server_{s}.json", {
    "profiler": "opscope", "version": 3,
    "backends": [{"id": 0, "name": "CPU", "device": f"Server CPU {s}", "device_type": 0}],
    "records": sorted(srec[s], key=lambda r: r["start_ns"]),
    "capture": capture("ggml-rpc-server", 200, "b-" + s)}) for s in ("a", "b")}


def opscope(*args):
    return run([OPSCOPE, *args], text=True, timeout=120)


merged = os.path.join(WORK, "merged.json")
r = opscope("merge", cp, sp["a"], sp["b"], "-o", merged, "--label", f"a={sp['a']}", "--label", f"b={sp['b']}",
        "--offset", f"a={OFF['a']}", "--offset", f"b={OFF['b']}")
if not check(r.returncode == 0, f"merge with given offsets exits 0 ({r.stderr.strip()[:200]})"):
    sys.exit(done("rpc summary"))

# the expected per-server figures, from the truth and the client's copy records
copy_recs = {s: [x for x in crec if x["type"] == 1 and x["backend_id"] == BE_OF[s]] for s in ("a", "b")}
want_servers = []
for s in ("a", "b"):
    mine = [c for c in truth if c["endpoint"] == EP[s]]
    served = [c for c in mine if c["server"] == s]
    n_graphs = graph_no[s]
    want_servers.append({
        "process": s, "endpoint": EP[s], "calls": len(mine), "calls_served": len(served),
        "call_ns": sum(c["end_ns"] - c["start_ns"] for c in mine), "submit_ns": sum(c["submit_ns"] for c in mine),
        "compute_ns": sum(c["compute_ns"] for c in served),
        "other_ns": sum(c["end_ns"] - c["start_ns"] for c in mine) - sum(c["compute_ns"] for c in served),
        "copies": len(copy_recs[s]), "copy_bytes": sum(x["bytes"] for x in copy_recs[s]),
        "copy_ns": sum(x["duration_ns"] for x in copy_recs[s]),
        "graphs": n_graphs, "graphs_inside": n_graphs - (1 if s == "a" else 0),
        "max_outside_ns": 0 if s == "b" else min(
            max(0, c["start_ns"] - outside[0]) + max(0, outside[1] - c["end_ns"]) for c in truth)})
want_calls = [{k: c[k] for k in ("endpoint", "server", "start_ns", "end_ns", "submit_ns", "compute_start_ns",
                                 "compute_ns", "other_ns", "copies", "copy_ns", "end_known")} for c in truth]
check(len(want_calls) == 2 * N_TOKENS and sum(c["server"] is None for c in want_calls) == 2,
      "the generated client has 24 calls, 2 of them with no server graph")
check(want_servers[0]["max_outside_ns"] > 100_000, "the foreign graph lies well outside every call")

out_json = os.path.join(WORK, "report.json")
out_db = os.path.join(WORK, "report.db")
out_txt = os.path.join(WORK, "report.txt")
r = opscope("report", merged, "-q", "--json", out_json, "--sqlite", out_db, "--text", out_txt)
check(r.returncode == 0, f"report --json --sqlite --text exits 0 ({r.stderr.strip()[:200]})")
summ = load(out_json)["summary"]
rpc = summ.get("rpc")
if check(rpc is not None, "the JSON summary has an rpc member"):
    for got, want in zip(rpc["servers"], want_servers):
        diff = {k: (got.get(k), v) for k, v in want.items() if got.get(k) != v}
        check(not diff, f"server {want['process']}: every figure as built {diff}")
    check(len(rpc["servers"]) == 2 and set(rpc["servers"][0]) == set(want_servers[0]),
          f"two servers, no other keys ({[sorted(s) for s in rpc['servers']][:1]})")
    check(len(rpc["calls"]) == len(want_calls), f"{len(rpc['calls'])} calls, {len(want_calls)} built")
    bad = [(i, {k: (g.get(k), v) for k, v in w.items() if g.get(k) != v})
           for i, (g, w) in enumerate(zip(rpc["calls"], want_calls)) if g != w]
    check(not bad, f"every call equals the built one (first mismatches: {bad[:2]})")
    check(sum(c["compute_ns"] for c in rpc["calls"]) == sum(s["compute_ns"] for s in rpc["servers"]),
          "the calls' compute sums to the servers'")

db = sqlite3.connect(out_db)
db.row_factory = sqlite3.Row
rows = [dict(x) for x in db.execute("SELECT * FROM rpc_servers ORDER BY rowid")]
check(rows == want_servers, f"table rpc_servers equals the built figures ({len(rows)} rows)")
rows = [dict(x) for x in db.execute("SELECT * FROM rpc_calls ORDER BY call")]
for x in rows:
    x["end_known"] = bool(x["end_known"])
check([x.pop("call") for x in rows] == list(range(len(want_calls))), "rpc_calls numbered 0, 1, ... by start")
check(rows == want_calls, "table rpc_calls equals the built calls")
procs = {x["id"]: x["process"] for x in db.execute("SELECT id, process FROM backends")}
check(sorted(set(procs.values())) == ["a", "b", "box/llama-cli"], f"backends carry their process {procs}")
check(db.execute("SELECT value FROM meta WHERE key = 'schema_version'").fetchone()[0] == 5, "schema_version 5")
q = db.execute("SELECT s.process, sum(c.compute_ns) FROM rpc_calls AS c JOIN rpc_servers AS s "
               "ON s.process = c.server GROUP BY s.process ORDER BY s.process").fetchall()
check([tuple(x) for x in q] == [(w["process"], w["compute_ns"]) for w in want_servers],
      "calls joined with servers: compute per server")
db.close()

text = open(out_txt).read()
line = next((ln for ln in text.splitlines() if ln.startswith("  a ")), "")
w = want_servers[0]
check(f"{w['compute_ns'] / 1e6:10.3f}" in line and f"{w['graphs_inside']}/{w['graphs']}" in line,
      f"the text report's line for server a has the same compute and graphs ({line.strip()[:100]})")

# a profile without RPC backends: no rpc member, empty tables
r = opscope("report", cp.replace("client.json", "server_a.json"), "-q", "--json", out_json + "2", "--sqlite",
        out_db + "2")
db = sqlite3.connect(out_db + "2")
n = db.execute("SELECT (SELECT count(*) FROM rpc_servers) + (SELECT count(*) FROM rpc_calls)").fetchone()[0]
check(r.returncode == 0 and "rpc" not in load(out_json + "2")["summary"] and n == 0,
      "a server's own profile: no rpc member, no rpc rows")
# the client alone: calls but no server profile, as the text report (nothing)
r = opscope("report", cp, "-q", "--json", out_json + "3")
check(r.returncode == 0 and "rpc" not in load(out_json + "3")["summary"],
      "the client alone: no rpc member (no server was merged in)")

sys.exit(done("rpc summary"))
