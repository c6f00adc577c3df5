#!/usr/bin/env python3
"""llama_tests.py OPSCOPE WORKDIR - what ran: a hand-written llama-bench-like
profile (two contexts, a warm-up and two repetitions each, a BLAS backend on netlib's
reference BLAS, 2 threads on 4 CPUs) through `opscope report`: the capture's run members kept
in --json, summary.tests and summary.notes against the documented rules computed here, the
first screen's lines; and malformed run members are bad input (exit 2, with a position)."""
import json
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from checks import check, done, run  # noqa: E402

opscope, work = sys.argv[1], sys.argv[2]
os.makedirs(work, exist_ok=True)


def matmul(gid, backend, start, dur, rows, flops=None):
    r = {"type": 0, "name": "MUL_MAT", "backend_id": backend, "split_id": 0, "graph_id": gid,
         "start_ns": start, "duration_ns": dur, "bytes": 4 * 64 * rows, "n_src": 2,
         "ne_src": [[64, 64, 1, 1], [64, rows, 1, 1]], "type_src": [0, 0], "ne": [64, rows, 1, 1], "out_type": 0}
    if flops is not None:
        r["flops"] = flops
    return r


def add(gid, backend, start, dur):
    return {"type": 0, "name": "ADD", "backend_id": backend, "split_id": 0, "graph_id": gid,
            "start_ns": start, "duration_ns": dur, "bytes": 256, "n_src": 2,
            "ne_src": [[64, 1, 1, 1], [64, 1, 1, 1]], "type_src": [0, 0], "ne": [64, 1, 1, 1], "out_type": 0}


# context 0 (backends 0 CPU, 1 BLAS): pp16. clears at 1000 (warm-up), 3000, 5000; freed at 10000
recs = [matmul(0, 0, 1100, 400, 16),                                   # warm-up
        matmul(1, 1, 3100, 300, 16, flops=2 * 64 * 64 * 16), add(1, 0, 3400, 200),   # rep 1: ends 3600
        matmul(2, 1, 5200, 500, 16, flops=2 * 64 * 64 * 16), add(2, 0, 5700, 100)]   # rep 2: ends 5800
# context 1 (backend 2 CPU): tg3. clears at 11000, 12000, 15000; freed at 20000
recs.append(matmul(3, 2, 11100, 900, 1))                               # warm-up: one token
t = 12100
for g in (4, 5, 6):
    recs += [matmul(g, 2, t, 150, 1), add(g, 2, t + 150, 50)]
    t += 400
t = 15100
for g in (7, 8, 9):
    recs += [matmul(g, 2, t, 100, 1), add(g, 2, t + 100, 30)]
    t += 300
argv = ["llama-bench", "-m", "/m/a.gguf", "-p", "16", "-n", "3", "-r", "2", "-t", "2"]
capture = {"program": "llama-bench", "argv": argv,
           "models": [{"path": "/m/a.gguf", "size": 2662016, "architecture": "llama", "name": "tiny",
                       "n_params": 2492672, "file_type": 7}],
           "contexts": [{"model": 0, "n_ctx": 256, "n_batch": 16, "n_ubatch": 16, "n_threads": 2,
                         "end_ns": 10000, "reps_ns": [1000, 3000, 5000]},
                        {"model": 0, "n_ctx": 256, "n_batch": 16, "n_ubatch": 16, "n_threads": 2,
                         "end_ns": 20000, "reps_ns": [11000, 12000, 15000]}],
           "blas": {"name": "reference", "path": "/usr/lib/x86_64-linux-gnu/blas/libblas.so.3.12.1", "threads": 1},
           "cpu_cores": 4}
prof = {"profiler": "opscope", "version": 3,
        "backends": [{"id": 0, "name": "CPU", "device": "cpu", "device_type": 0},
                     {"id": 1, "name": "BLAS", "device": "BLAS", "device_type": 2},
                     {"id": 2, "name": "CPU", "device": "cpu", "device_type": 0}],
        "records": recs, "capture": capture}
