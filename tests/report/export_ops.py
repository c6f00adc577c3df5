#!/usr/bin/env python3
"""`opscope report --export-ops` and `opscope replay` on the host, without ggml:

- a hand-written version-3 profile (two backends, a fused group, a GLU with its sub_op, a
  copy, a GRAPH_SPLIT): the exact file (lines written here from ggml's layout), the side table,
  the stderr listing of what was not exported;
- a version-2 profile (no output, no op params): nothing exportable, everything listed;
- a Kineto trace: refused, exit 2, no file left;
- `opscope replay` driving a scripted test-backend-ops (a Python script printing
  `--output sql` lines as the real one does, crashing on one op, leaving one without a
  result, reporting one as unsupported): the join by name, the restart after the crash, every
  status, the projection, the JSON fields. The real test-backend-ops runs in the forky root
  (tests/capture_e2e/t_export_ops.py).

    export_ops.py OPSCOPE WORKDIR
"""
import gzip
import json
import os
import shutil
import subprocess
import sys

from checks import check, done, load

OPSCOPE, WORK = sys.argv[1], sys.argv[2]
HERE = os.path.dirname(os.path.abspath(__file__))
shutil.rmtree(WORK, ignore_errors=True)
os.makedirs(WORK)


Z16 = [0] * 16


def rec(name, ne, srcs, params=None, backend=0, dur=100, tensor="t", extra=None, n_fused=1,
        sub_op=None, out_type=0, rtype=0):
    r = {"type": rtype, "name": name, "backend_id": backend, "split_id": 0, "start_ns": 0,
         "duration_ns": dur, "bytes": 0, "extra": extra, "n_fused": n_fused,
         "tensor_name": tensor, "ne": ne, "out_type": out_type,
         "op_params": params or Z16, "n_src": len(srcs),
         "ne_src": [s[1] for s in srcs], "nb_src": [s[2] for s in srcs],
         "type_src": [s[0] for s in srcs]}
    if sub_op:
        r["sub_op"] = sub_op
    return r


def dense(t, ne, size):
    return (t, ne, [size, size * ne[0], size * ne[0] * ne[1], size * ne[0] * ne[1] * ne[2]])


A = dense(0, [256, 256, 1, 1], 4)
B11 = dense(0, [256, 11, 1, 1], 4)
mm = [rec("MUL_MAT", [256, 11, 1, 1], [A, B11], tensor="Qcur-0", dur=1000),
      rec("MUL_MAT", [256, 11, 1, 1], [A, B11], tensor="Kcur-0", dur=3000),
      rec("MUL_MAT", [256, 11, 1, 1], [A, B11], tensor="Qcur-0", dur=500, backend=1)]
glu_p = [2] + [0] * 15
G = dense(0, [512, 11, 1, 1], 4)
recs = mm + [
    rec("GLU", [512, 11, 1, 1], [G, G], params=glu_p, sub_op="SWIGLU", tensor="ffn swiglu", dur=40),
    rec("RMS_NORM", [256, 11, 1, 1], [B11], params=[925353388] + [0] * 15, tensor="norm-0", dur=70,
        extra="RMS_NORM+MUL", n_fused=2),
    {"type": 1, "name": "copy_H2D", "backend_id": 1, "split_id": 0, "start_ns": 0, "duration_ns": 9,
     "bytes": 64, "extra": "tensor_set"},
    {"type": 0, "name": "GRAPH_SPLIT", "backend_id": 1, "split_id": 0, "start_ns": 0,
     "duration_ns": 90, "bytes": 0, "extra": "12 nodes, no per-op timing"},
]
prof = {"profiler": "opscope", "version": 3,
        "backends": [{"id": 0, "name": "CPU", "device": "cpu", "device_type": 0},
                     {"id": 1, "name": "Vulkan0", "device": "llvmpipe", "device_type": 1}],
        "records": recs, "total_records": len(recs), "total_ns": 0}
pp = os.path.join(WORK, "p.json")
json.dump(prof, open(pp, "w"))


def line(op, out_ne, params, srcs, name):
    parts = [op, 0, *out_ne, 16, *params, len(srcs)]
    for t, ne, nb in srcs:
        parts += [t, *ne, *nb]
    return " ".join(map(str, parts)) + " " + name


# ggml 0.27: RMS_NORM 25, MUL_MAT 29, GLU 100; upstream's set order: by op first
want = [line(25, [256, 11, 1, 1], [925353388] + [0] * 15, [B11], "norm-0"),
        line(29, [256, 11, 1, 1], Z16, [A, B11], "Qcur-0"),
        line(100, [512, 11, 1, 1], glu_p, [G, G], "ffn_swiglu")]
