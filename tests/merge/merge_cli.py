#!/usr/bin/env python3
"""`opscope merge` on generated client/server profiles (standard library only).

The profiles are built here the way ggml-rpc shapes them: per token the client submits a
remote graph (GRAPH_SPLIT on an RPC backend), reads the output asynchronously and waits in a
SYNCHRONIZE; the server computes the graph's ops and answers the get. The server's clock runs
OFFSET ahead, with random latencies, so the true offset is known here and the merged file is
checked against it: the offset inside the stated bound, every server op inside a client call,
backends and graph ids renumbered, metadata kept. Also: same-clock profiles (no offset),
--offset and --label, usage errors (exit 1), bad input (exit 2, nothing written), and
`opscope report` on the result (the RPC servers table). A server profile that does not match
its client is refused, each reason checked alone: no server records, too few requests matched
(both floors at their edge), requests outside the server's run (a profile ending early, one
cut short, another run on the same clock), an offset the wall clocks contradict; and real
profiles of tests/capture_e2e's runs (tests/merge/data): the true pair merges, clients of other
runs of the same model are refused.
usage: merge_cli.py OPSCOPE WORKDIR
"""
import gzip
import json
import os
import random
import re
import shutil
import subprocess
import sys

OPSCOPE, WORK = sys.argv[1], sys.argv[2]
shutil.rmtree(WORK, ignore_errors=True)
os.makedirs(WORK)
failures = []


def check(cond, msg):
    print(("ok    " if cond else "FAIL  ") + msg, flush=True)
    if not cond:
        failures.append(msg)
    return cond


def capture(program, pid, boot="b00t", time_ns=4026531834, rto=1_700_000_000_000_000_000):
    return {"host": "box", "program": program, "pid": pid, "clock": "CLOCK_MONOTONIC", "boot_id": boot,
            "time_ns": time_ns, "realtime_offset_ns": rto, "start_ns": 1000}


def make_pair(offset, n_tokens=40, seed=1, same_clock=False):
    rnd = random.Random(seed)
    crec, srec = [], []
    t = 5_000_000_000
    g = 0
    for k in range(n_tokens):
        # client: input upload (a set), the graph submit, an async get, the synchronize
        crec.append({"type": 1, "name": "copy_H2D", "backend_id": 1, "split_id": -1, "start_ns": t,
                     "duration_ns": 20_000, "bytes": 1024, "extra": "tensor_copy"})
        t += 30_000
        c0 = t
        crec.append({"type": 0, "name": "GRAPH_SPLIT", "backend_id": 2, "split_id": 1, "start_ns": c0,
                     "duration_ns": 5_000, "bytes": 0, "extra": "30 nodes, no per-op timing", "n_fused": 30,
                     "graph_id": k})
        s = c0 + offset + rnd.randint(40_000, 250_000)  # the graph reaches the server
        s_start = s
        for i in range(20):  # 20 records covering 30 nodes
            d = rnd.randint(5_000, 40_000)
            srec.append({"type": 0, "name": "MUL_MAT" if i % 2 else "ADD", "backend_id": 0, "split_id": -1,
                         "start_ns": s, "duration_ns": d, "bytes": 1024, "n_fused": 2 if i < 10 else 1,
                         "graph_id": g, "node_index": i})
            s += d
        get_s = s + rnd.randint(1_000, 5_000)
        srec.append({"type": 1, "name": "copy_H2H", "backend_id": 0, "split_id": -1, "start_ns": get_s,
                     "duration_ns": 300, "bytes": 1024, "extra": "tensor_get"})
        g += 1
        ga = c0 + 10_000
        crec.append({"type": 1, "name": "copy_D2H", "backend_id": 2, "split_id": -1, "start_ns": ga,
                     "duration_ns": 2_000, "bytes": 1024, "extra": "tensor_get_async"})
        sync0 = ga + 5_000
        sync1 = get_s + 300 - offset + rnd.randint(15_000, 60_000)  # the answer comes back
        crec.append({"type": 0, "name": "SYNCHRONIZE", "backend_id": 2, "split_id": -1, "start_ns": sync0,
                     "duration_ns": sync1 - sync0, "bytes": 0})
        crec.append({"type": 0, "name": "GET_ROWS", "backend_id": 0, "split_id": 0, "start_ns": sync1 + 100_000,
                     "duration_ns": 10_000, "bytes": 1024, "graph_id": 1000 + k})
        t = sync1 + rnd.randint(500_000, 3_000_000)
    cl = {"profiler": "opscope", "version": 3,
          "backends": [{"id": 0, "name": "CPU", "device": "Test CPU", "device_type": 0},
                       {"id": 1, "name": "RPC0[10.0.0.2:50052]", "device": "10.0.0.2:50052", "device_type": 1},
                       {"id": 2, "name": "RPC0[10.0.0.2:50052]", "device": "10.0.0.2:50052", "device_type": 1}],
          "records": sorted(crec, key=lambda r: r["start_ns"]),
          "capture": capture("llama-cli", 100)}
    sv = {"profiler": "opscope", "version": 3,
          "backends": [{"id": 0, "name": "CPU", "device": "Server CPU", "device_type": 0}],
          "records": sorted(srec, key=lambda r: r["start_ns"]),
          "capture": capture("ggml-rpc-server", 200, time_ns=4026531834 if same_clock else 4026532000,
                             rto=1_700_000_000_000_000_000 - offset)}
    return cl, sv


