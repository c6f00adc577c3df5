#!/usr/bin/env python3
"""llama_requests.py OPSCOPE WORKDIR - a llama-server run's requests: a hand-written
profile whose capture.run.decodes are llama_decode calls of three slots (prompts in one call
and over two, a call of several micro-batches, a call that failed, a graph the profile lacks,
a slot reused by a new request) through `opscope report`: summary.decodes and summary.requests
against the documented rules (docs/metrics.md, "Requests") computed here, the console's table,
capture.run.decodes kept by --json, and malformed decodes as bad input (exit 2, a position).
Warm-ups: a second profile whose calls are llama.cpp's start-up pattern (a 2-token prompt-only
call, then the next call marked wiped) with look-alikes that must stay requests (a prompt-only
request followed by an unmarked call, one whose wipe is another context's, one that generated
before its wipe) and a prompt-only request of another slot right before a wipe (a warm-up by
the rule): exactly those two in warmup_requests, the console and --text say them in one
Warm-up line, and the Chrome export puts them on the warm-up thread."""
import json
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from checks import check, done, run  # noqa: E402

opscope, work = sys.argv[1], sys.argv[2]
os.makedirs(work, exist_ok=True)


def matmul(gid, start, dur, rows):
    return {"type": 0, "name": "MUL_MAT", "backend_id": 0, "split_id": 0, "graph_id": gid,
            "start_ns": start, "duration_ns": dur, "bytes": 4 * 64 * rows, "n_src": 2,
            "ne_src": [[64, 64, 1, 1], [64, rows, 1, 1]], "type_src": [0, 0], "ne": [64, rows, 1, 1], "out_type": 0}


def add(gid, start, dur):
    return {"type": 0, "name": "ADD", "backend_id": 0, "split_id": 0, "graph_id": gid,
            "start_ns": start, "duration_ns": dur, "bytes": 256, "n_src": 2,
            "ne_src": [[64, 1, 1, 1], [64, 1, 1, 1]], "type_src": [0, 0], "ne": [64, 1, 1, 1], "out_type": 0}


def seq(s, req, tokens, prompt, outputs):
    return {"seq": s, "request": req, "tokens": tokens, "prompt": prompt, "outputs": outputs}


# graphs: id -> (start, MUL_MAT ns, ADD ns, rows)
graphs = {0: (1000, 300, 100, 10), 1: (2100, 80, 20, 2), 2: (3100, 200, 50, 3), 3: (3400, 150, 50, 2),
          4: (5100, 70, 30, 2), 5: (6100, 60, 20, 2), 6: (7100, 90, 10, 2)}
recs = []
for g, (t, mm, ad, rows) in graphs.items():
    recs += [matmul(g, t, mm, rows), add(g, t + mm, ad)]
decodes = [
    # slots 0 and 1 prompt together: 6 + 4 tokens, one output each
    {"start_ns": 900, "end_ns": 1500, "graph": 0, "graphs": 1, "tokens": 10, "outputs": 2, "context": 0, "ret": 0,
     "seqs": [seq(0, 0, 6, 6, 1), seq(1, 1, 4, 4, 1)]},
    # both generate one token
    {"start_ns": 2000, "end_ns": 2300, "graph": 1, "graphs": 1, "tokens": 2, "outputs": 2, "context": 0, "ret": 0,
     "seqs": [seq(0, 0, 1, 0, 1), seq(1, 1, 1, 0, 1)]},
    # slot 0 generates; slot 2's prompt starts (4 tokens, no output yet): two micro-batches
    {"start_ns": 3000, "end_ns": 3700, "graph": 2, "graphs": 2, "tokens": 5, "outputs": 1, "context": 0, "ret": 0,
     "seqs": [seq(0, 0, 1, 0, 1), seq(2, 2, 4, 4, 0)]},
    # a call that failed (no room): counted, no request moves
    {"start_ns": 4000, "end_ns": 4100, "graph": 4, "graphs": 0, "tokens": 3, "outputs": 3, "context": 0, "ret": 1,
     "seqs": []},
    # slot 2's prompt ends (1 token, its output); slot 1 generates
    {"start_ns": 5000, "end_ns": 5300, "graph": 4, "graphs": 1, "tokens": 2, "outputs": 2, "context": 0, "ret": 0,
     "seqs": [seq(2, 2, 1, 1, 1), seq(1, 1, 1, 0, 1)]},
    # slot 2 generates; slot 0 starts a new request of one token
    {"start_ns": 6000, "end_ns": 6250, "graph": 5, "graphs": 1, "tokens": 2, "outputs": 2, "context": 0, "ret": 0,
     "seqs": [seq(2, 2, 1, 0, 1), seq(0, 3, 1, 1, 1)]},
    # slot 0 generates; its call computed graph 6 and graph 7, which the profile lacks
    {"start_ns": 7000, "end_ns": 7300, "graph": 6, "graphs": 2, "tokens": 2, "outputs": 1, "context": 0, "ret": 0,
     "seqs": [seq(0, 3, 2, 0, 1)]},
]
capture = {"program": "llama-server", "argv": ["llama-server", "-m", "/m/a.gguf", "--parallel", "3"],
           "decodes": decodes}
