#!/usr/bin/env python3
"""graph_batch.py OPSCOPE WORKDIR - `opscope report`'s graphs by batch and the --batch/--graphs
filters of report, diff and view on real capture profiles (tests/diff/data/ggml: llama-completion on a tiny model, a
30-token prompt then 15 generation steps, and then 3), against the same
figures computed here from the records with Python's json module."""
import collections
import gzip
import json
import os
import sqlite3
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))
from checks import check, done, load, run  # noqa: E402
from intervals import records_union  # noqa: E402

opscope, work = sys.argv[1], sys.argv[2]
os.makedirs(work, exist_ok=True)
data = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "diff", "data")
profiles = [os.path.join(data, "ggml", n) for n in ("cpu-f32-t2.json.gz", "cpu-f32-n4.json.gz")]
trace = os.path.join(data, "kineto", "a100_alexnet_fwd.json.gz")


def records_of(path):
    return json.load(gzip.open(path))["records"]


def batch_of(rec):
    if rec.get("type", 0) != 0 or rec.get("n_src", 0) < 2:
        return 0
    if rec["name"] == "MUL_MAT":
        return rec["ne_src"][1][1]
    if rec["name"] == "MUL_MAT_ID":
        return rec["ne_src"][1][2]
    return 0


def phase_of(rs):
    """The documented rule, computed here: the attention's queries per sequence (FLASH_ATTN_EXT
    src0 ne[1]) decide, 1 is decode; without attention the batch does; none: none."""
    q = max((r["ne_src"][0][1] for r in rs if r["name"] == "FLASH_ATTN_EXT" and r.get("type", 0) == 0
             and r.get("n_src", 0) >= 1), default=0)
    t = q or max(batch_of(r) for r in rs)
    return "prefill" if t > 1 else "decode" if t == 1 else "none"


PHASE_ORDER = {"none": 0, "prefill": 1, "decode": 2}


def graphs_of(recs):
    """graph id -> [records] (records with a graph id only)."""
    g = {}
    for r in recs:
        if "graph_id" in r:
            g.setdefault(r["graph_id"], []).append(r)
    return g


def topology(rs):
    """A graph's topology (warm-up's key): the multiset of its op records' (name, backend)."""
    return frozenset(collections.Counter((r["name"], r["backend_id"]) for r in rs if r.get("type", 0) == 0).items())


