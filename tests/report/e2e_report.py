#!/usr/bin/env python3
"""End-to-end test of `opscope report`: seeded random ggml profiles (versions 2 and 3), the
expected report computed here independently (standard library only), compared exactly with
the --json summary; the JSON export read back gives the same numbers; the Chrome trace is
valid JSON at real timestamps with no overlap on a track; bad inputs exit 2 with a one-line
positioned error and leave no file behind.

usage: e2e_report.py OPSCOPE_BINARY WORKDIR
"""
import json
import os
import random
import re
import shutil
import sys
from decimal import Decimal

import checks
from checks import check, done, run

checks.print_ok = False  # field-by-field checks over thousands of records: failures only


# --------------------------------------------------------------------------------------------
# Profile generation

OPS = ["MUL_MAT", "MUL_MAT_ID", "FLASH_ATTN_EXT", "ADD", "MUL", "RMS_NORM", "UNARY", "GLU",
       "ROPE", "SOFT_MAX", "GET_ROWS", "CPY", "CONV_2D"]
COPIES = ["copy_H2D", "copy_D2H", "copy_D2D"]
SUBS = {"UNARY": ["SILU", "GELU"], "GLU": ["SWIGLU", "GEGLU"]}
# their values in ggml's enum ggml_unary_op / ggml_glu_op (ggml.h of ggml 0.27)
SUB_VALUES = {"SILU": 10, "GELU": 8, "SWIGLU": 2, "GEGLU": 1}
SUB_NAMES = {(op, SUB_VALUES[n]): n for op, names in SUBS.items() for n in names}


def sub_of(r):
    """(value, name) of a record's sub-op in any of the layouts: the seed's v3 integer (-1 for
    none), opscope's older name, opscope's integer with "sub_op_name"."""
    v = r.get("sub_op")
    if v is None:
        return None
    if isinstance(v, str):
        return (SUB_VALUES.get(v, -1), v)
    if v < 0:
        return None
    return (v, r.get("sub_op_name", SUB_NAMES.get((r["name"], v))))


def sub_name(r):
    s = sub_of(r)
    return s[1] if s else None


