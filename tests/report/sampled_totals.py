#!/usr/bin/env python3
"""sampled_totals.py OPSCOPE WORKDIR - the estimates of sampled device timing marked in every
report: a profile written here, as the capture writes one under the default
`--gpu-timing sampled` (device-timed records with weights, sampled-out GRAPH_SPLITs with their
nodes' batch and queries), and the same workload as `--gpu-timing all` writes it (every compute
timed, no weight). Checked against figures computed here from the records:
- the console's `Total time` is marked measured with `Estimated: ... est.` beside it, the text
  report likewise; the all-mode reports have neither;
- the JSON summary's estimated_total_ns / _op_ns / _copy_ns and the sampled-out GRAPH_SPLIT
  group's sampled_out_records;
- graphs_by_batch: the same batches, phases and token counts in both profiles (the sampled-out
  graphs keep theirs), and per group device_timed_graphs, sampled_out_graphs, estimated_op_ns;
- the fields survive a round trip through report --json (batch, queries, sampled_out)."""
import json
import os
import re
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from checks import check, done, load, run  # noqa: E402

opscope, work = sys.argv[1], sys.argv[2]
os.makedirs(work, exist_ok=True)
US = 1000  # durations in microseconds: the console prints ms with 2-3 decimals
BACKENDS = [{"id": 0, "name": "CPU", "device": "cpu", "device_type": 0},
            {"id": 1, "name": "Vulkan0", "device": "llvmpipe", "device_type": 1}]


def mm(g, t, dur, rows, **kw):
    return dict(type=0, name="MUL_MAT", backend_id=1, split_id=1, graph_id=g, start_ns=t, duration_ns=dur * US, bytes=0,
                n_src=2, ne_src=[[64, 64, 1, 1], [64, rows, 1, 1]], **kw)


def fa(g, t, dur, queries, seqs, **kw):
    return dict(type=0, name="FLASH_ATTN_EXT", backend_id=1, split_id=1, graph_id=g, start_ns=t, duration_ns=dur * US,
                bytes=0, n_src=1, ne_src=[[32, queries, 2, seqs]], **kw)


def get_rows(g, t, rows):
    return dict(type=0, name="GET_ROWS", backend_id=0, split_id=0, graph_id=g, start_ns=t, duration_ns=50 * US, bytes=0,
                n_src=2, ne_src=[[64, 100, 1, 1], [rows, 1, 1, 1]])


def copy(g, t, **kw):
    return dict(type=1, name="copy_D2H", backend_id=1, split_id=1, graph_id=g, start_ns=t, duration_ns=40 * US,
                bytes=256,
                n_src=0, ne_src=[], **kw)


# The workload: graph 0 a prompt of 9 tokens on 1 sequence; graphs 1..6 decode steps of 3
# sequences (batch 3, 1 query each). Device work: MUL_MAT 300 ns, attention 100 ns per graph.
WORK = [(0, 9, 9, 1)] + [(g, 3, 1, 3) for g in range(1, 7)]
TIMED = {0: 1, 1: 1, 2: 1, 5: 3}  # sampled: graph -> weight; graphs 3, 4 and 6 sampled out


def profile(sampled):
    recs = []
    for g, rows, queries, seqs in WORK:
        t = 10_000 * US * (g + 1)
        recs.append(get_rows(g, t, rows))
        if not sampled or g in TIMED:
            w = {"weight": TIMED[g], "time_source": "device"} if sampled else {"time_source": "device"}
            recs += [mm(g, t + 100 * US, 300, rows, **w), fa(g, t + 400 * US, 100, queries, seqs, **w),
                     copy(g, t + 600 * US, **w)]
        else:  # the host's time of the whole split: its first node's shapes, the nodes' batch
            recs.append(dict(type=0, name="GRAPH_SPLIT", extra="40 nodes, no per-op timing", backend_id=1, split_id=1,
                             graph_id=g, start_ns=t + 100 * US, duration_ns=120 * US, bytes=0, n_src=1,
                             ne_src=[[64, rows, 1, 1]], batch=rows, queries=queries, sampled_out=True))
    return {"profiler": "ggml", "version": 3, "backends": BACKENDS, "records": recs}


paths = {}
for tag in ("sampled", "all"):
    paths[tag] = os.path.join(work, f"{tag}.json")
    with open(paths[tag], "w") as f:
        json.dump(profile(tag == "sampled"), f)

recs = profile(True)["records"]
total = sum(r["duration_ns"] for r in recs)


def est_of(r):
    return 0 if r.get("sampled_out") else r["duration_ns"] * r.get("weight", 1)


est = sum(est_of(r) for r in recs)
est_op = sum(est_of(r) for r in recs if r["type"] == 0)
est_copy = sum(est_of(r) for r in recs if r["type"] == 1)
check(est_op == US * (50 * 7 + 400 * (1 + 1 + 1 + 3)) and est_copy == US * 40 * 6,
      f"the figures of this test ({est_op}, {est_copy})")

