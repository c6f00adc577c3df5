#!/usr/bin/env python3
"""Memory traffic, intensity and the roofline of `opscope report --peak`, and `opscope peak`.

Usage: roofline.py OPSCOPE WORKDIR

The profile and the peak file below are written by hand; every expected traffic is worked out
here from ggml's type sizes (block bytes / block elements, as ggml_type_size and
ggml_blck_size give them) and every bound and % of roofline from the definitions in
docs/metrics.md, independently of opscope's code.
"""
import json
import os
import shutil
import sys

from checks import check, done, load, run



def near(a, b, rel=1e-6):
    return a is not None and b is not None and abs(a - b) <= rel * max(abs(a), abs(b), 1e-12)


F32, F16, Q4_0, I32, I64 = 0, 1, 2, 26, 27
# (block elements, block bytes)
SIZES = {F32: (1, 4), F16: (1, 2), Q4_0: (32, 18), I32: (1, 4), I64: (1, 8)}


def nbytes(t, shape):
    n = 1
    for d in shape:
        n *= max(d, 1)
    blck, size = SIZES[t]
    return (n + blck - 1) // blck * size


def op(name, bk, start, dur, srcs, out, extra=None):
    r = {"type": 0, "name": name, "backend_id": bk, "split_id": 0, "start_ns": start,
         "duration_ns": dur, "bytes": nbytes(out[0], out[1]), "n_src": len(srcs),
         "ne_src": [s[1] for s in srcs], "type_src": [s[0] for s in srcs],
         "ne": out[1], "out_type": out[0]}
    if extra:
        r["extra"] = extra
    return r


# backend 0: CPU, 1: Vulkan on lavapipe (the CPU), 2: a real GPU (no measured peak)
MM_W = (Q4_0, [4096, 4096, 1, 1])
MM_X = (F32, [4096, 1, 1, 1])
MM_O = (F32, [4096, 1, 1, 1])
ADD_A = (F32, [4096, 7, 1, 1])
SR_SRC = (F32, [512, 14, 1, 1])
SR_IDS = (I64, [14, 1, 1, 1])
SR_OUT = (F16, [512, 4096, 1, 1])
MMB_W = (F16, [256, 256, 1, 1])
MMB_X = (F32, [256, 4096, 1, 1])
MMB_O = (F32, [256, 4096, 1, 1])
RECORDS = [
    op("MUL_MAT", 0, 1000, 1_000_000, [MM_W, MM_X], MM_O),
    op("MUL_MAT", 0, 2_000_000, 1_000_000, [MM_W, MM_X], MM_O),
    op("ADD", 0, 3_000_000, 1_000, [ADD_A, ADD_A], ADD_A),
    op("SET_ROWS", 0, 3_100_000, 2_000, [SR_SRC, SR_IDS], SR_OUT),
    op("MUL_MAT", 1, 3_200_000, 10_000_000, [MMB_W, MMB_X], MMB_O),
    op("MUL_MAT", 2, 4_000_000, 10_000, [MM_W, MM_X], MM_O),
    {"type": 0, "name": "sgemm_kernel", "backend_id": 2, "split_id": 0, "start_ns": 5_000_000,
     "duration_ns": 5_000, "bytes": 0},
]
PROFILE = {
    "profiler": "opscope", "version": 3,
    "backends": [{"id": 0, "name": "CPU", "device": "Test CPU", "device_type": 0},
                 {"id": 1, "name": "Vulkan0", "device": "llvmpipe (LLVM 19.1.7, 256 bits)",
                  "device_type": 1},
                 {"id": 2, "name": "Vulkan1", "device": "NVIDIA GeForce RTX 4090", "device_type": 1}],
    "records": RECORDS,
}
PEAK = {"format": "opscope-peak", "version": 1, "cpu": "Test CPU", "host": "testhost",
        "isa": "avx2", "threads": 2, "measured_unix": 1700000000,
        "memory": {"all_gbps": 10.0, "one_gbps": 8.0},
        "cache": {"all_gbps": 50.0, "one_gbps": 30.0},
        "flops": {"all_gflops": 100.0, "one_gflops": 50.0}}


def expected_traffic():
    w = nbytes(*MM_W)
    mm = w + nbytes(*MM_X) + nbytes(*MM_O)
    add = 3 * nbytes(*ADD_A)
    # SET_ROWS writes 14 rows of f16[512], not the 4096-row cache
    sr = nbytes(*SR_SRC) + nbytes(*SR_IDS) + 14 * 512 * 2
    mmb = nbytes(*MMB_W) + nbytes(*MMB_X) + nbytes(*MMB_O)
    return {("MUL_MAT", 0): 2 * mm, ("ADD", 0): add, ("SET_ROWS", 0): sr,
            ("MUL_MAT", 1): mmb, ("MUL_MAT", 2): mm, ("sgemm_kernel", 2): None}


def roof(flops, traffic, ns):
    """bound, level, pct against PEAK (docs/metrics.md, Roofline)."""
    bw, fma = PEAK["memory"]["all_gbps"], PEAK["flops"]["all_gflops"]
    i = flops / traffic
    gbps = traffic / ns
    level = "memory"
    if gbps > bw:
        bw, level = PEAK["cache"]["all_gbps"], "l2"
    if i * bw < fma:
        return "memory", level, 100 * gbps / bw
    return "compute", "fma", 100 * (flops / ns) / fma