def write(name, obj):
    p = os.path.join(WORK, name)
    with open(p, "w") as f:
        json.dump(obj, f)
    return p


def run(*args):
    return subprocess.run([OPSCOPE, *args], capture_output=True, text=True, timeout=120)


def calls_of(m):
    be = {b["id"]: b for b in m["backends"]}
    recs = sorted(m["records"], key=lambda r: r["start_ns"])
    out = []
    for i, r in enumerate(recs):
        if r["name"] == "GRAPH_SPLIT":
            end = next(x["start_ns"] + x["duration_ns"] for x in recs[i:] if x["name"] == "SYNCHRONIZE")
            out.append((r["start_ns"], end))
    return out, be


OFFSET = 3_600_000_000_000 + 123_456  # an hour and a bit
cl, sv = make_pair(OFFSET)
cp, sp = write("client.json", cl), write("server.json", sv)
out = os.path.join(WORK, "merged.json")
r = run("merge", cp, sp, "-o", out)
check(r.returncode == 0, f"merge exits 0 ({r.stderr.strip()})")
m = json.load(open(out))
procs = m["merge"]["processes"]
srv = procs[1]
check(srv["method"] == "estimated", "the offset is estimated")
check(srv["bound_lo_ns"] <= OFFSET <= srv["bound_hi_ns"],
      f"true offset {OFFSET} inside [{srv['bound_lo_ns']}, {srv['bound_hi_ns']}]")
check(srv["uncertainty_ns"] <= 100_000, f"uncertainty {srv['uncertainty_ns']} ns <= 100 us (latencies >= 15 us)")
check(abs(srv["offset_ns"] - OFFSET) <= srv["uncertainty_ns"] + 1, "the estimate is within its uncertainty")
check("+-" in r.stdout and "box/ggml-rpc-server" in r.stdout, "merge prints the alignment with its uncertainty")
calls, be = calls_of(m)
worst = 0
for x in m["records"]:
    if be[x["backend_id"]].get("process") == srv["label"] and x["type"] == 0:
        worst = max(worst, min(max(0, c0 - x["start_ns"]) + max(0, x["start_ns"] + x["duration_ns"] - c1)
                               for c0, c1 in calls))
check(worst == 0, f"every server op lies inside a client call ({worst} ns outside at most)")
check([b["id"] for b in m["backends"]] == [0, 1, 2, 3], f"backends renumbered ({[b['id'] for b in m['backends']]})")
check(m["backends"][3]["process"] == "box/ggml-rpc-server" and m["backends"][0]["process"] == "box/llama-cli",
      "backends carry host/program as their process")
