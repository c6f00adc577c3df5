#!/usr/bin/env python3
"""`opscope report PROFILE --sqlite FILE`, checked with Python's own sqlite3 module against
numbers computed here from the input (standard library only) and against the report's own
--json summary of the same run:

- every field of every record (table records + shapes + backends + graphs) equals the input
  profile, read here with the json module; ids follow input order;
- the per-(name, type, backend) sums and counts equal an independent computation over the
  input, on a hand-made capture-style profile and on a generated 200k-record one;
- the views op_stats, backend_stats, copy_stats and totals equal the JSON summary's ops,
  backends, copies and totals (exact integers, ratios to 1e-9);
- a Kineto trace: one kineto_links row per kernel, its correlation id equal to the trace's,
  link counts and per-CPU-op GPU time equal to the JSON summary's Kineto section;
- the example queries of docs/formats.md run;
- bad input: exit 2, one positioned line, no file and no temporary left, an existing file
  untouched; `--sqlite -` and the same file twice: exit 1.

usage: sqlite_export.py OPSCOPE GEN_PROFILE WORKDIR
"""
import gzip
import json
import os
import re
import shutil
import sqlite3
import subprocess
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))
from checks import check, done, load  # noqa: E402
from intervals import union_len  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))


def close(a, b):
    return abs(a - b) <= 1e-9 * max(1.0, abs(a), abs(b))


TYPES = {0: "f32", 1: "f16", 2: "q4_0", 8: "q8_0", 26: "i32", 30: "bf16"}
UNARY = ["ABS", "SGN", "NEG", "STEP", "TANH", "ELU", "RELU", "SIGMOID", "GELU", "GELU_QUICK",
         "SILU"]  # ggml's enum ggml_unary_op, as far as this test uses it
GLU = ["REGLU", "GEGLU", "SWIGLU"]  # ggml's enum ggml_glu_op, as far as this test uses it
DEVICE_TYPES = {0: "CPU", 1: "GPU", 2: "ACCEL"}


def capture_profile():
    """A capture-style version-3 profile with every field opscope knows, written by hand."""
    recs = []
    t = 1_000_000

    def rec(**kw):
        nonlocal t
        r = {"type": 0, "backend_id": 0, "split_id": 0, "bytes": 4096, "extra": None}
        r.update(kw)
        r.setdefault("start_ns", t)
        t = r["start_ns"] + r.get("duration_ns", 1000) + 50
        recs.append(r)

    for g in range(3):
        for node in range(6):
            rec(name="MUL_MAT", duration_ns=5000 + 100 * node + g, graph_id=100 + g,
                node_index=2 * node, thread_id=0, n_src=2,
                ne_src=[[4096, 4096, 1, 1], [4096, 7 if g < 2 else 1, 1, 1]],
                nb_src=[[2, 8192, 33554432, 33554432], [4, 16384, 114688, 114688]],
                type_src=[1, 0], ne=[4096, 7, 1, 1], out_type=0, tensor_name=f"ffn_up-{node}",
                op_params=[0] * 16, host_start_ns=t - 10, host_end_ns=t + 6000,
                backend_id=1, split_id=1, flops=2 * 4096 * 4096 * 7)
            rec(name="UNARY", duration_ns=300 + node, graph_id=100 + g, node_index=2 * node + 1,
                n_src=1, ne_src=[[4096, 7, 1, 1]], type_src=[0], ne=[4096, 7, 1, 1], out_type=0,
                op_params=[10] + [0] * 15, backend_id=1, split_id=1)  # SILU from op_params[0]
        rec(name="RMS_NORM", extra="RMS_NORM+MUL", n_fused=2, duration_ns=700, graph_id=100 + g,
            node_index=20, n_src=1, ne_src=[[4096, 7, 1, 1]], type_src=[0], sub_op=None)
        rec(name="GLU", sub_op="SWIGLU", duration_ns=400, graph_id=100 + g, node_index=21,
            n_src=2, ne_src=[[11008, 7, 1, 1], [11008, 7, 1, 1]], type_src=[0, 0])
        rec(type=1, name="copy_H2D", extra="tensor_set", duration_ns=900, bytes=114688,
            graph_id=100 + g, n_src=1, ne_src=[[4096, 7, 1, 1]], type_src=[0], backend_id=1)
        rec(type=1, name="copy_D2H", extra="tensor_get_async", duration_ns=800, bytes=114688,
            graph_id=100 + g, n_src=1, ne_src=[[4096, 7, 1, 1]], type_src=[0])
    # a record outside any graph, on a backend the profile never describes, huge numbers
    rec(name="ADD", duration_ns=2**40, bytes=2**50, backend_id=7, n_src=2,
        ne_src=[[16, 1, 1, 1], [16, 1, 1, 1]])
    # a version-2 style record (ne_src0..2) in the same file
    rec(name="CPY", duration_ns=123, ne_src0=[64, 2, 0, 0], ne_src1=[0, 0, 0, 0],
        ne_src2=[0, 0, 0, 0])
    backends_before = [{"id": 0, "name": "CPU", "device": "EPYC 7B13", "device_type": 0}]
    backends_after = [{"id": 1, "name": "Vulkan0", "device": "llvmpipe", "device_type": 1}]
    return {"profiler": "opscope", "version": 3, "backends": backends_before, "records": recs,
            "backends_after": backends_after, "total_records": len(recs),
            "total_ns": sum(r["duration_ns"] for r in recs)}