out = os.path.join(WORK, "ops.txt")
r = subprocess.run([OPSCOPE, "report", pp, "-q", "--export-ops", out], capture_output=True, text=True)
check(r.returncode == 0, f"report --export-ops exits 0 ({r.returncode}: {r.stderr})")
got = open(out).read().splitlines()
check(got == want, f"the file is the three unique ops in upstream's order ({got})")
check("not exported: COPY copy_H2D (1 record): a copy between backends" in r.stderr, "the copy is listed")
check("not exported: GRAPH_SPLIT (1 record): a graph split timed as a whole" in r.stderr, "the split is listed")
check("note: RMS_NORM+MUL was fused" in r.stderr, "the fused group is noted")
check("3 unique ops from 5 of 6 op records" in r.stderr, f"the summary line counts records ({r.stderr.splitlines()[-1]})")
tsv = [ln.split("\t") for ln in open(out + ".tsv").read().splitlines()]
check(tsv[0][:8] == ["line", "op", "sub_op", "name", "backend", "fused", "count", "total_ns"], "side table header")
rows = {(t[0], t[4]): t for t in tsv[1:]}
check(rows[("2", "CPU")][6:8] == ["2", "4000"] and rows[("2", "Vulkan0")][6:8] == ["1", "500"],
      "MUL_MAT: 2 calls 4000 ns on CPU, 1 call 500 ns on Vulkan0")
check(rows[("1", "CPU")][5] == "RMS_NORM+MUL" and rows[("3", "CPU")][2] == "SWIGLU", "fused name and sub-op columns")
check(sum(1 for t in tsv[1:] if t[0] == "-") == 2, "two not-exported rows in the side table")

# version 2: no output, no op params
v2 = os.path.join(HERE, "..", "read", "data", "v2_small.json")
out2 = os.path.join(WORK, "v2.txt")
r = subprocess.run([OPSCOPE, "report", v2, "-q", "--export-ops", out2], capture_output=True, text=True)
check(r.returncode == 0 and open(out2).read() == "", f"a v2 profile gives an empty file ({r.returncode})")
check("not exported: MUL_MAT [4096, 4096] x [4096] (1 record): no output type and shape" in r.stderr or
      ("not exported: MUL_MAT" in r.stderr and "no output type and shape" in r.stderr),
      f"the v2 MUL_MAT is listed with its reason ({r.stderr.strip()})")

# a Kineto trace: refused, nothing written
kin = os.path.join(HERE, "..", "kineto", "traces", "a100_alexnet_fwd.json.gz")
out3 = os.path.join(WORK, "k.txt")
r = subprocess.run([OPSCOPE, "report", kin, "-q", "--export-ops", out3], capture_output=True, text=True)
check(r.returncode == 2 and not os.path.exists(out3) and not os.path.exists(out3 + ".tsv"),
      f"a Kineto trace is refused with status 2 and no file ({r.returncode})")
check("not ggml graph ops" in r.stderr, f"and says why ({r.stderr.strip()})")
check(not [f for f in os.listdir(WORK) if ".tmp." in f], "no temporary file left")

# replay against a scripted test-backend-ops
fake = os.path.join(WORK, "test-backend-ops")
if os.path.exists(os.path.join(WORK, "tbo-files.txt")):
    os.remove(os.path.join(WORK, "tbo-files.txt"))
with open(fake, "w") as f:
    # this interpreter, not `env python3`: a pyenv shim there costs seconds per start under load
    f.write(f'#!{sys.executable}\n' + f'SEEN = {os.path.join(WORK, "tbo-files.txt")!r}\n' + '''import sys
a = sys.argv
path, backend = a[a.index("--test-file") + 1], a[a.index("-b") + 1]
open(SEEN, "a").write(path + "\\n")
cols = "test_time, build_commit, backend_name, op_name, op_params, test_mode, supported, passed, error_message, time_us, flops, bandwidth_gb_s, memory_kb, n_runs, device_description, backend_reg_name"
OPS = {"25": "RMS_NORM", "29": "MUL_MAT", "100": "SWIGLU"}
print("CREATE TABLE IF NOT EXISTS test_backend_ops (")
for ln in open(path):
    v = ln.split()
    name = v[-1]
    op = OPS[v[0]]
    if backend == "NoSuch":
        continue
    if op == "RMS_NORM" and backend == "Hang":
        sys.stdout.flush()
        import time; time.sleep(600)
    if op == "SWIGLU" and backend == "CPU":
        sys.stderr.write("ggml.c:1: GGML_ASSERT(x) failed\\n")
        sys.stdout.flush()
        import os; os.abort()
    if op == "RMS_NORM" and backend == "Vulkan0":
        print("failed to allocate tensors")
        continue
    sup = "0" if (op == "SWIGLU" and backend == "Vulkan0") else "1"
    t = {"CPU": {"MUL_MAT": "250.0", "RMS_NORM": "10.0"}, "Vulkan0": {"MUL_MAT": "2000.0"}}.get(backend, {}).get(op, "0")
    vals = ["2026-01-01T00:00:00Z", "unknown", backend, op, "name=%s,type=f32" % name, "perf", sup, sup,
            "" if sup == "1" else "not supported", t, "0", "1.0", "1", "100" if sup == "1" else "0", "", ""]
    print("INSERT INTO test_backend_ops (%s) VALUES (%s);" % (cols, ", ".join("'%s'" % x for x in vals)))
''')
os.chmod(fake, 0o755)
rj = os.path.join(WORK, "replay.json")
# replay's scratch folders go to TMPDIR: this test's own, so another replay running at the
# same moment (a parallel test, another checkout) is not counted as one left behind
TMPD = os.path.join(WORK, "tmp")
os.makedirs(TMPD, exist_ok=True)
os.environ["TMPDIR"] = TMPD
tmp_before = {f for f in os.listdir(TMPD) if f.startswith("opscope-replay-")}
r = subprocess.run([OPSCOPE, "replay", pp, "--test-backend-ops", fake, "--json", rj],
                   capture_output=True, text=True)
