#!/usr/bin/env python3
"""Runs test_cap_export with OPSCOPE_TEST_OUT and checks the JSON it wrote with Python's own
json module: the fake backend's records, their durations (end - start of the fake ticks),
and the summary's FLOPs computed here (2*K*M*N for MUL_MAT), independently of the C code."""
import json, os, subprocess, sys

exe, prefix = sys.argv[1], sys.argv[2]
env = dict(os.environ, OPSCOPE_TEST_OUT=prefix)
subprocess.run([exe], check=True, env=env, stdout=subprocess.DEVNULL)
d = json.load(open(prefix + ".json"))
recs = d["records"]
assert d["version"] == 3, d["version"]
assert len(recs) == 6, len(recs)
# fake ticks (ns) from test_cap_export.c: (start, end) per record
expect = [("copy_H2H", 1000, 1100), ("RMS_NORM", 1100, 1300), ("MUL_MAT", 1300, 3300),
          ("MUL_MAT", 2000, 2500), ("UNARY", 3300, 3400), ("GLU", 3400, 3500)]
for r, (name, a, b) in zip(recs, expect):
    assert r["name"] == name, (r["name"], name)
    assert r["start_ns"] == a and r["duration_ns"] == b - a, r
fused = recs[1]
assert fused["extra"] == "RMS_NORM+MUL" and fused["n_fused"] == 2, fused
# The capture gives no FLOPs of its own: records carry none ("flops" is what an input gave),
# the summary derives them from the shapes: 2*K*M*N per MUL_MAT.
assert all("flops" not in r for r in recs), [r for r in recs if "flops" in r]
want = sum(2 * r["ne_src"][0][0] * r["ne_src"][0][1] * r["ne_src"][1][1] for r in recs if r["name"] == "MUL_MAT")
mm_group = [g for g in d["summary"]["ops"] if g["name"] == "MUL_MAT"]
assert len(mm_group) == 1 and mm_group[0]["flops"] == want, (mm_group, want)
assert d["summary"]["flops"] == want, (d["summary"]["flops"], want)
# sub_op as the seed's v3 layout has it (ggml's enum value: GGML_UNARY_OP_SILU 10,
# GGML_GLU_OP_SWIGLU 2 in ggml.h), the name beside it
assert (recs[4]["sub_op"], recs[4]["sub_op_name"]) == (10, "SILU"), recs[4]
assert (recs[5]["sub_op"], recs[5]["sub_op_name"]) == (2, "SWIGLU"), recs[5]
assert recs[0]["type"] == 1 and recs[0]["bytes"] == 4096
assert sum(r["duration_ns"] for r in recs) == d["total_ns"], d["total_ns"]
print("fake backend JSON ok:", len(recs), "records")