def write_profile(p, path):
    d = dict(p)
    after = d.pop("backends_after")
    text = json.dumps(d)
    # a second "backends" member after the records (opscope's reader takes both)
    text = text[:-1] + ', "backends": ' + json.dumps(after) + "}"
    with open(path, "w") as f:
        f.write(text)


def srcs_of(r):
    """(n_src, ne_src, nb_src or None, type_src or None) as opscope reads the record."""
    if "n_src" in r or "ne_src" in r:
        ne = r.get("ne_src", [])
        n = r.get("n_src", len(ne))
        ne = [list(x) + [0] * (4 - len(x)) for x in ne] + [[0] * 4] * (n - len(ne))
        return n, ne, r.get("nb_src"), r.get("type_src")
    ne = [r.get("ne_src0", r.get("ne", [0] * 4)), r.get("ne_src1", [0] * 4), r.get("ne_src2", [0] * 4)]
    return 3, [list(x) + [0] * (4 - len(x)) for x in ne], None, None


def sub_op_of(r):
    if r.get("sub_op"):
        return r["sub_op"]
    if r.get("type", 0) == 0 and r["name"] == "UNARY" and "op_params" in r:
        return UNARY[r["op_params"][0]]
    return None


def sub_op_value_of(r):
    sub = sub_op_of(r)
    table = {"UNARY": UNARY, "GLU": GLU}.get(r["name"], [])
    return table.index(sub) if sub in table else None


def display_of(r):
    s = r["name"]
    sub = sub_op_of(r)
    if sub:
        s += f"({sub})"
    if r.get("extra"):
        s += f" [fused: {r['extra']}]" if r.get("type", 0) == 0 else f" (via {r['extra']})"
    return s


def check_records(db, p, label):
    rows = db.execute("SELECT r.*, s.n_src, s.srcs, s.op_params, s.src0_type, s.src0_ne0, "
                      "s.src0_ne1, s.src1_ne0, s.src1_ne1, s.out_type, s.ne0, s.ne1 "
                      "FROM records r JOIN shapes s ON s.id = r.shape_id ORDER BY r.id").fetchall()
    recs = p["records"]
    if not check(len(rows) == len(recs), f"{label}: {len(rows)} rows for {len(recs)} records"):
        return
    bad = []
    for i, (row, r) in enumerate(zip(rows, recs)):
        n, ne, nb, ts = srcs_of(r)
        want = {
            "id": i + 1, "type": "COPY" if r.get("type", 0) == 1 else "OP", "name": r["name"],
            "sub_op": sub_op_of(r), "sub_op_value": sub_op_value_of(r),
            "extra": r.get("extra"), "op": display_of(r),
            "backend_id": r.get("backend_id", 0), "split_id": r.get("split_id", 0),
            "graph_id": r.get("graph_id"), "node_index": r.get("node_index"),
            "n_fused": r.get("n_fused", 1), "thread_id": r.get("thread_id"),
            "tensor_name": r.get("tensor_name"), "start_ns": r["start_ns"],
            "duration_ns": r["duration_ns"], "host_start_ns": r.get("host_start_ns"),
            "host_end_ns": r.get("host_end_ns"), "bytes": r.get("bytes", 0),
            "n_src": n,
            "src0_type": TYPES[ts[0]] if ts else None, "src0_ne0": ne[0][0] if n else None,
            "src0_ne1": ne[0][1] if n else None, "src1_ne0": ne[1][0] if n > 1 else None,
            "src1_ne1": ne[1][1] if n > 1 else None,
            "out_type": TYPES[r["out_type"]] if "out_type" in r else None,
            "ne0": r["ne"][0] if "out_type" in r else None, "ne1": r["ne"][1] if "out_type" in r else None,
            "op_params": r.get("op_params"),
            "srcs": [dict({"type": TYPES[ts[k]] if ts else None, "ne": ne[k]},
                          **({"nb": nb[k]} if nb else {})) for k in range(n)],
        }
        if "flops" in r:
            want["flops"] = r["flops"]
        got = dict(row)
        got["srcs"] = json.loads(got["srcs"])
        got["op_params"] = json.loads(got["op_params"]) if got["op_params"] else None
        diff = {k: (got.get(k), v) for k, v in want.items() if got.get(k) != v}
        if diff:
            bad.append((i, diff))
    check(not bad, f"{label}: every field of every record equals the input" +
          (f" (first: record {bad[0][0]}: {bad[0][1]})" if bad else ""))