check(r.returncode == 0, f"replay exits 0 ({r.returncode}: {r.stderr[-300:]})")
j = load(rj)
check(j["backends"] == ["CPU", "Vulkan0"], f"default backends: those the ops ran on ({j['backends']})")
byk = {(x["line"], x["backend"]): x for x in j["rows"]}
check(len(j["rows"]) == 4 and set(byk) == {(1, "CPU"), (2, "CPU"), (2, "Vulkan0"), (3, "CPU")},
      f"a row per line and backend it ran on ({sorted(byk)})")
m = byk[(2, "CPU")]
check(m["count"] == 2 and m["model_avg_ns"] == 2000.0 and m["isolated_avg_ns"] == {"CPU": 250000.0, "Vulkan0": 2000000.0},
      f"MUL_MAT on CPU: 2 calls of 2000 ns, isolated 250 us on CPU and 2000 us on Vulkan0 ({m})")
# the median call (the lower of two: 1000 ns, within the histogram's 4.5%) decides the flag
check(abs(m["model_median_ns"] - 1000) <= 45 and m["model_min_ns"] == 1000 and m["model_max_ns"] == 3000,
      f"MUL_MAT on CPU: median call about 1000 ns, min 1000, max 3000 ({m['model_median_ns']})")
check(m["projected_ns"]["CPU"] == 500000.0 and m["flagged"] and
      abs(m["model_over_isolated"] - m["model_median_ns"] / 250000) < 1e-4,
      f"projection 2 x 250 us, flagged at median/isolated ({m['model_over_isolated']})")
g = byk[(3, "CPU")]
check(g["status"] == {"CPU": "failed", "Vulkan0": "not supported"} and g["isolated_avg_ns"] == {"CPU": None, "Vulkan0": None},
      f"GLU: failed where test-backend-ops crashed, not supported on Vulkan0 ({g['status']})")
check(g["name"] == "GLU(SWIGLU)" and byk[(1, "CPU")]["name"] == "RMS_NORM [fused: RMS_NORM+MUL]", "row names as the report shows them")
# sub_op as everywhere else: ggml's enum value (GGML_GLU_OP_SWIGLU is 2 in ggml.h), its name beside
check((g["sub_op"], g["sub_op_name"]) == (2, "SWIGLU") and (m["sub_op"], m["sub_op_name"]) == (-1, None),
      f"sub_op value and name ({g['sub_op']}, {g['sub_op_name']}; {m['sub_op']}, {m['sub_op_name']})")