gids = {x["graph_id"] for x in m["records"] if be[x["backend_id"]]["process"] == srv["label"] and "graph_id" in x}
check(min(gids) > 1000 + 39, f"server graph ids renumbered after the client's (from {min(gids)})")
check(m["capture"]["program"] == "llama-cli", "the merged profile keeps the client's capture metadata")
check(len(m["records"]) == len(cl["records"]) + len(sv["records"]), "every record is kept")
starts = [x["start_ns"] for x in m["records"]]
check(starts == sorted(starts), "records sorted by start")
rep = run("report", out)
check(rep.returncode == 0 and "RPC servers" in rep.stdout and "10.0.0.2:50052" in rep.stdout and
      "40/40" in rep.stdout, "report shows the per-server table (40 of 40 graphs inside calls)")
check("in box/ggml-rpc-server" in rep.stdout, "report lists backends with their process")

# same clock: no offset, whatever the data says
cl2, sv2 = make_pair(0, seed=2, same_clock=True)
r = run("merge", write("c2.json", cl2), write("s2.json", sv2), "-o", os.path.join(WORK, "m2.json"))
m2 = json.load(open(os.path.join(WORK, "m2.json")))
check(r.returncode == 0 and m2["merge"]["processes"][1]["method"] == "same clock" and
      m2["merge"]["processes"][1]["offset_ns"] == 0, "same boot and time namespace: no offset")

# --offset and --label
r = run("merge", cp, sp, "-o", os.path.join(WORK, "m3.json"), "--label", f"gpu1={sp}", "--offset", "gpu1=-5")
m3 = json.load(open(os.path.join(WORK, "m3.json")))
p3 = m3["merge"]["processes"][1]
check(r.returncode == 0 and p3["label"] == "gpu1" and p3["method"] == "given" and p3["offset_ns"] == -5,
      "--label names the process, --offset LABEL=NS is applied")
first = min(x["start_ns"] for x in sv["records"])
check(min(x["start_ns"] for x in m3["records"] if m3["backends"][-1]["id"] == x["backend_id"]) == first + 5,
      "a given offset shifts the server's records by exactly it")

# a server that matches nothing: exit 2, nothing written, advice to use --offset
sv_bad = dict(sv)
sv_bad["records"] = [x for x in sv["records"] if x["type"] == 1 and False]
bad_out = os.path.join(WORK, "bad.json")
r = run("merge", cp, write("s_empty.json", sv_bad), "-o", bad_out)
check(r.returncode == 2 and "--offset" in r.stderr and not os.path.exists(bad_out),
      f"an unalignable server: exit 2, --offset suggested, no file ({r.returncode}: {r.stderr.strip()[:120]})")

# A server profile that does not match the client is refused (exit 2, nothing written), saying
# why; the reasons are computed here from the profiles as built (docs/cli.md, "opscope merge").
def server_part(sv, tokens, capture=None):
    """SV with the records of the given tokens only (graph g is token g's compute and get)."""
    part = dict(sv)
    gets = [x for x in sv["records"] if x["type"] == 1]
    part["records"] = [x for x in sv["records"] if x.get("graph_id") in tokens] + \
                      [gets[k] for k in sorted(tokens)]
    part["records"].sort(key=lambda r: r["start_ns"])
    part["capture"] = dict(sv["capture"], program="llama-simple") if capture is None else capture
    return part


def refused(name, server, why, client=cp):
    out_path = os.path.join(WORK, name + ".merged.json")
    path = server if os.path.exists(str(server)) else write(name + ".json", server)
    r = run("merge", client, path, "-o", out_path)
    ok = r.returncode == 2 and "does not match the client" in r.stderr and "not merged" in r.stderr and \
        all(w in r.stderr for w in why) and "--offset" in r.stderr and not os.path.exists(out_path)
    check(ok, f"{name}: refused, exit 2, nothing written, saying {why} ({r.returncode}: {r.stderr.strip()[-400:]!r})")
    return r