def rand_shape(rng, op):
    r = lambda *c: rng.choice(c)
    if op == "MUL_MAT":
        k, m, n = r(64, 128, 4096), r(32, 256, 11008), r(1, 7, 512)
        return [[k, m, 1, 1], [k, n, r(1, 4), 1]]
    if op == "MUL_MAT_ID":
        k, m, e, used, tok = r(64, 2048), r(32, 768), 16, r(2, 4), r(1, 9)
        return [[k, m, e, 1], [k, used, tok, 1], [used, tok, 1, 1]]
    if op == "FLASH_ATTN_EXT":
        d, nq, h, nkv = r(64, 128), r(1, 7), r(8, 32), r(256, 1024)
        return [[d, nq, h, 1], [d, nkv, h // 4, 1], [d, nkv, h // 4, 1]]
    if op == "CONV_2D":
        return [[3, 3, 16, 32], [28, 28, 16, 1]]
    return [[r(2048, 4096), r(1, 7), 1, 1], [r(2048, 4096), 1, 1, 1]]


def make_records(rng, version, n):
    recs = []
    t = 10**12 + rng.randrange(10**9)
    for i in range(n):
        is_copy = rng.random() < 0.12
        backend = rng.choice([0, 0, 1, 2, 5])
        split = rng.choice([0, 1, 2])
        name = rng.choice(COPIES) if is_copy else rng.choice(OPS)
        # durations with deliberate ties, sometimes long
        dur = rng.choice([rng.randrange(1, 5000), 1000, 2000, rng.randrange(1, 10**6)])
        # overlaps on one track now and then (GPU-like async), never moved by the exporter
        if rng.random() < 0.1:
            start = t - rng.randrange(0, 3000)
        else:
            t += rng.randrange(0, 5000)
            start = t
        t = max(t, start + dur)
        nbytes = rng.choice([0, rng.randrange(1, 10**7)]) if not is_copy else rng.randrange(1, 10**8)
        rec = {"type": 1 if is_copy else 0, "name": name, "backend_id": backend, "split_id": split,
               "start_ns": start, "duration_ns": dur, "bytes": nbytes,
               "extra": rng.choice([None] * 6 + ["ADD+RMS_NORM", "MUL_MAT+ADD"]) if not is_copy else None}
        shapes = rand_shape(rng, name) if not is_copy else [[rng.randrange(1, 4096), 1, 1, 1]]
        if version == 2:
            for k in range(3):
                rec["ne_src%d" % k] = shapes[k] if k < len(shapes) else [0, 0, 0, 0]
            if rng.random() < 0.05:  # the oldest files named src0's shape "ne"
                rec["ne"] = rec.pop("ne_src0")
        else:
            rec["n_src"] = len(shapes)
            rec["ne_src"] = shapes
            rec["nb_src"] = [[4, 4 * s[0], 4 * s[0] * s[1], 4 * s[0] * s[1] * s[2]] for s in shapes]
            rec["type_src"] = [rng.choice([0, 1, 2, 8, 12]) for _ in shapes]
            rec["tensor_name"] = rng.choice(["ffn_up-%d" % (i % 7), "attn_norm-3", "x \"q\" \u00e9"])
            out = list(shapes[0])
            if name == "CONV_2D":
                out = [26, 26, 32, 1]
            rec["ne"] = out
            rec["out_type"] = 0
            rec["op_params"] = [rng.randrange(-5, 5) for _ in range(16)]
            rec["sub_op"] = rng.choice(SUBS[name]) if name in SUBS else None
            if rng.random() < 0.5:  # the seed's v3 form: ggml's enum value, -1 for none
                rec["sub_op"] = SUB_VALUES[rec["sub_op"]] if rec["sub_op"] else -1
            if rng.random() < 0.5:  # opscope's own additions
                rec["graph_id"] = rng.randrange(0, 50)
                rec["node_index"] = rng.randrange(0, 900)
                rec["thread_id"] = rng.randrange(0, 4)
                rec["host_start_ns"] = start - rng.randrange(0, 500)
                rec["host_end_ns"] = start + dur + rng.randrange(0, 500)
                if rng.random() < 0.3:
                    rec["n_fused"] = rng.randrange(2, 4)
                if rng.random() < 0.2 and not is_copy:
                    rec["flops"] = rng.randrange(0, 10**12)  # given by the capture: used as is
                if rng.random() < 0.1:
                    rec["category"] = rng.choice(["gemm", "elementwise"])
        recs.append(rec)
    return recs


def write_profile(path, version, recs, described=(0, 1, 2)):
    names = {0: ("Vulkan0", "llvmpipe (LLVM 15)", 1), 1: ("CPU", "AMD EPYC", 0), 2: ("BLAS", "OpenBLAS", 2)}
    doc = {"profiler": "ggml", "version": version,
           "backends": [{"id": b, "name": names[b][0], "device": names[b][1], "device_type": names[b][2]}
                        for b in described],
           "records": recs, "total_records": len(recs), "total_ns": sum(r["duration_ns"] for r in recs)}
    with open(path, "w") as f:
        json.dump(doc, f, indent=1)


# --------------------------------------------------------------------------------------------
# The expected report, from the documented semantics (docs/metrics.md)

def srcs(rec):
    if "ne_src" in rec:
        return [list(s) for s in rec["ne_src"]]
    s = [rec.get("ne_src%d" % k, [0, 0, 0, 0]) for k in range(3)]
    if "ne_src0" not in rec and "ne" in rec and "n_src" not in rec:
        s[0] = rec["ne"]
    return s


def flops(rec):
    if "flops" in rec:
        return rec["flops"]
    if rec["type"] != 0:
        return 0
    s = srcs(rec)
    present = lambda i: i < len(s) and s[i][0] > 0
    one = lambda v: v if v > 0 else 1
    name = rec["name"]
    if name == "MUL_MAT" and present(0) and present(1):
        return 2 * s[0][0] * s[0][1] * s[1][1] * one(s[1][2]) * one(s[1][3])
    if name == "MUL_MAT_ID" and present(0) and present(1):
        if present(2):
            used, tok = s[2][0], one(s[2][1])
        else:
            used, tok = one(s[1][1]), one(s[1][2])
        return 2 * s[0][0] * s[0][1] * used * tok
    if name == "FLASH_ATTN_EXT" and present(0) and present(1):
        d = s[0][0]
        dv = s[2][0] if present(2) else d
        return 2 * (d + dv) * s[0][1] * s[1][1] * one(s[0][2]) * one(s[0][3])
    if name == "CONV_2D" and present(0) and present(1) and "n_src" in rec and "ne" in rec:
        k, x, o = s[0], s[1], rec["ne"]
        return 2 * k[0] * one(k[1]) * one(k[2]) * one(k[3]) * o[0] * one(o[1]) * one(x[3])
    return 0


def expected(recs):
    groups = {}
    order = []
    for i, r in enumerate(recs):
        key = (r["name"], sub_name(r), r.get("extra"), r["type"], r["backend_id"])
        g = groups.get(key)
        d = r["duration_ns"]
        if g is None:
            g = groups[key] = {"count": 0, "total_ns": 0, "min_ns": d, "max_ns": d, "bytes": 0,
                               "flops": 0, "rep": None}
            order.append(key)
        g["count"] += 1
        g["total_ns"] += d
        g["min_ns"] = min(g["min_ns"], d)
        if d >= g["max_ns"] or g["rep"] is None:
            g["max_ns"] = max(g["max_ns"], d)
            g["rep"] = srcs(r)
        g["bytes"] += r["bytes"]
        g["flops"] += flops(r)
    backends = {}
    for r in recs:
        b = backends.setdefault(r["backend_id"], {"n_ops": 0, "op_ns": 0, "op_bytes": 0, "op_flops": 0,
                                                  "n_copies": 0, "copy_ns": 0, "copy_bytes": 0,
                                                  "first_start_ns": None, "last_end_ns": None})
        if r["type"] == 1:
            b["n_copies"] += 1
            b["copy_ns"] += r["duration_ns"]
            b["copy_bytes"] += r["bytes"]
        else:
            b["n_ops"] += 1
            b["op_ns"] += r["duration_ns"]
            b["op_bytes"] += r["bytes"]
            b["op_flops"] += flops(r)
        s, e = r["start_ns"], r["start_ns"] + r["duration_ns"]
        b["first_start_ns"] = s if b["first_start_ns"] is None else min(b["first_start_ns"], s)
        b["last_end_ns"] = e if b["last_end_ns"] is None else max(b["last_end_ns"], e)
    copies = {}
    for (name, sub, extra, typ, bk), g in groups.items():
        if typ != 1:
            continue
        c = copies.setdefault(name, {"count": 0, "total_ns": 0, "bytes": 0})
        for k in c:
            c[k] += g[k]
    ineff = sorted([k for k in order if k[3] == 0 and groups[k]["bytes"] > 0],
                   key=lambda k: groups[k]["total_ns"] / groups[k]["bytes"], reverse=True)
    top = sorted(range(len(recs)), key=lambda i: recs[i]["duration_ns"], reverse=True)
    totals = {"n_records": len(recs), "n_ops": sum(r["type"] == 0 for r in recs),
              "n_copies": sum(r["type"] == 1 for r in recs),
              "total_ns": sum(r["duration_ns"] for r in recs),
              "copy_ns": sum(r["duration_ns"] for r in recs if r["type"] == 1),
              "bytes": sum(r["bytes"] for r in recs),
              "copy_bytes": sum(r["bytes"] for r in recs if r["type"] == 1),
              "flops": sum(flops(r) for r in recs),
              "first_start_ns": min(r["start_ns"] for r in recs),
              "last_end_ns": max(r["start_ns"] + r["duration_ns"] for r in recs),
              "unique_ops": len(groups)}
    return groups, backends, copies, ineff, top, totals


def compare_summary(tag, recs, summ, n_top):
    groups, backends, copies, ineff, top, totals = expected(recs)
    for k, v in totals.items():
        check(summ[k] == v, "%s: totals %s %r != %r" % (tag, k, summ[k], v))
    got = {}
    for o in summ["ops"]:
        check(o["sub_op"] == (SUB_VALUES.get(o["sub_op_name"], -1)),
              "%s: group %s: sub_op %r for %r" % (tag, o["display"], o["sub_op"], o["sub_op_name"]))
        got[(o["name"], o["sub_op_name"], o["extra"], o["type"], o["backend_id"])] = o
    check(set(got) == set(groups), "%s: group keys differ: %r" % (tag, set(got) ^ set(groups)))
    for key, g in groups.items():
        o = got.get(key)
        if not o:
            continue
        for f in ("count", "total_ns", "min_ns", "max_ns", "bytes", "flops"):
            check(o[f] == g[f], "%s: %r %s %r != %r" % (tag, key, f, o[f], g[f]))
        check(o["avg_ns"] == g["total_ns"] / g["count"], "%s: %r avg" % (tag, key))
        bw = g["bytes"] / g["total_ns"] if g["total_ns"] else 0
        check(o["bandwidth_gbps"] == bw, "%s: %r bandwidth %r != %r" % (tag, key, o["bandwidth_gbps"], bw))
        gf = g["flops"] / g["total_ns"] if g["total_ns"] else 0
        check(o["gflops_per_s"] == gf, "%s: %r gflops" % (tag, key))
        n = o["shape"]["n_src"]
        check([list(x) for x in o["shape"]["ne_src"]] == g["rep"][:n] and
              all(x == [0, 0, 0, 0] for x in g["rep"][n:]),
              "%s: %r representative shape %r != %r" % (tag, key, o["shape"]["ne_src"], g["rep"]))
    totals_sorted = [o["total_ns"] for o in summ["ops"]]
    check(totals_sorted == sorted(totals_sorted, reverse=True), tag + ": ops not sorted by total")
    # per backend
    gb = {b["id"]: b for b in summ["backends"]}
    for bid, b in backends.items():
        check(bid in gb, "%s: backend %d missing" % (tag, bid))
        for f, v in b.items():
            check(gb.get(bid, {}).get(f) == v, "%s: backend %d %s %r != %r" % (tag, bid, f, gb.get(bid, {}).get(f), v))
        if bid in gb:
            bw = b["copy_bytes"] / b["copy_ns"] if b["copy_ns"] else 0
            check(gb[bid]["copy_bandwidth_gbps"] == bw, "%s: backend %d copy bandwidth" % (tag, bid))
    # copies by direction
    gc = {c["name"]: c for c in summ["copies"]}
    check(set(gc) == set(copies), tag + ": copy directions differ")
    for name, c in copies.items():
        for f, v in c.items():
            check(gc.get(name, {}).get(f) == v, "%s: copies %s %s" % (tag, name, f))
    # inefficiency order (ties broken by total; compare the ratio sequence)
    ratios = [o["total_ns"] / o["bytes"] for o in summ["inefficiency"]]
    check(ratios == [groups[k]["total_ns"] / groups[k]["bytes"] for k in ineff],
          tag + ": inefficiency ranking")
    check(all(o["type"] == 0 and o["bytes"] > 0 for o in summ["inefficiency"]), tag + ": inefficiency filter")
    # top kernels: stable sort by duration, longest first
    tk = summ["top_kernels"]
    check(len(tk) == min(n_top, len(recs)), tag + ": top kernel count")
    for j, o in enumerate(tk):
        r = recs[top[j]]
        check((o["start_ns"], o["duration_ns"], o["name"], o["backend_id"]) ==
              (r["start_ns"], r["duration_ns"], r["name"], r["backend_id"]),
              "%s: top kernel %d: %r vs %r" % (tag, j, o, r))
        check(o["flops"] == flops(r), "%s: top kernel %d flops" % (tag, j))
        want_sub = sub_of(r) or (-1, None)
        check((o["sub_op"], o["sub_op_name"]) == want_sub,
              "%s: top kernel %d sub_op %r" % (tag, j, (o["sub_op"], o["sub_op_name"])))


def norm_record(r, version):
    """The fields a record carries, in a comparable form (v2 shapes as ne_src lists)."""
    out = {k: r.get(k) for k in ("type", "name", "backend_id", "split_id", "start_ns", "duration_ns",
                                 "bytes", "extra")}
    out["ne_src"] = [list(s) for s in srcs(r)]
    while out["ne_src"] and out["ne_src"][-1] == [0, 0, 0, 0]:
            out["ne_src"].pop()
    if sub_of(r):
        out["sub_op"] = sub_of(r)
    for k in ("nb_src", "type_src", "tensor_name", "ne", "out_type", "op_params",
              "graph_id", "node_index", "n_fused", "thread_id", "host_start_ns", "host_end_ns",
              "flops", "category"):
        if k == "ne" and version == 2:
            continue
        if r.get(k) is not None:
            out[k] = r[k]
    return out


def check_chrome(tag, path, recs):
    with open(path) as f:
        text = f.read()
    doc = json.loads(text, parse_float=Decimal)
    evs = doc["traceEvents"]
    xs = [e for e in evs if e["ph"] == "X"]
    check(len(xs) == len(recs), "%s: %d X events for %d records" % (tag, len(xs), len(recs)))
    pid_of = {}
    for e, r in zip(xs, recs):
        ts = Decimal(e["ts"]) if not isinstance(e["ts"], Decimal) else e["ts"]
        check(ts == Decimal(r["start_ns"]) / 1000, "%s: ts %s != %d/1000" % (tag, e["ts"], r["start_ns"]))
        dur = e["dur"] if isinstance(e["dur"], Decimal) else Decimal(e["dur"])
        check(dur == Decimal(r["duration_ns"]) / 1000, tag + ": dur")
        check(e["cat"] == ("copy" if r["type"] == 1 else "compute"), tag + ": category")
        check(e["args"]["bytes"] == r["bytes"], tag + ": args.bytes")
        check(e["args"].get("flops", 0) == flops(r), tag + ": args.flops")
        check(pid_of.setdefault(r["backend_id"], e["pid"]) == e["pid"], tag + ": one pid per backend")
    check(len(set(pid_of.values())) == len(pid_of), tag + ": distinct pids per backend")
    # no overlap on one (pid, tid)
    tracks = {}
    for e in xs:
        tracks.setdefault((e["pid"], e["tid"]), []).append((Decimal(e["ts"]), Decimal(e["dur"])))
    for k, v in tracks.items():
        v.sort()
        for (a, da), (b, _) in zip(v, v[1:]):
            if a + da > b:
                check(False, "%s: overlap on %r at %s" % (tag, k, b))
                break
    names = [e for e in evs if e["ph"] == "M" and e["name"] == "process_name"]
    check(len(names) == len(pid_of), tag + ": process_name per backend")
    check(any("llvmpipe" in e["args"]["name"] for e in names), tag + ": process named after device")
    tnames = {(e["pid"], e["tid"]) for e in evs if e["ph"] == "M" and e["name"] == "thread_name"}
    check(set(tracks) <= tnames, tag + ": every track named")


def chrome_names(opscope, work):
    """Two backends with one name on one device (two schedulers, a merged run) get two
    distinct Perfetto process names; records outside any split sit on a lane not called
    'split -1'."""
    doc = {"profiler": "ggml", "version": 3,
           "backends": [{"id": b, "name": "CPU", "device": "AMD EPYC", "device_type": 0} for b in (0, 1)],
           "records": [{"type": 0, "name": "ADD", "backend_id": b, "split_id": -1 if b else 0,
                        "start_ns": 100 * b, "duration_ns": 50, "bytes": 4} for b in (0, 1)]}
    src = os.path.join(work, "samename.json")
    with open(src, "w") as f:
        json.dump(doc, f)
    tr = os.path.join(work, "samename_trace.json")
    p = run([opscope, "report", src, "--chrome-trace", tr, "-q"])
    check(p.returncode == 0, "same-name backends: exit %d: %s" % (p.returncode, p.stderr.decode()))
    if p.returncode != 0:
        return
    with open(tr) as f:
        evs = json.load(f)
    evs = evs["traceEvents"] if isinstance(evs, dict) else evs
    names = [e["args"]["name"] for e in evs if e["ph"] == "M" and e["name"] == "process_name"]
    check(len(names) == 2 and len(set(names)) == 2, "same-name backends: distinct process names: %r" % names)
    lanes = [e["args"]["name"] for e in evs if e["ph"] == "M" and e["name"] == "thread_name"]
    check(lanes and not any("-1" in n for n in lanes), "no lane named split -1: %r" % lanes)


def chrome_lanes(opscope, work):
    """Lanes by backend, splits collapsed (a lane per split gives whisper 34 lanes, most with
    one bar): a scheduler's splits alternating between two backends give one compute lane per
    backend and one for copies; --chrome-splits gives one per split again."""
    recs, t = [], 1000
    for i in range(12):
        b = i % 2
        for op in ("MUL_MAT", "ADD", "RMS_NORM"):
            recs.append({"type": 0, "name": op, "backend_id": b, "split_id": i, "start_ns": t,
                         "duration_ns": 40, "bytes": 4})
            t += 50
        recs.append({"type": 1, "name": "copy_H2D", "backend_id": b, "split_id": i, "start_ns": t,
                     "duration_ns": 10, "bytes": 64})
        t += 20
    doc = {"profiler": "ggml", "version": 3,
           "backends": [{"id": 0, "name": "CPU", "device": "AMD EPYC", "device_type": 0},
                        {"id": 1, "name": "BLAS", "device": "BLAS", "device_type": 2}],
           "records": recs}
    src = os.path.join(work, "splits.json")
    with open(src, "w") as f:
        json.dump(doc, f)
    want = {False: len({(r["backend_id"], r["type"]) for r in recs}),
            True: len({(r["backend_id"], r["split_id"] if r["type"] == 0 else "copies") for r in recs})}
    for per_split in (False, True):
        tr = os.path.join(work, "splits_trace_%d.json" % per_split)
        p = run([opscope, "report", src, "--chrome-trace", tr, "-q"] + (["--chrome-splits"] if per_split else []))
        check(p.returncode == 0, "splits: exit %d: %s" % (p.returncode, p.stderr.decode()))
        if p.returncode != 0:
            continue
        with open(tr) as f:
            evs = json.load(f)["traceEvents"]
        lanes = {(e["pid"], e["tid"]): e["args"]["name"] for e in evs if e["ph"] == "M" and e["name"] == "thread_name"}
        used = {(e["pid"], e["tid"]) for e in evs if e["ph"] == "X"}
        check(len(lanes) == want[per_split] and used == set(lanes),
              "splits%s: %d lanes, want %d: %r" % (" (--chrome-splits)" if per_split else "", len(lanes),
                                                   want[per_split], sorted(lanes.values())))
        xs = [e for e in evs if e["ph"] == "X"]
        check(len(xs) == len(recs), "splits: %d events for %d records" % (len(xs), len(recs)))


def main():
    opscope, work = sys.argv[1], sys.argv[2]
    shutil.rmtree(work, ignore_errors=True)
    os.makedirs(work)
    for version, seed, n in ((2, 1, 3000), (3, 2, 3000), (2, 3, 1), (3, 4, 200)):
        rng = random.Random(seed)
        recs = make_records(rng, version, n)
        tag = "v%d/seed%d" % (version, seed)
        src = os.path.join(work, "in_%s.json" % seed)
        write_profile(src, version, recs)
        out_json = os.path.join(work, "out_%s.json" % seed)
        out_txt = os.path.join(work, "out_%s.txt" % seed)
        out_tr = os.path.join(work, "trace_%s.json" % seed)
        out_html = os.path.join(work, "view_%s.html" % seed)
        p = run([opscope, "report", src, "--json", out_json, "--text", out_txt, "--chrome-trace",
                 out_tr, "--html-viewer", out_html, "--top-kernels", "7", "--by-shape", "-q"])
        check(p.returncode == 0, "%s: exit %d: %s" % (tag, p.returncode, p.stderr.decode()))
        if p.returncode != 0:
            continue
        check(p.stdout == b"", tag + ": -q printed to stdout")
        with open(out_html, "rb") as f:
            check(f.read(15).lower().startswith(b"<!doctype html"), tag + ": HTML viewer written")
        with open(out_json) as f:
            doc = json.load(f)
        compare_summary(tag, recs, doc["summary"], 7)
        # by-shape groups partition the records
        check(sum(o["count"] for o in doc["summary"]["by_shape"]) == n, tag + ": by-shape counts")
        # the records round-trip
        check(len(doc["records"]) == n, tag + ": record count in export")
        for a, b in zip(recs, doc["records"]):
            na, nb = norm_record(a, version), norm_record(b, 3)
            if na != nb:
                check(False, "%s: record differs after export:\n %r\n %r" % (tag, na, nb))
                break
        # ... and reading the export back gives identical numbers
        out2 = os.path.join(work, "out2_%s.json" % seed)
        p = run([opscope, "report", out_json, "--json", out2, "--top-kernels", "7", "--by-shape", "-q"])
        check(p.returncode == 0, "%s: re-read exit %d: %s" % (tag, p.returncode, p.stderr.decode()))
        if p.returncode == 0:
            with open(out2) as f:
                doc2 = json.load(f)
            check(doc2["summary"] == doc["summary"], tag + ": summary differs after round trip")
            check(doc2["records"] == doc["records"], tag + ": records differ after round trip")
        with open(out_txt) as f:
            txt = f.read()
        for h in ("Profiling Summary", "Per-Backend Summary", "Operations"):
            check(h in txt, "%s: text section %s" % (tag, h))
        for o in doc["summary"]["ops"]:
            check(o["display"] in txt, "%s: text lists %s" % (tag, o["display"]))
        check_chrome(tag, out_tr, recs)
        # console summary on stdout
        p = run([opscope, "report", src, "--top-ops", "3", "--top-kernels", "2", "--inefficiency"])
        out = p.stdout.decode()
        check(p.returncode == 0 and "Top 2 Longest" in out, tag + ": console summary")
        check(("more rows" in out) == (len(doc["summary"]["ops"]) > 3), tag + ": --top-ops 3")
        # stdin
        with open(src, "rb") as f:
            p = run([opscope, "report", "-", "--json", os.path.join(work, "stdin.json"), "-q"], stdin=f)
        check(p.returncode == 0, tag + ": stdin")

    chrome_names(opscope, work)
    chrome_lanes(opscope, work)
    bad_inputs(opscope, work)
    usage_errors(opscope, work)
    return done("report e2e")


def bad_inputs(opscope, work):
    good = '{"profiler":"ggml","version":2,"backends":[],"records":[{"type":0,"name":"ADD","backend_id":0,"split_id":0,"start_ns":1,"duration_ns":2,"bytes":3,"extra":null,"ne_src0":[1,1,1,1]}]}'
    cases = {
        "empty": "",
        "spaces": "   \n",
        "not_json": "hello",
        "wrong_type_records": '{"profiler":"ggml","version":2,"records":5}',
        "wrong_type_duration": good.replace('"duration_ns":2', '"duration_ns":"2"'),
        "negative_duration": good.replace('"duration_ns":2', '"duration_ns":-2'),
        "huge_number": good.replace('"duration_ns":2', '"duration_ns":123456789012345678901234567890'),
        "float_huge": good.replace('"bytes":3', '"bytes":1e400'),
        "trailing_garbage": good + "x",
        "bad_escape": good.replace('"ADD"', '"A\\qD"'),
        "record_not_object": '{"profiler":"ggml","version":2,"records":[5]}',
        "backends_not_array": good.replace('"backends":[]', '"backends":{"x":1}'),
        # cut short before its first complete record: nothing to report
        "cut_before_first_record": good[: len(good) // 2],
        # llama-bench's own outputs (-o json, jsonl, sql, csv, md; their first lines as
        # llama-bench writes them) and another tool's JSON are named: the user learns what was given
        "llama_bench_json": '[\n  {\n    "build_commit": "unknown",\n    "build_number": 0,\n'
                            '    "model_filename": "/models/a.gguf",\n    "n_prompt": 16,\n'
                            '    "avg_ts": 10.5\n  }\n]\n',
        "llama_bench_jsonl": '{"build_commit": "unknown", "build_number": 0, "n_prompt": 16}\n'
                             '{"build_commit": "unknown", "build_number": 0, "n_prompt": 0}\n',
        "llama_bench_sql": 'CREATE TABLE IF NOT EXISTS test (\n  build_commit TEXT,\n  build_number INTEGER\n);\n',
        "llama_bench_csv": 'build_commit,build_number,cpu_info\n"unknown","0","x"\n',
        "llama_bench_md": '| model | size | params | backend | threads | test | t/s |\n',
        "other_json_array": '[{"id": 1, "value": 2}, {"id": 2}]',
    }
    for name, content in cases.items():
        src = os.path.join(work, "bad_%s.json" % name)
        with open(src, "w") as f:
            f.write(content)
        outdir = os.path.join(work, "bad_out_%s" % name)
        os.makedirs(outdir)
        p = run([opscope, "report", src, "--json", os.path.join(outdir, "a.json"), "--text",
                 os.path.join(outdir, "a.txt"), "--chrome-trace", os.path.join(outdir, "t.json"),
                 "--html-viewer", os.path.join(outdir, "v.html")])
        err = p.stderr.decode()
        check(p.returncode == 2, "bad input %s: exit %d (%s)" % (name, p.returncode, err.strip()))
        lines = err.strip().split("\n")
        check(len(lines) == 1, "bad input %s: %d lines of error: %r" % (name, len(lines), err))
        check(re.match(r"^.+(:\d+:\d+: error: |: byte \d+: error: ).+", lines[0]) is not None,
              "bad input %s: no position in %r" % (name, lines[0]))
        check(os.listdir(outdir) == [], "bad input %s: left files %r" % (name, os.listdir(outdir)))
        check(p.stdout == b"", "bad input %s: printed a summary" % name)
        if name.startswith("llama_bench"):
            fmt = name.split("_")[-1]
            check("llama-bench's results (-o %s)" % fmt in lines[0], "bad input %s: named (%r)" % (name, lines[0]))
        if name == "cut_before_first_record":
            check("before its first complete record" in lines[0], "bad input %s: said (%r)" % (name, lines[0]))
    # a directory is a distributed job; one of ggml profiles only: one line that says
    # so once, exit 2
    gdir = os.path.join(work, "ggml_dir")
    os.makedirs(gdir, exist_ok=True)
    for i in range(3):
        with open(os.path.join(gdir, "p%d.json" % i), "w") as f:
            f.write(good)
    p = run([opscope, "report", gdir])
    err = p.stderr.decode()
    check(p.returncode == 2 and err.count("\n") == 1 and err.count("directory") == 1 and "Is a directory" not in err,
          "a directory: exit %d, %r" % (p.returncode, err))
    # a profile cut short is read up to its cut: exit 0, one warning, the records before it
    for name, content, n in (("truncated_end", good[:-1], 1),):
        src = os.path.join(work, "cut_%s.json" % name)
        with open(src, "w") as f:
            f.write(content)
        out = os.path.join(work, "cut_%s.out.json" % name)
        p = run([opscope, "report", src, "--json", out, "-q"])
        err = p.stderr.decode()
        check(p.returncode == 0 and err.count("\n") == 1 and "is cut short at byte %d" % len(content) in err,
              "%s: exit %d, one warning with the cut (%r)" % (name, p.returncode, err))
        check(json.load(open(out))["total_records"] == n, "%s: the %d records before the cut" % (name, n))
    # a missing file is bad input too
    p = run([opscope, "report", os.path.join(work, "does-not-exist.json")])
    check(p.returncode == 2 and p.stderr.count(b"\n") == 1, "missing input: exit %d" % p.returncode)


def usage_errors(opscope, work):
    # two inputs are a job (docs/job.md), which takes no single-trace output
    for args in (["report"], ["report", "a", "b", "--text", "t.txt"], ["report", "x.json", "--top-ops", "abc"],
                 ["report", "x.json", "--frobnicate"], ["report", "x.json", "--json"],
                 ["report", "x.json", "--json", "same", "--text", "same"]):
        p = run([opscope] + args)
        check(p.returncode == 1, "usage %r: exit %d" % (args, p.returncode))
    p = run([opscope, "report", "--help"])
    check(p.returncode == 0 and b"--chrome-trace" in p.stdout, "report --help")


if __name__ == "__main__":
    sys.exit(main())