src = os.path.join(work, "bench.json")
json.dump(prof, open(src, "w"))


def expected_tests():
    """The documented rules (docs/metrics.md, "Tests"), computed here."""
    graphs = {}
    for r in recs:
        g = graphs.setdefault(r["graph_id"], {"start": r["start_ns"], "end": 0, "rows": 0, "op": 0, "be": set()})
        g["start"] = min(g["start"], r["start_ns"])
        g["end"] = max(g["end"], r["start_ns"] + r["duration_ns"])
        g["op"] += r["duration_ns"]
        g["be"].add(r["backend_id"])
        if r["name"] == "MUL_MAT":
            g["rows"] = max(g["rows"], r["ne_src"][1][1])
    out, prev = [], 0
    for c in capture["contexts"]:
        mine = sorted((g for g in graphs.values() if prev < g["start"] <= c["end_ns"]), key=lambda g: g["start"])
        prev = c["end_ns"]
        clears = c["reps_ns"]
        reps = []
        for k in range(1, len(clears)):
            hi = clears[k + 1] if k + 1 < len(clears) else c["end_ns"]
            seg = [g for g in mine if clears[k] <= g["start"] < hi]
            last_wide = max((i for i, g in enumerate(seg) if g["rows"] > 1), default=-1)
            n_prompt = sum(g["rows"] for g in seg[: last_wide + 1])
            n_gen = sum(g["rows"] for g in seg[last_wide + 1:])
            reps.append((n_prompt, n_gen, max(g["end"] for g in seg) - clears[k]))
        ts = [(p + g) * 1e9 / dt for p, g, dt in reps]
        mean = sum(ts) / len(ts)
        sd = (sum((x - mean) ** 2 for x in ts) / (len(ts) - 1)) ** 0.5
        warm = [g for g in mine if g["start"] < clears[1]]
        out.append({"model": "/m/a.gguf", "n_prompt": reps[0][0], "n_gen": reps[0][1], "reps": len(reps),
                    "avg_ts": mean, "stddev_ts": sd, "warmup_graphs": len(warm),
                    "warmup_op_ns": sum(g["op"] for g in warm), "n_threads": 2,
                    "backend": ",".join(sorted({prof["backends"][b]["name"] for g in mine for b in g["be"]},
                                               key=["CPU", "BLAS"].index))})
    return out


out = os.path.join(work, "bench.out.json")
p = run([opscope, "report", src, "--json", out])
text = p.stdout.decode()
check(p.returncode == 0, "report exits 0 (%s)" % p.stderr.decode().strip())
doc = json.load(open(out))
check(doc["capture"] == capture, "report --json keeps capture's run members as read")
tests = doc["summary"].get("tests", [])
want = expected_tests()
keys = ["model", "n_prompt", "n_gen", "reps", "warmup_graphs", "warmup_op_ns", "n_threads", "backend"]
check([{k: t[k] for k in keys} for t in tests] == [{k: w[k] for k in keys} for w in want],
      "summary.tests: %r == %r" % ([{k: t[k] for k in keys} for t in tests], [{k: w[k] for k in keys} for w in want]))
check(len(tests) == 2 and all(abs(t["avg_ts"] - w["avg_ts"]) < 1e-6 * w["avg_ts"] and
                              abs(t["stddev_ts"] - w["stddev_ts"]) < 1e-6 * w["stddev_ts"] for t, w in zip(tests, want)),
      "tokens/s: %r == %r" % ([(t["avg_ts"], t["stddev_ts"]) for t in tests], [(w["avg_ts"], w["stddev_ts"]) for w in want]))
# a server's context (llama-server: its warm-ups clear the memory with the data, the calls
# after them marked wiped) is no llama-bench test even with 2 clears or more; plain calls
# (context 0's) change nothing
def call(start, wiped):
    d = {"start_ns": start, "end_ns": start + 40, "graph": 0, "graphs": 1, "tokens": 2, "outputs": 1,
         "context": 0, "ret": 0, "seqs": [{"seq": 0, "request": 1, "tokens": 2, "prompt": 2, "outputs": 1}]}
    if wiped:
        d["wiped"] = 1
    return d


