#!/usr/bin/env python3
"""COPY records name the ggml call that copied (`extra`: tensor_set, tensor_get_async...):
the reports must show it as the call, never as a fused-op name, and group copies by
direction and by call. Fused OPs keep "[fused: ...]".

Usage: copy_calls.py OPSCOPE WORKDIR

The profile below is written by hand in the capture's layout; every expected string and
number is written here, worked out by hand from it (durations in ns; 1 ms = 1e6 ns).
"""
import json
import os
import re
import subprocess
import sys

from checks import check, done, load



def op(name, bk, start, dur, nbytes, extra=None, sub_op=None):
    r = {"type": 0, "name": name, "backend_id": bk, "split_id": 0, "start_ns": start,
         "duration_ns": dur, "bytes": nbytes, "extra": extra, "n_src": 1,
         "ne_src": [[256, 4, 1, 1]], "type_src": [0], "graph_id": 1}
    if sub_op:
        r["sub_op"] = sub_op
    return r


def copy(direction, call, bk, start, dur, nbytes, tensor):
    return {"type": 1, "name": direction, "backend_id": bk, "split_id": -1, "start_ns": start,
            "duration_ns": dur, "bytes": nbytes, "extra": call, "n_src": 1,
            "ne_src": [[nbytes // 4, 1, 1, 1]], "type_src": [0], "tensor_name": tensor}


PROFILE = {
    "profiler": "opscope", "version": 3,
    "backends": [{"id": 0, "name": "Vulkan0", "device": "llvmpipe", "device_type": 1},
                 {"id": 1, "name": "CPU", "device": "Test CPU", "device_type": 0}],
    "records": [
        copy("copy_H2D", "tensor_set", 0, 1_000_000, 300_000, 4000, "inp_tokens"),
        op("RMS_NORM", 0, 1_400_000, 200_000, 1024, extra="RMS_NORM+MUL"),
        op("MUL_MAT", 0, 1_700_000, 1_000_000, 2048),
        copy("copy_H2D", "tensor_set", 0, 2_800_000, 100_000, 1000, "inp_pos"),
        copy("copy_H2D", "tensor_set_async", 0, 3_000_000, 50_000, 2000, "ffn_up_exps"),
        copy("copy_H2D", "tensor_copy", 1, 3_100_000, 250_000, 1000, "leaf_3"),
        op("UNARY", 1, 3_400_000, 30_000, 512, sub_op="SILU"),
        copy("copy_D2H", "tensor_get_async", 0, 3_500_000, 40_000, 512, "result_output"),
        copy("copy_D2H", "tensor_get", 0, 3_600_000, 20_000, 512, "result_norm"),
        copy("copy_H2H", "tensor_get_async", 1, 3_700_000, 10_000, 64, "out"),
    ],
}

# Copies by direction (all backends), by total time; under each, its calls by total time.
# (label, calls, ms)
COPIES = [
    ("copy_H2D", 4, "0.700"),          # 300k + 100k + 50k + 250k
    ("via tensor_set", 2, "0.400"),    # 300k + 100k
    ("via tensor_copy", 1, "0.250"),
    ("via tensor_set_async", 1, "0.050"),
    ("copy_D2H", 2, "0.060"),
    ("via tensor_get_async", 1, "0.040"),
    ("via tensor_get", 1, "0.020"),
    ("copy_H2H", 1, "0.010"),
    ("via tensor_get_async", 1, "0.010"),
]

# The summary's "copies" and "copy_calls" lists: (name, call, display, count, total_ns, bytes)
JSON_COPIES = [
    ("copy_H2D", None, "copy_H2D", 4, 700_000, 8000),
    ("copy_D2H", None, "copy_D2H", 2, 60_000, 1024),
    ("copy_H2H", None, "copy_H2H", 1, 10_000, 64),
]
JSON_COPY_CALLS = [
    ("copy_H2D", "tensor_set", "copy_H2D (via tensor_set)", 2, 400_000, 5000),
    ("copy_H2D", "tensor_copy", "copy_H2D (via tensor_copy)", 1, 250_000, 1000),
    ("copy_H2D", "tensor_set_async", "copy_H2D (via tensor_set_async)", 1, 50_000, 2000),
    ("copy_D2H", "tensor_get_async", "copy_D2H (via tensor_get_async)", 1, 40_000, 512),
    ("copy_D2H", "tensor_get", "copy_D2H (via tensor_get)", 1, 20_000, 512),
    ("copy_H2H", "tensor_get_async", "copy_H2H (via tensor_get_async)", 1, 10_000, 64),
]

# Per-group rows of the operations table: display -> (backend, count)
OPS = {
    "MUL_MAT": ("0", 1),
    "copy_H2D (via tensor_set)": ("0", 2),
    "copy_H2D (via tensor_copy)": ("1", 1),
    "RMS_NORM [fused: RMS_NORM+MUL]": ("0", 1),
    "copy_H2D (via tensor_set_async)": ("0", 1),
    "copy_D2H (via tensor_get_async)": ("0", 1),
    "UNARY(SILU)": ("1", 1),
    "copy_D2H (via tensor_get)": ("0", 1),
    "copy_H2H (via tensor_get_async)": ("1", 1),
}

# The five longest records: (type word, display, duration in us)
TOP = [
    ("OP", "MUL_MAT", "1000.00"),
    ("COPY", "copy_H2D (via tensor_set)", "300.00"),
    ("COPY", "copy_H2D (via tensor_copy)", "250.00"),
    ("OP", "RMS_NORM [fused: RMS_NORM+MUL]", "200.00"),
    ("COPY", "copy_H2D (via tensor_set)", "100.00"),
]


def copies_section(text, heading):
    """The rows of the copies section that follows HEADING, up to the first blank line."""
    i = text.find(heading)
    if not check(i >= 0, f"no '{heading}' section"):
        return []
    rows = []
    for line in text[i + len(heading):].lstrip("\n").splitlines():
        if not line.strip():
            break
        m = re.match(r"^ +(\S.*?) +(\d+) calls +([\d.]+) ms ", line)
        check(m is not None, f"unparsed copies row {line!r}")
        if m:
            rows.append((m.group(1).strip(), int(m.group(2)), m.group(3)))
    return rows


def check_op_rows(text, tag):
    for disp, (bk, count) in OPS.items():
        # the tables name backends (ids 0 and 1 of the profile above)
        pat = r"^ (OP|COPY) +%s +%s +[\d.]+%% +%d " % (("Vulkan0", "CPU")[int(bk)], re.escape(disp), count)
        check(re.search(pat, text, re.M), f"{tag}: no operations row for {disp!r} (bk {bk}, {count})")


def check_top(text, tag):
    for word, disp, us in TOP:
        pat = r"^ %s +%s +%s us" % (word, re.escape(disp), re.escape(us))
        check(re.search(pat, text, re.M), f"{tag}: no longest-record line {word} {disp} {us}")


def main():
    opscope, work = sys.argv[1], sys.argv[2]
    os.makedirs(work, exist_ok=True)
    prof = os.path.join(work, "copies.json")
    with open(prof, "w") as f:
        json.dump(PROFILE, f)
    jpath, tpath, cpath = (os.path.join(work, n) for n in ("out.json", "out.txt", "trace.json"))
    p = subprocess.run([opscope, "report", prof, "--json", jpath, "--text", tpath,
                        "--chrome-trace", cpath], capture_output=True, text=True)
    if not check(p.returncode == 0, f"opscope report exit {p.returncode}: {p.stderr}"):
        return 1
    console = p.stdout
    text = open(tpath).read()

    for tag, out in (("console", console), ("text", text)):
        check(not re.search(r"fused: tensor_|\[fused: copy", out),
              f"{tag}: a copy call is shown as a fused name")
        check_op_rows(out, tag)
        check_top(out, tag)
    check(copies_section(console, "--- Copies by direction ---") == COPIES,
          f"console copies section: {copies_section(console, '--- Copies by direction ---')}")
    check(copies_section(text, "Copies by direction:") == COPIES,
          f"text copies section: {copies_section(text, 'Copies by direction:')}")

    summ = load(jpath)["summary"]
    key = ("name", "call", "display", "count", "total_ns", "bytes")
    got = [tuple(c[k] for k in key) for c in summ["copies"]]
    check(got == JSON_COPIES, f"json copies: {got}")
    check(all(c["extra"] is None and c["backend_id"] == -1 and c["type"] == 1
              for c in summ["copies"] + summ["copy_calls"]), "json copy lists: extra/backend/type")
    got = [tuple(c[k] for k in key) for c in summ["copy_calls"]]
    check(got == JSON_COPY_CALLS, f"json copy_calls: {got}")
    ops = {(o["display"], o["backend_id"]): o for o in summ["ops"]}
    check({d for d, _ in ops} == set(OPS), f"json ops displays: {sorted(d for d, _ in ops)}")
    for (disp, bk), o in ops.items():
        check(set(o) >= {"name", "sub_op", "extra", "call", "display"}, f"json ops {disp}: keys")
        if o["type"] == 1:
            check(o["extra"] is None and o["call"] in disp, f"json ops {disp}: call {o['call']}")
        else:
            check(o["call"] is None, f"json ops {disp}: call {o['call']}")
    fused = ops.get(("RMS_NORM [fused: RMS_NORM+MUL]", 0), {})
    check(fused.get("extra") == "RMS_NORM+MUL", f"json fused op extra: {fused.get('extra')}")
    tk = [(o["type"], o["display"], o["extra"], o["call"], o["duration_ns"]) for o in summ["top_kernels"]]
    check(tk == [(0, "MUL_MAT", None, None, 1_000_000),
                 (1, "copy_H2D (via tensor_set)", None, "tensor_set", 300_000),
                 (1, "copy_H2D (via tensor_copy)", None, "tensor_copy", 250_000),
                 (0, "RMS_NORM [fused: RMS_NORM+MUL]", "RMS_NORM+MUL", None, 200_000),
                 (1, "copy_H2D (via tensor_set)", None, "tensor_set", 100_000)],
          f"json top_kernels: {tk}")
    # the records themselves keep the seed layout: extra carries the call
    recs = load(jpath)["records"]
    check([r["extra"] for r in recs] == [r["extra"] for r in PROFILE["records"]],
          "json records: extra changed")

    ev = [e for e in load(cpath)["traceEvents"] if e.get("ph") == "X"]
    cp = [(e["name"], e["args"].get("call"), "fused" in e["args"]) for e in ev if e["cat"] == "copy"]
    check(cp == [(r["name"], r["extra"], False) for r in PROFILE["records"] if r["type"] == 1],
          f"chrome copy events: {cp}")
    rms = [e for e in ev if e["args"].get("op") == "RMS_NORM"]
    check(len(rms) == 1 and rms[0]["name"] == "RMS_NORM+MUL" and
          rms[0]["args"].get("fused") == "RMS_NORM+MUL", f"chrome fused op event: {rms}")

    return done("copy calls")


if __name__ == "__main__":
    sys.exit(main())
