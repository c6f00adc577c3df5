#!/usr/bin/env python3
"""Interoperability with the seed tool's version-3 files, both ways.

In the seed's v3 layout `sub_op` is ggml's enum value (enum ggml_unary_op for UNARY,
enum ggml_glu_op for GLU), -1 when there is none, and its loader converts with int():
`int(r.get("sub_op", -1))`, `int(out_type)`, `int()` of each `op_params` and `type_src` entry.

- seed -> opscope: a hand-written file in the seed's layout (tests/read/data/seed_v3.json:
  "profiler": "kylin profiler", integer sub_op, 16 op_params) is read; every output names the
  sub-ops (console, text, JSON summary, SQLite, Chrome trace, HTML viewer, diff).
- opscope -> seed: opscope's JSON export goes through the seed loader's conversions (written
  out below, independent of opscope) and gives back the seed file's values; written back in
  the seed's layout (no opscope fields) it reads into the same summary.
- opscope's older files (sub_op as a string) still read, into the same summary.
- wrong sub_op values fail with a positioned error, exit 2, nothing written.

Usage: seed_v3.py OPSCOPE SEED_FILE WORKDIR
"""
import copy
import json
import os
import sqlite3
import sys

from checks import check, done
from checks import run as checks_run

# ggml.h of ggml 0.27 (Debian forky's libggml-dev): the enums' order.
UNARY = ["ABS", "SGN", "NEG", "STEP", "TANH", "ELU", "RELU", "SIGMOID", "GELU", "GELU_QUICK",
         "SILU", "HARDSWISH", "HARDSIGMOID", "EXP", "EXPM1", "SOFTPLUS", "GELU_ERF", "XIELU",
         "FLOOR", "CEIL", "ROUND", "TRUNC"]
GLU = ["REGLU", "GEGLU", "SWIGLU", "SWIGLU_OAI", "GEGLU_ERF", "GEGLU_QUICK", "SWIGLU_CLAMP"]


def run(*args):
    return checks_run(list(args), text=True)


def seed_load(path):
    """The seed loader's view of a file: its fields with its conversions (int() raises on
    a string such as "SWIGLU", which is what this guards against)."""
    with open(path) as f:
        data = json.load(f)
    recs = []
    for r in data.get("records", []):
        recs.append({
            "type": int(r.get("type", 0)), "name": r.get("name", "unknown"),
            "backend_id": int(r.get("backend_id", 0)), "split_id": int(r.get("split_id", 0)),
            "start_ns": int(r.get("start_ns", 0)), "duration_ns": int(r.get("duration_ns", 0)),
            "bytes": int(r.get("bytes", 0)), "extra": r.get("extra"),
            "n_src": int(r.get("n_src", 0)), "ne_src": [[int(x) for x in s] for s in r.get("ne_src", [])],
            "nb_src": [[int(x) for x in s] for s in r.get("nb_src", [])],
            "type_src": [int(x) for x in r.get("type_src", [])],
            "tensor_name": r.get("tensor_name"),
            "ne": [int(x) for x in r.get("ne", [0, 0, 0, 0])],
            "out_type": int(r.get("out_type", -1)),
            "op_params": [int(x) for x in r.get("op_params", [0] * 16)],
            "sub_op": int(r.get("sub_op", -1)),
        })
    backends = [{"id": int(b.get("id", 0)), "name": b.get("name", "unknown"),
                 "device": b.get("device", "unknown"), "device_type": int(b.get("device_type", 0))}
                for b in data.get("backends", [])]
    return data, recs, backends


def sub_name(name, value):
    table = {"UNARY": UNARY, "GLU": GLU}.get(name)
    return table[value] if table and 0 <= value < len(table) else None


def display(r):
    s = sub_name(r["name"], r["sub_op"])
    return r["name"] + ("(%s)" % s if s else "")


