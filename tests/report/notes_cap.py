#!/usr/bin/env python3
"""Messages that repeat per distinct op are capped on stderr.

  notes_cap.py OPSCOPE WORKDIR

`report --export-ops` notes each group it did not export and each fused group; a profile of
100,003 distinct op names printed 100,003 lines. Now the first 10 of each kind are printed,
then one line "... and N more" with the count worked out here, naming the side table that
holds them all (it keeps every one: counted here); with the file on stdout (no side table)
nothing is named.
"""
import json
import os
import sys

import checks
from checks import check

OPSCOPE, WORK = sys.argv[1], sys.argv[2]
os.makedirs(WORK, exist_ok=True)
os.chdir(WORK)
SHOWN = 10


def run(*args):
    return checks.run([OPSCOPE] + list(args), text=True, timeout=300)


def write(path, records):
    with open(path, "w") as f:
        json.dump({"profiler": "opscope", "version": 3,
                   "backends": [{"id": 0, "name": "CPU", "device": "cpu", "device_type": 0}], "records": records}, f)


# 100,003 op names ggml does not have: each its own skipped group
N = 100_003
write("names.json", [{"type": 0, "name": f"CUSTOM_OP_{i:06d}", "backend_id": 0, "split_id": 0,
                      "start_ns": 1000 + 10 * i, "duration_ns": 5, "bytes": 0} for i in range(N)])
r = run("report", "names.json", "-q", "--export-ops", "ops.txt")
lines = r.stderr.splitlines()
skipped = [x for x in lines if ": not exported: CUSTOM_OP_" in x]
more = f"opscope report: --export-ops: ... and {N - SHOWN:,} more not exported; every one is in ops.txt.tsv"
check(r.returncode == 0 and len(skipped) == SHOWN, f"{SHOWN} of the {N} skipped groups printed ({len(skipped)})")
check(more in lines, f"then one line: {more!r}")
check(len(lines) <= SHOWN + 3, f"stderr holds {len(lines)} lines, not one per op")
tsv = [x.split("\t") for x in open("ops.txt.tsv").read().splitlines()[1:]]
kept = {x[1] for x in tsv if x[0] == "-"}
check(len(kept) == N and all(x[-1].startswith("not exported: ") for x in tsv if x[0] == "-"),
      f"the side table keeps every skipped group ({len(kept)} of {N})")
r = run("report", "names.json", "-q", "--export-ops", "-")
lines = r.stderr.splitlines()
check(r.returncode == 0 and f"opscope report: --export-ops: ... and {N - SHOWN:,} more not exported" in lines,
      "to stdout: the count, and no file named (none holds the list)")

# 15 fused groups, each its own line: 10 noted, then the count of the other 5
Z16 = [0] * 16
recs = []
for k in range(1, 16):
    ne = [256, k, 1, 1]
    recs.append({"type": 0, "name": "RMS_NORM", "backend_id": 0, "split_id": 0, "start_ns": 1000 * k,
                 "duration_ns": 70, "bytes": 0, "extra": f"RMS_NORM+MUL+{k}", "n_fused": 2, "tensor_name": "norm",
                 "ne": ne, "out_type": 0, "op_params": [925353388] + Z16[1:], "n_src": 1, "ne_src": [ne],
                 "nb_src": [[4, 1024, 1024 * k, 1024 * k]], "type_src": [0]})
write("fused.json", recs)
r = run("report", "fused.json", "-q", "--export-ops", "f.txt")
lines = r.stderr.splitlines()
noted = [x for x in lines if "was fused by the backend" in x]
more = "opscope report: --export-ops: ... and 5 more fused groups exported as their first op; every one is in f.txt.tsv"
check(r.returncode == 0 and len(noted) == SHOWN and more in lines,
      f"{SHOWN} of 15 fused groups noted, then {more!r} ({len(noted)}; {r.stderr[-300:]!r})")
fz = {x.split("\t")[5] for x in open("f.txt.tsv").read().splitlines()[1:] if x.split("\t")[0] != "-"}
check(len(fz) == 15, f"the side table names all 15 fused groups ({len(fz)})")

sys.exit(checks.done("notes_cap.py"))
