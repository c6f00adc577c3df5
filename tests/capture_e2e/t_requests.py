#!/usr/bin/env python3
"""llama-server's requests from its own llama_decode batches: 4 clients at once, each
with its own prompt length and n_predict, on 4 slots, under the capture library.

Checks, against what llama-server itself returns for each request (`timings.prompt_n`,
`timings.predicted_n`, `id_slot`) and against nodecount.c's graphs (an independent shim):
- capture.decodes: every llama_decode call; the sum of their tokens equals the tokens of the
  graphs nodecount saw computed, and each call's graphs (by id) hold exactly its tokens' rows;
- per slot, the request's prompt tokens equal prompt_n and its sampled tokens (outputs) equal
  predicted_n; its generated tokens (decoded after the first output) are predicted_n - 1;
- `opscope report --json`: summary.decodes and summary.requests[] say the same, and the
  console's Requests table has one row per request;
- llama.cpp's warm-ups (the empty runs before serving: common_init_from_params' and the
  server's own, each followed by a wipe of the memory) are apart: summary.requests has exactly
  the 4 client requests, summary.warmup_requests the rest of the capture's numbered requests,
  each of which generated nothing;
- `--chrome-trace`: one "request" slice per client request and one "warmup" slice per warm-up,
  with the request's id, seq, n_prompt and n_gen in args and its start and end to the ns equal
  to its first call's start and last call's end, computed here from capture.decodes;
- `--text`: the same Requests table, one row per client request.
With --kill the server is killed with SIGKILL 2 s after the answers (checkpoints every 200 ms):
the record log it leaves has the same requests (DECODES chunks), read by `opscope report`.
usage (inside the root): t_requests.py [--kill]
"""
import json
import signal
import subprocess
import sys

import e2e

e2e.need_preload()
m = e2e.model("tiny-dense-f32")
kill = "--kill" in sys.argv
d = e2e.outdir("requests-kill" if kill else "requests")
nc = e2e.nodecount_lib(d)
prof = f"{d}/profile.json"
env = e2e.env_for([nc, e2e.PRELOAD], profile=prof, counts=f"{d}/counts.txt",
                  extra={"OPSCOPE_CHECKPOINT_MS": "200"} if kill else None)

# Prompt lengths and generation lengths that differ per client (the tiny model's byte-level
# vocabulary: a few tokens per word).
def body(i):
    return {"prompt": f"Client {i} asks: " + "why not " * (2 + 5 * i), "n_predict": 7 + 6 * i, "temperature": 0,
            "seed": i, "cache_prompt": False, "ignore_eos": True}


status = {}
answers = e2e.server_completions(
    lambda port: ["llama-server", "-m", m, "--parallel", "4", "-c", "4096", "-t", "2", "--host", "127.0.0.1",
                  "--port", str(port), "--threads-http", "4", "--no-webui"],
    env, f"{d}/server.log", (range(4),), None, body_for=body, status=status, stop_timeout=30,
    stop_signal=signal.SIGKILL if kill else signal.SIGTERM, stop_after=2 if kill else 0)
if not e2e.check(status["healthy"], "llama-server becomes healthy"):
    e2e.finish()
ok = {i: r for i, r in answers.items() if "content" in r}
e2e.check(len(ok) == 4, f"4 concurrent clients answered ({len(ok)})")
by_slot = {r["id_slot"]: r for r in ok.values()}
e2e.check(len(by_slot) == 4, f"the requests ran on 4 different slots ({sorted(by_slot)})")
e2e.check(len({r["timings"]["prompt_n"] for r in ok.values()}) == 4 and
          len({r["timings"]["predicted_n"] for r in ok.values()}) == 4,
          "the 4 requests differ in prompt and generated tokens (" +
          ", ".join(f"slot {s}: {r['timings']['prompt_n']}+{r['timings']['predicted_n']}"
                    for s, r in sorted(by_slot.items())) + ")")

if kill:
    e2e.check(e2e.is_record_log(prof), "SIGKILL leaves the record log")
p = e2e.load_checked(prof, "read" if kill else "written on SIGTERM and valid JSON")
run = p.get("capture", {})
decodes = run.get("decodes", [])
if not e2e.check(bool(decodes), f"capture.decodes lists llama_decode calls ({len(decodes)})"):
    e2e.finish()