def warm_of(recs):
    """graph id -> "warmup" | "outlier" | "steady", by the documented rule, computed here: the
    lowest id of each topology is the warm-up (in a run with weights, a graph with a GRAPH_SPLIT
    record never is); a steady graph whose wall is over 10x its (batch, phase) group's median
    is an outlier when at most a quarter of the group's steady graphs are."""
    graphs = graphs_of(recs)
    weighted = any("weight" in r for r in recs)
    warm, seen = {}, set()
    for gid in sorted(graphs):
        rs = graphs[gid]
        t = topology(rs)
        untimed = weighted and any(r["name"] == "GRAPH_SPLIT" and r.get("type", 0) == 0 for r in rs)
        warm[gid] = "warmup" if not untimed and t not in seen else "steady"
        if not untimed:
            seen.add(t)
    groups = collections.defaultdict(list)
    for gid, rs in graphs.items():
        groups[(max(batch_of(r) for r in rs), phase_of(rs))].append(gid)
    for ids in groups.values():
        walls = sorted(records_union(graphs[i]) for i in ids)
        med = walls[(len(walls) - 1) // 2]
        steady = [i for i in ids if warm[i] == "steady"]
        over = [i for i in steady if records_union(graphs[i]) > 10 * med]
        if over and 4 * len(over) <= len(steady):
            for i in over:
                warm[i] = "outlier"
    return warm


def expected_warmup(recs):
    """The summary's "warmup" member, computed here."""
    graphs, warm = graphs_of(recs), warm_of(recs)
    load = []
    for r in recs:
        if "graph_id" in r:
            break
        load.append(r)
    out = {"load_records": len(load), "load_ns": sum(r["duration_ns"] for r in load)}
    for k in ("steady", "warmup", "outlier"):
        ids = sorted(i for i in graphs if warm[i] == k)
        out[k + "_ids"] = ids[:64] if k != "steady" else []
        out[k + "_graphs"] = len(ids)
        out[k + "_op_ns"] = sum(r["duration_ns"] for i in ids for r in graphs[i] if r.get("type", 0) == 0)
        out[k + "_wall_ns"] = sum(records_union(graphs[i]) for i in ids)
    return out


def check_op_marks(name, summary, recs):
    """The op table's warm-up marks (warmup_count, warmup_ns) add up to the records of the
    warm-up graphs and the load, as found here; none exceeds its op's own count and time."""
    warm, graphs = warm_of(recs), graphs_of(recs)
    w = [r for gid in graphs if warm[gid] == "warmup" for r in graphs[gid]]
    for r in recs:
        if "graph_id" in r:
            break
        w.append(r)
    ops = summary["ops"]
    got = (sum(o.get("warmup_count", 0) for o in ops), sum(o.get("warmup_ns", 0) for o in ops))
    want = (len(w), sum(r["duration_ns"] for r in w))
    check(got == want and all(o.get("warmup_count", 0) <= o["count"] and o.get("warmup_ns", 0) <= o["total_ns"]
                              for o in ops),
          f"{name}: the op table's warm-up marks add up to the warm-up graphs' and the load's records {want} ({got})")


def expected_groups(recs):
    by = {}
    warm = warm_of(recs)
    for gid, rs in graphs_of(recs).items():
        b = max(batch_of(r) for r in rs)
        ph = phase_of(rs)
        op = sum(r["duration_ns"] for r in rs if r.get("type", 0) == 0)
        cp = sum(r["duration_ns"] for r in rs if r.get("type", 0) == 1)
        span = max(r["start_ns"] + r["duration_ns"] for r in rs) - min(r["start_ns"] for r in rs)
        wall = records_union(rs)
        e = by.setdefault((b, ph), {"batch": b, "phase": ph, "graphs": 0, "records": 0, "ops": 0, "op_ns": 0, "copy_ns": 0,
                              "wall_ns": 0, "first_graph": gid, "_op": [], "_wall": [], "span_ns": 0})
        e["span_ns"] += span
        e["graphs"] += 1
        e["records"] += len(rs)
        e["ops"] += sum(1 for r in rs if r.get("type", 0) == 0)
        e["op_ns"] += op
        e["copy_ns"] += cp
        e["wall_ns"] += wall
        e["first_graph"] = min(e["first_graph"], gid)
        w = warm[gid] == "warmup"
        e["warmup_graphs"] = e.get("warmup_graphs", 0) + w
        e["warmup_op_ns"] = e.get("warmup_op_ns", 0) + op * w
        e["warmup_wall_ns"] = e.get("warmup_wall_ns", 0) + wall * w
        e["_op"].append(op)
        e["_wall"].append(wall)
        e.setdefault("_wg", []).append((wall, gid))
    out = []
    for e in by.values():
        for k, m in (("_op", "median_op_ns"), ("_wall", "median_wall_ns")):
            v = sorted(e.pop(k))
            e[m] = v[(len(v) - 1) // 2]
        # outliers: graphs whose wall is over 10x the group's median
        out_g = [(w, g) for w, g in e.pop("_wg") if w > 10 * e["median_wall_ns"]]
        if out_g:
            top = max(out_g, key=lambda x: (x[0], -x[1]))
            e.update({"outliers": len(out_g), "outlier_wall_ns": sum(w for w, _ in out_g),
                      "max_outlier_graph": top[1], "max_outlier_wall_ns": top[0]})
        out.append(e)
    return sorted(out, key=lambda e: (-e["op_ns"], e["batch"], PHASE_ORDER[e["phase"]]))


def report(*args):
    return run([opscope, "report", *args], text=True)


for path in profiles:
    name = os.path.basename(path)
    recs = records_of(path)
    want = expected_groups(recs)
    out = os.path.join(work, name + ".json")
    r = report(path, "-q", "--json", out)
    if not check(r.returncode == 0, f"{name}: report --json exits 0 ({r.stderr.strip()[:200]})"):
        continue
    got = load(out)["summary"].get("graphs_by_batch")
    check(got == want, f"{name}: graphs_by_batch equals the groups computed from the records "
                       f"({[(g['batch'], g['phase'], g['graphs']) for g in want]})")
    check({g["phase"] for g in want} >= {"prefill", "decode"}, f"{name}: it has prefill and decode graphs")
    check_op_marks(name, load(out)["summary"], recs)
    got_w, want_w = load(out)["summary"].get("warmup"), expected_warmup(recs)
    check(got_w == want_w and want_w["warmup_ids"] == [min(graphs_of(recs))],
          f"{name}: the warm-up (the first graph, the one topology's first compute), outliers and load "
          f"equal those computed from the records ({got_w} vs {want_w})")

    # --batch decode / prefill: the graphs of that phase, whatever their batch
    for ph in ("decode", "prefill"):
        keep = {gid for gid, rs in graphs_of(recs).items() if phase_of(rs) == ph}
        n_want = sum(1 for x in recs if x.get("graph_id") in keep)
        out_p = os.path.join(work, f"{name}.{ph}.json")
        r = report(path, "-q", "--batch", ph, "--json", out_p)
        got_p = load(out_p) if r.returncode == 0 else {"records": [], "summary": {}}
        check(r.returncode == 0 and len(got_p["records"]) == n_want and
              {g["phase"] for g in got_p["summary"].get("graphs_by_batch", [])} == {ph},
              f"{name} --batch {ph}: the {n_want} records of its {len(keep)} graphs ({len(got_p['records'])})")
    batches = sorted(g["batch"] for g in want)
    check(len(batches) >= 2, f"{name}: the profile has a prompt and generation batches {batches}")

    # --batch B: exactly the records of the graphs of batch B, in every output
    graphs = graphs_of(recs)
    for b in batches:
        keep = {gid for gid, rs in graphs.items() if max(batch_of(x) for x in rs) == b}
        n_groups = len({phase_of(rs) for gid, rs in graphs.items() if gid in keep})
        want_recs = [x for x in recs if x.get("graph_id") in keep]
        out_b = os.path.join(work, f"{name}.b{b}.json")
        db = os.path.join(work, f"{name}.b{b}.db")
        txt = os.path.join(work, f"{name}.b{b}.txt")
        for f in (db,):
            if os.path.exists(f):
                os.remove(f)
        r = report(path, "--batch", str(b), "--json", out_b, "--sqlite", db, "--text", txt)
        if not check(r.returncode == 0, f"{name} --batch {b}: exits 0 ({r.stderr.strip()[:200]})"):
            continue
        doc = load(out_b)
        got_keys = sorted((x["graph_id"], x.get("node_index", -1), x["start_ns"]) for x in doc["records"])
        want_keys = sorted((x["graph_id"], x.get("node_index", -1), x["start_ns"]) for x in want_recs)
        check(got_keys == want_keys, f"{name} --batch {b}: the JSON holds the {len(want_recs)} records of "
                                     f"the {len(keep)} graphs of batch {b} ({len(got_keys)})")
        s = doc["summary"]
        check(s["total_ns"] == sum(x["duration_ns"] for x in want_recs),
              f"{name} --batch {b}: the summary's total time is theirs")
        check([g["batch"] for g in s.get("graphs_by_batch", [])] == [b] * n_groups,
              f"{name} --batch {b}: graphs_by_batch lists batch {b} alone")
        con = sqlite3.connect(db)
        n_db = con.execute("SELECT count(*) FROM records").fetchone()[0]
        gb = {row[0] for row in con.execute("SELECT DISTINCT batch FROM graphs")}
        con.close()
        check(n_db == len(want_recs) and gb == {b}, f"{name} --batch {b}: SQLite has {n_db} records, batches {gb}")
        text = open(txt).read()
        line = f"Filter:         batch {b}: {len(want_recs)} of {len(recs)} records kept"
        check(line in text, f"{name} --batch {b}: the text report says '{line}'")
        if r.stdout:
            check(f"batch {b}: {len(want_recs)} of {len(recs)} records kept" in r.stdout,
                  f"{name} --batch {b}: the console summary says how many records were kept")

    # --graphs A-B and both filters together
    ids = sorted(graphs)
    lo, hi = ids[1], ids[3]
    out_g = os.path.join(work, name + ".g.json")
    r = report(path, "-q", "--graphs", f"{lo}-{hi}", "--json", out_g)
    if check(r.returncode == 0, f"{name} --graphs {lo}-{hi}: exits 0"):
        got = sorted({x["graph_id"] for x in load(out_g)["records"]})
        n = len(load(out_g)["records"])
        want_n = sum(len(graphs[i]) for i in ids if lo <= i <= hi)
        check(got == [i for i in ids if lo <= i <= hi] and n == want_n,
              f"{name} --graphs {lo}-{hi}: graphs {got}, {n} records (want {want_n})")
    b1 = min(b for b in batches if b > 0)
    r = report(path, "-q", "--graphs", f"{ids[0]}-", "--batch", f"{b1}-{b1}", "--json", out_g)
    if check(r.returncode == 0, f"{name} --graphs {ids[0]}- --batch {b1}-{b1}: exits 0"):
        want_n = sum(len(rs) for rs in graphs.values() if max(batch_of(x) for x in rs) == b1)
        check(len(load(out_g)["records"]) == want_n, f"{name}: both filters keep {want_n} records")

    # nothing matches: exit 0, an empty report, and what the profile has on stderr
    r = report(path, "--batch", "99999")
    check(r.returncode == 0 and "No profiling data" in r.stdout and "its batches:" in r.stderr and
          all(f" {g['batch']} {g['phase']} (" in r.stderr for g in want),
          f"{name} --batch 99999: exit {r.returncode}, no data, the batches named ({r.stderr.strip()[:200]})")

# diff --batch / --graphs: each side limited the same way
base, new = profiles[0], os.path.join(data, "ggml", "cpu-q4_0-t2.json.gz")
for args, sel in ((["--batch", "1"], lambda gid, b: b == 1), (["--graphs", "1-4"], lambda gid, b: 1 <= gid <= 4),
                  (["--batch", "30", "--graphs", "0-"], lambda gid, b: b == 30)):
    r = run([opscope, "diff", base, new, "-q", "--json", "-", *args], text=True)
    if not check(r.returncode == 0, f"diff {args}: exits 0 ({r.stderr.strip()[:200]})"):
        continue
    d = json.loads(r.stdout)
    for side, path in (("base", base), ("new", new)):
        recs = records_of(path)
        graphs = graphs_of(recs)
        kept = [x for gid, rs in graphs.items() if sel(gid, max(batch_of(y) for y in rs)) for x in rs]
        op_ns = sum(x["duration_ns"] for x in kept if x.get("type", 0) == 0)
        check(d["filter"][f"{side}_kept"] == len(kept) and d["filter"][f"{side}_records"] == len(recs) and
              d[side]["records"] == len(kept) and d["totals"]["op"][f"{side}_ns"] == op_ns,
              f"diff {args}: {side} keeps {len(kept)} of {len(recs)} records, op time {op_ns} "
              f"({d['filter']}, {d[side]['records']}, {d['totals']['op'][f'{side}_ns']})")
r = run([opscope, "diff", base, "-", "--batch", "1"], input=b"{}")
check(r.returncode == 1 and b"not stdin" in r.stderr, f"diff A - --batch 1: exit 1 ({r.stderr.strip()[:120]})")
r = run([opscope, "diff", base, new, "--graphs", "x"])
check(r.returncode == 1 and b"expected N, A-B or A-" in r.stderr, "diff --graphs x: exit 1")

# view --batch: the timeline of those graphs; the HTML holds fewer bytes of data than the whole
html_all, html_b1 = os.path.join(work, "all.html"), os.path.join(work, "b1.html")
r1 = run([opscope, "view", profiles[0], "-o", html_all])
r2 = run([opscope, "view", profiles[0], "--batch", "1", "-o", html_b1])
check(r1.returncode == 0 and r2.returncode == 0 and 0 < os.path.getsize(html_b1) < os.path.getsize(html_all),
      f"view --batch 1: exit {r2.returncode}, a smaller page than the whole profile's")
r = run([opscope, "view", "-", "-o", html_b1, "--batch", "1"], input=b"{}")
check(r.returncode == 1 and b"not stdin" in r.stderr, f"view - --batch 1: exit 1 ({r.stderr.strip()[:120]})")

# a trace has no graph ids
r = report(trace, "--batch", "1")
check(r.returncode == 0 and "no graph ids" in r.stderr, f"trace --batch 1: says it has no graph ids ({r.stderr.strip()[:160]})")

# usage errors: exit 1, one message, nothing written
for args, what in ((["--batch", "x"], "expected N, A-B or A-"), (["--batch", "5-2"], "expected N, A-B or A-"),
                   (["--graphs", "-3"], "expected N, A-B or A-"), (["--batch", ""], "")):
    r = report(profiles[0], *args)
    check(r.returncode == 1 and what in r.stderr, f"report {args}: exit 1 ({r.stderr.strip()[:120]})")
r = run([opscope, "report", "-", "--batch", "1"], input=b"{}")
check(r.returncode == 1 and b"not stdin" in r.stderr, f"report - --batch 1: exit 1 ({r.stderr.strip()[:120]})")

# outliers: a Vulkan run whose first graphs compiled pipelines; every group's
# outlier fields against the groups computed here from the records
vk = os.path.join(data, "ggml", "vk-f32-n4.json.gz")
out = os.path.join(work, "vk-outliers.json")
r = report(vk, "-q", "--json", out)
if check(r.returncode == 0, f"vk-f32-n4: report --json exits 0 ({r.stderr.strip()[:200]})"):
    got = json.load(open(out))["summary"]["graphs_by_batch"]
    want = expected_groups(records_of(vk))
    fields = ("batch", "phase", "outliers", "outlier_wall_ns", "max_outlier_graph", "max_outlier_wall_ns")
    pick = lambda gs: [{k: g.get(k) for k in fields} for g in gs]  # noqa: E731
    check(pick(got) == pick(want) and any(g.get("outliers") for g in want),
          f"vk-f32-n4: the outliers of each group equal those computed from the records ({pick(got)})")
    r = report(vk)
    check("outliers (wall > 10x the group's median" in r.stdout, "vk-f32-n4: the console flags them")
# warm-up: Vulkan runs whose first computes created pipelines (GRAPH_SPLIT records
# alone, and per-op device records): the first compute of each topology is the warm-up
for nm in ("vk-f32-n4", "vk-ops-f32-n4"):
    vp = os.path.join(data, "ggml", nm + ".json.gz")
    out = os.path.join(work, nm + "-warm.json")
    r = report(vp, "-q", "--json", out)
    if check(r.returncode == 0, f"{nm}: report --json exits 0"):
        check_op_marks(nm, json.load(open(out))["summary"], records_of(vp))
        got_w, want_w = json.load(open(out))["summary"].get("warmup"), expected_warmup(records_of(vp))
        check(got_w == want_w and want_w["warmup_ids"] and want_w["warmup_ids"][0] == 0,
              f"{nm}: warm-up graphs {want_w['warmup_ids']}, load and outliers equal those computed from the "
              f"records ({got_w})")
sys.exit(done("graph_batch"))
