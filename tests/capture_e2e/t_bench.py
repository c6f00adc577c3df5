#!/usr/bin/env python3
"""llama-bench (prompt and decode tests) under the capture library.

Checks: exit 0 and the same tests reported as without the preload; every graph compute
(warm-up included) is in the profile with all its computed nodes.
"""
import json

import e2e

e2e.need_preload()
m = e2e.model("tiny-dense-q8_0")
d = e2e.outdir("bench")
nc = e2e.nodecount_lib(d)
cmd = ["llama-bench", "-m", m, "-p", "16", "-n", "8", "-t", "2", "-r", "2", "-o", "json"]
rc0, out0, _ = e2e.run(cmd, e2e.env_for([]))
prof = f"{d}/profile.json"
rc1, out1, err1 = e2e.run(cmd, e2e.env_for([nc, e2e.PRELOAD], profile=prof, counts=f"{d}/counts.txt"))
e2e.check(rc0 == 0 and rc1 == 0, f"llama-bench exits 0 without and with the preload ({rc0}, {rc1}; {err1[-200:]!r})")


def tests(out):
    try:
        return [(t["n_prompt"], t["n_gen"], len(t["samples_ns"])) for t in json.loads(out)]
    except (ValueError, KeyError, TypeError):
        return None


e2e.check(tests(out0) == tests(out1) == [(16, 0, 2), (0, 8, 2)],
          f"the same tests and repetitions with the preload ({tests(out1)})")
p = e2e.load_profile(prof)
counts = e2e.read_counts(f"{d}/counts.txt")
e2e.check(len(counts) >= 2 * 8, f"nodecount saw {len(counts)} graph computes (>= 16)")
e2e.check_graphs(p, counts, "llama-bench", timing=False)
# 2 prompt runs of 16 tokens + 2 x 7 (or 8) decodes + warm-up: the tokens nodecount saw are in the profile.
e2e.check(sum(c[3] for c in counts) >= 2 * 16 + 2 * 7, f"{sum(c[3] for c in counts)} tokens evaluated")
e2e.finish()