counts = e2e.read_counts(f"{d}/counts.txt")
nc_tokens = sum(c[3] for c in counts)
dec_tokens = sum(x["tokens"] for x in decodes if x["ret"] == 0)
e2e.check(dec_tokens == nc_tokens,
          f"the calls' tokens ({dec_tokens}) equal the tokens of the graphs nodecount saw ({nc_tokens}, {len(counts)} graphs)")

# Each call's graphs by id: the first layer's RMS_NORM rows are the tokens a graph evaluated.
rows = e2e.tokens_per_graph(p)
bad = [x for x in decodes if x["ret"] == 0 and
       sum(rows.get(g, 0) for g in range(x["graph"], x["graph"] + x["graphs"])) != x["tokens"]]
e2e.check(not bad, f"every call's graphs (by id) evaluated its tokens ({len(decodes)} calls; {bad[:2]})")
seen = {g for x in decodes for g in range(x["graph"], x["graph"] + x["graphs"])}
e2e.check(seen == set(rows), f"every graph of the profile is inside one call ({len(seen)} of {len(rows)})")

# Requests, summed from the calls' parts here (the capture numbered them).
reqs = {}
for x in decodes:
    for q in x["seqs"]:
        r = reqs.setdefault(q["request"], {"seq": q["seq"], "prompt": 0, "tokens": 0, "outputs": 0})
        r["prompt"] += q["prompt"]
        r["tokens"] += q["tokens"]
        r["outputs"] += q["outputs"]
e2e.note("requests: " + json.dumps(reqs))
for slot, a in sorted(by_slot.items()):
    t = a["timings"]
    mine = [r for r in reqs.values() if r["seq"] == slot]
    last = mine[-1] if mine else {"prompt": -1, "tokens": -1, "outputs": -1}
    e2e.check(last["prompt"] == t["prompt_n"] and last["outputs"] == t["predicted_n"] and
              last["tokens"] - last["prompt"] == t["predicted_n"] - 1,
              f"slot {slot}: prompt {last['prompt']} (server's prompt_n {t['prompt_n']}), sampled {last['outputs']} "
              f"(predicted_n {t['predicted_n']}), generated {last['tokens'] - last['prompt']} (predicted_n - 1)")

