"""viewer_data.py - an independent decoder of the viewer page's data block, for the tests.

decode(html) -> (data, records): DATA is the parsed JSON; RECORDS a list of tuples
(backend, copy, split, start_ns_absolute, duration_ns, name, row_overlap_flag, signature).
"""
import base64
import json
import re


def varints(s, count):
    b, out, p = base64.b64decode(s), [], 0
    for _ in range(count):
        v = shift = 0
        while True:
            x = b[p]
            p += 1
            v |= (x & 127) << shift
            shift += 7
            if x < 128:
                break
        out.append(v)
    if p != len(b):
        raise ValueError("trailing bytes in a column")
    return out


def zigzag(v):
    return (v >> 1) ^ -(v & 1)


def decode(html):
    m = re.search(r'<script type="application/json" id="opscope-data">(.*?)</script>', html, re.S)
    if not m:
        raise ValueError("no data block")
    data = json.loads(m.group(1))
    S, ns = data["strings"], data["sigs"]["n"]
    col = lambda k: varints(data["sigs"][k], ns)
    strs = lambda k: [S[i - 1] if i else None for i in col(k)]
    sigs = {
        "name": strs("name"), "sub_op": strs("sub_op"), "extra": strs("extra"),
        "tensor": strs("tensor"), "shape": strs("shape"), "category": strs("category"),
        "type": col("type"), "backend": [zigzag(v) for v in col("backend")],
        "node": [zigzag(v) for v in col("node")], "fused": [zigzag(v) for v in col("fused")],
        "bytes": col("bytes"), "flops": col("flops"),
        "kernel": strs("kernel") if "kernel" in data["sigs"] else [None] * ns,
        "n_kernels": [zigzag(v) for v in col("n_kernels")] if "n_kernels" in data["sigs"] else [0] * ns,
    }
    N = data["kept"]
    rsig = varints(data["recs"]["sig"], N)
    rstart = varints(data["recs"]["start"], N)
    rdur = varints(data["recs"]["dur"], N)
    t0 = int(data["t0"])
    recs, i = [], 0
    for lane in data["lanes"]:
        for count, overlap in zip(lane["rows"], lane["overlap"]):
            prev = t0
            for _ in range(count):
                s = prev + rstart[i]
                g = rsig[i]
                recs.append((lane["backend"], lane["copy"], lane["split"], s, rdur[i],
                             sigs["name"][g], overlap, g))
                prev = s
                i += 1
    if i != N:
        raise ValueError("row counts do not add up")
    data["_sigs"] = sigs
    return data, recs