n_req = 2 * 40  # the client's requests to its endpoint: per token a graph compute and an async get
whole = dict(sv["capture"], start_ns=0, end={"how": "exit", "at_ns": 10**18})  # a run around everything
# an unrelated profile with two requests' records: the offset they fit held before
r = refused("two_matched", server_part(sv, {10, 11}, whole), [f" of the client's {n_req} RPC requests to 10.0.0.2:50052 matched"])
m = re.search(r"  (\d+) of the client's", r.stderr)
check(m and int(m.group(1)) <= 4, f"at most the 4 requests of its 2 tokens matched ({m.group(1) if m else None})")
# the floor, half of the requests: 19 tokens (38 requests) refused, 20 (40) merged
refused("half_less", server_part(sv, set(range(19)), whole), [f"38 of the client's {n_req} RPC requests"])
r = run("merge", cp, write("half.json", server_part(sv, set(range(20)), whole)), "-o", os.path.join(WORK, "half.merged.json"))
check(r.returncode == 0 and "from 40 matched requests" in r.stdout, f"half of the requests matched: merged ({r.stderr.strip()[-200:]!r})")
# the floor, 4 pairs: a client of 2 tokens (4 requests) merges, one of 1 token (2) does not
cl2t, sv2t = make_pair(OFFSET, n_tokens=2, seed=5)
r = run("merge", write("c2t.json", cl2t), write("s2t.json", sv2t), "-o", os.path.join(WORK, "m2t.json"))
check(r.returncode == 0 and "from 4 matched requests" in r.stdout, f"4 requests, all matched: merged ({r.stderr.strip()[-200:]!r})")
cl1t, sv1t = make_pair(OFFSET, n_tokens=1, seed=5)
refused("one_token", sv1t, ["2 of the client's 2 RPC requests", "at least 4 and half"], client=write("c1t.json", cl1t))

# the offset beyond what the runs allow: a server whose records end with token 29 (no capture
# end) cannot have answered the 10 tokens after it; those more than 5 ms after its last record
part = server_part(sv, set(range(30)), dict(sv["capture"]))
del part["capture"]["start_ns"]
last_end = max(x["start_ns"] + x["duration_ns"] for x in part["records"]) - OFFSET  # on the client's clock
calls = sorted([x for x in cl["records"] if x["backend_id"] == 2 and x["name"] in ("GRAPH_SPLIT", "copy_D2H")],
               key=lambda x: x["start_ns"])
late = sum(1 for x in calls if x["start_ns"] > last_end + 5_000_000)
check(late > 0, f"{late} client requests start more than 5 ms after the server's last record")
r = refused("ended_early", part, [f"{late} of the client's {n_req} requests to 10.0.0.2:50052 fall outside", "not running"])
# the same server's profile cut short at its 500th record: said as report says it, and refused
text = json.dumps(dict(part, capture=None))
cut_at = text.index('"start_ns"', [m for m in range(len(text)) if text.startswith('{"type"', m)][500])
cut = os.path.join(WORK, "cut_short.json")
open(cut, "w").write(text[:cut_at])
r = refused("cut_short", cut, ["is cut short at byte", "fall outside"])
check("opscope: warning: " + cut + " is cut short at byte" in r.stderr, "the cut-short warning of report, once")
# no server records: a profile whose records have no graph id and no tensor_get
noserv = dict(sv, records=[dict(x, extra="tensor_set") if x["type"] == 1 else {k: v for k, v in x.items() if k != "graph_id"}
                           for x in sv["records"]])
refused("no_server_records", noserv, ["holds no RPC server records", "its capture says it ran ggml-rpc-server"])
# the same clock but another run: every request lies an hour before the server's records
later = dict(sv2, records=[dict(x, start_ns=x["start_ns"] + 3_600_000_000_000) for x in sv2["records"]])
later["capture"] = dict(sv2["capture"], start_ns=later["records"][0]["start_ns"])
refused("same_clock_later", later, ["same clock", "80 of the client's 80 requests to 10.0.0.2:50052 fall outside"], client=write("c2b.json", cl2))
# the wall clocks: 5 s from the records' offset refused, 0.5 s (clocks that far apart) merged
for shift, ok in ((5 * 10**9, False), (5 * 10**8, True)):
    off_wall = dict(sv, capture=dict(sv["capture"], realtime_offset_ns=sv["capture"]["realtime_offset_ns"] - shift))
    if ok:
        r = run("merge", cp, write("wall_ok.json", off_wall), "-o", os.path.join(WORK, "wall_ok.merged.json"))
        check(r.returncode == 0, f"wall clocks 0.5 s from the records' offset: merged ({r.stderr.strip()[-200:]!r})")
    else:
        refused("wall_5s", off_wall, [f"the wall clocks put its clock {(OFFSET + shift) / 1e9:+.6f} s from the client's",
                                      "another run"])
