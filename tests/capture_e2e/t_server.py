#!/usr/bin/env python3
"""llama-server with 4 slots and 4 concurrent clients under the capture library.

Checks: every request answered (4 distinct slots), the server stops cleanly on SIGTERM and the
profile is then complete: every graph compute seen by nodecount has all its computed nodes, every
record is whole, and the tokens in the profile's graphs add up to the tokens the server says it
evaluated for the four requests (so every slot's work is in the profile).
usage (inside the root): t_server.py [--no-preload]
"""
import sys

import e2e

preload = "--no-preload" not in sys.argv
if preload:
    e2e.need_preload()
m = e2e.model("tiny-dense-f32")
d = e2e.outdir("server" if preload else "server-plain")
nc = e2e.nodecount_lib(d)
prof = f"{d}/profile.json"

env = e2e.env_for([nc, e2e.PRELOAD] if preload else [nc], profile=prof if preload else None,
                  counts=f"{d}/counts.txt")


def body(i):
    return {"prompt": f"Client {i} asks: " + "why " * (3 + i), "n_predict": 16 + 4 * i, "temperature": 0, "seed": i,
            "cache_prompt": False}


status = {}
answers = e2e.server_completions(
    lambda port: ["llama-server", "-m", m, "--parallel", "4", "-c", "4096", "-t", "2", "--host", "127.0.0.1",
                  "--port", str(port), "--no-warmup", "--threads-http", "4", "--no-webui"],
    env, f"{d}/server.log", (range(4),), None, body_for=body, status=status, stop_timeout=30)
if not e2e.check(status["healthy"], "llama-server becomes healthy"):
    e2e.finish()
ok = [r for r in answers.values() if "content" in r]
e2e.check(len(ok) == 4, f"4 concurrent clients answered ({len(ok)})")
slots = {r.get("id_slot") for r in ok}
e2e.check(len(slots) == 4, f"the requests ran on 4 different slots ({sorted(map(str, slots))})")
rc = status["rc"]
e2e.check(rc is not None, f"llama-server stops within 30 s of SIGTERM (exit {rc})")

counts = e2e.read_counts(f"{d}/counts.txt")
# Tokens the server evaluated: each request's prompt plus its generated tokens but the last.
want_tokens = sum(r["timings"]["prompt_n"] + r["timings"]["predicted_n"] - 1 for r in ok)
seen_tokens = sum(c[3] for c in counts)
# A request's last sampled token may or may not be decoded before its slot is released.
e2e.check(want_tokens <= seen_tokens <= want_tokens + len(ok),
          f"nodecount's graphs evaluated {seen_tokens} tokens, within [{want_tokens}, {want_tokens + len(ok)}]"
          f" (prompt + generated - 1 or - 0 per request, from the server's replies)")
if not preload:
    e2e.finish()
p = e2e.load_checked(prof, "written on SIGTERM and valid JSON")
e2e.check_graphs(p, counts, "server", timing=False)
graphs = e2e.graphs_of(p)

# Not torn: within a graph's split every node appears once, and the records never overlap in time.
splits = {}
for r in e2e.op_records(p):
    splits.setdefault((r.get("graph_id"), r.get("split_id")), []).append(r)
dup = [k for k, rs in splits.items() if len({r.get("node_index") for r in rs}) != len(rs)]
over = []
for k, rs in splits.items():
    rs = sorted(rs, key=lambda r: r["start_ns"])
    over += [k for x, y in zip(rs, rs[1:]) if y["start_ns"] < x["start_ns"] + x["duration_ns"]]
e2e.check(not dup and not over, f"{len(splits)} graph splits: no node twice ({dup[:3]}), no overlapping records ({over[:3]})")
tokens = e2e.tokens_per_graph(p)  # the first layer's RMS_NORM rows: the tokens a graph evaluated
got = [tokens.get(gid, 0) for gid, _ in graphs]
e2e.check(got == [c[3] for c in counts], f"every graph's token count matches nodecount's ({sum(got)} tokens in all)")
e2e.check_report(prof, ["MUL_MAT"])

# Phases per sequence: slots decoding together are decode steps, not prompts (the widest
# MUL_MAT alone would call 31 batch-4 decode steps of 36 graphs prefill). From the server's
# replies: the decode graphs evaluate each request's generated tokens but the last (or all of
# them, as above), at least as many steps as the longest generation.
summ = e2e.report_summary(prof, "opscope report --json of the server's profile") if e2e.OPSCOPE else None
if summ is not None:
    dec = [b for b in summ.get("graphs_by_batch", []) if b["phase"] == "decode"]
    n_dec = sum(b["graphs"] for b in dec)
    dec_tokens = sum(b["batch"] * b["graphs"] for b in dec)
    want_dec = sum(r["timings"]["predicted_n"] - 1 for r in ok)
    steps = max(r["timings"]["predicted_n"] for r in ok) - 1
    e2e.check(want_dec <= dec_tokens <= want_dec + len(ok) and n_dec >= steps,
              f"report's decode graphs: {n_dec} (>= {steps}, the longest generation's steps) evaluating "
              f"{dec_tokens} tokens, within [{want_dec}, {want_dec + len(ok)}] (generated - 1 or - 0 per request)")
    wide = [(b["batch"], b["graphs"]) for b in dec if b["batch"] > 1]
    e2e.check(bool(wide), f"decode steps of several slots at once are decode (batch, graphs: {wide})")
e2e.finish()