prof = {"profiler": "opscope", "version": 3, "backends": [{"id": 0, "name": "CPU", "device": "cpu", "device_type": 0}],
        "records": recs, "capture": capture}
src = os.path.join(work, "server.json")
json.dump(prof, open(src, "w"))


def expected():
    """The documented rules, computed here."""
    tot = {"calls": len(decodes), "failed": 0, "tokens": 0, "outputs": 0, "graphs": 0, "missing_graphs": 0,
           "graph_tokens": 0, "mismatched": 0, "lost": 0, "warmups": 0}  # no call is marked wiped
    reqs = {}
    for d in decodes:
        ids = range(d["graph"], d["graph"] + d["graphs"])
        have = [g for g in ids if g in graphs]
        rows = sum(graphs[g][3] for g in have)
        op = sum(graphs[g][1] + graphs[g][2] for g in have)
        tot["graphs"] += len(have)
        tot["missing_graphs"] += len(ids) - len(have)
        tot["graph_tokens"] += rows
        if d["ret"]:
            tot["failed"] += 1
            continue
        tot["tokens"] += d["tokens"]
        tot["outputs"] += d["outputs"]
        tot["mismatched"] += rows != d["tokens"]
        part_tokens = sum(q["tokens"] for q in d["seqs"])
        for q in d["seqs"]:
            r = reqs.setdefault(q["request"], {"request": q["request"], "context": d["context"], "seq": q["seq"],
                                               "n_prompt": 0, "n_gen": 0, "n_outputs": 0, "decodes": 0, "graphs": 0,
                                               "op_ns": 0, "start_ns": d["start_ns"], "first_output_ns": 0,
                                               "end_ns": 0})
            r["decodes"] += 1
            r["graphs"] += len(have)
            r["op_ns"] += int(op * q["tokens"] / part_tokens + 0.5)
            r["n_prompt"] += q["prompt"]
            r["n_gen"] += q["tokens"] - q["prompt"]
            if not r["n_outputs"] and q["outputs"]:
                r["first_output_ns"] = d["end_ns"]
            r["n_outputs"] += q["outputs"]
            r["end_ns"] = max(r["end_ns"], d["end_ns"])
    out = []
    for k in sorted(reqs):
        r = reqs[k]
        r["prompt_ts"] = r["n_prompt"] * 1e9 / (r["first_output_ns"] - r["start_ns"])
        r["gen_ts"] = r["n_gen"] * 1e9 / (r["end_ns"] - r["first_output_ns"]) if r["n_gen"] else 0
        out.append(r)
    return tot, out


out = os.path.join(work, "server.out.json")
p = run([opscope, "report", src, "--json", out])
text = p.stdout.decode()
check(p.returncode == 0, "report exits 0 (%s)" % p.stderr.decode().strip())
doc = json.load(open(out))
check(doc["capture"] == capture, "report --json keeps capture.decodes as read")
want_tot, want = expected()
got_tot = doc["summary"].get("decodes")
check(got_tot == want_tot, "summary.decodes: %r == %r" % (got_tot, want_tot))
got = doc["summary"].get("requests", [])
ints = [k for k in want[0] if not k.endswith("_ts")]
check([{k: r[k] for k in ints} for r in got] == [{k: w[k] for k in ints} for w in want],
      "summary.requests: %r == %r" % ([{k: r[k] for k in ints} for r in got], [{k: w[k] for k in ints} for w in want]))
check(len(got) == len(want) and all(abs(r[k] - w[k]) <= 1e-9 * max(1, w[k]) for r, w in zip(got, want)
                                    for k in ("prompt_ts", "gen_ts")),
      "tokens/s: %r == %r" % ([(r["prompt_ts"], r["gen_ts"]) for r in got], [(w["prompt_ts"], w["gen_ts"]) for w in want]))