srv = os.path.join(work, "server.json")
json.dump(dict(prof, capture=dict(capture, decodes=[call(1050, False), call(11050, True)])), open(srv, "w"))
srv_out = os.path.join(work, "server.out.json")
p = run([opscope, "report", srv, "--json", srv_out, "-q"])
srv_tests = json.load(open(srv_out))["summary"].get("tests", []) if p.returncode == 0 else []
check([(t["n_prompt"], t["n_gen"]) for t in srv_tests] == [(want[0]["n_prompt"], want[0]["n_gen"])],
      "a context whose clears wiped the data is no test (left: %r)" % [(t["n_prompt"], t["n_gen"]) for t in srv_tests])
# top ops per test: every op on the test's backends (warm-up included), one entry per name
for t, bes in zip(tests, ({0, 1}, {2})):
    by = {}
    for r in recs:
        if r["backend_id"] in bes:
            by[r["name"]] = by.get(r["name"], 0) + r["duration_ns"]
    tot = sum(by.values())
    want_ops = sorted(((n, v, v / tot) for n, v in by.items()), key=lambda x: -x[1])
    got_ops = [(o["name"], o["total_ns"], o["share"]) for o in t["top_ops"]]
    check(got_ops == want_ops, "top_ops %r == %r" % (got_ops, want_ops))
# the BLAS backend's MUL_MAT: FLOPs as given, over its time; its share of all op time
blas_flops = sum(r.get("flops", 0) for r in recs if r["backend_id"] == 1)
blas_ns = sum(r["duration_ns"] for r in recs if r["backend_id"] == 1)
all_ns = sum(r["duration_ns"] for r in recs)
notes = doc["summary"].get("notes", [])
check(notes == [{"kind": "reference_blas", "mul_mat_flops": blas_flops, "mul_mat_ns": blas_ns, "share": blas_ns / all_ns},
                {"kind": "few_threads", "threads": 2, "cores": 4}], "summary.notes: %r" % notes)
head = text.split("=" * 80)[2] if text.count("=" * 80) >= 3 else text
for line in (" Command:       " + " ".join(argv),
             " Model:         /m/a.gguf: llama, 2.49 M params, Q8_0, 2.5 MiB",
             " BLAS:          reference (netlib), /usr/lib/x86_64-linux-gnu/blas/libblas.so.3.12.1, 1 thread",
             " Slow setup:    the BLAS library is netlib's reference BLAS (1 thread, unoptimised): MUL_MAT on BLAS "
             "ran at %.2f GFLOP/s, %.1f%% of op time" % (blas_flops / blas_ns, 100.0 * blas_ns / all_ns),
             " Slow setup:    a llama context ran 2 CPU threads on 4 CPUs online"):
    check(line in head, "first screen has %r" % line)
check(" pp16 " in text and " tg3 " in text and "--- Tests" in text, "the console's tests table names pp16 and tg3")

# a backend far below its measured peak (report --peak): the longest op group with at least 10%
# of the op time, here CPU#2's MUL_MAT (7 products of [64, 64] x [64, 1]: 2 x 64 x 64 FLOPs each)
peak = os.path.join(work, "peak.json")
json.dump({"format": "opscope-peak", "version": 1, "cpu": "Test CPU", "host": "testhost", "isa": "avx2",
           "threads": 2, "measured_unix": 1700000000, "memory": {"all_gbps": 1e6, "one_gbps": 1e6},
           "cache": {"all_gbps": 1e6, "one_gbps": 1e6}, "flops": {"all_gflops": 1e6, "one_gflops": 1e6}},
          open(peak, "w"))
