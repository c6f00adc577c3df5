#!/usr/bin/env python3
"""test_view_cli.py OPSCOPE WORKDIR - `opscope view` end to end on profiles written here.

Expected values come from the profiles this script writes, decoded from the page by the
independent decoder in viewer_data.py.
"""
import json
import os
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from viewer_data import decode  # noqa: E402

opscope, work = sys.argv[1], sys.argv[2]
os.makedirs(work, exist_ok=True)
os.chdir(work)
for f in os.listdir("."):
    os.remove(f)
failures = 0
INJ = "</script><img src=x onerror=alert(1)>"


def check(cond, what, detail=None):
    global failures
    print(("ok   " if cond else "FAIL ") + what + ("" if cond or detail is None else ": %r" % (detail,)))
    failures += not cond


def run(*args, stdin=None):
    p = subprocess.run([opscope, "view", *args], input=stdin, capture_output=True)
    return p.returncode, p.stdout.decode(), p.stderr.decode()


# A version-3 profile: two backends, ops on two splits, a copy, tensor names, a sub-op.
recs = []
for i in range(100):
    recs.append({"type": 0, "name": "MUL_MAT" if i % 3 else "UNARY", "sub_op": None if i % 3 else "SILU",
                 "backend_id": i % 2, "split_id": i % 4 // 2, "start_ns": 10**12 + i * 5000 + (i % 2) * 700,
                 "duration_ns": 1000 + i * 7, "bytes": 4096 * (i % 5 + 1), "extra": None,
                 "tensor_name": "blk.%d.x" % (i % 4), "n_src": 2,
                 "ne_src": [[4096, 4096, 1, 1], [4096, 1 + i % 2, 1, 1]], "node_index": i})
# a device-timed record of the Vulkan layer: its kernels reach the page (the tooltip's Kernels line)
recs.append({"type": 0, "name": "FLASH_ATTN_EXT", "backend_id": 0, "split_id": 1, "start_ns": 10**12 + 7,
             "duration_ns": 2500, "bytes": 1024, "extra": None, "n_src": 0, "ne_src": [],
             "kernel": "flash_attn_f32_f16_aligned+fa_split_k_reduce", "n_kernels": 2, "time_source": "device"})
recs.append({"type": 1, "name": "copy_H2D", "backend_id": 0, "split_id": 0, "start_ns": 10**12 + 3,
             "duration_ns": 900, "bytes": 1 << 20, "extra": None, "n_src": 0, "ne_src": []})
recs.append({"type": 0, "name": INJ, "backend_id": 1, "split_id": 0, "start_ns": 10**12 + 600000,
             "duration_ns": 5000, "bytes": 1, "extra": None, "tensor_name": INJ, "n_src": 0, "ne_src": []})
prof = {"profiler": "ggml", "version": 3,
        "backends": [{"id": 0, "name": "Vulkan0", "device": "llvmpipe", "device_type": 1},
                     {"id": 1, "name": "CPU", "device": "cpu", "device_type": 0}],
        "records": recs, "total_records": len(recs), "total_ns": 0}
with open("profile.json", "w") as f:
    json.dump(prof, f)

rc, out, err = run("profile.json")
check(rc == 0 and os.path.exists("profile.html"), "default output is PROFILE.html", (rc, err))
html = open("profile.html", encoding="utf-8").read()
data, got = decode(html)
want = sorted((r["backend_id"], r["type"], r["split_id"], r["start_ns"], r["duration_ns"], r["name"]) for r in recs)
check(sorted(g[:6] for g in got) == want, "every record at its real start and duration")
sig = data["_sigs"]
tensors = {sig["tensor"][g[7]] for g in got}
check({"blk.0.x", "blk.3.x", INJ} <= tensors, "tensor names carried", tensors)
kern = {(sig["name"][g[7]], sig["kernel"][g[7]], sig["n_kernels"][g[7]]) for g in got if sig["kernel"][g[7]]}
check(kern == {("FLASH_ATTN_EXT", "flash_attn_f32_f16_aligned+fa_split_k_reduce", 2)}, "device kernels carried", kern)
subs = {(sig["name"][g[7]], sig["sub_op"][g[7]]) for g in got}
check(("UNARY", "SILU") in subs, "sub-op carried", subs)
shapes = {sig["shape"][g[7]] for g in got if sig["name"][g[7]] == "MUL_MAT"}
check(shapes == {"4096x4096, 4096", "4096x4096, 4096x2"}, "shape text from ne_src", shapes)
check([l["backend"] for l in data["lanes"]] == [0, 0, 0, 1, 1] and data["lanes"][2]["copy"] == 1,
      "lanes: Vulkan0 split 0/1, Vulkan0 copies, CPU split 0/1", data["lanes"])