# a server in its own time namespace 1000 s ahead (as tests/capture_e2e runs it): merged
clns, svns = make_pair(1000 * 10**9, seed=3)
r = run("merge", write("cns.json", clns), write("sns.json", svns), "-o", os.path.join(WORK, "mns.json"))
check(r.returncode == 0 and "from 80 matched requests" in r.stdout, f"a server 1000 s ahead: merged ({r.stdout.strip()[:200]!r})")

# Real profiles (tests/capture_e2e's rpc runs, one model over loopback, each server 1000 s ahead
# in its own time namespace): the true pair merges; clients of other runs of the same model
# match most requests by chance (same model, same graphs) and are refused by the wall clocks,
# whose offset (capture.realtime_offset_ns, exact here: one machine) is worked out here.
DATA = os.path.join(os.path.dirname(os.path.abspath(__file__)), "data")
real_sv = os.path.join(DATA, "rpc-one-server.json.gz")


def rto(path):
    return json.load(gzip.open(path))["capture"]["realtime_offset_ns"]


r = run("merge", os.path.join(DATA, "rpc-one-client.json.gz"), real_sv, "-o", os.path.join(WORK, "real.json"))
real = json.load(open(os.path.join(WORK, "real.json")))["merge"]["processes"][1] if r.returncode == 0 else {}
check(r.returncode == 0 and abs(real["offset_ns"] - 1000 * 10**9) < 200_000 and real["matched"] == 32,
      f"the real pair merges at +1000 s ({real.get('offset_ns')}, {real.get('matched')} matched; {r.stderr.strip()[-200:]!r})")
for other in ("rpc-vulkan-client.json.gz", "rpc-sequence-client0.json.gz"):
    c = os.path.join(DATA, other)
    wall = rto(c) - rto(real_sv)
    r = refused("real_" + other.split(".")[0], real_sv, [f"the wall clocks put its clock {wall / 1e9:+.6f} s from the client's"],
                client=c)
    m = re.search(r"s from the client's, ([0-9.]+) s from the offset", r.stderr)
    check(m and float(m.group(1)) > 1.0, f"{other}: its records fit {m.group(1) if m else '?'} s from the wall clocks' offset")

# usage and input errors
check(run("merge", "--help").returncode == 0 and "--offset LABEL=NS" in run("merge", "--help").stdout, "--help")
check(run("merge", cp).returncode == 1, "one input: usage error")
check(run("merge", cp, sp).returncode == 1, "no -o: usage error")
check(run("merge", cp, sp, "-o", bad_out, "--offset", "x=1").returncode == 1, "--offset for no server: usage error")
check(run("merge", cp, sp, "-o", bad_out, "--offset", "server=abc").returncode == 1, "--offset NS not a number")
check(run("merge", cp, sp, "-o", bad_out, "--label", "x=nope.json").returncode == 1, "--label of no input")
broken = os.path.join(WORK, "broken.json")
open(broken, "w").write('{"records":[{"type":0,}]}')
r = run("merge", cp, broken, "-o", bad_out)
check(r.returncode == 2 and "broken.json:1:" in r.stderr and not os.path.exists(bad_out),
      f"bad input: exit 2 with FILE:LINE:COL, nothing written ({r.stderr.strip()[:120]})")

print(f"{'FAILED' if failures else 'passed'}: {len(failures)} failed checks")
sys.exit(1 if failures else 0)