op = os.path.join(work, "peak.out.json")
p = run([opscope, "report", src, "--peak", peak, "--json", op])
mm2 = [r for r in recs if r["backend_id"] == 2 and r["name"] == "MUL_MAT"]
mm2_ns = sum(r["duration_ns"] for r in mm2)
bp = [n for n in json.load(open(op))["summary"].get("notes", []) if n["kind"] == "below_peak"] if p.returncode == 0 else []
check(len(bp) == 1 and bp[0]["op"] == "MUL_MAT" and bp[0]["backend_id"] == 2 and
      abs(bp[0]["share"] - mm2_ns / all_ns) < 1e-12 and abs(bp[0]["gflops"] - len(mm2) * 2 * 64 * 64 / mm2_ns) < 1e-9
      and bp[0]["roofline_pct"] < 10, "below_peak note: %r" % bp)
check("Slow setup:    MUL_MAT on backend 2 (%.1f%% of op time)" % (100.0 * mm2_ns / all_ns) in p.stdout.decode(),
      "the first screen says the below-peak group")

# diff --by test: NEW is BASE on a clock running at half speed (every time doubled), so every
# repetition takes twice as long: t/s halves
new_recs = [dict(r, start_ns=2 * r["start_ns"], duration_ns=2 * r["duration_ns"]) for r in recs]
new_caps = dict(capture, contexts=[dict(c, reps_ns=[2 * x for x in c["reps_ns"]], end_ns=2 * c["end_ns"])
                                   for c in capture["contexts"]])
new_src = os.path.join(work, "bench_new.json")
json.dump(dict(prof, records=new_recs, capture=new_caps), open(new_src, "w"))
dj = os.path.join(work, "diff.json")
p = run([opscope, "diff", src, new_src, "--by", "test", "--json", dj, "-q"])
check(p.returncode == 0, "diff --by test exits 0 (%s)" % p.stderr.decode().strip())
rows = json.load(open(dj)).get("tests", []) if p.returncode == 0 else []
check([(r["model"], r["n_prompt"], r["n_gen"]) for r in rows] == [("a.gguf", 16, 0), ("a.gguf", 0, 3)],
      "diff tests paired by model file, n_prompt, n_gen: %r" % rows)
check(all(abs(r["new"]["avg_ts"] - w["avg_ts"] / 2) < 1e-6 * w["avg_ts"] and abs(r["ts_change"] + 0.5) < 1e-9
          for r, w in zip(rows, want)), "NEW t/s is half of BASE's: %r" % [(r["base"]["avg_ts"], r["new"]["avg_ts"]) for r in rows])
p = run([opscope, "diff", src, new_src, "--by", "test"])
out = p.stdout.decode()
check(p.returncode == 0 and "--- Tests" in out and "-50.0%" in out and "Delta%" not in out,
      "diff --by test prints the tests alone, -50.0%% each")
plain = os.path.join(work, "plain.json")
json.dump(dict(prof, capture={"program": "x"}), open(plain, "w"))
p = run([opscope, "diff", src, plain, "--by", "test"])
check(p.returncode == 2 and b"no llama-bench tests" in p.stderr, "diff --by test without tests: exit %d" % p.returncode)

# malformed run members: exit 2 with a position, nothing written
for name, bad in (("argv_not_strings", {"argv": [1, 2]}), ("models_not_array", {"models": {"path": "x"}}),
                  ("context_reps", {"contexts": [{"model": 0, "reps_ns": ["x"]}]}),
                  ("blas_not_object", {"blas": "reference"})):
    b = dict(prof, capture=dict(capture, **bad))
    path = os.path.join(work, "bad_%s.json" % name)
    json.dump(b, open(path, "w"))
    o = os.path.join(work, "bad_%s.out.json" % name)
    p = run([opscope, "report", path, "--json", o, "-q"])
    err = p.stderr.decode()
    check(p.returncode == 2 and ":1:" in err and not os.path.exists(o), "%s: exit %d, %r" % (name, p.returncode, err.strip()))
sys.exit(done("llama tests"))