n = byk[(1, "CPU")]
check(n["status"] == {"CPU": "ok", "Vulkan0": "no result"}, f"RMS_NORM: no result on Vulkan0 ({n['status']})")
# every row counts on every backend: the Vulkan0 MUL_MAT call too ("this model on CPU")
check(abs(j["summary"]["CPU"]["projected_ns"] - (3 * 250000 + 1 * 10000)) < 1, f"CPU projection ({j['summary']['CPU']})")
check(j["summary"]["Vulkan0"]["projected_ns"] == 3 * 2000000.0, f"Vulkan0 projection over its timed rows ({j['summary']['Vulkan0']})")
check({s["what"].split()[0] for s in j["skipped"]} == {"COPY", "GRAPH_SPLIT"}, "skipped groups in the JSON")
check("died (signal 6)" in r.stdout and "GGML_ASSERT" in r.stdout, "the crash is named with its last stderr line")
check("failed to allocate tensors" in r.stdout, "a line without result says what test-backend-ops printed")
r = subprocess.run([OPSCOPE, "replay", pp, "--test-backend-ops", fake, "-b", "NoSuch", "-q"], capture_output=True, text=True)
check(r.returncode == 2 and "gave no result on backend 'NoSuch'" in r.stderr, f"an unknown backend fails clearly ({r.returncode}: {r.stderr.strip()})")
# a test-backend-ops that hangs on one op: killed after --timeout, that op failed, the rest run.
# --timeout also bounds a healthy run's start: the fake's second run prints nothing before it
# ends (a pipe is block-buffered), so Python's start and the run must fit in it. 20 s: on the
# 2-core CI machine at load 10-14 `python3 -c pass` took 0.4-0.7 s, 6-13 s through a pyenv shim
# (2 s failed there under -j2).
import time  # noqa: E402
rj2 = os.path.join(WORK, "replay-hang.json")
t0 = time.monotonic()
r = subprocess.run([OPSCOPE, "replay", pp, "--test-backend-ops", fake, "-b", "Hang", "--timeout", "20", "--json", rj2],
                   capture_output=True, text=True, timeout=400)
took = time.monotonic() - t0
check(r.returncode == 0, f"replay with a hanging op exits 0 ({r.returncode}: {r.stderr[-300:]})")
check(20 <= took < 300, f"it waited the 20 s timeout, not the 600 s hang ({took:.1f} s)")
h = {x["line"]: x for x in load(rj2)["rows"]}
check(h[1]["status"] == {"Hang": "failed"}, f"the hanging RMS_NORM failed ({h[1]['status']})")
check(h[2]["status"] == {"Hang": "ok"} and h[3]["status"] == {"Hang": "ok"},
      f"the ops after it still ran ({h[2]['status']}, {h[3]['status']})")
check("gave no result for 20 s (--timeout): killed" in r.stdout, "the table says it timed out")
# replay --batch / --graphs: only the ops of the chosen graph computes. Graph 0 is a prompt
# (MUL_MAT over 11 rows, batch 11), graphs 1 and 2 generation steps (1 row, batch 1).
B1 = dense(0, [256, 1, 1, 1], 4)
steps = []
for gid, width, durs in ((0, B11, (1000, 70)), (1, B1, (200, 30)), (2, B1, (400, 50))):
    n = width[1][1]
    steps += [dict(rec("MUL_MAT", [256, n, 1, 1], [A, width], tensor="Qcur-0", dur=durs[0]), graph_id=gid),
              dict(rec("RMS_NORM", [256, n, 1, 1], [width], params=[925353388] + [0] * 15, tensor="norm-0",
                       dur=durs[1], extra="RMS_NORM+MUL", n_fused=2), graph_id=gid)]
pb = os.path.join(WORK, "steps.json")
json.dump({"profiler": "opscope", "version": 3, "backends": prof["backends"][:1], "records": steps}, open(pb, "w"))
for args, want in ((["--batch", "1"], {("MUL_MAT", 2, 300.0), ("RMS_NORM", 2, 40.0)}),
                   (["--graphs", "0"], {("MUL_MAT", 1, 1000.0), ("RMS_NORM", 1, 70.0)})):
    rb = os.path.join(WORK, "replay-b.json")
    r = subprocess.run([OPSCOPE, "replay", pb, "--test-backend-ops", fake, "--json", rb, "-q", *args],
                       capture_output=True, text=True)
    if check(r.returncode == 0, f"replay {args} exits 0 ({r.returncode}: {r.stderr[-300:]})"):
        got = {({"MUL_MAT": "MUL_MAT", "RMS_NORM": "RMS_NORM"}.get(x["op"].split()[0].split("[")[0].strip(), x["op"]),
                x["count"], x["model_avg_ns"]) for x in load(rb)["rows"]}
        check(got == want, f"replay {args}: the rows of those graphs alone ({sorted(got)}, want {sorted(want)})")
r = subprocess.run([OPSCOPE, "replay", "-", "--test-backend-ops", fake, "--batch", "1"], capture_output=True,
                   text=True, input="{}")
check(r.returncode == 1 and "not stdin" in r.stderr, f"replay - --batch 1: exit 1 ({r.stderr.strip()[:120]})")

tmp_after = {f for f in os.listdir(TMPD) if f.startswith("opscope-replay-")}
check(not (tmp_after - tmp_before), f"the temporary folders are removed ({tmp_after - tmp_before})")
seen = open(os.path.join(WORK, "tbo-files.txt")).read().split()
check(seen and all(x.startswith(TMPD + "/opscope-replay-") for x in seen),
      f"replay's op files are in TMPDIR ({len(seen)} runs: {sorted(set(os.path.dirname(x) for x in seen))[:3]})")
sys.exit(done("export ops"))