# the console and the text report
r = run([opscope, "report", paths["sampled"], "--text", os.path.join(work, "s.txt")], text=True)
out = r.stdout
tot = re.search(r"^ Total time: +([0-9.]+) ms measured \(ops ([0-9.]+) ms, copies ([0-9.]+) ms\)$", out, re.M)
es = re.search(r"^ Estimated: +([0-9.]+) ms est\. over all computes \(ops ([0-9.]+) ms, copies ([0-9.]+) ms\)$",
               out, re.M)
check(r.returncode == 0 and tot and abs(float(tot.group(1)) * 1e6 - total) < 5e3,
      f"console: Total time marked measured, {total} ns ({tot and tot.group(0)!r})")
check(es and [round(float(x) * 1e6) for x in es.groups()] == [est, est_op, est_copy],
      f"console: the estimate beside it, {est} ns (ops {est_op}, copies {est_copy}) ({es and es.group(0)!r})")
text = open(os.path.join(work, "s.txt")).read() if r.returncode == 0 else ""
check(re.search(r"^ Total time: +[0-9.]+ ms \(sum of record durations, measured: sampled device timing\)$", text, re.M)
      and re.search(r"^ Estimated: +%.3f ms est\. over all computes" % (est / 1e6), text, re.M),
      "text report: Total time marked measured, the estimate beside it")
g_line = re.search(r"^ sampled device timing: op time measured \(4 of 7 graphs device-timed, 3 with a split sampled "
                   r"out: host time only\): ([0-9.]+) ms; estimated over all computes: ([0-9.]+) ms est\.$", out, re.M)
check(g_line and round(float(g_line.group(2)) * 1e6) == est_op,
      f"console: the graphs' table says what is measured and the estimate ({g_line and g_line.group(0)!r})")
r = run([opscope, "report", paths["all"], "--text", os.path.join(work, "a.txt")], text=True)
check(r.returncode == 0 and "measured" not in r.stdout and "Estimated:" not in r.stdout and "est." not in r.stdout
      and "Estimated:" not in open(os.path.join(work, "a.txt")).read(),
      "all-mode console and text: no measured/estimated labels")

# JSON
summ = {}
for tag in paths:
    j = os.path.join(work, f"{tag}.report.json")
    r = run([opscope, "report", paths[tag], "-q", "--json", j], text=True)
    check(r.returncode == 0, f"{tag}: report --json exits 0 ({r.stderr[:200]})")
    summ[tag] = load(j)["summary"] if r.returncode == 0 else {}
s = summ["sampled"]
check((s.get("estimated_total_ns"), s.get("estimated_op_ns"), s.get("estimated_copy_ns"), s.get("total_ns"))
      == (est, est_op, est_copy, total) and s.get("sampled_out_records") == 3 and s.get("weighted_records") == 12,
      f"JSON totals: estimated_total_ns {s.get('estimated_total_ns')} == {est}, measured total_ns stays {total}")
check("estimated_total_ns" not in summ["all"], "all-mode JSON totals: no estimate")
split = [g for g in s.get("ops", []) if g["name"] == "GRAPH_SPLIT"]
check(len(split) == 1 and split[0].get("sampled_out_records") == 3 and split[0].get("estimated_total_ns") == 0,
      f"JSON op table: the sampled-out GRAPH_SPLIT group marked, estimate 0 ({split})")


def tokens(gs):
    return sorted((g["batch"], g["phase"], g["graphs"]) for g in gs)


gs, ga = s.get("graphs_by_batch", []), summ["all"].get("graphs_by_batch", [])
check(tokens(gs) == tokens(ga) == [(3, "decode", 6), (9, "prefill", 1)],
      f"graphs_by_batch: the same batches, phases and graphs in both modes ({tokens(gs)} vs {tokens(ga)})")
want = {9: (1, 0, US * (50 + 400)), 3: (3, 3, US * (50 * 6 + 400 * (1 + 1 + 3)))}
got = {g["batch"]: (g.get("device_timed_graphs"), g.get("sampled_out_graphs"), g.get("estimated_op_ns")) for g in gs}
check(got == want, f"graphs_by_batch: device-timed and sampled-out graphs, estimated op time per group ({got})")
check(not any("estimated_op_ns" in g for g in ga), "all-mode graphs_by_batch: no estimates")

# round trip: the report's JSON profile keeps the fields
j = os.path.join(work, "sampled.report.json")
back = [r for r in load(j).get("records", []) if r["name"] == "GRAPH_SPLIT"]
check(len(back) == 3 and all(r.get("batch") == 3 and r.get("queries") == 1 and r.get("sampled_out") is True
                             for r in back), "report --json writes batch, queries and sampled_out back")
j2 = os.path.join(work, "again.json")
r = run([opscope, "report", j, "-q", "--json", j2], text=True)
check(r.returncode == 0 and load(j2)["summary"].get("graphs_by_batch") == gs
      and load(j2)["summary"].get("estimated_total_ns") == est, "read back: the same graphs_by_batch and estimate")
sys.exit(done("sampled_totals"))