def main():
    exe, work = sys.argv[1], sys.argv[2]
    shutil.rmtree(work, ignore_errors=True)  # a cache left by an earlier run would be found
    os.makedirs(work)
    prof = os.path.join(work, "profile.json")
    peak = os.path.join(work, "peak.json")
    out = os.path.join(work, "out.json")
    with open(prof, "w") as f:
        json.dump(PROFILE, f)
    with open(peak, "w") as f:
        json.dump(PEAK, f)

    # without --peak: traffic and intensity, no bound
    p = run([exe, "report", prof, "-q", "--json", out])
    check(p.returncode == 0, "report: exit %d %s" % (p.returncode, p.stderr))
    summ = load(out)["summary"]
    want = expected_traffic()
    for g in summ["ops"]:
        key = (g["name"], g["backend_id"])
        check(g["traffic_bytes"] == want[key],
              "%r traffic %r != %r" % (key, g["traffic_bytes"], want[key]))
        check(g["bound"] is None, "%r: a bound without --peak" % (key,))
        if want[key]:
            check(near(g["intensity"], g["flops"] / want[key]), "%r intensity %r" % (key, g["intensity"]))
            check(near(g["traffic_gbps"], want[key] / g["total_ns"]), "%r traffic_gbps" % (key,))
        else:
            check(g["intensity"] is None and g["traffic_gbps"] is None, "%r: unknown traffic given a number" % (key,))
    # MUL_MAT reads at least its weights: no traffic figure can be below the bytes it must read
    mm = [g for g in summ["ops"] if g["name"] == "MUL_MAT" and g["backend_id"] == 0][0]
    check(mm["traffic_bytes"] >= 2 * nbytes(*MM_W), "MUL_MAT traffic below its weights")
    # SET_ROWS output bytes as recorded stay the seed's (this file says the cache size)
    sr = [g for g in summ["ops"] if g["name"] == "SET_ROWS"][0]
    check(sr["bytes"] == nbytes(*SR_OUT), "SET_ROWS bytes changed: %r" % sr["bytes"])

    # with --peak
    p = run([exe, "report", prof, "--peak", peak, "--json", out, "--text", os.path.join(work, "r.txt")])
    check(p.returncode == 0, "report --peak: exit %d %s" % (p.returncode, p.stderr))
    summ = load(out)["summary"]
    check(summ.get("peak", {}).get("memory", {}).get("all_gbps") == 10.0, "summary.peak missing")
    for g in summ["ops"]:
        key = (g["name"], g["backend_id"])
        if key[1] == 2 or want[key] is None:
            check(g["bound"] is None, "%r: bound %r for a backend without a measured peak" % (key, g["bound"]))
            continue
        b, level, pct = roof(g["flops"], want[key], g["total_ns"])
        check(g["bound"] == b and g["bound_level"] == level,
              "%r bound %r/%r != %s/%s" % (key, g["bound"], g.get("bound_level"), b, level))
        check(near(g["roofline_pct"], pct, 1e-6), "%r pct %r != %r" % (key, g.get("roofline_pct"), pct))
    # the hand-made cases cover every label
    labels = {(g["bound"], g.get("bound_level")) for g in summ["ops"]}
    check(("memory", "memory") in labels and ("memory", "l2") in labels and ("compute", "fma") in labels,
          "labels covered: %r" % labels)
    text = open(os.path.join(work, "r.txt")).read()
    check("No roofline for backend 2 (Vulkan1, NVIDIA GeForce RTX 4090)" in text, "text: GPU backend note")
    check("Roofline: peaks of testhost" in text and "%Roof" in text, "text: roofline columns")
    con = p.stdout.decode()
    check("compute" in con and "mem(L2)" in con and "FLOP/B" in con, "console: roofline columns")

    # --peak cache without a cache; a bad peak file: exit 2, a positioned message
    env = dict(os.environ, XDG_CACHE_HOME=os.path.join(work, "cache"))
    p = run([exe, "report", prof, "-q", "--peak", "cache"], env=env)
    check(p.returncode == 2 and b"run 'opscope peak' first" in p.stderr, "--peak cache without a cache: %r" % p.stderr)
    bad = os.path.join(work, "bad.json")
    with open(bad, "w") as f:
        f.write('{"format": "opscope-peak", "memory": {"all_gbps": -1}}')
    p = run([exe, "report", prof, "-q", "--peak", bad])
    check(p.returncode == 2 and b"bad.json:1:" in p.stderr and b"out of range" in p.stderr,
          "bad peak file: %r" % p.stderr)

    # opscope peak: a short real measurement into the cache, then report --peak cache
    pj = os.path.join(work, "measured.json")
    p = run([exe, "peak", "--json", pj, "--reps", "2", "--mem-size", "32M"], env=env)
    check(p.returncode == 0, "peak: exit %d %s" % (p.returncode, p.stderr))
    m = load(pj)
    for k, u in (("memory", "gbps"), ("cache", "gbps"), ("flops", "gflops")):
        for which in ("all", "one"):
            v = m[k]["%s_%s" % (which, u)]
            # any x86-64 core does > 0.5 GB/s and > 0.5 GFLOP/s; none does 100 TB/s
            check(0.5 < v < 1e5, "peak %s.%s_%s implausible: %r" % (k, which, u, v))
    check(m["memory"]["working_set_bytes"] >= (32 << 20) - 4096, "peak working set %r" % m["memory"])
    cached = os.path.join(work, "cache", "opscope")
    check(os.path.isdir(cached) and len(os.listdir(cached)) == 1, "peak: no cache file")
    p = run([exe, "report", prof, "-q", "--peak", "cache", "--json", out], env=env)
    check(p.returncode == 0, "report --peak cache: %r" % p.stderr)
    p = run([exe, "peak", "--bogus"])
    check(p.returncode == 1, "peak --bogus: exit %d" % p.returncode)
    p = run([exe, "peak", "--help"])
    check(p.returncode == 0 and b"--json FILE" in p.stdout, "peak --help")

    return done("roofline")


if __name__ == "__main__":
    sys.exit(main())
