#!/usr/bin/env python3
"""test-backend-ops perf -o MUL_MAT -b CPU under the capture library (three cases, a few seconds).

Checks: exit 0 and the same cases as without the preload; every graph compute has all its
computed nodes; for every case test-backend-ops printed, the profile holds at least as many
MUL_MAT records of that type and shape as the runs test-backend-ops counted.
"""
import re

import e2e

e2e.need_preload()
d = e2e.outdir("backend-ops")
nc = e2e.nodecount_lib(d)
CASES = r"type_a=(f32|q8_0|q4_0),type_b=f32,m=4096,n=1,k=14336,bs=\[1,1\]"
cmd = ["test-backend-ops", "perf", "-o", "MUL_MAT", "-b", "CPU", "-p", CASES]
LINE = re.compile(r"MUL_MAT\(type_a=(\w+),type_b=(\w+),m=(\d+),n=(\d+),k=(\d+),.*?:\s+(\d+) runs - +([\d.]+) us/run")
TYPES = {"f32": 0, "f16": 1, "q4_0": 2, "q8_0": 8}


def cases(out):
    return [(a, b, int(m), int(n), int(k), int(runs), float(us)) for a, b, m, n, k, runs, us in
            LINE.findall(out.decode("utf-8", "replace"))]


rc0, out0, _ = e2e.run(cmd, e2e.env_for([]))
prof = f"{d}/profile.json"
rc1, out1, err1 = e2e.run(cmd, e2e.env_for([nc, e2e.PRELOAD], profile=prof, counts=f"{d}/counts.txt"))
c0, c1 = cases(out0), cases(out1)
e2e.check(rc0 == 0 and rc1 == 0, f"test-backend-ops exits 0 without and with the preload ({rc0}, {rc1})")
e2e.check(len(c1) == 3 and [c[:5] for c in c0] == [c[:5] for c in c1],
          f"the same 3 cases run with the preload ({[c[:5] for c in c1]})")
p = e2e.load_profile(prof)
counts = e2e.read_counts(f"{d}/counts.txt")
e2e.check_graphs(p, counts, "test-backend-ops", timing=False)
mm = [r for r in e2e.op_records(p) if r["name"] == "MUL_MAT"]
for a, b, m, n, k, runs, _us in c1:
    got = [r for r in mm if r["ne_src"][0][:2] == [k, m] and r["ne_src"][1][:2] == [k, n]
           and r.get("type_src", [None])[0] == TYPES[a]]
    e2e.check(len(got) >= runs, f"MUL_MAT {a} m={m} n={n} k={k}: {len(got)} records >= {runs} runs")
e2e.finish()