def group_sums(recs):
    g = {}
    for r in recs:
        k = (r["name"], "COPY" if r.get("type", 0) == 1 else "OP", r.get("backend_id", 0))
        e = g.setdefault(k, [0, 0])
        e[0] += r["duration_ns"]
        e[1] += 1
    return g


def check_bar_query(db, recs, label):
    got = {(n, t, b): [s, c] for n, t, b, s, c in db.execute(
        "SELECT name, type, backend_id, sum(duration_ns), count(*) FROM records "
        "GROUP BY name, type, backend_id")}
    check(got == group_sums(recs), f"{label}: sum(duration_ns), count(*) per (name, type, "
          f"backend_id) equal the input's ({len(got)} groups)")


def check_views(db, summ, label):
    ops = db.execute("SELECT * FROM op_stats").fetchall()
    sops = summ["ops"]
    ok = len(ops) == len(sops)
    for row, o in zip(ops, sops):
        ok &= (row["display"], row["name"], row["sub_op"], row["fused"], row["call"],
               row["type"], row["backend_id"], row["count"], row["total_ns"], row["min_ns"],
               row["max_ns"], row["bytes"], row["flops"]) == (
            o["display"], o["name"], o["sub_op_name"], o["extra"], o["call"],
            "COPY" if o["type"] == 1 else "OP", o["backend_id"], o["count"], o["total_ns"],
            o["min_ns"], o["max_ns"], o["bytes"], o["flops"])
        ok &= all(close(row[k], o[k]) for k in ("avg_ns", "pct_time", "bandwidth_gbps", "gflops_per_s"))
    check(ok, f"{label}: view op_stats equals the JSON summary's ops, in order ({len(ops)} rows)")

    bks = db.execute("SELECT * FROM backend_stats").fetchall()
    sb = summ["backends"]
    ok = len(bks) == len(sb)
    for row, b in zip(bks, sb):
        ok &= all(row[k] == b[k] for k in ("name", "device", "n_ops", "op_ns", "op_bytes", "op_flops",
                                           "n_copies", "copy_ns", "copy_bytes", "first_start_ns",
                                           "last_end_ns"))
        ok &= row["backend_id"] == b["id"]
        ok &= close(row["op_bandwidth_gbps"], b["op_bandwidth_gbps"])
        ok &= close(row["copy_bandwidth_gbps"], b["copy_bandwidth_gbps"])
    check(ok, f"{label}: view backend_stats equals the JSON summary's backends ({len(bks)} rows)")

    cps = db.execute("SELECT * FROM copy_stats").fetchall()
    sc = summ["copies"]
    check(len(cps) == len(sc) and all(
        (r["display"], r["count"], r["total_ns"], r["bytes"]) == (c["display"], c["count"], c["total_ns"], c["bytes"])
        and close(r["bandwidth_gbps"], c["bandwidth_gbps"]) for r, c in zip(cps, sc)),
        f"{label}: view copy_stats equals the JSON summary's copies ({len(cps)} rows)")

    bs = [dict(r) for r in db.execute("SELECT * FROM batch_stats")]
    keys = ("batch", "phase", "graphs", "records", "ops", "op_ns", "copy_ns", "wall_ns", "first_graph")
    want = [{k: g[k] for k in keys} for g in summ.get("graphs_by_batch", [])]
    check(bs == want, f"{label}: view batch_stats equals the JSON summary's graphs_by_batch ({len(bs)} rows)")

    tot = dict(db.execute("SELECT * FROM totals").fetchone())
    st = summ  # the totals are the summary's top-level numbers
    check(all(tot[k] == st[k] for k in tot), f"{label}: view totals equals the JSON summary's totals")