# the console: the totals line and one row per request
check(" Batches:       7 calls (1 returned an error), %d tokens, %d outputs; their %d graphs computed %d rows"
      % (want_tot["tokens"], want_tot["outputs"], want_tot["graphs"], want_tot["graph_tokens"]) in text,
      "the console's Batches line")
check("computed other than their tokens' rows" not in text and
      "(1 graphs computed inside the calls are not in the profile)" in text, "the console says the missing graph")
lines = text.splitlines()
at = [i for i, l in enumerate(lines) if l.startswith(" request  ctx")]
rows = []
for l in lines[at[0] + 1:] if at else []:
    if not l.split() or not l.split()[0].isdigit():
        break
    rows.append(l.split())
check([r[:8] for r in rows] == [[str(w[k]) for k in ("request", "context", "seq", "n_prompt", "n_gen", "n_outputs",
                                                       "decodes", "graphs")] for w in want],
      "the console's Requests rows: %r" % rows)
# a profile without decodes has no Requests section
plain = os.path.join(work, "plain.json")
json.dump(dict(prof, capture={"program": "x"}), open(plain, "w"))
p = run([opscope, "report", plain])
check(p.returncode == 0 and b"--- Requests" not in p.stdout, "no decodes, no Requests section")

# diff --by request: NEW is BASE on a clock running at half speed (every time doubled): every
# request pairs with itself (same prompt and sampled tokens) and its tokens/s halve
new = dict(prof, records=[dict(r, start_ns=2 * r["start_ns"], duration_ns=2 * r["duration_ns"]) for r in recs],
           capture=dict(capture, decodes=[dict(d, start_ns=2 * d["start_ns"], end_ns=2 * d["end_ns"]) for d in decodes]))
new_src = os.path.join(work, "server_new.json")
json.dump(new, open(new_src, "w"))
dj = os.path.join(work, "diff.json")
p = run([opscope, "diff", src, new_src, "--by", "request", "--json", dj, "-q"])
check(p.returncode == 0, "diff --by request exits 0 (%s)" % p.stderr.decode().strip())
rows = json.load(open(dj)).get("requests", []) if p.returncode == 0 else []
check([(r["n_prompt"], r["n_outputs"], r["base"]["request"], r["new"]["request"]) for r in rows] ==
      [(w["n_prompt"], w["n_outputs"], w["request"], w["request"]) for w in want],
      "diff requests paired by prompt and sampled tokens: %r" % [(r["n_prompt"], r["n_outputs"]) for r in rows])
check(all(abs(r["new"]["gen_ts"] - w["gen_ts"] / 2) <= 1e-6 * w["gen_ts"] and abs(r["gen_ts_change"] + 0.5) < 1e-9 and
          abs(r["prompt_ts_change"] + 0.5) < 1e-9 for r, w in zip(rows, want)),
      "NEW tokens/s are half of BASE's: %r" % [(r["base"]["gen_ts"], r["new"]["gen_ts"]) for r in rows])
p = run([opscope, "diff", src, new_src, "--by", "request"])
out = p.stdout.decode()
check(p.returncode == 0 and "--- Requests" in out and out.count("-50.0%") == len(want) and "Delta%" not in out,
      "diff --by request prints the requests alone, -50.0%% each")
p = run([opscope, "diff", src, plain, "--by", "request"])
check(p.returncode == 2 and b"no llama requests" in p.stderr, "diff --by request without requests: exit %d" % p.returncode)

# malformed decodes: exit 2 with a position, nothing written
for name, bad in (("not_array", {"decodes": {"start_ns": 1}}),
                  ("seq_tokens_negative", {"decodes": [dict(decodes[0], seqs=[seq(0, 0, -1, 0, 0)])]}),
                  ("ends_before_start", {"decodes": [dict(decodes[0], start_ns=2000, end_ns=1000)]}),
                  ("tokens_not_int", {"decodes": [dict(decodes[0], tokens="10")]}),
                  ("too_many_seqs", {"decodes": [dict(decodes[0], seqs=[seq(i, i, 1, 1, 1) for i in range(257)])]})):
    b = dict(prof, capture=dict(capture, **bad))
    path = os.path.join(work, "bad_%s.json" % name)
    json.dump(b, open(path, "w"))
    o = os.path.join(work, "bad_%s.out.json" % name)
    p = run([opscope, "report", path, "--json", o, "-q"])
    err = p.stderr.decode()
    check(p.returncode == 2 and ":1:" in err and not os.path.exists(o), "%s: exit %d, %r" % (name, p.returncode, err.strip()))
