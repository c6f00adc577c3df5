#!/usr/bin/env python3
"""llama_decode's own batches: decodes.c, a program that calls llama_decode with
llama_batch_init batches and llama_batch_get_one, then llama_process with a llama_batch_ext
(a token shared by two sequences through llama_batch_ext_add_seq, a cleared batch reused;
its constants are the expected figures), under the capture library and without it.

Checks: its output (each output's argmax) is the same with the capture as without; 6 calls in
capture.decodes with the tokens, outputs and per-sequence parts the program submitted, the
requests numbered by the documented rules (docs/capture.md, "Requests"); the two calls after
llama_memory_clear(mem, true) marked wiped, so the two prompt-only requests before those wipes
are warm-ups by the documented rule (docs/metrics.md, "Requests"), in warmup_requests and not
in requests; each call's graphs (by id) evaluated its tokens, the 17-token call in several
micro-batches (n_ubatch 8).
usage (inside the root): t_decode.py
"""
import subprocess

import e2e

e2e.need_preload()
m = e2e.model("tiny-dense-f32")
d = e2e.outdir("decode")
exe = f"{d}/decodes"
subprocess.run(["gcc", "-std=c11", "-O2", "-Wall", "-Wextra", "-Werror", f"{e2e.HERE}/decodes.c", "-o", exe,
                "-lllama"], check=True)
prof = f"{d}/profile.json"
rc0, out0, err0 = e2e.run([exe, m], e2e.env_for([]))
rc1, out1, err1 = e2e.run([exe, m], e2e.env_for([e2e.PRELOAD], profile=prof))
e2e.check(rc0 == 0 and rc1 == 0, f"decodes runs with and without the capture (exit {rc0}, {rc1}; {err1[-300:]!r})")
e2e.check(out0 == out1 and out0.count(b"\n") == 6, f"its output is the same with the capture ({out0!r} vs {out1!r})")
e2e.check("llama_decode" not in err1, "no warning from the llama_decode hook")
p = e2e.load_checked(prof)
dec = p.get("capture", {}).get("decodes", [])
e2e.check(len(dec) == 8 and all(x["ret"] == 0 for x in dec),
          f"6 llama_decode and 2 llama_process calls, each decoded ({len(dec)})")


def parts(x):
    return [(q["seq"], q["request"], q["tokens"], q["prompt"], q["outputs"]) for q in x["seqs"]]


want = [(17, 2, [(0, 0, 12, 12, 1), (1, 1, 5, 5, 1)])] + \
       [(2, 2, [(0, 0, 1, 0, 1), (1, 1, 1, 0, 1)])] * 3 + \
       [(3, 1, [(0, 2, 3, 3, 1)]), (4, 1, [(0, 3, 4, 4, 1)])] + \
       [(7, 2, [(0, 4, 5, 5, 1), (1, 5, 5, 5, 1)]), (2, 2, [(0, 4, 1, 0, 1), (1, 5, 1, 0, 1)])]
got = [(x["tokens"], x["outputs"], parts(x)) for x in dec]
e2e.check(got == want, f"the calls' tokens, outputs and sequences (seq, request, tokens, prompt, outputs): {got}")
wiped = [i for i, x in enumerate(dec) if x.get("wiped")]
e2e.check(wiped == [5, 6], f"the calls after the two llama_memory_clear(mem, true) are marked wiped: {wiped}")
rows = e2e.tokens_per_graph(p)
per_call = [[rows.get(g) for g in range(x["graph"], x["graph"] + x["graphs"])] for x in dec]
e2e.check(all(sum(r or 0 for r in rs) == x["tokens"] for rs, x in zip(per_call, dec)) and len(per_call[0]) >= 3,
          f"each call's graphs evaluated its tokens, the first in micro-batches of at most 8: {per_call}")
summ = e2e.report_summary(prof, "opscope report --json")
if summ is not None:
    got = [(r["seq"], r["n_prompt"], r["n_gen"], r["n_outputs"], r["decodes"]) for r in summ.get("requests", [])]
    e2e.check(got == [(0, 12, 3, 4, 4), (1, 5, 3, 4, 4), (0, 5, 1, 2, 2), (1, 5, 1, 2, 2)],
              f"summary.requests (seq, prompt, generated, sampled, calls): {got}")
    warm = [(r["request"], r["seq"], r["n_prompt"], r["n_gen"]) for r in summ.get("warmup_requests", [])]
    e2e.check(warm == [(2, 0, 3, 0), (3, 0, 4, 0)],
              f"summary.warmup_requests: the prompt-only requests before a wipe (request, seq, prompt, generated): {warm}")
e2e.finish()