def main():
    opscope, seed_file, work = sys.argv[1], sys.argv[2], sys.argv[3]
    os.makedirs(work, exist_ok=True)
    P = lambda n: os.path.join(work, n)
    seed_data, seed_recs, seed_backends = seed_load(seed_file)
    check(seed_data["profiler"] == "kylin profiler" and seed_data["version"] == 3 and
          all(isinstance(r["sub_op"], int) and len(r["op_params"]) == 16
              for r in seed_data["records"]), "the input is in the seed's v3 layout")
    names = sorted({display(r) for r in seed_recs if r["sub_op"] >= 0})
    check(names == ["GLU(GEGLU)", "GLU(SWIGLU)", "UNARY(GELU)", "UNARY(SILU)"], "sub-ops %r" % names)

    # ---- seed -> opscope: every output names the sub-ops
    p = run(opscope, "report", seed_file, "--json", P("a.json"), "--text", P("a.txt"),
            "--sqlite", P("a.db"), "--chrome-trace", P("a.trace.json"), "--html-viewer", P("a.html"))
    if not check(p.returncode == 0, "report of the seed file: exit %d: %s" % (p.returncode, p.stderr)):
        return
    with open(P("a.txt")) as f:
        text = f.read()
    for n in names:
        check(n in p.stdout, "console shows %s" % n)
        check(n in text, "text report shows %s" % n)
    with open(P("a.json")) as f:
        a = json.load(f)
    for r, o in zip(seed_data["records"], a["records"]):
        want = sub_name(r["name"], r["sub_op"])
        if r["sub_op"] >= 0:
            check((o.get("sub_op"), o.get("sub_op_name")) == (r["sub_op"], want),
                  "export of %s: sub_op %r, sub_op_name %r" % (display(r), o.get("sub_op"), o.get("sub_op_name")))
        else:
            check(o.get("sub_op", -1) == -1 and "sub_op_name" not in o,
                  "export of %s: no sub-op (%r)" % (r["name"], o.get("sub_op")))
    for g in a["summary"]["ops"]:
        want = g["display"].split("(")[1].rstrip(")") if "(" in g["display"] else None
        table = {"UNARY": UNARY, "GLU": GLU}.get(g["name"], [])
        check((g["sub_op"], g["sub_op_name"]) == (table.index(want) if want else -1, want),
              "summary group %s: sub_op %r, sub_op_name %r" % (g["display"], g["sub_op"], g["sub_op_name"]))
    check(sorted(g["display"] for g in a["summary"]["ops"] if "(" in g["display"]) == names,
          "summary groups by sub-op name")
    db = sqlite3.connect(P("a.db"))
    rows = db.execute("SELECT name, sub_op, sub_op_value, op FROM records ORDER BY id").fetchall()
    want = [(r["name"], sub_name(r["name"], r["sub_op"]), r["sub_op"] if r["sub_op"] >= 0 else None)
            for r in seed_recs]
    check([row[:3] for row in rows] == want and
          all(row[3].startswith(display(r)) for row, r in zip(rows, seed_recs)),
          "sqlite records: name, sub_op name, sub_op_value, op %r" % rows)
    views = {r[0] for r in db.execute("SELECT display FROM op_stats")}
    check(set(names) <= views, "sqlite op_stats shows %r (%r)" % (names, views))
    db.close()
    with open(P("a.trace.json")) as f:
        tr = json.load(f)
    subs = sorted({"%s(%s)" % (e["name"] if "(" not in e["name"] else e["name"].split("(")[0],
                               e["args"]["sub_op"])
                   for e in tr["traceEvents"] if e.get("ph") == "X" and e.get("args", {}).get("sub_op")})
    check(subs == names, "chrome trace args.sub_op names %r" % subs)
    with open(P("a.html")) as f:
        html = f.read()
    check(all(n.split("(")[1][:-1] in html for n in names), "HTML viewer data names the sub-ops")

    # ---- opscope -> seed: the seed loader's conversions give back the seed file's values
    try:
        _, out_recs, out_backends = seed_load(P("a.json"))
    except (TypeError, ValueError) as e:
        check(False, "opscope's export fails the seed loader's conversions: %s" % e)
        return
    check(out_backends == seed_backends, "backends after the round trip")
    for i, (x, y) in enumerate(zip(seed_recs, out_recs)):
        diff = {k: (x[k], y[k]) for k in x if x[k] != y[k]}
        check(not diff, "record %d through opscope, as the seed loads it: %r" % (i, diff))
    check(len(out_recs) == len(seed_recs), "record count")

    # ... and written back in the seed's layout (opscope's own fields dropped), the same summary
    b = {"profiler": "kylin profiler", "version": 3, "backends": seed_backends,
         "records": [{k: v for k, v in r.items()} for r in out_recs],
         "total_records": len(out_recs), "total_ns": sum(r["duration_ns"] for r in out_recs)}
    with open(P("b.json"), "w") as f:
        json.dump(b, f)
    p = run(opscope, "report", P("b.json"), "--json", P("b_out.json"), "-q")
    if check(p.returncode == 0, "report of the seed-written file: %s" % p.stderr):
        with open(P("b_out.json")) as f:
            check(json.load(f)["summary"] == a["summary"], "seed-written file: the same summary")

    # ---- opscope's older files: sub_op as a string (none when absent)
    old = copy.deepcopy(seed_data)
    old["profiler"] = "ggml"
    for r in old["records"]:
        v = r.pop("sub_op")
        if v >= 0:
            r["sub_op"] = sub_name(r["name"], v)
    with open(P("old.json"), "w") as f:
        json.dump(old, f)
    p = run(opscope, "report", P("old.json"), "--json", P("old_out.json"), "-q")
    if check(p.returncode == 0, "report of an older opscope file: %s" % p.stderr):
        with open(P("old_out.json")) as f:
            o = json.load(f)
        check(o["summary"] == a["summary"], "older opscope file: the same summary")
        check([(r.get("sub_op"), r.get("sub_op_name")) for r in o["records"]] ==
              [(r.get("sub_op"), r.get("sub_op_name")) for r in a["records"]],
              "older opscope file: re-exported with integer sub_op and its name")

    # ---- diff across the layouts: the same groups, named
    p = run(opscope, "diff", seed_file, P("old.json"), "--json", P("d.json"), "-q")
    if check(p.returncode == 0, "diff seed vs older file: %s" % p.stderr):
        with open(P("d.json")) as f:
            d = f.read()
        check(all(n in d for n in names), "diff JSON names the sub-ops")

    # ---- wrong values: a positioned error, exit 2, nothing written
    for bad, msg in (("1.5", "not a fraction"), ("true", "expected an integer or a string"),
                     ("-2", "out of range"), ("[10]", "expected an integer or a string"),
                     ("2147483648", "out of range")):
        doc = json.dumps(seed_data).replace('"sub_op": 10', '"sub_op": ' + bad, 1)
        with open(P("bad.json"), "w") as f:
            f.write(doc)
        out = P("bad_out.json")
        p = run(opscope, "report", P("bad.json"), "--json", out, "-q")
        check(p.returncode == 2 and msg in p.stderr and "bad.json:1:" in p.stderr and
              not os.path.exists(out), "sub_op %s: exit %d, %r" % (bad, p.returncode, p.stderr.strip()))


main()
sys.exit(done("seed v3 interoperability"))