def run(opscope, *args):
    return subprocess.run([opscope, "report", *args], capture_output=True, text=True)


def open_db(path):
    db = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
    db.row_factory = sqlite3.Row
    return db


def main():
    opscope, gen, work = sys.argv[1], sys.argv[2], sys.argv[3]
    shutil.rmtree(work, ignore_errors=True)
    os.makedirs(work)
    os.chdir(work)

    # 1. hand-made capture-style profile: every field
    p = capture_profile()
    write_profile(p, "cap.json")
    r = run(opscope, "cap.json", "-q", "--json", "cap.out.json", "--sqlite", "cap.db")
    if check(r.returncode == 0, f"capture profile: exit {r.returncode} {r.stderr.strip()}"):
        db = open_db("cap.db")
        summ = load("cap.out.json")["summary"]
        check_records(db, p, "capture profile")
        check_bar_query(db, p["records"], "capture profile")
        check_views(db, summ, "capture profile")
        bk = {b["id"]: (b["name"], b["device"], b["device_type"]) for b in db.execute("SELECT * FROM backends")}
        want = {b["id"]: (b["name"], b["device"], DEVICE_TYPES[b["device_type"]])
                for b in p["backends"] + p["backends_after"]}
        check(bk == want, f"capture profile: backends before and after the records {bk}")
        graphs, spans = {}, {}
        for rec in p["records"]:
            if "graph_id" not in rec:
                continue
            spans.setdefault(rec["graph_id"], []).append((rec["start_ns"], rec["start_ns"] + rec["duration_ns"]))
            g = graphs.setdefault(rec["graph_id"], [0, 0, 0, 10**30, 0, 0, 0, 0, 0])
            g[0] += 1
            g[1 + rec.get("type", 0)] += 1
            g[3] = min(g[3], rec["start_ns"])
            g[4] = max(g[4], rec["start_ns"] + rec["duration_ns"])
            g[5 + rec.get("type", 0)] += rec["duration_ns"]
            g[7] += rec.get("bytes", 0)
            if rec.get("type", 0) == 0 and rec["name"] in ("MUL_MAT", "MUL_MAT_ID"):
                g[8] = max(g[8], rec["ne_src"][1][1 if rec["name"] == "MUL_MAT" else 2])
        got = {row[0]: list(row[1:]) for row in db.execute(
            "SELECT graph_id, n_records, n_ops, n_copies, start_ns, end_ns, op_ns, copy_ns, bytes, batch "
            "FROM graphs")}
        check(got == graphs, f"capture profile: graphs table equals the input's per-graph sums and batches ({len(got)})")
        check(sorted({g[8] for g in graphs.values()}) == [1, 7], "capture profile: the graphs have batches 1 and 7")
        walls = dict(db.execute("SELECT graph_id, wall_ns FROM graphs"))
        want_walls = {g: union_len(iv) for g, iv in spans.items()}
        check(walls == want_walls, "capture profile: graphs wall_ns = the union of each graph's records' spans")
        meta = dict(db.execute("SELECT key, value FROM meta").fetchall())
        check(meta.get("profiler") == "opscope" and meta.get("format_version") == 3 and
              meta.get("records") == len(p["records"]) and meta.get("source") == "cap.json",
              f"capture profile: meta {meta}")
        idx = {r[0] for r in db.execute("SELECT name FROM sqlite_master WHERE type = 'index'")}
        check({"records_by_graph", "records_by_start"} <= idx, f"capture profile: indices {sorted(idx)}")
        plan = " ".join(r[3] for r in db.execute(
            "EXPLAIN QUERY PLAN SELECT * FROM records WHERE graph_id = 101 ORDER BY node_index"))
        check("records_by_graph" in plan, f"capture profile: a graph's records come from the index ({plan})")
        db.close()

    # 2. a generated 200k-record profile: the bar query against Python's own sums
    subprocess.run([gen, "--records", "200000", "--version", "3", "-o", "big.json"], check=True,
                   capture_output=True)
    r = run(opscope, "big.json", "-q", "--json", "big.out.json", "--sqlite", "big.db")
    if check(r.returncode == 0, f"generated profile: exit {r.returncode} {r.stderr.strip()}"):
        big = load("big.json")
        db = open_db("big.db")
        check_bar_query(db, big["records"], "generated profile")
        check_views(db, load("big.out.json")["summary"], "generated profile")
        n_shapes = db.execute("SELECT count(*) FROM shapes").fetchone()[0]
        distinct = {json.dumps([srcs_of(x), x.get("out_type"), x.get("ne"), x.get("op_params")])
                    for x in big["records"]}
        check(n_shapes == len(distinct), f"generated profile: {n_shapes} shape rows, "
              f"{len(distinct)} distinct shapes in the input")
        db.close()

    # 3. a Kineto trace: kernel -> launch / CPU op links
    trace = os.path.join(ROOT, "tests", "kineto", "traces", "a100_ddp_train_rank0.json.gz")
    r = run(opscope, trace, "-q", "--json", "k.json", "--sqlite", "k.db")
    if check(r.returncode == 0, f"kineto trace: exit {r.returncode} {r.stderr.strip()}"):
        db = open_db("k.db")
        kin = load("k.json")["summary"]["kineto"]
        links = kin["links"]
        n, n_rt, n_cpu, n_enc, n_ext, n_py = db.execute(
            "SELECT count(*), count(launch_start_ns), count(cpu_op), sum(cpu_op_link = 'enclosing'), "
            "sum(cpu_op_link = 'external_id'), count(python_function) FROM kineto_links").fetchone()
        check((n, n_rt, n_cpu, n_enc, n_ext, n_py) == (
            links["kernels"], links["runtime"], links["cpu_op"], links["cpu_op_enclosing"],
            links["cpu_op_external_id"], links["python_only"]),
            f"kineto trace: kineto_links counts {(n, n_rt, n_cpu, n_enc, n_ext, n_py)} equal the "
            f"JSON summary's links")
        top = [(x[0], x[1], x[2]) for x in db.execute(
            "SELECT cpu_op, count(*), sum(duration_ns) AS ns FROM kernels WHERE cpu_op IS NOT NULL "
            "GROUP BY cpu_op ORDER BY ns DESC, cpu_op LIMIT 10")]
        want = [(x["name"], x["kernels"], x["ns"]) for x in links["top_cpu_ops"] if x["name"] is not None]
        check(top == want[:len(top)] and len(top) >= min(len(want), 10),
              "kineto trace: per-CPU-op GPU time of the kernels view equals the JSON summary's top CPU ops")
        with gzip.open(trace, "rt") as f:
            ev = json.load(f)["traceEvents"]
        kernels = [e for e in ev if e.get("ph") == "X" and e.get("cat") in ("kernel", "Kernel")]
        corr = [row[0] for row in db.execute("SELECT correlation FROM kernels ORDER BY id")]
        check(corr == [e["args"].get("correlation") for e in kernels],
              f"kineto trace: each kernel's correlation id equals the trace's ({len(corr)} kernels)")
        names = [row[0] for row in db.execute("SELECT name FROM kernels ORDER BY id")]
        check(names == [e["name"] for e in kernels], "kineto trace: kernels view rows are the trace's kernels, in order")
        launch = [tuple(x) for x in db.execute(
            "SELECT launch, count(*) FROM kineto_links GROUP BY launch ORDER BY 2 DESC")]
        check(launch and launch[0][0] == "cudaLaunchKernel", f"kineto trace: launching calls {launch[:3]}")
        db.close()

    # every test trace: the link counts of kineto_links equal the JSON summary's
    for t in sorted(os.listdir(os.path.join(ROOT, "tests", "kineto", "traces"))):
        if not t.endswith(".json.gz"):
            continue
        path = os.path.join(ROOT, "tests", "kineto", "traces", t)
        r = run(opscope, path, "-q", "--json", "t.json", "--sqlite", "t.db")
        if not check(r.returncode == 0, f"{t}: exit {r.returncode}"):
            continue
        links = load("t.json")["summary"].get("kineto", {}).get("links")
        db = open_db("t.db")
        got = tuple(db.execute(
            "SELECT count(*), count(launch_start_ns), count(cpu_op), ifnull(sum(cpu_op_link = 'enclosing'), 0), "
            "ifnull(sum(cpu_op_link = 'external_id'), 0), count(python_function), "
            "ifnull(sum(cpu_op IS NULL AND python_function IS NULL), 0) FROM kineto_links").fetchone())
        want = (0, 0, 0, 0, 0, 0, 0) if not links else (
            links["kernels"], links["runtime"], links["cpu_op"], links["cpu_op_enclosing"],
            links["cpu_op_external_id"], links["python_only"], links["none"])
        check(got == want, f"{t}: kineto_links counts {got} equal the JSON summary's {want}")
        db.close()

    # 4. the documentation's example queries run
    doc = open(os.path.join(ROOT, "docs", "formats.md")).read()
    sec = doc.split("### SQLite export", 1)[-1].split("\n## ", 1)[0]
    queries = re.findall(r"```sql\n(.*?)```", sec, re.S)
    check(len(queries) >= 4, f"docs/formats.md has {len(queries)} example queries")
    for q in queries:
        for db_path in ("cap.db", "k.db"):
            try:
                db = sqlite3.connect(db_path)
                db.execute(q).fetchall()
                ok, why = True, ""
            except sqlite3.Error as e:
                ok, why = False, str(e)
            check(ok, f"example query on {db_path}: {q.strip().splitlines()[0]} {why}")

    # 5. bad input and bad usage
    with open("bad.json", "w") as f:
        f.write('{"records": [{"name": "ADD", "duration_ns": 5}, {"name": "MUL", "duration_ns": -1}]}')
    r = run(opscope, "bad.json", "-q", "--sqlite", "bad.db")
    check(r.returncode == 2 and re.match(r"bad\.json:1:\d+: error: ", r.stderr) and r.stderr.count("\n") == 1,
          f"bad input: exit {r.returncode}, {r.stderr.strip()!r}")
    check(not os.path.exists("bad.db") and not [f for f in os.listdir(".") if ".tmp." in f],
          "bad input: no database and no temporary file left")
    # cut in the middle of a large profile: the writer thread has batches in flight
    if os.path.exists("big.json"):
        with open("big.json", "rb") as f, open("cut.json", "wb") as g:
            g.write(f.read(os.path.getsize("big.json") // 2))
        r = run(opscope, "cut.json", "-q", "--sqlite", "cut.db")
        check(r.returncode == 0 and r.stderr.startswith("opscope: warning: cut.json is cut short")
              and r.stderr.count("\n") == 1 and os.path.exists("cut.db")
              and not [f for f in os.listdir(".") if ".tmp." in f],
              f"truncated large profile: exit {r.returncode}, one warning, the records before the cut: {r.stderr!r}")
        if os.path.exists("cut.db"):
            n = open_db("cut.db").execute("SELECT COUNT(*) FROM records").fetchone()[0]
            check(0 < n < 200000, f"truncated large profile: {n} of 200000 records kept")
    with open("keep.db", "w") as f:
        f.write("old")
    r = run(opscope, "bad.json", "-q", "--sqlite", "keep.db")
    check(r.returncode == 2 and open("keep.db").read() == "old", "bad input: an existing file is left untouched")
    r = run(opscope, "cap.json", "--sqlite", "-")
    check(r.returncode == 1 and "--sqlite" in r.stderr, f"--sqlite -: exit {r.returncode}")
    r = run(opscope, "cap.json", "--json", "same.db", "--sqlite", "same.db")
    check(r.returncode == 1, f"the same file twice: exit {r.returncode}")
    r = run(opscope, "cap.json", "-q", "--sqlite", "no/such/dir/x.db")
    check(r.returncode == 2 and "no/such/dir/x.db" in r.stderr, f"unwritable path: exit {r.returncode} {r.stderr.strip()!r}")
    r = run(opscope, "cap.json", "-q", "--sqlite", "keep.db")
    check(r.returncode == 0 and open("keep.db", "rb").read(16) == b"SQLite format 3\0",
          "a good run replaces an existing file")

    sys.exit(done("sqlite export"))


if __name__ == "__main__":
    main()