summ = e2e.report_summary(prof, "opscope report --json")
if summ is not None:
    sd = summ.get("decodes", {})
    e2e.check(sd.get("tokens") == nc_tokens and sd.get("graph_tokens") == nc_tokens and sd.get("mismatched") == 0,
              f"summary.decodes: {sd.get('tokens')} tokens, {sd.get('graph_tokens')} graph rows, "
              f"{sd.get('mismatched')} mismatched (nodecount: {nc_tokens})")
    sr = summ.get("requests", [])
    for slot, a in sorted(by_slot.items()):
        t = a["timings"]
        mine = [r for r in sr if r["seq"] == slot]
        r = mine[-1] if mine else {}
        e2e.check(r.get("n_prompt") == t["prompt_n"] and r.get("n_outputs") == t["predicted_n"] and
                  r.get("n_gen") == t["predicted_n"] - 1 and r.get("graphs", 0) > 0 and r.get("op_ns", 0) > 0,
                  f"summary.requests, slot {slot}: n_prompt {r.get('n_prompt')}, n_outputs {r.get('n_outputs')}, "
                  f"n_gen {r.get('n_gen')}, graphs {r.get('graphs')}")
        # the server times generation from its first sampled token to its last; opscope from
        # the end of the call that gave the first output to the end of the last call: the
        # spans agree within 5% or 5 ms (a slot of 13 tokens at 400 tokens/s spans 30 ms, where
        # one scheduler slice between a call's end and the server's sampling is 7%); prompt
        # tokens/s within 5%
        pps, gts = t.get("predicted_per_second", 0), r.get("gen_ts", 0)
        prs, pts = t.get("prompt_per_second", 0), r.get("prompt_ts", 0)
        span_srv = t.get("predicted_ms", 0)
        span_ours = 1000.0 * r.get("n_gen", 0) / gts if gts > 0 else 0
        e2e.check(span_srv > 0 and abs(span_ours - span_srv) <= max(0.05 * span_srv, 5.0) and prs > 0 and
                  abs(pts - prs) <= 0.05 * prs,
                  f"slot {slot}: generation {gts:.3f} tokens/s over {span_ours:.2f} ms, the server's "
                  f"predicted_per_second {pps:.3f} over {span_srv:.2f} ms "
                  f"(prompt {r.get('prompt_ts', 0):.2f} tokens/s, the server's prompt_per_second "
                  f"{t.get('prompt_per_second', 0):.2f})")
    warm = summ.get("warmup_requests", [])
    numbered = {q["request"] for x in decodes for q in x["seqs"]}
    e2e.check(len(sr) == len(ok) and len(warm) >= 1 and len(sr) + len(warm) == len(numbered) and
              all(w.get("n_gen") == 0 and w.get("warmup") is True for w in warm) and
              summ.get("decodes", {}).get("warmups") == len(warm),
              f"summary.requests has the {len(ok)} client requests ({len(sr)}), warmup_requests the "
              f"{len(numbered) - len(ok)} others the capture numbered ({len(warm)}: "
              + ", ".join(f"request {w.get('request')}: {w.get('n_prompt')} prompt tokens, {w.get('n_gen')} generated"
                          for w in warm) + ")")
    e2e.check(any(x.get("wiped") == 1 for x in decodes),
              f"capture.decodes marks the calls after a wipe ({sum(x.get('wiped', 0) for x in decodes)})")
    # each request's span from the calls, computed here: first call's start, last call's end
    span = {}
    for x in decodes:
        if x["ret"] != 0:
            continue
        for q in x["seqs"]:
            s = span.setdefault(q["request"], [x["start_ns"], x["end_ns"], q["seq"], 0, 0])
            s[1] = max(s[1], x["end_ns"])
            s[3] += q["prompt"]
            s[4] += q["tokens"] - q["prompt"]
    chrome = f"{d}/chrome.json"
    cr = subprocess.run([e2e.OPSCOPE, "report", prof, "--chrome-trace", chrome], capture_output=True, text=True)
    ev = json.load(open(chrome))["traceEvents"] if cr.returncode == 0 else []

    def ns(us):  # the export's microseconds, 3 decimals: back to exact ns
        return int(round(float(us) * 1000))

    for cat, want in (("request", sr), ("warmup", warm)):
        sl = sorted((e for e in ev if e.get("ph") == "X" and e.get("cat") == cat), key=lambda e: e["args"]["request"])
        got = [(e["args"]["request"], e["args"]["seq"], e["args"]["n_prompt"], e["args"]["n_gen"], ns(e["ts"]),
                ns(e["ts"]) + ns(e["dur"])) for e in sl]
        exp = [(r["request"], span[r["request"]][2], span[r["request"]][3], span[r["request"]][4],
                span[r["request"]][0], span[r["request"]][1]) for r in sorted(want, key=lambda r: r["request"])]
        e2e.check(cr.returncode == 0 and got == exp and len({e["pid"] for e in sl}) <= 1,
                  f"--chrome-trace: {len(got)} {cat} slices on their own track equal the requests "
                  f"(id, seq, n_prompt, n_gen, start and end ns from capture.decodes): {got[:2]} vs {exp[:2]}")
    text = f"{d}/report.txt"
    tr = subprocess.run([e2e.OPSCOPE, "report", prof, "--text", text], capture_output=True, text=True)
    tl = open(text).read().splitlines() if tr.returncode == 0 else []
    at = [i for i, l in enumerate(tl) if l.startswith(" request  ctx")]
    rows = []
    for l in tl[at[0] + 1:] if at else []:
        if not l.strip() or not l.split()[0].isdigit():
            break
        rows.append(int(l.split()[0]))
    e2e.check(rows == [r["request"] for r in sr] and any(l.startswith(" Warm-up:") for l in tl),
              f"--text has the Requests table, one row per client request ({rows}), and the warm-up line")
    op_sum = sum(r["op_ns"] for r in sr) + sum(r["op_ns"] for r in warm)
    graph_op = sum(b["op_ns"] for b in summ.get("graphs_by_batch", []))
    e2e.check(abs(op_sum - graph_op) <= len(sr) + len(warm) + sum(x["graphs"] for x in decodes),
              f"the requests' op time adds up to the graphs' op time ({op_sum} vs {graph_op} ns)")
    con = subprocess.run([e2e.OPSCOPE, "report", prof], capture_output=True, text=True, errors="replace")
    lines = con.stdout.splitlines()
    at = [i for i, l in enumerate(lines) if l.startswith(" request  ctx")]
    table = []
    if at:
        for l in lines[at[0] + 1:]:
            if not l.strip() or not l.split()[0].isdigit():
                break
            table.append(l.split())
    e2e.check(len(table) == len(sr), f"the console's Requests table has one row per request ({len(table)} of {len(sr)})")
    e2e.note("\n".join(lines[at[0] - 2:at[0] + 1 + len(table)] if at else []))
e2e.finish()