check(html.lower().count("</script") == 2 and "<img" not in html, "injection stays data")
check(data["source"] == "profile.json", "source name", data["source"])

# Many streams: 3 backends x 40 splits = 120 lanes, each exactly once.
many = [{"type": 0, "name": "ADD", "backend_id": i % 3, "split_id": (i // 3) % 40, "start_ns": i * 100,
         "duration_ns": 50, "bytes": 4, "extra": None, "ne_src0": [4, 1, 1, 1], "ne_src1": [0, 0, 0, 0],
         "ne_src2": [0, 0, 0, 0]} for i in range(2400)]
with open("many.json", "w") as f:
    json.dump({"version": 2, "backends": [], "records": many}, f)
rc, out, err = run("many.json")
dm, gm = decode(open("many.html", encoding="utf-8").read())
keys = [(l["backend"], l["split"]) for l in dm["lanes"]]
check(rc == 0 and len(keys) == 120 and len(set(keys)) == 120 and all(sum(l["rows"]) == 20 for l in dm["lanes"]),
      "120 lanes, each once, 20 records each", (rc, len(keys), len(set(keys))))

# `opscope report --html-viewer` writes the same page data as `opscope view`.
p = subprocess.run([opscope, "report", "profile.json", "-q", "--html-viewer", "report.html"], capture_output=True)
dr, gr = decode(open("report.html", encoding="utf-8").read()) if p.returncode == 0 else ({}, [])
check(p.returncode == 0 and sorted(g[:6] for g in gr) == want, "report --html-viewer: same records", p.stderr)
p = subprocess.run([opscope, "report", "profile.json", "-q", "--html-viewer", "report10.html",
                    "--html-max-records", "10"], capture_output=True)
dr10 = decode(open("report10.html", encoding="utf-8").read())[0] if p.returncode == 0 else {"kept": -1}
check(p.returncode == 0 and 5 <= dr10["kept"] <= 10, "report --html-max-records", p.stderr)

rc, out, err = run("profile.json", "-o", "small.html", "--max-records", "10")
d2, g2 = decode(open("small.html", encoding="utf-8").read())
check(rc == 0 and 5 <= d2["kept"] <= 10 and d2["seen"] == len(recs), "--max-records keeps at most N", (d2["kept"], d2["seen"]))

rc, out, err = run("-", "-o", "stdin.html", stdin=open("profile.json", "rb").read())
check(rc == 0 and decode(open("stdin.html", encoding="utf-8").read())[0]["kept"] == len(recs), "reads stdin", err)
rc, out, err = run("-", stdin=b"{}")
check(rc == 1 and "-o is required" in err, "stdin without -o is a usage error", (rc, err))

with open("bad.json", "w") as f:
    f.write(json.dumps(prof)[:5000])
rc, out, err = run("bad.json", "-o", "bad.html")
check(rc == 0 and err.count("opscope: warning: bad.json is cut short") == 1,
      "truncated input: read up to the cut, one warning naming the file", (rc, err))
check(os.path.exists("bad.html") and not [f for f in os.listdir(".") if ".tmp." in f],
      "the page of the records before the cut, no temporary file left", os.listdir("."))
with open("bad.json", "w") as f:
    f.write(json.dumps(prof)[:5000].replace('"records"', '"records" x', 1))
rc, out, err = run("bad.json", "-o", "bad.html")
check(rc == 2 and err.count("\n") == 1 and "bad.json" in err, "malformed input: exit 2, one line naming the file", (rc, err))
rc, out, err = run()
check(rc == 1 and "missing PROFILE" in err, "no PROFILE: exit 1", (rc, err))
rc, out, err = run("profile.json", "--bogus")
check(rc == 1 and "unknown option" in err, "unknown option: exit 1", (rc, err))
rc, out, err = run("profile.json", "--max-records", "x")
check(rc == 1, "bad --max-records: exit 1", (rc, err))
rc, out, err = run("--help")
check(rc == 0 and out.startswith("usage: opscope view"), "--help", (rc, out))
rc, out, err = run("missing.json", "-o", "m.html")
check(rc == 2 and "missing.json" in err and not os.path.exists("m.html"), "missing file: exit 2", (rc, err))
print("%d failed" % failures)
sys.exit(1 if failures else 0)