# warm-ups: context 0's request 0 (2 tokens, prompt only) then a wiped call: a warm-up;
# request 1 generated before the wipe at 6000, request 2 (prompt only) is followed by an
# unmarked call, request 3 (prompt only, context 1) by context 0's wipe only: requests;
# request 4 (prompt only, slot 1) is right before context 0's wipe: a warm-up by the rule
wd = [
    {"start_ns": 900, "end_ns": 1500, "graph": 0, "graphs": 1, "tokens": 2, "outputs": 1, "context": 0, "ret": 0,
     "seqs": [seq(0, 0, 2, 2, 1)]},
    {"start_ns": 2000, "end_ns": 2300, "graph": 1, "graphs": 1, "tokens": 2, "outputs": 1, "context": 0, "ret": 0,
     "wiped": 1, "seqs": [seq(0, 1, 2, 2, 1)]},
    {"start_ns": 3000, "end_ns": 3700, "graph": 2, "graphs": 2, "tokens": 5, "outputs": 1, "context": 0, "ret": 0,
     "seqs": [seq(0, 1, 1, 0, 1), seq(1, 2, 4, 4, 1)]},
    {"start_ns": 4000, "end_ns": 4100, "graph": 4, "graphs": 0, "tokens": 3, "outputs": 1, "context": 1, "ret": 0,
     "seqs": [seq(0, 3, 3, 3, 1)]},
    {"start_ns": 5000, "end_ns": 5300, "graph": 4, "graphs": 1, "tokens": 2, "outputs": 2, "context": 0, "ret": 0,
     "seqs": [seq(0, 1, 1, 0, 1), seq(1, 4, 1, 1, 1)]},
    {"start_ns": 6000, "end_ns": 6250, "graph": 5, "graphs": 1, "tokens": 1, "outputs": 1, "context": 0, "ret": 0,
     "wiped": 1, "seqs": [seq(0, 5, 1, 1, 1)]},
    {"start_ns": 7000, "end_ns": 7300, "graph": 6, "graphs": 1, "tokens": 1, "outputs": 1, "context": 1, "ret": 0,
     "seqs": [seq(0, 6, 1, 1, 1)]},
]
wprof = dict(prof, capture=dict(capture, decodes=wd))
wsrc = os.path.join(work, "warm.json")
json.dump(wprof, open(wsrc, "w"))
wout, wtext, wchrome = (os.path.join(work, "warm." + e) for e in ("out.json", "txt", "chrome.json"))
p = run([opscope, "report", wsrc, "--json", wout, "--text", wtext, "--chrome-trace", wchrome])
check(p.returncode == 0, "warm-ups: report exits 0 (%s)" % p.stderr.decode().strip()[-200:])
ws = json.load(open(wout))["summary"] if p.returncode == 0 else {}
reqs_got = [r["request"] for r in ws.get("requests", [])]
warm_got = [(r["request"], r.get("warmup")) for r in ws.get("warmup_requests", [])]
# requests 5 and 6 generated nothing but no call of their context follows them
check(reqs_got == [1, 2, 3, 5, 6] and warm_got == [(0, True), (4, True)] and ws.get("decodes", {}).get("warmups") == 2,
      "warm-ups: requests %r, warmup_requests %r (want [1, 2, 3, 5, 6] and 0, 4)" % (reqs_got, warm_got))
con = p.stdout.decode()
txt = open(wtext).read() if p.returncode == 0 else ""
for who, t in (("console", con), ("--text", txt)):
    rows = []
    for l in t.split(" request  ctx")[-1].splitlines()[1:]:
        if not l.strip() or not l.split()[0].isdigit():
            break
        rows.append(l.split()[0])
    check(" Warm-up:       2 requests before serving (3 tokens," in t and rows == ["1", "2", "3", "5", "6"],
          "warm-ups: the %s says them in one line and lists the 5 requests (%r)" % (who, rows))
ev = json.load(open(wchrome))["traceEvents"] if p.returncode == 0 else []
sl = {(e["cat"], e["args"]["request"], e["tid"]) for e in ev if e.get("cat") in ("request", "warmup")}
check({(c, r) for c, r, _ in sl} == {("warmup", 0), ("warmup", 4)} | {("request", r) for r in (1, 2, 3, 5, 6)} and
      {t for c, _, t in sl if c == "warmup"} == {1} and all(t > 1 for c, _, t in sl if c == "request"),
      "warm-ups: the Chrome export's slices, warm-ups on thread 1: %r" % sorted(sl))
sys.exit(done("llama requests"))
